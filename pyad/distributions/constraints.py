"""``pyad.distributions.constraints``: the sets a parameter or a sample lives in, as
``torch.distributions.constraints``.

Each constraint is an object with ``check(value)``, which answers elementwise (over the
constraint's ``event_dim`` rightmost dimensions taken together) whether ``value`` is in
the set; distributions name theirs in ``arg_constraints`` and ``support``.

>>> import pyad
>>> from pyad.distributions import constraints
>>> constraints.positive.check(pyad.tensor([1.0, 0.0]))
tensor([ True, False])
>>> constraints.simplex, constraints.interval(0.0, 2.0)
(Simplex(), Interval(lower_bound=0.0, upper_bound=2.0))
"""
import numpy

import pyad

__all__ = ["Constraint", "boolean", "cat", "corr_cholesky", "dependent", "dependent_property",
           "greater_than", "greater_than_eq", "independent", "integer_interval", "interval",
           "half_open_interval", "is_dependent", "less_than", "lower_cholesky",
           "lower_triangular", "MixtureSameFamilyConstraint", "multinomial", "nonnegative",
           "nonnegative_integer", "one_hot", "positive", "positive_semidefinite",
           "positive_definite", "positive_integer", "real", "real_vector", "simplex",
           "square", "stack", "symmetric", "unit_interval"]


class Constraint:
    """A set of values: ``check(value)`` says which events of ``value`` are inside.

    ``is_discrete`` says whether the set is discrete, ``event_dim`` how many rightmost
    dimensions make one event (``check`` reduces over them).
    """

    is_discrete = False
    event_dim = 0

    def check(self, value):
        """A boolean tensor of shape ``value.shape[:value.ndim - event_dim]``."""
        raise NotImplementedError

    def __repr__(self):
        return type(self).__name__[1:] + "()"


class _Dependent(Constraint):
    # A placeholder for a constraint that depends on other parameters (Uniform's low)
    def __init__(self, *, is_discrete=NotImplemented, event_dim=NotImplemented):
        self._is_discrete = is_discrete
        self._event_dim = event_dim

    @property
    def is_discrete(self):
        if self._is_discrete is NotImplemented:
            raise NotImplementedError(".is_discrete cannot be determined statically")
        return self._is_discrete

    @property
    def event_dim(self):
        if self._event_dim is NotImplemented:
            raise NotImplementedError(".event_dim cannot be determined statically")
        return self._event_dim

    def __call__(self, *, is_discrete=NotImplemented, event_dim=NotImplemented):
        if is_discrete is NotImplemented:
            is_discrete = self._is_discrete
        if event_dim is NotImplemented:
            event_dim = self._event_dim
        return _Dependent(is_discrete=is_discrete, event_dim=event_dim)

    def check(self, x):
        raise ValueError("Cannot determine validity of dependent constraint")


def is_dependent(constraint):
    """Whether ``constraint`` is a `dependent` placeholder (not checkable on its own)."""
    return isinstance(constraint, _Dependent)


class _DependentProperty(property, _Dependent):
    # A dependent constraint on the class, a property (the actual constraint) on objects
    def __init__(self, fn=None, *, is_discrete=NotImplemented, event_dim=NotImplemented):
        property.__init__(self, fn)
        self._is_discrete = is_discrete
        self._event_dim = event_dim

    def __call__(self, fn):
        return _DependentProperty(fn, is_discrete=self._is_discrete,
                                  event_dim=self._event_dim)


class _IndependentConstraint(Constraint):
    # base_constraint with reinterpreted_batch_ndims more dimensions in the event
    def __init__(self, base_constraint, reinterpreted_batch_ndims):
        if not isinstance(base_constraint, Constraint):
            raise TypeError("independent(): base_constraint must be a Constraint, got %s"
                            % type(base_constraint).__name__)
        if not isinstance(reinterpreted_batch_ndims, int) or reinterpreted_batch_ndims < 0:
            raise ValueError("independent(): reinterpreted_batch_ndims must be an int >= 0, "
                             "got %r" % (reinterpreted_batch_ndims,))
        self.base_constraint = base_constraint
        self.reinterpreted_batch_ndims = reinterpreted_batch_ndims

    @property
    def is_discrete(self):
        return self.base_constraint.is_discrete

    @property
    def event_dim(self):
        return self.base_constraint.event_dim + self.reinterpreted_batch_ndims

    def check(self, value):
        result = pyad.as_tensor(self.base_constraint.check(value))
        n = self.reinterpreted_batch_ndims
        if result.ndim < n:
            raise ValueError("Expected value.dim() >= %d but got %d"
                             % (self.base_constraint.event_dim + n, value.ndim))
        return result.reshape(tuple(result.shape[:result.ndim - n]) + (-1,)).all(-1)

    def __repr__(self):
        return "%s(%r, %d)" % (type(self).__name__[1:], self.base_constraint,
                               self.reinterpreted_batch_ndims)


