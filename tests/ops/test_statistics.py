"""Statistics and small constructions (pyad/_statistics.py) against torch on the same
inputs: values, gradients (first and, through create_graph, second order), gradcheck and
gradgradcheck in float64, 0-d / empty / non-contiguous inputs where they apply, and the
errors torch raises."""
import numpy as np
import pytest

import pyad
from pyad.autograd import gradcheck, gradgradcheck

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(7)
A34 = RNG.standard_normal((3, 4))
A5 = RNG.standard_normal(5)


def _compare(f, arrays, rtol=1e-12, second=True, check_fd=True):
    """f(lib, *inputs) with pyad and torch: values, gradients of <w, out>, second
    derivatives of <v, grad>, and gradcheck/gradgradcheck."""
    xs = [pyad.Variable(a.copy(), requires_grad=True) for a in arrays]
    ts = [torch.from_numpy(a.copy()).requires_grad_(True) for a in arrays]
    out, tout = f(pyad, *xs), f(torch, *ts)
    assert out.shape == tuple(tout.shape)
    assert out.dtype == tout.detach().numpy().dtype
    np.testing.assert_allclose(out.data, tout.detach().numpy(), rtol=rtol, atol=1e-13,
                               equal_nan=True)
    w = np.linspace(0.5, 1.5, out.data.size).reshape(out.shape)
    g = pyad.grad(out, xs, pyad.Variable(w), create_graph=second, allow_unused=True)
    tg = torch.autograd.grad(tout, ts, torch.from_numpy(w), create_graph=second,
                             allow_unused=True)
    for a, b in zip(g, tg):
        if b is None or a is None:
            assert (a is None or not np.any(a.data)) and (b is None or not b.any())
            continue
        np.testing.assert_allclose(a.data, b.detach().numpy(), rtol=rtol, atol=1e-13)
    if second and all(b is not None and b.requires_grad for b in tg):
        v = [np.cos(np.arange(a.size)).reshape(a.shape) for a in arrays]
        s = sum((a * pyad.Variable(vi)).sum() for a, vi in zip(g, v))
        ts_ = sum((b * torch.from_numpy(vi)).sum() for b, vi in zip(tg, v))
        g2 = pyad.grad(s, xs, allow_unused=True)
        tg2 = torch.autograd.grad(ts_, ts, allow_unused=True)
        for a, b in zip(g2, tg2):
            if b is None:
                continue
            np.testing.assert_allclose(a.data, b.numpy(), rtol=1e-10, atol=1e-12)
    if check_fd:
        fresh = [pyad.Variable(a.copy(), requires_grad=True) for a in arrays]
        assert gradcheck(lambda *v: f(pyad, *v), tuple(fresh))
        assert gradgradcheck(lambda *v: f(pyad, *v), tuple(fresh))


QUANTILE_CALLS = [
    ("scalar_q", lambda L, x: L.quantile(x, 0.3)),
    ("vector_q_dim1", lambda L, x: L.quantile(x, _q(L, [0.1, 0.5, 0.9]), dim=1)),
    ("dim0_keepdim", lambda L, x: L.quantile(x, 0.75, dim=0, keepdim=True)),
    ("vector_q_keepdim_all", lambda L, x: L.quantile(x, _q(L, [0.2, 0.8]), keepdim=True)),
    ("neg_dim", lambda L, x: L.quantile(x, _q(L, [0.25]), dim=-1)),
] + [("interp_%s" % m, lambda L, x, m=m: L.quantile(x, _q(L, [0.0, 0.3, 0.5, 0.9, 1.0]),
                                                    dim=1, interpolation=m))
     for m in ("linear", "lower", "higher", "midpoint", "nearest")]


def _q(L, values):
    return L.tensor(values, dtype=L.float64)


@pytest.mark.parametrize("name, f", QUANTILE_CALLS, ids=[c[0] for c in QUANTILE_CALLS])
def test_quantile_matches_torch(name, f):
    _compare(f, [A34])
    _compare(lambda L, x: f(L, x.transpose(0, 1).transpose(0, 1)), [A34])  # non-contiguous


