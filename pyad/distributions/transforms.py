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
           "ComposeTransform", "identity_transform"]


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
        return tuple(numpy.broadcast_shapes(tuple(shape), tuple(self.exponent.shape)))

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
        return tuple(numpy.broadcast_shapes(tuple(shape), *self._param_shapes()))

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
