"""The operators' fast path (``x * 2.0``, ``x + y``, ``1 - x`` on plain float arrays;
issue 19 item 1, ``_fast_binop`` in ops/elementwise.pxi).

The fast path must give exactly what the general path (the op called as a function:
``pyad.mul``, ``pyad.add``, ``pyad.sub``, ``pyad.rsub``) gives: values, dtypes, flags,
``grad_fn`` and its edges, gradients (first and second order), version checks, errors;
and it must not be taken outside its common case. ``_fast_binop_count()`` says whether
it was taken. Values are compared with PyTorch on the same inputs too.
"""
import operator

import numpy as np
import pytest

import pyad
from pyad import _engine
from pyad.autograd import gradcheck, gradgradcheck

OPS = {"add": operator.add, "sub": operator.sub, "mul": operator.mul}


def _general(name, a, b):
    # The same computation through the op as a function (never the fast path): what
    # the general operator methods call. A number on the left is recorded as torch
    # records it: `2.0 + x` as add(x, 2.0), `2.0 * x` as mul(x, 2.0) (the Variable's
    # edge first) and `2.0 - x` as rsub(x, 2.0) (one edge).
    if not isinstance(a, pyad.Variable):
        return getattr(pyad, {"add": "add", "mul": "mul", "sub": "rsub"}[name])(b, a)
    return getattr(pyad, name)(a, b)


def _hits():
    return _engine._fast_binop_count()


def _edges(v):
    fn = v.grad_fn
    if fn is None:
        return None
    return tuple((type(n).__name__ if n is not None else None, nr)
                 for n, nr in fn.next_functions)


def _same(fast, general):
    assert type(fast) is type(general)
    assert fast.dtype == general.dtype
    assert fast.shape == general.shape
    np.testing.assert_array_equal(fast.detach().numpy(), general.detach().numpy())
    assert fast.requires_grad == general.requires_grad
    assert fast.is_leaf == general.is_leaf
    assert (fast.grad_fn is None) == (general.grad_fn is None)
    if fast.grad_fn is not None:
        assert fast.grad_fn.name() == general.grad_fn.name()
        assert _edges(fast) == _edges(general)


def _leaf(values, dtype, requires_grad):
    return pyad.tensor(np.asarray(values, dtype=dtype), requires_grad=requires_grad)


CASES = [
    # (op, left is Variable, right is Variable, number)
    (name, side, number)
    for name in OPS
    for side in ("var_num", "num_var", "var_var")
    for number in ((0.75, 3) if side != "var_var" else (None,))
]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("grad_mode", [True, False])
@pytest.mark.parametrize("name,side,number", CASES)
def test_fast_equals_general(name, side, number, grad_mode, dtype):
    xv = np.array([[0.5, -1.25, 2.0], [3.5, 0.0, -0.75]])
    yv = np.array([[1.5, 2.0, -0.5], [0.25, -3.0, 4.0]])
    for rx, ry in ((True, False), (False, True), (True, True), (False, False)):
        if side != "var_var" and not rx:
            continue
        outs = []
        grads = []
        for fast in (True, False):
            x = _leaf(xv, dtype, rx)
            y = _leaf(yv, dtype, ry)
            if side == "var_num":
                a, b = x, number
            elif side == "num_var":
                a, b = number, x
            else:
                a, b = x, y
            with pyad.set_grad_enabled(grad_mode):
                before = _hits()
                out = OPS[name](a, b) if fast else _general(name, a, b)
                assert _hits() - before == (1 if fast else 0)
            outs.append(out)
            if out.requires_grad:
                g = np.arange(1.0, 7.0).reshape(2, 3).astype(dtype)
                out.backward(pyad.tensor(g))
                grads.append((None if x.grad is None else x.grad.numpy(),
                              None if y.grad is None else y.grad.numpy()))
        _same(outs[0], outs[1])
        if grads:
            for gf, gg in zip(grads[0], grads[1]):
                assert (gf is None) == (gg is None)
                if gf is not None:
                    assert gf.dtype == gg.dtype
                    np.testing.assert_array_equal(gf, gg)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name,side,number", CASES)
