"""Reductions: sum, mean (dim None / int / tuple / negative, keepdim), max and min (all
elements, and along a dim returning (values, indices)), amax, amin, argmax, argmin, prod,
all, any, count_nonzero, logsumexp."""
import numpy as np
import pytest

import pyad
from _ops_helpers import (Case, torch_lib, standard_op_tests)

# torch warns when var/std have n - correction <= 0 (tested on purpose here).
pytestmark = pytest.mark.filterwarnings("ignore:.*degrees of freedom is <= 0:UserWarning")

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


def _logcumsumexp(L, a, dim):
    if L.name == "numpy":
        return np.log(np.cumsum(np.exp(a.astype(np.float64)), axis=dim)).astype(a.dtype)
    return L.logcumsumexp(a, dim)


def _call(L, name, a, dim=None, keepdim=False):
    """``name`` over ``dim`` in torch's spelling; NumPy's twin takes axis/keepdims, and
    the values of a (values, indices) result."""
    if L.name == "numpy":
        return getattr(np, name)(a, axis=dim, keepdims=keepdim)
    r = getattr(L, name)(a, dim, keepdim) if dim is not None else getattr(L, name)(a)
    return r if isinstance(r, (pyad.Variable,)) or not isinstance(r, tuple) else r.values


def _cases(name, dims, domain="signed", shape=(2, 3, 4)):
    cases = []
    for dim in dims:
        for keepdim in ((False,) if dim is None else (False, True)):
            cases.append(Case("%s_dim_%s%s" % (name, str(dim).replace(" ", ""),
                                               "_keepdim" if keepdim else ""),
                              lambda L, a, dim=dim, keepdim=keepdim, name=name:
                              _call(L, name, a, dim, keepdim), [shape], domain=domain))
    return cases


def _var_call(L, name, a, dim=None, keepdim=False, correction=1):
    """var / std in torch's spelling; NumPy's take ddof (and divide by max(0, N - ddof))."""
    if L.name == "numpy":
        n = a.size if dim is None else int(np.prod([a.shape[d] for d in np.atleast_1d(dim)]))
        m = np.sum(a, axis=dim, keepdims=True) / n if n else 0
        with np.errstate(invalid="ignore", divide="ignore"):
            v = np.sum((a - m) ** 2, axis=dim, keepdims=keepdim) / max(0, n - correction)
        return np.sqrt(v) if name == "std" else v
    return getattr(L, name)(a, dim, keepdim=keepdim, correction=correction)


def _var_cases(name):
    cases = []
    for dim, keepdim, correction in [(None, False, 1), (None, False, 0), (0, False, 1),
                                     (-1, True, 1), ((0, 2), False, 0), ((2, 0), True, 2),
                                     (1, False, 1.5)]:
        cases.append(Case("%s_dim_%s%s_correction%s" % (
            name, str(dim).replace(" ", ""), "_keepdim" if keepdim else "", correction),
            lambda L, a, dim=dim, keepdim=keepdim, c=correction: _var_call(
                L, name, a, dim, keepdim, c), [(2, 3, 4)],
            # a 0-d input has var 0/0 = nan with correction 1 (no finite derivative)
            zero_d=None if correction == 0 else False))
    return cases


def _np_vector_norm(a, ord=2, dim=None, keepdim=False):
    dims = tuple(range(a.ndim)) if dim is None else tuple(np.atleast_1d(dim) % max(a.ndim, 1))
    if (ord < 0 or ord == np.inf) and any(a.shape[d] == 0 for d in dims) \
            or (ord < 0 or ord == np.inf) and a.size == 0 and dim is None:
        raise ValueError("no identity")          # torch raises too
    x = np.abs(a)
    if ord == np.inf:
        return np.max(x, axis=dims, keepdims=keepdim)
    if ord == -np.inf:
        return np.min(x, axis=dims, keepdims=keepdim)
    if ord == 0:
        return np.sum(x != 0, axis=dims, keepdims=keepdim).astype(a.dtype)
    return np.sum(x ** ord, axis=dims, keepdims=keepdim) ** (1.0 / ord)


def _vector_norm(L, a, ord, dim, keepdim):
    if L.name == "numpy":
        return _np_vector_norm(a, ord, dim, keepdim)
    return L.linalg.vector_norm(a, ord, dim, keepdim)


def _norm_cases():
    cases = []
    for ord in (2, 1, np.inf, -np.inf, 0, 3, 0.5, -1, 1.5):
        for dim, keepdim in [(None, False), (1, False), ((0, 2), True), (-1, True)]:
            cases.append(Case("vector_norm_%s_dim_%s%s" % (
                ord, str(dim).replace(" ", ""), "_keepdim" if keepdim else ""),
                lambda L, a, o=ord, d=dim, k=keepdim: _vector_norm(L, a, o, d, k),
                [(2, 3, 4)]))
    return cases


def _sort(L, a, dim, descending):
    if L.name == "numpy":
        out = np.sort(a, axis=dim)
        return np.flip(out, dim) if descending else out
    return L.sort(a, dim, descending).values


def _topk(L, a, k, dim, largest):
    if L.name == "numpy":
        out = np.sort(a, axis=dim)
        out = np.flip(out, dim) if largest else out
        return np.take(out, np.arange(k), axis=dim)
    return L.topk(a, k, dim, largest).values


def _kthvalue(L, a, k, dim, keepdim):
    if L.name == "numpy":
        out = np.take(np.sort(a, axis=dim), [k - 1], axis=dim)
        return out if keepdim else np.squeeze(out, dim)
    return L.kthvalue(a, k, dim, keepdim).values


