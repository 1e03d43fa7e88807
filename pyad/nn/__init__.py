"""``pyad.nn``: modules, parameters and initialisations as ``torch.nn``.

``pyad.nn.functional`` holds the functional ops; the modules here call them.
"""
from pyad.nn import functional, init
from pyad.nn.parameter import Parameter
from pyad.nn.modules import (
    Module, Sequential, ModuleList, Identity, Linear, Conv2d, MaxPool2d, ReLU, Tanh,
    Sigmoid, GELU, Softmax, LogSoftmax, Dropout, LayerNorm, BatchNorm2d, Embedding,
    Flatten, CrossEntropyLoss, MSELoss,
    LeakyReLU, ELU, CELU, SELU, SiLU, Mish, ReLU6, Hardswish, Hardsigmoid, Softplus,
    Hardtanh, LogSigmoid, Softsign, Tanhshrink, Softshrink, Hardshrink, Threshold, GLU,
    L1Loss, SmoothL1Loss, HuberLoss, BCELoss, BCEWithLogitsLoss, NLLLoss, KLDivLoss,
)

__all__ = [
    "BatchNorm2d", "Conv2d", "CrossEntropyLoss", "Dropout", "Embedding", "Flatten", "GELU",
    "Identity", "LayerNorm", "Linear", "LogSoftmax", "MSELoss", "MaxPool2d", "Module",
    "ModuleList", "Parameter", "ReLU", "Sequential", "Sigmoid", "Softmax", "Tanh",
    "functional", "init",
    "LeakyReLU", "ELU", "CELU", "SELU", "SiLU", "Mish", "ReLU6", "Hardswish",
    "Hardsigmoid", "Softplus", "Hardtanh", "LogSigmoid", "Softsign", "Tanhshrink",
    "Softshrink", "Hardshrink", "Threshold", "GLU", "L1Loss", "SmoothL1Loss",
    "HuberLoss", "BCELoss", "BCEWithLogitsLoss", "NLLLoss", "KLDivLoss",
]
