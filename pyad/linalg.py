"""pyad.linalg: linear algebra functions, as ``torch.linalg``."""
from pyad._engine import (
    # decompositions, inverses and solvers (pyad/ops/linalg.pxi)
    inv, det, slogdet, solve, cholesky, qr, eigh, svd, svdvals, matrix_power,
    # norms (pyad/ops/linalg.pxi)
    vector_norm,
)
from pyad._engine import _linalg_norm as norm
from pyad._engine import _linalg_matrix_norm as matrix_norm
from pyad._engine import _linalg_cross as cross

__all__ = ["inv", "det", "slogdet", "solve", "cholesky", "qr", "eigh", "svd", "svdvals",
           "norm", "vector_norm", "matrix_norm", "cross", "matrix_power"]
