# Reductions. A reduction's backward reshapes the incoming gradient to the
# keepdim shape and broadcasts it back over the input (through broadcast_to).

from collections import namedtuple

max_result = namedtuple("max", ["values", "indices"])
max_result.__module__ = "pyad"
min_result = namedtuple("min", ["values", "indices"])
min_result.__module__ = "pyad"


class _AllDims:
    # The default dim of median / nanmedian / prod: all elements. torch has no dim=None
    # for them (an explicit None is a TypeError), so the default is this marker.
    __slots__ = ()

    def __repr__(self):
        return "<all>"


_ALL = _AllDims()


cdef tuple _keepdim_shape(tuple shape, tuple dims):
    cdef list out = list(shape)
    for d in dims:
        out[<Py_ssize_t>d] = 1
    return tuple(out)


cdef tuple _reduce_args(Variable x, object dim, object keepdim, object axis, object keepdims,
                        str what):
    if axis is not None:
        if dim is not None:
            raise TypeError("%s(): got both dim and axis" % what)
        dim = axis
    if keepdims is not None:
        keepdim = keepdims
    if (type(dim) is tuple or type(dim) is list) and len(dim) == 0:
        dim = None                      # torch: an empty dim list reduces every dim
    return _normalize_dims(dim, x._data.ndim, what), bool(keepdim)


cdef Variable _expand_reduced_grad(Variable g, tuple input_shape, tuple dims, bint keepdim):
    return _grad(_v_expand_reduced(_gv(g, _grad_enabled()), input_shape, dims, keepdim))


cdef object _v_expand_reduced(object v, tuple input_shape, tuple dims, bint keepdim):
    # A reduction's gradient as a value (see _v_mul): v back in the keepdim shape,
    # broadcast over the input. A small NumPy result is materialised (a fresh writable
    # array: cheaper than building a zero-stride view, and a sink may keep it as .grad
    # without a copy); a big one stays a read-only broadcast view (no memory).
    cdef object out
    if type(v) is _NDARRAY:
        if cnp.PyArray_SIZE(<cnp.ndarray>v) == 1:
            # every non-reduced dim is 1: v, in any of its shapes, broadcasts as is
            out = _expand_small(v, input_shape)
            if out is not None:
                return out
        elif _size_of(input_shape) <= _SMALL_EXPAND:
            if not keepdim:
                v = v.reshape(_keepdim_shape(input_shape, dims))
            out = _expand_small(v, input_shape)
            if out is not None:
                return out
            return _broadcast_data(v, input_shape)
    elif isinstance(v, Variable) and not (<Variable>v)._requires_grad and \
            (<Variable>v)._view_fn is None and type((<Variable>v)._data) is _NDARRAY:
        # (create_graph) a gradient with no history (the implicit ones of a scalar root,
        # a constant grad_output): nothing to record, so the array form, as a Variable
        return _plain(_v_expand_reduced((<Variable>v)._data, input_shape, dims, keepdim),
                      (<Variable>v)._volatile)
    elif isinstance(v, Variable) and type((<Variable>v)._data) is _NDARRAY and \
            cnp.PyArray_NDIM(<cnp.ndarray>(<Variable>v)._data) == 0:
        # (create_graph) a 0-d gradient broadcasts as it is: one recorded node, not a
        # reshape and a broadcast
        return _v_broadcast_to(v, input_shape)
    if not keepdim:
        v = _v_reshape(v, _keepdim_shape(input_shape, dims))
    return _v_broadcast_to(v, input_shape)


# The sum of a whole small float array, as NumPy's add.reduce computes it (its pairwise
# summation: under 8 elements one running sum, up to 128 eight interleaved sums combined
# as ((r0+r1)+(r2+r3))+((r4+r5)+(r6+r7)) plus the rest, above that halves split at a
# multiple of 8; then added to the identity 0.0), bit for bit, in C: the ufunc
# reduction machinery costs about 2.5 us on 16 elements, more than the arithmetic, and
# returns a NumPy scalar that must be wrapped in a 0-d array again. Contiguous
# aligned native float32/float64 of 1 to _SMALL_SUM elements (NumPy splits bigger
# reductions into buffer-sized chunks).
cdef Py_ssize_t _SMALL_SUM = 4096


cdef double _pairwise_sum_d(const double* a, Py_ssize_t n) noexcept nogil:
    cdef Py_ssize_t i, n2
    cdef double res
    cdef double r[8]
    if n < 8:
        res = 0.0
        for i in range(n):
            res += a[i]
        return res
    if n <= 128:
        for i in range(8):
            r[i] = a[i]
        i = 8
        while i < n - (n % 8):
            r[0] += a[i]
            r[1] += a[i + 1]
            r[2] += a[i + 2]
            r[3] += a[i + 3]
            r[4] += a[i + 4]
            r[5] += a[i + 5]
            r[6] += a[i + 6]
            r[7] += a[i + 7]
            i += 8
        res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
        while i < n:
            res += a[i]
            i += 1
        return res
    n2 = n // 2
    n2 -= n2 % 8
    return _pairwise_sum_d(a, n2) + _pairwise_sum_d(a + n2, n - n2)


cdef float _pairwise_sum_f(const float* a, Py_ssize_t n) noexcept nogil:
    cdef Py_ssize_t i, n2
    cdef float res
    cdef float r[8]
    if n < 8:
        res = 0.0
        for i in range(n):
            res += a[i]
        return res
    if n <= 128:
        for i in range(8):
            r[i] = a[i]
        i = 8
        while i < n - (n % 8):
            r[0] += a[i]
            r[1] += a[i + 1]
            r[2] += a[i + 2]
            r[3] += a[i + 3]
            r[4] += a[i + 4]
            r[5] += a[i + 5]
            r[6] += a[i + 6]
            r[7] += a[i + 7]
            i += 8
        res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
        while i < n:
            res += a[i]
            i += 1
        return res
    n2 = n // 2
    n2 -= n2 % 8
    return _pairwise_sum_f(a, n2) + _pairwise_sum_f(a + n2, n - n2)


cdef object _small_full_sum(object data, tuple dims):
    # sum over every dim of `data` (keepdim off) as a 0-d array, or None where the
    # conditions above do not hold (the caller then reduces through NumPy).
    cdef int typenum, nd
    cdef cnp.npy_intp n
    cdef double d
    cdef float f
    if type(data) is not _NDARRAY:
        return None
    nd = cnp.PyArray_NDIM(<cnp.ndarray>data)
    if nd == 0 or len(dims) != nd:
        return None
    typenum = cnp.PyArray_TYPE(<cnp.ndarray>data)
    if (typenum != cnp.NPY_DOUBLE and typenum != cnp.NPY_FLOAT) or \
            not cnp.PyArray_IS_C_CONTIGUOUS(<cnp.ndarray>data) or \
            not cnp.PyArray_ISALIGNED(<cnp.ndarray>data) or \
            not cnp.PyArray_ISNOTSWAPPED(<cnp.ndarray>data):
        return None
    n = cnp.PyArray_SIZE(<cnp.ndarray>data)
    if n < 1 or n > _SMALL_SUM:
        return None
    out = cnp.PyArray_EMPTY(0, NULL, typenum, 0)
    if typenum == cnp.NPY_DOUBLE:
        d = 0.0
        d += _pairwise_sum_d(<const double*>cnp.PyArray_DATA(<cnp.ndarray>data), n)
        (<double*>cnp.PyArray_DATA(<cnp.ndarray>out))[0] = d
    else:
        f = 0.0
        f += _pairwise_sum_f(<const float*>cnp.PyArray_DATA(<cnp.ndarray>data), n)
        (<float*>cnp.PyArray_DATA(<cnp.ndarray>out))[0] = f
    return out


cdef tuple _converted_for_dtype(Variable x, object dtype, str what):
    # `dtype=` on a floating input: the input converted first (recorded, so the gradient
    # comes back cast), and the reduction then runs in that dtype: None for a floating
    # one (the op's own float path), the dtype itself for an integer or bool one, which
    # torch refuses on an input that records (no integer gradient).
    target = numpy.dtype(dtype)
    if target.kind in "biu" and _records(x):
        raise RuntimeError("%s(): Autograd not support dtype: %s"
                           % (what, _torch_dtype_name(target)))
    x = _convert(x, None, dtype, False)
    return x, (None if _is_float_dtype(x._data.dtype) else x._data.dtype)


cdef void _refuse_integer_mean_dtype(object dtype, str what) except *:
    # mean/nanmean: a `dtype=` must be floating or complex (torch cannot infer one)
    if dtype is not None and numpy.dtype(dtype).kind in "biu":
        raise RuntimeError("%s(): could not infer output dtype. Optional dtype must be "
                           "either a floating point or complex dtype. Got: %s"
                           % (what, _torch_dtype_name(numpy.dtype(dtype))))


cdef class SumBackward(Node):
    cdef tuple input_shape
    cdef tuple dims
    cdef bint keepdim

    cdef tuple _backward(self, tuple grads):
        return (_expand_reduced_grad(grads[0], self.input_shape, self.dims, self.keepdim),)


@profiled_op
cpdef Variable sum(object input, object dim=None, object keepdim=False, object axis=None,
                   object keepdims=None, object dtype=None, object out=None):
    """Sum over ``dim`` (an int, a tuple, or None for all), keeping it if ``keepdim``.

    >>> sum(Variable(numpy.arange(6.).reshape(2, 3)), dim=1)
    tensor([ 3., 12.], dtype=float64)
    """
    if out is not None: return _write_out("sum", out, sum(input, dim, keepdim, axis, keepdims,
                                          _dtype_or_out(dtype, out, "sum")))
    cdef Variable x = _as_variable(input, "sum")
    if dtype is not None and _is_float_dtype(x._data.dtype):
        x, dtype = _converted_for_dtype(x, dtype, "sum")
    dims, kd = _reduce_args(x, dim, keepdim, axis, keepdims, "sum")
    if dtype is None and _dtype_kind(x._data) == b'u':
        dtype = numpy.int64             # torch sums every integer dtype as int64
    data = None
    if dtype is None and _is_reduced_float(x._data):
        # float16/bfloat16 accumulate in float32 and round once, as torch's
        data = _as_dtype(_ensure_array(_sum_data(x._data, dims, kd, numpy.float32)),
                         x._data.dtype)
    elif dtype is None and not kd:
        data = _small_full_sum(x._data, dims)
    if data is None:
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
        v = _gv(grads[0], _grad_enabled())         # g / count, expanded over the input
        if self.count != 0:                         # (an empty input: so is its gradient)
            v = _v_div(v, self.count)
        return (_grad(_v_expand_reduced(v, self.input_shape, self.dims, self.keepdim)),)


@profiled_op
cpdef Variable mean(object input, object dim=None, object keepdim=False, object axis=None,
                    object keepdims=None, object dtype=None, object out=None):
    """Mean over ``dim`` (an int, a tuple, or None for all), keeping it if ``keepdim``.

    >>> mean(Variable(numpy.arange(6.).reshape(2, 3)), dim=0, keepdim=True)
    tensor([[1.5000, 2.5000, 3.5000]], dtype=float64)
    """
    if out is not None: return _write_out("mean", out, mean(input, dim, keepdim, axis,
                                          keepdims, dtype))
    cdef Variable x = _as_variable(input, "mean")
    _refuse_integer_mean_dtype(dtype, "mean")
    if dtype is not None and _is_float_dtype(x._data.dtype):
        x = _convert(x, None, dtype, False)   # recorded: the gradient comes back cast
        dtype = None
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
    elif dtype is None and _is_reduced_float(x._data):
        # float16/bfloat16 accumulate in float32 and round once, as torch's
        data = _as_dtype(_ensure_array(x._data.mean(axis=dims, keepdims=kd,
                                                    dtype=numpy.float32)), x._data.dtype)
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
    # mask: an array of the input's shape with the share of the gradient each element
    # gets. Ties: without dim (and for amax/amin) the gradient is shared evenly by all
    # extrema (torch's choice); with dim it goes to the index returned (the first one).
    cdef object mask
    cdef tuple input_shape
    cdef tuple dims
    cdef bint keepdim

    cdef tuple _backward(self, tuple grads):
        if self.mask is None:
            raise _freed_error(self)
        cdef bint rec = _grad_enabled()
        g = _v_expand_reduced(_gv(grads[0], rec), self.input_shape, self.dims, self.keepdim)
        r = _v_mul(g, self.mask)
        if type(self) is not AmaxBackward and type(self) is not AminBackward:
            # max, min and median send the gradient to the elements they chose and 0
            # elsewhere (torch writes it there: an inf gives 0 elsewhere, not nan);
            # amax and amin share it by a product, as torch's formula does.
            r = _v_keep(r, self.mask)
        return (_grad(r),)

    cdef void _release_saved(self) noexcept:
        self._released = True
        self.mask = None


