"""The cheap paths of a backward pass (issue 19, the fixed cost of backward()/grad()):
small reduction gradients materialised instead of broadcast views, the implicit ones
of a scalar root made through the C API, the outermost pass keeping "which nodes run"
and "which are captured" as node flags instead of sets, and the task objects reused
between passes. Each scenario checks that nothing observable changed: gradients
against torch on the same inputs, the nested (dict) pass against the outermost (flag)
pass, hooks, repeated and unreachable inputs, and that a gradient the engine hands out
can be changed in place without changing any other Variable.
"""
import numpy as np
import pytest

import pyad
from pyad import Variable
from pyad.autograd import Function, grad, gradcheck, gradgradcheck
from _torch_compare import torch, LIBS, both, as_np

needs_torch = pytest.mark.skipif(torch is None, reason="torch is not installed")

# shapes around the materialise/view crossover (pyad materialises up to 4096 elements)
SHAPES = [(), (0,), (1,), (16,), (3, 4), (2, 0, 3), (64, 64), (4097,), (3, 2000)]


def _data(shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape)


def _var(lib, a, requires_grad=True):
    if lib is pyad:
        return Variable(a.copy(), requires_grad=requires_grad)
    return torch.tensor(a.copy(), requires_grad=requires_grad)


def _reduction_cases():
    for shape in SHAPES:
        yield shape, "sum", None, False
        yield shape, "mean", None, False
        for d in range(len(shape)):
            yield shape, "sum", d, False
            yield shape, "sum", d, True
            if shape[d] != 0:
                yield shape, "mean", d, True
                yield shape, "mean", d, False


def _reduce(lib, x, op, dim, keepdim):
    f = getattr(lib, op)
    if dim is None:
        return f(x)
    return f(x, dim, keepdim)


@needs_torch
@pytest.mark.parametrize("shape,op,dim,keepdim", list(_reduction_cases()))
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_reduction_gradient_matches_torch(shape, op, dim, keepdim, dtype):
    a = _data(shape).astype(dtype)
    results = []
    for lib in LIBS:
        x = _var(lib, a)
        y = _reduce(lib, x, op, dim, keepdim)
        go = _data(tuple(y.shape), seed=1).astype(dtype)
        y.backward(_var(lib, go, requires_grad=False))
        g = x.grad
        assert tuple(g.shape) == shape
        results.append((as_np(g), str(g.dtype).replace("torch.", "")))
    (gp, dp), (gt, dt) = results
    assert dp == dt
    np.testing.assert_allclose(gp, gt, rtol=1e-6 if dtype == np.float32 else 1e-12, atol=0)


@needs_torch
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("op", ["sum", "mean"])
def test_scalar_root_implicit_gradient_matches_torch(shape, op):
    # the implicit ones of the root, then the 0-d gradient expanded over the input
    if op == "mean" and 0 in shape:
        pytest.skip("the mean of nothing is nan, its gradient empty (checked elsewhere)")
    a = _data(shape)
    got = []
    for lib in LIBS:
        x = _var(lib, a)
        _reduce(lib, x, op, None, False).backward()
        got.append(as_np(x.grad))
    np.testing.assert_allclose(got[0], got[1], rtol=1e-15, atol=0)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_implicit_root_gradient_keeps_the_dtype(dtype):
    x = Variable(np.arange(3, dtype=dtype), requires_grad=True)
    (g,) = grad(x.sum(), x)
    assert g.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(g.data, np.ones(3, dtype))
    y = (x * 2).sum().reshape(1, 1)       # a (1, 1) root: one element, implicit too
    y.backward()
    np.testing.assert_array_equal(x.grad.data, np.full(3, 2, dtype))


def test_non_native_byte_order_gradient_takes_the_general_path():
    a = np.arange(4.0).astype(">f8")
    x = Variable(a, requires_grad=True)
    y = x.sum()
    y.backward(Variable(np.array(3.0).astype(">f8")))
    np.testing.assert_array_equal(np.asarray(x.grad.data, dtype=np.float64), [3.0] * 4)


@needs_torch
@pytest.mark.parametrize("make", ["transposed", "strided", "broadcast"])
def test_reduction_of_non_contiguous_and_broadcast_inputs_matches_torch(make):
    a = _data((4, 6))
    got = []
    for lib in LIBS:
        x = _var(lib, a)
        if make == "transposed":
            y = x.t()
        elif make == "strided":
            y = x[::2, ::3]
        else:
            y = x[:1].expand(5, 6) if lib is torch else pyad.expand(x[:1], 5, 6)
        (y.sum(0) * lib.arange(y.shape[1], dtype=lib.float64)).sum().backward()
        got.append(as_np(x.grad))
    np.testing.assert_array_equal(got[0], got[1])


@needs_torch
@pytest.mark.parametrize("shape", [(), (0,), (5,), (2, 3)])
def test_expand_gradient_matches_torch(shape):
    a = _data(shape)
    target = (4,) + shape
    got = []
    for lib in LIBS:
        x = _var(lib, a)
        y = x.expand(*target) if lib is torch else pyad.expand(x, *target)
        (y * _var(lib, _data(target, 2), False)).sum().backward()
        got.append(as_np(x.grad))
    np.testing.assert_allclose(got[0], got[1], rtol=1e-14, atol=0)


