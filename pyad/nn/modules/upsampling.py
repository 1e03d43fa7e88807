"""``torch.nn.modules.upsampling``: the same classes as there (defined elsewhere in pyad.nn;
this module re-exports them so that torch's import paths work)."""
from pyad.nn import (  # noqa: F401
    Upsample, UpsamplingNearest2d, UpsamplingBilinear2d,
)

__all__ = [
    "Upsample", "UpsamplingNearest2d", "UpsamplingBilinear2d",
]
