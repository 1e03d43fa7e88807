"""More of ``torch.nn.functional``: 1-D pooling, interpolation, pixel shuffle, channel
dropout, instance normalisation, bilinear, and scaled dot-product attention.

All are compositions of differentiable pyad ops (so they differentiate twice and more);
``pyad.nn.functional`` re-exports them.
"""
import math
import numbers
import warnings

import numpy as _np

import pyad
from pyad._engine import Variable, matmul
from pyad._engine import max_pool2d, avg_pool2d, adaptive_avg_pool2d
from pyad._engine import _TORCH_INT_NAMES

__all__ = ["max_pool1d", "avg_pool1d", "adaptive_avg_pool1d", "interpolate", "upsample",
           "pixel_shuffle", "pixel_unshuffle", "dropout1d", "dropout2d", "instance_norm",
           "bilinear", "scaled_dot_product_attention", "multi_head_attention_forward"]


def _refuse_complex(what, *inputs):
    # torch has no complex kernel for these
    if any(_np.dtype(x.dtype).kind == "c" for x in inputs):
        raise NotImplementedError("%s(): does not support complex input" % what)


def _var(x):
    return x if isinstance(x, Variable) else pyad.tensor(x)


def _single(x, what, name):
    if isinstance(x, (tuple, list)):
        if len(x) != 1:
            raise RuntimeError("%s(): %s must be a single int or a 1-tuple, got %r"
                               % (what, name, x))
        return x[0]
    return x


def _pool1d_positive(what, k, s, dilation):
    # checked here so the message names the 1-d op and its 1-d arguments, not the
    # max_pool2d/avg_pool2d this delegates to
    d = _single(dilation, what, "dilation")
    if k <= 0 or s <= 0 or d <= 0:
        raise RuntimeError("%s(): kernel_size, stride and dilation must be greater than "
                           "zero, got kernel_size=%s, stride=%s, dilation=%s"
                           % (what, k, s, d))


def _pool1d_input(input, what):
    input = _var(input)
    if input.dim() not in (2, 3):
        raise RuntimeError("%s(): Expected 2D or 3D (batch mode) tensor for input, got %dD "
                           "with shape %s" % (what, input.dim(), tuple(input.shape)))
    return input


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """1-D max pooling over ``(N, C, L)`` or ``(C, L)``, as ``F.max_pool1d``.

    >>> max_pool1d(pyad.tensor([[[1.0, 3.0, 2.0, 5.0]]]), 2)
    tensor([[[3., 5.]]])
    """
    what = "max_pool1d"
    input = _pool1d_input(input, what)
    kind = _np.dtype(input.dtype).kind
    if kind in "biu" and not return_indices:
        # torch's max_pool1d kernel (taken when nothing requires grad, as integers never
        # do) has no integer types; with return_indices it pools as max_pool2d does
        raise NotImplementedError('%s(): "max_pool1d_impl" not implemented for \'%s\''
                                  % (what, _TORCH_INT_NAMES[str(input.dtype)]))
    k = _single(kernel_size, what, "kernel_size")
    s = k if stride is None or (isinstance(stride, (tuple, list)) and not stride) \
        else _single(stride, what, "stride")
    _pool1d_positive(what, k, s, dilation)
    out = max_pool2d(input.unsqueeze(-2), (1, k), (1, s), (0, _single(padding, what,
                                                                      "padding")),
                     (1, _single(dilation, what, "dilation")), ceil_mode, return_indices)
    if return_indices:
        return out[0].squeeze(-2), out[1].squeeze(-2)
    return out.squeeze(-2)


def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True):
    """1-D average pooling over ``(N, C, L)`` or ``(C, L)``, as ``F.avg_pool1d``.

    >>> avg_pool1d(pyad.tensor([[[1.0, 3.0, 2.0, 5.0]]]), 2)
    tensor([[[2.0000, 3.5000]]])
    """
    what = "avg_pool1d"
    input = _pool1d_input(input, what)
    k = _single(kernel_size, what, "kernel_size")
    s = k if stride is None or (isinstance(stride, (tuple, list)) and not stride) \
        else _single(stride, what, "stride")
    _pool1d_positive(what, k, s, 1)
    return avg_pool2d(input.unsqueeze(-2), (1, k), (1, s),
                      (0, _single(padding, what, "padding")), ceil_mode,
                      count_include_pad).squeeze(-2)


def adaptive_avg_pool1d(input, output_size):
    """1-D adaptive average pooling to ``output_size``, as ``F.adaptive_avg_pool1d``.

    >>> adaptive_avg_pool1d(pyad.tensor([[[1.0, 3.0, 2.0, 6.0]]]), 1)
    tensor([[[3.]]])
    """
    what = "adaptive_avg_pool1d"
    input = _pool1d_input(input, what)
    out = adaptive_avg_pool2d(input.unsqueeze(-2),
                              (1, _single(output_size, what, "output_size"))).squeeze(-2)
    from pyad.nn._functional_more import _adaptive_empty_output_guard
    return _adaptive_empty_output_guard(out, 1, what)


# -- interpolation -------------------------------------------------------------------


_INTERP_MODES = ("nearest", "nearest-exact", "linear", "bilinear", "bicubic", "trilinear",
                 "area")


def _index_var(idx, like):
    t = pyad.tensor(_np.asarray(idx, dtype=_np.int64), dtype=pyad.int64)
    return t.to(like.device) if like.device.type != "cpu" else t



