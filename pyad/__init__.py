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
    abs, absolute, rsub, reciprocal, sign, square, rsqrt, expm1, log1p, log2, log10, sin, cos, tan, asin,
    acos, atan, sinh, cosh, erf, maximum, minimum, where, clamp, clip, clamp_min, clamp_max,
    atan2, hypot, lerp, floor, ceil, round, trunc, frac, floor_divide, remainder, fmod,
    lt, le, eq, ne, gt, ge, logical_not, logical_and, logical_or, logical_xor, bitwise_not,
    bitwise_and, bitwise_or, bitwise_xor, isnan, isinf, isfinite, isclose, allclose, equal,
    isin, signbit,
    # reductions
    sum, mean, max, min, amax, amin, argmax, argmin, prod, all, any, count_nonzero,
    var, std, var_mean, std_mean, norm, cumsum, cumprod, sort, argsort, topk, kthvalue,
    median, logsumexp, sum_to, cummax, cummin, aminmax, nansum, nanmean, nanmedian,
    searchsorted, bucketize,
    # linear algebra
    matmul, mm, bmm, mv, dot, outer, einsum, tensordot, trace, diag, diagonal, diag_embed,
    tril, triu, cross, matrix_power,
    # shape and indexing
    reshape, view, flatten, transpose, permute, t, unsqueeze, squeeze, expand,
    broadcast_to, getitem, cat, concat, stack, hstack, vstack, split, split_with_sizes, chunk,
    unsafe_split, unsafe_split_with_sizes, unsafe_chunk,
    unbind, narrow, select, flip, roll, repeat, tile, movedim, unflatten, gather,
    take_along_dim, scatter, scatter_add, index_select, index_add, index_copy, index_fill,
    masked_fill, masked_select, masked_scatter, nonzero, unique, pad, ravel, flipud, fliplr,
    rot90, atleast_1d, atleast_2d, atleast_3d, dstack, column_stack, tensor_split, hsplit,
    vsplit, take, broadcast_tensors, broadcast_shapes, meshgrid, kron,
    # nn
    log_softmax, softmax, gelu, silu, elu, leaky_relu, softplus, hardtanh, logsigmoid,
    # convolution and pooling
    conv1d, conv2d, conv_transpose2d, max_pool2d, avg_pool2d, adaptive_avg_pool2d,
    # in-place
    add_, sub_, mul_, div_, zero_, fill_, copy_, exp_, log_, sqrt_, tanh_, sigmoid_, relu_,
    neg_, pow_, uniform_, normal_, setitem, abs_, reciprocal_, sign_, square_, rsqrt_, expm1_,
    log1p_, log2_, log10_, sin_, cos_, tan_, asin_, acos_, atan_, sinh_, cosh_, erf_, floor_,
    ceil_, round_, trunc_, frac_, clamp_, masked_fill_, index_fill_, index_add_, index_copy_,
    scatter_, scatter_add_,
    # stochastic (with reinforce)
    bernoulli, multinomial, normal,
)
from pyad._factories import (
    tensor, as_tensor, zeros, ones, empty, full, arange, linspace, eye, rand, randn,
    randint, zeros_like, ones_like, empty_like, full_like, rand_like, randn_like, randint_like,
    manual_seed, initial_seed, from_numpy, is_tensor,
)
from pyad.autograd.grad_mode import (
    no_grad, enable_grad, set_grad_enabled, is_grad_enabled, inference_mode,
    is_inference_mode_enabled,
)
from pyad.autograd.anomaly_mode import (
    detect_anomaly, set_detect_anomaly, is_anomaly_enabled, is_anomaly_check_nan_enabled,
)
from pyad import autograd, nn, linalg, optim
from pyad.serialization import save, load

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
less, less_equal, greater, greater_equal, not_equal = lt, le, gt, ge, ne

from pyad._version import __version__

