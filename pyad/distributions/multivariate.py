"""`MultivariateNormal`, `Independent` and `MixtureSameFamily`: the distributions of
``pyad.distributions`` with vector events or built from other distributions."""
import math

import pyad
from pyad.autograd.grad_mode import no_grad
from pyad.distributions import constraints
from pyad.distributions.discrete import Categorical
from pyad.distributions.distribution import Distribution, _as_param, _shape

__all__ = ["MultivariateNormal", "Independent", "MixtureSameFamily"]


def _batch_mv(bmat, bvec):
    return pyad.matmul(bmat, bvec.unsqueeze(-1)).squeeze(-1)


def _batch_mahalanobis(L, x):
    # |L^-1 x|^2 with L lower triangular, both broadcast over their batch dimensions
    n = x.shape[-1]
    batch = pyad.broadcast_shapes(tuple(L.shape[:-2]), tuple(x.shape[:-1]))
    solution = pyad.triangular_solve(x.expand(batch + (n,)).unsqueeze(-1),
                                     L.expand(batch + (n, n)), upper=False).solution
    return solution.pow(2).sum(-1).sum(-1)


def _precision_to_scale_tril(P):
    # The lower Cholesky factor of P^-1 without inverting P: flip, factor, solve
    Lf = pyad.linalg.cholesky(pyad.flip(P, (-2, -1)))
    L_inv = pyad.flip(Lf, (-2, -1)).transpose(-2, -1)
    eye = pyad.eye(P.shape[-1], dtype=P.dtype).expand(L_inv.shape)
    return pyad.triangular_solve(eye, L_inv, upper=False).solution


