"""ASGD, as ``torch.optim.ASGD``."""
import numpy

from pyad._engine import Variable, get_default_dtype
from pyad.optim._functional import (apply_update, bump, check_hyperparameters, grad_of, real,
                                   step_state, zeros_state)
from pyad.optim.optimizer import _hyper
from pyad.optim.optimizer import _ParameterwiseOptimizer

__all__ = ["ASGD"]


def _scalar(value):
    # torch keeps eta and mu as 0-d Variables of the default dtype (float32 unless set)
    # (a copy: a Variable lr must not share its memory with the state's eta)
    return Variable(numpy.array(value, dtype=get_default_dtype(), copy=True))


def _new_eta(lr, lambd, alpha, step):
    """``lr / (1 + lambd lr step) ** alpha``. With a Variable ``lr`` torch computes it in
    ``lr``'s dtype, rounding after each operation: the same here, each operation in
    float64 and rounded to that dtype (NumPy's float32 power can be one ulp off)."""
    if not isinstance(lr, Variable):
        return lr / ((1 + lambd * lr * step) ** alpha)
    dtype = lr.dtype

    def r(value):
        return float(numpy.asarray(value, dtype=numpy.float64).astype(dtype))

    x = lr.item()
    return r(x / r(r(1 + r(r(lambd * x) * step)) ** alpha))


class ASGD(_ParameterwiseOptimizer):
    """Averaged stochastic gradient descent, with torch's options and update formula.

    Per parameter at step t: ``g = grad`` (negated if maximize) ``+ weight_decay * p``;
    ``p = p * (1 - lambd * eta) - eta * g``; the average ``ax`` follows ``p`` (``ax += mu
    (p - ax)``, a copy while ``mu == 1``); then ``eta = lr / (1 + lambd lr t)^alpha`` and
    ``mu = 1 / max(1, t - t0)``. ``state['ax']`` is the averaged parameter.
    ``foreach``, ``capturable`` and ``differentiable`` are accepted and ignored.

    >>> import pyad
    >>> w = pyad.nn.Parameter(pyad.tensor([1.0, -1.0]))
    >>> opt = pyad.optim.ASGD([w], lr=0.1)
    >>> (w * w).sum().backward()
    >>> opt.step()
    >>> w
    Parameter containing:
    tensor([ 0.8000, -0.8000], requires_grad=True)
    """

    def __init__(self, params, lr=1e-2, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0,
                 foreach=None, maximize=False, differentiable=False, capturable=False):
        check_hyperparameters(lr=lr, weight_decay=weight_decay)
        defaults = dict(lr=lr, lambd=lambd, alpha=alpha, t0=t0, weight_decay=weight_decay,
                        foreach=foreach, maximize=maximize, differentiable=differentiable,
                        capturable=capturable)
        super().__init__(params, defaults)

    _setstate_defaults = dict(foreach=None, maximize=False, differentiable=False, capturable=False)

    def _init_state(self, p, state, group):
        state["step"] = step_state()
        state["eta"] = _scalar(group["lr"])
        state["mu"] = _scalar(1.0)
        state["ax"] = zeros_state(p)

    def _update(self, p, state, group):
        lr, lambd, alpha, t0 = group["lr"], group["lambd"], group["alpha"], group["t0"]
        wd = _hyper(group["weight_decay"])
        pd = real(p.data)
        grad = grad_of(p, group)
        step = bump(state)
        if wd != 0:
            grad = grad + wd * pd
        eta = float(state["eta"].data)
        new = pd * (1 - lambd * eta) - eta * grad
        apply_update(p, new.astype(pd.dtype, copy=False))
        ax = real(state["ax"].data)
        pd = real(p.data)
        mu = float(state["mu"].data)
        if mu != 1:
            ax += (pd - ax) * mu
        else:
            ax[...] = pd
        # torch makes each new value a default-dtype Variable before copying it in, so
        # it is rounded to float32 even where a loaded state holds float64
        state["eta"].data[...] = _scalar(_new_eta(lr, lambd, alpha, step)).data
        state["mu"].data[...] = _scalar(1 / max(1, step - t0)).data
