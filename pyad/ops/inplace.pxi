# In-place ops. Each bumps the version counter shared by a Variable and its views.
#
# With autograd recording, an in-place op on x is recorded as the out-of-place op on
# a snapshot of x's old value; the result is written back into x's memory and x's
# history moves onto the new node, so gradients stay correct and saved copies of
# the old x are caught by the version check.


cdef inline Variable _inplace_target(object input, str what):
    # The Variable an in-place op writes into (typed parameters would give Cython's
    # message, which names no op).
    if isinstance(input, Variable):
        if (<Variable>input)._is_inference and not pyad_get_inference():
            raise RuntimeError(
                "%s(): Inplace update to inference tensor outside InferenceMode is not "
                "allowed.You can make a clone to get a normal Variable before doing inplace "
                "update.See https://github.com/pytorch/rfcs/pull/17 for more details." % what)
        return <Variable>input
    raise TypeError("%s(): argument 'input' must be a Variable, not %s"
                    % (what, type(input).__name__))


cdef void _check_inplace_allowed(Variable x, object other, str what) except *:
    if x._requires_grad and x._grad_fn is None:
        raise RuntimeError("%s(): a leaf Variable that requires grad is being used in an "
                           "in-place operation. Wrap it in pyad.no_grad() or use the "
                           "out-of-place op." % what)
    if x._is_view and x._view_base is not None and (
            x._view_fn is None or (<_ViewFn>x._view_fn).broadcasts()) and (
            x._view_base._requires_grad or _operand_requires_grad(other)):
        raise RuntimeError("%s(): in-place modification of this view (made by broadcasting "
                           "or detach) of a Variable that is part of an autograd graph is "
                           "not supported; use the out-of-place op (or modify a .clone())."
                           % what)
    if x._is_view and x._view_base is not None and x._view_base._requires_grad and \
            x._view_base._grad_fn is None:
        raise RuntimeError("%s(): a view of a leaf Variable that requires grad is being used "
                           "in an in-place operation." % what)


cdef Variable _write_back(Variable x, Variable old, Variable result, str what):
    # Copy `result` into x's memory and give x the result's history.
    if result._data.shape != x._data.shape:
        raise RuntimeError("%s(): output with shape %s doesn't match the broadcast shape %s"
                           % (what, _shape_str(x._data.shape), _shape_str(result._data.shape)))
    try:
        _xp_of(x._data).copyto(x._data, result._data, casting="same_kind")
    except (TypeError, ValueError) as exc:
        # torch casts within a category (int16 into uint8 wraps); across, it refuses
        if not _torch_can_cast(_dtype(result._data), _dtype(x._data)):
            raise RuntimeError("%s(): result type %s can't be cast to the desired output "
                               "type %s" % (what, _torch_dtype_name(_dtype(result._data)),
                                            _torch_dtype_name(_dtype(x._data)))) from None
        _xp_of(x._data).copyto(x._data, result._data, casting="unsafe")
    if x._view_fn is not None:
        return _write_back_view(x, result)
    _bump_version(x)
    if result._grad_fn is not None:
        _set_history(x, result._grad_fn, result._output_nr)
        # An op that saved its output (exp_, tanh_, ...) now saves x itself, as torch
        # does: no second copy, and a later in-place change to x is caught by backward.
        if isinstance(result._grad_fn, _UnaryOutNode) and \
                (<_UnaryOutNode>result._grad_fn)._out is not None:
            _stamp_out(<_UnaryOutNode>result._grad_fn, x._data, _vc(x))
        elif isinstance(result._grad_fn, _UnaryNode):
            saved = (<_UnaryNode>result._grad_fn).saved
            if saved is not None and saved._is_output and not saved._hooked:
                saved._data = x._data
                saved._version_counter = _vc(x)
                _sv_stamp(saved)
    return x


cdef Variable _snapshot(Variable x):
    # x's current value and history, in memory of its own. For a view: the same view of
    # a snapshot of its base, so the op is recorded against the base's history.
    if x._view_fn is not None:
        return (<_ViewFn>x._view_fn).apply(_snapshot_plain(x._view_base))
    return _snapshot_plain(x)


cdef Variable _snapshot_plain(Variable x):
    cdef Variable old = _wrap(x._data.copy())
    old._grad_fn = x._grad_fn
    old._output_nr = x._output_nr
    old._requires_grad = x._requires_grad
    if x._requires_grad and x._grad_fn is None:
        old._accumulator = x._get_accumulator()
    return old


cdef class CopySlicesBackward(Node):
    # new_base = old_base with new_base[view] = value: the old base gets the gradient
    # outside the view, the value gets the view of the gradient.
    cdef _ViewFn view_fn
    cdef object keep_mask

    cdef tuple _backward(self, tuple grads):
        g = _gv(grads[0], _grad_enabled())
        g_base = g_value = None
        if self._needs_input_grad(0):
            g_base = _grad(_v_keep(g, self.keep_mask))
        if self._needs_input_grad(1):
            g_value = _grad(_v_view(self.view_fn, g))
        return (g_base, g_value)


cdef Variable _write_back_view(Variable view, Variable result):
    # The values are already in memory (written through the view); record
    # base = copy_slices(old base, view, result) and rebuild the view from it. The
    # base's history is still the old one here: only its memory has changed.
    cdef Variable base = view._view_base
    cdef _ViewFn fn = <_ViewFn>view._view_fn
    cdef CopySlicesBackward node
    cdef Variable new_view
    _bump_version(view)
    if (base._requires_grad or result._requires_grad) and _grad_enabled():
        xp = _xp_of(base._data)
        mask = xp.ones(base._data.shape, dtype=base._data.dtype)
        fn.apply(_wrap(mask))._data[...] = 0
        node = CopySlicesBackward.__new__(CopySlicesBackward)
        node.view_fn = fn
        node.keep_mask = mask
        _init_node(node, (_edge(base), _edge(result)), 1)
        _set_history(base, node, 0)
    view._view_version = view._version_counter.version - 1   # stale: rebuilt just below
    _refresh_view(view)
    return view


