"""Ports of the named behaviour tests of PyTorch's ``test/test_unary_ufuncs.py``
(TestUnaryUfuncs) and ``test/test_binary_ufuncs.py`` (TestBinaryUfuncs) that the
dtype/special-value sweeps (tests/ops/test_torch_sweep_unary.py, ..._binary.py) do not
express: nan_to_num (its replacement values, out=, integer/bool/complex inputs), frexp
(values, out= and its errors), polygamma/digamma/sinc/logit/mvlgamma at their special
points, exp/expm1 at large and special values, abs of big numbers, threshold,
hardshrink/softshrink, silu/mish/hardswish at their edges, isposinf/isneginf/isreal,
i0/i0e/i1/i1e, erfinv, igamma/igammac; div's rounding modes, floor_divide, remainder
and fmod (negative divisors, zero, inf, integer overflow), pow (negative integer
exponents, 0**0, scalar/tensor mixes, complex), ldexp, copysign, nextafter, xlogy,
xlog1py, zeta, heaviside, hypot, gcd, lcm, the shifts with out-of-range amounts, the
logical ops, float_power, lerp, maximum/minimum/fmax/fmin at NaN, add/sub's alpha and
bool checks, a 0-d operand with no device, and type promotion into ``out=``.

Each test keeps the torch test's name (a suffix where one torch test becomes several)
and the meaning of its assertions, written out on concrete inputs.  Expected values come
from torch 2.13 run on the same inputs in the same test (``agree`` compares the result's
shape, dtype and values, or the exception class when torch raises), gradients from
torch's autograd and ``pyad.autograd.gradcheck``; never from pyad's own output.

Left out: the OpInfo-driven tests (``test_reference_numerics_*``, ``test_contig_*``,
``test_batch_vs_slicing``, ...: the sweeps cover them), CUDA/cross-device and
``torch.jit`` tests, bfloat16/half-only tests tied to CUDA kernels, tests needing SciPy
references (SciPy is not installed), and the tests of ops pyad does not have.
Not asserted: which NumPy RuntimeWarnings pyad emits where torch is silent (silu/mish
at +-inf, nan_to_num's float16 overflow of a large posinf); ldexp's gradient for a
negative integer exponent (torch computes pow(2, other) in the integer dtype and
returns 0, a torch accident; the test uses positive exponents and gradcheck).
"""
import math
import warnings

import numpy as np
import pytest

import pyad
import pyad.nn.functional as pF
import pyad.special

torch = pytest.importorskip("torch")
import torch.nn.functional as tF  # noqa: E402

from _ops_helpers import TORCH_TOLERANCES, check_result, dname, tnp  # noqa: E402

inf, nan = math.inf, math.nan


class A:
    """An input given to both libraries as a tensor of the same values."""

    def __init__(self, values, dtype="float64", requires_grad=False):
        self.values = np.asarray(values, dtype=dtype)
        self.requires_grad = requires_grad

    def make(self, lib):
        t = lib.tensor(self.values.copy())
        if self.requires_grad:
            t.requires_grad_(True)
        return t


def _build(lib, args):
    return [a.make(lib) if isinstance(a, A) else a for a in args]


def _run(lib, fn, args):
    inputs = _build(lib, args)
    try:
        return fn(lib, *inputs), None, inputs
    except Exception as exc:  # noqa: BLE001 - the class is what is compared
        return None, exc, inputs


def agree(fn, *args, exact=False):
    """``fn(lib, *inputs)`` with pyad and with torch: the same exception class, or the
    same results (shape, dtype, values within torch's tolerance for the dtype)."""
    t_out, t_exc, _ = _run(torch, fn, args)
    p_out, p_exc, _ = _run(pyad, fn, args)
    if t_exc is not None:
        assert p_exc is not None, f"torch raised {t_exc!r}, pyad returned {p_out!r}"
        assert isinstance(p_exc, type(t_exc)), (p_exc, t_exc)
        return None
    if p_exc is not None:
        raise p_exc
    _compare(p_out, t_out, exact)
    return p_out, t_out


def _compare(p, t, exact):
    if isinstance(t, (tuple, list)):
        assert len(p) == len(t)
        for a, b in zip(p, t):
            _compare(a, b, exact)
        return
    if isinstance(t, torch.Tensor):
        check_result(p, t, exact)
        if t.dtype.is_floating_point and t.numel():
            # signs of zeros too (where both are zero)
            both_zero = (p.data == 0) & (tnp(t) == 0)
            np.testing.assert_array_equal(np.signbit(p.data[both_zero]),
                                          np.signbit(tnp(t)[both_zero]))
    else:
        assert p == t or (p != p and t != t), (p, t)


def agree_grad(fn, *args):
    """The gradients of ``fn(lib, *inputs).sum()`` for the inputs that require grad."""
    t_in, p_in = _build(torch, args), _build(pyad, args)
    fn(torch, *t_in).sum().backward()
    fn(pyad, *p_in).sum().backward()
    for a, p, t in zip(args, p_in, t_in):
        if isinstance(a, A) and a.requires_grad:
            check_result(p.grad, t.grad, exact=False)


def gradcheck(fn, *arrays):
    ins = [pyad.tensor(np.asarray(a, dtype=np.float64), requires_grad=True) for a in arrays]
    assert pyad.autograd.gradcheck(fn, ins)


SPECIAL = [0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 1e-310, 1e300, -1e300, inf, -inf, nan]


# ------------------------------------------------------------------- nan_to_num ----

@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
@pytest.mark.parametrize("kw", [{}, {"nan": 1.5}, {"nan": 2.0, "posinf": 3.0},
                                {"nan": -1.0, "posinf": 4.0, "neginf": -4.0},
                                {"posinf": 1e30}])
def test_nan_to_num(dtype, kw):
    """torch test_nan_to_num: replacement values and the dtype's finite extremes."""
    x = A([nan, inf, -inf, 0.0, -0.0, 1.25, -3.0], dtype)
    agree(lambda L, t: L.nan_to_num(t, **kw), x, exact=True)
    agree(lambda L, t: t.nan_to_num(**kw), x, exact=True)
    agree(lambda L, t: t.clone().nan_to_num_(**kw), x, exact=True)


@pytest.mark.parametrize("dtype", ["bool", "uint8", "int32", "int64"])
def test_nan_to_num_integral(dtype):
    """torch test_nan_to_num on integral inputs: values unchanged, dtype kept."""
    agree(lambda L, t: L.nan_to_num(t, nan=1.0, posinf=2.0), A([0, 1, 1], dtype),
          exact=True)


def test_nan_to_num_out():
    """torch test_nan_to_num with out=: the result lands in out."""
    def f(L, t):
        out = L.empty(4, dtype=L.float32)
        r = L.nan_to_num(t, nan=7.0, out=out)
        assert r is out
        return out
    agree(f, A([nan, inf, -inf, 2.0], "float32"), exact=True)


def test_nan_to_num_complex():
    """torch test_nan_to_num_complex: real and imaginary parts are replaced apart."""
    x = A([complex(nan, inf), complex(-inf, nan), complex(1, -inf), 2 - 3j], "complex128")
    agree(lambda L, t: L.nan_to_num(t), x, exact=True)
    agree(lambda L, t: L.nan_to_num(t, nan=1.0, posinf=2.0, neginf=-2.0), x, exact=True)


def test_nan_to_num_grad():
    """nan_to_num's gradient: zero where a non-finite value was replaced."""
    x = A([nan, inf, -inf, 2.0, -1.0], "float64", requires_grad=True)
    agree_grad(lambda L, t: L.nan_to_num(t) * 0.5, x)


