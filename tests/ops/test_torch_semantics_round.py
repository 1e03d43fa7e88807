"""torch's semantics where pyad had NumPy's, each case run on pyad with values derived
by hand and, when torch is installed, on torch with the same code:

* masked gradients select, they do not multiply: an inf or nan in the incoming
  gradient where a mask is false gives 0 (relu, hardtanh, relu6, masked_fill,
  setitem, max with dim), as torch's kernels write it;
* binary_cross_entropy's gradient at probabilities of exactly 0 and 1 (torch clamps
  x (1 - x) at 1e-12), cross_entropy with every target ignored;
* type promotion: NumPy scalars as Python numbers, where/cat/stack by torch's table,
  atan2 and true division of integers, integer sums as int64, tensor() inference for
  NumPy scalars and arrays in lists, integer numbers wrapped into small integer dtypes;
* integer powers with negative exponents;
* the augmented assignments //=, %=, **=, &=, |=, ^= work in place;
* requires_grad cannot be assigned on a non-leaf; an integer Variable written from
  one that requires grad does not start requiring grad;
* the conveniences `in`, reversed(), flip/tile with dims one by one, where(cond),
  x[[]], sum(dim=()), and the error types of out-of-range indices and k.
"""
import math

import numpy as np
import pytest

import pyad
import pyad.nn.functional as PF
from _torch_compare import LIBS, as_np

IDS = [lib.__name__ for lib in LIBS]


def functional(lib):
    return PF if lib is pyad else lib.nn.functional


def dtype_name(dt):
    # torch.float32 and numpy's float32 alike
    return str(dt).replace("torch.", "")


# -- masked gradients select ----------------------------------------------------------

@pytest.mark.parametrize("lib", LIBS, ids=IDS)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_relu_gradient_is_zero_where_an_infinite_gradient_is_masked(lib, dtype):
    x = lib.tensor([-1.0, 4.0, 0.0], dtype=getattr(lib, dtype), requires_grad=True)
    lib.sqrt(functional(lib).relu(x)).sum().backward()
    # d sqrt(y)/dy is inf at y = 0; relu's mask is false at -1 and 0
    np.testing.assert_array_equal(as_np(x.grad), [0.0, 0.25, 0.0])


@pytest.mark.parametrize("lib", LIBS, ids=IDS)
def test_relu_passes_a_nan_gradient_where_the_mask_is_true(lib):
    x = lib.tensor([2.0, -2.0], dtype=lib.float64, requires_grad=True)
    y = functional(lib).relu(x)
    y.backward(lib.tensor([float("nan"), float("nan")], dtype=lib.float64))
    g = as_np(x.grad)
    assert math.isnan(g[0]) and g[1] == 0.0


@pytest.mark.parametrize("lib", LIBS, ids=IDS)
@pytest.mark.parametrize("op", ["hardtanh", "relu6"])
def test_clamping_activations_select_the_gradient(lib, op):
    x = lib.tensor([-3.0, 0.5, 9.0], dtype=lib.float64, requires_grad=True)
    y = getattr(functional(lib), op)(x)
    y.backward(lib.tensor([float("inf"), 2.0, float("-inf")], dtype=lib.float64))
    np.testing.assert_array_equal(as_np(x.grad), [0.0, 2.0, 0.0])


@pytest.mark.parametrize("lib", LIBS, ids=IDS)
def test_masked_fill_then_softmax_over_a_fully_masked_row(lib):
    s = lib.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=lib.float64, requires_grad=True)
    mask = lib.tensor([[True, True], [False, True]])
    p = functional(lib).softmax(s.masked_fill(mask, float("-inf")), -1)
    p[1].sum().backward()
    # row 0 is nan forward (all -inf) but receives no gradient; row 1 is one-hot
    np.testing.assert_array_equal(as_np(s.grad), [[0.0, 0.0], [0.0, 0.0]])


