"""A third batch of ports of PyTorch's ``test/test_linalg.py`` (TestLinalg, CPU) to
pyad, for the methods the first two rounds (tests/ops/test_torch_linalg_ports_2.py,
test_linalg.py, test_linalg_more.py, test_linalg_out_and_more.py,
test_torch_probe_linalg_special.py) left out: inner, chain_matmul, multi_dot (1-D ends,
empty dims), tensordot, einsum (the equation list of test_einsum, sublist format,
corner cases, error cases, gradients), matrix_power (non-negative, negative, errors),
pinv/pinverse (hermitian, batched, atol/rtol, errors), svd/svdvals (full_matrices,
batched, empty, gauge-invariant gradients, the gauge error), solve_triangular
(left/upper/unitriangular, broadcasting, errors), vander (linalg and top-level),
trace, diagonal/diag_embed, cholesky_inverse, linalg.vecdot, eigh/eigvalsh gradients,
det/logdet/slogdet of singular and batched inputs with gradients.

Each test keeps the name of the torch test it mirrors (with a suffix where one torch
test is split).  A case is written once as ``fn(L, *inputs)`` with ``L`` either
``torch`` or ``pyad``; the expected result is torch 2.13 on the same inputs (``agree``:
same values within torch's assertEqual tolerance for the dtype, or the same builtin
exception class).  Gradients are compared with torch's and checked by
``pyad.autograd.gradcheck`` in float64.  Sizes are cut down where they are only sizes.

Also: einsum with random equations (test_einsum_random, from a fixed seed), einsum
second order, dot/vdot vs NumPy, non-contiguous inputs, eigvals gradients.  Two pyad
fixes are tested here: ``pyad.logdet`` of a complex input (the complex logarithm
``log(sign) + logabsdet``, as torch; it raised NotImplementedError) and
``linalg.pinv(hermitian=True)`` of a non-square input (RuntimeError, as torch; it leaked
NumPy's LinAlgError).

torch 2.13's det backward on an exactly
singular matrix gives zero (not the adjugate); pyad agrees, so those gradients are
compared with torch only, not with finite differences.

Left out: CUDA/magma/cusolver paths, bfloat16/float16, tf32, the ``driver=`` of svd
(CUDA only), torch.svd_lowrank/pca_lowrank (randomised, not in this file's scope),
the out= forms (covered by test_linalg_out_and_more.py), ldl_factor/ldl_solve (already
ported in test_linalg_out_and_more.py), and the large-size/slowTest loops.
"""
import math
import warnings

import numpy as np
import pytest

import pyad
from pyad.autograd import gradcheck, gradgradcheck

torch = pytest.importorskip("torch")

from _ops_helpers import check_result as check, dname, tnp  # noqa: E402

inf, nan = math.inf, math.nan
KINDS = (IndexError, TypeError, ValueError, RuntimeError)


def P(t, requires_grad=False):
    """A torch tensor's values as a pyad Variable of the same dtype."""
    v = pyad.tensor(tnp(t.detach().resolve_conj()).copy())
    return v.requires_grad_() if requires_grad else v


def randn(*shape, dtype=torch.float64, seed=0):
    return torch.randn(shape, dtype=dtype, generator=torch.Generator().manual_seed(seed))


def run(lib, fn, ts):
    xs = [t if lib is torch else P(t) for t in ts]
    return fn(lib, *xs)


def agree(fn, *ts, exact=False):
    """``fn(L, *inputs)`` on torch tensors ``ts`` and on the same values in pyad: both
    raise the same builtin error class (torch's LinAlgError is a RuntimeError), or give
    the same results (shape, dtype, values)."""
    try:
        expected = run(torch, fn, ts)
    except Exception as e:                                  # noqa: BLE001
        kind = next(k for k in KINDS if isinstance(e, k))
        with pytest.raises(kind):
            run(pyad, fn, ts)
        return None
    got = run(pyad, fn, ts)
    check(got, expected, exact=exact)
    return got


def raises_like(fn, *ts, match=None):
    """torch raises; pyad raises the same builtin class (and ``match`` in the message)."""
    with pytest.raises(Exception) as te:
        run(torch, fn, ts)
    kind = next(k for k in KINDS if isinstance(te.value, k))
    with pytest.raises(kind, match=match):
        run(pyad, fn, ts)


def grads_agree(fn, *ts, check_fd=True, second=False):
    """Gradients of ``fn(L, *xs)`` (a real scalar) w.r.t. every input: pyad's equal
    torch's, and pyad's pass gradcheck (and gradgradcheck) in float64."""
    tx = [t.detach().clone().requires_grad_() for t in ts]
    tg = torch.autograd.grad(fn(torch, *tx), tx)
    px = [P(t, True) for t in ts]
    pg = pyad.autograd.grad(fn(pyad, *px), px)
    for a, b in zip(pg, tg):
        check(a, b.resolve_conj(), exact=False)
    if check_fd:
        assert gradcheck(lambda *xs: fn(pyad, *xs), tuple(px))
    if second:
        assert gradgradcheck(lambda *xs: fn(pyad, *xs), tuple(px))


def symmetric(n, *batch, dtype=torch.float64, seed=0):
    a = randn(*batch, n, n, dtype=dtype, seed=seed)
    return a + a.mH


def hermitian_pd(n, *batch, dtype=torch.float64, seed=0):
    a = randn(*batch, n, n, dtype=dtype, seed=seed)
    return a @ a.mH + n * torch.eye(n, dtype=dtype)


def hermitian_indefinite(n, *batch, dtype=torch.float64, seed=0):
    """Q diag(w) Q^H with eigenvalues of both signs, |w| in [1, 3]."""
    q, _ = torch.linalg.qr(randn(*batch, n, n, dtype=dtype, seed=seed))
    w = torch.linspace(-3, 3, 2 * n + 1, dtype=torch.float64)[:n] if n else torch.zeros(0)
    w = torch.where(w.abs() < 1, w.sign() + (w == 0), w).to(dtype)
    w = w * torch.tensor([(-1) ** i for i in range(n)], dtype=torch.float64).to(dtype)
    return (q * w.unsqueeze(-2)) @ q.mH