cdef inline bint _inplace_records(Variable x, object other) except -1:
    if not _grad_enabled():
        return False
    if x._is_view and x._view_creation != _VIEW_DEFAULT and (
            _requires_grad_now(x) or _operand_requires_grad(other)):
        raise RuntimeError(_view_creation_error(x))
    if x._view_no_grad:
        if x._view_creation == _VIEW_INFERENCE_MODE:
            raise RuntimeError(
                "A view was created in inference mode and is being modified inplace in "
                "normal mode. Given that this use case is ambiguous and error-prone, it is "
                "forbidden. You can clarify your code by moving both the view and the "
                "inplace either both inside the inference_mode block (if you don't want the "
                "inplace to be tracked) or both outside (if you want the inplace to be "
                "tracked).")
        raise RuntimeError(
            "A view was created in no_grad mode and is being modified inplace with grad "
            "mode enabled. Given that this use case is ambiguous and error-prone, it is "
            "forbidden. You can clarify your code by moving both the view and the inplace "
            "either both inside the no_grad block (if you don't want the inplace to be "
            "tracked) or both outside (if you want the inplace to be tracked).")
    return _requires_grad_now(x) or _operand_requires_grad(other)


cdef Variable _inplace_binary(Variable x, object other, object ufunc, int which, str what):
    cdef Variable old, result
    _refuse_overlap_with(x._data, other, what)
    if _inplace_records(x, other):
        _check_inplace_allowed(x, other, what)
        old = _snapshot(x)
        if which == 0:
            result = add(old, other)
        elif which == 1:
            result = sub(old, other)
        elif which == 2:
            result = mul(old, other)
        else:
            result = div(old, other)
        return _write_back(x, old, result, what)
    target = x._data
    if not _is_writeable(target):
        # Through an expanded Variable, where no two written elements share memory
        # (torch: g = go.expand(n); g[0] /= 0)
        target = _writable_broadcast(x)
        if target is None or _has_internal_overlap(target):
            raise _unwritable_error(x, what)
    od = _operand_data(other, what)
    if which <= 1 and _dtype_kind(target) == b'c':
        # torch adds alpha * other, alpha a complex +-1 (inf + 1j gives inf + nanj)
        od = _add_scaled_data(_xp_of(target).zeros((), dtype=target.dtype), od,
                              -1 if which else 1)
        ufunc = _np_add
    try:
        ufunc(target, od, out=target, casting="same_kind")
    except ValueError:
        raise _broadcast_error(what, x, other) from None
    except (TypeError, OverflowError) as exc:
        # torch wraps an integer number into self's dtype (uint8 += -3) and casts a
        # result within its category (uint8 += int8, computed in int16)
        rt = _torch_result_dtype(target, od)
        if not _torch_can_cast(rt, _dtype(target)):
            raise RuntimeError("%s(): result type %s can't be cast to the desired output "
                               "type %s" % (what, _torch_dtype_name(rt),
                                            _torch_dtype_name(_dtype(target)))) from None
        try:
            ufunc(target, _wrapped_int(od, rt) if _category(rt) == 1 else od, out=target,
                  dtype=rt, casting="unsafe")
        except (TypeError, OverflowError) as exc2:
            raise RuntimeError("%s(): %s" % (what, exc2)) from None
    _bump_version(x)
    return x


@profiled_op
cpdef Variable add_(object input, object other):
    """In-place ``input += other``.

    >>> x = Variable(numpy.zeros(2))
    >>> add_(x, 1)
    tensor([1., 1.], dtype=float64)
    >>> x._version
    1
    """
    return _inplace_binary(_inplace_target(input, "add_"), other, _np_add, 0, "add_")


@profiled_op
cpdef Variable sub_(object input, object other):
    """In-place ``input -= other``.

    >>> sub_(Variable(numpy.array([3., 4.])), 1)
    tensor([2., 3.], dtype=float64)
    """
    _refuse_bool_subtraction(input, other, "sub_")
    return _inplace_binary(_inplace_target(input, "sub_"), other, _np_subtract, 1,
                           "sub_")


@profiled_op
cpdef Variable mul_(object input, object other):
    """In-place ``input *= other``.

    >>> mul_(Variable(numpy.array([3., 4.])), 2)
    tensor([6., 8.], dtype=float64)
    """
    return _inplace_binary(_inplace_target(input, "mul_"), other, _np_multiply, 2,
                           "mul_")


@profiled_op
cpdef Variable div_(object input, object other, rounding_mode=None):
    """In-place ``input /= other`` (rounded as :func:`div` with ``rounding_mode``).

    >>> div_(Variable(numpy.array([3., 4.])), 2)
    tensor([1.5000, 2.0000], dtype=float64)
    """
    if rounding_mode is not None:
        return _inplace_apply(_inplace_target(input, "div_"), div, (other, rounding_mode),
                              {}, "div_")
    return _inplace_binary(_inplace_target(input, "div_"), other, _np_true_divide, 3,
                           "div_")


cdef Variable _inplace_fill(Variable x, object value, str what):
    # value: a number or a Variable broadcastable to x. History: the old x gets a zero
    # gradient, `value` (when a Variable) gets the gradient summed to its shape.
    cdef Variable old
    if _inplace_records(x, value):
        _check_inplace_allowed(x, value, what)
        old = _snapshot(x)
        # where(False, old, value): `value` everywhere, and a zero gradient for the old
        # values that no inf or nan in them can spoil (old * 0 + value would be nan there)
        nowhere = _plain(_xp_of(x._data).zeros((), dtype=numpy.bool_), False)
        return _write_back(x, old, where(nowhere, old, broadcast_to(value, x._data.shape)
                                         if isinstance(value, Variable) else value), what)
    target = x._data
    source = _operand_data(value, what)
    if not _is_writeable(target):
        # through an expanded view, one value written everywhere gives every element that
        # shares memory the same value, so torch allows it (zero_, fill_; not copy_)
        target = (_writable_broadcast(x) if numpy.ndim(source) == 0 and what != "copy_"
                  else None)
        if target is None:
            raise _unwritable_error(x, what)
    token = _fp_quiet_enter()       # (nan, inf or too large into an integer: silent, as torch)
    try:
        target[...] = source
    except (ValueError, OverflowError):
        if isinstance(value, int) and not isinstance(value, bool) and \
                _dtype_kind(target) == b'u' and -numpy.iinfo(target.dtype).max <= value < 0:
            # torch wraps a negative int into an unsigned dtype (uint8 fill_(-100): 156)
            target[...] = numpy.asarray(value, dtype=numpy.int64).astype(target.dtype)
        elif isinstance(value, (int, float, numpy.floating)) and not isinstance(value, bool):
            # nan or inf, or an int out of the dtype's range
            raise RuntimeError("%s(): value cannot be converted to type %s without overflow"
                               % (what, x._data.dtype)) from None
        else:
            raise _broadcast_error(what, x, value) from None
    finally:
        _fp_quiet_exit(token)
    _bump_version(x)
    return x


