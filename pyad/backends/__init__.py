"""``pyad.backends``: ``mps`` and ``cudnn``, the backend switches torch scripts touch.

>>> import pyad
>>> pyad.backends.mps.is_available()
False
>>> pyad.backends.cudnn.benchmark = True   # accepted; CuPy picks its own algorithms
>>> pyad.backends.cudnn.benchmark = False
"""
from pyad.backends import cudnn, mps

__all__ = ["cudnn", "mps"]
