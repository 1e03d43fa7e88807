"""pyad.linalg: linear algebra functions, as ``torch.linalg``."""
from pyad._engine import (
    # decompositions, inverses and solvers (pyad/ops/linalg.pxi)
    inv, det, slogdet, solve, cholesky, qr, eigh, svd, svdvals,
)
