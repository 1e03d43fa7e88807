"""torch's small top-level utilities that scripts call: dtype limits (``finfo``,
``iinfo``), ``Size``, predicates (``is_floating_point``, ``is_complex``, ``is_nonzero``,
``numel``, ``is_same_size``), ``set_printoptions``, ``clone``, the older linear-algebra
spellings (``inverse``, ``det``, ``slogdet``, ``logdet``), ``compile`` and
``use_deterministic_algorithms``; and torch's Tensor methods written in Python, installed
on ``Variable`` at the end of this module: the ``layout`` property and the always-False
``is_sparse``-style flags, ``to_dense``, ``dsplit``, ``narrow_copy``, ``conj_physical``,
``as_strided``, ``cfloat``/``cdouble``, ``hardshrink``/``prelu``, method forms of the
predicates above, and the in-place ``heaviside_``, ``gcd_``, ``lcm_``, ``mvlgamma_``,
``polygamma_``, ``renorm_`` and ``conj_physical_``.
"""
import collections
import math
import operator

import numpy

from pyad import _engine
from pyad._out import writes_out

__all__ = ["set_float32_matmul_precision", "get_float32_matmul_precision", "finfo", "iinfo", "Size", "is_floating_point", "is_complex", "is_nonzero",
           "numel", "is_same_size", "set_printoptions", "clone", "inverse", "det",
           "slogdet", "logdet", "compile", "use_deterministic_algorithms",
           "are_deterministic_algorithms_enabled", "triu_indices", "tril_indices", "argwhere",
           "isposinf", "isneginf", "isreal", "deg2rad", "rad2deg", "is_inference",
           "pinverse", "cholesky", "cholesky_solve", "cholesky_inverse", "qr", "svd",
           "triangular_solve", "unravel_index", "layout", "strided", "sparse_coo", "dsplit",
           "narrow_copy", "conj_physical", "conj_physical_", "gcd_", "lcm_", "as_strided",
           "hardshrink", "prelu"]


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
        if dtype.kind == "V" and dtype.name == "bfloat16":
            import ml_dtypes                # bfloat16 is ml_dtypes', NumPy has no finfo
            info = ml_dtypes.finfo(dtype)
        elif dtype.kind not in "fc":
            raise TypeError("finfo(): torch.finfo() requires a floating point input type. "
                            "Use torch.iinfo to handle 'torch.finfo'")
        else:
            info = numpy.finfo(dtype)
        self.bits = int(info.bits)
        self.eps = float(info.eps)
        self.max = float(info.max)
        self.min = float(info.min)
        self.tiny = self.smallest_normal = float(info.smallest_normal)
        self.resolution = 10.0 ** -int(info.precision)
        self.dtype = str(info.dtype)

    def __eq__(self, other):
        # torch: equal when every limit is (so float32's equals complex64's); unhashable
        if not isinstance(other, finfo):
            return NotImplemented
        return vars(self) == vars(other)

    __hash__ = None

    def __repr__(self):
        return ("finfo(resolution=%g, min=%g, max=%g, eps=%g, smallest_normal=%g, tiny=%g, "
                "dtype=%s)" % (self.resolution, self.min, self.max, self.eps,
                               self.smallest_normal, self.tiny, self.dtype))


class iinfo:
    """The limits of an integer dtype, as ``torch.iinfo``: ``bits``, ``max``, ``min`` as
    Python ints, ``dtype`` as a name; a bool dtype is refused (``TypeError``), as torch.

    >>> import pyad
    >>> pyad.iinfo(pyad.int64).max
    9223372036854775807
    >>> pyad.iinfo(pyad.int32)
    iinfo(min=-2.14748e+09, max=2.14748e+09, dtype=int32)
    """

    def __init__(self, type):
        dtype = numpy.dtype(type)
        if dtype.kind == "b":
            raise TypeError("iinfo(): torch.bool is not supported by torch.iinfo")
        if dtype.kind not in "iu":
            raise TypeError("iinfo(): torch.iinfo() requires an integer input type. Use "
                            "torch.finfo to handle 'torch.iinfo'")
        info = numpy.iinfo(dtype)
        self.bits = int(info.bits)
        self.min = int(info.min)
        self.max = int(info.max)
        self.dtype = str(dtype)

    def __eq__(self, other):
        # torch: equal when every limit is; unhashable
        if not isinstance(other, iinfo):
            return NotImplemented
        return vars(self) == vars(other)

    __hash__ = None

    def __repr__(self):
        return "iinfo(min=%g, max=%g, dtype=%s)" % (self.min, self.max, self.dtype)


