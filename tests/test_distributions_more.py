"""The families of pyad.distributions beyond Normal/Uniform/Bernoulli/Categorical, against
torch.distributions on the same parameters: densities, entropies, moments, CDFs and
quantiles, their gradients (against torch, and gradcheck/gradgradcheck in float64),
shapes and dtypes of samples, sample statistics (the generators differ: draws are
compared by their moments), the implicit reparameterisation gradients of the gamma and
Dirichlet samplers, validation errors, expand, enumerate_support, constraints and
KL divergences."""
import math
import re

import numpy as np
import pytest

import pyad
import pyad.distributions as D
from pyad.autograd import gradcheck, gradgradcheck
from pyad.distributions import constraints as C
from pyad.distributions.gamma import _dirichlet_grad, _standard_gamma_grad

torch = pytest.importorskip("torch")
TD = torch.distributions
TC = torch.distributions.constraints

DTYPES = {"float32": (np.float32, torch.float32), "float64": (np.float64, torch.float64)}


def _p(a, dtype="float64", grad=False):
    return pyad.tensor(np.asarray(a, dtype=DTYPES[dtype][0]), requires_grad=grad)


def _t(a, dtype="float64", grad=False):
    return torch.tensor(np.asarray(a, dtype=DTYPES[dtype][0]), requires_grad=grad)


def _close(ours, theirs, dtype="float64", rtol=None, atol=None):
    theirs = theirs.detach() if isinstance(theirs, torch.Tensor) else torch.as_tensor(theirs)
    assert tuple(ours.shape) == tuple(theirs.shape)
    assert np.dtype(ours.dtype) == np.dtype(str(theirs.dtype).replace("torch.", ""))
    if rtol is None:
        rtol = 1e-12 if dtype == "float64" else 2e-6
    if atol is None:
        atol = 1e-13 if dtype == "float64" else 1e-6
    np.testing.assert_allclose(np.asarray(ours.data), theirs.numpy(), rtol=rtol, atol=atol)


PSD = [[[2.0, 0.5], [0.5, 1.0]], [[1.0, -0.3], [-0.3, 3.0]]]
TRIL = [[[1.5, 0.0], [0.4, 0.7]], [[0.9, 0.0], [-1.2, 2.0]]]

