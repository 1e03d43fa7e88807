"""The hot elementwise ops call NumPy's own inner loops directly on small arrays
(pyad/_loops.pxi): the results must be NumPy's bit for bit, and NumPy's floating-point
warnings and np.errstate must behave as if the ufunc had been called."""
import warnings

import numpy as np
import pytest

import pyad
from pyad import _engine

F32_MAX = float(np.finfo(np.float32).max)

_UNARY = {"neg": (pyad.neg, np.negative), "tanh": (pyad.tanh, np.tanh),
          "exp": (pyad.exp, np.exp), "log": (pyad.log, np.log), "sqrt": (pyad.sqrt, np.sqrt)}
_BINARY = {"add": (pyad.add, np.add), "sub": (pyad.sub, np.subtract),
           "mul": (pyad.mul, np.multiply), "div": (pyad.div, np.true_divide)}

SPECIAL = [0.0, -0.0, 1.0, -1.5, 0.1, 3e-310, -5e-324, 1e-40, 1e30, -1e300, 1e308,
           np.inf, -np.inf, np.nan, 20.0, -20.0, 7.5e-8]

SCALARS = [1.0001, -0.05, 0.0, -0.0, 2, -3, 0, 1e-320, 1e300, F32_MAX, 3.5e38, -3.5e38,
           np.inf, np.nan, 2 ** 24, 2 ** 24 + 1, 2 ** 53 + 1, 10 ** 30, True]


def _same(got, want):
    # Same dtype, shape and bits (NaN payloads and signed zeros included).
    got = got.detach().numpy() if isinstance(got, pyad.Variable) else np.asarray(got)
    want = np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape, (got, want)
    assert got.tobytes() == want.tobytes(), (got, want)


def _arrays(dtype, rng):
    special = np.array(SPECIAL).astype(dtype) if dtype == np.float64 else \
        np.array(SPECIAL, dtype=np.float64).astype(dtype)
    yield special
    yield np.array(3.25, dtype=dtype)                     # 0-d
    yield np.zeros((0,), dtype=dtype)                     # empty
    yield rng.standard_normal((3, 4)).astype(dtype)
    yield rng.standard_normal(4096).astype(dtype)         # the largest direct size
    yield rng.standard_normal(4097).astype(dtype)         # through the ufunc
    yield rng.standard_normal(16).astype(dtype)[::2]      # not contiguous
    yield rng.standard_normal((4, 3)).astype(dtype).T     # Fortran order


