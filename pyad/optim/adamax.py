"""Adamax, as ``torch.optim.Adamax``."""
from pyad.optim._functional import (apply_update, bump, check_hyperparameters, grad_of, real,
                                   xp_of)
from pyad.optim.optimizer import _hyper
from pyad.optim.optimizer import _ParameterwiseOptimizer

__all__ = ["Adamax"]


class Adamax(_ParameterwiseOptimizer):
    """Adamax (Adam with the infinity norm), with torch's options and update formula.

    Per parameter at step t: ``g = grad`` (negated if maximize) ``+ weight_decay * p``;
    ``m = beta1 m + (1 - beta1) g``; ``u = max(beta2 u, |g| + eps)``;
    ``p -= lr / (1 - beta1^t) * m / u``.
    ``foreach``, ``capturable`` and ``differentiable`` are accepted and ignored.

    >>> import pyad
    >>> w = pyad.nn.Parameter(pyad.tensor([1.0, -1.0]))
    >>> opt = pyad.optim.Adamax([w], lr=0.1)
    >>> (w * w).sum().backward()
    >>> opt.step()
    >>> w
    Parameter containing:
    tensor([ 0.9000, -0.9000], requires_grad=True)
    """

    _zero_states = ("exp_avg", "exp_inf")

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 foreach=None, *, maximize=False, differentiable=False, capturable=False):
        check_hyperparameters(lr=lr, eps=eps, betas=betas, weight_decay=weight_decay)
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                        foreach=foreach, maximize=maximize, differentiable=differentiable,
                        capturable=capturable)
        super().__init__(params, defaults)

    _setstate_defaults = dict(foreach=None, maximize=False, differentiable=False, capturable=False)

    def _update(self, p, state, group):
        lr, eps, wd = group["lr"], group["eps"], _hyper(group["weight_decay"])
        beta1, beta2 = group["betas"]
        xp = xp_of(p.data)
        pd = real(p.data)
        grad = grad_of(p, group)
        step = bump(state)
        if wd != 0:
            grad = grad + wd * pd
        m, u = real(state["exp_avg"].data), real(state["exp_inf"].data)
        m += (grad - m) * (1 - beta1)
        u *= beta2
        xp.maximum(u, xp.abs(grad) + eps, out=u)
        clr = lr / (1 - beta1 ** step)
        apply_update(p, pd + (-clr) * (m / u))
