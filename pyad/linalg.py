"""pyad.linalg: linear algebra functions, as ``torch.linalg``."""
from pyad._engine import (
    # decompositions, inverses and solvers (pyad/ops/linalg.pxi)
    inv, det, slogdet, solve, cholesky, qr, eigh, svd, svdvals, matrix_power,
    # norms (pyad/ops/linalg.pxi)
    vector_norm,
)
from pyad._engine import _linalg_norm as norm
from pyad._engine import _linalg_matrix_norm as matrix_norm
from pyad._engine import _linalg_cross as cross

__all__ = ["inv", "det", "slogdet", "solve", "cholesky", "qr", "eigh", "svd", "svdvals",
           "norm", "vector_norm", "matrix_norm", "cross", "matrix_power"]


# -- the rest of torch.linalg, in Python on the pyad ops above -------------------------
#
# Functions whose derivative is a composition of differentiable pyad ops are written
# as that composition (multi_dot, cond, vecdot, vander, tensorinv, tensorsolve,
# householder_product, lu_solve, eigvalsh). The others are custom Functions with
# torch's backward formulas (tools/autograd/derivatives.yaml, FunctionsManual.cpp)
# written with pyad ops, so that they can be differentiated again: pinv, lstsq,
# solve_triangular, eig, matrix_exp, lu/lu_factor.

import collections as _collections
import sys as _sys
import functools as _functools
import math as _math
import operator as _operator

import numpy as _np

import pyad as _pyad
from pyad import _engine
from pyad.autograd import Function as _Function

from pyad._engine import matmul  # noqa: E402  (torch.linalg.matmul is torch.matmul)

__all__ += ["matmul", "pinv", "lstsq", "solve_triangular", "eigvalsh", "eig", "eigvals",
            "matrix_exp", "multi_dot", "lu_factor", "lu_factor_ex", "lu", "lu_solve",
            "matrix_rank", "cond", "vecdot", "diagonal", "vander", "inv_ex", "solve_ex",
            "cholesky_ex", "tensorinv", "tensorsolve", "householder_product"]


class LinAlgError(RuntimeError):
    """Raised for a singular or not positive-definite input where torch raises
    ``torch.linalg.LinAlgError`` (a RuntimeError, as torch's).

    >>> try:
    ...     pyad.linalg.inv_ex(pyad.zeros(2, 2), check_errors=True)
    ... except pyad.linalg.LinAlgError as e:
    ...     print(type(e).__name__, isinstance(e, RuntimeError))
    LinAlgError True
    """


def _profiled(fn):
    """``fn`` reported to the profiler as one op of its name (the ops it calls nest
    inside), as the engine's ops are."""
    name = fn.__name__
    profiling = _engine._bridge_profiling
    run = _engine._bridge_profiled

    @_functools.wraps(fn)
    def op(*args, **kwargs):
        if profiling():
            return run(name, fn, args, kwargs)
        return fn(*args, **kwargs)
    return op


_TORCH_NAMES = {"float32": "Float", "float64": "Double", "complex64": "ComplexFloat",
                "complex128": "ComplexDouble", "int64": "Long", "int32": "Int",
                "int16": "Short", "int8": "Char", "uint8": "Byte", "bool": "Bool",
                "float16": "Half"}


def _tname(dtype):
    return _TORCH_NAMES.get(str(_np.dtype(dtype)), str(dtype))


def _var(x, what=None):
    if isinstance(x, _pyad.Variable):
        return x
    try:
        return _pyad.as_tensor(x)
    except TypeError:
        # named after the public function that was called (the caller, unless given)
        what = what or "linalg." + _sys._getframe(1).f_code.co_name
        raise TypeError("%s(): expected a Variable (or array), got %s"
                        % (what, type(x).__name__)) from None


def _xp(data):
    return _pyad.get_array_module(data)


def _real_of(dtype):
    dtype = _np.dtype(dtype)
    return _np.dtype(_np.float32) if dtype in (_np.float32, _np.complex64) else _np.dtype(
        _np.float64)


def _matrix(x, what, square=False, arg="A"):
    """``x`` as a Variable of (a batch of) float32/float64/complex matrices."""
    x = _var(x, what)
    if x.dim() < 2:
        raise RuntimeError("%s(): The input tensor %s must have at least 2 dimensions."
                           % (what, arg))
    if square and x.shape[-1] != x.shape[-2]:
        raise RuntimeError("%s(): %s must be batches of square matrices, but they are %d by "
                           "%d matrices" % (what, arg, x.shape[-2], x.shape[-1]))
    kind, size = x.dtype.kind, x.dtype.itemsize
    if kind not in "fc" or size < (4 if kind == "f" else 8):
        raise RuntimeError("%s(): Expected a floating point or complex tensor as input. Got %s"
                           % (what, _tname(x.dtype)))
    return x


def _same_dtype(a, b, what, names=("A", "B")):
    if a.dtype != b.dtype:
        raise RuntimeError("%s(): Expected %s and %s to have the same dtype, but found %s of "
                           "type %s and %s of type %s instead"
                           % (what, names[0], names[1], names[0], _tname(a.dtype), names[1],
                              _tname(b.dtype)))


def _mH(x):
    return x.mH


def _eye_like(n, dtype):
    return _pyad.eye(n, dtype=dtype)


def _reduce_to(g, shape):
    """A gradient of a broadcast input summed back to the input's shape."""
    if g is None or tuple(g.shape) == tuple(shape):
        return g
    return g.sum_to_size(*shape) if shape else g.sum()


def _batch(*xs):
    return tuple(_np.broadcast_shapes(*[tuple(x.shape[:-2]) for x in xs]))


def _eps(dtype):
    return float(_np.finfo(_real_of(dtype)).eps)


# -- tolerances (torch's get_atol_rtol) -----------------------------------------------


def _tol_array(value, what, name):
    if value is None:
        return None
    data = value.data if isinstance(value, _pyad.Variable) else _np.asarray(value)
    if _np.iscomplexobj(data):
        raise RuntimeError("%s(): %s tensor of complex type is not supported." % (what, name))
    return _np.asarray(data, dtype=_np.float64)


def _atol_rtol(x, atol, rtol, what):
    atol = _tol_array(atol, what, "atol")
    rtol = _tol_array(rtol, what, "rtol")
    default = _eps(x.dtype) * max(x.shape[-1], x.shape[-2])
    if rtol is None:
        rtol = (_np.asarray(default) if atol is None
                else _np.where(atol > 0, 0.0, default))
    if atol is None:
        atol = _np.zeros(())
    return atol, rtol


# -- pinv ------------------------------------------------------------------------------


def _pinv_data(a, atol, rtol, hermitian):
    xp = _xp(a)
    atol, rtol = xp.asarray(atol), xp.asarray(rtol)
    if not hermitian:
        u, s, vh = xp.linalg.svd(a, full_matrices=False)
        max_val = s[..., :1]
        tol = xp.maximum(atol[..., None], rtol[..., None] * max_val)
        with _np.errstate(divide="ignore"):
            s_inv = xp.where(s > tol, 1 / s, 0).astype(a.dtype)
        vh_h = xp.conj(xp.swapaxes(vh, -1, -2))
        return xp.matmul(vh_h * s_inv[..., None, :], xp.conj(xp.swapaxes(u, -1, -2)))
    w, u = xp.linalg.eigh(a)
    w_abs = xp.abs(w)
    tol = xp.maximum(atol[..., None], rtol[..., None] * w_abs.max(-1, keepdims=True))
    with _np.errstate(divide="ignore"):
        w_inv = xp.where(w_abs > tol, 1 / w, 0).astype(a.dtype)
    return xp.matmul(u * w_inv[..., None, :], xp.conj(xp.swapaxes(u, -1, -2)))


def _pinv_backward(g, pinv_a, a):
    # torch's pinv_backward
    m, n = a.shape[-2], a.shape[-1]
    pinv_ah = _mH(pinv_a)
    gh = _mH(g)
    if m <= n:
        k = gh @ pinv_a
        k_pinv_ah = k @ pinv_ah
        return (-_mH(pinv_a @ k) + k_pinv_ah - (a @ pinv_a) @ k_pinv_ah
                + (pinv_ah @ pinv_a) @ (gh - k @ a))
    k = pinv_a @ gh
    pinv_ah_k = pinv_ah @ k
    return (-_mH(k @ pinv_a) + (gh - a @ k) @ pinv_a @ pinv_ah + pinv_ah_k
            - pinv_ah_k @ pinv_a @ a)


class PinvFunction(_Function):
    """``linalg.pinv`` as a node: the value from the SVD (or eigh), the gradient
    torch's pinv_backward."""

    @staticmethod
    def forward(ctx, a, atol, rtol, hermitian):
        out = _pyad.Variable(_pinv_data(a.data, atol, rtol, hermitian))
        ctx.save_for_backward(a, out)
        return out

    @staticmethod
    def backward(ctx, g):
        a, out = ctx.saved_tensors
        grad = _pinv_backward(g, out, a)
        return _reduce_to(grad, a.shape), None, None, None


@_profiled
def pinv(A, rcond=None, hermitian=False, *, atol=None, rtol=None):
    """The Moore-Penrose pseudo-inverse of (a batch of) matrices, as
    ``torch.linalg.pinv``: singular values (absolute eigenvalues with ``hermitian``)
    at most ``max(atol, rtol * largest)`` are dropped; by default ``rtol`` is
    ``eps * max(m, n)`` (0 when only a positive ``atol`` is given). ``rcond`` is the
    older name of ``rtol``. Differentiable with torch's formula (at constant rank).

    >>> pyad.linalg.pinv(pyad.tensor([[1., 2.], [2., 4.]]))
    tensor([[0.0400, 0.0800],
            [0.0800, 0.1600]])
    """
    what = "linalg.pinv"
    x = _var(A)
    kind = x.dtype.kind
    if x.dim() < 2 or kind not in "fc" or x.dtype.itemsize < (4 if kind == "f" else 8):
        raise RuntimeError("%s(%s%s): expected a tensor with 2 or more dimensions of float, "
                           "double, cfloat or cdouble types"
                           % (what, _tname(x.dtype), list(x.shape)))
    for name, tol in (("atol", atol), ("rtol", rtol), ("rcond", rcond)):
        if isinstance(tol, complex):
            raise TypeError("%s(): %s must be a float or a Variable, got complex" % (what, name))
    if rcond is not None:
        if rtol is not None:
            # torch has no overload taking both
            raise TypeError("%s(): pass either rcond or rtol, not both" % what)
        rtol = rcond
    for name, tol in (("atol", atol), ("rtol", rtol)):
        if isinstance(tol, _pyad.Variable) and tol.requires_grad:
            raise RuntimeError("The function 'linalg_pinv' is not differentiable with respect "
                               "to argument '%s'. This input cannot have requires_grad True."
                               % name)
    atol_, rtol_ = _atol_rtol(x, atol, rtol, what)
    if x.numel() == 0:
        # the (empty) transposed shape, in the graph as torch's
        return x.mT * 0
    if hermitian and x.shape[-1] != x.shape[-2]:
        # torch goes through linalg.eigh, which refuses it (an empty input it returns)
        raise RuntimeError("%s(): with hermitian=True, A must be batches of square matrices, "
                           "but they are %d by %d matrices" % (what, x.shape[-2], x.shape[-1]))
    return PinvFunction.apply(x, atol_, rtol_, bool(hermitian))


# -- lstsq -----------------------------------------------------------------------------


lstsq_result = _collections.namedtuple("lstsq",
                                       ["solution", "residuals", "rank", "singular_values"])


def _lstsq_data(a, b, rcond):
    """The minimum-norm least-squares solution for singular values above
    ``rcond * largest``; also the rank and the singular values."""
    xp = _xp(a)
    u, s, vh = xp.linalg.svd(a, full_matrices=False)
    tol = rcond * s[..., :1] if s.shape[-1] else s[..., :1]
    keep = s > tol
    with _np.errstate(divide="ignore", invalid="ignore"):
        s_inv = xp.where(keep, 1 / s, 0).astype(a.dtype)
    uh_b = xp.matmul(xp.conj(xp.swapaxes(u, -1, -2)), b)
    x = xp.matmul(xp.conj(xp.swapaxes(vh, -1, -2)), s_inv[..., :, None] * uh_b)
    return x, keep.sum(-1).astype(_np.int64), s


