# Special functions and the math ops torch has beyond the basic elementwise family:
# inverse hyperbolics, exp2, erfc/erfinv, the gamma family (lgamma, digamma, polygamma,
# mvlgamma), the modified Bessel functions i0/i0e/i1/i1e, the normal distribution's
# ndtr/ndtri/log_ndtr, xlogy/xlog1py/entr, and the floating-point utilities (copysign,
# ldexp, frexp, nextafter, fmax/fmin, heaviside, gcd/lcm). Each op's forward is next to
# its backward node; the backward formulas are pyad ops, so every op is differentiable
# again (lgamma -> digamma -> polygamma(1) -> polygamma(2) ...; i0 -> i1 -> i0, i1).
#
# NumPy has none of the special functions: they are written here in C, one scalar
# function each, applied by _map_real over a float64 copy of the data (float32 and
# float16 are computed in float64 and rounded). CuPy arrays go to cupyx.scipy.special.

from libc.math cimport (lgamma as c_lgamma, erf as c_erf, erfc as c_erfc, exp as c_exp,
                        log as c_log, log1p as c_log1p, sqrt as c_sqrt, fabs as c_fabs,
                        floor as c_floor, trunc as c_trunc, pow as c_pow, tan as c_tan,
                        sin as c_sin, copysign as c_copysign, isnan as c_isnan,
                        isinf as c_isinf, INFINITY as C_INF, NAN as C_NAN)

cdef double _PI = 3.14159265358979323846
cdef double _SQRT2 = 1.41421356237309504880
cdef double _SQRT_2PI = 2.50662827463100050242
cdef double _TWO_OVER_SQRTPI = 1.12837916709551257390
cdef double _MACHEP = 1.11022302462515654042e-16

ctypedef double (*_real_fn)(double) noexcept nogil

cdef object _np_arcsinh = numpy.arcsinh
cdef object _np_arccosh = numpy.arccosh
cdef object _np_arctanh = numpy.arctanh
cdef object _np_exp2 = numpy.exp2
cdef object _np_fmax = numpy.fmax
cdef object _np_fmin = numpy.fmin
cdef object _np_copysign = numpy.copysign
cdef object _np_nextafter = numpy.nextafter
cdef object _np_gcd = numpy.gcd
cdef object _np_lcm = numpy.lcm


cdef object _map_real(_real_fn f, object d, str cupy_name):
    # f over every element of the float array d, computed in float64, in d's dtype.
    if cupy is not None and isinstance(d, cupy.ndarray):
        import cupyx.scipy.special
        return getattr(cupyx.scipy.special, cupy_name)(d).astype(d.dtype, copy=False)
    cdef cnp.ndarray a = numpy.ascontiguousarray(d, dtype=numpy.float64)
    cdef cnp.ndarray out = numpy.empty_like(a)
    cdef const double* src = <const double*>cnp.PyArray_DATA(a)
    cdef double* dst = <double*>cnp.PyArray_DATA(out)
    cdef Py_ssize_t i, n = cnp.PyArray_SIZE(a)
    with nogil:
        for i in range(n):
            dst[i] = f(src[i])
    # (ascontiguousarray makes a 0-d input 1-d)
    return out.reshape(d.shape).astype(d.dtype, copy=False)


# -- the scalar kernels ------------------------------------------------------------------

cdef double _c_lgamma(double x) noexcept nogil:
    return c_lgamma(x)


cdef double _c_erfc(double x) noexcept nogil:
    return c_erfc(x)


cdef double _c_digamma(double x) noexcept nogil:
    # Recurrence psi(x) = psi(x + 1) - 1/x up to x >= 10, then the asymptotic series
    # log x - 1/(2x) - sum B_2k / (2k x^2k); reflection psi(1 - x) - pi / tan(pi x) below
    # 0 (with the fractional part of x, so that pi * x loses nothing). torch's edge
    # values: -inf/+inf at +0/-0, nan at the negative integers and -inf.
    cdef double result = 0.0, z, frac
    if x == 0:
        return c_copysign(C_INF, -x)
    if x < 0:
        if x == c_trunc(x):
            return C_NAN
        frac = x - c_trunc(x)
        return _c_digamma(1 - x) - _PI / c_tan(_PI * frac)
    while x < 10:
        result -= 1 / x
        x += 1
    if x == 10:
        return result + 2.25175258906672110764      # psi(10), exactly rounded
    z = 0.0
    if x < 1e17:
        z = 1.0 / (x * x)
        # B_2k / (2k) for k = 7 .. 1, Horner in 1/x^2
        z = z * (((((((8.33333333333333333333e-2 * z - 2.10927960927960927961e-2) * z
                      + 7.57575757575757575758e-3) * z - 4.16666666666666666667e-3) * z
                    + 3.96825396825396825397e-3) * z - 8.33333333333333333333e-3) * z
                  + 8.33333333333333333333e-2))
    return result + c_log(x) - 0.5 / x - z


cdef double _c_trigamma(double x) noexcept nogil:
    # psi'(x): reflection below 1/2 (pi^2 / sin^2(pi x)), six recurrence steps, then the
    # asymptotic series 1/x + 1/(2x^2) + sum B_2k / x^(2k+1).
    cdef double sign = 1.0, result = 0.0, s, inv2
    cdef int i
    if x < 0.5:
        sign = -1.0
        s = c_sin(_PI * x)
        result -= _PI * _PI / (s * s)
        x = 1 - x
    for i in range(6):
        result += 1 / (x * x)
        x += 1
    inv2 = 1 / (x * x)
    result += (1 + 1 / (2 * x) + inv2 * (1.0 / 6 - inv2 * (1.0 / 30 - inv2 * (1.0 / 42)))) / x
    return sign * result


# (2k)! / B_2k for k = 1 .. 12: the Euler-Maclaurin tail of the Hurwitz zeta sum.
cdef double[12] _ZETA_A = [
    12.0, -720.0, 30240.0, -1209600.0, 47900160.0, -1.8924375803183791606e9,
    7.47242496e10, -2.950130727918164224e12, 1.1646782814350067249e14,
    -4.5979787224074726105e15, 1.8152105401943546773e17, -7.1661652561756670113e18]


cdef double _c_zeta(double s, double q) noexcept nogil:
    # The Hurwitz zeta function sum_k (k + q)^-s (s > 1), as Cephes computes it: the
    # first terms directly (at least ten, until q + k > 9), then Euler-Maclaurin.
    cdef double a, b = 0.0, k, total, t, w, fac
    cdef int i = 0
    if s == 1:
        return C_INF
    if s < 1:
        return C_NAN
    if q <= 0:
        if q == c_floor(q):
            return C_INF
        if s != c_floor(s):
            return C_NAN
    total = c_pow(q, -s)
    a = q
    while i < 9 or a <= 9.0:
        i += 1
        a += 1.0
        b = c_pow(a, -s)
        total += b
        if -_MACHEP * total < b < _MACHEP * total:
            return total
    w = a
    total += b * w / (s - 1.0)
    total -= 0.5 * b
    fac = 1.0
    k = 0.0
    for i in range(12):
        fac *= s + k
        b /= w
        t = fac * b / _ZETA_A[i]
        total += t
        if c_fabs(t / total) < _MACHEP:
            return total
        k += 1.0
        fac *= s + k
        b /= w
        k += 1.0
    return total


cdef double _c_polygamma(double n, double x) noexcept nogil:
    # psi^(n)(x) = (-1)^(n+1) n! zeta(n + 1, x) for n >= 2
    if n == 0:
        return _c_digamma(x)
    if n == 1:
        return _c_trigamma(x)
    return (1.0 if (<long>n) % 2 == 1 else -1.0) * c_exp(c_lgamma(n + 1.0)) * _c_zeta(n + 1.0, x)


cdef object _map_polygamma(long n, object d):
    if cupy is not None and isinstance(d, cupy.ndarray):
        import cupyx.scipy.special
        return cupyx.scipy.special.polygamma(n, d).astype(d.dtype, copy=False)
    cdef cnp.ndarray a = numpy.ascontiguousarray(d, dtype=numpy.float64)
    cdef cnp.ndarray out = numpy.empty_like(a)
    cdef const double* src = <const double*>cnp.PyArray_DATA(a)
    cdef double* dst = <double*>cnp.PyArray_DATA(out)
    cdef Py_ssize_t i, size = cnp.PyArray_SIZE(a)
    cdef double dn = <double>n
    with nogil:
        for i in range(size):
            dst[i] = _c_polygamma(dn, src[i])
    return out.reshape(d.shape).astype(d.dtype, copy=False)


