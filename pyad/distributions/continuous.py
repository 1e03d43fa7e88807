"""The location-scale and other continuous families of ``pyad.distributions`` whose
samplers are a transform of a uniform or normal draw: `Normal`, `Uniform`,
`Exponential`, `Laplace`, `LogNormal`, `HalfNormal`, `Cauchy`, `Gumbel`."""
import math

import pyad
from pyad.autograd.grad_mode import no_grad
from pyad.distributions import constraints
from pyad.distributions.distribution import Distribution, _broadcast_all, _finfo
from pyad.distributions.exp_family import ExponentialFamily

__all__ = ["Normal", "Uniform", "Exponential", "Laplace", "LogNormal", "HalfNormal", "Cauchy",
           "Gumbel"]

_LOG_SQRT_2PI = 0.5 * math.log(2 * math.pi)
_EULER = 0.57721566490153286060


class _LocScale(Distribution):
    # loc and scale broadcast together; rsample is loc + scale * a standard draw
    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True
    _param_names = ("loc", "scale")

    def __init__(self, loc, scale, validate_args=None):
        self.loc, self.scale = _broadcast_all(loc, scale)
        super().__init__(self.loc.shape, (), validate_args)

    @property
    def mode(self):
        """``loc``."""
        return self.loc

    def rsample(self, sample_shape=()):
        """``loc + scale * eps``, eps a standard draw: differentiable in loc and scale."""
        shape = self._extended_shape(sample_shape)
        return self.loc + self._standard(shape) * self.scale


class Normal(_LocScale, ExponentialFamily):
    """The normal distribution N(loc, scale^2), batched over the broadcast shape of
    ``loc`` and ``scale``.

    >>> import pyad
    >>> Normal(0.0, 2.0).entropy()
    tensor(2.1121)
    """

    @property
    def mean(self):
        """``loc``."""
        return self.loc

    @property
    def stddev(self):
        """``scale``."""
        return self.scale

    @property
    def variance(self):
        """``scale ** 2``."""
        return self.scale.pow(2)

    def _standard(self, shape):
        return pyad.randn(*shape, dtype=self.loc.dtype)

    def sample(self, sample_shape=()):
        """A sample (no gradient)."""
        shape = self._extended_shape(sample_shape)
        with no_grad():
            return pyad.normal(self.loc.expand(shape), self.scale.expand(shape))

    def log_prob(self, value):
        """The log density at ``value``."""
        value = self._value(value, self.loc)
        var = self.scale ** 2
        return -((value - self.loc) ** 2) / (2 * var) - self.scale.log() - _LOG_SQRT_2PI

    def cdf(self, value):
        """P(X <= value)."""
        value = self._value(value, self.loc)
        return 0.5 * (1 + pyad.erf((value - self.loc) * self.scale.reciprocal()
                                   / math.sqrt(2)))

    def icdf(self, value):
        """The quantile function, ``loc + scale sqrt(2) erfinv(2 value - 1)``."""
        return self.loc + self.scale * pyad.erfinv(2 * value - 1) * math.sqrt(2)

    def entropy(self):
        """The differential entropy, ``0.5 + 0.5 log(2 pi) + log(scale)``."""
        return 0.5 + 0.5 * math.log(2 * math.pi) + pyad.log(self.scale)

    @property
    def _natural_params(self):
        return (self.loc / self.scale.pow(2), -0.5 * self.scale.pow(2).reciprocal())

    def _log_normalizer(self, x, y):
        return -0.25 * x.pow(2) / y + 0.5 * pyad.log(-math.pi / y)

    _mean_carrier_measure = 0


