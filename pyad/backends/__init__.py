"""``pyad.backends``: ``mps`` and ``cudnn``, the backend switches torch scripts touch.

>>> import pyad
>>> pyad.backends.mps.is_available()
False
>>> pyad.backends.cudnn.benchmark = True   # accepted; CuPy picks its own algorithms
"""
from pyad.backends import cudnn, mps

__all__ = ["cudnn", "mps"]
