"""Hooks: every registered hook runs, in order, as in torch (Variable hooks, grad_fn
hooks and pre-hooks, removal); hooks of nodes that need not run do not run; hooks and
retain_grad on values captured by ``backward(inputs=...)``; a hook that changes the
gradient's dtype raises as in torch.
"""
import numpy as np
import pytest

import pyad
from pyad import Variable
from _torch_compare import torch, as_np, both, raises_in_both, torch_or_skip


# -- hooks of nodes that need not run, and of captured inputs --------------------------

def test_tensor_hook_on_a_value_whose_gradient_is_not_needed_does_not_run():
    def scenario(lib):
        calls = []
        x = lib.ones(2, requires_grad=True)
        y = lib.ones(2, requires_grad=True)
        o = x * 1
        o.register_hook(lambda g: calls.append("o"))
        b = o + y
        gb, gy = lib.autograd.grad((o + b).sum(), (b, y))
        return len(calls), gb, gy

    both(scenario, (0, [1.0, 1.0], [1.0, 1.0]))


def test_prehook_of_a_captured_node_that_does_not_execute_does_not_run():
    def scenario(lib):
        calls = []
        a = lib.ones(2, requires_grad=True)
        b = a * 2
        c = b * 2
        b.grad_fn.register_prehook(lambda g: calls.append(1))
        g, = lib.autograd.grad(c.sum(), b)
        return len(calls), g

    both(scenario, (0, [2.0, 2.0]))


def test_backward_inputs_non_leaf_ignores_node_prehooks_but_runs_tensor_hooks():
    def scenario(lib):
        a = lib.ones(1, requires_grad=True)
        b = a * 2
        c = b * 2
        b.grad_fn.register_prehook(lambda g: (g[0] * 4,))
        b.register_hook(lambda g: g * 3)
        c.backward(inputs=(b,))
        return b.grad, a.grad

    both(scenario, ([6.0], None))


def test_tensor_hook_on_a_captured_input_changes_what_is_captured():
    def scenario(lib):
        a = lib.ones(1, requires_grad=True)
        b = a * 2
        b.register_hook(lambda g: g * 10)
        g, = lib.autograd.grad((b * 3).sum(), (b,))
        return g

    both(scenario, [30.0])


def test_retain_grad_on_a_captured_input_is_not_doubled_by_backward_inputs():
    def scenario(lib):
        a = lib.ones(1, requires_grad=True)
        b = a * 2
        b.retain_grad()
        (b * 3).sum().backward(inputs=(b,))
        return b.grad

    both(scenario, [3.0])


def test_post_accumulate_grad_hook_returning_a_value_raises():
    def scenario(lib):
        x = lib.ones(2, requires_grad=True)
        x.register_post_accumulate_grad_hook(lambda v: lib.ones(2))
        x.sum().backward()

    raises_in_both(scenario, RuntimeError, "should return None")


# -- every registered hook runs, in order, as in torch ---------------------------------

def _double(g):
    return g * 2.0


def _plus_one(g):
    return g + 1.0


def _triple(g):
    return g * 3.0


def _observe(g):
    return None


CHAINS = {
    "two": [_double, _plus_one],
    "two_observing_first": [_observe, _double],
    "two_observing_last": [_plus_one, _observe],
    "three": [_plus_one, _triple, _double],
    "three_observing_middle": [_double, _observe, _plus_one],
}


A = np.array([0.5, -1.0, 2.0])


def _hooked_run(L, chain, where):
    """Register the chain of hooks on one Variable; return (inputs each hook saw,
    the gradients that came out)."""
    if L is pyad:
        x = Variable(A.copy(), requires_grad=True)
    else:
        x = L.tensor(A, dtype=L.float64, requires_grad=True)
    seen = []

    def recorded(hook):
        def run(g):
            seen.append((hook.__name__, as_np(g)))
            return hook(g)
        return run

    h = x * 3.0
    target = {"leaf": x, "non_leaf": h, "root": h, "grad_wrt_hooked": h,
              "grad_wrt_leaf": h}[where]
    for hook in chain:
        target.register_hook(recorded(hook))
    if where == "root":
        h.backward(L.tanh(x.detach()))
        return seen, [as_np(x.grad)]
    out = (h * h).sum() + (L.exp(h) * x).sum()     # h and x each used twice
    # (grad w.r.t. h and x together is left out: torch then captures h's gradient
    # before the hooks run when x's gradient flows on through h, after otherwise)
    if where == "grad_wrt_hooked":
        return seen, [as_np(g) for g in L.autograd.grad(out, h)]
    if where == "grad_wrt_leaf":
        return seen, [as_np(g) for g in L.autograd.grad(out, x)]
    out.backward()
    return seen, [as_np(x.grad)]


