"""``torch.optim.sgd``: `SGD` (defined in ``pyad.optim.optimizer``), importable under torch's
path."""
from pyad.optim.optimizer import SGD

__all__ = ["SGD"]
