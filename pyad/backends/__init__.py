"""``pyad.backends``: the backend switches and questions torch scripts touch: ``cudnn``,
``cuda`` (``matmul.allow_tf32``...), ``mps``, ``cpu``, ``mkldnn``, ``mkl``, ``openmp`` and
``opt_einsum``.

>>> import pyad
>>> pyad.backends.mps.is_available()
False
>>> pyad.backends.cudnn.benchmark = True   # accepted; CuPy picks its own algorithms
>>> pyad.backends.cudnn.benchmark = False
"""
from pyad.backends import cudnn, cuda, mps, cpu
from pyad.backends.cpu import mkldnn, mkl, openmp, opt_einsum

__all__ = ["cudnn", "cuda", "mps", "cpu", "mkldnn", "mkl", "openmp", "opt_einsum"]
