# Custom Functions (extending autograd). A Function's ctx *is* its backward node, as in torch:
# built-in ops and user Functions share one node mechanism and one engine.


cdef class FunctionNode(Node):
    """The node (and ``ctx``) of a custom Function application.

    In ``forward(ctx, ...)``: ``ctx.save_for_backward(*variables)``,
    ``ctx.mark_dirty(*inputs)``, ``ctx.mark_non_differentiable(*outputs)``,
    ``ctx.set_materialize_grads(bool)`` and any attribute. In ``backward(ctx, ...)``:
    ``ctx.saved_tensors`` and ``ctx.needs_input_grad``.
    """
    cdef tuple _to_save
    cdef list _saved
    cdef list _saved_originals        # per saved entry: the Variable itself when it is
                                      # not an output (saved_tensors gives it back, as
                                      # torch), else None
    cdef tuple _dirty
    cdef tuple _non_differentiable
    cdef bint _materialize_grads
    cdef tuple _input_meta            # per forward argument: (shape, dtype, device) or None
    cdef public tuple needs_input_grad
    cdef object _function_class
    cdef bint _legacy                 # an instance-style Function (forward(self, ...))
    cdef bint _saved_accessed         # saved_tensors was read under
                                      # clear_saved_tensors_on_access (then released)

    def __cinit__(self):
        self._materialize_grads = True

    def save_for_backward(self, *tensors):
        """Keep Variables (or None) for backward; read them back with ``saved_tensors``."""
        for t in tensors:
            if self._legacy:
                break                 # legacy Functions save arrays (mapped after forward)
            if t is not None and not isinstance(t, Variable):
                raise TypeError("save_for_backward can only save variables, but argument %d "
                                "is not a Variable (got %s); store other objects as ctx "
                                "attributes" % (tensors.index(t), type(t).__name__))
        self._to_save = tensors

    def mark_dirty(self, *args):
        """Declare inputs that forward modified in place."""
        self._dirty = args

    def mark_non_differentiable(self, *args):
        """Declare outputs that have no gradient (they arrive as zeros in backward)."""
        self._non_differentiable = args

    def set_materialize_grads(self, value):
        """With False, backward receives None (not zeros) for outputs without gradient."""
        self._materialize_grads = bool(value)

    @property
    def saved_tensors(self):
        """The Variables given to ``save_for_backward``, checked against in-place changes."""
        if (not self._legacy and self._function_class is not None
                and getattr(self._function_class, "clear_saved_tensors_on_access", False)):
            # torch: the saved Variables are handed over and released at the first
            # access, so backward can free them as soon as it drops its references
            if self._saved_accessed:
                raise RuntimeError(
                    "saved_tensors(): saved_tensors can only be accessed once when "
                    "clear_saved_tensors_on_access=True is set on the Function %s. Either "
                    "access saved_tensors only once, or set "
                    "clear_saved_tensors_on_access=False." % self.name())
            saved = self._saved_variables()
            self._saved_accessed = True
            self._release_saved()
            return saved
        saved = self._saved_variables()
        if self._legacy:
            # The old API: saved_tensors are the arrays, saved_variables the Variables.
            return tuple(None if v is None or not isinstance(v, Variable)
                         else (<Variable>v)._data for v in saved)
        return saved

    def _saved_variables(self):
        if self._saved is None:
            if self._released:
                raise _freed_error(self)
            return self._to_save if self._to_save is not None else ()
        cdef list out = []
        for i, s in enumerate(self._saved):
            if s is None:
                out.append(None)
                continue
            v = (<SavedVariable>s).unpack(self)          # (checks the version)
            original = self._saved_originals[i]
            # torch gives back the very object saved, unless it is an output of this
            # node (saved without its history, no cycle) or a pack hook replaced it
            out.append(original if original is not None and not (<SavedVariable>s)._hooked
                       else v)
        return tuple(out)

    @property
    def saved_variables(self):
        if self._legacy:
            return self._saved_variables()
        warnings.warn("'saved_variables' is deprecated; use 'saved_tensors'",
                      DeprecationWarning, stacklevel=2)
        return self.saved_tensors

    cdef void _release_saved(self) noexcept:
        self._released = True
        if self._saved is not None:
            for s in self._saved:
                if s is not None:
                    (<SavedVariable>s).release()
            self._saved = None
        self._saved_originals = None

    cdef tuple _backward(self, tuple grads):
        cdef Py_ssize_t n = _num_edges(self)
        cdef Py_ssize_t i
        if self._legacy:
            # Instance-style Functions work on arrays, without recording (once differentiable).
            arrays = tuple(None if g is None else (<Variable>g)._data for g in grads)
            previous = pyad_get_grad_disabled()
            pyad_set_grad_disabled(1)
            try:
                result = (<object>self).backward(*arrays)
            finally:
                pyad_set_grad_disabled(previous)
        else:
            result = self._function_class._resolve_backward()(
                self, *[_writable_grad(g) for g in grads])
        if not isinstance(result, tuple):
            result = (result,)
        if len(result) != n:
            if len(result) > n and builtins.all(r is None for r in result[n:]):
                result = result[:n]
            else:
                raise RuntimeError("function %s returned an incorrect number of gradients "
                                   "(expected %d, got %d)" % (self.name(), n, len(result)))
        out = []
        raw = False
        for i in range(n):
            g = result[i]
            if g is not None and self._input_meta[i] is None:
                raise RuntimeError("function %s returned a gradient different than None at "
                                   "position %d, but the corresponding forward input was not "
                                   "a Variable" % (self.name(), i + 1))
            if g is None or _edge_at(self, i) is None:
                out.append(None)
                continue
            raw = raw or not isinstance(g, Variable)
            out.append(_validate_function_grad(self, i, g))
        if self._legacy and _grad_enabled():
            out = list(_delayed_error(
                tuple(out), grads,
                "legacy Function %s is once-differentiable (its backward works on arrays): "
                "trying to differentiate twice a function that was marked with "
                "@once_differentiable; write it as a new-style Function (static forward "
                "and backward taking ctx) to differentiate its gradient again"
                % self.name(), self))
        elif raw and _grad_enabled():
            # A backward that returned arrays cannot be differentiated again: make a
            # second differentiation fail loudly instead of silently dropping terms.
            out = list(_delayed_error(
                tuple(out), grads,
                "function %s returned arrays (not Variables) from backward, so its "
                "gradient cannot be differentiated again; write backward with pyad ops "
                "or mark it @once_differentiable" % self.name(), self))
        return tuple(out)


