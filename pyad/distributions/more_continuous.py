"""More scalar continuous families of ``pyad.distributions``, as torch's: the transformed
ones (`Pareto`, `Weibull`, `HalfCauchy`, `Kumaraswamy`, `InverseGamma`, `LogisticNormal`)
and `FisherSnedecor`, `GeneralizedPareto`, `VonMises`, `ContinuousBernoulli`."""
import math

import numpy

import pyad
from pyad.autograd.grad_mode import no_grad
from pyad.distributions import constraints
from pyad.distributions.continuous import Cauchy, Exponential, Normal, Uniform
from pyad.distributions.distribution import (_as_param, _broadcast_all, _clamp_probs,
                                             _binary_logits, _finfo, _rng, _shape)
from pyad.distributions.distribution import Distribution
from pyad.distributions.exp_family import ExponentialFamily
from pyad.distributions.gamma import Gamma
from pyad.distributions.transformed_distribution import TransformedDistribution
from pyad.distributions.transforms import (AbsTransform, AffineTransform, ExpTransform,
                                           PowerTransform, StickBreakingTransform)

__all__ = ["Pareto", "Weibull", "HalfCauchy", "Kumaraswamy", "InverseGamma",
           "LogisticNormal", "FisherSnedecor", "GeneralizedPareto", "VonMises",
           "ContinuousBernoulli"]

_EULER = 0.57721566490153286060
_NAN = float("nan")
_INF = float("inf")


def _nan_where(mask, value):
    # torch writes value[mask] = nan: those entries get no gradient
    return pyad.where(pyad.as_tensor(mask).detach(), _NAN, value)


class _Transformed(TransformedDistribution):
    # a TransformedDistribution whose own parameters (named in _own) expand with it
    _own = ()

    def expand(self, batch_shape, _instance=None):
        new = super().expand(batch_shape)
        for name in self._own:
            if name in self.__dict__:
                new.__dict__[name] = self.__dict__[name].expand(_shape(batch_shape))
        return new

    __repr__ = Distribution.__repr__         # torch's: the parameters it holds itself


class Pareto(_Transformed):
    """The Pareto (type I) distribution: ``scale * exp(E)``, E ~ Exponential(alpha);
    support ``[scale, inf)``.

    >>> import pyad
    >>> Pareto(1.0, 2.0).log_prob(pyad.tensor(2.0))
    tensor(-1.3863)
    """

    arg_constraints = {"alpha": constraints.positive, "scale": constraints.positive}
    _own = ("scale", "alpha")

    def __init__(self, scale, alpha, validate_args=None):
        self.scale, self.alpha = _broadcast_all(scale, alpha)
        base = Exponential(self.alpha, validate_args=validate_args)
        super().__init__(base, [ExpTransform(), AffineTransform(loc=0, scale=self.scale)],
                         validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = super().expand(batch_shape)
        new.transforms = [ExpTransform(), AffineTransform(loc=0, scale=new.scale)]
        return new

    @property
    def mean(self):
        """``alpha scale / (alpha - 1)`` (inf for alpha <= 1)."""
        a = self.alpha.clamp(min=1)
        return a * self.scale / (a - 1)

    @property
    def mode(self):
        """``scale``."""
        return self.scale

    @property
    def variance(self):
        """``scale^2 alpha / ((alpha - 1)^2 (alpha - 2))`` (inf for alpha <= 2)."""
        a = self.alpha.clamp(min=2)
        return self.scale.pow(2) * a / ((a - 1).pow(2) * (a - 2))

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self):
        """``[scale, inf)``."""
        return constraints.greater_than_eq(self.scale)

    def entropy(self):
        """``log(scale / alpha) + 1 + 1 / alpha``."""
        return (self.scale / self.alpha).log() + (1 + self.alpha.reciprocal())


