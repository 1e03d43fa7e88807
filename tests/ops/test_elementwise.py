"""Elementwise ops: + - * / ** (Variable, Python scalar and ndarray operands on either
side, broadcasting), unary -, exp, log, sqrt, tanh, sigmoid, relu.

Each case is checked for values (vs NumPy), first and second derivatives (gradcheck,
gradgradcheck in float64) and values + gradients vs PyTorch."""
import operator

import numpy as np
import pytest

import pyad
from _ops_helpers import (Case, standard_op_tests)

A34 = np.random.default_rng(10).uniform(0.5, 1.5, size=(3, 4))
A4 = np.random.default_rng(11).uniform(0.5, 1.5, size=(4,))

CASES = [
    # Variable (+) Variable, same shape and broadcasting
    Case("add_same_shape", lambda L, a, b: a + b, [(3, 4), (3, 4)]),
    Case("add_broadcast_row", lambda L, a, b: a + b, [(3, 4), (4,)]),
    Case("add_broadcast_both", lambda L, a, b: a + b, [(3, 1), (1, 4)]),
    Case("sub_broadcast", lambda L, a, b: a - b, [(2, 3, 4), (3, 1)]),
    Case("mul_same_shape", lambda L, a, b: a * b, [(3, 4), (3, 4)]),
    Case("mul_broadcast_both", lambda L, a, b: a * b, [(2, 1, 4), (3, 1)]),
    Case("mul_by_0d_variable", lambda L, a, b: a * b, [(3, 4), ()]),
    Case("div_same_shape", lambda L, a, b: a / b, [(3, 4), (3, 4)]),
    Case("div_broadcast", lambda L, a, b: a / b, [(3, 4), (3, 1)]),
    Case("pow_variable_exponent", lambda L, a, b: a ** b, [(3, 4), (3, 4)],
         domain="positive"),
    Case("pow_broadcast_exponent", lambda L, a, b: a ** b, [(3, 4), (4,)],
         domain="positive"),
    Case("same_variable_twice", lambda L, a: a * a + a / (a + 3.0), [(3, 4)]),
    # Python scalars on either side
    Case("add_scalar_right", lambda L, a: a + 2.5, [(3, 4)]),
    Case("add_scalar_left", lambda L, a: 2.5 + a, [(3, 4)]),
    Case("sub_scalar_right", lambda L, a: a - 2, [(3, 4)]),
    Case("sub_scalar_left", lambda L, a: 2 - a, [(3, 4)]),
    Case("mul_scalar_right", lambda L, a: a * 1.5, [(3, 4)]),
    Case("mul_scalar_left", lambda L, a: -3 * a, [(3, 4)]),
    Case("div_scalar_right", lambda L, a: a / 3.0, [(3, 4)]),
    Case("div_scalar_left", lambda L, a: 3.0 / a, [(3, 4)]),
    Case("pow_int_exponent", lambda L, a: a ** 3, [(3, 4)]),
    Case("pow_square", lambda L, a: a ** 2, [(3, 4)]),
    Case("pow_negative_exponent", lambda L, a: a ** -2, [(3, 4)]),
    Case("pow_float_exponent", lambda L, a: a ** 1.5, [(3, 4)], domain="positive"),
    Case("pow_half_exponent", lambda L, a: a ** 0.5, [(3, 4)], domain="positive"),
    Case("pow_scalar_base", lambda L, a: 2.0 ** a, [(3, 4)]),
    # ndarrays on either side
    Case("add_ndarray_right", lambda L, a: a + L.c(A34), [(3, 4)]),
    Case("add_ndarray_left", lambda L, a: L.c(A34) + a, [(3, 4)]),
    Case("sub_ndarray_left", lambda L, a: L.c(A34) - a, [(3, 4)]),
    Case("mul_ndarray_left", lambda L, a: L.c(A34) * a, [(3, 4)]),
    Case("mul_ndarray_left_broadcast", lambda L, a: L.c(A4) * a, [(3, 4)]),
    Case("mul_ndarray_broadcast_to_bigger", lambda L, a: L.c(A34) * a, [(4,)]),
    Case("div_ndarray_left", lambda L, a: L.c(A34) / a, [(3, 4)]),
    Case("div_ndarray_right", lambda L, a: a / L.c(A34), [(3, 4)]),
    Case("pow_ndarray_exponent", lambda L, a: a ** L.c(A34), [(3, 4)], domain="positive"),
    Case("pow_ndarray_base", lambda L, a: L.c(A34) ** a, [(3, 4)]),
    # unary
    Case("neg", lambda L, a: -a, [(3, 4)]),
    Case("exp", lambda L, a: L.exp(a), [(3, 4)]),
    Case("log", lambda L, a: L.log(a), [(3, 4)], domain="positive"),
    Case("sqrt", lambda L, a: L.sqrt(a), [(3, 4)], domain="positive"),
    Case("tanh", lambda L, a: L.tanh(a), [(3, 4)]),
    Case("sigmoid", lambda L, a: L.sigmoid(a), [(3, 4)]),
    Case("relu", lambda L, a: L.relu(a), [(3, 4)]),
    Case("exp_0d", lambda L, a: L.exp(a), [()]),
    # compositions (several ops share one graph)
    Case("composite_tanh_of_product", lambda L, a, b: L.tanh(a * b) + L.sigmoid(a - b) * 2,
         [(3, 4), (4,)]),
    Case("composite_log_sqrt", lambda L, a: L.log(L.sqrt(a) + a * a), [(2, 3)],
         domain="positive"),
    Case("composite_relu_mlp_like", lambda L, a, b: L.relu(a * b - 0.1) * a, [(3, 4), (4,)]),
]