cdef object _writable_grad(object g):
    # A custom backward may modify its incoming gradient in place (torch's
    # test_anomaly_detect_nan): a read-only one (a shared constant, a read-only
    # input's memory) is handed over as a copy. A broadcast one (zero strides) stays
    # as it is: torch refuses writes to those too.
    if not isinstance(g, Variable) or (<Variable>g)._grad_fn is not None:
        return g
    d = (<Variable>g)._data
    if _is_writeable(d):
        return g
    for k in range(d.ndim):
        if d.strides[k] == 0 and d.shape[k] > 1:
            return g
    return _wrap(d.copy())


cdef Variable _validate_function_grad(FunctionNode node, Py_ssize_t i, object g):
    cdef Variable v
    shape, dtype, dev = node._input_meta[i]
    if isinstance(g, Variable):
        v = <Variable>g
    elif type(g) is _NDARRAY or (cupy is not None and isinstance(g, cupy.ndarray)):
        v = _wrap(g)
    elif isinstance(g, (int, float)):
        # A number stands for a gradient filled with it, on the input's device.
        v = _wrap(_full_on_device(shape, g, dtype, dev))
    else:
        raise TypeError("function %s returned a gradient of type %s at index %d, expected a "
                        "Variable, an array or None" % (node.name(), type(g).__name__, i))
    if _device_of(v._data) != dev:
        raise RuntimeError("function %s returned a gradient on %s at index %d, expected %s"
                           % (node.name(), _device_of(v._data), i, dev))
    if v._data.shape != shape:
        try:
            numpy.broadcast_shapes(shape, v._data.shape)
            ok = len(v._data.shape) >= len(shape) and numpy.broadcast_shapes(
                shape, v._data.shape) == v._data.shape
        except ValueError:
            ok = False
        if not ok:
            raise RuntimeError("function %s returned an invalid gradient at index %d - got %s "
                               "but expected shape compatible with %s"
                               % (node.name(), i, _shape_str(v._data.shape), _shape_str(shape)))
        v = sum_to(v, shape)
    if v._data.dtype != dtype:
        v = _convert(v, None, dtype, False)
    return v


