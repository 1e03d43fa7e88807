"""Port of the PyTorch tutorial "Learning PyTorch with Examples": *Defining new autograd
functions*. ``y = a + b P3(c + d x)`` with ``P3`` the Legendre polynomial of degree 3,
written as a ``torch.autograd.Function`` with its own backward.

Ported by changing the imports (``import pyad as torch``).

Run it with ``python examples/ported/polynomial_custom_function.py``.
"""
import math


def run(torch, steps=300, init=None, log=print):
    """Return the loss of every step."""

    class LegendrePolynomial3(torch.autograd.Function):
        """P3(x) = (5 x^3 - 3 x) / 2, with P3'(x) = 3 (5 x^2 - 1) / 2."""

        @staticmethod
        def forward(ctx, input):
            ctx.save_for_backward(input)
            return 0.5 * (5 * input ** 3 - 3 * input)

        @staticmethod
        def backward(ctx, grad_output):
            input, = ctx.saved_tensors
            return grad_output * 1.5 * (5 * input ** 2 - 1)

    dtype = torch.float
    device = torch.device("cpu")
    x = torch.linspace(-math.pi, math.pi, 2000, device=device, dtype=dtype)
    y = torch.sin(x)
    # Weights start close enough to the answer to converge (as in the tutorial).
    a = torch.full((), 0.0, device=device, dtype=dtype, requires_grad=True)
    b = torch.full((), -1.0, device=device, dtype=dtype, requires_grad=True)
    c = torch.full((), 0.0, device=device, dtype=dtype, requires_grad=True)
    d = torch.full((), 0.3, device=device, dtype=dtype, requires_grad=True)
    learning_rate = 5e-6
    losses = []
    for t in range(steps):
        P3 = LegendrePolynomial3.apply
        y_pred = a + b * P3(c + d * x)
        loss = (y_pred - y).pow(2).sum()
        losses.append(loss.item())
        if t % 100 == 99:
            log(t, loss.item())
        loss.backward()
        with torch.no_grad():
            a -= learning_rate * a.grad
            b -= learning_rate * b.grad
            c -= learning_rate * c.grad
            d -= learning_rate * d.grad
            a.grad = None
            b.grad = None
            c.grad = None
            d.grad = None
    log(f"Result: y = {a.item()} + {b.item()} * P3({c.item()} + {d.item()} x)")
    return losses


if __name__ == "__main__":
    import pyad as torch
    run(torch, steps=2000)
