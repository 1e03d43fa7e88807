"""The torch.Tensor methods added in Python (pyad/_scatter_reduce.py, pyad/_compat.py)
against torch 2.13 on the same inputs: scatter_reduce/index_reduce (values, dtypes,
gradients with ties/zeros/NaN, gradcheck and gradgradcheck in float64, errors,
in-place forms), as_strided (values, torch's backward, bounds), and the small methods
(flags, layout, to_dense, dsplit, narrow_copy, conj_physical, cfloat/cdouble,
hardshrink/prelu, the in-place special functions)."""
import numpy as np
import pytest

import pyad
from pyad.autograd import gradcheck, gradgradcheck

torch = pytest.importorskip("torch")

# torch warns once that index_reduce is in beta
pytestmark = pytest.mark.filterwarnings("ignore:index_reduce\\(\\) is in beta")

RNG = np.random.default_rng(11)
REDUCES = ("sum", "prod", "mean", "amax", "amin")


def T(L, values, dtype=None, requires_grad=False):
    """A tensor of library L (pyad or torch) from a NumPy array."""
    a = np.array(values, dtype=dtype)
    if L is pyad:
        return pyad.tensor(a, requires_grad=requires_grad)
    return torch.tensor(a, requires_grad=requires_grad)


def N(v):
    """The values of a pyad Variable or torch tensor, as NumPy."""
    if isinstance(v, torch.Tensor):
        return v.detach().numpy()
    return np.asarray(v.data)


def _close(got, expected, **kw):
    got, expected = N(got), N(expected)
    assert got.dtype == expected.dtype, (got.dtype, expected.dtype)
    assert got.shape == expected.shape
    np.testing.assert_allclose(got, expected, **({"rtol": 1e-12, "atol": 1e-12} | kw))


def _run(L, fn, arrays, grad_of=None, weights_seed=0):
    """fn(L, *tensors) and the gradient of a weighted sum of it w.r.t. the tensors named
    by grad_of (indices into arrays)."""
    grad_of = () if grad_of is None else grad_of
    ts = [T(L, a, requires_grad=(k in grad_of)) for k, a in enumerate(arrays)]
    out = fn(L, *ts)
    grads = ()
    if grad_of:
        w = np.cos(np.arange(out.numel()) + weights_seed).reshape(tuple(out.shape))
        w = T(L, w.astype(N(out).dtype))
        grads = (pyad.autograd.grad if L is pyad else torch.autograd.grad)(
            (out * w).sum(), [ts[k] for k in grad_of])
    return out, grads


def _compare(fn, arrays, grad_of=(0, 2), **kw):
    got, got_grads = _run(pyad, fn, arrays, grad_of)
    expected, expected_grads = _run(torch, fn, arrays, grad_of)
    _close(got, expected, **kw)
    for g, e in zip(got_grads, expected_grads):
        _close(g, e, **kw)


def _idx(L, values):
    return T(L, values, dtype=np.int64)


# -- scatter_reduce ------------------------------------------------------------------

# name: (self, dim, index, src); index of self's rank, no larger than src
SCATTER_CASES = {
    "dim0_collisions": (RNG.normal(size=(4, 3)), 0,
                        RNG.integers(0, 4, size=(6, 3)), RNG.normal(size=(6, 3))),
    "dim1_index_smaller_than_self": (RNG.normal(size=(3, 5)), 1,
                                     RNG.integers(0, 5, size=(2, 4)), RNG.normal(size=(2, 4))),
    "negative_dim_3d": (RNG.normal(size=(2, 3, 4)), -1,
                        RNG.integers(0, 4, size=(2, 3, 5)), RNG.normal(size=(2, 3, 5))),
    "vector": (RNG.normal(size=5), 0, np.array([0, 0, 2, 4, 4, 4]), RNG.normal(size=6)),
    "zero_d": (np.array(1.5), 0, np.array(0), np.array(-0.5)),
    "empty_index": (RNG.normal(size=(3, 2)), 0, np.zeros((0, 2), np.int64),
                    RNG.normal(size=(1, 2))),
    # amax/amin ties among src and with self (self's value equals src's)
    "ties": (np.array([2.0, 1.0, 3.0, 0.5]), 0, np.array([0, 0, 1, 2, 2, 3]),
             np.array([2.0, 2.0, 1.0, 3.0, -1.0, 0.5])),
    # prod zeros: self zero, one src zero, two src zeros at one position
    "zeros": (np.array([0.0, 2.0, 3.0, 1.5]), 0, np.array([0, 0, 1, 2, 2, 3, 3]),
              np.array([0.0, 4.0, 0.0, 0.0, 5.0, 0.0, 0.0])),
}


