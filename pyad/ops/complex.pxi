# Complex numbers: conj, real, imag, angle, and the conjugation rule of the backward pass.
#
# pyad follows torch's convention: the gradient of a real loss L with respect to a
# complex z = x + iy is dL/dx + i dL/dy (the conjugate Wirtinger derivative, times 2),
# and a holomorphic op y = f(z) passes grad_in = grad_out * conj(f'(z)).
#
# The backward formulas of the holomorphic ops (mul, div, pow, exp, sin, matmul, einsum,
# prod, ...) are written as for real numbers: grad_out * f'(z). For complex numbers the
# engine runs such a node as conj(backward(conj(grad_out))) = grad_out * conj(f'(z)):
# one rule here instead of a conj in every formula, and every formula keeps its real
# fast path. A node type is listed in _HOLOMORPHIC when its formula is complex-linear
# in the incoming gradient with holomorphic coefficients. Ops whose formula is not of
# that form (abs, angle, real, imag, var, std, norm) compute torch's gradient directly
# and are not listed; linear ops with real coefficients (add, sum, views) need no rule.


cdef class ConjBackward(Node):
    cdef tuple _backward(self, tuple grads):
        return (conj(grads[0]),)


@profiled_op
cpdef Variable conj(object input):
    """Elementwise complex conjugate; a real Variable is returned as it is (torch).

    pyad returns a new array where torch returns a lazily conjugated view.

    >>> conj(Variable(numpy.array([1 + 2j, 3 - 1j])))
    tensor([1.-2.j, 3.+1.j], dtype=complex128)
    """
    cdef Variable x = _as_variable(input, "conj")
    if _dtype_kind(x._data) != b'c':
        return x
    data = _xp_of(x._data).conj(x._data)
    if _records(x):
        return _recorded1(ConjBackward.__new__(ConjBackward), data, _edge(x))
    return _plain(data, x._volatile)


cdef class RealBackward(Node):
    # L depends on Re z only: z.grad = g + 0j
    cdef object input_dtype

    cdef tuple _backward(self, tuple grads):
        return (_convert(<Variable>grads[0], None, self.input_dtype, False),)


cdef class ImagBackward(Node):
    # L depends on Im z only: z.grad = i g
    cdef object input_dtype

    cdef tuple _backward(self, tuple grads):
        return (mul(_convert(<Variable>grads[0], None, self.input_dtype, False), 1j),)


cdef Variable _complex_part(Variable x, bint imaginary):
    cdef Node node
    data = x._data.imag if imaginary else x._data.real
    data = _xp_of(data).ascontiguousarray(data).reshape(data.shape)   # (0-d stays 0-d)
    if _records(x):
        if imaginary:
            node = ImagBackward.__new__(ImagBackward)
            (<ImagBackward>node).input_dtype = x._data.dtype
        else:
            node = RealBackward.__new__(RealBackward)
            (<RealBackward>node).input_dtype = x._data.dtype
        return _recorded1(node, data, _edge(x))
    return _plain(data, x._volatile)


@profiled_op
cpdef Variable real(object input):
    """The real part of a complex Variable; a real Variable is returned as it is (torch).

    pyad returns a new array where torch returns a view.

    >>> real(Variable(numpy.array([1 + 2j, 3 - 1j])))
    tensor([1., 3.], dtype=float64)
    """
    cdef Variable x = _as_variable(input, "real")
    if _dtype_kind(x._data) != b'c':
        return x
    return _complex_part(x, False)


@profiled_op
cpdef Variable imag(object input):
    """The imaginary part of a complex Variable (a real one is refused, as torch).

    pyad returns a new array where torch returns a view.

    >>> imag(Variable(numpy.array([1 + 2j, 3 - 1j])))
    tensor([ 2., -1.], dtype=float64)
    """
    cdef Variable x = _as_variable(input, "imag")
    if _dtype_kind(x._data) != b'c':
        raise RuntimeError("imag(): imag is not implemented for Variables with non-complex "
                           "dtypes (got %s)" % x._data.dtype)
    return _complex_part(x, True)


cdef class AngleBackward(_UnaryNode):
    # angle(x + iy) = atan2(y, x): z.grad = g * i z / |z|^2 (0 at z = 0, torch's choice);
    # a real input's angle is piecewise constant: a zero gradient.
    cdef tuple _backward(self, tuple grads):
        cdef Variable g = grads[0]
        z = self.saved.unpack(self)
        zd = z._data
        xp = _xp_of(zd)
        if _dtype_kind(zd) != b'c':
            return (_raw(xp.zeros(zd.shape, dtype=zd.dtype)),)
        at_zero = xp.asarray(zd == 0)
        # torch's order: ((g z) / |z|^2) i, |z|^2 real (so an infinite z gives nan)
        mag2 = pow(abs(z), 2)
        if bool(at_zero.any()):
            mag2 = where_const(at_zero, 1, mag2)
        with numpy.errstate(all="ignore"):
            t = mul(div(mul(_convert(g, None, zd.dtype, False), z), mag2), 1j)
        if bool(at_zero.any()):
            t = where_const(at_zero, 0, t)
        return (t,)


