"""torch's statistics and small constructions, composed of differentiable pyad ops (so
their gradients, of any order, come from the ops'): ``quantile``, ``nanquantile``,
``cov``, ``corrcoef``, ``renorm``, ``trapezoid``/``trapz``,
``cumulative_trapezoid``, ``vander``, ``diagflat``, ``block_diag``, ``cartesian_prod``,
``combinations``, ``inner``, ``ger``, ``addr``; and the non-differentiable ``histc``,
``bincount``, ``logspace`` and the window functions. Each is ``pyad.<name>``; those
torch also has as Tensor methods (``quantile``, ``nanquantile``, ``cov``, ``corrcoef``,
``histc``, ``bincount``, ``mode``, ``renorm``, ``diagflat``, ``inner``, ``ger``,
``addr``) are ``Variable`` methods too, added at the end of this module.
"""
import itertools
import math
from collections import namedtuple

import numpy

from pyad._porting import _is_float, promote_types
from pyad import _engine
from pyad._out import takes_out, writes_out

__all__ = ["quantile", "nanquantile", "cov", "corrcoef", "histc", "bincount",
           "renorm", "mode", "trapezoid", "trapz", "cumulative_trapezoid", "vander", "diagflat",
           "block_diag", "cartesian_prod", "combinations", "inner", "ger", "addr",
           "logspace", "hann_window", "hamming_window", "blackman_window",
           "bartlett_window", "kaiser_window"]

_Variable = _engine.Variable


def _as_variable(x, what):
    if isinstance(x, _Variable):
        return x
    try:
        return _Variable(numpy.asarray(x))
    except (TypeError, ValueError):
        raise TypeError("%s(): expected a Variable, got %s" % (what, type(x).__name__)) from None


def _xp(x):
    return _engine.get_array_module(x.data)


_INTERPOLATIONS = ("linear", "lower", "higher", "midpoint", "nearest")


def _quantile(input, q, dim, keepdim, interpolation, ignore_nan, what):
    x = _as_variable(input, what)
    if x.dtype not in (numpy.float32, numpy.float64):      # torch: not float16 either
        raise RuntimeError("%s(): input Variable must be either float or double dtype" % what)
    if x.numel() == 0:
        raise RuntimeError("%s(): input Variable must be non-empty" % what)
    if interpolation not in _INTERPOLATIONS:
        raise RuntimeError("%s(): interpolation must be one of linear, lower, higher, "
                           "midpoint or nearest, but got %s" % (what, interpolation))
    scalar_q = not isinstance(q, _Variable) and numpy.ndim(q) == 0
    if isinstance(q, _Variable):
        if q.dtype != x.dtype:
            raise RuntimeError("%s(): q Variable must be same dtype as the input Variable"
                               % what)
        q_data = numpy.asarray(q.data.get() if hasattr(q.data, "get") else q.data,
                               dtype=numpy.float64)
        scalar_q = q.ndim == 0
    else:
        q_data = numpy.asarray(q, dtype=numpy.float64)
    if q_data.ndim > 1:
        raise RuntimeError("%s(): q must be a scalar or 1D Variable" % what)
    if not ((q_data >= 0) & (q_data <= 1)).all():
        if not isinstance(q, _Variable) and q_data.ndim == 0:
            # torch's message for a number q names the number
            raise RuntimeError("%s(): q must be in the range [0, 1] but got %s"
                               % (what, _number_text(float(q_data))))
        raise RuntimeError("%s(): q values must be in the range [0, 1]" % what)
    ndim = x.ndim
    if dim is None:
        values = x.reshape(-1)
        d = 0
    else:
        if not isinstance(dim, int):
            raise TypeError("%s(): dim must be an int or None" % what)
        n_dims = max(ndim, 1)
        if dim < -n_dims or dim >= n_dims:
            raise IndexError("%s(): Dimension out of range (expected to be in range of "
                             "[%d, %d], but got %d)" % (what, -n_dims, n_dims - 1, dim))
        values = x.reshape(1) if ndim == 0 else x
        d = dim % n_dims
    # sorted along the last dim (nan sort last, as torch)
    ordered = _engine.movedim(_engine.sort(values, d).values, d, -1)
    xp = _xp(ordered)
    data = ordered.data
    n = data.shape[-1]
    qs = xp.asarray(numpy.atleast_1d(q_data))
    nan = xp.isnan(data)
    if ignore_nan:
        valid = (~nan).sum(-1, keepdims=True)
        ranks = qs * (valid - 1)
        ranks = xp.where(valid == 0, 0, ranks)            # all nan: nan (the first, as torch)
    else:
        ranks = qs * (n - 1) + xp.zeros(data.shape[:-1] + (1,))
        ranks = xp.where(nan[..., n - 1:], n - 1, ranks)  # any nan: nan
    if interpolation == "nearest":
        ranks = xp.round(ranks)                           # half to even, as torch
    lo = xp.floor(ranks).astype(numpy.int64)
    hi = xp.minimum(xp.ceil(ranks).astype(numpy.int64), n - 1)
    below = _engine.gather(ordered, -1, _Variable(lo))
    if interpolation in ("lower", "nearest"):
        out = below
    else:
        above = _engine.gather(ordered, -1, _Variable(hi))
        if interpolation == "higher":
            out = above
        else:
            weight = 0.5 if interpolation == "midpoint" else (ranks - lo).astype(data.dtype)
            out = _engine.lerp(below, above, weight if isinstance(weight, float)
                               else _Variable(weight))
    out = _engine.movedim(out, -1, 0)                     # q first, as torch
    if keepdim:
        if dim is None:
            out = out.reshape((out.shape[0],) + (1,) * ndim)
        elif ndim > 0:
            out = out.unsqueeze(d + 1)
    if scalar_q:
        out = out.squeeze(0)
    return out


