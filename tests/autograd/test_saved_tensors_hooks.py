"""pyad.autograd.graph.saved_tensors_hooks / save_on_cpu / disable_saved_tensors_hooks
against torch.autograd.graph's on the same inputs: which values are packed, that the
backward uses what the unpack hook returns, custom Functions, nesting, second order,
the errors, and that cycles made through the hooks are collected."""
import gc
import weakref

import numpy as np
import pytest

import pyad
from pyad.autograd import graph as G
from _torch_compare import as_np, torch_or_skip


def _libs():
    torch = torch_or_skip()
    return ((pyad, G.saved_tensors_hooks, G.save_on_cpu),
            (torch, torch.autograd.graph.saved_tensors_hooks,
             torch.autograd.graph.save_on_cpu))


def _inputs(lib):
    x = lib.tensor(np.array([0.5, 1.5, 2.0]), requires_grad=True)
    y = lib.tensor(np.array([1.0, -1.0, 3.0]), requires_grad=True)
    return x, y


# ops whose saved values are the same Variables as torch's (count and order)
OPS = {
    "mul": lambda L, x, y: x * y,
    "exp": lambda L, x, y: x.exp(),
    "tanh": lambda L, x, y: x.tanh(),
    "pow2": lambda L, x, y: x ** 2,
    "div": lambda L, x, y: x / y,
    "matmul": lambda L, x, y: x @ y,
    "sigmoid": lambda L, x, y: x.sigmoid(),
    "log": lambda L, x, y: x.log(),
    "softmax": lambda L, x, y: x.softmax(0),
    "prod": lambda L, x, y: x.prod(),
    "logsumexp": lambda L, x, y: x.logsumexp(0),
    "chain": lambda L, x, y: ((x * y).tanh() * x).exp(),
}


@pytest.mark.parametrize("name", list(OPS))
def test_packed_values_and_gradients_match_torch(name):
    results = []
    for lib, hooks, _ in _libs():
        packed, unpacked = [], []

        def pack(v):
            packed.append(as_np(v))
            return ("box", v)

        def unpack(box):
            unpacked.append(box[0])
            return box[1]
        x, y = _inputs(lib)
        with hooks(pack, unpack):
            out = OPS[name](lib, x, y)
        out.sum().backward()
        results.append((packed, len(unpacked), as_np(x.grad),
                        None if y.grad is None else as_np(y.grad)))
    (p_pyad, n_pyad, gx_pyad, gy_pyad), (p_torch, n_torch, gx_torch, gy_torch) = results
    assert len(p_pyad) == len(p_torch) > 0
    def key(a):
        return a.shape, tuple(np.round(a.ravel(), 6))
    for a, b in zip(sorted(p_pyad, key=key), sorted(p_torch, key=key)):
        # (the same values up to the last bit of NumPy's and torch's tanh/exp)
        np.testing.assert_allclose(a, b, rtol=4e-16, atol=0)
    assert n_pyad >= len(p_pyad)                  # every packed value was unpacked
    np.testing.assert_allclose(gx_pyad, gx_torch, rtol=1e-12)
    if gy_torch is not None:
        np.testing.assert_allclose(gy_pyad, gy_torch, rtol=1e-12)


def test_the_backward_uses_what_unpack_returns():
    # packing a scaled copy and unpacking it unscaled gives the true gradient;
    # unpacking it scaled gives the gradient of the scaled saved value (as torch)
    for lib, hooks, _ in _libs():
        for scale_back, expect in ((True, [1.0, -1.0, 3.0]), (False, [10.0, -10.0, 30.0])):
            x, y = _inputs(lib)
            with hooks(lambda v: v.detach() * 10,
                       (lambda v: v / 10) if scale_back else (lambda v: v)):
                out = x * y
            out.sum().backward()
            np.testing.assert_allclose(as_np(x.grad), expect, rtol=1e-12)


def test_custom_function_saved_tensors_go_through_the_hooks():
    calls = []
    for lib, hooks, _ in _libs():
        class Square(lib.autograd.Function):
            @staticmethod
            def forward(ctx, a):
                ctx.save_for_backward(a)
                return a * a

            @staticmethod
            def backward(ctx, g):
                a, = ctx.saved_tensors
                return 2 * a * g
        x, _ = _inputs(lib)
        log = []
        with hooks(lambda v: log.append("pack") or v, lambda v: log.append("unpack") or v):
            out = Square.apply(x)
        out.sum().backward()
        np.testing.assert_allclose(as_np(x.grad), 2 * np.array([0.5, 1.5, 2.0]))
        calls.append(log)
    assert calls[0] == calls[1] == ["pack", "unpack"]


def test_nested_hooks_use_the_innermost_pair():
    for lib, hooks, _ in _libs():
        log = []
        x, y = _inputs(lib)
        with hooks(lambda v: log.append("outer") or v, lambda v: v):
            with hooks(lambda v: log.append("inner") or v, lambda v: v):
                a = x * y
            b = a.exp()
        (a.sum() + b.sum()).backward()
        assert log == ["inner", "inner", "outer"], (lib.__name__, log)


