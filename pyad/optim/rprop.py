"""Rprop, as ``torch.optim.Rprop``."""
from pyad._engine import Variable
from pyad.optim._functional import (apply_update, bump, check_hyperparameters, grad_of, real,
                                   xp_of)
from pyad.optim.optimizer import _ParameterwiseOptimizer

__all__ = ["Rprop"]


class Rprop(_ParameterwiseOptimizer):
    """Resilient backpropagation, with torch's options and update formula.

    Per parameter and entry: ``s = sign(grad * prev)``; the step size is multiplied by
    ``etas[1]`` where ``s > 0``, by ``etas[0]`` where ``s < 0`` (and the gradient taken as
    0 there), kept where ``s == 0``, then clamped to ``step_sizes``;
    ``p -= sign(grad) * step_size``; ``prev = grad``. Step sizes start at ``lr``.
    ``foreach``, ``capturable`` and ``differentiable`` are accepted and ignored.

    >>> import pyad
    >>> w = pyad.nn.Parameter(pyad.tensor([1.0, -1.0]))
    >>> opt = pyad.optim.Rprop([w], lr=0.1)
    >>> (w * w).sum().backward()
    >>> opt.step()
    >>> w
    Parameter containing:
    tensor([ 0.9000, -0.9000], requires_grad=True)
    """

    _zero_states = ("prev",)

    def __init__(self, params, lr=1e-2, etas=(0.5, 1.2), step_sizes=(1e-6, 50), *,
                 capturable=False, foreach=None, maximize=False, differentiable=False):
        check_hyperparameters(lr=lr)
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError("Invalid eta values: %s, %s" % (etas[0], etas[1]))
        defaults = dict(lr=lr, etas=etas, step_sizes=step_sizes, foreach=foreach,
                        maximize=maximize, differentiable=differentiable,
                        capturable=capturable)
        super().__init__(params, defaults)

    _setstate_defaults = dict(foreach=None, maximize=False, differentiable=False, capturable=False)

    def _init_state(self, p, state, group):
        super()._init_state(p, state, group)
        xp = xp_of(p.data)
        lr = group["lr"]
        # a complex parameter is two real ones: both parts start at lr
        state["step_size"] = Variable(xp.full_like(p.grad.data, complex(lr, lr)
                                                   if p.dtype.kind == "c" else lr))

    def _update(self, p, state, group):
        etaminus, etaplus = group["etas"]
        lo, hi = group["step_sizes"]
        xp = xp_of(p.data)
        pd = real(p.data)
        grad = grad_of(p, group)
        bump(state)
        prev = real(state["prev"].data)
        step_size = real(state["step_size"].data)
        sign = xp.sign(grad * prev)
        factor = xp.where(sign > 0, etaplus, xp.where(sign < 0, etaminus, 1.0))
        step_size *= factor.astype(step_size.dtype)
        xp.clip(step_size, lo, hi, out=step_size)
        grad = xp.where(factor == etaminus, 0, grad).astype(pd.dtype)
        apply_update(p, pd - xp.sign(grad) * step_size)
        prev[...] = grad
