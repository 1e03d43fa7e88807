"""torch's top-level neural-network functions (``torch.dropout``, ``torch.layer_norm``,
``torch.embedding``, ...), with torch's top-level signatures, which often differ from
``torch.nn.functional``'s: ``dropout(input, p, train)`` takes its ``train`` flag
positionally and has no defaults; ``batch_norm`` takes ``weight`` and ``bias`` before the
running statistics; ``embedding(weight, indices, padding_idx=-1)`` takes the weight
first (a negative ``padding_idx`` means none); the losses take the reduction as torch's
integer enum (0 none, 1 mean, 2 sum) and, as torch's do when it is left out, reduce
nothing by default; ``adaptive_max_pool1d`` returns
``(values, indices)``. Each is built on its ``pyad.nn.functional`` counterpart, so the
gradients (of any order) are that function's.

>>> import pyad
>>> x = pyad.tensor([[1.0, 3.0], [2.0, 6.0]])
>>> pyad.layer_norm(x, (2,))
tensor([[-1.0000,  1.0000],
        [-1.0000,  1.0000]])
>>> pyad.dropout(x, 0.5, False) is x
True
>>> pyad.kl_div(x.log(), x, 2).item() == 0.0
True
"""
import numbers
import warnings

import numpy as _np

from pyad._porting import _is_float
from pyad import _engine
from pyad.autograd import Function as _Function
from pyad.autograd.grad_mode import no_grad as _no_grad
from pyad.nn import functional as _F

__all__ = [
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
]

_Variable = _engine.Variable


# ---------------------------------------------------------------------------------
# Argument checks: torch's top-level functions are parsed by its C++ argument parser,
# which refuses what the Python F.* functions let through (a list for a tensor, an int
# for a bool, a string for a reduction) with a TypeError naming the argument.
# ---------------------------------------------------------------------------------

def _tensor(what, name, pos, x):
    if not isinstance(x, _Variable):
        raise TypeError("%s(): argument '%s' (position %d) must be Variable, not %s"
                        % (what, name, pos, type(x).__name__))
    return x


def _opt_tensor(what, name, pos, x):
    return None if x is None else _tensor(what, name, pos, x)


def _float(what, name, pos, x):
    if isinstance(x, _Variable) and x.ndim == 0 and not x.requires_grad:
        return float(x.item())
    if not isinstance(x, numbers.Real):            # (a bool is a float to torch)
        raise TypeError("%s(): argument '%s' (position %d) must be float, not %s"
                        % (what, name, pos, type(x).__name__))
    return float(x)


def _bool(what, name, pos, x):
    if not isinstance(x, bool):                    # (torch refuses numpy.bool_ too)
        raise TypeError("%s(): argument '%s' (position %d) must be bool, not %s"
                        % (what, name, pos, type(x).__name__))
    return bool(x)


def _int(what, name, pos, x):
    if not isinstance(x, numbers.Integral) or isinstance(x, (bool, _np.bool_)):
        raise TypeError("%s(): argument '%s' (position %d) must be int, not %s"
                        % (what, name, pos, type(x).__name__))
    return int(x)


def _ints(what, name, pos, x):
    if isinstance(x, numbers.Integral) and not isinstance(x, (bool, _np.bool_)):
        return int(x)
    if not isinstance(x, (tuple, list)) or not all(
            isinstance(v, numbers.Integral) and not isinstance(v, (bool, _np.bool_))
            for v in x):
        raise TypeError("%s(): argument '%s' (position %d) must be tuple of ints, not %s"
                        % (what, name, pos, type(x).__name__))
    return tuple(int(v) for v in x)


def _int_list(what, name, pos, x):
    # the arguments torch declares as int[] with no single-int form
    if isinstance(x, numbers.Integral) and not isinstance(x, (bool, _np.bool_)):
        raise TypeError("%s(): argument '%s' (position %d) must be tuple of ints, not int"
                        % (what, name, pos))
    return _ints(what, name, pos, x)


_REDUCTION_NAMES = {0: "none", 1: "mean", 2: "sum"}


def _reduction(what, pos, reduction):
    # torch's at::Reduction enum; any other int reduces nothing, as torch's kernels. (The
    # defaults are 0: torch declares ``reduction=at::Reduction::Mean``, but its Python
    # argument parser reads that default as 0, so torch.kl_div(x, y) etc. do not reduce.)
    return _REDUCTION_NAMES.get(_int(what, "reduction", pos, reduction), "none")


def _reduce(loss, reduction):
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    return loss


def _loss_none(fn, *args, **kwargs):
    # F's loss with reduction='none' (no F-level warnings), reduced by the caller
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, reduction="none", **kwargs)


# ---------------------------------------------------------------------------------
# Dropout
# ---------------------------------------------------------------------------------

