"""More user cycles through the untracked graph (issue 19, item 2), and freelisted
engine objects (Variable, SavedVariable) never coming back with stale state.

Companion of test_gc_tracking.py: each test makes a cycle after the graph was recorded
(so the nodes it passes through were already untracked), drops it, and checks that
``gc.collect()`` frees it.
"""
import gc
import weakref

import numpy as np
import pytest

import pyad
from pyad import Variable
from pyad import _engine


def is_tracked(obj):
    """gc.is_tracked as a collection sees it: nodes taken by a later op wait in a list
    to be sealed, and the collector's start seals them first (pyad/_gctrack.pxi)."""
    _engine._seal_pending_now()
    return gc.is_tracked(obj)


def chain(v, n):
    for _ in range(n):
        v = pyad.tanh(pyad.mul(v, 0.5))
    return v


def leaf(n=2):
    return Variable(np.linspace(-0.4, 0.3, n), requires_grad=True)


def assert_collected(ref):
    gc.collect()
    assert ref() is None, "the cycle was not collected"


@pytest.fixture(autouse=True)
def clean():
    gc.collect()
    yield
    gc.collect()


def test_cycle_under_anomaly_mode():
    # Anomaly mode stores each node's forward stack on the node.
    with pyad.autograd.set_detect_anomaly(True):
        x = leaf()
        up = chain(x, 5)
        down = chain(up, 5)
        chain(down, 1)
    assert not is_tracked(up.grad_fn)          # the forward stacks hold no user object
    up.grad_fn.register_hook(lambda gi, go: None if down is None else None)
    ref = weakref.ref(down)
    del up, down
    assert_collected(ref)


def test_cycle_through_a_multi_output_node():
    x = leaf(6)
    up = chain(x, 3)
    parts = pyad.split(up, 2)
    down = chain(parts[1], 4)
    chain(down, 1)
    assert not is_tracked(up.grad_fn)
    up.grad_fn.register_prehook(lambda go: None if down is None else None)
    ref = weakref.ref(down)
    del up, parts, down
    assert_collected(ref)


def test_cycle_made_after_a_retained_backward():
    x = leaf()
    up = chain(x, 4)
    down = chain(up, 4)
    down.sum().backward(retain_graph=True)
    assert not is_tracked(up.grad_fn)
    up.grad_fn.register_hook(lambda gi, go: None if down is None else None)
    ref = weakref.ref(down)
    del up, down
    assert_collected(ref)
    assert x.grad is not None


def test_hook_registered_during_backward_closing_over_a_downstream_variable():
    x = leaf()
    up = chain(x, 4)
    down = chain(up, 4)
    holder = {}

    def on_down(g):
        # runs in backward, after every node was sealed: attach to an upstream node
        holder["h"] = up.grad_fn.register_hook(lambda gi, go: None if down is None else None)
        return g

    down.register_hook(on_down)
    down.sum().backward(retain_graph=True)
    assert "h" in holder
    ref = weakref.ref(down)
    del up, down, holder, on_down
    assert_collected(ref)


def test_two_graphs_sharing_a_leaf_one_hooked():
    # The leaf's accumulator is sealed by both graphs; the hook on the leaf closes
    # over the second graph's output: x -> accumulator -> hook -> b2 -> ... -> x.
    x = leaf()
    a = chain(x, 3)
    a2 = chain(a, 3)
    b = chain(x, 3)
    b2 = chain(b, 3)
    chain(a2, 1)
    chain(b2, 1)
    x.register_hook(lambda g: g if b2 is not None else g)
    ref_b, ref_a, ref_x = weakref.ref(b2), weakref.ref(a2), weakref.ref(x)
    del a, a2, b, b2, x
    assert_collected(ref_b)
    assert_collected(ref_a)
    assert_collected(ref_x)