@pytest.mark.parametrize("lib", LIBS, ids=IDS)
def test_setitem_gradient_outside_the_written_part_is_selected(lib):
    x = lib.tensor([-1.0, 4.0], dtype=lib.float64, requires_grad=True)
    y = x.clone()
    y[x <= 0] = 0.0
    y.sqrt().sum().backward()
    np.testing.assert_array_equal(as_np(x.grad), [0.0, 0.25])


@pytest.mark.parametrize("lib", LIBS, ids=IDS)
def test_max_with_dim_sends_an_infinite_gradient_to_the_chosen_element_only(lib):
    x = lib.tensor([-1.0, 4.0], dtype=lib.float64, requires_grad=True)
    z = lib.zeros(2, dtype=lib.float64)
    lib.stack([x, z], 1).max(1).values.sqrt().sum().backward()
    np.testing.assert_array_equal(as_np(x.grad), [0.0, 0.25])


def test_masked_gradients_stay_differentiable():
    # the selection is linear in the incoming gradient: second order through relu,
    # masked_fill and max(dim) by finite differences
    rng = np.random.default_rng(3)
    x = pyad.Variable(rng.standard_normal((3, 4)), requires_grad=True)
    mask = rng.random((3, 4)) < 0.4

    def f(v):
        y = pyad.relu(v) * v
        y = y.masked_fill(pyad.Variable(mask), 0.5) * v
        return pyad.max(y * v, 1)[0]
    assert pyad.autograd.gradcheck(f, (x,))
    assert pyad.autograd.gradgradcheck(f, (x,))


# -- losses at the edges ---------------------------------------------------------------

@pytest.mark.parametrize("lib", LIBS, ids=IDS)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_binary_cross_entropy_gradient_at_zero_and_one(lib, dtype):
    dt = getattr(lib, dtype)
    p = lib.tensor([0.0, 1.0, 0.0, 1.0], dtype=dt, requires_grad=True)
    y = lib.tensor([0.0, 1.0, 1.0, 0.0], dtype=dt)
    loss = functional(lib).binary_cross_entropy(p, y)
    loss.backward()
    # each log clamped at -100: two terms of 100, mean over 4
    assert loss.item() == pytest.approx(50.0)
    # (p - y) / max(p (1 - p), 1e-12) / 4
    np.testing.assert_allclose(as_np(p.grad), [0.0, 0.0, -2.5e11, 2.5e11], rtol=1e-6)


@pytest.mark.parametrize("lib", LIBS, ids=IDS)
def test_binary_cross_entropy_target_gradient_is_minus_logit(lib):
    p = lib.tensor([0.2, 0.7], dtype=lib.float64)
    y = lib.tensor([0.4, 0.9], dtype=lib.float64, requires_grad=True)
    functional(lib).binary_cross_entropy(p, y, reduction="sum").backward()
    np.testing.assert_allclose(as_np(y.grad), [-math.log(0.2 / 0.8), -math.log(0.7 / 0.3)])


def test_binary_cross_entropy_gradcheck_first_and_second_order():
    rng = np.random.default_rng(4)
    p = pyad.Variable(rng.uniform(0.1, 0.9, (3, 2)), requires_grad=True)
    y = pyad.Variable(rng.uniform(0.0, 1.0, (3, 2)), requires_grad=True)
    w = pyad.Variable(rng.uniform(0.5, 2.0, (3, 2)))

    def f(p, y):
        return PF.binary_cross_entropy(p, y, weight=w)
    assert pyad.autograd.gradcheck(f, (p, y))
    assert pyad.autograd.gradgradcheck(f, (p, y))


@pytest.mark.parametrize("lib", LIBS, ids=IDS)
def test_cross_entropy_with_every_target_ignored(lib):
    x = lib.tensor([[1.0, 2.0], [0.5, -1.0]], dtype=lib.float64, requires_grad=True)
    t = lib.tensor([-100, -100])
    loss = functional(lib).cross_entropy(x, t)
    loss.backward()
    assert math.isnan(loss.item())
    np.testing.assert_array_equal(as_np(x.grad), np.zeros((2, 2)))


