"""RMSprop, as ``torch.optim.RMSprop``."""
from pyad.optim._functional import (apply_update, bump, check_hyperparameters, grad_of, real,
                                   xp_of, zeros_state)
from pyad.optim.optimizer import _hyper
from pyad.optim.optimizer import _ParameterwiseOptimizer

__all__ = ["RMSprop"]


class RMSprop(_ParameterwiseOptimizer):
    """RMSprop (Hinton), with torch's options and update formula.

    Per parameter: ``g = grad`` (negated if maximize) ``+ weight_decay * p``;
    ``v = alpha v + (1 - alpha) g^2``; with ``centered``, ``m = alpha m + (1 - alpha) g``
    and ``avg = sqrt(v - m^2) + eps``, else ``avg = sqrt(v) + eps``; with momentum,
    ``buf = momentum buf + g / avg`` and ``p -= lr buf``, else ``p -= lr g / avg``.
    ``foreach``, ``capturable`` and ``differentiable`` are accepted and ignored.

    >>> import pyad
    >>> w = pyad.nn.Parameter(pyad.tensor([1.0, -1.0]))
    >>> opt = pyad.optim.RMSprop([w], lr=0.01)
    >>> (w * w).sum().backward()
    >>> opt.step()
    >>> w
    Parameter containing:
    tensor([ 0.9000, -0.9000], requires_grad=True)
    """

    def __init__(self, params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0,
                 centered=False, capturable=False, foreach=None, maximize=False,
                 differentiable=False):
        check_hyperparameters(lr=lr, eps=eps, momentum=momentum, weight_decay=weight_decay,
                              alpha=alpha)
        defaults = dict(lr=lr, momentum=momentum, alpha=alpha, eps=eps, centered=centered,
                        weight_decay=weight_decay, capturable=capturable, foreach=foreach,
                        maximize=maximize, differentiable=differentiable)
        super().__init__(params, defaults)

    _zero_states = ("square_avg",)

    _setstate_defaults = dict(momentum=0, centered=False, foreach=None, maximize=False,
                              differentiable=False, capturable=False)

    def _init_state(self, p, state, group):
        super()._init_state(p, state, group)
        if group["momentum"] > 0:
            state["momentum_buffer"] = zeros_state(p)
        if group["centered"]:
            state["grad_avg"] = zeros_state(p)

    def _update(self, p, state, group):
        lr, alpha, eps = group["lr"], group["alpha"], group["eps"]
        wd, momentum = _hyper(group["weight_decay"]), group["momentum"]
        xp = xp_of(p.data)
        pd = real(p.data)
        grad = grad_of(p, group)
        bump(state)
        if wd != 0:
            grad = grad + wd * pd
        v = real(state["square_avg"].data)
        v *= alpha
        v += (1 - alpha) * (grad * grad)
        if group["centered"]:
            m = real(state["grad_avg"].data)
            m += (grad - m) * (1 - alpha)
            avg = xp.sqrt(v - m * m)
        else:
            avg = xp.sqrt(v)
        avg = avg + eps
        if momentum > 0:
            buf = real(state["momentum_buffer"].data)
            buf *= momentum
            buf += grad / avg
            apply_update(p, pd - lr * buf)
        else:
            apply_update(p, pd + (-lr) * (grad / avg))
