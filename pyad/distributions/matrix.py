"""The matrix and low-rank families of ``pyad.distributions``, as torch's:
`LowRankMultivariateNormal`, `Wishart` and `LKJCholesky`."""
import math
import warnings

import numpy

import pyad
from pyad.distributions import constraints
from pyad.distributions.distribution import Distribution, _as_param, _finfo, _shape
from pyad.distributions.exp_family import ExponentialFamily
from pyad.distributions.gamma import Beta, Chi2
from pyad.distributions.multivariate import (_batch_mahalanobis, _batch_mv,
                                             _precision_to_scale_tril)

__all__ = ["LowRankMultivariateNormal", "Wishart", "LKJCholesky"]

_LOG_2 = math.log(2)


def _eye_like(n, dtype):
    return pyad.eye(n, dtype=dtype)


def _batch_capacitance_tril(W, D):
    # the Cholesky factor of I + W^T D^-1 W
    m = W.shape[-1]
    Wt_Dinv = W.transpose(-2, -1) / D.unsqueeze(-2)
    K = pyad.matmul(Wt_Dinv, W) + _eye_like(m, W.dtype)
    return pyad.linalg.cholesky(K)


def _batch_lowrank_logdet(W, D, capacitance_tril):
    return (2 * capacitance_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)
            + D.log().sum(-1))


def _batch_lowrank_mahalanobis(W, D, x, capacitance_tril):
    Wt_Dinv = W.transpose(-2, -1) / D.unsqueeze(-2)
    Wt_Dinv_x = _batch_mv(Wt_Dinv, x)
    return (x.pow(2) / D).sum(-1) - _batch_mahalanobis(capacitance_tril, Wt_Dinv_x)


