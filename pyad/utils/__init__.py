"""``pyad.utils``: ``pyad.utils.data`` (datasets, samplers, ``DataLoader``), as
``torch.utils``."""
from pyad.utils import data

__all__ = ["data"]
