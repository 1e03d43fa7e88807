"""Functional neural-network ops, as ``torch.nn.functional``.

The activations are Cython ops in ``pyad`` itself (``pyad/ops/nn.pxi``) and are
re-exported here; the functions with an ``inplace`` flag wrap them. Losses,
normalisation, embedding and dropout are compositions of differentiable pyad ops, so
every one of them can be differentiated twice and more (``create_graph=True``).

Signatures and keyword names are torch's. The deprecated ``size_average``/``reduce``
arguments of the losses are accepted as torch accepts them (they override
``reduction``, with a ``UserWarning``). Errors name the function:
``"cross_entropy(): target 7 is out of bounds for 5 classes"``.
"""
import functools
import math
import sys as _sys
import warnings

import numpy as _np

from pyad._porting import _is_float
from pyad._out import writes_out as _writes_out
import pyad
from pyad import _engine
from pyad.autograd import profiler as _profiler
from pyad._engine import (
    Variable, relu as _relu, relu_ as _relu_, sigmoid, tanh, gelu, elu as _elu,
    leaky_relu as _leaky_relu, softplus, hardtanh as _hardtanh, logsigmoid,
    silu as _silu, softmax as _softmax, log_softmax as _log_softmax, pad,
    _cross_entropy_indices,
)
from pyad._engine import (conv1d, conv2d, conv_transpose2d, max_pool2d, avg_pool2d,
                           adaptive_avg_pool2d, unfold, fold)

__all__ = [
    # activations
    "relu", "sigmoid", "tanh", "gelu", "silu", "elu", "leaky_relu", "softplus",
    "hardtanh", "logsigmoid", "softmax", "softmin", "log_softmax", "relu6",
    "hardsigmoid", "hardswish", "selu", "celu", "mish", "softsign", "tanhshrink",
    "softshrink", "hardshrink", "threshold", "glu", "prelu",
    # linear
    "linear",
    # convolution and pooling
    "conv1d", "conv2d", "conv_transpose2d", "max_pool2d", "avg_pool2d",
    "adaptive_avg_pool2d", "unfold", "fold",
    # losses
    "cross_entropy", "nll_loss", "mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss",
    "binary_cross_entropy", "binary_cross_entropy_with_logits", "kl_div",
    "margin_ranking_loss", "hinge_embedding_loss", "soft_margin_loss",
    "triplet_margin_loss", "poisson_nll_loss", "gaussian_nll_loss",
    "cosine_embedding_loss", "multi_margin_loss",
    # normalisation
    "layer_norm", "batch_norm", "group_norm", "normalize", "cosine_similarity",
    "pairwise_distance",
    # embedding
    "embedding", "one_hot",
    # dropout
    "dropout",
    # padding
    "pad",
]


def _var(x):
    return x if isinstance(x, Variable) else pyad.as_tensor(x)


def _int_kind(data):
    return _np.dtype(data.dtype).kind in "iu"


# ---------------------------------------------------------------------------------
# Activations
# ---------------------------------------------------------------------------------

def _in_place(op, input, *args):
    # The result computed from a copy, written back with copy_ (so the graph stays
    # right on a non-leaf; on a leaf that requires grad copy_ raises, as torch does).
    x = _var(input)
    return x.copy_(op(x.clone(), *args))


def relu(input, inplace=False):
    """``max(input, 0)``; ``inplace=True`` overwrites ``input`` (``relu_``).

    >>> relu(pyad.tensor([-1.0, 2.0]))
    tensor([0., 2.])
    """
    return _relu_(input) if inplace else _relu(input)


def silu(input, inplace=False):
    """``input * sigmoid(input)`` (swish).

    >>> silu(pyad.tensor([0.0, 1.0]))
    tensor([0.0000, 0.7311])
    """
    return _in_place(_silu, input) if inplace else _silu(input)


def elu(input, alpha=1.0, inplace=False):
    """``input`` where positive, ``alpha * (exp(input) - 1)`` elsewhere.

    >>> elu(pyad.tensor([-1.0, 2.0]))
    tensor([-0.6321,  2.0000])
    """
    return _in_place(_elu, input, alpha) if inplace else _elu(input, alpha)


def leaky_relu(input, negative_slope=0.01, inplace=False):
    """``input`` where positive, ``negative_slope * input`` elsewhere.

    >>> leaky_relu(pyad.tensor([-1.0, 2.0]), 0.1)
    tensor([-0.1000,  2.0000])
    """
    if inplace:
        return _in_place(_leaky_relu, input, negative_slope)
    return _leaky_relu(input, negative_slope)


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    """``input`` clamped to ``[min_val, max_val]`` (no gradient outside or on the edges).

    >>> hardtanh(pyad.tensor([-2.0, 0.5, 3.0]))
    tensor([-1.0000,  0.5000,  1.0000])
    """
    x = _var(input)
    kind = _np.dtype(x.dtype).kind
    if kind == "b":
        raise RuntimeError("hardtanh(): Bool inputs not supported for hardtanh")
    if kind in "iu":
        # torch clamps integers in their own dtype (the limits cast to it; no gradient)
        if kind == "u" and (int(min_val) < 0 or int(max_val) < 0):
            raise RuntimeError("hardtanh(): cannot do hardtanh on an unsigned type with "
                               "negative limits")
        lo, hi = int(min_val), int(max_val)
        return _in_place(pyad.clamp, x, lo, hi) if inplace else pyad.clamp(x, lo, hi)
    if inplace:
        return _in_place(_hardtanh, x, min_val, max_val)
    return _hardtanh(x, min_val, max_val)


# The piecewise activations below are ``where`` over the pieces, selected by masks of
# the input's values, so the gradient at a kink is the one torch gives there (the
# pieces at the kink points are linear when torch's second derivative is 0 there).

_TORCH_DTYPE_NAMES = {"int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char",
                      "uint8": "Byte", "bool": "Bool"}


def _floating(what, input):
    # torch has no integer or bool kernel for these: NotImplementedError, as torch's
    # '"elu_cpu" not implemented for 'Long'' (a RuntimeError subclass)
    x = _var(input)
    dt = _np.dtype(x.dtype)
    if not _engine._is_floating_or_complex(dt):      # (bfloat16 is floating)
        raise NotImplementedError("%s(): expected a floating point input, got %s (not "
                                  "implemented for '%s')"
                                  % (what, dt, _TORCH_DTYPE_NAMES.get(str(dt), str(dt))))
    return x


def _is_complex(x):
    return isinstance(x, Variable) and _np.dtype(x.dtype).kind == "c"


def _real_only(what, *inputs):
    # torch has no complex kernel for these: refuse before computing a meaningless result
    inputs = tuple(_var(x) for x in inputs)
    if any(_is_complex(x) for x in inputs):
        raise NotImplementedError("%s(): does not support complex input" % what)
    return inputs


def _no_complex_grad(what, *inputs):
    # torch computes these on complex input but has no complex derivative for them
    if pyad.is_grad_enabled() and any(_is_complex(x) and x.requires_grad for x in inputs):
        raise RuntimeError("%s(): does not support automatic differentiation for outputs "
                           "with complex dtype." % what)


def _not_differentiable(what, name, x):
    # torch refuses, at the call, an argument its derivative formula does not cover
    if pyad.is_grad_enabled() and isinstance(x, Variable) and x.requires_grad:
        raise RuntimeError("%s(): the function is not differentiable with respect to argument "
                           "'%s'. This input cannot have requires_grad True." % (what, name))


def _floating_only(what, *inputs):
    # torch has no integer or bool kernel for these (NotImplementedError, as torch's
    # "not implemented for 'Long'"); a float with an integer operand promotes and is fine
    inputs = tuple(_var(x) for x in inputs)
    if not any(_engine._is_floating_or_complex(x.dtype) for x in inputs):
        raise NotImplementedError("%s(): not implemented for integer or bool inputs, got %s"
                                  % (what, ", ".join(str(x.dtype) for x in inputs)))
    return inputs


def _same_dtype_as_weight(what, input, weight):
    # torch's GEMM takes its operands in one dtype: a float64 batch through a float32
    # layer (or integer data through any layer) is an error, not a promotion
    if input.dtype != weight.dtype:
        raise RuntimeError("%s(): mat1 and mat2 must have the same dtype, but got %s and %s "
                           "(input and weight)" % (what, input.dtype, weight.dtype))


def _is_reduced_float(x):
    # float16 and bfloat16, which torch's CPU kernels compute in float32 ("opmath")
    return x.dtype.itemsize == 2 and x.is_floating_point()


def _in_float32(input, *params):
    """``input`` and ``params`` (Variables or None) in float32 when ``input`` is float16 or
    bfloat16, as torch's CPU norm kernels compute them (one rounding, at the end: see
    `_to_input_dtype`); unchanged otherwise."""
    if not _is_reduced_float(input):
        return (input,) + params
    return (input.float(),) + tuple(None if p is None else _var(p).float() for p in params)


def _norm_dtypes(what, input, *params):
    # torch's CPU norm kernels take their parameters and statistics in the input's dtype,
    # or in float32 for a float16/bfloat16 input; any other mix is an error, not a promotion
    for p in params:
        if p is None:
            continue
        dt = _var(p).dtype
        if dt != input.dtype and not (_is_reduced_float(input) and dt == _np.float32):
            raise RuntimeError("%s(): mixed dtype (CPU): all inputs must share same datatype, "
                               "got an input of %s and a parameter of %s"
                               % (what, input.dtype, dt))


def _to_input_dtype(out, input):
    # a float16/bfloat16 input normalised in float32 comes back in its dtype, as torch's
    return out if out.dtype == input.dtype else out.to(dtype=input.dtype)


def _masked(x, mask, value=0.0):
    # x where mask, else the constant value (no gradient there)
    return pyad.where(mask, x, value)