def _suggested_format(v):
    """torch's ``suggest_memory_format`` of a 4-d / 5-d Variable: channels_last(_3d) when
    its strides are that layout's and not C order's, else contiguous_format."""
    if v.dim() == 4 and not v.is_contiguous() and \
            v.is_contiguous(memory_format=pyad.channels_last):
        return pyad.channels_last
    if v.dim() == 5 and not v.is_contiguous() and \
            v.is_contiguous(memory_format=pyad.channels_last_3d):
        return pyad.channels_last_3d
    return pyad.contiguous_format


def _in_format_of(out, input):
    # torch's upsample and adaptive pooling kernels write their result in the input's
    # suggested memory format (C order, or channels_last for a channels_last input)
    data = input.data
    if data.flags.c_contiguous and out.data.flags.c_contiguous and (
            data.ndim < 4 or data.shape[1] != 1):
        return out      # (the common case: C order in and out, no format to ask about)
    return out.contiguous(memory_format=_suggested_format(input))


_INT64_MAX = 2 ** 63 - 1


def _is_integer_size(s):
    """An output size torch's interpolate accepts: a Python/NumPy integer or
    an integer Variable."""
    if isinstance(s, Variable):
        return _np.dtype(s.dtype).kind in "iu"
    return isinstance(s, numbers.Integral)


