"""Still more of ``torch.nn.functional``: RMS norm, adaptive max pooling and unpooling,
LP pooling, local response norm, channel shuffle, alpha and 3-D dropout, RReLU, the
in-place activations, the multi-label and distance-triplet losses, Gumbel-softmax,
``pdist``, ``affine_grid``/``grid_sample``, ``embedding_bag`` and ``conv_transpose1d``.

All are compositions of differentiable pyad ops (so they differentiate twice and more);
where an op chooses among entries (the max pools, nearest sampling) the choice is made
on the arrays and the chosen entries are gathered, so the gradient goes where torch
sends it. ``pyad.nn.functional`` re-exports them.
"""
import math
import numbers
import warnings

import numpy as _np

from pyad._porting import _is_float
import pyad
from pyad import _engine
from pyad._engine import Variable, conv_transpose2d

__all__ = [
    "conv_tbc", "rms_norm", "adaptive_max_pool1d", "adaptive_max_pool2d",
    "adaptive_max_pool1d_with_indices", "adaptive_max_pool2d_with_indices",
    "max_pool1d_with_indices", "max_pool2d_with_indices", "max_unpool1d", "max_unpool2d",
    "local_response_norm", "lp_pool1d", "lp_pool2d", "lp_pool3d", "channel_shuffle", "alpha_dropout",
    "feature_alpha_dropout", "dropout3d", "rrelu", "rrelu_", "relu_", "elu_",
    "leaky_relu_", "hardtanh_", "selu_", "celu_", "threshold_",
    "multilabel_margin_loss", "multilabel_soft_margin_loss",
    "triplet_margin_with_distance_loss", "gumbel_softmax", "pdist", "affine_grid",
    "grid_sample", "upsample_nearest", "upsample_bilinear", "embedding_bag",
    "conv_transpose1d", "ctc_loss", "conv3d", "conv_transpose3d", "max_pool3d", "max_pool3d_with_indices",
    "avg_pool3d", "adaptive_avg_pool3d", "fractional_max_pool2d", "fractional_max_pool3d",
    "fractional_max_pool2d_with_indices", "fractional_max_pool3d_with_indices",
    "adaptive_max_pool3d", "adaptive_max_pool3d_with_indices", "max_unpool3d",
]


def _F():
    from pyad.nn import functional
    return functional


def _var(x):
    return x if isinstance(x, Variable) else pyad.as_tensor(x)


def _xp(x):
    return pyad.get_array_module(x.data)


def _host(array):
    # a NumPy copy of a CuPy array (the CTC recursions run on the host), NumPy as it is
    return array.get() if hasattr(array, "get") and not isinstance(array, _np.ndarray) \
        else _np.asarray(array)


def _tuple(x, n, what, name):
    if isinstance(x, (tuple, list)):
        if len(x) != n:
            raise RuntimeError("%s(): %s must be an int or a %d-tuple, got %r"
                               % (what, name, n, x))
        return tuple(x)
    return (x,) * n


# ---------------------------------------------------------------------------------
# Normalisation
# ---------------------------------------------------------------------------------

def rms_norm(input, normalized_shape, weight=None, eps=None):
    """Root-mean-square normalisation over the trailing ``normalized_shape`` dims:
    ``x / sqrt(mean(x ** 2) + eps) * weight`` (``eps`` defaults to the dtype's machine
    epsilon), as ``F.rms_norm``.

    >>> rms_norm(pyad.tensor([[3.0, 4.0]]), (2,), eps=0.0)
    tensor([[0.8485, 1.1314]])
    """
    input = _var(input)
    if not isinstance(normalized_shape, (tuple, list)):
        raise TypeError("rms_norm(): argument 'normalized_shape' (position 2) must be tuple "
                        "of ints, not %s" % type(normalized_shape).__name__)
    shape = tuple(normalized_shape)
    n = len(shape)
    if n == 0 or input.dim() < n or tuple(input.shape[input.dim() - n:]) != shape:
        raise RuntimeError("rms_norm(): Given normalized_shape=%s, expected input with shape "
                           "[*, %s], but got input of size%s"
                           % (list(shape), ", ".join(str(s) for s in shape),
                              list(input.shape)))
    if weight is not None and tuple(weight.shape) != shape:
        raise RuntimeError("rms_norm(): Expected weight to be of same shape as "
                           "normalized_shape, but got weight of shape %s and "
                           "normalized_shape = %s" % (list(weight.shape), list(shape)))
    if not _is_float(_np.dtype(input.dtype)):
        raise RuntimeError("rms_norm(): expected a floating-point Variable, got %s"
                           % (input.dtype,))
    if eps is None:
        eps = float(_np.finfo(input.dtype).eps)
    dims = tuple(range(input.dim() - n, input.dim()))
    out = input * pyad.rsqrt((input * input).mean(dim=dims, keepdim=True) + eps)
    return out if weight is None else out * weight