def distinct_sv(*shape, dtype=torch.float64, seed=0):
    """torch's make_fullrank_matrices_with_distinct_singular_values (small)."""
    a = randn(*shape, dtype=dtype, seed=seed)
    u, _, vh = torch.linalg.svd(a, full_matrices=False)
    k = min(shape[-2:])
    s = torch.arange(1, k + 1, dtype=torch.float64).flip(0).to(dtype) + 0.5
    return (u * s.unsqueeze(-2)) @ vh


# ------------------------------------------------------------------------------------
# inner / chain_matmul / multi_dot / tensordot
# ------------------------------------------------------------------------------------

INNER_SHAPES = [((), ()), ((), (0,)), ((), (3,)), ((), (2, 3, 4)), ((0,), (0,)),
                ((0,), (2, 0)), ((2,), (2,)), ((2,), (3, 1, 2)), ((2,), (3, 0, 2)),
                ((1, 2), (3, 2)), ((1, 2), (3, 4, 2)), ((2, 1, 3, 2), (1, 3, 2, 2))]


@pytest.mark.parametrize("dt", (torch.float32, torch.complex64))
def test_inner(dt):
    for sa, sb in INNER_SHAPES:
        for x, y in ((sa, sb), (sb, sa)):
            a, b = randn(*x, dtype=dt, seed=1), randn(*y, dtype=dt, seed=2)
            agree(lambda L, a, b: L.inner(a, b), a, b)
            agree(lambda L, a, b: a.inner(b), a, b)
    # the error: last dims differ
    raises_like(lambda L, a, b: a.inner(b), randn(2, 3, dtype=dt), randn(2, 2, dtype=dt),
                match="last dimension must match")


def test_inner_gradient():
    grads_agree(lambda L, a, b: L.inner(a, b).sum(), randn(2, 3, seed=1), randn(4, 3, seed=2))


def test_chain_matmul():
    # torch's test_chain_matmul: the product of 1..5 matrices, and errors
    for shapes in ([(3, 4)], [(3, 4), (4, 2)], [(2, 5), (5, 3), (3, 1)],
                   [(4, 3), (3, 2), (2, 5), (5, 1), (1, 3)], [(0, 3), (3, 2)], [(3, 0), (0, 2)]):
        ts = [randn(*s, seed=i) for i, s in enumerate(shapes)]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            agree(lambda L, *xs: L.chain_matmul(*xs), *ts)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        raises_like(lambda L: L.chain_matmul())
        raises_like(lambda L, a, b: L.chain_matmul(a, b), randn(2, 3), randn(3))
        raises_like(lambda L, a, b: L.chain_matmul(a, b), randn(2, 3), randn(2, 3))


def test_multi_dot():
    # torch's test_multi_dot: first and last operands may be 1-D; empty dims
    for shapes in ([(3,), (3,)], [(3,), (3, 2)], [(2, 3), (3,)], [(3,), (3, 4), (4,)],
                   [(2, 3), (3, 4), (4, 5), (5, 2)], [(0,), (0,)], [(0,), (0, 2)],
                   [(2, 0), (0, 3)], [(0, 2), (2, 3)], [(2, 3), (3, 0), (0, 4)],
                   [(3,), (3, 0), (0,)]):
        ts = [randn(*s, seed=i) for i, s in enumerate(shapes)]
        agree(lambda L, *xs: L.linalg.multi_dot(list(xs)), *ts)


def test_multi_dot_errors():
    raises_like(lambda L: L.linalg.multi_dot([]))
    raises_like(lambda L, a: L.linalg.multi_dot([a]), randn(3, 3))
    raises_like(lambda L, a, b: L.linalg.multi_dot([a, b]), randn(3).to(torch.float32),
                randn(3))                                     # dtype mismatch
    raises_like(lambda L, a, b, c: L.linalg.multi_dot([a, b, c]), randn(2, 3), randn(3),
                randn(2, 2))                                  # middle operand 1-D
    raises_like(lambda L, a, b: L.linalg.multi_dot([a, b]), randn(2, 2, 2), randn(2, 2))
    raises_like(lambda L, a, b: L.linalg.multi_dot([a, b]), randn(2, 3), randn(2, 3))


def test_multi_dot_gradient():
    grads_agree(lambda L, a, b, c: L.linalg.multi_dot([a, b, c]).square().sum(),
                randn(3, seed=1), randn(3, 4, seed=2), randn(4, 2, seed=3), second=True)


@pytest.mark.parametrize("dims", [2, 1, 0, ([1, 0], [0, 1]), ((2,), (0,)), [[0, 2], [1, 0]]],
                         ids=str)
def test_tensordot(dims):
    # torch's test_tensordot: int dims, list and tuple dims, vs torch; gradients
    a, b = randn(2, 3, 4, seed=1), randn(3, 2, 4, seed=2)
    if dims == 2:
        a, b = randn(2, 3, 4, seed=1), randn(3, 4, 5, seed=2)
    elif dims == 1:
        a, b = randn(2, 3, 4, seed=1), randn(4, 5, seed=2)
    elif dims == ((2,), (0,)):
        b = randn(4, 3, 2, seed=2)
    elif dims == [[0, 2], [1, 0]]:
        b = randn(4, 2, 5, seed=2)
    agree(lambda L, a, b: L.tensordot(a, b, dims=dims), a, b)
    grads_agree(lambda L, a, b: L.tensordot(a, b, dims=dims).square().sum(), a, b)


def test_tensordot_errors():
    raises_like(lambda L, a, b: L.tensordot(a, b, dims=-1), randn(2, 3), randn(3, 2))
    raises_like(lambda L, a, b: L.tensordot(a, b, dims=([0], [0])), randn(2, 3), randn(3, 2))
    raises_like(lambda L, a, b: L.tensordot(a, b, dims=([0, 1], [0])), randn(2, 3),
                randn(2, 3))


# ------------------------------------------------------------------------------------
# einsum
# ------------------------------------------------------------------------------------

