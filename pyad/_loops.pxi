# NumPy's own inner loops, called directly on small arrays (issue 19 item 1).
#
# A ufunc call on an (8,) float64 array costs about 380 ns, and the loop that does the
# arithmetic about 10 of them: the rest is NumPy's argument parsing, dtype promotion and
# loop lookup, the output's allocation and the floating-point error check. In the hot
# elementwise ops the engine has already settled what that work decides. For them, on
# small exact C-contiguous, aligned, native float32/float64 arrays of one shape (or one
# such array and a Python float or int), the engine takes the loop NumPy itself picks,
# looked up once per (ufunc, dtype) through NumPy's interface for JIT compilers
# (ufunc._resolve_dtypes_and_context and ufunc._get_strided_loop, the ones Numba uses),
# and calls it: the same code, so the same bits. A loop that raises a floating-point flag
# (invalid, divide by zero, overflow, underflow) has its result dropped, and the caller
# calls the ufunc, which warns or raises as np.errstate says. Everything else (bigger
# arrays, other dtypes or layouts, CuPy, a NumPy without the interface) gets None back,
# and the caller calls the ufunc as before.

from cpython.pycapsule cimport PyCapsule_GetPointer
from cpython.long cimport PyLong_AsLongLongAndOverflow
from cpython.float cimport PyFloat_AS_DOUBLE
from cpython.exc cimport PyErr_Clear
from libc.string cimport memcpy, memset
from libc.math cimport isinf as _c_isinf

cdef extern from *:
    """
    /* NumPy's ufunc call info, capsule "numpy_1.24_ufunc_call_info" (documented in
       ufunc._get_strided_loop's docstring); a NumPy that changes it renames the capsule. */
    typedef int (*pyad_strided_loop)(void *context, char *const *data,
                                     const Py_ssize_t *dimensions,
                                     const Py_ssize_t *strides, void *auxdata);
    typedef struct {
        pyad_strided_loop strided_loop;
        void *context;
        void *auxdata;
        unsigned char requires_pyapi;
        unsigned char no_floatingpoint_errors;
    } pyad_ufunc_call_info;

    #if defined(__x86_64__) || defined(_M_X64)
    #include <xmmintrin.h>
    /* The SSE status register's sticky flags NumPy reports: invalid 0x01,
       divide-by-zero 0x04, overflow 0x08, underflow 0x10. */
    static inline void pyad_fpe_clear(void) {
        unsigned int csr = _mm_getcsr();
        if (csr & 0x1Du) _mm_setcsr(csr & ~0x1Du);
    }
    static inline int pyad_fpe_raised(void) { return (_mm_getcsr() & 0x1Du) != 0; }
    /* torch.set_flush_denormal: flush-to-zero (0x8000) and denormals-are-zero (0x40) */
    static int pyad_set_flush_denormal(int on) {
        unsigned int csr = _mm_getcsr();
        _mm_setcsr(on ? (csr | 0x8040u) : (csr & ~0x8040u));
        return 1;
    }
    #else
    static int pyad_set_flush_denormal(int on) { (void)on; return 0; }
    #include <fenv.h>
    #define PYAD_FPE_FLAGS (FE_INVALID | FE_DIVBYZERO | FE_OVERFLOW | FE_UNDERFLOW)
    static inline void pyad_fpe_clear(void) { feclearexcept(PYAD_FPE_FLAGS); }
    static inline int pyad_fpe_raised(void) { return fetestexcept(PYAD_FPE_FLAGS) != 0; }
    #endif
    """
    ctypedef int (*pyad_strided_loop)(void *context, char **data,
                                      const Py_ssize_t *dimensions,
                                      const Py_ssize_t *strides, void *auxdata) noexcept
    ctypedef struct pyad_ufunc_call_info:
        pyad_strided_loop strided_loop
        void *context
        void *auxdata
        unsigned char requires_pyapi
        unsigned char no_floatingpoint_errors
    void pyad_fpe_clear() noexcept nogil
    int pyad_set_flush_denormal(int on) noexcept nogil
    bint pyad_fpe_raised() noexcept nogil


