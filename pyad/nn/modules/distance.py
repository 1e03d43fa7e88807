"""``torch.nn.modules.distance``: the same classes as there (defined elsewhere in pyad.nn;
this module re-exports them so that torch's import paths work)."""
from pyad.nn import (  # noqa: F401
    PairwiseDistance, CosineSimilarity,
)

__all__ = [
    "PairwiseDistance", "CosineSimilarity",
]
