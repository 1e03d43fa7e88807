"""Probe of pyad.linalg and pyad.special against torch.linalg / torch.special: one
parametrized case per call, run on the same inputs in both libraries, comparing the
outcome -- the exception type, or the outputs' dtypes, shapes and values (tight
tolerances) and the gradients of a fixed real loss of the outputs. Edge inputs:
batched / broadcast batches, empty batches and 0x0 matrices, 1x1, singular and
rank-deficient, non-contiguous, float32, complex, NaN/inf, integer inputs."""
import builtins

import numpy as np
import pytest

import pyad
import pyad.linalg
import pyad.special
from pyad.autograd import gradcheck, gradgradcheck

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(20261129)


def rand(*shape, dtype=np.float64):
    a = RNG.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        a = a + 1j * RNG.standard_normal(shape)
    return a.astype(dtype)


def well(*shape, dtype=np.float64):
    return (rand(*shape, dtype=dtype) + 3 * np.eye(shape[-1])).astype(dtype)


def spd(*shape, dtype=np.float64):
    a = rand(*shape, dtype=dtype)
    return (a @ np.conj(np.swapaxes(a, -1, -2)) + shape[-1] * np.eye(shape[-1])).astype(dtype)


def sym(*shape, dtype=np.float64):
    a = rand(*shape, dtype=dtype)
    return ((a + np.conj(np.swapaxes(a, -1, -2))) / 2).astype(dtype)


def tri(*shape, upper, dtype=np.float64):
    a = rand(*shape, dtype=dtype)
    a = np.triu(a) if upper else np.tril(a)
    return (a + 3 * np.eye(shape[-1])).astype(dtype)


def low_rank(m, n, r, batch=(), dtype=np.float64):
    return (rand(*batch, m, r) @ rand(*batch, r, n)).astype(dtype)


class NC:
    """A non-contiguous input: the transpose of a contiguous array, in both libraries."""

    def __init__(self, a):
        self.a = np.ascontiguousarray(np.swapaxes(a, -1, -2))


class Dt:
    """A dtype, by name: torch.<name> / pyad.<name>."""

    def __init__(self, name):
        self.name = name


class Raw:
    """Passed as is (not converted to a tensor)."""

    def __init__(self, v):
        self.v = v


# -- the harness -------------------------------------------------------------------

def _lib(name):
    return {"torch": torch, "pyad": pyad}[name]


def _convert(spec, lib, grad, leaves):
    if isinstance(spec, Raw):
        return spec.v
    if isinstance(spec, Dt):
        return getattr(_lib(lib), spec.name)
    if isinstance(spec, (list, tuple)) and spec and all(
            isinstance(s, (np.ndarray, NC)) for s in spec):
        return type(spec)(_convert(s, lib, grad, leaves) for s in spec)
    if isinstance(spec, (np.ndarray, NC)):
        a = spec.a if isinstance(spec, NC) else spec
        if lib == "torch":
            t = torch.from_numpy(a.copy())
        else:
            t = pyad.tensor(a.copy())
        if grad and a.dtype.kind in "fc":
            t.requires_grad_(True)
            leaves.append(t)
        if isinstance(spec, NC):
            t = t.transpose(-1, -2)
        return t
    return spec


def _flat(out):
    if isinstance(out, (tuple, list)):
        r = []
        for o in out:
            r.extend(_flat(o))
        return r
    return [out]


def _np(t):
    if isinstance(t, torch.Tensor):
        return t.detach().resolve_conj().resolve_neg().numpy()
    if isinstance(t, pyad.Variable):
        return np.asarray(t.detach().numpy())
    return t


def _dt(t):
    if isinstance(t, torch.Tensor):
        return str(t.dtype).split(".")[1]
    if isinstance(t, pyad.Variable):
        return str(np.dtype(t.dtype))
    return type(t).__name__


def _builtin_type(e):
    for c in type(e).__mro__:
        if c.__module__ == "builtins":
            return c
    return None


def _run(lib, fn, args, kwargs, grad, post):
    leaves = []
    m = _lib(lib)
    args = [_convert(a, lib, grad, leaves) for a in args]
    kwargs = {k: _convert(v, lib, grad, leaves) for k, v in kwargs.items()}
    f = m
    for part in fn.split("."):
        f = getattr(f, part)
    try:
        out = f(*args, **kwargs)
        if post is not None:
            out = post(out, m)
    except Exception as e:  # noqa: BLE001 -- the outcome compared
        return ("raise", _builtin_type(e), str(e)), None
    outs = _flat(out)
    grads = None
    if grad and leaves:
        loss = None
        rng = np.random.default_rng(5)
        for o in outs:
            if not isinstance(o, (torch.Tensor, pyad.Variable)) or o.dtype in (
                    torch.int64, torch.int32, torch.bool) or (
                    isinstance(o, pyad.Variable) and np.dtype(o.dtype).kind not in "fc"):
                continue
            kind = "c" if _dt(o).startswith("complex") else "f"
            w = rng.standard_normal(tuple(o.shape))
            if kind == "c":
                w = w + 1j * rng.standard_normal(tuple(o.shape))
            w = np.asarray(w, dtype=_np(o).dtype)
            w = torch.from_numpy(w) if lib == "torch" else pyad.tensor(w)
            term = (o * w)
            term = (term.real if kind == "c" else term).sum()
            loss = term if loss is None else loss + term
        if loss is not None and loss.requires_grad:
            try:
                if lib == "torch":
                    grads = torch.autograd.grad(loss, leaves, allow_unused=True)
                else:
                    grads = pyad.autograd.grad(loss, leaves, allow_unused=True)
                grads = [None if g is None else _np(g) for g in grads]
            except Exception as e:  # noqa: BLE001
                grads = ("raise", _builtin_type(e), str(e))
    return [(_dt(o), tuple(o.shape) if hasattr(o, "shape") else None, _np(o))
            for o in outs], grads


def _tol(dtype):
    if str(dtype) in ("float32", "complex64"):
        return dict(rtol=2e-4, atol=2e-5)
    return dict(rtol=1e-7, atol=1e-9)


def _close(a, b, what, tol):
    a = np.asarray(a)
    b = np.asarray(b)
    assert a.shape == b.shape, (what, a.shape, b.shape)
    if a.dtype.kind == "b" or a.dtype.kind in "iu":
        np.testing.assert_array_equal(b, a, err_msg=what)
    else:
        np.testing.assert_allclose(b, a, equal_nan=True, err_msg=what, **tol)


def check(fn, args, kwargs=None, grad=True, post=None, tol=None):
    kwargs = kwargs or {}
    t_out, t_grads = _run("torch", fn, args, kwargs, grad, post)
    p_out, p_grads = _run("pyad", fn, args, kwargs, grad, post)
    if t_out[0] == "raise" or p_out[0] == "raise":
        t_kind = t_out[1] if t_out[0] == "raise" else "returned"
        p_kind = p_out[1] if p_out[0] == "raise" else "returned"
        assert p_kind == t_kind, "torch: %s %s; pyad: %s %s" % (
            t_kind, t_out[2] if t_out[0] == "raise" else "",
            p_kind, p_out[2] if p_out[0] == "raise" else "")
        return
    assert len(p_out) == len(t_out), (len(t_out), len(p_out))
    for i, ((td, ts, tv), (pd, ps, pv)) in enumerate(zip(t_out, p_out)):
        assert pd == td, "output %d dtype: torch %s, pyad %s" % (i, td, pd)
        assert ps == ts, "output %d shape: torch %s, pyad %s" % (i, ts, ps)
        _close(tv, pv, "output %d" % i, tol or _tol(td))
    if t_grads is None or p_grads is None:
        assert (t_grads is None) == (p_grads is None), (t_grads, p_grads)
        return
    if isinstance(t_grads, tuple) or isinstance(p_grads, tuple):
        assert isinstance(t_grads, tuple) and isinstance(p_grads, tuple), (t_grads, p_grads)
        assert p_grads[1] == t_grads[1], (t_grads, p_grads)
        return
    for i, (tg, pg) in enumerate(zip(t_grads, p_grads)):
        if tg is None or pg is None:
            # an unused input: torch None, pyad None (or zeros)
            assert tg is None and (pg is None or not np.any(pg)), (i, tg, pg)
            continue
        _close(tg, pg, "grad %d" % i, tol or _tol(tg.dtype))


# -- decompositions with a sign / phase freedom: compared through invariants ----------

def _svd_inv(out, m):
    U, S, Vh = out
    k = S.shape[-1]
    return S, m.matmul(U[..., :, :k] * S.unsqueeze(-2), Vh[..., :k, :])


def _eigh_inv(out, m):
    L, V = out
    return L, m.matmul(V * L.unsqueeze(-2), V.mH)


def _eig_inv(out, m):
    L, V = out
    return L, m.matmul(V * L.unsqueeze(-2), m.linalg.inv(V))


def _qr_inv(out, m):
    Q, R = out
    return m.matmul(Q, R), R.abs()


F32, F64, C64, C128 = np.float32, np.float64, np.complex64, np.complex128
E = np.empty

