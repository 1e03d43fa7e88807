"""Tests ported from pytorch/pytorch test/distributions/test_distributions.py (the test
names are torch's), for the families pyad.distributions has, checked against torch 2.13
on the same parameters. Random draws come from different generators, so draws are
compared by shapes, supports and statistics, never by value."""
import math

import numpy as np
import pytest

import pyad
import pyad.distributions as D
from pyad.distributions import kl_divergence

torch = pytest.importorskip("torch")
TD = torch.distributions


def _p(a, grad=False, dtype=np.float64):
    return pyad.tensor(np.asarray(a, dtype=dtype), requires_grad=grad)


def _t(a, grad=False, dtype=np.float64):
    return torch.tensor(np.asarray(a, dtype=dtype), requires_grad=grad)


def _close(ours, theirs, rtol=1e-12, atol=1e-13):
    theirs = theirs.detach() if isinstance(theirs, torch.Tensor) else torch.as_tensor(theirs)
    assert tuple(ours.shape) == tuple(theirs.shape)
    np.testing.assert_allclose(np.asarray(ours.data), theirs.numpy(), rtol=rtol, atol=atol)


def _np(x):
    return np.asarray(x.data if hasattr(x, "data") else x)


# the examples both libraries are built from (torch's EXAMPLES, for pyad's families)
EXAMPLES = [
    ("Bernoulli", [dict(probs=[0.7, 0.2, 0.4]), dict(probs=[0.3]), dict(logits=[0.0])]),
    ("Geometric", [dict(probs=[0.7, 0.2, 0.4]), dict(probs=[0.3]), dict(logits=[-0.5])]),
    ("Binomial", [dict(probs=[[0.1, 0.2, 0.3], [0.5, 0.3, 0.2]], total_count=10),
                  dict(probs=[[0.9, 0.0], [0.0, 0.9]], total_count=[[10.0], [8.0]])]),
    ("Categorical", [dict(probs=[[0.1, 0.2, 0.3], [0.5, 0.3, 0.2]]),
                     dict(probs=[[1.0, 0.0], [0.0, 1.0]]), dict(logits=[[0.0, 0.0], [0.0, 0.0]])]),
    ("OneHotCategorical", [dict(probs=[[0.1, 0.2, 0.3], [0.5, 0.3, 0.2]]),
                           dict(logits=[[0.0, 0.0], [0.0, 0.0]])]),
    ("Poisson", [dict(rate=[0.1, 0.2, 4.0]), dict(rate=[[1.5], [3.0]])]),
    ("Uniform", [dict(low=[-1.0, 0.5], high=[1.0, 2.0]), dict(low=[[0.0]], high=[[1.5]])]),
    ("Normal", [dict(loc=[0.7, -0.3], scale=[1.3, 0.2]), dict(loc=[[1.0], [-1.0]],
                                                             scale=[[0.5], [2.0]])]),
    ("LogNormal", [dict(loc=[0.2, -1.0], scale=[0.5, 1.5])]),
    ("HalfNormal", [dict(scale=[0.5, 1.5, 3.0])]),
    ("Exponential", [dict(rate=[0.3, 1.0, 2.5])]),
    ("Laplace", [dict(loc=[0.7, -0.3], scale=[1.3, 0.2])]),
    ("Cauchy", [dict(loc=[0.0, 1.0], scale=[1.0, 0.3])]),
    ("Gumbel", [dict(loc=[0.5, -1.0], scale=[1.0, 2.0])]),
    ("Gamma", [dict(concentration=[0.5, 2.0, 5.0], rate=[1.0, 0.5, 3.0])]),
    ("Chi2", [dict(df=[0.8, 2.0, 7.0])]),
    ("StudentT", [dict(df=[2.5, 5.0], loc=[0.0, 1.0], scale=[1.0, 2.0])]),
    ("Beta", [dict(concentration1=[0.5, 2.0], concentration0=[1.5, 3.0])]),
    ("Dirichlet", [dict(concentration=[[0.5, 2.0, 1.0], [3.0, 1.5, 4.0]])]),
    ("MultivariateNormal", [dict(loc=[[0.0, 1.0], [-1.0, 0.5]],
                                 covariance_matrix=[[2.0, 0.5], [0.5, 1.0]])]),
]
INT_PARAMS = {"total_count"}


def _pair(cls, params, grad=False):
    ours = {k: (_p(v, grad and k not in INT_PARAMS) if not (k in INT_PARAMS and
                                                             np.ndim(v) == 0) else v)
            for k, v in params.items()}
    theirs = {k: (_t(v, grad and k not in INT_PARAMS) if not (k in INT_PARAMS and
                                                               np.ndim(v) == 0) else v)
              for k, v in params.items()}
    return getattr(D, cls)(**ours), getattr(TD, cls)(**theirs), ours, theirs


ALL = [(cls, i, params) for cls, ps in EXAMPLES for i, params in enumerate(ps)]
ALL_IDS = ["%s-%d" % (c, i) for c, i, _ in ALL]


# ---------------------------------------------------------------- TestDistributions

@pytest.mark.parametrize("cls,i,params", ALL, ids=ALL_IDS)
def test_support_attributes(cls, i, params):
    ours, theirs, _, _ = _pair(cls, params)
    assert ours.support.is_discrete == theirs.support.is_discrete
    assert ours.support.event_dim == theirs.support.event_dim
    assert ours.has_rsample == theirs.has_rsample
    assert ours.has_enumerate_support == theirs.has_enumerate_support


@pytest.mark.parametrize("cls,i,params", [a for a in ALL if
                                          getattr(TD, a[0]).has_enumerate_support],
                         ids=[x for a, x in zip(ALL, ALL_IDS)
                              if getattr(TD, a[0]).has_enumerate_support])
def test_enumerate_support_type(cls, i, params):
    # torch: enumerate_support() has the dtype (and the shape's tail) of sample()
    ours, theirs, _, _ = _pair(cls, params)
    try:
        theirs.enumerate_support()
    except NotImplementedError as e:
        # torch: a Binomial with several total counts has no enumerate_support
        with pytest.raises(NotImplementedError) as ours_e:
            ours.enumerate_support()
        assert str(ours_e.value) == str(e)
        return
    s = ours.enumerate_support()
    assert np.dtype(s.dtype) == np.dtype(ours.sample().dtype)
    _close(s, theirs.enumerate_support(), 0, 0)
    _close(ours.enumerate_support(expand=False), theirs.enumerate_support(expand=False), 0, 0)


@pytest.mark.parametrize("cls,i,params", ALL, ids=ALL_IDS)
def test_distribution_expand(cls, i, params):
    shapes = [(), (2,), (2, 1)]
    ours, theirs, _, _ = _pair(cls, params)
    for shape in shapes:
        expanded_shape = shape + tuple(ours.batch_shape)
        ours_e = ours.expand(expanded_shape)
        theirs_e = theirs.expand(torch.Size(expanded_shape))
        assert tuple(ours_e.batch_shape) == tuple(theirs_e.batch_shape)
        assert tuple(ours_e.event_shape) == tuple(theirs_e.event_shape)
        sample = theirs_e.sample()
        assert tuple(ours_e.sample().shape) == tuple(sample.shape)
        _close(ours_e.log_prob(_p(sample.numpy())), theirs_e.log_prob(sample), 1e-12, 1e-12)
        ours_sample = ours.sample()
        assert tuple(ours_sample.shape) == tuple(theirs.sample().shape)


@pytest.mark.parametrize("cls,i,params", ALL, ids=ALL_IDS)
def test_rsample_requires_grad(cls, i, params):
    ours, _, ours_params, _ = _pair(cls, params, grad=True)
    if not ours.has_rsample:
        with pytest.raises(NotImplementedError):
            ours.rsample()
        return
    assert ours.rsample().requires_grad


@pytest.mark.parametrize("cls,i,params", ALL, ids=ALL_IDS)
def test_params_constraints_and_support_constraints(cls, i, params):
    # TestConstraints.test_params_constraints / test_support_constraints
    ours, theirs, ours_params, _ = _pair(cls, params)
    for name, constraint in ours.arg_constraints.items():
        if name not in ours_params or not hasattr(ours_params[name], "shape"):
            continue
        assert bool(pyad.as_tensor(constraint.check(getattr(ours, name))).all())
    value = ours.sample((3,))
    assert bool(pyad.as_tensor(ours.support.check(value)).all())
    # and torch's support agrees that pyad's draws lie in it
    assert bool(theirs.support.check(torch.from_numpy(_np(value).copy())).all())


