"""``pyad.backends.cudnn``: torch's cuDNN switches, settable so scripts run unchanged.

``benchmark`` and ``deterministic`` are plain module attributes (False by default, as
torch): pyad records them and does not act on them, since CuPy's convolutions choose
their own algorithms. `is_available` says whether CuPy can use cuDNN.

>>> import pyad
>>> pyad.backends.cudnn.deterministic = True
>>> pyad.backends.cudnn.deterministic
True
>>> pyad.backends.cudnn.deterministic = False
"""
from pyad import _engine

__all__ = ["benchmark", "deterministic", "enabled", "allow_tf32", "is_available", "version"]

benchmark = False
deterministic = False
enabled = True
allow_tf32 = True


def is_available():
    """True when CuPy is installed with its cuDNN bindings and sees a GPU."""
    cp = _engine.cupy
    if cp is None:
        return False
    try:
        import cupy.cuda.cudnn  # noqa: F401
        return cp.cuda.runtime.getDeviceCount() > 0
    except Exception:
        return False


def version():
    """cuDNN's version number as CuPy reports it, or None without cuDNN."""
    if not is_available():
        return None
    import cupy.cuda.cudnn as libcudnn
    return int(libcudnn.getVersion())
