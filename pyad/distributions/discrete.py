"""The discrete families of ``pyad.distributions``: `Bernoulli`, `Categorical`,
`OneHotCategorical`, `Geometric`, `Poisson`, `Binomial`."""
import numpy

import pyad
from pyad.autograd.grad_mode import no_grad
from pyad.distributions import constraints
from pyad.distributions.distribution import (Distribution, _ProbsOrLogits, _as_param,
                                             _binary_logits, _broadcast_all, _draw, _finfo,
                                             _finfo_min, _probs_and_logits, _shape)
from pyad.distributions.exp_family import ExponentialFamily

__all__ = ["Bernoulli", "Categorical", "OneHotCategorical", "Geometric", "Poisson",
           "Binomial"]


def _arange_support(n, dtype, batch_shape, expand):
    values = pyad.arange(n, dtype=dtype).reshape((-1,) + (1,) * len(batch_shape))
    return values.expand((-1,) + tuple(batch_shape)) if expand else values


class _Binary(_ProbsOrLogits):
    # probs in [0, 1] or logits, one per batch entry
    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}

    def _init_binary(self, probs, logits, validate_args):
        probs, logits = _probs_and_logits(probs, logits)
        if probs is not None:
            self.probs = probs
        else:
            self.logits = logits
        param = probs if probs is not None else logits
        Distribution.__init__(self, param.shape, (), validate_args)

    def _probs_from_logits(self, logits):
        return pyad.sigmoid(logits)

    def _logits_from_probs(self, probs):
        return _binary_logits(probs)

    @property
    def _param(self):
        return self.__dict__["probs"] if "probs" in self.__dict__ else self.__dict__["logits"]

    @property
    def param_shape(self):
        """The shape of ``probs`` / ``logits``."""
        return tuple(self._param.shape)


class Bernoulli(_Binary, ExponentialFamily):
    """The Bernoulli distribution: 1 with probability ``probs`` (or ``sigmoid(logits)``),
    else 0.

    >>> import pyad
    >>> Bernoulli(probs=pyad.tensor(0.25)).log_prob(pyad.tensor(1.0))
    tensor(-1.3863)
    """

    support = constraints.boolean
    has_enumerate_support = True

    def __init__(self, probs=None, logits=None, validate_args=None):
        self._init_binary(probs, logits, validate_args)

    @property
    def mean(self):
        """``probs``."""
        return self.probs

    @property
    def mode(self):
        """1 where ``probs > 0.5``, 0 where below, nan at exactly 0.5."""
        mode = (self.probs >= 0.5).to(self.probs.dtype)
        return pyad.where(self.probs == 0.5, float("nan"), mode)

    @property
    def variance(self):
        """``probs * (1 - probs)``."""
        return self.probs * (1 - self.probs)

    def sample(self, sample_shape=()):
        """0/1 draws (no gradient), in the parameters' dtype."""
        shape = self._extended_shape(sample_shape)
        with no_grad():
            return pyad.bernoulli(self.probs.expand(shape))

    def log_prob(self, value):
        """``value * log(p) + (1 - value) * log(1 - p)``, computed from the logits."""
        value = self._value(value, self.logits)
        logits, value = pyad.broadcast_tensors(self.logits, value)
        return -pyad.nn.functional.binary_cross_entropy_with_logits(logits, value,
                                                                   reduction="none")

    def entropy(self):
        """The entropy in nats."""
        return pyad.nn.functional.binary_cross_entropy_with_logits(self.logits, self.probs,
                                                                  reduction="none")

    def enumerate_support(self, expand=True):
        """0 and 1, as ``(2,) + batch_shape`` (``(2, 1, ...)`` unexpanded)."""
        return _arange_support(2, self._param.dtype, self._batch_shape, expand)

    @property
    def _natural_params(self):
        return (pyad.logit(self.probs),)

    _mean_carrier_measure = 0

    def _log_normalizer(self, x):
        return pyad.log1p(pyad.exp(x))