X, Y, A, B, E = (5,), (7,), (3, 5), (2, 5), (7,)
EINSUM_CASES = [
    ("i->", [(5,)]), ("i,i->", [(5,), (5,)]), ("i,i", [(5,), (5,)]), ("i,j->ij", [X, Y]),
    ("ij->", [A]), ("ij->j", [A]), ("ij->i", [A]), ("ij,ij->ij", [A, A]),
    ("ij,j->i", [A, X]), ("ij,kj->ik", [A, B]), ("ij,ab->ijab", [A, (4, 2)]),
    ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]), ("bn,anm,bm->ba", [(2, 4), (3, 4, 5), (2, 5)]),
    ("bi,bj->bij", [(3, 2), (3, 4)]), ("i->ii"[:0] + "ii->i", [(4, 4)]), ("ii", [(4, 4)]),
    ("ii->", [(4, 4)]), ("iij->j", [(3, 3, 2)]), ("bii->bi", [(2, 3, 3)]),
    ("...ii->...i", [(2, 2, 3, 3)]), ("i...->...", [(2, 3, 4)]), ("...i->...", [(2, 3, 4)]),
    ("...ij,...jk->...ik", [(2, 1, 3, 4), (5, 4, 2)]), ("i...,...i->...", [(3, 2), (2, 3)]),
    ("ijk->kji", [(2, 3, 4)]), ("ba,b->a", [(3, 4), (3,)]), ("ab,b", [(3, 4), (4,)]),
    ("i,i,i->", [(4,), (4,), (4,)]), ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 5)]),
    ("...,...->...", [(2, 3), (3,)]), (",i->i", [(), (3,)]), (",->", [(), ()]),
    ("i , j -> i j", [X, Y]), ("ij,j", [(0, 3), (3,)]), ("ij,jk", [(2, 0), (0, 3)]),
]


@pytest.mark.parametrize("eq,shapes", EINSUM_CASES, ids=[c[0] for c in EINSUM_CASES])
def test_einsum(eq, shapes):
    # torch's test_einsum (and test_einsum_corner_cases for the empty/0-d operands)
    ts = [randn(*s, seed=i) for i, s in enumerate(shapes)]
    agree(lambda L, *xs: L.einsum(eq, *xs), *ts)
    if all(t.numel() for t in ts):
        grads_agree(lambda L, *xs: L.einsum(eq, *xs).square().sum(), *ts)


def test_einsum_complex():
    a, b = randn(3, 4, dtype=torch.complex128, seed=1), randn(4, 2, dtype=torch.complex128, seed=2)
    agree(lambda L, a, b: L.einsum("ij,jk->ik", a, b), a, b)
    grads_agree(lambda L, a, b: L.einsum("ij,jk->ik", a, b).abs().square().sum(), a, b)


def test_einsum_sublist_format():
    # torch's test_einsum_sublist_format: operand, sublist, ..., [output sublist]
    x, y = randn(5, seed=1), randn(7, seed=2)
    a, b = randn(3, 5, seed=3), randn(2, 5, seed=4)
    c = randn(2, 3, 4, 5, seed=5)
    agree(lambda L, x: L.einsum(x, [0]), x)
    agree(lambda L, x: L.einsum(x, [0], []), x)
    agree(lambda L, x, y: L.einsum(x, [0], y, [1], [0, 1]), x, y)
    agree(lambda L, a, b: L.einsum(a, [0, 1], b, [2, 1], [0, 2]), a, b)
    agree(lambda L, c: L.einsum(c, [Ellipsis, 0]), c)
    agree(lambda L, c: L.einsum(c, [0, Ellipsis], [Ellipsis]), c)
    agree(lambda L, a, x: L.einsum(a, [0, 1], x, [1], [0]), a, x)
    agree(lambda L, c, x: L.einsum(c, [Ellipsis, 0], x, [0], [Ellipsis]), c, x)


def test_einsum_corner_cases():
    # torch's test_einsum_corner_cases: size-0 and size-1 dims, broadcasting, scalars
    cases = [(" ", [()]), ("->", [()]), (" , ", [(), ()]), ("i,->", [(2,), ()]),
             ("i->", [(0,)]), ("i,i->i", [(0,), (0,)]), ("ij->i", [(0, 3)]),
             ("i,i->i", [(2,), (1,)]), ("i,i->", [(1,), (3,)]), ("ij,ij->ij", [(1, 3), (2, 1)]),
             ("...,...", [(2, 1), (3,)]), ("i...->i...", [(0, 2, 3)]),
             ("...ij,...jk->ik", [(2, 2, 3), (2, 3, 4)]), ("ii", [(0, 0)]),
             ("bij,bjk->ik", [(2, 0, 3), (2, 3, 4)])]
    for eq, shapes in cases:
        ts = [randn(*s, seed=i) for i, s in enumerate(shapes)]
        agree(lambda L, *xs: L.einsum(eq, *xs), *ts)


@pytest.mark.parametrize("eq,shapes", [
    ("i,i->i", [(2,), (3,)]), ("ii", [(2, 3)]), ("...i,...i", [(2, 3), (3, 2)]),
    ("i,j", [(2,), (2,), (2,)]),
    ("", [(2,)]), ("i", [(2, 3)]), ("ij", [(2,)]), ("i,i", [(2,)]),
    ("i->ii", [(2,)]), ("i->j", [(2,)]), ("i,j->ij", [(2,)]), ("i..j", [(2, 3)]),
    ("i->i->", [(2,)]), ("A!", [(2, 2)]), ("i...->...i...", [(2, 3)])],
    ids=lambda v: repr(v))
def test_einsum_error_cases(eq, shapes):
    # torch's test_einsum_error_cases: malformed equations and operand mismatches
    ts = [randn(*s, seed=i) for i, s in enumerate(shapes)]
    raises_like(lambda L, *xs: L.einsum(eq, *xs), *ts)


def test_einsum_list_operands_and_integer_dtypes():
    a = (randn(3, 4, seed=1) * 5).to(torch.int64)
    b = (randn(4, seed=2) * 5).to(torch.int64)
    agree(lambda L, a, b: L.einsum("ij,j->i", [a, b]), a, b, exact=True)
    agree(lambda L, a, b: L.einsum("ij,j->i", (a, b)), a, b, exact=True)


# ------------------------------------------------------------------------------------
# matrix_power
# ------------------------------------------------------------------------------------

