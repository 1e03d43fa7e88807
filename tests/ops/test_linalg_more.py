"""The rest of torch.linalg in pyad.linalg (pinv, lstsq, solve_triangular, eigvalsh,
eig, eigvals, matrix_exp, multi_dot, lu, lu_factor, lu_solve, matrix_rank, cond,
vecdot, diagonal, vander, the _ex variants, tensorinv, tensorsolve,
householder_product) against torch.linalg on the same inputs: values, dtypes, shapes,
gradients of real losses, gradcheck/gradgradcheck in float64, errors."""
import numpy as np
import pytest

import pyad
from pyad.autograd import gradcheck, gradgradcheck

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(7)


def rand(*shape, dtype=np.float64, complex_=False):
    a = RNG.standard_normal(shape)
    if complex_:
        a = a + 1j * RNG.standard_normal(shape)
    return a.astype(dtype if not complex_ else (
        np.complex64 if dtype == np.float32 else np.complex128))


def well(*shape, complex_=False, dtype=np.float64):
    """Well-conditioned square matrices."""
    n = shape[-1]
    return (rand(*shape, complex_=complex_) + 3 * np.eye(n)).astype(
        rand(1, dtype=dtype, complex_=complex_).dtype)


def spd(*shape, dtype=np.float64):
    a = rand(*shape)
    return (a @ np.swapaxes(a, -1, -2) + shape[-1] * np.eye(shape[-1])).astype(dtype)


def tri(*shape, upper, dtype=np.float64, complex_=False):
    a = rand(*shape, dtype=dtype, complex_=complex_)
    a = np.triu(a) if upper else np.tril(a)
    n = shape[-1]
    return (a + 2 * np.eye(n) * np.sign(np.diagonal(a, 0, -2, -1))[..., None, :]).astype(a.dtype)


def low_rank(m, n, r, batch=()):
    return rand(*batch, m, r) @ rand(*batch, r, n)


def _float(x):
    return x.dtype.kind in "fc"


def _tdtype(t):
    return str(t.dtype).split(".")[1]


def _np_of(t):
    return t.detach().resolve_conj().numpy()


def _weights(shape, seed):
    rng = np.random.default_rng(seed)
    return rng.standard_normal(shape), rng.standard_normal(shape)


def _loss(ys, lib):
    total = 0
    for i, y in enumerate(ys):
        wr, wi = _weights(tuple(y.shape), 100 + i)
        if lib == "torch":
            rd = y.real.dtype
            wr, wi = torch.tensor(wr).to(rd), torch.tensor(wi).to(rd)
            if y.is_complex():
                total = total + (y.real * wr).sum() + (y.imag * wi).sum()
            else:
                total = total + (y * wr).sum()
        else:
            rd = y.real.dtype
            wr, wi = pyad.as_tensor(wr.astype(rd)), pyad.as_tensor(wi.astype(rd))
            if y.dtype.kind == "c":
                total = total + (y.real * wr).sum() + (y.imag * wi).sum()
            else:
                total = total + (y * wr).sum()
    return total


def _tols(arrays):
    single = any(a.dtype in (np.float32, np.complex64) for a in arrays)
    return (2e-4, 2e-4) if single else (1e-9, 1e-10)


def compare(f, arrays, grads=True, transpose=False, select=None):
    """f(L, *inputs) with L = pyad.linalg or torch.linalg; compares every output's
    values (dtype, shape) and the gradients of a weighted real loss of the outputs
    listed in ``select`` (default: every floating output)."""
    xs = [pyad.Variable(a.copy(), requires_grad=_float(a) and grads) for a in arrays]
    ts = [torch.tensor(a.copy(), requires_grad=_float(a) and grads) for a in arrays]
    if transpose:
        xs_in = [x.mT if x.dim() >= 2 else x for x in xs]
        ts_in = [t.mT if t.dim() >= 2 else t for t in ts]
    else:
        xs_in, ts_in = xs, ts
    yp, yt = f(pyad.linalg, *xs_in), f(torch.linalg, *ts_in)
    single = not isinstance(yt, tuple)
    yp, yt = ((yp,), (yt,)) if single else (tuple(yp), tuple(yt))
    rtol, atol = _tols(arrays)
    for a, b in zip(yp, yt):
        assert _tdtype(b) == str(a.dtype), (a.dtype, b.dtype)
        assert tuple(a.shape) == tuple(b.shape), (a.shape, b.shape)
        np.testing.assert_allclose(np.asarray(a.data), _np_of(b), rtol=rtol, atol=atol)
    if not grads:
        return
    idx = [i for i in range(len(yt)) if (select is None or i in select)
           and yt[i].requires_grad]
    _loss([yp[i] for i in idx], "pyad").backward()
    _loss([yt[i] for i in idx], "torch").backward()
    for x, t in zip(xs, ts):
        if t.requires_grad:
            assert t.grad is not None and x.grad is not None
            assert x.grad.dtype == x.dtype
            np.testing.assert_allclose(x.grad.data, _np_of(t.grad), rtol=rtol * 10,
                                       atol=atol * 10)


def check_grads(f, arrays, select=None):
    xs = [pyad.Variable(a.copy(), requires_grad=True) for a in arrays]

    def fn(*vs):
        y = f(pyad.linalg, *vs)
        if isinstance(y, tuple):
            y = tuple(y[i] for i in (select if select is not None else range(len(y))))
        return y

    assert gradcheck(fn, tuple(xs))
    assert gradgradcheck(fn, tuple(xs))


# -- pinv ------------------------------------------------------------------------------

