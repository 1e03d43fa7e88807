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
        cdef Py_ssize_t i, n = _num_edges(self)
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
            if g is None or _edge_at(self, i) is None:
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
    return _layout_of(data)


cdef int _layout_of(object data):
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


# -- the profiler ------------------------------------------------------------------------
#
# A bridged call is one op of pyad's graph: with the profiler on, it is one forward
# event named after the bridge and the function (``from_torch(f)``), whose sequence
# number is that of the node it recorded (so the node's backward event pairs with it).
# The bridges test _bridge_profiling() per call: one C flag when the profiler is off.

def _bridge_profiling():
    """Whether the profiler is on (what a bridge tests before each call)."""
    return _profiling


cdef Node _recorded_node(object result, long long seq0, int depth):
    # The first node recorded by the call (seq >= seq0) among the Variables of
    # ``result`` (a Variable, or tuples/lists of them two levels deep), or None.
    cdef Node node
    if isinstance(result, Variable):
        node = (<Variable>result)._grad_fn
        if node is not None and seq0 <= node._seq < _ACCUMULATE_SEQUENCE:
            return node
        return None
    if depth < 2 and (type(result) is tuple or type(result) is list):
        for item in result:
            node = _recorded_node(item, seq0, depth + 1)
            if node is not None:
                return node
    return None


def _bridge_profiled(str name, object fn, tuple args, dict kwargs):
    """Call ``fn(*args, **kwargs)`` as one profiler event ``name`` (an op: its sequence
    number is that of the node the call recorded, -1 if none) and return its result."""
    cdef long long seq0 = _sequence_counter
    cdef long long seq = -1
    cdef Py_ssize_t index = 0
    cdef bint fast
    cdef Node node
    profiler = _profiler
    if profiler is None:                        # removed by another thread meanwhile
        return fn(*args, **kwargs)
    fast = type(profiler) is _EventLog
    token = None
    result = None
    if fast:
        index = (<_EventLog>profiler).begin(name, 0, -1)
    else:
        token = profiler.op_begin(name, args, seq0)
    try:
        result = fn(*args, **kwargs)
    finally:
        node = _recorded_node(result, seq0, 0)
        if node is not None:
            seq = node._seq
        if fast:
            (<_EventLog>profiler).end(index, seq)
        else:
            profiler.op_end(token, result, seq)
    return result


# -- a forward that records nothing, without Python bytecode per argument ---------------

@cython.final
cdef class _BridgeHooks:
    """What :func:`_bridge_plain` needs from the other framework (one per bridge).

    ``from_numpy(array)``: a zero-copy view of a plain writable NumPy array (may raise
    TypeError or ValueError, for a dtype or byte order it lacks); ``view(variable)``:
    any other Variable's view; ``is_grad_enabled()`` / ``set_grad_enabled(mode)``: its
    grad mode; ``to_numpy(output)``: the NumPy array sharing an output's memory (may
    raise RuntimeError or TypeError); ``array_of(output)``: any output's array;
    ``tensor_type``: its array type; ``as_tuple(outputs, what)``: (outputs, single) for
    any other return value (or a TypeError); ``written(variable, view, what)``: called
    when the function wrote into a view (its ``_version`` went up).
    """
    cdef object from_numpy, view, is_grad_enabled, set_grad_enabled, to_numpy, array_of
    cdef object tensor_type, as_tuple, written

    def __init__(self, from_numpy, view, is_grad_enabled, set_grad_enabled, to_numpy,
                 array_of, tensor_type, as_tuple, written):
        self.from_numpy, self.view = from_numpy, view
        self.is_grad_enabled, self.set_grad_enabled = is_grad_enabled, set_grad_enabled
        self.to_numpy, self.array_of, self.tensor_type = to_numpy, array_of, tensor_type
        self.as_tuple, self.written = as_tuple, written


cdef object _bridge_out_array(_BridgeHooks hooks, object out):
    try:
        return hooks.to_numpy(out)
    except (RuntimeError, TypeError):
        return hooks.array_of(out)


def _bridge_plain(_BridgeHooks hooks, object fn, tuple args, dict kwargs, str what):
    """One call of ``fn`` that records nothing: ``fn`` runs with the other framework's
    grad mode off on its zero-copy views of the Variables in ``args`` (other arguments
    as they are), and returns Variables sharing its outputs' memory (one, or a tuple)."""
    cdef Py_ssize_t i, n = len(args)
    cdef list t_args = list(args)
    cdef bint viewed = False, enabled
    cdef object t, data
    for i in range(n):
        a = args[i]
        if isinstance(a, Variable):
            data = (<Variable>a)._data
            t = None
            if _layout_of(data) == 0:
                try:
                    t = hooks.from_numpy(data)
                except (TypeError, ValueError):
                    t = None
            t_args[i] = hooks.view(a) if t is None else t
            viewed = True
    enabled = hooks.is_grad_enabled()
    if enabled:
        hooks.set_grad_enabled(False)
        try:
            outputs = fn(*t_args, **kwargs)
        finally:
            hooks.set_grad_enabled(True)
    else:
        outputs = fn(*t_args, **kwargs)
    if viewed:
        for i in range(n):
            a = args[i]
            t = t_args[i]
            if t is not a and isinstance(a, Variable) and t._version:
                hooks.written(a, t, what)        # (a fresh view's version is 0)
    if type(outputs) is hooks.tensor_type:
        return _wrap(_ensure_array(_bridge_out_array(hooks, outputs)))
    outputs, single = hooks.as_tuple(outputs, what)
    cdef list outs = [_wrap(_ensure_array(_bridge_out_array(hooks, o))) for o in outputs]
    return outs[0] if single else tuple(outs)
