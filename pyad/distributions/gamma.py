"""The gamma family of ``pyad.distributions``: `Gamma`, `Chi2`, `Beta`, `Dirichlet` and
`StudentT`, with torch's implicit reparameterisation gradients for the gamma and
Dirichlet samplers.

A gamma draw x of concentration alpha has no closed-form transform of a standard draw,
so ``rsample`` differentiates through the sampler implicitly: ``dx/dalpha =
-(dF/dalpha)(x; alpha) / f(x; alpha)``, F the CDF and f the density. torch evaluates
this with series and rational approximations (``_standard_gamma_grad``,
``_dirichlet_grad`` in ATen's ``Distributions.h``); `_standard_gamma_grad` and
`_dirichlet_grad` below are the same formulas, vectorised over NumPy arrays. As in
torch, these gradients are once differentiable.
"""
import math

import numpy

import pyad
from pyad.autograd.function import Function, once_differentiable
from pyad.distributions import constraints
from pyad.distributions.distribution import (Distribution, _as_param, _broadcast_all,
                                             _finfo, _rng)
from pyad.distributions.exp_family import ExponentialFamily

__all__ = ["Gamma", "Chi2", "Beta", "Dirichlet", "StudentT"]


def _digamma(x):
    return numpy.asarray(pyad.digamma(pyad.tensor(numpy.asarray(x, numpy.float64))).data)


def _standard_gamma_grad(alpha, x):
    """``dx/dalpha`` for x drawn from Gamma(alpha, 1), torch's approximation, in float64."""
    alpha, x = numpy.broadcast_arrays(numpy.asarray(alpha, numpy.float64),
                                      numpy.asarray(x, numpy.float64))
    with numpy.errstate(all="ignore"):
        # Taylor series for small x
        numer, denom = numpy.ones_like(x), alpha.copy()
        series1, series2 = numer / denom, numer / (denom * denom)
        for i in range(1, 6):
            numer = numer * (-x / i)
            denom = denom + 1
            series1 = series1 + numer / denom
            series2 = series2 + numer / (denom * denom)
        pow_x_alpha = x ** alpha
        gamma_pdf = x ** (alpha - 1) * numpy.exp(-x)
        gamma_cdf = pow_x_alpha * series1
        gamma_cdf_alpha = (numpy.log(x) - _digamma(alpha)) * gamma_cdf - pow_x_alpha * series2
        small = -gamma_cdf_alpha / gamma_pdf
        small = numpy.where(numpy.isnan(small), 0.0, small)
        # Rice saddle point expansion for large alpha
        numer_1 = 1 + 24 * alpha * (1 + 12 * alpha)
        numer_2 = (1440 * (alpha * alpha) + 6 * x * (53 - 120 * x) - 65 * x * x / alpha
                   + alpha * (107 + 3600 * x))
        near_mean = numer_1 * numer_2 / (1244160 * (alpha * alpha) * (alpha * alpha))
        denom = numpy.sqrt(8 * alpha)
        term2 = denom / (alpha - x)
        term3 = (x - alpha - alpha * numpy.log(x / alpha)) ** -1.5
        term23 = numpy.where(x < alpha, term2 - term3, term2 + term3)
        term1 = (numpy.log(x / alpha) * term23
                 - numpy.sqrt(2 / alpha) * (alpha + x) / ((alpha - x) * (alpha - x)))
        stirling = 1 + 1 / (12 * alpha) * (1 + 1 / (24 * alpha))
        saddle = -stirling * x * term1 / denom
        saddle = numpy.where((0.9 * alpha <= x) & (x <= 1.1 * alpha), near_mean, saddle)
        # bivariate rational approximation elsewhere
        u, v = numpy.log(x / alpha), numpy.log(alpha)
        coef_v = [_GAMMA_COEF[0][i] + u * (_GAMMA_COEF[1][i] + u * _GAMMA_COEF[2][i])
                  for i in range(8)]
        p = coef_v[0] + v * (coef_v[1] + v * (coef_v[2] + v * coef_v[3]))
        q = coef_v[4] + v * (coef_v[5] + v * (coef_v[6] + v * coef_v[7]))
        rational = numpy.exp(p / q)
    return numpy.where(x < 0.8, small, numpy.where(alpha > 8, saddle, rational))


