"""The recorded graph stays out of the cyclic collector's lists (issue 19, item 2),
and every reference cycle user code makes through it is still collected.

The rule (pyad/_gctrack.pxi, docs/internals.md): a node is untracked when a later op
first takes it, if it holds nothing user code can reach; a user object attached to an
already taken node (a hook, .metadata, a post-accumulate hook) re-tracks every live
untracked node. Each test below makes one kind of cycle, drops it, and checks that
``gc.collect()`` frees it (a weak reference to a Variable in the cycle dies).
"""
import gc
import os
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


def leaf():
    return Variable(np.array([0.3, -0.2]), requires_grad=True)


def untracked_live():
    return _engine._gc_untrack_stats()[0]


def assert_collected(ref):
    gc.collect()
    assert ref() is None, "the cycle was not collected"


@pytest.fixture(autouse=True)
def clean():
    gc.collect()
    yield
    gc.collect()


# ------------------------------------------------------------------ what is untracked

def test_sealed_chain_nodes_leave_the_collector():
    x = leaf()
    y = chain(x, 50)
    nodes = []
    node = y.grad_fn
    while node is not None:
        nodes.append(node)
        nxt = [e[0] for e in node.next_functions if e[0] is not None]
        node = nxt[0] if nxt else None
    assert len(nodes) == 101                 # 100 ops and the leaf's accumulator
    assert is_tracked(nodes[0])           # the newest: nothing has taken it yet
    assert not any(is_tracked(n) for n in nodes[1:])
    assert untracked_live() >= 100
    # Untracked nodes are still freed by reference counting, and unlinked.
    before = untracked_live()
    del y, nodes, node
    assert untracked_live() <= before - 99     # the leaf (and its accumulator) live on
    # And the graph still differentiates.
    y = chain(x, 3)
    y.sum().backward()
    assert x.grad is not None


def test_graph_objects_are_not_seen_by_a_full_collection():
    x = leaf()
    y = chain(x, 200)
    gc.collect()
    seen = sum(1 for o in gc.get_objects()
               if isinstance(o, (_engine.Node, _engine.SavedVariable)))
    assert seen < 10, seen
    del y


def test_nodes_downstream_of_a_hooked_node_stay_tracked():
    x = leaf()
    y = pyad.mul(x, 2.0)
    y.register_hook(lambda g: g)             # on the newest output: pins its node only
    stats = _engine._gc_untrack_stats()
    z = chain(y, 5)
    assert _engine._gc_untrack_stats()[1] == stats[1]        # no re-track was needed
    assert is_tracked(y.grad_fn)
    n = z.grad_fn.next_functions[0][0]
    assert is_tracked(n)                  # it reaches a tracked node
    z.sum().backward()
    x2 = leaf()
    chain(pyad.mul(x2, 2.0), 5).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), x2.grad.numpy(), rtol=1e-15)