PINV = [
    ("square", lambda L, a: L.pinv(a), lambda: [well(3, 3)]),
    ("tall", lambda L, a: L.pinv(a), lambda: [rand(5, 3)]),
    ("wide_batched", lambda L, a: L.pinv(a), lambda: [rand(2, 3, 5)]),
    ("complex", lambda L, a: L.pinv(a), lambda: [rand(4, 3, complex_=True)]),
    ("hermitian", lambda L, a: L.pinv(a + a.mT, hermitian=True), lambda: [well(3, 3)]),
    # rank 2 (as a product, so that gradcheck's perturbations keep the rank)
    ("rank_deficient", lambda L, b, c: L.pinv(b @ c), lambda: [rand(4, 2), rand(2, 4)]),
    ("rank_deficient_tall", lambda L, b, c: L.pinv(b @ c),
     lambda: [rand(2, 5, 2), rand(2, 2, 3)]),
    # cut-offs that drop a nonzero singular value: torch's gradient is not the derivative
    # of the truncated pseudo-inverse (no gradcheck), pyad's is torch's
    ("atol", lambda L, a: L.pinv(a, atol=0.5), lambda: [np.diag([3.0, 1.0, 0.1]) @ rand(3, 3)]),
    ("rtol", lambda L, a: L.pinv(a, rtol=0.2), lambda: [np.diag([3.0, 1.0, 0.1]) @ rand(3, 3)]),
]
TRUNCATING = ("atol", "rtol")


@pytest.mark.parametrize("name,f,make", PINV, ids=[c[0] for c in PINV])
def test_pinv_vs_torch(name, f, make):
    arrays = make()
    compare(f, arrays)
    compare(f, [a.astype(np.complex64 if a.dtype.kind == "c" else np.float32) for a in arrays])
    if arrays[0].ndim >= 2 and arrays[0].shape[-1] != arrays[0].shape[-2] or name == "square":
        compare(f, [np.ascontiguousarray(np.swapaxes(a, -1, -2)) for a in arrays],
                transpose=True)
    if name not in TRUNCATING:
        check_grads(f, arrays)


def test_pinv_edge_cases():
    compare(lambda L, a: L.pinv(a), [np.zeros((0, 3))], grads=False)
    compare(lambda L, a: L.pinv(a), [np.zeros((2, 0, 0))], grads=False)
    compare(lambda L, a: L.pinv(a), [np.array([[2.0]])])
    compare(lambda L, a: L.pinv(a), [np.zeros((3, 3))], grads=False)
    compare(lambda L, a: L.pinv(a, atol=np.array([0.5, 5.0]) if L is pyad.linalg
                                else torch.tensor([0.5, 5.0])),
            [np.diag([3.0, 1.0, 0.1])[None].repeat(2, 0)], grads=False)
    with pytest.raises(RuntimeError):
        torch.linalg.pinv(torch.ones(3))
    with pytest.raises(RuntimeError, match="linalg.pinv"):
        pyad.linalg.pinv(pyad.ones(3))
    with pytest.raises(RuntimeError, match="linalg.pinv"):
        pyad.linalg.pinv(pyad.as_tensor(np.eye(2, dtype=np.int64)))


# -- lstsq -----------------------------------------------------------------------------


LSTSQ = [
    ("tall", lambda: [rand(5, 3), rand(5, 2)], None),
    ("square", lambda: [well(3, 3), rand(3, 2)], None),
    ("wide", lambda: [rand(2, 4), rand(2, 3)], None),
    ("batched_broadcast", lambda: [rand(2, 5, 3), rand(1, 5, 2)], None),
    ("vector_rhs", lambda: [rand(5, 3), rand(5)], None),
    ("batched_vector_rhs", lambda: [rand(2, 5, 3), rand(2, 5)], None),
    ("complex", lambda: [rand(4, 2, complex_=True), rand(4, 3, complex_=True)], None),
    ("gelsd", lambda: [rand(5, 3), rand(5, 2)], "gelsd"),
    ("gelss_batched", lambda: [rand(3, 6, 2), rand(3, 6, 1)], "gelss"),
    ("gels", lambda: [rand(5, 3), rand(5, 2)], "gels"),
    ("gelsd_vector", lambda: [rand(2, 5, 3), rand(2, 5)], "gelsd"),
]


@pytest.mark.parametrize("name,make,driver", LSTSQ, ids=[c[0] for c in LSTSQ])
def test_lstsq_vs_torch(name, make, driver):
    arrays = make()

    def f(L, a, b):
        return tuple(L.lstsq(a, b, driver=driver))

    compare(f, arrays, select=[0, 1])
    compare(f, [a.astype(np.complex64 if a.dtype.kind == "c" else np.float32)
                for a in arrays], select=[0, 1])
    check_grads(lambda L, a, b: L.lstsq(a, b, driver=driver).solution, arrays)
    if pyad.linalg.lstsq(*arrays, driver=driver).residuals.numel():
        check_grads(lambda L, a, b: L.lstsq(a, b, driver=driver).residuals, arrays)


def test_lstsq_residuals_gradient_vs_torch():
    a, b = rand(2, 6, 3, complex_=True), rand(2, 6, 2, complex_=True)
    for driver in ("gelsd", "gelss", "gels", "gelsy"):
        compare(lambda L, x, y: L.lstsq(x, y, driver=driver).residuals * 3 +
                L.lstsq(x, y, driver=driver).solution.abs().sum(), [a, b])
    # an empty residual still belongs to the graph, as torch's
    x = pyad.Variable(rand(5, 3), requires_grad=True)
    r = pyad.linalg.lstsq(x, rand(5, 2)).residuals
    assert r.shape == (0,) and r.requires_grad
    r.sum().backward()
    assert (x.grad.data == 0).all()