(test_values_match_numpy, test_first_derivatives_pass_gradcheck,
 test_second_derivatives_pass_gradgradcheck, test_values_and_gradients_match_torch,
 test_second_derivatives_match_torch, test_create_graph_gradient_equals_plain_gradient,
 test_variant) = standard_op_tests(CASES)


# --------------------------------------------------------------------------------
# NumPy interplay and dtypes
# --------------------------------------------------------------------------------

OPS = [operator.add, operator.sub, operator.mul, operator.truediv, operator.pow]
OP_IDS = ["add", "sub", "mul", "truediv", "pow"]


def _expected_grad(op, other, x, side):
    """d/dx of sum(op(x, other)) (side "right") or sum(op(other, x)) (side "left"),
    by hand in float64."""
    o = np.asarray(_raw(other), dtype=np.float64)
    x = np.asarray(x, dtype=np.float64)
    if op is operator.add:
        g = np.ones_like(x + o)
    elif op is operator.sub:
        g = np.ones_like(x + o) * (1.0 if side == "right" else -1.0)
    elif op is operator.mul:
        g = o + 0 * x
    elif op is operator.truediv:
        g = 1 / o + 0 * x if side == "right" else -o / x ** 2
    else:
        g = o * x ** (o - 1) if side == "right" else o ** x * np.log(o)
    return np.broadcast_to(g, np.broadcast_shapes(x.shape, o.shape)).reshape(
        -1, *x.shape).sum(0)


@pytest.mark.parametrize("op", OPS, ids=OP_IDS)
def test_ndarray_on_the_left_gives_variable_with_graph(op):
    x = pyad.Variable(np.array([0.5, 1.0, 2.0]), requires_grad=True)
    a = np.array([1.5, 2.0, 3.0])
    y = op(a, x)
    assert isinstance(y, pyad.Variable)
    assert y.requires_grad and y.grad_fn is not None
    np.testing.assert_array_equal(y.data, op(a, x.data))
    y.sum().backward()
    assert x.grad is not None and x.grad.shape == (3,)
    np.testing.assert_allclose(x.grad.data, _expected_grad(op, a, x.data, "left"),
                               rtol=1e-15, atol=0)


@pytest.mark.parametrize("op", OPS, ids=OP_IDS)
@pytest.mark.parametrize("scalar", [2, 2.5, True], ids=["int", "float", "bool"])
@pytest.mark.parametrize("side", ["right", "left"])
def test_float32_result_stays_float32_with_python_scalars(op, scalar, side):
    x = pyad.Variable(np.array([0.5, 1.0, 2.0], dtype=np.float32), requires_grad=True)
    y = op(x, scalar) if side == "right" else op(scalar, x)
    assert y.dtype == np.float32


def _scalar_grad_params():
    out = []
    for side in ["right", "left"]:
        for scalar, sid in [(2, "int"), (2.5, "float"), (True, "bool")]:
            for op, oid in zip(OPS, OP_IDS):
                out.append(pytest.param(op, scalar, side,
                                        id="%s-%s-%s" % (side, sid, oid)))
    return out


@pytest.mark.parametrize("op, scalar, side", _scalar_grad_params())
def test_float32_gradient_stays_float32_with_python_scalars(op, scalar, side):
    x = pyad.Variable(np.array([0.5, 1.0, 2.0], dtype=np.float32), requires_grad=True)
    y = op(x, scalar) if side == "right" else op(scalar, x)
    y.sum().backward()
    assert x.grad.dtype == np.float32
    np.testing.assert_allclose(x.grad.data, _expected_grad(op, float(scalar), x.data, side),
                               rtol=1e-6, atol=0)     # float32: a few ulps


