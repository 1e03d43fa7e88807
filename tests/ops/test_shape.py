"""Shape and indexing ops: reshape/view, transpose, .T, permute, unsqueeze/squeeze,
flatten, expand/broadcast_to, __getitem__ (ints, slices, None, Ellipsis, negative
steps, integer arrays with repeats, boolean masks), joining and splitting (cat, stack,
split, chunk, unbind, narrow, select, ...), flip, roll, repeat, tile, movedim, unflatten."""
import numpy as np
import pytest

import pyad
from _ops_helpers import (Case, standard_op_tests)
from _shape_refs import NP_REF, joined, op

IDX_REPEAT = np.array([0, 2, 2, 0, 1])
GATHER_0 = np.array([[0, 2, 2], [1, 0, 0]])               # along dim 0 of (3, 4), repeats
GATHER_1 = np.array([[3, 3], [0, 1], [2, 3]])             # along dim 1 of (3, 4), repeats
SCATTER_0 = np.array([[0, 2, 1, 0], [2, 0, 0, 1]])        # no repeat within a column
SCATTER_ADD_0 = np.array([[0, 0, 2, 0], [0, 2, 2, 1]])    # repeats add up
INDEX_REPEAT = np.array([0, 2, 0])
INDEX_DISTINCT = np.array([2, 0])
MASK_COLS = np.array([True, False, False, True])
IDX_2D = np.array([[0, 1], [1, 1]])
MASK_2D = np.array([[True, False, True, False],
                    [False, False, True, True],
                    [True, True, False, False]])