class Size(tuple):
    """A shape: a tuple of ints (``torch.Size``); equal to the tuple of the same sizes,
    so ``x.shape == pyad.Size([2, 3])`` holds.

    >>> import pyad
    >>> pyad.Size([2, 3]).numel()
    6
    """

    def __new__(cls, sizes=()):
        sizes = tuple(sizes)
        values = []
        for i, n in enumerate(sizes):
            # torch takes anything with __index__ (an int, a NumPy integer, a one-element
            # integer Variable, a bool), never a float or a NumPy bool
            if isinstance(n, (float, numpy.floating, numpy.bool_)):
                index = None
            else:
                try:
                    index = operator.index(n)
                except TypeError:
                    index = None
            if index is None:
                raise TypeError("Size(): expected a sequence of ints, got an element of "
                                "type %s (item %d)" % (type(n).__name__, i))
            values.append(index)
        return super().__new__(cls, values)

    def __add__(self, other):
        if not isinstance(other, tuple):
            raise TypeError("can only concatenate tuple (not %s) to pyad.Size"
                            % type(other).__name__)
        return Size(tuple(self) + tuple(other))

    def __radd__(self, other):
        if not isinstance(other, tuple):
            return NotImplemented
        return Size(tuple(other) + tuple(self))

    def __mul__(self, count):
        return Size(tuple(self) * count)

    __rmul__ = __mul__

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


def clone(input, *, memory_format=_engine.preserve_format):
    """A differentiable copy of ``input`` (``Variable.clone``), laid out as ``input`` or
    as ``memory_format`` asks."""
    return _variable(input, "clone").clone(memory_format=memory_format)


@writes_out(exact=True)
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
    as torch; for a complex input the complex logarithm ``log(sign) + log|det|``.

    >>> import pyad
    >>> pyad.logdet(pyad.eye(2, dtype=pyad.float64) * 2)
    tensor(1.3863, dtype=float64)
    """
    sign, logabs = _engine.slogdet(input)
    if sign.dtype.kind == "c":
        # torch: log(sign) + logabsdet, the complex logarithm of the determinant
        return _engine.log(sign) + logabs
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


_matmul_precision = ["highest"]


def set_float32_matmul_precision(precision):
    """Record torch's float32 matmul precision (``'highest'``, ``'high'`` or
    ``'medium'``; `get_float32_matmul_precision` reads it back). NumPy's BLAS has one
    precision, float32 throughout, which is torch's ``'highest'``."""
    if precision not in ("highest", "high", "medium"):
        raise RuntimeError("set_float32_matmul_precision(): expected 'highest', 'high' or "
                           "'medium', got %r" % (precision,))
    _matmul_precision[0] = precision


def get_float32_matmul_precision():
    """The precision set by `set_float32_matmul_precision` (``'highest'`` by default)."""
    return _matmul_precision[0]


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


@writes_out(exact=True)
def isposinf(input):
    """Elementwise ``input == +inf`` (False for integers; complex refused, as torch)."""
    return _signed_inf(input, float("inf"), "isposinf")


@writes_out(exact=True)
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


@writes_out
def deg2rad(input):
    """Degrees to radians (differentiable; integers give the default float dtype)."""
    x = _variable(input, "deg2rad")
    if numpy.dtype(x.dtype).kind == "c":
        raise RuntimeError("deg2rad(): deg2rad is not supported for complex Variables.")
    if numpy.dtype(x.dtype).kind in "iub":
        x = x.to(_engine.get_default_dtype())
    return x * (math.pi / 180.0)


@writes_out
def rad2deg(input):
    """Radians to degrees (differentiable; integers give the default float dtype)."""
    x = _variable(input, "rad2deg")
    if numpy.dtype(x.dtype).kind == "c":
        raise RuntimeError("rad2deg(): rad2deg is not supported for complex Variables.")
    if numpy.dtype(x.dtype).kind in "iub":
        x = x.to(_engine.get_default_dtype())
    return x * (180.0 / math.pi)


# -- torch's older linear-algebra spellings, built on pyad.linalg ----------------------

_svd_result = collections.namedtuple("svd", ["U", "S", "V"])
_qr_result = collections.namedtuple("qr", ["Q", "R"])
_triangular_solve_result = collections.namedtuple("triangular_solve",
                                                  ["solution", "cloned_coefficient"])


def _matrix(input, what):
    x = _variable(input, what)
    if x.ndim < 2:
        raise RuntimeError("%s(): The input tensor A must have at least 2 dimensions."
                           % what)
    return x