def test_the_table_is_filled_on_this_numpy():
    names = {"add", "subtract", "multiply", "divide", "negative", "tanh", "exp", "log",
             "sqrt", "maximum"}
    assert _engine._direct_loops() == {(n, d) for n in names for d in ("float64", "float32")}


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_binary_ops_with_a_number_match_numpy_bit_for_bit(dtype):
    rng = np.random.default_rng(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        for a in _arrays(dtype, rng):
            x = pyad.Variable(a)
            for s in SCALARS:
                _same(x * s, a * s)
                _same(s * x, s * a)
                _same(x + s, a + s)
                _same(s + x, s + a)
                if s is not True:              # (torch refuses a bool in `-`)
                    _same(x - s, a - s)
                    _same(s - x, s - a)
                    _same(pyad.sub(x, s), np.subtract(a, s))
                _same(pyad.mul(x, s), np.multiply(a, s))
                _same(pyad.add(x, s), np.add(a, s))
                with np.errstate(all="ignore"):          # (pyad's div never warns)
                    _same(x / s, a / s)
                    _same(pyad.div(s, x), np.true_divide(s, a))


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_binary_ops_of_two_arrays_and_unary_ops_match_numpy_bit_for_bit(dtype):
    rng = np.random.default_rng(1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        for a in _arrays(dtype, rng):
            b = np.roll(np.ascontiguousarray(a), 1).reshape(a.shape) if a.ndim else a * 3
            x, y = pyad.Variable(a), pyad.Variable(b)
            _same(x * y, a * b)
            _same(x + y, a + b)
            _same(x - y, a - b)
            _same(x * x, a * a)
            with np.errstate(all="ignore"):
                _same(x / y, a / b)
            _same(-x, -a)
            _same(pyad.neg(x), np.negative(a))
            _same(pyad.tanh(x), np.tanh(a))
            _same(x.tanh(), np.tanh(a))
            with np.errstate(all="ignore"):                 # (pyad's never warn)
                _same(pyad.exp(x), np.exp(a))
                _same(pyad.log(x), np.log(a))
                _same(pyad.sqrt(x), np.sqrt(a))


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_gradients_through_the_direct_loops_match_numpy_formulas(dtype):
    # tanh's backward (g * (1 - y*y)), mul's (g * other) and the in-place accumulation
    # of a leaf's .grad all run on the direct loops for these sizes.
    rng = np.random.default_rng(2)
    a = rng.standard_normal(8).astype(dtype)
    c = rng.standard_normal(8).astype(dtype)
    x = pyad.Variable(a, requires_grad=True)
    z = pyad.tanh(x * 1.5) * pyad.Variable(c)
    z.backward(pyad.Variable(np.ones(8, dtype)))
    y = np.tanh(a * dtype(1.5))
    t = y * y
    t = dtype(1.0) - t
    want = (c * t) * dtype(1.5)
    _same(x.grad, want)
    z2 = pyad.tanh(x * 1.5) * pyad.Variable(c)
    z2.backward(pyad.Variable(np.ones(8, dtype)))          # accumulated in place
    _same(x.grad, want + want)


def test_a_flag_raised_in_place_leaves_the_inputs_for_numpy():
    # x ** -2 is 1 / (x * x) computed in place; for 1e-200, x * x underflows to 0 and
    # 1 / 0 raises divide-by-zero. The direct loop's result is dropped and the ufunc
    # runs again on the untouched 0: inf (torch's value), not 1 / inf = 0.
    x = pyad.Variable(np.array([1e-200, 2.0, -1e-200]))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = x ** -2
    assert out.numpy().tolist() == [np.inf, 0.25, np.inf]
    # x ** 3 = (x * x) * x in place, the second multiply overflowing
    x = pyad.Variable(np.array([1e150, -1e150, 2.0]))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert (x ** 3).numpy().tolist() == [np.inf, -np.inf, 8.0]


def test_numpy_warnings_and_errstate_are_kept():
    x = pyad.Variable(np.array([1e308, 1.0]))
    with pytest.warns(RuntimeWarning, match="overflow encountered in multiply"):
        x * 10.0
    with np.errstate(over="raise"):
        with pytest.raises(FloatingPointError, match="overflow"):
            x * 10.0
        with pytest.raises(FloatingPointError, match="overflow"):
            x + x
    with np.errstate(all="ignore"):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            assert (x * 10.0).numpy().tolist() == [np.inf, 10.0]
    inf = pyad.Variable(np.array([np.inf, 0.0]))
    with pytest.warns(RuntimeWarning, match="invalid value encountered in subtract"):
        inf - inf
    with pytest.warns(RuntimeWarning, match="invalid value encountered in multiply"):
        inf * 0.0
    f32 = pyad.Variable(np.array([1.0, 2.0], dtype=np.float32))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        _same(f32 * 1e300, np.array([1.0, 2.0], dtype=np.float32) * 1e300)
    # A flag left set by earlier code does not make a clean op warn.
    with np.errstate(all="ignore"):
        np.array([1e308]) * 10.0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert (x * 0.5).numpy().tolist() == [5e307, 0.5]


def test_exp_log_sqrt_stay_quiet_at_their_domain_edges():
    # pyad's exp/log/sqrt give inf/nan without a NumPy warning (torch gives none), and
    # np.errstate(all="raise") does not make them raise: as before the direct loops.
    x = pyad.Variable(np.array([0.0, -1.0, 1000.0, 4.0]))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with np.errstate(all="raise"):
            assert pyad.exp(x).numpy()[2] == np.inf
            assert pyad.log(x).numpy()[0] == -np.inf
            assert np.isnan(pyad.log(x).numpy()[1])
            assert np.isnan(pyad.sqrt(x).numpy()[1])
            assert pyad.sqrt(x).numpy()[3] == 2.0


def test_results_are_fresh_arrays_and_inputs_are_untouched():
    a = np.arange(6.0)
    keep = a.copy()
    x = pyad.Variable(a)
    for out in (x * 2.0, 2.0 - x, x + x, -x, pyad.tanh(x)):
        d = out.numpy()
        assert not np.shares_memory(d, a)
        assert d.flags.c_contiguous and d.flags.writeable and d.flags.owndata
    assert np.array_equal(a, keep)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_broadcast_rows_columns_and_one_element_match_numpy(dtype):
    rng = np.random.default_rng(4)
    a = rng.standard_normal((64, 10)).astype(dtype)
    a3 = rng.standard_normal((4, 5, 6)).astype(dtype)
    cases = [(a, a[0]), (a, a[:1]), (a, a[:, :1]), (a, np.ones(1, dtype)),
             (a, np.array(2.5, dtype)), (a3, a3[0]), (a3, a3[0, 0]), (a3, a3[:, :1, :1]),
             (a3, a3[:, :, :1]), (a3, a3[:1, :, :1]), (a[:3, :3], a[0, :3]),
             (np.zeros((0, 3), dtype), np.ones(3, dtype)),
             (rng.standard_normal((65, 2)).astype(dtype), np.ones(2, dtype))]   # > 64 rows
    with np.errstate(all="ignore"):
        for x, y in cases:
            y = np.ascontiguousarray(y)
            for name, (fn, ref) in _BINARY.items():
                _same(fn(pyad.Variable(x), pyad.Variable(y)), ref(x, y))
                _same(fn(pyad.Variable(y), pyad.Variable(x)), ref(y, x))
    with pytest.warns(RuntimeWarning, match="overflow encountered in multiply"):
        pyad.Variable(np.full((4, 3), 1e308)) * pyad.Variable(np.array([1.0, 10.0, 1.0]))


def test_byte_swapped_and_read_only_arrays_take_the_ufunc():
    a = np.array([1.0, -2.0, 3.5], dtype=">f8")
    _same(pyad.Variable(a) * 2.0, np.asarray(a * 2.0))
    r = np.array([1.0, 2.0])
    r.flags.writeable = False
    _same(pyad.Variable(r) * 2.0, r * 2.0)
    _same(pyad.tanh(pyad.Variable(r)), np.tanh(r))


# -- small reductions (sum and max over the last or the first dim) ------------------

_REDUCE_SHAPES = [(1, 1), (2, 1), (1, 5), (3, 4), (64, 10), (64, 256), (7, 1, 3),
                  (2, 3, 129), (300, 2), (5, 257), (4, 1000), (9,), (2, 2, 2, 2),
                  (256, 256), (257, 256)]       # the largest direct size and one past it


def _reduce_inputs(shape, dtype, rng):
    yield (rng.standard_normal(shape) * 10.0 ** rng.uniform(-3, 3, shape)).astype(dtype)
    yield rng.choice(np.array(SPECIAL, dtype=np.float64).astype(dtype), size=shape)
    yield rng.choice(np.array([0.0, -0.0], dtype=dtype), size=shape)   # signed zeros, ties
    yield np.full(shape, -2.5, dtype=dtype)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_sum_and_max_over_one_dim_match_numpy_bit_for_bit(dtype):
    # Over the last dim NumPy sums each row pairwise from +0 (a sum of -0.0s is +0.0),
    # over the first it adds the rows in order; max keeps NaN and picks among tied zeros
    # as NumPy's loop does. The engine runs those loops itself on small arrays.
    rng = np.random.default_rng(7)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        for shape in _REDUCE_SHAPES:
            for a in _reduce_inputs(shape, dtype, rng):
                x = pyad.Variable(a)
                for dim in range(-a.ndim, a.ndim):
                    for keepdim in (True, False):
                        _same(pyad.sum(x, dim, keepdim), a.sum(axis=dim, keepdims=keepdim))
                        _same(pyad.sum(x, (dim,), keepdim), a.sum(axis=dim, keepdims=keepdim))
                        _same(pyad.amax(x, dim, keepdim), a.max(axis=dim, keepdims=keepdim))


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_reductions_on_other_layouts_and_dtypes_match_numpy(dtype):
    rng = np.random.default_rng(8)
    a = rng.standard_normal((6, 8)).astype(dtype)
    for arr in (a.T, a[:, ::2], a[::2], np.asarray(a, dtype=a.dtype.newbyteorder(">")),
                a.astype(np.float16), (a * 100).astype(np.int64)):
        x = pyad.Variable(arr)
        for dim in (0, 1, -1):
            _same(pyad.amax(x, dim, True), arr.max(axis=dim, keepdims=True))
            if arr.dtype == np.float16:
                # float16 accumulates in float32 and rounds once, as torch's
                _same(pyad.sum(x, dim), arr.sum(axis=dim, dtype=np.float32).astype(arr.dtype))
            elif arr.dtype.kind == "f":
                _same(pyad.sum(x, dim), arr.sum(axis=dim))


def test_reduction_overflow_warns_as_numpy():
    # The direct loop's result is dropped when a flag is raised: NumPy's reduce then
    # warns (or raises under np.errstate) exactly as before.
    x = pyad.Variable(np.full((2, 3), 3e38, dtype=np.float32))
    with pytest.warns(RuntimeWarning, match="overflow encountered in reduce"):
        r = pyad.sum(x, 1)
    assert r.numpy().tolist() == [np.inf, np.inf]
    with np.errstate(over="raise"):
        with pytest.raises(FloatingPointError, match="overflow"):
            pyad.sum(x, 0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _same(pyad.sum(pyad.Variable(np.full((2, 3), 1e38, dtype=np.float32)), 1),
              np.full((2, 3), 1e38, dtype=np.float32).sum(axis=1))


def test_reduction_results_are_fresh_writeable_arrays():
    a = np.arange(12.0).reshape(3, 4)
    keep = a.copy()
    x = pyad.Variable(a)
    for out in (pyad.sum(x, 1, True), pyad.sum(x, 0), pyad.amax(x, -1), pyad.amax(x, 0, True)):
        d = out.numpy()
        assert not np.shares_memory(d, a)
        assert d.flags.c_contiguous and d.flags.writeable
    assert np.array_equal(a, keep)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_reduction_gradients_match_torch(dtype):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(9)
    a = rng.standard_normal((5, 7)).astype(dtype)
    a[1, 3] = a[1, 5] = a[1].max() + 1          # a tie for the row maximum
    for dim in (0, 1, -1):
        for fn_p, fn_t in ((lambda v: pyad.sum(v, dim, True), lambda t: t.sum(dim, True)),
                           (lambda v: pyad.amax(v, dim), lambda t: t.amax(dim)),
                           (lambda v: pyad.logsumexp(v, dim), lambda t: t.logsumexp(dim))):
            x = pyad.Variable(a.copy(), requires_grad=True)
            t = torch.tensor(a.copy(), requires_grad=True)
            y, yt = fn_p(x), fn_t(t)
            g = rng.standard_normal(yt.shape).astype(dtype)
            y.backward(pyad.Variable(g))
            yt.backward(torch.tensor(g))
            np.testing.assert_allclose(y.detach().numpy(), yt.detach().numpy(), rtol=1e-6)
            np.testing.assert_allclose(x.grad.numpy(), t.grad.numpy(), rtol=1e-6, atol=1e-6)
