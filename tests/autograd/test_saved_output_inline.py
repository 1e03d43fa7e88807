"""Unary ops whose backward needs their output keep it inside the node (issue 19,
item 2): exp, sqrt, tanh, sigmoid, relu, reciprocal, rsqrt, expm1, tan, exp2, erfinv
and special.ndtri save no SavedVariable object, only the array, its version counter
and the counter's state (pyad/ops/elementwise.pxi, _UnaryOutNode); the counter itself
is made only when the output Variable first needs one, which then adopts the node's. Every way of
reading that saved output must behave as the general form does, and as torch does:
values and second derivatives, the in-place checks, release after backward,
_saved_result / _raw_saved_result, saved-tensor hooks, the in-place forms that move
the save to their input, and the collector's tracking.
"""
import gc
import sys
import weakref

import numpy as np
import pytest

import pyad
from pyad import Variable
from pyad import _engine

from ._torch_compare import LIBS, as_np, torch

# (name, input values inside the op's domain)
OPS = [
    ("exp", [0.5, -0.3, 1.2]),
    ("sqrt", [0.5, 0.3, 1.2]),
    ("tanh", [0.5, -0.3, 1.2]),
    ("sigmoid", [0.5, -0.3, 1.2]),
    ("relu", [0.5, -0.3, 1.2]),
    ("reciprocal", [0.5, -0.3, 1.2]),
    ("rsqrt", [0.5, 0.3, 1.2]),
    ("expm1", [0.5, -0.3, 1.2]),
    ("tan", [0.5, -0.3, 1.2]),
    ("exp2", [0.5, -0.3, 1.2]),
    ("erfinv", [0.5, -0.3, 0.7]),
    ("special.ndtri", [0.5, 0.3, 0.7]),
]
NAMES = [name for name, _ in OPS]
# torch's erfinv saves its input (and recomputes erfinv in backward): its node has no
# saved output to compare with.
TORCH_SAVES_INPUT = {"erfinv"}


def libs_saving_output(name):
    return [lib for lib in LIBS if lib is pyad or name not in TORCH_SAVES_INPUT]


def op(lib, name):
    f = lib
    for part in name.split("."):
        f = getattr(f, part)
    return f


def leaf(lib, values):
    if lib is pyad:
        return Variable(np.array(values), requires_grad=True)
    return lib.tensor(values, dtype=lib.float64, requires_grad=True)


@pytest.mark.parametrize("name,values", OPS, ids=NAMES)
def test_saved_output_is_an_inline_field(name, values):
    # The structural claim itself: the node holds no SavedVariable until one is asked for.
    x = leaf(pyad, values)
    y = op(pyad, name)(x * 1.0)
    assert isinstance(y.grad_fn, _engine._UnaryOutNode)
    assert not any(isinstance(o, _engine.SavedVariable) for o in gc.get_referents(y.grad_fn))


@pytest.mark.parametrize("name,values", OPS, ids=NAMES)
def test_first_and_second_derivatives_match_torch(name, values):
    results = []
    for lib in LIBS:
        x = leaf(lib, values)
        y = op(lib, name)(x * 1.0)
        (g,) = lib.autograd.grad(y.sum(), x, create_graph=True)
        (gg,) = lib.autograd.grad((g * g).sum(), x)
        results.append((as_np(y), as_np(g), as_np(gg)))
    if torch is not None:
        for got, want in zip(results[0], results[1]):
            np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)
    x = leaf(pyad, values)
    f = lambda v: op(pyad, name)(v * 1.0)      # noqa: E731
    assert pyad.autograd.gradcheck(f, (x,))
    if name != "relu":                          # (relu'' is 0 almost everywhere)
        assert pyad.autograd.gradgradcheck(f, (x,))