cdef class MinBackward(MaxBackward):
    pass


cdef class AmaxBackward(MaxBackward):
    pass


cdef class AminBackward(MaxBackward):
    pass


cdef object _extremum_data(object data, tuple dims, bint keepdim, bint is_max):
    if is_max:
        return _max_data(data, dims, keepdim)
    if type(data) is _NDARRAY:
        return numpy.minimum.reduce(data, dims, None, None, keepdim)
    return data.min(axis=dims, keepdims=keepdim)


cdef object _even_mask(object data, object extremum, tuple dims, bint nan_equal=False):
    # 1/count at each of the count extrema of a reduced slice, 0 elsewhere. nan_equal:
    # a NaN result is shared by the NaNs (torch's evenly_distribute_backward, for max(),
    # min(), median()); otherwise a NaN slice gets 0/0 = NaN (torch's amax / amin).
    xp = _xp_of(data)
    is_ext = (data == extremum)
    if nan_equal and _is_float_dtype(data.dtype) and bool(xp.isnan(extremum).any()):
        is_ext = xp.isnan(data) if data.ndim == 0 or extremum.size == 1 else \
            is_ext | (xp.isnan(data) & xp.isnan(extremum))
    count = _sum_data(is_ext, dims, True)
    with numpy.errstate(invalid="ignore"):
        return (is_ext / count).astype(data.dtype, copy=False)


cdef void _check_reduced_sizes(object data, tuple dims, str what) except *:
    for d in dims:
        if data.shape[d] == 0:
            raise IndexError("%s(): Expected reduction dim %d to have non-zero size." % (what, d))


cdef object _extremum(object input, object dim, object keepdim, bint is_max):
    # max / min: all elements (a value), or along dim (values, indices).
    cdef str what = "max" if is_max else "min"
    cdef Variable x = _as_variable(input, "max" if is_max else "min")
    if x._data.size == 0 and dim is None:
        raise RuntimeError("%s(): Expected reduction dim to be specified for input.numel() "
                           "== 0. Specify the reduction dim with the 'dim' argument." % what)
    xp = _xp_of(x._data)
    cdef MaxBackward node
    cdef Variable values
    cdef tuple dims
    if dim is None:
        _refuse_complex(x, None, what)
        dims = tuple(range(x._data.ndim))
        data = _extremum_data(x._data, dims, False, is_max)
        if _records(x):
            node = MaxBackward.__new__(MaxBackward) if is_max else \
                MinBackward.__new__(MinBackward)
            node.mask = _even_mask(x._data, data, dims, True)
            node.input_shape = x._data.shape
            node.dims = dims
            node.keepdim = False
            return _recorded(node, data, (_edge(x),))
        return _plain(data, x._volatile)
    if isinstance(dim, Variable):          # torch.max(input, other): the elementwise one
        if keepdim:
            raise TypeError("%s(input, other): keepdim is only for a reduction over an int "
                            "dim" % what)
        return _pairwise_extremum(input, dim, is_max, what)
    d = _normalize_dim(dim, x._data.ndim, what)
    dims = (d,) if x._data.ndim else ()
    _check_reduced_sizes(x._data, dims, what)
    _refuse_complex(x, None, what)      # (after the dim checks, as torch)
    if x._data.ndim == 0:
        indices = xp.zeros((), dtype=numpy.int64)
        data = x._data.copy()
    else:
        indices = (xp.argmax if is_max else xp.argmin)(x._data, axis=d, keepdims=True)
        data = xp.take_along_axis(x._data, indices, axis=d)
        if not keepdim:
            indices = indices.squeeze(d)
            data = data.squeeze(d)
    if _records(x):
        node = MaxBackward.__new__(MaxBackward) if is_max else MinBackward.__new__(MinBackward)
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
    indices = _plain(indices.astype(numpy.int64, copy=False), x._volatile)
    return (max_result if is_max else min_result)(values, indices)


@profiled_op
cpdef object max(object input, object dim=None, object keepdim=False, object out=None):
    """Maximum of all elements, or ``(values, indices)`` along ``dim``; given a Variable
    instead of a dim, the elementwise :func:`maximum` (as ``torch.max(input, other)``).

    >>> max(Variable(numpy.array([[1., 5.], [7., 2.]])), dim=1).values
    tensor([5., 7.], dtype=float64)
    """
    if out is not None: return _write_out("max", out, max(input, dim, keepdim), _OUT_EXACT)
    # (the two-Variable form: neither operand may be complex; a reduction refuses it
    # after checking dim)
    if isinstance(dim, Variable):
        _refuse_complex(input, dim, "max")
    return _extremum(input, dim, keepdim, True)


@profiled_op
cpdef object _op_min(object input, object dim=None, object keepdim=False, object out=None):
    """Minimum of all elements, or ``(values, indices)`` along ``dim`` (the first
    minimum of a tie; the gradient goes to it); given a Variable instead of a dim, the
    elementwise :func:`minimum` (as ``torch.min(input, other)``).

    >>> min(Variable(numpy.array([[1., 5.], [7., 2.]])), dim=1)
    min(values=tensor([1., 2.], dtype=float64), indices=tensor([0, 1]))
    """
    if out is not None: return _write_out("min", out, _op_min(input, dim, keepdim), _OUT_EXACT)
    # (the two-Variable form: neither operand may be complex; a reduction refuses it
    # after checking dim)
    if isinstance(dim, Variable):
        _refuse_complex(input, dim, "min")
    return _extremum(input, dim, keepdim, False)


cdef Variable _amax_amin(object input, object dim, object keepdim, bint is_max):
    cdef str what = "amax" if is_max else "amin"
    cdef Variable x = _as_variable(input, "amax" if is_max else "amin")
    if isinstance(dim, (tuple, list)) and len(dim) == 0:
        dim = None
    if x._data.size == 0 and dim is None:
        raise RuntimeError("%s(): Expected reduction dim to be specified for input.numel() "
                           "== 0. Specify the reduction dim with the 'dim' argument." % what)
    cdef tuple dims = _normalize_dims(dim, x._data.ndim, what)
    _check_reduced_sizes(x._data, dims, what)
    _refuse_complex(x, None, what)      # (after the dim checks, as torch)
    cdef bint kd = bool(keepdim)
    data = _extremum_data(x._data, dims, True, is_max)
    cdef MaxBackward node
    if _records(x):
        node = AmaxBackward.__new__(AmaxBackward) if is_max else \
            AminBackward.__new__(AminBackward)
        node.mask = _even_mask(x._data, data, dims)
        node.input_shape = x._data.shape
        node.dims = dims
        node.keepdim = kd
        if not kd:
            data = data.reshape(tuple([s for i, s in enumerate(x._data.shape) if i not in dims]))
        return _recorded(node, data, (_edge(x),))
    if not kd:
        data = data.reshape(tuple([s for i, s in enumerate(x._data.shape) if i not in dims]))
    return _plain(data, x._volatile)


@profiled_op
cpdef Variable amax(object input, object dim=None, object keepdim=False, object out=None):
    """Maximum over ``dim`` (an int, a tuple, or None for all); ties share the gradient
    evenly.

    >>> amax(Variable(numpy.array([[1., 5.], [7., 2.]])), dim=0)
    tensor([7., 5.], dtype=float64)
    """
    if out is not None: return _write_out("amax", out, amax(input, dim, keepdim), _OUT_EXACT)
    return _amax_amin(input, dim, keepdim, True)


@profiled_op
cpdef Variable amin(object input, object dim=None, object keepdim=False, object out=None):
    """Minimum over ``dim`` (an int, a tuple, or None for all); ties share the gradient
    evenly.

    >>> amin(Variable(numpy.array([[1., 5.], [7., 2.]])), dim=(0, 1))
    tensor(1., dtype=float64)
    """
    if out is not None: return _write_out("amin", out, amin(input, dim, keepdim), _OUT_EXACT)
    return _amax_amin(input, dim, keepdim, False)


cdef Variable _arg_extremum(object input, object dim, object keepdim, bint is_max):
    cdef str what = "argmax" if is_max else "argmin"
    cdef Variable x = _as_variable(input, "argmax" if is_max else "argmin")
    # torch refuses bool input (after the TypeError a dim tuple gets)
    if _dtype_kind(x._data) == b'b' and not isinstance(dim, (tuple, list)):
        raise RuntimeError("%s(): does not support bool input" % what)
    if isinstance(dim, (tuple, list)):
        raise TypeError("%s(): argument 'dim' must be int, not %s" % (what, type(dim).__name__))
    if dim is not None:
        _normalize_dim(dim, x._data.ndim, what)
    _refuse_complex(x, None, what)      # (after the dim checks, as torch)
    xp = _xp_of(x._data)
    f = xp.argmax if is_max else xp.argmin
    cdef Py_ssize_t d
    if dim is None:
        if x._data.size == 0:
            raise IndexError("%s(): Expected reduction dim to be specified for "
                             "input.numel() == 0." % what)
        idx = xp.asarray(f(x._data))         # the index in the flattened input
        if keepdim:
            idx = idx.reshape((1,) * x._data.ndim)
    else:
        d = _normalize_dim(dim, x._data.ndim, what)
        if x._data.ndim == 0:
            idx = xp.zeros((), dtype=numpy.int64)
        else:
            _check_reduced_sizes(x._data, (d,), what)
            idx = f(x._data, axis=d, keepdims=bool(keepdim))
    return _plain(idx.astype(numpy.int64, copy=False), x._volatile)


@profiled_op
cpdef Variable argmax(object input, object dim=None, object keepdim=False, object out=None):
    """Index of the maximum (the first one of a tie) along ``dim``, or in the flattened
    input when ``dim`` is None. Not differentiable (int64 result).

    >>> argmax(Variable(numpy.array([[1., 5.], [7., 2.]])), dim=1)
    tensor([1, 0])
    """
    if out is not None: return _write_out("argmax", out, argmax(input, dim, keepdim),
                                          _OUT_EXACT)
    return _arg_extremum(input, dim, keepdim, True)


@profiled_op
cpdef Variable argmin(object input, object dim=None, object keepdim=False, object out=None):
    """Index of the minimum (the first one of a tie) along ``dim``, or in the flattened
    input when ``dim`` is None. Not differentiable (int64 result).

    >>> argmin(Variable(numpy.array([[1., 5.], [7., 2.]])))
    tensor(0)
    """
    if out is not None: return _write_out("argmin", out, argmin(input, dim, keepdim),
                                          _OUT_EXACT)
    return _arg_extremum(input, dim, keepdim, False)


# -- prod ---------------------------------------------------------------------------

cdef object _prod_others_data(object a, Py_ssize_t d):
    # out[..., i, ...] = prod over j != i of a[..., j, ...] along axis d, without dividing
    # (exact with zeros): the product of an exclusive cumprod from each side.
    xp = _xp_of(a)
    cdef Py_ssize_t n = a.shape[d]
    if n == 0 or a.size == 0:
        return a.copy()
    one_shape = list(a.shape)
    one_shape[d] = 1
    ones = xp.ones(tuple(one_shape), dtype=a.dtype)
    lead = [slice(None)] * a.ndim
    head = list(lead)
    head[d] = slice(0, n - 1)
    left = xp.concatenate((ones, xp.cumprod(a[tuple(head)], axis=d)), axis=d)
    rev = xp.flip(a, axis=d)
    right = xp.flip(xp.concatenate((ones, xp.cumprod(rev[tuple(head)], axis=d)), axis=d),
                    axis=d)
    return left * right


