"""``torch.nn.modules.linear``: the same classes as there (defined elsewhere in pyad.nn;
this module re-exports them so that torch's import paths work)."""
from pyad.nn import (  # noqa: F401
    Bilinear, Identity, LazyLinear, Linear,
)
from pyad.nn.modules import NonDynamicallyQuantizableLinear  # noqa: F401

__all__ = [
    "Bilinear", "Identity", "LazyLinear", "Linear",
]
