"""pyad: define-by-run automatic differentiation for NumPy and CuPy arrays.

The API follows ``torch.autograd``: ``Variable`` (also ``Tensor``), ``backward``,
``grad``, custom ``Function`` s, grad-mode switches and gradcheck. See docs/.
"""
import numpy as _numpy

from pyad import _engine
from pyad._engine import (
    Variable, Tensor, device, backward, grad, from_dlpack, to_dlpack,
    get_default_dtype, set_default_dtype, get_array_module,
    # elementwise
    add, sub, mul, div, pow, neg, exp, log, sqrt, tanh, sigmoid, relu,
    # reductions
    sum, mean, max, logsumexp, sum_to,
    # linear algebra
    matmul, mm,
    # shape and indexing
    reshape, view, flatten, transpose, permute, t, unsqueeze, squeeze, expand,
    broadcast_to, getitem,
    # nn
    log_softmax,
    # in-place
    add_, sub_, mul_, div_, zero_, fill_, copy_, exp_, log_, sqrt_, tanh_, sigmoid_, relu_,
    neg_, pow_, uniform_, normal_, setitem,
)
from pyad._factories import (
    tensor, as_tensor, zeros, ones, empty, full, arange, linspace, eye, rand, randn,
    randint, zeros_like, ones_like, empty_like, full_like, rand_like, randn_like, randint_like,
    manual_seed, initial_seed,
)
from pyad.autograd.grad_mode import no_grad, enable_grad, set_grad_enabled, is_grad_enabled
from pyad import autograd, nn

float16 = _numpy.dtype(_numpy.float16)
float32 = _numpy.dtype(_numpy.float32)
float64 = _numpy.dtype(_numpy.float64)
int32 = _numpy.dtype(_numpy.int32)
int64 = _numpy.dtype(_numpy.int64)
bool = _numpy.dtype(_numpy.bool_)
half, float, double = float16, float32, float64
long, int = int64, int32

divide = true_divide = div
multiply = mul
subtract = sub
negative = neg

from pyad._version import __version__

# Every public name, for `from pyad import *` and for type checkers (mypy --strict reads
# only names listed here as re-exported). tests/test_typing.py checks it is complete:
# a new op imported above must be added here too.
__all__ = [
    "add", "add_", "arange", "as_tensor", "autograd", "backward", "bool",
    "broadcast_to", "copy_", "device", "div", "div_", "divide", "double", "empty",
    "empty_like", "enable_grad", "exp", "exp_", "expand", "eye", "fill_", "flatten",
    "float", "float16", "float32", "float64", "from_dlpack", "full", "full_like",
    "get_array_module", "get_default_dtype", "getitem", "grad", "half", "initial_seed",
    "int", "int32", "int64", "is_grad_enabled", "linspace", "log", "log_",
    "log_softmax", "logsumexp", "long", "manual_seed", "matmul", "max", "mean", "mm",
    "mul", "mul_", "multiply", "neg", "neg_", "negative", "nn", "no_grad", "normal_",
    "ones", "ones_like", "permute", "pow", "pow_", "rand", "rand_like", "randint",
    "randint_like", "randn", "randn_like", "relu", "relu_", "reshape",
    "set_default_dtype", "set_grad_enabled", "setitem", "sigmoid", "sigmoid_", "sqrt",
    "sqrt_", "squeeze", "sub", "sub_", "subtract", "sum", "sum_to", "t", "tanh",
    "tanh_", "Tensor", "tensor", "to_dlpack", "transpose", "true_divide", "uniform_",
    "unsqueeze", "Variable", "view", "zero_", "zeros", "zeros_like"
]
