"""``pyad.distributions.transforms``: the invertible (or not) maps of
``torch.distributions.transforms`` that `TransformedDistribution` pushes a base
distribution through.

Each `Transform` maps ``x`` in its ``domain`` to ``y = t(x)`` in its ``codomain``;
``t.inv`` is the inverse map, ``t.log_abs_det_jacobian(x, y)`` the log of the absolute
determinant of its Jacobian (batched: one value per event of ``domain.event_dim``
dimensions), ``t.sign`` the sign of the derivative of a monotone scalar map and
``t.bijective`` whether the map is invertible. All are written with differentiable pyad
ops.

>>> import pyad
>>> from pyad.distributions.transforms import (AffineTransform, ComposeTransform,
...                                           ExpTransform)
>>> t = ComposeTransform([AffineTransform(1.0, 2.0), ExpTransform()])
>>> x = pyad.tensor([0.0, 0.5])
>>> t(x), t.log_abs_det_jacobian(x, t(x))
(tensor([2.7183, 7.3891]), tensor([1.6931, 2.6931]))
"""
import functools
import math
import numbers
import operator
import weakref

import numpy

import pyad
from pyad.distributions import constraints
from pyad.distributions.distribution import _broadcast_all, _finfo

__all__ = ["Transform", "ExpTransform", "AffineTransform", "SigmoidTransform",
           "TanhTransform", "PowerTransform", "AbsTransform", "SoftmaxTransform",
           "ComposeTransform", "identity_transform", "SoftplusTransform",
           "StickBreakingTransform", "CorrCholeskyTransform", "CumulativeDistributionTransform",
           "LowerCholeskyTransform", "PositiveDefiniteTransform", "IndependentTransform",
           "ReshapeTransform", "CatTransform", "StackTransform"]


def _sum_rightmost(value, dim):
    if not dim:
        return value
    return value.reshape(tuple(value.shape[:value.ndim - dim]) + (-1,)).sum(-1)


def _softplus(x):
    return pyad.nn.functional.softplus(x)


class Transform:
    """The base class of transforms: ``t(x)``, ``t.inv``, ``t.log_abs_det_jacobian(x, y)``,
    ``domain`` / ``codomain`` (`constraints`), ``bijective``, ``sign``, ``event_dim``.

    ``cache_size=1`` keeps the last ``(x, y)`` pair, so that ``t.inv(t(x))`` returns ``x``
    itself.
    """

    bijective = False
    domain = constraints.real
    codomain = constraints.real

    def __init__(self, cache_size=0):
        if cache_size not in (0, 1):
            raise ValueError("Transform(): cache_size must be 0 or 1, got %r" % (cache_size,))
        self._cache_size = cache_size
        self._inv = None
        self._cached_x_y = None, None

    @property
    def event_dim(self):
        """The number of rightmost dimensions of one event (domain and codomain agree)."""
        if self.domain.event_dim == self.codomain.event_dim:
            return self.domain.event_dim
        raise ValueError("Please use either .domain.event_dim or .codomain.event_dim")

    @property
    def inv(self):
        """The inverse transform, ``t.inv(t(x)) == x``."""
        inv = None
        if self._inv is not None:
            inv = self._inv()
        if inv is None:
            inv = _InverseTransform(self)
            self._inv = weakref.ref(inv)
        return inv

    @property
    def sign(self):
        """The sign of the derivative of a monotone scalar (event_dim 0) bijection."""
        raise NotImplementedError("%s.sign is not defined" % type(self).__name__)

    def with_cache(self, cache_size=1):
        """This transform with the given cache size."""
        if self._cache_size == cache_size:
            return self
        if type(self).__init__ is Transform.__init__:
            return type(self)(cache_size=cache_size)
        raise NotImplementedError("%s.with_cache is not implemented" % type(self).__name__)

    def __eq__(self, other):
        return self is other

    def __ne__(self, other):
        return not self.__eq__(other)

    __hash__ = object.__hash__

    def __call__(self, x):
        if self._cache_size == 0:
            return self._call(x)
        x_old, y_old = self._cached_x_y
        if x is x_old:
            return y_old
        y = self._call(x)
        self._cached_x_y = x, y
        return y

    def _inv_call(self, y):
        if self._cache_size == 0:
            return self._inverse(y)
        x_old, y_old = self._cached_x_y
        if y is y_old:
            return x_old
        x = self._inverse(y)
        self._cached_x_y = x, y
        return x

    def _call(self, x):
        raise NotImplementedError("%s does not implement the forward map" % type(self).__name__)

    def _inverse(self, y):
        raise NotImplementedError("%s does not implement the inverse map" % type(self).__name__)

    def log_abs_det_jacobian(self, x, y):
        """``log |det dy/dx|``, one value per event."""
        raise NotImplementedError("%s does not implement log_abs_det_jacobian"
                                  % type(self).__name__)

    def forward_shape(self, shape):
        """The shape of ``t(x)`` for ``x`` of ``shape``."""
        return tuple(shape)

    def inverse_shape(self, shape):
        """The shape of ``t.inv(y)`` for ``y`` of ``shape``."""
        return tuple(shape)

    def __repr__(self):
        return type(self).__name__ + "()"