class Categorical(_ProbsOrLogits):
    """A categorical distribution over ``0 .. K-1``, K the size of the last dimension of
    ``probs`` (normalised to sum to 1) or ``logits`` (unnormalised log-probabilities).

    >>> import pyad
    >>> Categorical(logits=pyad.tensor([0.0, 0.0])).probs
    tensor([0.5000, 0.5000])
    """

    arg_constraints = {"probs": constraints.simplex,
                       "logits": constraints.independent(constraints.real, 1)}
    has_enumerate_support = True

    def __init__(self, probs=None, logits=None, validate_args=None):
        probs, logits = _probs_and_logits(probs, logits)
        param = probs if probs is not None else logits
        if param.ndim < 1:
            raise ValueError("`%s` parameter must be at least one-dimensional."
                             % ("probs" if probs is not None else "logits"))
        if probs is not None:
            self.probs = probs / probs.sum(-1, keepdim=True)
        else:
            self.logits = logits - logits.logsumexp(dim=-1, keepdim=True)
        self._num_events = param.shape[-1]
        super().__init__(param.shape[:-1], (), validate_args)

    @constraints.dependent_property(is_discrete=True, event_dim=0)
    def support(self):
        """The integers ``0 .. K-1``."""
        return constraints.integer_interval(0, self._num_events - 1)

    def _probs_from_logits(self, logits):
        return pyad.softmax(logits, -1)

    def _logits_from_probs(self, probs):
        # torch's probs_to_logits: probabilities clamped to [eps, 1 - eps] first
        eps = float(_finfo(probs.dtype).eps)
        return pyad.log(probs.clamp(eps, 1 - eps))

    @property
    def param_shape(self):
        """The shape of ``probs`` / ``logits`` (batch shape plus the number of events)."""
        return self._batch_shape + (self._num_events,)

    @property
    def mean(self):
        """nan: categories have no mean (as torch)."""
        return pyad.full(self._extended_shape(), float("nan"), dtype=self.probs.dtype)

    @property
    def mode(self):
        """The most probable category."""
        return self.probs.argmax(-1)

    @property
    def variance(self):
        """nan (as torch)."""
        return pyad.full(self._extended_shape(), float("nan"), dtype=self.probs.dtype)

    def sample(self, sample_shape=()):
        """Category indices (int64, no gradient) of shape ``sample_shape + batch_shape``."""
        sample_shape = _shape(sample_shape)
        n = int(numpy.prod(sample_shape, dtype=numpy.int64))
        with no_grad():
            flat = self.probs.reshape(-1, self._num_events)
            draws = pyad.multinomial(flat, n, True) if flat.shape[0] and n else \
                pyad.zeros(flat.shape[0], n, dtype=pyad.int64)
            return draws.t().reshape(self._extended_shape(sample_shape))

    def log_prob(self, value):
        """``log p[value]``; ``value`` holds category indices, broadcast with the batch."""
        if self._validate_args:
            self._validate_sample(value)
        value = pyad.as_tensor(value)
        index = value.long().unsqueeze(-1)
        index, logits = pyad.broadcast_tensors(index, self.logits)
        return logits.gather(-1, index[..., :1]).squeeze(-1)

    def entropy(self):
        """``-sum p log p`` over the categories (0 log 0 = 0)."""
        logits = self.logits.clamp(min=_finfo_min(self.logits.dtype))
        return -(logits * self.probs).sum(-1)

    def enumerate_support(self, expand=True):
        """The categories 0 .. K-1, as ``(K,) + batch_shape`` (``(K, 1, ...)`` unexpanded)."""
        return _arange_support(self._num_events, pyad.int64, self._batch_shape, expand)