def test_custom_function_nodes_and_their_downstream_stay_tracked():
    class Twice(pyad.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            return a * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2

    x = leaf()
    y = Twice.apply(x)
    z = chain(y, 3)
    assert is_tracked(y.grad_fn)
    assert is_tracked(z.grad_fn.next_functions[0][0])


# ------------------------------------------------------------------ cycles collected

def test_variable_hook_closing_over_its_own_variable():
    x = leaf()
    y = chain(x, 10)
    y.register_hook(lambda g: g * 1.0 if y is not None else g)
    ref = weakref.ref(y)
    del y
    assert_collected(ref)


def test_node_hook_closing_over_its_own_variable():
    x = leaf()
    y = chain(x, 10)
    y.grad_fn.register_hook(lambda gi, go: None if y is None else None)
    ref = weakref.ref(y)
    del y
    assert_collected(ref)


@pytest.mark.parametrize("kind", ["node_hook", "node_prehook", "variable_hook", "metadata"])
def test_upstream_attachment_closing_over_a_downstream_variable(kind):
    # D -> D.grad_fn (untracked) -> ... -> U -> U's hook -> D, made after recording,
    # through many untracked nodes.
    x = leaf()
    up = chain(x, 20)
    down = chain(up, 20)
    mid = chain(down, 1)                     # seals down's node too
    assert not is_tracked(up.grad_fn)
    if kind == "node_hook":
        up.grad_fn.register_hook(lambda gi, go: None if down is None else None)
    elif kind == "node_prehook":
        up.grad_fn.register_prehook(lambda go: None if down is None else None)
    elif kind == "variable_hook":
        up.register_hook(lambda g: g if down is not None else g)
    else:
        up.grad_fn.metadata["keep"] = down
    assert is_tracked(up.grad_fn) and is_tracked(down.grad_fn)
    ref = weakref.ref(down)
    del up, down, mid
    assert_collected(ref)


def test_leaf_hook_closing_over_a_downstream_variable():
    x = leaf()
    y = chain(x, 10)
    chain(y, 1)
    x.register_hook(lambda g: g if y is not None else g)
    ref = weakref.ref(y)
    del y
    assert_collected(ref)
    del x


def test_post_accumulate_hook_closing_over_a_downstream_variable():
    x = leaf()
    y = chain(x, 10)
    chain(y, 1)
    x.register_post_accumulate_grad_hook(lambda p: None if y is None else None)
    ref = weakref.ref(y)
    del y
    assert_collected(ref)
    del x


def test_leaf_hook_registered_before_recording():
    x = leaf()
    x.register_hook(lambda g: g if holder else g)
    holder = [chain(x, 10)]
    ref = weakref.ref(holder[0])
    holder.append(holder)                    # and a plain cycle through the list
    del holder
    assert_collected(ref)


def test_custom_function_ctx_pointing_back_at_its_output():
    class Keep(pyad.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            out = a * 3
            return out

        @staticmethod
        def backward(ctx, g):
            return g * 3

    x = leaf()
    y = Keep.apply(chain(x, 5))
    y.grad_fn.out = y                        # ctx attribute pointing back at the output
    z = chain(y, 5)
    y.grad_fn.later = z                      # and at a Variable recorded after it
    ref_y, ref_z = weakref.ref(y), weakref.ref(z)
    del y, z
    assert_collected(ref_y)
    assert_collected(ref_z)


def test_ctx_container_filled_after_recording():
    holder = []

    class Stash(pyad.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            ctx.stash = holder
            return a + 1

        @staticmethod
        def backward(ctx, g):
            return g

    x = leaf()
    y = Stash.apply(x)
    z = chain(y, 10)
    chain(z, 1)
    holder.append(z)                         # the ctx's list now reaches z
    ref = weakref.ref(z)
    del y, z, holder
    assert_collected(ref)


def test_create_graph_param_and_grad():
    # torch documents param <-> grad as a leak with create_graph=True; pyad's grad
    # holds no strong reference back to the leaf, so there is no cycle to collect.
    x = leaf()
    y = (chain(x, 5) ** 2).sum()
    y.backward(create_graph=True)
    assert x.grad.grad_fn is not None
    ref, gref = weakref.ref(x), weakref.ref(x.grad)
    del x, y
    gc.collect()
    assert ref() is None and gref() is None


def test_retain_grad_and_hook_in_the_same_graph():
    x = leaf()
    a = chain(x, 3)
    a.retain_grad()
    b = chain(a, 3)
    c = chain(b, 1)
    a.grad_fn.register_hook(lambda gi, go: None if b is None else None)
    c.sum().backward()
    assert a.grad is not None
    ref = weakref.ref(b)
    del a, b, c
    assert_collected(ref)


def test_cycle_through_a_variable_subclass_attribute():
    class Tagged(Variable):
        pass

    x = Tagged(np.array([1.0, 2.0]), requires_grad=True)
    y = chain(x, 5)
    chain(y, 1)
    x.tag = y                                # leaf -> y -> ... -> accumulator (weak)
    y.grad_fn.metadata["x"] = x
    ref = weakref.ref(x)
    del x, y
    assert_collected(ref)


def test_new_nodes_after_a_retrack_and_a_second_cycle():
    x = leaf()
    a = chain(x, 10)
    b = chain(a, 10)
    chain(b, 1)
    a.grad_fn.register_hook(lambda gi, go: None if b is None else None)
    c = chain(b, 10)                         # recorded after the re-track
    d = chain(c, 1)
    assert is_tracked(c.grad_fn)          # downstream of the hooked node
    c.grad_fn.next_functions[0][0].register_hook(lambda gi, go: None if d is None else None)
    refs = [weakref.ref(b), weakref.ref(d)]
    del a, b, c, d
    gc.collect()
    assert all(r() is None for r in refs)


def test_unrelated_graph_after_a_retrack_is_untracked_again():
    x = leaf()
    a = chain(x, 3)
    chain(a, 1)
    a.grad_fn.register_hook(lambda gi, go: None)
    y = chain(leaf(), 5)
    assert not is_tracked(y.grad_fn.next_functions[0][0])


def test_backward_through_untracked_graph_with_hooks_added_late():
    x = Variable(np.linspace(-1, 1, 5), requires_grad=True)
    a = chain(x, 4)
    b = chain(a, 4)
    s = b.sum()
    seen = []
    a.register_hook(lambda g: seen.append(g.detach().numpy().copy()))
    s.backward()
    xt = x.detach().numpy().copy()
    torch = pytest.importorskip("torch")
    tx = torch.tensor(xt, requires_grad=True)
    ta = tx
    for _ in range(4):
        ta = torch.tanh(ta * 0.5)
    ta.retain_grad()
    tb = ta
    for _ in range(4):
        tb = torch.tanh(tb * 0.5)
    tb.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-12)
    np.testing.assert_allclose(seen[0], ta.grad.numpy(), rtol=1e-12)


def test_weakref_callback_attaching_a_hook_while_a_node_is_freed():
    # A node being freed (reference count 0, fields being cleared) is still linked
    # when a callback run by that clearing re-tracks the graph: it must be skipped.
    x = leaf()
    other = chain(leaf(), 5)
    chain(other, 1)
    t = pyad.mul(x, 2.0)
    arr = t.detach().numpy()
    w = Variable(np.array([1.5, 2.5]), requires_grad=True)
    z = pyad.mul(t, w)                        # MulBackward saves t's array
    q = pyad.mul(z, 3.0)                      # seals z's node
    assert not is_tracked(z.grad_fn)
    fired = []

    def callback(_):
        fired.append(1)
        other.grad_fn.next_functions[0][0].register_hook(lambda gi, go: None)

    ref = weakref.ref(arr, callback)
    del t, arr, z, q
    gc.collect()
    assert fired and ref() is None
    assert untracked_live() >= 0
    chain(other, 2).sum().backward()


def test_rss_flat_over_1000_cycles():
    def rss():
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")

    if not os.path.exists("/proc/self/statm"):
        pytest.skip("needs /proc")
    x = Variable(np.ones(2000), requires_grad=True)

    def one():
        a = chain(x, 3)
        b = chain(a, 3)
        chain(b, 1)
        a.grad_fn.register_hook(lambda gi, go: None if b is None else None)
        b.register_hook(lambda g: g if b is not None else g)

    for _ in range(100):
        one()
    gc.collect()
    r0 = rss()
    for i in range(1000):
        one()
        if i % 100 == 0:
            gc.collect()
    gc.collect()
    grown = rss() - r0
    # Each leaked iteration would keep ~14 arrays of 16 kB: 1000 of them ~ 200 MB.
    assert grown < 20 * 2 ** 20, grown


def test_disabling_untracking_keeps_nodes_tracked():
    old = _engine._set_gc_untrack(False)
    try:
        y = chain(leaf(), 5)
        assert is_tracked(y.grad_fn.next_functions[0][0])
    finally:
        _engine._set_gc_untrack(old)


# ------------------------------------------------------------------ one-pass sealing
#
# _seal_node collects the tracked tuples and saved values its safety check crosses and
# untracks them without a second traversal; past 32 of them it traverses again. Both
# paths must leave every container of a sealed node out of the collector's lists.

def _containers_of(node):
    """The tuples and engine objects reachable from `node` without crossing a node."""
    out, stack = [], list(gc.get_referents(node))
    while stack:
        o = stack.pop()
        if isinstance(o, tuple) or type(o).__name__ in ("SavedVariable", "_SavedOperand",
                                                         "_NodeExtra"):
            out.append(o)
            stack.extend(r for r in gc.get_referents(o) if not isinstance(r, _engine.Node))
    return out


@pytest.mark.parametrize("n_inputs", [2, 60])
def test_sealed_node_untracks_all_its_containers(n_inputs):
    # 2 inputs: a few containers (the one-pass path); 60: more than the scan keeps.
    # An edge is a (node, nr) tuple only for an output other than 0 (output 0 is the
    # node itself), so the inputs are qr's R (output 1): one edge tuple each.
    x = leaf()
    one = Variable(np.ones(1))
    parts = [pyad.linalg.qr(pyad.outer(pyad.mul(x, float(i + 1)), one))[1]
             for i in range(n_inputs)]
    y = pyad.cat(parts)
    node = y.grad_fn
    assert is_tracked(node)
    pyad.mul(y, 2.0)                          # seals it
    assert not is_tracked(node)
    containers = _containers_of(node)
    assert len(containers) >= n_inputs       # the edge tuples at least
    assert not any(is_tracked(c) for c in containers)
    y.sum().backward()
    # R of the column k*x is s*k*|x| (s = +-1), so d(sum R)/dx = (sum R) x / |x|^2
    xd = x.detach().numpy()
    np.testing.assert_allclose(x.grad.numpy(), y.detach().numpy().sum() * xd / (xd @ xd))


def test_unsafe_node_keeps_its_containers_tracked():
    # The check crosses y's edge tuples, then meets a's node, held tracked by its
    # hook: y's node is unsafe, and nothing the check crossed is untracked.
    x = leaf()
    a = pyad.mul(x, 2.0)
    a.grad_fn.register_prehook(lambda go: None)
    y = pyad.mul(a, a)
    pyad.mul(y, 2.0)                          # tries to seal y's node
    assert is_tracked(a.grad_fn) and is_tracked(y.grad_fn)
    containers = _containers_of(y.grad_fn)
    assert len(containers) >= 3              # next_functions, its edges, saved values
    assert all(is_tracked(c) for c in containers)


# ------------------------------------------------------------------ shared constants

def test_nodes_saving_the_same_number_share_one_saved_operand():
    c = 0.5
    x = leaf()
    y1, y2 = pyad.mul(x, c), pyad.mul(x, c)
    saved = [[r for r in gc.get_referents(y.grad_fn) if type(r).__name__ == "_SavedOperand"]
             for y in (y1, y2)]
    assert len(saved[0]) == 1 and saved[0][0] is saved[1][0]
    # freeing one graph (backward) leaves the other's constant usable
    y1.sum().backward()
    g1 = x.grad.numpy().copy()
    x.grad = None
    y2.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), g1)
    np.testing.assert_array_equal(g1, [0.5, 0.5])
    # and under create_graph, twice through the shared constant
    x.grad = None
    z = pyad.mul(pyad.mul(x, c), pyad.mul(x, c)).sum()     # 0.25 x^2
    (g,) = pyad.autograd.grad(z, x, create_graph=True)
    np.testing.assert_allclose(g.detach().numpy(), 0.5 * x.detach().numpy(), rtol=1e-15)
    (h,) = pyad.autograd.grad(g.sum(), x)
    np.testing.assert_allclose(h.numpy(), [0.5, 0.5], rtol=1e-15)


