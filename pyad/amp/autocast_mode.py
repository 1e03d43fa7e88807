"""Autocast regions, as ``torch.amp.autocast_mode``: the per-thread state, the context
manager/decorator, ``custom_fwd``/``custom_bwd``, and the casting the covered ops do.

Which ops cast (torch's CPU lists, for the ops pyad runs in Python):

- to the autocast dtype: ``nn.functional`` ``linear``, ``conv1d``, ``conv2d``, ``conv3d``,
  ``conv_transpose1d``, ``conv_transpose2d``, ``prelu``,
  ``scaled_dot_product_attention`` (and the modules built on them: ``nn.Linear``,
  ``nn.Conv*``, ``nn.MultiheadAttention``...);
- to float32: the ``nn.functional`` losses torch lists (``mse_loss``, ``l1_loss``,
  ``cross_entropy``, ``nll_loss``, ``kl_div``, ...), ``grid_sample``, ``max_pool3d``,
  ``avg_pool3d``, ``adaptive_avg_pool3d``.

Ops of the compiled engine (``pyad.matmul`` and ``@``, ``mm``, ``bmm``, ``addmm``,
``baddbmm``, ``cdist``...) are not intercepted: they run in their inputs' dtype.
"""
import functools
import threading
import warnings

import numpy

from pyad import _engine

__all__ = ["autocast_decorator", "autocast", "is_autocast_available", "custom_fwd",
           "custom_bwd"]

_DEVICE_TYPES = ("cpu", "cuda")


def _default_dtypes():
    try:
        import ml_dtypes
        cpu = numpy.dtype(ml_dtypes.bfloat16)
    except ImportError:              # ml_dtypes is optional (the bfloat16 extra, jax)
        cpu = numpy.dtype(numpy.float16)
    return {"cpu": cpu, "cuda": numpy.dtype(numpy.float16)}


class _State(threading.local):
    """Per thread, as torch's: enabled flags and dtypes per device type, the cache flag
    and the nesting depth of autocast regions."""

    def __init__(self):
        self.enabled = {"cpu": False, "cuda": False}
        self.dtype = _default_dtypes()
        self.cache_enabled = True
        self.nesting = 0


_state = _State()
# How many threads have some device type's autocast switched on: the covered ops test
# this plain global first, so outside autocast they pay one attribute lookup.
_active = 0
_active_lock = threading.Lock()


def _device_type(device_type, what):
    if not isinstance(device_type, str):
        raise TypeError("%s(): argument 'device_type' (position 1) must be str, not %s"
                        % (what, type(device_type).__name__))
    if device_type not in _DEVICE_TYPES:
        raise RuntimeError("%s(): unsupported autocast device_type '%s' (pyad supports "
                           "'cpu' and 'cuda')" % (what, device_type))
    return device_type


def is_autocast_available(device_type):
    """Whether autocast supports ``device_type`` (``'cpu'`` and ``'cuda'`` in pyad).

    >>> import pyad
    >>> pyad.amp.is_autocast_available("cpu"), pyad.amp.is_autocast_available("tpu")
    (True, False)
    """
    return device_type in _DEVICE_TYPES


def is_autocast_enabled(device_type=None):
    """Whether autocast is on for ``device_type`` in this thread (``'cuda'`` when not
    given, as torch).

    >>> import pyad
    >>> with pyad.autocast("cpu"):
    ...     pyad.is_autocast_enabled("cpu")
    True
    """
    if device_type is None:
        device_type = "cuda"
    return _state.enabled[_device_type(device_type, "is_autocast_enabled")]


def set_autocast_enabled(device_type, enabled=None):
    """Switch autocast on or off for ``device_type`` in this thread (prefer `autocast`).
    ``set_autocast_enabled(True)`` alone means ``'cuda'``, as torch."""
    global _active
    if enabled is None:
        device_type, enabled = "cuda", device_type
    device_type = _device_type(device_type, "set_autocast_enabled")
    was = any(_state.enabled.values())
    _state.enabled[device_type] = bool(enabled)
    now = any(_state.enabled.values())
    if was != now:
        with _active_lock:
            _active += 1 if now else -1


def get_autocast_dtype(device_type):
    """The dtype autocast casts to on ``device_type``: bfloat16 on the CPU (float16
    where the optional ml_dtypes package is missing), float16 on CUDA, unless an
    `autocast` region said otherwise.

    >>> import pyad
    >>> pyad.get_autocast_dtype("cuda") == pyad.float16
    True
    """
    return _state.dtype[_device_type(device_type, "get_autocast_dtype")]


def set_autocast_dtype(device_type, dtype):
    """Set the dtype autocast casts to on ``device_type`` in this thread."""
    _state.dtype[_device_type(device_type, "set_autocast_dtype")] = numpy.dtype(dtype)


def is_autocast_cache_enabled():
    """Whether autocast's cache of cast weights is on (pyad keeps no such cache: the flag
    is kept for torch's API only)."""
    return _state.cache_enabled


def set_autocast_cache_enabled(enabled):
    """Set the cache flag that `is_autocast_cache_enabled` reports."""
    _state.cache_enabled = bool(enabled)