class MultivariateNormal(Distribution):
    """The multivariate normal distribution with mean ``loc`` and a covariance given by
    exactly one of ``covariance_matrix``, ``precision_matrix`` or ``scale_tril`` (its
    lower Cholesky factor).

    >>> import pyad
    >>> d = MultivariateNormal(pyad.zeros(2), scale_tril=pyad.tensor([[1.0, 0.0], [0.5, 2.0]]))
    >>> d.event_shape, d.log_prob(pyad.tensor([0.0, 1.0]))
    ((2,), tensor(-2.6560))
    """

    arg_constraints = {"loc": constraints.real_vector,
                       "covariance_matrix": constraints.positive_definite,
                       "precision_matrix": constraints.positive_definite,
                       "scale_tril": constraints.lower_cholesky}
    support = constraints.real_vector
    has_rsample = True
    _param_names = ("loc", "covariance_matrix", "precision_matrix", "scale_tril")

    def __init__(self, loc, covariance_matrix=None, precision_matrix=None, scale_tril=None,
                 validate_args=None):
        loc = _as_param(loc)
        if loc.ndim < 1:
            raise ValueError("loc must be at least one-dimensional.")
        given = [(name, m) for name, m in (("covariance_matrix", covariance_matrix),
                                           ("precision_matrix", precision_matrix),
                                           ("scale_tril", scale_tril)) if m is not None]
        if len(given) != 1:
            raise ValueError("Exactly one of covariance_matrix or precision_matrix or "
                             "scale_tril may be specified.")
        name, matrix = given[0]
        matrix = _as_param(matrix)
        if matrix.ndim < 2:
            raise ValueError("%s must be at least two-dimensional, with optional leading "
                             "batch dimensions" % ("scale_tril matrix" if name == "scale_tril"
                                                   else name))
        batch_shape = pyad.broadcast_shapes(tuple(matrix.shape[:-2]), tuple(loc.shape[:-1]))
        self.__dict__[name] = matrix.expand(batch_shape + (-1, -1))
        self.loc = loc.expand(batch_shape + (-1,))
        super().__init__(batch_shape, self.loc.shape[-1:], validate_args)
        if name == "scale_tril":
            self._unbroadcasted_scale_tril = matrix
        elif name == "covariance_matrix":
            self._unbroadcasted_scale_tril = pyad.linalg.cholesky(matrix)
        else:
            self._unbroadcasted_scale_tril = _precision_to_scale_tril(matrix)

    def _matrix_shape(self):
        return self._batch_shape + self._event_shape + self._event_shape

    def __getattr__(self, name):
        # the two parameterisations not given, computed on first use and kept
        if name == "scale_tril":
            value = self._unbroadcasted_scale_tril.expand(self._matrix_shape())
        elif name == "covariance_matrix":
            L = self._unbroadcasted_scale_tril
            value = pyad.matmul(L, L.transpose(-2, -1)).expand(self._matrix_shape())
        elif name == "precision_matrix":
            L = self._unbroadcasted_scale_tril
            value = pyad.cholesky_inverse(L).expand(self._matrix_shape())
        else:
            raise AttributeError("%r object has no attribute %r" % (type(self).__name__, name))
        self.__dict__[name] = value
        return value

    @property
    def mean(self):
        """``loc``."""
        return self.loc

    @property
    def mode(self):
        """``loc``."""
        return self.loc

    @property
    def variance(self):
        """The diagonal of the covariance matrix."""
        return self._unbroadcasted_scale_tril.pow(2).sum(-1).expand(
            self._batch_shape + self._event_shape)

    def rsample(self, sample_shape=()):
        """``loc + L eps``, eps standard normal: differentiable in loc and the matrix."""
        shape = self._extended_shape(sample_shape)
        eps = pyad.randn(*shape, dtype=self.loc.dtype)
        return self.loc + _batch_mv(self._unbroadcasted_scale_tril, eps)

    def log_prob(self, value):
        """``-(k log(2 pi) + |L^-1 (value - loc)|^2) / 2 - log det L``."""
        value = self._value(value, self.loc)
        diff = value - self.loc
        M = _batch_mahalanobis(self._unbroadcasted_scale_tril, diff)
        half_log_det = self._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)
        return -0.5 * (self._event_shape[0] * math.log(2 * math.pi) + M) - half_log_det

    def entropy(self):
        """``k (1 + log(2 pi)) / 2 + log det L``."""
        half_log_det = self._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)
        H = 0.5 * self._event_shape[0] * (1.0 + math.log(2 * math.pi)) + half_log_det
        return H if not self._batch_shape else H.expand(self._batch_shape)


def _sum_rightmost(value, dim):
    return value.reshape(tuple(value.shape[:value.ndim - dim]) + (-1,)).sum(-1) if dim \
        else value