def _median(L, a, dim=None, keepdim=False):
    """The lower median (torch's), not NumPy's mean of the two middle values."""
    if dim is None:
        if L.name == "numpy":
            return np.sort(a.reshape(-1))[(a.size - 1) // 2]
        return L.median(a)
    if L.name == "numpy":
        return _kthvalue(L, a, (a.shape[dim] - 1) // 2 + 1, dim, keepdim)
    return L.median(a, dim, keepdim).values


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
        # min like max; amax/amin over ints and tuples (no ties here, see the tests below)
        Case("min_all", lambda L, a: _call(L, "min", a), [(3, 4)], domain="distinct"),
    ]
    + _cases("min", [0, -1], "distinct")
    + _cases("amax", [None, 0, -1, (0, 2), (-1, 0)], "distinct")
    + _cases("amin", [None, 1, (0, 1, 2)], "distinct")
    + [Case("amin_of_square", lambda L, a: _call(L, "amin", a * a, (0, 1)), [(3, 4)],
            domain="distinct")]
    # prod over everything or one dim (zeros: the tests below)
    + _cases("prod", [None, 0, 1, -1])
    + _var_cases("var") + _var_cases("std")
    + [Case("std_of_exp", lambda L, a: _var_call(L, "std", L.exp(a), 1), [(3, 4)])]
    + _norm_cases()
    # (NumPy's cumsum of a 0-d array is 1-d: the 0-d case is tested vs torch below)
    + [Case("%s_dim_%s" % (name, dim), lambda L, a, n=name, d=dim: getattr(L, n)(a, d),
            [(2, 3, 4)], zero_d=False) for name in ("cumsum", "cumprod") for dim in (0, 1, -1)]
    + [Case("cumprod_of_exp_1d", lambda L, a: L.cumprod(L.exp(a), 0), [(5,)], zero_d=False)]
    # logcumsumexp: NumPy's reference is log(cumsum(exp)) in float64 (small inputs; the
    # extreme ones are tested below)
    + [Case("logcumsumexp_dim_%s" % dim, lambda L, a, d=dim: _logcumsumexp(L, a, d),
            [(2, 3, 4)], zero_d=False) for dim in (0, 1, -1)]
    # sorting and selection (distinct values: no ties; ties are tested below)
    + [Case("sort_dim_%s%s" % (dim, "_desc" if desc else ""),
            lambda L, a, d=dim, desc=desc: _sort(L, a, d, desc), [(2, 3, 4)],
            domain="distinct", zero_d=False) for dim in (0, -1) for desc in (False, True)]
    + [Case("topk_%d_dim_%s%s" % (k, dim, "" if largest else "_smallest"),
            lambda L, a, k=k, d=dim, lg=largest: _topk(L, a, k, d, lg), [(2, 3, 4)],
            domain="distinct", zero_d=False, empty=False)
       for k, dim, largest in [(2, -1, True), (1, 0, False), (3, 1, True), (0, 1, True)]]
    + [Case("kthvalue_%d_dim_%s%s" % (k, dim, "_keepdim" if kd else ""),
            lambda L, a, k=k, d=dim, kd=kd: _kthvalue(L, a, k, d, kd), [(2, 3, 4)],
            domain="distinct", zero_d=False, empty=False)
       for k, dim, kd in [(1, -1, False), (2, 1, True), (2, 0, False)]]
    + [Case("median_all", lambda L, a: _median(L, a), [(3, 5)], domain="distinct",
            zero_d=False, empty=False),
       Case("median_all_even", lambda L, a: _median(L, a), [(2, 3)], domain="distinct",
            zero_d=False, empty=False)]
    + [Case("median_dim_%s%s" % (dim, "_keepdim" if kd else ""),
            lambda L, a, d=dim, kd=kd: _median(L, a, d, kd), [shape], domain="distinct",
            zero_d=False, empty=False)
       for dim, kd, shape in [(0, False, (3, 4)), (1, True, (3, 4)), (-1, False, (2, 3, 4))]]
    + [Case("vector_norm_of_exp", lambda L, a: _vector_norm(L, L.exp(a), 2.5, 0, False),
            [(3, 4)])]
    + [
        Case("prod_of_exp", lambda L, a: _call(L, "prod", L.exp(a), 0, True), [(3, 4)]),
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


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_logsumexp_rows_with_non_finite_or_huge_values_match_torch(dtype):
    # Rows: +inf, nan, all -inf, -inf beside a number, mixed +-inf, and finite maxima
    # whose sum overflows (the common path's finiteness test must fall back, not fail).
    big = np.finfo(dtype).max / 2
    rows = np.array([[np.inf, 1.0], [np.nan, 1.0], [-np.inf, -np.inf], [-np.inf, 0.0],
                     [np.inf, -np.inf], [big, big], [big, 0.0], [2.0, 3.0]], dtype=dtype)
    y = pyad.logsumexp(pyad.Variable(rows), 1)
    assert y.dtype == dtype
    expected = [np.inf, np.nan, -np.inf, 0.0, np.inf, big + np.log(2.0), big,
                3.0 + np.log1p(np.exp(-1.0))]
    np.testing.assert_allclose(y.data, np.array(expected, dtype=dtype), rtol=1e-6)
    torch = pytest.importorskip("torch")
    np.testing.assert_allclose(y.data, torch.logsumexp(torch.from_numpy(rows), 1).numpy(),
                               rtol=1e-6)


# --------------------------------------------------------------------------------
# min, amax / amin, argmax / argmin
# --------------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["max", "min"])
@pytest.mark.parametrize("keepdim", [False, True])
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_extremum_with_dim_ties_match_torch(name, dim, keepdim):
    _, torch = torch_lib()
    a = np.random.default_rng(4).integers(0, 3, size=(4, 5, 6)).astype(np.float64)
    x = pyad.Variable(a, requires_grad=True)
    t = torch.tensor(a, requires_grad=True)
    result = getattr(pyad, name)(x, dim, keepdim=keepdim)
    values, indices = result
    assert type(result).__name__ == name and result.values is values
    tvalues, tindices = getattr(t, name)(dim, keepdim=keepdim)
    np.testing.assert_array_equal(indices.data, tindices.numpy())
    np.testing.assert_array_equal(values.data, tvalues.detach().numpy())
    assert indices.dtype == np.int64 and not indices.requires_grad
    w = np.random.default_rng(5).standard_normal(values.shape)
    values.backward(pyad.Variable(w))
    tvalues.backward(torch.from_numpy(w))
    np.testing.assert_array_equal(x.grad.data, t.grad.numpy())


def test_min_without_dim_shares_gradient_evenly_between_ties_like_torch():
    _, torch = torch_lib()
    a = np.array([[1.0, 3.0, 1.0], [1.0, 2.0, 3.0]])
    x = pyad.Variable(a, requires_grad=True)
    t = torch.tensor(a, requires_grad=True)
    (x.min() * 3.0).backward()
    (t.min() * 3.0).backward()
    np.testing.assert_allclose(x.grad.data, t.grad.numpy(), rtol=1e-15, atol=0)
    np.testing.assert_allclose(x.grad.data, [[1, 0, 1], [1, 0, 0]], rtol=1e-15, atol=0)


def test_min_errors_like_torch():
    with pytest.raises(RuntimeError, match="min.*numel"):
        pyad.min(pyad.Variable(np.zeros((0, 2))))
    with pytest.raises(IndexError, match="min.*non-zero size"):
        pyad.min(pyad.Variable(np.zeros((2, 0))), 1)
    with pytest.raises(IndexError, match="min.*out of range"):
        pyad.min(pyad.Variable(np.zeros((2, 3))), 2)
    with pytest.raises(TypeError, match="min"):
        pyad.min(pyad.Variable(np.zeros(2)), 1.5)


def test_extremum_node_refuses_a_second_backward():
    x = pyad.Variable(np.array([1.0, 3.0]), requires_grad=True)
    for y in (x.min(), x.min(0).values, pyad.amax(x, 0)):
        y.backward()
        with pytest.raises(RuntimeError, match="second time"):
            y.backward()


@pytest.mark.parametrize("name", ["amax", "amin"])
@pytest.mark.parametrize("dim, keepdim", [(None, False), (0, False), (1, True), ((0, 2), False),
                                          ((-1, 0), True), ((), False)])
def test_amax_amin_ties_split_the_gradient_like_torch(name, dim, keepdim):
    _, torch = torch_lib()
    a = np.random.default_rng(6).integers(0, 3, size=(3, 4, 5)).astype(np.float64)
    x = pyad.Variable(a, requires_grad=True)
    t = torch.tensor(a, requires_grad=True)
    kwargs = {} if dim is None else {"dim": dim, "keepdim": keepdim}
    y = getattr(pyad, name)(x, **kwargs)
    ty = getattr(torch, name)(t, **kwargs)
    np.testing.assert_array_equal(y.data, ty.detach().numpy())
    w = np.random.default_rng(7).standard_normal(y.shape)
    gx, = pyad.grad(y, [x], pyad.Variable(w), create_graph=True)
    gt, = torch.autograd.grad(ty, [t], torch.from_numpy(w), create_graph=True)
    np.testing.assert_allclose(gx.data, gt.detach().numpy(), rtol=1e-14, atol=0)
    assert getattr(x, name)(**kwargs).shape == tuple(ty.shape)


@pytest.mark.parametrize("name", ["amax", "amin"])
def test_amax_amin_errors_like_torch(name):
    f = getattr(pyad, name)
    with pytest.raises(RuntimeError, match=name + ".*numel"):
        f(pyad.Variable(np.zeros((0, 2))))
    with pytest.raises(IndexError, match=name + ".*non-zero size"):
        f(pyad.Variable(np.zeros((0, 2))), (0, 1))
    assert f(pyad.Variable(np.zeros((0, 2))), 1).shape == (0,)
    with pytest.raises(RuntimeError, match=name + ".*multiple times"):
        f(pyad.Variable(np.zeros((3, 2))), (0, 0))


@pytest.mark.parametrize("name", ["argmax", "argmin"])
@pytest.mark.parametrize("dim, keepdim", [(None, False), (None, True), (0, False), (1, True),
                                          (-1, False), (-1, True)])
def test_argmax_argmin_match_torch_with_ties(name, dim, keepdim):
    _, torch = torch_lib()
    a = np.random.default_rng(8).integers(0, 3, size=(4, 5, 6)).astype(np.float64)
    a = a.transpose(2, 0, 1)                      # non-contiguous
    for dtype in (np.float64, np.float32, np.int64):
        y = getattr(pyad, name)(pyad.Variable(a.astype(dtype)), dim, keepdim)
        ty = getattr(torch, name)(torch.from_numpy(a.astype(dtype)), dim, keepdim)
        assert y.dtype == np.int64 and not y.requires_grad
        assert y.shape == tuple(ty.shape)
        np.testing.assert_array_equal(y.data, ty.numpy())
    x = pyad.Variable(a, requires_grad=True)
    assert getattr(x, name)(dim, keepdim).grad_fn is None


@pytest.mark.parametrize("name", ["argmax", "argmin"])
def test_argmax_argmin_of_0d_and_empty_like_torch(name):
    _, torch = torch_lib()
    for dim, keepdim in [(None, False), (0, False), (0, True), (-1, True)]:
        y = getattr(pyad, name)(pyad.Variable(np.array(2.0)), dim, keepdim)
        ty = getattr(torch, name)(torch.tensor(2.0), dim, keepdim)
        assert y.shape == tuple(ty.shape) and y.item() == ty.item()
    assert getattr(pyad, name)(pyad.Variable(np.zeros((0, 3))), 1).shape == (0,)
    with pytest.raises(IndexError, match=name + ".*numel"):
        getattr(pyad, name)(pyad.Variable(np.zeros((0, 3))))
    with pytest.raises(IndexError, match=name + ".*non-zero size"):
        getattr(pyad, name)(pyad.Variable(np.zeros((0, 3))), 0)
    with pytest.raises(IndexError, match=name + ".*out of range"):
        getattr(pyad, name)(pyad.Variable(np.zeros((2, 3))), 2)


# --------------------------------------------------------------------------------
# prod: zeros
# --------------------------------------------------------------------------------

PROD_ZEROS = [
    np.array([[2.0, 0.0, 3.0], [1.5, -2.0, 0.5]]),          # one zero
    np.array([[2.0, 0.0, 0.0], [0.0, -2.0, 0.5]]),          # two zeros in a row
    np.array([[0.0, 0.0, 0.0], [0.0, 1.0, 0.0]]),           # zeros everywhere
    np.array([[0.0, 1.5, -3.0], [2.0, 0.5, 0.0]]).T,        # one per column, non-contiguous
]


@pytest.mark.parametrize("a", PROD_ZEROS, ids=["one", "two", "many", "noncontig"])
@pytest.mark.parametrize("dim, keepdim", [(None, False), (0, False), (1, True), (-1, False)])
def test_prod_with_zeros_first_and_second_derivatives_match_torch(a, dim, keepdim):
    _, torch = torch_lib()
    x = pyad.Variable(a, requires_grad=True)
    t = torch.from_numpy(a).requires_grad_(True)
    y = pyad.prod(x) if dim is None else pyad.prod(x, dim, keepdim)
    ty = t.prod() if dim is None else t.prod(dim, keepdim)
    np.testing.assert_array_equal(y.data, ty.detach().numpy())
    rng = np.random.default_rng(9)
    w = rng.standard_normal(y.shape)
    plain, = pyad.grad(y, [x], pyad.Variable(w), retain_graph=True)
    g, = pyad.grad(y, [x], pyad.Variable(w), create_graph=True)
    tg, = torch.autograd.grad(ty, [t], torch.from_numpy(w), create_graph=True)
    np.testing.assert_allclose(plain.data, tg.detach().numpy(), rtol=1e-14, atol=0)
    np.testing.assert_allclose(g.data, tg.detach().numpy(), rtol=1e-14, atol=0)
    v = rng.standard_normal(a.shape)
    g2, = pyad.grad((g * pyad.Variable(v)).sum(), [x])
    tg2, = torch.autograd.grad((tg * torch.from_numpy(v)).sum(), [t])
    np.testing.assert_allclose(g2.data, tg2.numpy(), rtol=1e-13, atol=1e-15)


@pytest.mark.parametrize("a", PROD_ZEROS, ids=["one", "two", "many", "noncontig"])
@pytest.mark.parametrize("dim", [None, 0, 1])
def test_prod_with_zeros_passes_gradcheck_and_gradgradcheck(a, dim):
    from pyad.autograd import gradcheck, gradgradcheck
    x = pyad.Variable(a.copy(), requires_grad=True)
    f = (lambda x: pyad.prod(x)) if dim is None else (lambda x: pyad.prod(x, dim))
    assert gradcheck(f, (x,))
    assert gradgradcheck(f, (x,))


def test_prod_gradient_at_a_single_zero_is_the_product_of_the_others():
    x = pyad.Variable(np.array([[2.0, 0.0, 3.0], [0.0, 0.0, 5.0]]), requires_grad=True)
    pyad.prod(x, 1).sum().backward()
    np.testing.assert_array_equal(x.grad.data, [[0.0, 6.0, 0.0], [0.0, 0.0, 0.0]])


def test_prod_dtypes_and_errors_like_torch():
    _, torch = torch_lib()
    for dtype in (np.int32, np.int64, np.bool_):
        a = np.array([[1, 2, 3], [1, 0, 2]], dtype=dtype)
        for dim in (None, 1):
            y = pyad.prod(pyad.Variable(a)) if dim is None else pyad.prod(pyad.Variable(a), dim)
            ty = torch.from_numpy(a).prod() if dim is None else torch.from_numpy(a).prod(dim)
            assert y.dtype == ty.numpy().dtype
            np.testing.assert_array_equal(y.data, ty.numpy())
    y = pyad.prod(pyad.Variable(np.array([2.0, 3.0])), 0, dtype=np.float32)
    assert y.dtype == np.float32 and y.item() == 6.0
    with pytest.raises(TypeError, match="prod"):
        pyad.prod(pyad.Variable(np.ones((2, 3))), (0, 1))
    with pytest.raises(IndexError, match="prod.*out of range"):
        pyad.prod(pyad.Variable(np.ones((2, 3))), 2)


def test_prod_saved_values_are_freed_after_backward():
    x = pyad.Variable(np.array([2.0, 0.0, 3.0]), requires_grad=True)
    y = pyad.prod(x)
    y.backward()
    with pytest.raises(RuntimeError, match="second time"):
        y.backward()


# --------------------------------------------------------------------------------
# all, any, count_nonzero
# --------------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["all", "any", "count_nonzero"])
@pytest.mark.parametrize("dim, keepdim", [(None, False), (0, False), (1, True), (-1, False),
                                          ((0, 2), False), ((0, 2), True), ((), False)])
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64, np.bool_, np.uint8])
def test_logical_reductions_match_torch(name, dim, keepdim, dtype):
    _, torch = torch_lib()
    if name == "count_nonzero" and (keepdim or dim == ()):
        return            # torch's count_nonzero has no keepdim and refuses dim=()
    a = np.random.default_rng(10).integers(0, 2, size=(3, 4, 5)).astype(dtype)
    a[0] = 1
    a = a[:, :, ::-1]                             # non-contiguous
    args = () if dim is None else (dim,) if name == "count_nonzero" else (dim, keepdim)
    y = getattr(pyad, name)(pyad.Variable(a), *args)
    ty = getattr(torch, name)(torch.from_numpy(a.copy()), *args)
    assert y.dtype == ty.numpy().dtype and y.shape == tuple(ty.shape)
    np.testing.assert_array_equal(y.data, ty.numpy())
    assert getattr(pyad.Variable(a), name)(*args).shape == y.shape


