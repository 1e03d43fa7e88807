"""Shape and indexing ops: reshape/view, transpose, .T, permute, unsqueeze/squeeze,
flatten, expand/broadcast_to, and __getitem__ (ints, slices, None, Ellipsis, negative
steps, integer arrays with repeats, boolean masks)."""
import numpy as np
import pytest

import pyad
from _ops_helpers import (Case, standard_op_tests)

IDX_REPEAT = np.array([0, 2, 2, 0, 1])
IDX_2D = np.array([[0, 1], [1, 1]])
MASK_2D = np.array([[True, False, True, False],
                    [False, False, True, True],
                    [True, True, False, False]])
MASK_ROWS = np.array([True, False, True])

CASES = [
    # reshape / view
    Case("reshape_2d_to_3d", lambda L, a: L.reshape(a, 2, 2, 3), [(3, 4)]),
    Case("reshape_with_minus_one", lambda L, a: L.reshape(a, -1, 6), [(3, 4)]),
    Case("reshape_tuple_arg", lambda L, a: L.reshape(a, (12,)), [(3, 4)]),
    Case("reshape_to_0d", lambda L, a: L.reshape(a, ()), [(1,)]),
    Case("reshape_non_contiguous", lambda L, a: L.reshape(L.transpose(a, 0, 1), 12), [(3, 4)]),
    # (a view cannot merge the dims of a transposed input: no non-contiguous variant)
    Case("view_flat", lambda L, a: L.view(a, 12), [(3, 4)], non_contiguous=False),
    Case("view_split_dim", lambda L, a: L.view(a, 3, 2, 2), [(3, 4)]),
    # transpose / T / permute
    Case("transpose_01", lambda L, a: L.transpose(a, 0, 1), [(3, 4)]),
    Case("transpose_negative_dims", lambda L, a: L.transpose(a, -1, -3), [(2, 3, 4)]),
    Case("T_2d", lambda L, a: L.T(a), [(3, 4)]),
    Case("T_1d", lambda L, a: L.T(a), [(4,)]),
    Case("permute_3d", lambda L, a: L.permute(a, 2, 0, 1), [(2, 3, 4)]),
    Case("permute_negative_dims", lambda L, a: L.permute(a, -1, 0, -2), [(2, 3, 4)]),
    # unsqueeze / squeeze
    Case("unsqueeze_front", lambda L, a: L.unsqueeze(a, 0), [(3, 4)]),
    Case("unsqueeze_back_negative", lambda L, a: L.unsqueeze(a, -1), [(3, 4)]),
    Case("unsqueeze_middle", lambda L, a: L.unsqueeze(a, 1), [(3, 4)]),
    Case("squeeze_all", lambda L, a: L.squeeze(a), [(1, 3, 1, 4)]),
    Case("squeeze_one_dim", lambda L, a: L.squeeze(a, 2), [(1, 3, 1, 4)]),
    Case("squeeze_negative_dim", lambda L, a: L.squeeze(a, -4), [(1, 3, 1, 4)]),
    # flatten
    Case("flatten_all", lambda L, a: L.flatten(a), [(2, 3, 4)]),
    Case("flatten_from_1", lambda L, a: L.flatten(a, 1), [(2, 3, 4)]),
    Case("flatten_range", lambda L, a: L.flatten(a, 0, 1), [(2, 3, 4)]),
    Case("flatten_negative_range", lambda L, a: L.flatten(a, -2, -1), [(2, 3, 4)]),
    # expand / broadcast_to
    Case("expand_size_one_dim", lambda L, a: L.expand(a, 3, 4), [(1, 4)]),
    Case("expand_new_leading_dims", lambda L, a: L.expand(a, 2, 3, 4), [(4,)]),
    Case("expand_minus_one_keeps_dim", lambda L, a: L.expand(a, 2, -1, 4), [(3, 1)]),
    Case("broadcast_to", lambda L, a: L.broadcast_to(a, (2, 3, 4)), [(3, 1)]),
    Case("expand_then_mul", lambda L, a, b: L.expand(a, 3, 4) * b, [(1, 4), (3, 4)]),
    # indexing: basic
    Case("getitem_int", lambda L, a: L.getitem(a, 1), [(3, 4)]),
    Case("getitem_negative_int", lambda L, a: L.getitem(a, -1), [(3, 4)]),
    Case("getitem_two_ints_0d", lambda L, a: L.getitem(a, (2, -1)), [(3, 4)]),
    Case("getitem_slice", lambda L, a: L.getitem(a, slice(1, 3)), [(3, 4)]),
    Case("getitem_slice_step", lambda L, a: L.getitem(a, (slice(None), slice(0, 4, 2))),
         [(3, 4)]),
    Case("getitem_negative_step", lambda L, a: L.getitem(a, slice(None, None, -1)),
         [(3, 4)]),
    Case("getitem_negative_step_2", lambda L, a: L.getitem(a, (slice(None), slice(3, 0, -2))),
         [(3, 4)]),
    Case("getitem_none", lambda L, a: L.getitem(a, (None, slice(None), None)), [(3, 4)]),
    Case("getitem_ellipsis", lambda L, a: L.getitem(a, (Ellipsis, 1)), [(2, 3, 4)]),
    Case("getitem_ellipsis_none_int", lambda L, a: L.getitem(a, (0, Ellipsis, None)),
         [(2, 3, 4)]),
    Case("getitem_mixed_basic", lambda L, a: L.getitem(a, (1, None, slice(None, None, -1),
                                                            slice(1, 3))), [(2, 3, 4)]),
    # 0-d inputs
    Case("reshape_0d_to_1x1", lambda L, a: L.reshape(a, 1, 1), [()]),
    Case("expand_0d", lambda L, a: L.expand(a, 3, 2), [()]),
    Case("getitem_0d_none", lambda L, a: L.getitem(a, None), [()]),
    Case("getitem_0d_ellipsis", lambda L, a: L.getitem(a, Ellipsis), [()]),
    Case("getitem_0d_empty_tuple_then_square", lambda L, a: L.getitem(a, ()) ** 2, [()]),
    # indexing: advanced
    Case("getitem_int_array_with_repeats", lambda L, a: L.getitem(a, IDX_REPEAT), [(3, 4)]),
    Case("getitem_int_array_on_dim1", lambda L, a: L.getitem(a, (slice(None), IDX_REPEAT[:3])),
         [(3, 4)]),
    Case("getitem_2d_int_array", lambda L, a: L.getitem(a, IDX_2D), [(3, 4)]),
    Case("getitem_two_int_arrays_repeating", lambda L, a: L.getitem(
        a, (np.array([0, 0, 2, 0]), np.array([1, 1, 3, 1]))), [(3, 4)]),
    Case("getitem_bool_mask_full", lambda L, a: L.getitem(a, MASK_2D), [(3, 4)]),
    Case("getitem_bool_mask_rows", lambda L, a: L.getitem(a, MASK_ROWS), [(3, 4)]),
    Case("getitem_empty_int_array", lambda L, a: L.getitem(a, np.array([], dtype=np.int64)),
         [(3, 4)]),
    Case("getitem_bool_mask_of_empty", lambda L, a: L.getitem(a, np.zeros((0, 4), bool)),
         [(0, 4)]),
    Case("getitem_repeats_then_square", lambda L, a: L.getitem(a, IDX_REPEAT) ** 2, [(3, 4)]),
    Case("getitem_slice_then_exp", lambda L, a: L.exp(L.getitem(a, (slice(None), 1))),
         [(3, 4)]),
]



