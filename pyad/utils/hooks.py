"""``pyad.utils.hooks``: the handle every ``register_*_hook`` returns, for code that
names its type (``torch.utils.hooks.RemovableHandle``).

>>> import pyad
>>> from pyad.utils.hooks import RemovableHandle
>>> handle = pyad.nn.Linear(2, 2).register_forward_hook(lambda m, i, o: None)
>>> isinstance(handle, RemovableHandle)
True
>>> handle.remove()
"""
from pyad._engine import RemovableHandle

__all__ = ["RemovableHandle", "unserializable_hook"]


def unserializable_hook(f):
    """Mark a hook as one that cannot be serialized (torch's decorator); returns it."""
    f.__torch_unserializable__ = True
    return f
