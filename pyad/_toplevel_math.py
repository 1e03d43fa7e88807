"""torch's remaining top-level math names and the Tensor methods that go with them:
complex numbers from parts (``complex``, ``polar``) and the lazy-bit queries
(``is_conj``, ``resolve_conj``, ...), the older linear-algebra spellings
(``matrix_exp``, ``chain_matmul``, ``lu``, ``lu_unpack``, ``lu_solve``,
``frobenius_norm``, ``nuclear_norm``, ``svd_lowrank``, ``pca_lowrank``), factories
(``range``, ``scalar_tensor``, ``fill``, ``empty_strided``, ``empty_permuted``),
``histogram``/``histogramdd``, ``gradient``, ``poisson``/``binomial``, the regularized
incomplete gamma functions ``igamma``/``igammac``, torch's small global switches
(``set_warn_always``, ``set_deterministic_debug_mode``, ``set_flush_denormal``, ...)
and the ``*_copy`` functions (a view op's result, copied). Variable methods are
installed at the end of this module.

>>> import pyad
>>> pyad.complex(pyad.tensor([1.0]), pyad.tensor([2.0]))
tensor([1.+2.j])
>>> pyad.gradient(pyad.tensor([1.0, 4.0, 9.0, 16.0]))
(tensor([3., 4., 6., 7.]),)
"""
import builtins
import collections
import math
import warnings

import numpy

from pyad import _engine
from pyad._out import _check_out, takes_out, writes_out
from pyad.autograd import Function as _Function

__all__ = [
    "complex", "polar", "is_conj", "is_neg", "resolve_conj", "resolve_neg", "is_signed",
    "matrix_exp", "chain_matmul", "spmm", "frobenius_norm", "nuclear_norm", "matrix_rank", "lu",
    "lu_unpack", "lu_solve", "svd_lowrank", "pca_lowrank", "range", "scalar_tensor", "fill",
    "empty_strided", "empty_permuted", "histogram", "histogramdd", "gradient", "poisson",
    "binomial", "igamma", "igammac", "get_device", "typename", "is_warn_always_enabled",
    "set_warn_always", "set_flush_denormal", "is_deterministic_algorithms_warn_only_enabled",
    "get_deterministic_debug_mode", "set_deterministic_debug_mode", "alias_copy",
    "as_strided_copy", "detach_copy", "diagonal_copy", "expand_copy", "permute_copy",
    "select_copy", "slice_copy", "split_copy", "split_with_sizes_copy", "squeeze_copy",
    "t_copy", "transpose_copy", "unbind_copy", "unfold_copy", "unsqueeze_copy", "view_copy",
    "view_as_real_copy", "view_as_complex_copy", "detach", "detach_", "nonzero_static",
]

_Variable = _engine.Variable


def _var(x, what, arg="input", pos=1):
    if not isinstance(x, _Variable):
        raise TypeError("%s(): argument '%s' (position %d) must be Variable, not %s"
                        % (what, arg, pos, type(x).__name__))
    return x


def _tname(dtype):
    dtype = numpy.dtype(dtype)
    return {"float32": "Float", "float64": "Double", "float16": "Half", "int64": "Long",
            "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte",
            "bool": "Bool", "complex64": "ComplexFloat",
            "complex128": "ComplexDouble"}.get(dtype.name, dtype.name)


# -- complex numbers from parts, and torch's lazy conjugate / negative bits --------------

def _parts(a, b, what, names):
    _var(a, what, names[0], 1)
    _var(b, what, names[1], 2)
    for v in (a, b):
        if numpy.dtype(v.dtype).name not in ("float16", "float32", "float64"):
            raise RuntimeError("%s(): Expected both inputs to be Half, Float or Double "
                               "tensors but got %s and %s"
                               % (what, _tname(a.dtype), _tname(b.dtype)))
    if a.dtype != b.dtype:
        raise RuntimeError("%s(): Expected object of scalar type %s but got scalar type %s "
                           "for second argument" % (what, _tname(a.dtype), _tname(b.dtype)))
    if a.dtype == numpy.float16:
        raise TypeError("%s(): half inputs give complex32 (ComplexHalf), which pyad cannot "
                        "hold" % what)
    if tuple(a.shape) != tuple(b.shape):
        a, b = _engine.broadcast_tensors(a, b)
    return a, b


@writes_out
def complex(real, imag):
    """The complex Variable ``real + i imag``, as ``torch.complex``: both parts float32
    (complex64 result) or both float64 (complex128), broadcast together;
    differentiable in both. Different dtypes or non-floating parts raise RuntimeError.

    >>> import pyad
    >>> pyad.complex(pyad.tensor([1.0, 2.0]), pyad.tensor([3.0, 4.0]))
    tensor([1.+3.j, 2.+4.j])
    """
    real, imag = _parts(real, imag, "complex", ("real", "imag"))
    return _join(real, imag)


def _join(real, imag):
    if real.numel() == 0:           # NumPy gives empty arrays strides view_as_complex refuses
        cdtype = numpy.complex64 if real.dtype == numpy.float32 else numpy.complex128
        return real.to(cdtype) + imag.to(cdtype) * 1j
    return _engine.view_as_complex(_engine.stack([real, imag], -1).contiguous())


@writes_out
def polar(abs, angle):
    """The complex Variable ``abs * (cos(angle) + i sin(angle))``, as ``torch.polar``
    (same dtype rules as :func:`complex`); differentiable in both.

    >>> import pyad
    >>> pyad.polar(pyad.tensor([2.0]), pyad.tensor([0.0]))
    tensor([2.+0.j])
    """
    r, theta = _parts(abs, angle, "polar", ("abs", "angle"))
    return _join(r * _engine.cos(theta), r * _engine.sin(theta))


def is_conj(input):
    """False: pyad conjugates eagerly and has no lazy conjugate bit (``torch.is_conj``)."""
    return _var(input, "is_conj").is_conj()


def is_neg(input):
    """False: pyad has no lazy negative bit (``torch.is_neg``)."""
    return _var(input, "is_neg").is_neg()


def resolve_conj(input):
    """``input`` itself: with no lazy conjugate bit there is nothing to materialize, as
    torch when the bit is unset (``torch.resolve_conj``)."""
    return _var(input, "resolve_conj")


def resolve_neg(input):
    """``input`` itself, as :func:`resolve_conj` (``torch.resolve_neg``)."""
    return _var(input, "resolve_neg")


def is_signed(input):
    """Whether ``input``'s dtype is signed (floating, complex, signed integers; not bool
    or unsigned integers), as ``torch.is_signed``.

    >>> import pyad
    >>> pyad.is_signed(pyad.tensor([1.0])), pyad.is_signed(pyad.tensor([True]))
    (True, False)
    """
    dtype = numpy.dtype(_var(input, "is_signed").dtype)
    return dtype.kind in "ifc" or dtype.name == "bfloat16"


# -- linear algebra ---------------------------------------------------------------------

def matrix_exp(A):
    """:func:`pyad.linalg.matrix_exp` (``torch.matrix_exp``)."""
    from pyad import linalg
    return linalg.matrix_exp(A)


@writes_out(exact=True)
def chain_matmul(*matrices):
    """The product of the given matrices, as (deprecated) ``torch.chain_matmul``:
    :func:`pyad.linalg.multi_dot` for two or more, the matrix itself (copied) for one.
    Warns with torch's UserWarning.

    >>> import pyad, warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     pyad.chain_matmul(pyad.eye(2), pyad.ones(2, 2))
    tensor([[1., 1.],
            [1., 1.]])
    """
    warnings.warn("torch.chain_matmul is deprecated and will be removed in a future PyTorch "
                  "release. Use torch.linalg.multi_dot instead, which accepts a list of two "
                  "or more tensors rather than multiple parameters.", UserWarning,
                  stacklevel=2)
    if len(matrices) == 1 and isinstance(matrices[0], (list, tuple)):
        matrices = tuple(matrices[0])
    if not matrices:
        raise RuntimeError("chain_matmul(): Expected one or more matrices")
    for i, m in enumerate(matrices):
        _var(m, "chain_matmul", "matrices", i + 1)
        if m.ndim != 2:
            raise RuntimeError("chain_matmul(): Variable dimension is %d, expected 2 instead."
                               % m.ndim)
    if len(matrices) == 1:
        return matrices[0].clone()
    from pyad import linalg
    return linalg.multi_dot(list(matrices))