LINALG = [
    # det / slogdet / inv
    ("det-3x3", "linalg.det", [well(3, 3)], {}),
    ("det-batch2", "linalg.det", [well(2, 3, 4, 4)], {}),
    ("det-1x1", "linalg.det", [rand(1, 1)], {}),
    ("det-0x0", "linalg.det", [E((0, 0))], {}),
    ("det-empty-batch", "linalg.det", [E((0, 3, 3))], {}),
    ("det-singular", "linalg.det", [low_rank(3, 3, 2)], {}),
    ("det-f32", "linalg.det", [well(2, 3, 3, dtype=F32)], {}),
    ("det-c128", "linalg.det", [well(2, 3, 3, dtype=C128)], {}),
    ("det-noncontig", "linalg.det", [NC(well(2, 3, 3))], {}),
    ("det-nonsquare", "linalg.det", [rand(2, 3)], {}),
    ("det-1d", "linalg.det", [rand(3)], {}),
    ("det-int", "linalg.det", [np.eye(3, dtype=np.int64)], {}),
    ("slogdet-int", "linalg.slogdet", [np.eye(3, dtype=np.int64)], {}),
    ("cholesky-int", "linalg.cholesky", [np.eye(3, dtype=np.int64)], {}),
    ("qr-int", "linalg.qr", [np.eye(3, dtype=np.int64)], {}),
    ("eigh-int", "linalg.eigh", [np.eye(3, dtype=np.int64)], {}),
    ("svd-int", "linalg.svd", [np.eye(3, dtype=np.int64)], {}),
    ("eig-int", "linalg.eig", [np.eye(3, dtype=np.int64)], {}),
    ("pinv-int", "linalg.pinv", [np.eye(3, dtype=np.int64)], {}),
    ("lstsq-int", "linalg.lstsq", [np.eye(3, dtype=np.int64), np.eye(3, dtype=np.int64)], {}),
    ("matrix_exp-c64", "linalg.matrix_exp", [rand(2, 2, dtype=C64)], {}),
    ("det-nan", "linalg.det", [np.array([[np.nan, 1.], [2., 3.]])], {}),
    ("slogdet-3x3", "linalg.slogdet", [well(3, 3)], {}),
    ("slogdet-neg", "linalg.slogdet", [-well(2, 3, 3)], {}),
    ("slogdet-singular", "linalg.slogdet", [np.zeros((2, 3, 3))], {"grad": False}),
    ("slogdet-c128", "linalg.slogdet", [well(3, 3, dtype=C128)], {}),
    ("slogdet-0x0", "linalg.slogdet", [E((0, 0))], {}),
    ("slogdet-empty-batch", "linalg.slogdet", [E((0, 2, 2))], {}),
    ("slogdet-f32", "linalg.slogdet", [well(3, 3, dtype=F32)], {}),
    ("inv-3x3", "linalg.inv", [well(3, 3)], {}),
    ("inv-batch", "linalg.inv", [well(2, 1, 3, 3)], {}),
    ("inv-c64", "linalg.inv", [well(3, 3, dtype=C64)], {}),
    ("inv-0x0", "linalg.inv", [E((0, 0))], {}),
    ("inv-empty-batch", "linalg.inv", [E((0, 3, 3))], {}),
    ("inv-singular", "linalg.inv", [np.zeros((2, 2))], {}),
    ("inv-noncontig", "linalg.inv", [NC(well(3, 3))], {}),
    ("inv-nonsquare", "linalg.inv", [rand(2, 3)], {}),
    ("inv-int", "linalg.inv", [np.eye(2, dtype=np.int64)], {}),
    ("inv_ex-singular", "linalg.inv_ex", [np.zeros((2, 3, 3))], {"grad": False}),
    ("inv_ex-singular-check", "linalg.inv_ex", [np.zeros((3, 3))], {"check_errors": True}),
    ("inv_ex-ok", "linalg.inv_ex", [well(2, 3, 3)], {}),
    # solve
    ("solve-vec", "linalg.solve", [well(3, 3), rand(3)], {}),
    ("solve-mat", "linalg.solve", [well(3, 3), rand(3, 2)], {}),
    ("solve-broadcast", "linalg.solve", [well(2, 1, 3, 3), rand(4, 3, 2)], {}),
    ("solve-batchvec", "linalg.solve", [well(2, 3, 3), rand(2, 3)], {}),
    ("solve-left-false", "linalg.solve", [well(3, 3), rand(2, 3)], {"left": False}),
    ("solve-singular", "linalg.solve", [np.zeros((2, 2)), rand(2)], {}),
    ("solve-empty", "linalg.solve", [E((0, 3, 3)), E((0, 3))], {}),
    ("solve-0x0", "linalg.solve", [E((0, 0)), E((0, 2))], {}),
    ("solve-dtype-mismatch", "linalg.solve", [well(3, 3), rand(3, dtype=F32)], {}),
    ("solve-c128", "linalg.solve", [well(3, 3, dtype=C128), rand(3, 1, dtype=C128)], {}),
    ("solve-f32", "linalg.solve", [well(3, 3, dtype=F32), rand(3, dtype=F32)], {}),
    ("solve-shape-mismatch", "linalg.solve", [well(3, 3), rand(4)], {}),
    ("solve-left-false-batch", "linalg.solve", [well(2, 3, 3), rand(2, 4, 3)], {"left": False}),
    ("solve-left-false-vec", "linalg.solve", [well(3, 3), rand(3)], {"left": False}),
    ("solve-left-false-bvec", "linalg.solve", [well(2, 3, 3), rand(2, 3)], {"left": False}),
    ("solve-left-false-bad", "linalg.solve", [well(3, 3), rand(3, 2)], {"left": False}),
    ("solve-left-false-c128", "linalg.solve", [well(3, 3, dtype=C128), rand(2, 3, dtype=C128)],
     {"left": False}),
    ("solve-int", "linalg.solve", [np.eye(2, dtype=np.int64), np.ones(2, np.int64)], {}),
    ("solve_ex-ok", "linalg.solve_ex", [well(3, 3), rand(3, 2)], {}),
    ("solve_ex-singular", "linalg.solve_ex", [np.zeros((3, 3)), rand(3)], {"grad": False}),
    ("solve_ex-singular-check", "linalg.solve_ex", [np.zeros((3, 3)), rand(3)],
     {"check_errors": True}),
    # cholesky
    ("cholesky", "linalg.cholesky", [spd(3, 3)], {}),
    ("cholesky-upper", "linalg.cholesky", [spd(2, 3, 3)], {"upper": True}),
    ("cholesky-c128", "linalg.cholesky", [spd(3, 3, dtype=C128)], {}),
    ("cholesky-f32", "linalg.cholesky", [spd(3, 3, dtype=F32)], {}),
    ("cholesky-notpd", "linalg.cholesky", [-np.eye(3)], {}),
    ("cholesky-0x0", "linalg.cholesky", [E((0, 0))], {}),
    ("cholesky-empty-batch", "linalg.cholesky", [E((0, 2, 2))], {}),
    ("cholesky-1x1", "linalg.cholesky", [np.array([[4.0]])], {}),
    ("cholesky-nonsquare", "linalg.cholesky", [rand(2, 3)], {}),
    ("cholesky_ex-ok", "linalg.cholesky_ex", [spd(2, 3, 3)], {}),
    ("cholesky_ex-notpd", "linalg.cholesky_ex", [-np.eye(3)], {"grad": False}),
    ("cholesky_ex-notpd-check", "linalg.cholesky_ex", [-np.eye(3)], {"check_errors": True}),
    # qr
    ("qr-reduced-tall", "linalg.qr", [rand(5, 3)], {}),
    ("qr-reduced-wide", "linalg.qr", [rand(3, 5)], {"grad": False}),
    ("qr-complete", "linalg.qr", [rand(5, 3)], {"mode": "complete", "grad": False}),
    ("qr-r", "linalg.qr", [rand(2, 5, 3)], {"mode": "r", "grad": False}),
    ("qr-r-grad", "linalg.qr", [rand(5, 3)], {"mode": "r"}),
    ("qr-bad-mode", "linalg.qr", [rand(3, 3)], {"mode": "foo"}),
    ("qr-complete-wide", "linalg.qr", [rand(3, 5)], {"mode": "complete"}),
    ("qr-complete-square", "linalg.qr", [rand(2, 3, 3)], {"mode": "complete"}),
    ("qr-complete-tall-grad", "linalg.qr", [rand(5, 3)], {"mode": "complete"}),
    ("qr-complete-c128", "linalg.qr", [rand(4, 3, dtype=C128)],
     {"mode": "complete", "grad": False}),
    ("qr-r-f32", "linalg.qr", [rand(4, 3, dtype=F32)], {"mode": "r", "grad": False}),
    ("qr-complete-empty", "linalg.qr", [E((0, 3))], {"mode": "complete"}),
    ("qr-r-empty-batch", "linalg.qr", [E((0, 4, 3))], {"mode": "r", "grad": False}),
    ("qr-1d", "linalg.qr", [rand(3)], {"mode": "r"}),
    ("qr-c128", "linalg.qr", [rand(4, 3, dtype=C128)], {"post": _qr_inv}),
    ("qr-empty", "linalg.qr", [E((0, 3))], {}),
    ("qr-empty-batch", "linalg.qr", [E((0, 3, 2))], {}),
    ("qr-f32", "linalg.qr", [rand(4, 3, dtype=F32)], {"post": _qr_inv}),
    ("qr-batch-noncontig", "linalg.qr", [NC(rand(2, 3, 4))], {"post": _qr_inv}),
    # svd / svdvals
    ("svd-tall", "linalg.svd", [rand(5, 3)], {"full_matrices": False, "post": _svd_inv}),
    ("svd-wide-batch", "linalg.svd", [rand(2, 3, 5)],
     {"full_matrices": False, "post": _svd_inv}),
    ("svd-full-shapes", "linalg.svd", [rand(5, 3)],
     {"post": lambda o, m: tuple(x.shape for x in o), "grad": False}),
    ("svd-full-grad", "linalg.svd", [rand(4, 4)], {"post": _svd_inv}),
    ("svd-c128", "linalg.svd", [rand(3, 3, dtype=C128)],
     {"full_matrices": False, "post": _svd_inv}),
    ("svd-empty", "linalg.svd", [E((0, 3))], {"full_matrices": False, "grad": False}),
    ("svd-empty-batch", "linalg.svd", [E((0, 3, 3))], {"grad": False}),
    ("svdvals", "linalg.svdvals", [rand(2, 4, 3)], {}),
    ("svdvals-f32", "linalg.svdvals", [rand(4, 3, dtype=F32)], {}),
    ("svdvals-c64", "linalg.svdvals", [rand(3, 3, dtype=C64)], {}),
    ("svdvals-rankdef", "linalg.svdvals", [low_rank(4, 3, 1)], {"grad": False}),
    ("svdvals-empty", "linalg.svdvals", [E((3, 0))], {}),
    ("svdvals-int", "linalg.svdvals", [np.eye(2, dtype=np.int64)], {}),
    # eigh / eigvalsh
    ("eigh", "linalg.eigh", [sym(3, 3)], {"post": _eigh_inv}),
    ("eigh-U", "linalg.eigh", [rand(2, 3, 3)], {"UPLO": "U", "post": _eigh_inv}),
    ("eigh-L-nonsym", "linalg.eigh", [rand(3, 3)], {"UPLO": "L", "post": _eigh_inv}),
    ("eigh-c128", "linalg.eigh", [sym(3, 3, dtype=C128)], {"post": _eigh_inv}),
    ("eigh-bad-uplo", "linalg.eigh", [sym(3, 3)], {"UPLO": "X"}),
    ("eigh-repeated-invariant", "linalg.eigh", [np.diag([1., 1., 2.])], {"post": _eigh_inv}),
    ("eigh-U-c128", "linalg.eigh", [rand(3, 3, dtype=C128)], {"UPLO": "U", "post": _eigh_inv}),
    ("eigh-U-values", "linalg.eigh", [rand(2, 3, 3)],
     {"UPLO": "U", "post": lambda o, m: (o[0],)}),
    ("eigh-U-vectors-squared", "linalg.eigh", [rand(2, 3, 3)],
     {"UPLO": "U", "post": lambda o, m: (o[1] * o[1],)}),
    ("eigh-L-vectors-squared", "linalg.eigh", [rand(3, 3)],
     {"post": lambda o, m: (o[1] * o[1],)}),
    ("eigh-U-f32", "linalg.eigh", [rand(3, 3, dtype=F32)], {"UPLO": "U", "post": _eigh_inv}),
    ("eigh-empty", "linalg.eigh", [E((0, 0))], {"grad": False}),
    ("eigvalsh", "linalg.eigvalsh", [sym(2, 3, 3)], {}),
    ("eigvalsh-U", "linalg.eigvalsh", [rand(3, 3)], {"UPLO": "U"}),
    ("eigvalsh-f32", "linalg.eigvalsh", [sym(3, 3, dtype=F32)], {}),
    ("eigvalsh-c64", "linalg.eigvalsh", [sym(3, 3, dtype=C64)], {}),
    ("eigvalsh-repeated", "linalg.eigvalsh", [np.eye(3)], {}),
    ("eigvalsh-bad-uplo", "linalg.eigvalsh", [sym(3, 3)], {"UPLO": "x"}),
    ("eigvalsh-empty", "linalg.eigvalsh", [E((2, 0, 0))], {}),
    # eig / eigvals
    ("eig", "linalg.eig", [well(3, 3)], {"post": _eig_inv}),
    ("eig-batch", "linalg.eig", [well(2, 3, 3)], {"post": _eig_inv}),
    ("eig-c128", "linalg.eig", [well(3, 3, dtype=C128)], {"post": _eig_inv}),
    ("eig-f32", "linalg.eig", [well(3, 3, dtype=F32)],
     {"post": _eig_inv, "tol": dict(rtol=1e-3, atol=1e-4)}),
    ("eig-dtypes", "linalg.eig", [well(3, 3)],
     {"post": lambda o, m: (o[0].abs().sum(), o[1].abs().sum()), "grad": False}),
    ("eigvals", "linalg.eigvals", [well(2, 3, 3)], {}),
    ("eigvals-rot", "linalg.eigvals", [np.array([[0., -1.], [1., 0.]])], {}),
    ("eigvals-empty", "linalg.eigvals", [E((0, 0))], {}),
    ("eigvals-nonsquare", "linalg.eigvals", [rand(2, 3)], {}),
    # lstsq
    ("lstsq-tall", "linalg.lstsq", [rand(5, 3), rand(5, 2)], {}),
    ("lstsq-batch", "linalg.lstsq", [rand(2, 5, 3), rand(2, 5, 2)], {}),
    ("lstsq-broadcast", "linalg.lstsq", [rand(2, 1, 5, 3), rand(3, 5, 2)], {}),
    ("lstsq-gelsd", "linalg.lstsq", [rand(5, 3), rand(5, 2)], {"driver": "gelsd"}),
    ("lstsq-gelss", "linalg.lstsq", [rand(5, 3), rand(5, 2)], {"driver": "gelss"}),
    ("lstsq-gelsy", "linalg.lstsq", [rand(5, 3), rand(5, 2)], {"driver": "gelsy"}),
    ("lstsq-bad-driver", "linalg.lstsq", [rand(5, 3), rand(5, 2)], {"driver": "foo"}),
    ("lstsq-rankdef-gelsd", "linalg.lstsq", [low_rank(5, 3, 2), rand(5, 2)],
     {"driver": "gelsd", "grad": False}),
    ("lstsq-f32", "linalg.lstsq", [rand(5, 3, dtype=F32), rand(5, 1, dtype=F32)], {}),
    ("lstsq-vec-b", "linalg.lstsq", [rand(5, 3), rand(5)], {}),
    ("lstsq-c128", "linalg.lstsq", [rand(5, 3, dtype=C128), rand(5, 2, dtype=C128)], {}),
    ("lstsq-wide-gelsd", "linalg.lstsq", [rand(3, 5), rand(3, 2)], {"driver": "gelsd"}),
    # pinv
    ("pinv", "linalg.pinv", [rand(4, 3)], {}),
    ("pinv-batch", "linalg.pinv", [rand(2, 3, 4)], {}),
    ("pinv-hermitian", "linalg.pinv", [sym(3, 3)], {"hermitian": True}),
    ("pinv-rankdef", "linalg.pinv", [low_rank(4, 3, 2)], {"grad": False}),
    ("pinv-atol", "linalg.pinv", [np.diag([3., 1., 1e-3])], {"atol": 0.01}),
    ("pinv-rtol", "linalg.pinv", [np.diag([3., 1., 1e-3])], {"rtol": 0.1}),
    ("pinv-rcond", "linalg.pinv", [np.diag([3., 1., 1e-3])], {"rcond": 0.1}),
    ("pinv-atol-tensor", "linalg.pinv", [np.diag([3., 1., 1e-3]), ], {"atol": np.array(0.01)}),
    ("pinv-c128", "linalg.pinv", [rand(3, 2, dtype=C128)], {}),
    ("pinv-empty", "linalg.pinv", [E((0, 3))], {}),
    ("pinv-f32", "linalg.pinv", [rand(3, 2, dtype=F32)], {}),
    # norms
    ("vector_norm", "linalg.vector_norm", [rand(3, 4)], {}),
    ("vector_norm-ord1-dim", "linalg.vector_norm", [rand(3, 4)], {"ord": 1, "dim": 1}),
    ("vector_norm-inf-keep", "linalg.vector_norm", [rand(3, 4)],
     {"ord": float("inf"), "dim": (0, 1), "keepdim": True}),
    ("vector_norm-ninf", "linalg.vector_norm", [rand(3, 4)], {"ord": -float("inf")}),
    ("vector_norm-0", "linalg.vector_norm", [rand(3, 4)], {"ord": 0}),
    ("vector_norm-3.5", "linalg.vector_norm", [rand(3, 4)], {"ord": 3.5, "dim": -1}),
    ("vector_norm-neg1", "linalg.vector_norm", [rand(3, 4)], {"ord": -1, "dim": 0}),
    ("vector_norm-dtype", "linalg.vector_norm", [rand(3, 4, dtype=F32)],
     {"dtype": Raw(None)}),
    ("vector_norm-c128", "linalg.vector_norm", [rand(3, dtype=C128)], {}),
    ("vector_norm-int", "linalg.vector_norm", [np.arange(4)], {}),
    ("vector_norm-empty", "linalg.vector_norm", [E((0,))], {}),
    ("vector_norm-empty-inf", "linalg.vector_norm", [E((0,))], {"ord": float("inf")}),
    ("vector_norm-zero-grad", "linalg.vector_norm", [np.zeros(3)], {}),
    ("vector_norm-0d", "linalg.vector_norm", [np.array(-2.0)], {}),
    ("matrix_norm-fro", "linalg.matrix_norm", [rand(2, 3, 4)], {}),
    ("matrix_norm-nuc", "linalg.matrix_norm", [rand(3, 4)], {"ord": "nuc"}),
    ("matrix_norm-2", "linalg.matrix_norm", [rand(3, 4)], {"ord": 2}),
    ("matrix_norm--2", "linalg.matrix_norm", [rand(3, 4)], {"ord": -2}),
    ("matrix_norm-1", "linalg.matrix_norm", [rand(3, 4)], {"ord": 1}),
    ("matrix_norm--1", "linalg.matrix_norm", [rand(3, 4)], {"ord": -1}),
    ("matrix_norm-inf", "linalg.matrix_norm", [rand(3, 4)], {"ord": float("inf")}),
    ("matrix_norm--inf", "linalg.matrix_norm", [rand(3, 4)], {"ord": -float("inf")}),
    ("matrix_norm-keepdim", "linalg.matrix_norm", [rand(2, 3, 4)],
     {"ord": 1, "keepdim": True}),
    ("matrix_norm-dim", "linalg.matrix_norm", [rand(3, 4, 2)], {"dim": (0, 1)}),
    ("matrix_norm-bad-ord", "linalg.matrix_norm", [rand(3, 4)], {"ord": 3}),
    ("matrix_norm-1d", "linalg.matrix_norm", [rand(3)], {}),
    ("matrix_norm-c128", "linalg.matrix_norm", [rand(3, 3, dtype=C128)], {"ord": "nuc"}),
    ("matrix_norm-empty-fro", "linalg.matrix_norm", [E((0, 3))], {}),
    ("norm-default-vec", "linalg.norm", [rand(5)], {}),
    ("norm-default-mat", "linalg.norm", [rand(3, 4)], {}),
    ("norm-default-3d", "linalg.norm", [rand(2, 3, 4)], {}),
    ("norm-ord2-mat", "linalg.norm", [rand(3, 4)], {"ord": 2}),
    ("norm-ord2-vec", "linalg.norm", [rand(3, 4)], {"ord": 2, "dim": 1}),
    ("norm-fro-vecdim", "linalg.norm", [rand(3, 4)], {"ord": "fro", "dim": 1}),
    ("norm-nuc", "linalg.norm", [rand(3, 4)], {"ord": "nuc"}),
    ("norm-ord-3d", "linalg.norm", [rand(2, 3, 4)], {"ord": 1}),
    ("norm-keepdim", "linalg.norm", [rand(3, 4)], {"keepdim": True}),
    ("norm-int", "linalg.norm", [np.arange(4)], {}),
    ("norm-nuc-dim1", "linalg.norm", [rand(3, 4)], {"ord": "nuc", "dim": (0,)}),
    ("norm-fro-1d", "linalg.norm", [rand(3)], {"ord": "fro"}),
    ("norm-fro-3d", "linalg.norm", [rand(2, 3, 4)], {"ord": "fro"}),
    ("norm-fro-dims", "linalg.norm", [rand(2, 3, 4)], {"ord": "fro", "dim": (0, 2)}),
    ("norm-dtype", "linalg.norm", [rand(3, 4, dtype=F32)], {"dtype": Raw(None)}),
    ("vector_norm-str", "linalg.vector_norm", [rand(3, 4)], {"ord": "fro"}),
    ("matrix_norm-bad-str", "linalg.matrix_norm", [rand(3, 4)], {"ord": "foo"}),
    ("matrix_norm-int", "linalg.matrix_norm", [np.eye(3, dtype=np.int64)], {}),
    # cross / vecdot / multi_dot / matrix_power / matrix_exp
    ("cross", "linalg.cross", [rand(4, 3), rand(4, 3)], {}),
    ("cross-broadcast", "linalg.cross", [rand(2, 1, 3), rand(4, 3)], {}),
    ("cross-dim0", "linalg.cross", [rand(3, 4), rand(3, 4)], {"dim": 0}),
    ("cross-ndim", "linalg.cross", [rand(3), rand(2, 3)], {}),
    ("cross-bad", "linalg.cross", [rand(4, 2), rand(4, 2)], {}),
    ("cross-int", "linalg.cross", [np.arange(3), np.arange(3)[::-1].copy()], {}),
    ("cross-c128", "linalg.cross", [rand(3, dtype=C128), rand(3, dtype=C128)], {}),
    ("vecdot", "linalg.vecdot", [rand(4, 3), rand(4, 3)], {}),
    ("vecdot-c128", "linalg.vecdot", [rand(3, dtype=C128), rand(3, dtype=C128)], {}),
    ("vecdot-dim0", "linalg.vecdot", [rand(3, 4), rand(3, 1)], {"dim": 0}),
    ("vecdot-int", "linalg.vecdot", [np.arange(3), np.arange(3)], {}),
    ("vecdot-mismatch", "linalg.vecdot", [rand(3), rand(3, dtype=F32)], {}),
    ("multi_dot", "linalg.multi_dot", [[rand(2, 3), rand(3, 4), rand(4, 5)]], {}),
    ("multi_dot-vecs", "linalg.multi_dot", [[rand(3), rand(3, 4), rand(4)]], {}),
    ("multi_dot-one", "linalg.multi_dot", [[rand(3, 3)]], {}),
    ("multi_dot-empty", "linalg.multi_dot", [Raw([])], {}),
    ("multi_dot-3d", "linalg.multi_dot", [[rand(2, 3, 3), rand(3, 3)]], {}),
    ("multi_dot-int", "linalg.multi_dot", [[np.ones((2, 2), np.int64), np.ones((2, 2), np.int64)]],
     {}),
    ("matrix_power-3", "linalg.matrix_power", [rand(2, 3, 3), Raw(3)], {}),
    ("matrix_power-0", "linalg.matrix_power", [rand(3, 3), Raw(0)], {}),
    ("matrix_power--2", "linalg.matrix_power", [well(3, 3), Raw(-2)], {}),
    ("matrix_power-int", "linalg.matrix_power", [np.ones((2, 2), np.int64), Raw(3)], {}),
    ("matrix_power-int-neg", "linalg.matrix_power", [np.eye(2, dtype=np.int64), Raw(-1)], {}),
    ("matrix_power-nonsquare", "linalg.matrix_power", [rand(2, 3), Raw(2)], {}),
    ("matrix_power-empty", "linalg.matrix_power", [E((0, 2, 2)), Raw(2)], {}),
    ("matrix_exp", "linalg.matrix_exp", [rand(3, 3)], {}),
    ("matrix_exp-batch", "linalg.matrix_exp", [rand(2, 3, 3)], {}),
    ("matrix_exp-big", "linalg.matrix_exp", [5 * rand(3, 3)], {}),
    ("matrix_exp-c128", "linalg.matrix_exp", [rand(3, 3, dtype=C128)], {}),
    ("matrix_exp-f32", "linalg.matrix_exp", [rand(3, 3, dtype=F32)], {}),
    ("matrix_exp-0x0", "linalg.matrix_exp", [E((0, 0))], {}),
    ("matrix_exp-1x1", "linalg.matrix_exp", [rand(1, 1)], {}),
    ("matrix_exp-int", "linalg.matrix_exp", [np.eye(2, dtype=np.int64)], {}),
    # lu family
    ("lu", "linalg.lu", [rand(3, 3)], {}),
    ("lu-tall", "linalg.lu", [rand(2, 5, 3)], {}),
    ("lu-wide", "linalg.lu", [rand(3, 5)], {}),
    ("lu-nopivot", "linalg.lu", [rand(3, 3)], {"pivot": False}),
    ("lu-c128", "linalg.lu", [rand(3, 3, dtype=C128)], {}),
    ("lu-empty", "linalg.lu", [E((0, 3, 3))], {}),
    ("lu-singular", "linalg.lu", [np.zeros((2, 2))], {"grad": False}),
    ("lu_factor", "linalg.lu_factor", [rand(2, 3, 3)], {}),
    ("lu_factor-wide", "linalg.lu_factor", [rand(3, 4)], {}),
    ("lu_factor-singular", "linalg.lu_factor", [np.zeros((2, 2))], {"grad": False}),
    ("lu_factor_ex-singular", "linalg.lu_factor_ex", [np.zeros((2, 2))], {"grad": False}),
    ("lu_factor_ex-check", "linalg.lu_factor_ex", [np.zeros((2, 2))], {"check_errors": True}),
    ("lu_factor-int", "linalg.lu_factor", [np.eye(2, dtype=np.int64)], {}),
    ("lu-int", "linalg.lu", [np.eye(2, dtype=np.int64)], {}),
    ("lu_factor-batch-singular", "linalg.lu_factor",
     [np.stack([np.eye(2), np.zeros((2, 2))])], {"grad": False}),
    ("lu_factor-rankdef", "linalg.lu_factor", [np.array([[1., 2.], [1., 2.]])],
     {"grad": False}),
    ("lu-nopivot-msg", "linalg.lu_factor", [rand(2, 2)], {"pivot": False}),
    # solve_triangular
    ("solve_triangular-upper", "linalg.solve_triangular",
     [tri(3, 3, upper=True), rand(3, 2)], {"upper": True}),
    ("solve_triangular-lower-right", "linalg.solve_triangular",
     [tri(3, 3, upper=False), rand(2, 3)], {"upper": False, "left": False}),
    ("solve_triangular-unit", "linalg.solve_triangular",
     [tri(3, 3, upper=False), rand(3, 2)], {"upper": False, "unitriangular": True}),
    ("solve_triangular-broadcast", "linalg.solve_triangular",
     [tri(2, 1, 3, 3, upper=True), rand(4, 3, 2)], {"upper": True}),
    ("solve_triangular-vec", "linalg.solve_triangular",
     [tri(3, 3, upper=True), rand(3)], {"upper": True}),
    ("solve_triangular-c128", "linalg.solve_triangular",
     [tri(3, 3, upper=True, dtype=C128), rand(3, 1, dtype=C128)], {"upper": True}),
    ("solve_triangular-noupper", "linalg.solve_triangular",
     [tri(3, 3, upper=True), rand(3, 1)], {}),
    ("solve_triangular-singular", "linalg.solve_triangular",
     [np.triu(np.ones((2, 2))) - np.eye(2), rand(2, 1)], {"upper": True, "grad": False}),
    ("solve_triangular-empty", "linalg.solve_triangular",
     [E((0, 3, 3)), E((0, 3, 1))], {"upper": True}),
    # matrix_rank / cond
    ("matrix_rank", "linalg.matrix_rank", [low_rank(4, 3, 2)], {}),
    ("matrix_rank-batch", "linalg.matrix_rank", [low_rank(4, 3, 1, batch=(2,))], {}),
    ("matrix_rank-hermitian", "linalg.matrix_rank", [np.diag([1., 1e-20, 0.])],
     {"hermitian": True}),
    ("matrix_rank-tol", "linalg.matrix_rank", [np.diag([3., 1., 1e-3])], {"tol": 0.01}),
    ("matrix_rank-atol-rtol", "linalg.matrix_rank", [np.diag([3., 1., 1e-3])],
     {"atol": 0.01, "rtol": 0.5}),
    ("matrix_rank-empty", "linalg.matrix_rank", [E((0, 3))], {}),
    ("matrix_rank-int", "linalg.matrix_rank", [np.eye(2, dtype=np.int64)], {}),
    ("cond", "linalg.cond", [well(3, 3)], {}),
    ("cond-fro", "linalg.cond", [well(2, 3, 3)], {"p": "fro", "grad": False}),
    ("cond-nuc", "linalg.cond", [well(3, 3)], {"p": "nuc"}),
    ("cond-1", "linalg.cond", [well(3, 3)], {"p": 1, "grad": False}),
    ("cond-inf", "linalg.cond", [well(3, 3)], {"p": float("inf"), "grad": False}),
    ("cond--2", "linalg.cond", [rand(4, 3)], {"p": -2}),
    ("cond-rect-1", "linalg.cond", [rand(4, 3)], {"p": 1}),
    ("cond-singular-1", "linalg.cond", [np.zeros((2, 2))], {"p": 1, "grad": False}),
    ("cond-singular-2", "linalg.cond", [np.zeros((2, 2))], {"grad": False}),
    ("cond-c128", "linalg.cond", [well(3, 3, dtype=C128)], {}),
    ("cond-empty", "linalg.cond", [E((0, 0))], {"grad": False}),
    # tensorinv / tensorsolve / householder_product / diagonal / vander
    ("tensorinv", "linalg.tensorinv", [well(6, 6).reshape(6, 2, 3)], {"ind": 1}),
    ("tensorinv-ind2", "linalg.tensorinv", [well(6, 6).reshape(2, 3, 6)], {}),
    ("tensorinv-bad", "linalg.tensorinv", [rand(2, 3, 4)], {"ind": 1}),
    ("tensorsolve", "linalg.tensorsolve", [well(6, 6).reshape(2, 3, 6), rand(2, 3)], {}),
    ("tensorsolve-dims", "linalg.tensorsolve", [well(6, 6).reshape(6, 2, 3), rand(6)],
     {"dims": (0,)}),
    ("householder_product", "linalg.householder_product", [rand(4, 3), rand(2)], {}),
    ("householder_product-batch", "linalg.householder_product",
     [rand(2, 4, 3), rand(2, 3)], {}),
    ("householder_product-c128", "linalg.householder_product",
     [rand(4, 3, dtype=C128), rand(3, dtype=C128)], {}),
    ("householder_product-bad", "linalg.householder_product", [rand(3, 4), rand(2)], {}),
    ("householder_product-tau-long", "linalg.householder_product", [rand(4, 3), rand(4)], {}),
    ("diagonal", "linalg.diagonal", [rand(2, 3, 4)], {}),
    ("diagonal-offset", "linalg.diagonal", [rand(3, 4)], {"offset": 1}),
    ("diagonal-dims", "linalg.diagonal", [rand(3, 4, 5)], {"dim1": 0, "dim2": 2}),
    ("vander", "linalg.vander", [rand(4)], {}),
    ("vander-N", "linalg.vander", [rand(2, 3)], {"N": 5}),
    ("vander-int", "linalg.vander", [np.arange(3)], {}),
    ("matmul", "linalg.matmul", [rand(2, 3), rand(3)], {}),
    # more edges
    ("det-f16", "linalg.det", [np.eye(2, dtype=np.float16)], {}),
    ("inv-f16", "linalg.inv", [np.eye(2, dtype=np.float16)], {}),
    ("svdvals-f16", "linalg.svdvals", [np.eye(2, dtype=np.float16)], {}),
    ("eigh-f16", "linalg.eigh", [np.eye(2, dtype=np.float16)], {}),
    ("slogdet-f16", "linalg.slogdet", [np.eye(2, dtype=np.float16)], {}),
    ("cholesky-f16", "linalg.cholesky", [np.eye(2, dtype=np.float16)], {}),
    ("qr-f16", "linalg.qr", [np.eye(2, dtype=np.float16)], {}),
    ("svd-f16", "linalg.svd", [np.eye(2, dtype=np.float16)], {}),
    ("eigvalsh-f16", "linalg.eigvalsh", [np.eye(2, dtype=np.float16)], {}),
    ("matrix_power-f16-neg", "linalg.matrix_power", [np.eye(2, dtype=np.float16), Raw(-1)],
     {}),
    ("matrix_power-f16", "linalg.matrix_power", [np.eye(2, dtype=np.float16), Raw(2)],
     {"grad": False}),
    ("lu-f16", "linalg.lu", [np.eye(2, dtype=np.float16)], {}),
    ("solve_triangular-f16", "linalg.solve_triangular", [np.eye(2, dtype=np.float16),
                                                          np.eye(2, dtype=np.float16)],
     {"upper": True}),
    ("eig-f16", "linalg.eig", [np.eye(2, dtype=np.float16)], {}),
    ("pinv-f16", "linalg.pinv", [np.eye(2, dtype=np.float16)], {}),
    ("lstsq-f16", "linalg.lstsq", [np.eye(2, dtype=np.float16), np.eye(2, dtype=np.float16)],
     {}),
    ("inv_ex-f16", "linalg.inv_ex", [np.eye(2, dtype=np.float16)], {}),
    ("cholesky_ex-f16", "linalg.cholesky_ex", [np.eye(2, dtype=np.float16)], {}),
    ("solve-f16", "linalg.solve", [np.eye(2, dtype=np.float16), np.ones(2, np.float16)], {}),
    ("vector_norm-f16", "linalg.vector_norm", [np.ones(3, np.float16)], {"grad": False}),
    ("vector_norm-c128-dtype", "linalg.vector_norm", [rand(3, dtype=C64)],
     {"dtype": Dt("complex128")}),
    ("vector_norm-f32-to-f64-grad", "linalg.vector_norm", [rand(3, dtype=F32)],
     {"dtype": Dt("float64")}),
    ("matrix_norm-dtype", "linalg.matrix_norm", [rand(3, 3, dtype=F32)],
     {"dtype": Dt("float64")}),
    ("vector_norm-c128-grad", "linalg.vector_norm", [rand(2, 3, dtype=C128)],
     {"ord": 3, "dim": 1}),
    ("matrix_norm-c128-2", "linalg.matrix_norm", [rand(3, 3, dtype=C128)], {"ord": 2}),
    ("matrix_rank-hermitian-c128", "linalg.matrix_rank", [sym(3, 3, dtype=C128)],
     {"hermitian": True}),
    ("eig-repeated", "linalg.eigvals", [np.eye(2)], {}),
    ("lu-c64", "linalg.lu", [rand(3, 3, dtype=C64)], {}),
    ("slogdet-f32-batch", "linalg.slogdet", [well(2, 2, 3, 3, dtype=F32)], {}),
    ("eigvalsh-int", "linalg.eigvalsh", [np.eye(3, dtype=np.int64)], {}),
    ("eigvals-int", "linalg.eigvals", [np.eye(3, dtype=np.int64)], {}),
    ("matrix_exp-nonsquare", "linalg.matrix_exp", [rand(2, 3)], {}),
    ("matrix_exp-1d", "linalg.matrix_exp", [rand(3)], {}),
    ("svd-reduced-grad", "linalg.svd", [rand(2, 4, 3)],
     {"full_matrices": False, "post": _svd_inv}),
    ("svd-f32", "linalg.svd", [rand(4, 3, dtype=F32)], {"full_matrices": False,
                                                         "post": _svd_inv}),
    ("svdvals-1d", "linalg.svdvals", [rand(3)], {}),
    ("svdvals-driver", "linalg.svdvals", [rand(3, 3)], {"driver": "gesvd"}),
    ("svd-driver", "linalg.svd", [rand(3, 3)], {"driver": "gesvd"}),
    ("svd-driver-none", "linalg.svd", [rand(3, 3)], {"driver": Raw(None), "post": _svd_inv}),
    ("vander-positional-N", "linalg.vander", [rand(3), Raw(2)], {}),
    ("cond--1", "linalg.cond", [well(3, 3)], {"p": -1, "grad": False}),
    ("cond-bad-p", "linalg.cond", [well(3, 3)], {"p": 3}),
    ("cond-fro-rect", "linalg.cond", [rand(4, 3)], {"p": "fro"}),
    ("cond-int", "linalg.cond", [np.eye(2, dtype=np.int64)], {}),
    ("cond-1d", "linalg.cond", [rand(3)], {}),
    ("matrix_rank-tol-tensor", "linalg.matrix_rank", [np.diag([3., 1., 1e-3])],
     {"atol": Raw(0.01)}),
    ("matrix_rank-rtol-only", "linalg.matrix_rank", [np.diag([3., 1., 1e-3])],
     {"rtol": 0.01}),
    ("matrix_rank-c128", "linalg.matrix_rank", [rand(3, 3, dtype=C128)], {}),
    ("matrix_rank-f32", "linalg.matrix_rank", [low_rank(4, 3, 2, dtype=F32)], {}),
    ("matrix_rank-1d", "linalg.matrix_rank", [rand(3)], {}),
    ("pinv-hermitian-c128", "linalg.pinv", [sym(3, 3, dtype=C128)], {"hermitian": True}),
    ("pinv-1d", "linalg.pinv", [rand(3)], {}),
    ("pinv-rcond-rtol", "linalg.pinv", [rand(3, 3)], {"rcond": 0.1, "rtol": 0.1}),
    ("pinv-complex-atol", "linalg.pinv", [rand(3, 3)], {"atol": Raw(1j)}),
    ("lstsq-dtype-mismatch", "linalg.lstsq", [rand(5, 3), rand(5, 2, dtype=F32)], {}),
    ("lstsq-rows-mismatch", "linalg.lstsq", [rand(5, 3), rand(4, 2)], {}),
    ("lstsq-gels", "linalg.lstsq", [rand(5, 3), rand(5, 2)], {"driver": "gels"}),
    ("lstsq-empty", "linalg.lstsq", [E((0, 3)), E((0, 2))], {"grad": False}),
    ("lstsq-rcond", "linalg.lstsq", [np.diag([3., 1., 1e-8]), rand(3, 1)],
     {"rcond": 1e-3, "driver": "gelsd", "grad": False}),
    ("vector_norm-keepdim-none", "linalg.vector_norm", [rand(2, 3)], {"keepdim": True}),
    ("vector_norm-dtype-f64", "linalg.vector_norm", [rand(3, dtype=F32)],
     {"dtype": Dt("float64")}),
    ("vector_norm-inf-grad-ties", "linalg.vector_norm", [np.array([1.0, -3.0, 3.0])],
     {"ord": float("inf")}),
    ("vector_norm-nan", "linalg.vector_norm", [np.array([1.0, np.nan])], {}),
    ("vector_norm-inf-input", "linalg.vector_norm", [np.array([1.0, np.inf])], {}),
    ("vector_norm-noncontig", "linalg.vector_norm", [NC(rand(3, 4))], {"dim": -1}),
    ("vector_norm-bad-dim", "linalg.vector_norm", [rand(3)], {"dim": 2}),
    ("matrix_norm-2-ties", "linalg.matrix_norm", [np.eye(2)], {"ord": 2, "grad": False}),
    ("matrix_norm-f32-nuc", "linalg.matrix_norm", [rand(3, 3, dtype=F32)], {"ord": "nuc"}),
    ("matrix_norm-empty-batch", "linalg.matrix_norm", [E((0, 3, 3))], {"ord": 1}),
    ("diagonal-1d", "linalg.diagonal", [rand(3)], {}),
    ("diagonal-neg-offset", "linalg.diagonal", [rand(2, 3, 4)], {"offset": -1}),
    ("vander-bad-N", "linalg.vander", [rand(3)], {"N": 0}),
    ("vander-0d", "linalg.vander", [np.array(2.0)], {}),
    ("vander-c128", "linalg.vander", [rand(3, dtype=C128)], {}),
    ("multi_dot-1d-only", "linalg.multi_dot", [[rand(3), rand(3)]], {}),
    ("multi_dot-mismatch", "linalg.multi_dot", [[rand(2, 3), rand(4, 5)]], {}),
    ("multi_dot-dtype", "linalg.multi_dot", [[rand(2, 3), rand(3, 2, dtype=F32)]], {}),
    ("vecdot-broadcast", "linalg.vecdot", [rand(2, 1, 3), rand(4, 3)], {}),
    ("cross-dim-bad", "linalg.cross", [rand(3, 4), rand(3, 4)], {}),
    ("cholesky-upper-c128", "linalg.cholesky", [spd(3, 3, dtype=C128)], {"upper": True}),
    ("cholesky-nan", "linalg.cholesky", [np.full((2, 2), np.nan)], {"grad": False}),
    ("inv-nan", "linalg.inv", [np.full((2, 2), np.nan)], {"grad": False}),
    ("det-inf", "linalg.det", [np.array([[np.inf, 1.], [1., 1.]])], {"grad": False}),
    ("slogdet-1x1-neg", "linalg.slogdet", [np.array([[-2.0]])], {}),
    ("solve_triangular-int", "linalg.solve_triangular", [np.eye(2, dtype=np.int64),
                                                          np.ones((2, 1), np.int64)],
     {"upper": True}),
    ("solve_triangular-dtype", "linalg.solve_triangular", [tri(3, 3, upper=True),
                                                            rand(3, 1, dtype=F32)],
     {"upper": True}),
    ("householder_product-dtype", "linalg.householder_product", [rand(4, 3),
                                                                 rand(2, dtype=F32)], {}),
    ("householder_product-k0", "linalg.householder_product", [rand(3, 2), E((0,))], {}),
    ("tensorsolve-bad", "linalg.tensorsolve", [rand(2, 3, 4), rand(2, 3)], {}),
    ("tensorinv-ind0", "linalg.tensorinv", [rand(2, 2)], {"ind": 0}),
    ("lu_solve-bad-pivots", "linalg.lu_solve", [well(3, 3), np.array([1, 2, 3], np.int64),
                                                rand(3, 1)], {}),
    ("inv_ex-batch-info", "linalg.inv_ex", [np.stack([np.eye(2), np.zeros((2, 2))])],
     {"grad": False}),
    ("cholesky_ex-batch-info", "linalg.cholesky_ex",
     [np.stack([np.eye(2), -np.eye(2)])], {"grad": False}),
    ("cholesky_ex-check-batch", "linalg.cholesky_ex",
     [np.stack([np.eye(2), -np.eye(2)])], {"check_errors": True}),
]

