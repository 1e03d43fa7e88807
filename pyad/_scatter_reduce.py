"""torch's reducing scatters, written in Python on the engine's ops:
``scatter_reduce(input, dim, index, src, reduce, *, include_self=True)`` and
``index_reduce(input, dim, index, source, reduce, *, include_self=True)``, their
in-place forms ``Variable.scatter_reduce_``/``Variable.index_reduce_``, with reduce one
of ``"sum"`` (scatter_reduce only), ``"prod"``, ``"mean"``, ``"amax"`` and ``"amin"``.

The values are computed on the arrays (NumPy's ``ufunc.at``); the gradients are
torch's (``scatter_reduce_backward``/``index_reduce_backward``), written with
differentiable pyad ops so they can be differentiated again: the sum and mean spread
the gradient back (mean divides by the count), the product divides the result by each
factor (with torch's special case for a zero factor), and amax/amin share it evenly
among the entries equal to the result. With ``include_self=False`` the scattered
positions of ``input`` get no gradient.

>>> import pyad
>>> x = pyad.tensor([1.0, 2.0, 3.0])
>>> pyad.scatter_reduce(x, 0, pyad.tensor([0, 0, 2]), pyad.tensor([5.0, 4.0, 1.0]), "amax")
tensor([5., 2., 3.])
"""
import numpy

from pyad import _engine
from pyad._engine import _wrap_dim
from pyad.autograd import Function
from pyad.autograd.grad_mode import is_grad_enabled

__all__ = ["scatter_reduce", "index_reduce"]

_Variable = _engine.Variable

_SCATTER_REDUCES = ("sum", "prod", "mean", "amax", "amin", "max", "min")
# torch's forward also takes the legacy names "max" and "min" (its backward refuses them)
_ALIASES = {"max": "amax", "min": "amin"}
_INDEX_REDUCES = ("prod", "mean", "amax", "amin")
_UFUNCS = {"sum": numpy.add, "mean": numpy.add, "prod": numpy.multiply,
           "amax": numpy.maximum, "amin": numpy.minimum}


def _host(data):
    return data.get() if hasattr(data, "get") else numpy.asarray(data)


def _check_variable(x, what, name, position):
    if not isinstance(x, _Variable):
        raise TypeError("%s(): argument '%s' (position %d) must be Variable, not %s"
                        % (what, name, position, type(x).__name__))


def _index_array(index, what):
    # the index as a host int64 array (a Variable or an ndarray; torch takes a tensor)
    if isinstance(index, _Variable):
        data = _host(index.data)
    elif isinstance(index, numpy.ndarray):
        data = index
    else:
        raise TypeError("%s(): argument 'index' (position 2) must be Variable, not %s"
                        % (what, type(index).__name__))
    return data


def _identity(dtype, reduce):
    # the start value of a scattered position when include_self=False
    if reduce in ("sum", "mean"):
        return 0
    if reduce == "prod":
        return 1
    if dtype.kind == "b":
        return reduce == "amin"
    if dtype.kind in "iu":
        info = numpy.iinfo(dtype)
        return info.min if reduce == "amax" else info.max
    return -numpy.inf if reduce == "amax" else numpy.inf


def _reduce_values(self_data, dim, index, src_data, reduce, include_self):
    """The array of scatter_reduce(self, dim, index, src) (all arrays of one shape rank
    >= 1, index validated and in bounds)."""
    out = numpy.array(self_data, copy=True, order="C")
    if index.size == 0:
        return out
    coords = list(numpy.indices(index.shape, sparse=True))
    coords[dim] = index
    coords = numpy.broadcast_arrays(*coords)
    targets = numpy.ravel_multi_index(coords, out.shape).ravel()
    values = src_data[tuple(slice(0, n) for n in index.shape)].ravel()
    flat = out.reshape(-1)          # out is contiguous: a view
    if not include_self:
        flat[targets] = _identity(out.dtype, reduce)
    with numpy.errstate(all="ignore"):
        _UFUNCS[reduce].at(flat, targets, values)
        if reduce == "mean":
            count = numpy.bincount(targets, minlength=flat.size)
            if include_self:
                count += 1
            count[count == 0] = 1
            if out.dtype.kind in "fc":
                flat[...] = flat / count.astype(out.dtype)
            else:
                flat[...] = numpy.floor_divide(flat, count).astype(out.dtype)
    return out


