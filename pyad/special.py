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
    erf, erfc, erfinv, logit, exp2, expm1, log1p, digamma, polygamma, xlogy, sinc, i0,
    round, log_softmax, softmax, logsumexp,
)
from pyad._engine import sigmoid as expit
from pyad._engine import lgamma as gammaln
from pyad._engine import digamma as psi
from pyad._engine import mvlgamma as multigammaln
from pyad._toplevel_math import igamma as gammainc
from pyad._toplevel_math import igammac as gammaincc

__all__ = ["erf", "erfc", "erfinv", "expit", "logit", "exp2", "expm1", "log1p", "gammaln",
           "digamma", "psi", "polygamma", "multigammaln", "xlogy", "xlog1py", "sinc", "round",
           "entr", "log_softmax", "softmax", "logsumexp", "ndtr", "ndtri", "log_ndtr", "i0",
           "i0e", "i1", "i1e", "gammainc", "gammaincc"]
