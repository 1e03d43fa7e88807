# Shared machinery of the op families: operand handling, recording a node, the array
# form of the one broadcast reduction (the ops sum_to / broadcast_to, adjoint to each
# other, are in shape.pxi) and conversions.

import builtins

# NumPy ufuncs, looked up once; every _np_* alias of the engine is here. They also
# dispatch CuPy arrays (through __array_ufunc__), so one code path serves both array
# modules.
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
cdef object _np_not_equal = numpy.not_equal
cdef object _np_ndarray = numpy.ndarray
cdef object _np_add_reduce = numpy.add.reduce
cdef object _np_maximum_reduce = numpy.maximum.reduce
cdef object _np_minimum = numpy.minimum
cdef object _np_bitwise_and = numpy.bitwise_and
cdef object _np_bitwise_xor = numpy.bitwise_xor
cdef object _np_equal = numpy.equal
cdef object _np_clip = numpy.clip
cdef object _np_absolute = numpy.absolute
cdef object _np_sign = numpy.sign
cdef object _np_square = numpy.square
cdef object _np_reciprocal = numpy.reciprocal
cdef object _np_expm1 = numpy.expm1
cdef object _np_log1p = numpy.log1p
cdef object _np_log2 = numpy.log2
cdef object _np_log10 = numpy.log10
cdef object _np_sin = numpy.sin
cdef object _np_cos = numpy.cos
cdef object _np_tan = numpy.tan
cdef object _np_arcsin = numpy.arcsin
cdef object _np_arccos = numpy.arccos
cdef object _np_arctan = numpy.arctan
cdef object _np_sinh = numpy.sinh
cdef object _np_cosh = numpy.cosh
cdef object _np_arctan2 = numpy.arctan2
cdef object _np_hypot = numpy.hypot
cdef object _np_floor = numpy.floor
cdef object _np_ceil = numpy.ceil
cdef object _np_rint = numpy.rint
cdef object _np_trunc = numpy.trunc
cdef object _np_floor_divide = numpy.floor_divide
cdef object _np_remainder = numpy.remainder
cdef object _np_fmod = numpy.fmod


cdef inline object _sum_data(object data, object axis, bint keepdims, object dtype=None):
    # ndarray.sum goes through a Python wrapper (numpy/_core/_methods.py); the ufunc
    # reduction it ends in is called directly. CuPy arrays use their own method.
    if type(data) is _NDARRAY:
        if dtype is None:
            r = _loop_reduce(_LOOP_ADD, data, axis, keepdims)   # small: NumPy's loop
            if r is not None:
                return r
        return _np_add_reduce(data, axis, dtype, None, keepdims)
    return data.sum(axis=axis, dtype=dtype, keepdims=keepdims)


cdef inline object _max_data(object data, object axis, bint keepdims):
    if type(data) is _NDARRAY:
        r = _loop_reduce(_LOOP_MAXIMUM, data, axis, keepdims)      # small: NumPy's loop
        if r is not None:
            return r
        return _np_maximum_reduce(data, axis, None, None, keepdims)
    return data.max(axis=axis, keepdims=keepdims)


# Up to this many elements, a gradient broadcast from a reduced one (sum/mean backward)
# is a fresh C-contiguous array rather than a zero-stride view: filling it costs less
# than the view's construction up to about here (measured on (n,) float64; see
# benchmarks/README.md), and a leaf's sink can then keep it as .grad without a copy.
cdef Py_ssize_t _SMALL_EXPAND = 4096


cdef Py_ssize_t _size_of(tuple shape) except -1:
    cdef Py_ssize_t n = 1
    for d in shape:
        n *= <Py_ssize_t>d
    return n


cdef object _expand_small(object data, tuple shape):
    # `data` (an ndarray that broadcasts to `shape`) copied into a new C-contiguous
    # writable array of `shape`, through the C API (numpy.empty + fill from Python cost
    # several times more on small arrays). None where this does not apply: more than
    # _SMALL_EXPAND elements, a dtype that is not a native built-in number, too many dims.
    cdef cnp.npy_intp dims[64]
    cdef Py_ssize_t i, nd = len(shape)
    cdef cnp.npy_intp n = 1
    cdef int typenum = cnp.PyArray_TYPE(<cnp.ndarray>data)
    if nd > 64 or (typenum > cnp.NPY_CLONGDOUBLE and typenum != cnp.NPY_FLOAT16) or \
            typenum == cnp.NPY_BOOL or \
            not cnp.PyArray_ISNOTSWAPPED(<cnp.ndarray>data) or \
            cnp.PyArray_NDIM(<cnp.ndarray>data) > nd:
        return None
    for i in range(nd):
        dims[i] = <cnp.npy_intp>(<Py_ssize_t>shape[i])
        n *= dims[i]
    if n > _SMALL_EXPAND:
        return None
    out = cnp.PyArray_EMPTY(<int>nd, dims, typenum, 0)
    cnp.PyArray_CopyInto(<cnp.ndarray>out, <cnp.ndarray>data)
    return out


cdef inline object _ones_data(object like):
    # numpy.ones_like is Python code; empty + fill are C methods (on a NumPy array of a
    # native built-in dtype, straight through the C API).
    cdef int typenum
    if type(like) is _NDARRAY and cnp.PyArray_ISNOTSWAPPED(<cnp.ndarray>like):
        typenum = cnp.PyArray_TYPE(<cnp.ndarray>like)
        if typenum <= cnp.NPY_CLONGDOUBLE or typenum == cnp.NPY_FLOAT16:
            out = cnp.PyArray_EMPTY(cnp.PyArray_NDIM(<cnp.ndarray>like),
                                    cnp.PyArray_DIMS(<cnp.ndarray>like), typenum, 0)
            cnp.PyArray_FillWithScalar(<cnp.ndarray>out, 1)
            return out
    xp = _xp_of(like)
    out = xp.empty(like.shape, dtype=like.dtype)
    out.fill(1)
    return out


