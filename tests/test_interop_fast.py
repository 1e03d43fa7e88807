"""pyad.interop.from_torch's engine paths (issue 15, item 2's per-call overhead): a
recorded call runs in the engine (``_engine._bridge_call``) and its first-order backward
runs torch's engine from the node (``_bridge_direct_vjp``); the rare cases go to the
Python path (``pyad.interop.torch._bridged`` / ``_torch_vjp``). The two paths must give
identical outputs, gradients, versions and data pointers, and the engine path must not
be taken where it would be wrong."""
import warnings

import numpy as np
import pytest

import pyad
from pyad.autograd import gradcheck, gradgradcheck
import pyad.interop as interop


@pytest.fixture
def torch():
    return pytest.importorskip("torch")


@pytest.fixture
def hooks(torch):
    from pyad.interop import torch as bridge
    interop.from_torch(torch.sin)                  # makes the hooks
    h = bridge._bridge_hooks()
    assert h.fast
    general, vjp = h.general, h.vjp
    yield h
    h.fast, h.general, h.vjp = True, general, vjp


class Spy:
    """Counts the calls of the hooks' general forward and Python backward."""

    def __init__(self, hooks):
        self.forward = self.backward = 0
        general, vjp = hooks.general, hooks.vjp

        def spy_general(*args):
            self.forward += 1
            return general(*args)

        def spy_vjp(*args):
            self.backward += 1
            return vjp(*args)

        hooks.general, hooks.vjp = spy_general, spy_vjp


def _pointer(array):
    return array.__array_interface__["data"][0]


def run(hooks, fast, fn, make_args, create_graph=False):
    """Call from_torch(fn) on fresh arguments on one path; return what can differ."""
    hooks.fast = fast
    torch_outputs = []

    def recorded(*args):
        out = fn(*args)
        torch_outputs.append(out)
        return out

    args = make_args()
    versions = [a._version for a in args if isinstance(a, pyad.Variable)]
    out = interop.from_torch(recorded)(*args)
    outs = out if isinstance(out, tuple) else (out,)
    t_outs = torch_outputs[0] if isinstance(torch_outputs[0], tuple) else (torch_outputs[0],)
    for o, t in zip(outs, t_outs):
        if o.numel():
            assert _pointer(o.data) == t.data_ptr()        # zero copy out
    result = {
        "values": [o.detach().data.copy() for o in outs],
        "dtypes": [o.dtype for o in outs],
        "requires_grad": [o.requires_grad for o in outs],
        "versions": [a._version - v for a, v in
                     zip([a for a in args if isinstance(a, pyad.Variable)], versions)],
    }
    leaves = [a for a in args if isinstance(a, pyad.Variable) and a.requires_grad]
    live = [o for o in outs if o.requires_grad]
    if leaves and live:
        total = sum((o * (k + 1.5)).sum() for k, o in enumerate(live))
        grads = pyad.autograd.grad(total, leaves, create_graph=create_graph,
                                   allow_unused=True)
        result["grads"] = [None if g is None else g.detach().data.copy() for g in grads]
        if create_graph:
            live_grads = [g for g in grads if g is not None and g.requires_grad]
            if live_grads:
                second = pyad.autograd.grad(sum(g.sum() for g in live_grads), leaves,
                                            allow_unused=True)
                result["second"] = [None if g is None else g.data.copy() for g in second]
    return result


def assert_same(a, b):
    assert a.keys() == b.keys()
    for key in a:
        assert len(a[key]) == len(b[key]), key
        for x, y in zip(a[key], b[key]):
            if isinstance(x, np.ndarray):
                assert x.dtype == y.dtype and x.shape == y.shape, key
                np.testing.assert_array_equal(x, y)   # bit for bit (NaN == NaN)
            else:
                assert x == y, key


def var(data, requires_grad=True):
    return pyad.Variable(np.asarray(data), requires_grad=requires_grad)


F64 = np.array([0.3, -1.2, 2.0, 0.0, np.nan, np.inf, -np.inf, 1.0])

