"""``torch.nn.modules.normalization``: the same classes as there (defined elsewhere in pyad.nn;
this module re-exports them so that torch's import paths work)."""
from pyad.nn import (  # noqa: F401
    LocalResponseNorm, LayerNorm, GroupNorm, RMSNorm,
)

__all__ = [
    "LocalResponseNorm", "LayerNorm", "GroupNorm", "RMSNorm",
]