# name: (class, parameters (first ones differentiable), values to score, kwargs)
SPECS = {
    "exponential": ("Exponential", dict(rate=[0.5, 2.0, 3.0]), [0.3, 1.5, 0.0]),
    "laplace": ("Laplace", dict(loc=[0.0, 1.0, -2.0], scale=[1.0, 2.0, 0.5]),
                [0.3, -1.0, 4.0]),
    "lognormal": ("LogNormal", dict(loc=[0.0, 1.0, -0.5], scale=[1.0, 0.5, 2.0]),
                  [0.3, 2.0, 4.0]),
    "halfnormal": ("HalfNormal", dict(scale=[1.0, 2.0, 0.5]), [0.3, 1.0, 2.5]),
    "cauchy": ("Cauchy", dict(loc=[0.0, 1.0, -2.0], scale=[1.0, 2.0, 0.5]), [0.3, -1.0, 4.0]),
    "gumbel": ("Gumbel", dict(loc=[0.0, 1.0, -2.0], scale=[1.0, 2.0, 0.5]), [0.3, -1.0, 4.0]),
    "geometric_probs": ("Geometric", dict(probs=[0.2, 0.5, 0.9]), [0.0, 3.0, 1.0]),
    "geometric_logits": ("Geometric", dict(logits=[-1.0, 0.5, 2.0]), [2.0, 0.0, 5.0]),
    "poisson": ("Poisson", dict(rate=[0.5, 2.0, 7.0]), [0.0, 3.0, 6.0]),
    "binomial_probs": ("Binomial", dict(probs=[0.2, 0.6, 0.9], total_count=5.0),
                       [0.0, 3.0, 5.0]),
    "binomial_logits": ("Binomial", dict(logits=[-1.0, 0.5, 2.0], total_count=4.0),
                        [1.0, 2.0, 4.0]),
    "onehot_probs": ("OneHotCategorical", dict(probs=[[0.1, 0.2, 0.7], [0.5, 0.25, 0.25]]),
                     [[0.0, 0.0, 1.0], [1.0, 0.0, 0.0]]),
    "onehot_logits": ("OneHotCategorical", dict(logits=[[1.0, -2.0, 0.5]]),
                      [[0.0, 1.0, 0.0], [1.0, 0.0, 0.0]]),
    "gamma": ("Gamma", dict(concentration=[0.5, 2.0, 9.0], rate=[1.0, 0.5, 3.0]),
              [0.3, 2.0, 4.0]),
    "chi2": ("Chi2", dict(df=[1.0, 3.0, 10.0]), [0.3, 2.0, 9.0]),
    "beta": ("Beta", dict(concentration1=[0.5, 2.0, 5.0], concentration0=[1.5, 2.0, 0.7]),
             [0.3, 0.5, 0.9]),
    "dirichlet": ("Dirichlet", dict(concentration=[[0.5, 2.0, 1.0], [3.0, 1.5, 4.0]]),
                  [[0.2, 0.3, 0.5], [0.6, 0.1, 0.3]]),
    "studentt": ("StudentT", dict(df=[0.8, 1.5, 5.0], loc=[0.0, 1.0, -2.0],
                                  scale=[1.0, 2.0, 0.5]), [0.3, -1.0, 4.0]),
    "mvn_cov": ("MultivariateNormal", dict(loc=[[0.0, 1.0], [-1.0, 0.5]],
                                           covariance_matrix=PSD),
                [[0.3, -1.0], [1.0, 2.0]]),
    "mvn_prec": ("MultivariateNormal", dict(loc=[0.0, 1.0], precision_matrix=PSD),
                 [[0.3, -1.0], [1.0, 2.0]]),
    "mvn_tril": ("MultivariateNormal", dict(loc=[0.5, -1.0], scale_tril=TRIL),
                 [[0.3, -1.0], [1.0, 2.0]]),
}
NAMES = list(SPECS)
# integer-valued parameters: not differentiated
FIXED = {"total_count"}


def _make(name, dtype="float64", grad=False):
    """The same distribution in pyad and torch, the values to score in each, and the
    differentiable parameter leaves of each."""
    cls, params, values = SPECS[name]
    ours_params, theirs_params = {}, {}
    for k, v in params.items():
        g = grad and k not in FIXED
        ours_params[k] = _p(v, dtype, g) if k not in FIXED else v
        theirs_params[k] = _t(v, dtype, g) if k not in FIXED else v
    ours = getattr(D, cls)(**ours_params)
    theirs = getattr(TD, cls)(**theirs_params)
    leaves = [(ours_params[k], theirs_params[k]) for k in params if k not in FIXED]
    return ours, theirs, _p(values, dtype), _t(values, dtype), leaves


def _pyad_repr(text):
    # torch.Size([2, 3]) is pyad's (2, 3), dtype=torch.float64 its dtype=float64
    text = text.replace("dtype=torch.", "dtype=")
    return re.sub(r"torch\.Size\(\[([^]]*)\]\)",
                  lambda m: repr(tuple(int(i) for i in m.group(1).split(",") if i.strip())),
                  text)


def _torch_has(fn):
    try:
        return True, fn()
    except NotImplementedError:
        return False, None


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", NAMES)
def test_log_prob_entropy_moments_match_torch(name, dtype):
    ours, theirs, v, tv, _ = _make(name, dtype)
    assert ours.batch_shape == tuple(theirs.batch_shape)
    assert ours.event_shape == tuple(theirs.event_shape)
    assert ours.has_rsample == theirs.has_rsample
    assert ours.has_enumerate_support == theirs.has_enumerate_support
    assert repr(ours.support) == _pyad_repr(repr(theirs.support))
    assert set(ours.arg_constraints) == set(theirs.arg_constraints)
    assert repr(ours) == _pyad_repr(repr(theirs))
    _close(ours.log_prob(v), theirs.log_prob(tv), dtype)
    has, expected = _torch_has(theirs.entropy)
    if has:
        _close(ours.entropy(), expected, dtype)
        _close(ours.perplexity(), theirs.perplexity(), dtype)
    else:
        with pytest.raises(NotImplementedError):
            ours.entropy()
    for moment in ("mean", "mode", "variance", "stddev"):
        _close(getattr(ours, moment), getattr(theirs, moment), dtype)


