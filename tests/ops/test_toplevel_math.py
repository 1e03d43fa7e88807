"""torch's remaining top-level math names and Tensor methods (pyad/_toplevel_math.py)
against torch 2.13 on the same inputs: values, dtypes, shapes, gradients (first and
second order), gradcheck/gradgradcheck in float64, edge inputs, and torch's error types."""
import warnings

import numpy as np
import pytest

import pyad
from pyad.autograd import gradcheck, gradgradcheck

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(11)
A34 = RNG.standard_normal((3, 4))
B34 = RNG.standard_normal((3, 4))
SQ = RNG.standard_normal((2, 3, 3))


def _np(t):
    return t.detach().resolve_conj().numpy()


def _compare(f, arrays, rtol=1e-10, atol=1e-12, second=True, check_fd=True):
    """f(lib, *inputs) with pyad and torch: values, dtype, gradients of Re<w, out>,
    second derivatives, gradcheck/gradgradcheck."""
    xs = [pyad.Variable(a.copy(), requires_grad=True) for a in arrays]
    ts = [torch.from_numpy(a.copy()).requires_grad_(True) for a in arrays]
    out, tout = f(pyad, *xs), f(torch, *ts)
    assert out.shape == tuple(tout.shape)
    assert out.dtype == _np(tout).dtype
    np.testing.assert_allclose(out.data, _np(tout), rtol=rtol, atol=atol)
    w = np.linspace(0.5, 1.5, out.data.size).reshape(out.shape).astype(out.dtype)
    if out.dtype.kind == "c":
        w = np.asarray(w * (1 - 0.5j))
    g = pyad.grad(out, xs, pyad.Variable(w), create_graph=second)
    tg = torch.autograd.grad(tout, ts, torch.from_numpy(w), create_graph=second)
    for a, b in zip(g, tg):
        np.testing.assert_allclose(a.data, _np(b), rtol=rtol, atol=atol)
    if second:
        v = [np.cos(np.arange(a.size)).reshape(a.shape) for a in arrays]
        s = sum((a * pyad.Variable(vi)).sum() for a, vi in zip(g, v))
        ts_ = sum((b * torch.from_numpy(vi)).sum() for b, vi in zip(tg, v))
        if not ts_.requires_grad:         # a gradient linear in the output's weights
            assert not s.requires_grad
            g2 = tg2 = ()
        else:
            g2 = pyad.grad(s, xs, allow_unused=True)
            tg2 = torch.autograd.grad(ts_, ts, allow_unused=True)
        for a, b in zip(g2, tg2):
            if b is None:
                assert a is None or not np.any(a.data)
                continue
            np.testing.assert_allclose(a.data, _np(b), rtol=1e-9, atol=1e-11)
    if check_fd:
        fresh = [pyad.Variable(a.copy(), requires_grad=True) for a in arrays]
        assert gradcheck(lambda *v: f(pyad, *v), tuple(fresh))
        assert gradgradcheck(lambda *v: f(pyad, *v), tuple(fresh))


def _raises_like_torch(call):
    with pytest.raises(Exception) as texc:
        call(torch)
    with pytest.raises(texc.type):
        call(pyad)


# -- complex, polar, the lazy bits ---------------------------------------------------------

@pytest.mark.parametrize("name", ["complex", "polar"])
def test_complex_and_polar_match_torch(name):
    # polar's abs is non-negative (torch: undefined otherwise)
    first = np.abs(A34) + 0.1 if name == "polar" else A34
    _compare(lambda L, a, b: getattr(L, name)(a, b), [first, B34])
    # broadcast and non-contiguous
    _compare(lambda L, a, b: getattr(L, name)(a.t(), b[:, :1].t()), [first, B34])
    # 0-d
    _compare(lambda L, a, b: getattr(L, name)(a, b), [np.array(0.7), np.array(-0.2)])


@pytest.mark.parametrize("name", ["complex", "polar"])
def test_complex_and_polar_dtypes_and_errors(name):
    for dt in (np.float32, np.float64):
        a, b = A34.astype(dt), B34.astype(dt)
        out = getattr(pyad, name)(pyad.Variable(a), pyad.Variable(b))
        tout = getattr(torch, name)(torch.from_numpy(a), torch.from_numpy(b))
        assert out.dtype == _np(tout).dtype
        np.testing.assert_allclose(out.data, _np(tout), rtol=1e-6)
    empty = getattr(pyad, name)(pyad.zeros(0), pyad.zeros(0))
    assert empty.shape == (0,) and empty.dtype == np.complex64
    _raises_like_torch(lambda L: getattr(L, name)(L.ones(2, dtype=L.float64), L.ones(2)))
    _raises_like_torch(lambda L: getattr(L, name)(L.tensor([1, 2]), L.tensor([1, 2])))
    _raises_like_torch(lambda L: getattr(L, name)(L.ones(2), 2.0))