MASK_ROWS = np.array([True, False, True])
PUT_DISTINCT = np.array([[1, -1], [5, 0]])                # of a (3, 4) input as 1-d
PUT_REPEAT = np.array([3, 3, -12, 0, 7])


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
    # joining
    Case("cat_dim0", lambda L, a, b: op(L, "cat", [a, b], 0), [(2, 3), (4, 3)]),
    Case("cat_dim1_repeated_input", lambda L, a, b: op(L, "cat", [a, b, a], 1), [(3, 2), (3, 1)]),
    Case("cat_negative_dim", lambda L, a, b: op(L, "cat", (a, b), -1), [(2, 3, 1), (2, 3, 2)]),
    Case("cat_one_input", lambda L, a: op(L, "cat", [a]) * 2.0, [(3, 2)]),
    Case("cat_with_constant", lambda L, a: op(L, "cat", [a, L.c(np.ones((1, 2)))]), [(3, 2)]),
    Case("concat", lambda L, a, b: L.concat([a, b], 1), [(2, 3), (2, 1)]),
    Case("stack_dim0", lambda L, a, b: L.stack([a, b]), [(2, 3), (2, 3)]),
    Case("stack_last_dim", lambda L, a, b: L.stack((a, b, a), -1), [(2, 3), (2, 3)]),
    Case("hstack_1d", lambda L, a, b: L.hstack([a, b]), [(3,), (2,)]),
    Case("hstack_2d", lambda L, a, b: L.hstack([a, b]), [(2, 3), (2, 1)], empty=False),
    Case("vstack_1d", lambda L, a, b: L.vstack([a, b]), [(3,), (3,)]),
    Case("vstack_2d", lambda L, a, b: L.vstack([a, b]), [(2, 3), (1, 3)]),
    # splitting (views)
    Case("split_int", lambda L, a: joined(L, op(L, "split", a, 2, 1)), [(3, 5)]),
    Case("split_int_dim0", lambda L, a: joined(L, op(L, "split", a, 2)), [(5, 2)]),
    Case("split_sections", lambda L, a: joined(L, op(L, "split", a, [1, 0, 3], -1)),
         [(2, 4)]),
    Case("split_with_sizes", lambda L, a: joined(L, op(L, "split_with_sizes", a, [2, 1])),
         [(3, 2)]),
    Case("chunk", lambda L, a: joined(L, op(L, "chunk", a, 3, 1)), [(2, 5)]),
    Case("chunk_fewer_than_asked", lambda L, a: joined(L, op(L, "chunk", a, 4)), [(6,)]),
    Case("unbind", lambda L, a: joined(L, op(L, "unbind", a)), [(3, 2)]),
    Case("unbind_dim1", lambda L, a: joined(L, op(L, "unbind", a, 1)), [(2, 3)]),
    Case("narrow", lambda L, a: op(L, "narrow", a, 1, 1, 2), [(3, 4)]),
    Case("narrow_negative_start", lambda L, a: op(L, "narrow", a, 0, -2, 2) ** 2, [(3, 4)]),
    Case("select", lambda L, a: op(L, "select", a, 1, 2), [(3, 4)]),
    Case("select_negative", lambda L, a: op(L, "select", a, -1, -1) ** 2, [(3, 4)]),
    Case("movedim", lambda L, a: op(L, "movedim", a, 0, -1), [(2, 3, 4)]),
    Case("movedim_lists", lambda L, a: op(L, "movedim", a, (0, 1), (2, 0)), [(2, 3, 4)]),
    Case("unflatten", lambda L, a: op(L, "unflatten", a, 1, (2, -1)), [(3, 4)]),
    # copies
    Case("flip", lambda L, a: L.flip(a, [1]), [(3, 4)]),
    Case("flip_two_dims", lambda L, a: L.flip(a, (0, -1)) ** 2, [(2, 3, 4)]),
    Case("flip_no_dims", lambda L, a: L.flip(a, []), [(3,)]),
    Case("roll_flat", lambda L, a: L.roll(a, 5), [(3, 4)]),
    Case("roll_dims", lambda L, a: L.roll(a, (1, -2), (0, 1)) ** 2, [(3, 4)]),
    Case("repeat", lambda L, a: op(L, "repeat", a, 2, 3), [(3, 2)]),
    Case("repeat_new_dims", lambda L, a: op(L, "repeat", a, 2, 1, 3) ** 2, [(4,)]),
    Case("repeat_zero", lambda L, a: op(L, "repeat", a, 0, 2), [(3,)]),
    Case("tile", lambda L, a: L.tile(a, (2,)), [(3, 2)]),
    Case("tile_more_dims", lambda L, a: L.tile(a, (2, 1, 2)), [(3, 2)]),
    # gather / scatter
    Case("gather_dim0", lambda L, a: op(L, "gather", a, 0, L.c(GATHER_0)), [(3, 4)]),
    Case("gather_dim1_squared", lambda L, a: op(L, "gather", a, -1, L.c(GATHER_1)) ** 2,
         [(3, 4)]),
    Case("gather_0d", lambda L, a: op(L, "gather", a, 0, L.c(np.array([0]))) * 2.0, [()]),
    Case("take_along_dim_flat", lambda L, a: op(L, "take_along_dim", a,
                                                L.c(np.array([5, 0, 5, 11]))), [(3, 4)],
         non_contiguous=False),     # torch's take_along_dim views a non-contiguous input
    Case("take_along_dim_broadcast", lambda L, a: op(L, "take_along_dim", a,
                                                     L.c(np.array([[1, 0, 1]])), 1) ** 2,
         [(3, 4)]),
    Case("scatter_src", lambda L, a, b: op(L, "scatter", a, 0, L.c(SCATTER_0), b),
         [(3, 4), (2, 4)]),
    Case("scatter_value", lambda L, a: op(L, "scatter", a, 1, L.c(GATHER_1[:, :1]),
                                          value=2.5), [(3, 4)]),
    Case("scatter_add", lambda L, a, b: op(L, "scatter_add", a, 0, L.c(SCATTER_ADD_0), b),
         [(3, 4), (2, 4)]),
    Case("scatter_add_squared", lambda L, a, b: op(L, "scatter_add", a, 1, L.c(GATHER_1),
                                                   b) ** 2, [(3, 4), (3, 2)]),
    # index_*
    Case("index_select_repeats", lambda L, a: op(L, "index_select", a, 0, L.c(INDEX_REPEAT)),
         [(3, 4)]),
    Case("index_select_dim1", lambda L, a: op(L, "index_select", a, 1, L.c(INDEX_DISTINCT))
         ** 2, [(3, 4)]),
    Case("index_add_repeats", lambda L, a, b: op(L, "index_add", a, 0, L.c(INDEX_REPEAT), b),
         [(3, 4), (3, 4)]),
    Case("index_add_alpha_dim1", lambda L, a, b: op(L, "index_add", a, 1, L.c(INDEX_DISTINCT),
                                                    b, alpha=-2.0) ** 2, [(3, 4), (3, 2)]),
    Case("index_copy", lambda L, a, b: op(L, "index_copy", a, 0, L.c(INDEX_DISTINCT), b) ** 2,
         [(3, 4), (2, 4)]),
    Case("index_fill_number", lambda L, a: op(L, "index_fill", a, 1, L.c(INDEX_DISTINCT), -1.5),
         [(3, 4)]),
    Case("index_fill_variable", lambda L, a, v: op(L, "index_fill", a, 0, L.c(INDEX_REPEAT), v)
         * 2.0, [(3, 4), ()], empty=False),
    # put (the input as 1-d; negative indices count from the end)
    Case("put_distinct", lambda L, a, b: op(L, "put", a, L.c(PUT_DISTINCT), b) ** 2,
         [(3, 4), (2, 2)], zero_d=False, empty=False),
    Case("put_accumulate_repeats", lambda L, a, b: op(L, "put", a, L.c(PUT_REPEAT), b,
                                                      accumulate=True) ** 2,
         [(3, 4), (5,)], zero_d=False, empty=False),
    Case("put_0d_input", lambda L, a, b: op(L, "put", a, L.c(np.array([0])), b) * 3.0,
         [(), (1,)], zero_d=False, empty=False),
    # masked_*
    Case("masked_fill_number", lambda L, a: op(L, "masked_fill", a, L.c(MASK_2D), 0.5),
         [(3, 4)]),
    Case("masked_fill_broadcast_mask", lambda L, a: op(L, "masked_fill", a, L.c(MASK_COLS),
                                                       0.5) ** 2, [(3, 4)]),
    Case("masked_fill_variable", lambda L, a, v: op(L, "masked_fill", a, L.c(MASK_2D), v)
         * 2.0, [(3, 4), ()], empty=False),
    Case("masked_select", lambda L, a: op(L, "masked_select", a, L.c(MASK_2D)), [(3, 4)]),
    Case("masked_select_broadcast", lambda L, a: op(L, "masked_select", a, L.c(MASK_COLS)) ** 2,
         [(3, 4)]),
    Case("masked_scatter", lambda L, a, b: op(L, "masked_scatter", a, L.c(MASK_2D), b),
         [(3, 4), (2, 4)]),
    Case("masked_scatter_squared", lambda L, a, b: op(L, "masked_scatter", a, L.c(MASK_COLS),
                                                      b) ** 2, [(3, 4), (7,)]),
    # pad
    Case("pad_constant", lambda L, a: op(L, "pad", a, (1, 2), "constant", -0.5), [(3, 4)]),
    Case("pad_constant_two_dims_squared", lambda L, a: op(L, "pad", a, (0, 1, 2, 0)) ** 2,
         [(2, 3, 4)]),
    Case("pad_constant_negative_crops", lambda L, a: op(L, "pad", a, (-1, 2, 1, -2)),
         [(3, 4)]),
    # (torch refuses empty inputs in the reflect and replicate modes)
    Case("pad_reflect", lambda L, a: op(L, "pad", a, (2, 3), "reflect"), [(2, 4)], empty=False),
    Case("pad_reflect_two_dims_squared", lambda L, a: op(L, "pad", a, (1, 2, 2, 1), "reflect")
         ** 2, [(2, 3, 4)], empty=False),
    Case("pad_replicate", lambda L, a: op(L, "pad", a, (3, 1), "replicate"), [(2, 3)],
         empty=False),
    Case("pad_replicate_two_dims_squared", lambda L, a: op(L, "pad", a, (2, 0, 1, 3),
                                                           "replicate") ** 2, [(2, 3, 4)],
         empty=False),
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


# -- joining and splitting: views, in-place through views, errors ---------------------

@pytest.mark.parametrize("make", [
    lambda x: x.narrow(1, 1, 2),
    lambda x: x.select(0, 1),
    lambda x: x.split(1, 1)[2],
    lambda x: x.chunk(2)[1],
    lambda x: x.unbind(1)[0],
    lambda x: x.movedim(0, 1),
    lambda x: x.unflatten(1, (3, 1)),
], ids=["narrow", "select", "split", "chunk", "unbind", "movedim", "unflatten"])
def test_splitting_ops_return_views(make):
    x = pyad.Variable(np.arange(6.0).reshape(2, 3))
    y = make(x)
    assert np.shares_memory(x.data, y.data) and y._base is x
    y.add_(1.0)
    assert x._version == 1