cdef object _angle_data(object d):
    xp = _xp_of(d)
    if _dtype_kind(d) == b'c':
        return xp.angle(d)
    # torch: pi for negative numbers, 0 otherwise, nan at nan
    out = xp.where(d < 0, numpy.pi, 0.0).astype(d.dtype, copy=False)
    return xp.where(xp.isnan(d), d, out)


@profiled_op
cpdef Variable angle(object input, object out=None):
    """Elementwise argument (phase) of a complex Variable, in radians, as a real Variable;
    for real input: pi for negative numbers, 0 otherwise (torch).

    >>> angle(Variable(numpy.array([1j, -1 + 0j])))
    tensor([1.5708, 3.1416], dtype=float64)
    """
    if out is not None: return _write_out_checked("angle", out, angle(input), (input,))
    return _float_unary(_angle_data, input, AngleBackward, 1, "angle")


@profiled_op
def sgn(input, *, out=None):
    """``z / |z|`` for complex input (0 at 0), ``sign`` for real input, as torch.sgn.

    >>> sgn(Variable(numpy.array([2j, -2 + 0j, 0j]))).tolist()
    [1j, (-1+0j), 0j]
    """
    if out is not None: return _write_out_checked("sgn", out, sgn(input), (input,), _OUT_EXACT)
    cdef Variable x = _as_variable(input, "sgn")
    if _dtype_kind(x._data) != b'c':
        return sign(x)
    # composed of differentiable ops, so its gradient (and the second one) is torch's
    return _sgn(x)


@profiled_op
def vdot(input, other, *, out=None):
    """``sum(conj(input) * other)`` of two 1-D Variables of one dtype, as torch.vdot.

    >>> vdot(Variable(numpy.array([1j, 2.])), Variable(numpy.array([1j, 1.])))
    tensor(3.+0.j, dtype=complex128)
    """
    if out is not None: return _write_out("vdot", out, vdot(input, other), _OUT_EXACT)
    cdef Variable a = _as_variable(input, "vdot")
    cdef Variable b = _as_variable(other, "vdot")
    if a._data.ndim != 1 or b._data.ndim != 1:
        raise RuntimeError("vdot(): 1D Variables expected, but got %dD and %dD Variables"
                           % (a._data.ndim, b._data.ndim))
    if a._data.dtype != b._data.dtype:
        raise RuntimeError("vdot(): expected both vectors to have same dtype, but found %s "
                           "and %s" % (a._data.dtype, b._data.dtype))
    if a._data.shape[0] != b._data.shape[0]:
        raise RuntimeError("vdot(): inconsistent Variable size, expected Variable [%d] and "
                           "src [%d] to have the same number of elements"
                           % (a._data.shape[0], b._data.shape[0]))
    return sum(mul(conj(a), b))


cdef class ViewAsRealBackward(Node):
    cdef tuple _backward(self, tuple grads):
        # the gradient of (re, im) pairs is the complex gradient re + i im
        g = <Variable>grads[0]
        return (add(select(g, -1, 0), mul(select(g, -1, 1), 1j)),)


cdef class ViewAsComplexBackward(Node):
    cdef tuple _backward(self, tuple grads):
        g = <Variable>grads[0]
        return (stack([real(g), imag(g)], -1),)


cdef object _view_as_real_data(object d):
    # (..., 2) real view of complex data: the real parts, then a last axis stepping to
    # the imaginary parts (any strides, 0-d too), sharing memory as torch's view.
    xp = _xp_of(d)
    r = d.real
    return xp.lib.stride_tricks.as_strided(r, d.shape + (2,), r.strides + (r.itemsize,))


cdef object _view_as_complex_data(object d, str what):
    if d.dtype.kind != "f" or d.dtype.itemsize < 4:
        raise RuntimeError("%s(): view_as_complex is only supported for half, float and "
                           "double Variables, but got a Variable of dtype %s" % (what, d.dtype))
    if d.ndim == 0:
        raise RuntimeError("%s(): Input Variable must have one or more dimensions" % what)
    if d.shape[d.ndim - 1] != 2:
        raise RuntimeError("%s(): Variable must have a last dimension of size 2" % what)
    if d.strides[d.ndim - 1] != d.itemsize:
        raise RuntimeError("%s(): Variable must have a last dimension with stride 1" % what)
    for st in d.strides[:d.ndim - 1]:
        if st % (2 * d.itemsize):
            raise RuntimeError("%s(): Variable must have a stride divisible by 2 for all but "
                               "last dimension" % what)
    cdtype = numpy.complex64 if d.itemsize == 4 else numpy.complex128
    return d.view(cdtype)[..., 0]