def spmm(input, mat2):
    """The matrix product of ``input`` (n x m) and ``mat2`` (m x p), as ``torch.spmm``.
    pyad has no sparse layout: for the dense matrices it is given, torch's ``spmm`` is
    :func:`pyad.mm`, and so it is here (differentiable in both arguments). Both must be
    2-D and of one dtype (RuntimeError otherwise, as torch).

    >>> import pyad
    >>> pyad.spmm(pyad.eye(2), pyad.tensor([[1.0, 2.0], [3.0, 4.0]]))
    tensor([[1., 2.],
            [3., 4.]])
    """
    a = _var(input, "spmm", "input", 1)
    b = _var(mat2, "spmm", "mat2", 2)
    if a.ndim != 2:
        raise RuntimeError("spmm(): self must be a matrix, got a %d-D input" % a.ndim)
    if b.ndim != 2:
        raise RuntimeError("spmm(): mat2 must be a matrix, got a %d-D input" % b.ndim)
    if a.dtype != b.dtype:
        raise RuntimeError("spmm(): expected m1 and m2 to have the same dtype, but got: "
                           "%s != %s" % (a.dtype, b.dtype))
    if a.shape[1] != b.shape[0]:
        raise RuntimeError("spmm(): mat1 and mat2 shapes cannot be multiplied (%dx%d and "
                           "%dx%d)" % (tuple(a.shape) + tuple(b.shape)))
    from pyad import mm
    return mm(a, b)


def frobenius_norm(input, dim=(), keepdim=False):
    """The 2-norm of ``input``'s elements over ``dim`` (all of them when ``dim`` is
    empty), as (deprecated) ``torch.frobenius_norm``: ``linalg.vector_norm(input, 2,
    dim, keepdim)``.

    >>> import pyad
    >>> pyad.frobenius_norm(pyad.tensor([[3.0, 4.0]]), (0, 1))
    tensor(5.)
    """
    from pyad import linalg
    x = _var(input, "frobenius_norm")
    if isinstance(dim, int):
        dim = (dim,)
    dim = tuple(dim)
    return linalg.vector_norm(x, 2, dim if dim else None, keepdim)


def nuclear_norm(input, dim=None, keepdim=False):
    """The nuclear norm (sum of singular values) of the matrices over ``dim`` (the last
    two by default), as (deprecated) ``torch.nuclear_norm``: ``nuclear_norm(input,
    keepdim=False)`` or ``nuclear_norm(input, dim, keepdim=False)``.

    >>> import pyad
    >>> pyad.nuclear_norm(pyad.tensor([[3.0, 0.0], [0.0, 4.0]]))
    tensor(7.)
    """
    from pyad import linalg
    x = _var(input, "nuclear_norm")
    if isinstance(dim, builtins.bool):          # nuclear_norm(input, keepdim)
        dim, keepdim = None, dim
    if dim is None:
        dim = (-2, -1)
    dim = tuple(dim)
    if len(dim) != 2:
        raise RuntimeError("nuclear_norm(): dim must be a 2-tuple of ints, got %s" % (dim,))
    return linalg.matrix_norm(x, "nuc", dim, keepdim)


def matrix_rank(input, tol=None, symmetric=False, *, out=None):
    """Removed from torch (its ``torch.matrix_rank`` raises RuntimeError): use
    :func:`pyad.linalg.matrix_rank`."""
    raise RuntimeError("matrix_rank(): This function was deprecated since version 1.9 and is "
                       "now removed. Please use the `pyad.linalg.matrix_rank` function "
                       "instead. The parameter 'symmetric' was renamed in "
                       "`linalg.matrix_rank()` to 'hermitian'.")


@writes_out(exact=True)
def lu(A, pivot=True, get_infos=False):
    """The packed LU factorization ``(LU, pivots)``, plus ``infos`` with
    ``get_infos=True``, as (deprecated) ``torch.lu``: :func:`pyad.linalg.lu_factor_ex`.
    ``LU`` is differentiable. Unpack it with :func:`lu_unpack`.

    >>> import pyad
    >>> LU, pivots = pyad.lu(pyad.tensor([[1.0, 2.0], [3.0, 4.0]]))
    >>> pivots
    tensor([2, 2], dtype=int32)
    """
    from pyad import linalg
    _var(A, "lu", "A")
    LU, pivots, infos = linalg.lu_factor_ex(A, pivot=pivot)
    if get_infos:
        return LU, pivots, infos
    return LU, pivots


lu_unpack_result = collections.namedtuple("lu_unpack", ["P", "L", "U"])


def lu_unpack(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True):
    """``(P, L, U)`` from :func:`lu`'s packed factorization, as ``torch.lu_unpack``:
    ``L`` unit lower triangular (m x k), ``U`` upper triangular (k x n), ``P`` the
    permutation matrix of the 1-based ``LU_pivots``; what is not unpacked is an empty
    Variable. ``L`` and ``U`` are differentiable (``tril``/``triu`` of ``LU_data``).

    >>> import pyad
    >>> A = pyad.tensor([[1.0, 2.0], [3.0, 4.0]])
    >>> P, L, U = pyad.lu_unpack(*pyad.lu(A))
    >>> P @ L @ U
    tensor([[1., 2.],
            [3., 4.]])
    """
    from pyad import linalg
    lu_ = _var(LU_data, "lu_unpack", "LU_data")
    piv = _var(LU_pivots, "lu_unpack", "LU_pivots", 2)
    if lu_.ndim < 2:
        raise RuntimeError("lu_unpack(): Expected a Variable with 2 or more "
                           "dimensions. Got size: %s instead" % list(lu_.shape))
    if piv.dtype != numpy.int32:
        raise RuntimeError("lu_unpack(): LU_pivots is expected to be a Variable of "
                           "int32 dtype. Note: this function is intended to be used "
                           "with the output produced by torch.linalg.lu_factor")
    m, n = lu_.shape[-2], lu_.shape[-1]
    k = min(m, n)
    empty = _Variable(numpy.empty(0, dtype=lu_.dtype))
    if unpack_data:
        eye = _Variable(numpy.eye(m, k, dtype=lu_.dtype))
        L = lu_[..., :, :k].tril(-1) + eye
        U = lu_[..., :k, :].triu()
    else:
        L = U = empty
    if unpack_pivots:
        if tuple(piv.shape) != tuple(lu_.shape[:-2]) + (k,):
            raise RuntimeError("lu_unpack(): LU_pivots must have shape %s, got %s"
                               % (list(lu_.shape[:-2]) + [k], list(piv.shape)))
        data = piv.data if isinstance(piv.data, numpy.ndarray) else piv.data.get()
        P = _Variable(linalg._perm_matrix(numpy.asarray(data), m, lu_.dtype))
    else:
        P = _Variable(numpy.empty(0, dtype=lu_.dtype))
    return lu_unpack_result(P, L, U)


@writes_out(exact=True)
def lu_solve(b, LU_data, LU_pivots):
    """The solution of ``A X = b`` from :func:`lu`'s factorization of ``A``, as
    (deprecated) ``torch.lu_solve`` (note the argument order):
    ``linalg.lu_solve(LU_data, LU_pivots, b)``.

    >>> import pyad
    >>> A = pyad.tensor([[1.0, 2.0], [3.0, 4.0]])
    >>> pyad.lu_solve(pyad.tensor([[5.0], [11.0]]), *pyad.lu(A))
    tensor([[1.],
            [2.]])
    """
    from pyad import linalg
    _var(b, "lu_solve", "b")
    return linalg.lu_solve(LU_data, LU_pivots, b)


def _randn_like_shape(shape, dtype):
    from pyad import _factories
    return _factories.randn(*shape, dtype=dtype)