def _counts(like, dim, index, include_self):
    # how many values land on each position of `like` (+1 for self when included)
    start = _engine.Variable(numpy.full(like.shape, 1 if include_self else 0, like.dtype))
    ones = _engine.Variable(numpy.ones(index.shape, like.dtype))
    return _engine.scatter_add(start, dim, index, ones)


def _backward(grad, self, dim, index, src, reduce, include_self, result, again):
    """torch's scatter_reduce_backward (FunctionsManual.cpp), with pyad ops; ``again`` is
    the forward (for prod, which reduces again)."""
    gather = _engine.gather
    if reduce == "sum":
        grad_self = grad
        grad_src = gather(grad, dim, index)
    elif reduce == "prod":
        # the exclusive product where self or src is 0: reduce again with the zero as 1
        masked_self = _engine.masked_fill(self, self.data == 0, 1)
        masked_self_result = again(masked_self, src)
        grad_self = grad * masked_self_result / masked_self
        src_zero = src.data == 0
        zeros = _engine.Variable(numpy.zeros(self.shape, numpy.int64))
        src_num_zeros = _host(gather(_engine.scatter_add(
            zeros, dim, index, _engine.Variable(src_zero.astype(numpy.int64))),
            dim, index).data)
        src_single_zero = src_zero & (src_num_zeros == 1)
        masked_src = _engine.masked_fill(src, src_single_zero, 1)
        masked_src_result = again(self, masked_src)
        grad_src = _engine.where(src_single_zero,
                                 gather(grad * masked_src_result, dim, index),
                                 gather(grad * result, dim, index)
                                 / _engine.masked_fill(src, src_zero, 1))
        if is_grad_enabled() and (src_num_zeros > 1).any():
            grad_src = _DoubleBackwardRefused.apply(grad_src)
    elif reduce == "mean":
        n = _counts(grad, dim, index, include_self)
        n = _engine.masked_fill(n, n.data == 0, 1)
        grad_self = grad / n
        grad_src = gather(grad, dim, index) / gather(n, dim, index)
    else:
        # amax/amin: the gradient is shared evenly among the entries equal to the result
        value = gather(result, dim, index)
        self_is_result = (self.data == result.data).astype(grad.dtype)
        src_is_result = (src.data == value.data).astype(grad.dtype)
        n = _engine.scatter_add(_engine.Variable(self_is_result), dim, index,
                                _engine.Variable(src_is_result))
        grad_distributed = grad / n
        grad_self = grad_distributed * _engine.Variable(self_is_result)
        grad_src = gather(grad_distributed, dim, index) * _engine.Variable(src_is_result)
    if not include_self:
        grad_self = _engine.scatter(grad_self, dim, index, value=0)
    return grad_self, grad_src


class _DoubleBackwardRefused(Function):
    # torch's DelayedError: the prod gradient of a src entry that shares its position with
    # another zero is right, but not differentiable again
    @staticmethod
    def forward(ctx, x):
        return x.clone()

    @staticmethod
    def backward(ctx, grad):
        raise RuntimeError("scatter_reduce(): Double backward is unsupported for src when "
                           ">1 zeros in src are scattered to the same position in self")