# Every public name, for `from pyad import *` and for type checkers (mypy --strict reads
# only names listed here as re-exported). tests/test_typing.py checks it is complete:
# a new op imported above must be added here too.
__all__ = [
    "elu", "gelu", "hardtanh", "leaky_relu", "logsigmoid", "silu", "softmax", "softplus",
    "Tensor", "Variable", "abs", "abs_", "acos", "acos_", "add", "add_", "all", "allclose",
    "amax", "amin", "any", "arange", "argmax", "argmin", "argsort", "as_tensor", "asin",
    "asin_", "atan", "atan2", "atan_", "autograd", "backward", "bitwise_and",
    "bitwise_not", "bitwise_or", "bitwise_xor", "bmm", "bool", "broadcast_to", "cat",
    "ceil", "ceil_", "chunk", "clamp", "clamp_", "clamp_max", "clamp_min", "clip",
    "concat", "copy_", "cos", "cos_", "cosh", "cosh_", "count_nonzero", "cumprod",
    "cumsum", "detect_anomaly", "device", "diag", "diag_embed", "diagonal", "div", "div_",
    "divide", "dot", "double", "einsum", "empty", "empty_like", "enable_grad", "eq",
    "equal", "erf", "erf_", "exp", "exp_", "expand", "expm1", "expm1_", "eye", "fill_",
    "flatten", "flip", "float", "float16", "float32", "float64", "floor", "floor_",
    "floor_divide", "fmod", "frac", "frac_", "from_dlpack", "from_numpy", "full",
    "full_like", "gather", "ge", "get_array_module", "get_default_dtype", "getitem",
    "grad", "greater", "greater_equal", "gt", "half", "hstack", "hypot", "index_add",
    "index_add_", "index_copy", "index_copy_", "index_fill", "index_fill_", "index_select",
    "inference_mode",
    "initial_seed", "int", "int32", "int64", "is_anomaly_check_nan_enabled",
    "is_anomaly_enabled", "is_grad_enabled", "is_inference_mode_enabled", "is_tensor",
    "isclose", "isfinite", "isinf",
    "isnan", "kthvalue", "le", "lerp", "less", "less_equal", "linalg", "linspace", "load",
    "log", "log10", "log10_", "log1p", "log1p_", "log2", "log2_", "log_", "log_softmax",
    "logical_and", "logical_not", "logical_or", "logical_xor", "logsumexp", "long", "lt",
    "manual_seed", "masked_fill", "masked_fill_", "masked_scatter", "masked_select",
    "matmul", "max", "maximum", "mean", "median", "min", "minimum", "mm", "movedim", "mul",
    "mul_", "multiply", "mv", "narrow", "ne", "neg", "neg_", "negative", "nn", "no_grad",
    "nonzero", "norm", "normal_", "not_equal", "ones", "optim", "ones_like", "outer",
    "pad", "permute", "pow", "pow_", "prod", "rand", "rand_like", "randint",
    "randint_like", "randn", "randn_like", "reciprocal", "reciprocal_", "relu", "relu_",
    "remainder", "repeat", "reshape", "roll", "round", "round_", "rsqrt", "rsqrt_", "save",
    "scatter", "scatter_", "scatter_add", "scatter_add_", "select", "set_default_dtype",
    "set_detect_anomaly", "set_grad_enabled", "setitem", "sigmoid", "sigmoid_", "sign",
    "sign_", "sin", "sin_", "sinh", "sinh_", "sort", "split", "split_with_sizes", "sqrt",
    "sqrt_", "square", "square_", "squeeze", "stack", "std", "std_mean", "sub", "sub_",
    "subtract", "sum", "sum_to", "t", "take_along_dim", "tan", "tan_", "tanh", "tanh_",
    "tensor", "tensordot", "tile", "to_dlpack", "topk", "trace", "transpose", "tril",
    "triu", "true_divide", "trunc", "trunc_", "unbind", "unflatten", "uniform_", "unique",
    "unsqueeze", "var", "var_mean", "view", "vstack", "where", "zero_", "zeros",
    "zeros_like",
    # stochastic ops (issue 8)
    "bernoulli", "multinomial", "normal",
    "conv1d", "conv2d", "conv_transpose2d", "max_pool2d", "avg_pool2d", "adaptive_avg_pool2d",
    # torch conveniences outside SPEC 3
    "absolute", "rsub", "cummax", "cummin", "aminmax", "nansum", "nanmean", "cross",
    "matrix_power", "ravel", "flipud", "fliplr", "rot90", "atleast_1d", "atleast_2d",
    "atleast_3d", "dstack", "column_stack", "tensor_split", "hsplit", "vsplit", "take",
    "broadcast_tensors", "broadcast_shapes", "meshgrid", "kron",
    # torch's autograd tests (issue 14 section 4)
    "isin", "signbit", "nanmedian", "searchsorted", "bucketize", "unsafe_split",
    "unsafe_split_with_sizes", "unsafe_chunk",
]