OTHERS = {
    "ndarray_f64": np.array([1.5, 2.0, 3.0]),
    "ndarray_f32": np.array([1.5, 2.0, 3.0], dtype=np.float32),
    "ndarray_f16": np.array([1.5, 2.0, 3.0], dtype=np.float16),
    "ndarray_i64": np.array([1, 2, 3]),
    "np_float64_scalar": np.float64(2.0),
    "np_float32_scalar": np.float32(2.0),
    "zero_d_f64": np.array(2.0),
    "variable_f64": pyad.Variable(np.array([1.5, 2.0, 3.0])),
}


def _raw(other):
    return other.data if isinstance(other, pyad.Variable) else other


# SPEC 3: torch's promotion. With a float32 Variable: scalars (Python, NumPy) and 0-d
# arrays never widen it; a dimensioned float array of the same category promotes as
# usual; an integer array meets a float type, which wins as it is.
EXPECTED_WITH_FLOAT32 = {
    "ndarray_f64": np.float64, "ndarray_f32": np.float32, "ndarray_f16": np.float32,
    "ndarray_i64": np.float32, "np_float64_scalar": np.float32,
    "np_float32_scalar": np.float32, "zero_d_f64": np.float32, "variable_f64": np.float64,
}


@pytest.mark.parametrize("op", OPS, ids=OP_IDS)
@pytest.mark.parametrize("name", list(OTHERS))
@pytest.mark.parametrize("side", ["right", "left"])
def test_result_dtype_follows_torch_promotion(op, name, side):
    other = OTHERS[name]
    base = np.array([0.5, 1.0, 2.0], dtype=np.float32)
    x = pyad.Variable(base.copy(), requires_grad=True)
    dt = np.dtype(EXPECTED_WITH_FLOAT32[name])
    # The op computed in the result dtype (what a ufunc does with dtype=): the same bits.
    a, b = base.astype(dt), np.asarray(_raw(other)).astype(dt)
    if side == "right":
        y, expected = op(x, other), op(a, b)
    else:
        y, expected = op(other, x), op(b, a)
    assert isinstance(y, pyad.Variable)
    assert y.dtype == dt
    np.testing.assert_array_equal(y.data, expected)
    try:
        import torch
    except ImportError:
        return
    t = torch.from_numpy(base.copy())
    o = _raw(other)
    o = torch.from_numpy(np.array(o)) if isinstance(o, np.ndarray) else \
        torch.tensor(o, dtype=torch.float64 if isinstance(o, np.float64) else torch.float32)
    ty = op(t, o) if side == "right" else op(o, t)
    assert str(ty.dtype) == "torch." + str(dt)


def _promotion_grad_params():
    out = []
    for side in ["right", "left"]:
        for name, other in OTHERS.items():
            for op, oid in zip(OPS, OP_IDS):
                out.append(pytest.param(op, other, side,
                                        id="%s-%s-%s" % (side, name, oid)))
    return out


@pytest.mark.parametrize("op, other, side", _promotion_grad_params())
def test_gradient_has_the_input_dtype_under_promotion(op, other, side):
    x = pyad.Variable(np.array([0.5, 1.0, 2.0], dtype=np.float32), requires_grad=True)
    y = op(x, other) if side == "right" else op(other, x)
    y.sum().backward()
    assert x.grad.dtype == np.float32
    assert x.grad.shape == x.shape
    # The gradient is computed in the promoted dtype (float16 operands promote to
    # float32 at least) and cast to float32: a few float32 ulps.
    np.testing.assert_allclose(x.grad.data, _expected_grad(op, other, x.data, side),
                               rtol=1e-6, atol=0)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize("name", ["exp", "log", "sqrt", "tanh", "sigmoid", "relu", "neg"])
def test_unary_ops_keep_dtype(name, dtype):
    x0 = np.array([-0.5, 1.0, 2.0]) if name in ("relu", "neg") else np.array([0.5, 1.0, 2.0])
    x = pyad.Variable(x0.astype(dtype), requires_grad=True)
    y = getattr(pyad, name)(x)
    assert y.dtype == dtype
    y.sum().backward()
    assert x.grad.dtype == dtype
    t = np.tanh(x0)
    s = 1 / (1 + np.exp(-x0))
    derivative = {"exp": np.exp(x0), "log": 1 / x0, "sqrt": 0.5 / np.sqrt(np.abs(x0)),
                  "tanh": 1 - t ** 2, "sigmoid": s * (1 - s),
                  "relu": (x0 > 0) * 1.0, "neg": -np.ones(3)}[name]
    # A few ulps; in float16 also one ulp at 1.0 absolute (1 - y^2 and y (1 - y) are
    # computed in float16 and cancel).
    rtol, atol = {np.float16: (2e-3, 1e-3), np.float32: (1e-6, 0),
                  np.float64: (1e-15, 0)}[dtype]
    np.testing.assert_allclose(x.grad.data, derivative, rtol=rtol, atol=atol)