cdef class ProdOthersBackward(Node):
    # y_i = prod_{j != i} x_j along dim:  dL/dx_k = sum_{i != k} g_i prod_{j != i,k} x_j
    cdef SavedVariable input
    cdef Py_ssize_t dim

    cdef tuple _backward(self, tuple grads):
        cdef Variable x = self.input.unpack(self)
        cdef Variable g = grads[0]
        shape = x._data.shape
        cdef Py_ssize_t d = self.dim
        cdef Py_ssize_t n = shape[d]
        if x._data.size == 0:
            return (mul(g, 0.0),)
        # axis d indexes i, axis d+1 indexes j: row i is x with x_i replaced by 1
        big = shape[:d] + (n,) + shape[d:]
        xe = broadcast_to(_reshape(x, shape[:d] + (1,) + shape[d:], False), big)
        xp = _xp_of(x._data)
        eye = xp.eye(n, dtype=bool).reshape((1,) * d + (n, n) + (1,) * (len(shape) - d - 1))
        q = _prod_others(where_const(eye, 1, xe), d + 1)   # q[i, k] = prod_{j != i,k} x_j
        q = where_const(eye, 0, q)
        ge = _reshape(g, shape[:d + 1] + (1,) + shape[d + 1:], False)
        return (sum(mul(ge, q), d),)

    cdef void _release_saved(self) noexcept:
        self._released = True
        self.input.release()


cdef Variable _prod_others(Variable x, Py_ssize_t d):
    data = _prod_others_data(x._data, d)
    cdef ProdOthersBackward node
    if _records(x):
        node = ProdOthersBackward.__new__(ProdOthersBackward)
        node.dim = d
        out = _recorded(node, data, (_edge(x),))
        node.input = _save(x, False, 0)
        return out
    return _plain(data, x._volatile)


cdef class ProdBackward(Node):
    # No zero in the input: g * prod / x. Zeros: g * (the product of the others), so
    # one zero gets the product of the rest and every element of a slice with two or
    # more zeros gets 0 (torch's prod_safe_zeros_backward). A full product with two
    # zeros or more, outside create_graph, is all zeros outright (torch's shortcut,
    # which differs only where the rest holds an inf or a NaN).
    cdef SavedVariable input
    cdef SavedVariable result
    cdef object dim            # None (all elements) or the non-negative dim
    cdef bint keepdim

    cdef tuple _backward(self, tuple grads):
        cdef Variable x = self.input.unpack(self)
        cdef Variable g = grads[0]
        shape = x._data.shape
        if x._data.ndim == 0:
            return (g,)
        out = self.result.unpack(self)
        kshape = (1,) * len(shape) if self.dim is None else \
            _keepdim_shape(shape, (self.dim,))
        g = _reshape(g, kshape, False)
        # Asking whether a zero is present reads the data on the host; on a GPU that is
        # a sync in the middle of the backward, so there the zero-safe rule (exact for
        # every input) always runs.
        if _xp_of(x._data) is numpy:
            zeros = int(numpy.count_nonzero(x._data == 0))
            if zeros == 0:
                return (mul(g, div(_reshape(out, kshape, False), x)),)
            if zeros > 1 and self.dim is None and not _grad_enabled():
                # torch's shortcut for a full product with two zeros or more: all zeros,
                # whatever else the input holds (inf, NaN) and whatever g is
                return (_plain(numpy.zeros(shape, dtype=_dtype(x._data)), False),)
        if self.dim is None:
            others = _reshape(_prod_others(_reshape(x, (x._data.size,), False), 0), shape,
                              False)
        else:
            others = _prod_others(x, self.dim)
        return (mul(g, others),)

    cdef void _release_saved(self) noexcept:
        self._released = True
        self.input.release()
        self.result.release()


cdef void _refuse_keepdim_without_dim(str what) except *:
    # torch has no overload taking keepdim without dim (the whole-input reduction takes
    # only dtype)
    raise TypeError("%s(): received an invalid combination of arguments - got (Variable, "
                    "keepdim=bool), but expected one of: (Variable input, *, dtype=None) or "
                    "(Variable input, int dim, bool keepdim=False, *, dtype=None)" % what)


@profiled_op
cpdef Variable prod(object input, object dim=_ALL, object keepdim=False, object dtype=None,
                    object out=None):
    """Product of all elements, or along the int ``dim`` (keeping it if ``keepdim``).
    Zeros are handled exactly: a single zero gets the product of the others as its
    gradient.

    >>> x = Variable(numpy.array([2., 0., 3.]), requires_grad=True)
    >>> prod(x).backward()
    >>> x.grad
    tensor([0., 6., 0.], dtype=float64)
    """
    if out is not None: return _write_out("prod", out, prod(input, dim, keepdim,
                                          _dtype_or_out(dtype, out, "prod")))
    cdef Variable x = _as_variable(input, "prod")
    if dtype is not None and _is_float_dtype(x._data.dtype):
        x, dtype = _converted_for_dtype(x, dtype, "prod")
    if dim is not _ALL and (dim is None or not hasattr(dim, "__index__")):
        raise TypeError("prod(): argument 'dim' must be int, not %s" % type(dim).__name__)
    cdef bint kd = bool(keepdim)
    if dim is _ALL:
        if kd:
            _refuse_keepdim_without_dim("prod")
        dims = tuple(range(x._data.ndim))
        d = None
    else:
        d = _normalize_dim(dim, x._data.ndim, "prod")
        dims = (d,) if x._data.ndim else ()
    if dtype is None and x._data.dtype.kind in "biu":
        dtype = numpy.int64              # torch: integer products are int64
    data = x._data.prod(axis=dims, keepdims=kd, dtype=dtype)
    cdef ProdBackward node
    cdef Variable value
    if _records(x) and _is_float_dtype(_dtype(_ensure_array(data))):
        node = ProdBackward.__new__(ProdBackward)
        node.dim = d if x._data.ndim else None
        node.keepdim = kd
        value = _recorded(node, data, (_edge(x),))
        node.input = _save(x, False, 0)
        node.result = _save(value, True)
        return value
    return _plain(data, x._volatile)


# -- logical reductions (no gradient) -------------------------------------------------

cdef Variable _logical(object input, object dim, object keepdim, bint is_all):
    cdef str what = "all" if is_all else "any"
    cdef Variable x = _as_variable(input, "all" if is_all else "any")
    dims = _normalize_dims(dim, x._data.ndim, what)
    xp = _xp_of(x._data)
    data = (xp.all if is_all else xp.any)(x._data, axis=dims, keepdims=bool(keepdim))
    if x._data.dtype == numpy.uint8:       # torch keeps uint8; every other dtype gives bool
        data = data.astype(numpy.uint8)
    return _plain(data, x._volatile)


@profiled_op
cpdef Variable _op_all(object input, object dim=None, object keepdim=False, object out=None):
    """Whether every element (over ``dim``: an int, a tuple, or None) is nonzero.

    >>> all(Variable(numpy.array([[1., 0.], [2., 3.]])), dim=1)
    tensor([False,  True])
    """
    if out is not None: return _write_out("all", out, _op_all(input, dim, keepdim), _OUT_EXACT)
    return _logical(input, dim, keepdim, True)


@profiled_op
cpdef Variable _op_any(object input, object dim=None, object keepdim=False, object out=None):
    """Whether any element (over ``dim``: an int, a tuple, or None) is nonzero.

    >>> any(Variable(numpy.array([[1., 0.], [0., 0.]])), dim=1)
    tensor([ True, False])
    """
    if out is not None: return _write_out("any", out, _op_any(input, dim, keepdim), _OUT_EXACT)
    return _logical(input, dim, keepdim, False)


@profiled_op
cpdef Variable count_nonzero(object input, object dim=None):
    """Number of nonzero elements over ``dim`` (an int, a tuple, or None for all), int64.

    >>> count_nonzero(Variable(numpy.array([[1., 0.], [2., 3.]])), dim=0)
    tensor([2, 1])
    """
    cdef Variable x = _as_variable(input, "count_nonzero")
    if isinstance(dim, (tuple, list)) and len(dim) == 0:
        dim = None                                 # torch: an empty dim list counts all
    dims = _normalize_dims(dim, x._data.ndim, "count_nonzero")
    data = _sum_data(x._data != 0, dims, False, numpy.int64)
    return _plain(data, x._volatile)


# -- variance and standard deviation ---------------------------------------------------

cdef tuple _var_args(Variable x, object dim, object unbiased, object keepdim,
                     object correction, str what):
    # torch's overloads: (dim, unbiased, keepdim), (unbiased) and (dim, *, correction).
    if isinstance(dim, (bool, numpy.bool_)):
        if unbiased is not None:
            raise TypeError("%s(): got the unbiased flag twice" % what)
        dim, unbiased = None, dim
    if unbiased is not None:
        if correction is not None:
            raise TypeError("%s(): cannot specify both unbiased and correction" % what)
        correction = 1 if unbiased else 0
    elif correction is None:
        correction = 1
    if not _is_float_dtype(x._data.dtype):
        raise RuntimeError("%s(): std and var only support floating point and complex "
                           "dtypes, got %s" % (what, x._data.dtype))
    if isinstance(dim, (tuple, list)) and len(dim) == 0:
        dim = None
    dims = _normalize_dims(dim, x._data.ndim, what)
    cdef Py_ssize_t n = 1
    for d in dims:
        n *= x._data.shape[d]
    if x._data.size and n - correction <= 0:
        warnings.warn("%s(): degrees of freedom is <= 0. Correction should be strictly less "
                      "than the reduction factor (input numel divided by output numel)."
                      % what, UserWarning, stacklevel=1)
    return dims, bool(keepdim), correction, n, dim is None or x._data.ndim == 0


cdef object _var_data(object data, tuple dims, bint keepdim, object correction, Py_ssize_t n):
    # torch's divisor: max(0, n - correction) (inf or nan where it is 0).
    with numpy.errstate(invalid="ignore", divide="ignore"):
        m = _sum_data(data, dims, True) / n if n else 0     # n == 0: data is empty
        diff = data - m
        if _dtype_kind(data) == b'c':   # |diff|^2, real (torch)
            sq = diff.real * diff.real + diff.imag * diff.imag
            out = _sum_data(sq, dims, keepdim) / builtins.max(0, n - correction)
            return _ensure_array(out).astype(data.real.dtype, copy=False)
        out = _sum_data(diff * diff, dims, keepdim) / builtins.max(0, n - correction)
    return _ensure_array(out).astype(data.dtype, copy=False)


cdef Variable _var_backward(Variable g, Variable x, tuple dims, bint keepdim, object correction,
                            Py_ssize_t n, bint all_dims):
    # torch's var_backward: 2 / (n - correction) * g * (x - mean(x)).
    shape = x._data.shape
    if not keepdim:
        g = _reshape(g, _keepdim_shape(shape, dims), False)
    m = mean(x, dims, True)
    dof = n - correction
    if all_dims and dof <= 0:
        # 2 / dof is infinite: nan where x equals its mean (inf * 0), inf elsewhere.
        xp = _xp_of(x._data)
        with numpy.errstate(invalid="ignore"):
            special = xp.where(x._data == m._data, numpy.nan, numpy.inf).astype(x._data.dtype)
        return mul(broadcast_to(g, shape), special)
    if dof == 0:
        # torch: inf * g * (x - mean): nan where x is at its mean, +-inf elsewhere.
        # A complex input: torch's order, the real inf * g first, then the complex
        # x - mean, so it gets +-inf+-infj, not the nan of g * (inf+-infj). (A real one
        # keeps the scale on x - mean: the same values, and an empty input then has no
        # inf * 0 in d/dg.)
        with numpy.errstate(invalid="ignore"):
            if _dtype_kind(x._data) == b'c' and x._data.size:
                return mul(mul(g, numpy.inf), sub(x, m))
            return mul(g, mul(sub(x, m), numpy.inf))
    # The scale goes on x - mean(x): an empty input then has no inf * 0 in d/dg.
    return mul(g, mul(sub(x, m), 2.0 / dof))