def relu6(input, inplace=False):
    """``min(max(input, 0), 6)`` (``hardtanh(input, 0, 6)``: no gradient at 0 and 6).

    >>> relu6(pyad.tensor([-1.0, 3.0, 7.0]))
    tensor([0., 3., 6.])
    """
    x = _var(input)
    if _int_kind(x.data):               # torch clamps integers too (no gradient there)
        return _in_place(pyad.clamp, x, 0, 6) if inplace else pyad.clamp(x, 0, 6)
    return hardtanh(x, 0.0, 6.0, inplace)      # (bool: RuntimeError, as torch's)


def _hardsigmoid(x):
    # (a NaN gives NaN with no gradient, as torch's)
    d = x.data
    mid = (x + 3) / 6
    out = pyad.where(d >= 3, 1.0, _masked(mid, d > -3))
    nan = _np.isnan(d)
    out = pyad.where(nan, float("nan"), out) if nan.any() else out
    # torch's formula takes x: under create_graph the gradient depends on it
    return _engine._grad_depends_on(out, x, "HardsigmoidBackward")


def hardsigmoid(input, inplace=False):
    """``0`` for ``input <= -3``, ``1`` for ``input >= 3``, ``input / 6 + 1 / 2``
    between (the gradient is 0 at -3 and 3, as torch's).

    >>> hardsigmoid(pyad.tensor([-4.0, 0.0, 1.5, 4.0]))
    tensor([0.0000, 0.5000, 0.7500, 1.0000])
    """
    input, = _real_only("hardsigmoid", _floating("hardsigmoid", input))
    return _in_place(_hardsigmoid, input) if inplace else _hardsigmoid(input)


def _hardswish(x):
    if _is_reduced_float(x):
        # torch's CPU kernel computes float16/bfloat16 in float32 and rounds once
        return _hardswish(x.float()).to(dtype=x.dtype)
    d = x.data
    # torch: x * (x + 3) / 6 on the open interval (-3, 3), so no gradient at -3 and a
    # gradient of 1 at 3; as torch's kernel x * clamp(x + 3, 0, 6) / 6, a NaN and +inf
    # pass with gradient 1 and -inf gives NaN with gradient 0. The quadratic piece is
    # computed on x only where it is used (no 0 * inf = NaN gradient from the others).
    mid = (d > -3) & (d < 3)
    xm = _masked(x, mid)
    # (torch's kernel gives -0.0 below -3: x * 0 / 6; and x * 6 / 6 above 3, so a huge
    # input overflows to inf as torch's)
    with _np.errstate(over="ignore"):
        big = x * 6.0 / 6.0
    out = pyad.where(d <= -3, -0.0, pyad.where(mid, xm * (xm + 3) / 6, big))
    minf = _np.isneginf(d)
    return pyad.where(minf, float("nan"), out) if minf.any() else out


def hardswish(input, inplace=False):
    """``input * hardsigmoid(input)``: ``0`` for ``input <= -3``, ``input`` for
    ``input >= 3``, ``input * (input + 3) / 6`` between.

    >>> hardswish(pyad.tensor([-4.0, 0.0, 1.5, 4.0]))
    tensor([-0.0000, 0.0000, 1.1250, 4.0000])
    """
    input, = _real_only("hardswish", _floating("hardswish", input))
    return _in_place(_hardswish, input) if inplace else _hardswish(input)


_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def _selu(x):
    return _elu(x, _SELU_ALPHA) * _SELU_SCALE


def selu(input, inplace=False):
    """``scale * elu(input, alpha)`` with torch's constants ``alpha = 1.6732...`` and
    ``scale = 1.0507...`` (self-normalising).

    >>> selu(pyad.tensor([-1.0, 1.0]))
    tensor([-1.1113,  1.0507])
    """
    input = _floating("selu", input)
    return _in_place(_selu, input) if inplace else _selu(input)


def _celu(x, alpha):
    if alpha > 0:
        return _elu(x * (1.0 / alpha), 1.0) * alpha
    # a negative alpha (torch allows it): the exponential side is still input < 0 (at 0
    # and at a NaN torch's gradient is 1 and its second derivative 0: the identity's)
    neg = x.data < 0
    return pyad.where(~neg, x, pyad.expm1(_masked(x, neg) * (1.0 / alpha)) * alpha)


def celu(input, alpha=1.0, inplace=False):
    """``max(0, input) + min(0, alpha * (exp(input / alpha) - 1))``.

    >>> celu(pyad.tensor([-1.0, 2.0]), alpha=2.0)
    tensor([-0.7869,  2.0000])
    """
    if alpha == 0:
        raise RuntimeError("celu(): alpha cannot be 0")
    input = _floating("celu", input)
    if inplace:
        return _in_place(_celu, input, alpha)
    return _celu(_var(input), alpha)


def _mish(x):
    if _is_reduced_float(x):
        # torch's CPU kernel computes float16/bfloat16 in float32 and rounds once
        return _mish(x.float()).to(dtype=x.dtype)
    return x * tanh(softplus(x))


def mish(input, inplace=False):
    """``input * tanh(softplus(input))``.

    >>> mish(pyad.tensor([-1.0, 0.0, 1.0]))
    tensor([-0.3034,  0.0000,  0.8651])
    """
    input = _floating("mish", input)
    return _in_place(_mish, input) if inplace else _mish(input)


def softsign(input):
    """``input / (1 + |input|)``.

    >>> softsign(pyad.tensor([-3.0, 1.0]))
    tensor([-0.7500,  0.5000])
    """
    input = _var(input)
    return input / (pyad.abs(input) + 1)


def tanhshrink(input):
    """``input - tanh(input)``.

    >>> tanhshrink(pyad.tensor([0.0, 1.0]))
    tensor([0.0000, 0.2384])
    """
    input = _var(input)
    return input - tanh(input)


def _check_lambd(what, lambd):
    if lambd < 0:
        raise RuntimeError("%s(): lambda must be greater or equal to 0, but found to be %r."
                           % (what, lambd))


@_writes_out(name="softshrink")
def softshrink(input, lambd=0.5):
    """``input - lambd`` above ``lambd``, ``input + lambd`` below ``-lambd``, 0 between
    (no gradient at +-lambd). ``out=`` takes the result, as torch's.

    >>> softshrink(pyad.tensor([-2.0, 0.3, 1.0]))
    tensor([-1.5000,  0.0000,  0.5000])
    """
    _check_lambd("softshrink", lambd)
    x, = _real_only("softshrink", _floating("softshrink", input))
    d = x.data
    # torch: 0 on [-lambd, lambd]; a NaN stays NaN with gradient 1
    out = pyad.where(d < -lambd, x + lambd, _masked(x - lambd, ~(d <= lambd)))
    return _engine._grad_depends_on(out, x, "SoftshrinkBackward")


def hardshrink(input, lambd=0.5):
    """``input`` where ``|input| > lambd``, else 0 (no gradient at +-lambd).

    >>> hardshrink(pyad.tensor([-2.0, 0.3, 1.0]))
    tensor([-2.,  0.,  1.])
    """
    _check_lambd("hardshrink", lambd)
    x, = _real_only("hardshrink", _floating("hardshrink", input))
    d = x.data
    out = _masked(x, ~((d >= -lambd) & (d <= lambd)))     # a NaN passes (torch)
    return _engine._grad_depends_on(out, x, "HardshrinkBackward")


def _threshold(x, threshold, value):
    out = _masked(x, ~(x.data <= threshold), value)       # a NaN passes (torch)
    return _engine._grad_depends_on(out, x, "ThresholdBackward")


def threshold(input, threshold, value, inplace=False):
    """``input`` where ``input > threshold``, else ``value`` (no gradient at the
    threshold).

    >>> threshold(pyad.tensor([-1.0, 0.5, 2.0]), 0.5, -9.0)
    tensor([-9., -9.,  2.])
    """
    _real_only("threshold", input)
    x = _var(input)
    kind = _np.dtype(x.dtype).kind
    if kind == "b":
        raise NotImplementedError("threshold(): \"threshold_cpu\" not implemented for "
                                  "'Bool'")
    if kind in "iu":
        # torch computes in the input's dtype: threshold and value cast to it
        info = _np.iinfo(x.dtype)
        for name, v in (("threshold", threshold), ("value", value)):
            if not info.min <= v <= info.max:
                raise RuntimeError("threshold(): %s cannot be converted to type %s without "
                                   "overflow" % (name, x.dtype))
        threshold, value = int(threshold), int(value)
        xp = pyad.get_array_module(x.data)
        value = Variable(xp.asarray(value, dtype=x.dtype))
    if inplace:
        return _in_place(_threshold, input, threshold, value)
    return _threshold(_var(input), threshold, value)


def glu(input, dim=-1):
    """The gated linear unit: ``a * sigmoid(b)``, ``a`` and ``b`` the two halves of
    ``input`` along ``dim``.

    >>> glu(pyad.tensor([[1.0, 2.0, 0.0, 100.0]]))
    tensor([[0.5000, 2.0000]])
    """
    input, = _real_only("glu", _floating("glu", input))
    if input.ndim == 0:
        raise RuntimeError("glu(): glu does not support scalars because halving size must "
                           "be even")
    if not -input.ndim <= dim < input.ndim:
        raise IndexError("glu(): Dimension out of range (expected to be in range of "
                         "[%d, %d], but got %d)" % (-input.ndim, input.ndim - 1, dim))
    n = input.shape[dim]
    if n % 2:
        raise RuntimeError("glu(): halving dimension must be even, but dimension %d is "
                           "size %d" % (dim % input.ndim, n))
    h = n // 2
    return pyad.narrow(input, dim, 0, h) * sigmoid(pyad.narrow(input, dim, h, h))


