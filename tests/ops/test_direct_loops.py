"""The hot elementwise ops call NumPy's own inner loops directly on small arrays
(pyad/_loops.pxi): the results must be NumPy's bit for bit, and NumPy's floating-point
warnings and np.errstate must behave as if the ufunc had been called."""
import warnings

import numpy as np
import pytest

import pyad
from pyad import _engine

F32_MAX = float(np.finfo(np.float32).max)

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


def test_byte_swapped_and_read_only_arrays_take_the_ufunc():
    a = np.array([1.0, -2.0, 3.5], dtype=">f8")
    _same(pyad.Variable(a) * 2.0, np.asarray(a * 2.0))
    r = np.array([1.0, 2.0])
    r.flags.writeable = False
    _same(pyad.Variable(r) * 2.0, r * 2.0)
    _same(pyad.tanh(pyad.Variable(r)), np.tanh(r))


hypothesis = pytest.importorskip("hypothesis")
from hypothesis import given, strategies as st  # noqa: E402

_UNARY = {"neg": (pyad.neg, np.negative), "tanh": (pyad.tanh, np.tanh),
          "exp": (pyad.exp, np.exp), "log": (pyad.log, np.log), "sqrt": (pyad.sqrt, np.sqrt)}
_BINARY = {"add": (pyad.add, np.add), "sub": (pyad.sub, np.subtract),
           "mul": (pyad.mul, np.multiply), "div": (pyad.div, np.true_divide)}


@st.composite
def _operands(draw):
    dtype = draw(st.sampled_from([np.float64, np.float32]))
    shape = tuple(draw(st.lists(st.sampled_from([0, 1, 2, 3, 64, 65]), max_size=3)))
    if draw(st.booleans()):
        shape = (draw(st.sampled_from([4095, 4096, 4097])),)
    seed = draw(st.integers(0, 2 ** 16))
    a = np.random.default_rng(seed).standard_normal(shape) * draw(
        st.sampled_from([1.0, 1e-3, 1e3, 1e200]))
    with np.errstate(over="ignore"):
        a = a.astype(dtype)
    layout = draw(st.sampled_from(["c", "f", "strided"]))
    if layout == "f" and a.ndim > 1:
        a = np.asfortranarray(a)
    elif layout == "strided" and a.ndim >= 1 and a.shape[-1] > 1:
        a = np.repeat(a, 2, axis=-1)[..., ::2]
    other = draw(st.sampled_from(["same", "self", "float", "int", "reflected"]))
    return a, other, draw(st.sampled_from([0.5, -3.0, 1e300, 0.0, 7, -2]))


@given(_operands(), st.sampled_from(sorted(_UNARY) + sorted(_BINARY)))
def test_any_small_call_matches_numpy_bit_for_bit(operands, op):
    a, other, s = operands
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)
        if op in _UNARY:
            fn, ref = _UNARY[op]
            _same(fn(pyad.Variable(a)), ref(a))
            return
        fn, ref = _BINARY[op]
        if other == "same":
            b = np.ascontiguousarray(a[::-1]) if a.ndim else a * 2
            _same(fn(pyad.Variable(a), pyad.Variable(b)), ref(a, b))
        elif other == "self":
            v = pyad.Variable(a)
            _same(fn(v, v), ref(a, a))
        elif other == "reflected":
            _same(fn(s, pyad.Variable(a)), ref(s, a))
        else:
            s = float(s) if other == "float" else int(s)
            _same(fn(pyad.Variable(a), s), ref(a, s))