cdef double _c_erfinv(double y) noexcept nogil:
    # Giles's single-precision approximation ("Approximating the erfinv function",
    # 2010; relative error below 4e-7), then Newton steps to full precision: on
    # erf(x) = y in the centre, on log(erfc(|x|)) = log(1 - |y|) in the tails (1 - |y|
    # is exact there, and the log makes the function nearly linear, so few steps).
    cdef double w, p, x, ax, rest, c, log_rest
    cdef int i
    if c_isnan(y) or y < -1 or y > 1:
        return C_NAN
    if y == 1 or y == -1:
        return c_copysign(C_INF, y)
    w = -c_log((1.0 - y) * (1.0 + y))
    if w < 5.0:
        w = w - 2.5
        p = 2.81022636e-08
        p = 3.43273939e-07 + p * w
        p = -3.5233877e-06 + p * w
        p = -4.39150654e-06 + p * w
        p = 0.00021858087 + p * w
        p = -0.00125372503 + p * w
        p = -0.00417768164 + p * w
        p = 0.246640727 + p * w
        p = 1.50140941 + p * w
    else:
        w = c_sqrt(w) - 3.0
        p = -0.000200214257
        p = 0.000100950558 + p * w
        p = 0.00134934322 + p * w
        p = -0.00367342844 + p * w
        p = 0.00573950773 + p * w
        p = -0.0076224613 + p * w
        p = 0.00943887047 + p * w
        p = 1.00167406 + p * w
        p = 2.83297682 + p * w
    x = p * y
    if c_fabs(y) <= 0.5:
        for i in range(3):
            x -= (c_erf(x) - y) / (_TWO_OVER_SQRTPI * c_exp(-x * x))
        return x
    ax = c_fabs(x)
    rest = 1.0 - c_fabs(y)
    log_rest = c_log(rest)
    for i in range(8):
        c = c_erfc(ax)
        ax += (c_log(c) - log_rest) * c / (_TWO_OVER_SQRTPI * c_exp(-ax * ax))
    return c_copysign(ax, y)


cdef double _erfc_scaled_series(double t) noexcept nogil:
    # t sqrt(pi) exp(t^2) erfc(t) for large t: sum (-1)^k (2k-1)!! / (2t^2)^k
    cdef double t2 = 2 * t * t, term = 1.0, total = 1.0
    cdef int k
    for k in range(1, 30):
        term *= -(2 * k - 1) / t2
        total += term
        if c_fabs(term) < 1e-17:
            break
    return total


cdef double _c_ndtri(double p) noexcept nogil:
    # The standard normal quantile, -sqrt(2) erfcinv(2p): Newton steps on
    # log(erfc(t)) = log(2p) from Giles's guess, so tiny p lose nothing to 1 - 2p.
    cdef double z, y, t, c, log_z, r
    cdef int i
    if c_isnan(p) or p < 0 or p > 1:
        return C_NAN
    if p == 0:
        return -C_INF
    if p == 1:
        return C_INF
    if p > 0.25 and p < 0.75:
        return _SQRT2 * _c_erfinv(2 * p - 1)
    # erfc(t) = z with z = 2p (p < 1/4) or 2(1 - p) (p > 3/4, t then changes sign)
    z = 2 * p if p < 0.5 else 2 * (1 - p)
    y = 1.0 - z
    t = _c_erfinv(y) if z > 1e-300 else c_sqrt(-c_log(z))
    if c_isinf(t):
        t = c_sqrt(-c_log(z))
    log_z = c_log(z)
    for i in range(60):
        if t < 26:
            c = c_erfc(t)
            r = (c_log(c) - log_z) * c / (_TWO_OVER_SQRTPI * c_exp(-t * t))
        else:
            # erfc(t) underflows to subnormals: log erfc(t) = -t^2 - log(t sqrt(pi))
            # + log(sum (-1)^k (2k-1)!! / (2t^2)^k), and its derivative ~ -(2t + 1/t)
            r = (-t * t - c_log(t * 1.77245385090551602730) + c_log(_erfc_scaled_series(t))
                 - log_z) / (2 * t + 1 / t)
        t += r
        if c_fabs(r) <= 1e-16 * c_fabs(t):
            break
    return -_SQRT2 * t if p < 0.5 else _SQRT2 * t


cdef double _c_ndtr(double x) noexcept nogil:
    return 0.5 * c_erfc(-x / _SQRT2)


cdef double _c_log_ndtr(double x) noexcept nogil:
    # log(Phi(x)): log1p(-Q(x)) above -1; below, log(erfc(t) / 2) with t = -x / sqrt 2,
    # and past where erfc underflows, -t^2 + log of the asymptotic erfc(t) exp(t^2).
    cdef double t
    if x > -1:
        return c_log1p(-0.5 * c_erfc(x / _SQRT2))
    t = -x / _SQRT2
    if t < 20:
        return c_log(0.5 * c_erfc(t))
    return -t * t + c_log(_erfc_scaled_series(t) / (2 * t * 1.77245385090551602730))


cdef double _bessel_i_series(double x, int order) noexcept nogil:
    # I_0(x) or I_1(x) of x >= 0 by the power series sum (x/2)^(2k+v) / (k! (k+v)!):
    # positive terms, so no cancellation.
    cdef double q = 0.25 * x * x, term, total
    cdef int k = 0
    term = 1.0 if order == 0 else 0.5 * x
    total = term
    while True:
        k += 1
        term *= q / (k * (k + order))
        total += term
        if term <= 1e-17 * total:
            return total


cdef double _bessel_i_scaled_asymptotic(double x, int order) noexcept nogil:
    # exp(-x) I_v(x) for x >= 30: 1 / sqrt(2 pi x) sum (-1)^k a_k(v) / x^k, with
    # a_k(v) = prod_{j <= k} (4v^2 - (2j - 1)^2) / (k! 8^k).
    cdef double mu = 4.0 * order * order, term = 1.0, total = 1.0
    cdef int k
    for k in range(1, 60):
        term *= -(mu - (2 * k - 1) * (2 * k - 1)) / (k * 8.0 * x)
        total += term
        if c_fabs(term) < 1e-17 * c_fabs(total):
            break
    return total / c_sqrt(2 * _PI) / c_sqrt(x)     # (2 pi x overflows at 1e308)


cdef double _c_i0e(double x) noexcept nogil:
    cdef double ax = c_fabs(x)
    if c_isnan(x):
        return x
    if ax >= 30:
        return _bessel_i_scaled_asymptotic(ax, 0)
    return _bessel_i_series(ax, 0) * c_exp(-ax)


cdef double _c_i0(double x) noexcept nogil:
    cdef double ax = c_fabs(x)
    if c_isnan(x) or c_isinf(x):
        return C_NAN                     # torch's i0(+-inf) is nan
    if ax >= 30:
        return _bessel_i_scaled_asymptotic(ax, 0) * c_exp(ax)
    return _bessel_i_series(ax, 0)


cdef double _c_i1e(double x) noexcept nogil:
    cdef double ax = c_fabs(x), r
    if c_isnan(x):
        return x
    if c_isinf(x):
        return c_copysign(0.0, x)
    if ax >= 30:
        r = _bessel_i_scaled_asymptotic(ax, 1)
    else:
        r = _bessel_i_series(ax, 1) * c_exp(-ax)
    return -r if x < 0 else r            # (torch's: i1e(-0.0) is +0.0)


cdef double _c_i1(double x) noexcept nogil:
    cdef double ax = c_fabs(x), r
    if c_isnan(x) or c_isinf(x):
        return C_NAN                     # torch's i1(+-inf) is nan
    if ax >= 30:
        r = _bessel_i_scaled_asymptotic(ax, 1) * c_exp(ax)
    else:
        r = _bessel_i_series(ax, 1)
    return -r if x < 0 else r            # (torch's: i1(-0.0) is +0.0)


cdef object _lgamma_data(object d):
    return _map_real(_c_lgamma, d, "gammaln")


cdef object _digamma_data(object d):
    return _map_real(_c_digamma, d, "digamma")


cdef object _erfc_data(object d):
    return _map_real(_c_erfc, d, "erfc")


cdef object _erfinv_data(object d):
    return _map_real(_c_erfinv, d, "erfinv")