cdef enum:
    _LOOP_ADD = 0
    _LOOP_SUB = 1
    _LOOP_MUL = 2
    _LOOP_DIV = 3
    _LOOP_NEG = 4
    _LOOP_TANH = 5
    _LOOP_EXP = 6
    _LOOP_LOG = 7
    _LOOP_SQRT = 8
    _LOOP_MAXIMUM = 9
    _LOOP_OPS = 10

# Up to this many elements; above it the loop's own time dwarfs the ufunc's overhead,
# and NumPy releases the GIL around long loops, which a direct call would not.
cdef Py_ssize_t _LOOP_MAX_SIZE = 4096

cdef pyad_ufunc_call_info* _loop_table[_LOOP_OPS][2]   # [op][0: float64, 1: float32]
cdef list _loop_capsules = []          # keeps the capsules (and NumPy's loop data) alive
cdef tuple _LOOP_UFUNCS = (numpy.add, numpy.subtract, numpy.multiply, numpy.true_divide,
                           numpy.negative, numpy.tanh, numpy.exp, numpy.log, numpy.sqrt,
                           numpy.maximum)


cdef int _loops_init() except -1:
    # Fill _loop_table; an entry NumPy cannot give stays NULL (that op takes the ufunc).
    cdef pyad_ufunc_call_info* info
    for op in range(_LOOP_OPS):
        _loop_table[op][0] = _loop_table[op][1] = NULL
    for op in range(_LOOP_OPS):
        ufunc = _LOOP_UFUNCS[op]
        for k, dt in enumerate((numpy.dtype(numpy.float64), numpy.dtype(numpy.float32))):
            try:
                dtypes, capsule = ufunc._resolve_dtypes_and_context(
                    (dt,) * ufunc.nin + (None,))
                if any(d != dt for d in dtypes):
                    continue
                ufunc._get_strided_loop(capsule)
                info = <pyad_ufunc_call_info*>PyCapsule_GetPointer(
                    capsule, b"numpy_1.24_ufunc_call_info")
            except Exception:       # an older or newer NumPy: the ufunc path only
                continue
            if info == NULL or info.strided_loop == NULL or info.requires_pyapi:
                continue
            _loop_capsules.append(capsule)
            _loop_table[op][k] = info
    return 0


def _set_flush_denormal(mode):
    """torch.set_flush_denormal on the calling thread: True where the CPU's flush-to-zero
    and denormals-are-zero bits could be set or cleared (x86-64), False elsewhere."""
    return bool(pyad_set_flush_denormal(1 if mode else 0))


def _direct_loops():
    """The ops whose small-array calls take NumPy's loop directly, as a set of
    (ufunc name, dtype name): a test probe."""
    names = [u.__name__ for u in _LOOP_UFUNCS]
    return {(names[op], dt) for op in range(_LOOP_OPS)
            for k, dt in enumerate(("float64", "float32")) if _loop_table[op][k] != NULL}


cdef inline int _loop_kind(cnp.ndarray a) noexcept:
    # 0 (float64) or 1 (float32) for a small C-contiguous, aligned, native array of
    # either; -1 for anything else.
    cdef int tn = cnp.PyArray_TYPE(a)
    cdef int k
    if tn == cnp.NPY_DOUBLE:
        k = 0
    elif tn == cnp.NPY_FLOAT:
        k = 1
    else:
        return -1
    if not (cnp.PyArray_IS_C_CONTIGUOUS(a) and cnp.PyArray_ISALIGNED(a)
            and cnp.PyArray_ISNOTSWAPPED(a)) or cnp.PyArray_SIZE(a) > _LOOP_MAX_SIZE:
        return -1
    return k


cdef inline bint _same_kind_and_dims(object b, cnp.ndarray a, int k) noexcept:
    # b is an exact ndarray like a (see _loop_kind) of a's shape.
    return type(b) is _NDARRAY and _loop_kind(<cnp.ndarray>b) == k and _same_layout(b, a)