def _range_finder(A, q, niter, M=None):
    # torch._lowrank.get_approximate_basis: randomized subspace iteration
    from pyad import linalg
    X = _randn_like_shape(tuple(A.shape[-1:]) + (q,), A.dtype)
    if numpy.dtype(A.dtype).kind == "c":
        X = X + 1j * _randn_like_shape(tuple(A.shape[-1:]) + (q,), A.dtype)
    AH = A.mH
    Y = A @ X if M is None else A @ X - M @ X
    Q = linalg.qr(Y).Q
    for _ in builtins.range(niter):
        Z = AH @ Q if M is None else AH @ Q - M.mH @ Q
        Q = linalg.qr(Z).Q
        Y = A @ Q if M is None else A @ Q - M @ Q
        Q = linalg.qr(Y).Q
    return Q


def svd_lowrank(A, q=6, niter=2, M=None):
    """A rank-``q`` approximate SVD ``(U, S, V)`` of (a batch of) matrices ``A - M``
    by torch's randomized subspace iteration (``torch.svd_lowrank``, Halko et al.),
    differentiable through pyad's ``qr``/``svd``; the random basis comes from pyad's
    generator.

    >>> import pyad
    >>> A = pyad.tensor([[3.0, 0.0], [0.0, 2.0], [0.0, 0.0]])
    >>> U, S, V = pyad.svd_lowrank(A, q=2)
    >>> [round(s, 4) for s in S.tolist()]
    [3.0, 2.0]
    """
    from pyad import linalg
    A = _var(A, "svd_lowrank", "A")
    q = 6 if q is None else int(q)
    niter = 2 if niter is None else int(niter)
    if A.ndim < 2:
        raise RuntimeError("svd_lowrank(): expected a matrix or a batch of matrices")
    m, n = A.shape[-2], A.shape[-1]
    if M is not None:
        M = _var(M, "svd_lowrank", "M").expand(*A.shape)
    if m < n:                       # as torch: work with the transpose
        AT = A.mH
        MT = None if M is None else M.mH
        Q = _range_finder(AT, q, niter, MT)
        B = Q.mH @ AT if MT is None else Q.mH @ (AT - MT)
        U, S, Vh = linalg.svd(B, full_matrices=False)
        V = Vh.mH
        return V, S, Q @ U
    Q = _range_finder(A, q, niter, M)
    B = Q.mH @ A if M is None else Q.mH @ (A - M)
    U, S, Vh = linalg.svd(B, full_matrices=False)
    return Q @ U, S, Vh.mH


def pca_lowrank(A, q=None, center=True, niter=2):
    """Principal component analysis of the rows of ``A`` by :func:`svd_lowrank`
    (``q = min(6, m, n)`` by default, the column means subtracted when ``center``), as
    ``torch.pca_lowrank``: ``(U, S, V)``.

    >>> import pyad
    >>> U, S, V = pyad.pca_lowrank(pyad.tensor([[1.0, 0.0], [-1.0, 0.0]]), q=1)
    >>> [round(s, 4) for s in S.tolist()]
    [1.4142]
    """
    A = _var(A, "pca_lowrank", "A")
    if A.ndim < 2:
        raise RuntimeError("pca_lowrank(): expected a matrix or a batch of matrices")
    m, n = A.shape[-2], A.shape[-1]
    if q is None:
        q = min(6, m, n)
    elif not (q >= 0 and q <= min(m, n)):
        raise ValueError("q(=%s) must be non-negative integer and not greater than "
                         "min(m, n)=%d" % (q, min(m, n)))
    if not niter >= 0:
        raise ValueError("niter(=%s) must be non-negative integer" % niter)
    if not center:
        return svd_lowrank(A, q, niter=niter, M=None)
    C = A.mean(dim=-2, keepdim=True)
    return svd_lowrank(A - C, q, niter=niter, M=None)


# -- factories --------------------------------------------------------------------------

def _number(v):
    if isinstance(v, _Variable):
        return v.item()
    return v


def range(start=0, end=None, step=1, *, dtype=None, device=None, requires_grad=False,
          out=None, layout=None):
    """The values ``start, start + step, ...`` up to and *including* ``end``, as
    (deprecated) ``torch.range``, with its UserWarning: ``floor((end - start) / step) +
    1`` values of the default floating dtype unless ``dtype`` is given.

    >>> import pyad, warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     pyad.range(0, 3)
    tensor([0., 1., 2., 3.])
    """
    warnings.warn("torch.range is deprecated and will be removed in a future release because "
                  "its behavior is inconsistent with Python's range builtin. Instead, use "
                  "torch.arange, which produces values in [start, end).", UserWarning,
                  stacklevel=2)
    if out is not None:
        return _range_into_out(start, end, step, dtype=dtype, device=device, out=out)
    return _range_values(start, end, step, dtype=dtype, device=device,
                         requires_grad=requires_grad)


def _range_values(start, end, step, dtype=None, device=None, requires_grad=False):
    from pyad import _factories
    if end is None:
        start, end = 0, start
    start, end, step = _number(start), _number(end), _number(step)
    if step == 0:
        raise RuntimeError("range(): step must be nonzero")
    if not all(math.isfinite(float(v)) for v in (start, end)):
        raise RuntimeError("range(): unsupported range: %s -> %s" % (start, end))
    if (step > 0 and end < start) or (step < 0 and end > start):
        raise RuntimeError("range(): upper bound and lower bound inconsistent with step sign")
    dtype = _engine.get_default_dtype() if dtype is None else numpy.dtype(dtype)
    count = int(math.floor((float(end) - float(start)) / float(step))) + 1
    values = float(start) + numpy.arange(count, dtype=numpy.float64) * float(step)
    if dtype.kind in "iub":
        values = (int(start) + numpy.arange(count, dtype=numpy.int64) * int(step))
    data = values.astype(dtype)
    return _factories._finish(data, None, device, requires_grad, "range")


_range_into_out = takes_out(_range_values, "range", fill_shape=True)


def scalar_tensor(s, dtype=None, device=None, requires_grad=False, *, layout=None,
                  pin_memory=False):
    """A 0-d Variable holding the number ``s``, of the default floating dtype unless
    ``dtype`` is given (even for an int or bool ``s``), as ``torch.scalar_tensor``.

    >>> import pyad
    >>> pyad.scalar_tensor(3)
    tensor(3.)
    """
    from pyad import _factories
    if isinstance(s, _Variable):
        s = s.item()
    if not isinstance(s, (int, float, builtins.complex, numpy.number, numpy.bool_)):
        raise TypeError("scalar_tensor(): argument 's' (position 1) must be Number, not %s"
                        % type(s).__name__)
    dtype = _engine.get_default_dtype() if dtype is None else numpy.dtype(dtype)
    if isinstance(s, (builtins.complex, numpy.complexfloating)) and dtype.kind != "c":
        raise RuntimeError("scalar_tensor(): value cannot be converted to type %s without "
                           "overflow" % dtype)
    return _factories._finish(numpy.array(s, dtype=dtype), None, device, requires_grad,
                              "scalar_tensor")


class _Fill(_Function):
    # torch's FillBackward: a zero gradient for the input, the sum for a Variable value
    @staticmethod
    def forward(ctx, x, value, data):
        ctx.shape, ctx.dtype = tuple(x.shape), x.dtype
        ctx.value_dtype = None if value is None else value.dtype
        return _Variable(data)

    @staticmethod
    def backward(ctx, grad):
        gx = _Variable(numpy.zeros(ctx.shape, dtype=ctx.dtype))
        gv = None
        if ctx.value_dtype is not None:
            gv = grad.sum()
            if gv.dtype != ctx.value_dtype:
                gv = gv.to(ctx.value_dtype)
        return gx, gv, None