class LowRankMultivariateNormal(Distribution):
    """The multivariate normal distribution with covariance ``cov_factor cov_factor^T +
    diag(cov_diag)`` (the Woodbury identity keeps the cost linear in the event size).

    >>> import pyad
    >>> d = LowRankMultivariateNormal(pyad.zeros(2), pyad.tensor([[1.0], [0.0]]), pyad.ones(2))
    >>> d.covariance_matrix
    tensor([[2., 0.],
            [0., 1.]])
    """

    arg_constraints = {"loc": constraints.real_vector,
                       "cov_factor": constraints.independent(constraints.real, 2),
                       "cov_diag": constraints.independent(constraints.positive, 1)}
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, loc, cov_factor, cov_diag, validate_args=None):
        loc, cov_factor, cov_diag = (_as_param(a) for a in (loc, cov_factor, cov_diag))
        if loc.ndim < 1:
            raise ValueError("loc must be at least one-dimensional.")
        event_shape = tuple(loc.shape[-1:])
        if cov_factor.ndim < 2:
            raise ValueError("cov_factor must be at least two-dimensional, with optional "
                             "leading batch dimensions")
        if tuple(cov_factor.shape[-2:-1]) != event_shape:
            raise ValueError("cov_factor must be a batch of matrices with shape %d x m"
                             % event_shape[0])
        if tuple(cov_diag.shape[-1:]) != event_shape:
            raise ValueError("cov_diag must be a batch of vectors with shape %s"
                             % (event_shape,))
        try:
            loc_, self.cov_factor, cov_diag_ = pyad.broadcast_tensors(
                loc.unsqueeze(-1), cov_factor, cov_diag.unsqueeze(-1))
        except (RuntimeError, ValueError) as e:
            raise ValueError("Incompatible batch shapes: loc %s, cov_factor %s, cov_diag %s"
                             % (tuple(loc.shape), tuple(cov_factor.shape),
                                tuple(cov_diag.shape))) from e
        self.loc = loc_[..., 0]
        self.cov_diag = cov_diag_[..., 0]
        batch_shape = tuple(self.loc.shape[:-1])
        self._unbroadcasted_cov_factor = cov_factor
        self._unbroadcasted_cov_diag = cov_diag
        self._capacitance_tril = _batch_capacitance_tril(cov_factor, cov_diag)
        super().__init__(batch_shape, event_shape, validate_args)

    def expand(self, batch_shape, _instance=None):
        """The same distribution with its batch expanded to ``batch_shape``."""
        batch_shape = _shape(batch_shape)
        new = object.__new__(type(self))
        new.__dict__.update(self.__dict__)
        for name in ("scale_tril", "covariance_matrix", "precision_matrix", "variance"):
            new.__dict__.pop(name, None)
        loc_shape = batch_shape + self._event_shape
        new.loc = self.loc.expand(loc_shape)
        new.cov_diag = self.cov_diag.expand(loc_shape)
        new.cov_factor = self.cov_factor.expand(loc_shape + tuple(self.cov_factor.shape[-1:]))
        new._batch_shape = batch_shape
        return new

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
        """``sum(cov_factor^2, -1) + cov_diag``."""
        return (self._unbroadcasted_cov_factor.pow(2).sum(-1)
                + self._unbroadcasted_cov_diag).expand(self._batch_shape + self._event_shape)

    def _matrix_shape(self):
        return self._batch_shape + self._event_shape + self._event_shape

    @property
    def scale_tril(self):
        """The lower Cholesky factor of the covariance matrix."""
        n = self._event_shape[0]
        sqrt_d = self._unbroadcasted_cov_diag.sqrt().unsqueeze(-1)
        Dinvsqrt_W = self._unbroadcasted_cov_factor / sqrt_d
        K = pyad.matmul(Dinvsqrt_W, Dinvsqrt_W.transpose(-2, -1)) + _eye_like(n, sqrt_d.dtype)
        return (sqrt_d * pyad.linalg.cholesky(K)).expand(self._matrix_shape())

    @property
    def covariance_matrix(self):
        """``W W^T + diag(D)``."""
        W = self._unbroadcasted_cov_factor
        return (pyad.matmul(W, W.transpose(-2, -1))
                + pyad.diag_embed(self._unbroadcasted_cov_diag)).expand(self._matrix_shape())

    @property
    def precision_matrix(self):
        """The inverse covariance, by the Woodbury identity."""
        Wt_Dinv = (self._unbroadcasted_cov_factor.transpose(-2, -1)
                   / self._unbroadcasted_cov_diag.unsqueeze(-2))
        A = pyad.linalg.solve_triangular(self._capacitance_tril, Wt_Dinv, upper=False)
        precision = (pyad.diag_embed(self._unbroadcasted_cov_diag.reciprocal())
                     - pyad.matmul(A.transpose(-2, -1), A))
        return precision.expand(self._matrix_shape())

    def rsample(self, sample_shape=()):
        """``loc + W eps_W + sqrt(D) eps_D``: differentiable in the three parameters."""
        shape = self._extended_shape(sample_shape)
        w_shape = shape[:-1] + tuple(self.cov_factor.shape[-1:])
        eps_W = pyad.randn(*w_shape, dtype=self.loc.dtype)
        eps_D = pyad.randn(*shape, dtype=self.loc.dtype)
        return (self.loc + _batch_mv(self._unbroadcasted_cov_factor, eps_W)
                + self._unbroadcasted_cov_diag.sqrt() * eps_D)

    def log_prob(self, value):
        """The Gaussian log density, by the Woodbury and determinant lemmas."""
        value = self._value(value, self.loc)
        diff = value - self.loc
        M = _batch_lowrank_mahalanobis(self._unbroadcasted_cov_factor,
                                       self._unbroadcasted_cov_diag, diff,
                                       self._capacitance_tril)
        log_det = _batch_lowrank_logdet(self._unbroadcasted_cov_factor,
                                        self._unbroadcasted_cov_diag, self._capacitance_tril)
        return -0.5 * (self._event_shape[0] * math.log(2 * math.pi) + log_det + M)

    def entropy(self):
        """``(k (1 + log 2 pi) + log det Sigma) / 2``."""
        log_det = _batch_lowrank_logdet(self._unbroadcasted_cov_factor,
                                        self._unbroadcasted_cov_diag, self._capacitance_tril)
        H = 0.5 * (self._event_shape[0] * (1.0 + math.log(2 * math.pi)) + log_det)
        return H if not self._batch_shape else H.expand(self._batch_shape)


def _mvdigamma(x, p):
    if not bool((x > (p - 1) / 2).all()):
        raise AssertionError("Wrong domain for multivariate digamma function.")
    offsets = pyad.tensor(numpy.arange(p, dtype=numpy.dtype(x.dtype)) / 2)
    return pyad.digamma(x.unsqueeze(-1) - offsets).sum(-1)


