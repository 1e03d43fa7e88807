"""Targeted tests for bugs the rest of the suite once let through (each was planted
in a copy of pyad and went unnoticed):

- an in-place op that forgets to bump the version counter (a silently wrong gradient):
  generated from ``pyad._engine._INPLACE_METHODS``, which must list every in-place method;
- only the first of several ``register_hook`` hooks running: chains checked vs torch;
- ``max(dim)`` returning the last index of a tie: checked vs torch and NumPy;
- a grad-mode switch not restoring the mode when its block raises (or when a backward
  inside it raises): every switch, every form, both outer modes.
"""
import numpy as np
import pytest

import pyad
from pyad import Variable
from pyad._engine import _INPLACE_METHODS, _set_grad_enabled


@pytest.fixture(autouse=True)
def _grad_mode_enabled_around_each_test():
    # A test that leaves grad mode off (one that catches a leak of the mode) must not
    # make the tests after it fail too.
    _set_grad_enabled(True)
    yield
    _set_grad_enabled(True)


def _torch():
    return pytest.importorskip("torch")


def _is_torch(v):
    return type(v).__module__.startswith("torch")


def _full(v, value):
    """A constant of v's shape and dtype, of v's library."""
    if _is_torch(v):
        import torch
        return torch.full(tuple(v.shape), value, dtype=v.dtype)
    return Variable(np.full(v.shape, value, dtype=v.dtype))


def _index(v, values):
    """An int64 index of v's library."""
    if _is_torch(v):
        import torch
        return torch.tensor(values, dtype=torch.int64)
    return np.array(values, dtype=np.int64)


def _mask(v):
    """A bool mask of v's shape, true at the first entry, of v's library."""
    m = np.zeros(v.shape, dtype=bool)
    m.flat[0] = True
    if _is_torch(v):
        import torch
        return torch.from_numpy(m)
    return m


def _np(g):
    return np.array(g.detach().numpy() if _is_torch(g) else g.data)


# --------------------------------------------------------------------------------
# In-place ops: every one bumps the version counter, so a saved value changed by it
# makes backward raise (as in torch) instead of giving a wrong gradient
# --------------------------------------------------------------------------------

# How to call each in-place op on v (a pyad Variable or a torch tensor of positive
# values). Keys must be exactly _INPLACE_METHODS: a new op needs a recipe here.
def _outside_the_domain(inplace_op):
    with np.errstate(invalid="ignore"):
        return inplace_op()


RECIPES = {
    "add_": lambda v: v.add_(0.5),
    "sub_": lambda v: v.sub_(0.5),
    "mul_": lambda v: v.mul_(1.5),
    "div_": lambda v: v.div_(2.0),
    "pow_": lambda v: v.pow_(2),
    "exp_": lambda v: v.exp_(),
    "log_": lambda v: v.log_(),
    "sqrt_": lambda v: v.sqrt_(),
    "tanh_": lambda v: v.tanh_(),
    "sigmoid_": lambda v: v.sigmoid_(),
    "relu_": lambda v: v.relu_(),
    "neg_": lambda v: v.neg_(),
    "abs_": lambda v: v.abs_(),
    "reciprocal_": lambda v: v.reciprocal_(),
    "sign_": lambda v: v.sign_(),
    "square_": lambda v: v.square_(),
    "rsqrt_": lambda v: v.rsqrt_(),
    "expm1_": lambda v: v.expm1_(),
    "log1p_": lambda v: v.log1p_(),
    "log2_": lambda v: v.log2_(),
    "log10_": lambda v: v.log10_(),
    "sin_": lambda v: v.sin_(),
    "cos_": lambda v: v.cos_(),
    "tan_": lambda v: v.tan_(),
    "asin_": lambda v: _outside_the_domain(v.asin_),      # VALUES are > 1: nan
    "acos_": lambda v: _outside_the_domain(v.acos_),
    "atan_": lambda v: v.atan_(),
    "sinh_": lambda v: v.sinh_(),
    "cosh_": lambda v: v.cosh_(),
    "erf_": lambda v: v.erf_(),
    "floor_": lambda v: v.floor_(),
    "ceil_": lambda v: v.ceil_(),
    "round_": lambda v: v.round_(),
    "trunc_": lambda v: v.trunc_(),
    "frac_": lambda v: v.frac_(),
    "clamp_": lambda v: v.clamp_(1.5, 2.5),
    "zero_": lambda v: v.zero_(),
    "fill_": lambda v: v.fill_(0.25),
    "copy_": lambda v: v.copy_(_full(v, 0.75)),
    "uniform_": lambda v: v.uniform_(0.5, 1.0),
    "normal_": lambda v: v.normal_(0.0, 1.0),
    "__setitem__": lambda v: v.__setitem__(slice(0, 1), 0.5),
    "masked_fill_": lambda v: v.masked_fill_(_mask(v), 0.5),
    "index_fill_": lambda v: v.index_fill_(0, _index(v, [1]), 0.5),
    "index_add_": lambda v: v.index_add_(0, _index(v, [0, 0]), _full(v, 0.5)[:2]),
    "index_copy_": lambda v: v.index_copy_(0, _index(v, [1]), _full(v, 0.5)[:1]),
    "scatter_": lambda v: v.scatter_(0, _index(v, [1]), 0.5),
    "scatter_add_": lambda v: v.scatter_add_(0, _index(v, [1, 1]), _full(v, 0.5)[:2]),
    "__iadd__": lambda v: v.__iadd__(0.5),
    "__isub__": lambda v: v.__isub__(0.5),
    "__imul__": lambda v: v.__imul__(1.5),
    "__itruediv__": lambda v: v.__itruediv__(2.0),
}

