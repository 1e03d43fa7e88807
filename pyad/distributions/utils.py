"""``torch.distributions.utils``: the helpers distributions are written with, as torch's.

>>> import pyad
>>> from pyad.distributions.utils import logits_to_probs, probs_to_logits
>>> logits_to_probs(pyad.tensor([0.0]), is_binary=True)
tensor([0.5000])
>>> probs_to_logits(pyad.tensor([0.5]), is_binary=True)
tensor([0.])
"""
from functools import update_wrapper

import numpy

import pyad
from pyad.distributions.distribution import _broadcast_all, _clamp_probs

__all__ = ["broadcast_all", "logits_to_probs", "clamp_probs", "probs_to_logits",
           "lazy_property", "tril_matrix_to_vec", "vec_to_tril_matrix", "euler_constant"]

euler_constant = 0.57721566490153286060  # Euler Mascheroni Constant


def broadcast_all(*values):
    """Numbers and Variables broadcast to one shape, as Variables (numbers take the
    dtype of the first Variable, else the default dtype)."""
    return _broadcast_all(*values)


def clamp_probs(probs):
    """``probs`` clamped to ``[eps, 1 - eps]`` for its dtype's ``eps``."""
    return _clamp_probs(probs)


def logits_to_probs(logits, is_binary=False):
    """Probabilities from logits: the sigmoid if ``is_binary``, else the softmax over the
    last dimension."""
    if is_binary:
        return pyad.sigmoid(logits)
    return pyad.nn.functional.softmax(logits, dim=-1)


def probs_to_logits(probs, is_binary=False):
    """Logits from probabilities (clamped first): ``log(p) - log1p(-p)`` if ``is_binary``,
    else ``log(p)``."""
    ps_clamped = clamp_probs(probs)
    if is_binary:
        return pyad.log(ps_clamped) - pyad.log1p(-ps_clamped)
    return pyad.log(ps_clamped)


def tril_matrix_to_vec(mat, diag=0):
    """The entries of the lower triangle of the last two dimensions of ``mat`` (below
    and on the ``diag``-th diagonal), row by row, as a vector per batch element."""
    n = mat.shape[-1]
    if diag < -n or diag >= n:
        raise ValueError(f"diag ({diag}) provided is outside [{-n}, {n - 1}].")
    rows, cols = numpy.tril_indices(n, k=diag)
    return mat[..., rows, cols]


def vec_to_tril_matrix(vec, diag=0):
    """The inverse of `tril_matrix_to_vec`: a square lower-triangular matrix (zero above
    the ``diag``-th diagonal) per batch element, filled row by row from ``vec``."""
    # the size n of the matrix solves n^2 + (2 diag + 1) n - 2 (len + |diag| (diag + 1)) = 0
    n = (-(1 + 2 * diag) + ((1 + 2 * diag) ** 2 + 8 * vec.shape[-1]
                            + 4 * abs(diag) * (diag + 1)) ** 0.5) / 2
    eps = numpy.finfo(numpy.dtype(vec.dtype)).eps
    if round(n) - n > eps:
        raise ValueError(f"The size of last dimension is {vec.shape[-1]} which cannot be "
                         "expressed as the lower triangular part of a square D x D matrix.")
    n = round(n.item()) if isinstance(n, pyad.Tensor) else round(n)
    mat = pyad.zeros(tuple(vec.shape[:-1]) + (n, n), dtype=vec.dtype)
    rows, cols = numpy.tril_indices(n, k=diag)
    mat[..., rows, cols] = vec
    return mat


class lazy_property:
    """A property computed once, on first access (with gradients recorded), then stored
    on the instance, as torch's."""

    def __init__(self, wrapped):
        self.wrapped = wrapped
        update_wrapper(self, wrapped)

    def __get__(self, instance, obj_type=None):
        if instance is None:
            return _lazy_property_and_property(self.wrapped)
        with pyad.enable_grad():
            value = self.wrapped(instance)
        setattr(instance, self.wrapped.__name__, value)
        return value


class _lazy_property_and_property(lazy_property, property):
    # the class attribute: a property too, so that documentation tools see one
    def __init__(self, wrapped):
        property.__init__(self, wrapped)
