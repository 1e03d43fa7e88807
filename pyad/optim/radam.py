"""RAdam, as ``torch.optim.RAdam``."""

from pyad.optim._functional import (apply_update, bump, check_hyperparameters, grad_of, real,
                                   xp_of)
from pyad.optim.optimizer import _hyper
from pyad.optim.optimizer import _ParameterwiseOptimizer

__all__ = ["RAdam"]


class RAdam(_ParameterwiseOptimizer):
    """RAdam (rectified Adam, Liu et al.), with torch's options and update formula.

    Per parameter at step t: ``g``, weight decay (L2 or decoupled), ``m`` and ``v`` as
    Adam; ``rho_inf = 2 / (1 - beta2) - 1``, ``rho_t = rho_inf - 2 t beta2^t / (1 -
    beta2^t)``; if ``rho_t > 5`` the step is ``lr m_hat r_t sqrt(1 - beta2^t) /
    (sqrt(v) + eps)`` with the rectification ``r_t``, else the SGD-with-momentum step
    ``lr m_hat``.

    >>> import pyad
    >>> w = pyad.nn.Parameter(pyad.tensor([1.0, -1.0]))
    >>> opt = pyad.optim.RAdam([w], lr=0.1)
    >>> (w * w).sum().backward()
    >>> opt.step()
    >>> w
    Parameter containing:
    tensor([ 0.8000, -0.8000], requires_grad=True)
    """

    _zero_states = ("exp_avg", "exp_avg_sq")

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 decoupled_weight_decay=False, *, foreach=None, maximize=False,
                 capturable=False, differentiable=False):
        check_hyperparameters(lr=lr, eps=eps, betas=betas, weight_decay=weight_decay)
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                        maximize=maximize, foreach=foreach, capturable=capturable,
                        decoupled_weight_decay=decoupled_weight_decay,
                        differentiable=differentiable)
        super().__init__(params, defaults)

    _setstate_defaults = dict(foreach=None, maximize=False, differentiable=False,
                              decoupled_weight_decay=False, capturable=False)

    def _update(self, p, state, group):
        lr, eps, wd = group["lr"], group["eps"], _hyper(group["weight_decay"])
        beta1, beta2 = group["betas"]
        xp = xp_of(p.data)
        pd = real(p.data)
        grad = grad_of(p, group)
        step = bump(state)
        if wd != 0:
            if group["decoupled_weight_decay"]:
                apply_update(p, pd * (1 - lr * wd))
                pd = real(p.data)
            else:
                grad = grad + wd * pd
        m, v = real(state["exp_avg"].data), real(state["exp_avg_sq"].data)
        m += (grad - m) * (1 - beta1)
        v *= beta2
        v += (1 - beta2) * (grad * grad)
        bias_correction1 = 1 - beta1 ** step
        bias_correction2 = 1 - beta2 ** step
        m_hat = m / bias_correction1
        rho_inf = 2 / (1 - beta2) - 1
        rho_t = rho_inf - 2 * step * (beta2 ** step) / bias_correction2
        if rho_t > 5.0:
            rect = ((rho_t - 4) * (rho_t - 2) * rho_inf
                    / ((rho_inf - 4) * (rho_inf - 2) * rho_t)) ** 0.5
            adaptive = (bias_correction2 ** 0.5) / (xp.sqrt(v) + eps)
            apply_update(p, pd - m_hat * lr * adaptive * rect)
        else:
            apply_update(p, pd - m_hat * lr)