def test_lazy_bit_queries_match_torch():
    for make in (lambda L: L.ones(2), lambda L: L.ones(2, dtype=L.complex64),
                 lambda L: L.tensor([1], dtype=L.uint8), lambda L: L.tensor([True]),
                 lambda L: L.tensor([1], dtype=L.int16)):
        x, t = make(pyad), make(torch)
        assert pyad.is_conj(x) is torch.is_conj(t) is False
        assert pyad.is_neg(x) is torch.is_neg(t) is False
        assert pyad.is_signed(x) == torch.is_signed(t)
        assert pyad.resolve_conj(x) is x and pyad.resolve_neg(x) is x
    _raises_like_torch(lambda L: L.is_conj(3.0))


# -- linear algebra spellings --------------------------------------------------------------

def test_matrix_exp_top_level_and_method():
    _compare(lambda L, a: L.matrix_exp(a * 0.3), [SQ])
    _compare(lambda L, a: (a * 0.3).matrix_exp(), [SQ[0]])


def test_chain_matmul_matches_torch_and_warns():
    mats = [A34, RNG.standard_normal((4, 2)), RNG.standard_normal((2, 5))]
    with pytest.warns(UserWarning, match="chain_matmul is deprecated"):
        pyad.chain_matmul(pyad.ones(2, 2), pyad.ones(2, 2))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _compare(lambda L, a, b, c: L.chain_matmul(a, b, c), mats)
        _compare(lambda L, a: L.chain_matmul(a), [A34])
        _raises_like_torch(lambda L: L.chain_matmul())
        _raises_like_torch(lambda L: L.chain_matmul(L.ones(2), L.ones(2)))


@pytest.mark.parametrize("call", [
    lambda L, x: L.frobenius_norm(x, (1, 2)),
    lambda L, x: L.frobenius_norm(x, (1,), True),
    lambda L, x: L.frobenius_norm(x, ()),
    lambda L, x: L.nuclear_norm(x),
    lambda L, x: L.nuclear_norm(x[0], True),
    lambda L, x: L.nuclear_norm(x, (0, 2)),
    lambda L, x: L.nuclear_norm(x, (1, 2), keepdim=True),
])
def test_frobenius_and_nuclear_norm_match_torch(call):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _compare(call, [RNG.standard_normal((2, 3, 4))], rtol=1e-8)


def test_matrix_rank_is_removed_as_in_torch():
    _raises_like_torch(lambda L: L.matrix_rank(L.ones(2, 2)))


@pytest.mark.parametrize("shape", [(3, 3), (2, 4, 4), (3, 5), (5, 3)])
def test_lu_and_lu_unpack_match_torch(shape):
    a = RNG.standard_normal(shape)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        LU, piv = pyad.lu(pyad.Variable(a))
        tLU, tpiv = torch.lu(torch.from_numpy(a))
        np.testing.assert_allclose(LU.data, tLU.numpy(), rtol=1e-10, atol=1e-12)
        assert piv.dtype == tpiv.numpy().dtype
        np.testing.assert_array_equal(piv.data, tpiv.numpy())
        LU3 = pyad.Variable(a).lu(get_infos=True)
        tLU3 = torch.from_numpy(a).lu(get_infos=True)
        assert len(LU3) == 3 and LU3[2].dtype == tLU3[2].numpy().dtype
        np.testing.assert_array_equal(LU3[2].data, tLU3[2].numpy())
        for P, tP in zip(pyad.lu_unpack(LU, piv), torch.lu_unpack(tLU, tpiv)):
            assert P.shape == tuple(tP.shape)
            np.testing.assert_allclose(P.data, tP.numpy(), rtol=1e-10, atol=1e-12)
        for kw in ({"unpack_data": False}, {"unpack_pivots": False}):
            for P, tP in zip(pyad.lu_unpack(LU, piv, **kw), torch.lu_unpack(tLU, tpiv, **kw)):
                assert P.shape == tuple(tP.shape)
        # gradients through LU and the unpacked factors
        _compare(lambda L, x: sum(f.sum() * (i + 1) for i, f in enumerate(
            L.lu_unpack(*L.lu(x))[1:])) + L.lu(x)[0], [a], rtol=1e-8)


def test_lu_solve_top_level_and_method_match_torch():
    a = SQ + 3 * np.eye(3)
    b = RNG.standard_normal((2, 3, 2))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _compare(lambda L, A, B: L.lu_solve(B, *L.lu(A)), [a, b], rtol=1e-8)
        _compare(lambda L, A, B: B.lu_solve(*L.lu(A)), [a, b], rtol=1e-8)