cdef bint _is_ones_like(object g, object t):
    # g is a NumPy float32/float64 array of t's shape and dtype whose every element is
    # exactly 1.0, so that g * t == t bit for bit. Read in C, stopping at the first
    # other value (a gradient that is not all ones usually differs at once); one
    # element when g's strides are all 0 (a broadcast constant).
    cdef int typenum, nd, i
    cdef cnp.npy_intp n, k
    cdef cnp.npy_intp* strides
    cdef bint zero_strides = True
    cdef char* p
    if type(g) is not _NDARRAY or type(t) is not _NDARRAY:
        return False
    typenum = cnp.PyArray_TYPE(<cnp.ndarray>g)
    if (typenum != cnp.NPY_DOUBLE and typenum != cnp.NPY_FLOAT) or \
            typenum != cnp.PyArray_TYPE(<cnp.ndarray>t) or \
            not cnp.PyArray_ISNOTSWAPPED(<cnp.ndarray>g) or \
            not cnp.PyArray_ISALIGNED(<cnp.ndarray>g):
        return False
    nd = cnp.PyArray_NDIM(<cnp.ndarray>g)
    if nd != cnp.PyArray_NDIM(<cnp.ndarray>t):
        return False
    for i in range(nd):
        if cnp.PyArray_DIMS(<cnp.ndarray>g)[i] != cnp.PyArray_DIMS(<cnp.ndarray>t)[i]:
            return False
    n = cnp.PyArray_SIZE(<cnp.ndarray>g)
    if n == 0:
        return False
    strides = cnp.PyArray_STRIDES(<cnp.ndarray>g)
    for i in range(nd):
        if strides[i] != 0:
            zero_strides = False
            break
    p = <char*>cnp.PyArray_DATA(<cnp.ndarray>g)
    if zero_strides:
        n = 1
    elif not cnp.PyArray_IS_C_CONTIGUOUS(<cnp.ndarray>g):
        return False
    if typenum == cnp.NPY_DOUBLE:
        for k in range(n):
            if (<double*>p)[k] != 1.0:
                return False
    else:
        for k in range(n):
            if (<float*>p)[k] != 1.0:
                return False
    return True


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
    # An output that records nothing. Holding a NumPy array (which the cyclic collector
    # never sees) and nothing else, it starts outside the collector's lists: _track_var
    # puts it in before it is given anything a cycle could pass through. (Saves the
    # collector's bookkeeping for every op under no_grad; issue 19.)
    cdef Variable v
    data = _ensure_array(data)
    if _variables_born_untracked and type(data) is _NDARRAY:
        v = <Variable>pyad_variable_new_untracked(<PyTypeObject*>Variable)
        v._data = data
    else:
        v = _wrap(data)
    v._volatile = is_volatile
    v._is_inference = pyad_get_inference()
    return v


cdef inline Variable _recorded(Node node, object data, tuple edges):
    cdef Variable v
    _init_node(node, edges, 1)
    v = _wrap(_ensure_array(data))
    v._grad_fn = node
    v._requires_grad = True
    return v


cdef inline Variable _recorded1(Node node, object data, object e0):
    # _recorded for a one-input op: e0 its edge entry (_edge(x)), no tuple.
    cdef Variable v
    _init_node1(node, e0, 1)
    v = _wrap(_ensure_array(data))
    v._grad_fn = node
    v._requires_grad = True
    return v


cdef inline Variable _recorded2(Node node, object data, object e0, object e1):
    cdef Variable v
    _init_node2(node, e0, e1, 1)
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
        # a view taken under no_grad or inference_mode of a base that requires grad
        # requires grad too, with no history (torch's differentiable view meta): ops
        # on it record, and no gradient flows back into it
        return a._requires_grad or (a._view_no_grad and a._view_base._requires_grad)
    return False


cdef inline bint _records(Variable a) except -1:
    return _requires_grad_now(a) and _grad_enabled()


cdef Py_ssize_t _normalize_dim(object dim, Py_ssize_t ndim, str what) except? -1:
    cdef Py_ssize_t d
    if type(dim) is bool:       # an int subclass that torch refuses as a dim (1 by mistake)
        raise TypeError("%s(): argument 'dim' must be int, not bool" % what)
    try:
        d = dim
    except TypeError:
        raise TypeError("%s(): dim must be an int, got %s" % (what, type(dim).__name__)) from None
    cdef Py_ssize_t n = ndim if ndim > 0 else 1
    if d < -n or d >= n:
        raise IndexError("%s(): Dimension out of range (expected to be in range of [%d, %d], "
                         "but got %d)" % (what, -n, n - 1, d))
    return d + n if d < 0 else d


cdef Py_ssize_t _normalize_dim_sized(object dim, Py_ssize_t ndim, str what) except? -1:
    # For ops that index the shape with the dim: a 0-d input has no dimension to index,
    # so it refuses every dim (torch's maybe_wrap_dim with wrap_scalar=false).
    cdef Py_ssize_t d = _normalize_dim(dim, ndim, what)
    if ndim <= 0:
        raise IndexError("%s(): Dimension specified as %s but the Variable has no dimensions"
                         % (what, dim))
    return d


cdef object _checked_sizes(object shape, object itemsize, str what):
    # The element count and byte size of `shape` must fit a signed 64-bit integer (a
    # larger product overflows inside NumPy, which may crash); torch's RuntimeError.
    cdef object numel = 1
    for s in shape:
        numel *= s
    if numel * itemsize > 9223372036854775807 or any(s > 9223372036854775807 for s in shape):
        raise RuntimeError("%s(): Storage size calculation overflowed with sizes=[%s]"
                           % (what, ", ".join(str(s) for s in shape)))
    return shape


def _check_storage_size(shape, dtype, what):
    """Raise torch's RuntimeError when an array of ``shape`` and ``dtype`` cannot exist
    (its byte size overflows a signed 64-bit integer)."""
    return _checked_sizes(tuple(shape), numpy.dtype(dtype).itemsize, what)


cdef tuple _ALL_DIMS = tuple([tuple(range(n)) for n in range(8)])


cdef tuple _normalize_dims(object dim, Py_ssize_t ndim, str what):
    # None -> all dims; int or sequence -> sorted unique non-negative dims.
    if dim is None:
        if ndim < 8:
            return <tuple>_ALL_DIMS[ndim]
        return tuple(range(ndim))
    if isinstance(dim, (list, tuple)):
        dims = tuple(sorted({_normalize_dim(d, ndim, what) for d in dim}))
        if len(dims) != len(dim):
            raise RuntimeError("%s(): dim %s appears multiple times in the list of dims"
                               % (what, dim))
        # a 0-d input takes dim 0 or -1 (torch) and has no axis to reduce over
        return dims if ndim else ()
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
    cdef type t = type(x)
    if t is float or t is int or t is bool or t is _NDARRAY:
        return x
    if isinstance(x, _NUMPY_SCALAR) and x.dtype.kind in "biufc":
        # torch takes a NumPy scalar as it takes a Python number: it decides only the
        # category (int64 * numpy.float64(2) is float32, True + numpy.int32(3) int64).
        return x.item()
    if isinstance(x, (int, float, bool)):
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


# -- type promotion: torch's rules, not NumPy's ---------------------------------------
#
# Python scalars, NumPy scalars and 0-d arrays only decide the category (bool < int <
# float < complex) and never widen a dimensioned operand of the same category; an
# integer or bool operand meeting a float scalar gives the default float dtype; across
# categories the float (or complex) type wins as it is (NumPy would widen int64 *
# float32 to float64). NumPy 2's own rules (NEP 50) already agree on the common cases,
# which _result_dtype recognises with a few C tests and answers None for.