# ------------------------------------------------------------------------ frexp ----

@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_frexp(dtype):
    """torch test_frexp: mantissa in [0.5, 1) (its sign), int32 exponent; 0, inf, nan."""
    vals = [0.0, -0.0, 1.0, -3.5, 0.1, 1000.0, 6e-5, inf, -inf, nan]
    x = A(vals, dtype)
    p, t = agree(lambda L, t: L.frexp(t), x, exact=True)
    assert dname(p[1].dtype) == "int32"
    agree(lambda L, t: tuple(t.frexp()), x, exact=True)
    # mantissa * 2**exponent reconstructs the finite inputs
    m, e = p
    fin = np.isfinite(x.values)
    np.testing.assert_array_equal(np.ldexp(m.data, e.data)[fin], x.values[fin])


def test_frexp_assert_raises():
    """torch test_frexp_assert_raises: integral input refused (RuntimeError)."""
    agree(lambda L, t: L.frexp(t), A([1, 2], "int64"))
    agree(lambda L, t: L.frexp(t), A([True], "bool"))


def test_frexp_out():
    """torch test_frexp_assert_raises (out= part): out= tensors receive the result, and
    an out mantissa of another dtype or a non-int32 exponent is refused."""
    x = A([0.75, -8.0, 3.0], "float32")

    def good(L, t):
        m, e = L.empty(3), L.empty(3, dtype=L.int32)
        L.frexp(t, out=(m, e))
        return m, e
    agree(good, x, exact=True)
    agree(lambda L, t: L.frexp(t, out=(L.empty(3, dtype=L.float64),
                                       L.empty(3, dtype=L.int32))), x)
    agree(lambda L, t: L.frexp(t, out=(L.empty(3), L.empty(3, dtype=L.int64))), x)


# -------------------------------------------------------- polygamma / digamma ----

@pytest.mark.parametrize("n", [0, 1, 2, 3, 4])
def test_polygamma(n):
    """torch test_polygamma: the orders against torch on a range and at special points."""
    x = A([-2.5, -0.5, 0.25, 1.0, 2.0, 5.5, 30.0, inf, nan], "float64")
    agree(lambda L, t: L.polygamma(n, t), x)
    agree(lambda L, t: L.special.polygamma(n, t), x)
    agree(lambda L, t: L.polygamma(n, t), A([0.5, 1.5, 3.0], "float32"))


def test_polygamma_poles():
    """torch test_polygamma_edge_cases: at 0 and the negative integers, polygamma(n)
    is +inf for odd n (and n = 0 from the right), nan from the left."""
    agree(lambda L, t: L.polygamma(1, t), A([0.0, -1.0, -2.0], "float64"))
    agree(lambda L, t: L.polygamma(3, t), A([0.0, -1.0], "float64"))


def test_polygamma_negative_order():
    """polygamma with n < 0 is refused (RuntimeError)."""
    agree(lambda L, t: L.polygamma(-1, t), A([1.0], "float64"))


def test_polygamma_grad():
    """polygamma's derivative is polygamma(n + 1), and twice differentiable."""
    x = A([0.5, 1.5, 4.0], "float64", requires_grad=True)
    agree_grad(lambda L, t: L.polygamma(2, t), x)
    gradcheck(lambda t: pyad.polygamma(1, t), [0.7, 2.1])
    assert pyad.autograd.gradgradcheck(
        lambda t: pyad.polygamma(1, t),
        [pyad.tensor([0.7, 2.1], dtype=pyad.float64, requires_grad=True)])


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_digamma_special(dtype):
    """torch test_digamma_special: digamma(0) = -inf, digamma(-0) = +inf, nan at the
    negative integers, and exact-ish values at 1 and 0.5."""
    x = A([0.0, -0.0, -1.0, -2.0, 1.0, 0.5, inf, -inf, nan], dtype)
    agree(lambda L, t: L.digamma(t), x)
    p, _ = agree(lambda L, t: L.special.psi(t), x)
    assert p.data[0] == -inf and p.data[1] == inf


def test_digamma_integral():
    """torch test_digamma: an integer input gives the default float dtype."""
    agree(lambda L, t: L.digamma(t), A([1, 2, 7], "int64"))
    agree(lambda L, t: L.digamma(t), A([True, False], "bool"))


# -------------------------------------------------------------------- sinc etc ----

def test_sinc():
    """torch test_sinc: sinc(0) = 1 with gradient 0; sinc at integers, inf and nan."""
    x = A([0.0, -0.0, 1.0, -2.0, 0.5, 1e-8, inf, -inf, nan], "float64")
    agree(lambda L, t: L.sinc(t), x)
    agree(lambda L, t: L.special.sinc(t), x)
    agree(lambda L, t: L.sinc(t), A([0, 1, 3], "int64"))
    g = A([0.0, 0.25, -1.5], "float64", requires_grad=True)
    agree_grad(lambda L, t: L.sinc(t), g)
    gradcheck(pyad.sinc, [0.1, -0.7, 2.3])


def test_logit():
    """torch test_logit (and its eps): clamping by eps, 0 -> -inf, 1 -> +inf, outside
    [0, 1] nan, the gradient with eps is zero outside [eps, 1 - eps]."""
    x = A([0.0, 1e-8, 0.2, 0.5, 0.9, 1.0, -0.1, 1.1, nan], "float64")
    agree(lambda L, t: L.logit(t), x)
    for eps in (0.0, 1e-6, 0.25):
        agree(lambda L, t: L.logit(t, eps), x)
        agree(lambda L, t: L.special.logit(t, eps=eps), x)
    agree(lambda L, t: L.logit(t), A([0, 1], "int64"))
    agree(lambda L, t: L.logit(t, 0.1), A([0.05, 0.3, 0.95], "float32"))
    g = A([0.05, 0.3, 0.95], "float64", requires_grad=True)
    agree_grad(lambda L, t: L.logit(t, 0.1), g)
    agree_grad(lambda L, t: L.logit(t), g)


@pytest.mark.parametrize("p", [1, 2, 3, 5])
def test_mvlgamma(p):
    """torch test_mvlgamma: values above the domain bound, (p - 1) / 2."""
    x = A(np.linspace(3.0, 9.0, 7), "float64")
    agree(lambda L, t: L.mvlgamma(t, p), x)
    agree(lambda L, t: L.special.multigammaln(t, p), x)
    agree(lambda L, t: t.mvlgamma(p=p), x)


def test_mvlgamma_argcheck():
    """torch test_mvlgamma_argcheck: an element <= (p - 1) / 2 is refused; p < 1 too."""
    agree(lambda L, t: L.mvlgamma(t, 3), A([1.0, 0.9, 3.0], "float64"))
    agree(lambda L, t: L.mvlgamma(t, 0), A([3.0], "float64"))


def test_mvlgamma_grad():
    """mvlgamma is differentiable: torch's gradient and finite differences."""
    agree_grad(lambda L, t: L.mvlgamma(t, 3), A([2.5, 4.0], "float64", requires_grad=True))
    gradcheck(lambda t: pyad.mvlgamma(t, 2), [1.7, 3.3])


# ----------------------------------------------------------------- exp / expm1 ----

@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_exp_expm1_large_values(dtype):
    """torch test_exp / test_expm1 (large values): overflow to inf, underflow to 0, the
    dtype's limits, expm1 keeps tiny arguments and -inf -> -1."""
    vals = [88.0, 89.0, 700.0, 710.0, -1000.0, -20.0, 1e-10, -0.0, 0.0, inf, -inf, nan]
    x = A(vals, dtype)
    agree(lambda L, t: L.exp(t), x)
    agree(lambda L, t: L.expm1(t), x)