@pytest.mark.parametrize("shape", [(8, 5), (5, 8), (2, 6, 6)])
def test_svd_lowrank_and_pca_lowrank_singular_values_match_torch(shape):
    a = RNG.standard_normal(shape)
    k = 3
    low = RNG.standard_normal(shape[:-1] + (k,)) @ RNG.standard_normal(shape[:-2] + (k, shape[-1]))
    U, S, V = pyad.svd_lowrank(pyad.Variable(a), q=min(shape[-2:]))
    tU, tS, tV = torch.svd_lowrank(torch.from_numpy(a), q=min(shape[-2:]))
    np.testing.assert_allclose(S.data, tS.numpy(), rtol=1e-8)
    assert U.shape == tuple(tU.shape) and V.shape == tuple(tV.shape)
    np.testing.assert_allclose((U @ pyad.diag_embed(S) @ V.mT).data, a, atol=1e-8)
    # a rank-k matrix: its k singular values are found exactly by both
    U, S, V = pyad.svd_lowrank(pyad.Variable(low), q=k)
    tU, tS, tV = torch.svd_lowrank(torch.from_numpy(low), q=k)
    np.testing.assert_allclose(S.data, tS.numpy(), rtol=1e-8)
    centred = low - low.mean(-2, keepdims=True)
    U, S, V = pyad.pca_lowrank(pyad.Variable(centred + 2.0), q=k)
    tU, tS, tV = torch.pca_lowrank(torch.from_numpy(centred + 2.0), q=k)
    assert S.shape == tuple(tS.shape) and U.shape == tuple(tU.shape)
    np.testing.assert_allclose(S.data, tS.numpy(), rtol=1e-8)
    U, S, V = pyad.pca_lowrank(pyad.Variable(a), center=False)
    tU, tS, tV = torch.pca_lowrank(torch.from_numpy(a), center=False)
    assert S.shape == tuple(tS.shape)
    _raises_like_torch(lambda L: L.pca_lowrank(L.ones(3, 3), q=5))


# -- factories -----------------------------------------------------------------------------

@pytest.mark.parametrize("args, kwargs", [
    ((0, 3), {}), ((0, 1, 0.3), {}), ((3, 0, -1), {}), ((0, 1, 0.1), {}), ((1, 3), {}),
    ((1, 3), {"dtype": "int32"}), ((0, 10, 3), {"dtype": "float64"}), ((2.5, 2.5), {}),
])
def test_range_matches_torch(args, kwargs):
    with pytest.warns(UserWarning, match="range is deprecated"):
        r = pyad.range(*args, **{k: getattr(pyad, v) for k, v in kwargs.items()})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t = torch.range(*args, **{k: getattr(torch, v) for k, v in kwargs.items()})
    assert r.dtype == t.numpy().dtype and r.shape == tuple(t.shape)
    np.testing.assert_allclose(r.data, t.numpy(), rtol=1e-6)


def test_range_errors_match_torch():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _raises_like_torch(lambda L: L.range(0, 3, 0))
        _raises_like_torch(lambda L: L.range(3, 0, 1))


@pytest.mark.parametrize("s, dtype", [(3, None), (True, None), (2.5, None), (3, "int64"),
                                      (1.5, "float64"), (1 + 2j, "complex64")])
def test_scalar_tensor_matches_torch(s, dtype):
    kw = {} if dtype is None else {"dtype": getattr(pyad, dtype)}
    tkw = {} if dtype is None else {"dtype": getattr(torch, dtype)}
    x, t = pyad.scalar_tensor(s, **kw), torch.scalar_tensor(s, **tkw)
    assert x.shape == () and x.dtype == t.numpy().dtype
    np.testing.assert_allclose(x.data, t.numpy())


def test_fill_matches_torch():
    for make, value in ((lambda L: L.tensor([1, 2]), 2.5),
                        (lambda L: L.tensor([[1.0, 2.0]]).t(), -1.0),
                        (lambda L: L.zeros(0), 3.0)):
        x, t = pyad.fill(make(pyad), value), torch.fill(make(torch), value)
        assert x.dtype == t.numpy().dtype and x.shape == tuple(t.shape)
        np.testing.assert_array_equal(x.data, t.numpy())
    src = pyad.ones(3)
    assert not np.shares_memory(pyad.fill(src, 2.0).data, src.data)
    # a 0-d value Variable: its gradient is the sum of the result's
    _compare(lambda L, x, v: L.fill(x, v) * x, [A34, np.array(1.5)])
    _raises_like_torch(lambda L: L.fill(L.ones(2), L.ones(2)))
    # recorded as torch's: a zero gradient for the input, a float64 value into float32
    for L in (pyad, torch):
        x = L.ones(2, requires_grad=True)
        v = L.tensor(1.5, dtype=L.float64, requires_grad=True)
        y = L.fill(x, v)
        assert y.requires_grad and y.dtype == L.float32
        y.sum().backward()
        assert x.grad.tolist() == [0.0, 0.0] and v.grad.item() == 2.0
        assert v.grad.dtype == L.float64