def test_fast_matches_torch(name, side, number, dtype):
    torch = pytest.importorskip("torch")
    xv = np.array([0.5, -1.25, 2.0, np.inf, -np.inf, np.nan, 0.0, -0.0])
    yv = np.array([1.5, 2.0, -0.5, 1.0, np.inf, 2.0, -0.0, 0.0])
    x = pyad.tensor(xv.astype(dtype), requires_grad=True)
    y = pyad.tensor(yv.astype(dtype), requires_grad=True)
    tx = torch.tensor(xv.astype(dtype), requires_grad=True)
    ty = torch.tensor(yv.astype(dtype), requires_grad=True)
    f = OPS[name]
    before = _hits()
    if side == "var_num":
        out, tout = f(x, number), f(tx, number)
    elif side == "num_var":
        out, tout = f(number, x), f(number, tx)
    else:
        out, tout = f(x, y), f(tx, ty)
    assert _hits() - before == 1
    assert str(out.dtype) == str(tout.dtype).replace("torch.", "")
    np.testing.assert_array_equal(out.detach().numpy(), tout.detach().numpy())
    if not (name == "sub" and side == "num_var"):
        # (`2.0 - x`: torch names its node RsubBackward1, pyad SubBackward on both paths)
        assert out.grad_fn.name() == type(tout.grad_fn).__name__.replace("0", "")
    g = np.linspace(-2.0, 2.0, 8).astype(dtype)
    out.backward(pyad.tensor(g))
    tout.backward(torch.tensor(g))
    np.testing.assert_array_equal(x.grad.numpy(), tx.grad.numpy())
    if side == "var_var":
        np.testing.assert_array_equal(y.grad.numpy(), ty.grad.numpy())


@pytest.mark.parametrize("name", list(OPS))
def test_gradcheck_through_the_fast_path(name):
    f = OPS[name]
    rng = np.random.default_rng(0)
    x = pyad.tensor(rng.standard_normal((3, 4)), requires_grad=True)
    y = pyad.tensor(rng.standard_normal((3, 4)), requires_grad=True)
    before = _hits()
    assert gradcheck(lambda a, b: f(f(a, b), 0.5) + f(1.5, a), (x, y))
    assert gradgradcheck(lambda a, b: f(f(a, b), 0.5) * f(1.5, a), (x, y))
    assert _hits() > before


def _not_taken_cases():
    base = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])

    class SubArray(np.ndarray):
        pass

    class SubVariable(pyad.Variable):
        pass

    yield "float16", pyad.tensor(base.astype(np.float16)), 2.0
    yield "complex64", pyad.tensor(base.astype(np.complex64)), 2.0
    yield "int64", pyad.tensor(base.astype(np.int64)), 2
    yield "bool", pyad.tensor(base > 2), True
    yield "0-d", pyad.tensor(np.float64(3.0), requires_grad=True), 2.0
    yield "empty-ok-but-bool-operand", pyad.tensor(base, requires_grad=True), True
    yield "numpy scalar", pyad.tensor(base, requires_grad=True), np.float64(2.0)
    yield "complex number", pyad.tensor(base, requires_grad=True), 2.0 + 1.0j
    yield "broadcast", pyad.tensor(base, requires_grad=True), \
        pyad.tensor(base[:1], requires_grad=True)
    yield "mixed dtypes", pyad.tensor(base, requires_grad=True), \
        pyad.tensor(base.astype(np.float32), requires_grad=True)
    yield "non-contiguous", pyad.Variable(base[:, ::2], requires_grad=True), 2.0
    yield "fortran", pyad.Variable(np.asfortranarray(base), requires_grad=True), 2.0
    yield "byte-swapped", pyad.Variable(base.astype(">f8"), requires_grad=True), 2.0
    yield "subclassed array operand", pyad.tensor(base, requires_grad=True), \
        base.copy().view(SubArray)
    yield "Variable subclass", SubVariable(base, requires_grad=True), 2.0
    yield "array operand", pyad.tensor(base, requires_grad=True), base.copy()
    leaf = pyad.tensor(base, requires_grad=True)
    yield "view", leaf[0], 2.0
    yield "volatile", pyad.Variable(base, volatile=True), 2.0


# (the Variables are made inside each test: module-level live graphs would stay
# behind for the other test files, e.g. test_gc_tracking's count of live nodes)
_NOT_TAKEN = [c[0] for c in _not_taken_cases()]