LU_SOLVE = [
    ("lu_solve", dict(), (3, 2)),
    ("lu_solve-left-false", dict(left=False), (2, 3)),
    ("lu_solve-adjoint", dict(adjoint=True), (3, 2)),
    ("lu_solve-adjoint-right", dict(adjoint=True, left=False), (2, 3)),
]

_A = well(2, 3, 3)
_LU, _PIV = (t.numpy() for t in torch.linalg.lu_factor(torch.from_numpy(_A)))
for _name, _kw, _bshape in LU_SOLVE:
    LINALG.append((_name, "linalg.lu_solve",
                   [_LU.copy(), _PIV.copy(), rand(2, *_bshape)], _kw))

_EDGE = np.array([0.0, -0.0, 1.0, -1.0, -2.0, 0.5, -0.5, 2.5, -2.5, 30.0, -30.0, 1e10, -1e10,
                  1e-300, np.inf, -np.inf, np.nan])
_UNIT = np.array([0.0, 1e-300, 0.25, 0.5, 0.75, 1.0, -0.5, 1.5, np.nan])
_SMOOTH = np.array([0.3, 1.7, 2.9, 4.2])
_SIGNED = np.array([-2.7, -0.6, 0.3, 1.7])
_INTS = np.arange(-3, 4)
_BOOLS = np.array([True, False])