def test_lstsq_rank_deficient():
    a = low_rank(6, 4, 2)
    b = rand(6, 2)
    for driver in ("gelsy", "gelsd", "gelss"):
        r = pyad.linalg.lstsq(a, b, driver=driver)
        rt = torch.linalg.lstsq(torch.tensor(a), torch.tensor(b), driver=driver)
        assert int(r.rank.item()) == int(rt.rank) == 2
        np.testing.assert_allclose(r.solution.data, rt.solution.numpy(), rtol=1e-8, atol=1e-9)
        assert tuple(r.residuals.shape) == tuple(rt.residuals.shape) == (0,)
        assert tuple(r.singular_values.shape) == tuple(rt.singular_values.shape)
    # an explicit rcond drops the small singular values, as the drivers do (gelsy's
    # solution then differs: it truncates a pivoted QR, pyad the SVD; the rank agrees)
    a = rand(5, 3) @ np.diag([5.0, 1.0, 1e-3]) @ rand(3, 3)
    for driver in ("gelsy", "gelsd", "gelss"):
        r = pyad.linalg.lstsq(a, b[:5], rcond=1e-2, driver=driver)
        rt = torch.linalg.lstsq(torch.tensor(a), torch.tensor(b[:5]), rcond=1e-2, driver=driver)
        assert int(r.rank.item()) == int(rt.rank) == 2
        if driver != "gelsy":
            np.testing.assert_allclose(r.solution.data, rt.solution.numpy(), rtol=1e-7,
                                       atol=1e-8)
            np.testing.assert_allclose(r.singular_values.data, rt.singular_values.numpy(),
                                       rtol=1e-10)


def test_lstsq_empty_and_errors():
    compare(lambda L, a, b: tuple(L.lstsq(a, b)), [np.zeros((0, 5, 3)), np.zeros((0, 5, 2))],
            grads=False)
    a, b = rand(5, 3), rand(5, 2)
    bad = [
        (lambda L, A, B: L.lstsq(A, B, driver="foo"), RuntimeError),
        (lambda L, A, B: L.lstsq(A[0], B), RuntimeError),
        (lambda L, A, B: L.lstsq(A, B[:4]), RuntimeError),
        (lambda L, A, B: L.lstsq(A, B[None, None]), RuntimeError),
        (lambda L, A, B: L.lstsq(A[None].expand(2, 5, 3) if L is torch.linalg
                                 else A[None].expand(2, 5, 3), B), RuntimeError),
    ]
    for call, exc in bad:
        with pytest.raises(exc):
            call(torch.linalg, torch.tensor(a), torch.tensor(b))
        with pytest.raises(exc, match="lstsq"):
            call(pyad.linalg, pyad.as_tensor(a), pyad.as_tensor(b))
    with pytest.raises(RuntimeError):
        torch.linalg.lstsq(torch.tensor(a), torch.tensor(b).float())
    with pytest.raises(RuntimeError, match="same dtype"):
        pyad.linalg.lstsq(a, b.astype(np.float32))


# -- solve_triangular ------------------------------------------------------------------

TRI = [
    ("upper_left", dict(upper=True), lambda: [tri(3, 3, upper=True), rand(3, 2)]),
    ("lower_left", dict(upper=False), lambda: [tri(4, 4, upper=False), rand(4, 3)]),
    ("upper_right", dict(upper=True, left=False), lambda: [tri(3, 3, upper=True), rand(2, 3)]),
    ("lower_right_unit", dict(upper=False, left=False, unitriangular=True),
     lambda: [rand(3, 3), rand(4, 3)]),
    ("upper_unit", dict(upper=True, unitriangular=True), lambda: [rand(3, 3), rand(3, 2)]),
    ("full_matrix_reads_triangle", dict(upper=True), lambda: [well(3, 3), rand(3, 1)]),
    ("batched_broadcast", dict(upper=False),
     lambda: [tri(2, 1, 3, 3, upper=False), rand(4, 3, 2)]),
    ("complex", dict(upper=True), lambda: [tri(3, 3, upper=True, complex_=True),
                                           rand(3, 2, complex_=True)]),
]


@pytest.mark.parametrize("name,kw,make", TRI, ids=[c[0] for c in TRI])
def test_solve_triangular_vs_torch(name, kw, make):
    arrays = make()

    def f(L, a, b):
        return L.solve_triangular(a, b, **kw)

    compare(f, arrays)
    compare(f, [a.astype(np.complex64 if a.dtype.kind == "c" else np.float32) for a in arrays])
    compare(f, [np.ascontiguousarray(np.swapaxes(a, -1, -2)) for a in arrays], transpose=True)
    check_grads(f, arrays)


def test_solve_triangular_singular_and_errors():
    a = np.triu(rand(3, 3))
    a[1, 1] = 0
    y = pyad.linalg.solve_triangular(a, rand(3, 2), upper=True)
    assert not np.isfinite(y.data).all()
    calls = [
        (lambda L, A, B: L.solve_triangular(A, B[:, 0], upper=True), RuntimeError),
        (lambda L, A, B: L.solve_triangular(A, B[:2], upper=True), RuntimeError),
        (lambda L, A, B: L.solve_triangular(A[:, :2], B, upper=True), RuntimeError),
        (lambda L, A, B: L.solve_triangular(A, B, upper=True, left=False), RuntimeError),
    ]
    A, B = well(3, 3), rand(3, 2)
    for call, exc in calls:
        with pytest.raises(exc):
            call(torch.linalg, torch.tensor(A), torch.tensor(B))
        with pytest.raises(exc, match="solve_triangular"):
            call(pyad.linalg, pyad.as_tensor(A), pyad.as_tensor(B))
    with pytest.raises(TypeError):
        torch.linalg.solve_triangular(torch.tensor(A), torch.tensor(B))
    with pytest.raises(TypeError):
        pyad.linalg.solve_triangular(A, B)


# -- eigvalsh, eig, eigvals ------------------------------------------------------------