class MixtureSameFamilyConstraint(Constraint):
    """The support of a `MixtureSameFamily`: the component's, checked against every
    component (the value gets the component dimension back)."""

    def __init__(self, base_constraint):
        if not isinstance(base_constraint, Constraint):
            raise TypeError("MixtureSameFamilyConstraint(): base_constraint must be a "
                            "Constraint, got %s" % type(base_constraint).__name__)
        self.base_constraint = base_constraint

    @property
    def is_discrete(self):
        return self.base_constraint.is_discrete

    @property
    def event_dim(self):
        return self.base_constraint.event_dim

    def check(self, value):
        """Whether ``value`` is in the support of every component."""
        if value.ndim < self.event_dim:
            raise ValueError("Expected value.dim() >= %d but got %d"
                             % (self.event_dim, value.ndim))
        result = self.base_constraint.check(value.unsqueeze(-1 - self.event_dim))
        keep = value.ndim - self.event_dim
        return result.reshape(tuple(result.shape[:keep]) + (-1,)).all(-1)

    def __repr__(self):
        return "%s(%r)" % (type(self).__name__, self.base_constraint)


class _Boolean(Constraint):
    is_discrete = True

    def check(self, value):
        return (value == 0) | (value == 1)


class _OneHot(Constraint):
    is_discrete = True
    event_dim = 1

    def check(self, value):
        return ((value == 0) | (value == 1)).all(-1) & (value.sum(-1) == 1)


def _bound_repr(cls, **bounds):
    # as torch's f-strings: a 0-d tensor bound formats as its value
    return "%s(%s)" % (cls.__name__[1:], ", ".join("%s=%s" % (k, format(v, ""))
                                                   for k, v in bounds.items()))


class _IntegerInterval(Constraint):
    is_discrete = True

    def __init__(self, lower_bound, upper_bound):
        self.lower_bound, self.upper_bound = lower_bound, upper_bound

    def check(self, value):
        return (value % 1 == 0) & (self.lower_bound <= value) & (value <= self.upper_bound)

    def __repr__(self):
        return _bound_repr(type(self), lower_bound=self.lower_bound,
                           upper_bound=self.upper_bound)


class _IntegerGreaterThan(Constraint):
    is_discrete = True

    def __init__(self, lower_bound):
        self.lower_bound = lower_bound

    def check(self, value):
        return (value % 1 == 0) & (value >= self.lower_bound)

    def __repr__(self):
        return _bound_repr(type(self), lower_bound=self.lower_bound)


class _Real(Constraint):
    def check(self, value):
        return value == value                    # false only for nan: inf is real


class _GreaterThan(Constraint):
    def __init__(self, lower_bound):
        self.lower_bound = lower_bound

    def check(self, value):
        return self.lower_bound < value

    def __repr__(self):
        return _bound_repr(type(self), lower_bound=self.lower_bound)


class _GreaterThanEq(_GreaterThan):
    def check(self, value):
        return self.lower_bound <= value


class _LessThan(Constraint):
    def __init__(self, upper_bound):
        self.upper_bound = upper_bound

    def check(self, value):
        return value < self.upper_bound

    def __repr__(self):
        return _bound_repr(type(self), upper_bound=self.upper_bound)


class _Interval(Constraint):
    def __init__(self, lower_bound, upper_bound):
        self.lower_bound, self.upper_bound = lower_bound, upper_bound

    def check(self, value):
        return (self.lower_bound <= value) & (value <= self.upper_bound)

    def __repr__(self):
        return _bound_repr(type(self), lower_bound=self.lower_bound,
                           upper_bound=self.upper_bound)


class _HalfOpenInterval(_Interval):
    def check(self, value):
        return (self.lower_bound <= value) & (value < self.upper_bound)


class _Simplex(Constraint):
    event_dim = 1

    def check(self, value):
        return (value >= 0).all(-1) & ((value.sum(-1) - 1).abs() < 1e-6)


class _Multinomial(Constraint):
    # torch checks the weaker sum(-1) <= upper_bound
    is_discrete = True
    event_dim = 1

    def __init__(self, upper_bound):
        self.upper_bound = upper_bound

    def check(self, x):
        return (x >= 0).all(-1) & (x.sum(-1) <= self.upper_bound)


def _flat_all(mask, value):
    return mask.reshape(tuple(value.shape[:-2]) + (-1,)).all(-1)