def _number_text(x):
    """A float as torch prints it in messages: -1 for -1.0, 1.1 for 1.1."""
    return "%d" % x if x == int(x) else repr(x)


@writes_out(exact=True)
def quantile(input, q, dim=None, keepdim=False, *, interpolation="linear"):
    """The ``q``-th quantiles of ``input`` (over everything, or along ``dim``), as
    torch.quantile: ``q`` a number or a 1-D Variable in [0, 1] (its values make the first
    dimension of the result); ``interpolation`` linear, lower, higher, midpoint or nearest;
    nan in a slice makes its quantiles nan. Differentiable (through the sort).

    >>> import pyad
    >>> pyad.quantile(pyad.tensor([1.0, 2.0, 4.0, 8.0]), 0.5)
    tensor(3.)
    """
    return _quantile(input, q, dim, keepdim, interpolation, False, "quantile")


@writes_out(exact=True)
def nanquantile(input, q, dim=None, keepdim=False, *, interpolation="linear"):
    """:func:`quantile` ignoring nan (nan only where a slice is all nan).

    >>> import pyad
    >>> pyad.nanquantile(pyad.tensor([1.0, float("nan"), 3.0]), 0.5)
    tensor(2.)
    """
    return _quantile(input, q, dim, keepdim, interpolation, True, "nanquantile")


def cov(input, *, correction=1, fweights=None, aweights=None):
    """The covariance matrix of the variables in the rows of ``input`` (observations in
    columns; a 1-D input is one variable, giving a 0-d result), as torch.cov, with
    frequency and analytic weights.

    >>> import pyad
    >>> pyad.cov(pyad.tensor([[0.0, 1.0, 2.0], [2.0, 1.0, 0.0]]))
    tensor([[ 1., -1.],
            [-1.,  1.]])
    """
    x = _as_variable(input, "cov")
    if x.ndim > 2:
        raise ValueError("cov(): expected input to have two or fewer dimensions but got an "
                         "input with %d dimensions" % x.ndim)
    one_variable = x.ndim < 2
    if x.ndim < 2:
        x = x.reshape(1, -1)
    if x.dtype.kind in "biu":
        x = x.to(dtype=_engine.get_default_dtype())
    n = x.shape[1]
    w = None
    for name, weights in (("fweights", fweights), ("aweights", aweights)):
        if weights is None:
            continue
        weights = _as_variable(weights, "cov")
        if weights.ndim > 1 or weights.numel() != n:
            raise ValueError("cov(): expected %s to have one dimension and %d elements"
                             % (name, n))
        wd = weights.data
        if name == "fweights" and wd.dtype.kind not in "iu":
            raise ValueError("cov(): expected fweights to have integral dtype")
        if bool((wd < 0).any()):
            raise ValueError("cov(): %s cannot be negative" % name)
        w = weights if w is None else w * weights
    if w is None:
        avg = x.mean(1)
        w_sum = float(n)
        norm = w_sum - correction
    else:
        w_sum = w.sum()
        avg = (x * w).sum(1) / w_sum
        if correction == 0:
            norm = w_sum
        elif aweights is None:
            norm = w_sum - correction
        else:
            norm = w_sum - correction * (w * aweights).sum() / w_sum
    if isinstance(norm, _Variable):
        norm = _engine.clamp(norm, min=0)
    else:
        norm = max(norm, 0.0)
    xm = x - avg.unsqueeze(1)
    weighted = xm if w is None else xm * w
    out = _engine.matmul(weighted, _engine.conj(xm).transpose(0, 1)) / norm
    return out.squeeze() if one_variable else out