def _scatter_reduce(reduce, dim, include_self):
    def fn(L, x, index, src):
        return L.scatter_reduce(x, dim, index, src, reduce, include_self=include_self)
    return fn


@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("reduce", REDUCES)
@pytest.mark.parametrize("case", sorted(SCATTER_CASES))
def test_scatter_reduce_values_and_gradients_match_torch(case, reduce, include_self):
    x, dim, index, src = SCATTER_CASES[case]
    fn = _scatter_reduce(reduce, dim, include_self)
    got, got_grads = _run(pyad, lambda L, a, b: fn(L, a, _idx(L, index), b), [x, src],
                          (0, 1))
    expected, expected_grads = _run(torch, lambda L, a, b: fn(L, a, _idx(L, index), b),
                                    [x, src], (0, 1))
    _close(got, expected)
    for g, e in zip(got_grads, expected_grads):
        _close(g, e)
    assert type(got.grad_fn).__name__ == "ScatterReduceBackward"


@pytest.mark.parametrize("reduce", REDUCES)
def test_scatter_reduce_src_larger_than_index(reduce):
    # only src's leading block of index's shape is read; torch 2.13's backward then
    # fails (its src gradient has index's shape), pyad's pads it with zeros
    x, src = RNG.uniform(0.5, 2, size=(3, 4)), RNG.uniform(0.5, 2, size=(5, 6))
    index = RNG.integers(0, 3, size=(4, 3))
    fn = _scatter_reduce(reduce, 0, True)
    _close(fn(pyad, T(pyad, x), _idx(pyad, index), T(pyad, src)),
           fn(torch, T(torch, x), _idx(torch, index), T(torch, src)))
    ts = T(torch, src, requires_grad=True)
    with pytest.raises(RuntimeError):
        fn(torch, T(torch, x), _idx(torch, index), ts).sum().backward()
    a, s = T(pyad, x, requires_grad=True), T(pyad, src, requires_grad=True)
    fn(pyad, a, _idx(pyad, index), s).sum().backward()
    assert s.grad.shape == (5, 6) and not s.grad.data[4:].any() and not s.grad.data[:, 3:].any()
    f = lambda p, q: fn(pyad, p, _idx(pyad, index), q)
    assert gradcheck(f, (a, s)) and gradgradcheck(f, (a, s))


def test_scatter_reduce_takes_torchs_legacy_max_and_min_in_the_forward_only():
    for name in ("max", "min"):
        res = []
        for L in (pyad, torch):
            a = T(L, [1.0, 5.0, 3.0], requires_grad=True)
            out = a.scatter_reduce(0, _idx(L, [0, 0]), T(L, [4.0, 2.0]), name)
            with pytest.raises(RuntimeError, match="Expected 'reduce' to be one of"):
                out.sum().backward()
            res.append(out)
        _close(*res)


@pytest.mark.parametrize("reduce", REDUCES)
def test_scatter_reduce_method_non_contiguous_and_float32(reduce):
    x = RNG.normal(size=(5, 4)).astype(np.float32)
    src = RNG.normal(size=(5, 3)).astype(np.float32)
    index = RNG.integers(0, 4, size=(5, 3))
    res = []
    for L in (pyad, torch):
        xt = T(L, x, requires_grad=True)
        st = T(L, src, requires_grad=True)
        a, b = xt.t(), st.t()                 # (4, 5) and (3, 5), non-contiguous
        assert not a.is_contiguous()
        out = a.scatter_reduce(1, _idx(L, index.T), b, reduce)
        out.sum().backward()
        res.append((out, xt.grad, st.grad))
    for g, e in zip(*res):
        _close(g, e, rtol=1e-5, atol=1e-6)
        assert N(g).dtype == np.float32