cdef inline bint _loop_scalar(object s, int k, double* d, float* f) noexcept:
    # A Python float or int as the loop's operand, converted as NumPy converts a weak
    # scalar (NEP 50): False where that conversion is not exact or may warn (an int
    # beyond 2**53, 2**24 for float32; a float beyond float32's range), which the
    # ufunc then does.
    cdef long long i
    cdef int overflow = 0
    if type(s) is float:
        d[0] = PyFloat_AS_DOUBLE(s)
    elif type(s) is int:
        i = PyLong_AsLongLongAndOverflow(s, &overflow)
        if overflow:
            return False
        if i > 9007199254740992LL or i < -9007199254740992LL or \
                (k == 1 and (i > 16777216 or i < -16777216)):
            return False
        d[0] = <double>i
    else:
        return False
    if k == 1:
        f[0] = <float>d[0]
        if _c_isinf(f[0]) and not _c_isinf(d[0]):
            return False
    return True


cdef inline bint _overlaps(cnp.ndarray out, object x, Py_ssize_t nbytes) noexcept:
    # Does out share memory with the array operand x (same size, both C-contiguous)?
    cdef char* p
    cdef char* q
    if type(x) is not _NDARRAY:
        return False
    p = cnp.PyArray_BYTES(out)
    q = cnp.PyArray_BYTES(<cnp.ndarray>x)
    return p < q + nbytes and q < p + nbytes


cdef object _loop_run(pyad_ufunc_call_info* info, int nin, char** data,
                      Py_ssize_t* strides, cnp.ndarray like, int k, object out, object a,
                      object b, bint quiet):
    # Runs the loop into `out` (None: a fresh array of like's shape), with data[0..nin-1]
    # and strides[0..nin-1] set for its nin inputs a (and b); the result, or None (the
    # caller calls the ufunc).
    # quiet: the caller wants no warning either way (_fp_quiet_enter's state), so the
    # flags are not read.
    cdef Py_ssize_t n = cnp.PyArray_SIZE(like)
    cdef Py_ssize_t itemsize = 8 if k == 0 else 4
    cdef cnp.ndarray res, target = None
    if out is not None:
        if type(out) is not _NDARRAY or not _same_kind_and_dims(out, like, k) or \
                not cnp.PyArray_ISWRITEABLE(<cnp.ndarray>out):
            return None
        target = <cnp.ndarray>out
        if not quiet and _overlaps(target, a, n * itemsize) or \
                not quiet and nin == 2 and _overlaps(target, b, n * itemsize):
            # In place: the result goes to a fresh array first, so that a flag raised
            # leaves the inputs as they were for the ufunc's second try.
            res = cnp.PyArray_EMPTY(cnp.PyArray_NDIM(like), cnp.PyArray_DIMS(like),
                                    cnp.PyArray_TYPE(like), 0)
        else:
            res = target
            target = None
    else:
        res = cnp.PyArray_EMPTY(cnp.PyArray_NDIM(like), cnp.PyArray_DIMS(like),
                                cnp.PyArray_TYPE(like), 0)
    data[nin] = cnp.PyArray_BYTES(res)
    strides[nin] = itemsize
    pyad_fpe_clear()
    if info.strided_loop(info.context, data, &n, strides, info.auxdata) < 0:
        PyErr_Clear()                 # (NumPy's float loops never fail: the ufunc decides)
        return None
    if not quiet and pyad_fpe_raised():
        return None
    if target is not None:
        memcpy(cnp.PyArray_BYTES(target), cnp.PyArray_BYTES(res), n * itemsize)
        return target
    return res