def corrcoef(input):
    """Pearson correlation coefficients of the variables in the rows of ``input``, as
    torch.corrcoef (clipped to [-1, 1]).

    >>> import pyad
    >>> pyad.corrcoef(pyad.tensor([[0.0, 1.0, 2.0], [2.0, 1.0, 0.5]]))
    tensor([[ 1.0000, -0.9820],
            [-0.9820,  1.0000]])
    """
    c = cov(input)
    if c.ndim == 0:
        return c / c
    std = _engine.sqrt(_engine.diagonal(c))
    c = c / std.unsqueeze(1)
    c = c / std.unsqueeze(0)
    if c.dtype.kind == "c":
        return c
    return _engine.clamp(c, -1, 1)


@writes_out(exact=True)
def histc(input, bins=100, min=0, max=0):
    """Histogram of ``input`` in ``bins`` equal bins between ``min`` and ``max`` (the data's
    range if both are 0); elements outside are ignored. No gradient, as torch.

    >>> import pyad
    >>> pyad.histc(pyad.tensor([1.0, 2.0, 1.0]), bins=4, min=0, max=3)
    tensor([0., 2., 1., 0.])
    """
    x = _as_variable(input, "histc")
    if float(min) > float(max):         # torch checks the bounds before the dtype
        raise RuntimeError("histc(): max must be larger than min")
    if not _is_float(x.dtype):
        # torch: no histogram kernel for integer/bool/complex dtypes (NotImplementedError)
        raise NotImplementedError("histc(): not implemented for %s input, expected a "
                                  "floating point Variable" % x.dtype)
    if bins <= 0:
        raise RuntimeError("histc(): bins must be > 0")
    xp = _xp(x)
    data = x.data.reshape(-1)
    lo, hi = float(min), float(max)
    if lo == hi and data.size:
        lo, hi = float(data.min()), float(data.max())
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    if lo > hi or not (math.isfinite(lo) and math.isfinite(hi)):
        raise RuntimeError("histc(): range of [%s, %s] is not finite" % (lo, hi)
                           if lo <= hi else "histc(): max must be larger than min")
    keep = data[(data >= lo) & (data <= hi)].astype(numpy.float64)
    if hi - lo == 0:
        # lo and hi so large that widening them by 1 changed nothing: every kept
        # element equals them, and falls in the first bin
        index = xp.zeros(keep.shape, numpy.int64)
    else:
        index = ((keep - lo) * bins / (hi - lo)).astype(numpy.int64)
    index = xp.minimum(index, bins - 1)
    counts = xp.bincount(index, minlength=bins).astype(x.dtype)
    return _engine.Variable(counts)


def bincount(input, weights=None, minlength=0):
    """Counts of each value of a 1-D non-negative integer Variable (weighted sums with
    ``weights``), at least ``minlength`` long. No gradient, as torch.

    >>> import pyad
    >>> pyad.bincount(pyad.tensor([0, 1, 1, 3]))
    tensor([1, 2, 0, 1])
    """
    x = _as_variable(input, "bincount")
    if x.dtype.kind not in "iu":
        # torch: no bincount kernel for bool/floating/complex dtypes (NotImplementedError)
        raise NotImplementedError("bincount(): not implemented for %s input, expected an "
                                  "integral Variable" % x.dtype)
    if x.ndim != 1:
        raise RuntimeError("bincount(): only 1-d non-negative integral inputs are supported")
    if x.numel() and bool((x.data < 0).any()):
        raise RuntimeError("bincount(): input Variable should contain non-negative values")
    if minlength < 0:
        raise RuntimeError("bincount(): minlength should be >= 0")
    xp = _xp(x)
    if weights is None:
        return _engine.Variable(xp.bincount(x.data, minlength=minlength).astype(numpy.int64))
    w = _as_variable(weights, "bincount")
    if w.shape != x.shape:
        raise RuntimeError("bincount(): weights should be 1-d and have the same length as "
                           "input")
    # torch: float32 weights give float32; every other weight dtype (float16 included) float64
    out_dtype = w.dtype if w.dtype == numpy.float32 else numpy.dtype(numpy.float64)
    return _engine.Variable(xp.bincount(x.data, weights=w.data, minlength=minlength)
                            .astype(out_dtype))


