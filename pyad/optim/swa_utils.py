"""Stochastic Weight Averaging and exponential moving averages of a model's weights, as
``torch.optim.swa_utils``: `AveragedModel` keeps the running average of a model's
parameters (and optionally buffers), `SWALR` anneals each group's learning rate to a
fixed SWA value, `update_bn` recomputes the BatchNorm statistics of the averaged model
with one pass over the data, and the ``get_*_avg_fn`` factories make the averaging rules
(``avg_fn`` per parameter, ``multi_avg_fn`` over lists of them).

>>> import pyad
>>> from pyad.optim.swa_utils import AveragedModel
>>> model = pyad.nn.Linear(2, 1)
>>> swa = AveragedModel(model)
>>> with pyad.no_grad():
...     _ = model.weight.fill_(1.0)
...     swa.update_parameters(model)
...     _ = model.weight.fill_(3.0)
...     swa.update_parameters(model)
>>> swa.module.weight.tolist(), int(swa.n_averaged)
([[2.0, 2.0]], 2)
"""
import itertools
import math
import warnings
from copy import deepcopy

import numpy

from pyad import _engine
from pyad._engine import Variable
from pyad._factories import tensor
from pyad.autograd.grad_mode import no_grad
from pyad.nn.modules import Module, _BatchNorm
from pyad.optim.lr_scheduler import LRScheduler, _format_param

__all__ = ["AveragedModel", "update_bn", "SWALR", "get_ema_multi_avg_fn",
           "get_swa_multi_avg_fn", "get_ema_avg_fn", "get_swa_avg_fn"]


def _is_float_or_complex(v):
    return _engine._is_floating_or_complex(v.dtype)     # (bfloat16 included)


def get_ema_multi_avg_fn(decay=0.999):
    """``multi_avg_fn`` of an exponential moving average: ``ema = decay * ema + (1 -
    decay) * param`` over lists of Variables, in place (``lerp_`` with weight ``1 -
    decay`` for floating point, as torch's ``_foreach_lerp_``)."""
    if decay < 0.0 or decay > 1.0:
        raise ValueError("Invalid decay value %s provided. Please provide a value in [0,1] "
                         "range." % (decay,))

    def ema_update(ema_param_list, current_param_list, _):
        with no_grad():
            if _is_float_or_complex(ema_param_list[0]):
                for p_ema, p_model in zip(ema_param_list, current_param_list, strict=True):
                    p_ema.lerp_(p_model, 1 - decay)
            else:
                for p_ema, p_model in zip(ema_param_list, current_param_list, strict=True):
                    p_ema.copy_(p_ema * decay + p_model * (1 - decay))

    return ema_update


def get_swa_multi_avg_fn():
    """``multi_avg_fn`` of the running (SWA) mean over lists of Variables, in place:
    ``avg += (param - avg) / (n_averaged + 1)``."""

    def swa_update(averaged_param_list, current_param_list, num_averaged):
        with no_grad():
            if _is_float_or_complex(averaged_param_list[0]):
                weight = 1 / (num_averaged + 1)
                if isinstance(weight, Variable):
                    weight = weight.item()
                for p_avg, p_model in zip(averaged_param_list, current_param_list,
                                          strict=True):
                    p_avg.lerp_(p_model, weight)
            else:
                for p_avg, p_model in zip(averaged_param_list, current_param_list,
                                          strict=True):
                    diff = p_model - p_avg
                    if isinstance(num_averaged, Variable):
                        p_avg.addcdiv_(diff, num_averaged + 1)
                    else:
                        p_avg.add_(diff, alpha=1.0 / (num_averaged + 1))

    return swa_update


def get_ema_avg_fn(decay=0.999):
    """``avg_fn`` of an exponential moving average: returns ``decay * ema + (1 - decay) *
    param``."""
    if decay < 0.0 or decay > 1.0:
        raise ValueError("Invalid decay value %s provided. Please provide a value in [0,1] "
                         "range." % (decay,))

    def ema_update(ema_param, current_param, num_averaged):
        with no_grad():
            return decay * ema_param + (1 - decay) * current_param

    return ema_update


def get_swa_avg_fn():
    """``avg_fn`` of the running (SWA) mean: returns ``avg + (param - avg) / (n + 1)``."""

    def swa_update(averaged_param, current_param, num_averaged):
        with no_grad():
            return averaged_param + (current_param - averaged_param) / (num_averaged + 1)

    return swa_update


