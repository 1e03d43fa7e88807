"""Special functions and floating-point utilities (pyad/ops/special.pxi) and pyad.special.

Each case is checked for values (against references computed independently: NumPy
where it has the function, the math module or mpmath at 30 digits where it does not),
first and second derivatives (gradcheck, gradgradcheck in float64), values and
gradients against PyTorch, and the 0-d, empty, non-contiguous and float32 variants.
Edge points (poles, +-1, 0 * log 0, nan/inf, ties) are compared with torch below,
and the C kernels against torch over wide ranges."""
import math

import numpy as np
import pytest

import pyad
from _ops_helpers import Case, standard_op_tests

torch_available = True
try:
    import torch
except ImportError:             # the torch comparisons skip through torch_lib()
    torch_available = False
needs_torch = pytest.mark.skipif(not torch_available, reason="torch is not installed")


def _mp():
    return pytest.importorskip("mpmath")


def _mp_map(f):
    """A float64 reference of f, computed by mpmath at 30 digits, in the input's dtype."""
    def ref(x, *args):
        mp = _mp()
        mp.mp.dps = 30
        x = np.asarray(x)
        out = np.array([float(f(mp, mp.mpf(float(v)), *args)) for v in x.ravel()],
                       dtype=np.float64).reshape(x.shape)
        return out.astype(x.dtype)
    return ref


def _scalar_map(f):
    def ref(x):
        x = np.asarray(x)
        return np.vectorize(f, otypes=[np.float64])(x).astype(x.dtype) if x.size else x.copy()
    return ref


def _xlogy_ref(x, y, one_plus=False):
    with np.errstate(divide="ignore", invalid="ignore"):
        out = x * (np.log1p(y) if one_plus else np.log(y))
    return np.where((x == 0) & ~np.isnan(y), 0, out).astype(np.result_type(x, y))


NP_REFERENCE = {
    "acosh": np.arccosh, "asinh": np.arcsinh, "atanh": np.arctanh,
    "arccosh": np.arccosh, "arcsinh": np.arcsinh, "arctanh": np.arctanh,
    "fix": np.trunc,
    "erfc": _scalar_map(math.erfc),
    "lgamma": _scalar_map(math.lgamma),
    "erfinv": _mp_map(lambda mp, v: mp.erfinv(v)),
    "digamma": _mp_map(lambda mp, v: mp.digamma(v)),
    "polygamma": lambda n, x: _mp_map(lambda mp, v: mp.polygamma(n, v))(x),
    "mvlgamma": lambda x, p: (sum(_scalar_map(math.lgamma)(x - i / 2) for i in range(p))
                              + p * (p - 1) / 4 * math.log(math.pi)).astype(x.dtype),
    "i0": _mp_map(lambda mp, v: mp.besseli(0, v)),
    "i0e": _mp_map(lambda mp, v: mp.besseli(0, v) * mp.exp(-abs(v))),
    "i1": _mp_map(lambda mp, v: mp.besseli(1, v)),
    "i1e": _mp_map(lambda mp, v: mp.besseli(1, v) * mp.exp(-abs(v))),
    "ndtr": _mp_map(lambda mp, v: mp.ncdf(v)),
    "ndtri": _mp_map(lambda mp, v: mp.sqrt(2) * mp.erfinv(2 * v - 1)),
    "log_ndtr": _mp_map(lambda mp, v: mp.log(mp.ncdf(v))),
    "xlogy": _xlogy_ref,
    "xlog1py": lambda x, y: _xlogy_ref(x, y, True),
    "entr": lambda x: np.where(x == 0, 0, -x * np.log(np.where(x > 0, x, 1))).astype(x.dtype),
    "ldexp": lambda x, e: x * np.exp2(e),
    "frexp_mantissa": lambda x: np.frexp(x)[0],
}


def fn(name, namespace=None):
    """``L.<name>`` (``L.special.<name>`` with namespace="special"); the reference above
    for NumPy."""
    def f(L, *args, **kwargs):
        if L.name == "numpy":
            ref = NP_REFERENCE.get(name)
            return ref(*args, **kwargs) if ref is not None else getattr(np, name)(*args, **kwargs)
        lib = getattr(L, namespace) if namespace else L
        return getattr(lib, name)(*args, **kwargs)
    return f


def _frexp_mantissa(L, x):
    if L.name == "numpy":
        return NP_REFERENCE["frexp_mantissa"](x)
    return L.frexp(x).mantissa * 1.0