class _InverseTransform(Transform):
    # The inverse of a transform, swapping its two maps
    def __init__(self, transform):
        super().__init__(cache_size=transform._cache_size)
        self._inv = transform

    @property
    def domain(self):
        return self._inv.codomain

    @property
    def codomain(self):
        return self._inv.domain

    @property
    def bijective(self):
        return self._inv.bijective

    @property
    def sign(self):
        return self._inv.sign

    @property
    def inv(self):
        return self._inv

    def with_cache(self, cache_size=1):
        return self.inv.with_cache(cache_size).inv

    def __eq__(self, other):
        return isinstance(other, _InverseTransform) and self._inv == other._inv

    __hash__ = object.__hash__

    def __repr__(self):
        return "%s(%r)" % (type(self).__name__, self._inv)

    def __call__(self, x):
        return self._inv._inv_call(x)

    def log_abs_det_jacobian(self, x, y):
        return -self._inv.log_abs_det_jacobian(y, x)

    def forward_shape(self, shape):
        return self._inv.inverse_shape(shape)

    def inverse_shape(self, shape):
        return self._inv.forward_shape(shape)


class ComposeTransform(Transform):
    """The transforms of ``parts`` applied in order (``parts[0]`` first); the
    Jacobian terms are summed over the event dimensions of the composition.
    ``ComposeTransform([])`` is the identity (`identity_transform`)."""

    def __init__(self, parts, cache_size=0):
        if cache_size:
            parts = [part.with_cache(cache_size) for part in parts]
        super().__init__(cache_size=cache_size)
        self.parts = list(parts)
        for part in self.parts:
            if not isinstance(part, Transform):
                raise TypeError("ComposeTransform(): parts must be Transforms, got %s"
                                % type(part).__name__)

    def __eq__(self, other):
        return isinstance(other, ComposeTransform) and self.parts == other.parts

    __hash__ = object.__hash__

    @property
    def domain(self):
        if not self.parts:
            return constraints.real
        domain = self.parts[0].domain
        count_dims = self.parts[-1].codomain.event_dim
        for part in reversed(self.parts):
            count_dims += part.domain.event_dim - part.codomain.event_dim
            count_dims = max(count_dims, part.domain.event_dim)
        if count_dims > domain.event_dim:
            domain = constraints.independent(domain, count_dims - domain.event_dim)
        return domain

    @property
    def codomain(self):
        if not self.parts:
            return constraints.real
        codomain = self.parts[-1].codomain
        count_dims = self.parts[0].domain.event_dim
        for part in self.parts:
            count_dims += part.codomain.event_dim - part.domain.event_dim
            count_dims = max(count_dims, part.codomain.event_dim)
        if count_dims > codomain.event_dim:
            codomain = constraints.independent(codomain, count_dims - codomain.event_dim)
        return codomain

    @property
    def bijective(self):
        return all(part.bijective for part in self.parts)

    @property
    def sign(self):
        sign = 1
        for part in self.parts:
            sign = sign * part.sign
        return sign

    @property
    def inv(self):
        inv = None
        if self._inv is not None:
            inv = self._inv()
        if inv is None:
            inv = ComposeTransform([part.inv for part in reversed(self.parts)])
            self._inv = weakref.ref(inv)
            inv._inv = weakref.ref(self)
        return inv

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return ComposeTransform(self.parts, cache_size=cache_size)

    def __call__(self, x):
        for part in self.parts:
            x = part(x)
        return x

    def log_abs_det_jacobian(self, x, y):
        if not self.parts:
            return pyad.zeros_like(x)
        xs = [x]
        for part in self.parts[:-1]:
            xs.append(part(xs[-1]))
        xs.append(y)
        terms = []
        event_dim = self.domain.event_dim
        for part, x_i, y_i in zip(self.parts, xs[:-1], xs[1:]):
            terms.append(_sum_rightmost(part.log_abs_det_jacobian(x_i, y_i),
                                        event_dim - part.domain.event_dim))
            event_dim += part.codomain.event_dim - part.domain.event_dim
        return functools.reduce(operator.add, terms)

    def forward_shape(self, shape):
        for part in self.parts:
            shape = part.forward_shape(shape)
        return tuple(shape)

    def inverse_shape(self, shape):
        for part in reversed(self.parts):
            shape = part.inverse_shape(shape)
        return tuple(shape)

    def __repr__(self):
        inner = ",\n    ".join(repr(part) for part in self.parts)
        return "%s(\n    %s\n)" % (type(self).__name__, inner)