@pytest.mark.parametrize("uplo", ["L", "U"])
@pytest.mark.parametrize("complex_", [False, True])
def test_eigvalsh_vs_torch(uplo, complex_):
    a = rand(2, 4, 4, complex_=complex_)

    def f(L, x):
        return L.eigvalsh(x, UPLO=uplo)

    compare(f, [a])
    compare(f, [a.astype(np.complex64 if complex_ else np.float32)])
    compare(f, [np.ascontiguousarray(np.swapaxes(a, -1, -2))], transpose=True)
    h = a + np.conj(np.swapaxes(a, -1, -2))
    check_grads(lambda L, x: L.eigvalsh(x + x.mH, UPLO=uplo), [h])
    with pytest.raises(RuntimeError):
        torch.linalg.eigvalsh(torch.tensor(a), UPLO="X")
    with pytest.raises(RuntimeError, match="UPLO"):
        pyad.linalg.eigvalsh(a, UPLO="X")


def _sorted_eigvals(w):
    return np.sort_complex(np.asarray(w))


@pytest.mark.parametrize("complex_", [False, True])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_eig_values_vs_torch(complex_, dtype):
    a = rand(3, 4, 4, complex_=complex_, dtype=dtype)
    w, v = pyad.linalg.eig(a)
    wt, vt = torch.linalg.eig(torch.tensor(a))
    assert str(w.dtype) == _tdtype(wt) and str(v.dtype) == _tdtype(vt)
    tol = 1e-4 if dtype == np.float32 else 1e-10
    for i in range(3):
        np.testing.assert_allclose(_sorted_eigvals(w.data[i]), _sorted_eigvals(wt.numpy()[i]),
                                   rtol=tol, atol=tol)
    # A V = V diag(w), unit columns
    np.testing.assert_allclose(a @ v.data, v.data * w.data[..., None, :], rtol=tol * 10,
                               atol=tol * 10)
    np.testing.assert_allclose(np.linalg.norm(v.data, axis=-2), 1, rtol=tol)
    np.testing.assert_allclose(_sorted_eigvals(pyad.linalg.eigvals(a).data[0]),
                               _sorted_eigvals(wt.numpy()[0]), rtol=tol, atol=tol)


@pytest.mark.parametrize("complex_", [False, True])
def test_eig_gradients_vs_torch(complex_):
    # losses that do not depend on the order of the eigenpairs nor on their phases
    a = rand(2, 4, 4, complex_=complex_)
    w_rows = RNG.standard_normal(4)

    def loss(L, x, lib):
        w, v = L.eig(x)
        av = v.abs() ** 2
        wr = torch.tensor(w_rows) if lib == "torch" else pyad.as_tensor(w_rows)
        pairs = (av * wr.unsqueeze(-1)).sum(-2)           # one number per eigenvector
        return ((w.real ** 3 + w.imag ** 2 + w.real * w.imag) * (1 + pairs)).sum()

    x = pyad.Variable(a.copy(), requires_grad=True)
    t = torch.tensor(a.copy(), requires_grad=True)
    loss(pyad.linalg, x, "pyad").backward()
    loss(torch.linalg, t, "torch").backward()
    np.testing.assert_allclose(x.grad.data, _np_of(t.grad), rtol=1e-8, atol=1e-9)
    x = pyad.Variable(a.copy(), requires_grad=True)
    t = torch.tensor(a.copy(), requires_grad=True)
    (pyad.linalg.eigvals(x).abs() ** 2).sum().backward()
    (torch.linalg.eigvals(t).abs() ** 2).sum().backward()
    np.testing.assert_allclose(x.grad.data, _np_of(t.grad), rtol=1e-8, atol=1e-9)


def test_eig_gradcheck_and_phase_error():
    a = rand(3, 3)
    check_grads(lambda L, x: (L.eigvals(x).real, L.eigvals(x).imag), [a])
    check_grads(lambda L, x: L.eig(x)[1].abs(), [a])
    ac = rand(3, 3, complex_=True)
    check_grads(lambda L, x: L.eigvals(x), [ac])
    x = pyad.Variable(ac, requires_grad=True)
    with pytest.raises(RuntimeError, match="e\\^\\{i phi\\}"):
        pyad.linalg.eig(x)[1].real.sum().backward()
    t = torch.tensor(ac, requires_grad=True)
    with pytest.raises(RuntimeError):
        torch.linalg.eig(t)[1].real.sum().backward()


def test_eig_errors_and_empty():
    compare(lambda L, a: L.eigvals(a), [np.zeros((2, 0, 0))], grads=False)
    with pytest.raises(RuntimeError):
        torch.linalg.eig(torch.ones(2, 3))
    with pytest.raises(RuntimeError, match="linalg.eig"):
        pyad.linalg.eig(pyad.ones(2, 3))


# -- matrix_exp ------------------------------------------------------------------------

EXPM = [
    ("small", lambda: [rand(3, 3) * 0.3]),
    ("large_norm", lambda: [rand(4, 4) * 4]),
    ("batched", lambda: [rand(2, 3, 3, 3)]),
    ("complex", lambda: [rand(3, 3, complex_=True)]),
    ("one_by_one", lambda: [np.array([[0.7]])]),
    ("nilpotent", lambda: [np.triu(rand(3, 3), 1)]),
]


@pytest.mark.parametrize("name,make", EXPM, ids=[c[0] for c in EXPM])
def test_matrix_exp_vs_torch(name, make):
    arrays = make()

    def f(L, a):
        return L.matrix_exp(a)

    compare(f, arrays)
    compare(f, [a.astype(np.complex64 if a.dtype.kind == "c" else np.float32) for a in arrays])
    compare(f, [np.ascontiguousarray(np.swapaxes(a, -1, -2)) for a in arrays], transpose=True)
    check_grads(f, [a * 0.5 for a in arrays] if name != "large_norm" else arrays)