def test_cycle_through_a_node_holding_an_array_subclass_constant():
    class Tagged(np.ndarray):
        pass

    x = leaf()
    c = np.array([2.0, 3.0]).view(Tagged)
    try:
        y = pyad.mul(x, c)
    except TypeError:
        pytest.skip("array subclasses are not accepted as operands")
    down = chain(y, 3)
    chain(down, 1)
    # a node holding an object of a Python class stays tracked, and so does all below it
    assert is_tracked(y.grad_fn) and is_tracked(down.grad_fn)
    c.keep = down                       # Tagged has a __dict__: c -> down -> ... -> c?
    ref = weakref.ref(down)
    del y, down, c
    assert_collected(ref)


def test_gradients_through_late_hooks_match_torch():
    torch = pytest.importorskip("torch")
    data = np.array([0.3, -0.7, 1.1])
    x = Variable(data.copy(), requires_grad=True)
    up = chain(x, 3)
    down = chain(up, 3)
    chain(down, 1)
    up.grad_fn.register_hook(lambda gi, go: tuple(None if g is None else g * 2 for g in gi))
    down.sum().backward()
    tx = torch.tensor(data, requires_grad=True)
    tu = tx
    for _ in range(3):
        tu = torch.tanh(tu * 0.5)
    td = tu
    for _ in range(3):
        td = torch.tanh(td * 0.5)
    tu.grad_fn.register_hook(lambda gi, go: tuple(None if g is None else g * 2 for g in gi))
    td.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-12, atol=0)


# ----------------------------------------------------------- freelisted objects

def test_freed_variable_slot_reused_without_stale_state():
    # Variable has a freelist: a new Variable made right after one died must come
    # back clean (no grad, no grad_fn, version 0), and a weak reference to the dead
    # one must stay dead.
    for _ in range(50):
        x = leaf()
        y = chain(x, 2)
        y.retain_grad()
        y.sum().backward()
        assert y.grad is not None
        ref = weakref.ref(y)
        y.add_(1.0)                      # bump its version
        del y
        assert ref() is None
        fresh = [Variable(np.zeros(2)) for _ in range(8)]
        for v in fresh:
            assert v.grad is None and v.grad_fn is None
            assert not v.requires_grad and v.is_leaf
            assert v._version == 0
            assert not v.retains_grad
        assert ref() is None


def test_freed_node_never_visible_through_an_old_reference():
    x = leaf()
    y = chain(x, 3)
    node = y.grad_fn
    name = node.name()
    ref = weakref.ref(node)
    del y
    # `node` keeps the node alive, with its graph
    assert node.name() == name
    assert node.next_functions[0][0] is not None
    del node
    gc.collect()
    assert ref() is None
    z = chain(x, 1)
    assert ref() is None                 # a new node is not reachable from the old ref
    assert z.grad_fn is not None


# ------------------------------------------- hooks do not pin a graph for good

def test_removed_leaf_hook_lets_later_graphs_leave_the_collector():
    # One hook ever registered on a long-lived leaf (then removed) must not keep every
    # later graph built from it in the collector's lists.
    w = leaf()
    y = chain(w, 3)
    chain(y, 1)                                   # seals w's accumulator
    handle = w.register_hook(lambda g: g)
    handle.remove()
    del y
    z = chain(w, 4)
    chain(z, 1)
    assert not is_tracked(z.grad_fn)
    z.sum().backward()
    v, d = w.detach().numpy().copy(), np.ones(2)   # by hand: d tanh(v/2) = (1-t^2)/2
    for _ in range(4):
        v = np.tanh(0.5 * v)
        d = d * 0.5 * (1 - v ** 2)
    np.testing.assert_allclose(w.grad.numpy(), d, rtol=1e-12, atol=0)


def test_kept_leaf_hook_keeps_later_graphs_tracked_and_their_cycles_collected():
    w = leaf()
    y = chain(w, 3)
    chain(y, 1)
    box = []
    w.register_hook(lambda g: g if box is not None else g)
    del y
    z = chain(w, 3)
    z2 = chain(z, 3)
    chain(z2, 1)
    assert is_tracked(z.grad_fn) and is_tracked(z2.grad_fn)
    box.append(z2)                                 # w -> acc -> hook -> box -> z2 -> ... -> acc
    ref_z, ref_w = weakref.ref(z2), weakref.ref(w)
    del w, z, z2, box
    assert_collected(ref_z)
    assert_collected(ref_w)