@pytest.mark.parametrize("name,values", OPS, ids=NAMES)
def test_backward_reads_the_output_twice_then_refuses(name, values):
    for lib in libs_saving_output(name):
        x = leaf(lib, values)
        y = op(lib, name)(x * 1.0)
        y.sum().backward(retain_graph=True)
        first = as_np(x.grad)
        y.sum().backward()
        np.testing.assert_array_equal(as_np(x.grad), 2 * first)
        with pytest.raises(RuntimeError, match="backward through the graph a second time"):
            y.sum().backward()
        with pytest.raises(RuntimeError, match="backward through the graph a second time"):
            y.grad_fn._saved_result


@pytest.mark.parametrize("name,values", OPS, ids=NAMES)
def test_in_place_change_of_the_output_is_caught(name, values):
    for lib in libs_saving_output(name):
        x = leaf(lib, values)
        y = op(lib, name)(x * 1.0)
        y.add_(1)
        message = r"which is output 0 of \w+, is at version 1; expected version 0"
        with pytest.raises(RuntimeError, match=message):
            y.sum().backward()


def test_in_place_change_is_caught_on_the_create_graph_path_too():
    for lib in LIBS:
        x = leaf(lib, [0.5, -0.3])
        y = (x * 1.0).tanh()
        y.mul_(2)
        with pytest.raises(RuntimeError, match="is at version 1; expected version 0"):
            lib.autograd.grad(y.sum(), x, create_graph=True)


def test_anomaly_mode_names_where_the_output_was_changed():
    x = leaf(pyad, [0.5, -0.3])
    with pytest.warns(UserWarning), pyad.autograd.detect_anomaly():
        y = (x * 1.0).sigmoid()
        y.mul_(2)
        with pytest.raises(RuntimeError, match="The last in-place change was made here"):
            y.sum().backward()


@pytest.mark.parametrize("name,values", OPS, ids=NAMES)
def test_saved_result_is_a_new_variable_equal_to_the_output(name, values):
    for lib in libs_saving_output(name):
        x = leaf(lib, values)
        y = op(lib, name)(x * 1.0)
        saved = y.grad_fn._saved_result
        assert saved is not y
        np.testing.assert_array_equal(as_np(saved), as_np(y))
        # asking for it does not change what backward computes
        y.sum().backward()
        expected = leaf(lib, values)
        op(lib, name)(expected * 1.0).sum().backward()
        np.testing.assert_array_equal(as_np(x.grad), as_np(expected.grad))


def test_raw_saved_result_hooks_registered_after_the_forward():
    # Registering the pair packs the saved output at once; backward unpacks it.
    for lib in LIBS:
        x = leaf(lib, [0.5, -0.3, 1.2])
        y = (x * 1.0).exp()
        calls = []

        def pack(t):
            calls.append("pack")
            return t * 2

        def unpack(t):
            calls.append("unpack")
            return t

        y.grad_fn._raw_saved_result.register_hooks(pack, unpack)
        assert calls == ["pack"]
        y.sum().backward()
        assert calls == ["pack", "unpack"]
        np.testing.assert_allclose(as_np(x.grad), 2 * np.exp([0.5, -0.3, 1.2]), rtol=1e-15)


def test_saved_tensors_hooks_see_the_output_and_keep_the_general_form():
    for lib in LIBS:
        x = leaf(lib, [0.5, -0.3])
        packed = []
        with lib.autograd.graph.saved_tensors_hooks(
                lambda t: (packed.append(as_np(t)), t)[1], lambda t: t * 0 + 1):
            y = (x * 1.0).tanh()
        np.testing.assert_array_equal(packed[-1], np.tanh([0.5, -0.3]))
        y.sum().backward()                       # the unpack hook's ones: 1 - 1 = 0
        np.testing.assert_array_equal(as_np(x.grad), [0.0, 0.0])
    y = (leaf(pyad, [0.5]) * 1.0).tanh()
    with pyad.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
        z = (leaf(pyad, [0.5]) * 1.0).tanh()
    assert not any(isinstance(o, _engine.SavedVariable) for o in gc.get_referents(y.grad_fn))
    assert any(isinstance(o, _engine.SavedVariable) for o in gc.get_referents(z.grad_fn))


