"""pyad: define-by-run automatic differentiation for NumPy and CuPy arrays.

The API follows ``torch.autograd``: ``Variable`` (also ``Tensor``), ``backward``,
``grad``, custom ``Function`` s, grad-mode switches and gradcheck. See docs/.
"""
import numpy as _numpy

from pyad import _engine
from pyad._engine import (
    Variable, Tensor, device, backward, grad, from_dlpack, to_dlpack,
    get_default_dtype, set_default_dtype, get_array_module, broadcast_shapes,
    memory_format, contiguous_format, channels_last, channels_last_3d, preserve_format,
)
# Every public name, for `from pyad import *` and for type checkers (mypy --strict reads
# only names listed here as re-exported): the names that are not ops here, the ops'
# names in the generated block below. tests/test_typing.py checks the list is complete.
__all__ = [
    "Tensor", "Variable", "device", "backward", "grad", "from_dlpack", "to_dlpack",
    "get_default_dtype", "set_default_dtype", "get_array_module", "broadcast_shapes",
    # memory formats (pyad/_memory_format.pxi)
    "memory_format", "contiguous_format", "channels_last", "channels_last_3d",
    "preserve_format",
    # factories and random state
    "tensor", "as_tensor", "zeros", "ones", "empty", "full", "arange", "linspace", "eye",
    "rand", "randn", "randint", "zeros_like", "ones_like", "empty_like", "full_like",
    "rand_like", "randn_like", "randint_like", "manual_seed", "initial_seed", "get_rng_state", "set_rng_state",
    "from_numpy",
    "is_tensor", "Generator", "default_generator", "seed", "randperm",
    "set_default_device", "get_default_device",
    # grad mode and anomaly detection
    "no_grad", "enable_grad", "set_grad_enabled", "is_grad_enabled", "inference_mode",
    "is_inference_mode_enabled", "detect_anomaly", "set_detect_anomaly",
    "is_anomaly_enabled", "is_anomaly_check_nan_enabled",
    # submodules, serialization
    "autograd", "nn", "linalg", "special", "optim", "interop", "backends", "cuda", "utils", "distributions",
    "amp", "random", "testing", "func", "fft", "accelerator", "xpu", "jit", "profiler",
    "functional", "mps", "compiler", "multiprocessing", "hub", "types",
    # autocast (pyad/amp/autocast_mode.py), as torch.autocast and its state functions
    "autocast", "is_autocast_enabled", "set_autocast_enabled", "get_autocast_dtype",
    "set_autocast_dtype", "is_autocast_cache_enabled", "set_autocast_cache_enabled",
    "clear_autocast_cache", "autocast_increment_nesting", "autocast_decrement_nesting",
    "save",
    "load",
    # torch's small utilities (pyad/_compat.py)
    "finfo", "iinfo", "Size", "is_floating_point", "is_complex", "is_nonzero", "numel",
    "is_same_size", "set_printoptions", "clone", "inverse", "det", "slogdet", "logdet",
    "compile", "use_deterministic_algorithms", "are_deterministic_algorithms_enabled",
    "triu_indices", "tril_indices", "argwhere", "isposinf", "isneginf", "isreal", "deg2rad",
    "rad2deg", "is_inference", "set_float32_matmul_precision", "get_float32_matmul_precision",
    "layout", "strided", "sparse_coo", "dsplit", "narrow_copy", "conj_physical",
    "conj_physical_", "gcd_", "lcm_", "as_strided", "hardshrink", "prelu",
    # asarray, frombuffer, the dtype algebra and the rest of torch's names (pyad/_porting.py)
    "asarray", "frombuffer", "promote_types", "result_type", "can_cast",
    "set_default_tensor_type", "is_storage", "vmap",
    # math constants, as torch.pi, torch.e, torch.inf, torch.nan
    "pi", "e", "inf", "nan",
    # torch's legacy typed-tensor constructors (pyad/_tensor_types.py)
    "FloatTensor", "DoubleTensor", "HalfTensor", "LongTensor", "IntTensor", "ShortTensor",
    "CharTensor", "ByteTensor", "BoolTensor",
    # thread counts (pyad/_threads.py)
    "set_num_threads", "get_num_threads", "set_num_interop_threads", "get_num_interop_threads",
    # statistics and small constructions (pyad/_statistics.py)
    "quantile", "nanquantile", "cov", "corrcoef", "histc", "bincount", "renorm",
    "mode", "trapezoid", "trapz", "cumulative_trapezoid", "vander", "diagflat", "block_diag",
    "cartesian_prod", "combinations", "inner", "ger", "addr", "logspace", "hann_window",
    "hamming_window", "blackman_window", "bartlett_window", "kaiser_window",
    # the reducing scatters (pyad/_scatter_reduce.py)
    "scatter_reduce", "index_reduce",
    # the short-time Fourier transform (pyad/_spectral.py)
    "stft", "istft",
    # torch's remaining top-level math names (pyad/_toplevel_math.py)
    "complex", "polar", "is_conj", "is_neg", "resolve_conj", "resolve_neg", "is_signed",
    "matrix_exp", "chain_matmul", "spmm", "frobenius_norm", "nuclear_norm", "matrix_rank", "lu",
    "lu_unpack", "lu_solve", "svd_lowrank", "pca_lowrank", "range", "scalar_tensor",
    "fill", "empty_strided", "empty_permuted", "histogram", "histogramdd", "gradient",
    "poisson", "binomial", "igamma", "igammac", "get_device", "typename",
    "is_warn_always_enabled", "set_warn_always", "set_flush_denormal",
    "is_deterministic_algorithms_warn_only_enabled", "get_deterministic_debug_mode",
    "set_deterministic_debug_mode", "alias_copy", "as_strided_copy", "detach_copy",
    "diagonal_copy", "expand_copy", "permute_copy", "select_copy", "slice_copy",
    "split_copy", "split_with_sizes_copy", "squeeze_copy", "t_copy", "transpose_copy",
    "unbind_copy", "unfold_copy", "unsqueeze_copy", "view_copy", "view_as_real_copy",
    "view_as_complex_copy", "detach", "detach_",
    "nonzero_static",
    # torch's top-level neural-network functions (pyad/_toplevel_nn.py)
    "dropout", "dropout_", "alpha_dropout", "alpha_dropout_", "feature_dropout",
    "feature_dropout_", "feature_alpha_dropout", "feature_alpha_dropout_",
    "batch_norm", "instance_norm", "layer_norm", "group_norm", "rms_norm", "embedding",
    "conv3d", "conv_transpose1d", "conv_transpose3d", "convolution",
    "pixel_shuffle", "pixel_unshuffle", "channel_shuffle", "native_channel_shuffle",
    "cosine_similarity", "pairwise_distance", "pdist",
    "celu", "celu_", "selu", "selu_", "rrelu", "rrelu_", "threshold", "threshold_",
    "kl_div", "binary_cross_entropy_with_logits", "hinge_embedding_loss",
    "margin_ranking_loss", "cosine_embedding_loss", "triplet_margin_loss",
    "poisson_nll_loss", "ctc_loss",
    "max_pool1d", "max_pool3d", "max_pool1d_with_indices", "avg_pool1d",
    "adaptive_avg_pool1d", "adaptive_max_pool1d", "constant_pad_nd", "bilinear",
    # linear algebra spellings and unravel_index (pyad/_compat.py)
    "pinverse", "cholesky", "cholesky_solve", "cholesky_inverse", "qr", "svd",
    "triangular_solve", "unravel_index",
    # the opt-in host buffer cache
    "memory_pool", "empty_cache", "memory_stats", "set_cache_limit",
    # dtypes and torch's aliases
    "float16", "float32", "float64", "int32", "int64", "bool", "half", "float", "double",
    "long", "int", "complex64", "complex128", "cfloat", "cdouble", "int8", "int16", "uint8",
    "uint16", "uint32", "uint64", "dtype", "bfloat16", "short", "divide", "multiply", "subtract", "negative", "less",
    "less_equal", "greater", "greater_equal", "not_equal",
]
# --- op names: generated by tools/gen_stubs.py from pyad._engine.OP_FAMILIES; do not edit ---
from pyad._engine import (
    add, sub, mul, div, positive, pow, neg, exp, log, sqrt, tanh, sigmoid, relu, abs,
    absolute, rsub, reciprocal, sign, square, rsqrt, expm1, log1p, log2, log10, sin,
    cos, tan, asin, acos, atan, sinh, cosh, erf, maximum, minimum, where, clamp, clip,
    clamp_min, clamp_max, atan2, hypot, logaddexp, logaddexp2, addcmul, addcdiv,
    true_divide, float_power, logit, nan_to_num, lerp, floor, ceil, round, trunc, frac,
    floor_divide, remainder, fmod, lt, le, eq, ne, gt, ge, logical_not, logical_and,
    logical_or, logical_xor, bitwise_not, bitwise_and, bitwise_or, bitwise_xor,
    bitwise_left_shift, bitwise_right_shift, isnan, isinf, isfinite, isclose, allclose,
    equal, isin, signbit, sum, mean, max, min, amax, amin, argmax, argmin, prod, all,
    any, count_nonzero, var, std, var_mean, std_mean, norm, cumsum, cumprod, sort,
    argsort, topk, kthvalue, median, logsumexp, cummax, cummin, aminmax, nansum,
    nanmean, nanmedian, searchsorted, bucketize, logcumsumexp, msort, matmul, mm, bmm,
    mv, dot, outer, einsum, tensordot, trace, diag, diagonal, diag_embed, tril, triu,
    cross, matrix_power, addmm, addmv, baddbmm, addbmm, cdist, dist, reshape, view,
    flatten, transpose, permute, t, unsqueeze, squeeze, expand, broadcast_to, sum_to,
    getitem, cat, concat, concatenate, stack, hstack, vstack, row_stack, split,
    split_with_sizes, chunk, unbind, unsafe_split, unsafe_split_with_sizes,
    unsafe_chunk, narrow, select, flip, roll, repeat, tile, movedim, unflatten, gather,
    take_along_dim, scatter, scatter_add, index_select, index_add, index_copy,
    index_fill, masked_fill, masked_select, masked_scatter, nonzero, unique,
    unique_consecutive, pad, ravel, flipud, fliplr, rot90, atleast_1d, atleast_2d,
    atleast_3d, dstack, column_stack, tensor_split, hsplit, vsplit, take, put,
    broadcast_tensors, meshgrid, kron, repeat_interleave, diff, moveaxis, swapdims,
    swapaxes, select_scatter, slice_scatter, diagonal_scatter, index_put, log_softmax,
    softmax, gelu, silu, elu, leaky_relu, softplus, hardtanh, logsigmoid, conv1d,
    conv2d, conv_transpose2d, max_pool2d, avg_pool2d, adaptive_avg_pool2d, unfold,
    fold, uniform_, normal_, bernoulli, multinomial, normal, random_, exponential_,
    cauchy_, log_normal_, geometric_, bernoulli_, add_, sub_, mul_, div_, zero_, fill_,
    copy_, clamp_, setitem, masked_fill_, index_fill_, index_add_, index_copy_,
    scatter_, scatter_add_, put_, t_, transpose_, swapdims_, swapaxes_, squeeze_,
    unsqueeze_, fill_diagonal_, exp_, log_, sqrt_, tanh_, sigmoid_, relu_, neg_, pow_,
    abs_, reciprocal_, sign_, square_, rsqrt_, expm1_, log1p_, log2_, log10_, sin_,
    cos_, tan_, asin_, acos_, atan_, sinh_, cosh_, erf_, floor_, ceil_, round_, trunc_,
    frac_, asinh_, acosh_, atanh_, arcsin_, arccos_, arctan_, arctan2_, arcsinh_,
    arccosh_, arctanh_, fix_, exp2_, erfc_, erfinv_, lgamma_, digamma_, i0_, xlogy_,
    sinc_, copysign_, ldexp_, nextafter_, addcmul_, addcdiv_, addmm_, addmv_, addbmm_,
    baddbmm_, clamp_min_, clamp_max_, clip_, cumsum_, cumprod_, lerp_, hypot_, atan2_,
    fmod_, remainder_, floor_divide_, float_power_, true_divide_, logit_, nan_to_num_,
    sgn_, tril_, triu_, masked_scatter_, eq_, ne_, lt_, le_, gt_, ge_, greater_,
    greater_equal_, less_, less_equal_, not_equal_, logical_and_, logical_or_,
    logical_xor_, logical_not_, bitwise_and_, bitwise_or_, bitwise_xor_, bitwise_not_,
    bitwise_left_shift_, bitwise_right_shift_, absolute_, negative_, multiply_,
    divide_, subtract_, deg2rad_, rad2deg_, index_put_, conj, real, imag, angle, sgn,
    vdot, view_as_real, view_as_complex, adjoint, asinh, acosh, atanh, arcsin, arccos,
    arctan, arctan2, arcsinh, arccosh, arctanh, fix, exp2, erfc, erfinv, lgamma,
    digamma, polygamma, mvlgamma, i0, xlogy, sinc, fmax, fmin, copysign, ldexp, frexp,
    nextafter, heaviside, gcd, lcm,
)
__all__ += [
    "add", "sub", "mul", "div", "positive", "pow", "neg", "exp", "log", "sqrt", "tanh",
    "sigmoid", "relu", "abs", "absolute", "rsub", "reciprocal", "sign", "square",
    "rsqrt", "expm1", "log1p", "log2", "log10", "sin", "cos", "tan", "asin", "acos",
    "atan", "sinh", "cosh", "erf", "maximum", "minimum", "where", "clamp", "clip",
    "clamp_min", "clamp_max", "atan2", "hypot", "logaddexp", "logaddexp2", "addcmul",
    "addcdiv", "true_divide", "float_power", "logit", "nan_to_num", "lerp", "floor",
    "ceil", "round", "trunc", "frac", "floor_divide", "remainder", "fmod", "lt", "le",
    "eq", "ne", "gt", "ge", "logical_not", "logical_and", "logical_or", "logical_xor",
    "bitwise_not", "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_left_shift",
    "bitwise_right_shift", "isnan", "isinf", "isfinite", "isclose", "allclose",
    "equal", "isin", "signbit", "sum", "mean", "max", "min", "amax", "amin", "argmax",
    "argmin", "prod", "all", "any", "count_nonzero", "var", "std", "var_mean",
    "std_mean", "norm", "cumsum", "cumprod", "sort", "argsort", "topk", "kthvalue",
    "median", "logsumexp", "cummax", "cummin", "aminmax", "nansum", "nanmean",
    "nanmedian", "searchsorted", "bucketize", "logcumsumexp", "msort", "matmul", "mm",
    "bmm", "mv", "dot", "outer", "einsum", "tensordot", "trace", "diag", "diagonal",
    "diag_embed", "tril", "triu", "cross", "matrix_power", "addmm", "addmv", "baddbmm",
    "addbmm", "cdist", "dist", "reshape", "view", "flatten", "transpose", "permute",
    "t", "unsqueeze", "squeeze", "expand", "broadcast_to", "sum_to", "getitem", "cat",
    "concat", "concatenate", "stack", "hstack", "vstack", "row_stack", "split",
    "split_with_sizes", "chunk", "unbind", "unsafe_split", "unsafe_split_with_sizes",
    "unsafe_chunk", "narrow", "select", "flip", "roll", "repeat", "tile", "movedim",
    "unflatten", "gather", "take_along_dim", "scatter", "scatter_add", "index_select",
    "index_add", "index_copy", "index_fill", "masked_fill", "masked_select",
    "masked_scatter", "nonzero", "unique", "unique_consecutive", "pad", "ravel",
    "flipud", "fliplr", "rot90", "atleast_1d", "atleast_2d", "atleast_3d", "dstack",
    "column_stack", "tensor_split", "hsplit", "vsplit", "take", "put",
    "broadcast_tensors", "meshgrid", "kron", "repeat_interleave", "diff", "moveaxis",
    "swapdims", "swapaxes", "select_scatter", "slice_scatter", "diagonal_scatter",
    "index_put", "log_softmax", "softmax", "gelu", "silu", "elu", "leaky_relu",
    "softplus", "hardtanh", "logsigmoid", "conv1d", "conv2d", "conv_transpose2d",
    "max_pool2d", "avg_pool2d", "adaptive_avg_pool2d", "unfold", "fold", "uniform_",
    "normal_", "bernoulli", "multinomial", "normal", "random_", "exponential_",
    "cauchy_", "log_normal_", "geometric_", "bernoulli_", "add_", "sub_", "mul_",
    "div_", "zero_", "fill_", "copy_", "clamp_", "setitem", "masked_fill_",
    "index_fill_", "index_add_", "index_copy_", "scatter_", "scatter_add_", "put_",
    "t_", "transpose_", "swapdims_", "swapaxes_", "squeeze_", "unsqueeze_",
    "fill_diagonal_", "exp_", "log_", "sqrt_", "tanh_", "sigmoid_", "relu_", "neg_",
    "pow_", "abs_", "reciprocal_", "sign_", "square_", "rsqrt_", "expm1_", "log1p_",
    "log2_", "log10_", "sin_", "cos_", "tan_", "asin_", "acos_", "atan_", "sinh_",
    "cosh_", "erf_", "floor_", "ceil_", "round_", "trunc_", "frac_", "asinh_",
    "acosh_", "atanh_", "arcsin_", "arccos_", "arctan_", "arctan2_", "arcsinh_",
    "arccosh_", "arctanh_", "fix_", "exp2_", "erfc_", "erfinv_", "lgamma_", "digamma_",
    "i0_", "xlogy_", "sinc_", "copysign_", "ldexp_", "nextafter_", "addcmul_",
    "addcdiv_", "addmm_", "addmv_", "addbmm_", "baddbmm_", "clamp_min_", "clamp_max_",
    "clip_", "cumsum_", "cumprod_", "lerp_", "hypot_", "atan2_", "fmod_", "remainder_",
    "floor_divide_", "float_power_", "true_divide_", "logit_", "nan_to_num_", "sgn_",
    "tril_", "triu_", "masked_scatter_", "eq_", "ne_", "lt_", "le_", "gt_", "ge_",
    "greater_", "greater_equal_", "less_", "less_equal_", "not_equal_", "logical_and_",
    "logical_or_", "logical_xor_", "logical_not_", "bitwise_and_", "bitwise_or_",
    "bitwise_xor_", "bitwise_not_", "bitwise_left_shift_", "bitwise_right_shift_",
    "absolute_", "negative_", "multiply_", "divide_", "subtract_", "deg2rad_",
    "rad2deg_", "index_put_", "conj", "real", "imag", "angle", "sgn", "vdot",
    "view_as_real", "view_as_complex", "adjoint", "asinh", "acosh", "atanh", "arcsin",
    "arccos", "arctan", "arctan2", "arcsinh", "arccosh", "arctanh", "fix", "exp2",
    "erfc", "erfinv", "lgamma", "digamma", "polygamma", "mvlgamma", "i0", "xlogy",
    "sinc", "fmax", "fmin", "copysign", "ldexp", "frexp", "nextafter", "heaviside",
    "gcd", "lcm",
]
# --- end of generated op names ---
from pyad._factories import (
    tensor, as_tensor, zeros, ones, empty, full, arange, linspace, eye, rand, randn,
    randint, zeros_like, ones_like, empty_like, full_like, rand_like, randn_like, randint_like,
    manual_seed, initial_seed, get_rng_state, set_rng_state, from_numpy, is_tensor,
    Generator, default_generator, seed, randperm, set_default_device, get_default_device,
)
from pyad.autograd.grad_mode import (
    no_grad, enable_grad, set_grad_enabled, is_grad_enabled, inference_mode,
    is_inference_mode_enabled,
)
from pyad.autograd.anomaly_mode import (
    detect_anomaly, set_detect_anomaly, is_anomaly_enabled, is_anomaly_check_nan_enabled,
)
from pyad import autograd, nn, linalg, special, optim, interop
from pyad import backends, cuda, utils, distributions, amp, random, testing, func, fft
from pyad import accelerator, xpu, jit, profiler, mps, compiler, multiprocessing, hub
from pyad.amp.autocast_mode import (
    autocast, is_autocast_enabled, set_autocast_enabled, get_autocast_dtype,
    set_autocast_dtype, is_autocast_cache_enabled, set_autocast_cache_enabled,
    clear_autocast_cache, autocast_increment_nesting, autocast_decrement_nesting,
)
from pyad.serialization import save, load
from pyad.memory import memory_pool, empty_cache, memory_stats, set_cache_limit
from pyad._compat import (
    finfo, iinfo, Size, is_floating_point, is_complex, is_nonzero, numel, is_same_size,
    set_printoptions, clone, inverse, det, slogdet, logdet, compile,
    use_deterministic_algorithms, are_deterministic_algorithms_enabled, triu_indices,
    tril_indices, argwhere, isposinf, isneginf, isreal, deg2rad, rad2deg, is_inference,
    pinverse, cholesky, cholesky_solve, cholesky_inverse, qr, svd, triangular_solve,
    unravel_index, set_float32_matmul_precision, get_float32_matmul_precision,
    layout, strided, sparse_coo, dsplit, narrow_copy, conj_physical, conj_physical_, gcd_,
    lcm_, as_strided, hardshrink, prelu,
)
from pyad._porting import (
    asarray, frombuffer, promote_types, result_type, can_cast, set_default_tensor_type,
    is_storage, vmap,
)
from math import pi, e, inf, nan
from pyad._tensor_types import (
    FloatTensor, DoubleTensor, HalfTensor, LongTensor, IntTensor, ShortTensor, CharTensor,
    ByteTensor, BoolTensor,
)
from pyad._threads import (
    set_num_threads, get_num_threads, set_num_interop_threads, get_num_interop_threads,
)
from pyad._statistics import (
    quantile, nanquantile, cov, corrcoef, histc, bincount, renorm, mode, trapezoid, trapz,
    cumulative_trapezoid, vander, diagflat, block_diag, cartesian_prod, combinations, inner,
    ger, addr, logspace, hann_window, hamming_window, blackman_window, bartlett_window,
    kaiser_window,
)
from pyad._scatter_reduce import scatter_reduce, index_reduce
from pyad._spectral import stft, istft
from pyad._toplevel_math import (
    complex, polar, is_conj, is_neg, resolve_conj, resolve_neg, is_signed, matrix_exp,
    chain_matmul, spmm, frobenius_norm, nuclear_norm, matrix_rank, lu, lu_unpack, lu_solve,
    svd_lowrank, pca_lowrank, range, scalar_tensor, fill, empty_strided, empty_permuted,
    histogram, histogramdd, gradient, poisson, binomial, igamma, igammac, get_device,
    typename, is_warn_always_enabled, set_warn_always, set_flush_denormal,
    is_deterministic_algorithms_warn_only_enabled, get_deterministic_debug_mode,
    set_deterministic_debug_mode, alias_copy, as_strided_copy, detach_copy,
    diagonal_copy, expand_copy, permute_copy, select_copy, slice_copy, split_copy,
    split_with_sizes_copy, squeeze_copy, t_copy, transpose_copy, unbind_copy,
    unfold_copy, unsqueeze_copy, view_copy, view_as_real_copy, view_as_complex_copy,
    detach, detach_, nonzero_static,
)
from pyad._toplevel_nn import (
    dropout, dropout_, alpha_dropout, alpha_dropout_, feature_dropout, feature_dropout_,
    feature_alpha_dropout, feature_alpha_dropout_, batch_norm, instance_norm, layer_norm,
    group_norm, rms_norm, embedding, conv3d, conv_transpose1d, conv_transpose3d, convolution,
    pixel_shuffle, pixel_unshuffle, channel_shuffle, native_channel_shuffle,
    cosine_similarity, pairwise_distance, pdist, celu, celu_, selu, selu_, rrelu, rrelu_,
    threshold, threshold_, kl_div, binary_cross_entropy_with_logits, hinge_embedding_loss,
    margin_ranking_loss, cosine_embedding_loss, triplet_margin_loss, poisson_nll_loss,
    ctc_loss, max_pool1d, max_pool3d, max_pool1d_with_indices, avg_pool1d,
    adaptive_avg_pool1d, adaptive_max_pool1d, constant_pad_nd, bilinear,
)