@profiled_op
cpdef Variable zero_(object input):
    """Fill with zeros in place.

    >>> zero_(Variable(numpy.array([3., 4.])))
    tensor([0., 0.], dtype=float64)
    """
    return _inplace_fill(_inplace_target(input, "zero_"), 0, "zero_")


@profiled_op
cpdef Variable fill_(object input, object value):
    """Fill with ``value`` in place.

    >>> fill_(Variable(numpy.array([3., 4.])), 7)
    tensor([7., 7.], dtype=float64)
    """
    _inplace_target(input, "fill_")
    if isinstance(value, Variable) and (<Variable>value)._data.ndim != 0:
        raise RuntimeError("fill_ only supports 0-dimension value tensor but got tensor with "
                           "%d dimensions." % (<Variable>value)._data.ndim)
    return _inplace_fill(_inplace_target(input, "fill_"), value, "fill_")


@profiled_op
cpdef Variable copy_(object input, object src):
    """Copy ``src`` (broadcast, cast to this dtype) into this Variable in place.

    >>> copy_(Variable(numpy.zeros((2, 2))), Variable(numpy.array([1, 2])))
    tensor([[1., 2.],
            [1., 2.]], dtype=float64)
    """
    cdef Variable x = _inplace_target(input, "copy_")
    _refuse_overlap_with(x._data, src, "copy_")
    if isinstance(src, Variable):
        if (<Variable>src)._data.dtype != x._data.dtype:
            src = _convert(<Variable>src, None, x._data.dtype, False)
        src = _convert(<Variable>src, str(x.device), None, False)
    return _inplace_fill(x, src, "copy_")


# -- in-place twins of unary ops: one factory, the same snapshot-and-write-back recipe --

# in-place forms torch refuses on complex input (their result is real)
_NO_COMPLEX_INPLACE = {"abs_": "In-place abs", "absolute_": "In-place abs",
                       "deg2rad_": "deg2rad", "rad2deg_": "rad2deg"}


cdef void _refuse_complex_inplace(Variable x, str what) except *:
    if _dtype_kind(x._data) == b'c' and what in _NO_COMPLEX_INPLACE:
        raise RuntimeError("%s(): %s is not supported for complex Variables."
                           % (what, _NO_COMPLEX_INPLACE[what]))


cdef Variable _inplace_unary(Variable x, object op, tuple args, str what):
    cdef Variable old
    _refuse_complex_inplace(x, what)
    # a binary op's other operand (atan2_, copysign_) may bring the graph
    other = args[0] if args else None
    _refuse_partial_overlap(x._data, args, what)
    try:
        if _inplace_records(x, other):
            _check_inplace_allowed(x, other, what)
            old = _snapshot(x)
            return _write_back(x, old, op(old, *args), what)
        if not _is_writeable(x._data):
            raise _unwritable_error(x, what)
        result = (<Variable>op(_wrap(x._data), *args))._data
    except _OP_ERRORS as exc:
        raise _renamed(exc, what) from None     # pow's errors, named pow_
    if not _torch_can_cast(_dtype(result), _dtype(x._data)):
        raise RuntimeError("%s(): result type %s can't be cast to the desired output type %s"
                           % (what, _torch_dtype_name(_dtype(result)),
                              _torch_dtype_name(_dtype(x._data))))
    try:
        _xp_of(x._data).copyto(x._data, result, casting="unsafe")
    except ValueError as exc:
        raise RuntimeError("%s(): %s" % (what, exc)) from None
    _bump_version(x)
    return x


def _inplace_twin(op, example_args=""):
    """Make the in-place twin ``op_`` of the out-of-place ``op`` (``exp_`` from ``exp``):
    the same snapshot-and-write-back recipe as every in-place op."""
    name = op.__name__ + "_"

    def twin(input, *args, **kwargs):
        _inplace_target(input, name)
        if kwargs:                       # round_(decimals=1); the profiler sees the op
            return _inplace_unary(input, lambda x, *a: op(x, *a, **kwargs), args, name)
        if _profiling and _profile_enter():
            return _profiled(twin, (input,) + args)
        return _inplace_unary(input, op, args, name)

    twin.__name__ = twin.__qualname__ = name
    twin.__doc__ = (
        "In-place :func:`%s`: ``input.%s(%s)`` writes the result into ``input``.\n\n"
        "    >>> x = pyad.tensor([0.25, 1.0], dtype=pyad.float64)\n"
        "    >>> expected = pyad.%s(x%s)\n"
        "    >>> numpy.array_equal(x.%s(%s).data, expected.data, equal_nan=True), x._version\n"
        "    (True, 1)\n"
        % (op.__name__, name, example_args, op.__name__,
           ", " + example_args if example_args else "", name, example_args))
    return twin


@profiled_op
def clamp_(object input, min=None, max=None):
    """In-place :func:`clamp` (bounds may be numbers or Variables).

    >>> x = Variable(numpy.array([-2., 0.5, 3.]))
    >>> clamp_(x, -1, 1)
    tensor([-1.0000,  0.5000,  1.0000], dtype=float64)
    >>> x._version
    1
    """
    _inplace_target(input, "clamp_")
    cdef Variable old
    bound = min if _operand_requires_grad(min) else max
    if _inplace_records(input, bound):
        _check_inplace_allowed(input, bound, "clamp_")
        old = _snapshot(input)
        return _write_back(input, old, clamp(old, min, max), "clamp_")
    return _inplace_unary(input, clamp, (min, max), "clamp_")


# -- __setitem__ ------------------------------------------------------------------