def local_response_norm(input, size, alpha=1e-4, beta=0.75, k=1.0):
    """Normalise each entry by the activity of its ``size`` neighbouring channels:
    ``x / (k + alpha * mean(x ** 2 over the window)) ** beta`` (``F.local_response_norm``).

    >>> local_response_norm(pyad.ones(1, 3, 1), 2, alpha=1.0, beta=1.0, k=1.0)
    tensor([[[0.6667],
             [0.5000],
             [0.5000]]])
    """
    input = _var(input)
    dim = input.dim()
    if dim < 3:
        raise ValueError("local_response_norm(): Expected 3D or higher dimensionality input "
                         "(got %d dimensions)" % dim)
    if input.numel() == 0:
        return input
    sq = input * input
    c = input.shape[1]
    widths = [(0, 0)] * dim
    widths[1] = (size // 2, (size - 1) // 2)
    flat_pad = []
    for lo, hi in reversed(widths):
        flat_pad += [lo, hi]
    padded = pyad.pad(sq, tuple(flat_pad))
    window = padded.narrow(1, 0, c)
    for j in range(1, size):
        window = window + padded.narrow(1, j, c)
    div = (window * (alpha / size) + k) ** beta
    return input / div


# ---------------------------------------------------------------------------------
# Pooling
# ---------------------------------------------------------------------------------

def _choose_max(flat, cells, what):
    # flat: (..., L) Variable; cells: (P, K) int array of flat positions per output cell
    # (short cells padded with their first position). The max is chosen on the arrays
    # (the first of equal values; a NaN wins, the last one, as in torch's scan) and the
    # chosen entries gathered.
    xp = _xp(flat)
    data = flat.data
    cells = xp.asarray(cells)
    lead = data.shape[:-1]
    if cells.shape[0] == 0 or data.size == 0:
        pos = xp.zeros(lead + (cells.shape[0],), dtype=_np.int64)
    else:
        vals = data[..., cells]                           # (..., P, K)
        if vals.dtype.kind == "f":
            nan = xp.isnan(vals)
            last_nan = nan.shape[-1] - 1 - xp.argmax(nan[..., ::-1], -1)
            pick = xp.where(nan.any(-1), last_nan, xp.argmax(vals, -1))
        else:
            pick = xp.argmax(vals, -1)
        pos = xp.take_along_axis(xp.broadcast_to(cells, lead + cells.shape),
                                 pick[..., None], -1)[..., 0].astype(_np.int64)
    if not flat.dim():
        return flat, pos
    # (torch's max-pooling formulas take the input: a create_graph gradient depends on it)
    return _engine._grad_depends_on(pyad.gather(flat, flat.dim() - 1, pos), flat), pos


def _adaptive_cells_3d(bounds, ks, sizes, o):
    # (P, K) flat positions of every output cell's window, t-major then h then w, short
    # windows padded with their first position (a loop over the cells, built at once:
    # an output of millions of cells took minutes cell by cell)
    idx, ok = [], []
    for d in range(3):
        start = _np.asarray(bounds[d][0], dtype=_np.int64)
        end = _np.asarray(bounds[d][1], dtype=_np.int64)
        taps = start[:, None] + _np.arange(ks[d], dtype=_np.int64)[None, :]
        idx.append(taps)
        ok.append(taps < end[:, None])
    t = idx[0][:, None, None, :, None, None]
    h = idx[1][None, :, None, None, :, None]
    w = idx[2][None, None, :, None, None, :]
    pos = (t * sizes[1] + h) * sizes[2] + w
    valid = (ok[0][:, None, None, :, None, None] & ok[1][None, :, None, None, :, None]
             & ok[2][None, None, :, None, None, :])
    n_cells, k = int(_np.prod(o)), int(_np.prod(ks))
    pos = _np.broadcast_to(pos, tuple(o) + tuple(ks)).reshape(n_cells, k)
    valid = _np.broadcast_to(valid, tuple(o) + tuple(ks)).reshape(n_cells, k)
    cells = _np.array(pos, dtype=_np.int64, copy=True)
    short = _np.flatnonzero(~valid.all(1))                 # windows with padding
    if short.size:
        order = _np.argsort(~valid[short], axis=1, kind="stable")   # real taps first
        moved = _np.take_along_axis(cells[short], order, 1)
        kept = _np.take_along_axis(valid[short], order, 1)
        cells[short] = _np.where(kept, moved, moved[:, :1])
    return cells


def _adaptive_cells(size, out):
    starts = [(i * size) // out for i in range(out)]
    ends = [-((-(i + 1) * size) // out) for i in range(out)]
    return starts, ends


def _adaptive_dim_check(input, n, what):
    # torch's F.adaptive_*_pool{2,3}d expand output_size against input.size() first and
    # raise ValueError when the input has no room for the N spatial dims and a channel dim
    if input.dim() < n + 1:
        raise ValueError("%s(): Input dimension should be at least %d" % (what, n + 1))


def _adaptive_float_check(input, what, kernel=None):
    # torch's adaptive pooling kernels are floating-point only:
    # NotImplementedError '"adaptive_max_pool2d" not implemented for 'Long''
    # (bfloat16 -- an ml_dtypes void-kind dtype in NumPy -- is floating for torch too)
    if _np.dtype(input.dtype).kind not in "fc" and _np.dtype(input.dtype).name != "bfloat16":
        from pyad._porting import _TORCH_NAMES
        name = _TORCH_NAMES.get(_np.dtype(input.dtype).name, str(input.dtype))
        raise NotImplementedError('%s(): "%s" not implemented for \'%s\''
                                  % (what, kernel or what, name))


def _adaptive_nonempty_check(input, n, what):
    # torch checks every dimension after the first (the channel one too) is non-empty
    for d in range(1, input.dim()):
        if input.shape[d] == 0:
            raise RuntimeError("%s(): Expected input to have non-zero size for non-batch "
                               "dimensions, but input has sizes %s with dimension %d being "
                               "empty" % (what, list(input.shape), d))


def _adaptive_empty_output_guard(out, n, what):
    # torch raises in the backward of an adaptive pooling whose output has an empty
    # non-batch dimension (output_size 0); as torch, every dimension after the first
    if out.requires_grad and any(out.shape[d] == 0 for d in range(1, out.dim())):
        def _refuse(grad):
            raise RuntimeError("%s(): Expected grad_output to have non-zero size for "
                               "non-batch dimensions, but grad_output has sizes %s"
                               % (what, list(grad.shape)))
        out.register_hook(_refuse)
    return out


def adaptive_max_pool2d_with_indices(input, output_size, return_indices=False):
    """`adaptive_max_pool2d` that returns ``(output, indices)``."""
    what = "adaptive_max_pool2d"
    input = _var(input)
    _adaptive_dim_check(input, 2, what)
    if input.dim() not in (3, 4):
        raise RuntimeError("%s(): Expected a 3D or 4D Variable, but got: %s"
                           % (what, list(input.shape)))
    _adaptive_float_check(input, what)
    _adaptive_nonempty_check(input, 2, what)
    h, w = input.shape[input.dim() - 2:]
    if any(s == 0 for s in input.shape[input.dim() - 2:]):
        raise RuntimeError("%s(): Expected input to have non-zero size for non-batch "
                           "dimensions, but input has sizes %s with dimension %d being empty"
                           % (what, list(input.shape), input.dim() - 2 if h == 0
                              else input.dim() - 1))
    oh, ow = _tuple(output_size, 2, what, "output_size")
    oh = h if oh is None else int(oh)
    ow = w if ow is None else int(ow)
    if oh < 0 or ow < 0:
        raise RuntimeError("%s(): output_size must be non-negative, got %s"
                           % (what, (oh, ow)))
    n_out = int(_np.prod(input.shape[:input.dim() - 2], dtype=object)) * oh * ow
    if n_out > _np.iinfo(_np.int64).max:
        # torch: the int64 element count overflows and the allocation is refused
        raise RuntimeError("%s(): output_size %s is too large: the output would have %d "
                           "elements, more than int64 can count" % (what, (oh, ow), n_out))
    hs, he = _adaptive_cells(h, oh)
    ws, we = _adaptive_cells(w, ow)
    kh = max([e - s for s, e in zip(hs, he)] or [1])
    kw = max([e - s for s, e in zip(ws, we)] or [1])
    cells = _np.empty((oh * ow, kh * kw), dtype=_np.int64)
    for i in range(oh):
        for j in range(ow):
            rows = list(range(hs[i], he[i]))
            cols = list(range(ws[j], we[j]))
            pos = [r * w + c for r in rows for c in cols]
            cells[i * ow + j] = pos + [pos[0]] * (kh * kw - len(pos))
    flat = input.reshape(tuple(input.shape[:input.dim() - 2]) + (h * w,))
    out, pos = _choose_max(flat, cells, what)
    shape = tuple(input.shape[:input.dim() - 2]) + (oh, ow)
    # the result and its indices in the input's memory format (torch's kernel writes
    # channels_last for a channels_last input)
    from pyad.nn._functional_layers import _in_format_of
    out = _adaptive_empty_output_guard(_in_format_of(out.reshape(shape), input), 2, what)
    return out, _in_format_of(pyad.Variable(pos.reshape(shape)), input)


def adaptive_max_pool2d(input, output_size, return_indices=False):
    """2-D adaptive max pooling to ``output_size`` over ``(N, C, H, W)`` or ``(C, H, W)``
    (``F.adaptive_max_pool2d``); with ``return_indices`` also the flat ``H * W`` index
    of each maximum (for `max_unpool2d`). The gradient goes to the first maximum.

    >>> adaptive_max_pool2d(pyad.arange(16.0).reshape(1, 4, 4), 2)
    tensor([[[ 5.,  7.],
             [13., 15.]]])
    """
    out, idx = adaptive_max_pool2d_with_indices(input, output_size)
    return (out, idx) if return_indices else out


def adaptive_max_pool1d_with_indices(input, output_size, return_indices=False):
    """`adaptive_max_pool1d` that returns ``(output, indices)``."""
    input = _var(input)
    if input.dim() not in (2, 3):
        raise RuntimeError("adaptive_max_pool1d(): Expected a 2D or 3D Variable, but got: %s"
                           % (list(input.shape),))
    _adaptive_float_check(input, "adaptive_max_pool1d", "adaptive_max_pool2d")
    _adaptive_nonempty_check(input, 1, "adaptive_max_pool1d")
    size = output_size[0] if isinstance(output_size, (tuple, list)) else output_size
    out, idx = adaptive_max_pool2d_with_indices(input.unsqueeze(-2), (1, size))
    return out.squeeze(-2), idx.squeeze(-2)


def adaptive_max_pool1d(input, output_size, return_indices=False):
    """1-D adaptive max pooling over ``(N, C, L)`` or ``(C, L)`` (``F.adaptive_max_pool1d``).

    >>> adaptive_max_pool1d(pyad.tensor([[1.0, 3.0, 2.0, 0.0, 5.0]]), 2)
    tensor([[3., 5.]])
    """
    out, idx = adaptive_max_pool1d_with_indices(input, output_size)
    return (out, idx) if return_indices else out


def max_pool2d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False, return_indices=False):
    """`max_pool2d` that returns ``(output, indices)``, as ``F.max_pool2d_with_indices``."""
    return _F().max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


def max_pool1d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False, return_indices=False):
    """`max_pool1d` that returns ``(output, indices)``, as ``F.max_pool1d_with_indices``."""
    return _F().max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


def _unpool_size(input, kernel_size, stride, padding, output_size, n, what):
    k = _tuple(kernel_size, n, what, "kernel_size")
    s = k if stride is None or (isinstance(stride, (tuple, list)) and not stride) \
        else _tuple(stride, n, what, "stride")
    p = _tuple(padding, n, what, "padding")
    spatial = tuple(input.shape[input.dim() - n:])
    default = tuple((spatial[d] - 1) * s[d] - 2 * p[d] + k[d] for d in range(n))
    if output_size is None:
        return default
    output_size = tuple(output_size)
    if len(output_size) == n + 2:
        output_size = output_size[2:]
    if len(output_size) != n:
        raise ValueError("%s(): output_size should be a sequence containing %d or %d "
                         "elements, but it has a length of '%d'"
                         % (what, n, n + 2, len(output_size)))
    for d in range(n):
        lo = default[d] - s[d]
        hi = default[d] + s[d]
        if not lo < output_size[d] < hi:
            raise ValueError('%s(): invalid output_size "%s" (dim %d must be between %d and '
                             '%d)' % (what, output_size, d, lo, hi))
    return tuple(int(o) for o in output_size)


# the most elements a pooling op here makes before refusing (numpy's MemoryError, or a
# Python loop over the cells, otherwise)
_MAX_OUTPUT_ELEMENTS = 1 << 31


def _output_size_guard(what, shape, noun="an output of sizes"):
    total = 1
    for v in shape:
        total *= int(v)
    if total > _MAX_OUTPUT_ELEMENTS:
        raise RuntimeError("%s(): can't allocate memory: %s %s would hold %d elements (more "
                           "than %d)" % (what, noun, [int(v) for v in shape], total,
                                         _MAX_OUTPUT_ELEMENTS))


def _max_unpool(input, indices, size, what, n):
    input = _var(input)
    indices = _var(indices)
    if input.dim() not in (n + 1, n + 2):
        raise RuntimeError("%s(): Expected %dD or %dD input, got %dD"
                           % (what, n + 1, n + 2, input.dim()))
    if tuple(indices.shape) != tuple(input.shape):
        raise RuntimeError("%s(): Expected shape of indices to be same as that of the input "
                           "tensor (%s) but got indices tensor with shape: %s"
                           % (what, list(input.shape), list(indices.shape)))
    if _np.dtype(indices.dtype).kind not in "iu":
        raise RuntimeError("%s(): elements in indices should be type int64 but got: %s"
                           % (what, indices.dtype))
    lead = tuple(input.shape[:input.dim() - n])
    total = int(_np.prod(size))
    per = int(_np.prod(input.shape[input.dim() - n:]))
    idx = indices.data.reshape(lead + (per,)).astype(_np.int64)
    if idx.size and (int(idx.min()) < 0 or int(idx.max()) >= total):
        bad = int(idx.min()) if int(idx.min()) < 0 else int(idx.max())
        raise RuntimeError("%s(): Found an invalid max index: %d (output volumes are of size "
                           "%s)" % (what, bad, "x".join(str(s) for s in size)))
    _output_size_guard(what, lead + tuple(size))
    xp = _xp(input)
    base = pyad.Variable(xp.zeros(lead + (total,), dtype=input.data.dtype))
    out = pyad.scatter(base, len(lead), idx, input.reshape(lead + (per,)))
    # torch's kernel writes its result in the input's memory format (channels_last too)
    from pyad.nn._functional_layers import _in_format_of
    return _in_format_of(out.reshape(lead + tuple(size)), input)


def max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """The partial inverse of `max_pool2d`: each value put back at its ``indices`` (flat
    ``H * W`` positions), zeros elsewhere (``F.max_unpool2d``).

    >>> out, idx = pyad.nn.functional.max_pool2d(pyad.arange(16.0).reshape(1, 4, 4), 2,
    ...                                          return_indices=True)
    >>> max_unpool2d(out, idx, 2)
    tensor([[[ 0.,  0.,  0.,  0.],
             [ 0.,  5.,  0.,  7.],
             [ 0.,  0.,  0.,  0.],
             [ 0., 13.,  0., 15.]]])
    """
    input = _var(input)
    size = _unpool_size(input, kernel_size, stride, padding, output_size, 2, "max_unpool2d")
    return _max_unpool(input, indices, size, "max_unpool2d", 2)


def max_unpool1d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """The partial inverse of `max_pool1d` (``F.max_unpool1d``).

    >>> max_unpool1d(pyad.tensor([[3.0, 5.0]]), pyad.tensor([[1, 3]]), 2)
    tensor([[0., 3., 0., 5.]])
    """
    input = _var(input)
    size = _unpool_size(input, kernel_size, stride, padding, output_size, 1, "max_unpool1d")
    return _max_unpool(input, indices, size, "max_unpool1d", 1)


def _lp_scale(out, norm_type, area):
    return (pyad.sign(out) * pyad.relu(pyad.abs(out))).mul(area).pow(1.0 / norm_type)


def lp_pool2d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """Power-average pooling: ``(sum over the window of x ** p) ** (1 / p)``, as
    ``F.lp_pool2d`` (written as torch writes it, through `avg_pool2d`).

    >>> lp_pool2d(pyad.tensor([[[3.0, 4.0]]]), 2, (1, 2))
    tensor([[[5.]]])
    """
    return _lp_pool(2, input, norm_type, kernel_size, stride, ceil_mode)


def _lp_pool(n, input, norm_type, kernel_size, stride, ceil_mode):
    # lp_pool2d/3d as torch writes them: the norm_type-th root of the window's average of
    # x ** norm_type times its size; +-inf: the max (min) of |x|
    input = _var(input)
    sizes = _tuple(kernel_size, n, "lp_pool%dd" % n, "kernel_size")
    max_pool = _F().max_pool2d if n == 2 else _F().max_pool3d
    avg_pool = _F().avg_pool2d if n == 2 else _F().avg_pool3d
    if norm_type in (math.inf, -math.inf):
        sign = 1 if norm_type > 0 else -1
        return sign * max_pool(sign * input.abs(), kernel_size, stride, 0, 1, ceil_mode)
    if stride is not None:
        out = avg_pool(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    else:
        out = avg_pool(input.pow(norm_type), kernel_size, padding=0, ceil_mode=ceil_mode)
    return _lp_scale(out, norm_type, int(_np.prod(sizes)))


def lp_pool3d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """3-D power-average pooling (``F.lp_pool3d``, written as torch writes it, through
    `avg_pool3d`).

    >>> lp_pool3d(pyad.tensor([[[[[3.0, 4.0]]]]]), 2, (1, 1, 2))
    tensor([[[[[5.]]]]])
    """
    return _lp_pool(3, input, norm_type, kernel_size, stride, ceil_mode)


def lp_pool1d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """1-D power-average pooling (``F.lp_pool1d``).

    >>> lp_pool1d(pyad.tensor([[3.0, 4.0]]), 2, 2)
    tensor([[5.]])
    """
    input = _var(input)
    if norm_type in (math.inf, -math.inf):      # torch's: the max (min) of |x|
        sign = 1 if norm_type > 0 else -1
        return sign * _F().max_pool1d(sign * input.abs(), kernel_size, stride, 0, 1,
                                      ceil_mode)
    if stride is not None:
        out = _F().avg_pool1d(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    else:
        out = _F().avg_pool1d(input.pow(norm_type), kernel_size, padding=0,
                              ceil_mode=ceil_mode)
    k = kernel_size[0] if isinstance(kernel_size, (tuple, list)) else kernel_size
    return _lp_scale(out, norm_type, k)


# ---------------------------------------------------------------------------------
# Shuffling, dropout, RReLU
# ---------------------------------------------------------------------------------

def channel_shuffle(input, groups):
    """Split the channels (dim 1) into ``groups`` and interleave them
    (``F.channel_shuffle``).

    >>> channel_shuffle(pyad.arange(4.0).reshape(1, 4, 1), 2).flatten()
    tensor([0., 2., 1., 3.])
    """
    input = _var(input)
    if isinstance(groups, bool) or not isinstance(groups, numbers.Integral):
        raise TypeError("channel_shuffle(): argument 'groups' must be int, not %s"
                        % type(groups).__name__)
    if input.dim() < 3:
        raise RuntimeError("channel_shuffle(): channel_shuffle expects input to have at least "
                           "3 dimensions, but got input with %d dimension(s)" % input.dim())
    if groups <= 0:
        raise RuntimeError("channel_shuffle(): Number of groups to divide channels in must be "
                           "positive. Value of groups:%d" % groups)
    c = input.shape[1]
    if c % groups:
        raise RuntimeError("channel_shuffle(): Number of channels must be divisible by groups. "
                           "Got %d channels and %d groups." % (c, groups))
    n = input.shape[0]
    rest = tuple(input.shape[2:])
    return (input.reshape((n, groups, c // groups) + rest).transpose(1, 2)
            .reshape(tuple(input.shape)))


_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946
_ALPHA_PRIME = 1.7580993408473766           # -SELU_SCALE * SELU_ALPHA, torch's constant


def _alpha_dropout(input, p, training, inplace, feature, what):
    if not 0.0 <= p <= 1.0:
        raise ValueError("dropout probability has to be between 0 and 1, but got %r" % (p,))
    input = _var(input)
    if p == 0 or not training or input.numel() == 0:
        return input
    data = input.data
    xp = _xp(input)
    if p == 1:
        zero = xp.zeros((), dtype=data.dtype)
        return input.mul_(zero) if inplace else input * zero
    if feature:
        if input.dim() < 2:
            raise RuntimeError("%s(): Feature dropout requires at least 2 dimensions in the "
                               "input" % what)
        shape = tuple(data.shape[:2]) + (1,) * (input.dim() - 2)
    else:
        shape = data.shape
    from pyad._factories import _generator_for
    keep = xp.asarray(_generator_for(data).random(shape) < 1 - p).astype(data.dtype)
    a = 1.0 / math.sqrt((_ALPHA_PRIME ** 2 * p + 1) * (1 - p))
    b = ((keep - 1) * (_ALPHA_PRIME * a) + _ALPHA_PRIME * a * p).astype(data.dtype)
    scale = (keep * a).astype(data.dtype)
    if inplace:
        return input.mul_(scale).add_(b)
    return input * scale + b


def alpha_dropout(input, p=0.5, training=False, inplace=False):
    """Dropout for SELU networks: dropped entries are set to SELU's negative saturation and
    the result rescaled so mean and variance are kept (``F.alpha_dropout``; note torch's
    default ``training=False``).

    >>> x = pyad.ones(3)
    >>> alpha_dropout(x, 0.5) is x
    True
    """
    return _alpha_dropout(input, p, training, inplace, False, "alpha_dropout")


def feature_alpha_dropout(input, p=0.5, training=False, inplace=False):
    """`alpha_dropout` of whole channels (dims 0 and 1 choose the mask, as torch's
    ``F.feature_alpha_dropout``).

    >>> x = pyad.ones(2, 3, 4)
    >>> feature_alpha_dropout(x, 0.5) is x
    True
    """
    return _alpha_dropout(input, p, training, inplace, True, "feature_alpha_dropout")


def dropout3d(input, p=0.5, training=True, inplace=False):
    """Zero whole channels of ``(N, C, D, H, W)`` / ``(C, D, H, W)`` input with
    probability ``p`` (``F.dropout3d``).

    >>> _ = pyad.manual_seed(0)
    >>> y = dropout3d(pyad.ones(1, 6, 2, 2, 2))
    >>> v = y.data.reshape(6, 8)
    >>> bool(((v == 0).all(1) | (v == 2).all(1)).all())
    True
    """
    from pyad.nn._functional_layers import _channel_dropout
    input = _var(input)
    if input.dim() not in (4, 5):
        warnings.warn("dropout3d: Received a %d-D input to dropout3d, which is deprecated and "
                      "will result in an error in a future release. To retain the behavior "
                      "and silence this warning, please use dropout instead. Note that "
                      "dropout3d exists to provide channel-wise dropout on inputs with 3 "
                      "spatial dimensions, a channel dimension, and an optional batch "
                      "dimension (i.e. 4D or 5D inputs)." % input.dim())
        # torch treats any other rank as unbatched: unsqueeze(0), drop along the new
        # first two dimensions, squeeze(0) -- one draw per entry of dimension 0
        from pyad.nn._functional_layers import _feature_dropout
        mask_shape = tuple(input.shape[:1]) + (1,) * (input.dim() - 1)
        return _feature_dropout(input, p, training, inplace, "dropout3d", mask_shape)
    return _channel_dropout(input, p, training, inplace, "dropout3d", 5)


def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, inplace=False):
    """Randomized leaky ReLU: in training each entry ``<= 0`` is multiplied by a slope drawn
    from U(lower, upper); in evaluation the slope is ``(lower + upper) / 2`` (``F.rrelu``).

    >>> rrelu(pyad.tensor([-3.0, 2.0]), 0.25, 0.75)
    tensor([-1.5000,  2.0000])
    """
    input = _var(input)
    if not _is_float(_np.dtype(input.dtype)):
        # torch: '"leaky_relu_cpu" not implemented for 'Long'' (NotImplementedError)
        raise NotImplementedError("rrelu(): not implemented for %s (expected a "
                                  "floating-point Variable)" % (input.dtype,))
    if lower > upper:
        raise RuntimeError("rrelu(): Lower bound should be less than or equal to the upper "
                           "bound (got lower=%s, upper=%s)" % (lower, upper))
    if not training:
        return _F().leaky_relu(input, (lower + upper) / 2, inplace)
    from pyad._factories import _generator_for
    data = input.data
    xp = _xp(input)
    slope = xp.asarray(_generator_for(data).uniform(lower, upper, data.shape))
    noise = xp.where(data <= 0, slope, 1).astype(data.dtype)
    return input.mul_(noise) if inplace else input * noise


def rrelu_(input, lower=1.0 / 8, upper=1.0 / 3, training=False):
    """In-place `rrelu`."""
    return rrelu(input, lower, upper, training, True)


def relu_(input):
    """In-place `relu` (``F.relu_``)."""
    return _F().relu(input, inplace=True)


def elu_(input, alpha=1.0):
    """In-place `elu` (``F.elu_``)."""
    return _F().elu(input, alpha, inplace=True)


def leaky_relu_(input, negative_slope=0.01):
    """In-place `leaky_relu` (``F.leaky_relu_``)."""
    return _F().leaky_relu(input, negative_slope, inplace=True)


def hardtanh_(input, min_val=-1.0, max_val=1.0):
    """In-place `hardtanh` (``F.hardtanh_``)."""
    return _F().hardtanh(input, min_val, max_val, inplace=True)


def selu_(input):
    """In-place `selu` (``F.selu_``)."""
    return _F().selu(input, inplace=True)


def celu_(input, alpha=1.0):
    """In-place `celu` (``F.celu_``)."""
    return _F().celu(input, alpha, inplace=True)


def threshold_(input, threshold, value):
    """In-place `threshold` (``F.threshold_``)."""
    return _F().threshold(input, threshold, value, inplace=True)


# ---------------------------------------------------------------------------------
# Losses
# ---------------------------------------------------------------------------------

def _reduce(loss, reduction, what):
    if reduction == "none":
        return loss
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    raise ValueError("%s(): %s is not a valid value for reduction" % (what, reduction))


def _legacy_reduction(what, size_average, reduce, reduction):
    if size_average is None and reduce is None:
        return reduction
    from pyad.nn.functional import _reduction
    return _reduction(what, size_average, reduce, reduction)


def multilabel_margin_loss(input, target, size_average=None, reduce=None,
                           reduction="mean"):
    """Multi-class multi-label hinge loss (``F.multilabel_margin_loss``): ``target`` holds
    each sample's class indices, ended by the first ``-1``; the loss sums
    ``max(0, 1 - (x[y] - x[i])) / C`` over its targets ``y`` and non-targets ``i``.

    >>> multilabel_margin_loss(pyad.tensor([[0.1, 0.2, 0.4, 0.8]]),
    ...                        pyad.tensor([[3, 0, -1, 1]]))
    tensor(0.8500)
    """
    what = "multilabel_margin_loss"
    reduction = _legacy_reduction(what, size_average, reduce, reduction)
    input = _var(input)
    target = _var(target)
    if input.dim() in (1, 2) and input.shape[-1] == 0:
        # torch: an empty vector, or a matrix of empty rows, is refused first
        raise RuntimeError("%s(): Expected non-empty vector or matrix with optional 0-dim "
                           "batch size, but got: %s" % (what, list(input.shape)))
    if input.dim() > 2 or tuple(target.shape) != tuple(input.shape):
        raise RuntimeError("%s(): inconsistent target size: %s for input of size: %s"
                           % (what, list(target.shape), list(input.shape)))
    if _np.dtype(target.dtype).kind not in "iu":
        raise RuntimeError("%s(): expected target of an integer dtype, got %s"
                           % (what, target.dtype))
    unbatched = input.dim() < 2
    x = input.reshape(1, -1) if unbatched else input
    t = target.data.reshape(x.shape).astype(_np.int64)
    n, c = x.shape
    xp = _xp(x)
    t = xp.asarray(t)
    if t.size and (int(t.max()) >= c or int(t.min()) < -1):
        raise RuntimeError("%s(): target index out of bounds for %d classes" % (what, c))
    valid = xp.cumprod(t != -1, axis=1).astype(bool)          # before the first -1
    is_target = xp.zeros((n, c), dtype=bool)
    rows = xp.broadcast_to(xp.arange(n)[:, None], (n, c))
    is_target[rows[valid], t[valid]] = True
    safe = xp.where(valid, t, 0)
    xt = pyad.gather(x, 1, safe)                              # (n, c): x[y_j]
    pair = 1 - xt.unsqueeze(2) + x.unsqueeze(1)               # (n, j, i)
    mask = (valid[:, :, None] & ~is_target[:, None, :]).astype(x.data.dtype)
    loss = (pyad.relu(pair) * mask).sum(dim=(1, 2)) / c if c else x.sum(dim=1) * 0
    if unbatched:
        loss = loss.reshape(())
    return _reduce(loss, reduction, what)


def multilabel_soft_margin_loss(input, target, weight=None, size_average=None, reduce=None,
                                reduction="mean"):
    """One-versus-all logistic loss over the classes (``F.multilabel_soft_margin_loss``):
    ``-mean_c(y log sigmoid(x) + (1 - y) log sigmoid(-x))`` per sample.

    >>> multilabel_soft_margin_loss(pyad.tensor([[0.0, 0.0]]), pyad.tensor([[1.0, 0.0]]))
    tensor(0.6931)
    """
    what = "multilabel_soft_margin_loss"
    reduction = _legacy_reduction(what, size_average, reduce, reduction)
    input = _var(input)
    target = _var(target)
    loss = -(target * _F().logsigmoid(input) + (1 - target) * _F().logsigmoid(-input))
    if weight is not None:
        loss = loss * weight
    class_dim = input.dim() - 1
    if class_dim < 0:
        raise RuntimeError("%s(): expected input with at least one dimension" % what)
    loss = loss.sum(dim=class_dim) / input.shape[class_dim]
    return _reduce(loss, reduction, what)


def triplet_margin_with_distance_loss(anchor, positive, negative, *, distance_function=None,
                                      margin=1.0, swap=False, reduction="mean"):
    """``max(d(a, p) - d(a, n) + margin, 0)`` with any distance function (default
    `pairwise_distance`), as ``F.triplet_margin_with_distance_loss``.

    >>> a = pyad.tensor([[0.0, 0.0]])
    >>> triplet_margin_with_distance_loss(a, a + 1, a + 2)
    tensor(0.)
    """
    what = "triplet_margin_with_distance_loss"
    if margin <= 0:
        raise ValueError("%s(): margin must be greater than 0, got %s" % (what, margin))
    if reduction not in ("mean", "sum", "none"):
        raise ValueError("%s(): %s is not a valid value for reduction" % (what, reduction))
    anchor, positive, negative = _var(anchor), _var(positive), _var(negative)
    a_dim, p_dim, n_dim = anchor.dim(), positive.dim(), negative.dim()
    if not a_dim == p_dim == n_dim:
        raise RuntimeError("%s(): The anchor, positive, and negative Variables are expected to "
                           "have the same number of dimensions, but got: anchor %dD, "
                           "positive %dD, and negative %dD inputs"
                           % (what, a_dim, p_dim, n_dim))
    dist = distance_function if distance_function is not None else _F().pairwise_distance
    d_pos = dist(anchor, positive)
    d_neg = dist(anchor, negative)
    if swap:
        d_neg = pyad.minimum(d_neg, dist(positive, negative))
    loss = pyad.clamp(margin + d_pos - d_neg, min=0.0)
    return _reduce(loss, reduction, what)


# ---------------------------------------------------------------------------------
# Sampling, distances, grids
# ---------------------------------------------------------------------------------

def gumbel_softmax(logits, tau=1, hard=False, eps=1e-10, dim=-1):
    """A sample from the Gumbel-softmax distribution: ``softmax((logits + g) / tau)`` with
    Gumbel noise ``g``; with ``hard=True`` the one-hot of its argmax, whose gradient is the
    soft sample's (straight-through), as ``F.gumbel_softmax``.

    >>> _ = pyad.manual_seed(0)
    >>> y = gumbel_softmax(pyad.zeros(2, 3), hard=True)
    >>> y.sum(dim=-1)
    tensor([1., 1.])
    """
    if eps != 1e-10:
        warnings.warn("`eps` parameter is deprecated and has no effect.")
    logits = _var(logits)
    from pyad._factories import _generator_for
    data = logits.data
    xp = _xp(logits)
    gumbels = -xp.log(xp.asarray(_generator_for(data).exponential(1.0, data.shape)))
    y_soft = pyad.softmax((logits + gumbels.astype(data.dtype)) / tau, dim)
    if not hard:
        return y_soft
    d = dim % max(logits.dim(), 1)
    index = xp.argmax(y_soft.data, axis=d) if logits.dim() else xp.zeros((), _np.int64)
    y_hard = xp.zeros_like(y_soft.data)
    if logits.dim():
        xp.put_along_axis(y_hard, xp.expand_dims(index, d), 1.0, axis=d)
    else:
        y_hard[...] = 1.0
    return y_hard - y_soft.detach() + y_soft


def pdist(input, p=2):
    """The ``p``-norm distance between every pair of rows ``i < j`` of an ``(N, M)``
    Variable, as the upper triangle of the distance matrix in row order (``F.pdist``).

    >>> pdist(pyad.tensor([[0.0, 0.0], [3.0, 4.0], [6.0, 8.0]]))
    tensor([ 5., 10.,  5.])
    """
    input = _var(input)
    if input.dim() != 2:
        raise RuntimeError("pdist(): pdist only supports 2D Variables, got: %dD" % input.dim())
    if p < 0:
        raise RuntimeError("pdist(): pdist only supports non-negative p values")
    if not _is_float(_np.dtype(input.dtype)):
        raise RuntimeError("pdist(): pdist only supports floating-point dtypes")
    n = input.shape[0]
    i, j = _np.triu_indices(n, 1)
    xp = _xp(input)
    diff = input[xp.asarray(i)] - input[xp.asarray(j)]
    if p == 0 and diff.requires_grad:
        # torch's PdistBackward gives p=0 a zero gradient (a count is flat almost
        # everywhere); vector_norm's p=0 node gives none, so route a masked-out path
        count = pyad.linalg.vector_norm(diff.detach(), 0, dim=-1)
        return pyad.where(pyad.zeros(count.shape, dtype=pyad.bool, device=count.device),
                          diff.sum(-1), count)
    return pyad.linalg.vector_norm(diff, p, dim=-1)


def _base_coords(n, align_corners, xp, dtype):
    # torch's linspace_from_neg_one, to the bit: its CPU linspace(-1, 1, n) is
    # start + step * i below n // 2 and end - step * (n - 1 - i) from there, each one
    # fused multiply-add (one rounding; the long double sum rounds once to float32 and
    # float64 alike here), and ``range * (n - 1) / n`` rounds twice. A grid that lands
    # an ulp off a pixel centre takes grid_sample's gradient from the other cell.
    if n <= 1:
        return xp.zeros(n, dtype=dtype)
    dt = _np.dtype(dtype)
    step = dt.type(2) / dt.type(n - 1)
    i = _np.arange(n, dtype=_np.longdouble)
    c = _np.where(i < n // 2, -1 + _np.longdouble(step) * i,
                  1 - _np.longdouble(step) * (n - 1 - i)).astype(dt)
    if not align_corners:
        c = (c * dt.type(n - 1)) / dt.type(n)
    return xp.asarray(c)


def _align_warning(align_corners):
    if align_corners is None:
        warnings.warn("Default grid_sample and affine_grid behavior has changed to "
                      "align_corners=False since 1.3.0. Please specify align_corners=True "
                      "if the old behavior is desired. See the documentation of grid_sample "
                      "for details.")
        return False
    return bool(align_corners)


def affine_grid(theta, size, align_corners=None):
    """The sampling grid of the affine maps ``theta`` (``(N, 2, 3)`` for a 4-D ``size``,
    ``(N, 3, 4)`` for a 5-D one), for `grid_sample` (``F.affine_grid``).

    >>> affine_grid(pyad.tensor([[[1.0, 0, 0], [0, 1.0, 0]]]), (1, 1, 1, 2),
    ...             align_corners=True)
    tensor([[[[-1.,  0.],
              [ 1.,  0.]]]])
    """
    theta = _var(theta)
    align_corners = _align_warning(align_corners)
    if not _is_float(_np.dtype(theta.dtype)):
        raise ValueError("affine_grid(): Expected theta to have floating point type, but got "
                         "%s" % theta.dtype)
    size = tuple(int(s) for s in size)
    if len(size) == 4:
        if theta.dim() != 3 or tuple(theta.shape[1:]) != (2, 3):
            raise ValueError("affine_grid(): Expected a batch of 2D affine matrices of shape "
                             "Nx2x3 for size %s. Got %s." % (list(size), list(theta.shape)))
        spatial = size[2:]
    elif len(size) == 5:
        if theta.dim() != 3 or tuple(theta.shape[1:]) != (3, 4):
            raise ValueError("affine_grid(): Expected a batch of 3D affine matrices of shape "
                             "Nx3x4 for size %s. Got %s." % (list(size), list(theta.shape)))
        spatial = size[2:]
    else:
        raise NotImplementedError("affine_grid(): affine_grid only supports 4D and 5D sizes, "
                                  "for 2D and 3D affine transforms, respectively. Got size %s."
                                  % (list(size),))
    if min(size) <= 0:
        raise ValueError("affine_grid(): Expected non-zero, positive output size. Got %s"
                         % (list(size),))
    if theta.shape[0] != size[0]:
        raise ValueError("affine_grid(): Expected theta batch size %d to match size %d"
                         % (theta.shape[0], size[0]))
    if align_corners and min(spatial) == 1:
        # torch's warning, word for word
        warnings.warn("Since version 1.3.0, affine_grid behavior has changed for unit-size "
                      "grids when align_corners=True. This is not an intended use case of "
                      "affine_grid. See the documentation of affine_grid for details.")
    xp = _xp(theta)
    dt = theta.data.dtype
    axes = [_base_coords(n, align_corners, xp, dt) for n in reversed(spatial)]   # x, y, (z)
    mesh = xp.meshgrid(*axes[::-1], indexing="ij")            # each of shape spatial
    base = xp.stack([m for m in mesh[::-1]] + [xp.ones(spatial, dtype=dt)], axis=-1)
    k = len(spatial)
    base = pyad.Variable(base.reshape(1, -1, k + 1))
    grid = pyad.matmul(base, theta.transpose(1, 2))           # (N, prod(spatial), k)
    return grid.reshape((size[0],) + tuple(spatial) + (k,))


def _unnormalize(coord, size, align_corners):
    if align_corners:
        return (coord + 1) * ((size - 1) / 2)
    return ((coord + 1) * size - 1) / 2


def _reflect(coord, twice_low, twice_high):
    if twice_low == twice_high:
        return coord * 0
    low = twice_low / 2
    span = (twice_high - twice_low) / 2
    with _np.errstate(invalid="ignore"):      # an infinite grid value reflects to NaN
        coord = pyad.abs(coord - low)
        flips = pyad.floor(coord.detach() / span)
        extra = coord - flips * span
        even = (flips.data % 2) == 0
        return pyad.where(pyad.Variable(even), extra + low, span - extra + low)


def _source_index(coord, size, padding_mode, align_corners):
    coord = _unnormalize(coord, size, align_corners)
    if padding_mode == "border":
        coord = pyad.clamp(coord, 0, size - 1)
    elif padding_mode == "reflection":
        if align_corners:
            coord = _reflect(coord, 0, 2 * (size - 1))
        else:
            coord = _reflect(coord, -1, 2 * size - 1)
        coord = pyad.clamp(coord, 0, size - 1)
    return coord


def _pad_tap(idx, size, padding_mode, align_corners, xp):
    # torch's compute_coordinates on an integer tap position (grid_sample's bicubic
    # get_value_bounded): clipped ('border') or reflected and clipped ('reflection')
    if padding_mode == "zeros":
        return idx
    with _np.errstate(invalid="ignore"):
        if padding_mode == "reflection":
            lo, hi = (0, 2 * (size - 1)) if align_corners else (-1, 2 * size - 1)
            if lo == hi:
                idx = xp.zeros_like(idx)
            else:
                low, span = lo / 2, (hi - lo) / 2
                a = xp.abs(idx - low)
                extra = xp.fmod(a, span)
                flips = xp.floor(a / span)
                idx = xp.where(flips % 2 == 0, extra + low, span - extra + low)
        # std::min(size - 1, std::max(x, 0)): a NaN stays NaN through the max and the
        # min returns size - 1
        idx = xp.where(xp.isnan(idx), size - 1, xp.clip(idx, 0, size - 1))
    return idx


def _bicubic_taps(coords, sizes, padding_mode, align_corners, tap, xp):
    # torch's bicubic grid_sample: 4 x 4 taps around floor(source), the cubic convolution
    # weights (A = -0.75) of the fractional parts along x, then along y
    from pyad.nn._functional_layers import _cubic_near, _cubic_far
    lows = [xp.floor(v.data) for v in coords]
    with _np.errstate(invalid="ignore"):      # an infinite grid value gives a NaN fraction
        frac = [(v - pyad.Variable(lo)).unsqueeze(1) for v, lo in zip(coords, lows)]
    ty, tx = frac

    def weights(t):
        return (_cubic_far(t + 1), _cubic_near(t), _cubic_near(1 - t), _cubic_far(2 - t))

    wy, wx = weights(ty), weights(tx)
    out = 0
    for i in range(4):
        row = 0
        iy = _pad_tap(lows[0] - 1 + i, sizes[0], padding_mode, align_corners, xp)
        for j in range(4):
            ix = _pad_tap(lows[1] - 1 + j, sizes[1], padding_mode, align_corners, xp)
            vals, inside = tap([iy, ix])
            row = row + (vals * inside) * wx[j]
        out = out + row * wy[i]
    return out


def grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=None):
    """Sample ``input`` ``(N, C, H, W)`` at the normalised ``(x, y)`` positions of
    ``grid`` ``(N, Ho, Wo, 2)`` (``-1``/``1`` the edges), or ``(N, C, D, H, W)`` at the
    ``(x, y, z)`` of ``(N, Do, Ho, Wo, 3)``, with ``mode`` 'bilinear' (trilinear for 5-D),
    'nearest' or 'bicubic' (4-D only; torch's cubic convolution, A = -0.75) and
    ``padding_mode`` 'zeros', 'border' or 'reflection' (``F.grid_sample``).
    Differentiable with respect to ``input`` and (bilinear, bicubic) ``grid``.

    >>> img = pyad.arange(4.0).reshape(1, 1, 2, 2)
    >>> grid_sample(img, pyad.tensor([[[[0.0, 0.0]]]]), align_corners=True)
    tensor([[[[1.5000]]]])
    """
    input, grid = _var(input), _var(grid)
    if mode not in ("bilinear", "nearest", "bicubic"):
        raise ValueError("grid_sample(): nn.functional.grid_sample(): expected mode to be "
                         "'bilinear', 'nearest' or 'bicubic', but got: '%s'" % (mode,))
    if padding_mode not in ("zeros", "border", "reflection"):
        raise ValueError("grid_sample(): nn.functional.grid_sample(): expected padding_mode "
                         "to be 'zeros', 'border', or 'reflection', but got: '%s'"
                         % (padding_mode,))
    align_corners = _align_warning(align_corners)
    if input.dim() not in (4, 5) or grid.dim() != input.dim():
        raise RuntimeError("grid_sample(): expected 4D or 5D input and grid with same number "
                           "of dimensions, but got input with sizes %s and grid with sizes %s"
                           % (list(input.shape), list(grid.shape)))
    k = input.dim() - 2                                   # spatial dims
    if grid.dtype != input.dtype:
        raise RuntimeError("grid_sample(): expected grid to have the same dtype as input "
                           "(%s), but got grid of dtype %s" % (input.dtype, grid.dtype))
    if grid.shape[0] != input.shape[0]:
        raise RuntimeError("grid_sample(): expected grid and input to have same batch size, "
                           "but got input with sizes %s and grid with sizes %s"
                           % (list(input.shape), list(grid.shape)))
    if grid.shape[grid.dim() - 1] != k:
        raise RuntimeError("grid_sample(): expected grid to have size %d in last dimension, "
                           "but got grid with sizes %s" % (k, list(grid.shape)))
    if any(v == 0 for v in input.shape[2:]):
        raise RuntimeError("grid_sample(): expected input to have non-empty spatial "
                           "dimensions, but input has sizes %s" % (list(input.shape),))
    if mode == "bicubic" and k != 2:
        raise RuntimeError("grid_sample(): bicubic interpolation only supports 4D input")
    n, c = input.shape[0], input.shape[1]
    sizes = tuple(input.shape[2:])                        # (D,) H, W
    out_sp = tuple(grid.shape[1:grid.dim() - 1])
    points = int(_np.prod(out_sp))
    xp = _xp(input)
    # grid's last axis is (x, y[, z]): x indexes the last spatial dim
    if mode == "bicubic":
        # torch's: the padding applies to the tap positions, not to the source coordinate
        coords = [_unnormalize(grid[..., k - 1 - i], sizes[i], align_corners)
                  for i in range(k)]
    else:
        coords = [_source_index(grid[..., k - 1 - i], sizes[i], padding_mode, align_corners)
                  for i in range(k)]                  # per spatial dim, (N, *out_sp)
    flat = input.reshape(n, c, int(_np.prod(sizes)))
    strides = [int(_np.prod(sizes[i + 1:])) for i in range(k)]
    dt = input.data.dtype

    def tap(idx):
        # the values at integer positions idx (one array per dim), zero outside
        inside = True
        pos = 0
        for i in range(k):
            inside = inside & (idx[i] >= 0) & (idx[i] <= sizes[i] - 1)
            # a NaN position (a NaN or infinite grid value) is outside, as in torch; it
            # must not reach the integer cast
            safe = xp.where(xp.isnan(idx[i]), 0, idx[i])
            pos = pos + xp.clip(safe, 0, sizes[i] - 1).astype(_np.int64) * strides[i]
        pos = xp.broadcast_to(pos.reshape(n, 1, points), (n, c, points))
        vals = pyad.gather(flat, 2, pos).reshape((n, c) + out_sp)
        return vals, xp.expand_dims(inside, 1).astype(dt)

    if mode == "nearest":
        vals, inside = tap([xp.round(v.data) for v in coords])
        return vals * inside
    if mode == "bicubic":
        return _bicubic_taps(coords, sizes, padding_mode, align_corners, tap, xp)
    lows = [xp.floor(v.data) for v in coords]
    with _np.errstate(invalid="ignore"):          # inf - inf: a corner left out below
        frac = [(v - pyad.Variable(lo)).unsqueeze(1) for v, lo in zip(coords, lows)]
    out = 0
    for corner in range(2 ** k):
        idx, weight = [], None
        for i in range(k):
            upper = (corner >> (k - 1 - i)) & 1
            idx.append(lows[i] + upper)
            w = frac[i] if upper else 1 - frac[i]
            weight = w if weight is None else weight * w
        vals, inside = tap(idx)
        # a corner outside adds nothing, even where its weight is NaN (an infinite grid
        # value gives inf - inf): torch skips such corners rather than multiplying by 0
        out = out + vals * pyad.where(inside != 0, weight, 0.0)
    return out


def upsample_nearest(input, size=None, scale_factor=None):
    """Deprecated: ``interpolate(input, size, scale_factor, mode='nearest')``."""
    warnings.warn("`nn.functional.upsample_nearest` is deprecated. Use "
                  "`nn.functional.interpolate` instead.", stacklevel=2)
    return _F().interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input, size=None, scale_factor=None):
    """Deprecated: ``interpolate(input, size, scale_factor, mode='bilinear',
    align_corners=True)``."""
    warnings.warn("`nn.functional.upsample_bilinear` is deprecated. Use "
                  "`nn.functional.interpolate` instead.", stacklevel=2)
    return _F().interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)


# ---------------------------------------------------------------------------------
# Embedding bags, transposed 1-D convolution
# ---------------------------------------------------------------------------------

def embedding_bag(input, weight, offsets=None, max_norm=None, norm_type=2,
                  scale_grad_by_freq=False, mode="mean", sparse=False, per_sample_weights=None,
                  include_last_offset=False, padding_idx=None):
    """Sums, means or maxima of bags of embedding rows, as ``F.embedding_bag``: a 2-D
    ``input`` is one bag per row; a 1-D one is cut into bags at ``offsets``.
    ``padding_idx`` entries are left out of their bag; an empty bag gives zeros.

    >>> w = pyad.arange(6.0).reshape(3, 2)
    >>> embedding_bag(pyad.tensor([0, 2, 1]), w, pyad.tensor([0, 2]), mode="sum")
    tensor([[4., 6.],
            [2., 3.]])
    """
    what = "embedding_bag"
    input, weight = _var(input), _var(weight)
    if weight.dim() != 2:
        raise ValueError("%s(): weight has to be a 2D Variable, but got a Variable of dimension %d"
                         % (what, weight.dim()))
    if mode not in ("sum", "mean", "max"):
        raise ValueError("%s(): mode has to be one of sum, mean or max" % what)
    if sparse:
        raise NotImplementedError("%s(): sparse gradients are not supported" % what)
    if scale_grad_by_freq:
        raise NotImplementedError("%s(): scale_grad_by_freq is not supported" % what)
    if _np.dtype(input.dtype).kind not in "iu":
        raise RuntimeError("%s(): Expected Variable for argument #1 'indices' to have an integer "
                           "scalar type; but got %s instead" % (what, input.dtype))
    if per_sample_weights is not None:
        per_sample_weights = _var(per_sample_weights)
        if tuple(per_sample_weights.shape) != tuple(input.shape):
            raise ValueError("%s(): embedding_bag: If per_sample_weights (%s) is not None, "
                             "then it must have the same shape as the input (%s)"
                             % (what, tuple(per_sample_weights.shape), tuple(input.shape)))
        if mode != "sum":
            raise NotImplementedError("%s(): embedding_bag: per_sample_weights was not None. "
                                      "per_sample_weights is only supported for mode='sum' "
                                      "(got mode='%s'). Please open a feature request on "
                                      "GitHub." % (what, mode))
    xp = _xp(weight)
    idx = xp.asarray(input.data).astype(_np.int64)
    num = weight.shape[0]
    if input.dim() == 2:
        if offsets is not None:
            raise ValueError("%s(): if input is 2D, then offsets has to be None, as input is "
                             "treated is a mini-batch of fixed length sequences. However, "
                             "found offsets of type %s" % (what, type(offsets).__name__))
        b, length = idx.shape
        starts = xp.arange(b, dtype=_np.int64) * length
        idx = idx.reshape(-1)
        if per_sample_weights is not None:
            per_sample_weights = per_sample_weights.reshape(-1)
        include_last_offset = False
    elif input.dim() == 1:
        if offsets is None:
            raise ValueError("%s(): offsets has to be a 1D Variable but got None" % what)
        offsets = _var(offsets)
        if offsets.dim() != 1:
            raise ValueError("%s(): offsets has to be a 1D Variable" % what)
        starts = xp.asarray(offsets.data).astype(_np.int64)
        if include_last_offset:
            if starts.size == 0:
                raise RuntimeError("%s(): include_last_offset: number of offset should be at "
                                   "least 1" % what)
            starts = starts[:-1]
        if starts.size and int(starts[0]) != 0:
            raise RuntimeError("%s(): offsets[0] has to be 0, i.e., the first sequence in the "
                               "mini-batch has to start from position 0. However, got %d"
                               % (what, int(starts[0])))
        if starts.size and int(starts[-1]) > idx.size:
            raise RuntimeError("%s(): offsets[-1] can not be greater than input's length %d, "
                               "but got offsets[-1] of %d" % (what, idx.size, int(starts[-1])))
        b = starts.size
    else:
        raise ValueError("%s(): input has to be a 1D or 2D Variable, but got a Variable of dimension "
                         "%d" % (what, input.dim()))
    if padding_idx is not None:
        # torch: the functional raises RuntimeError (nn.EmbeddingBag asserts)
        if not -num <= padding_idx < num:
            raise RuntimeError("%s(): padding_idx must be within the number of embeddings, "
                               "-%d through %d, but got %d" % (what, num, num - 1, padding_idx))
        padding_idx = padding_idx % num
    if idx.size and (int(idx.min()) < 0 or int(idx.max()) >= num):
        bad = int(idx.min()) if int(idx.min()) < 0 else int(idx.max())
        raise RuntimeError("%s(): Expected idx >= 0 && idx < num_embeddings but found idx to "
                           "be %d" % (what, bad))
    if max_norm is not None:
        from pyad.nn.functional import _renorm_rows
        _renorm_rows(weight, idx, max_norm, norm_type)
    # bag of each position: the last start at or before it
    bag = (xp.searchsorted(starts, xp.arange(idx.size), side="right") - 1).astype(_np.int64)
    keep = xp.ones(idx.size, dtype=bool) if padding_idx is None else idx != padding_idx
    dim = weight.shape[1]
    dt = weight.data.dtype
    if mode == "max":
        out = pyad.Variable(xp.zeros((b, dim), dtype=dt))
        used = keep & (bag >= 0)
        if idx.size == 0 or not bool(used.any()):
            return out + weight.sum() * 0 if weight.requires_grad else out
        # per bag and column, the first position holding the maximum (torch keeps the
        # first: it replaces only on a strictly greater value): the bags as rows of a
        # padded (bags, longest bag) table
        ends = xp.concatenate((starts[1:], xp.asarray([idx.size], dtype=_np.int64)))
        lengths = xp.maximum(ends - starts, 0)
        longest = max(int(lengths.max()) if b else 0, 1)
        table = starts[:, None] + xp.arange(longest)[None, :]            # (B, longest)
        in_bag = xp.arange(longest)[None, :] < lengths[:, None]
        table = xp.where(in_bag, table, 0)
        valid = in_bag & used[table]
        rows = weight.data[idx[table]]                                   # (B, longest, D)
        rows = xp.where(valid[:, :, None], rows, -xp.inf)
        pick = xp.argmax(rows, axis=1)                                   # (B, D)
        best = xp.take_along_axis(xp.broadcast_to(table[:, :, None], rows.shape),
                                  pick[:, None, :], 1)[:, 0, :]
        best = xp.where(valid.any(1)[:, None], best, -1)
        filled = best >= 0
        src = xp.where(filled, idx[xp.maximum(best, 0)], 0)
        vals = pyad.gather(weight, 0, src)
        return vals * pyad.Variable(filled.astype(dt))
    emb = weight[idx] if idx.size else weight[:0]
    if per_sample_weights is not None:
        emb = emb * per_sample_weights.unsqueeze(1)
    weights = keep.astype(dt)
    emb = emb * pyad.Variable(weights[:, None])
    out = pyad.index_add(pyad.Variable(xp.zeros((b, dim), dtype=dt)), 0,
                         xp.maximum(bag, 0), emb)
    if mode == "mean":
        counts = xp.bincount(xp.maximum(bag, 0), weights=weights,
                             minlength=b)[:b].astype(dt)
        out = out / pyad.Variable(xp.maximum(counts, 1)[:, None])
    return out


def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0,
                     groups=1, dilation=1):
    """Transposed 1-D convolution over ``(N, C, L)`` or ``(C, L)`` input, weight
    ``(C_in, C_out / groups, k)`` (``F.conv_transpose1d``).

    >>> conv_transpose1d(pyad.ones(1, 1, 2), pyad.ones(1, 1, 2)).flatten()
    tensor([1., 2., 1.])
    """
    what = "conv_transpose1d"
    input, weight = _var(input), _var(weight)
    if weight.dim() != 3:
        raise RuntimeError("%s(): expected a 3-D weight (C_in, C_out / groups, k), got %dD"
                           % (what, weight.dim()))
    if input.dim() not in (2, 3):
        raise RuntimeError("%s(): Expected 2D (unbatched) or 3D (batched) input to "
                           "conv_transpose1d, but got input of size: %s"
                           % (what, list(input.shape)))

    def one(v, name):
        if isinstance(v, (tuple, list)):
            if len(v) != 1:
                raise RuntimeError("%s(): expected %s to be a single integer value or a list "
                                   "of 1 values to match the convolution dimensions, but got "
                                   "%s=%s" % (what, name, name, list(v)))
            return v[0]
        return v
    s, p, op, d = (one(stride, "stride"), one(padding, "padding"),
                   one(output_padding, "output_padding"), one(dilation, "dilation"))
    out = conv_transpose2d(input.unsqueeze(-2), weight.unsqueeze(-2), bias, (1, s), (0, p),
                           (0, op), groups, (1, d))
    return out.squeeze(-2)


# ---------------------------------------------------------------------------------
# Connectionist temporal classification
# ---------------------------------------------------------------------------------

def _logaddexp3(a, b, c):
    return _np.logaddexp(_np.logaddexp(a, b), c)


def _ctc_alpha_beta(lp, labels, t_len, blank, want_beta):
    # lp: (T, C) log-probabilities of one sample; labels: its target (length L).
    # The forward (alpha) and backward (beta) variables over the extended label sequence
    # (a blank before, between and after the labels), in log space.
    ext = _np.full(2 * len(labels) + 1, blank, dtype=_np.int64)
    ext[1::2] = labels
    s_len = ext.size
    neg = -_np.inf
    # where a label may be skipped over from s - 2: not blank, and not a repeat
    skip = _np.zeros(s_len, dtype=bool)
    if s_len > 2:
        skip[2:] = (ext[2:] != blank) & (ext[2:] != ext[:-2])
    alpha = _np.full((max(t_len, 1), s_len), neg)
    if t_len > 0:
        alpha[0, 0] = lp[0, ext[0]]
        if s_len > 1:
            alpha[0, 1] = lp[0, ext[1]]
    for t in range(1, t_len):
        prev = alpha[t - 1]
        one = _np.concatenate(([neg], prev[:-1]))
        two = _np.where(skip, _np.concatenate(([neg, neg], prev[:-2]))[:s_len], neg)
        alpha[t] = _logaddexp3(prev, one, two) + lp[t, ext]
    if t_len == 0:
        nll = 0.0 if len(labels) == 0 else _np.inf
    else:
        last = alpha[t_len - 1, s_len - 1]
        if s_len > 1:
            last = _np.logaddexp(last, alpha[t_len - 1, s_len - 2])
        nll = -last
    if not want_beta:
        return ext, alpha, None, nll
    beta = _np.full((max(t_len, 1), s_len), neg)
    if t_len > 0:
        beta[t_len - 1, s_len - 1] = lp[t_len - 1, ext[s_len - 1]]
        if s_len > 1:
            beta[t_len - 1, s_len - 2] = lp[t_len - 1, ext[s_len - 2]]
    skip_next = _np.zeros(s_len, dtype=bool)       # s may jump to s + 2
    if s_len > 2:
        skip_next[:-2] = skip[2:]
    for t in range(t_len - 2, -1, -1):
        nxt = beta[t + 1]
        one = _np.concatenate((nxt[1:], [neg]))
        two = _np.where(skip_next, _np.concatenate((nxt[2:], [neg, neg]))[:s_len], neg)
        beta[t] = _logaddexp3(nxt, one, two) + lp[t, ext]
    return ext, alpha, beta, nll


def _ctc_lengths(what, lengths, n, name):
    if isinstance(lengths, Variable):
        if _np.dtype(lengths.dtype).kind not in "iu":
            # torch: RuntimeError 'input_lengths must be integral'
            raise RuntimeError("%s(): %s must be integral, got a Variable of dtype %s"
                               % (what, name, lengths.dtype))
        values = [int(v) for v in _host(lengths.data).reshape(-1).tolist()]
    elif isinstance(lengths, numbers.Integral):
        values = [int(lengths)]
    else:
        values = [int(v) for v in lengths]
    if len(values) != n:
        raise RuntimeError("%s(): %s must have one entry per batch element (%d), got %d"
                           % (what, name, n, len(values)))
    return values


class _CTCLoss(pyad.autograd.Function):
    """The per-sample negative log-likelihoods of CTC, with torch's gradient formula
    (``exp(lp) - exp(log(sum of alpha * beta over the label's positions) + nll - lp)``
    for ``t`` before the input length, 0 after), computed on the arrays."""

    @staticmethod
    def forward(ctx, log_probs, targets, input_lengths, target_lengths, blank,
                zero_infinity):
        lp_all = _host(log_probs.data).astype(_np.float64)
        n = lp_all.shape[1]
        nll = _np.zeros(n)
        grad = _np.zeros_like(lp_all)
        for b in range(n):
            lp = lp_all[:, b]
            labels = targets[b]
            t_len = input_lengths[b]
            ext, alpha, beta, value = _ctc_alpha_beta(lp, labels, t_len, blank, True)
            if zero_infinity and value == _np.inf:
                nll[b] = 0.0
                continue
            nll[b] = value
            if t_len == 0:
                continue
            ab = alpha[:t_len] + beta[:t_len]                   # (t, S')
            occupancy = _np.full((t_len, lp.shape[1]), -_np.inf)
            for c in _np.unique(ext):
                where = ext == c
                m = ab[:, where]
                top = m.max(axis=1)
                safe = _np.where(_np.isfinite(top), top, 0.0)
                with _np.errstate(divide="ignore"):          # no path: log(0) = -inf
                    occupancy[:, c] = _np.log(_np.exp(m - safe[:, None]).sum(axis=1)) + safe
            with _np.errstate(over="ignore", invalid="ignore"):
                grad[:t_len, b] = _np.exp(lp[:t_len]) - _np.exp(occupancy + value
                                                                 - lp[:t_len])
        xp = _xp(log_probs)
        ctx.grad = xp.asarray(grad.astype(log_probs.data.dtype))
        return Variable(xp.asarray(nll.astype(log_probs.data.dtype)))

    @staticmethod
    def backward(ctx, grad_nll):
        g = grad_nll.data if isinstance(grad_nll, Variable) else grad_nll
        return (Variable(ctx.grad * g[None, :, None]), None, None, None, None, None)


def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction="mean",
             zero_infinity=False):
    """The Connectionist Temporal Classification loss (``F.ctc_loss``): ``log_probs``
    ``(T, N, C)`` (or ``(T, C)``) log-softmax outputs, ``targets`` ``(N, S)`` padded or
    the targets concatenated (1-D), the lengths as sequences or Variables. The forward
    and backward variables are computed in log space; the gradient is torch's (it
    assumes ``log_probs`` came from ``log_softmax``, as torch's does). ``'mean'`` divides
    each loss by its target length, then averages.

    >>> lp = pyad.tensor([[[0.0, -100.0]], [[0.0, -100.0]]]).log_softmax(2)
    >>> ctc_loss(lp, pyad.tensor([[1]]), [2], [1]).item() > 50
    True
    """
    what = "ctc_loss"
    log_probs = _var(log_probs)
    if reduction not in ("mean", "sum", "none"):
        raise ValueError("%s(): %s is not a valid value for reduction" % (what, reduction))
    if not _is_float(_np.dtype(log_probs.dtype)):
        raise RuntimeError("%s(): expected floating-point log_probs, got %s"
                           % (what, log_probs.dtype))
    unbatched = log_probs.dim() == 2
    if log_probs.dim() not in (2, 3):
        raise RuntimeError("%s(): log_probs must be 2-D (T, C) or 3-D (T, N, C), got %dD"
                           % (what, log_probs.dim()))
    if log_probs.numel() == 0:
        # as torch's ("log_probs tensor must not be empty"), whatever the lengths
        raise RuntimeError("%s(): log_probs Variable must not be empty" % what)
    lp = log_probs.unsqueeze(1) if unbatched else log_probs
    t_max, n, c = lp.shape
    if not 0 <= blank < c:
        raise RuntimeError("%s(): blank must be in label range" % what)
    tgt = _host(_var(targets).data)
    in_len = _ctc_lengths(what, input_lengths, n, "input_lengths")
    tg_len = _ctc_lengths(what, target_lengths, n, "target_lengths")
    labels = []
    if tgt.ndim == 2:
        if tgt.shape[0] != n:
            raise RuntimeError("%s(): targets must have one row per batch element" % what)
        for b in range(n):
            if tg_len[b] > tgt.shape[1]:
                raise RuntimeError("%s(): Expected a Variable of size at least %d at "
                                   "dimension 1, but got size %d for argument #2 'targets' "
                                   "(while checking arguments for ctc_loss_cpu)"
                                   % (what, tg_len[b], tgt.shape[1]))
            labels.append(tgt[b, :tg_len[b]].astype(_np.int64))
    elif tgt.ndim == 1:
        if unbatched:
            labels.append(tgt[:tg_len[0]].astype(_np.int64))
        else:
            offset = 0
            for b in range(n):
                labels.append(tgt[offset:offset + tg_len[b]].astype(_np.int64))
                offset += tg_len[b]
            if offset > tgt.size:
                raise RuntimeError("%s(): the target lengths add up to %d but targets has %d "
                                   "entries" % (what, offset, tgt.size))
    else:
        raise RuntimeError("%s(): targets must be 1-D or 2-D" % what)
    for b in range(n):
        if in_len[b] < 0 or in_len[b] > t_max:
            raise RuntimeError("%s(): Expected input_lengths to have value at most %d, but got "
                               "value %d (while checking arguments for ctc_loss_cpu)"
                               % (what, t_max, in_len[b]))
        if tg_len[b] < 0:
            raise RuntimeError("%s(): target lengths must be non-negative" % what)
        if labels[b].size and (labels[b].min() < 0 or labels[b].max() >= c
                               or (labels[b] == blank).any()):
            raise RuntimeError("%s(): targets must be class indices in [0, %d) other than "
                               "the blank (%d)" % (what, c, blank))
    nll = _CTCLoss.apply(lp, labels, in_len, tg_len, blank, zero_infinity)
    if unbatched:
        nll = nll.reshape(())
    if reduction == "none":
        return nll
    if reduction == "sum":
        return nll.sum()
    div = _np.maximum(_np.asarray(tg_len, dtype=log_probs.data.dtype), 1)
    if unbatched:
        div = div.reshape(())
    return (nll / pyad.Variable(_xp(log_probs).asarray(div))).mean()