cdef class VarBackward(Node):
    cdef SavedVariable input
    cdef tuple dims
    cdef bint keepdim
    cdef bint all_dims
    cdef object correction
    cdef Py_ssize_t n

    cdef tuple _backward(self, tuple grads):
        cdef Variable x = self.input.unpack(self)
        return (_var_backward(grads[0], x, self.dims, self.keepdim, self.correction, self.n,
                              self.all_dims),)

    cdef void _release_saved(self) noexcept:
        self._released = True
        self.input.release()


cdef Variable _var_or_std(Variable x, tuple args, bint take_sqrt):
    # The variance (or with take_sqrt the standard deviation) of x for _var_args'
    # (dims, keepdim, correction, n, all_dims): var, std, var_mean and std_mean.
    dims, kd, correction, n, all_dims = args
    data = _var_data(x._data, dims, kd, correction, n)
    if take_sqrt:
        data = _np_sqrt(data)
    cdef VarBackward node
    cdef Variable value
    if _records(x):
        node = StdBackward.__new__(StdBackward) if take_sqrt else \
            VarBackward.__new__(VarBackward)
        node.dims = dims
        node.keepdim = kd
        node.correction = correction
        node.n = n
        node.all_dims = all_dims
        value = _recorded(node, data, (_edge(x),))
        node.input = _save(x, False, 0)
        if take_sqrt:
            (<StdBackward>node).result = _save(value, True)
        return value
    return _plain(data, x._volatile)


@profiled_op
def var(input, dim=None, unbiased=None, keepdim=False, correction=None, *, out=None):
    """Variance over ``dim`` (an int, a tuple, or None for all) with divisor
    ``N - correction`` (``correction=1`` by default; the legacy ``unbiased=False`` is
    ``correction=0``), keeping ``dim`` if ``keepdim``.

    >>> var(Variable(numpy.array([[1., 2., 3.], [2., 2., 2.]])), dim=1)
    tensor([1., 0.], dtype=float64)
    """
    if out is not None: return _write_out("var", out, var(input, dim, unbiased, keepdim,
                                          correction))
    cdef Variable x = _as_variable(input, "var")
    return _var_or_std(x, _var_args(x, dim, unbiased, keepdim, correction, "var"), False)


cdef class StdBackward(VarBackward):
    # torch's std_backward: var_backward of g / (2 std), with 0 where std is 0.
    cdef SavedVariable result

    cdef tuple _backward(self, tuple grads):
        cdef Variable x = self.input.unpack(self)
        cdef Variable out = self.result.unpack(self)
        if x._data.size == 0:
            g = grads[0]         # the gradient is empty: no division by a nan std
        else:
            # 1 in the divisor where std is 0, so that no derivative of g / (2 std) meets
            # 0 / 0 (torch divides first and gets nan second derivatives there).
            zero = out._data == 0
            g = where_const(zero, 0, div(grads[0], where_const(zero, 1, mul(out, 2))))
        return (_var_backward(g, x, self.dims, self.keepdim, self.correction, self.n,
                              self.all_dims),)

    cdef void _release_saved(self) noexcept:
        self._released = True
        self.input.release()
        self.result.release()


@profiled_op
def std(input, dim=None, unbiased=None, keepdim=False, correction=None, *, out=None):
    """Standard deviation over ``dim`` (arguments as ``var``); the gradient where it
    is 0 is 0, as torch's.

    >>> std(Variable(numpy.array([[1., 2., 3.], [2., 2., 2.]])), dim=1)
    tensor([1., 0.], dtype=float64)
    """
    if out is not None: return _write_out("std", out, std(input, dim, unbiased, keepdim,
                                          correction))
    cdef Variable x = _as_variable(input, "std")
    return _var_or_std(x, _var_args(x, dim, unbiased, keepdim, correction, "std"), True)


# -- multi-output nodes ----------------------------------------------------------------

cdef class _GroupBackward(Node):
    # One node for the outputs of an op that returns several (torch's multi-output
    # nodes: VarMeanBackward, UnbindBackward, SplitBackward, ...). Output i's gradient
    # goes through parts[i], the single-output node the op made for it (all with the
    # same edges); their results are summed. An output no gradient reached is skipped,
    # and its Variable hooks and the node's pre-hooks see None for it, as torch's.
    cdef tuple parts

    cdef tuple _backward(self, tuple grads):
        cdef Py_ssize_t i, k, n = _num_edges(self)
        cdef list total = [None] * n
        for i in range(len(grads)):
            g = grads[i]
            if g is None:
                continue
            outs = (<Node>self.parts[i])._backward((g,))
            for k in range(n):
                o = outs[k]
                if o is not None:
                    total[k] = o if total[k] is None else add(total[k], o)
        return tuple(total)

    cdef void _release_saved(self) noexcept:
        self._released = True
        for part in self.parts:
            (<Node>part)._release_saved()


cdef class VarMeanBackward(_GroupBackward):
    pass


cdef class StdMeanBackward(_GroupBackward):
    pass


cdef tuple _group_outputs(_GroupBackward group, tuple outs):
    # Give `outs` (each made by its own single-output node, all with the same edges)
    # the one node `group`. Outputs that were not recorded are returned as they are.
    cdef Py_ssize_t i
    cdef Variable o
    if len(outs) == 0:
        return outs
    for i in range(len(outs)):
        if (<Variable>outs[i])._grad_fn is None:
            return outs
    group.parts = tuple([(<Variable>o)._grad_fn for o in outs])
    _init_node(group, _edge_entries(<Node>group.parts[0]), len(outs))
    cdef Node part
    cdef _NodeExtra x
    for i in range(len(outs)):
        _set_history(<Variable>outs[i], group, i)
        part = <Node>group.parts[i]
        x = _extra(part)
        if x.metadata is None:
            x.metadata = {}
        # (weakly: the group holds its parts, a strong reference back would be a cycle)
        x.metadata[_GROUP_KEY] = (weakref.ref(group), i)
    return outs


@profiled_op
def var_mean(input, dim=None, unbiased=None, keepdim=False, correction=None):
    """``(var, mean)`` over ``dim`` (arguments as ``var``).

    >>> var_mean(Variable(numpy.array([1., 2., 3.])))
    (tensor(1., dtype=float64), tensor(2., dtype=float64))
    """
    cdef Variable x = _as_variable(input, "var_mean")
    args = _var_args(x, dim, unbiased, keepdim, correction, "var_mean")
    dims = args[0]
    v = _var_or_std(x, args, False)
    return _group_outputs(VarMeanBackward.__new__(VarMeanBackward), (v, mean(x, dims, keepdim)))


@profiled_op
def std_mean(input, dim=None, unbiased=None, keepdim=False, correction=None):
    """``(std, mean)`` over ``dim`` (arguments as ``var``).

    >>> std_mean(Variable(numpy.array([1., 2., 3.])), correction=0)[1]
    tensor(2., dtype=float64)
    """
    cdef Variable x = _as_variable(input, "std_mean")
    args = _var_args(x, dim, unbiased, keepdim, correction, "std_mean")
    dims = args[0]
    s = _var_or_std(x, args, True)
    return _group_outputs(StdMeanBackward.__new__(StdMeanBackward), (s, mean(x, dims, keepdim)))


# -- norm (torch.norm; its rules, with pyad.linalg's norms, are in linalg.pxi) ---------

@profiled_op
cpdef Variable norm(object input, object p="fro", object dim=None, object keepdim=False,
                    object dtype=None, object out=None):
    """torch.norm: the vector ``p``-norm over ``dim`` (all elements if None; see
    ``vector_norm``); ``'fro'`` (default) is the 2-norm over ``dim``, ``'nuc'`` the
    nuclear norm of a matrix (over a pair of dims).

    >>> norm(Variable(numpy.array([[3., 0.], [0., -4.]])), dim=1)
    tensor([3., 4.], dtype=float64)
    """
    if out is not None: return _write_out("norm", out, norm(input, p, dim, keepdim, dtype),
                                          _OUT_EXACT)
    if isinstance(p, str):
        if p == "nuc":
            x = _as_variable(input, "norm")
            if dim is None:
                if (<Variable>x)._data.ndim != 2:
                    raise RuntimeError("norm(): the nuclear norm of a %dD input needs dim, a "
                                       "pair of dims" % (<Variable>x)._data.ndim)
                dim = (0, 1)
            if not isinstance(dim, (tuple, list)) or len(dim) != 2:
                raise RuntimeError("norm(): the nuclear norm takes a pair of dims, got %r"
                                   % (dim,))
            return _matrix_norm(x, "nuc", dim, bool(keepdim), dtype)
        if p != "fro":
            raise RuntimeError("norm(): p=%r is not supported (a number, 'fro' or 'nuc')"
                               % p)
        if isinstance(dim, (tuple, list)) and len(dim) > 2:
            raise RuntimeError("norm(): the Frobenius norm takes at most 2 dims, got %r"
                               % (dim,))
        p = 2
    return _vector_norm(input, p, dim, keepdim, dtype, "norm")


# -- cumulative sum and product ------------------------------------------------------

cdef tuple _cum_args(Variable x, object dim, object dtype, str what):
    cdef Py_ssize_t d = _normalize_dim(dim, x._data.ndim, what)
    if dtype is not None and x._data.ndim and x._data.size and \
            numpy.dtype(dtype) == _BOOL_DTYPE:
        # torch has no bool kernel for cumsum/cumprod (a 0-d or empty input is only
        # converted)
        raise NotImplementedError("%s(): \"%s_out_cpu\" not implemented for 'Bool'"
                                  % (what, what))
    if dtype is None and x._data.dtype.kind in "biu":
        dtype = numpy.int64                  # torch: integer scans are int64
    return d, dtype


cdef object _rev_cumsum_data(object g, Py_ssize_t d):
    xp = _xp_of(g)
    return xp.flip(xp.cumsum(xp.flip(g, d), axis=d), d)


cdef class CumsumBackward(Node):
    cdef Py_ssize_t dim

    cdef tuple _backward(self, tuple grads):
        return (_rev_cumsum(grads[0], self.dim),)


cdef class RevCumsumBackward(Node):
    # Adjoint of cumsum (a cumsum from the end): its backward is cumsum.
    cdef Py_ssize_t dim

    cdef tuple _backward(self, tuple grads):
        return (cumsum(grads[0], self.dim),)


cdef Variable _rev_cumsum(Variable g, Py_ssize_t d):
    if g._data.ndim == 0:
        return g
    data = _rev_cumsum_data(g._data, d)
    cdef RevCumsumBackward node
    if _records(g):
        node = RevCumsumBackward.__new__(RevCumsumBackward)
        node.dim = d
        return _recorded(node, data, (_edge(g),))
    return _plain(data, g._volatile)


@profiled_op
cpdef Variable cumsum(object input, object dim, object dtype=None, object out=None):
    """Cumulative sum along ``dim``.

    >>> cumsum(Variable(numpy.array([[1., 2., 3.], [4., 5., 6.]])), dim=1)
    tensor([[ 1.,  3.,  6.],
            [ 4.,  9., 15.]], dtype=float64)
    """
    if out is not None: return _write_out("cumsum", out, cumsum(input, dim,
                                          _dtype_or_out(dtype, out, "cumsum")))
    cdef Variable x = _as_variable(input, "cumsum")
    d, dtype = _cum_args(x, dim, dtype, "cumsum")
    if dtype is not None and _is_float_dtype(x._data.dtype):
        x, dtype = _converted_for_dtype(x, dtype, "cumsum")
    if x._data.ndim == 0:
        data = x._data.astype(dtype if dtype is not None else x._data.dtype, copy=True)
    else:
        data = _xp_of(x._data).cumsum(x._data, axis=d, dtype=dtype)
    cdef CumsumBackward node
    if _records(x) and _is_float_dtype(data.dtype):
        node = CumsumBackward.__new__(CumsumBackward)
        node.dim = d
        return _recorded(node, data, (_edge(x),))
    return _plain(data, x._volatile)