mode_result = namedtuple("mode", ["values", "indices"])


@writes_out(exact=True)
def mode(input, dim=-1, keepdim=False):
    """The most frequent value along ``dim`` (the smallest of those equally frequent) and
    the index of its last occurrence, as torch.mode; the values are differentiable (the
    gradient goes to that index).

    >>> import pyad
    >>> pyad.mode(pyad.tensor([[1.0, 2.0, 2.0, 1.0, 3.0]]), 1)
    mode(values=tensor([1.]), indices=tensor([3]))
    """
    x = _as_variable(input, "mode")
    n_dims = max(x.ndim, 1)
    if isinstance(dim, bool) or not isinstance(dim, (int, numpy.integer)):
        # torch: one dim only; a list or tuple of dims is a TypeError, not IndexError
        raise TypeError("mode(): dim must be an int, got %s" % type(dim).__name__)
    if dim < -n_dims or dim >= n_dims:
        raise IndexError("mode(): Dimension out of range (expected to be in range of [%d, %d], "
                         "but got %s)" % (-n_dims, n_dims - 1, dim))
    d = dim % n_dims
    if x.ndim and x.shape[d] == 0:
        raise IndexError("mode(): Expected reduction dim %d to have non-zero size." % d)
    if x.dtype.kind == "c":
        # as torch: no complex kernel; where no kernel runs (0-d / empty), no complex autograd
        if x.ndim and x.numel():
            raise NotImplementedError("mode(): not implemented for complex input (%s)"
                                      % x.dtype)
        if x.requires_grad:
            raise RuntimeError("mode(): does not support automatic differentiation for "
                               "outputs with complex dtype")
    if x.ndim == 0:
        return mode_result(x.clone(), _engine.Variable(numpy.array(0, dtype=numpy.int64)))
    n = x.shape[d]
    if n == 0:
        raise IndexError("mode(): Expected reduction dim %d to have non-zero size." % d)
    data = x.data.get() if hasattr(x.data, "get") else x.data
    rows = numpy.moveaxis(data, d, -1).reshape(-1, n)
    best_index = numpy.empty(rows.shape[0], dtype=numpy.int64)
    for r, row in enumerate(rows):
        order = numpy.argsort(row, kind="stable")           # nan last
        s = row[order]
        same = s[1:] == s[:-1]
        if s.dtype.kind in "fc":
            same |= numpy.isnan(s[1:]) & numpy.isnan(s[:-1])
        starts = numpy.flatnonzero(numpy.r_[True, ~same])
        counts = numpy.diff(numpy.r_[starts, n])
        best = int(numpy.argmax(counts))                     # the first: the smallest value
        best_index[r] = order[starts[best]:starts[best] + counts[best]].max()
    reduced = numpy.moveaxis(data, d, -1).shape[:-1]
    index = numpy.expand_dims(best_index.reshape(reduced), d)
    index_var = _engine.Variable(_xp(x).asarray(index))
    values = _engine.gather(x, d, index_var)
    if not keepdim:
        values, index_var = values.squeeze(d), index_var.squeeze(d)
    return mode_result(values, index_var)


