"""Graph semantics of the engine (Variable, requires_grad, backward passes), one rule
per test."""
import threading

import numpy as np
import pytest

import pyad
from pyad import Variable
from pyad.autograd import gradcheck


def leaf(values=(1.0, 2.0, 3.0), requires_grad=True, dtype=np.float64):
    return Variable(np.array(values, dtype=dtype), requires_grad=requires_grad)


# --------------------------------------------------------------------------------
# requires_grad and volatile propagation
# --------------------------------------------------------------------------------

BINARY = {
    "add": lambda a, b: a + b,
    "mul": lambda a, b: a * b,
    "div": lambda a, b: a / b,
    "pow": lambda a, b: a ** b,
    "matmul": lambda a, b: a @ b,
}


@pytest.mark.parametrize("op", list(BINARY.values()), ids=list(BINARY))
@pytest.mark.parametrize("a_rg, b_rg", [(False, False), (True, False), (False, True),
                                        (True, True)])
def test_output_requires_grad_iff_any_input_requires_grad(op, a_rg, b_rg):
    a = leaf(requires_grad=a_rg)
    b = leaf((0.5, 1.5, 2.5), requires_grad=b_rg)
    out = op(a, b)
    assert out.requires_grad == (a_rg or b_rg)
    assert (out.grad_fn is not None) == (a_rg or b_rg)
    assert out.is_leaf == (not (a_rg or b_rg))


@pytest.mark.parametrize("op", [pyad.exp, pyad.tanh, lambda x: x.sum(), lambda x: x[1:],
                                lambda x: x.reshape(3, 1), lambda x: -x],
                         ids=["exp", "tanh", "sum", "slice", "reshape", "neg"])
@pytest.mark.parametrize("rg", [False, True])
def test_unary_output_requires_grad_iff_input_does(op, rg):
    out = op(leaf(requires_grad=rg))
    assert out.requires_grad == rg
    assert (out.grad_fn is not None) == rg


def test_requires_grad_propagates_through_long_chain_from_one_leaf():
    w = leaf(requires_grad=True)
    y = leaf(requires_grad=False)
    for _ in range(5):
        y = pyad.tanh(y * 2.0) + 1.0
    assert not y.requires_grad
    y = y * w
    for _ in range(5):
        y = pyad.tanh(y)
    assert y.requires_grad


def test_volatile_flag_is_set_by_constructor_and_defaults_false():
    assert Variable(np.ones(2), volatile=True).volatile is True
    assert Variable(np.ones(2)).volatile is False


def test_volatile_variable_does_not_require_grad():
    v = Variable(np.ones(2), requires_grad=True, volatile=True)
    assert not v.requires_grad


@pytest.mark.parametrize("op", [pyad.exp, lambda x: x * 2.0, lambda x: x.sum(), lambda x: x[0],
                                lambda x: x + x],
                         ids=["exp", "mul_scalar", "sum", "index", "add_self"])
def test_volatile_propagates_through_unary_ops(op):
    out = op(Variable(np.ones(3), volatile=True))
    assert out.volatile
    assert not out.requires_grad and out.grad_fn is None


@pytest.mark.parametrize("op", list(BINARY.values()), ids=list(BINARY))
def test_volatile_with_non_requiring_input_gives_volatile_output(op):
    v = Variable(np.ones(3), volatile=True)
    out = op(leaf(requires_grad=False), v)
    assert out.volatile and not out.requires_grad and out.grad_fn is None


@pytest.mark.parametrize("op", list(BINARY.values()), ids=list(BINARY))
def test_any_volatile_input_makes_output_volatile_even_if_other_requires_grad(op):
    v = Variable(np.ones(3), volatile=True)
    out = op(leaf(requires_grad=True), v)
    assert out.volatile
    assert not out.requires_grad
    assert out.grad_fn is None


def test_volatile_setter_on_leaf_clears_requires_grad():
    x = leaf()
    x.volatile = True
    assert x.volatile and not x.requires_grad


def test_volatile_setter_on_non_leaf_raises():
    y = leaf() * 2.0
    with pytest.raises(RuntimeError):
        y.volatile = True


# --------------------------------------------------------------------------------
# Grad mode
# --------------------------------------------------------------------------------

@pytest.mark.parametrize("ns", [pyad, pyad.autograd], ids=["pyad", "pyad.autograd"])
def test_grad_mode_names_exist_in_both_namespaces(ns):
    for name in ("no_grad", "enable_grad", "set_grad_enabled", "is_grad_enabled"):
        assert getattr(ns, name) is getattr(pyad, name)


def test_no_grad_context_records_nothing_and_restores():
    x = leaf()
    assert pyad.is_grad_enabled()
    with pyad.no_grad():
        assert not pyad.is_grad_enabled()
        y = x * 2.0
    assert pyad.is_grad_enabled()
    assert not y.requires_grad and y.grad_fn is None


def test_no_grad_restores_mode_after_exception():
    with pytest.raises(ValueError):
        with pyad.no_grad():
            raise ValueError
    assert pyad.is_grad_enabled()


def test_no_grad_as_decorator():
    @pyad.no_grad()
    def f(x):
        assert not pyad.is_grad_enabled()
        return x * 2.0

    y = f(leaf())
    assert not y.requires_grad
    assert pyad.is_grad_enabled()


def test_no_grad_as_decorator_without_parentheses():
    # torch >= 2.0 accepts @torch.no_grad as well as @torch.no_grad()
    @pyad.no_grad
    def f(x):
        return x * 2.0

    assert not f(leaf()).requires_grad
    assert pyad.is_grad_enabled()


def test_enable_grad_inside_no_grad_records():
    x = leaf()
    with pyad.no_grad():
        with pyad.enable_grad():
            assert pyad.is_grad_enabled()
            y = x * 2.0
        assert not pyad.is_grad_enabled()
        z = x * 2.0
    assert y.requires_grad and y.grad_fn is not None
    assert not z.requires_grad


def test_enable_grad_as_decorator_inside_no_grad():
    @pyad.enable_grad()
    def f(x):
        return x * 2.0

    with pyad.no_grad():
        y = f(leaf())
        assert not pyad.is_grad_enabled()
    assert y.requires_grad