# Random fills carry no gradient: pyad refuses them on a Variable in a graph while
# grad mode is on (allowed under no_grad).

# Methods ending in "_" that change no data (so bump no version).
NOT_INPLACE = {"requires_grad_", "detach_"}

# Python's in-place operator slots (and item assignment).
INPLACE_DUNDERS = {"__iadd__", "__isub__", "__imul__", "__imatmul__", "__itruediv__",
                   "__ifloordiv__", "__imod__", "__ipow__", "__ilshift__", "__irshift__",
                   "__iand__", "__ixor__", "__ior__", "__setitem__"}

VALUES = (1.0, 2.0, 3.0)


def test_inplace_ops_list_names_every_inplace_method_of_variable():
    methods = {n for n in dir(Variable) if n.endswith("_") and not n.startswith("__")}
    dunders = {n for n in INPLACE_DUNDERS if hasattr(Variable, n)}
    assert len(_INPLACE_METHODS) == len(set(_INPLACE_METHODS))
    assert set(_INPLACE_METHODS) == (methods - NOT_INPLACE) | dunders
    assert set(RECIPES) == set(_INPLACE_METHODS)


def test_inplace_ops_list_names_every_inplace_function_of_pyad():
    # pyad.add_ and friends are the same ops; pyad.setitem is __setitem__
    functions = {n for n in dir(pyad) if n.endswith("_") and not n.startswith("__")
                 and callable(getattr(pyad, n))}
    assert functions <= set(_INPLACE_METHODS)
    for name in functions:
        x = Variable(np.array(VALUES))
        before = x._version
        RECIPES[name](_FunctionCaller(name, x))
        assert x._version == before + 1, name


class _FunctionCaller:
    # Turns `v.<name>(*args)` in a recipe into `pyad.<name>(x, *args)`.
    def __init__(self, name, x):
        self._name, self._x, self.shape, self.dtype = name, x, x.shape, x.dtype

    def __getattr__(self, name):
        assert name == self._name
        return lambda *args: getattr(pyad, name)(self._x, *args)


@pytest.mark.parametrize("name, make", [
    ("requires_grad_", lambda: Variable(np.array(VALUES))),
    ("detach_", lambda: Variable(np.array(VALUES)).requires_grad_() * 2.0),
])
def test_methods_left_out_of_the_inplace_list_change_no_data(name, make):
    assert set(NOT_INPLACE) == {"requires_grad_", "detach_"}
    v = make()
    data, version = v.data.copy(), v._version
    getattr(v, name)()
    np.testing.assert_array_equal(v.data, data)
    assert v._version == version


