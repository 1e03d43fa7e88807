"""``pyad.utils``: ``pyad.utils.data`` (datasets, samplers, ``DataLoader``),
``pyad.utils.checkpoint`` (recompute instead of storing), ``pyad.utils.benchmark``
(``Timer``, ``Measurement``, ``Compare``) and ``pyad.utils.hooks`` (the hooks'
``RemovableHandle``), as ``torch.utils``."""
from pyad.utils import benchmark, checkpoint, data, hooks, model_zoo

__all__ = ["benchmark", "checkpoint", "data", "hooks", "model_zoo"]
