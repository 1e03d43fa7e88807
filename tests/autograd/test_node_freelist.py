"""The engine's node classes reuse freed node memory (pyad/_nodealloc.pxi, issue 19
item 1). A node made from a reused block must be indistinguishable from a fresh one:
no field, hook, weak reference or collector state of the node that had the memory
before may show through, and graphs built from reused nodes give the same gradients.
"""
import gc
import weakref

import numpy as np
import pytest

import pyad
from pyad import Variable
from pyad import _engine


def stats():
    types, held, reused = _engine._node_freelist_stats()
    return types, held, reused


def chain(x, n):
    for _ in range(n):
        x = pyad.tanh(x * 1.5 + 0.25) - 0.1
    return x


def reference_gradient(x0, n):
    # d/dx of sum(chain(x, n)) by hand: each step is tanh(1.5 x + 0.25) - 0.1
    x, g = x0.copy(), np.ones_like(x0)
    ts = []
    for _ in range(n):
        t = np.tanh(1.5 * x + 0.25)
        ts.append(t)
        x = t - 0.1
    for t in reversed(ts):
        g = g * (1.0 - t * t) * 1.5
    return g


def test_engine_node_classes_are_served_and_python_subclasses_are_not():
    types, _, _ = stats()
    names = {t.__name__ for t in types}
    assert {"MulBackward", "AddBackward", "SubBackward", "TanhBackward",
            "AccumulateGrad", "SumBackward"} <= names
    assert all(not (t.__flags__ & (1 << 9)) for t in types)      # no heap type

    class Square(pyad.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, g):
            x, = ctx.saved_tensors
            return 2 * g * x

    x = Variable(np.array([1.0, -2.0]), requires_grad=True)
    y = Square.apply(x)
    assert type(y.grad_fn) not in types
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.data, [2.0, -4.0])


def test_freed_nodes_are_reused_and_the_gradients_stay_right():
    x0 = np.array([0.3, -1.2, 2.0])
    expected = reference_gradient(x0, 20)
    _, _, before = stats()
    for _ in range(5):
        x = Variable(x0.copy(), requires_grad=True)
        chain(x, 20).sum().backward()
        np.testing.assert_allclose(x.grad.data, expected, rtol=1e-14)
    _, held, after = stats()
    assert after - before >= 4 * 20 * 4          # later rounds' nodes came from the list
    assert held > 0


def test_a_reused_node_shows_nothing_of_the_node_before_it():
    x = Variable(np.array([0.5, -0.5]), requires_grad=True)
    drained = [x * 1.0 for _ in range(600)]       # the list of this size is empty now
    y = x * 2.0
    node = y.grad_fn
    node.register_hook(lambda gi, go: None)
    node.register_prehook(lambda go: None)
    node.metadata["tag"] = "old"
    y.retain_grad()
    ref, address = weakref.ref(node), id(node)
    del node, y
    assert ref() is None                          # the old node is gone ...
    z = x * 3.0                                  # ... and its block serves this one
    fresh = z.grad_fn
    assert id(fresh) == address
    assert ref() is None                          # a weak reference never revives
    assert type(fresh).__name__ == "MulBackward"
    assert fresh.metadata == {}
    assert fresh.next_functions[0][0] is x.grad_fn or fresh.next_functions[0][1] == 0
    assert fresh.next_functions[1] == (None, 0)
    assert gc.is_tracked(fresh)                   # a new node starts tracked (unsealed)
    z.sum().backward()
    np.testing.assert_array_equal(x.grad.data, [3.0, 3.0])
    assert not z.retains_grad
    del drained


def test_cycles_through_reused_nodes_are_still_collected():
    # build and free graphs so that the next nodes come from the freelist
    for _ in range(3):
        x = Variable(np.ones(3), requires_grad=True)
        chain(x, 10).sum().backward()
    _, _, before = stats()
    x = Variable(np.ones(3), requires_grad=True)
    y = chain(x, 5)
    y.register_hook(lambda g, y=y: g)            # y -> its node -> hook -> y
    assert stats()[2] > before
    ref = weakref.ref(y)
    del y, x
    gc.collect()
    assert ref() is None


def test_the_freelist_is_bounded():
    xs = [Variable(np.ones(1), requires_grad=True) for _ in range(3)]
    graphs = [chain(x, 2000) for x in xs]         # 24,000 nodes alive at once
    del graphs
    gc.collect()
    types, held, _ = stats()
    sizes = {t.__basicsize__ for t in types}
    assert 0 < held <= 512 * len(sizes)


@pytest.mark.parametrize("create_graph", [False, True])
def test_second_order_through_reused_nodes(create_graph):
    for _ in range(2):
        x = Variable(np.array([0.2, -0.7]), requires_grad=True)
        g, = pyad.autograd.grad((pyad.tanh(x) ** 3).sum(), x, create_graph=True)
        h, = pyad.autograd.grad(g.sum(), x, create_graph=create_graph)
        t = np.tanh(x.data)
        np.testing.assert_allclose(g.data, 3 * t ** 2 * (1 - t ** 2), rtol=1e-14)
        np.testing.assert_allclose(h.data, 6 * t * (1 - 2 * t ** 2) * (1 - t ** 2),
                                   rtol=1e-13)