def test_empty_strided_and_empty_permuted_match_torch():
    for size, stride in (((2, 3), (1, 2)), ((2, 3), (3, 1)), ((0, 3), (3, 1)), ((), ())):
        x, t = pyad.empty_strided(size, stride), torch.empty_strided(size, stride)
        assert x.shape == tuple(t.shape) and x.stride() == t.stride()
        assert x.dtype == t.numpy().dtype
    x = pyad.empty_strided((2, 2), (2, 1), dtype=pyad.float64, requires_grad=True)
    assert x.dtype == np.float64 and x.requires_grad
    for size, order in (((2, 3, 4), (2, 0, 1)), ((2, 3), (0, 1)), ((2, 3), (1, 0))):
        x, t = pyad.empty_permuted(size, order), torch.empty_permuted(size, order)
        assert x.shape == tuple(t.shape) and x.stride() == t.stride()
    _raises_like_torch(lambda L: L.empty_strided((2, 3), (1,)))
    _raises_like_torch(lambda L: L.empty_permuted((2, 3), (0,)))


# -- histograms -----------------------------------------------------------------------------

HIST_CALLS = [
    lambda L, x: L.histogram(x, 4),
    lambda L, x: L.histogram(x, 5, range=(-1.0, 1.0)),
    lambda L, x: L.histogram(x, 3, density=True),
    lambda L, x: L.histogram(x, 3, weight=x.abs()),
    lambda L, x: L.histogram(x, L.tensor([-2.0, -0.5, 0.0, 2.5], dtype=x.dtype)),
    lambda L, x: L.histogram(x, L.tensor([-2.0, 0.0, 0.5], dtype=x.dtype), density=True,
                             weight=x.abs()),
    lambda L, x: x.t().histogram(6),
    lambda L, x: L.histogram(x[:0], 3),
]


@pytest.mark.parametrize("i", range(len(HIST_CALLS)))
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_histogram_matches_torch(i, dtype):
    a = A34.astype(dtype)
    h, e = HIST_CALLS[i](pyad, pyad.Variable(a))
    th, te = HIST_CALLS[i](torch, torch.from_numpy(a))
    assert h.dtype == th.numpy().dtype and e.dtype == te.numpy().dtype
    np.testing.assert_allclose(e.data, te.numpy(), rtol=1e-6)
    np.testing.assert_allclose(h.data, th.numpy(), rtol=1e-6, equal_nan=True)


def test_histogramdd_and_histogram_errors_match_torch():
    pts = RNG.standard_normal((20, 2))
    for call in (lambda L, x: L.histogramdd(x, bins=[3, 4]),
                 lambda L, x: L.histogramdd(x, bins=2, range=[-3.0, 3.0, -2.0, 2.0],
                                            density=True),
                 lambda L, x: L.histogramdd(x, bins=[L.tensor([-3.0, 0.0, 3.0],
                                                              dtype=L.float64)] * 2)):
        h, e = call(pyad, pyad.Variable(pts))
        th, te = call(torch, torch.from_numpy(pts))
        np.testing.assert_allclose(h.data, th.numpy(), rtol=1e-10)
        for a, b in zip(e, te):
            np.testing.assert_allclose(a.data, b.numpy(), rtol=1e-10)
    _raises_like_torch(lambda L: L.histogram(L.tensor([1, 2]), 3))
    _raises_like_torch(lambda L: L.histogram(L.ones(3), -1))


# -- gradient ------------------------------------------------------------------------------

GRADIENT_CALLS = [
    lambda L, x: L.gradient(x),
    lambda L, x: L.gradient(x, dim=1),
    lambda L, x: L.gradient(x, spacing=2.0),
    lambda L, x: L.gradient(x, spacing=[0.5, 2.0]),
    lambda L, x: L.gradient(x, edge_order=2),
    lambda L, x: L.gradient(x, dim=-1, edge_order=2, spacing=[3.0]),
    lambda L, x: L.gradient(x, spacing=(L.tensor([0.0, 1.0, 3.0, 4.5], dtype=x.dtype),),
                            dim=1),
    lambda L, x: L.gradient(x, spacing=(L.tensor([0.0, 1.0, 3.0, 4.5], dtype=x.dtype),),
                            dim=1, edge_order=2),
    lambda L, x: L.gradient(x.t()),
]