def _bound_inputs(cls, args, kwargs):
    # setup_context's `inputs`: the positional arguments of forward with its defaults
    # filled in (torch binds them to forward's signature the same way).
    try:
        signature = inspect.signature(cls.forward)
        bound = signature.bind(*args, **kwargs)
    except (TypeError, ValueError):
        return args
    bound.apply_defaults()
    return tuple(bound.args) + tuple(bound.kwargs.values())


def _function_apply(cls, node_cls, args, kwargs, bint separate_setup_context=False,
                    FunctionNode legacy=None):
    """Run ``cls.forward`` without recording, then record one node for the outputs.

    ``separate_setup_context``: torch 2 style, ``forward(*args)`` without ctx followed by
    ``setup_context(ctx, inputs, output)``. ``legacy``: an instance-style Function, its
    own node, whose ``forward(self, *arrays)`` takes and returns arrays.

    The steps: collect the inputs (_collect_inputs), run forward (_run_forward), wrap
    the outputs (_output_list, _check_dirty), then either leave them unrecorded
    (_finish_unrecorded) or attach them to the node (_record_outputs) and save what
    forward asked to save (_save_for_backward).
    """
    if _profiling and _profile_enter():
        return _profiled_named(cls.__name__, _function_apply,
                               (cls, node_cls, args, kwargs, separate_setup_context, legacy))
    cdef FunctionNode node = node_cls() if legacy is None else legacy
    node._function_class = cls
    if type(args) is not tuple:
        args = tuple(args)
    cdef int flags = _collect_inputs(node, args)
    cdef bint any_volatile = flags & 1
    cdef bint record = (flags & 2) != 0 and _grad_enabled() and not any_volatile
    outputs = _run_forward(cls, node, legacy, args, kwargs, separate_setup_context, record)
    is_tuple = isinstance(outputs, tuple)
    cdef list outs = _output_list(outputs)
    dirty = node._dirty or ()
    cdef Py_ssize_t n_variables = _check_dirty(node, outs, args, dirty)
    if record:
        _record_outputs(node, outs, args, dirty, n_variables)
    else:
        _finish_unrecorded(node, outs, args, dirty, any_volatile, n_variables)
    return tuple(outs) if is_tuple else outs[0]


cdef int _collect_inputs(FunctionNode node, tuple args) except -1:
    # The node's needs_input_grad and each input's (shape, dtype, device); returns
    # 1 if an input is volatile, plus 2 if one requires grad.
    cdef Variable v
    cdef int flags = 0
    needs = []
    meta = []
    for a in args:
        if isinstance(a, Variable):
            v = <Variable>a
            needs.append(_requires_grad_now(v))
            meta.append((v._data.shape, v._data.dtype, _device_of(v._data)))
            if v._volatile:
                flags |= 1
            if v._requires_grad:
                flags |= 2
        else:
            needs.append(False)
            meta.append(None)
    node.needs_input_grad = tuple(needs)
    node._input_meta = tuple(meta)
    return flags


cdef object _run_forward(object cls, FunctionNode node, FunctionNode legacy, tuple args,
                         object kwargs, bint separate_setup_context, bint record):
    # forward (and setup_context) with grad mode off; what forward returned.
    if legacy is not None:
        node._legacy = True
        setattr(legacy, "num_inputs", len(args))
        setattr(legacy, "requires_grad", record)
    previous = pyad_get_grad_disabled()
    pyad_set_grad_disabled(1)
    try:
        if legacy is not None:
            outputs = (<object>legacy).forward(
                *[(<Variable>a)._data if isinstance(a, Variable) else a for a in args])
            return _legacy_outputs(node, args, outputs)
        if separate_setup_context:
            outputs = cls.forward(*args, **kwargs)
            cls.setup_context(node, _bound_inputs(cls, args, kwargs), outputs)
            return outputs
        return cls.forward(node, *args, **kwargs)
    finally:
        pyad_set_grad_disabled(previous)