@pytest.mark.parametrize("name", ["all", "any", "count_nonzero"])
def test_logical_reductions_of_0d_and_empty_like_torch(name):
    _, torch = torch_lib()
    for a, dim in [(np.array(0.0), None), (np.array(2.0), 0), (np.zeros((0, 3)), None),
                   (np.zeros((0, 3)), 0), (np.zeros((0, 3)), 1)]:
        args = () if dim is None else (dim,)
        y = getattr(pyad, name)(pyad.Variable(a), *args)
        ty = getattr(torch, name)(torch.from_numpy(a), *args)
        assert y.dtype == ty.numpy().dtype and y.shape == tuple(ty.shape)
        np.testing.assert_array_equal(y.data, ty.numpy())
    with pytest.raises(IndexError, match=name + ".*out of range"):
        getattr(pyad, name)(pyad.Variable(np.zeros((2, 3))), 2)
    x = pyad.Variable(np.ones(3), requires_grad=True)
    assert not getattr(pyad, name)(x).requires_grad


# --------------------------------------------------------------------------------
# var, std, var_mean, std_mean
# --------------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["var", "std", "var_mean", "std_mean"])
@pytest.mark.parametrize("args, kwargs", [
    ((), {}), ((False,), {}), ((True,), {}), ((1,), {}), ((1, False), {}),
    ((1, True, True), {}), (((0, 2),), {"unbiased": False, "keepdim": True}),
    ((-1,), {"correction": 0}), ((None,), {"correction": 2, "keepdim": True}),
    ((), {"dim": [0, 1], "correction": 0.5}),
], ids=lambda v: str(v).replace(" ", ""))
def test_var_std_overloads_match_torch(name, args, kwargs):
    _, torch = torch_lib()
    a = np.random.default_rng(11).standard_normal((3, 4, 5))
    x = pyad.Variable(a, requires_grad=True)
    t = torch.from_numpy(a).requires_grad_(True)
    out = getattr(pyad, name)(x, *args, **kwargs)
    tout = getattr(torch, name)(t, *args, **kwargs)
    method = getattr(x, name)(*args, **kwargs)
    if name.endswith("_mean"):
        assert isinstance(out, tuple) and len(out) == 2
    else:
        out, tout, method = (out,), (tout,), (method,)
    for y, ty, m in zip(out, tout, method):
        assert y.shape == tuple(ty.shape)
        np.testing.assert_allclose(y.data, ty.detach().numpy(), rtol=1e-13, atol=0)
        np.testing.assert_array_equal(m.data, y.data)
    ws = [np.random.default_rng(12).standard_normal(y.shape) for y in out]
    loss = sum((y * pyad.Variable(w)).sum() for y, w in zip(out, ws))
    tloss = sum((ty * torch.from_numpy(w)).sum() for ty, w in zip(tout, ws))
    g, = pyad.grad(loss, [x])
    tg, = torch.autograd.grad(tloss, [t])
    np.testing.assert_allclose(g.data, tg.numpy(), rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("name", ["var", "std"])
@pytest.mark.parametrize("dim", [None, 1, (0, 1)])
def test_var_std_at_zero_spread_match_torch(name, dim):
    """Constant slices: std 0 (torch's gradient there is 0), and too few elements for
    the correction (n - correction <= 0: inf / nan)."""
    _, torch = torch_lib()
    a = np.array([[2.0, 2.0, 2.0], [1.0, -0.5, 3.0]])
    for correction in (0, 1, 3, 4):
        x = pyad.Variable(a, requires_grad=True)
        t = torch.from_numpy(a).requires_grad_(True)
        kwargs = {"correction": correction} if dim is None else {"dim": dim,
                                                                  "correction": correction}
        with np.errstate(all="raise"):          # no NumPy warnings escape
            y = getattr(pyad, name)(x, **kwargs)
        ty = getattr(torch, name)(t, **kwargs)
        np.testing.assert_allclose(y.data, ty.detach().numpy(), rtol=1e-14, atol=0)
        w = np.random.default_rng(13).standard_normal(y.shape)
        with np.errstate(all="raise"):
            g, = pyad.grad(y, [x], pyad.Variable(w), create_graph=True)
        tg, = torch.autograd.grad(ty, [t], torch.from_numpy(w), create_graph=True)
        np.testing.assert_allclose(g.data, tg.detach().numpy(), rtol=1e-13, atol=1e-15)
        if correction == 0 and name == "var":
            v = np.random.default_rng(14).standard_normal(a.shape)
            g2, = pyad.grad((g * pyad.Variable(v)).sum(), [x])
            tg2, = torch.autograd.grad((tg * torch.from_numpy(v)).sum(), [t])
            np.testing.assert_allclose(g2.data, tg2.numpy(), rtol=1e-13, atol=1e-15)


def test_std_gradient_is_zero_where_std_is_zero():
    x = pyad.Variable(np.array([[3.0, 3.0], [1.0, 2.0]]), requires_grad=True)
    x.std(1).sum().backward()
    np.testing.assert_allclose(x.grad.data, [[0.0, 0.0], [-np.sqrt(0.5), np.sqrt(0.5)]],
                               rtol=1e-15, atol=0)


@pytest.mark.parametrize("name", ["var", "std"])
def test_var_std_errors(name):
    f = getattr(pyad, name)
    with pytest.raises(RuntimeError, match=name + ".*floating point"):
        f(pyad.Variable(np.arange(3)))
    # (torch's signature has no overload with both: TypeError)
    with pytest.raises(TypeError, match=name + ".*both unbiased and correction"):
        f(pyad.Variable(np.ones(3)), 0, True, correction=1)
    with pytest.raises(IndexError, match=name + ".*out of range"):
        f(pyad.Variable(np.ones(3)), 1)


@pytest.mark.parametrize("name", ["var", "std"])
def test_var_std_of_empty_and_0d_like_torch(name):
    _, torch = torch_lib()
    for a, dim in [(np.zeros((0, 3)), None), (np.zeros((0, 3)), 0), (np.zeros((0, 3)), 1),
                   (np.array(1.5), None), (np.array(1.5), 0)]:
        x = pyad.Variable(a, requires_grad=True)
        t = torch.from_numpy(a).requires_grad_(True)
        with np.errstate(all="raise"):
            y = getattr(pyad, name)(x, dim)
        ty = getattr(torch, name)(t, dim)
        assert y.shape == tuple(ty.shape) and y.dtype == a.dtype
        np.testing.assert_allclose(y.data, ty.detach().numpy(), rtol=1e-15, atol=0)
        w = np.ones(y.shape)
        g, = pyad.grad(y, [x], pyad.Variable(w))
        tg, = torch.autograd.grad(ty, [t], torch.from_numpy(w))
        np.testing.assert_allclose(g.data, tg.numpy(), rtol=1e-15, atol=0)


# --------------------------------------------------------------------------------
# norm, linalg.norm, linalg.vector_norm
# --------------------------------------------------------------------------------

@pytest.mark.parametrize("ord", [2, 1, np.inf, -np.inf, 0, 3, 0.5, -1, 1.5])
@pytest.mark.parametrize("dim", [None, 1])
def test_vector_norm_at_zeros_matches_torch(ord, dim):
    """Zero entries and a zero row: torch's subgradients (0 for p=2 at the zero vector,
    sign(0) = 0 for p=1, masked |x|^(p-1) for p < 1)."""
    _, torch = torch_lib()
    a = np.array([[0.0, 0.0, 0.0], [1.5, 0.0, -2.0], [0.5, -0.5, 0.0]])
    x = pyad.Variable(a, requires_grad=True)
    t = torch.from_numpy(a).requires_grad_(True)
    with np.errstate(all="raise"):
        y = pyad.linalg.vector_norm(x, ord, dim)
    ty = torch.linalg.vector_norm(t, ord, dim)
    np.testing.assert_allclose(y.data, ty.detach().numpy(), rtol=1e-14, atol=0)
    w = np.random.default_rng(15).standard_normal(y.shape)
    with np.errstate(all="raise"):
        g, = pyad.grad(y, [x], pyad.Variable(w), allow_unused=True)
    tg, = torch.autograd.grad(ty, [t], torch.from_numpy(w), allow_unused=True)
    if tg is None:
        assert g is None and ord == 0
    else:
        np.testing.assert_allclose(g.data, tg.numpy(), rtol=1e-14, atol=0)


def test_vector_norm_of_zero_vector_has_zero_gradient():
    x = pyad.Variable(np.zeros((2, 3)), requires_grad=True)
    pyad.linalg.vector_norm(x, dim=1).sum().backward()
    np.testing.assert_array_equal(x.grad.data, np.zeros((2, 3)))
    x = pyad.Variable(np.zeros(3), requires_grad=True)
    g, = pyad.grad(x.norm(), [x], create_graph=True)
    np.testing.assert_array_equal(g.data, np.zeros(3))
    h, = pyad.grad(g.sum(), [x])            # finite second derivatives (torch: nan)
    assert np.all(np.isfinite(h.data))


@pytest.mark.parametrize("ord", [np.inf, -np.inf])
def test_inf_norm_ties_share_the_gradient_like_torch(ord):
    _, torch = torch_lib()
    a = np.array([[2.0, -2.0, 1.0], [-1.0, 1.0, 1.0]])
    for dim in (None, 1, 0):
        x = pyad.Variable(a, requires_grad=True)
        t = torch.from_numpy(a).requires_grad_(True)
        y = pyad.linalg.vector_norm(x, ord, dim)
        ty = torch.linalg.vector_norm(t, ord, dim)
        w = np.random.default_rng(16).standard_normal(y.shape)
        g, = pyad.grad(y, [x], pyad.Variable(w))
        tg, = torch.autograd.grad(ty, [t], torch.from_numpy(w))
        np.testing.assert_allclose(g.data, tg.numpy(), rtol=1e-15, atol=0)


@pytest.mark.parametrize("args, kwargs", [
    ((), {}), (("fro",), {}), (("fro", 1), {}), (("fro", (0, 1)), {"keepdim": True}),
    ((1,), {}), ((3, 0), {}), ((np.inf, (0, 2)), {}), ((2.5, -1, True), {}),
    ((), {"p": 0.5, "dim": [1]}),
], ids=lambda v: str(v).replace(" ", ""))
def test_norm_overloads_match_torch(args, kwargs):
    _, torch = torch_lib()
    a = np.random.default_rng(17).standard_normal((3, 4, 5))
    x = pyad.Variable(a, requires_grad=True)
    t = torch.from_numpy(a).requires_grad_(True)
    y = pyad.norm(x, *args, **kwargs)
    ty = torch.norm(t, *args, **kwargs)
    assert y.shape == tuple(ty.shape)
    np.testing.assert_allclose(y.data, ty.detach().numpy(), rtol=1e-13, atol=0)
    np.testing.assert_array_equal(x.norm(*args, **kwargs).data, y.data)
    w = np.random.default_rng(18).standard_normal(y.shape).astype(y.dtype)
    g, = pyad.grad(y, [x], pyad.Variable(w))
    tg, = torch.autograd.grad(ty, [t], torch.from_numpy(w))
    np.testing.assert_allclose(g.data, tg.numpy(), rtol=1e-12, atol=0)


def test_norm_dtype_widens_like_torch():
    _, torch = torch_lib()
    a = np.random.default_rng(22).standard_normal((3, 4)).astype(np.float32)
    x = pyad.Variable(a, requires_grad=True)
    t = torch.from_numpy(a).requires_grad_(True)
    y = pyad.linalg.vector_norm(x, 3, 1, dtype=np.float64)
    ty = torch.linalg.vector_norm(t, 3, 1, dtype=torch.float64)
    assert y.dtype == np.float64
    np.testing.assert_allclose(y.data, ty.detach().numpy(), rtol=1e-13, atol=0)
    y.sum().backward()
    ty.sum().backward()
    assert x.grad.dtype == np.float32
    np.testing.assert_allclose(x.grad.data, t.grad.numpy(), rtol=1e-6, atol=0)
    with pytest.raises(RuntimeError, match="norm.*narrowing"):
        pyad.norm(pyad.Variable(a.astype(np.float64)), 2, dtype=np.float32)


@pytest.mark.parametrize("shape, args", [
    ((5,), ()), ((5,), (1,)), ((5,), (np.inf,)), ((5,), (-1,)), ((5,), (0.5,)),
    ((3, 4), ()), ((3, 4), ("fro",)), ((3, 4), (1,)), ((3, 4), (-1,)), ((3, 4), (np.inf,)),
    ((3, 4), (-np.inf,)), ((2, 3, 4), ()), ((2, 3, 4), (None, 1)), ((2, 3, 4), (3, -1, True)),
    ((2, 3, 4), (1, (0, 2))), ((2, 3, 4), (np.inf, (2, 1), True)), ((2, 3, 4), ("fro", (0, 1))),
    ((2, 3, 4), (None, (2, 0))),
    # through the singular values
    ((3, 4), (2,)), ((3, 4), (-2,)), ((4, 3), ("nuc",)), ((3, 3), (2, None, True)),
    ((2, 3, 4), (2, (2, 0))), ((2, 3, 4), (-2, (1, 2), True)), ((2, 3, 4), ("nuc", (0, 2))),
    ((2, 3, 4), ("nuc", (2, 1), True)),
], ids=lambda v: str(v).replace(" ", ""))
def test_linalg_norm_matches_torch(shape, args):
    _, torch = torch_lib()
    a = np.random.default_rng(19).standard_normal(shape)
    x = pyad.Variable(a, requires_grad=True)
    t = torch.from_numpy(a).requires_grad_(True)
    y = pyad.linalg.norm(x, *args)
    ty = torch.linalg.norm(t, *args)
    assert y.shape == tuple(ty.shape)
    np.testing.assert_allclose(y.data, ty.detach().numpy(), rtol=1e-13, atol=0)
    w = np.random.default_rng(20).standard_normal(y.shape)
    g, = pyad.grad(y, [x], pyad.Variable(w), create_graph=True)
    tg, = torch.autograd.grad(ty, [t], torch.from_numpy(w), create_graph=True)
    np.testing.assert_allclose(g.data, tg.detach().numpy(), rtol=1e-12, atol=1e-15)
    if g.requires_grad and tg.requires_grad:
        v = np.random.default_rng(21).standard_normal(shape)
        g2, = pyad.grad((g * pyad.Variable(v)).sum(), [x], allow_unused=True)
        tg2, = torch.autograd.grad((tg * torch.from_numpy(v)).sum(), [t], allow_unused=True)
        if tg2 is None:
            assert g2 is None or not np.any(g2.data)
        else:
            # (torch's may be one of its ZeroTensors: numpy() needs force=True)
            np.testing.assert_allclose(g2.data, tg2.numpy(force=True), rtol=1e-11, atol=1e-14)


@pytest.mark.parametrize("shape, args, kwargs", [
    ((3, 4), (), {}), ((3, 4), ("nuc",), {}), ((3, 4), (2,), {}), ((4, 3), (-2,), {}),
    ((2, 3, 4), (2,), {"keepdim": True}), ((2, 3, 4), ("nuc", (0, 2)), {}),
    ((2, 3, 4), (-2, (2, 0), True), {}), ((2, 4, 3), (1,), {}), ((2, 4, 3), (-np.inf,), {}),
], ids=lambda v: str(v).replace(" ", ""))
def test_linalg_matrix_norm_matches_torch_and_finite_differences(shape, args, kwargs):
    _, torch = torch_lib()
    a = np.random.default_rng(23).standard_normal(shape)
    x = pyad.Variable(a, requires_grad=True)
    t = torch.from_numpy(a).requires_grad_(True)
    y = pyad.linalg.matrix_norm(x, *args, **kwargs)
    ty = torch.linalg.matrix_norm(t, *args, **kwargs)
    assert y.shape == tuple(ty.shape)
    np.testing.assert_allclose(y.data, ty.detach().numpy(), rtol=1e-13, atol=0)
    w = np.random.default_rng(24).standard_normal(y.shape)
    g, = pyad.grad(y, [x], pyad.Variable(w), create_graph=True)
    tg, = torch.autograd.grad(ty, [t], torch.from_numpy(w), create_graph=True)
    np.testing.assert_allclose(g.data, tg.detach().numpy(), rtol=1e-12, atol=1e-15)
    if g.requires_grad and tg.requires_grad:    # 1 / inf: piecewise linear, no 2nd order
        v = np.random.default_rng(25).standard_normal(shape)
        g2, = pyad.grad((g * pyad.Variable(v)).sum(), [x])
        tg2, = torch.autograd.grad((tg * torch.from_numpy(v)).sum(), [t])
        np.testing.assert_allclose(g2.data, tg2.numpy(force=True), rtol=1e-10,
                                   atol=1e-13)  # (torch's may be a ZeroTensor)
    f = lambda z: pyad.linalg.matrix_norm(z, *args, **kwargs)  # noqa: E731
    assert pyad.autograd.gradcheck(f, (x,))
    assert pyad.autograd.gradgradcheck(f, (x,))


def test_nuclear_norm_of_torch_norm_matches_torch():
    _, torch = torch_lib()
    a = np.random.default_rng(26).standard_normal((3, 5))
    x = pyad.Variable(a, requires_grad=True)
    t = torch.from_numpy(a).requires_grad_(True)
    y = pyad.norm(x, "nuc")
    ty = torch.norm(t, "nuc")
    np.testing.assert_allclose(y.data, ty.detach().numpy(), rtol=1e-13)
    y.backward()
    ty.backward()
    np.testing.assert_allclose(x.grad.data, t.grad.numpy(), rtol=1e-12, atol=1e-15)


def test_norm_errors():
    x = pyad.Variable(np.ones((2, 3, 4)))
    with pytest.raises(RuntimeError, match="vector_norm.*floating point"):
        pyad.linalg.vector_norm(pyad.Variable(np.arange(3)))
    with pytest.raises(RuntimeError, match="vector_norm cannot compute the inf norm"):
        pyad.linalg.vector_norm(pyad.Variable(np.zeros((0, 3))), np.inf)
    with pytest.raises(RuntimeError, match="vector_norm cannot compute the -1 norm on the dim"):
        pyad.linalg.vector_norm(pyad.Variable(np.zeros((0, 3))), -1, 0)
    assert pyad.linalg.vector_norm(pyad.Variable(np.zeros((0, 3))), -1, 1).shape == (0,)
    with pytest.raises(TypeError, match="vector_norm.*ord"):
        pyad.linalg.vector_norm(x, "fro")
    with pytest.raises(RuntimeError, match=r"^norm\(\): the nuclear norm of a 3D input"):
        pyad.norm(x, "nuc")
    with pytest.raises(RuntimeError, match=r"^norm\(\): p='bad' is not supported"):
        pyad.norm(x, "bad")
    with pytest.raises(RuntimeError, match=r"^linalg.matrix_norm\(\): Order bad"):
        pyad.linalg.norm(x, "bad", (0, 1))
    with pytest.raises(RuntimeError, match=r"^linalg.matrix_norm\(\): The input tensor A"):
        pyad.linalg.matrix_norm(pyad.ones(3))
    with pytest.raises(RuntimeError, match="matrix_norm.*Order 0.5"):
        pyad.linalg.norm(x, 0.5, (0, 1))
    with pytest.raises(RuntimeError, match="linalg.norm.*1D or 2D"):
        pyad.linalg.norm(x, 1)
    with pytest.raises(IndexError, match="norm.*out of range"):
        pyad.norm(x, 2, 3)


def test_norm_of_0d_and_empty_like_torch():
    _, torch = torch_lib()
    for a, ord, dim in [(np.array(-2.0), 2, None), (np.array(-2.0), 1, 0),
                        (np.array(0.0), 3, None), (np.zeros((0, 3)), 2, None),
                        (np.zeros((0, 3)), 1, 0), (np.zeros((0, 3)), np.inf, 1)]:
        x = pyad.Variable(a, requires_grad=True)
        t = torch.from_numpy(a).requires_grad_(True)
        y = pyad.linalg.vector_norm(x, ord, dim)
        ty = torch.linalg.vector_norm(t, ord, dim)
        assert y.shape == tuple(ty.shape)
        np.testing.assert_array_equal(y.data, ty.detach().numpy())
        g, = pyad.grad(y, [x], pyad.Variable(np.ones(y.shape)))
        tg, = torch.autograd.grad(ty, [t], torch.ones(tuple(ty.shape), dtype=torch.float64))
        np.testing.assert_array_equal(g.data, tg.numpy())


# --------------------------------------------------------------------------------
# cumsum, cumprod
# --------------------------------------------------------------------------------

CUMPROD_ZEROS = [
    np.array([[2.0, 0.0, 3.0, 0.5], [1.0, 2.0, 0.0, 0.0]]),
    np.array([[0.0, 0.0, 3.0, 0.5], [1.5, -2.0, 0.5, 0.0]]),
    np.array([[0.0, 1.5], [2.0, 0.0], [0.5, -3.0]]).T,       # non-contiguous
]


@pytest.mark.parametrize("a", CUMPROD_ZEROS, ids=["a", "b", "noncontig"])
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_cumprod_with_zeros_first_and_second_derivatives_match_torch(a, dim):
    _, torch = torch_lib()
    from pyad.autograd import gradcheck, gradgradcheck
    x = pyad.Variable(a, requires_grad=True)
    t = torch.from_numpy(a).requires_grad_(True)
    y = pyad.cumprod(x, dim)
    ty = torch.cumprod(t, dim)
    np.testing.assert_array_equal(y.data, ty.detach().numpy())
    rng = np.random.default_rng(23)
    w = rng.standard_normal(y.shape)
    plain, = pyad.grad(y, [x], pyad.Variable(w), retain_graph=True)
    g, = pyad.grad(y, [x], pyad.Variable(w), create_graph=True)
    tg, = torch.autograd.grad(ty, [t], torch.from_numpy(w), create_graph=True)
    np.testing.assert_allclose(plain.data, tg.detach().numpy(), rtol=1e-14, atol=1e-16)
    np.testing.assert_allclose(g.data, tg.detach().numpy(), rtol=1e-14, atol=1e-16)
    v = rng.standard_normal(a.shape)
    g2, = pyad.grad((g * pyad.Variable(v)).sum(), [x])
    tg2, = torch.autograd.grad((tg * torch.from_numpy(v)).sum(), [t])
    np.testing.assert_allclose(g2.data, tg2.numpy(), rtol=1e-13, atol=1e-15)
    assert gradcheck(lambda x: pyad.cumprod(x, dim), (pyad.Variable(a, requires_grad=True),))
    assert gradgradcheck(lambda x: pyad.cumprod(x, dim),
                         (pyad.Variable(a, requires_grad=True),))


@pytest.mark.parametrize("name", ["cumsum", "cumprod"])
def test_cumulative_ops_dtypes_0d_empty_and_errors_like_torch(name):
    _, torch = torch_lib()
    for a, dim in [(np.array([[1, 2], [3, 0]], dtype=np.int32), 1),
                   (np.array([True, True, False]), 0), (np.array(1.5), 0),
                   (np.array(1.5), -1), (np.zeros((0, 3)), 1), (np.zeros((0, 3)), 0)]:
        y = getattr(pyad, name)(pyad.Variable(a), dim)
        ty = getattr(torch, name)(torch.from_numpy(a), dim)
        assert y.dtype == ty.numpy().dtype and y.shape == tuple(ty.shape)
        np.testing.assert_array_equal(y.data, ty.numpy())
    x = pyad.Variable(np.array([1.0, 2.0, 3.0]), requires_grad=True)
    y = getattr(pyad, name)(x, 0, dtype=np.float32)
    ty = getattr(torch, name)(torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64), 0,
                              dtype=torch.float32)
    assert y.dtype == np.float32
    np.testing.assert_array_equal(y.data, ty.numpy())
    y.sum().backward()
    assert x.grad.dtype == np.float64
    x0 = pyad.Variable(np.array(2.0), requires_grad=True)
    getattr(x0, name)(0).backward()
    assert x0.grad.item() == 1.0
    with pytest.raises(IndexError, match=name + ".*out of range"):
        getattr(pyad, name)(pyad.Variable(np.ones((2, 3))), 2)
    with pytest.raises(TypeError):
        getattr(pyad, name)(pyad.Variable(np.ones((2, 3))))


