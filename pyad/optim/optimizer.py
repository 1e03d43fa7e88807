"""The optimizer base class and SGD, Adam, AdamW, as ``torch.optim``.

Updates run under ``no_grad`` and change each parameter in place (one version bump per
step, as torch), so a Variable saved for a backward that has not run yet is caught.
"""
import collections
import copy
import functools
import itertools
import math
import warnings
import weakref

import numpy

from pyad._engine import Variable, get_default_dtype
from pyad._factories import tensor
from pyad.autograd.grad_mode import no_grad
from pyad.nn.parameter import _zero_grads
from pyad.optim._functional import check_fused, check_hyperparameters, step_state, zeros_state

__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "register_optimizer_step_pre_hook",
           "register_optimizer_step_post_hook"]


class _RequiredParameter:
    def __repr__(self):
        return "<required parameter>"


required = _RequiredParameter()


class _HookDict(collections.OrderedDict):
    """An ordered dict of hooks that a handle can refer to weakly."""


class _HookHandle:
    """Returned by the ``register_*hook`` methods; ``remove()`` unregisters the hook
    (also usable as a context manager), as torch's ``RemovableHandle``."""

    _ids = itertools.count()

    def __init__(self, hooks):
        self._hooks_ref = weakref.ref(hooks)
        self.id = next(self._ids)

    def remove(self):
        """Unregister the hook (nothing happens if it is already gone)."""
        hooks = self._hooks_ref()
        if hooks is not None:
            hooks.pop(self.id, None)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


def _register(hooks, hook, prepend=False):
    handle = _HookHandle(hooks)
    hooks[handle.id] = hook
    if prepend:
        hooks.move_to_end(handle.id, last=False)
    return handle


_global_optimizer_pre_hooks = _HookDict()
_global_optimizer_post_hooks = _HookDict()


def register_optimizer_step_pre_hook(hook):
    """Register ``hook(optimizer, args, kwargs)`` to run before every optimizer's
    ``step`` (it may return new ``(args, kwargs)``); returns a handle with ``remove()``."""
    return _register(_global_optimizer_pre_hooks, hook)


def register_optimizer_step_post_hook(hook):
    """Register ``hook(optimizer, args, kwargs)`` to run after every optimizer's
    ``step``; returns a handle with ``remove()``."""
    return _register(_global_optimizer_post_hooks, hook)


def _hooked_step(func):
    """``step`` with the step hooks around it (torch's ``profile_hook_step``)."""

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        self = args[0]
        for pre_hook in list(_global_optimizer_pre_hooks.values()) + list(
                self._optimizer_step_pre_hooks.values()):
            result = pre_hook(self, args, kwargs)
            if result is not None:
                if isinstance(result, tuple) and len(result) == 2:
                    args, kwargs = result
                else:
                    raise RuntimeError("%s must return None or a tuple of (new_args, "
                                       "new_kwargs), but got %s." % (func, result))
        out = func(*args, **kwargs)
        for post_hook in list(self._optimizer_step_post_hooks.values()) + list(
                _global_optimizer_post_hooks.values()):
            post_hook(self, args, kwargs)
        return out

    wrapper.hooked = True
    return wrapper