@pytest.mark.parametrize("interpolation", ["linear", "lower", "higher", "midpoint", "nearest"])
def test_nanquantile_and_quantile_with_nan_match_torch(interpolation):
    a = A34.copy()
    a[0, 1] = np.nan
    for name in ("quantile", "nanquantile"):
        f = (lambda L, x, n=name: getattr(L, n)(x, _q(L, [0.1, 0.5, 1.0]), dim=1,
                                                interpolation=interpolation))
        _compare(f, [a], check_fd=False, second=False)
        # an all-nan row: nan (which nan element the gradient goes to follows each
        # library's sort, so only values are compared)
        a2 = a.copy()
        a2[2, :] = np.nan
        ours = f(pyad, pyad.tensor(a2))
        np.testing.assert_allclose(ours.data, f(torch, torch.from_numpy(a2)).numpy(),
                                   rtol=1e-12, equal_nan=True)


def test_quantile_0d_and_errors_match_torch():
    _compare(lambda L, x: L.quantile(x, 0.5), [np.array(1.5)], check_fd=False)
    _compare(lambda L, x: L.quantile(x, 0.5, dim=0, keepdim=True), [np.array(1.5)],
             check_fd=False)
    for bad in (lambda L: L.quantile(L.tensor([1.0]), 1.5),
                lambda L: L.quantile(L.zeros(0), 0.5),
                lambda L: L.quantile(L.tensor([1, 2]), 0.5),
                lambda L: L.quantile(L.ones(3), 0.5, dim=2)):
        with pytest.raises((RuntimeError, IndexError)):
            bad(torch)
        with pytest.raises((RuntimeError, IndexError)) as info:
            bad(pyad)
        assert "quantile(" in str(info.value)


@pytest.mark.parametrize("name, f, arrays", [
    ("cov", lambda L, x: L.cov(x), [A34]),
    ("cov_1d", lambda L, x: L.cov(x), [A5]),
    ("cov_correction0", lambda L, x: L.cov(x, correction=0), [A34]),
    ("cov_aweights", lambda L, x: L.cov(x, aweights=L.tensor([0.5, 1.0, 2.0, 1.5],
                                                             dtype=L.float64)), [A34]),
    ("cov_fweights", lambda L, x: L.cov(x, fweights=L.tensor([1, 2, 1, 3])), [A34]),
    ("corrcoef", lambda L, x: L.corrcoef(x), [A34]),
    ("corrcoef_1d", lambda L, x: L.corrcoef(x), [A5]),
    ("msort", lambda L, x: L.msort(x), [A34]),
    ("renorm", lambda L, x: L.renorm(x, 2, 0, 1.2), [A34]),
    ("renorm_p1_dim1", lambda L, x: L.renorm(x, 1, 1, 1.5), [A34]),
    ("trapezoid", lambda L, y: L.trapezoid(y), [A34]),
    ("trapezoid_dx_dim0", lambda L, y: L.trapezoid(y, dx=0.5, dim=0), [A34]),
    ("trapezoid_x", lambda L, y, x: L.trapezoid(y, x), [A34, np.cumsum(np.abs(A5[:4]))]),
    ("trapz", lambda L, y: L.trapz(y, dim=0), [A34]),
    ("cumulative_trapezoid", lambda L, y: L.cumulative_trapezoid(y), [A34]),
    ("cumulative_trapezoid_dim0", lambda L, y: L.cumulative_trapezoid(y, dx=2.0, dim=0), [A34]),
    ("vander", lambda L, x: L.vander(x), [A5]),
    ("vander_N_increasing", lambda L, x: L.vander(x, N=3, increasing=True), [A5]),
    ("diagflat", lambda L, x: L.diagflat(x, 1), [A34]),
    ("block_diag", lambda L, a, b, c: L.block_diag(a, b, c), [A34, A5, np.array(0.7)]),
    ("cartesian_prod", lambda L, a, b: L.cartesian_prod(a, b), [A5, A5[:3]]),
    ("combinations", lambda L, a: L.combinations(a, 3), [A5]),
    ("combinations_replacement", lambda L, a: L.combinations(a, 2, with_replacement=True),
     [A5[:3]]),
    ("inner", lambda L, a, b: L.inner(a, b), [A34, A34[:2]]),
    ("inner_1d", lambda L, a, b: L.inner(a, b), [A5, A5[::-1].copy()]),
    ("inner_0d", lambda L, a, b: L.inner(a, b), [A34, np.array(1.5)]),
    ("ger", lambda L, a, b: L.ger(a, b), [A5, A5[:3]]),
    ("addr", lambda L, m, a, b: L.addr(m, a, b, beta=0.5, alpha=2.0), [A34[:, :3], A5[:3],
                                                                       A5[2:]]),
])
def test_composites_match_torch(name, f, arrays):
    if name.startswith("vander"):
        # torch's vander cannot be differentiated at all (its cumprod is in place and
        # trips its own version check): values against torch, gradients by gradcheck
        np.testing.assert_allclose(f(pyad, pyad.tensor(arrays[0])).data,
                                   f(torch, torch.from_numpy(arrays[0])).numpy(), rtol=1e-12)
        x = pyad.Variable(arrays[0].copy(), requires_grad=True)
        assert gradcheck(lambda v: f(pyad, v), (x,)) and gradgradcheck(lambda v: f(pyad, v), (x,))
        return
    _compare(f, arrays)