def test_bernoulli():
    p = _p([0.7, 0.2, 0.4], grad=True)
    r = _p(0.3, grad=True)
    s = 0.3
    assert D.Bernoulli(p).sample((8,)).shape == (8, 3)
    assert not D.Bernoulli(p).sample().requires_grad
    assert D.Bernoulli(r).sample((8,)).shape == (8,)
    assert D.Bernoulli(r).sample().shape == ()
    assert D.Bernoulli(r).sample((3, 2)).shape == (3, 2)
    assert D.Bernoulli(s).sample().shape == ()
    _close(D.Bernoulli(p).entropy(), torch.tensor([0.6108, 0.5004, 0.6730],
                                                     dtype=torch.float64), 0, 1e-4)
    assert float(D.Bernoulli(_p([0.0])).entropy().data[0]) == 0.0
    assert abs(float(D.Bernoulli(s).entropy().data) - 0.6108) < 1e-4
    for prob in (0.0, 0.3, 1.0):
        for val in (0.0, 1.0):
            _close(D.Bernoulli(_p(prob)).log_prob(_p(val)),
                   TD.Bernoulli(_t(prob)).log_prob(_t(val)), 1e-12, 1e-12)
    # the gradient of log_prob, against torch's
    value = [1.0, 0.0, 1.0]
    D.Bernoulli(p).log_prob(_p(value)).sum().backward()
    tp = _t([0.7, 0.2, 0.4], grad=True)
    TD.Bernoulli(tp).log_prob(_t(value)).sum().backward()
    _close(p.grad, tp.grad)


def test_bernoulli_enumerate_support():
    examples = [
        ({"probs": [0.1]}, [[0.0], [1.0]]),
        ({"probs": [0.1, 0.9]}, [[0.0], [1.0]]),
        ({"probs": [[0.1, 0.2], [0.3, 0.4]]}, [[[0.0]], [[1.0]]]),
    ]
    for param, expected in examples:
        d = D.Bernoulli(**{k: _p(v) for k, v in param.items()})
        assert _np(d.enumerate_support(expand=False)).tolist() == expected
        full = np.broadcast_to(np.asarray(expected), (2,) + tuple(d.batch_shape))
        assert _np(d.enumerate_support()).tolist() == full.tolist()


def test_bernoulli_3d():
    p = _p(np.full((2, 3, 5), 0.5), grad=True)
    assert D.Bernoulli(p).sample().shape == (2, 3, 5)
    assert D.Bernoulli(p).sample((2, 5)).shape == (2, 5, 2, 3, 5)
    assert D.Bernoulli(p).sample((2,)).shape == (2, 2, 3, 5)


def test_geometric():
    p = _p([0.7, 0.2, 0.4], grad=True)
    r = _p(0.3, grad=True)
    s = 0.3
    assert D.Geometric(p).sample((8,)).shape == (8, 3)
    assert float(D.Geometric(1).sample().data) == 0.0
    assert float(D.Geometric(1).log_prob(_p(1.0)).data) == -math.inf
    assert float(D.Geometric(1).log_prob(_p(0.0)).data) == 0.0
    assert not D.Geometric(p).sample().requires_grad
    assert D.Geometric(r).sample((8,)).shape == (8,)
    assert D.Geometric(r).sample().shape == ()
    assert D.Geometric(r).sample((3, 2)).shape == (3, 2)
    assert D.Geometric(s).sample().shape == ()
    with pytest.raises(ValueError) as ours:
        D.Geometric(0, validate_args=True)
    with pytest.raises(ValueError) as theirs:
        TD.Geometric(0, validate_args=True)
    assert str(ours.value).split("(")[0] == str(theirs.value).split("(")[0]


def test_geometric_log_prob_and_entropy():
    probs = [0.7, 0.2, 0.4]
    for kind in ("probs", "logits"):
        vals = probs if kind == "probs" else [math.log(q / (1 - q)) for q in probs]
        ours = D.Geometric(**{kind: _p(vals)})
        theirs = TD.Geometric(**{kind: _t(vals)})
        x = [0.0, 3.0, 10.0]
        _close(ours.log_prob(_p(x)), theirs.log_prob(_t(x)), 1e-12, 1e-12)
        _close(ours.entropy(), theirs.entropy(), 1e-12, 1e-12)


def test_binomial():
    p = _p([0.1, 0.2, 0.3], grad=True)
    for total_count in (1, 10):
        ours, theirs = D.Binomial(total_count, p), TD.Binomial(total_count,
                                                               _t([0.1, 0.2, 0.3]))
        x = theirs.sample((5,))
        _close(ours.log_prob(_p(x.numpy())), theirs.log_prob(x), 1e-12, 1e-12)
        _close(ours.entropy(), theirs.entropy(), 1e-12, 1e-12)
    ours = D.Binomial(10, p)
    assert ours.sample((8,)).shape == (8, 3)
    # the gradient of log_prob in probs, against torch
    tp = _t([0.1, 0.2, 0.3], grad=True)
    x = [2.0, 0.0, 10.0]
    D.Binomial(10, p).log_prob(_p(x)).sum().backward()
    TD.Binomial(10, tp).log_prob(_t(x)).sum().backward()
    _close(p.grad, tp.grad, 1e-12, 1e-12)


def test_binomial_sample():
    pyad.manual_seed(0)
    for prob in (0.01, 0.18, 0.8):
        for count in (2, 10, 100, 500):
            s = _np(D.Binomial(total_count=count, probs=_p(prob)).sample((20000,)))
            assert abs(s.mean() - count * prob) < 5 * math.sqrt(
                count * prob * (1 - prob) / 20000) + 1e-12
            assert s.min() >= 0 and s.max() <= count


def test_binomial_log_prob_and_entropy():
    probs = [0.1, 0.2, 0.3]
    for kind in ("probs", "logits"):
        vals = probs if kind == "probs" else [math.log(q / (1 - q)) for q in probs]
        ours = D.Binomial(10, **{kind: _p(vals)})
        theirs = TD.Binomial(10, **{kind: _t(vals)})
        x = [0.0, 4.0, 10.0]
        _close(ours.log_prob(_p(x)), theirs.log_prob(_t(x)), 1e-12, 1e-12)
        _close(ours.entropy(), theirs.entropy(), 1e-12, 1e-12)


def test_binomial_stable():
    logits = [-100.0, 100.0]
    total_count = 1.0
    x = [0.0, 0.0]
    ours = D.Binomial(total_count, logits=_p(logits)).log_prob(_p(x))
    theirs = TD.Binomial(total_count, logits=_t(logits)).log_prob(_t(x))
    assert np.isfinite(_np(ours)).all()
    _close(ours, theirs, 1e-12, 1e-12)
    # gradient of log_prob at the extremes, finite as torch's
    lg = _p(logits, grad=True)
    D.Binomial(total_count, logits=lg).log_prob(_p(x)).sum().backward()
    tl = _t(logits, grad=True)
    TD.Binomial(total_count, logits=tl).log_prob(_t(x)).sum().backward()
    _close(lg.grad, tl.grad, 1e-12, 1e-12)


def test_binomial_log_prob_vectorized_count():
    probs = [0.2, 0.7, 0.9]
    for total_count, sample in [([10.0, 10.0, 10.0], [7.0, 3.0, 9.0]),
                                ([[10.0, 10.0, 10.0], [5.0, 7.0, 9.0]],
                                 [[7.0, 3.0, 9.0], [1.0, 4.0, 8.0]])]:
        ours = D.Binomial(_p(total_count), _p(probs)).log_prob(_p(sample))
        theirs = TD.Binomial(_t(total_count), _t(probs)).log_prob(_t(sample))
        _close(ours, theirs, 1e-12, 1e-12)


def test_binomial_enumerate_support():
    examples = [
        ({"probs": [0.1], "total_count": 2}, [[0.0], [1.0], [2.0]]),
        ({"probs": [0.1, 0.9], "total_count": 2}, [[0.0], [1.0], [2.0]]),
        ({"probs": [[0.1, 0.2], [0.3, 0.4]], "total_count": 3},
         [[[0.0]], [[1.0]], [[2.0]], [[3.0]]]),
    ]
    for param, expected in examples:
        d = D.Binomial(total_count=param["total_count"], probs=_p(param["probs"]))
        assert _np(d.enumerate_support(expand=False)).tolist() == expected


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_binomial_extreme_vals(dtype):
    total_count = 100
    tdt = getattr(torch, np.dtype(dtype).name)
    rtol = 1e-12 if dtype == np.float64 else 1e-6
    for prob, values in [(0.0, [0.0, 1.0]), (1.0, [100.0, 99.0])]:
        ours = D.Binomial(total_count, _p(prob, dtype=dtype))
        theirs = TD.Binomial(total_count, torch.tensor(prob, dtype=tdt))
        assert float(ours.sample().data) == prob * total_count
        for v in values:
            lp = ours.log_prob(_p(v, dtype=dtype))
            tlp = theirs.log_prob(torch.tensor(v, dtype=tdt))
            np.testing.assert_allclose(_np(lp), tlp.numpy(), rtol=rtol, atol=1e-12)
            # torch's assertions: log_prob is 0 (atol 1e-3) at the one value drawn, its
            # exp 0 next to it (float64: float32's clamp of probs to eps leaves 1e-5)
            if v == prob * total_count:
                assert abs(float(_np(lp))) <= 1e-3
            elif dtype == np.float64:
                assert float(_np(lp.exp())) == pytest.approx(0.0, abs=1e-5)
    zero_counts = D.Binomial(_p(0.0), _p(0.5))
    assert float(zero_counts.sample().data) == 0.0
    assert abs(float(zero_counts.log_prob(_p(0.0)).data)) < 1e-12