def test_matrix_exp_edges():
    compare(lambda L, a: L.matrix_exp(a), [np.zeros((3, 0, 0))], grads=False)
    compare(lambda L, a: L.matrix_exp(a), [np.zeros((0, 2, 2))], grads=False)
    compare(lambda L, a: L.matrix_exp(a), [np.zeros((2, 2))])
    with pytest.raises(RuntimeError):
        torch.linalg.matrix_exp(torch.ones(2, 3))
    with pytest.raises(RuntimeError, match="matrix_exp"):
        pyad.linalg.matrix_exp(pyad.ones(2, 3))
    with pytest.raises(RuntimeError):
        torch.linalg.matrix_exp(torch.ones(2, 2, dtype=torch.int64))
    with pytest.raises(RuntimeError, match="matrix_exp"):
        pyad.linalg.matrix_exp(np.ones((2, 2), np.int64))


# -- multi_dot -------------------------------------------------------------------------

MULTI = [
    ("two", [(3, 4), (4, 2)]),
    ("vec_mat_vec", [(3,), (3, 4), (4,)]),
    ("vec_first", [(3,), (3, 4), (4, 5)]),
    ("vec_last", [(2, 3), (3, 4), (4,)]),
    ("chain_order", [(10, 2), (2, 8), (8, 3), (3, 9)]),
    ("vec_vec", [(3,), (3,)]),
]


@pytest.mark.parametrize("name,shapes", MULTI, ids=[c[0] for c in MULTI])
def test_multi_dot_vs_torch(name, shapes):
    arrays = [rand(*s) for s in shapes]

    def f(L, *xs):
        return L.multi_dot(list(xs))

    compare(f, arrays)
    compare(f, [a.astype(np.float32) for a in arrays])
    check_grads(f, arrays)


def test_multi_dot_errors():
    A = rand(3, 3)
    calls = [
        lambda L, T: L.multi_dot([T(A)]),
        lambda L, T: L.multi_dot([]),
        lambda L, T: L.multi_dot([T(rand(2, 3, 3)), T(A)]),
        lambda L, T: L.multi_dot([T(A), T(rand(2, 3))]),
        lambda L, T: L.multi_dot([T(A), T(A.astype(np.float32))]),
        lambda L, T: L.multi_dot([T(A), T(A), T(rand(3, 2, 2))]),
        lambda L, T: L.multi_dot([T(A), T(rand(3)[None, None]), T(A)]),
    ]
    for call in calls:
        with pytest.raises(RuntimeError):
            call(torch.linalg, torch.tensor)
        with pytest.raises(RuntimeError, match="multi_dot"):
            call(pyad.linalg, pyad.as_tensor)


# -- LU --------------------------------------------------------------------------------

LU_SHAPES = [(3, 3), (2, 4, 4), (5, 3), (3, 5), (2, 4, 2), (1, 1)]


@pytest.mark.parametrize("shape", LU_SHAPES, ids=str)
def test_lu_vs_torch(shape):
    a = rand(*shape)
    compare(lambda L, x: tuple(L.lu(x)), [a])
    compare(lambda L, x: tuple(L.lu_factor(x)), [a])
    compare(lambda L, x: tuple(L.lu_factor_ex(x)), [a])
    compare(lambda L, x: tuple(L.lu(x)), [a.astype(np.float32)])
    compare(lambda L, x: tuple(L.lu(x)), [np.ascontiguousarray(np.swapaxes(a, -1, -2))],
            transpose=True)
    compare(lambda L, x: tuple(L.lu(x)), [rand(*shape, complex_=True)])
    check_grads(lambda L, x: tuple(L.lu(x))[1:], [a])
    check_grads(lambda L, x: L.lu_factor(x)[0], [a])


@pytest.mark.parametrize("shape", [(0, 0), (0, 3), (3, 0), (2, 0, 3)], ids=str)
def test_lu_empty(shape):
    a = np.zeros(shape)
    compare(lambda L, x: tuple(L.lu(x)), [a], grads=False)
    compare(lambda L, x: tuple(L.lu_factor_ex(x)), [a], grads=False)


def test_lu_singular_and_errors():
    a = np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [0.0, 0.0, 1.0]])
    compare(lambda L, x: tuple(L.lu_factor_ex(x)), [a], grads=False)
    compare(lambda L, x: tuple(L.lu_factor_ex(x)), [np.zeros((2, 3, 3))], grads=False)
    compare(lambda L, x: tuple(L.lu(x)), [np.zeros((0, 3, 2))], grads=False)
    with pytest.raises(RuntimeError):
        torch.linalg.lu_factor(torch.tensor(a), pivot=False)
    with pytest.raises(RuntimeError, match="without pivoting"):
        pyad.linalg.lu_factor(a, pivot=False)
    with pytest.raises(RuntimeError, match="lu_factor"):
        pyad.linalg.lu_factor(pyad.ones(3))


LU_SOLVE = [
    ("left", dict(), (3, 3), (3, 2)),
    ("left_adjoint", dict(adjoint=True), (3, 3), (3, 2)),
    ("right", dict(left=False), (3, 3), (2, 3)),
    ("right_adjoint", dict(left=False, adjoint=True), (4, 4), (1, 4)),
    ("batched_broadcast", dict(), (2, 1, 3, 3), (4, 3, 2)),
]


@pytest.mark.parametrize("name,kw,sa,sb", LU_SOLVE, ids=[c[0] for c in LU_SOLVE])
def test_lu_solve_vs_torch(name, kw, sa, sb):
    a, b = well(*sa), rand(*sb)

    def f(L, x, y):
        LU, piv = L.lu_factor(x)
        return L.lu_solve(LU, piv, y, **kw)

    compare(f, [a, b])
    compare(f, [a.astype(np.float32), b.astype(np.float32)])
    compare(f, [well(*sa, complex_=True), rand(*sb, complex_=True)])
    check_grads(f, [a, b])


def test_lu_solve_errors():
    a = well(3, 3)
    LU, piv = pyad.linalg.lu_factor(a)
    LUt, pivt = torch.linalg.lu_factor(torch.tensor(a))
    for B in (rand(3), rand(4, 2)):
        with pytest.raises(RuntimeError):
            torch.linalg.lu_solve(LUt, pivt, torch.tensor(B))
        with pytest.raises(RuntimeError, match="lu_solve"):
            pyad.linalg.lu_solve(LU, piv, B)


