"""The `Distribution` base class of ``pyad.distributions`` and the helpers its families
share (parameter broadcasting, shapes, the random generator)."""
import numbers

import numpy

import pyad
from pyad.autograd.grad_mode import no_grad
from pyad.distributions import constraints

__all__ = ["Distribution"]


def _as_param(value, like=None):
    # A parameter as a Variable (a number takes the other parameters' dtype, else the
    # default float dtype, as torch's broadcast_all)
    if isinstance(value, pyad.Variable):
        return value
    dtype = like.dtype if isinstance(like, pyad.Variable) else None
    return pyad.tensor(float(value), dtype=dtype)


def _broadcast_all(*values):
    for value in values:
        if not isinstance(value, (pyad.Variable, numbers.Number)):
            raise ValueError("Input arguments must all be instances of numbers.Number or "
                             "pyad.Variable, got %s" % type(value).__name__)
    like = next((v for v in values if isinstance(v, pyad.Variable)), None)
    params = [_as_param(v, like) for v in values]
    return pyad.broadcast_tensors(*params)


def _shape(sample_shape):
    if isinstance(sample_shape, int):
        return (sample_shape,)
    return tuple(sample_shape)


def _finfo(dtype):
    return numpy.finfo(numpy.dtype(dtype))


def _finfo_min(dtype):
    return float(_finfo(dtype).min)


def _rng(like):
    """The array generator of pyad's default generator for arrays like ``like``."""
    return pyad._factories._generator_for(like.data)


def _draw(like, shape, fn):
    """``fn(rng, shape)`` drawn from pyad's generator, as a Variable of ``like``'s dtype."""
    data = fn(_rng(like), tuple(shape))
    return pyad.tensor(numpy.asarray(data).astype(like.dtype, copy=False))