@writes_out(exact=True)
def pinverse(input, rcond=1e-15):
    """The pseudo-inverse (``torch.pinverse``): from the SVD, singular values at most
    ``rcond`` times the largest are dropped. Differentiable where the singular values
    are distinct.

    >>> import pyad
    >>> pyad.pinverse(pyad.tensor([[2.0, 0.0], [0.0, 4.0]])).tolist()
    [[0.5, 0.0], [0.0, 0.25]]
    """
    x = _matrix(input, "pinverse")
    if x.dtype.kind not in "fc" or x.dtype.itemsize < (4 if x.dtype.kind == "f" else 8):
        # torch's pinv checks the dtype before its SVD: a RuntimeError for any dtype
        # without a LAPACK kernel (half included)
        raise RuntimeError("pinverse(): Expected a float32, float64, complex64 or "
                           "complex128 Variable as input. Got %s" % x.dtype)
    u, s, vh = _engine.svd(x, full_matrices=False)
    if s.shape[-1] == 0:
        return _engine.transpose(x, -2, -1) * 0
    cutoff = _engine.amax(s.detach(), -1, keepdim=True) * rcond
    keep = s > cutoff
    s_inv = _engine.where(keep, 1.0 / _engine.where(keep, s, 1.0), 0.0)
    return _engine.matmul(_engine.adjoint(vh) * s_inv.unsqueeze(-2), _engine.adjoint(u))


@writes_out
def cholesky(input, upper=False):
    """The Cholesky factor (``torch.cholesky``: lower unless ``upper``), as
    ``pyad.linalg.cholesky``.

    >>> import pyad
    >>> pyad.cholesky(pyad.tensor([[4.0, 2.0], [2.0, 2.0]])).tolist()
    [[2.0, 0.0], [1.0, 1.0]]
    """
    return _engine.cholesky(_matrix(input, "cholesky"), upper=upper)


def _triangle_factor(factor, upper):
    # The lower factor L: its values from the used triangle only (as LAPACK reads it),
    # its gradient to the whole matrix, as torch's formulas (derivatives of L L^H).
    lower = _engine.adjoint(factor) if upper else factor
    return lower - (lower - _engine.tril(lower)).detach()


@writes_out
def cholesky_solve(input, input2, upper=False):
    """``X`` with ``A X = input`` for ``A = L L^H`` given its Cholesky factor
    ``L = input2`` (``U^H U`` with ``upper``), as ``torch.cholesky_solve``; two
    triangular solves, differentiable w.r.t. both.

    >>> import pyad
    >>> L = pyad.tensor([[2.0, 0.0], [1.0, 1.0]])
    >>> pyad.cholesky_solve(pyad.tensor([[4.0], [3.0]]), L).tolist()
    [[0.5], [1.0]]
    """
    b = _matrix(input, "cholesky_solve")
    lower = _triangle_factor(_matrix(input2, "cholesky_solve"), upper)
    try:
        y = _engine.solve(lower, b)
        return _engine.solve(_engine.adjoint(lower), y)
    except (RuntimeError, ValueError) as exc:
        raise type(exc)("cholesky_solve(): %s" % exc) from None


@writes_out
def cholesky_inverse(input, upper=False):
    """The inverse of ``A = L L^H`` (``U^H U`` with ``upper``) from its Cholesky factor
    (``torch.cholesky_inverse``).

    >>> import pyad
    >>> pyad.cholesky_inverse(pyad.tensor([[2.0, 0.0], [0.0, 1.0]])).tolist()
    [[0.25, 0.0], [0.0, 1.0]]
    """
    x = _matrix(input, "cholesky_inverse")
    if x.dtype.kind not in "fc" or x.dtype.itemsize < (4 if x.dtype.kind == "f" else 8):
        raise NotImplementedError("cholesky_inverse(): not implemented for %s input (a "
                                  "float32, float64, complex64 or complex128 Variable is "
                                  "needed)" % x.dtype)
    lower = _triangle_factor(x, upper)
    try:
        inv_lower = _engine.inv(lower)
    except (RuntimeError, ValueError) as exc:
        raise type(exc)("cholesky_inverse(): %s" % exc) from None
    return _engine.matmul(_engine.adjoint(inv_lower), inv_lower)


@writes_out(exact=True)
def qr(input, some=True):
    """``(Q, R)`` with ``input = Q R`` (``torch.qr``): reduced unless ``some=False``,
    which pyad supports only where the two agree (at most as many rows as columns).

    >>> import pyad
    >>> q, r = pyad.qr(pyad.tensor([[3.0, 0.0], [4.0, 5.0]]))
    >>> (q @ r).tolist()
    [[3.0, 0.0], [4.0, 5.0]]
    """
    x = _matrix(input, "qr")
    if not some and x.shape[-2] > x.shape[-1]:
        raise NotImplementedError("qr(): some=False (a complete Q for a matrix with more "
                                  "rows than columns) is not supported by pyad")
    return _qr_result(*_engine.qr(x))


