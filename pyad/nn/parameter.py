"""``pyad.nn.Parameter``: a Variable that a `Module` registers as one of its parameters."""
from pyad._engine import Variable
from pyad._factories import empty


class Parameter(Variable):
    """A leaf Variable that requires grad and is registered by a `Module` on assignment.

    ``Parameter(data)`` shares ``data``'s memory (as torch); it is a ``pyad.Variable``
    (``isinstance(p, pyad.Variable)`` holds), and ops on it return plain Variables.

    >>> import pyad
    >>> p = pyad.nn.Parameter(pyad.zeros(2))
    >>> p
    Parameter containing:
    tensor([0., 0.], requires_grad=True)
    >>> isinstance(p, pyad.Variable), p.is_leaf
    (True, True)
    """

    def __new__(cls, data=None, requires_grad=True):
        return Variable.__new__(cls)

    def __init__(self, data=None, requires_grad=True):
        if data is None:
            data = empty(0)
        if isinstance(data, Variable):
            data = data.data
        Variable.__init__(self, data, requires_grad)

    def __repr__(self):
        return "Parameter containing:\n" + Variable.__repr__(self)

    __str__ = __repr__


def _zero_grads(params, set_to_none=True):
    """Reset the ``.grad`` of each of ``params``: to None, or zeroed in place (detached
    first if it has a graph). Shared by ``Module.zero_grad`` and ``Optimizer.zero_grad``."""
    from pyad.autograd.grad_mode import no_grad
    for p in params:
        g = p.grad
        if g is None:
            continue
        if set_to_none:
            p.grad = None
            continue
        if g.grad_fn is not None:
            g = g.detach()
            p.grad = g
        else:
            g.requires_grad_(False)
        with no_grad():
            g.zero_()