def test_addr_with_beta_zero_ignores_nan_in_input_like_torch():
    m = np.full((2, 2), np.nan)
    _compare(lambda L, m, a, b: L.addr(m, a, b, beta=0), [m, A5[:2], A5[3:]], check_fd=False)


def test_empty_and_integer_inputs_match_torch():
    for f in (lambda L: L.vander(L.tensor([1, 2, 3])), lambda L: L.vander(L.tensor([2]), N=0),
              lambda L: L.combinations(L.tensor([1, 2]), 3),
              lambda L: L.combinations(L.tensor([1, 2]), 0),
              lambda L: L.cartesian_prod(L.tensor([1, 2])),
              lambda L: L.diagflat(L.tensor([[1, 2]])),
              lambda L: L.ger(L.tensor([1]), L.tensor([2, 3])),
              lambda L: L.trapezoid(L.zeros(3, 0, dtype=L.float64)),
              lambda L: L.cumulative_trapezoid(L.zeros(3, 1, dtype=L.float64)),
              lambda L: L.block_diag(L.tensor([[1, 2]]), L.tensor([3.0], dtype=L.float64))):
        ours, theirs = f(pyad), f(torch)
        assert ours.shape == tuple(theirs.shape), f
        assert ours.dtype == theirs.numpy().dtype, f
        np.testing.assert_array_equal(ours.data, theirs.numpy())


def test_histc_and_bincount_match_torch():
    x = np.concatenate([RNG.uniform(-2, 2, 200), [-2.0, 2.0, 0.0, 5.0]])
    for kwargs in ({}, {"bins": 7, "min": -1, "max": 1}, {"bins": 3, "min": 0, "max": 0}):
        for dtype in (np.float64, np.float32):
            ours = pyad.histc(pyad.tensor(x.astype(dtype)), **kwargs)
            theirs = torch.histc(torch.from_numpy(x.astype(dtype)), **kwargs)
            assert ours.dtype == theirs.numpy().dtype
            np.testing.assert_array_equal(ours.data, theirs.numpy())
    i = np.array([0, 3, 3, 1, 7])
    w = np.linspace(0.5, 2.5, 5)
    for args, kwargs in ((), {}), ((), {"minlength": 10}), ((w,), {}), \
            ((w.astype(np.float32),), {}):
        ours = pyad.bincount(pyad.tensor(i), *[pyad.tensor(a) for a in args], **kwargs)
        theirs = torch.bincount(torch.from_numpy(i), *[torch.from_numpy(a) for a in args],
                                **kwargs)
        assert ours.dtype == theirs.numpy().dtype
        np.testing.assert_allclose(ours.data, theirs.numpy(), rtol=1e-6)
    with pytest.raises(RuntimeError, match="bincount"):
        pyad.bincount(pyad.tensor([-1, 2]))


@pytest.mark.parametrize("name", ["hann_window", "hamming_window", "blackman_window",
                                  "bartlett_window", "kaiser_window"])
@pytest.mark.parametrize("n", [0, 1, 2, 5, 8])
@pytest.mark.parametrize("periodic", [True, False])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_windows_match_torch(name, n, periodic, dtype):
    ours = getattr(pyad, name)(n, periodic, dtype=getattr(pyad, dtype))
    theirs = getattr(torch, name)(n, periodic, dtype=getattr(torch, dtype))
    assert ours.dtype == theirs.numpy().dtype and ours.shape == tuple(theirs.shape)
    np.testing.assert_allclose(ours.data, theirs.numpy(), rtol=1e-6 if dtype == "float32"
                               else 1e-12, atol=1e-7 if dtype == "float32" else 1e-14)


def test_logspace_matches_torch():
    for args, kwargs in (((0, 2, 5), {}), ((-1, 1, 4), {"base": 2.0}),
                         ((1, 3, 3), {"dtype": "float64"}), ((0, 1, 0), {}), ((2, 2, 1), {})):
        kw_p = {k: (getattr(pyad, v) if k == "dtype" else v) for k, v in kwargs.items()}
        kw_t = {k: (getattr(torch, v) if k == "dtype" else v) for k, v in kwargs.items()}
        ours, theirs = pyad.logspace(*args, **kw_p), torch.logspace(*args, **kw_t)
        assert ours.dtype == theirs.numpy().dtype
        np.testing.assert_allclose(ours.data, theirs.numpy(), rtol=1e-6)