@pytest.mark.parametrize("mode", [False, True])
def test_set_grad_enabled_as_context_manager(mode):
    x = leaf()
    with pyad.set_grad_enabled(mode):
        assert pyad.is_grad_enabled() == mode
        y = x * 2.0
    assert pyad.is_grad_enabled()
    assert y.requires_grad == mode


def test_set_grad_enabled_as_function_switches_immediately():
    try:
        pyad.set_grad_enabled(False)
        assert not pyad.is_grad_enabled()
        assert not (leaf() * 2.0).requires_grad
    finally:
        pyad.set_grad_enabled(True)
    assert pyad.is_grad_enabled()


def test_set_grad_enabled_as_decorator_does_not_switch_at_definition():
    @pyad.set_grad_enabled(False)
    def f(x):
        assert not pyad.is_grad_enabled()
        return x * 2.0

    assert pyad.is_grad_enabled()
    assert not f(leaf()).requires_grad
    assert pyad.is_grad_enabled()


def test_grad_mode_nesting_restores_each_level():
    states = []
    with pyad.no_grad():
        states.append(pyad.is_grad_enabled())
        with pyad.enable_grad():
            states.append(pyad.is_grad_enabled())
            with pyad.set_grad_enabled(False):
                states.append(pyad.is_grad_enabled())
                with pyad.no_grad():
                    states.append(pyad.is_grad_enabled())
                states.append(pyad.is_grad_enabled())
            states.append(pyad.is_grad_enabled())
        states.append(pyad.is_grad_enabled())
    states.append(pyad.is_grad_enabled())
    assert states == [False, True, False, False, False, True, False, True]


def test_grad_mode_is_thread_local_no_grad_in_other_thread():
    entered, release = threading.Event(), threading.Event()
    seen = {}

    def worker():
        with pyad.no_grad():
            seen["worker"] = pyad.is_grad_enabled()
            entered.set()
            release.wait(10)
            seen["worker_op"] = (leaf() * 2.0).requires_grad

    t = threading.Thread(target=worker)
    t.start()
    try:
        assert entered.wait(10)
        # the worker is inside no_grad; this thread is unaffected
        assert pyad.is_grad_enabled()
        assert (leaf() * 2.0).requires_grad
    finally:
        release.set()
        t.join(10)
    assert seen == {"worker": False, "worker_op": False}


def test_grad_mode_is_thread_local_new_thread_starts_enabled():
    seen = {}

    def worker():
        seen["enabled"] = pyad.is_grad_enabled()
        seen["records"] = (leaf() * 2.0).requires_grad

    with pyad.no_grad():
        t = threading.Thread(target=worker)
        t.start()
        t.join(10)
        assert not pyad.is_grad_enabled()
    assert seen == {"enabled": True, "records": True}


# --------------------------------------------------------------------------------
# backward: retain_graph, create_graph, accumulation, errors
# --------------------------------------------------------------------------------

def test_second_backward_through_freed_graph_raises_naming_the_node():
    x = leaf()
    y = (x * x).sum()
    y.backward()
    with pytest.raises(RuntimeError, match="MulBackward") as info:
        y.backward()
    assert "second time" in str(info.value)
    assert "retain_graph" in str(info.value)


def test_retain_graph_allows_second_backward():
    x = leaf()
    y = (x * x).sum()
    y.backward(retain_graph=True)
    y.backward()
    np.testing.assert_array_equal(x.grad.data, 4 * x.data)


def test_retain_variables_is_old_name_of_retain_graph():
    x = leaf()
    y = (x * x).sum()
    y.backward(retain_variables=True)
    y.backward()
    np.testing.assert_array_equal(x.grad.data, 4 * x.data)


def test_pyad_grad_frees_graph_unless_retained():
    x = leaf()
    y = (pyad.exp(x)).sum()
    pyad.grad(y, x)
    with pytest.raises(RuntimeError, match="ExpBackward"):
        pyad.grad(y, x)
    y = (pyad.exp(x)).sum()
    g1 = pyad.grad(y, x, retain_graph=True)
    g2 = pyad.grad(y, x)
    expected = np.exp(np.array([1.0, 2.0, 3.0]))        # d/dx sum(exp(x))
    np.testing.assert_allclose(g1[0].data, expected, rtol=1e-15)
    np.testing.assert_allclose(g2[0].data, expected, rtol=1e-15)


def test_gradients_accumulate_across_backward_calls():
    x = leaf()
    (x * 2.0).sum().backward()
    (x * x).sum().backward()
    np.testing.assert_array_equal(x.grad.data, 2.0 + 2 * x.data)


def test_leaf_grads_do_not_alias_each_other():
    a, b = leaf(), leaf()
    (a + b).sum().backward()
    assert not np.shares_memory(a.grad.data, b.grad.data)
    (a * 2.0).sum().backward()          # accumulating into a.grad leaves b.grad alone
    np.testing.assert_array_equal(b.grad.data, np.ones(3))
    np.testing.assert_array_equal(a.grad.data, np.full(3, 3.0))


def test_leaf_grad_does_not_alias_the_user_gradient():
    x = leaf()
    g = np.ones(3)
    (x + 0.0).backward(Variable(g))
    assert not np.shares_memory(x.grad.data, g)
    (x + 0.0).backward(Variable(g))
    np.testing.assert_array_equal(g, np.ones(3))
    np.testing.assert_array_equal(x.grad.data, np.full(3, 2.0))


def test_leaf_grad_from_broadcast_is_a_writable_array_of_the_leaf_shape():
    x = leaf((1.0,))
    x.expand(3).sum().backward()
    assert x.grad.shape == (1,) and x.grad.data.flags.writeable
    x.sum().backward()
    np.testing.assert_array_equal(x.grad.data, [4.0])


def test_grad_is_none_until_first_backward():
    x = leaf()
    assert x.grad is None
    y = x * 2.0
    assert x.grad is None
    y.sum().backward()
    assert x.grad is not None