@pytest.mark.parametrize("make", [
    lambda x: x.flip([0]), lambda x: x.roll(1), lambda x: x.repeat(1, 1),
    lambda x: x.tile((1,)), lambda x: pyad.cat([x]), lambda x: pyad.stack([x]),
], ids=["flip", "roll", "repeat", "tile", "cat", "stack"])
def test_copying_ops_do_not_share_memory(make):
    x = pyad.Variable(np.arange(6.0).reshape(2, 3))
    assert not np.shares_memory(x.data, make(x).data)


@pytest.mark.parametrize("name, view", [
    ("narrow", lambda y: y.narrow(1, 1, 2)),
    ("select", lambda y: y.select(1, -1)),
    ("movedim", lambda y: y.movedim(0, 1)),
    ("unflatten", lambda y: y.unflatten(1, (2, 2))),
])
def test_inplace_through_a_view_is_recorded_on_the_base_like_torch(name, view):
    torch = pytest.importorskip("torch")
    a = np.arange(1.0, 9.0).reshape(2, 4)
    w = np.linspace(-1.0, 1.0, 8).reshape(2, 4)
    x = pyad.Variable(a.copy(), requires_grad=True)
    y = x * 1.0
    v = view(y)
    v.mul_(2.0).exp_()
    (y * pyad.Variable(w)).sum().backward()
    tx = torch.tensor(a, requires_grad=True)
    ty = tx * 1.0
    tv = view(ty)
    tv.mul_(2.0).exp_()
    (ty * torch.tensor(w)).sum().backward()
    np.testing.assert_allclose(y.data, ty.detach().numpy())
    np.testing.assert_allclose(x.grad.data, tx.grad.numpy())


def test_inplace_on_split_and_unbind_outputs_is_refused_as_torch():
    # torch refuses in-place on outputs of multi-view functions while autograd records
    # (tests/autograd/test_torch_autograd_ports.py has torch's own tests of it); under
    # no_grad it is allowed, and unsafe_split's pieces may be changed in place.
    a = np.arange(1.0, 9.0).reshape(2, 4)
    x = pyad.Variable(a.copy(), requires_grad=True)
    y = x * 1.0
    with pytest.raises(RuntimeError, match="Output 1 of SplitWithSizes is a view and is "
                                           "being modified inplace. This view is the output "
                                           "of a function that returns multiple views"):
        y.split([2, 2], 1)[1].pow_(2)
    with pytest.raises(RuntimeError, match="Output 1 of Unbind is a view"):
        y.unbind(0)[1].mul_(3.0)
    with pyad.no_grad():
        y.unbind(0)[1].mul_(3.0)
    part = y.unsafe_split(2, 1)[1]
    part.pow_(2)
    (y.sum() + part.sum()).backward()
    values = a.copy()
    values[1] *= 3.0                  # (the change under no_grad is not recorded)
    expected = np.ones((2, 4))
    expected[:, 2:] += 2 * values[:, 2:]
    np.testing.assert_array_equal(x.grad.data, expected)


def test_cat_skips_legacy_empty_1d_inputs_like_torch():
    torch = pytest.importorskip("torch")
    a = np.arange(6.0).reshape(2, 3)
    x = pyad.Variable(a, requires_grad=True)
    e = pyad.Variable(np.zeros(0), requires_grad=True)
    y = pyad.cat([e, x, e], 1)
    tx = torch.tensor(a, requires_grad=True)
    te = torch.zeros(0, requires_grad=True)
    ty = torch.cat([te, tx, te], 1)
    np.testing.assert_array_equal(y.data, ty.detach().numpy())
    (y * 2.0).sum().backward()
    (ty * 2.0).sum().backward()
    np.testing.assert_array_equal(x.grad.data, tx.grad.numpy())
    assert e.grad.shape == (0,)


def test_cat_promotes_and_returns_each_gradient_in_its_input_dtype():
    a = pyad.Variable(np.ones(2, np.float32), requires_grad=True)
    b = pyad.Variable(np.ones(1, np.float64), requires_grad=True)
    y = pyad.cat([a, b])
    assert y.dtype == np.float64
    y.sum().backward()
    assert a.grad.dtype == np.float32 and b.grad.dtype == np.float64


@pytest.mark.parametrize("n, chunks", [(5, 3), (6, 4), (0, 3), (1, 2), (7, 7)])
def test_chunk_sizes_match_torch(n, chunks):
    torch = pytest.importorskip("torch")
    ours = [p.shape for p in pyad.Variable(np.zeros((n, 2))).chunk(chunks)]
    theirs = [tuple(p.shape) for p in torch.zeros(n, 2).chunk(chunks)]
    assert ours == theirs


@pytest.mark.parametrize("n, size", [(5, 2), (0, 2), (0, 0), (4, 4), (3, 5)])
def test_split_sizes_match_torch(n, size):
    torch = pytest.importorskip("torch")
    ours = [p.shape for p in pyad.split(pyad.Variable(np.zeros(n)), size)]
    theirs = [tuple(p.shape) for p in torch.split(torch.zeros(n), size)]
    assert ours == theirs


@pytest.mark.parametrize("call, error, match", [
    (lambda x: pyad.cat([x, pyad.Variable(np.array(1.0))]), RuntimeError, "cat"),
    (lambda x: pyad.cat([x, pyad.Variable(np.ones((3, 2)))]), RuntimeError, "cat"),
    (lambda x: pyad.cat([]), ValueError, "cat"),         # (torch's ValueError)
    (lambda x: pyad.cat(x), TypeError, "cat"),
    (lambda x: pyad.cat([x], 2), IndexError, "cat"),
    (lambda x: pyad.stack([x, x.T]), RuntimeError, "stack"),
    (lambda x: x.narrow(1, 2, 2), RuntimeError, "narrow"),
    (lambda x: x.narrow(1, 4, 0), IndexError, "narrow"),
    (lambda x: x.narrow(1, 0.5, 1), TypeError, "narrow"),
    (lambda x: x.select(0, 2), IndexError, "select"),
    (lambda x: x.select(2, 0), IndexError, "select"),
    (lambda x: x.split([1, 2]), RuntimeError, "split_with_sizes"),
    (lambda x: x.split(0), RuntimeError, "split"),
    (lambda x: x.chunk(0), RuntimeError, "chunk"),
    (lambda x: x.movedim((0, 1), 0), RuntimeError, "movedim"),
    (lambda x: x.movedim((0, 0), (0, 1)), RuntimeError, "movedim"),
    (lambda x: x.unflatten(1, (2, 2)), RuntimeError, "unflatten"),
    (lambda x: x.roll((1, 2)), RuntimeError, "roll"),
    (lambda x: x.roll(1, 2), IndexError, "roll"),
    (lambda x: x.flip([0, 0]), RuntimeError, "flip"),
    (lambda x: x.repeat(2), RuntimeError, "repeat"),
    (lambda x: pyad.Variable(np.array(1.0)).flip([1]), IndexError, "flip"),   # [0]: fine
    (lambda x: pyad.Variable(np.array(1.0)).narrow(0, 0, 1), RuntimeError, "narrow"),
    (lambda x: pyad.Variable(np.array(1.0)).unbind(), IndexError, "unbind"),
])
def test_joining_and_splitting_errors_name_the_op(call, error, match):
    with pytest.raises(error, match=match):
        call(pyad.Variable(np.ones((2, 3))))