UNARY = ["erf", "erfc", "erfinv", "expit", "logit", "exp2", "expm1", "log1p", "gammaln",
         "digamma", "psi", "sinc", "round", "entr", "ndtr", "ndtri", "log_ndtr", "i0", "i0e",
         "i1", "i1e"]
_DOMAIN = {"erfinv": np.array([-0.7, -0.1, 0.2, 0.6]), "logit": np.array([0.1, 0.4, 0.7]),
           "ndtri": np.array([0.1, 0.4, 0.7]), "entr": np.array([0.1, 0.4, 2.7]),
           "log1p": np.array([-0.6, 0.3, 1.7]), "gammaln": _SMOOTH, "digamma": _SMOOTH,
           "psi": _SMOOTH}

SPECIAL = []
for _f in UNARY:
    SPECIAL.append((_f + "-edge", "special." + _f, [_EDGE.copy()], {"grad": False}))
    SPECIAL.append((_f + "-unit", "special." + _f, [_UNIT.copy()], {"grad": False}))
    SPECIAL.append((_f + "-int", "special." + _f, [_INTS.copy()], {}))
    SPECIAL.append((_f + "-bool", "special." + _f, [_BOOLS.copy()], {}))
    SPECIAL.append((_f + "-f32", "special." + _f, [_SIGNED.astype(np.float32)], {}))
    SPECIAL.append((_f + "-grad", "special." + _f, [_DOMAIN.get(_f, _SIGNED).copy()], {}))
    SPECIAL.append((_f + "-0d", "special." + _f, [np.array(0.3)], {}))
    SPECIAL.append((_f + "-empty", "special." + _f, [E((0, 2))], {}))
    SPECIAL.append((_f + "-2d-noncontig", "special." + _f, [NC(np.abs(rand(3, 2)) * 0.3)], {}))
