"""pyad.special: special functions, as ``torch.special``.

Each function is the pyad op of the same meaning (``gammaln`` is :func:`pyad.lgamma`,
``expit`` is :func:`pyad.sigmoid`, ``psi`` is :func:`pyad.digamma`, ...), differentiable
where torch's is; ``i0e``, ``i1``, ``i1e``, ``ndtr``, ``ndtri``, ``log_ndtr``,
``xlog1py``, ``entr`` and ``erfcx`` exist only here, as in torch; ``gammainc``/``gammaincc`` are
:func:`pyad.igamma`/:func:`pyad.igammac`.
"""
from pyad._engine import (
    # torch.special's own (pyad/ops/special.pxi, the special_namespace family)
    i0e, i1, i1e, ndtr, ndtri, log_ndtr, xlog1py, entr,
    # pyad ops under torch.special's names
    erf, erfc, erfinv, logit, exp2, expm1, log1p, digamma, polygamma, xlogy, i0,
)
from pyad._engine import sigmoid as expit
from pyad._engine import lgamma as gammaln
from pyad._engine import digamma as psi
from pyad._toplevel_math import igamma as gammainc
from pyad._toplevel_math import igammac as gammaincc
from pyad.linalg import _wraps  # (names and documents a wrapper as its engine op)
# the Bessel, Airy, Hurwitz zeta and orthogonal-polynomial functions (pyad/_special_more.py)
from pyad._special_more import (
    zeta, bessel_j0, bessel_j1, bessel_y0, bessel_y1, modified_bessel_i0,
    modified_bessel_i1, modified_bessel_k0, modified_bessel_k1, scaled_modified_bessel_k0,
    scaled_modified_bessel_k1, spherical_bessel_j0, airy_ai, chebyshev_polynomial_t,
    chebyshev_polynomial_u, chebyshev_polynomial_v, chebyshev_polynomial_w,
    shifted_chebyshev_polynomial_t, shifted_chebyshev_polynomial_u,
    shifted_chebyshev_polynomial_v, shifted_chebyshev_polynomial_w, hermite_polynomial_h,
    hermite_polynomial_he, legendre_polynomial_p, laguerre_polynomial_l,
)
from pyad._special_more import __all__ as _more_all

__all__ = ["erf", "erfc", "erfinv", "expit", "logit", "exp2", "expm1", "log1p", "gammaln",
           "digamma", "psi", "polygamma", "multigammaln", "xlogy", "xlog1py", "sinc", "round",
           "entr", "log_softmax", "softmax", "logsumexp", "ndtr", "ndtri", "log_ndtr", "erfcx",
           "i0", "i0e", "i1", "i1e", "gammainc", "gammaincc"] + list(_more_all)

import functools as _functools
import math as _math
import operator as _operator

import numpy as _np

import pyad as _pyad
from pyad import _engine



_TORCH_NAMES = {"int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char",
                "uint8": "Byte", "bool": "Bool"}


@_wraps(_engine.round)
def round(input, *, decimals=0):
    x = input if isinstance(input, _pyad.Variable) else _pyad.as_tensor(input)
    if x.dtype.kind in "biu":
        # torch.special.round has no integer kernel (torch.round has)
        raise NotImplementedError('special.round(): "%s" not implemented for \'%s\''
                                  % ("round_cpu" if decimals else "round_vml_cpu",
                                     _TORCH_NAMES.get(str(x.dtype), str(x.dtype))))
    return _engine.round(x, decimals=decimals)


def multigammaln(input, p):
    """The multivariate log-gamma function of dimension ``p``,
    ``sum_{j<p} lgamma(x - j/2) + p (p - 1) / 4 log(pi)``, elementwise, as
    ``torch.special.multigammaln`` (no domain check: inf/nan where an ``lgamma`` term
    is, as torch's). Differentiable (twice and more). ``p < 1`` raises RuntimeError.

    >>> pyad.special.multigammaln(pyad.tensor([2.5]), 2)
    tensor([0.8570])
    """
    if isinstance(p, bool) or not isinstance(p, int):
        try:
            p = _operator.index(p)
        except TypeError:
            raise TypeError("special.multigammaln(): argument 'p' must be int, not %s"
                            % type(p).__name__) from None
    if p < 1:
        raise RuntimeError("special.multigammaln(): p has to be greater than or equal to 1")
    x = input if isinstance(input, _pyad.Variable) else _pyad.as_tensor(input)
    if x.dtype.kind == "b":
        raise RuntimeError("special.multigammaln(): The input tensor may not be a boolean "
                           "tensor.")
    if x.dtype.kind in "iu":
        x = x.to(_pyad.get_default_dtype())
    xp = _pyad.get_array_module(x.data)
    shifts = _pyad.Variable(xp.asarray(-0.5 * _np.arange(p), dtype=x.dtype))
    return (_pyad.lgamma(x.unsqueeze(-1) + shifts).sum(-1)
            + p * (p - 1) / 4 * _math.log(_math.pi))



_SQRT_PI = _math.sqrt(_math.pi)
_ERFCX_ASYMPTOTIC = 50.0   # from here on the asymptotic series (6 terms) is exact in float64


