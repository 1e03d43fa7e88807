# Memory formats (torch.memory_format): the order a Variable's elements have in memory.
#
# pyad's storage is a NumPy (or CuPy) array, whose strides can describe any of torch's
# layouts, so the formats are real: ``x.contiguous(memory_format=pyad.channels_last)``
# gives NHWC memory behind an NCHW shape, and NumPy's ufuncs (order 'K') keep it through
# elementwise ops, as torch's kernels do. A format is resolved to a permutation of the
# dimensions, outermost first: C order is the identity, channels_last (0, 2, 3, 1).


class memory_format:
    """A memory format, as ``torch.memory_format``: :data:`pyad.contiguous_format`
    (C order), :data:`pyad.channels_last` (NHWC memory for a 4-d Variable),
    :data:`pyad.channels_last_3d` (NDHWC for a 5-d one) and :data:`pyad.preserve_format`
    (the input's own layout: the default of ``clone``, ``to`` and the ``*_like``
    factories).

    >>> import pyad
    >>> x = pyad.zeros(2, 3, 4, 5).contiguous(memory_format=pyad.channels_last)
    >>> x.stride()
    (60, 1, 15, 3)
    >>> x.is_contiguous(memory_format=pyad.channels_last)
    True
    """
    __slots__ = ("_name", "_permutation")

    def __init__(self, *args):
        raise TypeError("cannot create 'pyad.memory_format' instances")

    def __repr__(self):
        return "pyad." + self._name

    def __reduce__(self):
        # pickled by name: loads back as the same object (pyad.<name>)
        return self._name


memory_format.__module__ = "pyad"
_MemoryFormat = memory_format   # (methods' memory_format arguments shadow the class name)


def _new_memory_format(name, permutation):
    fmt = object.__new__(memory_format)
    fmt._name = name
    fmt._permutation = permutation
    return fmt


contiguous_format = _new_memory_format("contiguous_format", None)
channels_last = _new_memory_format("channels_last", (0, 2, 3, 1))
channels_last_3d = _new_memory_format("channels_last_3d", (0, 2, 3, 4, 1))
preserve_format = _new_memory_format("preserve_format", None)


cdef object _format_permutation(object fmt, int ndim, str op, bint optional=True):
    """The dimension order (outermost first) ``fmt`` asks for on an ``ndim``-d Variable,
    or None for preserve_format (and for None where the argument is optional, as
    torch's); torch's errors for a wrong rank or a wrong type."""
    if fmt is None and optional:
        return None
    if not isinstance(fmt, memory_format):
        raise TypeError("%s(): argument 'memory_format' must be pyad.memory_format, not %s"
                        % (op, type(fmt).__name__))
    if fmt is preserve_format:
        return None
    if fmt is contiguous_format:
        return tuple(builtins.range(ndim))
    permutation = (<object>fmt)._permutation
    if len(permutation) != ndim:
        raise RuntimeError("%s(): required rank %d Variable to use %s format"
                           % (op, len(permutation), (<object>fmt)._name))
    return permutation


cdef bint _has_layout(object data, tuple permutation):
    # True when data's memory is dense in this dimension order (NumPy's contiguity flag
    # ignores the strides of size-1 dimensions, as torch's check does)
    return data.transpose(permutation).flags.c_contiguous


cdef bint _strides_like(object data, tuple permutation):
    # torch's is_channels_last_strides_2d/3d for any dimension order: the strides grow
    # along the permutation read from its innermost dimension (sizes of 1 not counted).
    # Stricter than _has_layout where sizes are 1: a (O, 1, kh, kw) weight in C order
    # is contiguous in both orders but reads as C order, as torch's suggest_memory_format
    cdef Py_ssize_t smallest = 0
    inner = permutation[len(permutation) - 1]
    if data.strides[inner] == 0:
        return False
    for k in reversed(permutation):
        if data.strides[k] < smallest:
            return False
        if k == permutation[0] and smallest == data.strides[inner]:
            return False
        smallest = data.strides[k]
        if data.shape[k] > 1:
            smallest *= data.shape[k]
    return True


cdef tuple _channels_last_order(Py_ssize_t ndim):
    return (0, 2, 3, 1) if ndim == 4 else (0, 2, 3, 4, 1) if ndim == 5 else None


cdef bint _suggests_layout(object data, tuple permutation):
    # whether torch's to(memory_format=...) returns the Variable itself: dense in that
    # order, and its strides read as that format (torch's suggest_memory_format)
    if not _has_layout(data, permutation):
        return False
    channels_last = _channels_last_order(data.ndim)
    if channels_last is None:
        return True
    if permutation == channels_last:
        return _strides_like(data, channels_last)
    return not (_strides_like(data, channels_last) and not _strides_like(
        data, tuple(builtins.range(data.ndim))))


cdef object _in_layout(object data, tuple permutation):
    """A copy of ``data`` whose memory is dense in the dimension order ``permutation``."""
    inverse = [0] * len(permutation)
    for position, dim in enumerate(permutation):
        inverse[dim] = position
    return data.transpose(permutation).copy(order="C").transpose(inverse)


cdef object _copy_in_format(object data, object fmt, str op):
    # the copy clone() makes: the input's own layout for preserve_format (NumPy's order
    # 'K' gives torch's strides: the same for dense memory, dense in the input's dimension
    # order otherwise)
    permutation = _format_permutation(fmt, data.ndim, op)
    if permutation is None:
        return data.copy(order="K")
    return _in_layout(data, permutation)


def _like_layout(data, like, fmt, op):
    """``data`` (a new factory result of ``like``'s shape) laid out as ``fmt`` asks, with
    ``like``'s layout for preserve_format: for the ``*_like`` factories."""
    permutation = _format_permutation(fmt, like.ndim, op)
    if permutation is None:
        if like.flags.c_contiguous or like.ndim < 2:
            return data
        # NumPy's order 'K' follows the prototype's dimension order, as torch's
        # empty_like does
        out = _xp_of(data).empty_like(like, dtype=data.dtype, order="K")
        out[...] = data
        return out
    if _has_layout(data, permutation):
        return data
    return _in_layout(data, permutation)


def _laid_out(data, fmt, op):
    """A new factory result ``data`` laid out as ``fmt`` asks (``empty(memory_format=)``)."""
    if fmt is None:
        return data
    if fmt is preserve_format:
        raise RuntimeError("%s(): unsupported memory format Preserve" % op)
    permutation = _format_permutation(fmt, data.ndim, op)
    if _has_layout(data, permutation):
        return data
    return _in_layout(data, permutation)
