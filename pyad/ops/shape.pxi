# Shape and indexing ops. Results share memory with the input where NumPy returns a
# view, and then also share its version counter (an in-place change to either is
# seen by backward's checks on both).


# -- views and their history ---------------------------------------------------------
#
# A view shares memory with its base. Each view remembers how to rebuild itself from its
# root base (a _ViewFn: reshape, permute, basic indexing or diagonal, composed), so that
# - after an in-place change of the base (or of another view) the view's history is
#   rebuilt on its next use, from the base's new history (torch regenerates view
#   grad_fns the same way), and
# - an in-place op on the view is recorded on the base: base[view] = op(view), with the
#   base's history rewritten (torch's CopySlices), then the view rebuilt from it.

# torch's CreationMeta of a view (Variable._view_creation)
cdef enum:
    _VIEW_DEFAULT = 0
    _VIEW_NO_GRAD = 1
    _VIEW_MULTI_OUTPUT = 2
    _VIEW_CUSTOM_FUNCTION = 3
    _VIEW_CUSTOM_MULTI_OUTPUT = 4     # a view output of a custom Function with several
    _VIEW_INFERENCE_MODE = 5          # made inside inference_mode


cdef class _ViewFn:
    cdef int kind               # 0 reshape, 1 permute, 2 basic indexing, 3 diagonal,
                                # 4 broadcast (expand: read-only, never written through),
                                # 5 view_as_real, 6 view_as_complex
    cdef object arg
    cdef _ViewFn parent         # the view this one was taken from, or None for the base

    cdef Variable apply(self, Variable base):
        if self.parent is not None:
            base = self.parent.apply(base)
        if self.kind == 0:
            return _reshape(base, self.arg, False)
        if self.kind == 1:
            return permute(base, self.arg)
        if self.kind == 3:
            return _diagonal_view(base, self.arg[0], self.arg[1], self.arg[2])
        if self.kind == 4:
            return broadcast_to(base, self.arg)
        if self.kind == 5:
            return view_as_real(base)
        if self.kind == 6:
            return view_as_complex(base)
        return getitem(base, self.arg)

    cdef bint broadcasts(self):
        # True if this view or one it was taken from is a broadcast (several elements
        # share one memory location: it cannot be written to).
        cdef _ViewFn fn = self
        while fn is not None:
            if fn.kind == 4:
                return True
            fn = fn.parent
        return False


cdef inline Variable _shape_result(Variable x, object data, Node node, int kind=-1,
                                   object arg=None):
    cdef Variable out
    cdef _ViewFn fn
    if x._is_inference:
        # torch: a view of an inference Variable is an inference Variable with no
        # history and no view tracking, inside inference_mode or not
        out = _plain(data, x._volatile)
        out._is_inference = True
        return out
    if node is not None:
        out = _recorded1(node, data, _edge(x))
    else:
        out = _plain(data, x._volatile)
    if data.base is not None:
        _track_var(out)                             # (it may be _plain's)
        out._is_inference = x._is_inference        # a view of a normal Variable is one
        out._version_counter = _vc(x)
        out._is_view = True
        out._view_base = x._view_base if x._view_base is not None else x
        if kind >= 0 and (not x._is_view or x._view_fn is not None):
            fn = _ViewFn.__new__(_ViewFn)
            fn.kind = kind
            fn.arg = arg
            fn.parent = x._view_fn
            out._view_fn = fn
            out._view_version = out._version_counter.version
            out._view_no_grad = x._view_no_grad or (out._view_base._requires_grad and
                                                     not _grad_enabled())
        # How the view was made, for the in-place checks (torch's CreationMeta): a view
        # of a view made under no_grad, of a multi-output op's view or of a custom
        # Function's view inherits its kind.
        if pyad_get_inference():
            out._view_creation = _VIEW_INFERENCE_MODE
        elif not _grad_enabled():
            out._view_creation = _VIEW_NO_GRAD
        elif x._is_view:
            out._view_creation = x._view_creation
    return out


cdef str _strip_backward(str name):
    # torch names the node in these messages without its "Backward<N>" suffix
    if name.endswith("Backward"):
        return name[:len(name) - 8]
    return name


cdef str _view_creation_error(Variable x, bint indirect=False):
    # torch's handle_view_on_rebase message for an in-place change of a view of kind
    # x._view_creation (not the default) while autograd records it, or (indirect) of
    # its base or another view of its base.
    cdef Node fn = x._grad_fn
    modified = "its base or another view of its base has been" if indirect else "is being"
    if x._view_creation == _VIEW_NO_GRAD or x._view_creation == _VIEW_INFERENCE_MODE or \
            fn is None:
        if fn is not None:
            prefix = ("Output %d of %s is a view of a view which was created in"
                      % (x._output_nr, _strip_backward(fn.name())))
        else:
            prefix = "A view was created in"
        if x._view_creation == _VIEW_INFERENCE_MODE:
            msg = "%s inference mode and %s modified inplace in normal mode." % (
                prefix, modified)
        else:
            msg = "%s no_grad mode and %s modified inplace with grad mode enabled." % (
                prefix, modified)
    else:
        msg = ("Output %d of %s is a view and %s modified inplace."
               % (x._output_nr, _strip_backward(fn.name()), modified))
    if x._view_creation == _VIEW_MULTI_OUTPUT or x._view_creation == _VIEW_CUSTOM_MULTI_OUTPUT:
        msg += (" This view is the output of a function that returns multiple views. Such "
                "functions do not allow the output views to be modified inplace. You should "
                "replace the inplace operation by an out-of-place one.")
    elif x._view_creation == _VIEW_NO_GRAD or x._view_creation == _VIEW_INFERENCE_MODE:
        msg += (" Given that this use case is ambiguous and error-prone, it is forbidden. "
                "You can clarify your code by moving both the view and the inplace either "
                "both inside the %s block (if you don't want the inplace to be tracked) "
                "or both outside (if you want the inplace to be tracked)."
                % ("inference_mode" if x._view_creation == _VIEW_INFERENCE_MODE
                   else "no_grad"))
    else:
        msg += (" This view was created inside a custom Function (or because an input was "
                "returned as-is) and the autograd logic to handle view+inplace would "
                "override the custom backward associated with the custom Function, leading "
                "to incorrect gradients. This behavior is forbidden. You can fix this by "
                "cloning the output of the custom Function.")
    return msg


cdef void _refresh_view(Variable v) except *:
    # Rebuild a view's history from its base if either changed in place since, or if
    # the base's requires_grad changed. A view taken under no_grad of a base that
    # requires grad never gets history (torch: such a view is not differentiable).
    cdef Variable fresh
    # (A base that stopped requiring grad, by detach_() or requires_grad_(False), leaves
    # its views' history as it was: torch's test_detach_base.)
    if v._view_no_grad or v._version_counter is None or (
            v._version_counter.version == v._view_version and
            (v._requires_grad or not v._view_base._requires_grad)):
        return
    if not v._requires_grad and not v._view_base._requires_grad:
        v._view_version = v._version_counter.version
        return                          # no history to rebuild (and none to override)
    if v._view_creation == _VIEW_CUSTOM_FUNCTION or \
            v._view_creation == _VIEW_CUSTOM_MULTI_OUTPUT:
        # Its history is the custom Function's, which replaying the view from the
        # changed base would override: refused, as torch does.
        raise RuntimeError(_view_creation_error(v, True))
    v._view_version = v._version_counter.version
    base = v._view_base
    fn = v._view_fn
    v._view_fn = None                   # no recursion while replaying
    try:
        fresh = (<_ViewFn>fn).apply(base)
    finally:
        v._view_fn = fn
    _set_history(v, fresh._grad_fn, fresh._output_nr)
    v._requires_grad = fresh._requires_grad


cdef void _check_inference_view_history(Variable v) except *:
    # torch (grad_fn and is_leaf only): a view made in inference_mode of a Variable that
    # requires grad cannot have its history rebuilt after its base (or another view of
    # it) changed in place
    if v._view_creation == _VIEW_INFERENCE_MODE and v._view_no_grad and \
            v._version_counter is not None and \
            v._version_counter.version != v._view_version:
        raise RuntimeError(_view_creation_error(v, True))


cdef tuple _shape_args(tuple shape):
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        return tuple(shape[0])
    return shape


cdef class ViewBackward(Node):
    cdef tuple input_shape

    cdef tuple _backward(self, tuple grads):
        return (_grad(_v_reshape(_gv(grads[0], _grad_enabled()), self.input_shape)),)


# torch's names for the ops pyad records as a reshape (field-less aliases: _retype_node)
cdef class UnsqueezeBackward(ViewBackward):
    pass


cdef class SqueezeBackward(ViewBackward):
    pass


cdef class TakeBackward(ViewBackward):
    pass


cdef Variable _reshape(Variable x, tuple shape, bint must_view):
    try:
        if must_view:
            data = x._data.view()
            data.shape = shape        # raises rather than copy when a view is impossible
        else:
            data = x._data.reshape(shape)
    except (ValueError, AttributeError) as exc:
        what = "view" if must_view else "reshape"
        if x._data.size == 0 and -1 in shape and 0 in shape:
            # torch's words for an empty input whose -1 could be any size
            raise RuntimeError("%s(): shape '%s' is invalid for input of size 0 because the "
                               "unspecified dimension size -1 can be any value and is "
                               "ambiguous" % (what, list(shape))) from None
        raise RuntimeError("%s(): shape %s is invalid for input of size %d (%s)"
                           % (what, _shape_str(shape), x._data.size, exc)) from None
    cdef ViewBackward node = None
    if _records(x):
        node = ViewBackward.__new__(ViewBackward)
        node.input_shape = x._data.shape
    if not must_view and data.base is not None and data.size and \
            not _xp_of(data).may_share_memory(data, x._data) and not x._is_inference:
        # NumPy copied (the strides allow no view): as torch, a new Variable, not a
        # view sharing the input's version counter
        if node is not None:
            return _recorded1(node, data, _edge(x))
        return _plain(data, x._volatile)
    return _shape_result(x, data, node, 0, shape)


@profiled_op
def reshape(input, *shape):
    """Reshape (a view when possible, else a copy); one dimension may be -1.

    >>> reshape(Variable(numpy.arange(6.)), 2, -1)
    tensor([[0., 1., 2.],
            [3., 4., 5.]], dtype=float64)
    """
    cdef Variable x = _as_variable(input, "reshape")
    cdef tuple s = _shape_args(shape)
    if s == x._data.shape:
        return _reshape(x, s, False) if _records(x) else _shape_result(x, x._data.view(), None,
                                                                      0, s)
    return _reshape(x, s, False)


@profiled_op
def view(input, *shape):
    """Reshape without copying; raises if the memory layout does not allow a view.

    With a dtype instead of a shape, ``view(dtype)`` reinterprets the same memory as
    ``dtype`` (torch's ``Tensor.view(dtype)``; not differentiable): a different element
    size rescales the last dimension, which must then have unit stride.

    >>> x = Variable(numpy.arange(6.))
    >>> v = view(x, 2, 3)
    >>> v.shape, v.data.base is x.data
    ((2, 3), True)
    """
    cdef Variable x = _as_variable(input, "view")
    if len(shape) == 1 and (isinstance(shape[0], numpy.dtype) or (
            isinstance(shape[0], type) and issubclass(shape[0], numpy.generic))):
        return _view_as_dtype(x, numpy.dtype(shape[0]))
    return _reshape(x, _shape_args(shape), True)


