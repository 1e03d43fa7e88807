"""Adadelta, as ``torch.optim.Adadelta``."""
from pyad.optim._functional import (apply_update, bump, check_hyperparameters, grad_of, real,
                                   xp_of)
from pyad.optim.optimizer import _hyper
from pyad.optim.optimizer import _ParameterwiseOptimizer

__all__ = ["Adadelta"]


class Adadelta(_ParameterwiseOptimizer):
    """Adadelta (Zeiler), with torch's options and update formula.

    Per parameter: ``g = grad`` (negated if maximize) ``+ weight_decay * p``;
    ``v = rho v + (1 - rho) g^2``; ``delta = sqrt(u + eps) / sqrt(v + eps) * g``;
    ``u = rho u + (1 - rho) delta^2``; ``p -= lr delta``.
    ``foreach``, ``capturable`` and ``differentiable`` are accepted and ignored.

    >>> import pyad
    >>> w = pyad.nn.Parameter(pyad.tensor([1.0]))
    >>> opt = pyad.optim.Adadelta([w])
    >>> opt.defaults["lr"], opt.defaults["rho"], opt.defaults["eps"]
    (1.0, 0.9, 1e-06)
    """

    _zero_states = ("square_avg", "acc_delta")

    def __init__(self, params, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0, foreach=None, *,
                 capturable=False, maximize=False, differentiable=False):
        check_hyperparameters(lr=lr, rho=rho, eps=eps, weight_decay=weight_decay)
        defaults = dict(lr=lr, rho=rho, eps=eps, weight_decay=weight_decay,
                        maximize=maximize, capturable=capturable, foreach=foreach,
                        differentiable=differentiable)
        super().__init__(params, defaults)

    _setstate_defaults = dict(foreach=None, maximize=False, differentiable=False, capturable=False)

    def _update(self, p, state, group):
        lr, rho, eps, wd = group["lr"], group["rho"], group["eps"], _hyper(group["weight_decay"])
        xp = xp_of(p.data)
        pd = real(p.data)
        bump(state)
        grad = grad_of(p, group)
        if wd != 0:
            grad = grad + wd * pd
        v, u = real(state["square_avg"].data), real(state["acc_delta"].data)
        v *= rho
        v += (1 - rho) * (grad * grad)
        std = xp.sqrt(v + eps)
        delta = xp.sqrt(u + eps) / std * grad
        u *= rho
        u += (1 - rho) * (delta * delta)
        apply_update(p, pd + (-lr) * delta)
