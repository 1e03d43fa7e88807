"""``torch.nn.modules.batchnorm``: the same classes as there (defined elsewhere in pyad.nn;
this module re-exports them so that torch's import paths work)."""
from pyad.nn import (  # noqa: F401
    BatchNorm1d, LazyBatchNorm1d, BatchNorm2d, LazyBatchNorm2d, BatchNorm3d,
    LazyBatchNorm3d, SyncBatchNorm,
)
from pyad.nn.modules import _NormBase  # noqa: F401
from pyad.nn.modules import _BatchNorm  # noqa: F401
from pyad.nn.layers_extra import _LazyNormMixin as _LazyNormBase  # noqa: F401

__all__ = [
    "BatchNorm1d", "LazyBatchNorm1d", "BatchNorm2d", "LazyBatchNorm2d", "BatchNorm3d",
    "LazyBatchNorm3d", "SyncBatchNorm",
]