_GAMMA_COEF = (
    (0.16009398, -0.094634809, 0.025146376, -0.0030648343,
     1, 0.32668115, 0.10406089, 0.0014179084),
    (0.53487893, 0.1298071, 0.065735949, -0.0015649758,
     0.16639465, 0.020070113, -0.0035938915, -0.00058392623),
    (0.040121004, -0.0065914022, -0.0026286047, -0.0013441777,
     0.017050642, -0.0021309326, 0.00085092367, -1.5247877e-07),
)


def _beta_grad_alpha_small(x, alpha, beta):
    factor = _digamma(alpha) - _digamma(alpha + beta) - numpy.log(x)
    numer = numpy.ones_like(x)
    series = numer / alpha * (factor + 1 / alpha)
    for i in range(1, 11):
        numer = numer * ((i - beta) * x / i)
        denom = alpha + i
        series = series + numer / denom * (factor + 1 / denom)
    result = x * (1 - x) ** -beta * series
    return numpy.where(numpy.isnan(result), 0.0, result)


def _beta_grad_beta_small(x, alpha, beta):
    factor = _digamma(alpha + beta) - _digamma(beta)
    numer, betas, dbetas = numpy.ones_like(x), numpy.ones_like(x), numpy.zeros_like(x)
    series = factor / alpha
    for i in range(1, 9):
        numer = numer * (-x / i)
        dbetas = dbetas * (beta - i) + betas
        betas = betas * (beta - i)
        series = series + numer / (alpha + i) * (dbetas + factor * betas)
    result = -(1 - x) ** (1 - beta) * series
    return numpy.where(numpy.isnan(result), 0.0, result)


def _beta_grad_alpha_mid(x, alpha, beta):
    total = alpha + beta
    mean = alpha / total
    std = numpy.sqrt(alpha * beta / (total + 1)) / total
    poly = 47 * x * (beta * beta) * (beta * beta) + alpha * (
        (43 + 20 * (16 + 27 * beta) * x) * (beta * beta) * beta + alpha * (
            3 * (59 + 180 * beta - 90 * x) * (beta * beta) + alpha * (
                (453 + 1620 * beta * (1 - x) - 455 * x) * beta + alpha * (
                    8 * (1 - x) * (135 * beta - 11)))))
    prefactor_num = (1 + 12 * alpha) * (1 + 12 * beta) / (total * total)
    prefactor_den = 12960 * alpha * alpha * alpha * beta * beta * (1 + 12 * total)
    near_mean = prefactor_num / (1 - x) * poly / prefactor_den
    prefactor = -x / numpy.sqrt(2 * alpha * beta / total)
    stirling = ((1 + 1 / (12 * alpha) + 1 / (288 * alpha * alpha))
                * (1 + 1 / (12 * beta) + 1 / (288 * beta * beta))
                / (1 + 1 / (12 * total) + 1 / (288 * total * total)))
    term1_num = 2 * (alpha * alpha) * (x - 1) + alpha * beta * (x - 1) - x * (beta * beta)
    axbx = alpha * (x - 1) + beta * x
    term1_den = numpy.sqrt(2 * alpha / beta) * total ** 1.5 * axbx * axbx
    term1 = term1_num / term1_den
    term2 = 0.5 * numpy.log(alpha / (total * x))
    term3 = numpy.sqrt(8 * alpha * beta / total) / (beta * x + alpha * (x - 1))
    term4 = (beta * numpy.log(beta / (total * (1 - x)))
             + alpha * numpy.log(alpha / (total * x))) ** -1.5
    term1234 = term1 + term2 * (term3 + numpy.where(x < mean, term4, -term4))
    far = stirling * prefactor * term1234
    return numpy.where((mean - 0.1 * std <= x) & (x <= mean + 0.1 * std), near_mean, far)