@needs_torch
def test_nan_and_inf_flow_through_the_expanded_gradient():
    for go in [np.nan, np.inf, -np.inf]:
        got = []
        for lib in LIBS:
            x = _var(lib, _data((3, 2)))
            x.sum().backward(_var(lib, np.array(go), False))
            got.append(as_np(x.grad))
        np.testing.assert_array_equal(got[0], got[1])


@pytest.mark.parametrize("shape,dim", [((5,), None), ((3, 4), 1), ((3, 4), 0), ((2, 3, 2), (0, 2))])
@pytest.mark.parametrize("op", ["sum", "mean"])
def test_reduction_gradcheck_and_gradgradcheck(shape, dim, op):
    x = Variable(_data(shape), requires_grad=True)

    def f(x):
        y = getattr(pyad, op)(x) if dim is None else getattr(pyad, op)(x, dim)
        return (y * y).sum() if dim is None else y * y

    assert gradcheck(f, (x,))
    assert gradgradcheck(f, (x,))


# -- handed-out buffers can be changed in place without changing anything else ----------

@pytest.mark.parametrize("n", [16, 5000])
def test_gradient_of_sum_is_not_shared_between_leaves(n):
    # Add passes one gradient to both operands: the two .grad must not share memory.
    a = Variable(np.zeros(n), requires_grad=True)
    b = Variable(np.zeros(n), requires_grad=True)
    (a + b).sum().backward()
    assert not np.shares_memory(a.grad.data, b.grad.data)
    a.grad.data += 1
    a.grad += 1
    np.testing.assert_array_equal(b.grad.data, np.ones(n))
    np.testing.assert_array_equal(a.grad.data, np.full(n, 3.0))


@pytest.mark.parametrize("n", [16, 5000])
def test_gradient_returned_by_grad_can_be_changed_in_place(n):
    x = Variable(np.arange(float(n)), requires_grad=True)
    go = Variable(np.array(2.0))
    y = x.sum()
    (g1,) = grad(y, x, go, retain_graph=True)
    if g1.data.flags.writeable:          # (big: a read-only broadcast view)
        g1.data[...] += 5
    (g2,) = grad(y, x, go)
    np.testing.assert_array_equal(g2.data, np.full(n, 2.0))
    assert float(go.data) == 2.0
    np.testing.assert_array_equal(x.data, np.arange(float(n)))


@pytest.mark.parametrize("n", [16, 5000])
def test_accumulating_into_a_leaf_grad_changes_nothing_else(n):
    x = Variable(np.ones(n), requires_grad=True)
    y = x * 1.0
    y.retain_grad()
    s = y.sum() + x.sum()        # x gets two gradients, summed in the engine's buffer
    s.backward()
    np.testing.assert_array_equal(x.grad.data, np.full(n, 2.0))
    np.testing.assert_array_equal(y.grad.data, np.ones(n))
    x.grad.data += 10
    np.testing.assert_array_equal(y.grad.data, np.ones(n))
    s2 = x.mean()
    s2.backward()                # accumulated in place into x.grad
    np.testing.assert_allclose(x.grad.data, np.full(n, 12.0 + 1.0 / n))
    np.testing.assert_array_equal(y.grad.data, np.ones(n))


def test_sum_backward_gradient_is_fresh_when_small_and_a_view_when_big():
    # what the engine does (not torch-visible): small -> own writable buffer, big ->
    # read-only broadcast view (no memory); either way .grad is writable
    for n, fresh in [(16, True), (4096, True), (4097, False)]:
        x = Variable(np.ones(n), requires_grad=True)
        y = x.sum()
        with pyad.no_grad():             # (as in a plain backward pass)
            (g,) = y.grad_fn(Variable(np.array(1.0)))
        assert g.data.flags.writeable == fresh
        assert (g.data.base is None) == fresh
        y.backward()
        assert x.grad.data.flags.writeable


# -- the outermost pass (node flags) against a nested pass (dicts) -----------------------

def _nested(fn):
    """Run fn() inside a custom Function's backward (a nested engine pass) and return
    what it returned."""
    box = []

    class Probe(Function):
        @staticmethod
        def forward(ctx, x):
            return x.clone()

        @staticmethod
        def backward(ctx, g):
            with pyad.enable_grad():
                box.append(fn())
            return g

    t = Variable(np.ones(1), requires_grad=True)
    Probe.apply(t).sum().backward()
    return box[0]


def _graph():
    x = Variable(np.array([0.5, -1.0, 2.0]), requires_grad=True)
    w = Variable(np.array([1.5, 0.25, -2.0]), requires_grad=True)
    h = pyad.tanh(x * w)          # a non-leaf input, reached through two paths below
    y = (h * x).sum() + (h ** 2).mean() + w.sum()
    return x, w, h, y