cdef class LogcumsumexpBackward(Node):
    # torch's formula (from TensorFlow's): the gradient's positive and negative parts in
    # log space, each summed from the end by a logcumsumexp of the flipped input, so
    # nothing overflows: exp(revlcse(log g+ - y) + x) - exp(revlcse(log g- - y) + x).
    # Written with pyad ops, so it is differentiable again.
    cdef SavedVariable input
    cdef SavedVariable result
    cdef Py_ssize_t dim

    cdef tuple _backward(self, tuple grads):
        cdef Variable g = grads[0]
        if g._data.ndim == 0 or g._data.size == 0:
            return (g,)
        x = self.input.unpack(self)
        y = self.result.unpack(self)
        d = self.dim
        if g._requires_grad and (type(g._data) is not _NDARRAY or
                                 bool((g._data == 0).any())):
            # Recorded for a higher derivative, and the log-space formula below is not
            # differentiable in g where g is 0 (log 0; the sign masks are both off):
            # forward mode's tangent pass sends exactly zeros through here. The same
            # sums as a recurrence linear in g. (On a GPU always, so that no backward
            # waits for the device to answer the test.)
            return (_logcumsumexp_grad_linear(g, x, y, d),)
        if _dtype_kind(g._data) == b'c':
            # torch's complex rule (no sign split): conj(exp(revlcse(log(conj g) - y) + x)),
            # its subtraction a - alpha * y with the complex alpha 1 (so an infinite y
            # gives a nan imaginary part there, as torch's)
            with numpy.errstate(divide="ignore", over="ignore", invalid="ignore"):
                shifted = sub(log(conj(g)), mul(y, complex(1.0, 0.0)))
                rev = flip(logcumsumexp(flip(shifted, [d]), d), [d])
                return (conj(exp(add(rev, x))),)
        lowest = float(numpy.finfo(g._data.dtype).min)
        parts = []
        # log 0 = -inf where g is 0; lowest - y may overflow to -inf: both mean "nothing"
        with numpy.errstate(divide="ignore", over="ignore", invalid="ignore"):
            log_abs = log(abs(g))
            for positive in (True, False):
                mask = (g._data > 0) if positive else (g._data < 0)
                log_part = where(mask, log_abs, lowest)
                rev = flip(logcumsumexp(flip(sub(log_part, y), [d]), d), [d])
                parts.append(exp(add(rev, x)))
        return (sub(parts[0], parts[1]),)

    cdef void _release_saved(self) noexcept:
        self._released = True
        if self.input is not None:
            self.input.release()
        if self.result is not None:
            self.result.release()


cdef Variable _logcumsumexp_grad_linear(Variable g, Variable x, Variable y, Py_ssize_t d):
    # dL/dx_i = sum_{j >= i} g_j exp(x_i - y_j) (conjugated factors for complex input),
    # as exp(x_i - y_i) * S_i with S_i = g_i + exp(y_i - y_{i+1}) * S_{i+1}: every factor
    # is at most 1 in magnitude for real input (y only grows along d, y_i >= x_i), so
    # nothing overflows, and each step is linear in g. A prefix that is all -inf has no
    # weight (0, as torch's jvp masks it) instead of exp(-inf - -inf) = nan; a slice
    # that is -inf to its end gives nan, as torch's jvp (it shifts by the slice's max).
    cdef Py_ssize_t n = g._data.shape[d]
    cdef Variable tail
    cplx = _dtype_kind(g._data) == b'c'
    xp = _xp_of(y._data)
    with numpy.errstate(invalid="ignore", over="ignore"):
        scale = where_const(xp.asarray(y._data == -numpy.inf), 0, exp(sub(x, y)))
        dead = xp.broadcast_to(xp.take(y._data, [n - 1], axis=d) == -numpy.inf,
                               y._data.shape)
        scale = where_const(dead, numpy.nan, scale)        # (nan times g: a nan tangent)
        tail = narrow(y, d, 1, n - 1)
        decay = where_const(xp.asarray(tail._data == -numpy.inf), 0,
                            exp(sub(narrow(y, d, 0, n - 1), tail)))
    if cplx:
        scale = conj(scale)
        decay = conj(decay)
    sums = [None] * n
    acc = select(g, d, n - 1)
    sums[n - 1] = acc
    for i in range(n - 2, -1, -1):
        acc = add(select(g, d, i), mul(select(decay, d, i), acc))
        sums[i] = acc
    return mul(scale, stack(sums, d))


cdef object _logcumsumexp_data(object d, Py_ssize_t dim):
    if type(d) is _NDARRAY:
        with numpy.errstate(invalid="ignore"):
            return numpy.logaddexp.accumulate(d, axis=dim)
    # CuPy: shift by the maximum along dim (0 where it is not finite), then a cumsum
    xp = _xp_of(d)
    m = d.max(axis=dim, keepdims=True)
    m = xp.where(xp.isfinite(m), m, xp.zeros((), dtype=d.dtype))
    return xp.log(xp.cumsum(xp.exp(d - m), axis=dim)) + m


cdef object _complex_logcumsumexp_data(object a, Py_ssize_t d):
    # torch's complex scan: a running log-add-exp from -inf+0j, one step per element
    # along d (each step the complex logaddexp of elementwise.pxi)
    xp = _xp_of(a)
    src = xp.moveaxis(a, d, 0)
    out = xp.empty(src.shape, dtype=a.dtype)
    acc = xp.full(src.shape[1:], complex(-numpy.inf, 0.0), dtype=a.dtype)
    for i in range(src.shape[0]):
        acc = _complex_logaddexp(acc, src[i], a.dtype, xp).reshape(src.shape[1:])
        out[i] = acc
    return xp.ascontiguousarray(xp.moveaxis(out, 0, d))


@profiled_op
cpdef Variable logcumsumexp(object input, object dim, object out=None):
    """``log(cumsum(exp(input), dim))``, computed without overflow (NumPy's
    ``logaddexp.accumulate``; complex input: torch's complex log-add-exp scan), with
    torch's stable gradient. Integer and bool input have no kernel (NotImplementedError,
    as torch).

    >>> logcumsumexp(Variable(numpy.array([0., 1000., 0.])), 0)
    tensor([   0., 1000., 1000.], dtype=float64)
    """
    if out is not None: return _write_out("logcumsumexp", out, logcumsumexp(input, dim),
                                          _OUT_EXACT)
    cdef Variable x = _as_variable(input, "logcumsumexp")
    cdef Py_ssize_t d = _normalize_dim(dim, x._data.ndim, "logcumsumexp")
    cdef char kind = _dtype_kind(x._data)
    if kind != b'f' and kind != b'c' and not _is_float_dtype(x._data.dtype):
        raise NotImplementedError("logcumsumexp(): \"logcumsumexp_out_cpu\" not implemented "
                                  "for '%s'" % _torch_dtype_name(x._data.dtype))
    if x._data.ndim == 0:
        data = x._data.copy()
    elif kind == b'c':
        data = _complex_logcumsumexp_data(x._data, d)
    elif _is_reduced_float(x._data):
        data = _logcumsumexp_data(x._data.astype(numpy.float32), d).astype(x._data.dtype)
    else:
        data = _logcumsumexp_data(x._data, d)
    cdef LogcumsumexpBackward node
    cdef Variable value
    if _records(x):
        node = LogcumsumexpBackward.__new__(LogcumsumexpBackward)
        node.dim = d
        value = _recorded(node, data, (_edge(x),))
        node.input = _save(x, False, 0)
        node.result = _save(value, True)
        return value
    return _plain(data, x._volatile)


def _cumprod_grad_with_zeros(x, y, g, is_zero, Py_ssize_t d):
    # torch's O(n) rule for a first-order gradient when x holds zeros (its cumprod_backward
    # outside grad mode): with z1 the first zero of a slice along d and z2 the second
    # (or the end), k < z1 gets rev_cumsum(g y over [0, z1)) / x_k; k = z1 gets
    # prod(x[:z1]) * sum_{z1 <= j < z2} g_j prod(x[z1+1 : j+1]); k > z1 gets 0. Terms past
    # z1 are left out as zero even where an inf or a NaN follows (as torch does).
    zeros_seen = numpy.cumsum(is_zero, axis=d)
    before = zeros_seen == 0
    first_run = zeros_seen == 1
    first_zero = first_run & is_zero
    between = first_run & ~first_zero
    with numpy.errstate(divide="ignore", invalid="ignore", over="ignore"):
        head = _rev_cumsum_data(numpy.where(before, y * g, 0), d) / x
        run = numpy.cumprod(numpy.where(between, x, 1), axis=d) * numpy.where(first_run, g, 0)
        at_zero = run.sum(axis=d, keepdims=True)
        z1 = numpy.expand_dims(numpy.argmax(first_run, axis=d), d)
        prefix = numpy.take_along_axis(y, numpy.maximum(z1 - 1, 0), axis=d)
        prefix = numpy.where(z1 == 0, 1, prefix)
        at_zero = at_zero * prefix
    return numpy.where(first_zero, at_zero, numpy.where(before, head, 0)).astype(
        head.dtype, copy=False)


cdef class CumprodBackward(Node):
    # No zero: rev_cumsum(g * out) / x. With zeros, a first-order backward on the host
    # takes torch's O(n) rule (_cumprod_grad_with_zeros); otherwise (create_graph, or on a
    # GPU, where asking for zeros would sync) exactly and differentiably:
    # dL/dx_k = sum_{i >= k} g_i prod_{j <= i, j != k} x_j, through the product of the
    # others of the rows M[i, j] = x_j (j <= i), 1 (j > i).
    cdef SavedVariable input
    cdef SavedVariable result
    cdef Py_ssize_t dim

    cdef tuple _backward(self, tuple grads):
        cdef Variable x = self.input.unpack(self)
        cdef Variable g = grads[0]
        if x._data.ndim == 0:
            return (g,)
        cdef Py_ssize_t d = self.dim
        shape = x._data.shape
        n = shape[d]
        if n == 1:
            return (g,)                                     # torch: the gradient as is
        if _xp_of(x._data) is numpy:                        # (asking is a GPU sync)
            is_zero = x._data == 0
            if not bool(is_zero.any()):
                out = self.result.unpack(self)
                return (div(_rev_cumsum(mul(g, out), d), x),)
            if not _grad_enabled() and type(g._data) is _NDARRAY:
                return (_plain(_cumprod_grad_with_zeros(
                    x._data, self.result.data(self), g._data, is_zero, d), False),)
        xp = _xp_of(x._data)
        big = shape[:d] + (n,) + shape[d:]            # axis d: i, axis d + 1: j
        xe = broadcast_to(_reshape(x, shape[:d] + (1,) + shape[d:], False), big)
        later = xp.triu(xp.ones((n, n), dtype=bool), 1).reshape(
            (1,) * d + (n, n) + (1,) * (len(shape) - d - 1))          # j > i
        q = where_const(later, 0, _prod_others(where_const(later, 1, xe), d + 1))
        ge = _reshape(g, shape[:d + 1] + (1,) + shape[d + 1:], False)
        return (sum(mul(ge, q), d),)

    cdef void _release_saved(self) noexcept:
        self._released = True
        self.input.release()
        self.result.release()


cdef object _complex_cumprod_data(object a, Py_ssize_t d):
    # torch's complex scan: a running product from 1+0j, so 1 * (-inf+0j) gives
    # -inf+nanj at the first element (the naive complex multiply). Only for an input
    # with a non-finite element: elsewhere NumPy's cumprod gives the same values.
    src = numpy.moveaxis(a, d, 0)
    out = numpy.empty(src.shape, dtype=a.dtype)
    acc = numpy.ones(src.shape[1:], dtype=a.dtype)
    with numpy.errstate(invalid="ignore", over="ignore"):
        for i in range(src.shape[0]):
            acc = acc * src[i]
            out[i] = acc
    return numpy.ascontiguousarray(numpy.moveaxis(out, 0, d))