SPECIAL += [
    ("logit-eps", "special.logit", [_UNIT.copy()], {"eps": 0.1}),
    ("logit-eps-grad", "special.logit", [np.array([0.05, 0.5, 0.95])], {"eps": 0.1}),
    ("round-decimals", "special.round", [np.array([1.2345, -2.5, 0.5])], {"decimals": 2}),
    ("polygamma-0", "special.polygamma", [Raw(0), _SMOOTH.copy()], {}),
    ("polygamma-1", "special.polygamma", [Raw(1), _SMOOTH.copy()], {}),
    ("polygamma-3", "special.polygamma", [Raw(3), _SMOOTH.copy()], {}),
    ("polygamma-edge", "special.polygamma", [Raw(1), _EDGE.copy()], {"grad": False}),
    ("polygamma-int", "special.polygamma", [Raw(2), _INTS.copy()], {}),
    ("polygamma-neg-n", "special.polygamma", [Raw(-1), _SMOOTH.copy()], {}),
    ("multigammaln", "special.multigammaln", [np.array([2.5, 3.7]), Raw(2)], {}),
    ("multigammaln-p1", "special.multigammaln", [np.array([0.7, 3.7]), Raw(1)], {}),
    ("multigammaln-domain", "special.multigammaln", [np.array([0.2, 3.7]), Raw(3)], {}),
    ("multigammaln-f32", "special.multigammaln", [np.array([2.5, 3.7], np.float32), Raw(2)],
     {}),
    ("multigammaln-p0", "special.multigammaln", [np.array([2.5]), Raw(0)], {}),
    ("multigammaln-int", "special.multigammaln", [np.array([2, 3]), Raw(2)], {}),
    ("multigammaln-0d", "special.multigammaln", [np.array(2.5), Raw(3)], {}),
    ("multigammaln-edge", "special.multigammaln", [_EDGE.copy(), Raw(3)], {"grad": False}),
    ("multigammaln-float-p", "special.multigammaln", [np.array([2.5]), Raw(2.0)], {}),
    ("round-int-decimals", "special.round", [_INTS.copy()], {"decimals": 1}),
    ("xlogy", "special.xlogy", [_SIGNED.copy(), np.abs(_SMOOTH)], {}),
    ("xlogy-zero", "special.xlogy", [np.array([0.0, 0.0, 1.0]), np.array([0.0, np.nan, 0.0])],
     {"grad": False}),
    ("xlogy-scalar-x", "special.xlogy", [Raw(2.0), np.abs(_SMOOTH)], {}),
    ("xlogy-scalar-y", "special.xlogy", [_SIGNED.copy(), Raw(3.0)], {}),
    ("xlogy-int", "special.xlogy", [_INTS.copy(), np.abs(_INTS)], {}),
    ("xlogy-broadcast", "special.xlogy", [rand(3, 1), np.abs(rand(4))], {}),
    ("xlog1py", "special.xlog1py", [_SIGNED.copy(), np.abs(_SMOOTH)], {}),
    ("xlog1py-zero", "special.xlog1py", [np.array([0.0, 0.0, 1.0]),
                                         np.array([-1.0, np.nan, -1.0])], {"grad": False}),
    ("xlog1py-scalar-x", "special.xlog1py", [Raw(2.0), np.abs(_SMOOTH)], {}),
    ("xlog1py-int", "special.xlog1py", [_INTS.copy(), np.abs(_INTS)], {}),
    ("gammainc", "special.gammainc", [np.abs(_SMOOTH), np.array([0.5, 1.0, 2.0, 7.0])],
     {"grad": False}),
    ("gammainc-grad-x", "special.gammainc", [Raw(None), Raw(None)], {"custom": "gammainc"}),
    ("gammainc-grad-a", "special.gammainc", [_SMOOTH.copy(), np.abs(_SMOOTH)], {}),
    ("gammainc-edge", "special.gammainc", [np.array([0.0, 1.0, 1.0, -1.0, 1.0, np.inf]),
                                          np.array([1.0, 0.0, np.inf, 1.0, -1.0, 1.0])],
     {"grad": False}),
    ("gammainc-int", "special.gammainc", [np.array([1, 2]), np.array([1, 3])], {}),
    ("gammaincc", "special.gammaincc", [np.abs(_SMOOTH), np.array([0.5, 1.0, 2.0, 7.0])],
     {"grad": False}),
    ("gammaincc-edge", "special.gammaincc", [np.array([0.0, 1.0, 1.0, -1.0, 1.0, np.inf]),
                                            np.array([1.0, 0.0, np.inf, 1.0, -1.0, 1.0])],
     {"grad": False}),
    ("softmax", "special.softmax", [rand(3, 4)], {"dim": 1}),
    ("softmax-dtype", "special.softmax", [rand(3, 4, dtype=F32)], {"dim": 0}),
    ("softmax-int", "special.softmax", [_INTS.copy()], {"dim": 0}),
    ("softmax-inf", "special.softmax", [np.array([-np.inf, 0.0, np.inf])], {"dim": 0,
                                                                            "grad": False}),
    ("log_softmax", "special.log_softmax", [rand(3, 4)], {"dim": -1}),
    ("log_softmax-int", "special.log_softmax", [_INTS.copy()], {"dim": 0}),
    ("log_softmax-allinf", "special.log_softmax", [np.array([-np.inf, -np.inf])],
     {"dim": 0, "grad": False}),
    ("logsumexp", "special.logsumexp", [rand(3, 4)], {"dim": 1}),
    ("logsumexp-keepdim", "special.logsumexp", [rand(3, 4)], {"dim": (0, 1), "keepdim": True}),
    ("logsumexp-int", "special.logsumexp", [_INTS.copy()], {"dim": 0}),
    ("logsumexp-inf", "special.logsumexp", [np.array([np.inf, -np.inf, 1.0])],
     {"dim": 0, "grad": False}),
    ("logsumexp-allneginf", "special.logsumexp", [np.array([-np.inf, -np.inf])],
     {"dim": 0}),
    ("logsumexp-empty", "special.logsumexp", [E((0, 3))], {"dim": 0}),
    ("logsumexp-nodim", "special.logsumexp", [rand(3)], {}),
    ("softmax-dtype-arg", "special.softmax", [rand(3, dtype=F32)], {"dim": 0,
                                                                    "dtype": Dt("float64")}),
    ("softmax-nodim", "special.softmax", [rand(3)], {}),
    ("log_softmax-nodim", "special.log_softmax", [rand(3)], {}),
    ("log_softmax-dtype-arg", "special.log_softmax", [rand(3, dtype=F32)],
     {"dim": 0, "dtype": Dt("float64")}),
    ("polygamma-f32", "special.polygamma", [Raw(1), _SMOOTH.astype(np.float32)], {}),
    ("polygamma-0d", "special.polygamma", [Raw(2), np.array(1.5)], {}),
    ("polygamma-negx", "special.polygamma", [Raw(1), np.array([-1.5, -0.3])], {}),
    ("xlogy-both-scalar", "special.xlogy", [Raw(2.0), Raw(3.0)], {}),
    ("xlogy-f32-f64", "special.xlogy", [_SIGNED.astype(np.float32), np.abs(_SMOOTH)], {}),
    ("xlogy-int-scalar", "special.xlogy", [_INTS.copy(), Raw(2)], {}),
    ("xlog1py-f32-scalar", "special.xlog1py", [_SIGNED.astype(np.float32), Raw(2.0)], {}),
    ("gammainc-f32-f64", "special.gammainc", [np.array([1.0], np.float32), np.array([2.0])],
     {"grad": False}),
    ("gammainc-scalar", "special.gammainc", [np.array([1.0, 2.0]), Raw(2.0)],
     {"grad": False}),
    ("gammainc-grad-both", "special.gammainc", [_SMOOTH.copy(), np.abs(_SMOOTH)], {}),
    ("gammaincc-grad-a", "special.gammaincc", [_SMOOTH.copy(), np.abs(_SMOOTH)], {}),
    ("gammaincc-int", "special.gammaincc", [np.array([1, 2]), np.array([1, 3])], {}),
    ("entr-neg", "special.entr", [np.array([-1.0, 0.0, 1.0])], {}),
    ("logit-eps-f32", "special.logit", [np.array([0.0, 0.5, 1.0], np.float32)],
     {"eps": 1e-3}),
    ("logit-int-eps", "special.logit", [np.array([0, 1])], {"eps": 0.25}),
    ("sinc-zero-grad", "special.sinc", [np.array([0.0, 1.0, -1.0])], {}),
    ("i0-large", "special.i0", [np.array([700.0, 710.0, -720.0])], {"grad": False}),
    ("i0e-large", "special.i0e", [np.array([700.0, 1e5, -1e10])], {"grad": False}),
    ("i1e-large", "special.i1e", [np.array([700.0, 1e5, -1e10])], {"grad": False}),
    ("ndtri-edge", "special.ndtri", [np.array([0.0, 1.0, -0.1, 1.1, 1e-300])],
     {"grad": False}),
    ("log_ndtr-tails", "special.log_ndtr", [np.array([-40.0, -10.0, 10.0, 40.0])], {}),
    ("erfinv-edge", "special.erfinv", [np.array([-1.0, 1.0, 1.5, -1.5])], {"grad": False}),
    ("erfinv-grad-edge", "special.erfinv", [np.array([-1.0, 1.0])], {}),
    ("digamma-negint", "special.digamma", [np.array([0.0, -0.0, -1.0, -2.0])],
     {"grad": False}),
    ("gammaln-negint", "special.gammaln", [np.array([0.0, -1.0, -2.5])], {}),
    ("expm1-complex", "special.expm1", [rand(3, dtype=C128)], {}),
    ("log1p-complex", "special.log1p", [rand(3, dtype=C128)], {}),
    ("erf-complex", "special.erf", [rand(3, dtype=C128)], {}),
    ("expit-complex", "special.expit", [rand(3, dtype=C128)], {}),
    ("sinc-complex", "special.sinc", [rand(3, dtype=C128)], {}),
    ("sinc-complex-zero", "special.sinc", [np.array([0j, 1 + 0j, 0.5 - 2j])], {}),
    ("sinc-c64", "special.sinc", [rand(2, 2, dtype=C64)], {}),
    ("exp2-complex", "special.exp2", [rand(3, dtype=C128)], {}),
    ("i0-complex", "special.i0", [rand(3, dtype=C128)], {}),
    ("ndtr-complex", "special.ndtr", [rand(3, dtype=C128)], {}),
    ("entr-complex", "special.entr", [rand(3, dtype=C128)], {}),
    ("xlogy-complex", "special.xlogy", [rand(3, dtype=C128), rand(3, dtype=C128)], {}),
    ("gammaln-complex", "special.gammaln", [rand(3, dtype=C128)], {}),
    ("digamma-complex", "special.digamma", [rand(3, dtype=C128)], {}),
    ("logit-complex", "special.logit", [rand(3, dtype=C128)], {}),
    ("round-complex", "special.round", [rand(3, dtype=C128)], {}),
    ("logsumexp-complex", "special.logsumexp", [rand(3, dtype=C128)], {"dim": 0}),
    ("softmax-complex", "special.softmax", [rand(3, dtype=C128)], {"dim": 0}),
    ("erf-f16", "special.erf", [np.array([0.5, 1.0], np.float16)], {"grad": False}),
    ("i1-f16", "special.i1", [np.array([0.5, 1.0], np.float16)], {"grad": False}),
]