cdef object _i0_data(object d):
    return _map_real(_c_i0, d, "i0")


cdef object _i0e_data(object d):
    return _map_real(_c_i0e, d, "i0e")


cdef object _i1_data(object d):
    return _map_real(_c_i1, d, "i1")


cdef object _i1e_data(object d):
    return _map_real(_c_i1e, d, "i1e")


cdef object _ndtr_data(object d):
    return _map_real(_c_ndtr, d, "ndtr")


cdef object _ndtri_data(object d):
    return _map_real(_c_ndtri, d, "ndtri")


cdef object _log_ndtr_data(object d):
    return _map_real(_c_log_ndtr, d, "log_ndtr")


def _erfinv_array(d):
    """The inverse error function on a float array (NumPy or CuPy), no Variable: the
    engine's one implementation, also used by ``pyad.nn.init.trunc_normal_``."""
    return _erfinv_data(d)


cdef Variable _special_unary(object kernel, object input, type node_type, int save, str what):
    # A real special function of one input (no complex kernel, as torch's CPU ones).
    _refuse_complex(input, None, what)
    return _float_unary(kernel, input, node_type, save, what)


# -- inverse hyperbolic functions and their arc* aliases ------------------------------

cdef class AsinhBackward(_UnaryNode):
    cdef tuple _backward(self, tuple grads):
        x = self.saved.unpack(self)
        return (mul(grads[0], rsqrt(add(mul(x, x), 1))),)


@profiled_op
cpdef Variable asinh(object input, object out=None):
    """Elementwise inverse hyperbolic sine (complex input too, as torch).

    >>> asinh(Variable(numpy.array([0., 1.])))
    tensor([0.0000, 0.8814], dtype=float64)
    """
    if out is not None: return _write_out_checked("asinh", out, asinh(input), (input,))
    return _float_unary(_np_arcsinh, input, AsinhBackward, 1, "asinh")


cdef class AcoshBackward(_UnaryNode):
    # torch's formulas: 1 / sqrt(x x - 1) on real x (finite below -1, inf at +-1);
    # (x + 1)^-1/2 (x - 1)^-1/2 on complex x (the branch cut needs the two roots)
    cdef tuple _backward(self, tuple grads):
        cdef Variable x = self.saved.unpack(self)
        if _dtype_kind(x._data) == b'c':
            # (x - 1 as torch computes it, x + (-1 + 0i): -0.0 imaginary parts become +0)
            return (mul(grads[0], mul(rsqrt(add(x, 1)), rsqrt(add(x, -1)))),)
        return (mul(grads[0], rsqrt(sub(mul(x, x), 1))),)


@profiled_op
cpdef Variable acosh(object input, object out=None):
    """Elementwise inverse hyperbolic cosine (nan below 1).

    >>> acosh(Variable(numpy.array([1., 2.])))
    tensor([0.0000, 1.3170], dtype=float64)
    """
    if out is not None: return _write_out_checked("acosh", out, acosh(input), (input,))
    return _float_unary(_np_arccosh, input, AcoshBackward, 1, "acosh")


cdef class AtanhBackward(_UnaryNode):
    cdef tuple _backward(self, tuple grads):
        x = self.saved.unpack(self)
        return (div(grads[0], rsub(mul(x, x), 1)),)


@profiled_op
cpdef Variable atanh(object input, object out=None):
    """Elementwise inverse hyperbolic tangent (+-inf at +-1, nan outside [-1, 1]).

    >>> atanh(Variable(numpy.array([0., 0.5])))
    tensor([0.0000, 0.5493], dtype=float64)
    """
    if out is not None: return _write_out_checked("atanh", out, atanh(input), (input,))
    return _float_unary(_np_arctanh, input, AtanhBackward, 1, "atanh")


cdef Variable _alias(object op, tuple args, str name):
    try:
        return op(*args)
    except _OP_ERRORS as exc:
        raise _renamed(exc, name) from None


@profiled_op
cpdef Variable arcsin(object input, object out=None):
    """Alias of :func:`asin`.

    >>> arcsin(Variable(numpy.array([0., 1.])))
    tensor([0.0000, 1.5708], dtype=float64)
    """
    if out is not None: return _write_out_checked("arcsin", out, arcsin(input), (input,))
    return _alias(asin, (input,), "arcsin")


@profiled_op
cpdef Variable arccos(object input, object out=None):
    """Alias of :func:`acos`.

    >>> arccos(Variable(numpy.array([1., 0.])))
    tensor([0.0000, 1.5708], dtype=float64)
    """
    if out is not None: return _write_out_checked("arccos", out, arccos(input), (input,))
    return _alias(acos, (input,), "arccos")


@profiled_op
cpdef Variable arctan(object input, object out=None):
    """Alias of :func:`atan`.

    >>> arctan(Variable(numpy.array([0., 1.])))
    tensor([0.0000, 0.7854], dtype=float64)
    """
    if out is not None: return _write_out_checked("arctan", out, arctan(input), (input,))
    return _alias(atan, (input,), "arctan")


@profiled_op
cpdef Variable arctan2(object input, object other, object out=None):
    """Alias of :func:`atan2`.

    >>> arctan2(Variable(numpy.array([1.])), Variable(numpy.array([-1.])))
    tensor([2.3562], dtype=float64)
    """
    if out is not None: return _write_out_checked("arctan2", out, arctan2(input, other),
                                                  (input, other))
    return _alias(atan2, (input, other), "arctan2")


@profiled_op
cpdef Variable arcsinh(object input, object out=None):
    """Alias of :func:`asinh`.

    >>> arcsinh(Variable(numpy.array([0., 1.])))
    tensor([0.0000, 0.8814], dtype=float64)
    """
    if out is not None: return _write_out_checked("arcsinh", out, arcsinh(input), (input,))
    return _alias(asinh, (input,), "arcsinh")


@profiled_op
cpdef Variable arccosh(object input, object out=None):
    """Alias of :func:`acosh`.

    >>> arccosh(Variable(numpy.array([1., 2.])))
    tensor([0.0000, 1.3170], dtype=float64)
    """
    if out is not None: return _write_out_checked("arccosh", out, arccosh(input), (input,))
    return _alias(acosh, (input,), "arccosh")


@profiled_op
cpdef Variable arctanh(object input, object out=None):
    """Alias of :func:`atanh`.

    >>> arctanh(Variable(numpy.array([0., 0.5])))
    tensor([0.0000, 0.5493], dtype=float64)
    """
    if out is not None: return _write_out_checked("arctanh", out, arctanh(input), (input,))
    return _alias(atanh, (input,), "arctanh")


@profiled_op
cpdef Variable fix(object input, object out=None):
    """Alias of :func:`trunc` (rounds toward zero; zero gradient).

    >>> fix(Variable(numpy.array([-1.5, 2.7])))
    tensor([-1.,  2.], dtype=float64)
    """
    if out is not None: return _write_out_checked("fix", out, fix(input), (input,), _OUT_EXACT)
    return _alias(trunc, (input,), "fix")


# -- exp2, erfc, erfinv --------------------------------------------------------------

cdef class Exp2Backward(_UnaryOutNode):
    cdef tuple _backward(self, tuple grads):
        return (mul(grads[0], mul(_out_saved(self).unpack(self), _LN2)),)


@profiled_op
cpdef Variable exp2(object input, object out=None):
    """Elementwise ``2 ** input``.

    >>> exp2(Variable(numpy.array([0., 3., -1.])))
    tensor([1.0000, 8.0000, 0.5000], dtype=float64)
    """
    if out is not None: return _write_out_checked("exp2", out, exp2(input), (input,))
    return _float_unary(_np_exp2, input, Exp2Backward, 2, "exp2")


cdef class ErfcBackward(_UnaryNode):
    cdef tuple _backward(self, tuple grads):
        x = self.saved.unpack(self)
        return (mul(grads[0], mul(exp(neg(mul(x, x))), -_TWO_OVER_SQRT_PI)),)


@profiled_op
cpdef Variable erfc(object input, object out=None):
    """Elementwise complementary error function ``1 - erf(input)``, accurate where
    ``erf`` is near 1.

    >>> erfc(Variable(numpy.array([0., 1., 10.])))
    tensor([1.0000e+00, 1.5730e-01, 2.0885e-45], dtype=float64)
    """
    if out is not None: return _write_out_checked("erfc", out, erfc(input), (input,))
    return _special_unary(_erfc_data, input, ErfcBackward, 1, "erfc")