class Uniform(Distribution):
    """The uniform distribution on ``[low, high)``.

    >>> import pyad
    >>> Uniform(0.0, 4.0).log_prob(pyad.tensor(1.0))
    tensor(-1.3863)
    """

    has_rsample = True
    _param_names = ("low", "high")

    def __init__(self, low, high, validate_args=None):
        self.low, self.high = _broadcast_all(low, high)
        super().__init__(self.low.shape, (), validate_args)

    @property
    def arg_constraints(self):
        """``low < high``, each bound by the other."""
        return {"low": constraints.less_than(self.high),
                "high": constraints.greater_than(self.low)}

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self):
        """``[low, high)``."""
        return constraints.interval(self.low, self.high)

    @property
    def mean(self):
        """``(low + high) / 2``."""
        return (self.high + self.low) / 2

    @property
    def mode(self):
        """nan: every point of the support is a mode."""
        return float("nan") * self.high

    @property
    def stddev(self):
        """``(high - low) / sqrt(12)``."""
        return (self.high - self.low) / 12 ** 0.5

    @property
    def variance(self):
        """``(high - low) ** 2 / 12``."""
        return (self.high - self.low).pow(2) / 12

    def rsample(self, sample_shape=()):
        """``low + u * (high - low)``, u uniform on [0, 1): differentiable in both."""
        shape = self._extended_shape(sample_shape)
        u = pyad.rand(*shape, dtype=self.low.dtype)
        return self.low + u * (self.high - self.low)

    def log_prob(self, value):
        """``-log(high - low)`` inside ``[low, high)``, ``-inf`` outside."""
        value = self._value(value, self.low)
        lb = (self.low <= value).to(self.low.dtype)
        ub = (self.high > value).to(self.low.dtype)
        return pyad.log(lb * ub) - pyad.log(self.high - self.low)

    def cdf(self, value):
        """P(X <= value), clamped to [0, 1]."""
        value = self._value(value, self.low)
        return ((value - self.low) / (self.high - self.low)).clamp(0, 1)

    def icdf(self, value):
        """``low + value * (high - low)``."""
        return value * (self.high - self.low) + self.low

    def entropy(self):
        """``log(high - low)``."""
        return pyad.log(self.high - self.low)