@pytest.mark.parametrize("dt", (torch.float64, torch.complex128, torch.float32, torch.int64))
def test_linalg_matrix_power_non_negative(dt):
    for shape in ((0, 0), (1, 1), (3, 3), (2, 3, 3), (2, 0, 3, 3)):
        a = randn(*shape, seed=1)
        a = (a * 3).to(dt) if dt == torch.int64 else (a / 2).to(dt)
        for n in (0, 1, 2, 3, 5):
            agree(lambda L, a: L.linalg.matrix_power(a, n), a, exact=dt == torch.int64)
            agree(lambda L, a: L.matrix_power(a, n), a, exact=dt == torch.int64)


@pytest.mark.parametrize("dt", (torch.float64, torch.complex128))
def test_linalg_matrix_power_negative(dt):
    for shape in ((0, 0), (1, 1), (3, 3), (2, 3, 3)):
        a = distinct_sv(*shape, dtype=dt, seed=2) if shape != (0, 0) else randn(0, 0, dtype=dt)
        for n in (-1, -2, -3):
            agree(lambda L, a: L.linalg.matrix_power(a, n), a)
            agree(lambda L, a: a.matrix_power(n), a)


def test_linalg_matrix_power_errors():
    raises_like(lambda L, a: L.linalg.matrix_power(a, 2), randn(3))          # 1-D
    raises_like(lambda L, a: L.linalg.matrix_power(a, 2), randn(2, 3))       # not square
    raises_like(lambda L, a: L.linalg.matrix_power(a, -1),
                (randn(3, 3) * 3).to(torch.int64))                           # int, n < 0
    raises_like(lambda L, a: L.linalg.matrix_power(a, -1), torch.zeros(3, 3, dtype=torch.float64))
    raises_like(lambda L, a: L.linalg.matrix_power(a, 1.5), randn(3, 3))     # non-int n


def test_linalg_matrix_power_gradient():
    a = distinct_sv(3, 3, seed=3) / 2
    for n in (0, 1, 3, -2):
        grads_agree(lambda L, a: L.linalg.matrix_power(a, n).sum(), a, check_fd=n != 0)


# ------------------------------------------------------------------------------------
# pinv / pinverse
# ------------------------------------------------------------------------------------

@pytest.mark.parametrize("dt", (torch.float32, torch.float64, torch.complex64, torch.complex128))
def test_pinv(dt):
    # torch's test_pinv: pinv(A) is a Moore-Penrose inverse, for tall, wide, square,
    # batched and empty inputs, and the hermitian=True path
    for shape in ((3, 3), (5, 3), (3, 5), (2, 3, 4), (2, 2, 4, 3), (0, 0), (0, 3), (3, 0),
                  (2, 0, 3)):
        # full rank with singular values in [1.5, 3.5]: the float32 results of two
        # libraries agree within torch's tolerance
        a = distinct_sv(*shape, dtype=dt, seed=1) if 0 not in shape else randn(*shape, dtype=dt)
        p = agree(lambda L, a: L.linalg.pinv(a), a)
        agree(lambda L, a: L.pinverse(a), a)
        pa = P(a)
        if a.numel():
            # the Penrose conditions, independently of torch: A A+ A = A
            tol = 1e-4 if dt in (torch.float32, torch.complex64) else 1e-10
            np.testing.assert_allclose((pa @ p @ pa).data, pa.data, rtol=tol, atol=tol)
    for n, batch in ((3, ()), (4, (2,)), (0, ())):
        h = hermitian_indefinite(n, *batch, dtype=dt, seed=2)
        agree(lambda L, h: L.linalg.pinv(h, hermitian=True), h)


def test_pinv_tolerances():
    a = distinct_sv(4, 3, seed=4)                  # singular values 3.5, 2.5, 1.5
    for kw in ({"rtol": 0.5}, {"atol": 2.0}, {"atol": 1.0, "rtol": 0.1}, {"rcond": 0.6},
               {"atol": torch.tensor(2.0, dtype=torch.float64)}):
        def f(L, a, kw=kw):
            kw = {k: (P(v) if L is pyad and isinstance(v, torch.Tensor) else v)
                  for k, v in kw.items()}
            return L.linalg.pinv(a, **kw)
        agree(f, a)
    h = symmetric(4, seed=5)
    agree(lambda L, h: L.linalg.pinv(h, hermitian=True, atol=1.0), h)


def test_pinv_gradient():
    grads_agree(lambda L, a: L.linalg.pinv(a).square().sum(), distinct_sv(4, 3, seed=6))
    grads_agree(lambda L, a: L.linalg.pinv(a).square().sum(), distinct_sv(2, 3, 4, seed=7))


def test_pinv_errors_and_warnings():
    raises_like(lambda L, a: L.linalg.pinv(a), randn(3))
    raises_like(lambda L, a: L.linalg.pinv(a), (randn(3, 3) * 3).to(torch.int64))
    for shape in ((2, 3), (2, 4, 3)):
        raises_like(lambda L, a: L.linalg.pinv(a, hermitian=True), randn(*shape),
                    match="square")
    # an empty non-square input is not refused: its (empty) pseudo-inverse
    agree(lambda L, a: L.linalg.pinv(a, hermitian=True), randn(3, 0))


# ------------------------------------------------------------------------------------
# svd / svdvals
# ------------------------------------------------------------------------------------

@pytest.mark.parametrize("full_matrices", (True, False))
@pytest.mark.parametrize("dt", (torch.float32, torch.float64, torch.complex128))
def test_svd(full_matrices, dt):
    # torch's test_svd: the shapes of U, S, Vh; A = U diag(S) Vh; S equals torch's (U and
    # Vh are unique only up to a phase per column, so they are checked through A)
    for shape in ((3, 3), (5, 3), (3, 5), (2, 4, 3), (2, 1, 3, 4), (0, 0), (0, 3), (3, 0),
                  (2, 0, 4)):
        a = randn(*shape, dtype=dt, seed=1)
        tu, ts, tvh = torch.linalg.svd(a, full_matrices=full_matrices)
        pu, ps, pvh = pyad.linalg.svd(P(a), full_matrices=full_matrices)
        assert tuple(pu.shape) == tuple(tu.shape) and tuple(pvh.shape) == tuple(tvh.shape)
        assert dname(pu.dtype) == dname(tu.dtype) and dname(pvh.dtype) == dname(tvh.dtype)
        check(ps, ts, exact=False)
        k = min(shape[-2:])
        tol = 1e-4 if dt == torch.float32 else 1e-10
        recon = (pu[..., :k] * ps.unsqueeze(-2).to(pu.dtype)) @ pvh[..., :k, :]
        np.testing.assert_allclose(recon.data, tnp(a), rtol=tol, atol=tol)
        # the old torch.svd: V instead of Vh, and some= in place of full_matrices=
        tu2, ts2, tv2 = torch.svd(a, some=not full_matrices)
        pu2, ps2, pv2 = pyad.svd(P(a), some=not full_matrices)
        assert tuple(pv2.shape) == tuple(tv2.shape) and tuple(pu2.shape) == tuple(tu2.shape)
        check(ps2, ts2, exact=False)