@writes_out(exact=True)
def renorm(input, p, dim, maxnorm):
    """Each slice of ``input`` along ``dim`` whose ``p``-norm exceeds ``maxnorm`` scaled
    down to norm ``maxnorm`` (``maxnorm / (norm + 1e-7)``, as torch); differentiable.

    >>> import pyad
    >>> pyad.renorm(pyad.tensor([[3.0, 4.0], [0.3, 0.4]]), 2, 0, 1.0)
    tensor([[0.6000, 0.8000],
            [0.3000, 0.4000]])
    """
    x = _as_variable(input, "renorm")
    if x.ndim < 2:
        raise RuntimeError("renorm(): input needs at least 2 dimensions, got %d dimensions"
                           % x.ndim)
    if maxnorm < 0:
        raise RuntimeError("renorm(): expected maxnorm to be >= 0 but got %s" % maxnorm)
    if p <= 0:
        raise RuntimeError("renorm(): non-positive-norm not supported")
    if dim < -x.ndim or dim >= x.ndim:
        raise IndexError("renorm(): Dimension out of range (expected to be in range of "
                         "[%d, %d], but got %d)" % (-x.ndim, x.ndim - 1, dim))
    d = dim % x.ndim
    others = tuple(i for i in range(x.ndim) if i != d)
    norm = _engine.vector_norm(x, p, others, True)
    big = norm.data > maxnorm
    factor = _engine.where(big, maxnorm / (norm + 1e-7), 1.0)
    if not big.any():
        return x * 1.0
    return x * factor


def _trapezoid_terms(y, x, dx, dim, what):
    y = _as_variable(y, what)
    if y.ndim == 0:
        raise IndexError("%s(): Dimension out of range (expected to be in range of [-1, 0], "
                         "but got %d)" % (what, dim))
    d = _engine.movedim(y, dim, -1) if dim not in (-1, y.ndim - 1) else y
    n = d.shape[-1]
    if n == 0:
        return None, d
    mean_pairs = (d.narrow(-1, 1, n - 1) + d.narrow(-1, 0, n - 1)) * 0.5
    if x is not None:
        x = _as_variable(x, what)
        xs = _engine.movedim(x, dim, -1) if x.ndim == y.ndim else x
        if xs.shape[-1] != n:
            raise RuntimeError("%s(): There must be one `x` value for each sample point "
                               "(x and y must have the same length along dim)" % what)
        steps = xs.narrow(-1, 1, n - 1) - xs.narrow(-1, 0, n - 1)
        return mean_pairs * steps, d
    return mean_pairs * (1.0 if dx is None else dx), d


def trapezoid(y, x=None, *, dx=None, dim=-1):
    """The integral of ``y`` along ``dim`` by the trapezoidal rule, with sample points
    ``x`` or spacing ``dx`` (1 by default), as torch.trapezoid.

    >>> import pyad
    >>> pyad.trapezoid(pyad.tensor([1.0, 2.0, 3.0]))
    tensor(4.)
    """
    if x is not None and dx is not None:
        raise TypeError("trapezoid(): give x or dx, not both")
    terms, d = _trapezoid_terms(y, x, dx, dim, "trapezoid")
    if terms is None:
        return _engine.sum(d, -1) * 0.0
    return _engine.sum(terms, -1)


def trapz(y, x=None, *, dx=None, dim=-1):
    """Alias of :func:`trapezoid`.

    >>> import pyad
    >>> pyad.trapz(pyad.tensor([1.0, 2.0, 3.0]), dx=0.5)
    tensor(2.)
    """
    return trapezoid(y, x, dx=dx, dim=dim)


def cumulative_trapezoid(y, x=None, *, dx=None, dim=-1):
    """The running trapezoidal integral of ``y`` along ``dim`` (one element fewer along
    it), as torch.cumulative_trapezoid.

    >>> import pyad
    >>> pyad.cumulative_trapezoid(pyad.tensor([1.0, 2.0, 3.0]))
    tensor([1.5000, 4.0000])
    """
    if x is not None and dx is not None:
        raise TypeError("cumulative_trapezoid(): give x or dx, not both")
    y_var = _as_variable(y, "cumulative_trapezoid")
    terms, d = _trapezoid_terms(y_var, x, dx, dim, "cumulative_trapezoid")
    if terms is None:
        out = d
    else:
        out = _engine.cumsum(terms, -1)
    return _engine.movedim(out, -1, dim) if dim not in (-1, y_var.ndim - 1) else out


def vander(x, N=None, increasing=False):
    """The Vandermonde matrix of a 1-D ``x``: columns ``x ** (N - 1) ... x ** 0`` (the
    reverse with ``increasing``), built by cumulative products as torch.

    >>> import pyad
    >>> pyad.vander(pyad.tensor([1, 2, 3]))
    tensor([[1, 1, 1],
            [4, 2, 1],
            [9, 3, 1]])
    """
    x = _as_variable(x, "vander")
    if x.ndim != 1:
        raise RuntimeError("vander(): x must be a one-dimensional Variable.")
    n = x.shape[0] if N is None else N
    if n < 0:
        raise RuntimeError("vander(): N must be non-negative.")
    if x.dtype.kind in "biu":
        # torch: the result dtype is promote_types(x.dtype, int64), for every N
        x = x.long()
    ones = _engine.Variable(_xp(x).ones((x.shape[0], 1), dtype=x.dtype))
    if n == 0:
        out = ones.narrow(1, 0, 0)
    elif n == 1:
        out = ones
    else:
        powers = _engine.cumprod(x.unsqueeze(1).expand(x.shape[0], n - 1), 1)
        out = _engine.cat([ones, powers], 1)
    return out if increasing else out.flip([1])