CASES = [
    Case("asinh", lambda L, a: fn("asinh")(L, a * 3), [(3, 4)]),
    Case("acosh", lambda L, a: fn("acosh")(L, a + 1.5), [(3, 4)], domain="positive"),
    Case("atanh", lambda L, a: fn("atanh")(L, a * 0.6), [(3, 4)]),
    Case("arcsinh", lambda L, a: fn("arcsinh")(L, a), [(3, 4)]),
    Case("arccosh", lambda L, a: fn("arccosh")(L, a + 1.5), [(3, 4)], domain="positive"),
    Case("arctanh", lambda L, a: fn("arctanh")(L, a * 0.6), [(3, 4)]),
    Case("arcsin", lambda L, a: fn("arcsin")(L, a * 0.6), [(3, 4)]),
    Case("arccos", lambda L, a: fn("arccos")(L, a * 0.6), [(3, 4)]),
    Case("arctan", lambda L, a: fn("arctan")(L, a), [(3, 4)]),
    Case("arctan2", lambda L, a, b: fn("arctan2")(L, a, b), [(3, 4), (4,)]),
    Case("fix", lambda L, a: fn("fix")(L, a * 3) * a, [(3, 4)]),
    Case("exp2", lambda L, a: fn("exp2")(L, a), [(3, 4)]),
    Case("erfc", lambda L, a: fn("erfc")(L, a * 2), [(3, 4)]),
    Case("erfinv", lambda L, a: fn("erfinv")(L, a * 0.6), [(3, 4)]),
    Case("erfinv_tails", lambda L, a: fn("erfinv")(L, a / abs(a) * (abs(a) * 0.09 + 0.855)),
         [(3, 4)]),
    Case("lgamma", lambda L, a: fn("lgamma")(L, a * 3), [(3, 4)]),
    Case("lgamma_negative_non_integers", lambda L, a: fn("lgamma")(L, -a - 0.25), [(3, 4)],
         domain="positive"),
    Case("digamma", lambda L, a: fn("digamma")(L, a * 3), [(3, 4)]),
    Case("digamma_large", lambda L, a: fn("digamma")(L, a * 40), [(3, 4)], domain="positive"),
    # torch's trigamma (which pyad follows, as its digamma's derivative) is accurate to
    # about 5e-10 between 0 and 5 (its series stops early; test_trigamma_... below): the
    # mpmath reference is met at full precision above 10
    Case("polygamma_1", lambda L, a: fn("polygamma")(L, 1, a * 3 + 12), [(3, 4)],
         domain="positive"),
    Case("polygamma_2", lambda L, a: fn("polygamma")(L, 2, a * 3), [(3, 4)]),
    Case("polygamma_3_large", lambda L, a: fn("polygamma")(L, 3, a * 20), [(3, 4)],
         domain="positive"),
    Case("mvlgamma", lambda L, a: fn("mvlgamma")(L, a + 1.5, 3), [(3, 4)], domain="positive"),
    Case("i0", lambda L, a: fn("i0")(L, a * 4), [(3, 4)]),
    Case("i0_large", lambda L, a: fn("i0")(L, a * 40), [(3, 4)]),
    Case("xlogy", lambda L, a, b: fn("xlogy")(L, a, b), [(3, 4), (4,)], domain="positive"),
    Case("xlogy_signed_x", lambda L, a, b: fn("xlogy")(L, a, b * b), [(3, 4), (3, 4)]),
    Case("xlogy_scalar_x", lambda L, a: fn("xlogy")(L, 2.0, a), [(3, 4)], domain="positive"),
    Case("sinc", lambda L, a: fn("sinc")(L, a * 2), [(3, 4)]),
    Case("fmax", lambda L, a, b: fn("fmax")(L, a, b), [(3, 4), (4,)]),
    Case("fmin", lambda L, a, b: fn("fmin")(L, a, b), [(3, 4), (3, 1)]),
    Case("copysign", lambda L, a, b: fn("copysign")(L, a, b), [(3, 4), (4,)]),
    Case("ldexp", lambda L, a, b: fn("ldexp")(L, a, b * 3), [(3, 4), (4,)]),
    Case("frexp_mantissa", _frexp_mantissa, [(3, 4)]),
    # torch.special's own
    Case("special_i0e", lambda L, a: fn("i0e", "special")(L, a * 4), [(3, 4)]),
    Case("special_i1", lambda L, a: fn("i1", "special")(L, a * 4), [(3, 4)]),
    Case("special_i1e", lambda L, a: fn("i1e", "special")(L, a * 4), [(3, 4)]),
    Case("special_ndtr", lambda L, a: fn("ndtr", "special")(L, a * 3), [(3, 4)]),
    Case("special_ndtri", lambda L, a: fn("ndtri", "special")(L, a * 0.45), [(3, 4)],
         domain="positive"),
    Case("special_log_ndtr", lambda L, a: fn("log_ndtr", "special")(L, a * 1.5), [(3, 4)]),
    Case("special_xlog1py", lambda L, a, b: fn("xlog1py", "special")(L, a, b), [(3, 4), (4,)],
         domain="positive"),
    Case("special_entr", lambda L, a: fn("entr", "special")(L, a), [(3, 4)], domain="positive"),
]