def clear_autocast_cache():
    """Clear autocast's cache of cast weights (pyad keeps none: does nothing)."""


def autocast_increment_nesting():
    """Count one more autocast region entered in this thread; returns the new depth."""
    _state.nesting += 1
    return _state.nesting


def autocast_decrement_nesting():
    """Count one autocast region left in this thread; returns the new depth."""
    _state.nesting -= 1
    return _state.nesting


def autocast_decorator(autocast_instance, func):
    """``func`` run inside ``autocast_instance``."""
    @functools.wraps(func)
    def decorate_autocast(*args, **kwargs):
        with autocast_instance:
            return func(*args, **kwargs)
    return decorate_autocast


def _is_floating(dtype):
    return dtype.kind == "f" or dtype.type.__module__ == "ml_dtypes"


class autocast:
    """A region (context manager or decorator) where the covered ops run in a lower
    precision, as ``torch.autocast``.

    ``device_type`` is ``'cpu'`` or ``'cuda'``; ``dtype`` defaults to
    `get_autocast_dtype` (bfloat16 on the CPU, float16 on CUDA); torch's CPU autocast
    takes bfloat16 and float16 only and warns and disables itself for any other dtype,
    and ``'cuda'`` without a GPU warns ``"CUDA is not available ... Disabling
    autocast."`` and disables itself, as torch. Regions nest: leaving one restores the
    state it found. The state is per thread.

    Inside, the ops listed in the module docstring of ``pyad.amp.autocast_mode`` cast
    their floating inputs (float64 excepted, as torch) to the autocast dtype, or to
    float32 for the losses. Both float16 and bfloat16 (a NumPy extension type, from
    ``ml_dtypes``) regions are differentiable: the casts are recorded, so gradients come
    back to the float32 parameters in float32; the GEMMs of float16/bfloat16 inputs
    accumulate in float32 and round once, as torch's CPU kernels.

    >>> import pyad
    >>> lin = pyad.nn.Linear(3, 2)
    >>> with pyad.autocast("cpu", dtype=pyad.float16):
    ...     out = lin(pyad.randn(4, 3))
    >>> out.dtype
    dtype('float16')
    >>> out.float().sum().backward()        # the weight's gradient is float32 again
    >>> lin.weight.grad.dtype
    dtype('float32')
    """

    def __init__(self, device_type, dtype=None, enabled=True, cache_enabled=None):
        if not isinstance(device_type, str):
            raise ValueError("Expected `device_type` of type `str`, got: `%s`"
                             % type(device_type))
        if not is_autocast_available(device_type):
            raise RuntimeError("User specified an unsupported autocast device_type '%s'"
                               % device_type)
        self.device = device_type
        self.fast_dtype = get_autocast_dtype(device_type) if dtype is None \
            else numpy.dtype(dtype)
        self._cache_enabled = is_autocast_cache_enabled() if cache_enabled is None \
            else cache_enabled
        if enabled:
            if device_type == "cuda":
                from pyad import cuda
                if not cuda.is_available():
                    warnings.warn("CUDA is not available or torch_xla is imported. "
                                  "Disabling autocast.", stacklevel=2)
                    enabled = False
                elif self.fast_dtype not in _default_dtypes().values():
                    # no bfloat16 kernels on the GPU through CuPy
                    raise RuntimeError("Current CUDA Device does not support bfloat16. "
                                       "Please switch dtype to float16.")
            elif self.fast_dtype not in _default_dtypes().values():
                warnings.warn("In CPU autocast, but the target dtype is not supported. "
                              "Disabling autocast.\nCPU Autocast only supports dtypes of "
                              "torch.bfloat16, torch.float16 currently.", stacklevel=2)
                enabled = False
        self._enabled = bool(enabled)

    def __enter__(self):
        self.prev_cache_enabled = is_autocast_cache_enabled()
        self.prev = is_autocast_enabled(self.device)
        self.prev_fastdtype = get_autocast_dtype(self.device)
        set_autocast_enabled(self.device, self._enabled)
        set_autocast_dtype(self.device, self.fast_dtype)
        autocast_increment_nesting()
        set_autocast_cache_enabled(self._cache_enabled)
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        if autocast_decrement_nesting() == 0:
            clear_autocast_cache()
        set_autocast_enabled(self.device, self.prev)
        set_autocast_dtype(self.device, self.prev_fastdtype)
        set_autocast_cache_enabled(self.prev_cache_enabled)
        return False

    def __call__(self, func):
        if not callable(func):
            raise TypeError("autocast()(func) requires a callable, but got %s. Did you mean "
                            "to use autocast as a context manager? For example:\n"
                            "    with pyad.autocast(device_type=...):\n"
                            "        output = model(input)" % type(func).__name__)
        return autocast_decorator(self, func)


# -- the casts ---------------------------------------------------------------------------------

