"""The torch.distributions families pyad gained last (LowRankMultivariateNormal, Wishart,
LKJCholesky, VonMises, ContinuousBernoulli, FisherSnedecor, Kumaraswamy,
NegativeBinomial, Pareto, Weibull, LogisticNormal, HalfCauchy, Multinomial,
GeneralizedPareto, InverseGamma, OneHotCategoricalStraightThrough), their transforms and
KL divergences, against torch 2.13 on the same parameters: densities, entropies,
moments, CDFs and quantiles, shapes, supports, expand, validation errors, gradients of
log_prob (vs torch and gradcheck in float64), and rsample gradients checked
statistically (the generators differ: the mean of N per-draw derivatives lies within 5
standard errors of the derivative of the exact mean)."""
import math
import re

import numpy as np
import pytest

import pyad
import pyad.distributions as D
from pyad.autograd import gradcheck
from pyad.distributions import transforms as T

torch = pytest.importorskip("torch")
TD = torch.distributions
TT = torch.distributions.transforms

from _distribution_helpers import DTYPES, PSD, TRIL, _close, _p, _t  # noqa: E402

# Cholesky factors of two 3 x 3 correlation matrices (numpy, from the matrices)
CORR_L = [np.linalg.cholesky(np.array(c)).tolist() for c in
          ([[1.0, 0.3, 0.2], [0.3, 1.0, -0.4], [0.2, -0.4, 1.0]],
           [[1.0, -0.6, 0.1], [-0.6, 1.0, 0.5], [0.1, 0.5, 1.0]])]

# name: (class, parameters, values to score)
SPECS = {
    "pareto": ("Pareto", dict(scale=[1.0, 2.0, 0.5], alpha=[0.5, 3.0, 2.5]), [1.5, 2.5, 3.0]),
    "weibull": ("Weibull", dict(scale=[1.0, 2.0, 0.5], concentration=[0.5, 3.0, 1.5]),
                [0.3, 2.0, 1.0]),
    "halfcauchy": ("HalfCauchy", dict(scale=[1.0, 2.0, 0.5]), [0.3, 1.0, 2.5]),
    "kumaraswamy": ("Kumaraswamy", dict(concentration1=[0.5, 2.0, 5.0],
                                        concentration0=[1.5, 2.0, 0.7]), [0.3, 0.5, 0.9]),
    "inversegamma": ("InverseGamma", dict(concentration=[0.5, 2.5, 4.0], rate=[1.0, 0.5, 3.0]),
                     [0.3, 2.0, 4.0]),
    "logisticnormal": ("LogisticNormal", dict(loc=[[0.0, 1.0], [-1.0, 0.5]],
                                              scale=[[1.0, 2.0], [0.5, 1.0]]),
                       [[0.2, 0.3, 0.5], [0.6, 0.1, 0.3]]),
    "fisher": ("FisherSnedecor", dict(df1=[1.0, 3.0, 10.0], df2=[2.0, 5.0, 12.0]),
               [0.3, 2.0, 1.0]),
    "genpareto": ("GeneralizedPareto", dict(loc=[0.0, 1.0, -2.0], scale=[1.0, 2.0, 0.5],
                                            concentration=[0.3, -0.2, 0.6]),
                  [0.3, 2.0, -1.0]),
    "vonmises": ("VonMises", dict(loc=[0.0, 1.0, -2.0], concentration=[0.5, 2.0, 5.0]),
                 [0.3, -1.0, 3.0]),
    "cb_probs": ("ContinuousBernoulli", dict(probs=[0.2, 0.5, 0.9]), [0.1, 0.5, 0.95]),
    "cb_logits": ("ContinuousBernoulli", dict(logits=[-1.0, 0.001, 2.0]), [0.1, 0.5, 0.95]),
    "negbin_probs": ("NegativeBinomial", dict(total_count=[2.0, 5.0, 0.5],
                                              probs=[0.2, 0.5, 0.9]), [0.0, 3.0, 1.0]),
    "negbin_logits": ("NegativeBinomial", dict(total_count=[2.0, 5.0, 0.5],
                                               logits=[-1.0, 0.5, 2.0]), [4.0, 0.0, 7.0]),
    "multinomial_probs": ("Multinomial", dict(total_count=4,
                                              probs=[[0.1, 0.2, 0.7], [0.5, 0.25, 0.25]]),
                          [[1.0, 0.0, 3.0], [2.0, 2.0, 0.0]]),
    "multinomial_logits": ("Multinomial", dict(total_count=3, logits=[[1.0, -2.0, 0.5]]),
                           [[0.0, 1.0, 2.0], [3.0, 0.0, 0.0]]),
    "onehot_st": ("OneHotCategoricalStraightThrough",
                  dict(probs=[[0.1, 0.2, 0.7], [0.5, 0.25, 0.25]]),
                  [[0.0, 0.0, 1.0], [1.0, 0.0, 0.0]]),
    "lowrank": ("LowRankMultivariateNormal",
                dict(loc=[[0.0, 1.0], [-1.0, 0.5]], cov_factor=[[1.0], [0.5]],
                     cov_diag=[1.0, 2.0]), [[0.3, -1.0], [1.0, 2.0]]),
    "lowrank_batched": ("LowRankMultivariateNormal",
                        dict(loc=[0.5, -1.0, 0.0],
                             cov_factor=[[[1.0, 0.2], [0.5, -1.0], [0.0, 0.3]],
                                         [[0.3, 0.1], [0.2, 0.4], [-0.5, 1.0]]],
                             cov_diag=[[1.0, 2.0, 0.5], [0.3, 1.0, 2.0]]),
                        [[0.3, -1.0, 0.2], [1.0, 2.0, -0.5]]),
    "wishart_cov": ("Wishart", dict(df=[3.0, 4.5], covariance_matrix=PSD), PSD[::-1]),
    "wishart_tril": ("Wishart", dict(df=[2.5, 6.0], scale_tril=TRIL), PSD),
    "wishart_prec": ("Wishart", dict(df=[3.5, 2.0], precision_matrix=PSD), PSD[::-1]),
    "lkj": ("LKJCholesky", dict(dim=3, concentration=[0.5, 2.0]), CORR_L),
}
NAMES = list(SPECS)
FIXED = {"total_count_int", "dim"}
# the ints a constructor takes as they are (Multinomial's total_count, LKJ's dim)
INTS = {("Multinomial", "total_count"), ("LKJCholesky", "dim")}


