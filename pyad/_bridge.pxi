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
    cdef _BridgeHooks _hooks          # set by _bridge_call: the first-order VJP runs here

    cdef tuple _backward(self, tuple grads):
        cdef Py_ssize_t i, n = _num_edges(self)
        if self._released or self._saved_inputs is None:
            raise _freed_error(self)
        inputs = [None] * n
        for i in range(n):
            s = self._saved_inputs[i]
            if s is not None:
                inputs[i] = (<SavedVariable>s).unpack(self)
        if self._hooks is not None and not _grad_enabled():
            return _bridge_direct_vjp(self, inputs, grads)
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

    cdef void _release_saved(self) noexcept:
        self._released = True
        if self._saved_inputs is not None:
            for s in self._saved_inputs:
                if s is not None:
                    (<SavedVariable>s).release()
            self._saved_inputs = None
        self._state = None
        self._hooks = None


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
    cdef Py_ssize_t m = len(arrays)
    if node_cls is None:
        return [None if x is None else _wrap(_ensure_array(x)) for x in arrays]
    if not issubclass(node_cls, _BridgeNode):
        raise TypeError("_bridge_record(): node_cls must be a _BridgeNode subclass, got %r"
                        % (node_cls,))
    if len(differentiable) != m:
        raise ValueError("_bridge_record(): %d outputs but %d differentiable flags"
                         % (m, len(differentiable)))
    return _record_bridge_node(node_cls.__new__(node_cls), vjp, state, args, arrays,
                               differentiable)


cdef list _record_bridge_node(_BridgeNode node, object vjp, object state, tuple args,
                              object arrays, object differentiable):
    # The node of one bridged call over ``args`` and its output Variables (of
    # ``arrays``; ``differentiable[i]`` says whether output i gets the node as history).
    cdef Py_ssize_t i, n = len(args), m = len(arrays)
    cdef Variable a, v
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
    """What :func:`_bridge_plain` and :func:`_bridge_call` need from the other framework
    (one per bridge).

    ``from_numpy(array)``: a zero-copy view of a plain writable NumPy array (may raise
    TypeError or ValueError, for a dtype or byte order it lacks); ``view(variable)``:
    any other Variable's view; ``is_grad_enabled()`` / ``set_grad_enabled(mode)``: its
    grad mode; ``to_numpy(output)``: the NumPy array sharing an output's memory (may
    raise RuntimeError or TypeError); ``array_of(output)``: any output's array;
    ``tensor_type``: its array type; ``as_tuple(outputs, what)``: (outputs, single) for
    any other return value (or a TypeError); ``written(variable, view, what)``: called
    when the function wrote into a view (its ``_version`` went up).

    For a recorded call (:func:`_bridge_call`), all optional: ``node_cls`` (a
    :class:`_BridgeNode` subclass) and ``vjp`` its backward (see :func:`_bridge_record`;
    the node's state is ``(views, outputs, what)``); ``general(fn, args, kwargs, what)``:
    the general recorded call, for what the engine leaves to Python (an argument
    requiring grad that is not plain writable float32/float64 NumPy data);
    ``requires_grad(view)``: makes a view a leaf requiring grad; ``detach(output)``;
    ``run_engine(outputs, grads, keep_graph, create_graph, inputs, allow_unreachable,
    accumulate_grad)``: the framework's engine for a first-order VJP on the CPU (None:
    ``direct_vjp(outputs, inputs, grad_variables, what)`` does it); ``fast``: False
    sends every recorded call to ``general`` (what tests compare with).
    """
    cdef object from_numpy, view, is_grad_enabled, set_grad_enabled, to_numpy, array_of
    cdef object tensor_type, as_tuple, written
    cdef object node_cls, requires_grad, detach, run_engine
    cdef public object vjp, general, direct_vjp
    cdef public bint fast

    def __init__(self, from_numpy, view, is_grad_enabled, set_grad_enabled, to_numpy,
                 array_of, tensor_type, as_tuple, written, node_cls=None, vjp=None,
                 general=None, requires_grad=None, detach=None, run_engine=None,
                 direct_vjp=None):
        self.from_numpy, self.view = from_numpy, view
        self.is_grad_enabled, self.set_grad_enabled = is_grad_enabled, set_grad_enabled
        self.to_numpy, self.array_of, self.tensor_type = to_numpy, array_of, tensor_type
        self.as_tuple, self.written = as_tuple, written
        if node_cls is not None and not issubclass(node_cls, _BridgeNode):
            raise TypeError("_BridgeHooks(): node_cls must be a _BridgeNode subclass, got %r"
                            % (node_cls,))
        self.node_cls, self.vjp, self.general = node_cls, vjp, general
        self.requires_grad, self.detach = requires_grad, detach
        self.run_engine, self.direct_vjp = run_engine, direct_vjp
        self.fast = node_cls is not None and general is not None and \
            requires_grad is not None and detach is not None and direct_vjp is not None


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


