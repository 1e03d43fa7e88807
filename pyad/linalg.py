"""pyad.linalg: torch.linalg's functions (re-exported from the engine)."""
from pyad._engine import vector_norm
from pyad._engine import _linalg_norm as norm

__all__ = ["norm", "vector_norm"]
