"""Functional neural-network ops, as ``torch.nn.functional``.

The activations live in ``pyad`` itself and are re-exported here.
"""
from pyad._engine import relu, sigmoid, tanh, log_softmax
from pyad._engine import pad

__all__ = ["relu", "sigmoid", "tanh", "log_softmax", "pad"]