@pytest.mark.parametrize("dt", (torch.float32, torch.float64, torch.complex64, torch.complex128))
def test_svdvals(dt):
    for shape in ((3, 3), (5, 3), (3, 5), (2, 4, 3), (0, 0), (2, 0, 3), (3, 0)):
        a = randn(*shape, dtype=dt, seed=2)
        agree(lambda L, a: L.linalg.svdvals(a), a)


def test_svd_errors_and_warnings():
    raises_like(lambda L, a: L.linalg.svd(a), randn(3))
    raises_like(lambda L, a: L.linalg.svdvals(a), randn(3))
    raises_like(lambda L, a: L.linalg.svd(a), (randn(3, 3) * 3).to(torch.int64))
    # NaN input: torch's LAPACK call fails (RuntimeError) or returns NaN; pyad agrees
    agree(lambda L, a: L.linalg.svdvals(a), torch.full((2, 2), nan, dtype=torch.float64))


@pytest.mark.parametrize("shape", [(3, 3), (4, 3), (3, 4), (2, 3, 3)])
def test_svd_gradient_gauge_invariant(shape):
    # torch's svd gradient tests: a loss that does not depend on the phase of the
    # singular vectors (|U|^2, |Vh|^2 and S) has a well-defined gradient
    def loss(L, a):
        u, s, vh = L.linalg.svd(a, full_matrices=False)
        return s.sum() + (u.abs() ** 4).sum() + (vh.abs() ** 4).sum() + (u @ vh).square().sum()
    grads_agree(loss, distinct_sv(*shape, seed=3))


def test_svd_gradient_complex_and_svdvals():
    a = distinct_sv(3, 3, dtype=torch.complex128, seed=4)

    def loss(L, a):
        u, s, vh = L.linalg.svd(a, full_matrices=False)
        return s.square().sum() + (u @ vh).abs().square().sum()
    grads_agree(loss, a)
    grads_agree(lambda L, a: L.linalg.svdvals(a).sum(), distinct_sv(4, 2, seed=5), second=True)


def test_svd_gradient_gauge_dependent_raises():
    # torch: a loss that depends on the phase of complex singular vectors raises in
    # backward ("svd_backward: The singular vectors in the complex case are specified
    # up to multiplication by e^{i phi}")
    a = distinct_sv(3, 3, dtype=torch.complex128, seed=6)

    def loss(L, a):
        u, s, vh = L.linalg.svd(a)
        return u[0, 0].real + u[1, 1].imag

    ta = a.clone().requires_grad_()
    with pytest.raises(RuntimeError):
        loss(torch, ta).backward()
    pa = P(a, True)
    with pytest.raises(RuntimeError, match="(?i)phase|e\\^"):
        loss(pyad, pa).backward()


# ------------------------------------------------------------------------------------
# solve_triangular
# ------------------------------------------------------------------------------------

def tri(n, *batch, upper, unit=False, dtype=torch.float64, seed=0):
    a = randn(*batch, n, n, dtype=dtype, seed=seed)
    a = a.triu() if upper else a.tril()
    return a + 3 * torch.eye(n, dtype=dtype)


@pytest.mark.parametrize("left", (True, False))
@pytest.mark.parametrize("upper", (True, False))
@pytest.mark.parametrize("unitriangular", (True, False))
def test_solve_triangular(left, upper, unitriangular):
    for dt in (torch.float32, torch.float64, torch.complex128):
        for n, k, batch in ((3, 2, ()), (4, 1, (2,)), (3, 3, (2, 1)), (0, 2, ()), (3, 0, (2,))):
            a = tri(n, *batch, upper=upper, dtype=dt, seed=1)
            # the other triangle is filled with garbage: it must be ignored
            a = a + (randn(*a.shape, dtype=dt, seed=9).tril(-1) if upper
                     else randn(*a.shape, dtype=dt, seed=9).triu(1))
            b = randn(*batch, n, k, dtype=dt, seed=2) if left else randn(*batch, k, n, dtype=dt,
                                                                         seed=2)
            agree(lambda L, a, b: L.linalg.solve_triangular(
                a, b, upper=upper, left=left, unitriangular=unitriangular), a, b)


def test_solve_triangular_broadcasting():
    for sa, sb in (((2, 1, 3, 3), (4, 3, 2)), ((3, 3), (2, 2, 3, 1)), ((2, 3, 3), (1, 3, 4))):
        a = tri(3, *sa[:-2], upper=False, seed=3)
        b = randn(*sb, seed=4)
        agree(lambda L, a, b: L.linalg.solve_triangular(a, b, upper=False), a, b)
        agree(lambda L, a, b: L.linalg.solve_triangular(a, b.mT, upper=False, left=False).mT
              if False else L.linalg.solve_triangular(a.mT, b, upper=True), a, b)


def test_solve_triangular_gradient():
    for left, upper, unit in ((True, True, False), (False, False, True), (True, False, True)):
        a = tri(3, 2, upper=upper, seed=5)
        b = randn(2, 3, 2, seed=6) if left else randn(2, 2, 3, seed=6)
        grads_agree(lambda L, a, b: L.linalg.solve_triangular(
            a, b, upper=upper, left=left, unitriangular=unit).square().sum(), a, b)


