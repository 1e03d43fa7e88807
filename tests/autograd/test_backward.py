"""The backward pass: retained gradients across in-place changes, a second backward
through nodes that save index arrays, materialized zero gradients, deep reentrant
backwards, roots that do not require grad, and a node passing None to one input
without stalling the others. Each scenario runs on pyad and, when torch is
installed, on torch too.
"""
import numpy as np
import pytest

import pyad
from _torch_compare import torch, LIBS, both, raises_in_both


# -- retain_grad follows in-place changes ----------------------------------------------

def test_retained_grad_belongs_to_the_newest_version():
    def scenario(lib):
        leaf = lib.ones(1, requires_grad=True)
        a = leaf.clone()
        a.retain_grad()
        a.mul_(2)
        a.sum().backward()
        return a.grad, leaf.grad

    both(scenario, ([1.0], [2.0]))


@pytest.mark.parametrize("modify", ["base", "view"])
def test_retained_grad_of_a_view_survives_in_place_changes(modify):
    def scenario(lib):
        leaf = lib.ones(2, 2, requires_grad=True)
        a = leaf.clone()
        v = a[0]
        v.retain_grad()
        (a if modify == "base" else v).mul_(2)
        v.sum().backward()
        return v.grad

    both(scenario, [1.0, 1.0])


def test_retained_grad_of_a_base_survives_an_in_place_change_through_a_view():
    def scenario(lib):
        leaf = lib.ones(2, 2, requires_grad=True)
        a = leaf.clone()
        a.retain_grad()
        a[0].mul_(2)
        a.sum().backward()
        return a.grad, leaf.grad

    both(scenario, ([[1.0, 1.0], [1.0, 1.0]], [[2.0, 2.0], [1.0, 1.0]]))


# -- a second backward through nodes that save index arrays ----------------------------

@pytest.mark.parametrize("key", [[1, 1], [True, False, True]])
@pytest.mark.parametrize("through_intermediate", [False, True])
def test_second_backward_through_advanced_indexing_is_refused(key, through_intermediate):
    for lib in LIBS:
        b = lib.ones(3, requires_grad=True)
        index = lib.tensor(key) if lib is torch else np.array(key)
        out = ((b * 1) if through_intermediate else b)[index].sum()
        out.backward()
        with pytest.raises(RuntimeError, match="second time"):
            out.backward()


def test_second_backward_through_advanced_index_setitem_is_refused():
    def scenario(lib):
        b = lib.randn(3, requires_grad=True)
        c = lib.zeros(3)
        c[[1, 2]] = b[[1, 1]]
        c.sum().backward()
        c.sum().backward()

    raises_in_both(scenario, RuntimeError, "second time")


# -- a second backward through nodes that saved a Python number ------------------------
# torch saves the number of `x * 0.5` or `x / 2` as a wrapped-number tensor and frees it
# with the graph, so a second backward raises; ops that save nothing (add, sub, neg,
# remainder and fmod by a number) may run twice.

_SAVES_THE_NUMBER = {
    "x * 0.5": lambda x: x * 0.5,
    "0.5 * x": lambda x: 0.5 * x,
    "x * 3": lambda x: x * 3,
    "x / 0.5": lambda x: x / 0.5,
    "0.5 / x": lambda x: 0.5 / x,
}
_SAVES_NOTHING = {
    "x + 0.5": lambda x: x + 0.5,
    "x - 0.5": lambda x: x - 0.5,
    "0.5 - x": lambda x: 0.5 - x,
    "-x": lambda x: -x,
    "x.remainder(2.0)": lambda x: x.remainder(2.0),
    "x.fmod(2.0)": lambda x: x.fmod(2.0),
}


@pytest.mark.parametrize("name", sorted(_SAVES_THE_NUMBER))
def test_second_backward_through_a_saved_number_is_refused(name):
    def scenario(lib):
        x = lib.tensor([0.3, 1.7], dtype=lib.float64, requires_grad=True)
        y = _SAVES_THE_NUMBER[name](x)
        y.sum().backward()
        y.sum().backward()

    raises_in_both(scenario, RuntimeError, "second time")


def test_a_shared_saved_number_is_freed_with_its_own_graph_only():
    # pyad shares one saved object between the nodes that save the same number
    def scenario(lib):
        half = 0.5
        x = lib.tensor([0.3, 1.7], dtype=lib.float64, requires_grad=True)
        first, second = x * half, x * half
        first.sum().backward()
        second.sum().backward()
        return x.grad

    both(scenario, [1.0, 1.0])


