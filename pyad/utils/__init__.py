"""``pyad.utils``: ``pyad.utils.data`` (datasets, samplers, ``DataLoader``),
``pyad.utils.checkpoint`` (recompute instead of storing) and ``pyad.utils.benchmark``
(``Timer``, ``Measurement``, ``Compare``), as ``torch.utils``."""
from pyad.utils import benchmark, checkpoint, data

__all__ = ["benchmark", "checkpoint", "data"]
