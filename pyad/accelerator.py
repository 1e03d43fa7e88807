"""``pyad.accelerator``: the device-agnostic questions of ``torch.accelerator``, which
recent PyTorch scripts ask instead of ``torch.cuda``'s.

pyad's only accelerator is CUDA through CuPy (see `pyad.cuda`): `is_available` is
``pyad.cuda.is_available()``, `current_accelerator` the ``'cuda'`` device or None, and
the functions that need a device raise ``RuntimeError`` when there is none, as torch's.

>>> import pyad
>>> device = (pyad.accelerator.current_accelerator().type
...           if pyad.accelerator.is_available() else "cpu")
>>> pyad.zeros(2, device=device).device.type == device
True
"""
from pyad import _engine, cuda as _cuda

__all__ = ["is_available", "current_accelerator", "device_count", "current_device_index",
           "set_device_index", "synchronize"]


def _require(what):
    if not _cuda.is_available():
        raise RuntimeError("pyad.accelerator.%s(): Cannot access accelerator device when "
                           "none is available." % what)


def is_available():
    """True when there is an accelerator (a CUDA GPU that CuPy sees), as
    ``torch.accelerator.is_available``.

    >>> import pyad
    >>> pyad.accelerator.is_available() == pyad.cuda.is_available()
    True
    """
    return _cuda.is_available()


def current_accelerator(check_available=False):
    """The accelerator's device type as a device (its ``.type`` is ``'cuda'``), or None
    when there is none (as a CPU-only torch build answers, with or without
    ``check_available``).

    >>> import pyad
    >>> pyad.accelerator.current_accelerator() is None or pyad.cuda.is_available()
    True
    """
    if not _cuda.is_available():
        return None
    return _engine.device("cuda")


def device_count():
    """The number of accelerator devices (0 without one), as
    ``torch.accelerator.device_count``.

    >>> import pyad
    >>> pyad.accelerator.device_count() == pyad.cuda.device_count()
    True
    """
    return _cuda.device_count() if _cuda.is_available() else 0


def current_device_index():
    """The index of the current accelerator device; ``RuntimeError`` without one."""
    _require("current_device_index")
    return _cuda.current_device()


def set_device_index(device):
    """Make ``device`` (an index, ``'cuda:N'`` or a device) the current accelerator
    device; ``RuntimeError`` without one."""
    _require("set_device_index")
    _cuda.set_device(device)


def synchronize(device=None):
    """Wait for the accelerator's queued work; ``RuntimeError`` without one."""
    _require("synchronize")
    _cuda.synchronize(device)
