"""``pyad._C``: the private switches of ``torch._C`` that torch's own Python code and
tests call directly, for code ported with its imports changed. Not part of the public
API (no ``__all__`` entries in ``pyad``); each one delegates to where pyad keeps the
state.

>>> import pyad
>>> pyad._C._is_fwd_grad_enabled()
True
"""
import pyad
from pyad.autograd import forward_ad as _forward_ad

__all__ = []


def _set_fwd_grad_enabled(mode):
    """Switch forward grad mode on or off (see
    ``pyad.autograd.forward_ad._set_fwd_grad_enabled``)."""
    _forward_ad._set_fwd_grad_mode(mode)


def _is_fwd_grad_enabled():
    """Whether forward grad mode is on."""
    return _forward_ad._is_fwd_grad_enabled()


def _set_grad_enabled(mode):
    """Switch grad mode on or off (``pyad.set_grad_enabled`` as a function)."""
    pyad.autograd.grad_mode._engine._set_grad_enabled(bool(mode))


def is_grad_enabled():
    """Whether grad mode is on (``pyad.is_grad_enabled``)."""
    return pyad.is_grad_enabled()


def _get_tracing_state():
    """The JIT tracing state: always None (pyad does not trace)."""
    return None