def prelu(input, weight):
    """``input`` where positive, ``weight * input`` elsewhere, with one learned slope per
    channel (dim 1) or one for all (``weight`` of one element).

    As torch, the gradient at exactly 0 is the slope's (``input > 0`` selects ``input``).

    >>> prelu(pyad.tensor([[-2.0, 3.0], [1.0, -1.0]]), pyad.tensor([0.5, 0.1]))
    tensor([[-1.0000,  3.0000],
            [ 1.0000, -0.1000]])
    """
    if not isinstance(weight, Variable):
        raise TypeError("prelu(): argument 'weight' (position 2) must be Variable, not %s"
                        % type(weight).__name__)
    input, weight = _real_only("prelu", _floating("prelu", input), weight)
    if weight.ndim > 1:
        raise RuntimeError("prelu(): Expected `weight` to be a scalar or 1D Variable, but "
                           "got: ndim = %d" % weight.ndim)
    if _np.dtype(weight.dtype) != _np.dtype(input.dtype):
        raise RuntimeError("prelu(): Type promoting not supported. Got %s and %s"
                           % (_np.dtype(input.dtype), _np.dtype(weight.dtype)))
    n = weight.numel()
    slopes = weight
    if n != 1:
        if input.ndim == 0:
            raise RuntimeError("prelu(): Not allow zero-dim input Variable.")
        channels = input.shape[1] if input.ndim >= 2 else 1
        if n != channels:
            raise RuntimeError("prelu(): Mismatch of parameter numbers and input channel "
                               "size. Found parameter numbers = %d and channel size = %d."
                               % (n, channels))
        # one slope per channel, broadcast over dim 1 (and the batch, and what follows)
        weight = weight.reshape((n,) + (1,) * (input.ndim - 2))
    elif weight.ndim == 1 and input.ndim == 0:
        weight = weight.reshape(())          # a 0-d input stays 0-d, as torch's
    out = pyad.where(input > 0, input, weight * input)
    # (torch's formula takes both: a create_graph gradient depends on each)
    return _engine._grad_depends_on(_engine._grad_depends_on(out, input, "PreluKernelBackward"),
                                    slopes, "PreluKernelBackward")


def _implicit_softmax_dim(name, ndim, stacklevel):
    # torch's deprecated choice when no dim is given: 0 for 0-, 1- and 3-D input
    # (a vector, or one unbatched image), else 1 (the class dimension of a batch).
    warnings.warn("Implicit dimension choice for %s has been deprecated. Change the call "
                  "to include dim=X as an argument." % name, UserWarning,
                  stacklevel=stacklevel)
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input, dim=None, _stacklevel=3, dtype=None):
    """``exp(input) / exp(input).sum(dim)``, computed stably. Without ``dim``, torch's
    deprecated implicit choice (0 for 0-, 1- and 3-D input, else 1) with a warning.

    >>> softmax(pyad.tensor([[1.0, 1.0]]), dim=1)
    tensor([[0.5000, 0.5000]])
    """
    if dim is None:
        dim = _implicit_softmax_dim("softmax", _var(input).ndim, _stacklevel)
    return _softmax(input, dim, dtype)


def softmin(input, dim=None, _stacklevel=3, dtype=None):
    """``softmax(-input, dim)``: weights that favour the smallest entries.

    >>> softmin(pyad.tensor([[0.0, 0.0]]), dim=1)
    tensor([[0.5000, 0.5000]])
    """
    input = _var(input)
    if dim is None:
        dim = _implicit_softmax_dim("softmin", input.ndim, _stacklevel)
    if dtype is not None:
        input = input.to(dtype=dtype)
    return _softmax(-input, dim)


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    """``log(softmax(input, dim))``, computed stably. Without ``dim``, the same implicit
    choice as :func:`softmax`, with a warning.

    >>> log_softmax(pyad.tensor([[0.0, 0.0]]), dim=1)
    tensor([[-0.6931, -0.6931]])
    """
    if dim is None:
        dim = _implicit_softmax_dim("log_softmax", _var(input).ndim, _stacklevel)
    return _log_softmax(input, dim, dtype)


# ---------------------------------------------------------------------------------
# Linear
# ---------------------------------------------------------------------------------

def linear(input, weight, bias=None):
    """``input @ weight.T + bias``; ``weight`` is ``(out_features, in_features)``.

    >>> linear(pyad.ones(2, 3), pyad.ones(4, 3), pyad.zeros(4)).shape
    (2, 4)
    """
    if _profiler._active is not None:          # one event "linear", as torch's aten::linear
        return _profiler._run_op("linear", _linear, (input, weight, bias))
    return _linear(input, weight, bias)


def _linear(input, weight, bias):
    input, weight = _var(input), _var(weight)
    if input.ndim == 0:
        raise RuntimeError("linear(): input must have at least one dimension")
    if input.shape[-1] != weight.shape[-1]:
        raise RuntimeError("linear(): input has %d features in its last dimension but "
                           "weight expects %d (weight shape %s)"
                           % (input.shape[-1], weight.shape[-1], tuple(weight.shape)))
    _same_dtype_as_weight("linear", input, weight)
    if bias is not None and _var(bias).dtype != input.dtype:
        if input.ndim > 2 and not input.is_contiguous() and _var(bias).is_floating_point():
            # torch folds a contiguous input (or a 2-D one) into one addmm, which refuses
            # a bias of another dtype; any other input takes matmul and then adds the
            # bias in place, cast to the product's dtype (its MultiheadAttention reaches
            # this with a transposed batch-first query)
            return _linear(input, weight, None) + _var(bias).to(input.dtype)
        _same_dtype_as_weight("linear", input, _var(bias))
    if bias is not None and _is_reduced_float(input) and \
            input.dtype == weight.dtype == _var(bias).dtype:
        # torch's addmm: the product and the bias summed in float32, rounded once
        return _linear(input.float(), weight.float(), _var(bias).float()).to(input.dtype)
    lead = tuple(input.shape[:-1])
    if input.ndim > 2 and weight.ndim == 2:
        # one 2-D product (one GEMM forward and backward) instead of a batched one
        input = input.reshape(-1, input.shape[-1])
        out = pyad.matmul(input, pyad.t(weight))
        if bias is not None:
            out = out + bias
        out = out.reshape(lead + (weight.shape[0],))
        # (torch's names: its addmm viewed back, or its matmul's fold)
        return _engine._name_grad_fn(out, input, "ViewBackward" if bias is not None
                                     else "UnsafeViewBackward")
    out = pyad.matmul(input, pyad.t(weight))
    if bias is None:
        return out
    # torch's addmm (a vector input: its addmm of the unsqueezed input, viewed back)
    return _engine._name_grad_fn(out + bias, input, "AddmmBackward" if input.ndim == 2
                                 else "ViewBackward")


# ---------------------------------------------------------------------------------
# Losses
# ---------------------------------------------------------------------------------

_REDUCTIONS = ("none", "mean", "sum")


def _reduction(what, size_average, reduce, reduction, extra=()):
    if size_average is not None or reduce is not None:
        # torch's legacy rule: reduce=False gives 'none', else size_average picks mean
        size_average = True if size_average is None else size_average
        reduce = True if reduce is None else reduce
        reduction = ("mean" if size_average else "sum") if reduce else "none"
        warnings.warn("%s(): size_average and reduce are deprecated, use "
                      "reduction='%s' instead" % (what, reduction), UserWarning,
                      stacklevel=3)
    if reduction not in _REDUCTIONS + tuple(extra):
        raise ValueError("%s(): reduction must be one of %s, got %r"
                         % (what, ", ".join(repr(r) for r in _REDUCTIONS + tuple(extra)),
                            reduction))
    return reduction


def _reduce(loss, reduction):
    if reduction == "none":
        return loss
    return loss.sum() if reduction == "sum" else loss.mean()


def _weighted(what, loss, weight, input, reduction, mean_by_weight):
    # mse_loss / l1_loss / huber_loss with torch's elementwise weight
    weight = _var(weight)
    if tuple(weight.shape) != tuple(input.shape):
        raise ValueError("%s(): weight shape %s must be the same as the input shape %s"
                         % (what, tuple(weight.shape), tuple(input.shape)))
    loss = loss * weight
    if reduction == "mean" and mean_by_weight:
        return loss.sum() / weight.sum()
    return _reduce(loss, reduction)


def _pointwise_inputs(what, input, target):
    input, target = _var(input), _var(target)
    if tuple(target.shape) != tuple(input.shape):
        warnings.warn("%s(): using a target size (%s) that is different to the input size "
                      "(%s). This will likely lead to incorrect results due to "
                      "broadcasting. Please ensure they have the same size."
                      % (what, tuple(target.shape), tuple(input.shape)), UserWarning,
                      stacklevel=3)
        shape = _np.broadcast_shapes(tuple(input.shape), tuple(target.shape))
        input, target = pyad.broadcast_to(input, shape), pyad.broadcast_to(target, shape)
    return input, target


def mse_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    """Mean squared error ``(input - target)^2``, reduced.

    >>> mse_loss(pyad.tensor([1.0, 2.0]), pyad.tensor([0.0, 0.0]))
    tensor(2.5000)
    """
    reduction = _reduction("mse_loss", size_average, reduce, reduction)
    _real_only("mse_loss", input, target)
    _floating_only("mse_loss", input, target)
    input, target = _pointwise_inputs("mse_loss", input, target)
    d = input - target
    loss = d * d
    if weight is not None:
        return _weighted("mse_loss", loss, weight, input, reduction, True)
    return _reduce(loss, reduction)


def l1_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    """Mean absolute error ``|input - target|``, reduced.

    >>> l1_loss(pyad.tensor([1.0, -2.0]), pyad.tensor([0.0, 0.0]), reduction="sum")
    tensor(3.)
    """
    reduction = _reduction("l1_loss", size_average, reduce, reduction)
    input, target = _pointwise_inputs("l1_loss", input, target)
    loss = pyad.abs(input - target)
    if weight is not None:
        return _weighted("l1_loss", loss, weight, input, reduction, True)
    return _reduce(loss, reduction)