def erfcx(input):
    """The scaled complementary error function ``exp(input ** 2) * erfc(input)``,
    elementwise, as ``torch.special.erfcx``: computed without the overflow of
    ``exp(x ** 2)`` (``exp(x ** 2 + log(2) + log_ndtr(-x sqrt(2)))`` below 50, its
    asymptotic series ``1 / (x sqrt(pi)) (1 - 1/(2x^2) + 3/(4x^4) - ...)`` from 50 on).
    Integers and bool give the default float dtype; float16 and complex input raise
    NotImplementedError, as torch's. Differentiable (twice and more; the derivative is
    ``2 x erfcx(x) - 2 / sqrt(pi)``).

    >>> pyad.special.erfcx(pyad.tensor([0.0, 1.0, 100.0]))
    tensor([1.0000, 0.4276, 0.0056])
    """
    x = input if isinstance(input, _pyad.Variable) else _pyad.as_tensor(input)
    kind = x.dtype.kind
    if kind in "biu":
        x = x.to(_pyad.get_default_dtype())
    elif kind == "c" or x.dtype == _np.float16:
        raise NotImplementedError('special.erfcx(): "erfcx_cpu" not implemented for \'%s\''
                                  % {"float16": "Half", "complex64": "ComplexFloat",
                                     "complex128": "ComplexDouble"}[str(x.dtype)])
    return _Erfcx.apply(x)


def _erfcx_value(x):
    # the value (no graph): exp(x^2 + log 2 + log_ndtr(-x sqrt 2)), the asymptotic
    # series from 50 on, 2 exp(x^2) below -26
    d = _np.asarray(x.data)
    big = d >= _ERFCX_ASYMPTOTIC
    neg = d < -26.0
    mid = ~(big | neg)
    # each branch sees only the inputs it is used for (no inf/nan gradient from the others)
    xs = _pyad.where(mid, x, _pyad.zeros_like(x))
    with _np.errstate(over="ignore"):
        out = _pyad.exp(xs * xs + _math.log(2.0)
                        + _engine.log_ndtr(xs * (-_math.sqrt(2.0))))
        if big.any():
            xb = _pyad.where(big, x, _pyad.full_like(x, _ERFCX_ASYMPTOTIC))
            inv2 = 1.0 / (2.0 * xb * xb)
            series = 1.0
            term = 1.0
            for k in range(1, 7):        # (2k - 1)!! / (2 x^2)^k, alternating
                term = term * (-(2 * k - 1)) * inv2
                series = series + term
            out = _pyad.where(big, series / (xb * _SQRT_PI), out)
        if neg.any():
            # erfcx(x) = 2 exp(x^2) - erfcx(-x): the second term is below the first's ulp
            xn = _pyad.where(neg, x, _pyad.full_like(x, -26.0))
            out = _pyad.where(neg, 2.0 * _pyad.exp(xn * xn), out)
    return out


class _Erfcx(_pyad.autograd.Function):
    # torch's derivative formula, 2 x erfcx(x) - 2 / sqrt(pi) (its overflow to inf at
    # huge x included), written with erfcx itself: differentiable again

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        with _pyad.no_grad():
            return _erfcx_value(x.detach())

    @staticmethod
    def backward(ctx, grad):
        x, = ctx.saved_tensors
        with _np.errstate(over="ignore", invalid="ignore"):
            return grad * (2.0 * x * erfcx(x) - 2.0 / _SQRT_PI)


@_wraps(_engine.logsumexp)
def logsumexp(input, dim, keepdim=False):
    # torch.special.logsumexp takes no default dim (pyad.logsumexp does)
    return _engine.logsumexp(input, dim, keepdim)


@_wraps(_engine.sinc)
def sinc(input):
    x = input if isinstance(input, _pyad.Variable) else _pyad.as_tensor(input)
    if x.dtype.kind != "c":
        return _engine.sinc(x)
    # complex input (torch.special.sinc takes it): sin(pi z) / (pi z), 1 at z = 0
    return _ComplexSinc.apply(x)


def _complex_sinc_value(x):
    zero = x == 0
    safe = _pyad.where(zero, _pyad.ones_like(x), x) * _math.pi
    return _pyad.where(zero, _pyad.ones_like(x), _pyad.sin(safe) / safe)


class _ComplexSinc(_pyad.autograd.Function):
    # complex sinc with torch's sinc_backward: g conj((pi z cos(pi z) - sin(pi z)) /
    # (z z pi)), 0 where z z pi is 0 (z = 0, and a tiny z whose square underflows);
    # written with pyad ops, so it differentiates again
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return _complex_sinc_value(x)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        px = x * _math.pi
        sq = x * x * _math.pi
        zero = sq == 0
        safe = _pyad.where(zero, _pyad.ones_like(sq), sq)
        d = _pyad.conj(px * _pyad.cos(px) - _pyad.sin(px)) / _pyad.conj(safe)
        return _pyad.where(zero, _pyad.zeros_like(d), grad * d)


@_wraps(_engine.softmax)
def softmax(input, dim, *, dtype=None):
    # torch.special.softmax takes no default dim (pyad.softmax does)
    return _engine.softmax(input, dim, dtype=dtype)


@_wraps(_engine.log_softmax)
def log_softmax(input, dim, *, dtype=None):
    return _engine.log_softmax(input, dim, dtype=dtype)