@writes_out(exact=True)
def svd(input, some=True, compute_uv=True):
    """``(U, S, V)`` with ``input = U diag(S) V^H`` (``torch.svd``: ``V``, not ``V^H``;
    thin unless ``some=False``). With ``compute_uv=False`` only ``S`` is computed and
    ``U``, ``V`` are zero-filled ``(m, m)`` and ``(n, n)`` matrices, as torch.

    >>> import pyad
    >>> pyad.svd(pyad.tensor([[3.0, 0.0], [0.0, -2.0]])).S.tolist()
    [3.0, 2.0]
    """
    x = _matrix(input, "svd")
    if not compute_uv:
        from pyad._factories import zeros
        m, n = x.shape[-2], x.shape[-1]
        batch = tuple(x.shape[:-2])
        return _svd_result(zeros(*(batch + (m, m)), dtype=x.dtype, device=x.device),
                           _engine.svdvals(x),
                           zeros(*(batch + (n, n)), dtype=x.dtype, device=x.device))
    u, s, vh = _engine.svd(x, full_matrices=not some)
    return _svd_result(u, s, _engine.adjoint(vh))


@writes_out(exact=True)
def triangular_solve(b, A, upper=True, transpose=False, unitriangular=False):
    """``(solution, cloned_coefficient)``: ``X`` with ``op(T) X = b``, ``T`` the upper
    (or lower) triangle of ``A``, with a unit diagonal if ``unitriangular``, ``op`` the
    transpose if ``transpose`` (``torch.triangular_solve``); differentiable w.r.t. ``b``
    and the used triangle of ``A``.

    >>> import pyad
    >>> A = pyad.tensor([[2.0, 1.0], [0.0, 4.0]])
    >>> pyad.triangular_solve(pyad.tensor([[4.0], [8.0]]), A).solution.tolist()
    [[1.0], [2.0]]
    """
    rhs = _matrix(b, "triangular_solve")
    a = _matrix(A, "triangular_solve")
    if unitriangular:
        t = (_engine.triu(a, 1) if upper else _engine.tril(a, -1))
        from pyad._factories import eye
        t = t + eye(a.shape[-1], dtype=a.dtype, device=a.device)
    else:
        t = _engine.triu(a) if upper else _engine.tril(a)
    if transpose:
        t = _engine.transpose(t, -2, -1)
    try:
        x = _engine.solve(t, rhs)
    except (RuntimeError, ValueError) as exc:
        raise type(exc)("triangular_solve(): %s" % exc) from None
    return _triangular_solve_result(x, a.clone())


def unravel_index(indices, shape):
    """The coordinates of flat ``indices`` in an array of ``shape``: a tuple of int64
    Variables, one per dimension (``torch.unravel_index``; indices wrap around, as
    torch's).

    >>> import pyad
    >>> [c.tolist() for c in pyad.unravel_index(pyad.tensor([4, 1]), (2, 3))]
    [[1, 0], [1, 1]]
    """
    if isinstance(indices, _engine.Variable):
        data = indices.data
    elif isinstance(indices, (int, numpy.integer)) and not isinstance(indices, bool):
        data = numpy.asarray(indices)
    else:
        raise TypeError("unravel_index(): expected 'indices' to be a Variable, got %s"
                        % type(indices).__name__)
    if data.dtype.kind not in "iu":
        raise TypeError("unravel_index(): expected 'indices' to be integer dtype, but got %s"
                        % data.dtype)
    if isinstance(shape, (int, numpy.integer)) and not isinstance(shape, bool):
        shape = (shape,)
    if not isinstance(shape, (tuple, list)):
        # torch's wording: a Variable (or any non-sequence) is not a shape
        raise TypeError("unravel_index(): expected 'shape' to be int or sequence of ints, "
                        "but got %s" % type(shape))
    shape = tuple(shape)
    for n in shape:
        if not isinstance(n, (int, numpy.integer)) or isinstance(n, bool):
            raise TypeError("unravel_index(): expected 'shape' sequence to only contain "
                            "ints, but got %s" % type(n))
    if any(n < 0 for n in shape):
        raise ValueError("unravel_index(): 'shape' cannot have negative values, but got %s"
                         % (shape,))
    if shape and math.prod(shape) == 0:
        raise RuntimeError("unravel_index(): ZeroDivisionError (a size-0 dimension in "
                           "'shape')")
    rest = data.astype(numpy.int64)
    coords = []
    for n in reversed(shape):
        coords.append(numpy.mod(rest, n))
        rest = numpy.floor_divide(rest, n)
    return tuple(_engine.Variable(c) for c in reversed(coords))