def test_repeat_of_0d_and_movedim_of_0d_match_torch():
    torch = pytest.importorskip("torch")
    x = pyad.Variable(np.array(2.0), requires_grad=True)
    y = x.repeat(2, 3)
    assert y.shape == tuple(torch.tensor(2.0).repeat(2, 3).shape)
    y.sum().backward()
    assert x.grad.item() == 6.0
    assert x.repeat().shape == () and x.movedim(0, -1).shape == ()


# -- gather / scatter / index_* / masked_*: details ------------------------------------

def test_scatter_with_src_bigger_than_index_reads_only_the_indexed_part():
    # torch 2.13's scatter/scatter_add backward returns a src gradient of the index's shape
    # for a bigger src (its own shape check then fails), so this is checked against NumPy
    # and finite differences.
    from pyad.autograd import gradcheck, gradgradcheck
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((3, 4)), rng.standard_normal((3, 5))
    idx = np.array([[0, 2, 1, 0], [2, 0, 0, 1]])
    for name in ("scatter", "scatter_add"):
        out = getattr(pyad, name)(pyad.Variable(a), 0, idx, pyad.Variable(b))
        np.testing.assert_array_equal(out.data, NP_REF[name](a, 0, idx, b))
        f = lambda x, s: getattr(pyad, name)(x, 0, idx, s) ** 2
        xs = (pyad.Variable(a, requires_grad=True), pyad.Variable(b, requires_grad=True))
        assert gradcheck(f, xs) and gradgradcheck(f, xs)
        xs[1].grad = None
        f(*xs).sum().backward()
        assert np.all(xs[1].grad.data[2:] == 0) and np.all(xs[1].grad.data[:, 4:] == 0)


def test_gather_backward_adds_repeated_indices_like_torch():
    torch = pytest.importorskip("torch")
    a = np.arange(4.0)
    idx = np.array([3, 3, 3, 0])
    x = pyad.Variable(a, requires_grad=True)
    pyad.gather(x, 0, idx).sum().backward()
    tx = torch.tensor(a, requires_grad=True)
    torch.gather(tx, 0, torch.from_numpy(idx)).sum().backward()
    np.testing.assert_array_equal(x.grad.data, tx.grad.numpy())      # [1, 0, 0, 3]


def test_index_variables_are_accepted_as_indices():
    x = pyad.Variable(np.arange(6.0).reshape(2, 3), requires_grad=True)
    idx = pyad.Variable(np.array([2, 2]))
    y = x.index_select(1, idx) + x.gather(1, pyad.Variable(np.array([[0], [1]])))
    y.sum().backward()
    # y[i, j] = x[i, 2] + x[i, i]: each row's gathered entry is broadcast over 2 columns
    np.testing.assert_array_equal(x.grad.data, [[2.0, 0.0, 2.0], [0.0, 2.0, 2.0]])
    m = pyad.Variable(np.array([True, False, True]))
    assert x.masked_fill(m, 0.0).data.tolist() == [[0.0, 1.0, 0.0], [0.0, 4.0, 0.0]]


X23 = lambda: pyad.Variable(np.ones((2, 3)))


@pytest.mark.parametrize("call, error, match", [
    (lambda x: x.gather(1, np.array([[0.0]])), RuntimeError, r"gather\(\).*integer"),
    (lambda x: x.gather(1, np.array([[3]])), RuntimeError, r"gather\(\).*out of bounds"),
    (lambda x: x.gather(1, np.array([[-1]])), RuntimeError, r"gather\(\).*out of bounds"),
    (lambda x: x.gather(1, np.array([0])), RuntimeError, r"gather\(\).*dimensions"),
    (lambda x: x.gather(1, np.zeros((3, 1), np.int64)), RuntimeError, r"gather\(\)"),
    (lambda x: x.gather(2, np.array([[0]])), IndexError, r"gather"),
    (lambda x: x.gather(1, "a"), TypeError, r"gather\(\)"),
    (lambda x: x.scatter(0, np.array([[2]]), 1.0), RuntimeError, r"scatter\(\).*out of bounds"),
    (lambda x: x.scatter(0, np.array([[0]]), pyad.Variable(np.ones((1, 1), np.float32))),
     RuntimeError, r"scatter\(\).*dtype"),
    (lambda x: x.scatter(0, np.array([[0, 0]]), pyad.Variable(np.ones((1, 1)))),
     RuntimeError, r"scatter\(\)"),
    (lambda x: x.scatter_add(0, np.array([[0.5]]), pyad.Variable(np.ones((1, 1)))),
     RuntimeError, r"scatter_add\(\).*integer"),
    (lambda x: x.index_select(0, np.array([2])), IndexError, r"index_select\(\).*out of bounds"),
    (lambda x: x.index_select(0, np.array([[0]])), IndexError, r"index_select\(\)"),
    (lambda x: x.index_select(0, np.array([True])), RuntimeError, r"index_select\(\).*integer"),
    (lambda x: x.index_add(1, np.array([0]), pyad.Variable(np.ones((2, 2)))), RuntimeError,
     r"index_add\(\).*shape"),
    (lambda x: x.index_add(1, np.array([5]), pyad.Variable(np.ones((2, 1)))), RuntimeError,
     r"index_add\(\).*out of bounds"),
    (lambda x: x.index_copy(0, np.array([0]), np.ones((1, 3))), TypeError, r"index_copy\(\)"),
    (lambda x: x.index_fill(0, np.array([0]), pyad.Variable(np.ones(2))), RuntimeError,
     r"index_fill\(\).*0-dimensional"),
    (lambda x: x.masked_fill(np.array([1, 0, 1]), 0.0), RuntimeError, r"masked_fill\(\).*bool"),
    (lambda x: x.masked_fill(np.array([True, False]), 0.0), RuntimeError, r"masked_fill\(\)"),
    (lambda x: x.masked_select([True, False, True]), TypeError, r"masked_select\(\)"),
    (lambda x: x.masked_scatter(np.ones((2, 3), bool), pyad.Variable(np.ones(5))),
     RuntimeError, r"masked_scatter\(\).*fewer"),
    (lambda x: x.take_along_dim(np.array([[0]]), 2), IndexError, r"take_along_dim"),
    (lambda x: pyad.Variable(np.array(1.0)).index_select(0, np.array([0, 0])), RuntimeError,
     r"index_select\(\).*only 1 value"),
    (lambda x: x.take_along_dim(np.array([0]), 1), RuntimeError, r"take_along_dim\(\)"),
    (lambda x: x.masked_fill_(np.ones((2, 2, 3), bool), 0.0), RuntimeError, r"masked_fill_"),
    (lambda x: x.index_add_(0, np.array([9]), pyad.Variable(np.ones((1, 3)))), RuntimeError,
     r"^index_add_\(\): index 9 is out of bounds"),
    # put/put_ with torch's exception types and texts
    (lambda x: x.put(np.array([1.0]), pyad.Variable(np.ones(1))), RuntimeError,
     r"put\(\): Expected a long Variable for index"),
    (lambda x: x.put(np.array([6]), pyad.Variable(np.ones(1))), IndexError,
     r"put\(\): out of range: tried to access index 6 on a Variable of 6 elements"),
    (lambda x: x.put(np.array([-7]), pyad.Variable(np.ones(1))), IndexError,
     r"put\(\): out of range: tried to access index -7"),
    (lambda x: x.put(np.array([1, 2]), pyad.Variable(np.ones(1))), IndexError,
     r"put\(\): Expected source and index to have the same number of elements"),
    (lambda x: x.put(np.array([1]), pyad.Variable(np.ones(1, np.float32))), RuntimeError,
     r"put\(\): self and source expected to have the same dtype"),
    (lambda x: (x * 1).put_(np.array([6]), pyad.Variable(np.ones(1))), IndexError,
     r"^put_\(\): out of range"),
])
def test_indexing_ops_errors_name_the_op(call, error, match):
    with pytest.raises(error, match=match):
        call(X23())