cdef inline int _kind_category(char kind):
    # (kind 'V' is one of ml_dtypes' floating types, bfloat16 and float8: floating)
    if kind == b'b':
        return 0
    if kind == b'i' or kind == b'u':
        return 1
    if kind == b'f' or kind == b'V':
        return 2
    return 3


cdef inline bint _is_reduced_float(object d):
    # float16, bfloat16 (and float8) data: torch computes their arithmetic in float32
    # ("opmath") and rounds once; NumPy's float16 loops do too, but not with a Python
    # scalar (cast to float16 first), nor ml_dtypes' reductions (they accumulate in
    # bfloat16), nor pyad's formulas of several ufuncs (rounded at each step)
    cdef char k
    if type(d) is _NDARRAY:
        k = _dtype_kind(d)
        return k == b'V' or (k == b'f' and cnp.PyArray_ITEMSIZE(<cnp.ndarray>d) == 2)
    if _scalar_category(d) >= 0 or not hasattr(d, "dtype"):
        return False
    k = ord(d.dtype.kind)
    return k == b'V' or (k == b'f' and d.dtype.itemsize == 2)


cdef inline object _opmath_data(object d):
    # d in float32 when it is float16/bfloat16 (see _is_reduced_float), else d itself
    return d.astype(numpy.float32) if _is_reduced_float(d) else d


cdef object _matmul_arrays(object a, object b):
    # a @ b for arrays. torch's float16/bfloat16 GEMMs accumulate in float32 and round
    # once; NumPy's bfloat16 matmul (ml_dtypes) returns float32 instead, and its float16
    # one runs without BLAS: both go through float32 here and come back in their dtype.
    if type(a) is _NDARRAY and type(b) is _NDARRAY and _is_reduced_float(a) and \
            a.dtype == b.dtype:
        return numpy.matmul(a.astype(numpy.float32), b.astype(numpy.float32)).astype(a.dtype)
    return _xp_of(a).matmul(a, b)


cdef inline int _category(object dtype):
    cdef str kind = dtype.kind
    return _kind_category(ord(kind))


cdef inline int _scalar_category(object x):
    # Python bool, int, float, complex -> 0..3; anything else -> -1 (NumPy scalars too,
    # although numpy.float64 is a float: they count as 0-d arrays, as torch's do).
    cdef type t = type(x)
    if t is float:
        return 2
    if t is int:
        return 1
    if t is bool:
        return 0
    if t is complex:
        return 3
    if isinstance(x, _NUMPY_SCALAR):
        return -1
    if isinstance(x, bool):
        return 0
    if isinstance(x, int):
        return 1
    if isinstance(x, float):
        return 2
    if isinstance(x, complex):
        return 3
    return -1


cdef object _promote_pair(object t1, object t2):
    # torch.promote_types
    if t1 is t2 or t1 == t2:
        return t1
    cdef int c1 = _category(t1), c2 = _category(t2)
    if c1 != c2 and (c1 <= 1 or c2 <= 1):
        return t1 if c1 > c2 else t2
    try:
        return numpy.promote_types(t1, t2)
    except TypeError:
        # ml_dtypes' bfloat16 promotes with nothing but itself in NumPy; torch's table
        # reads it as float32 against float16, float32, float64 and the complex types
        return numpy.promote_types(numpy.float32 if t1.kind == "V" else t1,
                                   numpy.float32 if t2.kind == "V" else t2)


cdef object _combine_categories(object higher, object lower):
    # torch's combine_categories: `lower` (0-d and scalar operands) only changes the
    # result when its category is above `higher`'s.
    if higher is None:
        return lower
    if lower is None:
        return higher
    cdef int ch = _category(higher), cl = _category(lower)
    if ch == 3:
        return higher
    if cl == 3:
        return numpy.promote_types(higher, numpy.complex64) if ch == 2 else lower
    if ch == 2:
        return higher
    if ch == 0 or cl == 2:
        return _promote_pair(higher, lower)
    return higher


cdef object _wrapped_dtype(object x):
    cdef int c = _scalar_category(x)
    if c == 0:
        return numpy.dtype(numpy.bool_)
    if c == 1:
        return numpy.dtype(numpy.int64)
    if c == 2:
        return _default_dtype
    return numpy.promote_types(_default_dtype, numpy.complex64)


cdef object _torch_result_dtype(object da, object db):
    dim = zero = wrapped = None
    for d in (da, db):
        if _scalar_category(d) >= 0:
            t = _wrapped_dtype(d)
            wrapped = t if wrapped is None else _promote_pair(wrapped, t)
        elif d.ndim == 0:
            zero = d.dtype if zero is None else _promote_pair(zero, d.dtype)
        else:
            dim = d.dtype if dim is None else _promote_pair(dim, d.dtype)
    return _combine_categories(dim, _combine_categories(zero, wrapped))


cdef inline object _result_dtype(object da, object db):
    """The dtype of a binary op's result by torch's rules, or None where NumPy's own
    result already has it (the common case: one dtype, or a Python scalar of a category
    not above the array's)."""
    cdef int cs
    if type(da) is _NDARRAY:
        if type(db) is _NDARRAY:
            if _same_dtype(_dtype(da), _dtype(db)):
                return None
        else:
            cs = _scalar_category(db)
            if cs >= 0 and cs <= _kind_category(_dtype_kind(da)) and _dtype_kind(da) != b'V':
                return None
    elif type(db) is _NDARRAY:
        cs = _scalar_category(da)
        if cs >= 0 and cs <= _kind_category(_dtype_kind(db)) and _dtype_kind(db) != b'V':
            return None
    rt = _torch_result_dtype(da, db)
    return None if _same_numpy_result(da, db, rt) else rt


cdef bint _same_numpy_result(object da, object db, object rt):
    # Whether the ufunc's own (NEP 50) result already has dtype `rt`, so dtype= need not
    # be passed. Computed from dtypes and Python scalars only, never from the arrays
    # (which may be on a GPU).
    a = da if _scalar_category(da) >= 0 else _dtype(da)
    b = db if _scalar_category(db) >= 0 else _dtype(db)
    try:
        return numpy.result_type(a, b) == rt
    except TypeError:
        return False


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


cdef inline object _operand_edge(object x):
    if isinstance(x, Variable):
        return _edge(<Variable>x)
    return _NO_EDGE


cdef void _check_same_device(object da, object db, str what) except *:
    if cupy is None:
        return
    ca = isinstance(da, cupy.ndarray)
    cb = isinstance(db, cupy.ndarray)
    if (ca and type(db) is _NDARRAY) or (cb and type(da) is _NDARRAY):
        raise RuntimeError("%s(): expected all operands to be on the same device, got cpu and "
                           "cuda" % what)
    if ca and cb and da.device.id != db.device.id:
        raise RuntimeError("%s(): operands are on different GPUs (cuda:%d and cuda:%d)"
                           % (what, da.device.id, db.device.id))


import re as _re

cdef tuple _OP_ERRORS = (TypeError, ValueError, IndexError, RuntimeError)


