"""``pyad.distributions``: the common probability distributions of ``torch.distributions``.

`Normal`, `Uniform`, `Bernoulli` and `Categorical`, with torch's constructors, shapes
(``batch_shape``, ``event_shape``, ``sample_shape``), ``sample`` (no gradient),
``rsample`` (reparameterised, differentiable in the parameters) where torch has it,
``log_prob``, ``entropy``, ``mean``, ``mode``, ``variance``, ``stddev``, ``cdf`` where
torch has it, and `kl_divergence` between two of the same family. Everything is written
with differentiable pyad ops, so ``log_prob`` and ``entropy`` can be differentiated to any
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
import math

import numpy

import pyad
from pyad.autograd.grad_mode import no_grad

__all__ = ["Distribution", "Normal", "Uniform", "Bernoulli", "Categorical", "kl_divergence",
           "register_kl"]

_LOG_SQRT_2PI = 0.5 * math.log(2 * math.pi)


def _as_param(value, like=None):
    # A parameter as a Variable (a number takes the other parameters' dtype, else the
    # default float dtype, as torch's broadcast_all)
    if isinstance(value, pyad.Variable):
        return value
    dtype = like.dtype if isinstance(like, pyad.Variable) else None
    return pyad.tensor(float(value), dtype=dtype)


def _broadcast_all(*values):
    like = next((v for v in values if isinstance(v, pyad.Variable)), None)
    params = [_as_param(v, like) for v in values]
    return pyad.broadcast_tensors(*params)


def _shape(sample_shape):
    if isinstance(sample_shape, int):
        return (sample_shape,)
    return tuple(sample_shape)


def _finfo_min(dtype):
    return float(numpy.finfo(numpy.dtype(dtype)).min)


class Distribution:
    """The base class: shapes, argument validation and the sampling API.

    ``batch_shape`` is the shape of independent distributions held at once,
    ``event_shape`` the shape of one draw of one of them (``()`` for scalar ones);
    ``sample(sample_shape)`` returns ``sample_shape + batch_shape + event_shape``.
    """

    has_rsample = False
    _validate_default = True

    def __init__(self, batch_shape=(), event_shape=(), validate_args=None):
        self._batch_shape = tuple(batch_shape)
        self._event_shape = tuple(event_shape)
        self._validate_args = (Distribution._validate_default if validate_args is None
                               else bool(validate_args))

    @staticmethod
    def set_default_validate_args(value):
        """Turn argument validation on or off for distributions made afterwards."""
        if value not in (True, False):
            raise ValueError("set_default_validate_args(): expected True or False, got %r"
                             % (value,))
        Distribution._validate_default = value

    @property
    def batch_shape(self):
        """The shape over which parameters are batched."""
        return self._batch_shape

    @property
    def event_shape(self):
        """The shape of a single sample (of one distribution of the batch)."""
        return self._event_shape

    def _extended_shape(self, sample_shape=()):
        return _shape(sample_shape) + self._batch_shape + self._event_shape

    def _check(self, name, value, ok, constraint):
        if self._validate_args and not bool(ok.all()):
            raise ValueError("Expected parameter %s (%s of shape %s) of distribution %r to "
                             "satisfy the constraint %s, but found invalid values:\n%s"
                             % (name, type(value).__name__, tuple(value.shape), self,
                                constraint, value))

    def _check_value(self, value, ok, support):
        if self._validate_args and not bool(pyad.as_tensor(ok).all()):
            raise ValueError("Expected value argument (%s of shape %s) to be within the support "
                             "(%s) of the distribution %r, but found invalid values:\n%s"
                             % (type(value).__name__, tuple(value.shape), support, self, value))

    def sample(self, sample_shape=()):
        """A sample (no gradient) of shape ``sample_shape + batch_shape + event_shape``."""
        with no_grad():
            return self.rsample(sample_shape)

    def rsample(self, sample_shape=()):
        """A reparameterised sample, differentiable in the parameters."""
        raise NotImplementedError("%s does not support rsample" % type(self).__name__)

    def sample_n(self, n):
        """``sample((n,))`` (torch's deprecated spelling)."""
        return self.sample((n,))

    @property
    def stddev(self):
        """The standard deviation (the square root of `variance`)."""
        return self.variance.sqrt()

    def perplexity(self):
        """``exp(entropy())``."""
        return pyad.exp(self.entropy())

    def __repr__(self):
        params = ", ".join("%s: %s" % (name, _param_repr(getattr(self, name)))
                           for name in self._param_names if name in self.__dict__)
        return "%s(%s)" % (type(self).__name__, params)


def _param_repr(value):
    # torch's: a one-element parameter formatted as its value, else its size
    return format(value, "") if value.numel() == 1 else str(value.size())


class Normal(Distribution):
    """The normal distribution N(loc, scale^2), batched over the broadcast shape of
    ``loc`` and ``scale``.

    >>> import pyad
    >>> Normal(0.0, 2.0).entropy()
    tensor(2.1121)
    """

    has_rsample = True
    _param_names = ("loc", "scale")

    def __init__(self, loc, scale, validate_args=None):
        self.loc, self.scale = _broadcast_all(loc, scale)
        super().__init__(self.loc.shape, (), validate_args)
        self._check("loc", self.loc, pyad.isfinite(self.loc).detach(), "Real()")
        self._check("scale", self.scale, (self.scale > 0).detach(),
                    "GreaterThan(lower_bound=0.0)")

    @property
    def mean(self):
        """``loc``."""
        return self.loc

    @property
    def mode(self):
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

    def sample(self, sample_shape=()):
        """A sample (no gradient)."""
        shape = self._extended_shape(sample_shape)
        with no_grad():
            return pyad.normal(self.loc.expand(shape), self.scale.expand(shape))

    def rsample(self, sample_shape=()):
        """``loc + eps * scale``, eps standard normal: differentiable in loc and scale."""
        shape = self._extended_shape(sample_shape)
        eps = pyad.randn(*shape, dtype=self.loc.dtype)
        return self.loc + eps * self.scale

    def log_prob(self, value):
        """The log density at ``value``."""
        value = _as_param(value, self.loc)
        var = self.scale ** 2
        return -((value - self.loc) ** 2) / (2 * var) - self.scale.log() - _LOG_SQRT_2PI

    def cdf(self, value):
        """P(X <= value)."""
        value = _as_param(value, self.loc)
        return 0.5 * (1 + pyad.erf((value - self.loc) * self.scale.reciprocal()
                                   / math.sqrt(2)))

    def entropy(self):
        """The differential entropy, ``0.5 + 0.5 log(2 pi) + log(scale)``."""
        return 0.5 + 0.5 * math.log(2 * math.pi) + pyad.log(self.scale)


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
        self._check("low", self.low, (self.low < self.high).detach(),
                    "LessThan(upper_bound=%s)" % (self.high,))

    @property
    def mean(self):
        """``(low + high) / 2``."""
        return (self.high + self.low) / 2

    @property
    def mode(self):
        """nan: every point of the support is a mode."""
        return pyad.full_like(self.high, float("nan"))

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
        value = _as_param(value, self.low)
        inside = ((self.low <= value) & (value < self.high)).detach()
        self._check_value(value, inside, "Interval(lower_bound=%s, upper_bound=%s)"
                          % (self.low, self.high))
        return pyad.log(inside.to(self.low.dtype)) - pyad.log(self.high - self.low)

    def cdf(self, value):
        """P(X <= value), clamped to [0, 1]."""
        value = _as_param(value, self.low)
        return ((value - self.low) / (self.high - self.low)).clamp(0, 1)

    def entropy(self):
        """``log(high - low)``."""
        return pyad.log(self.high - self.low)


def _probs_and_logits(probs, logits, what, binary):
    if (probs is None) == (logits is None):
        raise ValueError("Either `probs` or `logits` must be specified, but not both.")
    if probs is not None:
        return _as_param(probs), None
    return None, _as_param(logits)


class _ProbsOrLogits(Distribution):
    # A distribution given by probs or logits: the other one is computed on first use
    # and kept (torch's lazy_property).

    def __getattr__(self, name):
        if name == "probs" and "logits" in self.__dict__:
            value = self._probs_from_logits(self.__dict__["logits"])
        elif name == "logits" and "probs" in self.__dict__:
            value = self._logits_from_probs(self.__dict__["probs"])
        else:
            raise AttributeError("%r object has no attribute %r" % (type(self).__name__, name))
        self.__dict__[name] = value
        return value


class Bernoulli(_ProbsOrLogits):
    """The Bernoulli distribution: 1 with probability ``probs`` (or ``sigmoid(logits)``),
    else 0.

    >>> import pyad
    >>> Bernoulli(probs=pyad.tensor(0.25)).log_prob(pyad.tensor(1.0))
    tensor(-1.3863)
    """

    _param_names = ("probs", "logits")

    def __init__(self, probs=None, logits=None, validate_args=None):
        probs, logits = _probs_and_logits(probs, logits, "Bernoulli", True)
        if probs is not None:
            self.probs = probs
            shape = probs.shape
        else:
            self.logits = logits
            shape = logits.shape
        super().__init__(shape, (), validate_args)
        if probs is not None:
            self._check("probs", probs, ((probs >= 0) & (probs <= 1)).detach(),
                        "Interval(lower_bound=0.0, upper_bound=1.0)")

    def _probs_from_logits(self, logits):
        return pyad.sigmoid(logits)

    def _logits_from_probs(self, probs):
        eps = float(numpy.finfo(numpy.dtype(probs.dtype)).eps)
        clamped = probs.clamp(eps, 1 - eps)
        return pyad.log(clamped) - pyad.log1p(-clamped)

    @property
    def param_shape(self):
        """The shape of ``probs`` / ``logits``."""
        return self._batch_shape

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
        value = _as_param(value, self.logits)
        self._check_value(value, ((value == 0) | (value == 1)).detach(), "Boolean()")
        logits, value = pyad.broadcast_tensors(self.logits, value)
        return -pyad.nn.functional.binary_cross_entropy_with_logits(logits, value,
                                                                   reduction="none")

    def entropy(self):
        """The entropy in nats."""
        return pyad.nn.functional.binary_cross_entropy_with_logits(self.logits, self.probs,
                                                                  reduction="none")


class Categorical(_ProbsOrLogits):
    """A categorical distribution over ``0 .. K-1``, K the size of the last dimension of
    ``probs`` (normalised to sum to 1) or ``logits`` (unnormalised log-probabilities).

    >>> import pyad
    >>> Categorical(logits=pyad.tensor([0.0, 0.0])).probs
    tensor([0.5000, 0.5000])
    """

    _param_names = ("probs", "logits")

    def __init__(self, probs=None, logits=None, validate_args=None):
        probs, logits = _probs_and_logits(probs, logits, "Categorical", False)
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
        if probs is not None:
            ok = ((probs >= 0).all(-1) & (probs.sum(-1) > 0)).detach()
            self._check("probs", probs, ok, "Simplex()")

    def _probs_from_logits(self, logits):
        return pyad.softmax(logits, -1)

    def _logits_from_probs(self, probs):
        # torch's probs_to_logits: probabilities clamped to [eps, 1 - eps] first
        eps = float(numpy.finfo(numpy.dtype(probs.dtype)).eps)
        return pyad.log(probs.clamp(eps, 1 - eps))

    @property
    def param_shape(self):
        """The shape of ``probs`` / ``logits`` (batch shape plus the number of events)."""
        return self._batch_shape + (self._num_events,)

    @property
    def mean(self):
        """nan: categories have no mean (as torch)."""
        return pyad.full(self._batch_shape, float("nan"), dtype=self.probs.dtype)

    @property
    def mode(self):
        """The most probable category."""
        return self.probs.argmax(-1)

    @property
    def variance(self):
        """nan (as torch)."""
        return pyad.full(self._batch_shape, float("nan"), dtype=self.probs.dtype)

    def sample(self, sample_shape=()):
        """Category indices (int64, no gradient) of shape ``sample_shape + batch_shape``."""
        sample_shape = _shape(sample_shape)
        n = int(numpy.prod(sample_shape, dtype=numpy.int64))
        with no_grad():
            flat = self.probs.reshape(-1, self._num_events)
            draws = pyad.multinomial(flat, n, True) if flat.shape[0] else \
                pyad.zeros(0, n, dtype=pyad.int64)
            return draws.t().reshape(self._extended_shape(sample_shape))

    def log_prob(self, value):
        """``log p[value]``; ``value`` holds category indices, broadcast with the batch."""
        value = pyad.as_tensor(value)
        if self._validate_args:
            ok = ((value >= 0) & (value < self._num_events)).detach()
            if value.dtype.kind not in "iu" and value.dtype.kind != "f":
                ok = pyad.tensor(False)
            self._check_value(value, ok, "IntegerInterval(lower_bound=0, upper_bound=%d)"
                              % (self._num_events - 1))
        index = value.long().unsqueeze(-1)
        index, logits = pyad.broadcast_tensors(index, self.logits)
        return logits.gather(-1, index[..., :1]).squeeze(-1)

    def entropy(self):
        """``-sum p log p`` over the categories (0 log 0 = 0)."""
        logits = self.logits.clamp(min=_finfo_min(self.logits.dtype))
        return -(logits * self.probs).sum(-1)

    def enumerate_support(self, expand=True):
        """The categories 0 .. K-1, as ``(K,) + batch_shape`` (``(K, 1, ...)`` unexpanded)."""
        values = pyad.arange(self._num_events).reshape((-1,) + (1,) * len(self._batch_shape))
        return values.expand((-1,) + self._batch_shape) if expand else values


# -- KL divergence ---------------------------------------------------------------------

_KL = {}


def register_kl(type_p, type_q):
    """Decorator registering ``fn(p, q)`` as KL(p || q) for those two types."""
    def decorator(fn):
        _KL[(type_p, type_q)] = fn
        return fn
    return decorator


def kl_divergence(p, q):
    """KL(p || q), batched, for the pairs registered (each family with itself).

    >>> import pyad
    >>> kl_divergence(Normal(0.0, 1.0), Normal(1.0, 1.0))
    tensor(0.5000)
    """
    for (tp, tq), fn in _KL.items():
        if isinstance(p, tp) and isinstance(q, tq):
            return fn(p, q)
    raise NotImplementedError("No KL(p || q) is implemented for p type %s and q type %s"
                              % (type(p).__name__, type(q).__name__))


@register_kl(Normal, Normal)
def _kl_normal_normal(p, q):
    var_ratio = (p.scale / q.scale).pow(2)
    t1 = ((p.loc - q.loc) / q.scale).pow(2)
    return 0.5 * (var_ratio + t1 - 1 - var_ratio.log())


@register_kl(Categorical, Categorical)
def _kl_categorical_categorical(p, q):
    t = p.probs * (p.logits - q.logits)
    t = pyad.where(q.probs == 0, float("inf"), t)
    t = pyad.where(p.probs == 0, 0.0, t)
    return t.sum(-1)


@register_kl(Bernoulli, Bernoulli)
def _kl_bernoulli_bernoulli(p, q):
    sp = pyad.nn.functional.softplus
    t1 = p.probs * (sp(-q.logits) - sp(-p.logits))
    t1 = pyad.where(q.probs == 0, float("inf"), t1)
    t1 = pyad.where(p.probs == 0, 0.0, t1)
    t2 = (1 - p.probs) * (sp(q.logits) - sp(p.logits))
    t2 = pyad.where(q.probs == 1, float("inf"), t2)
    t2 = pyad.where(p.probs == 1, 0.0, t2)
    return t1 + t2


@register_kl(Uniform, Uniform)
def _kl_uniform_uniform(p, q):
    result = ((q.high - q.low) / (p.high - p.low)).log()
    outside = ((q.low > p.low) | (q.high < p.high)).detach()
    return pyad.where(outside, float("inf"), result)