@pytest.mark.parametrize("name, args", [
    ("gather", (0, np.array([0]))), ("index_select", (0, np.array([0]))),
    ("masked_select", (np.array(True),)), ("scatter", (0, np.array([0]), 2.0)),
    ("index_fill", (0, np.array([0]), 2.0)),
])
def test_indexing_ops_on_0d_inputs_match_torch(name, args):
    torch = pytest.importorskip("torch")
    x = pyad.Variable(np.array(1.5), requires_grad=True)
    tx = torch.tensor(1.5, dtype=torch.float64, requires_grad=True)
    targs = [torch.from_numpy(np.array(a)) if isinstance(a, np.ndarray) else a for a in args]
    y = getattr(pyad, name)(x, *args)
    ty = getattr(torch, name)(tx, *targs)
    np.testing.assert_array_equal(y.data, ty.detach().numpy())
    (y * 3.0).sum().backward()
    (ty * 3.0).sum().backward()
    np.testing.assert_array_equal(x.grad.data, tx.grad.numpy())


# -- nonzero, unique, pad: details ---------------------------------------------------------

@pytest.mark.parametrize("a", [
    np.array([[0.0, 1.5, 0.0], [2.0, 0.0, -1.0]]), np.array(0.0), np.array(3.0),
    np.zeros((0, 3)), np.array([0.0, 0.0]), np.array([True, False, True]),
], ids=["2d", "0d_zero", "0d_nonzero", "empty", "all_zero", "bool"])
def test_nonzero_matches_torch(a):
    torch = pytest.importorskip("torch")
    x, t = pyad.Variable(a), torch.from_numpy(a)
    y = pyad.nonzero(x)
    assert y.dtype == np.int64 and y.requires_grad is False
    np.testing.assert_array_equal(y.data, torch.nonzero(t).numpy())
    assert y.shape == tuple(torch.nonzero(t).shape)
    ours, theirs = x.nonzero(as_tuple=True), torch.nonzero(t, as_tuple=True)
    assert len(ours) == len(theirs)
    for o, th in zip(ours, theirs):
        np.testing.assert_array_equal(o.data, th.numpy())


@pytest.mark.parametrize("a", [
    np.array([3.0, 1.0, 3.0, -2.0, 1.0]), np.array([[2.0, 2.0], [0.5, 2.0]]), np.array(4.0),
    np.zeros(0),
], ids=["1d", "2d", "0d", "empty"])
def test_unique_matches_torch(a):
    torch = pytest.importorskip("torch")
    x = pyad.Variable(a, requires_grad=True)
    t = torch.from_numpy(a).requires_grad_(True)
    for inverse in (False, True):
        for counts in (False, True):
            ours = pyad.unique(x, return_inverse=inverse, return_counts=counts)
            theirs = torch.unique(t, return_inverse=inverse, return_counts=counts)
            if not (inverse or counts):
                ours, theirs = (ours,), (theirs,)
            assert len(ours) == len(theirs)
            for o, th in zip(ours, theirs):
                # the values require grad (their backward raises), as torch's
                assert o.shape == tuple(th.shape) and o.requires_grad == th.requires_grad
                assert o.dtype == th.detach().numpy().dtype
                np.testing.assert_array_equal(o.data, th.detach().numpy())


def test_unique_along_a_dim_matches_torch():
    torch = pytest.importorskip("torch")
    a = np.array([[1.0, 2.0], [0.0, 5.0], [1.0, 2.0]])
    ours = pyad.unique(pyad.Variable(a), dim=0, return_inverse=True, return_counts=True)
    theirs = torch.unique(torch.from_numpy(a), dim=0, return_inverse=True, return_counts=True)
    for o, th in zip(ours, theirs):
        np.testing.assert_array_equal(o.data, th.numpy())


_RUNS = np.array([[1.0, 2.0], [1.0, 2.0], [3.0, 4.0], [1.0, 2.0]])