def _dropout_args(what, input, p, train):
    input = _tensor(what, "input", 1, input)
    p = _float(what, "p", 2, p)
    train = _bool(what, "train", 3, train)
    if not 0.0 <= p <= 1.0:
        raise RuntimeError("%s(): dropout probability has to be between 0 and 1, but got %r"
                           % (what, p))
    if p == 0 or not train or input.numel() == 0:
        return input, p, False
    if p == 1:
        return input, p, True
    if not _engine._is_floating_or_complex(_np.dtype(input.dtype)):
        raise RuntimeError("%s(): result type Float can't be cast to the desired output "
                           "type %s" % (what, input.dtype))
    return input, p, True


def _zeroed(input, inplace):
    # torch's p == 1: input * 0 (NaN stays NaN), in the input's dtype, any rank
    zero = _engine.get_array_module(input.data).zeros((), dtype=input.dtype)
    return input.mul_(zero) if inplace else input * zero


def _feature_ndim(what, input):
    if input.ndim < 2:
        raise RuntimeError("%s(): Feature dropout requires at least 2 dimensions in the input"
                           % what)


def dropout(input, p, train):
    """``torch.dropout``: zero each element with probability ``p`` and scale the rest by
    ``1 / (1 - p)`` when ``train`` (all three arguments required; ``input`` itself when
    not training, ``p == 0`` or empty). See :func:`pyad.nn.functional.dropout`.

    >>> x = pyad.ones(4)
    >>> dropout(x, 0.5, False) is x
    True
    """
    input, p, active = _dropout_args("dropout", input, p, train)
    if active and p == 1:
        return _zeroed(input, False)
    return _F.dropout(input, p, True) if active else input


def dropout_(input, p, train):
    """In-place ``torch.dropout_``: ``input`` multiplied in place by the dropout mask, and
    returned."""
    input, p, active = _dropout_args("dropout_", input, p, train)
    if active and p == 1:
        return _zeroed(input, True)
    return _F.dropout(input, p, True, True) if active else input


def alpha_dropout(input, p, train):
    """``torch.alpha_dropout`` (see :func:`pyad.nn.functional.alpha_dropout`), with
    ``train`` required."""
    input, p, active = _dropout_args("alpha_dropout", input, p, train)
    if active and p == 1:
        return _zeroed(input, False)
    return _F.alpha_dropout(input, p, True) if active else input


def alpha_dropout_(input, p, train):
    """In-place ``torch.alpha_dropout_``."""
    input, p, active = _dropout_args("alpha_dropout_", input, p, train)
    if active and p == 1:
        return _zeroed(input, True)
    return _F.alpha_dropout(input, p, True, True) if active else input


def _feature_dropout(what, input, p, train, inplace):
    input, p, active = _dropout_args(what, input, p, train)
    if not active:
        return input
    if p == 1:
        return _zeroed(input, inplace)
    _feature_ndim(what, input)
    from pyad.nn._functional_layers import _feature_dropout as impl
    return impl(input, p, True, inplace, what)


def feature_dropout(input, p, train):
    """``torch.feature_dropout``: one draw per entry of the first two dimensions, broadcast
    over the rest (the input needs at least 2 dimensions when training)."""
    return _feature_dropout("feature_dropout", input, p, train, False)


def feature_dropout_(input, p, train):
    """In-place ``torch.feature_dropout_``."""
    return _feature_dropout("feature_dropout_", input, p, train, True)


def _feature_alpha_dropout(what, input, p, train, inplace):
    input, p, active = _dropout_args(what, input, p, train)
    if not active:
        return input
    if p == 1:
        return _zeroed(input, inplace)
    _feature_ndim(what, input)
    from pyad.nn._functional_more import _alpha_dropout
    return _alpha_dropout(input, p, True, inplace, True, what)


def feature_alpha_dropout(input, p, train):
    """``torch.feature_alpha_dropout``: `alpha_dropout` of whole channels."""
    return _feature_alpha_dropout("feature_alpha_dropout", input, p, train, False)


def feature_alpha_dropout_(input, p, train):
    """In-place ``torch.feature_alpha_dropout_``."""
    return _feature_alpha_dropout("feature_alpha_dropout_", input, p, train, True)


# ---------------------------------------------------------------------------------
# Normalisation
# ---------------------------------------------------------------------------------

def _floating_norm_input(what, input):
    # torch's norm kernels have no integer (or bool) version
    if not _is_float(_np.dtype(input.dtype)):
        raise NotImplementedError("%s(): not implemented for '%s'" % (what, input.dtype))


def _channels(what, input):
    if input.ndim < 2:
        raise IndexError("%s(): Dimension out of range (expected to be in range of [-1, 0], "
                         "but got 1)" % what)
    return input.shape[1]


def batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps,
               cudnn_enabled):
    """``torch.batch_norm``: all nine arguments required, ``weight`` and ``bias`` before
    the running statistics (``F.batch_norm`` puts them after). ``cudnn_enabled`` is
    accepted and ignored."""
    what = "batch_norm"
    input = _tensor(what, "input", 1, input)
    _floating_norm_input(what, input)
    params = [_opt_tensor(what, n, i + 2, p) for i, (n, p) in enumerate(
        (("weight", weight), ("bias", bias), ("running_mean", running_mean),
         ("running_var", running_var)))]
    training = _bool(what, "training", 6, training)
    momentum = _float(what, "momentum", 7, momentum)
    eps = _float(what, "eps", 8, eps)
    _bool(what, "cudnn_enabled", 9, cudnn_enabled)
    c = _channels(what, input)
    for name, p in zip(("weight", "bias", "running_mean", "running_var"), params):
        if p is not None and p.numel() != c:
            raise RuntimeError("%s(): %s should contain %d elements not %d"
                               % (what, name, c, p.numel()))
    if not training and (running_mean is None or running_var is None):
        raise RuntimeError("%s(): running_mean must be defined in evaluation mode" % what)
    if training and input.numel() <= c:
        # at most one value per channel: torch normalises anyway (F.batch_norm refuses)
        return _few_values_norm(input, (0,) + tuple(range(2, input.ndim)), weight, bias,
                                running_mean, running_var, momentum, eps, 1)
    return _F.batch_norm(input, running_mean, running_var, weight, bias, training, momentum,
                         eps)


def instance_norm(input, weight, bias, running_mean, running_var, use_input_stats,
                  momentum, eps, cudnn_enabled):
    """``torch.instance_norm``: all nine arguments required, ``weight`` and ``bias`` before
    the running statistics."""
    what = "instance_norm"
    input = _tensor(what, "input", 1, input)
    _floating_norm_input(what, input)
    for i, (n, p) in enumerate((("weight", weight), ("bias", bias),
                                ("running_mean", running_mean),
                                ("running_var", running_var))):
        _opt_tensor(what, n, i + 2, p)
    use_input_stats = _bool(what, "use_input_stats", 6, use_input_stats)
    momentum = _float(what, "momentum", 7, momentum)
    eps = _float(what, "eps", 8, eps)
    _bool(what, "cudnn_enabled", 9, cudnn_enabled)
    if not use_input_stats and (running_mean is None or running_var is None):
        raise RuntimeError("%s(): Expected running_mean and running_var to be defined when "
                           "use_input_stats is false" % what)
    _channels(what, input)
    if use_input_stats and input.numel() <= input.shape[0] * input.shape[1]:
        # one value per instance and channel ((N, C) or (N, C, 1, ...)): torch normalises
        # anyway (F.instance_norm refuses)
        return _few_values_norm(input, tuple(range(2, input.ndim)), weight, bias,
                                running_mean, running_var, momentum, eps, input.shape[0])
    return _F.instance_norm(input, running_mean, running_var, weight, bias, use_input_stats,
                            momentum, eps)


def _few_values_norm(input, dims, weight, bias, running_mean, running_var, momentum, eps,
                     instances):
    """torch's batch (or instance) norm where each channel has at most one value: the
    output is ``bias`` (0 without one) and the gradient is 0, from the same composition;
    the running mean moves towards the batch mean, the running variance becomes NaN (its
    unbiased estimate is 0/0); an empty batch leaves the running statistics alone."""
    from pyad.nn.functional import _norm_dtypes, _to_input_dtype
    _norm_dtypes("batch_norm", input, weight, bias)
    c = input.shape[1]
    view = (1, -1) + (1,) * (input.ndim - 2)
    if dims:
        mean = input.mean(dims, keepdim=True)
        centred = input - mean
        var = (centred * centred).mean(dims, keepdim=True)
    else:                                # (N, C) instance norm: each value alone
        mean, centred = input, input - input
        var = centred * centred
    out = centred * (var + eps).rsqrt()
    if input.numel() and (running_mean is not None or running_var is not None):
        with _no_grad():
            if running_mean is not None:
                batch = mean.detach().reshape(instances, c).mean(0)
                running_mean.mul_(1 - momentum).add_(batch.to(running_mean.dtype) * momentum)
            if running_var is not None:
                running_var.fill_(float("nan"))
    if weight is not None:
        out = out * weight.reshape(view)
    if bias is not None:
        out = out + bias.reshape(view)
    return _to_input_dtype(out, input)


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-05, cudnn_enable=True):
    """``torch.layer_norm`` (``normalized_shape`` a tuple or list of ints; ``cudnn_enable``
    is accepted and ignored). See :func:`pyad.nn.functional.layer_norm`."""
    what = "layer_norm"
    input = _tensor(what, "input", 1, input)
    _floating_norm_input(what, input)
    shape = _int_list(what, "normalized_shape", 2, normalized_shape)
    _opt_tensor(what, "weight", 3, weight)
    _opt_tensor(what, "bias", 4, bias)
    eps = _float(what, "eps", 5, eps)
    _bool(what, "cudnn_enable", 6, cudnn_enable)
    return _F.layer_norm(input, shape, weight, bias, eps)


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-05, cudnn_enabled=True):
    """``torch.group_norm`` (``cudnn_enabled`` is accepted and ignored). See
    :func:`pyad.nn.functional.group_norm`."""
    what = "group_norm"
    input = _tensor(what, "input", 1, input)
    _floating_norm_input(what, input)
    num_groups = _int(what, "num_groups", 2, num_groups)
    _opt_tensor(what, "weight", 3, weight)
    _opt_tensor(what, "bias", 4, bias)
    eps = _float(what, "eps", 5, eps)
    _bool(what, "cudnn_enabled", 6, cudnn_enabled)
    c = _channels(what, input)
    if num_groups <= 0:
        raise RuntimeError("%s(): Expected num groups to be greater than 0, got %d"
                           % (what, num_groups))
    if c % num_groups:
        raise RuntimeError("%s(): Expected number of channels in input to be divisible by "
                           "num_groups, but got input of shape %s and num_groups=%d"
                           % (what, list(input.shape), num_groups))
    return _F.group_norm(input, num_groups, weight, bias, eps)