cdef class ErfinvBackward(_UnaryOutNode):
    # d erfinv(y) = sqrt(pi) / 2 exp(erfinv(y)^2)
    cdef tuple _backward(self, tuple grads):
        x = _out_saved(self).unpack(self)
        return (mul(grads[0], mul(exp(mul(x, x)), 1.0 / _TWO_OVER_SQRT_PI)),)


@profiled_op
cpdef Variable erfinv(object input, object out=None):
    """Elementwise inverse error function (+-inf at +-1, nan outside [-1, 1]).

    >>> erfinv(Variable(numpy.array([0., 0.5, -1.])))
    tensor([0.0000, 0.4769,   -inf], dtype=float64)
    """
    if out is not None: return _write_out_checked("erfinv", out, erfinv(input), (input,))
    return _special_unary(_erfinv_data, input, ErfinvBackward, 2, "erfinv")


# -- the gamma family ------------------------------------------------------------------

cdef class LgammaBackward(_UnaryNode):
    cdef tuple _backward(self, tuple grads):
        return (mul(grads[0], digamma(self.saved.unpack(self))),)


@profiled_op
cpdef Variable lgamma(object input, object out=None):
    """Elementwise ``log|Gamma(input)|`` (inf at 0 and the negative integers).

    >>> lgamma(Variable(numpy.array([1., 0.5, 10.])))
    tensor([ 0.0000,  0.5724, 12.8018], dtype=float64)
    """
    if out is not None: return _write_out_checked("lgamma", out, lgamma(input), (input,))
    return _special_unary(_lgamma_data, input, LgammaBackward, 1, "lgamma")


cdef class DigammaBackward(_UnaryNode):
    cdef tuple _backward(self, tuple grads):
        return (mul(grads[0], polygamma(1, self.saved.unpack(self))),)


@profiled_op
cpdef Variable digamma(object input, object out=None):
    """Elementwise digamma ``psi = d/dx lgamma`` (-inf at 0, nan at the negative
    integers, as torch).

    >>> digamma(Variable(numpy.array([1., 0.5])))
    tensor([-0.5772, -1.9635], dtype=float64)
    """
    if out is not None: return _write_out_checked("digamma", out, digamma(input), (input,))
    return _special_unary(_digamma_data, input, DigammaBackward, 1, "digamma")


cdef class PolygammaBackward(_UnaryNode):
    cdef long n

    cdef tuple _backward(self, tuple grads):
        return (mul(grads[0], polygamma(self.n + 1, self.saved.unpack(self))),)


@profiled_op
cpdef Variable polygamma(object n, object input, object out=None):
    """The ``n``-th derivative of :func:`digamma` (``n >= 0``, an int, as torch).

    >>> polygamma(1, Variable(numpy.array([1., 2.])))
    tensor([1.6449, 0.6449], dtype=float64)
    """
    if out is not None: return _write_out_checked("polygamma", out, polygamma(n, input),
                                                  (n, input))
    if isinstance(n, bool) or not isinstance(n, (int, numpy.integer)):
        raise TypeError("polygamma(): argument 'n' (position 1) must be int, not %s"
                        % type(n).__name__)
    if n < 0:
        raise RuntimeError("polygamma(): polygamma(n, x) does not support negative n.")
    _refuse_complex(input, None, "polygamma")
    cdef Variable x = _float_input(input, "polygamma")
    cdef long order = n
    data = _map_polygamma(order, x._data)
    cdef PolygammaBackward node
    if _records(x):
        node = PolygammaBackward.__new__(PolygammaBackward)
        node.n = order
        return _record_unary(node, data, x, True, False)
    return _plain(data, x._volatile)


@profiled_op
cpdef Variable mvlgamma(object input, object p, object out=None):
    """The multivariate log-gamma function of dimension ``p``:
    ``sum_{i<p} lgamma(input - i/2) + p (p - 1) / 4 log(pi)``, computed for every element
    as torch 2.13 does (no domain check: at and below ``(p - 1) / 2`` it is lgamma's
    value there, inf at the poles).

    >>> mvlgamma(Variable(numpy.array([2.5, 3.])), 2)
    tensor([0.8570, 1.5502], dtype=float64)
    """
    if out is not None: return _write_out_checked("mvlgamma", out, mvlgamma(input, p), (input, p))
    if isinstance(p, bool) or not isinstance(p, (int, numpy.integer)):
        raise TypeError("mvlgamma(): argument 'p' must be int, not %s" % type(p).__name__)
    if p < 1:
        raise RuntimeError("mvlgamma(): p has to be greater than or equal to 1")
    _refuse_complex(input, None, "mvlgamma")
    if isinstance(input, Variable) and _dtype_kind((<Variable>input)._data) == b'b':
        raise RuntimeError("mvlgamma(): The input tensor may not be a boolean tensor.")
    cdef Variable x = _float_input(input, "mvlgamma")
    xp = _xp_of(x._data)
    # torch's shifts, -(p - 1)/2 ... -1/2, +0 (a +0: so -0.0 + 0 is +0.0, lgamma's pole
    # from the right, as torch's gradient there)
    shifts = xp.asarray(numpy.arange(-p * 0.5 + 0.5, 0.5, 0.5)).astype(x._data.dtype)
    terms = lgamma(add(unsqueeze(x, -1), shifts))
    return add(sum(terms, -1), p * (p - 1) * math.log(math.pi) / 4)


# -- modified Bessel functions of the first kind -------------------------------------

cdef class I0Backward(_UnaryNode):
    cdef tuple _backward(self, tuple grads):
        return (mul(grads[0], i1(self.saved.unpack(self))),)


@profiled_op
cpdef Variable i0(object input, object out=None):
    """Elementwise modified Bessel function of the first kind, order 0.

    >>> i0(Variable(numpy.array([0., 1.])))
    tensor([1.0000, 1.2661], dtype=float64)
    """
    if out is not None: return _write_out_checked("i0", out, i0(input), (input,))
    return _special_unary(_i0_data, input, I0Backward, 1, "i0")


cdef class I0eBackward(_UnaryNode):
    # d i0e(x) = i1e(x) - sign(x) i0e(x)
    cdef tuple _backward(self, tuple grads):
        x = self.saved.unpack(self)
        return (mul(grads[0], sub(i1e(x), mul(sign(x), i0e(x)))),)


@profiled_op
cpdef Variable i0e(object input, object out=None):
    """Elementwise exponentially scaled ``exp(-|input|) * i0(input)``
    (``torch.special.i0e``).

    >>> i0e(Variable(numpy.array([0., 1.])))
    tensor([1.0000, 0.4658], dtype=float64)
    """
    if out is not None: return _write_out_checked("i0e", out, i0e(input), (input,))
    return _special_unary(_i0e_data, input, I0eBackward, 1, "i0e")


cdef object _tiny_or_nan(object d):
    # torch's i1/i1e backward: 1/2 where not |x| > eps (|x| <= eps, or NaN)
    return ~(_xp_of(d).abs(d) > numpy.finfo(d.dtype).eps)


cdef class I1Backward(_UnaryNode):
    # d i1(x) = i0(x) - i1(x) / x; 1/2 where |x| <= eps or x is NaN (torch's i1_backward)
    cdef tuple _backward(self, tuple grads):
        cdef Variable x = self.saved.unpack(self)
        tiny = _tiny_or_nan(x._data)
        safe = where_const(tiny, 1, x)
        return (mul(grads[0], where_const(tiny, 0.5, sub(i0(safe), div(i1(safe), safe)))),)


@profiled_op
cpdef Variable i1(object input, object out=None):
    """Elementwise modified Bessel function of the first kind, order 1
    (``torch.special.i1``).

    >>> i1(Variable(numpy.array([0., 1.])))
    tensor([0.0000, 0.5652], dtype=float64)
    """
    if out is not None: return _write_out_checked("i1", out, i1(input), (input,))
    return _special_unary(_i1_data, input, I1Backward, 1, "i1")


cdef class I1eBackward(_UnaryNode):
    # d i1e(x) = i0e(x) - i1e(x) (sign(x) + 1/x); 1/2 where |x| <= eps or x is NaN
    # (torch's i1e_backward)
    cdef tuple _backward(self, tuple grads):
        cdef Variable x = self.saved.unpack(self)
        tiny = _tiny_or_nan(x._data)
        safe = where_const(tiny, 1, x)
        d = sub(i0e(safe), mul(i1e(safe), add(sign(safe), reciprocal(safe))))
        return (mul(grads[0], where_const(tiny, 0.5, d)),)


