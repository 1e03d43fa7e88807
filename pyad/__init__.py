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
    abs, reciprocal, sign, square, rsqrt, expm1, log1p, log2, log10, sin, cos, tan, asin,
    acos, atan, sinh, cosh, erf, maximum, minimum, where, clamp, clip, clamp_min, clamp_max,
    atan2, hypot, lerp, floor, ceil, round, trunc, frac, floor_divide, remainder, fmod,
    lt, le, eq, ne, gt, ge, logical_not, logical_and, logical_or, logical_xor, bitwise_not,
    bitwise_and, bitwise_or, bitwise_xor, isnan, isinf, isfinite, isclose, allclose, equal,
    # reductions
    sum, mean, max, min, amax, amin, argmax, argmin, prod, all, any, count_nonzero,
    var, std, var_mean, std_mean, norm, cumsum, cumprod, sort, argsort, topk, kthvalue,
    median, logsumexp, sum_to,
    # linear algebra
    matmul, mm, bmm, mv, dot, outer, einsum, tensordot, trace, diag, diagonal, diag_embed,
    tril, triu,
    # shape and indexing
    reshape, view, flatten, transpose, permute, t, unsqueeze, squeeze, expand,
    broadcast_to, getitem, cat, concat, stack, hstack, vstack, split, split_with_sizes, chunk,
    unbind, narrow, select, flip, roll, repeat, tile, movedim, unflatten, gather,
    take_along_dim, scatter, scatter_add, index_select, index_add, index_copy, index_fill,
    masked_fill, masked_select, masked_scatter, nonzero, unique, pad,
    # nn
    log_softmax,
    # in-place
    add_, sub_, mul_, div_, zero_, fill_, copy_, exp_, log_, sqrt_, tanh_, sigmoid_, relu_,
    neg_, pow_, uniform_, normal_, setitem, abs_, reciprocal_, sign_, square_, rsqrt_, expm1_,
    log1p_, log2_, log10_, sin_, cos_, tan_, asin_, acos_, atan_, sinh_, cosh_, erf_, floor_,
    ceil_, round_, trunc_, frac_, clamp_, masked_fill_, index_fill_, index_add_, index_copy_,
    scatter_, scatter_add_,
)
from pyad._factories import (
    tensor, as_tensor, zeros, ones, empty, full, arange, linspace, eye, rand, randn,
    randint, zeros_like, ones_like, empty_like, full_like, rand_like, randn_like, randint_like,
    manual_seed, initial_seed, from_numpy, is_tensor,
)
from pyad.autograd.grad_mode import no_grad, enable_grad, set_grad_enabled, is_grad_enabled
from pyad.autograd.anomaly_mode import (
    detect_anomaly, set_detect_anomaly, is_anomaly_enabled, is_anomaly_check_nan_enabled,
)
from pyad import autograd, nn, linalg

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

__version__ = "0.1.0"