class Wishart(ExponentialFamily):
    """The Wishart distribution over positive definite matrices, with ``df`` degrees of
    freedom and a scale given by exactly one of ``covariance_matrix``,
    ``precision_matrix`` or ``scale_tril``; ``rsample`` is Bartlett's decomposition.

    >>> import pyad
    >>> Wishart(pyad.tensor(3.0), covariance_matrix=pyad.eye(2)).mean
    tensor([[3., 0.],
            [0., 3.]])
    """

    support = constraints.positive_definite
    has_rsample = True
    _mean_carrier_measure = 0

    @property
    def arg_constraints(self):
        """The matrix constraints, and ``df > p - 1``."""
        return {"covariance_matrix": constraints.positive_definite,
                "precision_matrix": constraints.positive_definite,
                "scale_tril": constraints.lower_cholesky,
                "df": constraints.greater_than(self.event_shape[-1] - 1)}

    def __init__(self, df, covariance_matrix=None, precision_matrix=None, scale_tril=None,
                 validate_args=None):
        given = [(name, m) for name, m in (("covariance_matrix", covariance_matrix),
                                           ("precision_matrix", precision_matrix),
                                           ("scale_tril", scale_tril)) if m is not None]
        if len(given) != 1:
            raise ValueError("Exactly one of covariance_matrix or precision_matrix or "
                             "scale_tril may be specified.")
        name, param = given[0]
        param = _as_param(param)
        if param.ndim < 2:
            raise ValueError("scale_tril must be at least two-dimensional, with optional "
                             "leading batch dimensions")
        if isinstance(df, pyad.Variable):
            batch_shape = pyad.broadcast_shapes(tuple(param.shape[:-2]), tuple(df.shape))
            self.df = df.expand(batch_shape)
        else:
            batch_shape = tuple(param.shape[:-2])
            self.df = pyad.tensor(float(df), dtype=param.dtype)
        event_shape = tuple(param.shape[-2:])
        if bool((self.df <= event_shape[-1] - 1).any()):
            raise ValueError("Value of df=%s expected to be greater than ndim - 1 = %d."
                             % (df, event_shape[-1] - 1))
        self.__dict__[name] = param.expand(batch_shape + (-1, -1))
        if bool((self.df < event_shape[-1]).any()):
            warnings.warn("Low df values detected. Singular samples are highly likely to "
                          "occur for ndim - 1 < df < ndim.", stacklevel=2)
        self._event_shape = event_shape         # arg_constraints reads it
        super().__init__(batch_shape, event_shape, validate_args)
        self._batch_dims = [-(x + 1) for x in range(len(self._batch_shape))]
        if name == "scale_tril":
            self._unbroadcasted_scale_tril = param
        elif name == "covariance_matrix":
            self._unbroadcasted_scale_tril = pyad.linalg.cholesky(param)
        else:
            self._unbroadcasted_scale_tril = _precision_to_scale_tril(param)

    @property
    def _dist_chi2(self):
        p = self._event_shape[-1]
        offsets = pyad.tensor(numpy.arange(p, dtype=numpy.dtype(self.df.dtype)))
        return Chi2(df=self.df.unsqueeze(-1) - offsets.expand(self._batch_shape + (-1,)),
                    validate_args=False)

    def expand(self, batch_shape, _instance=None):
        """The same distribution with its batch expanded to ``batch_shape``."""
        batch_shape = _shape(batch_shape)
        new = object.__new__(type(self))
        new.__dict__.update(self.__dict__)
        cov_shape = batch_shape + self._event_shape
        new._unbroadcasted_scale_tril = self._unbroadcasted_scale_tril.expand(cov_shape)
        new.df = self.df.expand(batch_shape)
        new._batch_dims = [-(x + 1) for x in range(len(batch_shape))]
        for name in ("covariance_matrix", "scale_tril", "precision_matrix"):
            if name in self.__dict__:
                new.__dict__[name] = self.__dict__[name].expand(cov_shape)
        new._batch_shape = batch_shape
        return new

    def _matrix_shape(self):
        return self._batch_shape + self._event_shape

    def __getattr__(self, name):
        if name == "scale_tril":
            value = self._unbroadcasted_scale_tril.expand(self._matrix_shape())
        elif name == "covariance_matrix":
            L = self._unbroadcasted_scale_tril
            value = pyad.matmul(L, L.transpose(-2, -1)).expand(self._matrix_shape())
        elif name == "precision_matrix":
            eye = _eye_like(self._event_shape[-1], self._unbroadcasted_scale_tril.dtype)
            value = pyad.cholesky_solve(eye, self._unbroadcasted_scale_tril).expand(
                self._matrix_shape())
        else:
            raise AttributeError("%r object has no attribute %r" % (type(self).__name__, name))
        self.__dict__[name] = value
        return value

    @property
    def mean(self):
        """``df * covariance_matrix``."""
        return self.df.reshape(self._batch_shape + (1, 1)) * self.covariance_matrix

    @property
    def mode(self):
        """``(df - p - 1) covariance_matrix`` (nan where df <= p + 1)."""
        factor = self.df - self.covariance_matrix.shape[-1] - 1
        factor = pyad.where((factor <= 0).detach(), float("nan"), factor)
        return factor.reshape(self._batch_shape + (1, 1)) * self.covariance_matrix

    @property
    def variance(self):
        """``df (V_ij^2 + V_ii V_jj)``."""
        V = self.covariance_matrix
        diag_V = V.diagonal(dim1=-2, dim2=-1)
        return self.df.reshape(self._batch_shape + (1, 1)) * (
            V.pow(2) + diag_V.unsqueeze(-1) * diag_V.unsqueeze(-2))

    def _bartlett_sampling(self, sample_shape=()):
        p = self._event_shape[-1]
        sample_shape = _shape(sample_shape)
        chi = self._dist_chi2.rsample(sample_shape).sqrt()
        chi = chi.clamp(min=float(_finfo(chi.dtype).eps))
        rows, cols = numpy.tril_indices(p, -1)
        k = len(rows)
        normal = pyad.randn(*(sample_shape + self._batch_shape + (k,)), dtype=chi.dtype)
        sel = numpy.zeros((k, p * p), dtype=numpy.dtype(chi.dtype))
        sel[numpy.arange(k), rows * p + cols] = 1
        lower = pyad.matmul(normal, pyad.tensor(sel)).reshape(
            sample_shape + self._batch_shape + (p, p))
        noise = pyad.diag_embed(chi) + lower
        chol = pyad.matmul(self._unbroadcasted_scale_tril, noise)
        return pyad.matmul(chol, chol.transpose(-2, -1))

    def rsample(self, sample_shape=(), max_try_correction=None):
        """A Bartlett draw ``(L A)(L A)^T``: differentiable in df (through the chi-squared
        draws) and the scale. Singular draws are redrawn up to ``max_try_correction``
        (10) times, as torch."""
        if max_try_correction is None:
            max_try_correction = 10
        sample_shape = _shape(sample_shape)
        sample = self._bartlett_sampling(sample_shape)
        is_singular = ~self.support.check(sample)
        if self._batch_shape:
            is_singular = is_singular.reshape(sample_shape + (-1,)).any(-1)
        if bool(is_singular.any()):
            warnings.warn("Singular sample detected.", stacklevel=2)
            for _ in range(max_try_correction):
                sample_new = self._bartlett_sampling(sample_shape)
                mask = is_singular.reshape(tuple(is_singular.shape)
                                           + (1,) * (sample.ndim - is_singular.ndim))
                sample = pyad.where(mask, sample_new, sample)
                is_singular = ~self.support.check(sample)
                if self._batch_shape:
                    is_singular = is_singular.reshape(sample_shape + (-1,)).any(-1)
                if not bool(is_singular.any()):
                    break
        return sample

    def log_prob(self, value):
        """The Wishart log density."""
        value = self._value(value, self.df)
        nu = self.df
        p = self._event_shape[-1]
        L = self._unbroadcasted_scale_tril
        return (-nu * (p * _LOG_2 / 2 + L.diagonal(dim1=-2, dim2=-1).log().sum(-1))
                - pyad.mvlgamma(nu / 2, p)
                + (nu - p - 1) / 2 * pyad.linalg.slogdet(value).logabsdet
                - pyad.cholesky_solve(value, L).diagonal(dim1=-2, dim2=-1).sum(-1) / 2)

    def entropy(self):
        """The Wishart entropy."""
        nu = self.df
        p = self._event_shape[-1]
        L = self._unbroadcasted_scale_tril
        return ((p + 1) * (p * _LOG_2 / 2 + L.diagonal(dim1=-2, dim2=-1).log().sum(-1))
                + pyad.mvlgamma(nu / 2, p) - (nu - p - 1) / 2 * _mvdigamma(nu / 2, p)
                + nu * p / 2)

    @property
    def _natural_params(self):
        p = self._event_shape[-1]
        return -self.precision_matrix / 2, (self.df - p - 1) / 2

    def _log_normalizer(self, x, y):
        p = self._event_shape[-1]
        return ((y + (p + 1) / 2) * (-pyad.linalg.slogdet(-2 * x).logabsdet + _LOG_2 * p)
                + pyad.mvlgamma(y + (p + 1) / 2, p))