identity_transform = ComposeTransform([])


class ExpTransform(Transform):
    """``y = exp(x)``, from the reals to the positive reals."""

    domain = constraints.real
    codomain = constraints.positive
    bijective = True
    sign = +1

    def __eq__(self, other):
        return isinstance(other, ExpTransform)

    __hash__ = object.__hash__

    def _call(self, x):
        return x.exp()

    def _inverse(self, y):
        return y.log()

    def log_abs_det_jacobian(self, x, y):
        return x


class PowerTransform(Transform):
    """``y = x ** exponent`` on the positive reals."""

    domain = constraints.positive
    codomain = constraints.positive
    bijective = True

    def __init__(self, exponent, cache_size=0):
        super().__init__(cache_size=cache_size)
        (self.exponent,) = _broadcast_all(exponent)

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return PowerTransform(self.exponent, cache_size=cache_size)

    @property
    def sign(self):
        return self.exponent.sign()

    def __eq__(self, other):
        if not isinstance(other, PowerTransform):
            return False
        return bool(self.exponent.eq(other.exponent).all())

    __hash__ = object.__hash__

    def _call(self, x):
        return x.pow(self.exponent)

    def _inverse(self, y):
        return y.pow(1 / self.exponent)

    def log_abs_det_jacobian(self, x, y):
        return (self.exponent * y / x).abs().log()

    def forward_shape(self, shape):
        return tuple(pyad.broadcast_shapes(tuple(shape), tuple(self.exponent.shape)))

    inverse_shape = forward_shape


class SigmoidTransform(Transform):
    """``y = sigmoid(x)``, from the reals to the unit interval (clipped to
    ``[tiny, 1 - eps]`` of the dtype, as torch)."""

    domain = constraints.real
    codomain = constraints.unit_interval
    bijective = True
    sign = +1

    def __eq__(self, other):
        return isinstance(other, SigmoidTransform)

    __hash__ = object.__hash__

    def _call(self, x):
        finfo = _finfo(x.dtype)
        return pyad.sigmoid(x).clamp(float(finfo.tiny), 1.0 - float(finfo.eps))

    def _inverse(self, y):
        finfo = _finfo(y.dtype)
        y = y.clamp(float(finfo.tiny), 1.0 - float(finfo.eps))
        return y.log() - (-y).log1p()

    def log_abs_det_jacobian(self, x, y):
        return -_softplus(-x) - _softplus(x)


class TanhTransform(Transform):
    """``y = tanh(x)``, from the reals to ``(-1, 1)``."""

    domain = constraints.real
    codomain = constraints.interval(-1.0, 1.0)
    bijective = True
    sign = +1

    def __eq__(self, other):
        return isinstance(other, TanhTransform)

    __hash__ = object.__hash__

    def _call(self, x):
        return pyad.tanh(x)

    def _inverse(self, y):
        return pyad.atanh(y)

    def log_abs_det_jacobian(self, x, y):
        # the stable form of torch (and TensorFlow Probability)
        return 2.0 * (math.log(2.0) - x - _softplus(-2.0 * x))