def _cast(value, device_type, dtype):
    """``value`` with its floating Variables on ``device_type`` (float64 excepted) cast to
    ``dtype``, through lists, tuples and dicts, as torch's ``_cast``."""
    Variable = _engine.Variable
    if isinstance(value, Variable):
        if _is_floating(value.dtype) and value.device.type == device_type \
                and value.dtype != numpy.float64 and value.dtype != dtype:
            return _to(value, dtype)
        return value
    if isinstance(value, (str, bytes, numpy.ndarray)):
        return value
    if isinstance(value, dict):
        return {_cast(k, device_type, dtype): _cast(v, device_type, dtype)
                for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_cast(v, device_type, dtype) for v in value)
    return value


def _to(value, dtype):
    return value.to(dtype)                            # differentiable


def _device_of(values):
    for v in values:
        if isinstance(v, _engine.Variable):
            return v.device.type
        if isinstance(v, (list, tuple)):
            found = _device_of(v)
            if found is not None:
                return found
    return None


def _run_lower(name, fn, args, kwargs):
    """Run a lower-precision op of the autocast lists under the current autocast state."""
    device_type = _device_of(args) or _device_of(kwargs.values())
    if device_type is None or not _state.enabled.get(device_type, False):
        return fn(*args, **kwargs)
    dtype = _state.dtype[device_type]
    return _without_autocast(device_type, fn, _cast(args, device_type, dtype),
                             _cast(kwargs, device_type, dtype))


def _run_fp32(name, fn, args, kwargs):
    """Run a float32 op of the autocast lists under the current autocast state."""
    device_type = _device_of(args) or _device_of(kwargs.values())
    if device_type is None or not _state.enabled.get(device_type, False):
        return fn(*args, **kwargs)
    float32 = numpy.dtype(numpy.float32)
    return _without_autocast(device_type, fn, _cast(args, device_type, float32),
                             _cast(kwargs, device_type, float32))


def _without_autocast(device_type, fn, args, kwargs):
    # an op autocast has cast runs as one kernel in torch: what it calls inside is not
    # cast again
    set_autocast_enabled(device_type, False)
    try:
        return fn(*args, **kwargs)
    finally:
        set_autocast_enabled(device_type, True)


def _autocast_op(fn, policy):
    """``fn`` (an ``nn.functional`` function) with torch's autocast ``policy``:
    ``'lower'`` (cast to the autocast dtype) or ``'fp32'`` (cast to float32)."""
    run = _run_lower if policy == "lower" else _run_fp32
    name = fn.__name__

    @functools.wraps(fn)
    def op(*args, **kwargs):
        if _active:
            return run(name, fn, args, kwargs)
        return fn(*args, **kwargs)
    return op


# -- custom autograd Functions -----------------------------------------------------------------

def custom_fwd(fwd=None, *, device_type, cast_inputs=None):
    """Decorate a custom Function's ``forward``, as ``torch.amp.custom_fwd``: with
    ``cast_inputs`` a dtype, inside an autocast region, the floating Variable arguments
    are cast to it and ``forward`` runs with autocast off; without, ``forward`` runs in
    the caller's autocast state, which `custom_bwd` then restores for ``backward``.

    >>> import pyad
    >>> class Double(pyad.autograd.Function):
    ...     @staticmethod
    ...     @pyad.amp.custom_fwd(device_type="cpu", cast_inputs=pyad.float32)
    ...     def forward(ctx, x):
    ...         return x * 2
    ...     @staticmethod
    ...     @pyad.amp.custom_bwd(device_type="cpu")
    ...     def backward(ctx, g):
    ...         return g * 2
    >>> with pyad.autocast("cpu", dtype=pyad.float16):
    ...     Double.apply(pyad.ones(2, dtype=pyad.float16)).dtype
    dtype('float32')
    """
    if not isinstance(device_type, str):
        raise ValueError("Expected `device_type` of type `str`, got: `%s`"
                         % type(device_type))
    if fwd is None:
        return functools.partial(custom_fwd, device_type=device_type,
                                 cast_inputs=cast_inputs)

    @functools.wraps(fwd)
    def decorate_fwd(*args, **kwargs):
        args[0]._dtype = get_autocast_dtype(device_type)
        if cast_inputs is None:
            args[0]._fwd_used_autocast = is_autocast_enabled(device_type)
            return fwd(*args, **kwargs)
        args[0]._fwd_used_autocast = False
        if is_autocast_enabled(device_type):
            dtype = numpy.dtype(cast_inputs)
            with autocast(device_type=device_type, enabled=False):
                return fwd(*_cast(args, device_type, dtype),
                           **_cast(kwargs, device_type, dtype))
        return fwd(*args, **kwargs)
    return decorate_fwd


def custom_bwd(bwd=None, *, device_type):
    """Decorate a custom Function's ``backward`` so it runs in the autocast state its
    ``forward`` ran in (see `custom_fwd`), as ``torch.amp.custom_bwd``."""
    if not isinstance(device_type, str):
        raise ValueError("Expected `device_type` of type `str`, got: `%s`"
                         % type(device_type))
    if bwd is None:
        return functools.partial(custom_bwd, device_type=device_type)

    @functools.wraps(bwd)
    def decorate_bwd(*args, **kwargs):
        with autocast(device_type=device_type, enabled=args[0]._fwd_used_autocast,
                      dtype=args[0]._dtype):
            return bwd(*args, **kwargs)
    return decorate_bwd
