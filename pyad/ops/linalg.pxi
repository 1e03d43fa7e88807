# Linear algebra.


cdef class MatmulBackward(Node):
    cdef SavedVariable a
    cdef SavedVariable b

    cdef tuple _backward(self, tuple grads):
        # g b^T and a^T g. A 1-D a is taken as a row and a 1-D b as a column, so one
        # formula covers vector, matrix and batched products; _v_reduce sums away the
        # batch dims that broadcast and casts to the operand's dtype.
        cdef bint rec = _grad_enabled()
        g = _gv(grads[0], rec)
        a = _sv(self.a, self, rec)
        b = _sv(self.b, self, rec)
        ad = _v_array(a)
        bd = _v_array(b)
        a_shape = ad.shape
        b_shape = bd.shape
        cdef Py_ssize_t na = len(a_shape), nb = len(b_shape)
        if na == 1 or nb == 1:                      # g with their size-1 dims put back
            gs = _v_array(g).shape
            k = len(gs) - (nb > 1)                  # the dim of the rows of a
            if na == 1:
                a = _v_reshape(a, (1,) + a_shape)
                gs = gs[:k] + (1,) + gs[k:]
            if nb == 1:
                b = _v_reshape(b, b_shape + (1,))
                gs = gs + (1,)
            g = _v_reshape(g, gs)
        ga = gb = None
        if self._needs_input_grad(0):
            ga = _v_reduce(_v_matmul(g, _v_mT(b)), _v_array(a).shape, ad.dtype)
            if na == 1:
                ga = _v_reshape(ga, a_shape)
            ga = _grad(ga)
        if self._needs_input_grad(1):
            gb = _v_reduce(_v_matmul(_v_mT(a), g), _v_array(b).shape, bd.dtype)
            if nb == 1:
                gb = _v_reshape(gb, b_shape)
            gb = _grad(gb)
        return (ga, gb)

    cdef void _release_saved(self) noexcept:
        self._released = True
        self.a.release()
        self.b.release()


# torch's names for the products matmul dispatches to (one formula, pyad's MatmulBackward)
cdef class MmBackward(MatmulBackward):
    pass


cdef class MvBackward(MatmulBackward):
    pass


cdef class DotBackward(MatmulBackward):
    pass


cdef class BmmBackward(MatmulBackward):
    pass


cdef class _MatmulSqueezeBackward(MatmulBackward):
    # a vector times a matrix: torch's unsqueeze, mm, squeeze
    def name(self):
        return _display_name_or(self, "SqueezeBackward")


cdef class _MatmulUnsafeViewBackward(MatmulBackward):
    # batched operands: torch folds them into one mm and views the result back
    def name(self):
        return _display_name_or(self, "UnsafeViewBackward")


_CPP_SCALAR_NAMES = {"float32": "float", "float64": "double", "float16": "c10::Half",
                     "bfloat16": "c10::BFloat16", "int64": "long int", "int32": "int",
                     "int16": "short int", "int8": "signed char", "uint8": "unsigned char",
                     "bool": "bool", "complex64": "c10::complex<float>",
                     "complex128": "c10::complex<double>"}


cdef str _cpp_scalar_name(object dtype):
    # the C++ type torch's "expected m1 and m2 to have the same dtype" message names
    return _CPP_SCALAR_NAMES.get(str(dtype), str(dtype))


@profiled_op
cpdef Variable matmul(object input, object other, object out=None):
    """Matrix product with NumPy's rules (1-D vectors, batched broadcasting).

    >>> matmul(Variable(numpy.eye(2)), Variable(numpy.array([1., 2.])))
    tensor([1., 2.], dtype=float64)
    """
    if out is not None: return _write_out("matmul", out, matmul(input, other), _OUT_EXACT)
    cdef Variable a = _as_variable(input, "matmul")
    cdef Variable b = _as_variable(other, "matmul")
    if a._data.ndim == 0 or b._data.ndim == 0:
        raise RuntimeError("matmul(): both arguments need to be at least 1D, but they are %dD "
                           "and %dD" % (a._data.ndim, b._data.ndim))
    if a._data.ndim == 1 and b._data.ndim == 1:
        # torch's dot: one dtype, and no bool kernel
        if not _same_dtype(_dtype(a._data), _dtype(b._data)):
            raise RuntimeError("matmul(): dot : expected both vectors to have same dtype, but "
                               "found %s and %s" % (_torch_dtype_name(_dtype(a._data)),
                                                    _torch_dtype_name(_dtype(b._data))))
        if _dtype_kind(a._data) == b'b':
            _no_kernel("matmul", "dot", "bool")
    elif not _same_dtype(_dtype(a._data), _dtype(b._data)):
        # torch's GEMMs take one dtype: no promotion
        raise RuntimeError("matmul(): expected m1 and m2 to have the same dtype, but got: "
                           "%s != %s" % (_cpp_scalar_name(a._data.dtype),
                                         _cpp_scalar_name(b._data.dtype)))
    token = _fp_quiet_enter()                           # (overflow: no warning)
    try:
        data = _matmul_arrays(a._data, b._data)
    except ValueError:
        raise RuntimeError("matmul(): shapes %s and %s cannot be multiplied"
                           % (_shape_str(a._data.shape), _shape_str(b._data.shape))) from None
    except TypeError:
        _check_same_device(a._data, b._data, "matmul")
        raise
    finally:
        _fp_quiet_exit(token)
    cdef MatmulBackward node
    cdef Py_ssize_t na = a._data.ndim, nb = b._data.ndim
    if (a._requires_grad or b._requires_grad) and _grad_enabled() and not (
            a._volatile or b._volatile):
        # the node takes torch's name for the product matmul dispatches to
        if na == 2 and nb == 2:
            node = MmBackward.__new__(MmBackward)
        elif na == 1 and nb == 1:
            node = DotBackward.__new__(DotBackward)
        elif na == 2 and nb == 1:
            node = MvBackward.__new__(MvBackward)
        elif na == 1:
            node = _MatmulSqueezeBackward.__new__(_MatmulSqueezeBackward)
        else:
            node = _MatmulUnsafeViewBackward.__new__(_MatmulUnsafeViewBackward)
        node.a = _save(a, False, 0)
        node.b = _save(b, False, 1)
        return _recorded2(node, data, _edge(a), _edge(b))
    return _plain(data, a._volatile or b._volatile)


@profiled_op
def mm(input, mat2, *, out=None):
    """Matrix product of two 2-D Variables.

    >>> mm(Variable(numpy.eye(2) * 2), Variable(numpy.ones((2, 1))))
    tensor([[2.],
            [2.]], dtype=float64)
    """
    if out is not None: return _write_out("mm", out, mm(input, mat2), _OUT_EXACT)
    if _as_variable(input, "mm")._data.ndim != 2 or _as_variable(mat2, "mm")._data.ndim != 2:
        raise RuntimeError("mm(): both arguments must be 2D")
    return matmul(input, mat2)



@profiled_op
def bmm(input, mat2, *, out=None):
    """Batched matrix product of two 3-D Variables with the same batch size.

    >>> bmm(Variable(numpy.ones((2, 1, 3))), Variable(numpy.ones((2, 3, 1)))).shape
    (2, 1, 1)
    """
    if out is not None: return _write_out("bmm", out, bmm(input, mat2), _OUT_EXACT)
    cdef Variable a = _as_variable(input, "bmm")
    cdef Variable b = _as_variable(mat2, "bmm")
    if a._data.ndim != 3 or b._data.ndim != 3:
        raise RuntimeError("bmm(): expected 3-D tensors, got %dD and %dD"
                           % (a._data.ndim, b._data.ndim))
    if a._data.shape[0] != b._data.shape[0] or a._data.shape[2] != b._data.shape[1]:
        raise RuntimeError("bmm(): shapes %s and %s cannot be multiplied (batch sizes must "
                           "be equal and the inner sizes match)"
                           % (_shape_str(a._data.shape), _shape_str(b._data.shape)))
    out = matmul(a, b)
    _retype_node(out, None, MatmulBackward, BmmBackward)
    return out


@profiled_op
def mv(input, vec, *, out=None):
    """Product of a matrix (2-D) and a vector (1-D).

    >>> mv(Variable(numpy.eye(2)), Variable(numpy.array([3., 4.])))
    tensor([3., 4.], dtype=float64)
    """
    if out is not None: return _write_out("mv", out, mv(input, vec), _OUT_EXACT)
    cdef Variable a = _as_variable(input, "mv")
    cdef Variable v = _as_variable(vec, "mv")
    if a._data.ndim != 2 or v._data.ndim != 1:
        raise RuntimeError("mv(): expected a 2-D matrix and a 1-D vector, got %dD and %dD"
                           % (a._data.ndim, v._data.ndim))
    if a._data.shape[1] != v._data.shape[0]:
        raise RuntimeError("mv(): size mismatch, got matrix %s and vector %s"
                           % (_shape_str(a._data.shape), _shape_str(v._data.shape)))
    return matmul(a, v)


@profiled_op
def dot(input, other, *, out=None):
    """Inner product of two 1-D Variables with the same number of elements (a 0-d result).

    >>> dot(Variable(numpy.array([1., 2.])), Variable(numpy.array([3., 4.])))
    tensor(11., dtype=float64)
    """
    if out is not None: return _write_out("dot", out, dot(input, other), _OUT_EXACT)
    cdef Variable a = _as_variable(input, "dot")
    cdef Variable b = _as_variable(other, "dot")
    if a._data.ndim != 1 or b._data.ndim != 1:
        raise RuntimeError("dot(): 1D tensors expected, but got %dD and %dD tensors"
                           % (a._data.ndim, b._data.ndim))
    if a._data.shape[0] != b._data.shape[0]:
        raise RuntimeError("dot(): inconsistent tensor size, expected tensors of the same "
                           "number of elements, but got %d and %d elements"
                           % (a._data.shape[0], b._data.shape[0]))
    return matmul(a, b)


@profiled_op
def outer(input, vec2, *, out=None):
    """Outer product of two 1-D Variables: ``out[i, j] = input[i] * vec2[j]``.

    >>> outer(Variable(numpy.array([1., 2.])), Variable(numpy.array([3., 4.])))
    tensor([[3., 4.],
            [6., 8.]], dtype=float64)
    """
    if out is not None: return _write_out("outer", out, outer(input, vec2))
    cdef Variable a = _as_variable(input, "outer")
    cdef Variable b = _as_variable(vec2, "outer")
    if a._data.ndim != 1 or b._data.ndim != 1:
        raise RuntimeError("outer(): 1D tensors expected, but got %dD and %dD tensors"
                           % (a._data.ndim, b._data.ndim))
    return mul(_reshape(a, (a._data.shape[0], 1), False),
               _reshape(b, (1, b._data.shape[0]), False))


# -- diagonals ---------------------------------------------------------------------------
#
# diagonal(x, offset, d1, d2) takes a diagonal out (as a new last dim); its adjoint
# _diagonal_scatter writes one into zeros of a given shape (diag_embed). Each is the
# other's backward, so both are differentiable any number of times.

cdef tuple _diagonal_dims(tuple shape, object dim1, object dim2, str what):
    cdef Py_ssize_t n = len(shape)
    # As torch: the dims are checked first (so a 0-d or 1-d input gets IndexError for a
    # dim out of range); below 2 dimensions two valid dims are always the same one.
    d1 = _normalize_dim(dim1, n, what)
    d2 = _normalize_dim(dim2, n, what)
    if d1 == d2:
        raise RuntimeError("%s(): diagonal dimensions cannot be identical %s, %s"
                           % (what, dim1, dim2))
    return d1, d2