# -- type promotion ------------------------------------------------------------------

PROMOTIONS = {
    "int64 * numpy.float64": (lambda L: L.tensor([5]) * np.float64(2.0), "float32", [10.0]),
    "numpy.float64 * int64": (lambda L: np.float64(2.0) * L.tensor([5]), "float32", [10.0]),
    "float16 * numpy.float64": (lambda L: L.tensor([5.0], dtype=L.float16) * np.float64(2.0),
                                "float16", [10.0]),
    "bool + numpy.int32": (lambda L: L.tensor([True]) + np.int32(3), "int64", [4]),
    "int64 * numpy.complex128": (lambda L: L.tensor([5]) * np.complex128(2.0), "complex64",
                                 [10.0]),
    "uint8 + numpy.int32": (lambda L: L.tensor([5, 7], dtype=L.uint8) + np.int32(3), "uint8",
                            [8, 10]),
    "uint8 + int64 0-d": (lambda L: L.tensor([5, 7], dtype=L.uint8) + L.tensor(2), "uint8",
                          [7, 9]),
    "uint8 + -3 wraps": (lambda L: L.tensor([5, 7], dtype=L.uint8) + (-3), "uint8", [2, 4]),
    "int8 + 200 wraps": (lambda L: L.tensor([5, 7], dtype=L.int8) + 200, "int8", [-51, -49]),
    "uint8 * 300 wraps": (lambda L: L.tensor([1, 2], dtype=L.uint8) * 300, "uint8", [44, 88]),
    "uint8 sum": (lambda L: L.tensor([200, 100], dtype=L.uint8).sum(), "int64", 300),
    "uint16 sum dim": (lambda L: L.tensor([[1, 2]], dtype=L.uint16).sum(1), "int64", [3]),
    "where int64, float32": (lambda L: L.where(L.tensor([True, False]), L.tensor([1, 1]),
                                               L.tensor([2.0, 2.0])), "float32", [1.0, 2.0]),
    "where float32, float64 0-d": (lambda L: L.where(L.tensor([True, False]),
                                                     L.tensor([1.0, 1.0]),
                                                     L.tensor(2.0, dtype=L.float64)),
                                   "float32", [1.0, 2.0]),
    "where int32, int64 0-d": (lambda L: L.where(L.tensor([True, False]),
                                                 L.tensor([1, 1], dtype=L.int32),
                                                 L.tensor(2)), "int32", [1, 2]),
    "where int64, Python float": (lambda L: L.where(L.tensor([True, False]), L.tensor([1, 1]),
                                                    2.5), "float32", [1.0, 2.5]),
    "cat int64, float32": (lambda L: L.cat([L.tensor([1]), L.tensor([2.0])]), "float32",
                           [1.0, 2.0]),
    "cat int16, float16": (lambda L: L.cat([L.tensor([1], dtype=L.int16),
                                            L.tensor([2.0], dtype=L.float16)]), "float16",
                           [1.0, 2.0]),
    "stack int32, int64": (lambda L: L.stack([L.tensor([1], dtype=L.int32), L.tensor([2])]),
                           "int64", [[1], [2]]),
    "atan2 int64, bool": (lambda L: L.atan2(L.tensor([1]), L.tensor([True])), "float32",
                          [math.pi / 4]),
    "atan2 int8": (lambda L: L.atan2(L.tensor([1], dtype=L.int8), L.tensor([1], dtype=L.int8)),
                   "float32", [math.pi / 4]),
    "tensor([numpy.float64])": (lambda L: L.tensor([np.float64(1.5)]), "float64", [1.5]),
    "tensor([1, numpy.float64])": (lambda L: L.tensor([1, np.float64(2.0)]), "float64",
                                   [1.0, 2.0]),
    "tensor([numpy.float16])": (lambda L: L.tensor([np.float16(1.5)]), "float16", [1.5]),
    "tensor([1.5, numpy.float16])": (lambda L: L.tensor([1.5, np.float16(2.0)]), "float32",
                                     [1.5, 2.0]),
    "tensor([float64 0-d, float64 0-d])": (
        lambda L: L.tensor([L.tensor(1.0, dtype=L.float64), L.tensor(2.0, dtype=L.float64)]),
        "float64", [1.0, 2.0]),
    "tensor([[1.5], [2]])": (lambda L: L.tensor([[1.5], [2]]), "float32", [[1.5], [2.0]]),
}


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("lib", LIBS, ids=IDS)
@pytest.mark.parametrize("case", list(PROMOTIONS), ids=list(PROMOTIONS))
def test_type_promotion_follows_torch(lib, case):
    fn, dtype, values = PROMOTIONS[case]
    r = fn(lib)
    assert dtype_name(r.dtype) == dtype
    np.testing.assert_allclose(as_np(r), values, rtol=1e-6)