class AbsTransform(Transform):
    """``y = |x|`` (not bijective: ``inv`` returns ``y``)."""

    domain = constraints.real
    codomain = constraints.positive

    def __eq__(self, other):
        return isinstance(other, AbsTransform)

    __hash__ = object.__hash__

    def _call(self, x):
        return x.abs()

    def _inverse(self, y):
        return y


class AffineTransform(Transform):
    """``y = loc + scale * x``; ``event_dim`` says how many rightmost dimensions make
    one event (the Jacobian term is summed over them)."""

    bijective = True

    def __init__(self, loc, scale, event_dim=0, cache_size=0):
        super().__init__(cache_size=cache_size)
        self.loc = loc
        self.scale = scale
        self._event_dim = event_dim

    @property
    def event_dim(self):
        return self._event_dim

    @property
    def domain(self):
        if self._event_dim == 0:
            return constraints.real
        return constraints.independent(constraints.real, self._event_dim)

    @property
    def codomain(self):
        return self.domain

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return AffineTransform(self.loc, self.scale, self._event_dim, cache_size=cache_size)

    def __eq__(self, other):
        if not isinstance(other, AffineTransform):
            return False
        for a, b in ((self.loc, other.loc), (self.scale, other.scale)):
            if isinstance(a, numbers.Number) and isinstance(b, numbers.Number):
                if a != b:
                    return False
            elif not bool(pyad.as_tensor(pyad.as_tensor(a) == b).all()):
                return False
        return True

    __hash__ = object.__hash__

    @property
    def sign(self):
        if isinstance(self.scale, numbers.Real):
            return 1 if float(self.scale) > 0 else -1 if float(self.scale) < 0 else 0
        return self.scale.sign()

    def _call(self, x):
        return self.loc + self.scale * x

    def _inverse(self, y):
        return (y - self.loc) / self.scale

    def log_abs_det_jacobian(self, x, y):
        shape = tuple(x.shape)
        scale = self.scale
        if isinstance(scale, numbers.Real):
            result = pyad.full_like(x, math.log(abs(scale)))
        else:
            result = scale.abs().log()
        if self._event_dim:
            result = _sum_rightmost(result, self._event_dim)
            shape = shape[:len(shape) - self._event_dim]
        return result.expand(shape)

    def _param_shapes(self):
        return [tuple(p.shape) for p in (self.loc, self.scale) if isinstance(p, pyad.Variable)]

    def forward_shape(self, shape):
        return tuple(pyad.broadcast_shapes(tuple(shape), *self._param_shapes()))

    inverse_shape = forward_shape


class SoftmaxTransform(Transform):
    """``y = softmax(x)`` over the last dimension, from vectors to the simplex (not
    bijective: ``inv`` returns ``log(y)``, one of the preimages)."""

    domain = constraints.real_vector
    codomain = constraints.simplex

    def __eq__(self, other):
        return isinstance(other, SoftmaxTransform)

    __hash__ = object.__hash__

    def _call(self, x):
        probs = (x - x.max(-1, True)[0]).exp()
        return probs / probs.sum(-1, True)

    def _inverse(self, y):
        return y.log()

    def forward_shape(self, shape):
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        return tuple(shape)

    inverse_shape = forward_shape


def _clipped_sigmoid(x):
    finfo = _finfo(x.dtype)
    return pyad.sigmoid(x).clamp(float(finfo.tiny), 1.0 - float(finfo.eps))


def _tril_selector(n, diag, dtype):
    # the (k, n*n) 0/1 matrix taking the k entries of the lower triangle (row by row,
    # offset diag) to their places in a flattened n x n matrix
    rows, cols = numpy.tril_indices(n, diag)
    sel = numpy.zeros((len(rows), n * n), dtype=dtype)
    sel[numpy.arange(len(rows)), rows * n + cols] = 1
    return pyad.tensor(sel)