_SPECIAL_KEYS = ("grad", "post", "tol", "custom")


def _case_params(cases):
    return [pytest.param(fn, args, kw, id=name) for name, fn, args, kw in cases]


@pytest.mark.parametrize("fn,args,kw", _case_params(LINALG) + _case_params(SPECIAL))
def test_probe_matches_torch(fn, args, kw):
    opts = {k: kw[k] for k in _SPECIAL_KEYS if k in kw}
    kwargs = {k: v for k, v in kw.items() if k not in _SPECIAL_KEYS}
    if opts.get("custom") == "gammainc":
        # the derivative in x (torch has it), with a fixed a
        a = _SMOOTH.copy()
        x = np.abs(_SIGNED)
        tx = torch.tensor(x, requires_grad=True)
        (tg,) = torch.autograd.grad(torch.special.gammainc(torch.from_numpy(a), tx).sum(), tx)
        px = pyad.tensor(x, requires_grad=True)
        (pg,) = pyad.autograd.grad(pyad.special.gammainc(pyad.tensor(a), px).sum(), px)
        np.testing.assert_allclose(pg.numpy(), tg.numpy(), rtol=1e-7, atol=1e-9)
        return
    check(fn, args, kwargs, grad=opts.get("grad", True), post=opts.get("post"),
          tol=opts.get("tol"))