def test_saved_array_constants_are_not_shared():
    # An array constant is freed by backward, so each node keeps its own.
    arr = np.array([2.0, 3.0])
    x = leaf()
    y1, y2 = pyad.mul(x, arr), pyad.mul(x, arr)
    s1 = [r for r in gc.get_referents(y1.grad_fn) if type(r).__name__ == "_SavedOperand"]
    s2 = [r for r in gc.get_referents(y2.grad_fn) if type(r).__name__ == "_SavedOperand"]
    assert s1 and s2 and s1[0] is not s2[0]
    y1.sum().backward()
    x.grad = None
    y2.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), arr)


# ------------------------------------------------------- sealing deferred, in batches
#
# A node taken by a later op waits in a list; the list is sealed when the collector
# starts a collection (gc.callbacks) and whenever 1024 nodes wait. These tests read the
# raw gc.is_tracked, without the helper's seal.

def walk(y):
    nodes, node = [], y.grad_fn
    while node is not None:
        nodes.append(node)
        nxt = [e[0] for e in node.next_functions if e[0] is not None]
        node = nxt[0] if nxt else None
    return nodes


def test_taken_nodes_wait_until_a_collection_starts():
    x = leaf()
    y = chain(x, 50)
    nodes = walk(y)
    assert _engine._gc_pending_count() >= 100
    assert all(gc.is_tracked(n) for n in nodes)      # waiting: still tracked (safe)
    gc.collect()
    assert _engine._gc_pending_count() == 0
    assert gc.is_tracked(nodes[0]) and not any(gc.is_tracked(n) for n in nodes[1:])