class Independent(Distribution):
    """Reinterprets the ``reinterpreted_batch_ndims`` rightmost batch dimensions of
    ``base_distribution`` as event dimensions: ``log_prob`` sums over them.

    >>> import pyad
    >>> from pyad.distributions import Normal
    >>> d = Independent(Normal(pyad.zeros(3), pyad.ones(3)), 1)
    >>> d.batch_shape, d.event_shape, d.log_prob(pyad.zeros(3))
    ((), (3,), tensor(-2.7568))
    """

    arg_constraints = {}

    def __init__(self, base_distribution, reinterpreted_batch_ndims, validate_args=None):
        if reinterpreted_batch_ndims > len(base_distribution.batch_shape):
            raise ValueError("Expected reinterpreted_batch_ndims <= "
                             "len(base_distribution.batch_shape), actual %d vs %d"
                             % (reinterpreted_batch_ndims, len(base_distribution.batch_shape)))
        shape = tuple(base_distribution.batch_shape) + tuple(base_distribution.event_shape)
        event_dim = reinterpreted_batch_ndims + len(base_distribution.event_shape)
        self.base_dist = base_distribution
        self.reinterpreted_batch_ndims = reinterpreted_batch_ndims
        super().__init__(shape[:len(shape) - event_dim], shape[len(shape) - event_dim:],
                         validate_args)

    def expand(self, batch_shape, _instance=None):
        """The same distribution with its batch expanded to ``batch_shape``."""
        batch_shape = _shape(batch_shape)
        new = super().expand(batch_shape)
        new.base_dist = self.base_dist.expand(
            batch_shape + self._event_shape[:self.reinterpreted_batch_ndims])
        return new

    @property
    def has_rsample(self):
        """The base distribution's."""
        return self.base_dist.has_rsample

    @property
    def has_enumerate_support(self):
        """The base distribution's when no batch dimension is reinterpreted."""
        if self.reinterpreted_batch_ndims > 0:
            return False
        return self.base_dist.has_enumerate_support

    @constraints.dependent_property
    def support(self):
        """The base distribution's support, over the reinterpreted dimensions."""
        result = self.base_dist.support
        if self.reinterpreted_batch_ndims:
            result = constraints.independent(result, self.reinterpreted_batch_ndims)
        return result

    @property
    def mean(self):
        """The base distribution's."""
        return self.base_dist.mean

    @property
    def mode(self):
        """The base distribution's."""
        return self.base_dist.mode

    @property
    def variance(self):
        """The base distribution's."""
        return self.base_dist.variance

    def sample(self, sample_shape=()):
        """The base distribution's sample."""
        return self.base_dist.sample(sample_shape)

    def rsample(self, sample_shape=()):
        """The base distribution's rsample."""
        return self.base_dist.rsample(sample_shape)

    def log_prob(self, value):
        """The base log_prob summed over the reinterpreted dimensions."""
        return _sum_rightmost(self.base_dist.log_prob(value), self.reinterpreted_batch_ndims)

    def entropy(self):
        """The base entropy summed over the reinterpreted dimensions."""
        return _sum_rightmost(self.base_dist.entropy(), self.reinterpreted_batch_ndims)

    def enumerate_support(self, expand=True):
        """The base distribution's (with no reinterpreted dimension)."""
        if self.reinterpreted_batch_ndims > 0:
            raise NotImplementedError("Enumeration over cartesian product is not implemented")
        return self.base_dist.enumerate_support(expand=expand)

    def __repr__(self):
        return "%s(%s, %d)" % (type(self).__name__, self.base_dist,
                               self.reinterpreted_batch_ndims)