@pytest.mark.parametrize("a, dim", [
    (np.array([1.0, 1.0, 2.0, 2.0, 3.0, 1.0, 1.0, 2.0]), None), (np.array(3.0), None),
    (np.zeros(0), None), (np.zeros(0), 0), (np.zeros((0, 3)), None), (np.zeros((0, 3)), 0),
    (np.zeros((2, 0)), 1), (_RUNS, None), (_RUNS, 0), (_RUNS, 1), (_RUNS, -1),
    (_RUNS.astype(np.int64), 0), (np.array([np.nan, np.nan, 1.0]), None),
    (np.array([[np.nan], [np.nan]]), 0), (np.array([-0.0, 0.0, 1.0]), None),
    (np.array([True, True, False]), None), (np.ones((2, 3, 2))[:, ::2], 2),
    (np.arange(24.0).reshape(2, 3, 4) % 2, 1), (np.arange(24.0).reshape(2, 3, 4) % 2, 2),
    (np.array([[1.0, 1.0], [2.0, 2.0]]), 1),
], ids=lambda v: None if isinstance(v, np.ndarray) else "dim=%s" % v)
def test_unique_consecutive_matches_torch(a, dim):
    torch = pytest.importorskip("torch")
    grad = a.dtype.kind == "f"
    x = pyad.Variable(a, requires_grad=grad)
    t = torch.from_numpy(np.array(a)).requires_grad_(grad)
    for inverse in (False, True):
        for counts in (False, True):
            ours = pyad.unique_consecutive(x, return_inverse=inverse, return_counts=counts,
                                           dim=dim)
            theirs = torch.unique_consecutive(t, return_inverse=inverse,
                                              return_counts=counts, dim=dim)
            if not (inverse or counts):
                ours, theirs = (ours,), (theirs,)
            assert len(ours) == len(theirs)
            for o, th in zip(ours, theirs):
                assert o.shape == tuple(th.shape) and o.requires_grad == th.requires_grad
                assert o.dtype == th.detach().numpy().dtype
                np.testing.assert_array_equal(o.data, th.detach().numpy())
    # the method is the function
    np.testing.assert_array_equal(x.unique_consecutive(dim=dim).data,
                                  pyad.unique_consecutive(x, dim=dim).data)


@pytest.mark.parametrize("dim", [None, 0])
def test_unique_consecutive_backward_raises_like_torch(dim):
    torch = pytest.importorskip("torch")
    a = np.array([[1.0, 2.0], [1.0, 2.0], [0.0, 1.0]])
    for lib, x in ((pyad, pyad.Variable(a, requires_grad=True)),
                   (torch, torch.tensor(a, requires_grad=True))):
        values, inverse, counts = lib.unique_consecutive(x, return_inverse=True,
                                                         return_counts=True, dim=dim)
        assert values.requires_grad and not inverse.requires_grad
        assert not counts.requires_grad
        with pytest.raises(NotImplementedError, match="the derivative for "
                           "'unique_consecutive' is not implemented."):
            values.sum().backward()
    with pyad.no_grad():
        assert not pyad.unique_consecutive(pyad.Variable(a, requires_grad=True)).requires_grad


@pytest.mark.parametrize("a, dim, error, match", [
    (np.array(3.0), 0, IndexError, r"Dimension specified as 0"),
    (_RUNS, 2, IndexError, r"Dimension out of range"),
    (_RUNS, 1.5, TypeError, r""),
    (np.zeros((3, 0)), 0, RuntimeError, r"0 sized dimensions"),
    (np.zeros((0, 3)), 1, RuntimeError, r"0 sized dimensions"),
])
def test_unique_consecutive_errors_like_torch(a, dim, error, match):
    torch = pytest.importorskip("torch")
    with pytest.raises(error, match=r"^unique_consecutive\(\): .*" + match):
        pyad.unique_consecutive(pyad.Variable(a), dim=dim)
    with pytest.raises(error):
        torch.unique_consecutive(torch.from_numpy(a), dim=dim)


def test_pad_is_in_nn_functional():
    from pyad.nn import functional as F
    assert F.pad is pyad.pad
    assert F.pad(pyad.Variable(np.ones(2)), (1, 0)).data.tolist() == [0.0, 1.0, 1.0]


@pytest.mark.parametrize("call, error, match", [
    (lambda x: pyad.pad(x, (1,)), RuntimeError, r"pad\(\).*even"),
    (lambda x: pyad.pad(x, (1, 1, 1, 1, 1, 1)), RuntimeError, r"pad\(\)"),
    (lambda x: pyad.pad(x, (3, 0), mode="reflect"), RuntimeError, r"pad\(\).*too large"),
    (lambda x: pyad.pad(x, (-2, -2), mode="replicate"), RuntimeError, r"pad\(\).*negative"),
    (lambda x: pyad.pad(x, (1, 1), mode="wrap"), NotImplementedError, r"pad\(\)"),
    (lambda x: pyad.pad(x, (4, 0), mode="circular"), RuntimeError, r"pad\(\).*wrapping"),
    (lambda x: pyad.pad(x, (1, 1), mode="reflect", value=2.0), RuntimeError, r"pad\(\)"),
    (lambda x: pyad.pad(x, (-2, -2)), RuntimeError, r"pad\(\).*negative size"),
    (lambda x: pyad.pad(x, 1), TypeError, r"pad\(\)"),
    (lambda x: pyad.unique(x, dim=2), IndexError, r"unique"),
])
def test_pad_and_unique_errors_name_the_op(call, error, match):
    with pytest.raises(error, match=match):
        call(X23())


@pytest.mark.parametrize("mode", ["reflect", "replicate", "circular"])
@pytest.mark.parametrize("shape, sizes", [
    ((3,), (1, 1)),                   # a 1-D input: no non-constant padding (torch)
    ((2, 3), (1, 1, 1, 1)),           # 2 padded dims need a 3-D or 4-D input
    ((2, 3, 4, 5, 6, 7), (1, 1)),     # 1 padded dim needs a 2-D or 3-D input
    ((2, 3, 4), ()),                  # nothing to pad is not a combination either
])
def test_non_constant_pad_takes_torch_combinations_only(mode, shape, sizes):
    with pytest.raises(NotImplementedError, match="Padding size %d is not supported for "
                                                  "%dD input" % (len(sizes), len(shape))):
        pyad.pad(pyad.Variable(np.ones(shape)), sizes, mode=mode)


