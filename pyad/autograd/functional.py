"""Higher-order derivatives of whole functions: ``pyad.autograd.functional``.

`vjp`, `jvp`, `jacobian`, `hessian`, `vhp` and `hvp` take a Python function of
Variables and the point to evaluate it at, and follow
``torch.autograd.functional`` in signature, return structure and errors:

- ``inputs`` is one Variable or a tuple of Variables; results mirror it (a single
  Variable in gives a single Variable out, a tuple gives a tuple).
- `jacobian` returns, for outputs ``O`` and inputs ``I``, ``J[o][i]`` of shape
  ``O[o].shape + I[i].shape``, with the nesting removed where the function took
  or returned a single Variable; `hessian` nests ``H[i][j]`` over inputs twice.
- ``create_graph=True`` keeps the results differentiable, so they can be
  differentiated again; otherwise they are detached.
- ``strict=True`` raises when an output does not depend on an input (or does not
  require grad at all), where the default returns the mathematically right zeros.

`jvp` and `hvp` use the double-backward trick (differentiate a backward pass
with respect to the gradient fed into it). ``strategy="forward-mode"`` (with
``vectorize=True``, as torch) goes through `pyad.autograd.forward_ad`.
Inside a `pyad.func` transform (``grad``, ``vjp``, ``jacrev``...) these functions
need ``create_graph=True`` (torch refuses them there altogether): with detached
results the transform would silently see a constant.
``vectorize=True`` is accepted and gives exactly the same result as
``vectorize=False``: the rows of a Jacobian are computed one
backward pass each in both cases (the engine has no batched ``grad`` yet).
"""

import pyad
from pyad.autograd.grad_mode import enable_grad, is_grad_enabled, set_grad_enabled

__all__ = ["vjp", "jvp", "jacobian", "hessian", "vhp", "hvp"]

_STRATEGIES = ("forward-mode", "reverse-mode")


def _check_not_in_transform(fn_name, create_graph):
    """torch refuses torch.autograd.functional inside a torch.func transform; pyad
    refuses it where the result would be silently wrong: with ``create_graph=False``
    (detached results) inside a differentiating transform of `pyad.func`."""
    if create_graph:
        return
    from pyad import func as _func      # pyad.func imports pyad.autograd
    differentiating = [api for api in _func._ACTIVE.stack if api != "vmap"]
    if differentiating:
        raise RuntimeError(
            "%s(): pyad.autograd.functional.%s with create_graph=False is being called "
            "inside a function being transformed by pyad.func.%s: its results are detached, "
            "so the transform would not see how they depend on its inputs. Use the "
            "pyad.func transforms (grad, vjp, jacrev, jacfwd, hessian) instead, or pass "
            "create_graph=True." % (fn_name, fn_name, differentiating[-1]))


# ---------------------------------------------------------------------------
# Inputs and results as tuples
# ---------------------------------------------------------------------------

def _as_tuple(value, arg_name, fn_name):
    """Return ``(was_tuple, tuple_of_variables)``, checking every entry."""
    was_tuple = isinstance(value, tuple)
    items = value if was_tuple else (value,)
    for index, item in enumerate(items):
        if not isinstance(item, pyad.Variable):
            where = ("the value at index %d" % index) if was_tuple else ("the given %s" % arg_name)
            raise TypeError("The %s given to %s must be either a Variable or a tuple of "
                            "Variables but %s has type %s." % (arg_name, fn_name, where, type(item)))
    return was_tuple, items


def _unpack(result, was_tuple):
    """Undo `_as_tuple`: ``was_tuple`` is one flag, or two for a nested result."""
    if isinstance(was_tuple, tuple):
        outer, inner = was_tuple
        if not inner:
            result = tuple(row[0] for row in result)
        if not outer:
            result = result[0]
        return result
    return result if was_tuple else result[0]


def _fresh_inputs(inputs, create_graph, need_graph):
    """New Variable objects for ``inputs``, so the function's use of them is ours to follow.

    With ``create_graph`` an input that requires grad is passed through a view, so
    gradients still reach the caller's Variable; otherwise it is detached. A new
    object is made in every case, so inputs that ``func`` also captures from its
    closure are told apart from the arguments (torch issue 32576).
    """
    fresh = []
    for variable in inputs:
        if create_graph and variable.requires_grad:
            fresh.append(variable.view_as(variable))
        else:
            fresh.append(variable.detach()._mark_requires_grad(need_graph))
    return tuple(fresh)


