"""A fourth batch of ports of PyTorch's op-semantics tests (CPU) to pyad:
``test/test_unary_ufuncs.py`` (the UnaryUfuncInfo tests -- reference numerics on
normal, small, large and extremal inputs (nan, +-inf, -0.0), contiguous vs
non-contiguous vs sliced inputs, integer and bool inputs promoted to the default
float dtype, isposinf/isneginf, the i0/i0e/ndtr/log_ndtr ranges, exp of complex
special values), ``test/test_binary_ufuncs.py`` (logaddexp2 with infinities,
xlogy/xlog1py with zeros and NaN, maximum/minimum with NaN and complex, their
subgradient at ties, int and float pow, scalar-base and in-place pow, in-place
dunders and division, comparisons of bools and across dtypes, intertype scalar
multiplication, bool subtraction, float16 add/sub, signed shifts, logical_xor on
unaligned views, cumulative_trapezoid, Python-scalar equivalence) and
``test/test_tensor_creation_ops.py`` (hstack/column_stack/vstack/row_stack, cat of
transposed and sliced inputs, meshgrid's indexing modes and errors, cartesian_prod,
combinations, complex conversions, linspace/logspace dtype deduction, the like
factories, scalar casts, repeat_interleave) plus ``test/test_view_ops.py``'s
hsplit/vsplit/dsplit view tests.

As in tests/ops/test_torch_op_ports_3.py the tests keep torch's names and the meaning
of their assertions, without torch's OpInfo/device/dtype decorators: each writes its
concrete ops, dtypes and inputs.  Expected values are torch 2.13 run on the same inputs
(``check`` compares shape, dtype and values) or the literal values of torch's own
test, never pyad's output.
"""
import itertools
import math
import operator

import numpy as np
import pytest

import pyad

torch = pytest.importorskip("torch")

from _ops_helpers import (both, check_result as check, dname, rnd, tnp, rint, same, shares_memory)  # noqa: E402

inf, nan = math.inf, math.nan

pytestmark = [
    # meshgrid without indexing= warns in torch and in pyad alike (test_meshgrid_*
    # check the warning where torch's tests do)
    pytest.mark.filterwarnings("ignore:.*indexing argument:UserWarning"),
    # complex -> real conversions warn in torch and NumPy (test_complex_type_conversions)
    pytest.mark.filterwarnings("ignore:Casting complex values to real"),
]


# ------------------------------------------------------------------------------------
# helpers
# ------------------------------------------------------------------------------------


# ------------------------------------------------------------------------------------
# test_unary_ufuncs.py: the UnaryUfuncInfo tests, written out per op
# ------------------------------------------------------------------------------------

# name -> f(module, x); the ops of the brief (special values of exp/log/... and the
# rounding family), each as torch spells it
UNARY = {
    "exp": lambda m, x: m.exp(x),
    "exp2": lambda m, x: m.exp2(x),
    "expm1": lambda m, x: m.expm1(x),
    "log": lambda m, x: m.log(x),
    "log2": lambda m, x: m.log2(x),
    "log10": lambda m, x: m.log10(x),
    "log1p": lambda m, x: m.log1p(x),
    "sqrt": lambda m, x: m.sqrt(x),
    "rsqrt": lambda m, x: m.rsqrt(x),
    "sigmoid": lambda m, x: m.sigmoid(x),
    "logit": lambda m, x: m.logit(x),
    "logit_eps": lambda m, x: m.logit(x, eps=1e-6),
    "erf": lambda m, x: m.erf(x),
    "erfc": lambda m, x: m.erfc(x),
    "erfinv": lambda m, x: m.erfinv(x),
    "digamma": lambda m, x: m.digamma(x),
    "polygamma_1": lambda m, x: m.polygamma(1, x),
    "polygamma_2": lambda m, x: m.polygamma(2, x),
    "lgamma": lambda m, x: m.lgamma(x),
    "i0": lambda m, x: m.i0(x),
    "sinc": lambda m, x: m.sinc(x),
    "nan_to_num": lambda m, x: m.nan_to_num(x),
    "nan_to_num_args": lambda m, x: m.nan_to_num(x, nan=1.5, posinf=2.5, neginf=-3.5),
    "frac": lambda m, x: m.frac(x),
    "trunc": lambda m, x: m.trunc(x),
    "floor": lambda m, x: m.floor(x),
    "ceil": lambda m, x: m.ceil(x),
    "round": lambda m, x: m.round(x),
    "round_decimals_3": lambda m, x: m.round(x, decimals=3),
    "round_decimals_neg_3": lambda m, x: m.round(x, decimals=-3),
    "sgn": lambda m, x: m.sgn(x),
    "sign": lambda m, x: m.sign(x),
    "signbit": lambda m, x: m.signbit(x),
    "abs": lambda m, x: m.abs(x),
    "neg": lambda m, x: m.neg(x),
    "reciprocal": lambda m, x: m.reciprocal(x),
    "tanh": lambda m, x: m.tanh(x),
    "atan": lambda m, x: m.atan(x),
    "sin": lambda m, x: m.sin(x),
    "square": lambda m, x: m.square(x),
}
# ops torch refuses for integer inputs or keeps integral (rounding of an integer is the
# integer itself): the int/bool variants below are compared all the same, torch's
# refusal included
FLOATS = [np.float32, np.float64]


# torch's OpInfo ``reference_numerics_filter`` of polygamma: its poles at the
# non-positive integers are replaced by the safe value 1 (torch's own float32 kernel
# returns an arbitrary finite number there), and its float32 results are compared with
# the float64 reference, as torch's test compares with SciPy's float64 values (torch's
# float32 kernel loses digits near the poles, pyad's float32 result is the float64 one
# rounded)
POLES = {"polygamma_1", "polygamma_2"}


def _compare_unary(name, a, exact=False):
    f = UNARY[name]
    if name in POLES:
        with np.errstate(invalid="ignore"):
            a = np.where((a < 0.1) & (np.abs(a - np.round(a)) < 1e-4), 1, a).astype(a.dtype)
        p = f(pyad, pyad.tensor(a))
        t = f(torch, torch.tensor(a.astype(np.float64)))
        t = t.to(torch.float64 if a.dtype == np.float64 else torch.float32)
        check(p, t, exact)
        return
    try:
        t = f(torch, torch.tensor(a))
    except (RuntimeError, TypeError) as e:
        with pytest.raises(type(e)):
            f(pyad, pyad.tensor(a))
        return
    with np.errstate(all="ignore"):
        p = f(pyad, pyad.tensor(a))
    check(p, t, exact)


def _normal(dtype, n=64, seed=0):
    if np.issubdtype(dtype, np.floating):
        return (rnd((n,), seed) * 3).astype(dtype)
    if dtype == np.bool_:
        return rint((n,), 0, 2, seed).astype(np.bool_)
    return rint((n,), -9, 10, seed, dtype)


@pytest.mark.parametrize("dtype", FLOATS + [np.int64, np.int32, np.bool_], ids=dname)
@pytest.mark.parametrize("name", sorted(UNARY))
def test_reference_numerics_normal(name, dtype):
    # values about N(0, 3); integer and bool inputs promote to the default float dtype
    # (float32) where the op is a float op, stay integral where it is not (abs, sign,...)
    _compare_unary(name, _normal(dtype))


