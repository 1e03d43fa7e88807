"""Learning-rate schedules, as ``torch.optim.lr_scheduler``.

Call ``scheduler.step()`` once per epoch (or per batch for `OneCycleLR` and `CyclicLR`),
after ``optimizer.step()``; `ReduceLROnPlateau` takes the metric: ``step(val_loss)``.
Each schedule has torch's recursive ("chainable") form, so schedules compose with each
other and with `ChainedScheduler` and `SequentialLR` exactly as torch's do.

>>> import pyad
>>> opt = pyad.optim.SGD([pyad.nn.Parameter(pyad.zeros(1))], lr=1.0)
>>> sched = pyad.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
>>> lrs = []
>>> for epoch in range(5):
...     opt.step()
...     lrs.append(sched.get_last_lr()[0])
...     sched.step()
>>> lrs
[1.0, 1.0, 0.5, 0.5, 0.25]
"""
import functools
import math
import types
import warnings
import weakref
from bisect import bisect_right
from collections import Counter
from functools import partial

from pyad._engine import Variable
from pyad.autograd.grad_mode import no_grad
from pyad.optim.optimizer import Optimizer

__all__ = ["LRScheduler", "LambdaLR", "MultiplicativeLR", "StepLR", "MultiStepLR",
           "ConstantLR", "LinearLR", "ExponentialLR", "SequentialLR", "PolynomialLR",
           "CosineAnnealingLR", "ChainedScheduler", "ReduceLROnPlateau", "CyclicLR",
           "CosineAnnealingWarmRestarts", "OneCycleLR"]


EPOCH_DEPRECATION_WARNING = (
    "The epoch parameter in `scheduler.step()` was not necessary and is being "
    "deprecated where possible. Please use `scheduler.step()` to step the "
    "scheduler. During the deprecation, if epoch is different from None, the "
    "closed form is used instead of the new chainable form, where available. "
    "Please open an issue if you are unable to replicate your use case: "
    "https://github.com/pytorch/pytorch/issues/new/choose."
)


def _patch_optimizer_step(optimizer):
    """Wrap ``optimizer.step`` so the scheduler can tell whether it ran before its own
    first ``step`` (torch warns when the order is reversed)."""
    if getattr(optimizer.step, "_wrapped_by_lr_sched", False):
        return
    opt_ref = weakref.ref(optimizer)      # no cycle: the optimizer owns the wrapper
    func = optimizer.step.__func__

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        opt = opt_ref()
        opt._opt_called = True
        return func(opt, *args, **kwargs)

    wrapper._wrapped_by_lr_sched = True
    optimizer.step = wrapper


def _copy(value):
    """A Variable value cloned (so that a list handed out never aliases a group's own
    Variable ``lr``, as torch's ``_param_groups_val_list``); anything else unchanged."""
    return value.detach().clone() if isinstance(value, Variable) else value


def _lrs(optimizer, key="lr"):
    return [_copy(group[key]) for group in optimizer.param_groups]


def _set_group_value(group, key, value):
    """``group[key] = value``; where the group holds a Variable (torch allows a tensor
    ``lr``) it is filled in place instead, so it stays the same object, as torch."""
    held = group[key]
    if isinstance(held, Variable):
        with no_grad():
            held.fill_(value.item() if isinstance(value, Variable) else value)
    else:
        group[key] = value


def _format_param(name, optimizer, param):
    """One value per parameter group (a list of that length, or one value repeated); a
    Variable value is cloned, as torch, so that changing the caller's Variable later
    changes no schedule (``base_lrs``, ``max_lrs``, ``group['max_momentum']``, ...)."""
    if isinstance(param, (list, tuple)):
        if len(param) != len(optimizer.param_groups):
            raise ValueError("%s must have the same length as optimizer.param_groups. %s has "
                             "%d values, param_groups has %d."
                             % (name, name, len(param), len(optimizer.param_groups)))
    else:
        param = [param] * len(optimizer.param_groups)
    return [_copy(value) for value in param]


def _lambdas(optimizer, lr_lambda):
    if not isinstance(lr_lambda, (list, tuple)):
        return [lr_lambda] * len(optimizer.param_groups)
    if len(lr_lambda) != len(optimizer.param_groups):
        raise ValueError("Expected %d lr_lambdas, but got %d"
                         % (len(optimizer.param_groups), len(lr_lambda)))
    return list(lr_lambda)


