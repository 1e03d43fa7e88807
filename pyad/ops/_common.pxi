# Shared machinery of the op families: operand handling, recording a node, the one
# broadcast reduction (sum_to / broadcast_to, adjoint to each other), conversions,
# comparisons and printing.

import builtins

# NumPy ufuncs, looked up once. They also dispatch CuPy arrays (through
# __array_ufunc__), so one code path serves both array modules.
cdef object _np_add = numpy.add
cdef object _np_subtract = numpy.subtract
cdef object _np_multiply = numpy.multiply
cdef object _np_true_divide = numpy.true_divide
cdef object _np_power = numpy.power
cdef object _np_negative = numpy.negative
cdef object _np_exp = numpy.exp
cdef object _np_log = numpy.log
cdef object _np_sqrt = numpy.sqrt
cdef object _np_tanh = numpy.tanh
cdef object _np_maximum = numpy.maximum
cdef object _np_ndarray = numpy.ndarray
cdef object _np_add_reduce = numpy.add.reduce
cdef object _np_maximum_reduce = numpy.maximum.reduce


cdef inline object _sum_data(object data, object axis, bint keepdims, object dtype=None):
    # ndarray.sum goes through a Python wrapper (numpy/_core/_methods.py); the ufunc
    # reduction it ends in is called directly. CuPy arrays use their own method.
    if type(data) is _NDARRAY:
        return _np_add_reduce(data, axis, dtype, None, keepdims)
    return data.sum(axis=axis, dtype=dtype, keepdims=keepdims)


cdef inline object _max_data(object data, object axis, bint keepdims):
    if type(data) is _NDARRAY:
        return _np_maximum_reduce(data, axis, None, None, keepdims)
    return data.max(axis=axis, keepdims=keepdims)


cdef inline object _ones_data(object like):
    # numpy.ones_like is Python code; empty + fill are C methods.
    xp = _xp_of(like)
    out = xp.empty(like.shape, dtype=like.dtype)
    out.fill(1)
    return out


cdef inline object _ensure_array(object data):
    # NumPy returns scalars for 0-d results; a Variable always holds an array.
    if type(data) is _NDARRAY:
        return data
    if isinstance(data, _NUMPY_SCALAR):
        return numpy.asarray(data)
    return data


cdef inline object _scratch(object data):
    # A fresh ufunc result that the fast backward paths reuse as ``out=``: a ufunc
    # returns a NumPy scalar, not an array, for 0-d inputs, and out= needs an array.
    if type(data) is _NDARRAY:
        return data
    return _ensure_array(data)


cdef inline Variable _plain(object data, bint is_volatile):
    # An output that records nothing.
    cdef Variable v = _wrap(_ensure_array(data))
    v._volatile = is_volatile
    return v


cdef inline Variable _recorded(Node node, object data, tuple edges):
    cdef Variable v
    _init_node(node, edges, 1)
    v = _wrap(_ensure_array(data))
    v._grad_fn = node
    v._requires_grad = True
    return v


cdef inline bint _requires_grad_now(Variable a) except -1:
    # A view's requires_grad follows its base (the base may have started requiring grad,
    # or been changed in place by an op that does, since the view was taken).
    if a._requires_grad:
        return True
    if a._view_fn is not None:
        _refresh_view(a)
        return a._requires_grad
    return False


cdef inline bint _records(Variable a) except -1:
    return _requires_grad_now(a) and _grad_enabled()


cdef Py_ssize_t _normalize_dim(object dim, Py_ssize_t ndim, str what) except? -1:
    cdef Py_ssize_t d
    try:
        d = dim
    except TypeError:
        raise TypeError("%s: dim must be an int, got %s" % (what, type(dim).__name__)) from None
    cdef Py_ssize_t n = ndim if ndim > 0 else 1
    if d < -n or d >= n:
        raise IndexError("%s: dimension out of range (expected to be in range of [%d, %d], "
                         "but got %d)" % (what, -n, n - 1, d))
    return d + n if d < 0 else d