# -- torch's Tensor methods written in Python ----------------------------------------

class layout:
    """A memory layout, as ``torch.layout``: pyad's Variables are all dense (strided);
    :data:`pyad.strided` is ``Variable.layout``, and :data:`pyad.sparse_coo` exists for
    code that compares against it.

    >>> import pyad
    >>> pyad.ones(2).layout
    pyad.strided
    >>> pyad.ones(2).layout == pyad.strided
    True
    """
    __slots__ = ("_name",)

    def __init__(self, name):
        self._name = name

    def __repr__(self):
        return "pyad." + self._name

    def __reduce__(self):
        return self._name


strided = layout("strided")
sparse_coo = layout("sparse_coo")


def _layout(self):
    """The memory layout, always :data:`pyad.strided` (torch's ``Tensor.layout``)."""
    return strided


def _false_flag(name, meaning):
    def get(self):
        return False
    get.__name__ = name
    get.__doc__ = "False: pyad has no %s Variables (torch's ``Tensor.%s``)." % (meaning, name)
    return property(get, doc=get.__doc__)


def to_dense(self, dtype=None, *, masked_grad=None):
    """This Variable, which is already dense (torch returns ``self`` for a strided
    tensor); with ``dtype``, a converted copy, as ``self.to(dtype)``."""
    if dtype is not None and numpy.dtype(dtype) != numpy.dtype(self.dtype):
        return self.to(dtype)
    return self


def dsplit(input, indices_or_sections):
    """Split a Variable of at least 3 dimensions along its third (depth) dimension, as
    ``torch.dsplit``: into ``indices_or_sections`` equal parts, or at the given indices.
    The parts are views, as :func:`pyad.tensor_split`'s.

    >>> import pyad
    >>> [p.shape for p in pyad.dsplit(pyad.zeros(2, 2, 4), 2)]
    [(2, 2, 2), (2, 2, 2)]
    """
    x = _variable(input, "dsplit")
    if x.ndim < 3:
        raise RuntimeError("dsplit(): requires a Variable with at least 3 dimension, but got "
                           "a Variable with %d dimensions!" % x.ndim)
    if isinstance(indices_or_sections, (int, numpy.integer)) and not isinstance(
            indices_or_sections, bool):
        n = int(indices_or_sections)
        if n <= 0 or x.shape[2] % n:
            raise RuntimeError("dsplit(): attempted to split along dimension 2, but the size "
                               "of the dimension %d is not divisible by the split_size %d!"
                               % (x.shape[2], n))
    return _engine.tensor_split(x, indices_or_sections, 2)


@writes_out(exact=True)
def narrow_copy(input, dim, start, length):
    """A copy (not a view) of :func:`pyad.narrow`'s slice, as ``torch.narrow_copy``.

    >>> import pyad
    >>> pyad.narrow_copy(pyad.arange(6.0), 0, 1, 2)
    tensor([1., 2.])
    """
    return _engine.narrow(_variable(input, "narrow_copy"), dim, start, length).clone()


@writes_out(exact=True)
def conj_physical(input):
    """The complex conjugate, computed (a new Variable for complex input; ``input``
    itself for a real one, as ``torch.conj_physical``).

    >>> import pyad
    >>> pyad.conj_physical(pyad.tensor([1 + 2j]))
    tensor([1.-2.j])
    """
    x = _variable(input, "conj_physical")
    if numpy.dtype(x.dtype).kind != "c":
        return x
    return _engine.conj(x).clone()


def _cast_check(result_dtype, self_dtype, what):
    # torch's rule for writing a result into self: no float -> int, complex -> real,
    # or non-bool -> bool
    order = {"b": 0, "u": 1, "i": 1, "f": 2, "c": 3}
    if order[numpy.dtype(result_dtype).kind] > order[numpy.dtype(self_dtype).kind]:
        raise RuntimeError("%s(): result type %s can't be cast to the desired output type %s"
                           % (what, numpy.dtype(result_dtype), numpy.dtype(self_dtype)))


def _write_back(self, result, what):
    # the in-place form of an op: the result (computed from a clone of self, so a value
    # the op saved for backward is not the one changed here) copied into self, with one
    # version bump; a leaf that requires grad is refused by copy_
    _cast_check(result.dtype, self.dtype, what)
    return self.copy_(result)


def _in_place(name, compute):
    def method(self, *args, **kwargs):
        _variable(self, name)
        # an operand partly sharing self's memory is refused, as torch's kernels do
        _engine._refuse_partial_overlap_of(self, args + tuple(kwargs.values()), name)
        return _write_back(self, compute(self.clone(), *args, **kwargs), name)
    method.__name__ = method.__qualname__ = name
    return method