@profiled_op
cpdef Variable cumprod(object input, object dim, object dtype=None, object out=None):
    """Cumulative product along ``dim`` (exact gradients with zeros).

    >>> x = Variable(numpy.array([2., 0., 3.]), requires_grad=True)
    >>> cumprod(x, 0).sum().backward()
    >>> x.grad
    tensor([1., 8., 0.], dtype=float64)
    """
    if out is not None: return _write_out("cumprod", out, cumprod(input, dim,
                                          _dtype_or_out(dtype, out, "cumprod")))
    cdef Variable x = _as_variable(input, "cumprod")
    d, dtype = _cum_args(x, dim, dtype, "cumprod")
    if dtype is not None and _is_float_dtype(x._data.dtype):
        x, dtype = _converted_for_dtype(x, dtype, "cumprod")
    if x._data.ndim == 0:
        data = x._data.astype(dtype if dtype is not None else x._data.dtype, copy=True)
    elif dtype is None and _dtype_kind(x._data) == b'c' and type(x._data) is _NDARRAY and \
            not numpy.isfinite(x._data).all():
        data = _complex_cumprod_data(x._data, d)
    else:
        data = _xp_of(x._data).cumprod(x._data, axis=d, dtype=dtype)
    cdef CumprodBackward node
    cdef Variable value
    if _records(x) and _is_float_dtype(data.dtype):
        node = CumprodBackward.__new__(CumprodBackward)
        node.dim = d
        value = _recorded(node, data, (_edge(x),))
        node.input = _save(x, False, 0)
        node.result = _save(value, True)
        return value
    return _plain(data, x._volatile)


# -- sorting and selection ---------------------------------------------------------
#
# Values selected by index (sort, topk, kthvalue, median along a dim) are a take along
# the dim: _take_along and its nodes are in shape.pxi.

sort_result = namedtuple("sort", ["values", "indices"])
sort_result.__module__ = "pyad"
topk_result = namedtuple("topk", ["values", "indices"])
topk_result.__module__ = "pyad"
kthvalue_result = namedtuple("kthvalue", ["values", "indices"])
kthvalue_result.__module__ = "pyad"
median_result = namedtuple("median", ["values", "indices"])
median_result.__module__ = "pyad"


cdef object _sort_indices(object data, Py_ssize_t d, bint descending):
    # Stable; descending keeps equal elements in their original order (torch's
    # stable=True). NaN sorts as the largest value, as in torch.
    xp = _xp_of(data)
    if data.ndim == 0:
        return xp.zeros((), dtype=numpy.int64)
    if not descending:
        return xp.argsort(data, axis=d, kind="stable").astype(numpy.int64, copy=False)
    n = data.shape[d]
    rev = xp.argsort(xp.flip(data, d), axis=d, kind="stable")
    return (n - 1 - xp.flip(rev, d)).astype(numpy.int64, copy=False)


cdef tuple _select(Variable x, object index, Py_ssize_t d, bint keepdim):
    # (values, indices) at ``index`` (keepdim form) along d.
    values = _take_along(x, index, d)
    if not keepdim and x._data.ndim:
        shape = index.shape[:d] + index.shape[d + 1:]
        values = _reshape(values, shape, False)
        index = index.reshape(shape)
    return values, _plain(index, x._volatile)


@profiled_op
def sort(input, dim=-1, descending=False, stable=False, *, out=None):
    """``(values, indices)`` sorted along ``dim`` (stable: equal elements keep their
    order). The values' gradient goes back to the positions they came from.

    >>> sort(Variable(numpy.array([3., 1., 2.]))).indices
    tensor([1, 2, 0])
    """
    if out is not None: return _write_out("sort", out, sort(input, dim, descending, stable),
                                          _OUT_EXACT)
    cdef Variable x = _as_variable(input, "sort")
    cdef Py_ssize_t d = _normalize_dim(dim, x._data.ndim, "sort")
    _refuse_complex(x, None, "sort")      # (after the dim check, as torch)
    index = _sort_indices(x._data, d, bool(descending))
    values, indices = _select(x, index, d, True)
    _retype_node(values, x, TakeAlongBackward, SortBackward)
    return sort_result(values, indices)


@profiled_op
def argsort(input, dim=-1, descending=False, stable=False):
    """Indices that sort ``input`` along ``dim`` (stable), int64.

    >>> argsort(Variable(numpy.array([3., 1., 2.])), descending=True)
    tensor([0, 2, 1])
    """
    cdef Variable x = _as_variable(input, "argsort")
    cdef Py_ssize_t d = _normalize_dim(dim, x._data.ndim, "argsort")
    _refuse_complex(x, None, "argsort")      # (after the dim check, as torch)
    return _plain(_sort_indices(x._data, d, bool(descending)), x._volatile)


@profiled_op
def topk(input, k, dim=-1, largest=True, sorted=True, *, out=None):
    """The ``k`` largest (or smallest) elements along ``dim`` as ``(values, indices)``.

    >>> topk(Variable(numpy.array([1., 5., 3., 4.])), 2).values
    tensor([5., 4.], dtype=float64)
    """
    if out is not None: return _write_out("topk", out, topk(input, k, dim, largest, sorted),
                                          _OUT_EXACT)
    cdef Variable x = _as_variable(input, "topk")
    cdef Py_ssize_t d = _normalize_dim(dim, x._data.ndim, "topk")
    _refuse_complex(x, None, "topk")      # (after the dim check, as torch)
    if _dtype_kind(x._data) == b'b':
        raise RuntimeError("topk(): does not support bool input")
    cdef Py_ssize_t n = x._data.shape[d] if x._data.ndim else 1
    k = _index_arg(k, "topk", "k")
    if k < 0 or k > n:
        raise RuntimeError("topk(): selected index k out of range (k=%d, the size of dim %d "
                         "is %d)" % (k, d, n))
    index = _sort_indices(x._data, d, bool(largest))
    if x._data.ndim:
        key = [slice(None)] * x._data.ndim
        key[d] = slice(0, k)
        index = index[tuple(key)]
    values, indices = _select(x, index, d, True)
    _retype_node(values, x, TakeAlongBackward, TopkBackward)
    return topk_result(values, indices)


cdef Py_ssize_t _index_arg(object k, str what, str name) except? -1:
    if isinstance(k, (bool, numpy.bool_)) or not hasattr(k, "__index__"):
        raise TypeError("%s(): %s must be an int, got %s" % (what, name, type(k).__name__))
    return k.__index__()


@profiled_op
def kthvalue(input, k, dim=-1, keepdim=False, *, out=None):
    """The ``k``-th smallest element (``k`` from 1) along ``dim`` as ``(values, indices)``.

    >>> kthvalue(Variable(numpy.array([3., 1., 2.])), 2)
    kthvalue(values=tensor(2., dtype=float64), indices=tensor(2))
    """
    if out is not None: return _write_out_apart("kthvalue", out, kthvalue(
                                          input, k, dim, keepdim), (input,))
    cdef Variable x = _as_variable(input, "kthvalue")
    cdef Py_ssize_t d = _normalize_dim(dim, x._data.ndim, "kthvalue")
    cdef Py_ssize_t n = x._data.shape[d] if x._data.ndim else 1
    k = _index_arg(k, "kthvalue", "k")
    # torch's order: the dim, an empty reduced dim, the dtype (a 0-d bool is fine), k
    _check_reduced_sizes(x._data, (d,) if x._data.ndim else (), "kthvalue")
    _refuse_complex(x, None, "kthvalue")
    if _dtype_kind(x._data) == b'b' and x._data.ndim:
        raise NotImplementedError("kthvalue(): does not support bool input")
    if k < 1 or k > n:
        raise RuntimeError("kthvalue(): selected number k out of range for dimension %d "
                         "(k=%d, size %d)" % (d, k, n))
    return kthvalue_result(*_select(x, _kth_index(x._data, d, k - 1), d, bool(keepdim)))


cdef object _kth_index(object data, Py_ssize_t d, Py_ssize_t i):
    # The index (keepdim form) of the i-th smallest element along d. Where that value
    # is tied (or is a NaN among several), the index torch's CPU quickselect picks.
    index = _sort_indices(data, d, False)
    if data.ndim == 0:
        return index
    key = [slice(None)] * data.ndim
    key[d] = slice(i, i + 1)
    index = index[tuple(key)]
    xp = _xp_of(data)
    if xp is not numpy or data.shape[d] < 2:
        return index
    value = xp.take_along_axis(data, index, axis=d)
    same = data == value
    if _is_float_dtype(data.dtype):
        same |= xp.isnan(data) & xp.isnan(value)
    tied = _sum_data(same, (d,), True, numpy.int64) > 1
    if not tied.any():
        return index
    moved = numpy.moveaxis(index, d, -1)
    rows = numpy.moveaxis(data, d, -1).reshape(-1, data.shape[d])
    out = moved.reshape(-1).copy()
    for r in numpy.flatnonzero(numpy.moveaxis(tied, d, -1)):
        out[r] = _torch_quickselect(rows[r].tolist(), i)
    return numpy.moveaxis(out.reshape(moved.shape), -1, d)


cdef inline bint _gt_or_nan(object a, object b):
    return (a != a and b == b) or a > b


cdef Py_ssize_t _torch_quickselect(list arr, Py_ssize_t k) except -1:
    # torch's quick_select_template (aten/src/ATen/native/SortingUtils.h), which its CPU
    # kthvalue runs on each slice (NaN above everything): the original position of the
    # element that ends at k. Only the tie-breaking depends on following it exactly.
    cdef Py_ssize_t n = len(arr)
    cdef list idx = list(range(n))
    cdef Py_ssize_t L = 0, R = n - 1, P, i, j
    while True:
        if R <= L:
            break
        if R == L + 1:
            if _gt_or_nan(arr[L], arr[R]):
                arr[L], arr[R] = arr[R], arr[L]
                idx[L], idx[R] = idx[R], idx[L]
            break
        P = L + (R - L) // 2
        arr[P], arr[L + 1] = arr[L + 1], arr[P]
        idx[P], idx[L + 1] = idx[L + 1], idx[P]
        if _gt_or_nan(arr[L + 1], arr[R]):
            arr[L + 1], arr[R] = arr[R], arr[L + 1]
            idx[L + 1], idx[R] = idx[R], idx[L + 1]
        if _gt_or_nan(arr[L], arr[R]):
            arr[L], arr[R] = arr[R], arr[L]
            idx[L], idx[R] = idx[R], idx[L]
        if _gt_or_nan(arr[L + 1], arr[L]):
            arr[L + 1], arr[L] = arr[L], arr[L + 1]
            idx[L + 1], idx[L] = idx[L], idx[L + 1]
        i = L + 1
        j = R
        piv = arr[L]
        while True:
            i += 1
            while i < n and _gt_or_nan(piv, arr[i]):
                i += 1
            j -= 1
            while j > 0 and _gt_or_nan(arr[j], piv):
                j -= 1
            if j < i:
                break
            arr[i], arr[j] = arr[j], arr[i]
            idx[i], idx[j] = idx[j], idx[i]
        arr[L], arr[j] = arr[j], arr[L]
        idx[L], idx[j] = idx[j], idx[L]
        if j <= k:
            L = i
        if j >= k:
            R = j - 1
    return idx[k]


cdef class MedianBackward(MaxBackward):
    pass


cdef void _refuse_none_dim(object dim, str what) except *:
    # torch's dim of median / nanmedian / prod is an int (or omitted)
    if dim is None or isinstance(dim, (tuple, list)):
        raise TypeError("%s(): argument 'dim' must be int, not %s"
                        % (what, type(dim).__name__))


cdef void _refuse_median_dtype(Variable x, str what) except *:
    # torch has no bool or complex median kernel
    cdef char k = _dtype_kind(x._data)
    if k == b'b' or k == b'c':
        raise NotImplementedError("%s(): does not support %s input"
                                  % (what, "bool" if k == b'b' else "complex"))


cdef object _empty_median(Variable x, str what):
    # The median of no elements: torch fills NaN converted to the dtype (NaN, nan+0j;
    # the integer conversion of NaN: 0, or the lowest int32 / int64; True for bool).
    # A complex one has no gradient formula (RuntimeError with autograd).
    if _dtype_kind(x._data) == b'c' and _records(x):
        raise RuntimeError("%s(): does not support automatic differentiation for outputs "
                           "with complex dtype." % what)
    with numpy.errstate(invalid="ignore"):
        return _xp_of(x._data).asarray(numpy.nan).astype(x._data.dtype)