def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean",
                   beta=1.0):
    """``0.5 d^2 / beta`` where ``|d| < beta``, ``|d| - 0.5 beta`` elsewhere
    (``d = input - target``; ``beta=0`` is the L1 loss).

    >>> smooth_l1_loss(pyad.tensor([0.5, 3.0]), pyad.tensor([0.0, 0.0]), reduction="none")
    tensor([0.1250, 2.5000])
    """
    reduction = _reduction("smooth_l1_loss", size_average, reduce, reduction)
    if beta < 0:
        raise RuntimeError("smooth_l1_loss(): does not support negative values for beta, "
                           "got %r" % (beta,))
    _real_only("smooth_l1_loss", input, target)
    _floating_only("smooth_l1_loss", input, target)
    input, target = _pointwise_inputs("smooth_l1_loss", input, target)
    d = input - target
    a = pyad.abs(d)
    if beta == 0:
        return _reduce(a, reduction)
    # the square taken only where it is used: at |d| = inf torch's gradient is sign(d);
    # a NaN difference takes the square's branch, whose gradient d / beta is NaN as
    # torch's (its kernel's last branch)
    small = ~(a.data >= beta)
    ds = _masked(d, small)
    loss = pyad.where(small, ds * ds * (0.5 / beta), a - 0.5 * beta)
    return _reduce(loss, reduction)


def huber_loss(input, target, reduction="mean", delta=1.0, weight=None):
    """``0.5 d^2`` where ``|d| < delta``, ``delta (|d| - 0.5 delta)`` elsewhere.

    >>> huber_loss(pyad.tensor([0.5, 3.0]), pyad.tensor([0.0, 0.0]), reduction="none")
    tensor([0.1250, 2.5000])
    """
    reduction = _reduction("huber_loss", None, None, reduction)
    if delta <= 0:
        raise RuntimeError("huber_loss(): does not support non-positive values for delta, "
                           "got %r" % (delta,))
    _real_only("huber_loss", input, target)
    _floating_only("huber_loss", input, target)
    input, target = _pointwise_inputs("huber_loss", input, target)
    d = input - target
    a = pyad.abs(d)
    small = ~(a.data >= delta)      # (as smooth_l1_loss: at |d| = inf sign(d), at NaN NaN)
    ds = _masked(d, small)
    loss = pyad.where(small, ds * ds * 0.5, (a - 0.5 * delta) * delta)
    if weight is not None:
        return _weighted("huber_loss", loss, weight, input, reduction, False)
    return _reduce(loss, reduction)


def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None,
                         reduction="mean"):
    """``-(target log(input) + (1 - target) log(1 - input))``, each log clamped at -100
    as torch does; ``input`` holds probabilities in [0, 1].

    >>> binary_cross_entropy(pyad.tensor([0.5]), pyad.tensor([1.0]))
    tensor(0.6931)
    """
    what = "binary_cross_entropy"
    reduction = _reduction(what, size_average, reduce, reduction)
    input, target = _real_only(what, input, target)
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError("%s(): target size %s must be the same as the input size %s"
                         % (what, tuple(target.shape), tuple(input.shape)))
    if not _is_float(input.dtype):
        raise NotImplementedError("%s(): not implemented for %s input" % (what, input.dtype))
    if target.dtype != input.dtype:
        # torch's kernel takes the target in the input's dtype only
        raise RuntimeError("%s(): found dtype %s for the target but expected %s (the input's)"
                           % (what, target.dtype, input.dtype))
    x = input.data
    if x.size and not bool(((x >= 0) & (x <= 1)).all()):
        raise RuntimeError("%s(): all elements of input should be between 0 and 1" % what)
    loss = BinaryCrossEntropy.apply(input, target)
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, reduction)


class BinaryCrossEntropy(pyad.autograd.Function):
    """Elementwise ``-(y log x + (1 - y) log(1 - x))``, each log clamped at -100, with
    torch's gradients: ``(x - y) / max(x (1 - x), 1e-12)`` for x, finite where x is 0
    or 1 (as a saturated float32 sigmoid gives; the chain through the clamped logs gives
    nan there), and ``-logit(x)`` for y. Both are made of recorded ops, so they are
    differentiable again."""

    @staticmethod
    def forward(ctx, x, y):
        ctx.save_for_backward(x, y)
        with _np.errstate(divide="ignore"):
            log_x = pyad.clamp_min(pyad.log(x), -100.0)
            log_1mx = pyad.clamp_min(pyad.log(1 - x), -100.0)
        return -(y * log_x + (1 - y) * log_1mx)

    @staticmethod
    def backward(ctx, g):
        x, y = ctx.saved_tensors
        gx = gy = None
        if ctx.needs_input_grad[0]:
            gx = g * (x - y) / pyad.clamp_min((1 - x) * x, 1e-12)
        if ctx.needs_input_grad[1]:
            with _np.errstate(divide="ignore"):
                gy = g * (pyad.log(1 - x) - pyad.log(x))
        return gx, gy


def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None,
                                     reduce=None, reduction="mean", pos_weight=None):
    """``binary_cross_entropy(sigmoid(input), target)`` computed stably from the
    logits: ``(1 - target) input - (1 + (pos_weight - 1) target) logsigmoid(input)``.

    >>> binary_cross_entropy_with_logits(pyad.tensor([0.0]), pyad.tensor([1.0]))
    tensor(0.6931)
    """
    what = "binary_cross_entropy_with_logits"
    reduction = _reduction(what, size_average, reduce, reduction)
    input, target = _var(input), _var(target)
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError("%s(): target size %s must be the same as the input size %s"
                         % (what, tuple(target.shape), tuple(input.shape)))
    if not _is_float(input.dtype):
        raise NotImplementedError("%s(): not implemented for %s input" % (what, input.dtype))
    if not _is_float(target.dtype):
        raise RuntimeError("%s(): result type %s can't be cast to the target's dtype %s"
                           % (what, input.dtype, target.dtype))
    log_sig = logsigmoid(input)
    if pos_weight is not None:
        log_sig = log_sig * ((pos_weight - 1) * target + 1)
    loss = (1 - target) * input - log_sig
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, reduction)


def kl_div(input, target, size_average=None, reduce=None, reduction="mean",
           log_target=False):
    """Kullback-Leibler divergence ``target (log(target) - input)`` (``input`` holds
    log-probabilities; ``log_target=True``: so does ``target``). ``reduction='batchmean'``
    divides the sum by the batch size (the mathematical KL divergence); ``'mean'``
    divides by the number of elements and warns, as torch does.

    >>> kl_div(pyad.tensor([[-0.6931, -0.6931]]), pyad.tensor([[0.5, 0.5]]),
    ...        reduction="batchmean").item() < 1e-4
    True
    """
    reduction = _reduction("kl_div", size_average, reduce, reduction, ("batchmean",))
    if reduction == "mean":
        warnings.warn("kl_div(): reduction 'mean' divides the total loss by both the batch "
                      "size and the support size; 'batchmean' divides only by the batch "
                      "size and aligns with the KL divergence math definition.",
                      UserWarning, stacklevel=2)
    input, target = _var(input), _var(target)
    if _is_complex(input) or _is_complex(target):
        raise RuntimeError("kl_div(): Complex inputs not supported.")
    if not (_is_float(input.dtype) and _is_float(target.dtype)):
        raise RuntimeError("kl_div(): Integral inputs not supported.")
    if log_target:
        loss = pyad.exp(target) * (target - input)
    else:
        # torch's formula: xlogy(target, target) is 0 where target is 0, nan where it is
        # negative, and its derivative in target is nan at 0 (as torch's)
        loss = pyad.xlogy(target, target) - target * input
    if reduction == "batchmean":
        total = loss.sum()
        return total / input.shape[0] if input.ndim else total
    return _reduce(loss, reduction)


def _class_target(what, input, target, class_dim):
    """The index target as an integer array, checked against the input's shape."""
    t = target.data
    if input.ndim != 1 and (t.ndim == 0 or t.shape[0] != input.shape[0]):
        raise ValueError("%s(): expected input batch_size (%d) to match target batch_size "
                         "(%d)" % (what, input.shape[0], t.shape[0] if t.ndim else 0))
    if t.dtype not in (_np.int64, _np.uint8):
        # torch's type and rule: class indices are int64 (or uint8), not int32 or float
        raise RuntimeError("%s(): expected target dtype to be Long or Byte, but got %s"
                           % (what, t.dtype))
    expected = tuple(s for i, s in enumerate(input.shape) if i != class_dim)
    if tuple(t.shape) != expected:
        raise RuntimeError("%s(): expected a target of shape %s for an input of shape %s, "
                           "got %s" % (what, expected, tuple(input.shape), tuple(t.shape)))
    return t


def _check_weight(what, weight, n_classes, dtype=None):
    if weight is None:
        return None
    _not_differentiable(what, "weight", weight)
    w = weight.data if isinstance(weight, Variable) else _np.asarray(weight)
    if tuple(w.shape) != (n_classes,):
        raise RuntimeError("%s(): weight should be defined either for all %d classes or "
                           "no classes but got a weight of shape %s"
                           % (what, n_classes, tuple(w.shape)))
    if dtype is not None and w.dtype != dtype:
        # torch's kernel takes the weight in the input's dtype only
        raise RuntimeError("%s(): expected scalar type %s but found %s (the weight's dtype "
                           "must be the input's)" % (what, dtype, w.dtype))
    return w


def _checked_indices(what, input, target, weight, ignore_index):
    """The class indices (0 where ignored), the per-sample weights (0 where ignored),
    the mask of samples not ignored, the class weights and the class dimension."""
    if input.ndim == 0:
        raise ValueError("%s(): input must have a class dimension, got a 0-d input" % what)
    class_dim = 0 if input.ndim == 1 else 1
    n_classes = input.shape[class_dim]
    t = _class_target(what, input, target, class_dim)
    w = _check_weight(what, weight, n_classes, input.dtype)
    xp = pyad.get_array_module(t)
    if t.size and not 0 <= ignore_index < n_classes and 0 <= t.min() and t.max() < n_classes:
        # the common case: every target in range, none ignored
        safe = t if t.dtype == xp.int64 else t.astype(xp.int64)
        wt = xp.ones(t.shape, input.dtype) if w is None else w[safe].astype(input.dtype)
        return safe, wt, xp.ones(t.shape, bool), w, class_dim
    valid = t != ignore_index
    bad = valid & ((t < 0) | (t >= n_classes))
    if t.size and bool(bad.any()):
        raise IndexError("%s(): target %d is out of bounds for %d classes"
                         % (what, int(t[bad].ravel()[0]), n_classes))
    safe = xp.where(valid, t, 0).astype(xp.int64)
    wt = (xp.ones(t.shape, input.dtype) if w is None else w[safe].astype(input.dtype)) * valid
    return safe, wt, valid, w, class_dim


