"""torch's remaining top-level names that ported scripts call: ``asarray`` and
``frombuffer`` (Variables sharing memory with their source), the dtype algebra
``promote_types``, ``result_type`` and ``can_cast`` (torch's promotion table, the one
pyad's ops follow), ``set_default_tensor_type``, ``is_storage`` and ``vmap``.

>>> import numpy, pyad
>>> a = numpy.zeros(3)
>>> v = pyad.asarray(a)            # no copy: v and a share memory, as in torch
>>> a[0] = 7.0
>>> v
tensor([7., 0., 0.], dtype=float64)
>>> pyad.promote_types(pyad.uint8, pyad.int8)
dtype('int16')
"""
import collections.abc
import warnings

import numpy

from pyad import _engine
from pyad._engine import Variable
from pyad.func import vmap

__all__ = ["asarray", "frombuffer", "promote_types", "result_type", "can_cast",
           "set_default_tensor_type", "is_storage", "vmap"]

# torch's "barebones" unsigned types: promoted only with themselves or a floating type
_BAREBONES_UNSIGNED = frozenset(numpy.dtype(t) for t in (numpy.uint16, numpy.uint32,
                                                         numpy.uint64))
_BOOL = numpy.dtype(numpy.bool_)
_TORCH_NAMES = {"uint8": "Byte", "int8": "Char", "int16": "Short", "int32": "Int",
                "int64": "Long", "uint16": "UInt16", "uint32": "UInt32",
                "uint64": "UInt64", "float16": "Half", "float32": "Float",
                "float64": "Double", "bfloat16": "BFloat16", "bool": "Bool",
                "complex64": "ComplexFloat", "complex128": "ComplexDouble"}


def _dtype_arg(value, what, name, position):
    """A pyad dtype (a numpy.dtype, or a NumPy scalar type), else torch's TypeError."""
    if isinstance(value, numpy.dtype):
        return value
    if isinstance(value, type) and issubclass(value, numpy.generic):
        return numpy.dtype(value)
    raise TypeError("%s(): argument '%s' (position %d) must be pyad.dtype, not %s"
                    % (what, name, position, type(value).__name__))


def _is_bfloat16(dtype):
    return dtype.name == "bfloat16"


def _is_float(dtype):
    """torch's isFloatingType: half, bfloat16, float, double (not complex)."""
    return dtype.kind == "f" or _is_bfloat16(dtype)


def _promote(a, b, what="promote_types"):
    """torch.promote_types on two dtypes (c10::promoteTypes)."""
    if a == b:
        return a
    if a in _BAREBONES_UNSIGNED or b in _BAREBONES_UNSIGNED:
        # torch promotes uint16/32/64 only with a floating type (which wins)
        if _is_float(a):
            return a
        if _is_float(b):
            return b
        raise RuntimeError("%s(): Promotion for uint16, uint32, uint64 types is not "
                           "supported, attempted to promote %s and %s"
                           % (what, _TORCH_NAMES.get(a.name, a.name),
                              _TORCH_NAMES.get(b.name, b.name)))
    if _is_bfloat16(a) or _is_bfloat16(b):
        other = b if _is_bfloat16(a) else a
        if other.kind in "biu":
            return a if _is_bfloat16(a) else b
        if other == numpy.dtype(numpy.float16):
            return numpy.dtype(numpy.float32)
        return other                    # float32, float64, complex64, complex128
    if (a.kind in "fc") != (b.kind in "fc"):
        # torch: an integer or bool meets a floating or complex type -> that type (NumPy
        # would widen int16 with float16 to float32)
        return a if a.kind in "fc" else b
    # Within floating/complex and within bool/integers NumPy's table agrees with torch's
    # (float64 with complex64 -> complex128, uint8 with int8 -> int16; NumPy's widening
    # of int64 with uint64 is excluded above).
    return numpy.promote_types(a, b)