_DIRICHLET_COEF = numpy.array([
    [[[1.003668233, -0.01061107488, -0.0657888334, 0.01201642863],
      [0.6336835991, -0.3557432599, 0.05486251648, -0.001465281033],
      [-0.03276231906, 0.004474107445, 0.002429354597, -0.0001557569013]],
     [[0.221950385, -0.3187676331, 0.01799915743, 0.01074823814],
      [-0.2951249643, 0.06219954479, 0.01535556598, 0.001550077057],
      [0.02155310298, 0.004170831599, 0.001292462449, 6.976601077e-05]],
     [[-0.05980841433, 0.008441916499, 0.01085618172, 0.002319392565],
      [0.02911413504, 0.01400243777, -0.002721828457, 0.000751041181],
      [0.005900514878, -0.001936558688, -9.495446725e-06, 5.385558597e-05]]],
    [[[1, -0.02924021934, -0.04438342661, 0.007285809825],
      [0.6357567472, -0.3473456711, 0.05454656494, -0.002407477521],
      [-0.03301322327, 0.004845219414, 0.00231480583, -0.0002307248149]],
     [[0.5925320577, -0.1757678135, 0.01505928619, 0.000564515273],
      [0.1014815858, -0.06589186703, 0.01272886114, -0.0007316646956],
      [-0.007258481865, 0.001096195486, 0.0003934994223, -4.12701925e-05]],
     [[0.06469649321, -0.0236701437, 0.002902096474, -5.896963079e-05],
      [0.001925008108, -0.002869809258, 0.0008000589141, -6.063713228e-05],
      [-0.0003477407336, 6.959756487e-05, 1.097287507e-05, -1.650964693e-06]]],
])


def _dirichlet_grad(x, alpha, total):
    """torch's ``_dirichlet_grad``: ``-(dF/dalpha) / f / (1 - x)`` for x the first
    coordinate of a Beta(alpha, total - alpha) draw, in float64."""
    x, alpha, total = numpy.broadcast_arrays(*(numpy.asarray(a, numpy.float64)
                                               for a in (x, alpha, total)))
    beta = total - alpha
    boundary = total * x * (1 - x)
    with numpy.errstate(all="ignore"):
        near_zero = _beta_grad_alpha_small(x, alpha, beta)
        near_one = -_beta_grad_beta_small(1 - x, beta, alpha)
        mid = _beta_grad_alpha_mid(x, alpha, beta)
        u = numpy.log(x)
        a = numpy.log(alpha) - u
        b = numpy.log(total) - a
        p = numpy.zeros_like(x)
        q = numpy.zeros_like(x)
        for i, pow_u in enumerate((1, u, u * u)):
            for j, pow_a in enumerate((1, a, a * a)):
                ua = pow_u * pow_a
                c0, c1 = _DIRICHLET_COEF[0, i, j], _DIRICHLET_COEF[1, i, j]
                p = p + ua * (c0[0] + b * (c0[1] + b * (c0[2] + b * c0[3])))
                q = q + ua * (c1[0] + b * (c1[1] + b * (c1[2] + b * c1[3])))
        approx = x * (_digamma(total) - _digamma(alpha)) / beta
        rational = p / q * approx
    return numpy.select([(x <= 0.5) & (boundary < 2.5), (x >= 0.5) & (boundary < 0.75),
                         (alpha > 6) & (beta > 6)], [near_zero, near_one, mid], rational)


def _standard_gamma_data(concentration):
    # Gamma(concentration, 1) draws from pyad's generator, at least the dtype's tiny
    alpha = numpy.asarray(concentration.data)
    draws = numpy.asarray(_rng(concentration).standard_gamma(alpha)).astype(alpha.dtype,
                                                                          copy=False)
    return numpy.maximum(draws, _finfo(alpha.dtype).tiny)


class _StandardGamma(Function):
    # A Gamma(alpha, 1) draw, differentiated implicitly (torch's _standard_gamma)
    @staticmethod
    def forward(ctx, alpha):
        x = pyad.tensor(_standard_gamma_data(alpha))
        ctx.save_for_backward(alpha, x)
        return x

    @staticmethod
    @once_differentiable
    def backward(ctx, grad):
        alpha, x = ctx.saved_tensors
        dx = _standard_gamma_grad(alpha.data, x.data).astype(x.dtype, copy=False)
        return grad * pyad.tensor(dx)