class Distribution:
    """The base class: shapes, argument validation and the sampling API.

    ``batch_shape`` is the shape of independent distributions held at once,
    ``event_shape`` the shape of one draw of one of them (``()`` for scalar ones);
    ``sample(sample_shape)`` returns ``sample_shape + batch_shape + event_shape``.
    ``arg_constraints`` maps each parameter to its `constraints` object, ``support``
    is the constraint the values lie in.
    """

    has_rsample = False
    has_enumerate_support = False
    _validate_default = True

    def __init__(self, batch_shape=(), event_shape=(), validate_args=None):
        self._batch_shape = tuple(batch_shape)
        self._event_shape = tuple(event_shape)
        self._validate_args = (Distribution._validate_default if validate_args is None
                               else bool(validate_args))
        if self._validate_args:
            for param, constraint in self.arg_constraints.items():
                if constraints.is_dependent(constraint) or (
                        param not in self.__dict__ and not hasattr(type(self), param)):
                    continue                 # a lazily computed parameter is not checked
                value = getattr(self, param)
                if not bool(pyad.as_tensor(constraint.check(value)).all()):
                    raise ValueError(
                        "Expected parameter %s (%s of shape %s) of distribution %r to "
                        "satisfy the constraint %r, but found invalid values:\n%s"
                        % (param, type(value).__name__, tuple(value.shape), self,
                           constraint, value))

    @staticmethod
    def set_default_validate_args(value):
        """Turn argument validation on or off for distributions made afterwards."""
        if value not in (True, False):
            raise ValueError("set_default_validate_args(): expected True or False, got %r"
                             % (value,))
        Distribution._validate_default = value

    arg_constraints = {}

    @property
    def support(self):
        """The `constraints` object the values of the distribution lie in."""
        raise NotImplementedError("%s does not define a support" % type(self).__name__)

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

    def expand(self, batch_shape, _instance=None):
        """The same distribution with its parameters expanded (as views) to a larger
        ``batch_shape``; the event shape is kept.

        >>> import pyad
        >>> from pyad.distributions import Exponential
        >>> Exponential(pyad.tensor(2.0)).expand((3,)).batch_shape
        (3,)
        """
        batch_shape = _shape(batch_shape)
        new = object.__new__(type(self))
        new.__dict__.update(self.__dict__)
        n_batch = len(self._batch_shape)
        for name in self._param_names:
            if name in self.__dict__:
                value = self.__dict__[name]
                event = tuple(value.shape[n_batch:])
                new.__dict__[name] = value.expand(batch_shape + event)
        new._batch_shape = batch_shape
        return new

    _param_names = ()

    def _validate_sample(self, value):
        if not isinstance(value, pyad.Variable):
            raise ValueError("The value argument to log_prob must be a Variable")
        event_start = value.ndim - len(self._event_shape)
        if tuple(value.shape[event_start:]) != self._event_shape:
            raise ValueError("The right-most size of value must match event_shape: %s vs %s."
                             % (tuple(value.shape), self._event_shape))
        expected = self._batch_shape + self._event_shape
        for i, j in zip(reversed(value.shape), reversed(expected)):
            if i != 1 and j != 1 and i != j:
                raise ValueError("Value is not broadcastable with batch_shape+event_shape: "
                                 "%s vs %s." % (tuple(value.shape), expected))
        support = self.support
        if not bool(pyad.as_tensor(support.check(value)).all()):
            raise ValueError("Expected value argument (%s of shape %s) to be within the "
                             "support (%r) of the distribution %r, but found invalid values:"
                             "\n%s" % (type(value).__name__, tuple(value.shape), support,
                                       self, value))

    def _value(self, value, like):
        # log_prob's argument: validated as torch does, then a Variable of like's dtype
        if self._validate_args:
            self._validate_sample(value)
        return _as_param(value, like)

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
    def mean(self):
        """The mean."""
        raise NotImplementedError("%s does not implement mean" % type(self).__name__)

    @property
    def mode(self):
        """The mode."""
        raise NotImplementedError("%s does not implement mode" % type(self).__name__)

    @property
    def variance(self):
        """The variance."""
        raise NotImplementedError("%s does not implement variance" % type(self).__name__)

    @property
    def stddev(self):
        """The standard deviation (the square root of `variance`)."""
        return self.variance.sqrt()

    def log_prob(self, value):
        """The log density (or log mass) at ``value``."""
        raise NotImplementedError

    def cdf(self, value):
        """P(X <= value)."""
        raise NotImplementedError

    def icdf(self, value):
        """The inverse of `cdf`."""
        raise NotImplementedError

    def entropy(self):
        """The entropy, batched over ``batch_shape``."""
        raise NotImplementedError

    def enumerate_support(self, expand=True):
        """Every value of a discrete support, along a new leftmost dimension."""
        raise NotImplementedError

    def perplexity(self):
        """``exp(entropy())``."""
        return pyad.exp(self.entropy())

    def __repr__(self):
        params = ", ".join("%s: %s" % (name, _param_repr(self.__dict__[name]))
                           for name in self.arg_constraints if name in self.__dict__)
        return "%s(%s)" % (type(self).__name__, params)


def _param_repr(value):
    # torch's: a one-element parameter formatted as its value, else its size
    return format(value, "") if value.numel() == 1 else str(value.size())


class _ProbsOrLogits(Distribution):
    # A distribution given by probs or logits: the other one is computed on first use
    # and kept (torch's lazy_property).
    _param_names = ("probs", "logits")

    def __getattr__(self, name):
        if name == "probs" and "logits" in self.__dict__:
            value = self._probs_from_logits(self.__dict__["logits"])
        elif name == "logits" and "probs" in self.__dict__:
            value = self._logits_from_probs(self.__dict__["probs"])
        else:
            raise AttributeError("%r object has no attribute %r" % (type(self).__name__, name))
        self.__dict__[name] = value
        return value


def _probs_and_logits(probs, logits):
    if (probs is None) == (logits is None):
        raise ValueError("Either `probs` or `logits` must be specified, but not both.")
    if probs is not None:
        return _as_param(probs), None
    return None, _as_param(logits)


def _binary_logits(probs):
    # torch's probs_to_logits(is_binary=True): probabilities clamped to [eps, 1 - eps]
    eps = float(_finfo(probs.dtype).eps)
    clamped = probs.clamp(eps, 1 - eps)
    return pyad.log(clamped) - pyad.log1p(-clamped)


def _clamp_probs(probs):
    eps = float(_finfo(probs.dtype).eps)
    return probs.clamp(eps, 1 - eps)
