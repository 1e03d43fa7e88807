"""The continuous relaxations of ``pyad.distributions``: `RelaxedBernoulli` (the
binary Concrete distribution) and `RelaxedOneHotCategorical` (Gumbel-softmax), each a
transform of a base on the real line, as torch builds them."""
import pyad
from pyad.autograd.grad_mode import no_grad
from pyad.distributions import constraints
from pyad.distributions.discrete import Categorical
from pyad.distributions.distribution import (Distribution, _ProbsOrLogits, _as_param,
                                             _binary_logits, _broadcast_all, _clamp_probs,
                                             _finfo, _probs_and_logits)

__all__ = ["RelaxedBernoulli", "RelaxedOneHotCategorical"]


class _LogitRelaxedBernoulli(_ProbsOrLogits):
    # the logit of a RelaxedBernoulli draw (torch's LogitRelaxedBernoulli)
    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.real

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        self.temperature = _as_param(temperature)
        probs, logits = _probs_and_logits(probs, logits)
        if probs is not None:
            (self.probs,) = _broadcast_all(probs)
            param = self.probs
        else:
            (self.logits,) = _broadcast_all(logits)
            param = self.logits
        super().__init__(param.shape, (), validate_args)

    def _probs_from_logits(self, logits):
        return pyad.sigmoid(logits)

    def _logits_from_probs(self, probs):
        return _binary_logits(probs)

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        probs = _clamp_probs(self.probs.expand(shape))
        uniforms = _clamp_probs(pyad.rand(*shape, dtype=probs.dtype))
        return (uniforms.log() - (-uniforms).log1p() + probs.log()
                - (-probs).log1p()) / self.temperature

    def log_prob(self, value):
        logits, value = _broadcast_all(self.logits, value)
        diff = logits - value * self.temperature
        return self.temperature.log() + diff - 2 * diff.exp().log1p()


class _ExpRelaxedCategorical(Distribution):
    # the log of a RelaxedOneHotCategorical draw (torch's ExpRelaxedCategorical)
    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        self._categorical = Categorical(probs, logits)
        self.temperature = _as_param(temperature)
        super().__init__(self._categorical.batch_shape, self._categorical.param_shape[-1:],
                         validate_args)

    def expand(self, batch_shape, _instance=None):
        new = super().expand(batch_shape)
        new._categorical = self._categorical.expand(batch_shape)
        return new

    @property
    def logits(self):
        return self._categorical.logits

    @property
    def probs(self):
        return self._categorical.probs

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        uniforms = _clamp_probs(pyad.rand(*shape, dtype=self.logits.dtype))
        gumbels = -((-(uniforms.log())).log())
        scores = (self.logits + gumbels) / self.temperature
        return scores - scores.logsumexp(dim=-1, keepdim=True)

    def log_prob(self, value):
        K = self._categorical._num_events
        logits, value = _broadcast_all(self.logits, value)
        log_scale = (pyad.full_like(self.temperature, float(K)).lgamma()
                     - self.temperature.log() * (-(K - 1)))
        score = logits - value * self.temperature
        score = (score - score.logsumexp(dim=-1, keepdim=True)).sum(-1)
        return score + log_scale


class _Relaxed(Distribution):
    # a transform of self.base_dist (torch's TransformedDistribution for these two)
    has_rsample = True

    def expand(self, batch_shape, _instance=None):
        """The same distribution with its batch expanded to ``batch_shape``."""
        new = super().expand(batch_shape)
        new.base_dist = self.base_dist.expand(batch_shape)
        return new

    @property
    def temperature(self):
        """The relaxation temperature (towards 0, draws approach the discrete ones)."""
        return self.base_dist.temperature

    @property
    def logits(self):
        """The logits of the underlying discrete distribution."""
        return self.base_dist.logits

    @property
    def probs(self):
        """The probabilities of the underlying discrete distribution."""
        return self.base_dist.probs

    def sample(self, sample_shape=()):
        """A draw without a gradient."""
        with no_grad():
            return self.rsample(sample_shape)

    def __repr__(self):
        return type(self).__name__ + "()"


class RelaxedBernoulli(_Relaxed):
    """The binary Concrete distribution on (0, 1): ``sigmoid((logit(u) + logits) /
    temperature)``, u uniform, differentiable in ``probs``/``logits``.

    >>> import pyad
    >>> d = RelaxedBernoulli(pyad.tensor(0.5), probs=pyad.tensor([0.3]))
    >>> d.log_prob(pyad.tensor([0.2]))
    tensor([-0.2528])
    """

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.unit_interval

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        self.base_dist = _LogitRelaxedBernoulli(temperature, probs, logits)
        super().__init__(self.base_dist.batch_shape, (), validate_args)

    def rsample(self, sample_shape=()):
        """``sigmoid`` of a logistic draw, clipped to [tiny, 1 - eps] as torch."""
        info = _finfo(self.base_dist.logits.dtype)
        return pyad.sigmoid(self.base_dist.rsample(sample_shape)).clamp(
            min=float(info.tiny), max=1.0 - float(info.eps))

    def log_prob(self, value):
        """The base log density at ``logit(value)`` plus the sigmoid's log Jacobian."""
        value = self._value(value, self.base_dist.logits)
        info = _finfo(value.dtype)
        y = value.clamp(min=float(info.tiny), max=1.0 - float(info.eps))
        x = y.log() - (-y).log1p()
        softplus = pyad.nn.functional.softplus
        return (softplus(-x) + softplus(x)) + self.base_dist.log_prob(x)


class RelaxedOneHotCategorical(_Relaxed):
    """The Concrete (Gumbel-softmax) distribution on the simplex:
    ``softmax((logits + gumbel noise) / temperature)``, differentiable in
    ``probs``/``logits``.

    >>> import pyad
    >>> d = RelaxedOneHotCategorical(pyad.tensor(0.5), probs=pyad.tensor([0.3, 0.7]))
    >>> d.log_prob(pyad.tensor([0.2, 0.8]))
    tensor(-0.2528)
    """

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.simplex

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        self.base_dist = _ExpRelaxedCategorical(temperature, probs, logits,
                                                validate_args=validate_args)
        super().__init__(self.base_dist.batch_shape, self.base_dist.event_shape,
                         validate_args)

    def rsample(self, sample_shape=()):
        """``exp`` of a log-softmax of Gumbel-perturbed logits."""
        return self.base_dist.rsample(sample_shape).exp()

    def log_prob(self, value):
        """The base log density at ``log(value)`` minus ``sum(log(value))``."""
        value = self._value(value, self.base_dist.logits)
        x = value.log()
        return -x.sum(-1) + self.base_dist.log_prob(x)