cdef object _loop2(int op, object a, object b, object out):
    # op(a, b) (into out when not None) through NumPy's loop, or None: see the top.
    cdef cnp.ndarray like
    cdef int k
    cdef pyad_ufunc_call_info* info
    cdef char* data[3]
    cdef Py_ssize_t strides[3]
    cdef double sd
    cdef float sf
    if type(a) is _NDARRAY:
        like = <cnp.ndarray>a
    elif type(b) is _NDARRAY:
        like = <cnp.ndarray>b
    else:
        return None
    k = _loop_kind(like)
    if k < 0:
        return None
    info = _loop_table[op][k]
    if info == NULL:
        return None
    if type(a) is _NDARRAY:
        data[0] = cnp.PyArray_BYTES(<cnp.ndarray>a)
        strides[0] = 8 if k == 0 else 4
        if type(b) is _NDARRAY:
            if b is not a and not _same_kind_and_dims(b, like, k):
                if out is None:
                    return _loop2_broadcast(info, k, <cnp.ndarray>a, <cnp.ndarray>b)
                return None
            data[1] = cnp.PyArray_BYTES(<cnp.ndarray>b)
            strides[1] = strides[0]
        elif _loop_scalar(b, k, &sd, &sf):
            data[1] = <char*>&sd if k == 0 else <char*>&sf
            strides[1] = 0
        else:
            return None
    elif _loop_scalar(a, k, &sd, &sf):
        data[0] = <char*>&sd if k == 0 else <char*>&sf
        strides[0] = 0
        data[1] = cnp.PyArray_BYTES(like)
        strides[1] = 8 if k == 0 else 4
    else:
        return None
    return _loop_run(info, 2, data, strides, like, k, out, a, b, False)


# Two arrays of different shapes run as one loop call per block of the larger one:
# `outer` blocks of `inner` elements, the smaller operand either repeated whole under
# each block (a row: (m, n) with (n,), or (1, n)) or one element per block (a column:
# (m, n) with (m, 1)); a one-element operand is a scalar (stride 0, one call). Up to
# this many blocks: more calls than that cost more than the ufunc's own iteration.
cdef Py_ssize_t _LOOP_MAX_BLOCKS = 64


cdef inline Py_ssize_t _aligned_dim(cnp.ndarray small, int nd, int i) noexcept:
    # small's size along dim i of an nd-dim broadcast (its dims aligned to the right).
    cdef int lead = nd - cnp.PyArray_NDIM(small)
    return 1 if i < lead else cnp.PyArray_DIMS(small)[i - lead]


cdef object _loop2_broadcast(pyad_ufunc_call_info* info, int k, cnp.ndarray a,
                             cnp.ndarray b):
    # op(a, b) for two arrays that broadcast as a row, a column or a scalar (see above),
    # through NumPy's loop; None for anything else.
    cdef cnp.ndarray full, small, res
    cdef int nd, i, j, fi, si
    cdef Py_ssize_t outer = 1, inner = 1, n, itemsize = 8 if k == 0 else 4
    cdef bint row
    cdef char* data[3]
    cdef Py_ssize_t strides[3]
    cdef cnp.npy_intp* fd
    if _loop_kind(a) != k or _loop_kind(b) != k:
        return None
    if cnp.PyArray_SIZE(a) >= cnp.PyArray_SIZE(b):
        full, small, fi = a, b, 0
    else:
        full, small, fi = b, a, 1
    si = 1 - fi
    nd = cnp.PyArray_NDIM(full)
    if cnp.PyArray_NDIM(small) > nd:
        return None
    fd = cnp.PyArray_DIMS(full)
    if cnp.PyArray_SIZE(small) == 1:
        row = False                             # a scalar: one call, stride 0
        inner = cnp.PyArray_SIZE(full)
        outer = 1
    else:
        j = nd                                  # row: small == full's trailing dims
        while j > 0 and _aligned_dim(small, nd, j - 1) == fd[j - 1]:
            j -= 1
        row = True
        for i in range(j):
            if _aligned_dim(small, nd, i) != 1:
                row = False
                break
        if not row:                             # column: full's leading dims, then 1s
            j = 0
            while j < nd and _aligned_dim(small, nd, j) == fd[j]:
                j += 1
            for i in range(j, nd):
                if _aligned_dim(small, nd, i) != 1:
                    return None
        for i in range(j):
            outer *= fd[i]
        for i in range(j, nd):
            inner *= fd[i]
    if outer > _LOOP_MAX_BLOCKS:
        return None
    res = cnp.PyArray_EMPTY(nd, fd, cnp.PyArray_TYPE(full), 0)
    strides[fi] = itemsize
    strides[si] = itemsize if row else 0
    strides[2] = itemsize
    pyad_fpe_clear()
    for i in range(outer):
        data[fi] = cnp.PyArray_BYTES(full) + i * inner * itemsize
        data[si] = cnp.PyArray_BYTES(small) + (0 if row else i * itemsize)
        data[2] = cnp.PyArray_BYTES(res) + i * inner * itemsize
        n = inner
        if info.strided_loop(info.context, data, &n, strides, info.auxdata) < 0:
            PyErr_Clear()
            return None
    if pyad_fpe_raised():
        return None
    return res