cdef list _output_list(object outputs):
    # The outputs as a list, arrays wrapped as Variables.
    outs = list(outputs) if isinstance(outputs, tuple) else [outputs]
    for i in range(len(outs)):
        if not isinstance(outs[i], Variable) and outs[i] is not None:
            if type(outs[i]) is _NDARRAY or (cupy is not None and
                                                   isinstance(outs[i], cupy.ndarray)):
                outs[i] = _wrap(outs[i])
    return outs


cdef Py_ssize_t _check_dirty(FunctionNode node, list outs, tuple args,
                             object dirty) except -1:
    # mark_dirty's rules (torch's messages); returns how many outputs are Variables.
    for d in dirty:
        if not builtins.any(d is x for x in outs):
            # (torch's wording, which tests match)
            raise RuntimeError("Some elements marked as dirty during the forward method were "
                               "not returned as output. The inputs that are modified inplace "
                               "must all be outputs of the Function.")
        if not builtins.any(d is a for a in args):
            if isinstance(d, Variable) and (<Variable>d)._is_view:
                raise RuntimeError("ctx.mark_dirty() received a tensor that was not an input. "
                                   "Only input Tensors that have been mutated should be passed "
                                   "to ctx.mark_dirty() (%s)." % node.name())
            warnings.warn("ctx.mark_dirty() received a tensor that was not an input. Only "
                          "input Tensors that have been mutated should be passed to "
                          "ctx.mark_dirty() (%s)." % node.name(), UserWarning, stacklevel=3)
    cdef Py_ssize_t n_variables = builtins.sum([1 for x in outs if isinstance(x, Variable)])
    if n_variables > 1:
        for d in dirty:
            if isinstance(d, Variable) and (<Variable>d)._view_fn is not None and \
                    _grad_enabled() and builtins.any(isinstance(a, Variable) and
                                                     (<Variable>a)._requires_grad for a in args):
                raise RuntimeError(
                    "If your Function modifies inplace an input that is a view of another "
                    "Tensor, your Function cannot return more than one Tensor. This is not "
                    "supported by the current autograd engine. You should either make sure "
                    "the input is not a view (using .clone() for example) or make your "
                    "Function only return one Tensor (potentially splitting it into two "
                    "Functions: one doing the inplace that returns a single Tensor and a "
                    "second one that does the other operations). (%s)" % node.name())
    return n_variables


cdef void _finish_unrecorded(FunctionNode node, list outs, tuple args, object dirty,
                             bint any_volatile, Py_ssize_t n_variables) except *:
    # Nothing is recorded: outputs stay plain (volatile if an input was), and a view
    # made in forward is still marked as a custom Function's view.
    cdef Variable o
    for o in [x for x in outs if isinstance(x, Variable)]:
        if any_volatile:
            o._volatile = True
        if o._is_view and _grad_enabled() and not builtins.any(o is d for d in dirty) \
                and not builtins.any(o is a for a in args):
            # A view made in forward is a custom Function's view (torch's
            # CreationMeta) even when nothing required grad: modifying it in place
            # with a value that requires grad is refused.
            o._view_no_grad = False
            o._view_creation = (_VIEW_CUSTOM_MULTI_OUTPUT if n_variables > 1
                                else _VIEW_CUSTOM_FUNCTION)
            o._view_version = _vc(o).version
    node._to_save = node._dirty = node._non_differentiable = None


cdef void _record_outputs(FunctionNode node, list outs, tuple args, object dirty,
                          Py_ssize_t n_variables) except *:
    # Attach each output to the node (outs is updated in place: an output may be
    # replaced by its own Variable), then save what forward asked to save.
    cdef Py_ssize_t i, j
    non_diff = node._non_differentiable or ()
    # The node must not keep its outputs: output -> grad_fn -> node -> output would be
    # a reference cycle.
    node._dirty = node._non_differentiable = None
    edges = tuple(_edge(<Variable>a) if isinstance(a, Variable) else _NO_EDGE for a in args)
    _init_node(node, edges, len(outs))
    # A Variable returned twice is one object, attached to its last slot (torch).
    cdef list last = list(range(len(outs)))
    for i in range(len(outs)):
        for j in range(i + 1, len(outs)):
            if outs[j] is outs[i] and isinstance(outs[i], Variable):
                last[i] = j
    cdef list returned = list(outs)
    out_meta = []
    for i in range(len(outs)):
        if not isinstance(outs[i], Variable):
            out_meta.append(None)            # not differentiable: backward gets None
            continue
        out_meta.append(((<Variable>outs[i])._data.shape, (<Variable>outs[i])._data.dtype,
                         _xp_of((<Variable>outs[i])._data)))
        if last[i] == i:
            _attach_output(node, outs, i, args, dirty, non_diff, n_variables, out_meta)
    for i in range(len(outs)):
        outs[i] = outs[last[i]]
    if node._materialize_grads:
        _extra(node).out_meta = tuple(out_meta)
    if node._to_save is not None:
        node._saved = _save_for_backward(node, args, outs, returned, last)
        node._to_save = None