def test_cumprod_saved_values_are_freed_after_backward():
    x = pyad.Variable(np.array([2.0, 0.0, 3.0]), requires_grad=True)
    y = pyad.cumprod(x, 0).sum()
    y.backward()
    with pytest.raises(RuntimeError, match="second time"):
        y.backward()


# --------------------------------------------------------------------------------
# sort, argsort, topk, kthvalue, median
# --------------------------------------------------------------------------------

def _ties(shape, seed=24):
    return np.random.default_rng(seed).integers(0, 3, size=shape).astype(np.float64)


@pytest.mark.parametrize("descending", [False, True])
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_sort_is_stable_with_ties_and_nan_like_torch(dim, descending):
    _, torch = torch_lib()
    a = _ties((4, 5, 6))
    a[1, 2, 3] = a[2, 0, 0] = np.nan
    a = a.transpose(1, 0, 2)                       # non-contiguous
    x = pyad.Variable(a, requires_grad=True)
    t = torch.from_numpy(a).requires_grad_(True)
    values, indices = pyad.sort(x, dim, descending=descending, stable=True)
    tv, ti = torch.sort(t, dim=dim, descending=descending, stable=True)
    np.testing.assert_array_equal(indices.data, ti.numpy())
    np.testing.assert_array_equal(values.data, tv.detach().numpy())
    np.testing.assert_array_equal(pyad.argsort(x, dim, descending).data, ti.numpy())
    np.testing.assert_array_equal(x.argsort(dim, descending).data, ti.numpy())
    assert indices.dtype == np.int64 and not indices.requires_grad
    w = np.random.default_rng(25).standard_normal(a.shape)
    g, = pyad.grad(values, [x], pyad.Variable(w), create_graph=True)
    tg, = torch.autograd.grad(tv, [t], torch.from_numpy(w), create_graph=True)
    np.testing.assert_array_equal(g.data, tg.detach().numpy())
    # the gradient of the gradient (a gather of the scatter) with respect to w
    wv = pyad.Variable(w, requires_grad=True)
    g, = pyad.grad(pyad.sort(x, dim, descending).values, [x], wv, create_graph=True)
    v = np.random.default_rng(26).standard_normal(a.shape)
    gw, = pyad.grad((g * pyad.Variable(v)).sum(), [wv])
    np.testing.assert_array_equal(gw.data, np.take_along_axis(v, indices.data, dim))