cdef object _int_offset(object offset, str what):
    # A Python int: any int64 offset is allowed (torch's), so arithmetic on it must not
    # be done in C (abs(-2**63) and k - 1 overflow); _clamped_offset bounds it for NumPy.
    if isinstance(offset, bool) or not isinstance(offset, (int, numpy.integer)):
        raise TypeError("%s(): the diagonal offset must be an int, got %s"
                        % (what, type(offset).__name__))
    offset = int(offset)
    if offset < -9223372036854775808 or offset > 9223372036854775807:
        raise ValueError("%s(): the diagonal offset %d does not fit a 64-bit integer"
                         % (what, offset))
    return offset


cdef Py_ssize_t _clamped_offset(object offset, Py_ssize_t rows, Py_ssize_t cols):
    # The same diagonal (or triangle) of a rows x cols matrix, with the offset bounded:
    # beyond the matrix every offset selects nothing (diagonal) or everything/nothing
    # (tril/triu), and NumPy takes offsets as C ints.
    if offset > cols + 1:
        return cols + 1
    if offset < -rows - 1:
        return -rows - 1
    return offset


cdef class DiagonalBackward(Node):
    cdef tuple input_shape
    cdef Py_ssize_t offset, dim1, dim2

    cdef tuple _backward(self, tuple grads):
        return (_diagonal_scatter(grads[0], self.input_shape, self.offset, self.dim1,
                                  self.dim2),)


cdef Variable _diagonal(Variable x, Py_ssize_t offset, Py_ssize_t d1, Py_ssize_t d2):
    data = _xp_of(x._data).diagonal(x._data, offset, d1, d2).copy()
    cdef DiagonalBackward node
    if _records(x):
        node = DiagonalBackward.__new__(DiagonalBackward)
        node.input_shape = x._data.shape
        node.offset = offset
        node.dim1 = d1
        node.dim2 = d2
        return _recorded1(node, data, _edge(x))
    return _plain(data, x._volatile)


cdef Variable _diagonal_view(Variable x, Py_ssize_t offset, Py_ssize_t d1, Py_ssize_t d2):
    # The public diagonal: a view sharing memory and version counter with x, rebuilt
    # from its base like the views of shape.pxi (_ViewFn kind 3), so writes through it
    # and in-place ops on it reach x, as in torch.
    data = _xp_of(x._data).diagonal(x._data, offset, d1, d2)
    if type(data) is _NDARRAY and x._data.flags.writeable:
        data.flags.writeable = True          # NumPy hands out read-only diagonals
    cdef DiagonalBackward node = None
    if _records(x):
        node = DiagonalBackward.__new__(DiagonalBackward)
        node.input_shape = x._data.shape
        node.offset = offset
        node.dim1 = d1
        node.dim2 = d2
    return _shape_result(x, data, node, 3, (offset, d1, d2))


@profiled_op
def diagonal(input, offset=0, dim1=0, dim2=1):
    """The diagonal of ``input`` over dims ``dim1`` and ``dim2`` (above the main one for
    ``offset > 0``), as a new last dimension: a view, as torch's (writes through it
    change ``input``).

    >>> diagonal(Variable(numpy.arange(6.).reshape(2, 3)), 1)
    tensor([1., 5.], dtype=float64)
    """
    cdef Variable x = _as_variable(input, "diagonal")
    d1, d2 = _diagonal_dims(x._data.shape, dim1, dim2, "diagonal")
    k = _int_offset(offset, "diagonal")
    return _diagonal_view(x, _clamped_offset(k, x._data.shape[d1], x._data.shape[d2]),
                          d1, d2)


cdef class DiagonalScatterBackward(Node):
    cdef Py_ssize_t offset, dim1, dim2

    cdef tuple _backward(self, tuple grads):
        return (_diagonal(grads[0], self.offset, self.dim1, self.dim2),)


cdef Variable _diagonal_scatter(Variable x, tuple shape, Py_ssize_t offset, Py_ssize_t d1,
                                Py_ssize_t d2):
    # Zeros of `shape` with `x` written on the diagonal (offset, d1, d2); x's last dim
    # runs along the diagonal, its other dims are the remaining dims of `shape`.
    xp = _xp_of(x._data)
    data = xp.zeros(shape, dtype=x._data.dtype)
    cdef Py_ssize_t n = x._data.shape[x._data.ndim - 1] if x._data.ndim else 0
    if n:
        i = xp.arange(n)
        xp.moveaxis(data, (d1, d2), (-2, -1))[..., i + builtins.max(-offset, 0),
                                              i + builtins.max(offset, 0)] = x._data
    cdef DiagonalScatterBackward node
    if _records(x):
        node = DiagonalScatterBackward.__new__(DiagonalScatterBackward)
        node.offset = offset
        node.dim1 = d1
        node.dim2 = d2
        return _recorded1(node, data, _edge(x))
    return _plain(data, x._volatile)


@profiled_op
def diag_embed(input, offset=0, dim1=-2, dim2=-1):
    """Matrices (over dims ``dim1``, ``dim2`` of the result) whose diagonal ``offset`` is
    the last dimension of ``input``, zeros elsewhere.

    >>> diag_embed(Variable(numpy.array([1., 2.])))
    tensor([[1., 0.],
            [0., 2.]], dtype=float64)
    """
    cdef Variable x = _as_variable(input, "diag_embed")
    return _diag_embed(x, _int_offset(offset, "diag_embed"), dim1, dim2, "diag_embed")


cdef Variable _diag_embed(Variable x, object k, object dim1, object dim2, str what):
    cdef Py_ssize_t nd = x._data.ndim
    d1, d2 = _diagonal_dims((0,) * (nd + 1), dim1, dim2, what)   # 0-d: IndexError
    n = x._data.shape[nd - 1] + builtins.abs(k)        # Python ints: no C overflow
    shape = list(x._data.shape[:nd - 1])
    lo, hi = (d1, d2) if d1 < d2 else (d2, d1)
    shape.insert(lo, n)
    shape.insert(hi, n)
    _checked_sizes(shape, x._data.itemsize, what)       # torch's RuntimeError
    return _diagonal_scatter(x, tuple(shape), k, d1, d2)


@profiled_op
def diag(input, diagonal=0, *, out=None):
    """A 1-D input becomes a square matrix with it on diagonal ``diagonal``; of a 2-D
    input, that diagonal is taken out.

    >>> diag(Variable(numpy.array([[1., 2.], [3., 4.]])))
    tensor([1., 4.], dtype=float64)
    """
    if out is not None: return _write_out("diag", out, diag(input, diagonal), _OUT_EXACT)
    cdef Variable x = _as_variable(input, "diag")
    k = _int_offset(diagonal, "diag")
    if x._data.ndim == 1:
        return _diag_embed(x, k, 0, 1, "diag")
    if x._data.ndim == 2:
        return _diagonal(x, _clamped_offset(k, x._data.shape[0], x._data.shape[1]), 0, 1)
    raise RuntimeError("diag(): Supports 1D or 2D tensors. Got %dD" % x._data.ndim)


@profiled_op
def trace(input):
    """Sum of the main diagonal of a 2-D Variable.

    >>> trace(Variable(numpy.array([[1., 2.], [3., 4.]])))
    tensor(5., dtype=float64)
    """
    cdef Variable x = _as_variable(input, "trace")
    if _dtype_kind(x._data) == b'b':        # torch has no bool trace kernel (any shape)
        raise NotImplementedError("trace(): \"trace\" not implemented for 'Bool'")
    if x._data.ndim != 2:
        raise RuntimeError("trace(): expected a matrix (2-D), but got a %dD input"
                           % x._data.ndim)
    return sum(_diagonal(x, 0, 0, 1))


cdef class TriBackward(Node):
    cdef Py_ssize_t k
    cdef bint upper

    def name(self):
        """torch's name: ``'TrilBackward'`` or ``'TriuBackward'``."""
        return _display_name_or(self, "TriuBackward" if self.upper else "TrilBackward")

    cdef tuple _backward(self, tuple grads):
        return (_tri(grads[0], self.k, self.upper),)


cdef Variable _tri(Variable x, Py_ssize_t k, bint upper):
    xp = _xp_of(x._data)
    cdef Py_ssize_t nd = x._data.ndim
    if nd < 2:
        raise RuntimeError("%s(): input tensor must have at least 2 dimensions, got %dD"
                           % ("triu" if upper else "tril", nd))
    m = x._data.shape[nd - 2]
    n = x._data.shape[nd - 1]
    # tril keeps j - i <= k; triu keeps j - i >= k.
    keep = xp.tri(m, n, k - 1, dtype=bool) if upper else xp.tri(m, n, k, dtype=bool)
    if upper:
        keep = ~keep
    data = xp.where(keep, x._data, xp.zeros((), dtype=x._data.dtype))
    cdef TriBackward node
    if _records(x):
        node = TriBackward.__new__(TriBackward)
        node.k = k
        node.upper = upper
        return _recorded1(node, data, _edge(x))
    return _plain(data, x._volatile)


@profiled_op
def tril(input, diagonal=0, *, out=None):
    """The lower triangle (``j - i <= diagonal``) of the last two dims, zeros elsewhere.

    >>> tril(Variable(numpy.ones((2, 2))))
    tensor([[1., 0.],
            [1., 1.]], dtype=float64)
    """
    if out is not None: return _write_out("tril", out, tril(input, diagonal), _OUT_EXACT)
    cdef Variable x = _as_variable(input, "tril")
    return _tri(x, _tri_offset(x, _int_offset(diagonal, "tril")), False)


@profiled_op
def triu(input, diagonal=0, *, out=None):
    """The upper triangle (``j - i >= diagonal``) of the last two dims, zeros elsewhere.

    >>> triu(Variable(numpy.ones((2, 2))))
    tensor([[1., 1.],
            [0., 1.]], dtype=float64)
    """
    if out is not None: return _write_out("triu", out, triu(input, diagonal), _OUT_EXACT)
    cdef Variable x = _as_variable(input, "triu")
    return _tri(x, _tri_offset(x, _int_offset(diagonal, "triu")), True)


cdef Py_ssize_t _tri_offset(Variable x, object k):
    # bounded by the last two dims (a shorter input is refused by _tri, unbounded)
    cdef Py_ssize_t nd = x._data.ndim
    if nd < 2:
        return 0
    return _clamped_offset(k, x._data.shape[nd - 2], x._data.shape[nd - 1])


# -- einsum ------------------------------------------------------------------------------
#
# The equation is first reduced to a core form: ellipses spelled with fresh letters,
# repeated letters of an operand taken out with diagonal(), size-1 dims broadcast
# with broadcast_to() (all differentiable ops). The core einsum (each letter at most
# once per operand, sizes equal) has the backward: for operand k, the einsum of the
# gradient and the other operands onto k's letters, broadcast over k's letters that
# appear nowhere else. That is an einsum again, so it can be differentiated again.

cdef class EinsumBackward(Node):
    cdef tuple terms          # letters of each operand
    cdef str out              # letters of the output
    cdef list saved           # SavedVariable per operand
    cdef tuple shapes

    cdef tuple _backward(self, tuple grads):
        cdef Py_ssize_t k, j, n = len(self.terms)
        if self.saved is None:
            raise _freed_error(self)
        ops = [(<SavedVariable>s).unpack(self) for s in self.saved]
        g = grads[0]
        result = []
        for k in range(n):
            if not self._needs_input_grad(k):
                result.append(None)
                continue
            terms = [self.out]
            args = [g]
            for j in range(n):
                if j != k:
                    terms.append(self.terms[j])
                    args.append(ops[j])
            available = set("".join(terms))
            term = self.terms[k]
            target = "".join(c for c in term if c in available)
            gk = _einsum_core(tuple(terms), target, args)
            if len(target) != len(term):
                shape = self.shapes[k]
                gk = _reshape(gk, tuple(shape[i] if term[i] in available else 1
                                        for i in range(len(term))), False)
                gk = broadcast_to(gk, shape)
            result.append(gk)
        return tuple(result)

    cdef void _release_saved(self) noexcept:
        self._released = True
        if self.saved is not None:
            for s in self.saved:
                (<SavedVariable>s).release()
            self.saved = None


