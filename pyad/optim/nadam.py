"""NAdam, as ``torch.optim.NAdam``."""
import numpy

from pyad._engine import Variable, get_default_dtype
from pyad.optim._functional import (apply_update, bump, check_hyperparameters, grad_of, real,
                                   step_state, xp_of, zeros_state)
from pyad.optim.optimizer import _hyper
from pyad.optim.optimizer import _ParameterwiseOptimizer

__all__ = ["NAdam"]


class NAdam(_ParameterwiseOptimizer):
    """NAdam (Adam with Nesterov momentum, Dozat), with torch's options and formula.

    Per parameter at step t: ``g = grad`` (negated if maximize), with L2 weight decay or,
    if ``decoupled_weight_decay``, ``p *= 1 - lr weight_decay`` (NAdamW);
    ``mu_t = beta1 (1 - 0.96^(t momentum_decay) / 2)``, ``mu_product *= mu_t``;
    ``m``, ``v`` as Adam; ``denom = sqrt(v / (1 - beta2^t)) + eps``;
    ``p -= lr (1 - mu_t) / (1 - mu_product) g / denom
    + lr mu_{t+1} / (1 - mu_product mu_{t+1}) m / denom``. ``mu_product`` is kept as a
    0-d Variable of the default dtype, as torch.

    >>> import pyad
    >>> w = pyad.nn.Parameter(pyad.tensor([1.0]))
    >>> pyad.optim.NAdam([w]).defaults["momentum_decay"]
    0.004
    """

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 momentum_decay=4e-3, decoupled_weight_decay=False, *, foreach=None,
                 maximize=False, capturable=False, differentiable=False):
        check_hyperparameters(lr=lr, eps=eps, betas=betas, weight_decay=weight_decay,
                              momentum_decay=momentum_decay)
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                        momentum_decay=momentum_decay,
                        decoupled_weight_decay=decoupled_weight_decay, maximize=maximize,
                        foreach=foreach, capturable=capturable, differentiable=differentiable)
        super().__init__(params, defaults)

    _setstate_defaults = dict(maximize=False, foreach=None, capturable=False, differentiable=False,
                              decoupled_weight_decay=False)

    def _init_state(self, p, state, group):
        state["step"] = step_state()
        state["mu_product"] = Variable(numpy.ones((), get_default_dtype()))
        state["exp_avg"] = zeros_state(p)
        state["exp_avg_sq"] = zeros_state(p)

    def _update(self, p, state, group):
        lr, eps, wd = group["lr"], group["eps"], _hyper(group["weight_decay"])
        beta1, beta2 = group["betas"]
        momentum_decay = group["momentum_decay"]
        xp = xp_of(p.data)
        pd = real(p.data)
        grad = grad_of(p, group)
        step = bump(state)
        bias_correction2 = 1 - beta2 ** step
        if wd != 0:
            if group["decoupled_weight_decay"]:
                apply_update(p, pd * (1 - lr * wd))
                pd = real(p.data)
            else:
                grad = grad + wd * pd
        mu = beta1 * (1.0 - 0.5 * (0.96 ** (step * momentum_decay)))
        mu_next = beta1 * (1.0 - 0.5 * (0.96 ** ((step + 1) * momentum_decay)))
        mp = real(state["mu_product"].data)
        mp[...] = mp * mu
        mu_product = float(mp)
        m, v = real(state["exp_avg"].data), real(state["exp_avg_sq"].data)
        m += (grad - m) * (1 - beta1)
        v *= beta2
        v += (1 - beta2) * (grad * grad)
        denom = xp.sqrt(v / bias_correction2) + eps
        mu_product_next = mu_product * mu_next
        new = pd + (-lr * (1.0 - mu) / (1.0 - mu_product)) * (grad / denom)
        new = new + ((-lr * mu_next) / (1.0 - mu_product_next)) * (m / denom)
        apply_update(p, new)