@profiled_op
cpdef Variable i1e(object input, object out=None):
    """Elementwise exponentially scaled ``exp(-|input|) * i1(input)``
    (``torch.special.i1e``).

    >>> i1e(Variable(numpy.array([0., 1.])))
    tensor([0.0000, 0.2079], dtype=float64)
    """
    if out is not None: return _write_out_checked("i1e", out, i1e(input), (input,))
    return _special_unary(_i1e_data, input, I1eBackward, 1, "i1e")


# -- the normal distribution ----------------------------------------------------------

cdef class NdtrBackward(_UnaryNode):
    cdef tuple _backward(self, tuple grads):
        x = self.saved.unpack(self)
        return (mul(grads[0], mul(exp(mul(mul(x, x), -0.5)), _INV_SQRT_2PI)),)


@profiled_op
cpdef Variable ndtr(object input, object out=None):
    """The standard normal CDF ``(1 + erf(x / sqrt 2)) / 2`` (``torch.special.ndtr``).

    >>> ndtr(Variable(numpy.array([0., 1.])))
    tensor([0.5000, 0.8413], dtype=float64)
    """
    if out is not None: return _write_out_checked("ndtr", out, ndtr(input), (input,))
    return _special_unary(_ndtr_data, input, NdtrBackward, 1, "ndtr")


cdef class NdtriBackward(_UnaryOutNode):
    # d ndtri(p) = sqrt(2 pi) exp(ndtri(p)^2 / 2)
    cdef tuple _backward(self, tuple grads):
        y = _out_saved(self).unpack(self)
        return (mul(grads[0], mul(exp(mul(mul(y, y), 0.5)), _SQRT_2PI)),)


@profiled_op
cpdef Variable ndtri(object input, object out=None):
    """The standard normal quantile, inverse of :func:`ndtr` (``torch.special.ndtri``).

    >>> ndtri(Variable(numpy.array([0.5, 0.975])))
    tensor([0.0000, 1.9600], dtype=float64)
    """
    if out is not None: return _write_out_checked("ndtri", out, ndtri(input), (input,))
    _refuse_half(input, "ndtri")
    return _special_unary(_ndtri_data, input, NdtriBackward, 2, "ndtri")


cdef void _refuse_half(object input, str what) except *:
    # torch's CPU kernel has no float16 loop for this function
    if isinstance(input, Variable) and (<Variable>input)._data.dtype == numpy.float16:
        _not_implemented_for((<Variable>input)._data, what, what + "_cpu")


cdef class LogNdtrBackward(_UnaryNode):
    # d log(Phi(x)) = phi(x) / Phi(x) = exp(-x^2/2 - log Phi(x)) / sqrt(2 pi)
    cdef SavedVariable result

    cdef tuple _backward(self, tuple grads):
        x = self.saved.unpack(self)
        y = self.result.unpack(self)
        return (mul(grads[0], mul(exp(neg(add(y, mul(mul(x, x), 0.5)))), _INV_SQRT_2PI)),)

    cdef void _release_saved(self) noexcept:
        _UnaryNode._release_saved(self)
        if self.result is not None:
            self.result.release()


@profiled_op
cpdef Variable log_ndtr(object input, object out=None):
    """``log(ndtr(input))``, accurate far in both tails (``torch.special.log_ndtr``).

    >>> log_ndtr(Variable(numpy.array([0., -10.])))
    tensor([ -0.6931, -53.2313], dtype=float64)
    """
    if out is not None: return _write_out_checked("log_ndtr", out, log_ndtr(input), (input,))
    _refuse_complex(input, None, "log_ndtr")
    _refuse_half(input, "log_ndtr")
    cdef Variable x = _float_input(input, "log_ndtr")
    data = _log_ndtr_data(x._data)
    cdef LogNdtrBackward node
    cdef Variable value
    if _records(x):
        node = LogNdtrBackward.__new__(LogNdtrBackward)
        value = _record_unary(node, data, x, True, False)
        node.result = _save(value, True)
        return value
    return _plain(data, x._volatile)


# -- x log y and relatives -------------------------------------------------------------

cdef tuple _float_operands(object input, object other, str what):
    # Both operands as data of torch's result dtype (integers give the default float).
    _refuse_complex(input, other, what)
    da = _binary_operand_data(input, what, "input")
    db = _binary_operand_data(other, what, "other")
    rt = _torch_result_dtype(da, db)
    if _category(rt) <= 1:
        rt = _default_dtype
    return da, db, rt


cdef object _xlogy_data(object da, object db, object rt, bint one_plus):
    xp = _xp_of(da) if not isinstance(da, (int, float, bool)) else _xp_of(db)
    a = xp.asarray(da, dtype=rt)
    b = xp.asarray(db, dtype=rt)
    try:
        with numpy.errstate(divide="ignore", invalid="ignore"):
            out = a * (xp.log1p(b) if one_plus else xp.log(b))
            # 0 where x == 0, unless y is nan (torch's xlogy)
            return xp.where((a == 0) & ~xp.isnan(b), xp.zeros((), dtype=rt), out)
    except ValueError:
        raise RuntimeError("%s(): the shapes %s and %s do not broadcast"
                           % ("xlog1py" if one_plus else "xlogy", a.shape, b.shape)) from None


cdef class XlogyBackward(_BinaryNode):
    # torch's formulas: d/dx = xlogy(g, y), 0 where x == 0 and y <= 0 (xlog1py: y <= -1);
    # d/dy = g x / y (xlog1py: g x / (1 + y))
    cdef bint one_plus

    cdef tuple _backward(self, tuple grads):
        cdef object f                   # the op, as a Python object (two C signatures)
        g = grads[0]
        a = self.a.get(self)
        b = self.b.get(self)
        ga = gb = None
        if self._needs_input_grad(0):
            f = xlog1py if self.one_plus else xlogy
            da = (<Variable>a)._data if isinstance(a, Variable) else a
            db = (<Variable>b)._data if isinstance(b, Variable) else b
            xp = _xp_of((<Variable>g)._data)
            edge = xp.broadcast_to(xp.asarray((da == 0) & (db <= (-1 if self.one_plus else 0))),
                                   (<Variable>g)._data.shape)
            with numpy.errstate(divide="ignore", invalid="ignore"):
                ga = self.grad_a(where_const(edge, 0, f(g, b)))
        if self._needs_input_grad(1):
            with numpy.errstate(divide="ignore", invalid="ignore"):
                # torch's order: grad * x / y, left to right
                gb = self.grad_b(div(mul(g, a), add(b, 1) if self.one_plus else b))
        return (ga, gb)


cdef Variable _xlogy(object input, object other, bint one_plus, str what):
    da, db, rt = _float_operands(input, other, what)
    if isinstance(da, (int, float, bool)) and isinstance(db, (int, float, bool)):
        raise TypeError("%s(): expected at least one Variable argument" % what)
    data = _xlogy_data(da, db, rt, one_plus)
    cdef XlogyBackward node
    if _binary_records(input, other):
        node = XlogyBackward.__new__(XlogyBackward)
        node.one_plus = one_plus
        return _binary(node, data, input, other, True, True)
    return _plain(data, _operand_volatile(input) or _operand_volatile(other))


@profiled_op
cpdef Variable xlogy(object input, object other, object out=None):
    """Elementwise ``input * log(other)``, 0 where ``input`` is 0 (unless ``other`` is
    nan); either argument may be a number.

    >>> xlogy(Variable(numpy.array([0., 2.])), Variable(numpy.array([0., 3.])))
    tensor([0.0000, 2.1972], dtype=float64)
    """
    if out is not None: return _write_out_checked("xlogy", out, xlogy(input, other),
                                                  (input, other))
    return _xlogy(input, other, False, "xlogy")


@profiled_op
cpdef Variable xlog1py(object input, object other, object out=None):
    """Elementwise ``input * log1p(other)``, 0 where ``input`` is 0 (unless ``other`` is
    nan) (``torch.special.xlog1py``).

    >>> xlog1py(Variable(numpy.array([0., 2.])), Variable(numpy.array([-1., 2.])))
    tensor([0.0000, 2.1972], dtype=float64)
    """
    if out is not None: return _write_out_checked("xlog1py", out, xlog1py(input, other),
                                                  (input, other))
    return _xlogy(input, other, True, "xlog1py")