(test_values_match_numpy, test_first_derivatives_pass_gradcheck,
 test_second_derivatives_pass_gradgradcheck, test_values_and_gradients_match_torch,
 test_second_derivatives_match_torch, test_create_graph_gradient_equals_plain_gradient,
 test_variant) = standard_op_tests(CASES)


# --------------------------------------------------------------------------------
# The C kernels against torch over wide ranges (poles, negative non-integers, tails)
# --------------------------------------------------------------------------------

_RNG = np.random.default_rng(0)
WIDE = np.concatenate([
    _RNG.uniform(-50, 50, 4000), 10 ** _RNG.uniform(-8, 3, 4000), -10 ** _RNG.uniform(-8, 3, 4000),
    np.arange(-20, 21.0), np.arange(-20, 21) + 0.5,
    [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-300, 1e17, 1e300, -1e300]])
UNIT = np.concatenate([_RNG.uniform(-1, 1, 4000), 1 - 10 ** _RNG.uniform(-16, -1, 1000),
                       -1 + 10 ** _RNG.uniform(-16, -1, 1000),
                       [0.0, -0.0, 1.0, -1.0, 1.5, -2.0, np.nan, np.inf]])
PROB = np.concatenate([_RNG.uniform(0, 1, 4000), 10 ** _RNG.uniform(-320, -1, 1000),
                       1 - 10 ** _RNG.uniform(-16, -1, 1000), [0.0, 1.0, 0.5, -0.1, 1.1, np.nan]])

KERNELS = [
    ("lgamma", lambda x: pyad.lgamma(x), lambda t, x: t.lgamma(x), WIDE, 1e-13),
    ("digamma", lambda x: pyad.digamma(x), lambda t, x: t.digamma(x), WIDE, 1e-13),
    ("polygamma1", lambda x: pyad.polygamma(1, x), lambda t, x: t.polygamma(1, x), WIDE, 1e-13),
    ("polygamma2", lambda x: pyad.polygamma(2, x), lambda t, x: t.polygamma(2, x), WIDE, 1e-13),
    ("polygamma5", lambda x: pyad.polygamma(5, x), lambda t, x: t.polygamma(5, x), WIDE, 1e-13),
    ("erfc", lambda x: pyad.erfc(x), lambda t, x: t.erfc(x), WIDE, 1e-13),
    ("erfinv", lambda x: pyad.erfinv(x), lambda t, x: t.erfinv(x), UNIT, 1e-13),
    ("i0", lambda x: pyad.i0(x), lambda t, x: t.i0(x), WIDE, 1e-13),
    ("i0e", lambda x: pyad.special.i0e(x), lambda t, x: t.special.i0e(x), WIDE, 1e-13),
    ("i1", lambda x: pyad.special.i1(x), lambda t, x: t.special.i1(x), WIDE, 1e-13),
    ("i1e", lambda x: pyad.special.i1e(x), lambda t, x: t.special.i1e(x), WIDE, 1e-13),
    ("ndtri", lambda x: pyad.special.ndtri(x), lambda t, x: t.special.ndtri(x), PROB, 1e-13),
    ("log_ndtr", lambda x: pyad.special.log_ndtr(x), lambda t, x: t.special.log_ndtr(x), WIDE,
     1e-12),
    ("asinh", lambda x: pyad.asinh(x), lambda t, x: t.asinh(x), WIDE, 1e-15),
    ("acosh", lambda x: pyad.acosh(x), lambda t, x: t.acosh(x), WIDE, 1e-15),
    ("atanh", lambda x: pyad.atanh(x), lambda t, x: t.atanh(x), UNIT, 1e-15),
    ("exp2", lambda x: pyad.exp2(x), lambda t, x: t.exp2(x), WIDE, 1e-15),
    ("sinc", lambda x: pyad.sinc(x), lambda t, x: t.sinc(x), WIDE, 1e-15),
    ("entr", lambda x: pyad.special.entr(x), lambda t, x: t.special.entr(x), WIDE, 1e-15),
]