float16 = _numpy.dtype(_numpy.float16)
float32 = _numpy.dtype(_numpy.float32)
float64 = _numpy.dtype(_numpy.float64)
int32 = _numpy.dtype(_numpy.int32)
int64 = _numpy.dtype(_numpy.int64)
bool = _numpy.dtype(_numpy.bool_)
complex64 = _numpy.dtype(_numpy.complex64)
complex128 = _numpy.dtype(_numpy.complex128)
int8 = _numpy.dtype(_numpy.int8)
int16 = _numpy.dtype(_numpy.int16)
uint8 = _numpy.dtype(_numpy.uint8)
uint16 = _numpy.dtype(_numpy.uint16)
uint32 = _numpy.dtype(_numpy.uint32)
uint64 = _numpy.dtype(_numpy.uint64)
dtype = _numpy.dtype        # torch.dtype: the type of every dtype above (annotations, isinstance)
try:                        # bfloat16 where the optional ml_dtypes extra is installed
    import ml_dtypes as _ml_dtypes
    bfloat16 = _numpy.dtype(_ml_dtypes.bfloat16)
except ImportError:
    __all__.remove("bfloat16")
half, float, double = float16, float32, float64
long, int, short = int64, int32, int16
cfloat, cdouble = complex64, complex128

# torch's aliases (read from _engine, so the package imports even before the generated
# block above is written)
divide = _engine.div
multiply = _engine.mul
subtract = _engine.sub
negative = _engine.neg
less, less_equal, greater, greater_equal, not_equal = (
    _engine.lt, _engine.le, _engine.gt, _engine.ge, _engine.ne)

from pyad._version import __version__

# torch.functional's names: imported last, after every top-level function it re-exports
from pyad import functional  # noqa: E402
from pyad import _C  # noqa: E402  (torch._C's private switches, for ported code)
from pyad import types  # noqa: E402  (torch.types' aliases)