@pytest.mark.parametrize("largest", [True, False])
@pytest.mark.parametrize("k, dim", [(1, -1), (3, 1), (5, -1), (0, 0), (4, 0)])
def test_topk_matches_torch(k, dim, largest):
    _, torch = torch_lib()
    a = np.random.default_rng(27).permutation(4 * 5 * 5).reshape(4, 5, 5) * 0.5
    x = pyad.Variable(a, requires_grad=True)
    t = torch.from_numpy(a).requires_grad_(True)
    values, indices = pyad.topk(x, k, dim, largest)
    tv, ti = torch.topk(t, k, dim, largest)
    assert x.topk(k, dim, largest).values.shape == tuple(tv.shape)
    np.testing.assert_array_equal(indices.data, ti.numpy())
    np.testing.assert_array_equal(values.data, tv.detach().numpy())
    w = np.random.default_rng(28).standard_normal(values.shape)
    g, = pyad.grad(values, [x], pyad.Variable(w))
    tg, = torch.autograd.grad(tv, [t], torch.from_numpy(w))
    np.testing.assert_array_equal(g.data, tg.numpy())


@pytest.mark.parametrize("keepdim", [False, True])
@pytest.mark.parametrize("k, dim", [(1, -1), (3, 1), (4, 0), (2, 2)])
def test_kthvalue_matches_torch(k, dim, keepdim):
    _, torch = torch_lib()
    a = np.random.default_rng(29).permutation(4 * 5 * 6).reshape(4, 5, 6) * 0.5
    x = pyad.Variable(a, requires_grad=True)
    t = torch.from_numpy(a).requires_grad_(True)
    values, indices = pyad.kthvalue(x, k, dim, keepdim)
    tv, ti = torch.kthvalue(t, k, dim, keepdim)
    np.testing.assert_array_equal(indices.data, ti.numpy())
    np.testing.assert_array_equal(values.data, tv.detach().numpy())
    w = np.random.default_rng(30).standard_normal(values.shape)
    g, = pyad.grad(values, [x], pyad.Variable(w))
    tg, = torch.autograd.grad(tv, [t], torch.from_numpy(w))
    np.testing.assert_array_equal(g.data, tg.numpy())