def _fixed(cls, k):
    return (cls, k) in INTS


def _make(name, dtype="float64", grad=False):
    """The same distribution in pyad and torch, the values to score in each, and the
    differentiable parameter leaves of each."""
    cls, params, values = SPECS[name]
    ours_params, theirs_params, leaves = {}, {}, []
    for k, v in params.items():
        if _fixed(cls, k):
            ours_params[k] = theirs_params[k] = v
            continue
        ours_params[k], theirs_params[k] = _p(v, dtype, grad), _t(v, dtype, grad)
        leaves.append((ours_params[k], theirs_params[k]))
    ours = getattr(D, cls)(**ours_params)
    theirs = getattr(TD, cls)(**theirs_params)
    return ours, theirs, _p(values, dtype), _t(values, dtype), leaves


@pytest.fixture(autouse=True)
def _torch_default_dtype(request):
    # torch's GeneralizedPareto compares with torch.tensor(0.0) and Multinomial.entropy
    # takes lgamma of an integer tensor: both in the default dtype, which is set to the
    # test's dtype (float64 unless the test says otherwise)
    params = getattr(getattr(request.node, "callspec", None), "params", {})
    old = torch.get_default_dtype()
    torch.set_default_dtype(DTYPES[params.get("dtype", "float64")][1])
    yield
    torch.set_default_dtype(old)