@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("reduce", REDUCES)
def test_scatter_reduce_gradcheck_and_gradgradcheck(reduce, include_self):
    # distinct values (no ties), one zero factor for prod
    x = pyad.tensor(RNG.uniform(0.5, 2.0, size=(3, 4)), requires_grad=True)
    src = RNG.uniform(0.5, 2.0, size=(5, 4))
    src[1, 2] = 0.0
    s = pyad.tensor(src, requires_grad=True)
    index = pyad.tensor(RNG.integers(0, 3, size=(5, 4)))

    def f(a, b):
        return pyad.scatter_reduce(a, 0, index, b, reduce, include_self=include_self)
    assert gradcheck(f, (x, s))
    assert gradgradcheck(f, (x, s))


def test_scatter_reduce_double_backward_with_two_zeros_at_a_position_raises_as_torch():
    for L in (pyad, torch):
        x = T(L, [1.0, 2.0], requires_grad=True)
        s = T(L, [0.0, 0.0, 3.0], requires_grad=True)
        out = L.scatter_reduce(x, 0, _idx(L, [0, 0, 1]), s, "prod")
        g = (pyad.autograd.grad if L is pyad else torch.autograd.grad)(
            out.sum(), (x, s), create_graph=True)
        np.testing.assert_array_equal(N(g[1]), [0.0, 0.0, 2.0])
        with pytest.raises(RuntimeError, match="Double backward is unsupported"):
            g[1].sum().backward()


def test_scatter_reduce_integer_mean_floors_and_int32_index_as_torch():
    x = np.array([-7, 3, 10, 0])
    src = np.array([-1, -1, 4, 5, -3])
    index = np.array([0, 0, 2, 2, 3])
    for include_self in (True, False):
        for index_dtype in (np.int64, np.int32):
            for reduce in REDUCES:
                res = [L.scatter_reduce(T(L, x), 0, T(L, index, dtype=index_dtype),
                                        T(L, src), reduce, include_self=include_self)
                       for L in (pyad, torch)]
                _close(*res)


@pytest.mark.parametrize("reduce", ["sum", "prod", "amax", "amin"])
def test_scatter_reduce_bool_matches_torch(reduce):
    x, src = np.array([True, False, False]), np.array([False, True, True, False])
    index = np.array([0, 1, 1, 2])
    for include_self in (True, False):
        res = [L.scatter_reduce(T(L, x), 0, _idx(L, index), T(L, src), reduce,
                                include_self=include_self) for L in (pyad, torch)]
        _close(*res)


@pytest.mark.parametrize("reduce", ["amax", "amin", "sum", "mean", "prod"])
def test_scatter_reduce_nan_propagates_as_torch(reduce):
    x = np.array([1.0, np.nan, 3.0, 0.0])
    src = np.array([np.nan, 5.0, 1.0, 2.0])
    index = np.array([0, 0, 1, 2])
    for include_self in (True, False):
        res = []
        for L in (pyad, torch):
            a, s = T(L, x, requires_grad=True), T(L, src, requires_grad=True)
            out = L.scatter_reduce(a, 0, _idx(L, index), s, reduce, include_self=include_self)
            out.sum().backward()
            res.append((out, a.grad, s.grad))
        for g, e in zip(*res):
            np.testing.assert_array_equal(N(g), N(e))