class LstsqFunction(_Function):
    """The solution of ``linalg.lstsq`` as a node: the value from the SVD with the
    driver's rank cut-off, the gradient torch's linalg_lstsq_backward (through
    ``pinv(A)`` with the default tolerance)."""

    @staticmethod
    def forward(ctx, a, b, rcond):
        x, rank, s = _lstsq_data(a.data, b.data, rcond)
        ctx.save_for_backward(a, b)
        ctx.extra = (rank, s)
        return _pyad.Variable(x)

    @staticmethod
    def backward(ctx, g):
        a, b = ctx.saved_tensors
        pinv_a = pinv(a)
        ga = gb = None
        if ctx.needs_input_grad[0]:
            ga = _reduce_to(_pinv_backward(g @ _mH(b), pinv_a, a), a.shape)
        if ctx.needs_input_grad[1]:
            gb = _reduce_to(_mH(pinv_a) @ g, b.shape)
        return ga, gb, None


@_profiled
def lstsq(A, B, rcond=None, *, driver=None):
    """Least-squares solution of ``A X = B`` (minimum norm where ``A`` is rank
    deficient), as ``torch.linalg.lstsq`` on the CPU: returns the named tuple
    ``(solution, residuals, rank, singular_values)``. ``driver`` is one of
    ``'gelsy'`` (the default), ``'gelsd'``, ``'gelss'`` and ``'gels'``, with torch's
    outputs for each: ``rank`` for all but ``'gels'``, ``singular_values`` for
    ``'gelsd'``/``'gelss'``, ``residuals`` (squared residual norms of each column) when
    ``m > n`` and, for ``'gelsd'``/``'gelss'``, every matrix has full rank (never for
    ``'gelsy'``). ``rcond`` (default ``eps * max(m, n)``) is the relative cut-off of the
    singular values. Batch dimensions broadcast; ``B`` may be a vector (a batch of
    vectors of shape ``A.shape[:-1]``). ``solution`` and ``residuals`` are
    differentiable, with torch's formulas.

    >>> r = pyad.linalg.lstsq(pyad.tensor([[1., 0.], [0., 1.], [1., 1.]]),
    ...                       pyad.tensor([[1.], [2.], [3.]]))
    >>> r.solution
    tensor([[1.0000],
            [2.0000]])
    >>> r.rank
    tensor(2)
    """
    what = "linalg.lstsq"
    a = _var(A)
    b = _var(B)
    if a.dim() < 2:
        raise RuntimeError("%s(): input must have at least 2 dimensions." % what)
    if b.dim() < 1:
        raise RuntimeError("%s(): other must have at least 1 dimension." % what)
    if a.dtype != b.dtype:
        raise RuntimeError("%s(): Expected input and other to have the same dtype, but got "
                           "input's dtype %s and other's dtype %s"
                           % (what, _tname(a.dtype), _tname(b.dtype)))
    kind = a.dtype.kind
    if kind not in "fc" or a.dtype.itemsize < (4 if kind == "f" else 8):
        raise RuntimeError("%s(): Expected a floating point or complex tensor as input. Got %s"
                           % (what, _tname(a.dtype)))
    if driver is None:
        driver = "gelsy"
    if driver not in ("gels", "gelsy", "gelsd", "gelss"):
        raise RuntimeError("%s(): parameter `driver` should be one of (gels, gelsy, gelsd, "
                           "gelss)" % what)
    if a.dim() < b.dim() or a.dim() - b.dim() > 1:
        raise RuntimeError("%s(): input.dim() must be greater or equal to other.dim() and "
                           "(input.dim() - other.dim()) <= 1" % what)
    vector = a.dim() - 1 == b.dim()         # torch's rule for lstsq
    if vector:
        b = b.unsqueeze(-1)
    if a.shape[-2] != b.shape[-2]:
        raise RuntimeError("%s(): input.size(-2) should match other.size(%d)"
                           % (what, -1 if vector else -2))
    try:
        batch = _batch(a, b)
    except ValueError:
        raise RuntimeError("%s(): the batch dimensions of input %s and other %s do not "
                           "broadcast" % (what, list(a.shape[:-2]), list(b.shape[:-2]))) \
            from None
    m, n, k = a.shape[-2], a.shape[-1], b.shape[-1]
    a_ = a.expand(*(batch + (m, n)))
    b_ = b.expand(*(batch + (m, k)))
    if rcond is None:
        rcond = _eps(a.dtype) * max(m, n)
    rdtype = _real_of(a.dtype)
    xp = _xp(a.data)
    if a_.numel() == 0 or b_.numel() == 0 or m == 0 or n == 0:
        sol_data = xp.zeros(batch + (n, k), dtype=a.dtype)
        rank_data = xp.zeros(batch, dtype=_np.int64)
        s_data = xp.zeros(batch + (min(m, n),), dtype=rdtype)
        solution = _pyad.Variable(sol_data)
    else:
        solution = LstsqFunction.apply(a_, b_, float(rcond))
        rank_data, s_data = solution.grad_fn.extra if solution.grad_fn is not None else \
            _lstsq_data(a_.data, b_.data, float(rcond))[1:]
        sol_data = solution.data
    if driver == "gels":
        rank = _pyad.Variable(xp.zeros((0,), dtype=_np.int64))
    else:
        rank = _pyad.Variable(xp.asarray(rank_data, dtype=_np.int64))
    if driver in ("gelsd", "gelss"):
        singular_values = _pyad.Variable(xp.asarray(s_data, dtype=rdtype))
    else:
        singular_values = _pyad.Variable(xp.zeros((0,), dtype=rdtype))
    residuals = _pyad.Variable(xp.zeros((0,), dtype=rdtype))
    if solution.requires_grad:
        # empty, but part of the graph as torch's (a loss of it has zero gradients)
        residuals = solution.reshape(-1)[:0]
        residuals = residuals.real if kind == "c" else residuals
    if m > n and driver != "gelsy" and (
            driver == "gels" or bool((xp.asarray(rank_data) == n).all())):
        # differentiable, as torch's: at the least-squares solution A^H (A X - B) = 0,
        # so the chain rule through X adds nothing and this is d|AX - B|^2 at fixed X
        r = a_ @ solution - b_
        r2 = (r.real ** 2 + r.imag ** 2) if kind == "c" else r ** 2
        residuals = r2.sum(-2)   # (a vector B keeps its column, as torch)
    if vector:
        solution = solution.squeeze(-1)
    return lstsq_result(solution, residuals, rank, singular_values)


# -- triangular solves -----------------------------------------------------------------


def _trsolve_data(a, b, upper, unitriangular):
    """``X`` with ``A X = B`` for the triangle of ``A`` (batches broadcast), by
    substitution; a zero on the diagonal gives inf/nan as BLAS trsm, no error."""
    xp = _xp(a)
    batch = _np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    n = a.shape[-1]
    dtype = _np.result_type(a.dtype, b.dtype)
    a = xp.broadcast_to(a, batch + a.shape[-2:])
    b = xp.broadcast_to(b, batch + b.shape[-2:])
    x = xp.zeros(batch + b.shape[-2:], dtype=dtype)
    order = range(n - 1, -1, -1) if upper else range(n)
    with _np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        for i in order:
            if upper:
                s = b[..., i, :] - xp.matmul(a[..., i:i + 1, i + 1:], x[..., i + 1:, :])[..., 0, :]
            else:
                s = b[..., i, :] - xp.matmul(a[..., i:i + 1, :i], x[..., :i, :])[..., 0, :]
            x[..., i, :] = s if unitriangular else s / a[..., i, i][..., None]
    return x


class SolveTriangularFunction(_Function):
    """``linalg.solve_triangular`` (left=True) as a node, with torch's backward:
    ``gB = A^{-H} gX`` and ``gA = -gB X^H`` on the triangle."""

    @staticmethod
    def forward(ctx, a, b, upper, unitriangular):
        ctx.upper, ctx.unit = upper, unitriangular
        x = _pyad.Variable(_trsolve_data(a.data, b.data, upper, unitriangular))
        ctx.save_for_backward(a, x)
        ctx.shapes = (tuple(a.shape), tuple(b.shape))
        return x

    @staticmethod
    def backward(ctx, g):
        a, x = ctx.saved_tensors
        upper, unit = ctx.upper, ctx.unit
        gb = SolveTriangularFunction.apply(_mH(a), g, not upper, unit)
        ga = None
        if ctx.needs_input_grad[0]:
            ga = -(gb @ _mH(x))
            ga = ga.triu(int(unit)) if upper else ga.tril(-int(unit))
            ga = _reduce_to(ga, ctx.shapes[0])
        gb = _reduce_to(gb, ctx.shapes[1]) if ctx.needs_input_grad[1] else None
        return ga, gb, None, None


@_profiled
def solve_triangular(A, B, *, upper, left=True, unitriangular=False):
    """The solution ``X`` of ``A X = B`` (``X A = B`` when ``left=False``) for a
    triangular ``A``, as ``torch.linalg.solve_triangular``: only the ``upper`` (or
    lower) triangle of ``A`` is read, and its diagonal is taken as ones when
    ``unitriangular``. ``B`` is (a batch of) matrices; batch dimensions broadcast. A zero
    on the diagonal gives inf/nan, no error (as torch). Differentiable w.r.t. both, with
    torch's formulas.

    >>> pyad.linalg.solve_triangular(pyad.tensor([[2., 1.], [0., 4.]]),
    ...                              pyad.tensor([[3.], [4.]]), upper=True)
    tensor([[1.],
            [1.]])
    """
    what = "linalg.solve_triangular"
    a, b = _var(A, what), _var(B, what)
    common = _np.result_type(a.dtype, b.dtype)
    if common.kind not in "fc" or common.itemsize < 4:
        raise NotImplementedError('%s(): "triangular_solve_cpu" not implemented for \'%s\''
                                  % (what, _tname(common)))
    # torch promotes A and B to their common dtype
    a = a if a.dtype == common else a.to(common)
    b = b if b.dtype == common else b.to(common)
    a = _matrix(a, what)
    if b.dim() < 2:
        raise RuntimeError("%s(): The input tensor B must have at least 2 dimensions." % what)
    if a.shape[-1] != a.shape[-2]:
        raise RuntimeError("%s(): A must be batches of square matrices, but they are %d by %d "
                           "matrices" % (what, a.shape[-2], a.shape[-1]))
    _same_dtype(a, b, what)
    n = a.shape[-1]
    if left and b.shape[-2] != n:
        raise RuntimeError("%s(): Incompatible shapes of A and B for the equation AX = B "
                           "(%dx%d and %dx%d)" % (what, n, n, b.shape[-2], b.shape[-1]))
    if not left and b.shape[-1] != n:
        raise RuntimeError("%s(): Incompatible shapes of A and B for the equation XA = B "
                           "(%dx%d and %dx%d)" % (what, n, n, b.shape[-2], b.shape[-1]))
    upper = bool(upper)
    if left:
        return SolveTriangularFunction.apply(a, b, upper, bool(unitriangular))
    # X A = B  <=>  A^T X^T = B^T
    return SolveTriangularFunction.apply(a.mT, b.mT, not upper, bool(unitriangular)).mT


# -- eigenvalues -----------------------------------------------------------------------


def _uplo(UPLO):
    """'L' or 'U' from torch's UPLO argument, which is read case-insensitively ('l', 'u'
    too, as torch's std::toupper of the one character)."""
    if not isinstance(UPLO, str) or UPLO.upper() not in ("L", "U"):
        raise RuntimeError("Expected UPLO argument to be 'L' or 'U', but got %s" % (UPLO,))
    return UPLO.upper()


@_profiled
def eigvalsh(A, UPLO="L"):
    """The eigenvalues of (a batch of) Hermitian matrices in ascending order (real),
    as ``torch.linalg.eigvalsh``; only the lower (``UPLO='L'``) or upper (``'U'``)
    triangle is read. Differentiable: ``gA = V diag(g) V^H``.

    >>> pyad.linalg.eigvalsh(pyad.tensor([[2., 1.], [1., 2.]]))
    tensor([1., 3.])
    """
    UPLO = _uplo(UPLO)
    x = _var(A, "linalg.eigvalsh")
    if x.dtype.kind not in "fc" or x.dtype.itemsize < 4:
        raise NotImplementedError("linalg.eigvalsh(): \"linalg_eigh_cpu\" not implemented for "
                                  "'%s'" % _tname(x.dtype))
    x = _matrix(x, "linalg.eigvalsh", square=True)
    if UPLO == "U":
        # the Hermitian matrix of the upper triangle is that of the lower triangle of A^H
        x = x.mH
    return eigh(x)[0]