class _DirichletSample(Function):
    # A Dirichlet(alpha) draw (normalised gamma draws), differentiated implicitly
    # coordinate by coordinate through its Beta marginals (torch's _Dirichlet)
    @staticmethod
    def forward(ctx, alpha):
        # as torch's _sample_dirichlet: the gamma draws and their normalisation in
        # float64 whatever alpha's dtype (float32 gammas of small concentrations
        # underflow to tiny together, a spurious mode at 1/n), then the cast and a clip
        # to [tiny, the largest number below 1] of alpha's dtype
        dtype = numpy.asarray(alpha.data).dtype
        alpha64 = numpy.asarray(alpha.data, dtype=numpy.float64)
        gammas = numpy.maximum(_rng(alpha).standard_gamma(alpha64),
                               numpy.finfo(numpy.float64).tiny)
        x = (gammas / gammas.sum(-1, keepdims=True)).astype(dtype)
        x = pyad.tensor(numpy.clip(x, _finfo(dtype).tiny,
                                   numpy.nextafter(dtype.type(1), dtype.type(0))))
        ctx.save_for_backward(alpha, x)
        return x

    @staticmethod
    @once_differentiable
    def backward(ctx, grad):
        alpha, x = ctx.saved_tensors
        total = alpha.data.sum(-1, keepdims=True)
        dx = pyad.tensor(_dirichlet_grad(x.data, alpha.data, total).astype(x.dtype,
                                                                            copy=False))
        return dx * (grad - (x * grad).sum(-1, keepdim=True))


def _regularized_gamma_p(a, x):
    """P(a, x), the regularized lower incomplete gamma function (NumPy arrays): the
    series where x < a + 1, else 1 - the continued fraction of Q (Lentz)."""
    a, x = numpy.broadcast_arrays(numpy.asarray(a, numpy.float64),
                                  numpy.asarray(x, numpy.float64))
    with numpy.errstate(all="ignore"):
        log_prefix = a * numpy.log(x) - x - _lgamma(a)
        term = 1.0 / a
        total = term.copy()
        ap = a.copy()
        for _ in range(500):
            ap = ap + 1
            term = term * x / ap
            total = total + term
        series = total * numpy.exp(log_prefix)
        tiny = 1e-300
        b = x + 1 - a
        c = numpy.full_like(x, 1 / tiny)
        d = 1 / numpy.where(b == 0, tiny, b)
        h = d.copy()
        for i in range(1, 500):
            an = -i * (i - a)
            b = b + 2
            d = an * d + b
            d = numpy.where(numpy.abs(d) < tiny, tiny, d)
            c = b + an / c
            c = numpy.where(numpy.abs(c) < tiny, tiny, c)
            d = 1 / d
            h = h * d * c
        fraction = 1 - numpy.exp(log_prefix) * h
        result = numpy.where(x < a + 1, series, fraction)
    result = numpy.where(x == 0, 0.0, result)
    return numpy.where(numpy.isinf(x) & (x > 0), 1.0, result)


def _lgamma(a):
    return numpy.asarray(pyad.lgamma(pyad.tensor(numpy.asarray(a, numpy.float64))).data)


class _GammaInc(Function):
    # torch.special.gammainc(a, x): differentiable in x only, as torch
    @staticmethod
    def forward(ctx, a, x):
        ctx.save_for_backward(a, x)
        return pyad.tensor(_regularized_gamma_p(a.data, x.data).astype(x.dtype, copy=False))

    @staticmethod
    def backward(ctx, grad):
        a, x = ctx.saved_tensors
        if ctx.needs_input_grad[0]:
            raise RuntimeError("the derivative for 'igamma: input' (the gamma function's "
                               "shape parameter) is not implemented, as in torch")
        return None, grad * pyad.exp(pyad.xlogy(a - 1, x) - x - pyad.lgamma(a))