class Optimizer:
    """Base class of the optimizers: parameter groups, per-parameter state, zero_grad.

    ``params`` is an iterable of Variables or of dicts (parameter groups) with a
    ``'params'`` entry and per-group options overriding ``defaults``. Subclasses define
    ``step``. ``state_dict()`` has torch's structure: ``'state'`` keyed by the index of
    each parameter (counted through the groups in order) and ``'param_groups'`` whose
    ``'params'`` are lists of those indices.
    """

    def __init__(self, params, defaults):
        self.defaults = defaults
        self._optimizer_step_pre_hooks = _HookDict()
        self._optimizer_step_post_hooks = _HookDict()
        self._optimizer_state_dict_pre_hooks = _HookDict()
        self._optimizer_state_dict_post_hooks = _HookDict()
        self._optimizer_load_state_dict_pre_hooks = _HookDict()
        self._optimizer_load_state_dict_post_hooks = _HookDict()
        self._patch_step_function()
        self.state = collections.defaultdict(dict)
        self.param_groups = []
        if isinstance(params, Variable):
            raise TypeError("params argument given to the optimizer should be an iterable of "
                            "Variables or dicts, but got " + type(params).__name__)
        # (a set is accepted here, as torch: only add_param_group refuses one)
        param_groups = list(params)
        if len(param_groups) == 0:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(param_groups[0], dict):
            param_groups = [{"params": param_groups}]
        for group in param_groups:
            self.add_param_group(group)

    def add_param_group(self, param_group):
        """Add a group of parameters (a dict with ``'params'`` and optional options).

        As torch, the dict itself becomes the group (its missing options filled from
        ``defaults``); ``'params'`` may hold ``(name, parameter)`` pairs (as given by
        ``named_parameters()``), whose names are kept in ``'param_names'``.
        """
        if not isinstance(param_group, dict):
            raise TypeError("param_group must be a dict, but got %s" % type(param_group))
        params = param_group["params"]
        if isinstance(params, Variable):
            params = [params]
        elif isinstance(params, set):
            raise TypeError("optimizer parameters need to be organized in ordered "
                            "collections, but the ordering of tensors in sets will change "
                            "between runs. Please use a list instead.")
        else:
            params = list(params)
        names = [p[0] for p in params if isinstance(p, tuple)]
        params = [p[1] if isinstance(p, tuple) else p for p in params]
        param_group["params"] = params
        if names:
            if len(names) != len(params):
                raise ValueError("all optimizer params should be with/without names. Some "
                                 "param names are missing")
            param_group["param_names"] = names
        for p in params:
            if not isinstance(p, Variable):
                raise TypeError("optimizer can only optimize Tensors, but one of the params "
                                "is " + _typename(p))
            if not self.defaults.get("differentiable", None) and not (
                    p.is_leaf or p.retains_grad):
                raise ValueError("can't optimize a non-leaf Tensor")
        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError("parameter group didn't specify a value of required "
                                 "optimization parameter " + name)
            param_group.setdefault(name, default)
        if len({id(p) for p in params}) != len(params):
            warnings.warn("optimizer contains a parameter group with duplicate parameters; "
                          "in future, this will cause an error; see "
                          "github.com/pytorch/pytorch/issues/40967 for more information",
                          stacklevel=3)
        seen = set()
        for group in self.param_groups:
            seen.update(id(p) for p in group["params"])
            if ("param_names" in param_group) != ("param_names" in group):
                raise ValueError("all optimizer param groups should be with/without names. "
                                 "cannot add param group %s to the optimizer"
                                 % ("with names" if "param_names" in param_group
                                    else "without names"))
        if any(id(p) in seen for p in params):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(param_group)

    def _patch_step_function(self):
        # the class's own step gets the hooks (once per class, as torch)
        cls = type(self)
        if not getattr(cls.step, "hooked", False):
            cls.step = _hooked_step(cls.step)

    def register_step_pre_hook(self, hook):
        """Register ``hook(optimizer, args, kwargs)`` to run before `step` (it may return
        new ``(args, kwargs)``); returns a handle with ``remove()``."""
        return _register(self._optimizer_step_pre_hooks, hook)

    def register_step_post_hook(self, hook):
        """Register ``hook(optimizer, args, kwargs)`` to run after `step`."""
        return _register(self._optimizer_step_post_hooks, hook)

    def register_state_dict_pre_hook(self, hook, prepend=False):
        """Register ``hook(optimizer)`` to run at the start of `state_dict`."""
        return _register(self._optimizer_state_dict_pre_hooks, hook, prepend)

    def register_state_dict_post_hook(self, hook, prepend=False):
        """Register ``hook(optimizer, state_dict)`` to run at the end of `state_dict`
        (it may return a new state dict)."""
        return _register(self._optimizer_state_dict_post_hooks, hook, prepend)

    def register_load_state_dict_pre_hook(self, hook, prepend=False):
        """Register ``hook(optimizer, state_dict)`` to run at the start of
        `load_state_dict` (it may return the state dict to load instead)."""
        return _register(self._optimizer_load_state_dict_pre_hooks, hook, prepend)

    def register_load_state_dict_post_hook(self, hook, prepend=False):
        """Register ``hook(optimizer)`` to run at the end of `load_state_dict`."""
        return _register(self._optimizer_load_state_dict_post_hooks, hook, prepend)

    def zero_grad(self, set_to_none=True):
        """Reset the gradients of every parameter: to None (the default) or to zeros."""
        _zero_grads((p for group in self.param_groups for p in group["params"]), set_to_none)

    def step(self, closure=None):
        """Update the parameters once (subclasses define it)."""
        raise NotImplementedError

    def _run_closure(self, closure):
        if closure is None:
            return None
        from pyad.autograd.grad_mode import enable_grad
        with enable_grad():
            return closure()

    # -- state -----------------------------------------------------------------------------

    def state_dict(self):
        """``{'state': {index: {...}}, 'param_groups': [{..., 'params': [index, ...]}]}``.

        The state's Variables are the optimizer's own (not copies), as torch.
        """
        for pre_hook in self._optimizer_state_dict_pre_hooks.values():
            pre_hook(self)
        index = {}
        groups = []
        start = 0
        for group in self.param_groups:
            packed = {k: v for k, v in group.items() if k != "params"}
            index.update({id(p): i for i, p in enumerate(group["params"], start)
                          if id(p) not in index})
            packed["params"] = [index[id(p)] for p in group["params"]]
            start += len(packed["params"])
            groups.append(packed)
        state = {(index[id(p)] if isinstance(p, Variable) else p): s
                 for p, s in self.state.items()
                 if not isinstance(p, Variable) or id(p) in index}
        state_dict = {"state": state, "param_groups": groups}
        for post_hook in self._optimizer_state_dict_post_hooks.values():
            result = post_hook(self, state_dict)
            if result is not None:
                state_dict = result
        return state_dict

    # group options that torch's __setstate__ fills in when a loaded state dict (from an
    # older version) lacks them, per optimizer
    _setstate_defaults = {}

    def load_state_dict(self, state_dict):
        """Load a `state_dict` saved from an optimizer over parameters of the same shapes.

        The state's Variables are cast to each parameter's dtype (for a real floating
        point parameter) and device, as torch -- not copied where nothing changes, so the
        loaded state shares memory with ``state_dict`` as torch's does (``'step'`` is
        kept as saved); group options are taken from the saved groups (a copy), with
        their ``'params'`` (and ``'param_names'`` when the saved groups have none) from
        this optimizer's.
        """
        state_dict = dict(state_dict)
        for pre_hook in self._optimizer_load_state_dict_pre_hooks.values():
            result = pre_hook(self, state_dict)
            if result is not None:
                state_dict = result
        saved_groups = copy.deepcopy(state_dict["param_groups"])
        if len(saved_groups) != len(self.param_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        for ours, theirs in zip(self.param_groups, saved_groups):
            if len(ours["params"]) != len(theirs["params"]):
                raise ValueError("loaded state dict contains a parameter group that doesn't "
                                 "match the size of optimizer's group")
        id_map = {}
        for ours, theirs in zip(self.param_groups, saved_groups):
            for p, i in zip(ours["params"], theirs["params"]):
                id_map[i] = p
        state = collections.defaultdict(dict)
        for key, value in state_dict["state"].items():
            if key not in id_map:
                state[key] = value
                continue
            param = id_map[key]
            saved_group = next((g for g in state_dict["param_groups"] if key in g["params"]),
                               {})
            special = bool(saved_group.get("fused") or saved_group.get("capturable"))
            state[param] = self._cast_state(param, None, value, special)
            step = state[param].get("step")
            if isinstance(step, (int, float)):
                # an old checkpoint's Python number: a 0-d Variable, as torch's
                # __setstate__ makes it
                state[param]["step"] = tensor(float(step), dtype=get_default_dtype())
        for ours, theirs in zip(self.param_groups, saved_groups):
            theirs["params"] = ours["params"]
            if "param_names" in ours and "param_names" not in theirs:
                theirs["param_names"] = ours["param_names"]
            for key, value in self._setstate_defaults.items():
                theirs.setdefault(key, value)
        self.state = state
        self.param_groups = saved_groups
        for post_hook in self._optimizer_load_state_dict_post_hooks.values():
            post_hook(self)

    @staticmethod
    def _cast_state(param, key, value, fused_or_capturable=False):
        # torch's _cast: a Variable is cast to the parameter's dtype (if the parameter is
        # real floating point) and device -- the same object when nothing changes, so a
        # loaded state shares memory with the state dict, as torch's; 'step' is kept
        # (float32 under fused/capturable); dicts and lists are rebuilt around their
        # values; anything else is kept as it is
        if isinstance(value, numpy.ndarray):
            value = Variable(value.copy())
        if isinstance(value, Variable):
            if key == "step":
                return value.to(dtype=numpy.float32) if fused_or_capturable else value
            if param.is_floating_point():
                return value.to(dtype=param.dtype, device=param.device)
            return value.to(device=param.device)
        if isinstance(value, dict):
            return {k: Optimizer._cast_state(param, k, v, fused_or_capturable)
                    for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return type(value)(Optimizer._cast_state(param, None, v, fused_or_capturable)
                               for v in value)
        return value

    def __repr__(self):
        text = type(self).__name__ + " ("
        for i, group in enumerate(self.param_groups):
            text += "\nParameter Group %d\n" % i
            for key in sorted(group):
                if key != "params":
                    text += "    %s: %s\n" % (key, group[key])
        return text + ")"


def _typename(obj):
    """torch's ``torch.typename`` for a non-Variable: the qualified class name."""
    cls = type(obj)
    module = cls.__module__
    return cls.__qualname__ if module in ("builtins", None) else module + "." + cls.__qualname__


class _ParameterwiseOptimizer(Optimizer):
    """An optimizer whose step updates each parameter with a gradient on its own: a
    subclass names its ``_zero_states`` (or overrides ``_init_state(p, state, group)``,
    which fills a parameter's empty state before its first update) and gives
    ``_update(p, state, group)``, one update (under ``no_grad``, the parameter changed in
    place)."""

    def step(self, closure=None):
        """Update every parameter that has a gradient; return the closure's loss."""
        loss = self._run_closure(closure)
        with no_grad():
            for group in self.param_groups:
                for p in group["params"]:
                    if p.grad is None:
                        continue
                    state = self.state[p]
                    if not state:
                        self._init_state(p, state, group)
                    self._update(p, state, group)
        return loss

    _zero_states = ()     # the state Variables that start as zeros like the parameter

    def _init_state(self, p, state, group):
        """A parameter's state before its first update: ``'step'``, then a Variable of
        zeros like the parameter for each name in ``_zero_states`` (torch's order)."""
        state["step"] = step_state()
        for name in self._zero_states:
            state[name] = zeros_state(p)

    def _update(self, p, state, group):
        raise NotImplementedError


class SGD(Optimizer):
    """Stochastic gradient descent with optional momentum, Nesterov, weight decay.

    Per parameter, as torch: ``g = grad (negated if maximize) + weight_decay * p``;
    with momentum, ``buf = momentum * buf + (1 - dampening) * g`` (``buf = g`` at the
    first step) and ``g = g + momentum * buf`` (nesterov) or ``g = buf``;
    then ``p -= lr * g``.

    >>> import pyad
    >>> w = pyad.nn.Parameter(pyad.tensor([1.0, 2.0]))
    >>> opt = pyad.optim.SGD([w], lr=0.1)
    >>> (w * w).sum().backward()
    >>> opt.step()
    >>> w
    Parameter containing:
    tensor([0.8000, 1.6000], requires_grad=True)
    """

    def __init__(self, params, lr=1e-3, momentum=0, dampening=0, weight_decay=0,
                 nesterov=False, *, maximize=False, foreach=None, differentiable=False,
                 fused=None):
        check_hyperparameters(lr=lr, momentum=momentum, weight_decay=weight_decay)
        # foreach, differentiable and fused choose among torch's kernels: accepted and
        # kept in the groups (scripts test for them), one update formula here
        defaults = dict(lr=lr, momentum=momentum, dampening=dampening,
                        weight_decay=weight_decay, nesterov=nesterov, maximize=maximize,
                        foreach=foreach, differentiable=differentiable, fused=fused)
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, defaults)
        check_fused(fused, foreach, differentiable)

    _setstate_defaults = dict(nesterov=False, maximize=False, foreach=None,
                              differentiable=False, fused=False)

    def step(self, closure=None):
        """Update every parameter that has a gradient; return the closure's loss."""
        loss = self._run_closure(closure)
        with no_grad():
            for group in self.param_groups:
                lr, momentum = group["lr"], group["momentum"]
                dampening, wd = group["dampening"], _hyper(group["weight_decay"])
                for p in group["params"]:
                    if p.grad is None:
                        continue
                    d_p = p.grad.data
                    if group["maximize"]:
                        d_p = -d_p
                    if wd != 0:
                        d_p = d_p + wd * p.data
                    if momentum != 0:
                        state = self.state[p]
                        buf = state.get("momentum_buffer")
                        if buf is None:
                            buf = Variable(d_p.copy())
                            state["momentum_buffer"] = buf
                        else:
                            b = buf.data
                            b *= momentum
                            b += (1 - dampening) * d_p
                        d_p = d_p + momentum * buf.data if group["nesterov"] else buf.data
                    p.sub_(Variable(lr * d_p))
        return loss


class Adam(_ParameterwiseOptimizer):
    """Adam (Kingma & Ba), with torch's options and update formula.

    Per parameter at step t: ``g = grad`` (negated if maximize), plus
    ``weight_decay * p`` (L2) unless ``decoupled_weight_decay`` (then ``p *= 1 - lr *
    weight_decay`` first, which is `AdamW`); ``m = beta1 m + (1 - beta1) g``,
    ``v = beta2 v + (1 - beta2) g^2`` (with ``amsgrad``, the running max of v is used);
    ``p -= lr / (1 - beta1^t) * m / (sqrt(v) / sqrt(1 - beta2^t) + eps)``.

    >>> import pyad
    >>> w = pyad.nn.Parameter(pyad.tensor([1.0, -1.0]))
    >>> opt = pyad.optim.Adam([w], lr=0.1)
    >>> (w * w).sum().backward()
    >>> opt.step()
    >>> w
    Parameter containing:
    tensor([ 0.9000, -0.9000], requires_grad=True)
    """

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 amsgrad=False, *, foreach=None, maximize=False, capturable=False,
                 differentiable=False, fused=None, decoupled_weight_decay=False):
        if isinstance(lr, Variable) and foreach and not capturable:
            raise ValueError("lr as a Tensor is not supported for capturable=False and "
                             "foreach=True")
        check_hyperparameters(lr=lr, eps=eps, betas=betas, weight_decay=weight_decay)
        if not (all(isinstance(b, float) for b in betas[:2])
                or all(isinstance(b, Variable) for b in betas[:2])):
            raise ValueError("betas must be either both floats or both Tensors")
        for i, beta in enumerate(betas[:2]):
            if isinstance(beta, Variable):
                if not capturable and foreach:
                    raise ValueError("betas[%d] as a Tensor is not supported for "
                                     "capturable=False and foreach=True" % i)
                if beta.numel() != 1:
                    raise ValueError("Tensor betas[%d] must be 1-element" % i)
        # foreach, capturable, differentiable and fused choose among torch's kernels:
        # accepted and kept in the groups (scripts test for them), one formula here
        defaults = dict(lr=lr, betas=tuple(betas), eps=eps, weight_decay=weight_decay,
                        amsgrad=amsgrad, maximize=maximize, foreach=foreach,
                        capturable=capturable, differentiable=differentiable, fused=fused,
                        decoupled_weight_decay=decoupled_weight_decay)
        super().__init__(params, defaults)
        check_fused(fused, foreach, differentiable)

    _setstate_defaults = dict(amsgrad=False, maximize=False, foreach=None, capturable=False,
                              differentiable=False, decoupled_weight_decay=False, fused=None)

    def _init_state(self, p, state, group):
        state["step"] = tensor(0.0)
        zeros = (lambda: Variable(p.data * 0)) if p.data.dtype.kind != "c" else (
            lambda: Variable(_xp(p.data).zeros(p.data.shape, p.data.dtype)))
        state["exp_avg"] = zeros()
        state["exp_avg_sq"] = zeros()
        if group["amsgrad"]:
            state["max_exp_avg_sq"] = zeros()

    def _update(self, p, state, group):
        lr, eps, wd = group["lr"], group["eps"], _hyper(group["weight_decay"])
        # Variable betas (torch allows 1-element tensors) are read as numbers
        beta1, beta2 = (b.item() if isinstance(b, Variable) else b for b in group["betas"])
        grad = p.grad.data
        # A complex parameter is a pair of reals (torch's view_as_real):
        # the moments are taken per real and imaginary part.
        is_complex = p.data.dtype.kind == "c"
        if is_complex:
            grad = _real_pairs(grad)
        if group["maximize"]:
            grad = -grad
        state["step"].add_(1)
        step = float(state["step"].item())
        if wd != 0:
            if group["decoupled_weight_decay"]:
                p.mul_(1 - lr * wd)
            else:
                grad = grad + wd * (_real_pairs(p.data) if is_complex else p.data)
        m, v = state["exp_avg"].data, state["exp_avg_sq"].data
        if is_complex:
            m, v = _real_view(m), _real_view(v)
        m += (grad - m) * (1 - beta1)          # torch's lerp_
        v *= beta2
        v += (1 - beta2) * grad * grad
        if group["amsgrad"]:
            vmax = state["max_exp_avg_sq"].data
            if is_complex:
                vmax = _real_view(vmax)
            _xp(vmax).maximum(vmax, v, out=vmax)
            v = vmax
        step_size = lr / (1 - beta1 ** step)
        denom = _xp(v).sqrt(v) / math.sqrt(1 - beta2 ** step) + eps
        update = step_size * (m / denom)
        if isinstance(update, Variable):        # arithmetic with a Variable lr
            update = update.data
        if is_complex:
            update = (update[..., 0] + 1j * update[..., 1]).astype(p.data.dtype)
        p.sub_(Variable(update))


