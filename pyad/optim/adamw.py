"""``torch.optim.adamw``: `AdamW` (defined in ``pyad.optim.optimizer``), importable under torch's
path."""
from pyad.optim.optimizer import AdamW

__all__ = ["AdamW"]