def _unit(name):
    # probabilities for icdf inside the support's range
    return [0.1, 0.5, 0.95]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", NAMES)
def test_cdf_and_icdf_as_torch(name, dtype):
    ours, theirs, v, tv, _ = _make(name, dtype)
    has, expected = _torch_has(lambda: theirs.cdf(tv))
    if has:
        _close(ours.cdf(v), expected, dtype)
    else:
        with pytest.raises(NotImplementedError):
            ours.cdf(v)
    u = _unit(name)
    has, expected = _torch_has(lambda: theirs.icdf(_t(u, dtype)))
    if has:
        _close(ours.icdf(_p(u, dtype)), expected, dtype)
    else:
        with pytest.raises(NotImplementedError):
            ours.icdf(_p(u, dtype))


@pytest.mark.parametrize("name", NAMES)
def test_gradients_of_log_prob_entropy_cdf_match_torch(name):
    ours, theirs, v, tv, leaves = _make(name, grad=True)
    total, ttotal = ours.log_prob(v).sum(), theirs.log_prob(tv).sum()
    if _torch_has(theirs.entropy)[0]:
        total = total + ours.entropy().sum()
        ttotal = ttotal + theirs.entropy().sum()
    has, tcdf = _torch_has(lambda: theirs.cdf(tv))
    if has and SPECS[name][0] not in ("Gamma", "Chi2"):    # see the gammainc test
        total = total + ours.cdf(v).sum()
        ttotal = ttotal + tcdf.sum()
    grads = pyad.autograd.grad(total, [a for a, _ in leaves])
    tgrads = torch.autograd.grad(ttotal, [b for _, b in leaves])
    for g, tg in zip(grads, tgrads):
        np.testing.assert_allclose(g.data, tg.numpy(), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("name", NAMES)
def test_log_prob_and_entropy_pass_gradcheck_and_gradgradcheck(name):
    cls, params, values = SPECS[name]
    keys = [k for k in params if k not in FIXED]
    fixed = {k: v for k, v in params.items() if k in FIXED}
    v = _p(values)

    def fn(*args):
        # a covariance or precision matrix enters through its lower triangle only:
        # differentiate through a symmetric parameterisation
        args = [(a + a.transpose(-2, -1)) / 2 if k in ("covariance_matrix", "precision_matrix")
                else a for k, a in zip(keys, args)]
        d = getattr(D, cls)(**dict(zip(keys, args)), **fixed, validate_args=False)
        out = d.log_prob(v).sum()
        if cls != "Poisson":                    # torch's Poisson has no entropy
            out = out + d.entropy().sum()
        return out

    inputs = tuple(_p(params[k], grad=True) for k in keys)
    assert gradcheck(fn, inputs)
    assert gradgradcheck(fn, inputs)


@pytest.mark.parametrize("sample_shape", [(), (4,), (2, 3)])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", NAMES)
def test_sample_and_rsample_shapes_and_dtypes_match_torch(name, dtype, sample_shape):
    ours, theirs, _, _, _ = _make(name, dtype)
    s, ts = ours.sample(sample_shape), theirs.sample(sample_shape)
    assert s.shape == tuple(ts.shape)
    assert np.dtype(s.dtype) == np.dtype(str(ts.dtype).replace("torch.", ""))
    assert not s.requires_grad
    if theirs.has_rsample:
        r, tr = ours.rsample(sample_shape), theirs.rsample(sample_shape)
        assert r.shape == tuple(tr.shape) and r.dtype == s.dtype
    else:
        with pytest.raises(NotImplementedError):
            ours.rsample(sample_shape)


# Statistics of draws: the empirical mean of N draws lies within 5 standard errors
# (sqrt(var / N)) of the mean, and the empirical variance within 5 standard errors
# (sqrt((mu4 - var^2) / N), mu4 the fourth central moment, estimated from the draws) of
# the variance: a correct sampler fails either with probability below 1e-6. Families
# with infinite or undefined moments (Cauchy, StudentT with df <= 4) are tested on
# quantiles instead.
STAT_N = 20000
STAT_SPECS = {
    "exponential": ("Exponential", dict(rate=[0.5, 3.0])),
    "laplace": ("Laplace", dict(loc=[0.0, -2.0], scale=[1.0, 0.5])),
    "lognormal": ("LogNormal", dict(loc=[0.0, -0.5], scale=[0.5, 0.25])),
    "halfnormal": ("HalfNormal", dict(scale=[1.0, 0.5])),
    "gumbel": ("Gumbel", dict(loc=[0.0, -2.0], scale=[1.0, 0.5])),
    "geometric": ("Geometric", dict(probs=[0.2, 0.9])),
    "poisson": ("Poisson", dict(rate=[0.5, 7.0])),
    "binomial": ("Binomial", dict(total_count=[5.0, 12.0], probs=[0.2, 0.9])),
    "onehot": ("OneHotCategorical", dict(probs=[0.1, 0.2, 0.7])),
    "gamma": ("Gamma", dict(concentration=[0.3, 9.0], rate=[1.0, 3.0])),
    "chi2": ("Chi2", dict(df=[1.0, 10.0])),
    "beta": ("Beta", dict(concentration1=[0.5, 5.0], concentration0=[1.5, 0.7])),
    "dirichlet": ("Dirichlet", dict(concentration=[0.5, 2.0, 4.0])),
    "studentt": ("StudentT", dict(df=[9.0, 12.0], loc=[0.0, 1.0], scale=[1.0, 2.0])),
    "mvn": ("MultivariateNormal", dict(loc=[0.0, 1.0], covariance_matrix=PSD[0])),
}


def _check_moments(draws, mean, var):
    x = np.asarray(draws.data, dtype=np.float64)
    n = x.shape[0]
    m = x.mean(0)
    assert np.all(np.abs(m - mean) <= 5 * np.sqrt(var / n)), (m, mean)
    centred = x - m
    v = (centred ** 2).mean(0)
    mu4 = (centred ** 4).mean(0)
    assert np.all(np.abs(v - var) <= 5 * np.sqrt((mu4 - v ** 2) / n)), (v, var)


@pytest.mark.parametrize("method", ["sample", "rsample"])
@pytest.mark.parametrize("name", list(STAT_SPECS))
def test_draws_have_the_distributions_mean_and_variance(name, method):
    cls, params = STAT_SPECS[name]
    d = getattr(D, cls)(**{k: _p(v) for k, v in params.items()})
    if method == "rsample" and not d.has_rsample:
        pytest.skip("no rsample, as torch")
    pyad.manual_seed(1234)
    draws = getattr(d, method)((STAT_N,))
    assert tuple(draws.shape) == (STAT_N,) + d.batch_shape + d.event_shape
    tdist = getattr(TD, cls)(**{k: _t(v) for k, v in params.items()})
    _check_moments(draws, tdist.mean.numpy(), tdist.variance.numpy())


@pytest.mark.parametrize("method", ["sample", "rsample"])
@pytest.mark.parametrize("cls,params", [("Cauchy", dict(loc=[0.0, 2.0], scale=[1.0, 0.5])),
                                        ("StudentT", dict(df=[0.8, 2.5]))])
def test_heavy_tailed_draws_have_the_distributions_quartiles(cls, params, method):
    # The fraction of N draws below each quartile q is Binomial(N, p) / N: within
    # 5 sqrt(p (1 - p) / N) of p
    d = getattr(D, cls)(**{k: _p(v) for k, v in params.items()})
    pyad.manual_seed(99)
    draws = np.asarray(getattr(d, method)((STAT_N,)).data)
    tdist = getattr(TD, cls)(**{k: _t(v) for k, v in params.items()})
    for p in (0.25, 0.5, 0.75):
        if cls == "Cauchy":
            q = tdist.icdf(torch.tensor(p, dtype=torch.float64)).numpy()
        else:                              # StudentT: quartiles from many torch draws
            torch.manual_seed(0)
            q = np.quantile(tdist.sample((400000,)).numpy(), p, axis=0)
        frac = (draws <= q).mean(0)
        assert np.all(np.abs(frac - p) <= 5 * math.sqrt(p * (1 - p) / STAT_N)
                      + (5 * math.sqrt(p * (1 - p) / 400000) if cls == "StudentT" else 0))


def test_mixture_draws_have_the_mixture_mean_and_variance():
    mix = D.Categorical(probs=_p([0.3, 0.7]))
    comp = D.Normal(_p([-2.0, 1.0]), _p([0.5, 1.5]))
    d = D.MixtureSameFamily(mix, comp)
    pyad.manual_seed(5)
    draws = d.sample((STAT_N,))
    td = TD.MixtureSameFamily(TD.Categorical(probs=_t([0.3, 0.7])),
                              TD.Normal(_t([-2.0, 1.0]), _t([0.5, 1.5])))
    _check_moments(draws, td.mean.numpy(), td.variance.numpy())


# -- rsample gradients ----------------------------------------------------------------

def test_location_scale_rsample_gradients_are_torchs_formulas():
    # torch: x = loc + scale * eps, so dx/dloc = 1 and dx/dscale = (x - loc) / scale;
    # Exponential: x = e / rate, dx/drate = -x / rate
    pyad.manual_seed(0)
    for cls in ("Laplace", "Cauchy", "Gumbel"):
        loc, scale = _p([0.5, -1.0], grad=True), _p([2.0, 0.5], grad=True)
        x = getattr(D, cls)(loc, scale).rsample((7,))
        gl, gs = pyad.autograd.grad(x.sum(), [loc, scale])
        np.testing.assert_allclose(gl.data, [7.0, 7.0], rtol=1e-12)
        np.testing.assert_allclose(gs.data, ((x.data - loc.data) / scale.data).sum(0),
                                   rtol=1e-10)
    rate = _p([0.5, 3.0], grad=True)
    x = D.Exponential(rate).rsample((7,))
    (g,) = pyad.autograd.grad(x.sum(), [rate])
    np.testing.assert_allclose(g.data, (-x.data / rate.data).sum(0), rtol=1e-12)


def test_gamma_rsample_gradient_is_torchs_standard_gamma_grad_at_the_same_draws():
    conc, rate = _p([0.3, 1.0, 2.5, 9.0, 30.0], grad=True), _p([1.0, 2.0, 0.5, 3.0, 1.0],
                                                                 grad=True)
    pyad.manual_seed(3)
    x = D.Gamma(conc, rate).rsample((50,))
    gc, gr = pyad.autograd.grad(x.sum(), [conc, rate])
    std = torch.tensor(x.data * rate.data)           # the standard gamma draws
    tconc = torch.tensor(conc.data).expand_as(std)
    expected = (torch._standard_gamma_grad(tconc, std) / torch.tensor(rate.data)).sum(0)
    np.testing.assert_allclose(gc.data, expected.numpy(), rtol=1e-10)
    np.testing.assert_allclose(gr.data, (-x.data / rate.data).sum(0), rtol=1e-12)


def test_standard_gamma_grad_matches_torch_on_every_branch():
    # x < 0.8 (series), alpha > 8 near and far from the mean (saddle point), else the
    # rational approximation
    alpha = np.array([0.1, 0.5, 2.0, 5.0, 9.0, 9.0, 9.0, 20.0, 50.0, 3.0, 0.7, 100.0])
    x = np.array([0.05, 0.7, 0.3, 4.0, 8.5, 3.0, 15.0, 19.0, 60.0, 1.2, 2.5, 80.0])
    expected = torch._standard_gamma_grad(torch.tensor(alpha), torch.tensor(x)).numpy()
    np.testing.assert_allclose(_standard_gamma_grad(alpha, x), expected, rtol=1e-12)


def test_dirichlet_grad_matches_torch_on_every_branch():
    # near 0, near 1, both concentrations large (near and far from the mean), rational
    x = np.array([0.01, 0.3, 0.99, 0.9, 0.5, 0.3, 0.7, 0.4, 0.6, 0.2])
    alpha = np.array([0.5, 1.0, 2.0, 0.3, 10.0, 10.0, 8.0, 2.0, 3.0, 1.5])
    total = np.array([2.0, 3.0, 2.5, 1.0, 20.0, 25.0, 16.0, 5.0, 4.5, 9.0])
    expected = torch._dirichlet_grad(torch.tensor(x), torch.tensor(alpha),
                                     torch.tensor(total)).numpy()
    np.testing.assert_allclose(_dirichlet_grad(x, alpha, total), expected, rtol=1e-11)


def test_dirichlet_and_beta_rsample_gradients_follow_torchs_backward():
    conc = _p([[0.5, 2.0, 1.0], [3.0, 1.5, 4.0]], grad=True)
    pyad.manual_seed(4)
    x = D.Dirichlet(conc).rsample((6,))
    w = pyad.tensor(np.linspace(-1.0, 1.0, 6).reshape(1, 2, 3))
    (g,) = pyad.autograd.grad((x * w).sum(), [conc])
    tx = torch.tensor(x.data)
    tconc = torch.tensor(conc.data).expand_as(tx)
    tw = torch.tensor(w.data).expand_as(tx)
    total = tconc.sum(-1, True).expand_as(tconc)
    expected = torch._dirichlet_grad(tx, tconc, total) * (tw - (tx * tw).sum(-1, True))
    np.testing.assert_allclose(g.data, expected.sum(0).numpy(), rtol=1e-10)
    # Beta is the first coordinate of Dirichlet([a, b])
    a, b = _p([0.5, 4.0], grad=True), _p([2.0, 7.0], grad=True)
    pyad.manual_seed(5)
    y = D.Beta(a, b).rsample((5,))
    ga, gb = pyad.autograd.grad(y.sum(), [a, b])
    ty = torch.tensor(y.data)
    tx = torch.stack([ty, 1 - ty], -1)
    tconc = torch.stack([torch.tensor(a.data), torch.tensor(b.data)], -1).expand_as(tx)
    tw = torch.tensor([1.0, 0.0], dtype=torch.float64).expand_as(tx)
    expected = torch._dirichlet_grad(tx, tconc, tconc.sum(-1, True).expand_as(tconc)) * (
        tw - (tx * tw).sum(-1, True))
    np.testing.assert_allclose(ga.data, expected[..., 0].sum(0).numpy(), rtol=1e-10)
    np.testing.assert_allclose(gb.data, expected[..., 1].sum(0).numpy(), rtol=1e-10)


def test_gamma_and_dirichlet_rsample_are_once_differentiable_as_torch():
    conc = _p([2.0], grad=True)
    tconc = _t([2.0], grad=True)
    for ours, theirs in ((D.Gamma(conc, 1.0), TD.Gamma(tconc, 1.0)),
                         (D.Dirichlet(conc.expand(2)), TD.Dirichlet(tconc.expand(2)))):
        (g,) = pyad.autograd.grad(ours.rsample().sum(), [conc], create_graph=True)
        (tg,) = torch.autograd.grad(theirs.rsample().sum(), [tconc], create_graph=True)
        with pytest.raises(RuntimeError):
            torch.autograd.grad(tg.sum(), [tconc])
        with pytest.raises(RuntimeError):
            pyad.autograd.grad(g.sum(), [conc])


def test_studentt_and_mvn_rsample_are_differentiable():
    df, loc = _p([3.0, 5.0], grad=True), _p([0.0, 1.0], grad=True)
    pyad.manual_seed(6)
    x = D.StudentT(df, loc).rsample((4,))
    gdf, gloc = pyad.autograd.grad(x.sum(), [df, loc])
    np.testing.assert_allclose(gloc.data, [4.0, 4.0])
    assert np.all(np.isfinite(gdf.data))
    tril = _p(TRIL[0], grad=True)
    m = _p([0.5, -1.0], grad=True)
    pyad.manual_seed(7)
    y = D.MultivariateNormal(m, scale_tril=tril).rsample((3,))
    gm, gt = pyad.autograd.grad(y.sum(), [m, tril])
    np.testing.assert_allclose(gm.data, [3.0, 3.0])
    # y = loc + L eps (torch multiplies by the whole matrix): d sum(y) / dL[i, j] is the
    # sum over draws of eps[j]
    eps = np.linalg.solve(tril.data, (y.data - m.data).T).T
    np.testing.assert_allclose(gt.data, np.ones((2, 1)) * eps.sum(0), rtol=1e-10)


def test_gamma_cdf_is_differentiable_in_rate_and_value_but_not_concentration_as_torch():
    conc, rate, v = _p([0.5, 2.0, 9.0]), _p([1.0, 0.5, 3.0], grad=True), _p([0.3, 2.0, 4.0],
                                                                            grad=True)
    tconc, trate, tv = _t([0.5, 2.0, 9.0]), _t([1.0, 0.5, 3.0], grad=True), _t(
        [0.3, 2.0, 4.0], grad=True)
    c, tc = D.Gamma(conc, rate).cdf(v), TD.Gamma(tconc, trate).cdf(tv)
    _close(c, tc)
    grads = pyad.autograd.grad(c.sum(), [rate, v], create_graph=True)
    tgrads = torch.autograd.grad(tc.sum(), [trate, tv], create_graph=True)
    for g, tg in zip(grads, tgrads):
        _close(g, tg, rtol=1e-10)
    # second order in the value, as torch
    _close(pyad.autograd.grad(grads[1].sum(), [v])[0],
           torch.autograd.grad(tgrads[1].sum(), [tv])[0], rtol=1e-10)
    assert gradcheck(lambda r, x: D.Gamma(conc, r).cdf(x), (rate, v))
    assert gradgradcheck(lambda r, x: D.Gamma(conc, r).cdf(x), (rate, v))
    conc.requires_grad_(True)
    tconc.requires_grad_(True)
    with pytest.raises(RuntimeError):
        torch.autograd.grad(TD.Gamma(tconc, trate).cdf(tv).sum(), [tconc])
    with pytest.raises(RuntimeError, match="not implemented"):
        pyad.autograd.grad(D.Gamma(conc, rate).cdf(v).sum(), [conc])


@pytest.mark.parametrize("a", [0.01, 0.5, 1.0, 3.0, 30.0, 400.0])
def test_gamma_cdf_matches_torch_across_the_series_and_fraction_regions(a):
    x = np.array([0.0, 1e-6, 0.1, 0.5 * a, a, a + 1, 1.5 * a + 2, 5 * a + 10, np.inf])
    ours = D.Gamma(_p(a), _p(1.0)).cdf(_p(x))
    theirs = torch.special.gammainc(torch.tensor(float(a), dtype=torch.float64),
                                    torch.tensor(x)).numpy()
    if a < 20:
        np.testing.assert_allclose(ours.data, theirs, rtol=1e-12, atol=1e-15)
    else:
        # torch switches to Temme's asymptotic series near x = a for large a, which is
        # off by up to 1e-9 there; pyad sums the series / continued fraction: check both
        # against 40-digit values, pyad at full precision
        mpmath = pytest.importorskip("mpmath")
        with mpmath.workdps(40):
            exact = np.array([float(mpmath.gammainc(a, 0, xi, regularized=True))
                              for xi in x])
        np.testing.assert_allclose(ours.data, exact, rtol=1e-12, atol=1e-15)
        assert np.all(np.abs(ours.data - exact) <= np.abs(theirs - exact) + 1e-15)
