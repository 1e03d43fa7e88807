"""torch's legacy typed-tensor names (``torch.FloatTensor``, ``torch.LongTensor``, ...):
constructors that old scripts call, types that ``isinstance`` and ``Variable.type``
accept, and the type strings ``Variable.type()`` returns.

Each name is a class of its own metaclass: calling it builds a `pyad.Variable` of its
dtype, and ``isinstance(v, pyad.FloatTensor)`` is true for a CPU float32 Variable, as
in torch. Nothing here is a subclass of Variable.
"""
import numpy

from pyad import _engine

__all__ = ["FloatTensor", "DoubleTensor", "HalfTensor", "LongTensor", "IntTensor",
           "ShortTensor", "CharTensor", "ByteTensor", "BoolTensor"]

_NAMES = {
    numpy.dtype(numpy.float32): "FloatTensor",
    numpy.dtype(numpy.float64): "DoubleTensor",
    numpy.dtype(numpy.float16): "HalfTensor",
    numpy.dtype(numpy.int64): "LongTensor",
    numpy.dtype(numpy.int32): "IntTensor",
    numpy.dtype(numpy.int16): "ShortTensor",
    numpy.dtype(numpy.int8): "CharTensor",
    numpy.dtype(numpy.uint8): "ByteTensor",
    numpy.dtype(numpy.bool_): "BoolTensor",
    numpy.dtype(numpy.complex64): "ComplexFloatTensor",
    numpy.dtype(numpy.complex128): "ComplexDoubleTensor",
}
_DTYPES = {name: dtype for dtype, name in _NAMES.items()}


def type_name(data, is_cuda):
    """torch's type string for an array: ``'torch.FloatTensor'``,
    ``'torch.cuda.LongTensor'``, ..."""
    name = _NAMES.get(numpy.dtype(data.dtype), str(data.dtype))
    return ("torch.cuda." if is_cuda else "torch.") + name


def parse(spec):
    """``(dtype, is_cuda)`` for a type string (``'torch.FloatTensor'``,
    ``'torch.cuda.FloatTensor'``, ``'FloatTensor'``) or one of the classes here; None
    for anything else (a dtype)."""
    if isinstance(spec, _LegacyTensorType):
        return spec.dtype, False
    if isinstance(spec, str):
        parts = spec.split(".")
        if parts[-1] in _DTYPES and parts[0] in ("torch", "pyad", parts[-1]):
            return _DTYPES[parts[-1]], "cuda" in parts[1:-1]
    return None


class _LegacyTensorType(type):
    """The metaclass: ``FloatTensor(...)`` builds a Variable, ``isinstance`` checks the
    dtype (and the CPU)."""

    def __instancecheck__(cls, obj):
        return (isinstance(obj, _engine.Variable) and obj.dtype == cls.dtype
                and obj.device.type == "cpu")

    def __call__(cls, *args, device=None):
        # torch: no argument is an empty tensor; ints (or one torch.Size) are a shape
        # (uninitialised there, zeros here); anything else is data, converted
        from pyad import _compat, tensor, zeros
        if not args:
            return zeros(0, dtype=cls.dtype, device=device)
        if len(args) == 1 and isinstance(args[0], _compat.Size):
            return zeros(tuple(args[0]), dtype=cls.dtype, device=device)
        if all(isinstance(a, (int, numpy.integer)) and not isinstance(a, bool)
               for a in args):
            return zeros(args, dtype=cls.dtype, device=device)
        if len(args) > 1:
            raise TypeError("%s(): expected sizes (ints) or one sequence of data, got %d "
                            "arguments" % (cls.__name__, len(args)))
        data = args[0]
        if isinstance(data, _engine.Variable):
            return data.to(dtype=cls.dtype)
        return tensor(data, dtype=cls.dtype, device=device)

    def __repr__(cls):
        return "<class 'pyad.%s'>" % cls.__name__


def _make(name):
    return _LegacyTensorType(name, (), {"dtype": _DTYPES[name], "__module__": "pyad",
                                        "__doc__": "torch's legacy ``%s``: a constructor "
                                        "of %s Variables." % (name, _DTYPES[name])})


FloatTensor = _make("FloatTensor")
DoubleTensor = _make("DoubleTensor")
HalfTensor = _make("HalfTensor")
LongTensor = _make("LongTensor")
IntTensor = _make("IntTensor")
ShortTensor = _make("ShortTensor")
CharTensor = _make("CharTensor")
ByteTensor = _make("ByteTensor")
BoolTensor = _make("BoolTensor")