def fill(input, value):
    """A new Variable of ``input``'s shape and dtype filled with ``value`` (a number or
    a 0-d Variable), as ``torch.fill`` (the out-of-place :meth:`Variable.fill_`). As
    torch's, the result is recorded: ``input`` gets a zero gradient, a Variable
    ``value`` the sum of the result's.

    >>> import pyad
    >>> pyad.fill(pyad.tensor([1, 2]), 2.5)
    tensor([2, 2])
    """
    x = _var(input, "fill")
    dtype = numpy.dtype(x.dtype)
    v = None
    if isinstance(value, _Variable):
        if value.ndim != 0:
            raise RuntimeError("fill(): fill_ only supports 0-dimension value tensor but got "
                               "tensor with %d dimensions." % value.ndim)
        v = value
        number = _host(value)[()]
    else:
        number = value
    if isinstance(number, (builtins.complex, numpy.complexfloating)) and dtype.kind != "c":
        raise RuntimeError("fill(): value cannot be converted to type %s without overflow"
                           % dtype)
    xp = _engine.get_array_module(x)
    data = xp.full(tuple(x.shape), number, dtype=dtype)
    if v is not None and numpy.dtype(v.dtype).kind not in "fc":
        v = None
    if dtype.kind not in "fc":      # an integer result carries no gradient
        return _Variable(data)
    return _Fill.apply(x, v, data)


def _storage_extent(size, stride):
    if any(n == 0 for n in size):
        return 0
    return 1 + builtins.sum((n - 1) * s for n, s in zip(size, stride))


def empty_strided(size, stride, *, dtype=None, layout=None, device=None,
                  requires_grad=False, pin_memory=False):
    """An uninitialized Variable of shape ``size`` whose elements lie ``stride``
    elements apart in memory, as ``torch.empty_strided`` (``Variable.stride()`` reports
    ``stride``).

    >>> import pyad
    >>> pyad.empty_strided((2, 3), (1, 2)).stride()
    (1, 2)
    """
    from pyad import _factories
    size = tuple(int(n) for n in size)
    stride = tuple(int(s) for s in stride)
    if len(size) != len(stride):
        raise RuntimeError("empty_strided(): mismatch in length of strides and shape")
    if any(n < 0 for n in size):
        raise RuntimeError("empty_strided(): Dimension size must be non-negative, got %s"
                           % list(size))
    if any(s < 0 for s in stride):
        raise RuntimeError("empty_strided(): negative strides are not supported, got %s"
                           % list(stride))
    dtype = _engine.get_default_dtype() if dtype is None else numpy.dtype(dtype)
    extent = _storage_extent(size, stride)
    if extent * dtype.itemsize >= 2 ** 63:
        raise RuntimeError("empty_strided(): Storage size calculation overflowed with "
                           "sizes=%s and strides=%s" % (list(size), list(stride)))
    buf = numpy.empty(max(extent, 1), dtype=dtype)
    data = numpy.lib.stride_tricks.as_strided(
        buf, shape=size, strides=tuple(s * dtype.itemsize for s in stride))
    if device is not None and _engine.device(device).type != "cpu":
        data = numpy.ascontiguousarray(data)
    return _factories._finish(data, None, device, requires_grad, "empty_strided")


def empty_permuted(size, physical_layout, *, dtype=None, layout=None, device=None,
                   requires_grad=False, pin_memory=False):
    """An uninitialized Variable of shape ``size`` laid out in memory in the dimension
    order ``physical_layout`` (outermost first), as ``torch.empty_permuted``.

    >>> import pyad
    >>> pyad.empty_permuted((2, 3, 4), (2, 0, 1)).stride()
    (3, 1, 6)
    """
    from pyad import _factories
    size = tuple(int(n) for n in size)
    order = tuple(int(d) for d in physical_layout)
    if len(order) != len(size):
        raise RuntimeError("empty_permuted(): Number of dimensions in size does not match "
                           "the length of the physical_layout; i.e. len(size) = %d is not "
                           "equal to len(physical_layout) = %d" % (len(size), len(order)))
    if sorted(order) != list(builtins.range(len(size))):
        raise RuntimeError("empty_permuted(): Dimension %s is not a permutation" % (order,))
    phys = _factories.empty(*[size[d] for d in order], dtype=dtype, device=device)
    inverse = [order.index(d) for d in builtins.range(len(size))]
    out = phys.permute(*inverse) if inverse else phys
    if requires_grad:
        out = out.detach()._mark_requires_grad()
    return out


# -- histograms and the numerical gradient -----------------------------------------------

histogram_result = collections.namedtuple("histogram", ["hist", "bin_edges"])
histogramdd_result = collections.namedtuple("histogramdd", ["hist", "bin_edges"])


def _host(v):
    d = v.data
    return d if isinstance(d, numpy.ndarray) else d.get()


def _hist_input(input, what, weight):
    x = _var(input, what)
    if numpy.dtype(x.dtype).kind != "f":
        raise NotImplementedError("\"histogramdd\" not implemented for '%s'" % _tname(x.dtype))
    if weight is not None:
        _var(weight, what, "weight")
        if weight.dtype != x.dtype:
            raise RuntimeError("%s(): if weight Variable is provided, input Variable and "
                               "weight Variable should have the same dtype, but got "
                               "input(%s), and weight(%s)" % (what, x.dtype, weight.dtype))
    return x


def histogram(input, bins=100, *, range=None, weight=None, density=False, out=None):
    """The histogram of ``input``'s values, as ``torch.histogram``: ``(hist,
    bin_edges)``, ``bins`` equal-width bins over ``range`` (the data's minimum and
    maximum by default) or the given increasing 1-D Variable of edges; the last bin
    includes its right edge. ``weight`` weighs each element, ``density`` divides by the
    total and the bin widths. Floating inputs only; no gradient, as torch.

    >>> import pyad
    >>> pyad.histogram(pyad.tensor([1.0, 2.0, 1.0]), bins=4, range=(0.0, 3.0)).hist
    tensor([0., 2., 1., 0.])
    """
    x = _hist_input(input, "histogram", weight)
    if isinstance(bins, _Variable) and range is not None:
        raise TypeError("histogram(): received an invalid combination of arguments - got "
                        "(Variable, Variable, range=...): bins given as a Variable of edges "
                        "take no range")
    if out is not None:
        _check_out(out, "histogram", (tuple, list))
        for o, what in zip(out, ("hist", "bin_edges")):
            if isinstance(o, _Variable) and o.dtype != x.dtype:
                raise RuntimeError("histogram(): input Variable and %s Variable should have "
                                   "the same dtype, but got input %s and %s %s"
                                   % (what, x.dtype, what, o.dtype))
    hist, edges = histogramdd(x.reshape(-1, 1), [bins] if not isinstance(bins, _Variable)
                              else [bins], range=range, weight=None if weight is None
                              else weight.reshape(-1), density=density, _what="histogram")
    if out is not None:
        _engine._write_out_py("histogram", out, (hist, edges[0]), True)
        return histogram_result(out[0], out[1])
    return histogram_result(hist, edges[0])