def test_each_node_runs_once_with_summed_gradients_on_diamond_graph():
    x = leaf((0.5, 1.0))
    a = pyad.exp(x)
    b = a * 2.0
    c = a * a
    d = pyad.tanh(a)
    (b + c + d).sum().backward()
    ea = np.exp(x.data)
    expected = ea * (2.0 + 2 * ea + (1 - np.tanh(ea) ** 2))
    np.testing.assert_allclose(x.grad.data, expected, rtol=1e-12)


def test_create_graph_gives_differentiable_gradient_hessian():
    x = leaf((0.5, 1.0, 1.5))
    y = (x ** 3).sum() + (x[0] * x[1] * x[2])
    (g,) = pyad.grad(y, x, create_graph=True)
    assert g.requires_grad and g.grad_fn is not None
    np.testing.assert_allclose(g.data, 3 * x.data ** 2 + np.array([1.5 * 1.0, 0.5 * 1.5,
                                                                    0.5 * 1.0]))
    rows = [pyad.grad(g[i], x, retain_graph=True)[0].data for i in range(3)]
    a, b, c = x.data
    expected = np.array([[6 * a, c, b], [c, 6 * b, a], [b, a, 6 * c]])
    np.testing.assert_allclose(np.stack(rows), expected, rtol=1e-12)


def test_create_graph_backward_leaves_grad_with_history():
    x = leaf((0.5, 1.0))
    (x ** 3).sum().backward(create_graph=True)
    assert x.grad.requires_grad
    x2 = x.grad.sum()
    (h,) = pyad.grad(x2, x)
    np.testing.assert_allclose(h.data, 6 * x.data)


def test_hessian_matches_torch():
    torch = pytest.importorskip("torch")
    a = np.array([0.3, -0.7, 1.1])
    x = leaf(a)
    tx = torch.tensor(a, requires_grad=True)

    def f(L, v):
        return (L.tanh(v) * v).sum() * (v * v).sum()

    (g,) = pyad.grad(f(pyad, x), x, create_graph=True)
    (tg,) = torch.autograd.grad(f(torch, tx), tx, create_graph=True)
    H = np.stack([pyad.grad(g[i], x, retain_graph=True)[0].data for i in range(3)])
    tH = np.stack([torch.autograd.grad(tg[i], tx, retain_graph=True)[0].numpy()
                   for i in range(3)])
    np.testing.assert_allclose(H, tH, rtol=1e-10, atol=1e-12)


def test_non_scalar_backward_without_gradient_raises():
    y = leaf() * 2.0
    with pytest.raises(RuntimeError, match="scalar"):
        y.backward()


def test_non_scalar_grad_without_grad_outputs_raises():
    x = leaf()
    with pytest.raises(RuntimeError, match="scalar"):
        pyad.grad(x * 2.0, x)


def test_non_scalar_backward_with_gradient():
    x = leaf()
    (x * 2.0).backward(Variable(np.array([1.0, 10.0, 100.0])))
    np.testing.assert_array_equal(x.grad.data, [2.0, 20.0, 200.0])


def test_one_element_non_0d_backward_without_gradient_works():
    x = leaf((3.0,))
    (x * x).backward()
    np.testing.assert_array_equal(x.grad.data, [6.0])


@pytest.mark.parametrize("gshape", [(2,), (3, 1), (1, 3), ()])
def test_gradient_of_wrong_shape_raises_mismatch_in_shape(gshape):
    y = leaf() * 2.0
    with pytest.raises(RuntimeError, match="Mismatch in shape"):
        y.backward(Variable(np.ones(gshape)))


def test_grad_outputs_of_wrong_shape_raises_mismatch_in_shape():
    x = leaf()
    with pytest.raises(RuntimeError, match="Mismatch in shape"):
        pyad.grad(x * 2.0, x, grad_outputs=Variable(np.ones(4)))


def test_backward_on_variable_not_requiring_grad_raises():
    y = leaf(requires_grad=False).sum()
    with pytest.raises(RuntimeError, match="does not require grad"):
        y.backward()


def test_backward_on_output_made_under_no_grad_raises():
    x = leaf()
    with pyad.no_grad():
        y = (x * 2.0).sum()
    with pytest.raises(RuntimeError):
        y.backward()


@pytest.mark.parametrize("data", [np.arange(3), np.array([True, False]),
                                  np.arange(3, dtype=np.int32)], ids=["int64", "bool", "int32"])
def test_integer_or_bool_variable_asked_to_require_grad_raises(data):
    with pytest.raises(RuntimeError, match="floating point"):
        Variable(data, requires_grad=True)
    v = Variable(data)
    with pytest.raises(RuntimeError, match="floating point"):
        v.requires_grad_()
    with pytest.raises(RuntimeError, match="floating point"):
        v.requires_grad = True


def test_integer_factory_with_requires_grad_raises():
    with pytest.raises(RuntimeError):
        pyad.arange(3, requires_grad=True)


@pytest.mark.parametrize("data", ["abc", b"abc", ["a", "b"], {"a": 1}],
                         ids=["str", "bytes", "list_of_str", "dict"])
def test_non_numeric_data_raises_type_error(data):
    with pytest.raises(TypeError):
        pyad.tensor(data)
    with pytest.raises(TypeError):
        Variable(data)


# --------------------------------------------------------------------------------
# grad() keywords and backward(inputs=)
# --------------------------------------------------------------------------------

def test_grad_returns_gradients_without_touching_dot_grad():
    a, b = leaf(), leaf((4.0, 5.0, 6.0))
    ga, gb = pyad.grad((a * b).sum(), (a, b))
    np.testing.assert_array_equal(ga.data, b.data)
    np.testing.assert_array_equal(gb.data, a.data)
    assert a.grad is None and b.grad is None


def test_grad_with_grad_outputs():
    x = leaf()
    (g,) = pyad.grad(x * x, x, grad_outputs=Variable(np.array([1.0, 0.5, 0.0])))
    np.testing.assert_array_equal(g.data, 2 * x.data * np.array([1.0, 0.5, 0.0]))


