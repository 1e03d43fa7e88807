"""Extending pyad with custom Functions.

Two Functions written the way ``torch.autograd.Function`` is (static ``forward`` and
``backward`` called through ``.apply``), each checked against finite differences:

* ``Softplus``: ``log(1 + exp(beta * x)) / beta``, computed stably. Its backward is
  written with pyad operations, so it is itself differentiable: ``gradcheck`` and
  ``gradgradcheck`` (second derivatives) both pass.
* ``Cube``: ``x ** 3`` with a backward written on raw arrays and marked
  ``@once_differentiable``. First derivatives work; differentiating through that
  backward (as ``gradgradcheck`` does) raises a clear RuntimeError instead of silently
  returning a wrong second derivative.

Run it with ``python examples/custom_function.py``.
"""
import numpy as np

import pyad
from pyad.autograd import Function, gradcheck, gradgradcheck, once_differentiable


class Softplus(Function):
    """``softplus(x, beta) = log(1 + exp(beta * x)) / beta``."""

    @staticmethod
    def forward(ctx, x, beta=1.0):
        # forward receives Variables and runs with recording off, so it may work on the
        # raw arrays. logaddexp(0, t) = log(exp(0) + exp(t)) never overflows.
        # get_array_module picks numpy or cupy, so this also runs on a GPU.
        xp = pyad.get_array_module(x)
        ctx.save_for_backward(x)
        ctx.beta = beta                       # non-Variable state goes on ctx
        return pyad.Variable(xp.logaddexp(0, beta * x.data) / beta)

    @staticmethod
    def backward(ctx, grad_output):
        x, = ctx.saved_tensors
        grad_x = None
        if ctx.needs_input_grad[0]:           # (True, False): beta is not a Variable
            # d/dx softplus = sigmoid(beta * x). Written with pyad ops, so this backward
            # is recorded under create_graph=True and can be differentiated again.
            grad_x = grad_output * (x * ctx.beta).sigmoid()
        return grad_x, None                   # one gradient per forward input


class Cube(Function):
    """``x ** 3`` with a backward on raw arrays (once differentiable)."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x * x

    @staticmethod
    @once_differentiable
    def backward(ctx, grad_output):
        x, = ctx.saved_tensors
        # Plain array arithmetic: nothing here is recorded, hence once_differentiable.
        return 3.0 * x.data ** 2 * grad_output.data


def main():
    rng = np.random.default_rng(0)
    # gradcheck compares against finite differences: use float64 inputs.
    x = pyad.Variable(rng.normal(size=(4, 3)) * 5, requires_grad=True)

    y = Softplus.apply(x, 2.0)
    print("softplus(x) grad_fn:", y.grad_fn)
    y.sum().backward()
    expected = 1.0 / (1.0 + np.exp(-2.0 * x.data))
    assert np.allclose(x.grad.data, expected)
    print("softplus gradient matches sigmoid(beta * x)")

    # Stable where the naive formula overflows: exp(2 * 500) is inf in float64.
    big = Softplus.apply(pyad.tensor([500.0, -500.0], dtype=pyad.float64), 2.0)
    print("softplus([500, -500]) =", big.tolist())
    assert big.tolist() == [500.0, 0.0]

    print("gradcheck(Softplus):", gradcheck(lambda t: Softplus.apply(t, 2.0), (x,)))
    print("gradgradcheck(Softplus):", gradgradcheck(lambda t: Softplus.apply(t, 2.0), (x,)))

    c = pyad.Variable(rng.normal(size=5), requires_grad=True)
    print("gradcheck(Cube):", gradcheck(Cube.apply, (c,)))

    (g,) = pyad.autograd.grad(Cube.apply(c).sum(), c, create_graph=True)
    assert np.allclose(g.data, 3 * c.data ** 2)

    # gradgradcheck differentiates the backward pass (with respect to the inputs and
    # to grad_outputs that require grad), which reaches Cube's once_differentiable
    # backward and raises.
    try:
        gradgradcheck(Cube.apply, (c,))
    except RuntimeError as err:
        print("gradgradcheck(Cube):", err)
        assert "once_differentiable" in str(err)
    else:
        raise AssertionError("differentiating a once_differentiable backward must fail")

if __name__ == "__main__":
    main()