@needs_torch
@pytest.mark.parametrize("name, ours, theirs, inputs, rtol", KERNELS, ids=[k[0] for k in KERNELS])
def test_kernel_matches_torch_over_wide_ranges(name, ours, theirs, inputs, rtol):
    with np.errstate(all="ignore"):
        a = ours(pyad.tensor(inputs)).data
    b = theirs(torch, torch.from_numpy(inputs)).numpy()
    same_nan = np.isnan(a) == np.isnan(b)
    assert same_nan.all(), inputs[~same_nan][:5]
    finite = np.isfinite(b)
    assert (a[~finite & ~np.isnan(b)] == b[~finite & ~np.isnan(b)]).all()
    np.testing.assert_allclose(a[finite], b[finite], rtol=rtol, atol=1e-300)


@needs_torch
def test_ndtr_is_accurate_in_the_left_tail():
    # torch's CPU ndtr loses the far left tail (0 below about -20); pyad's is
    # 0.5 * erfc(-x / sqrt 2), accurate there (mpmath), and equal to torch's elsewhere
    mp = _mp()
    mp.mp.dps = 30
    x = np.array([-30.0, -20.0, -10.0, -5.0, -1.0, 0.0, 1.0, 5.0])
    ours = pyad.special.ndtr(pyad.tensor(x)).data
    # (x / sqrt 2 is rounded to 1e-16, and erfc(t) has condition number 2 t^2 ~ 1e3 at
    # x = -30: a few 1e-13)
    np.testing.assert_allclose(ours, [float(mp.ncdf(v)) for v in x], rtol=5e-13, atol=0)
    theirs = torch.special.ndtr(torch.from_numpy(x)).numpy()
    np.testing.assert_allclose(ours, theirs, rtol=1e-10, atol=1e-12)


@needs_torch
def test_trigamma_follows_torch_within_its_accuracy():
    # polygamma(1) is torch's trigamma bit for bit (so digamma's gradient matches
    # torch's); that algorithm is good to about 5e-10 relative below 5 (mpmath)
    mp = _mp()
    mp.mp.dps = 30
    x = np.concatenate([np.linspace(0.1, 6, 60), -np.linspace(0.1, 6, 60) - 0.05])
    ours = pyad.polygamma(1, pyad.tensor(x)).data
    np.testing.assert_array_equal(ours, torch.polygamma(1, torch.from_numpy(x)).numpy())
    np.testing.assert_allclose(ours, [float(mp.polygamma(1, v)) for v in x], rtol=1e-9)


# --------------------------------------------------------------------------------
# Edge points against torch: values and gradients (poles, +-1, 0 log 0, nan, ties)
# --------------------------------------------------------------------------------

def _both(f_pyad, f_torch, *arrays, grad_inputs=None):
    """Values and the gradient of sum(out * w) from pyad and torch on the same inputs."""
    xs = [pyad.Variable(a.copy(), requires_grad=True) for a in arrays]
    ts = [torch.from_numpy(a.copy()).requires_grad_(True) for a in arrays]
    with np.errstate(all="ignore"):
        out = f_pyad(*xs)
        w = np.linspace(0.5, 1.5, out.data.size).reshape(out.shape)
        if np.iscomplexobj(out.data):
            w = w - 0.5j * w
        grads = pyad.grad(out, xs, pyad.Variable(w), allow_unused=True)
    tout = f_torch(*ts)
    tgrads = torch.autograd.grad(tout, ts, torch.from_numpy(w), allow_unused=True)
    np.testing.assert_allclose(out.data, tout.detach().numpy(), rtol=1e-12, atol=0,
                               equal_nan=True)
    for g, tg in zip(grads, tgrads):
        expected = np.zeros_like(arrays[0]) if tg is None else tg.numpy()
        got = np.zeros_like(expected) if g is None else g.data
        np.testing.assert_allclose(got, expected, rtol=1e-12, atol=0, equal_nan=True)