def conj_physical_(input):
    """In-place :func:`conj_physical` (a real Variable is left as is, but still counts
    as changed, as torch's)."""
    x = _variable(input, "conj_physical_")
    if numpy.dtype(x.dtype).kind != "c":
        from pyad.autograd.grad_mode import no_grad, is_grad_enabled
        if x.requires_grad and x.is_leaf and is_grad_enabled():
            raise RuntimeError("conj_physical_(): a leaf Variable that requires grad is being "
                               "used in an in-place operation.")
        with no_grad():
            x[None][:0].zero_()         # an empty write: one version bump, no data
        return x
    return _write_back(x, _engine.conj(x.clone()), "conj_physical_")


def _integer_pair(what):
    def compute(self, other):
        if not isinstance(other, _engine.Variable):
            raise TypeError("%s(): argument 'other' (position 1) must be Variable, not %s"
                            % (what, type(other).__name__))
        for v in (self, other):
            if numpy.dtype(v.dtype).kind not in "iu":
                raise NotImplementedError("%s(): not implemented for %s Variables (integers "
                                          "only)" % (what, numpy.dtype(v.dtype)))
        return getattr(_engine, what[:-1])(self, other)
    return compute


def _heaviside(self, values):
    if not isinstance(values, _engine.Variable):
        raise TypeError("heaviside_(): argument 'values' (position 1) must be Variable, not %s"
                        % type(values).__name__)
    return _engine.heaviside(self, values)


def _mvlgamma(self, p):
    return _engine.mvlgamma(self, p)


def _polygamma(self, n):
    if not isinstance(n, (int, numpy.integer)) or isinstance(n, bool):
        raise TypeError("polygamma_(): argument 'n' (position 1) must be int, not %s"
                        % type(n).__name__)
    return _engine.polygamma(n, self)


def _renorm(self, p, dim, maxnorm):
    from pyad._statistics import renorm
    return renorm(self, p, dim, maxnorm)


heaviside_ = _in_place("heaviside_", _heaviside)
heaviside_.__doc__ = "In-place :func:`pyad.heaviside` (``values`` a Variable of this dtype)."
gcd_ = _in_place("gcd_", _integer_pair("gcd_"))
gcd_.__doc__ = "In-place :func:`pyad.gcd` (integers only, as torch)."
lcm_ = _in_place("lcm_", _integer_pair("lcm_"))
lcm_.__doc__ = "In-place :func:`pyad.lcm` (integers only, as torch)."
mvlgamma_ = _in_place("mvlgamma_", _mvlgamma)
mvlgamma_.__doc__ = "In-place :func:`pyad.mvlgamma`, of order ``p`` (its one argument)."
polygamma_ = _in_place("polygamma_", _polygamma)
polygamma_.__doc__ = ("In-place :func:`pyad.polygamma`, of order ``n`` (its one argument; "
                      "the function takes the order first), as torch's method.")
renorm_ = _in_place("renorm_", _renorm)
renorm_.__doc__ = "In-place :func:`pyad.renorm`, with arguments ``p``, ``dim``, ``maxnorm``."