def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,
                recompute_scale_factor=None, antialias=False):
    """Resize the spatial dimensions of ``(N, C, *spatial)`` input, as ``F.interpolate``:
    modes ``'nearest'``, ``'nearest-exact'`` (any number of spatial dims), ``'area'``
    (adaptive average pooling, 3-D to 5-D input), ``'linear'`` (3-D input),
    ``'bilinear'`` and ``'bicubic'`` (4-D input) and ``'trilinear'`` (5-D input), with
    torch's ``align_corners`` and ``scale_factor`` conventions; ``antialias=True`` (for
    'bilinear' and 'bicubic') filters as torch's separable antialiased kernels (floating
    point or uint8 input; uint8 as torch's fixed-point uint8 kernels).

    >>> interpolate(pyad.tensor([[[1.0, 2.0]]]), scale_factor=2)
    tensor([[[1., 1., 2., 2.]]])
    >>> interpolate(pyad.tensor([[[[0.0, 1.0]]]]), size=(1, 3), mode="bilinear",
    ...             align_corners=True)
    tensor([[[[0.0000, 0.5000, 1.0000]]]])
    """
    what = "interpolate"
    input = _var(input)
    _refuse_complex(what, input)
    if mode not in _INTERP_MODES:
        raise NotImplementedError(
            "Input Error: Only 3D, 4D and 5D input Tensors supported (got %dD) for the modes: "
            "nearest | linear | bilinear | bicubic | trilinear | area | nearest-exact (got %s)"
            % (input.dim(), mode))
    if antialias and not (mode in ("bilinear", "bicubic") and input.dim() == 4):
        raise ValueError("%s(): Anti-alias option is restricted to bilinear and bicubic modes "
                         "and requires a 4-D Variable as input" % what)
    if input.dtype.itemsize == 2 and input.is_floating_point():   # float16, bfloat16
        # torch's CPU kernels compute half / bfloat16 input in float32 (their accumulate
        # type), the forward rounded once at the end, the backward's sums in float32 too
        return interpolate(input.float(), size, scale_factor, mode, align_corners,
                           recompute_scale_factor, antialias).to(input.dtype)
    if not antialias and not input.is_floating_point():
        # torch's CPU kernels: floating point input, and uint8 for the nearest modes and
        # the 4-D bilinear / bicubic ones; other integer and bool input is refused
        if not (_np.dtype(input.dtype) == _np.uint8 and (
                mode in ("nearest", "nearest-exact")
                or (mode in ("bilinear", "bicubic") and input.dim() == 4))):
            raise NotImplementedError('%s(): "upsample_%s" not implemented for %s Variables'
                                      % (what, mode, _np.dtype(input.dtype).name))
    if mode in ("nearest", "nearest-exact", "area"):
        if align_corners is not None:
            raise ValueError("align_corners option can only be set with the interpolating "
                             "modes: linear | bilinear | bicubic | trilinear")
    elif align_corners is None:
        align_corners = False
    dim = input.dim() - 2
    if dim < 1:
        raise ValueError("%s(): expected an input of at least 3 dimensions (N, C, *spatial), "
                         "got %dD" % (what, input.dim()))
    if mode == "linear" and dim != 1:
        raise NotImplementedError("Got %dD input, but linear mode needs 3D input" % input.dim())
    for name, needs in (("bilinear", 2), ("bicubic", 2), ("trilinear", 3)):
        if mode == name and dim != needs:
            raise NotImplementedError("Got %dD input, but %s mode needs %dD input"
                                      % (input.dim(), name, needs + 2))
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    in_sizes = tuple(input.shape[2:])
    if size is not None:
        sizes = size if isinstance(size, (tuple, list)) else (size,)
        if not all(_is_integer_size(s) for s in sizes):
            # torch's TypeError, word for word
            raise TypeError("expected size to be one of int or Tuple[int] or Tuple[int, int] "
                            "or Tuple[int, int, int], but got size with types %s"
                            % [type(s) for s in sizes])
        if isinstance(size, (tuple, list)):
            if len(size) != dim:
                raise ValueError("Input and output must have the same number of spatial "
                                 "dimensions, but got input with spatial dimensions of %s and "
                                 "output size of %s. Please provide input tensor in (N, C, "
                                 "d1, d2, ...,dK) format and output size in (o1, o2, ...,oK) "
                                 "format." % (list(in_sizes), list(size)))
            out_sizes = tuple(int(s) for s in size)
        else:
            out_sizes = (int(size),) * dim
        scales = [None] * dim
    elif scale_factor is not None:
        if isinstance(scale_factor, (tuple, list)):
            if len(scale_factor) != dim:
                raise ValueError("Input and scale_factor must have the same number of spatial "
                                 "dimensions, but got input with spatial dimensions of %s and "
                                 "scale_factor of shape %s. Please provide input tensor in "
                                 "(N, C, d1, d2, ...,dK) format and scale_factor in (s1, s2, "
                                 "...,sK) format." % (list(in_sizes), list(scale_factor)))
            factors = [float(f) for f in scale_factor]
        else:
            factors = [float(scale_factor)] * dim
        if not all(math.isfinite(f) for f in factors):
            raise RuntimeError("%s(): scale_factor must be finite, got %s (the output size "
                               "cannot be converted to int64 without overflow)"
                               % (what, list(factors)))
        out_sizes = tuple(int(math.floor(n * f)) for n, f in zip(in_sizes, factors))
        scales = [None] * dim if recompute_scale_factor else factors
    else:
        raise ValueError("either size or scale_factor should be defined")
    if any(s > _INT64_MAX for s in out_sizes):
        raise RuntimeError("%s(): the output size %s cannot be converted to int64 without "
                           "overflow" % (what, list(out_sizes)))
    if any(s <= 0 for s in out_sizes):
        raise RuntimeError("%s(): Input and output sizes should be greater than 0, but got "
                           "input (%s) and output (%s)" % (what, in_sizes, out_sizes))
    if mode == "area":           # torch's: adaptive average pooling to the output size
        from pyad.nn._functional_more import adaptive_avg_pool3d
        pool = {1: adaptive_avg_pool1d, 2: adaptive_avg_pool2d, 3: adaptive_avg_pool3d}
        if dim not in pool:
            raise NotImplementedError("%s(): mode 'area' takes 3-D to 5-D input, got %dD"
                                      % (what, input.dim()))
        return _in_format_of(pool[dim](input, out_sizes), input)
    out = input
    if antialias:
        kind = _np.dtype(input.dtype).kind
        if kind != "f" and _np.dtype(input.dtype) != _np.uint8:
            raise NotImplementedError('%s(): "compute_index_ranges_weights" not implemented '
                                      "for %s Variables with antialias=True (floating point "
                                      "or uint8 only)" % (what, _np.dtype(input.dtype).name))
        if any(n <= 0 for n in in_sizes):
            raise RuntimeError("%s(): Input and output sizes should be greater than 0, but "
                               "got input (%s) and output (%s)" % (what, in_sizes, out_sizes))
        if input.shape[1] == 0:
            raise RuntimeError("%s(): Non-empty 4D data Variable expected but got a Variable "
                               "with sizes %s" % (what, list(input.shape)))
        _aa_size_check(what, input, out_sizes)
        # torch's separable antialiased resampling: the last dim first, then the one before
        # (uint8 in float32, rounded back and clamped as torch's uint8 kernels)
        try:
            for d in reversed(range(dim)):
                if kind != "f" and in_sizes[d] == out_sizes[d] and scales[d] in (None, 1.0):
                    continue              # torch's uint8 kernels skip a pass of equal size
                out = _aa_along(out, 2 + d, in_sizes[d], out_sizes[d], align_corners,
                                scales[d], mode, out, fixed_point=kind != "f")
        except MemoryError as e:
            raise RuntimeError("%s(): can't allocate memory for the antialiased output of "
                               "sizes %s (%s)" % (what, list(input.shape[:2]) + list(out_sizes),
                                                  e)) from None
        return _in_format_of(out, input)
    if _np.dtype(input.dtype) == _np.uint8 and mode in ("bilinear", "bicubic"):
        # torch's uint8 kernels: the last dim first, a pass of equal size skipped
        for d in reversed(range(dim)):
            if in_sizes[d] == out_sizes[d] and scales[d] in (None, 1.0):
                continue
            out = _uint8_along(out, 2 + d, in_sizes[d], out_sizes[d], align_corners,
                               scales[d], mode)
        return _in_format_of(out, input)
    for d in range(dim):
        n_in, n_out = in_sizes[d], out_sizes[d]
        axis = 2 + d
        i = _np.arange(n_out, dtype=_np.float64)
        if mode in ("nearest", "nearest-exact"):
            scale = (1.0 / scales[d]) if scales[d] else n_in / n_out
            if mode == "nearest":
                src = _np.floor(i * scale).astype(_np.int64)
            else:
                src = _np.floor((i + 0.5) * scale).astype(_np.int64)
            src = _np.minimum(src, n_in - 1)
            if n_in != n_out or _np.any(src != _np.arange(n_out)):
                out = out.index_select(axis, _index_var(src, input))
            continue
        if align_corners:
            scale = (n_in - 1) / (n_out - 1) if n_out > 1 else 0.0
            src = i * scale
        else:
            scale = (1.0 / scales[d]) if scales[d] else n_in / n_out
            src = (i + 0.5) * scale - 0.5
            if mode != "bicubic":        # torch clamps the source index for linear only
                src = _np.maximum(src, 0.0)
        view = [1] * out.dim()
        view[axis] = n_out
        if mode == "bicubic":
            out = _cubic_along(out, axis, src, n_in, view, input)
            continue
        i0 = _np.minimum(_np.floor(src).astype(_np.int64), n_in - 1)
        i1 = _np.minimum(i0 + 1, n_in - 1)
        lam = src - i0
        lam_v = pyad.tensor(lam.reshape(view), dtype=input.dtype, device=input.device)
        a = out.index_select(axis, _index_var(i0, input))
        b = out.index_select(axis, _index_var(i1, input))
        out = a + (b - a) * lam_v
    return _in_format_of(out, input)


# torch's cubic convolution kernel (Keys, a = -0.75), as upsample_bicubic2d
_CUBIC_A = -0.75