class Weibull(_Transformed):
    """The Weibull distribution: ``scale * E^(1 / concentration)``, E ~ Exponential(1).

    >>> import pyad
    >>> Weibull(1.0, 1.0).log_prob(pyad.tensor(2.0))
    tensor(-2.)
    """

    arg_constraints = {"scale": constraints.positive, "concentration": constraints.positive}
    support = constraints.positive
    _own = ("scale", "concentration", "concentration_reciprocal")

    def __init__(self, scale, concentration, validate_args=None):
        self.scale, self.concentration = _broadcast_all(scale, concentration)
        self.concentration_reciprocal = self.concentration.reciprocal()
        base = Exponential(pyad.ones_like(self.scale), validate_args=validate_args)
        super().__init__(base, [PowerTransform(exponent=self.concentration_reciprocal),
                                AffineTransform(loc=0, scale=self.scale)],
                         validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = super().expand(batch_shape)
        new.concentration_reciprocal = new.concentration.reciprocal()
        new.transforms = [PowerTransform(exponent=new.concentration_reciprocal),
                          AffineTransform(loc=0, scale=new.scale)]
        return new

    @property
    def mean(self):
        """``scale Gamma(1 + 1 / concentration)``."""
        return self.scale * pyad.exp(pyad.lgamma(1 + self.concentration_reciprocal))

    @property
    def mode(self):
        """``scale ((k - 1) / k)^(1 / k)``, k the concentration."""
        k = self.concentration
        return self.scale * ((k - 1) / k) ** k.reciprocal()

    @property
    def variance(self):
        """``scale^2 (Gamma(1 + 2 / k) - Gamma(1 + 1 / k)^2)``."""
        r = self.concentration_reciprocal
        return self.scale.pow(2) * (pyad.exp(pyad.lgamma(1 + 2 * r))
                                    - pyad.exp(2 * pyad.lgamma(1 + r)))

    def entropy(self):
        """``euler (1 - 1 / k) + log(scale / k) + 1``."""
        r = self.concentration_reciprocal
        return _EULER * (1 - r) + pyad.log(self.scale * r) + 1


class HalfCauchy(TransformedDistribution):
    """The distribution of ``|X|``, X ~ Cauchy(0, scale).

    >>> import pyad
    >>> HalfCauchy(1.0).log_prob(pyad.tensor(0.0))
    tensor(-0.4516)
    """

    arg_constraints = {"scale": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True

    def __init__(self, scale, validate_args=None):
        base = Cauchy(0, scale, validate_args=False)
        super().__init__(base, AbsTransform(), validate_args=validate_args)

    @property
    def scale(self):
        """The base Cauchy's scale."""
        return self.base_dist.scale

    @property
    def mean(self):
        """inf."""
        return pyad.full(self._extended_shape(), _INF, dtype=self.scale.dtype)

    @property
    def mode(self):
        """0."""
        return pyad.zeros_like(self.scale)

    @property
    def variance(self):
        """inf (the base Cauchy's)."""
        return self.base_dist.variance

    def log_prob(self, value):
        """``Cauchy.log_prob(value) + log 2`` for value >= 0, -inf below."""
        value = self._value(value, self.scale)
        log_prob = self.base_dist.log_prob(value) + math.log(2)
        return pyad.where(value >= 0, log_prob, -_INF)

    def cdf(self, value):
        """``2 Cauchy.cdf(value) - 1``."""
        if self._validate_args:
            self._validate_sample(value)
        return 2 * self.base_dist.cdf(value) - 1

    def icdf(self, prob):
        """``Cauchy.icdf((prob + 1) / 2)``."""
        return self.base_dist.icdf((prob + 1) / 2)

    def entropy(self):
        """``Cauchy.entropy() - log 2``."""
        return self.base_dist.entropy() - math.log(2)


def _kumaraswamy_moments(a, b, n):
    arg1 = 1 + n / a
    log_value = pyad.lgamma(arg1) + pyad.lgamma(b) - pyad.lgamma(arg1 + b)
    return b * pyad.exp(log_value)


class Kumaraswamy(_Transformed):
    """The Kumaraswamy distribution on (0, 1): ``(1 - U^(1 / b))^(1 / a)``, U uniform,
    a = ``concentration1``, b = ``concentration0``.

    >>> import pyad
    >>> Kumaraswamy(2.0, 3.0).log_prob(pyad.tensor(0.5))
    tensor(0.5232)
    """

    arg_constraints = {"concentration1": constraints.positive,
                       "concentration0": constraints.positive}
    support = constraints.unit_interval
    has_rsample = True
    _own = ("concentration1", "concentration0")

    def __init__(self, concentration1, concentration0, validate_args=None):
        self.concentration1, self.concentration0 = _broadcast_all(concentration1,
                                                                  concentration0)
        base = Uniform(pyad.full_like(self.concentration0, 0),
                       pyad.full_like(self.concentration0, 1), validate_args=validate_args)
        super().__init__(base, self._transforms(), validate_args=validate_args)

    def _transforms(self):
        return [PowerTransform(exponent=self.concentration0.reciprocal()),
                AffineTransform(loc=1.0, scale=-1.0),
                PowerTransform(exponent=self.concentration1.reciprocal())]

    def expand(self, batch_shape, _instance=None):
        new = super().expand(batch_shape)
        new.transforms = new._transforms()
        return new

    @property
    def mean(self):
        """``b B(1 + 1 / a, b)``."""
        return _kumaraswamy_moments(self.concentration1, self.concentration0, 1)

    @property
    def mode(self):
        """``((a - 1) / (a b - 1))^(1 / a)``; nan where a < 1 or b < 1."""
        a, b = self.concentration1, self.concentration0
        log_mode = b.reciprocal() * (-b).log1p() - (-b * a).log1p()
        return _nan_where((b < 1) | (a < 1), log_mode).exp()

    @property
    def variance(self):
        """``b B(1 + 2 / a, b) - mean^2``."""
        return (_kumaraswamy_moments(self.concentration1, self.concentration0, 2)
                - self.mean.pow(2))

    def entropy(self):
        """``(1 - 1 / b) + (1 - 1 / a) H_b - log(a b)``, H_b the harmonic number."""
        t1 = 1 - self.concentration1.reciprocal()
        t0 = 1 - self.concentration0.reciprocal()
        H0 = pyad.digamma(self.concentration0 + 1) + _EULER
        return t0 + t1 * H0 - pyad.log(self.concentration1) - pyad.log(self.concentration0)


class InverseGamma(TransformedDistribution):
    """The distribution of ``1 / X``, X ~ Gamma(concentration, rate).

    >>> import pyad
    >>> InverseGamma(2.0, 1.0).mean
    tensor(1.)
    """

    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, concentration, rate, validate_args=None):
        base = Gamma(concentration, rate, validate_args=validate_args)
        neg_one = -pyad.ones((), dtype=base.rate.dtype)
        super().__init__(base, PowerTransform(neg_one), validate_args=validate_args)

    @property
    def concentration(self):
        """The base Gamma's concentration."""
        return self.base_dist.concentration

    @property
    def rate(self):
        """The base Gamma's rate."""
        return self.base_dist.rate

    @property
    def mean(self):
        """``rate / (concentration - 1)`` (inf for concentration <= 1)."""
        result = self.rate / (self.concentration - 1)
        return pyad.where(self.concentration > 1, result, _INF)

    @property
    def mode(self):
        """``rate / (concentration + 1)``."""
        return self.rate / (self.concentration + 1)

    @property
    def variance(self):
        """``rate^2 / ((a - 1)^2 (a - 2))`` (inf for a <= 2)."""
        a = self.concentration
        result = self.rate.square() / ((a - 1).square() * (a - 2))
        return pyad.where(a > 2, result, _INF)

    def entropy(self):
        """``a + log(rate) + lgamma(a) - (1 + a) digamma(a)``."""
        a = self.concentration
        return a + self.rate.log() + a.lgamma() - (1 + a) * a.digamma()


class LogisticNormal(TransformedDistribution):
    """The logistic-normal distribution on the simplex: a `Normal` vector of size K - 1
    pushed through the `StickBreakingTransform` (event shape ``(K,)``).

    >>> import pyad
    >>> d = LogisticNormal(pyad.zeros(2), pyad.ones(2))
    >>> d.event_shape
    (3,)
    """

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        base = Normal(loc, scale, validate_args=validate_args)
        if not base.batch_shape:
            base = base.expand((1,))
        super().__init__(base, StickBreakingTransform(), validate_args=validate_args)

    @property
    def loc(self):
        """The base Normal's loc."""
        return self.base_dist.base_dist.loc

    @property
    def scale(self):
        """The base Normal's scale."""
        return self.base_dist.base_dist.scale


class FisherSnedecor(Distribution):
    """The F distribution with ``df1`` and ``df2`` degrees of freedom: the ratio of two
    scaled chi-squared draws.

    >>> import pyad
    >>> FisherSnedecor(2.0, 4.0).log_prob(pyad.tensor(1.0))
    tensor(-1.2164)
    """

    arg_constraints = {"df1": constraints.positive, "df2": constraints.positive}
    support = constraints.positive
    has_rsample = True
    _param_names = ("df1", "df2")

    def __init__(self, df1, df2, validate_args=None):
        self.df1, self.df2 = _broadcast_all(df1, df2)
        # torch builds (and validates) the two gammas first
        self._gamma1 = Gamma(self.df1 * 0.5, self.df1)
        self._gamma2 = Gamma(self.df2 * 0.5, self.df2)
        super().__init__(self.df1.shape, (), validate_args)

    def expand(self, batch_shape, _instance=None):
        """The same distribution with its batch expanded to ``batch_shape``."""
        new = super().expand(batch_shape)
        new._gamma1 = self._gamma1.expand(batch_shape)
        new._gamma2 = self._gamma2.expand(batch_shape)
        return new

    @property
    def mean(self):
        """``df2 / (df2 - 2)`` (nan for df2 <= 2)."""
        df2 = _nan_where(self.df2 <= 2, self.df2)
        return df2 / (df2 - 2)

    @property
    def mode(self):
        """``(df1 - 2) / df1 * df2 / (df2 + 2)`` (nan for df1 <= 2)."""
        mode = (self.df1 - 2) / self.df1 * self.df2 / (self.df2 + 2)
        return _nan_where(self.df1 <= 2, mode)

    @property
    def variance(self):
        """``2 df2^2 (df1 + df2 - 2) / (df1 (df2 - 2)^2 (df2 - 4))`` (nan for df2 <= 4)."""
        df2 = _nan_where(self.df2 <= 4, self.df2)
        return 2 * df2.pow(2) * (self.df1 + df2 - 2) / (
            self.df1 * (df2 - 2).pow(2) * (df2 - 4))

    def rsample(self, sample_shape=()):
        """``X1 / X2``, X1, X2 the scaled gamma draws: differentiable in df1 and df2."""
        shape = self._extended_shape(sample_shape)
        x1 = self._gamma1.rsample(sample_shape).reshape(shape)
        x2 = self._gamma2.rsample(sample_shape).reshape(shape)
        tiny = float(_finfo(x2.dtype).tiny)
        return (x1 / x2.clamp(min=tiny)).clamp(min=tiny)

    def log_prob(self, value):
        """The log density of the F distribution."""
        value = self._value(value, self.df1)
        ct1, ct2 = self.df1 * 0.5, self.df2 * 0.5
        ct3 = self.df1 / self.df2
        t1 = (ct1 + ct2).lgamma() - ct1.lgamma() - ct2.lgamma()
        t2 = ct1 * ct3.log() + (ct1 - 1) * pyad.log(value)
        t3 = (ct1 + ct2) * pyad.log1p(ct3 * value)
        return t1 + t2 - t3


class GeneralizedPareto(Distribution):
    """The generalized Pareto distribution with location ``loc``, scale ``scale`` and
    shape ``concentration`` (Exponential at concentration 0).

    >>> import pyad
    >>> GeneralizedPareto(0.0, 1.0, 0.0).log_prob(pyad.tensor(1.0))
    tensor(-1.)
    """

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive,
                       "concentration": constraints.real}
    has_rsample = True
    _param_names = ("loc", "scale", "concentration")

    def __init__(self, loc, scale, concentration, validate_args=None):
        self.loc, self.scale, self.concentration = _broadcast_all(loc, scale, concentration)
        super().__init__(self.loc.shape, (), validate_args)

    def _safe_conc(self):
        eq_zero = pyad.isclose(self.concentration, pyad.zeros_like(self.concentration))
        return eq_zero, pyad.where(eq_zero, pyad.ones_like(self.concentration),
                                   self.concentration)

    def rsample(self, sample_shape=()):
        """``icdf(u)``, u uniform: differentiable in the three parameters."""
        shape = self._extended_shape(sample_shape)
        return self.icdf(pyad.rand(*shape, dtype=self.loc.dtype))

    def _z(self, x):
        return (x - self.loc) / self.scale

    def log_prob(self, value):
        """``-log(scale) - (1 / c + 1) log1p(c z)``, z = (value - loc) / scale (``-z`` at
        c = 0)."""
        value = self._value(value, self.loc)
        z = self._z(value)
        eq_zero, safe_conc = self._safe_conc()
        y = 1 / safe_conc + pyad.ones_like(z)
        where_nonzero = pyad.where(y == 0, y, y * pyad.log1p(safe_conc * z))
        return -self.scale.log() - pyad.where(eq_zero, z, where_nonzero)

    def log_survival_function(self, value):
        """``log P(X > value)``."""
        value = self._value(value, self.loc)
        z = self._z(value)
        eq_zero, safe_conc = self._safe_conc()
        where_nonzero = -pyad.log1p(safe_conc * z) / safe_conc
        return pyad.where(eq_zero, -z, where_nonzero)

    def log_cdf(self, value):
        """``log P(X <= value)``."""
        return pyad.log1p(-pyad.exp(self.log_survival_function(value)))

    def cdf(self, value):
        """``P(X <= value)``."""
        return pyad.exp(self.log_cdf(value))

    def icdf(self, value):
        """``loc + scale / c * expm1(-c log1p(-value))`` (``loc - scale log1p(-value)`` at
        c = 0)."""
        value = _as_param(value, self.loc)
        eq_zero, safe_conc = self._safe_conc()
        logu = pyad.log1p(-value)
        where_nonzero = self.loc + self.scale / safe_conc * pyad.expm1(-safe_conc * logu)
        where_zero = self.loc - self.scale * logu
        return pyad.where(eq_zero, where_zero, where_nonzero)

    @property
    def mean(self):
        """``loc + scale / (1 - c)`` (nan for c >= 1)."""
        valid = self.concentration < 1
        safe_conc = pyad.where(valid, self.concentration, 0.5)
        return pyad.where(valid, self.loc + self.scale / (1 - safe_conc), _NAN)

    @property
    def variance(self):
        """``scale^2 / ((1 - c)^2 (1 - 2 c))`` (nan for c >= 1/2)."""
        valid = self.concentration < 0.5
        safe_conc = pyad.where(valid, self.concentration, 0.25)
        result = self.scale ** 2 / ((1 - safe_conc) ** 2 * (1 - 2 * safe_conc))
        return pyad.where(valid, result, _NAN)

    def entropy(self):
        """``log(scale) + c + 1``."""
        return pyad.broadcast_to(pyad.log(self.scale) + self.concentration + 1,
                                 self._batch_shape)

    @property
    def mode(self):
        """``loc``."""
        return self.loc

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self):
        """``[loc, loc - scale / c]`` for c < 0, ``[loc, inf]`` otherwise."""
        lower = self.loc
        upper = pyad.where(self.concentration < 0, lower - self.scale / self.concentration,
                           _INF)
        return constraints.interval(lower, upper)


