"""`TransformedDistribution`: a base distribution pushed through a list of
`transforms`, as ``torch.distributions.TransformedDistribution``."""
from pyad.autograd.grad_mode import no_grad
from pyad.distributions import constraints
from pyad.distributions.distribution import Distribution, _shape
from pyad.distributions.multivariate import Independent
from pyad.distributions.transforms import ComposeTransform, Transform, _sum_rightmost

__all__ = ["TransformedDistribution"]


class TransformedDistribution(Distribution):
    """``base_distribution`` pushed through ``transforms`` (one `Transform` or a list,
    applied in order): ``X ~ base``, ``Y = t_n(...t_1(X))``.

    ``log_prob(y)`` inverts the transforms and subtracts their log Jacobian terms summed
    over the event dimensions; ``sample``/``rsample`` transform the base draws; ``cdf`` and
    ``icdf`` work for monotone scalar transforms (their ``sign``).

    >>> import pyad
    >>> from pyad.distributions import Normal, TransformedDistribution
    >>> from pyad.distributions.transforms import ExpTransform
    >>> d = TransformedDistribution(Normal(0.0, 1.0), [ExpTransform()])   # LogNormal(0, 1)
    >>> d.log_prob(pyad.tensor(2.0))
    tensor(-1.8523)
    """

    arg_constraints = {}

    def __init__(self, base_distribution, transforms, validate_args=None):
        if isinstance(transforms, Transform):
            self.transforms = [transforms]
        elif isinstance(transforms, list):
            if not all(isinstance(t, Transform) for t in transforms):
                raise ValueError("transforms must be a Transform or a list of Transforms")
            self.transforms = transforms
        else:
            raise ValueError("transforms must be a Transform or list, but was %s"
                             % (transforms,))
        base_shape = tuple(base_distribution.batch_shape) + tuple(base_distribution.event_shape)
        base_event_dim = len(base_distribution.event_shape)
        transform = ComposeTransform(self.transforms)
        if len(base_shape) < transform.domain.event_dim:
            raise ValueError("base_distribution needs to have shape with size at least %d, "
                             "but got %s." % (transform.domain.event_dim, base_shape))
        forward_shape = transform.forward_shape(base_shape)
        expanded_base_shape = transform.inverse_shape(forward_shape)
        if base_shape != expanded_base_shape:
            base_batch_shape = expanded_base_shape[:len(expanded_base_shape) - base_event_dim]
            base_distribution = base_distribution.expand(base_batch_shape)
        reinterpreted_batch_ndims = transform.domain.event_dim - base_event_dim
        if reinterpreted_batch_ndims > 0:
            base_distribution = Independent(base_distribution, reinterpreted_batch_ndims)
        self.base_dist = base_distribution
        change = transform.codomain.event_dim - transform.domain.event_dim
        event_dim = max(transform.codomain.event_dim, base_event_dim + change)
        cut = len(forward_shape) - event_dim
        super().__init__(forward_shape[:cut], forward_shape[cut:], validate_args)

    @property
    def has_rsample(self):
        return self.base_dist.has_rsample

    def expand(self, batch_shape, _instance=None):
        """The same distribution with a larger ``batch_shape`` (the base expanded)."""
        batch_shape = _shape(batch_shape)
        new = object.__new__(type(self))
        new.__dict__.update(self.__dict__)
        shape = batch_shape + self.event_shape
        for t in reversed(self.transforms):
            shape = t.inverse_shape(shape)
        base_batch_shape = shape[:len(shape) - len(self.base_dist.event_shape)]
        new.base_dist = self.base_dist.expand(base_batch_shape)
        new._batch_shape = batch_shape
        return new

    @constraints.dependent_property(is_discrete=False)
    def support(self):
        """The codomain of the last transform, with the event dimensions of the result."""
        if not self.transforms:
            return self.base_dist.support
        support = self.transforms[-1].codomain
        if len(self.event_shape) > support.event_dim:
            support = constraints.independent(support,
                                              len(self.event_shape) - support.event_dim)
        return support

    def sample(self, sample_shape=()):
        """Base draws (no gradient) pushed through the transforms."""
        with no_grad():
            x = self.base_dist.sample(sample_shape)
            for t in self.transforms:
                x = t(x)
            return x

    def rsample(self, sample_shape=()):
        """Reparameterised base draws pushed through the transforms (differentiable in
        the base parameters and the transforms' parameters)."""
        x = self.base_dist.rsample(sample_shape)
        for t in self.transforms:
            x = t(x)
        return x

    def log_prob(self, value):
        """The base log density at the preimage minus the log Jacobian terms."""
        if self._validate_args:
            self._validate_sample(value)
        event_dim = len(self.event_shape)
        log_prob = 0.0
        y = value
        for t in reversed(self.transforms):
            x = t.inv(y)
            event_dim += t.domain.event_dim - t.codomain.event_dim
            log_prob = log_prob - _sum_rightmost(t.log_abs_det_jacobian(x, y),
                                                 event_dim - t.domain.event_dim)
            y = x
        return log_prob + _sum_rightmost(self.base_dist.log_prob(y),
                                         event_dim - len(self.base_dist.event_shape))

    def _monotonize_cdf(self, value):
        sign = 1
        for t in self.transforms:
            sign = sign * t.sign
        if isinstance(sign, int) and sign == 1:
            return value
        return sign * (value - 0.5) + 0.5

    def cdf(self, value):
        """The base cdf at the preimage (``1 - cdf`` for a decreasing transform)."""
        for t in reversed(self.transforms):
            value = t.inv(value)
        if self._validate_args:
            self.base_dist._validate_sample(value)
        return self._monotonize_cdf(self.base_dist.cdf(value))

    def icdf(self, value):
        """The transformed base quantile (of ``1 - value`` for a decreasing transform)."""
        value = self.base_dist.icdf(self._monotonize_cdf(value))
        for t in self.transforms:
            value = t(value)
        return value

    def __repr__(self):
        return "%s()" % type(self).__name__