def test_exp_special_values():
    """torch test_exp (complex special values): exp(+-inf + 0j), exp(nan + 0j),
    exp(x + inf j), exp(-inf + inf j)."""
    z = A([complex(inf, 0), complex(-inf, 0), complex(nan, 0), complex(0, inf),
           complex(1.0, nan), complex(-inf, 1.5), complex(0, 0), complex(0.5, -2)],
          "complex128")
    agree(lambda L, t: L.exp(t), z)


def test_exp_slow_and_integral():
    """torch test_exp: a strided input and an integer input (default float dtype)."""
    base = np.linspace(-5, 5, 24).reshape(4, 6)
    agree(lambda L, t: L.exp(t[:, ::2].t()), A(base, "float32"))
    agree(lambda L, t: L.exp(t), A([0, 1, 2], "int32"))
    agree(lambda L, t: L.expm1(t), A([0, 1, 2], "uint8"))


# -------------------------------------------------------------------------- abs ----

def test_abs_big_number():
    """torch test_abs_big_number: abs of the largest integers, and of the most negative
    one (wraps to itself, as in C)."""
    agree(lambda L, t: L.abs(t), A([-2 ** 62, 2 ** 62, -2 ** 63 + 1, -2 ** 63], "int64"),
          exact=True)
    agree(lambda L, t: L.abs(t), A([-128, 127, -1], "int8"), exact=True)
    agree(lambda L, t: L.abs(t), A([-3.4e38, -1e-45, -0.0], "float32"), exact=True)


def test_abs_zero():
    """torch test_abs_zero: abs(-0.0) is +0.0."""
    p, _ = agree(lambda L, t: L.abs(t), A([-0.0, 0.0], "float64"), exact=True)
    assert not np.signbit(p.data).any()


# ---------------------------------------------------------- threshold / shrink ----

@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "uint8"])
def test_threshold(dtype):
    """torch test_threshold: x <= threshold becomes value; NaN passes through."""
    vals = [0, 1, 2, 3, 4, 5] if dtype in ("int64", "uint8") else [nan, -1.0, 0.5, 1.0, 2.5, inf]
    x = A(vals, dtype)
    agree(lambda L, t: L.nn.functional.threshold(t, 1, 20), x, exact=True)
    agree(lambda L, t: L.threshold(t, 1, 20), x, exact=True)


def test_threshold_grad():
    """threshold's gradient is zero where the value was replaced (x <= threshold)."""
    x = A([-1.0, 0.5, 1.0, 2.5], "float64", requires_grad=True)
    agree_grad(lambda L, t: L.nn.functional.threshold(t, 1.0, 7.0) * t, x)


@pytest.mark.parametrize("lambd", [0.0, 0.5, 1.0, 2.5])
def test_hardshrink_softshrink(lambd):
    """torch test_hardshrink / test_softshrink (values at and around lambd, NaN)."""
    x = A([-3.0, -lambd, -0.2, 0.0, 0.2, lambd, 1.0, 3.0, nan, inf, -inf], "float64")
    agree(lambda L, t: L.nn.functional.hardshrink(t, lambd), x, exact=True)
    agree(lambda L, t: L.nn.functional.softshrink(t, lambd), x, exact=True)
    agree(lambda L, t: t.hardshrink(lambd), A(x.values, "float32"), exact=True)


def test_softshrink_negative_lambd():
    """torch test_softshrink_negative: a negative lambda is refused (RuntimeError)."""
    agree(lambda L, t: L.nn.functional.softshrink(t, -0.5), A([1.0, -1.0], "float32"))


def test_shrink_grads():
    """hardshrink/softshrink gradients away from the kinks."""
    x = A([-3.0, -0.2, 0.3, 2.0], "float64", requires_grad=True)
    agree_grad(lambda L, t: L.nn.functional.hardshrink(t, 0.5) * t, x)
    agree_grad(lambda L, t: L.nn.functional.softshrink(t, 0.5) * t, x)


# ------------------------------------------------------- silu / mish / hardswish ----

EDGE = [-1e4, -100.0, -3.0, -1.0, -0.0, 0.0, 1e-30, 1.0, 3.0, 100.0, 1e4, inf, -inf, nan]