cdef Variable _einsum_core(tuple terms, str out, list operands):
    cdef Variable v
    datas = [(<Variable>v)._data for v in operands]
    eq = ",".join(terms) + "->" + out
    if type(datas[0]) is _NDARRAY and _is_reduced_float(datas[0]):
        # float16/bfloat16 in float32, rounded once (as _matmul_arrays: torch's kernels
        # accumulate in float32; NumPy has no bfloat16 einsum)
        data = numpy.einsum(eq, *[d.astype(numpy.float32) for d in datas],
                            optimize=len(datas) > 2).astype(datas[0].dtype)
    else:
        data = _xp_of(datas[0]).einsum(eq, *datas, optimize=len(datas) > 2)
    data = _ensure_array(data)
    if data.base is not None:            # NumPy returns a view for a transpose
        data = data.copy()
    cdef bint records = _grad_enabled() and builtins.any(
        _requires_grad_now(<Variable>v) for v in operands)
    cdef EinsumBackward node
    if records:
        node = EinsumBackward.__new__(EinsumBackward)
        node.terms = terms
        node.out = out
        node.saved = [_save(<Variable>operands[i], False, i) for i in range(len(operands))]
        node.shapes = tuple((<Variable>v)._data.shape for v in operands)
        return _recorded(node, data, tuple(_edge(<Variable>v) for v in operands))
    return _plain(data, builtins.any((<Variable>v)._volatile for v in operands))


cdef list _einsum_term(str term, str what):
    # Letters and "." (the ellipsis) of one subscript term.
    cdef list out = []
    cdef Py_ssize_t i = 0
    while i < len(term):
        c = term[i]
        if c == ".":
            if term[i:i + 3] != "..." or "." in out:
                raise RuntimeError("%s(): invalid subscript '%s': '.' only as a single "
                                   "ellipsis '...'" % (what, term))
            out.append(".")
            i += 3
            continue
        if not (("a" <= c <= "z") or ("A" <= c <= "Z")):
            raise RuntimeError("%s(): invalid subscript '%s' in the equation: only letters "
                               "a-z, A-Z and '...' are allowed" % (what, c))
        out.append(c)
        i += 1
    return out


cdef str _einsum_sublist_letters(object sublist):
    # A sublist of torch's einsum (ints in [0, 52), Ellipsis) as equation letters:
    # 0-25 are A-Z, 26-51 a-z.
    letters = []
    for v in sublist:
        if v is Ellipsis:
            letters.append("...")
            continue
        if isinstance(v, bool) or not isinstance(v, (int, numpy.integer)):
            raise TypeError("einsum(): a subscript list takes ints and Ellipsis, got %s"
                            % type(v).__name__)
        if v < 0 or v >= 52:
            raise ValueError("einsum(): subscript in subscript list is not within the valid "
                             "range [0, 52)")
        letters.append(chr(ord("A") + v) if v < 26 else chr(ord("a") + v - 26))
    return "".join(letters)


cdef Variable _einsum_sublists(tuple args):
    # einsum(op1, sublist1, op2, sublist2, ..., [output sublist]): pairs, then an optional
    # trailing output sublist
    cdef Py_ssize_t n = len(args)
    cdef bint has_out = n % 2 == 1
    pairs = n - 1 if has_out else n
    ops = [args[i] for i in range(0, pairs, 2)]
    terms = [_einsum_sublist_letters(args[i]) for i in range(1, pairs, 2)]
    eq = ",".join(terms)
    if has_out:
        eq += "->" + _einsum_sublist_letters(args[n - 1])
    return einsum(eq, *ops)


@profiled_op
def einsum(equation, *operands):
    """Einstein summation, as ``numpy.einsum`` / ``torch.einsum``: repeated letters,
    ellipsis broadcasting, implicit (sorted) or explicit (``->``) output.

    >>> einsum("ij,j->i", Variable(numpy.eye(2)), Variable(numpy.array([1., 2.])))
    tensor([1., 2.], dtype=float64)
    >>> einsum("ii", Variable(numpy.array([[1., 2.], [3., 4.]])))
    tensor(5., dtype=float64)

    torch's sublist form is taken too: ``einsum(a, [0, 1], b, [1, 2], [0, 2])`` is
    ``einsum("AB,BC->AC", a, b)`` (0-25 are A-Z, 26-51 a-z; ``Ellipsis`` is ``...``).
    """
    if not isinstance(equation, str):
        if isinstance(equation, (list, tuple, int, float, complex, bool)) or equation is None:
            raise TypeError("einsum(): the equation must be a str, got %s"
                            % type(equation).__name__)
        # torch's sublist form: einsum(op1, [0, 1], op2, [1, 2], [0, 2])
        return _einsum_sublists((equation,) + operands)
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    if not operands:
        raise RuntimeError("einsum(): must provide at least one operand")
    cdef list xs = [_as_variable(o, "einsum") for o in operands]
    cdef list datas = [(<Variable>v)._data for v in xs]
    eq = equation.replace(" ", "")
    if "->" in eq:
        lhs, rhs = eq.split("->", 1)
        explicit = True
        if "->" in rhs:
            raise RuntimeError("einsum(): the equation has more than one '->'")
    else:
        lhs, rhs = eq, ""
        explicit = False
    in_terms = [_einsum_term(t, "einsum") for t in lhs.split(",")]
    if len(in_terms) > len(xs):
        raise RuntimeError("einsum(): fewer operands were provided than specified in the "
                           "equation (%d terms, %d operands)" % (len(in_terms), len(xs)))
    if len(in_terms) < len(xs):       # (torch's Python-level check: a ValueError)
        raise ValueError("einsum(): Number of einsum subscripts, %d, must be equal to the "
                         "number of operands, %d." % (len(in_terms), len(xs)))
    dtypes = {d.dtype for d in datas}
    if len(dtypes) > 1:
        raise RuntimeError("einsum(): expected all operands to have the same dtype, got %s"
                           % ", ".join(sorted(str(d) for d in dtypes)))
    # Ellipsis dims: fresh letters, right-aligned across operands.
    used = set(c for t in in_terms for c in t if c != ".")
    ell_ndims = []
    for k, t in enumerate(in_terms):
        nd = datas[k].ndim
        nl = len(t) - (1 if "." in t else 0)
        if nl > nd or (nl != nd and "." not in t):
            raise RuntimeError("einsum(): operand %d has %d dimensions but its subscript "
                               "'%s' names %d" % (k, nd, "".join(t).replace(".", "..."), nl))
        ell_ndims.append(nd - nl)
    n_ell = builtins.max(ell_ndims)
    fresh = [c for c in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
             if c not in used]
    if n_ell > len(fresh):
        raise RuntimeError("einsum(): too many dimensions")
    ell = fresh[:n_ell]
    terms = []
    for k, t in enumerate(in_terms):
        letters = []
        for c in t:
            if c == ".":
                letters.extend(ell[n_ell - ell_ndims[k]:])
            else:
                letters.append(c)
        terms.append(letters)
    # The output letters.
    if explicit:
        out_t = _einsum_term(rhs, "einsum")
        out = []
        for c in out_t:
            if c == ".":
                out.extend(ell)
            else:
                if c in out:
                    raise RuntimeError("einsum(): output subscript '%s' appears more than "
                                       "once in the output" % c)
                if c not in used:
                    raise RuntimeError("einsum(): output subscript '%s' does not appear in "
                                       "the equation for any input operand" % c)
                out.append(c)
    else:
        counts = {}
        for t in in_terms:
            for c in t:
                if c != ".":
                    counts[c] = counts.get(c, 0) + 1
        out = list(ell) + sorted(c for c, m in counts.items() if m == 1)
    # Sizes: repeated letters of an operand must match; size-1 dims broadcast.
    sizes = {}
    for k, t in enumerate(terms):
        shape = datas[k].shape
        for i, c in enumerate(t):
            s = shape[i]
            prev = sizes.get(c, 1)
            if s != 1 and prev != 1 and s != prev:
                raise RuntimeError("einsum(): subscript '%s' has size %d for operand %d which "
                                   "does not broadcast with previously seen size %d"
                                   % (c, s, k, prev))
            if s != 1:
                sizes[c] = s
            elif c not in sizes:
                sizes[c] = 1
    cdef Variable x
    core = []
    for k, t in enumerate(terms):
        x = xs[k]
        t = list(t)
        # Broadcast size-1 dims to the letter's size.
        target = tuple(sizes[c] for c in t)
        if x._data.shape != target:
            x = broadcast_to(x, target)
        # Take repeated letters out as diagonals (moved to the end, as diagonal does).
        while len(set(t)) != len(t):
            for i, c in enumerate(t):
                j = t.index(c, i + 1) if t.count(c) > 1 else -1
                if j >= 0:
                    x = _diagonal(x, 0, i, j)
                    del t[j]
                    del t[i]
                    t.append(c)
                    break
        core.append((x, "".join(t)))
    return _einsum_core(tuple(t for _, t in core), "".join(out), [x for x, _ in core])


@profiled_op
def tensordot(a, b, dims=2, *, out=None):
    """Contraction of the last ``dims`` dims of ``a`` with the first ``dims`` of ``b``, or
    of the dims listed in ``dims = (dims_a, dims_b)``.

    >>> tensordot(Variable(numpy.ones((2, 3))), Variable(numpy.ones((3, 4))), 1).shape
    (2, 4)
    """
    if out is not None: return _write_out("tensordot", out, tensordot(a, b, dims), _OUT_EXACT)
    cdef Variable x = _as_variable(a, "tensordot")
    cdef Variable y = _as_variable(b, "tensordot")
    cdef Py_ssize_t na = x._data.ndim, nb = y._data.ndim
    if isinstance(dims, (int, numpy.integer)) and not isinstance(dims, bool):
        if dims < 0:
            raise RuntimeError("tensordot(): expects dims >= 0, but got dims=%d" % dims)
        if dims > na or dims > nb:
            raise RuntimeError("tensordot(): expects dims <= the number of dims of each "
                               "operand, got dims=%d for %dD and %dD" % (dims, na, nb))
        da = list(range(na - dims, na))
        db = list(range(dims))
    elif isinstance(dims, (list, tuple)) and len(dims) == 2:
        da, db = dims
        da = [da] if isinstance(da, (int, numpy.integer)) else list(da)
        db = [db] if isinstance(db, (int, numpy.integer)) else list(db)
        if len(da) != len(db):
            raise RuntimeError("tensordot(): both dimension lists should have same length, "
                               "got %d and %d" % (len(da), len(db)))
        da = [_normalize_dim(d, na, "tensordot") for d in da]
        db = [_normalize_dim(d, nb, "tensordot") for d in db]
        if len(set(da)) != len(da) or len(set(db)) != len(db):
            raise RuntimeError("tensordot(): a dimension appears twice in dims")
    else:
        raise TypeError("tensordot(): dims must be an int or a pair of lists of dims, got %r"
                        % (dims,))
    for i, j in zip(da, db):
        if x._data.shape[i] != y._data.shape[j]:
            raise RuntimeError("tensordot(): contracted dimensions need to match, but first "
                               "has size %d in dim %d and second has size %d in dim %d"
                               % (x._data.shape[i], i, y._data.shape[j], j))
    letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
    if na + nb > len(letters):
        raise RuntimeError("tensordot(): too many dimensions")
    ta = list(letters[:na])
    tb = list(letters[na:na + nb])
    for i, j in zip(da, db):
        tb[j] = ta[i]
    out = "".join([ta[i] for i in range(na) if i not in da] +
                  [tb[j] for j in range(nb) if j not in db])
    return _einsum_core(("".join(ta), "".join(tb)), out, [x, y])



# -- pyad.linalg: inverses and decompositions -----------------------------------------------
#
# Backward formulas are torch's (tools/autograd/derivatives.yaml, FunctionsManual.cpp),
# written with differentiable ops (matmul, solve, tril, diag_embed, ...) so they can be
# differentiated again. Multi-output ops (slogdet, qr, eigh, svd) record one node with
# several outputs; an output that is not used gets no gradient (None in the backward).