@pytest.mark.parametrize("i", range(len(GRADIENT_CALLS)))
def test_gradient_matches_torch(i):
    for k in range(len(GRADIENT_CALLS[i](torch, torch.from_numpy(A34)))):
        _compare(lambda L, x: GRADIENT_CALLS[i](L, x)[k], [A34])


def test_gradient_keeps_float32_and_takes_0d_spacing():
    a = A34.astype(np.float32)
    for call in GRADIENT_CALLS:
        for g, tg in zip(call(pyad, pyad.Variable(a)), call(torch, torch.from_numpy(a))):
            assert g.dtype == np.float32 == tg.numpy().dtype
            np.testing.assert_allclose(g.data, tg.numpy(), rtol=1e-5, atol=1e-6)
    (g,), (tg,) = (pyad.gradient(pyad.Variable(A34[0]), spacing=pyad.tensor(0.5)),
                   torch.gradient(torch.from_numpy(A34[0]), spacing=torch.tensor(0.5)))
    np.testing.assert_allclose(g.data, tg.numpy(), rtol=1e-12)


def test_lu_of_a_singular_matrix_matches_torch():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for get_infos in (False, True):
            got = pyad.lu(pyad.zeros(2, 2), get_infos=get_infos)
            want = torch.lu(torch.zeros(2, 2), get_infos=get_infos)
            for a, b in zip(got, want):
                np.testing.assert_array_equal(a.data, b.numpy())


def test_gradient_dtypes_and_errors_match_torch():
    for make in (lambda L: L.tensor([1, 4, 9]), lambda L: L.tensor([1.0, 4.0, 9.0])):
        (g,), (tg,) = pyad.gradient(make(pyad)), torch.gradient(make(torch))
        assert g.dtype == tg.numpy().dtype
        np.testing.assert_allclose(g.data, tg.numpy())
    _raises_like_torch(lambda L: L.gradient(L.tensor([1.0])))
    _raises_like_torch(lambda L: L.gradient(L.tensor([1.0, 2.0]), edge_order=2))
    _raises_like_torch(lambda L: L.gradient(L.tensor([1.0, 2.0, 3.0]), edge_order=3))
    _raises_like_torch(lambda L: L.gradient(L.ones(2, 3), dim=(0, 1), spacing=[1.0]))


# -- random samples ------------------------------------------------------------------------

def test_poisson_and_binomial_shapes_dtypes_and_moments():
    pyad.manual_seed(0)
    rates = pyad.full((20000,), 3.0)
    s = pyad.poisson(rates)
    assert s.dtype == torch.poisson(torch.full((2,), 3.0)).numpy().dtype
    assert abs(float(s.mean()) - 3.0) < 0.1 and abs(float(s.var()) - 3.0) < 0.2
    assert pyad.poisson(pyad.zeros(2, 0)).shape == (2, 0)
    r = pyad.ones(2, requires_grad=True)
    p = pyad.poisson(r)               # recorded with a zero gradient, as torch's
    assert p.requires_grad == torch.poisson(torch.ones(2, requires_grad=True)).requires_grad
    p.sum().backward()
    assert r.grad.tolist() == [0.0, 0.0]
    c = pyad.binomial(pyad.full((20000,), 10.0, dtype=pyad.float64),
                      pyad.full((20000,), 0.3, dtype=pyad.float64))
    assert c.dtype == np.float64
    assert abs(float(c.mean()) - 3.0) < 0.1
    g = pyad.Generator().manual_seed(5)
    a = pyad.poisson(pyad.full((5,), 4.0), generator=g)
    g.manual_seed(5)
    np.testing.assert_array_equal(a.data, pyad.poisson(pyad.full((5,), 4.0), generator=g).data)
    _raises_like_torch(lambda L: L.poisson(L.tensor([1, 2])))
    _raises_like_torch(lambda L: L.binomial(L.tensor([5, 6]), L.tensor([0.5, 0.2])))


# -- igamma / igammac ----------------------------------------------------------------------

