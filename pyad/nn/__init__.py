"""``pyad.nn``: neural-network building blocks (``pyad.nn.functional``)."""
from pyad.nn import functional

__all__ = ["functional"]
