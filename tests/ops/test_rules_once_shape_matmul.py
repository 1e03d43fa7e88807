"""Backward rules written once (matmul, the shape ops, sum, cat, clamp, in-place writes
into a view and __setitem__): one rule runs on arrays in a plain backward and records
pyad ops under create_graph. Each case is compared with torch on the same inputs for
first derivatives (with and without create_graph) and second derivatives, passes
gradgradcheck in float64, and gives the same gradient on both paths. The cases use
each op inside a product or a non-linear function, so that the second derivative goes
through the rule's recorded form (for a linear op alone it does not depend on x)."""
import numpy as np
import pytest

import pyad
from _ops_helpers import (Case, check_create_graph_matches_plain, check_gradgradcheck,
                          check_second_order_vs_torch, check_vs_torch, make_inputs)


def _sq(y):
    return y * y


def _sum_to(L, x, shape):
    return x.sum_to_size(shape) if hasattr(x, "sum_to_size") else pyad.sum_to(x, shape)


def _mul_into_slice(L, x, y):
    z = x * 1.0
    z[1:, ::2].mul_(y)                      # CopySlices through a basic-index view
    return z * x


def _add_into_transposed_row(L, x, y):
    z = x * 1.0
    z.t()[0].add_(y * y)                    # a view of a view (permute, then select)
    return z * x


def _mul_into_reshaped(L, x, y):
    z = x * 1.0
    z.view(12)[::5].mul_(y)                 # a reshape view, then a step slice
    return z * x


def _mul_into_diagonal(L, x, y):
    z = x * 1.0
    z.diagonal().mul_(y)
    return L.tanh(z)


def _setitem(key, value_fn):
    def f(L, x, y):
        z = x * 2.0
        z[key] = value_fn(y)
        return z * x
    return f


CASES = [
    # matmul: a 1-D a is a row, a 1-D b a column; batch dims broadcast and are summed
    Case("matmul_2d", lambda L, a, b: _sq(L.matmul(a, b)), [(2, 3), (3, 4)]),
    Case("matmul_vec_mat", lambda L, a, b: _sq(L.matmul(a, b)), [(3,), (3, 4)]),
    Case("matmul_mat_vec", lambda L, a, b: _sq(L.matmul(a, b)), [(3, 4), (4,)]),
    Case("matmul_vec_vec", lambda L, a, b: _sq(L.matmul(a, b)), [(4,), (4,)]),
    Case("matmul_batched_broadcast", lambda L, a, b: _sq(L.matmul(a, b)),
         [(2, 1, 2, 3), (3, 3, 2)]),
    Case("matmul_batched_vec", lambda L, a, b: L.tanh(L.matmul(a, b)), [(2, 3, 4), (4,)]),
    Case("matmul_vec_batched", lambda L, a, b: L.tanh(L.matmul(a, b)), [(3,), (2, 3, 4)]),
    Case("matmul_same_operand", lambda L, a: L.tanh(L.matmul(a, a)), [(3, 3)]),
    # view / reshape / permute
    Case("reshape_then_square", lambda L, a: _sq(a.reshape(2, 6)), [(3, 4)]),
    Case("reshape_non_contiguous_then_tanh", lambda L, a: L.tanh(a.t().reshape(12)), [(3, 4)]),
    Case("view_then_times_input", lambda L, a: a.view(4, 3) * a.view(4, 3).sum(0), [(3, 4)]),
    Case("unsqueeze_then_square", lambda L, a: _sq(a.unsqueeze(1)), [(3, 4)]),
    Case("permute_then_square", lambda L, a: _sq(a.permute(2, 0, 1)), [(2, 3, 4)]),
    Case("transpose_times_input", lambda L, a: L.matmul(a.transpose(0, 1), a), [(3, 4)]),
    # expand / broadcast_to (ExpandBackward) and the broadcast reduction (SumToBackward)
    Case("expand_then_square", lambda L, a: _sq(a.expand(2, 3, 4)), [(3, 1)]),
    Case("expand_0d_times", lambda L, a, b: a.expand(3, 4) * b, [(), (3, 4)]),
    Case("broadcast_binary_squared", lambda L, a, b: _sq(a * b), [(3, 1), (4,)]),
    Case("sum_to_then_square", lambda L, a: _sq(_sum_to(L, a * a, (1, 4))), [(3, 4)]),
    Case("sum_to_leading_dims", lambda L, a: L.tanh(_sum_to(L, a, (4,))), [(2, 3, 4)]),
    # sum (the reduced gradient reshaped and broadcast back)
    Case("sum_dim_squared", lambda L, a: _sq(a.sum(1)), [(3, 4)]),
    Case("sum_dims_keepdim_times", lambda L, a: a.sum((0, 2), keepdim=True) * a,
         [(2, 3, 4)]),
    Case("sum_all_squared", lambda L, a: _sq(a.sum()), [(3, 4)]),
    # cat
    Case("cat_then_square", lambda L, a, b: _sq(L.cat([a, b, a], 1)), [(3, 2), (3, 1)]),
    Case("cat_negative_dim_tanh", lambda L, a, b: L.tanh(L.cat((a, b), -1)),
         [(2, 3, 1), (2, 3, 2)]),
    # clamp: the gradient where min <= x <= max, to a Variable bound where it was taken
    Case("clamp_numbers_times_input", lambda L, a: a.clamp(-0.8, 1.0) * a, [(3, 4)]),
    Case("clamp_variable_bounds_squared", lambda L, a, lo, hi: _sq(L.clamp(a, lo, hi)),
         [(3, 4), (3, 4), (4,)]),
    # in-place writes into a view (CopySlicesBackward)
    Case("mul_into_slice_view", _mul_into_slice, [(3, 4), (2, 2)], zero_d=False,
         empty=False),
    Case("add_into_transposed_row", _add_into_transposed_row, [(3, 4), (3,)],
         zero_d=False, empty=False),
    Case("mul_into_reshaped_view", _mul_into_reshaped, [(3, 4), (3,)], zero_d=False,
         empty=False),
    Case("mul_into_diagonal", _mul_into_diagonal, [(3, 4), (3,)], zero_d=False, empty=False),
    # __setitem__ (SetItemBackward)
    Case("setitem_row", _setitem(1, lambda y: y * y), [(3, 4), (4,)], zero_d=False,
         empty=False),
    Case("setitem_broadcast_value", _setitem((slice(0, 2), 1), lambda y: y * 3.0),
         [(3, 4), (1,)], zero_d=False, empty=False),
    Case("setitem_index_array", _setitem([0, 2], lambda y: y * y), [(3, 4), (2, 4)],
         zero_d=False, empty=False),
    Case("setitem_mask_column", _setitem((slice(None), np.array([True, False, False, True])),
                                         lambda y: y * y), [(3, 4), (3, 2)],
         zero_d=False, empty=False),
]