# ---------------------------------------------------------------------------------
# 3-D convolution and pooling
# ---------------------------------------------------------------------------------

def _triple(x, what, name):
    if isinstance(x, (tuple, list)):
        if len(x) != 3:
            raise RuntimeError("%s(): expected %s to be a single integer value or a list of "
                               "3 values to match the convolution dimensions, but got "
                               "%s=%s" % (what, name, name, list(x)))
        return tuple(int(v) for v in x)
    return (int(x),) * 3


def _volume_input(input, what):
    input = _var(input)
    if input.dim() not in (4, 5):
        raise RuntimeError("%s(): Expected 4D (unbatched) or 5D (batched) input, but got "
                           "input of size: %s" % (what, list(input.shape)))
    return input, input.dim() == 4


def conv_tbc(input, weight, bias, pad=0):
    """1-D convolution of a time-batch-channel ``(T, B, C_in)`` input with a
    ``(K, C_in, C_out)`` weight and a ``(C_out,)`` bias, ``pad`` zeros at both ends of
    time, as ``F.conv_tbc``; the result is ``(T + 2 pad - K + 1, B, C_out)``.

    >>> conv_tbc(pyad.ones(4, 1, 1), pyad.ones(2, 1, 1), pyad.zeros(1)).flatten()
    tensor([2., 2., 2.])
    """
    what = "conv_tbc"
    input, weight, bias = _var(input), _var(weight), _var(bias)
    if input.dim() != 3:
        raise RuntimeError("%s(): Input must have 3 dims: time, batch, in_channel, got %dD"
                           % (what, input.dim()))
    if weight.dim() != 3:
        raise RuntimeError("%s(): Weight must have 3 dims: kernel_width, in_channels, "
                           "out_channels, got %dD" % (what, weight.dim()))
    if bias.dim() != 1:
        raise RuntimeError("%s(): Bias must be 1-D, got %dD" % (what, bias.dim()))
    if input.shape[2] != weight.shape[1]:
        raise RuntimeError("%s(): Input dim 2 (input channels) (%d) is not == dim 1 in the "
                           "weight (%d)" % (what, input.shape[2], weight.shape[1]))
    if weight.shape[2] != bias.shape[0]:
        raise RuntimeError("%s(): Bias size (%d) must equal the last dim of the weight "
                           "(%d)" % (what, bias.shape[0], weight.shape[2]))
    out = _F().conv1d(input.permute(1, 2, 0), weight.permute(2, 1, 0), bias, 1, int(pad))
    return out.permute(2, 0, 1)