def _finish(results, create_graph):
    """Detach (possibly nested) results unless the caller asked for a graph."""
    if create_graph:
        return results
    return tuple(item.detach() if isinstance(item, pyad.Variable) else _finish(item, False)
                 for item in results)


def _validate_v(v, reference, reference_was_tuple):
    if len(v) != len(reference):
        if reference_was_tuple:
            raise RuntimeError("v is a tuple of invalid length: should be %d but got %d."
                               % (len(reference), len(v)))
        raise RuntimeError("The given v should contain a single Variable.")
    for index, (given, expected) in enumerate(zip(v, reference)):
        if tuple(given.shape) != tuple(expected.shape):
            prefix = ("Entry %d in " % index) if reference_was_tuple else ""
            raise RuntimeError("%sv has invalid size: should be %s but got %s."
                               % (prefix, tuple(expected.shape), tuple(given.shape)))


def _check_requires_grad(values, kind, strict):
    """Under ``strict``, refuse values that do not depend on the inputs."""
    if not strict:
        return
    for index, value in enumerate(values):
        if value is None:
            raise RuntimeError("The output of the user-provided function is independent of "
                               "input %d. This is not allowed in strict mode." % index)
        if value.requires_grad:
            continue
        if kind == "hessian":
            raise RuntimeError(
                "The hessian of the user-provided function with respect to input %d is "
                "independent of the input. This is not allowed in strict mode. You should "
                "ensure that your function is thrice differentiable and that the hessian "
                "depends on the inputs." % index)
        if kind == "jacobian":
            raise RuntimeError(
                "While computing the hessian, found that the jacobian of the user-provided "
                "function with respect to input %d is independent of the input. This is not "
                "allowed in strict mode. You should ensure that your function is twice "
                "differentiable and that the jacobian depends on the inputs (this would be "
                "violated by a linear function for example)." % index)
        if kind == "grad_inputs":
            raise RuntimeError(
                "The gradient with respect to input %d is independent of the inputs of the "
                "user-provided function. This is not allowed in strict mode." % index)
        raise RuntimeError(
            "Output %d of the user-provided function does not require gradients. The outputs "
            "must be computed in a differentiable manner from the input when running in "
            "strict mode." % index)


def _grad(outputs, inputs, grad_outputs=None, create_graph=False, retain_graph=None):
    """`pyad.autograd.grad` that skips outputs which are None or need no grad.

    Returns one entry per input, None where no output depends on it.
    """
    if grad_outputs is None:
        grad_outputs = (None,) * len(outputs)
    kept = [(out, grad_out) for out, grad_out in zip(outputs, grad_outputs)
            if out is not None and out.requires_grad]
    if not kept:
        return (None,) * len(inputs)
    return pyad.autograd.grad([out for out, _ in kept], list(inputs),
                              [grad_out for _, grad_out in kept],
                              retain_graph=retain_graph, create_graph=create_graph,
                              allow_unused=True)


# Which backward produced a missing gradient, for `_fill_in_zeros`'s strict errors.
_MISSING = {
    "back": "The output of the user-provided function is independent of input {0}. "
            "This is not allowed in strict mode.",
    "back_trick": "The gradient with respect to the input is independent of entry {0} in the "
                  "grad_outputs when using the double backward trick to compute forward mode "
                  "gradients. This is not allowed in strict mode.",
    "double_back": "The jacobian of the user-provided function is independent of input {0}. "
                   "This is not allowed in strict mode.",
    "double_back_trick": "The hessian of the user-provided function is independent of entry {0} "
                         "in the grad_jacobian. This is not allowed in strict mode as it prevents "
                         "from using the double backward trick to replace forward mode AD.",
}


def _fill_in_zeros(grads, references, strict, create_graph, stage):
    """Replace missing gradients by zeros shaped like ``references`` (or raise, if strict)."""
    filled = []
    for index, gradient in enumerate(grads):
        if gradient is None:
            if strict:
                raise RuntimeError(_MISSING[stage].format(index))
            gradient = pyad.zeros_like(references[index])
        elif strict and create_graph and not gradient.requires_grad:
            what = "hessian" if stage.startswith("double") else "jacobian"
            raise RuntimeError("The %s of the user-provided function is independent of input %d. "
                               "This is not allowed in strict mode when create_graph=True."
                               % (what, index))
        filled.append(gradient)
    return tuple(filled)