def test_solve_triangular_errors():
    a, b = tri(3, upper=True), randn(3, 2)
    raises_like(lambda L, a, b: L.linalg.solve_triangular(a, b, upper=True), a[0], b)
    raises_like(lambda L, a, b: L.linalg.solve_triangular(a, b, upper=True), a, b[:, 0])
    raises_like(lambda L, a, b: L.linalg.solve_triangular(a, b, upper=True), a[:, :2], b)
    raises_like(lambda L, a, b: L.linalg.solve_triangular(a, b, upper=True), a, randn(2, 2))
    raises_like(lambda L, a, b: L.linalg.solve_triangular(a, b, upper=True, left=False), a, b)
    # mixed float dtypes are promoted, as torch
    agree(lambda L, a, b: L.linalg.solve_triangular(a, b, upper=True), a, b.to(torch.float32))
    raises_like(lambda L, a, b: L.linalg.solve_triangular(a, b, upper=True),
                (a * 2).to(torch.int64), (b * 2).to(torch.int64))
    with pytest.raises(TypeError):
        pyad.linalg.solve_triangular(P(a), P(b))           # upper is keyword-only, required
    with pytest.raises(TypeError):
        torch.linalg.solve_triangular(a, b)


# ------------------------------------------------------------------------------------
# vander
# ------------------------------------------------------------------------------------

@pytest.mark.parametrize("dt", (torch.float32, torch.float64, torch.int64, torch.complex64))
def test_vander(dt):
    # torch's test_vander (linalg.vander: increasing powers, batched, N=)
    for shape in ((3,), (1,), (0,), (2, 3), (2, 1, 4)):
        x = (randn(*shape, seed=1) * 3).to(dt)
        for N in (None, 0, 1, 2, 5):
            agree(lambda L, x: L.linalg.vander(x, N=N), x, exact=dt == torch.int64)


def test_vander_top_level():
    # torch.vander (NumPy's: decreasing powers by default, 1-D only)
    x = torch.tensor([1, 2, 3, 5], dtype=torch.int64)
    for N in (None, 0, 1, 3, 6):
        for increasing in (False, True):
            agree(lambda L, x: L.vander(x, N=N, increasing=increasing), x, exact=True)
    xf = randn(3, seed=2)
    agree(lambda L, x: L.vander(x, 4), xf)
    raises_like(lambda L, x: L.vander(x), randn(2, 2))
    raises_like(lambda L, x: L.vander(x, N=-1), xf)
    raises_like(lambda L, x: L.linalg.vander(x, N=0) if L is None else L.linalg.vander(x),
                torch.tensor(1.0))


def test_vander_gradient():
    grads_agree(lambda L, x: L.linalg.vander(x, N=4).square().sum(), randn(2, 3, seed=3))


# ------------------------------------------------------------------------------------
# trace, diagonal, diag_embed
# ------------------------------------------------------------------------------------

@pytest.mark.parametrize("dt", (torch.float32, torch.float64, torch.int32, torch.int64,
                                torch.uint8, torch.bool, torch.complex64))
def test_trace(dt):
    for shape in ((3, 3), (2, 5), (5, 2), (0, 0), (0, 3), (1, 1)):
        x = (randn(*shape, seed=1) * 4).abs().to(dt)
        agree(lambda L, x: L.trace(x), x, exact=not dt.is_floating_point)
        agree(lambda L, x: x.trace(), x, exact=not dt.is_floating_point)
    raises_like(lambda L, x: L.trace(x), randn(3))
    raises_like(lambda L, x: L.trace(x), randn(2, 2, 2))


def test_trace_gradient():
    grads_agree(lambda L, x: L.trace(x), randn(3, 4, seed=2), second=True)


@pytest.mark.parametrize("offset", (0, 1, -1, 2, -3, 5))
def test_diagonal(offset):
    x = randn(3, 4, 5, seed=3)
    for d1, d2 in ((0, 1), (1, 2), (-1, 0), (2, -3), (-1, -2)):
        agree(lambda L, x: L.diagonal(x, offset, d1, d2), x, exact=True)
        agree(lambda L, x: L.linalg.diagonal(x, offset=offset, dim1=d1, dim2=d2), x, exact=True)
    grads_agree(lambda L, x: L.diagonal(x, offset, 0, 2).square().sum(), x)
    raises_like(lambda L, x: L.diagonal(x, 0, 1, 1), x)
    raises_like(lambda L, x: L.diagonal(x, 0, 0, 3), x)


@pytest.mark.parametrize("offset", (0, 1, -2))
def test_diag_embed(offset):
    for shape in ((3,), (2, 3), (2, 0), ()):
        x = randn(*shape, seed=4)
        for d1, d2 in ((-2, -1), (0, 1), (0, 2), (-1, 0), (2, 0)):
            agree(lambda L, x: L.diag_embed(x, offset, d1, d2), x, exact=True)
    x = randn(2, 3, seed=5)
    grads_agree(lambda L, x: (L.diag_embed(x, offset) * L.arange(1.0, 1 + 2 * (3 + abs(offset)) ** 2,
                                                                  dtype=L.float64).reshape(
        2, 3 + abs(offset), 3 + abs(offset))).sum(), x)
    raises_like(lambda L, x: L.diag_embed(x, 0, 1, 1), x)
    raises_like(lambda L, x: L.diag_embed(x, 0, 0, 4), x)


# ------------------------------------------------------------------------------------
# cholesky_inverse
# ------------------------------------------------------------------------------------

@pytest.mark.parametrize("upper", (False, True))
@pytest.mark.parametrize("dt", (torch.float32, torch.float64, torch.complex128))
def test_cholesky_inverse(upper, dt):
    # torch's test_cholesky_inverse: cholesky_inverse(cholesky(A)) == inverse(A)
    for n, batch in ((3, ()), (4, (2,)), (2, (2, 3)), (0, ()), (3, (0,))):
        a = hermitian_pd(n, *batch, dtype=dt, seed=1)
        l = torch.linalg.cholesky(a, upper=upper)
        got = agree(lambda L, l: L.cholesky_inverse(l, upper=upper), l)
        agree(lambda L, l: l.cholesky_inverse(upper), l)
        if n:
            tol = 1e-4 if dt == torch.float32 else 1e-9
            np.testing.assert_allclose(got.data, np.linalg.inv(tnp(a)), rtol=tol, atol=tol)