cdef tuple _normalize_dims(object dim, Py_ssize_t ndim, str what):
    # None -> all dims; int or sequence -> sorted unique non-negative dims.
    if dim is None:
        return tuple(range(ndim))
    if isinstance(dim, (list, tuple)):
        dims = tuple(sorted({_normalize_dim(d, ndim, what) for d in dim}))
        if len(dims) != len(dim):
            raise RuntimeError("%s: dim %s appears multiple times in the list of dims"
                               % (what, dim))
        return dims
    if ndim == 0:
        _normalize_dim(dim, ndim, what)
        return ()
    return (_normalize_dim(dim, ndim, what),)


cdef object _operand_data(object x, str what):
    # The array (or Python scalar, which NumPy 2 treats as weakly typed) of an operand.
    if isinstance(x, Variable):
        return (<Variable>x)._data
    if isinstance(x, (int, float, bool)) or type(x) is _NDARRAY:
        return x
    if cupy is not None and isinstance(x, cupy.ndarray):
        return x
    if isinstance(x, complex):
        return x
    return _to_array(x, None, what)


cdef object _binary_operand_data(object x, str what, str argument):
    # _operand_data for the operands of binary ops: a Variable, an array or a number,
    # as torch takes them. Sequences and other libraries' tensors are refused (torch
    # refuses lists too); the fast cases cost what they cost in _operand_data.
    if isinstance(x, Variable):
        return (<Variable>x)._data
    if isinstance(x, (int, float, bool)) or type(x) is _NDARRAY:
        return x
    if cupy is not None and isinstance(x, cupy.ndarray):
        return x
    if isinstance(x, complex):
        return x
    if isinstance(x, (_NDARRAY, _NUMPY_SCALAR)):
        return _to_array(x, None, what)
    raise _operand_type_error(x, what, argument)


cdef object _operand_type_error(object x, str what, str argument):
    cdef type cls = type(x)
    if what == "pow" and argument == "other":
        argument = "exponent"
    name = cls.__qualname__ if cls.__module__ == "builtins" else \
        "%s.%s" % (cls.__module__, cls.__qualname__)
    if hasattr(x, "__dlpack__"):
        return TypeError(
            "%s(): argument '%s' is a %s; pyad does not convert other libraries' tensors "
            "implicitly: wrap it with pyad.from_dlpack(...) first (shares memory, no copy)"
            % (what, argument, name))
    return TypeError("%s(): argument '%s' must be a Variable, an array or a number, not %s"
                     % (what, argument, name))


cdef inline bint _operator_accepts(object x):
    # The operand types an operator (+, *, <, ...) hands to its op. For any other type
    # it returns NotImplemented, as torch's do: Python then tries the other operand and
    # raises "unsupported operand type(s)" (or compares identities for == and !=).
    # Another library's tensor goes on to the op, whose error points at from_dlpack.
    return (isinstance(x, (Variable, int, float, complex, _NDARRAY, _NUMPY_SCALAR))
            or (cupy is not None and isinstance(x, cupy.ndarray))
            or hasattr(x, "__dlpack__"))


cdef void _check_numeric_operands(object da, object db, str what) except *:
    # Cold path, after a ufunc refused its operands: name the op and the bad dtype.
    for d in (da, db):
        dtype = getattr(d, "dtype", None)
        if dtype is not None and dtype.kind not in "biufc":
            raise TypeError("%s(): operands must be numeric, got an array of dtype %s"
                            % (what, dtype))


cdef inline tuple _shape_of(object x):
    if isinstance(x, Variable):
        return (<Variable>x)._data.shape
    if isinstance(x, (int, float, bool, complex)):
        return ()
    return x.shape


cdef inline bint _operand_volatile(object x):
    return isinstance(x, Variable) and (<Variable>x)._volatile


