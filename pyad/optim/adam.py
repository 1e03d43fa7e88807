"""``torch.optim.adam``: `Adam` (defined in ``pyad.optim.optimizer``), importable under torch's
path."""
from pyad.optim.optimizer import Adam

__all__ = ["Adam"]