def test_cholesky_inverse_gradient():
    for upper in (False, True):
        l = torch.linalg.cholesky(hermitian_pd(3, dtype=torch.float64, seed=2), upper=upper)
        # only the factor's triangle is read: the function masks it, as torch's gradcheck
        grads_agree(lambda L, l: L.cholesky_inverse(l.triu() if upper else l.tril(),
                                                   upper).square().sum(), l)


def test_cholesky_inverse_errors_and_warnings():
    raises_like(lambda L, a: L.cholesky_inverse(a), randn(3))
    raises_like(lambda L, a: L.cholesky_inverse(a), randn(2, 3))
    raises_like(lambda L, a: L.cholesky_inverse(a), (randn(3, 3) * 3).to(torch.int64))


# ------------------------------------------------------------------------------------
# vecdot
# ------------------------------------------------------------------------------------

@pytest.mark.parametrize("dt", (torch.float32, torch.float64, torch.complex64, torch.complex128))
def test_vecdot(dt):
    # torch's test_vecdot: x.conj() * y summed over dim, with broadcasting and a
    # non-contiguous input
    for sx, sy, dim in (((3,), (3,), -1), ((2, 3), (3,), -1), ((4, 1, 3), (2, 3), -1),
                        ((3, 4), (3, 4), 0), ((2, 3, 4), (1, 3, 1), 1), ((0, 3), (3,), -1),
                        ((2, 0), (2, 0), 1)):
        x, y = randn(*sx, dtype=dt, seed=1), randn(*sy, dtype=dt, seed=2)
        agree(lambda L, x, y: L.linalg.vecdot(x, y, dim=dim), x, y)
    x = randn(4, 3, dtype=dt, seed=3).mT                     # non-contiguous
    y = randn(3, 4, dtype=dt, seed=4)
    agree(lambda L, x, y: L.linalg.vecdot(x, y), x, y)
    raises_like(lambda L, x, y: L.linalg.vecdot(x, y), randn(3, dtype=dt), randn(4, dtype=dt))


def test_vecdot_gradient():
    x, y = randn(2, 3, dtype=torch.complex128, seed=5), randn(3, dtype=torch.complex128, seed=6)
    grads_agree(lambda L, x, y: L.linalg.vecdot(x, y).abs().sum(), x, y)


# ------------------------------------------------------------------------------------
# eigh / eigvalsh gradients
# ------------------------------------------------------------------------------------

@pytest.mark.parametrize("dt", (torch.float64, torch.complex128))
def test_eigh_gradient_gauge_invariant(dt):
    # a loss of the eigenvalues and of |V|^2 (phase-free) has a defined gradient; the
    # input is symmetrised inside, as torch's gradcheck of eigh does
    a = symmetric(4, 2, dtype=dt, seed=1)

    def loss(L, a):
        h = a + a.mH
        w, v = L.linalg.eigh(h)
        return w.square().sum() + (v.abs() ** 4).sum()
    grads_agree(loss, a)


@pytest.mark.parametrize("uplo", ("L", "U"))
def test_eigvalsh_gradient(uplo):
    a = symmetric(3, dtype=torch.float64, seed=2)
    grads_agree(lambda L, a: (L.linalg.eigvalsh(a, UPLO=uplo) * L.arange(1.0, 4.0,
                                                                        dtype=L.float64)).sum(),
                a, check_fd=False)
    # finite differences on a symmetrised input
    grads_agree(lambda L, a: L.linalg.eigvalsh(a + a.mT, UPLO=uplo).square().sum(), a,
                second=True)


def test_eigh_gradient_gauge_dependent_raises():
    # torch: a loss depending on the phase of complex eigenvectors raises in backward. (A
    # loss of one entry that LAPACK returns real, such as v[0, 0], is phase-invariant at
    # that point, so each column's loss here mixes a real and an imaginary part of an
    # entry LAPACK does not normalise.)
    a = symmetric(3, dtype=torch.complex128, seed=3)

    def loss(L, a):
        _, v = L.linalg.eigh(a)
        return (v[1:] * (1 + 2j)).real.sum()

    ta = a.clone().requires_grad_()
    with pytest.raises(RuntimeError, match="e\\^\\{i phi\\}"):
        loss(torch, ta).backward()
    with pytest.raises(RuntimeError, match="e\\^\\{i phi\\}"):
        loss(pyad, P(a, True)).backward()
    # a phase-invariant loss of the same vectors differentiates in both
    grads_agree(lambda L, a: L.linalg.eigh(a)[1].abs().sum(), a, check_fd=False)


# ------------------------------------------------------------------------------------
# det / logdet / slogdet
# ------------------------------------------------------------------------------------

def singular_batch(dtype=torch.float64):
    """A batch with a full-rank matrix, one with a zero row, a zero matrix and one with
    a zero column (exactly singular: LU finds an exact zero pivot)."""
    full = distinct_sv(3, 3, dtype=dtype, seed=1)
    rows = full.clone()
    rows[1] = 0
    col = full.clone()
    col[:, 1] = 0
    return torch.stack([full, rows, torch.zeros(3, 3, dtype=dtype), col])


@pytest.mark.parametrize("dt", (torch.float32, torch.float64, torch.complex128))
def test_det_logdet_slogdet(dt):
    # torch's test_det_logdet_slogdet: values on regular, singular, negative-det inputs
    for a in (distinct_sv(3, 3, dtype=dt, seed=4), -distinct_sv(3, 3, dtype=dt, seed=4),
              torch.eye(3, dtype=dt), torch.zeros(3, 3, dtype=dt), randn(1, 1, dtype=dt)):
        agree(lambda L, a: L.linalg.det(a), a)
        agree(lambda L, a: L.det(a), a)
        agree(lambda L, a: L.linalg.slogdet(a), a)
        agree(lambda L, a: L.slogdet(a), a)
        agree(lambda L, a: L.logdet(a), a)


@pytest.mark.parametrize("dt", (torch.float64, torch.complex128))
def test_det_logdet_slogdet_batched(dt):
    for a in (singular_batch(dt), randn(2, 3, 2, 2, dtype=dt, seed=5),
              randn(0, 3, 3, dtype=dt), randn(2, 0, 0, dtype=dt)):
        agree(lambda L, a: L.linalg.det(a), a)
        agree(lambda L, a: L.linalg.slogdet(a), a)
        agree(lambda L, a: L.logdet(a), a)