def _stack(rows, shape):
    """Stack equally shaped Variables along a new first axis and reshape to ``shape``.

    Rows with history are written into a zeros Variable by (differentiable)
    item assignment, so the result keeps the graph; rows without history are
    stacked as arrays.
    """
    first = rows[0]
    if any(row.requires_grad for row in rows):
        result = pyad.zeros((len(rows),) + tuple(first.shape), dtype=first.dtype,
                            device=first.device)
        for index, row in enumerate(rows):
            result[index] = row
        return result.reshape(shape)
    xp = pyad.get_array_module(first)
    return pyad.Variable(xp.stack([row.data for row in rows]).reshape(shape))


def _construct_standard_basis_for(tensors, tensor_numels):
    """torch's private helper: for ``tensors`` with ``tensor_numels`` elements (total
    ``N``), one ``(N, numel_i)`` Variable per tensor, with the tensor's dtype and device,
    whose side-by-side concatenation is the ``N x N`` identity (the standard basis,
    split column-wise per tensor)."""
    if len(tensors) != len(tensor_numels):
        raise ValueError("_construct_standard_basis_for(): expected one numel per Variable, "
                         "got %d Variables and %d numels" % (len(tensors), len(tensor_numels)))
    if len(tensors) == 0:
        raise ValueError("_construct_standard_basis_for(): expected at least one Variable")
    total_numel = sum(tensor_numels)
    chunks = []
    diag_start_idx = 0
    for tensor, numel in zip(tensors, tensor_numels):
        chunk = pyad.zeros((total_numel, numel), dtype=tensor.dtype, device=tensor.device)
        with pyad.no_grad():
            chunk.diagonal(diag_start_idx).fill_(1)
        diag_start_idx -= numel
        chunks.append(chunk)
    return tuple(chunks)


def _jacfwd(func, inputs, strict, vectorize):
    """``jacobian(..., strategy="forward-mode")``, as torch's ``_jacfwd``.

    One forward-mode Jacobian-vector product per input element (through
    `pyad.autograd.forward_ad`), with a one-hot tangent. As in torch the inputs are
    not detached, so the result is differentiable when the inputs require grad,
    and a tuple of inputs and a tuple of outputs give lists, not tuples.
    """
    from pyad.autograd import forward_ad as fwAD
    if strict:
        raise RuntimeError("jacobian(): `strict=True` and `strategy=\"forward-mode\"` are not "
                           "supported together (yet). Please either set `strict=False` or "
                           "`strategy=\"reverse-mode\"`.")
    inputs_were_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
    if not vectorize:
        raise NotImplementedError("jacobian(): computing the Jacobian with forward-mode AD "
                                  "(or a forward-over-reverse Hessian) is only implemented "
                                  "for `vectorize=True`.")
    numels = [inp.nelement() for inp in inputs]
    columns = None            # columns[o][i]: list of d outputs[o] / d inputs[i].flat[k]
    outputs = outputs_were_tuple = None

    def evaluate(tangents):
        with fwAD.dual_level():
            duals = tuple(fwAD.make_dual(inp, tan) for inp, tan in zip(inputs, tangents))
            was_tuple, outs = _as_tuple(func(*duals), "outputs of the user-provided function",
                                        "jacobian")
            unpacked = [fwAD.unpack_dual(out) for out in outs]
        primals = tuple(item.primal for item in unpacked)
        jvps = tuple(pyad.zeros_like(primal) if item.tangent is None else item.tangent
                     for item, primal in zip(unpacked, primals))
        return was_tuple, primals, jvps

    zeros = [pyad.zeros_like(inp) for inp in inputs]
    for in_index, inp in enumerate(inputs):
        for k in range(numels[in_index]):
            one_hot = pyad.zeros(numels[in_index], dtype=inp.dtype, device=inp.device)
            one_hot[k] = 1
            tangents = list(zeros)
            tangents[in_index] = one_hot.reshape(inp.shape)
            outputs_were_tuple, outputs, jvps = evaluate(tangents)
            if columns is None:
                columns = [[[] for _ in inputs] for _ in outputs]
            for out_index, jvp_value in enumerate(jvps):
                columns[out_index][in_index].append(jvp_value)
    if columns is None:       # no input element at all: run func once for the outputs
        outputs_were_tuple, outputs, _ = evaluate(zeros)
        columns = [[[] for _ in inputs] for _ in outputs]

    result = []
    for out_index, out in enumerate(outputs):
        row = []
        for in_index, inp in enumerate(inputs):
            shape = tuple(out.shape) + tuple(inp.shape)
            cols = columns[out_index][in_index]
            if cols:
                row.append(pyad.stack([c.reshape(-1) for c in cols], dim=-1).reshape(shape))
            else:
                row.append(pyad.zeros(shape, dtype=out.dtype, device=out.device))
        result.append(row)
    if not inputs_were_tuple:
        result = tuple(row[0] for row in result)
    if not outputs_were_tuple:
        result = result[0]
    return result