@pytest.mark.parametrize("name", ["exp", "log", "sqrt", "tanh", "sigmoid", "relu"])
def test_unary_function_and_method_agree(name):
    x = pyad.Variable(np.array([0.5, 1.0, 2.0]))
    np.testing.assert_array_equal(getattr(pyad, name)(x).data, getattr(x, name)().data)


def test_sigmoid_is_stable_for_large_magnitudes():
    x = pyad.Variable(np.array([-1000.0, -50.0, 0.0, 50.0, 1000.0]), requires_grad=True)
    with np.errstate(over="raise", invalid="raise", divide="raise"):
        y = pyad.sigmoid(x)
    np.testing.assert_allclose(y.data, [0.0, 1.9287498479639178e-22, 0.5, 1.0, 1.0],
                               rtol=1e-15, atol=0)
    y.sum().backward()
    # y (1 - y): e^-50 at -50; at 50 the float result is 0 (y rounds to 1), as in torch.
    np.testing.assert_allclose(x.grad.data, [0.0, 1.9287498479639178e-22, 0.25, 0.0, 0.0],
                               rtol=1e-15, atol=0)


def test_relu_gradient_is_zero_for_negative_inputs():
    x = pyad.Variable(np.array([-2.0, -0.5, 0.5, 2.0]), requires_grad=True)
    pyad.relu(x).sum().backward()
    np.testing.assert_array_equal(x.grad.data, [0.0, 0.0, 1.0, 1.0])


def test_broadcast_gradient_is_summed_to_input_shape():
    a = pyad.Variable(np.ones((2, 3, 4)), requires_grad=True)
    b = pyad.Variable(np.ones((3, 1)), requires_grad=True)
    (a * b).sum().backward()
    assert b.grad.shape == (3, 1)
    np.testing.assert_array_equal(b.grad.data, np.full((3, 1), 8.0))


def test_incompatible_shapes_raise_a_clear_error():
    a = pyad.Variable(np.ones((2, 3)), requires_grad=True)
    b = pyad.Variable(np.ones((4,)))
    with pytest.raises(RuntimeError, match="broadcast|size"):
        a + b


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_pow_of_zero_base_with_variable_exponent_has_finite_gradient():
    torch = pytest.importorskip("torch")
    base = np.array([0.0, 0.0, 2.0])
    exponent = np.array([2.0, 0.0, 3.0])
    a = pyad.Variable(base, requires_grad=True)
    b = pyad.Variable(exponent, requires_grad=True)
    (a ** b).sum().backward()
    ta = torch.tensor(base, requires_grad=True)
    tb = torch.tensor(exponent, requires_grad=True)
    (ta ** tb).sum().backward()
    np.testing.assert_allclose(a.grad.data, ta.grad.numpy(), rtol=1e-15, atol=0)
    np.testing.assert_allclose(b.grad.data, tb.grad.numpy(), rtol=1e-15, atol=0)


@pytest.mark.parametrize("name", ["tanh", "cube", "pow_2_5"])
def test_third_derivatives_through_fused_gradient_nodes_match_torch(name):
    torch = pytest.importorskip("torch")
    fns = {"tanh": (lambda m, v: m.tanh(v)), "cube": (lambda m, v: v ** 3),
           "pow_2_5": (lambda m, v: v ** 2.5)}
    f = fns[name]
    x0 = np.array([0.3, 0.7, 1.2, 1.9])
    x = pyad.Variable(x0, requires_grad=True)
    tx = torch.tensor(x0, requires_grad=True)
    d1, = pyad.grad(f(pyad, x).sum(), x, create_graph=True)
    d2, = pyad.grad(d1.sum(), x, create_graph=True)
    d3, = pyad.grad(d2.sum(), x)
    t1, = torch.autograd.grad(f(torch, tx).sum(), tx, create_graph=True)
    t2, = torch.autograd.grad(t1.sum(), tx, create_graph=True)
    t3, = torch.autograd.grad(t2.sum(), tx)
    for ours, theirs in ((d1, t1), (d2, t2), (d3, t3)):
        np.testing.assert_allclose(ours.data, theirs.detach().numpy(), rtol=1e-10, atol=1e-12)