# -- a forward that records, without Python bytecode per argument -----------------------

def _bridge_call(_BridgeHooks hooks, object fn, tuple args, dict kwargs, str what):
    """One call of ``fn`` through a bridge: with pyad's grad mode on and a Variable
    argument requiring grad, recorded as one ``hooks.node_cls`` node (the Variables
    requiring grad enter ``fn`` as the other framework's leaves requiring grad, and the
    first-order backward runs its engine from :meth:`_BridgeNode._backward`); otherwise
    as :func:`_bridge_plain`. Returns a Variable, or a tuple of them.

    What the engine does not handle itself (an argument requiring grad that is not
    plain writable float32/float64 NumPy data, or ``hooks.fast`` off) goes to
    ``hooks.general`` before ``fn`` runs."""
    cdef Py_ssize_t i, n = len(args)
    cdef bint record = False
    if _grad_enabled():
        for i in range(n):
            a = args[i]
            if isinstance(a, Variable) and _requires_grad_now(<Variable>a):
                record = True
                break
    if not record:
        return _bridge_plain(hooks, fn, args, kwargs, what)
    if not hooks.fast:
        return hooks.general(fn, args, kwargs, what)
    cdef list t_args = list(args)
    cdef list t_inputs = [None] * n
    cdef Variable v
    cdef object t, data
    cdef int type_num
    for i in range(n):
        a = args[i]
        if not isinstance(a, Variable):
            continue
        v = <Variable>a
        data = v._data
        t = None
        if _requires_grad_now(v):
            # a leaf of the other framework's graph: plain writable float32/float64
            # NumPy data only (the rest, and any failure, takes the general path)
            if _layout_of(data) != 0:
                return hooks.general(fn, args, kwargs, what)
            type_num = cnp.PyArray_TYPE(<cnp.ndarray>data)
            if type_num != cnp.NPY_FLOAT32 and type_num != cnp.NPY_FLOAT64:
                return hooks.general(fn, args, kwargs, what)
            try:
                t = hooks.from_numpy(data)
            except (TypeError, ValueError):
                return hooks.general(fn, args, kwargs, what)
            hooks.requires_grad(t, True)
        else:
            if _layout_of(data) == 0:
                try:
                    t = hooks.from_numpy(data)
                except (TypeError, ValueError):
                    t = None
            if t is None:
                t = hooks.view(v)
        t_args[i] = t_inputs[i] = t
    if hooks.is_grad_enabled():
        outputs = fn(*t_args, **kwargs)
    else:
        hooks.set_grad_enabled(True)
        try:
            outputs = fn(*t_args, **kwargs)
        finally:
            hooks.set_grad_enabled(False)
    cdef tuple outs
    cdef bint single
    if type(outputs) is hooks.tensor_type:
        outs, single = (outputs,), True
    else:
        outs, single = hooks.as_tuple(outputs, what)
    for i in range(n):
        t = t_inputs[i]
        if t is not None and t._version:
            hooks.written(args[i], t, what)     # (a fresh view's version is 0)
    cdef Py_ssize_t j, m = len(outs)
    cdef list arrays = [None] * m
    cdef list differentiable = [False] * m
    cdef bint any_differentiable = False
    for j in range(m):
        o = outs[j]
        if o.requires_grad:
            differentiable[j] = any_differentiable = True
            o = hooks.detach(o)
        arrays[j] = _bridge_out_array(hooks, o)
    cdef _BridgeNode node
    cdef list results
    if any_differentiable:
        node = hooks.node_cls.__new__(hooks.node_cls)
        node._hooks = hooks
        results = _record_bridge_node(node, hooks.vjp, (t_inputs, outs, what), args,
                                      arrays, differentiable)
    else:
        results = [_wrap(_ensure_array(x)) for x in arrays]
    return results[0] if single else tuple(results)


