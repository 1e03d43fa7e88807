# Reductions. A reduction's backward reshapes the incoming gradient to the
# keepdim shape and broadcasts it back over the input (through broadcast_to).

from collections import namedtuple

max_result = namedtuple("max", ["values", "indices"])
max_result.__module__ = "pyad"


cdef tuple _keepdim_shape(tuple shape, tuple dims):
    cdef list out = list(shape)
    for d in dims:
        out[<Py_ssize_t>d] = 1
    return tuple(out)


cdef tuple _reduce_args(Variable x, object dim, object keepdim, object axis, object keepdims,
                        str what):
    if axis is not None:
        if dim is not None:
            raise TypeError("%s: got both dim and axis" % what)
        dim = axis
    if keepdims is not None:
        keepdim = keepdims
    return _normalize_dims(dim, x._data.ndim, what), bool(keepdim)


cdef Variable _expand_reduced_grad(Variable g, tuple input_shape, tuple dims, bint keepdim):
    if not _grad_enabled():
        data = g._data
        if not keepdim:
            data = data.reshape(_keepdim_shape(input_shape, dims))
        return _raw(_broadcast_data(data, input_shape))
    if not keepdim:
        g = _reshape(g, _keepdim_shape(input_shape, dims), False)
    return broadcast_to(g, input_shape)


cdef class SumBackward(Node):
    cdef tuple input_shape
    cdef tuple dims
    cdef bint keepdim

    cdef tuple _backward(self, tuple grads):
        return (_expand_reduced_grad(grads[0], self.input_shape, self.dims, self.keepdim),)


cpdef Variable sum(object input, object dim=None, object keepdim=False, object axis=None,
                   object keepdims=None, object dtype=None):
    """Sum over ``dim`` (an int, a tuple, or None for all), keeping it if ``keepdim``.

    >>> sum(Variable(numpy.arange(6.).reshape(2, 3)), dim=1)
    tensor([ 3., 12.], dtype=float64)
    """
    if _profiling:
        return _profiled(sum, (input, dim, keepdim, axis, keepdims, dtype, ))
    cdef Variable x = _as_variable(input)
    dims, kd = _reduce_args(x, dim, keepdim, axis, keepdims, "sum")
    data = _sum_data(x._data, dims, kd, dtype)
    cdef SumBackward node
    if _records(x):
        node = SumBackward.__new__(SumBackward)
        node.input_shape = x._data.shape
        node.dims = dims
        node.keepdim = kd
        return _recorded(node, data, (_edge(x),))
    return _plain(data, x._volatile)


cdef class MeanBackward(SumBackward):
    cdef Py_ssize_t count

    cdef tuple _backward(self, tuple grads):
        if self.count == 0:
            g = grads[0]            # the input is empty: so is its gradient
        elif not _grad_enabled():
            g = _raw(_np_true_divide((<Variable>grads[0])._data, self.count))
        else:
            g = div(grads[0], self.count)
        return (_expand_reduced_grad(g, self.input_shape, self.dims, self.keepdim),)


cpdef Variable mean(object input, object dim=None, object keepdim=False, object axis=None,
                    object keepdims=None, object dtype=None):
    """Mean over ``dim`` (an int, a tuple, or None for all), keeping it if ``keepdim``.

    >>> mean(Variable(numpy.arange(6.).reshape(2, 3)), dim=0, keepdim=True)
    tensor([[1.5000, 2.5000, 3.5000]], dtype=float64)
    """
    if _profiling:
        return _profiled(mean, (input, dim, keepdim, axis, keepdims, dtype, ))
    cdef Variable x = _as_variable(input)
    if not _is_float_dtype(x._data.dtype) and dtype is None:
        raise RuntimeError("mean(): could not infer output dtype. Input dtype must be either "
                           "a floating point or complex dtype. Got: %s" % x._data.dtype)
    dims, kd = _reduce_args(x, dim, keepdim, axis, keepdims, "mean")
    cdef MeanBackward node
    cdef Py_ssize_t count = 1
    for d in dims:
        count *= x._data.shape[d]
    if dtype is None and x._data.dtype.itemsize >= 4 and count > 0:
        data = _np_true_divide(_sum_data(x._data, dims, kd), count)
    elif count == 0 and dtype is None and _is_float_dtype(x._data.dtype):
        with numpy.errstate(invalid="ignore"):       # the mean of nothing is nan (torch)
            data = _np_true_divide(_sum_data(x._data, dims, kd), count)
    else:
        data = x._data.mean(axis=dims, keepdims=kd, dtype=dtype)
    if _records(x):
        node = MeanBackward.__new__(MeanBackward)
        node.input_shape = x._data.shape
        node.dims = dims
        node.keepdim = kd
        node.count = count
        return _recorded(node, data, (_edge(x),))
    return _plain(data, x._volatile)


cdef class MaxBackward(Node):
    # Ties: without dim the gradient is shared evenly by all maxima (torch's choice);
    # with dim it goes to the index returned (the first maximum).
    cdef object mask          # float array of the input's shape, already divided by ties
    cdef tuple input_shape
    cdef tuple dims
    cdef bint keepdim

    cdef tuple _backward(self, tuple grads):
        g = _expand_reduced_grad(grads[0], self.input_shape, self.dims, self.keepdim)
        return (mul(g, self.mask),)

    cdef void _release_saved(self):
        self._released = True