eig_result = _collections.namedtuple("eig", ["eigenvalues", "eigenvectors"])


def _complex_of(dtype):
    return _np.dtype(_np.complex64) if _real_of(dtype) == _np.float32 else _np.dtype(
        _np.complex128)


class EigFunction(_Function):
    """``linalg.eig`` as a node, with torch's linalg_eig_backward:
    ``gA = V^{-H} (diag(gL) + (V^H gV - V^H V diag(re(V^H gV))) / E*) V^H``."""

    @staticmethod
    def forward(ctx, a):
        xp = _xp(a.data)
        cdtype = _complex_of(a.dtype)
        w, v = xp.linalg.eig(a.data)
        lam = _pyad.Variable(w.astype(cdtype, copy=False))
        vec = _pyad.Variable(v.astype(cdtype, copy=False))
        ctx.real_input = a.dtype.kind != "c"
        ctx.save_for_backward(lam, vec)
        # an unused output's gradient arrives as None (torch's undefined gradient)
        ctx.set_materialize_grads(False)
        return lam, vec

    @staticmethod
    def backward(ctx, gl, gv):
        lam, v = ctx.saved_tensors
        n = v.shape[-1]
        vh = _mH(v)
        eye = _eye_like(n, v.dtype)
        if gl is None and gv is None:
            return None
        if gl is None:
            gl = _pyad.zeros(tuple(lam.shape), dtype=lam.dtype)
        if gv is None:
            # torch's eigenvalues-only branch: no division by the eigenvalue gaps, so
            # repeated eigenvalues are fine
            ga = solve(vh, _pyad.diag_embed(gl) @ vh)
            return ga.real if ctx.real_input else ga
        vhgv = vh @ gv
        diag = vhgv.diagonal(0, -2, -1)
        im = diag.imag.detach().data
        if im.size and not _np.allclose(im, 0, rtol=1e-2, atol=1e-2):
            raise RuntimeError(
                "linalg_eig_backward(): The eigenvectors in the complex case are specified up "
                "to multiplication by e^{i phi}. The specified loss function depends on "
                "this quantity, so it is ill-defined.")
        ga = vhgv - vh @ (v * diag.real.to(v.dtype).unsqueeze(-2))
        lc = lam.conj()
        econj = lc.unsqueeze(-2) - lc.unsqueeze(-1) + eye
        ga = ga / econj
        ga = ga * (1 - eye) + _pyad.diag_embed(gl)
        ga = solve(vh, ga @ vh)
        if ctx.real_input:
            ga = ga.real
        return ga


@_profiled
def eig(A):
    """Eigenvalues and eigenvectors of (a batch of) square matrices, as
    ``torch.linalg.eig``: the named tuple ``(eigenvalues, eigenvectors)``, both complex
    (complex64 for float32/complex64 input, complex128 otherwise), each eigenvector of
    norm 1 (LAPACK's geev). Differentiable with torch's formula; a loss that depends on
    the arbitrary phase of the eigenvectors raises RuntimeError, as torch's.

    >>> pyad.linalg.eig(pyad.tensor([[2., 0.], [0., 3.]])).eigenvalues
    tensor([2.+0.j, 3.+0.j])
    """
    x = _matrix(_floating_input(A, "linalg.eig", "linalg_eig_out_cpu"), "linalg.eig",
                square=True)
    if x.numel() == 0:
        cd = _complex_of(x.dtype)
        # empty, in the graph as torch's
        return eig_result(_pyad.zeros(tuple(x.shape[:-1]), dtype=cd) + x.sum(-1) * 0,
                          _pyad.zeros(tuple(x.shape), dtype=cd) + x * 0)
    if not bool(_xp(x.data).isfinite(x.data).all()):
        # torch checks before LAPACK's geev (NumPy would raise its own LinAlgError)
        raise RuntimeError("linalg.eig(): input Variable should not contain infs or NaNs.")
    return eig_result(*EigFunction.apply(x))


@_profiled
def eigvals(A):
    """The eigenvalues of (a batch of) square matrices (complex), as
    ``torch.linalg.eigvals``; ``eig(A).eigenvalues``, with its gradient.

    >>> pyad.linalg.eigvals(pyad.tensor([[0., -1.], [1., 0.]]))
    tensor([0.+1.j, 0.-1.j])
    """
    x = _matrix(A, "linalg.eigvals", square=True)
    return eig(x).eigenvalues


# -- matrix exponential ----------------------------------------------------------------


_PADE13 = (64764752532480000., 32382376266240000., 7771770303897600., 1187353796428800.,
           129060195264000., 10559470521600., 670442572800., 33522128640., 1323241920.,
           40840800., 960960., 16380., 182., 1.)


def _expm_data(a):
    """exp of (a batch of) square matrices: scaling and squaring with the [13/13] Padé
    approximant (Higham 2005), computed in double precision."""
    xp = _xp(a)
    n = a.shape[-1]
    if a.size == 0:
        return a.copy()
    wide = _np.complex128 if a.dtype.kind == "c" else _np.float64
    m = a.reshape((-1, n, n)).astype(wide)
    norm1 = xp.abs(m).sum(axis=-2).max(axis=-1)
    with _np.errstate(divide="ignore", invalid="ignore"):
        s = xp.ceil(xp.log2(norm1 / 5.371920351148152))
    s = xp.where(xp.isfinite(s) & (s > 0), s, 0).astype(_np.int64)
    m = m / (2.0 ** s)[:, None, None]
    c = _PADE13
    eye = xp.eye(n, dtype=wide)
    m2 = m @ m
    m4 = m2 @ m2
    m6 = m4 @ m2
    u = m @ (m6 @ (c[13] * m6 + c[11] * m4 + c[9] * m2) + c[7] * m6 + c[5] * m4 + c[3] * m2
             + c[1] * eye)
    v = m6 @ (c[12] * m6 + c[10] * m4 + c[8] * m2) + c[6] * m6 + c[4] * m4 + c[2] * m2 \
        + c[0] * eye
    with _np.errstate(all="ignore"):
        try:
            r = xp.linalg.solve(v - u, v + u)
        except _np.linalg.LinAlgError:
            r = xp.full(m.shape, _np.nan, dtype=wide)
        for i in range(int(s.max()) if s.size else 0):
            r = xp.where((s > i)[:, None, None], r @ r, r)
    return r.reshape(a.shape).astype(a.dtype, copy=False)


class MatrixExpFunction(_Function):
    """``linalg.matrix_exp`` as a node; torch's backward: the upper-right block of
    ``exp([[A^H, G], [0, A^H]])``."""

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return _pyad.Variable(_expm_data(a.data))

    @staticmethod
    def backward(ctx, g):
        a, = ctx.saved_tensors
        n = a.shape[-1]
        ah = _mH(a)
        zeros = _pyad.zeros(tuple(a.shape), dtype=a.dtype)
        top = _pyad.cat([ah, g], -1)
        bottom = _pyad.cat([zeros, ah], -1)
        big = MatrixExpFunction.apply(_pyad.cat([top, bottom], -2))
        return big[..., :n, n:]


@_profiled
def matrix_exp(A):
    """The matrix exponential of (a batch of) square matrices, as
    ``torch.linalg.matrix_exp``. Differentiable (and twice) with torch's formula, the
    exponential of a block-triangular matrix.

    >>> pyad.linalg.matrix_exp(pyad.tensor([[0., 1.], [0., 0.]]))
    tensor([[1., 1.],
            [0., 1.]])
    """
    x = _matrix(A, "linalg.matrix_exp", square=True)
    return MatrixExpFunction.apply(x)


# -- multi_dot -------------------------------------------------------------------------


def _chain_order(dims):
    # the classic matrix-chain dynamic programme: split[i][j] for the product i..j
    n = len(dims) - 1
    cost = [[0] * n for _ in range(n)]
    split = [[0] * n for _ in range(n)]
    for length in range(1, n):
        for i in range(n - length):
            j = i + length
            cost[i][j] = None
            for k in range(i, j):
                c = cost[i][k] + cost[k + 1][j] + dims[i] * dims[k + 1] * dims[j + 1]
                if cost[i][j] is None or c < cost[i][j]:
                    cost[i][j], split[i][j] = c, k
    return split


@_profiled
def multi_dot(tensors):
    """The product of a chain of matrices in the cheapest order, as
    ``torch.linalg.multi_dot``: the first may be a 1-D row vector and the last a 1-D
    column vector (their dimension is then dropped from the result); the others are
    2-D. Differentiable (a composition of matmuls).

    >>> pyad.linalg.multi_dot([pyad.tensor([1., 2.]), pyad.eye(2), pyad.tensor([3., 4.])])
    tensor(11.)
    """
    what = "linalg.multi_dot"
    ts = [_var(t, "linalg.multi_dot") for t in tensors]
    if len(ts) < 2:
        raise RuntimeError("%s(): expected at least 2 tensors but got %d" % (what, len(ts)))
    first_1d, last_1d = ts[0].dim() == 1, ts[-1].dim() == 1
    for i, t in enumerate(ts):
        if i == 0 and t.dim() not in (1, 2):
            raise RuntimeError("%s(): the first tensor must be 1D or 2D but got %dD"
                               % (what, t.dim()))
        if i == len(ts) - 1 and t.dim() not in (1, 2):
            raise RuntimeError("%s(): the last tensor must be 1D or 2D but got %dD"
                               % (what, t.dim()))
        if 0 < i < len(ts) - 1 and t.dim() != 2:
            raise RuntimeError("%s(): tensor %d must be 2D but got %dD" % (what, i, t.dim()))
        if t.dtype != ts[0].dtype:
            raise RuntimeError("%s(): all tensors must have be the same dtype but tensor 0 is "
                               "%s and tensor %d %s" % (what, ts[0].dtype, i, t.dtype))
    mats = list(ts)
    if first_1d:
        mats[0] = mats[0].unsqueeze(0)
    if last_1d:
        mats[-1] = mats[-1].unsqueeze(-1)
    for i in range(len(mats) - 1):
        if mats[i].shape[-1] != mats[i + 1].shape[-2]:
            raise RuntimeError("%s(): tensors %d and %d with shapes %s and %s cannot be "
                               "multiplied" % (what, i, i + 1, list(mats[i].shape),
                                               list(mats[i + 1].shape)))
    dims = [m.shape[0] for m in mats] + [mats[-1].shape[1]]
    split = _chain_order(dims)

    def product(i, j):
        if i == j:
            return mats[i]
        k = split[i][j]
        return product(i, k) @ product(k + 1, j)

    out = product(0, len(mats) - 1)
    if first_1d and last_1d:
        return out.reshape(())
    if first_1d:
        return out.squeeze(0)
    if last_1d:
        return out.squeeze(-1)
    return out


# -- LU --------------------------------------------------------------------------------


def _lu_data(a):
    """LAPACK getrf on (a batch of) m x n matrices: the packed factors, the 1-based
    row interchanges (int32) and info (the first zero pivot, 1-based; 0 if none)."""
    xp = _xp(a)
    m, n = a.shape[-2], a.shape[-1]
    k = min(m, n)
    batch = a.shape[:-2]
    if a.size == 0:
        return (a.copy(), xp.zeros(batch + (k,), dtype=_np.int32),
                xp.zeros(batch, dtype=_np.int32))
    lu_ = a.reshape((-1, m, n)).copy()
    nb = lu_.shape[0]
    piv = xp.zeros((nb, k), dtype=_np.int32)
    info = xp.zeros((nb,), dtype=_np.int32)
    rows = xp.arange(nb)
    with _np.errstate(all="ignore"):
        for j in range(k):
            col = lu_[:, j:, j]
            mag = (xp.abs(col.real) + xp.abs(col.imag)) if lu_.dtype.kind == "c" else \
                xp.abs(col)
            p = j + xp.argmax(mag, axis=1)
            piv[:, j] = p + 1
            row_j = lu_[rows, j, :].copy()
            lu_[rows, j, :] = lu_[rows, p, :]
            lu_[rows, p, :] = row_j
            pivot = lu_[:, j, j]
            zero = pivot == 0
            info = xp.where((info == 0) & zero, j + 1, info).astype(_np.int32)
            safe = xp.where(zero, 1, pivot)
            below = lu_[:, j + 1:, j]
            lu_[:, j + 1:, j] = xp.where(zero[:, None], below, below / safe[:, None])
            lu_[:, j + 1:, j + 1:] -= lu_[:, j + 1:, j:j + 1] * lu_[:, j:j + 1, j + 1:]
    return (lu_.reshape(a.shape), piv.reshape(batch + (k,)), info.reshape(batch))


