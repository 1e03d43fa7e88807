"""pyad.special: special functions, as ``torch.special``.

Each function is the pyad op of the same meaning (``gammaln`` is :func:`pyad.lgamma`,
``expit`` is :func:`pyad.sigmoid`, ``psi`` is :func:`pyad.digamma`, ...), differentiable
where torch's is; ``i0e``, ``i1``, ``i1e``, ``ndtr``, ``ndtri``, ``log_ndtr``,
``xlog1py`` and ``entr`` exist only here, as in torch; ``gammainc``/``gammaincc`` are
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

__all__ = ["erf", "erfc", "erfinv", "expit", "logit", "exp2", "expm1", "log1p", "gammaln",
           "digamma", "psi", "polygamma", "multigammaln", "xlogy", "xlog1py", "sinc", "round",
           "entr", "log_softmax", "softmax", "logsumexp", "ndtr", "ndtri", "log_ndtr", "i0",
           "i0e", "i1", "i1e", "gammainc", "gammaincc"]

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



@_wraps(_engine.logsumexp)
def logsumexp(input, dim, keepdim=False):
    # torch.special.logsumexp takes no default dim (pyad.logsumexp does)
    return _engine.logsumexp(input, dim, keepdim)


@_wraps(_engine.sinc)
def sinc(input):
    x = input if isinstance(input, _pyad.Variable) else _pyad.as_tensor(input)
    if x.dtype.kind != "c":
        return _engine.sinc(x)
    # complex input (torch.special.sinc takes it): sin(pi z) / (pi z), 1 at z = 0, as a
    # composition (differentiable; the gradient at 0 is 0, as torch's)
    zero = x == 0
    safe = _pyad.where(zero, _pyad.ones_like(x), x) * _math.pi
    return _pyad.where(zero, _pyad.ones_like(x), _pyad.sin(safe) / safe)


@_wraps(_engine.softmax)
def softmax(input, dim, *, dtype=None):
    # torch.special.softmax takes no default dim (pyad.softmax does)
    return _engine.softmax(input, dim, dtype=dtype)


@_wraps(_engine.log_softmax)
def log_softmax(input, dim, *, dtype=None):
    return _engine.log_softmax(input, dim, dtype=dtype)