class LRScheduler:
    """Base class: sets each group's ``'lr'`` from ``get_lr()`` at every `step`.

    The constructor records ``initial_lr`` in each group (``base_lrs``) and takes the
    first step, so ``get_last_lr()`` is the epoch-0 learning rate. ``state_dict`` holds
    every attribute except the optimizer.
    """

    _is_initial = False
    _get_lr_called_within_step = False

    def __init__(self, optimizer, last_epoch=-1):
        if not isinstance(optimizer, Optimizer):
            raise TypeError("%s is not an Optimizer" % type(optimizer).__name__)
        self.optimizer = optimizer
        if last_epoch == -1:
            for group in optimizer.param_groups:
                group.setdefault("initial_lr", _copy(group["lr"]))
        else:
            for i, group in enumerate(optimizer.param_groups):
                if "initial_lr" not in group:
                    raise KeyError(
                        "param 'initial_lr' is not specified in param_groups[%d] when resuming "
                        "scheduler with last_epoch >= 0.\nThis typically happens when:\n1. "
                        "You're trying to resume training from a checkpoint but haven't "
                        "properly loaded the optimizer state\n2. You're using last_epoch >= 0 "
                        "for a fresh training run (not recommended)" % i)
        self.base_lrs = _lrs(optimizer, "initial_lr")
        self.last_epoch = last_epoch
        _patch_optimizer_step(optimizer)
        self._initial_step()

    def _initial_step(self):
        self._step_count = 0
        self._is_initial = True
        try:
            self.step()
        finally:
            self._is_initial = False

    def get_lr(self):
        """The learning rates for the current ``last_epoch`` (subclasses define it)."""
        raise NotImplementedError

    def get_last_lr(self):
        """The learning rates set by the last `step`, one per parameter group."""
        return self._last_lr

    def step(self, epoch=None):
        """Advance one epoch (or jump to ``epoch``, torch's deprecated form) and set the
        groups' learning rates."""
        if self._step_count == 1:
            if not getattr(self.optimizer.step, "_wrapped_by_lr_sched", False):
                warnings.warn("Seems like `optimizer.step()` has been overridden after learning "
                              "rate scheduler initialization. Please, make sure to call "
                              "`optimizer.step()` before `lr_scheduler.step()`. See more "
                              "details at https://pytorch.org/docs/stable/optim.html"
                              "#how-to-adjust-learning-rate", UserWarning, stacklevel=2)
            elif not getattr(self.optimizer, "_opt_called", False):
                warnings.warn("Detected call of `lr_scheduler.step()` before "
                              "`optimizer.step()`. In PyTorch 1.1.0 and later, you should call "
                              "them in the opposite order: `optimizer.step()` before "
                              "`lr_scheduler.step()`.  Failure to do this will result in "
                              "PyTorch skipping the first value of the learning rate schedule. "
                              "See more details at https://pytorch.org/docs/stable/optim.html"
                              "#how-to-adjust-learning-rate", UserWarning, stacklevel=2)
        self._step_count += 1
        if epoch is not None:
            warnings.warn(EPOCH_DEPRECATION_WARNING, UserWarning, stacklevel=2)
        self._update_lr(epoch)

    def _update_lr(self, epoch=None):
        self._get_lr_called_within_step = True        # torch's flag, kept in state_dict
        try:
            if epoch is None:
                self.last_epoch += 1
                values = self.get_lr()
            else:
                self.last_epoch = epoch
                closed = getattr(self, "_get_closed_form_lr", None)
                values = closed() if closed is not None else self.get_lr()
        finally:
            self._get_lr_called_within_step = False
        for group, lr in zip(self.optimizer.param_groups, values, strict=True):
            _set_group_value(group, "lr", lr)
        self._last_lr = _lrs(self.optimizer)

    def state_dict(self):
        """Every attribute except the optimizer."""
        return {k: v for k, v in self.__dict__.items() if k != "optimizer"}

    def load_state_dict(self, state_dict):
        """Restore attributes saved by `state_dict`."""
        self.__dict__.update(state_dict)

class _LRScheduler(LRScheduler):
    """torch's old name of `LRScheduler`, which custom schedules subclass."""


def _warn_get_lr_called_within_step(scheduler):
    """torch's warning for ``get_lr()`` called from outside ``step``."""
    if not scheduler._get_lr_called_within_step:
        warnings.warn("To get the last learning rate computed by the scheduler, please use "
                      "`get_last_lr()`.", UserWarning, stacklevel=3)


class _LambdaStateMixin:
    """``state_dict`` without the lambdas (a callable object's ``__dict__`` is kept)."""

    def state_dict(self):
        state = {k: v for k, v in self.__dict__.items()
                 if k not in ("optimizer", "lr_lambdas")}
        state["lr_lambdas"] = [None if isinstance(fn, types.FunctionType)
                               else fn.__dict__.copy() for fn in self.lr_lambdas]
        return state

    def load_state_dict(self, state_dict):
        state_dict = dict(state_dict)
        lr_lambdas = state_dict.pop("lr_lambdas")
        self.__dict__.update(state_dict)
        for fn, saved in zip(self.lr_lambdas, lr_lambdas):
            if saved is not None:
                fn.__dict__.update(saved)


class LambdaLR(_LambdaStateMixin, LRScheduler):
    """``lr = initial_lr * lr_lambda(epoch)`` (one function, or one per group).

    >>> import pyad
    >>> opt = pyad.optim.SGD([pyad.nn.Parameter(pyad.zeros(1))], lr=1.0)
    >>> sched = pyad.optim.lr_scheduler.LambdaLR(opt, lambda epoch: 0.5 ** epoch)
    >>> for epoch in range(2):
    ...     opt.step(); sched.step()
    >>> sched.get_last_lr()
    [0.25]
    """

    def __init__(self, optimizer, lr_lambda, last_epoch=-1):
        self.optimizer = optimizer
        self.lr_lambdas = _lambdas(optimizer, lr_lambda)
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        """``base_lr * lr_lambda(last_epoch)`` per group."""
        _warn_get_lr_called_within_step(self)
        return [base * fn(self.last_epoch)
                for fn, base in zip(self.lr_lambdas, self.base_lrs, strict=True)]


class MultiplicativeLR(_LambdaStateMixin, LRScheduler):
    """Multiply the learning rate by ``lr_lambda(epoch)`` at every step after the first.

    >>> import pyad
    >>> opt = pyad.optim.SGD([pyad.nn.Parameter(pyad.zeros(1))], lr=1.0)
    >>> sched = pyad.optim.lr_scheduler.MultiplicativeLR(opt, lambda epoch: 0.5)
    >>> for epoch in range(2):
    ...     opt.step(); sched.step()
    >>> sched.get_last_lr()
    [0.25]
    """

    def __init__(self, optimizer, lr_lambda, last_epoch=-1):
        self.optimizer = optimizer
        self.lr_lambdas = _lambdas(optimizer, lr_lambda)
        for fn in self.lr_lambdas:
            if not callable(fn):
                raise TypeError("lr_lambda should be a function, but got %s"
                                % type(fn).__name__)
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        """``lr * lr_lambda(last_epoch)`` per group (unchanged at construction)."""
        _warn_get_lr_called_within_step(self)
        if self._is_initial:
            return _lrs(self.optimizer)
        return [group["lr"] * fn(self.last_epoch)
                for fn, group in zip(self.lr_lambdas, self.optimizer.param_groups, strict=True)]