# the polynomial approximations of log I0 and log I1 torch uses (Abramowitz & Stegun)
_I0_COEF_SMALL = [1.0, 3.5156229, 3.0899424, 1.2067492, 0.2659732, 0.0360768, 0.0045813]
_I0_COEF_LARGE = [0.39894228, 0.01328592, 0.00225319, -0.00157565, 0.00916281,
                  -0.02057706, 0.02635537, -0.01647633, 0.00392377]
_I1_COEF_SMALL = [0.5, 0.87890594, 0.51498869, 0.15084934, 0.02658733, 0.00301532,
                  0.00032411]
_I1_COEF_LARGE = [0.39894228, -0.03988024, -0.00362018, 0.00163801, -0.01031555,
                  0.02282967, -0.02895312, 0.01787654, -0.00420059]


def _eval_poly(y, coef):
    result = coef[-1]
    for c in reversed(coef[:-1]):
        result = c + y * result
    return result


def _log_modified_bessel_fn(x, order=0):
    small_coef, large_coef = ((_I0_COEF_SMALL, _I0_COEF_LARGE) if order == 0
                              else (_I1_COEF_SMALL, _I1_COEF_LARGE))
    y = (x / 3.75) ** 2
    small = _eval_poly(y, small_coef)
    if order == 1:
        small = x.abs() * small
    small = small.log()
    large = x - 0.5 * x.log() + _eval_poly(3.75 / x, large_coef).log()
    return pyad.where(x < 3.75, small, large)


