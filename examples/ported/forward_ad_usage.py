"""Port of the PyTorch tutorial "Forward-mode Automatic Differentiation (Beta)"
(``intermediate_source/forward_ad_usage.py``): dual tensors, ``nn.Module`` with dual
parameters, ``functional_call``, a custom ``Function`` with ``jvp`` and the functional
``jvp``.

Ported by changing the imports (``import pyad as torch``,
``fwAD = torch.autograd.forward_ad``, ``functional_call = torch.func.functional_call``,
``ft = torch.func`` where the original imports functorch); the models call ``init``
(the tests give pyad torch's initial weights). Two parts are functions of their own:
the custom ``Function`` with a ``jvp`` is ``run_custom_function(torch)`` (pyad's
forward mode runs on the reverse-mode engine, so a ``Function`` without a backward
cannot carry a tangent, and ``gradcheck(check_forward_ad=True)`` raises), and
functorch's ``make_functional_with_buffers`` (deprecated in functorch, never in
``torch.func``) is ``run_make_functional(torch, ft)``: pyad has no such function.

Run it with ``python examples/ported/forward_ad_usage.py``.
"""
import functools


def run(torch, ft=None, init=None, log=print):
    """Return the jvps the tutorial computes (it prints nothing)."""
    fwAD = torch.autograd.forward_ad
    results = []

    primal = torch.randn(10, 10)
    tangent = torch.randn(10, 10)

    def fn(x, y):
        return x ** 2 + y ** 2

    # All forward AD computation must be performed in the context of
    # a ``dual_level`` context.
    with fwAD.dual_level():
        # It is also important to note that the dual tensor created by
        # ``make_dual`` is a view of the primal.
        dual_input = fwAD.make_dual(primal, tangent)
        assert fwAD.unpack_dual(dual_input).tangent is tangent

        # To demonstrate the case where the copy of the tangent happens,
        # we pass in a tangent with a layout different from that of the primal
        dual_input_alt = fwAD.make_dual(primal, tangent.T)
        assert fwAD.unpack_dual(dual_input_alt).tangent is not tangent

        # Tensors that do not have an associated tangent are automatically
        # considered to have a zero-filled tangent of the same shape.
        plain_tensor = torch.randn(10, 10)
        dual_output = fn(dual_input, plain_tensor)

        # Unpacking the dual returns a namedtuple with ``primal`` and ``tangent``
        # as attributes
        jvp = fwAD.unpack_dual(dual_output).tangent

    assert fwAD.unpack_dual(dual_output).tangent is None
    results.append(jvp)

    # Usage with Modules
    nn = torch.nn

    model = nn.Linear(5, 5)
    if init is not None:
        init(model)
    input = torch.randn(16, 5)

    params = {name: p for name, p in model.named_parameters()}
    tangents = {name: torch.rand_like(p) for name, p in params.items()}

    with fwAD.dual_level():
        for name, p in params.items():
            delattr(model, name)
            setattr(model, name, fwAD.make_dual(p, tangents[name]))

        out = model(input)
        jvp = fwAD.unpack_dual(out).tangent
    results.append(jvp)

    # Using the functional Module API (beta)
    functional_call = torch.func.functional_call

    # We need a fresh module because the functional call requires the
    # the model to have parameters registered.
    model = nn.Linear(5, 5)

    dual_params = {}
    with fwAD.dual_level():
        for name, p in params.items():
            # Using the same ``tangents`` from the above section
            dual_params[name] = fwAD.make_dual(p, tangents[name])
        out = functional_call(model, dual_params, input)
        jvp2 = fwAD.unpack_dual(out).tangent

    # Check our results
    assert torch.allclose(jvp, jvp2)
    results.append(jvp2)

    # Functional API (beta): the original imports functorch as ft
    if ft is None:
        ft = torch.func

    primal0 = torch.randn(10, 10)
    tangent0 = torch.randn(10, 10)
    primal1 = torch.randn(10, 10)
    tangent1 = torch.randn(10, 10)

    def fn(x, y):
        return x ** 2 + y ** 2

    # The jvp(func, primals, tangents) returns func(*primals) as well as the
    # computed jvp. Each primal must be associated with a tangent of the same shape.
    primal_out, tangent_out = ft.jvp(fn, (primal0, primal1), (tangent0, tangent1))
    results += [primal_out, tangent_out]

    # functorch.jvp requires every primal to be associated with a tangent.
    # If we only want to associate certain inputs to `fn` with tangents,
    # then we'll need to create a new function that captures inputs without tangents:
    primal = torch.randn(10, 10)
    tangent = torch.randn(10, 10)
    y = torch.randn(10, 10)

    new_fn = functools.partial(fn, y=y)
    primal_out, tangent_out = ft.jvp(new_fn, (primal,), (tangent,))
    results += [primal_out, tangent_out]
    return results


def run_custom_function(torch, init=None, log=print):
    """The tutorial's custom ``Function`` with a ``jvp`` (and no backward)."""
    fwAD = torch.autograd.forward_ad

    # Custom autograd Function
    class Fn(torch.autograd.Function):
        @staticmethod
        def forward(ctx, foo):
            result = torch.exp(foo)
            # Tensors stored in ctx can be used in the subsequent forward grad
            # computation.
            ctx.result = result
            return result

        @staticmethod
        def jvp(ctx, gI):
            gO = gI * ctx.result
            # If the tensor stored in ctx will not also be used in the backward pass,
            # one can manually free it using ``del``
            del ctx.result
            return gO

    fn = Fn.apply

    primal = torch.randn(10, 10, dtype=torch.double, requires_grad=True)
    tangent = torch.randn(10, 10)

    with fwAD.dual_level():
        dual_input = fwAD.make_dual(primal, tangent)
        dual_output = fn(dual_input)
        jvp = fwAD.unpack_dual(dual_output).tangent
    # ``check_forward_ad=True`` also checks forward grads
    checked = (torch.autograd.gradcheck(Fn.apply, (primal,), check_forward_ad=True,
                                            check_backward_ad=False,
                                            check_undefined_grad=False,
                                            check_batched_grad=False))
    return [jvp, checked]


def run_make_functional(torch, ft, init=None, log=print):
    """The tutorial's last part: ``ft.make_functional_with_buffers`` of functorch."""
    nn = torch.nn

    model = nn.Linear(5, 5)
    if init is not None:
        init(model)
    input = torch.randn(16, 5)
    tangents = tuple([torch.rand_like(p) for p in model.parameters()])

    # Given a torch.nn.Module, ft.make_functional_with_buffers extracts the state
    # (params and buffers) and returns a functional version of the model that
    # can be invoked like a function.
    func, params, buffers = ft.make_functional_with_buffers(model)

    # Because jvp requires every input to be associated with a tangent, we need to
    # create a new function that, when given the parameters, produces the output
    def func_params_only(params):
        return func(params, buffers, input)

    model_output, jvp_out = ft.jvp(func_params_only, (params,), (tangents,))
    return [model_output, jvp_out]


if __name__ == "__main__":
    import pyad as torch
    for jvp in run(torch):
        print(tuple(jvp.shape), float(jvp.abs().sum()))