EDGES = [
    ("lgamma_poles", pyad.lgamma, lambda t: t.lgamma(), [0.0, -0.0, -1.0, -2.0, 1.0, 2.0, 1e-300]),
    ("digamma_poles", pyad.digamma, lambda t: t.digamma(), [0.0, -0.0, -1.0, -2.5, 1e-8, 1e10]),
    ("polygamma2_poles", lambda x: pyad.polygamma(2, x), lambda t: t.polygamma(2),
     [0.0, -1.0, -1.5, 1e-3, 1e10]),
    ("erfinv_ends", pyad.erfinv, lambda t: t.erfinv(), [1.0, -1.0, 0.0, -0.0, 0.999999, 1.5]),
    ("erfc_large", pyad.erfc, lambda t: t.erfc(), [-30.0, 0.0, 10.0, 27.0, 30.0]),
    ("atanh_ends", pyad.atanh, lambda t: t.atanh(), [1.0, -1.0, 0.0, 2.0]),
    ("acosh_one", pyad.acosh, lambda t: t.acosh(), [1.0, 0.5, 10.0]),
    ("i0_large", pyad.i0, lambda t: t.i0(), [0.0, -0.0, 700.0, -700.0, 1e-8]),
    ("i1_zero", pyad.special.i1, lambda t: torch.special.i1(t), [0.0, -0.0, 40.0, -40.0]),
    ("i1e_zero", pyad.special.i1e, lambda t: torch.special.i1e(t), [0.0, 1e3, -1e3, 35.0]),
    ("i0e_large", pyad.special.i0e, lambda t: torch.special.i0e(t), [0.0, 1e3, -1e3, 35.0]),
    ("ndtri_ends", pyad.special.ndtri, lambda t: torch.special.ndtri(t), [0.0, 1.0, 1e-300, 0.5]),
    ("log_ndtr_tails", pyad.special.log_ndtr, lambda t: torch.special.log_ndtr(t),
     [-30.0, -40.0, -5.0, 0.0, 40.0]),
    ("entr_edges", pyad.special.entr, lambda t: torch.special.entr(t), [0.0, -1.0, 1.0, 1e-300]),
    ("sinc_zero", pyad.sinc, lambda t: t.sinc(), [0.0, -0.0, 1e-20, 1.0, -2.5]),
    ("exp2_inf", pyad.exp2, lambda t: t.exp2(), [np.inf, -np.inf, 1100.0, -1100.0]),
    ("nan", pyad.digamma, lambda t: t.digamma(), [np.nan]),
]


@needs_torch
@pytest.mark.parametrize("name, ours, theirs, values", EDGES, ids=[e[0] for e in EDGES])
def test_edge_points_match_torch(name, ours, theirs, values):
    _both(ours, theirs, np.array(values))


@needs_torch
def test_xlogy_zero_times_log_zero_and_its_gradients():
    x = np.array([0.0, 0.0, 0.0, 1.0, 2.0, 0.0])
    y = np.array([0.0, np.nan, np.inf, 0.0, 3.0, 2.0])
    _both(pyad.xlogy, torch.xlogy, x, y)
    _both(pyad.special.xlog1py, torch.special.xlog1py, x, y - 1)


@needs_torch
def test_xlogy_with_a_number_on_either_side():
    y = np.array([0.5, 2.0])
    _both(lambda v: pyad.xlogy(2.0, v), lambda t: torch.xlogy(2.0, t), y)
    _both(lambda v: pyad.xlogy(v, 3.0), lambda t: torch.xlogy(t, 3.0), y)
    _both(lambda v: pyad.xlogy(v, 0), lambda t: torch.xlogy(t, 0), np.array([0.0, 1.0]))


@needs_torch
def test_fmax_fmin_nan_and_ties_send_the_gradient_as_torch():
    a = np.array([1.0, np.nan, 3.0, 2.0, np.nan, -0.0])
    b = np.array([2.0, 0.0, np.nan, 2.0, np.nan, 0.0])
    _both(pyad.fmax, torch.fmax, a, b)
    _both(pyad.fmin, torch.fmin, a, b)


@needs_torch
def test_copysign_signed_zero_and_nan():
    a = np.array([1.0, -2.0, 0.0, -0.0, 3.0, np.nan])
    b = np.array([-0.0, 0.0, -1.0, 1.0, np.nan, -1.0])
    _both(pyad.copysign, torch.copysign, a, b)
    _both(lambda v: pyad.copysign(v, -1.0), lambda t: torch.copysign(t, -1.0), a)