def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """3-D convolution over ``(N, C, D, H, W)`` or ``(C, D, H, W)`` input, weight
    ``(C_out, C_in / groups, kD, kH, kW)`` (``F.conv3d``; ``padding`` also 'same' or
    'valid'). Written as a sum of `conv2d` over the depth taps.

    >>> conv3d(pyad.ones(1, 1, 2, 2, 2), pyad.ones(1, 1, 2, 2, 2)).flatten()
    tensor([8.])
    """
    what = "conv3d"
    input, unbatched = _volume_input(input, what)
    weight = _var(weight)
    if weight.dim() != 5:
        raise RuntimeError("%s(): expected a 5-D weight, got %dD" % (what, weight.dim()))
    if unbatched:
        input = input.unsqueeze(0)
    s = _triple(stride, what, "stride")
    if any(v <= 0 for v in s):
        raise RuntimeError("%s(): non-positive stride is not supported, got %s"
                           % (what, list(s)))
    d = _triple(dilation, what, "dilation")
    k = tuple(weight.shape[2:])
    if isinstance(padding, str):
        if padding == "valid":
            p = (0, 0, 0)
        elif padding == "same":
            if any(v != 1 for v in s):
                raise ValueError("%s(): padding='same' is not supported for strided "
                                 "convolutions" % what)
            pads = []
            for i in (2, 1, 0):
                total = d[i] * (k[i] - 1)
                pads += [total // 2, total - total // 2]
            input = pyad.pad(input, tuple(pads))
            p = (0, 0, 0)
        else:
            raise ValueError("%s(): Invalid padding string '%s', should be one of "
                             "('valid', 'same')" % (what, padding))
    else:
        p = _triple(padding, what, "padding")
    n, c = input.shape[0], input.shape[1]
    if c != weight.shape[1] * groups:
        raise RuntimeError("%s(): Given groups=%d, weight of size %s, expected input%s to "
                           "have %d channels, but got %d channels instead"
                           % (what, groups, list(weight.shape), list(input.shape),
                              weight.shape[1] * groups, c))
    if p[0]:
        input = pyad.pad(input, (0, 0, 0, 0, p[0], p[0]))
    depth = input.shape[2]
    d_out = (depth - d[0] * (k[0] - 1) - 1) // s[0] + 1
    if d_out <= 0:
        raise RuntimeError("%s(): Calculated padded input size per channel: (%d x %d x %d). "
                           "Kernel size: (%d x %d x %d). Kernel size can't be greater than "
                           "actual input size" % ((what, depth) + tuple(input.shape[3:])
                                                  + k))
    h, w = input.shape[3], input.shape[4]
    out = None
    for tap in range(k[0]):
        start = tap * d[0]
        sl = input[:, :, start:start + (d_out - 1) * s[0] + 1:s[0]]
        sl = sl.permute(0, 2, 1, 3, 4).reshape(n * d_out, c, h, w)
        y = _F().conv2d(sl, weight[:, :, tap], None, s[1:], p[1:], d[1:], groups)
        out = y if out is None else out + y
    o = weight.shape[0]
    out = out.reshape((n, d_out, o) + tuple(out.shape[2:])).permute(0, 2, 1, 3, 4)
    if bias is not None:
        out = out + _var(bias).reshape(1, o, 1, 1, 1)
    return out.squeeze(0) if unbatched else out


def conv_transpose3d(input, weight, bias=None, stride=1, padding=0, output_padding=0,
                     groups=1, dilation=1):
    """Transposed 3-D convolution over ``(N, C, D, H, W)`` or ``(C, D, H, W)`` input,
    weight ``(C_in, C_out / groups, kD, kH, kW)`` (``F.conv_transpose3d``). Written as
    `conv_transpose2d` per depth tap, each tap's planes added at their output depths.

    >>> conv_transpose3d(pyad.ones(1, 1, 2, 1, 1), pyad.ones(1, 1, 2, 1, 1)).flatten()
    tensor([1., 2., 1.])
    """
    what = "conv_transpose3d"
    input, unbatched = _volume_input(input, what)
    weight = _var(weight)
    if weight.dim() != 5:
        raise RuntimeError("%s(): expected a 5-D weight (C_in, C_out / groups, kD, kH, kW), "
                           "got %dD" % (what, weight.dim()))
    if unbatched:
        input = input.unsqueeze(0)
    s = _triple(stride, what, "stride")
    p = _triple(padding, what, "padding")
    op = _triple(output_padding, what, "output_padding")
    d = _triple(dilation, what, "dilation")
    n, c, depth, h, w = input.shape
    if c != weight.shape[0]:
        raise RuntimeError("%s(): Given transposed=1, weight of size %s, expected input%s to "
                           "have %d channels, but got %d channels instead"
                           % (what, list(weight.shape), list(input.shape), weight.shape[0], c))
    if op[0] >= s[0] and op[0] >= d[0]:
        raise RuntimeError("%s(): output padding must be smaller than either stride or "
                           "dilation, but got output_padding_depth: %d, stride_depth: %d, "
                           "dilation_depth: %d" % (what, op[0], s[0], d[0]))
    k_depth = weight.shape[2]
    full = (depth - 1) * s[0] + d[0] * (k_depth - 1) + 1 + op[0]
    d_out = full - 2 * p[0]
    if d_out <= 0:
        raise RuntimeError("%s(): Given input size per channel: (%d x %d x %d). Calculated "
                           "output size: (%d x ...). Output size is too small"
                           % (what, depth, h, w, d_out))
    planes = input.permute(0, 2, 1, 3, 4).reshape(n * depth, c, h, w)
    taps, positions = [], []
    for tap in range(k_depth):
        y = _F().conv_transpose2d(planes, weight[:, :, tap], None, s[1:], p[1:], op[1:],
                                  groups, d[1:])
        taps.append(y.reshape((n, depth) + tuple(y.shape[1:])))
        positions.append(tap * d[0] + _np.arange(depth) * s[0])
    # every (input depth, tap) plane summed into its output depth, in one index_add
    stacked = pyad.cat(taps, 1)
    full_out = pyad.zeros((n, full) + tuple(stacked.shape[2:]), dtype=stacked.dtype,
                          device=stacked.device)
    index = pyad.tensor(_np.concatenate(positions), dtype=pyad.int64)
    if stacked.device.type != "cpu":
        index = index.to(stacked.device)
    out = full_out.index_add(1, index, stacked)[:, p[0]:p[0] + d_out]
    out = out.permute(0, 2, 1, 3, 4)
    if bias is not None:
        out = out + _var(bias).reshape(1, -1, 1, 1, 1)
    # torch's result follows a channels_last_3d input or weight (suggest_memory_format)
    from pyad.nn._functional_layers import _suggested_format
    if pyad.channels_last_3d in (_suggested_format(input), _suggested_format(weight)):
        out = out.contiguous(memory_format=pyad.channels_last_3d)
    return out.squeeze(0) if unbatched else out


def _pool_out(size, k, s, p, d, ceil_mode):
    span = size + 2 * p - d * (k - 1) - 1
    out = (-(-span // s) if ceil_mode else span // s) + 1
    if ceil_mode and (out - 1) * s >= size + p:
        out -= 1
    return out


def _window_cells(sizes, k, s, p, d, ceil_mode):
    """For a pooling window over ``sizes`` (one entry per spatial dim): the output sizes,
    the flat input position of each (output cell, window tap) with taps outside the input
    replaced by the cell's first inside tap, the mask of inside taps, and the size of
    each window clipped to the padded input (torch's count_include_pad divisor)."""
    outs, pos, inside, padded = [], [], [], []
    for L, kk, ss, pp, dd in zip(sizes, k, s, p, d):
        o = _pool_out(L, kk, ss, pp, dd, ceil_mode)
        if o <= 0:
            raise RuntimeError("pooling(): Output size is too small for input size %d, "
                               "kernel %d, stride %d, padding %d" % (L, kk, ss, pp))
        start = _np.arange(o)[:, None] * ss - pp
        idx = start + _np.arange(kk)[None, :] * dd                   # (o, k)
        ok = (idx >= 0) & (idx < L)
        first = _np.where(ok.any(1), idx[_np.arange(o), ok.argmax(1)], 0)
        idx = _np.where(ok, idx, first[:, None])
        outs.append(o)
        pos.append(idx)
        inside.append(ok)
        hi = _np.minimum(start[:, 0] + (kk - 1) * dd + 1, L + pp)
        padded.append(hi - start[:, 0])
    nd = len(sizes)
    strides = [int(_np.prod(sizes[i + 1:])) for i in range(nd)]
    flat = 0
    mask = True
    count = 1
    for i in range(nd):
        shape_o = [1] * (2 * nd)
        shape_o[i] = outs[i]
        shape_o[nd + i] = k[i]
        flat = flat + pos[i].reshape(shape_o) * strides[i]
        mask = mask & inside[i].reshape(shape_o)
        shape_c = [1] * nd
        shape_c[i] = outs[i]
        count = count * padded[i].reshape(shape_c)
    p_cells = int(_np.prod(outs))
    k_cells = int(_np.prod(k))
    flat = _np.broadcast_to(flat, tuple(outs) + tuple(k)).reshape(p_cells, k_cells)
    mask = _np.broadcast_to(mask, tuple(outs) + tuple(k)).reshape(p_cells, k_cells)
    count = _np.broadcast_to(count, tuple(outs)).reshape(p_cells)
    return tuple(outs), flat, mask, count


def _pool_args(kernel_size, stride, padding, dilation, what):
    k = _triple(kernel_size, what, "kernel_size")
    s = k if stride is None or (isinstance(stride, (tuple, list)) and not stride) \
        else _triple(stride, what, "stride")
    p = _triple(padding, what, "padding")
    d = _triple(dilation, what, "dilation")
    if any(v <= 0 for v in k + s + d):
        raise RuntimeError("%s(): kernel_size, stride and dilation must be greater than zero"
                           % what)
    if any(2 * pp > kk for pp, kk in zip(p, k)):
        raise RuntimeError("%s(): pad should be at most half of effective kernel size, but "
                           "got pad=%s, kernel_size=%s" % (what, p, k))
    return k, s, p, d


def max_pool3d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False, return_indices=False):
    """`max_pool3d` that returns ``(output, indices)``."""
    what = "max_pool3d"
    input, unbatched = _volume_input(input, what)
    first = 0 if unbatched else 1
    for i in range(first, input.dim()):
        if input.shape[i] == 0:
            raise RuntimeError("%s(): Expected input's non-batch dimensions to have positive "
                               "length, but input has a shape of %s and non-batch dimension "
                               "%d has length zero!" % (what, list(input.shape), i - first))
    k, s, p, d = _pool_args(kernel_size, stride, padding, dilation, what)
    lead = tuple(input.shape[:input.dim() - 3])
    sizes = tuple(input.shape[input.dim() - 3:])
    outs, cells, _, _ = _window_cells(sizes, k, s, p, d, ceil_mode)
    flat = input.reshape(lead + (int(_np.prod(sizes)),))
    out, pos = _choose_max(flat, cells, what)
    out, pos = out.reshape(lead + outs), pyad.Variable(pos.reshape(lead + outs))
    # torch's kernel writes the result and its indices in the input's memory format
    # (channels_last_3d for a channels_last_3d input; an unbatched input as its batch of one)
    from pyad.nn._functional_layers import _in_format_of
    if input.dim() == 5:
        return _in_format_of(out, input), _in_format_of(pos, input)
    ref = input.unsqueeze(0)
    return (_in_format_of(out.unsqueeze(0), ref).squeeze(0),
            _in_format_of(pos.unsqueeze(0), ref).squeeze(0))


def max_pool3d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """3-D max pooling over ``(N, C, D, H, W)`` or ``(C, D, H, W)`` (``F.max_pool3d``);
    with ``return_indices`` also the flat ``D * H * W`` index of each maximum.

    >>> max_pool3d(pyad.arange(8.0).reshape(1, 2, 2, 2), 2).flatten()
    tensor([7.])
    """
    out, idx = max_pool3d_with_indices(input, kernel_size, stride, padding, dilation,
                                       ceil_mode)
    return (out, idx) if return_indices else out


def avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    """3-D average pooling (``F.avg_pool3d``), torch's divisors (``count_include_pad``,
    ``divisor_override``).

    >>> avg_pool3d(pyad.arange(8.0).reshape(1, 2, 2, 2), 2).flatten()
    tensor([3.5000])
    """
    what = "avg_pool3d"
    input, unbatched = _volume_input(input, what)
    k, s, p, d = _pool_args(kernel_size, stride, padding, 1, what)
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("%s(): divisor must be not zero" % what)
    lead = tuple(input.shape[:input.dim() - 3])
    sizes = tuple(input.shape[input.dim() - 3:])
    outs, cells, mask, count = _window_cells(sizes, k, s, p, d, ceil_mode)
    xp = _xp(input)
    flat = input.reshape(lead + (int(_np.prod(sizes)),))
    dt = input.data.dtype
    if divisor_override is not None:
        div = _np.full(count.shape, float(divisor_override))
    elif count_include_pad:
        div = count.astype(_np.float64)
    else:
        div = mask.sum(1).astype(_np.float64)
    weights = mask / div[:, None]
    vals = flat[..., xp.asarray(cells)] if flat.numel() else \
        pyad.Variable(xp.zeros(lead + cells.shape, dtype=dt))
    out = (vals * pyad.Variable(xp.asarray(weights.astype(dt)))).sum(dim=-1)
    # torch's backward formula takes the input (under create_graph the gradient depends
    # on it, with a zero derivative)
    return _engine._grad_depends_on(out.reshape(lead + outs), input, "AvgPool3DBackward")


def adaptive_avg_pool3d(input, output_size):
    """3-D adaptive average pooling to ``output_size`` (``F.adaptive_avg_pool3d``).

    >>> adaptive_avg_pool3d(pyad.arange(8.0).reshape(1, 2, 2, 2), 1).flatten()
    tensor([3.5000])
    """
    what = "adaptive_avg_pool3d"
    _adaptive_dim_check(_var(input), 3, what)
    input, unbatched = _volume_input(input, what)
    _adaptive_float_check(input, what, "adaptive_avg_pool3d_cpu")
    sizes = tuple(input.shape[input.dim() - 3:])
    o = output_size if isinstance(output_size, (tuple, list)) else (output_size,) * 3
    if len(o) != 3:
        raise RuntimeError("%s(): output_size must be 3" % what)
    o = tuple(sizes[i] if o[i] is None else int(o[i]) for i in range(3))
    if any(v < 0 for v in o):
        # torch checks this first: "elements of output_size must be greater than or
        # equal to 0"
        raise RuntimeError("%s(): elements of output_size must be greater than or equal "
                           "to 0 but received %s" % (what, o))
    if any(v == 0 for v in sizes):
        raise RuntimeError("%s(): Expected input to have non-zero size for non-batch "
                           "dimensions, but input has sizes %s" % (what, list(input.shape)))
    out = input
    # the bins of each dim are independent: average along one dim at a time
    for axis in range(3):
        dim = input.dim() - 3 + axis
        starts, ends = _adaptive_cells(sizes[axis], o[axis])
        pieces = [out.narrow(dim, a, b - a).mean(dim=dim, keepdim=True)
                  for a, b in zip(starts, ends)]
        if pieces:
            out = pyad.cat(pieces, dim)
        else:
            shape = list(out.shape)
            shape[dim] = 0
            out = out.reshape(tuple(shape)) if out.numel() == 0 else out.narrow(dim, 0, 0)
    if o != (1, 1, 1):                 # (torch's output 1 is a mean, which does not)
        out = _engine._grad_depends_on(out, input, "AdaptiveAvgPool3DBackward")
    return _adaptive_empty_output_guard(out, 3, what)


# ---------------------------------------------------------------------------------
# Fractional max pooling, 3-D adaptive max pooling and unpooling
# ---------------------------------------------------------------------------------

def _fractional_intervals(samples, in_size, out_size, pool, dt):
    # torch's generate_intervals, in the input's float type: for a sample u in [0, 1)
    # start_i = int((i + u) * alpha) - int(u * alpha), alpha = (in - pool) / (out - 1),
    # the last start in - pool. samples: (B, C) array -> (B, C, out) int64 starts.
    starts = _np.empty(samples.shape + (out_size,), dtype=_np.int64)
    if out_size > 1:
        alpha = dt.type(in_size - pool) / dt.type(out_size - 1)
        i = _np.arange(out_size - 1).astype(dt)
        u = samples.astype(dt)[..., None]
        with _np.errstate(invalid="ignore", over="ignore"):
            starts[..., :-1] = (((i + u) * alpha).astype(_np.int64)
                                - (u * alpha).astype(_np.int64))
    if out_size > 0:
        starts[..., -1] = in_size - pool
    return starts


_FRACTIONAL_NAMES = {2: ("height", "width"), 3: ("time", "height", "width")}


def _fractional_max_pool(input, kernel_size, output_size, output_ratio, _random_samples, n):
    what = "fractional_max_pool%dd" % n
    input = _var(input)
    if output_size is None and output_ratio is None:
        raise ValueError("%s(): %s requires specifying either an output_size or an "
                         "output_ratio" % (what, what))
    if input.dim() < n + 1:
        raise IndexError("%s(): Dimension out of range (expected to be in range of [%d, %d], "
                         "but got %d)" % (what, -input.dim(), input.dim() - 1, -(n + 1)))
    if output_size is not None:
        for v in (output_size if isinstance(output_size, (tuple, list)) else (output_size,)):
            if not isinstance(v, numbers.Integral) or isinstance(v, bool):
                raise TypeError("%s(): argument 'output_size' must be an int or a tuple of "
                                "ints, not %s" % (what, type(v).__name__))
    if _random_samples is not None and not isinstance(_random_samples, pyad.Variable):
        raise TypeError("%s(): argument '_random_samples' must be a Variable, not %s"
                        % (what, type(_random_samples).__name__))
    if output_size is None:
        for r in (output_ratio if isinstance(output_ratio, (tuple, list)) else (output_ratio,)):
            if not isinstance(r, numbers.Real) or isinstance(r, bool) or \
                    not (math.isfinite(r) and r >= 0):
                raise ValueError("%s(): output_ratio must be a finite number between 0 and 1, "
                                 "got %r"
                                 % (what, output_ratio))
        if isinstance(output_ratio, (tuple, list)) and len(output_ratio) > n:
            raise ValueError("%s(): %s requires output_ratio to either be a single Int or "
                             "tuple of Ints." % (what, what))
        ratio = output_ratio if isinstance(output_ratio, (tuple, list)) else (output_ratio,) * n
        if len(ratio) != n:
            raise ValueError("%s(): output_ratio must be a float or a %d-tuple, got %r"
                             % (what, n, output_ratio))
        output_size = [int(input.shape[input.dim() - n + i] * ratio[i]) for i in range(n)]
    k = kernel_size if isinstance(kernel_size, (tuple, list)) else (kernel_size,) * n
    o = output_size if isinstance(output_size, (tuple, list)) else (output_size,) * n
    if len(k) != n:
        raise RuntimeError("%s(): kernel_size must either be a single Int or tuple of %s Ints"
                           % (what, "three" if n == 3 else ""))
    if len(o) != n:
        raise RuntimeError("%s(): output_size must either be a single Int or tuple of %s Ints"
                           % (what, "three" if n == 3 else ""))
    k, o = tuple(int(v) for v in k), tuple(int(v) for v in o)
    if any(v <= 0 for v in k):
        raise RuntimeError("%s(): kernel_size must be greater than zero, got %s"
                           % (what, list(k)))
    if input.dim() not in (n + 1, n + 2):
        raise RuntimeError("%s(): Expected %dD or %dD Variable, but got: %s"
                           % (what, n + 1, n + 2, list(input.shape)))
    batched = input.dim() == n + 2
    for d in range(1 if batched else 0, input.dim()):
        if input.shape[d] == 0:
            raise RuntimeError("%s(): Expected input to have non-zero size for non-batch "
                               "dimensions, but got %s with dimension %d being empty."
                               % (what, list(input.shape), d))
    if _np.dtype(input.dtype).kind != "f":
        _adaptive_float_check(input, what, "check_uniform_bounds" if _random_samples is None
                              else what)
    if any(v < 0 for v in o):
        raise RuntimeError("%s(): Trying to create a Variable with negative dimension: %s"
                           % (what, list(o)))
    sizes = tuple(input.shape[input.dim() - n:])
    c = input.shape[input.dim() - n - 1]
    b = input.shape[0] if batched else 1
    if _random_samples is None:
        samples = pyad.rand(b, c, n, dtype=input.dtype).data
    else:
        samples = _var(_random_samples)
        if samples.dim() != 3:
            raise RuntimeError("%s(): Expect _random_samples to have 3 dimensions, got %d"
                               % (what, samples.dim()))
        if samples.dtype != input.dtype:
            raise RuntimeError("%s(): Expect _random_samples to have the same dtype as input"
                               % what)
        if samples.shape[0] < (input.shape[0] if batched else 1):
            raise RuntimeError("%s(): Expect _random_samples.size(0) no less then input batch "
                               "size." % what)
        if samples.shape[1] != c:
            raise RuntimeError("%s(): Expect _random_samples.size(1) equals to input channel "
                               "size." % what)
        if samples.shape[2] != n:
            raise RuntimeError("%s(): Expect _random_samples.size(2) equals to %d; got %d."
                               % (what, n, samples.shape[2]))
        samples = samples.data
    for d in range(n):
        # torch's bound: <= for 2-d, strictly below for 3-d (FractionalMaxPool3d.cpp)
        if o[d] + k[d] - 1 > sizes[d] - (n == 3):
            name = _FRACTIONAL_NAMES[n][d]
            raise RuntimeError("%s(): pool %s %d too large relative to input %s %d"
                               % (what, name, k[d], name, sizes[d]))
    xp = _xp(input)
    samples = _host(samples)[:b]
    dt = _np.dtype(input.data.dtype)
    # the flat input position of every (plane, output cell, window tap)
    strides = [int(_np.prod(sizes[d + 1:])) for d in range(n)]
    flat_pos = _np.zeros((b, c) + o + k, dtype=_np.int64)
    # torch's sample order: (w, h) per plane for 2-d, (t, h, w) for 3-d
    order = (1, 0) if n == 2 else (0, 1, 2)
    for d in range(n):
        starts = _fractional_intervals(samples[:, :, order[d]], sizes[d], o[d], k[d], dt)
        shape = [b, c] + [1] * (2 * n)
        shape[2 + d] = o[d]
        taps = [1] * (2 * n)
        taps[n + d] = k[d]
        flat_pos = flat_pos + (starts.reshape(shape)
                               + _np.arange(k[d]).reshape([1, 1] + taps)) * strides[d]
    p_cells, k_cells = int(_np.prod(o)), int(_np.prod(k))
    flat_pos = flat_pos.reshape(b, c, p_cells, k_cells)
    lead = tuple(input.shape[:input.dim() - n])
    flat = input.reshape(lead + (int(_np.prod(sizes)),))
    data = flat.data if batched else flat.data[None]
    if data.size == 0 or p_cells == 0:
        pos = xp.zeros((b, c, p_cells), dtype=_np.int64)
    else:
        cells = xp.asarray(flat_pos)
        vals = xp.take_along_axis(data, cells.reshape(b, c, -1), -1).reshape(cells.shape)
        # torch's scan: the first of equal maxima, the last NaN; all -inf: the first tap
        nan = xp.isnan(vals)
        last_nan = nan.shape[-1] - 1 - xp.argmax(nan[..., ::-1], -1)
        pick = xp.where(nan.any(-1), last_nan, xp.argmax(vals, -1))
        pos = xp.take_along_axis(cells, pick[..., None], -1)[..., 0]
    if not batched:
        pos = pos[0]
    out = _engine._grad_depends_on(pyad.gather(flat, flat.dim() - 1, pos), flat)
    return out.reshape(lead + o), pyad.Variable(pos.reshape(lead + o))


def fractional_max_pool2d_with_indices(input, kernel_size, output_size=None, output_ratio=None,
                                       return_indices=False, _random_samples=None):
    """`fractional_max_pool2d` that returns ``(output, indices)``."""
    return _fractional_max_pool(input, kernel_size, output_size, output_ratio,
                                _random_samples, 2)


def fractional_max_pool2d(input, kernel_size, output_size=None, output_ratio=None,
                          return_indices=False, _random_samples=None):
    """2-D fractional max pooling over ``(N, C, H, W)`` or ``(C, H, W)``
    (``F.fractional_max_pool2d``): ``kernel_size`` windows at pseudo-random starts
    (torch's interval sequence from ``_random_samples`` ``(N, C, 2)`` in ``[0, 1)``, one
    ``(w, h)`` pair per plane; drawn with `pyad.rand` when not given), to ``output_size``
    or ``output_ratio`` times the input size. With ``return_indices`` also the flat
    ``H * W`` index of each maximum. The gradient goes to the chosen entries.

    >>> x = pyad.arange(16.0).reshape(1, 1, 4, 4)
    >>> fractional_max_pool2d(x, 2, output_size=2, _random_samples=pyad.zeros(1, 1, 2))
    tensor([[[[ 5.,  7.],
              [13., 15.]]]])
    """
    out, idx = fractional_max_pool2d_with_indices(input, kernel_size, output_size,
                                                  output_ratio, False, _random_samples)
    return (out, idx) if return_indices else out


def fractional_max_pool3d_with_indices(input, kernel_size, output_size=None, output_ratio=None,
                                       return_indices=False, _random_samples=None):
    """`fractional_max_pool3d` that returns ``(output, indices)``."""
    return _fractional_max_pool(input, kernel_size, output_size, output_ratio,
                                _random_samples, 3)


def fractional_max_pool3d(input, kernel_size, output_size=None, output_ratio=None,
                          return_indices=False, _random_samples=None):
    """3-D fractional max pooling over ``(N, C, T, H, W)`` or ``(C, T, H, W)``
    (``F.fractional_max_pool3d``); ``_random_samples`` is ``(N, C, 3)``, one
    ``(t, h, w)`` triple per plane. See `fractional_max_pool2d`.

    >>> x = pyad.arange(8.0).reshape(1, 1, 2, 2, 2)
    >>> fractional_max_pool3d(x, 1, output_size=1, _random_samples=pyad.zeros(1, 1, 3))
    tensor([[[[[7.]]]]])
    """
    out, idx = fractional_max_pool3d_with_indices(input, kernel_size, output_size,
                                                  output_ratio, False, _random_samples)
    return (out, idx) if return_indices else out


def adaptive_max_pool3d_with_indices(input, output_size, return_indices=False):
    """`adaptive_max_pool3d` that returns ``(output, indices)``."""
    what = "adaptive_max_pool3d"
    input = _var(input)
    for v in (output_size if isinstance(output_size, (tuple, list)) else (output_size,)):
        if v is None and isinstance(output_size, (tuple, list)):
            continue                        # None in a tuple: that input size, as torch's
        if not isinstance(v, numbers.Integral) or isinstance(v, bool):
            raise TypeError("%s(): output_size must be an int or a tuple of ints (None "
                            "entries allowed), not %s" % (what, type(v).__name__))
    if isinstance(output_size, (tuple, list)):
        # torch's _list_with_default: only a sequence output_size is checked here
        _adaptive_dim_check(input, len(output_size), what)
    if input.dim() not in (4, 5):
        raise RuntimeError("%s(): Expected 4D or 5D Variable, but got: %s"
                           % (what, list(input.shape)))
    _adaptive_float_check(input, what, "adaptive_max_pool3d_cpu")
    _adaptive_nonempty_check(input, 3, what)
    o = output_size if isinstance(output_size, (tuple, list)) else (output_size,) * 3
    if len(o) != 3:
        raise RuntimeError("%s(): internal error: output_size.size() must be 3" % what)
    sizes = tuple(input.shape[input.dim() - 3:])
    o = tuple(sizes[i] if o[i] is None else int(o[i]) for i in range(3))
    if any(v < 0 for v in o):
        raise RuntimeError("%s(): output_size must be non-negative, got %s" % (what, o))
    _output_size_guard(what, tuple(input.shape[:input.dim() - 3]) + o)
    bounds = [_adaptive_cells(sizes[i], o[i]) for i in range(3)]
    ks = [max([e - s for s, e in zip(*bounds[i])] or [1]) for i in range(3)]
    # every output cell's window is gathered at once: (batch, C, cells, window taps)
    _output_size_guard(what, tuple(input.shape[:input.dim() - 3]) + o + tuple(ks),
                       "the windows gathered for an output (sizes, then window taps)")
    cells = _adaptive_cells_3d(bounds, ks, sizes, o)
    lead = tuple(input.shape[:input.dim() - 3])
    flat = input.reshape(lead + (int(_np.prod(sizes)),))
    out, pos = _choose_max(flat, cells, what)
    from pyad.nn._functional_layers import _in_format_of
    ref = input if input.dim() == 5 else None
    out = out.reshape(lead + o)
    idx = pyad.Variable(pos.reshape(lead + o))
    if ref is not None:
        out, idx = _in_format_of(out, ref), _in_format_of(idx, ref)
    return _adaptive_empty_output_guard(out, 3, what), idx


def adaptive_max_pool3d(input, output_size, return_indices=False):
    """3-D adaptive max pooling to ``output_size`` over ``(N, C, D, H, W)`` or
    ``(C, D, H, W)`` (``F.adaptive_max_pool3d``); with ``return_indices`` also the flat
    ``D * H * W`` index of each maximum (for `max_unpool3d`). The gradient goes to the
    first maximum (a NaN, the last one, wins as in torch).

    >>> adaptive_max_pool3d(pyad.arange(8.0).reshape(1, 2, 2, 2), 1).flatten()
    tensor([7.])
    """
    out, idx = adaptive_max_pool3d_with_indices(input, output_size)
    return (out, idx) if return_indices else out


def max_unpool3d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """The partial inverse of `max_pool3d`: each value put back at its ``indices`` (flat
    ``D * H * W`` positions), zeros elsewhere, over ``(N, C, D, H, W)`` or
    ``(C, D, H, W)`` (``F.max_unpool3d``).

    >>> out, idx = max_pool3d(pyad.arange(8.0).reshape(1, 2, 2, 2), 2, return_indices=True)
    >>> max_unpool3d(out, idx, 2).flatten()
    tensor([0., 0., 0., 0., 0., 0., 0., 7.])
    """
    what = "max_unpool3d"
    input = _var(input)
    for name, v in (("kernel_size", kernel_size), ("stride", stride), ("padding", padding)):
        if isinstance(v, (tuple, list)) and len(v) != 3:
            raise RuntimeError("%s(): There should be exactly three elements (depth, height, "
                               "width) in %s, but got %d elements." % (what, name, len(v)))
    if input.dim() not in (4, 5):
        raise RuntimeError("%s(): Input to max_unpooling3d should be a 4d or 5d Variable, but "
                           "got a Variable with %d dimensions." % (what, input.dim()))
    s = _tuple(stride if stride is not None else kernel_size, 3, what, "stride")
    if any(int(v) <= 0 for v in s):
        raise RuntimeError("%s(): strides should be greater than zero, but got stride: %s"
                           % (what, list(s)))
    size = _unpool_size(input, kernel_size, stride, padding, output_size, 3, what)
    if _np.dtype(_var(indices).dtype) != _np.int64:
        raise RuntimeError("%s(): elements in indices should be type int64" % what)
    return _max_unpool(input, indices, size, what, 3)