cpdef object max(object input, object dim=None, object keepdim=False):
    """Maximum of all elements, or ``(values, indices)`` along ``dim``.

    >>> max(Variable(numpy.array([[1., 5.], [7., 2.]])), dim=1).values
    tensor([5., 7.], dtype=float64)
    """
    if _profiling:
        return _profiled(max, (input, dim, keepdim, ))
    cdef Variable x = _as_variable(input)
    if x._data.size == 0 and dim is None:
        raise RuntimeError("max(): Expected reduction dim to be specified for input.numel() "
                           "== 0. Specify the reduction dim with the 'dim' argument.")
    xp = _xp_of(x._data)
    cdef MaxBackward node
    cdef Variable values
    cdef tuple dims
    if dim is None:
        dims = tuple(range(x._data.ndim))
        data = x._data.max()
        if _records(x):
            is_max = (x._data == data)
            node = MaxBackward.__new__(MaxBackward)
            node.mask = is_max / is_max.sum(dtype=x._data.dtype)
            node.mask = node.mask.astype(x._data.dtype, copy=False)
            node.input_shape = x._data.shape
            node.dims = dims
            node.keepdim = False
            return _recorded(node, data, (_edge(x),))
        return _plain(data, x._volatile)
    if isinstance(dim, Variable):
        raise TypeError("max(input, other): the elementwise maximum of two Variables is not "
                        "supported yet; max takes an int dim (a reduction)")
    d = _normalize_dim(dim, x._data.ndim, "max")
    dims = (d,) if x._data.ndim else ()
    if x._data.ndim and x._data.shape[d] == 0:
        raise IndexError("max(): Expected reduction dim %d to have non-zero size." % d)
    if x._data.ndim == 0:
        indices = xp.zeros((), dtype=numpy.int64)
        data = x._data.copy()
    else:
        indices = xp.argmax(x._data, axis=d, keepdims=True)
        data = xp.take_along_axis(x._data, indices, axis=d)
        if not keepdim:
            indices = indices.squeeze(d)
            data = data.squeeze(d)
    if _records(x):
        node = MaxBackward.__new__(MaxBackward)
        mask = xp.zeros(x._data.shape, dtype=x._data.dtype)
        if x._data.ndim:
            xp.put_along_axis(mask, indices if keepdim else xp.expand_dims(indices, d), 1, axis=d)
        else:
            mask[...] = 1
        node.mask = mask
        node.input_shape = x._data.shape
        node.dims = dims
        node.keepdim = bool(keepdim)
        values = _recorded(node, data, (_edge(x),))
    else:
        values = _plain(data, x._volatile)
    return max_result(values, _plain(indices.astype(numpy.int64, copy=False), x._volatile))


cdef class LogsumexpBackward(Node):
    cdef SavedVariable input
    cdef SavedVariable result
    cdef tuple dims
    cdef bint keepdim

    cdef tuple _backward(self, tuple grads):
        cdef Variable x = self.input.unpack(self)
        out = self.result.unpack(self)
        g = grads[0]
        shape = x._data.shape
        if not self.keepdim:
            g = _reshape(g, _keepdim_shape(shape, self.dims), False)
            out = _reshape(out, _keepdim_shape(shape, self.dims), False)
        # d/dx log(sum(exp(x))) = softmax(x) = exp(x - logsumexp(x))
        return (mul(g, exp(sub(x, out))),)

    cdef void _release_saved(self):
        self._released = True
        self.input.release()
        self.result.release()


cdef object _logsumexp_data(object d, tuple dims, bint keepdim):
    xp = _xp_of(d)
    if d.size == 0:
        # The log of an empty sum is -inf (torch); NumPy's max has no identity to start from.
        shape = _keepdim_shape(d.shape, dims) if keepdim else tuple(
            s for i, s in enumerate(d.shape) if i not in dims)
        return xp.full(shape, -numpy.inf, dtype=d.dtype)
    m = _max_data(d, dims, True)
    # A row of -inf would give -inf - -inf = nan; shift by 0 there instead.
    m = xp.where(xp.isfinite(m), m, 0)
    total = _sum_data(xp.exp(d - m), dims, True)
    if xp is numpy and bool((total == 0).any()):
        with numpy.errstate(divide="ignore"):   # log(0) = -inf is the right answer
            out = xp.log(total) + m
    else:
        out = xp.log(total) + m
    if not keepdim:
        out = out.reshape(tuple(s for i, s in enumerate(d.shape) if i not in dims))
    return out


cpdef Variable logsumexp(object input, object dim=None, object keepdim=False):
    """``log(sum(exp(input), dim))`` computed stably.

    >>> logsumexp(Variable(numpy.array([1000., 1000.])), dim=0)
    tensor(1000.6931, dtype=float64)
    """
    if _profiling:
        return _profiled(logsumexp, (input, dim, keepdim, ))
    cdef Variable x = _as_variable(input)
    if not _is_float_dtype(x._data.dtype):
        x = _plain(x._data.astype(_default_dtype), x._volatile)
    dims = _normalize_dims(dim, x._data.ndim, "logsumexp")
    data = _logsumexp_data(x._data, dims, bool(keepdim))
    cdef LogsumexpBackward node
    cdef Variable out
    if _records(x):
        node = LogsumexpBackward.__new__(LogsumexpBackward)
        node.dims = dims
        node.keepdim = bool(keepdim)
        out = _recorded(node, data, (_edge(x),))
        node.input = _save(x, False, 0)
        node.result = _save(out, True)
        return out
    return _plain(data, x._volatile)


REDUCTION_OPS = (sum, mean, max, logsumexp)