def test_det_gradient_singular_and_batched():
    # on exactly singular matrices torch 2.13's det backward gives its own values (zero
    # here, not the adjugate): compared with torch only; finite differences on the
    # regular matrix
    a = singular_batch()
    grads_agree(lambda L, a: L.linalg.det(a).sum(), a, check_fd=False)
    grads_agree(lambda L, a: L.linalg.det(a).sum(), a[:1])
    grads_agree(lambda L, a: L.linalg.det(a).square().sum(), randn(2, 3, 3, seed=6), second=True)


def test_slogdet_logdet_gradient():
    a = distinct_sv(2, 3, 3, seed=7)
    grads_agree(lambda L, a: L.linalg.slogdet(a)[1].sum(), a, second=True)
    spd = hermitian_pd(3, 2, seed=8)
    grads_agree(lambda L, a: L.logdet(a).sum(), spd)
    c = distinct_sv(3, 3, dtype=torch.complex128, seed=9)
    grads_agree(lambda L, a: L.linalg.slogdet(a)[1], c)


def test_slogdet_errors_and_warnings():
    raises_like(lambda L, a: L.linalg.slogdet(a), randn(3))
    raises_like(lambda L, a: L.linalg.slogdet(a), randn(2, 3))
    raises_like(lambda L, a: L.linalg.slogdet(a), (randn(3, 3) * 3).to(torch.int64))
    raises_like(lambda L, a: L.linalg.det(a), randn(2, 3, 2))


# ------------------------------------------------------------------------------------
# more: random einsum, dot/vdot, second order, non-contiguous inputs, eigvals gradient
# ------------------------------------------------------------------------------------

def test_einsum_random():
    # torch's test_einsum_random: random operands with random subscripts (repeated
    # subscripts, ellipsis, implicit and explicit output), here from a fixed seed
    rng = np.random.default_rng(13)
    letters = "abcdef"
    sizes = {c: int(rng.integers(1, 4)) for c in letters}
    for _ in range(25):
        n_ops = int(rng.integers(1, 4))
        terms, shapes, used = [], [], []
        ell = bool(rng.integers(0, 2))
        ell_shape = tuple(int(d) for d in rng.integers(1, 3, size=int(rng.integers(0, 3))))
        for _k in range(n_ops):
            subs = "".join(rng.choice(list(letters), size=int(rng.integers(0, 4))))
            shape = [sizes[c] for c in subs]
            if ell:
                subs, shape = "..." + subs, list(ell_shape) + shape
            terms.append(subs)
            shapes.append(tuple(shape))
            used.extend(subs.replace(".", ""))
        eq = ",".join(terms)
        if rng.integers(0, 2):
            once = sorted(set(used))
            out = "".join(c for c in once if rng.integers(0, 2))
            eq += "->" + ("..." if ell else "") + out
        ts = [randn(*s, seed=i) for i, s in enumerate(shapes)]
        agree(lambda L, *xs: L.einsum(eq, *xs), *ts)


def test_einsum_second_order():
    a, b = randn(2, 3, seed=1), randn(3, 4, seed=2)
    grads_agree(lambda L, a, b: L.einsum("ij,jk->ik", a, b).square().sum(), a, b, second=True)
    grads_agree(lambda L, a: L.einsum("ii->i", a).square().sum(), randn(3, 3, seed=3),
                second=True)


@pytest.mark.parametrize("dt", (torch.float32, torch.float64, torch.complex64, torch.int64))
def test_dot_vs_numpy(dt):
    # torch's test_dot_vs_numpy / test_vdot_vs_numpy: 1-D inputs, empty, non-contiguous
    for n in (0, 1, 5):
        x, y = (randn(n, seed=1) * 4).to(dt), (randn(n, seed=2) * 4).to(dt)
        exact = dt == torch.int64
        agree(lambda L, x, y: L.dot(x, y), x, y, exact=exact)
        agree(lambda L, x, y: L.vdot(x, y), x, y, exact=exact)
        if not exact:
            ref = np.vdot(tnp(x), tnp(y))
            np.testing.assert_allclose(pyad.vdot(P(x), P(y)).data, ref, rtol=1e-5, atol=1e-5)
    x, y = randn(4, 3, dtype=dt if dt.is_floating_point or dt.is_complex else torch.float64,
                 seed=3), randn(3, seed=4, dtype=dt if dt != torch.int64 else torch.float64)
    agree(lambda L, x, y: L.dot(x[:, 1], y.flip(0)), x, y)     # strided inputs


def test_chain_matmul_gradient():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        grads_agree(lambda L, a, b, c: L.chain_matmul(a, b, c).square().sum(),
                    randn(2, 3, seed=1), randn(3, 4, seed=2), randn(4, 2, seed=3))


def test_non_contiguous_inputs():
    # torch's linalg tests run on transposed (non-contiguous) views as well
    l = torch.linalg.cholesky(hermitian_pd(3, 2, seed=1))
    agree(lambda L, u: L.cholesky_inverse(u.mT, upper=True), l)
    a = tri(3, 2, upper=False, seed=2)
    b = randn(2, 4, 3, seed=3)
    agree(lambda L, a, b: L.linalg.solve_triangular(a.mT, b.mT, upper=True), a, b)
    agree(lambda L, a: L.linalg.pinv(a.mT), distinct_sv(2, 4, 3, seed=4))
    agree(lambda L, a: L.linalg.svdvals(a.mT), randn(2, 4, 3, seed=5))
    agree(lambda L, a: L.linalg.matrix_power(a.mT, -2), distinct_sv(3, 3, seed=6))
    agree(lambda L, a: L.linalg.slogdet(a.mT), distinct_sv(2, 3, 3, seed=7))
    agree(lambda L, x: L.linalg.vander(x[::2], N=3), randn(6, seed=8))


def test_eigvals_gradient():
    # the gradient of a function of the (complex) eigenvalues of a real matrix
    a = distinct_sv(3, 3, seed=9)
    grads_agree(lambda L, a: L.linalg.eigvals(a).abs().sum(), a)
    grads_agree(lambda L, a: (L.linalg.eigvals(a) ** 2).real.sum(), a)