@pytest.mark.parametrize("method", ["exp_", "tanh_", "sigmoid_", "relu_", "sqrt_",
                                    "reciprocal_", "rsqrt_", "expm1_", "tan_"])
def test_in_place_forms_save_their_input_and_catch_later_changes(method):
    values = [0.5, 0.3, 1.2]
    for lib in LIBS:
        x = leaf(lib, values)
        z = x * 1.0
        getattr(z, method)()
        z.sum().backward(retain_graph=True)
        expected = leaf(lib, values)
        op(lib, method[:-1])(expected * 1.0).sum().backward()
        np.testing.assert_allclose(as_np(x.grad), as_np(expected.grad), rtol=1e-15)
        z.mul_(2)                                 # z is the saved output now
        with pytest.raises(RuntimeError, match="is at version 2; expected version 1"):
            z.sum().backward()


def test_output_saving_chains_leave_the_collector():
    x = leaf(pyad, [0.3, -0.2])
    y = x
    for _ in range(20):
        y = pyad.sigmoid(pyad.exp(pyad.tanh(y)))
    _engine._seal_pending_now()
    node, nodes = y.grad_fn, []
    while node is not None and not isinstance(node, _engine.AccumulateGrad):
        nodes.append(node)
        node = node.next_functions[0][0]
    assert len(nodes) == 60
    assert not any(gc.is_tracked(n) for n in nodes[1:])      # (the newest waits)


def test_cycle_through_a_pack_hook_on_a_saved_output_is_collected():
    class Box:
        pass

    box = Box()
    x = leaf(pyad, [0.3, -0.2])
    with pyad.autograd.graph.saved_tensors_hooks(lambda t: (box, t), lambda p: p[1]):
        y = pyad.exp(x * 1.0)
    box.y = y                                 # box -> y -> node -> saved -> box
    z = pyad.tanh(y)                          # takes (and seals) y's node
    ref = weakref.ref(y)
    del box, y, z
    gc.collect()
    assert ref() is None, "the cycle was not collected"


# -- binary nodes: the reduce/cast record exists only where something is to do ---------
#
# A binary node keeps (shapes, dtypes) only when broadcasting happened or an operand's
# dtype differs from the result's; otherwise the formula's own result is the gradient
# as it is. These cases each have an operand whose dtype would change the gradient's
# dtype if it were not cast back: the gradient with respect to an intermediate (which
# no leaf accumulator casts afterwards) must have that intermediate's dtype, as torch's.

def _operand(lib, kind):
    if kind == "f64 0-d array":
        return np.array(2.0) if lib is pyad else lib.tensor(2.0, dtype=lib.float64)
    if kind == "f64 0-d Variable":
        return (Variable(np.array(2.0), requires_grad=True) if lib is pyad
                else lib.tensor(2.0, dtype=lib.float64, requires_grad=True))
    if kind == "int8 array":
        values = np.array([1, 2, 3], dtype=np.int8)
        return values if lib is pyad else lib.tensor(values)
    if kind == "int64 array":
        return np.array([1, 2, 3]) if lib is pyad else lib.tensor([1, 2, 3])
    if kind == "f64 Variable":
        return (Variable(np.array([1.0, 2.0, 4.0]), requires_grad=True) if lib is pyad
                else lib.tensor([1.0, 2.0, 4.0], dtype=lib.float64, requires_grad=True))
    if kind == "f16 0-d Variable":
        return (Variable(np.array(2.0, dtype=np.float16)) if lib is pyad
                else lib.tensor(2.0, dtype=lib.float16))
    if kind == "python float":
        return 2.5
    raise AssertionError(kind)


@pytest.mark.parametrize("kind", ["f64 0-d array", "f64 0-d Variable", "int8 array",
                                  "int64 array", "f64 Variable", "f16 0-d Variable",
                                  "python float"])