# -- gradcheck / gradgradcheck (float64) of the paths the probe fixed -------------------

GRADCHECKS = [
    ("qr-complete-wide", lambda a: pyad.linalg.qr(a, mode="complete"), [rand(2, 4)]),
    ("qr-complete-square", lambda a: pyad.linalg.qr(a, mode="complete"), [rand(3, 3)]),
    # on symmetric inputs (a + a^T), where the gradient of eigh is defined
    ("eigh-U-eigenvalues", lambda a: pyad.linalg.eigh(a + a.mT, UPLO="U").eigenvalues,
     [rand(2, 3, 3)]),
    ("eigh-U-invariant", lambda a: _eigh_inv(pyad.linalg.eigh(a + a.mT, UPLO="U"), pyad),
     [rand(3, 3)]),
    ("solve-left-false", lambda a, b: pyad.linalg.solve(a, b, left=False),
     [well(3, 3), rand(2, 3)]),
    ("solve-left-false-batch", lambda a, b: pyad.linalg.solve(a, b, left=False),
     [well(2, 1, 3, 3), rand(4, 2, 3)]),
    ("solve_triangular-promoted",
     lambda a, b: pyad.linalg.solve_triangular(a, b.to(pyad.float64) * 1.0, upper=True),
     [tri(3, 3, upper=True), rand(3, 2)]),
    ("matrix_power-0", lambda a: pyad.linalg.matrix_power(a, 0) + a, [rand(3, 3)]),
    ("pinv-empty", lambda a: pyad.linalg.pinv(a), [E((0, 3))]),
    ("multigammaln", lambda x: pyad.special.multigammaln(x, 3), [np.array([2.5, 3.7, 1.2])]),
    ("multigammaln-0d", lambda x: pyad.special.multigammaln(x, 1), [np.array(0.7)]),
    ("sinc-complex", lambda z: pyad.special.sinc(z), [rand(4, dtype=C128)]),
    ("logsumexp", lambda x: pyad.special.logsumexp(x, 1), [rand(2, 3)]),
]


