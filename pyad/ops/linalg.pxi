# Linear algebra.


cdef class MatmulBackward(Node):
    cdef SavedVariable a
    cdef SavedVariable b

    cdef tuple _backward(self, tuple grads):
        cdef Variable a, b, a2, b2
        if not _grad_enabled() and self.a.data(self).ndim == 2 and self.b.data(self).ndim == 2:
            return self._backward_2d(grads[0])
        a = self.a.unpack(self)
        b = self.b.unpack(self)
        g = grads[0]
        a_shape = a._data.shape
        b_shape = b._data.shape
        # Treat 1-D operands as matrices (a row for a, a column for b) so one formula
        # covers vector, matrix and batched products; sum_to undoes batch broadcasting.
        a2 = unsqueeze(a, 0) if len(a_shape) == 1 else a
        b2 = unsqueeze(b, -1) if len(b_shape) == 1 else b
        if len(a_shape) == 1 and len(b_shape) == 1:
            g = _reshape(g, (1, 1), False)
        elif len(a_shape) == 1:
            g = unsqueeze(g, -2)
        elif len(b_shape) == 1:
            g = unsqueeze(g, -1)
        ga = gb = None
        if self._needs_input_grad(0):
            ga = _reduce_grad(matmul(g, transpose(b2, -1, -2)), a2._data.shape, a._data.dtype)
            if a2 is not a:
                ga = _reshape(ga, a_shape, False)
        if self._needs_input_grad(1):
            gb = _reduce_grad(matmul(transpose(a2, -1, -2), g), b2._data.shape, b._data.dtype)
            if b2 is not b:
                gb = _reshape(gb, b_shape, False)
        return (ga, gb)

    cdef tuple _backward_2d(self, Variable g):
        # The common matrix case on arrays: g @ b.T and a.T @ g.
        ad = self.a.data(self)
        bd = self.b.data(self)
        xp = _xp_of(g._data)
        ga = gb = None
        if self._needs_input_grad(0):
            ga = _raw(_reduce_data(xp.matmul(g._data, bd.T), ad.shape, ad.dtype))
        if self._needs_input_grad(1):
            gb = _raw(_reduce_data(xp.matmul(ad.T, g._data), bd.shape, bd.dtype))
        return (ga, gb)

    cdef void _release_saved(self):
        self._released = True
        self.a.release()
        self.b.release()


cpdef Variable matmul(object input, object other):
    """Matrix product with NumPy's rules (1-D vectors, batched broadcasting).

    >>> matmul(Variable(numpy.eye(2)), Variable(numpy.array([1., 2.])))
    tensor([1., 2.], dtype=float64)
    """
    if _profiling:
        return _profiled(matmul, (input, other, ))
    cdef Variable a = _as_variable(input)
    cdef Variable b = _as_variable(other)
    if a._data.ndim == 0 or b._data.ndim == 0:
        raise RuntimeError("matmul: both arguments need to be at least 1D, but they are %dD "
                           "and %dD" % (a._data.ndim, b._data.ndim))
    try:
        data = _xp_of(a._data).matmul(a._data, b._data)
    except ValueError:
        raise RuntimeError("matmul: shapes %s and %s cannot be multiplied"
                           % (_shape_str(a._data.shape), _shape_str(b._data.shape))) from None
    except TypeError:
        _check_same_device(a._data, b._data, "matmul")
        raise
    cdef MatmulBackward node
    if (a._requires_grad or b._requires_grad) and _grad_enabled() and not (
            a._volatile or b._volatile):
        node = MatmulBackward.__new__(MatmulBackward)
        node.a = _save(a, False, 0)
        node.b = _save(b, False, 1)
        return _recorded(node, data, (_edge(a), _edge(b)))
    return _plain(data, a._volatile or b._volatile)


def mm(input, mat2):
    """Matrix product of two 2-D Variables.

    >>> mm(Variable(numpy.eye(2) * 2), Variable(numpy.ones((2, 1))))
    tensor([[2.],
            [2.]], dtype=float64)
    """
    if _profiling:
        return _profiled(mm, (input, mat2, ))
    if _as_variable(input)._data.ndim != 2 or _as_variable(mat2)._data.ndim != 2:
        raise RuntimeError("mm: both arguments must be 2D")
    return matmul(input, mat2)


LINALG_OPS = (matmul, mm)