# -- matrix_rank, cond -----------------------------------------------------------------


def test_matrix_rank_vs_torch():
    cases = [
        (low_rank(4, 4, 2), {}),
        (low_rank(5, 3, 1, (2,)), {}),
        (rand(3, 5), {}),
        (np.diag([3.0, 1.0, 1e-3]), dict(atol=1e-2)),
        (np.diag([3.0, 1.0, 1e-3]), dict(rtol=0.5)),
        (np.diag([3.0, 1.0, 1e-3]), dict(tol=0.5)),
        (np.diag([3.0, 1.0, 1e-3]), dict(atol=0.5, rtol=0.5)),
        (np.diag([-3.0, 1.0, 0.0]), dict(hermitian=True)),
        (np.zeros((0, 3)), {}),
        (np.zeros((3, 3)), {}),
        (low_rank(4, 4, 3).astype(np.float32), {}),
        (rand(3, 3, complex_=True), {}),
    ]
    for a, kw in cases:
        r = pyad.linalg.matrix_rank(a, **kw)
        rt = torch.linalg.matrix_rank(torch.tensor(a), **kw)
        assert r.dtype == np.int64 and tuple(r.shape) == tuple(rt.shape)
        np.testing.assert_array_equal(r.data, rt.numpy())
    with pytest.raises(RuntimeError):
        torch.linalg.matrix_rank(torch.ones(3))
    with pytest.raises(RuntimeError, match="matrix_rank"):
        pyad.linalg.matrix_rank(pyad.ones(3))


COND = [None, 2, -2, 1, -1, np.inf, -np.inf, "fro", "nuc"]


@pytest.mark.parametrize("p", COND, ids=str)
def test_cond_vs_torch(p):
    a = well(2, 3, 3)

    def f(L, x):
        return L.cond(x, p)

    # torch 2.13 cannot differentiate cond for p other than None/2/-2 (its masked_fill_
    # on inv_ex's output trips the version check); pyad can: gradcheck only there
    grads = p is None or p in (2, -2, "nuc")
    compare(f, [a], grads=grads)
    compare(f, [a.astype(np.float32)], grads=grads)
    compare(f, [np.ascontiguousarray(np.swapaxes(a, -1, -2))], transpose=True, grads=grads)
    compare(f, [well(3, 3, complex_=True)], grads=grads)
    check_grads(f, [a])
    if not grads:
        t = torch.tensor(a, requires_grad=True)
        with pytest.raises(RuntimeError):
            torch.linalg.cond(t, p).sum().backward()
    # singular matrices: inf from inv_ex's info, nan (0 / 0) from the SVD, as torch (a
    # diagonal one: LAPACK builds differ on whether ones((3, 3))'s small singular values
    # come out as exact zeros)
    z = np.stack([np.zeros((3, 3)), np.diag([2.0, 1.0, 0.0]), np.eye(3)])
    y, yt = pyad.linalg.cond(z, p), torch.linalg.cond(torch.tensor(z), p)
    assert np.isinf(y.data).tolist() == np.isinf(yt.numpy()).tolist()
    assert np.isnan(y.data).tolist() == np.isnan(yt.numpy()).tolist()
    assert y.data[2] == yt.numpy()[2]


def test_cond_rectangular_empty_and_errors():
    compare(lambda L, x: L.cond(x), [rand(3, 5)])
    compare(lambda L, x: L.cond(x, -2), [rand(2, 5, 3)])
    compare(lambda L, x: L.cond(x), [np.zeros((2, 0, 0))], grads=False)
    for p in ("fro", 1):
        with pytest.raises(RuntimeError):
            torch.linalg.cond(torch.ones(3, 4), p)
        with pytest.raises(RuntimeError, match="linalg.cond"):
            pyad.linalg.cond(pyad.ones(3, 4), p)
    for p in (3, "bad"):
        with pytest.raises(RuntimeError):
            torch.linalg.cond(torch.eye(3), p)
        with pytest.raises(RuntimeError, match="invalid norm type"):
            pyad.linalg.cond(pyad.eye(3), p)


# -- vecdot, diagonal, vander ----------------------------------------------------------


@pytest.mark.parametrize("sx,sy,dim", [((3,), (3,), -1), ((2, 3), (3,), -1),
                                       ((4, 2), (4, 1), 0), ((2, 3, 4), (2, 3, 4), 1)])
def test_vecdot_vs_torch(sx, sy, dim):
    f = lambda L, x, y: L.vecdot(x, y, dim=dim)   # noqa: E731
    compare(f, [rand(*sx), rand(*sy)])
    compare(f, [rand(*sx, complex_=True), rand(*sy, complex_=True)])
    compare(f, [rand(*sx).astype(np.float32), rand(*sy).astype(np.float32)])
    check_grads(f, [rand(*sx, complex_=True), rand(*sy, complex_=True)])


def test_vecdot_errors():
    for x, y in [(rand(3).astype(np.float32), rand(3)), (np.arange(3), np.arange(3))]:
        with pytest.raises(RuntimeError):
            torch.linalg.vecdot(torch.tensor(x), torch.tensor(y))
        with pytest.raises(RuntimeError, match="vecdot"):
            pyad.linalg.vecdot(x, y)
    with pytest.raises(RuntimeError):
        torch.linalg.vecdot(torch.ones(2, 3), torch.ones(4))
    with pytest.raises(RuntimeError):
        pyad.linalg.vecdot(pyad.ones(2, 3), pyad.ones(4))


@pytest.mark.parametrize("kw", [{}, dict(offset=1), dict(offset=-1, dim1=0, dim2=2),
                                dict(dim1=-1, dim2=-3)])