def diagflat(input, offset=0):
    """A 2-D Variable with the flattened ``input`` on its ``offset``-th diagonal.

    >>> import pyad
    >>> pyad.diagflat(pyad.tensor([[1, 2]]))
    tensor([[1, 0],
            [0, 2]])
    """
    return _engine.diag(_as_variable(input, "diagflat").reshape(-1), offset)


def block_diag(*tensors):
    """The block-diagonal matrix of the given Variables (0-d, 1-D as one row, or 2-D),
    differentiable in each.

    >>> import pyad
    >>> pyad.block_diag(pyad.tensor([[1, 2]]), pyad.tensor(3))
    tensor([[1, 2, 0],
            [0, 0, 3]])
    """
    blocks = []
    for i, t in enumerate(tensors):
        t = _as_variable(t, "block_diag")
        if t.ndim > 2:
            raise RuntimeError("block_diag(): Input Variables must have 2 or fewer dimensions. "
                               "Input %d has %d dimensions" % (i, t.ndim))
        blocks.append(t.reshape(1, -1) if t.ndim < 2 else t)
    if not blocks:
        return _engine.Variable(numpy.zeros((1, 0), dtype=_engine.get_default_dtype()))
    dtype = blocks[0].dtype
    for b in blocks[1:]:
        # torch's promotion table (int64 with float32 is float32), not NumPy's
        dtype = numpy.dtype(promote_types(dtype, b.dtype))
    blocks = [b if b.dtype == dtype else b.to(dtype=dtype) for b in blocks]
    width = sum(b.shape[1] for b in blocks)
    xp = _xp(blocks[0])
    rows, col = [], 0
    for b in blocks:
        r, c = b.shape
        left = _engine.Variable(xp.zeros((r, col), dtype=dtype))
        right = _engine.Variable(xp.zeros((r, width - col - c), dtype=dtype))
        rows.append(_engine.cat([left, b, right], 1))
        col += c
    return _engine.cat(rows, 0)


def cartesian_prod(*tensors):
    """The Cartesian product of 1-D Variables, one row per combination (a single input
    is returned as it is), as torch.cartesian_prod.

    >>> import pyad
    >>> pyad.cartesian_prod(pyad.tensor([1, 2]), pyad.tensor([3, 4]))
    tensor([[1, 3],
            [1, 4],
            [2, 3],
            [2, 4]])
    """
    ts = [_as_variable(t, "cartesian_prod") for t in tensors]
    for t in ts:
        if t.ndim != 1:
            raise RuntimeError("cartesian_prod(): expect a 1D vector, but got shape %s"
                               % (tuple(t.shape),))
    if len(ts) == 1:
        return ts[0]
    grids = _engine.meshgrid(*ts, indexing="ij")
    return _engine.stack([g.reshape(-1) for g in grids], 1)


def combinations(input, r=2, with_replacement=False):
    """All length-``r`` combinations of the elements of a 1-D ``input`` (with repeated
    elements if ``with_replacement``), one per row, as torch.combinations.

    >>> import pyad
    >>> pyad.combinations(pyad.tensor([1, 2, 3]))
    tensor([[1, 2],
            [1, 3],
            [2, 3]])
    """
    x = _as_variable(input, "combinations")
    if x.ndim != 1:
        raise RuntimeError("combinations(): Expect a 1D vector, but got shape %s"
                           % (tuple(x.shape),))
    if r < 0:
        raise RuntimeError("combinations(): Expect a non-negative number, but got %d" % r)
    if r == 0:
        return _engine.Variable(_xp(x).zeros((0,), dtype=x.dtype))
    make = itertools.combinations_with_replacement if with_replacement else \
        itertools.combinations
    index = numpy.array(list(make(range(x.shape[0]), r)), dtype=numpy.int64).reshape(-1, r)
    if index.shape[0] == 0:
        return _engine.Variable(_xp(x).zeros((0, r), dtype=x.dtype))
    flat = _engine.index_select(x, 0, _engine.Variable(_xp(x).asarray(index.reshape(-1))))
    return flat.reshape(-1, r)


