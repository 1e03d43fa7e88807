"""``pyad.xpu``: Intel GPUs, which pyad does not support. The questions a torch script
asks when it picks a device answer as torch's do on a build without XPU: `is_available`
is False, `device_count` 0, the seeding and cache functions do nothing, and the
functions that need a device raise ``AssertionError``.

>>> import pyad
>>> pyad.xpu.is_available(), pyad.xpu.device_count()
(False, 0)
"""

__all__ = ["is_available", "is_initialized", "device_count", "current_device",
           "set_device", "get_device_name", "synchronize", "manual_seed",
           "manual_seed_all", "seed", "seed_all", "empty_cache"]


def _no_xpu(what):
    raise AssertionError("pyad.xpu.%s(): pyad has no XPU support (pyad.xpu.is_available() "
                         "is False)" % what)


def is_available():
    """Always False: pyad runs on NumPy (CPU) and CuPy (NVIDIA GPUs) only."""
    return False


def is_initialized():
    """Always False."""
    return False


def device_count():
    """Always 0."""
    return 0


def current_device():
    """Raises ``AssertionError``, as torch's without XPU."""
    _no_xpu("current_device")


def set_device(device):
    """Raises ``AssertionError``, as torch's without XPU."""
    _no_xpu("set_device")


def get_device_name(device=None):
    """Raises ``AssertionError``, as torch's without XPU."""
    _no_xpu("get_device_name")


def synchronize(device=None):
    """Raises ``AssertionError``, as torch's without XPU."""
    _no_xpu("synchronize")


def manual_seed(seed):
    """Does nothing (there is no XPU generator), as torch's without XPU."""


def manual_seed_all(seed):
    """Does nothing, as torch's without XPU."""


def seed():
    """Does nothing, as torch's without XPU."""


def seed_all():
    """Does nothing, as torch's without XPU."""


def empty_cache():
    """Does nothing, as torch's without XPU."""