@pytest.mark.parametrize("name", ["igamma", "igammac"])
def test_igamma_values_match_torch(name):
    a = np.array([0.0, 0.0, 1.0, -1.0, 2.0, 2.0, 0.5, 3.0, 10.0, 18.0, 0.1, 7.5, 1e-3, np.nan])
    x = np.array([0.0, 1.0, 0.0, 1.0, np.inf, -1.0, 0.2, 3.5, 9.0, 15.0, 5.0, 0.01, 2.0, 1.0])
    for dt in (np.float64, np.float32):
        out = getattr(pyad, name)(pyad.Variable(a.astype(dt)), pyad.Variable(x.astype(dt)))
        t = getattr(torch, name)(torch.from_numpy(a.astype(dt)), torch.from_numpy(x.astype(dt)))
        assert out.dtype == t.numpy().dtype
        np.testing.assert_allclose(out.data, t.numpy(), rtol=1e-12 if dt == np.float64
                                   else 1e-5, atol=1e-14, equal_nan=True)
    grid_a, grid_x = np.meshgrid(np.linspace(0.05, 20, 25), np.linspace(0.01, 40, 25))
    out = getattr(pyad, name)(pyad.Variable(grid_a), pyad.Variable(grid_x))
    t = getattr(torch, name)(torch.from_numpy(grid_a), torch.from_numpy(grid_x))
    np.testing.assert_allclose(out.data, t.numpy(), rtol=1e-11, atol=1e-15)


def test_igamma_large_arguments_against_mpmath():
    # for a > 20 near x = a torch (Cephes' asymptotic series) is off by ~1e-10
    # relative; pyad's series / continued fraction is checked against mpmath there
    mpmath = pytest.importorskip("mpmath")
    for a, x in ((25.0, 20.0), (50.0, 60.0), (500.0, 520.0), (200.0, 150.0)):
        want = float(mpmath.gammainc(a, 0, x, regularized=True))
        got = pyad.igamma(pyad.tensor(a, dtype=pyad.float64),
                          pyad.tensor(x, dtype=pyad.float64)).item()
        assert got == pytest.approx(want, rel=1e-12)
        t = torch.igamma(torch.tensor(a, dtype=torch.float64),
                         torch.tensor(x, dtype=torch.float64)).item()
        assert got == pytest.approx(t, rel=1e-8)


@pytest.mark.parametrize("name", ["igamma", "igammac"])
def test_igamma_gradients_match_torch(name):
    a = np.abs(A34) + 0.5
    x = np.abs(B34) + 0.1
    _compare(lambda L, xx: getattr(L, name)(L.tensor(a), xx), [x], rtol=1e-9)
    # broadcast, non-contiguous, method form
    _compare(lambda L, xx: getattr(L.tensor(a[:, :1]), name)(xx.t()), [x.T.copy()], rtol=1e-9)
    xa = pyad.Variable(a, requires_grad=True)
    with pytest.raises(NotImplementedError):
        getattr(pyad, name)(xa, pyad.Variable(x)).sum().backward()
    _raises_like_torch(lambda L: getattr(L, name)(L.tensor([1, 2]), L.tensor([1, 2])))
    _raises_like_torch(lambda L: getattr(L, name)(L.tensor([1.0, 2.0]), 2.0))
    for a_, x_ in (([1, 2], [1.0, 2.0]), ([1.0], [[0.5], [2.0]])):
        for dt in ("float32", "float64"):
            def call(L):
                xx = L.tensor(x_, dtype=getattr(L, dt))
                return getattr(L, name)(L.tensor(a_), xx)
            assert call(pyad).dtype == call(torch).numpy().dtype
            np.testing.assert_allclose(call(pyad).data, call(torch).numpy(), rtol=1e-6)


@pytest.mark.parametrize("name", ["igamma_", "igammac_"])
def test_igamma_inplace_matches_torch(name):
    a, x = np.abs(A34) + 0.5, np.abs(B34) + 0.1
    v, t = pyad.Variable(a.copy()), torch.from_numpy(a.copy())
    assert getattr(v, name)(pyad.Variable(x)) is v
    getattr(t, name)(torch.from_numpy(x))
    np.testing.assert_allclose(v.data, t.numpy(), rtol=1e-12)


def test_addr_inplace_matches_torch():
    m, u, w = A34.copy(), RNG.standard_normal(3), RNG.standard_normal(4)
    v, t = pyad.Variable(m.copy()), torch.from_numpy(m.copy())
    assert v.addr_(pyad.Variable(u), pyad.Variable(w), beta=0.5, alpha=2.0) is v
    t.addr_(torch.from_numpy(u), torch.from_numpy(w), beta=0.5, alpha=2.0)
    np.testing.assert_allclose(v.data, t.numpy(), rtol=1e-12)
    # gradients through the in-place form
    _compare(lambda L, m_, u_, w_: (m_ * 1.0).addr_(u_, w_, alpha=3.0), [m, u, w])


# -- global switches and queries ------------------------------------------------------------