def test_grad_with_grad_outputs_as_list_for_several_outputs():
    x = leaf()
    g = pyad.grad([x * 2.0, (x * x).sum()], [x],
                  grad_outputs=[Variable(np.ones(3)), None])
    np.testing.assert_array_equal(g[0].data, 2.0 + 2 * x.data)


def test_grad_with_non_leaf_input():
    x = leaf()
    h = x * 3.0
    (g,) = pyad.grad((h * h).sum(), h)
    np.testing.assert_array_equal(g.data, [6.0, 12.0, 18.0])     # 2h = 6x
    assert x.grad is None


def test_grad_only_inputs_false_accumulates_into_other_leaves():
    a, b = leaf(), leaf((4.0, 5.0, 6.0))
    (ga,) = pyad.grad((a * b).sum(), a, only_inputs=False)
    np.testing.assert_array_equal(ga.data, b.data)
    np.testing.assert_array_equal(b.grad.data, a.data)


def test_grad_only_inputs_true_does_not_accumulate():
    a, b = leaf(), leaf((4.0, 5.0, 6.0))
    pyad.grad((a * b).sum(), a)
    assert b.grad is None and a.grad is None


def test_grad_of_unused_input_raises_without_allow_unused():
    a, unused = leaf(), leaf()
    with pytest.raises(RuntimeError, match="allow_unused"):
        pyad.grad((a * a).sum(), [a, unused])


def test_grad_allow_unused_returns_none():
    a, unused = leaf(), leaf()
    ga, gu = pyad.grad((a * a).sum(), [a, unused], allow_unused=True)
    np.testing.assert_array_equal(ga.data, 2 * a.data)
    assert gu is None


def test_grad_materialize_grads_returns_zeros_for_unused():
    a, unused = leaf(), leaf((1.0, 2.0))
    ga, gu = pyad.grad((a * a).sum(), [a, unused], materialize_grads=True)
    np.testing.assert_array_equal(gu.data, np.zeros(2))
    assert gu.shape == unused.shape


def test_grad_of_input_not_requiring_grad_raises():
    a, b = leaf(), leaf(requires_grad=False)
    with pytest.raises(RuntimeError):
        pyad.grad((a * b).sum(), b)


def test_backward_inputs_accumulates_only_those():
    a, b, c = leaf(), leaf((4.0, 5.0, 6.0)), leaf((1.0, 1.0, 1.0))
    (a * b * c).sum().backward(inputs=[b])
    assert a.grad is None and c.grad is None
    np.testing.assert_array_equal(b.grad.data, a.data * c.data)


def test_backward_inputs_with_non_leaf_gives_it_grad():
    a = leaf()
    h = a * 2.0
    (h * h).sum().backward(inputs=[h])
    assert a.grad is None
    np.testing.assert_array_equal(h.grad.data, [4.0, 8.0, 12.0])    # 2h = 4a


def test_backward_inputs_empty_raises():
    with pytest.raises(RuntimeError):
        (leaf() * 2.0).sum().backward(inputs=[])


def test_autograd_backward_old_keyword_names():
    x = leaf()
    pyad.autograd.backward(variables=[x * 2.0], grad_variables=[Variable(np.ones(3))])
    np.testing.assert_array_equal(x.grad.data, [2.0, 2.0, 2.0])
    pyad.autograd.backward([x * x], grad_variables=[Variable(np.ones(3))],
                           retain_variables=False)
    np.testing.assert_array_equal(x.grad.data, 2.0 + 2 * x.data)


def test_autograd_backward_several_roots_sum_their_gradients():
    x = leaf()
    pyad.autograd.backward([(x * 2.0).sum(), (x * x).sum()])
    np.testing.assert_array_equal(x.grad.data, 2.0 + 2 * x.data)


def test_autograd_backward_new_keyword_names():
    x = leaf()
    pyad.autograd.backward(tensors=x * 3.0, grad_tensors=Variable(np.ones(3)))
    np.testing.assert_array_equal(x.grad.data, [3.0, 3.0, 3.0])


# --------------------------------------------------------------------------------
# Hooks
# --------------------------------------------------------------------------------

def test_register_hook_sees_gradient_and_can_replace_it():
    x = leaf()
    y = x * 2.0
    seen = []

    def hook(g):
        seen.append(g.data.copy())
        return g * 10.0

    y.register_hook(hook)
    y.sum().backward()
    np.testing.assert_array_equal(seen[0], np.ones(3))
    np.testing.assert_array_equal(x.grad.data, np.full(3, 20.0))


def test_register_hook_returning_none_keeps_gradient():
    x = leaf()
    seen = []
    x.register_hook(lambda g: seen.append(g.data.copy()))
    (x * 3.0).sum().backward()
    np.testing.assert_array_equal(seen[0], np.full(3, 3.0))
    np.testing.assert_array_equal(x.grad.data, np.full(3, 3.0))


def test_register_hook_on_leaf_replacement_goes_into_dot_grad():
    x = leaf()
    x.register_hook(lambda g: g * 0.0)
    (x * 3.0).sum().backward()
    np.testing.assert_array_equal(x.grad.data, np.zeros(3))


def test_hook_handle_remove_unregisters():
    x = leaf()
    calls = []
    handle = x.register_hook(lambda g: calls.append(1))
    (x * 2.0).sum().backward()
    handle.remove()
    (x * 2.0).sum().backward()
    assert calls == [1]


def test_register_hook_on_variable_not_requiring_grad_raises():
    with pytest.raises(RuntimeError):
        leaf(requires_grad=False).register_hook(lambda g: g)


def test_retain_grad_keeps_non_leaf_grad():
    x = leaf()
    h = x * 2.0
    h.retain_grad()
    assert h.retains_grad
    (h * h).sum().backward()
    np.testing.assert_array_equal(h.grad.data, [4.0, 8.0, 12.0])    # 2h = 4x


def test_non_leaf_grad_is_none_without_retain_grad():
    x = leaf()
    h = x * 2.0
    (h * h).sum().backward()
    with pytest.warns(UserWarning, match="retain_grad"):
        assert h.grad is None
    assert not h.retains_grad


