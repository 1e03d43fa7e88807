"""More tests ported from pytorch/pytorch test/distributions/test_distributions.py
(TestDistributionShapes, TestDistributions, TestKL, TestNumericalStability; the test
names are torch's). Shape tests keep torch's literal expected shapes (with argument
validation on, as torch's DistributionsTestCase sets it); value tests compare against
torch 2.13 on the same parameters (float64). Random draws come from different
generators, so draws are compared by shape only, never by value."""
import numpy as np
import pytest

import pyad
import pyad.distributions as D
from pyad.distributions import kl_divergence

torch = pytest.importorskip("torch")
TD = torch.distributions

from _distribution_helpers import _close, _p, _t  # noqa: E402


@pytest.fixture(autouse=True)
def _validate_on():
    # torch's DistributionsTestCase turns argument validation on for every test
    old_ours, old_theirs = D.Distribution._validate_default, TD.Distribution._validate_args
    D.Distribution.set_default_validate_args(True)
    TD.Distribution.set_default_validate_args(True)
    yield
    D.Distribution.set_default_validate_args(old_ours)
    TD.Distribution.set_default_validate_args(old_theirs)


SCALAR_SAMPLE = 1


def _ones(*shape):
    return pyad.tensor(np.ones(shape, dtype=np.float32))


def _f32(a):
    return pyad.tensor(np.asarray(a, dtype=np.float32))


def _shapes(dist, batch, event, sample, sample_32, ok=(), bad=()):
    """torch's pattern: batch/event shapes, sample() and sample((3, 2)) shapes,
    log_prob shapes on accepted values, ValueError on the rejected ones."""
    assert tuple(dist.batch_shape) == batch
    assert tuple(dist.event_shape) == event
    assert tuple(dist.sample().shape) == sample
    assert tuple(dist.sample((3, 2)).shape) == sample_32
    for value, shape in ok:
        assert tuple(dist.log_prob(value).shape) == shape
    for value in bad:
        with pytest.raises(ValueError):
            dist.log_prob(value)


# ---------------------------------------------------------- TestDistributionShapes

def test_bernoulli_shape_scalar_params():
    _shapes(D.Bernoulli(0.3), (), (), (), (3, 2),
            ok=[(_ones(3, 2), (3, 2)), (_ones(3, 2, 3), (3, 2, 3))], bad=[SCALAR_SAMPLE])


def test_bernoulli_shape_tensor_params():
    _shapes(D.Bernoulli(_f32([[0.6, 0.3], [0.6, 0.3], [0.6, 0.3]])), (3, 2), (), (3, 2),
            (3, 2, 3, 2), ok=[(_ones(3, 2), (3, 2)), (_ones(3, 1, 1), (3, 3, 2))],
            bad=[_ones(3, 2, 3)])


def test_geometric_shape_scalar_params():
    _shapes(D.Geometric(0.3), (), (), (), (3, 2),
            ok=[(_ones(3, 2), (3, 2)), (_ones(3, 2, 3), (3, 2, 3))], bad=[SCALAR_SAMPLE])


def test_geometric_shape_tensor_params():
    _shapes(D.Geometric(_f32([[0.6, 0.3], [0.6, 0.3], [0.6, 0.3]])), (3, 2), (), (3, 2),
            (3, 2, 3, 2), ok=[(_ones(3, 2), (3, 2)), (_ones(3, 1, 1), (3, 3, 2))],
            bad=[_ones(3, 2, 3)])


def test_beta_shape_scalar_params():
    _shapes(D.Beta(0.1, 0.1), (), (), (), (3, 2),
            ok=[(_ones(3, 2), (3, 2)), (_ones(3, 2, 3), (3, 2, 3))], bad=[SCALAR_SAMPLE])


def test_beta_shape_tensor_params():
    c = [[0.1, 0.2], [0.3, 0.4], [0.5, 0.6]]
    _shapes(D.Beta(_f32(c), _f32(c)), (3, 2), (), (3, 2), (3, 2, 3, 2),
            ok=[(_ones(3, 2), (3, 2)), (_ones(3, 1, 1), (3, 3, 2))], bad=[_ones(3, 2, 3)])


