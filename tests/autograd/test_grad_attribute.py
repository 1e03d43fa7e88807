"""A Variable's ``.grad`` and ``requires_grad`` attributes as torch: deleting and
assigning ``.grad``, ``requires_grad_`` on a non-leaf, reading ``.grad`` of a non-leaf.
"""
import warnings

import numpy as np
import pytest

import pyad
from pyad import Variable
from _torch_compare import LIBS, both, raises_in_both


# -- Variable attributes ---------------------------------------------------------------

def test_del_grad_sets_it_to_none():
    def scenario(lib):
        x = lib.ones(2, requires_grad=True)
        x.sum().backward()
        del x.grad
        return x.grad

    both(scenario, None)


@pytest.mark.parametrize("value", [0, 1.5, "g", [1.0, 1.0]])
def test_assigning_a_non_variable_grad_raises_type_error(value):
    def scenario(lib):
        x = lib.ones(2, requires_grad=True)
        x.grad = value

    raises_in_both(scenario, TypeError, "assigned grad expected to be a")


@pytest.mark.parametrize("shape, dtype", [((3,), "float32"), ((2, 1), "float32"),
                                          ((), "float32"), ((2,), "float64")])
def test_assigning_a_grad_of_another_size_or_dtype_raises(shape, dtype):
    def scenario(lib):
        x = lib.ones(2, dtype=lib.float32, requires_grad=True)
        x.grad = lib.zeros(shape, dtype=getattr(lib, dtype))

    what = "size '" if dtype == "float32" else "dtype '"
    raises_in_both(scenario, RuntimeError, "attempting to assign a gradient (of|with) " + what)
    with pytest.raises(RuntimeError, match="assigned grad has data of a different"):
        scenario(pyad)                  # (older torch's wording, kept at the end)


def test_assigning_a_matching_grad_keeps_that_variable():
    x = Variable(np.ones((2, 3), np.float32), requires_grad=True)
    g = Variable(np.full((2, 3), 2.0, np.float32))
    x.grad = g
    assert x.grad is g
    swapped = Variable(np.ones((2, 3), dtype=">f4"))       # same type number, other order
    with pytest.raises(RuntimeError, match="different type"):
        x.grad = swapped
    assert x.grad is g


def test_requires_grad_on_a_non_leaf_that_requires_grad_returns_self():
    for lib in LIBS:
        y = lib.ones(2, requires_grad=True) * 2
        assert y.requires_grad_() is y
        assert y.requires_grad_(True) is y
        with pytest.raises(RuntimeError, match="leaf"):
            y.requires_grad_(False)


def test_reading_grad_of_a_non_leaf_warns():
    for lib in LIBS:
        y = lib.ones(2, requires_grad=True) * 2
        with pytest.warns(UserWarning, match="retain_grad"):
            assert y.grad is None
        y.retain_grad()
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            assert y.grad is None
        x = lib.ones(2, requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            assert x.grad is None
