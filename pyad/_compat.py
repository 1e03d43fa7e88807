"""torch's small top-level utilities that scripts call: dtype limits (``finfo``,
``iinfo``), ``Size``, predicates (``is_floating_point``, ``is_complex``, ``is_nonzero``,
``numel``, ``is_same_size``), ``set_printoptions``, ``clone``, the older linear-algebra
spellings (``inverse``, ``det``, ``slogdet``, ``logdet``), ``compile`` and
``use_deterministic_algorithms``.
"""
import math

import numpy

from pyad import _engine

__all__ = ["finfo", "iinfo", "Size", "is_floating_point", "is_complex", "is_nonzero",
           "numel", "is_same_size", "set_printoptions", "clone", "inverse", "det",
           "slogdet", "logdet", "compile", "use_deterministic_algorithms",
           "are_deterministic_algorithms_enabled", "triu_indices", "tril_indices", "argwhere",
           "isposinf", "isneginf", "isreal", "deg2rad", "rad2deg", "is_inference"]


class finfo:
    """The limits of a floating dtype (the default dtype if none), as ``torch.finfo``:
    ``bits``, ``eps``, ``max``, ``min``, ``tiny``, ``smallest_normal``, ``resolution`` as
    Python numbers, ``dtype`` as a name (a complex dtype gives its real part's).

    >>> import pyad
    >>> pyad.finfo(pyad.float32).eps
    1.1920928955078125e-07
    """

    def __init__(self, type=None):
        dtype = numpy.dtype(_engine.get_default_dtype() if type is None else type)
        if dtype.kind not in "fc":
            raise TypeError("finfo(): torch.finfo() requires a floating point input type. "
                            "Use torch.iinfo to handle 'torch.finfo'")
        info = numpy.finfo(dtype)
        self.bits = int(info.bits)
        self.eps = float(info.eps)
        self.max = float(info.max)
        self.min = float(info.min)
        self.tiny = self.smallest_normal = float(info.smallest_normal)
        self.resolution = 10.0 ** -int(info.precision)
        self.dtype = str(info.dtype)

    def __repr__(self):
        return ("finfo(resolution=%g, min=%g, max=%g, eps=%g, smallest_normal=%g, tiny=%g, "
                "dtype=%s)" % (self.resolution, self.min, self.max, self.eps,
                               self.smallest_normal, self.tiny, self.dtype))


def iinfo(type):
    """The limits of an integer dtype, as ``torch.iinfo``: ``bits``, ``max``, ``min``.

    >>> import pyad
    >>> pyad.iinfo(pyad.int64).max
    9223372036854775807
    """
    dtype = numpy.dtype(type)
    if dtype.kind not in "iub":
        raise TypeError("iinfo(): torch.iinfo() requires an integer input type. Use "
                        "torch.finfo to handle 'torch.iinfo'")
    return numpy.iinfo(numpy.uint8 if dtype.kind == "b" else dtype)


class Size(tuple):
    """A shape: a tuple of ints (``torch.Size``); equal to the tuple of the same sizes,
    so ``x.shape == pyad.Size([2, 3])`` holds.

    >>> import pyad
    >>> pyad.Size([2, 3]).numel()
    6
    """

    def __new__(cls, sizes=()):
        sizes = tuple(sizes)
        for n in sizes:
            if not isinstance(n, (int, numpy.integer)) or isinstance(n, bool):
                raise TypeError("Size(): expected a sequence of ints, got an element of "
                                "type %s" % type(n).__name__)
        return super().__new__(cls, (int(n) for n in sizes))

    def numel(self):
        """The number of elements of a Variable of this shape."""
        return math.prod(self)

    def __repr__(self):
        return "pyad.Size(%s)" % (list(self),)

    def __getitem__(self, key):
        result = super().__getitem__(key)
        return Size(result) if isinstance(key, slice) else result


def _variable(input, what):
    if not isinstance(input, _engine.Variable):
        raise TypeError("%s(): argument 'input' (position 1) must be Variable, not %s"
                        % (what, type(input).__name__))
    return input


