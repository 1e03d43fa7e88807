"""``pyad.nn.Parameter``: a Variable that a `Module` registers as one of its parameters;
``UninitializedParameter``, the parameter of a lazy module before its first call;
``Buffer``, a Variable that a `Module` registers as one of its buffers;
``UninitializedBuffer``, the buffer of a lazy module before its first call."""
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

    def __deepcopy__(self, memo):
        # torch's: a Parameter of copied data with the same requires_grad, without its
        # .grad (a deep copy of a module starts with no gradients)
        if id(self) in memo:
            return memo[id(self)]
        result = type(self)(self.data.copy(), self.requires_grad)
        memo[id(self)] = result
        return result


class Buffer(Variable):
    """A Variable that a `Module` registers as a buffer on assignment, as torch's
    ``nn.Buffer``: ``module.running = Buffer(t)`` is ``module.register_buffer("running",
    t)``, and ``persistent=False`` keeps it out of `state_dict`. It shares ``data``'s
    memory and keeps its ``requires_grad`` (as torch's ``data.detach()``).

    >>> import pyad
    >>> m = pyad.nn.Module()
    >>> m.steps = pyad.nn.Buffer(pyad.zeros(1))
    >>> m.scratch = pyad.nn.Buffer(pyad.ones(2), persistent=False)
    >>> list(m.state_dict()), [name for name, _ in m.named_buffers()]
    (['steps'], ['steps', 'scratch'])
    """

    def __new__(cls, data=None, *, persistent=True):
        return Variable.__new__(cls)

    def __init__(self, data=None, *, persistent=True):
        if data is None:
            data = empty(0)
        requires_grad = data.requires_grad if isinstance(data, Variable) else False
        if isinstance(data, Variable):
            data = data.data
        Variable.__init__(self, data, requires_grad)
        self.persistent = persistent


class UninitializedParameter(Parameter):
    """A parameter whose shape is not known yet (of a lazy module such as `LazyLinear`):
    it holds no data until ``materialize(shape)`` gives it some, and then it is a plain
    `Parameter`.

    >>> import pyad
    >>> p = pyad.nn.parameter.UninitializedParameter()
    >>> p.materialize((2, 3))
    >>> type(p).__name__, p.shape
    ('Parameter', (2, 3))
    """
    cls_to_become = Parameter
    _uninitialized = True          # Module.load_state_dict materialises it

    def __new__(cls, requires_grad=True, device=None, dtype=None):
        return Variable.__new__(cls)

    def __init__(self, requires_grad=True, device=None, dtype=None):
        Parameter.__init__(self, empty(0, device=device, dtype=dtype), requires_grad)
        self._lazy_device = device
        self._lazy_dtype = dtype

    def materialize(self, shape, device=None, dtype=None):
        """Give the parameter an uninitialised array of ``shape`` and make it a
        `Parameter`."""
        device = device if device is not None else self._lazy_device
        # as torch: the placeholder's dtype, which Module.to/.double() may have changed
        dtype = dtype if dtype is not None else self.data.dtype
        shape = (shape,) if isinstance(shape, int) else tuple(shape)    # torch's int form
        self.data = empty(*shape, device=device, dtype=dtype).data
        del self._lazy_device, self._lazy_dtype
        self.__class__ = self.cls_to_become

    def _refuse(self, what):
        raise ValueError("Attempted to use an uninitialized parameter in %s. This error "
                         "happens when you are using a `LazyModule` or explicitly manipulating "
                         "`torch.nn.parameter.UninitializedParameter` objects. When using "
                         "LazyModules Call `forward` with a dummy batch to initialize the "
                         "parameters before calling torch functions" % what)

    @property
    def shape(self):
        self._refuse("shape")

    def share_memory_(self):
        # torch's: there is no memory to share until the shape is known
        raise RuntimeError("Can't share memory on an uninitialized parameter or buffer. "
                           "Call `forward` to initialize the parameters before calling "
                           "`module.share_memory()`.")

    def __repr__(self):
        return "<UninitializedParameter>"

    __str__ = __repr__


class UninitializedBuffer(Buffer):
    """A buffer whose shape is not known yet (``running_mean`` / ``running_var`` of a
    lazy norm layer such as `LazyBatchNorm1d`), as torch's: it holds no data until
    ``materialize(shape)`` gives it some. ``shape`` raises until then; ``to(dtype)`` /
    ``type`` change the dtype it will have.

    torch turns a materialised buffer into a plain ``torch.Tensor`` (still an instance of
    ``nn.Buffer``); pyad's ``Variable`` is an extension type whose instances cannot
    change class, so here it becomes a `Buffer` (a ``Variable`` subclass):
    ``isinstance(b, pyad.Variable)`` and ``isinstance(b, pyad.nn.Buffer)`` hold, as in
    torch.

    >>> import pyad
    >>> b = pyad.nn.UninitializedBuffer()
    >>> b.materialize((3,))
    >>> type(b).__name__, b.shape
    ('Buffer', (3,))
    """
    cls_to_become = Buffer
    _uninitialized = True          # Module.load_state_dict materialises it

    def __new__(cls, requires_grad=False, device=None, dtype=None, persistent=True):
        return Variable.__new__(cls)

    def __init__(self, requires_grad=False, device=None, dtype=None, persistent=True):
        Variable.__init__(self, empty(0, device=device, dtype=dtype).data, requires_grad)
        self.persistent = persistent
        self._lazy_device = device

    def materialize(self, shape, device=None, dtype=None):
        """Give the buffer an uninitialised array of ``shape`` (the placeholder's dtype
        unless ``dtype`` is given) and make it a `Buffer`."""
        device = device if device is not None else self._lazy_device
        dtype = dtype if dtype is not None else self.data.dtype
        shape = (shape,) if isinstance(shape, int) else tuple(shape)    # torch's int form
        self.data = empty(*shape, device=device, dtype=dtype).data
        del self._lazy_device
        self.__class__ = self.cls_to_become

    def to(self, *args, **kwargs):
        # Module.to / .double(): the placeholder takes the dtype (and stays lazy)
        out = Variable(self.data).to(*args, **kwargs)
        if out.dtype != self.data.dtype:
            self.data = empty(0, dtype=out.dtype).data
        return self

    def type(self, dst_type=None, **kwargs):
        if dst_type is None:
            return Variable.type(self)
        out = Variable(self.data).type(dst_type, **kwargs)
        self.data = empty(0, dtype=out.dtype).data
        return self

    @property
    def shape(self):
        raise RuntimeError("Can't access the shape of an uninitialized parameter or buffer. "
                           "This error usually happens in `load_state_dict` when trying to "
                           "load an uninitialized parameter into an initialized one. Call "
                           "`forward` to initialize the parameters before accessing their "
                           "attributes.")

    def share_memory_(self):
        # torch's: there is no memory to share until the shape is known
        raise RuntimeError("Can't share memory on an uninitialized parameter or buffer. "
                           "Call `forward` to initialize the parameters before calling "
                           "`module.share_memory()`.")

    def __repr__(self):
        return "<UninitializedBuffer>"

    __str__ = __repr__


def is_lazy(param):
    """Whether ``param`` is an `UninitializedParameter` or `UninitializedBuffer`
    (``torch.nn.parameter.is_lazy``)."""
    return isinstance(param, (UninitializedParameter, UninitializedBuffer))


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
            g.detach_()          # in place, as torch: p.grad stays the same object
        else:
            g._mark_requires_grad(False)
        with no_grad():
            g.zero_()