class AveragedModel(Module):
    """A deep copy of ``model`` (``.module``) whose parameters hold an average of the
    models passed to `update_parameters`, as torch's.

    The first `update_parameters` copies the model's values; later ones apply ``avg_fn``
    (per parameter, returning the new average) or ``multi_avg_fn`` (over lists, in
    place), the running mean by default. ``n_averaged`` (an int64 buffer, in
    `state_dict` beside the ``module.``-prefixed entries) counts the updates. With
    ``use_buffers=True`` the buffers are averaged with the parameters; otherwise they are
    copied from the model at each update. Calling it calls ``.module``.
    """

    def __init__(self, model, device=None, avg_fn=None, multi_avg_fn=None,
                 use_buffers=False):
        super().__init__()
        if avg_fn is not None and multi_avg_fn is not None:
            raise AssertionError("Only one of avg_fn and multi_avg_fn should be provided")
        self.module = deepcopy(model)
        if device is not None:
            self.module = self.module.to(device)
        self.register_buffer("n_averaged", tensor(0, dtype=numpy.int64, device=device))
        self.avg_fn = avg_fn
        self.multi_avg_fn = multi_avg_fn
        self.use_buffers = use_buffers

    def forward(self, *args, **kwargs):
        """Call the averaged copy of the model."""
        return self.module(*args, **kwargs)

    def update_parameters(self, model):
        """Average ``model``'s current parameters (and buffers with ``use_buffers``)
        into this model's and count one more update."""
        self_param = (itertools.chain(self.module.parameters(), self.module.buffers())
                      if self.use_buffers else self.parameters())
        model_param = (itertools.chain(model.parameters(), model.buffers())
                       if self.use_buffers else model.parameters())
        self_param_detached = []
        model_param_detached = []
        copy_param = bool(self.n_averaged == 0)
        with no_grad():
            for p_averaged, p_model in zip(self_param, model_param):
                p_model_ = p_model.detach().to(p_averaged.device)
                self_param_detached.append(p_averaged.detach())
                model_param_detached.append(p_model_)
                if copy_param:
                    p_averaged.detach().copy_(p_model_)

            if bool(self.n_averaged > 0):
                if self.multi_avg_fn is not None or self.avg_fn is None:
                    # torch groups by (device, dtype) for its foreach kernels
                    groups = {}
                    for a, m in zip(self_param_detached, model_param_detached):
                        key = (str(a.device), a.dtype)
                        groups.setdefault(key, ([], []))
                        groups[key][0].append(a)
                        groups[key][1].append(m)
                    for (device, _), (self_params, model_params) in groups.items():
                        if self.multi_avg_fn:
                            self.multi_avg_fn(self_params, model_params,
                                              self.n_averaged.to(device))
                        else:
                            # torch's path off its foreach devices (the CPU): the
                            # running mean per Variable, copied back (integer buffers
                            # truncated, as torch's copy_)
                            avg_fn = get_swa_avg_fn()
                            n_averaged = self.n_averaged.to(device)
                            for p_averaged, p_model in zip(self_params, model_params,
                                                           strict=True):
                                p_averaged.copy_(avg_fn(p_averaged, p_model, n_averaged))
                else:
                    for p_averaged, p_model in zip(self_param_detached, model_param_detached,
                                                   strict=True):
                        n_averaged = self.n_averaged.to(p_averaged.device)
                        p_averaged.detach().copy_(self.avg_fn(p_averaged.detach(), p_model,
                                                              n_averaged))

            if not self.use_buffers:
                for b_swa, b_model in zip(self.module.buffers(), model.buffers(),
                                          strict=True):
                    b_swa.detach().copy_(b_model.detach().to(b_swa.device))
            self.n_averaged.add_(1)


