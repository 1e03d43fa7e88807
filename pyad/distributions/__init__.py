"""``pyad.distributions``: the probability distributions of ``torch.distributions``.

Continuous families (`Normal`, `Uniform`, `Exponential`, `Laplace`, `LogNormal`,
`HalfNormal`, `Cauchy`, `Gumbel`, `Gamma`, `Chi2`, `Beta`, `Dirichlet`, `StudentT`,
`MultivariateNormal`, `LowRankMultivariateNormal`, `Pareto`, `Weibull`, `HalfCauchy`,
`Kumaraswamy`, `InverseGamma`, `LogisticNormal`, `FisherSnedecor`, `GeneralizedPareto`,
`VonMises`, `ContinuousBernoulli`, `Wishart`, `LKJCholesky`), discrete ones (`Bernoulli`,
`Categorical`, `OneHotCategorical`, `OneHotCategoricalStraightThrough`, `Geometric`,
`Poisson`, `Binomial`, `NegativeBinomial`, `Multinomial`), their relaxations
(`RelaxedBernoulli`, `RelaxedOneHotCategorical`) and the combinators `Independent`,
`MixtureSameFamily` and `TransformedDistribution` (with the `transforms`, also exported
here, and the `biject_to` / `transform_to` registries), with torch's constructors,
shapes (``batch_shape``, ``event_shape``, ``sample_shape``), ``arg_constraints`` and
``support`` (`constraints`),
``expand``, ``sample`` (no gradient), ``rsample`` (reparameterised, differentiable in the
parameters) where torch has it, ``log_prob``, ``entropy``, ``perplexity``, ``mean``,
``mode``, ``variance``, ``stddev``, ``cdf``/``icdf`` and ``enumerate_support`` where
torch has them, and `kl_divergence` for torch's pairs. Everything is written with
differentiable pyad ops, so ``log_prob`` and ``entropy`` can be differentiated to any
order, and samples come from pyad's generator (``pyad.manual_seed`` reproduces them).

Parameters are validated as torch does by default (``validate_args``), with torch's
``ValueError`` wording; ``Distribution.set_default_validate_args(False)`` turns it off.

>>> import pyad
>>> from pyad.distributions import Normal, Categorical
>>> d = Normal(pyad.tensor([0.0, 1.0]), pyad.tensor([1.0, 2.0]))
>>> d.batch_shape, d.log_prob(pyad.tensor([0.0, 1.0]))
((2,), tensor([-0.9189, -1.6121]))
>>> c = Categorical(probs=pyad.tensor([0.25, 0.75]))
>>> c.log_prob(pyad.tensor(1)), c.entropy()
(tensor(-0.2877), tensor(0.5623))
"""
from pyad.distributions import categorical, constraints, normal, transforms
from pyad.distributions.continuous import (Cauchy, Exponential, Gumbel, HalfNormal, Laplace,
                                           LogNormal, Normal, Uniform)
from pyad.distributions.discrete import (Bernoulli, Binomial, Categorical, Geometric,
                                         OneHotCategorical, Poisson)
from pyad.distributions.distribution import Distribution
from pyad.distributions.gamma import Beta, Chi2, Dirichlet, Gamma, StudentT
from pyad.distributions.kl import kl_divergence, register_kl
from pyad.distributions.multivariate import Independent, MixtureSameFamily, MultivariateNormal
from pyad.distributions.relaxed import RelaxedBernoulli, RelaxedOneHotCategorical
from pyad.distributions.transformed_distribution import TransformedDistribution
from pyad.distributions.exp_family import ExponentialFamily
from pyad.distributions.matrix import LKJCholesky, LowRankMultivariateNormal, Wishart
from pyad.distributions.more_continuous import (ContinuousBernoulli, FisherSnedecor,
                                                GeneralizedPareto, HalfCauchy, InverseGamma,
                                                Kumaraswamy, LogisticNormal, Pareto,
                                                VonMises, Weibull)
from pyad.distributions.more_discrete import (Multinomial, NegativeBinomial,
                                              OneHotCategoricalStraightThrough)
from pyad.distributions.transforms import (  # noqa: F401 (torch exports them here too)
    AbsTransform, AffineTransform, CatTransform, ComposeTransform, CorrCholeskyTransform,
    CumulativeDistributionTransform, ExpTransform, IndependentTransform,
    LowerCholeskyTransform, PositiveDefiniteTransform, PowerTransform, ReshapeTransform,
    SigmoidTransform, SoftmaxTransform, SoftplusTransform, StackTransform,
    StickBreakingTransform, TanhTransform, Transform, identity_transform)
from pyad.distributions.constraint_registry import biject_to, transform_to
# torch's module paths (torch.distributions.bernoulli.Bernoulli, ...)
from pyad.distributions import (  # noqa: F401,E402
    bernoulli, beta, binomial, cauchy, chi2, dirichlet, exp_family, exponential, geometric,
    gumbel, half_normal, independent, laplace, log_normal, mixture_same_family,
    multivariate_normal, one_hot_categorical, poisson, relaxed_bernoulli, relaxed_categorical,
    studentT, uniform, utils, distribution, kl, gamma, transformed_distribution,
    continuous_bernoulli, fishersnedecor, generalized_pareto, half_cauchy, inverse_gamma,
    kumaraswamy, lkj_cholesky, logistic_normal, lowrank_multivariate_normal, multinomial,
    negative_binomial, pareto, von_mises, weibull, wishart, constraint_registry,
)

__all__ = ["Distribution", "Normal", "Uniform", "Bernoulli", "Categorical", "kl_divergence",
           "register_kl", "constraints", "Exponential", "Laplace", "LogNormal", "HalfNormal",
           "Cauchy", "Gumbel", "Geometric", "Poisson", "Binomial", "OneHotCategorical",
           "Beta", "Gamma", "Dirichlet", "Chi2", "StudentT", "MultivariateNormal",
           "Independent", "MixtureSameFamily", "RelaxedBernoulli", "RelaxedOneHotCategorical",
           "TransformedDistribution", "transforms", "ExponentialFamily",
           "LowRankMultivariateNormal", "Wishart", "LKJCholesky", "VonMises",
           "ContinuousBernoulli", "FisherSnedecor", "Kumaraswamy", "NegativeBinomial",
           "Pareto", "Weibull", "LogisticNormal", "HalfCauchy", "Multinomial",
           "GeneralizedPareto", "InverseGamma", "OneHotCategoricalStraightThrough",
           "biject_to", "transform_to", "AbsTransform", "AffineTransform", "CatTransform",
           "ComposeTransform", "CorrCholeskyTransform", "CumulativeDistributionTransform",
           "ExpTransform", "IndependentTransform", "LowerCholeskyTransform",
           "PositiveDefiniteTransform", "PowerTransform", "ReshapeTransform",
           "SigmoidTransform", "SoftmaxTransform", "SoftplusTransform", "StackTransform",
           "StickBreakingTransform", "TanhTransform", "Transform", "identity_transform"]