cdef class SetItemBackward(_KeyNode):
    # out = old with out[key] = value: old gets g outside `key`, value gets g[key].
    cdef object keep_mask        # 1 outside key, 0 inside (old's share of g)
    cdef tuple value_shape
    cdef object value_dtype

    cdef tuple squeezed_shape

    cdef tuple _backward(self, tuple grads):
        key = self.saved_key()
        g = _gv(grads[0], _grad_enabled())
        g_old = g_value = None
        if self._needs_input_grad(0):
            g_old = _grad(_v_keep(g, self.keep_mask))
        if self._needs_input_grad(1):
            g_value = _v_reduce(_v_getitem(g, key), self.squeezed_shape, self.value_dtype)
            if self.squeezed_shape != self.value_shape:
                g_value = _v_reshape(g_value, self.value_shape)
            g_value = _grad(g_value)
        return (g_old, g_value)


cdef class MaskedFillBackward(SetItemBackward):
    # torch's name for masked_fill, which pyad records as a write through a mask
    pass


cdef object _drop_leading_ones(object value, Py_ssize_t target_ndim):
    # torch accepts a value with extra leading size-1 dims (x[1] = tensor([5.]));
    # NumPy does not, so drop them first.
    if isinstance(value, (int, float, bool, complex)):
        return value
    while value.ndim > target_ndim and value.shape[0] == 1:
        value = value.reshape(value.shape[1:])
    return value


cdef object _fill_scalar(object value, object data, str what):
    # A Python number written into `data`'s dtype as torch converts it (c10's checked
    # conversion), where NumPy differs: a complex into a real dtype (index_fill: into
    # bool too), an integer out of the dtype's range, inf or nan into an integer dtype,
    # and (masked_fill / index_fill / scatter) a number beyond float16's range are
    # RuntimeError; an int from -255 to -1 into uint8 wraps modulo 256 (-1 is 255); an
    # int beyond int64 is torch's ValueError.
    cdef type t = type(value)
    if t is not int and t is not float and t is not complex:
        return value
    cdef char kind = _dtype_kind(data)
    if kind == b'c' or (kind == b'f' and t is not complex and
                        (data.dtype != numpy.float16 or what == "__setitem__")):
        return value
    if kind == b'V' and t is not complex:       # bfloat16, float8 (ml_dtypes)
        if value == value and builtins.abs(value) != float("inf"):
            with numpy.errstate(over="ignore"):        # (the overflow is the error below)
                rounded = float(numpy.asarray(value, dtype=numpy.float64).astype(data.dtype))
            if rounded != rounded or builtins.abs(rounded) == float("inf"):
                raise RuntimeError("%s(): value cannot be converted to type %s without "
                                   "overflow" % (what, _torch_dtype_name(data.dtype)))
        return value
    if t is complex:
        if kind == b'b' and what != "index_fill":
            return value
        raise RuntimeError("%s(): value cannot be converted to type %s without overflow"
                           % (what, _torch_dtype_name(data.dtype)))
    if t is int and not (-2 ** 63 <= value < 2 ** 63):
        raise ValueError("%s(): Overflow when unpacking long long (%d)" % (what, value))
    if kind == b'b':
        return value
    if kind == b'f':                         # float16 (masked_fill / index_fill / scatter)
        if value == value and builtins.abs(value) != float("inf") and \
                builtins.abs(value) > 65504:
            raise RuntimeError("%s(): value cannot be converted to type float16 without "
                               "overflow" % what)
        return value
    info = numpy.iinfo(data.dtype)
    lo = -255 if data.dtype == numpy.uint8 else info.min
    if t is float and (value != value or builtins.abs(value) == float("inf")) or \
            not (lo <= value <= info.max):
        raise RuntimeError("%s(): value cannot be converted to type %s without overflow"
                           % (what, _torch_dtype_name(data.dtype)))
    if value < 0 and lo == -255:
        return int(value) + 256 if t is int else value
    return value


cdef Variable _setitem_out_of_place(Variable old, object key, object value):
    xp = _xp_of(old._data)
    data = old._data.copy()
    value_data = _drop_leading_ones(_operand_data(value, "__setitem__"),
                                    _key_get(data, key).ndim)
    _key_set(data, key, value_data)
    cdef SetItemBackward node
    # (an integer or bool Variable never requires grad, whatever is written into it)
    if ((old._requires_grad or _operand_requires_grad(value)) and _grad_enabled()
            and _dtype_kind(data) in b"fcV"):
        node = SetItemBackward.__new__(SetItemBackward)
        node.key = key
        mask = xp.ones(old._data.shape, dtype=numpy.bool_)
        _key_set(mask, key, False)
        node.keep_mask = mask
        node.value_shape = _shape_of(value)
        node.squeezed_shape = _shape_of(value_data)
        node.value_dtype = _dtype_of(value)
        return _recorded(node, data, (_edge(old), _operand_edge(value)))
    return _plain(data, old._volatile)


cdef object _unwritable_error(Variable x, str what):
    # the error for an in-place write into read-only data: torch's overlap message when
    # the data is an expanded view (several elements share one memory location)
    alias = _writable_broadcast(x)
    if alias is not None and _has_internal_overlap(alias):
        return RuntimeError("%s(): unsupported operation: more than one element of the "
                            "written-to Variable refers to a single memory location. Please "
                            "clone() the Variable before performing the operation." % what)
    return RuntimeError("%s(): the Variable's data is read-only" % what)


cdef bint _has_internal_overlap(object data):
    cdef Py_ssize_t k
    for k in range(data.ndim):
        if data.strides[k] == 0 and data.shape[k] > 1:
            return True
    return False


cdef object _writable_broadcast(Variable x):
    # A writeable alias of x's data when it is read-only only because it is (a view
    # of) an expanded view of a writeable base, or None.
    data = x._data
    if not isinstance(data, _NDARRAY) or not x._is_view or x._view_base is None or \
            not _is_writeable(x._view_base._data):
        return None
    alias = data.view()
    try:
        alias.flags.writeable = True
    except ValueError:
        return None
    return alias