class StepLR(LRScheduler):
    """Multiply the learning rate by ``gamma`` every ``step_size`` epochs.

    >>> import pyad
    >>> opt = pyad.optim.SGD([pyad.nn.Parameter(pyad.zeros(1))], lr=1.0)
    >>> sched = pyad.optim.lr_scheduler.StepLR(opt, step_size=1, gamma=0.1)
    >>> opt.step(); sched.step(); sched.get_last_lr()
    [0.1]
    """

    def __init__(self, optimizer, step_size, gamma=0.1, last_epoch=-1):
        self.step_size = step_size
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        """``lr * gamma`` on epochs that are multiples of ``step_size``, else ``lr``."""
        _warn_get_lr_called_within_step(self)
        if self.last_epoch == 0 or self.last_epoch % self.step_size != 0:
            return _lrs(self.optimizer)
        return [group["lr"] * self.gamma for group in self.optimizer.param_groups]

    def _get_closed_form_lr(self):
        return [base * self.gamma ** (self.last_epoch // self.step_size)
                for base in self.base_lrs]


class MultiStepLR(LRScheduler):
    """Multiply the learning rate by ``gamma`` at each of the ``milestones`` epochs.

    >>> import pyad
    >>> opt = pyad.optim.SGD([pyad.nn.Parameter(pyad.zeros(1))], lr=1.0)
    >>> sched = pyad.optim.lr_scheduler.MultiStepLR(opt, milestones=[2], gamma=0.1)
    >>> for epoch in range(2):
    ...     opt.step(); sched.step()
    >>> sched.get_last_lr()
    [0.1]
    """

    def __init__(self, optimizer, milestones, gamma=0.1, last_epoch=-1):
        self.milestones = Counter(milestones)
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        """``lr * gamma ** count`` at a milestone (repeated milestones count), else ``lr``."""
        _warn_get_lr_called_within_step(self)
        if self.last_epoch not in self.milestones:
            return _lrs(self.optimizer)
        return [group["lr"] * self.gamma ** self.milestones[self.last_epoch]
                for group in self.optimizer.param_groups]

    def _get_closed_form_lr(self):
        milestones = sorted(self.milestones.elements())
        return [base * self.gamma ** bisect_right(milestones, self.last_epoch)
                for base in self.base_lrs]


class ConstantLR(LRScheduler):
    """Scale the learning rate by ``factor`` until epoch ``total_iters``.

    >>> import pyad
    >>> opt = pyad.optim.SGD([pyad.nn.Parameter(pyad.zeros(1))], lr=1.0)
    >>> sched = pyad.optim.lr_scheduler.ConstantLR(opt, factor=0.5, total_iters=1)
    >>> before = sched.get_last_lr(); opt.step(); sched.step(); before, sched.get_last_lr()
    ([0.5], [1.0])
    """

    def __init__(self, optimizer, factor=1.0 / 3, total_iters=5, last_epoch=-1):
        if factor > 1.0 or factor < 0:
            raise ValueError("Constant multiplicative factor expected to be between 0 and 1.")
        self.factor = factor
        self.total_iters = total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        """``lr * factor`` at epoch 0, ``lr / factor`` at ``total_iters``, else ``lr``."""
        _warn_get_lr_called_within_step(self)
        if self.last_epoch == 0:
            return [group["lr"] * self.factor for group in self.optimizer.param_groups]
        if self.last_epoch != self.total_iters:
            return _lrs(self.optimizer)
        return [group["lr"] * (1.0 / self.factor) for group in self.optimizer.param_groups]

    def _get_closed_form_lr(self):
        return [base * (self.factor + (self.last_epoch >= self.total_iters) * (1 - self.factor))
                for base in self.base_lrs]


class LinearLR(LRScheduler):
    """Scale the learning rate linearly from ``start_factor`` to ``end_factor`` over
    ``total_iters`` epochs.

    >>> import pyad
    >>> opt = pyad.optim.SGD([pyad.nn.Parameter(pyad.zeros(1))], lr=1.0)
    >>> sched = pyad.optim.lr_scheduler.LinearLR(opt, start_factor=0.5, total_iters=2)
    >>> before = sched.get_last_lr(); opt.step(); sched.step()
    >>> before, round(sched.get_last_lr()[0], 4)
    ([0.5], 0.75)
    """

    def __init__(self, optimizer, start_factor=1.0 / 3, end_factor=1.0, total_iters=5,
                 last_epoch=-1):
        if start_factor > 1.0 or start_factor <= 0:
            raise ValueError("Starting multiplicative factor expected to be greater than 0 "
                             "and less or equal to 1.")
        if end_factor > 1.0 or end_factor < 0:
            raise ValueError("Ending multiplicative factor expected to be between 0 and 1.")
        self.start_factor = start_factor
        self.end_factor = end_factor
        self.total_iters = total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        """The linear ramp, in torch's recursive form."""
        _warn_get_lr_called_within_step(self)
        if self.last_epoch == 0:
            return [group["lr"] * self.start_factor for group in self.optimizer.param_groups]
        if self._is_initial or self.last_epoch > self.total_iters:
            return _lrs(self.optimizer)
        ratio = 1.0 + (self.end_factor - self.start_factor) / (
            self.total_iters * self.start_factor
            + (self.last_epoch - 1) * (self.end_factor - self.start_factor))
        return [group["lr"] * ratio for group in self.optimizer.param_groups]

    def _get_closed_form_lr(self):
        return [base * (self.start_factor + (self.end_factor - self.start_factor)
                        * min(self.total_iters, self.last_epoch) / self.total_iters)
                for base in self.base_lrs]


class ExponentialLR(LRScheduler):
    """Multiply the learning rate by ``gamma`` every epoch.

    >>> import pyad
    >>> opt = pyad.optim.SGD([pyad.nn.Parameter(pyad.zeros(1))], lr=1.0)
    >>> sched = pyad.optim.lr_scheduler.ExponentialLR(opt, gamma=0.5)
    >>> for epoch in range(2):
    ...     opt.step(); sched.step()
    >>> sched.get_last_lr()
    [0.25]
    """

    def __init__(self, optimizer, gamma, last_epoch=-1):
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        """``lr * gamma`` (unchanged at construction)."""
        _warn_get_lr_called_within_step(self)
        if self._is_initial:
            return _lrs(self.optimizer)
        return [group["lr"] * self.gamma for group in self.optimizer.param_groups]

    def _get_closed_form_lr(self):
        return [base * self.gamma ** self.last_epoch for base in self.base_lrs]


class PolynomialLR(LRScheduler):
    """Decay the learning rate by a polynomial of degree ``power`` to zero at
    ``total_iters``.

    >>> import pyad
    >>> opt = pyad.optim.SGD([pyad.nn.Parameter(pyad.zeros(1))], lr=1.0)
    >>> sched = pyad.optim.lr_scheduler.PolynomialLR(opt, total_iters=4, power=1.0)
    >>> opt.step(); sched.step(); sched.get_last_lr()
    [0.75]
    """

    def __init__(self, optimizer, total_iters=5, power=1.0, last_epoch=-1):
        self.total_iters = total_iters
        self.power = power
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        """The polynomial decay, in torch's recursive form."""
        _warn_get_lr_called_within_step(self)
        if self._is_initial or self.last_epoch > self.total_iters:
            return _lrs(self.optimizer)
        decay = ((1.0 - self.last_epoch / self.total_iters)
                 / (1.0 - (self.last_epoch - 1) / self.total_iters)) ** self.power
        return [group["lr"] * decay for group in self.optimizer.param_groups]

    def _get_closed_form_lr(self):
        return [base * (1.0 - min(self.total_iters, self.last_epoch) / self.total_iters)
                ** self.power for base in self.base_lrs]


class CosineAnnealingLR(LRScheduler):
    """Anneal from the initial learning rate to ``eta_min`` along a cosine over ``T_max``
    epochs (torch's recursive form, so it composes with other changes of ``lr``).

    >>> import pyad
    >>> opt = pyad.optim.SGD([pyad.nn.Parameter(pyad.zeros(1))], lr=1.0)
    >>> sched = pyad.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=2)
    >>> opt.step(); sched.step(); round(sched.get_last_lr()[0], 6)
    0.5
    """

    def __init__(self, optimizer, T_max, eta_min=0.0, last_epoch=-1):
        self.T_max = T_max
        self.eta_min = eta_min
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        """The cosine schedule's learning rates for ``last_epoch``."""
        _warn_get_lr_called_within_step(self)
        groups = self.optimizer.param_groups
        if self._is_initial:
            return _lrs(self.optimizer)
        if self._step_count == 1 and self.last_epoch > 0:
            return [self.eta_min + (base - self.eta_min)
                    * (1 + math.cos(self.last_epoch * math.pi / self.T_max)) / 2
                    for base in self.base_lrs]
        if (self.last_epoch - 1 - self.T_max) % (2 * self.T_max) == 0:
            return [group["lr"] + (base - self.eta_min) * (1 - math.cos(math.pi / self.T_max))
                    / 2 for base, group in zip(self.base_lrs, groups, strict=True)]
        return [(1 + math.cos(math.pi * self.last_epoch / self.T_max))
                / (1 + math.cos(math.pi * (self.last_epoch - 1) / self.T_max))
                * (group["lr"] - self.eta_min) + self.eta_min for group in groups]

    def _get_closed_form_lr(self):
        return [self.eta_min + (base - self.eta_min)
                * (1 + math.cos(math.pi * self.last_epoch / self.T_max)) / 2
                for base in self.base_lrs]


def _check_children(owner, optimizer, schedulers):
    for i, scheduler in enumerate(schedulers):
        if not hasattr(scheduler, "optimizer"):
            raise TypeError("%s at index %d should have `optimizer` as its attribute."
                            % (owner, i))
        if isinstance(scheduler, ReduceLROnPlateau):
            raise ValueError("%s does not support `ReduceLROnPlateau` scheduler as it requires "
                             "additional kwargs to be specified when calling `step`, but got "
                             "one at index %d in the given schedulers sequence." % (owner, i))
        if optimizer != scheduler.optimizer:
            raise ValueError("%s expects all schedulers to belong to the same optimizer, but "
                             "got scheduler %s at index %d has %s, which is different from %s."
                             % (owner, type(scheduler).__name__, i, scheduler.optimizer,
                                type(optimizer).__name__))


class _ContainerStateMixin:
    def state_dict(self):
        state = {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "_schedulers")}
        state["_schedulers"] = [s.state_dict() for s in self._schedulers]
        return state

    def load_state_dict(self, state_dict):
        state_dict = dict(state_dict)
        schedulers = state_dict.pop("_schedulers")
        self.__dict__.update(state_dict)
        for mine, saved in zip(self._schedulers, schedulers):
            mine.load_state_dict(saved)