def histogramdd(input, bins=10, *, range=None, weight=None, density=False, _what="histogramdd"):
    """The D-dimensional histogram of the points in the last dimension of ``input``
    (N x D after flattening), as ``torch.histogramdd``: ``(hist, bin_edges)`` with one
    Variable of edges per dimension. ``bins`` is an int (every dimension), a sequence
    of ints, or a sequence of 1-D Variables of edges; ``range`` a flat sequence of ``2
    D`` bounds.

    >>> import pyad
    >>> pyad.histogramdd(pyad.tensor([[0.0, 0.0], [1.0, 1.0]]), bins=2).hist
    tensor([[1., 0.],
            [0., 1.]])
    """
    x = _hist_input(input, _what, weight)
    if x.ndim < 1:
        raise RuntimeError("%s(): the input Variable should have at least 1 "
                           "dimension, but got 0" % _what)
    D = x.shape[-1]
    if D == 0:     # no dimensions to bin: a 0-d count of nothing (NaN as a density)
        return histogramdd_result(_Variable(numpy.array(numpy.nan if density else 0.0,
                                                        x.dtype)), [])
    pts = _host(x).reshape(-1, D)
    if isinstance(bins, (int, numpy.integer)):
        bins = [int(bins)] * D
    bins = list(bins)
    if len(bins) != D:
        raise RuntimeError("%s(): torch.histogramdd: expected %d sequences of bin edges for "
                           "each of the %d dimensions, but got %d" % (_what, D, D, len(bins)))
    if range is not None:
        range = [float(r) for r in range]
        if len(range) != 2 * D:
            raise RuntimeError("%s(): torch.histogramdd: for a %d-dimensional histogram, "
                               "range should have %d elements, but got %d"
                               % (_what, D, 2 * D, len(range)))
    edges = []
    for d, b in enumerate(bins):
        if isinstance(b, _Variable):
            e = _host(b)
            if b.dtype != x.dtype:
                raise RuntimeError("%s(): input Variable and bins Variables should have the "
                                   "same dtype, but got input with dtype %s and bins for "
                                   "dimension %d with dtype %s" % (_what, x.dtype, d, b.dtype))
            if e.ndim != 1:
                raise RuntimeError("%s(): bins Variable should have one dimension, but got "
                                   "%d dimensions in the bins Variable for dimension %d"
                                   % (_what, e.ndim, d))
            if e.size < 1:
                raise RuntimeError("%s(): bins Variable should have at least 1 element, but "
                                   "got 0 elements in the bins Variable for dimension %d"
                                   % (_what, d))
            if numpy.any(numpy.diff(e) < 0):
                raise RuntimeError("%s(): bin edges must be non-decreasing" % _what)
            edges.append(e.astype(x.dtype))
            continue
        b = int(b)
        if b <= 0:
            raise RuntimeError("%s(): bins must be > 0, but got %d for dimension %d"
                               % (_what, b, d))
        if range is not None:
            lo, hi = range[2 * d], range[2 * d + 1]
        elif pts.shape[0]:
            lo, hi = float(pts[:, d].min()), float(pts[:, d].max())
        else:                           # no data: [0, 1], as torch (and NumPy)
            lo, hi = 0.0, 1.0
        if lo > hi:
            raise RuntimeError("%s(): min should not exceed max, but got min %s max %s for "
                               "dimension %d" % (_what, lo, hi, d))
        if not (math.isfinite(lo) and math.isfinite(hi)):
            raise RuntimeError("%s(): dimension %d's range [%s, %s] is not finite"
                               % (_what, d, lo, hi))
        if lo == hi:
            lo, hi = lo - 0.5, hi + 0.5
        edges.append(numpy.linspace(lo, hi, b + 1).astype(x.dtype))
    w = None if weight is None else _host(weight).reshape(-1).astype(numpy.float64)
    if w is not None and w.size != pts.shape[0]:
        raise RuntimeError("%s(): if weight Variable is provided it should have the same "
                           "shape as the input Variable excluding its innermost dimension, "
                           "but got input with shape %s and weight with shape %s"
                           % (_what, tuple(x.shape), tuple(weight.shape)))
    hist, _ = numpy.histogramdd(pts.astype(numpy.float64),
                                bins=[e.astype(numpy.float64) for e in edges], weights=w)
    if density:
        total = hist.sum()
        widths = numpy.ones_like(hist)
        for d, e in enumerate(edges):
            shape = [1] * D
            shape[d] = -1
            widths = widths * numpy.diff(e.astype(numpy.float64)).reshape(shape)
        hist = hist / total / widths
    return histogramdd_result(_Variable(hist.astype(x.dtype)),
                              [_Variable(e) for e in edges])


def _slice(x, dim, start, stop):
    return _engine.narrow(x, dim, start, stop - start)


def gradient(input, *, spacing=1, dim=None, edge_order=1):
    """The numerical derivative of ``input`` along each of ``dim`` (every dimension by
    default) by second-order central differences inside and first- or second-order
    (``edge_order``) one-sided differences at the ends, as ``torch.gradient``: a tuple
    with one Variable per dimension. ``spacing`` is a number (the step of every
    dimension), a sequence of numbers (one step per dimension) or a sequence of 1-D
    Variables (the coordinates of each dimension). Differentiable (pyad slicing and
    arithmetic); integer inputs give the default floating dtype.

    >>> import pyad
    >>> pyad.gradient(pyad.tensor([1.0, 4.0, 9.0, 16.0]), spacing=2.0)
    (tensor([1.5000, 2.0000, 3.0000, 3.5000]),)
    """
    x = _var(input, "gradient")
    if dim is None:
        dims = list(builtins.range(x.ndim))
    elif isinstance(dim, (int, numpy.integer)):
        dims = [int(dim)]
    else:
        dims = [int(d) for d in dim]
    dims = [d + x.ndim if d < 0 else d for d in dims]
    for d in dims:
        if not 0 <= d < max(x.ndim, 1):
            raise IndexError("gradient(): Dimension out of range (expected to be in range of "
                             "[%d, %d], but got %d)" % (-x.ndim, x.ndim - 1, d))
    if len(set(dims)) != len(dims):
        raise RuntimeError("gradient(): dim %s appears multiple times in the list of dims"
                           % dims)
    if edge_order not in (1, 2):
        raise RuntimeError("torch.gradient only supports edge_order=1 and edge_order=2.")
    if isinstance(spacing, (list, tuple)):
        spacing = list(spacing)
        if len(spacing) != len(dims):
            raise RuntimeError("torch.gradient expected spacing to be unspecified, a scalar "
                               "or it's spacing and dim arguments to have the same length, "
                               "but got a spacing argument of length %d and a dim argument "
                               "of length %d." % (len(spacing), len(dims)))
    else:
        if isinstance(spacing, _Variable) and spacing.ndim != 0:
            raise RuntimeError("gradient(): spacing must be a scalar, a list of scalars or a "
                               "list of 1-D Variables")
        spacing = [spacing] * len(dims)
    for d in dims:
        if x.shape[d] < edge_order + 1:
            raise RuntimeError("torch.gradient expected each dimension size to be at least "
                               "edge_order+1")
    if x.dtype == numpy.bool_:
        # torch's differences subtract bool tensors, which it refuses
        raise RuntimeError("gradient(): Subtraction, the `-` operator, with two bool "
                           "Variables is not supported. Use the `^` or `logical_xor()` "
                           "operator instead.")
    if numpy.dtype(x.dtype).kind in "iu":
        x = x.to(_engine.get_default_dtype())
    out = []
    for d, h in zip(dims, spacing):
        n = x.shape[d]
        if isinstance(h, _Variable) and h.ndim == 1:
            if h.shape[0] != n:
                raise RuntimeError("gradient(): expected each coordinate Variable to be on "
                                   "the same device and as long as its dimension")
            # as torch: the coefficients are computed in the coordinates' own dtype
            # (integer coordinates give the default float dtype) and promote with x
            # (float32 values with float64 coordinates give float64)
            out.append(_gradient_coords(x, d, h, edge_order))
        else:
            if isinstance(h, _Variable):
                h = h.item()
            out.append(_gradient_uniform(x, d, h, edge_order))
    return tuple(out)


def _gradient_uniform(x, d, h, edge_order):
    n = x.shape[d]
    interior = (_slice(x, d, 2, n) - _slice(x, d, 0, n - 2)) / (2.0 * h)
    if edge_order == 1:
        first = (_slice(x, d, 1, 2) - _slice(x, d, 0, 1)) / h
        last = (_slice(x, d, n - 1, n) - _slice(x, d, n - 2, n - 1)) / h
    else:
        first = (-1.5 * _slice(x, d, 0, 1) + 2.0 * _slice(x, d, 1, 2)
                 - 0.5 * _slice(x, d, 2, 3)) / h
        last = (0.5 * _slice(x, d, n - 3, n - 2) - 2.0 * _slice(x, d, n - 2, n - 1)
                + 1.5 * _slice(x, d, n - 1, n)) / h
    return _engine.cat([first, interior, last], d)


def _along(v, d, ndim):
    shape = [1] * ndim
    shape[d] = -1
    return v.reshape(*shape)