cdef object _renamed(object exc, str what):
    # An error raised by an op that `what` is made of (clip calls clamp, index_add_ calls
    # index_add): the same error, naming the op the user called.
    msg = str(exc)
    m = _OP_PREFIX.match(msg)
    if m is None or m.group(1) == what:
        return exc
    return type(exc)("%s(): %s" % (what, msg[m.end():]))


cdef object _OP_PREFIX = _re.compile(r"([A-Za-z_][A-Za-z0-9_.]*)\(\): ")


cdef object _broadcast_error(str what, object a, object b):
    return RuntimeError("%s(): the size of operand a %s does not match the size of operand b "
                        "%s (shapes cannot be broadcast together)"
                        % (what, _shape_str(_shape_of(a)), _shape_str(_shape_of(b))))


@cython.freelist(32)
cdef class _SavedOperand:
    # An operand a node needs in backward: a saved Variable or a constant. Python
    # numbers are kept after backward (one object may serve several nodes); array
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

    cdef inline int _check(self, Node owner) except -1:
        # A number is kept (and may be shared between nodes), but torch saves it as a
        # wrapped-number tensor and frees it with the graph: reading it through a node
        # whose saved values were released raises as for a saved Variable.
        if self.released or owner._released:
            raise _freed_error(owner)
        return 0

    cdef void release(self) noexcept:
        if self.saved is not None:
            self.saved.release()
        elif not isinstance(self.constant, (int, float, complex)):
            self.constant = None
            self.released = True


# A _SavedOperand holding a Python number never changes once made (release() keeps
# numbers), so the ops that save the same number object share one: `x * 0.5` in a loop
# saves no new object per op (64 bytes of the graph). A small cache keyed by the
# number's address; it holds the number, so the address cannot be reused meanwhile.
# (The freed state of a number is therefore the node's `_released` flag, read in
# _check: a shared operand is not one node's to release.)
cdef list _const_keys = [None] * 16
cdef list _const_saved = [None] * 16


cdef _SavedOperand _save_operand(object x, Py_ssize_t input_nr):
    cdef _SavedOperand s
    cdef type t
    cdef Py_ssize_t slot
    t = type(x)
    if t is not float and isinstance(x, Variable):
        s = _SavedOperand.__new__(_SavedOperand)
        s.saved = _save(<Variable>x, False, input_nr)
        return s
    if t is float or t is int or t is complex or t is bool:
        slot = (<Py_ssize_t><void*>x >> 4) & 15
        if _const_keys[slot] is x:
            return <_SavedOperand>_const_saved[slot]
        s = _SavedOperand.__new__(_SavedOperand)
        s.constant = x
        _const_keys[slot] = x
        _const_saved[slot] = s
        return s
    s = _SavedOperand.__new__(_SavedOperand)
    s.constant = x
    return s


cdef object _value_array(object value, object like, str what, str name):
    if isinstance(value, Variable):
        return (<Variable>value)._data
    if isinstance(value, (bool, numpy.bool_)) or not isinstance(value, (int, float,
                                                                       numpy.number)):
        raise TypeError("%s(): argument '%s' must be a Variable or a number, not %s"
                        % (what, name, type(value).__name__))
    return _xp_of(like).asarray(value)


# -- profiling ----------------------------------------------------------------------
#
# Every public op starts with `if _profiling and _profile_enter(): return
# _profiled(op, args)`: one C flag test when the profiler is off. When on, _profiled
# reports the op to the profiler and calls the op's entry point again with a per-thread
# bypass flag set, which the op's own test consumes, so that call runs the body. Ops
# the body calls are reported too: they nest inside this op's time range.

cdef object _profiled(object op, tuple args):
    return _profiled_named(op.__name__, op, args)


cdef object _profiled_named(str name, object fn, tuple args):
    cdef long long seq0 = _sequence_counter
    cdef long long seq = -1
    cdef object token
    cdef bint fast
    profiler = _profiler
    if profiler is None:                        # removed by another thread meanwhile
        pyad_set_profile_bypass(1)
        try:
            return fn(*args)
        finally:
            pyad_set_profile_bypass(0)
    cdef Py_ssize_t index = 0
    fast = type(profiler) is _EventLog
    result = None
    token = None
    if fast:
        index = (<_EventLog>profiler).begin(name, 0, -1)
    else:
        token = profiler.op_begin(name, args, seq0)
    pyad_set_profile_bypass(1)
    try:
        result = fn(*args)
    finally:
        pyad_set_profile_bypass(0)              # (still set if fn raised on its arguments)
        first = result[0] if type(result) is tuple and len(result) else result
        if isinstance(first, Variable) and (<Variable>first)._grad_fn is not None:
            if seq0 <= (<Variable>first)._grad_fn._seq < _ACCUMULATE_SEQUENCE:
                seq = (<Variable>first)._grad_fn._seq
        if fast:
            (<_EventLog>profiler).end(index, seq)
        else:
            profiler.op_end(token, result, seq)
    return result


# -- fast first-order backward ----------------------------------------------------
#
# A backward runs with grad mode equal to create_graph. When it is off nothing is
# recorded, so hot ops compute their gradient directly on the arrays (fewer
# temporaries, no wrapper per step); when it is on they use the differentiable
# formula. Tests check both: gradcheck the first, gradgradcheck the second.

cdef inline Variable _raw(object data):
    return _wrap(_ensure_array(data))


# -- gradient rules written once ---------------------------------------------------
#
# A rule written on values serves both: a value is a raw array when grad mode is off
# and a Variable when it is on (create_graph). Each _v_* step calls the ufunc on arrays
# and the differentiable op on Variables; the _in forms write into `t`, a temporary the
# rule made itself (on arrays; never an input's or a saved array), so the array form
# keeps its one temporary. _gv and _sv give a rule its inputs as values, _grad turns the
# result back into the Variable a backward returns.
#
#     cdef tuple _backward(self, tuple grads):          # SqrtBackward: g / (2 y)
#         cdef bint rec = _grad_enabled()
#         t = _v_mul(_sv(self.saved, self, rec), 2)
#         return (_grad(_v_div_in(_gv(grads[0], rec), t, t)),)

cdef inline object _gv(object g, bint rec):
    # An incoming gradient (a Variable) as a value.
    return g if rec else (<Variable>g)._data


cdef inline object _sv(SavedVariable saved, Node owner, bint rec):
    # A saved Variable as a value (checked for in-place changes either way).
    return saved.unpack(owner) if rec else saved.data(owner)


cdef inline object _ov(_SavedOperand saved, Node owner, bint rec):
    # A saved operand (a Variable or a number) as a value.
    return saved.get(owner) if rec else saved.data(owner)


cdef inline Variable _grad(object v):
    # A value as the Variable a backward returns.
    if isinstance(v, Variable):
        return <Variable>v
    return _raw(v)


