"""pyad.fft: discrete Fourier transforms, as ``torch.fft``.

Every transform takes torch's ``n``/``s``, ``dim`` and ``norm`` (``"backward"``, the
default, ``"ortho"`` or ``"forward"``) arguments and returns torch's dtypes: a float32
(or integer) input gives complex64, float64 gives complex128, and the real-output
transforms (``irfft``, ``hfft``, ...) give float32/float64. Gradients are torch's,
including the Hermitian bookkeeping of ``rfft``/``irfft``: the transforms are built on
three differentiable primitives (complex-to-complex, real-to-complex and
complex-to-real, as torch's ``_fft_c2c``, ``_fft_r2c`` and ``_fft_c2r``) whose backward
passes are written with the same primitives, so second derivatives work.

>>> import numpy as np
>>> import pyad
>>> x = pyad.tensor([1., 2., 3., 4.], requires_grad=True)
>>> pyad.fft.fft(x)
tensor([10.+0.j, -2.+2.j, -2.+0.j, -2.-2.j], grad_fn=<FftR2CBackward>)
>>> pyad.fft.rfft(x).abs().sum().backward()
>>> x.grad
tensor([-0.7071,  1.2929,  0.7071,  2.7071])
"""
import functools
import operator

import numpy

import pyad
from pyad import Variable, _engine
from pyad.autograd import Function

__all__ = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft", "fft2", "ifft2", "rfft2",
           "irfft2", "hfft2", "ihfft2", "fftn", "ifftn", "rfftn", "irfftn", "hfftn", "ihfftn",
           "fftfreq", "rfftfreq", "fftshift", "ifftshift"]

# normalisation modes (torch's fft_norm_mode): no scaling, 1/sqrt(n), 1/n
_NONE, _BY_ROOT_N, _BY_N = 0, 1, 2
# the NumPy norm= that gives each mode, for a forward and for an inverse transform
_NP_FORWARD = {_NONE: "backward", _BY_ROOT_N: "ortho", _BY_N: "forward"}
_NP_INVERSE = {_NONE: "forward", _BY_ROOT_N: "ortho", _BY_N: "backward"}


def _norm_mode(norm, forward):
    # torch's norm_from_string
    if norm is not None and not isinstance(norm, str):
        raise TypeError("argument 'norm' must be str, not %s" % type(norm).__name__)
    if norm is None or norm == "backward":
        return _NONE if forward else _BY_N
    if norm == "forward":
        return _BY_N if forward else _NONE
    if norm == "ortho":
        return _BY_ROOT_N
    raise RuntimeError('Invalid normalization mode: "%s"' % (norm,))


def _xp(data):
    return pyad.get_array_module(data)


def _real_dtype(dtype):
    return numpy.dtype(numpy.float32) if dtype == numpy.complex64 else numpy.dtype(
        numpy.float64)


def _profiled(fn):
    """``fn`` reported to the profiler as one op of its name (the ops it calls nest
    inside), as the engine's ops are."""
    name = fn.__name__
    profiling = _engine._bridge_profiling
    run = _engine._bridge_profiled

    @functools.wraps(fn)
    def op(*args, **kwargs):
        if profiling():
            return run(name, fn, args, kwargs)
        return fn(*args, **kwargs)
    return op


# -- primitives ----------------------------------------------------------------------


class FftC2C(Function):
    """torch's ``_fft_c2c(x, dims, normalization, forward)``; complex in and out."""

    @staticmethod
    def forward(ctx, x, dims, mode, forward):
        ctx.dims, ctx.mode, ctx.forward_ = dims, mode, forward
        data = x.data
        if not dims:
            return Variable(data.copy())
        xp = _xp(data)
        if forward:
            out = xp.fft.fftn(data, axes=dims, norm=_NP_FORWARD[mode])
        else:
            out = xp.fft.ifftn(data, axes=dims, norm=_NP_INVERSE[mode])
        return Variable(out.astype(data.dtype, copy=False))

    @staticmethod
    def backward(ctx, g):
        # the adjoint of a DFT is the DFT of the other direction with the same scaling
        return FftC2C.apply(g, ctx.dims, ctx.mode, not ctx.forward_), None, None, None