@needs_torch
def test_frexp_mantissa_exponent_and_gradient():
    x = np.array([8.0, 0.75, -3.0, 0.0, 1e-310, np.inf])
    ours = pyad.frexp(pyad.Variable(x, requires_grad=True))
    theirs = torch.frexp(torch.from_numpy(x).requires_grad_(True))
    assert ours._fields == ("mantissa", "exponent")
    assert ours.exponent.dtype == np.int32 and not ours.exponent.requires_grad
    np.testing.assert_array_equal(ours.exponent.data, theirs.exponent.numpy())
    _both(lambda v: pyad.frexp(v).mantissa, lambda t: torch.frexp(t).mantissa,
          np.array([8.0, 0.75, -3.0, 5.5]))


@needs_torch
def test_ldexp_dtypes_and_gradient_of_both_inputs():
    _both(pyad.ldexp, torch.ldexp, np.array([1.0, -3.0, 0.5]), np.array([2.0, -1.0, 0.5]))
    out = pyad.ldexp(pyad.ones(2, dtype=pyad.float32), pyad.tensor([3, 1]))
    ref = torch.ldexp(torch.ones(2), torch.tensor([3, 1]))
    assert out.dtype == np.float32 and str(ref.dtype) == "torch.float32"
    np.testing.assert_array_equal(out.data, ref.numpy())


@needs_torch
def test_integer_inputs_give_torchs_dtypes():
    i = np.array([1, 2, 3])
    for name in ["exp2", "lgamma", "digamma", "erfc", "erfinv", "i0", "asinh", "sinc"]:
        with np.errstate(all="ignore"):
            ours = getattr(pyad, name)(pyad.tensor(i))
            theirs = getattr(torch, name)(torch.from_numpy(i))
        assert str(theirs.dtype) == "torch.float32" and ours.dtype == np.float32, name
        np.testing.assert_allclose(ours.data, theirs.numpy(), rtol=1e-6, equal_nan=True)
    assert pyad.copysign(pyad.tensor([1, 2]), -1).dtype == np.float32
    assert pyad.xlogy(pyad.tensor([1, 2]), pyad.tensor([3, 4])).dtype == np.float32
    assert pyad.fmax(pyad.tensor([1, 2]), pyad.tensor([3, 0])).dtype == np.int64


@needs_torch
def test_no_gradient_ops_match_torch():
    a, b = np.array([-1.5, 0.0, 2.0, np.nan]), np.array([0.5, 0.25, 0.5, 0.5])
    np.testing.assert_array_equal(
        pyad.heaviside(pyad.tensor(a), pyad.tensor(b)).data,
        torch.heaviside(torch.from_numpy(a), torch.from_numpy(b)).numpy())
    np.testing.assert_array_equal(
        pyad.nextafter(pyad.tensor(a), pyad.tensor(b)).data,
        torch.nextafter(torch.from_numpy(a), torch.from_numpy(b)).numpy())
    i, j = np.array([4, -6, 0, 7]), np.array([6, 4, 0, -21])
    for name in ["gcd", "lcm"]:
        ours = getattr(pyad, name)(pyad.tensor(i), pyad.tensor(j))
        theirs = getattr(torch, name)(torch.from_numpy(i), torch.from_numpy(j))
        np.testing.assert_array_equal(ours.data, theirs.numpy())
        assert ours.dtype == np.int64


def test_heaviside_records_and_refuses_its_derivative_as_torch():
    # torch: the result requires grad, and only differentiating it raises
    torch = pytest.importorskip("torch")
    for lib in (pyad, torch):
        x = lib.tensor([-1.0, 0.0, 2.0], requires_grad=True)
        out = lib.heaviside(x, lib.tensor([0.5]))
        assert out.requires_grad and out.grad_fn is not None
        with pytest.raises(RuntimeError, match="derivative for aten::heaviside is not "
                                               "implemented"):
            out.sum().backward()
        with lib.no_grad():
            assert not lib.heaviside(x, lib.tensor([0.5])).requires_grad
        assert not lib.heaviside(x.detach(), lib.tensor([0.5])).requires_grad
    x = pyad.tensor([-1.0, 0.0, 2.0], requires_grad=True)
    # nextafter has torch 2.13's gradient (tests/ops/test_torch_semantics_round.py)
    assert pyad.nextafter(x, pyad.tensor([3.0])).grad_fn.name() == "NextafterBackward"