def test_binomial_shape():
    _shapes(D.Binomial(10, _f32([0.6, 0.3])), (2,), (), (2,), (3, 2, 2),
            ok=[(_ones(3, 2), (3, 2))], bad=[_ones(3, 2, 3)])


def test_binomial_shape_vectorized_n():
    dist = D.Binomial(pyad.tensor(np.array([[10, 3, 1], [4, 8, 4]])), _f32([0.6, 0.3, 0.1]))
    _shapes(dist, (2, 3), (), (2, 3), (3, 2, 2, 3), ok=[(_ones(3, 2, 3), (3, 2, 3))],
            bad=[_ones(3, 2)])


def test_multinomial_shape():
    dist = D.Multinomial(10, _f32([[0.6, 0.3], [0.6, 0.3], [0.6, 0.3]]))
    _shapes(dist, (3,), (2,), (3, 2), (3, 2, 3, 2),
            ok=[(_ones(3, 2), (3,)), (_ones(3, 1, 2), (3, 3))], bad=[_ones(3, 2, 3)])


def test_categorical_shape():
    # unbatched
    dist = D.Categorical(_f32([0.6, 0.3, 0.1]))
    _shapes(dist, (), (), (), (3, 2), ok=[(_ones(3, 2), (3, 2)), (_ones(3, 2, 3), (3, 2, 3)),
                                          (_ones(3, 1), (3, 1))])
    # batched
    dist = D.Categorical(_f32([[0.6, 0.3], [0.6, 0.3], [0.6, 0.3]]))
    _shapes(dist, (3,), (), (3,), (3, 2, 3),
            ok=[(_ones(3, 2, 3), (3, 2, 3)), (_ones(3, 1), (3, 3))], bad=[_ones(3, 2)])


def test_one_hot_categorical_shape():
    # unbatched
    dist = D.OneHotCategorical(_f32([0.6, 0.3, 0.1]))
    _shapes(dist, (), (3,), (3,), (3, 2, 3),
            ok=[(_f32([0.0, 1.0, 0.0]).expand(3, 2, 3), (3, 2)),
                (dist.enumerate_support(), (3,)), (_f32(np.eye(3)), (3,))],
            bad=[_ones(3, 2)])
    # batched
    dist = D.OneHotCategorical(_f32([[0.6, 0.3], [0.6, 0.3], [0.6, 0.3]]))
    _shapes(dist, (3,), (2,), (3, 2), (3, 2, 3, 2),
            ok=[(_f32([0.0, 1.0]), (3,)), (dist.enumerate_support(), (2, 3)),
                (_f32([0.0, 1.0]).expand(3, 1, 2), (3, 3))],
            bad=[_ones(3, 2, 3)])


def test_cauchy_shape_scalar_params():
    _shapes(D.Cauchy(0, 1), (), (), (), (3, 2),
            ok=[(_ones(3, 2), (3, 2)), (_ones(3, 2, 3), (3, 2, 3))], bad=[SCALAR_SAMPLE])


def test_cauchy_shape_tensor_params():
    _shapes(D.Cauchy(_f32([0.0, 0.0]), _f32([1.0, 1.0])), (2,), (), (2,), (3, 2, 2),
            ok=[(_ones(3, 2), (3, 2)), (_ones(2, 1), (2, 2))], bad=[_ones(3, 2, 3)])


def test_halfcauchy_shape_scalar_params():
    _shapes(D.HalfCauchy(1), (), (), (), (3, 2),
            ok=[(_ones(3, 2), (3, 2)), (_ones(3, 2, 3), (3, 2, 3))], bad=[SCALAR_SAMPLE])


def test_halfcauchy_shape_tensor_params():
    _shapes(D.HalfCauchy(_f32([1.0, 1.0])), (2,), (), (2,), (3, 2, 2),
            ok=[(_ones(3, 2), (3, 2)), (_ones(2, 1), (2, 2))], bad=[_ones(3, 2, 3)])


