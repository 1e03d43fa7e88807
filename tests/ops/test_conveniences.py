"""torch functions beyond the core op list that torch users reach for: ravel, flipud/fliplr,
rot90, atleast_*d, dstack, column_stack, tensor_split/hsplit/vsplit, take,
broadcast_tensors/broadcast_shapes, meshgrid, kron, cummax/cummin, aminmax,
nansum/nanmean, cross/linalg.cross, matrix_power, absolute, rsub.

Each Case runs through the standard checks (values vs NumPy, gradcheck and
gradgradcheck in float64, values and first and second gradients vs torch, the 0-d,
empty, non-contiguous and float32 variants)."""
import warnings

import numpy as np
import pytest

import pyad
from _ops_helpers import (Case, standard_op_tests)
from _shape_refs import joined

NAN = float("nan")


def _first_dim_of_3(a):
    return next(i for i, n in enumerate(a.shape) if n == 3)


NP_REF = {
    "tensor_split": lambda x, ios, dim=0: np.array_split(x, ios, axis=dim),
    "broadcast_tensors": np.broadcast_arrays,
    "cummax": lambda x, dim: (np.maximum.accumulate(x, axis=dim), None),
    "cummin": lambda x, dim: (np.minimum.accumulate(x, axis=dim), None),
    "aminmax": lambda x, dim=None, keepdim=False: (np.amin(x, axis=dim, keepdims=keepdim),
                                                  np.amax(x, axis=dim, keepdims=keepdim)),
    "cross": lambda a, b, dim=None: np.cross(a, b, axis=_first_dim_of_3(np.broadcast_arrays(
        a, b)[0]) if dim is None else dim),
    "linalg_cross": lambda a, b, dim=-1: np.cross(a, b, axis=dim),
    "matrix_power": np.linalg.matrix_power,
    "nansum": lambda x, dim=None, keepdim=False: np.nansum(x, axis=dim, keepdims=keepdim),
    "nanmean": lambda x, dim=None, keepdim=False: np.nanmean(x, axis=dim, keepdims=keepdim),
    "rsub": lambda a, b, alpha=1: b - alpha * a,
}


def op(L, name, *args, **kwargs):
    """``L.<name>``; NumPy's spelling where it differs, ``linalg.cross`` by name."""
    if L.name == "numpy" and name in NP_REF:
        return NP_REF[name](*args, **kwargs)
    if name == "linalg_cross":
        return L.linalg.cross(*args, **kwargs)
    return getattr(L, name)(*args, **kwargs)


def _nan_where_large(L, a):
    # nan where a > 1 (a constant there: finite differences see no dependence)
    return L.where(a > 1.0, NAN, a)


NO0 = dict(zero_d=False)