cdef inline bint _on_variables(object a, object b):
    return isinstance(a, Variable) or isinstance(b, Variable)


cdef inline object _v_neg(object a):
    if isinstance(a, Variable):
        return neg(a)
    return _scratch(_ufunc1(_LOOP_NEG, a, None))


cdef inline object _v_neg_in(object a, object t):
    if isinstance(a, Variable):
        return neg(a)
    return _ufunc1(_LOOP_NEG, a, t)


cdef inline object _v_mul(object a, object b):
    if _on_variables(a, b):
        return mul(a, b)
    return _scratch(_ufunc2(_LOOP_MUL, a, b, None))


cdef inline object _v_zeros_like(object a):
    # Zeros of a's shape and dtype, with no history: torch's zeros_like in a rule (no
    # gradient flows through it, and unlike a * 0 an inf or nan in a gives 0, not nan).
    if isinstance(a, Variable):
        d = (<Variable>a)._data
        return _plain(_xp_of(d).zeros_like(d), False)
    return _xp_of(a).zeros_like(a)


cdef dict _UINT_OF_ITEMSIZE = {2: numpy.dtype(numpy.uint16), 4: numpy.dtype(numpy.uint32),
                               8: numpy.dtype(numpy.uint64)}


cdef extern from *:
    """
    /* Masked-gradient loops: a float's bits ANDed with its mask widened to all-one bits,
       so the result is the value or +0 (never the nan a product with a 0/1 mask gives
       at an inf or nan). Branch-free, so the compiler turns each into SIMD; GCC's -O2
       only vectorizes loops without a remainder, so these few ask for -O3. */
    #include <stdint.h>
    #if defined(__GNUC__) && !defined(__clang__)
    #define PYAD_SIMD_LOOP __attribute__((optimize("O3")))
    #else
    #define PYAD_SIMD_LOOP
    #endif
    /* out = g where keep is nonzero, +0 elsewhere */
    static PYAD_SIMD_LOOP void pyad_keep_u32(const uint32_t *g, const uint8_t *keep,
                                             uint32_t *out, Py_ssize_t n) {
        for (Py_ssize_t i = 0; i < n; i++) out[i] = g[i] & (0u - (uint32_t)(keep[i] != 0));
    }
    static PYAD_SIMD_LOOP void pyad_keep_u64(const uint64_t *g, const uint8_t *keep,
                                             uint64_t *out, Py_ssize_t n) {
        for (Py_ssize_t i = 0; i < n; i++) out[i] = g[i] & (0u - (uint64_t)(keep[i] != 0));
    }
    /* out = g where y != 0 (nan included), +0 where y is +-0: relu's backward from its
       output, with no mask array in between */
    static PYAD_SIMD_LOOP void pyad_keep_nonzero_f32(const uint32_t *g, const float *y,
                                                     uint32_t *out, Py_ssize_t n) {
        for (Py_ssize_t i = 0; i < n; i++) out[i] = g[i] & (0u - (uint32_t)(y[i] != 0.0f));
    }
    static PYAD_SIMD_LOOP void pyad_keep_nonzero_f64(const uint64_t *g, const double *y,
                                                     uint64_t *out, Py_ssize_t n) {
        for (Py_ssize_t i = 0; i < n; i++) out[i] = g[i] & (0u - (uint64_t)(y[i] != 0.0));
    }
    /* 1 when no element is inf or nan (all exponent bits set), whole array scanned */
    static PYAD_SIMD_LOOP int pyad_all_finite_f32(const uint32_t *a, Py_ssize_t n) {
        uint32_t bad = 0;
        for (Py_ssize_t i = 0; i < n; i++) bad |= (uint32_t)((a[i] & 0x7f800000u) == 0x7f800000u);
        return !bad;
    }
    static PYAD_SIMD_LOOP int pyad_all_finite_f64(const uint64_t *a, Py_ssize_t n) {
        uint64_t bad = 0;
        for (Py_ssize_t i = 0; i < n; i++)
            bad |= (uint64_t)((a[i] & 0x7ff0000000000000ull) == 0x7ff0000000000000ull);
        return !bad;
    }
    """
    void pyad_keep_u32(const uint32_t *g, const uint8_t *keep, uint32_t *out,
                       Py_ssize_t n) noexcept nogil
    void pyad_keep_u64(const uint64_t *g, const uint8_t *keep, uint64_t *out,
                       Py_ssize_t n) noexcept nogil
    void pyad_keep_nonzero_f32(const uint32_t *g, const float *y, uint32_t *out,
                               Py_ssize_t n) noexcept nogil
    void pyad_keep_nonzero_f64(const uint64_t *g, const double *y, uint64_t *out,
                               Py_ssize_t n) noexcept nogil
    bint pyad_all_finite_f32(const uint32_t *a, Py_ssize_t n) noexcept nogil
    bint pyad_all_finite_f64(const uint64_t *a, Py_ssize_t n) noexcept nogil


cdef inline bint _simple_float_array(cnp.ndarray a) noexcept:
    # C-contiguous, aligned, native float32/float64: what the loops above read as bits.
    cdef int t = cnp.PyArray_TYPE(a)
    return ((t == cnp.NPY_FLOAT64 or t == cnp.NPY_FLOAT32) and cnp.PyArray_IS_C_CONTIGUOUS(a)
            and cnp.PyArray_ISALIGNED(a) and cnp.PyArray_ISNOTSWAPPED(a))


cdef inline bint _same_dims(cnp.ndarray a, cnp.ndarray b) noexcept:
    cdef int i, nd = cnp.PyArray_NDIM(a)
    if cnp.PyArray_NDIM(b) != nd:
        return False
    for i in range(nd):
        if cnp.PyArray_DIMS(a)[i] != cnp.PyArray_DIMS(b)[i]:
            return False
    return True


cdef object _keep_contiguous(cnp.ndarray a, cnp.ndarray keep):
    # _v_keep's common case in one C pass with no temporaries: a simple float array and
    # a C-contiguous bool mask of the same shape. None otherwise.
    if (cnp.PyArray_TYPE(keep) != cnp.NPY_BOOL or not cnp.PyArray_IS_C_CONTIGUOUS(keep)
            or not _simple_float_array(a) or not _same_dims(a, keep)):
        return None
    cdef int type_num = cnp.PyArray_TYPE(a)
    out = cnp.PyArray_EMPTY(cnp.PyArray_NDIM(a), cnp.PyArray_DIMS(a), type_num, 0)
    if type_num == cnp.NPY_FLOAT64:
        pyad_keep_u64(<uint64_t*>cnp.PyArray_DATA(a), <uint8_t*>cnp.PyArray_DATA(keep),
                      <uint64_t*>cnp.PyArray_DATA(<cnp.ndarray>out), cnp.PyArray_SIZE(a))
    else:
        pyad_keep_u32(<uint32_t*>cnp.PyArray_DATA(a), <uint8_t*>cnp.PyArray_DATA(keep),
                      <uint32_t*>cnp.PyArray_DATA(<cnp.ndarray>out), cnp.PyArray_SIZE(a))
    return out