# ---------------------------------------------------------------------------
# Public API
# ---------------------------------------------------------------------------

def vjp(func, inputs, v=None, create_graph=False, strict=False):
    """Vector-Jacobian product ``v^T J`` of ``func`` at ``inputs``.

    ``v`` has the shape of ``func``'s output(s); it may be omitted when the output
    is a single Variable with one element. Returns ``(func_output, vjp)``, where
    ``vjp`` has the structure and shapes of ``inputs``.

    Examples
    --------
    >>> from pyad.autograd.functional import vjp
    >>> x = pyad.Variable(numpy.array([1., 2., 3.]))
    >>> out, grad_x = vjp(lambda x: x * x, x, pyad.Variable(numpy.ones(3)))
    >>> grad_x
    tensor([2., 4., 6.], dtype=float64)
    >>> _, (ga, gb) = vjp(lambda a, b: (a * b).sum(), (x, x + 1))
    >>> ga, gb
    (tensor([2., 3., 4.], dtype=float64), tensor([1., 2., 3.], dtype=float64))
    """
    _check_not_in_transform("vjp", create_graph)
    with enable_grad():
        inputs_were_tuple, inputs = _as_tuple(inputs, "inputs", "vjp")
        inputs = _fresh_inputs(inputs, create_graph, need_graph=True)
        outputs_were_tuple, outputs = _as_tuple(func(*inputs), "outputs of the user-provided function", "vjp")
        _check_requires_grad(outputs, "outputs", strict)
        if v is not None:
            _, v = _as_tuple(v, "v", "vjp")
            v = _fresh_inputs(v, create_graph, need_graph=False)
            _validate_v(v, outputs, outputs_were_tuple)
        elif len(outputs) != 1 or outputs[0].nelement() != 1:
            raise RuntimeError("The vector v can only be None if the user-provided function "
                               "returns a single Variable with a single element.")

    with set_grad_enabled(create_graph or is_grad_enabled()):
        grads = _grad(outputs, inputs, v, create_graph=create_graph)
        result = _fill_in_zeros(grads, inputs, strict, create_graph, "back")
    return (_unpack(_finish(outputs, create_graph), outputs_were_tuple),
            _unpack(_finish(result, create_graph), inputs_were_tuple))