class SequentialLR(_ContainerStateMixin, LRScheduler):
    """Run ``schedulers`` one after another, switching at the ``milestones`` epochs.

    >>> import pyad
    >>> from pyad.optim import lr_scheduler as S
    >>> opt = pyad.optim.SGD([pyad.nn.Parameter(pyad.zeros(1))], lr=1.0)
    >>> warm = S.ConstantLR(opt, factor=0.1, total_iters=2)
    >>> decay = S.ExponentialLR(opt, gamma=0.5)
    >>> sched = S.SequentialLR(opt, [warm, decay], milestones=[2])
    >>> lrs = []
    >>> for _ in range(4):
    ...     lrs.append(sched.get_last_lr()[0]); opt.step(); sched.step()
    >>> lrs
    [0.1, 0.1, 1.0, 0.5]
    """

    def __init__(self, optimizer, schedulers, milestones, last_epoch=-1):
        name = type(self).__name__
        if len(schedulers) < 1:
            raise ValueError("%s expects at least one scheduler, but got no scheduler." % name)
        _check_children(name, optimizer, schedulers)
        if len(milestones) != len(schedulers) - 1:
            raise ValueError("Sequential Schedulers expects number of schedulers provided to be "
                             "one more than the number of milestone points, but got number of "
                             "schedulers %d and the number of milestones to be equal to %d"
                             % (len(schedulers), len(milestones)))
        self._schedulers = schedulers
        self._milestones = milestones
        self.last_epoch = last_epoch + 1
        self.optimizer = optimizer
        for group in optimizer.param_groups:
            _set_group_value(group, "lr", group["initial_lr"])
        self.recursive_undo()
        idx = bisect_right(self._milestones, 0)
        self._schedulers[idx]._initial_step()
        self._last_lr = schedulers[idx].get_last_lr()

    def recursive_undo(self, sched=None):
        """Undo the first step the child schedulers took when they were built."""
        scheds = self if sched is None else sched
        if hasattr(scheds, "_schedulers"):
            for s in scheds._schedulers:
                self.recursive_undo(s)
        elif hasattr(scheds, "last_epoch"):
            scheds.last_epoch -= 1

    def step(self):
        """Step the scheduler in charge of this epoch (restarted at its milestone)."""
        self.last_epoch += 1
        idx = bisect_right(self._milestones, self.last_epoch)
        scheduler = self._schedulers[idx]
        if idx > 0 and self._milestones[idx - 1] == self.last_epoch:
            scheduler._update_lr(0)
        else:
            scheduler.step()
        self._last_lr = scheduler.get_last_lr()