def rms_norm(input, normalized_shape, weight=None, eps=None):
    """``torch.rms_norm`` (``eps=None``: the dtype's machine epsilon). See
    :func:`pyad.nn.functional.rms_norm`."""
    what = "rms_norm"
    input = _tensor(what, "input", 1, input)
    _floating_norm_input(what, input)
    shape = _int_list(what, "normalized_shape", 2, normalized_shape)
    _opt_tensor(what, "weight", 3, weight)
    if eps is not None:
        eps = _float(what, "eps", 4, eps)
    return _F.rms_norm(input, shape, weight, eps)


# ---------------------------------------------------------------------------------
# Embedding
# ---------------------------------------------------------------------------------

def embedding(weight, indices, padding_idx=-1, scale_grad_by_freq=False, sparse=False):
    """``torch.embedding``: the rows of ``weight`` (first) at ``indices``; the row
    ``padding_idx`` gets no gradient, and a negative ``padding_idx`` (default ``-1``)
    means none, as torch's (``F.embedding`` wraps a negative index instead).

    >>> w = pyad.tensor([[0.0, 0.0], [1.0, 2.0]])
    >>> embedding(w, pyad.tensor([1, 0]))
    tensor([[1., 2.],
            [0., 0.]])
    """
    what = "embedding"
    weight = _tensor(what, "weight", 1, weight)
    indices = _tensor(what, "indices", 2, indices)
    padding_idx = _int(what, "padding_idx", 3, padding_idx)
    scale_grad_by_freq = _bool(what, "scale_grad_by_freq", 4, scale_grad_by_freq)
    sparse = _bool(what, "sparse", 5, sparse)
    if weight.ndim != 2:
        raise RuntimeError("%s(): 'weight' must be 2-D" % what)
    if _np.dtype(indices.dtype).kind not in "iu":
        raise RuntimeError("%s(): Expected Variable for argument #1 'indices' to have one of "
                           "the following scalar types: Long, Int; but got %s"
                           % (what, indices.dtype))
    rows = weight.shape[0]
    pad = padding_idx if 0 <= padding_idx < rows else None
    return _F.embedding(indices, weight, pad, None, 2.0, scale_grad_by_freq, sparse)


# ---------------------------------------------------------------------------------
# Convolution
# ---------------------------------------------------------------------------------

def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """``torch.conv3d``: :func:`pyad.nn.functional.conv3d`."""
    return _F.conv3d(input, weight, bias, stride, padding, dilation, groups)


def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0,
                     groups=1, dilation=1):
    """``torch.conv_transpose1d``: :func:`pyad.nn.functional.conv_transpose1d`."""
    return _F.conv_transpose1d(input, weight, bias, stride, padding, output_padding, groups,
                               dilation)


def conv_transpose3d(input, weight, bias=None, stride=1, padding=0, output_padding=0,
                     groups=1, dilation=1):
    """``torch.conv_transpose3d``: :func:`pyad.nn.functional.conv_transpose3d`."""
    return _F.conv_transpose3d(input, weight, bias, stride, padding, output_padding, groups,
                               dilation)


def convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding,
                groups):
    """``torch.convolution``: the 1-, 2- or 3-d convolution (``transposed``: the transposed
    one) chosen by ``weight``'s rank; every argument required, ``stride``, ``padding``,
    ``dilation`` and ``output_padding`` as lists of ints."""
    what = "convolution"
    input = _tensor(what, "input", 1, input)
    weight = _tensor(what, "weight", 2, weight)
    _opt_tensor(what, "bias", 3, bias)
    stride = _int_list(what, "stride", 4, stride)
    padding = _int_list(what, "padding", 5, padding)
    dilation = _int_list(what, "dilation", 6, dilation)
    transposed = _bool(what, "transposed", 7, transposed)
    output_padding = _int_list(what, "output_padding", 8, output_padding)
    groups = _int(what, "groups", 9, groups)
    n = weight.ndim - 2
    if n not in (1, 2, 3):
        raise RuntimeError("%s(): expected a weight of 3, 4 or 5 dimensions, got %d"
                           % (what, weight.ndim))

    def spread(v):
        return v[0] if len(v) == 1 else v

    stride, padding, dilation, output_padding = (
        spread(v) for v in (stride, padding, dilation, output_padding))
    if transposed:
        fn = (_F.conv_transpose1d, _F.conv_transpose2d, _F.conv_transpose3d)[n - 1]
        return fn(input, weight, bias, stride, padding, output_padding, groups, dilation)
    fn = (_F.conv1d, _F.conv2d, _F.conv3d)[n - 1]
    return fn(input, weight, bias, stride, padding, dilation, groups)


class _NoDerivative(_Function):
    """Passes ``out`` through, recorded on ``input``, with a backward that refuses, as
    torch's ops without a derivative formula do."""

    @staticmethod
    def forward(ctx, input, out):
        return out.clone()

    @staticmethod
    def backward(ctx, grad):
        raise RuntimeError("native_channel_shuffle(): derivative for native_channel_shuffle "
                           "is not implemented")


# ---------------------------------------------------------------------------------
# Shuffles, distances
# ---------------------------------------------------------------------------------

def pixel_shuffle(input, upscale_factor):
    """``torch.pixel_shuffle``: :func:`pyad.nn.functional.pixel_shuffle`."""
    return _F.pixel_shuffle(_tensor("pixel_shuffle", "input", 1, input), upscale_factor)


def pixel_unshuffle(input, downscale_factor):
    """``torch.pixel_unshuffle``: :func:`pyad.nn.functional.pixel_unshuffle`."""
    return _F.pixel_unshuffle(_tensor("pixel_unshuffle", "input", 1, input), downscale_factor)


def channel_shuffle(input, groups):
    """``torch.channel_shuffle``: :func:`pyad.nn.functional.channel_shuffle`."""
    return _F.channel_shuffle(_tensor("channel_shuffle", "input", 1, input), groups)


def native_channel_shuffle(input, groups):
    """``torch.native_channel_shuffle``: the values of `channel_shuffle`; as torch's, it
    has no derivative (a backward pass through it raises ``RuntimeError``)."""
    what = "native_channel_shuffle"
    input = _tensor(what, "input", 1, input)
    try:
        with _no_grad():
            out = _F.channel_shuffle(input.detach(), groups)
    except RuntimeError as exc:
        raise RuntimeError(str(exc).replace("channel_shuffle()", what + "()", 1)) from None
    if _engine.is_grad_enabled() and input.requires_grad:
        return _NoDerivative.apply(input, out)
    return out


def cosine_similarity(x1, x2, dim=1, eps=1e-08):
    """``torch.cosine_similarity``: :func:`pyad.nn.functional.cosine_similarity`."""
    what = "cosine_similarity"
    _broadcastable(what, x1, x2)
    return _F.cosine_similarity(_tensor(what, "x1", 1, x1), _tensor(what, "x2", 2, x2),
                                _int(what, "dim", 3, dim), _float(what, "eps", 4, eps))


def _broadcastable(what, a, b):
    if isinstance(a, _Variable) and isinstance(b, _Variable):
        try:
            _np.broadcast_shapes(tuple(a.shape), tuple(b.shape))
        except ValueError:
            raise RuntimeError("%s(): the shapes %s and %s cannot be broadcast together"
                               % (what, list(a.shape), list(b.shape))) from None


def pairwise_distance(x1, x2, p=2, eps=1e-06, keepdim=False):
    """``torch.pairwise_distance``: :func:`pyad.nn.functional.pairwise_distance`."""
    what = "pairwise_distance"
    return _F.pairwise_distance(_tensor(what, "x1", 1, x1), _tensor(what, "x2", 2, x2),
                                _float(what, "p", 3, p), _float(what, "eps", 4, eps),
                                _bool(what, "keepdim", 5, keepdim))


def pdist(input, p=2):
    """``torch.pdist``: :func:`pyad.nn.functional.pdist`."""
    what = "pdist"
    input = _tensor(what, "input", 1, input)
    if input.ndim != 2:
        raise RuntimeError("%s(): pdist only supports 2D Variables, got: %dD" % (what, input.ndim))
    return _F.pdist(input, _float(what, "p", 2, p))


# ---------------------------------------------------------------------------------
# Activations
# ---------------------------------------------------------------------------------

