"""``torch.nn.modules.conv``: the same classes as there (defined elsewhere in pyad.nn;
this module re-exports them so that torch's import paths work)."""
from pyad.nn import (  # noqa: F401
    Conv1d, Conv2d, Conv3d, ConvTranspose1d, ConvTranspose2d, ConvTranspose3d,
    LazyConv1d, LazyConv2d, LazyConv3d, LazyConvTranspose1d, LazyConvTranspose2d,
    LazyConvTranspose3d,
)
from pyad.nn.modules import _ConvNd  # noqa: F401
from pyad.nn.modules import _ConvTransposeNd  # noqa: F401
from pyad.nn.layers_extra import _LazyConvMixin as _LazyConvXdMixin  # noqa: F401

__all__ = [
    "Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d",
    "ConvTranspose3d", "LazyConv1d", "LazyConv2d", "LazyConv3d", "LazyConvTranspose1d",
    "LazyConvTranspose2d", "LazyConvTranspose3d",
]
