"""Adagrad, as ``torch.optim.Adagrad``."""
from pyad._engine import Variable
from pyad.optim._functional import (apply_update, bump, check_fused, check_hyperparameters,
                                   grad_of, real, step_state, xp_of)
from pyad.optim.optimizer import _hyper
from pyad.optim.optimizer import _ParameterwiseOptimizer

__all__ = ["Adagrad"]


class Adagrad(_ParameterwiseOptimizer):
    """Adagrad (Duchi et al.), with torch's options and update formula.

    The state is created for every parameter at construction, as torch: ``'sum'`` filled
    with ``initial_accumulator_value`` and ``'step'``. Per parameter at step t:
    ``g = grad`` (negated if maximize) ``+ weight_decay * p``;
    ``clr = lr / (1 + (t - 1) lr_decay)``; ``sum += g^2``; ``p -= clr g / (sqrt(sum) + eps)``.
    ``foreach``, ``differentiable`` and ``fused`` are accepted and ignored.

    >>> import pyad
    >>> w = pyad.nn.Parameter(pyad.tensor([1.0, -1.0]))
    >>> opt = pyad.optim.Adagrad([w], lr=0.5)
    >>> (w * w).sum().backward()
    >>> opt.step()
    >>> w
    Parameter containing:
    tensor([ 0.5000, -0.5000], requires_grad=True)
    """

    def __init__(self, params, lr=1e-2, lr_decay=0, weight_decay=0,
                 initial_accumulator_value=0, eps=1e-10, foreach=None, *, maximize=False,
                 differentiable=False, fused=None):
        check_hyperparameters(lr=lr, lr_decay=lr_decay, weight_decay=weight_decay,
                              initial_accumulator_value=initial_accumulator_value, eps=eps)
        defaults = dict(lr=lr, lr_decay=lr_decay, eps=eps, weight_decay=weight_decay,
                        initial_accumulator_value=initial_accumulator_value, foreach=foreach,
                        maximize=maximize, differentiable=differentiable, fused=fused)
        super().__init__(params, defaults)
        check_fused(fused, foreach, differentiable)
        for group in self.param_groups:        # torch makes the state at construction
            for p in group["params"]:
                self._init_state(p, self.state[p], group, group["initial_accumulator_value"])

    _setstate_defaults = dict(foreach=None, maximize=False, differentiable=False, fused=None)

    def _init_state(self, p, state, group, value=None):
        # a parameter added later (add_param_group) starts from the *defaults'* value at
        # its first step, as torch; a complex one has it in both parts, as torch
        if value is None:
            value = self.defaults["initial_accumulator_value"]
        state["step"] = step_state()
        state["sum"] = Variable(xp_of(p.data).full_like(
            p.data, complex(value, value) if p.dtype.kind == "c" else value))

    def _update(self, p, state, group):
        lr, lr_decay = group["lr"], group["lr_decay"]
        wd, eps = _hyper(group["weight_decay"]), group["eps"]
        xp = xp_of(p.data)
        pd = real(p.data)
        step = bump(state)
        grad = grad_of(p, group)
        if wd != 0:
            grad = grad + wd * pd
        clr = lr / (1 + (step - 1) * lr_decay)
        s = real(state["sum"].data)
        s += grad * grad
        std = xp.sqrt(s) + eps
        apply_update(p, pd + (-clr) * (grad / std))