@pytest.mark.parametrize("dtype", FLOATS, ids=dname)
@pytest.mark.parametrize("name", sorted(UNARY))
def test_reference_numerics_small(name, dtype):
    # torch's small values: magnitudes below 1, both signs, with the denormal edge
    vals = [0.0, -0.0, 1e-3, -1e-3, 1e-6, -1e-6, 0.25, -0.25, 0.5, -0.5, 0.999, -0.999,
            np.finfo(dtype).tiny, -np.finfo(dtype).tiny]
    _compare_unary(name, np.array(vals, dtype))


@pytest.mark.parametrize("dtype", FLOATS, ids=dname)
@pytest.mark.parametrize("name", sorted(UNARY))
def test_reference_numerics_large(name, dtype):
    # torch's large values (its _large_float_vals), both signs
    big = [-501, 501, -1001.2, 1001.2, -13437.7, 13437.7, -4988429.2, 4988429.2,
           -1e20, 1e20]
    _compare_unary(name, np.array(big, dtype))


@pytest.mark.parametrize("dtype", FLOATS, ids=dname)
@pytest.mark.parametrize("name", sorted(UNARY))
def test_reference_numerics_extremal(name, dtype):
    # nan, +-inf and the signed zeros (torch's _float_extremals plus -0.0)
    vals = [nan, inf, -inf, 0.0, -0.0, 1.0, -1.0, np.finfo(dtype).max, -np.finfo(dtype).max]
    _compare_unary(name, np.array(vals, dtype))


@pytest.mark.parametrize("name", sorted(UNARY))
def test_reference_numerics_extremal_int(name):
    # the integral extremes: abs/neg of the minimum wrap as torch's (int64 min stays)
    a = np.array([np.iinfo(np.int64).min, np.iinfo(np.int64).max, 0, -1, 1], np.int64)
    _compare_unary(name, a, exact=name in ("abs", "neg", "sgn", "sign", "signbit",
                                           "square", "trunc", "floor", "ceil", "round",
                                           "frac", "nan_to_num", "nan_to_num_args"))


@pytest.mark.parametrize("name", sorted(UNARY))
def test_contig_vs_every_other(name):
    # the op of every other element equals every other element of the op
    a = _normal(np.float64, 128, 3)
    pc, tc = both(a)
    ps, ts = pc[::2], tc[::2]
    with np.errstate(all="ignore"):
        full, part = UNARY[name](pyad, pc), UNARY[name](pyad, ps)
    np.testing.assert_array_equal(part.data, full.data[::2])
    check(part, UNARY[name](torch, ts), exact=False)


@pytest.mark.parametrize("name", sorted(UNARY))
def test_contig_size1(name):
    # a size-1 slice of a contiguous input
    a = _normal(np.float64, 16, 4)
    p, t = both(a)
    with np.errstate(all="ignore"):
        check(UNARY[name](pyad, p[3:4]), UNARY[name](torch, t[3:4]), exact=False)


@pytest.mark.parametrize("name", sorted(UNARY))
def test_non_contig(name):
    # a transposed (non-contiguous) 2-d input equals the op of its contiguous copy
    a = _normal(np.float64, 60, 5).reshape(6, 10)
    p, t = both(a)
    pt, tt = p.t(), t.t()
    assert not pt.is_contiguous() and not tt.is_contiguous()
    with np.errstate(all="ignore"):
        r = UNARY[name](pyad, pt)
        np.testing.assert_array_equal(r.data, UNARY[name](pyad, pt.contiguous()).data)
    check(r, UNARY[name](torch, tt), exact=False)


@pytest.mark.parametrize("name", sorted(UNARY))
def test_non_contig_expand(name):
    # an expanded (stride 0) input: every copy of a row gives the same result
    a = _normal(np.float64, 5, 6).reshape(1, 5)
    p, t = both(a)
    pe, te = p.expand(4, 5), t.expand(4, 5)
    with np.errstate(all="ignore"):
        r = UNARY[name](pyad, pe)
    for i in range(1, 4):
        np.testing.assert_array_equal(r.data[i], r.data[0])
    check(r, UNARY[name](torch, te), exact=False)


@pytest.mark.parametrize("name", sorted(UNARY))
def test_batch_vs_slicing(name):
    # the op of a batch equals the ops of its slices, stacked
    a = _normal(np.float64, 40, 7).reshape(4, 10)
    p = pyad.tensor(a)
    with np.errstate(all="ignore"):
        whole = UNARY[name](pyad, p)
        parts = pyad.stack([UNARY[name](pyad, p[i]) for i in range(4)])
    check(whole, parts)
    check(whole, UNARY[name](torch, torch.tensor(a)), exact=False)


def test_isposinf_isneginf_non_boolean_output():
    # a non-bool out= is refused
    for fn in ("isposinf", "isneginf"):
        for dtype in (np.float32, np.int64):
            vals = [inf, -inf, 1.2, nan] if dtype == np.float32 else [1, 2, 3]
            p = pyad.tensor(np.array(vals, dtype))
            out = pyad.empty(len(vals), dtype=np.float32)
            t = torch.tensor(np.array(vals, dtype))
            with pytest.raises(RuntimeError):
                getattr(torch, fn)(t, out=torch.empty_like(t, dtype=torch.float32))
            with pytest.raises(RuntimeError):
                getattr(pyad, fn)(p, out=out)


def test_isposinf_isneginf_complex():
    # complex input is refused (torch: "does not support complex inputs")
    for fn in ("isposinf", "isneginf"):
        t = torch.tensor([complex(inf, 0.3)])
        with pytest.raises(RuntimeError):
            getattr(torch, fn)(t)
        with pytest.raises(RuntimeError):
            getattr(pyad, fn)(pyad.tensor(np.array([complex(inf, 0.3)])))


def _range_vs_torch(fn, lo, hi, dtypes=FLOATS, n=300):
    for dtype in dtypes:
        a = np.linspace(lo, hi, n).astype(dtype)
        check(fn(pyad, pyad.tensor(a)), fn(torch, torch.tensor(a)), exact=False)


def test_i0_range1():
    # torch: i0 on [-13.25, 13.25] (float32's safe range) against scipy
    _range_vs_torch(lambda m, x: m.i0(x), -13.25, 13.25)


def test_i0_range2():
    # [-88.5, 88.5] (float64 only: float32 overflows past ~88)
    _range_vs_torch(lambda m, x: m.i0(x), -88.5, 88.5, dtypes=[np.float64])


def test_i0_range3():
    # [-709.75, 709.75], float64's limit
    _range_vs_torch(lambda m, x: m.i0(x), -709.75, 709.75, dtypes=[np.float64])


def test_special_i0_i1_vs_scipy():
    for name in ("i0", "i1"):
        f = (lambda m, x, n=name: getattr(m.special, n)(x))
        _range_vs_torch(f, -50, 50)
        for dtype in FLOATS:
            a = np.array([0.0, -0.0, inf, -inf, nan, 1e-30, -1e-30], dtype)
            check(f(pyad, pyad.tensor(a)), f(torch, torch.tensor(a)), exact=False)


def test_special_i0e_vs_scipy():
    for name in ("i0e", "i1e"):
        f = (lambda m, x, n=name: getattr(m.special, n)(x))
        _range_vs_torch(f, -700, 700)
        a = np.array([0.0, -0.0, inf, -inf, nan], np.float64)
        check(f(pyad, pyad.tensor(a)), f(torch, torch.tensor(a)), exact=False)