class FftR2C(Function):
    """torch's ``_fft_r2c(x, dims, normalization, onesided)``: a forward transform of a
    real ``x``; ``onesided`` keeps the first ``n // 2 + 1`` entries of the last dim."""

    @staticmethod
    def forward(ctx, x, dims, mode, onesided):
        ctx.dims, ctx.mode, ctx.onesided = dims, mode, onesided
        ctx.last_size = x.shape[dims[-1]]
        data = x.data
        xp = _xp(data)
        if onesided:
            out = xp.fft.rfftn(data, axes=dims, norm=_NP_FORWARD[mode])
        else:
            out = xp.fft.fftn(data, axes=dims, norm=_NP_FORWARD[mode])
        cdtype = numpy.complex64 if data.dtype == numpy.float32 else numpy.complex128
        return Variable(out.astype(cdtype, copy=False))

    @staticmethod
    def backward(ctx, g):
        # torch's fft_r2c_backward: zero-fill the discarded half, inverse c2c, real part
        dims = ctx.dims
        if ctx.onesided:
            last = dims[-1]
            missing = ctx.last_size - g.shape[last]
            if missing > 0:
                shape = list(g.shape)
                shape[last] = missing
                g = pyad.cat([g, pyad.zeros(tuple(shape), dtype=g.dtype)], last)
        return pyad.real(FftC2C.apply(g, dims, ctx.mode, False)), None, None, None


class FftC2R(Function):
    """torch's ``_fft_c2r(x, dims, normalization, last_dim_size)``: the inverse transform
    of a one-sided Hermitian ``x`` to a real signal of ``last_dim_size`` samples on the
    last dim."""

    @staticmethod
    def forward(ctx, x, dims, mode, last_dim_size):
        ctx.dims, ctx.mode = dims, mode
        data = x.data
        xp = _xp(data)
        sizes = [data.shape[d] for d in dims[:-1]] + [last_dim_size]
        out = xp.fft.irfftn(data, s=sizes, axes=dims, norm=_NP_INVERSE[mode])
        return Variable(out.astype(_real_dtype(data.dtype), copy=False))

    @staticmethod
    def backward(ctx, g):
        # torch's fft_c2r_backward: a one-sided r2c of the gradient, with the entries
        # 1 .. n - (n // 2 + 1) of the last dim doubled (their mirror images were dropped)
        dims = ctx.dims
        last = dims[-1]
        gi = FftR2C.apply(g, dims, ctx.mode, True)
        double_length = g.shape[last] - gi.shape[last]
        if double_length > 0:
            w = numpy.ones(gi.shape[last], dtype=_real_dtype(gi.dtype))
            w[1:1 + double_length] = 2
            shape = [1] * gi.dim()
            shape[last] = gi.shape[last]
            gi = gi * Variable(_xp(gi.data).asarray(w.reshape(shape)))
        return gi, None, None, None


# -- argument handling -----------------------------------------------------------------


def _as_input(input, what):
    x = input if isinstance(input, Variable) else pyad.as_tensor(input)
    kind = x.dtype.kind
    if kind in "biu":
        x = x.to(pyad.get_default_dtype())
    elif (kind == "f" and x.dtype.itemsize < 4) or x.dtype.name == "bfloat16":
        # torch on the CPU: "Unsupported dtype Half" / "Unsupported dtype BFloat16"
        raise RuntimeError("%s(): Unsupported dtype %s" % (what, x.dtype))
    elif kind not in "fc":
        raise TypeError("%s(): expected a numeric input, got %s" % (what, x.dtype))
    return x


def _to_complex(x):
    if x.dtype.kind == "c":
        return x
    return x.to(numpy.complex64 if x.dtype == numpy.float32 else numpy.complex128)