@pytest.mark.parametrize("name", _INPLACE_METHODS)
@pytest.mark.parametrize("mode", ["grad_enabled", "no_grad"])
def test_inplace_op_bumps_the_version_shared_with_views_once(name, mode):
    x = Variable(np.array(VALUES))
    view = x[1:]
    other_view = x.view(3, 1)
    before = x._version
    with pyad.set_grad_enabled(mode == "grad_enabled"):
        RECIPES[name](x)
    assert x._version == view._version == other_view._version == before + 1
    torch = _torch()
    t = torch.tensor(VALUES, dtype=torch.float64)
    RECIPES[name](t)
    assert t._version == 1          # torch agrees on one bump per op


@pytest.mark.parametrize("name", _INPLACE_METHODS)
def test_inplace_op_on_a_non_leaf_in_a_graph_bumps_the_version_once(name):
    a = Variable(np.array(VALUES), requires_grad=True)
    h = a * 1.0
    view = h[1:]
    before = h._version
    RECIPES[name](h)
    assert h._version == view._version == before + 1


def _saved_then_modified(L, name, how):
    """out saves h; then h (or a view of it) is changed in place by `name`."""
    if L is pyad:
        a = Variable(np.array(VALUES), requires_grad=True)
    else:
        a = L.tensor(VALUES, dtype=L.float64, requires_grad=True)
    h = a * 1.0
    out = (h * h).sum()                    # MulBackward saves h
    target = h if how != "through_view" else h[1:]
    if how == "grad_enabled":
        RECIPES[name](target)
    else:
        with L.no_grad():
            RECIPES[name](target)
    return out


@pytest.mark.parametrize("name", _INPLACE_METHODS)
@pytest.mark.parametrize("how", ["grad_enabled", "no_grad", "through_view"])
def test_backward_through_a_value_saved_before_an_inplace_op_raises(name, how):
    out = _saved_then_modified(pyad, name, how)
    with pytest.raises(RuntimeError, match="modified by an inplace operation") as info:
        out.backward()
    assert "MulBackward" in str(info.value)
    torch = _torch()
    tout = _saved_then_modified(torch, name, how)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        tout.backward()


@pytest.mark.parametrize("name", _INPLACE_METHODS)
def test_backward_through_an_output_saved_before_an_inplace_op_raises(name):
    # ExpBackward saves its output y; changing y afterwards must be caught
    a = Variable(np.array(VALUES), requires_grad=True)
    y = pyad.exp(a)
    with pyad.no_grad():
        RECIPES[name](y)
    with pytest.raises(RuntimeError, match="ExpBackward"):
        y.sum().backward()


# --------------------------------------------------------------------------------
# Several hooks on one Variable: all run, in registration order, each seeing the
# previous one's result (vs torch)
# --------------------------------------------------------------------------------

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
            seen.append((hook.__name__, _np(g)))
            return hook(g)
        return run

    h = x * 3.0
    target = {"leaf": x, "non_leaf": h, "root": h, "grad_wrt_hooked": h,
              "grad_wrt_leaf": h}[where]
    for hook in chain:
        target.register_hook(recorded(hook))
    if where == "root":
        h.backward(L.tanh(x.detach()))
        return seen, [_np(x.grad)]
    out = (h * h).sum() + (L.exp(h) * x).sum()     # h and x each used twice
    # (grad w.r.t. h and x together is left out: torch then captures h's gradient
    # before the hooks run when x's gradient flows on through h, after otherwise)
    if where == "grad_wrt_hooked":
        return seen, [_np(g) for g in L.autograd.grad(out, h)]
    if where == "grad_wrt_leaf":
        return seen, [_np(g) for g in L.autograd.grad(out, x)]
    out.backward()
    return seen, [_np(x.grad)]


@pytest.mark.parametrize("where", ["leaf", "non_leaf", "root", "grad_wrt_hooked",
                                   "grad_wrt_leaf"])
@pytest.mark.parametrize("chain", list(CHAINS), ids=list(CHAINS))
def test_every_registered_hook_runs_in_order_as_in_torch(chain, where):
    torch = _torch()
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
    torch = _torch()
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
        results.append((calls, _np(x.grad)))
    (calls, grad), (t_calls, t_grad) = results
    assert calls == t_calls == [i for i in range(3) if i != remove]
    np.testing.assert_allclose(grad, t_grad, rtol=1e-12)