def promote_types(type1, type2):
    """The smallest dtype both ``type1`` and ``type2`` convert to without leaving their
    category, as ``torch.promote_types`` (torch's table, not NumPy's: ``uint16``,
    ``uint32`` and ``uint64`` promote only with themselves and floating types, and
    ``bfloat16`` with ``float16`` gives ``float32``).

    >>> import pyad
    >>> pyad.promote_types(pyad.int32, pyad.float16)
    dtype('float16')
    """
    a = _dtype_arg(type1, "promote_types", "type1", 1)
    b = _dtype_arg(type2, "promote_types", "type2", 2)
    return _promote(a, b)


def _promote_skip_undefined(a, b):
    if a is None:
        return b
    if b is None:
        return a
    return _promote(a, b, "result_type")


def _combine_categories(higher, lower):
    """torch's combine_categories: a higher-priority operand class (dimensioned
    Variables, then 0-d Variables, then Python numbers) sets the dtype unless a lower
    class has a higher category (bool < integer < floating < complex)."""
    if higher is not None and higher.kind == "c":
        return higher
    if lower is not None and lower.kind == "c":
        if higher is not None and _is_float(higher):
            if higher == numpy.dtype(numpy.float64):
                return numpy.dtype(numpy.complex128)
            return numpy.dtype(numpy.complex64)     # (torch: complex32 for float16)
        return lower
    if higher is not None and _is_float(higher):
        return higher
    if higher == _BOOL or (lower is not None and _is_float(lower)):
        return _promote_skip_undefined(higher, lower)
    if higher is not None:
        return higher
    return lower


def _number_dtype(value):
    if isinstance(value, bool):
        return _BOOL
    if isinstance(value, int):
        return numpy.dtype(numpy.int64)
    default = numpy.dtype(_engine.get_default_dtype())
    if isinstance(value, float):
        return default
    return numpy.dtype(numpy.complex128 if default == numpy.float64 else numpy.complex64)


def result_type(tensor, other):
    """The dtype an arithmetic op on ``tensor`` and ``other`` returns, as
    ``torch.result_type``: each operand a Variable or a Python (or NumPy) number.
    Dimensioned Variables decide over 0-d ones, and those over numbers, unless the
    lower class has a higher category (bool < integer < floating < complex): a Python
    float makes an integer Variable's result the default dtype.

    >>> import pyad
    >>> pyad.result_type(pyad.tensor([1, 2], dtype=pyad.int8), 2)
    dtype('int8')
    >>> pyad.result_type(pyad.tensor([1, 2], dtype=pyad.int8), 2.0)
    dtype('float32')
    """
    dim = zero = wrapped = None
    for position, (name, operand) in enumerate((("tensor", tensor), ("other", other)), 1):
        if isinstance(operand, Variable):
            if operand.ndim:
                dim = _promote_skip_undefined(dim, numpy.dtype(operand.dtype))
            else:
                zero = _promote_skip_undefined(zero, numpy.dtype(operand.dtype))
        elif isinstance(operand, (bool, int, float, complex, numpy.number, numpy.bool_)):
            if isinstance(operand, (numpy.number, numpy.bool_)):
                operand = operand.item()
            wrapped = _promote_skip_undefined(wrapped, _number_dtype(operand))
        else:
            raise TypeError("result_type(): argument '%s' (position %d) must be a Variable "
                            "or a number, not %s" % (name, position, type(operand).__name__))
    return _combine_categories(dim, _combine_categories(zero, wrapped))


def can_cast(from_, to):
    """Whether torch's casting rules allow an op to cast ``from_`` to ``to`` (in-place
    ops, ``out=``), as ``torch.can_cast``: no complex to a real dtype, no floating to an
    integer dtype, nothing but bool to bool.

    >>> import pyad
    >>> pyad.can_cast(pyad.float64, pyad.float16), pyad.can_cast(pyad.float32, pyad.int32)
    (True, False)
    """
    a = _dtype_arg(from_, "can_cast", "from_", 1)
    b = _dtype_arg(to, "can_cast", "to", 2)
    if a.kind == "c" and b.kind != "c":
        return False
    if _is_float(a) and b.kind in "iu":
        return False
    if a != _BOOL and b == _BOOL:
        return False
    return True


