"""``torch.nn.modules.activation``: the same classes as there (defined elsewhere in pyad.nn;
this module re-exports them so that torch's import paths work)."""
from pyad.nn import (  # noqa: F401
    Threshold, ReLU, RReLU, Hardtanh, ReLU6, Sigmoid, Hardsigmoid, Tanh, SiLU, Mish,
    Hardswish, ELU, CELU, SELU, GLU, GELU, Hardshrink, LeakyReLU, LogSigmoid, Softplus,
    Softshrink, MultiheadAttention, PReLU, Softsign, Tanhshrink, Softmin, Softmax,
    Softmax2d, LogSoftmax,
)

__all__ = [
    "Threshold", "ReLU", "RReLU", "Hardtanh", "ReLU6", "Sigmoid", "Hardsigmoid", "Tanh",
    "SiLU", "Mish", "Hardswish", "ELU", "CELU", "SELU", "GLU", "GELU", "Hardshrink",
    "LeakyReLU", "LogSigmoid", "Softplus", "Softshrink", "MultiheadAttention", "PReLU",
    "Softsign", "Tanhshrink", "Softmin", "Softmax", "Softmax2d", "LogSoftmax",
]