@pytest.mark.parametrize("mode", ["reflect", "replicate"])
@pytest.mark.parametrize("shape, sizes, ok", [
    ((0, 2, 4), (1, 1), True),        # an empty batch dim is fine
    ((0, 3, 4, 4), (1, 1, 1, 1), True),
    ((1, 0, 4), (1, 1), False),       # an empty channel dim is not
    ((0, 4), (1, 1), False),          # unbatched: every dim must be non-empty
    ((2, 0), (0, 0), False),
])
def test_reflect_and_replicate_refuse_empty_non_batch_dims_as_torch(mode, shape, sizes, ok):
    x = pyad.Variable(np.ones(shape))
    if ok:
        out = pyad.pad(x, sizes, mode=mode)
        grown = list(shape)
        for i in range(len(sizes) // 2):
            grown[-1 - i] += sizes[2 * i] + sizes[2 * i + 1]
        assert out.shape == tuple(grown)
        return
    with pytest.raises(RuntimeError, match=r"Expected %dD or %dD \(batch mode\) tensor with "
                       r"possibly 0 batch size and other non-zero dimensions for input, but "
                       r"got: \[%s\]" % (len(sizes) // 2 + 1, len(sizes) // 2 + 2,
                                         ", ".join(map(str, shape)))):
        pyad.pad(x, sizes, mode=mode)


# -- advanced indexing vs torch: a table of keys, get and set ------------------------------

def _keys():
    i = np.array
    return [
        ("int_array_repeats", i([0, 2, 2, 0])),
        ("list_2d", [[0, 1], [2, 2]]),
        ("int_variable", pyad.Variable(i([2, 0, 2]))),
        ("bool_array", i([True, False, True])),
        ("bool_variable_2d", pyad.Variable(i([[True, False, True, False]] * 3))),
        ("bool_full", np.arange(60).reshape(3, 4, 5) % 3 == 0),
        ("slice_then_array", (slice(None), i([3, 0, 3]))),
        ("array_slice_array", (i([0, 1, 1]), slice(1, 3), i([4, 4, 0]))),
        ("int_slice_array", (0, slice(None), i([1, 2, 1]))),
        ("slice_array_int", (slice(None), i([0, 2]), 0)),
        ("int_array_array", (1, i([1, 1]), i([2, 3]))),
        ("none_array", (None, i([0, 2]))),
        ("array_none", (i([2, 2]), None)),
        ("slice_none_array", (slice(None), None, i([0, 1]))),
        ("ellipsis_array", (Ellipsis, i([1, 1, 4]))),
        ("array_ellipsis_int", (i([1, 0]), Ellipsis, 2)),
        ("bool_slice_int", (i([True, False, True]), slice(None, 3), 1)),
        ("broadcast_arrays", (i([[0], [2]]), slice(None), i([1, 3, 3]))),
        ("negative_indices", (i([-1, -3]), -2)),
        ("empty_array", i([], dtype=np.int64)),
    ]


def _torch_key(key):
    torch = pytest.importorskip("torch")
    # Python lists go to torch as they are: the same key, so torch's own reading of a
    # non-tuple sequence (a list of lists indexes as a tuple, with its deprecation
    # warning) is what pyad is compared with.
    conv = lambda k: (torch.from_numpy(k.data) if isinstance(k, pyad.Variable) else
                      torch.from_numpy(k) if isinstance(k, np.ndarray) else k)
    return tuple(conv(k) for k in key) if isinstance(key, tuple) else conv(key)


KEY_IDS = [k for k, _ in _keys()]


@pytest.mark.parametrize("n", range(len(KEY_IDS)), ids=KEY_IDS)
def test_getitem_matches_torch_on_a_table_of_keys(n):
    torch = pytest.importorskip("torch")
    key = _keys()[n][1]
    a = np.random.default_rng(n).standard_normal((3, 4, 5))
    x = pyad.Variable(a, requires_grad=True)
    t = torch.tensor(a, requires_grad=True)
    y, ty = x[key], t[_torch_key(key)]
    assert y.shape == tuple(ty.shape)
    np.testing.assert_array_equal(y.data, ty.detach().numpy())
    w = np.random.default_rng(100 + n).standard_normal(y.shape)
    (y * pyad.Variable(w)).sum().backward()
    (ty * torch.from_numpy(w)).sum().backward()
    np.testing.assert_array_equal(x.grad.data, t.grad.numpy())


@pytest.mark.parametrize("n", range(len(KEY_IDS)), ids=KEY_IDS)
def test_setitem_matches_torch_on_a_table_of_keys(n):
    torch = pytest.importorskip("torch")
    key = _keys()[n][1]
    a = np.random.default_rng(n).standard_normal((3, 4, 5))
    shape = tuple(torch.zeros(3, 4, 5)[_torch_key(key)].shape)
    v = np.random.default_rng(200 + n).standard_normal(shape)
    w = np.random.default_rng(300 + n).standard_normal((3, 4, 5))
    x = pyad.Variable(a, requires_grad=True)
    val = pyad.Variable(v, requires_grad=True)
    z = x * 1.0
    z[key] = val
    (z * z * pyad.Variable(w)).sum().backward()
    t = torch.tensor(a, requires_grad=True)
    tval = torch.tensor(v, requires_grad=True)
    tz = t * 1.0
    tz[_torch_key(key)] = tval
    (tz * tz * torch.from_numpy(w)).sum().backward()
    np.testing.assert_array_equal(z.data, tz.detach().numpy())
    np.testing.assert_allclose(x.grad.data, t.grad.numpy(), rtol=1e-12, atol=1e-14)
    # a repeated index: torch writes its last value and gathers the gradient at each
    # occurrence (as NumPy and pyad do)
    np.testing.assert_allclose(val.grad.data, tval.grad.numpy(), rtol=1e-12, atol=1e-14)
    # the same without grad
    y = pyad.Variable(a.copy())
    y[key] = pyad.Variable(v)
    np.testing.assert_array_equal(y.data, tz.detach().numpy())


@pytest.mark.parametrize("index_dtype", [np.int64, np.int32, np.uint8])
@pytest.mark.parametrize("dim", [0, 1, 2, -1])
def test_gather_of_a_strided_3d_input_matches_torch(index_dtype, dim):
    # gather's NumPy path takes flat positions (strides of the C-order input, a strided
    # input included) and scatters repeated indices back with one flat add.at.
    from pyad.autograd import gradcheck, gradgradcheck
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(7)
    base = rng.standard_normal((4, 6, 10))
    a = base[:, ::2, ::2]                               # (4, 3, 5), not contiguous
    n = a.shape[dim]
    shape = [3, 2, 4]
    shape[dim] = 7                                      # more picks than the dim: repeats
    idx = rng.integers(0, n, size=shape).astype(index_dtype)
    x = pyad.Variable(a, requires_grad=True)
    tx = torch.tensor(a, requires_grad=True)
    w = rng.standard_normal(shape)
    y = pyad.gather(x, dim, idx)
    ty = torch.gather(tx, dim, torch.from_numpy(idx.astype(np.int64)))
    np.testing.assert_array_equal(y.data, ty.detach().numpy())
    (y * pyad.Variable(w)).sum().backward()
    (ty * torch.from_numpy(w)).sum().backward()
    np.testing.assert_allclose(x.grad.data, tx.grad.numpy(), rtol=1e-15, atol=1e-15)
    f = lambda v: pyad.gather(v, dim, idx) ** 2
    assert gradcheck(f, (pyad.Variable(a, requires_grad=True),))
    assert gradgradcheck(f, (pyad.Variable(a, requires_grad=True),))


@pytest.mark.parametrize("make", [
    lambda L, a: L.tensor(a).transpose(0, 1).reshape(-1),
    lambda L, a: L.tensor(a).transpose(0, 1).flatten(),
    lambda L, a: L.tensor(a[0]).expand(2, 4).reshape(8),
], ids=["reshape-T", "flatten-T", "reshape-expanded"])
def test_reshape_that_must_copy_is_not_a_view_like_torch(make):
    # torch copies when the strides allow no view: the result is no view of the input,
    # does not share its version counter, and an in-place change of it leaves the input
    torch = pytest.importorskip("torch")
    a = np.arange(12.0).reshape(3, 4)
    y, ty = make(pyad, a), make(torch, a)
    assert y._is_view() == ty._is_view() is False
    assert y._base is None and ty._base is None
    base = y._version
    y.add_(1)
    ty.add_(1)
    np.testing.assert_array_equal(y.data, ty.numpy())
    assert y._version == base + 1
    x = pyad.tensor(a)
    xt = x.transpose(0, 1)
    r = xt.reshape(-1)
    r.mul_(0)
    assert x._version == 0 and xt._version == 0
    np.testing.assert_array_equal(x.data, a)


def test_reshape_that_must_copy_gradients_match_torch():
    from pyad.autograd import gradcheck, gradgradcheck
    torch = pytest.importorskip("torch")
    a = np.arange(12.0).reshape(3, 4) / 7
    w = np.linspace(-1, 1, 12)
    x = pyad.Variable(a, requires_grad=True)
    tx = torch.tensor(a, requires_grad=True)
    y = x.transpose(0, 1).reshape(-1) * 1
    y.mul_(pyad.Variable(w))
    ty = tx.transpose(0, 1).reshape(-1) * 1
    ty.mul_(torch.tensor(w))
    (y ** 2).sum().backward()
    (ty ** 2).sum().backward()
    np.testing.assert_allclose(x.grad.data, tx.grad.numpy(), rtol=1e-14, atol=0)
    f = lambda v: v.transpose(0, 1).reshape(-1) ** 2
    assert gradcheck(f, (pyad.Variable(a, requires_grad=True),))
    assert gradgradcheck(f, (pyad.Variable(a, requires_grad=True),))


@pytest.mark.parametrize("shape", [(), (3,), (2, 3), (2, 3, 4)])
@pytest.mark.parametrize("key", [
    (Ellipsis, Ellipsis), (Ellipsis, Ellipsis, Ellipsis), (Ellipsis, 1, Ellipsis),
    (0, Ellipsis, Ellipsis), (None, Ellipsis, None, Ellipsis), (Ellipsis, Ellipsis, 0),
    (Ellipsis, slice(0, 1), Ellipsis), (Ellipsis, [1, 0], Ellipsis),
], ids=["2ell", "3ell", "ell-int-ell", "int-2ell", "none-ell-none-ell", "2ell-int",
        "ell-slice-ell", "ell-list-ell"])
def test_getitem_several_ellipses_match_torch(shape, key):
    # torch: each Ellipsis stands for the dimensions the other items do not name
    from pyad.autograd import gradcheck, gradgradcheck
    torch = pytest.importorskip("torch")
    a = np.arange(float(np.prod(shape))).reshape(shape)
    tx = torch.tensor(a, requires_grad=True)
    try:
        ty = tx[key]
    except IndexError:
        with pytest.raises(IndexError):
            pyad.tensor(a)[key]
        return
    x = pyad.Variable(a, requires_grad=True)
    y = x[key]
    assert y.shape == tuple(ty.shape)
    np.testing.assert_array_equal(y.data, ty.detach().numpy())
    w = np.arange(float(y.data.size)).reshape(y.shape) + 1
    (y * pyad.Variable(w)).sum().backward()
    (ty * torch.tensor(w)).sum().backward()
    np.testing.assert_array_equal(x.grad.data, tx.grad.numpy())
    if y.data.size:
        f = lambda v: v[key] ** 2
        assert gradcheck(f, (pyad.Variable(a, requires_grad=True),))
        assert gradgradcheck(f, (pyad.Variable(a, requires_grad=True),))


@pytest.mark.parametrize("mask", [
    np.array([[1, 0, 2, 0], [0, 1, 1, 0], [3, 0, 0, 1]], np.uint8),
    np.array([1, 0, 2], np.uint8), np.array([0, 0, 0], np.uint8),
], ids=["2d", "rows", "none"])
def test_getitem_uint8_variable_is_a_mask_like_torch(mask):
    # torch reads a uint8 index as a (deprecated) mask, with a UserWarning
    torch = pytest.importorskip("torch")
    a = np.arange(12.0).reshape(3, 4)
    x = pyad.Variable(a, requires_grad=True)
    tx = torch.tensor(a, requires_grad=True)
    with pytest.warns(UserWarning, match="uint8"):
        y = x[pyad.tensor(mask)]
    with pytest.warns(UserWarning):
        ty = tx[torch.tensor(mask)]
    assert y.shape == tuple(ty.shape)
    np.testing.assert_array_equal(y.data, ty.detach().numpy())
    w = np.arange(float(y.data.size)).reshape(y.shape) + 1
    (y * pyad.Variable(w)).sum().backward()
    (ty * torch.tensor(w)).sum().backward()
    np.testing.assert_array_equal(x.grad.data, tx.grad.numpy())


@pytest.mark.parametrize("shape,sizes", [((2, 6), (-1, 0)), ((2, 0), (-1, 0)),
                                         ((2, 0), (0, -1)), ((2, 0), (-1, 2)),
                                         ((2, 6), (-1, 3))])
def test_unflatten_with_a_zero_size_says_what_torch_says(shape, sizes):
    # A non-empty dim never fits sizes holding a 0 ("don't multiply up"); only an empty
    # dim makes the -1 ambiguous.
    torch = pytest.importorskip("torch")
    try:
        expected = tuple(torch.zeros(*shape).unflatten(1, sizes).shape)
    except RuntimeError as e:
        key = "multiply up" if "multiply up" in str(e) else "ambiguous"
        with pytest.raises(RuntimeError, match=key):
            pyad.zeros(*shape).unflatten(1, sizes)
        return
    assert tuple(pyad.zeros(*shape).unflatten(1, sizes).shape) == expected