def _cubic_near(t):                  # |x| <= 1
    a = _CUBIC_A
    return ((a + 2) * t - (a + 3)) * t * t + 1


def _cubic_far(t):                   # 1 < |x| < 2
    a = _CUBIC_A
    return ((a * t - 5 * a) * t + 8 * a) * t - 4 * a


def _cubic_along(out, axis, src, n_in, view, like):
    # Four taps around floor(src), their indices clamped into the input (torch's
    # upsample_get_value_bounded), weighted by the cubic kernel at the distances.
    base = _np.floor(src)
    t = src - base
    base = base.astype(_np.int64)
    weights = (_cubic_far(t + 1.0), _cubic_near(t), _cubic_near(1.0 - t), _cubic_far(2.0 - t))
    result = None
    for k, w in enumerate(weights):
        idx = _np.clip(base - 1 + k, 0, n_in - 1)
        term = out.index_select(axis, _index_var(idx, like)) * pyad.tensor(
            w.reshape(view), dtype=like.dtype, device=like.device)
        result = term if result is None else result + term
    return result


def _uint8_along(out, axis, n_in, n_out, align_corners, scale_factor, mode):
    # torch's uint8 bilinear / bicubic kernels without antialias: int16 fixed-point
    # weights (as the antialiased uint8 path, _aa_uint8_pass), each pass rounded and
    # clamped to uint8. bilinear: the triangle filter around the source centre (torch's
    # _compute_index_ranges_weights); bicubic: the four clamped taps of the a = -0.75
    # kernel, the source index and weights in float32 (torch's opmath type for uint8;
    # checked equal to torch 2.13 for bilinear, and within 1 for bicubic, where a rare
    # rounding of the fixed-point sum differs)
    if mode == "bilinear":
        if align_corners:
            scale = (n_in - 1) / (n_out - 1) if n_out > 1 else 0.0
        else:
            scale = (1.0 / scale_factor) if scale_factor else n_in / n_out
        i = _np.arange(n_out, dtype=_np.float64)
        center = scale * i + 0.5 if align_corners else scale * (i + 0.5)
        xmin = _np.maximum((center - 0.5).astype(_np.int64), 0)
        xsize = _np.clip(_np.minimum((center + 1.5).astype(_np.int64), n_in) - xmin, 0, 3)
        j = _np.arange(3)
        w = _aa_filter(j[None, :] + xmin[:, None] - center[:, None] + 0.5, "bilinear")
        w = _np.where(j[None, :] < xsize[:, None], w, 0.0)
        total = w.sum(1, keepdims=True)
        w = _np.where(total != 0, w / _np.where(total != 0, total, 1.0), w)
        return _aa_uint8_pass(out, axis, n_in, xmin, w)
    f32 = _np.float32
    i = _np.arange(n_out, dtype=f32)
    if align_corners:
        src = i * f32((n_in - 1) / (n_out - 1) if n_out > 1 else 0.0)
    else:
        scale = (1.0 / scale_factor) if scale_factor else n_in / n_out
        src = (i + f32(0.5)) * f32(scale) - f32(0.5)
    base = _np.floor(src)
    t = (src - base).astype(f32)
    a, one = f32(_CUBIC_A), f32(1.0)

    def near(x):
        return ((a + 2) * x - (a + 3)) * x * x + 1

    def far(x):
        return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a

    w = _np.stack([far(t + one), near(t), near(one - t), far(f32(2.0) - t)], 1)
    return _aa_uint8_pass(out, axis, n_in, base.astype(_np.int64) - 1,
                          w.astype(_np.float64))


def _aa_filter(x, mode):
    # torch's antialias filters (UpSampleKernel.cpp): the triangle for bilinear, the
    # cubic convolution with a = -0.5 (Keys, as PIL) for bicubic
    x = _np.abs(x)
    if mode == "bilinear":
        return _np.where(x < 1.0, 1.0 - x, 0.0)
    a = -0.5
    near = ((a + 2) * x - (a + 3)) * x * x + 1
    far = ((a * x - 5 * a) * x + 8 * a) * x - 4 * a
    return _np.where(x < 1.0, near, _np.where(x < 2.0, far, 0.0))


def _aa_along(out, axis, n_in, n_out, align_corners, scale_factor, mode, like,
              fixed_point=False):
    # torch's _compute_weights_aa: output i averages the input around
    # center = scale * (i + 0.5) with the filter stretched by the scale when
    # downsampling, the weights normalised to sum 1
    if align_corners:
        scale = (n_in - 1) / (n_out - 1) if n_out > 1 else 0.0
    else:
        scale = (1.0 / scale_factor) if scale_factor else n_in / n_out
    interp = 2 if mode == "bilinear" else 4
    support = interp * 0.5 * scale if scale >= 1.0 else interp * 0.5
    invscale = 1.0 / scale if scale >= 1.0 else 1.0
    taps = int(math.ceil(support)) * 2 + 1
    i = _np.arange(n_out, dtype=_np.float64)
    center = scale * (i + 0.5)
    xmin = _np.maximum((center - support + 0.5).astype(_np.int64), 0)
    xsize = _np.minimum((center + support + 0.5).astype(_np.int64), n_in) - xmin
    xsize = _np.clip(xsize, 0, taps)
    j = _np.arange(taps)
    w = _aa_filter((j[None, :] + xmin[:, None] - center[:, None] + 0.5) * invscale, mode)
    w = _np.where(j[None, :] < xsize[:, None], w, 0.0)
    total = w.sum(1, keepdims=True)
    w = _np.where(total != 0, w / _np.where(total != 0, total, 1.0), w)
    if fixed_point:
        return _aa_uint8_pass(out, axis, n_in, xmin, w)
    view = [1] * out.dim()
    view[axis] = n_out
    result = None
    for k in range(taps):
        if not _np.any(w[:, k]):
            continue
        idx = _np.clip(xmin + k, 0, n_in - 1)
        term = out.index_select(axis, _index_var(idx, like)) * pyad.tensor(
            w[:, k].reshape(view), dtype=like.dtype, device=like.device)
        result = term if result is None else result + term
    if result is None:
        result = out.index_select(axis, _index_var(_np.zeros(n_out, _np.int64), like)) * 0
    return result


