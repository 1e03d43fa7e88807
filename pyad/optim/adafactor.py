"""Adafactor, as ``torch.optim.Adafactor`` (torch 2.5 and later)."""
import math

import numpy

from pyad.optim._functional import apply_update, bump, check_lr_size, grad_of, step_state, xp_of
from pyad.optim.optimizer import _hyper
from pyad.optim.optimizer import _ParameterwiseOptimizer
from pyad._engine import Variable

__all__ = ["Adafactor"]


def _rms(xp, array):
    # norm / sqrt(numel) as a float; NaN for an empty array (torch's 0 / 0), which the
    # max() around each use then ignores, as in torch
    if array.size == 0:
        return float("nan")
    return float(xp.linalg.norm(array.reshape(-1))) / math.sqrt(array.size)


class Adafactor(_ParameterwiseOptimizer):
    """Adafactor (Shazeer and Stern), with torch's options and update formula: the second
    moment of a matrix (of each matrix of a stacked parameter) is kept as a row and a
    column factor (``state['row_var']``, ``state['col_var']``), of a vector in full
    (``state['variance']``); the relative step ``rho = min(lr, 1 / sqrt(t))`` is scaled by
    the parameter's RMS (at least ``eps[1]``), and the update clipped to RMS ``d``.
    ``eps[0]=None`` is the parameter dtype's machine epsilon (the first parameter's, as
    torch). Weight decay is decoupled (``p *= 1 - lr * weight_decay``). Complex
    parameters are refused, as torch does. ``foreach`` is accepted and ignored.

    >>> import pyad
    >>> w = pyad.nn.Parameter(pyad.tensor([1.0, -1.0]))
    >>> opt = pyad.optim.Adafactor([w], lr=0.1)
    >>> (w * w).sum().backward()
    >>> opt.step()
    >>> w
    Parameter containing:
    tensor([ 0.9000, -0.9000], requires_grad=True)
    """

    def __init__(self, params, lr=1e-2, beta2_decay=-0.8, eps=(None, 1e-3), d=1.0,
                 weight_decay=0.0, *, foreach=None, maximize=False):
        check_lr_size(lr)
        if not 0.0 <= lr:
            raise ValueError("Learning rate should be >= 0 but is: %s" % (lr,))
        if not 0.0 >= beta2_decay:
            raise ValueError("beta2_decay should be <= 0 but is: %s" % (beta2_decay,))
        if eps[0] is not None and not 0.0 <= eps[0]:
            raise ValueError("epsilon1 should be >= 0 but is: %s" % (eps[0],))
        if not 0.0 <= eps[1]:
            raise ValueError("epsilon2 should be >= 0 but is: %s" % (eps[1],))
        if not 1.0 <= d:
            raise ValueError("Clipping threshold d should be >= 1 but is: %s" % (d,))
        if not 0.0 <= weight_decay:
            raise ValueError("weight_decay should be >= 0 but is: %s" % (weight_decay,))
        defaults = dict(lr=lr, beta2_decay=beta2_decay, eps=eps, d=d,
                        weight_decay=weight_decay, foreach=foreach, maximize=maximize)
        super().__init__(params, defaults)

    _setstate_defaults = dict(foreach=None)

    def step(self, closure=None):
        """Update every parameter that has a gradient; return the closure's loss."""
        for group in self.param_groups:
            group.pop("_eps1", None)
            for p in group["params"]:
                if p.grad is not None and p.dtype.kind == "c":
                    raise RuntimeError("Adafactor does not support complex parameters")
        try:
            return super().step(closure)
        finally:
            for group in self.param_groups:
                group.pop("_eps1", None)

    def _init_state(self, p, state, group):
        state["step"] = step_state()
        xp = xp_of(p.data)
        g = p.grad.data
        if g.ndim > 1:
            state["row_var"] = Variable(xp.zeros(g.shape[:g.ndim - 1] + (1,), g.dtype))
            state["col_var"] = Variable(xp.zeros(g.shape[:g.ndim - 2] + (1,)
                                                 + g.shape[g.ndim - 1:], g.dtype))
        else:
            state["variance"] = Variable(xp.zeros_like(g))

    def _update(self, p, state, group):
        lr, beta2_decay, d, wd = (group["lr"], group["beta2_decay"], group["d"],
                                  _hyper(group["weight_decay"]))
        eps1, eps2 = group["eps"]
        if eps1 is None:
            # torch fills it from the first parameter of the group and keeps it
            eps1 = group.setdefault("_eps1", float(numpy.finfo(p.dtype).eps))
        xp = xp_of(p.data)
        pd = p.data
        grad = grad_of(p, group)
        step = bump(state)
        one_minus_beta2 = step ** beta2_decay
        rho = min(lr, 1 / math.sqrt(step))
        alpha = max(eps2, _rms(xp, pd)) * rho
        if wd != 0:
            decay = 1 - lr * wd
            pd = pd * (decay.data if isinstance(decay, Variable) else decay)
        if grad.ndim > 1:
            row_var, col_var = state["row_var"].data, state["col_var"].data
            n = grad.ndim
            row_mean = (grad * grad).sum(axis=n - 1, keepdims=True) / grad.shape[n - 1]
            row_var += (row_mean - row_var) * one_minus_beta2
            col_mean = (grad * grad).sum(axis=n - 2, keepdims=True) / grad.shape[n - 2]
            col_var += (col_mean - col_var) * one_minus_beta2
            var = row_var @ col_var
            var = var / xp.maximum(row_var.mean(axis=n - 2, keepdims=True), eps1)
        else:
            variance = state["variance"].data
            variance += (grad * grad - variance) * one_minus_beta2
            var = variance.copy()
        update = 1 / xp.sqrt(xp.maximum(var, eps1 * eps1))
        update = update * grad
        denom = max(1.0, _rms(xp, update) / d)
        scale = -alpha / denom
        if isinstance(scale, Variable):     # a Variable lr (torch allows a tensor)
            scale = scale.item()
        apply_update(p, (pd + update * scale).astype(p.data.dtype, copy=False))
