"""A node's edges (issue 19 item 1): stored without a tuple per edge, shown as torch's.

The engine keeps one or two edge entries in the node itself and more in one tuple; an
entry is None (no gradient), the next node (its output 0) or a (node, nr) pair. These
tests check that ``Node.next_functions`` still has torch's exact structure for nodes
of every edge count, that backward runs through all of them, and that long graphs of
each kind are freed without recursion.
"""

import gc
import re
import sys
import weakref

import numpy as np
import pytest

import pyad
from pyad import Variable
from pyad import _engine

torch = pytest.importorskip("torch")


def _name(node):
    # pyad's node names are torch's without the overload number ("MulBackward0")
    # and without the "Linalg" namespace prefix.
    n = re.sub(r"\d+$", "", type(node).__name__)
    return n[len("Linalg"):] if n.startswith("Linalg") else n


def _structure(node, depth=4):
    """The graph below `node` as nested (name, ((child, nr), ...)) tuples."""
    if node is None:
        return None
    if depth == 0:
        return _name(node)
    nf = node.next_functions
    assert type(nf) is tuple
    for pair in nf:
        assert type(pair) is tuple and len(pair) == 2
        assert pair[0] is None or isinstance(pair[0], (_engine.Node, torch.autograd.graph.Node))
        assert type(pair[1]) is int
    return (_name(node), tuple((_structure(n, depth - 1), nr) for n, nr in nf))


X = np.array([0.3, -0.2, 0.5])
W = np.array([1.0, 2.0, 3.0])


def _inputs(lib):
    x = lib.tensor(X.copy(), requires_grad=True)
    w = lib.tensor(W.copy(), requires_grad=True)
    c = lib.tensor(W.copy() * 0.5)
    return x, w, c