PARAMS = [pytest.param(c, id=c.id) for c in CASES]


@pytest.mark.parametrize("case", PARAMS)
def test_first_derivatives_match_torch(case):
    check_vs_torch(case)


@pytest.mark.parametrize("case", PARAMS)
def test_first_and_second_derivatives_with_create_graph_match_torch(case):
    check_second_order_vs_torch(case)


@pytest.mark.parametrize("case", PARAMS)
def test_second_derivatives_pass_gradgradcheck(case):
    check_gradgradcheck(case)


@pytest.mark.parametrize("case", PARAMS)
def test_plain_and_create_graph_gradients_agree(case):
    check_create_graph_matches_plain(case)


@pytest.mark.parametrize("case", [p for p in PARAMS if p.values[0].id.startswith(
    ("matmul_2d", "matmul_batched_broadcast", "reshape_non", "permute", "cat_then",
     "mul_into_slice", "setitem_index"))])
def test_float32_and_non_contiguous_inputs_match_torch(case):
    arrays = make_inputs(case, dtype=np.float32, non_contiguous=True)
    check_vs_torch(case, arrays)
    check_second_order_vs_torch(case, arrays)
    check_create_graph_matches_plain(case, arrays)


# -- extreme values, ties, nan and inf ---------------------------------------------

def _grads_vs_torch(f, arrays, create_graph, w=None):
    """pyad's and torch's gradients of f's output (weighted by w) for both flags."""
    torch = pytest.importorskip("torch")
    xs = [pyad.Variable(a.copy(), requires_grad=True) for a in arrays]
    ts = [torch.tensor(a.copy(), requires_grad=True) for a in arrays]
    out, tout = f(pyad, *xs), f(torch, *ts)
    w = np.ones(out.shape, out.dtype) if w is None else w
    ours = pyad.autograd.grad(out, xs, pyad.Variable(w), create_graph=create_graph)
    theirs = torch.autograd.grad(tout, ts, torch.tensor(w), create_graph=create_graph)
    return [g.data for g in ours], [t.detach().numpy() for t in theirs]