@pytest.mark.parametrize("keepdim", [False, True])
@pytest.mark.parametrize("shape, dim", [((5, 4), 0), ((4, 6), 1), ((3, 4, 5), -1)])
def test_median_with_dim_matches_torch(shape, dim, keepdim):
    _, torch = torch_lib()
    a = np.random.default_rng(31).permutation(int(np.prod(shape))).reshape(shape) * 0.5
    x = pyad.Variable(a, requires_grad=True)
    t = torch.from_numpy(a).requires_grad_(True)
    values, indices = pyad.median(x, dim, keepdim)
    tv, ti = torch.median(t, dim, keepdim)
    assert type(x.median(dim, keepdim)).__name__ == "median"
    np.testing.assert_array_equal(indices.data, ti.numpy())
    np.testing.assert_array_equal(values.data, tv.detach().numpy())
    w = np.random.default_rng(32).standard_normal(values.shape)
    g, = pyad.grad(values, [x], pyad.Variable(w))
    tg, = torch.autograd.grad(tv, [t], torch.from_numpy(w))
    np.testing.assert_array_equal(g.data, tg.numpy())


@pytest.mark.parametrize("a", [np.array([[1.0, 2.0, 2.0], [2.0, 0.0, 3.0]]),
                               np.array([4.0, 1.0, 1.0, 4.0]), np.array([2.0, 2.0])])