class OneHotCategorical(Distribution):
    """`Categorical` with samples one-hot encoded: a draw of category k is the vector
    with a 1 at k (``event_shape`` is ``(K,)``).

    >>> import pyad
    >>> OneHotCategorical(probs=pyad.tensor([0.25, 0.75])).log_prob(pyad.tensor([0.0, 1.0]))
    tensor(-0.2877)
    """

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.one_hot
    has_enumerate_support = True

    def __init__(self, probs=None, logits=None, validate_args=None):
        self._categorical = Categorical(probs, logits)
        super().__init__(self._categorical.batch_shape, self._categorical.param_shape[-1:],
                         validate_args)

    def expand(self, batch_shape, _instance=None):
        """The same distribution with its batch expanded to ``batch_shape``."""
        new = super().expand(batch_shape)
        new._categorical = self._categorical.expand(batch_shape)
        return new

    @property
    def probs(self):
        """The normalised probabilities."""
        return self._categorical.probs

    @property
    def logits(self):
        """The normalised log-probabilities."""
        return self._categorical.logits

    @property
    def param_shape(self):
        """The shape of ``probs`` / ``logits``."""
        return self._categorical.param_shape

    @property
    def mean(self):
        """``probs``."""
        return self._categorical.probs

    @property
    def mode(self):
        """The one-hot vector of the most probable category."""
        probs = self._categorical.probs
        return pyad.nn.functional.one_hot(probs.argmax(-1), probs.shape[-1]).to(probs.dtype)

    @property
    def variance(self):
        """``probs * (1 - probs)``."""
        return self._categorical.probs * (1 - self._categorical.probs)

    def sample(self, sample_shape=()):
        """One-hot draws (no gradient) in the parameters' dtype."""
        probs = self._categorical.probs
        indices = self._categorical.sample(sample_shape)
        return pyad.nn.functional.one_hot(indices, self._categorical._num_events).to(
            probs.dtype)

    def log_prob(self, value):
        """``log p[k]`` for the one-hot vector of category k."""
        if self._validate_args:
            self._validate_sample(value)
        return self._categorical.log_prob(value.argmax(-1))

    def entropy(self):
        """The entropy of the categorical distribution."""
        return self._categorical.entropy()

    def enumerate_support(self, expand=True):
        """The K one-hot vectors, as ``(K,) + batch_shape + (K,)``."""
        n = self._event_shape[0]
        values = pyad.eye(n, dtype=self._categorical.logits.dtype).reshape(
            (n,) + (1,) * len(self._batch_shape) + (n,))
        return values.expand((n,) + self._batch_shape + (n,)) if expand else values


class Geometric(_Binary):
    """The number of failures before the first success of Bernoulli(probs) trials.

    >>> import pyad
    >>> Geometric(probs=pyad.tensor(0.5)).log_prob(pyad.tensor(2.0))
    tensor(-2.0794)
    """

    support = constraints.nonnegative_integer

    def __init__(self, probs=None, logits=None, validate_args=None):
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            (probs,) = _broadcast_all(probs)
        else:
            (logits,) = _broadcast_all(logits)
        self._init_binary(probs, logits, validate_args)
        if self._validate_args and probs is not None:
            valid = (self.probs > 0).detach()
            if not bool(valid.all()):
                raise ValueError("Expected parameter probs (%s of shape %s) of distribution %r "
                                 "to be positive but found invalid values:\n%s"
                                 % (type(self.probs).__name__, tuple(self.probs.shape), self,
                                    self.probs.detach()[~valid]))

    @property
    def mean(self):
        """``1 / probs - 1``."""
        return 1.0 / self.probs - 1.0

    @property
    def mode(self):
        """0."""
        return pyad.zeros_like(self.probs)

    @property
    def variance(self):
        """``(1 / probs - 1) / probs``."""
        return (1.0 / self.probs - 1.0) / self.probs

    def sample(self, sample_shape=()):
        """``floor(log(u) / log1p(-probs))``, u uniform on [tiny, 1) (no gradient)."""
        shape = self._extended_shape(sample_shape)
        tiny = float(_finfo(self.probs.dtype).tiny)
        with no_grad():
            u = pyad.empty(*shape, dtype=self.probs.dtype).uniform_(tiny, 1)
            return (u.log() / (-self.probs).log1p()).floor()

    def log_prob(self, value):
        """``value log(1 - probs) + log(probs)`` (0 log 0 = 0 at probs 1)."""
        if self._validate_args:
            self._validate_sample(value)
        value, probs = _broadcast_all(value, self.probs)
        probs = pyad.where(((probs == 1) & (value == 0)).detach(), 0.0, probs)
        return value * (-probs).log1p() + self.probs.log()

    def entropy(self):
        """``BCE(logits, probs) / probs``."""
        return pyad.nn.functional.binary_cross_entropy_with_logits(
            self.logits, self.probs, reduction="none") / self.probs


