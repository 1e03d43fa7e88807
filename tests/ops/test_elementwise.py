"""Elementwise ops: + - * / ** (Variable, Python scalar and ndarray operands on either
side, broadcasting), unary -, exp, log, sqrt, tanh, sigmoid, relu, the unary math of
unary math (abs ... erf, rounding), maximum/minimum/where/clamp, atan2, hypot, lerp.

Each case is checked for values (vs NumPy), first and second derivatives (gradcheck,
gradgradcheck in float64) and values + gradients vs PyTorch."""
import math
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


# NumPy references of ops NumPy lacks (or names differently); pyad and torch use their own.
_erf_scalar = np.frompyfunc(math.erf, 1, 1)
NP_REFERENCE = {
    "rsqrt": lambda x: 1 / np.sqrt(x),
    "erf": lambda x: np.asarray(_erf_scalar(x), dtype=np.float64).astype(x.dtype),
    "clamp": lambda x, min=None, max=None: np.clip(x, min, max),
    "clamp_min": lambda x, min: np.maximum(x, min),
    "clamp_max": lambda x, max: np.minimum(x, max),
    "lerp": lambda a, b, w: a + w * (b - a),
    "frac": lambda x: x - np.trunc(x),
}


def op(name):
    """``L.<name>``, with the NumPy reference above where NumPy has none."""
    def f(L, *args, **kwargs):
        if L.name == "numpy" and name in NP_REFERENCE:
            return NP_REFERENCE[name](*args, **kwargs)
        return getattr(L, name)(*args, **kwargs)
    return f


COND34 = np.random.default_rng(12).uniform(size=(3, 4)) > 0.5
COND4 = np.array([True, False, False, True])