def test_poisson_log_prob():
    rate = _p([0.1, 0.2, 4.0], grad=True)
    rate_zero = _p(0.0, grad=True)
    trate = _t([0.1, 0.2, 4.0], grad=True)
    x = [0.0, 2.0, 7.0]
    ours = D.Poisson(rate).log_prob(_p(x))
    theirs = TD.Poisson(trate).log_prob(_t(x))
    _close(ours, theirs, 1e-12, 1e-12)
    ours.sum().backward()
    theirs.sum().backward()
    _close(rate.grad, trate.grad, 1e-12, 1e-12)
    # rate 0: log_prob(0) is 0, anything else -inf
    assert float(D.Poisson(rate_zero, validate_args=False).log_prob(_p(0.0)).data) == 0.0
    assert float(D.Poisson(rate_zero, validate_args=False).log_prob(_p(1.0)).data) == -math.inf


def test_poisson_shape():
    rate = _p([[0.1, 0.2], [4.0, 1.5]])
    d = D.Poisson(rate)
    assert d.batch_shape == (2, 2) and d.event_shape == ()
    assert d.sample().shape == (2, 2)
    assert d.sample((3, 2)).shape == (3, 2, 2, 2)
    assert d.log_prob(_p(np.ones((2, 2)))).shape == (2, 2)
    with pytest.raises((ValueError, RuntimeError)):
        d.log_prob(_p(np.ones((3, 3))))


def test_poisson_sample():
    pyad.manual_seed(0)
    for rate in (0.1, 1.0, 5.0, 50.0):
        s = _np(D.Poisson(_p(rate)).sample((20000,)))
        assert abs(s.mean() - rate) < 5 * math.sqrt(rate / 20000)
        assert abs(s.var() - rate) < 0.1 * rate + 0.02
        assert (s == np.floor(s)).all() and s.min() >= 0


def test_categorical_1d():
    p = _p([0.1, 0.2, 0.3], grad=True)
    d = D.Categorical(p)
    assert np.isnan(_np(d.mean)).all() and np.isnan(_np(d.variance)).all()
    assert d.sample().shape == ()
    assert not d.sample().requires_grad
    assert d.sample((2, 2)).shape == (2, 2)
    assert d.sample((1,)).shape == (1,)
    # the probabilities are normalised as torch's
    _close(d.probs, TD.Categorical(_t([0.1, 0.2, 0.3])).probs)


def test_categorical_2d():
    probabilities = [[0.1, 0.2, 0.3], [0.5, 0.3, 0.2]]
    probabilities_1 = [[1.0, 0.0], [0.0, 1.0]]
    p = _p(probabilities, grad=True)
    s = _p(probabilities_1, grad=True)
    d = D.Categorical(p)
    assert np.isnan(_np(d.mean)).all() and np.isnan(_np(d.variance)).all()
    assert d.sample().shape == (2,)
    assert d.sample((3, 4)).shape == (3, 4, 2)
    assert d.sample((6,)).shape == (6, 2)
    # sample check for extreme value of probs
    assert _np(D.Categorical(s).sample((2,))).tolist() == [[0, 1], [0, 1]]
    x = [[0.0, 0.0], [1.0, 1.0], [2.0, 1.0]]
    _close(d.log_prob(_p(x)), TD.Categorical(_t(probabilities)).log_prob(_t(x)), 1e-12,
           1e-12)
    # log_prob has the torch gradient
    d.log_prob(_p(x)).sum().backward()
    tp = _t(probabilities, grad=True)
    TD.Categorical(tp).log_prob(_t(x)).sum().backward()
    _close(p.grad, tp.grad, 1e-12, 1e-12)
    # the entropy
    _close(d.entropy(), TD.Categorical(_t(probabilities)).entropy(), 1e-12, 1e-12)
    _close(D.Categorical(_p(probabilities_1)).entropy(),
           TD.Categorical(_t(probabilities_1)).entropy(), 1e-12, 1e-12)


def test_categorical_enumerate_support():
    examples = [
        ({"probs": [0.1, 0.2, 0.7]}, [0, 1, 2]),
        ({"probs": [[0.1, 0.9], [0.3, 0.7]]}, [[0], [1]]),
    ]
    for param, expected in examples:
        d = D.Categorical(**{k: _p(v) for k, v in param.items()})
        assert _np(d.enumerate_support(expand=False)).tolist() == expected


def test_one_hot_categorical_1d():
    p = _p([0.1, 0.2, 0.3], grad=True)
    d = D.OneHotCategorical(p)
    assert d.sample().shape == (3,)
    assert not d.sample().requires_grad
    assert d.sample((2, 2)).shape == (2, 2, 3)
    assert d.sample((1,)).shape == (1, 3)
    s = _np(d.sample((100,)))
    assert (s.sum(-1) == 1).all() and set(np.unique(s)) <= {0.0, 1.0}
    _close(d.mean, TD.OneHotCategorical(_t([0.1, 0.2, 0.3])).mean, 1e-12, 1e-12)
    _close(d.variance, TD.OneHotCategorical(_t([0.1, 0.2, 0.3])).variance, 1e-12, 1e-12)


def test_one_hot_categorical_enumerate_support():
    examples = [
        ({"probs": [0.1, 0.2, 0.7]}, [[1, 0, 0], [0, 1, 0], [0, 0, 1]]),
        ({"probs": [[0.1, 0.2], [0.3, 0.4]]}, [[[1, 0]], [[0, 1]]]),
    ]
    for param, expected in examples:
        d = D.OneHotCategorical(**{k: _p(v) for k, v in param.items()})
        assert _np(d.enumerate_support(expand=False)).tolist() == expected