def test_special_ndtr_vs_scipy():
    f = (lambda m, x: m.special.ndtr(x))
    _range_vs_torch(f, -40, 40)
    a = np.array([0.0, -0.0, inf, -inf, nan], np.float64)
    check(f(pyad, pyad.tensor(a)), f(torch, torch.tensor(a)), exact=False)
    # an integer input computes in the default float dtype
    check(f(pyad, pyad.tensor(np.arange(-3, 4))), f(torch, torch.arange(-3, 4)), exact=False)


def test_special_log_ndtr_vs_scipy():
    f = (lambda m, x: m.special.log_ndtr(x))
    _range_vs_torch(f, -40, 40)
    a = np.array([0.0, -0.0, inf, -inf, nan], np.float64)
    check(f(pyad, pyad.tensor(a)), f(torch, torch.tensor(a)), exact=False)


def test_exp():
    # torch's test_exp (complex): exp of complex special values against NumPy's, here
    # against torch's on the same values
    for dtype in (np.complex64, np.complex128):
        vals = [0, 1j, -1j, 1 + 1j, -1 - 1j, complex(inf, 0), complex(-inf, 0),
                complex(0, inf), complex(nan, 0), complex(0, nan), complex(-inf, 1),
                complex(inf, 1), complex(1, inf), complex(-inf, inf), complex(inf, nan)]
        a = np.array(vals, dtype)
        with np.errstate(all="ignore"):
            p = pyad.exp(pyad.tensor(a))
        t = torch.exp(torch.tensor(a))
        assert dname(p.dtype) == dname(t.dtype)
        np.testing.assert_allclose(p.data, tnp(t), rtol=1e-6, atol=1e-6, equal_nan=True)


def test_special_log_ndtr_int_promotes():
    # integer input: the default float dtype
    check(pyad.special.log_ndtr(pyad.tensor(np.arange(-3, 4))),
          torch.special.log_ndtr(torch.arange(-3, 4)), exact=False)


# ------------------------------------------------------------------------------------
# test_binary_ufuncs.py
# ------------------------------------------------------------------------------------


def _logaddexp(base2):
    # torch's _test_logaddexp: random inputs, then +-inf and nan in every pairing
    name = "logaddexp2" if base2 else "logaddexp"
    for dtype in FLOATS:
        a, b = rnd((64, 64), 1, dtype), rnd((64, 64), 2, dtype)
        same(lambda m, x, y: getattr(m, name)(x, y), a, b, exact=False)
        specials = [inf, -inf, nan, 1.0, 0.0, -1.0]
        x, y = zip(*itertools.product(specials, specials))
        with np.errstate(invalid="ignore"):
            same(lambda m, x, y: getattr(m, name)(x, y), np.array(x, dtype), np.array(y, dtype),
                 exact=False)
        # large magnitudes: no overflow in the intermediate exp
        big = np.array([1e4, -1e4, 800.0, -800.0], dtype)
        same(lambda m, x, y: getattr(m, name)(x, y), big, big[::-1].copy(), exact=False)


def test_logaddexp2():
    _logaddexp(base2=True)


def test_xlogy_xlog1py():
    # torch's test_xlogy_xlog1py: x * log(y) with x == 0 giving 0 (also at y == 0 and
    # y == inf), NaN in y giving NaN even where x == 0; tensor/scalar on either side and
    # mixed dtypes promote as torch
    x = np.array([0.0, 0.0, 0.0, 1.0, 2.0, nan, 0.0, -1.5, 3.0])
    y = np.array([0.0, inf, nan, 0.0, 3.0, 1.0, -1.0, 2.0, -1.0])
    for fn in (lambda m, a, b: m.xlogy(a, b), lambda m, a, b: m.special.xlogy(a, b),
               lambda m, a, b: m.special.xlog1py(a, b)):
        for dx, dy in ((np.float64, np.float64), (np.float32, np.float32),
                       (np.float32, np.float64), (np.int64, np.float32),
                       (np.float64, np.int64)):
            xx = x if np.issubdtype(dx, np.floating) else np.nan_to_num(x).astype(dx)
            yy = y if np.issubdtype(dy, np.floating) else np.nan_to_num(y, posinf=5).astype(dy)
            with np.errstate(all="ignore"):
                same(fn, xx.astype(dx), yy.astype(dy), exact=False)
        # a Python scalar on either side
        pb, tb = both(y)
        with np.errstate(all="ignore"):
            check(fn(pyad, 0.0, pb), fn(torch, 0.0, tb), exact=False)
            check(fn(pyad, 2, pb), fn(torch, 2, tb), exact=False)
            check(fn(pyad, pb, 3.5), fn(torch, tb, 3.5), exact=False)
        # broadcasting
        same(fn, rnd((3, 1), 1) ** 2, rnd((1, 4), 2) ** 2, exact=False)


def test_maximum_minimum_float():
    # maximum/minimum propagate NaN, fmax/fmin ignore it; compared with NumPy's
    # np.maximum/np.minimum/np.fmax/np.fmin as torch does, and with torch
    a = np.array([1.0, nan, 2.0, nan, inf, -inf, -0.0, 0.0, 3.0])
    b = np.array([nan, 1.0, 3.0, nan, -inf, inf, 0.0, -0.0, 3.0])
    pairs = (("maximum", np.maximum), ("minimum", np.minimum), ("fmax", np.fmax),
             ("fmin", np.fmin))
    for dtype in FLOATS + [np.float16]:
        aa, bb = a.astype(dtype), b.astype(dtype)
        for name, npf in pairs:
            p, t = same(lambda m, x, y: getattr(m, name)(x, y), aa, bb)
            np.testing.assert_array_equal(p.data, npf(aa, bb))
        rx, ry = rnd((20, 7), 3, dtype), rnd((20, 7), 4, dtype)
        for name, npf in pairs:
            same(lambda m, x, y: getattr(m, name)(x, y), rx, ry)


def test_maximum_minimum_complex():
    # complex inputs are refused
    a = np.array([1 + 1j, 2 - 1j])
    for name in ("maximum", "minimum", "fmax", "fmin"):
        with pytest.raises(RuntimeError):
            getattr(torch, name)(torch.tensor(a), torch.tensor(a))
        with pytest.raises(RuntimeError):
            getattr(pyad, name)(pyad.tensor(a), pyad.tensor(a))


def test_maximum_and_minimum_subgradient():
    # at ties the gradient is split evenly between the inputs (torch: 0.5 each)
    for name in ("maximum", "minimum"):
        x = pyad.tensor(np.array([1.0, 2.0, 3.0]), requires_grad=True)
        y = pyad.tensor(np.array([0.0, 2.0, 4.0]), requires_grad=True)
        getattr(pyad, name)(x, y).sum().backward()
        xt = torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64, requires_grad=True)
        yt = torch.tensor([0.0, 2.0, 4.0], dtype=torch.float64, requires_grad=True)
        getattr(torch, name)(xt, yt).sum().backward()
        check(x.grad, xt.grad)
        check(y.grad, yt.grad)
        assert x.grad.data[1] == 0.5 and y.grad.data[1] == 0.5