@pytest.mark.parametrize("nested", [False, True])
def test_grad_of_leaves_non_leaf_repeated_and_unused_inputs(nested):
    def run():
        x, w, h, y = _graph()
        u = Variable(np.ones(2), requires_grad=True)       # not in the graph
        gs = grad(y, (x, h, w, x, u), allow_unused=True)
        return [None if g is None else g.data.copy() for g in gs]

    got = _nested(run) if nested else run()
    x, w, h, y = _graph()
    gx, gh, gw = grad(y, (x, h, w))
    assert got[4] is None
    np.testing.assert_array_equal(got[0], gx.data)
    np.testing.assert_array_equal(got[3], gx.data)
    np.testing.assert_array_equal(got[1], gh.data)
    np.testing.assert_array_equal(got[2], gw.data)
    if torch is not None:
        tx = torch.tensor([0.5, -1.0, 2.0], dtype=torch.float64, requires_grad=True)
        tw = torch.tensor([1.5, 0.25, -2.0], dtype=torch.float64, requires_grad=True)
        th = torch.tanh(tx * tw)
        ty = (th * tx).sum() + (th ** 2).mean() + tw.sum()
        tg = torch.autograd.grad(ty, (tx, th, tw))
        for a, b in zip((got[0], got[1], got[2]), tg):
            np.testing.assert_allclose(a, b.numpy(), rtol=1e-14, atol=1e-15)


@pytest.mark.parametrize("nested", [False, True])
def test_grad_runs_only_nodes_leading_to_the_inputs_and_their_hooks(nested):
    def run():
        calls = []
        x, w, h, y = _graph()
        h.register_hook(lambda g: calls.append("h"))
        w.register_hook(lambda g: calls.append("w"))
        y.grad_fn.register_prehook(lambda g: calls.append("root") or None)
        (gh,) = grad(y, h)
        return calls, gh.data.copy()

    calls, gh = _nested(run) if nested else run()
    # h's hook changes what is captured; w's sink does not lead to h: not run
    assert sorted(calls) == ["h", "root"]
    x, w, h, y = _graph()
    np.testing.assert_array_equal(gh, grad(y, h)[0].data)


@pytest.mark.parametrize("nested", [False, True])
def test_backward_inputs_leaf_and_non_leaf(nested):
    def run():
        x, w, h, y = _graph()
        y.backward(inputs=[h, x])
        return x.grad.data.copy(), h.grad.data.copy(), w.grad

    gx, gh, gw = _nested(run) if nested else run()
    assert gw is None
    x, w, h, y = _graph()
    ex, eh = grad(y, (x, h))
    np.testing.assert_array_equal(gx, ex.data)
    np.testing.assert_array_equal(gh, eh.data)


def test_unreached_input_keeps_no_flag_for_the_next_pass():
    # grad() w.r.t. an input its outputs do not reach, then an ordinary backward
    # through that input: its sink must accumulate as usual.
    x = Variable(np.ones(3), requires_grad=True)
    z = Variable(np.ones(3), requires_grad=True)
    zz = z * 1.0                              # z's sink exists, outside x's graph
    assert grad((x * 2).sum(), (x, z), allow_unused=True)[1] is None
    assert grad((x * 2).sum(), (x, zz), allow_unused=True)[1] is None
    (zz * 3).sum().backward()
    np.testing.assert_array_equal(z.grad.data, [3.0] * 3)
    (x * 2).sum().backward()
    np.testing.assert_array_equal(x.grad.data, [2.0] * 3)


def test_a_pass_that_raises_leaves_the_next_one_clean():
    x = Variable(np.ones(3), requires_grad=True)
    y = (pyad.tanh(x) * x).sum()

    def bad(g):
        raise ValueError("boom")

    h = pyad.tanh(x)
    h.register_hook(bad)
    with pytest.raises(ValueError, match="boom"):
        grad((h * x).sum() + y, x)
    (g,) = grad(y, x, retain_graph=True)
    y.backward()
    np.testing.assert_allclose(x.grad.data, g.data)
    t = np.tanh(1.0)
    np.testing.assert_allclose(g.data, [(1 - t * t) + t] * 3, rtol=1e-15)


def test_reentrant_grad_inside_backward_matches_the_outer_pass():
    x = Variable(np.array([0.3, -0.7]), requires_grad=True)

    def f():
        y = (pyad.tanh(x) ** 3).sum()
        return grad(y, x)[0].data.copy()

    outer = f()
    inner = _nested(f)
    np.testing.assert_array_equal(outer, inner)
    t = np.tanh(x.data)
    np.testing.assert_allclose(outer, 3 * t ** 2 * (1 - t ** 2), rtol=1e-14)


@needs_torch
def test_hvp_matches_torch():
    a = _data((16,))
    v = _data((16,), 3)
    out = []
    for lib in LIBS:
        x = _var(lib, a)
        f = (lib.tanh(x) ** 3).sum()
        ag = lib.autograd
        (g,) = ag.grad(f, x, create_graph=True)
        (hv,) = ag.grad((g * _var(lib, v, False)).sum(), x)
        out.append(as_np(hv))
    np.testing.assert_allclose(out[0], out[1], rtol=1e-13, atol=1e-15)