def _storage(data):
    # (a flat 1-D view of the memory data lives in, as data's dtype; data's offset and
    # strides in it, in elements)
    itemsize = data.itemsize
    root = data
    while isinstance(root.base, numpy.ndarray):
        root = root.base
    if data.size == 0 or not (root.flags.c_contiguous or root.flags.f_contiguous) or (
            root.nbytes % itemsize):
        # memory pyad cannot address as one buffer: the values themselves, in C order
        flat = numpy.ascontiguousarray(data).reshape(-1)
        strides = [1] * data.ndim
        for k in range(data.ndim - 2, -1, -1):
            strides[k] = strides[k + 1] * data.shape[k + 1]
        return flat, 0, tuple(strides)
    raw = root.reshape(-1, order="A")
    if raw.dtype != data.dtype:
        raw = raw.view(numpy.uint8).view(data.dtype)
    offset = (data.__array_interface__["data"][0]
              - root.__array_interface__["data"][0]) // itemsize
    return raw, offset, tuple(s // itemsize for s in data.strides)


def _positions(offset, size, stride):
    # the storage index of every element of a (size, stride, offset) geometry
    pos = numpy.full(size, offset, dtype=numpy.int64)
    for k, (n, st) in enumerate(zip(size, stride)):
        shape = [1] * len(size)
        shape[k] = n
        pos = pos + (numpy.arange(n, dtype=numpy.int64) * st).reshape(shape)
    return pos


def as_strided(input, size, stride, storage_offset=None):
    """The elements of ``input``'s memory at ``storage_offset + sum(i_k * stride[k])``
    (in elements; ``storage_offset`` defaults to ``input``'s own), in a Variable of shape
    ``size``, as ``torch.as_strided``.

    torch returns a view; pyad returns a copy (read through NumPy's
    ``as_strided`` on the memory the input lives in, after checking that every element
    lies inside it, as torch does). The gradient is torch's: each output's gradient goes
    to the memory position it was read from (summed where outputs overlap) and from
    there to the input element at that position.

    >>> import pyad
    >>> pyad.as_strided(pyad.arange(6.0), (2, 2), (1, 2))
    tensor([[0., 2.],
            [1., 3.]])
    """
    x = _variable(input, "as_strided")
    data = x.data
    if not isinstance(data, numpy.ndarray):
        data = data.get()
    flat, own_offset, own_stride = _storage(data)
    size, stride, offset = _checked_geometry(flat, size, stride, storage_offset, own_offset,
                                             "as_strided")
    return AsStrided.apply(x, flat, own_offset, own_stride, size, stride, offset)


def _int_tuple(value, name, what):
    # a tuple of ints from an int or a sequence of ints (not bools, floats or strings)
    items = (value,) if isinstance(value, (int, numpy.integer)) else value
    if isinstance(items, (str, bytes)) or not hasattr(items, "__iter__"):
        raise TypeError("%s(): argument '%s' must be tuple of ints, not %s"
                        % (what, name, type(value).__name__))
    items = tuple(items)
    for k, n in enumerate(items):
        if isinstance(n, bool) or not isinstance(n, (int, numpy.integer)):
            raise TypeError("%s(): argument '%s' must be tuple of ints, but found element of "
                            "type %s at pos %d" % (what, name, type(n).__name__, k))
    return tuple(int(n) for n in items)


def _offset_int(value, what):
    if isinstance(value, bool) or not isinstance(value, (int, numpy.integer)):
        raise TypeError("%s(): argument 'storage_offset' must be int, not %s"
                        % (what, type(value).__name__))
    return int(value)


def _checked_geometry(flat, size, stride, storage_offset, own_offset, what):
    # (size, stride, offset) as ints, every element they address inside `flat`, as
    # torch's setStorage checks (an element outside would read or write past the memory)
    size = _int_tuple(size, "size", what)
    stride = _int_tuple(stride, "stride", what)
    if len(size) != len(stride):
        raise RuntimeError("%s(): mismatch in length of strides and shape" % what)
    if any(n < 0 for n in size):
        raise RuntimeError("%s(): Storage size calculation overflowed with sizes=%s "
                           "and strides=%s" % (what, list(size), list(stride)))
    if any(s < 0 for s in stride):
        raise RuntimeError("%s(): Negative strides are not supported at the moment, "
                           "got strides: %s" % (what, list(stride)))
    offset = own_offset if storage_offset is None else _offset_int(storage_offset, what)
    if offset < 0:
        raise RuntimeError("%s(): invalid storage offset %d" % (what, offset))
    numel = math.prod(size)
    needed = 0 if numel == 0 else offset + sum((n - 1) * s for n, s in zip(size, stride)) + 1
    if needed > flat.size:
        item = flat.itemsize
        raise RuntimeError("%s(): setStorage: sizes %s, strides %s, storage offset "
                           "%d, and itemsize %d requiring a storage size of %d are out of "
                           "bounds for storage of size %d"
                           % (what, list(size), list(stride), offset, item, needed * item,
                              flat.size * item))
    return size, stride, offset


def _strided_view(data, size, stride, storage_offset):
    """A view of the memory NumPy array ``data`` lives in, of shape ``size`` with strides
    ``stride`` (in elements; None: contiguous) from ``storage_offset`` elements past
    ``data``'s first (as torch's set_ counts it), every element checked to lie inside that
    memory: ``Variable.set_(source, storage_offset, size, stride)``'s data."""
    flat, own_offset, _ = _storage(data)
    if isinstance(size, (int, numpy.integer)):
        raise TypeError("set_(): argument 'size' must be tuple of ints, not %s"
                        % type(size).__name__)
    size = _int_tuple(size, "size", "set_")
    if stride is None:
        stride, step = [], 1
        for n in reversed(size):
            stride.insert(0, step)
            step *= max(n, 1)
    storage_offset = own_offset + _offset_int(storage_offset, "set_")
    size, stride, offset = _checked_geometry(flat, size, stride, storage_offset, own_offset,
                                             "set_")
    start = flat[offset:] if math.prod(size) else flat[:0]
    return numpy.lib.stride_tricks.as_strided(
        start, size, tuple(s * flat.itemsize for s in stride), writeable=data.flags.writeable)


def _as_strided_backward(grad, storage_size, in_geometry, out_geometry, in_shape):
    # torch's as_strided_backward: the gradient scattered (summed) into a zero storage,
    # then read at the input's positions, divided by how often the input reads each one
    out_pos = _positions(*out_geometry).reshape(-1)
    in_pos = _positions(*in_geometry).reshape(-1)
    storage = _engine.Variable(numpy.zeros(storage_size, dtype=grad.dtype))
    storage = _engine.index_add(storage, 0, out_pos, grad.reshape(-1))
    result = _engine.index_select(storage, 0, in_pos)
    counts = numpy.bincount(in_pos, minlength=storage_size)[in_pos] if in_pos.size else None
    if counts is not None and (counts > 1).any():
        result = result / _engine.Variable(counts.astype(grad.dtype))
    return result.reshape(in_shape)


from pyad.autograd import Function as _Function  # noqa: E402  (after the engine)


class AsStrided(_Function):
    @staticmethod
    def forward(ctx, x, flat, own_offset, own_stride, size, stride, offset):
        ctx.geometry = (flat.size, (own_offset, tuple(x.shape), own_stride),
                        (offset, size, stride), tuple(x.shape))
        if math.prod(size) == 0:
            return _engine.Variable(numpy.zeros(size, dtype=flat.dtype))
        view = numpy.lib.stride_tricks.as_strided(
            flat[offset:], shape=size, strides=tuple(s * flat.itemsize for s in stride),
            writeable=False)
        return _engine.Variable(numpy.array(view))

    @staticmethod
    def backward(ctx, grad):
        storage_size, in_geometry, out_geometry, in_shape = ctx.geometry
        # pyad ops (index_add, index_select): differentiable again
        return (_as_strided_backward(grad, storage_size, in_geometry, out_geometry, in_shape),
                None, None, None, None, None, None)


def _cfloat(self, memory_format=_engine.preserve_format):
    """``self.to(pyad.complex64)`` (torch's ``Tensor.cfloat``)."""
    return self.to(numpy.complex64, memory_format=memory_format)


def _cdouble(self, memory_format=_engine.preserve_format):
    """``self.to(pyad.complex128)`` (torch's ``Tensor.cdouble``)."""
    return self.to(numpy.complex128, memory_format=memory_format)


def _functional_method(name):
    def method(self, *args, **kwargs):
        from pyad.nn import functional
        return getattr(functional, name)(self, *args, **kwargs)
    method.__name__ = method.__qualname__ = name
    method.__doc__ = ("Method form of :func:`pyad.nn.functional.%s`, with this Variable as "
                      "the input." % name)
    return method


def hardshrink(input, lambd=0.5):
    """:func:`pyad.nn.functional.hardshrink` (``torch.hardshrink``)."""
    from pyad.nn import functional
    return functional.hardshrink(input, lambd)


def prelu(input, weight):
    """:func:`pyad.nn.functional.prelu` (``torch.prelu``)."""
    from pyad.nn import functional
    return functional.prelu(input, weight)


# The in-place methods added here, by name (with those of pyad/_scatter_reduce.py they
# extend the engine's list of in-place methods, which the version tests read).
_PYTHON_INPLACE_METHODS = ("conj_physical_", "heaviside_", "gcd_", "lcm_", "mvlgamma_",
                           "polygamma_", "renorm_")

_engine._add_variable_methods({
    "layout": property(_layout, doc=_layout.__doc__),
    "is_sparse": _false_flag("is_sparse", "sparse (COO)"),
    "is_sparse_csr": _false_flag("is_sparse_csr", "sparse CSR"),
    "is_quantized": _false_flag("is_quantized", "quantized"),
    "is_meta": _false_flag("is_meta", "meta (data-less)"),
    "is_nested": _false_flag("is_nested", "nested"),
    "is_mkldnn": _false_flag("is_mkldnn", "MKL-DNN"),
    "to_dense": to_dense, "is_nonzero": is_nonzero, "is_same_size": is_same_size,
    "isposinf": isposinf, "isneginf": isneginf, "isreal": isreal, "argwhere": argwhere,
    "dsplit": dsplit, "narrow_copy": narrow_copy, "conj_physical": conj_physical,
    "cfloat": _cfloat, "cdouble": _cdouble, "as_strided": as_strided,
    "hardshrink": _functional_method("hardshrink"), "prelu": _functional_method("prelu"),
    **{name: globals()[name] for name in _PYTHON_INPLACE_METHODS},
})
_engine._INPLACE_METHODS = _engine._INPLACE_METHODS + _PYTHON_INPLACE_METHODS
