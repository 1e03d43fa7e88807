"""pyad.linalg: linear algebra functions, as ``torch.linalg``."""
from pyad._engine import (
    # norms (pyad/ops/reduction.pxi)
    vector_norm, _linalg_norm as norm,
)