def is_floating_point(input):
    """Whether ``input``'s dtype is a floating one (half, float, double, bfloat16)."""
    return _variable(input, "is_floating_point").is_floating_point()


def is_inference(input):
    """Whether ``input`` is an inference Variable (made under ``inference_mode``), as
    ``torch.is_inference``; the same as ``input.is_inference()``."""
    return _variable(input, "is_inference").is_inference()


def is_complex(input):
    """Whether ``input``'s dtype is complex."""
    return numpy.dtype(_variable(input, "is_complex").dtype).kind == "c"


def is_nonzero(input):
    """The truth of a one-element Variable (torch's error for any other size).

    >>> import pyad
    >>> pyad.is_nonzero(pyad.tensor([0.5]))
    True
    """
    x = _variable(input, "is_nonzero")
    n = x.numel()
    if n == 0:
        raise RuntimeError("is_nonzero(): Boolean value of Variable with no values is ambiguous")
    if n > 1:
        raise RuntimeError("is_nonzero(): Boolean value of Variable with more than one value "
                           "is ambiguous")
    return bool(x.item())


def numel(input):
    """The number of elements of ``input``."""
    return _variable(input, "numel").numel()


def is_same_size(input, other):
    """Whether two Variables have the same shape."""
    return tuple(_variable(input, "is_same_size").shape) == tuple(
        _variable(other, "is_same_size").shape)


_PROFILES = {"default": (4, 1000, 3, 80), "short": (2, 1000, 2, 80),
             "full": (4, math.inf, 3, 80)}


def set_printoptions(precision=None, threshold=None, edgeitems=None, linewidth=None,
                     profile=None, sci_mode=None):
    """Set how Variables print, as ``torch.set_printoptions``: a ``profile``
    ("default", "short", "full") first, then each option given; ``sci_mode`` None
    chooses per array, True/False forces scientific notation on or off.

    >>> import pyad
    >>> pyad.set_printoptions(precision=2)
    >>> pyad.tensor([1.23456])
    tensor([1.23])
    >>> pyad.set_printoptions(profile="default")
    """
    if profile is not None:
        if profile not in _PROFILES:
            raise ValueError("set_printoptions(): profile must be one of %s, got %r"
                             % (sorted(_PROFILES), profile))
        (_engine._PRINT_PRECISION, _engine._PRINT_THRESHOLD, _engine._PRINT_EDGEITEMS,
         _engine._PRINT_LINEWIDTH) = _PROFILES[profile]
    if precision is not None:
        _engine._PRINT_PRECISION = int(precision)
    if threshold is not None:
        _engine._PRINT_THRESHOLD = threshold
    if edgeitems is not None:
        _engine._PRINT_EDGEITEMS = int(edgeitems)
    if linewidth is not None:
        _engine._PRINT_LINEWIDTH = int(linewidth)
    _engine._PRINT_SCI_MODE = sci_mode


def clone(input, *, memory_format=None):
    """A differentiable copy of ``input`` (``Variable.clone``)."""
    return _variable(input, "clone").clone()


def inverse(input):
    """The inverse of a square matrix (a batch of them): ``pyad.linalg.inv``."""
    return _engine.inv(input)


def det(input):
    """The determinant (``pyad.linalg.det``)."""
    return _engine.det(input)


def slogdet(input):
    """``(sign, log|det|)`` (``pyad.linalg.slogdet``)."""
    return _engine.slogdet(input)


def logdet(input):
    """``log(det(input))``: nan where the determinant is negative, -inf where it is 0,
    as torch.

    >>> import pyad
    >>> pyad.logdet(pyad.eye(2, dtype=pyad.float64) * 2)
    tensor(1.3863, dtype=float64)
    """
    sign, logabs = _engine.slogdet(input)
    return _engine.where(sign < 0, float("nan"), logabs)


def compile(model=None, **options):
    """Return ``model`` itself: pyad has no compiler, and ``torch.compile`` promises the
    same results as the uncompiled model, so a ported script runs unchanged. Used as a
    decorator (with or without options) it returns the function it decorates."""
    if model is None:
        return lambda fn: fn
    return model