(test_values_match_numpy, test_first_derivatives_pass_gradcheck,
 test_second_derivatives_pass_gradgradcheck, test_values_and_gradients_match_torch,
 test_second_derivatives_match_torch, test_create_graph_gradient_equals_plain_gradient,
 test_variant) = standard_op_tests(CASES)


# --------------------------------------------------------------------------------
# Details
# --------------------------------------------------------------------------------

def test_int_array_index_with_repeats_accumulates_gradient():
    x = pyad.Variable(np.zeros(4), requires_grad=True)
    x[np.array([0, 2, 2, 2, 3])].sum().backward()
    np.testing.assert_array_equal(x.grad.data, [1.0, 0.0, 3.0, 1.0])


@pytest.mark.parametrize("key", [[0, 2, 2], "variable"], ids=["list", "int_variable"])
def test_index_with_list_or_int_variable(key):
    if key == "variable":
        key = pyad.Variable(np.array([0, 2, 2]))
    x = pyad.Variable(np.arange(4.0), requires_grad=True)
    y = x[key]
    np.testing.assert_array_equal(y.data, [0.0, 2.0, 2.0])
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.data, [1.0, 0.0, 2.0, 0.0])


def test_bool_variable_mask_selects_like_numpy():
    a = np.arange(6.0).reshape(2, 3)
    x = pyad.Variable(a, requires_grad=True)
    y = x[x > 2.0]
    np.testing.assert_array_equal(y.data, a[a > 2.0])
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.data, (a > 2.0).astype(float))