CASES = [
    Case("ravel_non_contiguous", lambda L, a: op(L, "ravel", L.transpose(a, 0, 1)), [(3, 4)]),
    Case("flipud", lambda L, a: op(L, "flipud", a), [(3, 4)], **NO0),
    Case("fliplr", lambda L, a: op(L, "fliplr", a), [(3, 4)], **NO0),
    Case("fliplr_3d", lambda L, a: op(L, "fliplr", a), [(2, 3, 4)], **NO0),
    Case("rot90_k1", lambda L, a: op(L, "rot90", a, 1, [0, 1]), [(3, 4)], **NO0),
    Case("rot90_k2", lambda L, a: op(L, "rot90", a, 2, [0, 1]), [(3, 4)], **NO0),
    Case("rot90_k3_dims_2_0", lambda L, a: op(L, "rot90", a, 3, [2, 0]), [(2, 3, 4)], **NO0),
    Case("rot90_k_minus1", lambda L, a: op(L, "rot90", a, -1, [0, 1]), [(3, 4)], **NO0),
    Case("rot90_k4", lambda L, a: op(L, "rot90", a, 4, [0, 1]), [(3, 4)], **NO0),
    Case("atleast_2d_of_1d", lambda L, a: op(L, "atleast_2d", a), [(4,)]),
    Case("atleast_3d_of_1d", lambda L, a: op(L, "atleast_3d", a), [(4,)]),
    Case("atleast_3d_of_2d", lambda L, a: op(L, "atleast_3d", a), [(3, 4)]),
    Case("atleast_1d_of_2d", lambda L, a: op(L, "atleast_1d", a), [(3, 4)]),
    Case("dstack", lambda L, a, b: op(L, "dstack", [a, b]), [(3, 4), (3, 4)]),
    Case("dstack_1d", lambda L, a, b: op(L, "dstack", [a, b]), [(4,), (4,)]),
    Case("column_stack", lambda L, a, b: op(L, "column_stack", [a, b]), [(3,), (3, 2)],
         zero_d=False, empty=[(0,), (0, 2)]),
    Case("tensor_split_sections",
         lambda L, a: joined(L, op(L, "tensor_split", a, 3, 1)), [(2, 5)], **NO0),
    Case("tensor_split_indices",
         lambda L, a: joined(L, op(L, "tensor_split", a, [1, -1, 9], 1)), [(2, 5)], **NO0),
    Case("tensor_split_backwards_indices",
         lambda L, a: joined(L, op(L, "tensor_split", a, [3, 1])), [(5, 2)], **NO0),
    Case("hsplit", lambda L, a: joined(L, op(L, "hsplit", a, 2)), [(3, 4)], **NO0),
    Case("vsplit_indices", lambda L, a: joined(L, op(L, "vsplit", a, [1])), [(3, 4)], **NO0),
    Case("take_repeats_and_negatives",
         lambda L, a: op(L, "take", a, L.c(np.array([[0, 11], [-1, 5], [5, 5]]))), [(3, 4)],
         zero_d=False, empty=False),
    Case("broadcast_tensors",
         lambda L, a, b: joined(L, op(L, "broadcast_tensors", a, b)), [(3, 1), (4,)]),
    Case("meshgrid_ij",
         lambda L, a, b: joined(L, op(L, "meshgrid", a, b, indexing="ij")), [(3,), (2,)]),
    Case("meshgrid_xy_three",
         lambda L, a, b, c: joined(L, op(L, "meshgrid", a, b, c, indexing="xy")),
         [(3,), (2,), (4,)]),
    Case("kron_2d", lambda L, a, b: op(L, "kron", a, b), [(2, 3), (3, 2)]),
    # (torch 2.13's kron raises on a transposed operand of another ndim: no such variant)
    Case("kron_mixed_ndim", lambda L, a, b: op(L, "kron", a, b), [(3,), (2, 2)],
         non_contiguous=False),
    Case("cummax_dim1", lambda L, a: op(L, "cummax", a, 1)[0], [(3, 4)], domain="distinct",
         zero_d=False),
    Case("cummin_dim0", lambda L, a: op(L, "cummin", a, 0)[0], [(3, 4)], domain="distinct",
         zero_d=False),
    Case("aminmax_dim", lambda L, a: joined(L, op(L, "aminmax", a, dim=1)), [(3, 4)],
         domain="distinct", zero_d=False, empty=False),
    Case("aminmax_all_keepdim", lambda L, a: joined(L, op(L, "aminmax", a, keepdim=True)),
         [(3, 4)], domain="distinct", empty=False),
    Case("nansum_dim", lambda L, a: op(L, "nansum", _nan_where_large(L, a), 1), [(3, 4)]),
    Case("nansum_all", lambda L, a: op(L, "nansum", _nan_where_large(L, a)), [(3, 4)]),
    Case("nanmean_dim_keepdim",
         lambda L, a: op(L, "nanmean", _nan_where_large(L, a * 0.6), 0, True), [(3, 4)],
         empty=False),
    Case("cross_first_dim_of_3", lambda L, a, b: op(L, "cross", a, b), [(4, 3), (4, 3)],
         zero_d=False, empty=[(0, 3), (0, 3)]),
    Case("cross_dim_broadcast", lambda L, a, b: op(L, "cross", a, b, 0), [(3, 1), (3, 4)],
         zero_d=False, empty=[(3, 0), (3, 0)]),
    Case("linalg_cross", lambda L, a, b: op(L, "linalg_cross", a, b), [(2, 3), (1, 3)],
         zero_d=False, empty=[(0, 3), (0, 3)]),
    Case("matrix_power_3", lambda L, a: op(L, "matrix_power", a * 0.5, 3), [(3, 3)],
         zero_d=False, empty=[(0, 3, 3)]),
    Case("matrix_power_batched_6", lambda L, a: op(L, "matrix_power", a * 0.5, 6),
         [(2, 2, 2)], zero_d=False, empty=[(0, 2, 2)]),
    Case("absolute", lambda L, a: op(L, "absolute", a), [(3, 4)]),
    Case("rsub_alpha", lambda L, a, b: op(L, "rsub", a, b, alpha=2.5), [(3, 4), (4,)]),
]

