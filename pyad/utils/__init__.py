"""``pyad.utils``: ``pyad.utils.data`` (datasets, samplers, ``DataLoader``),
``pyad.utils.checkpoint`` (recompute instead of storing) and ``pyad.utils.hooks`` (the
hooks' ``RemovableHandle``), as ``torch.utils``."""
from pyad.utils import checkpoint, data, hooks

__all__ = ["checkpoint", "data", "hooks"]