def test_int_and_float_pow():
    # torch's _test_int_and_float_pow: int and float bases with int and float,
    # positive and negative exponents, tensor and scalar, against NumPy (here torch)
    ints = np.array([2, -3, 5, 0, 1, -1, 7], np.int64)
    floats = np.array([2.5, -3.0, 0.5, 0.0, 1.0, -1.0, 7.25])
    for base in (ints, ints.astype(np.int32), floats, floats.astype(np.float32)):
        for e in (0, 1, 2, 3, 0.5, 2.0, -2.0, -0.5):
            with np.errstate(all="ignore"):
                same(lambda m, x: m.pow(x, e), base, exact=False)
                same(lambda m, x: x ** e, base, exact=False)
        # tensor exponent
        with np.errstate(all="ignore"):
            same(lambda m, x, y: m.pow(x, y), base, np.array([0, 1, 2, 3, 2, 1, 0], base.dtype),
                 exact=False)
    # 0 ** 0 is 1 for every dtype
    for dtype in (np.int64, np.float32, np.float64):
        same(lambda m, x, y: m.pow(x, y), np.zeros(3, dtype), np.zeros(3, dtype))
    # an integer base to a negative integer tensor power is an error (torch)
    with pytest.raises(RuntimeError):
        torch.pow(torch.tensor([2, 3]), -2)
    with pytest.raises(RuntimeError):
        pyad.pow(pyad.tensor(np.array([2, 3])), -2)


def test_complex_scalar_pow_tensor():
    # a complex Python scalar base against float and complex exponents
    exps = [rnd((5,), 7), rnd((5,), 8).astype(np.float32),
            (rnd((5,), 9) + 1j * rnd((5,), 10)).astype(np.complex64),
            np.array([0.0, 1.0, 2.0, -1.0, 0.5])]
    for base in (2 + 0.5j, 1j, -1 + 0j, 0j):
        for e in exps:
            pe, te = both(e)
            with np.errstate(all="ignore"):
                p = base ** pe
                pp = pyad.pow(base, pe)
            t = base ** te
            check(p, t, exact=False)
            check(pp, t, exact=False)


def test_pow_inplace_resizing_exception():
    # an in-place pow whose result would need a bigger shape than self is refused
    test_cases = (((), (3,)), ((2,), (2, 1)), ((2, 1), (2, 2)), ((2, 2), (2, 1, 1)))
    for base_size, exp_size in test_cases:
        base = pyad.tensor(rnd(base_size, 1))
        exponent = pyad.tensor(rnd(exp_size, 2))
        with pytest.raises(RuntimeError):
            torch.tensor(rnd(base_size, 1)).pow_(torch.tensor(rnd(exp_size, 2)))
        with pytest.raises(RuntimeError):
            base.pow_(exponent)


def test_inplace_division():
    # t /= 2 writes into t's own memory
    t = pyad.tensor(rnd((5, 5), 3))
    before = t.data
    t /= 2
    assert t.data is before or np.shares_memory(t.data, before)
    np.testing.assert_array_equal(t.data, rnd((5, 5), 3) / 2)


def test_inplace_dunders():
    # every augmented operator keeps the Variable's storage
    t = pyad.tensor(rnd((4,), 5))
    tt = torch.tensor(rnd((4,), 5))
    base = t.data
    for op in (operator.iadd, operator.isub, operator.imul, operator.itruediv,
               operator.ifloordiv, operator.imod, operator.ipow):
        t = op(t, 1)
        tt = op(tt, 1)
        assert np.shares_memory(t.data, base)
    check(t, tt)