(test_values_match_numpy, test_first_derivatives_pass_gradcheck,
 test_second_derivatives_pass_gradgradcheck, test_values_and_gradients_match_torch,
 test_second_derivatives_match_torch, test_create_graph_gradient_equals_plain_gradient,
 test_variant) = standard_op_tests(CASES)


def _torch():
    return pytest.importorskip("torch")


def test_matrix_power_negative_and_zero_match_torch():
    torch = _torch()
    a = np.array([[2.0, 1.0], [0.5, 3.0]])
    for n in (-1, -3, 0):
        x, tx = pyad.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
        y, ty = pyad.linalg.matrix_power(x, n), torch.linalg.matrix_power(tx, n)
        np.testing.assert_allclose(y.data, ty.detach().numpy(), rtol=1e-12)
        if n:
            (g,), (tg,) = pyad.autograd.grad(y.sum(), [x]), torch.autograd.grad(ty.sum(), [tx])
            np.testing.assert_allclose(g.data, tg.numpy(), rtol=1e-10)
    with pytest.raises(RuntimeError, match=r"matrix_power\(\).*singular"):
        pyad.matrix_power(pyad.zeros(2, 2), -1)


@pytest.mark.parametrize("name", ["cummax", "cummin"])
def test_cummax_cummin_indices_at_ties_and_nan_match_torch(name):
    torch = _torch()
    rows = np.array([[1.0, 1.0, 0.0, 1.0, 2.0, 2.0], [3.0, NAN, 5.0, NAN, 0.0, -1.0]])
    out = getattr(pyad, name)(pyad.tensor(rows), 1)
    ref = getattr(torch, name)(torch.tensor(rows), 1)
    np.testing.assert_array_equal(out.indices.data, ref.indices.numpy())
    np.testing.assert_array_equal(out.values.data, ref.values.numpy())
    assert out.indices.dtype == np.int64
    # the gradient goes to the index chosen at a tie
    x = pyad.tensor(rows[:1], requires_grad=True)
    getattr(pyad, name)(x, 1).values.sum().backward()
    tx = torch.tensor(rows[:1], requires_grad=True)
    getattr(torch, name)(tx, 1).values.sum().backward()
    np.testing.assert_array_equal(x.grad.data, tx.grad.numpy())
    assert tuple(getattr(pyad, name)(pyad.tensor(2.0), 0).indices.shape) == ()