# -- pow at a zero or negative base ------------------------------------------------------

POW_BASES = [0.0, -1.5, -2.0, 2.0]
POW_EXPONENTS = [-2.0, -1.0, -0.5, 0.0, 0.5, 1.0, 2.0, 3.0]


def _pow_pair(kind, base, exponent, lib, make):
    # (result, inputs) of base ** exponent; `kind` says which side is a Variable.
    if kind == "scalar_base":
        e = make(np.array(POW_EXPONENTS))
        return base ** e, [e]
    if kind == "scalar_exponent":
        b = make(np.full(3, base))
        return b ** exponent, [b]
    if kind == "ndarray_base":
        e = make(np.array(POW_EXPONENTS))
        return lib(np.full(len(POW_EXPONENTS), base)) ** e, [e]
    b = make(np.full(len(POW_EXPONENTS), base))
    e = make(np.array(POW_EXPONENTS))
    return b ** e, [b, e]


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("kind", ["scalar_base", "scalar_exponent", "ndarray_base", "both"])
@pytest.mark.parametrize("base", POW_BASES)
def test_pow_gradients_at_zero_and_negative_bases_match_torch(kind, base):
    torch = pytest.importorskip("torch")
    for exponent in (POW_EXPONENTS if kind == "scalar_exponent" else [None]):
        out, xs = _pow_pair(kind, base, exponent, lambda a: a,
                            lambda a: pyad.Variable(a, requires_grad=True))
        tout, ts = _pow_pair(kind, base, exponent, torch.from_numpy,
                             lambda a: torch.tensor(a, requires_grad=True))
        np.testing.assert_allclose(out.data, tout.detach().numpy(), rtol=1e-15)
        w = np.linspace(0.5, 1.5, out.shape[0])
        grads = pyad.grad(out, xs, pyad.Variable(w))
        tgrads = torch.autograd.grad(tout, ts, torch.from_numpy(w))
        for g, tg in zip(grads, tgrads):
            # equal_nan: nan where torch has nan (a negative base to a fractional power)
            np.testing.assert_allclose(g.data, tg.numpy(), rtol=1e-14, atol=0,
                                       err_msg="%s, base %s, exponent %s"
                                       % (kind, base, exponent))


def test_zero_scalar_base_to_minus_one_has_gradient_minus_inf():
    e = pyad.Variable(np.array(-1.0), requires_grad=True)
    with np.errstate(divide="ignore"):
        (0 ** e).backward()
    assert e.grad.item() == -np.inf       # 0**b * log(0) = inf * -inf


# Integer and bool operands (SPEC 3, torch's rules): (make(lib), expected dtype name).
PROMOTION_TABLE = [
    ("int * float scalar", lambda L: L.tensor([1, 2]) * 2.5, "float32"),
    ("int / int", lambda L: L.tensor([1, 2]) / L.tensor([2, 4]), "float32"),
    ("int / int scalar", lambda L: L.tensor([1, 2]) / 2, "float32"),
    ("bool + int scalar", lambda L: L.tensor([True, False]) + 1, "int64"),
    ("bool + float scalar", lambda L: L.tensor([True, False]) + 1.5, "float32"),
    ("bool / bool", lambda L: L.tensor([True]) / L.tensor([True]), "float32"),
    ("int32 + 0-d int64", lambda L: L.tensor([1, 2], dtype=L.int32) + L.tensor(3), "int32"),
    ("int64 * float32", lambda L: L.tensor([1, 2]) * L.tensor([1.5], dtype=L.float32),
     "float32"),
    ("float16 + int64", lambda L: L.tensor([1.0], dtype=L.float16) + L.tensor([1]),
     "float16"),
    ("0-d f64 + 0-d f32", lambda L: L.tensor(1.0, dtype=L.float64) + L.tensor(2.0),
     "float64"),
    ("int ** float scalar", lambda L: L.tensor([1, 4]) ** 0.5, "float32"),
    ("float scalar - int", lambda L: 2.5 - L.tensor([1, 2]), "float32"),
    ("float32 * complex scalar", lambda L: L.tensor([1.0]) * (1 + 2j), "complex64"),
]


@pytest.mark.parametrize("make, expected", [p[1:] for p in PROMOTION_TABLE],
                         ids=[p[0] for p in PROMOTION_TABLE])
def test_integer_and_bool_promotion_follows_torch(make, expected):
    y = make(pyad)
    assert str(y.dtype) == expected
    try:
        import torch
    except ImportError:
        return
    ty = make(torch)
    assert str(ty.dtype) == "torch." + expected
    np.testing.assert_allclose(np.asarray(y.data), ty.numpy(), rtol=1e-6)