@profiled_op
def view_as_real(input):
    """A real view of a complex Variable, with a last dimension of size 2 holding the
    real and imaginary parts (shares memory and version counter, as torch's).

    >>> view_as_real(Variable(numpy.array([1 + 2j, 3 - 1j])))
    tensor([[ 1.,  2.],
            [ 3., -1.]], dtype=float64)
    """
    cdef Variable x = _as_variable(input, "view_as_real")
    if _dtype_kind(x._data) != b'c':
        raise RuntimeError("view_as_real(): view_as_real is only supported for complex "
                           "Variables")
    data = _view_as_real_data(x._data)
    node = ViewAsRealBackward.__new__(ViewAsRealBackward) if _records(x) else None
    return _shape_result(x, data, node, 5, None)


@profiled_op
def view_as_complex(input):
    """A complex view of a real Variable whose last dimension (size 2, stride 1) holds
    real and imaginary parts (shares memory and version counter, as torch's).

    >>> view_as_complex(Variable(numpy.array([[1., 2.], [3., -1.]])))
    tensor([1.+2.j, 3.-1.j], dtype=complex128)
    """
    cdef Variable x = _as_variable(input, "view_as_complex")
    data = _view_as_complex_data(x._data, "view_as_complex")
    node = ViewAsComplexBackward.__new__(ViewAsComplexBackward) if _records(x) else None
    return _shape_result(x, data, node, 6, None)


@profiled_op
cpdef Variable adjoint(object input):
    """The conjugate transpose of the last two dimensions (a view for real Variables;
    torch's ``adjoint``, ``Variable.mH``).

    >>> adjoint(Variable(numpy.array([[1 + 1j, 2j]]))).shape
    (2, 1)
    """
    cdef Variable x = _as_variable(input, "adjoint")
    if x._data.ndim == 0:
        warnings.warn("adjoint() is deprecated on 0-D Variables. Consider using x.conj().",
                      UserWarning, stacklevel=2)
        return conj(x)
    if x._data.ndim < 2:
        raise RuntimeError("adjoint(): adjoint() is only supported on matrices or "
                           "batches of matrices. Got %d-D Variable." % x._data.ndim)
    return transpose(conj(x), -2, -1)


COMPLEX_OPS = (conj, real, imag, angle, sgn, vdot, view_as_real, view_as_complex, adjoint)
COMPLEX_TITLE = "Complex numbers"
# real and imag are Variable properties (as torch's), not methods: the engine defines
# them on the class, so they need no entry here. view_as_real / view_as_complex are
# functions only, as torch's.
COMPLEX_FUNCTION_ONLY = ("view_as_real", "view_as_complex")
"""Complex numbers: conj, real, imag, angle (also Variable methods)."""


# -- the conjugation rule -----------------------------------------------------------

cdef frozenset _HOLOMORPHIC = frozenset([
    MulBackward, DivBackward, PowBackward, ExpBackward, LogBackward, SqrtBackward,
    TanhBackward, SigmoidBackward, ReciprocalBackward, SquareBackward, RsqrtBackward,
    Expm1Backward, Log1pBackward, Log2Backward, Log10Backward, SinBackward, CosBackward,
    TanBackward, AsinBackward, AcosBackward, AtanBackward, SinhBackward, CoshBackward,
    TanhGradBackward, PowConstGradBackward, MatmulBackward, EinsumBackward,
    MmBackward, MvBackward, DotBackward, BmmBackward, _MatmulSqueezeBackward,
    _MatmulUnsafeViewBackward,                      # (matmul's, by torch's names)
    ProdOthersBackward, ProdBackward, CumprodBackward, LogsumexpBackward, SiluBackward,
    ConvolutionBackward, InvBackward, DetBackward, SolveBackward,
    AsinhBackward, AcoshBackward, AtanhBackward, Exp2Backward,
])


cdef inline bint _any_complex(tuple values):
    for v in values:
        if isinstance(v, Variable) and _dtype_kind((<Variable>v)._data) == b'c':
            return True
    return False


cdef tuple _conj_each(tuple values):
    cdef list out = list(values)
    cdef Py_ssize_t i
    for i in range(len(out)):
        v = out[i]
        if isinstance(v, Variable) and _dtype_kind((<Variable>v)._data) == b'c':
            out[i] = conj(v)
    return tuple(out)


cdef tuple _call_backward(Node node, tuple grads):
    # node._backward(grads), with the conjugation rule above for holomorphic nodes.
    # The type test comes first: it is one hashed pointer lookup in a C-level set, so
    # the other nodes (most of a graph) never scan their gradients for a complex dtype.
    if type(node) not in _HOLOMORPHIC:
        return node._backward(grads)
    cdef bint complex_in = _any_complex(grads)
    if complex_in:
        return _conj_each(node._backward(_conj_each(grads)))
    outs = node._backward(grads)
    if _any_complex(outs):
        return _conj_each(outs)
    return outs