cdef object _loop1(int op, object a, object out, bint quiet):
    # op(a) (into out when not None) through NumPy's loop, or None: see the top.
    # quiet: as if under _fp_quiet_enter (no warning, whatever the flags).
    cdef int k
    cdef pyad_ufunc_call_info* info
    cdef char* data[2]
    cdef Py_ssize_t strides[2]
    if type(a) is not _NDARRAY:
        return None
    k = _loop_kind(<cnp.ndarray>a)
    if k < 0:
        return None
    info = _loop_table[op][k]
    if info == NULL:
        return None
    data[0] = cnp.PyArray_BYTES(<cnp.ndarray>a)
    strides[0] = 8 if k == 0 else 4
    return _loop_run(info, 1, data, strides, <cnp.ndarray>a, k, out, a, None, quiet)


cdef object _ufunc2(int op, object a, object b, object out):
    # The ufunc _LOOP_UFUNCS[op] applied to (a, b) (into out when not None), through
    # NumPy's loop where _loop2 can, else through the ufunc.
    r = _loop2(op, a, b, out)
    if r is None:
        ufunc = _LOOP_UFUNCS[op]
        r = ufunc(a, b) if out is None else ufunc(a, b, out)
    return r


cdef object _ufunc1(int op, object a, object out):
    r = _loop1(op, a, out, False)
    if r is None:
        ufunc = _LOOP_UFUNCS[op]
        r = ufunc(a) if out is None else ufunc(a, out)
    return r


cdef object _quiet_ufunc1(int op, object a):
    # _quiet1(_LOOP_UFUNCS[op], a): the ufunc with NumPy's warnings off (an op's domain
    # edge, as log(0) = -inf), through NumPy's loop where _loop1 can.
    r = _loop1(op, a, None, True)
    if r is None:
        r = _quiet1(_LOOP_UFUNCS[op], a)
    return r


_loops_init()


# -- small reductions: sum and max over the last or the first dim -------------------
#
# add.reduce and maximum.reduce cost 1.5-4 us on a (64, 10) array, nearly all of it
# NumPy's reduction set-up (the iterator, the output, the initial value), more than a
# log_softmax's whole arithmetic. On a C-contiguous, aligned, native float array the
# engine runs the reduction's inner loop calls itself, with NumPy's own loop and the
# same calls NumPy makes, so the same bits:
# - over the last dim, one call per row in NumPy's reduce form (the output is both the
#   first input and the output, strides 0): add starts from 0 (the identity, as NumPy:
#   a sum of -0.0s is +0.0) and sums the row pairwise inside the loop; maximum starts
#   from the row's first element and runs over the rest;
# - over the first dim of an (m, n) array with n > 1 (the rest of the dims flattened),
#   the output row updated elementwise by each input row in order (add from zeros,
#   maximum from the first row). With n == 1 the array is one column, which NumPy
#   reduces as a row (pairwise): the first case.
# A floating-point flag raised (an overflowing sum) drops the result, and the caller
# calls NumPy, which warns as np.errstate says. Up to this many elements (the loop calls
# hold the GIL, which NumPy releases around long loops):
cdef Py_ssize_t _REDUCE_MAX_SIZE = 65536


