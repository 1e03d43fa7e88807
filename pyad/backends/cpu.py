"""``pyad.backends.cpu``, ``mkldnn``, ``mkl``, ``openmp`` and ``opt_einsum`` answers: the
CPU-library questions torch scripts ask, answered for pyad's NumPy backend.

>>> import pyad
>>> pyad.backends.mkldnn.is_available()
False
>>> pyad.backends.opt_einsum.enabled
True
"""
import types

import numpy

__all__ = ["get_cpu_capability", "mkldnn", "mkl", "openmp", "opt_einsum"]


def get_cpu_capability():
    """The widest SIMD instruction set NumPy's kernels dispatch to here, in torch's
    spelling ("AVX512", "AVX2", "DEFAULT"...)."""
    features = getattr(numpy._core._multiarray_umath, "__cpu_features__", {})
    if features.get("AVX512F"):
        return "AVX512"
    if features.get("AVX2"):
        return "AVX2"
    if features.get("ASIMD"):
        return "NEON"
    return "DEFAULT"


def _numpy_uses_mkl():
    try:
        config = numpy.show_config(mode="dicts")
        blas = config["Build Dependencies"]["blas"]["name"]
    except Exception:
        return False
    return "mkl" in str(blas).lower()


# pyad has no oneDNN kernels; NumPy may link MKL; NumPy's BLAS threads are not OpenMP's
mkldnn = types.SimpleNamespace(is_available=lambda: False, enabled=False)
mkl = types.SimpleNamespace(is_available=_numpy_uses_mkl)
openmp = types.SimpleNamespace(is_available=lambda: False)
# pyad.einsum contracts three or more operands in the order NumPy's own path search
# (numpy.einsum(optimize=True)) picks, as opt_einsum would
opt_einsum = types.SimpleNamespace(is_available=lambda: True, enabled=True, strategy="auto")
