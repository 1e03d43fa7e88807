"""More discrete families of ``pyad.distributions``, as torch's: `NegativeBinomial`,
`Multinomial` and `OneHotCategoricalStraightThrough`."""
import numpy

import pyad
from pyad.autograd.grad_mode import no_grad
from pyad.distributions import constraints
from pyad.distributions.discrete import Binomial, Categorical, OneHotCategorical, _Binary
from pyad.distributions.distribution import (Distribution, _as_param, _broadcast_all, _draw,
                                             _shape)
from pyad.distributions.gamma import Gamma

__all__ = ["NegativeBinomial", "Multinomial", "OneHotCategoricalStraightThrough"]


class NegativeBinomial(_Binary):
    """The number of successes (each with probability ``probs``) before ``total_count``
    failures.

    >>> import pyad
    >>> NegativeBinomial(2.0, probs=pyad.tensor(0.5)).log_prob(pyad.tensor(1.0))
    tensor(-1.3863)
    """

    arg_constraints = {"total_count": constraints.greater_than_eq(0),
                       "probs": constraints.half_open_interval(0.0, 1.0),
                       "logits": constraints.real}
    support = constraints.nonnegative_integer
    _param_names = ("total_count", "probs", "logits")

    def __init__(self, total_count, probs=None, logits=None, validate_args=None):
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            total_count, probs = _broadcast_all(total_count, probs)
            self.total_count = total_count.type_as(probs)
        else:
            total_count, logits = _broadcast_all(total_count, logits)
            self.total_count = total_count.type_as(logits)
        self._init_binary(probs, logits, validate_args)

    @property
    def mean(self):
        """``total_count exp(logits)``."""
        return self.total_count * pyad.exp(self.logits)

    @property
    def mode(self):
        """``floor((total_count - 1) exp(logits))``, at least 0."""
        return ((self.total_count - 1) * self.logits.exp()).floor().clamp(min=0.0)

    @property
    def variance(self):
        """``mean / sigmoid(-logits)``."""
        return self.mean / pyad.sigmoid(-self.logits)

    @property
    def _gamma(self):
        return Gamma(concentration=self.total_count, rate=pyad.exp(-self.logits),
                     validate_args=False)

    def sample(self, sample_shape=()):
        """A Poisson draw of a Gamma-distributed rate (no gradient)."""
        with no_grad():
            rate = self._gamma.sample(sample_shape)
            lam = numpy.asarray(rate.data, dtype=numpy.float64)
            return _draw(self._param, lam.shape, lambda rng, s: rng.poisson(lam, s))

    def log_prob(self, value):
        """``r logsigmoid(-logits) + k logsigmoid(logits) + log C(r + k - 1, k)``."""
        if self._validate_args:
            self._validate_sample(value)
        value = _as_param(value, self.logits)
        logsigmoid = pyad.nn.functional.logsigmoid
        log_unnormalized = (self.total_count * logsigmoid(-self.logits)
                            + value * logsigmoid(self.logits))
        log_normalization = (-pyad.lgamma(self.total_count + value) + pyad.lgamma(1.0 + value)
                             + pyad.lgamma(self.total_count))
        log_normalization = pyad.where((self.total_count + value == 0.0).detach(), 0.0,
                                       log_normalization)
        return log_unnormalized - log_normalization


class Multinomial(Distribution):
    """The counts of ``total_count`` draws of a `Categorical` (``probs`` or ``logits``);
    ``event_shape`` is the number of categories.

    >>> import pyad
    >>> Multinomial(2, probs=pyad.tensor([0.5, 0.5])).log_prob(pyad.tensor([1.0, 1.0]))
    tensor(-0.6931)
    """

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}

    def __init__(self, total_count=1, probs=None, logits=None, validate_args=None):
        if not isinstance(total_count, int):
            raise NotImplementedError("inhomogeneous total_count is not supported")
        self.total_count = total_count
        self._categorical = Categorical(probs=probs, logits=logits)
        self._binomial = Binomial(total_count=total_count, probs=self.probs)
        super().__init__(self._categorical.batch_shape, self._categorical.param_shape[-1:],
                         validate_args)

    def expand(self, batch_shape, _instance=None):
        """The same distribution with its batch expanded to ``batch_shape``."""
        new = super().expand(batch_shape)
        new._categorical = self._categorical.expand(_shape(batch_shape))
        # torch keeps the unexpanded binomial (and its entropy then fails): expanded here
        new._binomial = Binomial(total_count=self.total_count, probs=new.probs)
        return new

    @constraints.dependent_property(is_discrete=True, event_dim=1)
    def support(self):
        """Count vectors summing to at most ``total_count``."""
        return constraints.multinomial(self.total_count)

    @property
    def logits(self):
        """The normalised log-probabilities."""
        return self._categorical.logits

    @property
    def probs(self):
        """The normalised probabilities."""
        return self._categorical.probs

    @property
    def param_shape(self):
        """The shape of ``probs`` / ``logits``."""
        return self._categorical.param_shape

    @property
    def mean(self):
        """``total_count probs``."""
        return self.probs * self.total_count

    @property
    def variance(self):
        """``total_count probs (1 - probs)``."""
        return self.total_count * self.probs * (1 - self.probs)

    def sample(self, sample_shape=()):
        """Count vectors (no gradient) in the parameters' dtype."""
        shape = self._extended_shape(sample_shape)
        p = numpy.asarray(self.probs.detach().data, dtype=numpy.float64)
        p = p / p.sum(-1, keepdims=True)
        n = self.total_count
        with no_grad():
            return _draw(self.probs, shape,
                         lambda rng, s: rng.multinomial(n, numpy.broadcast_to(p, s), s[:-1]))

    def entropy(self):
        """``n H(categorical) - lgamma(n + 1) + sum_k E[lgamma(x_k + 1)]``."""
        n = pyad.tensor(float(self.total_count), dtype=self.probs.dtype)
        term1 = n * self._categorical.entropy() - pyad.lgamma(n + 1)
        support = self._binomial.enumerate_support(expand=False)[1:]
        binomial_probs = pyad.exp(self._binomial.log_prob(support))
        weights = pyad.lgamma(support + 1)
        term2 = (binomial_probs * weights).sum(0).sum(-1)
        return term1 + term2

    def log_prob(self, value):
        """``lgamma(sum x + 1) - sum lgamma(x + 1) + sum x logits``."""
        if self._validate_args:
            self._validate_sample(value)
        logits, value = pyad.broadcast_tensors(self.logits, _as_param(value, self.logits))
        log_factorial_n = pyad.lgamma(value.sum(-1) + 1)
        log_factorial_xs = pyad.lgamma(value + 1).sum(-1)
        logits = pyad.where(((value == 0) & (logits == float("-inf"))).detach(), 0.0, logits)
        return log_factorial_n - log_factorial_xs + (logits * value).sum(-1)


class OneHotCategoricalStraightThrough(OneHotCategorical):
    """`OneHotCategorical` with the straight-through gradient estimator (Bengio et al.,
    2013): ``rsample`` is the one-hot draw plus ``probs - probs.detach()``.

    >>> import pyad
    >>> OneHotCategoricalStraightThrough(probs=pyad.tensor([0.25, 0.75])).has_rsample
    True
    """

    has_rsample = True

    def rsample(self, sample_shape=()):
        """A one-hot draw whose gradient is that of ``probs``."""
        samples = self.sample(sample_shape)
        probs = self._categorical.probs
        return samples + (probs - probs.detach())