class Gamma(ExponentialFamily):
    """The gamma distribution with shape ``concentration`` and inverse scale ``rate``.

    >>> import pyad
    >>> Gamma(pyad.tensor(2.0), pyad.tensor(1.0)).log_prob(pyad.tensor(1.0))
    tensor(-1.)
    """

    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True
    _param_names = ("concentration", "rate")

    def __init__(self, concentration, rate, validate_args=None):
        self.concentration, self.rate = _broadcast_all(concentration, rate)
        super().__init__(self.concentration.shape, (), validate_args)

    @property
    def mean(self):
        """``concentration / rate``."""
        return self.concentration / self.rate

    @property
    def mode(self):
        """``(concentration - 1) / rate``, at least 0."""
        return ((self.concentration - 1) / self.rate).clamp(min=0)

    @property
    def variance(self):
        """``concentration / rate ** 2``."""
        return self.concentration / self.rate.pow(2)

    def rsample(self, sample_shape=()):
        """A gamma draw, differentiable in concentration (implicitly, as torch) and
        rate."""
        shape = self._extended_shape(sample_shape)
        value = _StandardGamma.apply(self.concentration.expand(shape)) / self.rate.expand(
            shape)
        numpy.maximum(value.data, _finfo(value.dtype).tiny, out=value.data)
        return value

    def log_prob(self, value):
        """``a log(rate) + (a - 1) log(value) - rate value - lgamma(a)``."""
        if not isinstance(value, pyad.Variable):
            # as torch's Gamma (and Chi2): a number or array becomes a Variable of the
            # rate's dtype before it is validated
            value = pyad.tensor(numpy.asarray(value, dtype=self.rate.dtype))
        value = self._value(value, self.rate)
        return (pyad.xlogy(self.concentration, self.rate)
                + pyad.xlogy(self.concentration - 1, value)
                - self.rate * value - pyad.lgamma(self.concentration))

    def cdf(self, value):
        """``gammainc(concentration, rate * value)``: differentiable in rate and value
        (torch has no derivative for the concentration)."""
        value = self._value(value, self.rate)
        a, x = pyad.broadcast_tensors(self.concentration, self.rate * value)
        return _GammaInc.apply(a, x)

    def entropy(self):
        """``a - log(rate) + lgamma(a) + (1 - a) digamma(a)``."""
        return (self.concentration - pyad.log(self.rate) + pyad.lgamma(self.concentration)
                + (1.0 - self.concentration) * pyad.digamma(self.concentration))

    @property
    def _natural_params(self):
        return (self.concentration - 1, -self.rate)

    _mean_carrier_measure = 0

    def _log_normalizer(self, x, y):
        return pyad.lgamma(x + 1) + (x + 1) * pyad.log(-y.reciprocal())


class Chi2(Gamma):
    """The chi-squared distribution with ``df`` degrees of freedom
    (``Gamma(df / 2, 1 / 2)``).

    >>> import pyad
    >>> Chi2(pyad.tensor(4.0)).mean
    tensor(4.)
    """

    arg_constraints = {"df": constraints.positive}

    def __init__(self, df, validate_args=None):
        (df,) = _broadcast_all(df)
        super().__init__(0.5 * df, 0.5, validate_args=validate_args)

    @property
    def df(self):
        """The degrees of freedom, ``2 * concentration``."""
        return self.concentration * 2