def test_diagonal_vs_torch(kw):
    f = lambda L, x: L.diagonal(x, **kw)   # noqa: E731
    compare(f, [rand(3, 4, 5)])
    check_grads(f, [rand(3, 4, 5)])


@pytest.mark.parametrize("shape,N", [((3,), None), ((2, 3), 5), ((4,), 2), ((0,), 3)])
def test_vander_vs_torch(shape, N):
    a = rand(*shape)
    a.flat[:1] = 0.0            # a zero entry: the cumprod form's gradient there
    f = lambda L, x: L.vander(x, N=N)   # noqa: E731
    compare(f, [a])
    compare(f, [a.astype(np.float32)])
    compare(f, [rand(*shape, complex_=True)])
    if a.size:
        check_grads(f, [a])
    y, yt = pyad.linalg.vander(np.arange(3)), torch.linalg.vander(torch.arange(3))
    assert y.dtype == np.int64
    np.testing.assert_array_equal(y.data, yt.numpy())


def test_vander_errors():
    for x, kw in [(np.array(2.0), {}), (rand(3), dict(N=1)), (rand(3), dict(N=0)),
                  (np.array([True, False]), {})]:
        with pytest.raises(RuntimeError):
            torch.linalg.vander(torch.tensor(x), **kw)
        with pytest.raises(RuntimeError):
            pyad.linalg.vander(x, **kw)


# -- inv_ex, solve_ex, cholesky_ex ---------------------------------------------------


def test_inv_ex_vs_torch():
    a = well(2, 3, 3)
    compare(lambda L, x: tuple(L.inv_ex(x)), [a])
    compare(lambda L, x: tuple(L.inv_ex(x)), [a.astype(np.float32)])
    check_grads(lambda L, x: L.inv_ex(x)[0], [a])
    s = a.copy()
    s[1] = 0
    s[0, :, 2] = 0
    r, rt = pyad.linalg.inv_ex(s), torch.linalg.inv_ex(torch.tensor(s))
    assert r.info.dtype == np.int32 and tuple(r.info.shape) == (2,)
    np.testing.assert_array_equal(r.info.data, rt.info.numpy())
    # a rank-one matrix: the LU solve divides by the zero pivot, inf as torch's
    one = np.array([[1.0, 2.0], [2.0, 4.0]])
    np.testing.assert_array_equal(pyad.linalg.inv_ex(one).inverse.data,
                                  torch.linalg.inv_ex(torch.tensor(one)).inverse.numpy())
    np.testing.assert_array_equal(
        pyad.linalg.solve_ex(one, np.ones(2)).result.data,
        torch.linalg.solve_ex(torch.tensor(one), torch.ones(2).double()).result.numpy())
    # ... and its gradients follow torch's formulas there too (inf/nan)
    x, b = pyad.Variable(one, requires_grad=True), pyad.Variable(np.ones(2), requires_grad=True)
    t, bt = torch.tensor(one, requires_grad=True), torch.ones(2).double().requires_grad_()
    with np.errstate(all="ignore"):
        pyad.linalg.solve_ex(x, b).result.sum().backward()
        pyad.linalg.inv_ex(x).inverse.sum().backward()
    torch.linalg.solve_ex(t, bt).result.sum().backward()
    torch.linalg.inv_ex(t).inverse.sum().backward()
    np.testing.assert_array_equal(x.grad.data, t.grad.numpy())
    np.testing.assert_array_equal(b.grad.data, bt.grad.numpy())
    with pytest.raises(torch.linalg.LinAlgError):
        torch.linalg.inv_ex(torch.tensor(s), check_errors=True)
    with pytest.raises(pyad.linalg.LinAlgError, match="inv_ex"):
        pyad.linalg.inv_ex(s, check_errors=True)
    assert issubclass(pyad.linalg.LinAlgError, RuntimeError)


def test_solve_ex_vs_torch():
    a, b = well(2, 3, 3), rand(2, 3, 2)
    compare(lambda L, x, y: tuple(L.solve_ex(x, y)), [a, b])
    compare(lambda L, x, y: tuple(L.solve_ex(x, y)), [a, rand(3)])
    compare(lambda L, x, y: tuple(L.solve_ex(x, y, left=False)), [a, rand(2, 4, 3)])
    check_grads(lambda L, x, y: L.solve_ex(x, y)[0], [a, b])
    s = np.zeros((3, 3))
    r, rt = pyad.linalg.solve_ex(s, np.ones(3)), torch.linalg.solve_ex(torch.tensor(s),
                                                                      torch.ones(3).double())
    assert int(r.info.item()) == int(rt.info) == 1 and r.info.dtype == np.int32
    with pytest.raises(torch.linalg.LinAlgError):
        torch.linalg.solve_ex(torch.tensor(s), torch.ones(3).double(), check_errors=True)
    with pytest.raises(pyad.linalg.LinAlgError, match="solve_ex"):
        pyad.linalg.solve_ex(s, np.ones(3), check_errors=True)


@pytest.mark.parametrize("upper", [False, True])
def test_cholesky_ex_vs_torch(upper):
    a = spd(2, 3, 3)
    compare(lambda L, x: tuple(L.cholesky_ex(x, upper=upper)), [a])
    compare(lambda L, x: tuple(L.cholesky_ex(x, upper=upper)), [a.astype(np.float32)])
    check_grads(lambda L, x: L.cholesky_ex(x + x.mT, upper=upper)[0], [a / 2])
    bad = np.stack([spd(3, 3), -np.eye(3), np.diag([1.0, 2.0, -1.0]),
                    np.array([[4.0, 2.0, 0.0], [2.0, 1.0, 0.0], [0.0, 0.0, 1.0]])])
    r = pyad.linalg.cholesky_ex(bad, upper=upper)
    rt = torch.linalg.cholesky_ex(torch.tensor(bad), upper=upper)
    np.testing.assert_array_equal(r.info.data, rt.info.numpy())
    assert r.info.dtype == np.int32
    # the partial factor of the failed matrices is LAPACK's (potf2), as torch returns it
    np.testing.assert_allclose(r.L.data, rt.L.numpy(), rtol=1e-12, atol=1e-12)
    with pytest.raises(torch.linalg.LinAlgError):
        torch.linalg.cholesky_ex(torch.tensor(bad), check_errors=True)
    with pytest.raises(pyad.linalg.LinAlgError, match="cholesky_ex"):
        pyad.linalg.cholesky_ex(bad, check_errors=True)