@profiled_op
def setitem(object input, key, value):
    """``input[key] = value`` in place (differentiable w.r.t. both).

    >>> x = Variable(numpy.zeros(3))
    >>> setitem(x, slice(1, None), 5.0)
    tensor([0., 5., 5.], dtype=float64)
    """
    if key is False and isinstance(input, Variable):
        # torch: x[False] = v does nothing once a number v converts (v's shape unchecked)
        _fill_scalar(value, (<Variable>input)._data, "__setitem__")
        return input
    cdef Variable x = _inplace_target(input, "__setitem__")
    cdef Variable old
    key = _index_key(key, x._data)
    if isinstance(value, Variable) and not _is_basic_key(key) and \
            (<Variable>value)._data.dtype != x._data.dtype and \
            not ((<Variable>value)._data.size == 1 and _single_mask_key(key)):
        # torch's index_put: no casting of a Variable value (but one number through a
        # single mask is its masked_fill, which casts)
        raise RuntimeError("__setitem__(): Index put requires the source and destination "
                           "dtypes match, got %s for the destination and %s for the source."
                           % (_torch_dtype_name(_dtype(x._data)),
                              _torch_dtype_name(_dtype((<Variable>value)._data))))
    if isinstance(value, Variable) and _is_basic_key(key) and \
            _may_share(x._data, (<Variable>value)._data):
        _refuse_overlap_with(_key_get(x._data, key), value, "__setitem__")
    value = _fill_scalar(value, x._data, "__setitem__")
    if _inplace_records(x, value):
        _check_inplace_allowed(x, value, "__setitem__")
        old = _snapshot(x)
        try:
            result = _setitem_out_of_place(old, key, value)
        except (IndexError, ValueError) as exc:
            raise _setitem_error(exc, old._data, key, value) from None
        return _write_back(x, old, result, "__setitem__")
    target = x._data
    if not _is_writeable(target):
        target = _writable_broadcast(x)
        if target is None:
            raise RuntimeError("__setitem__(): the Variable's data is read-only")
        # Writing through an expanded Variable (torch: gI = g.expand(n); gI[0] = 0):
        # allowed where the written part has no two elements sharing memory, or the
        # value is one number (torch fills then).
        v = _operand_data(value, "__setitem__")
        region = _key_get(target, key)
        if _has_internal_overlap(region) and getattr(v, "size", 1) != 1:
            raise RuntimeError("__setitem__(): unsupported operation: more than one element "
                               "of the written-to Variable refers to a single memory "
                               "location. Please clone() the Variable before performing the "
                               "operation.")
    try:
        _key_set(target, key, _drop_leading_ones(_operand_data(value, "__setitem__"),
                                                 _key_get(target, key).ndim))
    except (IndexError, ValueError) as exc:
        raise _setitem_error(exc, target, key, value) from None
    _bump_version(x)
    return x


cdef bint _single_mask_key(object key):
    # True for a key whose only index array is one boolean mask of at least one
    # dimension (ints, slices, None and Ellipsis beside it)
    cdef bint found = False
    for k in (key if isinstance(key, tuple) else (key,)):
        if k is None or k is Ellipsis or isinstance(k, (int, slice)):
            continue
        dt = getattr(k, "dtype", None)
        if found or dt is None or dt.kind != "b" or k.ndim == 0:
            return False
        found = True
    return found


cdef object _setitem_error(object exc, object data, object key, object value):
    # NumPy's error for a bad assignment, with torch's type: IndexError for the key,
    # RuntimeError for the value (a shape that does not broadcast, NaN into integers),
    # and torch's wording for a value whose shape does not fit the indexed part.
    if isinstance(exc, IndexError):
        message = _mask_mismatch(key, data.shape)
        return IndexError("__setitem__(): %s" % (message or exc))
    vshape = getattr((<Variable>value)._data if isinstance(value, Variable) else value,
                     "shape", None)
    if vshape is not None:
        try:
            region = tuple(_key_get(data, key).shape)
        except (IndexError, ValueError, TypeError):
            region = None               # (the key itself is bad: NumPy's message below)
        if region is not None and not _broadcasts_to(tuple(vshape), region):
            return RuntimeError("__setitem__(): shape mismatch: value tensor of shape %s "
                                "cannot be broadcast to indexing result of shape %s"
                                % (_shape_str(vshape), _shape_str(region)))
    return RuntimeError("__setitem__(): %s" % exc)


cdef bint _broadcasts_to(tuple shape, tuple target):
    try:
        return numpy.broadcast_shapes(shape, target) == target
    except ValueError:
        return False


# -- in-place twins of the indexing ops (shape.pxi): the same recipe ------------------

cdef Variable _inplace_indexing(Variable x, object op, tuple args, dict kwargs, object other,
                                str what):
    # x = op(x, *args); `other` is the operand that may carry a gradient (src, source,
    # value), if any.
    cdef Variable old
    # torch: an index or source may not share self's memory at all (assert_no_overlap);
    # masked_fill_'s mask not partly; the fills' value is read as a number, not an input
    if what == "masked_fill_":
        _refuse_partial_overlap(x._data, args[:1], what)
    else:
        _refuse_overlap(x._data, args[:len(args) - 1] if what in _FILL_OPS else args, what)
        _refuse_overlap(x._data, tuple(kwargs.values()), what)
    try:
        if _inplace_records(x, other):
            _check_inplace_allowed(x, other, what)
            old = _snapshot(x)
            return _write_back(x, old, op(old, *args, **kwargs), what)
        if not _is_writeable(x._data):
            raise _unwritable_error(x, what)
        result = (<Variable>op(_wrap(x._data), *args, **kwargs))._data
    except _OP_ERRORS as exc:
        raise _renamed(exc, what) from None     # index_add's errors, named index_add_
    if result.shape != x._data.shape:
        raise RuntimeError("%s(): output with shape %s doesn't match the broadcast shape %s"
                           % (what, _shape_str(x._data.shape), _shape_str(result.shape)))
    try:
        _xp_of(x._data).copyto(x._data, result, casting="same_kind")
    except TypeError as exc:
        raise RuntimeError("%s(): %s" % (what, exc)) from None
    _bump_version(x)
    return x


@profiled_op
def masked_fill_(object input, mask, value):
    """In-place :func:`masked_fill`.

    >>> x = Variable(numpy.ones(3))
    >>> x.masked_fill_(numpy.array([True, False, False]), 0.0), x._version
    (tensor([0., 1., 1.], dtype=float64), 1)
    """
    cdef Variable x = _inplace_target(input, "masked_fill_")
    return _inplace_indexing(x, masked_fill, (mask, value), {}, value, "masked_fill_")


@profiled_op
def index_fill_(object input, dim, index, value):
    """In-place :func:`index_fill`.

    >>> Variable(numpy.zeros(3)).index_fill_(0, numpy.array([1]), 2.0)
    tensor([0., 2., 0.], dtype=float64)
    """
    return _inplace_indexing(_inplace_target(input, "index_fill_"), index_fill, (dim, index, value), {}, value, "index_fill_")