def _gradient_coords(x, d, coords, edge_order):
    # numpy's (and torch's) non-uniform formulas, the steps as Variables
    n, nd = x.shape[d], x.ndim
    dx = coords[1:] - coords[:-1]
    a_, b_ = dx[:-1], dx[1:]                    # h_{i-1}, h_i at interior points
    a = _along(-b_ / (a_ * (a_ + b_)), d, nd)
    b = _along((b_ - a_) / (a_ * b_), d, nd)
    c = _along(a_ / (b_ * (a_ + b_)), d, nd)
    interior = (a * _slice(x, d, 0, n - 2) + b * _slice(x, d, 1, n - 1)
                + c * _slice(x, d, 2, n))
    if edge_order == 1:
        first = (_slice(x, d, 1, 2) - _slice(x, d, 0, 1)) / dx[0]
        last = (_slice(x, d, n - 1, n) - _slice(x, d, n - 2, n - 1)) / dx[-1]
    else:
        h1, h2 = dx[0], dx[1]
        first = (-(2.0 * h1 + h2) / (h1 * (h1 + h2)) * _slice(x, d, 0, 1)
                 + (h1 + h2) / (h1 * h2) * _slice(x, d, 1, 2)
                 - h1 / (h2 * (h1 + h2)) * _slice(x, d, 2, 3))
        h1, h2 = dx[-2], dx[-1]
        last = (h2 / (h1 * (h1 + h2)) * _slice(x, d, n - 3, n - 2)
                - (h2 + h1) / (h1 * h2) * _slice(x, d, n - 2, n - 1)
                + (2.0 * h2 + h1) / (h2 * (h1 + h2)) * _slice(x, d, n - 1, n))
    return _engine.cat([first, interior, last], d)


# -- random samples ----------------------------------------------------------------------

def poisson(input, generator=None):
    """Samples of Poisson distributions with the rates ``input``, as ``torch.poisson``
    (same shape and floating dtype; drawn from pyad's generator, or ``generator``). No
    gradient.

    >>> import pyad
    >>> pyad.poisson(pyad.zeros(3))
    tensor([0., 0., 0.])
    """
    from pyad import _factories
    x = _var(input, "poisson")
    if numpy.dtype(x.dtype).kind != "f":
        raise NotImplementedError("\"poisson_cpu\" not implemented for '%s'" % _tname(x.dtype))
    rates = _host(x).astype(numpy.float64)
    if numpy.any(rates < 0) or numpy.any(numpy.isnan(rates)):
        raise RuntimeError("poisson(): invalid Poisson rate, expected rate to be "
                           "non-negative")
    rng = _factories._rng_for(numpy, generator, "poisson")
    return _ZeroGradient.apply(x, rng.poisson(rates).astype(x.dtype))


class _ZeroGradient(_Function):
    # a sample recorded with a zero gradient for its parameter, as torch's poisson
    @staticmethod
    def forward(ctx, x, data):
        ctx.shape, ctx.dtype = tuple(x.shape), x.dtype
        return _Variable(data)

    @staticmethod
    def backward(ctx, grad):
        return _Variable(numpy.zeros(ctx.shape, dtype=ctx.dtype)), None


def binomial(count, prob, generator=None):
    """Samples of binomial distributions with ``count`` trials of success probability
    ``prob`` (floating Variables of one shape), as ``torch.binomial``; no gradient.

    >>> import pyad
    >>> pyad.binomial(pyad.tensor([5.0, 6.0]), pyad.tensor([1.0, 0.0]))
    tensor([5., 0.])
    """
    from pyad import _factories
    c = _var(count, "binomial", "count")
    p = _var(prob, "binomial", "prob", 2)
    if numpy.dtype(c.dtype).kind != "f":
        raise ValueError("binomial only supports floating-point dtypes for count, got: %s"
                         % _tname(c.dtype))
    if numpy.dtype(p.dtype).kind != "f":
        raise ValueError("binomial only supports floating-point dtypes for prob, got: %s"
                         % _tname(p.dtype))
    if tuple(c.shape) != tuple(p.shape):
        c, p = _engine.broadcast_tensors(c, p)
    n = _host(c).astype(numpy.float64)
    q = _host(p).astype(numpy.float64)
    rng = _factories._rng_for(numpy, generator, "binomial")
    return _Variable(rng.binomial(n.astype(numpy.int64), q).astype(c.dtype))


# -- the regularized incomplete gamma functions -------------------------------------------

def _lgamma64(a):
    from math import lgamma
    return numpy.vectorize(lgamma, otypes=[numpy.float64])(a) if a.size else a * 0.0


def _igamma_data(a, x):
    """(P(a, x), Q(a, x)) in float64: the series for x < a + 1, Lentz's continued
    fraction for Q otherwise (Numerical Recipes' gser/gcf), vectorized."""
    a, x = numpy.broadcast_arrays(numpy.asarray(a, numpy.float64),
                                  numpy.asarray(x, numpy.float64))
    P = numpy.full(a.shape, numpy.nan)
    Q = numpy.full(a.shape, numpy.nan)
    ok = (a >= 0) & (x >= 0) & ~numpy.isnan(a) & ~numpy.isnan(x)
    zero_a = ok & (a == 0)
    P[zero_a & (x > 0)] = 1.0
    Q[zero_a & (x > 0)] = 0.0
    zero_x = ok & (a > 0) & (x == 0)
    P[zero_x], Q[zero_x] = 0.0, 1.0
    inf_x = ok & (a > 0) & numpy.isfinite(a) & numpy.isinf(x)   # (inf, inf): NaN, as torch
    P[inf_x], Q[inf_x] = 1.0, 0.0
    inf_a = ok & numpy.isinf(a) & numpy.isfinite(x) & (x > 0)
    P[inf_a], Q[inf_a] = 0.0, 1.0
    rest = ok & (a > 0) & (x > 0) & numpy.isfinite(x) & numpy.isfinite(a)
    series = rest & (x < a + 1)
    frac = rest & ~series
    if series.any():
        aa, xx = a[series], x[series]
        ap = aa.copy()
        term = 1.0 / aa
        total = term.copy()
        for _ in builtins.range(2000):
            ap += 1.0
            term = term * xx / ap
            total += term
            if numpy.all(numpy.abs(term) <= numpy.abs(total) * 1e-17):
                break
        logp = numpy.log(total) - xx + aa * numpy.log(xx) - _lgamma64(aa)
        p = numpy.exp(logp)
        P[series], Q[series] = p, 1.0 - p
    if frac.any():
        aa, xx = a[frac], x[frac]
        tiny = 1e-300
        b = xx + 1.0 - aa
        c = numpy.full(aa.shape, 1.0 / tiny)
        d = 1.0 / b
        h = d.copy()
        for i in builtins.range(1, 2000):
            an = -i * (i - aa)
            b = b + 2.0
            d = an * d + b
            d = numpy.where(numpy.abs(d) < tiny, tiny, d)
            c = b + an / c
            c = numpy.where(numpy.abs(c) < tiny, tiny, c)
            d = 1.0 / d
            delta = d * c
            h = h * delta
            if numpy.all(numpy.abs(delta - 1.0) <= 1e-16):
                break
        q = numpy.exp(-xx + aa * numpy.log(xx) - _lgamma64(aa)) * h
        Q[frac], P[frac] = q, 1.0 - q
    return P, Q


def _gamma_args(input, other, what):
    a = input if isinstance(input, _Variable) else None
    x = other if isinstance(other, _Variable) else None
    if a is None:
        raise TypeError("%s(): argument 'input' (position 1) must be Variable, not %s"
                        % (what, type(input).__name__))
    if x is None:
        raise TypeError("%s(): argument 'other' (position 2) must be Variable, not %s"
                        % (what, type(other).__name__))
    from pyad._porting import result_type
    dt = numpy.dtype(result_type(a, x))       # torch's promotion (int with float32: float32)
    if dt.kind != "f":
        raise NotImplementedError("\"%s_cpu\" not implemented for '%s'" % (what, _tname(dt)))
    if a.dtype != dt:
        a = a.to(dt)
    if x.dtype != dt:
        x = x.to(dt)
    return a, x