@pytest.mark.parametrize("label", _NOT_TAKEN)
@pytest.mark.parametrize("name", list(OPS))
def test_fast_path_not_taken(label, name):
    a, b = next((c[1], c[2]) for c in _not_taken_cases() if c[0] == label)
    f = OPS[name]
    before = _hits()
    try:
        out = f(a, b)
    except Exception as exc:            # e.g. bool - bool: the general path's error
        assert _hits() == before
        with pytest.raises(type(exc)):
            _general(name, a, b)
        return
    assert _hits() == before
    general = _general(name, a, b)
    assert out.dtype == general.dtype
    np.testing.assert_array_equal(out.detach().numpy(), general.detach().numpy())
    assert out.requires_grad == general.requires_grad
    before = _hits()
    out2 = f(b, a) if isinstance(b, (int, float, complex)) else None
    if out2 is not None:
        assert _hits() == before


def _profiled_events(fast, **options):
    from pyad.autograd import profiler
    x = pyad.tensor(np.ones(3), requires_grad=True)
    with profiler.profile(**options) as prof:
        before = _hits()
        if fast:
            y = (x * 2.0 + 1.0) - x
            y = 3.0 - (2.0 * y)
        else:
            y = pyad.sub(pyad.add(pyad.mul(x, 2.0), 1.0), x)
            y = pyad.sub(3.0, pyad.mul(2.0, y))
        taken = _hits() - before
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.full(3, -2.0))
    events = prof.function_events
    first = events[0].sequence_nr
    return taken, [(e.name, e.sequence_nr - first) for e in events]


def test_under_the_profiler_it_writes_the_ops_events():
    # With the profiler's own recorder the fast path is taken and writes what the op's
    # profiled entry writes: one event per op, named after the op, with the sequence
    # number of the node it recorded.
    taken, events = _profiled_events(True)
    assert taken == 5
    assert _profiled_events(False) == (0, events)
    assert [name for name, _ in events] == ["mul", "add", "sub", "mul", "sub"]
    assert [seq for _, seq in events] == [0, 1, 2, 3, 4]


def test_other_recorders_take_the_op():
    # record_shapes needs the operands: the full recorder gets them from the op's entry.
    taken, events = _profiled_events(True, record_shapes=True)
    assert taken == 0
    assert [name for name, _ in events] == ["mul", "add", "sub", "mul", "sub"]


def test_an_operand_it_cannot_take_leaves_one_event():
    from pyad.autograd import profiler
    x = pyad.tensor(np.ones(3), requires_grad=True)
    with profiler.profile() as prof:
        x * np.float32(2.0)                 # a NumPy scalar: the general path
        x * pyad.tensor(np.ones((2, 1)))    # broadcasting: the general path
    assert [e.name for e in prof.function_events] == ["mul", "mul"]


def test_fast_path_versions_and_saved_values():
    # x * y saves both operands: an in-place change of either before backward raises
    # the general path's error.
    msgs = []
    for fast in (True, False):
        x = pyad.tensor(np.array([1.0, 2.0]), requires_grad=True)
        a = x * 1.0 if fast else pyad.mul(x, 1.0)
        b = x + 0.0 if fast else pyad.add(x, 0.0)
        out = a * b if fast else pyad.mul(a, b)
        assert out.grad_fn.name() == "MulBackward"
        a.add_(1.0)
        with pytest.raises(RuntimeError) as info:
            out.sum().backward()
        msgs.append(str(info.value))
    assert msgs[0] == msgs[1]
    assert "modified by an inplace operation" in msgs[0]


def test_fast_path_after_backward_frees_saved_number():
    x = pyad.tensor(np.array([1.0, 2.0]), requires_grad=True)
    y = x * 3.0
    y.sum().backward()
    with pytest.raises(RuntimeError, match="second time"):
        y.sum().backward()


def test_fast_path_inference_and_no_grad():
    x = pyad.tensor(np.array([1.0, 2.0]), requires_grad=True)
    with pyad.no_grad():
        before = _hits()
        y = x * 2.0
        assert _hits() == before + 1
    assert not y.requires_grad and y.grad_fn is None and not y.is_inference()
    with pyad.inference_mode():
        z = x * 2.0 + x
    assert z.is_inference() and not z.requires_grad
    with pytest.raises(RuntimeError, match="Inference"):
        (z * x).sum()


def test_fast_path_anomaly_mode_and_hooks():
    x = pyad.tensor(np.array([1.0, 0.0]), requires_grad=True)
    with pyad.autograd.detect_anomaly():
        y = x * 0.0
        z = y * float("inf")
        with pytest.raises(RuntimeError, match="MulBackward"):
            z.sum().backward()
    seen = []
    x = pyad.tensor(np.array([1.0, 2.0]), requires_grad=True)
    y = x * 2.0
    y.register_hook(lambda g: seen.append(g.numpy().copy()))
    (y + 1.0).sum().backward()
    np.testing.assert_array_equal(seen[0], [1.0, 1.0])
    np.testing.assert_array_equal(x.grad.numpy(), [2.0, 2.0])