def test_dirichlet_shape():
    dist = D.Dirichlet(_f32([[0.6, 0.3], [1.6, 1.3], [2.6, 2.3]]))
    assert tuple(dist.sample((5, 4)).shape) == (5, 4, 3, 2)
    simplex_1 = _ones(3, 2) / _ones(3, 2).sum(-1, keepdim=True)
    simplex_2 = _ones(3, 1, 2) / _ones(3, 1, 2).sum(-1).unsqueeze(-1)
    _shapes(dist, (3,), (2,), (3, 2), (3, 2, 3, 2),
            ok=[(simplex_1, (3,)), (simplex_2, (3, 3))], bad=[_ones(3, 2, 3)])


def test_gamma_shape_scalar_params():
    # torch's Gamma.log_prob turns a Python number into a tensor before validating it
    _shapes(D.Gamma(1, 1), (), (), (), (3, 2),
            ok=[(SCALAR_SAMPLE, ()), (_ones(3, 2), (3, 2)), (_ones(3, 2, 3), (3, 2, 3))])


def test_gamma_shape_tensor_params():
    _shapes(D.Gamma(_f32([1.0, 1.0]), _f32([1.0, 1.0])), (2,), (), (2,), (3, 2, 2),
            ok=[(_ones(3, 2), (3, 2)), (_ones(2, 1), (2, 2))], bad=[_ones(3, 2, 3)])


def test_chi2_shape_scalar_params():
    _shapes(D.Chi2(1), (), (), (), (3, 2),
            ok=[(SCALAR_SAMPLE, ()), (_ones(3, 2), (3, 2)), (_ones(3, 2, 3), (3, 2, 3))])


def test_chi2_shape_tensor_params():
    _shapes(D.Chi2(_f32([1.0, 1.0])), (2,), (), (2,), (3, 2, 2),
            ok=[(_ones(3, 2), (3, 2)), (_ones(2, 1), (2, 2))], bad=[_ones(3, 2, 3)])


def test_studentT_shape_scalar_params():
    _shapes(D.StudentT(1), (), (), (), (3, 2),
            ok=[(_ones(3, 2), (3, 2)), (_ones(3, 2, 3), (3, 2, 3))], bad=[SCALAR_SAMPLE])


def test_studentT_shape_tensor_params():
    _shapes(D.StudentT(_f32([1.0, 1.0])), (2,), (), (2,), (3, 2, 2),
            ok=[(_ones(3, 2), (3, 2)), (_ones(2, 1), (2, 2))], bad=[_ones(3, 2, 3)])


def test_pareto_shape_scalar_params():
    _shapes(D.Pareto(1, 1), (), (), (), (3, 2),
            ok=[(_ones(3, 2) + 1, (3, 2)), (_ones(3, 2, 3) + 1, (3, 2, 3))])


def test_gumbel_shape_scalar_params():
    _shapes(D.Gumbel(1, 1), (), (), (), (3, 2),
            ok=[(_ones(3, 2), (3, 2)), (_ones(3, 2, 3), (3, 2, 3))])


def test_kumaraswamy_shape_scalar_params():
    _shapes(D.Kumaraswamy(1, 1), (), (), (), (3, 2),
            ok=[(_ones(3, 2), (3, 2)), (_ones(3, 2, 3), (3, 2, 3))])


def test_vonmises_shape_tensor_params():
    _shapes(D.VonMises(_f32([0.0, 0.0]), _f32([1.0, 1.0])), (2,), (), (2,), (3, 2, 2),
            ok=[(_ones(3, 2), (3, 2)), (_ones(2, 1), (2, 2))])


def test_vonmises_shape_scalar_params():
    _shapes(D.VonMises(0.0, 1.0), (), (), (), (3, 2),
            ok=[(_ones(3, 2), (3, 2)), (_ones(3, 2, 3), (3, 2, 3))])


def test_weibull_scale_scalar_params():
    _shapes(D.Weibull(1, 1), (), (), (), (3, 2),
            ok=[(_ones(3, 2), (3, 2)), (_ones(3, 2, 3), (3, 2, 3))])