def test_median_without_dim_is_the_lower_median_ties_share_the_gradient_like_torch(a):
    _, torch = torch_lib()
    x = pyad.Variable(a, requires_grad=True)
    t = torch.from_numpy(a).requires_grad_(True)
    y = pyad.median(x)
    ty = torch.median(t)
    assert y.shape == () and y.item() == ty.item()
    (y * 3.0).backward()
    (ty * 3.0).backward()
    np.testing.assert_allclose(x.grad.data, t.grad.numpy(), rtol=1e-15, atol=0)


def test_sorting_ops_of_0d_and_empty_like_torch():
    _, torch = torch_lib()
    s = pyad.Variable(np.array(2.5), requires_grad=True)
    ts = torch.tensor(2.5, dtype=torch.float64, requires_grad=True)
    for f, tf in [(lambda v: pyad.sort(v, 0).values, lambda v: torch.sort(v, 0).values),
                  (lambda v: pyad.topk(v, 1).values, lambda v: torch.topk(v, 1).values),
                  (lambda v: pyad.kthvalue(v, 1, 0, True).values,
                   lambda v: torch.kthvalue(v, 1, 0, True).values),
                  (lambda v: pyad.median(v, 0).values, lambda v: torch.median(v, 0).values),
                  (lambda v: pyad.median(v), lambda v: torch.median(v))]:
        y, ty = f(s), tf(ts)
        assert y.shape == tuple(ty.shape) and y.item() == ty.item()
        g, = pyad.grad(y, [s])
        tg, = torch.autograd.grad(ty, [ts])
        assert g.item() == tg.item()
    assert pyad.argsort(pyad.Variable(np.array(1.0))).shape == ()
    e = np.zeros((0, 3))
    for dim in (0, 1):
        r = pyad.sort(pyad.Variable(e), dim)
        tr = torch.sort(torch.from_numpy(e), dim)
        assert r.values.shape == tuple(tr.values.shape) == r.indices.shape
    assert pyad.topk(pyad.Variable(e), 0, 0).values.shape == (0, 3)
    assert pyad.median(pyad.Variable(e), 1).values.shape == (0,)
    assert np.isnan(pyad.median(pyad.Variable(e)).item())
    assert np.isnan(torch.median(torch.from_numpy(e)).item())


def test_sorting_ops_errors():
    x = pyad.Variable(np.ones((2, 3)))
    with pytest.raises(RuntimeError, match="topk.*out of range"):
        pyad.topk(x, 4)
    with pytest.raises(RuntimeError, match="topk.*out of range"):
        pyad.topk(x, -1)
    with pytest.raises(TypeError, match="topk.*k must be an int"):
        pyad.topk(x, 1.5)
    with pytest.raises(RuntimeError, match="kthvalue.*out of range"):
        pyad.kthvalue(x, 0)
    with pytest.raises(RuntimeError, match="kthvalue.*out of range"):
        pyad.kthvalue(x, 4)
    with pytest.raises(IndexError, match="sort.*out of range"):
        pyad.sort(x, 2)
    with pytest.raises(IndexError, match="median.*non-zero size"):
        pyad.median(pyad.Variable(np.zeros((0, 3))), 0)


def test_sort_gradient_indices_are_freed_after_backward():
    x = pyad.Variable(np.array([3.0, 1.0, 2.0]), requires_grad=True)
    y = (pyad.sort(x).values * pyad.Variable(np.arange(3.0))).sum()
    y.backward()
    with pytest.raises(RuntimeError, match="second time"):
        y.backward()


def test_median_with_nan_is_nan_at_the_first_nan_like_torch():
    _, torch = torch_lib()
    a = np.array([[1.0, np.nan, 2.0, np.nan, 0.0], [3.0, 1.0, 2.0, 0.0, 5.0]])
    for dim in (None, 1, 0):
        x = pyad.Variable(a, requires_grad=True)
        t = torch.from_numpy(a).requires_grad_(True)
        r = pyad.median(x) if dim is None else pyad.median(x, dim)
        tr = torch.median(t) if dim is None else torch.median(t, dim)
        y, ty = (r, tr) if dim is None else (r.values, tr.values)
        np.testing.assert_array_equal(y.data, ty.detach().numpy())
        if dim is not None:
            np.testing.assert_array_equal(r.indices.data, tr.indices.numpy())
            w = np.random.default_rng(33).standard_normal(y.shape)
            g, = pyad.grad(y, [x], pyad.Variable(w))
            tg, = torch.autograd.grad(ty, [t], torch.from_numpy(w))
            np.testing.assert_array_equal(g.data, tg.numpy())


@pytest.mark.parametrize("name", ["max", "min", "median", "amax", "amin"])
def test_reduction_of_all_elements_with_nan_gradient_like_torch(name):
    """max(), min(), median() share the gradient among the NaNs (torch's
    evenly_distribute_backward); amax / amin give NaN gradients on a NaN slice."""
    _, torch = torch_lib()
    a = np.array([[1.0, np.nan, 2.0], [np.nan, 0.0, 5.0]])
    x = pyad.Variable(a, requires_grad=True)
    t = torch.from_numpy(a).requires_grad_(True)
    with np.errstate(all="raise"):
        y = getattr(pyad, name)(x)
        g, = pyad.grad(y * 2.0, [x])
    ty = getattr(torch, name)(t)
    tg, = torch.autograd.grad(ty * 2.0, [t])
    assert np.isnan(y.item()) and np.isnan(ty.item())
    np.testing.assert_array_equal(g.data, tg.numpy())