def test_nanmean_of_an_all_nan_row_is_nan_and_its_gradient_nan_as_torch():
    # torch's nansum / count: the all-NaN row's gradient is g / 0 times 0, NaN
    x = pyad.tensor([[NAN, NAN], [1.0, 3.0]], requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")          # no RuntimeWarning from 0 / 0
        y = pyad.nanmean(x, 1)
        assert np.isnan(y.data[0]) and y.data[1] == 2.0
        y.sum().backward()
    np.testing.assert_array_equal(x.grad.data, [[NAN, NAN], [0.5, 0.5]])
    torch = pytest.importorskip("torch")
    t = torch.tensor([[NAN, NAN], [1.0, 3.0]], dtype=torch.float64, requires_grad=True)
    torch.nanmean(t, 1).sum().backward()
    np.testing.assert_array_equal(x.grad.data, t.grad.numpy())


def test_meshgrid_without_indexing_warns_and_uses_ij_as_torch():
    a, b = pyad.tensor([1.0, 2.0, 3.0]), pyad.tensor([4.0, 5.0])
    with pytest.warns(UserWarning, match="indexing"):
        gx, gy = pyad.meshgrid(a, b)
    assert gx.shape == (3, 2) and gy.shape == (3, 2)
    gx2, _ = pyad.meshgrid([a, b], indexing="xy")
    assert gx2.shape == (2, 3)


def test_atleast_forms_and_broadcast_shapes_match_torch():
    torch = _torch()
    for name in ("atleast_1d", "atleast_2d", "atleast_3d"):
        for shape in [(), (2,), (2, 3), (2, 3, 4)]:
            got = getattr(pyad, name)(pyad.zeros(shape))
            assert got.shape == tuple(getattr(torch, name)(torch.zeros(shape)).shape)
        many = getattr(pyad, name)(pyad.zeros(()), pyad.zeros(2))
        assert isinstance(many, tuple) and len(many) == 2
        listed = getattr(pyad, name)([pyad.zeros(())])
        assert isinstance(listed, tuple) and len(listed) == 1
    assert pyad.broadcast_shapes((2, 1), (3,), 1) == tuple(torch.broadcast_shapes((2, 1), (3,), 1))


@pytest.mark.parametrize("call, message", [
    (lambda: pyad.take(pyad.ones(3), pyad.tensor([3])), r"take\(\)"),
    (lambda: pyad.take(pyad.ones(3), pyad.tensor([0.5])), r"take\(\)"),
    (lambda: pyad.matrix_power(pyad.ones(2, 3), 2), r"matrix_power\(\)"),
    (lambda: pyad.matrix_power(pyad.ones(3), 2), r"matrix_power\(\)"),
    (lambda: pyad.rot90(pyad.ones(3)), r"rot90\(\)"),
    (lambda: pyad.rot90(pyad.ones(3, 3), 1, [0, 0]), r"rot90\(\)"),
    (lambda: pyad.rot90(pyad.ones(3, 3), 1, [0]), r"rot90\(\)"),
    (lambda: pyad.flipud(pyad.tensor(1.0)), r"flipud\(\)"),
    (lambda: pyad.fliplr(pyad.ones(3)), r"fliplr\(\)"),
    (lambda: pyad.cross(pyad.ones(2, 2), pyad.ones(2, 2)), r"cross\(\)"),
    (lambda: pyad.linalg.cross(pyad.ones(2, 4), pyad.ones(2, 4)), r"linalg.cross\(\)"),
    (lambda: pyad.cross(pyad.ones(2, 3), pyad.ones(4, 3)), r"broadcast"),
    (lambda: pyad.hsplit(pyad.ones(3), 2), r"hsplit\(\)"),
    (lambda: pyad.vsplit(pyad.ones(3), 1), r"vsplit\(\)"),
    (lambda: pyad.tensor_split(pyad.ones(3), 0), r"tensor_split\(\)"),
    (lambda: pyad.tensor_split(pyad.tensor(1.0), 1), r"tensor_split\(\)"),
    (lambda: pyad.broadcast_tensors(pyad.ones(2), pyad.ones(3)), r"broadcast_tensors\(\)"),
    (lambda: pyad.broadcast_shapes((2,), (3,)), r"broadcast_shapes\(\)"),
    (lambda: pyad.meshgrid(pyad.ones(2, 2), indexing="ij"), r"meshgrid\(\)"),
    (lambda: pyad.meshgrid(pyad.ones(2), indexing="yx"), r"meshgrid\(\)"),
    (lambda: pyad.cummax(pyad.ones(2), 1), r"cummax\(\)"),
    (lambda: pyad.aminmax(pyad.ones(0)), r"aminmax\(\)"),
    (lambda: pyad.nanmean(pyad.tensor([1, 2])), r"nanmean\(\)"),
])
def test_bad_input_is_a_clear_error_naming_the_op(call, message):
    with pytest.raises((RuntimeError, IndexError, TypeError, ValueError), match=message):
        call()
