"""``torch.nn.utils.memory_format``: the convolution weights' memory format (defined in
``pyad.nn.utils``), importable under torch's path."""
from pyad.nn.utils import (convert_conv2d_weight_memory_format,
                           convert_conv3d_weight_memory_format)

__all__ = ["convert_conv2d_weight_memory_format", "convert_conv3d_weight_memory_format"]