@writes_out(exact=True)
def inner(input, other):
    """The inner product over the last dimension (a product if either is 0-d), as
    torch.inner.

    >>> import pyad
    >>> pyad.inner(pyad.tensor([1.0, 2.0]), pyad.tensor([[3.0, 4.0], [5.0, 6.0]]))
    tensor([11., 17.])
    """
    a, b = _as_variable(input, "inner"), _as_variable(other, "inner")
    if a.ndim == 0 or b.ndim == 0:
        return a * b
    if a.shape[-1] != b.shape[-1]:
        raise RuntimeError("inner(): the last dimension must match on both input Variables "
                           "but got shapes %s and %s" % (tuple(a.shape), tuple(b.shape)))
    return _engine.tensordot(a, b, ([a.ndim - 1], [b.ndim - 1]))


@writes_out
def ger(input, vec2):
    """Alias of ``outer`` (torch's older name).

    >>> import pyad
    >>> pyad.ger(pyad.tensor([1, 2]), pyad.tensor([3, 4]))
    tensor([[3, 4],
            [6, 8]])
    """
    return _engine.outer(input, vec2)


@writes_out
def addr(input, vec1, vec2, *, beta=1, alpha=1):
    """``beta * input + alpha * outer(vec1, vec2)`` (``input`` ignored when ``beta`` is 0,
    so its nan do not propagate), as torch.addr.

    >>> import pyad
    >>> pyad.addr(pyad.zeros(2, 2), pyad.tensor([1.0, 2.0]), pyad.tensor([3.0, 4.0]))
    tensor([[3., 4.],
            [6., 8.]])
    """
    product = _engine.outer(vec1, vec2)
    x = _as_variable(input, "addr")
    from pyad._porting import promote_types
    kind = numpy.dtype(promote_types(x.dtype, product.dtype)).kind
    for name, value in (("beta", beta), ("alpha", alpha)):
        # torch's checks of the scalars against the result dtype
        if isinstance(value, (bool, numpy.bool_)) and kind != "b":
            raise RuntimeError("addr(): Boolean %s only supported for Boolean results." % name)
        if kind in "iub" and isinstance(value, (float, numpy.floating, complex,
                                                  numpy.complexfloating)):
            raise RuntimeError("addr(): For integral input Variables, argument %s must not be "
                               "a floating point number." % name)
    if alpha != 1:
        product = product * alpha
    if beta == 0:
        return _engine.add(product, _engine.Variable(_xp(x).zeros(x.shape, dtype=x.dtype)))
    return _engine.add(x * beta if beta != 1 else x, product)


@takes_out(fill_shape=True)
def logspace(start, end, steps, base=10.0, *, dtype=None, device=None, requires_grad=False):
    """``steps`` points ``base ** t`` for ``t`` evenly spaced from ``start`` to ``end``
    (computed in float64, then rounded to ``dtype``), as torch.logspace.

    >>> import pyad
    >>> pyad.logspace(0, 2, 3)
    tensor([  1.,  10., 100.])
    """
    if steps < 0:
        raise RuntimeError("logspace(): number of steps must be non-negative")
    if any(isinstance(a, (complex, numpy.complexfloating)) for a in (start, end, base)):
        # torch: a complex start, end or base gives the default complex dtype
        exponents = numpy.linspace(complex(start), complex(end), int(steps),
                                   dtype=numpy.complex128)
        values = numpy.power(complex(base), exponents)
        if dtype is None:
            from pyad._factories import _default_complex_dtype
            dtype = _default_complex_dtype()
    else:
        exponents = numpy.linspace(float(start), float(end), int(steps), dtype=numpy.float64)
        values = numpy.power(float(base), exponents)
    out_dtype = numpy.dtype(dtype) if dtype is not None else _engine.get_default_dtype()
    import pyad
    return pyad.tensor(values.astype(out_dtype), dtype=out_dtype, device=device,
                          requires_grad=requires_grad)