def _nll(what, input, target, weight, ignore_index, reduction):
    input, target = _var(input), _var(target)
    safe, wt, valid, w, class_dim = _checked_indices(what, input, target, weight,
                                                     ignore_index)
    xp = pyad.get_array_module(safe)
    picked = pyad.gather(input, class_dim, pyad.unsqueeze(Variable(safe), class_dim))
    picked = pyad.squeeze(picked, class_dim)
    loss = -picked * wt
    if reduction == "none":
        return loss, valid, w, class_dim
    if reduction == "sum":
        return loss.sum(), valid, w, class_dim
    with _np.errstate(invalid="ignore", divide="ignore"):     # nothing counted: nan
        mean = loss.sum() / Variable(xp.asarray(wt.sum(), dtype=input.dtype))
    return mean, valid, w, class_dim


def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
             reduction="mean"):
    """Negative log-likelihood ``-input[n, target[n]] * weight[target[n]]`` of
    log-probabilities ``input`` (``(N, C)``, ``(C,)`` or ``(N, C, d1, ...)``) at the
    integer class indices ``target``; ``reduction='mean'`` divides by the summed weights
    of the targets not equal to ``ignore_index``.

    >>> nll_loss(pyad.tensor([[-1.0, -2.0], [-3.0, -4.0]]), pyad.tensor([0, 1]))
    tensor(2.5000)
    """
    reduction = _reduction("nll_loss", size_average, reduce, reduction)
    return _nll("nll_loss", input, target, weight, ignore_index, reduction)[0]


def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100,
                  reduce=None, reduction="mean", label_smoothing=0.0):
    """Cross entropy of the logits ``input`` (``(N, C)``, ``(C,)`` or
    ``(N, C, d1, ...)``) and ``target``: integer class indices (``nll_loss`` of
    ``log_softmax(input)``, with ``weight`` and ``ignore_index``) or class probabilities
    of the input's shape; ``label_smoothing`` mixes the target with the uniform
    distribution, as torch does.

    >>> cross_entropy(pyad.tensor([[0.0, 0.0]]), pyad.tensor([1]))
    tensor(0.6931)
    """
    what = "cross_entropy"
    reduction = _reduction(what, size_average, reduce, reduction)
    if not 0.0 <= label_smoothing <= 1.0:
        raise RuntimeError("%s(): label_smoothing must be between 0.0 and 1.0. Got: %r"
                           % (what, label_smoothing))
    input, target = _var(input), _var(target)
    # torch reads a target of the input's shape as class probabilities, any other as
    # class indices
    probs = tuple(target.shape) == tuple(input.shape)
    if probs and not _is_float(target.dtype):
        raise RuntimeError("%s(): expected floating point type for target with class "
                           "probabilities, got %s" % (what, target.dtype))
    if input.ndim == 0:
        raise ValueError("%s(): input must have a class dimension, got a 0-d input" % what)
    class_dim = 0 if input.ndim == 1 else 1
    n_classes = input.shape[class_dim]
    if not probs:
        _class_target(what, input, target, class_dim)
    if label_smoothing == 0 and not probs:
        # one fused node: log_softmax, pick, weight and reduce
        safe, wt, _, _, class_dim = _checked_indices(what, input, target, weight,
                                                     ignore_index)
        return _cross_entropy_indices(input, safe, wt, class_dim,
                                      _REDUCTIONS.index(reduction))
    logp = _log_softmax(input, class_dim)
    if probs:
        # class probabilities
        if ignore_index != -100:
            raise RuntimeError("%s(): ignore_index is not supported for floating point "
                               "target" % what)
        if tuple(target.shape) != tuple(input.shape):
            raise ValueError("%s(): a target of class probabilities must have the input's "
                             "shape %s, got %s (class indices must be integers)"
                             % (what, tuple(input.shape), tuple(target.shape)))
        w = _check_weight(what, weight, n_classes, input.dtype)
        if label_smoothing > 0:
            target = target * (1 - label_smoothing) + label_smoothing / n_classes
        prod = logp * target
        if w is not None:
            prod = prod * _class_view(w, input.ndim, class_dim)
        if reduction == "none":
            return -prod.sum(class_dim)
        if reduction == "sum":
            return -prod.sum()
        return -prod.sum() / (input.numel() // n_classes if n_classes else 0)
    nll, valid, w, _ = _nll(what, logp, target, weight, ignore_index, reduction)
    if w is not None:
        smooth = -(logp * _class_view(w.astype(logp.dtype), input.ndim, class_dim)).sum(
            class_dim)
    else:
        smooth = -logp.sum(class_dim)
    smooth = pyad.where(valid, smooth, 0.0)
    if reduction == "none":
        ret = smooth
    elif reduction == "sum":
        ret = smooth.sum()
    else:
        t = target.data
        if w is not None:
            denom = w[t[valid]].sum()
        else:
            denom = valid.sum()
        with _np.errstate(invalid="ignore", divide="ignore"):  # nothing counted: nan
            ret = smooth.sum() / Variable(pyad.get_array_module(t).asarray(denom, logp.dtype))
    return nll * (1 - label_smoothing) + ret * (label_smoothing / n_classes)


def _same_ndim(what, **tensors):
    dims = [t.ndim for t in tensors.values()]
    if len(set(dims)) > 1:
        raise RuntimeError("%s(): all input tensors should have the same number of "
                           "dimensions, got %s" % (what, ", ".join(
                               "%s of shape %s" % (k, tuple(t.shape))
                               for k, t in tensors.items())))


def margin_ranking_loss(input1, input2, target, margin=0, size_average=None, reduce=None,
                        reduction="mean"):
    """``max(0, -target * (input1 - input2) + margin)``, reduced (``target`` is 1 or -1:
    which input should rank higher).

    >>> margin_ranking_loss(pyad.tensor([1.0, 0.0]), pyad.tensor([0.0, 0.5]),
    ...                     pyad.tensor([1.0, 1.0]), margin=0.5, reduction="none")
    tensor([0., 1.])
    """
    what = "margin_ranking_loss"
    reduction = _reduction(what, size_average, reduce, reduction)
    input1, input2, target = _var(input1), _var(input2), _var(target)
    _same_ndim(what, input1=input1, input2=input2, target=target)
    loss = pyad.clamp_min(-target * (input1 - input2) + margin, 0)
    return _reduce(loss, reduction)


def hinge_embedding_loss(input, target, margin=1.0, size_average=None, reduce=None,
                         reduction="mean"):
    """``input`` where ``target`` is 1, ``max(0, margin - input)`` where it is -1
    (``input`` is usually a distance), reduced.

    >>> hinge_embedding_loss(pyad.tensor([0.3, 0.3]), pyad.tensor([1.0, -1.0]),
    ...                      reduction="none")
    tensor([0.3000, 0.7000])
    """
    what = "hinge_embedding_loss"
    reduction = _reduction(what, size_average, reduce, reduction)
    input = _var(input)
    t = _var(target).data
    # torch's two terms: the margin where target != 1, the input where target != -1
    loss = (_masked(pyad.clamp_min(margin - input, 0), t != 1)
            + _masked(input, t != -1))
    return _reduce(loss, reduction)


def soft_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """The two-class logistic loss ``log(1 + exp(-target * input))``, reduced.

    >>> soft_margin_loss(pyad.tensor([0.0, 2.0]), pyad.tensor([1.0, -1.0]),
    ...                  reduction="none")
    tensor([0.6931, 2.1269])
    """
    what = "soft_margin_loss"
    reduction = _reduction(what, size_average, reduce, reduction)
    input, target = _var(input), _var(target)
    _not_differentiable(what, "target", target)
    _no_complex_grad(what, input, target)
    loss = pyad.log1p(pyad.exp(-input * target))
    return _reduce(loss, reduction)


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-6, swap=False,
                        size_average=None, reduce=None, reduction="mean"):
    """``max(d(anchor, positive) - d(anchor, negative) + margin, 0)`` with
    ``d = pairwise_distance(., ., p, eps)``; ``swap=True`` uses the smaller of
    ``d(anchor, negative)`` and ``d(positive, negative)``.

    >>> a = pyad.tensor([[0.0, 0.0]])
    >>> triplet_margin_loss(a, pyad.tensor([[1.0, 0.0]]), pyad.tensor([[3.0, 0.0]]))
    tensor(0.)
    """
    what = "triplet_margin_loss"
    reduction = _reduction(what, size_average, reduce, reduction)
    if margin <= 0:
        raise ValueError("%s(): margin must be greater than 0, got %r" % (what, margin))
    anchor, positive, negative = _var(anchor), _var(positive), _var(negative)
    _same_ndim(what, anchor=anchor, positive=positive, negative=negative)
    d_pos = pairwise_distance(anchor, positive, p, eps)
    d_neg = pairwise_distance(anchor, negative, p, eps)
    if swap:
        d_neg = pyad.minimum(d_neg, pairwise_distance(positive, negative, p, eps))
    loss = pyad.clamp_min(d_pos - d_neg + margin, 0)
    return _reduce(loss, reduction)