class Dirichlet(ExponentialFamily):
    """The Dirichlet distribution on the simplex of the last dimension of
    ``concentration``.

    >>> import pyad
    >>> Dirichlet(pyad.tensor([1.0, 1.0, 1.0])).log_prob(pyad.tensor([0.2, 0.3, 0.5]))
    tensor(0.6931)
    """

    arg_constraints = {"concentration": constraints.independent(constraints.positive, 1)}
    support = constraints.simplex
    has_rsample = True
    _param_names = ("concentration",)

    def __init__(self, concentration, validate_args=None):
        concentration = _as_param(concentration)
        if concentration.ndim < 1:
            raise ValueError("`concentration` parameter must be at least one-dimensional.")
        self.concentration = concentration
        super().__init__(concentration.shape[:-1], concentration.shape[-1:], validate_args)

    def rsample(self, sample_shape=()):
        """A draw on the simplex, differentiable in concentration (implicitly, as
        torch)."""
        shape = self._extended_shape(sample_shape)
        return _DirichletSample.apply(self.concentration.expand(shape))

    def log_prob(self, value):
        """``sum (a - 1) log(value) + lgamma(sum a) - sum lgamma(a)``."""
        value = self._value(value, self.concentration)
        return (pyad.xlogy(self.concentration - 1.0, value).sum(-1)
                + pyad.lgamma(self.concentration.sum(-1))
                - pyad.lgamma(self.concentration).sum(-1))

    @property
    def mean(self):
        """``concentration / sum(concentration)``."""
        return self.concentration / self.concentration.sum(-1, True)

    @property
    def mode(self):
        """``(a - 1)+ / sum (a - 1)+``; a vertex where every concentration is below 1."""
        concentrationm1 = (self.concentration - 1).clamp(min=0.0)
        mode = concentrationm1 / concentrationm1.sum(-1, True)
        vertex = pyad.nn.functional.one_hot(mode.argmax(-1), concentrationm1.shape[-1])
        mask = (self.concentration < 1).all(-1, keepdim=True)
        return pyad.where(mask, vertex.to(mode.dtype), mode)

    @property
    def variance(self):
        """``a (a0 - a) / (a0^2 (a0 + 1))``, a0 the total concentration."""
        con0 = self.concentration.sum(-1, True)
        return (self.concentration * (con0 - self.concentration)
                / (con0.pow(2) * (con0 + 1)))

    def entropy(self):
        """The differential entropy."""
        k = self.concentration.shape[-1]
        a0 = self.concentration.sum(-1)
        return (pyad.lgamma(self.concentration).sum(-1) - pyad.lgamma(a0)
                - (k - a0) * pyad.digamma(a0)
                - ((self.concentration - 1.0) * pyad.digamma(self.concentration)).sum(-1))

    @property
    def _natural_params(self):
        return (self.concentration,)

    def _log_normalizer(self, x):
        return pyad.lgamma(x).sum(-1) - pyad.lgamma(x.sum(-1))


class Beta(ExponentialFamily):
    """The beta distribution on [0, 1] with shapes ``concentration1`` (alpha) and
    ``concentration0`` (beta).

    >>> import pyad
    >>> Beta(pyad.tensor(2.0), pyad.tensor(2.0)).log_prob(pyad.tensor(0.5))
    tensor(0.4055)
    """

    arg_constraints = {"concentration1": constraints.positive,
                       "concentration0": constraints.positive}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, concentration1, concentration0, validate_args=None):
        if not isinstance(concentration1, pyad.Variable) and not isinstance(
                concentration0, pyad.Variable):
            both = pyad.tensor([float(concentration1), float(concentration0)])
        else:
            concentration1, concentration0 = _broadcast_all(concentration1, concentration0)
            both = pyad.stack([concentration1, concentration0], -1)
        self._dirichlet = Dirichlet(both, validate_args=validate_args)
        super().__init__(self._dirichlet._batch_shape, (), validate_args)

    def expand(self, batch_shape, _instance=None):
        """The same distribution with its batch expanded to ``batch_shape``."""
        new = super().expand(batch_shape)
        new._dirichlet = self._dirichlet.expand(batch_shape)
        return new

    @property
    def concentration1(self):
        """alpha."""
        return self._dirichlet.concentration[..., 0]

    @property
    def concentration0(self):
        """beta."""
        return self._dirichlet.concentration[..., 1]

    @property
    def mean(self):
        """``alpha / (alpha + beta)``."""
        return self.concentration1 / (self.concentration1 + self.concentration0)

    @property
    def mode(self):
        """``(alpha - 1) / (alpha + beta - 2)`` (the Dirichlet mode's first coordinate)."""
        return self._dirichlet.mode[..., 0]

    @property
    def variance(self):
        """``alpha beta / ((alpha + beta)^2 (alpha + beta + 1))``."""
        total = self.concentration1 + self.concentration0
        return self.concentration1 * self.concentration0 / (total.pow(2) * (total + 1))

    def rsample(self, sample_shape=()):
        """The first coordinate of a Dirichlet([alpha, beta]) draw, differentiable as
        torch's."""
        return self._dirichlet.rsample(sample_shape).select(-1, 0)

    def log_prob(self, value):
        """The Dirichlet log density of ``[value, 1 - value]``."""
        if self._validate_args:
            self._validate_sample(value)
        value = _as_param(value, self.concentration1)
        return self._dirichlet.log_prob(pyad.stack([value, 1.0 - value], -1))

    def entropy(self):
        """The differential entropy."""
        return self._dirichlet.entropy()

    @property
    def _natural_params(self):
        return (self.concentration1, self.concentration0)

    def _log_normalizer(self, x, y):
        return pyad.lgamma(x) + pyad.lgamma(y) - pyad.lgamma(x + y)