def _require_real(x, what):
    if x.dtype.kind == "c":
        name = {numpy.dtype(numpy.complex64): "ComplexFloat",
                numpy.dtype(numpy.complex128): "ComplexDouble"}[x.dtype]
        raise RuntimeError("%s expects a real input tensor, but got %s" % (what, name))


def _wrap_dim(dim, ndim, what):
    # an FFT dim indexes the shape: a 0-d input has none (the engine's rule and errors)
    return _engine._wrap_dim(dim, ndim, what, False)


def _check_n(n, what):
    if n < 1:
        raise RuntimeError("%s(): Invalid number of data points (%d) specified" % (what, n))


def _resize(x, dims, sizes):
    # torch's resize_fft_input: slice or zero-pad each transformed dim to its size
    for d, n in zip(dims, sizes):
        cur = x.shape[d]
        if n < cur:
            x = x.narrow(d, 0, n)
        elif n > cur:
            shape = list(x.shape)
            shape[d] = n - cur
            x = pyad.cat([x, pyad.zeros(tuple(shape), dtype=x.dtype)], d)
    return x


def _one_dim(x, n, dim, what):
    d = _wrap_dim(dim, x.dim(), what)
    if n is not None:
        n = operator.index(n)
    return d, n


def _shape_and_dims(x, s, dim, what):
    # torch's canonicalize_fft_shape_and_dim_args
    ndim = x.dim()
    if dim is not None:
        if isinstance(dim, int):
            dim = (dim,)
        dims = [_wrap_dim(d, ndim, what) for d in dim]
        if len(set(dims)) != len(dims):
            raise RuntimeError("%s(): FFT dims must be unique" % what)
    if s is not None:
        if isinstance(s, int):
            s = (s,)
        s = [operator.index(n) for n in s]
        if dim is not None and len(dims) != len(s):
            raise RuntimeError("%s(): When given, dim and shape arguments must have the "
                               "same length" % what)
        if len(s) > ndim:
            raise RuntimeError("%s(): Got shape with %d values but input tensor only has "
                               "%d dimensions." % (what, len(s), ndim))
        if dim is None:
            dims = list(range(ndim - len(s), ndim))
        sizes = [x.shape[d] if n == -1 else n for d, n in zip(dims, s)]
    elif dim is None:
        dims = list(range(ndim))
        sizes = list(x.shape)
    else:
        sizes = [x.shape[d] for d in dims]
    for n in sizes:
        _check_n(n, what)
    return tuple(dims), sizes


# -- one-dimensional transforms -------------------------------------------------------


def _c2c(x, n, dim, norm, forward, what):
    d, n = _one_dim(x, n, dim, what)
    if n is not None:
        _check_n(n, what)
        x = _resize(x, (d,), (n,))
    else:
        _check_n(x.shape[d], what)
    return FftC2C.apply(x, (d,), _norm_mode(norm, forward), forward)


def _r2c(x, n, dim, norm, forward, onesided, what):
    d, n = _one_dim(x, n, dim, what)
    if n is not None:
        _check_n(n, what)
        x = _resize(x, (d,), (n,))
    else:
        _check_n(x.shape[d], what)
    out = FftR2C.apply(x, (d,), _norm_mode(norm, forward), onesided)
    return out if forward else pyad.conj(out)


