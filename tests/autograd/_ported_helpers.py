"""Helpers shared by the modules that port torch's test_autograd.py: torch's double
default dtype, seeded random Variables (a fresh seed per call, so tests do not depend on
their order) and torch's assertEqual tolerance."""
import numpy as np
import pytest

import pyad
from pyad import Variable


@pytest.fixture(autouse=True)
def double_default_dtype():
    # torch's test_autograd.py runs with torch.set_default_dtype(torch.double)
    old = pyad.get_default_dtype()
    pyad.set_default_dtype(pyad.float64)
    yield
    pyad.set_default_dtype(old)


class SeededRandom:
    """randn/rand making Variables from seeds start + 1, start + 2, ..."""

    def __init__(self, start):
        self._seed = start

    def _rng(self):
        self._seed += 1
        return np.random.default_rng(self._seed)

    def randn(self, *shape, requires_grad=False):
        return Variable(self._rng().standard_normal(shape), requires_grad=requires_grad)

    def rand(self, *shape, requires_grad=False):
        return Variable(self._rng().random(shape), requires_grad=requires_grad)


def assert_equal(actual, expected):
    a = actual.detach().numpy() if isinstance(actual, Variable) else np.asarray(actual)
    e = expected.detach().numpy() if isinstance(expected, Variable) else np.asarray(expected)
    assert a.shape == e.shape
    np.testing.assert_allclose(a, e, rtol=1.3e-6, atol=1e-5)