def jvp(func, inputs, v=None, create_graph=False, strict=False):
    """Jacobian-vector product ``J v`` of ``func`` at ``inputs``.

    ``v`` has the shape of ``inputs``; it may be omitted when the input is a
    single Variable with one element. Returns ``(func_output, jvp)``, where
    ``jvp`` has the structure and shapes of the output(s). Computed with the
    double-backward trick: the backward pass is linear in the gradient fed into
    it, so differentiating it with respect to that gradient gives ``J v``.

    Examples
    --------
    >>> from pyad.autograd.functional import jvp
    >>> x = pyad.Variable(numpy.array([1., 2., 3.]))
    >>> out, tangent = jvp(lambda x: x * x, x, pyad.Variable(numpy.ones(3)))
    >>> tangent
    tensor([2., 4., 6.], dtype=float64)
    """
    _check_not_in_transform("jvp", create_graph)
    with enable_grad():
        inputs_were_tuple, inputs = _as_tuple(inputs, "inputs", "jvp")
        inputs = _fresh_inputs(inputs, create_graph, need_graph=True)
        if v is not None:
            _, v = _as_tuple(v, "v", "jvp")
            v = _fresh_inputs(v, create_graph, need_graph=False)
            _validate_v(v, inputs, inputs_were_tuple)
        elif len(inputs) != 1 or inputs[0].nelement() != 1:
            raise RuntimeError("The vector v can only be None if the input to the user-provided "
                               "function is a single Variable with a single element.")
        outputs_were_tuple, outputs = _as_tuple(func(*inputs), "outputs of the user-provided function", "jvp")
        _check_requires_grad(outputs, "outputs", strict)
        # The backward pass is linear in these, so their value never shows in the
        # result: zeros are safe (no inf or NaN can leak in).
        grad_outputs = tuple(pyad.zeros_like(out)._mark_requires_grad(True) for out in outputs)
        grad_inputs = _grad(outputs, inputs, grad_outputs, create_graph=True)
        _check_requires_grad(grad_inputs, "grad_inputs", strict)

    with set_grad_enabled(create_graph or is_grad_enabled()):
        grads = _grad(grad_inputs, grad_outputs, v, create_graph=create_graph)
        result = _fill_in_zeros(grads, outputs, strict, create_graph, "back_trick")
    return (_unpack(_finish(outputs, create_graph), outputs_were_tuple),
            _unpack(_finish(result, create_graph), outputs_were_tuple))


def jacobian(func, inputs, create_graph=False, strict=False, vectorize=False,
             strategy="reverse-mode"):
    """Jacobian of ``func`` at ``inputs``.

    For one input and one output the result is a Variable of shape
    ``output.shape + input.shape``; with several, ``result[o][i]`` is the
    Jacobian of output ``o`` with respect to input ``i`` (a tuple of tuples, with
    the level for a single Variable removed). Inputs an output does not depend on
    get zeros (or an error with ``strict=True``). ``vectorize`` is accepted and
    changes nothing in the result; ``strategy="forward-mode"`` (which needs
    ``vectorize=True``, as torch) uses `pyad.autograd.forward_ad`.

    Examples
    --------
    >>> from pyad.autograd.functional import jacobian
    >>> x = pyad.Variable(numpy.array([1., 2.]))
    >>> jacobian(lambda x: x * x, x)
    tensor([[2., 0.],
            [0., 4.]], dtype=float64)
    >>> jac = jacobian(lambda a, b: (a * b, a.sum()), (x, x + 1))
    >>> jac[0][1]
    tensor([[1., 0.],
            [0., 2.]], dtype=float64)
    >>> jac[1][1]
    tensor([0., 0.], dtype=float64)
    """
    _check_not_in_transform("jacobian", create_graph)
    if strategy not in _STRATEGIES:
        raise AssertionError('jacobian(): expected strategy to be either "forward-mode" or '
                             '"reverse-mode", got %r. Hint: If your function has more outputs '
                             'than inputs, "forward-mode" tends to be more performant. '
                             'Otherwise, prefer to use "reverse-mode".' % (strategy,))
    if strategy == "forward-mode":
        if create_graph:
            raise NotImplementedError(
                'jacobian(): `create_graph=True` and `strategy="forward-mode"` are not '
                'supported together (yet). Please either set `create_graph=False` or '
                '`strategy="reverse-mode"`.')
        return _jacfwd(func, inputs, strict, vectorize)
    with enable_grad():
        inputs_were_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
        inputs = _fresh_inputs(inputs, create_graph, need_graph=True)
        outputs_were_tuple, outputs = _as_tuple(func(*inputs), "outputs of the user-provided function", "jacobian")
        _check_requires_grad(outputs, "outputs", strict)
        if vectorize and strict:
            raise RuntimeError("jacobian(): `strict=True` and "
                               "`vectorize=True` are not supported together. Please either set "
                               "`strict=False` or `vectorize=False`.")

        if vectorize and outputs and sum(out.nelement() for out in outputs) == 0:
            raise IndexError("jacobian(): the outputs of the user-provided function have no "
                             "element (torch's vectorized path fails the same way).")
        if not vectorize and any(out.nelement() == 0 for out in outputs):
            raise RuntimeError("jacobian(): stack expects a non-empty TensorList (an output "
                               "of the user-provided function has no element; torch fails "
                               "the same way with vectorize=False).")

        jacobians = []
        for out_index, out in enumerate(outputs):
            rows = [[] for _ in inputs]        # rows[i][k]: d out.flat[k] / d inputs[i]
            flat = out.reshape(-1)
            for k in range(out.nelement()):
                grads = _grad((flat[k],), inputs, retain_graph=True, create_graph=create_graph)
                for in_index, (gradient, inp) in enumerate(zip(grads, inputs)):
                    if gradient is None:
                        if strict:
                            raise RuntimeError(
                                "Output %d of the user-provided function is independent of "
                                "input %d. This is not allowed in strict mode."
                                % (out_index, in_index))
                        gradient = pyad.zeros_like(inp)
                    elif strict and create_graph and not gradient.requires_grad:
                        raise RuntimeError(
                            "The jacobian of the user-provided function is independent of "
                            "input %d. This is not allowed in strict mode when create_graph=True."
                            % in_index)
                    rows[in_index].append(gradient)
            jacobians.append(tuple(
                _stack(rows[i], tuple(out.shape) + tuple(inp.shape)) if rows[i]
                else pyad.zeros(tuple(out.shape) + tuple(inp.shape), dtype=inp.dtype,
                                device=inp.device)
                for i, inp in enumerate(inputs)))

    return _unpack(_finish(tuple(jacobians), create_graph), (outputs_were_tuple, inputs_were_tuple))


