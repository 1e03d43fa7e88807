"""``pyad.amp``: automatic mixed precision, as ``torch.amp``.

`autocast` runs a region's matrix products and convolutions (the ``nn.functional`` ops
listed in ``pyad.amp.autocast_mode``) in float16 or bfloat16 and its losses in float32;
`GradScaler` scales the loss so float16 gradients do not underflow and skips the steps
whose gradients overflowed. See docs/porting.md ("Mixed precision").

>>> import pyad
>>> with pyad.amp.autocast("cpu", dtype=pyad.float16):
...     pyad.nn.functional.linear(pyad.ones(1, 2), pyad.ones(3, 2)).dtype
dtype('float16')
"""
from pyad.amp.autocast_mode import (
    autocast, custom_bwd, custom_fwd, is_autocast_available,
)
from pyad.amp.grad_scaler import GradScaler

__all__ = ["autocast", "custom_bwd", "custom_fwd", "is_autocast_available", "GradScaler"]
