"""pyad.distributions against torch.distributions on the same parameters: densities,
entropies, moments, KL divergences, shapes, validation; samples by their statistics
(the generators differ); gradients by gradcheck and against torch."""
import numpy as np
import pytest

import pyad
import pyad.distributions as D
from pyad.autograd import gradcheck, gradgradcheck

torch = pytest.importorskip("torch")
TD = torch.distributions


def _p(a, grad=False):
    return pyad.tensor(np.asarray(a, dtype=np.float64), requires_grad=grad)


def _t(a, grad=False):
    return torch.tensor(np.asarray(a, dtype=np.float64), requires_grad=grad)


def _same(ours, theirs, rtol=1e-12):
    assert tuple(ours.shape) == tuple(theirs.shape)
    np.testing.assert_allclose(ours.data, theirs.detach().numpy(), rtol=rtol, atol=1e-14)


LOC, SCALE = [0.0, 1.0, -2.0], [1.0, 2.0, 0.5]
VALUES = [0.3, -1.0, 4.0]
PROBS = [[0.1, 0.2, 0.7], [0.5, 0.5, 0.0]]
LOGITS = [1.0, -2.0, 0.5]


def _pair(name):
    """The same distribution in pyad and torch, the values to score, and the parameter
    leaves (with gradients) of each."""
    spec = {
        "normal": ("Normal", dict(loc=LOC, scale=SCALE), VALUES),
        "uniform": ("Uniform", dict(low=[0.0, 1.0], high=[2.0, 5.0]), [1.0, 4.5]),
        "bernoulli_probs": ("Bernoulli", dict(probs=[0.2, 0.9, 0.5]), [1.0, 0.0, 1.0]),
        "bernoulli_logits": ("Bernoulli", dict(logits=[0.2, -3.0, 40.0]), [1.0, 0.0, 0.0]),
        "categorical_probs": ("Categorical", dict(probs=PROBS), [2, 1]),
        "categorical_logits": ("Categorical", dict(logits=LOGITS), [[0], [2]]),
    }[name]
    cls, params, values = spec
    ours_params = {k: _p(v, True) for k, v in params.items()}
    theirs_params = {k: _t(v, True) for k, v in params.items()}
    return (getattr(D, cls)(**ours_params), getattr(TD, cls)(**theirs_params), values,
            list(ours_params.values()), list(theirs_params.values()))


NAMES = ["normal", "uniform", "bernoulli_probs", "bernoulli_logits", "categorical_probs",
         "categorical_logits"]