def hessian(func, inputs, create_graph=False, strict=False, vectorize=False,
            outer_jacobian_strategy="reverse-mode"):
    """Hessian of the scalar function ``func`` at ``inputs``.

    ``func`` must return one Variable with one element. For one input the
    result has shape ``input.shape + input.shape``; for a tuple of inputs,
    ``result[i][j]`` is the block for inputs ``i`` and ``j``. Computed as the
    Jacobian of the gradient. ``vectorize`` changes nothing in the result;
    ``outer_jacobian_strategy="forward-mode"`` (with ``vectorize=True``) takes that
    Jacobian in forward mode.

    Examples
    --------
    >>> from pyad.autograd.functional import hessian
    >>> x = pyad.Variable(numpy.array([1., 2.]))
    >>> hessian(lambda x: (x ** 3).sum(), x)
    tensor([[ 6.,  0.],
            [ 0., 12.]], dtype=float64)
    >>> h = hessian(lambda a, b: (a * b).sum(), (x, x))
    >>> h[0][1]
    tensor([[1., 0.],
            [0., 1.]], dtype=float64)
    """
    _check_not_in_transform("hessian", create_graph)
    inputs_were_tuple, inputs = _as_tuple(inputs, "inputs", "hessian")
    if outer_jacobian_strategy not in _STRATEGIES:
        raise AssertionError('hessian(): expected outer_jacobian_strategy to be either '
                             '"forward-mode" or "reverse-mode", got %r.'
                             % (outer_jacobian_strategy,))

    def scalar_func(*args):
        out = func(*args)
        out_was_tuple, outs = _as_tuple(out, "outputs of the user-provided function", "hessian")
        _check_requires_grad(outs, "outputs", strict)
        if out_was_tuple:
            raise RuntimeError("The function given to hessian should return a single Variable")
        if out.nelement() != 1:
            raise RuntimeError("The Variable returned by the function given to hessian should "
                               "contain a single element")
        return out.reshape(())

    def gradient_func(*args):
        if outer_jacobian_strategy == "forward-mode":
            # as torch: the duals are made to require grad, so the inner reverse pass
            # keeps its graph (and the result is differentiable)
            from pyad.autograd import forward_ad as fwAD
            args = tuple(fwAD._require_grad(arg) for arg in args)
        jac = jacobian(scalar_func, args, create_graph=True)
        _check_requires_grad(jac, "jacobian", strict)
        return jac

    result = jacobian(gradient_func, inputs, create_graph=create_graph, strict=strict,
                      vectorize=vectorize, strategy=outer_jacobian_strategy)
    return _unpack(result, (inputs_were_tuple, inputs_were_tuple))