def test_retain_grad_accumulates_across_backwards():
    x = leaf()
    h = x * 2.0
    h.retain_grad()
    y = h.sum()
    y.backward(retain_graph=True)
    y.backward()
    np.testing.assert_array_equal(h.grad.data, np.full(3, 2.0))


def test_grad_fn_register_hook_gets_grad_inputs_and_outputs():
    x = leaf()
    y = x * 3.0
    seen = []
    y.grad_fn.register_hook(lambda gi, go: seen.append((gi, go)))
    y.sum().backward()
    (grad_inputs, grad_outputs), = seen
    np.testing.assert_array_equal(grad_outputs[0].data, np.ones(3))
    np.testing.assert_array_equal(grad_inputs[0].data, np.full(3, 3.0))


def test_grad_fn_register_hook_can_replace_grad_inputs():
    x = leaf()
    y = x * 3.0
    y.grad_fn.register_hook(lambda gi, go: (gi[0] * 2.0,) + tuple(gi[1:]))
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.data, np.full(3, 6.0))


def test_grad_fn_register_prehook_can_replace_grad_outputs():
    x = leaf()
    y = x * 3.0
    seen = []

    def prehook(go):
        seen.append(go[0].data.copy())
        return (go[0] * 5.0,)

    y.grad_fn.register_prehook(prehook)
    y.sum().backward()
    np.testing.assert_array_equal(seen[0], np.ones(3))
    np.testing.assert_array_equal(x.grad.data, np.full(3, 15.0))


def test_grad_fn_hook_handles_remove():
    x = leaf()
    y = x * 3.0
    calls = []
    h1 = y.grad_fn.register_hook(lambda gi, go: calls.append("post"))
    h2 = y.grad_fn.register_prehook(lambda go: calls.append("pre"))
    h1.remove()
    h2.remove()
    y.sum().backward()
    assert calls == []


def test_post_accumulate_grad_hook_receives_variable_with_updated_grad():
    x = leaf()
    seen = []
    x.register_post_accumulate_grad_hook(lambda v: seen.append((v, v.grad.data.copy())))
    (x * 2.0).sum().backward()
    (x * 2.0).sum().backward()
    assert seen[0][0] is x
    np.testing.assert_array_equal(seen[0][1], np.full(3, 2.0))
    np.testing.assert_array_equal(seen[1][1], np.full(3, 4.0))


def test_post_accumulate_grad_hook_on_non_leaf_raises():
    with pytest.raises(RuntimeError):
        (leaf() * 2.0).register_post_accumulate_grad_hook(lambda v: None)


# --------------------------------------------------------------------------------
# Version counters and in-place
# --------------------------------------------------------------------------------

def test_modifying_saved_input_in_place_raises_naming_node_and_versions():
    x = leaf()
    h = x * 1.0
    y = h * h
    h.add_(1.0)
    with pytest.raises(RuntimeError) as info:
        y.sum().backward()
    msg = str(info.value)
    assert "modified by an inplace operation" in msg
    assert "MulBackward" in msg
    assert "version 1" in msg and "version 0" in msg


def test_modifying_saved_output_in_place_raises_naming_node():
    x = leaf()
    y = pyad.exp(x)
    y.mul_(2.0)
    with pytest.raises(RuntimeError, match="ExpBackward"):
        y.sum().backward()


def test_version_counter_increments_per_inplace_op():
    x = leaf(requires_grad=False)
    assert x._version == 0
    x.add_(1.0)
    x.mul_(2.0)
    x += 1.0
    assert x._version == 3


def test_inplace_on_leaf_requiring_grad_raises():
    x = leaf()
    with pytest.raises(RuntimeError, match="leaf"):
        x.add_(1.0)
    with pytest.raises(RuntimeError, match="leaf"):
        x *= 2.0


def test_inplace_on_leaf_requiring_grad_works_under_no_grad():
    x = leaf()
    with pyad.no_grad():
        x.mul_(2.0)
        x -= 1.0
    np.testing.assert_array_equal(x.data, [1.0, 3.0, 5.0])
    assert x.is_leaf and x.requires_grad
    (x * x).sum().backward()
    np.testing.assert_array_equal(x.grad.data, [2.0, 6.0, 10.0])


def test_inplace_on_non_leaf_rewrites_history_hand_math():
    x = leaf((1.0, 2.0, 3.0))
    h = x * x          # h = x^2
    h.mul_(x)          # h = x^3
    h.add_(x)          # h = x^3 + x
    h.sum().backward()
    np.testing.assert_allclose(x.grad.data, 3 * x.data ** 2 + 1)


def test_inplace_on_non_leaf_rewrites_history_matches_torch():
    torch = pytest.importorskip("torch")
    a = np.array([0.3, -1.2, 0.8])
    b = np.array([1.5, 0.5, -0.7])

    def f(L, x, y):
        h = L.tanh(x) * y
        h.mul_(y)
        h += x
        h.div_(y * y + 1.0)
        return (h * x).sum()

    x, y = Variable(a, requires_grad=True), Variable(b, requires_grad=True)
    tx, ty = torch.tensor(a, requires_grad=True), torch.tensor(b, requires_grad=True)
    f(pyad, x, y).backward()
    f(torch, tx, ty).backward()
    np.testing.assert_allclose(x.grad.data, tx.grad.numpy(), rtol=1e-10)
    np.testing.assert_allclose(y.grad.data, ty.grad.numpy(), rtol=1e-10)


def test_inplace_on_non_leaf_passes_gradcheck():
    def f(x, y):
        h = x * 1.0
        h.mul_(y)
        h.add_(y)
        return h * x

    x = Variable(np.array([0.3, -1.2, 0.8]), requires_grad=True)
    y = Variable(np.array([1.5, 0.5, -0.7]), requires_grad=True)
    assert gradcheck(f, (x, y))


@pytest.mark.parametrize("make", [lambda x: x[1:], lambda x: x.view(3, 1), lambda x: x.T,
                                  lambda x: x.unsqueeze(0), lambda x: x[None, ...],
                                  lambda x: x.reshape(1, 3), lambda x: x.expand(2, 3)],
                         ids=["slice", "view", "T", "unsqueeze", "none_index", "reshape",
                              "expand"])