@pytest.mark.parametrize("dim, keepdim", [(-1, False), (0, False), (1, True)])
def test_mode_values_indices_and_gradient_match_torch(dim, keepdim):
    a = np.array([[1.0, 2.0, 2.0, 1.0, 3.0], [5.0, 5.0, 4.0, 4.0, 4.0],
                  [3.0, 1.0, 1.0, 3.0, np.nan]])
    ours = pyad.mode(pyad.Variable(a.copy(), requires_grad=True), dim, keepdim)
    theirs = torch.mode(torch.from_numpy(a.copy()), dim, keepdim)
    assert ours._fields == ("values", "indices")
    np.testing.assert_array_equal(ours.indices.data, theirs.indices.numpy())
    np.testing.assert_array_equal(ours.values.data, theirs.values.numpy())
    _compare(lambda L, x: L.mode(x, dim, keepdim)[0], [a], check_fd=False)
    ints = np.array([[1, 1, 2], [3, 2, 2]])
    np.testing.assert_array_equal(pyad.mode(pyad.tensor(ints), 1).indices.data,
                                  torch.mode(torch.from_numpy(ints), 1).indices.numpy())
    with pytest.raises(IndexError, match="mode"):
        pyad.mode(pyad.zeros(0))


# -- the Tensor methods among them (added to Variable by pyad/_statistics.py) -------------

_M = np.random.default_rng(7).standard_normal((4, 5))
_V = np.random.default_rng(8).standard_normal(4)
_W = np.random.default_rng(9).standard_normal(5)
METHOD_CALLS = [
    ("quantile", lambda x: x.quantile(0.3, dim=1, keepdim=True), _M),
    ("nanquantile", lambda x: x.nanquantile(0.7), _M),
    ("cov", lambda x: x.cov(correction=0), _M),
    ("corrcoef", lambda x: x.corrcoef(), _M),
    ("renorm", lambda x: x.renorm(2, 0, 1.0), _M),
    ("diagflat", lambda x: x.diagflat(1), _V),
    ("inner", lambda x: x.inner(x * 2), _M),
    ("ger", lambda x: x.ger(x[:3] * 1), _V),
    ("addr", lambda x: x.addr(x[:, 0] * 1, x[0] * 1, beta=0.5, alpha=2), _M),
]


@pytest.mark.parametrize("name, call, data", METHOD_CALLS, ids=[c[0] for c in METHOD_CALLS])
def test_statistics_methods_match_torch(name, call, data):
    x = pyad.Variable(data.copy(), requires_grad=True)
    t = torch.tensor(data.copy(), requires_grad=True)
    ours, theirs = call(x), call(t)
    np.testing.assert_allclose(ours.data, theirs.detach().numpy(), rtol=1e-12, atol=1e-12)
    ours.sum().backward()
    theirs.sum().backward()
    np.testing.assert_allclose(x.grad.data, t.grad.numpy(), rtol=1e-10, atol=1e-12)


def test_statistics_methods_without_gradients_match_torch():
    ints = np.array([2, 0, 2, 5])
    np.testing.assert_array_equal(pyad.Variable(ints).bincount(minlength=7).data,
                                  torch.tensor(ints).bincount(minlength=7).numpy())
    np.testing.assert_array_equal(pyad.Variable(_M).histc(bins=6, min=-1, max=1).data,
                                  torch.tensor(_M).histc(bins=6, min=-1, max=1).numpy())
    a = np.array([[1.0, 2.0, 2.0], [3.0, 3.0, 1.0]])
    ours, theirs = pyad.Variable(a).mode(1), torch.tensor(a).mode(1)
    np.testing.assert_array_equal(ours.values.data, theirs.values.numpy())
    np.testing.assert_array_equal(ours.indices.data, theirs.indices.numpy())


def test_statistics_methods_are_the_functions():
    for name in ("quantile", "nanquantile", "cov", "corrcoef", "histc", "bincount", "mode",
                 "renorm", "diagflat", "inner", "ger", "addr"):
        assert vars(pyad.Variable)[name] is getattr(pyad, name)
    with pytest.raises(ValueError, match="already has"):
        pyad._engine._add_variable_methods({"sum": pyad.sum})