class ChainedScheduler(_ContainerStateMixin, LRScheduler):
    """Step every scheduler in ``schedulers`` at each `step` (their effects multiply).

    >>> import pyad
    >>> from pyad.optim import lr_scheduler as S
    >>> opt = pyad.optim.SGD([pyad.nn.Parameter(pyad.zeros(1))], lr=1.0)
    >>> sched = S.ChainedScheduler([S.ConstantLR(opt, factor=0.5, total_iters=2),
    ...                             S.ExponentialLR(opt, gamma=0.9)])
    >>> [round(lr, 4) for lr in sched.get_last_lr()]
    [0.5]
    """

    def __init__(self, schedulers, optimizer=None):
        name = type(self).__name__
        if len(schedulers) < 1:
            raise ValueError("%s expects at least one scheduler to be chained, but got no "
                             "scheduler." % name)
        optimizer = optimizer or schedulers[0].optimizer
        _check_children(name, optimizer, schedulers)
        self._schedulers = schedulers
        self.optimizer = optimizer
        self._last_lr = _lrs(self._schedulers[-1].optimizer)

    def step(self):
        """Step every scheduler, in order."""
        for scheduler in self._schedulers:
            scheduler.step()
        self._last_lr = _lrs(self._schedulers[-1].optimizer)