cdef class EntrBackward(_UnaryNode):
    cdef tuple _backward(self, tuple grads):
        x = self.saved.unpack(self)
        with numpy.errstate(divide="ignore", invalid="ignore"):
            return (mul(grads[0], neg(add(log(x), 1))),)


cdef object _entr_data(object d):
    xp = _xp_of(d)
    with numpy.errstate(divide="ignore", invalid="ignore"):
        out = -d * xp.log(d)
    out = xp.where(d == 0, xp.zeros((), dtype=out.dtype), out)
    return xp.where(d < 0, xp.asarray(-numpy.inf, dtype=out.dtype), out)


@profiled_op
cpdef Variable entr(object input, object out=None):
    """Elementwise entropy term ``-input * log(input)``: 0 at 0, -inf below 0
    (``torch.special.entr``).

    >>> entr(Variable(numpy.array([0., 0.5, -1.])))
    tensor([0.0000, 0.3466,   -inf], dtype=float64)
    """
    if out is not None: return _write_out_checked("entr", out, entr(input), (input,))
    return _special_unary(_entr_data, input, EntrBackward, 1, "entr")


cdef class SincBackward(_UnaryNode):
    # torch's sinc_backward: (pi x cos(pi x) - sin(pi x)) / (x x pi), 0 where x x pi
    # is 0 (x = 0, and a tiny x whose square underflows)
    cdef tuple _backward(self, tuple grads):
        cdef Variable x = self.saved.unpack(self)
        with numpy.errstate(all="ignore"):
            zero = (x._data * x._data) * math.pi == 0
        safe = where_const(zero, 1, x)
        px = mul(safe, math.pi)
        d = div(sub(mul(px, cos(px)), sin(px)), mul(mul(safe, safe), math.pi))
        return (mul(grads[0], where_const(zero, 0, d)),)


cdef object _sinc_data(object d):
    xp = _xp_of(d)
    with numpy.errstate(divide="ignore", invalid="ignore"):
        return xp.sinc(d).astype(d.dtype, copy=False)


@profiled_op
cpdef Variable sinc(object input, object out=None):
    """Elementwise normalized sinc ``sin(pi x) / (pi x)``, 1 at 0.

    >>> sinc(Variable(numpy.array([0., 0.5, 1.])))
    tensor([1.0000e+00, 6.3662e-01, 3.8982e-17], dtype=float64)
    """
    if out is not None: return _write_out_checked("sinc", out, sinc(input), (input,))
    if isinstance(input, Variable) and _dtype_kind((<Variable>input)._data) == b'c':
        # torch takes complex input: pyad.special.sinc's composition (sin(pi z) / (pi z),
        # 1 at 0, differentiable with gradient 0 there)
        from pyad import special
        return special.sinc(input)
    _refuse_complex(input, None, "sinc")
    return _float_unary(_sinc_data, input, SincBackward, 1, "sinc")


# -- floating-point utilities ------------------------------------------------------------

cdef class _FminmaxNode(_BinaryNode):
    # The gradient goes to the operand chosen: input where input >= other or other is
    # nan (ties go to input), else other (torch's fmax; fmin with <=).
    cdef object take_a

    cdef tuple _backward(self, tuple grads):
        g = grads[0]
        ga = gb = None
        if self._needs_input_grad(0):
            ga = self.grad_a(where_const(~self.take_a, 0, g))
        if self._needs_input_grad(1):
            gb = self.grad_b(where_const(self.take_a, 0, g))
        return (ga, gb)

    cdef void _release_saved(self) noexcept:
        _BinaryNode._release_saved(self)
        self.take_a = None


cdef class FmaxBackward(_FminmaxNode):
    pass


cdef class FminBackward(_FminmaxNode):
    pass


cdef Variable _fminmax(object input, object other, bint is_max, str what):
    if _is_complex_operand(input) or _is_complex_operand(other):
        raise RuntimeError("%s(): not implemented for complex Variables." % what)
    data = _apply_binary(_np_fmax if is_max else _np_fmin, input, other, what)
    cdef _FminmaxNode node
    if _binary_records(input, other):
        da = _binary_operand_data(input, what, "input")
        db = _binary_operand_data(other, what, "other")
        xp = _xp_of(data)
        take = (da >= db) if is_max else (da <= db)
        take = xp.broadcast_to(xp.asarray(take | xp.isnan(xp.asarray(db))), data.shape)
        node = FmaxBackward.__new__(FmaxBackward) if is_max else FminBackward.__new__(FminBackward)
        node.take_a = take
        return _binary(node, data, input, other, False, False)
    return _plain(data, _operand_volatile(input) or _operand_volatile(other))


@profiled_op
cpdef Variable fmax(object input, object other, object out=None):
    """Elementwise maximum that ignores nan (nan only where both are nan); the gradient
    goes to ``input`` at ties, as torch.

    >>> fmax(Variable(numpy.array([1., numpy.nan, 3.])), Variable(numpy.array([2., 0., numpy.nan])))
    tensor([2., 0., 3.], dtype=float64)
    """
    if out is not None: return _write_out_checked("fmax", out, fmax(input, other), (input, other))
    return _fminmax(input, other, True, "fmax")


@profiled_op
cpdef Variable fmin(object input, object other, object out=None):
    """Elementwise minimum that ignores nan (nan only where both are nan); the gradient
    goes to ``input`` at ties, as torch.

    >>> fmin(Variable(numpy.array([1., numpy.nan, 3.])), Variable(numpy.array([2., 0., numpy.nan])))
    tensor([1., 0., 3.], dtype=float64)
    """
    if out is not None: return _write_out_checked("fmin", out, fmin(input, other), (input, other))
    return _fminmax(input, other, False, "fmin")


cdef class CopysignBackward(_BinaryNode):
    # d/dx copysign(x, y) = copysign(x, y) / x (+-1), 0 at x = 0 (torch's formula,
    # kept differentiable: its own derivative is 0 up to rounding, as torch's); the sign
    # source gets a zero gradient
    cdef tuple _backward(self, tuple grads):
        cdef Variable g = grads[0]
        ga = gb = None
        if self._needs_input_grad(0):
            x = _as_variable(self.a.get(self), "copysign")
            zero = x._data == 0
            safe = where_const(zero, 1, x)
            ratio = where_const(zero, 0, div(copysign(safe, self.b.get(self)), safe))
            ga = self.grad_a(mul(g, ratio))
        if self._needs_input_grad(1):
            gb = self.grad_b(_raw(_xp_of(g._data).zeros_like(g._data)))
        return (ga, gb)


@profiled_op
cpdef Variable copysign(object input, object other, object out=None):
    """Elementwise ``|input|`` with the sign of ``other`` (signed zeros count); integer
    inputs give the default float dtype.

    >>> copysign(Variable(numpy.array([1., -2., 3.])), Variable(numpy.array([-1., 1., -0.])))
    tensor([-1.,  2., -3.], dtype=float64)
    """
    if out is not None: return _write_out_checked("copysign", out, copysign(input, other),
                                                  (input, other))
    da, db, rt = _float_operands(input, other, "copysign")
    try:
        data = _np_copysign(da, db, dtype=rt)
    except ValueError:
        raise _broadcast_error("copysign", input, other) from None
    if _binary_records(input, other):
        return _binary(CopysignBackward.__new__(CopysignBackward), data, input, other,
                       True, True)
    return _plain(data, _operand_volatile(input) or _operand_volatile(other))


cdef str _LDEXP_REAL_COMPLEX = (
    "ldexp(): a real input of a complex result has no gradient here: torch's backward "
    "raises (Expected isFloatingType(grad.scalar_type()) || (input_is_complex == "
    "grad_is_complex))")


cdef object _LN2_FLOAT = math.log(2.0)


cdef class LdexpBackward(_BinaryNode):
    # torch's LdexpBackward0: input: grad * conj(2^other) (ldexp of the gradient);
    # other: (grad * conj(result)) * ln 2, in this order (it decides where overflow
    # gives inf). A real operand of a complex result: torch's backward raises.
    cdef tuple _backward(self, tuple grads):
        cdef Variable g = grads[0]
        cdef bint cplx = _dtype_kind(g._data) == b'c'
        ga = gb = None
        x = self.a.get(self)
        e = self.b.get(self)
        if self._needs_input_grad(0):
            if cplx and not _is_complex_operand(x):
                raise RuntimeError(_LDEXP_REAL_COMPLEX)
            ga = self.grad_a(ldexp(g, conj(e) if _is_complex_operand(e) else e))
        if self._needs_input_grad(1):
            if cplx and not _is_complex_operand(e):
                raise RuntimeError(_LDEXP_REAL_COMPLEX)
            r = ldexp(x, e)
            if cplx:
                r = conj(r)
            gb = self.grad_b(mul(mul(g, r), _LN2_FLOAT))
        return (ga, gb)


