"""Reductions: sum, mean (dim None / int / tuple / negative, keepdim), max (all
elements, and along a dim returning (values, indices)), logsumexp."""
import numpy as np
import pytest

import pyad
from _ops_helpers import (Case, torch_lib, standard_op_tests)

DIMS = [None, 0, 1, -1, -3, (0, 2), (-1, 0), (0, 1, 2)]
DIM_IDS = ["all", "0", "1", "neg1", "neg3", "tuple02", "tuple_neg1_0", "tuple_all"]


def _reduction_cases(name, domain="signed"):
    cases = []
    for dim, did in zip(DIMS, DIM_IDS):
        for keepdim in (False, True):
            if dim is None and keepdim:
                continue

            def f(L, a, dim=dim, keepdim=keepdim, name=name):
                return getattr(L, name)(a, dim, keepdim) if dim is not None else \
                    getattr(L, name)(a)
            cases.append(Case("%s_dim_%s%s" % (name, did, "_keepdim" if keepdim else ""), f,
                              [(2, 3, 4)], domain=domain))
    return cases


CASES = (
    _reduction_cases("sum")
    + _reduction_cases("mean")
    + [
        Case("sum_0d", lambda L, a: L.sum(a), [()]),
        Case("sum_of_square", lambda L, a: L.sum(a * a, 1), [(3, 4)]),
        Case("mean_of_exp", lambda L, a: L.mean(L.exp(a), (0, 1), True), [(3, 4)]),
        # max over everything and along a dim (no ties: distinct values)
        Case("max_all", lambda L, a: L.max(a), [(3, 4)], domain="distinct"),
        Case("max_dim0", lambda L, a: L.max(a, 0), [(3, 4)], domain="distinct"),
        Case("max_dim1_keepdim", lambda L, a: L.max(a, 1, True), [(3, 4)], domain="distinct"),
        Case("max_dim_neg1_3d", lambda L, a: L.max(a, -1), [(2, 3, 4)], domain="distinct"),
        Case("max_of_square", lambda L, a: L.max(a * a, 1), [(3, 4)], domain="distinct"),
        # logsumexp
        Case("logsumexp_dim0", lambda L, a: L.logsumexp(a, 0), [(3, 4)]),
        Case("logsumexp_dim1_keepdim", lambda L, a: L.logsumexp(a, 1, True), [(3, 4)]),
        Case("logsumexp_dim_neg1_3d", lambda L, a: L.logsumexp(a, -1), [(2, 3, 4)]),
        Case("logsumexp_tuple_dims", lambda L, a: L.logsumexp(a, (0, 2)), [(2, 3, 4)]),
        Case("logsumexp_1d", lambda L, a: L.logsumexp(a, 0), [(5,)]),
    ]
)



(test_values_match_numpy, test_first_derivatives_pass_gradcheck,
 test_second_derivatives_pass_gradgradcheck, test_values_and_gradients_match_torch,
 test_second_derivatives_match_torch, test_create_graph_gradient_equals_plain_gradient,
 test_variant) = standard_op_tests(CASES)


# --------------------------------------------------------------------------------
# Details
# --------------------------------------------------------------------------------

@pytest.mark.parametrize("keepdim", [False, True])
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_max_with_dim_returns_values_and_indices_namedtuple(dim, keepdim):
    a = np.array([[1.0, 5.0, 2.0], [7.0, 0.0, 3.0]])
    result = pyad.max(pyad.Variable(a), dim, keepdim=keepdim)
    values, indices = result
    assert result.values is values and result.indices is indices
    np.testing.assert_array_equal(values.data, np.max(a, axis=dim, keepdims=keepdim))
    np.testing.assert_array_equal(indices.data, np.argmax(a, axis=dim, keepdims=keepdim))
    assert indices.dtype == np.int64
    assert not indices.requires_grad


def test_max_method_with_dim_matches_function():
    x = pyad.Variable(np.array([[1.0, 5.0], [7.0, 2.0]]))
    np.testing.assert_array_equal(x.max(1).values.data, pyad.max(x, 1).values.data)
    np.testing.assert_array_equal(x.max(1).indices.data, [1, 0])


def test_max_without_dim_shares_gradient_evenly_between_ties():
    x = pyad.Variable(np.array([[1.0, 3.0], [3.0, 3.0]]), requires_grad=True)
    x.max().backward()
    np.testing.assert_allclose(x.grad.data, [[0.0, 1 / 3], [1 / 3, 1 / 3]])