cdef object _keep_where_nonzero(object g, object y):
    # g where y != 0 (nan counts as nonzero), 0 where y == 0: relu's backward from its
    # output y. On two simple float arrays of one shape and dtype, one C pass with no
    # mask array; otherwise _v_keep with the mask.
    if (type(g) is _NDARRAY and type(y) is _NDARRAY
            and cnp.PyArray_TYPE(<cnp.ndarray>g) == cnp.PyArray_TYPE(<cnp.ndarray>y)
            and _simple_float_array(<cnp.ndarray>g) and _simple_float_array(<cnp.ndarray>y)
            and _same_dims(<cnp.ndarray>g, <cnp.ndarray>y)):
        type_num = cnp.PyArray_TYPE(<cnp.ndarray>g)
        out = cnp.PyArray_EMPTY(cnp.PyArray_NDIM(<cnp.ndarray>g), cnp.PyArray_DIMS(<cnp.ndarray>g),
                                type_num, 0)
        if type_num == cnp.NPY_FLOAT64:
            pyad_keep_nonzero_f64(<uint64_t*>cnp.PyArray_DATA(<cnp.ndarray>g),
                                  <double*>cnp.PyArray_DATA(<cnp.ndarray>y),
                                  <uint64_t*>cnp.PyArray_DATA(<cnp.ndarray>out),
                                  cnp.PyArray_SIZE(<cnp.ndarray>g))
        else:
            pyad_keep_nonzero_f32(<uint32_t*>cnp.PyArray_DATA(<cnp.ndarray>g),
                                  <float*>cnp.PyArray_DATA(<cnp.ndarray>y),
                                  <uint32_t*>cnp.PyArray_DATA(<cnp.ndarray>out),
                                  cnp.PyArray_SIZE(<cnp.ndarray>g))
        return out
    return _v_keep(g, _np_not_equal(y, 0))


cdef bint _all_finite(object a) except -1:
    # No inf or nan in the NumPy float array a: one C pass on a simple array, else one
    # sum (finite when every element is, or an overflow, which only sends the caller to
    # its general path).
    if type(a) is _NDARRAY and _simple_float_array(<cnp.ndarray>a):
        if cnp.PyArray_TYPE(<cnp.ndarray>a) == cnp.NPY_FLOAT64:
            return pyad_all_finite_f64(<uint64_t*>cnp.PyArray_DATA(<cnp.ndarray>a),
                                       cnp.PyArray_SIZE(<cnp.ndarray>a))
        return pyad_all_finite_f32(<uint32_t*>cnp.PyArray_DATA(<cnp.ndarray>a),
                                   cnp.PyArray_SIZE(<cnp.ndarray>a))
    return _finite_double(float(_np_add.reduce(a, None)))


cdef object _v_keep(object a, object keep):
    # a where `keep` is true, 0 elsewhere: a masked gradient as torch selects it, so an
    # inf or nan of `a` outside the mask gives 0 (a product with the mask gives nan:
    # sqrt(relu(x)) at x < 0 sends inf into relu's backward). On a real float array, one
    # AND of a's bits with the mask widened to all-one bits: branch-free and as fast as
    # the product (NumPy's where branches per element, 7x slower on a random mask).
    if isinstance(a, Variable):
        d = (<Variable>a)._data
        xp = _xp_of(d)
        return where_const(xp.logical_not(keep), 0, a)
    if type(a) is _NDARRAY and type(keep) is _NDARRAY:
        r = _keep_contiguous(<cnp.ndarray>a, <cnp.ndarray>keep)
        if r is not None:
            return r
    xp = _xp_of(a)
    keep = xp.asarray(keep)
    if keep.dtype != numpy.bool_:
        keep = keep != 0
    if _dtype_kind(a) == b'f':
        bits = _UINT_OF_ITEMSIZE.get(a.dtype.itemsize)
        if bits is not None:
            ones = xp.negative(keep.view(xp.uint8), dtype=bits)
            return _scratch(xp.bitwise_and(a.view(bits), ones).view(a.dtype))
    return _scratch(xp.where(keep, a, xp.zeros((), dtype=a.dtype)))


cdef Variable _with_zero_dependence(Variable r, Variable x):
    # A piecewise-linear op's gradient r (relu's, abs's: the incoming gradient times a
    # constant mask or sign) under create_graph. torch's formula takes the saved x as an
    # operand (threshold_backward(g, y), g * sgn(x)), so its result requires grad when x
    # does, with a zero derivative: grad(grad(relu(x).sum(), x, create_graph=True)
    # .sum(), x) is zeros there, not an error. r gets that dependence even when it
    # already requires grad through the incoming gradient (a gradient penalty's critic
    # weights): torch's x.grad is then zeros, not None.
    if not _grad_enabled() or not _requires_grad_now(x):
        return r
    everywhere = _xp_of(x._data).ones(x._data.shape, dtype=numpy.bool_)
    return add(r, where_const(everywhere, 0, x))


cdef inline object _v_mul_in(object a, object b, object t):
    if _on_variables(a, b):
        return mul(a, b)
    return _ufunc2(_LOOP_MUL, a, b, t)


cdef inline object _v_sub(object a, object b):
    if _on_variables(a, b):
        return sub(a, b)
    return _scratch(_ufunc2(_LOOP_SUB, a, b, None))


cdef inline object _v_sub_in(object a, object b, object t):
    if _on_variables(a, b):
        return sub(a, b)
    return _ufunc2(_LOOP_SUB, a, b, t)


cdef inline object _v_div(object a, object b):
    if _on_variables(a, b):
        return div(a, b)
    return _scratch(_ufunc2(_LOOP_DIV, a, b, None))


cdef inline object _v_div_in(object a, object b, object t):
    if _on_variables(a, b):
        return div(a, b)
    return _ufunc2(_LOOP_DIV, a, b, t)


# Shape steps. Their array forms return views where NumPy does, as the ops do; the
# indices are never negative (the engine has wraparound off).

cdef inline object _v_array(object v):
    # A value's array (for its shape and dtype).
    if isinstance(v, Variable):
        return (<Variable>v)._data
    return v


cdef inline object _v_matmul(object a, object b):
    if _on_variables(a, b):
        return matmul(a, b)
    return _matmul_arrays(a, b)


cdef inline object _v_mT(object a):
    # The last two dimensions swapped (a matrix transposed, batched).
    cdef Py_ssize_t n
    if isinstance(a, Variable):
        return transpose(a, -1, -2)
    n = a.ndim
    return a.swapaxes(n - 2, n - 1)