def poisson_nll_loss(input, target, log_input=True, full=False, size_average=None,
                     eps=1e-8, reduce=None, reduction="mean"):
    """The negative log-likelihood of ``target`` under a Poisson distribution of rate
    ``exp(input)`` (``log_input=True``: ``exp(input) - target * input``) or ``input``
    (``input - target * log(input + eps)``); ``full=True`` adds Stirling's approximation
    of ``log(target!)`` where ``target > 1``.

    >>> poisson_nll_loss(pyad.tensor([0.0]), pyad.tensor([2.0]))
    tensor(1.)
    """
    what = "poisson_nll_loss"
    reduction = _reduction(what, size_average, reduce, reduction)
    input, target = _var(input), _var(target)
    if log_input:
        loss = pyad.exp(input) - target * input
    else:
        loss = input - target * pyad.log(input + eps)
    if full:
        with _np.errstate(divide="ignore", invalid="ignore"):
            stirling = (target * pyad.log(target) - target
                        + pyad.log(target * (2 * math.pi)) * 0.5)
            loss = loss + _masked(stirling, ~(target.data <= 1))
    return _reduce(loss, reduction)


def gaussian_nll_loss(input, target, var, full=False, eps=1e-6, reduction="mean"):
    """The negative log-likelihood of ``target`` under a Gaussian of mean ``input`` and
    variance ``var``: ``0.5 * (log(var) + (input - target)^2 / var)`` (plus
    ``0.5 * log(2 pi)`` when ``full``). ``var`` has the input's shape, or one dimension
    less or of size 1 (one variance shared), or is a float; it is clamped at ``eps``
    (as torch's, the clamp passes the gradient unchanged and stops the forward-mode
    tangent).

    >>> gaussian_nll_loss(pyad.tensor([1.0]), pyad.tensor([1.0]), pyad.tensor([1.0]))
    tensor(0.)
    """
    what = "gaussian_nll_loss"
    input, target = _var(input), _var(target)
    if isinstance(var, (int, float)) and not isinstance(var, bool):
        if var < 0:
            raise ValueError("%s(): var has negative entry/entries" % what)
        var = pyad.full_like(input, var)
    else:
        var = _var(var)
        if var.numel() and bool((var.data < 0).any()):
            raise ValueError("%s(): var has negative entry/entries" % what)
    ishape, vshape = tuple(input.shape), tuple(var.shape)
    if vshape != ishape:
        if ishape[:-1] == vshape:
            var = pyad.unsqueeze(var, -1)        # one variance per input vector
        elif not (len(ishape) == len(vshape)
                  and sum(v for i, v in zip(ishape, vshape) if i != v) == 1):
            raise ValueError("%s(): var is of incorrect size %s for an input of size %s"
                             % (what, vshape, ishape))
    reduction = _reduction(what, None, None, reduction)
    # torch clamps a clone in place under no_grad: the value is clamped, the gradient
    # passes as if it were not; forward mode (which no_grad does not stop in torch)
    # sees the clamp, so the tangent is zero where var < eps
    vd = var.detach()
    low = vd.data < eps
    if bool(low.any()) and _forward_ad_active():
        var = _GaussianVarClamp.apply(var, low, eps)
    else:
        var = pyad.where(low, (var - vd) + eps, var)
    d = input - target
    loss = (pyad.log(var) + d * d / var) * 0.5
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return _reduce(loss, reduction)


class _GaussianVarClamp(pyad.autograd.Function):
    """``var`` with the entries of ``low`` set to ``eps``: backward passes the gradient
    unchanged, forward mode zeroes the tangent where ``low`` (torch's clamp_ of a clone
    under no_grad, which reverse mode does not record and forward mode does)."""

    @staticmethod
    def forward(ctx, var, low, eps):
        ctx.low = low
        return pyad.where(low, pyad.full_like(var, eps), var)

    @staticmethod
    def backward(ctx, grad):
        return grad, None, None

    @staticmethod
    def jvp(ctx, tangent, _low, _eps):
        return pyad.where(ctx.low, pyad.zeros_like(tangent), tangent)


_COSINE_EPSILON = 1e-12


def cosine_embedding_loss(input1, input2, target, margin=0, size_average=None, reduce=None,
                          reduction="mean"):
    """``1 - cos(input1, input2)`` where ``target`` is 1, ``max(0, cos - margin)`` where
    it is -1 (``cos`` along the last dimension; 1-d target for 2-d inputs, 0-d for 1-d).

    >>> cosine_embedding_loss(pyad.tensor([[1.0, 0.0]]), pyad.tensor([[1.0, 1.0]]),
    ...                       pyad.tensor([1.0]))
    tensor(0.2929)
    """
    what = "cosine_embedding_loss"
    reduction = _reduction(what, size_average, reduce, reduction)
    input1, input2, target = _var(input1), _var(input2), _var(target)
    tdim = target.ndim
    if tdim not in (0, 1):
        raise RuntimeError("%s(): 0D or 1D target tensor expected, multi-target not "
                           "supported" % what)
    if input1.ndim != tdim + 1 or input2.ndim != tdim + 1:
        raise RuntimeError("%s(): %dD target tensor expects %dD input tensors, but found "
                           "inputs with sizes %s and %s" % (
                               what, tdim, tdim + 1, tuple(input1.shape),
                               tuple(input2.shape)))
    prod_sum = (input1 * input2).sum(tdim)
    mag1 = (input1 * input1).sum(tdim) + _COSINE_EPSILON
    mag2 = (input2 * input2).sum(tdim) + _COSINE_EPSILON
    cos = prod_sum / pyad.sqrt(mag1 * mag2)
    t = target.data
    loss = _masked(1 - cos, t == 1) + _masked(pyad.clamp_min(cos - margin, 0), t == -1)
    return _reduce(loss, reduction)


def multi_margin_loss(input, target, p=1, margin=1.0, weight=None, size_average=None,
                      reduce=None, reduction="mean"):
    """The multi-class hinge loss: for each sample,
    ``sum over i != y of max(0, margin - x[y] + x[i])^p / C`` (``p`` 1 or 2, the term
    scaled by ``weight[y]``), ``input`` ``(N, C)`` or ``(C,)``, ``target`` class indices.

    >>> multi_margin_loss(pyad.tensor([[0.1, 0.2, 0.4, 0.8]]), pyad.tensor([3]))
    tensor(0.3250)
    """
    what = "multi_margin_loss"
    reduction = _reduction(what, size_average, reduce, reduction)
    if p not in (1, 2):
        raise ValueError("%s(): only p == 1 and p == 2 supported, got %r" % (what, p))
    input, target = _var(input), _var(target)
    t = target.data
    if not _int_kind(t):
        raise TypeError("%s(): expected an integer target of class indices, got dtype %s"
                        % (what, t.dtype))
    if not ((input.ndim == 1 and input.shape[0] != 0)
            or (input.ndim == 2 and input.shape[1] != 0)):
        # torch: RuntimeError, also for an empty vector
        raise RuntimeError("%s(): Expected non-empty vector or matrix with optional 0-dim "
                           "batch size, but got: %s" % (what, list(input.shape)))
    x = input if input.ndim == 2 else input.reshape((1, -1))
    n, c = x.shape
    t = t.reshape(-1)
    if t.size != n:
        raise ValueError("%s(): inconsistent target size %s for an input of size %s"
                         % (what, tuple(target.shape), tuple(input.shape)))
    if t.size and bool(((t < 0) | (t >= c)).any()):
        bad = t[(t < 0) | (t >= c)][0]
        raise IndexError("%s(): target %d is out of bounds for %d classes" % (what, bad, c))
    t = t.astype(_np.int64)
    xp = pyad.get_array_module(t)
    x_y = pyad.take_along_dim(x, Variable(t.reshape(-1, 1)), 1)
    z = pyad.relu(x - x_y + margin)    # (torch counts a term only where it is > 0)
    if p == 2:
        z = z * z
    if weight is not None:
        _not_differentiable(what, "weight", weight)
        w = _var(weight)
        if tuple(w.shape) != (c,):
            raise ValueError("%s(): weight must have shape (%d,), got %s"
                             % (what, c, tuple(w.shape)))
        z = z * pyad.index_select(w, 0, Variable(t)).reshape((-1, 1))
    not_target = t.reshape(-1, 1) != xp.arange(c)
    loss = _masked(z, not_target).sum(1) / c
    if input.ndim == 1:
        loss = loss.reshape(tuple(target.shape)) if target.ndim == 0 else loss
    return _reduce(loss, reduction)


def _class_view(w, ndim, class_dim):
    shape = [1] * ndim
    shape[class_dim] = -1
    return w.reshape(shape)


# ---------------------------------------------------------------------------------
# Normalisation
# ---------------------------------------------------------------------------------

def _normalized_shape(normalized_shape):
    if isinstance(normalized_shape, int):
        return (normalized_shape,)
    return tuple(int(s) for s in normalized_shape)


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    """Normalise over the last ``len(normalized_shape)`` dimensions (biased variance),
    then scale by ``weight`` and shift by ``bias`` (each of ``normalized_shape``).

    >>> layer_norm(pyad.tensor([[1.0, 3.0]]), (2,))
    tensor([[-1.0000,  1.0000]])
    """
    input, = _real_only("layer_norm", input)
    shape = _normalized_shape(normalized_shape)
    k = len(shape)
    if k == 0 or tuple(input.shape[input.ndim - k:]) != shape or k > input.ndim:
        raise RuntimeError("layer_norm(): normalized_shape %s does not match the last "
                           "dimensions of the input of shape %s"
                           % (shape, tuple(input.shape)))
    for name, p in (("weight", weight), ("bias", bias)):
        if p is not None and tuple(_var(p).shape) != shape:
            raise RuntimeError("layer_norm(): %s of shape %s, expected normalized_shape %s"
                               % (name, tuple(_var(p).shape), shape))
    _norm_dtypes("layer_norm", input, weight, bias)
    x, weight, bias = _in_float32(input, weight, bias)
    dims = tuple(range(x.ndim - k, x.ndim))
    mean = x.mean(dims, keepdim=True)
    centred = x - mean
    var = (centred * centred).mean(dims, keepdim=True)
    out = centred * pyad.rsqrt(var + eps)
    if weight is not None:
        out = out * weight
    if bias is not None:
        out = out + bias
    # (torch's layer_norm result is contiguous whatever the input's layout)
    return _to_input_dtype(out, input).contiguous()


