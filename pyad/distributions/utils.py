"""``torch.distributions.utils``: the helpers distributions are written with, as torch's.

>>> import pyad
>>> from pyad.distributions.utils import logits_to_probs, probs_to_logits
>>> logits_to_probs(pyad.tensor([0.0]), is_binary=True)
tensor([0.5000])
>>> probs_to_logits(pyad.tensor([0.5]), is_binary=True)
tensor([0.])
"""
from functools import update_wrapper

import pyad
from pyad.distributions.distribution import _broadcast_all, _clamp_probs

__all__ = ["broadcast_all", "logits_to_probs", "clamp_probs", "probs_to_logits",
           "lazy_property", "euler_constant"]

euler_constant = 0.57721566490153286060  # Euler Mascheroni Constant


def broadcast_all(*values):
    """Numbers and Variables broadcast to one shape, as Variables (numbers take the
    dtype of the first Variable, else the default dtype)."""
    return _broadcast_all(*values)


def clamp_probs(probs):
    """``probs`` clamped to ``[eps, 1 - eps]`` for its dtype's ``eps``."""
    return _clamp_probs(probs)


def logits_to_probs(logits, is_binary=False):
    """Probabilities from logits: the sigmoid if ``is_binary``, else the softmax over the
    last dimension."""
    if is_binary:
        return pyad.sigmoid(logits)
    return pyad.nn.functional.softmax(logits, dim=-1)


def probs_to_logits(probs, is_binary=False):
    """Logits from probabilities (clamped first): ``log(p) - log1p(-p)`` if ``is_binary``,
    else ``log(p)``."""
    ps_clamped = clamp_probs(probs)
    if is_binary:
        return pyad.log(ps_clamped) - pyad.log1p(-ps_clamped)
    return pyad.log(ps_clamped)


class lazy_property:
    """A property computed once, on first access (with gradients recorded), then stored
    on the instance, as torch's."""

    def __init__(self, wrapped):
        self.wrapped = wrapped
        update_wrapper(self, wrapped)

    def __get__(self, instance, obj_type=None):
        if instance is None:
            return _lazy_property_and_property(self.wrapped)
        with pyad.enable_grad():
            value = self.wrapped(instance)
        setattr(instance, self.wrapped.__name__, value)
        return value


class _lazy_property_and_property(lazy_property, property):
    # the class attribute: a property too, so that documentation tools see one
    def __init__(self, wrapped):
        property.__init__(self, wrapped)