def _assert_same(ours, theirs):
    for a, b in zip(ours, theirs):
        assert a.shape == b.shape and a.dtype == b.dtype
        np.testing.assert_array_equal(np.isnan(a), np.isnan(b))
        np.testing.assert_array_equal(np.isinf(a), np.isinf(b))
        np.testing.assert_allclose(a, b, rtol=1e-15, atol=0)


@pytest.mark.parametrize("create_graph", [False, True])
def test_matmul_gradients_at_extreme_magnitudes_match_torch(create_graph):
    # products of 1e200 and 1e-200 scales, and one that overflows to inf in both
    a = np.array([[1e-200, 1e200, 1.0], [3.0, -2.0, 1e150]])
    b = np.array([[1e200, 0.5], [1e-200, 2.0], [1e160, -1e-300]])
    w = np.array([[1e200, 1.0], [1e-100, -3.0]])
    ours, theirs = _grads_vs_torch(lambda L, x, y: L.matmul(x, y), [a, b], create_graph, w)
    _assert_same(ours, theirs)
    assert np.isinf(ours[0]).any()                # the case does reach an overflow


@pytest.mark.parametrize("create_graph", [False, True])
def test_matmul_batched_vector_gradients_with_nan_and_inf_match_torch(create_graph):
    a = np.array([[[1.0, np.inf], [2.0, -1.0]], [[np.nan, 0.5], [1e-300, 1e300]]])
    v = np.array([1e-10, 3.0])
    ours, theirs = _grads_vs_torch(lambda L, x, y: L.matmul(x, y), [a, v], create_graph)
    _assert_same(ours, theirs)


@pytest.mark.parametrize("create_graph", [False, True])
def test_clamp_gradients_at_ties_and_nan_match_torch(create_graph):
    # x on a bound gets the gradient (torch: min <= x <= max); a Variable bound only
    # where it was strictly taken; nan gives no gradient to the input nor the bounds
    x = np.array([-1.0, 0.5, 1.0, 2.0, -3.0, np.nan, 0.0])
    lo = np.array([-1.0, -1.0, -1.0, -1.0, -1.0, -1.0, 0.0])
    hi = np.array([1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0])
    ours, theirs = _grads_vs_torch(lambda L, a, l, h: L.clamp(a, l, h) * 3.0, [x, lo, hi],
                                   create_graph)
    _assert_same(ours, theirs)
    ours, theirs = _grads_vs_torch(lambda L, a: L.clamp(a, -1.0, 1.0) * a, [x], create_graph)
    _assert_same(ours, theirs)


@pytest.mark.parametrize("create_graph", [False, True])
def test_cat_of_mixed_dtypes_gives_each_input_its_dtype_like_torch(create_graph):
    a = np.array([[1.5, -2.0]], dtype=np.float32)
    b = np.array([[1e-40, 3.0], [2.0, 1e300]])            # a float32 denormal
    ours, theirs = _grads_vs_torch(lambda L, x, y: _sq(L.cat([x, y])), [a, b], create_graph)
    assert [g.dtype for g in ours] == [np.float32, np.float64]
    _assert_same(ours, theirs)


@pytest.mark.parametrize("create_graph", [False, True])
def test_shape_rules_pass_inf_and_nan_gradients_through_like_torch(create_graph):
    x = np.arange(12.0).reshape(3, 4)
    w = np.array([[np.inf, 1.0, -np.inf], [np.nan, 2.0, 1e308]])

    def f(L, a):
        return _sum_to(L, a.reshape(4, 3).permute(1, 0)[:, 1:].expand(2, 3, 3), (3, 3))[1:]
    ours, theirs = _grads_vs_torch(f, [x], create_graph, w)
    _assert_same(ours, theirs)


def test_a_plain_backward_records_nothing_and_gives_arrays_of_the_input_dtype():
    # the array forms: no graph, the operand's dtype (float32 matmul with a float64
    # operand converted to float32 first, as torch wants one dtype; each gradient comes
    # back in its input's dtype)
    a = pyad.Variable(np.ones((2, 3), np.float32), requires_grad=True)
    b = pyad.Variable(np.ones((3,), np.float64), requires_grad=True)
    out = pyad.matmul(a, b.float())
    ga, gb = pyad.autograd.grad(out.sum(), (a, b))
    assert ga.dtype == np.float32 and gb.dtype == np.float64
    assert ga.grad_fn is None and gb.grad_fn is None
    ga2, gb2 = pyad.autograd.grad(pyad.matmul(a, b.float()).sum(), (a, b), create_graph=True)
    assert ga2.dtype == np.float32 and gb2.dtype == np.float64
    np.testing.assert_array_equal(ga.data, ga2.data)
    np.testing.assert_array_equal(gb.data, gb2.data)