@profiled_op
def index_add_(object input, dim, index, source, alpha=1):
    """In-place :func:`index_add` (repeated indices add up).

    >>> Variable(numpy.zeros(3)).index_add_(0, numpy.array([1, 1]), Variable(numpy.ones(2)))
    tensor([0., 2., 0.], dtype=float64)
    """
    return _inplace_indexing(_inplace_target(input, "index_add_"), index_add, (dim, index, source), {"alpha": alpha},
                             source, "index_add_")


@profiled_op
def index_copy_(object input, dim, index, source):
    """In-place :func:`index_copy`.

    >>> Variable(numpy.zeros(3)).index_copy_(0, numpy.array([2]), Variable(numpy.ones(1)))
    tensor([0., 0., 1.], dtype=float64)
    """
    return _inplace_indexing(_inplace_target(input, "index_copy_"), index_copy, (dim, index, source), {}, source,
                             "index_copy_")


@profiled_op
def scatter_(object input, dim, index, src=None, value=None, *, reduce=None):
    """In-place :func:`scatter` (``src`` a Variable or a number, or ``value=``; torch's
    deprecated ``reduce='add' | 'multiply'`` too).

    >>> Variable(numpy.zeros(3)).scatter_(0, numpy.array([2, 0]), 1.0)
    tensor([1., 0., 1.], dtype=float64)
    """
    return _inplace_indexing(_inplace_target(input, "scatter_"), scatter,
                             (dim, index, src, value), {} if reduce is None else
                             {"reduce": reduce}, src if src is not None else value, "scatter_")


@profiled_op
def scatter_add_(object input, dim, index, src):
    """In-place :func:`scatter_add` (repeated indices add up).

    >>> Variable(numpy.zeros(3)).scatter_add_(0, numpy.array([0, 0]), Variable(numpy.ones(2)))
    tensor([2., 0., 0.], dtype=float64)
    """
    return _inplace_indexing(_inplace_target(input, "scatter_add_"), scatter_add, (dim, index, src), {}, src, "scatter_add_")


@profiled_op
def put_(object input, index, source, accumulate=False):
    """In-place :func:`put` (torch's ``Tensor.put_``).

    >>> Variable(numpy.zeros(3)).put_(numpy.array([2, 2]), Variable(numpy.ones(2)), accumulate=True)
    tensor([0., 0., 2.], dtype=float64)
    """
    return _inplace_indexing(_inplace_target(input, "put_"), put, (index, source),
                             {"accumulate": accumulate}, source, "put_")


# -- in-place forms of ops with operands: x.op_(*args) writes op(x, *args) into x -------
# torch's rules: the result must be castable to x's dtype (same kind) and have x's shape;
# a result without a gradient (comparisons, logical and bitwise ops) still records a node
# that gives x's history a zero gradient, as torch's EqBackward0 does.

cdef object _operand_with_grad(tuple args, dict kwargs):
    # The first operand that carries a gradient (decides whether the op records).
    for a in args:
        if _operand_requires_grad(a):
            return a
    for a in kwargs.values():
        if _operand_requires_grad(a):
            return a
    return None


cdef bint _torch_can_cast(object src, object dst):
    # torch's canCast: no complex into real, floating into integral, non-bool into bool
    return _category(src) <= _category(dst)


cdef void _check_inplace_cast(object result_dtype, object dtype, str what) except *:
    if not _torch_can_cast(result_dtype, dtype):
        raise RuntimeError("%s(): result type %s can't be cast to the desired output type %s"
                           % (what, _torch_dtype_name(result_dtype), _torch_dtype_name(dtype)))


# In-place forms whose torch kernel does not compare its inputs' memory with self's (the
# BLAS-backed ones, masked_scatter_): pyad does not either.
_UNCHECKED_OVERLAP = frozenset(["addmv_", "addbmm_", "addmm_", "baddbmm_", "masked_scatter_"])
_FILL_OPS = frozenset(["masked_fill_", "index_fill_"])


def _refuse_partial_overlap_of(Variable written, tuple inputs, str what):
    """torch's memory-overlap check of an in-place op written in Python: RuntimeError
    when an input partly shares ``written``'s memory (see _refuse_partial_overlap)."""
    _refuse_partial_overlap(written._data, inputs, what)


cdef Variable _inplace_apply(Variable x, object op, tuple args, dict kwargs, str what):
    cdef Variable old, result
    _refuse_complex_inplace(x, what)
    other = _operand_with_grad(args, kwargs)
    if what == "index_put_" and args and isinstance(args[0], (tuple, list)):
        _refuse_overlap(x._data, tuple(args[0]), what)          # the indices
        _refuse_overlap(x._data, args[1:2], what)                # the values
    elif what not in _UNCHECKED_OVERLAP:
        _refuse_partial_overlap(x._data, args, what)
        _refuse_partial_overlap(x._data, tuple(kwargs.values()), what)
    try:
        if _inplace_records(x, other):
            _check_inplace_allowed(x, other, what)
            old = _snapshot(x)
            result = op(old, *args, **kwargs)
            _check_inplace_cast(result._data.dtype, x._data.dtype, what)
            if not result._requires_grad:
                # old's history gets a zero gradient (where: no 0 * inf = nan)
                result = where(_xp_of(old._data).ones(result._data.shape, dtype=bool),
                               _convert(result, None, old._data.dtype, False), old)
            return _write_back(x, old, result, what)
        if not _is_writeable(x._data):
            raise _unwritable_error(x, what)
        data = (<Variable>op(_wrap(x._data), *args, **kwargs))._data
    except _OP_ERRORS as exc:
        message = str(exc)
        if message.startswith(op.__name__ + "() "):     # a wrong argument count
            raise type(exc)(what + message[len(op.__name__):]) from None
        raise _renamed(exc, what) from None
    _check_inplace_cast(data.dtype, x._data.dtype, what)
    if data.shape != x._data.shape:
        raise RuntimeError("%s(): output with shape %s doesn't match the broadcast shape %s"
                           % (what, _shape_str(x._data.shape), _shape_str(data.shape)))
    _xp_of(x._data).copyto(x._data, data, casting="unsafe")
    _bump_version(x)
    return x