@pytest.mark.parametrize("name", ["sum", "mean", "prod"])
def test_dtype_argument_casts_first_and_the_gradient_comes_back_in_the_input_dtype(name):
    # torch: reduce(x, dtype=d) is reduce(x.to(d)); the gradient is cast back to x's dtype
    a = np.random.default_rng(5).uniform(0.5, 1.5, size=(3, 4))
    x = pyad.tensor(a, requires_grad=True)
    y = getattr(pyad, name)(x, dtype=pyad.float32)
    assert y.dtype == np.float32
    (g,) = pyad.autograd.grad(y, [x])
    assert g.dtype == np.float64
    expected = getattr(pyad, name)(pyad.tensor(a.astype(np.float32), requires_grad=True))
    np.testing.assert_allclose(y.data, expected.data, rtol=1e-6)
    torch = pytest.importorskip("torch")
    tx = torch.tensor(a, requires_grad=True)
    (tg,) = torch.autograd.grad(getattr(torch, name)(tx, dtype=torch.float32), [tx])
    assert tg.dtype == torch.float64
    np.testing.assert_allclose(g.data, tg.numpy(), rtol=1e-6)


def test_max_and_min_of_two_variables_split_ties_like_maximum():
    a = pyad.tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = pyad.tensor([3.0, 2.0, 1.0], requires_grad=True)
    pyad.max(a, b).sum().backward()
    np.testing.assert_array_equal(a.grad.data, [0.0, 0.5, 1.0])
    np.testing.assert_array_equal(b.grad.data, [1.0, 0.5, 0.0])
    with pytest.raises(TypeError, match=r"min\(input, other\)"):
        pyad.min(a, b, keepdim=True)


@pytest.mark.parametrize("name", ["var_mean", "std_mean"])
def test_multi_output_reduction_second_order_through_its_saved_output(name):
    # var_mean/std_mean are one node with two outputs; the part that computes std saves
    # its output, which must come back attached to that one node, or a create_graph
    # backward reaches the part twice (once freed).
    torch = pytest.importorskip("torch")
    a = np.random.default_rng(3).standard_normal((3, 4))
    results = []
    for lib, x in ((pyad, pyad.Variable(a.copy(), requires_grad=True)),
                   (torch, torch.tensor(a.copy(), requires_grad=True))):
        y = getattr(lib, name)(x, 0, correction=0)[0] * getattr(lib, name)(x, 0)[1]
        g, = lib.autograd.grad((y * y).sum(), x, create_graph=True)
        h, = lib.autograd.grad((g * g).sum(), x)
        results.append((np.asarray(g.detach().numpy()), np.asarray(h.numpy())))
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(results[0][1], results[1][1], rtol=1e-10, atol=1e-12)


# --------------------------------------------------------------------------------
# logcumsumexp: no overflow, -inf, 0-d, and its stable gradient, against torch
# --------------------------------------------------------------------------------

@pytest.mark.parametrize("values", [
    [0.0, 1000.0, 0.0, -1000.0],                       # exp overflows / underflows
    [-np.inf, -np.inf, 1.0, -np.inf],                  # log 0 at the start
    [np.inf, 1.0, -np.inf, 2.0],
    [np.nan, 1.0, 2.0, 3.0],
])
def test_logcumsumexp_extreme_values_and_gradients_match_torch(values):
    _, torch = torch_lib()
    a = np.array(values)
    x = pyad.Variable(a.copy(), requires_grad=True)
    t = torch.from_numpy(a.copy()).requires_grad_(True)
    with np.errstate(all="ignore"):
        y = pyad.logcumsumexp(x, 0)
        w = np.array([0.5, -1.0, 2.0, 0.25])
        (g,) = pyad.grad(y, [x], pyad.Variable(w))
    ty = torch.logcumsumexp(t, 0)
    (tg,) = torch.autograd.grad(ty, [t], torch.from_numpy(w))
    np.testing.assert_allclose(y.data, ty.detach().numpy(), rtol=1e-13, equal_nan=True)
    np.testing.assert_allclose(g.data, tg.numpy(), rtol=1e-12, atol=1e-300, equal_nan=True)


@pytest.mark.parametrize("values, dim", [
    (np.random.RandomState(0).randn(3, 5), 0),
    (np.random.RandomState(0).randn(3, 5), 1),
    (np.array([[-np.inf, -np.inf, 1.0, 2.0], [0.0, -np.inf, 3.0, -1e300]]), 0),
    (np.array([[-np.inf, -np.inf, 1.0, 2.0], [0.0, -np.inf, 3.0, -1e300]]), 1),
    (np.array([1000.0, -1000.0, 0.0, 5.0]), 0),
    (np.array([[0.5 + 1j, -2.0 + 0.25j, 1.0 - 3j]]), 1),
    (np.random.RandomState(2).randn(4, 1), 1),                    # a dim of size 1
    (np.random.RandomState(3).randn(3, 4).T, 0),                  # non-contiguous
    (np.array(1.5), 0),                                           # 0-d
    (np.array(1.5), -1),
    (np.zeros((0, 3)), 0),                                        # empty
])
def test_logcumsumexp_forward_mode_tangent_matches_torch(values, dim):
    # forward mode runs the backward with a zero cotangent, where the log-space formula
    # is not differentiable: the tangent was nan for any dim longer than 1
    _, torch = torch_lib()
    import pyad.autograd.forward_ad as fwAD
    import torch.autograd.forward_ad as tfwAD
    t = np.asarray(np.random.RandomState(1).randn(*values.shape)).astype(values.dtype)
    if values.dtype.kind == "c":
        t = t + 0.5j
    with fwAD.dual_level():
        y = pyad.logcumsumexp(fwAD.make_dual(pyad.Variable(values), pyad.tensor(t)), dim)
        tangent = fwAD.unpack_dual(y).tangent
    if values.size == 0:
        expected = np.zeros(values.shape)   # (torch 2.13's jvp raises: a max over an empty dim)
    else:
        with tfwAD.dual_level():
            ty = torch.logcumsumexp(tfwAD.make_dual(torch.tensor(values), torch.tensor(t)),
                                    dim)
            expected = tfwAD.unpack_dual(ty).tangent.numpy()
    # (torch sums exp(x - max) * t and divides; pyad's recurrence rounds differently)
    np.testing.assert_allclose(tangent.data, expected, rtol=1e-10, atol=1e-300,
                               equal_nan=True)
    if np.isfinite(values).all():
        eps = 1e-6              # and the finite difference along t
        fd = (np.asarray(pyad.logcumsumexp(pyad.tensor(values + eps * t), dim).data)
              - np.asarray(pyad.logcumsumexp(pyad.tensor(values - eps * t), dim).data)) / (2 * eps)
        np.testing.assert_allclose(tangent.data, fd, rtol=1e-6, atol=1e-8)


def test_logcumsumexp_double_backward_through_a_zero_gradient():
    # d/dg of the backward where g is 0 (a cotangent that depends on the input):
    # the same with the zero in it as without, against finite differences
    x = pyad.Variable(np.array([[0.3, -1.2, 2.0, 0.1]]), requires_grad=True)
    assert pyad.autograd.gradgradcheck(
        lambda v: pyad.logcumsumexp(v, 1), (x,),
        grad_outputs=(pyad.Variable(np.array([[0.0, 1.5, 0.0, -0.5]]), requires_grad=True),))


def test_logcumsumexp_0d_empty_and_bad_input():
    _, torch = torch_lib()
    x = pyad.Variable(np.array(1.5), requires_grad=True)
    y = pyad.logcumsumexp(x, -1)
    assert y.shape == () and y.item() == 1.5
    y.backward()
    assert x.grad.item() == 1.0
    assert pyad.logcumsumexp(pyad.zeros(0, 3), 0).shape == (0, 3)
    with pytest.raises(IndexError, match="logcumsumexp"):
        pyad.logcumsumexp(pyad.zeros(2, 3), 2)
    with pytest.raises(RuntimeError, match="logcumsumexp"):
        pyad.logcumsumexp(pyad.tensor([1, 2]), 0)
    np.testing.assert_allclose(
        pyad.Variable(np.arange(6.0).reshape(2, 3)).logcumsumexp(1).data,
        torch.logcumsumexp(torch.arange(6.0, dtype=torch.float64).reshape(2, 3), 1).numpy(),
        rtol=1e-15)