def _no_running_stat_tangents(what, input, running_mean, running_var):
    # torch's batch_norm_jvp: with a forward-mode tangent on the input, the running
    # statistics may not carry one
    from pyad.autograd import forward_ad
    state = forward_ad._level_state
    if state is None or not isinstance(input, Variable) or not forward_ad._depends_on_level(
            input, state):
        return
    for p in (running_mean, running_var):
        if isinstance(p, Variable) and forward_ad._depends_on_level(p, state):
            raise RuntimeError("%s(): batch_norm is not differentiable wrt running_mean and "
                               "running_var, they cannot have forward grad defined" % what)


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False,
               momentum=0.1, eps=1e-5):
    """Normalise each channel (dimension 1) of ``(N, C, ...)`` input. In training, by the
    batch statistics, and ``running_mean``/``running_var`` (when given) are updated in
    place: ``(1 - momentum) * running + momentum * batch`` (the variance unbiased); in
    evaluation, by the running statistics.

    >>> rm, rv = pyad.zeros(2), pyad.ones(2)
    >>> batch_norm(pyad.tensor([[1.0, 2.0], [3.0, 6.0]]), rm, rv, training=True)
    tensor([[-1.0000, -1.0000],
            [ 1.0000,  1.0000]])
    >>> rm
    tensor([0.2000, 0.4000])
    """
    what = "batch_norm"
    input, = _real_only(what, input)
    if input.ndim < 2:
        raise ValueError("%s(): expected an input of at least 2 dimensions (N, C, ...), "
                         "got shape %s" % (what, tuple(input.shape)))
    n_channels = input.shape[1]
    for name, p in (("running_mean", running_mean), ("running_var", running_var),
                    ("weight", weight), ("bias", bias)):
        if p is not None and tuple(_var(p).shape) != (n_channels,):
            raise RuntimeError("%s(): %s must have shape (%d,), got %s"
                               % (what, name, n_channels, tuple(_var(p).shape)))
    _norm_dtypes(what, input, running_mean, running_var, weight, bias)
    _no_running_stat_tangents(what, input, running_mean, running_var)
    for name, p in (("running_mean", running_mean), ("running_var", running_var)):
        if training and p is not None and not isinstance(p, Variable):
            raise TypeError("%s(): %s must be a Variable (it is updated in place), got %s"
                            % (what, name, type(p).__name__))
    dims = (0,) + tuple(range(2, input.ndim))
    view = (1, -1) + (1,) * (input.ndim - 2)
    x, = _in_float32(input)          # (the parameters promote to float32 with it)
    if training:
        count = input.shape[0]
        for d in input.shape[2:]:
            count *= d
        if count == 1:
            raise ValueError("%s(): expected more than 1 value per channel when training, "
                             "got input of shape %s" % (what, tuple(input.shape)))
        if eps <= 0.0:
            # torch 2.13: a zero or negative eps divides by zero on a constant channel
            raise ValueError("%s(): eps must be positive during training, but got %s"
                             % (what, eps))
    if training and count == 0:
        # an empty batch (torch): an empty output, the running statistics left alone, zero
        # gradients for weight and bias
        out = x
    elif training:
        mean = x.mean(dims, keepdim=True)
        centred = x - mean
        var = (centred * centred).mean(dims, keepdim=True)
        with pyad.no_grad():
            if running_mean is not None:
                running_mean.mul_(1 - momentum).add_(mean.detach().reshape(-1) * momentum)
            if running_var is not None:
                unbiased = var.detach().reshape(-1) * (count / (count - 1))
                running_var.mul_(1 - momentum).add_(unbiased * momentum)
        invstd = pyad.rsqrt(var + eps)
        if x is not input and not any(p is not None and _var(p).dtype == _np.float32 for p in
                                      (running_mean, running_var, weight, bias)):
            # torch keeps the batch statistics in the parameters' dtype: without float32
            # parameters, the mean and 1/std of a float16/bfloat16 input are rounded to it
            centred = x - mean.to(input.dtype).float()
            invstd = invstd.to(input.dtype).float()
        out = centred * invstd
    else:
        if running_mean is None or running_var is None:
            raise ValueError("%s(): running_mean and running_var must be given when not "
                             "training" % what)
        out = (x - _var(running_mean).reshape(view)) * pyad.rsqrt(
            _var(running_var).reshape(view) + eps)
    if weight is not None:
        out = out * _var(weight).reshape(view)
    if bias is not None:
        out = out + _var(bias).reshape(view)
    return _fl._in_format_of(_to_input_dtype(out, input), input)


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5):
    """Normalise ``(N, C, ...)`` input over each of ``num_groups`` groups of channels
    (and all the other dimensions but N), then an affine map per channel.

    >>> group_norm(pyad.tensor([[1.0, 3.0, 0.0, 4.0]]), 2)
    tensor([[-1.0000,  1.0000, -1.0000,  1.0000]])
    """
    what = "group_norm"
    input, = _real_only(what, input)
    if input.ndim < 2:
        raise RuntimeError("%s(): expected an input of at least 2 dimensions (N, C, ...), "
                         "got shape %s" % (what, tuple(input.shape)))
    n, c = input.shape[0], input.shape[1]
    if num_groups <= 0 or c % num_groups:
        raise ValueError("%s(): the number of channels (%d) must be divisible by "
                         "num_groups (%d)" % (what, c, num_groups))
    # torch's _verify_batch_size on [N * C // G, G, *spatial]: one value per group
    # leaves nothing to normalise
    if (n * c // num_groups) * int(_np.prod(input.shape[2:])) == 1:
        raise ValueError("%s(): expected more than 1 value per channel when training, got "
                         "input size %s" % (what, [n * c // num_groups, num_groups]
                                            + list(input.shape[2:])))
    for name, p in (("weight", weight), ("bias", bias)):
        if p is not None and tuple(_var(p).shape) != (c,):
            raise RuntimeError("%s(): %s must have shape (%d,), got %s"
                               % (what, name, c, tuple(_var(p).shape)))
    _norm_dtypes(what, input, weight, bias)
    x, weight, bias = _in_float32(input, weight, bias)
    grouped = x.reshape((n, num_groups, (c // num_groups) * int(_np.prod(input.shape[2:]))))
    mean = grouped.mean(2, keepdim=True)
    centred = grouped - mean
    var = (centred * centred).mean(2, keepdim=True)
    out = (centred * pyad.rsqrt(var + eps)).reshape(tuple(input.shape))
    view = (1, -1) + (1,) * (input.ndim - 2)
    if weight is not None:
        out = out * _var(weight).reshape(view)
    if bias is not None:
        out = out + _var(bias).reshape(view)
    return _fl._in_format_of(_to_input_dtype(out, input), input)


def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):
    """``input / max(norm(input, p, dim), eps)``: unit vectors along ``dim``.

    >>> normalize(pyad.tensor([[3.0, 4.0]]))
    tensor([[0.6000, 0.8000]])
    """
    if out is not None:
        raise TypeError("normalize(): the out= argument is not supported")
    input = _var(input)
    denom = pyad.clamp_min(pyad.norm(input, p, dim, keepdim=True), eps)
    return input / denom


def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    """``sum(x1 * x2, dim) / (max(|x1|, eps) * max(|x2|, eps))`` (broadcast first).

    >>> cosine_similarity(pyad.tensor([[1.0, 0.0]]), pyad.tensor([[1.0, 1.0]]))
    tensor([0.7071])
    """
    x1, x2 = _var(x1), _var(x2)
    if _is_complex(x1) or _is_complex(x2):
        raise RuntimeError("cosine_similarity(): expected common dtype to be floating "
                           "point, yet common dtype is %s"
                           % _np.result_type(x1.dtype, x2.dtype))
    common = _np.result_type(x1.dtype, x2.dtype)
    if common.kind not in "fc":
        # as torch: integer inputs compute in the default floating dtype
        common = _np.dtype(pyad.get_default_dtype())
    if x1.dtype != common:
        x1 = x1.to(common)
    if x2.dtype != common:
        x2 = x2.to(common)
    shape = _np.broadcast_shapes(tuple(x1.shape), tuple(x2.shape))
    x1, x2 = pyad.broadcast_to(x1, shape), pyad.broadcast_to(x2, shape)
    n1 = _clamped_norm(x1, dim, eps)
    n2 = _clamped_norm(x2, dim, eps)
    return ((x1 / n1) * (x2 / n2)).sum(dim)


def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    """``norm(x1 - x2 + eps, p)`` over the last dimension (``x1``, ``x2`` broadcast).

    >>> pairwise_distance(pyad.tensor([[0.0, 0.0]]), pyad.tensor([[3.0, 4.0]]), eps=0.0)
    tensor([5.])
    """
    x1, x2 = _var(x1), _var(x2)
    dim = max(x1.ndim, x2.ndim) - 1
    return pyad.norm(x1 - x2 + eps, p, dim, keepdim=keepdim)


def _clamped_norm(x, dim, eps):
    # torch clamps the norm to eps without recording the clamp: the value is clamped,
    # the gradient is the norm's.
    n = pyad.norm(x, 2, dim, keepdim=True)
    nd = n.detach()
    return n + (pyad.clamp_min(nd, eps) - nd)


# ---------------------------------------------------------------------------------
# Embedding
# ---------------------------------------------------------------------------------

def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0,
              scale_grad_by_freq=False, sparse=False):
    """Rows of ``weight`` at the integer indices ``input`` (output shape
    ``input.shape + (embedding_dim,)``). The row ``padding_idx`` gets no gradient;
    ``max_norm`` renormalises the looked-up rows of ``weight`` in place;
    ``scale_grad_by_freq`` divides each row's gradient by its count in ``input``.

    >>> w = pyad.tensor([[0.0, 0.0], [1.0, 2.0]], requires_grad=True)
    >>> embedding(pyad.tensor([1, 1, 0]), w)
    tensor([[1., 2.],
            [1., 2.],
            [0., 0.]], grad_fn=<EmbeddingBackward>)
    """
    what = "embedding"
    if sparse:
        raise NotImplementedError("%s(): sparse gradients are not supported" % what)
    input, weight = _var(input), _var(weight)
    idx = input.data
    if not _int_kind(idx):
        raise RuntimeError("%s(): indices must be an integer Variable, got dtype %s"
                           % (what, idx.dtype))
    if weight.ndim != 2:
        raise RuntimeError("%s(): weight must be 2-d (num_embeddings, embedding_dim), got "
                           "shape %s" % (what, tuple(weight.shape)))
    rows = weight.shape[0]
    if idx.size and bool(((idx < 0) | (idx >= rows)).any()):
        bad = idx[(idx < 0) | (idx >= rows)].ravel()[0]
        raise IndexError("%s(): index %d is out of range for a weight of %d rows"
                         % (what, int(bad), rows))
    if padding_idx is not None:
        if not -rows <= padding_idx < rows:
            raise ValueError("%s(): padding_idx %d must be within the %d rows of weight"
                             % (what, padding_idx, rows))
        padding_idx %= rows
    flat = idx.reshape(-1).astype(_np.int64)
    if max_norm is not None:
        _renorm_rows(weight, flat, max_norm, norm_type)
    out = pyad.index_select(weight, 0, Variable(flat))
    pad_rows = scale = None
    if padding_idx is not None:
        pad_rows = (flat == padding_idx).reshape(-1, 1)
    if scale_grad_by_freq:
        xp = pyad.get_array_module(flat)
        counts = xp.bincount(flat, minlength=rows)[flat] if flat.size else flat
        scale = (1.0 / counts).astype(out.dtype).reshape(-1, 1)
    if (pad_rows is not None or scale is not None) and _forward_ad_active():
        # torch's forward formula is the lookup of the weight's tangent, every row:
        # neither the padding row's zero gradient nor the scaling is part of it, which
        # pyad's forward mode (reverse passes) would give; a Function with a jvp says so
        out = _EmbeddingGradRule.apply(out, pad_rows, scale)
    else:
        if pad_rows is not None:
            out = pyad.where(pad_rows, out.detach(), out)
        if scale is not None:
            # the same values; a gradient scaled by 1 / count
            out = out.detach() + (out - out.detach()) * scale
    return out.reshape(tuple(idx.shape) + (weight.shape[1],))


def _forward_ad_active():
    forward_ad = _sys.modules.get("pyad.autograd.forward_ad")
    return forward_ad is not None and forward_ad._active()


class _EmbeddingGradRule(pyad.autograd.Function):
    """The looked-up rows as they are; backward zeroes the padding rows' gradient
    (``pad_rows``, a column mask, or None) and scales by 1 / count (``scale`` or None);
    forward mode passes the tangent on unchanged (torch's formula)."""

    @staticmethod
    def forward(ctx, out, pad_rows, scale):
        ctx.pad_rows, ctx.scale = pad_rows, scale
        return out.clone()

    @staticmethod
    def backward(ctx, grad):
        if ctx.pad_rows is not None:
            grad = pyad.where(ctx.pad_rows, pyad.zeros_like(grad), grad)
        if ctx.scale is not None:
            grad = grad * ctx.scale
        return grad, None, None

    @staticmethod
    def jvp(ctx, tangent, _pad, _scale):
        return tangent


def _renorm_rows(weight, flat, max_norm, norm_type):
    xp = pyad.get_array_module(flat)
    uniq = xp.unique(flat)
    with pyad.no_grad():
        rows = weight.data[uniq]
        norms = xp.linalg.norm(rows, ord=norm_type, axis=1)
        too_big = norms > max_norm
        if bool(too_big.any()):
            scale = xp.where(too_big, max_norm / (norms + 1e-7), 1.0).astype(weight.dtype)
            weight[Variable(uniq)] = Variable(rows * scale[:, None])


def one_hot(tensor, num_classes=-1):
    """``(..., num_classes)`` int64 array with a 1 at each index of ``tensor``
    (``num_classes=-1``: one more than the largest index).

    >>> one_hot(pyad.tensor([0, 2]))
    tensor([[1, 0, 0],
            [0, 0, 1]])
    """
    what = "one_hot"
    t = _var(tensor).data
    if not _int_kind(t):
        raise TypeError("%s(): expects an integer Variable of class indices, got dtype %s"
                        % (what, t.dtype))
    xp = pyad.get_array_module(t)
    if num_classes == -1:
        if t.size == 0:
            raise RuntimeError("%s(): cannot infer the number of classes from an empty "
                               "tensor" % what)
        num_classes = int(t.max()) + 1
    if t.size and int(t.min()) < 0:
        raise RuntimeError("%s(): class values must be non-negative" % what)
    if t.size and int(t.max()) >= num_classes:
        raise RuntimeError("%s(): class values must be smaller than num_classes (%d)"
                           % (what, num_classes))
    pyad._engine._check_storage_size(tuple(t.shape) + (int(num_classes),), _np.int64, what)
    out = (t[..., None] == xp.arange(num_classes)).astype(xp.int64)
    return Variable(out)


# ---------------------------------------------------------------------------------
# Dropout
# ---------------------------------------------------------------------------------

def dropout(input, p=0.5, training=True, inplace=False):
    """Zero each element with probability ``p`` and scale the rest by ``1 / (1 - p)``
    (in training; otherwise ``input`` itself). Reproducible under ``pyad.manual_seed``.

    >>> _ = pyad.manual_seed(0)
    >>> y = dropout(pyad.ones(1000), 0.5)
    >>> sorted(set(y.tolist()))
    [0.0, 2.0]
    """
    if not 0.0 <= p <= 1.0:
        raise ValueError("dropout(): dropout probability has to be between 0 and 1, "
                         "but got %r" % (p,))
    input = _var(input)
    if not training or p == 0:
        return input
    from pyad._factories import _generator_for
    data = input.data
    xp = pyad.get_array_module(data)
    # the mask is laid out as the input (dense, in the input's order of strides), so the
    # result keeps the input's memory format as torch's (channels_last, a permutation);
    # the draws go to the same logical positions as before
    factor = xp.empty_like(data, order="K")
    if p == 1:
        factor[...] = 0
    else:
        keep = xp.asarray(_generator_for(data).random(data.shape) >= p)
        factor[...] = keep * (1.0 / (1.0 - p))
    return input.mul_(factor) if inplace else input * factor


# 1-D pooling, interpolation, pixel shuffle, channel dropout, instance norm, bilinear and
# attention live in their own file; they are part of this namespace.
from pyad.nn._functional_layers import *  # noqa: E402,F401,F403
from pyad.nn import _functional_layers as _fl  # noqa: E402
__all__ += _fl.__all__

# RMS norm, adaptive max pooling and unpooling, LP pooling, local response norm, channel
# shuffle, alpha dropout, RReLU, the in-place activations, more losses, grids and
# embedding bags live in their own file too.
from pyad.nn._functional_more import *  # noqa: E402,F401,F403
from pyad.nn import _functional_more as _fm  # noqa: E402
__all__ += _fm.__all__

# torch's node names for the ops composed above, whose last recorded op is another one
# (mse_loss's a mean, layer_norm's a mul): the result's node takes the op's name, as
# grad_fn.name() and the Variable's repr show it (wrapped before autocast, so that the
# name lands on the op's own node)
def _named_node(fn, node_name):
    @functools.wraps(fn)
    def op(input, *args, **kwargs):
        return _engine._name_grad_fn(fn(input, *args, **kwargs), input, node_name)
    return op


for _name, _node in (("mse_loss", "MseLossBackward"), ("nll_loss", "NllLossBackward"),
                     ("binary_cross_entropy", "BinaryCrossEntropyBackward"),
                     ("binary_cross_entropy_with_logits",
                      "BinaryCrossEntropyWithLogitsBackward"),
                     ("smooth_l1_loss", "SmoothL1LossBackward"),
                     ("huber_loss", "HuberLossBackward"),
                     ("soft_margin_loss", "SoftMarginLossBackward"),
                     ("multi_margin_loss", "MultiMarginLossBackward"),
                     ("multilabel_margin_loss", "MultilabelMarginLossBackward"),
                     ("layer_norm", "NativeLayerNormBackward"),
                     ("group_norm", "NativeGroupNormBackward"),
                     ("batch_norm", "NativeBatchNormBackward"),
                     ("embedding", "EmbeddingBackward"),
                     ("conv3d", "ConvolutionBackward"),
                     ("conv_transpose1d", "ConvolutionBackward"),
                     ("conv_transpose3d", "ConvolutionBackward")):
    globals()[_name] = _named_node(globals()[_name], _node)
del _node

# torch's autocast lists, for the ops above that autocast can intercept (see
# pyad/amp/autocast_mode.py): wrapped last, so the modules' F.<op> calls go through them
from pyad.amp.autocast_mode import _autocast_op  # noqa: E402
for _name in ("linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
              "conv_transpose3d",
              "prelu", "scaled_dot_product_attention"):
    globals()[_name] = _autocast_op(globals()[_name], "lower")
for _name in ("mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss", "cross_entropy",
              "nll_loss", "kl_div", "binary_cross_entropy", "binary_cross_entropy_with_logits",
              "margin_ranking_loss", "hinge_embedding_loss", "soft_margin_loss",
              "triplet_margin_loss", "poisson_nll_loss", "cosine_embedding_loss",
              "multi_margin_loss", "multilabel_margin_loss", "ctc_loss", "grid_sample",
              "max_pool3d", "avg_pool3d", "adaptive_avg_pool3d"):
    globals()[_name] = _autocast_op(globals()[_name], "fp32")
del _name