class _IncompleteGamma(_Function):
    @staticmethod
    def forward(ctx, a, x, upper):
        ctx.save_for_backward(a, x)
        ctx.upper = upper
        P, Q = _igamma_data(_host(a), _host(x))
        out = (Q if upper else P).astype(a.dtype)
        return _Variable(out)

    @staticmethod
    def backward(ctx, grad):
        a, x = ctx.saved_tensors
        name = "igammac" if ctx.upper else "igamma"
        if ctx.needs_input_grad[0]:
            raise NotImplementedError("the derivative for '%s: input' is not implemented."
                                      % name)
        # d/dx P(a, x) = x^(a-1) e^(-x) / Gamma(a); Q = 1 - P (pyad ops: differentiable)
        dens = _engine.exp((a - 1) * _engine.log(x) - x - _engine.lgamma(a))
        gx = grad * (-dens if ctx.upper else dens)
        return None, _engine.sum_to(gx, tuple(x.shape)), None


@writes_out
def igamma(input, other):
    """The regularized lower incomplete gamma function ``P(input, other)``, as
    ``torch.igamma`` (``torch.special.gammainc``): floating inputs, broadcast; NaN for
    negative arguments. Differentiable in ``other`` (twice); the derivative in
    ``input`` raises NotImplementedError, as torch's.

    >>> import pyad
    >>> pyad.igamma(pyad.tensor([1.0]), pyad.tensor([0.5]))
    tensor([0.3935])
    """
    a, x = _gamma_args(input, other, "igamma")
    return _IncompleteGamma.apply(a, x, False)


@writes_out
def igammac(input, other):
    """The regularized upper incomplete gamma function ``Q(input, other) = 1 - P``, as
    ``torch.igammac`` (``torch.special.gammaincc``); see :func:`igamma`.

    >>> import pyad
    >>> pyad.igammac(pyad.tensor([1.0]), pyad.tensor([0.5]))
    tensor([0.6065])
    """
    a, x = _gamma_args(input, other, "igammac")
    return _IncompleteGamma.apply(a, x, True)


# -- small global switches and queries ----------------------------------------------------

def get_device(input):
    """The GPU index of ``input``, -1 on the CPU, as ``torch.get_device``."""
    x = _var(input, "get_device")
    return x.get_device()


def typename(obj):
    """torch's string for the type of ``obj``: a Variable's legacy type name
    (``'torch.FloatTensor'``, as :meth:`Variable.type`), else the fully qualified name of
    a class or of an object's class, as ``torch.typename``.

    >>> import pyad
    >>> pyad.typename(pyad.ones(1))
    'torch.FloatTensor'
    >>> pyad.typename(3)
    'int'
    """
    if isinstance(obj, _Variable):
        return obj.type()
    module = getattr(obj, "__module__", "") or ""
    if hasattr(obj, "__qualname__"):
        qualname = obj.__qualname__
    elif hasattr(obj, "__name__"):
        qualname = obj.__name__
    else:
        module = obj.__class__.__module__ or ""
        qualname = obj.__class__.__qualname__
    if module in ("", "builtins"):
        return qualname
    return "%s.%s" % (module, qualname)


def set_warn_always(b):
    """torch's warn-always flag: warnings torch gives once per process (``float()`` of a
    Variable that requires grad) are then given every time."""
    _engine._set_warn_always(builtins.bool(b))


def is_warn_always_enabled():
    """The flag set by :func:`set_warn_always` (False by default)."""
    return _engine._is_warn_always_enabled()


def set_flush_denormal(mode):
    """Flush denormal floats to zero (inputs and results) on the calling thread, as
    ``torch.set_flush_denormal``: the CPU's flush-to-zero and denormals-are-zero bits,
    which NumPy's loops on this thread then follow. Returns True where supported (x86-64),
    False elsewhere (nothing changed)."""
    return _engine._set_flush_denormal(mode)


def is_deterministic_algorithms_warn_only_enabled():
    """The ``warn_only`` flag given to :func:`pyad.use_deterministic_algorithms`."""
    from pyad import _compat
    return _compat._deterministic[1]


def set_deterministic_debug_mode(debug_mode):
    """torch's other spelling of :func:`pyad.use_deterministic_algorithms`: ``"default"``
    or 0 (off), ``"warn"`` or 1 (on, warn only), ``"error"`` or 2 (on)."""
    from pyad import _compat
    if not isinstance(debug_mode, (builtins.int, str)):
        raise TypeError("set_deterministic_debug_mode(): debug_mode must be str or int, but "
                        "got %s" % type(debug_mode))
    if isinstance(debug_mode, str):
        modes = {"default": 0, "warn": 1, "error": 2}
        if debug_mode not in modes:
            raise RuntimeError("set_deterministic_debug_mode(): invalid value of debug_mode, "
                               "expected one of `default`, `warn`, `error`, but got %s"
                               % debug_mode)
        debug_mode = modes[debug_mode]
    if debug_mode == 0:
        _compat.use_deterministic_algorithms(False)
    elif debug_mode == 1:
        _compat.use_deterministic_algorithms(True, warn_only=True)
    elif debug_mode == 2:
        _compat.use_deterministic_algorithms(True)
    else:
        raise RuntimeError("set_deterministic_debug_mode(): invalid value of debug_mode, "
                           "expected 0, 1, or 2, but got %s" % debug_mode)


def get_deterministic_debug_mode():
    """0, 1 or 2: the mode :func:`set_deterministic_debug_mode` sets."""
    from pyad import _compat
    on, warn_only = _compat._deterministic
    return (1 if warn_only else 2) if on else 0


# -- the *_copy functions: a view op's result, copied --------------------------------------

def _copy_of(view_fn, name, doc):
    def fn(input, *args, out=None, **kwargs):
        _var(input, name)
        result = view_fn(input, *args, **kwargs)
        if isinstance(result, (tuple, list)):
            result = tuple(o.clone() for o in result)
        else:
            result = result.clone()
        if out is None:
            return result
        _check_out(out, name, (_Variable, tuple, list))
        return _engine._write_out_py(name, out, result, False)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = ("%s, copied: the result never shares memory with ``input``; the "
                  "gradient is the view's (``torch.%s``). ``out=`` (a Variable, or a tuple "
                  "of them for the split ops) receives the result, as torch's." % (doc, name))
    return fn


def _slice_view(input, dim=0, start=None, end=None, step=1):
    if step <= 0:
        raise RuntimeError("slice_copy(): slice step must be positive")
    key = [builtins.slice(None)] * input.ndim
    key[dim] = builtins.slice(start, end, step)
    return input[tuple(key)]


def _view_as_strided(input, size, stride, storage_offset=None):
    from pyad import _compat
    return _compat.as_strided(input, size, stride, storage_offset)


def _view(input, *shape):
    if len(shape) == 1 and not isinstance(shape[0], (int, numpy.integer, tuple, list)):
        return input.view(shape[0])
    return input.view(*shape)


alias_copy = _copy_of(lambda x: x, "alias_copy", "``input`` itself")
as_strided_copy = _copy_of(_view_as_strided, "as_strided_copy", ":func:`pyad.as_strided`")
detach_copy = _copy_of(lambda x: x.detach(), "detach_copy", ":meth:`Variable.detach`")
diagonal_copy = _copy_of(lambda x, offset=0, dim1=0, dim2=1: _engine.diagonal(
    x, offset, dim1, dim2), "diagonal_copy", ":func:`pyad.diagonal`")
expand_copy = _copy_of(lambda x, size, *, implicit=False: x.expand(*size), "expand_copy",
                       ":meth:`Variable.expand`")
permute_copy = _copy_of(lambda x, dims: x.permute(*dims), "permute_copy",
                        ":func:`pyad.permute`")
select_copy = _copy_of(lambda x, dim, index: _engine.select(x, dim, index), "select_copy",
                       ":func:`pyad.select`")
slice_copy = _copy_of(_slice_view, "slice_copy", "``input[..., start:end:step]`` along "
                      "``dim``")
split_copy = _copy_of(lambda x, split_size, dim=0: _engine.split(x, split_size, dim),
                      "split_copy", ":func:`pyad.split`")
split_with_sizes_copy = _copy_of(lambda x, split_sizes, dim=0: _engine.split_with_sizes(
    x, split_sizes, dim), "split_with_sizes_copy", ":func:`pyad.split_with_sizes`")
squeeze_copy = _copy_of(lambda x, dim=None: _engine.squeeze(x) if dim is None
                        else _engine.squeeze(x, dim), "squeeze_copy", ":func:`pyad.squeeze`")