def _perm_matrix(piv, m, dtype):
    """P with A = P L U from LAPACK's 1-based row interchanges."""
    xp = _xp(piv)
    batch = piv.shape[:-1]
    k = piv.shape[-1]
    if piv.size == 0 or m == 0:
        return xp.broadcast_to(xp.eye(m, dtype=dtype), batch + (m, m)).copy()
    p = piv.reshape((-1, k)).astype(_np.int64) - 1
    nb = p.shape[0]
    perm = xp.tile(xp.arange(m), (nb, 1))
    rows = xp.arange(nb)
    for i in range(k):
        pi = perm[rows, i].copy()
        perm[rows, i] = perm[rows, p[:, i]]
        perm[rows, p[:, i]] = pi
    out = xp.zeros((nb, m, m), dtype=dtype)
    # (P^T A)[i] = A[perm[i]]: P[perm[i], i] = 1
    out[rows[:, None], perm, xp.arange(m)[None, :]] = 1
    return out.reshape(batch + (m, m))


def _unpack_data(lu_, m, n):
    xp = _xp(lu_)
    k = min(m, n)
    lower = xp.tril(lu_[..., :, :k], -1) + xp.eye(m, k, dtype=lu_.dtype)
    upper = xp.triu(lu_[..., :k, :])
    return lower, upper


def _lu_backward(gl, gu, p, lower, upper):
    # torch's linalg_lu_backward
    m, n = lower.shape[-2], upper.shape[-1]
    k = min(m, n)

    def st(a, b, up, left, unit=False):
        return solve_triangular(a, b, upper=up, left=left, unitriangular=unit)

    if m == n:
        ga = (_mH(lower) @ gl).tril(-1) + (gu @ _mH(upper)).triu()
        ga = st(_mH(upper), ga, False, False)
        ga = st(_mH(lower), ga, True, True, True)
        return p @ ga
    if m < n:
        u1 = upper[..., :, :k]
        ga = _mH(lower) @ gl - gu.triu() @ _mH(upper)
        ga = st(_mH(u1), ga.tril(-1), False, False)
        ga = _pyad.cat([ga + gu[..., :, :k].triu(), gu[..., :, k:]], -1)
        ga = st(_mH(lower), ga, True, True, True)
        return p @ ga
    l1 = lower[..., :k, :]
    ga = gu @ _mH(upper) - _mH(lower) @ gl.tril(-1)
    ga = st(_mH(l1), ga.triu(), True, True, True)
    ga = _pyad.cat([ga + gl[..., :k, :].tril(-1), gl[..., k:, :]], -2)
    ga = st(_mH(upper), ga, False, False)
    return p @ ga


class LUFunction(_Function):
    """``linalg.lu`` as a node: (P, L, U) from LAPACK-style partial pivoting; P has no
    gradient; torch's linalg_lu_backward for L and U."""

    @staticmethod
    def forward(ctx, a):
        m, n = a.shape[-2], a.shape[-1]
        lu_, piv, info = _lu_data(a.data)
        lower, upper = _unpack_data(lu_, m, n)
        p = _pyad.Variable(_perm_matrix(piv, m, a.dtype))
        lo, up = _pyad.Variable(lower), _pyad.Variable(upper)
        ctx.mark_non_differentiable(p)
        ctx.save_for_backward(p, lo, up)
        ctx.extra = (lu_, piv, info)
        return p, lo, up

    @staticmethod
    def backward(ctx, gp, gl, gu):
        p, lo, up = ctx.saved_tensors
        return _lu_backward(gl, gu, p, lo, up)


lu_result = _collections.namedtuple("lu", ["P", "L", "U"])
lu_factor_result = _collections.namedtuple("lu_factor", ["LU", "pivots"])
lu_factor_ex_result = _collections.namedtuple("lu_factor_ex", ["LU", "pivots", "info"])


def _lu_input(A, what, pivot):
    x = _var(A, what)
    if x.dim() >= 2 and (x.dtype.kind not in "fc" or x.dtype.itemsize < 4):
        # torch's LU kernel is dispatched on the dtype: NotImplementedError
        raise NotImplementedError('%s(): "lu_cpu" not implemented for \'%s\''
                                  % (what, _tname(x.dtype)))
    x = _matrix(x, what)
    if not pivot:
        raise RuntimeError("%s(): LU without pivoting is not implemented on the CPU" % what)
    return x


@_profiled
def lu(A, *, pivot=True):
    """The LU decomposition with partial pivoting ``A = P L U`` of (a batch of) m x n
    matrices, as ``torch.linalg.lu``: the named tuple ``(P, L, U)`` with ``L`` m x k unit
    lower triangular and ``U`` k x n upper triangular, ``k = min(m, n)``. ``L`` and
    ``U`` are differentiable with torch's formulas (square, wide and tall); ``P`` is
    not. ``pivot=False`` raises RuntimeError, as torch on the CPU.

    >>> P, L, U = pyad.linalg.lu(pyad.tensor([[1., 2.], [3., 4.]]))
    >>> U
    tensor([[3.0000, 4.0000],
            [0.0000, 0.6667]])
    """
    x = _lu_input(A, "linalg.lu", pivot)
    return lu_result(*LUFunction.apply(x))


def _lu_factor(A, what, pivot):
    x = _lu_input(A, what, pivot)
    m, n = x.shape[-2], x.shape[-1]
    k = min(m, n)
    p, lower, upper = LUFunction.apply(x)
    node = lower.grad_fn
    if node is not None:
        _, piv, info = node.extra
    else:
        _, piv, info = _lu_data(x.data)
    # the packed form: the strict lower triangle of L with U
    lo = lower.tril(-1)
    if m > k:
        packed = lo + _pyad.cat([upper, _pyad.zeros((m - k, n), dtype=x.dtype).expand(
            *(tuple(x.shape[:-2]) + (m - k, n)))], -2)
    elif n > k:
        packed = _pyad.cat([lo, _pyad.zeros((m, n - k), dtype=x.dtype).expand(
            *(tuple(x.shape[:-2]) + (m, n - k)))], -1) + upper
    else:
        packed = lo + upper
    return packed, _pyad.Variable(piv), _pyad.Variable(info)


@_profiled
def lu_factor(A, *, pivot=True):
    """The LU decomposition in LAPACK's packed form, as ``torch.linalg.lu_factor``: the
    named tuple ``(LU, pivots)``, ``LU`` holding ``L`` below the diagonal (its unit
    diagonal implied) and ``U`` on and above it, ``pivots`` the 1-based row
    interchanges (int32). ``LU`` is differentiable with torch's formula. Use with
    :func:`lu_solve`. A singular input (a zero on ``U``'s diagonal) raises RuntimeError,
    as torch's (:func:`lu_factor_ex` reports it in ``info`` instead).

    >>> LU, pivots = pyad.linalg.lu_factor(pyad.tensor([[1., 2.], [3., 4.]]))
    >>> pivots
    tensor([2, 2], dtype=int32)
    """
    LU, piv, info = _lu_factor(A, "linalg.lu_factor", pivot)
    bad = _np.asarray(_pyad.get_array_module(info.data).asnumpy(info.data)
                      if hasattr(_pyad.get_array_module(info.data), "asnumpy") else info.data)
    if (bad != 0).any():
        # torch's lu_factor checks its info (lu_factor_ex does not)
        flat = bad.reshape(-1)
        first = int(_np.flatnonzero(flat)[0])
        where = "(Batch element %d): " % first if bad.ndim else ""
        raise RuntimeError("linalg.lu_factor(): %sU[%d,%d] is zero and using it on "
                           "lu_solve would result in a division by zero. If you still want "
                           "to perform the factorization, consider calling linalg.lu(A, "
                           "pivot) or linalg.lu_factor_ex(A, pivot)"
                           % (where, flat[first], flat[first]))
    return lu_factor_result(LU, piv)


@_profiled
def lu_factor_ex(A, *, pivot=True, check_errors=False):
    """:func:`lu_factor` with ``info`` (int32, batch-shaped): 0 where the factorization
    succeeded, else the 1-based index of the first zero pivot of ``U``, as
    ``torch.linalg.lu_factor_ex``; ``check_errors=True`` raises LinAlgError instead.

    >>> pyad.linalg.lu_factor_ex(pyad.zeros(2, 2)).info
    tensor(1, dtype=int32)
    """
    LU, piv, info = _lu_factor(A, "linalg.lu_factor_ex", pivot)
    if check_errors and bool((info.data != 0).any()):
        raise LinAlgError("linalg.lu_factor_ex(): The factorization could not be completed "
                          "because the input is singular (U has a zero diagonal element).")
    return lu_factor_ex_result(LU, piv, info)


@_profiled
def lu_solve(LU, pivots, B, *, left=True, adjoint=False):
    """The solution of ``A X = B`` from the :func:`lu_factor` of ``A``, as
    ``torch.linalg.lu_solve``: ``X A = B`` when ``left=False``, ``A^H`` in place of
    ``A`` when ``adjoint``. Batch dimensions broadcast. Differentiable w.r.t. ``LU``
    and ``B`` (triangular solves on the unpacked factors).

    >>> A = pyad.tensor([[1., 2.], [3., 4.]])
    >>> pyad.linalg.lu_solve(*pyad.linalg.lu_factor(A), pyad.tensor([[5.], [11.]]))
    tensor([[1.],
            [2.]])
    """
    what = "linalg.lu_solve"
    f = _var(LU)
    b = _var(B)
    piv = _var(pivots)
    if b.dim() < 2:
        raise RuntimeError("%s(): The input tensor B must have at least 2 dimensions." % what)
    f = _matrix(f, "torch.linalg.lu_solve", square=True)
    _same_dtype(f, b, what, ("LU", "B"))
    if piv.dtype != _np.int32:
        raise RuntimeError("%s(): pivots should be a Tensor of type int32, got %s"
                           % (what, _tname(piv.dtype)))
    n = f.shape[-1]
    if tuple(piv.shape) != tuple(f.shape[:-1]):
        raise RuntimeError("%s(): Expected LU.shape[:-1] and pivots.shape to be the same, "
                           "but got pivots with shape %s instead" % (what, list(piv.shape)))
    if left and b.shape[-2] != n:
        raise RuntimeError("%s(): Incompatible shapes of A and B for the equation AX = B "
                           "(%dx%d and %dx%d)" % (what, n, n, b.shape[-2], b.shape[-1]))
    if not left and b.shape[-1] != n:
        raise RuntimeError("%s(): Incompatible shapes of A and B for the equation XA = B "
                           "(%dx%d and %dx%d)" % (what, n, n, b.shape[-2], b.shape[-1]))
    p = _pyad.Variable(_perm_matrix(piv.data, n, f.dtype))
    lower = f.tril(-1) + _eye_like(n, f.dtype)
    upper = f.triu()

    def st(a, rhs, up, left_, unit=False):
        return solve_triangular(a, rhs, upper=up, left=left_, unitriangular=unit)

    if left and not adjoint:        # X = U^-1 L^-1 P^T B
        return st(upper, st(lower, p.mT @ b, False, True, True), True, True)
    if left:                        # A^H X = B: X = P L^-H U^-H B
        return p @ st(_mH(lower), st(_mH(upper), b, False, True), True, True, True)
    if not adjoint:                 # X A = B: X = B U^-1 L^-1 P^T
        return st(lower, st(upper, b, True, False), False, False, True) @ p.mT
    # X A^H = B: X = B P L^-H U^-H
    return st(_mH(upper), st(_mH(lower), b @ p, True, False, True), False, False)