# -- tensorinv, tensorsolve, householder_product ---------------------------------------


def test_tensorinv_vs_torch():
    a = (rand(4, 6, 24) + 5 * np.eye(24).reshape(4, 6, 24)).reshape(4, 6, 8, 3)
    compare(lambda L, x: L.tensorinv(x, ind=2), [a])
    a1 = well(6, 6).reshape(6, 2, 3)
    compare(lambda L, x: L.tensorinv(x, ind=1), [a1])
    check_grads(lambda L, x: L.tensorinv(x, ind=1), [a1])
    for x, kw, exc in [(rand(4, 6, 8, 3), dict(ind=0), RuntimeError),
                       (rand(4, 6, 8, 2), dict(ind=2), RuntimeError),
                       (np.zeros((2, 2, 4)), {}, torch.linalg.LinAlgError)]:
        with pytest.raises(exc):
            torch.linalg.tensorinv(torch.tensor(x), **kw)
        with pytest.raises(exc if exc is RuntimeError else pyad.linalg.LinAlgError):
            pyad.linalg.tensorinv(x, **kw)


def test_tensorsolve_vs_torch():
    a = (rand(6, 6) + 4 * np.eye(6)).reshape(2, 3, 6)
    b = rand(2, 3)
    compare(lambda L, x, y: L.tensorsolve(x, y), [a, b])
    at = np.ascontiguousarray(np.moveaxis(a, 2, 0))
    compare(lambda L, x, y: L.tensorsolve(x, y, dims=(0,)), [at, b])
    check_grads(lambda L, x, y: L.tensorsolve(x, y), [a, b])
    with pytest.raises(RuntimeError):
        torch.linalg.tensorsolve(torch.ones(2, 3, 5), torch.ones(2, 3))
    with pytest.raises(RuntimeError, match="prod"):
        pyad.linalg.tensorsolve(pyad.ones(2, 3, 5), pyad.ones(2, 3))


@pytest.mark.parametrize("sa,st", [((4, 3), (3,)), ((4, 3), (2,)), ((2, 4, 2), (2, 2)),
                                   ((3, 3), (3,)), ((3, 2), (0,))])
def test_householder_product_vs_torch(sa, st):
    f = lambda L, a, t: L.householder_product(a, t)   # noqa: E731
    grads = st[-1] > 0       # no reflector: the identity's columns (torch: no gradient)
    compare(f, [rand(*sa), rand(*st)], grads=grads)
    compare(f, [rand(*sa).astype(np.float32), rand(*st).astype(np.float32)], grads=grads)
    compare(f, [rand(*sa, complex_=True), rand(*st, complex_=True)], grads=grads)
    if st[-1]:
        check_grads(f, [rand(*sa), rand(*st)])
    # the Q of a QR decomposition from geqrf's reflectors
    a = torch.tensor(rand(5, 3))
    qr_, tau = torch.geqrf(a)
    np.testing.assert_allclose(
        pyad.linalg.householder_product(qr_.numpy(), tau.numpy()).data,
        torch.linalg.householder_product(qr_, tau).numpy(), rtol=1e-12, atol=1e-12)


def test_householder_product_errors():
    for a, t in [(rand(4, 3), rand(4)), (rand(3, 4), rand(3))]:
        with pytest.raises(RuntimeError):
            torch.linalg.householder_product(torch.tensor(a), torch.tensor(t))
        with pytest.raises(RuntimeError, match="householder_product"):
            pyad.linalg.householder_product(a, t)


def test_namespace():
    for name in pyad.linalg.__all__:
        assert hasattr(torch.linalg, name), name


EMPTY_CALLS = [
    ("pinv", lambda L, a: L.pinv(a)),
    ("eig", lambda L, a: tuple(L.eig(a))),
    ("eigvals", lambda L, a: L.eigvals(a)),
    ("eigvalsh", lambda L, a: L.eigvalsh(a)),
    ("matrix_exp", lambda L, a: L.matrix_exp(a)),
    ("lu", lambda L, a: tuple(L.lu(a))),
    ("lu_factor", lambda L, a: tuple(L.lu_factor(a))),
    ("matrix_rank", lambda L, a: L.matrix_rank(a)),
    ("cond", lambda L, a: L.cond(a)),
    ("cond_1", lambda L, a: L.cond(a, 1)),
    ("inv_ex", lambda L, a: tuple(L.inv_ex(a))),
    ("cholesky_ex", lambda L, a: tuple(L.cholesky_ex(a))),
    ("solve_triangular", lambda L, a: L.solve_triangular(a, a, upper=True)),
    ("lu_solve", lambda L, a: L.lu_solve(*L.lu_factor(a), a)),
    ("solve_ex", lambda L, a: tuple(L.solve_ex(a, a))),
    ("lstsq", lambda L, a: tuple(L.lstsq(a, a))),
    ("vecdot", lambda L, a: L.vecdot(a, a)),
]


@pytest.mark.parametrize("shape", [(0, 3, 3), (2, 0, 0)], ids=str)
@pytest.mark.parametrize("name,f", EMPTY_CALLS, ids=[c[0] for c in EMPTY_CALLS])
def test_empty_inputs_vs_torch(name, f, shape):
    compare(f, [np.zeros(shape)], grads=False)