# Each builds one output from (x, w, c) (x, w leaves requiring grad, c constant) with
# the same ops in pyad and torch; the comment gives the root node's edge count.
CASES = {
    "leaf_accumulate_0": lambda lib, x, w, c: (x * 1.0).grad_fn.next_functions[0][0],
    "tanh_1": lambda lib, x, w, c: lib.tanh(x),
    "mul_scalar_2_none": lambda lib, x, w, c: x * 2.0,
    "mul_const_2_none_first": lambda lib, x, w, c: c * x,
    "mul_2": lambda lib, x, w, c: x * w,
    "same_leaf_twice_2": lambda lib, x, w, c: x * x,
    "clamp_3_none": lambda lib, x, w, c: lib.clamp(x, c * 0 - 0.1, w),
    "cat_3": lambda lib, x, w, c: lib.cat([x, w, x]),
    "cat_4_none": lambda lib, x, w, c: lib.cat([x, c, w, x]),
    "cat_5_nonleaf": lambda lib, x, w, c: lib.cat([lib.tanh(x), c, x * w, w, x]),
    "sum_1": lambda lib, x, w, c: (x * w).sum(),
    "nr1_var_mean": lambda lib, x, w, c: lib.var_mean(x)[1] * 1.0,
    "nr1_qr": lambda lib, x, w, c: lib.linalg.qr(lib.tanh(x).reshape(3, 1) * w)[1] * 1.0,
    "nr0_max_dim": lambda lib, x, w, c: lib.max((x * w).reshape(3, 1), dim=0)[0] * 1.0,
    "chain_mixed": lambda lib, x, w, c: lib.cat([lib.tanh(x * w + 1.0) - c, x]).sum(),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_next_functions_have_torchs_structure(case):
    f = CASES[case]
    out_p = f(pyad, *_inputs(pyad))
    out_t = f(torch, *_inputs(torch))
    node_p = out_p if isinstance(out_p, _engine.Node) else out_p.grad_fn
    node_t = out_t if not isinstance(out_t, torch.Tensor) else out_t.grad_fn
    assert _structure(node_p) == _structure(node_t)


def test_next_functions_counts_and_entries():
    x, w, c = _inputs(pyad)
    acc = (x * 1.0).grad_fn.next_functions[0][0]
    assert acc.name() == "AccumulateGrad" and acc.next_functions == ()
    t = pyad.tanh(x)
    assert t.grad_fn.next_functions == ((acc, 0),)
    m = x * 2.0
    assert m.grad_fn.next_functions == ((acc, 0), (None, 0))
    m2 = c * x
    assert m2.grad_fn.next_functions == ((None, 0), (acc, 0))
    k = pyad.cat([t, c, x])
    assert k.grad_fn.next_functions == ((t.grad_fn, 0), (None, 0), (acc, 0))
    v, mean = pyad.var_mean(x)
    y = mean * v
    assert y.grad_fn.next_functions == ((v.grad_fn, 1), (v.grad_fn, 0))
    assert mean.grad_fn is v.grad_fn
    # a fresh tuple of fresh pairs each time (the node's own storage is never handed out)
    assert y.grad_fn.next_functions is not y.grad_fn.next_functions
    assert y.grad_fn.next_functions[0] is not y.grad_fn.next_functions[0]


def test_next_functions_after_backward_releases_saved_values():
    x, w, c = _inputs(pyad)
    y = pyad.cat([x * w, c, pyad.tanh(x)])
    before = y.grad_fn.next_functions
    y.sum().backward()
    assert y.grad_fn.next_functions == before


def _every_edge_count(lib, x, w, c):
    # nodes with 1, 2 (one of them None), 3, 4 (with None), 5 edges, and entries with
    # output_nr 1 (var_mean's mean) and 0 of a two-output node.
    a = lib.tanh(x)                                  # 1
    b = a * w                                        # 2
    d = b * 0.5                                      # 2, (None, 0)
    e = lib.clamp(d, c * 0 - 1.0, w)                 # 3
    var, mean = lib.var_mean(e)                      # nr 0 and 1 of one node
    f = lib.cat([e, c, x * mean, b])                 # 4, with (None, 0)
    g = lib.cat([f, f * var, lib.sin(f), f, lib.exp(f)])   # 5
    return (g * g).sum()


def test_backward_through_every_edge_count_matches_torch():
    xp, wp, cp = _inputs(pyad)
    xt, wt, ct = _inputs(torch)
    _every_edge_count(pyad, xp, wp, cp).backward()
    _every_edge_count(torch, xt, wt, ct).backward()
    np.testing.assert_allclose(xp.grad.numpy(), xt.grad.numpy(), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(wp.grad.numpy(), wt.grad.numpy(), rtol=1e-12, atol=1e-12)


def test_gradcheck_through_every_edge_count():
    c = Variable(W * 0.5)

    def fn(x, w):
        return _every_edge_count(pyad, x, w, c)

    x = Variable(X.copy(), requires_grad=True)
    w = Variable(W.copy(), requires_grad=True)
    assert pyad.autograd.gradcheck(fn, (x, w))
    assert pyad.autograd.gradgradcheck(fn, (x, w))


def test_grad_and_retain_graph_through_every_edge_count():
    x, w, c = _inputs(pyad)
    y = _every_edge_count(pyad, x, w, c)
    g1 = pyad.autograd.grad(y, (x, w), retain_graph=True)
    g2 = pyad.autograd.grad(y, (w,), retain_graph=True)      # only part of the graph
    y.backward()
    np.testing.assert_array_equal(g1[1].numpy(), g2[0].numpy())
    np.testing.assert_array_equal(g1[0].numpy(), x.grad.numpy())
    np.testing.assert_array_equal(g1[1].numpy(), w.grad.numpy())


@pytest.mark.parametrize("n_edges", [1, 2, 3, 5])
def test_calling_a_node_returns_one_gradient_per_edge(n_edges):
    x, w, c = _inputs(pyad)
    parts = [x, c, w, x, x][:n_edges]
    y = pyad.cat(parts) if n_edges != 2 else x * c
    if n_edges == 1:
        y = pyad.tanh(x)
    g = Variable(np.ones(y.shape))
    out = y.grad_fn(g)
    assert isinstance(out, tuple) and len(out) == n_edges
    assert len(out) == len(y.grad_fn.next_functions)
    for (node, _), grad in zip(y.grad_fn.next_functions, out):
        if node is None:
            assert grad is None
    assert y.grad_fn(None) == (None,) * n_edges


@pytest.mark.parametrize("kind", ["one", "two", "two_none", "three", "tuple_nr1"])
def test_deep_graph_of_each_edge_kind_is_freed_without_recursion(kind):
    n = 10 ** 5
    x = Variable(np.ones(1), requires_grad=True)
    c = Variable(np.ones(1))
    y = x
    first = None
    for i in range(n):
        if kind == "one":
            y = pyad.neg(y)
        elif kind == "two":
            y = y * x
        elif kind == "two_none":
            y = y * 1.0
        elif kind == "three":
            y = pyad.cat([y, c, y])[:1]
        else:
            y = pyad.var_mean(pyad.cat([y, c, x]))[1].reshape(1)
        if first is None:
            first = weakref.ref(y.grad_fn)
    gc.collect()
    assert first() is not None
    limit = sys.getrecursionlimit()
    del y                                        # frees the whole chain, iteratively
    assert sys.getrecursionlimit() == limit
    assert first() is None


def test_cycle_through_a_node_of_each_kind_is_collected():
    # A hook closing over its own output makes a cycle through the node; the collector
    # must clear the node's inline edges and its edge tuple alike.
    for build in (lambda x, c: pyad.tanh(x), lambda x, c: x * c,
                  lambda x, c: pyad.cat([x, c, x, c])):
        x = Variable(np.ones(2), requires_grad=True)
        c = Variable(np.ones(2))
        y = build(x, c)
        y.grad_fn.register_hook(lambda gi, go, y=y: None)
        ref = weakref.ref(y.grad_fn)
        del y
        gc.collect()
        assert ref() is None
        # the leaf and its accumulator are still fine
        (pyad.cat([x, c, x]) * 2.0).sum().backward()
        np.testing.assert_array_equal(x.grad.numpy(), [4.0, 4.0])


# -- a number operand's place in next_functions, as torch's --------------------------

_NUMBER_FORMS = {
    "2 * b": lambda lib, b: 2 * b, "2.5 + b": lambda lib, b: 2.5 + b,
    "2 - b": lambda lib, b: 2 - b, "rsub(b, 3)": lambda lib, b: lib.rsub(b, 3.0),
    "2 / b": lambda lib, b: 2 / b, "b * 2": lambda lib, b: b * 2, "b - 2": lambda lib, b: b - 2,
    "add(2, b)": lambda lib, b: lib.add(2, b), "sub(2, b)": lambda lib, b: lib.sub(2, b),
    "mul(2, b)": lambda lib, b: lib.mul(2, b), "b.clone()": lambda lib, b: b.clone(),
    "2.0 * b (float64)": lambda lib, b: 2.0 * b.double(),
}


@pytest.mark.parametrize("form", list(_NUMBER_FORMS))
def test_number_operand_edges_and_gradients_match_torch(form):
    seen = []
    for lib in (torch, pyad):
        a = lib.tensor([0.5, -1.0], requires_grad=True)
        b = lib.sin(a)
        r = _NUMBER_FORMS[form](lib, b)
        fn = r.grad_fn
        while type(fn).__name__ in ("ToCopyBackward0", "ToCopyBackward"):   # (.double())
            fn = fn.next_functions[0][0]
        name = type(fn).__name__.rstrip("0123456789")
        edges = tuple(None if n is None else type(n).__name__.rstrip("0123456789")
                      for n, _ in fn.next_functions)
        r.sum().backward()
        seen.append((name, edges, a.grad.detach().numpy().tolist()))
    assert seen[0][:2] == seen[1][:2]
    np.testing.assert_allclose(seen[1][2], seen[0][2], rtol=1e-6)


def _shaped_inputs():
    # 0-d, empty, non-contiguous (a transposed view) and a plain matrix, float64
    base = np.arange(1.0, 7.0).reshape(2, 3) / 7.0
    return {"0-d": np.array(0.3), "empty": np.zeros((0, 3)), "plain": base,
            "non-contiguous": base.T}


@pytest.mark.parametrize("kind", list(_shaped_inputs()))
@pytest.mark.parametrize("form", ["2.5 - x", "rsub(x, 2.5)", "x.clone()",
                                  "x.t().contiguous()", "2 * x + 1"])
def test_rsub_and_clone_gradients_first_and_second_order(kind, form):
    fns = {"2.5 - x": lambda x: (2.5 - x) * x, "rsub(x, 2.5)": lambda x: pyad.rsub(x, 2.5) * x,
           "x.clone()": lambda x: x.clone() * x, "x.t().contiguous()":
           lambda x: x.t().contiguous() if x.dim() == 2 else x.contiguous() * x,
           "2 * x + 1": lambda x: (2 * x + 1) * x}
    a = _shaped_inputs()[kind]
    x = pyad.tensor(a, dtype=pyad.float64, requires_grad=True) if kind != "non-contiguous" \
        else pyad.tensor(a.T.copy(), dtype=pyad.float64).t().requires_grad_()
    assert pyad.autograd.gradcheck(fns[form], (x,))
    assert pyad.autograd.gradgradcheck(fns[form], (x,))
    # and against torch on the same input
    t = torch.tensor(a, requires_grad=True)
    torch_fns = {"2.5 - x": lambda x: (2.5 - x) * x, "rsub(x, 2.5)": lambda x: torch.rsub(x, 2.5) * x,
                 "x.clone()": lambda x: x.clone() * x, "x.t().contiguous()":
                 lambda x: x.t().contiguous() if x.dim() == 2 else x.contiguous() * x,
                 "2 * x + 1": lambda x: (2 * x + 1) * x}
    out, ref = fns[form](x), torch_fns[form](t)
    np.testing.assert_allclose(out.detach().numpy(), ref.detach().numpy(), rtol=1e-15)
    g = np.linspace(-1.0, 1.0, ref.numel()).reshape(ref.shape)
    out.backward(pyad.tensor(g))
    ref.backward(torch.tensor(g))
    np.testing.assert_allclose(x.grad.numpy(), t.grad.numpy(), rtol=1e-15)