@pytest.mark.parametrize("call, error, message", [
    (lambda: pyad.polygamma(-1, pyad.tensor([1.0])), RuntimeError, "does not support negative n"),
    (lambda: pyad.polygamma(1.5, pyad.tensor([1.0])), TypeError, "must be int"),
    (lambda: pyad.mvlgamma(pyad.tensor([3.0]), 0), RuntimeError, "p has to be greater"),
    (lambda: pyad.gcd(pyad.tensor([1.0]), pyad.tensor([2.0])), NotImplementedError, "gcd_cpu"),
    (lambda: pyad.frexp(pyad.tensor([1, 2])), RuntimeError, "floating-point"),
    (lambda: pyad.heaviside(pyad.tensor([1.0]), pyad.tensor([1.0], dtype=pyad.float64)),
     RuntimeError, "same dtype"),
    (lambda: pyad.lgamma(pyad.tensor([1j])), NotImplementedError, "complex"),
    (lambda: pyad.fmax(pyad.tensor([1j]), pyad.tensor([1j])), RuntimeError, "complex"),
    (lambda: pyad.xlogy(pyad.ones(2), pyad.ones(3)), RuntimeError, "broadcast"),
])
def test_bad_input_raises_a_clear_error_naming_the_op(call, error, message):
    with pytest.raises(error, match=None) as info:
        call()
    assert message in str(info.value)
    assert str(info.value).split("(")[0] in {"polygamma", "mvlgamma", "gcd", "frexp",
                                               "heaviside", "lgamma", "fmax", "xlogy"}


# --------------------------------------------------------------------------------
# Complex input, in-place twins, pyad.special's names
# --------------------------------------------------------------------------------

@needs_torch
@pytest.mark.parametrize("name", ["asinh", "acosh", "atanh", "exp2"])
def test_complex_values_and_gradients_match_torch(name):
    z = np.array([0.3 + 0.4j, -0.5 + 0.2j, 0.6 - 0.3j])
    _both(getattr(pyad, name), getattr(torch, name), z)
    from pyad.autograd import gradcheck
    assert gradcheck(getattr(pyad, name), (pyad.Variable(z, requires_grad=True),))


@pytest.mark.parametrize("name, args", [("asinh_", ()), ("lgamma_", ()), ("erfinv_", ()),
                                        ("xlogy_", (2.0,)), ("copysign_", (-1.0,)),
                                        ("hypot_", (2.0,)), ("arctan2_", (2.0,))])
