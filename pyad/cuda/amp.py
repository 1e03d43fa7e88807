"""``pyad.cuda.amp``: torch's deprecated CUDA spellings of `pyad.amp`.

Each warns with torch's ``FutureWarning`` and forwards to ``pyad.amp`` with
``device_type='cuda'`` (which, without a GPU, warns again and disables itself).

>>> import warnings, pyad
>>> with warnings.catch_warnings():
...     warnings.simplefilter("ignore")
...     pyad.cuda.amp.GradScaler().is_enabled() == pyad.cuda.is_available()
True
"""
import functools
import warnings

from pyad.amp import autocast_mode as _autocast_mode
from pyad.amp import grad_scaler as _grad_scaler

__all__ = ["amp_definitely_not_available", "autocast", "custom_bwd", "custom_fwd",
           "GradScaler"]


def amp_definitely_not_available():
    """True when there is no GPU for CUDA autocast (`pyad.cuda.is_available` is False)."""
    from pyad import cuda
    return not cuda.is_available()


class autocast(_autocast_mode.autocast):
    """``pyad.amp.autocast('cuda', ...)`` under its deprecated name (FutureWarning)."""

    def __init__(self, enabled=True, dtype=None, cache_enabled=True):
        warnings.warn("`torch.cuda.amp.autocast(args...)` is deprecated. Please use "
                      "`torch.amp.autocast('cuda', args...)` instead.", FutureWarning,
                      stacklevel=2)
        import numpy
        super().__init__("cuda", enabled=enabled,
                         dtype=numpy.float16 if dtype is None else dtype,
                         cache_enabled=cache_enabled)


def custom_fwd(fwd=None, *, cast_inputs=None):
    """``pyad.amp.custom_fwd(device_type='cuda')`` under its deprecated name."""
    warnings.warn("`torch.cuda.amp.custom_fwd(args...)` is deprecated. Please use "
                  "`torch.amp.custom_fwd(args..., device_type='cuda')` instead.",
                  FutureWarning, stacklevel=2)
    return functools.partial(_autocast_mode.custom_fwd, device_type="cuda")(
        fwd=fwd, cast_inputs=cast_inputs)


def custom_bwd(bwd):
    """``pyad.amp.custom_bwd(device_type='cuda')`` under its deprecated name."""
    warnings.warn("`torch.cuda.amp.custom_bwd(args...)` is deprecated. Please use "
                  "`torch.amp.custom_bwd(args..., device_type='cuda')` instead.",
                  FutureWarning, stacklevel=2)
    return functools.partial(_autocast_mode.custom_bwd, device_type="cuda")(bwd)


class GradScaler(_grad_scaler.GradScaler):
    """``pyad.amp.GradScaler('cuda', ...)`` under its deprecated name (FutureWarning)."""

    def __init__(self, init_scale=2.0 ** 16, growth_factor=2.0, backoff_factor=0.5,
                 growth_interval=2000, enabled=True):
        warnings.warn("`torch.cuda.amp.GradScaler(args...)` is deprecated. Please use "
                      "`torch.amp.GradScaler('cuda', args...)` instead.", FutureWarning,
                      stacklevel=2)
        super().__init__("cuda", init_scale=init_scale, growth_factor=growth_factor,
                         backoff_factor=backoff_factor, growth_interval=growth_interval,
                         enabled=enabled)