# (id, fn, make_args, engine forward expected)
CASES = [
    ("f32", lambda x: (x.sin() * x).sum(),
     lambda: [var(F64.astype(np.float32))], True),
    ("f64", lambda x: x.exp() * 2, lambda: [var(F64)], True),
    ("0-d", lambda x: x * x, lambda: [var(np.float64(1.5))], True),
    ("empty", lambda x: x.exp(), lambda: [var(np.zeros((0, 3)))], True),
    ("transposed", lambda x: x.tanh(),
     lambda: [var(np.arange(12.0).reshape(3, 4).T / 7)], True),
    ("sliced", lambda x: x * 3, lambda: [var(np.arange(10.0)[1::3])], True),
    ("ties", lambda x: x.max(dim=0).values, lambda: [var(np.ones((3, 2)))], True),
    ("several in and out, pass-through, no-grad input",
     lambda x, k, y, z: (x * y * k, (x + z).exp(), (y > 0).long()),
     lambda: [var(F64[:4]), 2.5, var([1.0, -2.0, 3.0, 0.5]),
              var([1.0, 2, 3, 4], requires_grad=False)], True),
    ("unused output and ignored input", lambda x, y: (x * 2, y.detach() * 0 + 1),
     lambda: [var([1.0, 2.0]), var([3.0, 4.0])], True),
    ("output a view of the input", lambda x: x.view(2, 2)[0],
     lambda: [var([1.0, 2.0, 3.0, 4.0])], True),
    ("torch.no_grad inside", lambda x: x.detach() * 2, lambda: [var([1.0, 2.0])], True),
    ("the same Variable twice", lambda x, y: x * y.exp(),
     lambda: (lambda v: [v, v])(var([1.0, -2.0])), True),
    ("negative strides", lambda x: x.exp(), lambda: [var(np.arange(5.0)[::-1])], False),
    ("read-only", lambda x: x * x, lambda: [var(_read_only(np.arange(4.0)))], False),
    ("broadcast (read-only, zero strides)", lambda x: x * 2,
     lambda: [var(np.broadcast_to(np.arange(3.0), (2, 3)))], False),
    ("float16", lambda x: x * 2, lambda: [var(np.array([1.0, 2.0], np.float16))], False),
    ("complex", lambda x: (x * x.conj()).real,
     lambda: [var(np.array([1 + 2j, 3 - 1j]))], False),
    ("a non-fast argument beside a fast one", lambda x, y: x * y,
     lambda: [var([1.0, 2.0]), var(np.array([3.0, 4.0, 5.0, 6.0])[::-2])], False),
]


def _read_only(a):
    a.flags.writeable = False
    return a


@pytest.mark.parametrize("name, fn, make_args, engine", CASES, ids=[c[0] for c in CASES])
def test_engine_and_python_paths_agree_and_engine_path_taken_only_where_right(
        hooks, name, fn, make_args, engine):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        spy = Spy(hooks)
        fast = run(hooks, True, fn, make_args)
        assert spy.forward == (0 if engine else 1)
        if engine and "grads" in fast:
            assert spy.backward == 0                       # the engine's first order
        general = run(hooks, False, fn, make_args)
    assert_same(fast, general)


SECOND = [c for c in CASES if c[0] in ("f64", "f32", "0-d", "transposed",
                                      "several in and out, pass-through, no-grad input")]


@pytest.mark.parametrize("name, fn, make_args, engine", SECOND, ids=[c[0] for c in SECOND])
def test_engine_and_python_paths_agree_at_second_order(hooks, name, fn, make_args, engine):
    spy = Spy(hooks)
    fast = run(hooks, True, fn, make_args, create_graph=True)
    assert "second" in fast
    assert spy.backward > 0                    # create_graph: the recorded Python VJP
    general = run(hooks, False, fn, make_args, create_graph=True)
    assert_same(fast, general)