@profiled_op
cpdef Variable ldexp(object input, object other, object out=None):
    """Elementwise ``input * 2 ** other`` (torch's ldexp; differentiable in both).

    A floating ``input`` with an integer ``other`` is scaled exactly in its own dtype (a
    float16 input stays float16); every other pair gives ``input * 2.0 ** other`` with the
    power in the default float dtype or ``other``'s, as torch (so an integer input with a
    huge exponent can give ``0 * inf = nan``).

    >>> ldexp(Variable(numpy.array([1., 3.])), Variable(numpy.array([2, -1])))
    tensor([4.0000, 1.5000], dtype=float64)
    """
    if out is not None: return _write_out_checked("ldexp", out, ldexp(input, other),
                                                  (input, other), _OUT_EXACT)
    cdef char kb, ka
    if not isinstance(other, Variable):
        try:
            return mul(input, exp2(other))
        except _OP_ERRORS as exc:
            raise _renamed(exc, "ldexp") from None
    kb = _dtype_kind((<Variable>other)._data)
    ka = _dtype_kind((<Variable>input)._data) if isinstance(input, Variable) else b'?'
    if kb == b'b' and ka == b'f':
        _no_kernel("ldexp", "ldexp_cpu_exp", numpy.dtype(numpy.bool_))
    da = _binary_operand_data(input, "ldexp", "input")
    db = (<Variable>other)._data
    try:
        if ka == b'f' and (kb == b'i' or kb == b'u'):
            # torch's kernel for a floating input and an integer exponent: an exact
            # scaling in the input's dtype (no 2.0 ** other rounded first)
            rt = _torch_result_dtype(da, db)
            xp = _xp_of(db)
            with numpy.errstate(over="ignore", under="ignore", invalid="ignore"):
                data = xp.ldexp(xp.asarray(da).astype(rt, copy=False),
                                db.astype(numpy.int64, copy=False))
            data = _ensure_array(xp.asarray(data).astype(rt, copy=False))
        else:
            # otherwise input * 2.0 ** other, the power in other's dtype (complex when
            # the result is: a complex product, so (1+2j) * 2**inf is nan, as torch)
            xa = da if _scalar_category(da) >= 0 else _raw(da)
            e = _raw(db)
            if (ka == b'c' or _is_complex_operand(input)) and kb != b'c':
                if kb == b'f':
                    ct = numpy.complex128 if db.dtype == numpy.float64 else numpy.complex64
                else:
                    ct = _torch_result_dtype(da, db)      # (an integer exponent)
                e = _raw(db.astype(ct))
            data = mul(xa, pow(2.0, e))._data
    except _OP_ERRORS as exc:
        raise _renamed(exc, "ldexp") from None
    if _binary_records(input, other):
        return _binary(LdexpBackward.__new__(LdexpBackward), data, input, other, True, True)
    return _plain(data, _operand_volatile(input) or _operand_volatile(other))


frexp_result = namedtuple("frexp", ["mantissa", "exponent"])


cdef class FrexpBackward(_UnaryNode):
    # d mantissa / dx = 2^-exponent (the exponent is constant almost everywhere)
    cdef object scale

    cdef tuple _backward(self, tuple grads):
        return (mul(grads[0], self.scale),)

    cdef void _release_saved(self) noexcept:
        _UnaryNode._release_saved(self)
        self.scale = None


@profiled_op
cpdef object frexp(object input, object out=None):
    """Split ``input`` into mantissa (in ``[0.5, 1)`` in magnitude) and int32 exponent,
    ``input = mantissa * 2 ** exponent``; a named tuple ``(mantissa, exponent)``. The
    mantissa is differentiable (``2 ** -exponent``), the exponent is not.

    >>> frexp(Variable(numpy.array([8., 0.75])))
    frexp(mantissa=tensor([0.5000, 0.7500], dtype=float64), exponent=tensor([4, 0], dtype=int32))
    """
    if out is not None: return _write_out("frexp", out, frexp(input), _OUT_EXACT)
    cdef Variable x = _as_variable(input, "frexp")
    if _dtype_kind(x._data) != b'f':
        raise RuntimeError("frexp(): only supports floating-point dtypes")
    xp = _xp_of(x._data)
    m, e = xp.frexp(x._data)
    e = e.astype(numpy.int32, copy=False)
    cdef FrexpBackward node
    cdef Variable mantissa
    if _records(x):
        node = FrexpBackward.__new__(FrexpBackward)
        node.scale = xp.ldexp(xp.ones((), dtype=x._data.dtype), -e).astype(x._data.dtype)
        mantissa = _recorded1(node, m, _edge(x))
    else:
        mantissa = _plain(m, x._volatile)
    return frexp_result(mantissa, _plain(e, x._volatile))


cdef Variable _no_grad_float_binary(object ufunc, object input, object other, str what):
    # A float function of two inputs with no derivative (torch's are "not implemented");
    # the inputs must have one dtype, as torch's.
    _refuse_complex(input, other, what)
    da = _binary_operand_data(input, what, "input")
    db = _binary_operand_data(other, what, "other")
    if not isinstance(da, (int, float, bool)) and not isinstance(db, (int, float, bool)) \
            and not _same_dtype(_dtype(da), _dtype(db)):
        raise RuntimeError("%s(): expected both inputs to have the same dtype, got %s and %s"
                           % (what, _dtype(da), _dtype(db)))
    try:
        data = ufunc(da, db)
    except ValueError:
        raise _broadcast_error(what, input, other) from None
    ref = da if not isinstance(da, (int, float, bool)) else db
    if not isinstance(ref, (int, float, bool)):
        data = _ensure_array(data).astype(_dtype(ref), copy=False)
    return _plain(data, _operand_volatile(input) or _operand_volatile(other))


cdef class NextafterBackward(_BinaryNode):
    # torch 2.13's formula: the step is treated as the identity in input where it moves
    # (gradient passed through where input != other, zero where they are equal) and
    # constant in other (zero gradient)
    cdef tuple _backward(self, tuple grads):
        cdef Variable g = grads[0]
        ga = gb = None
        if self._needs_input_grad(0):
            da = self.a.data(self)
            db = self.b.data(self)
            xp = _xp_of(g._data)
            same = xp.broadcast_to(xp.asarray(da == db), g._data.shape)
            ga = self.grad_a(where_const(same, 0, g))
        if self._needs_input_grad(1):
            gb = self.grad_b(_raw(_xp_of(g._data).zeros_like(g._data)))
        return (ga, gb)


@profiled_op
cpdef Variable nextafter(object input, object other, object out=None):
    """The next floating-point value after ``input`` toward ``other``, elementwise; its
    gradient is torch's: ``grad`` for ``input``, zero for ``other``.

    >>> nextafter(Variable(numpy.array([1.])), Variable(numpy.array([2.]))).data - 1
    array([2.22044605e-16])
    """
    if out is not None: return _write_out_checked("nextafter", out, nextafter(input, other),
                                                  (input, other))
    # torch promotes the operands (int32 with float16: float16) and has floating
    # kernels only
    da = _binary_operand_data(input, "nextafter", "input")
    db = _binary_operand_data(other, "nextafter", "other")
    rt = _torch_result_dtype(da, db)
    if _category(rt) != 2:
        _no_kernel("nextafter", "nextafter_cpu", rt)
    xp = _xp_of(db if _scalar_category(da) >= 0 else da)
    try:
        data = _ensure_array(_np_nextafter(_in_dtype(da, rt, xp), _in_dtype(db, rt, xp)))
    except ValueError:
        raise _broadcast_error("nextafter", input, other) from None
    if _binary_records(input, other):
        return _binary(NextafterBackward.__new__(NextafterBackward), data, input,
                       other, True, True)
    return _plain(data, _operand_volatile(input) or _operand_volatile(other))