class Exponential(ExponentialFamily):
    """The exponential distribution with rate ``rate`` (mean ``1 / rate``).

    >>> import pyad
    >>> Exponential(pyad.tensor(2.0)).log_prob(pyad.tensor(1.0))
    tensor(-1.3069)
    """

    arg_constraints = {"rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True
    _param_names = ("rate",)

    def __init__(self, rate, validate_args=None):
        (self.rate,) = _broadcast_all(rate)
        super().__init__(self.rate.shape, (), validate_args)

    @property
    def mean(self):
        """``1 / rate``."""
        return self.rate.reciprocal()

    @property
    def mode(self):
        """0."""
        return pyad.zeros_like(self.rate)

    @property
    def stddev(self):
        """``1 / rate``."""
        return self.rate.reciprocal()

    @property
    def variance(self):
        """``rate ** -2``."""
        return self.rate.pow(-2)

    def rsample(self, sample_shape=()):
        """``e / rate``, e a standard exponential draw: differentiable in rate."""
        shape = self._extended_shape(sample_shape)
        with no_grad():
            e = pyad.empty(*shape, dtype=self.rate.dtype).exponential_()
        return e / self.rate

    def log_prob(self, value):
        """``log(rate) - rate * value``."""
        value = self._value(value, self.rate)
        return self.rate.log() - self.rate * value

    def cdf(self, value):
        """``1 - exp(-rate * value)``."""
        value = self._value(value, self.rate)
        return 1 - pyad.exp(-self.rate * value)

    def icdf(self, value):
        """``-log1p(-value) / rate``."""
        return -pyad.log1p(-value) / self.rate

    def entropy(self):
        """``1 - log(rate)``."""
        return 1.0 - pyad.log(self.rate)

    @property
    def _natural_params(self):
        return (-self.rate,)

    def _log_normalizer(self, x):
        return -pyad.log(-x)

    _mean_carrier_measure = 0


class Laplace(_LocScale):
    """The Laplace (double exponential) distribution with location ``loc`` and scale
    ``scale``.

    >>> import pyad
    >>> Laplace(0.0, 1.0).log_prob(pyad.tensor(1.0))
    tensor(-1.6931)
    """

    @property
    def mean(self):
        """``loc``."""
        return self.loc

    @property
    def variance(self):
        """``2 scale ** 2``."""
        return 2 * self.scale.pow(2)

    @property
    def stddev(self):
        """``sqrt(2) scale``."""
        return (2 ** 0.5) * self.scale

    def rsample(self, sample_shape=()):
        """``loc - scale sign(u) log1p(-|u|)``, u uniform on (eps - 1, 1)."""
        shape = self._extended_shape(sample_shape)
        eps = float(_finfo(self.loc.dtype).eps)
        with no_grad():
            u = pyad.empty(*shape, dtype=self.loc.dtype).uniform_(eps - 1, 1)
        return self.loc - self.scale * u.sign() * pyad.log1p(-u.abs())

    def log_prob(self, value):
        """``-log(2 scale) - |value - loc| / scale``."""
        value = self._value(value, self.loc)
        return -pyad.log(2 * self.scale) - pyad.abs(value - self.loc) / self.scale

    def cdf(self, value):
        """``0.5 - 0.5 sign(z) expm1(-|z|)``, z = (value - loc) / scale."""
        value = self._value(value, self.loc)
        return 0.5 - 0.5 * (value - self.loc).sign() * pyad.expm1(
            -(value - self.loc).abs() / self.scale)

    def icdf(self, value):
        """``loc - scale sign(value - 0.5) log1p(-2 |value - 0.5|)``."""
        term = value - 0.5
        return self.loc - self.scale * term.sign() * pyad.log1p(-2 * term.abs())

    def entropy(self):
        """``1 + log(2 scale)``."""
        return 1 + pyad.log(2 * self.scale)


class LogNormal(_LocScale):
    """The distribution of ``exp(X)``, X ~ Normal(loc, scale).

    >>> import pyad
    >>> LogNormal(0.0, 1.0).mean
    tensor(1.6487)
    """

    support = constraints.positive

    def __init__(self, loc, scale, validate_args=None):
        # torch builds (and validates) its base Normal first
        Normal(loc, scale, validate_args=validate_args)
        super().__init__(loc, scale, validate_args)

    @property
    def base_dist(self):
        """The `Normal` distribution of ``log(X)``."""
        return Normal(self.loc, self.scale, validate_args=False)

    @property
    def mean(self):
        """``exp(loc + scale^2 / 2)``."""
        return (self.loc + self.scale.pow(2) / 2).exp()

    @property
    def mode(self):
        """``exp(loc - scale^2)``."""
        return (self.loc - self.scale.square()).exp()

    @property
    def variance(self):
        """``expm1(scale^2) exp(2 loc + scale^2)``."""
        scale_sq = self.scale.pow(2)
        return scale_sq.expm1() * (2 * self.loc + scale_sq).exp()

    def rsample(self, sample_shape=()):
        """``exp(loc + scale * eps)``: differentiable in loc and scale."""
        return self.base_dist.rsample(sample_shape).exp()

    def log_prob(self, value):
        """``Normal.log_prob(log value) - log value``."""
        value = self._value(value, self.loc)
        x = value.log()
        return self.base_dist.log_prob(x) - x

    def cdf(self, value):
        """``Normal.cdf(log value)``."""
        value = self._value(value, self.loc)
        return self.base_dist.cdf(value.log())

    def icdf(self, value):
        """``exp(Normal.icdf(value))``."""
        return self.base_dist.icdf(value).exp()

    def entropy(self):
        """``Normal.entropy() + loc``."""
        return self.base_dist.entropy() + self.loc

    def __repr__(self):
        return "LogNormal()"                     # torch's: the parameters are its base's


class HalfNormal(Distribution):
    """The distribution of ``|X|``, X ~ Normal(0, scale).

    >>> import pyad
    >>> HalfNormal(pyad.tensor(1.0)).log_prob(pyad.tensor(0.0))
    tensor(-0.2258)
    """

    arg_constraints = {"scale": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True
    _param_names = ("scale",)

    def __init__(self, scale, validate_args=None):
        (self.scale,) = _broadcast_all(scale)
        super().__init__(self.scale.shape, (), validate_args)

    @property
    def base_dist(self):
        """The `Normal` distribution N(0, scale) folded at 0."""
        return Normal(0.0, self.scale, validate_args=False)

    @property
    def mean(self):
        """``scale sqrt(2 / pi)``."""
        return self.scale * math.sqrt(2 / math.pi)

    @property
    def mode(self):
        """0."""
        return pyad.zeros_like(self.scale)

    @property
    def variance(self):
        """``scale^2 (1 - 2 / pi)``."""
        return self.scale.pow(2) * (1 - 2 / math.pi)

    def rsample(self, sample_shape=()):
        """``|scale * eps|``: differentiable in scale."""
        return self.base_dist.rsample(sample_shape).abs()

    def log_prob(self, value):
        """``Normal.log_prob(value) + log 2`` for value >= 0, -inf below."""
        value = self._value(value, self.scale)
        log_prob = self.base_dist.log_prob(value) + math.log(2)
        return pyad.where(value >= 0, log_prob, float("-inf"))

    def cdf(self, value):
        """``2 Normal.cdf(value) - 1``."""
        value = self._value(value, self.scale)
        return 2 * self.base_dist.cdf(value) - 1

    def icdf(self, prob):
        """``Normal.icdf((prob + 1) / 2)``."""
        return self.base_dist.icdf((prob + 1) / 2)

    def entropy(self):
        """``Normal.entropy() - log 2``."""
        return self.base_dist.entropy() - math.log(2)

    def __repr__(self):
        return "HalfNormal()"                    # torch's: the parameter is its base's


class Cauchy(_LocScale):
    """The Cauchy (Lorentz) distribution with median ``loc`` and half width ``scale``.

    >>> import pyad
    >>> Cauchy(0.0, 1.0).cdf(pyad.tensor(1.0))
    tensor(0.7500)
    """

    @property
    def mean(self):
        """nan: the Cauchy distribution has no mean."""
        return pyad.full(self._extended_shape(), float("nan"), dtype=self.loc.dtype)

    @property
    def variance(self):
        """inf."""
        return pyad.full(self._extended_shape(), float("inf"), dtype=self.loc.dtype)

    def _standard(self, shape):
        with no_grad():
            return pyad.empty(*shape, dtype=self.loc.dtype).cauchy_()

    def log_prob(self, value):
        """``-log(pi) - log(scale) - log1p(((value - loc) / scale)^2)``."""
        value = self._value(value, self.loc)
        return (-math.log(math.pi) - self.scale.log()
                - (((value - self.loc) / self.scale) ** 2).log1p())

    def cdf(self, value):
        """``atan((value - loc) / scale) / pi + 0.5``."""
        value = self._value(value, self.loc)
        return pyad.atan((value - self.loc) / self.scale) / math.pi + 0.5

    def icdf(self, value):
        """``loc + scale tan(pi (value - 0.5))``."""
        return pyad.tan(math.pi * (value - 0.5)) * self.scale + self.loc

    def entropy(self):
        """``log(4 pi) + log(scale)``."""
        return math.log(4 * math.pi) + self.scale.log()


class Gumbel(_LocScale):
    """The Gumbel (type I extreme value) distribution: ``loc - scale log(-log U)``,
    U uniform.

    >>> import pyad
    >>> Gumbel(0.0, 1.0).log_prob(pyad.tensor(0.0))
    tensor(-1.)
    """

    has_rsample = True

    def _uniform_bounds(self):
        info = _finfo(self.loc.dtype)
        return float(info.tiny), 1 - float(info.eps)

    def rsample(self, sample_shape=()):
        """``loc - scale log(-log u)``, u uniform on (tiny, 1 - eps)."""
        shape = self._extended_shape(sample_shape)
        low, high = self._uniform_bounds()
        u = low + pyad.rand(*shape, dtype=self.loc.dtype) * (high - low)
        return self.loc - self.scale * pyad.log(-pyad.log(u))

    def log_prob(self, value):
        """``z - exp(z) - log(scale)``, z = (loc - value) / scale."""
        value = self._value(value, self.loc)
        y = (self.loc - value) / self.scale
        return (y - y.exp()) - self.scale.log()

    def cdf(self, value):
        """``exp(-exp(-(value - loc) / scale))``, through torch's uniform on
        (tiny, 1 - eps)."""
        value = self._value(value, self.loc)
        low, high = self._uniform_bounds()
        u = pyad.exp(-pyad.exp((value - self.loc) / -self.scale))
        return ((u - low) / (high - low)).clamp(0, 1)

    def icdf(self, value):
        """The quantile function, the inverse of `cdf`."""
        low, high = self._uniform_bounds()
        u = value * (high - low) + low
        return self.loc - self.scale * pyad.log(-pyad.log(u))

    @property
    def mean(self):
        """``loc + scale * euler_gamma``."""
        return self.loc + self.scale * _EULER

    @property
    def stddev(self):
        """``pi scale / sqrt(6)``."""
        return (math.pi / math.sqrt(6)) * self.scale

    @property
    def variance(self):
        """``stddev ** 2``."""
        return self.stddev.pow(2)

    def entropy(self):
        """``log(scale) + 1 + euler_gamma``."""
        return self.scale.log() + (1 + _EULER)