def test_second_order_through_hooks_matches_torch():
    results = []
    for lib, hooks, _ in _libs():
        x, y = _inputs(lib)
        with hooks(lambda v: v, lambda v: v):
            out = ((x * y).tanh() * x).sum()
        g = lib.autograd.grad(out, [x, y], create_graph=True)
        h = lib.autograd.grad((g[0] ** 2).sum() + g[1].sum(), [x, y])
        results.append([as_np(v) for v in g + h])
    for a, b in zip(*results):
        np.testing.assert_allclose(a, b, rtol=1e-12)


def test_unpack_must_return_a_variable():
    for lib, hooks, _ in _libs():
        x, y = _inputs(lib)
        with hooks(lambda v: v, lambda v: 3):
            out = x * y
        with pytest.raises(TypeError, match="unpack_hook expected to be a"):
            out.sum().backward()


def test_pack_must_not_modify_its_input_in_place():
    for lib, hooks, _ in _libs():
        x, y = _inputs(lib)
        a = x * 1.0
        with pytest.raises(RuntimeError, match="pack hook is modifying its input in place"):
            with hooks(lambda v: v.add_(1.0) if v is not y else v, lambda v: v):
                with lib.no_grad():
                    pass
                a * y


def test_disable_saved_tensors_hooks():
    torch = torch_or_skip()
    for disable, hooks in ((G.disable_saved_tensors_hooks, G.save_on_cpu),
                           (torch.autograd.graph.disable_saved_tensors_hooks,
                            torch.autograd.graph.save_on_cpu)):
        with disable("hooks are off here"):
            with pytest.raises(RuntimeError, match="hooks are off here"):
                with hooks():
                    pass
        with hooks():                              # allowed again afterwards
            pass


def test_save_on_cpu_gradients_and_no_copy_on_the_host():
    results = []
    for lib, _, on_cpu in _libs():
        x, y = _inputs(lib)
        with on_cpu():
            out = (x.exp() * y).sum()
        out.backward()
        results.append((as_np(x.grad), as_np(y.grad)))
    for a, b in zip(*results):
        np.testing.assert_allclose(a, b, rtol=1e-12)
    # a host value behind the hooks is the Variable's own memory, unchecked (torch's)
    x, y = _inputs(pyad)
    with G.save_on_cpu():
        out = (x * y).sum()
    with pyad.no_grad():
        y.mul_(2.0)
    out.backward()
    np.testing.assert_allclose(x.grad.data, [2.0, -2.0, 6.0])


def test_without_hooks_saved_values_are_still_version_checked():
    x, y = _inputs(pyad)
    out = (x * y).sum()
    with pyad.no_grad():
        y.mul_(2.0)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        out.backward()


def test_cycles_made_through_the_hooks_are_collected():
    # exp saves its output: an identity pack hook makes output -> node -> packed output
    x, _ = _inputs(pyad)
    with G.saved_tensors_hooks(lambda v: v, lambda v: v):
        out = x.exp()
    node = weakref.ref(out.grad_fn)
    del out
    gc.collect()
    assert node() is None


def test_hooks_off_after_the_block_and_after_an_error():
    x, y = _inputs(pyad)
    log = []
    with pytest.raises(ZeroDivisionError):
        with G.saved_tensors_hooks(lambda v: log.append(1) or v, lambda v: v):
            1 / 0
    (x * y).sum().backward()
    assert log == []


def test_saved_tensors_are_the_objects_saved_as_torch():
    # torch gives back the very Variable saved (an input, or one made in forward), not
    # a copy; an output of the Function comes back as a new object (it is saved without
    # its history, so that no cycle forms). Under a pair of hooks, what unpack returns:
    # a saved value that needs no history is the hook's own object.
    torch = pytest.importorskip("torch")
    for lib in (pyad, torch):
        seen = {}

        class F(lib.autograd.Function):
            @staticmethod
            def forward(ctx, a, b):
                out = a * b
                mid = a + 1
                ctx.save_for_backward(a, b, out, mid, None)
                ctx.objs = (a, b, out, mid, None)
                return out

            @staticmethod
            def backward(ctx, g):
                st = ctx.saved_tensors
                seen.setdefault("is", []).append([s is o for s, o in zip(st, ctx.objs)])
                seen.setdefault("again", []).append(
                    [s is t for s, t in zip(st, ctx.saved_tensors)])
                return g * st[1], g * st[0]

        a = lib.tensor([1.0, 2.0], requires_grad=True)
        b = lib.tensor([3.0, 4.0])
        F.apply(a, b).sum().backward()
        assert a.grad.tolist() == [3.0, 4.0]
        with lib.autograd.graph.saved_tensors_hooks(lambda t: t * 1, lambda t: t):
            F.apply(a, b).sum().backward()
        assert seen["is"] == [[True, True, False, True, True],
                              [False, False, False, False, True]], lib.__name__
        assert seen["again"] == [[True, True, False, True, True],
                                 [False, True, False, True, True]], lib.__name__


def test_a_saved_input_modified_in_place_is_still_refused():
    class F(pyad.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            ctx.save_for_backward(a)
            return a * 2

        @staticmethod
        def backward(ctx, g):
            (a,) = ctx.saved_tensors
            return g * 2

    a = pyad.tensor([1.0, 2.0], requires_grad=True)
    x = a * 1
    y = F.apply(x)
    x.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()