t_copy = _copy_of(lambda x: _engine.t(x), "t_copy", ":func:`pyad.t`")
transpose_copy = _copy_of(lambda x, dim0, dim1: _engine.transpose(x, dim0, dim1),
                          "transpose_copy", ":func:`pyad.transpose`")
unbind_copy = _copy_of(lambda x, dim=0: _engine.unbind(x, dim), "unbind_copy",
                       ":func:`pyad.unbind`")
unfold_copy = _copy_of(lambda x, dimension, size, step: x.unfold(dimension, size, step),
                       "unfold_copy", ":meth:`Variable.unfold`")
unsqueeze_copy = _copy_of(lambda x, dim: _engine.unsqueeze(x, dim), "unsqueeze_copy",
                          ":func:`pyad.unsqueeze`")
view_copy = _copy_of(_view, "view_copy", ":meth:`Variable.view`")
view_as_real_copy = _copy_of(lambda x: _engine.view_as_real(x), "view_as_real_copy",
                             ":func:`pyad.view_as_real`")
def _view_as_complex_checked(x):
    from pyad.autograd.grad_mode import is_grad_enabled
    if x.requires_grad and is_grad_enabled():
        # torch's view_as_complex_copy has no derivative for its complex output
        raise RuntimeError("view_as_complex_copy does not support automatic "
                           "differentiation for outputs with complex dtype.")
    return _engine.view_as_complex(x)


view_as_complex_copy = _copy_of(_view_as_complex_checked, "view_as_complex_copy",
                                ":func:`pyad.view_as_complex` (not differentiable, as torch's)")


def detach(input):
    """:meth:`Variable.detach` (``torch.detach``): ``input`` cut from the graph,
    sharing its data."""
    return _var(input, "detach").detach()


def detach_(input):
    """:meth:`Variable.detach_` (``torch.detach_``): cut ``input`` from the graph, in
    place."""
    return _var(input, "detach_").detach_()


# -- Variable methods ----------------------------------------------------------------------

def _bfloat16(self, memory_format=_engine.preserve_format):
    """``self.to(bfloat16)`` (torch's ``Tensor.bfloat16``): bfloat16 is ml_dtypes'
    dtype (the optional ``bfloat16`` extra); without it this raises TypeError."""
    import pyad
    if not hasattr(pyad, "bfloat16"):
        # (the dtype object exists only with ml_dtypes installed)
        raise TypeError("bfloat16(): the bfloat16 dtype needs the optional ml_dtypes "
                        "package")
    return self.to(pyad.bfloat16, memory_format=memory_format)


def _chalf(self, memory_format=None):
    """torch's ``Tensor.chalf`` (to complex32): pyad has no complex32 dtype, so this
    raises TypeError."""
    raise TypeError("chalf(): pyad has no complex32 (ComplexHalf) dtype; use cfloat()")


def _xpu(self, device=None, non_blocking=False, memory_format=None):
    """torch's ``Tensor.xpu``: pyad has no XPU backend, so this raises AssertionError
    as torch built without XPU."""
    raise AssertionError("xpu(): Torch not compiled with XPU enabled (pyad has no XPU "
                         "backend)")


def _dim_order(self, *, ambiguity_check=False):
    """The dimensions from outermost to innermost in memory (by decreasing stride,
    ties in dimension order), as torch's ``Tensor.dim_order``.

    >>> import pyad
    >>> pyad.ones(2, 3, 4).permute(2, 0, 1).dim_order()
    (1, 2, 0)
    """
    strides = self.stride()
    shape = tuple(self.shape)
    if isinstance(ambiguity_check, builtins.bool) and ambiguity_check:
        seen = [s for s, n in zip(strides, shape)]
        if len(set(seen)) != len(seen) or 1 in shape:
            raise RuntimeError("dim_order(): The Variable does not have unique dim order, or "
                               "cannot map to a single memory format.")
    elif not isinstance(ambiguity_check, (builtins.bool, list)):
        raise TypeError("dim_order(): ambiguity_check should be a bool or a list")
    return tuple(sorted(builtins.range(len(shape)), key=lambda d: (-strides[d], d)))


def nonzero_static(input, *, size, fill_value=-1):
    """The indices of ``input``'s nonzero elements as ``nonzero()`` (an n x ndim int64
    Variable), cut or padded with ``fill_value`` to exactly ``size`` rows, as
    torch's ``Tensor.nonzero_static``.

    >>> import pyad
    >>> pyad.tensor([0, 1, 0, 2]).nonzero_static(size=3)
    tensor([[ 1],
            [ 3],
            [-1]])
    """
    x = _var(input, "nonzero_static")
    size = int(size)
    if size < 0:
        raise RuntimeError("nonzero_static(): 'size' must be an non-negative integer")
    data = _host(x)
    idx = numpy.argwhere(data).astype(numpy.int64)
    if idx.shape[0] >= size:
        out = idx[:size]
    else:
        pad = numpy.full((size - idx.shape[0], x.ndim), int(fill_value), dtype=numpy.int64)
        out = numpy.concatenate([idx, pad], 0)
    return _Variable(out.reshape(size, x.ndim))


def _histogram_method(self, bins=100, *, range=None, weight=None, density=False):
    """Method form of :func:`pyad.histogram`."""
    return histogram(self, bins, range=range, weight=weight, density=density)


def _lu_method(self, pivot=True, get_infos=False):
    """Method form of :func:`pyad.lu`."""
    return lu(self, pivot, get_infos)


def _lu_solve_method(self, LU_data, LU_pivots):
    """Method form of :func:`pyad.lu_solve`: ``self`` is the right-hand side ``b``."""
    return lu_solve(self, LU_data, LU_pivots)


def _matrix_exp_method(self):
    """Method form of :func:`pyad.matrix_exp`."""
    return matrix_exp(self)


def _igamma_method(self, other):
    """Method form of :func:`pyad.igamma`."""
    return igamma(self, other)


def _igammac_method(self, other):
    """Method form of :func:`pyad.igammac`."""
    return igammac(self, other)


def _inplace_from(name, fn, doc):
    from pyad import _compat
    method = _compat._in_place(name, fn)
    method.__doc__ = doc
    return method


igamma_ = _inplace_from("igamma_", igamma, "In-place :func:`pyad.igamma` (``other`` a "
                        "Variable).")
igammac_ = _inplace_from("igammac_", igammac, "In-place :func:`pyad.igammac` (``other`` a "
                         "Variable).")


def _addr(self, vec1, vec2, *, beta=1, alpha=1):
    from pyad._statistics import addr
    return addr(self, vec1, vec2, beta=beta, alpha=alpha)


addr_ = _inplace_from("addr_", _addr, "In-place :func:`pyad.addr`: ``beta * self + alpha "
                      "* outer(vec1, vec2)`` written into this Variable.")

_NEW_INPLACE_METHODS = ("igamma_", "igammac_", "addr_")


def _flag(name, meaning):
    from pyad import _compat
    return _compat._false_flag(name, meaning)


_engine._add_variable_methods({
    "bfloat16": _bfloat16, "chalf": _chalf, "xpu": _xpu, "dim_order": _dim_order,
    "nonzero_static": nonzero_static, "histogram": _histogram_method, "lu": _lu_method,
    "lu_solve": _lu_solve_method, "matrix_exp": _matrix_exp_method,
    "igamma": _igamma_method, "igammac": _igammac_method,
    "is_xpu": _flag("is_xpu", "XPU"), "is_mps": _flag("is_mps", "MPS (Apple GPU)"),
    "is_ipu": _flag("is_ipu", "IPU"), "is_xla": _flag("is_xla", "XLA"),
    "is_vulkan": _flag("is_vulkan", "Vulkan"), "is_maia": _flag("is_maia", "MAIA"),
    "is_mtia": _flag("is_mtia", "MTIA"),
    **{name: globals()[name] for name in _NEW_INPLACE_METHODS},
})
_engine._INPLACE_METHODS = _engine._INPLACE_METHODS + _NEW_INPLACE_METHODS