cdef tuple _bridge_direct_vjp(_BridgeNode node, list inputs, tuple grads):
    # The first-order backward of a node recorded by _bridge_call (pyad's grad mode
    # off): the other framework's engine on the forward's graph, with views of the
    # incoming gradients; the results as Variables sharing their memory.
    cdef _BridgeHooks hooks = node._hooks
    cdef tuple state = <tuple>node._state
    cdef list t_inputs = <list>state[0]
    cdef tuple t_outputs = <tuple>state[1]
    cdef Py_ssize_t i, j, k, n = len(t_inputs), m = len(t_outputs)
    cdef list wanted = [], xs = [], os = [], gs = []
    cdef object t, g, data
    for i in range(n):
        t = t_inputs[i]
        if t is not None and inputs[i] is not None and t.requires_grad:
            wanted.append(i)
            xs.append(t)
    if not wanted:
        return (None,) * n
    for j in range(min(m, len(grads))):
        g = grads[j]
        if g is not None and t_outputs[j].requires_grad:
            os.append(t_outputs[j])
            gs.append(g)
    if not gs:
        return (None,) * n
    cdef tuple t_xs = tuple(xs), t_os = tuple(os)
    if hooks.run_engine is None or not t_os[0].is_cpu:
        result = hooks.direct_vjp(t_os, t_xs, gs, state[2])
    else:
        t_gs = [None] * len(gs)
        for k in range(len(gs)):
            g = gs[k]
            data = (<Variable>g)._data
            t = None
            if _layout_of(data) == 0:
                try:
                    t = hooks.from_numpy(data)
                except (TypeError, ValueError):
                    t = None
            t_gs[k] = hooks.view(g) if t is None else t
        enabled = hooks.is_grad_enabled()
        if enabled:
            hooks.set_grad_enabled(False)
        try:
            result = hooks.run_engine(t_os, tuple(t_gs), True, False, t_xs, True, False)
        finally:
            if enabled:
                hooks.set_grad_enabled(True)
        result = [None if r is None else _plain(_bridge_out_array(hooks, r), False)
                  for r in result]
    if len(result) != len(wanted):
        raise RuntimeError("from_torch(): torch returned %d gradients for %d inputs in %s"
                           % (len(result), len(wanted), node.name()))
    out = [None] * n
    for k in range(len(wanted)):
        i = wanted[k]
        if i < _num_edges(node) and _edge_node_at(node, i) is not None:
            out[i] = result[k]
    return tuple(out)


# -- pyad inside the other framework (to_torch): the per-call work in the engine --------

cdef inline Variable _bridge_in_view(_BridgeHooks hooks, object tensor):
    # A plain Variable sharing a tensor's memory (detached first if it requires grad).
    if tensor.requires_grad:
        tensor = hooks.detach(tensor)
    return _plain(_bridge_out_array(hooks, tensor), False)


cdef inline object _bridge_view_of(_BridgeHooks hooks, Variable v):
    # The other framework's zero-copy view of a Variable (hooks.view for what
    # from_numpy does not take as it is).
    cdef object data = v._data
    if _layout_of(data) == 0:
        try:
            return hooks.from_numpy(data)
        except (TypeError, ValueError):
            pass
    return hooks.view(v)


