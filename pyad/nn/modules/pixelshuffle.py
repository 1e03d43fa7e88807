"""``torch.nn.modules.pixelshuffle``: the same classes as there (defined elsewhere in pyad.nn;
this module re-exports them so that torch's import paths work)."""
from pyad.nn import (  # noqa: F401
    PixelShuffle, PixelUnshuffle,
)

__all__ = [
    "PixelShuffle", "PixelUnshuffle",
]
