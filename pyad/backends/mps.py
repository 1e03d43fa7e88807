"""``pyad.backends.mps``: Apple's Metal backend, which pyad does not have."""

__all__ = ["is_available", "is_built"]


def is_available():
    """Always False: pyad runs on NumPy (CPU) and CuPy (NVIDIA GPUs) only.

    >>> import pyad
    >>> pyad.backends.mps.is_available()
    False
    """
    return False


def is_built():
    """Always False: pyad has no Metal backend."""
    return False