# the most elements one antialiased pass may make (its taps' products are this size too)
_AA_MAX_ELEMENTS = 1 << 31


def _aa_uint8_pass(out, axis, n_in, xmin, w):
    # torch's uint8 kernels (_compute_index_ranges_int16_weights): int16 weights scaled by
    # 2**precision (the largest keeping the biggest weight below 2**15), an integer sum
    # rounded by adding half and shifting, clamped to [0, 255]; each pass gives uint8
    w_max = float(_np.abs(w).max()) if w.size else 0.0
    precision = 0
    while precision < 22:
        if int(0.5 + w_max * (1 << (precision + 1))) >= (1 << 15):
            break
        precision += 1
    scaled = w * (1 << precision)
    wi = _np.where(scaled < 0, -0.5 + scaled, 0.5 + scaled).astype(_np.int16).astype(_np.int64)
    from pyad.nn._functional_more import _host
    data = _np.asarray(_host(out.data)).astype(_np.int64)
    moved = _np.moveaxis(data, axis, -1)
    acc = _np.zeros(moved.shape[:-1] + (w.shape[0],), dtype=_np.int64)
    for k in range(w.shape[1]):
        if not _np.any(wi[:, k]):
            continue
        idx = _np.clip(xmin + k, 0, n_in - 1)
        acc += moved[..., idx] * wi[:, k]
    if precision > 0:
        acc = (acc + (1 << (precision - 1))) >> precision
    res = _np.clip(acc, 0, 255).astype(_np.uint8)
    res = _np.ascontiguousarray(_np.moveaxis(res, -1, axis))
    return pyad.tensor(res, device=out.device)


