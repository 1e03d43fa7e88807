# Shape and indexing ops. Results share memory with the input where NumPy returns a
# view, and then also share its version counter (an in-place change to either is
# seen by backward's checks on both).


# -- views and their history ---------------------------------------------------------
#
# A view shares memory with its base. Each view remembers how to rebuild itself from its
# root base (a _ViewFn: reshape, permute or basic indexing, composed), so that
# - after an in-place change of the base (or of another view) the view's history is
#   rebuilt on its next use, from the base's new history (torch regenerates view
#   grad_fns the same way), and
# - an in-place op on the view is recorded on the base: base[view] = op(view), with the
#   base's history rewritten (torch's CopySlices), then the view rebuilt from it.

cdef class _ViewFn:
    cdef int kind               # 0 reshape, 1 permute, 2 basic indexing
    cdef object arg
    cdef _ViewFn parent         # the view this one was taken from, or None for the base

    cdef Variable apply(self, Variable base):
        if self.parent is not None:
            base = self.parent.apply(base)
        if self.kind == 0:
            return _reshape(base, self.arg, False)
        if self.kind == 1:
            return permute(base, self.arg)
        return getitem(base, self.arg)


cdef inline Variable _shape_result(Variable x, object data, Node node, int kind=-1,
                                   object arg=None):
    cdef Variable out
    cdef _ViewFn fn
    if node is not None:
        out = _recorded(node, data, (_edge(x),))
    else:
        out = _plain(data, x._volatile)
    if data.base is not None:
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
    return out


cdef void _refresh_view(Variable v) except *:
    # Rebuild a view's history from its base if either changed in place since, or if
    # the base's requires_grad changed. A view taken under no_grad of a base that
    # requires grad never gets history (torch: such a view is not differentiable).
    cdef Variable fresh
    if v._view_no_grad or v._version_counter is None or (
            v._version_counter.version == v._view_version and
            v._requires_grad == v._view_base._requires_grad):
        return
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


cdef tuple _shape_args(tuple shape):
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        return tuple(shape[0])
    return shape


cdef class ViewBackward(Node):
    cdef tuple input_shape

    cdef tuple _backward(self, tuple grads):
        if not _grad_enabled():
            return (_raw((<Variable>grads[0])._data.reshape(self.input_shape)),)
        return (_reshape(<Variable>grads[0], self.input_shape, False),)


cdef Variable _reshape(Variable x, tuple shape, bint must_view):
    try:
        if must_view:
            data = x._data.view()
            data.shape = shape        # raises rather than copy when a view is impossible
        else:
            data = x._data.reshape(shape)
    except (ValueError, AttributeError) as exc:
        raise RuntimeError("%s: shape %s is invalid for input of size %d (%s)"
                           % ("view" if must_view else "reshape", _shape_str(shape),
                              x._data.size, exc)) from None
    cdef ViewBackward node = None
    if _records(x):
        node = ViewBackward.__new__(ViewBackward)
        node.input_shape = x._data.shape
    return _shape_result(x, data, node, 0, shape)


def reshape(input, *shape):
    """Reshape (a view when possible, else a copy); one dimension may be -1.

    >>> reshape(Variable(numpy.arange(6.)), 2, -1)
    tensor([[0., 1., 2.],
            [3., 4., 5.]], dtype=float64)
    """
    if _profiling:
        return _profiled(reshape, (input, ) + shape)
    cdef Variable x = _as_variable(input)
    cdef tuple s = _shape_args(shape)
    if s == x._data.shape:
        return _reshape(x, s, False) if _records(x) else _shape_result(x, x._data.view(), None,
                                                                      0, s)
    return _reshape(x, s, False)


def view(input, *shape):
    """Reshape without copying; raises if the memory layout does not allow a view.

    >>> x = Variable(numpy.arange(6.))
    >>> v = view(x, 2, 3)
    >>> v.shape, v.data.base is x.data
    ((2, 3), True)
    """
    if _profiling:
        return _profiled(view, (input, ) + shape)
    return _reshape(_as_variable(input), _shape_args(shape), True)


def flatten(input, start_dim=0, end_dim=-1):
    """Flatten dimensions ``start_dim`` through ``end_dim`` into one.

    >>> flatten(Variable(numpy.zeros((2, 3, 4))), 1).shape
    (2, 12)
    """
    if _profiling:
        return _profiled(flatten, (input, start_dim, end_dim, ))
    cdef Variable x = _as_variable(input)
    shape = x._data.shape
    s = _normalize_dim(start_dim, len(shape), "flatten")     # 0-d: only 0 and -1 (torch)
    e = _normalize_dim(end_dim, len(shape), "flatten")
    if len(shape) == 0:
        return reshape(x, (1,))
    if s > e:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    n = 1
    for d in shape[s:e + 1]:
        n *= d
    return reshape(x, shape[:s] + (n,) + shape[e + 1:])


cdef class PermuteBackward(Node):
    cdef tuple inverse

    cdef tuple _backward(self, tuple grads):
        if not _grad_enabled():
            return (_raw((<Variable>grads[0])._data.transpose(self.inverse)),)
        return (permute(grads[0], self.inverse),)