def test_engine_path_gradients_match_torch(hooks, torch):
    x0 = np.array([[0.3, -1.2, 2.0], [0.0, 0.5, -0.4]])
    w0 = np.array([1.5, -0.5, 0.25])

    def f(x, w):
        return (torch.tanh(x) * w).sum(1), torch.sigmoid(x.T @ x)

    x, w = var(x0), var(w0)
    a, b = interop.from_torch(f)(x, w)
    (a.sum() * 2 + (b * b).sum()).backward()
    tx = torch.tensor(x0, requires_grad=True)
    tw = torch.tensor(w0, requires_grad=True)
    ta, tb = f(tx, tw)
    (ta.sum() * 2 + (tb * tb).sum()).backward()
    np.testing.assert_allclose(x.grad.data, tx.grad.numpy(), rtol=1e-12)
    np.testing.assert_allclose(w.grad.data, tw.grad.numpy(), rtol=1e-12)


def test_engine_path_gradcheck_and_gradgradcheck(hooks, torch):
    spy = Spy(hooks)
    f = interop.from_torch(lambda x, y: (torch.sin(x) * y.exp()).cumsum(0))
    x = var(np.array([0.3, -1.2, 2.0]))
    y = var(np.array([1.5, 0.5, -0.7]))
    assert gradcheck(f, (x, y))
    assert gradgradcheck(f, (x, y))
    assert spy.forward == 0


def test_engine_path_in_place_write_bumps_the_version_as_the_python_path(hooks, torch):
    def scale_(x, w):
        x.mul_(2)
        return x * w

    for fast in (True, False):
        hooks.fast = fast
        a = var([1.0, 2.0], requires_grad=False)
        w = var([3.0, 4.0])
        saved = w * a
        version = a._version
        y = interop.from_torch(scale_)(a, w)
        np.testing.assert_array_equal(a.data, [2.0, 4.0])
        assert a._version > version
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            saved.sum().backward()
        y.sum().backward()
        np.testing.assert_array_equal(w.grad.data, [2.0, 4.0])

    for fast in (True, False):
        hooks.fast = fast
        with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
            interop.from_torch(lambda x: x.mul_(2))(var([1.0]))
        with pytest.raises(RuntimeError, match="read-only"):
            interop.from_torch(lambda x, w: x.add_(0) * w)(
                var(_read_only(np.arange(2.0)), requires_grad=False), var([1.0, 1.0]))


def test_engine_path_zero_copy_in(hooks, torch):
    seen = []
    x = var(np.arange(6.0).reshape(2, 3).T)
    y = interop.from_torch(lambda t: seen.append(t) or t * 2)(x)
    assert seen[0].data_ptr() == _pointer(x.data) and seen[0].requires_grad
    assert seen[0].stride() == (1, 3)
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.data, np.full((3, 2), 2.0))


def test_engine_path_saved_input_changed_before_backward_is_an_error(hooks, torch):
    x = var([1.0, 2.0])
    y = interop.from_torch(torch.exp)(x)
    with pyad.no_grad():
        x.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


def test_engine_path_node_frees_its_graph_and_none_gradients(hooks, torch):
    x, z = var([1.0, 2.0]), var([3.0, 4.0])
    a, b = interop.from_torch(lambda x, z: (x * 2, z * 3))(x, z)
    assert type(a.grad_fn).__name__ == "TorchFunctionBackward" and b.grad_fn is a.grad_fn
    assert a.grad_fn.next_functions[0][0] is not None
    a.sum().backward()                              # b's gradient is None
    np.testing.assert_array_equal(x.grad.data, [2.0, 2.0])
    assert z.grad is None
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second"):
        b.sum().backward()


def test_engine_path_records_nothing_under_pyad_no_grad_and_outside_torch_no_grad(hooks,
                                                                                  torch):
    f = interop.from_torch(lambda x: x * 2)
    x = var([1.0, 2.0])
    with pyad.no_grad():
        assert not f(x).requires_grad
    with torch.no_grad():
        y = f(x)
    assert y.requires_grad
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.data, [2.0, 2.0])
    with torch.no_grad():                           # torch's mode is restored
        f(x)
        assert not torch.is_grad_enabled()
    assert torch.is_grad_enabled()