def test_promoted_cat_and_where_send_gradients_back_in_each_input_dtype():
    a = pyad.tensor([1.0, 2.0], dtype=pyad.float32, requires_grad=True)
    b = pyad.tensor(3.0, dtype=pyad.float64, requires_grad=True)
    out = pyad.where(pyad.tensor([True, False]), a, b)
    assert out.dtype == np.float32
    (out * pyad.tensor([2.0, 5.0])).sum().backward()
    assert a.grad.dtype == np.float32 and b.grad.dtype == np.float64
    np.testing.assert_array_equal(a.grad.data, [2.0, 0.0])
    assert float(b.grad) == 5.0


# -- integer powers ------------------------------------------------------------------

@pytest.mark.parametrize("lib", LIBS, ids=IDS)
def test_integer_power_with_negative_exponents(lib):
    r = lib.pow(lib.tensor([2, 1, -1, -1, 0, 3]), lib.tensor([-1, -2, -3, -2, -1, 2]))
    assert dtype_name(r.dtype) == "int64"
    np.testing.assert_array_equal(as_np(r), [0, 1, -1, 1, 0, 9])
    np.testing.assert_array_equal(as_np(2 ** lib.tensor([0, -1, 3])), [1, 0, 8])


@pytest.mark.parametrize("lib", LIBS, ids=IDS)
def test_integer_to_a_negative_number_power_is_refused(lib):
    with pytest.raises(RuntimeError, match="Integers to negative integer powers"):
        lib.tensor([2, 3]) ** -1


# -- augmented assignments in place --------------------------------------------------

AUGMENTED = {
    "//=": (lambda x: x.__ifloordiv__(2), [0.0, 0.0, 1.0, 1.0]),
    "%=": (lambda x: x.__imod__(2), [0.0, 1.0, 0.0, 1.0]),
    "**=": (lambda x: x.__ipow__(2), [0.0, 1.0, 4.0, 9.0]),
}


@pytest.mark.parametrize("lib", LIBS, ids=IDS)
@pytest.mark.parametrize("op", list(AUGMENTED), ids=list(AUGMENTED))
def test_augmented_assignment_writes_in_place(lib, op):
    fn, expected = AUGMENTED[op]
    x = lib.arange(4.0)
    view = x[:2]
    version = x._version
    result = fn(x)
    assert result is x
    assert x._version > version
    np.testing.assert_array_equal(as_np(x), expected)
    np.testing.assert_array_equal(as_np(view), expected[:2])


@pytest.mark.parametrize("lib", LIBS, ids=IDS)
def test_bitwise_augmented_assignments_write_in_place(lib):
    x = lib.tensor([12, 10])
    view = x[:1]
    x &= 6
    x |= 1
    x ^= 3
    np.testing.assert_array_equal(as_np(x), [6, 0])
    np.testing.assert_array_equal(as_np(view), [6])


@pytest.mark.parametrize("lib", LIBS, ids=IDS)
def test_augmented_power_on_a_leaf_that_requires_grad_is_refused(lib):
    x = lib.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf"):
        x **= 2