cdef object _complex_parts(object re, object im, object dtype):
    # A complex array of `dtype` from its real and imaginary parts (arrays or numbers).
    xp = _xp_of(re) if not isinstance(re, (int, float)) else _xp_of(im)
    out = xp.empty(numpy.broadcast_shapes(getattr(re, "shape", ()), getattr(im, "shape", ())),
                   dtype=dtype)
    out.real = re
    out.imag = im
    return out


cdef object _c10_div(object ar, object ai, object c, object d, object dtype):
    # (ar + ai i) / (c + d i) the way torch's c10::complex divides (NumPy's scaled
    # algorithm, but a zero divisor gives ar/0 + (ai/0) i: inf + nan i for 1 / 0) --
    # parts as real arrays of the same precision (or numbers), a complex `dtype` result.
    xp = _xp_of(c)
    with numpy.errstate(all="ignore"):
        ac = xp.abs(c)
        ad = xp.abs(d)
        rat = d / c
        scl = 1.0 / (c + d * rat)
        re = (ar + ai * rat) * scl
        im = (ai - ar * rat) * scl
        rat2 = c / d
        scl2 = 1.0 / (d + c * rat2)
        big = ac >= ad
        re = xp.where(big, re, (ar * rat2 + ai) * scl2)
        im = xp.where(big, im, (ai * rat2 - ar) * scl2)
        zero = (ac == 0) & (ad == 0)
        re = xp.where(zero, ar / ac, re)
        im = xp.where(zero, ai / ad, im)
    return _complex_parts(re, im, dtype)


cdef object _complex_mul(object a, object b):
    # a * b for complex arrays as torch's vectorised loop: (ac - bd) + (ad + bc) i, no
    # fused multiply-add (NumPy's product of 1e308 (1 + i) with itself is -inf + inf i,
    # torch's nan + inf i)
    ar, ai, br, bi = a.real, a.imag, b.real, b.imag
    with numpy.errstate(all="ignore"):
        return _complex_parts(ar * br - ai * bi, ar * bi + ai * br, a.dtype)


cdef object _c10_reciprocal(object z):
    # 1 / z for a complex array, as torch's reciprocal (1 / 0 is inf + nan i)
    return _c10_div(1.0, 0.0, z.real, z.imag, z.dtype)


cdef object _complex_pow_by_number(object a, double e):
    # torch's pow_tensor_scalar kernel on complex input, for the exponents it special-
    # cases: sqrt for 0.5, 1 / sqrt for -0.5, reciprocal for -1, z z for 2, z z z for 3,
    # 1 / (z z) for -2 (so the signs of zeros and the infinities are torch's, not those
    # of pow()). None for any other exponent.
    xp = _xp_of(a)
    with numpy.errstate(all="ignore"):
        if e == 0.5:
            return xp.sqrt(a)
        if e == -0.5:
            return _c10_reciprocal(xp.sqrt(a))
        if e == -1.0:
            return _c10_reciprocal(a)
        if e == 2.0:
            return _complex_mul(a, a)
        if e == 3.0:
            return _complex_mul(_complex_mul(a, a), a)
        if e == -2.0:
            return _c10_reciprocal(_complex_mul(a, a))
    return None


cdef object _pow_by_number(object a, object c):
    # a ** c the way torch's CPU kernel computes it, where that is not pow(): for a
    # float32/float64 NumPy array and a real Python number c, x * x for 2, (x * x) * x
    # for 3, 1 / (x * x) for -2 and 1 / sqrt(x) for -0.5 (torch's
    # pow_tensor_scalar_optimized_kernel and its rsqrt), so the result is torch's bit
    # for bit (NumPy's pow differs in the last place for 3, -2 and -0.5) and cheaper
    # (NumPy's pow of a negative base to 3 takes a slow path: 3x the two multiplies).
    # None: no such form (the caller uses numpy.power).
    cdef int tn
    cdef double e
    if type(a) is not _NDARRAY:
        return None
    if not (type(c) is float or type(c) is int):
        if type(c) is complex and c.imag == 0 and (
                cnp.PyArray_TYPE(<cnp.ndarray>a) == cnp.NPY_CDOUBLE
                or cnp.PyArray_TYPE(<cnp.ndarray>a) == cnp.NPY_CFLOAT):
            return _complex_pow_by_number(a, c.real)    # (float_power's exponent)
        return None
    tn = cnp.PyArray_TYPE(<cnp.ndarray>a)
    if tn == cnp.NPY_CDOUBLE or tn == cnp.NPY_CFLOAT:
        if type(c) is int and not (-2 <= c <= 3):
            return None
        return _complex_pow_by_number(a, c)
    if tn != cnp.NPY_DOUBLE and tn != cnp.NPY_FLOAT:
        return None
    if type(c) is int and not (-2 <= c <= 3):
        return None                                 # (and no overflow converting it)
    e = c
    if e != 2.0 and e != 3.0 and e != -2.0 and e != -0.5:
        return None
    token = _fp_quiet_enter()                       # overflow, 1/0: inf, as pow's
    try:
        if e == -0.5:
            t = _scratch(_np_sqrt(a))
        else:
            t = _scratch(_ufunc2(_LOOP_MUL, a, a, None))
        if e == 3.0:
            _ufunc2(_LOOP_MUL, t, a, t)
        elif e < 0:
            _ufunc2(_LOOP_DIV, 1.0, t, t)
    finally:
        _fp_quiet_exit(token)
    return t


cdef inline object _v_pow(object a, object b):
    # (in the result dtype of the op, as the forward: torch's promotion, not NumPy's)
    cdef char kind
    if _on_variables(a, b):
        return pow(a, b)
    if type(a) is _NDARRAY and (type(b) is int or type(b) is float):
        kind = _dtype_kind(a)
        if kind == b'f' or kind == b'c':        # a float array to a number: the same
            t = _pow_by_number(a, b)            # dtype either way (x ** c's gradients)
            return t if t is not None else _scratch(_np_power(a, b))
    return _scratch(_apply_binary(_np_power, a, b, "pow"))


cdef inline object _v_exp(object a):
    if isinstance(a, Variable):
        return exp(a)
    return _scratch(_ufunc1(_LOOP_EXP, a, None))


cdef inline object _v_exp_in(object a, object t):
    if isinstance(a, Variable):
        return exp(a)
    return _ufunc1(_LOOP_EXP, a, t)


cdef inline object _v_log(object a):
    if isinstance(a, Variable):
        return log(a)
    return _scratch(_np_log(a))


cdef inline object _v_sum(object a, object dims):
    # Summed over dims (an int or a tuple), kept as size-1 dims.
    if isinstance(a, Variable):
        return sum(a, dims, True)
    return _sum_data(a, dims, True)


cdef inline object _v_softmax(object a, Py_ssize_t dim):
    if isinstance(a, Variable):
        return softmax(a, dim)
    return _softmax_data(a, dim)