def _elu_input(what, input):
    input = _tensor(what, "input", 1, input)
    if not _is_float(_np.dtype(input.dtype)):
        raise NotImplementedError("%s(): \"elu\" not implemented for '%s'"
                                  % (what, input.dtype))
    return input


def celu(input, alpha=1.0):
    """``torch.celu``: :func:`pyad.nn.functional.celu`."""
    return _F.celu(_elu_input("celu", input), _float("celu", "alpha", 2, alpha))


def celu_(input, alpha=1.0):
    """In-place ``torch.celu_``."""
    return _F.celu(_elu_input("celu_", input), _float("celu_", "alpha", 2, alpha),
                   True)


def selu(input):
    """``torch.selu``: :func:`pyad.nn.functional.selu`."""
    return _F.selu(_elu_input("selu", input))


def selu_(input):
    """In-place ``torch.selu_``."""
    return _F.selu(_elu_input("selu_", input), True)


def _rrelu(what, input, lower, upper, training, generator, inplace):
    input = _tensor(what, "input", 1, input)
    if not _is_float(_np.dtype(input.dtype)):
        raise NotImplementedError("%s(): \"rrelu\" not implemented for '%s'"
                                  % (what, input.dtype))
    lower = _float(what, "lower", 2, lower)
    upper = _float(what, "upper", 3, upper)
    training = _bool(what, "training", 4, training)
    if generator is None or not training:
        return _F.rrelu(input, lower, upper, training, inplace)
    # draw from the given generator: F.rrelu draws from the default one
    from pyad._factories import _rng_for
    if not _is_float(_np.dtype(input.dtype)):
        raise RuntimeError("%s(): expected a floating-point Variable, got %s"
                           % (what, input.dtype))
    if lower > upper:
        raise RuntimeError("%s(): Lower bound should be less than or equal to the upper "
                           "bound" % what)
    data = input.data
    xp = _engine.get_array_module(data)
    rng = _rng_for(xp, generator, what)
    slope = xp.asarray(rng.uniform(lower, upper, data.shape))
    noise = xp.where(data <= 0, slope, 1).astype(data.dtype)
    return input.mul_(noise) if inplace else input * noise


def rrelu(input, lower=0.125, upper=0.3333333333333333, training=False, generator=None):
    """``torch.rrelu`` (note ``training=False`` by default, and the optional
    ``generator``). See :func:`pyad.nn.functional.rrelu`."""
    return _rrelu("rrelu", input, lower, upper, training, generator, False)


def rrelu_(input, lower=0.125, upper=0.3333333333333333, training=False, generator=None):
    """In-place ``torch.rrelu_``."""
    return _rrelu("rrelu_", input, lower, upper, training, generator, True)


def threshold(input, threshold, value):
    """``torch.threshold``: ``input`` where ``input > threshold``, else ``value``."""
    what = "threshold"
    input = _tensor(what, "input", 1, input)
    if input.dtype == _np.bool_:
        raise NotImplementedError("%s(): \"threshold\" not implemented for 'Bool'" % what)
    threshold, value = _scalars_like(what, input, threshold, value)
    return _F.threshold(input, threshold, value)


def threshold_(input, threshold, value):
    """In-place ``torch.threshold_``."""
    what = "threshold_"
    input = _tensor(what, "input", 1, input)
    if input.dtype == _np.bool_:
        raise NotImplementedError("%s(): \"threshold\" not implemented for 'Bool'" % what)
    threshold, value = _scalars_like(what, input, threshold, value)
    return _F.threshold(input, threshold, value, True)


def _scalars_like(what, input, threshold, value):
    # torch casts both scalars to the input's dtype: an integer input stays integer
    threshold = _real_number(what, "threshold", 2, threshold)
    value = _real_number(what, "value", 3, value)
    if _np.dtype(input.dtype).kind in "iu":
        threshold, value = (int(v.item()) if isinstance(v, _Variable) else int(v)
                            for v in (threshold, value))
    return threshold, value


def _real_number(what, name, pos, x):
    if isinstance(x, _Variable) and x.ndim == 0:
        return x
    if not isinstance(x, numbers.Number):
        raise TypeError("%s(): argument '%s' (position %d) must be Number, not %s"
                        % (what, name, pos, type(x).__name__))
    return x


# ---------------------------------------------------------------------------------
# Losses: the reduction as torch's int enum (0 none, 1 mean, 2 sum)
# ---------------------------------------------------------------------------------

def kl_div(input, target, reduction=0, *, log_target=False):
    """``torch.kl_div``: ``reduction`` an int (0 none, the default as in torch; 1 the plain
    mean, without the warning ``F.kl_div`` gives; 2 the sum; there is no
    ``'batchmean'``), ``log_target`` keyword-only. See :func:`pyad.nn.functional.kl_div`."""
    what = "kl_div"
    input = _tensor(what, "input", 1, input)
    target = _tensor(what, "target", 2, target)
    reduction = _reduction(what, 3, reduction)
    log_target = _bool(what, "log_target", 4, log_target)
    return _reduce(_loss_none(_F.kl_div, input, target, log_target=log_target), reduction)