CASES += [
    # unary math; asin/acos inputs scaled into (-1, 1)
    Case("abs", lambda L, a: L.abs(a), [(3, 4)]),
    Case("abs_builtin", lambda L, a: abs(a) * a, [(3, 4)]),
    Case("reciprocal", lambda L, a: L.reciprocal(a), [(3, 4)]),
    Case("sign", lambda L, a: L.sign(a) * a, [(3, 4)]),
    Case("sign_alone", lambda L, a: L.sign(a), [(3, 4)]),
    Case("square", lambda L, a: L.square(a), [(3, 4)]),
    Case("rsqrt", lambda L, a: op("rsqrt")(L, a), [(3, 4)], domain="positive"),
    Case("expm1", lambda L, a: L.expm1(a), [(3, 4)]),
    Case("log1p", lambda L, a: L.log1p(a), [(3, 4)], domain="positive"),
    Case("log2", lambda L, a: L.log2(a), [(3, 4)], domain="positive"),
    Case("log10", lambda L, a: L.log10(a), [(3, 4)], domain="positive"),
    Case("sin", lambda L, a: L.sin(a), [(3, 4)]),
    Case("cos", lambda L, a: L.cos(a), [(3, 4)]),
    Case("tan", lambda L, a: L.tan(a * 0.8), [(3, 4)]),
    Case("asin", lambda L, a: L.asin(a * 0.6), [(3, 4)]),
    Case("acos", lambda L, a: L.acos(a * 0.6), [(3, 4)]),
    Case("atan", lambda L, a: L.atan(a), [(3, 4)]),
    Case("sinh", lambda L, a: L.sinh(a), [(3, 4)]),
    Case("cosh", lambda L, a: L.cosh(a), [(3, 4)]),
    Case("erf", lambda L, a: op("erf")(L, a), [(3, 4)]),
    Case("sin_of_log1p_chain", lambda L, a: L.sin(L.log1p(a)) * L.cosh(a), [(3, 4)],
         domain="positive"),
    # maximum, minimum, where, clamp
    Case("maximum", lambda L, a, b: L.maximum(a, b), [(3, 4), (3, 4)]),
    Case("maximum_broadcast", lambda L, a, b: L.maximum(a, b), [(3, 4), (4,)]),
    Case("minimum", lambda L, a, b: L.minimum(a, b), [(3, 4), (3, 4)]),
    Case("minimum_broadcast_ndarray", lambda L, a: L.minimum(L.c(A4), a), [(3, 4)]),
    Case("where", lambda L, a, b: L.where(L.c(COND34), a, b), [(3, 4), (3, 4)]),
    Case("where_broadcast", lambda L, a, b: L.where(L.c(COND4), a, b), [(3, 4), (3, 1)]),
    Case("where_broadcast_by_cond", lambda L, a, b: L.where(L.c(COND34), a, b), [(4,), (3, 1)]),
    Case("where_scalar_other", lambda L, a: L.where(L.c(COND34), a * a, 0.5), [(3, 4)]),
    Case("where_scalar_input", lambda L, a: L.where(L.c(COND4), -1.0, a), [(3, 4)]),
    Case("clamp_scalars", lambda L, a: op("clamp")(L, a, -0.8, 1.0), [(3, 4)]),
    Case("clamp_min_only", lambda L, a: op("clamp")(L, a, min=-0.8), [(3, 4)]),
    Case("clamp_max_only", lambda L, a: op("clamp")(L, a, max=0.8), [(3, 4)]),
    # random bounds: some rows have min > max (the result is max there, as in torch)
    Case("clamp_variable_bounds", lambda L, a, lo, hi: op("clamp")(L, a, lo, hi),
         [(3, 4), (3, 4), (3, 4)]),
    Case("clamp_variable_bounds_broadcast", lambda L, a, lo, hi: op("clamp")(L, a, lo, hi),
         [(3, 4), (4,), (3, 1)]),
    Case("clamp_variable_min", lambda L, a, lo: op("clamp")(L, a, min=lo), [(3, 4), (3, 4)]),
    Case("clamp_variable_max", lambda L, a, hi: op("clamp")(L, a, max=hi), [(3, 4), (3, 4)]),
    Case("clip", lambda L, a: L.clip(a, -0.8, 1.0), [(3, 4)]),
    Case("clamp_min", lambda L, a: op("clamp_min")(L, a, 0.0), [(3, 4)]),
    Case("clamp_max", lambda L, a: op("clamp_max")(L, a, 0.0), [(3, 4)]),
    Case("clamp_min_variable", lambda L, a, b: op("clamp_min")(L, a, b), [(3, 4), (3, 4)]),
    # atan2, hypot, lerp
    Case("atan2", lambda L, a, b: L.atan2(a, b), [(3, 4), (3, 4)]),
    Case("atan2_broadcast", lambda L, a, b: L.atan2(a, b), [(3, 4), (4,)]),
    Case("hypot", lambda L, a, b: L.hypot(a, b), [(3, 4), (3, 4)]),
    Case("hypot_broadcast", lambda L, a, b: L.hypot(a, b), [(3, 1), (4,)]),
    Case("lerp", lambda L, a, b, w: op("lerp")(L, a, b, w), [(3, 4), (3, 4), (3, 4)]),
    Case("lerp_scalar_weight", lambda L, a, b: op("lerp")(L, a, b, 0.3), [(3, 4), (3, 4)]),
    Case("lerp_broadcast_weight", lambda L, a, b, w: op("lerp")(L, a, b, w),
         [(3, 4), (3, 4), (4,)]),
    # rounding: zero gradient (frac: gradient 1)
    Case("floor", lambda L, a: L.floor(a * 3) * a, [(3, 4)]),
    Case("ceil", lambda L, a: L.ceil(a * 3) * a, [(3, 4)]),
    Case("round", lambda L, a: L.round(a * 3) * a, [(3, 4)]),
    Case("round_decimals", lambda L, a: L.round(a * 3, decimals=1) * a, [(3, 4)]),
    Case("trunc", lambda L, a: L.trunc(a * 3) * a, [(3, 4)]),
    Case("floor_alone", lambda L, a: L.floor(a * 3), [(3, 4)]),
    Case("frac", lambda L, a: op("frac")(L, a * 3), [(3, 4)]),
    # remainders: gradient 1 to the dividend, -rounded quotient to the divisor
    Case("remainder", lambda L, a, b: L.remainder(a * 3, b), [(3, 4), (3, 4)]),
    Case("remainder_operator_broadcast", lambda L, a, b: (a * 3) % b, [(3, 4), (4,)]),
    Case("remainder_scalar_divisor", lambda L, a: (a * 3) % 0.7, [(3, 4)]),
    Case("fmod", lambda L, a, b: L.fmod(a * 3, b), [(3, 4), (3, 4)]),
    Case("fmod_broadcast", lambda L, a, b: L.fmod(a * 3, b), [(3, 4), (3, 1)]),
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
    if op is operator.sub and scalar is True:
        with pytest.raises(RuntimeError, match="with a bool Variable is not supported"):
            op(x, scalar) if side == "right" else op(scalar, x)   # torch: no bool in `-`
        return
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
    if op is operator.sub and scalar is True:
        return                     # refused (the test above)
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


# Type promotion follows torch's rules. With a float32 Variable: scalars (Python, NumPy) and 0-d
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


# Integer and bool operands (torch's promotion rules): (make(lib), expected dtype name).
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


# -- special points, in-place twins, dtypes, errors ----------------------------

def _torch_pair(values, dtype=np.float64):
    torch = pytest.importorskip("torch")
    x0 = np.asarray(values, dtype=dtype)
    return (pyad.Variable(x0.copy(), requires_grad=True),
            torch.tensor(x0, requires_grad=True), torch)


def _assert_same(ours, theirs):
    assert ours.dtype == theirs.detach().numpy().dtype
    np.testing.assert_allclose(ours.data, theirs.detach().numpy(), rtol=1e-15, atol=0)


@pytest.mark.parametrize("name", ["abs", "sign", "floor", "ceil", "round", "trunc", "frac",
                                  "sqrt", "rsqrt", "reciprocal", "log2", "asin", "acos"])
def test_unary_gradients_at_special_points_match_torch(name):
    values = [-1.0, -0.5, 0.0, 0.5, 1.0, 2.5, np.inf, -np.inf, np.nan]
    x, tx, torch = _torch_pair(values)
    with np.errstate(all="ignore"):
        y = getattr(pyad, name)(x)
        ty = getattr(torch, name)(tx)
        _assert_same(y, ty)
        w = np.linspace(0.5, 1.5, len(values))
        g, = pyad.grad(y, x, pyad.Variable(w))
    tg, = torch.autograd.grad(ty, tx, torch.from_numpy(w))
    _assert_same(g, tg)


@pytest.mark.parametrize("name", ["maximum", "minimum"])
def test_maximum_minimum_split_the_gradient_at_ties_as_torch(name):
    a0 = np.array([1.0, 2.0, 3.0, np.nan, 5.0, -0.0])
    b0 = np.array([1.0, 3.0, 2.0, 1.0, np.nan, 0.0])
    torch = pytest.importorskip("torch")
    a = pyad.Variable(a0, requires_grad=True)
    b = pyad.Variable(b0, requires_grad=True)
    ta = torch.tensor(a0, requires_grad=True)
    tb = torch.tensor(b0, requires_grad=True)
    y = getattr(pyad, name)(a, b)
    ty = getattr(torch, name)(ta, tb)
    _assert_same(y, ty)
    w = np.array([1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
    ga, gb = pyad.grad(y, [a, b], pyad.Variable(w))
    tga, tgb = torch.autograd.grad(ty, [ta, tb], torch.from_numpy(w))
    _assert_same(ga, tga)
    _assert_same(gb, tgb)


def test_maximum_with_broadcast_ties_sums_half_gradients():
    a, ta, torch = _torch_pair([[1.0, 2.0], [1.0, 0.0]])
    b, tb, _ = _torch_pair([1.0, 1.0])
    pyad.maximum(a, b).sum().backward()
    torch.maximum(ta, tb).sum().backward()
    _assert_same(a.grad, ta.grad)
    _assert_same(b.grad, tb.grad)


@pytest.mark.parametrize("bounds", [(-1.0, 1.0), (None, 0.5), (0.5, None), (1.0, -1.0),
                                    (0.5, 0.5)])
def test_clamp_gradient_at_the_bounds_matches_torch(bounds):
    values = [-2.0, -1.0, -0.5, 0.5, 1.0, 2.0, np.nan]
    x, tx, torch = _torch_pair(values)
    y = pyad.clamp(x, *bounds)
    ty = torch.clamp(tx, *bounds)
    np.testing.assert_array_equal(y.data, ty.detach().numpy())
    y.sum().backward()
    ty.sum().backward()
    _assert_same(x.grad, tx.grad)


def test_clamp_tensor_bounds_gradients_at_equal_points_match_torch():
    x0 = np.array([-2.0, -1.0, 0.0, 1.0, 2.0, 0.5, 0.5])
    lo0 = np.array([-1.0, -1.0, -1.0, -1.0, -1.0, 1.0, 0.5])
    hi0 = np.array([1.0, 1.0, 1.0, 1.0, 1.0, -1.0, 0.5])
    x, tx, torch = _torch_pair(x0)
    lo, tlo, _ = _torch_pair(lo0)
    hi, thi, _ = _torch_pair(hi0)
    y = pyad.clamp(x, lo, hi)
    ty = torch.clamp(tx, tlo, thi)
    _assert_same(y, ty)
    w = np.arange(1.0, 8.0)
    grads = pyad.grad(y, [x, lo, hi], pyad.Variable(w))
    tgrads = torch.autograd.grad(ty, [tx, tlo, thi], torch.from_numpy(w))
    for g, tg in zip(grads, tgrads):
        _assert_same(g, tg)


def test_clamp_needs_a_bound():
    with pytest.raises(RuntimeError, match="clamp"):
        pyad.clamp(pyad.Variable(np.ones(2)))


def test_where_gradient_ignores_nan_in_the_branch_not_taken():
    # where(x > 0, sqrt(x), 0): the usual guard; the untaken branch's nan must not leak
    x, tx, torch = _torch_pair([-1.0, 0.0, 4.0])
    with np.errstate(invalid="ignore"):
        y = pyad.where(x > 0, x * 2.0, 0.0)
    ty = torch.where(tx > 0, tx * 2.0, 0.0)
    _assert_same(y, ty)
    y.sum().backward()
    ty.sum().backward()
    _assert_same(x.grad, tx.grad)


def test_where_method_and_condition_errors():
    x = pyad.Variable(np.array([1.0, 2.0]))
    np.testing.assert_array_equal(x.where(x > 1.5, 0.0).data, [0.0, 2.0])
    # a non-bool condition Variable: torch's RuntimeError (a Python non-bool: TypeError)
    with pytest.raises(RuntimeError, match="where\\(\\): expected condition to be a bool"):
        pyad.where(x, x, 0.0)
    with pytest.raises(TypeError, match="where\\(\\): condition must be a bool"):
        pyad.where(1.5, x, 0.0)
    with pytest.raises(RuntimeError, match="where\\(\\)"):
        pyad.where(np.array([True, False, True]), x, 0.0)


def test_builtin_abs_and_round_dispatch_to_the_ops():
    x = pyad.Variable(np.array([-1.25, 2.5, 3.5]), requires_grad=True)
    assert abs(x).grad_fn.name() == "AbsBackward"
    np.testing.assert_array_equal(abs(x).data, [1.25, 2.5, 3.5])
    np.testing.assert_array_equal(round(x).data, [-1.0, 2.0, 4.0])    # halves to even
    np.testing.assert_array_equal(round(x, 1).data, [-1.2, 2.5, 3.5])
    assert round(x).grad_fn.name() == "RoundBackward"


@pytest.mark.parametrize("name", ["abs", "sign", "square", "floor", "ceil", "round", "trunc"])
def test_integer_inputs_keep_their_dtype_as_torch(name):
    torch = pytest.importorskip("torch")
    x0 = np.array([-3, 0, 2], dtype=np.int64)
    y = getattr(pyad, name)(pyad.Variable(x0))
    ty = getattr(torch, name)(torch.from_numpy(x0))
    assert y.dtype == ty.numpy().dtype
    np.testing.assert_array_equal(y.data, ty.numpy())


@pytest.mark.parametrize("name", ["reciprocal", "rsqrt", "sin", "log1p", "erf", "atan"])
def test_integer_inputs_of_float_functions_give_the_default_float(name):
    torch = pytest.importorskip("torch")
    x0 = np.array([1, 2, 3], dtype=np.int64)
    y = getattr(pyad, name)(pyad.Variable(x0))
    ty = getattr(torch, name)(torch.from_numpy(x0))
    assert y.dtype == ty.numpy().dtype == np.float32
    np.testing.assert_allclose(y.data, ty.numpy(), rtol=2e-7, atol=0)


def test_erf_matches_torch_across_its_range():
    x0 = np.concatenate([np.linspace(-6, 6, 241), [0.0, -0.0, 1e-300, np.inf, -np.inf]])
    x, tx, torch = _torch_pair(x0)
    y = pyad.erf(x)
    ty = torch.erf(tx)
    np.testing.assert_allclose(y.data, ty.detach().numpy(), rtol=4e-16, atol=0)
    y.sum().backward()
    ty.sum().backward()
    np.testing.assert_allclose(x.grad.data, tx.grad.numpy(), rtol=1e-15, atol=0)


UNARY_TWINS = ["abs", "reciprocal", "sign", "square", "rsqrt", "expm1", "log1p", "log2",
               "log10", "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "erf",
               "floor", "ceil", "round", "trunc", "frac"]


@pytest.mark.parametrize("name", UNARY_TWINS)
def test_inplace_unary_twin_matches_torch_values_and_gradients(name):
    x0 = np.array([[0.3, 0.45, 0.6], [0.15, 0.7, 0.9]])
    x, tx, torch = _torch_pair(x0)
    h = x * 1.0
    th = tx * 1.0
    out = getattr(h, name + "_")()
    tout = getattr(th, name + "_")()
    assert out is h and h._version == 1
    assert h.grad_fn is not None
    _assert_same(h, th)
    (h * x).sum().backward()
    (th * tx).sum().backward()
    np.testing.assert_allclose(x.grad.data, tx.grad.numpy(), rtol=1e-14, atol=0)
    # the function form, on a tensor outside any graph
    z = pyad.Variable(x0.copy())
    getattr(pyad, name + "_")(z)
    np.testing.assert_allclose(z.data, getattr(torch, name)(torch.from_numpy(x0)).numpy(),
                               rtol=1e-15, atol=0)


@pytest.mark.parametrize("bounds", [(-0.5, 0.5), (None, 0.0), ("variable", None)])
def test_clamp_inplace_matches_torch(bounds):
    x0 = np.array([-1.0, -0.25, 0.25, 1.0])
    x, tx, torch = _torch_pair(x0)
    if bounds[0] == "variable":
        lo, tlo, _ = _torch_pair([0.0, 0.0, 0.5, 0.5])
        bounds, tbounds = (lo, None), (tlo, None)
    else:
        tbounds = bounds
    h = x * 2.0
    th = tx * 2.0
    h.clamp_(*bounds)
    th.clamp_(*tbounds)
    assert h._version == 1
    _assert_same(h, th)
    (h * h).sum().backward()
    (th * th).sum().backward()
    _assert_same(x.grad, tx.grad)
    if isinstance(bounds[0], pyad.Variable):
        _assert_same(bounds[0].grad, tbounds[0].grad)


def test_clamp_inplace_on_a_leaf_that_requires_grad_raises():
    x = pyad.Variable(np.ones(3), requires_grad=True)
    with pytest.raises(RuntimeError, match="clamp_.*leaf"):
        x.clamp_(0.0, 0.5)


@pytest.mark.parametrize("name", ["abs", "sin", "clamp", "maximum", "atan2", "round", "lerp"])
def test_new_ops_are_methods_and_functions(name):
    x = pyad.Variable(np.array([0.25, -1.0, 2.0]))
    args = {"clamp": (-0.5, 0.5), "maximum": (x * 0.5,), "atan2": (x + 3.0,),
            "lerp": (x * 3.0, 0.25)}.get(name, ())
    np.testing.assert_array_equal(getattr(x, name)(*args).data,
                                  getattr(pyad, name)(x, *args).data)


# -- floor division, comparisons, logical and bitwise ops, value tests ---------

DIV_A = np.array([5.0, -5.0, 5.0, -5.0, 2.5, 0.0, 7.0, np.inf, np.nan])
DIV_B = np.array([2.0, 2.0, -2.0, -2.0, 0.5, 3.0, 0.0, 2.0, 1.0])


def test_floor_divide_matches_torch_and_its_gradient_raises():
    # As torch, the output of inputs that require grad requires grad, and its
    # backward raises (it has no derivative): never a silent constant
    torch = pytest.importorskip("torch")
    a = pyad.Variable(DIV_A, requires_grad=True)
    ta = torch.tensor(DIV_A, requires_grad=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        for ours, theirs in [
                (pyad.floor_divide(a, pyad.Variable(DIV_B)),
                 torch.floor_divide(ta, torch.tensor(DIV_B))),
                (a // 2, ta // 2),
                (a // pyad.Variable(DIV_B), ta // torch.tensor(DIV_B))]:
            assert ours.requires_grad and theirs.requires_grad
            _assert_same(ours, theirs)
            for out in (ours, theirs):
                with pytest.raises(RuntimeError, match="derivative for aten::floor_divide "
                                                       "is not implemented"):
                    out.sum().backward()
        ours, theirs = 7.0 // pyad.Variable(DIV_B[:6]), 7.0 // torch.tensor(DIV_B[:6])
        assert not ours.requires_grad and ours.grad_fn is None
        _assert_same(ours, theirs)
    ia = np.array([7, -7, 7, -7])
    ib = np.array([2, 2, -2, -2])
    _assert_same(pyad.Variable(ia) // pyad.Variable(ib),
                 torch.from_numpy(ia) // torch.from_numpy(ib))
    _assert_same(pyad.Variable(ia) % pyad.Variable(ib),
                 torch.from_numpy(ia) % torch.from_numpy(ib))


def test_remainder_and_fmod_values_and_gradients_at_special_points_match_torch():
    torch = pytest.importorskip("torch")
    for name in ["remainder", "fmod"]:
        a = pyad.Variable(DIV_A, requires_grad=True)
        b = pyad.Variable(DIV_B, requires_grad=True)
        ta = torch.tensor(DIV_A, requires_grad=True)
        tb = torch.tensor(DIV_B, requires_grad=True)
        with np.errstate(divide="ignore", invalid="ignore"):
            y = getattr(pyad, name)(a, b)
            ty = getattr(torch, name)(ta, tb)
            _assert_same(y, ty)
            w = np.linspace(0.5, 1.5, len(DIV_A))
            ga, gb = pyad.grad(y, [a, b], pyad.Variable(w))
        tga, tgb = torch.autograd.grad(ty, [ta, tb], torch.from_numpy(w))
        _assert_same(ga, tga)
        _assert_same(gb, tgb)


def test_reflected_remainder_has_no_divisor_gradient_as_torch():
    # torch records no derivative for scalar % tensor: the value, then an error at
    # backward (as floor_divide's)
    b = pyad.Variable(np.array([0.7, -1.3, 2.2, 3.1]), requires_grad=True)
    np.testing.assert_array_equal((5.0 % b).data, np.remainder(5.0, b.data))
    with pytest.raises(RuntimeError, match="derivative for aten::remainder"):
        (5.0 % b).sum().backward()
    torch = pytest.importorskip("torch")
    tb = torch.tensor(b.data, requires_grad=True)
    with pytest.raises(RuntimeError, match="derivative for aten::remainder"):
        (5.0 % tb).sum().backward()


CMP_A = np.array([1.0, 2.0, 3.0, np.nan, -np.inf, 0.0])
CMP_B = np.array([2.0, 2.0, 2.0, np.nan, -np.inf, -0.0])


@pytest.mark.parametrize("name", ["lt", "le", "gt", "ge", "eq", "ne"])
@pytest.mark.parametrize("other", ["variable", "scalar", "broadcast"])
def test_comparison_functions_match_torch(name, other):
    torch = pytest.importorskip("torch")
    a = pyad.Variable(CMP_A, requires_grad=True)
    ta = torch.tensor(CMP_A)
    b, tb = {"variable": (pyad.Variable(CMP_B), torch.tensor(CMP_B)),
             "scalar": (2.0, 2.0),
             "broadcast": (pyad.Variable(CMP_B.reshape(6, 1)),
                           torch.tensor(CMP_B.reshape(6, 1)))}[other]
    y = getattr(pyad, name)(a, b)
    assert y.dtype == np.bool_ and not y.requires_grad
    np.testing.assert_array_equal(y.data, getattr(torch, name)(ta, tb).numpy())
    np.testing.assert_array_equal(getattr(a, name)(b).data, y.data)


def test_comparison_aliases():
    a = pyad.Variable(CMP_A)
    for alias, name in [("less", "lt"), ("less_equal", "le"), ("greater", "gt"),
                        ("greater_equal", "ge"), ("not_equal", "ne")]:
        np.testing.assert_array_equal(getattr(pyad, alias)(a, 2.0).data,
                                      getattr(pyad, name)(a, 2.0).data)


BOOL_A = np.array([True, True, False, False])
BOOL_B = np.array([True, False, True, False])
INT_A = np.array([12, -3, 0, 7])
INT_B = np.array([10, 5, -1, 7])


@pytest.mark.parametrize("op_name", ["and", "or", "xor"])
@pytest.mark.parametrize("kind", ["bool", "int", "bool_scalar"])
def test_bitwise_operators_match_torch(op_name, kind):
    torch = pytest.importorskip("torch")
    fn = {"and": operator.and_, "or": operator.or_, "xor": operator.xor}[op_name]
    a0, b0 = (INT_A, INT_B) if kind == "int" else (BOOL_A, BOOL_B)
    if kind == "bool_scalar":
        ours, theirs = fn(pyad.Variable(a0), True), fn(torch.from_numpy(a0), True)
        _assert_same(ours, theirs)
        ours, theirs = fn(False, pyad.Variable(a0)), fn(False, torch.from_numpy(a0))
    else:
        ours = fn(pyad.Variable(a0), pyad.Variable(b0))
        theirs = fn(torch.from_numpy(a0), torch.from_numpy(b0))
        np.testing.assert_array_equal(getattr(pyad, "bitwise_" + op_name)(
            pyad.Variable(a0), pyad.Variable(b0)).data, theirs.numpy())
    _assert_same(ours, theirs)


def test_invert_matches_torch_and_refuses_floats():
    torch = pytest.importorskip("torch")
    _assert_same(~pyad.Variable(BOOL_A), ~torch.from_numpy(BOOL_A))
    _assert_same(~pyad.Variable(INT_A), ~torch.from_numpy(INT_A))
    x = pyad.Variable(np.array([1.0, 2.0]))
    with pytest.raises(TypeError, match="bitwise_not\\(\\)"):
        ~x
    # binary bitwise ops promote first, then find no kernel for a floating result:
    # NotImplementedError naming the promoted dtype, as torch
    for lib in (pyad, torch):
        with pytest.raises(NotImplementedError, match="\"bitwise_and_cpu\" not implemented "
                                                      "for 'Double'"):
            lib.tensor(np.array([1.0, 2.0])) & lib.tensor(BOOL_A[:2])
        with pytest.raises(NotImplementedError, match="\"bitwise_or_cpu\" not implemented "
                                                      "for 'Float'"):
            lib.tensor(BOOL_A[:2]) | 1.5
        with pytest.raises(NotImplementedError, match="'ComplexFloat'"):
            lib.tensor(INT_A[:2]) ^ lib.tensor(np.ones(2, np.complex64))


@pytest.mark.parametrize("name", ["logical_and", "logical_or", "logical_xor"])
def test_logical_ops_match_torch_on_numbers_and_bools(name):
    torch = pytest.importorskip("torch")
    for a0, b0 in [(BOOL_A, BOOL_B), (np.array([0.0, 2.0, -1.0, np.nan]), INT_B)]:
        _assert_same(getattr(pyad, name)(pyad.Variable(a0), pyad.Variable(b0)),
                     getattr(torch, name)(torch.from_numpy(a0), torch.from_numpy(b0)))
    x = np.array([0.0, 2.0, np.nan, -0.0])
    _assert_same(pyad.logical_not(pyad.Variable(x)), torch.logical_not(torch.from_numpy(x)))
    _assert_same(pyad.Variable(x).logical_not(), torch.logical_not(torch.from_numpy(x)))


@pytest.mark.parametrize("name", ["isnan", "isinf", "isfinite"])
def test_value_tests_match_torch(name):
    torch = pytest.importorskip("torch")
    for x in [np.array([0.0, np.nan, np.inf, -np.inf, 3e38], dtype=np.float32),
              np.array([[1.0, np.nan]]).T, np.array(np.inf), np.zeros((0, 2)),
              np.array([1, 2])]:
        y = getattr(pyad, name)(pyad.Variable(x, requires_grad=x.dtype.kind == "f"))
        assert not y.requires_grad
        _assert_same(y, getattr(torch, name)(torch.from_numpy(x)))


def test_isclose_allclose_equal_match_torch():
    torch = pytest.importorskip("torch")
    a0 = np.array([1.0, 1.0 + 1e-9, 1.001, np.nan, np.inf, -np.inf, 0.0])
    b0 = np.array([1.0, 1.0, 1.0, np.nan, np.inf, np.inf, 1e-9])
    a, b = pyad.Variable(a0), pyad.Variable(b0)
    ta, tb = torch.from_numpy(a0), torch.from_numpy(b0)
    for kwargs in [{}, {"equal_nan": True}, {"rtol": 1e-2, "atol": 0.0}]:
        _assert_same(pyad.isclose(a, b, **kwargs), torch.isclose(ta, tb, **kwargs))
        for sl in [slice(None), slice(0, 3), slice(4, 5)]:
            ours = pyad.allclose(a[sl], b[sl], **kwargs)
            assert type(ours) is bool
            assert ours == torch.allclose(ta[sl], tb[sl], **kwargs)
    assert a.isclose(b).dtype == np.bool_
    assert pyad.equal(a[:3], a[:3]) is True
    assert pyad.equal(a[:3], b[:3]) is False
    assert pyad.equal(a[:3], a[:2]) is False                    # shapes differ
    assert pyad.equal(a[:3], a[:3].reshape(3, 1)) is False
    assert pyad.equal(a, a) is torch.equal(ta, ta) is False     # nan != nan
    assert pyad.equal(pyad.Variable(np.array(2.0)), pyad.Variable(np.array(2.0))) is True
    assert a[:2].equal(a[:2]) is True


NO_GRAD_BINARY = ["floor_divide", "lt", "le", "gt", "ge", "eq", "ne", "logical_and",
                  "logical_or", "logical_xor", "isclose"]
NO_GRAD_UNARY = ["logical_not", "isnan", "isinf", "isfinite"]


def _variant_arrays(variant, n):
    rng = np.random.default_rng(5)
    shape = {"0d": (), "empty": (0, 3), "noncontig": (3, 4), "float32": (3, 4)}[variant]
    out = []
    for _ in range(n):
        a = np.asarray(np.round(rng.uniform(-2, 2, size=shape), 1))   # ties: comparisons
        a = a.astype(np.float32 if variant == "float32" else np.float64)
        out.append(np.asfortranarray(a) if variant == "noncontig" else a)
    return out


@pytest.mark.parametrize("variant", ["0d", "empty", "noncontig", "float32"])
@pytest.mark.parametrize("name", NO_GRAD_BINARY + NO_GRAD_UNARY)
def test_ops_without_gradient_match_torch_on_variants(name, variant):
    torch = pytest.importorskip("torch")
    arrays = _variant_arrays(variant, 1 if name in NO_GRAD_UNARY else 2)
    if variant == "noncontig":
        assert not arrays[0].flags.c_contiguous
    with np.errstate(divide="ignore", invalid="ignore"):
        y = getattr(pyad, name)(*[pyad.Variable(a, requires_grad=True) for a in arrays])
    ty = getattr(torch, name)(*[torch.from_numpy(a).requires_grad_(True) for a in arrays])
    # comparisons give no gradient; floor_divide's output requires grad and its backward
    # raises, as torch's
    assert y.requires_grad == ty.requires_grad == (name == "floor_divide")
    assert (y.grad_fn is None) == (name != "floor_divide")
    _assert_same(y, ty)


def test_integer_division_by_zero_raises_as_torch():
    x = pyad.Variable(np.array([3, 4]))
    for f, name in [(lambda: x // 0, "floor_divide"), (lambda: x % 0, "remainder"),
                    (lambda: pyad.fmod(x, pyad.Variable(np.array([1, 0]))), "fmod"),
                    (lambda: 7 % pyad.Variable(np.array([0])), "remainder")]:
        with pytest.raises(RuntimeError, match=name + "\\(\\): ZeroDivisionError"):
            f()
    np.testing.assert_array_equal((x // 2).data, [1, 2])


def test_sign_of_bool_is_a_copy_and_clamp_names_a_bad_bound():
    b = pyad.Variable(np.array([True, False]))
    np.testing.assert_array_equal(pyad.sign(b).data, [True, False])
    with pytest.raises(TypeError, match="clamp\\(\\): argument 'max'"):
        pyad.clamp(pyad.Variable(np.ones(2)), 0.0, "1")


def test_where_of_two_python_floats_has_the_default_dtype():
    torch = pytest.importorskip("torch")
    c = np.array([True, False])
    _assert_same(pyad.where(pyad.Variable(c), 1.5, -1.0),
                 torch.where(torch.from_numpy(c), 1.5, -1.0))
    _assert_same(pyad.where(pyad.Variable(c), 2, 3), torch.where(torch.from_numpy(c), 2, 3))


def test_round_inplace_takes_decimals_as_torch():
    torch = pytest.importorskip("torch")
    x0 = np.array([1.234, -5.678, 2.25])
    x, tx, _ = _torch_pair(x0)
    h, th = x * 10.0, tx * 10.0
    h.round_(decimals=-1)
    th.round_(decimals=-1)
    _assert_same(h, th)
    z = pyad.Variable(x0.copy())
    pyad.round_(z, decimals=1)
    _assert_same(z, torch.round(torch.from_numpy(x0), decimals=1))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("create_graph", [False, True])
def test_where_and_clamp_zero_nan_and_inf_gradients_where_masked_like_torch(dtype,
                                                                             create_graph):
    # The array fast path selects with a bit mask: nan and inf in the incoming gradient
    # must become exact zeros where the mask is off, and pass through where it is on
    # (torch uses where(mask, grad, 0)); also for a broadcast condition and a strided grad.
    torch = pytest.importorskip("torch")
    x0 = np.array([[-2.0, -0.5, 0.5, 2.0], [0.25, -3.0, 1.0, -1.0], [3.0, 0.0, -0.1, 0.7]],
                  dtype=dtype)
    cond0 = np.array([True, False, True, False])
    gfull = np.array([[np.nan, np.inf, -np.inf, 1.5, 2.0, np.nan, -np.inf, 3.0]] * 3,
                     dtype=dtype)
    g0 = gfull[:, ::2]                              # non-contiguous incoming gradient
    g0[1] = [np.nan, -np.inf, np.nan, np.inf]
    x, tx, _ = _torch_pair(x0, dtype)
    b, tb, _ = _torch_pair(x0[:, ::-1].copy(), dtype)
    cases = [
        (lambda L, u, v: L.where(L.c(cond0), u, v), [x, b], [tx, tb]),
        (lambda L, u, v: L.clamp(u, -1.0, 1.0), [x], [tx]),
        (lambda L, u, v: L.clamp(u, min=0.0), [x], [tx]),
        (lambda L, u, v: L.clamp(u, u * 0.0 - 0.5, v), [x, b], [tx, tb]),
        (lambda L, u, v: L.maximum(u, v), [x, b], [tx, tb]),
    ]

    class P:
        c = staticmethod(lambda a: pyad.Variable(a))
        where, clamp, maximum = pyad.where, pyad.clamp, pyad.maximum

    class T:
        c = staticmethod(torch.from_numpy)
        where, clamp, maximum = torch.where, torch.clamp, torch.maximum

    for f, ins, tins in cases:
        y = f(P, x, b)
        ty = f(T, tx, tb)
        np.testing.assert_array_equal(y.data, ty.detach().numpy())
        with np.errstate(invalid="ignore"):         # inf * 0 in the backward of u * 0.0
            grads = pyad.autograd.grad(y, ins, pyad.Variable(g0), create_graph=create_graph)
        tgrads = torch.autograd.grad(ty, tins, torch.from_numpy(g0.copy()))
        for gr, tg in zip(grads, tgrads):
            assert gr.dtype == tg.numpy().dtype
            np.testing.assert_array_equal(gr.data, tg.numpy())


# torch.max(input, other) / torch.min(input, other) are maximum / minimum; add and sub
# take alpha as functions too. (Outside the Case table: its adapters read max(x, y) as a
# reduction over dim y and have no alpha.)
TWO_OPERAND_FORMS = {
    "max_of_two": (lambda L, a, b: L.max(a, b), np.maximum),
    "min_of_two_method": (lambda L, a, b: a.min(b), np.minimum),
    "add_alpha": (lambda L, a, b: L.add(a, b, alpha=2.5), lambda a, b: a + 2.5 * b),
    "sub_alpha": (lambda L, a, b: L.sub(a, b, alpha=-0.5), lambda a, b: a + 0.5 * b),
    "add_alpha_number": (lambda L, a, b: L.add(a, 2, alpha=3) * b, lambda a, b: (a + 6) * b),
}


@pytest.mark.parametrize("shapes", [((3, 4), (3, 4)), ((3, 4), (4,)), ((), ()),
                                    ((0, 4), (4,))], ids=str)
@pytest.mark.parametrize("name", sorted(TWO_OPERAND_FORMS))
def test_two_operand_forms(name, shapes):
    f, reference = TWO_OPERAND_FORMS[name]
    rng = np.random.default_rng(3)
    a, b = (rng.uniform(0.5, 1.5, size=s) * rng.choice([-1.0, 1.0], size=s) for s in shapes)
    x, y = pyad.tensor(a, requires_grad=True), pyad.tensor(b, requires_grad=True)
    out = f(pyad, x, y)
    np.testing.assert_allclose(out.data, reference(a, b))
    assert pyad.autograd.gradcheck(lambda x, y: f(pyad, x, y), (x, y))
    assert pyad.autograd.gradgradcheck(lambda x, y: f(pyad, x, y), (x, y))
    torch = pytest.importorskip("torch")
    tx, ty = torch.tensor(a, requires_grad=True), torch.tensor(b, requires_grad=True)
    tout = f(torch, tx, ty)
    w = rng.standard_normal(tout.shape)
    expected = torch.autograd.grad(tout, (tx, ty), torch.tensor(w))
    got = pyad.autograd.grad(out, (x, y), pyad.tensor(w))
    for g, t in zip(got, expected):
        np.testing.assert_allclose(g.data, t.numpy(), rtol=1e-12, atol=1e-12)