def is_storage(obj):
    """False: pyad has no storage objects (a Variable's memory is its array), so
    nothing is a ``torch.Storage``."""
    return False


def set_default_tensor_type(t):
    """Set the default floating dtype from a legacy tensor type, as torch's deprecated
    ``torch.set_default_tensor_type``: a string (``'torch.FloatTensor'``,
    ``'torch.DoubleTensor'``; pyad's ``'FloatTensor'`` and ``'pyad.FloatTensor'`` too)
    or a class (``pyad.DoubleTensor``). A CUDA type (``'torch.cuda.FloatTensor'``) also
    makes the GPU the default device, and raises TypeError where no GPU is available,
    as torch does; a non-floating type raises TypeError. Warns, as torch does, that
    `set_default_dtype` and `set_default_device` replace it.

    >>> import pyad, warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     pyad.set_default_tensor_type("torch.DoubleTensor")
    >>> pyad.get_default_dtype()
    dtype('float64')
    >>> pyad.set_default_dtype(pyad.float32)
    """
    from pyad import _tensor_types
    warnings.warn("set_default_tensor_type() is deprecated as of PyTorch 2.1, please use "
                  "pyad.set_default_dtype() and pyad.set_default_device() as alternatives.",
                  UserWarning, stacklevel=2)
    if isinstance(t, str):
        parsed = _tensor_types.parse(t)
        if parsed is None:
            message = "set_default_tensor_type(): unknown tensor type %r" % t
            if "." not in t:            # torch imports the name: ModuleNotFoundError
                raise ModuleNotFoundError(message)
            raise AttributeError(message)
        dtype, is_cuda = parsed
        if not _is_float(numpy.dtype(dtype)):
            raise TypeError("set_default_tensor_type(): only floating-point types are "
                            "supported as the default type, got %r" % t)
    elif isinstance(t, _tensor_types._LegacyTensorType):
        dtype, is_cuda = t.dtype, False
        if not _is_float(numpy.dtype(dtype)):
            raise TypeError("set_default_tensor_type(): invalid type object: only "
                            "floating-point types are supported as the default type, got "
                            "%s" % t.__name__)
    else:
        raise TypeError("set_default_tensor_type(): invalid type object: expected a "
                        "tensor type name or class such as 'torch.FloatTensor', got %s"
                        % type(t).__name__)
    if is_cuda:
        from pyad import cuda
        if not cuda.is_available():
            raise TypeError("set_default_tensor_type(): type %s not available: no GPU "
                            "(pyad needs CuPy and a CUDA GPU)" % t)
    _engine.set_default_dtype(dtype)
    if is_cuda:
        from pyad._factories import set_default_device
        set_default_device("cuda")


def _check_requires_grad(v, what):
    if numpy.dtype(v.dtype).kind not in "fc":
        raise RuntimeError("%s(): only Variables of floating point and complex dtype can "
                           "require gradients, got %s" % (what, v.dtype))