class AdamW(Adam):
    """Adam with decoupled weight decay (``p *= 1 - lr * weight_decay`` each step).

    >>> import pyad
    >>> w = pyad.nn.Parameter(pyad.ones(2))
    >>> pyad.optim.AdamW([w]).defaults["weight_decay"]
    0.01
    """

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2,
                 amsgrad=False, *, foreach=None, maximize=False, capturable=False,
                 differentiable=False, fused=None):
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, foreach=foreach,
                         maximize=maximize, capturable=capturable,
                         differentiable=differentiable, fused=fused,
                         decoupled_weight_decay=True)


def _real_pairs(array):
    """A complex array as reals: a new array with a trailing axis (real, imaginary)."""
    xp = _xp(array)
    return xp.stack([array.real, array.imag], axis=-1)


def _real_view(array):
    """A view of a C-contiguous complex array (the optimizer's own state) as real pairs,
    so that updates in place change it."""
    return array[..., None].view(array.real.dtype)


def _xp(array):
    return numpy if isinstance(array, numpy.ndarray) else __import__("cupy")


def _hyper(value):
    """A hyper-parameter given as a one-element Variable (torch accepts a tensor
    ``weight_decay``) read as a Python number, so the update arithmetic stays on arrays."""
    return value.item() if isinstance(value, Variable) else value
