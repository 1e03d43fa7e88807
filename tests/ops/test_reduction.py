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
    np.testing.assert_allclose(x.grad.data, [[0.0, 1 / 3], [1 / 3, 1 / 3]], rtol=1e-15, atol=0)


def test_max_without_dim_tie_gradient_matches_torch():
    _, torch = torch_lib()
    a = np.array([[1.0, 3.0, 3.0], [0.0, 2.0, 3.0]])
    x = pyad.Variable(a, requires_grad=True)
    t = torch.tensor(a, requires_grad=True)
    (x.max() * 2.0).backward()
    (t.max() * 2.0).backward()
    np.testing.assert_allclose(x.grad.data, t.grad.numpy(), rtol=1e-12)


@pytest.mark.parametrize("keepdim", [False, True])
def test_max_with_dim_sends_gradient_to_the_first_maximum_only(keepdim):
    a = np.array([[3.0, 1.0, 3.0], [2.0, 2.0, 0.0]])   # ties in both rows
    x = pyad.Variable(a, requires_grad=True)
    values, indices = pyad.max(x, 1, keepdim=keepdim)
    # The first index of a tie, as NumPy's argmax and torch.
    np.testing.assert_array_equal(indices.data.reshape(2), [0, 0])
    values.sum().backward()
    np.testing.assert_array_equal(x.grad.data, [[1.0, 0.0, 0.0], [1.0, 0.0, 0.0]])


@pytest.mark.parametrize("keepdim", [False, True])
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_max_with_dim_ties_match_numpy_and_torch(dim, keepdim):
    _, torch = torch_lib()
    a = np.random.default_rng(4).integers(0, 3, size=(4, 5, 6)).astype(np.float64)
    x = pyad.Variable(a, requires_grad=True)
    t = torch.tensor(a, requires_grad=True)
    values, indices = pyad.max(x, dim, keepdim=keepdim)
    tvalues, tindices = t.max(dim, keepdim=keepdim)
    np.testing.assert_array_equal(indices.data, np.argmax(a, axis=dim, keepdims=keepdim))
    np.testing.assert_array_equal(indices.data, tindices.numpy())
    np.testing.assert_array_equal(values.data, tvalues.detach().numpy())
    w = np.random.default_rng(5).standard_normal(values.shape)
    values.backward(pyad.Variable(w))
    tvalues.backward(torch.from_numpy(w))
    np.testing.assert_array_equal(x.grad.data, t.grad.numpy())


def test_max_along_a_dim_of_size_zero_raises_like_torch():
    with pytest.raises(IndexError, match="max.*non-zero size"):
        pyad.max(pyad.Variable(np.zeros((3, 0))), 1)
    r = pyad.max(pyad.Variable(np.zeros((3, 0))), 0)
    assert r.values.shape == (0,) and r.indices.shape == (0,)


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
    np.testing.assert_array_equal(x.grad.data, np.full((2, 3, 4), 1.0 if name == "sum"
                                                       else 1 / 8))


@pytest.mark.parametrize("name", ["sum", "mean"])
def test_reduction_dim_out_of_range_raises_index_error(name):
    with pytest.raises(IndexError):
        getattr(pyad.Variable(np.ones((2, 3))), name)(2)


def _named(name, f):
    f.__name__ = name
    return f


@pytest.mark.parametrize("dtype", [np.float16, np.float32])
@pytest.mark.parametrize("reduce", [
    _named("sum", lambda x: x.sum(1)), _named("mean", lambda x: x.mean(1)),
    _named("max", lambda x: x.max()), _named("max_dim", lambda x: x.max(1).values),
    _named("logsumexp", lambda x: pyad.logsumexp(x, 1))],
    ids=["sum", "mean", "max", "max_dim", "logsumexp"])
def test_reduction_keeps_low_precision_dtype(reduce, dtype):
    a = np.arange(6.0).reshape(2, 3)
    x = pyad.Variable(a.astype(dtype), requires_grad=True)
    y = reduce(x)
    assert y.dtype == dtype
    y.sum().backward()
    assert x.grad.dtype == dtype
    softmax = np.exp(a - a.max(1, keepdims=True))
    softmax /= softmax.sum(1, keepdims=True)
    expected = {"sum": np.ones((2, 3)), "mean": np.full((2, 3), 1 / 3),
                "max": [[0, 0, 0], [0, 0, 1.0]], "max_dim": [[0, 0, 1.0], [0, 0, 1.0]],
                "logsumexp": softmax}[reduce.__name__]
    np.testing.assert_allclose(x.grad.data, expected, atol=0,
                               rtol=2e-3 if dtype == np.float16 else 1e-6)  # a few ulps


def test_mean_of_integer_variable_raises():
    with pytest.raises(RuntimeError, match="dtype"):
        pyad.Variable(np.arange(3)).mean()


def test_logsumexp_is_stable_for_large_inputs():
    x = pyad.Variable(np.array([1000.0, 1000.0, -np.inf]), requires_grad=True)
    y = pyad.logsumexp(x, 0)
    np.testing.assert_allclose(y.data, 1000.0 + np.log(2.0), rtol=1e-15, atol=0)
    y.backward()
    # exp(x - out) with out rounded near 1000 (ulp 1.1e-13)
    np.testing.assert_allclose(x.grad.data, [0.5, 0.5, 0.0], rtol=1e-12, atol=0)


@pytest.mark.filterwarnings("ignore:divide by zero:RuntimeWarning")
def test_logsumexp_of_all_minus_inf_row_is_minus_inf():
    x = pyad.Variable(np.array([[-np.inf, -np.inf], [0.0, 0.0]]))
    y = pyad.logsumexp(x, 1)
    assert y.data[0] == -np.inf
    np.testing.assert_allclose(y.data[1], np.log(2.0), rtol=1e-15, atol=0)