def _vec_to_tril_matrix(vec, diag=0):
    # torch's vec_to_tril_matrix: a vector of the lower triangle (offset diag) to a matrix
    k = vec.shape[-1]
    n = (-(1 + 2 * diag) + ((1 + 2 * diag) ** 2 + 8 * k + 4 * abs(diag) * (diag + 1)) ** 0.5) / 2
    if abs(round(n) - n) > 1e-6:
        raise ValueError("The size of last dimension is %d which cannot be expressed as the "
                         "lower triangular part of a square D x D matrix." % k)
    n = int(round(n))
    flat = pyad.matmul(vec, _tril_selector(n, diag, vec.dtype))
    return flat.reshape(tuple(vec.shape[:-1]) + (n, n))


def _tril_matrix_to_vec(mat, diag=0):
    n = mat.shape[-1]
    flat = mat.reshape(tuple(mat.shape[:-2]) + (n * n,))
    return pyad.matmul(flat, _tril_selector(n, diag, mat.dtype).transpose(0, 1))


class SoftplusTransform(Transform):
    """``y = log(1 + exp(x))``, from the reals to the positive reals."""

    domain = constraints.real
    codomain = constraints.positive
    bijective = True
    sign = +1

    def __eq__(self, other):
        return isinstance(other, SoftplusTransform)

    __hash__ = object.__hash__

    def _call(self, x):
        return _softplus(x)

    def _inverse(self, y):
        return (-y).expm1().neg().log() + y

    def log_abs_det_jacobian(self, x, y):
        return -_softplus(-x)


class StickBreakingTransform(Transform):
    """The stick-breaking map from vectors of size K - 1 to the K-simplex: each entry's
    sigmoid (shifted by ``log(K - i)``) breaks off that fraction of what is left."""

    domain = constraints.real_vector
    codomain = constraints.simplex
    bijective = True

    def __eq__(self, other):
        return isinstance(other, StickBreakingTransform)

    __hash__ = object.__hash__

    @staticmethod
    def _offset(n, dtype, shift):
        return pyad.tensor(numpy.arange(n, 0, -1, dtype=numpy.dtype(dtype)) + (shift - 1))

    def _call(self, x):
        offset = self._offset(x.shape[-1], x.dtype, 1)
        z = _clipped_sigmoid(x - offset.log())
        z_cumprod = (1 - z).cumprod(-1)
        zf = pyad.nn.functional.pad(z, (0, 1), value=1.0)
        cf = pyad.nn.functional.pad(z_cumprod, (1, 0), value=1.0)
        return zf * cf

    def _inverse(self, y):
        y_crop = y[..., :-1]
        offset = self._offset(y_crop.shape[-1], y.dtype, 1)
        sf = 1 - y_crop.cumsum(-1)
        sf = sf.clamp(min=float(_finfo(y.dtype).tiny))
        return y_crop.log() - sf.log() + offset.log()

    def log_abs_det_jacobian(self, x, y):
        offset = self._offset(x.shape[-1], x.dtype, 1)
        x = x - offset.log()
        return (-x + pyad.nn.functional.logsigmoid(x) + y[..., :-1].log()).sum(-1)

    def forward_shape(self, shape):
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        return tuple(shape[:-1]) + (shape[-1] + 1,)

    def inverse_shape(self, shape):
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        return tuple(shape[:-1]) + (shape[-1] - 1,)