def test_an_automatic_collection_seals_the_waiting_nodes():
    y = chain(leaf(), 20)
    nodes = walk(y)
    assert _engine._gc_pending_count() > 0
    collections = gc.get_stats()[0]["collections"]
    junk = [[] for _ in range(5 * gc.get_threshold()[0])]   # allocations start gen 0
    assert gc.get_stats()[0]["collections"] > collections
    assert _engine._gc_pending_count() == 0
    assert not any(gc.is_tracked(n) for n in nodes[1:])
    del junk


def test_a_full_batch_is_sealed_without_a_collection():
    gc.disable()
    try:
        x = leaf()
        y = chain(x, 600)                          # 1201 nodes taken
        nodes = walk(y)
        assert _engine._gc_pending_count() < 1024
        assert not any(gc.is_tracked(n) for n in nodes[-1000:])   # the oldest
    finally:
        gc.enable()


def test_nodes_freed_while_waiting_leave_the_list():
    before = _engine._gc_pending_count()
    x = leaf()
    y = chain(x, 100)
    assert _engine._gc_pending_count() >= before + 200
    del y
    assert _engine._gc_pending_count() <= before + 1      # (the leaf's accumulator)
    z = chain(x, 3)
    z.sum().backward()
    gc.collect()
    v, g = x.data.copy(), np.ones(2)
    ts = []
    for _ in range(3):
        v = np.tanh(0.5 * v)
        ts.append(v)
    for t in reversed(ts):
        g = g * (1 - t * t) * 0.5
    np.testing.assert_allclose(x.grad.data, g, rtol=1e-14)
    assert _engine._gc_pending_count() == 0


@pytest.mark.parametrize("kind", ["hook", "metadata"])
def test_attachment_to_a_waiting_node_keeps_it_tracked(kind):
    x = leaf()
    up = chain(x, 3)
    down = chain(up, 3)
    node = up.grad_fn
    assert gc.is_tracked(node) and _engine._gc_pending_count() > 0
    if kind == "hook":
        node.register_hook(lambda gi, go: None if down is None else None)
    else:
        node.metadata["keep"] = down
    gc.collect()
    assert gc.is_tracked(node) and gc.is_tracked(down.grad_fn)
    ref = weakref.ref(down)
    del up, down, node
    assert_collected(ref)