@pytest.mark.parametrize("where", ["leaf", "non_leaf", "root", "grad_wrt_hooked",
                                   "grad_wrt_leaf"])
@pytest.mark.parametrize("chain", list(CHAINS), ids=list(CHAINS))
def test_every_registered_hook_runs_in_order_as_in_torch(chain, where):
    torch = torch_or_skip()
    seen, grads = _hooked_run(pyad, CHAINS[chain], where)
    t_seen, t_grads = _hooked_run(torch, CHAINS[chain], where)
    assert [n for n, _ in seen] == [h.__name__ for h in CHAINS[chain]]
    assert [n for n, _ in seen] == [n for n, _ in t_seen]
    for (_, g), (_, tg) in zip(seen, t_seen):
        np.testing.assert_allclose(g, tg, rtol=1e-12)
    for g, tg in zip(grads, t_grads):
        np.testing.assert_allclose(g, tg, rtol=1e-12)


@pytest.mark.parametrize("remove", [0, 1, 2])
def test_removing_one_of_three_hooks_keeps_the_others(remove):
    torch = torch_or_skip()
    results = []
    for L in (pyad, torch):
        x = (Variable(A.copy(), requires_grad=True) if L is pyad
             else torch.tensor(A, dtype=torch.float64, requires_grad=True))
        h = x * 3.0
        calls = []
        handles = [h.register_hook(lambda g, i=i, f=f: calls.append(i) or f(g))
                   for i, f in enumerate([_plus_one, _triple, _double])]
        handles[remove].remove()
        (h * h).sum().backward()
        results.append((calls, as_np(x.grad)))
    (calls, grad), (t_calls, t_grad) = results
    assert calls == t_calls == [i for i in range(3) if i != remove]
    np.testing.assert_allclose(grad, t_grad, rtol=1e-12)


def test_every_grad_fn_hook_and_prehook_runs_in_order_as_in_torch():
    torch = torch_or_skip()

    def prehook(name, change):
        def run(grad_outputs):
            calls.append(name)
            return None if change is None else (change(grad_outputs[0]),)
        return run

    def hook(name, change):
        def run(grad_inputs, grad_outputs):
            calls.append(name)
            if change is not None:
                return (change(grad_inputs[0]),) + tuple(grad_inputs[1:])
        return run

    results = []
    for L in (pyad, torch):
        x = (Variable(A.copy(), requires_grad=True) if L is pyad
             else torch.tensor(A, dtype=torch.float64, requires_grad=True))
        y = x * 3.0
        calls = []
        for name, change in (("pre1", _double), ("pre2", _plus_one), ("pre3", None)):
            y.grad_fn.register_prehook(prehook(name, change))
        for name, change in (("post1", _triple), ("post2", None), ("post3", _plus_one)):
            y.grad_fn.register_hook(hook(name, change))
        (y * y).sum().backward()
        results.append((calls, as_np(x.grad)))
    (calls, grad), (t_calls, t_grad) = results
    assert calls == t_calls == ["pre1", "pre2", "pre3", "post1", "post2", "post3"]
    np.testing.assert_allclose(grad, t_grad, rtol=1e-12)


def test_hooks_chain_hand_math():
    # y = 3x, dL/dy = 1: hooks 1 -> 1 + 1 = 2 -> 2 * 3 = 6 -> 6 * 2 = 12; dL/dx = 36
    x = Variable(np.ones(2), requires_grad=True)
    y = x * 3.0
    for hook in CHAINS["three"]:
        y.register_hook(hook)
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.data, [36.0, 36.0])


# -- hooks changing the gradient's dtype -----------------------------------------------

@pytest.mark.parametrize("leaf", [True, False])
@pytest.mark.parametrize("dtype", ["float32", "int64"])
def test_hook_changing_the_dtype_raises_like_torch(leaf, dtype):
    def scenario(lib):
        if lib is pyad:
            x = pyad.Variable(np.ones(3), requires_grad=True)
            convert = lambda g: pyad.Variable(g.data.astype(dtype))
        else:
            x = torch.ones(3, dtype=torch.float64, requires_grad=True)
            convert = lambda g: g.to(getattr(torch, dtype))
        target = x if leaf else x * 1.0

        def myhook(g):
            return convert(g)
        target.register_hook(myhook)
        with pytest.raises(RuntimeError, match="hook 'myhook' has changed the type of value"):
            (target * 2).sum().backward()
        return x.grad
    assert scenario(pyad) is None
    if torch is not None:
        scenario(torch)


def test_hook_keeping_the_dtype_still_replaces_the_gradient():
    x = pyad.Variable(np.ones(3), requires_grad=True)
    x.register_hook(lambda g: g * 10)
    (x * 2).sum().backward()
    assert x.grad.dtype == np.float64
    np.testing.assert_array_equal(x.grad.data, [20.0, 20.0, 20.0])