def test_every_grad_fn_hook_and_prehook_runs_in_order_as_in_torch():
    torch = _torch()

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
        results.append((calls, _np(x.grad)))
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


# --------------------------------------------------------------------------------
# max(dim) on ties returns the first index (torch and NumPy agree), and the gradient
# goes to that element
# --------------------------------------------------------------------------------

TIES = {
    "small_ints": np.random.default_rng(0).integers(0, 3, (4, 5, 6)).astype(np.float64),
    "all_equal": np.full((3, 4, 2), 7.0),
    "two_values": np.array([[[1.0, 2.0], [2.0, 2.0], [2.0, 1.0]],
                            [[2.0, 1.0], [2.0, 2.0], [1.0, 2.0]]]),
    "signed_zeros": np.array([[[-0.0, 0.0], [0.0, -0.0]], [[0.0, 0.0], [-0.0, -0.0]]]),
    "long_rows": np.random.default_rng(1).integers(0, 2, (3, 2, 257)).astype(np.float64),
}

# pyad name: (numpy index function, numpy value function); min, and argmax/argmin
# with dim, are covered as soon as pyad has them
EXTREMES = {name: fns for name, fns in (("max", (np.argmax, np.max)),
                                        ("min", (np.argmin, np.min)))
            if hasattr(pyad, name)}


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("keepdim", [False, True])
@pytest.mark.parametrize("dim", [0, 1, 2, -1])
@pytest.mark.parametrize("data", list(TIES), ids=list(TIES))
@pytest.mark.parametrize("name", list(EXTREMES))
def test_max_min_with_dim_return_the_first_index_of_a_tie(name, data, dim, keepdim, dtype):
    torch = _torch()
    a = TIES[data].astype(dtype)
    arg, val = EXTREMES[name]
    values, indices = getattr(pyad, name)(Variable(a), dim, keepdim=keepdim)
    t_values, t_indices = getattr(torch, name)(torch.from_numpy(a), dim, keepdim=keepdim)
    np.testing.assert_array_equal(indices.data, arg(a, axis=dim, keepdims=keepdim))
    np.testing.assert_array_equal(indices.data, t_indices.numpy())
    np.testing.assert_array_equal(values.data, val(a, axis=dim, keepdims=keepdim))
    np.testing.assert_array_equal(values.data, t_values.numpy())
    # the method form too
    _, m_indices = getattr(Variable(a), name)(dim, keepdim)
    np.testing.assert_array_equal(m_indices.data, indices.data)
    if hasattr(pyad, "arg" + name):
        arg_indices = getattr(pyad, "arg" + name)(Variable(a), dim, keepdim=keepdim)
        np.testing.assert_array_equal(arg_indices.data, indices.data)


@pytest.mark.parametrize("dim", [0, 1, 2])
@pytest.mark.parametrize("data", list(TIES), ids=list(TIES))
@pytest.mark.parametrize("name", list(EXTREMES))
def test_max_min_with_dim_tie_gradient_goes_to_the_first_index_as_in_torch(name, data, dim):
    torch = _torch()
    a = TIES[data]
    w = np.random.default_rng(2).standard_normal(np.delete(a.shape, dim))
    x = Variable(a.copy(), requires_grad=True)
    t = torch.tensor(a, requires_grad=True)
    (getattr(pyad, name)(x, dim).values * Variable(w)).sum().backward()
    (getattr(torch, name)(t, dim).values * torch.from_numpy(w)).sum().backward()
    np.testing.assert_array_equal(x.grad.data, t.grad.numpy())
    # independently: w lands at the first extreme of each reduced line
    expected = np.zeros_like(a)
    first = EXTREMES[name][0](a, axis=dim)
    np.put_along_axis(expected, np.expand_dims(first, dim), np.expand_dims(w, dim), axis=dim)
    np.testing.assert_array_equal(x.grad.data, expected)


# --------------------------------------------------------------------------------
# Grad mode is restored when the block raises, and when a backward inside it raises
# --------------------------------------------------------------------------------