class MixtureSameFamily(Distribution):
    """A mixture of the components of ``component_distribution`` (its rightmost batch
    dimension), weighted by ``mixture_distribution``, a `Categorical`.

    >>> import pyad
    >>> from pyad.distributions import Categorical, Normal
    >>> mix = Categorical(probs=pyad.tensor([0.5, 0.5]))
    >>> d = MixtureSameFamily(mix, Normal(pyad.tensor([-1.0, 1.0]), pyad.ones(2)))
    >>> d.mean, d.variance
    (tensor(0.), tensor(2.))
    """

    arg_constraints = {}
    has_rsample = False

    def __init__(self, mixture_distribution, component_distribution, validate_args=None):
        self._mixture_distribution = mixture_distribution
        self._component_distribution = component_distribution
        if not isinstance(mixture_distribution, Categorical):
            raise ValueError(" The Mixture distribution needs to be an  instance of "
                             "pyad.distributions.Categorical")
        if not isinstance(component_distribution, Distribution):
            raise ValueError("The Component distribution needs to be an instance of "
                             "pyad.distributions.Distribution")
        mdbs = mixture_distribution.batch_shape
        cdbs = component_distribution.batch_shape[:-1]
        for size1, size2 in zip(reversed(mdbs), reversed(cdbs)):
            if size1 != 1 and size2 != 1 and size1 != size2:
                raise ValueError("`mixture_distribution.batch_shape` (%s) is not compatible "
                                 "with `component_distribution.batch_shape`(%s)"
                                 % (mdbs, cdbs))
        km = mixture_distribution.logits.shape[-1]
        kc = component_distribution.batch_shape[-1]
        if km != kc:
            raise ValueError("`mixture_distribution component` (%d) does not equal "
                             "`component_distribution.batch_shape[-1]` (%d)" % (km, kc))
        self._num_component = km
        event_shape = component_distribution.event_shape
        self._event_ndims = len(event_shape)
        super().__init__(cdbs, event_shape, validate_args)

    def expand(self, batch_shape, _instance=None):
        """The same mixture with its batch expanded to ``batch_shape``."""
        batch_shape = _shape(batch_shape)
        new = super().expand(batch_shape)
        new._component_distribution = self._component_distribution.expand(
            batch_shape + (self._num_component,))
        new._mixture_distribution = self._mixture_distribution.expand(batch_shape)
        return new

    @constraints.dependent_property
    def support(self):
        """The component distribution's support, checked against every component."""
        return constraints.MixtureSameFamilyConstraint(self._component_distribution.support)

    @property
    def mixture_distribution(self):
        """The `Categorical` over the components."""
        return self._mixture_distribution

    @property
    def component_distribution(self):
        """The components (the rightmost batch dimension)."""
        return self._component_distribution

    def _pad(self, x):
        return x.unsqueeze(-1 - self._event_ndims)

    def _pad_mixture_dimensions(self, x):
        dist_batch_ndims = len(self.batch_shape)
        cat_batch_ndims = len(self.mixture_distribution.batch_shape)
        pad_ndims = 0 if cat_batch_ndims == 1 else dist_batch_ndims - cat_batch_ndims
        xs = tuple(x.shape)
        return x.reshape(xs[:-1] + (1,) * pad_ndims + xs[-1:] + (1,) * self._event_ndims)

    @property
    def mean(self):
        """The probability-weighted mean of the component means."""
        probs = self._pad_mixture_dimensions(self.mixture_distribution.probs)
        return pyad.sum(probs * self.component_distribution.mean, -1 - self._event_ndims)

    @property
    def variance(self):
        """The law of total variance over the components."""
        probs = self._pad_mixture_dimensions(self.mixture_distribution.probs)
        dim = -1 - self._event_ndims
        mean_cond_var = pyad.sum(probs * self.component_distribution.variance, dim)
        var_cond_mean = pyad.sum(
            probs * (self.component_distribution.mean - self._pad(self.mean)).pow(2.0), dim)
        return mean_cond_var + var_cond_mean

    def cdf(self, x):
        """The probability-weighted component CDFs."""
        cdf_x = self.component_distribution.cdf(self._pad(x))
        return pyad.sum(cdf_x * self.mixture_distribution.probs, -1)

    def log_prob(self, x):
        """``logsumexp`` over the components of component log_prob + log weight."""
        if self._validate_args:
            self._validate_sample(x)
        log_prob_x = self.component_distribution.log_prob(self._pad(x))
        log_mix_prob = pyad.log_softmax(self.mixture_distribution.logits, -1)
        return pyad.logsumexp(log_prob_x + log_mix_prob, -1)

    def sample(self, sample_shape=()):
        """A component drawn from the mixture, then a draw of it (no gradient)."""
        sample_shape = _shape(sample_shape)
        with no_grad():
            gather_dim = len(sample_shape) + len(self.batch_shape)
            es = self.event_shape
            mix_sample = self.mixture_distribution.sample(sample_shape)
            mix_shape = tuple(mix_sample.shape)
            comp_samples = self.component_distribution.sample(sample_shape)
            index = mix_sample.reshape(mix_shape + (1,) * (len(es) + 1))
            index = index.repeat((1,) * len(mix_shape) + (1,) + es)
            return pyad.gather(comp_samples, gather_dim, index).squeeze(gather_dim)

    def __repr__(self):
        return "MixtureSameFamily(\n  %s,\n  %s)" % (self.mixture_distribution,
                                                    self.component_distribution)