class ReduceLROnPlateau(LRScheduler):
    """Multiply the learning rate by ``factor`` when a metric has stopped improving for
    ``patience`` epochs; ``step(metric)`` each epoch.

    >>> import pyad
    >>> opt = pyad.optim.SGD([pyad.nn.Parameter(pyad.zeros(1))], lr=1.0)
    >>> sched = pyad.optim.lr_scheduler.ReduceLROnPlateau(opt, patience=1, factor=0.5)
    >>> for loss in [1.0, 1.0, 1.0]:
    ...     sched.step(loss)
    >>> sched.get_last_lr()
    [0.5]
    """

    def __init__(self, optimizer, mode="min", factor=0.1, patience=10, threshold=1e-4,
                 threshold_mode="rel", cooldown=0, min_lr=0, eps=1e-8):
        if factor >= 1.0:
            raise ValueError("Factor should be < 1.0.")
        self.factor = factor
        if not isinstance(optimizer, Optimizer):
            raise TypeError("%s is not an Optimizer" % type(optimizer).__name__)
        self.optimizer = optimizer
        if isinstance(min_lr, (list, tuple)):
            if len(min_lr) != len(optimizer.param_groups):
                raise ValueError("expected %d min_lrs, got %d"
                                 % (len(optimizer.param_groups), len(min_lr)))
            self.default_min_lr = None
            self.min_lrs = list(min_lr)
        else:
            self.default_min_lr = min_lr
            self.min_lrs = [min_lr] * len(optimizer.param_groups)
        self.patience = patience
        self.cooldown = cooldown
        self.eps = eps
        self.last_epoch = 0
        self._last_lr = _lrs(optimizer)
        self._init_is_better(mode=mode, threshold=threshold, threshold_mode=threshold_mode)
        self._reset()

    def _reset(self):
        self.best = self.mode_worse
        self.cooldown_counter = 0
        self.num_bad_epochs = 0

    def step(self, metrics, epoch=None):
        """Record this epoch's metric; reduce the learning rates after ``patience`` bad
        epochs (then wait ``cooldown`` epochs)."""
        current = float(metrics)
        if epoch is None:
            epoch = self.last_epoch + 1
        else:
            warnings.warn(EPOCH_DEPRECATION_WARNING, UserWarning, stacklevel=2)
        self.last_epoch = epoch
        if self._is_better(current, self.best):
            self.best = current
            self.num_bad_epochs = 0
        else:
            self.num_bad_epochs += 1
        if self.in_cooldown:
            self.cooldown_counter -= 1
            self.num_bad_epochs = 0
        if self.num_bad_epochs > self.patience:
            self._reduce_lr(epoch)
            self.cooldown_counter = self.cooldown
            self.num_bad_epochs = 0
        self._last_lr = _lrs(self.optimizer)

    def _reduce_lr(self, epoch):
        if len(self.optimizer.param_groups) != len(self.min_lrs):
            if self.default_min_lr is None:
                raise RuntimeError("The number of param groups in the `optimizer` (%d) differs "
                                   "from when `ReduceLROnPlateau` was initialized (%d), usually "
                                   "due to a new param group being added to the optimizer. "
                                   "Please modify the `min_lrs` field to match the length of "
                                   "the `optimizer` param groups."
                                   % (len(self.optimizer.param_groups), len(self.min_lrs)))
            self.min_lrs = [self.default_min_lr] * len(self.optimizer.param_groups)
        for i, group in enumerate(self.optimizer.param_groups):
            old_lr = float(group["lr"])
            new_lr = max(old_lr * self.factor, self.min_lrs[i])
            if old_lr - new_lr > self.eps:
                _set_group_value(group, "lr", new_lr)

    @property
    def in_cooldown(self):
        """True while the cooldown after a reduction is running."""
        return self.cooldown_counter > 0

    def _is_better(self, a, best):
        if self.mode == "min" and self.threshold_mode == "rel":
            return a < best * (1.0 - self.threshold)
        if self.mode == "min" and self.threshold_mode == "abs":
            return a < best - self.threshold
        if self.mode == "max" and self.threshold_mode == "rel":
            return a > best * (self.threshold + 1.0)
        return a > best + self.threshold

    def _init_is_better(self, mode, threshold, threshold_mode):
        if mode not in {"min", "max"}:
            raise ValueError("mode " + mode + " is unknown!")
        if threshold_mode not in {"rel", "abs"}:
            raise ValueError("threshold mode " + threshold_mode + " is unknown!")
        self.mode_worse = math.inf if mode == "min" else -math.inf
        self.mode = mode
        self.threshold = threshold
        self.threshold_mode = threshold_mode

    def load_state_dict(self, state_dict):
        """Restore attributes saved by `state_dict`."""
        self.__dict__.update(state_dict)
        self._init_is_better(mode=self.mode, threshold=self.threshold,
                             threshold_mode=self.threshold_mode)


def _set_momentum(optimizer, use_beta1, group, value):
    if use_beta1:
        group["betas"] = (value, *group["betas"][1:])
    else:
        group["momentum"] = value


def _momentum_setup(scheduler, optimizer, base_momentum, max_momentum, last_epoch):
    if "momentum" not in optimizer.defaults and "betas" not in optimizer.defaults:
        raise ValueError("optimizer must support momentum or beta1 with `cycle_momentum` "
                         "option enabled")
    scheduler.use_beta1 = "betas" in optimizer.defaults
    base = _format_param("base_momentum", optimizer, base_momentum)
    top = _format_param("max_momentum", optimizer, max_momentum)
    if last_epoch == -1:
        for m, b, group in zip(top, base, optimizer.param_groups, strict=True):
            _set_momentum(optimizer, scheduler.use_beta1, group, m)
            group["max_momentum"] = m
            group["base_momentum"] = b
    return base, top