def binary_cross_entropy_with_logits(input, target, weight=None, pos_weight=None,
                                     reduction=0):
    """``torch.binary_cross_entropy_with_logits``: ``pos_weight`` before ``reduction``
    (an int). See :func:`pyad.nn.functional.binary_cross_entropy_with_logits`."""
    what = "binary_cross_entropy_with_logits"
    input = _tensor(what, "input", 1, input)
    target = _tensor(what, "target", 2, target)
    _opt_tensor(what, "weight", 3, weight)
    _opt_tensor(what, "pos_weight", 4, pos_weight)
    reduction = _reduction(what, 5, reduction)
    _F._not_differentiable(what, "weight", weight)      # as torch's derivatives.yaml
    _F._not_differentiable(what, "pos_weight", pos_weight)
    if tuple(input.shape) != tuple(target.shape):
        # torch's kernel writes into a result shaped like the target: the input may
        # broadcast to it, nothing else (F.* refuses any difference with ValueError)
        try:
            shape = _np.broadcast_shapes(tuple(input.shape), tuple(target.shape))
        except ValueError:
            shape = None
        if shape != tuple(target.shape):
            raise RuntimeError("%s(): output with shape %s doesn't match the broadcast "
                               "shape %s" % (what, list(target.shape),
                                             list(shape or input.shape)))
        input = _engine.broadcast_to(input, shape)
    return _reduce(_loss_none(_F.binary_cross_entropy_with_logits, input, target, weight,
                              pos_weight=pos_weight), reduction)


def hinge_embedding_loss(input, target, margin=1.0, reduction=0):
    """``torch.hinge_embedding_loss`` (``reduction`` an int)."""
    what = "hinge_embedding_loss"
    input = _tensor(what, "input", 1, input)
    target = _tensor(what, "target", 2, target)
    margin = _float(what, "margin", 3, margin)
    reduction = _reduction(what, 4, reduction)
    return _reduce(_loss_none(_F.hinge_embedding_loss, input, target, margin), reduction)


def margin_ranking_loss(input1, input2, target, margin=0.0, reduction=0):
    """``torch.margin_ranking_loss`` (``reduction`` an int)."""
    what = "margin_ranking_loss"
    input1 = _tensor(what, "input1", 1, input1)
    input2 = _tensor(what, "input2", 2, input2)
    target = _tensor(what, "target", 3, target)
    margin = _float(what, "margin", 4, margin)
    reduction = _reduction(what, 5, reduction)
    # torch's composite: max(0, -target * (input1 - input2) + margin), broadcast (F's
    # equal-ndim check is in torch's Python F only)
    loss = _engine.clamp_min(-target * (input1 - input2) + margin, 0)
    return _reduce(loss, reduction)


def cosine_embedding_loss(input1, input2, target, margin=0.0, reduction=0):
    """``torch.cosine_embedding_loss`` (``reduction`` an int)."""
    what = "cosine_embedding_loss"
    input1 = _tensor(what, "input1", 1, input1)
    input2 = _tensor(what, "input2", 2, input2)
    target = _tensor(what, "target", 3, target)
    margin = _float(what, "margin", 4, margin)
    reduction = _reduction(what, 5, reduction)
    return _reduce(_loss_none(_F.cosine_embedding_loss, input1, input2, target, margin),
                   reduction)


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-06, swap=False,
                        reduction=0):
    """``torch.triplet_margin_loss`` (``reduction`` an int)."""
    what = "triplet_margin_loss"
    anchor = _tensor(what, "anchor", 1, anchor)
    positive = _tensor(what, "positive", 2, positive)
    negative = _tensor(what, "negative", 3, negative)
    margin = _float(what, "margin", 4, margin)
    p = _float(what, "p", 5, p)
    eps = _float(what, "eps", 6, eps)
    swap = _bool(what, "swap", 7, swap)
    reduction = _reduction(what, 8, reduction)
    _F._same_ndim(what, anchor=anchor, positive=positive, negative=negative)
    # torch's composite (any margin, F refuses margin <= 0)
    d_pos = _F.pairwise_distance(anchor, positive, p, eps)
    d_neg = _F.pairwise_distance(anchor, negative, p, eps)
    if swap:
        d_neg = _engine.minimum(d_neg, _F.pairwise_distance(positive, negative, p, eps))
    return _reduce(_engine.clamp_min(margin + d_pos - d_neg, 0), reduction)