@pytest.mark.parametrize("opname", ["mul", "div", "add", "sub"])
def test_mixed_dtype_operands_give_gradients_of_the_inputs_dtype(kind, opname):
    results = []
    for lib in LIBS:
        x = leaf(lib, [1.0, 2.0, 3.0])
        h = x.float() * 1.0 if lib is torch else pyad.mul(x.float(), 1.0)
        other = _operand(lib, kind)
        y = getattr(lib, opname)(h, other)
        inputs = [h] + ([other] if getattr(other, "requires_grad", False) else [])
        grads = lib.autograd.grad(y.sum(), inputs)
        results.append([(str(g.dtype).replace("torch.", ""), as_np(g)) for g in grads]
                       + [str(y.dtype).replace("torch.", "")])
        assert str(grads[0].dtype).endswith("float32")
    if torch is not None:
        pyad_result, torch_result = results
        assert pyad_result[-1] == torch_result[-1]
        for (pd, pv), (td, tv) in zip(pyad_result[:-1], torch_result[:-1]):
            assert pd == td
            np.testing.assert_allclose(pv, tv, rtol=1e-6)


def test_concurrent_create_graph_backwards_through_inline_outputs_agree():
    # create_graph backward makes each node's general form on first use; threads doing
    # it through the same graph at once (a collection on nearly every allocation, a
    # tiny switch interval) must all see the saved output, never a "freed" one, and
    # agree with a plain backward.
    import threading

    for _ in range(5):
        x = leaf(pyad, [0.3, -0.2, 0.5])
        y = x
        for _ in range(30):
            y = pyad.sigmoid(pyad.exp(pyad.tanh(y * 0.5)))
        (expected,) = pyad.autograd.grad(y.sum(), x, retain_graph=True)
        results, errors = [], []

        def work():
            try:
                for _ in range(3):
                    (g,) = pyad.autograd.grad(y.sum(), x, retain_graph=True,
                                              create_graph=True)
                    results.append(g.detach().data.copy())
            except Exception as exc:          # (reported below, with the thread's error)
                errors.append(exc)

        old, old_interval = gc.get_threshold(), sys.getswitchinterval()
        gc.set_threshold(1)
        sys.setswitchinterval(1e-6)
        try:
            threads = [threading.Thread(target=work) for _ in range(6)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
        finally:
            gc.set_threshold(*old)
            sys.setswitchinterval(old_interval)
        assert errors == []
        assert len(results) == 18
        for g in results:
            np.testing.assert_allclose(g, expected.data, rtol=1e-12)


# The output Variable gets no version counter when its node saves it: it adopts the
# node's when it first needs one (a view, detach, an in-place change, _version), so a
# change made through any of them, before or after the general form was made, is seen.
PENDING_CHANGES = {
    "through a view": lambda lib, y: y[0:1].add_(1),
    "through detach": lambda lib, y: y.detach().mul_(3),
    "after reading _version": lambda lib, y: (y._version, y.add_(1)),
    "after _saved_result": lambda lib, y: (y.grad_fn._saved_result, y.add_(1)),
    "after a second view": lambda lib, y: (y.view(-1), y[1:].sub_(1)),
}


@pytest.mark.parametrize("change", sorted(PENDING_CHANGES))
@pytest.mark.parametrize("name", ["exp", "tanh", "sigmoid"])
def test_first_counter_made_after_the_save_still_catches_changes(name, change):
    for lib in LIBS:
        x = leaf(lib, [0.5, -0.3, 1.2])
        y = op(lib, name)(x * 1.0)
        with lib.no_grad():
            PENDING_CHANGES[change](lib, y)
        with pytest.raises(RuntimeError, match="is at version [12]; expected version 0"):
            y.sum().backward()


def test_unchanged_output_with_a_late_counter_backpropagates_as_torch():
    for lib in LIBS:
        x = leaf(lib, [0.5, -0.3, 1.2])
        y = (x * 1.0).tanh()
        assert y._version == 0
        view = y[0:2]                                 # a counter made, nothing changed
        y.sum().backward(retain_graph=True)
        np.testing.assert_allclose(as_np(x.grad), 1 - np.tanh([0.5, -0.3, 1.2]) ** 2,
                                   rtol=1e-15)
        assert view._version == 0