class CorrCholeskyTransform(Transform):
    """Unconstrained vectors of size D (D - 1) / 2 to lower Cholesky factors of D x D
    correlation matrices: ``tanh`` to (-1, 1), then stick-breaking row by row."""

    domain = constraints.real_vector
    codomain = constraints.corr_cholesky
    bijective = True

    def __eq__(self, other):
        return isinstance(other, CorrCholeskyTransform)

    __hash__ = object.__hash__

    def _call(self, x):
        x = pyad.tanh(x)
        eps = float(_finfo(x.dtype).eps)
        x = x.clamp(-1 + eps, 1 - eps)
        r = _vec_to_tril_matrix(x, diag=-1)
        z = r ** 2
        z1m_cumprod_sqrt = (1 - z).sqrt().cumprod(-1)
        r = r + pyad.eye(r.shape[-1], dtype=r.dtype)
        return r * pyad.nn.functional.pad(z1m_cumprod_sqrt[..., :-1], (1, 0), value=1.0)

    def _inverse(self, y):
        y_cumsum = 1 - (y * y).cumsum(-1)
        y_cumsum_shifted = pyad.nn.functional.pad(y_cumsum[..., :-1], (1, 0), value=1.0)
        y_vec = _tril_matrix_to_vec(y, diag=-1)
        y_cumsum_vec = _tril_matrix_to_vec(y_cumsum_shifted, diag=-1)
        t = y_vec / y_cumsum_vec.sqrt()
        return (t.log1p() - t.neg().log1p()) / 2

    def log_abs_det_jacobian(self, x, y, intermediates=None):
        y1m_cumsum = 1 - (y * y).cumsum(-1)
        stick_breaking_logdet = 0.5 * _tril_matrix_to_vec(y1m_cumsum, diag=-2).log().sum(-1)
        tanh_logdet = -2 * (x + _softplus(-2 * x) - math.log(2.0)).sum(-1)
        return stick_breaking_logdet + tanh_logdet

    def forward_shape(self, shape):
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        N = shape[-1]
        D = round((0.25 + 2 * N) ** 0.5 + 0.5)
        if D * (D - 1) // 2 != N:
            raise ValueError("Input is not a flattened lower-diagonal number")
        return tuple(shape[:-1]) + (D, D)

    def inverse_shape(self, shape):
        if len(shape) < 2:
            raise ValueError("Too few dimensions on input")
        N = shape[-2]
        if shape[-1] != N:
            raise ValueError("Input is not square")
        return tuple(shape[:-2]) + (N * (N - 1) // 2,)


class LowerCholeskyTransform(Transform):
    """Square matrices to lower-triangular ones with a positive diagonal: the strictly
    lower triangle is kept, the diagonal exponentiated."""

    domain = constraints.independent(constraints.real, 2)
    codomain = constraints.lower_cholesky

    def __eq__(self, other):
        return isinstance(other, LowerCholeskyTransform)

    __hash__ = object.__hash__

    def _call(self, x):
        return x.tril(-1) + pyad.diag_embed(x.diagonal(dim1=-2, dim2=-1).exp())

    def _inverse(self, y):
        return y.tril(-1) + pyad.diag_embed(y.diagonal(dim1=-2, dim2=-1).log())


class PositiveDefiniteTransform(Transform):
    """Square matrices to positive definite ones: ``L L^T``, L the `LowerCholeskyTransform`
    of the input."""

    domain = constraints.independent(constraints.real, 2)
    codomain = constraints.positive_definite

    def __eq__(self, other):
        return isinstance(other, PositiveDefiniteTransform)

    __hash__ = object.__hash__

    def _call(self, x):
        x = LowerCholeskyTransform()(x)
        return pyad.matmul(x, x.transpose(-2, -1))

    def _inverse(self, y):
        return LowerCholeskyTransform().inv(pyad.linalg.cholesky(y))


class CumulativeDistributionTransform(Transform):
    """``y = distribution.cdf(x)``: the support of a scalar distribution to the unit
    interval (the log Jacobian is its ``log_prob``)."""

    bijective = True
    codomain = constraints.unit_interval
    sign = +1

    def __init__(self, distribution, cache_size=0):
        super().__init__(cache_size=cache_size)
        self.distribution = distribution

    @property
    def domain(self):
        return self.distribution.support

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return type(self)(self.distribution, cache_size=cache_size)

    def _call(self, x):
        return self.distribution.cdf(x)

    def _inverse(self, y):
        return self.distribution.icdf(y)

    def log_abs_det_jacobian(self, x, y):
        return self.distribution.log_prob(x)


class IndependentTransform(Transform):
    """``base_transform`` with ``reinterpreted_batch_ndims`` more rightmost dimensions in
    each event (its Jacobian term summed over them)."""

    def __init__(self, base_transform, reinterpreted_batch_ndims, cache_size=0):
        super().__init__(cache_size=cache_size)
        self.base_transform = base_transform.with_cache(cache_size)
        self.reinterpreted_batch_ndims = reinterpreted_batch_ndims

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return IndependentTransform(self.base_transform, self.reinterpreted_batch_ndims,
                                    cache_size=cache_size)

    @property
    def domain(self):
        return constraints.independent(self.base_transform.domain,
                                       self.reinterpreted_batch_ndims)

    @property
    def codomain(self):
        return constraints.independent(self.base_transform.codomain,
                                       self.reinterpreted_batch_ndims)

    @property
    def bijective(self):
        return self.base_transform.bijective

    @property
    def sign(self):
        return self.base_transform.sign

    def _call(self, x):
        if x.ndim < self.domain.event_dim:
            raise ValueError("Too few dimensions on input")
        return self.base_transform(x)

    def _inverse(self, y):
        if y.ndim < self.codomain.event_dim:
            raise ValueError("Too few dimensions on input")
        return self.base_transform.inv(y)

    def log_abs_det_jacobian(self, x, y):
        return _sum_rightmost(self.base_transform.log_abs_det_jacobian(x, y),
                              self.reinterpreted_batch_ndims)

    def __repr__(self):
        return "%s(%r, %d)" % (type(self).__name__, self.base_transform,
                               self.reinterpreted_batch_ndims)

    def forward_shape(self, shape):
        return self.base_transform.forward_shape(shape)

    def inverse_shape(self, shape):
        return self.base_transform.inverse_shape(shape)


class ReshapeTransform(Transform):
    """Reshapes the rightmost ``in_shape`` dimensions to ``out_shape`` (the same number of
    elements); the Jacobian term is 0."""

    bijective = True

    def __init__(self, in_shape, out_shape, cache_size=0):
        self.in_shape = tuple(in_shape)
        self.out_shape = tuple(out_shape)
        if int(numpy.prod(self.in_shape)) != int(numpy.prod(self.out_shape)):
            raise ValueError("in_shape, out_shape have different numbers of elements")
        super().__init__(cache_size=cache_size)

    @property
    def domain(self):
        return constraints.independent(constraints.real, len(self.in_shape))

    @property
    def codomain(self):
        return constraints.independent(constraints.real, len(self.out_shape))

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return ReshapeTransform(self.in_shape, self.out_shape, cache_size=cache_size)

    def _call(self, x):
        batch_shape = tuple(x.shape[:x.ndim - len(self.in_shape)])
        return x.reshape(batch_shape + self.out_shape)

    def _inverse(self, y):
        batch_shape = tuple(y.shape[:y.ndim - len(self.out_shape)])
        return y.reshape(batch_shape + self.in_shape)

    def log_abs_det_jacobian(self, x, y):
        batch_shape = tuple(x.shape[:x.ndim - len(self.in_shape)])
        return pyad.zeros(batch_shape, dtype=x.dtype)

    def forward_shape(self, shape):
        if len(shape) < len(self.in_shape):
            raise ValueError("Too few dimensions on input")
        cut = len(shape) - len(self.in_shape)
        if tuple(shape[cut:]) != self.in_shape:
            raise ValueError("Shape mismatch: expected %s but got %s"
                             % (tuple(shape[cut:]), self.in_shape))
        return tuple(shape[:cut]) + self.out_shape

    def inverse_shape(self, shape):
        if len(shape) < len(self.out_shape):
            raise ValueError("Too few dimensions on input")
        cut = len(shape) - len(self.out_shape)
        if tuple(shape[cut:]) != self.out_shape:
            raise ValueError("Shape mismatch: expected %s but got %s"
                             % (tuple(shape[cut:]), self.out_shape))
        return tuple(shape[:cut]) + self.in_shape


def _check_dim(dim, value, name):
    if not -value.ndim <= dim < value.ndim:
        raise ValueError("dim %d out of range for %s with %d dimensions"
                         % (dim, name, value.ndim))


class CatTransform(Transform):
    """Transform ``tseq[i]`` applied to the slice of ``lengths[i]`` entries along ``dim``
    (each of length 1 by default), the results concatenated: `constraints.cat`'s map."""

    def __init__(self, tseq, dim=0, lengths=None, cache_size=0):
        if not all(isinstance(t, Transform) for t in tseq):
            raise TypeError("CatTransform(): every element of tseq must be a Transform")
        if cache_size:
            tseq = [t.with_cache(cache_size) for t in tseq]
        super().__init__(cache_size=cache_size)
        self.transforms = list(tseq)
        self.lengths = [1] * len(self.transforms) if lengths is None else list(lengths)
        if len(self.lengths) != len(self.transforms):
            raise ValueError("CatTransform(): lengths (%d) must match transforms (%d)"
                             % (len(self.lengths), len(self.transforms)))
        self.dim = dim

    @property
    def event_dim(self):
        return max(t.event_dim for t in self.transforms)

    @property
    def length(self):
        """The total length along ``dim``."""
        return sum(self.lengths)

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return CatTransform(self.transforms, self.dim, self.lengths, cache_size)

    def _check(self, value, name):
        _check_dim(self.dim, value, name)
        if value.shape[self.dim] != self.length:
            raise ValueError("%s.size(%d) = %d must equal length %d"
                             % (name, self.dim, value.shape[self.dim], self.length))

    def _map(self, value, inverse):
        self._check(value, "y" if inverse else "x")
        out, start = [], 0
        for t, length in zip(self.transforms, self.lengths):
            part = value.narrow(self.dim, start, length)
            out.append(t.inv(part) if inverse else t(part))
            start += length
        return pyad.cat(out, self.dim)

    def _call(self, x):
        return self._map(x, False)

    def _inverse(self, y):
        return self._map(y, True)

    def log_abs_det_jacobian(self, x, y):
        self._check(x, "x")
        self._check(y, "y")
        terms, start = [], 0
        event_dim = self.event_dim
        for t, length in zip(self.transforms, self.lengths):
            term = t.log_abs_det_jacobian(x.narrow(self.dim, start, length),
                                          y.narrow(self.dim, start, length))
            if t.event_dim < event_dim:
                term = _sum_rightmost(term, event_dim - t.event_dim)
            terms.append(term)
            start += length
        dim = self.dim - x.ndim if self.dim >= 0 else self.dim
        dim = dim + event_dim
        if dim < 0:
            return pyad.cat(terms, dim)
        return functools.reduce(operator.add, terms)

    @property
    def bijective(self):
        return all(t.bijective for t in self.transforms)

    @constraints.dependent_property
    def domain(self):
        return constraints.cat([t.domain for t in self.transforms], self.dim, self.lengths)

    @constraints.dependent_property
    def codomain(self):
        return constraints.cat([t.codomain for t in self.transforms], self.dim, self.lengths)


class StackTransform(Transform):
    """Transform ``tseq[i]`` applied to entry i along ``dim``, the results stacked:
    `constraints.stack`'s map."""

    def __init__(self, tseq, dim=0, cache_size=0):
        if not all(isinstance(t, Transform) for t in tseq):
            raise TypeError("StackTransform(): every element of tseq must be a Transform")
        if cache_size:
            tseq = [t.with_cache(cache_size) for t in tseq]
        super().__init__(cache_size=cache_size)
        self.transforms = list(tseq)
        self.dim = dim

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return StackTransform(self.transforms, self.dim, cache_size)

    def _slices(self, value, name):
        _check_dim(self.dim, value, name)
        if value.shape[self.dim] != len(self.transforms):
            raise ValueError("%s.size(%d) = %d must equal len(transforms) %d"
                             % (name, self.dim, value.shape[self.dim], len(self.transforms)))
        return [value.select(self.dim, i) for i in range(value.shape[self.dim])]

    def _call(self, x):
        return pyad.stack([t(part) for part, t in zip(self._slices(x, "x"), self.transforms)],
                          self.dim)

    def _inverse(self, y):
        return pyad.stack([t.inv(part) for part, t in zip(self._slices(y, "y"),
                                                          self.transforms)], self.dim)

    def log_abs_det_jacobian(self, x, y):
        return pyad.stack([t.log_abs_det_jacobian(a, b) for a, b, t in
                           zip(self._slices(x, "x"), self._slices(y, "y"), self.transforms)],
                          self.dim)

    @property
    def bijective(self):
        return all(t.bijective for t in self.transforms)

    @constraints.dependent_property
    def domain(self):
        return constraints.stack([t.domain for t in self.transforms], self.dim)

    @constraints.dependent_property
    def codomain(self):
        return constraints.stack([t.codomain for t in self.transforms], self.dim)
