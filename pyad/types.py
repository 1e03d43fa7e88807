"""``torch.types``: the type aliases torch's signatures are annotated with (``Number``,
``Device``, ``_size``, ...), with ``Variable`` where torch has ``Tensor``.

>>> import pyad.types
>>> isinstance(3, pyad.types.Number), isinstance(2.5, pyad.types.Number)
(True, True)
"""
import os
from collections.abc import Sequence
from typing import IO

import pyad
from pyad._engine import Variable

__all__ = ["Number", "Device", "FileLike", "IntLikeType", "FloatLikeType", "BoolLikeType"]

_bool = bool
_complex = complex
_float = float
_int = int
_str = str
_bytes = bytes
_dtype = pyad.dtype
_device = pyad.device
_layout = pyad.layout
_size = pyad.Size | list[int] | tuple[int, ...]
_symsize = _size

_TensorOrTensors = Variable | Sequence[Variable]
_TensorOrOptionalTensors = Variable | None | Sequence[Variable | None]

# Number is a union of types, as torch's (isinstance(x, Number) works)
_Number = (bool, int, float)
Number = int | float | bool
IntLikeType = int
FloatLikeType = float
BoolLikeType = bool

Device = _device | str | int | None
FileLike = str | os.PathLike | IO[bytes]