# -- rank, condition number, small helpers ---------------------------------------------


@_profiled
def matrix_rank(A, tol=None, hermitian=False, *, atol=None, rtol=None):
    """The numerical rank of (a batch of) matrices, as ``torch.linalg.matrix_rank``:
    the number of singular values (absolute eigenvalues with ``hermitian``) above
    ``max(atol, rtol * largest)``, ``rtol`` by default ``eps * max(m, n)`` (0 when only a
    positive ``atol`` is given); ``tol`` is the older name of ``atol``. int64, no
    gradient.

    >>> pyad.linalg.matrix_rank(pyad.tensor([[1., 2.], [2., 4.]]))
    tensor(1)
    """
    what = "linalg.matrix_rank"
    x = _var(A)
    if x.dim() < 2:
        raise RuntimeError("%s(): The input tensor input must have at least 2 dimensions."
                           % what)
    if x.dtype.kind not in "fc" or x.dtype.itemsize < (4 if x.dtype.kind == "f" else 8):
        raise RuntimeError("%s(): This function doesn't handle types other than float and "
                           "double" % what)
    if tol is not None:
        if atol is not None or rtol is not None:
            raise RuntimeError("%s(): pass either tol or atol/rtol, not both" % what)
        atol, rtol = tol, 0.0
    atol_, rtol_ = _atol_rtol(x, atol, rtol, what)
    xp = _xp(x.data)
    if x.numel() == 0:
        return _pyad.Variable(xp.zeros(tuple(x.shape[:-2]), dtype=_np.int64))
    if hermitian:
        s = xp.abs(xp.linalg.eigvalsh(x.data))
    else:
        s = xp.linalg.svd(x.data, compute_uv=False)
    tol_ = xp.maximum(xp.asarray(atol_)[..., None],
                      xp.asarray(rtol_)[..., None] * s.max(-1, keepdims=True))
    return _pyad.Variable((s > tol_).sum(-1).astype(_np.int64))


@_profiled
def cond(A, p=None):
    """The condition number of (a batch of) matrices in the matrix norm ``p``, as
    ``torch.linalg.cond``: ``None``/``2`` (largest over smallest singular value) and
    ``-2`` (the reverse) for any m x n; for square matrices ``'nuc'`` (``sum(s) *
    sum(1 / s)`` of the singular values) and ``'fro'``, ``1``, ``-1``, ``inf``, ``-inf``
    as ``norm(A, p) * norm(inv(A), p)`` (inf where A is singular). Real; differentiable
    (a composition of svdvals / inv / matrix_norm; torch 2.13 fails to differentiate
    the ``inv`` forms).

    >>> pyad.linalg.cond(pyad.tensor([[1., 0.], [0., 4.]]))
    tensor(4.)
    """
    x = _var(A)
    if isinstance(p, str):
        if p not in ("fro", "nuc"):
            raise RuntimeError("linalg.cond got an invalid norm type: %s" % p)
    elif p is not None and p not in (1, -1, 2, -2, _math.inf, -_math.inf):
        raise RuntimeError("linalg.cond got an invalid norm type: %s" % (p,))
    if p is None or (not isinstance(p, str) and abs(p) == 2):
        x = _matrix(x, "linalg.cond")
        rdtype = _real_of(x.dtype)
        if x.numel() == 0:
            return _pyad.zeros(tuple(x.shape[:-2]), dtype=rdtype)
        s = svdvals(x)
        if p == -2:
            return s[..., -1] / s[..., 0]
        return s[..., 0] / s[..., -1]
    label = p if isinstance(p, str) else (
        "%d" % p if abs(p) == 1 else ("inf" if p > 0 else "-inf"))
    x = _matrix(x, "linalg.cond(ord=%s)" % label, square=True)
    rdtype = _real_of(x.dtype)
    if x.numel() == 0:
        return _pyad.zeros(tuple(x.shape[:-2]), dtype=rdtype)
    if p == "nuc":
        # torch: from the singular values, sum(s) * sum(1 / s)
        s = svdvals(x)
        with _np.errstate(divide="ignore", invalid="ignore"):
            return s.sum(-1) * (1 / s).sum(-1)
    inverse, info = inv_ex(x)
    singular = _pyad.Variable(info.data > 0)
    inverse = _pyad.where(singular.unsqueeze(-1).unsqueeze(-1), 0.0, inverse)
    return _pyad.where(singular, _math.inf, matrix_norm(x, p) * matrix_norm(inverse, p))


@_profiled
def vecdot(x, y, *, dim=-1):
    """The dot product ``sum(conj(x) * y)`` along ``dim`` of two broadcastable tensors,
    as ``torch.linalg.vecdot``. Differentiable.

    >>> pyad.linalg.vecdot(pyad.tensor([1., 2.]), pyad.tensor([3., 4.]))
    tensor(11.)
    """
    what = "linalg.vecdot"
    x, y = _var(x), _var(y)
    if x.dtype != y.dtype:
        raise RuntimeError("%s(): Expected x and y to have the same dtype, but found x of type "
                           "%s and y of type %s instead" % (what, _tname(x.dtype),
                                                            _tname(y.dtype)))
    if x.dtype.kind not in "fc":
        raise RuntimeError("%s(): Expected a floating point or complex tensor as input. Got %s"
                           % (what, _tname(x.dtype)))
    return (x.conj() * y).sum(dim)


@_profiled
def diagonal(A, *, offset=0, dim1=-2, dim2=-1):
    """The diagonals of (a batch of) matrices, as ``torch.linalg.diagonal``:
    :func:`pyad.diagonal` with the last two dims as defaults.

    >>> pyad.linalg.diagonal(pyad.tensor([[1., 2.], [3., 4.]]))
    tensor([1., 4.])
    """
    return _var(A).diagonal(offset, dim1, dim2)


@_profiled
def vander(x, *, N=None):
    """The Vandermonde matrix ``[x^0, x^1, ..., x^(N-1)]`` (powers along a new last
    dim) of a (batch of) vectors, as ``torch.linalg.vander``; ``N`` defaults to
    ``x.shape[-1]``; integers stay int64. Differentiable (torch's cumprod form).

    >>> pyad.linalg.vander(pyad.tensor([1., 2., 3.]))
    tensor([[1., 1., 1.],
            [1., 2., 4.],
            [1., 3., 9.]])
    """
    x = _var(x)
    if x.dtype == _np.bool_:
        raise RuntimeError("linalg.vander supports floating point, complex, and integer "
                           "tensors, but got Bool")
    if x.dim() == 0:
        raise RuntimeError("N must be greater than 1.")
    n = x.shape[-1] if N is None else _operator.index(N)
    if n <= 1:
        raise RuntimeError("N must be greater than 1.")
    if x.dtype.kind in "iu":
        x = x.to(_np.int64)
    ones = _pyad.ones(tuple(x.shape) + (1,), dtype=x.dtype)
    powers = x.unsqueeze(-1).expand(*(tuple(x.shape) + (n - 1,))).cumprod(-1)
    return _pyad.cat([ones, powers], -1)


# -- the _ex variants ------------------------------------------------------------------


inv_ex_result = _collections.namedtuple("inv_ex", ["inverse", "info"])
solve_ex_result = _collections.namedtuple("solve_ex", ["result", "info"])
cholesky_ex_result = _collections.namedtuple("cholesky_ex", ["L", "info"])


def _lu_solve_data(a, b):
    """``A^{-1} B`` from the LU factors, with inf/nan (no error) where A is singular."""
    n = a.shape[-1]
    lu_, piv, _ = _lu_data(a)
    lower, upper = _unpack_data(lu_, n, n)
    p = _perm_matrix(piv, n, a.dtype)
    y = _trsolve_data(lower, _xp(a).matmul(_xp(a).swapaxes(p, -1, -2), b), False, True)
    return _trsolve_data(upper, y, True, False)


class LUSolveFunction(_Function):
    """``A^{-1} B`` by an LU solve that does not refuse a singular A (inf/nan there, as
    LAPACK's getrs), with torch's solve backward ``gB = A^{-H} g``, ``gA = -gB X^H``:
    the outputs of ``inv_ex``/``solve_ex`` for singular matrices."""

    @staticmethod
    def forward(ctx, a, b):
        x = _pyad.Variable(_lu_solve_data(a.data, b.data))
        ctx.save_for_backward(a, x)
        ctx.shapes = (tuple(a.shape), tuple(b.shape))
        return x

    @staticmethod
    def backward(ctx, g):
        a, x = ctx.saved_tensors
        gb = LUSolveFunction.apply(_mH(a), g)
        ga = _reduce_to(-(gb @ _mH(x)), ctx.shapes[0]) if ctx.needs_input_grad[0] else None
        return ga, _reduce_to(gb, ctx.shapes[1]) if ctx.needs_input_grad[1] else None


@_profiled
def inv_ex(A, *, check_errors=False):
    """The inverse with ``info`` (int32, batch-shaped: 0, or the 1-based index of the
    first zero pivot of the LU factorization where the matrix is singular), as
    ``torch.linalg.inv_ex``; ``check_errors=True`` raises LinAlgError for a singular
    matrix. Differentiable as :func:`inv` where every matrix is invertible.

    >>> pyad.linalg.inv_ex(pyad.tensor([[2., 0.], [0., 0.]])).info
    tensor(2, dtype=int32)
    """
    what = "linalg.inv_ex"
    x = _matrix(A, what, square=True)
    xp = _xp(x.data)
    info = _lu_data(x.data)[2] if x.numel() else xp.zeros(tuple(x.shape[:-2]), _np.int32)
    if not bool((info != 0).any()):
        return inv_ex_result(inv(x), _pyad.Variable(info))
    if check_errors:
        flat = _host(info).reshape(-1)
        index = int(_np.flatnonzero(flat)[0])
        where = "(Batch element %d): " % index if x.dim() > 2 else ""
        raise LinAlgError("%s(): %sThe diagonal element %d is zero, the inversion could not be "
                          "completed because the input matrix is singular."
                          % (what, where, int(flat[index])))
    n = x.shape[-1]
    eye = _pyad.Variable(xp.broadcast_to(xp.eye(n, dtype=x.dtype), x.shape).copy())
    return inv_ex_result(LUSolveFunction.apply(x, eye), _pyad.Variable(info))


@_profiled
def solve_ex(A, B, *, left=True, check_errors=False):
    """:func:`solve` with ``info`` (as :func:`inv_ex`), as ``torch.linalg.solve_ex``;
    ``left=False`` solves ``X A = B``. Differentiable as :func:`solve` where every
    matrix is invertible.

    >>> pyad.linalg.solve_ex(pyad.tensor([[2., 0.], [0., 4.]]), pyad.tensor([2., 4.]))
    solve_ex(result=tensor([1., 1.]), info=tensor(0, dtype=int32))
    """
    what = "linalg.solve_ex"
    a = _matrix(A, what, square=True)
    b = _var(B)
    if a.dtype != b.dtype:
        raise RuntimeError("%s(): Expected A and B to have the same dtype, but found A of type "
                           "%s and B of type %s instead" % (what, _tname(a.dtype),
                                                            _tname(b.dtype)))
    xp = _xp(a.data)
    info = _lu_data(a.data)[2] if a.numel() else xp.zeros(tuple(a.shape[:-2]), _np.int32)
    singular = bool((info != 0).any())
    if singular and check_errors:
        flat = _host(info).reshape(-1)
        where = ("(Batch element %d): " % int(_np.flatnonzero(flat)[0])
                 if a.dim() > 2 else "")
        raise LinAlgError("%s(): %sThe solver failed because the input matrix is singular."
                          % (what, where))
    if not left:
        # X A = B  <=>  A^T X^T = B^T
        if b.dim() == 1:
            raise RuntimeError("%s(): B must have at least 2 dimensions for left=False" % what)
        out = solve_ex(a.mT, b.mT, check_errors=check_errors)
        return solve_ex_result(out.result.mT, out.info)
    if not singular:
        try:
            result = solve(a, b)
        except RuntimeError as exc:           # (a shape error, named after this function)
            raise RuntimeError(str(exc).replace("solve(): ", what + "(): ", 1)) from None
        return solve_ex_result(result, _pyad.Variable(info))
    vector = b.dim() == 1 or (b.dim() == a.dim() - 1 and tuple(b.shape) == tuple(a.shape[:-1]))
    out = LUSolveFunction.apply(a, b.unsqueeze(-1) if vector else b)
    return solve_ex_result(out.squeeze(-1) if vector else out, _pyad.Variable(info))