class ScatterReduce(Function):
    # forward(ctx, input, src, dim, index, reduce, include_self), index an int64 ndarray
    # of input's rank (index_reduce expands its vector to this form)
    @staticmethod
    def forward(ctx, input, src, dim, index, reduce, include_self):
        # 0-d operands run as 1-element vectors
        ctx.zero_d = input.ndim == 0
        if ctx.zero_d:
            index = index.reshape(1)
        ctx.dim, ctx.index, ctx.reduce, ctx.include_self = dim, index, reduce, include_self
        out = _reduce_values(_host(input.data).reshape(input.shape or (1,)), dim, index,
                             _host(src.data).reshape(src.shape or (1,)),
                             _ALIASES.get(reduce, reduce), include_self)
        result = _engine.Variable(out.reshape(input.shape))
        ctx.save_for_backward(input, src, result)
        return result

    @staticmethod
    def backward(ctx, grad):
        input, src, result = ctx.saved_tensors
        if ctx.reduce in _ALIASES:
            raise RuntimeError("%s(): Expected 'reduce' to be one of 'sum', 'prod', 'mean', "
                               "'amax', 'amin' but got %s." % (_NAMES[type(ctx).__name__],
                                                               ctx.reduce))
        cls = type(ctx).__name__.replace("Backward", "")
        if ctx.zero_d:
            input, src, result, grad = (v.reshape(1) for v in (input, src, result, grad))
        index_shape = tuple(ctx.index.shape)
        src_shape = tuple(src.shape)
        padding = []
        if src_shape != index_shape:
            # only src's leading block of index's shape is read: the rest gets zeros
            src = src[tuple(slice(0, n) for n in index_shape)]
            for n, m in zip(reversed(index_shape), reversed(src_shape)):
                padding += [0, m - n]

        def again(a, b):
            return _FUNCTIONS[cls].apply(a, b, ctx.dim, ctx.index, "prod", ctx.include_self)

        grad_self, grad_src = _backward(grad, input, ctx.dim, ctx.index, src, ctx.reduce,
                                        ctx.include_self, result, again)
        if padding:
            grad_src = _engine.pad(grad_src, padding)
        if ctx.zero_d:
            grad_self, grad_src = grad_self.reshape(()), grad_src.reshape(())
        return grad_self, grad_src, None, None, None, None


class IndexReduce(ScatterReduce):
    # the same computation, under torch's node name for index_reduce
    pass


_FUNCTIONS = {"ScatterReduce": ScatterReduce, "IndexReduce": IndexReduce}
_NAMES = {"ScatterReduceBackward": "scatter_reduce", "IndexReduceBackward": "index_reduce"}


def _ties_jvp(ctx, input_t, src_t, *_):
    # torch's scatter_reduce_jvp for amax/amin: the mean of the tangents of the entries
    # equal to the result among those reduced (a self entry that include_self=False
    # leaves out does not count, though the backward's share counts it, as torch's)
    input, src, result = ctx.saved_tensors
    index = ctx.index
    if ctx.zero_d:
        input, src, result, input_t, src_t = (v.reshape(1) for v in
                                              (input, src, result, input_t, src_t))
    if tuple(src.shape) != tuple(index.shape):
        block = tuple(slice(0, n) for n in index.shape)
        src, src_t = src[block], src_t[block]
    index_v = _engine.Variable(index)
    self_mask = input.data == result.data
    src_mask = src.data == _engine.gather(result, ctx.dim, index_v).data
    total = scatter_reduce(_engine.masked_fill(input_t, ~self_mask, 0), ctx.dim, index_v,
                           _engine.masked_fill(src_t, ~src_mask, 0), "sum",
                           include_self=ctx.include_self)
    dtype = result.data.dtype
    count = scatter_reduce(_engine.Variable(self_mask.astype(dtype)), ctx.dim, index_v,
                           _engine.Variable(src_mask.astype(dtype)), "sum",
                           include_self=ctx.include_self)
    out = total / _engine.masked_fill(count, count.data == 0, 1)
    return out.reshape(()) if ctx.zero_d else out


# ScatterReduce with torch's forward formula for amax/amin, used inside a forward-AD
# level only (pyad's forward mode otherwise runs the backward twice, whose share of a
# tie differs from torch's tangent); the same node name
_ScatterReduceTies = type(ScatterReduce)("ScatterReduce", (ScatterReduce,),
                                         {"jvp": staticmethod(_ties_jvp),
                                          "__module__": __name__})


def _forward_ad_active():
    import sys
    forward_ad = sys.modules.get("pyad.autograd.forward_ad")
    return forward_ad is not None and forward_ad._active()


def _apply(function, input, src, dim, index, reduce, include_self):
    if (function is ScatterReduce and reduce in ("amax", "amin")
            and _forward_ad_active()):
        function = _ScatterReduceTies
    return function.apply(input, src, dim, numpy.ascontiguousarray(index, numpy.int64),
                          reduce, bool(include_self))


def _no_support(what, reduce, dtype):
    raise NotImplementedError("%s(): reduce=%r is not implemented for %s Variables"
                              % (what, reduce, dtype))


