"""inf and nan at a function's domain edge come without NumPy RuntimeWarnings, as in
torch (log(0), 1/0, sqrt(-1), 0**-1 and their gradients), and values match torch's;
NumPy's error state is the user's again after every call, on success and on error."""
import warnings

import numpy as np
import pytest

import pyad

torch = pytest.importorskip("torch")

EDGE = np.array([0.0, -0.0, 1.0, -1.0, 2.0, np.inf, -np.inf, np.nan, 1e300])

UNARY = ["log", "log2", "log10", "log1p", "sqrt", "rsqrt", "reciprocal", "exp",
         "expm1", "asin", "acos", "atan", "sin", "cos", "tan", "sinh", "cosh", "erf"]


@pytest.mark.parametrize("name", UNARY)
def test_unary_domain_edges_are_quiet_and_match_torch(name):
    x = pyad.Variable(EDGE.copy(), requires_grad=True)
    t = torch.tensor(EDGE.copy(), requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        y = getattr(pyad, name)(x)
        y.sum().backward()
    ty = getattr(torch, name)(t)
    ty.sum().backward()
    np.testing.assert_allclose(y.data, ty.detach().numpy(), rtol=1e-12, equal_nan=True)
    np.testing.assert_allclose(x.grad.data, t.grad.numpy(), rtol=1e-12, equal_nan=True)


@pytest.mark.parametrize("op", ["div", "pow", "remainder", "fmod", "floor_divide"])
def test_binary_domain_edges_are_quiet_and_match_torch(op):
    a = np.array([0.0, 1.0, -1.0, 0.0, np.inf, 2.0])
    b = np.array([0.0, 0.0, 0.5, -1.0, np.inf, -np.inf])
    x, y = (pyad.Variable(v.copy(), requires_grad=True) for v in (a, b))
    tx, ty = (torch.tensor(v.copy(), requires_grad=True) for v in (a, b))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = getattr(pyad, op)(x, y)
        if op in ("div", "pow"):
            out.sum().backward()
    tout = getattr(torch, op)(tx, ty)
    np.testing.assert_allclose(out.data, tout.detach().numpy(), rtol=1e-12, equal_nan=True)
    if op in ("div", "pow"):
        tout.sum().backward()
        np.testing.assert_allclose(x.grad.data, tx.grad.numpy(), rtol=1e-12, equal_nan=True)
        np.testing.assert_allclose(y.grad.data, ty.grad.numpy(), rtol=1e-12, equal_nan=True)


def test_operators_and_second_order_are_quiet():
    x = pyad.Variable(np.array([0.0, 4.0]), requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        y = (1 / x + x ** 0.5 + (x * 0) / x).sum()
        g, = pyad.autograd.grad(y, x, create_graph=True)
        h, = pyad.autograd.grad(g.sum(), x)
    t = torch.tensor([0.0, 4.0], dtype=torch.float64, requires_grad=True)
    ty = (1 / t + t ** 0.5 + (t * 0) / t).sum()
    tg, = torch.autograd.grad(ty, t, create_graph=True)
    th, = torch.autograd.grad(tg.sum(), t)
    np.testing.assert_allclose(g.data, tg.detach().numpy(), equal_nan=True)
    np.testing.assert_allclose(h.data, th.numpy(), equal_nan=True)


def _user_numpy_warns():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        np.log(np.zeros(1))
    return any(issubclass(w.category, RuntimeWarning) for w in caught)


def test_the_users_numpy_error_state_is_restored():
    old = np.geterr()
    try:
        np.seterr(all="warn")
        x = pyad.Variable(np.zeros(2), requires_grad=True)
        pyad.log(x).sum().backward()
        assert np.geterr()["divide"] == "warn"
        assert _user_numpy_warns()

        def boom(grad):
            raise ValueError("from a hook")
        y = pyad.sqrt(x)
        y.register_hook(boom)
        with pytest.raises(ValueError, match="from a hook"):
            y.sum().backward()
        assert np.geterr()["divide"] == "warn" and _user_numpy_warns()
        with pytest.raises(RuntimeError):
            pyad.floor_divide(pyad.Variable(np.array([1])), pyad.Variable(np.array([0])))
        assert np.geterr()["divide"] == "warn" and _user_numpy_warns()
        np.seterr(all="raise")
        pyad.log(x).sum().backward()         # pyad still quiet under "raise"
        assert np.geterr()["divide"] == "raise"
    finally:
        np.seterr(**old)


def test_a_hook_sees_the_quiet_state_only_inside_backward():
    # (documented: backward runs with NumPy's floating-point warnings off)
    seen = []
    x = pyad.Variable(np.ones(2), requires_grad=True)
    y = x * 2
    y.register_hook(lambda g: seen.append(np.geterr()["divide"]))
    old = np.seterr(all="warn")
    try:
        y.sum().backward()
        assert seen == ["ignore"]
        assert np.geterr()["divide"] == "warn"
    finally:
        np.seterr(**old)


def test_matmul_overflow_is_quiet_and_matches_torch():
    a = np.full((2, 2), 1e200)
    x = pyad.Variable(a.copy(), requires_grad=True)
    t = torch.tensor(a.copy(), requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        y = x @ x
        y.sum().backward()
    ty = t @ t
    ty.sum().backward()
    np.testing.assert_array_equal(y.data, ty.detach().numpy())
    np.testing.assert_array_equal(x.grad.data, t.grad.numpy())


def test_a_quiet_op_inside_backward_leaves_the_pass_quiet():
    # A hook's own pyad.log runs inside the pass's quiet state; when it returns, the
    # formulas after it (sqrt's at 0) must still be quiet, and afterwards NumPy warns.
    x = pyad.Variable(np.zeros(2), requires_grad=True)
    y = pyad.sqrt(x)
    z = y * 2
    z.register_hook(lambda g: pyad.log(pyad.Variable(np.zeros(1))) and None)
    old = np.seterr(all="warn")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            z.sum().backward()
        assert np.isinf(x.grad.data).all()
        assert _user_numpy_warns()
    finally:
        np.seterr(**old)


_CASTS = {
    "to(int32)": lambda m, x: x.to(m.int32), "int()": lambda m, x: x.int(),
    "long()": lambda m, x: x.long(), "half()": lambda m, x: x.half(),
    "type(int16)": lambda m, x: x.type(m.int16),
    "copy_": lambda m, x: m.zeros(4, dtype=m.int32).copy_(x),
    "setitem": lambda m, x: _setitem(m.zeros(4, dtype=m.int32), x),
}


def _setitem(t, x):
    t[:] = x
    return t


@pytest.mark.parametrize("form", list(_CASTS))
def test_casts_of_nan_inf_and_large_values_are_silent_as_torch(form):
    # torch converts nan, inf and out-of-range values without a warning (the integers
    # they become are the platform's); the in-range entries must match
    values = [1e10, float("nan"), float("inf"), -3.5]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = _CASTS[form](pyad, pyad.tensor(values))
        want = _CASTS[form](torch, torch.tensor(values))
    assert str(got.dtype) == str(want.dtype).replace("torch.", "")
    if got.dtype.kind in "iu":
        assert got.tolist()[3] == want.tolist()[3] == -3
    if form == "half()":
        assert got.tolist()[0] == want.tolist()[0] == float("inf")


@pytest.mark.parametrize("form", ["fill_(nan)", "fill_(inf)", "tensor([inf])"])
def test_a_non_finite_number_into_an_integer_variable_raises_as_torch(form):
    def run(m):
        if form == "tensor([inf])":
            return m.tensor([float("inf")], dtype=m.int64)
        return m.zeros(2, dtype=m.int64).fill_(float(form[6:9]))
    with pytest.raises(RuntimeError, match="value cannot be converted to type int64"):
        run(torch)
    with pytest.raises(RuntimeError, match="value cannot be converted to type int64"):
        run(pyad)