def test_max_without_dim_tie_gradient_matches_torch():
    _, torch = torch_lib()
    a = np.array([[1.0, 3.0, 3.0], [0.0, 2.0, 3.0]])
    x = pyad.Variable(a, requires_grad=True)
    t = torch.tensor(a, requires_grad=True)
    (x.max() * 2.0).backward()
    (t.max() * 2.0).backward()
    np.testing.assert_allclose(x.grad.data, t.grad.numpy(), rtol=1e-12)


@pytest.mark.parametrize("keepdim", [False, True])
def test_max_with_dim_sends_gradient_to_the_returned_index_only(keepdim):
    a = np.array([[3.0, 1.0, 3.0], [2.0, 2.0, 0.0]])   # ties in both rows
    x = pyad.Variable(a, requires_grad=True)
    values, indices = pyad.max(x, 1, keepdim=keepdim)
    values.sum().backward()
    expected = np.zeros_like(a)
    idx = indices.data if not keepdim else indices.data[:, 0]
    expected[np.arange(2), idx] = 1.0
    np.testing.assert_array_equal(x.grad.data, expected)
    assert x.grad.data.sum() == 2.0


def test_max_with_dim_matches_torch_values_and_indices():
    _, torch = torch_lib()
    a = np.random.default_rng(0).standard_normal((3, 4, 5))
    for dim in (0, 1, 2, -1):
        r = pyad.max(pyad.Variable(a), dim)
        tr = torch.from_numpy(a).max(dim)
        np.testing.assert_array_equal(r.values.data, tr.values.numpy())
        np.testing.assert_array_equal(r.indices.data, tr.indices.numpy())


def test_max_of_0d_variable():
    x = pyad.Variable(np.array(2.5), requires_grad=True)
    x.max().backward()
    assert x.grad.data == 1.0


def test_max_of_empty_raises():
    with pytest.raises(RuntimeError):
        pyad.max(pyad.Variable(np.zeros((0,))))


@pytest.mark.parametrize("name", ["sum", "mean"])
def test_keepdim_keeps_reduced_axes_as_size_one(name):
    x = pyad.Variable(np.ones((2, 3, 4)), requires_grad=True)
    y = getattr(x, name)((0, 2), keepdim=True)
    assert y.shape == (1, 3, 1)
    y.sum().backward()
    assert x.grad.shape == (2, 3, 4)


@pytest.mark.parametrize("name", ["sum", "mean"])
def test_reduction_dim_out_of_range_raises_index_error(name):
    with pytest.raises(IndexError):
        getattr(pyad.Variable(np.ones((2, 3))), name)(2)


@pytest.mark.parametrize("dtype", [np.float16, np.float32])
@pytest.mark.parametrize("reduce", [
    lambda x: x.sum(1), lambda x: x.mean(1), lambda x: x.max(), lambda x: x.max(1).values,
    lambda x: pyad.logsumexp(x, 1)], ids=["sum", "mean", "max", "max_dim", "logsumexp"])
def test_reduction_keeps_low_precision_dtype(reduce, dtype):
    x = pyad.Variable(np.arange(6.0).reshape(2, 3).astype(dtype), requires_grad=True)
    y = reduce(x)
    assert y.dtype == dtype
    y.sum().backward()
    assert x.grad.dtype == dtype


def test_mean_of_integer_variable_raises():
    with pytest.raises(RuntimeError, match="dtype"):
        pyad.Variable(np.arange(3)).mean()


def test_logsumexp_is_stable_for_large_inputs():
    x = pyad.Variable(np.array([1000.0, 1000.0, -np.inf]), requires_grad=True)
    y = pyad.logsumexp(x, 0)
    np.testing.assert_allclose(y.data, 1000.0 + np.log(2.0))
    y.backward()
    np.testing.assert_allclose(x.grad.data, [0.5, 0.5, 0.0])


@pytest.mark.filterwarnings("ignore:divide by zero:RuntimeWarning")
def test_logsumexp_of_all_minus_inf_row_is_minus_inf():
    x = pyad.Variable(np.array([[-np.inf, -np.inf], [0.0, 0.0]]))
    y = pyad.logsumexp(x, 1)
    assert y.data[0] == -np.inf
    np.testing.assert_allclose(y.data[1], np.log(2.0))
