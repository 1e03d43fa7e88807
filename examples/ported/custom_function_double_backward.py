"""Port of the PyTorch tutorial "Double Backward with Custom Functions"
(``intermediate_source/custom_function_double_backward_tutorial.rst``): a custom
``Function`` that saves its input (``Square``), its output (``Exp``), intermediate
results returned as outputs (``Sinh``), the same without (``SinhBad``), and a backward
that is a ``Function`` of its own (``Cube``), each checked with ``gradcheck`` and
``gradgradcheck``.

Ported by changing the imports (``import pyad as torch``). The classes are
module-level functions of the namespace (``make_functions(torch)``). The torchviz
graphs are left out; the gradients they draw (``grad_x``, from ``create_graph=True``)
are returned with the checks' results.

Run it with ``python examples/ported/custom_function_double_backward.py``.
"""


def make_functions(torch):
    """The tutorial's custom Functions, on the namespace ``torch``."""

    class Square(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            # Because we are saving one of the inputs use `save_for_backward`
            # Save non-tensors and non-inputs/non-outputs directly on ctx
            ctx.save_for_backward(x)
            return x**2

        @staticmethod
        def backward(ctx, grad_out):
            # A function support double backward automatically if autograd
            # is able to record the computations performed in backward
            x, = ctx.saved_tensors
            return grad_out * 2 * x

    class Exp(torch.autograd.Function):
        # Simple case where everything goes well
        @staticmethod
        def forward(ctx, x):
            # This time we save the output
            result = torch.exp(x)
            # Note that we should use `save_for_backward` here when
            # the tensor saved is an ouptut (or an input).
            ctx.save_for_backward(result)
            return result

        @staticmethod
        def backward(ctx, grad_out):
            result, = ctx.saved_tensors
            return result * grad_out

    class Sinh(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            expx = torch.exp(x)
            expnegx = torch.exp(-x)
            ctx.save_for_backward(expx, expnegx)
            # In order to be able to save the intermediate results, a trick is to
            # include them as our outputs, so that the backward graph is constructed
            return (expx - expnegx) / 2, expx, expnegx

        @staticmethod
        def backward(ctx, grad_out, _grad_out_exp, _grad_out_negexp):
            expx, expnegx = ctx.saved_tensors
            grad_input = grad_out * (expx + expnegx) / 2
            # We cannot skip accumulating these even though we won't use the outputs
            # directly. They will be used later in the second backward.
            grad_input += _grad_out_exp * expx
            grad_input -= _grad_out_negexp * expnegx
            return grad_input

    def sinh(x):
        # Create a wrapper that only returns the first output
        return Sinh.apply(x)[0]

    class SinhBad(torch.autograd.Function):
        # This is an example of what NOT to do!
        @staticmethod
        def forward(ctx, x):
            expx = torch.exp(x)
            expnegx = torch.exp(-x)
            ctx.expx = expx
            ctx.expnegx = expnegx
            return (expx - expnegx) / 2

        @staticmethod
        def backward(ctx, grad_out):
            expx = ctx.expx
            expnegx = ctx.expnegx
            grad_input = grad_out * (expx + expnegx) / 2
            return grad_input

    def cube_forward(x):
        return x**3

    def cube_backward(grad_out, x):
        return grad_out * 3 * x**2

    def cube_backward_backward(grad_out, sav_grad_out, x):
        return grad_out * sav_grad_out * 6 * x

    def cube_backward_backward_grad_out(grad_out, x):
        return grad_out * 3 * x**2

    class Cube(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return cube_forward(x)

        @staticmethod
        def backward(ctx, grad_out):
            x, = ctx.saved_tensors
            return CubeBackward.apply(grad_out, x)

    class CubeBackward(torch.autograd.Function):
        @staticmethod
        def forward(ctx, grad_out, x):
            ctx.save_for_backward(x, grad_out)
            return cube_backward(grad_out, x)

        @staticmethod
        def backward(ctx, grad_out):
            x, sav_grad_out = ctx.saved_tensors
            dx = cube_backward_backward(grad_out, sav_grad_out, x)
            dgrad_out = cube_backward_backward_grad_out(grad_out, x)
            return dgrad_out, dx

    return Square, Exp, Sinh, sinh, SinhBad, Cube


def run(torch, init=None, log=print):
    """Return the checks' results and the graphs' values, in the tutorial's order."""
    Square, Exp, Sinh, sinh, SinhBad, Cube = make_functions(torch)
    results = []

    # Saving the Inputs
    # Use double precision because finite differencing method magnifies errors
    x = torch.rand(3, 3, requires_grad=True, dtype=torch.double)
    results.append(torch.autograd.gradcheck(Square.apply, x))
    # Use gradcheck to verify second-order derivatives
    results.append(torch.autograd.gradgradcheck(Square.apply, x))

    x = torch.tensor(1., requires_grad=True).clone()
    out = Square.apply(x)
    grad_x, = torch.autograd.grad(out, x, create_graph=True)
    results += [grad_x, x, out, grad_x.requires_grad]

    # Saving the Outputs
    x = torch.tensor(1., requires_grad=True, dtype=torch.double).clone()
    # Validate our gradients using gradcheck
    results.append(torch.autograd.gradcheck(Exp.apply, x))
    results.append(torch.autograd.gradgradcheck(Exp.apply, x))

    out = Exp.apply(x)
    grad_x, = torch.autograd.grad(out, x, create_graph=True)
    results += [grad_x, x, out, grad_x.requires_grad]

    # Saving Intermediate Results
    x = torch.rand(3, 3, requires_grad=True, dtype=torch.double)
    results.append(torch.autograd.gradcheck(sinh, x))
    results.append(torch.autograd.gradgradcheck(sinh, x))

    out = sinh(x)
    grad_x, = torch.autograd.grad(out.sum(), x, create_graph=True)
    results += [grad_x, x, out, grad_x.requires_grad]

    # Saving Intermediate Results: What not to do. Notice that `grad_x` is not
    # part of the graph!
    out = SinhBad.apply(x)
    grad_x, = torch.autograd.grad(out.sum(), x, create_graph=True)
    results += [grad_x, x, out, grad_x.requires_grad]

    # When Backward is not Tracked
    x = torch.tensor(2., requires_grad=True, dtype=torch.double)

    results.append(torch.autograd.gradcheck(Cube.apply, x))
    results.append(torch.autograd.gradgradcheck(Cube.apply, x))

    out = Cube.apply(x)
    grad_x, = torch.autograd.grad(out, x, create_graph=True)
    results += [grad_x, x, out, grad_x.requires_grad]
    return results


if __name__ == "__main__":
    import pyad as torch
    for value in run(torch):
        print(value)