def test_queries_and_switches_match_torch():
    assert pyad.get_device(pyad.ones(1)) == torch.get_device(torch.ones(1)) == -1
    for make in (lambda L: L.ones(1), lambda L: L.ones(1, dtype=L.float64),
                 lambda L: L.tensor([1]), lambda L: L.ones(1, dtype=L.complex64),
                 lambda L: L.tensor([True])):
        assert pyad.typename(make(pyad)) == torch.typename(make(torch))
    assert pyad.typename(3) == torch.typename(3) == "int"
    assert pyad.typename(pyad.nn.Linear) == "pyad.nn.modules.linear.Linear" or (
        pyad.typename(pyad.nn.Linear).startswith("pyad.nn."))
    assert pyad.is_warn_always_enabled() is False
    pyad.set_warn_always(True)
    assert pyad.is_warn_always_enabled() is True
    pyad.set_warn_always(False)
    assert pyad.set_flush_denormal(False) is torch.set_flush_denormal(False)
    try:
        for mode, want in (("warn", 1), ("error", 2), (0, 0), (1, 1), ("default", 0)):
            pyad.set_deterministic_debug_mode(mode)
            torch.set_deterministic_debug_mode(mode)
            assert pyad.get_deterministic_debug_mode() == torch.get_deterministic_debug_mode()
            assert (pyad.is_deterministic_algorithms_warn_only_enabled()
                    == torch.is_deterministic_algorithms_warn_only_enabled())
            assert (pyad.are_deterministic_algorithms_enabled()
                    == torch.are_deterministic_algorithms_enabled())
        _raises_like_torch(lambda L: L.set_deterministic_debug_mode("loud"))
        _raises_like_torch(lambda L: L.set_deterministic_debug_mode(3))
        _raises_like_torch(lambda L: L.set_deterministic_debug_mode(1.0))
    finally:
        pyad.set_deterministic_debug_mode(0)
        torch.set_deterministic_debug_mode(0)


# -- the *_copy functions ------------------------------------------------------------------

COPY_CALLS = [
    ("alias_copy", lambda L, x: L.alias_copy(x)),
    ("detach_copy", lambda L, x: L.detach_copy(x)),
    ("diagonal_copy", lambda L, x: L.diagonal_copy(x, 1)),
    ("expand_copy", lambda L, x: L.expand_copy(x[:, :1], (3, 5))),
    ("permute_copy", lambda L, x: L.permute_copy(x, (1, 0))),
    ("select_copy", lambda L, x: L.select_copy(x, 1, 2)),
    ("slice_copy", lambda L, x: L.slice_copy(x, 1, 1, 4, 2)),
    ("slice_copy_default", lambda L, x: L.slice_copy(x)),
    ("split_copy", lambda L, x: L.split_copy(x, 2, 1)),
    ("split_with_sizes_copy", lambda L, x: L.split_with_sizes_copy(x, [1, 3], 1)),
    ("squeeze_copy", lambda L, x: L.squeeze_copy(x[:1])),
    ("squeeze_copy_dim", lambda L, x: L.squeeze_copy(x[:1], 0)),
    ("t_copy", lambda L, x: L.t_copy(x)),
    ("transpose_copy", lambda L, x: L.transpose_copy(x, 0, 1)),
    ("unbind_copy", lambda L, x: L.unbind_copy(x, 1)),
    ("unfold_copy", lambda L, x: L.unfold_copy(x, 1, 2, 1)),
    ("unsqueeze_copy", lambda L, x: L.unsqueeze_copy(x, 1)),
    ("view_copy", lambda L, x: L.view_copy(x, (4, 3))),
    ("as_strided_copy", lambda L, x: L.as_strided_copy(x, (2, 2), (1, 4))),
    ("view_as_real_copy", lambda L, x: L.view_as_real_copy(x * (1 + 2j))),
    ("view_as_complex_copy", lambda L, x: L.view_as_complex_copy(x.reshape(6, 2))),
]


@pytest.mark.parametrize("name, call", COPY_CALLS, ids=[c[0] for c in COPY_CALLS])
def test_copy_functions_match_torch_and_never_share_memory(name, call):
    x = pyad.Variable(A34.copy())
    out = call(pyad, x)
    outs = out if isinstance(out, tuple) else (out,)
    touts = call(torch, torch.from_numpy(A34.copy()))
    touts = touts if isinstance(touts, (tuple, list)) else (touts,)
    assert len(outs) == len(touts)
    for o, t in zip(outs, touts):
        assert o.shape == tuple(t.shape) and o.dtype == _np(t).dtype
        np.testing.assert_allclose(o.data, _np(t), rtol=1e-12)
        assert not np.shares_memory(o.data, x.data)
    if name == "view_as_complex_copy":      # torch: no derivative for it
        _raises_like_torch(lambda L: call(L, L.tensor(A34, requires_grad=True)))
        return
    if name == "detach_copy":
        return
    for k in range(len(outs)):
        _compare(lambda L, v: (lambda r: r[k] if isinstance(r, (tuple, list)) else r)(
            call(L, v)), [A34])


