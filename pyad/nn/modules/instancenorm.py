"""``torch.nn.modules.instancenorm``: the same classes as there (defined elsewhere in pyad.nn;
this module re-exports them so that torch's import paths work)."""
from pyad.nn import (  # noqa: F401
    InstanceNorm1d, InstanceNorm2d, InstanceNorm3d, LazyInstanceNorm1d,
    LazyInstanceNorm2d, LazyInstanceNorm3d,
)
from pyad.nn.layers import _InstanceNorm  # noqa: F401
from pyad.nn.layers_extra import _LazyNormMixin as _LazyNormBase  # noqa: F401

__all__ = [
    "InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d", "LazyInstanceNorm1d",
    "LazyInstanceNorm2d", "LazyInstanceNorm3d",
]