def test_views_share_the_version_counter(make):
    base = Variable(np.ones(3))
    view = make(base)
    base.add_(1.0)
    assert view._version == base._version == 1
    if view.data.flags.writeable:
        view.mul_(2.0)
        assert base._version == view._version == 2


def test_inplace_on_view_caught_by_saved_base_version_check():
    x = leaf()
    h = x * 1.0
    y = pyad.exp(h) * h      # MulBackward saves h
    with pyad.no_grad():
        h[0:2].mul_(2.0)     # through a view of h
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


def test_advanced_index_result_has_own_version_counter():
    base = Variable(np.ones(3))
    copy = base[np.array([0, 1])]
    base.add_(1.0)
    assert copy._version == 0


# --------------------------------------------------------------------------------
# Attributes: data, grad, requires_grad, detach
# --------------------------------------------------------------------------------

def test_data_assignment_replaces_array_without_history():
    x = leaf()
    x.data = np.array([7.0, 8.0])
    assert x.shape == (2,)
    assert x.requires_grad and x.is_leaf
    (x * x).sum().backward()
    np.testing.assert_array_equal(x.grad.data, [14.0, 16.0])


def test_data_is_the_ndarray_itself():
    a = np.ones(3)
    x = Variable(a)
    assert x.data is a


def test_grad_assignment_accepts_matching_shape_and_dtype():
    x = leaf()
    x.grad = Variable(np.ones(3))
    np.testing.assert_array_equal(x.grad.data, np.ones(3))
    x.grad = None
    assert x.grad is None


def test_grad_assignment_with_wrong_shape_raises():
    x = leaf()
    with pytest.raises(RuntimeError, match="size"):
        x.grad = Variable(np.ones(4))


def test_grad_assignment_with_wrong_dtype_raises():
    x = leaf()
    with pytest.raises(RuntimeError, match="type"):
        x.grad = Variable(np.ones(3, dtype=np.float32))


def test_assigned_grad_accumulates_on_backward():
    x = leaf()
    x.grad = Variable(np.full(3, 10.0))
    (x * 2.0).sum().backward()
    np.testing.assert_array_equal(x.grad.data, np.full(3, 12.0))


def test_requires_grad_setter_on_leaf():
    x = leaf(requires_grad=False)
    x.requires_grad = True
    assert x.requires_grad
    assert x.requires_grad_(False) is x
    assert not x.requires_grad


def test_requires_grad_setter_on_non_leaf_raises():
    y = leaf() * 2.0
    with pytest.raises(RuntimeError, match="leaf"):
        y.requires_grad = False
    with pytest.raises(RuntimeError, match="leaf"):
        y.requires_grad_(False)


def test_detach_shares_data_and_has_no_history():
    x = leaf()
    y = x * 2.0
    d = y.detach()
    assert d.grad_fn is None and not d.requires_grad and d.is_leaf
    assert np.shares_memory(d.data, y.data)
    assert y.grad_fn is not None   # y itself is unchanged


def test_detach_shares_version_counter():
    y = leaf() * 2.0
    d = y.detach()
    d.add_(1.0)
    assert y._version == 1


def test_detached_value_blocks_gradient():
    x = leaf()
    y = (x * x.detach()).sum()
    y.backward()
    np.testing.assert_array_equal(x.grad.data, [1.0, 2.0, 3.0])


def test_detach_in_place_makes_a_leaf():
    x = leaf()
    y = x * 2.0
    assert y.detach_() is y
    assert y.is_leaf and y.grad_fn is None and not y.requires_grad


# --------------------------------------------------------------------------------
# Graph introspection
# --------------------------------------------------------------------------------

def test_is_leaf():
    x = leaf()
    assert x.is_leaf
    assert leaf(requires_grad=False).is_leaf
    assert not (x * 2.0).is_leaf
    with pyad.no_grad():
        assert (x * 2.0).is_leaf


def test_grad_fn_name_and_next_functions():
    a, b = leaf(), leaf(requires_grad=False)
    y = pyad.exp(a * b).sum()
    assert y.grad_fn.name() == "SumBackward"
    (exp_fn, nr), = y.grad_fn.next_functions
    assert exp_fn.name() == "ExpBackward" and nr == 0
    (mul_fn, _), = exp_fn.next_functions
    assert mul_fn.name() == "MulBackward"
    (acc, _), (none, _) = mul_fn.next_functions
    assert none is None                       # b does not require grad
    assert acc.name() == "AccumulateGrad"
    assert acc.variable is a


def test_same_leaf_has_one_accumulate_grad_node():
    a = leaf()
    y = a * a
    (n1, _), (n2, _) = y.grad_fn.next_functions
    assert n1 is n2


def test_creator_is_alias_of_grad_fn():
    x = leaf()
    y = x * 2.0
    assert y.creator is y.grad_fn
    assert x.creator is None


def test_grad_fn_is_none_for_leaves():
    assert leaf().grad_fn is None


# --------------------------------------------------------------------------------
# repr, NumPy interplay, Python protocol
# --------------------------------------------------------------------------------

def test_repr_shows_grad_fn():
    y = leaf() * 2.0
    assert "grad_fn=<MulBackward>" in repr(y)


def test_repr_shows_requires_grad_on_leaf():
    r = repr(leaf())
    assert "requires_grad=True" in r
    assert "grad_fn" not in r


def test_repr_of_plain_variable_has_no_autograd_info():
    r = repr(leaf(requires_grad=False))
    assert "requires_grad" not in r and "grad_fn" not in r
    assert r.startswith("tensor(")


def test_repr_shows_dtype_only_when_not_default():
    assert "dtype" not in repr(Variable(np.ones(2, dtype=np.float32)))
    assert "float64" in repr(Variable(np.ones(2)))