def _von_mises_rejection(rng, loc, kappa, shape):
    # Best & Fisher's rejection sampler, in float64 (as torch)
    tau = 1 + numpy.sqrt(1 + 4 * kappa ** 2)
    rho = (tau - numpy.sqrt(2 * tau)) / (2 * kappa)
    with numpy.errstate(divide="ignore", invalid="ignore"):
        proposal_r = numpy.where(kappa < 1e-5, 1 / kappa + kappa, (1 + rho ** 2) / (2 * rho))
    loc, kappa, proposal_r = (numpy.broadcast_to(a, shape) for a in (loc, kappa, proposal_r))
    x = numpy.zeros(shape)
    done = numpy.zeros(shape, dtype=bool)
    while not done.all():
        u1, u2, u3 = rng.random((3,) + tuple(shape))
        z = numpy.cos(math.pi * u1)
        f = (1 + proposal_r * z) / (proposal_r + z)
        c = kappa * (proposal_r - f)
        with numpy.errstate(divide="ignore", invalid="ignore"):
            accept = (c * (2 - c) - u2 > 0) | (numpy.log(c / u2) + 1 - c >= 0)
        accept &= ~done
        x = numpy.where(accept, numpy.sign(u3 - 0.5) * numpy.arccos(numpy.clip(f, -1, 1)), x)
        done |= accept
    return (x + math.pi + loc) % (2 * math.pi) - math.pi