def test_idiv_and_ifloordiv_vs_python():
    # torch's _wrapped_* checks without TorchScript: / and // (and their in-place and
    # reflected forms) on 0-d int and float Variables match Python's arithmetic
    for a, b in itertools.product(range(-10, 10), range(-10, 10)):
        for op in (lambda x: x * 0.5, lambda x: math.floor(x)):
            a_, b_ = op(a), op(b)
            if b_ == 0:
                continue
            at, bt = pyad.tensor(a_), pyad.tensor(b_)
            assert (at / bt).item() == pytest.approx(a_ / b_, rel=1e-6)
            assert (at / b_).item() == pytest.approx(a_ / b_, rel=1e-6)
            assert (at // bt).item() == math.floor(a_ / b_)
            assert (at // b_).item() == math.floor(a_ / b_)
            if isinstance(a_, float) or isinstance(b_, float):
                continue
            # in-place true division of an integer Variable is refused (its result is
            # float), floor division is fine
            tmp = pyad.tensor(a_)
            with pytest.raises(RuntimeError):
                tmp /= bt
            tmp = pyad.tensor(a_)
            tmp //= bt
            assert tmp.item() == math.floor(a_ / b_)
        if a != 0:
            at = pyad.tensor(a)
            assert (5 / at).item() == pytest.approx(5 / a, rel=1e-6)
            assert (5 // at).item() == 5 // a


def test_binary_ops_with_scalars():
    # add/sub/mul/div between Python numbers and 0-d Variables equal Python's result,
    # and the reflected forms equal the forward ones
    for python_op, name in ((operator.add, "add"), (operator.sub, "sub"),
                            (operator.mul, "mul"), (operator.truediv, "div")):
        for a, b in itertools.product(range(-10, 10, 3), range(-10, 10, 3)):
            for op in (lambda x: x * 0.5, lambda x: math.floor(x)):
                a_, b_ = op(a), op(b)
                if b_ == 0 or a_ == 0:
                    continue
                vals = (a_, b_, pyad.tensor(a_), pyad.tensor(b_))
                for args in itertools.product(vals, vals):
                    first, second = args
                    if not (isinstance(first, pyad.Tensor) or isinstance(second, pyad.Tensor)):
                        continue
                    fv = first.item() if isinstance(first, pyad.Tensor) else first
                    sv = second.item() if isinstance(second, pyad.Tensor) else second
                    expected = python_op(fv, sv)
                    assert python_op(first, second).item() == pytest.approx(expected, rel=1e-6)
                    if isinstance(first, pyad.Tensor):
                        assert getattr(pyad, name)(first, second).item() == \
                            pytest.approx(expected, rel=1e-6)


def test_comparison_ops_type_promotion():
    # comparisons of Variables of different dtypes compare in the promoted dtype
    dtypes = [np.uint8, np.int8, np.int16, np.int32, np.int64, np.float16, np.float32,
              np.float64, np.bool_]
    ops = (operator.lt, operator.le, operator.gt, operator.ge, operator.eq, operator.ne)
    rng = np.random.default_rng(0)
    for d1, d2 in itertools.product(dtypes, dtypes):
        a = (rng.integers(0, 3, 10) if d1 == np.bool_ else rng.integers(-1, 4, 10))
        b = (rng.integers(0, 3, 10) if d2 == np.bool_ else rng.integers(-1, 4, 10))
        a = (a > 0) if d1 == np.bool_ else a.astype(d1)
        b = (b > 0) if d2 == np.bool_ else b.astype(d2)
        if d1 == np.uint8:
            a = np.abs(a.astype(np.int64)).astype(np.uint8)
        if d2 == np.uint8:
            b = np.abs(b.astype(np.int64)).astype(np.uint8)
        for op in ops:
            same(lambda m, x, y: op(x, y), a, b)
    # a float 0-d Variable against an int one: compared as floats
    same(lambda m, x, y: x < y, np.array([1, 2, 3]), np.array(1.5))


def test_inplace_comparison_ops_require_inputs_have_same_dtype():
    # lt_ and friends write into self: a float result into an int Variable is fine
    # (the comparison's 0/1), torch and pyad agree on what is refused
    for name in ("lt_", "le_", "gt_", "ge_", "eq_", "ne_", "logical_xor_", "logical_and_",
                 "logical_or_"):
        a, b = np.array([1, 2, 3]), np.array([2.5, 2.0, 0.5])
        ta, tb = torch.tensor(a), torch.tensor(b)
        pa, pb = pyad.tensor(a), pyad.tensor(b)
        try:
            getattr(ta, name)(tb)
        except RuntimeError:
            with pytest.raises(RuntimeError):
                getattr(pa, name)(pb)
            continue
        getattr(pa, name)(pb)
        check(pa, ta)


def test_bool_tensor_comparison_ops():
    a = np.array([True, False, True, False, True, False])
    b = np.array([True, False, True, True, True, True])
    pa, pb = pyad.tensor(a), pyad.tensor(b)
    tt = lambda v: np.array(v, bool)  # noqa: E731
    np.testing.assert_array_equal((pa == pb).data, tt([1, 1, 1, 0, 1, 0]))
    np.testing.assert_array_equal((pa != pb).data, tt([0, 0, 0, 1, 0, 1]))
    np.testing.assert_array_equal((pa < pb).data, tt([0, 0, 0, 1, 0, 1]))
    np.testing.assert_array_equal((pa > pb).data, tt([0, 0, 0, 0, 0, 0]))
    np.testing.assert_array_equal((pa >= pb).data, tt([1, 1, 1, 0, 1, 0]))
    np.testing.assert_array_equal((pa <= pb).data, tt([1, 1, 1, 1, 1, 1]))
    np.testing.assert_array_equal((pa > False).data, tt([1, 0, 1, 0, 1, 0]))
    np.testing.assert_array_equal((pa == pyad.tensor(True)).data, tt([1, 0, 1, 0, 1, 0]))
    np.testing.assert_array_equal((pa == pyad.tensor(0)).data, tt([0, 1, 0, 1, 0, 1]))
    assert (pa == pb).dtype == np.bool_
    assert not pyad.equal(pa, pb) and pyad.equal(pa, pa.clone())


def test_mul_intertype_scalar():
    for dtype in (np.float32, np.float64):
        x = pyad.tensor(np.array(1.5, dtype))
        y = pyad.tensor(np.array(3, np.int32))
        assert (x * y).item() == 4.5 and (x * y).dtype == dtype
        assert (y * x).item() == 4.5 and (y * x).dtype == dtype
        with pytest.raises(RuntimeError):
            y *= x
        x *= y
        assert x.item() == 4.5 and x.dtype == dtype


def test_muldiv_scalar():
    for dtype in (np.float32, np.float64, np.int64, np.int32):
        x = (rnd((10, 3), 1) * 5).astype(dtype)
        s = float(rnd((1,), 2)[0] * 5) if np.issubdtype(dtype, np.floating) else 3
        p, t = both(x)
        py = pyad.full_like(p, s)
        check(p * s, p * py)
        check(s * p, p * py)
        check(p * s, t * s)
        with np.errstate(all="ignore"):
            check(p / s, t / s, exact=False)
            check(s / p, t.__rtruediv__(s), exact=False)


def test_sub_typing():
    # subtracting bools is refused (use ^ or logical_xor, ~ or logical_not), with
    # torch's messages; a bool alpha is refused for a non-bool result
    m1 = pyad.tensor(np.array([True, False, False, True, False, False]))
    m2 = pyad.tensor(np.array([True, True, False, False, False, True]))
    with pytest.raises(RuntimeError, match=r"Subtraction, the `\-` operator, with two bool "
                       r"Variables is not supported. Use the `\^` or `logical_xor\(\)` "
                       r"operator instead."):
        m1 - m2
    for f in (lambda: 1 - m1, lambda: m2 - 1):
        with pytest.raises(RuntimeError, match=r"Subtraction, the `\-` operator, with a bool "
                           r"Variable is not supported. If you are trying to invert a mask, "
                           r"use the `\~` or `logical_not\(\)` operator instead."):
            f()
    # mismatched alpha
    i1 = pyad.tensor(np.array([1], np.int8))
    i2 = pyad.tensor(np.array([2], np.int8))
    with pytest.raises(RuntimeError, match=r"Boolean alpha only supported for Boolean results\."):
        pyad.sub(i1, i2, alpha=True)
    with pytest.raises(RuntimeError, match=r"For integral input Variables, argument alpha must "
                       r"not be a floating point number\."):
        pyad.sub(i1, i2, alpha=2.0)


def test_sub_typing_float_alpha_one():
    # the last assertion of torch's test_sub_typing: alpha=1.0 on int8 inputs
    i1 = pyad.tensor(np.array([1], np.int8))
    i2 = pyad.tensor(np.array([2], np.int8))
    with pytest.raises(RuntimeError):
        torch.sub(torch.tensor([1], dtype=torch.int8), torch.tensor([2], dtype=torch.int8),
                  alpha=1.0)
    with pytest.raises(RuntimeError, match=r"For integral input Variables, argument alpha must "
                       r"not be a floating point number\."):
        pyad.sub(i1, i2, alpha=1.0)


def test_signed_shift():
    # signed integer shifts are arithmetic, as NumPy's
    for dtype in (np.int8, np.int16, np.int32, np.int64):
        a = np.array([-10, 10], dtype)
        p = pyad.tensor(a)
        check(p << 2, torch.tensor(a) << 2)
        np.testing.assert_array_equal((p << 2).data, np.array([-40, 40], dtype))
        np.testing.assert_array_equal((p << 2).data, np.left_shift(a, 2))
        np.testing.assert_array_equal((p >> 1).data, np.array([-5, 5], dtype))
        np.testing.assert_array_equal((p >> 1).data, np.right_shift(a, 1))
        check(p >> 1, torch.tensor(a) >> 1)


def test_logical_xor_with_nontrivial_alignment():
    # out= into unaligned views of a bool buffer
    size = 128
    a = pyad.tensor(rnd((size,), 1) > 0)
    b = pyad.tensor(rnd((size,), 2) > 0)
    c = pyad.tensor(rnd((size,), 3) > 0)
    for i, j, k in itertools.product([1, 2, 4, 8, 15], repeat=3):
        a_, b_, c_ = a[i:100 + i], b[j:100 + j], c[k:100 + k]
        pyad.logical_xor(a_, b_, out=c_)
        for x, y, z in zip(a_.tolist(), b_.tolist(), c_.tolist()):
            assert (x ^ y) == z
    assert c.data[1:101].tolist() == c[1:101].tolist()


def test_cumulative_trapezoid():
    # against torch (torch's test: against scipy.integrate.cumulative_trapezoid)
    for shape, dim in (((10,), -1), ((4, 5), 0), ((4, 5), 1), ((2, 3, 4), 1),
                       ((0, 3), 0), ((3, 0), 1), ((1,), 0)):
        y = rnd(shape, 3)
        for dx in (1, 0.5, -2):
            same(lambda m, v: m.cumulative_trapezoid(v, dx=dx, dim=dim), y, exact=False)
        x = np.sort(rnd((shape[dim],), 4)) if shape[dim] else np.zeros(0)
        same(lambda m, v, xx: m.cumulative_trapezoid(v, xx, dim=dim), y, x, exact=False)
    # integer input: the default float dtype
    same(lambda m, v: m.cumulative_trapezoid(v), np.arange(6), exact=False)


def test_rpow():
    m = rnd((10, 10), 6)
    p, t = both(m)
    check(pyad.pow(2, p), 2 ** t, exact=False)
    check(2 ** p, 2 ** t, exact=False)
    s = rnd((1,), 7).squeeze()
    p, t = both(s)
    assert p.dim() == 0
    check(pyad.pow(2, p), 2 ** t, exact=False)


# ------------------------------------------------------------------------------------
# test_tensor_creation_ops.py
# ------------------------------------------------------------------------------------

STACK_DTYPES = [np.float64, np.float32, np.float16, np.int64, np.int32, np.uint8,
                np.complex128]


def _data(shape, dtype, seed):
    a = rnd(shape, seed) * 5
    if np.issubdtype(dtype, np.complexfloating):
        return (a + 1j * rnd(shape, seed + 100)).astype(dtype)
    if np.issubdtype(dtype, np.unsignedinteger):
        return np.abs(a).astype(dtype)
    return a.astype(dtype)


def _special_stacks(dim, at_least_dim, name, np_fn, dtype):
    """torch's _test_special_stacks: a Variable (not a sequence) is refused, 0-d inputs,
    then 1- to 4-d inputs differing along one axis: NumPy's result where the sizes fit,
    torch's "Sizes of tensors must match" refusal where they do not."""
    pfn, tfn = getattr(pyad, name), getattr(torch, name)
    with pytest.raises(TypeError):
        tfn(torch.randn(10))
    with pytest.raises(TypeError):
        pfn(pyad.tensor(rnd((10,), 0)))
    rng = np.random.default_rng(17)
    inputs = [_data((), dtype, 40 + i) for i in range(int(rng.integers(1, 6)))]
    check(pfn([pyad.tensor(a) for a in inputs]), tfn([torch.tensor(a) for a in inputs]))
    np.testing.assert_array_equal(pfn([pyad.tensor(a) for a in inputs]).data, np_fn(inputs))
    for ndims in range(1, 5):
        base_shape = list(rng.integers(1, 6, ndims))
        for i in range(ndims):
            shape = list(base_shape)
            arrays = []
            for k in range(int(rng.integers(1, 6))):
                shape[i] = int(rng.integers(1, 6))
                arrays.append(_data(tuple(shape), dtype, 10 * ndims + k))
            valid = all(arrays[k].shape[t] == arrays[k + 1].shape[t]
                        for k in range(len(arrays) - 1) for t in range(ndims)
                        if ndims < at_least_dim or t != dim)
            if valid or (name == "hstack" and ndims == 1):
                p = pfn([pyad.tensor(a) for a in arrays])
                check(p, tfn([torch.tensor(a) for a in arrays]))
                np.testing.assert_array_equal(p.data, np_fn(arrays))
            else:
                with pytest.raises(RuntimeError, match="Sizes of tensors must match except "
                                   "in dimension"):
                    tfn([torch.tensor(a) for a in arrays])
                # (pyad's wording: "op(): ..." and "Variables", common to its messages)
                with pytest.raises(RuntimeError, match="sizes of Variables must match except "
                                   "in dimension"):
                    pfn([pyad.tensor(a) for a in arrays])


@pytest.mark.parametrize("dtype", STACK_DTYPES, ids=dname)
def test_hstack_column_stack(dtype):
    for name, np_fn in (("hstack", np.hstack), ("column_stack", np.column_stack)):
        _special_stacks(1, 1, name, np_fn, dtype)
    # column_stack of 1-d and 2-d inputs together
    one = np.arange(0, 10).astype(dtype)
    two = np.arange(0, 100).astype(dtype).reshape(10, 10)
    arrays = [two, one, two, one]
    p = pyad.column_stack([pyad.tensor(a) for a in arrays])
    check(p, torch.column_stack([torch.tensor(a) for a in arrays]))
    np.testing.assert_array_equal(p.data, np.column_stack(arrays))


@pytest.mark.parametrize("dtype", STACK_DTYPES, ids=dname)
def test_vstack_row_stack(dtype):
    for name in ("vstack", "row_stack"):
        _special_stacks(0, 2, name, np.vstack, dtype)
        for n in (1, 4, 9):
            # a 1-d (n,) with a 2-d (1, n)
            arrays = [_data((n,), dtype, 1), _data((1, n), dtype, 2)]
            p = getattr(pyad, name)([pyad.tensor(a) for a in arrays])
            check(p, torch.vstack([torch.tensor(a) for a in arrays]))
            np.testing.assert_array_equal(p.data, np.vstack(arrays))


@pytest.mark.parametrize("dtype", [np.float16, np.float64, np.int32], ids=dname)
def test_cat2(dtype):
    SIZE = 10
    rng = np.random.default_rng(3)
    for dim in range(-3, 3):
        pos = dim if dim >= 0 else 3 + dim
        xs = [rng.integers(-100, 100, (n, SIZE, SIZE)).astype(dtype) for n in (13, 17, 19)]
        ps = [pyad.tensor(a).transpose(0, pos) for a in xs]
        ts = [torch.tensor(a).transpose(0, pos) for a in xs]
        res = pyad.cat(ps, dim)
        check(res, torch.cat(ts, dim))
        check(res.narrow(pos, 0, 13), ps[0])
        check(res.narrow(pos, 13, 17), ps[1])
        check(res.narrow(pos, 30, 19), ps[2])
    x = pyad.tensor(rng.integers(-100, 100, (20, SIZE, SIZE)).astype(dtype))
    check(pyad.cat(pyad.split(x, 7)), x)
    check(pyad.cat(pyad.chunk(x, 7)), x)
    y = pyad.tensor(rng.integers(-100, 100, (1, SIZE, SIZE)).astype(dtype))
    assert tuple(pyad.cat([x, y]).shape) == (21, SIZE, SIZE)


def test_cat_size1():
    # a 1x1 slice of a bigger matrix, concatenated four times along the last dim
    a = rnd((16, 16), 5, np.float32)
    x1 = pyad.tensor(a)[:1, :1]
    xref = x1.clone().view(-1).view(x1.shape)
    res = pyad.cat([x1, x1, x1, x1], dim=-1)
    check(res, pyad.cat([xref, xref, xref, xref], dim=-1))
    check(res, torch.cat([torch.tensor(a)[:1, :1]] * 4, dim=-1))


def test_cat_trailing_dim():
    a, b = rnd((16, 16, 23), 1, np.float32), rnd((16, 16, 23), 2, np.float32)
    same(lambda m, x, y: m.cat([x, y], dim=1), a, b)


def test_meshgrid_empty():
    with pytest.raises(RuntimeError, match="expects a non-empty TensorList"):
        torch.meshgrid()
    with pytest.raises(RuntimeError, match="non-empty"):
        pyad.meshgrid()


def test_meshgrid_unsupported_indexing():
    with pytest.raises(RuntimeError, match='indexing must be one of "xy" or "ij"'):
        pyad.meshgrid(pyad.tensor(np.array([1, 2])), indexing="")


def test_meshgrid_non_1d_tensor():
    with pytest.raises(RuntimeError, match="Expected 0D or 1D tensor"):
        torch.meshgrid(torch.tensor([[1, 2], [3, 4]]))
    # (pyad's wording of the same refusal)
    with pytest.raises(RuntimeError, match="expects all Variables to be 0-d or 1-d"):
        pyad.meshgrid(pyad.tensor(np.array([[1, 2], [3, 4]])))


def test_meshgrid_inconsistent_dtype():
    with pytest.raises(RuntimeError, match="expects all (tensors|Variables) to have the same "
                       "dtype"):
        pyad.meshgrid(pyad.tensor(np.array([1], np.int32)),
                      pyad.tensor(np.array([2.0], np.float32)))


def _abc():
    return (pyad.tensor(np.array(1)), pyad.tensor(np.array([1, 2, 3])),
            pyad.tensor(np.array([1, 2])))


def _grids_equal(grids, expected):
    for g, e in zip(grids, expected):
        assert tuple(g.shape) == e.shape
        assert g.dtype == e.dtype
        np.testing.assert_array_equal(g.data, e)


EXPECTED_IJ = (np.ones((1, 3, 2), np.int64), np.array([[[1, 1], [2, 2], [3, 3]]]),
               np.array([[[1, 2], [1, 2], [1, 2]]]))
EXPECTED_XY = (np.ones((3, 1, 2), np.int64), np.array([[[1, 1]], [[2, 2]], [[3, 3]]]),
               np.array([[[1, 2]], [[1, 2]], [[1, 2]]]))


def test_meshgrid_default_indexing():
    a, b, c = _abc()
    with pytest.warns(UserWarning):       # torch's "will be required to pass the indexing arg"
        _grids_equal(pyad.meshgrid([a, b, c]), EXPECTED_IJ)
    with pytest.warns(UserWarning):
        _grids_equal(pyad.meshgrid(a, b, c), EXPECTED_IJ)


def test_meshgrid_xy_indexing():
    a, b, c = _abc()
    _grids_equal(pyad.meshgrid([a, b, c], indexing="xy"), EXPECTED_XY)
    _grids_equal(pyad.meshgrid(a, b, c, indexing="xy"), EXPECTED_XY)


def test_meshgrid_ij_indexing():
    a, b, c = _abc()
    _grids_equal(pyad.meshgrid([a, b, c], indexing="ij"), EXPECTED_IJ)
    _grids_equal(pyad.meshgrid(a, b, c, indexing="ij"), EXPECTED_IJ)


def test_meshgrid_ij_indexing_is_default():
    a, b, c = _abc()
    with pytest.warns(UserWarning):
        default = pyad.meshgrid(a, b, c)
    for g, h in zip(pyad.meshgrid(a, b, c, indexing="ij"), default):
        assert pyad.equal(g, h)


def test_meshgrid_vs_numpy():
    cases = [[[]], [[1], [1], [1]], [[], [], []], [[3], [5], [7]], [[3], [], [7]],
             [[11], [13]], [[15]]]
    correspondence = [({}, {"indexing": "ij"}), ({"indexing": "xy"}, {}),
                      ({"indexing": "ij"}, {"indexing": "ij"}),
                      ({"indexing": "xy"}, {"indexing": "xy"})]
    for k, (shapes, (pk, nk)) in enumerate(itertools.product(cases, correspondence)):
        arrays = [rint(tuple(s), -9, 10, k, np.int32) for s in shapes]
        import warnings
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            grids = pyad.meshgrid(*[pyad.tensor(a) for a in arrays], **pk)
            tgrids = torch.meshgrid(*[torch.tensor(a) for a in arrays], **pk)
        for g, e, t in zip(grids, np.meshgrid(*arrays, **nk), tgrids):
            np.testing.assert_array_equal(g.data, e)
            check(g, t)


def test_cartesian_prod():
    a = np.array([1])
    b = np.array([1, 2, 3])
    c = np.array([1, 2])
    prod = pyad.cartesian_prod(pyad.tensor(a), pyad.tensor(b), pyad.tensor(c))
    expected = np.array(list(itertools.product(a, b, c)))
    check(prod, torch.tensor(expected))
    # a size-0 input
    d = np.empty(0, dtype=b.dtype)
    prod = pyad.cartesian_prod(*[pyad.tensor(v) for v in (a, b, c, d)])
    check(prod, torch.empty(0, 4, dtype=torch.int64))
    # one input: itself
    check(pyad.cartesian_prod(pyad.tensor(b)), torch.tensor(b))


def test_combinations():
    a = np.array([1, 2, 3])
    pa = pyad.tensor(a)
    check(pyad.combinations(pa, r=0), torch.empty(0, dtype=torch.int64))
    check(pyad.combinations(pa, r=1), torch.tensor(list(itertools.combinations(a, r=1))))
    check(pyad.combinations(pa, r=1, with_replacement=True),
          torch.tensor(list(itertools.combinations_with_replacement(a, r=1))))
    check(pyad.combinations(pa), torch.tensor(list(itertools.combinations(a, r=2))))
    check(pyad.combinations(pa, with_replacement=True),
          torch.tensor(list(itertools.combinations_with_replacement(a, r=2))))
    check(pyad.combinations(pa, r=3), torch.tensor(list(itertools.combinations(a, r=3))))
    check(pyad.combinations(pa, r=4), torch.empty(0, 4, dtype=torch.int64))
    check(pyad.combinations(pa, r=5), torch.empty(0, 5, dtype=torch.int64))
    # an empty input (the default float dtype)
    e = pyad.empty(0)
    check(pyad.combinations(e), torch.empty(0, 2))
    check(pyad.combinations(e, with_replacement=True), torch.empty(0, 2))


def test_complex_type_conversions():
    types = [np.float32, np.complex64, np.complex128]
    for from_type in types:
        for to_type in types:
            src = _data((4,), from_type, 3)
            p = pyad.tensor(src)
            q = p.to(dtype=to_type)
            t = torch.tensor(src).to(getattr(torch, np.dtype(to_type).name))
            check(q, t)
            if np.iscomplexobj(src) and not np.issubdtype(to_type, np.complexfloating):
                np.testing.assert_array_equal(q.data, pyad.real(p).data.astype(to_type))
            elif not np.iscomplexobj(src) and np.issubdtype(to_type, np.complexfloating):
                np.testing.assert_array_equal(pyad.real(q).data, src)
                np.testing.assert_array_equal(pyad.imag(q).data, 0)


@pytest.mark.parametrize("dtype", [np.int32, np.int64], ids=dname)
def test_large_linspace(dtype):
    start = np.iinfo(dtype).min
    end = np.iinfo(dtype).max & ~0xfff
    x = pyad.linspace(start, end, 15, dtype=dtype)
    assert int(x.data[1]) - int(x.data[0]) > (end - start) / 15
    if dtype == np.int32:
        check(x, torch.linspace(start, end, 15, dtype=torch.int32))
    else:
        # torch's int64 values depend on its CPU vector width (its vectorised path adds
        # the step truncated to an integer within each vector), so here hand math: each
        # value within the double rounding (an ulp of 2**63 is 2048) of the exact one,
        # the ends exact
        from fractions import Fraction
        for i, v in enumerate(x.tolist()):
            exact = Fraction(start) + Fraction(end - start, 14) * i
            assert abs(v - exact) <= 2048, (i, v, exact)
        assert x.tolist()[0] == start and x.tolist()[-1] == end


def _linspace_logspace_deduction(name):
    for start, end in ((1, 2), (1.0, 2), (1.0, -2.0), (1j, 2j), (0.0, 2j), (1j, 2)):
        p = getattr(pyad, name)(start, end, steps=100)
        t = getattr(torch, name)(start, end, steps=100)
        expected = np.complex64 if isinstance(start, complex) or isinstance(end, complex) \
            else np.float32
        assert p.dtype == expected
        check(p, t, exact=False)


def test_linspace_deduction():
    _linspace_logspace_deduction("linspace")


def test_logspace_deduction():
    _linspace_logspace_deduction("logspace")


def test_zeros_like():
    expected = pyad.zeros((100, 100))
    res = pyad.zeros_like(expected)
    check(res, torch.zeros_like(torch.zeros(100, 100)))
    for dtype in (np.float64, np.int64, np.bool_, np.complex64):
        like = pyad.tensor(np.ones(3, dtype))
        check(pyad.zeros_like(like), torch.zeros_like(torch.tensor(np.ones(3, dtype))))
        check(pyad.zeros_like(like, dtype=np.float16), torch.zeros(3, dtype=torch.float16))


def test_ones_like():
    check(pyad.ones_like(pyad.ones((100, 100))), torch.ones(100, 100))
    # a bool Variable
    check(pyad.ones_like(pyad.tensor(np.array([True, True]))),
          torch.tensor([True, True]))
    check(pyad.ones_like(pyad.tensor(np.array([1, 2])), dtype=np.float64),
          torch.ones(2, dtype=torch.float64))


def test_empty_like():
    for a in (np.zeros((2, 3)), np.zeros((0, 4), np.int32), np.zeros((), np.bool_),
              np.zeros((3, 2), np.complex64)):
        p = pyad.empty_like(pyad.tensor(a))
        t = torch.empty_like(torch.tensor(a))
        assert tuple(p.shape) == tuple(t.shape) and dname(p.dtype) == dname(t.dtype)
        q = pyad.empty_like(pyad.tensor(a), dtype=np.float16)
        assert tuple(q.shape) == a.shape and q.dtype == np.float16


def test_full_like_inference():
    like = pyad.empty((5,), dtype=np.int64)
    assert pyad.full_like(like, 1.0).dtype == np.int64
    assert pyad.full_like(like, 1.0, dtype=np.complex64).dtype == np.complex64
    check(pyad.full_like(like, 1.5), torch.full_like(torch.empty(5, dtype=torch.long), 1.5))
    check(pyad.full_like(pyad.empty(3, dtype=np.float16), 2.5),
          torch.full_like(torch.empty(3, dtype=torch.float16), 2.5))


def test_simple_scalar_cast():
    ok = [pyad.tensor(np.array([1.5])), pyad.zeros((1, 1, 1, 1))]
    for v, value in zip(ok, [1.5, 0]):
        assert int(v) == int(value)
        assert float(v) == float(value)
        assert complex(v) == complex(value)
    assert complex(pyad.tensor(1.5j)) == 1.5j
    for a in ([], [1, 2], [[1, 2], [3, 4]]):
        v = pyad.tensor(np.array(a, np.float32))
        for conv in (int, float, complex):
            with pytest.raises((ValueError, RuntimeError, TypeError)):
                conv(v)
            with pytest.raises((ValueError, RuntimeError, TypeError)):
                conv(torch.tensor(a, dtype=torch.float32))
    for conv in (float, int):
        with pytest.raises(RuntimeError):
            conv(torch.tensor(1.5j))
        with pytest.raises(RuntimeError):
            conv(pyad.tensor(1.5j))


def test_offset_scalar_cast():
    x = pyad.tensor(np.array([1.0, 2.0, 3.0]))
    assert int(x[2:]) == 3


def test_tensor_from_sequence():
    class MockSequence:
        def __init__(self, lst):
            self.lst = lst

        def __len__(self):
            return len(self.lst)

        def __getitem__(self, item):
            raise TypeError

    class GoodMockSequence(MockSequence):
        def __getitem__(self, item):
            return self.lst[item]

    with pytest.raises(ValueError, match="could not determine the shape"):
        torch.tensor(MockSequence([1.0, 2.0, 3.0]))
    with pytest.raises((ValueError, TypeError)):
        pyad.tensor(MockSequence([1.0, 2.0, 3.0]))
    check(pyad.tensor(GoodMockSequence([1.0, 2.0, 3.0])),
          torch.tensor(GoodMockSequence([1.0, 2.0, 3.0])))


def test_repeat_interleave():
    x = np.array([0, 1, 2, 3])
    same(lambda m, v: m.repeat_interleave(v, 2), x)
    same(lambda m, v, r: m.repeat_interleave(v, r), x, np.array([1, 2, 3, 0]))
    y = np.array([[1, 2], [3, 4]])
    same(lambda m, v: m.repeat_interleave(v, 2), y)
    same(lambda m, v: m.repeat_interleave(v, 3, dim=1), y)
    same(lambda m, v, r: m.repeat_interleave(v, r, dim=0), y, np.array([1, 2]))
    # repeats as a 1-d int Variable alone: the indices repeated
    same(lambda m, r: m.repeat_interleave(r), np.array([1, 2, 3]))
    # empty inputs
    same(lambda m, v: m.repeat_interleave(v, 3, dim=1), np.zeros((5, 0)))
    same(lambda m, v: m.repeat_interleave(v, v), np.array([], np.int64))
    # a negative count is refused
    with pytest.raises(RuntimeError):
        torch.repeat_interleave(torch.tensor(x), torch.tensor([1, -1, 1, 1]))
    with pytest.raises(RuntimeError):
        pyad.repeat_interleave(pyad.tensor(x), pyad.tensor(np.array([1, -1, 1, 1])))


# ------------------------------------------------------------------------------------
# test_view_ops.py: hsplit/vsplit/dsplit return views whose writes show through
# ------------------------------------------------------------------------------------


def _split_views(fn, shape, arg):
    t = pyad.tensor(np.arange(np.prod(shape), dtype=np.float64).reshape(shape))
    parts = fn(t, arg)
    tparts = getattr(torch, fn.__name__)(torch.arange(float(np.prod(shape)),
                                                      dtype=torch.float64).reshape(shape), arg)
    check(list(parts), list(tparts))
    for p in parts:
        if p.numel() == 0:
            continue
        assert p._is_view() and p._base is t
        assert shares_memory(p, t)
        p.data.flat[0] = -7.0        # a write to the part shows in the base
        assert (t.data == -7.0).sum() >= 1
        t.data[...] = np.arange(np.prod(shape)).reshape(shape)


def test_view_tensor_hsplit():
    _split_views(pyad.hsplit, (4, 6, 3), 2)
    _split_views(pyad.hsplit, (4, 6, 3), [1, 4])


def test_view_tensor_vsplit():
    _split_views(pyad.vsplit, (6, 4, 3), 2)
    _split_views(pyad.vsplit, (6, 4, 3), [1, 5])


def test_view_tensor_dsplit():
    _split_views(pyad.dsplit, (4, 3, 6), 3)
    _split_views(pyad.dsplit, (4, 3, 6), [2, 5])