def test_uniform():
    low = _p(np.zeros((5, 5)), grad=True)
    high = _p(np.ones((5, 5)) * 3, grad=True)
    low_1d = _p([0.0], grad=True)
    high_1d = _p([3.0], grad=True)
    assert D.Uniform(low, high).sample().shape == (5, 5)
    assert D.Uniform(low, high).sample((7,)).shape == (7, 5, 5)
    assert D.Uniform(low_1d, high_1d).sample((1,)).shape == (1, 1)
    assert D.Uniform(low_1d, high_1d).sample().shape == (1,)
    assert D.Uniform(0.0, 1.0).sample((1,)).shape == (1,)
    # check log_prob computation when value outside range
    uniform = D.Uniform(low_1d, high_1d, validate_args=False)
    above_high = _p([4.0])
    below_low = _p([-1.0])
    assert float(uniform.log_prob(above_high).data[0]) == -math.inf
    assert float(uniform.log_prob(below_low).data[0]) == -math.inf
    # check cdf computation when value outside range
    assert float(uniform.cdf(below_low).data[0]) == 0.0
    assert float(uniform.cdf(above_high).data[0]) == 1.0
    # the reparameterisation gradient: d x/d low = 1 - u, d x/d high = u
    pyad.manual_seed(1)
    x = D.Uniform(low, high).rsample()
    x.backward(pyad.ones_like(x))
    u = (_np(x) - 0.0) / 3.0
    np.testing.assert_allclose(_np(low.grad), 1 - u, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(_np(high.grad), u, rtol=1e-12, atol=1e-12)


def _loc_scale_rsample_grads(cls, loc, scale, standardize):
    # the gradient of rsample in loc and scale at pyad's draw, by torch's formula:
    # x = loc + scale * eps, so dx/dloc = 1 and dx/dscale = eps = standardize(x)
    lp, sp = _p(loc, grad=True), _p(scale, grad=True)
    pyad.manual_seed(2)
    x = getattr(D, cls)(lp, sp).rsample((3,))
    x.sum().backward()
    eps = standardize(_np(x), np.asarray(loc), np.asarray(scale))
    np.testing.assert_allclose(_np(lp.grad), np.full(np.shape(loc), 3.0), rtol=1e-12)
    np.testing.assert_allclose(_np(sp.grad), eps.sum(0), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("cls", ["Normal", "Laplace", "Cauchy", "Gumbel"])
def test_normal(cls):
    # torch's test_normal/test_laplace/test_cauchy/test_gumbel: shapes, log_prob against
    # the reference and the rsample gradients
    loc = _p(np.random.RandomState(0).randn(5, 5), grad=True)
    scale = _p(np.random.RandomState(1).rand(5, 5) + 0.1, grad=True)
    loc_1d = _p([0.0], grad=True)
    scale_1d = _p([1.0], grad=True)
    ctor = getattr(D, cls)
    assert ctor(loc, scale).sample().shape == (5, 5)
    assert ctor(loc, scale).sample((7,)).shape == (7, 5, 5)
    assert ctor(loc_1d, scale_1d).sample((1,)).shape == (1, 1)
    assert ctor(loc_1d, scale_1d).sample().shape == (1,)
    assert ctor(0.2, 0.6).sample((1,)).shape == (1,)
    assert ctor(-0.7, 50.0).sample((1,)).shape == (1,)
    pyad.manual_seed(1)
    theirs = getattr(TD, cls)(_t(_np(loc)), _t(_np(scale)))
    x = theirs.sample()
    _close(ctor(loc, scale).log_prob(_p(x.numpy())), theirs.log_prob(x), 1e-12, 1e-12)
    _close(ctor(loc, scale).entropy(), theirs.entropy(), 1e-12, 1e-12)
    std = {"Normal": lambda x, m, s: (x - m) / s, "Laplace": lambda x, m, s: (x - m) / s,
           "Cauchy": lambda x, m, s: (x - m) / s, "Gumbel": lambda x, m, s: (x - m) / s}
    _loc_scale_rsample_grads(cls, [0.5, -1.0], [1.5, 0.3], std[cls])


def test_lognormal():
    mean = _p([0.2, -1.0], grad=True)
    std = _p([0.5, 1.5], grad=True)
    d = D.LogNormal(mean, std)
    assert d.sample().shape == (2,)
    assert d.sample((7,)).shape == (7, 2)
    assert D.LogNormal(0.2, 0.6).sample((1,)).shape == (1,)
    theirs = TD.LogNormal(_t([0.2, -1.0]), _t([0.5, 1.5]))
    x = theirs.sample((4,))
    _close(d.log_prob(_p(x.numpy())), theirs.log_prob(x), 1e-12, 1e-12)
    # rsample: x = exp(mean + std * eps): dx/dmean = x, dx/dstd = x * eps
    pyad.manual_seed(3)
    s = d.rsample()
    s.sum().backward()
    sx = _np(s)
    eps = (np.log(sx) - np.array([0.2, -1.0])) / np.array([0.5, 1.5])
    np.testing.assert_allclose(_np(mean.grad), sx, rtol=1e-12)
    np.testing.assert_allclose(_np(std.grad), sx * eps, rtol=1e-10, atol=1e-12)


def test_halfnormal():
    std = _p([0.5, 1.5, 3.0], grad=True)
    d = D.HalfNormal(std)
    assert d.sample().shape == (3,)
    assert d.sample((7,)).shape == (7, 3)
    assert D.HalfNormal(0.6).sample((1,)).shape == (1,)
    assert (_np(d.sample((100,))) >= 0).all()
    theirs = TD.HalfNormal(_t([0.5, 1.5, 3.0]))
    x = theirs.sample((4,))
    _close(d.log_prob(_p(x.numpy())), theirs.log_prob(x), 1e-12, 1e-12)
    # rsample: x = std * |eps|: dx/dstd = x / std
    pyad.manual_seed(4)
    s = d.rsample()
    s.sum().backward()
    np.testing.assert_allclose(_np(std.grad), _np(s) / np.array([0.5, 1.5, 3.0]), rtol=1e-12)


def test_exponential():
    rate = _p(np.random.RandomState(0).rand(5, 5) + 0.1, grad=True)
    rate_1d = _p([1.0], grad=True)
    assert D.Exponential(rate).sample().shape == (5, 5)
    assert D.Exponential(rate).sample((7,)).shape == (7, 5, 5)
    assert D.Exponential(rate_1d).sample((1,)).shape == (1, 1)
    assert D.Exponential(rate_1d).sample().shape == (1,)
    assert D.Exponential(0.2).sample((1,)).shape == (1,)
    assert D.Exponential(50.0).sample((1,)).shape == (1,)
    theirs = TD.Exponential(_t(_np(rate)))
    x = theirs.sample()
    _close(D.Exponential(rate).log_prob(_p(x.numpy())), theirs.log_prob(x), 1e-12, 1e-12)
    # rsample: x = eps / rate: dx/drate = -x / rate
    r = _p([0.5, 2.0], grad=True)
    pyad.manual_seed(5)
    s = D.Exponential(r).rsample()
    s.sum().backward()
    np.testing.assert_allclose(_np(r.grad), -_np(s) / np.array([0.5, 2.0]), rtol=1e-12)


@pytest.mark.parametrize("cls,params,batch", [
    ("Gamma", dict(concentration=np.exp(np.random.RandomState(0).randn(2, 3)),
                   rate=np.exp(np.random.RandomState(1).randn(2, 3))), (2, 3)),
    ("Chi2", dict(df=np.exp(np.random.RandomState(0).randn(2, 3))), (2, 3)),
    ("StudentT", dict(df=np.exp(np.random.RandomState(0).randn(2, 3))), (2, 3)),
    ("Beta", dict(concentration1=np.exp(np.random.RandomState(0).randn(2, 3)),
                  concentration0=np.exp(np.random.RandomState(1).randn(2, 3))), (2, 3)),
    ("Dirichlet", dict(concentration=np.exp(np.random.RandomState(0).randn(2, 3))), (2,)),
], ids=["test_gamma_shape", "test_chi2_shape", "test_studentT_shape", "test_beta_shape",
        "test_dirichlet_shape"])
def test_gamma_shape(cls, params, batch):
    ours = getattr(D, cls)(**{k: _p(v, grad=True) for k, v in params.items()})
    theirs = getattr(TD, cls)(**{k: _t(v) for k, v in params.items()})
    assert tuple(ours.batch_shape) == batch == tuple(theirs.batch_shape)
    assert ours.sample().shape == tuple(theirs.sample().shape)
    assert ours.sample((5,)).shape == tuple(theirs.sample((5,)).shape)
    assert ours.rsample((5,)).requires_grad
    x = theirs.sample((4,))
    _close(ours.log_prob(_p(x.numpy())), theirs.log_prob(x), 1e-10, 1e-10)


def test_beta_log_prob():
    for _ in range(4):
        rs = np.random.RandomState(_)
        con1, con0 = np.exp(rs.randn()), np.exp(rs.randn())
        theirs = TD.Beta(_t(con1), _t(con0))
        x = theirs.sample()
        _close(D.Beta(_p(con1), _p(con0)).log_prob(_p(x.numpy())), theirs.log_prob(x),
               1e-10, 1e-12)


def test_beta_underflow():
    # torch: draws at tiny concentrations are still in [0, 1] and both ends occur
    pyad.manual_seed(1)
    num_samples = 50000
    for dtype in (np.float32, np.float64):
        conc = _p(1e-2, dtype=dtype)
        d = D.Beta(conc, conc)
        s = _np(d.sample((num_samples,)))
        assert ((s >= 0) & (s <= 1)).all()
        assert (s == 0).sum() == 0 and (s == 1).sum() == 0
        frac_zeros = float((s < 0.1).mean())
        frac_ones = float((s > 0.9).mean())
        assert abs(frac_zeros - 0.5) < 0.05 and abs(frac_ones - 0.5) < 0.05


def test_independent_shape():
    for cls, ps in EXAMPLES:
        for params in ps:
            ours, theirs, _, _ = _pair(cls, params)
            for ndims in range(len(ours.batch_shape) + 1):
                oi = D.Independent(ours, ndims)
                ti = TD.Independent(theirs, ndims)
                assert tuple(oi.batch_shape) == tuple(ti.batch_shape)
                assert tuple(oi.event_shape) == tuple(ti.event_shape)
                x = ti.sample()
                assert tuple(oi.sample().shape) == tuple(x.shape)
                _close(oi.log_prob(_p(x.numpy())), ti.log_prob(x), 1e-12, 1e-12)
                try:
                    te = ti.entropy()
                except NotImplementedError:
                    continue
                _close(oi.entropy(), te, 1e-12, 1e-12)


def test_independent_expand():
    for cls, ps in EXAMPLES:
        for params in ps:
            ours, theirs, _, _ = _pair(cls, params)
            for ndims in range(len(ours.batch_shape) + 1):
                for shape in [(), (2,), (2, 3)]:
                    oi = D.Independent(ours, ndims)
                    ti = TD.Independent(theirs, ndims)
                    batch = shape + tuple(oi.batch_shape)
                    oe, te = oi.expand(batch), ti.expand(torch.Size(batch))
                    assert tuple(oe.batch_shape) == tuple(te.batch_shape)
                    assert tuple(oe.event_shape) == tuple(te.event_shape)
                    x = te.sample()
                    assert tuple(oe.sample().shape) == tuple(x.shape)
                    _close(oe.log_prob(_p(x.numpy())), te.log_prob(x), 1e-12, 1e-12)


ICDF = [("Normal", dict(loc=[0.7, -0.3], scale=[1.3, 0.2])),
        ("Uniform", dict(low=[-1.0, 0.5], high=[1.0, 2.0])),
        ("Exponential", dict(rate=[0.3, 2.5])),
        ("Laplace", dict(loc=[0.7, -0.3], scale=[1.3, 0.2])),
        ("LogNormal", dict(loc=[0.2, -1.0], scale=[0.5, 1.5])),
        ("HalfNormal", dict(scale=[0.5, 3.0])),
        ("Cauchy", dict(loc=[0.0, 1.0], scale=[1.0, 0.3])),
        ("Gumbel", dict(loc=[0.5, -1.0], scale=[1.0, 2.0]))]


@pytest.mark.parametrize("cls,params", ICDF, ids=[c for c, _ in ICDF])
def test_cdf_icdf_inverse(cls, params):
    # torch: icdf(cdf(x)) == x on the distribution's own draws (here torch's draws)
    ours, theirs, _, _ = _pair(cls, params)
    x = theirs.sample((20,))
    actual = ours.cdf(ours.icdf(_p(theirs.cdf(x).numpy())))
    _close(ours.icdf(_p(theirs.cdf(x).numpy())), theirs.icdf(theirs.cdf(x)), 1e-10, 1e-10)
    np.testing.assert_allclose(_np(actual), theirs.cdf(x).numpy(), rtol=1e-10, atol=1e-10)
    _close(ours.cdf(_p(x.numpy())), theirs.cdf(x), 1e-12, 1e-12)


CDF = ICDF + [("Gamma", dict(concentration=[0.5, 2.0, 5.0], rate=[1.0, 0.5, 3.0])),
              ("Chi2", dict(df=[0.8, 2.0, 7.0]))]


@pytest.mark.parametrize("cls,params", CDF, ids=[c for c, _ in CDF])
def test_cdf_log_prob(cls, params):
    # torch: d cdf(x) / dx == exp(log_prob(x))
    ours, theirs, _, _ = _pair(cls, params)
    samples = theirs.sample((10,)).numpy()
    x = _p(samples, grad=True)
    cdf = ours.cdf(x)
    cdf.sum().backward()
    np.testing.assert_allclose(_np(x.grad), np.exp(_np(ours.log_prob(_p(samples)))),
                               rtol=1e-8, atol=1e-12)


def test_valid_parameter_broadcasting():
    # torch's list: the batch shape of parameters of different shapes
    cases = [
        (lambda m: m.Normal(loc=0.0, scale=_x(m, [1.0])), (1,)),
        (lambda m: m.Normal(loc=_x(m, [0.0]), scale=1.0), (1,)),
        (lambda m: m.Normal(loc=_x(m, [0.0, 0.0]), scale=_x(m, [1.0])), (2,)),
        (lambda m: m.Normal(loc=_x(m, [0.0, 0.0]), scale=_x(m, [[1.0], [1.0]])), (2, 2)),
        (lambda m: m.Normal(loc=_x(m, [0.0, 0.0]), scale=_x(m, [[1.0]])), (1, 2)),
        (lambda m: m.Normal(loc=_x(m, [0.0]), scale=_x(m, [[1.0]])), (1, 1)),
        (lambda m: m.Gamma(concentration=_x(m, [1.0, 1.0]), rate=1.0), (2,)),
        (lambda m: m.Gamma(concentration=1.0, rate=_x(m, [1.0, 1.0])), (2,)),
        (lambda m: m.Gamma(concentration=_x(m, [[1.0], [1.0], [1.0]]),
                           rate=_x(m, [1.0, 1.0, 1.0])), (3, 3)),
        (lambda m: m.Laplace(loc=_x(m, [0.0, 0.0]), scale=_x(m, [1.0])), (2,)),
        (lambda m: m.Laplace(loc=_x(m, [[0.0, 0.0]]), scale=_x(m, [[1.0], [1.0]])), (2, 2)),
        (lambda m: m.StudentT(df=_x(m, [1.0, 1.0]), loc=1.0), (2,)),
        (lambda m: m.StudentT(df=1.0, scale=_x(m, [1.0, 1.0])), (2,)),
        (lambda m: m.StudentT(df=_x(m, [1.0, 1.0]), loc=_x(m, [1.0])), (2,)),
        (lambda m: m.StudentT(df=_x(m, [1.0, 1.0]), scale=_x(m, [[1.0]])), (1, 2)),
        (lambda m: m.StudentT(df=_x(m, [1.0]), loc=_x(m, [[1.0]])), (1, 1)),
        (lambda m: m.Uniform(low=0.0, high=_x(m, [1.0, 1.0, 1.0])), (3,)),
        (lambda m: m.Uniform(low=_x(m, [[0.0], [0.0], [0.0]]), high=_x(m, [1.0, 1.0])),
         (3, 2)),
        (lambda m: m.Cauchy(loc=0.0, scale=_x(m, [1.0, 1.0, 1.0])), (3,)),
        (lambda m: m.Cauchy(loc=_x(m, [[0.0], [0.0]]), scale=_x(m, [1.0, 1.0, 1.0])), (2, 3)),
        (lambda m: m.Gumbel(loc=_x(m, [0.0]), scale=_x(m, [[1.0]])), (1, 1)),
        (lambda m: m.Gumbel(loc=_x(m, [[0.0], [0.0]]), scale=_x(m, [1.0, 1.0, 1.0])), (2, 3)),
        (lambda m: m.Beta(concentration1=_x(m, [1.0, 1.0]), concentration0=1.0), (2,)),
        (lambda m: m.Beta(concentration1=_x(m, [[1.0]]),
                          concentration0=_x(m, [1.0, 1.0, 1.0])), (1, 3)),
    ]
    for make, batch in cases:
        ours, theirs = make(D), make(TD)
        assert tuple(ours.batch_shape) == tuple(theirs.batch_shape) == batch
        assert ours.sample().shape == batch


def _x(mod, v):
    return _p(v) if mod is D else _t(v)


def test_invalid_parameter_broadcasting():
    # torch: parameters that cannot be broadcast raise when the distribution is built
    cases = [
        (lambda m: m.Normal(loc=_x(m, [0.0, 0.0]), scale=_x(m, [1.0, 1.0, 1.0]))),
        (lambda m: m.Normal(loc=_x(m, [[0.0, 0.0], [0.0, 0.0]]),
                            scale=_x(m, [1.0, 1.0, 1.0]))),
        (lambda m: m.Gamma(concentration=_x(m, [0.0, 0.0]), rate=_x(m, [1.0, 1.0, 1.0]))),
        (lambda m: m.Laplace(loc=_x(m, [0.0, 0.0]), scale=_x(m, [1.0, 1.0, 1.0]))),
        (lambda m: m.StudentT(df=_x(m, [1.0, 1.0]), scale=_x(m, [1.0, 1.0, 1.0]))),
        (lambda m: m.StudentT(df=_x(m, [1.0, 1.0]), loc=_x(m, [1.0, 1.0, 1.0]))),
        (lambda m: m.Uniform(low=_x(m, [0.0, 0.0]), high=_x(m, [1.0, 1.0, 1.0]))),
        (lambda m: m.Cauchy(loc=_x(m, [0.0, 0.0]), scale=_x(m, [1.0, 1.0, 1.0]))),
        (lambda m: m.Gumbel(loc=_x(m, [0.0, 0.0]), scale=_x(m, [1.0, 1.0, 1.0]))),
        (lambda m: m.Beta(concentration1=_x(m, [1.0, 1.0]),
                          concentration0=_x(m, [1.0, 1.0, 1.0]))),
        (lambda m: m.Binomial(total_count=_x(m, [1.0, 1.0]), probs=_x(m, [0.5, 0.5, 0.5]))),
    ]
    for make in cases:
        with pytest.raises(Exception) as theirs:
            make(TD)
        with pytest.raises(type(theirs.value)):
            make(D)


def test_entropy_shape():
    for cls, ps in EXAMPLES:
        for params in ps:
            ours, theirs, _, _ = _pair(cls, params, grad=False)
            try:
                te = theirs.entropy()
            except NotImplementedError:
                continue
            oe = ours.entropy()
            assert tuple(oe.shape) == tuple(theirs.batch_shape)
            if cls == "Binomial" and np.ndim(params["total_count"]):
                continue
            _close(oe, te, 1e-10, 1e-10)


def test_mean_variance_stddev():
    for cls, ps in EXAMPLES:
        for params in ps:
            ours, theirs, _, _ = _pair(cls, params)
            for attr in ("mean", "variance", "stddev"):
                _close(getattr(ours, attr), getattr(theirs, attr), 1e-12, 1e-12)


# ----------------------------------------------------------------------- TestKL

KL_PAIRS = [
    ("Bernoulli", dict(probs=[0.2, 0.7]), "Bernoulli", dict(probs=[0.5, 0.1])),
    ("Normal", dict(loc=[0.0, 1.0], scale=[1.0, 2.0]), "Normal",
     dict(loc=[1.0, -1.0], scale=[0.5, 1.0])),
    ("Exponential", dict(rate=[0.5, 2.0]), "Exponential", dict(rate=[1.0, 3.0])),
    ("Gamma", dict(concentration=[0.5, 2.0], rate=[1.0, 2.0]), "Gamma",
     dict(concentration=[1.5, 1.0], rate=[0.5, 1.0])),
    ("Beta", dict(concentration1=[0.5, 2.0], concentration0=[1.0, 2.0]), "Beta",
     dict(concentration1=[1.5, 1.0], concentration0=[0.5, 1.0])),
    ("Laplace", dict(loc=[0.0, 1.0], scale=[1.0, 2.0]), "Laplace",
     dict(loc=[1.0, -1.0], scale=[0.5, 1.0])),
    ("Categorical", dict(probs=[[0.1, 0.2, 0.7], [0.3, 0.3, 0.4]]), "Categorical",
     dict(probs=[[0.5, 0.25, 0.25], [0.1, 0.8, 0.1]])),
    ("Poisson", dict(rate=[0.5, 2.0]), "Poisson", dict(rate=[1.0, 3.0])),
    ("Uniform", dict(low=[0.0, 0.2], high=[1.0, 0.5]), "Normal",
     dict(loc=[0.0, 1.0], scale=[1.0, 2.0])),
    ("Dirichlet", dict(concentration=[[0.5, 2.0, 1.0]]), "Dirichlet",
     dict(concentration=[[1.0, 1.0, 3.0]])),
    ("MultivariateNormal", dict(loc=[0.0, 1.0], covariance_matrix=[[2.0, 0.5], [0.5, 1.0]]),
     "MultivariateNormal", dict(loc=[1.0, 0.0], covariance_matrix=[[1.0, -0.3],
                                                                   [-0.3, 3.0]])),
]
KL_IDS = ["%s-%s" % (a, c) for a, _, c, _ in KL_PAIRS]


@pytest.mark.parametrize("pc,pp,qc,qp", KL_PAIRS, ids=KL_IDS)
def test_kl_shape(pc, pp, qc, qp):
    p, tp, _, _ = _pair(pc, pp)
    q, tq, _, _ = _pair(qc, qp)
    kl = kl_divergence(p, q)
    assert tuple(kl.shape) == tuple(torch.broadcast_shapes(tp.batch_shape, tq.batch_shape))
    _close(kl, TD.kl_divergence(tp, tq), 1e-10, 1e-12)


@pytest.mark.parametrize("pc,pp,qc,qp", KL_PAIRS[:8], ids=KL_IDS[:8])
def test_kl_monte_carlo(pc, pp, qc, qp):
    # KL(p || q) ~ mean of log p(x) - log q(x) over draws of p (pyad's draws)
    pyad.manual_seed(0)
    p, _, _, _ = _pair(pc, pp)
    q, _, _, _ = _pair(qc, qp)
    x = p.sample((40000,))
    lp, lq = _np(p.log_prob(x)), _np(q.log_prob(x))
    diff = lp - lq
    expected = _np(kl_divergence(p, q))
    stderr = diff.std(0) / math.sqrt(len(diff))
    assert (np.abs(diff.mean(0) - expected) < 5 * stderr + 1e-3).all()


def test_kl_infinite():
    pairs = [
        (TD.Uniform(_t(0.0), _t(1.0)), TD.Uniform(_t(0.5), _t(1.0)),
         D.Uniform(_p(0.0), _p(1.0)), D.Uniform(_p(0.5), _p(1.0))),
        (TD.Uniform(_t(0.0), _t(2.0)), TD.Uniform(_t(1.0), _t(3.0)), D.Uniform(_p(0.0), _p(2.0)),
         D.Uniform(_p(1.0), _p(3.0))),
        (TD.Bernoulli(_t(0.5)), TD.Bernoulli(_t(0.0)),
         D.Bernoulli(_p(0.5)), D.Bernoulli(_p(0.0))),
        (TD.Categorical(_t([0.5, 0.5])), TD.Categorical(_t([1.0, 0.0])),
         D.Categorical(_p([0.5, 0.5])), D.Categorical(_p([1.0, 0.0]))),
    ]
    for tp, tq, p, q in pairs:
        assert float(TD.kl_divergence(tp, tq)) == math.inf
        assert float(kl_divergence(p, q).data) == math.inf


def test_kl_edgecases():
    assert float(kl_divergence(D.Bernoulli(_p(0.0)), D.Bernoulli(_p(0.0))).data) == 0.0
    assert float(kl_divergence(D.Bernoulli(_p(1.0)), D.Bernoulli(_p(1.0))).data) == 0.0
    assert float(kl_divergence(D.Categorical(_p([0.0, 1.0])),
                               D.Categorical(_p([0.0, 1.0]))).data) == 0.0


def test_kl_multivariate_normal():
    rs = np.random.RandomState(0)
    for _ in range(3):
        loc = [rs.randn(4) for _ in range(2)]
        scale_tril = []
        for _ in range(2):
            a = rs.randn(4, 4)
            cov = a @ a.T + 0.5 * np.eye(4)
            scale_tril.append(np.linalg.cholesky(cov))
        ours = kl_divergence(D.MultivariateNormal(_p(loc[0]), scale_tril=_p(scale_tril[0])),
                             D.MultivariateNormal(_p(loc[1]), scale_tril=_p(scale_tril[1])))
        theirs = TD.kl_divergence(
            TD.MultivariateNormal(_t(loc[0]), scale_tril=_t(scale_tril[0])),
            TD.MultivariateNormal(_t(loc[1]), scale_tril=_t(scale_tril[1])))
        _close(ours, theirs, 1e-10, 1e-12)


def test_entropy_monte_carlo():
    pyad.manual_seed(0)
    for cls, ps in EXAMPLES:
        if cls in ("Cauchy", "Binomial", "Poisson"):
            continue            # heavy tails / no entropy in torch
        for params in ps:
            ours, theirs, _, _ = _pair(cls, params)
            x = ours.sample((40000,))
            lp = _np(ours.log_prob(x))
            lp = np.where(np.isfinite(lp), lp, 0.0)
            expected = theirs.entropy().numpy()
            stderr = lp.std(0) / math.sqrt(len(lp))
            assert (np.abs(-lp.mean(0) - expected) < 5 * stderr + 1e-3).all(), cls


# ------------------------------------------------------------ TestNumericalStability

def _test_pdf_score(dtype, x, expected_value, expected_gradient, prec=1e-5, **kwargs):
    # torch's _test_pdf_score: log_prob and its gradient in the one parameter
    (name, value), = kwargs.items()
    param = _p([value], grad=True, dtype=dtype)
    log_pdf = D.Bernoulli(**{name: param}).log_prob(_p([x], dtype=dtype))
    log_pdf.sum().backward()
    assert abs(float(_np(log_pdf)[0]) - expected_value) <= prec
    assert abs(float(_np(param.grad)[0]) - expected_gradient) <= prec
    # and the same numbers as torch's
    tdt = getattr(torch, np.dtype(dtype).name)
    tparam = torch.tensor([value], dtype=tdt, requires_grad=True)
    tlog = TD.Bernoulli(**{name: tparam}).log_prob(torch.tensor([x], dtype=tdt))
    tlog.sum().backward()
    np.testing.assert_allclose(_np(log_pdf), tlog.detach().numpy(), rtol=1e-6)
    np.testing.assert_allclose(_np(param.grad), tparam.grad.numpy(), rtol=1e-6)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_bernoulli_gradient(dtype):
    eps = float(np.finfo(dtype).eps)
    _test_pdf_score(dtype, 0.0, 0.0, 0.0, probs=0.0)
    _test_pdf_score(dtype, 1.0, math.log(eps), 0.0, probs=0.0)
    _test_pdf_score(dtype, 1.0, math.log(1e-4), 10000.0, probs=1e-4)
    # lower precision: 1 / (1 - float32(0.9999)) is 9998.34
    _test_pdf_score(dtype, 0.0, math.log(1e-4), -10000.0, prec=2, probs=1 - 1e-4)
    _test_pdf_score(dtype, 0.0, math.log(1e-4), -1.0, prec=1e-3, logits=math.log(9999))


@pytest.mark.parametrize("dtype,lim", [(np.float32, -1e38), (np.float64, -1e308)])
def test_bernoulli_with_logits_underflow_exact(dtype, lim):
    _test_pdf_score(dtype, 0.0, 0.0, 0.0, logits=lim)


@pytest.mark.parametrize("dtype,lim", [(np.float32, 1e38), (np.float64, 1e308)])
def test_bernoulli_with_logits_overflow_exact(dtype, lim):
    _test_pdf_score(dtype, 1.0, 0.0, 0.0, logits=lim)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_bernoulli_with_logits_underflow(dtype):
    for lim in (-1e4, -100.0):
        logits = _p([lim], grad=True, dtype=dtype)
        lp = D.Bernoulli(logits=logits).log_prob(_p([0.0], dtype=dtype))
        tl = torch.tensor([lim], dtype=getattr(torch, np.dtype(dtype).name),
                          requires_grad=True)
        tlp = TD.Bernoulli(logits=tl).log_prob(torch.tensor([0.0], dtype=tl.dtype))
        np.testing.assert_allclose(_np(lp), tlp.detach().numpy(), rtol=1e-6, atol=1e-12)
        lp.sum().backward()
        tlp.sum().backward()
        np.testing.assert_allclose(_np(logits.grad), tl.grad.numpy(), rtol=1e-6, atol=1e-12)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_bernoulli_with_logits_overflow(dtype):
    for lim in (1e4, 100.0):
        logits = _p([lim], grad=True, dtype=dtype)
        lp = D.Bernoulli(logits=logits).log_prob(_p([1.0], dtype=dtype))
        tl = torch.tensor([lim], dtype=getattr(torch, np.dtype(dtype).name),
                          requires_grad=True)
        tlp = TD.Bernoulli(logits=tl).log_prob(torch.tensor([1.0], dtype=tl.dtype))
        np.testing.assert_allclose(_np(lp), tlp.detach().numpy(), rtol=1e-6, atol=1e-12)
        lp.sum().backward()
        tlp.sum().backward()
        np.testing.assert_allclose(_np(logits.grad), tl.grad.numpy(), rtol=1e-6, atol=1e-12)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_categorical_log_prob(dtype):
    tdt = getattr(torch, np.dtype(dtype).name)
    # torch: OneHotCategorical([0, 1]).log_prob([0, 1]) is 0 (up to the clamp of the
    # probabilities to [eps, 1 - eps]: log(1 - eps))
    p = _p([0, 1], grad=True, dtype=dtype)
    lp = D.OneHotCategorical(p).log_prob(_p([0, 1], dtype=dtype))
    assert float(_np(lp)) == pytest.approx(0.0, abs=1e-5)
    tp = torch.tensor([0.0, 1.0], dtype=tdt, requires_grad=True)
    tlp = TD.OneHotCategorical(tp).log_prob(torch.tensor([0.0, 1.0], dtype=tdt))
    np.testing.assert_allclose(_np(lp), tlp.detach().numpy(), rtol=1e-6)
    tlp.backward()
    lp.backward()
    np.testing.assert_allclose(_np(p.grad), tp.grad.numpy(), rtol=1e-6)
    # an impossible category: log(eps) after torch's clamp of the probabilities
    np.testing.assert_allclose(
        _np(D.Categorical(_p([0, 1], dtype=dtype)).log_prob(pyad.tensor(np.array(0)))),
        TD.Categorical(torch.tensor([0.0, 1.0], dtype=tdt)).log_prob(
            torch.tensor(0)).numpy(), rtol=1e-6)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_categorical_log_prob_with_logits(dtype):
    tdt = getattr(torch, np.dtype(dtype).name)
    p = _p([-math.inf, 0.0], grad=True, dtype=dtype)
    categorical = D.OneHotCategorical(logits=p)
    assert float(_np(categorical.log_prob(_p([0, 1], dtype=dtype)))) == 0.0
    assert float(_np(categorical.log_prob(_p([1, 0], dtype=dtype)))) == -math.inf
    for logits in ([-math.inf, 0.0], [1e4, -1e4], [0.0, 30.0]):
        ours = D.Categorical(logits=_p(logits, dtype=dtype))
        theirs = TD.Categorical(logits=torch.tensor(logits, dtype=tdt))
        for v in (0, 1):
            np.testing.assert_allclose(_np(ours.log_prob(pyad.tensor(np.array(v)))),
                                       theirs.log_prob(torch.tensor(v)).numpy(), rtol=1e-6)


# ----------------------------------------------------- TestLazyLogitsInitialization

LAZY = [(c, ps[0]) for c, ps in EXAMPLES
        if c in ("Categorical", "OneHotCategorical", "Bernoulli", "Binomial")
        and "probs" in ps[0]]


@pytest.mark.parametrize("cls,params", LAZY, ids=[c for c, _ in LAZY])
def test_lazy_logits_initialization(cls, params):
    param = dict(params)
    probs = np.asarray(param.pop("probs"))
    if cls in ("Bernoulli", "Binomial"):
        param["logits"] = np.log(probs) - np.log1p(-probs)
    else:
        param["logits"] = np.log(probs)
    make = lambda: getattr(D, cls)(**{k: (_p(v) if k != "total_count" else v)
                                      for k, v in param.items()})
    dist = make()
    # a new instance makes a valid sample
    dist.log_prob(make().sample())
    assert "probs" not in dist.__dict__
    try:
        dist.enumerate_support()
    except NotImplementedError:
        pass
    assert "probs" not in dist.__dict__
    dist.batch_shape, dist.event_shape
    assert "probs" not in dist.__dict__


@pytest.mark.parametrize("cls,params", LAZY, ids=[c for c, _ in LAZY])
def test_lazy_probs_initialization(cls, params):
    dist = getattr(D, cls)(**{k: (_p(v) if k != "total_count" else v)
                              for k, v in params.items()})
    dist.sample()
    assert "logits" not in dist.__dict__
    try:
        dist.enumerate_support()
    except NotImplementedError:
        pass
    assert "logits" not in dist.__dict__
    dist.batch_shape, dist.event_shape
    assert "logits" not in dist.__dict__


# ---------------------------------------------------------------- TestValidation

@pytest.mark.parametrize("cls,i,params", ALL, ids=ALL_IDS)
def test_valid(cls, i, params):
    # parameters inside the constraints build with validate_args=True, as torch's
    _pair(cls, dict(params))
    kw = {k: (_p(v) if not (k in INT_PARAMS and np.ndim(v) == 0) else v)
          for k, v in params.items()}
    getattr(D, cls)(**kw, validate_args=True)


def test_invalid_log_probs_arg():
    # torch: a value of the wrong shape or outside the support raises ValueError
    cat = D.Categorical(_p([0.25, 0.75]), validate_args=True)
    tcat = TD.Categorical(_t([0.25, 0.75]), validate_args=True)
    for value in (2, -1, 0.5):
        with pytest.raises(ValueError) as theirs:
            tcat.log_prob(torch.tensor(value))
        with pytest.raises(ValueError) as ours:
            cat.log_prob(pyad.tensor(np.array(value)))
        assert "to be within the support" in str(theirs.value)
        assert "to be within the support" in str(ours.value)
    bern = D.Bernoulli(_p([0.25, 0.75]), validate_args=True)
    with pytest.raises(ValueError):
        TD.Bernoulli(_t([0.25, 0.75]), validate_args=True).log_prob(_t([0.0, 0.0, 0.0]))
    with pytest.raises(ValueError):
        bern.log_prob(_p([0.0, 0.0, 0.0]))


# ---------------------------------------------------- TransformedDistribution

def test_transformed_distribution_log_normal():
    # torch's test_lognormal via TransformedDistribution(Normal, ExpTransform())
    base = D.Normal(_p([0.2, -1.0]), _p([0.5, 1.5]))
    d = D.TransformedDistribution(base, [D.transforms.ExpTransform()])
    theirs = TD.LogNormal(_t([0.2, -1.0]), _t([0.5, 1.5]))
    x = theirs.sample()
    _close(d.log_prob(_p(x.numpy())), theirs.log_prob(x), 1e-12, 1e-12)


def test_kl_transformed():
    base_p = D.Normal(_p([0.0]), _p([1.0]))
    base_q = D.Normal(_p([1.0]), _p([2.0]))
    t = D.transforms.AffineTransform(_p(1.0), _p(2.0))
    kl = kl_divergence(D.TransformedDistribution(base_p, [t]),
                       D.TransformedDistribution(base_q, [t]))
    _close(kl, TD.kl_divergence(TD.Normal(_t([0.0]), _t([1.0])),
                                TD.Normal(_t([1.0]), _t([2.0]))))


# ----------------------------------------------- relaxed, mixture and multivariate

def test_relaxed_bernoulli():
    p = _p([0.7, 0.2, 0.4], grad=True)
    r = _p(0.3, grad=True)
    temp = _p(0.67, grad=True)
    assert D.RelaxedBernoulli(temp, p).sample((8,)).shape == (8, 3)
    assert not D.RelaxedBernoulli(temp, p).sample().requires_grad
    assert D.RelaxedBernoulli(temp, r).sample((8,)).shape == (8,)
    assert D.RelaxedBernoulli(temp, r).sample().shape == ()
    assert D.RelaxedBernoulli(temp, r).sample((3, 2)).shape == (3, 2)
    assert D.RelaxedBernoulli(temp, p).rsample().requires_grad
    theirs = TD.RelaxedBernoulli(_t(0.67), _t([0.7, 0.2, 0.4]))
    x = theirs.sample((4,))
    _close(D.RelaxedBernoulli(temp, p).log_prob(_p(x.numpy())), theirs.log_prob(x),
           1e-10, 1e-12)


def test_rounded_relaxed_bernoulli():
    # torch: rounded RelaxedBernoulli draws have Bernoulli(p) frequencies
    pyad.manual_seed(0)
    probs = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9]
    for temp in (0.001, 0.1):
        s = _np(D.RelaxedBernoulli(_p(temp), _p(probs)).sample((20000,)))
        freq = np.round(s).mean(0)
        np.testing.assert_allclose(freq, probs, atol=5 * math.sqrt(0.25 / 20000))


def test_relaxed_one_hot_categorical_1d():
    p = _p([0.1, 0.2, 0.3], grad=True)
    temp = _p(0.67, grad=True)
    d = D.RelaxedOneHotCategorical(probs=p, temperature=temp)
    assert d.sample().shape == (3,)
    assert not d.sample().requires_grad
    assert d.sample((2, 2)).shape == (2, 2, 3)
    assert d.sample((1,)).shape == (1, 3)
    s = _np(d.sample((10,)))
    np.testing.assert_allclose(s.sum(-1), 1.0, rtol=1e-6)


def test_relaxed_one_hot_categorical_2d():
    probabilities = [[0.1, 0.2, 0.3], [0.5, 0.3, 0.2]]
    probabilities_1 = [[1.0, 0.0], [0.0, 1.0]]
    temp, temp_2, temp_3 = _p([3.0]), _p([7.0]), _p(5.0)
    p = _p(probabilities, grad=True)
    s = _p(probabilities_1, grad=True)
    assert D.RelaxedOneHotCategorical(temp, p).sample().shape == (2, 3)
    assert D.RelaxedOneHotCategorical(temp, p).sample((3, 4)).shape == (3, 4, 2, 3)
    assert D.RelaxedOneHotCategorical(temp, p).sample((6,)).shape == (6, 2, 3)
    assert D.RelaxedOneHotCategorical(temp_2, p).rsample().requires_grad
    assert D.RelaxedOneHotCategorical(temp_3, s).sample().shape == (2, 2)
    theirs = TD.RelaxedOneHotCategorical(_t([3.0]), _t(probabilities))
    x = theirs.sample((4,))
    _close(D.RelaxedOneHotCategorical(temp, p).log_prob(_p(x.numpy())), theirs.log_prob(x),
           1e-9, 1e-10)


def test_mixture_same_family_shape():
    normal_case_1d = D.MixtureSameFamily(D.Categorical(_p(np.full((5,), 0.2))),
                                         D.Normal(_p(np.zeros(5)), _p(np.ones(5))))
    normal_case_1d_batch = D.MixtureSameFamily(
        D.Categorical(_p(np.full((3, 5), 0.2))),
        D.Normal(_p(np.zeros((3, 5))), _p(np.ones((3, 5)))))
    normal_case_1d_multi_batch = D.MixtureSameFamily(
        D.Categorical(_p(np.full((4, 3, 5), 0.2))),
        D.Normal(_p(np.zeros((4, 3, 5))), _p(np.ones((4, 3, 5)))))
    normal_case_2d = D.MixtureSameFamily(
        D.Categorical(_p(np.full((5,), 0.2))),
        D.Independent(D.Normal(_p(np.zeros((5, 2))), _p(np.ones((5, 2)))), 1))
    normal_case_2d_batch = D.MixtureSameFamily(
        D.Categorical(_p(np.full((3, 5), 0.2))),
        D.Independent(D.Normal(_p(np.zeros((3, 5, 2))), _p(np.ones((3, 5, 2)))), 1))
    normal_case_2d_multi_batch = D.MixtureSameFamily(
        D.Categorical(_p(np.full((4, 3, 5), 0.2))),
        D.Independent(D.Normal(_p(np.zeros((4, 3, 5, 2))), _p(np.ones((4, 3, 5, 2)))), 1))
    for d, batch, event in [(normal_case_1d, (), ()), (normal_case_1d_batch, (3,), ()),
                            (normal_case_1d_multi_batch, (4, 3), ()),
                            (normal_case_2d, (), (2,)), (normal_case_2d_batch, (3,), (2,)),
                            (normal_case_2d_multi_batch, (4, 3), (2,))]:
        assert tuple(d.batch_shape) == batch and tuple(d.event_shape) == event
        assert d.sample().shape == batch + event
        assert d.sample((2,)).shape == (2,) + batch + event
        assert d.log_prob(pyad.ones(batch + event, dtype=np.float64)).shape == batch
        assert d.log_prob(pyad.ones((2,) + batch + event, dtype=np.float64)).shape == (
            (2,) + batch)
        # the mixture of standard normals has the standard normal's density
        x = np.linspace(-2, 2, int(np.prod(batch + event, dtype=int))).reshape(batch + event)
        _close(d.log_prob(_p(x)), TD.Independent(TD.Normal(_t(np.zeros(event)),
                                                           _t(np.ones(event))),
                                                 len(event)).log_prob(_t(x)), 1e-12, 1e-12)


def test_multivariate_normal_properties():
    loc = np.random.RandomState(0).randn(5)
    a = np.random.RandomState(1).randn(5, 5)
    cov = a @ a.T + np.eye(5)
    for key, value in [("covariance_matrix", cov), ("precision_matrix", np.linalg.inv(cov)),
                       ("scale_tril", np.linalg.cholesky(cov))]:
        ours = D.MultivariateNormal(_p(loc), **{key: _p(value)})
        theirs = TD.MultivariateNormal(_t(loc), **{key: _t(value)})
        for attr in ("mean", "variance", "stddev", "covariance_matrix", "precision_matrix",
                     "scale_tril"):
            _close(getattr(ours, attr), getattr(theirs, attr), 1e-9, 1e-10)
        _close(ours.entropy(), theirs.entropy(), 1e-10, 1e-12)
        x = theirs.sample((3,))
        _close(ours.log_prob(_p(x.numpy())), theirs.log_prob(x), 1e-10, 1e-12)


def test_multivariate_normal_shape():
    mean = _p(np.random.RandomState(0).randn(5, 3), grad=True)
    mean_no_batch = _p(np.random.RandomState(1).randn(3), grad=True)
    tmp = np.random.RandomState(2).randn(3, 10)
    cov = _p(tmp @ tmp.T / 10 + np.eye(3), grad=True)
    assert D.MultivariateNormal(mean, cov).sample().shape == (5, 3)
    assert D.MultivariateNormal(mean_no_batch, cov).sample().shape == (3,)
    assert D.MultivariateNormal(mean, cov).sample((2, 7)).shape == (2, 7, 5, 3)
    assert D.MultivariateNormal(mean_no_batch, cov).sample((2, 7)).shape == (2, 7, 3)
    # rsample gradients reach the mean and the covariance
    x = D.MultivariateNormal(mean, cov).rsample((2,))
    x.sum().backward()
    np.testing.assert_allclose(_np(mean.grad), np.full((5, 3), 2.0), rtol=1e-12)
    assert cov.grad is not None and np.isfinite(_np(cov.grad)).all()