@pytest.mark.parametrize("lib", LIBS, ids=IDS)
def test_augmented_power_on_a_saved_variable_fails_the_version_check(lib):
    x = lib.ones(3, requires_grad=True)
    y = x * 2
    z = y * y
    y **= 2
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        z.sum().backward()


# -- requires_grad -------------------------------------------------------------------

@pytest.mark.parametrize("lib", LIBS, ids=IDS)
@pytest.mark.parametrize("value", [True, False])
def test_requires_grad_cannot_be_assigned_on_a_non_leaf(lib, value):
    y = lib.ones(2, requires_grad=True) * 2
    with pytest.raises(RuntimeError, match="only change requires_grad flags of leaf"):
        y.requires_grad = value
    assert y.requires_grad_(True) is y          # the method's no-op stays allowed


@pytest.mark.parametrize("lib", LIBS, ids=IDS)
@pytest.mark.parametrize("dtype", ["int64", "bool"])
def test_an_integer_variable_written_from_a_grad_variable_does_not_require_grad(lib, dtype):
    w = lib.tensor(1.0, requires_grad=True)
    x = lib.zeros(3, dtype=getattr(lib, dtype))
    x[0] = w
    assert not x.requires_grad and x.grad_fn is None
    assert as_np(x)[0] == 1


# -- conveniences ----------------------------------------------------------------------

@pytest.mark.parametrize("lib", LIBS, ids=IDS)
def test_contains_and_reversed(lib):
    t = lib.tensor([[1, 2], [3, 4]])
    assert 3 in t and 7 not in t
    assert lib.tensor([1, 2]) in t
    np.testing.assert_array_equal(as_np(reversed(t)), [[3, 4], [1, 2]])
    with pytest.raises(RuntimeError):
        "a" in t


@pytest.mark.parametrize("lib", LIBS, ids=IDS)
def test_flip_and_tile_take_dims_one_by_one(lib):
    x = lib.arange(6.0).reshape(2, 3)
    np.testing.assert_array_equal(as_np(x.flip(0, 1)), [[5.0, 4.0, 3.0], [2.0, 1.0, 0.0]])
    np.testing.assert_array_equal(as_np(lib.flip(x, dims=[1])), [[2.0, 1.0, 0.0],
                                                                [5.0, 4.0, 3.0]])
    assert tuple(x.tile(2, 1).shape) == (4, 3)
    assert tuple(lib.tile(x, (1, 2)).shape) == (2, 6)


@pytest.mark.parametrize("lib", LIBS, ids=IDS)
def test_where_with_the_condition_alone_is_nonzero_as_tuple(lib):
    rows, cols = lib.where(lib.tensor([[True, False], [False, True]]))
    np.testing.assert_array_equal(as_np(rows), [0, 1])
    np.testing.assert_array_equal(as_np(cols), [0, 1])


@pytest.mark.parametrize("lib", LIBS, ids=IDS)
def test_an_empty_index_list_selects_nothing(lib):
    x = lib.arange(6.0).reshape(2, 3)
    assert tuple(x[[]].shape) == (0, 3)


@pytest.mark.parametrize("lib", LIBS, ids=IDS)
@pytest.mark.parametrize("op", ["sum", "mean"])
def test_reducing_over_an_empty_dim_list_reduces_everything(lib, op):
    x = lib.ones(2, 3, dtype=lib.float64, requires_grad=True)
    r = getattr(x, op)(dim=())
    assert tuple(r.shape) == ()
    r.backward()
    np.testing.assert_allclose(as_np(x.grad), np.full((2, 3), 1.0 if op == "sum" else 1 / 6))


ERRORS = {
    "gather": lambda L: L.arange(6.0).reshape(2, 3).gather(1, L.tensor([[5]])),
    "scatter": lambda L: L.zeros(2, 3).scatter(1, L.tensor([[5]]), 1.0),
    "index_select": lambda L: L.zeros(2, 3).index_select(1, L.tensor([5])),
    "index_add": lambda L: L.zeros(2, 3).index_add(1, L.tensor([5]), L.ones(2, 1)),
    "topk": lambda L: L.zeros(2, 3).topk(5),
    "kthvalue": lambda L: L.zeros(2, 3).kthvalue(5),
}