def _aa_size_check(what, input, out_sizes):
    lead = int(_np.prod(input.shape[:2], dtype=_np.float64))
    n = lead * float(_np.prod([float(v) for v in out_sizes]))
    n = max(n, lead * input.shape[2] * float(out_sizes[1]))
    if n > _AA_MAX_ELEMENTS:
        raise RuntimeError("%s(): can't allocate memory: the antialiased output of sizes %s "
                           "would hold %d elements (more than %d)"
                           % (what, list(input.shape[:2]) + list(out_sizes), n,
                              _AA_MAX_ELEMENTS))


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):
    """Deprecated alias of `interpolate` (as torch's, with a warning)."""
    warnings.warn("nn.functional.upsample is deprecated. Use nn.functional.interpolate "
                  "instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode, align_corners)


def pixel_shuffle(input, upscale_factor):
    """``(*, C r^2, H, W) -> (*, C, H r, W r)``, as ``F.pixel_shuffle``.

    >>> pixel_shuffle(pyad.arange(4.0).reshape(1, 4, 1, 1), 2).reshape(2, 2)
    tensor([[0., 1.],
            [2., 3.]])
    """
    what = "pixel_shuffle"
    input = _var(input)
    r = int(upscale_factor)
    if input.dim() < 3:
        raise RuntimeError("%s(): expected input to have at least 3 dimensions, but got "
                           "input with %d dimension(s)" % (what, input.dim()))
    if r <= 0:
        raise RuntimeError("%s(): upscale_factor must be greater than 0 but got %d"
                           % (what, r))
    *batch, c, h, w = input.shape
    if c % (r * r):
        raise RuntimeError("%s(): channel dimension of the input (%d) must be divisible by "
                           "upscale_factor squared (%d)" % (what, c, r * r))
    nb = len(batch)
    x = input.reshape(tuple(batch) + (c // (r * r), r, r, h, w))
    perm = tuple(range(nb)) + (nb, nb + 3, nb + 1, nb + 4, nb + 2)
    # torch's kernel writes its result in the input's memory format (channels_last too)
    return _in_format_of(x.permute(*perm).reshape(tuple(batch) + (c // (r * r), h * r, w * r)),
                         input)


def pixel_unshuffle(input, downscale_factor):
    """``(*, C, H r, W r) -> (*, C r^2, H, W)``, the inverse of `pixel_shuffle`."""
    what = "pixel_unshuffle"
    input = _var(input)
    r = int(downscale_factor)
    if input.dim() < 3:
        raise RuntimeError("%s(): expected input to have at least 3 dimensions, but got "
                           "input with %d dimension(s)" % (what, input.dim()))
    if r <= 0:
        raise RuntimeError("%s(): downscale_factor must be greater than 0 but got %d"
                           % (what, r))
    *batch, c, h, w = input.shape
    if h % r or w % r:
        raise RuntimeError("%s(): height and width of the input (%d, %d) must be divisible "
                           "by downscale_factor (%d)" % (what, h, w, r))
    nb = len(batch)
    x = input.reshape(tuple(batch) + (c, h // r, r, w // r, r))
    perm = tuple(range(nb)) + (nb, nb + 2, nb + 4, nb + 1, nb + 3)
    return _in_format_of(x.permute(*perm).reshape(tuple(batch) + (c * r * r, h // r, w // r)),
                         input)


# -- dropout and normalisation -------------------------------------------------------


def _channel_dropout(input, p, training, inplace, what, batched_dim):
    if not 0.0 <= p <= 1.0:
        raise ValueError("dropout probability has to be between 0 and 1, but got %r" % (p,))
    input = _var(input)
    if input.dim() not in (batched_dim - 1, batched_dim):
        raise RuntimeError("%s(): Expected %dD or %dD input, got %dD"
                           % (what, batched_dim - 1, batched_dim, input.dim()))
    if not training or p == 0:
        return input
    from pyad._factories import _generator_for
    data = input.data
    xp = pyad.get_array_module(data)
    unbatched = input.dim() == batched_dim - 1
    lead = (1,) + tuple(data.shape[:1]) if unbatched else tuple(data.shape[:2])
    mask_shape = lead + (1,) * (batched_dim - 2)
    if unbatched:
        mask_shape = mask_shape[1:]
    if p == 1:
        factor = xp.zeros(mask_shape, data.dtype)
    else:
        keep = xp.asarray(_generator_for(data).random(mask_shape) >= p)
        factor = (keep * (1.0 / (1.0 - p))).astype(data.dtype)
    return input.mul_(factor) if inplace else input * factor


def _feature_dropout(input, p, training, inplace, what, mask_shape=None):
    """torch's ``feature_dropout``: one draw per entry of the first two dimensions (or of
    ``mask_shape``), broadcast over the rest."""
    if not 0.0 <= p <= 1.0:
        raise ValueError("dropout probability has to be between 0 and 1, but got %r" % (p,))
    input = _var(input)
    if input.dim() < (2 if mask_shape is None else 1):
        raise RuntimeError("%s(): Feature dropout requires at least 2 dimensions in the "
                           "input" % what)
    if not training or p == 0:
        return input
    from pyad._factories import _generator_for
    data = input.data
    xp = pyad.get_array_module(data)
    if mask_shape is None:
        mask_shape = tuple(data.shape[:2]) + (1,) * (input.dim() - 2)
    if p == 1:
        factor = xp.zeros(mask_shape, data.dtype)
    else:
        keep = xp.asarray(_generator_for(data).random(mask_shape) >= p)
        factor = (keep * (1.0 / (1.0 - p))).astype(data.dtype)
    return input.mul_(factor) if inplace else input * factor


def dropout1d(input, p=0.5, training=True, inplace=False):
    """Zero whole channels of ``(N, C, L)`` / ``(C, L)`` input with probability ``p``."""
    return _channel_dropout(input, p, training, inplace, "dropout1d", 3)


def dropout2d(input, p=0.5, training=True, inplace=False):
    """Zero whole channels of ``(N, C, H, W)`` / ``(C, H, W)`` input with probability
    ``p`` (the rest scaled by ``1 / (1 - p)``), as ``F.dropout2d``.

    >>> _ = pyad.manual_seed(0)
    >>> y = dropout2d(pyad.ones(1, 8, 2, 2))
    >>> v = y.data.reshape(8, 4)                # each channel all 0 or all 2
    >>> bool(((v == 0).all(1) | (v == 2).all(1)).all())
    True
    """
    input = _var(input)
    if input.dim() not in (3, 4):
        # torch warns, then drops along the first two dimensions whatever the rank
        warnings.warn("dropout2d: Received a %d-D input to dropout2d, which is deprecated and "
                      "will result in an error in a future release. To retain the behavior "
                      "and silence this warning, please use dropout instead. Note that "
                      "dropout2d exists to provide channel-wise dropout on inputs with 2 "
                      "spatial dimensions, a channel dimension, and an optional batch "
                      "dimension (i.e. 3D or 4D inputs)." % input.dim(), stacklevel=2)
        return _feature_dropout(input, p, training, inplace, "dropout2d")
    if input.dim() == 3:
        warnings.warn("dropout2d: Received a 3D input to dropout2d and assuming that channel-"
                      "wise 1D dropout behavior is desired - input is interpreted as shape "
                      "(N, C, L), where C is the channel dim. This behavior will change in a "
                      "future release to interpret the input as one without a batch "
                      "dimension, i.e. shape (C, H, W). To maintain the 1D channel-wise "
                      "dropout behavior, please switch to using dropout1d instead.")
        return _channel_dropout(input, p, training, inplace, "dropout2d", 3)
    return _channel_dropout(input, p, training, inplace, "dropout2d", 4)


def instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None,
                  use_input_stats=True, momentum=0.1, eps=1e-5):
    """Normalise each channel of each sample of ``(N, C, *)`` input over its spatial
    dimensions, as ``F.instance_norm`` (running statistics, when given, are updated with
    the batch average of the per-instance statistics).

    >>> instance_norm(pyad.tensor([[[1.0, 3.0], [0.0, 4.0]]]))
    tensor([[[-1.0000,  1.0000],
             [-1.0000,  1.0000]]])
    """
    what = "instance_norm"
    input = _var(input)
    _refuse_complex(what, input)
    if input.dim() < 3:
        raise ValueError("%s(): expected an input of at least 3 dimensions (N, C, *), got "
                         "shape %s" % (what, tuple(input.shape)))
    c = input.shape[1]
    from pyad.nn.functional import _norm_dtypes, _to_input_dtype
    _norm_dtypes(what, input, weight, bias)    # (torch takes running stats of any dtype)
    dims = tuple(range(2, input.dim()))
    view = (1, -1) + (1,) * (input.dim() - 2)
    count = int(_np.prod(input.shape[2:]))
    if use_input_stats:
        if count <= 1:
            raise ValueError("Expected more than 1 spatial element when training, got input "
                             "size %s" % (list(input.shape),))
        mean = input.mean(dims, keepdim=True)
        centred = input - mean
        var = (centred * centred).mean(dims, keepdim=True)
        with pyad.no_grad():
            if running_mean is not None:
                running_mean.mul_(1 - momentum).add_(
                    mean.detach().reshape(input.shape[0], c).mean(0) * momentum)
            if running_var is not None:
                unbiased = var.detach().reshape(input.shape[0], c).mean(0) * (
                    count / (count - 1))
                running_var.mul_(1 - momentum).add_(unbiased * momentum)
        out = centred * pyad.rsqrt(var + eps)
    else:
        if running_mean is None or running_var is None:
            raise ValueError("Expected running_mean and running_var to be defined when "
                             "use_input_stats is false")
        out = (input - _var(running_mean).reshape(view)) * pyad.rsqrt(
            _var(running_var).reshape(view) + eps)
    if weight is not None:
        out = out * _var(weight).reshape(view)
    if bias is not None:
        out = out + _var(bias).reshape(view)
    return _to_input_dtype(out, input)


def bilinear(input1, input2, weight, bias=None):
    """``y_k = x1 @ weight[k] @ x2 + bias_k`` over the last dimension, as ``F.bilinear``.

    >>> bilinear(pyad.ones(1, 2), pyad.ones(1, 3), pyad.ones(4, 2, 3)).tolist()
    [[6.0, 6.0, 6.0, 6.0]]
    """
    what = "bilinear"
    x1, x2, w = _var(input1), _var(input2), _var(weight)
    if pyad.is_grad_enabled() and any(_np.dtype(x.dtype).kind == "c" and x.requires_grad
                                      for x in (x1, x2, w)):
        # as torch: computed on complex input, but with no complex derivative
        raise RuntimeError("%s(): does not support automatic differentiation for outputs "
                           "with complex dtype." % what)
    if w.dim() != 3:
        raise RuntimeError("%s(): expected a 3-D weight (out, in1, in2), got %dD"
                           % (what, w.dim()))
    out_f, in1, in2 = w.shape
    if x1.dim() == 0 or x2.dim() == 0 or x1.shape[-1] != in1 or x2.shape[-1] != in2:
        raise RuntimeError("%s(): input1 and input2 must end in %d and %d features (weight "
                           "%s), got %s and %s" % (what, in1, in2, tuple(w.shape),
                                                   tuple(x1.shape), tuple(x2.shape)))
    if tuple(x1.shape[:-1]) != tuple(x2.shape[:-1]):
        raise RuntimeError("%s(): input1 and input2 must have the same leading dimensions, "
                           "got %s and %s" % (what, tuple(x1.shape), tuple(x2.shape)))
    t = matmul(x1, w.permute(1, 0, 2).reshape(in1, out_f * in2))
    t = t.reshape(tuple(x1.shape[:-1]) + (out_f, in2))
    out = (t * x2.unsqueeze(-2)).sum(-1)
    if bias is not None:
        out = out + _var(bias)
    return out


# -- attention -----------------------------------------------------------------------


def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0,
                                 is_causal=False, scale=None, enable_gqa=False):
    """``softmax(Q K^T * scale + mask) V`` over the last two dimensions, as
    ``F.scaled_dot_product_attention``: ``attn_mask`` boolean (True = take part) or
    additive float, ``is_causal`` for a lower-triangular mask, ``dropout_p`` applied to
    the attention weights, ``scale`` defaults to ``1/sqrt(E)``.

    >>> q = k = v = pyad.eye(2).reshape(1, 2, 2)
    >>> scaled_dot_product_attention(q, k, v, is_causal=True)
    tensor([[[1.0000, 0.0000],
             [0.3302, 0.6698]]])
    """
    what = "scaled_dot_product_attention"
    if attn_mask is not None and type(attn_mask).__name__ == "CausalBias":
        # pyad.nn.attention.bias's causal biases run their own attention (as torch's)
        from pyad.nn.attention.bias import CausalBias
        if isinstance(attn_mask, CausalBias):
            return attn_mask._dispatch(query, key, value, attn_mask, dropout_p=dropout_p,
                                       is_causal=is_causal, scale=scale,
                                       enable_gqa=enable_gqa)
    q, k, v = _var(query), _var(key), _var(value)
    _refuse_complex(what, q, k, v)
    from pyad.nn.attention import _check_kernel
    _check_kernel(q, dropout_p)
    if q.dim() < 2 or k.dim() < 2 or v.dim() < 2:
        raise RuntimeError("%s(): query, key and value must have at least 2 dimensions" % what)
    if q.shape[-1] != k.shape[-1]:
        raise RuntimeError("%s(): query and key must have the same embedding size, got %d "
                           "and %d" % (what, q.shape[-1], k.shape[-1]))
    if k.shape[-2] != v.shape[-2]:
        raise RuntimeError("%s(): key and value must have the same sequence length, got %d "
                           "and %d" % (what, k.shape[-2], v.shape[-2]))
    if q.dtype != k.dtype or q.dtype != v.dtype:
        raise RuntimeError("Expected query, key, and value to have the same dtype, but got "
                           "query.dtype: %s key.dtype: %s and value.dtype: %s instead."
                           % (q.dtype, k.dtype, v.dtype))
    if attn_mask is not None:
        m_dtype = _var(attn_mask).dtype
        if m_dtype not in (pyad.bool, pyad.float32, q.dtype):
            # torch's rule: a bool mask, a float32 one, or one of the query's dtype
            raise RuntimeError("%s(): expected attn_mask dtype to be bool or float or to "
                               "match query dtype, but got attn_mask.dtype: %s and "
                               "query.dtype: %s instead." % (what, m_dtype, q.dtype))
    if enable_gqa and q.dim() >= 3 and k.shape[-3] != q.shape[-3]:
        rep = q.shape[-3] // k.shape[-3]
        k = pyad.stack([k] * rep, -3).reshape(tuple(k.shape[:-3]) + (k.shape[-3] * rep,)
                                              + tuple(k.shape[-2:]))
        v = pyad.stack([v] * rep, -3).reshape(tuple(v.shape[:-3]) + (v.shape[-3] * rep,)
                                              + tuple(v.shape[-2:]))
    L, S = q.shape[-2], k.shape[-2]
    scale_factor = 1.0 / math.sqrt(q.shape[-1]) if scale is None else float(scale)
    scores = matmul(q, k.transpose(-2, -1)) * scale_factor
    if is_causal:
        if attn_mask is not None:
            raise RuntimeError("%s(): _scaled_dot_product_attention: Explicit attn_mask "
                               "should not be set when is_causal=True" % what)
        keep = _np.tril(_np.ones((L, S), dtype=bool))
        scores = pyad.masked_fill(scores, pyad.tensor(~keep, device=q.device), float("-inf"))
    elif attn_mask is not None:
        mask = _var(attn_mask)
        if mask.dtype == pyad.bool:
            scores = pyad.masked_fill(scores, pyad.logical_not(mask), float("-inf"))
        else:
            scores = scores + mask.to(dtype=scores.dtype)
    # torch's math backend uses a "safe" softmax: a row masked everywhere gives zero
    # weights (and zero gradients), not NaN.
    xp = pyad.get_array_module(scores.data)
    dead = xp.all(xp.isneginf(scores.data), axis=-1, keepdims=True)
    if bool(dead.any()):
        dead = Variable(xp.broadcast_to(dead, scores.shape))
        scores = pyad.masked_fill(scores, dead, 0.0)
        weights = pyad.masked_fill(pyad.softmax(scores, -1), dead, 0.0)
    else:
        weights = pyad.softmax(scores, -1)
    if dropout_p > 0.0:
        from pyad.nn.functional import dropout
        weights = dropout(weights, dropout_p, True)
    return _like_query_layout(matmul(weights, v), q)


def _like_query_layout(out, q):
    # torch allocates attention's output with the query's dimension order
    # (alloc_with_matching_layout, on its fused CPU path for 4-D queries): a query
    # that is a transposed view of (B, L, H, E)
    # gives an output whose .transpose(1, 2) is contiguous, which scripts then .view()
    strides = q.stride()
    if q.dim() != 4 or strides[-1] != 1 or 0 in strides:
        # torch's other paths (3-D inputs, a strided last dimension, broadcast
        # queries) give contiguous outputs
        return out
    fill_order = sorted(range(q.dim()), key=lambda d: strides[d])  # stable, as torch's
    order = fill_order[::-1]
    if order == list(range(q.dim())):
        return out
    inverse = [0] * len(order)
    for i, d in enumerate(order):
        inverse[d] = i
    return out.permute(*order).contiguous().permute(*inverse)


def multi_head_attention_forward(query, key, value, embed_dim_to_check, num_heads,
                                 in_proj_weight, in_proj_bias, bias_k, bias_v, add_zero_attn,
                                 dropout_p, out_proj_weight, out_proj_bias, training=True,
                                 key_padding_mask=None, need_weights=True, attn_mask=None,
                                 use_separate_proj_weight=False, q_proj_weight=None,
                                 k_proj_weight=None, v_proj_weight=None, static_k=None,
                                 static_v=None, average_attn_weights=True, is_causal=False):
    """The computation of `pyad.nn.MultiheadAttention`, as
    ``torch.nn.functional.multi_head_attention_forward``: sequence-first ``(L, N, E)``
    (or unbatched ``(L, E)``) inputs, returns ``(attn_output, attn_weights)``
    (``attn_weights`` None unless ``need_weights``). ``static_k``/``static_v``
    (``(N * num_heads, S, head_dim)``) replace the projected key and value, as torch's.

    >>> import pyad
    >>> E, H = 4, 2
    >>> x = pyad.randn(3, 2, E)
    >>> out, w = multi_head_attention_forward(
    ...     x, x, x, E, H, pyad.randn(3 * E, E), pyad.zeros(3 * E), None, None, False,
    ...     0.0, pyad.randn(E, E), pyad.zeros(E))
    >>> out.shape, w.shape
    ((3, 2, 4), (2, 3, 3))
    """
    from pyad.nn import transformer
    what = "multi_head_attention_forward"
    q = query if isinstance(query, Variable) else pyad.tensor(query)
    if q.dim() not in (2, 3) or q.shape[-1] != embed_dim_to_check:
        raise AssertionError("%s(): was expecting embedding dimension of %s, but got query "
                             "of shape %s" % (what, embed_dim_to_check, tuple(q.shape)))
    if use_separate_proj_weight and (q_proj_weight is None or k_proj_weight is None
                                     or v_proj_weight is None):
        raise AssertionError("%s(): use_separate_proj_weight is True but q_proj_weight, "
                             "k_proj_weight or v_proj_weight is None" % what)
    if not use_separate_proj_weight and in_proj_weight is None:
        raise AssertionError("%s(): use_separate_proj_weight is False but in_proj_weight is "
                             "None" % what)
    return transformer.multi_head_attention_forward(
        query, key, value, num_heads, in_proj_weight, in_proj_bias, bias_k, bias_v,
        add_zero_attn, dropout_p, out_proj_weight, out_proj_bias, training=training,
        key_padding_mask=key_padding_mask, need_weights=need_weights, attn_mask=attn_mask,
        use_separate_proj_weight=use_separate_proj_weight, q_proj_weight=q_proj_weight,
        k_proj_weight=k_proj_weight, v_proj_weight=v_proj_weight, static_k=static_k,
        static_v=static_v, average_attn_weights=average_attn_weights, is_causal=is_causal,
        what=what)
