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