@pytest.mark.parametrize("lib", LIBS, ids=IDS)
@pytest.mark.parametrize("case", list(ERRORS), ids=list(ERRORS))
def test_out_of_range_indices_raise_runtime_error(lib, case):
    with pytest.raises(RuntimeError):
        ERRORS[case](lib)


@pytest.mark.parametrize("lib", LIBS, ids=IDS)
def test_index_fill_out_of_range_raises_index_error(lib):
    with pytest.raises(IndexError):
        lib.zeros(2, 3).index_fill(1, lib.tensor([5]), 1.0)


# -- second order through piecewise-linear ops --------------------------------------

SECOND_ORDER = {
    "relu": lambda L, x: functional(L).relu(x),
    "abs": lambda L, x: x.abs(),
    "leaky_relu": lambda L, x: functional(L).leaky_relu(x, 0.2),
    "hardtanh": lambda L, x: functional(L).hardtanh(x),
}


@pytest.mark.parametrize("lib", LIBS, ids=IDS)
@pytest.mark.parametrize("op", list(SECOND_ORDER), ids=list(SECOND_ORDER))
def test_gradient_of_a_piecewise_linear_op_is_differentiable_with_zero_derivative(lib, op):
    # torch's gradient formulas take the saved input as an operand: the first gradient
    # requires grad, and the second one is zeros (not "does not require grad")
    x = lib.tensor([-2.0, -0.5, 0.5, 2.0], dtype=lib.float64, requires_grad=True)
    (g,) = lib.autograd.grad(SECOND_ORDER[op](lib, x).sum(), x, create_graph=True)
    assert g.requires_grad
    (gg,) = lib.autograd.grad(g.sum(), x)
    assert tuple(gg.shape) == (4,)
    assert float((gg * gg).sum()) == 0.0        # (torch's may be a lazy zero tensor)


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.float16])
@pytest.mark.parametrize("layout", ["contiguous", "transposed", "0-d", "empty"])
def test_relu_backward_selects_on_every_layout_and_dtype(dtype, layout):
    # the C pass (contiguous float32/float64), the bit-mask pass (other layouts, float16)
    # and the where fallback all give where(y != 0, g, 0), bit for bit (signed zeros too)
    rng = np.random.default_rng(7)
    shape = {"contiguous": (5, 6), "transposed": (6, 5), "0-d": (), "empty": (0, 3)}[layout]
    x = rng.standard_normal(shape).astype(dtype)
    g = rng.standard_normal(shape).astype(dtype)
    if x.size:
        x.flat[::3] = 0.0
        g.flat[::2] = np.array([np.inf, -np.inf, np.nan, -0.0])[np.arange(g.flat[::2].size) % 4]
    if layout == "transposed":
        x, g = x.T, g.T
    v = pyad.Variable(x, requires_grad=True)
    pyad.relu(v).backward(pyad.Variable(g))
    expected = np.where(np.maximum(x, 0) != 0, g, np.zeros((), dtype))
    assert v.grad.dtype == dtype and v.grad.shape == x.shape
    assert np.asarray(v.grad.data).tobytes() == np.asarray(expected).tobytes()


@pytest.mark.parametrize("lib", LIBS, ids=IDS)
@pytest.mark.parametrize("mode", ["floor", "trunc"])
def test_rounded_division_has_zero_gradients_even_at_zero_divisors(lib, mode):
    a = lib.tensor([1.0, 0.0, -7.0, float("inf")], dtype=lib.float64, requires_grad=True)
    b = lib.tensor([0.0, 0.0, 2.0, 3.0], dtype=lib.float64, requires_grad=True)
    q = lib.div(a, b, rounding_mode=mode)
    expected = {"floor": [np.inf, np.nan, -4.0, np.nan],
                "trunc": [np.inf, np.nan, -3.0, np.inf]}
    np.testing.assert_array_equal(as_np(q), expected[mode])
    q.sum().backward()
    np.testing.assert_array_equal(as_np(a.grad), np.zeros(4))
    np.testing.assert_array_equal(as_np(b.grad), np.zeros(4))