class StudentT(Distribution):
    """Student's t distribution with ``df`` degrees of freedom, location ``loc`` and
    scale ``scale``.

    >>> import pyad
    >>> StudentT(pyad.tensor(3.0)).log_prob(pyad.tensor(0.0))
    tensor(-1.0009)
    """

    arg_constraints = {"df": constraints.positive, "loc": constraints.real,
                       "scale": constraints.positive}
    support = constraints.real
    has_rsample = True
    _param_names = ("df", "loc", "scale")

    def __init__(self, df, loc=0.0, scale=1.0, validate_args=None):
        self.df, self.loc, self.scale = _broadcast_all(df, loc, scale)
        self._chi2 = Chi2(self.df)
        super().__init__(self.df.shape, (), validate_args)

    def expand(self, batch_shape, _instance=None):
        """The same distribution with its batch expanded to ``batch_shape``."""
        new = super().expand(batch_shape)
        new._chi2 = self._chi2.expand(batch_shape)
        return new

    @property
    def mean(self):
        """``loc`` where df > 1, else nan."""
        return pyad.where(self.df <= 1, float("nan"), self.loc)

    @property
    def mode(self):
        """``loc``."""
        return self.loc

    @property
    def variance(self):
        """``scale^2 df / (df - 2)`` for df > 2, inf for 1 < df <= 2, nan below."""
        # torch fills only the df > 2 entries: no inf (and no 0 * inf gradient) at df = 2
        finite = (self.df > 2).detach()
        df = pyad.where(finite, self.df, 3.0)
        var = pyad.where(finite, self.scale.pow(2) * df / (df - 2), float("inf"))
        return pyad.where(self.df <= 1, float("nan"), var)

    def rsample(self, sample_shape=()):
        """``loc + scale * X / sqrt(Z / df)``, X standard normal, Z ~ Chi2(df)."""
        shape = self._extended_shape(sample_shape)
        x = pyad.randn(*shape, dtype=self.df.dtype)
        z = self._chi2.rsample(sample_shape)
        return self.loc + self.scale * (x * pyad.rsqrt(z / self.df))

    def log_prob(self, value):
        """The log density."""
        value = self._value(value, self.loc)
        y = (value - self.loc) / self.scale
        z = (self.scale.log() + 0.5 * self.df.log() + 0.5 * math.log(math.pi)
             + pyad.lgamma(0.5 * self.df) - pyad.lgamma(0.5 * (self.df + 1.0)))
        return -0.5 * (self.df + 1.0) * pyad.log1p(y ** 2.0 / self.df) - z

    def entropy(self):
        """The differential entropy."""
        lbeta = (pyad.lgamma(0.5 * self.df) + math.lgamma(0.5)
                 - pyad.lgamma(0.5 * (self.df + 1)))
        return (self.scale.log()
                + 0.5 * (self.df + 1) * (pyad.digamma(0.5 * (self.df + 1))
                                         - pyad.digamma(0.5 * self.df))
                + 0.5 * self.df.log() + lbeta)