@pytest.mark.parametrize("fn,inputs", [pytest.param(f, i, id=n) for n, f, i in GRADCHECKS])
def test_gradcheck_and_gradgradcheck(fn, inputs):
    xs = tuple(pyad.tensor(a.copy(), requires_grad=True) for a in inputs)
    assert gradcheck(fn, xs)
    assert gradgradcheck(fn, xs)


def test_qr_r_and_tall_complete_backward_raise_as_torch():
    a = pyad.tensor(rand(4, 3), requires_grad=True)
    Q, R = pyad.linalg.qr(a, mode="r")
    assert Q.shape == (0,) and R.requires_grad
    with pytest.raises(RuntimeError, match="mode='r'"):
        R.sum().backward()
    Q, R = pyad.linalg.qr(a, mode="complete")
    assert Q.shape == (4, 4) and R.shape == (4, 3)
    with pytest.raises(RuntimeError, match="not differentiable when mode='complete'"):
        (Q.sum() + R.sum()).backward()


def test_messages_name_the_function():
    with pytest.raises(RuntimeError, match=r"linalg\.det\(\): Expected a floating point"):
        pyad.linalg.det(pyad.tensor([[1, 0], [0, 1]]))
    with pytest.raises(RuntimeError, match=r"linalg\.qr\b.*unrecognized mode|qr received"):
        pyad.linalg.qr(pyad.eye(2), mode="x")
    with pytest.raises(RuntimeError, match=r"linalg\.lu_factor\(\): U\[2,2\] is zero"):
        pyad.linalg.lu_factor(pyad.tensor([[1., 2.], [1., 2.]]))
    with pytest.raises(RuntimeError, match=r"special\.multigammaln\(\): p has to be"):
        pyad.special.multigammaln(pyad.tensor([2.5]), 0)
    with pytest.raises(NotImplementedError, match=r"special\.round\(\)"):
        pyad.special.round(pyad.tensor([1, 2]))


@pytest.mark.parametrize("name", ["det", "inverse", "slogdet", "logdet", "svd", "cholesky",
                                  "qr", "matrix_power", "pinverse", "cholesky_inverse"])
@pytest.mark.parametrize("dtype", ["int64", "int32", "bool", "float16"])
def test_top_level_matrix_ops_refuse_dtypes_with_torchs_error_types(name, dtype):
    # the top-level spellings go straight to the engine ops: the same exception types as
    # torch for a dtype with no LAPACK kernel
    import warnings
    outcomes = []
    for lib in (torch, pyad):
        x = lib.eye(2, dtype=getattr(lib, dtype))
        args = (-1,) if name == "matrix_power" else ()
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                getattr(lib, name)(x, *args)
            outcomes.append("ok")
        except Exception as exc:        # noqa: BLE001  (the type is what is compared)
            outcomes.append(type(exc).__name__)
    assert outcomes[0] == outcomes[1], (name, dtype, outcomes)
