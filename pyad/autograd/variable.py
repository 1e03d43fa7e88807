"""``torch.autograd.variable``: `Variable` (pyad's tensor type), importable under
torch's path."""
from pyad._engine import Variable

__all__ = ["Variable"]