def test_inplace_twin_rewrites_history_and_the_gradient_matches_out_of_place(name, args):
    a = pyad.tensor([0.25, 0.5], dtype=pyad.float64, requires_grad=True)
    h = a * 1.0
    getattr(h, name)(*args)
    assert h._version == 1 and h.grad_fn is not None
    h.sum().backward()
    b = pyad.tensor([0.25, 0.5], dtype=pyad.float64, requires_grad=True)
    getattr(pyad, name[:-1])(b * 1.0, *args).sum().backward()
    np.testing.assert_array_equal(a.grad.data, b.grad.data)
    leaf = pyad.tensor([0.25, 0.5], requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf Variable"):
        getattr(leaf, name)(*args)


def test_inplace_binary_twin_takes_the_graph_of_its_other_operand():
    x = pyad.tensor([1.0, 2.0], dtype=pyad.float64)
    y = pyad.tensor([3.0, 4.0], dtype=pyad.float64, requires_grad=True)
    x.xlogy_(y)
    assert x.requires_grad
    x.sum().backward()
    np.testing.assert_allclose(y.grad.data, [1 / 3, 2 / 4], rtol=1e-15)


def test_pyad_special_mirrors_torch_special_names():
    names = ["erf", "erfc", "erfinv", "expit", "logit", "exp2", "expm1", "log1p", "gammaln",
             "digamma", "psi", "polygamma", "multigammaln", "xlogy", "xlog1py", "sinc", "round",
             "entr", "log_softmax", "softmax", "logsumexp", "ndtr", "ndtri", "log_ndtr", "i0",
             "i0e", "i1", "i1e", "gammainc", "gammaincc", "erfcx"]
    # torch.special's Bessel, Airy, zeta and polynomial functions (pyad/_special_more.py,
    # tests/ops/test_special_more.py): torch has none of them at the top level
    more = ["zeta", "bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "modified_bessel_i0",
            "modified_bessel_i1", "modified_bessel_k0", "modified_bessel_k1",
            "scaled_modified_bessel_k0", "scaled_modified_bessel_k1", "spherical_bessel_j0",
            "airy_ai", "chebyshev_polynomial_t", "chebyshev_polynomial_u",
            "chebyshev_polynomial_v", "chebyshev_polynomial_w",
            "shifted_chebyshev_polynomial_t", "shifted_chebyshev_polynomial_u",
            "shifted_chebyshev_polynomial_v", "shifted_chebyshev_polynomial_w",
            "hermite_polynomial_h", "hermite_polynomial_he", "legendre_polynomial_p",
            "laguerre_polynomial_l"]
    assert sorted(pyad.special.__all__) == sorted(names + more)
    for name in more:
        assert not hasattr(pyad, name) and not hasattr(pyad.Variable, name), name
        if torch_available:
            assert hasattr(torch.special, name) and not hasattr(torch, name), name
    assert pyad.special.gammainc is pyad.igamma and pyad.special.gammaincc is pyad.igammac
    assert pyad.special.expit is pyad.sigmoid and pyad.special.gammaln is pyad.lgamma
    assert pyad.special.psi is pyad.digamma
    # torch.special.multigammaln has no domain check (pyad.special.multigammaln neither)
    x = pyad.tensor([2.5, 3.7])
    np.testing.assert_allclose(pyad.special.multigammaln(x, 2).data, pyad.mvlgamma(x, 2).data,
                               rtol=1e-6)
    for name in ["i0e", "i1", "i1e", "ndtr", "ndtri", "log_ndtr", "xlog1py", "entr", "erfcx"]:
        assert not hasattr(pyad, name) and not hasattr(pyad.Variable, name), name


@needs_torch
@pytest.mark.parametrize("name, args", [
    ("expit", ()), ("gammaln", ()), ("psi", ()), ("multigammaln", (2,)), ("logit", ()),
    ("log_softmax", (0,)), ("softmax", (0,)), ("logsumexp", (0,)), ("round", ()),
])
def test_pyad_special_functions_match_torch_special(name, args):
    x = np.array([0.7, 1.5, 2.5])
    _both(lambda v: getattr(pyad.special, name)(v, *args),
          lambda t: getattr(torch.special, name)(t, *args), x)


@needs_torch
def test_gradients_of_gamma_family_higher_orders_match_torch():
    # lgamma -> digamma -> polygamma(1) -> polygamma(2): three derivatives, as torch
    x = np.array([0.3, 1.7, 4.2, -1.5])
    v = pyad.Variable(x.copy(), requires_grad=True)
    t = torch.from_numpy(x.copy()).requires_grad_(True)
    gs, tgs = pyad.lgamma(v).sum(), torch.lgamma(t).sum()
    for _ in range(3):
        (gs,) = pyad.grad(gs, [v], create_graph=True)
        (tgs,) = torch.autograd.grad(tgs, [t], create_graph=True)
        np.testing.assert_allclose(gs.data, tgs.detach().numpy(), rtol=1e-12)
        gs, tgs = gs.sum(), tgs.sum()


def test_mvlgamma_and_sinc_take_what_torch_takes():
    # torch 2.13: no domain check in mvlgamma (lgamma's values, inf at the poles), and
    # sinc of complex input
    torch = pytest.importorskip("torch")
    x = [0.2, 1.0, -3.0, 2.5, 0.75]
    for p in (1, 2, 3):
        np.testing.assert_allclose(pyad.mvlgamma(pyad.tensor(x, dtype=pyad.float64), p).numpy(),
                                   torch.mvlgamma(torch.tensor(x, dtype=torch.float64), p).numpy(),
                                   rtol=1e-12)
    z = [0j, 1 + 1j, 0.5j, -2.5 + 0.25j]
    np.testing.assert_allclose(pyad.sinc(pyad.tensor(z)).numpy(),
                               torch.sinc(torch.tensor(z)).numpy(), rtol=1e-6, atol=1e-7)
    a = pyad.tensor([0.3 + 0.2j, 0j], dtype=pyad.complex128, requires_grad=True)
    t = torch.tensor([0.3 + 0.2j, 0j], dtype=torch.complex128, requires_grad=True)
    pyad.sinc(a).abs().sum().backward()
    torch.sinc(t).abs().sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), t.grad.numpy(), rtol=1e-10, atol=1e-12)