cdef void _attach_output(FunctionNode node, list outs, Py_ssize_t i, tuple args,
                         object dirty, object non_diff, Py_ssize_t n_variables,
                         list out_meta) except *:
    # Give output i its history: node's output i, unless it is not differentiable.
    cdef Variable o = <Variable>outs[i]
    x = o
    if builtins.any(o is d for d in dirty):
        if o._is_view and o._view_creation != _VIEW_DEFAULT:
            # torch's rebase_history: a view of a kind that may not be changed in place
            # (an output of a multi-output view op, a no_grad view, ...) is reported
            # before the view-of-a-leaf check
            raise RuntimeError(_view_creation_error(o))
        _check_inplace_allowed(o, None, "mark_dirty in %s" % node.name())
        _bump_version(o)
        if o._view_fn is not None:
            # In place on a view: recorded on its base (torch's CopySlices), and the
            # view's history rebuilt from the base, as for the built-in ops.
            result = _wrap(o._data)
            result._grad_fn = node
            result._output_nr = i
            result._requires_grad = True
            _write_back_view(o, result)
            return
    elif builtins.any(o is a for a in args) or o._grad_fn is not None or o._requires_grad:
        # An input (or any Variable with history) returned as is: give the output its
        # own Variable sharing the data, so the input's history is left intact.
        o = _output_alias(o, n_variables)
        outs[i] = o
    elif o._is_view:
        # A view made inside forward: its history is this node's, and modifying it
        # in place later (or its base, then using it) is refused (torch's
        # CreationMeta::IN_CUSTOM_FUNCTION, MULTI_OUTPUT_NODE with several outputs).
        o._view_no_grad = False
        o._view_creation = (_VIEW_CUSTOM_MULTI_OUTPUT if n_variables > 1
                            else _VIEW_CUSTOM_FUNCTION)
    if builtins.any(x is d for d in non_diff) or not _is_float_dtype(o._data.dtype):
        o._requires_grad = False
        o._grad_fn = None
        if not getattr(node, "_materialize_non_diff_grads", True):
            out_meta[i] = None               # backward gets None for it, not zeros
        return
    _set_history(o, node, i)
    if o._view_fn is not None:
        o._view_version = _vc(o).version    # its history is now this node's


cdef Variable _output_alias(Variable o, Py_ssize_t n_variables):
    # A new Variable sharing o's data: a view of the input made by a custom Function
    # (torch's).
    cdef Variable alias = Variable.__new__(Variable)
    alias._data = o._data
    alias._version_counter = _vc(o)
    alias._is_view = True
    alias._view_base = o._view_base if o._view_base is not None else o
    alias._view_creation = (_VIEW_CUSTOM_MULTI_OUTPUT if n_variables > 1
                            else _VIEW_CUSTOM_FUNCTION)
    if o._view_fn is not None or not o._is_view:
        # the identity view of the input, so that a later in-place change of the input
        # is seen (and refused) when the output is used
        identity = _ViewFn.__new__(_ViewFn)
        (<_ViewFn>identity).kind = 0
        (<_ViewFn>identity).arg = o._data.shape
        (<_ViewFn>identity).parent = o._view_fn
        alias._view_fn = identity
    return alias


cdef list _save_for_backward(FunctionNode node, tuple args, list outs, list returned,
                             list last):
    # What ctx.save_for_backward named, as SavedVariables. An output (also one
    # modified in place and returned) is saved as this node's output: no reference
    # from the node back to its own output's history, so no cycle.
    cdef Py_ssize_t i, index, out_index
    saved = []
    originals = node._saved_originals = []
    for t in node._to_save:
        originals.append(None)
        if t is None:
            saved.append(None)
            continue
        index = -1
        for i in range(len(args)):
            if args[i] is t:
                index = i
                break
        out_index = -1
        for i in range(len(returned)):
            if returned[i] is t:
                out_index = last[i]
        if out_index >= 0 and (<Variable>outs[out_index])._requires_grad:
            s_out = _save(<Variable>outs[out_index], True, index)
            (<SavedVariable>s_out)._output_nr = out_index
            saved.append(s_out)
        else:
            saved.append(_save(<Variable>t, False, index))
            originals[len(originals) - 1] = t
    return saved