def _cholesky_info(a):
    """The 1-based order of the first leading minor that is not positive-definite
    (0 if none), for each matrix, and the lower factor as LAPACK's potf2 leaves it:
    the columns before the failing one factored, the failing pivot's value on the
    diagonal, the rest of the lower triangle of ``a`` untouched."""
    xp = _xp(a)
    n = a.shape[-1]
    m = a.reshape((-1, n, n))
    lower = xp.tril(m).copy()
    info = xp.zeros((m.shape[0],), dtype=_np.int32)
    with _np.errstate(all="ignore"):
        for j in range(n):
            live = info == 0
            s = (m[:, j, j] - (lower[:, j, :j] * lower[:, j, :j].conj()).sum(-1)).real
            bad = live & ~(s > 0)
            info = xp.where(bad, j + 1, info).astype(_np.int32)
            ok = live & ~bad
            d = xp.sqrt(xp.where(ok, s, 1))
            lower[:, j, j] = xp.where(ok, d, xp.where(bad, s, lower[:, j, j]))
            col = m[:, j + 1:, j] - (lower[:, j + 1:, :j]
                                     @ lower[:, j, :j].conj()[..., None])[..., 0]
            lower[:, j + 1:, j] = xp.where(ok[:, None], col / d[:, None], lower[:, j + 1:, j])
    return lower.reshape(a.shape), info.reshape(a.shape[:-2])


@_profiled
def cholesky_ex(A, *, upper=False, check_errors=False):
    """:func:`cholesky` with ``info`` (int32, batch-shaped: 0, or the order of the first
    leading minor that is not positive-definite), as ``torch.linalg.cholesky_ex``;
    ``check_errors=True`` raises LinAlgError instead. Differentiable as
    :func:`cholesky` where every matrix is positive-definite.

    >>> pyad.linalg.cholesky_ex(pyad.tensor([[4., 2.], [2., -1.]])).info
    tensor(2, dtype=int32)
    """
    what = "linalg.cholesky_ex"
    x = _matrix(_floating_input(A, what, "cholesky_cpu"), what, square=True)
    xp = _xp(x.data)
    if x.numel() == 0:
        return cholesky_ex_result(cholesky(x, upper=upper),
                                  _pyad.Variable(xp.zeros(tuple(x.shape[:-2]), _np.int32)))
    partial, info = _cholesky_info(x.data)
    if not bool((info != 0).any()):
        return cholesky_ex_result(cholesky(x, upper=upper), _pyad.Variable(info))
    if check_errors:
        flat = _host(info).reshape(-1)
        index = int(_np.flatnonzero(flat)[0])
        where = "(Batch element %d): " % index if x.dim() > 2 else ""
        raise LinAlgError("%s(): %sThe factorization could not be completed because the input "
                          "is not positive-definite (the leading minor of order %d is not "
                          "positive-definite)." % (what, where, int(flat[index])))
    data = xp.conj(xp.swapaxes(partial, -1, -2)) if upper else partial
    return cholesky_ex_result(_pyad.Variable(data), _pyad.Variable(info))


# -- tensor inverse and solve ----------------------------------------------------------


@_profiled
def tensorinv(A, ind=2):
    """The inverse of a tensor in the ``tensordot`` sense, as ``torch.linalg.tensorinv``:
    with ``A`` of shape ``s[:ind] + s[ind:]`` (equal products), the result has shape
    ``s[ind:] + s[:ind]``. A singular A raises LinAlgError. Differentiable.

    >>> pyad.linalg.tensorinv(2 * pyad.eye(4).reshape(4, 2, 2), ind=1).shape
    (2, 2, 4)
    """
    x = _var(A)
    ind = _operator.index(ind)
    if ind <= 0:
        raise RuntimeError("Expected a strictly positive integer for 'ind', but got %d" % ind)
    front, back = tuple(x.shape[:ind]), tuple(x.shape[ind:])
    p_front, p_back = int(_np.prod(front)), int(_np.prod(back))
    if p_front != p_back:
        raise RuntimeError("linalg.tensorinv(): Expected self to satisfy the requirement "
                           "prod(self.shape[ind:]) "
                           "== prod(self.shape[:ind]), but got %d != %d" % (p_back, p_front))
    m = _matrix(x.reshape(p_back, p_back), "linalg.tensorinv", square=True)
    result, info = inv_ex(m)
    if int(info.data) != 0:
        raise LinAlgError("linalg.tensorinv(): The diagonal element %d is zero, the inversion "
                          "could not be completed because the input matrix is singular."
                          % int(info.data))
    return result.reshape(*(back + front))


@_profiled
def tensorsolve(A, B, dims=None):
    """The ``X`` with ``tensordot(A, X, X.ndim) = B``, as ``torch.linalg.tensorsolve``;
    ``dims`` moves those dims of ``A`` to the end first. Differentiable.

    >>> pyad.linalg.tensorsolve(pyad.eye(6).reshape(2, 3, 6), pyad.ones(2, 3)).shape
    (6,)
    """
    a, b = _var(A), _var(B)
    nd = a.dim()
    if dims is not None:
        dims = [dims] if isinstance(dims, int) else list(dims)
        a = a.movedim(dims, list(range(nd - len(dims), nd)))
    result_shape = tuple(a.shape[b.dim():])
    prod_res = int(_np.prod(result_shape))
    prod_b = int(_np.prod(tuple(b.shape)))
    if prod_res != prod_b:
        raise RuntimeError("linalg.tensorsolve(): Expected self to satisfy the requirement "
                           "prod(self.shape[other.ndim"
                           ":]) == prod(self.shape[:other.ndim]), but got %d != %d"
                           % (prod_res, prod_b))
    m = _matrix(a.reshape(prod_res, prod_res), "linalg.tensorsolve", square=True)
    _, info = solve_ex(m, b.reshape(-1))
    if int(info.data) != 0:
        raise LinAlgError("linalg.solve(): The solver failed because the input matrix is "
                          "singular.")
    return solve(m, b.reshape(-1)).reshape(*result_shape)


@_profiled
def householder_product(A, tau):
    """The first n columns of the product of Householder matrices
    ``H_i = I - tau_i v_i v_i^H`` (``v_i``: column i of ``A`` below the diagonal, 1 on
    it), as ``torch.linalg.householder_product`` (LAPACK's orgqr). Differentiable (a
    composition of matmuls).

    >>> pyad.linalg.householder_product(pyad.tensor([[1.], [0.]]), pyad.tensor([2.]))
    tensor([[-1.],
            [ 0.]])
    """
    what = "linalg.householder_product"
    a, t = _var(A), _var(tau)
    if a.dim() < 2:
        raise RuntimeError("%s(): input must have at least 2 dimensions." % what)
    if t.dim() < 1:
        raise RuntimeError("%s(): tau must have at least 1 dimension." % what)
    m, n, k = a.shape[-2], a.shape[-1], t.shape[-1]
    if m < n:
        raise RuntimeError("%s(): input.shape[-2] must be greater than or equal to "
                           "input.shape[-1]" % what)
    if n < k:
        raise RuntimeError("%s(): input.shape[-1] must be greater than or equal to "
                           "tau.shape[-1]" % what)
    if t.dim() != a.dim() - 1 or tuple(t.shape[:-1]) != tuple(a.shape[:-2]):
        raise RuntimeError("%s(): Expected batch dimensions of tau to be equal to "
                           "input.shape[:-2], but got %s" % (what, list(t.shape[:-1])))
    if a.dtype != t.dtype:
        raise RuntimeError("%s(): tau dtype %s does not match input dtype %s"
                           % (what, _tname(t.dtype), _tname(a.dtype)))
    if k == 0:
        # the identity's first n columns; zero gradients (torch's output requires grad)
        eye = _pyad.eye(m, n, dtype=a.dtype).expand(*(tuple(a.shape[:-2]) + (m, n)))
        return eye + a * 0 + t.sum(-1)[..., None, None] * 0
    q = _eye_like(m, a.dtype).expand(*(tuple(a.shape[:-2]) + (m, m)))
    mask = _np.tril(_np.ones((m, n)), -1).astype(a.dtype)
    v_all = a * _pyad.Variable(_xp(a.data).asarray(mask)) + _pyad.eye(m, n, dtype=a.dtype)
    for i in range(k):
        v = v_all[..., :, i:i + 1]
        q = q - (q @ v) * t[..., i:i + 1].unsqueeze(-1) @ _mH(v)
    return q[..., :, :n]


# -- torch's signatures and dtype checks on the engine's decompositions -----------------
#
# The engine's det/slogdet/inv/svd/svdvals/cholesky/matrix_power raise TypeError for an
# integer input where torch raises RuntimeError; its qr has no ``mode``, its eigh no
# ``UPLO``, its solve no ``left``. These wrappers add them; the math (and its gradient)
# stays the engine's.

_engine_qr, _engine_eigh, _engine_solve = _engine.qr, _engine.eigh, _engine.solve


def _floating_input(A, what, kernel=None):
    """``A`` as a Variable; torch's errors for an integer or bool input (RuntimeError)
    and a float16 one: NotImplementedError naming the LAPACK ``kernel`` torch dispatches
    to, or, without one, RuntimeError ("Low precision dtypes not supported")."""
    x = _var(A, what)
    if x.dtype.kind not in "fc":
        raise RuntimeError("%s(): Expected a floating point or complex tensor as input. Got %s"
                           % (what, _tname(x.dtype)))
    if x.dtype.itemsize < 4:
        if kernel is None:
            raise RuntimeError("%s(): Low precision dtypes not supported. Got %s"
                               % (what, _tname(x.dtype)))
        raise NotImplementedError('%s(): "%s" not implemented for \'%s\''
                                  % (what, kernel, _tname(x.dtype)))
    return x


def _wraps(engine_fn):
    """Name and document a wrapper as the engine op it calls (its own signature stays
    visible: no ``__wrapped__``); ``_engine_op`` is the op (tests/test_op_registry.py)."""
    def deco(fn):
        fn.__name__ = fn.__qualname__ = engine_fn.__name__
        fn.__doc__ = fn.__doc__ or engine_fn.__doc__
        fn._engine_op = engine_fn
        return fn
    return deco


def _dtype_checked(engine_fn, torch_name, kernel=None):
    @_wraps(engine_fn)
    def fn(A):
        return engine_fn(_floating_input(A, torch_name, kernel))
    return fn


def _check_driver(driver, x):
    if driver is not None and _xp(x.data) is _np:
        raise RuntimeError("linalg.svd(): keyword argument `driver=` is only supported on "
                           "CUDA inputs with cuSOLVER backend.")


@_wraps(_engine.svd)
def svd(A, full_matrices=True, *, driver=None):
    x = _floating_input(A, "linalg.svd", "linalg_svd_cpu")
    _check_driver(driver, x)
    return _engine.svd(x, full_matrices)


@_wraps(_engine.svdvals)
def svdvals(A, *, driver=None):
    x = _floating_input(_var(A, "linalg.svdvals"), "linalg.svd", "linalg_svd_cpu")
    _check_driver(driver, x)
    return _engine.svdvals(x)


det = _dtype_checked(_engine.det, "linalg.det", "lu_cpu")
slogdet = _dtype_checked(_engine.slogdet, "linalg.slogdet")
inv = _dtype_checked(_engine.inv, "linalg.inv")


@_wraps(_engine.cholesky)
def cholesky(A, *, upper=False):
    x = _floating_input(A, "linalg.cholesky", "cholesky_cpu")
    out = _engine.cholesky(x, upper=upper)
    data = out.data
    if x.numel() and bool(_xp(data).isnan(data).any()):
        # LAPACK's potrf fails on a NaN pivot (NumPy's cholesky lets it through)
        info = _cholesky_info(x.data)[1]
        if bool((info != 0).any()):
            flat = _np.asarray(info).reshape(-1)
            first = int(_np.flatnonzero(flat)[0])
            where = "(Batch element %d): " % first if x.dim() > 2 else ""
            raise LinAlgError("linalg.cholesky(): %sThe factorization could not be completed "
                              "because the input is not positive-definite (the leading minor "
                              "of order %d is not positive-definite)." % (where, flat[first]))
    return out