cdef inline Py_ssize_t _dim_size(object shape, Py_ssize_t back):
    # shape[-back] (the module is compiled without wraparound).
    return shape[len(shape) - back]


cdef inline Variable _mT(Variable x):
    return transpose(x, -2, -1)


cdef inline Variable _mH(Variable x):
    # the conjugate transpose (the transpose of a real Variable)
    return conj(transpose(x, -2, -1))


cdef Variable _matrix_input(object input, str what, bint square):
    cdef Variable x = _as_variable(input, what)
    shape = x._data.shape
    if len(shape) < 2:
        raise RuntimeError("%s(): the input must have at least 2 dimensions, got %dD"
                           % (what, len(shape)))
    if square and _dim_size(shape, 1) != _dim_size(shape, 2):
        raise RuntimeError("%s(): expected a batch of square matrices, got shape %s"
                           % (what, _shape_str(shape)))
    if x._data.dtype.kind not in "fc" or x._data.dtype.itemsize < (
            4 if x._data.dtype.kind == "f" else 8):
        _refuse_matrix_dtype(x._data.dtype, what)
    return x


cdef int _refuse_matrix_dtype(object dtype, str what) except -1:
    # torch's error types for a LAPACK op on a dtype it has no kernel for: integer and
    # bool input is a RuntimeError (cholesky's a NotImplementedError, its kernel's), half
    # precision a NotImplementedError, or a RuntimeError where torch checks precision
    # first (inv, slogdet, matrix_power)
    if dtype.kind not in "fc":
        if what == "cholesky":
            raise NotImplementedError("%s(): not implemented for %s input (a float32, "
                                      "float64, complex64 or complex128 Variable is needed)"
                                      % (what, dtype))
        raise RuntimeError("%s(): Expected a floating point or complex Variable as input. "
                           "Got %s" % (what, dtype))
    if what in ("inv", "slogdet", "matrix_power"):
        raise RuntimeError("%s(): Low precision dtypes not supported. Got %s" % (what, dtype))
    raise NotImplementedError("%s(): not implemented for %s input (a float32, float64, "
                              "complex64 or complex128 Variable is needed)" % (what, dtype))


cdef object _linalg_call(object f, str what, str failure, tuple args):
    # NumPy's LinAlgError becomes an error naming the op.
    try:
        return f(*args)
    except numpy.linalg.LinAlgError:
        raise RuntimeError("%s(): %s" % (what, failure)) from None


cdef tuple _multi_output(Node node, tuple datas, tuple edges, bint records, bint volatile):
    cdef Variable v
    cdef list outs = []
    if records:
        _init_node(node, edges, len(datas))
    for i in range(len(datas)):
        if records:
            v = _wrap(_ensure_array(datas[i]))
            v._grad_fn = node
            v._output_nr = i
            v._requires_grad = True
        else:
            v = _plain(datas[i], volatile)
        outs.append(v)
    return tuple(outs)


cdef class InvBackward(Node):
    cdef SavedVariable out

    cdef tuple _backward(self, tuple grads):
        # d(A^-1) = -A^-1 dA A^-1, so gA = -A^-T g A^-T (holomorphic: complex input gets
        # -A^-H g A^-H from the conjugation rule of complex.pxi).
        y = _mT(self.out.unpack(self))
        return (neg(matmul(y, matmul(grads[0], y))),)

    cdef void _release_saved(self) noexcept:
        self._released = True
        self.out.release()


@profiled_op
def inv(A):
    """Inverse of a (batch of) square matrices.

    >>> pyad.linalg.inv(pyad.tensor([[2., 0.], [0., 4.]]))
    tensor([[0.5000, 0.0000],
            [0.0000, 0.2500]])
    """
    cdef Variable x = _matrix_input(A, "inv", True)
    data = _linalg_call(_xp_of(x._data).linalg.inv, "inv", "the matrix is singular",
                        (x._data,))
    cdef InvBackward node
    cdef Variable out
    if _records(x):
        node = InvBackward.__new__(InvBackward)
        out = _recorded1(node, data, _edge(x))
        node.out = _save(out, True)
        return out
    return _plain(data, x._volatile)


cdef object _cofactor_matrix(object a):
    # The cofactor matrix of real square matrices (..., n, n), det(A) A^-T where A is
    # invertible and defined everywhere: with A = U S V^T it is det(U) det(V) U P V^T,
    # P the diagonal of the products of all singular values but one (prefix times
    # suffix products, so a zero singular value needs no division).
    # (no negative index anywhere: the engine is compiled with wraparound=False)
    xp = _xp_of(a)
    u, s, vh = xp.linalg.svd(a)
    cdef Py_ssize_t last = s.ndim - 1
    cdef Py_ssize_t n = s.shape[last]
    ones = xp.ones(tuple(s.shape)[:last] + (1,), dtype=s.dtype)
    prefix = xp.cumprod(xp.concatenate([ones, s[..., :n - 1]], last), last)
    reverse = xp.flip(s, last)
    suffix = xp.flip(xp.cumprod(xp.concatenate([ones, reverse[..., :n - 1]], last), last),
                     last)
    sign = xp.linalg.det(u) * xp.linalg.det(vh)
    return (sign[..., None, None] * (u * (prefix * suffix)[..., None, :])) @ vh


cdef Variable _matrix_grad(Variable g, Variable A):
    # g[..., None, None] * A^-T: the gradient of det (times det) and of log|det|.
    return mul(unsqueeze(unsqueeze(g, -1), -1), _mT(inv(A)))


cdef class DetBackward(Node):
    cdef SavedVariable A
    cdef SavedVariable out

    cdef tuple _backward(self, tuple grads):
        # d det(A) = det(A) tr(A^-1 dA). Holomorphic: complex input gets g conj(det)
        # A^-H (complex.pxi). Where A is singular (no inverse; det exactly 0) the
        # gradient is 0, as torch's LU solve of a zero right-hand side gives; the other
        # matrices of a batch keep det(A) A^-T, here from the SVD cofactor matrix
        # (first order; create_graph at a singular A still raises).
        cdef Variable a = self.A.unpack(self)
        try:
            return (_matrix_grad(mul(grads[0], self.out.unpack(self)), a),)
        except RuntimeError:
            if _grad_enabled() or _dtype_kind(a._data) != b'f':
                raise
        g = (<Variable>grads[0])._data
        d = self.out.data(self)
        xp = _xp_of(a._data)
        cof = xp.where((d == 0)[..., None, None], 0, _cofactor_matrix(a._data))
        return (_raw(_ensure_array((g[..., None, None] * cof).astype(a._data.dtype))),)

    cdef void _release_saved(self) noexcept:
        self._released = True
        self.A.release()
        self.out.release()


@profiled_op
def det(A):
    """Determinant of a (batch of) square matrices. At a singular real matrix (det
    exactly 0) the gradient is 0, as torch's; its second order there raises
    ``inv(): the matrix is singular``.

    >>> pyad.linalg.det(pyad.tensor([[2., 1.], [1., 3.]]))
    tensor(5.)
    """
    cdef Variable x = _matrix_input(A, "det", True)
    data = _ensure_array(_xp_of(x._data).linalg.det(x._data))
    cdef DetBackward node
    cdef Variable out
    if _records(x):
        node = DetBackward.__new__(DetBackward)
        node.A = _save(x, False, 0)
        out = _recorded1(node, data, _edge(x))
        node.out = _save(out, True)
        return out
    return _plain(data, x._volatile)


slogdet_result = namedtuple("slogdet", ["sign", "logabsdet"])
slogdet_result.__module__ = "pyad.linalg"


cdef class SlogdetBackward(Node):
    cdef SavedVariable A
    cdef SavedVariable sign

    cdef tuple _backward(self, tuple grads):
        # torch's slogdet_backward: gA = g A^-H with g = g_logabsdet, and for complex
        # input g -= i Im(conj(g_sign) sign) (the phase of det moves with A). A real
        # sign is piecewise constant: its cotangent is ignored.
        gsign, glog = grads
        a = self.A.unpack(self)
        if _dtype_kind(a._data) != b'c':
            if glog is None:
                return (None,)
            return (_matrix_grad(glog, a),)
        g = None
        if glog is not None:
            g = _convert(<Variable>glog, None, a._data.dtype, False)
        if gsign is not None:
            phase = mul(imag(mul(conj(gsign), self.sign.unpack(self))), -1j)
            g = phase if g is None else add(g, phase)
        if g is None:
            return (None,)
        return (mul(unsqueeze(unsqueeze(g, -1), -1), _mH(inv(a))),)

    cdef void _release_saved(self) noexcept:
        self._released = True
        self.A.release()
        if self.sign is not None:
            self.sign.release()


@profiled_op
def slogdet(A):
    """``(sign, logabsdet)`` of the determinant: ``det = sign * exp(logabsdet)``; at a
    singular matrix logabsdet is -inf (sign 0). Both outputs require grad when ``A``
    does (as torch's); a real sign is piecewise constant, so its cotangent adds nothing,
    a complex sign (a unit complex number) has torch's gradient.

    >>> pyad.linalg.slogdet(pyad.tensor([[-2., 0.], [0., 3.]]))
    slogdet(sign=tensor(-1.), logabsdet=tensor(1.7918))
    """
    cdef Variable x = _matrix_input(A, "slogdet", True)
    sign, logabsdet = _xp_of(x._data).linalg.slogdet(x._data)
    cdef SlogdetBackward node = None
    cdef bint records = _records(x)
    if records:
        node = SlogdetBackward.__new__(SlogdetBackward)
        node.A = _save(x, False, 0)
    outs = _multi_output(node, (sign, logabsdet), (_edge(x),), records, x._volatile)
    if records and _dtype_kind(x._data) == b'c':
        node.sign = _save(outs[0], True)
    return slogdet_result(*outs)


cdef class SolveBackward(Node):
    cdef SavedVariable A
    cdef SavedVariable out
    cdef tuple a_shape, b_shape
    cdef object a_dtype, b_dtype

    cdef tuple _backward(self, tuple grads):
        # X = A^-1 B: gB = A^-T g, gA = -gB X^T (reduced over broadcast batch dims);
        # holomorphic in A and B (complex: A^-H, X^H by complex.pxi's rule).
        a = self.A.unpack(self)
        gb = _solve(_mT(a), grads[0])
        ga = None
        if self._needs_input_grad(0):
            ga = _reduce_grad(neg(matmul(gb, _mT(self.out.unpack(self)))), self.a_shape,
                              self.a_dtype)
        if self._needs_input_grad(1):
            gb = _reduce_grad(gb, self.b_shape, self.b_dtype)
        else:
            gb = None
        return (ga, gb)

    cdef void _release_saved(self) noexcept:
        self._released = True
        self.A.release()
        self.out.release()


cdef Variable _solve(Variable a, Variable b):
    # A X = B for matrices B, batch dims broadcast.
    xp = _xp_of(a._data)
    try:
        data = xp.linalg.solve(a._data, b._data)
    except numpy.linalg.LinAlgError:
        raise RuntimeError("solve(): the matrix A is singular") from None
    except ValueError:
        raise RuntimeError("solve(): incompatible shapes: A %s and B %s"
                           % (_shape_str(a._data.shape), _shape_str(b._data.shape))) from None
    cdef SolveBackward node
    cdef Variable out
    if _grad_enabled() and (_requires_grad_now(a) or _requires_grad_now(b)):
        node = SolveBackward.__new__(SolveBackward)
        node.A = _save(a, False, 0)
        node.a_shape = a._data.shape
        node.b_shape = b._data.shape
        node.a_dtype = a._data.dtype
        node.b_dtype = b._data.dtype
        out = _recorded2(node, data, _edge(a), _edge(b))
        node.out = _save(out, True)
        return out
    return _plain(data, a._volatile or b._volatile)


