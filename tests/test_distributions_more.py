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

from _distribution_helpers import PSD, TRIL, _close, _p, _t  # noqa: E402


# name: (class, parameters (first ones differentiable), values to score, kwargs)
SPECS = {
    # the families pyad had before, through the same checks (icdf, expand, enumerate)
    "normal": ("Normal", dict(loc=[0.0, 1.0, -2.0], scale=[1.0, 2.0, 0.5]), [0.3, -1.0, 4.0]),
    "uniform": ("Uniform", dict(low=[0.0, 1.0, -2.0], high=[1.0, 2.5, 3.0]), [0.3, 2.0, 0.0]),
    "bernoulli_logits": ("Bernoulli", dict(logits=[-1.0, 0.5, 2.0]), [1.0, 0.0, 1.0]),
    "categorical_probs": ("Categorical", dict(probs=[[0.1, 0.2, 0.7], [0.5, 0.25, 0.25]]),
                          [2.0, 0.0]),
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
    "relaxed_bernoulli": ("RelaxedBernoulli", dict(temperature=0.7, probs=[0.2, 0.5, 0.9]),
                          [0.1, 0.5, 0.95]),
    "relaxed_bernoulli_logits": ("RelaxedBernoulli", dict(temperature=[2.0, 0.3, 1.0],
                                                          logits=[-1.0, 0.5, 2.0]),
                                 [0.1, 0.5, 0.95]),
    "relaxed_onehot": ("RelaxedOneHotCategorical",
                       dict(temperature=0.5, probs=[[0.1, 0.2, 0.7], [0.5, 0.25, 0.25]]),
                       [[0.1, 0.3, 0.6], [0.8, 0.1, 0.1]]),
    "relaxed_onehot_logits": ("RelaxedOneHotCategorical",
                              dict(temperature=[1.5], logits=[[1.0, -2.0, 0.5]]),
                              [[0.1, 0.3, 0.6], [0.8, 0.1, 0.1]]),
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
        has, expected = _torch_has(lambda: getattr(theirs, moment))
        if has:
            _close(getattr(ours, moment), expected, dtype)
        else:
            with pytest.raises(NotImplementedError):
                getattr(ours, moment)


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
        if cls != "Poisson" and "Relaxed" not in cls:    # no entropy in torch
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


@pytest.mark.parametrize("method", ["sample", "rsample"])
def test_relaxed_draws_round_to_the_discrete_distribution(method):
    # logit(X) > 0 exactly when the logistic noise exceeds -logits: P(X > 1/2) = probs;
    # the argmax of a Gumbel-softmax draw is Categorical(probs) (the Gumbel-max trick).
    # Frequencies of N draws lie within 5 sqrt(p (1 - p) / N) of p.
    probs = np.array([0.1, 0.6, 0.95])
    pyad.manual_seed(11)
    x = getattr(D.RelaxedBernoulli(_p(0.3), probs=_p(probs)), method)((STAT_N,))
    freq = (np.asarray(x.data) > 0.5).mean(0)
    assert np.all(np.abs(freq - probs) <= 5 * np.sqrt(probs * (1 - probs) / STAT_N))
    probs = np.array([0.2, 0.3, 0.5])
    y = getattr(D.RelaxedOneHotCategorical(_p(2.0), probs=_p(probs)), method)((STAT_N,))
    np.testing.assert_allclose(np.asarray(y.data).sum(-1), 1.0, rtol=1e-12)
    freq = np.bincount(np.asarray(y.data).argmax(-1), minlength=3) / STAT_N
    assert np.all(np.abs(freq - probs) <= 5 * np.sqrt(probs * (1 - probs) / STAT_N))


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


# -- validation -----------------------------------------------------------------------

BAD_PARAMS = [
    ("Exponential", dict(rate=[1.0, -1.0])),
    ("Exponential", dict(rate=[0.0])),
    ("Laplace", dict(loc=[0.0], scale=[0.0])),
    ("Laplace", dict(loc=[float("nan")], scale=[1.0])),
    ("LogNormal", dict(loc=[0.0], scale=[-1.0])),
    ("HalfNormal", dict(scale=[-2.0])),
    ("Cauchy", dict(loc=[0.0], scale=[-1.0])),
    ("Gumbel", dict(loc=[0.0], scale=[0.0])),
    ("Geometric", dict(probs=[1.5])),
    ("Geometric", dict(probs=[0.0])),
    ("Poisson", dict(rate=[-0.5])),
    ("Binomial", dict(total_count=[2.5], probs=[0.5])),
    ("Binomial", dict(total_count=[3.0], probs=[1.5])),
    ("OneHotCategorical", dict(probs=[[-0.1, 1.1]])),
    ("Gamma", dict(concentration=[0.0], rate=[1.0])),
    ("Gamma", dict(concentration=[1.0], rate=[-1.0])),
    ("Chi2", dict(df=[-1.0])),
    ("Beta", dict(concentration1=[0.0], concentration0=[1.0])),
    ("Dirichlet", dict(concentration=[[1.0, -1.0]])),
    ("StudentT", dict(df=[0.0])),
    ("MultivariateNormal", dict(loc=[0.0, 0.0], covariance_matrix=[[1.0, 2.0], [2.0, 1.0]])),
    ("MultivariateNormal", dict(loc=[0.0, 0.0], covariance_matrix=[[1.0, 0.5], [0.0, 1.0]])),
    ("MultivariateNormal", dict(loc=[0.0, 0.0], scale_tril=[[1.0, 0.0], [0.5, -1.0]])),
    ("MultivariateNormal", dict(loc=[0.0, 0.0], scale_tril=[[1.0, 0.3], [0.5, 1.0]])),
]


def _raises_like_torch(make_ours, make_theirs):
    with pytest.raises(Exception) as theirs:
        make_theirs()
    with pytest.raises(type(theirs.value)) as ours:
        make_ours()
    return str(ours.value), str(theirs.value)


@pytest.mark.parametrize("cls,params", BAD_PARAMS, ids=lambda x: str(x))
def test_invalid_parameters_raise_valueerror_as_torch(cls, params):
    ours, theirs = _raises_like_torch(
        lambda: getattr(D, cls)(**{k: _p(v) for k, v in params.items()}),
        lambda: getattr(TD, cls)(**{k: _t(v) for k, v in params.items()}))
    # the message names the parameter and the distribution, as torch's
    assert ours.split("(")[0] == theirs.split("(")[0]
    if "of distribution" in theirs:
        assert ours.split(" of distribution ")[1].split("(")[0] == theirs.split(
            " of distribution ")[1].split("(")[0]
    # validate_args=False skips the check where torch skips it (not for MultivariateNormal's
    # Cholesky, nor OneHotCategorical's and StudentT's inner distributions, validated
    # by default in torch)
    try:
        getattr(TD, cls)(**{k: _t(v) for k, v in params.items()}, validate_args=False)
    except Exception as theirs:
        # torch.linalg.LinAlgError is a RuntimeError; pyad's cholesky raises RuntimeError
        expected = RuntimeError if isinstance(theirs, torch.linalg.LinAlgError) else type(
            theirs)
        with pytest.raises(expected):
            getattr(D, cls)(**{k: _p(v) for k, v in params.items()}, validate_args=False)
    else:
        getattr(D, cls)(**{k: _p(v) for k, v in params.items()}, validate_args=False)


OUTSIDE = [
    ("Exponential", dict(rate=[1.0]), [-1.0]),
    ("HalfNormal", dict(scale=[1.0]), [-0.5]),
    ("LogNormal", dict(loc=[0.0], scale=[1.0]), [0.0]),
    ("Geometric", dict(probs=[0.5]), [1.5]),
    ("Poisson", dict(rate=[1.0]), [-1.0]),
    ("Binomial", dict(total_count=[3.0], probs=[0.5]), [4.0]),
    ("OneHotCategorical", dict(probs=[0.5, 0.5]), [1.0, 1.0]),
    ("Gamma", dict(concentration=[1.0], rate=[1.0]), [-1.0]),
    ("Beta", dict(concentration1=[1.0], concentration0=[1.0]), [1.5]),
    ("Dirichlet", dict(concentration=[1.0, 1.0]), [0.3, 0.3]),
    ("Laplace", dict(loc=[0.0], scale=[1.0]), [float("nan")]),
]


@pytest.mark.parametrize("cls,params,value", OUTSIDE, ids=lambda x: str(x))
def test_log_prob_outside_the_support_raises_valueerror_as_torch(cls, params, value):
    ours_d = getattr(D, cls)(**{k: _p(v) for k, v in params.items()})
    theirs_d = getattr(TD, cls)(**{k: _t(v) for k, v in params.items()})
    ours, theirs = _raises_like_torch(lambda: ours_d.log_prob(_p(value)),
                                      lambda: theirs_d.log_prob(_t(value)))
    assert ours.startswith("Expected value argument") and theirs.startswith(
        "Expected value argument")


def test_log_prob_value_shape_errors_as_torch():
    conc = [[1.0, 2.0, 3.0]] * 2
    ours_d, theirs_d = D.Dirichlet(_p(conc)), TD.Dirichlet(_t(conc))
    for bad in ([0.5, 0.5], [[0.2, 0.3, 0.5]] * 3):
        ours, theirs = _raises_like_torch(lambda: ours_d.log_prob(_p(bad)),
                                          lambda: theirs_d.log_prob(_t(bad)))
        assert ours.split(":")[0] == theirs.split(":")[0]
    # a Python number is not a value when validating, as torch
    _raises_like_torch(lambda: D.Exponential(_p(1.0)).log_prob(1.0),
                       lambda: TD.Exponential(_t(1.0)).log_prob(1.0))


@pytest.mark.parametrize("make", [
    lambda M: M.Geometric(), lambda M: M.Geometric(probs=0.5, logits=0.0),
    lambda M: M.Binomial(3), lambda M: M.Dirichlet(M_tensor(M, 1.0)),
    lambda M: M.MultivariateNormal(M_tensor(M, [0.0, 0.0])),
    lambda M: M.MultivariateNormal(M_tensor(M, 0.0), scale_tril=M_tensor(M, [[1.0]])),
    lambda M: M.MultivariateNormal(M_tensor(M, [0.0]), scale_tril=M_tensor(M, [1.0])),
    lambda M: M.Independent(M.Normal(M_tensor(M, [0.0]), M_tensor(M, [1.0])), 2),
    lambda M: M.MixtureSameFamily(M.Normal(0.0, 1.0), M.Normal(M_tensor(M, [0.0]),
                                                               M_tensor(M, [1.0]))),
    lambda M: M.MixtureSameFamily(M.Categorical(probs=M_tensor(M, [0.5, 0.5])),
                                  M.Normal(M_tensor(M, [0.0] * 3), M_tensor(M, [1.0] * 3))),
], ids=range(10))
def test_bad_constructor_arguments_raise_as_torch(make):
    _raises_like_torch(lambda: make(D), lambda: make(TD))


def M_tensor(M, value):
    return _p(value) if M is D else _t(value)


# -- expand, enumerate_support, constraints ---------------------------------------------

@pytest.mark.parametrize("name", NAMES)
def test_expand_matches_torch(name):
    ours, theirs, v, tv, _ = _make(name)
    shape = (4,) + ours.batch_shape
    e, te = ours.expand(shape), theirs.expand(shape)
    assert type(e) is type(ours) and e.batch_shape == tuple(te.batch_shape)
    assert e.event_shape == tuple(te.event_shape)
    _close(e.log_prob(v), te.log_prob(tv))
    if _torch_has(lambda: te.mean)[0]:
        _close(e.mean, te.mean)
    assert e.sample((2,)).shape == tuple(te.sample((2,)).shape)
    if ours.batch_shape[-1:] != (1,):
        _raises_like_torch(lambda: ours.expand((5, 7)), lambda: theirs.expand((5, 7)))


@pytest.mark.parametrize("name", ["bernoulli_logits", "categorical_probs", "geometric_probs",
                                  "poisson", "binomial_probs",
                                  "onehot_probs", "onehot_logits"])
@pytest.mark.parametrize("expand", [True, False])
def test_enumerate_support_matches_torch(name, expand):
    ours, theirs, _, _, _ = _make(name)
    has, expected = _torch_has(lambda: theirs.enumerate_support(expand))
    if has:
        _close(ours.enumerate_support(expand), expected)
        _close(ours.log_prob(ours.enumerate_support(expand)),
               theirs.log_prob(theirs.enumerate_support(expand)))
    else:
        with pytest.raises(NotImplementedError):
            ours.enumerate_support(expand)


def test_binomial_with_several_total_counts_has_no_entropy_as_torch():
    _raises_like_torch(lambda: D.Binomial(_p([2.0, 3.0]), _p([0.5, 0.5])).entropy(),
                       lambda: TD.Binomial(_t([2.0, 3.0]), _t([0.5, 0.5])).entropy())


CONSTRAINT_VALUES = [
    ("real", [0.0, float("inf"), float("nan")]), ("positive", [1.0, 0.0, -1.0]),
    ("nonnegative", [1.0, 0.0, -1.0]), ("unit_interval", [0.0, 1.0, 1.5]),
    ("boolean", [0.0, 1.0, 0.5]), ("nonnegative_integer", [0.0, 2.0, 1.5, -1.0]),
    ("positive_integer", [0.0, 2.0, 1.5]),
    ("simplex", [[0.5, 0.5], [0.7, 0.7], [-0.1, 1.1]]),
    ("one_hot", [[0.0, 1.0], [1.0, 1.0], [0.5, 0.5]]),
    ("real_vector", [[0.0, 1.0], [float("nan"), 1.0]]),
    ("lower_triangular", [[[1.0, 0.0], [2.0, 3.0]], [[1.0, 1.0], [0.0, 1.0]]]),
    ("lower_cholesky", [[[1.0, 0.0], [2.0, 3.0]], [[1.0, 0.0], [2.0, -3.0]]]),
    ("positive_definite", [[[2.0, 0.5], [0.5, 1.0]], [[1.0, 2.0], [2.0, 1.0]]]),
    ("positive_semidefinite", [[[1.0, 1.0], [1.0, 1.0]], [[1.0, 2.0], [2.0, 1.0]]]),
    ("symmetric", [[[1.0, 2.0], [2.0, 1.0]], [[1.0, 2.0], [0.0, 1.0]]]),
    ("square", [[[1.0, 2.0], [2.0, 1.0]]]),
    ("corr_cholesky", [[[1.0, 0.0], [0.6, 0.8]], [[1.0, 0.0], [0.6, 0.9]]]),
]


@pytest.mark.parametrize("name,values", CONSTRAINT_VALUES, ids=[c[0] for c in CONSTRAINT_VALUES])
def test_constraints_check_and_repr_as_torch(name, values):
    ours, theirs = getattr(C, name), getattr(TC, name)
    assert repr(ours) == repr(theirs)
    assert ours.event_dim == theirs.event_dim and ours.is_discrete == theirs.is_discrete
    got = ours.check(_p(values))
    expected = theirs.check(_t(values))
    assert got.tolist() == expected.tolist()


@pytest.mark.parametrize("make", [
    lambda M: M.interval(0.0, 2.0), lambda M: M.half_open_interval(0.0, 2.0),
    lambda M: M.greater_than(1.0), lambda M: M.greater_than_eq(1.0),
    lambda M: M.less_than(1.0), lambda M: M.integer_interval(0, 2),
    lambda M: M.independent(M.positive, 1), lambda M: M.multinomial(3),
], ids=range(8))
def test_parametrised_constraints_as_torch(make):
    ours, theirs = make(C), make(TC)
    assert repr(ours) == repr(theirs)
    values = [[-1.0, 0.0, 0.5], [1.0, 2.0, 3.0]]
    assert ours.check(_p(values)).tolist() == theirs.check(_t(values)).tolist()
    assert ours.event_dim == theirs.event_dim


def test_dependent_constraints_as_torch():
    assert C.is_dependent(C.dependent) and not C.is_dependent(C.real)
    assert C.is_dependent(D.Uniform.support) and C.is_dependent(D.Binomial.support)
    with pytest.raises(ValueError):
        C.dependent.check(_p(1.0))
    assert C.dependent(is_discrete=True, event_dim=1).event_dim == 1
    with pytest.raises(NotImplementedError):
        C.dependent.event_dim
    assert repr(D.Uniform(0.0, 2.0).support) == repr(TD.Uniform(0.0, 2.0).support)


# -- shapes: broadcast, 0-d, empty, non-contiguous --------------------------------------

def test_broadcast_scalar_and_noncontiguous_parameters_match_torch():
    base = np.arange(1.0, 13.0).reshape(3, 4) / 4
    loc = _p(base).t()                                     # (4, 3), non-contiguous
    tloc = _t(base).t()
    for cls in ("Laplace", "Cauchy", "Gumbel", "StudentT"):
        d = getattr(D, cls)(loc, 2.0) if cls != "StudentT" else D.StudentT(3.0, loc, 2.0)
        td = getattr(TD, cls)(tloc, 2.0) if cls != "StudentT" else TD.StudentT(3.0, tloc, 2.0)
        assert d.batch_shape == (4, 3)
        _close(d.log_prob(_p([0.5, 1.0, 2.0])), td.log_prob(_t([0.5, 1.0, 2.0])))
    g, tg = D.Gamma(loc, _p([1.0, 2.0, 3.0])), TD.Gamma(tloc, _t([1.0, 2.0, 3.0]))
    _close(g.log_prob(_p(1.5)), tg.log_prob(_t(1.5)))
    _close(g.entropy(), tg.entropy())
    # parameters as Python numbers: 0-d, default dtype (float32)
    for cls, args in (("Exponential", (2.0,)), ("Gamma", (2.0, 3.0)), ("Beta", (2.0, 3.0)),
                      ("Poisson", (2.0,)), ("Chi2", (3.0,)), ("StudentT", (3.0,))):
        d, td = getattr(D, cls)(*args), getattr(TD, cls)(*args)
        assert d.batch_shape == tuple(td.batch_shape)
        _close(d.mean, td.mean, "float32")
        _close(d.entropy(), td.entropy(), "float32") if cls != "Poisson" else None


def test_empty_batches_match_torch():
    # torch's independent constraint cannot check an empty batch (reshape to (0, -1))
    _raises_like_torch(lambda: D.Dirichlet(_p(np.ones((0, 3)))),
                       lambda: TD.Dirichlet(_t(np.ones((0, 3)))))
    for cls, params in (("Exponential", dict(rate=np.ones(0))),
                        ("Gamma", dict(concentration=np.ones(0), rate=np.ones(0))),
                        ("Dirichlet", dict(concentration=np.ones((0, 3)))),
                        ("MultivariateNormal", dict(loc=np.zeros((0, 2)),
                                                    scale_tril=np.eye(2)))):
        d = getattr(D, cls)(**{k: _p(v) for k, v in params.items()}, validate_args=False)
        td = getattr(TD, cls)(**{k: _t(v) for k, v in params.items()}, validate_args=False)
        assert d.batch_shape == tuple(td.batch_shape)
        assert d.sample((2,)).shape == tuple(td.sample((2,)).shape)
        _close(d.entropy(), td.entropy())


def test_mvn_batched_loc_and_matrix_broadcast_as_torch():
    loc = np.arange(12.0).reshape(3, 2, 2) / 7           # batch (3, 2)
    tril = np.array(TRIL)                                # batch (2,)
    value = np.linspace(-1.0, 1.0, 8).reshape(4, 1, 1, 2)
    for kw in ("scale_tril", "covariance_matrix", "precision_matrix"):
        m = tril if kw == "scale_tril" else tril @ np.swapaxes(tril, -1, -2)
        d = D.MultivariateNormal(_p(loc), **{kw: _p(m)})
        td = TD.MultivariateNormal(_t(loc), **{kw: _t(m)})
        assert d.batch_shape == tuple(td.batch_shape) == (3, 2)
        _close(d.log_prob(_p(value)), td.log_prob(_t(value)), rtol=1e-10)
        for attr in ("scale_tril", "covariance_matrix", "precision_matrix", "variance"):
            _close(getattr(d, attr), getattr(td, attr), rtol=1e-10, atol=1e-12)
        _close(d.entropy(), td.entropy(), rtol=1e-12)


# -- Independent and MixtureSameFamily --------------------------------------------------

def test_independent_matches_torch():
    loc, scale = _p(np.zeros((2, 3)), grad=True), _p(np.ones((2, 3)) * 2, grad=True)
    tloc, tscale = _t(np.zeros((2, 3)), grad=True), _t(np.ones((2, 3)) * 2, grad=True)
    d = D.Independent(D.Normal(loc, scale), 1)
    td = TD.Independent(TD.Normal(tloc, tscale), 1)
    assert (d.batch_shape, d.event_shape) == (tuple(td.batch_shape), tuple(td.event_shape))
    assert repr(d.support) == repr(td.support)
    assert d.has_rsample and not d.has_enumerate_support
    v = np.linspace(-1, 1, 6).reshape(2, 3)
    lp, tlp = d.log_prob(_p(v)), td.log_prob(_t(v))
    _close(lp, tlp)
    _close(d.entropy(), td.entropy())
    g = pyad.autograd.grad(lp.sum(), [loc, scale])
    tg = torch.autograd.grad(tlp.sum(), [tloc, tscale])
    for a, b in zip(g, tg):
        _close(a, b)
    e, te = d.expand((4, 2)), td.expand((4, 2))
    assert e.batch_shape == tuple(te.batch_shape) and e.base_dist.batch_shape == (4, 2, 3)
    assert d.rsample((5,)).shape == (5, 2, 3)
    _close(D.kl_divergence(d, D.Independent(D.Normal(loc + 1, scale), 1)),
           TD.kl_divergence(td, TD.Independent(TD.Normal(tloc + 1, tscale), 1)))
    with pytest.raises(NotImplementedError):
        D.Independent(D.Bernoulli(_p([[0.5]])), 1).enumerate_support()


@pytest.mark.parametrize("event", [False, True])
def test_mixture_same_family_matches_torch(event):
    logits = _p([[0.1, -0.5, 1.0], [0.0, 0.0, 2.0]], grad=True)
    tlogits = _t([[0.1, -0.5, 1.0], [0.0, 0.0, 2.0]], grad=True)
    loc = np.linspace(-2, 2, 6).reshape(2, 3)
    if event:
        loc = np.stack([loc, -loc], -1)
    scale = np.abs(loc) + 0.5
    ploc, tloc = _p(loc, grad=True), _t(loc, grad=True)
    comp = D.Normal(ploc, _p(scale))
    tcomp = TD.Normal(tloc, _t(scale))
    if event:
        comp, tcomp = D.Independent(comp, 1), TD.Independent(tcomp, 1)
    d = D.MixtureSameFamily(D.Categorical(logits=logits), comp)
    td = TD.MixtureSameFamily(TD.Categorical(logits=tlogits), tcomp)
    assert (d.batch_shape, d.event_shape) == (tuple(td.batch_shape), tuple(td.event_shape))
    v = np.linspace(-1, 1, 8).reshape((4, 2, 1) if not event else (2, 2, 2))[..., :1]
    v = np.broadcast_to(v, v.shape[:-1] + ((2,) if event else (1,)))
    if not event:
        v = v[..., 0]
    lp, tlp = d.log_prob(_p(v)), td.log_prob(_t(v))
    _close(lp, tlp)
    _close(d.mean, td.mean)
    _close(d.variance, td.variance)
    if not event:
        _close(d.cdf(_p(v)), td.cdf(_t(v)))
    g = pyad.autograd.grad(lp.sum(), [logits, ploc])
    tg = torch.autograd.grad(tlp.sum(), [tlogits, tloc])
    for a, b in zip(g, tg):
        _close(a, b)
    assert d.sample((5,)).shape == tuple(td.sample((5,)).shape)
    assert not d.has_rsample
    e, te = d.expand((3, 2)), td.expand((3, 2))
    assert e.batch_shape == tuple(te.batch_shape)
    _close(e.log_prob(_p(v[:1] if not event else v[:1])), te.log_prob(_t(v[:1])))
    assert gradcheck(lambda lg, lc: D.MixtureSameFamily(
        D.Categorical(logits=lg), D.Normal(lc, _p(np.abs(loc) + 0.5)) if not event else
        D.Independent(D.Normal(lc, _p(scale)), 1)).log_prob(_p(v)), (logits, ploc))


# -- KL divergence ----------------------------------------------------------------------

KL_DISTS = {
    "normal": ("Normal", dict(loc=[0.0, 1.0, -0.5], scale=[1.0, 0.5, 2.0]),
               dict(loc=[0.5, -1.0, 0.0], scale=[2.0, 1.0, 0.7])),
    "laplace": ("Laplace", dict(loc=[0.0, 1.0, -0.5], scale=[1.0, 0.5, 2.0]),
                dict(loc=[0.5, -1.0, 0.0], scale=[2.0, 1.0, 0.7])),
    "gumbel": ("Gumbel", dict(loc=[0.0, 1.0, -0.5], scale=[1.0, 0.5, 2.0]),
               dict(loc=[0.5, -1.0, 0.0], scale=[2.0, 1.0, 0.7])),
    "cauchy": ("Cauchy", dict(loc=[0.0, 1.0, -0.5], scale=[1.0, 0.5, 2.0]),
               dict(loc=[0.5, -1.0, 0.0], scale=[2.0, 1.0, 0.7])),
    "lognormal": ("LogNormal", dict(loc=[0.0, 1.0, -0.5], scale=[1.0, 0.5, 2.0]),
                  dict(loc=[0.5, -1.0, 0.0], scale=[2.0, 1.0, 0.7])),
    "halfnormal": ("HalfNormal", dict(scale=[1.0, 0.5, 2.0]), dict(scale=[2.0, 1.0, 0.7])),
    "exponential": ("Exponential", dict(rate=[1.0, 0.5, 2.0]), dict(rate=[2.0, 1.0, 0.7])),
    "gamma": ("Gamma", dict(concentration=[1.0, 0.5, 4.0], rate=[2.0, 1.0, 0.7]),
              dict(concentration=[2.0, 3.0, 0.8], rate=[0.5, 1.5, 1.0])),
    "chi2": ("Chi2", dict(df=[1.0, 3.0, 7.0]), dict(df=[2.0, 4.0, 1.5])),
    "beta": ("Beta", dict(concentration1=[1.0, 0.5, 4.0], concentration0=[2.0, 1.0, 0.7]),
             dict(concentration1=[2.0, 3.0, 0.8], concentration0=[0.5, 1.5, 1.0])),
    "dirichlet": ("Dirichlet", dict(concentration=[[1.0, 0.5, 4.0], [2.0, 1.0, 0.7]]),
                  dict(concentration=[[2.0, 3.0, 0.8], [0.5, 1.5, 1.0]])),
    "uniform": ("Uniform", dict(low=[0.1, 0.2, -1.0], high=[0.5, 0.9, 2.0]),
                dict(low=[0.0, 0.0, -2.0], high=[1.0, 1.0, 1.5])),
    "uniform01": ("Uniform", dict(low=[0.1, 0.2, 0.3], high=[0.5, 0.9, 0.8]),
                  dict(low=[0.0, -1.0, 0.0], high=[1.0, 1.0, 0.5])),
    "poisson": ("Poisson", dict(rate=[1.0, 0.5, 4.0]), dict(rate=[2.0, 3.0, 0.8])),
    "bernoulli": ("Bernoulli", dict(probs=[0.2, 0.5, 0.9]), dict(probs=[0.6, 0.3, 0.5])),
    "geometric": ("Geometric", dict(probs=[0.2, 0.5, 0.9]), dict(probs=[0.6, 0.3, 0.5])),
    "binomial": ("Binomial", dict(total_count=4.0, probs=[0.2, 0.5, 0.9]),
                 dict(total_count=4.0, probs=[0.6, 0.3, 0.5])),
    "onehot": ("OneHotCategorical", dict(probs=[[0.2, 0.3, 0.5], [0.1, 0.1, 0.8]]),
               dict(logits=[[0.0, 1.0, -1.0], [2.0, 0.0, 0.5]])),
    "mvn": ("MultivariateNormal", dict(loc=[[0.0, 1.0], [1.0, -1.0]], scale_tril=TRIL),
            dict(loc=[0.5, 0.0], covariance_matrix=PSD)),
}

KL_PAIRS = [(n, n) for n in KL_DISTS if n != "uniform01"] + [
    ("normal", "laplace"), ("laplace", "normal"), ("normal", "gumbel"), ("gumbel", "normal"),
    ("exponential", "gamma"), ("exponential", "normal"), ("exponential", "gumbel"),
    ("gamma", "exponential"), ("gamma", "normal"), ("gamma", "gumbel"),
    ("beta", "normal"), ("beta", "gamma"), ("beta", "exponential"), ("beta", "uniform"),
    ("uniform", "normal"), ("uniform", "gumbel"), ("uniform", "exponential"),
    ("uniform", "gamma"), ("uniform01", "beta"), ("chi2", "exponential"),
    ("bernoulli", "poisson"),
    ("normal", "uniform"), ("normal", "gamma"), ("laplace", "beta"), ("gumbel", "uniform"),
    ("gamma", "uniform"), ("exponential", "beta"), ("poisson", "bernoulli"),
    ("poisson", "binomial"),
]


def _kl_side(name, which, M, grad):
    cls, p, q = KL_DISTS[name]
    params = p if which == "p" else q
    make = _p if M is D else _t
    leaves = {k: make(v, grad=grad and k != "total_count") if k != "total_count" else v
              for k, v in params.items()}
    return getattr(M, cls)(**leaves), [v for k, v in leaves.items() if k != "total_count"]


@pytest.mark.parametrize("pname,qname", KL_PAIRS, ids=["-".join(x) for x in KL_PAIRS])
def test_kl_divergence_values_and_gradients_match_torch(pname, qname):
    p, pl = _kl_side(pname, "p", D, True)
    q, ql = _kl_side(qname, "q", D, True)
    tp, tpl = _kl_side(pname, "p", TD, True)
    tq, tql = _kl_side(qname, "q", TD, True)
    kl, tkl = D.kl_divergence(p, q), TD.kl_divergence(tp, tq)
    _close(kl, tkl, rtol=1e-11)
    if not np.all(np.isfinite(tkl.detach().numpy())):
        return
    grads = pyad.autograd.grad(kl.sum(), pl + ql, allow_unused=True)
    tgrads = torch.autograd.grad(tkl.sum(), tpl + tql, allow_unused=True)
    for g, tg in zip(grads, tgrads):
        if tg is None:
            assert g is None or not np.any(g.data)
        else:
            _close(g, tg, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("pname,qname", [("gamma", "gamma"), ("beta", "beta"),
                                         ("dirichlet", "dirichlet"), ("mvn", "mvn"),
                                         ("laplace", "normal"), ("gamma", "gumbel"),
                                         ("geometric", "geometric"), ("binomial", "binomial")])
def test_kl_divergence_passes_gradcheck_and_gradgradcheck(pname, qname):
    _, pl = _kl_side(pname, "p", D, True)
    _, ql = _kl_side(qname, "q", D, True)
    pcls, pparams, _ = KL_DISTS[pname]
    qcls, _, qparams = KL_DISTS[qname]
    pkeys = [k for k in pparams if k != "total_count"]
    qkeys = [k for k in qparams if k != "total_count"]
    pfixed = {k: v for k, v in pparams.items() if k == "total_count"}
    qfixed = {k: v for k, v in qparams.items() if k == "total_count"}

    def sym(k, a):
        return (a + a.transpose(-2, -1)) / 2 if k == "covariance_matrix" else a

    def fn(*args):
        p = getattr(D, pcls)(**{k: sym(k, a) for k, a in zip(pkeys, args[:len(pkeys)])},
                             **pfixed, validate_args=False)
        q = getattr(D, qcls)(**{k: sym(k, a) for k, a in zip(qkeys, args[len(pkeys):])},
                             **qfixed, validate_args=False)
        return D.kl_divergence(p, q)

    inputs = tuple(pl + ql)
    assert gradcheck(fn, inputs)
    assert gradgradcheck(fn, inputs)


def test_kl_dispatch_picks_the_most_specific_registration_as_torch():
    # Chi2 is a Gamma: Chi2 || Exponential uses Gamma || Exponential; LogNormal and
    # HalfNormal pair only with themselves (torch's transformed-distribution rule)
    with pytest.raises(NotImplementedError):
        TD.kl_divergence(TD.LogNormal(0.0, 1.0), TD.HalfNormal(1.0))
    with pytest.raises(NotImplementedError):
        D.kl_divergence(D.LogNormal(0.0, 1.0), D.HalfNormal(1.0))
    with pytest.raises(NotImplementedError):
        D.kl_divergence(D.Independent(D.Normal(_p([0.0]), _p([1.0])), 1),
                        D.Independent(D.Normal(_p([[0.0]]), _p([[1.0]])), 2))
    with pytest.raises(NotImplementedError):
        D.kl_divergence(D.Binomial(2.0, _p([0.5])), D.Binomial(3.0, _p([0.5])))
    _close(D.kl_divergence(D.Binomial(3.0, _p([0.5])), D.Binomial(2.0, _p([0.5]))),
           TD.kl_divergence(TD.Binomial(3.0, _t([0.5])), TD.Binomial(2.0, _t([0.5]))))
    with pytest.raises(ValueError):
        D.kl_divergence(D.MultivariateNormal(_p([0.0]), scale_tril=_p([[1.0]])),
                        D.MultivariateNormal(_p([0.0, 0.0]), scale_tril=_p(np.eye(2))))


@pytest.mark.parametrize("name", NAMES)
def test_float32_gradients_keep_the_dtype_and_match_torch(name):
    ours, theirs, v, tv, leaves = _make(name, "float32", grad=True)
    total, ttotal = ours.log_prob(v).sum(), theirs.log_prob(tv).sum()
    # the graph of derived parameters (Chi2's concentration, a Cholesky factor) is
    # shared with the rsample below
    grads = pyad.autograd.grad(total, [a for a, _ in leaves], retain_graph=True)
    tgrads = torch.autograd.grad(ttotal, [b for _, b in leaves])
    for g, tg in zip(grads, tgrads):
        _close(g, tg, "float32")
    if ours.has_rsample:
        r = ours.rsample((3,))
        assert r.dtype == np.float32
        for g in pyad.autograd.grad(r.sum(), [a for a, _ in leaves]):
            assert g.dtype == np.float32


def test_default_validation_switch_covers_the_new_families():
    try:
        D.Distribution.set_default_validate_args(False)
        D.Gamma(_p([-1.0]), _p([1.0]))
        D.Exponential(_p([1.0])).log_prob(_p([-1.0]))
    finally:
        D.Distribution.set_default_validate_args(True)
    with pytest.raises(ValueError):
        D.Gamma(_p([-1.0]), _p([1.0]))


def test_studentt_moments_at_the_df_boundaries_and_their_gradients_match_torch():
    df, scale = _p([0.5, 1.0, 2.0, 2.5], grad=True), _p([1.0, 2.0, 3.0, 0.5], grad=True)
    tdf, tscale = _t([0.5, 1.0, 2.0, 2.5], grad=True), _t([1.0, 2.0, 3.0, 0.5], grad=True)
    d, td = D.StudentT(df, 0.0, scale), TD.StudentT(tdf, 0.0, tscale)
    _close(d.variance, td.variance)
    _close(d.mean, td.mean)
    g = pyad.autograd.grad(d.variance[3] + d.stddev[3], [df, scale])
    tg = torch.autograd.grad(td.variance[3] + td.stddev[3], [tdf, tscale])
    for a, b in zip(g, tg):
        _close(a, b)