cdef inline object _v_where_const(object mask, object value, object a):
    # `value` where mask is true, a elsewhere (a's dtype; the gradient flows to a).
    if isinstance(a, Variable):
        return where_const(mask, value, a)
    xp = _xp_of(a)
    return xp.where(mask, xp.asarray(value, dtype=a.dtype), a)


cdef inline object _v_astype(object a, object dtype):
    # a in dtype (recorded as a conversion on Variables); a itself when already so.
    if isinstance(a, Variable):
        if _same_dtype(_dtype((<Variable>a)._data), dtype):
            return a
        return _convert(<Variable>a, None, dtype, False)
    return a.astype(dtype, copy=False)


cdef inline object _v_reshape(object a, tuple shape):
    if isinstance(a, Variable):
        return _reshape(<Variable>a, shape, False)
    return a.reshape(shape)


cdef inline object _v_permute(object a, tuple dims):
    if isinstance(a, Variable):
        return permute(a, dims)
    return a.transpose(dims)


cdef inline object _v_narrow(object a, Py_ssize_t dim, Py_ssize_t start, Py_ssize_t length):
    if isinstance(a, Variable):
        return narrow(a, dim, start, length)
    return a[(slice(None),) * dim + (slice(start, start + length),)]


cdef inline object _v_getitem(object a, object key):
    # key: a key getitem has already normalised (_index_key)
    if isinstance(a, Variable):
        return getitem(a, key)
    if _is_basic_key(key):
        return _ensure_array(a[_with_ellipsis(key)])
    return _key_get(a, key)


cdef inline object _v_view(object fn, object a):
    # The view a _ViewFn (shape.pxi) takes; on an array a copy of it, which the
    # gradient owns (torch's CopySlices clones the view of its gradient too).
    if isinstance(a, Variable):
        return (<_ViewFn>fn).apply(<Variable>a)
    return (<_ViewFn>fn).apply(_wrap(a))._data.copy()


cdef inline object _v_broadcast_to(object a, tuple shape):
    if isinstance(a, Variable):
        return broadcast_to(a, shape)
    return _broadcast_data(a, shape)


cdef inline object _v_sum_to(object a, tuple shape):
    if isinstance(a, Variable):
        return sum_to(a, shape)
    return _sum_to_data(a, shape)


cdef inline object _v_reduce(object a, tuple shape, object dtype):
    # An input's gradient: summed to its shape over broadcast dims (shape None: no
    # reduction), cast to its dtype (None: kept).
    if isinstance(a, Variable):
        return _reduce_grad(<Variable>a, shape, dtype)
    return _reduce_data(a, shape, dtype)


cdef inline object _v_zero_where(object a, object zero):
    # a with 0 where the bool array `zero` is true (a constant mask)
    if isinstance(a, Variable):
        return where_const(zero, 0.0, a)
    return _zero_where_data(a, zero)


cdef inline object _reduce_data(object data, tuple shape, object dtype):
    # The array form of _reduce_grad: sum over broadcast dims, cast to the input dtype.
    if shape is not None and not _has_shape(data, shape):
        data = _sum_to_data(data, shape)
    if dtype is not None and not _same_dtype(_dtype(data), dtype):
        if _dtype_kind(data) == b'c' and numpy.dtype(dtype).kind != 'c':
            data = data.real                # a real input's gradient: the real part
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
    if _is_reduced_float(data):
        # float16/bfloat16 summed in float32 and rounded once, as torch's sum_to_size
        return _sum_data(data, tuple(axes), True, numpy.float32).astype(data.dtype).reshape(
            shape)
    return _sum_data(data, tuple(axes), True).reshape(shape)


# -- conversions ------------------------------------------------------------------

cdef class ToCopyBackward(Node):
    cdef object input_dtype
    cdef object input_device

    cdef tuple _backward(self, tuple grads):
        return (_grad_as(grads[0], self.input_device, self.input_dtype),)


cdef class CloneBackward(Node):
    # clone() (and contiguous() when it copies): the gradient passes through as it is
    cdef tuple _backward(self, tuple grads):
        return (grads[0],)


cdef Variable _cloned(Variable x, object data):
    # x's differentiable copy whose memory is ``data``: torch's CloneBackward0
    if _records(x) and _is_float_dtype(data.dtype):
        return _recorded1(CloneBackward.__new__(CloneBackward), data, _edge(x))
    return _plain(data, x._volatile)


cdef object _dense(object v):
    # v (a Variable or an array) itself when C-contiguous, else a C-contiguous copy
    # (differentiable for a Variable: Variable.contiguous()); also for gradients torch
    # computes into fresh memory where pyad's formula ends in a slice of a larger buffer.
    if isinstance(v, Variable):
        d = (<Variable>v)._data
        return v if d.flags.c_contiguous else _cloned(<Variable>v, d.copy())
    return v if v.flags.c_contiguous else v.copy()


cdef Variable _grad_as(Variable g, object dev, object dtype):
    # A gradient converted to its input's dtype: the real part for a real input
    # (torch), without NumPy's ComplexWarning.
    if (dtype is not None and _dtype_kind(g._data) == b'c'
            and numpy.dtype(dtype).kind != 'c'):
        g = real(g)
    return _convert(g, dev, dtype, False)


cdef Variable _convert(Variable x, object dev, object dtype, bint copy, object layout=None):
    # layout: a dimension order (outermost first) the result's memory must be dense in
    data = x._data
    if dtype is not None:
        dtype = numpy.dtype(dtype)
    if dev is not None:
        data = _move_to_device(data, dev)
    if dtype is not None and data.dtype != dtype:
        token = _fp_quiet_enter()   # (nan, inf or too large for the dtype: silent, as torch)
        try:
            data = data.astype(dtype)
        finally:
            _fp_quiet_exit(token)
    if layout is not None and not _suggests_layout(data, layout):
        data = _in_layout(data, layout)
    if data is x._data:
        if not copy:
            return x
        data = data.copy()
    cdef ToCopyBackward node
    if _records(x) and _is_float_dtype(data.dtype):
        node = ToCopyBackward.__new__(ToCopyBackward)
        node.input_dtype = x._data.dtype
        node.input_device = str(x.device)
        return _recorded1(node, data, _edge(x))
    return _plain(data, x._volatile)


# -- ops torch has no complex kernel for --------------------------------------------

cdef inline bint _is_complex_operand(object x):
    if isinstance(x, Variable):
        return _dtype_kind((<Variable>x)._data) == b'c'
    if isinstance(x, complex):
        return True
    dtype = getattr(x, "dtype", None)
    return isinstance(dtype, numpy.dtype) and dtype.kind == 'c'


cdef inline void _refuse_complex(object a, object b, str what) except *:
    # Orderings, rounding and the like have no complex meaning (torch raises too,
    # NotImplementedError or RuntimeError; NotImplementedError is a RuntimeError).
    if _is_complex_operand(a) or (b is not None and _is_complex_operand(b)):
        raise NotImplementedError("%s(): does not support complex input" % what)