SCATTER_ERRORS = {
    "reduce_name": (lambda L: L.zeros(3).scatter_reduce(0, _idx(L, [0]), L.ones(1), "add"),
                    RuntimeError),
    "index_float": (lambda L: L.zeros(3).scatter_reduce(0, T(L, [0.0]), L.ones(1), "sum"),
                    RuntimeError),
    "index_int16": (lambda L: L.zeros(3).scatter_reduce(0, T(L, [0], dtype=np.int16),
                                                        L.ones(1), "sum"), RuntimeError),
    "dtype_mismatch": (lambda L: L.zeros(3).scatter_reduce(
        0, _idx(L, [0]), L.ones(1, dtype=L.float64), "sum"), RuntimeError),
    "index_rank": (lambda L: L.zeros(3, 3).scatter_reduce(0, _idx(L, [0, 1]), L.ones(3, 3),
                                                          "sum"), RuntimeError),
    "index_larger_than_src": (lambda L: L.zeros(3, 3).scatter_reduce(
        0, _idx(L, [[0, 1, 0, 1]]), L.ones(1, 3), "sum"), RuntimeError),
    "index_larger_than_self": (lambda L: L.zeros(1, 2).scatter_reduce(
        1, _idx(L, [[0, 1], [0, 0]]), L.ones(2, 3), "sum"), RuntimeError),
    "index_out_of_bounds": (lambda L: L.zeros(3).scatter_reduce(0, _idx(L, [5]), L.ones(1),
                                                                "sum"), RuntimeError),
    "index_negative": (lambda L: L.zeros(3).scatter_reduce(0, _idx(L, [-1]), L.ones(1),
                                                           "sum"), RuntimeError),
    "dim_out_of_range": (lambda L: L.zeros(3).scatter_reduce(1, _idx(L, [0]), L.ones(1),
                                                             "sum"), IndexError),
    "src_not_a_tensor": (lambda L: L.zeros(3).scatter_reduce(0, _idx(L, [0]), 1.0, "sum"),
                         TypeError),
    "index_a_list": (lambda L: L.scatter_reduce(L.zeros(3), 0, [0], L.ones(1), "sum"),
                     TypeError),
    "complex_amax": (lambda L: L.zeros(2, dtype=L.complex64).scatter_reduce(
        0, _idx(L, [0]), L.ones(1, dtype=L.complex64), "amax"), NotImplementedError),
    "bool_mean": (lambda L: L.zeros(2, dtype=L.bool).scatter_reduce(
        0, _idx(L, [0]), L.ones(1, dtype=L.bool), "mean"), NotImplementedError),
}


@pytest.mark.parametrize("name", sorted(SCATTER_ERRORS))
def test_scatter_reduce_errors_match_torch(name):
    make, error = SCATTER_ERRORS[name]
    with pytest.raises(error):
        make(torch)
    with pytest.raises(error, match="scatter_reduce"):
        make(pyad)


def test_scatter_reduce_in_place_matches_torch_and_bumps_the_version_once():
    x, src = RNG.normal(size=(3, 2)), RNG.normal(size=(4, 2))
    index = RNG.integers(0, 3, size=(4, 2))
    res = []
    for L in (pyad, torch):
        a = T(L, x, requires_grad=True)
        s = T(L, src, requires_grad=True)
        h = a * 2.0
        v = h._version
        out = h.scatter_reduce_(0, _idx(L, index), s, "amax", include_self=False)
        assert out is h and h._version == v + 1
        (h * T(L, np.arange(6.0).reshape(3, 2))).sum().backward()
        res.append((h, a.grad, s.grad))
    for g, e in zip(*res):
        _close(g, e)
    for L in (pyad, torch):
        leaf = T(L, [1.0, 2.0], requires_grad=True)
        with pytest.raises(RuntimeError, match="leaf"):
            leaf.scatter_reduce_(0, _idx(L, [0]), T(L, [1.0]), "sum")


# -- index_reduce --------------------------------------------------------------------

INDEX_CASES = {
    "dim0": (RNG.normal(size=(4, 3)), 0, RNG.integers(0, 4, size=6), RNG.normal(size=(6, 3))),
    "dim1": (RNG.normal(size=(2, 5, 3)), 1, np.array([4, 0, 4, 2]),
             RNG.normal(size=(2, 4, 3))),
    "negative_dim": (RNG.normal(size=(3, 4)), -1, np.array([3, 3, 3]),
                     RNG.normal(size=(3, 3))),
    "zero_d": (np.array(1.5), 0, np.array([0]), np.array(-0.5)),
    "empty_index": (RNG.normal(size=(3, 2)), 0, np.zeros(0, np.int64), np.zeros((0, 2))),
    "ties": (np.array([[2.0, 1.0], [3.0, 3.0]]), 0, np.array([0, 0, 1]),
             np.array([[2.0, 1.0], [2.0, 0.5], [3.0, 3.0]])),
    "zeros": (np.array([[0.0, 2.0], [3.0, 1.5]]), 0, np.array([0, 0, 1, 1]),
              np.array([[0.0, 4.0], [5.0, 0.0], [0.0, 2.0], [1.0, 0.0]])),
}