def permute(input, *dims):
    """Reorder dimensions (a view).

    >>> permute(Variable(numpy.zeros((2, 3, 4))), 2, 0, 1).shape
    (4, 2, 3)
    """
    if _profiling:
        return _profiled(permute, (input, ) + dims)
    cdef Variable x = _as_variable(input)
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


def transpose(input, dim0, dim1):
    """Swap two dimensions (a view).

    >>> transpose(Variable(numpy.zeros((2, 3, 4))), 0, 2).shape
    (4, 3, 2)
    """
    if _profiling:
        return _profiled(transpose, (input, dim0, dim1, ))
    cdef Variable x = _as_variable(input)
    cdef Py_ssize_t n = x._data.ndim
    if n == 0:
        _normalize_dim(dim0, n, "transpose")
        _normalize_dim(dim1, n, "transpose")
        return permute(x, ())
    perm = list(range(n))
    a = _normalize_dim(dim0, n, "transpose")
    b = _normalize_dim(dim1, n, "transpose")
    perm[a], perm[b] = perm[b], perm[a]
    return permute(x, tuple(perm))


def t(input):
    """Transpose a Variable of at most 2 dimensions.

    >>> t(Variable(numpy.array([[1., 2.]])))
    tensor([[1.],
            [2.]], dtype=float64)
    """
    if _profiling:
        return _profiled(t, (input, ))
    cdef Variable x = _as_variable(input)
    if x._data.ndim > 2:
        raise RuntimeError("t() expects a Variable with <= 2 dimensions, but self is %dD"
                           % x._data.ndim)
    return permute(x, tuple(range(x._data.ndim))[::-1])


def unsqueeze(input, dim):
    """Insert a dimension of size 1 at ``dim``.

    >>> unsqueeze(Variable(numpy.zeros(3)), -1).shape
    (3, 1)
    """
    if _profiling:
        return _profiled(unsqueeze, (input, dim, ))
    cdef Variable x = _as_variable(input)
    cdef Py_ssize_t d = _normalize_dim(dim, x._data.ndim + 1, "unsqueeze")
    shape = x._data.shape
    return _reshape(x, shape[:d] + (1,) + shape[d:], False)


def squeeze(input, dim=None):
    """Remove dimensions of size 1 (all of them, or those in ``dim``).

    >>> squeeze(Variable(numpy.zeros((1, 3, 1)))).shape, squeeze(Variable(numpy.zeros((1, 3, 1))), 0).shape
    ((3,), (3, 1))
    """
    if _profiling:
        return _profiled(squeeze, (input, dim, ))
    cdef Variable x = _as_variable(input)
    shape = x._data.shape
    if dim is None:
        dims = tuple(i for i, s in enumerate(shape) if s == 1)
    else:
        dims = tuple(d for d in _normalize_dims(dim, len(shape), "squeeze") if shape[d] == 1)
    return _reshape(x, tuple(s for i, s in enumerate(shape) if i not in dims), False)


# -- basic indexing -------------------------------------------------------------------

cdef object _index_key(object key):
    # Unwrap Variables used as indices; plain ints, slices, None and Ellipsis pass as is.
    if isinstance(key, Variable):
        return (<Variable>key)._data
    if isinstance(key, tuple):
        return tuple(_index_key(k) for k in key)
    if isinstance(key, list):
        return _xp_of(numpy.empty(0)).asarray(key)
    return key


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


cdef class _KeyNode(Node):
    # Keeps an index key. A key with index arrays is a saved value (torch saves the
    # indices): freed after backward, and a second backward is refused. Basic keys
    # (ints, slices) are kept, as torch keeps them.
    cdef object key

    cdef void _release_saved(self):
        self._released = True
        if not _is_basic_key(self.key):
            self.key = _FREED

    cdef object saved_key(self):
        if self.key is _FREED:
            raise _freed_error(self)
        return self.key


cdef object _FREED = object()


cdef class IndexBackward(_KeyNode):
    cdef tuple input_shape
    cdef object dtype

    cdef tuple _backward(self, tuple grads):
        return (_index_put_into_zeros(grads[0], self.saved_key(), self.input_shape),)


cdef class IndexPutBackward(_KeyNode):
    # Adjoint of indexing: its backward indexes the gradient the same way.
    cdef tuple _backward(self, tuple grads):
        return (getitem(grads[0], self.saved_key()),)


cdef Variable _index_put_into_zeros(Variable g, object key, tuple shape):
    xp = _xp_of(g._data)
    data = xp.zeros(shape, dtype=g._data.dtype)
    if _is_basic_key(key):
        data[key] = g._data
    elif xp is numpy:
        # Repeated indices must add up, not overwrite.
        numpy.add.at(data, key, g._data)
    else:
        import cupyx
        cupyx.scatter_add(data, key, g._data)
    cdef IndexPutBackward node
    if _records(g):
        node = IndexPutBackward.__new__(IndexPutBackward)
        node.key = key
        return _recorded(node, data, (_edge(g),))
    return _plain(data, g._volatile)