class CyclicLR(LRScheduler):
    """Cycle the learning rate between ``base_lr`` and ``max_lr`` (triangular,
    triangular2 or exp_range), and the momentum the other way; step once per batch.

    >>> import pyad
    >>> opt = pyad.optim.SGD([pyad.nn.Parameter(pyad.zeros(1))], lr=1.0, momentum=0.9)
    >>> sched = pyad.optim.lr_scheduler.CyclicLR(opt, 0.1, 1.0, step_size_up=2)
    >>> lrs = []
    >>> for _ in range(5):
    ...     lrs.append(round(sched.get_last_lr()[0], 4)); opt.step(); sched.step()
    >>> lrs
    [0.1, 0.55, 1.0, 0.55, 0.1]
    """

    def __init__(self, optimizer, base_lr, max_lr, step_size_up=2000, step_size_down=None,
                 mode="triangular", gamma=1.0, scale_fn=None, scale_mode="cycle",
                 cycle_momentum=True, base_momentum=0.8, max_momentum=0.9, last_epoch=-1):
        if not isinstance(optimizer, Optimizer):
            raise TypeError("%s is not an Optimizer" % type(optimizer).__name__)
        self.optimizer = optimizer
        base_lrs = _format_param("base_lr", optimizer, base_lr)
        if last_epoch == -1:
            for lr, group in zip(base_lrs, optimizer.param_groups, strict=True):
                _set_group_value(group, "lr", lr)
        self.max_lrs = _format_param("max_lr", optimizer, max_lr)
        step_size_up = float(step_size_up)
        step_size_down = float(step_size_down) if step_size_down is not None else step_size_up
        self.total_size = step_size_up + step_size_down
        self.step_ratio = step_size_up / self.total_size
        if mode not in ["triangular", "triangular2", "exp_range"] and scale_fn is None:
            raise ValueError("mode is invalid and scale_fn is None")
        self.mode = mode
        self.gamma = gamma
        self._scale_fn_custom = scale_fn
        self.scale_mode = scale_mode
        self._init_scale_fn()
        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            self.base_momentums, self.max_momentums = _momentum_setup(
                self, optimizer, base_momentum, max_momentum, last_epoch)
        super().__init__(optimizer, last_epoch)
        self.base_lrs = base_lrs

    def _init_scale_fn(self):
        if self._scale_fn_custom is not None:
            return
        if self.mode == "triangular":
            self._scale_fn_ref = self._triangular_scale_fn
            self.scale_mode = "cycle"
        elif self.mode == "triangular2":
            self._scale_fn_ref = self._triangular2_scale_fn
            self.scale_mode = "cycle"
        elif self.mode == "exp_range":
            self._scale_fn_ref = partial(self._exp_range_scale_fn, self.gamma)
            self.scale_mode = "iterations"

    def scale_fn(self, x):
        """The amplitude scaling of cycle (or iteration) ``x``."""
        if self._scale_fn_custom is not None:
            return self._scale_fn_custom(x)
        return self._scale_fn_ref(x)

    @staticmethod
    def _triangular_scale_fn(x):
        return 1.0

    @staticmethod
    def _triangular2_scale_fn(x):
        return 1 / (2.0 ** (x - 1))

    @staticmethod
    def _exp_range_scale_fn(gamma, x):
        return gamma ** x

    def get_lr(self):
        """The learning rates for ``last_epoch`` (also sets the groups' momentum)."""
        _warn_get_lr_called_within_step(self)
        cycle = math.floor(1 + self.last_epoch / self.total_size)
        x = 1.0 + self.last_epoch / self.total_size - cycle
        if x <= self.step_ratio:
            scale_factor = x / self.step_ratio
        else:
            scale_factor = (x - 1) / (self.step_ratio - 1)
        at = cycle if self.scale_mode == "cycle" else self.last_epoch
        lrs = [base + (top - base) * scale_factor * self.scale_fn(at)
               for base, top in zip(self.base_lrs, self.max_lrs, strict=True)]
        if self.cycle_momentum:
            for base, top, group in zip(self.base_momentums, self.max_momentums,
                                        self.optimizer.param_groups, strict=True):
                momentum = top - (top - base) * scale_factor * self.scale_fn(at)
                _set_momentum(self.optimizer, self.use_beta1, group, momentum)
        return lrs

    def state_dict(self):
        """Attributes except the optimizer and the scale functions (a callable object's
        ``__dict__`` is kept)."""
        state = super().state_dict()
        state.pop("_scale_fn_ref", None)
        fn = state.pop("_scale_fn_custom")
        state["_scale_fn_custom"] = None
        if fn is not None and not isinstance(fn, types.FunctionType):
            state["_scale_fn_custom"] = fn.__dict__.copy()
        return state

    def load_state_dict(self, state_dict):
        """Restore attributes saved by `state_dict`."""
        state_dict = dict(state_dict)
        fn = state_dict.pop("_scale_fn_custom")
        super().load_state_dict(state_dict)
        if fn is not None:
            self._scale_fn_custom.__dict__.update(fn)
        self._init_scale_fn()


class CosineAnnealingWarmRestarts(LRScheduler):
    """Cosine annealing restarted every ``T_0`` epochs (periods grow by ``T_mult``).

    >>> import pyad
    >>> opt = pyad.optim.SGD([pyad.nn.Parameter(pyad.zeros(1))], lr=1.0)
    >>> sched = pyad.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=2)
    >>> lrs = []
    >>> for _ in range(4):
    ...     lrs.append(round(sched.get_last_lr()[0], 4)); opt.step(); sched.step()
    >>> lrs
    [1.0, 0.5, 1.0, 0.5]
    """

    def __init__(self, optimizer, T_0, T_mult=1, eta_min=0.0, last_epoch=-1):
        if T_0 <= 0 or not isinstance(T_0, int):
            raise ValueError("Expected positive integer T_0, but got %s" % T_0)
        if T_mult < 1 or not isinstance(T_mult, int):
            raise ValueError("Expected integer T_mult >= 1, but got %s" % T_mult)
        if not isinstance(eta_min, (float, int)):
            raise ValueError("Expected float or int eta_min, but got %s of type %s"
                             % (eta_min, type(eta_min)))
        self.T_0 = T_0
        self.T_i = T_0
        self.T_mult = T_mult
        self.eta_min = eta_min
        self.T_cur = last_epoch
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        """``eta_min + (base - eta_min) (1 + cos(pi T_cur / T_i)) / 2``."""
        _warn_get_lr_called_within_step(self)
        return [self.eta_min + (base - self.eta_min)
                * (1 + math.cos(math.pi * self.T_cur / self.T_i)) / 2 for base in self.base_lrs]

    def step(self, epoch=None):
        """Advance one step, or jump to a (possibly fractional) ``epoch``."""
        if epoch is None and self.last_epoch < 0:
            epoch = 0
        if epoch is None:
            epoch = self.last_epoch + 1
            self.T_cur = self.T_cur + 1
            if self.T_cur >= self.T_i:
                self.T_cur = self.T_cur % self.T_i
                self.T_i = self.T_i * self.T_mult
        else:
            if epoch < 0:
                raise ValueError("Expected non-negative epoch, but got %s" % epoch)
            if epoch >= self.T_0:
                if self.T_mult == 1:
                    self.T_cur = epoch % self.T_0
                else:
                    n = int(math.log((epoch / self.T_0 * (self.T_mult - 1) + 1), self.T_mult))
                    self.T_cur = epoch - self.T_0 * (self.T_mult ** n - 1) / (self.T_mult - 1)
                    self.T_i = self.T_0 * self.T_mult ** n
            else:
                self.T_i = self.T_0
                self.T_cur = epoch
        self.last_epoch = math.floor(epoch)
        self._get_lr_called_within_step = True
        try:
            values = self.get_lr()
        finally:
            self._get_lr_called_within_step = False
        for group, lr in zip(self.optimizer.param_groups, values, strict=True):
            _set_group_value(group, "lr", lr)
        self._last_lr = _lrs(self.optimizer)