def poisson_nll_loss(input, target, log_input, full, eps, reduction):
    """``torch.poisson_nll_loss``: every argument required, ``reduction`` an int."""
    what = "poisson_nll_loss"
    input = _tensor(what, "input", 1, input)
    target = _tensor(what, "target", 2, target)
    log_input = _bool(what, "log_input", 3, log_input)
    full = _bool(what, "full", 4, full)
    eps = _float(what, "eps", 5, eps)
    reduction = _reduction(what, 6, reduction)
    return _reduce(_loss_none(_F.poisson_nll_loss, input, target, log_input, full, eps=eps),
                   reduction)


def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction=0,
             zero_infinity=False):
    """``torch.ctc_loss`` (``reduction`` an int, 0 by default as torch's; 1, the mean,
    divides each loss by its target length first, as ``F.ctc_loss``'s ``'mean'``)."""
    what = "ctc_loss"
    log_probs = _tensor(what, "log_probs", 1, log_probs)
    targets = _tensor(what, "targets", 2, targets)
    blank = _int(what, "blank", 5, blank)
    reduction = _reduction(what, 6, reduction)
    zero_infinity = _bool(what, "zero_infinity", 7, zero_infinity)
    return _F.ctc_loss(log_probs, targets, input_lengths, target_lengths, blank, reduction,
                       zero_infinity)


# ---------------------------------------------------------------------------------
# Pooling, padding, bilinear
# ---------------------------------------------------------------------------------

def _stride(stride):
    # torch's default stride=[] (and None): the kernel size
    if stride is None or (isinstance(stride, (tuple, list)) and len(stride) == 0):
        return None
    return stride


def max_pool1d(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    """``torch.max_pool1d`` (an empty ``stride``: the kernel size)."""
    return _F.max_pool1d(_tensor("max_pool1d", "input", 1, input), kernel_size,
                         _stride(stride), padding, dilation, ceil_mode)


def max_pool3d(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    """``torch.max_pool3d`` (an empty ``stride``: the kernel size)."""
    return _F.max_pool3d(_tensor("max_pool3d", "input", 1, input), kernel_size,
                         _stride(stride), padding, dilation, ceil_mode)


def max_pool1d_with_indices(input, kernel_size, stride=(), padding=0, dilation=1,
                            ceil_mode=False):
    """``torch.max_pool1d_with_indices``: ``(values, indices)``."""
    return tuple(_F.max_pool1d(_tensor("max_pool1d_with_indices", "input", 1, input),
                               kernel_size, _stride(stride), padding, dilation, ceil_mode,
                               True))


def avg_pool1d(input, kernel_size, stride=(), padding=0, ceil_mode=False,
               count_include_pad=True):
    """``torch.avg_pool1d`` (an empty ``stride``: the kernel size)."""
    return _F.avg_pool1d(_tensor("avg_pool1d", "input", 1, input), kernel_size,
                         _stride(stride), padding, ceil_mode, count_include_pad)


def adaptive_avg_pool1d(input, output_size):
    """``torch.adaptive_avg_pool1d``: :func:`pyad.nn.functional.adaptive_avg_pool1d`."""
    return _F.adaptive_avg_pool1d(_tensor("adaptive_avg_pool1d", "input", 1, input),
                                  output_size)


def adaptive_max_pool1d(input, output_size):
    """``torch.adaptive_max_pool1d``: ``(values, indices)``, always (the F function returns
    the indices only when asked)."""
    return tuple(_F.adaptive_max_pool1d(_tensor("adaptive_max_pool1d", "input", 1, input),
                                        output_size, True))


def constant_pad_nd(input, pad, value=0):
    """``torch.constant_pad_nd``: pad (or, with negative amounts, crop) the last
    ``len(pad) // 2`` dimensions with ``value``, as ``F.pad(input, pad, 'constant',
    value)``.

    >>> constant_pad_nd(pyad.tensor([1.0, 2.0]), (1, 0), 9.0)
    tensor([9., 1., 2.])
    """
    what = "constant_pad_nd"
    input = _tensor(what, "input", 1, input)
    pad = _int_list(what, "pad", 2, pad)
    _real_number(what, "value", 3, value)
    if len(pad) % 2:
        raise RuntimeError("%s(): Length of pad must be even but instead it equals %d"
                           % (what, len(pad)))
    return _engine.pad(input, pad, "constant", value)


def bilinear(input1, input2, weight, bias=None):
    """``torch.bilinear``: :func:`pyad.nn.functional.bilinear`."""
    what = "bilinear"
    dtypes = [t.dtype for t in (input1, input2, weight, bias) if isinstance(t, _Variable)]
    if len(set(dtypes)) > 1:
        raise RuntimeError("%s(): All Variables must have the same dtype, got %s"
                           % (what, ", ".join(str(d) for d in dtypes)))
    return _F.bilinear(_tensor(what, "input1", 1, input1), _tensor(what, "input2", 2, input2),
                       _tensor(what, "weight", 3, weight), _opt_tensor(what, "bias", 4, bias))