@pytest.mark.parametrize("name", ["silu", "mish", "hardswish", "hardsigmoid"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_activation_edge_values(name, dtype):
    """torch test_silu / test_mish / test_hardswish (edge values: +-inf, nan, big)."""
    agree(lambda L, t: getattr(L.nn.functional, name)(t), A(EDGE, dtype))


@pytest.mark.parametrize("name", ["silu", "mish", "hardswish"])
def test_activation_edge_grads(name):
    """Their gradients at finite edge values (saturated tails, near zero, the kinks of
    hardswish at +-3 taken as torch does)."""
    x = A([-100.0, -3.0, -1.0, 0.0, 1.0, 3.0, 100.0], "float64", requires_grad=True)
    agree_grad(lambda L, t: getattr(L.nn.functional, name)(t), x)


def test_silu_mish_inplace():
    """F.silu/mish(inplace=True) write into their input and return it."""
    for name in ("silu", "mish"):
        def f(L, t, name=name):
            c = t.clone()
            r = getattr(L.nn.functional, name)(c, inplace=True)
            assert r is c
            return c
        agree(f, A([-2.0, 0.0, 1.5], "float32"))


# ------------------------------------------------------ isposinf / isneginf / isreal ----

@pytest.mark.parametrize("dtype", ["float16", "float32", "float64", "int64", "uint8", "bool"])
def test_isposinf_isneginf(dtype):
    """torch test_isposinf_isneginf_non_boolean_output / test_isinf: bool results over
    the real dtypes."""
    vals = [inf, -inf, nan, 0.0, -1.0] if dtype.startswith("float") else [0, 1, 1, 0]
    x = A(vals, dtype)
    agree(lambda L, t: L.isposinf(t), x, exact=True)
    agree(lambda L, t: L.isneginf(t), x, exact=True)


def test_isposinf_isneginf_complex_refused():
    """torch: isposinf/isneginf do not support complex inputs (RuntimeError)."""
    agree(lambda L, t: L.isposinf(t), A([1 + 1j], "complex64"))
    agree(lambda L, t: L.isneginf(t), A([1 + 1j], "complex64"))


def test_isposinf_isneginf_out():
    """torch test_isposinf_isneginf_non_boolean_output: out= must be bool."""
    x = A([inf, -inf, 1.0], "float32")
    agree(lambda L, t: L.isposinf(t, out=L.empty(3, dtype=L.float32)), x)

    def good(L, t):
        out = L.empty(3, dtype=L.bool)
        L.isneginf(t, out=out)
        return out
    agree(good, x, exact=True)


@pytest.mark.parametrize("dtype", ["complex64", "complex128", "float32", "int64", "bool"])
def test_isreal(dtype):
    """torch test_isreal_*: imaginary part zero (any sign); real dtypes all True."""
    if dtype.startswith("complex"):
        vals = [1 + 0j, complex(1, -0.0), 1j, complex(nan, 0), complex(0, nan), complex(inf, 0)]
    elif dtype == "bool":
        vals = [True, False]
    else:
        vals = [1, 0, -3]
    agree(lambda L, t: L.isreal(t), A(vals, dtype), exact=True)


# ---------------------------------------------------------------- Bessel i0 ... ----

@pytest.mark.parametrize("name", ["i0", "i0e", "i1", "i1e"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_special_i0_i1_values(name, dtype):
    """torch test_special_i0_i1_vs_scipy / test_i0_range*: small, large, signed, special
    values (i0(inf) = inf, i0e(inf) = 0, i1(-inf) = -inf ...)."""
    x = A([0.0, -0.0, 1e-30, 0.5, -0.5, 3.0, -7.5, 30.0, 85.0, 700.0, inf, -inf, nan], dtype)
    agree(lambda L, t: getattr(L.special, name)(t), x)


def test_i0_integral_and_grad():
    """torch test_i0: integer input gives the default float dtype; i0' = i1."""
    agree(lambda L, t: L.i0(t), A([0, 1, 5], "int64"))
    x = A([-2.0, 0.0, 0.5, 3.0], "float64", requires_grad=True)
    agree_grad(lambda L, t: L.i0(t), x)
    agree_grad(lambda L, t: L.special.i0e(t), x)
    agree_grad(lambda L, t: L.special.i1(t), x)
    agree_grad(lambda L, t: L.special.i1e(t), x)


# ------------------------------------------------------------------------ erfinv ----

@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_erfinv_edge(dtype):
    """torch test_erfinv (edge): erfinv(+-1) = +-inf, |x| > 1 nan, erfinv(-0) = -0."""
    x = A([-1.0, 1.0, -1.5, 2.0, 0.0, -0.0, 0.5, -0.999999, nan], dtype)
    agree(lambda L, t: L.erfinv(t), x)
    agree(lambda L, t: L.special.erfinv(t), x)
    agree(lambda L, t: L.erfinv(t), A([0, 1], "int64"))


# ------------------------------------------------------------- igamma / igammac ----

def test_igamma_igammac_edges():
    """torch test_igamma_common / test_igammac_common / edge cases: a = 0, x = 0,
    infinities and nan."""
    a = A([0.0, 0.0, 1.0, 2.0, inf, 1.0, 3.0, nan, 0.5, -1.0], "float64")
    x = A([0.0, 1.0, 0.0, inf, 1.0, 1e-300, 2.5, 1.0, nan, 1.0], "float64")
    agree(lambda L, a, x: L.igamma(a, x), a, x)
    agree(lambda L, a, x: L.igammac(a, x), a, x)
    agree(lambda L, a, x: L.special.gammainc(a, x), a, x)
    agree(lambda L, a, x: L.special.gammaincc(a, x), a, x)


def test_igamma_int_refused_and_grad():
    """igamma on integers is not implemented (RuntimeError); the gradient wrt x exists,
    the one wrt a is refused (torch: not implemented)."""
    agree(lambda L, a, x: L.igamma(a, x), A([1, 2], "int64"), A([1, 2], "int64"))
    agree_grad(lambda L, a, x: L.igamma(a, x),
               A([1.5, 2.0], "float64"), A([0.5, 3.0], "float64", requires_grad=True))

    def wrt_a(L, a, x):
        L.igamma(a, x).sum().backward()
        return a.grad
    agree(wrt_a, A([1.5, 2.0], "float64", requires_grad=True), A([0.5, 3.0], "float64"))


# ============================================================ binary ufuncs ====

@pytest.mark.parametrize("dtype", ["int8", "int32", "int64", "float32", "float64"])
@pytest.mark.parametrize("mode", [None, "trunc", "floor"])
def test_div_rounding_modes(dtype, mode):
    """torch test_div_rounding_modes: true division, trunc and floor over signs."""
    a = A([7, -7, 7, -7, 0, 5, -128 if dtype == "int8" else -9], dtype)
    b = A([2, 2, -2, -2, 3, 1, -1 if dtype == "int8" else 4], dtype)
    agree(lambda L, x, y: L.div(x, y, rounding_mode=mode), a, b)
    agree(lambda L, x, y: x.div(y, rounding_mode=mode), a, b)
    agree(lambda L, x, y: L.div(x, 3, rounding_mode=mode), a, b)


def test_div_rounding_nonfinite():
    """torch test_div_rounding_nonfinite: nan, inf and signed zero through each mode."""
    vals = [0.0, -0.0, 1.0, -1.0, inf, -inf, nan]
    a = A([x for x in vals for _ in vals], "float64")
    b = A([y for _ in vals for y in vals], "float64")
    for mode in (None, "trunc", "floor"):
        agree(lambda L, x, y: L.div(x, y, rounding_mode=mode), a, b, exact=True)
        agree(lambda L, x, y: L.div(x, y, rounding_mode=mode),
              A(a.values, "float32"), A(b.values, "float32"), exact=True)


def test_div_rounding_mode_invalid():
    """torch: an unknown rounding_mode is refused (RuntimeError: div expected ...)."""
    agree(lambda L, x: L.div(x, 2, rounding_mode="round"), A([1.0]))


def test_divide_by_zero_rounding_integral():
    """torch test_divide_by_zero_rounding: integer division by zero with a rounding mode
    raises (RuntimeError: ZeroDivisionError); true division gives inf/nan."""
    a, b = A([1, 0, -1], "int64"), A([0, 0, 0], "int64")
    agree(lambda L, x, y: L.div(x, y), a, b)
    agree(lambda L, x, y: L.div(x, y, rounding_mode="trunc"), a, b)
    agree(lambda L, x, y: L.div(x, y, rounding_mode="floor"), a, b)


@pytest.mark.parametrize("dtype", ["int16", "int64", "float32", "float64"])
def test_floor_divide_tensor(dtype):
    """torch test_floor_divide_tensor / _scalar: floors (torch 2.x), signs of zeros."""
    a = A([5, -5, 5, -5, 0, 9, -1], dtype)
    b = A([3, 3, -3, -3, -2, 4, 7], dtype)
    agree(lambda L, x, y: L.floor_divide(x, y), a, b, exact=True)
    agree(lambda L, x, y: x // y, a, b, exact=True)
    agree(lambda L, x, y: x // 2, a, b, exact=True)
    agree(lambda L, x, y: -7 // x.clone().add_(10), a, b, exact=True)


def test_floor_divide_zero():
    """torch test_floor_divide_zero: integer // 0 raises; float // 0 is +-inf / nan."""
    agree(lambda L, x, y: L.floor_divide(x, y), A([1, 0], "int64"), A([0, 0], "int64"))
    agree(lambda L, x, y: L.floor_divide(x, y), A([1.0, -1.0, 0.0], "float64"),
          A([0.0, 0.0, 0.0], "float64"), exact=True)


def test_floor_divide_out():
    """torch test_floor_divide_out: out= of the right dtype receives the result."""
    def f(L, x, y):
        out = L.empty(3, dtype=x.dtype)
        L.floor_divide(x, y, out=out)
        return out
    agree(f, A([7, -7, 8], "int64"), A([2, 2, -3], "int64"), exact=True)


@pytest.mark.parametrize("op", ["remainder", "fmod"])
@pytest.mark.parametrize("dtype", ["int32", "int64", "float32", "float64"])
def test_fmod_remainder(op, dtype):
    """torch test_fmod_remainder: negative dividends and divisors, a scalar divisor,
    remainder takes the divisor's sign, fmod the dividend's."""
    a = A([7, -7, 7, -7, 0, 3, -3], dtype)
    b = A([3, 3, -3, -3, 5, -7, 7], dtype)
    agree(lambda L, x, y: getattr(L, op)(x, y), a, b, exact=True)
    agree(lambda L, x, y: getattr(L, op)(x, -3), A([7, -7, 5], dtype), b, exact=True)
    agree(lambda L, x, y: getattr(x, op)(y), a, b, exact=True)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("op", ["remainder", "fmod"])
def test_fmod_remainder_zero_result_sign(op, dtype):
    """torch test_fmod_remainder (zero results): torch's remainder is fmod plus the
    divisor when the signs differ and the fmod is non-zero, so a zero result keeps the
    dividend's sign (remainder(0.0, -2) = +0.0, remainder(-0.0, 2) = -0.0)."""
    agree(lambda L, x: getattr(L, op)(x, -2), A([0.0, -0.0, 4.0, -4.0], dtype), exact=True)
    agree(lambda L, x: getattr(L, op)(x, 2), A([0.0, -0.0, 4.0, -4.0], dtype), exact=True)


def test_fmod_remainder_by_zero_and_inf():
    """torch test_fmod_remainder_by_zero_float / _integral / inf divisors: float by 0
    is nan, integral by 0 raises; x rem +-inf keeps x when signs agree."""
    for op in ("remainder", "fmod"):
        agree(lambda L, x, y: getattr(L, op)(x, y), A([1.5, -1.5, 0.0], "float64"),
              A([0.0, -0.0, 0.0], "float64"), exact=True)
        agree(lambda L, x, y: getattr(L, op)(x, y), A([3, -3], "int64"), A([0, 0], "int64"))
        agree(lambda L, x, y: getattr(L, op)(x, y),
              A([2.5, -2.5, 2.5, -2.5, inf, nan], "float64"),
              A([inf, inf, -inf, -inf, 2.0, 1.0], "float64"), exact=True)


def test_remainder_int_overflow():
    """torch test_remainder_overflow: int64 min % -1 is 0 (no trap); big divisors."""
    for op in ("remainder", "fmod"):
        agree(lambda L, x, y: getattr(L, op)(x, y),
              A([-2 ** 63, -2 ** 63, 2 ** 63 - 1, 5], "int64"),
              A([-1, 2 ** 63 - 1, -2 ** 63, -2 ** 63], "int64"), exact=True)


def test_fmod_remainder_grad():
    """The gradients of remainder/fmod (1 wrt x, -floor/trunc(x/y) wrt y)."""
    x = A([7.5, -7.5, 2.25], "float64", requires_grad=True)
    y = A([2.0, 2.0, -1.5], "float64", requires_grad=True)
    agree_grad(lambda L, a, b: L.remainder(a, b), x, y)
    agree_grad(lambda L, a, b: L.fmod(a, b), x, y)


# ---------------------------------------------------------------------------- pow ----

def test_pow_int_negative_exponent():
    """torch test_int_pow / test_pow: an integral base to a negative integral power is
    refused (RuntimeError: Integers to negative integer powers are not allowed)."""
    agree(lambda L, x: L.pow(x, -1), A([1, 2], "int64"))
    agree(lambda L, x: x ** -2, A([1, 2], "int32"))
    agree(lambda L, x, e: L.pow(x, e), A([2, 3], "int64"), A([-1, 2], "int64"))
    agree(lambda L, e: L.pow(2, e), A([-1, 2], "int64"))
    # a float exponent promotes instead
    agree(lambda L, x: L.pow(x, -1.0), A([1, 2], "int64"))


@pytest.mark.parametrize("dtype", ["int64", "float32", "float64", "complex128"])
def test_pow_zero_to_zero(dtype):
    """torch test_pow (0 ** 0 = 1 in every dtype, 0 ** negative = inf for floats)."""
    agree(lambda L, x, e: L.pow(x, e), A([0, 0, 1], dtype), A([0, 2, 0], dtype), exact=True)
    agree(lambda L, x: L.pow(x, 0), A([0, 5], dtype), exact=True)
    if not dtype.startswith("int"):
        agree(lambda L, x: L.pow(x, -1), A([0.0, -0.0], dtype))


@pytest.mark.parametrize("base_dtype", ["int64", "float32", "float64"])
def test_pow_scalar_tensor_mixes(base_dtype):
    """torch test_pow_scalar_base / test_pow (scalar mixes): Python scalar on either
    side, bool and 0-d tensor exponents, their result dtypes."""
    x = A([1, 2, 3], base_dtype)
    agree(lambda L, t: L.pow(t, 2), x)
    agree(lambda L, t: L.pow(t, 0.5), x)
    agree(lambda L, t: L.pow(2, t), x)
    agree(lambda L, t: L.pow(2.5, t), x)
    agree(lambda L, t: 3 ** t, x)
    agree(lambda L, t: t ** L.tensor(2.0), x)
    agree(lambda L, t: t ** L.tensor([2.0, 1.0, 0.5], dtype=L.float64), x)
    agree(lambda L, t: L.tensor(2.0, dtype=L.float64) ** t, x)
    agree(lambda L, t: L.pow(t, True), x)


def test_pow_complex():
    """torch test_complex_scalar_pow_tensor / test_pow (complex): complex scalar base or
    exponent, complex tensors, special points."""
    z = A([1 + 1j, -2 + 0.5j, 0j, -1 + 0j], "complex128")
    agree(lambda L, t: L.pow(t, 2), z)
    agree(lambda L, t: L.pow(t, 0.5), z)
    agree(lambda L, t: L.pow(t, 1j), z)
    agree(lambda L, t: (1 + 2j) ** t, z)
    agree(lambda L, t: L.pow(t, t), A([1 + 1j, -2 + 0.5j, 3j], "complex128"))
    agree(lambda L, x: (2 + 1j) ** x, A([0.5, -1.0, 2.0], "float32"))
    agree(lambda L, x: L.pow(x, 1j), A([0.5, 2.0], "float64"))


def test_pow_inplace_refused_promotion():
    """torch test_pow_inplace_resizing_exception / promotion: x.pow_(float) on an int
    tensor cannot cast the float result (RuntimeError)."""
    agree(lambda L, x: x.clone().pow_(2.5), A([1, 2], "int64"))
    agree(lambda L, x: x.clone().pow_(2), A([1, 2], "int64"), exact=True)


def test_pow_grads():
    """pow's gradients: tensor ** scalar, scalar ** tensor, tensor ** tensor, 0 ** 0."""
    x = A([0.5, 1.5, 2.0], "float64", requires_grad=True)
    y = A([2.0, -0.5, 3.0], "float64", requires_grad=True)
    agree_grad(lambda L, a, b: L.pow(a, b), x, y)
    agree_grad(lambda L, a: 2.0 ** a, x)
    agree_grad(lambda L, a: L.pow(a, 0), A([0.0, 1.0], "float64", requires_grad=True))
    agree_grad(lambda L, a: L.pow(a, 0.0), A([0.0, 1.0], "float64", requires_grad=True))


# -------------------------------------------------------- cumulative_trapezoid ----

def test_cumulative_trapezoid():
    """torch test_cumulative_trapezoid: dx, x, dim, empty dim; gradient."""
    y = A(np.arange(12.0).reshape(3, 4) ** 2, "float64")
    agree(lambda L, t: L.cumulative_trapezoid(t), y)
    agree(lambda L, t: L.cumulative_trapezoid(t, dx=0.5, dim=0), y)
    agree(lambda L, t: L.cumulative_trapezoid(t, L.tensor([0.0, 1.0, 3.0, 6.0],
                                                          dtype=L.float64)), y)
    agree(lambda L, t: L.cumulative_trapezoid(t), A(np.zeros((2, 0))))
    agree(lambda L, t: L.cumulative_trapezoid(t, dim=2), y)
    agree_grad(lambda L, t: L.cumulative_trapezoid(t, dx=0.3),
               A([[1.0, 2.0, 4.0], [0.5, -1.0, 3.0]], "float64", requires_grad=True))


# ----------------------------------------------- ldexp / copysign / nextafter ----

def test_ldexp():
    """torch test_ldexp: float mantissa, int exponents (big, negative), int mantissa
    promotes, complex mantissa."""
    m = A([1.0, -0.5, 3.0, 0.0, inf, nan, 1.5], "float64")
    e = A([0, 3, -2, 10, 1, 1, 1100], "int64")
    agree(lambda L, x, y: L.ldexp(x, y), m, e)
    agree(lambda L, x, y: L.ldexp(x, y), A(m.values, "float32"), A(e.values, "int32"))
    agree(lambda L, x, y: L.ldexp(x, y), A([1, 2, 3], "int64"), A([1, 2, 3], "int64"))
    agree(lambda L, x, y: L.ldexp(x, y), A([1 + 1j, 2j], "complex64"), A([2, 3], "int64"))
    # (positive exponents: torch's LdexpBackward computes pow(2, other) in the integer
    # dtype, so its gradient for a negative integer exponent is 0, not 2**e)
    agree_grad(lambda L, x, y: L.ldexp(x, y), A([1.0, -0.5], "float64", requires_grad=True),
               A([2, 3], "int64"))
    gradcheck(lambda x: pyad.ldexp(x, pyad.tensor([2, 3])), [1.0, -0.5])


def test_copysign():
    """torch test_copysign: sign from other incl. -0.0 and nan's sign bit; int inputs
    promote; scalar other."""
    a = A([1.0, -2.0, 0.0, -0.0, inf, nan, 3.0], "float64")
    b = A([-0.0, 0.0, -1.0, 1.0, -inf, -1.0, -nan], "float64")
    agree(lambda L, x, y: L.copysign(x, y), a, b, exact=True)
    agree(lambda L, x, y: L.copysign(x, -0.0), a, b, exact=True)
    agree(lambda L, x, y: L.copysign(x, y), A([1, -2, 0], "int64"), A([-1, 1, -1], "int32"))
    agree(lambda L, x, y: L.copysign(x, y), A([True, False], "bool"),
          A([-1.0, -1.0], "float32"), exact=True)


def test_copysign_subgradient():
    """torch test_copysign_subgradient: the gradient at x = 0 and at y = +-0."""
    x = A([0.0, 0.0, -0.0, 2.0, -3.0], "float64", requires_grad=True)
    y = A([1.0, -1.0, 0.0, -0.0, 0.0], "float64", requires_grad=True)
    agree_grad(lambda L, a, b: L.copysign(a, b), x, y)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_nextafter(dtype):
    """torch test_nextafter: toward larger/smaller/equal, from 0, at inf, nan."""
    a = A([1.0, 1.0, 1.0, 0.0, 0.0, inf, nan, -0.0], dtype)
    b = A([2.0, 0.0, 1.0, 1.0, -1.0, 0.0, 1.0, 0.0], dtype)
    agree(lambda L, x, y: L.nextafter(x, y), a, b, exact=True)


# --------------------------------------------------------- xlogy / xlog1py / zeta ----

@pytest.mark.parametrize("name", ["xlogy", "xlog1py"])
def test_xlogy_xlog1py(name):
    """torch test_xlogy_xlog1py (its special-value part): x = 0 gives 0 unless y is nan,
    nan in x or y propagates; scalar forms; integer inputs promote."""
    x = A([0.0, 0.0, 0.0, 1.0, nan, 2.0, 0.0, -1.0], "float64")
    y = A([0.0, -1.0, nan, 0.0, 1.0, -5.0, inf, 2.5], "float64")
    fn = (lambda L: L.xlogy) if name == "xlogy" else (lambda L: L.special.xlog1py)
    agree(lambda L, a, b: fn(L)(a, b), x, y)
    agree(lambda L, a, b: fn(L)(a, 3.0), x, y)
    agree(lambda L, a, b: fn(L)(2, b), x, y)
    agree(lambda L, a, b: fn(L)(a, b), A([0, 1, 2], "int64"), A([1, 2, 3], "int64"))
    agree(lambda L, a, b: fn(L)(a, b), A([0, 1], "float32"), A([1, 2], "float64"))
    agree_grad(lambda L, a, b: fn(L)(a, b), A([0.0, 1.5, 2.0], requires_grad=True),
               A([0.5, 2.0, 3.0], requires_grad=True))


def test_zeta():
    """torch test_zeta: Hurwitz zeta(x, q) at q = 1 (Riemann), x = 1 pole, x < 1 nan,
    scalar forms, integer promotion."""
    x = A([2.0, 3.0, 1.0, 0.5, 4.0, 2.0, inf], "float64")
    q = A([1.0, 2.0, 1.0, 1.0, 0.5, -1.5, 1.0], "float64")
    agree(lambda L, a, b: L.special.zeta(a, b), x, q)
    agree(lambda L, a, b: L.special.zeta(a, 1.0), x, q)
    agree(lambda L, a, b: L.special.zeta(2.0, b), x, q)
    agree(lambda L, a, b: L.special.zeta(a, b), A([2, 3], "int64"), A([1, 2], "int64"))


# ------------------------------------------------------------------- heaviside ----

def test_heaviside():
    """torch test_heaviside: 0 for x < 0, 1 for x > 0, values at x == 0; nan."""
    x = A([-1.5, 0.0, -0.0, 2.0, nan, -inf, inf], "float64")
    v = A([0.5, 0.25, 0.75, 0.5, 0.5, 0.5, 0.5], "float64")
    agree(lambda L, a, b: L.heaviside(a, b), x, v, exact=True)
    agree(lambda L, a, b: L.heaviside(a, b), A([-2, 0, 3], "int64"), A([7, 8, 9], "int64"),
          exact=True)
    agree(lambda L, a, b: a.heaviside(b), A([-2, 0], "int32"), A([5, 5], "int32"), exact=True)


def test_heaviside_errors():
    """torch test_heaviside_cross_device / _complex / dtype mismatch: values of another
    dtype are refused (RuntimeError), complex refused, gradient not implemented."""
    agree(lambda L, a, b: L.heaviside(a, b), A([-1.0, 0.0], "float32"), A([1.0], "float64"))
    agree(lambda L, a, b: L.heaviside(a, b), A([-1, 0], "int64"), A([1.0], "float32"))
    agree(lambda L, a, b: L.heaviside(a, b), A([1j], "complex64"), A([1j], "complex64"))

    def grad(L, a, b):
        L.heaviside(a, b).sum().backward()
        return a.grad
    agree(grad, A([1.0, -1.0], requires_grad=True), A([0.5, 0.5]))


# ------------------------------------------------------------------------ hypot ----

@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_hypot(dtype):
    """torch test_hypot: broadcast, inf beats nan, zeros, large values without overflow."""
    big = 1e200 if dtype == "float64" else 1e30
    a = A([[3.0, 0.0, inf, nan, big, -5.0]], dtype)
    b = A([[4.0], [-0.0], [nan]], dtype)
    agree(lambda L, x, y: L.hypot(x, y), a, b)
    agree(lambda L, x, y: L.hypot(x, y), A([1e38, 3e-39], "float32"), A([1e38, 4e-39], "float32"))


def test_hypot_errors_and_grad():
    """hypot refuses integer inputs (torch: not implemented for 'Long'); its gradient."""
    agree(lambda L, x, y: L.hypot(x, y), A([3, 4], "int64"), A([4, 3], "int64"))
    agree_grad(lambda L, x, y: L.hypot(x, y), A([3.0, -1.0], requires_grad=True),
               A([4.0, 2.0], requires_grad=True))


# ------------------------------------------------------------------- gcd / lcm ----

@pytest.mark.parametrize("dtype", ["uint8", "int16", "int32", "int64"])
def test_gcd_lcm(dtype):
    """torch test_gcd / test_lcm: signs (results non-negative), zeros, broadcast."""
    signed = dtype != "uint8"
    a = A([12, 0, 0, 7, 9, -8 if signed else 8, 100], dtype)
    b = A([18, 5, 0, 13, 6, 12, -30 if signed else 30], dtype)
    agree(lambda L, x, y: L.gcd(x, y), a, b, exact=True)
    agree(lambda L, x, y: L.lcm(x, y), a, b, exact=True)
    agree(lambda L, x, y: x.gcd(y[:1]), a, b, exact=True)


def test_gcd_lcm_float_refused():
    """gcd/lcm are not implemented for floating or bool inputs (RuntimeError)."""
    agree(lambda L, x, y: L.gcd(x, y), A([4.0]), A([6.0]))
    agree(lambda L, x, y: L.lcm(x, y), A([4.0], "float32"), A([6.0], "float32"))
    agree(lambda L, x, y: L.gcd(x, y), A([True]), A([True]))


def test_gcd_lcm_int64_min():
    """torch: gcd of the most negative int64 with 0 stays negative (C's abs wraps)."""
    agree(lambda L, x, y: L.gcd(x, y), A([-2 ** 63, 0], "int64"), A([0, -2 ** 63], "int64"),
          exact=True)


def test_gcd_lcm_int_overflow():
    """torch: lcm overflow wraps; int8's minimum wraps in gcd (as C's abs)."""
    agree(lambda L, x, y: L.lcm(x, y), A([2 ** 40, 100], "int64"), A([3 ** 25, 7], "int64"),
          exact=True)
    agree(lambda L, x, y: L.gcd(x, y), A([127, -128, 6], "int8"), A([-128, 0, -128], "int8"),
          exact=True)
    agree(lambda L, x, y: L.lcm(x, y), A([100, 120], "int8"), A([3, 7], "int8"), exact=True)


# ---------------------------------------------------------------------- shifts ----

@pytest.mark.parametrize("dtype", ["uint8", "int8", "int16", "int32", "int64"])
def test_bitwise_shift_out_of_range(dtype):
    """torch test_bitwise_shift / test_shift_limits: shift amounts >= the bit width
    give 0 (or -1 for a negative right shift), negative amounts too."""
    bits = np.iinfo(dtype).bits
    signed = np.iinfo(dtype).min < 0
    a = A([1, 5, 3, 7, 1, 2, 100] + ([-8, -1] if signed else [8, 255]), dtype)
    amounts = [0, 1, bits - 1, bits, bits + 1, 2 * bits, 100, 3, bits + 5]
    if signed:
        amounts[6] = -1  # a negative amount
    s = A(amounts, dtype)
    agree(lambda L, x, y: L.bitwise_left_shift(x, y), a, s, exact=True)
    agree(lambda L, x, y: L.bitwise_right_shift(x, y), a, s, exact=True)
    agree(lambda L, x, y: x << y, a, s, exact=True)
    agree(lambda L, x, y: x >> y, a, s, exact=True)


def test_bitwise_shift_scalar_out_of_range():
    """Python-scalar shift amounts beyond the width, and a scalar shifted by a tensor."""
    a = A([1, -3, 64], "int64")
    for k in (63, 64, 65, 200):
        agree(lambda L, x: x << k, a, exact=True)
        agree(lambda L, x: x >> k, a, exact=True)
    agree(lambda L, x: 1 << x, A([1, 63, 64], "int64"), exact=True)
    agree(lambda L, x: -256 >> x, A([1, 8, 70], "int64"), exact=True)
    agree(lambda L, x: x >> 3, A([-100, 100], "int8"), exact=True)


# ------------------------------------------------------------------- logical_* ----

@pytest.mark.parametrize("op", ["logical_and", "logical_or", "logical_xor"])
@pytest.mark.parametrize("dtypes", [("bool", "bool"), ("int64", "float32"),
                                    ("float64", "complex64"), ("uint8", "int8")])
def test_logical_binary(op, dtypes):
    """torch test_logical_and/or/xor: any dtypes, nan counts as True, bool result;
    in-place keeps self's dtype; out= of another dtype gets the cast."""
    a = A([0, 1, 2, 0, 3], dtypes[0])
    b = A([0, 0, 5, 7, -1] if dtypes[1] != "uint8" else [0, 0, 5, 7, 1], dtypes[1])
    agree(lambda L, x, y: getattr(L, op)(x, y), a, b, exact=True)
    agree(lambda L, x, y: getattr(x.clone(), op + "_")(y), a, b, exact=True)

    def out(L, x, y):
        o = L.empty(5, dtype=L.float32)
        getattr(L, op)(x, y, out=o)
        return o
    agree(out, a, b, exact=True)


def test_logical_nan_and_not():
    """torch test_logical_not / nan handling: NaN is truthy, -0.0 is falsy."""
    x = A([nan, 0.0, -0.0, inf, 1e-300], "float64")
    agree(lambda L, t: L.logical_not(t), x, exact=True)
    agree(lambda L, t: L.logical_and(t, t), x, exact=True)
    agree(lambda L, t: L.logical_not(t, out=L.empty(5, dtype=L.int16)), x, exact=True)


def test_logical_scalar_other_refused():
    """torch's logical binary ops take tensors only: a Python scalar is a TypeError."""
    agree(lambda L, t: L.logical_xor(t, 1), A([0.0, 1.0]))


# ------------------------------------------------------------------ float_power ----

@pytest.mark.parametrize("dtypes", [("int64", "int64"), ("float32", "float32"),
                                    ("float32", "complex64"), ("int32", "float16"),
                                    ("bool", "int64")])
def test_float_power(dtypes):
    """torch test_float_power: always float64 (complex128 with a complex input),
    negative int exponents allowed, scalar forms."""
    a = A([1, 2, 3], dtypes[0])
    b = A([2, -1, 0], dtypes[1]) if dtypes[1] != "bool" else A([1, 0, 1], dtypes[1])
    agree(lambda L, x, y: L.float_power(x, y), a, b)
    agree(lambda L, x, y: L.float_power(x, -2), a, b)
    agree(lambda L, x, y: L.float_power(2, y), a, b)
    agree(lambda L, x, y: L.float_power(x, 0.5j), a, b)


def test_float_power_exceptions():
    """torch test_float_power_exceptions: the in-place form needs a float64 (or
    complex128) self; out= must be the result dtype."""
    agree(lambda L, x: x.clone().float_power_(2), A([1.0, 2.0], "float32"))
    agree(lambda L, x: x.clone().float_power_(2), A([1.0, 2.0], "float64"))
    agree(lambda L, x: x.clone().float_power_(1j), A([1.0, 2.0], "float64"))
    agree(lambda L, x: L.float_power(x, 2, out=L.empty(2, dtype=L.float32)),
          A([1.0, 2.0], "float64"))

    def good(L, x):
        o = L.empty(2, dtype=L.float64)
        L.float_power(x, 2, out=o)
        return o
    agree(good, A([1, 2], "int64"))


# ------------------------------------------------------------------------- lerp ----

def test_lerp():
    """torch test_lerp: scalar and tensor weights (broadcast), weights outside [0, 1],
    both branches of torch's formula, complex, gradients."""
    s = A([[0.0, 1.0, -2.0, 10.0]])
    e = A([[1.0], [3.0], [-5.0]])
    agree(lambda L, a, b: L.lerp(a, b, 0.3), s, e)
    agree(lambda L, a, b: L.lerp(a, b, 0.7), s, e)
    agree(lambda L, a, b: L.lerp(a, b, L.tensor([-0.5, 0.2, 0.6, 1.5], dtype=L.float64)), s, e)
    agree(lambda L, a, b: a.lerp(b, 2.0), A([1.0, 2.0], "float32"), A([3.0, -1.0], "float32"))
    agree(lambda L, a, b: L.lerp(a, b, 0.25), A([1 + 1j], "complex64"), A([3 - 1j], "complex64"))
    agree_grad(lambda L, a, b, w: L.lerp(a, b, w), A([0.0, 1.0], requires_grad=True),
               A([2.0, -1.0], requires_grad=True), A([0.3, 0.8], requires_grad=True))


def test_lerp_errors():
    """torch: lerp needs the same dtype for start, end and a tensor weight."""
    agree(lambda L, a, b: L.lerp(a, b, 0.5), A([1.0], "float32"), A([2.0], "float64"))
    agree(lambda L, a, b: L.lerp(a, b, L.tensor([0.5], dtype=L.float64)),
          A([1.0], "float32"), A([2.0], "float32"))
    agree(lambda L, a, b: L.lerp(a, b, 0.5), A([1], "int64"), A([2], "int64"))
    agree(lambda L, a, b: a.clone().lerp_(b, 0.5), A([1.0], "float32"),
          A([[2.0], [3.0]], "float32"))


# ------------------------------------------------------ maximum / fmax with NaN ----

@pytest.mark.parametrize("op", ["maximum", "minimum", "fmax", "fmin"])
@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_maximum_minimum_float_nan_and_inf(op, dtype):
    """torch test_maximum_minimum_float_nan_and_inf: maximum/minimum propagate NaN,
    fmax/fmin ignore it; infinities; signed zeros (compared as equal)."""
    a = A([nan, 1.0, nan, -inf, inf, -inf, 2.0, 0.0], dtype)
    b = A([1.0, nan, nan, 3.0, -2.0, inf, -inf, 0.0], dtype)
    agree(lambda L, x, y: getattr(L, op)(x, y), a, b, exact=True)


@pytest.mark.parametrize("op", ["maximum", "minimum", "fmax", "fmin"])
def test_maximum_minimum_type_promotion_and_errors(op):
    """torch test_maximum_minimum_type_promotion / _complex / _cross_device: promotion
    between tensors, complex refused, a Python scalar refused (torch takes tensors)."""
    agree(lambda L, x, y: getattr(L, op)(x, y), A([1, 5], "int32"), A([2.5, 3.0], "float32"),
          exact=True)
    agree(lambda L, x, y: getattr(L, op)(x, y), A([1, 5], "uint8"), A([-1, 7], "int8"),
          exact=True)
    agree(lambda L, x, y: getattr(L, op)(x, y), A([True, False]), A([3, -1], "int64"),
          exact=True)
    agree(lambda L, x, y: getattr(L, op)(x, y), A([1j], "complex64"), A([1j], "complex64"))


def test_maximum_minimum_grad_ties():
    """maximum/minimum split the gradient evenly at ties (torch), fmax/fmin too."""
    x = A([1.0, 2.0, 3.0], requires_grad=True)
    y = A([1.0, 5.0, -1.0], requires_grad=True)
    for op in ("maximum", "minimum", "fmax", "fmin"):
        agree_grad(lambda L, a, b: getattr(L, op)(a, b), x, y)


# ---------------------------------------------------------------- add / sub ----

def test_add_alpha_checks():
    """torch test_add (alpha): integral tensors refuse a float alpha, bool tensors a
    non-bool alpha, real tensors a complex alpha (RuntimeError)."""
    i, f, b = A([1, 2], "int64"), A([1.0, 2.0], "float32"), A([True, False])
    agree(lambda L, x: L.add(x, x, alpha=2), i, exact=True)
    agree(lambda L, x: L.add(x, x, alpha=2.5), i)
    agree(lambda L, x: L.add(x, x, alpha=2), b)
    agree(lambda L, x: L.add(x, x, alpha=True), b, exact=True)
    agree(lambda L, x: L.add(x, x, alpha=1j), f)
    agree(lambda L, x: L.add(x, x, alpha=0.5), f, exact=True)
    agree(lambda L, x: L.add(x, 3, alpha=-2), f, exact=True)
    agree(lambda L, x: x.clone().add_(x, alpha=2.5), i)
    agree(lambda L, x: L.sub(x, x, alpha=2.5), i)
    agree(lambda L, x: L.add(x, 2.5, alpha=2), i, exact=True)


def test_sub_typing():
    """torch test_sub_typing: subtraction with bool tensors (either side, or a bool
    scalar) is refused (RuntimeError); rsub too."""
    b, i = A([True, False]), A([1, 2], "int64")
    agree(lambda L, x: x - x, b)
    agree(lambda L, x: L.sub(x, True), b)
    agree(lambda L, x: L.sub(True, x) if L is torch else L.sub(True, x), b)
    agree(lambda L, x, y: x - y, b, i)
    agree(lambda L, x, y: y - x, b, i)
    agree(lambda L, x: L.rsub(x, 1), b)
    agree(lambda L, x: -x, b)


def test_add_sub_grads_with_alpha():
    """alpha scales the other operand's gradient."""
    x, y = A([1.0, 2.0], requires_grad=True), A([3.0, -1.0], requires_grad=True)
    agree_grad(lambda L, a, b: L.add(a, b, alpha=-2.5), x, y)
    agree_grad(lambda L, a, b: L.sub(a, b, alpha=3), x, y)


def test_binary_op_scalar_device_unspecified():
    """torch test_binary_op_scalar_device_unspecified: a 0-d tensor made without a
    device combines with another tensor (the 0-d one adopts its place and category)."""
    s = A(2.0, "float64")
    v = A([1.0, 2.0, 3.0], "float32")
    for f in (lambda L, a, b: a + b, lambda L, a, b: b * a, lambda L, a, b: L.sub(b, a),
              lambda L, a, b: L.pow(b, a), lambda L, a, b: L.maximum(a, b)):
        agree(f, s, v, exact=True)


# ------------------------------------------------------ type promotion with out= ----

@pytest.mark.parametrize("op", ["add", "mul", "sub", "div", "atan2", "hypot", "fmod",
                                "maximum", "copysign", "logaddexp"])
def test_type_promotion_out(op):
    """torch test_type_promotion (ufuncs with out=): the result is computed in the
    promoted dtype and cast into out when the cast is allowed (same or higher category);
    a float result into an integral out, or complex into real, is refused."""
    a, b = A([1.5, -2.0, 3.0], "float32"), A([2, 3, -4], "int64")

    def into(dtype):
        def f(L, x, y):
            o = L.empty(3, dtype=getattr(L, dtype))
            r = getattr(L, op)(x, y, out=o)
            assert r is o
            return o
        return f
    agree(into("float64"), a, b)
    agree(into("float16"), a, b)
    agree(into("complex64"), a, b)
    agree(into("int64"), a, b)
    agree(into("bool"), a, b)
