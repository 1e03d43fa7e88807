"""F.prelu / nn.PReLU and nn.init's trunc_normal_, orthogonal_, eye_, dirac_ against torch."""
import math

import numpy as np
import pytest

import pyad
import pyad.nn as nn
import pyad.nn.functional as F
from pyad.autograd import gradcheck, gradgradcheck

torch = pytest.importorskip("torch")


def _rand(*shape, seed=0):
    return np.random.default_rng(seed).normal(size=shape)


# -- prelu ---------------------------------------------------------------------------------

PRELU_SHAPES = [((2, 3, 4), (3,)), ((2, 3, 4), (1,)), ((2, 3, 4), ()), ((5,), (1,)),
                ((4, 3), (3,)), ((2, 3, 2, 2), (3,)), ((), (1,)), ((), ()), ((0, 3), (3,)),
                ((2, 0, 4), ())]


@pytest.mark.parametrize("xshape, wshape", PRELU_SHAPES)
def test_prelu_values_and_gradients_match_torch(xshape, wshape):
    x, w = _rand(*xshape), _rand(*wshape, seed=1)
    if x.size:
        x.flat[0] = 0.0                       # the kink: torch gives the slope's gradient
    xp, wp = pyad.tensor(x, requires_grad=True), pyad.tensor(w, requires_grad=True)
    xt, wt = torch.tensor(x, requires_grad=True), torch.tensor(w, requires_grad=True)
    out_p, out_t = F.prelu(xp, wp), torch.nn.functional.prelu(xt, wt)
    assert out_p.shape == tuple(out_t.shape) and out_p.dtype == np.float64
    np.testing.assert_array_equal(out_p.data, out_t.detach().numpy())
    g = _rand(*out_t.shape, seed=2)
    out_p.backward(pyad.tensor(g))
    out_t.backward(torch.tensor(g))
    np.testing.assert_allclose(xp.grad.data, xt.grad.numpy(), rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(wp.grad.data, wt.grad.numpy(), rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("xshape, wshape", [((2, 3, 4), (3,)), ((4, 3), (1,)), ((5,), ())])
def test_prelu_passes_gradcheck_and_gradgradcheck(xshape, wshape):
    x = pyad.tensor(_rand(*xshape) + 0.05, requires_grad=True)   # away from the kink
    w = pyad.tensor(_rand(*wshape, seed=1), requires_grad=True)
    assert gradcheck(F.prelu, (x, w))
    assert gradgradcheck(F.prelu, (x, w))


def test_prelu_second_derivative_matches_torch():
    x, w = _rand(2, 3), _rand(3, seed=1)
    xp, wp = pyad.tensor(x, requires_grad=True), pyad.tensor(w, requires_grad=True)
    xt, wt = torch.tensor(x, requires_grad=True), torch.tensor(w, requires_grad=True)
    gp, = pyad.autograd.grad((F.prelu(xp, wp) ** 2).sum(), wp, create_graph=True)
    gt, = torch.autograd.grad((torch.nn.functional.prelu(xt, wt) ** 2).sum(), wt,
                              create_graph=True)
    hp = pyad.autograd.grad(gp.sum(), (xp, wp))
    ht = torch.autograd.grad(gt.sum(), (xt, wt))
    for a, b in zip(hp, ht):
        np.testing.assert_allclose(a.data, b.numpy(), rtol=1e-12, atol=1e-15)


def test_prelu_nan_and_inf_follow_torch():
    x = np.array([np.nan, np.inf, -np.inf, -1.0, 0.0])
    w = np.array([0.5])
    xp, xt = pyad.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    out_p, out_t = F.prelu(xp, pyad.tensor(w)), torch.nn.functional.prelu(xt, torch.tensor(w))
    np.testing.assert_array_equal(out_p.data, out_t.detach().numpy())
    out_p.sum().backward()
    out_t.sum().backward()
    np.testing.assert_array_equal(xp.grad.data, xt.grad.numpy())


def test_prelu_float32_keeps_its_dtype():
    x = pyad.tensor(_rand(2, 3).astype(np.float32))
    assert F.prelu(x, pyad.tensor(np.float32([0.2, 0.3, 0.4]))).dtype == np.float32


@pytest.mark.parametrize("xshape, wshape, match", [
    ((2, 3, 4), (4,), "Found parameter numbers = 4 and channel size = 3"),
    ((5,), (5,), "Found parameter numbers = 5 and channel size = 1"),
    ((), (2,), "Not allow zero-dim input"),
    ((2, 3), (1, 3), "Expected `weight` to be a scalar or 1D Variable, but got: ndim = 2"),
    ((2, 3), (0,), "Found parameter numbers = 0 and channel size = 3"),
])
def test_prelu_bad_shapes_raise_as_torch(xshape, wshape, match):
    with pytest.raises(RuntimeError):
        torch.nn.functional.prelu(torch.zeros(xshape), torch.zeros(wshape))
    with pytest.raises(RuntimeError, match=r"prelu\(\): .*" + match.replace("`", ".")):
        F.prelu(pyad.zeros(xshape), pyad.zeros(wshape))


def test_prelu_refuses_mixed_dtypes_integers_and_a_non_variable_weight():
    with pytest.raises(RuntimeError, match=r"prelu\(\): Type promoting not supported"):
        F.prelu(pyad.zeros(2, 3), pyad.zeros(3, dtype=pyad.float64))
    with pytest.raises(RuntimeError, match=r"prelu\(\): expected a floating point input"):
        F.prelu(pyad.zeros(2, 3, dtype=pyad.int64), pyad.zeros(3))
    with pytest.raises(TypeError, match=r"prelu\(\): argument 'weight'"):
        F.prelu(pyad.zeros(2, 3), [0.25])


def test_prelu_module_matches_torch():
    mp, mt = nn.PReLU(3, init=0.1), torch.nn.PReLU(3, init=0.1)
    assert repr(mp) == repr(mt) and repr(nn.PReLU()) == repr(torch.nn.PReLU())
    assert mp.weight.dtype == np.float32 and mp.weight.requires_grad
    np.testing.assert_array_equal(mp.weight.data, mt.weight.detach().numpy())
    assert list(mp.state_dict()) == list(mt.state_dict()) == ["weight"]
    mp64 = nn.PReLU(dtype=pyad.float64)
    assert mp64.weight.dtype == np.float64 and float(mp64.weight) == 0.25
    x = _rand(2, 3, 4).astype(np.float32)
    xp, xt = pyad.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    out_p, out_t = mp(xp), mt(xt)
    np.testing.assert_allclose(out_p.data, out_t.detach().numpy(), rtol=1e-6)
    out_p.sum().backward()
    out_t.sum().backward()
    np.testing.assert_allclose(mp.weight.grad.data, mt.weight.grad.numpy(), rtol=1e-5)
    np.testing.assert_allclose(xp.grad.data, xt.grad.numpy(), rtol=1e-6)
    mp.weight.data[:] = 3.0
    mp.reset_parameters()
    np.testing.assert_array_equal(mp.weight.data, np.float32([0.1, 0.1, 0.1]))


# -- nn.init ------------------------------------------------------------------------------

def test_init_signatures_match_torch():
    import inspect
    for name in ("trunc_normal_", "orthogonal_", "eye_", "dirac_"):
        ours = inspect.signature(getattr(nn.init, name))
        theirs = inspect.signature(getattr(torch.nn.init, name))
        assert list(ours.parameters) == list(theirs.parameters), name
        assert [p.default for p in ours.parameters.values()] == \
            [p.default for p in theirs.parameters.values()], name


def test_erfinv_approximation_against_torch():
    # the engine's erfinv kernel (pyad/ops/special.pxi), which trunc_normal_ uses
    from pyad._engine import _erfinv_array
    tails = 1 - np.logspace(-16, -6, 500)           # 1 - 1e-16 rounds to 1 - 1.1e-16
    y = np.concatenate([np.linspace(-1 + 1e-12, 1 - 1e-12, 200001), tails, -tails])
    ours = _erfinv_array(y)
    theirs = torch.erfinv(torch.from_numpy(y)).numpy()
    assert np.all(np.abs(ours - theirs) <= 1e-13 * np.abs(theirs) + 1e-300)


@pytest.mark.parametrize("mean, std, a, b", [(0.0, 1.0, -2.0, 2.0), (0.5, 2.0, -1.0, 1.5),
                                             (0.0, 1.0, 3.0, 5.0), (-1.0, 0.1, -1.05, 0.0)])
def test_trunc_normal_stays_in_bounds_and_has_torchs_distribution(mean, std, a, b):
    pyad.manual_seed(0)
    torch.manual_seed(0)
    ours = nn.init.trunc_normal_(pyad.empty(400000, dtype=pyad.float64), mean, std, a, b)
    theirs = torch.nn.init.trunc_normal_(torch.empty(400000, dtype=torch.float64),
                                         mean, std, a, b).numpy()
    d = ours.data
    assert d.min() >= a and d.max() <= b
    # the same distribution: quantiles within sampling error of torch's (and of the
    # exact truncated normal's median)
    q = [0.05, 0.25, 0.5, 0.75, 0.95]
    np.testing.assert_allclose(np.quantile(d, q), np.quantile(theirs, q),
                               atol=0.01 * (b - a))
    cdf = lambda v: (1 + math.erf((v - mean) / std / math.sqrt(2))) / 2   # noqa: E731
    lo, hi = cdf(a), cdf(b)
    median = mean + std * math.sqrt(2) * float(torch.erfinv(torch.tensor(lo + hi - 1.0,
                                                                        dtype=torch.float64)))
    assert abs(np.median(d) - median) < 0.01 * (b - a)


def test_trunc_normal_fills_in_place_under_no_grad_and_bumps_the_version():
    w = nn.Parameter(pyad.zeros(50))
    v = w._version
    assert nn.init.trunc_normal_(w) is w
    assert w._version > v and w.requires_grad and w.is_leaf and w.grad_fn is None
    assert w.dtype == np.float32 and (w.data != 0).all()
    with pytest.warns(UserWarning, match="mean is more than 2 std"):
        torch.nn.init.trunc_normal_(torch.empty(3), mean=10.0)
    with pytest.warns(UserWarning, match="mean is more than 2 std"):
        nn.init.trunc_normal_(pyad.empty(3), mean=10.0)


@pytest.mark.parametrize("shape", [(3, 5), (5, 3), (4, 4), (4, 2, 3), (3, 2, 2, 2), (1, 7)])
def test_orthogonal_gives_orthonormal_rows_or_columns(shape):
    w = nn.init.orthogonal_(pyad.empty(*shape, dtype=pyad.float64), gain=1.5)
    m = w.data.reshape(shape[0], -1)
    r, c = m.shape
    gram = m @ m.T if r <= c else m.T @ m
    np.testing.assert_allclose(gram, 2.25 * np.eye(min(r, c)), atol=1e-12)
    # the same check on torch's, so the test is about the contract, not our output
    t = torch.nn.init.orthogonal_(torch.empty(*shape, dtype=torch.float64), gain=1.5)
    mt = t.numpy().reshape(r, c)
    np.testing.assert_allclose(mt @ mt.T if r <= c else mt.T @ mt, gram, atol=1e-12)


def test_orthogonal_is_uniform_over_signs():
    # Without the sign fix from R's diagonal, QR of a normal draw is biased: the diagonal
    # of R is positive, so Q's first column leans towards the draw's first column.
    g = pyad.Generator().manual_seed(1)
    firsts = np.array([nn.init.orthogonal_(pyad.empty(3, 3, dtype=pyad.float64),
                                           generator=g).data[0, 0] for _ in range(2000)])
    assert abs(firsts.mean()) < 0.05


def test_orthogonal_edge_cases_as_torch():
    with pytest.raises(ValueError, match="Only tensors with 2 or more dimensions"):
        torch.nn.init.orthogonal_(torch.empty(3))
    with pytest.raises(ValueError, match="Only tensors with 2 or more dimensions"):
        nn.init.orthogonal_(pyad.empty(3))
    e = pyad.empty(0, 3)
    assert nn.init.orthogonal_(e) is e and e.shape == (0, 3)


@pytest.mark.parametrize("shape", [(2, 3), (3, 2), (3, 3), (0, 2)])
def test_eye_matches_torch(shape):
    ours = nn.init.eye_(pyad.full(shape, 7.0))
    np.testing.assert_array_equal(ours.data, torch.nn.init.eye_(torch.full(shape, 7.0)).numpy())
    with pytest.raises(ValueError, match="Only tensors with 2 dimensions are supported"):
        nn.init.eye_(pyad.empty(2, 2, 2))


@pytest.mark.parametrize("shape, groups", [((4, 2, 3), 2), ((2, 2, 3), 1), ((3, 5, 3, 3), 1),
                                           ((6, 2, 3, 3), 3), ((4, 4, 3, 3, 3), 2),
                                           ((5, 2, 2, 4), 1)])
def test_dirac_matches_torch(shape, groups):
    ours = nn.init.dirac_(pyad.full(shape, 7.0), groups)
    theirs = torch.nn.init.dirac_(torch.full(shape, 7.0), groups)
    np.testing.assert_array_equal(ours.data, theirs.numpy())


def test_dirac_keeps_a_convolution_the_identity_and_refuses_bad_shapes():
    w = nn.init.dirac_(pyad.empty(3, 3, 3, 3, dtype=pyad.float64))
    x = pyad.tensor(_rand(1, 3, 5, 5))
    np.testing.assert_allclose(pyad.conv2d(x, w, padding=1).data, x.data, atol=1e-15)
    with pytest.raises(ValueError, match="Only tensors with 3, 4, or 5 dimensions"):
        nn.init.dirac_(pyad.empty(3, 3))
    with pytest.raises(ValueError, match="dim 0 must be divisible by groups"):
        nn.init.dirac_(pyad.empty(4, 3, 3), groups=3)


@pytest.mark.parametrize("name, args", [
    ("uniform_", (-0.08, 0.08)), ("normal_", (0.0, 0.01)), ("constant_", (0.5,)),
    ("zeros_", ()), ("ones_", ()), ("xavier_uniform_", ()), ("xavier_normal_", ()),
    ("kaiming_uniform_", ()), ("kaiming_normal_", ()), ("trunc_normal_", ()),
    ("orthogonal_", ()), ("eye_", ()), ("sparse_", (0.5,))])
def test_init_fills_a_parameters_data_array_in_place(name, args):
    # torch scripts write nn.init.xavier_uniform_(m.weight.data); pyad's .data is the
    # array, which the init fills in place (the Parameter sees it) and returns
    p = nn.Parameter(pyad.full((6, 4), 7.0))
    before = p._version
    out = getattr(nn.init, name)(p.data, *args)
    assert out is p.data
    assert not np.any(p.data == 7.0)
    assert p._version == before            # written through the array: no version bump
    pyad.manual_seed(0)
    expected = getattr(nn.init, name)(pyad.empty(6, 4), *args)
    pyad.manual_seed(0)
    getattr(nn.init, name)(p.data, *args)
    np.testing.assert_array_equal(p.data, expected.data)   # same draws as the Variable


def test_init_array_helpers_and_deprecated_names():
    w = np.zeros((5, 3, 2, 2), dtype=np.float32)
    assert nn.init._calculate_fan_in_and_fan_out(w) == (12, 20)
    nn.init.dirac_(w)
    assert w.dtype == np.float32 and w.sum() == 3
    b = np.ones(4)
    with pytest.warns(FutureWarning):
        assert nn.init.constant(b, 2.0) is b
    np.testing.assert_array_equal(b, 2.0)
    assert nn.init._no_grad_zero_(b) is b and not b.any()
    with pytest.raises(ValueError, match="fewer than 2 dimensions"):
        nn.init.xavier_uniform_(np.zeros(3))