class LKJCholesky(Distribution):
    """The LKJ distribution over lower Cholesky factors of ``dim`` x ``dim`` correlation
    matrices, with density proportional to ``det(L L^T)^(concentration - 1)`` for the
    correlation matrix (sampled by the onion method).

    >>> import pyad
    >>> LKJCholesky(2, 1.0).log_prob(pyad.eye(2))
    tensor(-0.6931)
    """

    arg_constraints = {"concentration": constraints.positive}
    support = constraints.corr_cholesky
    _param_names = ("concentration",)

    def __init__(self, dim, concentration=1.0, validate_args=None):
        if dim < 2:
            raise ValueError("Expected dim to be an integer greater than or equal to 2. "
                             "Found dim=%s." % (dim,))
        self.dim = dim
        (self.concentration,) = pyad.broadcast_tensors(_as_param(concentration))
        super().__init__(tuple(self.concentration.shape), (dim, dim), validate_args)

    @property
    def _beta(self):
        dtype = numpy.dtype(self.concentration.dtype)
        marginal_conc = self.concentration + 0.5 * (self.dim - 2)
        offset = numpy.concatenate([[0.0], numpy.arange(self.dim - 1)]).astype(dtype)
        beta_conc1 = pyad.tensor(offset + 0.5)
        beta_conc0 = marginal_conc.unsqueeze(-1) - 0.5 * pyad.tensor(offset)
        return Beta(beta_conc1, beta_conc0, validate_args=False)

    def sample(self, sample_shape=()):
        """A draw (no gradient) by the onion method."""
        with pyad.no_grad():
            y = self._beta.sample(sample_shape).unsqueeze(-1)
            u_normal = pyad.randn(*self._extended_shape(sample_shape), dtype=y.dtype).tril(-1)
            norm = pyad.linalg.vector_norm(u_normal, dim=-1, keepdim=True)
            u_hypersphere = u_normal / norm
            first = pyad.tensor(numpy.arange(self.dim) > 0).unsqueeze(-1)
            u_hypersphere = pyad.where(first, u_hypersphere, 0.0)
            w = pyad.sqrt(y) * u_hypersphere
            eps = float(_finfo(w.dtype).tiny)
            diag_elems = (1 - (w ** 2).sum(-1)).clamp(min=eps).sqrt()
            return w + pyad.diag_embed(diag_elems)

    def log_prob(self, value):
        """``sum_i (2 (eta - 1) + dim - i) log L_ii`` minus the normaliser."""
        value = self._value(value, self.concentration)
        diag_elems = value.diagonal(dim1=-1, dim2=-2)[..., 1:]
        order = pyad.tensor(numpy.arange(2, self.dim + 1).astype(
            numpy.dtype(self.concentration.dtype)))
        order = 2 * (self.concentration - 1).unsqueeze(-1) + self.dim - order
        unnormalized = (order * diag_elems.log()).sum(-1)
        dm1 = self.dim - 1
        alpha = self.concentration + 0.5 * dm1
        denominator = pyad.lgamma(alpha) * dm1
        numerator = pyad.mvlgamma(alpha - 0.5, dm1)
        pi_constant = 0.5 * dm1 * math.log(math.pi)
        return unnormalized - (pi_constant + numerator - denominator)