BFLOAT16_VALUES = [([1.5, 2.0, 3.25], "tensor([1.5000, 2.0000, 3.2500], dtype=bfloat16)"),
                   ([1.0, 2.0], "tensor([1., 2.], dtype=bfloat16)"),
                   ([float("nan"), float("inf"), -1.0],
                    "tensor([nan, inf, -1.], dtype=bfloat16)"),
                   ([0.001, 1e5], "tensor([9.9945e-04, 9.9840e+04], dtype=bfloat16)"),
                   ([-3.0, 256.0], "tensor([ -3., 256.], dtype=bfloat16)"),
                   (3.5, "tensor(3.5000, dtype=bfloat16)"),
                   ([], "tensor([], dtype=bfloat16)"),
                   ([[1.0, 0.5], [-2.0, 0.25]],
                    "tensor([[ 1.0000,  0.5000],\n        [-2.0000,  0.2500]], dtype=bfloat16)")]


@pytest.mark.parametrize("values, expected", BFLOAT16_VALUES)
def test_bfloat16_variables_print_as_floats_like_torch(values, expected):
    ml_dtypes = pytest.importorskip("ml_dtypes")
    v = Variable(np.array(values, dtype=ml_dtypes.bfloat16))
    assert repr(v) == str(v) == expected
    try:
        import torch
    except ImportError:
        return
    theirs = repr(torch.tensor(values, dtype=torch.bfloat16))
    assert repr(v) == theirs.replace("torch.bfloat16", "bfloat16")


def test_repr_of_large_variable_is_summarised():
    r = repr(Variable(np.arange(100000.0)))
    assert "..." in r
    assert len(r) < 1000


def test_asarray_works_when_not_requiring_grad():
    a = np.arange(3.0)
    v = Variable(a)
    out = np.asarray(v)
    assert isinstance(out, np.ndarray)
    np.testing.assert_array_equal(out, a)
    assert np.shares_memory(out, a)


def test_asarray_raises_when_requiring_grad_pointing_to_detach():
    with pytest.raises(RuntimeError, match="detach"):
        np.asarray(leaf())


def test_numpy_method_works_when_not_requiring_grad():
    a = np.arange(3.0)
    assert Variable(a).numpy() is a


def test_numpy_method_raises_when_requiring_grad():
    with pytest.raises(RuntimeError, match="detach"):
        leaf().numpy()
    np.testing.assert_array_equal(leaf().detach().numpy(), [1.0, 2.0, 3.0])


def test_hash_is_identity():
    a, b = leaf(), leaf()
    assert hash(a) == id(a)
    d = {a: "a", b: "b"}
    assert d[a] == "a" and d[b] == "b"
    assert len({a, b, a}) == 2


def test_eq_is_elementwise():
    a = Variable(np.array([1.0, 2.0, 3.0]))
    b = Variable(np.array([1.0, 0.0, 3.0]))
    eq = a == b
    assert isinstance(eq, Variable)
    assert eq.dtype == np.bool_
    np.testing.assert_array_equal(eq.data, [True, False, True])
    np.testing.assert_array_equal((a == 2.0).data, [False, True, False])


@pytest.mark.parametrize("op, expected", [
    ("<", [True, False, False]), ("<=", [True, True, False]), (">", [False, False, True]),
    (">=", [False, True, True]), ("!=", [True, False, True])])
def test_comparisons_are_elementwise_bool_without_grad(op, expected):
    x = leaf()
    out = eval("x %s 2.0" % op)
    assert out.dtype == np.bool_ and not out.requires_grad
    np.testing.assert_array_equal(out.data, expected)


def test_item_tolist_size_numel_dim():
    x = Variable(np.arange(6.0).reshape(2, 3))
    assert x.size() == (2, 3)
    assert x.size(1) == 3 and x.size(-1) == 3
    assert x.numel() == 6
    assert x.dim() == 2 and x.ndim == 2
    assert x.shape == (2, 3)
    assert x.tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]
    assert Variable(np.array([[2.5]])).item() == 2.5
    assert isinstance(Variable(np.array(2.5)).item(), float)


def test_item_of_multi_element_raises():
    with pytest.raises(RuntimeError):
        Variable(np.ones(2)).item()


def test_item_works_on_variable_requiring_grad():
    assert leaf((4.0,)).item() == 4.0


# --------------------------------------------------------------------------------
# Dtypes and factories
# --------------------------------------------------------------------------------

@pytest.mark.parametrize("make", [
    lambda: pyad.tensor([1.0]), lambda: Variable(1.5), lambda: Variable([1.0, 2.0]),
    lambda: pyad.zeros(2), lambda: pyad.ones(2, 3), lambda: pyad.rand(2),
    lambda: pyad.randn(2), lambda: pyad.full((2,), 1.5), lambda: pyad.empty(2),
    lambda: pyad.linspace(0, 1, 3)],
    ids=["tensor_list", "Variable_float", "Variable_list", "zeros", "ones", "rand", "randn",
         "full", "empty", "linspace"])
def test_default_float_dtype_is_float32(make):
    assert make().dtype == np.float32


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64, np.int32, np.int64])
def test_numpy_arrays_keep_their_dtype(dtype):
    a = np.ones(2, dtype=dtype)
    assert Variable(a).dtype == dtype
    assert pyad.tensor(a).dtype == dtype


def test_python_ints_give_int64():
    assert Variable(3).dtype == np.int64
    assert pyad.tensor([1, 2]).dtype == np.int64


def test_variable_shares_ndarray_memory_tensor_copies():
    a = np.ones(3)
    assert np.shares_memory(Variable(a).data, a)
    assert not np.shares_memory(pyad.tensor(a).data, a)


def test_factory_dtype_argument():
    assert pyad.zeros(2, dtype=pyad.float64).dtype == np.float64
    assert pyad.tensor([1.0], dtype="float64").dtype == np.float64


def test_factory_requires_grad_argument():
    x = pyad.zeros(2, requires_grad=True)
    assert x.requires_grad and x.is_leaf


def test_set_default_dtype_changes_python_float_dtype():
    previous = pyad.get_default_dtype()
    try:
        pyad.set_default_dtype(np.float64)
        assert pyad.tensor([1.0]).dtype == np.float64
        assert Variable(1.5).dtype == np.float64
        assert pyad.zeros(2).dtype == np.float64
    finally:
        pyad.set_default_dtype(previous)
    assert pyad.tensor([1.0]).dtype == np.float32


