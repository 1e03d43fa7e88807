"""Views and in-place changes: a view taken before its base required grad or under
no_grad, views of a base modified in place (expand, broadcast_to), random fills of a
view. Each scenario runs on pyad and, when torch is installed, on torch too.
"""
import numpy as np
import pytest

import pyad
from pyad import Variable
from _torch_compare import torch, LIBS, as_np, both, raises_in_both


# -- in-place changes through views of leaves ------------------------------------------

def test_inplace_on_a_view_taken_before_the_leaf_required_grad_raises():
    def scenario(lib):
        a = lib.randn(2, 3)
        b = a[:]
        a.requires_grad = True
        b.add_(5)

    raises_in_both(scenario, RuntimeError, "view of a leaf Variable that requires grad|"
                                           "a view of a leaf")


def test_inplace_outside_no_grad_on_a_view_taken_under_no_grad_raises():
    def scenario(lib):
        leaf = lib.randn(2, 3, requires_grad=True)
        with lib.no_grad():
            v = leaf[:]
        v.zero_()

    raises_in_both(scenario, RuntimeError, "created in no_grad mode")


def test_view_taken_under_no_grad_may_be_modified_under_no_grad():
    for lib in LIBS:
        leaf = lib.zeros(3, dtype=lib.float64, requires_grad=True)
        with lib.no_grad():
            v = leaf[:]
            v.add_(1)
        np.testing.assert_array_equal(as_np(leaf), [1.0, 1.0, 1.0])


def test_view_of_a_base_modified_in_place_by_a_grad_requiring_value_requires_grad():
    def scenario(lib):
        base = lib.zeros(2, 3, dtype=lib.float64)
        v = base[0]
        r = lib.ones(2, 3, dtype=lib.float64, requires_grad=True)
        base.add_(r)
        before = v.requires_grad
        (v * 3).sum().backward()
        return before, v.grad_fn is not None, r.grad

    both(scenario, (True, True, [[3.0] * 3, [0.0] * 3]))


def test_random_fill_of_a_view_of_a_leaf_that_requires_grad_raises():
    for lib in LIBS:
        a = lib.zeros(3)
        v = a[:]
        a.requires_grad = True
        with pytest.raises(RuntimeError, match="leaf"):
            v.uniform_()


# -- expand / expand_as / broadcast_to of a base then changed in place -----------------

@pytest.mark.parametrize("how", ["expand", "expand_as", "broadcast_to", "expand_neg"])
def test_expand_of_a_base_modified_in_place_follows_the_new_history(how):
    def scenario(lib):
        if lib is pyad:
            x = pyad.Variable(np.ones(3), requires_grad=True)
        else:
            x = torch.ones(3, dtype=torch.float64, requires_grad=True)
        c = x * 1.0
        e = {"expand": lambda: c.expand(2, 3),
             "expand_as": lambda: c.expand_as(c.new_zeros((2, 3))),
             "broadcast_to": lambda: lib.broadcast_to(c, (2, 3)),
             "expand_neg": lambda: c.expand(2, -1)}[how]()
        c.mul_(3.0)
        e.sum().backward()
        return as_np(x.grad), as_np(e)
    grad, value = scenario(pyad)
    np.testing.assert_array_equal(grad, [6.0, 6.0, 6.0])     # 2 rows of d(3 x)/dx = 3
    np.testing.assert_array_equal(value, np.full((2, 3), 3.0))
    if torch is not None:
        tgrad, tvalue = scenario(torch)
        np.testing.assert_array_equal(grad, tgrad)
        np.testing.assert_array_equal(value, tvalue)


def test_expand_chain_and_views_of_expanded_base_follow_the_new_history():
    x = pyad.Variable(np.array([1.0, 2.0]), requires_grad=True)
    c = x * 1.0
    e = c.unsqueeze(0).expand(3, 2)[1:]            # a view of a view of an expand
    c.mul_(x)                                      # c = x * x now
    e.sum().backward()
    np.testing.assert_array_equal(x.grad.data, 2 * 2 * np.array([1.0, 2.0]))  # 2 rows of 2x
    if torch is not None:
        tx = torch.tensor([1.0, 2.0], dtype=torch.float64, requires_grad=True)
        tc = tx * 1.0
        te = tc.unsqueeze(0).expand(3, 2)[1:]
        tc.mul_(tx)
        te.sum().backward()
        np.testing.assert_array_equal(x.grad.data, tx.grad.numpy())


def test_expanded_view_reports_its_base_and_still_refuses_in_place():
    x = pyad.Variable(np.ones(3), requires_grad=True)
    c = x * 1.0
    e = c.expand(2, 3)
    assert e._base is c and e.is_view        # torch: e._base is c
    for target in (e, e[0]):
        with pytest.raises(RuntimeError):
            target.mul_(2.0)