@_wraps(_engine.matrix_power)
def matrix_power(A, n):
    """The (batch of) square matrices raised to the integer power ``n`` by repeated
    squaring, as ``torch.linalg.matrix_power``; negative ``n`` inverts first (an integer
    input then raises RuntimeError, as torch's), ``n = 0`` gives identities (in the
    graph, with a zero gradient, as torch's).

    >>> pyad.linalg.matrix_power(pyad.tensor([[1., 1.], [0., 1.]]), 3).tolist()
    [[1.0, 3.0], [0.0, 1.0]]
    """
    x = _var(A, "linalg.matrix_power")
    if _operator.index(n) < 0:
        # torch inverts first: an integer input fails as linalg.inv's
        x = _floating_input(x, "linalg.inv")
    out = _engine.matrix_power(x, n)
    if _operator.index(n) == 0 and x.requires_grad and not out.requires_grad:
        # torch's A^0 is in the graph, with a zero gradient
        out = _pyad.where(_pyad.Variable(_xp(x.data).zeros(tuple(x.shape), bool)), x, out)
    return out


qr_result = _engine.qr_result


class _QRNoGrad(_Function):
    """``mode='r'`` and ``mode='complete'`` of a tall input: the forward only; torch's
    backward raises (the derivative needs Q, or is not defined)."""

    @staticmethod
    def forward(ctx, a, mode):
        ctx.mode = mode
        xp = _xp(a)
        if mode == "r":
            r = xp.linalg.qr(a, mode="r")
            return xp.zeros((0,), a.dtype), xp.ascontiguousarray(r)
        q, r = xp.linalg.qr(a, mode="complete")
        return xp.ascontiguousarray(q), xp.ascontiguousarray(r)

    @staticmethod
    def backward(ctx, gq, gr):
        if ctx.mode == "r":
            raise RuntimeError("The derivative of linalg.qr depends on Q, which is not computed "
                               "when mode='r'. Please use linalg.qr(A, mode='reduced') if you "
                               "are going to differentiate through linalg.qr.")
        raise RuntimeError("The QR decomposition is not differentiable when mode='complete' "
                           "and nrows > ncols.")


@_wraps(_engine.qr)
def qr(A, mode="reduced"):
    """The QR decomposition ``A = Q R`` (Q with orthonormal columns, R upper triangular),
    as ``torch.linalg.qr``: ``mode='reduced'`` (default) gives Q of shape (m, k) and R
    (k, n), k = min(m, n); ``'complete'`` Q (m, m) and R (m, n); ``'r'`` only R (Q is an
    empty tensor). The gradient is torch's: defined for full-rank inputs (for wide
    inputs the leading square block must be full-rank); with ``mode='r'``, or
    ``'complete'`` of a tall input, backward raises RuntimeError, as torch's.

    >>> Q, R = pyad.linalg.qr(pyad.tensor([[3., 0.], [4., 5.]]))
    >>> R
    tensor([[-5., -4.],
            [ 0.,  3.]])
    """
    if mode not in ("reduced", "complete", "r"):
        raise RuntimeError("qr received unrecognized mode '%s' but expected one of "
                           "'reduced' (default), 'r', or 'complete'" % (mode,))
    x = _floating_input(A, "linalg.qr", "geqrf_cpu")
    if mode == "reduced" or (mode == "complete" and x.shape[-2] <= x.shape[-1]):
        return _engine_qr(x)
    if x.dim() < 2:
        _engine_qr(x)                 # the engine's error for a 0-d/1-d input
    return qr_result(*_QRNoGrad.apply(x, mode))


@_wraps(_engine.eigh)
def eigh(A, UPLO="L"):
    """Eigenvalues (ascending, real) and eigenvectors (columns) of a Hermitian (batch of)
    matrices, as ``torch.linalg.eigh``; only the lower (``UPLO='L'``, default) or upper
    (``'U'``) triangle is read. The gradient is torch's, which divides by eigenvalue
    gaps: it is not defined (inf/nan) when eigenvalues repeat, and a loss must not
    depend on the eigenvectors' signs.

    >>> pyad.linalg.eigh(pyad.tensor([[2., 0.], [0., 1.]])).eigenvalues
    tensor([1., 2.])
    """
    UPLO = _uplo(UPLO)
    x = _var(A, "linalg.eigh")
    if x.dtype.kind not in "fc" or x.dtype.itemsize < 4:
        raise NotImplementedError("linalg.eigh(): \"linalg_eigh_cpu\" not implemented for '%s'"
                                  % _tname(x.dtype))
    if UPLO == "U" and x.dim() >= 2:
        # the Hermitian matrix of the upper triangle is that of the lower triangle of
        # A^H; the gradient reaches A as torch's does (unchanged, not transposed)
        x = x.mH.detach() + (x - x.detach())
    return _engine_eigh(x)


@_wraps(_engine.solve)
def solve(A, B, *, left=True):
    """The solution ``X`` of ``A X = B`` (``left=False``: of ``X A = B``), as
    ``torch.linalg.solve``: ``B`` a (batch of) matrices, or of vectors when it is 1-D or
    has the shape ``A.shape[:-1]``. Batch dims broadcast. A singular A raises
    LinAlgError.

    >>> pyad.linalg.solve(pyad.tensor([[2., 0.], [0., 4.]]), pyad.tensor([2., 2.]))
    tensor([1.0000, 0.5000])
    """
    if left:
        return _engine_solve(_floating_input(A, "linalg.solve", "lu_cpu"), B)
    a = _matrix(_floating_input(A, "linalg.solve", "lu_cpu"), "linalg.solve", square=True)
    b = _var(B, "linalg.solve")
    _same_dtype(a, b, "linalg.solve")
    vector = b.dim() == 1 or (b.dim() == a.dim() - 1
                              and tuple(b.shape) == tuple(a.shape[:-1]))
    if vector or b.dim() < 1:
        if b.dim() >= 1 and a.shape[-1] == 1:
            b = b.unsqueeze(-1)
        else:
            raise RuntimeError("linalg.solve(): Incompatible shapes of A and B for the equation "
                               "XA = B (%dx%d and %dx1)" % (a.shape[-2], a.shape[-1],
                                                            b.shape[-1] if b.dim() else 1))
        return _engine_solve(a.mT, b.mT).mT.squeeze(-1)
    if b.shape[-1] != a.shape[-1]:
        raise RuntimeError("linalg.solve(): Incompatible shapes of A and B for the equation "
                           "XA = B (%dx%d and %dx%d)" % (a.shape[-2], a.shape[-1],
                                                         b.shape[-2], b.shape[-1]))
    return _engine_solve(a.mT, b.mT).mT


@_wraps(_engine._linalg_cross)
def cross(input, other, *, dim=-1):
    """The cross product of 3-vectors along ``dim`` (default the last), as
    ``torch.linalg.cross``: the inputs must have the same number of dimensions; their
    sizes broadcast.

    >>> pyad.linalg.cross(pyad.tensor([[0., 1., 0.]]), pyad.tensor([[0., 0., 1.]]))
    tensor([[1., 0., 0.]])
    """
    a, b = _var(input, "linalg.cross"), _var(other, "linalg.cross")
    if a.dim() != b.dim():
        raise RuntimeError("linalg.cross(): inputs must have the same number of dimensions.")
    return _engine._linalg_cross(a, b, dim=dim)


@_wraps(_engine._linalg_norm)
def norm(A, ord=None, dim=None, keepdim=False, *, dtype=None):
    """As ``torch.linalg.norm``: a vector norm (over one dim, or of the flattened input
    when ``ord`` and ``dim`` are None), or a matrix norm (a 2-D input with ``ord``
    given, or ``dim`` a pair): ``'fro'``, ``'nuc'``, 2, -2, 1, -1, ``inf``, ``-inf``. A
    string ``ord`` with a ``dim`` that is not a pair, or on a 1-D or 3-D+ input without
    ``dim``, raises RuntimeError, as torch's.

    >>> pyad.linalg.norm(pyad.tensor([[1., -2.], [0., 3.]]), 1)
    tensor(5.)
    """
    if isinstance(ord, str):
        # a matrix norm: torch checks the dims before the order
        nd = _var(A, "linalg.norm").dim()
        if dim is not None:
            dims = (dim,) if isinstance(dim, int) else tuple(dim)
            if len(dims) != 2:
                raise RuntimeError("linalg.norm(): dim must be a 2-tuple. Got %s"
                                   % " ".join(str(d) for d in dims))
        elif nd != 2:
            if nd > 2:
                raise RuntimeError("linalg.norm(): If dim is not specified but ord is, the "
                                   "input must be 1D or 2D. Got %dD." % nd)
            raise RuntimeError("linalg.norm(): The input tensor A must have at least 2 "
                               "dimensions.")
    return _engine._linalg_norm(A, ord, dim, keepdim, dtype=dtype)



# -- ldl_factor, ldl_factor_ex, ldl_solve ----------------------------------------------
#
# LAPACK's Bunch-Kaufman factorization (sytrf/hetrf, the lower triangle) and its solver
# (sytrs/hetrs), through SciPy's LAPACK wrappers (SciPy is needed for these three
# only; without it they raise RuntimeError), as torch's CPU kernels: the same packed LD
# and pivots. torch gives them no derivative: results of inputs that require
# grad are in the graph, and backward raises torch's error.

ldl_factor_result = _collections.namedtuple("ldl_factor", ["LD", "pivots"])
ldl_factor_ex_result = _collections.namedtuple("ldl_factor_ex", ["LD", "pivots", "info"])


class _NoDerivative(_Function):
    """``value`` (computed from the inputs that follow) in the graph of those inputs,
    with torch's error for an op without a derivative."""

    @staticmethod
    def forward(ctx, value, aten_name, *inputs):
        ctx.aten_name = aten_name
        return value

    @staticmethod
    def backward(ctx, g):
        raise RuntimeError("derivative for aten::%s is not implemented" % ctx.aten_name)


def _lapack(prefix, dtype, hermitian, what):
    try:
        from scipy.linalg import lapack
    except ImportError:
        raise RuntimeError("%s(): needs SciPy (its LAPACK sytrf/hetrf/sytrs/hetrs "
                           "wrappers), which is not installed" % what) from None
    kind = "he" if hermitian and dtype.kind == "c" else "sy"
    return lapack.get_lapack_funcs(kind + prefix, dtype=dtype)


def _host(data):
    xp = _xp(data)
    return _np.asarray(xp.asnumpy(data)) if hasattr(xp, "asnumpy") else _np.asarray(data)


def _device(array, like):
    xp = _xp(like)
    return xp.asarray(array) if xp is not _np else array


def _ldl_factor(A, hermitian, what):
    x = _var(A, what)
    if x.dim() < 2:
        raise RuntimeError("%s(): The input Variable A must have at least 2 dimensions."
                           % what)
    if x.shape[-1] != x.shape[-2]:
        raise RuntimeError("%s(): A must be batches of square matrices, but they are %s by %s "
                           "matrices" % (what, x.shape[-2] if x.dim() > 1 else 1,
                                         x.shape[-1] if x.dim() else 1))
    if x.dtype.kind not in "fc":
        raise RuntimeError("%s(): Expected a floating point or complex tensor as input. Got %s"
                           % (what, _tname(x.dtype)))
    if x.dtype.itemsize < 4:
        raise NotImplementedError('%s(): "ldl_factor_kernel_cpu" not implemented for \'%s\''
                                  % (what, _tname(x.dtype)))
    a = _host(x.data)
    n = a.shape[-1]
    batch = a.shape[:-2]
    flat = a.reshape((int(_np.prod(batch, dtype=_np.int64)), n, n))
    ld = _np.zeros_like(flat)
    piv = _np.zeros(flat.shape[:-1], _np.int32)
    info = _np.zeros(flat.shape[0], _np.int32)
    if n:
        sytrf = _lapack("trf", a.dtype, hermitian, what)
        for i in range(flat.shape[0]):
            f, ip, inf = sytrf(flat[i], lower=1)
            ld[i], piv[i], info[i] = _np.tril(f), ip, inf
    ld = _device(ld.reshape(a.shape), x.data)
    LD = _NoDerivative.apply(_pyad.Variable(ld), "linalg_ldl_factor_ex", x)
    return (LD, _pyad.Variable(_device(piv.reshape(batch + (n,)), x.data)),
            _pyad.Variable(_device(info.reshape(batch), x.data)))