def test_byte_swapped_input_requiring_grad_fails_alike_on_both_paths(hooks, torch):
    spy = Spy(hooks)
    for fast in (True, False):
        hooks.fast = fast
        with pytest.raises(BufferError, match="native byte order"):
            interop.from_torch(lambda x: x * 2)(var(np.array([1.0, 2.0], dtype=">f8")))
    assert spy.forward == 2                         # the engine left it to Python


# --------------------------------------------------------------------------------
# to_torch: the forward's views and the first-order backward in the engine
# --------------------------------------------------------------------------------

def _tensor(torch, data, requires_grad=True):
    t = torch.from_numpy(np.array(data))
    return t.requires_grad_(requires_grad) if t.is_floating_point() else t


# (id, make the torch arguments, pyad function, the same in torch)
TO_TORCH = [
    ("f32", lambda torch: [_tensor(torch, F64[:4].astype(np.float32))],
     lambda x: (pyad.sin(x) * x).sum(), lambda x: (x.sin() * x).sum()),
    ("f64 NaN/inf", lambda torch: [_tensor(torch, F64)],
     lambda x: x.exp() * 2, lambda x: x.exp() * 2),
    ("0-d", lambda torch: [_tensor(torch, np.float64(1.5))],
     lambda x: x * x, lambda x: x * x),
    ("empty", lambda torch: [_tensor(torch, np.zeros((0, 3)))],
     lambda x: x.exp(), lambda x: x.exp()),
    ("transposed", lambda torch: [_tensor(torch, np.arange(12.0).reshape(3, 4)).T],
     lambda x: x.tanh(), lambda x: x.tanh()),
    ("broadcast", lambda torch: [_tensor(torch, np.arange(3.0)).expand(2, 3)],
     lambda x: x * x, lambda x: x * x),
    ("float16", lambda torch: [_tensor(torch, np.array([1.0, 2.0], np.float16))],
     lambda x: x * 2, lambda x: x * 2),
    ("complex", lambda torch: [_tensor(torch, np.array([1 + 2j, 3 - 1j]))],
     lambda x: (x * x.conj()).real, lambda x: (x * x.conj()).real),
    ("several in and out, pass-through, no-grad and integer inputs",
     lambda torch: [_tensor(torch, [1.0, -2.0, 3.0]), 2.5,
                    _tensor(torch, [0.5, 1.5, -1.0], requires_grad=False),
                    _tensor(torch, np.array([3, 1, 2]))],
     lambda x, k, y, i: (x * y * k, (x + y).exp(), pyad.argmax(i)),
     lambda x, k, y, i: (x * y * k, (x + y).exp(), i.argmax())),
    ("unused output", lambda torch: [_tensor(torch, [1.0, 2.0]), _tensor(torch, [3.0, 4.0])],
     lambda x, y: (x * 2, y * 3), lambda x, y: (x * 2, y * 3)),
]


def _weights(outs):
    return sum((o * (k + 1.5)).sum() for k, o in enumerate(outs)
               if o.requires_grad and k != 1)


@pytest.mark.parametrize("name, make, pyad_fn, torch_fn", TO_TORCH,
                         ids=[c[0] for c in TO_TORCH])