def _bridge_views(_BridgeHooks hooks, tuple outputs):
    """The other framework's zero-copy views of Variables (a tuple, None kept)."""
    cdef Py_ssize_t j, m = len(outputs)
    cdef list views = [None] * m
    for j in range(m):
        o = outputs[j]
        if o is not None:
            views[j] = _bridge_view_of(hooks, <Variable?>o)
    return tuple(views)


def _bridge_pyad_call(_BridgeHooks hooks, object fn, tuple args, bint record, dict kwargs,
                      str name):
    """Run the pyad function ``fn`` of a ``to_torch`` call: the tensors in ``args``
    enter as Variables sharing their memory (with ``record``, those requiring grad as
    float leaves requiring grad), under pyad's grad mode ``record``. Returns (the
    Variables made per argument, None for the others), (the outputs), and whether
    ``fn`` returned a single Variable."""
    cdef Py_ssize_t i, n = len(args)
    cdef list p_args = list(args)
    cdef list p_inputs = [None] * n
    cdef Variable v
    cdef object tensor_type = hooks.tensor_type
    cdef bint previous
    for i in range(n):
        a = args[i]
        if isinstance(a, tensor_type):
            v = _bridge_in_view(hooks, a)
            if record and a.requires_grad and _dtype_kind(v._data) == b"f":
                v._requires_grad = True
            p_inputs[i] = p_args[i] = v
    previous = not pyad_get_grad_disabled()
    pyad_set_grad_disabled(not record)
    try:
        outputs = fn(*p_args, **kwargs)
    finally:
        pyad_set_grad_disabled(not previous)
    if type(outputs) is Variable:
        return p_inputs, (outputs,), True
    cdef bint single = not isinstance(outputs, (tuple, list))
    outputs = (outputs,) if single else tuple(outputs)
    for o in outputs:
        if not isinstance(o, Variable):
            raise TypeError("to_torch(): the function %s must return a Variable or a tuple "
                            "of them, got %s" % (name, type(o).__name__))
    return p_inputs, outputs, single


def _bridge_pyad_vjp(_BridgeHooks hooks, list inputs, tuple outputs, tuple grads):
    """The first-order backward of a ``to_torch`` call (the other framework's grad mode
    off): pyad's VJP of ``outputs`` w.r.t. the ``inputs`` requiring grad, on views of
    the incoming gradients, under pyad's grad mode on, nothing recorded; the results as
    the other framework's views, one per input (None where none), after two Nones for
    the Function's ``compute`` and ``kwargs`` arguments."""
    cdef Py_ssize_t i, j, k, n = len(inputs), m = min(len(outputs), len(grads))
    cdef list wanted = [], xs = [], os = [], gs = []
    cdef list result = [None] * (n + 2)
    for i in range(n):
        v = inputs[i]
        if v is not None and _requires_grad_now(<Variable?>v):
            wanted.append(i)
            xs.append(v)
    for j in range(m):
        o = outputs[j]
        if grads[j] is not None and _requires_grad_now(<Variable?>o):
            os.append(o)
            gs.append(grads[j])
    if not wanted or not os:
        return tuple(result)
    for k in range(len(gs)):
        gs[k] = _bridge_in_view(hooks, gs[k])
    cdef bint previous = not pyad_get_grad_disabled()
    pyad_set_grad_disabled(False)
    try:
        vjps = grad(os, xs, gs, retain_graph=True, create_graph=False, allow_unused=True,
                    materialize_grads=False)
    finally:
        pyad_set_grad_disabled(not previous)
    if len(vjps) != len(wanted):
        raise RuntimeError("to_torch(): pyad returned %d gradients for %d inputs"
                           % (len(vjps), len(wanted)))
    for k in range(len(wanted)):
        g = vjps[k]
        if g is not None:
            result[<Py_ssize_t>wanted[k] + 2] = _bridge_view_of(hooks, <Variable?>g)
    return tuple(result)