_deterministic = [False, False]


def use_deterministic_algorithms(mode, *, warn_only=False):
    """Record the flag (``are_deterministic_algorithms_enabled`` reads it back): every
    pyad op is already deterministic on the CPU for a given input and seed."""
    _deterministic[:] = [bool(mode), bool(warn_only)]


def are_deterministic_algorithms_enabled():
    """The flag set by `use_deterministic_algorithms`."""
    return _deterministic[0]


def _tri_indices(row, col, offset, dtype, upper, what):
    for name, n in (("row", row), ("col", col)):
        if not isinstance(n, (int, numpy.integer)) or isinstance(n, bool) or n < 0:
            raise RuntimeError("%s(): %s must be a non-negative int, got %r" % (what, name, n))
    dtype = numpy.dtype(numpy.int64 if dtype is None else dtype)
    if dtype.kind not in "iu":
        raise RuntimeError('%s(): "%s" not implemented for \'%s\'' % (what, what, dtype))
    rows, cols = (numpy.triu_indices if upper else numpy.tril_indices)(row, offset, col)
    return _engine.Variable(numpy.stack([rows, cols]).astype(dtype))


def triu_indices(row, col, offset=0, *, dtype=None, device="cpu"):
    """The (row, column) indices of the upper triangle of a ``row x col`` matrix, on and
    above diagonal ``offset``, as a ``(2, N)`` int64 Variable (row-major order).

    >>> import pyad
    >>> pyad.triu_indices(2, 3).tolist()
    [[0, 0, 0, 1, 1], [0, 1, 2, 1, 2]]
    """
    return _tri_indices(row, col, offset, dtype, True, "triu_indices")


def tril_indices(row, col, offset=0, *, dtype=None, device="cpu"):
    """The (row, column) indices of the lower triangle of a ``row x col`` matrix, on and
    below diagonal ``offset``, as a ``(2, N)`` int64 Variable.

    >>> import pyad
    >>> pyad.tril_indices(2, 2).tolist()
    [[0, 1, 1], [0, 0, 1]]
    """
    return _tri_indices(row, col, offset, dtype, False, "tril_indices")


def argwhere(input):
    """The indices of the non-zero entries, one row per entry (``nonzero``'s layout).

    >>> import pyad
    >>> pyad.argwhere(pyad.tensor([[1, 0], [0, 2]])).tolist()
    [[0, 0], [1, 1]]
    """
    return _engine.nonzero(_variable(input, "argwhere"))


def _signed_inf(input, value, what):
    x = _variable(input, what)
    if numpy.dtype(x.dtype).kind == "c":
        raise RuntimeError("%s(): %s does not support complex inputs." % (what, what))
    return x == value


def isposinf(input):
    """Elementwise ``input == +inf`` (False for integers; complex refused, as torch)."""
    return _signed_inf(input, float("inf"), "isposinf")


def isneginf(input):
    """Elementwise ``input == -inf`` (False for integers; complex refused, as torch)."""
    return _signed_inf(input, float("-inf"), "isneginf")


def isreal(input):
    """Elementwise: True where the imaginary part is 0 (everywhere for a real dtype)."""
    x = _variable(input, "isreal")
    if numpy.dtype(x.dtype).kind != "c":
        from pyad._factories import ones_like
        return ones_like(x, dtype=numpy.bool_)
    return _engine.imag(x) == 0


def deg2rad(input):
    """Degrees to radians (differentiable; integers give the default float dtype)."""
    x = _variable(input, "deg2rad")
    if numpy.dtype(x.dtype).kind in "iub":
        x = x.to(_engine.get_default_dtype())
    return x * (math.pi / 180.0)


def rad2deg(input):
    """Radians to degrees (differentiable; integers give the default float dtype)."""
    x = _variable(input, "rad2deg")
    if numpy.dtype(x.dtype).kind in "iub":
        x = x.to(_engine.get_default_dtype())
    return x * (180.0 / math.pi)