def _scalar_outputs(func, inputs, fn_name, strict):
    outputs_were_tuple, outputs = _as_tuple(func(*inputs), "outputs of the user-provided function", fn_name)
    _check_requires_grad(outputs, "outputs", strict)
    if outputs_were_tuple:
        raise RuntimeError("The function given to %s should return a single Variable" % fn_name)
    if outputs[0].nelement() != 1:
        raise RuntimeError("The Variable returned by the function given to %s should contain "
                           "a single element" % fn_name)
    return outputs_were_tuple, outputs


def _vector_for_inputs(v, inputs, inputs_were_tuple, create_graph, fn_name):
    if v is not None:
        _, v = _as_tuple(v, "v", fn_name)
        v = _fresh_inputs(v, create_graph, need_graph=False)
        _validate_v(v, inputs, inputs_were_tuple)
    elif len(inputs) != 1 or inputs[0].nelement() != 1:
        raise RuntimeError("The vector v can only be None if the input to the user-provided "
                           "function is a single Variable with a single element.")
    return v


def vhp(func, inputs, v=None, create_graph=False, strict=False):
    """Vector-Hessian product ``v^T H`` of the scalar function ``func`` at ``inputs``.

    Returns ``(func_output, vhp)``, where ``vhp`` has the structure of ``inputs``.

    Examples
    --------
    >>> from pyad.autograd.functional import vhp
    >>> x = pyad.Variable(numpy.array([1., 2.]))
    >>> out, product = vhp(lambda x: (x ** 3).sum(), x, pyad.Variable(numpy.ones(2)))
    >>> out, product
    (tensor(9., dtype=float64), tensor([ 6., 12.], dtype=float64))
    """
    _check_not_in_transform("vhp", create_graph)
    with enable_grad():
        inputs_were_tuple, inputs = _as_tuple(inputs, "inputs", "vhp")
        inputs = _fresh_inputs(inputs, create_graph, need_graph=True)
        v = _vector_for_inputs(v, inputs, inputs_were_tuple, create_graph, "vhp")
        outputs_were_tuple, outputs = _scalar_outputs(func, inputs, "vhp", strict)
        jac = _grad(outputs, inputs, create_graph=True)
        _check_requires_grad(jac, "jacobian", strict)

    with set_grad_enabled(create_graph or is_grad_enabled()):
        grads = _grad(jac, inputs, v, create_graph=create_graph)
        result = _fill_in_zeros(grads, inputs, strict, create_graph, "double_back")
    return (_unpack(_finish(outputs, create_graph), outputs_were_tuple),
            _unpack(_finish(result, create_graph), inputs_were_tuple))


def hvp(func, inputs, v=None, create_graph=False, strict=False):
    """Hessian-vector product ``H v`` of the scalar function ``func`` at ``inputs``.

    Returns ``(func_output, hvp)``, where ``hvp`` has the structure of ``inputs``.
    Computed with the double-backward trick (for a twice continuously
    differentiable function ``H`` is symmetric and this equals `vhp`).

    Examples
    --------
    >>> from pyad.autograd.functional import hvp
    >>> x = pyad.Variable(numpy.array([1., 2.]))
    >>> out, product = hvp(lambda x: (x ** 3).sum(), x, pyad.Variable(numpy.array([1., 0.])))
    >>> product
    tensor([6., 0.], dtype=float64)
    """
    _check_not_in_transform("hvp", create_graph)
    with enable_grad():
        inputs_were_tuple, inputs = _as_tuple(inputs, "inputs", "hvp")
        inputs = _fresh_inputs(inputs, create_graph, need_graph=True)
        v = _vector_for_inputs(v, inputs, inputs_were_tuple, create_graph, "hvp")
        outputs_were_tuple, outputs = _scalar_outputs(func, inputs, "hvp", strict)
        jac = _grad(outputs, inputs, create_graph=True)
        _check_requires_grad(jac, "jacobian", strict)
        grad_jac = tuple(pyad.zeros_like(inp)._mark_requires_grad(True) for inp in inputs)
        double_back = _grad(jac, inputs, grad_jac, create_graph=True)

    with set_grad_enabled(create_graph or is_grad_enabled()):
        grads = _grad(double_back, grad_jac, v, create_graph=create_graph)
        result = _fill_in_zeros(grads, inputs, strict, create_graph, "double_back_trick")
    return (_unpack(_finish(outputs, create_graph), outputs_were_tuple),
            _unpack(_finish(result, create_graph), inputs_were_tuple))