def scatter_reduce(input, dim, index, src, reduce, *, include_self=True):
    """Scatter ``src`` into a copy of ``input`` along ``dim`` and reduce the values that
    land on one position with ``reduce``: ``"sum"``, ``"prod"``, ``"mean"``, ``"amax"`` or
    ``"amin"`` (``include_self=True``: together with ``input``'s value there), as
    ``torch.scatter_reduce``.

    For a 3-D input, ``out[index[i][j][k]][j][k]`` (dim 0) reduces ``src[i][j][k]``.
    ``index`` (int64 or int32, of ``input``'s rank) may be smaller than ``src`` and than
    ``input`` outside ``dim``. The integer mean rounds down (floor division), as torch.
    Gradients are torch's: amax/amin share the gradient evenly among ties, prod handles
    zero factors, and with ``include_self=False`` the scattered positions of ``input``
    get no gradient.

    >>> import pyad
    >>> x = pyad.tensor([1.0, 2.0, 3.0, 4.0])
    >>> index = pyad.tensor([0, 1, 0, 1, 2, 1])
    >>> src = pyad.tensor([1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
    >>> pyad.scatter_reduce(x, 0, index, src, "sum")
    tensor([ 5., 14.,  8.,  4.])
    >>> pyad.scatter_reduce(x, 0, index, src, "amax", include_self=False)
    tensor([3., 6., 5., 4.])
    """
    what = "scatter_reduce"
    _check_variable(input, what, "input", 1)
    index_data = _index_array(index, what)
    _check_variable(src, what, "src", 3)
    d = _wrap_dim(dim, input.ndim, what)
    scalar = input.ndim == 0
    if 0 in (input.ndim, index_data.ndim, src.ndim) and (input.ndim, index_data.ndim,
                                                         src.ndim) != (0, 0, 0):
        # torch counts a 0-d self, index or src as 1-d of size 1 (ensure_nonempty_dim);
        # all three 0-d run inside the node
        out = scatter_reduce(input.reshape(1) if scalar else input, d,
                             index_data.reshape(-1) if index_data.ndim == 0 else index_data,
                             src.reshape(1) if src.ndim == 0 else src, reduce,
                             include_self=include_self)
        return out.reshape(()) if scalar else out
    if reduce not in _SCATTER_REDUCES:
        raise RuntimeError("%s(): reduce argument must be either sum, prod, mean, amax or "
                           "amin, got %s" % (what, reduce))
    if index_data.dtype not in (numpy.int64, numpy.int32):
        raise RuntimeError("%s(): Expected dtype int32/int64 for index, got %s"
                           % (what, index_data.dtype))
    if input.dtype != src.dtype:
        raise RuntimeError("%s(): Expected self.dtype to be equal to src.dtype (%s vs %s)"
                           % (what, input.dtype, src.dtype))
    kind = numpy.dtype(input.dtype).kind
    if (kind == "c" and reduce in ("amax", "amin", "max", "min")) or (
            kind == "b" and reduce == "mean"):
        _no_support(what, reduce, input.dtype)
    if kind == "c" and is_grad_enabled() and (input.requires_grad or src.requires_grad):
        raise RuntimeError("%s does not support automatic differentiation for outputs with "
                           "complex dtype." % what)
    if index_data.size:
        if index_data.ndim != input.ndim:
            raise RuntimeError("%s(): Index Variable must have the same number of dimensions "
                               "as self Variable" % what)
        if index_data.ndim != src.ndim:
            raise RuntimeError("%s(): Index Variable must have the same number of dimensions "
                               "as src Variable" % what)
        too_big = any(n > s for n, s in zip(index_data.shape, src.shape)) or any(
            n > s for k, (n, s) in enumerate(zip(index_data.shape, input.shape)) if k != d)
        if too_big:
            raise RuntimeError("%s(): Expected index %s to be no larger than self %s apart "
                               "from dimension %d and to be no larger size than src %s"
                               % (what, list(index_data.shape), list(input.shape), d,
                                  list(src.shape)))
        size = input.shape[d] if input.ndim else 1
        bad = (index_data < 0) | (index_data >= size)
        if bad.any():
            raise RuntimeError("%s(): index %d is out of bounds for dimension %d with size %d"
                               % (what, index_data[bad].flat[0], d, size))
    return _apply(ScatterReduce, input, src, d, index_data, reduce, include_self)