@pytest.mark.parametrize("name", sorted(_SAVES_NOTHING))
def test_second_backward_through_a_node_that_saved_nothing_runs(name):
    def scenario(lib):
        x = lib.tensor([0.3, 1.7], dtype=lib.float64, requires_grad=True)
        y = _SAVES_NOTHING[name](x)
        y.sum().backward()
        y.sum().backward()
        return x.grad

    expected = {"x + 0.5": [2.0, 2.0], "x - 0.5": [2.0, 2.0], "0.5 - x": [-2.0, -2.0],
                "-x": [-2.0, -2.0], "x.remainder(2.0)": [2.0, 2.0],
                "x.fmod(2.0)": [2.0, 2.0]}[name]
    both(scenario, expected)


def test_second_backward_through_basic_indexing_is_allowed():
    def scenario(lib):
        b = lib.ones(3, requires_grad=True)
        out = b[1:].sum()
        out.backward()
        out.backward()
        return b.grad

    both(scenario, [0.0, 2.0, 2.0])


# -- materialized zero gradients take part in the graph --------------------------------

def test_materialized_zero_gradients_require_grad_under_create_graph():
    def scenario(lib):
        x = lib.ones(2, requires_grad=True)
        y = lib.ones(2, requires_grad=True)
        gx, gy = lib.autograd.grad((x * 2).sum(), (x, y), create_graph=True,
                                   materialize_grads=True)
        gg, = lib.autograd.grad(gy.sum(), y, allow_unused=True, materialize_grads=True)
        return gx.requires_grad, gy.requires_grad, gy, gg

    both(scenario, (False, True, [0.0, 0.0], [0.0, 0.0]))


# -- deep reentrant backward -----------------------------------------------------------

def test_two_thousand_nested_reentrant_backwards_run():
    class DeepReentrant(pyad.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            with pyad.enable_grad():
                ctx.x = pyad.autograd.Variable(x.detach(), requires_grad=True)
                ctx.x = ctx.x - 1
            return ctx.x.detach()

        @staticmethod
        def backward(ctx, g):
            if ctx.x < 0:
                return g
            with pyad.enable_grad():
                DeepReentrant.apply(ctx.x).sum().backward()
            return g

    v = pyad.tensor(2000.0, requires_grad=True)
    DeepReentrant.apply(v).sum().backward()
    assert v.grad.item() == 1.0
    assert pyad.is_grad_enabled()


def test_errors_and_grad_mode_cross_the_reentrant_thread_hop():
    depth = {"n": 0}

    class Nest(pyad.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 1

        @staticmethod
        def backward(ctx, g):
            depth["n"] += 1
            if depth["n"] == 70:
                assert not pyad.is_grad_enabled()
                raise ValueError("deep failure")
            with pyad.enable_grad():
                y = pyad.ones(1, requires_grad=True)
                Nest.apply(y).sum().backward()
            return g

    x = pyad.ones(1, requires_grad=True)
    with pytest.raises(ValueError, match="deep failure"):
        Nest.apply(x).sum().backward()
    assert pyad.is_grad_enabled()


# -- roots that do not require grad ----------------------------------------------------

def test_backward_skips_roots_that_do_not_require_grad():
    x = pyad.ones(2, requires_grad=True)
    y = (x * 2).sum()
    c = pyad.ones(3)                         # not a scalar either: its None is fine
    pyad.autograd.backward([y, c], [None, None])
    np.testing.assert_array_equal(x.grad.numpy(), [2.0, 2.0])
    g, = pyad.autograd.grad([(x * 3).sum(), c], x, [None, None])
    np.testing.assert_array_equal(g.numpy(), [3.0, 3.0])


def test_backward_with_no_root_that_requires_grad_raises():
    with pytest.raises(RuntimeError, match="does not require grad"):
        pyad.autograd.backward([pyad.ones(1), pyad.ones(2)], [None, None])


# -- a node that passes no gradient to one input must not stall the others -------------

def test_a_none_gradient_branch_does_not_lose_the_other_paths():
    def scenario(lib):
        class FirstOnly(lib.autograd.Function):
            @staticmethod
            def forward(ctx, a, b):
                return a + b

            @staticmethod
            def backward(ctx, g):
                return g, None

        x = lib.ones(2, requires_grad=True)
        FirstOnly.apply(x * 1, x * 2).sum().backward()
        return x.grad

    both(scenario, [1.0, 1.0])


def test_a_none_gradient_branch_does_not_lose_the_other_paths_in_grad():
    def scenario(lib):
        class SecondOnly(lib.autograd.Function):
            @staticmethod
            def forward(ctx, a, b):
                return a * 1

            @staticmethod
            def backward(ctx, g):
                return None, g

        x = lib.ones(2, requires_grad=True)
        y = x * 3
        out = SecondOnly.apply(y * 1, x * 2).sum() + y.sum()
        return lib.autograd.grad(out, x)[0]

    both(scenario, [5.0, 5.0])          # 2 through b = x * 2, 3 through y.sum()