@profiled_op
def solve(A, B):
    """The solution ``X`` of ``A X = B``: ``B`` a (batch of) matrices, or of vectors when
    it is 1-D or has the shape ``A.shape[:-1]`` (as torch.linalg.solve). Batch dims
    broadcast.

    >>> pyad.linalg.solve(pyad.tensor([[2., 0.], [0., 4.]]), pyad.tensor([2., 2.]))
    tensor([1.0000, 0.5000])
    """
    cdef Variable a = _matrix_input(A, "solve", True)
    cdef Variable b = _as_variable(B, "solve")
    if b._data.dtype != a._data.dtype:
        raise RuntimeError("solve(): expected A and B to have the same dtype, got %s and %s"
                           % (a._data.dtype, b._data.dtype))
    nb = b._data.ndim
    if nb == 0:
        raise RuntimeError("solve(): B must have at least 1 dimension")
    vector = nb == 1 or (nb == a._data.ndim - 1 and b._data.shape == a._data.shape[:nb])
    if vector:
        return squeeze(_solve(a, unsqueeze(b, -1)), -1)
    return _solve(a, b)


cdef class CholeskyBackward(Node):
    cdef SavedVariable L

    cdef tuple _backward(self, tuple grads):
        # torch's cholesky_backward: gA = L^-H Phi L^-1 with
        # Phi = sym(tril(L^H gL)) (the diagonal counted once).
        l = self.L.unpack(self)
        lt = _mH(l)
        ga = tril(matmul(lt, grads[0]))
        ga = mul(add(ga, _mH(tril(ga, -1))), 0.5)
        x = _solve(lt, ga)                   # L^-H Phi
        return (_mH(_solve(lt, _mH(x))),)    # (L^-H Phi) L^-1

    cdef void _release_saved(self) noexcept:
        self._released = True
        self.L.release()


@profiled_op
def cholesky(A, *, upper=False):
    """The lower-triangular ``L`` with ``A = L L^T`` of a symmetric positive-definite
    (batch of) matrices, or with ``upper=True`` the upper-triangular ``U = L^H`` with
    ``A = U^H U``. Only the lower triangle of ``A`` is read.

    >>> pyad.linalg.cholesky(pyad.tensor([[4., 2.], [2., 5.]]))
    tensor([[2., 0.],
            [1., 2.]])
    """
    if upper:
        return _mH(cholesky(A))
    cdef Variable x = _matrix_input(A, "cholesky", True)
    data = _linalg_call(_xp_of(x._data).linalg.cholesky, "cholesky",
                        "the input is not positive-definite", (x._data,))
    cdef CholeskyBackward node
    cdef Variable out
    if _records(x):
        node = CholeskyBackward.__new__(CholeskyBackward)
        out = _recorded1(node, data, _edge(x))
        node.L = _save(out, True)
        return out
    return _plain(data, x._volatile)


qr_result = namedtuple("qr", ["Q", "R"])
qr_result.__module__ = "pyad.linalg"


cdef class QrBackward(Node):
    cdef SavedVariable Q
    cdef SavedVariable R

    cdef tuple _backward(self, tuple grads):
        cdef Variable q, r, sym, u, ga
        gq, gr = grads
        q = self.Q.unpack(self)
        r = self.R.unpack(self)
        cdef Py_ssize_t m = _dim_size(q._data.shape, 2)
        cdef Py_ssize_t n = _dim_size(r._data.shape, 1)
        # torch's linalg_qr_backward. With M = gR R^H - Q^H gQ:
        if gq is not None:
            ga = neg(matmul(_mH(q), gq))
            if gr is not None:
                ga = add(matmul(gr, _mH(r)), ga)
        else:
            ga = matmul(gr, _mH(r))
        if m >= n:
            # gA = (gQ + Q sym(triu(M))) R^-H, sym(X) = X + X^H with the diagonal once.
            sym = triu(ga)
            sym = add(sym, _mH(sym))
            sym = sub(sym, diag_embed(mul(_diagonal(sym, 0, sym._data.ndim - 2,
                                                    sym._data.ndim - 1), 0.5)))
            ga = matmul(q, sym)
            if gq is not None:
                ga = add(ga, gq)
            return (_mH(_solve(r, _mH(ga))),)    # ga R^-H
        # Wide (m < n): A = [B | C] with B = Q U square (U = R[..., :m]) and C = Q V.
        # gB = Q tril(M^H - M, -1) U^-H and gC = 0, then gA += Q gR.
        u = narrow(r, -1, 0, m)
        ga = sub(_mH(ga), ga)
        ga = matmul(q, add(tril(ga, -1), diag_embed(mul(_diagonal(ga, 0, ga._data.ndim - 2,
                                                               ga._data.ndim - 1), 0.5))))
        ga = _mH(_solve(u, _mH(ga)))             # ga U^-H
        pad_shape = ga._data.shape[:ga._data.ndim - 1] + (n - m,)
        ga = cat([ga, _wrap(_xp_of(ga._data).zeros(pad_shape, dtype=ga._data.dtype))], -1)
        if gr is not None:
            ga = add(ga, matmul(q, gr))
        return (ga,)

    cdef void _release_saved(self) noexcept:
        self._released = True
        self.Q.release()
        self.R.release()


@profiled_op
def qr(A):
    """Reduced QR decomposition ``A = Q R`` (Q with orthonormal columns, R upper
    triangular), as ``torch.linalg.qr(A, mode='reduced')``. The gradient is torch's:
    defined for full-rank inputs (for wide inputs, more columns than rows, the leading
    square block must be full-rank).

    >>> Q, R = pyad.linalg.qr(pyad.tensor([[3., 0.], [4., 5.]]))
    >>> R
    tensor([[-5., -4.],
            [ 0.,  3.]])
    """
    cdef Variable x = _matrix_input(A, "qr", False)
    q, r = _xp_of(x._data).linalg.qr(x._data)
    cdef QrBackward node = None
    cdef bint records = _records(x)
    if records:
        node = QrBackward.__new__(QrBackward)
    outs = _multi_output(node, (q, r), (_edge(x),), records, x._volatile)
    if records:
        node.Q = _save(outs[0], True)
        node.R = _save(outs[1], True)
    return qr_result(*outs)


cdef void _check_phase_invariant(object a, object b, str what, str vectors, str tail) except *:
    # torch's allclose(a, b, rtol=1e-2, atol=1e-2) of the imaginary diagonals
    xp = _xp_of(a if a is not None else b)
    if a is None:
        a = xp.zeros_like(b)
    if b is None:
        b = xp.zeros_like(a)
    if not bool(xp.all(xp.abs(a - b) <= 1e-2 + 1e-2 * xp.abs(b))):
        raise RuntimeError("%s(): The %s in the complex case are specified up to "
                           "multiplication by e^{i phi}. The specified loss function depends "
                           "on this %s" % (what, vectors, tail))


eigh_result = namedtuple("eigh", ["eigenvalues", "eigenvectors"])
eigh_result.__module__ = "pyad.linalg"


cdef class EighBackward(Node):
    cdef SavedVariable L
    cdef SavedVariable V

    cdef tuple _backward(self, tuple grads):
        # torch's linalg_eig_backward (Hermitian): with E_ij = L_j - L_i (1 on the
        # diagonal), gA = V (skew(V^H gV) / 2 / E + diag(gL)) V^H. It divides by the gaps
        # between eigenvalues: not defined for repeated eigenvalues (as in torch).
        cdef Variable v, l
        gl, gv = grads
        v = self.V.unpack(self)
        vt = _mH(v)
        if gv is None:
            return (matmul(mul(v, unsqueeze(gl, -2)), vt),)
        l = self.L.unpack(self)
        vhgv = matmul(vt, gv)
        if _dtype_kind(vhgv._data) == b'c':
            # a complex eigenvector is defined up to a phase e^{i phi}: a loss that
            # depends on it gives V^H gV an imaginary diagonal (torch's check)
            _check_phase_invariant(_xp_of(vhgv._data).diagonal(vhgv._data, 0, -2, -1).imag,
                                   None, "eigh", "eigenvectors",
                                   "quantity, so it is ill-defined.")
        vhgv = mul(sub(vhgv, _mH(vhgv)), 0.5)
        n = _dim_size(l._data.shape, 1)
        eye = _xp_of(l._data).eye(n, dtype=l._data.dtype)
        e = add(sub(unsqueeze(l, -2), unsqueeze(l, -1)), eye)
        ga = div(vhgv, e)
        if gl is not None:
            ga = add(ga, diag_embed(gl))    # vhgv's diagonal is zero: replace = add
        return (matmul(v, matmul(ga, vt)),)

    cdef void _release_saved(self) noexcept:
        self._released = True
        self.L.release()
        self.V.release()


@profiled_op
def eigh(A):
    """Eigenvalues (ascending) and eigenvectors (columns) of a symmetric (batch of)
    matrices; only the lower triangle is read. The gradient is torch's, which divides
    by eigenvalue gaps: it is not defined (inf/nan) when eigenvalues repeat, and a loss
    must not depend on the eigenvectors' signs.

    >>> pyad.linalg.eigh(pyad.tensor([[2., 0.], [0., 1.]])).eigenvalues
    tensor([1., 2.])
    """
    cdef Variable x = _matrix_input(A, "eigh", True)
    l, v = _linalg_call(_xp_of(x._data).linalg.eigh, "eigh", "the algorithm did not converge",
                        (x._data,))
    cdef EighBackward node = None
    cdef bint records = _records(x)
    if records:
        node = EighBackward.__new__(EighBackward)
    outs = _multi_output(node, (l, v), (_edge(x),), records, x._volatile)
    if records:
        node.L = _save(outs[0], True)
        node.V = _save(outs[1], True)
    return eigh_result(*outs)


svd_result = namedtuple("svd", ["U", "S", "Vh"])
svd_result.__module__ = "pyad.linalg"


cdef class SvdBackward(Node):
    cdef SavedVariable U
    cdef SavedVariable S
    cdef SavedVariable Vh
    cdef bint full_matrices

    cdef tuple _backward(self, tuple grads):
        # torch's svd_backward; a full decomposition is first cut to its first k
        # columns of U / rows of Vh (the others do not depend on A), as torch does.
        cdef Variable u, s, vh
        gu, gs, gvh = grads
        u = self.U.unpack(self)
        s = self.S.unpack(self)
        vh = self.Vh.unpack(self)
        m = _dim_size(u._data.shape, 2)
        n = _dim_size(vh._data.shape, 1)
        k = _dim_size(s._data.shape, 1)
        if self.full_matrices:
            u = getitem(u, (Ellipsis, slice(0, k)))
            vh = getitem(vh, (Ellipsis, slice(0, k), slice(None)))
            if gu is not None:
                gu = getitem(gu, (Ellipsis, slice(0, k)))
            if gvh is not None:
                gvh = getitem(gvh, (Ellipsis, slice(0, k), slice(None)))
        if gu is None and gvh is None:
            if m >= n:
                return (matmul(u, mul(unsqueeze(gs, -1), vh)),)
            return (matmul(mul(u, unsqueeze(gs, -2)), vh),)
        uhgu = vhgv = None
        if gu is not None:
            uhgu = matmul(_mH(u), gu)
            uhgu = sub(uhgu, _mH(uhgu))
        if gvh is not None:
            vhgv = matmul(vh, _mH(gvh))
            vhgv = sub(vhgv, _mH(vhgv))
        if _dtype_kind(u._data) == b'c':
            # singular vectors are defined up to a common phase e^{i phi} per pair: a
            # loss must not depend on it (torch's check: Im diag(U^H gU) = -Im diag(V^H gV))
            xp = _xp_of(u._data)
            _check_phase_invariant(
                None if uhgu is None else xp.diagonal(uhgu._data, 0, -2, -1).imag,
                None if vhgv is None else -xp.diagonal(vhgv._data, 0, -2, -1).imag,
                "svd", "singular vectors",
                "phase term, making it ill-defined.")
        s2 = mul(s, s)
        eye = _xp_of(s._data).eye(k, dtype=s._data.dtype)
        e = add(sub(unsqueeze(s2, -2), unsqueeze(s2, -1)), eye)
        if uhgu is not None and vhgv is not None:
            ga = div(add(mul(uhgu, unsqueeze(s, -2)), mul(unsqueeze(s, -1), vhgv)), e)
        elif uhgu is not None:
            ga = mul(div(uhgu, e), unsqueeze(s, -2))
        else:
            ga = mul(unsqueeze(s, -1), div(vhgv, e))
        if gs is not None:
            ga = add(ga, diag_embed(gs))
        if uhgu is not None and _dtype_kind(u._data) == b'c':
            ga = add(ga, diag_embed(div(_diagonal(uhgu, 0, uhgu._data.ndim - 2,
                                                  uhgu._data.ndim - 1), mul(s, 2.0))))
        if m > n and gu is not None:
            ga = matmul(u, ga)
            gusinv = div(gu, unsqueeze(s, -2))
            ga = sub(add(ga, gusinv), matmul(u, matmul(_mH(u), gusinv)))
            return (matmul(ga, vh),)
        if m < n and gvh is not None:
            ga = matmul(ga, vh)
            sinvgvh = div(gvh, unsqueeze(s, -1))
            ga = sub(add(ga, sinvgvh), matmul(matmul(sinvgvh, _mH(vh)), vh))
            return (matmul(u, ga),)
        if m >= n:
            return (matmul(u, matmul(ga, vh)),)
        return (matmul(matmul(u, ga), vh),)

    cdef void _release_saved(self) noexcept:
        self._released = True
        self.U.release()
        self.S.release()
        self.Vh.release()