class VonMises(Distribution):
    """The von Mises (circular normal) distribution on angles, with mean direction
    ``loc`` and concentration ``concentration``.

    >>> import pyad
    >>> VonMises(0.0, 1.0).log_prob(pyad.tensor(0.0))
    tensor(-1.0738)
    """

    arg_constraints = {"loc": constraints.real, "concentration": constraints.positive}
    support = constraints.real
    has_rsample = False
    _param_names = ("loc", "concentration")

    def __init__(self, loc, concentration, validate_args=None):
        self.loc, self.concentration = _broadcast_all(loc, concentration)
        super().__init__(self.loc.shape, (), validate_args)

    def log_prob(self, value):
        """``kappa cos(value - loc) - log(2 pi I0(kappa))``."""
        value = self._value(value, self.loc)
        log_prob = self.concentration * pyad.cos(value - self.loc)
        return (log_prob - math.log(2 * math.pi)
                - _log_modified_bessel_fn(self.concentration, order=0))

    def sample(self, sample_shape=()):
        """Angles in [-pi, pi) (no gradient), by rejection sampling."""
        shape = self._extended_shape(sample_shape)
        loc = numpy.asarray(self.loc.detach().data, dtype=numpy.float64)
        kappa = numpy.asarray(self.concentration.detach().data, dtype=numpy.float64)
        draws = _von_mises_rejection(_rng(self.loc), loc, kappa, shape)
        return pyad.tensor(draws.astype(self.loc.dtype))

    @property
    def mean(self):
        """``loc`` (the circular mean)."""
        return self.loc

    @property
    def mode(self):
        """``loc``."""
        return self.loc

    @property
    def variance(self):
        """The circular variance ``1 - I1(kappa) / I0(kappa)``."""
        k = self.concentration
        return 1 - (_log_modified_bessel_fn(k, order=1)
                    - _log_modified_bessel_fn(k, order=0)).exp()