class Poisson(ExponentialFamily):
    """The Poisson distribution with rate ``rate``.

    >>> import pyad
    >>> Poisson(pyad.tensor(2.0)).log_prob(pyad.tensor(1.0))
    tensor(-1.3069)
    """

    arg_constraints = {"rate": constraints.nonnegative}
    support = constraints.nonnegative_integer
    _param_names = ("rate",)

    def __init__(self, rate, validate_args=None):
        (self.rate,) = _broadcast_all(rate)
        super().__init__(self.rate.shape, (), validate_args)

    @property
    def mean(self):
        """``rate``."""
        return self.rate

    @property
    def mode(self):
        """``floor(rate)``."""
        return self.rate.floor()

    @property
    def variance(self):
        """``rate``."""
        return self.rate

    def sample(self, sample_shape=()):
        """Counts (no gradient) in the rate's dtype."""
        shape = self._extended_shape(sample_shape)
        rate = numpy.asarray(self.rate.detach().expand(shape).data)
        return _draw(self.rate, shape, lambda rng, s: rng.poisson(rate, s))

    def log_prob(self, value):
        """``value log(rate) - rate - lgamma(value + 1)``."""
        if self._validate_args:
            self._validate_sample(value)
        rate, value = _broadcast_all(self.rate, value)
        return value.xlogy(rate) - rate - (value + 1).lgamma()

    @property
    def _natural_params(self):
        return (pyad.log(self.rate),)

    def _log_normalizer(self, x):
        return pyad.exp(x)


def _clamp_by_zero(x):
    # max(x, 0) with gradient 1/2 at 0, as torch
    return (x.clamp(min=0) + x - x.clamp(max=0)) / 2


class Binomial(_Binary):
    """The number of successes in ``total_count`` Bernoulli(probs) trials.

    >>> import pyad
    >>> Binomial(4, probs=pyad.tensor(0.5)).log_prob(pyad.tensor(2.0))
    tensor(-0.9808)
    """

    arg_constraints = {"total_count": constraints.nonnegative_integer,
                       "probs": constraints.unit_interval, "logits": constraints.real}
    has_enumerate_support = True
    _param_names = ("total_count", "probs", "logits")

    def __init__(self, total_count=1, probs=None, logits=None, validate_args=None):
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            total_count, probs = _broadcast_all(total_count, probs)
            self.total_count = total_count.type_as(probs)
        else:
            total_count, logits = _broadcast_all(total_count, logits)
            self.total_count = total_count.type_as(logits)
        self._init_binary(probs, logits, validate_args)

    @constraints.dependent_property(is_discrete=True, event_dim=0)
    def support(self):
        """The integers ``0 .. total_count``."""
        return constraints.integer_interval(0, self.total_count)

    @property
    def mean(self):
        """``total_count * probs``."""
        return self.total_count * self.probs

    @property
    def mode(self):
        """``floor((total_count + 1) probs)``, at most ``total_count``."""
        return ((self.total_count + 1) * self.probs).floor().clamp(max=self.total_count)

    @property
    def variance(self):
        """``total_count * probs * (1 - probs)``."""
        return self.total_count * self.probs * (1 - self.probs)

    def sample(self, sample_shape=()):
        """Success counts (no gradient) in the parameters' dtype."""
        shape = self._extended_shape(sample_shape)
        n = numpy.asarray(self.total_count.detach().expand(shape).data).astype(numpy.int64)
        p = numpy.asarray(self.probs.detach().expand(shape).data)
        return _draw(self._param, shape, lambda rng, s: rng.binomial(n, p, s))

    def log_prob(self, value):
        """The log of ``C(n, value) p^value (1 - p)^(n - value)``, from the logits."""
        if self._validate_args:
            self._validate_sample(value)
        value = _as_param(value, self.logits)
        log_factorial_n = pyad.lgamma(self.total_count + 1)
        log_factorial_k = pyad.lgamma(value + 1)
        log_factorial_nmk = pyad.lgamma(self.total_count - value + 1)
        normalize_term = (self.total_count * _clamp_by_zero(self.logits)
                          + self.total_count * pyad.log1p(pyad.exp(-pyad.abs(self.logits)))
                          - log_factorial_n)
        return value * self.logits - log_factorial_k - log_factorial_nmk - normalize_term

    def _homogeneous_count(self, what):
        total_count = int(self.total_count.max())
        if not int(self.total_count.min()) == total_count:
            raise NotImplementedError("Inhomogeneous total count not supported by `%s`."
                                      % what)
        return total_count

    def entropy(self):
        """``-sum p log p`` over ``0 .. total_count`` (one total_count for the batch)."""
        self._homogeneous_count("entropy")
        log_prob = self.log_prob(self.enumerate_support(False))
        return -(pyad.exp(log_prob) * log_prob).sum(0)

    def enumerate_support(self, expand=True):
        """``0 .. total_count`` as ``(total_count + 1,) + batch_shape``."""
        total_count = self._homogeneous_count("enumerate_support")
        return _arange_support(1 + total_count, self._param.dtype, self._batch_shape, expand)