@_profiled
def ldl_factor(A, *, hermitian=False):
    """The LDL factorization of a symmetric (``hermitian=True``: Hermitian) (batch of)
    matrices, as ``torch.linalg.ldl_factor``: LAPACK's Bunch-Kaufman factorization of the
    lower triangle (the upper one is not read), the named tuple ``(LD, pivots)``: ``LD``
    the unit lower triangular L below the diagonal and the block diagonal D (1x1 and
    2x2 blocks) on it, ``pivots`` LAPACK's int32 interchanges (negative for a 2x2
    block). Use with :func:`ldl_solve`. As torch's, it has no derivative (backward
    raises), and a singular D raises (:func:`ldl_factor_ex` reports it in ``info``).

    >>> LD, pivots = pyad.linalg.ldl_factor(pyad.tensor([[4., 2.], [2., 3.]]))
    >>> LD
    tensor([[4.0000, 0.0000],
            [0.5000, 2.0000]])
    >>> pivots
    tensor([1, 2], dtype=int32)
    """
    LD, piv, info = _ldl_factor(A, hermitian, "linalg.ldl_factor")
    bad = _host(info.data)
    if (bad != 0).any():
        first = int(_np.flatnonzero(bad.reshape(-1))[0])
        where = "(Batch element %d): " % first if bad.ndim else ""
        raise LinAlgError("linalg.ldl_factor(): %sThe factorization could not be completed "
                          "because the input is singular (D[%d,%d] is zero)."
                          % (where, bad.reshape(-1)[first], bad.reshape(-1)[first]))
    return ldl_factor_result(LD, piv)


@_profiled
def ldl_factor_ex(A, *, hermitian=False, check_errors=False):
    """:func:`ldl_factor` with ``info`` (int32, batch-shaped), as
    ``torch.linalg.ldl_factor_ex``: 0 where D is nonsingular, else the 1-based index of
    its first zero diagonal element (the factorization is complete, D singular);
    ``check_errors=True`` raises LinAlgError instead.

    >>> pyad.linalg.ldl_factor_ex(pyad.zeros(2, 2)).info
    tensor(1, dtype=int32)
    """
    LD, piv, info = _ldl_factor(A, hermitian, "linalg.ldl_factor_ex")
    if check_errors and bool((_host(info.data) != 0).any()):
        raise LinAlgError("linalg.ldl_factor_ex(): The factorization could not be completed "
                          "because the input is singular.")
    return ldl_factor_ex_result(LD, piv, info)


@_profiled
def ldl_solve(LD, pivots, B, *, hermitian=False):
    """The solution ``X`` of ``A X = B`` from :func:`ldl_factor`'s ``(LD, pivots)`` of
    ``A`` (LAPACK sytrs/hetrs), as ``torch.linalg.ldl_solve``: ``B`` a (batch of)
    matrices of ``LD``'s dtype; batch dims broadcast. No derivative, as torch's.

    >>> LD, pivots = pyad.linalg.ldl_factor(pyad.tensor([[4., 2.], [2., 3.]]))
    >>> pyad.linalg.ldl_solve(LD, pivots, pyad.tensor([[6.], [5.]]))
    tensor([[1.],
            [1.]])
    """
    what = "linalg.ldl_solve"
    ld, piv, b = _var(LD, what), _var(pivots, what), _var(B, what)
    if ld.dim() < 2 or ld.shape[-1] != ld.shape[-2]:
        raise RuntimeError("%s(): LD must be batches of square matrices" % what)
    if b.dim() < 2:
        raise IndexError("%s(): Dimension out of range (expected to be in range of [-1, 0], "
                         "but got -2)" % what)
    if b.dtype != ld.dtype:
        raise RuntimeError("%s(): Expected b and A to have the same dtype, but found b of "
                           "type %s and A of type %s instead." % (what, _dtype_word(b.dtype),
                                                          _dtype_word(ld.dtype)))
    if piv.dtype.kind not in "iu":
        raise RuntimeError("%s(): Expected pivots to be integers. Got %s"
                           % (what, _tname(piv.dtype)))
    n = ld.shape[-1]
    if tuple(piv.shape) != tuple(ld.shape[:-1]):
        raise RuntimeError("%s(): Expected LD.shape[:-1] and pivots.shape to be the same, but "
                           "got pivots with shape %s instead" % (what, list(piv.shape)))
    if b.shape[-2] != n:
        raise RuntimeError("%s(): Incompatible shapes of A and B for the equation AX = B "
                           "(%dx%d and %dx%d)" % (what, n, n, b.shape[-2], b.shape[-1]))
    try:
        batch = _np.broadcast_shapes(tuple(ld.shape[:-2]), tuple(b.shape[:-2]))
    except ValueError:
        raise RuntimeError("%s(): the batch dimensions of LD %s and B %s cannot be broadcast "
                           "together" % (what, list(ld.shape[:-2]), list(b.shape[:-2]))) \
            from None
    pivots_host = _host(piv.data).astype(_np.int64).reshape((-1, n))
    _check_ldl_pivots(pivots_host, n, what)
    a = _np.broadcast_to(_host(ld.data), batch + (n, n)).reshape((-1, n, n))
    p = _np.broadcast_to(_host(piv.data).astype(_np.int32), batch + (n,)).reshape((-1, n))
    bb = _np.broadcast_to(_host(b.data), batch + tuple(b.shape[-2:]))
    flat = bb.reshape((-1,) + tuple(b.shape[-2:]))
    x = _np.array(flat, copy=True)
    if n and b.shape[-1]:
        sytrs = _lapack("trs", a.dtype, hermitian, what)
        for i in range(flat.shape[0]):
            x[i], inf = sytrs(a[i], p[i], flat[i], lower=1)
    x = _device(x.reshape(bb.shape), ld.data)
    return _NoDerivative.apply(_pyad.Variable(x), "linalg_ldl_solve", ld, b)


def _check_ldl_pivots(pivots, n, what):
    # LAPACK's sytrs/hetrs trust the pivots: a row index past n, or a 2x2 block that runs
    # off either end (a negative pivot on the last row read forwards, on the first row
    # read backwards), reads and writes outside LD, B and the work arrays
    if pivots.size == 0:
        return
    if (_np.abs(pivots) > n).any():
        raise RuntimeError("%s(): Pivots given to ldl_solve must all satisfy |pivot| <= "
                           "LD.size(-2). Did you properly pass the result of ldl_factor?"
                           % what)
    if (pivots == 0).any():
        raise RuntimeError("%s(): Pivots given to ldl_solve must all satisfy |pivot| >= 1. "
                           "Did you properly pass the result of ldl_factor?" % what)
    for row in pivots:
        k = 0
        while k < n:                      # sytrs' forward sweep
            if row[k] < 0 and k == n - 1:
                raise RuntimeError("%s(): pivots %s end with the first row of a 2x2 block "
                                   "(a negative pivot on the last row): not the result of "
                                   "ldl_factor" % (what, row.tolist()))
            k += 1 if row[k] > 0 else 2
        k = n - 1
        while k >= 0:                     # and its backward one
            if row[k] < 0 and k == 0:
                raise RuntimeError("%s(): pivots %s start with the second row of a 2x2 "
                                   "block (a negative pivot on the first row read "
                                   "backwards): not the result of ldl_factor"
                                   % (what, row.tolist()))
            k -= 1 if row[k] > 0 else 2


def _dtype_word(dtype):
    return {"float32": "Float", "float64": "Double", "complex64": "ComplexFloat",
            "complex128": "ComplexDouble"}.get(_np.dtype(dtype).name, _tname(dtype))


__all__ += ["ldl_factor", "ldl_factor_ex", "ldl_solve"]


# -- out= ------------------------------------------------------------------------------
#
# torch.linalg's functions take ``out=`` (a Variable, or a tuple of them for the
# functions returning several): the result is written into it (resized, with torch's
# warning, when it has elements and another shape) and returned. matrix_exp, vander and
# diagonal take none, as torch's; matmul is the engine's, which takes it itself.
# As torch's kernels, most need ``out`` of the result's dtype and refuse ``out`` while
# grad mode is on and an argument requires grad. torch's composite functions differ:
# those in _OUT_CAST write into an ``out`` of any dtype the result can be cast to
# (torch.can_cast), and those in _OUT_COPY, with an argument requiring grad, copy the
# result into ``out`` in the graph (``out`` then requires grad), as torch's copy_.

from pyad._out import writes_out as _writes_out, _check_out, _with_out_signature  # noqa

_OUT_FUNCTIONS = (
    "inv", "det", "slogdet", "solve", "cholesky", "qr", "eigh", "svd", "svdvals", "norm",
    "vector_norm", "matrix_norm", "cross", "matrix_power", "pinv", "lstsq",
    "solve_triangular", "eigvalsh", "eig", "eigvals", "multi_dot", "lu_factor",
    "lu_factor_ex", "lu", "lu_solve", "matrix_rank", "cond", "vecdot", "inv_ex",
    "solve_ex", "cholesky_ex", "tensorinv", "tensorsolve", "householder_product",
    "ldl_factor", "ldl_factor_ex", "ldl_solve")
_OUT_CAST = frozenset(("pinv", "lstsq", "eig", "eigvals", "matrix_rank", "cond", "tensorinv",
                       "tensorsolve", "householder_product"))
_OUT_COPY = frozenset(("norm", "matrix_norm", "eigvals", "cond", "tensorinv", "tensorsolve",
                       "ldl_factor", "ldl_factor_ex", "ldl_solve"))


def _copies_out(fn, name, exact):
    """``out=`` for one of torch's functions that write their result into ``out`` with
    copy_ (its composite functions, and those without a derivative): a result in the
    graph makes ``out`` a copy of it in the graph."""
    @_functools.wraps(fn)
    def with_out(*args, out=None, **kwargs):
        if out is None:
            return fn(*args, **kwargs)
        _check_out(out, name, (_pyad.Variable, tuple, list))
        result = fn(*args, **kwargs)
        results = result if isinstance(result, tuple) else (result,)
        if not (_pyad.is_grad_enabled() and any(r.requires_grad for r in results)):
            return _engine._write_out_py(name, out, result, exact)
        detached = tuple(r.detach() for r in results)
        if isinstance(result, tuple):
            detached = type(result)(*detached)
        else:
            detached = detached[0]
        written = _engine._write_out_py(name, out, detached, exact)  # resize, dtype checks
        outs = written if isinstance(result, tuple) else (written,)
        for o, r in zip(outs, results):
            if r.requires_grad:
                o.copy_(r)
        return written

    return _with_out_signature(with_out, fn)


for _name in _OUT_FUNCTIONS:
    _fn = globals()[_name]
    if _name in _OUT_COPY:
        globals()[_name] = _copies_out(_fn, "linalg." + _name, _name not in _OUT_CAST)
    else:
        globals()[_name] = _writes_out(_fn, name="linalg." + _name,
                                       exact=_name not in _OUT_CAST)
del _name, _fn


def _refuse_out_overlap(fn, name):
    """torch's structured kernels (linalg.cross) refuse an ``out`` sharing memory with an
    input: written in place it would read elements it has already written."""
    @_functools.wraps(fn)
    def checked(*args, out=None, **kwargs):
        if isinstance(out, _pyad.Variable):
            for arg in args + tuple(kwargs.values()):
                if isinstance(arg, _pyad.Variable) and isinstance(arg.data, _np.ndarray) \
                        and isinstance(out.data, _np.ndarray) and out.numel() and \
                        _np.shares_memory(arg.data, out.data):
                    raise RuntimeError(
                        "%s(): unsupported operation: some elements of the input Variable "
                        "and the written-to Variable refer to a single memory location. "
                        "Please clone() the Variable before performing the operation."
                        % name)
        return fn(*args, out=out, **kwargs)

    return checked


cross = _refuse_out_overlap(cross, "linalg.cross")