class ContinuousBernoulli(ExponentialFamily):
    """The continuous Bernoulli distribution on [0, 1] (Loaiza-Ganem & Cunningham, 2019),
    with density proportional to ``probs^x (1 - probs)^(1 - x)``; near ``probs = 1/2``
    (inside ``lims``) Taylor expansions are used, as torch.

    >>> import pyad
    >>> ContinuousBernoulli(probs=pyad.tensor(0.8)).mean
    tensor(0.6120)
    """

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.unit_interval
    _mean_carrier_measure = 0
    has_rsample = True
    _param_names = ("probs", "logits")

    def __init__(self, probs=None, logits=None, lims=(0.499, 0.501), validate_args=None):
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            (probs,) = _broadcast_all(probs)
            if validate_args is not None and not bool(
                    self.arg_constraints["probs"].check(probs).all()):
                raise ValueError("The parameter probs has invalid values")
            self.probs = _clamp_probs(probs)
            param = self.probs
        else:
            (self.logits,) = _broadcast_all(logits)
            param = self.logits
        self._lims = lims
        super().__init__(param.shape, (), validate_args)

    def __getattr__(self, name):
        if name == "probs" and "logits" in self.__dict__:
            value = _clamp_probs(pyad.sigmoid(self.__dict__["logits"]))
        elif name == "logits" and "probs" in self.__dict__:
            value = _binary_logits(self.__dict__["probs"])
        else:
            raise AttributeError("%r object has no attribute %r" % (type(self).__name__, name))
        self.__dict__[name] = value
        return value

    @property
    def _param(self):
        return self.__dict__["probs"] if "probs" in self.__dict__ else self.__dict__["logits"]

    @property
    def param_shape(self):
        """The shape of ``probs`` / ``logits``."""
        return tuple(self._param.shape)

    def _outside_unstable_region(self):
        return (self.probs <= self._lims[0]) | (self.probs > self._lims[1])

    def _cut_probs(self):
        return pyad.where(self._outside_unstable_region(), self.probs,
                          self._lims[0] * pyad.ones_like(self.probs))

    def _cont_bern_log_norm(self):
        cut = self._cut_probs()
        below = pyad.where(cut <= 0.5, cut, pyad.zeros_like(cut))
        above = pyad.where(cut >= 0.5, cut, pyad.ones_like(cut))
        log_norm = (pyad.log(pyad.abs(pyad.log1p(-cut) - pyad.log(cut)))
                    - pyad.where(cut <= 0.5, pyad.log1p(-2.0 * below),
                                 pyad.log(2.0 * above - 1.0)))
        x = (self.probs - 0.5) ** 2
        taylor = math.log(2.0) + (4.0 / 3.0 + 104.0 / 45.0 * x) * x
        return pyad.where(self._outside_unstable_region(), log_norm, taylor)

    @property
    def mean(self):
        """``p / (2p - 1) + 1 / (log(1 - p) - log p)``."""
        cut = self._cut_probs()
        mus = cut / (2.0 * cut - 1.0) + 1.0 / (pyad.log1p(-cut) - pyad.log(cut))
        x = self.probs - 0.5
        taylor = 0.5 + (1.0 / 3.0 + 16.0 / 45.0 * x ** 2) * x
        return pyad.where(self._outside_unstable_region(), mus, taylor)

    @property
    def variance(self):
        """``p (p - 1) / (1 - 2p)^2 + 1 / (log(1 - p) - log p)^2``."""
        cut = self._cut_probs()
        var = (cut * (cut - 1.0) / (1.0 - 2.0 * cut) ** 2
               + 1.0 / (pyad.log1p(-cut) - pyad.log(cut)) ** 2)
        x = (self.probs - 0.5) ** 2
        taylor = 1.0 / 12.0 - (1.0 / 15.0 - 128.0 / 945.0 * x) * x
        return pyad.where(self._outside_unstable_region(), var, taylor)

    def sample(self, sample_shape=()):
        """``icdf(u)``, u uniform (no gradient)."""
        with no_grad():
            return self.rsample(sample_shape)

    def rsample(self, sample_shape=()):
        """``icdf(u)``, u uniform: differentiable in the parameter."""
        shape = self._extended_shape(sample_shape)
        return self.icdf(pyad.rand(*shape, dtype=self.probs.dtype))

    def log_prob(self, value):
        """``x log p + (1 - x) log(1 - p) + log C(p)``."""
        value = self._value(value, self.probs)
        logits, value = pyad.broadcast_tensors(self.logits, value)
        bce = pyad.nn.functional.binary_cross_entropy_with_logits(logits, value,
                                                                   reduction="none")
        return -bce + self._cont_bern_log_norm()

    def cdf(self, value):
        """``(p^x (1 - p)^(1 - x) + p - 1) / (2p - 1)``, clamped to [0, 1]."""
        value = self._value(value, self.probs)
        cut = self._cut_probs()
        cdfs = (cut ** value * (1.0 - cut) ** (1.0 - value) + cut - 1.0) / (2.0 * cut - 1.0)
        unbounded = pyad.where(self._outside_unstable_region(), cdfs, value)
        return pyad.where(value <= 0.0, pyad.zeros_like(value),
                          pyad.where(value >= 1.0, pyad.ones_like(value), unbounded))

    def icdf(self, value):
        """The inverse of `cdf`."""
        value = _as_param(value, self.probs)
        cut = self._cut_probs()
        return pyad.where(self._outside_unstable_region(),
                          (pyad.log1p(-cut + value * (2.0 * cut - 1.0)) - pyad.log1p(-cut))
                          / (pyad.log(cut) - pyad.log1p(-cut)), value)

    def entropy(self):
        """``mean (log(1 - p) - log p) - log C(p) - log(1 - p)``."""
        log_probs0 = pyad.log1p(-self.probs)
        log_probs1 = pyad.log(self.probs)
        return self.mean * (log_probs0 - log_probs1) - self._cont_bern_log_norm() - log_probs0

    @property
    def _natural_params(self):
        return (self.logits,)

    def _log_normalizer(self, x):
        out = (x <= self._lims[0] - 0.5) | (x > self._lims[1] - 0.5)
        cut = pyad.where(out, x, (self._lims[0] - 0.5) * pyad.ones_like(x))
        log_norm = pyad.log(pyad.abs(pyad.expm1(cut))) - pyad.log(pyad.abs(cut))
        taylor = 0.5 * x + x ** 2 / 24.0 - x ** 4 / 2880.0
        return pyad.where(out, log_norm, taylor)