def frombuffer(buffer, *, dtype, count=-1, offset=0, requires_grad=False):
    """A 1-D Variable over the bytes of a Python buffer (``bytearray``, ``memoryview``,
    ``array.array``, ...) without copying them, as ``torch.frombuffer``: ``count``
    elements of ``dtype`` (-1: all the rest) starting ``offset`` bytes in. Writing to
    either writes to the other. A read-only buffer (``bytes``) gives a read-only array
    (torch warns and lets a write through; NumPy refuses it with ValueError).

    >>> import pyad
    >>> buf = bytearray(8)
    >>> v = pyad.frombuffer(buf, dtype=pyad.int32)
    >>> v[1] = 7
    >>> bytes(buf)
    b'\\x00\\x00\\x00\\x00\\x07\\x00\\x00\\x00'
    """
    dtype = numpy.dtype(dtype)
    try:
        view = memoryview(buffer)
    except TypeError:
        raise ValueError("frombuffer(): object does not implement Python buffer protocol "
                         "(got %s)" % type(buffer).__name__) from None
    length = view.nbytes
    size = dtype.itemsize
    if length <= 0 or count == 0:
        raise ValueError("frombuffer(): both buffer length (%d) and count (%d) must not be 0"
                         % (length, count))
    if not 0 <= offset < length:
        raise ValueError("frombuffer(): offset (%d bytes) must be non-negative and no "
                         "greater than buffer length (%d bytes) minus 1" % (offset, length))
    if count < 0:
        if (length - offset) % size:
            raise ValueError("frombuffer(): buffer length (%d bytes) after offset (%d bytes) "
                             "must be a multiple of element size (%d)"
                             % (length - offset, offset, size))
        count = (length - offset) // size
    elif offset + count * size > length:
        raise ValueError("frombuffer(): requested buffer length (%d * %d bytes) after "
                         "offset (%d bytes) must not be greater than actual buffer length "
                         "(%d bytes)" % (count, size, offset, length))
    if view.readonly:
        warnings.warn("frombuffer(): the given buffer is not writable; the Variable over it "
                      "is read-only", UserWarning, stacklevel=2)
    array = numpy.frombuffer(view.cast("B") if view.ndim != 1 or view.format != "B"
                             else view, dtype=dtype, count=count, offset=offset)
    v = Variable(array)
    if requires_grad:
        _check_requires_grad(v, "frombuffer")
        v._mark_requires_grad(True)
    return v


def _set_requires_grad(result, requires_grad, aliased):
    """torch.asarray's requires_grad: None keeps the source's; an alias that is a leaf
    is switched in place (as torch's set_requires_grad), a non-leaf alias asked for
    False is detached; a copy follows the flag."""
    if requires_grad is None or bool(requires_grad) == result.requires_grad:
        return result
    if requires_grad:
        _check_requires_grad(result, "asarray")
        if result.grad_fn is None:
            result._mark_requires_grad(True)
        return result
    if aliased and result.grad_fn is None:
        result._mark_requires_grad(False)
        return result
    return result.detach()


def asarray(obj, *, dtype=None, device=None, copy=None, requires_grad=None):
    """``obj`` as a Variable, sharing its memory when possible, as ``torch.asarray``.

    ``obj`` may be a Variable, a NumPy (or CuPy) array or NumPy scalar, an object with
    ``__dlpack__``, an object with the buffer protocol (read as ``dtype``, default: the
    default dtype) or a (nested) sequence of numbers or Variables.

    ``copy=None`` shares memory with ``obj`` unless ``dtype`` or ``device`` asks for a
    conversion (then copies); ``copy=True`` always copies; ``copy=False`` never copies
    and raises ValueError when a copy would be needed (a sequence is always copied).
    A Variable given without changes is returned itself; a copy of a Variable is a
    differentiable one (``clone`` / ``to``) unless ``requires_grad=False``.
    ``requires_grad=None`` keeps a Variable's flag (False for anything else); an explicit
    flag on a returned leaf Variable is set in place, as torch does.

    >>> import numpy, pyad
    >>> a = numpy.arange(3.0)
    >>> numpy.shares_memory(pyad.asarray(a).data, a)
    True
    >>> pyad.asarray(a, dtype=pyad.float32).dtype      # a conversion copies
    dtype('float32')
    """
    if copy is not None:
        copy = bool(copy)
    if dtype is not None:
        dtype = numpy.dtype(dtype)
    if device is not None and not isinstance(device, _engine.device):
        device = _engine.device(device)
    if isinstance(obj, Variable):
        wrong_dtype = dtype is not None and numpy.dtype(obj.dtype) != dtype
        wrong_device = device is not None and obj.device != device
        if copy is False and (wrong_dtype or wrong_device):
            raise ValueError("asarray(): can't alias Variable with dtype %s on %s into "
                             "dtype %s on %s (copy=False)"
                             % (obj.dtype, obj.device, dtype or obj.dtype, device or obj.device))
        if wrong_dtype or wrong_device:
            result = obj.to(device=device, dtype=dtype)
            return _set_requires_grad(result, requires_grad, False)
        if copy:
            return _set_requires_grad(obj.clone(), requires_grad, False)
        return _set_requires_grad(obj, requires_grad, True)
    array, shared = _array_of(obj, dtype, copy)
    if dtype is not None and numpy.dtype(array.dtype) != dtype:
        if copy is False:
            raise ValueError("asarray(): can't alias an array of dtype %s into dtype %s "
                             "(copy=False)" % (array.dtype, dtype))
        array, shared = array.astype(dtype), False
    elif copy and shared:
        array, shared = array.copy(), False
    result = Variable(array)
    if device is not None and result.device != device:
        if copy is False:
            raise ValueError("asarray(): can't alias an array on %s onto %s (copy=False)"
                             % (result.device, device))
        result = Variable(_engine._move_to_device(array, device, "asarray"))
    if requires_grad:
        _check_requires_grad(result, "asarray")
        result._mark_requires_grad(True)
    return result


