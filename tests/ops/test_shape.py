"""Shape and indexing ops: reshape/view, transpose, .T, permute, unsqueeze/squeeze,
flatten, expand/broadcast_to, __getitem__ (ints, slices, None, Ellipsis, negative
steps, integer arrays with repeats, boolean masks), joining and splitting (cat, stack,
split, chunk, unbind, narrow, select, ...), flip, roll, repeat, tile, movedim, unflatten."""
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


# -- NumPy references of ops with no NumPy twin (and torch spellings that differ) -----

def _np_narrow(x, dim, start, length):
    if x.ndim == 0:
        raise IndexError("narrow of 0-d")
    dim %= x.ndim
    if not -x.shape[dim] <= start <= x.shape[dim]:
        raise IndexError("narrow start out of range")
    start = start + x.shape[dim] if start < 0 else start
    if start + length > x.shape[dim]:
        raise IndexError("narrow out of range")
    return x[(slice(None),) * dim + (slice(start, start + length),)]


def _np_split(x, size, dim=0):
    if x.ndim == 0:
        raise IndexError("split of 0-d")
    n = x.shape[dim]
    sizes = list(size) if isinstance(size, (list, tuple)) else (
        [min(size, n - k) for k in range(0, n, size)] or [0])
    if sum(sizes) != n:
        raise ValueError("split sizes do not add up")
    return np.split(x, np.cumsum(sizes)[:-1], axis=dim)


def _np_chunk(x, chunks, dim=0):
    if x.ndim == 0:
        raise IndexError("chunk of 0-d")
    n = x.shape[dim]
    if n == 0:
        return _np_split(x, [0] * chunks, dim)
    return _np_split(x, -(-n // chunks), dim)


def _np_unflatten(x, dim, sizes):
    if x.ndim == 0:
        raise IndexError("unflatten of 0-d")
    dim %= x.ndim
    return x.reshape(x.shape[:dim] + tuple(sizes) + x.shape[dim + 1:])


def _np_repeat(x, *sizes):
    if len(sizes) < x.ndim:
        raise ValueError("fewer sizes than dims")
    return np.tile(x, sizes)


NP_REF = {
    "cat": lambda tensors, dim=0: np.concatenate(tensors, axis=dim),
    "narrow": _np_narrow,
    "select": lambda x, dim, i: np.take(x, i, axis=dim) if x.ndim else x[i],
    "split": _np_split,
    "split_with_sizes": _np_split,
    "chunk": _np_chunk,
    "unbind": lambda x, dim=0: [np.take(x, i, axis=dim) for i in range(x.shape[dim])],
    "movedim": np.moveaxis,
    "unflatten": _np_unflatten,
    "repeat": _np_repeat,
}
TORCH_REF = {
    "repeat": lambda x, *sizes: x.repeat(*sizes),     # a Tensor method only
}


def op(L, name, *args):
    """``L.<name>(*args)``, with the NumPy references and torch spellings above."""
    if L.name == "numpy" and name in NP_REF:
        return NP_REF[name](*args)
    if L.name == "torch" and name in TORCH_REF:
        return TORCH_REF[name](*args)
    return getattr(L, name)(*args)


def joined(L, parts):
    """One output from several (split, chunk, unbind): each part flattened and weighted
    by its position, so each part's gradient differs."""
    return op(L, "cat", [L.reshape(p, -1) * float(i + 1) for i, p in enumerate(parts)], 0)

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


def test_inplace_through_split_and_unbind_outputs_is_recorded_on_the_base():
    # torch refuses in-place on outputs of multi-view functions; pyad records them like
    # any view: y = x * 1, y[:, 2:] squared in place, y[1] tripled in place.
    a = np.arange(1.0, 9.0).reshape(2, 4)
    x = pyad.Variable(a.copy(), requires_grad=True)
    y = x * 1.0
    part = y.split([2, 2], 1)[1]
    part.pow_(2)
    y.unbind(0)[1].mul_(3.0)
    y.sum().backward()
    expected = np.ones((2, 4))
    expected[:, 2:] = 2 * a[:, 2:]
    expected[1] *= 3.0
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
    (lambda x: pyad.cat([]), RuntimeError, "cat"),
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
    (lambda x: pyad.Variable(np.array(1.0)).flip([0]), IndexError, "flip"),
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