def test_fast_path_errors_match_the_general_path():
    x = pyad.tensor(np.array([1.0, 2.0]), requires_grad=True)
    errors = []
    for fast in (True, False):
        try:
            x * 10 ** 400 if fast else pyad.mul(x, 10 ** 400)
        except Exception as exc:  # noqa: BLE001 - compared below
            errors.append((type(exc), str(exc)))
        else:
            errors.append(None)
    assert errors[0] == errors[1]


def test_fast_path_keeps_gc_tracking_rules():
    # A user cycle through a hook on a fast-path output is still collected.
    import gc
    import weakref
    x = pyad.tensor(np.array([1.0, 2.0]), requires_grad=True)
    y = x * 2.0
    y = y + 1.0
    y.register_hook(lambda g, y=y: g)
    ref = weakref.ref(y)
    del y
    gc.collect()
    assert ref() is None


# -- the field-by-field seal check of the common nodes (_fast_safe in _gctrack.pxi) --------

def _taken(v):
    # Let a later op take v's node, keep the result alive, and seal what waits to be
    # sealed (as the start of a collection would: pyad/_gctrack.pxi).
    out = pyad.neg(v)
    _engine._seal_pending_now()
    return out


def _PAIR(x):
    return x.split(1)[1] * 2.0


@pytest.mark.parametrize("make", [
    lambda x: x * 2.0,                                   # saved number
    lambda x: x * x,                                     # saved Variables
    lambda x: x + pyad.tensor(np.ones((1, 3))),          # broadcast: shape tuple
    lambda x: pyad.mul(x, np.float32(2.0)),              # 0-d array constant
    lambda x: pyad.tanh(x),                              # saved output
    lambda x: pyad.exp(x),
    _PAIR,                                               # edge to output 1: a pair
    lambda x: pyad.div(x, 3),
], ids=["mul-number", "mul-var", "add-broadcast", "mul-0d", "tanh", "exp", "pair",
        "div"])
def test_common_nodes_are_untracked_when_taken(make):
    import gc
    x = pyad.tensor(np.arange(1.0, 7.0).reshape(2, 3), requires_grad=True)
    y = make(x * 1.0)
    z = _taken(y)
    upstream = [n for n, _ in y.grad_fn.next_functions if n is not None]
    # untracked exactly when what it points at is (SplitBackward, behind the pair
    # entry, stays tracked: so does the node after it)
    assert gc.is_tracked(y.grad_fn) == any(gc.is_tracked(n) for n in upstream)
    assert gc.is_tracked(y.grad_fn) == (make is _PAIR)
    assert gc.is_tracked(z.grad_fn)          # nothing has taken the newest one yet
    z.sum().backward()
    assert x.grad is not None


def test_common_nodes_with_a_pack_hook_stay_tracked():
    import gc
    x = pyad.tensor(np.arange(1.0, 4.0), requires_grad=True)
    keep = []
    with pyad.autograd.graph.saved_tensors_hooks(lambda t: keep.append(t) or t,
                                                 lambda t: t):
        y = x * 1.0
        t = pyad.tanh(y)
        m = t * y
    z = _taken(m)
    assert gc.is_tracked(t.grad_fn) and gc.is_tracked(m.grad_fn)
    assert not gc.is_tracked(y.grad_fn)      # saved nothing
    z.sum().backward()
    np.testing.assert_allclose(
        x.grad.numpy(), -(np.tanh(x.detach().numpy())
                          + x.detach().numpy() / np.cosh(x.detach().numpy()) ** 2),
        rtol=1e-12)


def test_a_hook_on_an_upstream_node_keeps_common_nodes_tracked():
    import gc
    import weakref
    x = pyad.tensor(np.arange(1.0, 4.0), requires_grad=True)
    y = x * 2.0
    y.register_hook(lambda g, y=y: g)        # a cycle through y's node
    z = pyad.tanh(y + 1.0)
    w = _taken(z)
    assert gc.is_tracked(z.grad_fn)          # reaches a tracked node
    ref = weakref.ref(y)
    del y, z, w
    gc.collect()
    assert ref() is None
