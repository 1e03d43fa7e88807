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
             "sqrt"}
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
                _same(x - s, a - s)
                _same(s - x, s - a)
                _same(pyad.mul(x, s), np.multiply(a, s))
                _same(pyad.add(x, s), np.add(a, s))
                _same(pyad.sub(x, s), np.subtract(a, s))
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