cdef inline bint _operand_requires_grad(object x) except -1:
    return isinstance(x, Variable) and _requires_grad_now(<Variable>x)


cdef inline tuple _operand_edge(object x):
    if isinstance(x, Variable):
        return _edge(<Variable>x)
    return _NO_EDGE


cdef void _check_same_device(object da, object db, str what) except *:
    if cupy is None:
        return
    ca = isinstance(da, cupy.ndarray)
    cb = isinstance(db, cupy.ndarray)
    if (ca and type(db) is _NDARRAY) or (cb and type(da) is _NDARRAY):
        raise RuntimeError("%s: expected all operands to be on the same device, got cpu and "
                           "cuda" % what)
    if ca and cb and da.device.id != db.device.id:
        raise RuntimeError("%s: operands are on different GPUs (cuda:%d and cuda:%d)"
                           % (what, da.device.id, db.device.id))


cdef object _broadcast_error(str what, object a, object b):
    return RuntimeError("%s: the size of operand a %s does not match the size of operand b "
                        "%s (shapes cannot be broadcast together)"
                        % (what, _shape_str(_shape_of(a)), _shape_str(_shape_of(b))))


@cython.freelist(32)
cdef class _SavedOperand:
    # An operand a node needs in backward: a saved Variable or a constant. Python
    # numbers are kept after backward (torch saves nothing for them either); array
    # constants are freed like saved Variables.
    cdef SavedVariable saved
    cdef object constant
    cdef bint released

    cdef object get(self, Node owner):
        if self.saved is not None:
            return self.saved.unpack(owner)
        self._check(owner)
        return self.constant

    cdef object data(self, Node owner):
        if self.saved is not None:
            return self.saved.data(owner)
        self._check(owner)
        return self.constant

    cdef void _check(self, Node owner) except *:
        if self.released:
            raise _freed_error(owner)

    cdef void release(self):
        if self.saved is not None:
            self.saved.release()
        elif not isinstance(self.constant, (int, float, complex)):
            self.constant = None
            self.released = True


cdef _SavedOperand _save_operand(object x, Py_ssize_t input_nr):
    cdef _SavedOperand s = _SavedOperand.__new__(_SavedOperand)
    if isinstance(x, Variable):
        s.saved = _save(<Variable>x, False, input_nr)
    else:
        s.constant = x
    return s


# -- profiling ----------------------------------------------------------------------
#
# Every public op starts with `if _profiling: return _profiled(name, args)`: one C flag
# test when the profiler is off. When on, the op runs again through its Python entry
# point between the profiler's op_begin/op_end callbacks, with profiling paused so the
# ops it calls internally are not reported separately.

cdef object _profiled(str name, tuple args):
    global _profiling
    token = _profiler.op_begin(name, args)
    _profiling = False
    try:
        result = _OPS[name](*args)
    finally:
        _profiling = _profiler is not None
    _profiler.op_end(token, result)
    return result


# -- fast first-order backward ----------------------------------------------------
#
# A backward runs with grad mode equal to create_graph. When it is off nothing is
# recorded, so hot ops compute their gradient directly on the arrays (fewer
# temporaries, no wrapper per step); when it is on they use the differentiable
# formula next to it. Tests check both: gradcheck the first, gradgradcheck the second.

cdef inline Variable _raw(object data):
    return _wrap(_ensure_array(data))


cdef inline object _reduce_data(object data, tuple shape, object dtype):
    # The array form of _reduce_grad: sum over broadcast dims, cast to the input dtype.
    if shape is not None and not _has_shape(data, shape):
        data = _sum_to_data(data, shape)
    if dtype is not None and not _same_dtype(_dtype(data), dtype):
        data = data.astype(dtype)
    return data


