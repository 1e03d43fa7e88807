"""``pyad.mps``: Apple's Metal backend's module, which pyad does not have: the questions
answer no, as torch's on a machine without Metal.

>>> import pyad
>>> pyad.mps.is_available(), pyad.mps.device_count()
(False, 0)
"""

__all__ = ["is_available", "device_count", "manual_seed", "seed", "empty_cache",
           "synchronize"]


def is_available():
    """Always False: pyad runs on NumPy (CPU) and CuPy (NVIDIA GPUs) only."""
    return False


def device_count():
    """Always 0."""
    return 0


def manual_seed(seed):
    """Does nothing (no Metal device), as torch's without one."""


def seed():
    """Does nothing (no Metal device), as torch's without one."""


def empty_cache():
    """Does nothing (no Metal device)."""


def synchronize():
    """``RuntimeError``: there is no Metal device to wait for."""
    raise RuntimeError("pyad.mps.synchronize(): pyad has no MPS (Metal) backend")
