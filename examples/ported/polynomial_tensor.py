"""Port of the PyTorch tutorial "Learning PyTorch with Examples": *Tensors*. Fit
``y = sin(x)`` with a third-order polynomial, forward and backward written by hand (no
autograd).

Ported by changing the imports (``import pyad as torch``); the random initial
coefficients come from a seeded NumPy generator so that torch and pyad start alike.

Run it with ``python examples/ported/polynomial_tensor.py``.
"""
import math

import numpy as np


def run(torch, steps=300, seed=0, init=None, log=print):
    """Return the loss of every step."""
    dtype = torch.float
    device = torch.device("cpu")
    rng = np.random.RandomState(seed)
    # Create random input and output data
    x = torch.linspace(-math.pi, math.pi, 2000, device=device, dtype=dtype)
    y = torch.sin(x)
    # Randomly initialize weights
    a, b, c, d = (torch.tensor(rng.standard_normal(), device=device, dtype=dtype)
                  for _ in range(4))
    learning_rate = 1e-6
    losses = []
    for t in range(steps):
        # Forward pass: compute predicted y
        y_pred = a + b * x + c * x ** 2 + d * x ** 3
        # Compute and print loss
        loss = (y_pred - y).pow(2).sum().item()
        losses.append(loss)
        if t % 100 == 99:
            log(t, loss)
        # Backprop to compute gradients of a, b, c, d with respect to loss
        grad_y_pred = 2.0 * (y_pred - y)
        grad_a = grad_y_pred.sum()
        grad_b = (grad_y_pred * x).sum()
        grad_c = (grad_y_pred * x ** 2).sum()
        grad_d = (grad_y_pred * x ** 3).sum()
        # Update weights using gradient descent
        a -= learning_rate * grad_a
        b -= learning_rate * grad_b
        c -= learning_rate * grad_c
        d -= learning_rate * grad_d
    log(f"Result: y = {a.item()} + {b.item()} x + {c.item()} x^2 + {d.item()} x^3")
    return losses


if __name__ == "__main__":
    import pyad as torch
    run(torch, steps=2000)