def _pyad_repr(text):
    text = text.replace("dtype=torch.", "dtype=")
    if torch.get_default_dtype() == torch.float64:    # torch then omits the dtype
        text = re.sub(r"\btensor\((\[[^()]*?\])\)", r"tensor(\1, dtype=float64)", text)
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
    u = [0.1, 0.5, 0.95][:ours.batch_shape[-1]] if ours.batch_shape else [0.3]
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
    if has and name != "inversegamma":    # the gamma cdf: no derivative in concentration
        total = total + ours.cdf(v).sum()
        ttotal = ttotal + tcdf.sum()
    grads = pyad.autograd.grad(total, [a for a, _ in leaves], allow_unused=True)
    tgrads = torch.autograd.grad(ttotal, [b for _, b in leaves], allow_unused=True)
    for g, tg in zip(grads, tgrads):
        if tg is None:
            assert g is None or not np.any(g.data)
        else:
            np.testing.assert_allclose(g.data, tg.numpy(), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("name", NAMES)
def test_log_prob_and_entropy_pass_gradcheck(name):
    cls, params, values = SPECS[name]
    keys = [k for k in params if not _fixed(cls, k)]
    fixed = {k: v for k, v in params.items() if _fixed(cls, k)}
    v = _p(values)

    def fn(*args):
        # a covariance or precision matrix enters through its lower triangle only
        # (scale_tril through its lower triangle)
        args = [(a + a.transpose(-2, -1)) / 2 if k in ("covariance_matrix", "precision_matrix")
                else a.tril() if k == "scale_tril" else a for k, a in zip(keys, args)]
        d = getattr(D, cls)(**dict(zip(keys, args)), **fixed, validate_args=False)
        out = d.log_prob(v).sum()
        if _torch_has(getattr(TD, cls)(**{k: _t(p) if not _fixed(cls, k) else p
                                          for k, p in params.items()}).entropy)[0]:
            out = out + d.entropy().sum()
        return out

    inputs = tuple(_p(params[k], grad=True) for k in keys)
    assert gradcheck(fn, inputs)


@pytest.mark.parametrize("sample_shape", [(), (4,), (2, 3)])
@pytest.mark.parametrize("name", NAMES)
def test_sample_and_rsample_shapes_and_dtypes_match_torch(name, sample_shape):
    ours, theirs, _, _, _ = _make(name, "float32")
    s, ts = ours.sample(sample_shape), theirs.sample(sample_shape)
    assert s.shape == tuple(ts.shape)
    assert np.dtype(s.dtype) == np.dtype(str(ts.dtype).replace("torch.", ""))
    assert not s.requires_grad
    assert bool(ours.support.check(s).all())
    if theirs.has_rsample:
        r, tr = ours.rsample(sample_shape), theirs.rsample(sample_shape)
        assert r.shape == tuple(tr.shape) and r.dtype == s.dtype
    else:
        with pytest.raises(NotImplementedError):
            ours.rsample(sample_shape)


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
    try:
        expected = te.entropy()
    except AttributeError:            # torch's expanded Multinomial lacks its _binomial
        expected = theirs.entropy().expand(shape)
    except NotImplementedError:
        expected = None
    if expected is not None:
        _close(e.entropy(), expected)
    assert e.sample((2,)).shape == tuple(te.sample((2,)).shape)


BAD_PARAMS = [
    ("Pareto", dict(scale=[1.0, -1.0], alpha=[1.0, 1.0])),
    ("Pareto", dict(scale=[1.0, 1.0], alpha=[0.0, 1.0])),
    ("Weibull", dict(scale=[1.0, 1.0], concentration=[-1.0, 1.0])),
    ("HalfCauchy", dict(scale=[0.0, 1.0])),
    ("Kumaraswamy", dict(concentration1=[1.0, -2.0], concentration0=[1.0, 1.0])),
    ("InverseGamma", dict(concentration=[1.0, 1.0], rate=[-1.0, 1.0])),
    ("LogisticNormal", dict(loc=[0.0, 1.0], scale=[1.0, -1.0])),
    ("FisherSnedecor", dict(df1=[1.0, 0.0], df2=[1.0, 1.0])),
    ("GeneralizedPareto", dict(loc=[0.0], scale=[-1.0], concentration=[0.1])),
    ("VonMises", dict(loc=[0.0], concentration=[-1.0])),
    ("NegativeBinomial", dict(total_count=[-1.0], probs=[0.5])),
    ("NegativeBinomial", dict(total_count=[1.0], probs=[1.0])),
    ("Multinomial", dict(probs=[-0.5, 1.5])),
    ("LowRankMultivariateNormal", dict(loc=[0.0, 1.0], cov_factor=[[1.0], [0.5]],
                                       cov_diag=[1.0, -2.0])),
    ("Wishart", dict(df=[3.0], covariance_matrix=[[1.0, 2.0], [0.0, 1.0]])),
    ("LKJCholesky", dict(dim=2, concentration=[-1.0])),
]


def _build(M, cls, params):
    make = _p if M is D else _t
    return getattr(M, cls)(**{k: (v if _fixed(cls, k) else make(v)) for k, v in params.items()})


@pytest.mark.parametrize("cls,params", BAD_PARAMS, ids=lambda x: str(x))
def test_invalid_parameters_raise_as_torch(cls, params):
    with pytest.raises(Exception) as theirs:
        _build(TD, cls, params)
    with pytest.raises(type(theirs.value)) as ours:
        _build(D, cls, params)
    assert str(ours.value).split("(")[0] == str(theirs.value).split("(")[0]


@pytest.mark.parametrize("name,value", [
    ("pareto", [0.5, 2.5, 3.0]), ("weibull", [-0.3, 2.0, 1.0]),
    ("kumaraswamy", [0.3, 1.5, 0.9]), ("negbin_probs", [0.5, 3.0, 1.0]),
    ("multinomial_probs", [[1.0, 0.0, 5.0], [2.0, 2.0, 0.0]]),
    ("lkj", [np.eye(3).tolist(), (2 * np.eye(3)).tolist()]),
    ("wishart_cov", [PSD[0], [[1.0, 2.0], [2.0, 1.0]]]),
    ("cb_probs", [0.1, 1.5, 0.95]), ("logisticnormal", [[0.2, 0.3, 0.6], [0.6, 0.1, 0.3]]),
])
def test_log_prob_outside_the_support_raises_valueerror_as_torch(name, value):
    ours, theirs, _, _, _ = _make(name)
    with pytest.raises(ValueError):
        theirs.log_prob(_t(value))
    with pytest.raises(ValueError, match="support"):
        ours.log_prob(_p(value))


def test_continuous_bernoulli_checks_probs_only_when_validate_args_is_given_as_torch():
    for M, make in ((TD, _t), (D, _p)):
        M.ContinuousBernoulli(probs=make([1.5]))             # clamped, not checked
        with pytest.raises(ValueError, match="The parameter probs has invalid values"):
            M.ContinuousBernoulli(probs=make([1.5]), validate_args=False)


def test_module_paths_are_torchs():
    import importlib
    for mod, cls in [("von_mises", "VonMises"), ("continuous_bernoulli", "ContinuousBernoulli"),
                     ("fishersnedecor", "FisherSnedecor"), ("kumaraswamy", "Kumaraswamy"),
                     ("negative_binomial", "NegativeBinomial"), ("pareto", "Pareto"),
                     ("weibull", "Weibull"), ("logistic_normal", "LogisticNormal"),
                     ("half_cauchy", "HalfCauchy"), ("multinomial", "Multinomial"),
                     ("generalized_pareto", "GeneralizedPareto"),
                     ("inverse_gamma", "InverseGamma"), ("lkj_cholesky", "LKJCholesky"),
                     ("lowrank_multivariate_normal", "LowRankMultivariateNormal"),
                     ("wishart", "Wishart"),
                     ("one_hot_categorical", "OneHotCategoricalStraightThrough")]:
        assert hasattr(importlib.import_module("torch.distributions." + mod), cls)
        assert getattr(importlib.import_module("pyad.distributions." + mod), cls) is \
            getattr(D, cls)
    assert D.constraint_registry.biject_to is D.biject_to
    assert set(TD.__all__) - set(D.__all__) == set()
    assert set(TT.__all__) - set(T.__all__) == set()


def test_generalized_pareto_at_zero_concentration_is_exponential_as_torch():
    d = D.GeneralizedPareto(_p([0.0, 1.0]), _p([2.0, 0.5]), _p([0.0, 0.0]))
    td = TD.GeneralizedPareto(_t([0.0, 1.0]), _t([2.0, 0.5]), _t([0.0, 0.0]))
    v, tv = _p([0.5, 3.0]), _t([0.5, 3.0])
    for f in ("log_prob", "cdf"):
        _close(getattr(d, f)(v), getattr(td, f)(tv))
    _close(d.icdf(_p([0.2, 0.9])), td.icdf(_t([0.2, 0.9])))
    np.testing.assert_allclose(d.log_prob(v).data, [-math.log(2) - 0.25, math.log(2) - 4.0])


# -- statistics of draws ------------------------------------------------------------

STAT_N = 20000


def _check_moments(draws, mean, var):
    x = np.asarray(draws.data, dtype=np.float64)
    n = x.shape[0]
    m = x.mean(0)
    assert np.all(np.abs(m - mean) <= 5 * np.sqrt(var / n)), (m, mean)
    centred = x - m
    v = (centred ** 2).mean(0)
    mu4 = (centred ** 4).mean(0)
    assert np.all(np.abs(v - var) <= 5 * np.sqrt((mu4 - v ** 2) / n)), (v, var)


# parameters with finite fourth moments
STAT_SPECS = {
    "pareto": ("Pareto", dict(scale=[1.0, 0.5], alpha=[9.0, 12.0])),
    "weibull": ("Weibull", dict(scale=[1.0, 2.0], concentration=[0.8, 3.0])),
    "kumaraswamy": ("Kumaraswamy", dict(concentration1=[0.5, 5.0], concentration0=[1.5, 0.7])),
    "inversegamma": ("InverseGamma", dict(concentration=[9.0, 12.0], rate=[1.0, 3.0])),
    "fisher": ("FisherSnedecor", dict(df1=[3.0, 10.0], df2=[12.0, 20.0])),
    "genpareto": ("GeneralizedPareto", dict(loc=[0.0, 1.0], scale=[1.0, 2.0],
                                            concentration=[0.1, -0.3])),
    "cb": ("ContinuousBernoulli", dict(probs=[0.2, 0.5, 0.9])),
    "negbin": ("NegativeBinomial", dict(total_count=[2.0, 0.5], probs=[0.3, 0.6])),
    "multinomial": ("Multinomial", dict(total_count=5, probs=[0.2, 0.3, 0.5])),
    "lowrank": ("LowRankMultivariateNormal", dict(loc=[0.0, 1.0], cov_factor=[[1.0], [0.5]],
                                                  cov_diag=[1.0, 2.0])),
    "wishart": ("Wishart", dict(df=[4.0], covariance_matrix=[PSD[0]])),
}


# (NegativeBinomial and Multinomial have no rsample, as torch)
@pytest.mark.parametrize("name,method", [(n, m) for n in STAT_SPECS for m in
                                         ("sample", "rsample")
                                         if m == "sample" or n not in ("negbin",
                                                                       "multinomial")])
def test_draws_have_the_distributions_mean_and_variance(name, method):
    cls, params = STAT_SPECS[name]
    d = _build(D, cls, params)
    pyad.manual_seed(1234)
    draws = getattr(d, method)((STAT_N,))
    assert tuple(draws.shape) == (STAT_N,) + d.batch_shape + d.event_shape
    td = _build(TD, cls, params)
    _check_moments(draws, td.mean.numpy(), td.variance.numpy())


def test_von_mises_draws_have_the_circular_moments():
    # E[cos(X - loc)] = I1(k) / I0(k) = 1 - variance, E[sin(X - loc)] = 0; every draw in
    # [-pi, pi)
    loc, conc = [0.5, -2.5, 3.0], [0.3, 2.0, 20.0]
    pyad.manual_seed(7)
    x = np.asarray(D.VonMises(_p(loc), _p(conc)).sample((STAT_N,)).data)
    assert x.min() >= -math.pi and x.max() < math.pi
    c, s = np.cos(x - loc), np.sin(x - loc)
    ratio = np.array([torch.special.i1(torch.tensor(k, dtype=torch.float64)).item()
                      / torch.special.i0(torch.tensor(k, dtype=torch.float64)).item()
                      for k in conc])
    for stat, expect in ((c, ratio), (s, 0.0)):
        assert np.all(np.abs(stat.mean(0) - expect) <= 5 * stat.std(0) / math.sqrt(STAT_N))


def test_lkj_draws_are_correlation_factors_distributed_as_torchs():
    # the first correlation r_10 = L_10: (r + 1) / 2 ~ Beta(b, b), b = eta - 1 + d / 2
    # (mean 0, variance 1 / (2 b + 1)); every correlation's mean and variance are those
    # of torch's draws (two samples: within 5 standard errors of the difference)
    dim, eta = 3, np.array([0.5, 3.0])
    pyad.manual_seed(8)
    L = D.LKJCholesky(dim, _p(eta)).sample((STAT_N,))
    assert bool(D.constraints.corr_cholesky.check(L).all())
    C = np.asarray(pyad.matmul(L, L.transpose(-2, -1)).data)
    b = eta - 1 + dim / 2
    _check_moments(pyad.tensor(C[:, :, 1, 0]), np.zeros(2), 1 / (2 * b + 1))
    torch.manual_seed(8)
    tL = TD.LKJCholesky(dim, _t(eta)).sample((STAT_N,))
    tC = (tL @ tL.mT).numpy()
    for i, j in ((1, 0), (2, 0), (2, 1)):
        x, y = C[:, :, i, j], tC[:, :, i, j]
        se_mean = np.sqrt((x.var(0) + y.var(0)) / STAT_N)
        assert np.all(np.abs(x.mean(0) - y.mean(0)) <= 5 * se_mean)
        vx, vy = ((x - x.mean(0)) ** 2), ((y - y.mean(0)) ** 2)
        se_var = np.sqrt((vx.var(0) + vy.var(0)) / STAT_N)
        assert np.all(np.abs(vx.mean(0) - vy.mean(0)) <= 5 * se_var)


def test_logistic_normal_draws_are_the_stick_broken_normal():
    # log(y_k / y_K) - the offset log(K - k) is Normal(loc_k, scale_k)... for the first
    # coordinate, y_1 = sigmoid(x_1 - log(K - 1)): logit(y_1) + log(K - 1) ~ Normal
    loc, scale = [0.5, -1.0], [1.0, 0.3]
    pyad.manual_seed(9)
    y = np.asarray(D.LogisticNormal(_p(loc), _p(scale)).sample((STAT_N,)).data)
    np.testing.assert_allclose(y.sum(-1), 1.0, rtol=1e-12)
    x1 = np.log(y[:, 0]) - np.log1p(-y[:, 0]) + math.log(2)
    _check_moments(pyad.tensor(x1), loc[0], scale[0] ** 2)


# -- rsample gradients ----------------------------------------------------------------
# Per-draw derivatives: the parameters are repeated N times (one row per draw), so the
# gradient of sum(rsample) w.r.t. row i is that draw's derivative. Their mean lies
# within 5 standard errors of the derivative of the exact mean (torch's, by autograd).

RSAMPLE_SPECS = {
    "pareto": ("Pareto", dict(scale=[1.0, 0.5], alpha=[9.0, 12.0])),
    "weibull": ("Weibull", dict(scale=[1.0, 2.0], concentration=[1.5, 3.0])),
    "kumaraswamy": ("Kumaraswamy", dict(concentration1=[1.5, 5.0],
                                        concentration0=[1.5, 2.0])),
    "inversegamma": ("InverseGamma", dict(concentration=[9.0, 12.0], rate=[1.0, 3.0])),
    "fisher": ("FisherSnedecor", dict(df1=[3.0, 10.0], df2=[12.0, 20.0])),
    "genpareto": ("GeneralizedPareto", dict(loc=[0.0, 1.0], scale=[1.0, 2.0],
                                            concentration=[0.1, -0.3])),
    "cb": ("ContinuousBernoulli", dict(probs=[0.2, 0.9])),
    "lowrank": ("LowRankMultivariateNormal", dict(loc=[0.0, 1.0], cov_factor=[[1.0], [0.5]],
                                                  cov_diag=[1.0, 2.0])),
    "wishart": ("Wishart", dict(df=[4.0], covariance_matrix=[PSD[0]])),
}


@pytest.mark.parametrize("name", list(RSAMPLE_SPECS))
def test_rsample_gradients_are_unbiased_for_the_gradient_of_the_mean(name):
    cls, params = RSAMPLE_SPECS[name]
    n = 4000
    leaves = {k: _p(np.broadcast_to(np.asarray(v), (n,) + np.shape(v)).copy(), grad=True)
              for k, v in params.items()}
    d = getattr(D, cls)(**leaves)
    pyad.manual_seed(21)
    x = d.rsample()
    tleaves = {k: _t(v, grad=True) for k, v in params.items()}
    tmean = getattr(TD, cls)(**tleaves).mean
    # one scalar function per draw: the sum of the event (a weighted sum for matrices)
    # (symmetric for matrices: a covariance enters through its lower triangle)
    w = np.arange(1.0, 1.0 + int(np.prod(d.event_shape))).reshape(d.event_shape)
    if w.ndim == 2:
        w = w + w.T
    grads = pyad.autograd.grad((x * pyad.tensor(w)).sum(), list(leaves.values()))
    tgrads = torch.autograd.grad((tmean * torch.tensor(w)).sum(), list(tleaves.values()),
                                 allow_unused=True)
    for g, tg, tl in zip(grads, tgrads, tleaves.values()):
        tg = torch.zeros_like(tl) if tg is None else tg
        per_draw = np.asarray(g.data)                      # row i: draw i's derivative
        m = per_draw.mean(0)
        se = per_draw.std(0) / math.sqrt(n)
        assert np.all(np.abs(m - tg.numpy()) <= 5 * se + 1e-12), (m, tg.numpy(), se)


def test_onehot_straight_through_rsample_has_the_gradient_of_probs():
    probs = _p([0.2, 0.3, 0.5], grad=True)
    tprobs = _t([0.2, 0.3, 0.5], grad=True)
    pyad.manual_seed(3)
    x = D.OneHotCategoricalStraightThrough(probs=probs).rsample((5,))
    assert bool(((x.detach() == 0) | (x.detach() == 1)).all())
    w = np.array([1.0, -2.0, 0.5])
    (g,) = pyad.autograd.grad((x * pyad.tensor(w)).sum(), [probs])
    tx = TD.OneHotCategoricalStraightThrough(probs=tprobs).rsample((5,))
    (tg,) = torch.autograd.grad((tx * torch.tensor(w)).sum(), [tprobs])
    np.testing.assert_allclose(g.data, tg.numpy(), rtol=1e-12)


def test_vonmises_and_lkj_and_multinomial_have_no_rsample_as_torch():
    for name in ("vonmises", "lkj", "multinomial_probs", "negbin_probs"):
        ours, theirs, _, _, _ = _make(name)
        assert not ours.has_rsample and not theirs.has_rsample
        with pytest.raises(NotImplementedError):
            ours.rsample()


# -- transforms -----------------------------------------------------------------------

TRANSFORMS = {
    "softplus": (lambda M: M.SoftplusTransform(), (2, 3)),
    "stick": (lambda M: M.StickBreakingTransform(), (2, 3)),
    "corr": (lambda M: M.CorrCholeskyTransform(), (2, 6)),
    "lower_chol": (lambda M: M.LowerCholeskyTransform(), (2, 3, 3)),
    "pos_def": (lambda M: M.PositiveDefiniteTransform(), (2, 3, 3)),
    "independent": (lambda M: M.IndependentTransform(M.SoftplusTransform(), 1), (2, 3)),
    "reshape": (lambda M: M.ReshapeTransform((2, 3), (3, 2)), (4, 2, 3)),
    "cat": (lambda M: M.CatTransform([M.ExpTransform(), M.SoftplusTransform(),
                                      M.AffineTransform(1.0, 2.0)], dim=1, lengths=[1, 2, 1]),
            (2, 4)),
    "stack": (lambda M: M.StackTransform([M.ExpTransform(), M.TanhTransform(),
                                          M.SoftplusTransform()], dim=1), (2, 3)),
    "cdf": (lambda M: M.CumulativeDistributionTransform(
        (D if M is T else TD).Normal((_p if M is T else _t)([0.5, -1.0, 2.0]),
                                     (_p if M is T else _t)([1.0, 2.0, 0.5]))), (2, 3)),
}


@pytest.mark.parametrize("name", list(TRANSFORMS))
def test_transforms_match_torch(name):
    make, shape = TRANSFORMS[name]
    ours, theirs = make(T), make(TT)
    x = np.random.RandomState(0).randn(*shape) * 0.7
    y, ty = ours(_p(x)), theirs(_t(x))
    _close(y, ty, rtol=1e-11, atol=1e-12)
    _close(ours.inv(y), theirs.inv(ty), rtol=1e-9, atol=1e-10)
    assert ours.forward_shape(shape) == tuple(theirs.forward_shape(shape))
    assert ours.inverse_shape(tuple(ty.shape)) == tuple(theirs.inverse_shape(ty.shape))
    assert repr(ours.domain) == repr(theirs.domain)
    assert repr(ours.codomain) == repr(theirs.codomain)
    assert ours.bijective == theirs.bijective
    assert bool(ours.codomain.check(y).all())
    has, expected = _torch_has(lambda: theirs.log_abs_det_jacobian(_t(x), ty))
    if not has:
        with pytest.raises(NotImplementedError):
            ours.log_abs_det_jacobian(_p(x), y)
        return
    _close(ours.log_abs_det_jacobian(_p(x), y), expected, rtol=1e-11, atol=1e-12)

    def fn(a):
        return ours.log_abs_det_jacobian(a, ours(a)).sum() + (ours(a) * 1.5).sum()
    tx = _t(x, grad=True)
    tg, = torch.autograd.grad(theirs.log_abs_det_jacobian(tx, theirs(tx)).sum()
                              + (theirs(tx) * 1.5).sum(), [tx])
    a = _p(x, grad=True)
    (g,) = pyad.autograd.grad(fn(a), [a])
    np.testing.assert_allclose(g.data, tg.numpy(), rtol=1e-9, atol=1e-12)
    assert gradcheck(fn, (_p(x, grad=True),))


def test_corr_cholesky_transform_log_det_is_the_jacobian_determinant():
    # hand check: the log |det| of the numerical Jacobian of the map from the 3 free
    # entries to the 3 strictly lower entries of the factor
    t = T.CorrCholeskyTransform()
    x = np.array([0.3, -0.5, 0.8])
    rows, cols = np.tril_indices(3, -1)

    def f(v):
        return np.asarray(t(_p(v)).data)[rows, cols]
    J = np.stack([(f(x + h) - f(x - h)) / 2e-6 for h in np.eye(3) * 1e-6], -1)
    expected = np.log(abs(np.linalg.det(J)))
    got = float(t.log_abs_det_jacobian(_p(x), t(_p(x))).data)
    assert abs(got - expected) < 1e-6


# -- KL divergences -------------------------------------------------------------------

KL_DISTS = {
    "pareto": ("Pareto", dict(scale=[1.0, 2.0, 0.5], alpha=[1.5, 3.0, 2.5]),
               dict(scale=[0.5, 2.5, 0.4], alpha=[2.0, 1.0, 3.0])),
    "cb": ("ContinuousBernoulli", dict(probs=[0.2, 0.5, 0.9]), dict(probs=[0.6, 0.3, 0.4999])),
    "lowrank": ("LowRankMultivariateNormal",
                dict(loc=[[0.0, 1.0], [-1.0, 0.5]], cov_factor=[[1.0], [0.5]],
                     cov_diag=[1.0, 2.0]),
                dict(loc=[0.5, 0.0], cov_factor=[[0.3, 0.1], [-0.2, 0.6]],
                     cov_diag=[[0.5, 1.5], [2.0, 1.0]])),
    "mvn": ("MultivariateNormal", dict(loc=[[0.0, 1.0], [1.0, -1.0]], scale_tril=TRIL),
            dict(loc=[0.5, 0.0], covariance_matrix=PSD)),
    "normal": ("Normal", dict(loc=[0.0, 1.0, -2.0], scale=[1.0, 2.0, 0.5]),
               dict(loc=[1.0, -1.0, 0.0], scale=[2.0, 1.0, 3.0])),
    "exponential": ("Exponential", dict(rate=[0.5, 2.0, 3.0]), dict(rate=[1.0, 0.5, 4.0])),
    "gamma": ("Gamma", dict(concentration=[0.5, 2.0, 9.0], rate=[1.0, 0.5, 3.0]),
              dict(concentration=[1.5, 1.0, 3.0], rate=[2.0, 1.0, 0.5])),
    "beta": ("Beta", dict(concentration1=[0.5, 2.0, 5.0], concentration0=[1.5, 2.0, 0.7]),
             dict(concentration1=[2.0, 1.0, 3.0], concentration0=[1.0, 4.0, 0.5])),
    "uniform": ("Uniform", dict(low=[1.0, 2.0, 0.1], high=[2.0, 3.0, 0.9]),
                dict(low=[0.0, -1.0, 0.0], high=[3.0, 4.0, 1.0])),
    "gumbel": ("Gumbel", dict(loc=[0.0, 1.0, -2.0], scale=[1.0, 2.0, 0.5]),
               dict(loc=[1.0, 0.0, 0.0], scale=[2.0, 1.0, 1.0])),
    "laplace": ("Laplace", dict(loc=[0.0, 1.0, -2.0], scale=[1.0, 2.0, 0.5]),
                dict(loc=[1.0, 0.0, 0.0], scale=[2.0, 1.0, 1.0])),
}
KL_PAIRS = [("pareto", "pareto"), ("cb", "cb"), ("lowrank", "lowrank"), ("mvn", "lowrank"),
            ("lowrank", "mvn"), ("beta", "cb"), ("beta", "pareto"), ("cb", "pareto"),
            ("cb", "exponential"), ("cb", "normal"), ("cb", "uniform"),
            ("exponential", "pareto"), ("exponential", "cb"), ("gamma", "pareto"),
            ("gamma", "cb"), ("gumbel", "pareto"), ("gumbel", "cb"), ("laplace", "pareto"),
            ("laplace", "cb"), ("normal", "pareto"), ("normal", "cb"), ("pareto", "uniform"),
            ("pareto", "cb"), ("pareto", "beta"), ("pareto", "exponential"),
            ("pareto", "gamma"), ("pareto", "normal"), ("uniform", "cb"),
            ("uniform", "pareto")]


def _kl_side(name, which, M, grad):
    cls, p, q = KL_DISTS[name]
    make = _p if M is D else _t
    leaves = {k: make(v, grad=grad) for k, v in (p if which == "p" else q).items()}
    return getattr(M, cls)(**leaves), list(leaves.values())


@pytest.mark.parametrize("pname,qname", KL_PAIRS, ids=["-".join(x) for x in KL_PAIRS])
def test_kl_divergence_values_and_gradients_match_torch(pname, qname):
    p, pl = _kl_side(pname, "p", D, True)
    q, ql = _kl_side(qname, "q", D, True)
    tp, tpl = _kl_side(pname, "p", TD, True)
    tq, tql = _kl_side(qname, "q", TD, True)
    kl, tkl = D.kl_divergence(p, q), TD.kl_divergence(tp, tq)
    _close(kl, tkl, rtol=1e-11)
    finite = np.isfinite(tkl.detach().numpy())
    if not finite.any():
        return
    grads = pyad.autograd.grad(kl[pyad.tensor(finite)].sum(), pl + ql, allow_unused=True)
    tgrads = torch.autograd.grad(tkl[torch.tensor(finite)].sum(), tpl + tql,
                                 allow_unused=True)
    for g, tg in zip(grads, tgrads):
        if tg is None:
            assert g is None or not np.any(g.data)
        else:
            _close(g, tg, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("pname,qname", [("pareto", "pareto"), ("cb", "cb"),
                                         ("lowrank", "lowrank"), ("mvn", "lowrank"),
                                         ("lowrank", "mvn"), ("cb", "normal")])
def test_kl_divergence_passes_gradcheck(pname, qname):
    _, pl = _kl_side(pname, "p", D, True)
    _, ql = _kl_side(qname, "q", D, True)
    pcls, pparams, _ = KL_DISTS[pname]
    qcls, _, qparams = KL_DISTS[qname]
    np_ = len(pl)

    def fn(*args):
        args = [(a + a.transpose(-2, -1)) / 2 if k == "covariance_matrix" else a
                for k, a in zip(list(pparams) + list(qparams), args)]
        p = getattr(D, pcls)(**dict(zip(pparams, args[:np_])), validate_args=False)
        q = getattr(D, qcls)(**dict(zip(qparams, args[np_:])), validate_args=False)
        kl = D.kl_divergence(p, q)
        return pyad.where(pyad.isfinite(kl).detach(), kl, 0.0).sum()

    assert gradcheck(fn, tuple(pl + ql))


# The same base noise: the standard draw behind each pyad rsample is recovered from the
# draw (by hand math), pushed through torch's construction with torch's parameters, and
# the gradients of a weighted sum of the draws compared.
SAME_NOISE = {
    # name: (class, params, noise from the draw and params (numpy), torch's draw)
    "pareto": ("Pareto", dict(scale=[1.0, 2.0], alpha=[1.5, 3.0]),
               lambda y, p: p["alpha"] * np.log(y / p["scale"]),
               lambda e, t: t["scale"] * torch.exp(e / t["alpha"])),
    "weibull": ("Weibull", dict(scale=[1.0, 2.0], concentration=[0.7, 3.0]),
                lambda y, p: (y / p["scale"]) ** p["concentration"],
                lambda e, t: t["scale"] * e ** t["concentration"].reciprocal()),
    "kumaraswamy": ("Kumaraswamy", dict(concentration1=[0.5, 2.0], concentration0=[1.5, 4.0]),
                    lambda y, p: (1 - y ** p["concentration1"]) ** p["concentration0"],
                    lambda u, t: (1 - u ** t["concentration0"].reciprocal())
                    ** t["concentration1"].reciprocal()),
    "halfcauchy": ("HalfCauchy", dict(scale=[1.0, 0.3]),
                   lambda y, p: y / p["scale"],
                   lambda c, t: (t["scale"] * c).abs()),
    "logisticnormal": ("LogisticNormal", dict(loc=[0.5, -1.0], scale=[1.0, 0.3]),
                       lambda y, p: (np.log(y[..., :-1]) - np.log(1 - np.cumsum(
                           y[..., :-1], -1)) + np.log([2.0, 1.0]) - p["loc"]) / p["scale"],
                       lambda e, t: TT.StickBreakingTransform()(t["loc"] + t["scale"] * e)),
    "genpareto": ("GeneralizedPareto", dict(loc=[0.0, 1.0], scale=[1.0, 2.0],
                                            concentration=[0.3, -0.2]),
                  lambda y, p: 1 - (1 + p["concentration"] * (y - p["loc"]) / p["scale"])
                  ** (-1 / p["concentration"]),
                  lambda u, t: TD.GeneralizedPareto(t["loc"], t["scale"],
                                                    t["concentration"]).icdf(u)),
    "cb": ("ContinuousBernoulli", dict(probs=[0.2, 0.9]),
           lambda y, p: (p["probs"] ** y * (1 - p["probs"]) ** (1 - y) + p["probs"] - 1)
           / (2 * p["probs"] - 1),
           lambda u, t: TD.ContinuousBernoulli(probs=t["probs"]).icdf(u)),
}


@pytest.mark.parametrize("name", list(SAME_NOISE))
def test_rsample_gradients_match_torch_on_the_same_noise(name):
    cls, params, noise, torch_draw = SAME_NOISE[name]
    leaves = {k: _p(v, grad=True) for k, v in params.items()}
    pyad.manual_seed(17)
    y = getattr(D, cls)(**leaves).rsample((50,))
    base = noise(np.asarray(y.data), {k: np.asarray(v) for k, v in params.items()})
    tleaves = {k: _t(v, grad=True) for k, v in params.items()}
    ty = torch_draw(torch.tensor(base), tleaves)
    np.testing.assert_allclose(y.data, ty.detach().numpy(), rtol=1e-9, atol=1e-12)
    w = np.linspace(-1.0, 2.0, int(np.prod(y.shape))).reshape(y.shape)
    grads = pyad.autograd.grad((y * pyad.tensor(w)).sum(), list(leaves.values()))
    tgrads = torch.autograd.grad((ty * torch.tensor(w)).sum(), list(tleaves.values()))
    for g, tg in zip(grads, tgrads):
        np.testing.assert_allclose(g.data, tg.numpy(), rtol=1e-8, atol=1e-12)


@pytest.mark.parametrize("cls,args,kwargs,value", [
    ("Gamma", (2.0, 3.0), {}, 0.5), ("Chi2", (3.0,), {}, 0.5),
    ("InverseGamma", (2.0, 3.0), {}, 0.5), ("FisherSnedecor", (2.0, 5.0), {}, 0.5),
    ("Pareto", (1.0, 2.0), {}, 2.0), ("Weibull", (1.0, 2.0), {}, 0.5),
    ("Kumaraswamy", (2.0, 3.0), {}, 0.5), ("GeneralizedPareto", (0.0, 1.0, 0.2), {}, 0.5),
    ("HalfCauchy", (1.0,), {}, 0.5), ("LKJCholesky", (3,), {}, None),
])
@pytest.mark.parametrize("dtype", ["float32"])          # numbers: the default dtype
def test_number_parameters_sample_and_score_as_torch(cls, args, kwargs, value, dtype):
    # 0-d parameters (Python numbers): a sample() of shape () (the gamma sampler used to
    # fail on 0-d concentrations) and torch's log_prob
    ours, theirs = getattr(D, cls)(*args, **kwargs), getattr(TD, cls)(*args, **kwargs)
    assert ours.batch_shape == tuple(theirs.batch_shape)
    assert ours.sample().shape == tuple(theirs.sample().shape)
    assert ours.sample((3,)).shape == tuple(theirs.sample((3,)).shape)
    if theirs.has_rsample:
        assert ours.rsample().shape == tuple(theirs.rsample().shape)
    v, tv = (pyad.eye(3), torch.eye(3)) if value is None else (pyad.tensor(value),
                                                               torch.tensor(value))
    _close(ours.log_prob(v), theirs.log_prob(tv), "float32")


@pytest.mark.parametrize("dtype", ["float32"])
def test_negative_binomial_with_number_total_count_samples_as_torch(dtype):
    ours = D.NegativeBinomial(3.0, probs=pyad.tensor(0.3))
    theirs = TD.NegativeBinomial(3.0, probs=torch.tensor(0.3))
    assert ours.sample().shape == tuple(theirs.sample().shape) == ()
    _close(ours.log_prob(pyad.tensor(2.0)), theirs.log_prob(torch.tensor(2.0)), "float32")



C_OURS, C_THEIRS = D.constraints, TD.constraints


def _constraint_cases(C):
    return {
        "real": (C.real, (3,)), "real_vector": (C.real_vector, (2, 3)),
        "positive": (C.positive, (3,)), "nonnegative": (C.nonnegative, (3,)),
        "greater_than": (C.greater_than(2.0), (3,)),
        "greater_than_eq": (C.greater_than_eq(-1.0), (3,)),
        "less_than": (C.less_than(3.0), (3,)), "interval": (C.interval(-1.0, 2.0), (3,)),
        "half_open_interval": (C.half_open_interval(0.5, 1.5), (3,)),
        "unit_interval": (C.unit_interval, (3,)), "simplex": (C.simplex, (2, 3)),
        "lower_cholesky": (C.lower_cholesky, (2, 3, 3)),
        "positive_definite": (C.positive_definite, (2, 3, 3)),
        "corr_cholesky": (C.corr_cholesky, (2, 3)),
        "cat": (C.cat([C.positive, C.interval(0.0, 2.0)], 1, [2, 1]), (2, 3)),
        "stack": (C.stack([C.real, C.positive, C.less_than(1.0)], 1), (2, 3)),
        "boolean": (C.boolean, (3,)),
    }


@pytest.mark.parametrize("registry", ["biject_to", "transform_to"])
@pytest.mark.parametrize("name", list(_constraint_cases(C_OURS)))
def test_biject_to_and_transform_to_match_torch(name, registry):
    ours_c, shape = _constraint_cases(C_OURS)[name]
    theirs_c, _ = _constraint_cases(C_THEIRS)[name]
    has, theirs = _torch_has(lambda: getattr(TD, registry)(theirs_c))
    if not has:
        with pytest.raises(NotImplementedError, match="Cannot transform"):
            getattr(D, registry)(ours_c)
        return
    ours = getattr(D, registry)(ours_c)
    assert type(ours).__name__ == type(theirs).__name__
    x = np.random.RandomState(1).randn(*shape) * 0.8
    y, ty = ours(_p(x)), theirs(_t(x))
    _close(y, ty, rtol=1e-11, atol=1e-12)
    assert bool(ours_c.check(y).all())
    if registry == "biject_to":
        _close(ours.log_abs_det_jacobian(_p(x), y), theirs.log_abs_det_jacobian(_t(x), ty),
               rtol=1e-11, atol=1e-12)
        _close(ours.inv(y), theirs.inv(ty), rtol=1e-8, atol=1e-9)


def test_constraint_registry_register_as_torch():
    reg = D.constraint_registry.ConstraintRegistry()
    reg.register(C_OURS.positive, lambda c: T.SoftplusTransform())
    assert isinstance(reg(C_OURS.greater_than(0.0)), T.SoftplusTransform)
    with pytest.raises(TypeError):
        reg.register(3, lambda c: None)
    with pytest.raises(TypeError):
        TD.constraint_registry.ConstraintRegistry().register(3, lambda c: None)