@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("reduce", ["prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("case", sorted(INDEX_CASES))
def test_index_reduce_values_and_gradients_match_torch(case, reduce, include_self):
    x, dim, index, src = INDEX_CASES[case]

    def fn(L, a, b):
        return L.index_reduce(a, dim, _idx(L, index), b, reduce, include_self=include_self)
    got, got_grads = _run(pyad, fn, [x, src], (0, 1))
    expected, expected_grads = _run(torch, fn, [x, src], (0, 1))
    _close(got, expected)
    for g, e in zip(got_grads, expected_grads):
        _close(g, e)


@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("reduce", ["prod", "mean", "amax", "amin"])
def test_index_reduce_gradcheck_and_gradgradcheck(reduce, include_self):
    x = pyad.tensor(RNG.uniform(0.5, 2.0, size=(3, 2)), requires_grad=True)
    src = RNG.uniform(0.5, 2.0, size=(4, 2))
    src[2, 1] = 0.0
    s = pyad.tensor(src, requires_grad=True)
    index = pyad.tensor([2, 0, 2, 1])

    def f(a, b):
        return a.index_reduce(0, index, b, reduce, include_self=include_self)
    assert gradcheck(f, (x, s))
    assert gradgradcheck(f, (x, s))


def test_index_reduce_integers_float32_and_non_contiguous_match_torch():
    for reduce in ("prod", "mean", "amax", "amin"):
        for include_self in (True, False):
            res = [L.index_reduce(T(L, [-7, 3, 10]), 0, T(L, [0, 0, 2], dtype=np.int32),
                                  T(L, [-1, -1, 4]), reduce, include_self=include_self)
                   for L in (pyad, torch)]
            _close(*res)
            x = RNG.normal(size=(3, 4)).astype(np.float32)
            src = RNG.normal(size=(3, 3)).astype(np.float32)
            res = [T(L, x).t().index_reduce(0, _idx(L, [1, 3, 1]), T(L, src).t(), reduce,
                                            include_self=include_self)
                   for L in (pyad, torch)]
            _close(*res, rtol=1e-6, atol=1e-6)


INDEX_ERRORS = {
    "sum_refused": (lambda L: L.zeros(3, 2).index_reduce(0, _idx(L, [0, 1]), L.ones(2, 2),
                                                         "sum"), RuntimeError),
    "index_float": (lambda L: L.zeros(3, 2).index_reduce(0, T(L, [0.0, 1.0]), L.ones(2, 2),
                                                         "prod"), RuntimeError),
    "index_matrix": (lambda L: L.zeros(3, 2).index_reduce(0, _idx(L, [[0, 1]]), L.ones(2, 2),
                                                          "prod"), IndexError),
    "index_count": (lambda L: L.zeros(3, 2).index_reduce(0, _idx(L, [0, 1, 1]),
                                                         L.ones(2, 2), "prod"), RuntimeError),
    "index_out_of_range": (lambda L: L.zeros(3, 2).index_reduce(0, _idx(L, [0, 3]),
                                                                L.ones(2, 2), "prod"),
                           IndexError),
    "index_negative": (lambda L: L.zeros(3, 2).index_reduce(0, _idx(L, [0, -1]),
                                                            L.ones(2, 2), "prod"),
                       IndexError),
    "dtype_mismatch": (lambda L: L.zeros(3, 2).index_reduce(
        0, _idx(L, [0, 1]), L.ones(2, 2, dtype=L.float64), "prod"), RuntimeError),
    "source_shape": (lambda L: L.zeros(3, 2).index_reduce(0, _idx(L, [0, 1]), L.ones(2, 3),
                                                          "prod"), RuntimeError),
    "dim_out_of_range": (lambda L: L.zeros(3, 2).index_reduce(2, _idx(L, [0, 1]),
                                                              L.ones(2, 2), "prod"),
                         IndexError),
    "source_a_list": (lambda L: L.zeros(2).index_reduce(0, _idx(L, [0]), [1.0], "prod"),
                      TypeError),
    "bool": (lambda L: L.zeros(2, dtype=L.bool).index_reduce(
        0, _idx(L, [0]), L.ones(1, dtype=L.bool), "amax"), NotImplementedError),
    "complex": (lambda L: L.zeros(2, dtype=L.complex64).index_reduce(
        0, _idx(L, [0]), L.ones(1, dtype=L.complex64), "prod"), NotImplementedError),
}


@pytest.mark.parametrize("name", sorted(INDEX_ERRORS))
def test_index_reduce_errors_match_torch(name):
    make, error = INDEX_ERRORS[name]
    with pytest.raises(error):
        make(torch)
    with pytest.raises(error, match="index_reduce"):
        make(pyad)


def test_index_reduce_in_place_matches_torch():
    x, src = RNG.normal(size=(3, 2)), RNG.normal(size=(4, 2))
    res = []
    for L in (pyad, torch):
        a = T(L, x, requires_grad=True)
        s = T(L, src, requires_grad=True)
        h = a + 0.0
        out = h.index_reduce_(0, _idx(L, [2, 0, 2, 2]), s, "mean")
        assert out is h and h._version == 1
        (h * T(L, np.arange(6.0).reshape(3, 2))).sum().backward()
        res.append((h, a.grad, s.grad))
    for g, e in zip(*res):
        _close(g, e)
    assert type(pyad.index_reduce(pyad.ones(2, requires_grad=True), 0, pyad.tensor([0]),
                                  pyad.ones(1), "prod").grad_fn).__name__ == \
        "IndexReduceBackward"


# -- as_strided ----------------------------------------------------------------------

STRIDED_CASES = {
    "transpose_like": (lambda x: x, ((2, 3), (1, 2), None)),
    "overlapping_windows": (lambda x: x, ((4, 3), (2, 1), None)),
    "view_default_offset": (lambda x: x[3:], ((2, 2), (2, 1), None)),
    "view_explicit_offset": (lambda x: x[3:], ((3,), (3,), 1)),
    "broadcast_dim": (lambda x: x, ((3, 2), (0, 1), 4)),
    "scalar": (lambda x: x, ((), (), 5)),
    "empty": (lambda x: x, ((0, 3), (5, 1), 0)),
    "expanded_input": (lambda x: x[:4].expand(3, 4), ((2, 2), (1, 2), None)),
    "matrix_input": (lambda x: x.reshape(3, 4).t(), ((3, 3), (4, 1), 0)),
}


@pytest.mark.parametrize("case", sorted(STRIDED_CASES))
def test_as_strided_values_and_gradients_match_torch(case):
    prepare, (size, stride, offset) = STRIDED_CASES[case]
    base = RNG.normal(size=12)

    def fn(L, x):
        v = prepare(x)
        return v.as_strided(size, stride) if offset is None else \
            L.as_strided(v, size, stride, offset)
    _compare(fn, [base], grad_of=(0,))


def test_as_strided_gradcheck_gradgradcheck_and_float32():
    x = pyad.tensor(RNG.normal(size=10), requires_grad=True)
    for f in (lambda a: a[2:].as_strided((3, 3), (2, 1)),
              lambda a: a.as_strided((4, 2), (1, 4), 1),
              lambda a: a.reshape(2, 5).t().as_strided((2, 2), (1, 2))):
        assert gradcheck(f, (x,))
        assert gradgradcheck(f, (x,))
    values = RNG.normal(size=8).astype(np.float32)
    res = [T(L, values).as_strided((3, 2), (2, 1), 1) for L in (pyad, torch)]
    _close(*res)


def test_as_strided_result_owns_its_memory():
    x = pyad.arange(6.0)
    y = x.as_strided((2, 2), (1, 2))
    y.add_(1.0)
    np.testing.assert_array_equal(x.data, np.arange(6.0))


STRIDED_ERRORS = {
    "out_of_bounds": lambda L: L.arange(6.0).as_strided((4,), (2,)),
    "out_of_bounds_offset": lambda L: L.arange(6.0).as_strided((2,), (1,), 5),
    "view_out_of_bounds": lambda L: L.arange(6.0)[4:].as_strided((3,), (1,)),
    "negative_stride": lambda L: L.arange(6.0).as_strided((2,), (-1,)),
    "length_mismatch": lambda L: L.arange(6.0).as_strided((2, 2), (1,)),
    "negative_offset": lambda L: L.arange(6.0).as_strided((2,), (1,), -1),
    "negative_size": lambda L: L.arange(6.0).as_strided((-1,), (1,)),
}


@pytest.mark.parametrize("name", sorted(STRIDED_ERRORS))
def test_as_strided_errors_match_torch(name):
    with pytest.raises(RuntimeError):
        STRIDED_ERRORS[name](torch)
    with pytest.raises(RuntimeError, match="as_strided"):
        STRIDED_ERRORS[name](pyad)


# -- the small methods ---------------------------------------------------------------

@pytest.mark.parametrize("name", ["is_sparse", "is_sparse_csr", "is_quantized", "is_meta",
                                  "is_nested", "is_mkldnn"])
def test_flags_are_false_as_torch(name):
    assert getattr(pyad.ones(2), name) is getattr(torch.ones(2), name) is False
    assert getattr(pyad.ones(2).grad, name, False) is False


def test_layout_and_to_dense_match_torch():
    x, t = pyad.ones(2, 3), torch.ones(2, 3)
    assert repr(x.layout) == repr(t.layout).replace("torch", "pyad") == "pyad.strided"
    assert x.layout == pyad.strided and x.t().layout is pyad.strided
    assert pyad.strided != pyad.sparse_coo and repr(pyad.sparse_coo) == "pyad.sparse_coo"
    assert isinstance(pyad.strided, pyad.layout)
    assert x.to_dense() is x and t.to_dense() is t
    _close(x.to_dense(pyad.float64), t.to_dense(torch.float64))
    a = pyad.ones(2, requires_grad=True)
    assert a.to_dense() is a


def test_predicates_as_methods_match_torch():
    values = np.array([[1.0, -np.inf, 0.0], [np.inf, np.nan, 2.0]])
    for name in ("isposinf", "isneginf", "isreal", "argwhere"):
        _close(getattr(T(pyad, values), name)(), getattr(T(torch, values), name)())
    for data in ([0.0], [2.5], [[True]]):
        assert T(pyad, data).is_nonzero() == T(torch, data).is_nonzero()
    for data in ([], [1.0, 2.0]):
        for L in (pyad, torch):
            with pytest.raises(RuntimeError):
                T(L, data).is_nonzero()
    for L in (pyad, torch):
        assert L.ones(2, 3).is_same_size(L.zeros(2, 3))
        assert not L.ones(2, 3).is_same_size(L.zeros(3, 2))
        with pytest.raises(TypeError):
            L.ones(2).is_same_size(1)


@pytest.mark.parametrize("split", [2, [1, 3], (0, 2, 5), 1])
def test_dsplit_matches_torch(split):
    x = RNG.normal(size=(2, 3, 4))
    res = []
    for L in (pyad, torch):
        t = T(L, x, requires_grad=True)
        parts = t.dsplit(split)
        assert len(L.dsplit(t, split)) == len(parts)
        sum((p * (k + 1.0)).sum() for k, p in enumerate(parts)).backward()
        res.append(list(parts) + [t.grad])
    assert len(res[0]) == len(res[1])
    for g, e in zip(*res):
        _close(g, e)
    for L in (pyad, torch):
        with pytest.raises(RuntimeError):
            L.ones(2, 4).dsplit(2)
        with pytest.raises(RuntimeError):
            L.ones(2, 2, 5).dsplit(2)


def test_narrow_copy_matches_torch_and_copies():
    x = RNG.normal(size=(4, 5))
    _compare(lambda L, a: a.narrow_copy(1, 1, 3), [x], grad_of=(0,))
    _compare(lambda L, a: L.narrow_copy(a, -2, 0, 2), [x], grad_of=(0,))
    a = pyad.tensor(x)
    b = a.narrow_copy(0, 1, 2)
    b.zero_()
    np.testing.assert_array_equal(a.data, x)
    for L in (pyad, torch):
        with pytest.raises(RuntimeError):
            L.narrow_copy(L.arange(6.0), 0, 5, 2)


def test_conj_physical_matches_torch():
    z = np.array([1 + 2j, -3.5j, 2.0])
    _close(T(pyad, z).conj_physical(), T(torch, z).conj_physical())
    _close(pyad.conj_physical(T(pyad, z)), torch.conj_physical(T(torch, z)))
    for L in (pyad, torch):
        real = T(L, [1.0, 2.0])
        assert real.conj_physical() is real
        c = T(L, z)
        assert c.conj_physical_() is c and c._version == 1
        np.testing.assert_array_equal(N(c), np.conj(z))
        r = T(L, [1.0, 2.0])
        assert L.conj_physical_(r) is r and r._version == 1
        with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
            T(L, [1.0, 2.0], requires_grad=True).conj_physical_()
        with L.no_grad():
            T(L, [1.0, 2.0], requires_grad=True).conj_physical_()
    _compare(lambda L, a: a.conj_physical() * 2.0, [np.array([1.0, -2.0])], grad_of=(0,))


def test_cfloat_cdouble_match_torch():
    for values in (np.array([1, -2]), np.array([0.5, 2.0]), np.array([1 + 1j])):
        _close(T(pyad, values).cfloat(), T(torch, values).cfloat())
        _close(T(pyad, values).cdouble(), T(torch, values).cdouble())
    res = []
    for L in (pyad, torch):
        a = T(L, [0.5, -2.0], requires_grad=True)
        (a.cdouble() * T(L, [1 + 2j, 3 - 1j])).real.sum().backward()
        res.append(a.grad)
    _close(*res)


def test_hardshrink_and_prelu_methods_match_torch():
    x = np.array([[-2.0, 0.3, 0.5], [1.0, -0.4, 0.0]])
    _compare(lambda L, a: a.hardshrink(), [x], grad_of=(0,))
    _compare(lambda L, a: a.hardshrink(0.35), [x], grad_of=(0,))
    _compare(lambda L, a: L.hardshrink(a, 0.35), [x], grad_of=(0,))
    _compare(lambda L, a, w: a.prelu(w), [x, np.array([0.25, -0.5, 2.0])], grad_of=(0, 1))
    _compare(lambda L, a, w: L.prelu(a, w), [x, np.array([0.1])], grad_of=(0, 1))


INPLACE_SPECIAL = {
    "heaviside_": (lambda L, v: v.heaviside_(T(L, [0.5, 0.25, 0.75, 1.0])),
                   np.array([-1.0, 0.0, 0.0, 2.0])),
    "gcd_": (lambda L, v: v.gcd_(T(L, [6, 9, 0, -4])), np.array([4, 6, 5, 10])),
    "lcm_": (lambda L, v: v.lcm_(T(L, [6, 9, 0, -4])), np.array([4, 6, 5, 10])),
    "mvlgamma_": (lambda L, v: v.mvlgamma_(3), np.array([1.5, 2.0, 4.0, 6.5])),
    "polygamma_": (lambda L, v: v.polygamma_(2), np.array([0.5, 2.0, 4.0, 6.5])),
    "renorm_": (lambda L, v: v.renorm_(1, 0, 2.0), np.array([[1.0, 2.0], [0.5, 0.25]])),
}


@pytest.mark.parametrize("name", sorted(INPLACE_SPECIAL))
def test_inplace_special_methods_match_torch(name):
    fn, values = INPLACE_SPECIAL[name]
    res = []
    for L in (pyad, torch):
        v = T(L, values)
        view = v[:1]
        assert fn(L, v) is v
        assert v._version == view._version == 1
        res.append(v)
    _close(*res)


def test_inplace_special_methods_gradient_through_a_non_leaf_matches_torch():
    res = []
    for L in (pyad, torch):
        a = T(L, [[1.5, 2.0], [3.0, 0.5]], requires_grad=True)
        h = a * 2.0
        h.mvlgamma_(2)
        g = h * 1.0
        g.polygamma_(1)
        k = g * 1.0
        k.renorm_(2, 1, 0.5)
        k.sum().backward()
        res.append((k, a.grad))
    for g, e in zip(*res):
        _close(g, e)


def test_inplace_special_methods_errors_match_torch():
    cases = [
        (lambda L: T(L, [1.0, 2.0]).gcd_(T(L, [2.0, 4.0])), NotImplementedError),
        (lambda L: T(L, [1, 2]).gcd_(2), TypeError),
        (lambda L: T(L, [1, 2]).mvlgamma_(1), RuntimeError),
        (lambda L: T(L, [1.0, 2.0]).mvlgamma_(0), RuntimeError),
        (lambda L: T(L, [1.0, 2.0]).polygamma_(1.5), TypeError),
        (lambda L: T(L, [1, 2]).polygamma_(1), RuntimeError),
        (lambda L: T(L, [1.0, 2.0]).heaviside_(0.5), TypeError),
        (lambda L: T(L, [1.0, 2.0]).heaviside_(T(L, [1.0, 2.0], dtype=np.float32)),
         RuntimeError),
        (lambda L: T(L, [1.0, 2.0]).renorm_(2, 0, 1.0), RuntimeError),
        (lambda L: T(L, [1.0, 2.0], requires_grad=True).mvlgamma_(1), RuntimeError),
    ]
    for make, error in cases:
        with pytest.raises(error):
            make(torch)
        with pytest.raises(error):
            make(pyad)