def _inplace_form(op, name, example_input, example_args):
    """Make the in-place form ``name`` (``addcmul_``) of ``op`` (``addcmul``): the
    snapshot-and-write-back recipe of every in-place op, recorded when ``input`` or any
    operand requires grad, with ``op``'s signature."""

    def form(input, *args, **kwargs):
        _inplace_target(input, name)
        if _profiling and _profile_enter():
            return _profiled_named(name, lambda *a: form(*a, **kwargs), (input,) + args)
        return _inplace_apply(input, op, args, kwargs, name)

    form.__name__ = form.__qualname__ = name
    form.__signature__ = inspect.signature(op)
    form.__doc__ = (
        "In-place :func:`%s`: ``input.%s(%s)`` writes the result into ``input``.\n\n"
        "    >>> x = %s\n"
        "    >>> expected = pyad.%s(x%s)\n"
        "    >>> numpy.array_equal(x.%s(%s).data, expected.data), x._version\n"
        "    (True, 1)\n"
        % (op.__name__, name, example_args, example_input, op.__name__,
           ", " + example_args if example_args else "", name, example_args))
    return form


cdef object _deg2rad(object input):
    return mul(input, math.pi / 180.0)


cdef object _rad2deg(object input):
    return mul(input, 180.0 / math.pi)


def _deg2rad_op(input):
    return _deg2rad(input)


def _rad2deg_op(input):
    return _rad2deg(input)


def _float_power_op(input, exponent):
    # torch computes float_power_ in double and refuses to narrow the result
    result = float_power(input, exponent)
    if result.dtype != input.dtype:
        raise RuntimeError("float_power_(): the base given to float_power_ has dtype %s but "
                           "the operation's result requires dtype %s"
                           % (_torch_dtype_name(input.dtype), _torch_dtype_name(result.dtype)))
    return result


def _sgn_op(input):
    return sgn(input)        # (complex.pxi is included after this file)


_sgn_op.__name__ = "sgn"
_deg2rad_op.__name__ = "deg2rad"
_rad2deg_op.__name__ = "rad2deg"
_float_power_op.__name__ = "float_power"

_V = "pyad.tensor([0.25, 1.0], dtype=pyad.float64)"
_M = "pyad.tensor([[0.25, 1.0], [2.0, 0.5]], dtype=pyad.float64)"
_B = "pyad.tensor([True, False])"
_I = "pyad.tensor([6, 3])"
# (op, in-place name, docstring example input, its extra arguments): the in-place forms
# of existing ops and of torch's aliases (greater_ is gt_ under torch's other name).
INPLACE_FORMS = (
    (addcmul, "addcmul_", _V, "x, x, value=2"), (addcdiv, "addcdiv_", _V, "x, x + 1"),
    (addmm, "addmm_", _M, "x, x, beta=0.5"), (addmv, "addmv_", _V, "x[None].expand(2, 2), x"),
    (addbmm, "addbmm_", _M, "x[None], x[None]"), (baddbmm, "baddbmm_", _M + "[None]", "x, x"),
    (clamp_min, "clamp_min_", _V, "0.5"), (clamp_max, "clamp_max_", _V, "0.5"),
    (clip, "clip_", _V, "0.3, 0.6"), (cumsum, "cumsum_", _V, "0"), (cumprod, "cumprod_", _V, "0"),
    (lerp, "lerp_", _V, "x * 2, 0.5"), (hypot, "hypot_", _V, "x"), (atan2, "atan2_", _V, "x"),
    (fmod, "fmod_", _V, "0.3"), (remainder, "remainder_", _V, "0.3"),
    (floor_divide, "floor_divide_", _V, "0.3"), (_float_power_op, "float_power_", _V, "2"),
    (true_divide, "true_divide_", _V, "4"), (logit, "logit_", _V, "1e-6"),
    (nan_to_num, "nan_to_num_", _V, ""), (_sgn_op, "sgn_", _V, ""),
    (tril, "tril_", _M, ""), (triu, "triu_", _M, ""),
    (masked_scatter, "masked_scatter_", _V, "x > 0.5, x * 3"),
    (eq, "eq_", _V, "1.0"), (ne, "ne_", _V, "1.0"), (lt, "lt_", _V, "1.0"),
    (le, "le_", _V, "1.0"), (gt, "gt_", _V, "0.5"), (ge, "ge_", _V, "1.0"),
    (gt, "greater_", _V, "0.5"), (ge, "greater_equal_", _V, "1.0"), (lt, "less_", _V, "1.0"),
    (le, "less_equal_", _V, "1.0"), (ne, "not_equal_", _V, "1.0"),
    (logical_and, "logical_and_", _B, "x"), (logical_or, "logical_or_", _B, "x"),
    (logical_xor, "logical_xor_", _B, "x"), (logical_not, "logical_not_", _B, ""),
    (bitwise_and, "bitwise_and_", _I, "5"), (bitwise_or, "bitwise_or_", _I, "5"),
    (bitwise_xor, "bitwise_xor_", _I, "5"), (bitwise_not, "bitwise_not_", _I, ""),
    (bitwise_left_shift, "bitwise_left_shift_", _I, "2"),
    (bitwise_right_shift, "bitwise_right_shift_", _I, "1"),
    (absolute, "absolute_", _V, ""), (neg, "negative_", _V, ""), (mul, "multiply_", _V, "3"),
    (div, "divide_", _V, "3"), (sub, "subtract_", _V, "3"),
    (_deg2rad_op, "deg2rad_", _V, ""), (_rad2deg_op, "rad2deg_", _V, ""),
    (index_put, "index_put_", _V,
     "(pyad.tensor([1, 1]),), pyad.tensor(0.5, dtype=pyad.float64), accumulate=True"),
)
_INPLACE_FORM_FUNCTIONS = tuple(_inplace_form(op, name, inp, args)
                                for op, name, inp, args in INPLACE_FORMS)
for _form in _INPLACE_FORM_FUNCTIONS:
    globals()[_form.__name__] = _form