def test_wishart_shape_scalar_params():
    _shapes(D.Wishart(pyad.tensor(1), _f32([[1.0]])), (), (1, 1), (1, 1), (3, 2, 1, 1),
            bad=[SCALAR_SAMPLE])


def test_wishart_shape_tensor_params():
    _shapes(D.Wishart(_f32([1.0, 1.0]), _f32([[[1.0]], [[1.0]]])), (2,), (1, 1), (2, 1, 1),
            (3, 2, 2, 1, 1), ok=[(_ones(2, 1, 1), (2,))], bad=[_ones(3, 2, 3)])


def test_normal_shape_scalar_params():
    _shapes(D.Normal(0, 1), (), (), (), (3, 2),
            ok=[(_ones(3, 2), (3, 2)), (_ones(3, 2, 3), (3, 2, 3))], bad=[SCALAR_SAMPLE])


def test_normal_shape_tensor_params():
    _shapes(D.Normal(_f32([0.0, 0.0]), _f32([1.0, 1.0])), (2,), (), (2,), (3, 2, 2),
            ok=[(_ones(3, 2), (3, 2)), (_ones(2, 1), (2, 2))], bad=[_ones(3, 2, 3)])


def test_uniform_shape_scalar_params():
    _shapes(D.Uniform(0, 1), (), (), (), (3, 2),
            ok=[(_ones(3, 2), (3, 2)), (_ones(3, 2, 3), (3, 2, 3))], bad=[SCALAR_SAMPLE])


def test_uniform_shape_tensor_params():
    _shapes(D.Uniform(_f32([0.0, 0.0]), _f32([1.0, 1.0])), (2,), (), (2,), (3, 2, 2),
            ok=[(_ones(3, 2), (3, 2)), (_ones(2, 1), (2, 2))], bad=[_ones(3, 2, 3)])


def test_exponential_shape_scalar_param():
    _shapes(D.Exponential(1.0), (), (), (), (3, 2),
            ok=[(_ones(3, 2), (3, 2)), (_ones(3, 2, 3), (3, 2, 3))], bad=[SCALAR_SAMPLE])


def test_exponential_shape_tensor_param():
    _shapes(D.Exponential(_f32([1.0, 1.0])), (2,), (), (2,), (3, 2, 2),
            ok=[(_ones(3, 2), (3, 2)), (_ones(2, 2), (2, 2))], bad=[_ones(3, 2, 3)])


def test_laplace_shape_scalar_params():
    _shapes(D.Laplace(0, 1), (), (), (), (3, 2),
            ok=[(_ones(3, 2), (3, 2)), (_ones(3, 2, 3), (3, 2, 3))], bad=[SCALAR_SAMPLE])


def test_laplace_shape_tensor_params():
    _shapes(D.Laplace(_f32([0.0, 0.0]), _f32([1.0, 1.0])), (2,), (), (2,), (3, 2, 2),
            ok=[(_ones(3, 2), (3, 2)), (_ones(2, 1), (2, 2))], bad=[_ones(3, 2, 3)])


def test_continuous_bernoulli_shape_scalar_params():
    _shapes(D.ContinuousBernoulli(0.3), (), (), (), (3, 2),
            ok=[(_ones(3, 2), (3, 2)), (_ones(3, 2, 3), (3, 2, 3))], bad=[SCALAR_SAMPLE])


def test_continuous_bernoulli_shape_tensor_params():
    dist = D.ContinuousBernoulli(_f32([[0.6, 0.3], [0.6, 0.3], [0.6, 0.3]]))
    _shapes(dist, (3, 2), (), (3, 2), (3, 2, 3, 2),
            ok=[(_ones(3, 2), (3, 2)), (_ones(3, 1, 1), (3, 3, 2))], bad=[_ones(3, 2, 3)])


def test_mixture_same_family_mean_shape():
    mix = D.Categorical(pyad.ones([3, 1, 3]))
    comp = D.Normal(pyad.zeros([3, 3, 3]), pyad.ones([3, 3, 3]))
    gmm = D.MixtureSameFamily(mix, comp)
    assert len(gmm.mean.shape) == 2