def test_to_torch_engine_paths_match_torch(torch, name, make, pyad_fn, torch_fn):
    seen = []

    def fn(*args):
        out = pyad_fn(*args)
        seen.append(out)
        return out

    got_args, want_args = make(torch), make(torch)
    for a in got_args + want_args:
        if isinstance(a, torch.Tensor) and a.requires_grad and not a.is_leaf:
            a.retain_grad()                   # a view of a leaf (transposed, expanded)
    got = interop.to_torch(fn)(*got_args)
    want = torch_fn(*want_args)
    got = got if isinstance(got, tuple) else (got,)
    want = want if isinstance(want, tuple) else (want,)
    pyad_outs = seen[0] if isinstance(seen[0], tuple) else (seen[0],)
    for g, w, p in zip(got, want, pyad_outs):
        assert g.dtype == w.dtype and g.shape == w.shape
        assert g.requires_grad == w.requires_grad
        torch.testing.assert_close(g, w, equal_nan=True, rtol=1e-6, atol=0)
        if g.numel():
            assert g.data_ptr() == p.data.__array_interface__["data"][0]   # zero copy
    leaves = [a for a in got_args if isinstance(a, torch.Tensor) and a.requires_grad]
    if not leaves or not any(g.requires_grad for g in got):
        return
    for outs, args in ((got, got_args), (want, want_args)):
        _weights(outs).backward()
    for a, b in zip(got_args, want_args):
        if isinstance(a, torch.Tensor) and a.requires_grad:
            # (a torch.autograd.Function's unused output gets a zero gradient, so an
            # input reached only through it gets zeros where torch's own graph has None)
            expected = torch.zeros_like(b) if b.grad is None else b.grad
            torch.testing.assert_close(a.grad, expected, equal_nan=True, rtol=1e-6, atol=0)
        elif isinstance(a, torch.Tensor):
            assert a.grad is None and b.grad is None


def test_to_torch_first_order_backward_with_a_given_gradient(torch):
    t = _tensor(torch, [1.0, 2.0, 3.0])
    y = interop.to_torch(lambda x: x * x)(t)
    y.backward(torch.tensor([0.5, -1.0, 2.0], dtype=torch.float64))
    torch.testing.assert_close(t.grad, torch.tensor([1.0, -4.0, 12.0], dtype=torch.float64))


def test_to_torch_engine_paths_errors(torch):
    with pytest.raises(TypeError, match=r"to_torch\(\): the function <lambda> must return a "
                                        r"Variable or a tuple of them, got float"):
        interop.to_torch(lambda x: 3.0)(_tensor(torch, [1.0]))
    with pytest.raises(TypeError, match=r"to_torch\(\): the function <lambda> must return"):
        interop.to_torch(lambda x: (x, 3))(_tensor(torch, [1.0], requires_grad=False))


def test_to_torch_pyad_grad_mode_restored_after_an_error(torch):
    def fail(x):
        raise ValueError("boom")

    for requires_grad in (True, False):
        with pytest.raises(ValueError, match="boom"):
            interop.to_torch(fail)(_tensor(torch, [1.0], requires_grad=requires_grad))
        assert pyad.is_grad_enabled()
    with pyad.no_grad():
        with pytest.raises(ValueError, match="boom"):
            interop.to_torch(fail)(_tensor(torch, [1.0]))
        assert not pyad.is_grad_enabled()


def test_to_torch_calls_the_c_apply_and_keeps_torch_function_apply_behaviour(torch,
                                                                            monkeypatch):
    from pyad.interop import torch as bridge
    interop.to_torch(pyad.sin)
    assert bridge._PyadFunctionHolder.apply is not None     # the direct route is used
    calls = []
    cls = bridge._PyadFunctionHolder.cls
    original = cls.apply
    monkeypatch.setattr(cls, "apply", classmethod(
        lambda c, *a: calls.append(1) or original.__func__(c, *a)))
    t = torch.tensor([0.5, 1.0], dtype=torch.float64, requires_grad=True)
    interop.to_torch(lambda x: pyad.sin(x).sum())(t).backward()
    torch.testing.assert_close(t.grad, torch.cos(t.detach()))
    assert calls == []                                       # not through Function.apply
    # under a functorch transform, torch's own error for a Function without
    # setup_context (Function.apply raises it)
    with pytest.raises(RuntimeError, match="must override the setup_context"):
        torch.func.grad(interop.to_torch(lambda x: (x * x).sum()))(torch.ones(3))
