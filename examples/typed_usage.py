"""A small, fully annotated use of pyad, type-checked by ``mypy --strict`` in CI.

The types come from pyad's stubs (``pyad/_engine.pyi`` and the ``py.typed`` marker):
run ``mypy`` in the checkout (the configuration is in pyproject.toml).
"""
import numpy as np
from numpy.typing import NDArray

import pyad
from pyad import Variable


def loss(w: Variable, x: Variable, y: Variable) -> Variable:
    """Mean squared error of a linear model ``x @ w`` against ``y``."""
    err = pyad.matmul(x, w) - y
    return (err * err).mean()


def fit(x: NDArray[np.float64], y: NDArray[np.float64], steps: int = 100,
        lr: float = 0.1) -> NDArray[np.float64]:
    """Gradient descent on ``loss``; returns the fitted weights."""
    w = Variable(np.zeros((x.shape[1], 1)), requires_grad=True)
    xv, yv = Variable(x), Variable(y)
    for _ in range(steps):
        value = loss(w, xv, yv)
        value.backward()
        grad = w.grad
        assert grad is not None
        w.data -= lr * grad.data          # a step outside the graph
        w.grad = None
    weights: NDArray[np.float64] = w.detach().numpy()
    return weights


if __name__ == "__main__":
    rng = np.random.default_rng(0)
    x = rng.standard_normal((64, 3))
    y = x @ np.array([[1.0], [-2.0], [0.5]])
    w = fit(x, y)
    print(np.round(w.ravel(), 3))
