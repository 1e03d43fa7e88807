"""``pyad.utils``: ``pyad.utils.data`` (datasets, samplers, ``DataLoader``) and
``pyad.utils.checkpoint`` (recompute instead of storing), as ``torch.utils``."""
from pyad.utils import checkpoint, data

__all__ = ["checkpoint", "data"]