cdef object _median_index(object data, Py_ssize_t d):
    # The lower median's index (keepdim form) along d; a slice with NaN gives its first
    # NaN (torch: the median is NaN then).
    if data.ndim == 0:
        return _sort_indices(data, d, False)
    xp = _xp_of(data)
    n = data.shape[d]
    order = _sort_indices(data, d, False)
    if _is_float_dtype(data.dtype):
        n_real = _sum_data(~xp.isnan(data), (d,), True, numpy.int64)
        pos = xp.where(n_real < n, n_real, (n - 1) // 2)
    else:
        shape = list(data.shape)
        shape[d] = 1
        pos = xp.full(tuple(shape), (n - 1) // 2, dtype=numpy.int64)
    return xp.take_along_axis(order, pos, axis=d)


@profiled_op
def median(input, dim=_ALL, keepdim=False, *, out=None):
    """The lower median of all elements (ties share the gradient evenly), or
    ``(values, indices)`` along the int ``dim`` (``dim=None`` is refused, as torch).
    Bool and complex input have no kernel (NotImplementedError), except the median of
    no elements: NaN converted to the dtype, as torch.

    >>> median(Variable(numpy.array([4., 1., 3., 2.])))
    tensor(2., dtype=float64)
    """
    if out is not None: return _write_out("median", out, median(input, dim, keepdim),
                                          _OUT_EXACT)
    cdef Variable x = _as_variable(input, "median")
    cdef Py_ssize_t d, n
    cdef MaxBackward node
    _refuse_none_dim(dim, "median")
    if dim is _ALL and keepdim:
        raise TypeError('median(): missing 1 required positional argument: "dim" (keepdim '
                        'needs a dim)')
    if dim is _ALL:
        flat = x._data.reshape(-1)
        n = flat.shape[0]
        if n == 0:
            data = _empty_median(x, "median")
        else:
            _refuse_median_dtype(x, "median")
            data = flat[_median_index(flat, 0)[0]]
        dims = tuple(range(x._data.ndim))
        if _records(x):
            node = MedianBackward.__new__(MedianBackward)
            node.mask = _even_mask(x._data, data, dims, True)
            node.input_shape = x._data.shape
            node.dims = dims
            node.keepdim = False
            return _recorded(node, data, (_edge(x),))
        return _plain(data, x._volatile)
    d = _normalize_dim(dim, x._data.ndim, "median")
    n = x._data.shape[d] if x._data.ndim else 1
    if n == 0:
        raise IndexError("median(): Expected reduction dim %d to have non-zero size." % d)
    _refuse_median_dtype(x, "median")
    return median_result(*_select(x, _median_index(x._data, d), d, bool(keepdim)))


nanmedian_result = namedtuple("nanmedian", ["values", "indices"])
nanmedian_result.__module__ = "pyad"


cdef object _nanmedian_index(object data, Py_ssize_t d):
    # The lower median's index (keepdim form) along d among the non-NaN elements; a
    # slice of NaN only gives its first element (torch's index there is whatever its
    # selection algorithm leaves: 0 for up to 3 elements, 2 for 4 or 5, 3 for 6, ...)
    if data.ndim == 0:
        return _sort_indices(data, d, False)
    xp = _xp_of(data)
    order = _sort_indices(data, d, False)          # NaN sort last
    if _is_float_dtype(data.dtype):
        n_real = _sum_data(~xp.isnan(data), (d,), True, numpy.int64)
        pos = xp.where(n_real > 0, (n_real - 1) // 2, 0)
        first_nan = xp.argmax(xp.isnan(data), axis=d)
        shape = list(data.shape)
        shape[d] = 1
        first_nan = first_nan.reshape(tuple(shape))
        index = xp.take_along_axis(order, pos, axis=d)
        return xp.where(n_real > 0, index, first_nan)
    shape = list(data.shape)
    shape[d] = 1
    pos = xp.full(tuple(shape), (data.shape[d] - 1) // 2, dtype=numpy.int64)
    return xp.take_along_axis(order, pos, axis=d)


@profiled_op
def nanmedian(input, dim=_ALL, keepdim=False, *, out=None):
    """``median`` ignoring NaN: the lower median of the elements that are not NaN (NaN
    when all are), or ``(values, indices)`` along ``dim``. The gradient, as median's,
    goes to the chosen element (shared evenly by ties when ``dim`` is None).

    >>> nanmedian(Variable(numpy.array([4., numpy.nan, 1., 3.])))
    tensor(3., dtype=float64)
    """
    if out is not None: return _write_out("nanmedian", out, nanmedian(input, dim, keepdim),
                                          _OUT_EXACT)
    cdef Variable x = _as_variable(input, "nanmedian")
    cdef Py_ssize_t d, n
    cdef MaxBackward node
    _refuse_none_dim(dim, "nanmedian")
    if dim is _ALL and keepdim:
        raise TypeError('nanmedian(): missing 1 required positional argument: "dim" (keepdim '
                        'needs a dim)')
    if dim is _ALL:
        flat = x._data.reshape(-1)
        n = flat.shape[0]
        if n == 0:
            data = _empty_median(x, "nanmedian")
        else:
            _refuse_median_dtype(x, "nanmedian")
            data = flat[_nanmedian_index(flat, 0)[0]]
        dims = tuple(range(x._data.ndim))
        if _records(x):
            node = MedianBackward.__new__(MedianBackward)
            node.mask = _even_mask(x._data, data, dims, True)
            node.input_shape = x._data.shape
            node.dims = dims
            node.keepdim = False
            return _recorded(node, data, (_edge(x),))
        return _plain(data, x._volatile)
    d = _normalize_dim(dim, x._data.ndim, "nanmedian")
    n = x._data.shape[d] if x._data.ndim else 1
    if n == 0:
        raise IndexError("nanmedian(): Expected reduction dim %d to have non-zero size." % d)
    _refuse_median_dtype(x, "nanmedian")
    return nanmedian_result(*_select(x, _nanmedian_index(x._data, d), d, bool(keepdim)))


cdef void _refuse_search_dtype(object boundaries, object values, str what) except *:
    # torch compares in the promoted dtype and has no kernel for bool or complex (no
    # values: it returns before choosing a kernel)
    if values.size == 0:
        return
    rt = _torch_result_dtype(boundaries, values)
    if rt is not None and rt.kind in "bc":
        _no_kernel(what, "searchsorted_out_cpu", rt)


@profiled_op
def searchsorted(sorted_sequence, input, *, out_int32=False, right=False, side=None,
                 sorter=None, out=None):
    """Indices where the elements of ``input`` would be inserted into the last dimension
    of ``sorted_sequence`` to keep it sorted (int64, or int32 with ``out_int32``; not
    differentiable). ``right=True`` or ``side="right"`` gives the last such index.
    ``sorter`` holds the indices that sort an unsorted sequence.

    >>> searchsorted(Variable(numpy.array([1., 3., 5.])), Variable(numpy.array([3., 6.])))
    tensor([1, 3])
    """
    if out is not None: return _write_out("searchsorted", out, searchsorted(sorted_sequence,
                                          input, out_int32=out_int32, right=right, side=side,
                                          sorter=sorter), _OUT_EXACT)
    cdef Variable seq = _as_variable(sorted_sequence, "searchsorted")
    values = _value_array(input, seq._data, "searchsorted", "input")
    _refuse_search_dtype(seq._data, values, "searchsorted")
    if side is not None:
        if side not in ("left", "right"):
            raise RuntimeError("searchsorted(): side can only be 'left' or 'right' but got %r"
                               % (side,))
        if right and side == "left":
            raise RuntimeError("searchsorted(): side and right can't be set to opposites, "
                               "got side of left while right was True")
        right = side == "right"
    xp = _xp_of(seq._data)
    boundaries = seq._data
    if sorter is not None:
        order = _value_array(sorter, boundaries, "searchsorted", "sorter")
        if order.dtype.kind not in "iu" or order.shape != boundaries.shape:
            raise RuntimeError("searchsorted(): sorter must be an integer Variable of the "
                               "boundaries' shape %s, got %s %s"
                               % (_shape_str(boundaries.shape), order.dtype,
                                  _shape_str(order.shape)))
        boundaries = xp.take_along_axis(boundaries, order, axis=-1)
    which = "right" if right else "left"
    if boundaries.ndim == 1:
        result = xp.searchsorted(boundaries, values, side=which)
    elif boundaries.ndim == 0 or values.ndim != boundaries.ndim or \
            tuple(values.shape)[:values.ndim - 1] != tuple(boundaries.shape)[:values.ndim - 1]:
        raise RuntimeError("searchsorted(): boundaries tensor should be 1 dimension or the "
                           "first N-1 dimensions of boundaries tensor and input value tensor "
                           "must match, but we got boundaries tensor %s and input value "
                           "tensor %s" % (list(boundaries.shape), list(values.shape)))
    else:
        rows = boundaries.reshape(-1, boundaries.shape[boundaries.ndim - 1])
        vals = values.reshape(-1, values.shape[values.ndim - 1])
        result = xp.empty(vals.shape, dtype=numpy.int64)
        for r in range(rows.shape[0]):
            result[r] = xp.searchsorted(rows[r], vals[r], side=which)
        result = result.reshape(values.shape)
    result = xp.asarray(result).astype(numpy.int32 if out_int32 else numpy.int64)
    return _plain(result, seq._volatile)


@profiled_op
def bucketize(input, boundaries, *, out_int32=False, right=False, out=None):
    """The index of the bucket of 1-D ``boundaries`` each element of ``input`` falls in:
    ``boundaries[i-1] < x <= boundaries[i]``, or ``boundaries[i-1] <= x < boundaries[i]``
    with ``right=True`` (int64, or int32 with ``out_int32``; not differentiable).

    >>> bucketize(Variable(numpy.array([1., 4., 9.])), Variable(numpy.array([2., 4., 6.])))
    tensor([0, 1, 3])
    """
    if out is not None: return _write_out("bucketize", out, bucketize(input, boundaries,
                                          out_int32=out_int32, right=right), _OUT_EXACT)
    cdef Variable b = _as_variable(boundaries, "bucketize")
    if b._data.ndim != 1:
        raise RuntimeError("bucketize(): boundaries tensor must be 1 dimension, but got "
                           "dim(%d)" % b._data.ndim)
    values = _value_array(input, b._data, "bucketize", "input")
    _refuse_search_dtype(b._data, values, "bucketize")
    result = _xp_of(b._data).searchsorted(b._data, values, side="right" if right else "left")
    result = _xp_of(b._data).asarray(result).astype(numpy.int32 if out_int32 else numpy.int64)
    return _plain(result, b._volatile or (isinstance(input, Variable) and
                                          (<Variable>input)._volatile))


cdef class LogsumexpBackward(Node):
    cdef SavedVariable input
    cdef SavedVariable result
    cdef tuple dims
    cdef bint keepdim

    cdef tuple _backward(self, tuple grads):
        # d/dx log(sum(exp(x))) = softmax(x) = exp(x - logsumexp(x)): g * exp(x - out)
        cdef bint rec = _grad_enabled()
        x = _sv(self.input, self, rec)
        out = _sv(self.result, self, rec)
        v = _gv(grads[0], rec)
        if not self.keepdim:
            kshape = _keepdim_shape(_operand_data(x, "logsumexp").shape, self.dims)
            out = _v_reshape(out, kshape)
            v = _v_reshape(v, kshape)
        t = _v_sub(x, out)
        t = _v_exp_in(t, t)
        return (_grad(_v_mul_in(t, v, t)),)

    cdef void _release_saved(self) noexcept:
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
    # complex: shift by the largest real part (torch)
    m = _max_data(d.real if _dtype_kind(d) == b'c' else d, dims, True)
    # With finite row maxima every sum of exp(d - m) is at least 1: one scalar test on
    # NumPy (their sum is finite) saves the elementwise fix-up on the common path.
    if xp is not numpy or not _all_finite(m):
        # A row of -inf would give -inf - -inf = nan; shift by 0 there instead.
        m = xp.where(xp.isfinite(m), m, 0)
        total = _sum_data(xp.exp(d - m), dims, True)
        if xp is numpy and bool((total == 0).any()):
            with numpy.errstate(divide="ignore"):   # log(0) = -inf is the right answer
                out = xp.log(total) + m
        else:
            out = xp.log(total) + m
    else:
        t = _scratch(_np_subtract(d, m))
        _np_exp(t, t)
        out = _scratch(_np_log(_sum_data(t, dims, True)))
        _np_add(out, m, out)
    if not keepdim:
        out = out.reshape(tuple(s for i, s in enumerate(d.shape) if i not in dims))
    return out


cdef inline bint _finite_double(double v):
    return v - v == 0.0             # false for inf and nan


@profiled_op
cpdef Variable logsumexp(object input, object dim, object keepdim=False, object out=None):
    """``log(sum(exp(input), dim))`` computed stably; ``dim`` (an int or a tuple) is
    required, as torch's (an empty tuple reduces every dim of an empty input, or of
    any input with ``keepdim=True``).

    >>> logsumexp(Variable(numpy.array([1000., 1000.])), dim=0)
    tensor(1000.6931, dtype=float64)
    """
    if out is not None: return _write_out("logsumexp", out, logsumexp(input, dim, keepdim))
    cdef Variable x = _as_variable(input, "logsumexp")
    if dim is None:
        raise TypeError("logsumexp(): argument 'dim' must be tuple of ints, not NoneType")
    if not _is_float_dtype(x._data.dtype):
        x = _plain(x._data.astype(_default_dtype), x._volatile)
    if (type(dim) is tuple or type(dim) is list) and len(dim) == 0 and x._data.ndim:
        # torch: an empty dim list reduces every dim, of an empty input or with
        # keepdim=True; any other input of 1 or more dims fails (its keepdim shift does
        # not fit the 0-d result)
        if x._data.size and not keepdim:
            raise RuntimeError("logsumexp(): output with shape [] doesn't match the "
                               "broadcast shape [%s]" % ", ".join(["1"] * x._data.ndim))
        dim = None
    dims = _normalize_dims(dim, x._data.ndim, "logsumexp")
    data = _logsumexp_data(x._data, dims, bool(keepdim))
    cdef LogsumexpBackward node
    cdef Variable value
    if _records(x):
        node = LogsumexpBackward.__new__(LogsumexpBackward)
        node.dims = dims
        node.keepdim = bool(keepdim)
        value = _recorded(node, data, (_edge(x),))
        node.input = _save(x, False, 0)
        node.result = _save(value, True)
        return value
    return _plain(data, x._volatile)


# -- cummax / cummin, aminmax, nansum / nanmean ------------------------------------------

cummax_result = namedtuple("cummax", ["values", "indices"])
cummin_result = namedtuple("cummin", ["values", "indices"])
aminmax_result = namedtuple("aminmax", ["min", "max"])


cdef object _cum_extremum(object input, object dim, bint is_max):
    # values = gather(input, dim, indices), so the gradient goes to the index chosen.
    # indices: the last position so far that set the running extremum (x[i] >= the
    # running max, or a nan), which is torch's choice at ties.
    cdef str what = "cummax" if is_max else "cummin"
    cdef Variable x = _as_variable(input, what)
    if x._data.size == 0 and x._data.ndim:
        # torch skips the dim's range check here (its type is still checked)
        _index_arg(dim, what, "dim")
        d = 0
    else:
        d = _normalize_dim(dim, builtins.max(x._data.ndim, 1), what)
    data = x._data
    xp = _xp_of(data)
    if data.ndim == 0:
        idx = xp.zeros((), dtype=numpy.int64)
    else:
        running = (xp.maximum if is_max else xp.minimum).accumulate(data, axis=d)
        hit = data == running
        if _is_float_dtype(data.dtype):
            hit |= xp.isnan(data)
        steps = xp.arange(data.shape[d], dtype=numpy.int64).reshape(
            tuple([-1 if i == d else 1 for i in range(data.ndim)]))
        idx = xp.maximum.accumulate(xp.where(hit, steps, 0), axis=d)
    values = gather(x, d, idx)
    return (cummax_result if is_max else cummin_result)(values, _plain(idx, x._volatile))


@profiled_op
def cummax(input, dim, *, out=None):
    """Running maximum along ``dim`` and the index where it was reached (the last one
    at ties, as torch); the gradient goes to that index.

    >>> cummax(Variable(numpy.array([1., 3., 2., 3.])), 0)
    cummax(values=tensor([1., 3., 3., 3.], dtype=float64), indices=tensor([0, 1, 1, 3]))
    """
    if out is not None: return _write_out("cummax", out, cummax(input, dim), _OUT_EXACT)
    _refuse_complex(input, None, "cummax")
    return _cum_extremum(input, dim, True)


@profiled_op
def cummin(input, dim, *, out=None):
    """Running minimum along ``dim`` and the index where it was reached (the last one
    at ties, as torch); the gradient goes to that index.

    >>> cummin(Variable(numpy.array([3., 1., 2., 1.])), 0).indices
    tensor([0, 1, 1, 3])
    """
    if out is not None: return _write_out("cummin", out, cummin(input, dim), _OUT_EXACT)
    _refuse_complex(input, None, "cummin")
    return _cum_extremum(input, dim, False)


@profiled_op
def aminmax(input, *, dim=None, keepdim=False, out=None):
    """``(amin, amax)`` over ``dim`` (all elements when None) as a named tuple; ties
    share the gradient evenly, as amin and amax.

    >>> aminmax(Variable(numpy.array([[1., 5.], [7., 2.]])), dim=1)
    aminmax(min=tensor([1., 2.], dtype=float64), max=tensor([5., 7.], dtype=float64))
    """
    if out is not None: return _write_out("aminmax", out, aminmax(input, dim=dim,
                                          keepdim=keepdim), _OUT_EXACT)
    cdef Variable x = _as_variable(input, "aminmax")
    if dim is not None and not isinstance(dim, int) and not hasattr(dim, "__index__"):
        raise TypeError("aminmax(): dim must be an int or None, got %s" % type(dim).__name__)
    try:
        return aminmax_result(amin(x, dim, keepdim), amax(x, dim, keepdim))
    except _OP_ERRORS as exc:
        raise _renamed(exc, "aminmax") from None


cdef class NanToZeroBackward(Node):
    # torch's nansum backward: g times the not-NaN mask, a product (an infinite g gives
    # nan at a NaN entry, a negative one -0.0), so written with mul (differentiable)
    cdef object kept          # x's dtype: 1 where x is not NaN, 0 where it is

    cdef tuple _backward(self, tuple grads):
        if self.kept is None:
            raise _freed_error(self)
        with numpy.errstate(invalid="ignore"):
            return (mul(grads[0], self.kept),)

    cdef void _release_saved(self) noexcept:
        self._released = True
        self.kept = None


cdef Variable _nan_to_zero(Variable x):
    # x with its NaN entries replaced by 0 (floating x), for nansum / nanmean
    xp = _xp_of(x._data)
    nan = xp.isnan(x._data)
    data = xp.where(nan, xp.zeros((), dtype=x._data.dtype), x._data)
    cdef NanToZeroBackward node
    if _records(x):
        node = NanToZeroBackward.__new__(NanToZeroBackward)
        node.kept = (~nan).astype(x._data.dtype)
        return _recorded(node, data, (_edge(x),))
    return _plain(data, x._volatile)


cdef void _refuse_complex_nan_dtype(Variable x, object dtype, str what) except *:
    # torch's nansum kernel has no complex type: a complex dtype= on a non-empty
    # floating input is refused (an integer input or an empty one is summed)
    if dtype is not None and x._data.size and _dtype_kind(x._data) == b'f' and \
            numpy.dtype(dtype).kind == 'c':
        raise NotImplementedError("%s(): \"nansum_cpu\" not implemented for '%s'"
                                  % (what, _torch_dtype_name(numpy.dtype(dtype))))


cdef object _nansum_dtype_for_out(object input, object dtype, object out):
    # torch's nansum kernel runs in out's dtype and has none for an integral or bool
    # one: a floating input is refused there (an integral input is summed as sum)
    d = _dtype_or_out(dtype, out, "nansum")
    if dtype is None and isinstance(input, Variable) and \
            _is_float_dtype((<Variable>input)._data.dtype) and not _is_floating_or_complex(d):
        raise NotImplementedError("nansum(): \"nansum_cpu\" not implemented for '%s'"
                                  % _torch_dtype_name(d))
    return d


@profiled_op
def nansum(input, dim=None, keepdim=False, *, dtype=None, out=None):
    """Sum treating nan as zero; nan entries get ``0 * g`` as their gradient (torch's
    product: NaN where ``g`` is infinite).

    >>> nansum(Variable(numpy.array([1., numpy.nan, 2.])))
    tensor(3., dtype=float64)
    """
    if out is not None: return _write_out("nansum", out, nansum(input, dim, keepdim,
                                          dtype=_nansum_dtype_for_out(input, dtype, out)))
    _refuse_complex(input, None, "nansum")
    cdef Variable x = _as_variable(input, "nansum")
    _refuse_complex_nan_dtype(x, dtype, "nansum")
    if _is_float_dtype(x._data.dtype):
        x = _nan_to_zero(x)
    try:
        return sum(x, dim, keepdim, None, None, dtype)
    except _OP_ERRORS as exc:
        raise _renamed(exc, "nansum") from None


@profiled_op
def nanmean(input, dim=None, keepdim=False, *, dtype=None, out=None):
    """Mean of the non-nan entries (nan where there are none, and a nan gradient there,
    as torch's ``nansum / count``); nan entries get ``0 * g`` as their gradient.

    >>> nanmean(Variable(numpy.array([1., numpy.nan, 2.])))
    tensor(1.5000, dtype=float64)
    """
    if out is not None: return _write_out("nanmean", out, nanmean(input, dim, keepdim,
                                          dtype=dtype))
    _refuse_complex(input, None, "nanmean")
    cdef Variable x = _as_variable(input, "nanmean")
    if not _is_float_dtype(x._data.dtype):
        raise RuntimeError("nanmean(): expected a floating point input, got %s"
                           % x._data.dtype)
    _refuse_integer_mean_dtype(dtype, "nanmean")
    _refuse_complex_nan_dtype(x, dtype, "nanmean")
    if dtype is not None:
        x = _convert(x, None, dtype, False)
    kept = logical_not(isnan(x))
    try:
        total = sum(_nan_to_zero(x), dim, keepdim)
        count = sum(kept, dim, keepdim, None, None, x._data.dtype)
    except _OP_ERRORS as exc:
        raise _renamed(exc, "nanmean") from None
    # torch's nansum / count: nan where nothing is kept, and there the gradient g / 0
    # times the NaN entries' 0 is nan (as torch's)
    with numpy.errstate(divide="ignore", invalid="ignore"):
        return div(total, count)


@profiled_op
def msort(input, *, out=None):
    """The values of ``input`` sorted along its first dimension (``sort(input, 0).values``).

    >>> msort(Variable(numpy.array([[3., 1.], [2., 4.]])))
    tensor([[2., 1.],
            [3., 4.]], dtype=float64)
    """
    if out is not None: return _write_out("msort", out, msort(input), _OUT_EXACT)
    try:
        return sort(_as_variable(input, "msort"), 0)[0]
    except _OP_ERRORS as exc:
        raise _renamed(exc, "msort") from None


REDUCTION_OPS = (sum, mean, max, _op_min, amax, amin, argmax, argmin, prod, _op_all, _op_any,
                 count_nonzero, var, std, var_mean, std_mean, norm, cumsum, cumprod, sort,
                 argsort, topk, kthvalue, median, logsumexp, cummax, cummin, aminmax,
                 nansum, nanmean, nanmedian, searchsorted, bucketize, logcumsumexp,
                 msort)
# The family's heading in docs/op-reference.md, and its ops that are pyad.<name>
# functions but not Variable methods (torch has searchsorted and bucketize as functions
# only).
REDUCTION_TITLE = "Reductions"
REDUCTION_FUNCTION_ONLY = ("searchsorted", "bucketize")


# min, all and any are public under those names, but are not module-level names in the
# source: Cython would then compile every min(...), all(...), any(...) in the engine to a
# call of the op instead of the Python builtin. They are bound at import instead, where
# compiled code does not see them.
for _op in (_op_min, _op_all, _op_any):
    _op.__name__ = _op.__qualname__ = _op.__name__[4:]
    globals()[_op.__name__] = _op
del _op
