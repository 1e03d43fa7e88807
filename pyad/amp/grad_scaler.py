"""Gradient scaling, as ``torch.amp.grad_scaler``: `GradScaler` and `OptState`."""
import warnings
from collections import defaultdict
from enum import Enum

import numpy

from pyad import _engine

__all__ = ["OptState", "GradScaler"]


class OptState(Enum):
    """Where an optimizer is in a `GradScaler` iteration."""
    READY = 0
    UNSCALED = 1
    STEPPED = 2


def _refresh_per_optimizer_state():
    return {"stage": OptState.READY, "found_inf_per_device": {}}


class GradScaler:
    """Scale the loss so small float16 gradients do not underflow, unscale the gradients
    before the step, and skip steps whose gradients hold an inf or NaN, as
    ``torch.amp.GradScaler``.

    ``scale(loss)`` multiplies by the current scale (a float32 0-d Variable, created on
    the loss's device at the first call); ``step(optimizer)`` unscales the gradients
    (unless `unscale_` did already) and calls ``optimizer.step()`` only if they are all
    finite; ``update()`` multiplies the scale by ``backoff_factor`` after a skipped step,
    or by ``growth_factor`` after ``growth_interval`` unskipped steps in a row, with
    torch's float32 arithmetic. ``device='cuda'`` without a GPU warns and disables the
    scaler (every method then passes through), as torch; ``'cpu'`` works everywhere.

    >>> import pyad
    >>> w = pyad.nn.Parameter(pyad.ones(2))
    >>> opt = pyad.optim.SGD([w], lr=0.1)
    >>> scaler = pyad.amp.GradScaler("cpu", init_scale=1024.0)
    >>> scaler.scale((w * 3).sum()).backward()
    >>> w.grad                                   # scaled
    tensor([3072., 3072.])
    >>> scaler.step(opt)                         # unscaled, then the step
    >>> scaler.update()
    >>> w
    Parameter containing:
    tensor([0.7000, 0.7000], requires_grad=True)
    """

    def __init__(self, device="cuda", init_scale=2.0 ** 16, growth_factor=2.0,
                 backoff_factor=0.5, growth_interval=2000, enabled=True):
        self._device = device
        self._enabled = enabled
        if self._device == "cuda":
            from pyad import cuda
            if enabled and not cuda.is_available():
                warnings.warn("torch.cuda.amp.GradScaler is enabled, but CUDA is not "
                              "available.  Disabling.", stacklevel=2)
                self._enabled = False
        if self._enabled:
            if growth_factor <= 1.0:
                raise AssertionError("The growth factor must be > 1.0.")
            if backoff_factor >= 1.0:
                raise AssertionError("The backoff factor must be < 1.0.")
            self._init_scale = init_scale
            self._scale = None
            self._growth_factor = growth_factor
            self._backoff_factor = backoff_factor
            self._growth_interval = growth_interval
            self._init_growth_tracker = 0
            self._growth_tracker = None
            self._per_optimizer_states = defaultdict(_refresh_per_optimizer_state)

    def _check_scale_growth_tracker(self, funcname):
        fix = ("This may indicate your script did not use scaler.scale(loss or outputs) "
               "earlier in the iteration.")
        if self._scale is None:
            raise AssertionError("Attempted %s but _scale is None.  %s" % (funcname, fix))
        if self._growth_tracker is None:
            raise AssertionError("Attempted %s but _growth_tracker is None.  %s"
                                 % (funcname, fix))
        return self._scale, self._growth_tracker

    def _lazy_init_scale_growth_tracker(self, dev):
        from pyad._factories import full
        self._scale = full((), self._init_scale, dtype=numpy.float32, device=dev)
        self._growth_tracker = full((), self._init_growth_tracker, dtype=numpy.int32,
                                    device=dev)

    def scale(self, outputs):
        """``outputs`` (a Variable, or lists/tuples of them) times the scale; returned
        unchanged when the scaler is disabled."""
        if not self._enabled:
            return outputs
        Variable = _engine.Variable

        def apply_scale(val):
            if isinstance(val, Variable):
                if self._scale is None:
                    self._lazy_init_scale_growth_tracker(val.device)
                return val * self._scale.to(val.device)
            if isinstance(val, (list, tuple)):
                return type(val)(apply_scale(v) for v in val)
            if hasattr(val, "__iter__"):
                return map(apply_scale, val)
            raise ValueError("outputs must be a Tensor or an iterable of Tensors")
        return apply_scale(outputs)

    def _unscale_grads_(self, optimizer, inv_scale, found_inf, allow_fp16):
        # torch's _amp_foreach_non_finite_check_and_unscale_: flag any inf/NaN, multiply
        # every gradient in place by the float32 inverse scale
        from pyad.autograd.grad_mode import no_grad
        per_device = {}
        for group in optimizer.param_groups:
            for param in group["params"]:
                if not isinstance(param, _engine.Variable):
                    raise AssertionError("expected param to be torch.Tensor, got %s"
                                         % type(param).__name__)
                grad = param.grad
                if grad is None:
                    continue
                if not allow_fp16 and grad.dtype == numpy.float16:
                    raise ValueError("Attempting to unscale FP16 gradients.")
                data = grad.data
                xp = _engine.get_array_module(data)
                flag = per_device.setdefault(grad.device, [0.0])
                if not bool(xp.isfinite(data).all()):
                    flag[0] = 1.0
                if inv_scale != 1.0:
                    with no_grad():
                        grad.mul_(float(inv_scale))
        return {dev: numpy.float32(max(found_inf, flag[0]))
                for dev, flag in per_device.items()}

    def unscale_(self, optimizer):
        """Divide ``optimizer``'s gradients by the scale (once per `step`), noting
        whether any holds an inf or NaN; for clipping between backward and step."""
        if not self._enabled:
            return
        self._check_scale_growth_tracker("unscale_")
        optimizer_state = self._per_optimizer_states[id(optimizer)]
        if optimizer_state["stage"] is OptState.UNSCALED:
            raise RuntimeError("unscale_() has already been called on this optimizer "
                               "since the last update().")
        elif optimizer_state["stage"] is OptState.STEPPED:
            raise RuntimeError("unscale_() is being called after step().")
        # float32(1 / float64(scale)), as torch
        inv_scale = numpy.float32(1.0 / float(self._scale.item()))
        optimizer_state["found_inf_per_device"] = self._unscale_grads_(
            optimizer, inv_scale, 0.0, False)
        optimizer_state["stage"] = OptState.UNSCALED

    def _maybe_opt_step(self, optimizer, optimizer_state, *args, **kwargs):
        if not sum(float(v) for v in optimizer_state["found_inf_per_device"].values()):
            return optimizer.step(*args, **kwargs)
        return None

    def step(self, optimizer, *args, **kwargs):
        """Unscale the gradients (unless `unscale_` did) and run ``optimizer.step(*args,
        **kwargs)`` if they are all finite; returns what it returns (None if skipped)."""
        if not self._enabled:
            return optimizer.step(*args, **kwargs)
        if "closure" in kwargs:
            raise RuntimeError("Closure use is not currently supported if GradScaler is "
                               "enabled.")
        self._check_scale_growth_tracker("step")
        optimizer_state = self._per_optimizer_states[id(optimizer)]
        if optimizer_state["stage"] is OptState.STEPPED:
            raise RuntimeError("step() has already been called since the last update().")
        if optimizer_state["stage"] is OptState.READY:
            self.unscale_(optimizer)
        if len(optimizer_state["found_inf_per_device"]) == 0:
            raise AssertionError("No inf checks were recorded for this optimizer.")
        retval = self._maybe_opt_step(optimizer, optimizer_state, *args, **kwargs)
        optimizer_state["stage"] = OptState.STEPPED
        return retval

    def update(self, new_scale=None):
        """Back the scale off after a skipped step, grow it after ``growth_interval``
        good steps in a row, or set it to ``new_scale`` (a float or a one-element
        float32 Variable)."""
        if not self._enabled:
            return
        _scale, _growth_tracker = self._check_scale_growth_tracker("update")
        if new_scale is not None:
            if isinstance(new_scale, float):
                self._scale.fill_(new_scale)
            else:
                reason = ("new_scale should be a float or a 1-element torch.cuda.FloatTensor "
                          "or torch.FloatTensor with requires_grad=False.")
                if not isinstance(new_scale, _engine.Variable) \
                        or new_scale.device.type != self._device \
                        or new_scale.numel() != 1 or new_scale.requires_grad:
                    raise AssertionError(reason)
                self._scale.fill_(float(new_scale.item()))
        else:
            found_infs = [float(found_inf)
                          for state in self._per_optimizer_states.values()
                          for found_inf in state["found_inf_per_device"].values()]
            if len(found_infs) == 0:
                raise AssertionError("No inf checks were recorded prior to update.")
            scale = numpy.float32(_scale.item())
            tracker = int(_growth_tracker.item())
            # torch's _amp_update_scale_: float32 scale times the double factors
            if sum(found_infs):
                scale = numpy.float32(float(scale) * self._backoff_factor)
                tracker = 0
            else:
                successful = tracker + 1
                if successful == self._growth_interval:
                    grown = numpy.float32(float(scale) * self._growth_factor)
                    if numpy.isfinite(grown):
                        scale = grown
                    tracker = 0
                else:
                    tracker = successful
            _scale.fill_(float(scale))
            _growth_tracker.fill_(tracker)
        self._per_optimizer_states = defaultdict(_refresh_per_optimizer_state)

    def _get_scale_async(self):
        return self._scale

    def get_scale(self):
        """The current scale as a Python float (1.0 when disabled)."""
        if self._enabled:
            return self._init_scale if self._scale is None else float(self._scale.item())
        return 1.0

    def get_growth_factor(self):
        """The scale growth factor."""
        return self._growth_factor

    def set_growth_factor(self, new_factor):
        """Set the scale growth factor."""
        self._growth_factor = new_factor

    def get_backoff_factor(self):
        """The scale backoff factor."""
        return self._backoff_factor

    def set_backoff_factor(self, new_factor):
        """Set the scale backoff factor."""
        self._backoff_factor = new_factor

    def get_growth_interval(self):
        """The number of good steps in a row that grows the scale."""
        return self._growth_interval

    def set_growth_interval(self, new_interval):
        """Set the growth interval."""
        self._growth_interval = new_interval

    def _get_growth_tracker(self):
        if self._enabled:
            return self._init_growth_tracker if self._growth_tracker is None \
                else int(self._growth_tracker.item())
        return 0

    def is_enabled(self):
        """Whether the scaler scales (False after ``enabled=False`` or on 'cuda' without
        a GPU)."""
        return self._enabled

    def state_dict(self):
        """``scale``, ``growth_factor``, ``backoff_factor``, ``growth_interval`` and
        ``_growth_tracker`` (an empty dict when disabled), as torch."""
        if self._enabled:
            return {"scale": self.get_scale(), "growth_factor": self._growth_factor,
                    "backoff_factor": self._backoff_factor,
                    "growth_interval": self._growth_interval,
                    "_growth_tracker": self._get_growth_tracker()}
        return {}

    def load_state_dict(self, state_dict):
        """Restore a `state_dict` (a no-op when disabled)."""
        if not self._enabled:
            return
        if len(state_dict) == 0:
            raise RuntimeError("The source state dict is empty, possibly because it was "
                               "saved from a disabled instance of GradScaler.")
        self._init_scale = state_dict["scale"]
        if self._scale is not None:
            self._scale.fill_(state_dict["scale"])
        self._growth_factor = state_dict["growth_factor"]
        self._backoff_factor = state_dict["backoff_factor"]
        self._growth_interval = state_dict["growth_interval"]
        self._init_growth_tracker = state_dict["_growth_tracker"]
        if self._growth_tracker is not None:
            self._growth_tracker.fill_(state_dict["_growth_tracker"])

    def __getstate__(self):
        state = self.__dict__.copy()
        if self._enabled:
            if len(self._per_optimizer_states) != 0:
                raise AssertionError("A GradScaler instance may only be pickled at the "
                                     "beginning of an iteration, or at the end after "
                                     "scaler.update().")
            state["_per_optimizer_states"] = None
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        if self._enabled:
            self._per_optimizer_states = defaultdict(_refresh_per_optimizer_state)

    def _check_inf_per_device(self, optimizer):
        """Record, without unscaling, whether ``optimizer``'s gradients hold an inf/NaN."""
        self._check_scale_growth_tracker("_check_inf_per_device")
        found = self._unscale_grads_(optimizer, numpy.float32(1.0), 0.0, True)
        self._per_optimizer_states[id(optimizer)]["found_inf_per_device"] = found
        return found

    def _found_inf_per_device(self, optimizer):
        return self._per_optimizer_states[id(optimizer)]["found_inf_per_device"]