@profiled_op
def svd(A, full_matrices=True):
    """Singular value decomposition ``A = U diag(S) Vh`` (S descending), as
    ``torch.linalg.svd``. The gradient is torch's: it divides by gaps between squared
    singular values (not defined when they repeat) and a loss must not depend on the
    singular vectors' signs; with ``full_matrices=True`` only the first ``k = min(m, n)``
    columns of U / rows of Vh carry a gradient (torch's choice).

    >>> pyad.linalg.svd(pyad.tensor([[3., 0.], [0., -2.]])).S
    tensor([3., 2.])
    """
    cdef Variable x = _matrix_input(A, "svd", False)
    u, s, vh = _linalg_call(_xp_of(x._data).linalg.svd, "svd", "the algorithm did not converge",
                            (x._data, bool(full_matrices)))
    cdef SvdBackward node = None
    cdef bint records = _records(x)
    if records:
        node = SvdBackward.__new__(SvdBackward)
        node.full_matrices = bool(full_matrices)
    outs = _multi_output(node, (u, s, vh), (_edge(x),), records, x._volatile)
    if records:
        node.U = _save(outs[0], True)
        node.S = _save(outs[1], True)
        node.Vh = _save(outs[2], True)
    return svd_result(*outs)


@profiled_op
def svdvals(A):
    """The singular values of ``A``, descending (``svd(A, False).S``, differentiable
    through it).

    >>> pyad.linalg.svdvals(pyad.tensor([[3., 0.], [0., -2.]]))
    tensor([3., 2.])
    """
    cdef Variable x = _matrix_input(A, "svdvals", False)
    if not _records(x):
        return _plain(_linalg_call(_xp_of(x._data).linalg.svd, "svdvals",
                                   "the algorithm did not converge",
                                   (x._data, False, False)), x._volatile)
    return svd(x, False).S


# -- norms: pyad.linalg's and the rules of torch.norm (reduction.pxi) ---------------------

# (_sign_data, torch's sign on arrays, is in elementwise.pxi)


cdef Variable _masked_recip_scale(Variable g, Variable norm, double power):
    # g / norm^power, 0 where norm is 0 (torch's masked_fill), with 1 in the divisor
    # there so that no derivative meets 0 / 0.
    zero = norm._data == 0
    safe = where_const(zero, 1, norm)
    if power != 1:
        safe = pow(safe, power)
    return where_const(zero, 0, div(g, safe))


cdef class NormBackward(Node):
    # torch's norm_backward (the gradient of linalg.vector_norm).
    cdef SavedVariable input
    cdef SavedVariable result
    cdef double p
    cdef tuple dims
    cdef bint keepdim

    def name(self):
        """torch's name for a vector norm's node: ``'LinalgVectorNormBackward'``."""
        return _display_name_or(self, "LinalgVectorNormBackward")

    cdef tuple _backward(self, tuple grads):
        cdef Variable x = self.input.unpack(self)
        cdef Variable norm = self.result.unpack(self)
        cdef Variable g = grads[0]
        cdef double p = self.p
        shape = x._data.shape
        if not self.keepdim:
            kshape = _keepdim_shape(shape, self.dims)
            g = _reshape(g, kshape, False)
            norm = _reshape(norm, kshape, False)
        xd = x._data
        cx = _dtype_kind(xd) == b'c'
        sgn = _sgn(x) if cx else _sign_data(xd)     # complex: z / |z|, differentiable
        if p == 1:
            r = mul(broadcast_to(g, shape), sgn)
            # real: sign(x) is a constant, yet torch's formula takes x, so under
            # create_graph the gradient depends on x with a zero derivative
            return (r if cx else _with_zero_dependence(r, x),)
        if p == 2:
            return (mul(g, where_const(norm._data == 0, 0, div(x, where_const(
                norm._data == 0, 1, norm)))),)
        if p == numpy.inf or p == -numpy.inf:
            # amax / amin of |x|: ties share the gradient, nan counts as an extremum
            xp = _xp_of(xd)
            ax = xp.abs(xd)
            mask = (ax == norm._data) | xp.isnan(ax)
            count = _sum_data(mask, self.dims, True)
            if cx:
                return (mul(g, mul(sgn, (mask / count).astype(ax.dtype, copy=False))),)
            return (_with_zero_dependence(
                mul(g, (sgn * mask / count).astype(xd.dtype, copy=False)), x),)
        if p < 1:
            zero = xd == 0
            scaled = mul(where_const(zero, 0, pow(where_const(zero, 1, abs(x)), p - 1)), sgn)
            # norm^(1-p), 0 at a zero norm: with 1 in the base there, no 0 * inf in its
            # derivative
            nz = norm._data == 0
            return (mul(mul(scaled, g), where_const(nz, 0, pow(where_const(nz, 1, norm),
                                                                1 - p))),)
        if p < 2:
            scaled = mul(pow(abs(x), p - 1), sgn)
        else:
            scaled = mul(x, pow(abs(x), p - 2))
        return (mul(scaled, _masked_recip_scale(g, norm, p - 1)),)

    cdef void _release_saved(self) noexcept:
        self._released = True
        self.input.release()
        self.result.release()


cdef class NormZeroBackward(Node):
    # The 0 "norm" counts nonzeros: no gradient (torch's is undefined).
    cdef tuple _backward(self, tuple grads):
        return (None,)


cdef double _norm_order(object ord, str what) except? -1:
    if isinstance(ord, (bool, numpy.bool_)) or not isinstance(ord, (int, float, numpy.number)):
        raise TypeError("%s(): ord must be a number, got %r" % (what, ord))
    return float(ord)


cdef Variable _vector_norm(object input, object ord, object dim, object keepdim, object dtype,
                           str what):
    cdef Variable x = _as_variable(input, what)
    cdef double p = _norm_order(ord, what)
    if not _is_float_dtype(x._data.dtype):
        raise RuntimeError("%s(): Expected a floating point or complex tensor as input. Got %s"
                           % (what, x._data.dtype))
    if dtype is not None:
        dtype = numpy.dtype(dtype)
        if not numpy.can_cast(x._data.dtype, dtype, "safe"):
            raise RuntimeError("%s(): the dtype of the input (%s) should be convertible "
                               "without narrowing to the specified dtype (%s)"
                               % (what, x._data.dtype, dtype))
        x = _convert(x, None, dtype, False)
    if isinstance(dim, (tuple, list)) and len(dim) == 0:
        dim = None
    cdef tuple dims = _normalize_dims(dim, x._data.ndim, what)
    cdef bint kd = bool(keepdim)
    d = x._data
    if p < 0 or p == numpy.inf:
        if dim is None and d.size == 0:
            raise RuntimeError("%s cannot compute the %s norm on an empty tensor because the "
                               "operation does not have an identity" % (what, _order_str(p)))
        for i in dims:
            if d.shape[i] == 0:
                raise RuntimeError("%s cannot compute the %s norm on the dimension %d because "
                                   "this dimension is empty and the operation does not have "
                                   "an identity" % (what, _order_str(p), i))
    xp = _xp_of(d)
    out_dtype = d.dtype
    if _dtype_kind(d) == b'c':
        out_dtype = d.real.dtype            # the norm of a complex vector is real (torch)
    if p == 2 and out_dtype is not d.dtype:
        data = _np_sqrt(_sum_data(d.real * d.real + d.imag * d.imag, dims, kd))
    elif p == 2:
        data = _np_sqrt(_sum_data(d * d, dims, kd))
    elif p == 1:
        data = _sum_data(xp.abs(d), dims, kd)
    elif p == numpy.inf:
        data = _extremum_data(xp.abs(d), dims, kd, True)
    elif p == -numpy.inf:
        data = _extremum_data(xp.abs(d), dims, kd, False)
    elif p == 0:
        data = _sum_data(d != 0, dims, kd, out_dtype)
    else:
        with numpy.errstate(divide="ignore"):       # |0| ** p = inf for p < 0
            data = _np_power(_sum_data(_np_power(xp.abs(d), p), dims, kd), 1.0 / p)
    data = _ensure_array(data).astype(out_dtype, copy=False)
    cdef NormBackward node
    cdef Variable out
    if _records(x):
        if p == 0:
            return _recorded1(NormZeroBackward.__new__(NormZeroBackward), data, _edge(x))
        node = NormBackward.__new__(NormBackward)
        node.p = p
        node.dims = dims
        node.keepdim = kd
        out = _recorded1(node, data, _edge(x))
        node.input = _save(x, False, 0)
        node.result = _save(out, True)
        return out
    return _plain(data, x._volatile)


cdef str _order_str(double p):
    if p == numpy.inf:
        return "inf"
    if p == -numpy.inf:
        return "-inf"
    return ("%d" % p) if p == <long long>p else repr(p)


@profiled_op
def vector_norm(x, ord=2, dim=None, keepdim=False, dtype=None):
    """The vector ``ord``-norm of ``x`` over ``dim`` (an int, a tuple, or None for all
    elements): ``ord`` 2 (default), 1, ``inf`` (max |x|), ``-inf`` (min |x|), 0 (number
    of nonzeros) or any float, ``sum(|x|**ord)**(1/ord)``. At a zero vector the gradient
    is 0 (a subgradient), as torch's. ``pyad.linalg.vector_norm``.

    >>> vector_norm(Variable(numpy.array([3., -4.])))
    tensor(5., dtype=float64)
    """
    return _vector_norm(x, ord, dim, keepdim, dtype, "linalg.vector_norm")