@pytest.mark.parametrize("factory", [lambda: pyad.rand(3, 2), lambda: pyad.randn(4),
                                     lambda: pyad.randint(0, 10, (5,))],
                         ids=["rand", "randn", "randint"])
def test_manual_seed_makes_random_factories_reproducible(factory):
    pyad.manual_seed(1234)
    a = factory().data.copy()
    b = factory().data.copy()
    pyad.manual_seed(1234)
    a2 = factory().data.copy()
    b2 = factory().data.copy()
    np.testing.assert_array_equal(a, a2)
    np.testing.assert_array_equal(b, b2)
    assert not np.array_equal(a, b)


def test_different_seeds_give_different_values():
    pyad.manual_seed(1)
    a = pyad.randn(5).data.copy()
    pyad.manual_seed(2)
    b = pyad.randn(5).data.copy()
    assert not np.array_equal(a, b)


def test_numpy_scalars_keep_their_dtype_python_floats_use_the_default():
    assert pyad.Variable(np.float64(2.0)).dtype == np.float64
    assert pyad.tensor(np.float32(1.0)).dtype == np.float32
    assert pyad.Variable(2.0).dtype == np.float32


def test_second_backward_through_a_saved_python_number_raises():
    # x * 2 keeps just the number 2, but torch 2.13 saves it as a wrapped-number tensor
    # and frees it with the graph, so a second backward raises there too.
    x = pyad.ones(2, requires_grad=True)
    y = x * 2
    y.backward(pyad.ones(2))
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        y.backward(pyad.ones(2))


def test_second_backward_through_a_freed_array_constant_raises():
    x = pyad.ones(2, requires_grad=True)
    y = x * np.ones(2)
    y.backward(pyad.ones(2))
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        y.backward(pyad.ones(2))


def test_reinforce_on_a_non_stochastic_output_raises_clearly():
    y = pyad.ones(2, requires_grad=True) * 2
    with pytest.raises(RuntimeError, match="reinforce.*stochastic"):
        y.reinforce(pyad.ones(2))


# -- torch's legacy constructor through pyad.Tensor (the Variable class) --------------

@pytest.mark.parametrize("data", [[0, 1], (2, 3), [[1, 2], [3, 4]], [True, False], [1.5]])
def test_tensor_of_a_python_sequence_has_the_default_float_dtype(data):
    torch = pytest.importorskip("torch")
    expected = torch.Tensor(data)
    got = pyad.Tensor(data)
    assert got.dtype == np.float32 and str(expected.dtype) == "torch.float32"
    np.testing.assert_array_equal(got.data, expected.numpy())
    # the factory infers the dtype, as torch.tensor does
    assert pyad.tensor(data).dtype == np.dtype(str(torch.tensor(data).dtype)[6:])


def test_tensor_of_a_list_follows_the_default_dtype():
    old = pyad.get_default_dtype()
    pyad.set_default_dtype(pyad.float64)
    try:
        assert pyad.Tensor([0, 1]).dtype == np.float64
        assert pyad.Tensor(2, 3).dtype == np.float64
    finally:
        pyad.set_default_dtype(old)


@pytest.mark.parametrize("sizes", [(2, 3), (2, 3, 4), (0, 5), (1, 1, 1, 1)])
def test_tensor_of_two_or_more_ints_is_a_shape(sizes):
    torch = pytest.importorskip("torch")
    got = pyad.Tensor(*sizes)
    assert tuple(got.shape) == tuple(torch.Tensor(*sizes).shape) == sizes
    assert got.dtype == np.float32 and not got.requires_grad
    assert not got.data.any()                    # zeros (torch leaves it unset)
    p = pyad.nn.Parameter(pyad.Tensor(*sizes))   # the legacy layer idiom
    assert p.requires_grad and tuple(p.shape) == sizes


def test_tensor_of_a_negative_size_is_refused_as_torch():
    torch = pytest.importorskip("torch")
    with pytest.raises(RuntimeError, match="negative dimension"):
        torch.Tensor(2, -1)
    with pytest.raises(RuntimeError, match="negative dimension -1"):
        pyad.Tensor(2, -1)


def test_legacy_variable_of_a_float_tensor_from_the_reference_text():
    # seeds/2: Variable(torch.Tensor([0, 0, 0]), requires_grad=True) with a hook
    v = Variable(pyad.Tensor([0, 0, 0]), requires_grad=True)
    h = v.register_hook(lambda grad: grad * 2)
    v.backward(pyad.Tensor([1, 1, 1]))
    np.testing.assert_array_equal(v.grad.data, [2.0, 2.0, 2.0])
    h.remove()


def test_set_sequence_nr_orders_ready_nodes_and_ties_do_not_compare_nodes():
    # Of the nodes ready at once the highest sequence number runs first; equal numbers
    # (set by hand) must not make the ready heap compare two nodes (TypeError).
    x = pyad.Variable(np.ones(3), requires_grad=True)
    branches = [x * float(k + 1) for k in range(4)]
    order = []
    for k, b in enumerate(branches):
        b.grad_fn._set_sequence_nr(7)
        b.register_hook(lambda g, k=k: order.append(k))
    sum(b.sum() for b in branches).backward(retain_graph=True)
    assert sorted(order) == [0, 1, 2, 3]
    np.testing.assert_array_equal(x.grad, np.full(3, 10.0))
    branches[2].grad_fn._set_sequence_nr(10 ** 6)
    order.clear()
    x.grad = None
    sum(b.sum() for b in branches).backward()
    assert order[0] == 2
    with pytest.raises(OverflowError, match="_set_sequence_nr"):     # (torch: OverflowError)
        branches[0].grad_fn._set_sequence_nr(-1)
    with pytest.raises(TypeError, match="_set_sequence_nr"):         # (torch: TypeError)
        branches[0].grad_fn._set_sequence_nr(1.5)
    acc = branches[0].grad_fn.next_functions[0][0]
    with pytest.raises(ValueError, match="accumulator"):
        acc._set_sequence_nr(3)