cdef class DelayedErrorBackward(Node):
    cdef str message
    cdef object error               # the exception class raised (RuntimeError if None)

    cdef tuple _backward(self, tuple grads):
        raise (RuntimeError if self.error is None else self.error)(self.message)


def _delayed_error(outputs, inputs, str message, Node node_inputs_of=None, error=None):
    """Give ``outputs`` a node connected to ``inputs`` whose backward raises ``message``.

    Used by once_differentiable: a second differentiation through such a backward
    reaches this node and fails loudly instead of silently returning wrong zeros.
    """
    cdef DelayedErrorBackward node = DelayedErrorBackward.__new__(DelayedErrorBackward)
    cdef Variable out
    node.message = message
    node.error = error
    edges = tuple(_edge(<Variable>v) for v in inputs
                  if isinstance(v, Variable) and (<Variable>v)._requires_grad)
    if node_inputs_of is not None:
        # Also reach the forward inputs of the Function, so differentiating the
        # gradient w.r.t. them hits the error too.
        edges += tuple(e for e in _edge_entries(node_inputs_of) if e is not None)
    _init_node(node, edges, len(outputs))
    result = []
    for i, o in enumerate(outputs):
        if o is None:
            result.append(None)
            continue
        data = (<Variable>o)._data if isinstance(o, Variable) else _to_array(o, None, "backward")
        out = _wrap(data)
        if _is_float_dtype(data.dtype):
            out._grad_fn = node
            out._output_nr = i
            out._requires_grad = True
        result.append(out)
    return tuple(result)


def _legacy_outputs(FunctionNode node, tuple args, object outputs):
    # A legacy forward returned arrays and named arrays in save_for_backward, mark_dirty
    # and mark_non_differentiable: map each back to its Variable (an input whose data it
    # is, else the output wrapping it), so the node machinery sees Variables.
    is_tuple = isinstance(outputs, tuple)
    cdef list outs = list(outputs) if is_tuple else [outputs]
    cdef Py_ssize_t i
    for i in range(len(outs)):
        o = outs[i]
        if isinstance(o, Variable) or o is None:
            continue
        if isinstance(o, numpy.generic):
            o = numpy.asarray(o)          # a NumPy reduction's result: a 0-d output
        if not (type(o) is _NDARRAY or (cupy is not None and isinstance(o, cupy.ndarray))):
            raise TypeError("legacy Function %s: forward must return arrays, got %s at "
                            "index %d" % (node.name(), type(o).__name__, i))
        for a in args:
            if isinstance(a, Variable) and (<Variable>a)._data is o:
                o = a
                break
        else:
            o = _wrap(o)
        outs[i] = o

    def variable_of(x, bint inputs_only, str what):
        if x is None or isinstance(x, Variable):
            return x
        for a in args:
            if isinstance(a, Variable) and (<Variable>a)._data is x:
                return a
        if not inputs_only:
            for o in outs:
                if isinstance(o, Variable) and (<Variable>o)._data is x:
                    return o
            if type(x) is _NDARRAY or (cupy is not None and isinstance(x, cupy.ndarray)):
                return _wrap(x)
        raise RuntimeError("legacy Function %s: %s received an object that is not %s"
                           % (node.name(), what, "an input array" if inputs_only
                              else "an array"))

    if node._dirty:
        node._dirty = tuple(variable_of(d, True, "mark_dirty") for d in node._dirty)
    if node._non_differentiable:
        node._non_differentiable = tuple(variable_of(d, False, "mark_non_differentiable")
                                         for d in node._non_differentiable)
    if node._to_save is not None:
        node._to_save = tuple(variable_of(t, False, "save_for_backward")
                              for t in node._to_save)
    setattr(node, "num_outputs", len(outs))
    return tuple(outs) if is_tuple else outs[0]