@profiled_op("linalg_norm")
def _linalg_norm(x, ord=None, dim=None, keepdim=False, dtype=None):
    """torch.linalg.norm: a vector norm (over one dim, or of the flattened input when
    ``ord`` and ``dim`` are None), or a matrix norm (a 2-D input with ``ord`` given, or
    ``dim`` a pair): ``'fro'``, ``'nuc'``, 2, -2, 1, -1, ``inf``, ``-inf``.
    ``pyad.linalg.norm``.

    >>> _linalg_norm(Variable(numpy.array([[1., -2.], [0., 3.]])), 1)
    tensor(5., dtype=float64)
    """
    cdef Variable v = _as_variable(x, "linalg.norm")
    if isinstance(dim, int) or (isinstance(dim, (tuple, list)) and len(dim) == 1):
        return _vector_norm(v, 2 if ord is None else ord, dim, keepdim, dtype, "linalg.norm")
    if dim is None:
        if ord is None:
            return _vector_norm(v, 2, None, keepdim, dtype, "linalg.norm")
        if v._data.ndim == 1:
            return _vector_norm(v, ord, None, keepdim, dtype, "linalg.norm")
        if v._data.ndim != 2:
            raise RuntimeError("linalg.norm(): If dim is not specified but ord is, the input "
                               "must be 1D or 2D. Got %dD." % v._data.ndim)
        dim = (0, 1)
    if not isinstance(dim, (tuple, list)) or len(dim) != 2:
        raise RuntimeError("linalg.norm(): dim must be an int, a pair of ints or None, got %r"
                           % (dim,))
    return _matrix_norm(v, "fro" if ord is None else ord, dim, bool(keepdim), dtype)


cdef Variable _matrix_norm(Variable x, object ord, object dim, bint keepdim, object dtype):
    cdef tuple dims = _normalize_dims(dim, x._data.ndim, "linalg.matrix_norm")
    if len(dims) != 2:
        raise RuntimeError("linalg.matrix_norm(): dims must be different, got %r" % (dim,))
    if isinstance(ord, str):
        if ord == "fro":
            return _vector_norm(x, 2, dims, keepdim, dtype, "linalg.matrix_norm")
        if ord == "nuc":
            return _spectral_norm(x, 0, dim, keepdim, dtype)
        raise RuntimeError("linalg.matrix_norm(): Order %s not supported." % ord)
    cdef double p = _norm_order(ord, "linalg.matrix_norm")
    if p == 2 or p == -2:
        return _spectral_norm(x, p, dim, keepdim, dtype)
    if p not in (1, -1, numpy.inf, -numpy.inf):
        raise RuntimeError("linalg.matrix_norm(): Order %s not supported." % _order_str(p))
    if not _is_float_dtype(x._data.dtype):
        raise RuntimeError("linalg.matrix_norm(): Expected a floating point or complex tensor "
                           "as input. Got %s" % x._data.dtype)
    if dtype is not None:
        x = _convert(x, None, dtype, False)
    d0, d1 = (dim[0], dim[1])
    d0 = _normalize_dim(d0, x._data.ndim, "linalg.matrix_norm")
    d1 = _normalize_dim(d1, x._data.ndim, "linalg.matrix_norm")
    if p == numpy.inf or p == -numpy.inf:
        d0, d1 = d1, d0                      # max row sum: sum over columns first
    # 1: the largest column sum of |x| (sum over d0, then the extremum over d1).
    out = _amax_amin(sum(abs(x), d0, True), d1, True, p > 0)
    if not keepdim:
        out = _reshape(out, tuple([s for i, s in enumerate(out._data.shape) if i not in dims]),
                       False)
    return out


cdef Variable _spectral_norm(Variable x, double p, object dim, bint keepdim, object dtype):
    # ord 2 / -2: the largest / smallest singular value; p == 0 stands for 'nuc', their
    # sum. Gradients through svdvals (U diag(g) V^H; ties of amax/amin split as torch).
    if not _is_float_dtype(x._data.dtype):
        raise RuntimeError("linalg.matrix_norm(): Expected a floating point or complex tensor "
                           "as input. Got %s" % x._data.dtype)
    if dtype is not None:
        x = _convert(x, None, dtype, False)
    cdef Py_ssize_t d0 = _normalize_dim(dim[0], x._data.ndim, "linalg.matrix_norm")
    cdef Py_ssize_t d1 = _normalize_dim(dim[1], x._data.ndim, "linalg.matrix_norm")
    s = svdvals(movedim(x, (d0, d1), (-2, -1)))
    if p == 0:
        out = sum(s, -1)
    else:
        out = _amax_amin(s, -1, False, p > 0)
    if keepdim:
        out = unsqueeze(unsqueeze(out, d0 if d0 < d1 else d1), d1 if d0 < d1 else d0)
    return out


@profiled_op
def _linalg_matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False, dtype=None):
    """torch.linalg.matrix_norm: ``'fro'`` (default), ``'nuc'`` (the sum of the singular
    values), 2 / -2 (the largest / smallest singular value), 1, -1, ``inf``, ``-inf``
    (largest / smallest absolute column or row sum), over the two dims ``dim``.
    ``pyad.linalg.matrix_norm``.

    >>> _linalg_matrix_norm(Variable(numpy.array([[3., 0.], [0., -4.]])), 2)
    tensor(4., dtype=float64)
    """
    cdef Variable v = _as_variable(A, "linalg.matrix_norm")
    if not isinstance(dim, (tuple, list)) or len(dim) != 2:
        raise RuntimeError("linalg.matrix_norm(): dim must be a 2-tuple of ints, got %r"
                           % (dim,))
    if v._data.ndim < 2:
        raise RuntimeError("linalg.matrix_norm(): The input tensor A must have at least 2 "
                           "dimensions.")
    return _matrix_norm(v, ord, dim, bool(keepdim), dtype)


# -- cross products and matrix powers ---------------------------------------------------

cdef Variable _cross(object input, object other, object dim, str what):
    try:
        a, b = broadcast_tensors(_as_variable(input, what), _as_variable(other, what))
    except _OP_ERRORS as exc:
        raise _renamed(exc, what) from None
    shape = (<Variable>a)._data.shape
    if dim is None:       # torch.cross without dim: the first dimension of size 3
        for i, n in enumerate(shape):
            if n == 3:
                dim = i
                break
        else:
            raise RuntimeError("%s(): no dimension of size 3 in input of shape %s"
                               % (what, _shape_str(shape)))
    cdef Py_ssize_t d = _normalize_dim_sized(dim, len(shape), what)
    if shape[d] != 3:
        raise RuntimeError("%s(): the size of dimension %d must be 3, got %d"
                           % (what, d, shape[d]))
    a0, a1, a2 = select(a, d, 0), select(a, d, 1), select(a, d, 2)
    b0, b1, b2 = select(b, d, 0), select(b, d, 1), select(b, d, 2)
    return stack([sub(mul(a1, b2), mul(a2, b1)), sub(mul(a2, b0), mul(a0, b2)),
                  sub(mul(a0, b1), mul(a1, b0))], d)


@profiled_op
def cross(input, other, dim=None, *, out=None):
    """Cross product of 3-vectors along ``dim`` (the first dimension of size 3 when
    None, as torch.cross); the inputs broadcast.

    >>> cross(Variable(numpy.array([1., 0., 0.])), Variable(numpy.array([0., 1., 0.])))
    tensor([0., 0., 1.], dtype=float64)
    """
    if out is not None: return _write_out("cross", out, cross(input, other, dim), _OUT_EXACT)
    return _cross(input, other, dim, "cross")


@profiled_op("linalg_cross")
def _linalg_cross(input, other, *, dim=-1):
    """torch.linalg.cross: the cross product of 3-vectors along ``dim`` (default the
    last), with broadcasting. ``pyad.linalg.cross``.

    >>> _linalg_cross(Variable(numpy.array([[0., 1., 0.]])), Variable(numpy.array([0., 0., 1.])))
    tensor([[1., 0., 0.]], dtype=float64)
    """
    return _cross(input, other, dim, "linalg.cross")


@profiled_op
def matrix_power(input, n, *, out=None):
    """The (batch of) square matrices raised to the integer power ``n`` by repeated
    squaring; negative ``n`` inverts first, ``n = 0`` gives identities (no graph).

    >>> matrix_power(Variable(numpy.array([[1., 1.], [0., 1.]])), 3).tolist()
    [[1.0, 3.0], [0.0, 1.0]]
    """
    if out is not None: return _write_out("matrix_power", out, matrix_power(input, n), _OUT_EXACT)
    cdef Variable x = _as_variable(input, "matrix_power")
    shape = x._data.shape
    # (no negative indexing: the engine is compiled with wraparound off)
    if len(shape) < 2 or _dim_size(shape, 1) != _dim_size(shape, 2):
        raise RuntimeError("matrix_power(): expected a (batch of) square matrices, got "
                           "shape %s" % _shape_str(shape))
    cdef Py_ssize_t k = _int_arg(n, "matrix_power", "n")
    if k == 0:
        xp = _xp_of(x._data)
        eye = xp.broadcast_to(xp.eye(_dim_size(shape, 1), dtype=x._data.dtype), shape).copy()
        return _plain(eye, x._volatile)
    if k < 0:
        try:
            x = inv(x)
        except _OP_ERRORS as exc:
            raise _renamed(exc, "matrix_power") from None
        k = -k
    result = None
    base = x
    while k:
        if k & 1:
            result = base if result is None else matmul(result, base)
        k >>= 1
        if k:
            base = matmul(base, base)
    return result


# -- add a scaled product: addmm, addmv, baddbmm, addbmm -------------------------------

cdef Variable _add_product(str what, object input, Variable product, object beta,
                           object alpha):
    # beta * input + alpha * product, as torch: input broadcasts to the product's shape
    # (never the other way), and with beta == 0 input is ignored (its nan and inf too)
    # while still receiving a zero gradient.
    cdef Variable x = _as_variable(input, what)
    if x._data.dtype != product._data.dtype:
        raise RuntimeError("%s(): self and mat2 must have the same dtype, but got %s and %s"
                           % (what, x._data.dtype, product._data.dtype))
    shape = product._data.shape
    try:
        ok = numpy.broadcast_shapes(x._data.shape, shape) == shape
    except ValueError:
        ok = False
    if not ok:
        raise RuntimeError("%s(): input of size %s cannot be expanded to the product's "
                           "size %s" % (what, _shape_str(x._data.shape), _shape_str(shape)))
    if alpha != 1:
        product = mul(product, alpha)
    if beta == 0:
        if not _requires_grad_now(x):
            return product
        return add(product, where_const(True, 0, expand(x, shape)))
    return add(x if beta == 1 else mul(x, beta), product)


cdef bint _sums_in_float32(object input, Variable a, Variable b):
    # float16/bfloat16 operands of one dtype: torch's addmm & co add the product and the
    # input in float32 and round once (the callers run in float32 and cast back)
    return (_is_reduced_float(a._data) and isinstance(input, Variable)
            and a._data.dtype == b._data.dtype == (<Variable>input)._data.dtype)


cdef inline Variable _f32(object v):
    return _convert(<Variable>v, None, numpy.float32, False)


cdef void _check_matrices(str what, str first, Variable a, int a_dims, str second, Variable b,
                          int b_dims) except *:
    if a._data.ndim != a_dims:
        raise RuntimeError("%s(): %s must be a %s, got %d-D Variable"
                           % (what, first, "matrix" if a_dims == 2 else "3D Variable",
                              a._data.ndim))
    if b._data.ndim != b_dims:
        raise RuntimeError("%s(): %s must be a %s, got %d-D Variable"
                           % (what, second, {1: "vector", 2: "matrix"}.get(b_dims, "3D Variable"),
                              b._data.ndim))
    if a._data.dtype != b._data.dtype:
        raise RuntimeError("%s(): expected %s and %s to have the same dtype, but got: %s != %s"
                           % (what, first, second, a._data.dtype, b._data.dtype))
    inner_a = a._data.shape[a._data.ndim - 1]
    inner_b = b._data.shape[0 if b_dims == 1 else b._data.ndim - 2]
    batch_ok = a_dims != 3 or b_dims != 3 or a._data.shape[0] == b._data.shape[0]
    if inner_a != inner_b or not batch_ok:
        raise RuntimeError("%s(): %s and %s shapes cannot be multiplied (%s and %s)"
                           % (what, first, second, "x".join(str(n) for n in a._data.shape),
                              "x".join(str(n) for n in b._data.shape)))