def test_nextafter_gradient_is_torchs():
    from _torch_compare import torch_or_skip
    torch = torch_or_skip()
    a, b = np.array([1.0, -2.0, 0.0]), np.array([[3.0], [0.0]])
    xp, op = pyad.tensor(a, requires_grad=True), pyad.tensor(b, requires_grad=True)
    xt, ot = torch.tensor(a, requires_grad=True), torch.tensor(b, requires_grad=True)
    yp, yt = pyad.nextafter(xp, op), torch.nextafter(xt, ot)
    np.testing.assert_array_equal(yp.detach().numpy(), yt.detach().numpy())
    (yp * yp).sum().backward()
    (yt * yt).sum().backward()
    np.testing.assert_array_equal(xp.grad.numpy(), xt.grad.numpy())   # broadcast, reduced
    np.testing.assert_array_equal(op.grad.numpy(), ot.grad.numpy())   # zeros
    assert pyad.autograd.gradcheck(lambda v: pyad.nextafter(v, pyad.tensor(5.0,
                                   dtype=pyad.float64)), (xp,))


def test_resize_to_the_same_size_does_not_bump_the_version_as_torch():
    for lib in LIBS:
        x = lib.zeros(2, 3)
        x.resize_(2, 3)
        x.resize_as_(lib.ones(2, 3))
        assert x._version == 0, lib.__name__
        x.resize_(6)
        assert x._version == 1, lib.__name__


@pytest.mark.parametrize("call", [
    lambda L: L.tensor([True]) - L.tensor([False]),
    lambda L: L.tensor([True, False]) - True,
    lambda L: L.sub(L.tensor([True]), L.tensor([True])),
    lambda L: L.rsub(L.tensor([True]), L.tensor([True])),
])
def test_bool_subtraction_is_refused_as_torch(call):
    for lib in LIBS:
        with pytest.raises(RuntimeError, match="Subtraction, the `-` operator, with two bool"):
            call(lib)


@pytest.mark.parametrize("call", [
    lambda L: L.tensor([True]) - L.tensor([1]),
    lambda L: L.tensor([1.5]) - L.tensor([True]),
    lambda L: L.tensor([1, 2]) - True,
    lambda L: True - L.tensor([1.0]),
    lambda L: L.tensor([True]) - 1.5,
    lambda L: L.sub(L.tensor([2]), L.tensor([True]), alpha=2),
    lambda L: L.tensor([2.0]).sub_(True),
    lambda L: L.tensor([2]).sub_(L.tensor([True])),
])
def test_subtraction_with_one_bool_operand_is_refused_as_torch(call):
    for lib in LIBS:
        with pytest.raises(RuntimeError, match="with a bool .* use the `~` or `logical_not"):
            call(lib)


@pytest.mark.parametrize("a, b, dtype", [
    ([1, 2], [0.5, 3.0], "float32"),
    ([True, False], [0.5, 3.0], "float64"),
    ([3, -1], [0.25, 1.0], "float16"),
])
def test_logaddexp_promotes_integer_operands_as_torch(a, b, dtype):
    for name, ref in (("logaddexp", np.logaddexp), ("logaddexp2", np.logaddexp2)):
        expected = ref(np.array(a, np.float64), np.array(b, np.float64))
        for lib in LIBS:
            x = lib.tensor(a)
            y = lib.tensor(b, dtype=getattr(lib, dtype))
            for r in (getattr(lib, name)(x, y), getattr(lib, name)(y, x)):
                assert str(r.dtype).replace("torch.", "") == dtype
                np.testing.assert_allclose(as_np(r).astype(np.float64), expected,
                                           rtol=2e-3 if dtype == "float16" else 1e-6)
    for lib in LIBS:
        with pytest.raises(NotImplementedError, match="\"logaddexp_cpu\" not implemented "
                                                      "for 'Long'"):
            lib.logaddexp(lib.tensor([1]), lib.tensor([2]))


