"""Variables made by ops that record nothing start outside the cyclic collector's lists
(issue 19: the no_grad forward pays no collector bookkeeping per op). Such a Variable
holds a NumPy array, None and its version counter, so no reference cycle can pass
through it; every assignment that gives it more (a grad, grad_fn, view base, accumulator
and hooks, a name, other data) puts it back first (_track_var). These tests check both
halves: which Variables start untracked, that each such assignment tracks it, and that
cycles user code makes through a Variable that started untracked are still collected.
"""
import gc
import weakref

import numpy as np
import pytest

import pyad
from pyad import Variable
from pyad import _engine

pytestmark = pytest.mark.skipif(not _engine._variable_alloc_stats(),
                                reason="this CPython keeps every Variable tracked")


def plain(values=(1.0, -2.0, 3.0)):
    """A fresh Variable made by an op under no_grad (untracked)."""
    x = Variable(np.array(values))
    with pyad.no_grad():
        return x * 1.5


def test_outputs_that_record_nothing_start_untracked_and_recorded_ones_do_not():
    x = Variable(np.array([0.5, -1.0]), requires_grad=True)
    with pyad.no_grad():
        outs = [x * 2.0, pyad.tanh(x), x + x, x.sum(), x[0], x.reshape(2, 1)]
    c = Variable(np.array([0.5, -1.0]))            # an input that requires no grad
    outs += [pyad.exp(c), c @ c, c * c]
    y = pyad.tanh(x * 2.0)                         # recorded
    assert not gc.is_tracked(outs[0]) and not gc.is_tracked(outs[1])
    assert not gc.is_tracked(outs[2]) and not gc.is_tracked(outs[3])
    assert not any(gc.is_tracked(o) for o in outs[6:])
    # a view is given its base at once, so it is tracked from the start
    assert gc.is_tracked(outs[4]) and gc.is_tracked(outs[5])
    assert gc.is_tracked(y) and gc.is_tracked(x)
    # the values are the ones NumPy computes
    np.testing.assert_array_equal(outs[1].data, np.tanh(x.data))
    np.testing.assert_array_equal(outs[8].data, c.data * c.data)


def _set_grad(v):
    v.grad = Variable(np.ones(3))


def _set_name(v):
    v.name = "activations"


def _set_data(v):
    v.data = np.zeros(3)


def _backward_into_it(v):
    v.requires_grad_()
    (v * v).sum().backward()
    np.testing.assert_allclose(v.grad.data, 2 * v.data)


def _hook_on_it(v):
    v.requires_grad_()
    v.register_hook(lambda g: g)


def _in_place_with_history(v):
    w = Variable(np.array([1.0, 2.0, 3.0]), requires_grad=True)
    v.mul_(w)
    assert v.grad_fn is not None


def _in_place_view_op(v):
    v.unsqueeze_(0)


def _resize(v):
    v.resize_(2)


def _share_memory(v):
    v.share_memory_()


@pytest.mark.parametrize("give", [_set_grad, _set_name, _set_data, _backward_into_it,
                                  _hook_on_it, _in_place_with_history, _in_place_view_op,
                                  _resize, _share_memory])
def test_each_assignment_that_can_close_a_cycle_tracks_the_variable_first(give):
    v = plain()
    assert not gc.is_tracked(v)
    give(v)
    assert gc.is_tracked(v)


def test_a_custom_functions_output_made_under_its_no_grad_forward_is_tracked():
    class Double(pyad.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            return a * 2.0                        # grad mode is off in forward: plain

        @staticmethod
        def backward(ctx, g):
            return g * 2.0

    x = Variable(np.array([1.0, -1.0]), requires_grad=True)
    y = Double.apply(x)
    assert y.grad_fn is not None and gc.is_tracked(y)
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.data, [2.0, 2.0])


def _collected_after(make_cycle):
    """Make a cycle through a Variable that started untracked, drop it, collect."""
    v = plain()
    assert not gc.is_tracked(v)
    make_cycle(v)
    ref = weakref.ref(v)
    del v
    gc.collect()
    return ref() is None


def test_a_hook_closing_over_its_variable_is_collected():
    def cycle(v):
        v.requires_grad_()
        v.register_hook(lambda g: g * v.data)     # v -> accumulator -> hook -> v
    assert _collected_after(cycle)


def test_two_variables_that_are_each_others_grad_are_collected():
    def cycle(v):
        w = plain()
        v.grad = w
        w.grad = v                               # v -> w -> v
    assert _collected_after(cycle)


def test_a_name_that_refers_back_is_collected():
    def cycle(v):
        v.name = [v]                             # v -> list -> v
    assert _collected_after(cycle)


def test_a_custom_function_context_holding_its_output_is_collected():
    class Keep(pyad.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            out = a * 3.0
            ctx.out = out                        # out -> ctx (its grad_fn) -> out
            return out

        @staticmethod
        def backward(ctx, g):
            return g * 3.0

    x = Variable(np.array([1.0, 2.0]), requires_grad=True)
    y = Keep.apply(x)
    assert y.grad_fn.out is y
    ref = weakref.ref(y)
    del y
    gc.collect()
    assert ref() is None


def test_an_untracked_variable_dies_by_reference_count_alone():
    v = plain()
    ref = weakref.ref(v)
    del v                                        # no collection needed
    assert ref() is None