class OneCycleLR(LRScheduler):
    """The 1cycle policy: warm up to ``max_lr`` then anneal far below the start, with the
    momentum cycling the other way; step once per batch, ``total_steps`` times.

    >>> import pyad
    >>> opt = pyad.optim.SGD([pyad.nn.Parameter(pyad.zeros(1))], lr=0.1, momentum=0.9)
    >>> sched = pyad.optim.lr_scheduler.OneCycleLR(opt, max_lr=1.0, total_steps=10)
    >>> [round(lr, 6) for lr in sched.get_last_lr()]
    [0.04]
    """

    def __init__(self, optimizer, max_lr, total_steps=None, epochs=None, steps_per_epoch=None,
                 pct_start=0.3, anneal_strategy="cos", cycle_momentum=True,
                 base_momentum=0.85, max_momentum=0.95, div_factor=25.0,
                 final_div_factor=1e4, three_phase=False, last_epoch=-1):
        if not isinstance(optimizer, Optimizer):
            raise TypeError("%s is not an Optimizer" % type(optimizer).__name__)
        self.optimizer = optimizer
        if total_steps is not None:
            if total_steps <= 0 or not isinstance(total_steps, int):
                raise ValueError("Expected positive integer total_steps, but got %s"
                                 % total_steps)
            self.total_steps = total_steps
        elif epochs is not None and steps_per_epoch is not None:
            if not isinstance(epochs, int) or epochs <= 0:
                raise ValueError("Expected positive integer epochs, but got %s" % epochs)
            if not isinstance(steps_per_epoch, int) or steps_per_epoch <= 0:
                raise ValueError("Expected positive integer steps_per_epoch, but got %s"
                                 % steps_per_epoch)
            self.total_steps = epochs * steps_per_epoch
        else:
            raise ValueError("You must define either total_steps OR (epochs AND "
                             "steps_per_epoch)")
        up = float(pct_start * self.total_steps) - 1
        if three_phase:
            self._schedule_phases = [
                dict(end_step=up, start_lr="initial_lr", end_lr="max_lr",
                     start_momentum="max_momentum", end_momentum="base_momentum"),
                dict(end_step=float(2 * pct_start * self.total_steps) - 2, start_lr="max_lr",
                     end_lr="initial_lr", start_momentum="base_momentum",
                     end_momentum="max_momentum"),
                dict(end_step=self.total_steps - 1, start_lr="initial_lr", end_lr="min_lr",
                     start_momentum="max_momentum", end_momentum="max_momentum")]
        else:
            self._schedule_phases = [
                dict(end_step=up, start_lr="initial_lr", end_lr="max_lr",
                     start_momentum="max_momentum", end_momentum="base_momentum"),
                dict(end_step=self.total_steps - 1, start_lr="max_lr", end_lr="min_lr",
                     start_momentum="base_momentum", end_momentum="max_momentum")]
        if pct_start < 0 or pct_start > 1 or not isinstance(pct_start, float):
            raise ValueError("Expected float between 0 and 1 pct_start, but got %s" % pct_start)
        if anneal_strategy not in ["cos", "linear"]:
            raise ValueError("anneal_strategy must be one of 'cos' or 'linear', instead got %s"
                             % anneal_strategy)
        self._anneal_func_type = anneal_strategy
        max_lrs = _format_param("max_lr", optimizer, max_lr)
        if last_epoch == -1:
            for top, group in zip(max_lrs, optimizer.param_groups):
                group["initial_lr"] = top / div_factor
                group["max_lr"] = top
                group["min_lr"] = group["initial_lr"] / final_div_factor
        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            _momentum_setup(self, optimizer, base_momentum, max_momentum, last_epoch)
        super().__init__(optimizer, last_epoch)

    @staticmethod
    def _annealing_cos(start, end, pct):
        """Cosine anneal from ``start`` to ``end`` as ``pct`` goes from 0 to 1."""
        return end + (start - end) / 2.0 * (math.cos(math.pi * pct) + 1)

    @staticmethod
    def _annealing_linear(start, end, pct):
        """Linear anneal from ``start`` to ``end`` as ``pct`` goes from 0 to 1."""
        return (end - start) * pct + start

    def _anneal_func(self, *args, **kwargs):
        if hasattr(self, "_anneal_func_type"):
            if self._anneal_func_type == "cos":
                return self._annealing_cos(*args, **kwargs)
            if self._anneal_func_type == "linear":
                return self._annealing_linear(*args, **kwargs)
            raise ValueError("Unknown _anneal_func_type: %s" % self._anneal_func_type)
        # a state_dict of an older torch holds the function itself, as 'anneal_func'
        return self.anneal_func(*args, **kwargs)

    def get_lr(self):
        """The learning rates for step ``last_epoch`` (also sets the groups' momentum)."""
        _warn_get_lr_called_within_step(self)
        lrs = []
        step_num = self.last_epoch
        if step_num > self.total_steps:
            raise ValueError("Tried to step %d times. The specified number of total steps is %d"
                             % (step_num, self.total_steps))
        for group in self.optimizer.param_groups:
            start_step = 0.0
            for i, phase in enumerate(self._schedule_phases):
                end_step = phase["end_step"]
                if step_num <= end_step or i == len(self._schedule_phases) - 1:
                    pct = (step_num - start_step) / (end_step - start_step)
                    lr = self._anneal_func(group[phase["start_lr"]], group[phase["end_lr"]], pct)
                    if self.cycle_momentum:
                        momentum = self._anneal_func(group[phase["start_momentum"]],
                                                     group[phase["end_momentum"]], pct)
                    break
                start_step = phase["end_step"]
            lrs.append(lr)
            if self.cycle_momentum:
                _set_momentum(self.optimizer, self.use_beta1, group, momentum)
        return lrs