@profiled_op
def addmm(input, mat1, mat2, *, beta=1, alpha=1, out=None):
    """``beta * input + alpha * (mat1 @ mat2)``: ``mat1`` and ``mat2`` matrices,
    ``input`` broadcast to the product's shape (ignored when ``beta`` is 0).

    >>> addmm(Variable(numpy.ones(2)), Variable(numpy.eye(2)), Variable(numpy.eye(2) * 3),
    ...       alpha=2)
    tensor([[7., 1.],
            [1., 7.]], dtype=float64)
    """
    if out is not None: return _write_out("addmm", out, addmm(input, mat1, mat2, beta=beta,
                                          alpha=alpha), _OUT_EXACT)
    cdef Variable a = _as_variable(mat1, "addmm")
    cdef Variable b = _as_variable(mat2, "addmm")
    _check_matrices("addmm", "mat1", a, 2, "mat2", b, 2)
    if _sums_in_float32(input, a, b):
        return _convert(addmm(_f32(input), _f32(a), _f32(b), beta=beta, alpha=alpha), None,
                        a._data.dtype, False)
    # (torch's node name: the product and the sum are one op there)
    return _name_grad_fn(_add_product("addmm", input, matmul(a, b), beta, alpha),
                         input, "AddmmBackward")


@profiled_op
def addmv(input, mat, vec, *, beta=1, alpha=1, out=None):
    """``beta * input + alpha * (mat @ vec)``: ``mat`` a matrix, ``vec`` a vector.

    >>> addmv(Variable(numpy.ones(2)), Variable(numpy.eye(2)), Variable(numpy.array([2., 3.])))
    tensor([3., 4.], dtype=float64)
    """
    if out is not None: return _write_out("addmv", out, addmv(input, mat, vec, beta=beta,
                                          alpha=alpha), _OUT_EXACT)
    cdef Variable a = _as_variable(mat, "addmv")
    cdef Variable v = _as_variable(vec, "addmv")
    _check_matrices("addmv", "mat", a, 2, "vec", v, 1)
    if _sums_in_float32(input, a, v):
        return _convert(addmv(_f32(input), _f32(a), _f32(v), beta=beta, alpha=alpha), None,
                        a._data.dtype, False)
    # (torch's node name: the product and the sum are one op there)
    return _name_grad_fn(_add_product("addmv", input, matmul(a, v), beta, alpha),
                         input, "AddmvBackward")


@profiled_op
def baddbmm(input, batch1, batch2, *, beta=1, alpha=1, out=None):
    """``beta * input + alpha * (batch1 @ batch2)``, the product a batch of matrix
    products (``batch1`` and ``batch2`` 3-D with the same batch size).

    >>> baddbmm(Variable(numpy.zeros(1)), Variable(numpy.ones((2, 1, 3))),
    ...         Variable(numpy.ones((2, 3, 1)))).shape
    (2, 1, 1)
    """
    if out is not None: return _write_out("baddbmm", out, baddbmm(input, batch1, batch2,
                                          beta=beta, alpha=alpha), _OUT_EXACT)
    cdef Variable a = _as_variable(batch1, "baddbmm")
    cdef Variable b = _as_variable(batch2, "baddbmm")
    _check_matrices("baddbmm", "batch1", a, 3, "batch2", b, 3)
    if _sums_in_float32(input, a, b):
        return _convert(baddbmm(_f32(input), _f32(a), _f32(b), beta=beta, alpha=alpha), None,
                        a._data.dtype, False)
    # (torch's node name: the product and the sum are one op there)
    return _name_grad_fn(_add_product("baddbmm", input, matmul(a, b), beta, alpha),
                         input, "BaddbmmBackward")


@profiled_op
def addbmm(input, batch1, batch2, *, beta=1, alpha=1, out=None):
    """``beta * input + alpha * sum_b(batch1[b] @ batch2[b])``: a batch of matrix
    products summed into one matrix.

    >>> addbmm(Variable(numpy.zeros((1, 1))), Variable(numpy.ones((2, 1, 3))),
    ...        Variable(numpy.ones((2, 3, 1))))
    tensor([[6.]], dtype=float64)
    """
    if out is not None: return _write_out("addbmm", out, addbmm(input, batch1, batch2,
                                          beta=beta, alpha=alpha), _OUT_EXACT)
    cdef Variable a = _as_variable(batch1, "addbmm")
    cdef Variable b = _as_variable(batch2, "addbmm")
    _check_matrices("addbmm", "batch1", a, 3, "batch2", b, 3)
    if _sums_in_float32(input, a, b):
        return _convert(addbmm(_f32(input), _f32(a), _f32(b), beta=beta, alpha=alpha), None,
                        a._data.dtype, False)
    return _name_grad_fn(_add_product("addbmm", input, sum(matmul(a, b), 0), beta, alpha),
                         input, "AddbmmBackward")


# -- distances ----------------------------------------------------------------------------

cdef class CdistMaxBackward(Node):
    # max_k |d_k|: as torch's cdist, every coordinate k that reaches the max gets the
    # full gradient times sign(d_k) (a reduction's amax would share it among ties). Also
    # the p = 0 count, with a zero weight.
    cdef object weight                  # sign(d) where |d| is the max, else 0 (an array)

    cdef tuple _backward(self, tuple grads):
        if self.weight is None:
            raise _freed_error(self)
        return (mul(unsqueeze(grads[0], -1), self.weight),)

    cdef void _release_saved(self) noexcept:
        self._released = True
        self.weight = None


cdef Variable _cdist_max(Variable d):
    xp = _xp_of(d._data)
    magnitude = xp.abs(d._data)
    top = magnitude.max(axis=-1, keepdims=True) if magnitude.shape[magnitude.ndim - 1] \
        else xp.zeros(magnitude.shape[:magnitude.ndim - 1] + (1,), dtype=magnitude.dtype)
    data = top[..., 0]
    cdef CdistMaxBackward node
    if _records(d):
        node = CdistMaxBackward.__new__(CdistMaxBackward)
        # torch's arithmetic for the tie mask, so an inf coordinate gives its nan too
        node.weight = xp.sign(d._data) * (1 - xp.minimum(1, xp.ceil(xp.abs(magnitude - top))))
        return _recorded1(node, data, _edge(d))
    return _plain(data, d._volatile)


cdef Variable _cdist_count(Variable d):
    # the number of differing coordinates: no gradient, but connected, so the inputs get
    # zeros, as torch's (a zero weight through the max node's backward)
    xp = _xp_of(d._data)
    data = (d._data != 0).sum(axis=-1).astype(d._data.dtype)
    cdef CdistMaxBackward node
    if _records(d):
        node = CdistMaxBackward.__new__(CdistMaxBackward)
        node.weight = xp.zeros_like(d._data)
        return _recorded1(node, data, _edge(d))
    return _plain(data, d._volatile)


@profiled_op
def cdist(x1, x2, p=2.0, compute_mode="use_mm_for_euclid_dist_if_necessary"):
    """The ``p``-norm distance between each row of ``x1`` (``(..., P, M)``) and each row of
    ``x2`` (``(..., R, M)``): a ``(..., P, R)`` Variable, the batch dimensions broadcast.
    As torch, the gradient is 0 where a distance is 0, and for ``p = inf`` every
    coordinate that reaches the maximum gets the full gradient.

    >>> cdist(Variable(numpy.array([[0., 0.], [3., 4.]])), Variable(numpy.array([[0., 0.]])))
    tensor([[0.],
            [5.]], dtype=float64)
    """
    what = "cdist"
    cdef Variable a = _as_variable(x1, what)
    cdef Variable b = _as_variable(x2, what)
    for name, v in (("X1", a), ("X2", b)):
        if (<Variable>v)._data.ndim < 2:
            raise RuntimeError("%s(): cdist only supports at least 2D tensors, %s got: %dD"
                               % (what, name, (<Variable>v)._data.ndim))
    for name, v in (("X1", a), ("X2", b)):
        if _is_reduced_float((<Variable>v)._data):
            raise NotImplementedError('%s(): "cdist" not implemented for \'%s\''
                                      % (what, _torch_dtype_name((<Variable>v)._data.dtype)))
        if (<Variable>v)._data.dtype.kind != "f":
            dname = str((<Variable>v)._data.dtype)
            raise RuntimeError("%s(): cdist only supports floating-point dtypes, %s got: %s"
                               % (what, name, _torch_dtype_name(dname)))
    if a._data.dtype != b._data.dtype:
        raise RuntimeError("%s(): expected both inputs to have the same dtype, got %s and %s"
                           % (what, a._data.dtype, b._data.dtype))
    if a._data.shape[a._data.ndim - 1] != b._data.shape[b._data.ndim - 1]:
        raise RuntimeError("%s(): X1 and X2 must have the same number of columns. X1: %d X2: %d"
                           % (what, a._data.shape[a._data.ndim - 1],
                              b._data.shape[b._data.ndim - 1]))
    if not isinstance(p, (int, float)) or isinstance(p, bool) or p != p or p < 0:
        raise RuntimeError("%s(): cdist only supports non-negative p values" % what)
    if compute_mode not in ("use_mm_for_euclid_dist_if_necessary", "use_mm_for_euclid_dist",
                            "donot_use_mm_for_euclid_dist"):
        raise ValueError("%s(): %s is not a valid value for compute_mode" % (what, compute_mode))
    # every pair's difference, (..., P, R, M): the same arithmetic for every p (torch's
    # direct kernel; its matrix-product shortcut for p = 2 trades accuracy for speed)
    batch = numpy.broadcast_shapes(a._data.shape[:a._data.ndim - 2],
                                   b._data.shape[:b._data.ndim - 2])
    P, R, M = a._data.shape[a._data.ndim - 2], b._data.shape[b._data.ndim - 2], \
        a._data.shape[a._data.ndim - 1]
    _checked_sizes(batch + (P, R, M), a._data.itemsize, what)
    d = sub(unsqueeze(a, -2), unsqueeze(b, -3))
    if p == float("inf"):
        return _cdist_max(d)
    if p == 0:
        return _cdist_count(d)
    return _vector_norm(d, p, -1, False, None, what)


@profiled_op
def dist(input, other, p=2):
    """The ``p``-norm of ``input - other`` (broadcast), a 0-d Variable.

    >>> dist(Variable(numpy.array([3., 4.])), Variable(numpy.zeros(2)))
    tensor(5., dtype=float64)
    """
    try:
        difference = sub(input, other)
    except _OP_ERRORS as exc:
        raise _renamed(exc, "dist") from None
    return _vector_norm(difference, p, None, False, None, "dist")


LINALG_NAMESPACE_OPS = (inv, det, slogdet, solve, cholesky, qr, eigh, svd, svdvals)
"""pyad.linalg (pyad/linalg.py re-exports them; not Variable methods)."""
# A family in a namespace: its ops are pyad.linalg.<name> only (neither pyad.<name> nor
# Variable methods).
LINALG_NAMESPACE_TITLE = "pyad.linalg"
LINALG_NAMESPACE_MODULE = "linalg"


LINALG_OPS = (matmul, mm, bmm, mv, dot, outer, einsum, tensordot, trace, diag, diagonal,
              diag_embed, tril, triu, cross, matrix_power, addmm, addmv, baddbmm, addbmm,
              cdist, dist)
"""Linear algebra: matmul / @ (1-D.1-D, 2-D.1-D, 1-D.2-D, 2-D.2-D, batched with
broadcasting, 1-D with batched), mm, bmm, mv, dot, outer, einsum, tensordot; diagonals
(trace, diag, diagonal, diag_embed) and triangles (tril, triu)."""
# The family's heading in docs/op-reference.md, and its ops that are pyad.<name>
# functions but not Variable methods (torch has no method for einsum and tensordot).
LINALG_TITLE = "Linear algebra"
LINALG_FUNCTION_ONLY = ("einsum", "tensordot", "cdist")
