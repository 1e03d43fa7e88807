"""Random small calls of the direct-loop ops (pyad/_loops.pxi) against NumPy, bit for
bit: shapes around the size limit, C/F/strided layouts, broadcasting partners."""
import warnings

import numpy as np
import pytest

import pyad

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import given, strategies as st  # noqa: E402

from test_direct_loops import _BINARY, _UNARY, _same  # noqa: E402


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
    other = draw(st.sampled_from(["same", "self", "float", "int", "reflected", "row",
                                  "column", "one", "mixed"]))
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
        elif other in ("row", "column", "one", "mixed"):
            # a broadcast partner of a: its trailing dims, its leading dims then 1s, one
            # element, or a mix that is neither (the ufunc's case)
            nd = a.ndim
            j = nd // 2
            shape = {"row": a.shape[j:], "column": a.shape[:j] + (1,) * (nd - j),
                     "one": (1,) * min(nd, 1),
                     "mixed": tuple(1 if i % 2 else d for i, d in enumerate(a.shape))}[other]
            b = (np.random.default_rng(3).standard_normal(shape) * 3).astype(a.dtype)
            _same(fn(pyad.Variable(a), pyad.Variable(b)), ref(a, b))
            _same(fn(pyad.Variable(b), pyad.Variable(a)), ref(b, a))
        elif other == "reflected":
            _same(fn(s, pyad.Variable(a)), ref(s, a))
        else:
            s = float(s) if other == "float" else int(s)
            _same(fn(pyad.Variable(a), s), ref(a, s))


@st.composite
def _reduction_operands(draw):
    dtype = draw(st.sampled_from([np.float64, np.float32]))
    shape = tuple(draw(st.lists(st.sampled_from([1, 2, 3, 8, 9, 17, 129, 300]),
                                min_size=1, max_size=3)))
    seed = draw(st.integers(0, 2 ** 16))
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(shape) * draw(st.sampled_from([1.0, 1e-3, 1e3, 1e37]))
    if draw(st.booleans()):     # specials: signed zeros, infinities, NaN
        specials = np.array([0.0, -0.0, np.inf, -np.inf, np.nan])
        a = np.where(rng.random(shape) < 0.2, rng.choice(specials, shape), a)
    with np.errstate(over="ignore"):
        a = a.astype(dtype)
    if draw(st.booleans()) and a.ndim > 1:
        a = np.asfortranarray(a)
    dim = draw(st.integers(-a.ndim, a.ndim - 1))
    return a, dim, draw(st.booleans())


@given(_reduction_operands())
def test_any_small_sum_or_max_matches_numpy_bit_for_bit(operands):
    a, dim, keepdim = operands
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        x = pyad.Variable(a)
        _same(pyad.sum(x, dim, keepdim), a.sum(axis=dim, keepdims=keepdim))
        _same(pyad.amax(x, dim, keepdim), a.max(axis=dim, keepdims=keepdim))