@pytest.mark.parametrize("call", [
    lambda L: L.log_softmax(L.tensor([1, 2]), 0),
    lambda L: L.softmax(L.tensor([1, 2]), 0),
    lambda L: L.nn.functional.softmin(L.tensor([1, 2]), 0),
])
def test_softmax_family_refuses_integers_with_not_implemented_as_torch(call):
    for lib in LIBS:
        with pytest.raises(NotImplementedError):
            call(lib)


@pytest.mark.parametrize("call", [
    lambda L: -L.tensor(True),
    lambda L: L.neg(L.tensor([True, False])),
    lambda L: int(L.tensor(1 + 2j)),
    lambda L: float(L.tensor(1 + 2j)),
])
def test_bool_negation_and_complex_to_real_scalars_raise_runtime_error_as_torch(call):
    for lib in LIBS:
        with pytest.raises(RuntimeError):
            call(lib)
    assert complex(pyad.tensor(1 + 2j)) == 1 + 2j


def test_complex_logaddexp_values_and_gradients_match_torch():
    torch = pytest.importorskip("torch")
    inf, nan = float("inf"), float("nan")
    a_vals = [1 + 2j, -1 + 0.5j, complex(-inf, 0), complex(inf, 0), 3 + 0j, -2 - 1j]
    b_vals = [0.5 - 1j, 2 + 3j, complex(-inf, 0), 1 + 1j, complex(nan, 0), -2 + 1j]
    w = np.array([1 + 1j, 2 - 1j, 1, 1, 1, 0.5j])
    out = {}
    for lib in LIBS:
        a = lib.tensor(np.array(a_vals), requires_grad=True)
        b = lib.tensor(np.array(b_vals), requires_grad=True)
        r = lib.logaddexp(a, b)
        (r * lib.tensor(w)).real.sum().backward()
        out[lib.__name__] = [as_np(r), as_np(a.grad), as_np(b.grad), str(r.dtype)]
    got, expected = out["pyad"], out["torch"]
    assert got[3].replace("torch.", "") == expected[3].replace("torch.", "") == "complex128"
    for g, e in zip(got[:3], expected[:3]):
        np.testing.assert_allclose(g, e, rtol=1e-12, equal_nan=True)
    # the finite entries' gradients from the formula itself (not torch's output)
    a0, b0 = np.array(a_vals[:2] + a_vals[5:]), np.array(b_vals[:2] + b_vals[5:])
    w0 = np.concatenate([w[:2], w[5:]])
    expected_a = np.conj(w0) / np.conj(1 + np.exp(b0 - a0))
    np.testing.assert_allclose(np.concatenate([got[1][:2], got[1][5:]]), expected_a,
                               rtol=1e-12)
    for lib in LIBS:                                       # promotion and logaddexp2
        r = lib.logaddexp(lib.tensor([1 + 1j], dtype=lib.complex64),
                          lib.tensor([2.0], dtype=lib.float64))
        assert str(r.dtype).replace("torch.", "") == "complex128"
        with pytest.raises(NotImplementedError, match="'ComplexDouble'"):
            lib.logaddexp2(lib.tensor([1 + 1j], dtype=lib.complex128), lib.tensor([2.0]))


def test_complex_logaddexp_gradcheck():
    a = pyad.tensor(np.array([1 + 2j, -1 + 0.5j, 0.3 - 2j]), requires_grad=True)
    b = pyad.tensor(np.array([0.5 - 1j, 2 + 3j, 0.3 + 1j]), requires_grad=True)
    assert pyad.autograd.gradcheck(pyad.logaddexp, (a, b))
    assert pyad.autograd.gradgradcheck(pyad.logaddexp, (a, b))
