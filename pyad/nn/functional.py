"""Functional neural-network ops, as ``torch.nn.functional``.

The activations live in ``pyad`` itself and are re-exported here.
"""
from pyad._engine import relu, sigmoid, tanh, log_softmax
from pyad._engine import pad
from pyad._engine import (conv1d, conv2d, conv_transpose2d, max_pool2d, avg_pool2d,
                           adaptive_avg_pool2d)

__all__ = ["relu", "sigmoid", "tanh", "log_softmax", "pad",
           "conv1d", "conv2d", "conv_transpose2d", "max_pool2d", "avg_pool2d",
           "adaptive_avg_pool2d"]