cdef object _heaviside_data(object x, object values):
    # values where x == 0, else x > 0 (so 0 at nan, as torch; NumPy's heaviside gives nan)
    xp = _xp_of(x) if not isinstance(x, (int, float, bool)) else _xp_of(values)
    dtype = x.dtype if not isinstance(x, (int, float, bool)) else values.dtype
    return xp.where(xp.asarray(x) == 0, values, xp.asarray(x) > 0).astype(dtype, copy=False)


@profiled_op
cpdef Variable heaviside(object input, object values, object out=None):
    """The Heaviside step: 0 where ``input < 0``, ``values`` where it is 0, 1 where it
    is positive (no gradient, as torch; both must have one dtype).

    >>> heaviside(Variable(numpy.array([-1., 0., 2.])), Variable(numpy.array([0.5])))
    tensor([0.0000, 0.5000, 1.0000], dtype=float64)
    """
    if out is not None: return _write_out_checked("heaviside", out, heaviside(input, values),
                                                  (input, values), _OUT_EXACT)
    if _is_complex_operand(input) or _is_complex_operand(values):
        raise RuntimeError("heaviside(): not yet implemented for complex Variables.")
    result = _no_grad_float_binary(_heaviside_data, input, values, "heaviside")
    if _binary_records(input, values) and _is_float_dtype(result._data.dtype):
        # torch records it and refuses its derivative only when it is asked for
        return _delayed_error((result,), (input, values),
                              "derivative for aten::heaviside is not implemented")[0]
    return result


cdef Variable _integer_binary(object ufunc, object input, object other, str what):
    for v, name in ((input, "input"), (other, "other")):
        if isinstance(v, complex):
            raise TypeError("%s(): argument '%s' must be a Variable or an integer, not complex"
                            % (what, name))
    rt = _torch_result_dtype(_binary_operand_data(input, what, "input"),
                             _binary_operand_data(other, what, "other"))
    if _category(rt) != 1:
        _no_kernel(what, what + "_cpu", rt)
    for v in (input, other):
        d = _binary_operand_data(v, what, "input")
        if isinstance(d, float) or (not isinstance(d, (int, bool)) and
                                    _dtype_kind(d) not in (b'i', b'u', b'b')):
            raise RuntimeError("%s(): only integer Variables are supported, got %s"
                               % (what, type(d).__name__ if isinstance(d, float) else _dtype(d)))
    return _no_grad_binary(ufunc, input, other, what)


@profiled_op
cpdef Variable gcd(object input, object other, object out=None):
    """Elementwise greatest common divisor of integers (non-negative; gcd(0, 0) = 0).

    >>> gcd(Variable(numpy.array([4, -6, 0])), Variable(numpy.array([6, 4, 0])))
    tensor([2, 2, 0])
    """
    if out is not None: return _write_out_checked("gcd", out, gcd(input, other), (input, other))
    r = _integer_binary(_np_gcd, input, other, "gcd")
    if _dtype_kind(r._data) == b'i':
        r._data = _torch_gcd_data(input, other, r._data, "gcd")
    return r


@profiled_op
cpdef Variable lcm(object input, object other, object out=None):
    """Elementwise least common multiple of integers (non-negative; 0 if either is 0).

    >>> lcm(Variable(numpy.array([4, -6, 0])), Variable(numpy.array([6, 4, 3])))
    tensor([12, 12,  0])
    """
    if out is not None: return _write_out_checked("lcm", out, lcm(input, other), (input, other))
    r = _integer_binary(_np_lcm, input, other, "lcm")
    if _dtype_kind(r._data) == b'i':
        r._data = _torch_lcm_data(input, other, r._data)
    return r


cdef object _wrap_int(object v, int bits):
    # v as a C signed integer of `bits` bits (two's complement wrap), in Python integers
    # (a C shift by 64 bits is undefined: gcd of the int64 minimum never returned)
    cdef object span = (<object>1) << bits
    v &= span - 1
    return v - span if v >= (span >> 1) else v


cdef object _c_gcd(object a, object b, int bits):
    # torch's calc_gcd in C arithmetic: abs and % wrap at INT_MIN (gcd(127, -128) in
    # int8 is -1)
    # (builtins.abs: this module's abs is the Variable op)
    a = _wrap_int(builtins.abs(a), bits)
    b = _wrap_int(builtins.abs(b), bits)
    while a != 0:
        c = a
        r = builtins.abs(b) % builtins.abs(a)
        a = _wrap_int(-r if b < 0 else r, bits)
        b = c
    return b


cdef tuple _int_operands(object input, object other, object dtype, object shape, str what):
    xp = numpy
    out = []
    for v, name in ((input, "input"), (other, "other")):
        d = _binary_operand_data(v, what, name)
        if _scalar_category(d) < 0:
            xp = _xp_of(d)
        out.append(d)
    return tuple(xp.broadcast_to(xp.asarray(d).astype(dtype, copy=False), shape)
                 for d in out)


cdef object _torch_gcd_data(object input, object other, object data, str what):
    # NumPy's gcd, except where an operand is the dtype's minimum (torch's wraps)
    if _xp_of(data) is not numpy:
        return data
    dt = data.dtype
    a, b = _int_operands(input, other, dt, data.shape, what)
    mn = numpy.iinfo(dt).min
    mask = (a == mn) | (b == mn)
    if not mask.any():
        return data
    data = numpy.array(data, copy=True)       # (C-contiguous: .flat writes through)
    bits = dt.itemsize * 8
    for i in numpy.flatnonzero(mask):
        data.flat[i] = _c_gcd(int(a.flat[i]), int(b.flat[i]), bits)
    return data


cdef object _torch_lcm_data(object input, object other, object data):
    # torch's lcm: g = gcd(a, b); 0 if g == 0 else abs(a / g * b), in the dtype's C
    # arithmetic (the product and abs wrap on overflow; NumPy's lcm does not take the
    # abs after the wrap)
    if _xp_of(data) is not numpy:
        return data
    dt = data.dtype
    a, b = _int_operands(input, other, dt, data.shape, "lcm")
    g = _torch_gcd_data(input, other, numpy.gcd(a, b), "lcm")
    # (C promotes int8/int16 to int: their product and abs do not wrap before the
    # result is narrowed)
    wd = numpy.dtype(numpy.int64) if dt.itemsize < 4 else dt
    a, b, g = a.astype(wd), b.astype(wd), g.astype(wd)
    with numpy.errstate(all="ignore"):
        safe = numpy.where(g == 0, 1, g).astype(wd, copy=False)
        q = a // safe
        # C division truncates (NumPy's floors)
        q = q + ((q * safe != a) & ((a < 0) != (safe < 0))).astype(wd)
        r = numpy.abs((q * b).astype(wd, copy=False))
        return numpy.asarray(numpy.where(g == 0, 0, r).astype(dt, copy=False))


SPECIAL_OPS = (asinh, acosh, atanh, arcsin, arccos, arctan, arctan2, arcsinh, arccosh, arctanh,
               fix, exp2, erfc, erfinv, lgamma, digamma, polygamma, mvlgamma, i0, xlogy, sinc,
               fmax, fmin, copysign, ldexp, frexp, nextafter, heaviside, gcd, lcm)
# The family's heading in docs/op-reference.md; all its ops are Variable methods too.
SPECIAL_TITLE = "Special functions and floating-point utilities"
SPECIAL_FUNCTION_ONLY = ()
# The ops that get an in-place twin (made in pyad/ops/inplace.pxi with the elementwise
# family's), each with the extra arguments of the twin's docstring example.
SPECIAL_INPLACE_TWINS = (
    (asinh, ""), (acosh, ""), (atanh, ""), (arcsin, ""), (arccos, ""), (arctan, ""),
    (arctan2, "2."), (arcsinh, ""), (arccosh, ""), (arctanh, ""), (fix, ""), (exp2, ""),
    (erfc, ""), (erfinv, ""), (lgamma, ""), (digamma, ""), (i0, ""), (xlogy, "2."),
    (sinc, ""), (copysign, "-1."), (ldexp, "2."),
    (nextafter, "2."))          # (hypot_ is an in-place form in inplace.pxi)

# torch.special's own functions (pyad.special.<name> only, neither pyad.<name> nor
# Variable methods, as torch has them).
SPECIAL_NAMESPACE_OPS = (i0e, i1, i1e, ndtr, ndtri, log_ndtr, xlog1py, entr)
SPECIAL_NAMESPACE_TITLE = "pyad.special"
SPECIAL_NAMESPACE_MODULE = "special"