SWITCHES = {
    "no_grad": (lambda: pyad.no_grad(), False),
    "no_grad_bare": (lambda: pyad.no_grad, False),          # @pyad.no_grad (decorator)
    "enable_grad": (lambda: pyad.enable_grad(), True),
    "enable_grad_bare": (lambda: pyad.enable_grad, True),
    "set_grad_enabled_False": (lambda: pyad.set_grad_enabled(False), False),
    "set_grad_enabled_True": (lambda: pyad.set_grad_enabled(True), True),
    "autograd.no_grad": (lambda: pyad.autograd.no_grad(), False),
    "autograd.set_grad_enabled_False": (lambda: pyad.autograd.set_grad_enabled(False),
                                        False),
}


class Boom(Exception):
    pass


class _RaisingBackward(pyad.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2.0

    @staticmethod
    def backward(ctx, g):
        raise Boom("backward failed")


class _RaisingForward(pyad.autograd.Function):
    @staticmethod
    def forward(ctx, x):                    # runs with grad mode off
        raise Boom("forward failed")

    @staticmethod
    def backward(ctx, g):
        return g


class _RaisingOnceDifferentiable(pyad.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2.0

    @staticmethod
    @pyad.autograd.once_differentiable       # runs with grad mode off
    def backward(ctx, g):
        raise Boom("backward failed")


def _leaf():
    return Variable(np.array(VALUES), requires_grad=True)


def _graph_freed():
    y = (_leaf() * _leaf()).sum()
    y.backward()
    return lambda: y.backward()             # second backward: RuntimeError


def _graph_with_raising_hook(create_graph=False):
    x = _leaf()
    h = x * x

    def hook(g):
        raise Boom("hook failed")
    h.register_hook(hook)
    y = h.sum()
    return lambda: y.backward(create_graph=create_graph)


def _graph_with_raising_function():
    y = _RaisingBackward.apply(_leaf()).sum()
    return lambda: y.backward()


def _graph_with_modified_saved_value():
    h = _leaf() * 1.0
    y = (h * h).sum()
    with pyad.no_grad():
        h.add_(1.0)
    return lambda: y.backward()


def _grad_with_raising_hook():
    x = _leaf()
    h = pyad.exp(x)

    def hook(g):
        raise Boom("hook failed")
    h.register_hook(hook)
    y = h.sum()
    return lambda: pyad.grad(y, x, create_graph=True)


def _grad_of_unused_input():
    x, unused = _leaf(), _leaf()
    y = (x * x).sum()
    return lambda: pyad.grad(y, [x, unused])


def _function_forward_raises():
    x = _leaf()
    return lambda: _RaisingForward.apply(x)


def _once_differentiable_backward_raises():
    y = _RaisingOnceDifferentiable.apply(_leaf()).sum()
    return lambda: y.backward(create_graph=True)


def _gradcheck_of_a_raising_function():
    calls = []

    def f(x):
        calls.append(1)
        if len(calls) > 1:                  # in gradcheck's finite differences
            raise Boom("evaluation failed")
        return x * x
    x = _leaf()
    return lambda: pyad.autograd.gradcheck(f, (x,))


def _raise_in_block():
    def run():
        raise Boom("in the block")
    return run


FAILURES = {
    "raise_in_block": (_raise_in_block, Boom),
    "backward_twice": (_graph_freed, RuntimeError),
    "hook_raises": (_graph_with_raising_hook, Boom),
    "hook_raises_create_graph": (lambda: _graph_with_raising_hook(True), Boom),
    "function_backward_raises": (_graph_with_raising_function, Boom),
    "saved_value_modified": (_graph_with_modified_saved_value, RuntimeError),
    "grad_create_graph_hook_raises": (_grad_with_raising_hook, Boom),
    "grad_unused_input": (_grad_of_unused_input, RuntimeError),
    "function_forward_raises": (_function_forward_raises, Boom),
    "once_differentiable_backward_raises": (_once_differentiable_backward_raises, Boom),
    "gradcheck_raises": (_gradcheck_of_a_raising_function, Boom),
}


@pytest.fixture(params=[True, False], ids=["outer_enabled", "outer_disabled"])
def outer_mode(request):
    previous = _set_grad_enabled(request.param)
    try:
        yield request.param
    finally:
        _set_grad_enabled(previous)


def _check_failure_inside(failing, exc_type, block_mode):
    with pytest.raises(exc_type):
        failing()
    # a backward that raised left the mode as it found it
    assert pyad.is_grad_enabled() == block_mode
    raise Boom("leaving the block")


WITH_SWITCHES = [name for name in SWITCHES if not name.endswith("_bare")]


@pytest.mark.parametrize("failure", list(FAILURES))
@pytest.mark.parametrize("switch", WITH_SWITCHES)
def test_grad_mode_is_restored_after_an_exception_in_a_with_block(switch, failure,
                                                                   outer_mode):
    make, block_mode = SWITCHES[switch]
    build, exc_type = FAILURES[failure]
    with pyad.enable_grad():
        failing = build()
    assert pyad.is_grad_enabled() == outer_mode
    with pytest.raises(Boom, match="leaving the block"):
        with make():
            assert pyad.is_grad_enabled() == block_mode
            _check_failure_inside(failing, exc_type, block_mode)
    assert pyad.is_grad_enabled() == outer_mode


@pytest.mark.parametrize("failure", list(FAILURES))
@pytest.mark.parametrize("switch", list(SWITCHES))
def test_grad_mode_is_restored_after_an_exception_in_a_decorated_function(switch, failure,
                                                                          outer_mode):
    make, block_mode = SWITCHES[switch]
    build, exc_type = FAILURES[failure]
    with pyad.enable_grad():
        failing = build()

    @make()
    def f():
        assert pyad.is_grad_enabled() == block_mode
        _check_failure_inside(failing, exc_type, block_mode)

    assert pyad.is_grad_enabled() == outer_mode       # decorating switches nothing
    with pytest.raises(Boom, match="leaving the block"):
        f()
    assert pyad.is_grad_enabled() == outer_mode
    with pytest.raises(Boom, match="leaving the block"):
        f()                                            # and again: nothing was stuck
    assert pyad.is_grad_enabled() == outer_mode


@pytest.mark.parametrize("switch", list(SWITCHES))
def test_grad_mode_is_restored_after_an_exception_in_a_decorated_generator(switch,
                                                                           outer_mode):
    make, block_mode = SWITCHES[switch]
    with pyad.enable_grad():
        failing = _graph_with_raising_hook()

    @make()
    def gen():
        assert pyad.is_grad_enabled() == block_mode
        yield 1
        assert pyad.is_grad_enabled() == block_mode
        _check_failure_inside(failing, Boom, block_mode)
        yield 2

    g = gen()
    assert next(g) == 1
    assert pyad.is_grad_enabled() == outer_mode       # between steps: the caller's mode
    with pytest.raises(Boom, match="leaving the block"):
        next(g)
    assert pyad.is_grad_enabled() == outer_mode


@pytest.mark.parametrize("switch", list(SWITCHES))
def test_decorated_generator_gets_thrown_exceptions_in_its_mode(switch, outer_mode):
    make, block_mode = SWITCHES[switch]
    seen = []

    @make()
    def gen():
        try:
            yield 1
        except Boom:
            seen.append(pyad.is_grad_enabled())
            yield 2
        finally:
            seen.append(pyad.is_grad_enabled())

    g = gen()
    assert next(g) == 1
    assert g.throw(Boom()) == 2
    assert pyad.is_grad_enabled() == outer_mode
    g.close()
    assert seen == [block_mode, block_mode]
    assert pyad.is_grad_enabled() == outer_mode


@pytest.mark.parametrize("failure", list(FAILURES))
def test_grad_mode_is_restored_after_a_raising_backward_outside_any_switch(failure,
                                                                         outer_mode):
    build, exc_type = FAILURES[failure]
    with pyad.enable_grad():
        failing = build()
    with pytest.raises(exc_type):
        failing()
    assert pyad.is_grad_enabled() == outer_mode


def test_grad_mode_restored_after_exception_matches_torch():
    torch = _torch()
    for L in (pyad, torch):
        for make, outer in ((lambda: L.no_grad(), True), (lambda: L.enable_grad(), False),
                            (lambda: L.set_grad_enabled(False), True),
                            (lambda: L.set_grad_enabled(True), False)):
            with L.set_grad_enabled(outer):
                with pytest.raises(Boom):
                    with make():
                        raise Boom
                assert L.is_grad_enabled() == outer