def update_bn(loader, model, device=None):
    """Recompute the running statistics of every BatchNorm layer of ``model`` with one
    pass over ``loader`` (each item an input, or a list/tuple whose first element is the
    input), as torch's: the statistics are reset, the momentum set to None (a cumulative
    average) for the pass and restored after it, and the training mode restored."""
    with no_grad():
        momenta = {}
        for module in model.modules():
            if isinstance(module, _BatchNorm):     # BatchNorm1d/2d/3d, as torch
                module.reset_running_stats()
                momenta[module] = module.momentum
        if not momenta:
            return
        was_training = model.training
        model.train()
        for module in momenta:
            module.momentum = None
        for input in loader:
            if isinstance(input, (list, tuple)):
                input = input[0]
            if device is not None:
                input = input.to(device)
            model(input)
        for bn_module in momenta:
            bn_module.momentum = momenta[bn_module]
        model.train(was_training)


class SWALR(LRScheduler):
    """Anneal each parameter group's learning rate to ``swa_lr`` (one value, or one per
    group, stored as ``group['swa_lr']``) over ``anneal_epochs`` steps with a ``'cos'``
    or ``'linear'`` ramp, then hold it, as torch's.

    >>> import pyad
    >>> opt = pyad.optim.SGD([pyad.nn.Parameter(pyad.zeros(1))], lr=1.0)
    >>> sched = pyad.optim.swa_utils.SWALR(opt, swa_lr=0.1, anneal_epochs=2,
    ...                                    anneal_strategy="linear")
    >>> lrs = []
    >>> for _ in range(3):
    ...     opt.step()
    ...     sched.step()
    ...     lrs.append(round(sched.get_last_lr()[0], 4))
    >>> lrs
    [0.55, 0.1, 0.1]
    """

    def __init__(self, optimizer, swa_lr, anneal_epochs=10, anneal_strategy="cos",
                 last_epoch=-1):
        swa_lrs = _format_param("swa_lr", optimizer, swa_lr)
        for swa_lr, group in zip(swa_lrs, optimizer.param_groups, strict=True):
            group["swa_lr"] = swa_lr
        if anneal_strategy not in ["cos", "linear"]:
            raise ValueError("anneal_strategy must be one of 'cos' or 'linear', instead got "
                             "%s" % (anneal_strategy,))
        self._set_anneal_func(anneal_strategy)
        if not isinstance(anneal_epochs, int) or anneal_epochs < 0:
            raise ValueError("anneal_epochs must be equal or greater than 0, got %s"
                             % (anneal_epochs,))
        self.anneal_epochs = anneal_epochs
        super().__init__(optimizer, last_epoch)

    @staticmethod
    def _linear_anneal(t):
        return t

    @staticmethod
    def _cosine_anneal(t):
        return (1 - math.cos(math.pi * t)) / 2

    @staticmethod
    def _get_initial_lr(lr, swa_lr, alpha):
        if alpha == 1:
            return swa_lr
        return (lr - alpha * swa_lr) / (1 - alpha)

    def get_lr(self):
        """The annealed learning rates (torch's recursive form: each step recovers the
        pre-annealing rate from the current one)."""
        if not self._get_lr_called_within_step:
            warnings.warn("To get the last learning rate computed by the scheduler, please "
                          "use `get_last_lr()`.", UserWarning, stacklevel=2)
        step = self._step_count - 1
        if self.anneal_epochs == 0:
            step = max(1, step)
        prev_t = max(0, min(1, (step - 1) / max(1, self.anneal_epochs)))
        prev_alpha = self.anneal_func(prev_t)
        prev_lrs = [self._get_initial_lr(group["lr"], group["swa_lr"], prev_alpha)
                    for group in self.optimizer.param_groups]
        t = max(0, min(1, step / max(1, self.anneal_epochs)))
        alpha = self.anneal_func(t)
        return [group["swa_lr"] * alpha + lr * (1 - alpha)
                for group, lr in zip(self.optimizer.param_groups, prev_lrs, strict=True)]

    def _set_anneal_func(self, anneal_strategy):
        self._anneal_strategy = anneal_strategy
        if anneal_strategy == "cos":
            self.anneal_func = self._cosine_anneal
        else:
            self.anneal_func = self._linear_anneal

    def state_dict(self):
        """Every attribute except the optimizer and the anneal function."""
        return {key: value for key, value in self.__dict__.items()
                if key not in ("optimizer", "anneal_func")}

    def load_state_dict(self, state_dict):
        """Restore attributes saved by `state_dict` (the anneal function from its name)."""
        self.__dict__.update(state_dict)
        self._set_anneal_func(self._anneal_strategy)