cdef object _loop_reduce(int op, object a, object axis, bint keepdims):
    # a summed (op _LOOP_ADD) or maximised (_LOOP_MAXIMUM) over axis (an int or a
    # 1-tuple) through NumPy's loop, or None (the caller calls the ufunc's reduce).
    # Only where the result keeps at least one dim (NumPy returns a scalar otherwise).
    cdef cnp.ndarray x, res
    cdef int nd, k, tn, d, i
    cdef Py_ssize_t rows, n, r, itemsize
    cdef pyad_ufunc_call_info* info
    cdef char* data[3]
    cdef Py_ssize_t strides[3]
    cdef cnp.npy_intp dims[32]
    cdef Py_ssize_t count
    if type(a) is not _NDARRAY:
        return None
    x = <cnp.ndarray>a
    nd = cnp.PyArray_NDIM(x)
    if nd == 0 or nd > 32 or (nd == 1 and not keepdims):
        return None
    if type(axis) is tuple:
        if len(<tuple>axis) != 1:
            return None
        axis = (<tuple>axis)[0]
    if type(axis) is not int:
        return None
    d = <int>axis if -nd <= axis < nd else -100
    if d == -100:
        return None
    if d < 0:
        d += nd
    tn = cnp.PyArray_TYPE(x)
    if tn == cnp.NPY_DOUBLE:
        k, itemsize = 0, 8
    elif tn == cnp.NPY_FLOAT:
        k, itemsize = 1, 4
    else:
        return None
    if not (cnp.PyArray_IS_C_CONTIGUOUS(x) and cnp.PyArray_ISALIGNED(x)
            and cnp.PyArray_ISNOTSWAPPED(x)):
        return None
    count = cnp.PyArray_SIZE(x)
    if count == 0 or count > _REDUCE_MAX_SIZE:
        return None
    info = _loop_table[op][k]
    if info == NULL:
        return None
    for i in range(nd):
        dims[i] = cnp.PyArray_DIMS(x)[i]
    n = count // dims[d]                    # the elements of one output
    if d != nd - 1 and not (d == 0 and n > 1):
        return None
    if keepdims:                            # the output's dims (same layout either way)
        dims[d] = 1
    else:
        for i in range(d, nd - 1):
            dims[i] = dims[i + 1]
    res = cnp.PyArray_EMPTY(nd if keepdims else nd - 1, dims, tn, 0)
    pyad_fpe_clear()
    if d == nd - 1 or n == 1:               # rows (or one column): NumPy's reduce form
        n = cnp.PyArray_DIMS(x)[d]
        rows = count // n
        strides[0] = strides[2] = 0
        strides[1] = itemsize
        for r in range(rows):
            data[0] = data[2] = cnp.PyArray_BYTES(res) + r * itemsize
            data[1] = cnp.PyArray_BYTES(x) + r * n * itemsize
            count = n
            if op == _LOOP_ADD:
                memset(data[0], 0, itemsize)
            else:
                memcpy(data[0], data[1], itemsize)
                data[1] += itemsize
                count = n - 1
            if count and info.strided_loop(info.context, data, &count, strides,
                                           info.auxdata) < 0:
                PyErr_Clear()
                return None
    else:                                   # the first dim of (m, n): row by row
        rows = cnp.PyArray_DIMS(x)[0]
        strides[0] = strides[1] = strides[2] = itemsize
        data[0] = data[2] = cnp.PyArray_BYTES(res)
        if op == _LOOP_ADD:
            memset(data[0], 0, n * itemsize)
            r = 0
        else:
            memcpy(data[0], cnp.PyArray_BYTES(x), n * itemsize)
            r = 1
        while r < rows:
            data[1] = cnp.PyArray_BYTES(x) + r * n * itemsize
            count = n
            if info.strided_loop(info.context, data, &count, strides, info.auxdata) < 0:
                PyErr_Clear()
                return None
            r += 1
    if pyad_fpe_raised():
        return None
    return res


cdef inline int _loop_op(object ufunc):
    # The _LOOP_* code of one of the table's binary ufuncs, or -1.
    if ufunc is _LOOP_UFUNCS[_LOOP_MUL]:
        return _LOOP_MUL
    if ufunc is _LOOP_UFUNCS[_LOOP_ADD]:
        return _LOOP_ADD
    if ufunc is _LOOP_UFUNCS[_LOOP_SUB]:
        return _LOOP_SUB
    if ufunc is _LOOP_UFUNCS[_LOOP_DIV]:
        return _LOOP_DIV
    return -1