cdef object _broadcast_data(object data, tuple shape):
    # numpy.broadcast_to is Python code (~3 us); build the same read-only view with
    # zero strides through the ndarray constructor when the input is C-contiguous.
    cdef Py_ssize_t lead, i, n
    if type(data) is not _NDARRAY or not cnp.PyArray_IS_C_CONTIGUOUS(<cnp.ndarray>data):
        return _xp_of(data).broadcast_to(data, shape)
    n = len(shape)
    lead = n - cnp.PyArray_NDIM(<cnp.ndarray>data)
    if lead < 0:
        return numpy.broadcast_to(data, shape)       # raises the right error
    in_shape = data.shape
    in_strides = data.strides
    strides = [0] * n
    for i in range(lead, n):
        if in_shape[i - lead] == shape[i]:
            strides[i] = in_strides[i - lead]
        elif in_shape[i - lead] != 1:
            return numpy.broadcast_to(data, shape)   # raises the right error
    out = _np_ndarray(shape, data.dtype, data, 0, tuple(strides))
    cnp.PyArray_CLEARFLAGS(<cnp.ndarray>out, cnp.NPY_ARRAY_WRITEABLE)
    return out


# -- the broadcast reduction ------------------------------------------------------

cdef object _sum_to_data(object data, tuple shape):
    cdef Py_ssize_t lead = data.ndim - len(shape)
    cdef list axes = list(range(lead))
    cdef Py_ssize_t i
    for i in range(len(shape)):
        if shape[i] == 1 and data.shape[lead + i] != 1:
            axes.append(lead + i)
    if not axes:
        return data.reshape(shape)
    return _sum_data(data, tuple(axes), True).reshape(shape)


cdef class SumToBackward(Node):
    cdef tuple input_shape

    cdef tuple _backward(self, tuple grads):
        if not _grad_enabled():
            return (_raw(_broadcast_data((<Variable>grads[0])._data, self.input_shape)),)
        return (broadcast_to(grads[0], self.input_shape),)


cpdef Variable sum_to(object input, object shape):
    """Sum ``input`` over broadcast dimensions so it has ``shape`` (adjoint of broadcast_to).

    Every op's backward uses it to reduce a broadcast gradient to its input's shape.

    >>> sum_to(Variable(numpy.ones((2, 3))), (1, 3))
    tensor([[2., 2., 2.]], dtype=float64)
    """
    if _profiling:
        return _profiled("sum_to", (input, shape, ))
    cdef Variable x = _as_variable(input)
    shape = tuple(shape)
    if _has_shape(x._data, shape):
        return x
    data = _sum_to_data(x._data, shape)
    cdef SumToBackward node
    if _records(x):
        node = SumToBackward.__new__(SumToBackward)
        node.input_shape = x._data.shape
        return _recorded(node, data, (_edge(x),))
    return _plain(data, x._volatile)


cdef class ExpandBackward(Node):
    cdef tuple input_shape

    cdef tuple _backward(self, tuple grads):
        if not _grad_enabled():
            return (_raw(_sum_to_data((<Variable>grads[0])._data, self.input_shape)),)
        return (sum_to(grads[0], self.input_shape),)


cpdef Variable broadcast_to(object input, object shape):
    """Broadcast ``input`` to ``shape`` (a read-only view, as NumPy's broadcast_to)."""
    if _profiling:
        return _profiled("broadcast_to", (input, shape, ))
    cdef Variable x = _as_variable(input)
    shape = tuple(shape)
    if x._data.shape == shape:
        return x
    try:
        data = _broadcast_data(x._data, shape)
    except ValueError:
        raise RuntimeError("broadcast_to: the shape %s cannot be broadcast to %s"
                           % (_shape_str(x._data.shape), _shape_str(shape))) from None
    cdef ExpandBackward node
    cdef Variable out
    if _records(x):
        node = ExpandBackward.__new__(ExpandBackward)
        node.input_shape = x._data.shape
        out = _recorded(node, data, (_edge(x),))
    else:
        out = _plain(data, x._volatile)
    out._version_counter = _vc(x)
    out._is_view = True
    return out