def test_detach_top_level_matches_torch():
    x = pyad.ones(2, requires_grad=True) * 2
    d = pyad.detach(x)
    assert not d.requires_grad and np.shares_memory(d.data, x.data)
    assert pyad.detach_(x) is x and not x.requires_grad and x.grad_fn is None


# -- Variable methods ----------------------------------------------------------------------

def test_device_flags_and_unsupported_conversions():
    x, t = pyad.ones(2), torch.ones(2)
    for flag in ("is_xpu", "is_mps", "is_ipu", "is_xla", "is_vulkan", "is_maia", "is_mtia"):
        assert getattr(x, flag) is getattr(t, flag) is False
    with pytest.raises(AssertionError):
        t.xpu()
    with pytest.raises(AssertionError):
        x.xpu()
    with pytest.raises(TypeError):
        x.chalf()
    # bfloat16 (ml_dtypes, the optional extra): to() and bfloat16() convert, with a
    # gradient, as torch's; without ml_dtypes bfloat16() raises TypeError
    if hasattr(pyad, "bfloat16"):
        v = pyad.tensor([1.0, 1.0 / 3, -2.5e-3, 3e38], dtype=pyad.float64, requires_grad=True)
        tv = torch.tensor([1.0, 1.0 / 3, -2.5e-3, 3e38], dtype=torch.float64, requires_grad=True)
        for b, tb in ((v.to(pyad.bfloat16), tv.to(torch.bfloat16)), (v.bfloat16(), tv.bfloat16())):
            assert b.dtype == pyad.bfloat16 and b.requires_grad and b.is_floating_point()
            np.testing.assert_array_equal(b.data.astype(np.float64), tb.double().detach().numpy())
        (g,) = pyad.autograd.grad((v.bfloat16() * 3).sum(), v)
        (tg,) = torch.autograd.grad((tv.bfloat16() * 3).sum(), tv)
        assert g.dtype == pyad.float64
        np.testing.assert_array_equal(g.data, tg.numpy())
    else:
        with pytest.raises(TypeError, match="ml_dtypes"):
            x.bfloat16()


@pytest.mark.parametrize("make", [
    lambda L: L.ones(2, 3, 4), lambda L: L.ones(2, 3, 4).permute(2, 0, 1),
    lambda L: L.ones(2, 3).t(), lambda L: L.ones(()), lambda L: L.ones(3, 4)[:, ::2],
])
def test_dim_order_matches_torch(make):
    assert make(pyad).dim_order() == make(torch).dim_order()


@pytest.mark.parametrize("make, kw", [
    (lambda L: L.tensor([0, 1, 0, 2]), {"size": 3}),
    (lambda L: L.tensor([[0, 1], [1, 0]]), {"size": 1, "fill_value": 5}),
    (lambda L: L.ones(0), {"size": 2}),
    (lambda L: L.tensor([[0.0, 1.5], [2.0, 0.0]]).t(), {"size": 4}),
    (lambda L: L.tensor([1, 2]), {"size": 0}),
])
def test_nonzero_static_matches_torch(make, kw):
    x, t = make(pyad).nonzero_static(**kw), make(torch).nonzero_static(**kw)
    assert x.dtype == t.numpy().dtype and x.shape == tuple(t.shape)
    np.testing.assert_array_equal(x.data, t.numpy())
    np.testing.assert_array_equal(pyad.nonzero_static(make(pyad), **kw).data,
                                  torch.nonzero_static(make(torch), **kw).numpy())


def test_set_flush_denormal_flushes_as_torch():
    # torch's own test: with the flag, a denormal float32 made from a Python float is 0,
    # and denormal operands count as 0; without it they are kept. (Both libraries set the
    # same per-thread CPU bits, so each is checked alone and the flag is cleared after.)
    import platform
    if platform.machine().lower() not in ("x86_64", "amd64"):
        pytest.skip("the flush-to-zero bits are x86's")
    tiny32, tiny64 = 1e-42, 1e-310
    try:
        for lib in (torch, pyad):
            assert lib.set_flush_denormal(True) is True
            f = lib.tensor([1.0, tiny32], dtype=lib.float32)
            assert f[0].item() == 1.0 and f[1].item() == 0.0, lib.__name__
            d = lib.tensor([tiny64], dtype=lib.float64)
            assert (d * 1.0).item() == 0.0, lib.__name__
            assert lib.set_flush_denormal(False) is True
            f = lib.tensor([1.0, tiny32], dtype=lib.float32)
            assert f[1].item() != 0.0
            assert (lib.tensor([tiny64], dtype=lib.float64) * 1.0).item() == tiny64
    finally:
        torch.set_flush_denormal(False)
        pyad.set_flush_denormal(False)