def test_index_out_of_range_raises_index_error():
    with pytest.raises(IndexError):
        pyad.Variable(np.ones(3))[5]


@pytest.mark.parametrize("make", [
    lambda x: x.view(6),
    lambda x: x.reshape(3, 2),
    lambda x: x.transpose(0, 1),
    lambda x: x.T,
    lambda x: x.permute(1, 0),
    lambda x: x.unsqueeze(0),
    lambda x: x[0],
    lambda x: x[:, ::-1],
    lambda x: x[None, ..., 1],
    lambda x: x.flatten(),
], ids=["view", "reshape", "transpose", "T", "permute", "unsqueeze", "int_index",
        "negative_step", "none_ellipsis", "flatten"])
def test_view_ops_share_memory_with_their_input(make):
    x = pyad.Variable(np.arange(6.0).reshape(2, 3))
    y = make(x)
    assert np.shares_memory(x.data, y.data)


def test_advanced_index_copies():
    x = pyad.Variable(np.arange(6.0))
    y = x[np.array([0, 1])]
    assert not np.shares_memory(x.data, y.data)


def test_view_of_non_contiguous_raises_reshape_copies():
    x = pyad.Variable(np.arange(12.0).reshape(3, 4)).transpose(0, 1)
    with pytest.raises(RuntimeError):
        x.view(12)
    np.testing.assert_array_equal(x.reshape(12).data, np.arange(12.0).reshape(3, 4).T.ravel())


def test_reshape_invalid_size_raises():
    with pytest.raises(RuntimeError):
        pyad.Variable(np.ones((3, 4))).reshape(5, 3)


def test_view_as_and_reshape_as_and_expand_as():
    x = pyad.Variable(np.arange(6.0))
    other = pyad.Variable(np.zeros((2, 3)))
    assert x.view_as(other).shape == (2, 3)
    assert x.reshape_as(other).shape == (2, 3)
    row = pyad.Variable(np.ones((1, 3)), requires_grad=True)
    e = row.expand_as(other)
    assert e.shape == (2, 3)
    e.sum().backward()
    np.testing.assert_array_equal(row.grad.data, [[2.0, 2.0, 2.0]])


def test_squeeze_of_non_one_dim_is_a_no_op():
    x = pyad.Variable(np.ones((2, 3)))
    assert x.squeeze(0).shape == (2, 3)


def test_expand_to_fewer_dims_raises():
    with pytest.raises(RuntimeError):
        pyad.Variable(np.ones((2, 3))).expand(3)


def test_permute_wrong_dims_raises():
    x = pyad.Variable(np.ones((2, 3)))
    with pytest.raises(RuntimeError):
        x.permute(0)
    with pytest.raises(RuntimeError):
        x.permute(0, 0)


def test_t_of_3d_raises():
    with pytest.raises(RuntimeError):
        pyad.Variable(np.ones((2, 3, 4))).t()


@pytest.mark.parametrize("dims", [(1,), (0, 1), (-2, -1)])
def test_flatten_of_0d_accepts_only_dims_0_and_minus_1_like_torch(dims):
    x = pyad.Variable(np.array(2.0))
    assert x.flatten(0, -1).shape == (1,) and x.flatten(-1, 0).shape == (1,)
    with pytest.raises(IndexError, match="flatten"):
        x.flatten(*dims)


def test_unsqueeze_out_of_range_raises_index_error():
    with pytest.raises(IndexError):
        pyad.Variable(np.ones((2, 3))).unsqueeze(3)


def test_shape_ops_keep_float32():
    x = pyad.Variable(np.ones((2, 3), dtype=np.float32), requires_grad=True)
    y = x.T.reshape(6)[np.array([0, 0, 5])].unsqueeze(0).expand(2, 3)
    assert y.dtype == np.float32
    y.sum().backward()
    assert x.grad.dtype == np.float32
    # x.T.reshape(6) is x[0,0], x[1,0], x[0,1], ...: elements 0 (twice) and 5 are x[0, 0]
    # and x[1, 2]; the expand counts each twice.
    np.testing.assert_array_equal(x.grad.data, [[4.0, 0.0, 0.0], [0.0, 0.0, 2.0]])
