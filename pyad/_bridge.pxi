# The recording fast path of pyad.interop: one call of another framework's function
# (torch, JAX) as one node, without the general custom-Function machinery
# (``_function_apply``: ctx attributes, mark_dirty/non_differentiable bookkeeping,
# output aliasing, per-gradient validation). The bridge knows what it hands over:
# arrays of the other framework's outputs, and gradients of the inputs' exact shapes
# and dtypes (the other framework's VJP), so the node only needs its edges, the
# inputs saved with their versions, and a Python callable for the backward.


cdef class _BridgeNode(Node):
    """The backward node of one bridged call (``pyad.interop``).

    Its backward unpacks the saved inputs (checked against in-place changes, as any
    saved value) and returns ``vjp(state, inputs, grads)``: one gradient (Variable or
    None) per argument of the call. ``state`` is what the bridge keeps from the forward
    (the other framework's graph); it is dropped when the node frees its saved values.
    """
    cdef object _vjp
    cdef object _state
    cdef list _saved_inputs           # SavedVariable (an input requiring grad) or None

    cdef tuple _backward(self, tuple grads):
        cdef Py_ssize_t i, n = len(self._next_functions)
        if self._released or self._saved_inputs is None:
            raise _freed_error(self)
        inputs = [None] * n
        for i in range(n):
            s = self._saved_inputs[i]
            if s is not None:
                inputs[i] = (<SavedVariable>s).unpack(self)
        result = self._vjp(self._state, inputs, grads)
        if len(result) != n:
            raise RuntimeError("%s returned %d gradients for %d inputs"
                               % (self.name(), len(result), n))
        out = [None] * n
        for i in range(n):
            g = result[i]
            if g is None or (<tuple>self._next_functions[i])[0] is None:
                continue
            if not isinstance(g, Variable):
                raise TypeError("%s returned a gradient of type %s at index %d, expected a "
                                "Variable or None" % (self.name(), type(g).__name__, i))
            out[i] = g
        return tuple(out)

    cdef void _release_saved(self):
        self._released = True
        if self._saved_inputs is not None:
            for s in self._saved_inputs:
                if s is not None:
                    (<SavedVariable>s).release()
            self._saved_inputs = None
        self._state = None


def _bridge_record(node_cls, vjp, state, tuple args, tuple arrays, tuple differentiable):
    """Wrap ``arrays`` as the outputs of one new ``node_cls`` node over ``args``.

    ``args`` are the call's arguments (Variables, or anything else, which gets no
    edge); a Variable requiring grad is saved for the backward. ``differentiable[j]``
    says whether output ``j`` gets the node as its history (a float output of a call
    that recorded a graph) or stays a plain Variable. ``vjp(state, inputs, grads)`` is
    the backward: ``inputs`` are the saved Variables (None for the other arguments),
    ``grads`` one gradient (or None) per output. Returns the output Variables (a list).
    With ``node_cls`` None nothing is recorded: the arrays become plain Variables (and
    None stays None).
    """
    cdef Py_ssize_t i, n = len(args), m = len(arrays)
    cdef _BridgeNode node
    cdef Variable a, v
    if node_cls is None:
        return [None if x is None else _wrap(_ensure_array(x)) for x in arrays]
    if not issubclass(node_cls, _BridgeNode):
        raise TypeError("_bridge_record(): node_cls must be a _BridgeNode subclass, got %r"
                        % (node_cls,))
    if len(differentiable) != m:
        raise ValueError("_bridge_record(): %d outputs but %d differentiable flags"
                         % (m, len(differentiable)))
    node = node_cls.__new__(node_cls)
    edges = [_NO_EDGE] * n
    saved = [None] * n
    for i in range(n):
        x = args[i]
        if isinstance(x, Variable):
            a = <Variable>x
            if _requires_grad_now(a):
                edges[i] = _edge(a)
                saved[i] = _save(a, False, i)
    _init_node(node, tuple(edges), m)
    node._vjp = vjp
    node._state = state
    node._saved_inputs = saved
    outs = [None] * m
    for i in range(m):
        v = _wrap(_ensure_array(arrays[i]))
        if differentiable[i]:
            v._grad_fn = node
            v._output_nr = i
            v._requires_grad = True
        outs[i] = v
    return outs


def _numpy_layout(object data):
    """How a bridge can hand ``data`` to a framework that takes NumPy arrays without a
    copy (``torch.from_numpy``): 0 as it is, 1 read-only (shared, but the framework
    cannot know), 2 negative strides (it needs a copy), 3 not a NumPy array."""
    cdef cnp.ndarray arr
    cdef Py_ssize_t k
    if type(data) is not _NDARRAY:
        return 3
    arr = <cnp.ndarray>data
    for k in range(cnp.PyArray_NDIM(arr)):
        if cnp.PyArray_STRIDES(arr)[k] < 0:
            return 2
    if not cnp.PyArray_ISWRITEABLE(arr):
        return 1
    return 0