@profiled_op
def fill_diagonal_(input, fill_value, wrap=False):
    """Fill the main diagonal with ``fill_value`` in place (a matrix, or a Variable with
    all dimensions equal; ``wrap`` restarts the diagonal below a tall matrix every
    ``columns + 1`` rows, as torch).

    >>> pyad.zeros(3, 2).fill_diagonal_(1.0, wrap=True).tolist()
    [[1.0, 0.0], [0.0, 1.0], [0.0, 0.0]]
    """
    cdef Variable x = _inplace_target(input, "fill_diagonal_")
    shape = x._data.shape
    if len(shape) < 2:
        raise RuntimeError("fill_diagonal_(): dimensions must larger than 1")
    if len(shape) > 2 and len(set(shape)) != 1:
        raise RuntimeError("fill_diagonal_(): all dimensions of input must be of equal length")
    if isinstance(fill_value, Variable):
        raise TypeError("fill_diagonal_(): argument 'fill_value' must be a number, not Variable")
    mask = numpy.zeros(shape, dtype=bool)
    if mask.size:
        numpy.fill_diagonal(mask, True, wrap=bool(wrap))
    return _inplace_indexing(x, masked_fill, (_xp_of(x._data).asarray(mask), fill_value), {},
                             None, "fill_diagonal_")


# -- in-place view ops: x.t_() makes x the view (its shape changes; its data stays) -----

cdef Variable _inplace_view(Variable x, object view_op, tuple args, str what):
    cdef Variable r
    if x._requires_grad and x._grad_fn is None and _grad_enabled():
        raise RuntimeError("%s(): a leaf Variable that requires grad is being used in an "
                           "in-place operation. Wrap it in pyad.no_grad() or use the "
                           "out-of-place op." % what)
    if x._is_view and x._view_base is not None and x._view_base._requires_grad and \
            x._view_base._grad_fn is None and _grad_enabled():
        raise RuntimeError("%s(): a view of a leaf Variable that requires grad is being used "
                           "in an in-place operation." % what)
    if x._is_view and x._view_base is not None and x._view_creation != _VIEW_DEFAULT and \
            (x._requires_grad or x._view_base._requires_grad) and _grad_enabled():
        # a view made under no_grad, by a multi-output op or by a custom Function cannot
        # have its history rebuilt by an in-place op, a view op included (torch)
        raise RuntimeError(_view_creation_error(x))
    try:
        r = view_op(x, *args)
    except _OP_ERRORS as exc:
        message = str(exc)
        if message.startswith(view_op.__name__ + "() "):
            raise type(exc)(what + message[len(view_op.__name__):]) from None
        raise _renamed(exc, what) from None
    _track_var(x)
    x._data = r._data
    _bump_version(x)                     # as torch: a saved x has changed shape
    if r._grad_fn is not None:
        x._grad_fn = r._grad_fn
        x._output_nr = r._output_nr
    if x._is_view and x._view_base is not None:
        # still a view of the same base, now through the composed view function
        x._view_fn = r._view_fn
        x._view_version = r._view_version
    return x


@profiled_op
def t_(input):
    """In-place :func:`t`: this Variable becomes its transpose (its data is not moved).

    >>> x = pyad.tensor([[1.0, 2.0]])
    >>> x.t_().shape
    (2, 1)
    """
    return _inplace_view(_inplace_target(input, "t_"), t, (), "t_")


@profiled_op
def transpose_(input, dim0, dim1):
    """In-place :func:`transpose`.

    >>> pyad.ones(2, 3).transpose_(0, 1).shape
    (3, 2)
    """
    return _inplace_view(_inplace_target(input, "transpose_"), transpose, (dim0, dim1),
                         "transpose_")


@profiled_op
def swapdims_(input, dim0, dim1):
    """In-place :func:`swapdims` (``transpose_``).

    >>> pyad.ones(2, 3).swapdims_(0, 1).shape
    (3, 2)
    """
    return _inplace_view(_inplace_target(input, "swapdims_"), transpose, (dim0, dim1),
                         "swapdims_")


@profiled_op
def swapaxes_(input, axis0, axis1):
    """In-place :func:`swapaxes` (``transpose_``).

    >>> pyad.ones(2, 3).swapaxes_(0, 1).shape
    (3, 2)
    """
    return _inplace_view(_inplace_target(input, "swapaxes_"), transpose, (axis0, axis1),
                         "swapaxes_")


@profiled_op
def squeeze_(input, dim=None):
    """In-place :func:`squeeze`.

    >>> pyad.ones(1, 3, 1).squeeze_().shape
    (3,)
    """
    return _inplace_view(_inplace_target(input, "squeeze_"), squeeze, (dim,), "squeeze_")


@profiled_op
def unsqueeze_(input, dim):
    """In-place :func:`unsqueeze`.

    >>> pyad.ones(3).unsqueeze_(0).shape
    (1, 3)
    """
    return _inplace_view(_inplace_target(input, "unsqueeze_"), unsqueeze, (dim,),
                         "unsqueeze_")


# The in-place twins of unary ops, made from ELEMENTWISE_INPLACE_TWINS (the table beside
# the elementwise family's tuple).
_UNARY_TWINS = tuple(_inplace_twin(op, example)
                     for op, example in ELEMENTWISE_INPLACE_TWINS + SPECIAL_INPLACE_TWINS)
for _twin in _UNARY_TWINS:
    globals()[_twin.__name__] = _twin

INPLACE_OPS = (add_, sub_, mul_, div_, zero_, fill_, copy_, clamp_, setitem, masked_fill_,
               index_fill_, index_add_, index_copy_, scatter_, scatter_add_, put_,
               t_, transpose_, swapdims_, swapaxes_, squeeze_, unsqueeze_,
               fill_diagonal_) + _UNARY_TWINS \
    + _INPLACE_FORM_FUNCTIONS
# The family's heading in docs/op-reference.md, and its ops that are pyad.<name>
# functions but not Variable methods (item assignment has its operator).
INPLACE_TITLE = "In-place"
INPLACE_FUNCTION_ONLY = ("setitem",)

# Every in-place op, by its Variable method name: each bumps the version counter once.
# tests/autograd/test_inplace_versions.py generates the version-bump tests from this
# tuple and fails on a Variable method ending in "_" (or an in-place operator) that is
# missing from it.
_INPLACE_METHODS = tuple(op.__name__ for op in INPLACE_OPS + RANDOM_OPS
                         if op is not setitem and op.__name__.endswith("_")) + (
    "__setitem__", "__iadd__", "__isub__", "__imul__", "__itruediv__", "__ifloordiv__",
    "__imod__", "__ipow__", "__iand__", "__ior__", "__ixor__", "__ilshift__", "__irshift__",
)
