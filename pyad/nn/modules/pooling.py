"""``torch.nn.modules.pooling``: the same classes as there (defined elsewhere in pyad.nn;
this module re-exports them so that torch's import paths work)."""
from pyad.nn import (  # noqa: F401
    MaxPool1d, MaxPool2d, MaxPool3d, MaxUnpool1d, MaxUnpool2d, MaxUnpool3d, AvgPool1d,
    AvgPool2d, AvgPool3d, FractionalMaxPool2d, FractionalMaxPool3d, LPPool1d, LPPool2d, LPPool3d,
    AdaptiveMaxPool1d, AdaptiveMaxPool2d, AdaptiveMaxPool3d, AdaptiveAvgPool1d,
    AdaptiveAvgPool2d, AdaptiveAvgPool3d,
)
from pyad.nn.modules import _MaxPoolNd  # noqa: F401
from pyad.nn.layers import _AvgPoolNd  # noqa: F401
from pyad.nn.layers import _AdaptiveAvgPoolNd  # noqa: F401
from pyad.nn.layers_extra import _AdaptiveMaxPoolNd  # noqa: F401
from pyad.nn.layers_extra import _MaxUnpoolNd  # noqa: F401
from pyad.nn.layers_extra import _LPPoolNd  # noqa: F401

__all__ = [
    "MaxPool1d", "MaxPool2d", "MaxPool3d", "MaxUnpool1d", "MaxUnpool2d", "MaxUnpool3d",
    "AvgPool1d", "AvgPool2d", "AvgPool3d", "FractionalMaxPool2d", "FractionalMaxPool3d",
    "LPPool1d", "LPPool2d", "LPPool3d", "AdaptiveMaxPool1d", "AdaptiveMaxPool2d",
    "AdaptiveMaxPool3d", "AdaptiveAvgPool1d", "AdaptiveAvgPool2d", "AdaptiveAvgPool3d",
]
