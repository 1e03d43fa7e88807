"""Port of the PyTorch tutorial "Learning PyTorch with Examples": *Tensors and
autograd*. Fit ``y = sin(x)`` with a third-order polynomial; autograd computes the
gradients.

Ported by changing the imports (``import pyad as torch``); the random initial
coefficients come from a seeded NumPy generator so that torch and pyad start alike.

Run it with ``python examples/ported/polynomial_autograd.py``.
"""
import math

import numpy as np


def run(torch, steps=300, seed=0, init=None, log=print):
    """Return the loss of every step."""
    dtype = torch.float
    rng = np.random.RandomState(seed)
    # Create Tensors to hold input and outputs.
    x = torch.linspace(-math.pi, math.pi, 2000, dtype=dtype)
    y = torch.sin(x)
    # Create random Tensors for weights; requires_grad=True: we want their gradients.
    a, b, c, d = (torch.tensor(rng.standard_normal(), dtype=dtype, requires_grad=True)
                  for _ in range(4))
    learning_rate = 1e-6
    losses = []
    for t in range(steps):
        # Forward pass: compute predicted y using operations on Tensors.
        y_pred = a + b * x + c * x ** 2 + d * x ** 3
        # Compute and print loss using operations on Tensors.
        loss = (y_pred - y).pow(2).sum()
        losses.append(loss.item())
        if t % 100 == 99:
            log(t, loss.item())
        # Use autograd to compute the backward pass.
        loss.backward()
        # Manually update weights using gradient descent, without tracking it.
        with torch.no_grad():
            a -= learning_rate * a.grad
            b -= learning_rate * b.grad
            c -= learning_rate * c.grad
            d -= learning_rate * d.grad
            # Manually zero the gradients after updating weights
            a.grad = None
            b.grad = None
            c.grad = None
            d.grad = None
    log(f"Result: y = {a.item()} + {b.item()} x + {c.item()} x^2 + {d.item()} x^3")
    return losses


if __name__ == "__main__":
    import pyad as torch
    run(torch, steps=2000)