@pytest.mark.parametrize("name", NAMES)
def test_log_prob_entropy_and_moments_match_torch(name):
    ours, theirs, values, params, tparams = _pair(name)
    assert ours.batch_shape == tuple(theirs.batch_shape)
    assert ours.event_shape == tuple(theirs.event_shape)
    assert ours.has_rsample == theirs.has_rsample
    as_value = (lambda v: pyad.tensor(v)) if "categorical" in name else _p
    as_tvalue = (lambda v: torch.tensor(v)) if "categorical" in name else _t
    _same(ours.log_prob(as_value(values)), theirs.log_prob(as_tvalue(values)))
    _same(ours.entropy(), theirs.entropy())
    for moment in ("mean", "variance", "stddev", "mode"):
        _same(getattr(ours, moment), getattr(theirs, moment))
    # gradients of log_prob + entropy with respect to the parameters
    lp = ours.log_prob(as_value(values)).sum() + ours.entropy().sum()
    tlp = theirs.log_prob(as_tvalue(values)).sum() + theirs.entropy().sum()
    for g, tg in zip(pyad.autograd.grad(lp, params), torch.autograd.grad(tlp, tparams)):
        np.testing.assert_allclose(g.data, tg.numpy(), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("name", ["normal", "uniform"])
def test_cdf_matches_torch(name):
    ours, theirs, values, _, _ = _pair(name)
    _same(ours.cdf(_p(values)), theirs.cdf(_t(values)))


def test_derived_parameters_match_torch():
    _same(D.Categorical(probs=_p(PROBS)).logits, TD.Categorical(probs=_t(PROBS)).logits)
    _same(D.Categorical(logits=_p(LOGITS)).probs, TD.Categorical(logits=_t(LOGITS)).probs)
    _same(D.Bernoulli(probs=_p([0.0, 0.3, 1.0])).logits,
          TD.Bernoulli(probs=_t([0.0, 0.3, 1.0])).logits)
    _same(D.Bernoulli(logits=_p([-2.0, 0.0, 5.0])).probs,
          TD.Bernoulli(logits=_t([-2.0, 0.0, 5.0])).probs)


@pytest.mark.parametrize("pair", ["normal", "categorical", "bernoulli", "uniform"])
def test_kl_divergence_matches_torch(pair):
    if pair == "normal":
        args = [(D.Normal, TD.Normal, (LOC, SCALE), (1.0, 3.0))]
    elif pair == "categorical":
        args = [(D.Categorical, TD.Categorical, dict(probs=PROBS), dict(logits=[0.0, 1.0, 2.0])),
                (D.Categorical, TD.Categorical, dict(probs=[[0.5, 0.5, 0.0]]),
                 dict(probs=[[0.2, 0.0, 0.8]]))]
    elif pair == "bernoulli":
        args = [(D.Bernoulli, TD.Bernoulli, dict(probs=[0.2, 0.9, 0.0, 1.0]),
                 dict(logits=[0.2, -3.0, 1.0, 1.0])),
                (D.Bernoulli, TD.Bernoulli, dict(probs=[0.5, 0.5]), dict(probs=[0.0, 1.0]))]
    else:
        args = [(D.Uniform, TD.Uniform, (0.0, 1.0), (-1.0, 2.0)),
                (D.Uniform, TD.Uniform, (0.0, 1.0), (0.5, 2.0))]
    for ours_type, theirs_type, pa, qa in args:
        def make(cls, conv, a):
            if isinstance(a, dict):
                return cls(**{k: conv(v) for k, v in a.items()})
            return cls(*[conv(v) for v in a])
        ours = D.kl_divergence(make(ours_type, _p, pa), make(ours_type, _p, qa))
        theirs = TD.kl_divergence(make(theirs_type, _t, pa), make(theirs_type, _t, qa))
        _same(ours, theirs)


def test_kl_of_unregistered_pair_raises():
    # Normal || Uniform is registered (inf, as torch); Normal || Bernoulli is not, in either
    with pytest.raises(NotImplementedError):
        TD.kl_divergence(TD.Normal(0.0, 1.0), TD.Bernoulli(0.5))
    # both are exponential families: torch's Bregman fallback refuses two different ones
    with pytest.raises(NotImplementedError, match="cross KL"):
        D.kl_divergence(D.Normal(0.0, 1.0), D.Bernoulli(0.5))
    with pytest.raises(NotImplementedError, match="No KL"):
        D.kl_divergence(D.Normal(0.0, 1.0), D.Categorical(pyad.tensor([0.5, 0.5])))


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("sample_shape", [(), (5,), (2, 3)])
def test_sample_shapes_and_dtypes_match_torch(name, sample_shape):
    ours, theirs, _, _, _ = _pair(name)
    s, ts = ours.sample(sample_shape), theirs.sample(sample_shape)
    assert s.shape == tuple(ts.shape)
    assert str(s.dtype) == str(ts.dtype).replace("torch.", "")
    assert not s.requires_grad
    if ours.has_rsample:
        r = ours.rsample(sample_shape)
        assert r.shape == tuple(theirs.rsample(sample_shape).shape) and r.requires_grad


def test_samples_follow_the_distribution_and_the_seed():
    pyad.manual_seed(3)
    n = 200000
    normal = D.Normal(_p([1.0, -2.0]), _p([0.5, 3.0])).sample((n,)).data
    np.testing.assert_allclose(normal.mean(0), [1.0, -2.0], atol=0.03)
    np.testing.assert_allclose(normal.std(0), [0.5, 3.0], rtol=0.02)
    uniform = D.Uniform(_p(2.0), _p(5.0)).sample((n,)).data
    assert uniform.min() >= 2.0 and uniform.max() < 5.0 and abs(uniform.mean() - 3.5) < 0.02
    bern = D.Bernoulli(probs=_p([0.2, 0.9])).sample((n,)).data
    assert set(np.unique(bern)) <= {0.0, 1.0}
    np.testing.assert_allclose(bern.mean(0), [0.2, 0.9], atol=0.01)
    cat = D.Categorical(probs=_p(PROBS)).sample((n,)).data
    for row, probs in enumerate(PROBS):
        freq = np.bincount(cat[:, row], minlength=3) / n
        np.testing.assert_allclose(freq, probs, atol=0.01)
    pyad.manual_seed(7)
    a = D.Normal(0.0, 1.0).sample((4,)).data
    pyad.manual_seed(7)
    np.testing.assert_array_equal(a, D.Normal(0.0, 1.0).sample((4,)).data)


def test_rsample_is_differentiable_in_the_parameters():
    mu, sigma = _p([0.5], True), _p([2.0], True)
    pyad.manual_seed(0)
    z = D.Normal(mu, sigma).rsample((1000,))
    z.sum().backward()
    eps = (z.data - 0.5) / 2.0                      # the standard normal draws behind z
    np.testing.assert_allclose(mu.grad.data, [1000.0])
    np.testing.assert_allclose(sigma.grad.data, [eps.sum()], rtol=1e-10)
    low, high = _p(1.0, True), _p(3.0, True)
    u = D.Uniform(low, high).rsample((100,))
    u.sum().backward()
    frac = (u.data - 1.0) / 2.0
    np.testing.assert_allclose([low.grad.item(), high.grad.item()],
                               [(1 - frac).sum(), frac.sum()], rtol=1e-10)


def test_log_probs_pass_gradcheck_and_gradgradcheck():
    loc, scale = _p(LOC, True), _p(SCALE, True)
    assert gradcheck(lambda a, b: D.Normal(a, b).log_prob(_p(VALUES)), (loc, scale))
    assert gradgradcheck(lambda a, b: D.Normal(a, b).log_prob(_p(VALUES)), (loc, scale))
    logits = _p([[1.0, -1.0, 0.5], [0.0, 2.0, -3.0]], True)
    assert gradcheck(lambda x: D.Categorical(logits=x).log_prob(pyad.tensor([0, 2])), (logits,))
    assert gradgradcheck(lambda x: D.Categorical(logits=x).entropy(), (logits,))
    probs = _p([0.2, 0.7], True)
    assert gradcheck(lambda p: D.Bernoulli(probs=p).entropy(), (probs,))


def test_validation_as_torch():
    for bad in (lambda: TD.Normal(0.0, -1.0), lambda: TD.Uniform(1.0, 0.0),
                lambda: TD.Bernoulli(probs=_t(1.5)),
                lambda: TD.Categorical(probs=_t([-0.1, 1.1])),
                lambda: TD.Bernoulli(probs=_t(0.5)).log_prob(_t(0.5)),
                lambda: TD.Categorical(probs=_t([0.5, 0.5])).log_prob(torch.tensor(2))):
        with pytest.raises(ValueError):
            bad()
    with pytest.raises(ValueError, match="Expected parameter scale .*GreaterThan"):
        D.Normal(0.0, -1.0)
    with pytest.raises(ValueError, match="Expected parameter low"):
        D.Uniform(1.0, 0.0)
    with pytest.raises(ValueError, match="Expected parameter probs"):
        D.Bernoulli(probs=_p(1.5))
    with pytest.raises(ValueError, match="Expected parameter probs"):
        D.Categorical(probs=_p([-0.1, 1.1]))
    with pytest.raises(ValueError, match="Either `probs` or `logits`"):
        D.Categorical(probs=_p([0.5, 0.5]), logits=_p([0.0, 0.0]))
    with pytest.raises(ValueError, match="within the support"):
        D.Bernoulli(probs=_p(0.5)).log_prob(_p(0.5))
    with pytest.raises(ValueError, match="within the support"):
        D.Categorical(probs=_p([0.5, 0.5])).log_prob(pyad.tensor(2))
    assert D.Normal(0.0, -1.0, validate_args=False).scale.item() == -1.0
    try:
        D.Distribution.set_default_validate_args(False)
        D.Normal(0.0, -1.0)
    finally:
        D.Distribution.set_default_validate_args(True)


def test_repr_matches_torch():
    assert repr(D.Normal(0.0, 1.0)) == repr(TD.Normal(0.0, 1.0))
    assert repr(D.Categorical(probs=_p([0.5, 0.5]))) == \
        repr(TD.Categorical(probs=_t([0.5, 0.5]))).replace("torch.Size([2])", "(2,)")


def test_reinforce_script_pattern_runs():
    # pytorch/examples reinforcement_learning/reinforce.py, its policy-gradient step
    pyad.manual_seed(0)
    policy = pyad.nn.Sequential(pyad.nn.Linear(4, 16), pyad.nn.ReLU(), pyad.nn.Linear(16, 2),
                                pyad.nn.Softmax(dim=1))
    opt = pyad.optim.Adam(policy.parameters(), lr=1e-2)
    log_probs = []
    for _ in range(5):
        probs = policy(pyad.randn(1, 4))
        m = D.Categorical(probs)
        action = m.sample()
        log_probs.append(m.log_prob(action))
    returns = pyad.tensor([1.0, 0.5, -0.2, 0.3, 0.9])
    loss = pyad.cat([-lp * r for lp, r in zip(log_probs, returns)]).sum()
    opt.zero_grad()
    loss.backward()
    assert all(p.grad is not None and np.isfinite(p.grad.data).all()
               for p in policy.parameters())
    opt.step()