cdef Variable _view_as_dtype(Variable x, object dtype):
    # torch's view_dtype: the same bytes under another dtype. With a different element
    # size, the last dimension (unit stride) is rescaled by the size ratio; every other
    # stride and the storage offset must stay whole in the new elements. No gradient
    # flows through it (torch: non-differentiable), but it is a view sharing x's
    # version counter.
    data = x._data
    cdef Py_ssize_t old = data.dtype.itemsize, new = dtype.itemsize
    names = (_torch_dtype_name(data.dtype), _torch_dtype_name(dtype))
    if old != new:
        what = "to view %s as %s (different element sizes)" % names
        if data.ndim == 0:
            raise RuntimeError("view(): self.dim() cannot be 0 %s" % what)
        if data.size == 0:
            # no bytes to reinterpret: torch gives the empty shape with the last size
            # rescaled (NumPy's strides of an empty array may be anything)
            last = data.shape[data.ndim - 1] * old
            if last % new:
                raise RuntimeError("view(): self.size(-1) must be divisible by %d %s, but "
                                   "got %d" % (new // old, what, data.shape[data.ndim - 1]))
            out = _xp_of(data).empty(data.shape[:data.ndim - 1] + (last // new,), dtype)
            return _shape_result(x, out, None)
        if data.strides[data.ndim - 1] != old and data.shape[data.ndim - 1] != 1:
            raise RuntimeError("view(): self.stride(-1) must be 1 %s, but got %d"
                               % (what, data.strides[data.ndim - 1] // old))
        if new > old:
            ratio = new // old
            if data.shape[data.ndim - 1] % ratio:
                raise RuntimeError("view(): self.size(-1) must be divisible by %d %s, but "
                                   "got %d" % (ratio, what, data.shape[data.ndim - 1]))
            offset = x.storage_offset()
            if offset % ratio:
                raise RuntimeError("view(): self.storage_offset() must be divisible by %d %s, "
                                   "but got %d" % (ratio, what, offset))
            for d in range(data.ndim - 1):
                if (data.strides[d] // old) % ratio:
                    raise RuntimeError("view(): self.stride(%d) must be divisible by %d %s, "
                                       "but got %d" % (d, ratio, what,
                                                       data.strides[d] // old))
    try:
        out = data.view(dtype)
    except ValueError as e:
        raise RuntimeError("view(): cannot view %s as %s: %s" % (names + (e,))) from None
    return _shape_result(x, out, None)


@profiled_op
def flatten(input, start_dim=0, end_dim=-1):
    """Flatten dimensions ``start_dim`` through ``end_dim`` into one.

    >>> flatten(Variable(numpy.zeros((2, 3, 4))), 1).shape
    (2, 12)
    """
    cdef Variable x = _as_variable(input, "flatten")
    shape = x._data.shape
    s = _normalize_dim(start_dim, len(shape), "flatten")     # 0-d: only 0 and -1 (torch)
    e = _normalize_dim(end_dim, len(shape), "flatten")
    if len(shape) == 0:
        return reshape(x, (1,))
    if s > e:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    if s == e:
        return x                    # nothing to merge: the input itself (torch)
    n = 1
    for d in shape[s:e + 1]:
        n *= d
    return reshape(x, shape[:s] + (n,) + shape[e + 1:])


cdef class PermuteBackward(Node):
    cdef tuple inverse

    cdef tuple _backward(self, tuple grads):
        return (_grad(_v_permute(_gv(grads[0], _grad_enabled()), self.inverse)),)


# torch's names for transpose and t, which pyad records as permutes
cdef class TransposeBackward(PermuteBackward):
    pass


cdef class TBackward(PermuteBackward):
    pass


@profiled_op
def permute(input, *dims):
    """Reorder dimensions (a view).

    >>> permute(Variable(numpy.zeros((2, 3, 4))), 2, 0, 1).shape
    (4, 2, 3)
    """
    cdef Variable x = _as_variable(input, "permute")
    if len(dims) == 0:
        raise TypeError("permute() missing 1 required positional argument: \"dims\"")
    cdef tuple perm = _shape_args(dims)
    cdef Py_ssize_t n = x._data.ndim
    if len(perm) != n:
        raise RuntimeError("permute(sparse_coo): number of dimensions in the tensor input does "
                           "not match the length of the desired ordering of dimensions i.e. "
                           "input.dim() = %d is not equal to len(dims) = %d" % (n, len(perm)))
    perm = tuple(_normalize_dim(d, n, "permute") for d in perm)
    if len(set(perm)) != n:
        raise RuntimeError("permute(): duplicate dims are not allowed.")
    data = x._data.transpose(perm)
    cdef PermuteBackward node = None
    if _records(x):
        node = PermuteBackward.__new__(PermuteBackward)
        inverse = [0] * n
        for i in range(n):
            inverse[perm[i]] = i
        node.inverse = tuple(inverse)
    return _shape_result(x, data, node, 1, perm)


@profiled_op
def transpose(input, dim0, dim1):
    """Swap two dimensions (a view).

    >>> transpose(Variable(numpy.zeros((2, 3, 4))), 0, 2).shape
    (4, 3, 2)
    """
    cdef Variable x = _as_variable(input, "transpose")
    cdef Py_ssize_t n = x._data.ndim
    if n == 0:
        _normalize_dim(dim0, n, "transpose")
        _normalize_dim(dim1, n, "transpose")
        return permute(x, ())
    perm = list(range(n))
    a = _normalize_dim(dim0, n, "transpose")
    b = _normalize_dim(dim1, n, "transpose")
    perm[a], perm[b] = perm[b], perm[a]
    out = permute(x, tuple(perm))
    _retype_node(out, x, PermuteBackward, TransposeBackward)
    return out


@profiled_op
def t(input):
    """Transpose a Variable of at most 2 dimensions.

    >>> t(Variable(numpy.array([[1., 2.]])))
    tensor([[1.],
            [2.]], dtype=float64)
    """
    cdef Variable x = _as_variable(input, "t")
    if x._data.ndim > 2:
        raise RuntimeError("t(): t() expects a tensor with <= 2 dimensions, but self is %dD"
                           % x._data.ndim)
    out = permute(x, tuple(range(x._data.ndim))[::-1])
    _retype_node(out, x, PermuteBackward, TBackward)
    return out


@profiled_op
def unsqueeze(input, dim):
    """Insert a dimension of size 1 at ``dim``.

    >>> unsqueeze(Variable(numpy.zeros(3)), -1).shape
    (3, 1)
    """
    cdef Variable x = _as_variable(input, "unsqueeze")
    cdef Py_ssize_t d = _normalize_dim(dim, x._data.ndim + 1, "unsqueeze")
    shape = x._data.shape
    out = _reshape(x, shape[:d] + (1,) + shape[d:], False)
    _retype_node(out, x, ViewBackward, UnsqueezeBackward)
    return out


@profiled_op
def squeeze(input, dim=None):
    """Remove dimensions of size 1 (all of them, or those in ``dim``).

    >>> squeeze(Variable(numpy.zeros((1, 3, 1)))).shape, squeeze(Variable(numpy.zeros((1, 3, 1))), 0).shape
    ((3,), (3, 1))
    """
    cdef Variable x = _as_variable(input, "squeeze")
    shape = x._data.shape
    if dim is None:
        dims = tuple(i for i, s in enumerate(shape) if s == 1)
    else:
        dims = tuple(d for d in _normalize_dims(dim, len(shape), "squeeze") if shape[d] == 1)
    out = _reshape(x, tuple(s for i, s in enumerate(shape) if i not in dims), False)
    _retype_node(out, x, ViewBackward, SqueezeBackward)
    return out


# -- basic indexing -------------------------------------------------------------------

cdef bint _sequence_as_tuple(list key):
    # torch's (and old NumPy's) rule: a list shorter than 32 holding a sequence, a
    # Variable, an array, a slice, Ellipsis or None indexes like the tuple of its items
    # (x[[[0, 4], [2, 2]]] is x[[0, 4], [2, 2]]), with torch's deprecation warning.
    if len(key) >= 32:
        return False
    for k in key:
        # (any sequence but a string counts, a range too: torch's PySequence_Check)
        if (k is None or k is Ellipsis or isinstance(k, (list, tuple, slice, Variable))
                or type(k) is numpy.ndarray or hasattr(k, "__cuda_array_interface__")
                or (isinstance(k, _abc.Sequence) and not isinstance(k, (str, bytes)))):
            warnings.warn(
                "Using a non-tuple sequence for multidimensional indexing is deprecated and "
                "will be changed in pytorch 2.9; use x[tuple(seq)] instead of x[seq]. In "
                "pytorch 2.9 this will be interpreted as tensor index, x[torch.tensor(seq)], "
                "which will result either in an error or a different result", UserWarning,
                stacklevel=3)
            return True
    return False


cdef object _UINT8 = numpy.dtype(numpy.uint8)


cdef object _index_key(object key, object like):
    # Unwrap Variables used as indices; plain ints, slices, None and Ellipsis pass as is.
    # A list becomes an index array with the array module of `like` (the indexed data),
    # so a GPU Variable's list key is made on the GPU.
    if isinstance(key, list) and _sequence_as_tuple(<list>key):
        key = tuple(key)
    key = _index_key_part(key, like)
    if type(key) is tuple:
        key = _expand_ellipses(<tuple>key, like.ndim)
    return key


cdef object _expand_ellipses(tuple key, Py_ssize_t ndim):
    # torch takes several Ellipses in one key (NumPy refuses): each skips the dimensions
    # the other items do not name, ndim - (ints, slices and index arrays, a mask counting
    # its dimensions), as full slices while the input has dimensions left; an item after
    # a skip past the last dimension is an IndexError. x[..., ...] is x, x[..., 1, ...]
    # is x[:, 1] for a matrix. (torch also takes a slice starting at 0 past the last
    # dimension, as a no-op: that quirk is not copied.)
    cdef Py_ssize_t n = 0, specified = 0, skip, e, remaining = ndim
    cdef bint past = False
    for k in key:
        if k is Ellipsis:
            n += 1
    if n < 2:
        return key
    for k in key:
        if k is None or k is Ellipsis or type(k) is bool:
            continue
        dt = getattr(k, "dtype", None)
        if dt is not None and dt.kind == "b":
            specified += k.ndim
        else:
            specified += 1
    skip = ndim - specified if ndim > specified else 0
    out = []
    for k in key:
        if k is Ellipsis:
            e = skip if skip < remaining else remaining
            out.extend((slice(None),) * e)
            remaining -= e
            if e < skip:
                past = True
            continue
        if past:
            raise IndexError("__getitem__(): too many indices for a Variable of dimension %d"
                             % ndim)
        if not (k is None or type(k) is bool):
            dt = getattr(k, "dtype", None)
            remaining -= k.ndim if (dt is not None and dt.kind == "b") else 1
        out.append(k)
    return tuple(out)


cdef object _byte_mask(object data):
    # torch reads a uint8 index as a mask (deprecated, with this warning): indexing and
    # index_put both
    warnings.warn("indexing with dtype torch.uint8 is now deprecated, please use a "
                  "dtype torch.bool instead.", UserWarning, stacklevel=3)
    return data.astype(bool)


cdef object _index_key_part(object key, object like):
    if isinstance(key, Variable):
        if (<Variable>key)._data.dtype == _UINT8:
            return _byte_mask((<Variable>key)._data)
        kd = (<Variable>key)._data
        if type(kd) is _NDARRAY and (<cnp.ndarray>kd).ndim == 0 and kd.dtype.kind in "iu":
            return int(kd)      # torch reads a 0-d integer index as an int: a view, no copy
        return kd
    if isinstance(key, tuple):
        # an item that is itself a tuple is an index array, as a list is (torch reads
        # x[((True, False), (False, False)), 0] as a (2, 2) mask, then an int)
        return tuple(_index_key_part(list(k) if isinstance(k, tuple) else k, like)
                     for k in key)
    if isinstance(key, list):
        arr = _xp_of(like).asarray(key)
        if arr.size == 0 and arr.dtype.kind == "f":
            arr = arr.astype(numpy.int64)     # [] selects nothing (NumPy reads float64)
        return arr
    if type(key) is str or type(key) is bytes:
        # torch reads a string index as a dtype for a new tensor: TypeError
        raise TypeError("__getitem__(): invalid index of type %s" % type(key).__name__)
    return key


cdef object _mask_mismatch(object key, tuple shape):
    # torch's message for the first boolean mask in `key` whose shape does not match the
    # dimensions it indexes, or None.
    cdef Py_ssize_t dim = 0
    for k in (key if isinstance(key, tuple) else (key,)):
        if k is None or type(k) is bool:
            continue
        if k is Ellipsis:
            return None                 # (the dims after it are not placed here)
        dt = getattr(k, "dtype", None)
        if dt is not None and dt.kind == "b" and k.ndim:
            for j in range(k.ndim):
                if dim + j >= len(shape) or k.shape[j] != shape[dim + j]:
                    return ("The shape of the mask %s at index %d does not match the shape "
                            "of the indexed tensor %s at index %d"
                            % (_shape_str(k.shape), j, _shape_str(shape), dim + j))
            dim += k.ndim
        else:
            dim += 1
    return None


cdef bint _is_basic_key(object key):
    if isinstance(key, tuple):
        for k in key:
            if not (k is None or k is Ellipsis or isinstance(k, (int, slice))):
                return False
        return True
    return key is None or key is Ellipsis or isinstance(key, (int, slice))


cdef object _with_ellipsis(object key):
    if isinstance(key, tuple):
        for k in key:
            if k is Ellipsis:
                return key
        return key + (Ellipsis,)
    if key is Ellipsis:
        return key
    return (key, Ellipsis)


cdef tuple _split_mixed_key(object key):
    # torch applies the ints of a key before its index arrays (as selects); NumPy counts
    # them as index arrays, which moves the indexed dims to the front when a slice
    # separates them (x[0, :, [1, 2]] is (4, 2) in torch, (2, 4) in NumPy for x of shape
    # (3, 4, 5)). Such a key is applied in two steps: the basic part, then the arrays.
    # Returns None for a key NumPy already indexes like torch.
    if not isinstance(key, tuple):
        return None
    cdef bint has_int = False, has_array = False
    for k in key:
        if isinstance(k, int) and not isinstance(k, bool):
            has_int = True
        elif not (k is None or k is Ellipsis or isinstance(k, slice)):
            has_array = True
    if not (has_int and has_array):
        return None
    first = []
    second = []
    for k in key:
        if isinstance(k, int) and not isinstance(k, bool):
            first.append(k)
        elif k is None or isinstance(k, slice):
            first.append(k)
            second.append(slice(None))
        elif k is Ellipsis:
            first.append(k)
            second.append(k)
        else:
            nd = getattr(k, "ndim", None)
            if nd is None:
                nd = numpy.ndim(k)
            bool_mask = getattr(k, "dtype", None) is not None and k.dtype.kind == "b"
            first.extend([slice(None)] * (nd if bool_mask else 1))
            second.append(k)
    return _with_ellipsis(tuple(first)), tuple(second)


cdef object _key_get(object data, object key):
    # data[key] with torch's placement of the indexed dims.
    split = _split_mixed_key(key)
    if split is None:
        return data[key]
    return data[split[0]][split[1]]


cdef void _key_set(object data, object key, object value) except *:
    split = _split_mixed_key(key)
    token = _fp_quiet_enter()       # (nan, inf or too large into an integer: silent, as torch)
    try:
        if split is None:
            data[key] = value
        else:
            data[split[0]][split[1]] = value
    finally:
        _fp_quiet_exit(token)


cdef class _KeyNode(Node):
    # Keeps an index key. A key with index arrays is a saved value (torch saves the
    # indices): freed after backward, and a second backward is refused. Basic keys
    # (ints, slices) are kept, as torch keeps them.
    cdef object key

    cdef void _release_saved(self) noexcept:
        self._released = True
        if not _is_basic_key(self.key):
            self.key = _FREED

    cdef object saved_key(self):
        if self.key is _FREED:
            raise _freed_error(self)
        return self.key


cdef object _FREED = object()
cdef object _INTP = numpy.dtype(numpy.intp)


cdef class IndexBackward(_KeyNode):
    cdef tuple input_shape
    cdef object dtype
    cdef object flat            # gather on NumPy: the key as positions in the flat input

    cdef tuple _backward(self, tuple grads):
        key = self.saved_key()
        if self.flat is not None and not _grad_enabled():
            # numpy.add.at with one flat index runs a fast loop; with the key's tuple of
            # broadcast index arrays it goes through its general path, ~10x slower.
            gd = (<Variable>grads[0])._data
            data = numpy.zeros(self.input_shape, dtype=gd.dtype)
            numpy.add.at(data.reshape(-1), self.flat.reshape(-1), gd.reshape(-1))
            return (_raw(data),)
        return (_index_put_into_zeros(grads[0], key, self.input_shape),)

    cdef void _release_saved(self) noexcept:
        _KeyNode._release_saved(self)
        self.flat = None


cdef class IndexPutBackward(_KeyNode):
    # Adjoint of indexing: its backward indexes the gradient the same way.
    cdef tuple _backward(self, tuple grads):
        return (getitem(grads[0], self.saved_key()),)


cdef Variable _index_put_into_zeros(Variable g, object key, tuple shape):
    xp = _xp_of(g._data)
    data = xp.zeros(shape, dtype=g._data.dtype)
    split = _split_mixed_key(key)
    if split is not None:
        data_part = data[split[0]]
        key = split[1]
    else:
        data_part = data
    if _is_basic_key(key):
        data_part[key] = g._data
    elif xp is numpy:
        # Repeated indices must add up, not overwrite.
        numpy.add.at(data_part, key, g._data)
    else:
        import cupyx
        cupyx.scatter_add(data_part, key, g._data)
    cdef IndexPutBackward node
    if _records(g):
        node = IndexPutBackward.__new__(IndexPutBackward)
        node.key = key
        return _recorded1(node, data, _edge(g))
    return _plain(data, g._volatile)


# torch's names for basic indexing, by the last view op it applies for the key
cdef class SelectBackward(IndexBackward):
    pass


cdef class SliceBackward(IndexBackward):
    pass


cdef class _IndexUnsqueezeBackward(IndexBackward):
    # x[None] (the name of unsqueeze()'s own node class)
    def name(self):
        return _display_name_or(self, "UnsqueezeBackward")


cdef class GatherBackward(IndexBackward):
    pass


cdef class IndexSelectBackward(IndexBackward):
    pass


cdef int _basic_key_view(object key):
    # The last view op torch applies for a basic key, which names its node: 1 a select
    # (an int), 2 a slice, 3 an unsqueeze (None), 0 another. Full slices and Ellipsis
    # apply nothing, unless nothing else is there (x[:] is a slice).
    cdef tuple items = key if type(key) is tuple else (key,)
    cdef Py_ssize_t i
    for i in range(len(items) - 1, -1, -1):
        k = items[i]
        if k is None:
            return 3
        if k is Ellipsis:
            continue
        if type(k) is slice:
            if (<slice>k).start is None and (<slice>k).stop is None and \
                    (<slice>k).step is None:
                continue
            return 2
        if type(k) is int:
            return 1
        return 0
    return 2


@profiled_op
def getitem(input, key):
    """``input[key]``: ints, slices, None, Ellipsis, and integer or boolean arrays.

    >>> x = Variable(numpy.array([1., 2., 3.]), requires_grad=True)
    >>> x[[0, 0, 2]].sum().backward()          # repeated indices add up
    >>> x.grad
    tensor([2., 0., 1.], dtype=float64)
    """
    cdef Variable x = _as_variable(input, "__getitem__")
    key = _index_key(key, x._data)
    cdef bint basic = _is_basic_key(key)
    try:
        # A trailing Ellipsis makes NumPy return a 0-d view, not a scalar copy, so that
        # x[0].add_(1) changes x, as in torch.
        data = x._data[_with_ellipsis(key)] if basic else _key_get(x._data, key)
    except IndexError as exc:
        message = _mask_mismatch(key, x._data.shape)
        if message is not None:
            raise IndexError("__getitem__(): " + message) from None
        raise IndexError("__getitem__(): index %r is out of bounds for a Variable of shape %s: %s"
                         % (key, _shape_str(x._data.shape), exc)) from None
    cdef IndexBackward node = None
    cdef int kind
    if _records(x):
        kind = _basic_key_view(key) if basic else 0
        if kind == 1:
            node = SelectBackward.__new__(SelectBackward)
        elif kind == 2:
            node = SliceBackward.__new__(SliceBackward)
        elif kind == 3:
            node = _IndexUnsqueezeBackward.__new__(_IndexUnsqueezeBackward)
        else:
            node = IndexBackward.__new__(IndexBackward)
        node.key = key
        node.input_shape = x._data.shape
    if basic:
        return _shape_result(x, _ensure_array(data), node, 2, key)
    if node is not None:
        return _recorded1(node, data, _edge(x))
    return _plain(data, x._volatile)


# -- broadcasting and its adjoint, the broadcast reduction every backward uses ----------

cdef class SumToBackward(Node):
    cdef tuple input_shape

    cdef tuple _backward(self, tuple grads):
        return (_grad(_v_broadcast_to(_gv(grads[0], _grad_enabled()), self.input_shape)),)


cdef void _check_expandable(tuple shape, tuple target, str what) except *:
    # `shape` must broadcast to `target` (the sizes of a sum_to): no longer, each size an
    # int, 1 or equal. _sum_to_data indexes the shape with these, unchecked.
    cdef Py_ssize_t i, lead = len(target) - len(shape)
    cdef bint ok = lead >= 0
    if ok:
        for i in range(len(shape)):
            n = shape[i]
            if not ((type(n) is int or isinstance(n, numpy.integer))
                    and (n == 1 or n == target[lead + i])):
                ok = False
                break
    if not ok:
        raise RuntimeError("%s(): size %s is not expandable to size %s"
                           % (what, _shape_str(shape), _shape_str(target)))


@profiled_op
cpdef Variable sum_to(object input, object shape):
    """Sum ``input`` over broadcast dimensions so it has ``shape`` (adjoint of broadcast_to).

    Every op's backward uses it to reduce a broadcast gradient to its input's shape.

    >>> sum_to(Variable(numpy.ones((2, 3))), (1, 3))
    tensor([[2., 2., 2.]], dtype=float64)
    """
    cdef Variable x = _as_variable(input, "sum_to")
    shape = tuple(shape)
    if _has_shape(x._data, shape):
        return x
    _check_expandable(shape, x._data.shape, "sum_to")
    data = _sum_to_data(x._data, shape)
    cdef SumToBackward node
    if _records(x):
        node = SumToBackward.__new__(SumToBackward)
        node.input_shape = x._data.shape
        return _recorded1(node, data, _edge(x))
    return _plain(data, x._volatile)


cdef class ExpandBackward(Node):
    cdef tuple input_shape

    cdef tuple _backward(self, tuple grads):
        return (_grad(_v_sum_to(_gv(grads[0], _grad_enabled()), self.input_shape)),)


@profiled_op
cpdef Variable broadcast_to(object input, object shape):
    """Broadcast ``input`` to ``shape`` (a read-only view, as NumPy's broadcast_to).

    >>> broadcast_to(Variable(numpy.array([1., 2.])), (2, 2))
    tensor([[1., 2.],
            [1., 2.]], dtype=float64)
    """
    cdef Variable x = _as_variable(input, "broadcast_to")
    shape = tuple(shape)
    cdef Py_ssize_t lead = len(shape) - x._data.ndim
    if -1 in shape and lead >= 0:
        # -1 keeps an existing dimension (torch's broadcast_to is expand)
        shape = tuple([x._data.shape[i - lead] if i >= lead and shape[i] == -1 else shape[i]
                       for i in range(len(shape))])
    if x._data.shape == shape:
        return x
    try:
        data = _broadcast_data(x._data, shape)
    except ValueError:
        raise RuntimeError(_expand_mismatch("broadcast_to", x._data.shape, shape)) from None
    if 0 < lead < len(shape) and 1 in shape[:lead]:     # (a 0-d input: all 0, as torch)
        data = _torch_lead_strides(data, lead)
    cdef ExpandBackward node = None
    if _records(x):
        node = ExpandBackward.__new__(ExpandBackward)
        node.input_shape = x._data.shape
    # A view of x (its history is rebuilt after an in-place change of x, as torch's).
    return _shape_result(x, data, node, 4, shape)


cdef object _torch_lead_strides(object data, Py_ssize_t lead):
    # NumPy gives every new leading dimension stride 0; torch's expand gives a new one of
    # size 1 the stride unsqueeze would (the next size times the next stride), which
    # .stride() shows. (A size-1 dimension's stride never moves the data pointer.)
    strides = list(data.strides)
    cdef Py_ssize_t i
    for i in range(lead - 1, -1, -1):
        if data.shape[i] == 1:
            strides[i] = data.shape[i + 1] * strides[i + 1]
    if type(data) is _NDARRAY:            # (read-only, as broadcast_to's result)
        return numpy.lib.stride_tricks.as_strided(data, data.shape, tuple(strides),
                                                  writeable=False)
    return _xp_of(data).lib.stride_tricks.as_strided(data, data.shape, tuple(strides))


@profiled_op
def expand(input, *sizes):
    """Broadcast to ``sizes``; ``-1`` keeps a dimension (torch's expand).

    >>> expand(Variable(numpy.array([[1.], [2.]])), -1, 3)
    tensor([[1., 1., 1.],
            [2., 2., 2.]], dtype=float64)
    """
    cdef Variable x = _as_variable(input, "expand")
    if len(sizes) == 0:
        raise TypeError("expand() missing 1 required positional argument: \"size\"")
    if len(sizes) == 1 and isinstance(sizes[0], (tuple, list)):
        sizes = tuple(sizes[0])
    lead = len(sizes) - x._data.ndim
    if lead < 0:
        raise RuntimeError("expand(): the number of sizes provided (%d) must be greater or equal "
                           "to the number of dimensions in the tensor (%d)"
                           % (len(sizes), x._data.ndim))
    for i in range(lead):
        if sizes[i] == -1:
            raise RuntimeError("expand(): The expanded size of the tensor (-1) isn't "
                               "allowed in a leading, non-existing dimension %d" % i)
    shape = tuple(x._data.shape[i - lead] if s == -1 and i >= lead else s
                  for i, s in enumerate(sizes))
    if shape == x._data.shape:
        return _same_shape_expand(x)
    return broadcast_to(x, shape)


cdef Variable _same_shape_expand(Variable x):
    # torch's expand to the input's own shape is a new view (x.expand_as(x) is not x;
    # broadcast_to, which every backward uses, keeps returning x itself)
    data = _xp_of(x._data).broadcast_to(x._data, x._data.shape)
    cdef ExpandBackward node = None
    if _records(x):
        node = ExpandBackward.__new__(ExpandBackward)
        node.input_shape = x._data.shape
    return _shape_result(x, data, node, 4, x._data.shape)



# -- joining and splitting ----------------------------------------------------------

cdef list _variable_sequence(object tensors, str what):
    # A list or tuple of Variables (arrays are wrapped), as torch takes them.
    if isinstance(tensors, Variable) or not isinstance(tensors, (list, tuple)):
        raise TypeError("%s(): argument 'tensors' must be a sequence of Variables, not %s"
                        % (what, type(tensors).__name__))
    if len(tensors) == 0:
        # torch: ValueError for cat (and its concat / concatenate names), RuntimeError
        # for the others
        raise (ValueError if what.startswith("cat") else RuntimeError)(
            "%s(): expected a non-empty list of Variables" % what)
    return [_as_variable(t, what) for t in tensors]


cdef class CatBackward(Node):
    cdef Py_ssize_t dim
    cdef tuple sizes                  # each input's size along dim (None: skipped input)
    cdef tuple dtypes

    cdef tuple _backward(self, tuple grads):
        g = _gv(grads[0], _grad_enabled())
        out = []
        cdef Py_ssize_t start = 0
        for i in range(len(self.sizes)):
            size = self.sizes[i]
            if size is None:                # a legacy empty 1-d input: an empty gradient
                out.append(_plain(_xp_of(_v_array(g)).zeros((0,), dtype=self.dtypes[i]), False)
                           if self._needs_input_grad(i) else None)
                continue
            if self._needs_input_grad(i):   # a view of g's slice
                out.append(_grad(_v_reduce(_v_narrow(g, self.dim, start, size), None,
                                           self.dtypes[i])))
            else:
                out.append(None)
            start += size
        return tuple(out)


cdef str _expand_mismatch(str what, tuple have, tuple want):
    # torch's expand error: the first dimension (from the right) that cannot broadcast
    cdef Py_ssize_t i, k, n = len(want), m = len(have)
    if m > n:
        return ("%s(): the number of sizes provided (%d) must be greater or equal to the "
                "number of dimensions in the tensor (%d)" % (what, n, m))
    for i in range(m - 1, -1, -1):
        k = i + n - m
        if have[i] != 1 and have[i] != want[k]:
            return ("%s(): The expanded size of the tensor (%d) must match the existing size "
                    "(%d) at non-singleton dimension %d.  Target sizes: %s.  Tensor sizes: %s"
                    % (what, want[k], have[i], k, list(want), list(have)))
    return "%s(): the shape %s cannot be broadcast to %s" % (what, _shape_str(have),
                                                             _shape_str(want))


cdef class StackBackward(CatBackward):
    # torch's name for stack, which pyad records as a cat of unsqueezed inputs
    pass


@profiled_op
def cat(tensors, dim=0, *, out=None):
    """Concatenate Variables along an existing dimension ``dim``.

    >>> cat([Variable(numpy.ones((1, 2))), Variable(numpy.zeros((2, 2)))]).shape
    (3, 2)
    """
    if out is not None: return _write_out("cat", out, cat(tensors, dim), _OUT_CAT)
    cdef list xs = _variable_sequence(tensors, "cat")
    cdef list used = []
    cdef Variable x, ref = None
    for i, x in enumerate(xs):
        if x._data.ndim == 0:
            raise RuntimeError("cat(): zero-dimensional Variable (at position %d) cannot be "
                               "concatenated" % i)
        if ref is None and not (x._data.ndim == 1 and x._data.shape[0] == 0):
            ref = x
    cdef Py_ssize_t d
    if ref is None:
        # only legacy empty 1-d inputs: torch checks no dim and returns an empty 1-d
        # Variable of the promoted dtype
        ref = xs[0]
        _index_arg(dim, "cat", "dim")
        d = 0
    else:
        d = _normalize_dim(dim, ref._data.ndim, "cat")
    sizes = []
    for i, x in enumerate(xs):
        if x is not ref and x._data.ndim == 1 and x._data.shape[0] == 0:
            sizes.append(None)          # torch skips legacy empty 1-d inputs
            continue
        same = x._data.ndim == ref._data.ndim
        if same:
            for k in range(x._data.ndim):
                if k != d and x._data.shape[k] != ref._data.shape[k]:
                    same = False
        if not same:
            raise RuntimeError("cat(): sizes of Variables must match except in dimension %d; "
                               "got %s and %s (at position %d)"
                               % (d, _shape_str(ref._data.shape), _shape_str(x._data.shape), i))
        sizes.append(x._data.shape[d])
        used.append(x._data)
    xp = _xp_of(ref._data)
    rt = _dtype(ref._data)
    for v in xs:                    # (the skipped empty inputs take part in the promotion)
        a = (<Variable>v)._data
        if _dtype(a) is not rt:
            rt = _promote_pair(rt, a.dtype)
    if all([_dtype(a) is rt for a in used]):
        data = xp.concatenate(used, axis=d)
    else:
        # torch's promotion (int64 with float32 is float32; NumPy would widen to float64)
        data = xp.concatenate(used, axis=d, dtype=rt)
    cdef CatBackward node
    cdef bint records = False, volatile = False
    for x in xs:
        records = records or _requires_grad_now(x)
        volatile = volatile or x._volatile
    if records and _grad_enabled():
        node = CatBackward.__new__(CatBackward)
        node.dim = d
        node.sizes = tuple(sizes)
        node.dtypes = tuple([(<Variable>v)._data.dtype for v in xs])
        return _recorded(node, data, tuple([_edge(<Variable>v) for v in xs]))
    return _plain(data, volatile)


@profiled_op
def concat(tensors, dim=0, *, out=None):
    """Alias of :func:`cat`.

    >>> concat([Variable(numpy.ones(2)), Variable(numpy.zeros(1))])
    tensor([1., 1., 0.], dtype=float64)
    """
    if out is not None: return _write_out("concat", out, concat(tensors, dim), _OUT_CAT)
    return cat(tensors, dim)


@profiled_op
def concatenate(tensors, axis=0, *, out=None):
    """Alias of :func:`cat` (NumPy's name, with ``axis``).

    >>> concatenate([Variable(numpy.ones(2)), Variable(numpy.zeros(1))])
    tensor([1., 1., 0.], dtype=float64)
    """
    if out is not None: return _write_out("concatenate", out, concatenate(tensors, axis),
                                          _OUT_CAT)
    try:
        return cat(tensors, axis)
    except _OP_ERRORS as exc:
        raise _renamed(exc, "concatenate") from None


@profiled_op
def stack(tensors, dim=0, *, out=None):
    """Join Variables of equal shape along a new dimension ``dim``.

    >>> stack([Variable(numpy.ones(3)), Variable(numpy.zeros(3))], 1).shape
    (3, 2)
    """
    if out is not None: return _write_out("stack", out, stack(tensors, dim), _OUT_CAT)
    cdef list xs = _variable_sequence(tensors, "stack")
    cdef Variable x
    shape = (<Variable>xs[0])._data.shape
    for i, x in enumerate(xs):
        if x._data.shape != shape:
            raise RuntimeError("stack(): expects each Variable to be equal size, but got %s at "
                               "entry 0 and %s at entry %d"
                               % (_shape_str(shape), _shape_str(x._data.shape), i))
    d = _normalize_dim(dim, len(shape) + 1, "stack")
    result = cat([unsqueeze(x, d) for x in xs], d)
    _retype_node(result, None, CatBackward, StackBackward)
    return result


@profiled_op
def hstack(tensors, *, out=None):
    """Concatenate horizontally: along dim 1, or dim 0 for 1-d inputs (0-d become 1-d).

    >>> hstack([Variable(numpy.ones((2, 1))), Variable(numpy.zeros((2, 2)))]).shape
    (2, 3)
    """
    if out is not None: return _write_out("hstack", out, hstack(tensors), _OUT_CAT)
    cdef list xs = _variable_sequence(tensors, "hstack")
    xs = [reshape(x, (1,)) if (<Variable>x)._data.ndim == 0 else x for x in xs]
    return cat(xs, 0 if (<Variable>xs[0])._data.ndim == 1 else 1)


@profiled_op
def vstack(tensors, *, out=None):
    """Concatenate vertically (along dim 0), after making every input at least 2-d.

    >>> vstack([Variable(numpy.ones(3)), Variable(numpy.zeros(3))]).shape
    (2, 3)
    """
    if out is not None: return _write_out("vstack", out, vstack(tensors), _OUT_CAT)
    cdef list xs = _variable_sequence(tensors, "vstack")
    cdef Variable x
    out = []
    for x in xs:
        if x._data.ndim < 2:
            x = reshape(x, (1, x._data.size))
        out.append(x)
    return cat(out, 0)


@profiled_op
def row_stack(tensors, *, out=None):
    """Alias of :func:`vstack`.

    >>> row_stack([Variable(numpy.ones(2)), Variable(numpy.zeros(2))]).shape
    (2, 2)
    """
    if out is not None: return _write_out("row_stack", out, row_stack(tensors), _OUT_CAT)
    try:
        return vstack(tensors)
    except _OP_ERRORS as exc:
        raise _renamed(exc, "row_stack") from None


@profiled_op
def narrow(input, dim, start, length):
    """The slice ``start:start + length`` of dimension ``dim`` (a view).

    >>> narrow(Variable(numpy.arange(5.)), 0, 1, 3)
    tensor([1., 2., 3.], dtype=float64)
    """
    cdef Variable x = _as_variable(input, "narrow")
    if x._data.ndim == 0:
        raise RuntimeError("narrow(): cannot be applied to a 0-dim Variable")
    cdef Py_ssize_t d = _normalize_dim(dim, x._data.ndim, "narrow")
    cdef Py_ssize_t n = x._data.shape[d]
    if isinstance(start, Variable) and not ((<Variable>start)._data.ndim == 0 and
                                            (<Variable>start)._data.dtype.kind in "iu"):
        # torch's narrow(Tensor start) overload takes a 0-d integer one only
        raise RuntimeError("narrow(): start must be an 0-dim integral Tensor.")
    s = _int_arg(start, "narrow", "start")
    l = _int_arg(length, "narrow", "length")
    if s < -n or s > n:
        raise IndexError("narrow(): start (%d) out of range for dimension %d of size %d"
                         % (s, d, n))
    if s < 0:
        s += n
    if l < 0:
        raise RuntimeError("narrow(): length must be non-negative, got %d" % l)
    if s + l > n:
        raise RuntimeError("narrow(): start (%d) + length (%d) exceeds dimension size (%d)"
                           % (s, l, n))
    return getitem(x, (slice(None),) * d + (slice(s, s + l),))


cdef Py_ssize_t _int_arg(object value, str what, str name) except? -1:
    if isinstance(value, Variable):
        if (<Variable>value)._data.ndim == 0 and (<Variable>value)._data.dtype.kind in "iu":
            return int((<Variable>value)._data)
    elif isinstance(value, (int, numpy.integer)) and not isinstance(value, bool):
        return value
    raise TypeError("%s(): argument '%s' must be an int, not %s"
                    % (what, name, type(value).__name__))


@profiled_op
def select(input, dim, index):
    """The slice at ``index`` of dimension ``dim``, which is removed (a view).

    >>> select(Variable(numpy.arange(6.).reshape(2, 3)), 1, -1)
    tensor([2., 5.], dtype=float64)
    """
    cdef Variable x = _as_variable(input, "select")
    if x._data.ndim == 0:
        raise IndexError("select(): cannot be applied to a 0-dim Variable")
    cdef Py_ssize_t d = _normalize_dim(dim, x._data.ndim, "select")
    cdef Py_ssize_t n = x._data.shape[d]
    i = _int_arg(index, "select", "index")
    if i < -n or i >= n:
        raise IndexError("select(): index %d out of range for a Variable of size %s at "
                         "dimension %d" % (i, _shape_str(x._data.shape), d))
    return getitem(x, (slice(None),) * d + ((i + n if i < 0 else i),))


cdef class SplitWithSizesBackward(_GroupBackward):
    pass


cdef class SplitBackward(_GroupBackward):
    pass


cdef class UnbindBackward(_GroupBackward):
    pass


cdef class UnsafeSplitBackward(_GroupBackward):
    pass


cdef class UnsafeSplitWithSizesBackward(_GroupBackward):
    pass


cdef tuple _multi_output_views(_GroupBackward group, tuple outs):
    # torch's multi-output view ops: one node for all outputs, and views that may not be
    # modified in place while autograd records (CreationMeta::MULTI_OUTPUT_NODE).
    cdef Variable o
    _group_outputs(group, outs)
    if _grad_enabled():
        for o in outs:
            if o._is_view:
                o._view_creation = _VIEW_MULTI_OUTPUT
    return outs


cdef tuple _unsafe_outputs(tuple outs):
    # unsafe_split / unsafe_chunk: the outputs share memory with the input but are not
    # views for autograd (own version counters, no view replay), as torch's: modifying
    # them in place is allowed and recorded on the output alone.
    cdef Variable o
    for o in outs:
        o._is_view = False
        o._view_base = None
        o._view_fn = None
        o._view_creation = _VIEW_DEFAULT
        o._view_no_grad = False
        o._version_counter = None
    return outs


cdef tuple _split_with_sizes(Variable x, object split_sizes, object dim, str what):
    if x._data.ndim == 0:
        raise RuntimeError("%s(): cannot be applied to a 0-dim Variable" % what)
    cdef Py_ssize_t d = _normalize_dim(dim, x._data.ndim, what)
    if not isinstance(split_sizes, (list, tuple)):
        raise TypeError("%s(): split_sizes must be a list of ints, not %s"
                        % (what, type(split_sizes).__name__))
    sizes = [_int_arg(s, what, "split_sizes") for s in split_sizes]
    if any(s < 0 for s in sizes) or builtins.sum(sizes) != x._data.shape[d]:
        raise RuntimeError("%s(): expects split_sizes to be non-negative and to "
                           "sum exactly to %d (the size of dimension %d), but got %s"
                           % (what, x._data.shape[d], d, list(sizes)))
    out = []
    start = 0
    for s in sizes:
        out.append(narrow(x, d, start, s))
        start += s
    return tuple(out)


cdef tuple _split(Variable x, object split_size, object dim, str what):
    if x._data.ndim == 0:
        raise RuntimeError("%s(): cannot be applied to a 0-dim Variable" % what)
    cdef Py_ssize_t d = _normalize_dim(dim, x._data.ndim, what)
    cdef Py_ssize_t n = x._data.shape[d]
    size = _int_arg(split_size, what, "split_size")
    if size < 0 or (size == 0 and n != 0):
        raise RuntimeError("%s(): split_size can only be 0 if dimension size is 0, and "
                           "must be non-negative, but got split_size %d for dimension size %d"
                           % (what, size, n))
    if size == 0:
        return (narrow(x, d, 0, 0),)
    return _split_with_sizes(x, [builtins.min(size, n - k) for k in range(0, n, size)] or [0],
                             d, what)


cdef tuple _chunk(Variable x, object chunks, object dim, str what):
    c = _int_arg(chunks, what, "chunks")
    if c <= 0:
        raise RuntimeError("%s(): chunk expects `chunks` to be greater than 0, got: %d"
                           % (what, c))
    if x._data.ndim == 0:
        raise RuntimeError("%s(): cannot be applied to a 0-dim Variable" % what)
    cdef Py_ssize_t d = _normalize_dim(dim, x._data.ndim, what)
    cdef Py_ssize_t n = x._data.shape[d]
    if n == 0:
        return _split_with_sizes(x, [0] * c, d, what)
    return _split(x, (n + c - 1) // c, d, what)


@profiled_op
def split_with_sizes(input, split_sizes, dim=0):
    """Split into views of the given sizes along ``dim``.

    >>> [p.shape for p in split_with_sizes(Variable(numpy.arange(5.)), [2, 3])]
    [(2,), (3,)]
    """
    cdef Variable x = _as_variable(input, "split_with_sizes")
    return _multi_output_views(SplitWithSizesBackward.__new__(SplitWithSizesBackward),
                               _split_with_sizes(x, split_sizes, dim, "split_with_sizes"))


@profiled_op
def split(input, split_size_or_sections=None, dim=0, *, split_size=None):
    """Split into views of ``split_size`` along ``dim`` (the last may be smaller), or of
    the sizes in a list (``split_size=`` is the method's keyword name in torch).

    >>> [p.tolist() for p in split(Variable(numpy.arange(5.)), 2)]
    [[0.0, 1.0], [2.0, 3.0], [4.0]]
    """
    if split_size_or_sections is None:
        split_size_or_sections = split_size
    elif split_size is not None:
        raise TypeError("split(): got the split size twice (split_size_or_sections and "
                        "split_size)")
    if split_size_or_sections is None:
        raise TypeError("split(): missing required argument 'split_size_or_sections'")
    cdef Variable x = _as_variable(input, "split")
    if isinstance(split_size_or_sections, (list, tuple)):
        return split_with_sizes(x, split_size_or_sections, dim)
    return _multi_output_views(SplitBackward.__new__(SplitBackward),
                               _split(x, split_size_or_sections, dim, "split"))


@profiled_op
def chunk(input, chunks, dim=0):
    """Split into ``chunks`` views of equal size along ``dim`` (the last may be smaller;
    there may be fewer), as torch.chunk.

    >>> [p.tolist() for p in chunk(Variable(numpy.arange(5.)), 3)]
    [[0.0, 1.0], [2.0, 3.0], [4.0]]
    """
    cdef Variable x = _as_variable(input, "chunk")
    return _multi_output_views(SplitBackward.__new__(SplitBackward),
                               _chunk(x, chunks, dim, "chunk"))


@profiled_op
def unsafe_split(input, split_size, dim=0):
    """``split`` whose outputs are not views for autograd (torch.unsafe_split): they
    share the input's memory, but modifying one in place is allowed and recorded on it
    alone (it is then up to the caller not to use the input, or the other outputs, as
    if unchanged).

    >>> [p.tolist() for p in unsafe_split(Variable(numpy.arange(5.)), 2)]
    [[0.0, 1.0], [2.0, 3.0], [4.0]]
    """
    cdef Variable x = _as_variable(input, "unsafe_split")
    if isinstance(split_size, (list, tuple)):
        return unsafe_split_with_sizes(x, split_size, dim)
    return _unsafe_outputs(_group_outputs(UnsafeSplitBackward.__new__(UnsafeSplitBackward),
                                          _split(x, split_size, dim, "unsafe_split")))


@profiled_op
def unsafe_split_with_sizes(input, split_sizes, dim=0):
    """``split_with_sizes`` whose outputs are not views for autograd (see
    ``unsafe_split``).

    >>> [p.shape for p in unsafe_split_with_sizes(Variable(numpy.arange(5.)), [2, 3])]
    [(2,), (3,)]
    """
    cdef Variable x = _as_variable(input, "unsafe_split_with_sizes")
    return _unsafe_outputs(_group_outputs(
        UnsafeSplitWithSizesBackward.__new__(UnsafeSplitWithSizesBackward),
        _split_with_sizes(x, split_sizes, dim, "unsafe_split_with_sizes")))


@profiled_op
def unsafe_chunk(input, chunks, dim=0):
    """``chunk`` whose outputs are not views for autograd (see ``unsafe_split``).

    >>> [p.tolist() for p in unsafe_chunk(Variable(numpy.arange(5.)), 3)]
    [[0.0, 1.0], [2.0, 3.0], [4.0]]
    """
    cdef Variable x = _as_variable(input, "unsafe_chunk")
    return _unsafe_outputs(_group_outputs(UnsafeSplitBackward.__new__(UnsafeSplitBackward),
                                          _chunk(x, chunks, dim, "unsafe_chunk")))


@profiled_op
def unbind(input, dim=0):
    """The slices along ``dim``, as a tuple of views with ``dim`` removed.

    >>> unbind(Variable(numpy.arange(4.).reshape(2, 2)), 1)
    (tensor([0., 2.], dtype=float64), tensor([1., 3.], dtype=float64))
    """
    cdef Variable x = _as_variable(input, "unbind")
    if x._data.ndim == 0:
        raise IndexError("unbind(): cannot be applied to a 0-dim Variable")
    cdef Py_ssize_t d = _normalize_dim(dim, x._data.ndim, "unbind")
    return _multi_output_views(UnbindBackward.__new__(UnbindBackward),
                               tuple([select(x, d, i) for i in range(x._data.shape[d])]))


@profiled_op
def movedim(input, source, destination):
    """Move dimension(s) ``source`` to position(s) ``destination`` (a view).

    >>> movedim(Variable(numpy.zeros((2, 3, 4))), 0, -1).shape
    (3, 4, 2)
    """
    cdef Variable x = _as_variable(input, "movedim")
    cdef Py_ssize_t n = x._data.ndim
    src = list(source) if isinstance(source, (list, tuple)) else [source]
    dst = list(destination) if isinstance(destination, (list, tuple)) else [destination]
    if len(src) != len(dst):
        raise RuntimeError("movedim(): movedim: Invalid source or destination dims: source "
                           "(%s dims) should contain the same number of dims as destination "
                           "(%s dims)" % (src, dst))
    src = [_normalize_dim(s, n, "movedim") for s in src]
    dst = [_normalize_dim(s, n, "movedim") for s in dst]
    # (torch's words: "movedim: repeated dim in `source` ([0, 0])")
    if len(set(src)) != len(src):
        raise RuntimeError("movedim(): movedim: repeated dim in `source` (%s)"
                           % (list(source) if isinstance(source, (list, tuple)) else source,))
    if len(set(dst)) != len(dst):
        raise RuntimeError("movedim(): movedim: repeated dim in `destination` (%s)"
                           % (list(destination) if isinstance(destination, (list, tuple))
                              else destination,))
    if n == 0:
        return permute(x, ())
    perm = [-1] * n
    for s, t_ in zip(src, dst):
        perm[t_] = s
    rest = iter(k for k in range(n) if k not in src)
    perm = [next(rest) if p == -1 else p for p in perm]
    return permute(x, tuple(perm))


@profiled_op
def unflatten(input, dim, sizes):
    """Expand dimension ``dim`` into ``sizes`` (one may be -1), a view when possible.

    >>> unflatten(Variable(numpy.zeros((2, 6))), 1, (3, -1)).shape
    (2, 3, 2)
    """
    cdef Variable x = _as_variable(input, "unflatten")
    if x._data.ndim == 0:     # torch: IndexError out of range, else a RuntimeError
        _normalize_dim(dim, 0, "unflatten")
        raise RuntimeError("unflatten(): Dimension specified as %s but the Variable has no "
                           "dimensions" % (dim,))
    cdef Py_ssize_t d = _normalize_dim(dim, x._data.ndim, "unflatten")
    if not isinstance(sizes, (list, tuple)) or len(sizes) == 0:
        raise RuntimeError("unflatten(): sizes must be a non-empty list or tuple of ints")
    sizes = tuple(_int_arg(s, "unflatten", "sizes") for s in sizes)
    n = x._data.shape[d]
    known = 1
    for s in sizes:
        if s != -1:
            known *= s
    if list(sizes).count(-1) > 1:
        raise RuntimeError("unflatten(): only one dimension can be inferred")
    if -1 in sizes and known == 0 and n == 0 and not any(s < -1 for s in sizes):
        # (a dim of 0 elements into a shape with a 0: any -1 fits; a non-empty dim into
        # one never does, which the next check says, as torch)
        raise RuntimeError("unflatten(): cannot reshape a Variable of %d elements into shape "
                           "%s because the unspecified dimension size -1 can be any value "
                           "and is ambiguous" % (n, list(sizes)))
    if any(s < -1 for s in sizes) or (-1 not in sizes and known != n) or (
            -1 in sizes and (known == 0 or n % known)):
        raise RuntimeError("unflatten(): provided sizes %s don't multiply up to the size of "
                           "dim %d (%d) in the input Variable" % (list(sizes), d, n))
    if -1 in sizes:
        # the -1 from dim's own size (reshape could not infer it when another dim is 0)
        sizes = tuple([n // known if s == -1 else s for s in sizes])
    shape = x._data.shape
    return reshape(x, shape[:d] + sizes + shape[d + 1:])


cdef class FlipBackward(Node):
    cdef tuple dims

    cdef tuple _backward(self, tuple grads):
        return (flip(grads[0], self.dims),)


cdef object _dims_varargs(tuple args, object dims, str what):
    # flip(x, [0, 1]), flip(x, dims=[0, 1]) and x.flip(0, 1) alike
    if dims is not None:
        if args:
            raise TypeError("%s(): got dims both by position and by keyword" % what)
        return dims
    if len(args) == 1:
        return args[0]
    if not args:
        raise TypeError("%s(): missing required argument 'dims'" % what)
    return args


@profiled_op
def flip(input, *args, dims=None):
    """Reverse the order of elements along ``dims`` (a copy, as torch.flip); the dims
    may also come one by one (``x.flip(0, 1)``, as Tensor.flip).

    >>> flip(Variable(numpy.arange(4.).reshape(2, 2)), [1])
    tensor([[1., 0.],
            [3., 2.]], dtype=float64)
    """
    cdef Variable x = _as_variable(input, "flip")
    dims = _dims_varargs(args, dims, "flip")
    if isinstance(dims, (list, tuple)):
        ds = _normalize_dims(tuple(dims), x._data.ndim, "flip")
    else:
        ds = _normalize_dims(dims, x._data.ndim, "flip")
    key = tuple(slice(None, None, -1) if k in ds else slice(None)
                for k in range(x._data.ndim))
    data = x._data[key].copy()
    cdef FlipBackward node
    if _records(x):
        node = FlipBackward.__new__(FlipBackward)
        node.dims = ds
        return _recorded1(node, data, _edge(x))
    return _plain(data, x._volatile)


cdef class RollBackward(Node):
    cdef object shifts
    cdef object dims

    cdef tuple _backward(self, tuple grads):
        return (roll(grads[0], self.shifts, self.dims),)


@profiled_op
def roll(input, shifts, dims=None):
    """Roll elements along ``dims`` (of the flattened input when None) by ``shifts``.

    >>> roll(Variable(numpy.arange(4.)), 1)
    tensor([3., 0., 1., 2.], dtype=float64)
    """
    cdef Variable x = _as_variable(input, "roll")
    sh = tuple(shifts) if isinstance(shifts, (list, tuple)) else (shifts,)
    sh = tuple(_int_arg(s, "roll", "shifts") for s in sh)
    if dims is None:
        if len(sh) != 1:
            raise RuntimeError("roll(): shifts must be one int when dims is not given, got %s"
                               % (list(sh),))
        ds = None
    else:
        ds = tuple(dims) if isinstance(dims, (list, tuple)) else (dims,)
        if len(ds) != len(sh):
            raise RuntimeError("roll(): shifts and dimensions must align. shifts: %d, dims: %d"
                               % (len(sh), len(ds)))
        ds = tuple(_normalize_dim(k, x._data.ndim, "roll") for k in ds)
        if x._data.ndim == 0:
            raise IndexError("roll(): dimension specified as %s but the Variable has no "
                             "dimensions" % (dims,))
    xp = _xp_of(x._data)
    data = xp.roll(x._data, sh if ds is not None else sh[0], ds)
    cdef RollBackward node
    if _records(x):
        node = RollBackward.__new__(RollBackward)
        node.shifts = tuple(-s for s in sh) if ds is not None else -sh[0]
        node.dims = ds
        return _recorded1(node, data, _edge(x))
    return _plain(data, x._volatile)


cdef class RepeatBackward(Node):
    cdef tuple input_shape
    cdef tuple reps

    cdef tuple _backward(self, tuple grads):
        # g has shape reps[i] * padded_shape[i]: view it as (reps[0], s[0], reps[1], ...)
        # and sum over the repetition axes.
        cdef Variable g = grads[0]
        lead = len(self.reps) - len(self.input_shape)
        padded = (1,) * lead + self.input_shape
        inter = []
        axes = []
        for i in range(len(self.reps)):
            if self.reps[i] != 1:
                axes.append(len(inter))
                inter.append(self.reps[i])
            inter.append(padded[i])
        g = _reshape(g, tuple(inter), False)
        if axes:
            g = sum(g, tuple(axes))
        return (_reshape(g, self.input_shape, False),)


@profiled_op
def repeat(input, *sizes):
    """Repeat the input ``sizes[i]`` times along each dimension (torch's Tensor.repeat:
    extra leading sizes add dimensions).

    >>> repeat(Variable(numpy.array([1., 2.])), 2, 2)
    tensor([[1., 2., 1., 2.],
            [1., 2., 1., 2.]], dtype=float64)
    """
    cdef Variable x = _as_variable(input, "repeat")
    reps = tuple(_int_arg(s, "repeat", "sizes") for s in _shape_args(sizes))
    if len(reps) < x._data.ndim:
        raise RuntimeError("repeat(): number of dimensions of repeat dims (%d) can not be "
                           "smaller than number of dimensions of the Variable (%d)"
                           % (len(reps), x._data.ndim))
    if any(r < 0 for r in reps):
        raise RuntimeError("repeat(): repeats must be non-negative, got %s" % (list(reps),))
    lead = len(reps) - x._data.ndim
    _checked_sizes([r * (x._data.shape[i - lead] if i >= lead else 1)
                    for i, r in enumerate(reps)], x._data.itemsize, "repeat")
    xp = _xp_of(x._data)
    data = xp.tile(x._data, reps) if reps else x._data.copy()
    cdef RepeatBackward node
    if _records(x):
        node = RepeatBackward.__new__(RepeatBackward)
        node.input_shape = x._data.shape
        node.reps = reps
        return _recorded1(node, data, _edge(x))
    return _plain(data, x._volatile)


@profiled_op
def tile(input, *args, dims=None):
    """Repeat the input ``dims[i]`` times along each dimension; missing leading
    entries of ``dims`` are 1 (torch.tile); they may also come one by one
    (``x.tile(2, 1)``, as Tensor.tile).

    >>> tile(Variable(numpy.array([[1., 2.]])), (2,)).tolist()
    [[1.0, 2.0, 1.0, 2.0]]
    """
    cdef Variable x = _as_variable(input, "tile")
    dims = _dims_varargs(args, dims, "tile")
    reps = tuple(dims) if isinstance(dims, (list, tuple)) else (dims,)
    if len(reps) < x._data.ndim:
        reps = (1,) * (x._data.ndim - len(reps)) + reps
    if builtins.all(isinstance(r, (int, numpy.integer)) and r >= 0 for r in reps):
        lead = len(reps) - x._data.ndim
        _checked_sizes([r * (x._data.shape[i - lead] if i >= lead else 1)
                        for i, r in enumerate(reps)], x._data.itemsize, "tile")
    return repeat(x, reps)



cdef Variable _sliding_windows(Variable x, object dimension, object size, object step):
    # Variable.unfold: slices x[..., i*step : i*step + size, ...] along `dimension`, stacked
    # there, their elements in a new last dimension; an index_select (its backward adds
    # overlapping slices' gradients), so differentiable to any order.
    what = "unfold"
    cdef Py_ssize_t nd = x._data.ndim
    d = _normalize_dim(dimension, nd, what)
    sz = _int_arg(size, what, "size")
    st = _int_arg(step, what, "step")
    n = x._data.shape[d] if nd else 1
    if sz < 0:
        raise RuntimeError("%s(): size is %d but must be >= 0" % (what, sz))
    if sz > n:
        raise RuntimeError("%s(): maximum size for tensor at dimension %d is %d but size is %d"
                           % (what, d, n, sz))
    if st <= 0:
        raise RuntimeError("%s(): step is %d but must be > 0" % (what, st))
    if nd == 0:
        return narrow(reshape(x, (1,)), 0, 0, sz)       # size 0 or 1: torch's (0,) or (1,)
    count = (n - sz) // st + 1
    xp = _xp_of(x._data)
    index = (xp.arange(count, dtype=numpy.int64)[:, None] * st
             + xp.arange(sz, dtype=numpy.int64)[None, :]).reshape(-1)
    picked = index_select(x, d, index)
    shape = x._data.shape[:d] + (count, sz) + x._data.shape[d + 1:]
    return movedim(reshape(picked, shape), d + 1, -1)


@profiled_op
def moveaxis(input, source, destination):
    """Move dimension(s) ``source`` to ``destination`` (NumPy's name for `movedim`).

    >>> moveaxis(Variable(numpy.zeros((2, 3, 4))), 0, -1).shape
    (3, 4, 2)
    """
    try:
        return movedim(input, source, destination)
    except _OP_ERRORS as exc:
        raise _renamed(exc, "moveaxis") from None


@profiled_op
def swapdims(input, dim0, dim1):
    """Swap two dimensions (torch's alias of `transpose`).

    >>> swapdims(Variable(numpy.zeros((2, 3, 4))), 0, 2).shape
    (4, 3, 2)
    """
    try:
        return transpose(input, dim0, dim1)
    except _OP_ERRORS as exc:
        raise _renamed(exc, "swapdims") from None


@profiled_op
def swapaxes(input, axis0, axis1):
    """Swap two dimensions (NumPy's name for `transpose`).

    >>> swapaxes(Variable(numpy.zeros((2, 3, 4))), 0, 1).shape
    (3, 2, 4)
    """
    try:
        return transpose(input, axis0, axis1)
    except _OP_ERRORS as exc:
        raise _renamed(exc, "swapaxes") from None

cdef object _repeat_counts(object repeats, object xp, str what):
    # The repeats of repeat_interleave as an int64 array on the input's device, checked
    # as torch: an integer Variable of 0 or 1 dimensions, never negative.
    data = (<Variable>repeats)._data
    kind = data.dtype.kind
    if kind not in "iu":
        raise NotImplementedError('%s(): "repeat_interleave_cpu" not implemented for \'%s\''
                                  % (what, _torch_dtype_name(data.dtype)))
    if data.ndim > 1:
        raise RuntimeError("%s(): repeats must be 0-dim or 1-dim tensor" % what)
    counts = xp.asarray(data, dtype=numpy.int64).reshape(-1)
    if counts.size and bool((counts < 0).any()):
        raise RuntimeError("%s(): repeats can not be negative" % what)
    return counts


@profiled_op
def repeat_interleave(input, repeats=None, dim=None, *, output_size=None):
    """Repeat each element ``repeats`` times along ``dim`` (flattened when ``dim`` is
    None): ``repeats`` an int, or an integer Variable of one count per element (or one
    count for all). With only an integer Variable ``r``, the indices ``i`` repeated
    ``r[i]`` times.

    >>> repeat_interleave(Variable(numpy.array([[1., 2.], [3., 4.]])), 2, dim=0).tolist()
    [[1.0, 2.0], [1.0, 2.0], [3.0, 4.0], [3.0, 4.0]]
    >>> repeat_interleave(Variable(numpy.array([2, 0, 1]))).tolist()
    [0, 0, 2]
    """
    what = "repeat_interleave"
    cdef Variable x = _as_variable(input, what)
    xp = _xp_of(x._data)
    if repeats is None:                             # the indices form
        if x._data.ndim != 1:
            raise RuntimeError("%s(): repeat_interleave only accept 1D vector as repeat" % what)
        counts = _repeat_counts(x, xp, what)
        indices = xp.repeat(xp.arange(counts.shape[0], dtype=x._data.dtype), counts)
        _check_output_size(indices.shape[0], output_size, what)
        return _plain(indices, False)
    if dim is None:
        x = reshape(x, (-1,))
        d = 0
    else:
        d = _normalize_dim_sized(dim, x._data.ndim, what)
    n = x._data.shape[d]
    if isinstance(repeats, Variable):
        counts = _repeat_counts(repeats, xp, what)
        if counts.shape[0] == 1:
            counts = xp.broadcast_to(counts, (n,))
        elif counts.shape[0] != n:
            raise RuntimeError("%s(): repeats must have the same size as input along dim, but "
                               "got repeats.size(0) = %d and input.size(%d) = %d"
                               % (what, counts.shape[0], d, n))
        total = int(counts.sum()) if n else 0
    elif isinstance(repeats, (int, numpy.integer)) and not isinstance(repeats, bool):
        if repeats < 0:
            raise RuntimeError("%s(): Repeats must be non-negative" % what)
        counts = int(repeats)
        total = n * counts
    else:
        raise TypeError("%s(): repeats must be an int or an integer Variable, got %s"
                        % (what, type(repeats).__name__))
    _checked_sizes(x._data.shape[:d] + (total,) + x._data.shape[d + 1:], x._data.itemsize,
                   what)
    _check_output_size(total, output_size, what)
    # an index_select: its backward sums each group of copies (index_add), and it is
    # differentiable again
    return index_select(x, d, xp.repeat(xp.arange(n, dtype=numpy.int64), counts))


cdef void _check_output_size(object total, object output_size, str what) except *:
    if output_size is not None and output_size != total:
        raise RuntimeError("%s(): Invalid output_size, expected %d but got %s"
                           % (what, total, output_size))


@profiled_op
def diff(input, n=1, dim=-1, prepend=None, append=None, *, out=None):
    """The ``n``-th forward difference along ``dim`` (``out[i] = x[i + 1] - x[i]``, a
    logical xor for bool), after concatenating ``prepend`` and ``append`` along ``dim``.

    >>> diff(Variable(numpy.array([1., 4., 9., 16.]))).tolist()
    [3.0, 5.0, 7.0]
    >>> diff(Variable(numpy.array([1., 4., 9., 16.])), n=2).tolist()
    [2.0, 2.0]
    """
    if out is not None: return _write_out("diff", out, diff(input, n, dim, prepend, append))
    what = "diff"
    cdef Variable x = _as_variable(input, what)
    if x._data.ndim == 0:
        raise RuntimeError("%s(): diff expects input to be at least one-dimensional" % what)
    order = _int_arg(n, what, "n")
    if order < 0:
        raise RuntimeError("%s(): order must be non-negative but got %d" % (what, order))
    d = _normalize_dim(dim, x._data.ndim, what)
    cdef Variable e
    parts = []
    for extra in (prepend, append):
        if extra is None:
            parts.append(None)
            continue
        e = _as_variable(extra, what)
        if e._data.ndim != x._data.ndim:
            raise RuntimeError("%s(): diff expects prepend or append to be the same "
                               "dimension as input" % what)
        else:
            for k in range(x._data.ndim):
                if k != d and e._data.shape[k] != x._data.shape[k]:
                    raise RuntimeError(
                        "%s(): diff expects the shape of tensor to prepend or append to match "
                        "that of input except along the differencing dimension; "
                        "input.size(%d) = %d, but got tensor.size(%d) = %d"
                        % (what, k, x._data.shape[k], k, e._data.shape[k]))
        parts.append(e)
    if parts[0] is not None or parts[1] is not None:
        x = cat([p for p in (parts[0], x, parts[1]) if p is not None], d)
    is_bool = x._data.dtype.kind == "b"
    for _ in range(order):
        length = x._data.shape[d]
        if length == 0:
            break
        later, earlier = narrow(x, d, 1, length - 1), narrow(x, d, 0, length - 1)
        x = logical_xor(later, earlier) if is_bool else sub(later, earlier)
    return x


@profiled_op
def ravel(input):
    """The input flattened to one dimension (a view when the layout allows), as
    torch.ravel.

    >>> ravel(Variable(numpy.array([[1., 2.], [3., 4.]])))
    tensor([1., 2., 3., 4.], dtype=float64)
    """
    cdef Variable x = _as_variable(input, "ravel")
    if not x.is_contiguous():
        x = x.contiguous()          # torch: contiguous().view(-1), so always contiguous
    return reshape(x, (-1,))


@profiled_op
def flipud(input):
    """The input with dimension 0 reversed (at least 1-d).

    >>> flipud(Variable(numpy.array([[1., 2.], [3., 4.]]))).tolist()
    [[3.0, 4.0], [1.0, 2.0]]
    """
    cdef Variable x = _as_variable(input, "flipud")
    if x._data.ndim < 1:
        raise RuntimeError("flipud(): Input must be >= 1-d.")
    return flip(x, (0,))


@profiled_op
def fliplr(input):
    """The input with dimension 1 reversed (at least 2-d).

    >>> fliplr(Variable(numpy.array([[1., 2.], [3., 4.]]))).tolist()
    [[2.0, 1.0], [4.0, 3.0]]
    """
    cdef Variable x = _as_variable(input, "fliplr")
    if x._data.ndim < 2:
        raise RuntimeError("fliplr(): Input must be >= 2-d.")
    return flip(x, (1,))


@profiled_op
def rot90(input, k=1, dims=(0, 1)):
    """Rotate by 90 degrees ``k`` times in the plane of ``dims``, from the first axis
    towards the second (torch.rot90).

    >>> rot90(Variable(numpy.array([[1., 2.], [3., 4.]]))).tolist()
    [[2.0, 4.0], [1.0, 3.0]]
    """
    cdef Variable x = _as_variable(input, "rot90")
    if not isinstance(dims, (list, tuple)) or len(dims) != 2:
        raise RuntimeError("rot90(): expected total rotation dims == 2, but got dims = %r"
                           % (dims,))
    if x._data.ndim < 2:
        raise RuntimeError("rot90(): expected total dims >= 2, but got total dims = %d"
                           % x._data.ndim)
    d0 = _normalize_dim(dims[0], x._data.ndim, "rot90")
    d1 = _normalize_dim(dims[1], x._data.ndim, "rot90")
    if d0 == d1:
        raise RuntimeError("rot90(): expected rotation dims to be different, but got "
                           "dim0 = %d and dim1 = %d" % (d0, d1))
    turns = (_int_arg(k, "rot90", "k") % 4 + 4) % 4       # C modulo keeps the sign
    if turns == 1:
        return transpose(flip(x, (d1,)), d0, d1)
    if turns == 2:
        return flip(x, (d0, d1))
    if turns == 3:
        return transpose(flip(x, (d0,)), d0, d1)
    return x.clone()


cdef object _at_least(tuple tensors, Py_ssize_t ndim, str what):
    # atleast_{1,2,3}d: one Variable in, one out; several (or a sequence), a tuple.
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
        single = False
    else:
        single = len(tensors) == 1
    cdef list out = []
    cdef Variable x
    for t in tensors:
        x = _as_variable(t, what)
        shape = x._data.shape
        if len(shape) < ndim:
            if ndim == 2:
                shape = (1,) * (2 - len(shape)) + shape
            elif len(shape) == 0:
                shape = (1,) * ndim
            elif len(shape) == 1:
                shape = (1, shape[0], 1)
            else:
                shape = shape + (1,)
            x = reshape(x, shape)
        out.append(x)
    return out[0] if single else tuple(out)


@profiled_op
def atleast_1d(*tensors):
    """Each input with at least one dimension (a 0-d one becomes shape (1,)).

    >>> atleast_1d(Variable(numpy.array(2.))).shape
    (1,)
    """
    return _at_least(tensors, 1, "atleast_1d")


@profiled_op
def atleast_2d(*tensors):
    """Each input with at least two dimensions (new ones in front, as NumPy).

    >>> atleast_2d(Variable(numpy.array([1., 2.]))).shape
    (1, 2)
    """
    return _at_least(tensors, 2, "atleast_2d")


@profiled_op
def atleast_3d(*tensors):
    """Each input with at least three dimensions: (n,) becomes (1, n, 1) and (m, n)
    becomes (m, n, 1), as NumPy.

    >>> atleast_3d(Variable(numpy.ones((2, 3)))).shape
    (2, 3, 1)
    """
    return _at_least(tensors, 3, "atleast_3d")


@profiled_op
def dstack(tensors, *, out=None):
    """Concatenate along dimension 2 (depth) after making every input at least 3-d.

    >>> dstack([Variable(numpy.ones(2)), Variable(numpy.zeros(2))]).shape
    (1, 2, 2)
    """
    if out is not None: return _write_out("dstack", out, dstack(tensors), _OUT_CAT)
    cdef list xs = _variable_sequence(tensors, "dstack")
    return cat(list(atleast_3d(xs)), 2)


@profiled_op
def column_stack(tensors, *, out=None):
    """Stack as columns: 0-d and 1-d inputs become (n, 1) columns, then concatenate
    along dimension 1.

    >>> column_stack([Variable(numpy.ones(2)), Variable(numpy.zeros((2, 2)))]).shape
    (2, 3)
    """
    if out is not None: return _write_out("column_stack", out, column_stack(tensors), _OUT_CAT)
    cdef list xs = _variable_sequence(tensors, "column_stack")
    cdef Variable x
    out = []
    for x in xs:
        out.append(reshape(x, (x._data.size, 1)) if x._data.ndim < 2 else x)
    return cat(out, 1)


cdef object _max_parts():
    # How many Variables the physical memory could hold (about 1 KiB each, with the
    # view's array and the list entries): more would end in the OOM killer, not an error.
    import os
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE") // 1024
    except (ValueError, OSError, AttributeError):
        return 1 << 26


@profiled_op
def tensor_split(input, indices_or_sections, dim=0):
    """Split into views along ``dim``: into ``n`` parts of sizes differing by at most
    one (the first ones larger), or at the given indices.

    >>> [p.tolist() for p in tensor_split(Variable(numpy.arange(5.)), 3)]
    [[0.0, 1.0], [2.0, 3.0], [4.0]]
    >>> [p.tolist() for p in tensor_split(Variable(numpy.arange(5.)), [1, 4])]
    [[0.0], [1.0, 2.0, 3.0], [4.0]]
    """
    cdef Variable x = _as_variable(input, "tensor_split")
    if x._data.ndim == 0:
        raise RuntimeError("tensor_split(): tensor_split expected at least a 1-dimensional "
                           "tensor, but got a tensor with 0 dims")
    cdef Py_ssize_t d = _normalize_dim(dim, x._data.ndim, "tensor_split")
    cdef Py_ssize_t n = x._data.shape[d]
    cdef Py_ssize_t sections, pos
    if isinstance(indices_or_sections, Variable):
        # torch: a 1-d integer Variable holds indices, a 0-d one the number of sections
        t = (<Variable>indices_or_sections)._data
        # (torch's words and order: the dtype first)
        if t.dtype.kind not in "iu":
            raise RuntimeError("tensor_split(): tensor_split expected "
                               "tensor_indices_or_sections to have dtype of long, but got %s"
                               % _torch_dtype_name(t.dtype))
        if t.ndim > 1:
            raise RuntimeError("tensor_split(): tensor_split expected "
                               "tensor_indices_or_sections to be a zero-dimensional or "
                               "one-dimensional tensor, but got a tensor with %d dims" % t.ndim)
        indices_or_sections = int(t) if t.ndim == 0 else [int(i) for i in t.tolist()]
    if isinstance(indices_or_sections, (list, tuple)):
        try:
            bounds = [_int_arg(i, "tensor_split", "indices") for i in indices_or_sections]
        except OverflowError:
            raise TypeError("tensor_split(): argument 'indices' must be a sequence of ints "
                            "that fit a 64-bit integer") from None
    else:
        try:
            sections = _int_arg(indices_or_sections, "tensor_split", "sections")
        except OverflowError:
            raise ValueError("tensor_split(): the number of sections %d does not fit a "
                             "64-bit integer" % indices_or_sections) from None
        if sections <= 0:
            raise RuntimeError("tensor_split(): number of sections must be larger than 0, "
                               "got %d" % sections)
        # One Variable per section (empty ones past the size): torch refuses what it
        # cannot allocate with a RuntimeError; so does pyad, before running out of memory.
        if sections > 1152921504606846975:
            raise RuntimeError("tensor_split(): cannot create std::vector larger than "
                               "max_size()")
        if sections > _max_parts():
            raise RuntimeError("tensor_split(): cannot allocate %d parts (std::bad_alloc)"
                               % sections)
        bounds = []
        pos = 0
        for i in range(sections - 1):
            pos += n // sections + (1 if i < n % sections else 0)
            bounds.append(pos)
    # The parts are x[0:c0], x[c0:c1], ..., x[ck:n], the cuts read as slice bounds
    # (negative from the end, clamped to [0, n]); a cut below the previous one gives an
    # empty part, as in torch.
    cuts = [builtins.min(builtins.max(b + n if b < 0 else b, 0), n) for b in bounds]
    return tuple([narrow(x, d, lo, builtins.max(hi - lo, 0))
                  for lo, hi in zip([0] + cuts, cuts + [n])])


@profiled_op
def hsplit(input, indices_or_sections):
    """``tensor_split`` along dimension 1 (dimension 0 for 1-d input); a number of
    sections must divide that dimension exactly.

    >>> [p.shape for p in hsplit(Variable(numpy.ones((2, 4))), 2)]
    [(2, 2), (2, 2)]
    """
    cdef Variable x = _as_variable(input, "hsplit")
    if x._data.ndim < 1:
        raise RuntimeError("hsplit(): requires a Variable with at least 1 dimension, but "
                           "got a Variable with 0 dimensions")
    return _exact_split(x, indices_or_sections, 0 if x._data.ndim == 1 else 1, "hsplit")


@profiled_op
def vsplit(input, indices_or_sections):
    """``tensor_split`` along dimension 0 (at least 2-d input); a number of sections
    must divide that dimension exactly.

    >>> [p.shape for p in vsplit(Variable(numpy.ones((4, 2))), [1])]
    [(1, 2), (3, 2)]
    """
    cdef Variable x = _as_variable(input, "vsplit")
    if x._data.ndim < 2:
        raise RuntimeError("vsplit(): requires a Variable with at least 2 dimension, but "
                           "got a Variable with %d dimensions" % x._data.ndim)
    return _exact_split(x, indices_or_sections, 0, "vsplit")


cdef object _exact_split(Variable x, object indices_or_sections, Py_ssize_t d, str what):
    if not isinstance(indices_or_sections, (list, tuple)):
        sections = _int_arg(indices_or_sections, what, "sections")
        if sections <= 0 or x._data.shape[d] % sections:
            raise RuntimeError("%s(): attempted to split along dimension %d, but the size "
                               "of the dimension %d is not divisible by the split_size %d!"
                               % (what, d, x._data.shape[d], sections))
    return tensor_split(x, indices_or_sections, d)


@profiled_op
def take(input, index, *, out=None):
    """Elements of the input treated as 1-d, at ``index`` (the result has the index's
    shape); the gradient adds up at repeated indices.

    >>> take(Variable(numpy.array([[1., 2.], [3., 4.]])), numpy.array([0, 3, 3]))
    tensor([1., 4., 4.], dtype=float64)
    """
    if out is not None: return _write_out_apart("take", out, take(input, index), (input,))
    cdef Variable x = _as_variable(input, "take")
    idx = _index_data(index, "take")
    n = x._data.size
    if idx.size and (int(idx.max()) >= n or int(idx.min()) < -n):
        raise IndexError("take(): index out of range for a Variable of %d elements" % n)
    if idx.size and int(idx.min()) < 0:
        idx = _xp_of(idx).where(idx < 0, idx + n, idx)       # negative counts from the end
    out = reshape(gather(reshape(x, (-1,)), 0, idx.reshape(-1)), idx.shape)
    _retype_node(out, x, ViewBackward, TakeBackward)
    return out


@profiled_op
def put(input, index, source, accumulate=False):
    """``input`` treated as 1-d with ``source``'s elements written at ``index`` (torch's
    ``put``; negative indices count from the end), or added there with ``accumulate``
    (repeated indices add up). The gradient reaches ``source`` at ``index`` and ``input``
    everywhere else (everywhere with ``accumulate``).

    >>> put(Variable(numpy.zeros((2, 2))), numpy.array([0, -1]), Variable(numpy.array([5., 7.])))
    tensor([[5., 0.],
            [0., 7.]], dtype=float64)
    """
    cdef Variable x = _as_variable(input, "put")
    cdef Variable src = _as_variable(source, "put")
    if isinstance(index, Variable):
        idx = (<Variable>index)._data
    elif type(index) is _NDARRAY or (cupy is not None and isinstance(index, cupy.ndarray)):
        idx = index
    else:
        idx = _index_data(index, "put")
    if idx.dtype != numpy.int64:
        raise RuntimeError("put(): Expected a long Variable for index, but got %s" % idx.dtype)
    if src._data.size != idx.size:
        raise IndexError("put(): Expected source and index to have the same number of "
                         "elements, but got source.numel() = %d, index.numel() = %d"
                         % (src._data.size, idx.size))
    if src._data.dtype != x._data.dtype:
        raise RuntimeError("put(): self and source expected to have the same dtype, but got "
                           "self.dtype = %s and source.dtype = %s"
                           % (x._data.dtype, src._data.dtype))
    n = x._data.size
    idx = idx.reshape(-1)
    if idx.size:
        lo, hi = int(idx.min()), int(idx.max())
        if lo < -n or hi >= n:
            raise IndexError("put(): out of range: tried to access index %d on a Variable of "
                             "%d elements." % (lo if lo < -n else hi, n))
        if lo < 0:
            idx = _xp_of(idx).where(idx < 0, idx + n, idx)
    flat = reshape(x, (-1,))
    values = reshape(src, (-1,))
    if accumulate:
        out = index_add(flat, 0, idx, values)
    else:
        out = index_copy(flat, 0, idx, values)
    return reshape(out, x._data.shape)


def broadcast_shapes(*shapes):
    """The shape that all ``shapes`` broadcast to, as torch.broadcast_shapes.

    >>> broadcast_shapes((2, 1), (3,))
    (2, 3)
    """
    sizes = []
    for s in shapes:
        shape = (s,) if isinstance(s, (int, numpy.integer)) else s
        if not isinstance(shape, (tuple, list)) or \
                not builtins.all(isinstance(n, (int, numpy.integer)) for n in shape):
            raise RuntimeError("broadcast_shapes(): Input shapes should be of type ints, a "
                               "tuple of ints, or a list of ints, got %s" % (s,))
        if builtins.any(n < 0 for n in shape):
            raise ValueError("broadcast_shapes(): Attempting to broadcast a dimension with "
                             "negative length!")
        sizes.append(tuple(shape))
    try:
        return tuple(numpy.broadcast_shapes(*sizes))
    except ValueError:
        raise RuntimeError("broadcast_shapes(): shapes %s cannot be broadcast together"
                           % ", ".join(str(tuple(s) if isinstance(s, (list, tuple)) else (s,))
                                       for s in shapes)) from None


@profiled_op
def broadcast_tensors(*tensors):
    """The inputs broadcast to their common shape (read-only views).

    >>> [t.shape for t in broadcast_tensors(Variable(numpy.ones((2, 1))), Variable(numpy.ones(3)))]
    [(2, 3), (2, 3)]
    """
    xs = [_as_variable(t, "broadcast_tensors") for t in tensors]
    try:
        shape = tuple(numpy.broadcast_shapes(*[(<Variable>x)._data.shape for x in xs]))
    except ValueError:
        raise RuntimeError("broadcast_tensors(): shapes %s cannot be broadcast together"
                           % ", ".join(str((<Variable>x)._data.shape) for x in xs)) from None
    return tuple(x if (<Variable>x)._data.shape == shape else broadcast_to(x, shape)
                 for x in xs)


@profiled_op
def meshgrid(*tensors, indexing=None):
    """Coordinate grids from 1-d inputs: output ``i`` varies along dimension ``i``
    (``indexing='ij'``, torch's default, with its warning when not given) or, with
    ``'xy'``, the first two roles swapped as in NumPy.

    >>> gx, gy = meshgrid(Variable(numpy.array([1., 2., 3.])), Variable(numpy.array([4., 5.])),
    ...                   indexing="ij")
    >>> gx.shape, gy.tolist()
    ((3, 2), [[4.0, 5.0], [4.0, 5.0], [4.0, 5.0]])
    """
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    if indexing is None:
        warnings.warn("meshgrid(): in an upcoming release, it will be required to pass "
                      "the indexing argument.", UserWarning, stacklevel=2)
        indexing = "ij"
    if indexing not in ("ij", "xy"):
        raise RuntimeError("meshgrid(): indexing must be one of \"xy\" or \"ij\", but "
                           "received: %s" % (indexing,))
    xs = [_as_variable(t, "meshgrid") for t in tensors]
    if not xs:
        raise RuntimeError("meshgrid(): expects a non-empty list of Variables")
    for x in xs:
        if (<Variable>x)._data.ndim > 1:
            raise RuntimeError("meshgrid(): expects all Variables to be 0-d or 1-d, got "
                               "%d-d" % (<Variable>x)._data.ndim)
        if _category((<Variable>x)._data.dtype) != \
                _category((<Variable>xs[0])._data.dtype):
            # torch: the same dtype (it lets floating dtypes of different widths pass)
            raise RuntimeError("meshgrid(): expects all Variables to have the same dtype, "
                               "got %s and %s" % ((<Variable>xs[0])._data.dtype,
                                                  (<Variable>x)._data.dtype))
    swap = indexing == "xy" and len(xs) >= 2
    if swap:
        xs[0], xs[1] = xs[1], xs[0]
    shape = tuple((<Variable>x)._data.size for x in xs)
    out = []
    for i, x in enumerate(xs):
        view = [1] * len(xs)
        view[i] = shape[i]
        out.append(broadcast_to(reshape(x, tuple(view)), shape))
    if swap:
        out[0], out[1] = out[1], out[0]
    return tuple(out)


@profiled_op
def kron(input, other, *, out=None):
    """Kronecker product: block (i, j, ...) of the result is ``input[i, j, ...] *
    other`` (the shorter shape is padded with leading ones).

    >>> kron(Variable(numpy.eye(2)), Variable(numpy.array([[1., 2.]]))).tolist()
    [[1.0, 2.0, 0.0, 0.0], [0.0, 0.0, 1.0, 2.0]]
    """
    if out is not None: return _write_out("kron", out, kron(input, other))
    cdef Variable a = _as_variable(input, "kron")
    cdef Variable b = _as_variable(other, "kron")
    cdef Py_ssize_t nd = builtins.max(a._data.ndim, b._data.ndim)
    sa = (1,) * (nd - a._data.ndim) + a._data.shape
    sb = (1,) * (nd - b._data.ndim) + b._data.shape
    # a as (a0, 1, a1, 1, ...) times b as (1, b0, 1, b1, ...), then merge each pair
    ra = reshape(a, tuple(v for s in sa for v in (s, 1)))
    rb = reshape(b, tuple(v for s in sb for v in (1, s)))
    return reshape(mul(ra, rb), tuple(p * q for p, q in zip(sa, sb)))


# -- gather / scatter and index_* / masked_* -----------------------------------------
#
# Each is written as advanced indexing with a key built from (dim, index): gather is
# getitem (its backward adds repeated indices up), scatter_add and index_add add into
# zeros at the key (IndexPutBackward), scatter, index_fill, index_copy and the masked
# ops are an out-of-place setitem (SetItemBackward). The key holds the index arrays, so
# the nodes free it after backward like any indexing node.

cdef object _index_data(object index, str what, str name="index"):
    # The integer array of an index argument (a Variable, an array or a list).
    if isinstance(index, Variable):
        data = (<Variable>index)._data
    elif type(index) is _NDARRAY or (cupy is not None and isinstance(index, cupy.ndarray)):
        data = index
    elif isinstance(index, (list, tuple, int, numpy.integer)) and not isinstance(index, bool):
        data = numpy.asarray(index)
        if data.size == 0:
            data = data.astype(numpy.int64)
    else:
        raise TypeError("%s(): argument '%s' must be an integer Variable, not %s"
                        % (what, name, type(index).__name__))
    if data.dtype.kind not in "iu":
        raise RuntimeError("%s(): expected an integer dtype for %s, got %s"
                           % (what, name, data.dtype))
    return data


cdef void _check_index_range(object idx, Py_ssize_t n, Py_ssize_t dim, str what) except *:
    if idx.size == 0:
        return
    lo = int(idx.min())
    hi = int(idx.max())
    if lo < 0 or hi >= n:
        # torch's type: RuntimeError for gather, scatter and index_select/add,
        # IndexError for index_fill and index_copy (torch 2.13, any dim)
        # (index_select: IndexError, but RuntimeError along dim 1, torch's dim-1 kernel)
        error = IndexError if what.startswith("index_fill") or \
            what.startswith("index_copy") or (what == "index_select" and dim != 1) \
            else RuntimeError
        raise error("%s(): index %d is out of bounds for dimension %d with size %d"
                    % (what, lo if lo < 0 else hi, dim, n))


cdef object _mask_data(object mask, str what):
    if isinstance(mask, Variable):
        data = (<Variable>mask)._data
    elif type(mask) is _NDARRAY or (cupy is not None and isinstance(mask, cupy.ndarray)):
        data = mask
    else:
        raise TypeError("%s(): argument 'mask' must be a bool Variable, not %s"
                        % (what, type(mask).__name__))
    if data.dtype.kind != "b":
        raise RuntimeError("%s(): expected a bool mask, got a mask of dtype %s"
                           % (what, data.dtype))
    return data


cdef void _check_same_dtype(Variable x, object src, str what, str name) except *:
    if isinstance(src, Variable) and (<Variable>src)._data.dtype != x._data.dtype:
        raise RuntimeError("%s(): expected %s to have the same dtype as self, got %s and %s"
                           % (what, name, (<Variable>src)._data.dtype, x._data.dtype))


cdef tuple _gather_key(Variable x, object dim, object index, str what, object src=None):
    # The advanced-indexing key of gather/scatter along ``dim``: index at dim, and
    # aranges elsewhere (index may be smaller than the input in every other dim).
    idx = _index_data(index, what)
    cdef Py_ssize_t nd = x._data.ndim
    cdef Py_ssize_t d = _normalize_dim(dim, nd, what)
    if idx.ndim != nd:
        raise RuntimeError("%s(): index must have the same number of dimensions as input "
                           "(%d), got %d" % (what, nd, idx.ndim))
    shapes = [("input", x._data.shape)]
    if isinstance(src, Variable):
        if (<Variable>src)._data.ndim != nd:
            raise RuntimeError("%s(): src must have the same number of dimensions as input "
                               "(%d), got %d" % (what, nd, (<Variable>src)._data.ndim))
        shapes.append(("src", (<Variable>src)._data.shape))
    for k in range(nd):
        for name, shape in shapes:
            if (k != d or name == "src") and idx.shape[k] > shape[k]:
                raise RuntimeError("%s(): size of index %s does not fit %s of shape %s "
                                   "(dimension %d)" % (what, _shape_str(idx.shape), name,
                                                       _shape_str(shape), k))
    _check_index_range(idx, x._data.shape[d], d, what)
    xp = _xp_of(x._data)
    key = []
    for k in range(nd):
        if k == d:
            key.append(idx)
        else:
            shape = [1] * nd
            shape[k] = idx.shape[k]
            key.append(xp.arange(idx.shape[k]).reshape(shape))
    return tuple(key)


cdef object _index_of_0d(object dim, object index, str what):
    # A 0-d input is handled as a 1-element 1-d one: its index, made 1-d.
    idx = _index_data(index, what)
    _normalize_dim(dim, 0, what)
    if idx.ndim > 1 or idx.size > 1:
        raise RuntimeError("%s(): index of a 0-d input must have at most one element, got "
                           "shape %s" % (what, _shape_str(idx.shape)))
    _check_index_range(idx, 1, 0, what)
    return idx.reshape(-1)


cdef Py_ssize_t _index_ndim(object index):
    # the ndim of an index argument that is an array or a Variable (-1 otherwise)
    if isinstance(index, Variable):
        return (<Variable>index)._data.ndim
    return getattr(index, "ndim", -1)


cdef bint _writes_nothing(Variable x, object dim, object index, str what) except -1:
    # torch: an empty index of another rank than the input's writes nothing (no check of
    # the ranks then); the result is a copy of the input
    idx = _index_data(index, what)
    if idx.size == 0 and idx.ndim != x._data.ndim:
        _normalize_dim(dim, x._data.ndim, what)
        return True
    return False


cdef Variable _nothing_written(Variable x, object src):
    # the result of a scatter that writes nothing: a copy of x, which a src Variable joins
    # through the sum of none of its elements (an exact 0, so src gets a zero gradient
    # as torch's; no inf or nan in src can reach the result)
    if isinstance(src, Variable):
        return add(x, sum(narrow(reshape(src, (-1,)), 0, 0, 0)))
    return _cloned(x, x._data.copy(order="K"))


cdef object _src_part(object src, tuple key, object idx_shape):
    # src cut to the index's shape (scatter reads src only where the index is).
    if not isinstance(src, Variable):
        return src
    if (<Variable>src)._data.shape == tuple(idx_shape):
        return src
    return getitem(src, tuple(slice(0, s) for s in idx_shape))


@profiled_op
def gather(input, dim, index, *, sparse_grad=False, out=None):
    """``out[i][j] = input[index[i][j]][j]`` (for dim 0): values along ``dim`` at ``index``
    (``sparse_grad`` is accepted; the gradient is dense).

    >>> gather(Variable(numpy.array([[1., 2.], [3., 4.]])), 1, numpy.array([[0, 0], [1, 0]]))
    tensor([[1., 1.],
            [4., 3.]], dtype=float64)
    """
    if out is not None: return _write_out_apart("gather", out, gather(
        input, dim, index, sparse_grad=sparse_grad), (input,))
    cdef Variable x = _as_variable(input, "gather")
    if x._data.ndim == 1 and _index_ndim(index) == 0:
        # torch counts a 0-d index as 1-d of size 1; the result is 0-d
        return reshape(gather(x, dim, _index_data(index, "gather").reshape(1)), ())
    if x._data.ndim == 0:
        idx = _index_of_0d(dim, index, "gather")
        return reshape(gather(reshape(x, (1,)), 0, idx), _index_data(index, "gather").shape)
    idx = _index_data(index, "gather")
    if idx.size == 0 and idx.ndim != x._data.ndim:
        # torch: an empty index of any rank selects nothing
        _normalize_dim(dim, x._data.ndim, "gather")
        return reshape(narrow(reshape(x, (-1,)), 0, 0, 0), idx.shape)
    key = _gather_key(x, dim, index, "gather")
    if type(x._data) is not _NDARRAY:
        out = getitem(x, key)
        _retype_node(out, x, IndexBackward, GatherBackward)
        return out
    # NumPy: the key as flat positions in C order, then one take (fancy indexing with
    # the key's broadcast arrays costs several times more); backward scatters with them.
    cdef tuple shape = x._data.shape
    cdef Py_ssize_t k, stride = 1
    flat = None
    for k in range(len(shape) - 1, -1, -1):
        part = key[k]
        if _dtype(part) is not _INTP:
            part = part.astype(_INTP)
        if stride != 1:
            part = _np_multiply(part, stride)
        flat = part if flat is None else _np_add(flat, part)
        stride *= shape[k]
    data = x._data.take(flat)
    cdef IndexBackward node
    if _records(x):
        node = GatherBackward.__new__(GatherBackward)
        node.key = key
        node.flat = flat
        node.input_shape = shape
        return _recorded1(node, data, _edge(x))
    return _plain(data, x._volatile)


# -- take along a dim (what sort, topk, kthvalue and median record) ------------------
#
# Values selected by index along a dim are a take along the dim; its adjoint puts the
# gradient back at the selected positions (distinct within each slice), and the adjoint
# of that is the take again.

cdef class _IndexAlongNode(Node):
    cdef object index           # int64, the input's ndim, freed after backward
    cdef Py_ssize_t dim
    cdef tuple input_shape

    cdef object saved_index(self):
        if self.index is None:
            raise _freed_error(self)
        return self.index

    cdef void _release_saved(self) noexcept:
        self._released = True
        self.index = None


cdef class TakeAlongBackward(_IndexAlongNode):
    cdef tuple _backward(self, tuple grads):
        return (_put_along(grads[0], self.saved_index(), self.dim, self.input_shape),)


# torch's names for sort and topk, whose values pyad records as a take along a dim
cdef class SortBackward(TakeAlongBackward):
    pass


cdef class TopkBackward(TakeAlongBackward):
    pass


cdef class PutAlongBackward(_IndexAlongNode):
    cdef tuple _backward(self, tuple grads):
        return (_take_along(grads[0], self.saved_index(), self.dim),)


cdef Variable _take_along(Variable x, object index, Py_ssize_t d):
    xp = _xp_of(x._data)
    data = xp.take_along_axis(x._data, index, axis=d) if x._data.ndim else x._data.copy()
    cdef TakeAlongBackward node
    if _records(x):
        node = TakeAlongBackward.__new__(TakeAlongBackward)
        node.index = index
        node.dim = d
        node.input_shape = x._data.shape
        return _recorded1(node, data, _edge(x))
    return _plain(data, x._volatile)


cdef Variable _put_along(Variable g, object index, Py_ssize_t d, tuple shape):
    xp = _xp_of(g._data)
    data = xp.zeros(shape, dtype=g._data.dtype)
    if data.ndim:
        xp.put_along_axis(data, index, g._data, axis=d)
    else:
        data[...] = g._data
    cdef PutAlongBackward node
    if _records(g):
        node = PutAlongBackward.__new__(PutAlongBackward)
        node.index = index
        node.dim = d
        node.input_shape = g._data.shape
        return _recorded1(node, data, _edge(g))
    return _plain(data, g._volatile)


@profiled_op
def take_along_dim(input, indices, dim=None, *, out=None):
    """Values at ``indices`` along ``dim`` (of the flattened input when None); input and
    indices broadcast in the other dimensions.

    >>> take_along_dim(Variable(numpy.array([[10., 30., 20.]])), numpy.array([[1], [2]]), 1)
    tensor([[30.],
            [20.]], dtype=float64)
    """
    if out is not None: return _write_out("take_along_dim", out, take_along_dim(input,
                                          indices, dim), _OUT_EXACT)
    cdef Variable x = _as_variable(input, "take_along_dim")
    given = (<Variable>indices)._data if isinstance(indices, Variable) else indices
    if hasattr(given, "dtype") and given.dtype != numpy.int64:
        # torch checks the dtype first (bool and float indices included)
        raise RuntimeError("take_along_dim(): dtype of indices should be Long (int64) but got "
                           "%s" % _torch_dtype_name(given.dtype))
    idx = _index_data(indices, "take_along_dim", "indices")
    if idx.dtype != numpy.int64:
        raise RuntimeError("take_along_dim(): dtype of indices should be Long (int64) but got "
                           "%s" % _torch_dtype_name(idx.dtype))
    if dim is not None and x._data.ndim and idx.size and bool((idx < 0).any()):
        # along a dim torch wraps a negative index (-1 is the last); not with dim=None
        n = x._data.shape[_normalize_dim(dim, x._data.ndim, "take_along_dim")]
        idx = _xp_of(idx).where(idx < 0, idx + n, idx)
    if dim is None:
        try:
            return gather(reshape(x, (-1,)), 0, idx.reshape(-1))
        except _OP_ERRORS as exc:
            raise _renamed(exc, "take_along_dim") from None
    if idx.ndim != x._data.ndim:
        raise RuntimeError("take_along_dim(): input and indices should have the same number "
                           "of dimensions, but got %d and %d" % (x._data.ndim, idx.ndim))
    cdef Py_ssize_t d = _normalize_dim_sized(dim, x._data.ndim, "take_along_dim")
    xp = _xp_of(x._data)
    try:
        shape = list(numpy.broadcast_shapes(
            tuple(1 if k == d else s for k, s in enumerate(x._data.shape)),
            tuple(1 if k == d else s for k, s in enumerate(idx.shape))))
    except ValueError:
        raise RuntimeError("take_along_dim(): input %s and indices %s cannot be broadcast "
                           "outside dimension %d" % (_shape_str(x._data.shape),
                                                      _shape_str(idx.shape), d)) from None
    shape[d] = x._data.shape[d]
    xb = broadcast_to(x, tuple(shape))
    shape[d] = idx.shape[d]
    try:
        return gather(xb, d, xp.broadcast_to(idx, tuple(shape)))
    except _OP_ERRORS as exc:
        raise _renamed(exc, "take_along_dim") from None


@profiled_op
def scatter_add(input, dim, index, src, *, out=None):
    """``input`` with ``src`` added at ``index`` along ``dim``; repeated indices add up.

    >>> scatter_add(Variable(numpy.zeros(3)), 0, numpy.array([0, 2, 0]),
    ...             Variable(numpy.array([1., 2., 3.])))
    tensor([4., 0., 2.], dtype=float64)
    """
    if out is not None: return _write_out("scatter_add", out, scatter_add(input, dim, index,
                                          src), _OUT_EXACT)
    cdef Variable x = _as_variable(input, "scatter_add")
    if not isinstance(src, Variable):
        raise TypeError("scatter_add(): argument 'src' must be a Variable, not %s"
                        % type(src).__name__)
    _check_same_dtype(x, src, "scatter_add", "src")
    if x._data.ndim == 0:
        idx = _index_of_0d(dim, index, "scatter_add")
        return reshape(scatter_add(reshape(x, (1,)), 0, idx, reshape(src, (-1,))), ())
    if _writes_nothing(x, dim, index, "scatter_add"):
        return _nothing_written(x, src)
    key = _gather_key(x, dim, index, "scatter_add", src)
    return add(x, _index_put_into_zeros(_src_part(src, key, _index_data(index, "scatter").shape), key,
                                        x._data.shape))


cdef Variable _put(Variable x, object key, object value, str what):
    # x with x[key] = value, out of place (SetItemBackward records it).
    _requires_grad_now(x)
    value = _fill_scalar(value, x._data, what)
    try:
        return _setitem_out_of_place(x, key, value)
    except (IndexError, ValueError) as exc:
        raise RuntimeError("%s(): %s" % (what, exc)) from None


cdef object _scalar_value(object value, str what):
    if isinstance(value, Variable):
        if (<Variable>value)._data.ndim != 0:
            raise RuntimeError("%s(): only supports a 0-dimensional value Variable, but got "
                               "one with %d dimensions" % (what, (<Variable>value)._data.ndim))
        return value
    if isinstance(value, (int, float, bool, complex, numpy.number)):
        return value
    raise TypeError("%s(): argument 'value' must be a number or a 0-d Variable, not %s"
                    % (what, type(value).__name__))


@profiled_op
def scatter(input, dim, index, src=None, value=None, *, reduce=None, out=None):
    """``input`` with ``src`` (a Variable, or a number) written at ``index`` along ``dim``.

    >>> scatter(Variable(numpy.zeros(3)), 0, numpy.array([2, 0]), Variable(numpy.array([1., 2.])))
    tensor([2., 0., 1.], dtype=float64)
    >>> scatter(Variable(numpy.zeros(3)), 0, numpy.array([1]), value=5.0)
    tensor([0., 5., 0.], dtype=float64)
    """
    if out is not None: return _write_out("scatter", out, scatter(input, dim, index, src,
                                          value, reduce=reduce), _OUT_EXACT)
    cdef Variable x = _as_variable(input, "scatter")
    if src is None:
        src = value
    if x._data.ndim == 1 and _index_ndim(index) == 0:
        # torch counts a 0-d index as 1-d of size 1 (and a 0-d src too)
        return scatter(x, dim, _index_data(index, "scatter").reshape(1),
                       reshape(src, (-1,)) if isinstance(src, Variable) else src,
                       reduce=reduce)
    if src is None:
        raise TypeError("scatter(): expected a src Variable or a value")
    if reduce is not None:
        return _scatter_reducing(x, dim, index, src, reduce)
    if not isinstance(src, Variable):
        src = _scalar_value(src, "scatter")
    _check_same_dtype(x, src, "scatter", "src")
    if x._data.ndim == 0:
        idx = _index_of_0d(dim, index, "scatter")
        return reshape(scatter(reshape(x, (1,)), 0, idx, reshape(src, (-1,))
                               if isinstance(src, Variable) else src), ())
    if _writes_nothing(x, dim, index, "scatter"):
        return _nothing_written(x, src)
    key = _gather_key(x, dim, index, "scatter", src)
    return _put(x, key, _src_part(src, key, _index_data(index, "scatter").shape), "scatter")


cdef Variable _scatter_reducing(Variable x, object dim, object index, object src,
                                object reduce):
    # scatter(..., reduce='add' | 'multiply'): torch's older reducing scatter, which it
    # keeps with a deprecation warning (scatter_reduce is the current form)
    if reduce not in ("add", "multiply"):
        raise RuntimeError("scatter(): reduce argument must be either add or multiply, got %r"
                           % (reduce,))
    if isinstance(src, Variable):
        warnings.warn("The reduce argument of torch.scatter with Tensor src is deprecated and "
                      "will be removed in a future PyTorch release. Use torch.scatter_reduce "
                      "instead for more reduction options.", UserWarning, stacklevel=3)
    idx = _index_data(index, "scatter")
    if not isinstance(src, Variable):
        src = _plain(_xp_of(x._data).full(idx.shape, src, dtype=x._data.dtype), False)
    from pyad._scatter_reduce import scatter_reduce
    cdef int previous = pyad_get_grad_disabled()
    pyad_set_grad_disabled(1)
    try:
        out = (scatter_add(x, dim, index, src) if reduce == "add" else
               scatter_reduce(x, dim, index, src, "prod", include_self=True))
    finally:
        pyad_set_grad_disabled(previous)
    if _grad_enabled() and (x._requires_grad or (<Variable>src)._requires_grad):
        # torch has no derivative for this form: its backward raises
        return _delayed_error((out,), (x, src), "the derivative for 'scatter' with reduce= "
                              "is not implemented (torch: derivative for aten::scatter is "
                              "not implemented); use scatter_add or scatter_reduce",
                              None, RuntimeError)[0]
    return out


cdef tuple _index_dim_key(Variable x, object dim, object index, str what):
    # (slice(None), ..., index) for the index_* ops: a 1-d (or 0-d) index along dim.
    idx = _index_data(index, what)
    if idx.ndim > 1:
        raise IndexError("%s(): index must be 1-dimensional, got %d dimensions"
                         % (what, idx.ndim))
    cdef Py_ssize_t d = _normalize_dim(dim, x._data.ndim, what)
    if x._data.ndim == 0:
        if idx.size > 1:
            raise RuntimeError("%s(): an index into a 0-d Variable can have only 1 value, got "
                               "%d" % (what, idx.size))
        _check_index_range(idx, 1, 0, what)
        return (idx.reshape(-1),)
    _check_index_range(idx, x._data.shape[d], d, what)
    return (slice(None),) * d + (idx.reshape(-1),)


@profiled_op
def index_select(input, dim, index, *, out=None):
    """The entries at ``index`` (1-d) along ``dim``.

    >>> index_select(Variable(numpy.arange(6.).reshape(2, 3)), 1, numpy.array([2, 0]))
    tensor([[2., 0.],
            [5., 3.]], dtype=float64)
    """
    if out is not None: return _write_out_apart("index_select", out, index_select(
        input, dim, index), (input,))
    cdef Variable x = _as_variable(input, "index_select")
    _index_select_edge_checks(x, dim, index)
    key = _index_dim_key(x, dim, index, "index_select")
    if x._data.ndim == 0:
        return reshape(getitem(reshape(x, (1,)), key), ())    # torch: 0-d whatever the index
    out = getitem(x, key)
    _retype_node(out, x, IndexBackward, IndexSelectBackward)
    return out


cdef void _index_select_edge_checks(Variable x, object dim, object index) except *:
    # torch's own errors for a 0-d input and for an input with no elements
    idx = _index_data(index, "index_select")
    if x._data.ndim == 0:
        if idx.size != 1:
            raise RuntimeError("index_select(): Index to scalar can have only 1 value, got %d "
                               "value(s)" % idx.size)
        return
    if x._data.size or not idx.size or not isinstance(dim, int):
        return
    n = x._data.shape[_normalize_dim(dim, x._data.ndim, "index_select")]
    if n == 0:
        raise RuntimeError("index_select(): self indexing axis dim should be positive")
    lo, hi = int(idx.min()), int(idx.max())
    if lo < 0 or hi >= n:
        raise RuntimeError("index_select(): INDICES element is out of DATA bounds, id=%d "
                           "axis_dim=%d" % (lo if lo < 0 else hi, n))


cdef object _non_int64_index_dtype(object index):
    # The dtype of an index Variable or array that is not int64 (index_fill and
    # index_copy take only int64 ones, as torch), else None
    data = (<Variable>index)._data if isinstance(index, Variable) else index
    dt = getattr(data, "dtype", None)
    return dt if dt is not None and dt != numpy.int64 else None


cdef object _index_source(Variable x, tuple key, object source, str what):
    # source for the index_* ops must have x's shape with dim's size = len(index).
    if not isinstance(source, Variable):
        raise TypeError("%s(): argument 'source' must be a Variable, not %s"
                        % (what, type(source).__name__))
    cdef Py_ssize_t count = key[len(key) - 1].shape[0]
    cdef Py_ssize_t sdim = (<Variable>source)._data.ndim
    if what == "index_copy":
        # torch's checks, in its order and with its types (TORCH_CHECK_INDEX: IndexError)
        if sdim == 0 and count != 1:
            raise IndexError("index_copy(): When source is scalar, index should have one "
                             "element (got %d)" % count)
        if sdim != x._data.ndim and sdim != 0 and x._data.ndim != 0:
            raise IndexError("index_copy(): When source and destination are not scalars, "
                             "their dimensionality must match. Source dimensionality (%d), "
                             "destination dimensionality (%d)" % (sdim, x._data.ndim))
    _check_same_dtype(x, source, what, "source")
    if what == "index_copy" and x._data.ndim == 1 and sdim == 0:
        # torch: a 0-d source into a 1-D Variable (its slices are 0-d) at one index
        return reshape(source, (1,))
    if what == "index_copy" and x._data.ndim > 0 and sdim == x._data.ndim:
        d = len(key) - 1
        if (<Variable>source)._data.shape[:d] + (<Variable>source)._data.shape[d + 1:] == \
                x._data.shape[:d] + x._data.shape[d + 1:] and \
                (<Variable>source)._data.shape[d] != count:
            raise IndexError("index_copy(): Number of indices (%d) should be equal to "
                             "source.size(dim) (%d)" % (count, (<Variable>source)._data.shape[d]))
    if x._data.ndim == 0:     # torch: index_copy takes a 1-element source, index_add not
        expected = () if (<Variable>source)._data.ndim == 0 or what == "index_add" \
            else (key[0].shape[0],)
    else:
        d = len(key) - 1
        expected = x._data.shape[:d] + (key[d].shape[0],) + x._data.shape[d + 1:]
    if (<Variable>source)._data.shape != expected:
        raise RuntimeError("%s(): source must have shape %s, got %s"
                           % (what, _shape_str(expected),
                              _shape_str((<Variable>source)._data.shape)))
    if x._data.ndim == 0:
        return reshape(source, (key[0].shape[0],))
    return source


@profiled_op
def index_add(input, dim, index, source, alpha=1, *, out=None):
    """``input`` with ``alpha * source`` added at ``index`` along ``dim``; repeated
    indices add up.

    >>> index_add(Variable(numpy.zeros(3)), 0, numpy.array([0, 0, 2]),
    ...           Variable(numpy.array([1., 2., 3.])))
    tensor([3., 0., 3.], dtype=float64)
    """
    if out is not None: return _write_out("index_add", out, index_add(input, dim, index,
                                          source, alpha), _OUT_EXACT)
    cdef Variable x = _as_variable(input, "index_add")
    key = _index_dim_key(x, dim, index, "index_add")
    src = _index_source(x, key, source, "index_add")
    if alpha != 1:
        # (bool: alpha is a truth value, the result stays bool)
        src = mul(src, bool(alpha) if _dtype_kind(x._data) == b'b' else alpha)
    if x._data.ndim == 0:
        return add(x, reshape(_index_put_into_zeros(src, key, (1,)), ()))
    return add(x, _index_put_into_zeros(src, key, x._data.shape))


@profiled_op
def index_copy(input, dim, index, source):
    """``input`` with the slices of ``source`` copied to ``index`` along ``dim``.

    >>> index_copy(Variable(numpy.zeros(3)), 0, numpy.array([2, 0]),
    ...            Variable(numpy.array([1., 2.])))
    tensor([2., 0., 1.], dtype=float64)
    """
    cdef Variable x = _as_variable(input, "index_copy")
    ndim = getattr((<Variable>index)._data if isinstance(index, Variable) else index, "ndim", 1)
    if ndim > 1:
        raise IndexError("index_copy(): Index should have dimension 1 or 0 (got %d)" % ndim)
    bad = _non_int64_index_dtype(index)
    if bad is not None:
        raise RuntimeError("index_copy(): Expected a long tensor for index, but got %s"
                           % _torch_dtype_name(bad))
    key = _index_dim_key(x, dim, index, "index_copy")
    src = _index_source(x, key, source, "index_copy")
    if x._data.ndim == 0:
        return reshape(_put(reshape(x, (1,)), key, src, "index_copy"), ())
    return _put(x, key, src, "index_copy")


@profiled_op
def index_fill(input, dim, index, value):
    """``input`` with the slices at ``index`` along ``dim`` set to ``value`` (a number or
    a 0-d Variable).

    >>> index_fill(Variable(numpy.zeros((2, 2))), 1, numpy.array([1]), -1.0)
    tensor([[ 0., -1.],
            [ 0., -1.]], dtype=float64)
    """
    cdef Variable x = _as_variable(input, "index_fill")
    value = _scalar_value(value, "index_fill")
    if _dtype_kind(x._data) != b'c' and (isinstance(value, (complex, numpy.complexfloating))
                                         or (isinstance(value, Variable) and
                                             _dtype_kind((<Variable>value)._data) == b'c')):
        raise RuntimeError("index_fill(): Converting complex Scalar to non-complex type is "
                           "not supported")
    # torch takes an int64 index of at most one dimension, whose negative entries count
    # from the end (index_copy's do not)
    if _non_int64_index_dtype(index) is not None:
        raise IndexError("index_fill(): Expected dtype int64 for index.")
    idx = _index_data(index, "index_fill")
    if idx.ndim > 1:
        raise RuntimeError("index_fill(): Index has to be a vector/scalar")
    cdef Py_ssize_t d = _normalize_dim(dim, x._data.ndim, "index_fill")
    cdef Py_ssize_t n = x._data.shape[d] if x._data.ndim else 1
    if idx.size and int(idx.min()) < 0:
        if int(idx.min()) < -n:
            raise IndexError("index_fill(): index %d is out of bounds for dimension %d with "
                             "size %d" % (int(idx.min()), d, n))
        idx = _xp_of(idx).where(idx < 0, idx + n, idx)
    # Filling twice is filling once: without repeats, a Variable value's gradient counts
    # each filled entry once.
    key = _index_dim_key(x, dim, _xp_of(idx).unique(idx) if idx.ndim else idx, "index_fill")
    if x._data.ndim == 0:
        return reshape(_put(reshape(x, (1,)), key, value, "index_fill"), ())
    return _put(x, key, value, "index_fill")


cdef tuple _broadcast_mask(Variable x, object mask, str what):
    m = _mask_data(mask, what)
    try:
        shape = numpy.broadcast_shapes(x._data.shape, m.shape)
    except ValueError:
        raise RuntimeError("%s(): the shape of the mask %s must be broadcastable with the "
                           "shape of the input %s" % (what, _shape_str(m.shape),
                                                      _shape_str(x._data.shape))) from None
    return (broadcast_to(x, shape) if shape != x._data.shape else x,
            _xp_of(m).broadcast_to(m, shape) if shape != m.shape else m)


@profiled_op
def masked_fill(input, mask, value):
    """``input`` with ``value`` (a number or a 0-d Variable) where ``mask`` is true.

    >>> masked_fill(Variable(numpy.ones(3)), numpy.array([True, False, True]), 0.5)
    tensor([0.5000, 1.0000, 0.5000], dtype=float64)
    """
    cdef Variable x = _as_variable(input, "masked_fill")
    value = _scalar_value(value, "masked_fill")
    xb, m = _broadcast_mask(x, mask, "masked_fill")
    if m.ndim == 0:
        m = m.reshape(1)
        return reshape(_put(reshape(xb, (1,)), m, value, "masked_fill"), ())
    out = _put(xb, m, value, "masked_fill")
    _retype_node(out, xb, SetItemBackward, MaskedFillBackward)
    return out


@profiled_op
def masked_select(input, mask, *, out=None):
    """The entries where ``mask`` is true, as a 1-d Variable (input and mask broadcast).

    >>> masked_select(Variable(numpy.arange(3.)), numpy.array([True, False, True]))
    tensor([0., 2.], dtype=float64)
    """
    if out is not None: return _write_out_apart("masked_select", out, masked_select(
        input, mask), (input,))
    cdef Variable x = _as_variable(input, "masked_select")
    xb, m = _broadcast_mask(x, mask, "masked_select")
    if m.ndim == 0:
        return getitem(reshape(xb, (1,)), m.reshape(1))
    return getitem(xb, m)


@profiled_op
def masked_scatter(input, mask, source):
    """``input`` with the first elements of ``source`` (in order) written where ``mask``
    is true.

    >>> masked_scatter(Variable(numpy.zeros(3)), numpy.array([True, False, True]),
    ...                Variable(numpy.array([1., 2., 3.])))
    tensor([1., 0., 2.], dtype=float64)
    """
    cdef Variable x = _as_variable(input, "masked_scatter")
    if not isinstance(source, Variable):
        raise TypeError("masked_scatter(): argument 'source' must be a Variable, not %s"
                        % type(source).__name__)
    _check_same_dtype(x, source, "masked_scatter", "source")
    xb, m = _broadcast_mask(x, mask, "masked_scatter")
    n = int(m.sum())
    if (<Variable>source)._data.size < n:
        raise RuntimeError("masked_scatter(): source has %d elements, fewer than the %d "
                           "true entries of the mask" % ((<Variable>source)._data.size, n))
    part = getitem(reshape(source, (-1,)), slice(0, n))
    if m.ndim == 0:
        return reshape(_put(reshape(xb, (1,)), m.reshape(1), part, "masked_scatter"), ())
    return _put(xb, m, part, "masked_scatter")



# -- nonzero, unique, pad ---------------------------------------------------------------

cdef object _as_tuple_without_out(object as_tuple):
    if as_tuple:
        raise RuntimeError("nonzero(): nonzero does not support the out kwarg when as_tuple "
                           "is True")
    return as_tuple


@profiled_op
def nonzero(input, as_tuple=False, *, out=None):
    """Indices of the nonzero entries: an int64 Variable of shape (n, ndim), or with
    ``as_tuple`` one 1-d Variable per dimension (not differentiable).

    >>> nonzero(Variable(numpy.array([[0., 1.], [2., 0.]])))
    tensor([[0, 1],
            [1, 0]])
    """
    if out is not None: return _write_out("nonzero", out, nonzero(input,
                                          _as_tuple_without_out(as_tuple)), _OUT_EXACT)
    cdef Variable x = _as_variable(input, "nonzero")
    xp = _xp_of(x._data)
    if as_tuple:
        data = x._data.reshape(1) if x._data.ndim == 0 else x._data
        return tuple(_plain(i.astype(numpy.int64), False) for i in xp.nonzero(data))
    return _plain(xp.argwhere(x._data).astype(numpy.int64), False)


cdef tuple _unique_slices_nan_apart(object values, object inverse, object counts, int axis):
    # torch keeps every slice that holds a NaN apart from all others (NaN != NaN), where
    # NumPy's unique along an axis merges slices that look alike: split each such group
    # into one slice per occurrence (in input order), at the group's sorted place.
    moved = numpy.moveaxis(values, axis, 0)
    has_nan = numpy.isnan(moved.reshape(moved.shape[0], -1)).any(axis=1)
    inverse = inverse.reshape(-1)
    order = numpy.argsort(inverse, kind="stable")       # each group's occurrences, in order
    new_inverse = numpy.empty_like(inverse)
    picks, new_counts = [], []
    start = 0
    for j in range(moved.shape[0]):
        n = int(counts[j])
        members = order[start:start + n]
        start += n
        if has_nan[j]:
            for m in members:
                new_inverse[m] = len(picks)
                picks.append(j)
                new_counts.append(1)
        else:
            new_inverse[members] = len(picks)
            picks.append(j)
            new_counts.append(n)
    values = numpy.moveaxis(moved[numpy.asarray(picks, dtype=numpy.intp)], 0, axis)
    return values, new_inverse, numpy.asarray(new_counts, dtype=numpy.int64)


@profiled_op
def unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None):
    """The sorted distinct values (of the flattened input, or slices along ``dim``), with
    optionally the inverse indices and the counts (not differentiable).

    >>> unique(Variable(numpy.array([3., 1., 3.])), return_inverse=True, return_counts=True)
    (tensor([1., 3.], dtype=float64), tensor([1, 0, 1]), tensor([1, 2]))
    """
    _refuse_complex(input, None, "unique")
    cdef Variable x = _as_variable(input, "unique")
    xp = _xp_of(x._data)
    axis = None if dim is None else _normalize_dim(dim, x._data.ndim, "unique")
    if axis is not None and x._data.ndim == 0:
        raise IndexError("unique(): dim %s is out of range for a 0-d Variable" % (dim,))
    if axis is not None and x._data.size == 0 and any(
            [x._data.shape[k] == 0 for k in range(x._data.ndim) if k != axis]):
        raise RuntimeError("unique(): There are 0 sized dimensions, and they aren't "
                           "selected, so unique cannot be applied")
    # torch keeps every NaN of the flattened input as a distinct value (NumPy would merge
    # them; its equal_nan=False keeps them apart)
    kw = {"equal_nan": False} if axis is None and xp is numpy else {}
    values, inverse, counts = xp.unique(x._data, return_inverse=True, return_counts=True,
                                        axis=axis, **kw)
    if axis is not None and xp is numpy and _is_float_dtype(values.dtype) and \
            numpy.isnan(values).any():
        values, inverse, counts = _unique_slices_nan_apart(values, inverse, counts, axis)
    if _records(x) and _is_float_dtype(values.dtype):
        out = [_delayed_error((_wrap(values),), (x,), "the derivative for '%s' is not "
                              "implemented." % ("_unique2" if dim is None else "unique_dim"),
                              None, NotImplementedError)[0]]
    else:
        out = [_plain(values, False)]
    if return_inverse:
        shape = x._data.shape if axis is None else (x._data.shape[axis],)
        out.append(_plain(inverse.reshape(shape).astype(numpy.int64), False))
    if return_counts:
        out.append(_plain(counts.astype(numpy.int64), False))
    return out[0] if len(out) == 1 else tuple(out)


@profiled_op
def unique_consecutive(input, return_inverse=False, return_counts=False, dim=None):
    """Collapse each run of equal consecutive values (of the flattened input, or of the
    slices along ``dim``) into one, with optionally the inverse indices and the run
    lengths (not differentiable, as torch's).

    >>> unique_consecutive(Variable(numpy.array([1., 1., 2., 1.])), return_counts=True)
    (tensor([1., 2., 1.], dtype=float64), tensor([2, 1, 1]))
    """
    cdef Variable x = _as_variable(input, "unique_consecutive")
    _refuse_complex(x, None, "unique_consecutive")
    xp = _xp_of(x._data)
    data = x._data
    cdef Py_ssize_t axis
    if dim is None:
        flat = data.reshape(-1)
        n = flat.shape[0]
        if n:
            starts = xp.concatenate((xp.ones(1, dtype=bool), flat[1:] != flat[:n - 1]))
        else:
            starts = xp.zeros(0, dtype=bool)
        values = flat[starts]
        inverse_shape = data.shape
    else:
        axis = _normalize_dim_sized(dim, data.ndim, "unique_consecutive")
        n = data.shape[axis]
        if n and data.size == 0:
            raise RuntimeError("unique_consecutive(): there are 0 sized dimensions, and "
                               "they aren't selected, so unique cannot be applied")
        if n:
            rows = xp.moveaxis(data, axis, 0).reshape(n, -1)
            starts = xp.concatenate((xp.ones(1, dtype=bool),
                                     (rows[1:] != rows[:n - 1]).any(axis=1)))
        else:
            starts = xp.zeros(0, dtype=bool)
        values = xp.compress(starts, data, axis=axis)
        inverse_shape = (n,)
    if _records(x) and _is_float_dtype(values.dtype):
        out = [_delayed_error((_wrap(values),), (x,), "the derivative for "
                              "'unique_consecutive' is not implemented.", None,
                              NotImplementedError)[0]]
    else:
        out = [_plain(values, False)]
    if return_inverse:
        inverse = xp.cumsum(starts, dtype=numpy.int64) - 1
        out.append(_plain(inverse.reshape(inverse_shape), False))
    if return_counts:
        positions = xp.flatnonzero(starts)
        ends = xp.concatenate((positions[1:], xp.asarray([n], dtype=positions.dtype)))
        out.append(_plain((ends - positions).astype(numpy.int64), False))
    return out[0] if len(out) == 1 else tuple(out)


cdef class ConstantPadBackward(Node):
    cdef tuple key                      # where the input sits in the padded output

    def name(self):
        """torch's name for a constant pad's node."""
        return _display_name_or(self, "ConstantPadNdBackward")

    cdef tuple _backward(self, tuple grads):
        # (a dense copy of the kept part, as torch's gradient is)
        return (_dense(getitem(grads[0], self.key)),)


cdef _check_nonconstant_pad(tuple shape, Py_ssize_t npad, str mode):
    # torch's combinations for the reflect, replicate and circular modes: k = npad / 2
    # padded dims (1, 2 or 3) of an input with k + 1 dims, or k + 2 (a batch dim first);
    # reflect and replicate want every dim but that batch dim non-empty.
    cdef Py_ssize_t k = npad // 2, nd = len(shape)
    if k not in (1, 2, 3) or nd not in (k + 1, k + 2):
        raise NotImplementedError(
            "Padding size %d is not supported for %dD input tensor.\n"
            "Supported combinations for non-constant padding:\n"
            "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
            "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
            "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)" % (npad, nd))
    checked = shape[1:] if nd == k + 2 else shape
    if mode != "circular" and any(n == 0 for n in checked):
        raise RuntimeError(
            "Expected %dD or %dD (batch mode) tensor with possibly 0 batch size and other "
            "non-zero dimensions for input, but got: %s" % (k + 1, k + 2, _shape_str(shape)))


@profiled_op
def pad(input, pad, mode="constant", value=None):
    """Pad the last ``len(pad) // 2`` dimensions: ``pad = (left, right)`` of the last
    dimension, then of the one before, ... (torch.nn.functional.pad). Modes: 'constant'
    (negative sizes crop), 'reflect' (mirror without the edge), 'replicate' (the edge),
    'circular' (wrap around; negative sizes crop first).

    >>> pad(Variable(numpy.array([[1., 2.]])), (1, 2), value=-1.0)
    tensor([[-1.,  1.,  2., -1., -1.]], dtype=float64)
    >>> pad(Variable(numpy.array([[1., 2., 3.]])), (2, 1), mode="reflect")
    tensor([[3., 2., 1., 2., 3., 2.]], dtype=float64)
    """
    cdef Variable x = _as_variable(input, "pad")
    if not isinstance(pad, (list, tuple)):
        raise TypeError("pad(): argument 'pad' must be a tuple of ints, not %s"
                        % type(pad).__name__)
    sizes = [_int_arg(p, "pad", "pad") for p in pad]
    cdef Py_ssize_t nd = x._data.ndim
    if len(sizes) % 2 or len(sizes) // 2 > nd:
        raise RuntimeError("pad(): padding length must be even and at most twice the number "
                           "of dimensions (%d), got %d" % (nd, len(sizes)))
    if mode not in ("constant", "reflect", "replicate", "circular"):
        raise NotImplementedError("pad(): mode %r is not supported (constant, reflect, "
                                  "replicate, circular)" % (mode,))
    widths = [(0, 0)] * nd
    for i in range(len(sizes) // 2):
        widths[nd - 1 - i] = (sizes[2 * i], sizes[2 * i + 1])
    xp = _xp_of(x._data)
    if mode != "constant":
        _check_nonconstant_pad(x._data.shape, len(sizes), mode)
    if mode == "circular":
        if value != 0 and value is not None:
            raise RuntimeError("pad(): padding mode 'circular' doesn't take in value argument")
        # torch crops the negative sizes first, then wraps what is left around
        crop = []
        for d, (lo, hi) in enumerate(widths):
            n = x._data.shape[d]
            if lo > n or hi > n:
                raise RuntimeError("pad(): Padding value causes wrapping around more than "
                                   "once.")
            start = -lo if lo < 0 else 0
            stop = n + hi if hi < 0 else n
            if stop <= start and (lo > 0 or hi > 0 or stop < start):
                raise RuntimeError("pad(): the padding %s leaves dimension %d of size %d "
                                   "with no entries to wrap" % (tuple(sizes), d, n))
            crop.append(slice(start, stop))
        positions = xp.arange(x._data.size).reshape(x._data.shape)[tuple(crop)]
        positions = xp.pad(positions, [(builtins.max(lo, 0), builtins.max(hi, 0))
                                       for lo, hi in widths], mode="wrap")
        return getitem(reshape(x, (-1,)), positions)
    if mode != "constant":
        if value != 0 and value is not None:
            raise RuntimeError("pad(): padding mode %r doesn't take in value argument" % mode)
        crop = []
        for d, (lo, hi) in enumerate(widths):
            n = x._data.shape[d]
            # (an empty padded dim was refused above, by _check_nonconstant_pad)
            if (lo > 0 or hi > 0) and mode == "reflect" and (lo >= n or hi >= n):
                raise RuntimeError("pad(): padding (%d, %d) at dimension %d is too large for "
                                   "the %s mode on an input of shape %s"
                                   % (lo, hi, d, mode, _shape_str(x._data.shape)))
            # a negative size crops the padded result (torch: the positive sizes pad the
            # input, the negative ones then cut into what that gave)
            size = n + builtins.max(lo, 0) + builtins.max(hi, 0)
            start = -lo if lo < 0 else 0
            stop = size + hi if hi < 0 else size
            if stop < start:
                raise RuntimeError("pad(): the padding %s leaves dimension %d of size %d "
                                   "with a negative size" % (tuple(sizes), d, n))
            crop.append(slice(start, stop))
        # The padded output takes each entry from one input entry: gather through the
        # map of flat positions (its backward adds the reused entries up).
        # Built where the data lives (xp.pad and xp.arange): no host map copied over.
        positions = xp.pad(xp.arange(x._data.size).reshape(x._data.shape),
                           [(builtins.max(lo, 0), builtins.max(hi, 0)) for lo, hi in widths],
                           mode="reflect" if mode == "reflect" else "edge")
        # (torch's result keeps a channels_last layout)
        return _channels_last_like(getitem(reshape(x, (-1,)), positions[tuple(crop)]), x)
    # constant: crop the negative sizes, then pad the positive ones
    crop = []
    for d, (lo, hi) in enumerate(widths):
        n = x._data.shape[d]
        start = -lo if lo < 0 else 0
        stop = n + hi if hi < 0 else n
        if stop < start:
            raise RuntimeError("pad(): the padding %s leaves dimension %d of size %d with a "
                               "negative size" % (tuple(sizes), d, n))
        crop.append(slice(start, stop))
    if any(lo < 0 or hi < 0 for lo, hi in widths):
        x = getitem(x, tuple(crop))
    grow = [(builtins.max(lo, 0), builtins.max(hi, 0)) for lo, hi in widths]
    _checked_sizes([n + lo + hi for n, (lo, hi) in zip(x._data.shape, grow)],
                   x._data.itemsize, "pad")
    data = xp.full(tuple(n + lo + hi for n, (lo, hi) in zip(x._data.shape, grow)),
                   0 if value is None else value, dtype=x._data.dtype)
    key = tuple(slice(lo, lo + n) for n, (lo, hi) in zip(x._data.shape, grow))
    data[key] = x._data
    if _is_channels_last(x):
        data = _in_layout(data, _NHWC)       # torch's result keeps a channels_last layout
    cdef ConstantPadBackward node
    if _records(x):
        node = ConstantPadBackward.__new__(ConstantPadBackward)
        node.key = key
        return _recorded1(node, data, _edge(x))
    return _plain(data, x._volatile)


# -- the *_scatter ops and index_put: out-of-place writes, each a differentiable
# __setitem__ (or put) on a copy: the gradient reaches input outside the written part
# and src (values) at it.

cdef Variable _scatter_into(Variable x, object key, object src, tuple expected, str what):
    cdef Variable s = _as_variable(src, what)
    if s._data.shape != expected:
        raise RuntimeError("%s(): expected src to have a size equal to the slice of self. src "
                           "size = %s, slice size = %s"
                           % (what, _shape_str(s._data.shape), _shape_str(expected)))
    if s._data.dtype != x._data.dtype:
        s = _convert(s, None, x._data.dtype, False)
    return _setitem_out_of_place(x, _index_key(key, x._data), s)


@profiled_op
def select_scatter(input, src, dim, index):
    """``input`` with ``src`` written at ``index`` along ``dim`` (the inverse of
    :func:`select`, out of place).

    >>> select_scatter(Variable(numpy.zeros((2, 2))), Variable(numpy.ones(2)), 0, 1)
    tensor([[0., 0.],
            [1., 1.]], dtype=float64)
    """
    cdef Variable x = _as_variable(input, "select_scatter")
    if x._data.ndim == 0:                   # (d indexes the shape below: guard it)
        raise IndexError("select_scatter(): select() cannot be applied to a 0-dim Variable.")
    cdef Py_ssize_t d = _normalize_dim(dim, x._data.ndim, "select_scatter")
    size = x._data.shape[d]
    if not isinstance(index, (int, numpy.integer)) or isinstance(index, bool):
        raise TypeError("select_scatter(): argument 'index' must be int, not %s"
                        % type(index).__name__)
    if index < -size or index >= size:
        raise IndexError("select_scatter(): index %d out of range for Variable of size %s at "
                         "dimension %d" % (index, _shape_str(x._data.shape), d))
    key = (slice(None),) * d + (int(index),)
    return _scatter_into(x, key, src, x._data.shape[:d] + x._data.shape[d + 1:],
                         "select_scatter")


@profiled_op
def slice_scatter(input, src, dim=0, start=None, end=None, step=1):
    """``input`` with ``src`` written at ``start:end:step`` along ``dim`` (out of place).

    >>> slice_scatter(Variable(numpy.zeros(4)), Variable(numpy.ones(2)), start=1, step=2)
    tensor([0., 1., 0., 1.], dtype=float64)
    """
    cdef Variable x = _as_variable(input, "slice_scatter")
    if x._data.ndim == 0:                   # (d indexes the shape below: guard it)
        raise IndexError("slice_scatter(): slice() cannot be applied to a 0-dim Variable.")
    cdef Py_ssize_t d = _normalize_dim(dim, x._data.ndim, "slice_scatter")
    for name, bound in (("start", start), ("end", end)):
        if bound is not None and (not isinstance(bound, (int, numpy.integer))
                                  or isinstance(bound, bool)):
            raise TypeError("slice_scatter(): argument '%s' must be int or None, not %s"
                            % (name, type(bound).__name__))
    if not isinstance(step, (int, numpy.integer)) or step <= 0:
        raise RuntimeError("slice_scatter(): slice step must be positive, got %r" % (step,))
    key = (slice(None),) * d + (slice(start, end, step),)
    shape = list(x._data.shape)
    shape[d] = len(range(*slice(start, end, step).indices(shape[d])))
    return _scatter_into(x, key, src, tuple(shape), "slice_scatter")


@profiled_op
def diagonal_scatter(input, src, offset=0, dim1=0, dim2=1):
    """``input`` with ``src`` written on its diagonal (``diagonal(offset, dim1, dim2)``'s
    layout: the other dimensions first, the diagonal last; out of place).

    >>> diagonal_scatter(Variable(numpy.zeros((2, 2))), Variable(numpy.ones(2)))
    tensor([[1., 0.],
            [0., 1.]], dtype=float64)
    """
    cdef Variable x = _as_variable(input, "diagonal_scatter")
    cdef Py_ssize_t nd = x._data.ndim
    # (torch checks the dims first, then the rank)
    cdef Py_ssize_t d1 = _normalize_dim(dim1, nd, "diagonal_scatter")
    cdef Py_ssize_t d2 = _normalize_dim(dim2, nd, "diagonal_scatter")
    if d1 == d2:
        raise RuntimeError("diagonal_scatter(): diagonal dimensions cannot be identical %s, %s"
                           % (dim1, dim2))
    if nd < 2:
        raise RuntimeError("diagonal_scatter(): diagonal dimensions requires ndim larger than 1, "
                           "got %d" % nd)
    cdef Variable moved = movedim(x, (d1, d2), (nd - 2, nd - 1))
    rows, cols = moved._data.shape[nd - 2], moved._data.shape[nd - 1]
    lo, hi = builtins.min(offset, 0), builtins.max(offset, 0)
    n = builtins.max(0, builtins.min(rows + lo, cols - hi))
    xp = _xp_of(x._data)
    i = xp.arange(n) - lo
    j = xp.arange(n) + hi
    out = _scatter_into(moved, (Ellipsis, i, j), src, moved._data.shape[:nd - 2] + (n,),
                        "diagonal_scatter")
    return movedim(out, (nd - 2, nd - 1), (d1, d2))


@profiled_op
def index_put(input, indices, values, accumulate=False):
    """``input`` with ``values`` written at ``input[indices]`` (a tuple of integer or
    bool Variables, as in indexing), or added there with ``accumulate`` (repeated
    indices add up); out of place.

    >>> x = Variable(numpy.zeros(3))
    >>> index_put(x, (Variable(numpy.array([0, 0])),), Variable(numpy.array(2.0)), True)
    tensor([4., 0., 0.], dtype=float64)
    """
    cdef Variable x = _as_variable(input, "index_put")
    if not isinstance(indices, (tuple, list)):
        raise TypeError("index_put(): argument 'indices' must be a tuple of Variables, not %s"
                        % type(indices).__name__)
    key = []
    for k in indices:
        if not isinstance(k, Variable):
            raise TypeError("index_put(): argument 'indices' must be a tuple of Variables, "
                            "got an element of type %s" % type(k).__name__)
        if (<Variable>k)._data.dtype.kind not in "biu":
            raise IndexError("index_put(): tensors used as indices must be long, int, byte or "
                             "bool tensors")
        key.append(_byte_mask((<Variable>k)._data) if (<Variable>k)._data.dtype == _UINT8
                   else (<Variable>k)._data)
    if len(key) > x._data.ndim:
        raise IndexError("index_put(): too many indices for Variable of dimension %d (got %d)"
                         % (x._data.ndim, len(key)))
    message = _mask_mismatch(tuple(key), x._data.shape)
    if message is not None:           # (NumPy takes an empty mask for any dimension)
        raise IndexError("index_put(): " + message)
    xp = _xp_of(x._data)
    try:
        flat = xp.arange(x._data.size, dtype=numpy.int64).reshape(x._data.shape)[tuple(key)]
        v = _as_variable(values, "index_put")
        if not _broadcasts_to(v._data.shape, flat.shape):
            raise RuntimeError("index_put(): shape mismatch: value tensor of shape %s cannot "
                               "be broadcast to indexing result of shape %s"
                               % (_shape_str(v._data.shape), _shape_str(flat.shape)))
        v = broadcast_to(v, flat.shape)
        return put(x, flat.reshape(-1), reshape(v, (-1,)), accumulate)
    except IndexError as exc:
        raise IndexError("index_put(): %s" % exc) from None
    except _OP_ERRORS as exc:
        raise _renamed(exc, "index_put") from None


SHAPE_OPS = (reshape, view, flatten, transpose, permute, t, unsqueeze, squeeze, expand,
             broadcast_to, sum_to, getitem, cat, concat, concatenate, stack, hstack, vstack, row_stack, split,
             split_with_sizes, chunk, unbind, unsafe_split, unsafe_split_with_sizes,
             unsafe_chunk, narrow, select, flip, roll, repeat, tile,
             movedim, unflatten, gather, take_along_dim, scatter, scatter_add, index_select,
             index_add, index_copy, index_fill, masked_fill, masked_select, masked_scatter,
             nonzero, unique, unique_consecutive, pad, ravel, flipud, fliplr, rot90, atleast_1d, atleast_2d,
             atleast_3d, dstack, column_stack, tensor_split, hsplit, vsplit, take, put,
             broadcast_tensors, meshgrid, kron, repeat_interleave, diff, moveaxis, swapdims,
             swapaxes, select_scatter, slice_scatter, diagonal_scatter, index_put)
# The family's heading in docs/op-reference.md, and its ops that are pyad.<name>
# functions but not Variable methods (item access has its operators; torch has these as functions only).
SHAPE_TITLE = "Shape and indexing"
SHAPE_FUNCTION_ONLY = ("getitem", "sum_to", "cat", "concat", "concatenate", "stack", "hstack",
                       "vstack", "row_stack", "pad",
                       "atleast_1d", "atleast_2d", "atleast_3d", "dstack", "column_stack",
                       "broadcast_tensors", "meshgrid")