def index_reduce(input, dim, index, source, reduce, *, include_self=True):
    """Reduce the slices of ``source`` along ``dim`` into the slices of a copy of
    ``input`` that ``index`` (a vector, one entry per slice of ``source``) names, with
    ``reduce``: ``"prod"``, ``"mean"``, ``"amax"`` or ``"amin"`` (``include_self=True``:
    together with ``input``'s slice), as ``torch.index_reduce``.

    ``source`` has ``input``'s shape except along ``dim``. The integer mean rounds down;
    gradients are torch's (as :func:`scatter_reduce`'s).

    >>> import pyad
    >>> x = pyad.ones(3, 2)
    >>> source = pyad.tensor([[2.0, 3.0], [4.0, 5.0], [6.0, 7.0]])
    >>> pyad.index_reduce(x, 0, pyad.tensor([0, 2, 0]), source, "prod")
    tensor([[12., 21.],
            [ 1.,  1.],
            [ 4.,  5.]])
    """
    what = "index_reduce"
    _check_variable(input, what, "input", 1)
    index_data = _index_array(index, what)
    _check_variable(source, what, "source", 3)
    d = _wrap_dim(dim, input.ndim, what)
    if reduce not in _INDEX_REDUCES:
        raise RuntimeError("%s(): Expected reduce to be one of prod, mean, amax or amin but "
                           "got %s." % (what, reduce))
    if index_data.ndim > 1:
        raise IndexError("%s(): Index is supposed to be a vector, but got dim: %d with size: "
                         "%s" % (what, index_data.ndim, list(index_data.shape)))
    if index_data.dtype not in (numpy.int64, numpy.int32):
        raise RuntimeError("%s(): Expected dtype int32/int64 for index but got: %s"
                           % (what, index_data.dtype))
    if input.dtype != source.dtype:
        raise RuntimeError("%s(): self (%s) and source (%s) must have the same scalar type"
                           % (what, input.dtype, source.dtype))
    n_source = source.shape[d] if source.ndim else 1
    if index_data.size != n_source:
        raise RuntimeError("%s(): Number of indices (%d) should be equal to "
                           "source.size(dim): (%d), for dim: %d"
                           % (what, index_data.size, n_source, d))
    if source.ndim > 0 and input.ndim > 0 and (
            source.ndim != input.ndim or any(a != b for k, (a, b) in enumerate(
                zip(input.shape, source.shape)) if k != d)):
        raise RuntimeError("%s(): source Variable shape must match self Variable shape, "
                           "excluding the specified dimension. Got self.shape = %s "
                           "source.shape = %s"
                           % (what, list(input.shape), list(source.shape)))
    if numpy.dtype(input.dtype).kind in "bc":
        _no_support(what, reduce, input.dtype)
    size = input.shape[d] if input.ndim else 1
    bad = (index_data < 0) | (index_data >= size)
    if bad.any():
        raise IndexError("%s(): index %d is out of range for dimension %d with size %d"
                         % (what, index_data[bad].flat[0], d, size))
    if input.ndim == 0:
        full = index_data.reshape(())
    else:
        shape = [1] * input.ndim
        shape[d] = index_data.size
        full = numpy.broadcast_to(index_data.reshape(shape), source.shape)
    if source.ndim != input.ndim:       # a 0-d source of a 1-element slice
        source = source.reshape(full.shape)
    return _apply(IndexReduce, input, source, d, full, reduce, include_self)


def _in_place(function, name):
    def method(self, dim, index, src, reduce, *, include_self=True):
        # computed from a clone (the backward saves its input, which copy_ then changes)
        # and copied back: one version bump, and a leaf that requires grad is refused;
        # an index or src partly sharing self's memory is refused first, as torch's
        _engine._refuse_partial_overlap_of(self, (index, src), name)
        out = function(self.clone(), dim, index, src, reduce, include_self=include_self)
        return self.copy_(out)
    method.__name__ = method.__qualname__ = name
    method.__doc__ = ("In-place :func:`pyad.%s`: the result is written into this Variable "
                      "(one version bump), which is returned." % function.__name__)
    return method


# Variable methods: the functions (the Variable is ``input``) and their in-place forms
_engine._add_variable_methods({
    "scatter_reduce": scatter_reduce, "index_reduce": index_reduce,
    "scatter_reduce_": _in_place(scatter_reduce, "scatter_reduce_"),
    "index_reduce_": _in_place(index_reduce, "index_reduce_"),
})
_engine._INPLACE_METHODS = _engine._INPLACE_METHODS + ("scatter_reduce_", "index_reduce_")
