"""Helpers shared by the optimizers of this package (not public API)."""
import numpy

from pyad._engine import Variable, get_default_dtype


def xp_of(array):
    """NumPy or CuPy, whichever holds ``array``."""
    return numpy if isinstance(array, numpy.ndarray) else __import__("cupy")


def check(name, value, ok):
    """torch's ``ValueError("Invalid <name>: <value>")`` for a bad hyper-parameter."""
    if not ok:
        raise ValueError("Invalid %s: %s" % (name, value))


def check_betas(betas):
    check("beta parameter at index 0", betas[0], 0.0 <= betas[0] < 1.0)
    check("beta parameter at index 1", betas[1], 0.0 <= betas[1] < 1.0)


# Each hyper-parameter's name in torch's messages and the range it must lie in.
_RANGES = {
    "lr": ("learning rate", lambda v: 0.0 <= v),
    "eps": ("epsilon value", lambda v: 0.0 <= v),
    "weight_decay": ("weight_decay value", lambda v: 0.0 <= v),
    "momentum": ("momentum value", lambda v: 0.0 <= v),
    "alpha": ("alpha value", lambda v: 0.0 <= v),
    "rho": ("rho value", lambda v: 0.0 <= v <= 1.0),
    "lr_decay": ("lr_decay value", lambda v: 0.0 <= v),
    "initial_accumulator_value": ("initial_accumulator_value value", lambda v: 0.0 <= v),
    "momentum_decay": ("momentum_decay value", lambda v: 0.0 <= v),
}


def check_lr_size(lr):
    """torch's check of a tensor ``lr``: one element."""
    if isinstance(lr, Variable) and lr.numel() != 1:
        raise ValueError("Tensor lr must be 1-element")


def check_hyperparameters(**values):
    """Check each hyper-parameter, in the order given (torch's order for the optimizer,
    so that the first bad one is the one torch names): torch's ``ValueError("Invalid
    <name>: <value>")``."""
    for name, value in values.items():
        if name == "lr":
            check_lr_size(value)
        if name == "betas":
            check_betas(value)
        else:
            what, ok = _RANGES[name]
            check(what, value, ok(value))


def check_fused(fused, foreach, differentiable):
    """torch's checks of the kernel flags (after the groups are made, as torch): ``fused``
    with ``differentiable`` or with ``foreach`` is a RuntimeError."""
    if fused:
        if differentiable:
            raise RuntimeError("`fused` does not support `differentiable`")
        if foreach:
            raise RuntimeError("`fused` and `foreach` cannot be `True` together.")


def zeros_state(p):
    """A new state Variable of zeros like the parameter ``p`` (its dtype and device)."""
    return Variable(xp_of(p.data).zeros_like(p.data))


def step_state():
    """The ``'step'`` counter: a 0-d Variable of the default dtype, as torch's."""
    return Variable(numpy.zeros((), dtype=get_default_dtype()))


def bump(state):
    """Add one to ``state['step']`` and return the new count as a Python float."""
    s = state["step"]
    s.data[...] = s.data + 1
    return float(s.data)


def real(array):
    """A complex array as real numbers (real and imaginary parts interleaved, a view when
    ``array`` is contiguous), as torch's ``view_as_real``; a real array unchanged."""
    if array.dtype.kind != "c":
        return array
    array = xp_of(array).ascontiguousarray(array)
    return array.reshape(-1).view(array.real.dtype)


def grad_of(p, group):
    """The parameter's gradient array (as real numbers), negated under ``maximize``."""
    g = real(p.grad.data)
    return -g if group.get("maximize", False) else g


def apply_update(p, new_value):
    """Write ``new_value`` (real numbers for a complex parameter) into the parameter in
    place (one version bump, as torch)."""
    if isinstance(new_value, Variable):     # arithmetic with a Variable lr
        new_value = new_value.data
    if p.dtype.kind == "c":
        new_value = new_value.view(p.dtype).reshape(p.shape)
    p.copy_(Variable(new_value))