def _array_of(obj, dtype, copy):
    """``(array, shares_memory_with_obj)`` for anything but a Variable."""
    xp_array = (type(obj).__module__.split(".")[0] == "cupy"
                and hasattr(obj, "__cuda_array_interface__"))
    if isinstance(obj, numpy.ndarray) or xp_array:
        if obj.dtype == object or obj.dtype.kind not in "biufc" and obj.dtype.name != "bfloat16":
            raise TypeError("asarray(): can't convert an array of dtype %s; supported: bool, "
                            "integer, floating point and complex dtypes" % obj.dtype)
        if obj.ndim == 0 and not xp_array:
            # torch reads a 0-d NumPy array as a NumPy scalar: always a copy (even
            # with copy=False, which torch ignores there)
            return obj.copy(), False
        return obj, True
    if isinstance(obj, (numpy.number, numpy.bool_)):
        if copy is False:
            raise RuntimeError("asarray(): can't alias NumPy scalars. Either remove "
                               "copy=False or transform it in a ndarray.")
        return numpy.asarray(obj), False
    if hasattr(obj, "__dlpack__") and not isinstance(obj, (list, tuple)):
        return _engine.from_dlpack(obj).data, True
    if not isinstance(obj, (list, tuple, int, float, complex, bool)):
        try:
            memoryview(obj)
        except TypeError:
            pass
        else:
            default = numpy.dtype(_engine.get_default_dtype())
            return frombuffer(obj, dtype=dtype if dtype is not None else default).data, True
    if isinstance(obj, (str, bytes)):
        raise TypeError("asarray(): invalid data type '%s'" % type(obj).__name__)
    if isinstance(obj, collections.abc.Sequence) and not isinstance(obj, (list, tuple)):
        obj = list(obj)   # torch reads any Python sequence (range, deque ...) as a list
    if not isinstance(obj, (list, tuple, bool, int, float, complex)):
        raise RuntimeError("asarray(): Could not infer dtype of %s" % type(obj).__name__)
    if copy is False:
        raise ValueError("asarray(): can't alias arbitrary sequence into a Variable "
                         "(copy=False)")
    from pyad._factories import tensor
    try:
        return tensor(obj, dtype=dtype).data, False
    except ValueError as exc:
        if "expected sequence of length" in str(exc):   # tensor()'s ragged-list error
            raise ValueError("asarray(): %s" % str(exc).replace("tensor(): ", "", 1)) from None
        raise
    except TypeError as exc:
        if "inhomogeneous" in str(exc):   # a ragged sequence: torch's ValueError
            raise ValueError("asarray(): the sequence is ragged (its lengths differ at "
                             "some depth): %s" % exc) from None
        raise TypeError("asarray(): %s" % exc) from None