def expand(input, *sizes):
    """Broadcast to ``sizes``; ``-1`` keeps a dimension (torch's expand)."""
    if _profiling:
        return _profiled("expand", (input, ) + sizes)
    cdef Variable x = _as_variable(input)
    if len(sizes) == 1 and isinstance(sizes[0], (tuple, list)):
        sizes = tuple(sizes[0])
    lead = len(sizes) - x._data.ndim
    if lead < 0:
        raise RuntimeError("expand: the number of sizes provided (%d) must be greater or equal "
                           "to the number of dimensions in the tensor (%d)"
                           % (len(sizes), x._data.ndim))
    shape = tuple(x._data.shape[i - lead] if s == -1 and i >= lead else s
                  for i, s in enumerate(sizes))
    return broadcast_to(x, shape)


# -- conversions ------------------------------------------------------------------

cdef class ToCopyBackward(Node):
    cdef object input_dtype
    cdef object input_device

    cdef tuple _backward(self, tuple grads):
        return (_convert(grads[0], self.input_device, self.input_dtype, False),)


cdef Variable _convert(Variable x, object dev, object dtype, bint copy):
    data = x._data
    if dtype is not None:
        dtype = numpy.dtype(dtype)
    if dev is not None:
        data = _move_to_device(data, dev)
    if dtype is not None and data.dtype != dtype:
        data = data.astype(dtype)
    if data is x._data:
        if not copy:
            return x
        data = data.copy()
    cdef ToCopyBackward node
    if _records(x) and _is_float_dtype(data.dtype):
        node = ToCopyBackward.__new__(ToCopyBackward)
        node.input_dtype = x._data.dtype
        node.input_device = str(x.device)
        return _recorded(node, data, (_edge(x),))
    return _plain(data, x._volatile)


# -- comparisons (no gradient, bool result) ----------------------------------------

cdef tuple _COMPARISON_NAMES = ("lt", "le", "eq", "ne", "gt", "ge")


cdef Variable _compare(Variable a, object b, int op):
    other = _binary_operand_data(b, _COMPARISON_NAMES[op], "other")
    d = a._data
    try:
        if op == 0:
            r = d < other
        elif op == 1:
            r = d <= other
        elif op == 2:
            r = d == other
        elif op == 3:
            r = d != other
        elif op == 4:
            r = d > other
        else:
            r = d >= other
    except ValueError:
        raise _broadcast_error(_COMPARISON_NAMES[op], a, b) from None
    except TypeError:
        _check_numeric_operands(d, other, _COMPARISON_NAMES[op])
        raise
    return _plain(r, a._volatile or _operand_volatile(b))


# -- printing ---------------------------------------------------------------------

def _format_variable(Variable v):
    data = v._host_data()
    kwargs = dict(separator=", ", prefix="tensor(", threshold=1000, edgeitems=3,
                  max_line_width=80)
    if data.dtype.kind == "f":
        # torch's style: "1." when every value is integral, else four fixed decimals.
        finite = data[numpy.isfinite(data)]
        integral = finite.size == 0 or bool((finite == numpy.round(finite)).all())
        kwargs.update(precision=4, floatmode="maxprec_equal" if integral else "fixed")
    if data.size == 0:
        body = "[]"
    else:
        body = numpy.array2string(data, **kwargs)
    extras = []
    if data.size == 0 and data.shape != (0,):
        extras.append("size=%s" % (tuple(data.shape),))
    if data.dtype != _default_dtype and data.dtype != numpy.int64 and data.dtype != numpy.bool_:
        extras.append("dtype=%s" % data.dtype)
    if type(v._data) is not _NDARRAY:
        extras.append("device='%s'" % v.device)
    if v._grad_fn is not None:
        extras.append("grad_fn=<%s>" % v._grad_fn.name())
    elif v._requires_grad:
        extras.append("requires_grad=True")
    if v._volatile:
        extras.append("volatile=True")
    return "tensor(" + body + "".join(", " + e for e in extras) + ")"