def _c2r(x, n, dim, norm, forward, what):
    x = _to_complex(x)
    d, n = _one_dim(x, n, dim, what)
    if n is None:
        n = 2 * (x.shape[d] - 1)
        _check_n(n, what)
    else:
        _check_n(n, what)
        x = _resize(x, (d,), (n // 2 + 1,))
    if forward:
        x = pyad.conj(x)
    return FftC2R.apply(x, (d,), _norm_mode(norm, forward), n)


@_profiled
def fft(input, n=None, dim=-1, norm=None):
    """One-dimensional discrete Fourier transform of ``input`` along ``dim``, as
    ``torch.fft.fft``; ``n`` zero-pads or trims the signal first. A real input is
    promoted to complex (complex64 for float32, complex128 for float64).

    >>> pyad.fft.fft(pyad.tensor([1., 0., 0., 0.]))
    tensor([1.+0.j, 1.+0.j, 1.+0.j, 1.+0.j])
    """
    x = _as_input(input, "fft")
    if x.dtype.kind == "c":
        return _c2c(x, n, dim, norm, True, "fft")
    return _r2c(x, n, dim, norm, True, False, "fft")


@_profiled
def ifft(input, n=None, dim=-1, norm=None):
    """Inverse of :func:`fft`, as ``torch.fft.ifft`` (scaled by ``1/n`` with the default
    ``norm="backward"``).

    >>> pyad.fft.ifft(pyad.tensor([4. + 0j, 0j, 0j, 0j]))
    tensor([1.+0.j, 1.+0.j, 1.+0.j, 1.+0.j])
    """
    x = _as_input(input, "ifft")
    if x.dtype.kind == "c":
        return _c2c(x, n, dim, norm, False, "ifft")
    return _r2c(x, n, dim, norm, False, False, "ifft")


@_profiled
def rfft(input, n=None, dim=-1, norm=None):
    """The ``n // 2 + 1`` non-redundant entries of the FFT of a real ``input``, as
    ``torch.fft.rfft``; a complex input raises RuntimeError.

    >>> pyad.fft.rfft(pyad.tensor([1., 2., 3., 4.]))
    tensor([10.+0.j, -2.+2.j, -2.+0.j])
    """
    x = _as_input(input, "rfft")
    _require_real(x, "rfft")
    return _r2c(x, n, dim, norm, True, True, "rfft")


@_profiled
def irfft(input, n=None, dim=-1, norm=None):
    """Inverse of :func:`rfft`: a real signal of ``n`` samples (default
    ``2 * (input.size(dim) - 1)``) from its one-sided spectrum, as ``torch.fft.irfft``.
    The imaginary parts of the zero-frequency (and, for even ``n``, Nyquist) entries
    are ignored, as torch does.

    >>> pyad.fft.irfft(pyad.tensor([10. + 0j, -2. + 2j, -2. + 0j]))
    tensor([1., 2., 3., 4.])
    """
    x = _as_input(input, "irfft")
    return _c2r(x, n, dim, norm, False, "irfft")


@_profiled
def hfft(input, n=None, dim=-1, norm=None):
    """The real FFT of a signal with Hermitian symmetry given by its first half, as
    ``torch.fft.hfft`` (``irfft`` of the conjugate, with forward scaling).

    >>> pyad.fft.hfft(pyad.tensor([1. + 0j, 0j, 0j]))
    tensor([1., 1., 1., 1.])
    """
    x = _as_input(input, "hfft")
    return _c2r(x, n, dim, norm, True, "hfft")


@_profiled
def ihfft(input, n=None, dim=-1, norm=None):
    """Inverse of :func:`hfft`: the one-sided inverse FFT of a real ``input``, as
    ``torch.fft.ihfft``; a complex input raises RuntimeError.

    >>> pyad.fft.ihfft(pyad.tensor([1., 1., 1., 1.]))
    tensor([1.-0.j, 0.-0.j, 0.-0.j])
    """
    x = _as_input(input, "ihfft")
    _require_real(x, "ihfft")
    return _r2c(x, n, dim, norm, False, True, "ihfft")


# -- n-dimensional transforms ----------------------------------------------------------


def _fftn_c2c(input, s, dim, norm, forward, what):
    x = _to_complex(_as_input(input, what))
    dims, sizes = _shape_and_dims(x, s, dim, what)
    x = _resize(x, dims, sizes)
    return FftC2C.apply(x, dims, _norm_mode(norm, forward), forward)


def _rfftn(input, s, dim, norm, forward, what):
    x = _as_input(input, what)
    name = "ComplexFloat" if x.dtype == numpy.complex64 else "ComplexDouble"
    if x.dtype.kind == "c" and forward:
        # torch's message names rfftn also for rfft2 (its wrapper)
        raise RuntimeError("%srfftn expects a real-valued input tensor, but got %s"
                           % ("" if what == "rfftn" else what + "(): ", name))
    dims, sizes = _shape_and_dims(x, s, dim, what)
    if x.dtype.kind == "c":
        # torch's ihfftn checks the dims first, then the dtype
        raise RuntimeError("%s(): Only supports floating-point dtypes, but found: %s"
                           % (what, name))
    if not dims:
        raise RuntimeError("%s must transform at least one axis" % what)
    x = _resize(x, dims, sizes)
    out = FftR2C.apply(x, dims, _norm_mode(norm, forward), True)
    return out if forward else pyad.conj(out)


def _irfftn(input, s, dim, norm, forward, what):
    # torch's canonicalize_fft_c2r_shape_and_dim_args: the last entry of s is the
    # length of the real output (default 2 * (m - 1)), the input is resized to
    # last // 2 + 1 there
    x = _to_complex(_as_input(input, what))
    if isinstance(s, int):
        s = (s,)
    dims, sizes = _shape_and_dims(x, s, dim, what)
    if not dims:
        raise RuntimeError("%s must transform at least one axis" % what)
    if s is None or s[-1] == -1:
        last = 2 * (x.shape[dims[-1]] - 1)
    else:
        last = sizes[-1]
    _check_n(last, what)
    x = _resize(x, dims, list(sizes[:-1]) + [last // 2 + 1])
    if forward:
        x = pyad.conj(x)
    return FftC2R.apply(x, dims, _norm_mode(norm, forward), last)


@_profiled
def fftn(input, s=None, dim=None, norm=None):
    """N-dimensional FFT over ``dim`` (default: the last ``len(s)`` dims, or all dims),
    as ``torch.fft.fftn``; ``s`` gives the signal size of each (``-1`` keeps it).

    >>> pyad.fft.fftn(pyad.ones(2, 2))
    tensor([[4.+0.j, 0.+0.j],
            [0.+0.j, 0.+0.j]])
    """
    return _fftn_c2c(input, s, dim, norm, True, "fftn")


@_profiled
def ifftn(input, s=None, dim=None, norm=None):
    """Inverse of :func:`fftn`, as ``torch.fft.ifftn``.

    >>> pyad.fft.ifftn(pyad.tensor([[4., 0.], [0., 0.]]))
    tensor([[1.+0.j, 1.+0.j],
            [1.+0.j, 1.+0.j]])
    """
    return _fftn_c2c(input, s, dim, norm, False, "ifftn")


@_profiled
def rfftn(input, s=None, dim=None, norm=None):
    """N-dimensional FFT of a real ``input``, one-sided on the last transformed dim, as
    ``torch.fft.rfftn``.

    >>> pyad.fft.rfftn(pyad.ones(2, 2))
    tensor([[4.+0.j, 0.+0.j],
            [0.+0.j, 0.+0.j]])
    """
    return _rfftn(input, s, dim, norm, True, "rfftn")


@_profiled
def irfftn(input, s=None, dim=None, norm=None):
    """Inverse of :func:`rfftn`, as ``torch.fft.irfftn``; the last entry of ``s`` is the
    length of the real output on the last transformed dim.

    >>> pyad.fft.irfftn(pyad.tensor([[4. + 0j, 0j], [0j, 0j]]))
    tensor([[1., 1.],
            [1., 1.]])
    """
    return _irfftn(input, s, dim, norm, False, "irfftn")


@_profiled
def hfftn(input, s=None, dim=None, norm=None):
    """N-dimensional :func:`hfft`, as ``torch.fft.hfftn``.

    >>> pyad.fft.hfftn(pyad.tensor([[1. + 0j, 0j], [0j, 0j]]))
    tensor([[1., 1.],
            [1., 1.]])
    """
    return _irfftn(input, s, dim, norm, True, "hfftn")


@_profiled
def ihfftn(input, s=None, dim=None, norm=None):
    """N-dimensional :func:`ihfft`, as ``torch.fft.ihfftn``.

    >>> pyad.fft.ihfftn(pyad.ones(2, 2))
    tensor([[1.-0.j, 0.-0.j],
            [0.-0.j, 0.-0.j]])
    """
    return _rfftn(input, s, dim, norm, False, "ihfftn")


@_profiled
def fft2(input, s=None, dim=(-2, -1), norm=None):
    """Two-dimensional :func:`fftn` over the last two dims, as ``torch.fft.fft2``.

    >>> pyad.fft.fft2(pyad.ones(2, 2))
    tensor([[4.+0.j, 0.+0.j],
            [0.+0.j, 0.+0.j]])
    """
    return _fftn_c2c(input, s, dim, norm, True, "fft2")


@_profiled
def ifft2(input, s=None, dim=(-2, -1), norm=None):
    """Two-dimensional :func:`ifftn`, as ``torch.fft.ifft2``.

    >>> pyad.fft.ifft2(pyad.tensor([[4., 0.], [0., 0.]]))
    tensor([[1.+0.j, 1.+0.j],
            [1.+0.j, 1.+0.j]])
    """
    return _fftn_c2c(input, s, dim, norm, False, "ifft2")


@_profiled
def rfft2(input, s=None, dim=(-2, -1), norm=None):
    """Two-dimensional :func:`rfftn`, as ``torch.fft.rfft2``.

    >>> pyad.fft.rfft2(pyad.ones(2, 2))
    tensor([[4.+0.j, 0.+0.j],
            [0.+0.j, 0.+0.j]])
    """
    return _rfftn(input, s, dim, norm, True, "rfft2")


@_profiled
def irfft2(input, s=None, dim=(-2, -1), norm=None):
    """Two-dimensional :func:`irfftn`, as ``torch.fft.irfft2``.

    >>> pyad.fft.irfft2(pyad.tensor([[4. + 0j, 0j], [0j, 0j]]))
    tensor([[1., 1.],
            [1., 1.]])
    """
    return _irfftn(input, s, dim, norm, False, "irfft2")


@_profiled
def hfft2(input, s=None, dim=(-2, -1), norm=None):
    """Two-dimensional :func:`hfftn`, as ``torch.fft.hfft2``.

    >>> pyad.fft.hfft2(pyad.tensor([[1. + 0j, 0j], [0j, 0j]]))
    tensor([[1., 1.],
            [1., 1.]])
    """
    return _irfftn(input, s, dim, norm, True, "hfft2")


@_profiled
def ihfft2(input, s=None, dim=(-2, -1), norm=None):
    """Two-dimensional :func:`ihfftn`, as ``torch.fft.ihfft2``.

    >>> pyad.fft.ihfft2(pyad.ones(2, 2))
    tensor([[1.-0.j, 0.-0.j],
            [0.-0.j, 0.-0.j]])
    """
    return _rfftn(input, s, dim, norm, False, "ihfft2")


# -- helpers ---------------------------------------------------------------------------


def _freq_dtype(dtype, what):
    dtype = pyad.get_default_dtype() if dtype is None else numpy.dtype(dtype)
    if dtype.kind not in "fc":
        raise RuntimeError("%s requires a floating point or complex dtype" % what)
    if dtype.kind == "c":
        # torch's arange, under fftfreq, has no complex kernel
        raise NotImplementedError("%s(): not implemented for complex dtype %s"
                                  % (what, dtype))
    return dtype


def _freq_n(n, what):
    if isinstance(n, bool) or not isinstance(n, (int, numpy.integer)):
        raise TypeError("%s(): argument 'n' must be int, not %s" % (what, type(n).__name__))
    return int(n)


def _freq_size(size, what):
    if size < 0:
        raise RuntimeError("%s(): Trying to create tensor with negative dimension %d: [%d]"
                           % (what, size, size))
    return size


def _freq_result(data, device, requires_grad):
    # on the default device unless one is given, as torch's factories
    out = pyad.as_tensor(data, device=device)
    out._mark_requires_grad(bool(requires_grad))
    return out


def _freq_scale(n, d):
    with numpy.errstate(divide="ignore", invalid="ignore"):
        return numpy.float64(1.0) / (numpy.float64(n) * numpy.float64(d))


@_profiled
def fftfreq(n, d=1.0, *, dtype=None, layout=None, device=None, requires_grad=False):
    """The sample frequencies of an ``n``-point :func:`fft` with sample spacing ``d``,
    as ``torch.fft.fftfreq``: ``[0, 1, ..., (n - 1) // 2, -(n // 2), ..., -1] / (d n)``,
    in the default dtype unless ``dtype`` is given.

    >>> pyad.fft.fftfreq(4)
    tensor([ 0.0000,  0.2500, -0.5000, -0.2500])
    """
    n = _freq_n(n, "fftfreq")
    dtype = _freq_dtype(dtype, "fftfreq")
    k = numpy.arange(_freq_size(n, "fftfreq"))
    k[(n + 1) // 2:] -= n
    with numpy.errstate(invalid="ignore"):
        out = k.astype(dtype) * dtype.type(_freq_scale(n, d))
    return _freq_result(out.astype(dtype, copy=False), device, requires_grad)


@_profiled
def rfftfreq(n, d=1.0, *, dtype=None, layout=None, device=None, requires_grad=False):
    """The sample frequencies of an ``n``-point :func:`rfft`, as ``torch.fft.rfftfreq``:
    ``[0, 1, ..., n // 2] / (d n)``.

    >>> pyad.fft.rfftfreq(4)
    tensor([0.0000, 0.2500, 0.5000])
    """
    n = _freq_n(n, "rfftfreq")
    dtype = _freq_dtype(dtype, "rfftfreq")
    # (C's truncating n / 2, as torch: rfftfreq(-1) is [-0.])
    k = numpy.arange(_freq_size(int(n / 2) + 1, "rfftfreq"))
    with numpy.errstate(invalid="ignore"):   # rfftfreq(0) is [nan], as torch's
        out = k.astype(dtype) * dtype.type(_freq_scale(n, d))
    return _freq_result(out.astype(dtype, copy=False), device, requires_grad)


def _shift(input, dim, what, inverse):
    x = input if isinstance(input, Variable) else pyad.as_tensor(input)
    if dim is None:
        dims = list(range(x.dim()))
    else:
        dims = [_wrap_dim(d, x.dim(), what)
                for d in ((dim,) if isinstance(dim, int) else dim)]
    if not dims:
        raise RuntimeError("%s(): `shifts` required (no dimension to shift)" % what)
    shifts = [(x.shape[d] + 1) // 2 if inverse else x.shape[d] // 2 for d in dims]
    return pyad.roll(x, shifts, dims)


@_profiled
def fftshift(input, dim=None):
    """Move the zero-frequency entry to the centre of ``dim`` (default: all dims), as
    ``torch.fft.fftshift``: a roll by ``size // 2``.

    >>> pyad.fft.fftshift(pyad.fft.fftfreq(4))
    tensor([-0.5000, -0.2500,  0.0000,  0.2500])
    """
    return _shift(input, dim, "fftshift", False)


@_profiled
def ifftshift(input, dim=None):
    """Inverse of :func:`fftshift`, as ``torch.fft.ifftshift``: a roll by
    ``(size + 1) // 2``.

    >>> pyad.fft.ifftshift(pyad.fft.fftshift(pyad.fft.fftfreq(5)))
    tensor([ 0.0000,  0.2000,  0.4000, -0.4000, -0.2000])
    """
    return _shift(input, dim, "ifftshift", True)