def getitem(input, key):
    """``input[key]``: ints, slices, None, Ellipsis, and integer or boolean arrays.

    >>> x = Variable(numpy.array([1., 2., 3.]), requires_grad=True)
    >>> x[[0, 0, 2]].sum().backward()          # repeated indices add up
    >>> x.grad
    tensor([2., 0., 1.], dtype=float64)
    """
    if _profiling:
        return _profiled(getitem, (input, key, ))
    cdef Variable x = _as_variable(input)
    key = _index_key(key)
    cdef bint basic = _is_basic_key(key)
    try:
        # A trailing Ellipsis makes NumPy return a 0-d view, not a scalar copy, so that
        # x[0].add_(1) changes x, as in torch.
        data = x._data[_with_ellipsis(key) if basic else key]
    except IndexError as exc:
        raise IndexError("index %r is out of bounds for a Variable of shape %s: %s"
                         % (key, _shape_str(x._data.shape), exc)) from None
    cdef IndexBackward node = None
    if _records(x):
        node = IndexBackward.__new__(IndexBackward)
        node.key = key
        node.input_shape = x._data.shape
    if basic:
        return _shape_result(x, _ensure_array(data), node, 2, key)
    if node is not None:
        return _recorded(node, data, (_edge(x),))
    return _plain(data, x._volatile)


# -- broadcasting and its adjoint, the broadcast reduction every backward uses ----------

cdef class SumToBackward(Node):
    cdef tuple input_shape

    cdef tuple _backward(self, tuple grads):
        if not _grad_enabled():
            return (_raw(_broadcast_data((<Variable>grads[0])._data, self.input_shape)),)
        return (broadcast_to(grads[0], self.input_shape),)


cpdef Variable sum_to(object input, object shape):
    """Sum ``input`` over broadcast dimensions so it has ``shape`` (adjoint of broadcast_to).

    Every op's backward uses it to reduce a broadcast gradient to its input's shape.

    >>> sum_to(Variable(numpy.ones((2, 3))), (1, 3))
    tensor([[2., 2., 2.]], dtype=float64)
    """
    if _profiling:
        return _profiled(sum_to, (input, shape, ))
    cdef Variable x = _as_variable(input)
    shape = tuple(shape)
    if _has_shape(x._data, shape):
        return x
    data = _sum_to_data(x._data, shape)
    cdef SumToBackward node
    if _records(x):
        node = SumToBackward.__new__(SumToBackward)
        node.input_shape = x._data.shape
        return _recorded(node, data, (_edge(x),))
    return _plain(data, x._volatile)


cdef class ExpandBackward(Node):
    cdef tuple input_shape

    cdef tuple _backward(self, tuple grads):
        if not _grad_enabled():
            return (_raw(_sum_to_data((<Variable>grads[0])._data, self.input_shape)),)
        return (sum_to(grads[0], self.input_shape),)


cpdef Variable broadcast_to(object input, object shape):
    """Broadcast ``input`` to ``shape`` (a read-only view, as NumPy's broadcast_to).

    >>> broadcast_to(Variable(numpy.array([1., 2.])), (2, 2))
    tensor([[1., 2.],
            [1., 2.]], dtype=float64)
    """
    if _profiling:
        return _profiled(broadcast_to, (input, shape, ))
    cdef Variable x = _as_variable(input)
    shape = tuple(shape)
    if x._data.shape == shape:
        return x
    try:
        data = _broadcast_data(x._data, shape)
    except ValueError:
        raise RuntimeError("broadcast_to: the shape %s cannot be broadcast to %s"
                           % (_shape_str(x._data.shape), _shape_str(shape))) from None
    cdef ExpandBackward node
    cdef Variable out
    if _records(x):
        node = ExpandBackward.__new__(ExpandBackward)
        node.input_shape = x._data.shape
        out = _recorded(node, data, (_edge(x),))
    else:
        out = _plain(data, x._volatile)
    out._version_counter = _vc(x)
    out._is_view = True
    return out


def expand(input, *sizes):
    """Broadcast to ``sizes``; ``-1`` keeps a dimension (torch's expand).

    >>> expand(Variable(numpy.array([[1.], [2.]])), -1, 3)
    tensor([[1., 1., 1.],
            [2., 2., 2.]], dtype=float64)
    """
    if _profiling:
        return _profiled(expand, (input, ) + sizes)
    cdef Variable x = _as_variable(input)
    if len(sizes) == 1 and isinstance(sizes[0], (tuple, list)):
        sizes = tuple(sizes[0])
    lead = len(sizes) - x._data.ndim
    if lead < 0:
        raise RuntimeError("expand: the number of sizes provided (%d) must be greater or equal "
                           "to the number of dimensions in the tensor (%d)"
                           % (len(sizes), x._data.ndim))
    shape = tuple(x._data.shape[i - lead] if s == -1 and i >= lead else s
                  for i, s in enumerate(sizes))
    return broadcast_to(x, shape)


SHAPE_OPS = (reshape, view, flatten, transpose, permute, t, unsqueeze, squeeze, expand,
             broadcast_to, sum_to, getitem)
