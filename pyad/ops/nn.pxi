# Neural-network building blocks that need their own fused backward.


cdef class LogSoftmaxBackward(Node):
    cdef SavedVariable result
    cdef Py_ssize_t dim

    cdef tuple _backward(self, tuple grads):
        if not _grad_enabled():
            gd = (<Variable>grads[0])._data
            t = _scratch(_np_exp(self.result.data(self)))
            t *= _sum_data(gd, self.dim, True)
            return (_raw(_np_subtract(gd, t, out=t)),)
        g = grads[0]
        out = self.result.unpack(self)
        # d log_softmax: g - softmax * sum(g); softmax = exp(output)
        return (sub(g, mul(exp(out), sum(g, self.dim, True))),)

    cdef void _release_saved(self):
        self._released = True
        self.result.release()


cpdef Variable log_softmax(object input, object dim=None, object dtype=None):
    """``input - logsumexp(input, dim, keepdim=True)``, computed stably.

    >>> log_softmax(Variable(numpy.zeros(2)), dim=0)
    tensor([-0.6931, -0.6931], dtype=float64)
    """
    if _profiling and _profile_enter():
        return _profiled(log_softmax, (input, dim, dtype, ))
    cdef Variable x = _as_variable(input, "log_softmax")
    if dim is None:
        raise TypeError("log_softmax(): argument 'dim' must be given")
    if dtype is not None:
        x = _convert(x, None, dtype, False)
    if not _is_float_dtype(x._data.dtype):
        raise RuntimeError("log_softmax(): expected a floating point input, got %s"
                           % x._data.dtype)
    cdef Py_ssize_t d = _normalize_dim(dim, x._data.ndim, "log_softmax")
    data = x._data - _logsumexp_data(x._data, (d,) if x._data.ndim else (), True)
    cdef LogSoftmaxBackward node
    cdef Variable out
    if _records(x):
        node = LogSoftmaxBackward.__new__(LogSoftmaxBackward)
        node.dim = d if x._data.ndim else 0
        out = _recorded(node, data, (_edge(x),))
        node.result = _save(out, True)
        return out
    return _plain(data, x._volatile)


NN_OPS = (log_softmax,)