def _window(name, window_length, periodic, dtype, device, requires_grad, values):
    if window_length < 0:
        raise RuntimeError("%s(): requires non-negative window_length, got window_length=%d"
                           % (name, window_length))
    out_dtype = numpy.dtype(dtype) if dtype is not None else _engine.get_default_dtype()
    if out_dtype.kind != "f":
        raise RuntimeError("%s(): expects floating point dtypes, got: %s" % (name, out_dtype))
    if window_length == 0:
        data = numpy.zeros(0)
    elif window_length == 1:
        data = numpy.ones(1)
    else:
        n = window_length + 1 if periodic else window_length
        data = values(numpy.arange(n, dtype=numpy.float64), n)[:window_length]
    import pyad
    return pyad.tensor(data.astype(out_dtype), dtype=out_dtype, device=device,
                          requires_grad=requires_grad)


def hann_window(window_length, periodic=True, *, dtype=None, device=None, requires_grad=False):
    """The Hann window ``0.5 - 0.5 cos(2 pi n / (N - 1))`` (periodic: of length N + 1 with
    the last point dropped), as torch.hann_window.

    >>> import pyad
    >>> pyad.hann_window(4)
    tensor([0.0000, 0.5000, 1.0000, 0.5000])
    """
    return _window("hann_window", window_length, periodic, dtype, device, requires_grad,
                   lambda k, n: 0.5 - 0.5 * numpy.cos(2 * math.pi * k / (n - 1)))


def hamming_window(window_length, periodic=True, alpha=0.54, beta=0.46, *, dtype=None,
                   device=None, requires_grad=False):
    """The Hamming window ``alpha - beta cos(2 pi n / (N - 1))``, as torch.hamming_window.

    >>> import pyad
    >>> pyad.hamming_window(4)
    tensor([0.0800, 0.5400, 1.0000, 0.5400])
    """
    return _window("hamming_window", window_length, periodic, dtype, device, requires_grad,
                   lambda k, n: alpha - beta * numpy.cos(2 * math.pi * k / (n - 1)))


def blackman_window(window_length, periodic=True, *, dtype=None, device=None,
                    requires_grad=False):
    """The Blackman window ``0.42 - 0.5 cos(2 pi n / (N - 1)) + 0.08 cos(4 pi n / (N - 1))``,
    as torch.blackman_window.

    >>> import pyad
    >>> pyad.blackman_window(4, periodic=False)
    tensor([-1.4901e-08,  6.3000e-01,  6.3000e-01, -1.4901e-08])
    """
    return _window("blackman_window", window_length, periodic, dtype, device, requires_grad,
                   lambda k, n: 0.42 - 0.5 * numpy.cos(2 * math.pi * k / (n - 1))
                   + 0.08 * numpy.cos(4 * math.pi * k / (n - 1)))


def bartlett_window(window_length, periodic=True, *, dtype=None, device=None,
                    requires_grad=False):
    """The Bartlett (triangular) window ``1 - |2n / (N - 1) - 1|``, as
    torch.bartlett_window.

    >>> import pyad
    >>> pyad.bartlett_window(5, periodic=False)
    tensor([0.0000, 0.5000, 1.0000, 0.5000, 0.0000])
    """
    return _window("bartlett_window", window_length, periodic, dtype, device, requires_grad,
                   lambda k, n: 1 - numpy.abs(2 * k / (n - 1) - 1))


def kaiser_window(window_length, periodic=True, beta=12.0, *, dtype=None, device=None,
                  requires_grad=False):
    """The Kaiser window ``i0(beta sqrt(1 - ((n - a) / a)^2)) / i0(beta)``,
    ``a = (N - 1) / 2``, as torch.kaiser_window.

    >>> import pyad
    >>> pyad.kaiser_window(3, periodic=False, beta=1.0)
    tensor([0.7898, 1.0000, 0.7898])
    """
    def values(k, n):
        a = (n - 1) / 2.0
        arg = beta * numpy.sqrt(numpy.maximum(1 - ((k - a) / a) ** 2, 0))
        i0 = _engine.i0(_engine.Variable(numpy.append(arg, beta))).data
        return i0[:-1] / i0[-1]
    return _window("kaiser_window", window_length, periodic, dtype, device, requires_grad,
                   values)


# torch's Tensor methods among these functions (the Variable is their first argument).
_engine._add_variable_methods({name: globals()[name] for name in (
    "quantile", "nanquantile", "cov", "corrcoef", "histc", "bincount", "mode", "renorm",
    "diagflat", "inner", "ger", "addr")})