class _LowerTriangular(Constraint):
    event_dim = 2

    def check(self, value):
        return _flat_all(value.tril() == value, value)


class _LowerCholesky(Constraint):
    event_dim = 2

    def check(self, value):
        positive_diagonal = (value.diagonal(dim1=-2, dim2=-1) > 0).all(-1)
        return _flat_all(value.tril() == value, value) & positive_diagonal


class _CorrCholesky(Constraint):
    event_dim = 2

    def check(self, value):
        tol = float(numpy.finfo(numpy.dtype(value.dtype)).eps) * value.shape[-1] * 10
        row_norm = pyad.linalg.vector_norm(value.detach(), dim=-1)
        return _LowerCholesky().check(value) & ((row_norm - 1.0).abs() <= tol).all(-1)


class _Square(Constraint):
    event_dim = 2

    def check(self, value):
        return pyad.full(tuple(value.shape[:-2]), value.shape[-2] == value.shape[-1],
                         dtype=pyad.bool)


class _Symmetric(_Square):
    def check(self, value):
        square = super().check(value)
        if not bool(square.all()):
            return square
        return pyad.isclose(value, value.transpose(-2, -1), atol=1e-6).all(-1).all(-1)


def _per_matrix(value, test):
    matrices = numpy.asarray(value.detach().data)
    flat = matrices.reshape((-1,) + matrices.shape[-2:])
    return pyad.tensor(numpy.array([test(m) for m in flat], dtype=bool).reshape(
        matrices.shape[:-2]))


def _is_cholesky_factorable(matrix):
    try:
        numpy.linalg.cholesky(matrix)
        return True
    except numpy.linalg.LinAlgError:
        return False


class _PositiveSemidefinite(_Symmetric):
    def check(self, value):
        symmetric = super().check(value)
        if not bool(symmetric.all()):
            return symmetric
        return _per_matrix(value, lambda m: bool((numpy.linalg.eigvalsh(m) >= 0).all()))


class _PositiveDefinite(_Symmetric):
    def check(self, value):
        symmetric = super().check(value)
        if not bool(symmetric.all()):
            return symmetric
        return _per_matrix(value, _is_cholesky_factorable)


class _Cat(Constraint):
    # constraint i on the slice of ``lengths[i]`` entries along ``dim``
    def __init__(self, cseq, dim=0, lengths=None):
        self.cseq = list(cseq)
        self.lengths = [1] * len(self.cseq) if lengths is None else list(lengths)
        if len(self.lengths) != len(self.cseq):
            raise ValueError("cat(): expected as many lengths as constraints")
        self.dim = dim

    @property
    def is_discrete(self):
        return any(c.is_discrete for c in self.cseq)

    @property
    def event_dim(self):
        return max(c.event_dim for c in self.cseq)

    def check(self, value):
        checks, start = [], 0
        for constraint, length in zip(self.cseq, self.lengths):
            checks.append(constraint.check(value.narrow(self.dim, start, length)))
            start += length
        return pyad.cat(checks, self.dim)


class _Stack(Constraint):
    # constraint i on entry i along ``dim``
    def __init__(self, cseq, dim=0):
        self.cseq = list(cseq)
        self.dim = dim

    @property
    def is_discrete(self):
        return any(c.is_discrete for c in self.cseq)

    @property
    def event_dim(self):
        dim = max(c.event_dim for c in self.cseq)
        return dim + 1 if self.dim + dim < 0 else dim

    def check(self, value):
        n = value.shape[self.dim]
        return pyad.stack([c.check(value.select(self.dim, i))
                           for c, i in zip(self.cseq, range(n))], self.dim)


dependent = _Dependent()
dependent_property = _DependentProperty
independent = _IndependentConstraint
boolean = _Boolean()
one_hot = _OneHot()
nonnegative_integer = _IntegerGreaterThan(0)
positive_integer = _IntegerGreaterThan(1)
integer_interval = _IntegerInterval
real = _Real()
real_vector = independent(real, 1)
positive = _GreaterThan(0.0)
nonnegative = _GreaterThanEq(0.0)
greater_than = _GreaterThan
greater_than_eq = _GreaterThanEq
less_than = _LessThan
multinomial = _Multinomial
unit_interval = _Interval(0.0, 1.0)
interval = _Interval
half_open_interval = _HalfOpenInterval
simplex = _Simplex()
lower_triangular = _LowerTriangular()
lower_cholesky = _LowerCholesky()
corr_cholesky = _CorrCholesky()
square = _Square()
symmetric = _Symmetric()
positive_semidefinite = _PositiveSemidefinite()
positive_definite = _PositiveDefinite()
cat = _Cat
stack = _Stack
