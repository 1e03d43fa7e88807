"""A third batch of ports of PyTorch's op-semantics tests (CPU) to pyad:
``test/test_reductions.py`` (the ReductionOpInfo unit tests -- dim default/None/single/
multi/unsorted/duplicate/off-bounds with and without keepdim, identities, NaN policies,
result dtypes, empty slices, non-contiguous inputs, reference inputs -- var/std
stability and correction, nansum/nanmean dtypes, empty compare/any/all reductions,
elementwise max/min), ``test/test_sort_and_select.py`` (topk on 4-d, zero and float16
inputs, sorts of big slices), ``test/test_shape_ops.py`` (nonzero of non-differentiable
inputs, fill_diagonal_) and ``test/test_linalg.py`` (CPU, float64: det/logdet/slogdet,
inverse, solve, cholesky, qr, eigh/eigvalsh, vector/matrix norms, pinv, lstsq,
matrix_power, cross, inner/outer/kron, dot/vdot, with gradcheck/gradgradcheck of the
differentiable ones through ``pyad.autograd.gradcheck``).

As in tests/ops/test_torch_op_ports_2.py the tests keep torch's names and the meaning
of their assertions, without torch's OpInfo/device/dtype decorators: each writes its
concrete ops, dtypes and inputs.  Expected values are torch 2.13 run on the same inputs
(``check`` compares shape, dtype and values) or the literal values of torch's own
test, never pyad's output.
"""
import math

import numpy as np
import pytest

import pyad
from pyad.autograd import gradcheck, gradgradcheck

torch = pytest.importorskip("torch")

from _ops_helpers import (both, check_result as check, dname, rnd, tnp, rint, same)  # noqa: E402

inf, nan = math.inf, math.nan


# ------------------------------------------------------------------------------------
# helpers
# ------------------------------------------------------------------------------------


def leaf(a):
    return pyad.tensor(np.asarray(a, np.float64).copy(), requires_grad=True)


def gradchecks(fn, *arrays):
    """pyad.autograd.gradcheck and gradgradcheck of ``fn`` at float64 ``arrays``."""
    xs = tuple(leaf(a) for a in arrays)
    assert gradcheck(fn, xs)
    assert gradgradcheck(fn, xs)


def grads_vs_torch(fn, *arrays, exact=False):
    """Values and first derivatives (a fixed cotangent) of ``fn(module, *xs)``."""
    xs = [leaf(a) for a in arrays]
    ts = [torch.tensor(np.asarray(a, np.float64), requires_grad=True) for a in arrays]
    p, t = fn(pyad, *xs), fn(torch, *ts)
    check(p, t, exact)
    w = rnd(tuple(t.shape), 99)
    gp = pyad.grad(p, xs, pyad.tensor(w))
    gt = torch.autograd.grad(t, ts, torch.tensor(w))
    check(list(gp), list(gt), exact=False)


# ------------------------------------------------------------------------------------
# test_reductions.py: the ReductionOpInfo unit tests, written out per op
# ------------------------------------------------------------------------------------

# name -> f(module, x, **dim_keepdim); every op takes torch's dim= and keepdim=
REDUCTIONS = {
    "sum": lambda m, x, **k: m.sum(x, **k),
    "mean": lambda m, x, **k: m.mean(x, **k),
    "nansum": lambda m, x, **k: m.nansum(x, **k),
    "nanmean": lambda m, x, **k: m.nanmean(x, **k),
    "amax": lambda m, x, **k: m.amax(x, **k) if "dim" in k else m.amax(x, dim=(), **k),
    "amin": lambda m, x, **k: m.amin(x, **k) if "dim" in k else m.amin(x, dim=(), **k),
    "var": lambda m, x, **k: m.var(x, **k),
    "std": lambda m, x, **k: m.std(x, **k),
    "logsumexp": lambda m, x, **k: m.logsumexp(x, **k),
    # (count_nonzero has no keepdim in torch: the tests pass it none)
    "count_nonzero": lambda m, x, **k: m.count_nonzero(x, **k),
    "vector_norm": lambda m, x, **k: m.linalg.vector_norm(x, **k),
    "all": lambda m, x, **k: m.all(x, **k),
    "any": lambda m, x, **k: m.any(x, **k),
}
MULTI_DIM = ["sum", "mean", "nansum", "nanmean", "amax", "amin", "var", "std",
             "logsumexp", "vector_norm", "all", "any"]
SINGLE_DIM = {   # ops without a dim list
    "prod": lambda m, x, **k: m.prod(x, **k),
    "argmax": lambda m, x, **k: m.argmax(x, **k),
    "argmin": lambda m, x, **k: m.argmin(x, **k),
    "median": lambda m, x, **k: m.median(x, **k) if "dim" not in k else m.median(x, **k).values,
    "nanmedian": lambda m, x, **k: (m.nanmedian(x, **k) if "dim" not in k
                                    else m.nanmedian(x, **k).values),
    "mode": lambda m, x, **k: m.mode(x, **k).values,
}


def _red(name):
    return REDUCTIONS.get(name) or SINGLE_DIM[name]


def _dim_keepdim(name, ndim, **dim_keepdim):
    """torch's _test_dim_keepdim: the result of a reduction of an ndim input has the
    reduced shape (here: torch's result on the same input, shape dtype and values)."""
    shape = tuple(np.random.default_rng(ndim).integers(2, 5, ndim))
    a = rnd(shape, ndim)
    if name in ("logsumexp",) and "dim" not in dim_keepdim:
        dim_keepdim = dict(dim_keepdim, dim=tuple(range(ndim)))
    if name in ("mode",) and "dim" not in dim_keepdim:
        dim_keepdim = dict(dim_keepdim, dim=-1)
    if name in ("count_nonzero",) and dim_keepdim.get("keepdim"):
        return
    f = _red(name)
    try:
        t = f(torch, torch.tensor(a), **dim_keepdim)
    except (RuntimeError, TypeError, IndexError) as e:
        # torch refuses the combination (sum(keepdim=True) without dim, logsumexp of a
        # 2-d input over dim=[]): pyad refuses it with the same exception class
        with pytest.raises(type(e)):
            f(pyad, pyad.tensor(a), **dim_keepdim)
        return None
    p = f(pyad, pyad.tensor(a), **dim_keepdim)
    check(p, t, exact=False)
    return p


ALL = sorted(REDUCTIONS) + sorted(SINGLE_DIM)


@pytest.mark.parametrize("name", ALL)
def test_dim_default_keepdim(name):
    # keepdim=True without a dim: every dim reduced to size 1
    # (argmax/argmin/median/prod without a dim: torch's answer or its refusal, both checked)
    for ndim in range(3):
        if name in ("sum", "mean"):
            # torch's sum/mean have no (input, keepdim) overload (a TypeError); pyad's
            # documented signature is sum(input, dim=None, keepdim=False) (docs/op-reference.md),
            # so keepdim alone means dim=None: torch's result for dim=None, keepdim=True
            a = rnd(tuple(np.random.default_rng(ndim).integers(2, 5, ndim)), ndim)
            with pytest.raises(TypeError):
                _red(name)(torch, torch.tensor(a), keepdim=True)
            check(_red(name)(pyad, pyad.tensor(a), keepdim=True),
                  _red(name)(torch, torch.tensor(a), dim=None, keepdim=True), exact=False)
            continue
        _dim_keepdim(name, ndim, keepdim=True)


@pytest.mark.parametrize("name", ["sum", "mean", "nansum", "nanmean", "var", "std",
                                  "vector_norm", "all", "any", "count_nonzero"])
def test_dim_none(name):
    for ndim in range(3):
        _dim_keepdim(name, ndim, dim=None)


@pytest.mark.parametrize("name", ["sum", "mean", "nansum", "nanmean", "var", "std",
                                  "vector_norm", "all", "any"])
def test_dim_none_keepdim(name):
    for ndim in range(3):
        _dim_keepdim(name, ndim, dim=None, keepdim=True)


@pytest.mark.parametrize("name", ALL)
def test_dim_single(name):
    _dim_keepdim(name, 0, dim=0)
    _dim_keepdim(name, 1, dim=0)
    _dim_keepdim(name, 2, dim=-1)
    _dim_keepdim(name, 3, dim=1)


@pytest.mark.parametrize("name", sorted(set(ALL) - {"count_nonzero"}))
def test_dim_single_keepdim(name):
    _dim_keepdim(name, 0, dim=0, keepdim=True)
    _dim_keepdim(name, 1, dim=0, keepdim=True)
    _dim_keepdim(name, 2, dim=-1, keepdim=True)
    _dim_keepdim(name, 3, dim=1, keepdim=True)


@pytest.mark.parametrize("name", MULTI_DIM)
def test_dim_empty(name):
    # dim=[]: torch's result (vector_norm reads it as dim=None)
    _dim_keepdim(name, 0, dim=[])
    _dim_keepdim(name, 2, dim=[])


@pytest.mark.parametrize("name", MULTI_DIM)
def test_dim_empty_keepdim(name):
    _dim_keepdim(name, 0, dim=[], keepdim=True)
    _dim_keepdim(name, 2, dim=[], keepdim=True)


@pytest.mark.parametrize("name", MULTI_DIM + ["count_nonzero"])
def test_dim_multi(name):
    p = _dim_keepdim(name, 1, dim=[0])
    assert p.shape == ()
    p = _dim_keepdim(name, 3, dim=[0, 2])
    assert p.ndim == 1


@pytest.mark.parametrize("name", MULTI_DIM)
def test_dim_multi_keepdim(name):
    p = _dim_keepdim(name, 1, dim=[0], keepdim=True)
    assert p.shape == (1,)
    p = _dim_keepdim(name, 3, dim=[0, 2], keepdim=True)
    assert p.shape[0] == p.shape[2] == 1


@pytest.mark.parametrize("name", MULTI_DIM + ["count_nonzero"])
def test_dim_multi_unsorted(name):
    p = _dim_keepdim(name, 4, dim=[3, 0, 2])
    assert p.ndim == 1


@pytest.mark.parametrize("name", MULTI_DIM)
def test_dim_multi_unsorted_keepdim(name):
    p = _dim_keepdim(name, 4, dim=[3, 0, 2], keepdim=True)
    assert p.ndim == 4 and p.shape[0] == p.shape[2] == p.shape[3] == 1


@pytest.mark.parametrize("name", MULTI_DIM + ["count_nonzero"])
def test_dim_multi_duplicate(name):
    a = rnd((2, 3, 4), 1)
    p, t = both(a)
    with pytest.raises(RuntimeError):
        _red(name)(torch, t, dim=[0, 1, 1, 2])
    with pytest.raises(RuntimeError):
        _red(name)(pyad, p, dim=[0, 1, 1, 2])


@pytest.mark.parametrize("name", ["prod", "argmax", "argmin", "median", "nanmedian", "mode"])
def test_dim_multi_unsupported(name):
    a = rnd((2, 3, 4), 1)
    p, t = both(a)
    with pytest.raises(TypeError):
        _red(name)(torch, t, dim=[0, 2])
    with pytest.raises(TypeError):
        _red(name)(pyad, p, dim=[0, 2])


@pytest.mark.parametrize("name", ALL)
def test_dim_offbounds(name):
    a = rnd((2, 3), 1)
    p, t = both(a)
    with pytest.raises(IndexError):
        _red(name)(torch, t, dim=2)
    with pytest.raises(IndexError):
        _red(name)(pyad, p, dim=2)


IDENTITY = {"sum": 0, "nansum": 0, "prod": 1, "amax": -inf, "amin": inf,
            "logsumexp": -inf, "count_nonzero": 0, "vector_norm": 0, "all": 1, "any": 0}


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64, np.bool_])
@pytest.mark.parametrize("name", sorted(IDENTITY))
def test_identity(name, dtype):
    # the identity value in every other position does not change the result
    ident = IDENTITY[name]
    if np.issubdtype(dtype, np.integer) or dtype == np.bool_:
        if name in ("logsumexp", "vector_norm") or not np.isfinite(ident):
            if not np.isfinite(ident) and name in ("amax", "amin"):
                ident = np.iinfo(np.int64).min if name == "amax" else np.iinfo(np.int64).max
                if dtype == np.bool_:
                    ident = name == "amin"
            else:
                # torch: logsumexp/vector_norm of an integral input: a float result or a
                # refusal -- pyad's must be the same
                a = rint((10,), 0, 3, 3, dtype) if dtype != np.bool_ else rint((10,), 0, 2) > 0
                f = (lambda m, x: m.logsumexp(x, 0)) if name == "logsumexp" else _red(name)
                try:
                    t = f(torch, torch.tensor(a))
                except RuntimeError:
                    with pytest.raises(RuntimeError):
                        f(pyad, pyad.tensor(a))
                    return
                check(f(pyad, pyad.tensor(a)), t, exact=False)
                return
    a = rnd((10,), 3) * 5
    a = a.astype(dtype) if dtype != np.bool_ else a > 0
    a[1::2] = ident
    f = _red(name)
    if name in ("logsumexp",):
        f = lambda m, x: m.logsumexp(x, 0)  # noqa: E731
    else:
        f = (lambda g: lambda m, x: g(m, x))(f)
    p, t = same(lambda m, x: f(m, x), a, exact=False)
    p2, t2 = same(lambda m, x: f(m, x[::2]), a, exact=False)
    np.testing.assert_allclose(p.data, p2.data, rtol=1e-6)


NAN_PROPAGATE = ["sum", "mean", "prod", "amax", "amin", "var", "std", "logsumexp",
                 "vector_norm", "median"]
NAN_OMIT = ["nansum", "nanmean", "nanmedian"]


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize("name", NAN_PROPAGATE)
def test_nan_policy_propagate(name, dtype):
    a = rnd((5,), 4).astype(dtype)
    a[2] = nan
    f = (lambda m, x: m.logsumexp(x, 0)) if name == "logsumexp" else _red(name)
    p, t = same(f, a, exact=False)
    assert bool(np.isnan(p.data))


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize("name", NAN_OMIT)
def test_nan_policy_omit(name, dtype):
    a = rnd((10,), 5).astype(dtype)
    a[1::2] = nan
    f = _red(name)
    p, t = same(f, a, exact=False)
    p2, t2 = same(lambda m, x: f(m, x[::2]), a, exact=False)
    check(p, t2, exact=False)


@pytest.mark.parametrize("dtype", [np.bool_, np.uint8, np.int8, np.int16, np.int32,
                                   np.int64, np.float16, np.float32, np.float64,
                                   np.complex64, np.complex128])
@pytest.mark.parametrize("name", ["sum", "prod", "nansum", "amax", "amin", "mean",
                                  "count_nonzero", "all", "any", "argmax", "argmin",
                                  "vector_norm", "var", "std", "logsumexp"])
def test_result_dtype(name, dtype):
    a = rnd((5,), 6) * 4
    a = a > 0 if dtype == np.bool_ else np.abs(a).astype(dtype)
    p, t = both(a)
    f = (lambda m, x: m.logsumexp(x, 0)) if name == "logsumexp" else _red(name)
    try:
        tr = f(torch, t)
    except RuntimeError:
        # torch refuses the dtype (mean of integers, amax of complex ...): so does pyad
        with pytest.raises((RuntimeError, TypeError)):
            f(pyad, p)
        return
    pr = f(pyad, p)
    assert dname(pr.dtype) == dname(tr.dtype)
    check(pr, tr, exact=False)


@pytest.mark.parametrize("name", ALL)
def test_empty_tensor_empty_slice(name):
    # identity where the op has one; nan where it makes floats; else an IndexError
    a = np.zeros((0, 2, 3))
    p, t = both(a)
    dims = [0, [0, 2]] if name in MULTI_DIM + ["count_nonzero"] else [0]
    f = (lambda m, x, **k: m.logsumexp(x, **k)) if name == "logsumexp" else _red(name)
    for dim in dims:
        try:
            tr = f(torch, t, dim=dim)
        except IndexError:
            with pytest.raises(IndexError):
                f(pyad, p, dim=dim)
            continue
        check(f(pyad, p, dim=dim), tr)
        if name in IDENTITY:
            assert (tnp(tr) == IDENTITY[name]).all()
        elif name in ("mean", "nanmean", "var", "std"):
            assert np.isnan(tnp(tr)).all()


@pytest.mark.parametrize("name", ALL)
def test_empty_tensor_nonempty_slice(name):
    a = np.zeros((0, 2, 3))
    dims = [1, [1, 2]] if name in MULTI_DIM + ["count_nonzero"] else [1]
    f = (lambda m, x, **k: m.logsumexp(x, **k)) if name == "logsumexp" else _red(name)
    for dim in dims:
        p, t = same(lambda m, x: f(m, x, dim=dim), a)
        assert p.shape[0] == 0


def _noncontiguous(name, make, **kw):
    """torch's _test_noncontiguous: a reduction of a non-contiguous view equals the
    reduction of its contiguous copy (and torch's)."""
    f = (lambda m, x, **k: m.logsumexp(x, **k)) if name == "logsumexp" else _red(name)
    if name == "logsumexp" and "dim" not in kw:
        kw = dict(kw, dim=0)
    if name == "mode" and "dim" not in kw:
        kw = dict(kw, dim=-1)
    p, t = same(lambda m, x: f(m, make(x), **kw), rnd((8, 6, 4), 7), exact=False)
    p2, t2 = same(lambda m, x: f(m, make(x).contiguous(), **kw), rnd((8, 6, 4), 7),
                  exact=False)
    check(p, t2, exact=False)


@pytest.mark.parametrize("name", ALL)
def test_noncontiguous_innermost(name):
    _noncontiguous(name, lambda x: x[:, :, ::2], dim=-1)


@pytest.mark.parametrize("name", ALL)
def test_noncontiguous_outermost(name):
    _noncontiguous(name, lambda x: x[::2], dim=0)


@pytest.mark.parametrize("name", ALL)
def test_noncontiguous_all(name):
    _noncontiguous(name, lambda x: x[::2, ::3, ::2])


@pytest.mark.parametrize("name", ALL)
def test_noncontiguous_transposed(name):
    _noncontiguous(name, lambda x: x.transpose(0, 2))


@pytest.mark.parametrize("name", ALL)
def test_noncontiguous_expanded(name):
    _noncontiguous(name, lambda x: x[:, :1].expand(8, 5, 4))


@pytest.mark.parametrize("name", ALL)
def test_ref_scalar_input(name):
    f = (lambda m, x: m.logsumexp(x, 0)) if name == "logsumexp" else _red(name)
    same(lambda m, x: f(m, x), np.array(2.5), exact=False)


@pytest.mark.parametrize("name", ALL)
def test_ref_duplicate_values(name):
    a = np.array([[1.0, 1.0, 2.0, 2.0], [-3.0, 1.0, -3.0, 0.0]])
    for dim in (0, 1):
        f = (lambda m, x: m.logsumexp(x, dim)) if name == "logsumexp" else (
            lambda m, x: _red(name)(m, x, dim=dim))
        same(f, a, exact=False)


@pytest.mark.parametrize("name", ALL)
def test_ref_extremal_values(name):
    # mode: not one of torch's ReductionOpInfos; torch's CPU mode sorts with std::sort and
    # a ``<`` that NaN breaks, so which NaN-or-number it reports is unspecified: +-inf only
    for e in ((-inf, inf) if name == "mode" else (-inf, inf, nan)):
        a = np.array([[0.0, 1.0, e, -2.0], [e, e, 3.0, 0.5]])
        for dim in (0, 1):
            f = (lambda m, x: m.logsumexp(x, dim)) if name == "logsumexp" else (
                lambda m, x: _red(name)(m, x, dim=dim))
            same(f, a, exact=False)


# ------------------------------------------------------------------------------------
# test_reductions.py: var/std, nansum/nanmean, empty compare ops, dims
# ------------------------------------------------------------------------------------

def test_var_unbiased():
    x = rnd((100,), 11)
    p, t = both(x)
    check(p.var(0), t.var(0, unbiased=True), exact=False)
    check(p.var(0), p.var(0, unbiased=True))
    check(p.var(), p.var(unbiased=True))
    check(p.var(unbiased=False), p.var(0, unbiased=False))
    p = pyad.tensor([1.0, 2.0])
    assert p.var(unbiased=True).item() == 0.5
    assert p.var(unbiased=False).item() == 0.25
    p = pyad.tensor([1.0, 2.0, 3.0])      # float32, as torch's default
    assert p.var(unbiased=True).item() == 1.0
    assert p.var(unbiased=False).item() == np.float32(2.0 / 3.0)
    check(p.var(unbiased=False), torch.tensor([1.0, 2.0, 3.0]).var(unbiased=False))
    p, t = both(x)
    check(p.std(0), t.std(0, unbiased=True), exact=False)
    check(p.std(0), p.std(0, unbiased=True))
    check(p.std(), p.std(unbiased=True))
    check(p.std(unbiased=False), t.std(0, unbiased=False), exact=False)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_var_stability(dtype):
    p = pyad.tensor(np.array([2281.5, 2281.25], dtype))
    assert p.var(dim=0).item() == 0.03125
    assert p.var().item() == 0.03125


def test_dim_reduction_lastdim():
    x = rnd((3, 5, 40), 12)[:, :, 0:40:2]
    for op in ("norm", "argmax", "argmin"):
        p, t = same(lambda m, a: getattr(m, op)(a, dim=-1), x, exact=False)
        # the strided input and its contiguous copy: the same result
        q, _ = same(lambda m, a: getattr(m, op)(a.contiguous(), dim=-1), x, exact=False)
        np.testing.assert_array_equal(p.data, q.data)


@pytest.mark.parametrize("out_dtype", [np.int64, np.float16, np.float32, np.float64])
def test_nansum_out_dtype(out_dtype):
    if np.issubdtype(out_dtype, np.floating):
        inp = [np.uint8, np.int8, np.int16, np.int32, np.int64, np.float16, np.float32,
               np.float64]
    else:
        inp = [np.uint8, np.int8, np.int16, np.int32, np.int64]
    for k, in_dtype in enumerate(inp):
        x = rint((5, 7, 6), 15, 100, k, in_dtype) if np.issubdtype(in_dtype, np.integer) \
            else (rnd((5, 7, 6), k) * 40).astype(in_dtype)
        p, t = same(lambda m, a: m.nansum(a, dtype=getattr(m, dname(out_dtype))), x,
                    exact=not np.issubdtype(out_dtype, np.floating))
        expect = np.nansum(x, dtype=out_dtype)
        np.testing.assert_allclose(p.data, expect, rtol=1e-3 if out_dtype == np.float16 else 1e-6)


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_nansum_complex(dtype):
    x = (rnd((3, 3, 3), 1) + 1j * rnd((3, 3, 3), 2)).astype(dtype)
    with pytest.raises(RuntimeError, match="nansum"):
        torch.nansum(torch.tensor(x))
    with pytest.raises(RuntimeError, match="nansum"):
        pyad.nansum(pyad.tensor(x))


def test_repeated_dim():
    x = rnd((3, 3, 3, 3), 13)
    p, t = both(x)
    ops = ["mean", "sum", "nansum", "std", "logsumexp", "var", "amin", "amax"]
    for op in ops:
        for dim in [(0, 0), (0, -4)]:
            with pytest.raises(RuntimeError, match="appears multiple times in the list of dims"):
                getattr(torch, op)(t, dim=dim)
            with pytest.raises(RuntimeError, match="appears multiple times in the list of dims"):
                getattr(pyad, op)(p, dim=dim)
    for dim in [(0, 0), (0, -4)]:
        with pytest.raises(RuntimeError):
            torch.norm(t, dim=dim)
        with pytest.raises(RuntimeError):
            pyad.norm(p, dim=dim)


@pytest.mark.parametrize("fn", ["std_mean", "var_mean"])
def test_std_mean_some_dims(fn):
    x = rnd((10, 5, 3, 4), 14)
    for dims in ([0, 1], [1, 3], [-1, 0], (2,)):
        for correction in (0, 1):
            for keepdim in (False, True):
                same(lambda m, a: getattr(m, fn)(a, dims, correction=correction,
                                                 keepdim=keepdim), x, exact=False)


@pytest.mark.parametrize("fn", ["std_mean", "var_mean"])
def test_std_mean_correction(fn):
    x = rnd((10, 5, 3), 15)
    for dim in (None, 0, 1, (1, 2), [-1, 0]):
        for correction in (0, 1, 2, 0.5, 11):
            for keepdim in (False, True):
                if dim is None and keepdim:
                    continue
                kw = dict(correction=correction, keepdim=keepdim)
                p, t = same(lambda m, a: getattr(m, fn)(a, dim, **kw), x, exact=False)
                # against NumPy's ddof
                ref = (np.std if fn == "std_mean" else np.var)(
                    x, axis=tuple(dim) if isinstance(dim, list) else dim, ddof=correction,
                    keepdims=keepdim)
                with np.errstate(all="ignore"):
                    np.testing.assert_allclose(p[0].data, ref, rtol=1e-10)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64, np.uint8, np.bool_])
def test_reduction_empty_any_all(dtype):
    shape = (2, 0, 4)
    x = np.zeros(shape, dtype)
    for fn in ("any", "all"):
        same(lambda m, a: getattr(m, fn)(a), x)
        same(lambda m, a: getattr(m, fn)(a, 1), x)
        same(lambda m, a: getattr(m, fn)(a, 1, keepdim=True), x)
        same(lambda m, a: getattr(m, fn)(a, 2), x)
        p, _ = same(lambda m, a: getattr(m, fn)(a, 0, keepdim=True), x)
        # uint8 stays uint8, everything else is bool
        assert dname(p.dtype) == ("uint8" if dtype == np.uint8 else "bool")


def test_tensor_compare_ops_empty():
    shape = (2, 0, 4)
    x = rnd(shape, 16)
    for name in ("max", "min", "amax", "amin", "argmax", "argmin", "median", "nanmedian",
                 "mode", "aminmax"):
        for dim in (-1, 2):
            f = (lambda m, a: getattr(m, name)(a, dim=dim))
            p, t = same(f, x)
            assert (p[0] if isinstance(p, tuple) else p).shape == (2, 0)
            f = (lambda m, a: getattr(m, name)(a, dim=dim, keepdim=True))
            same(f, x)
        # along the empty dim: "Expected reduction dim 1 to have non-zero size"
        for keepdim in (False, True):
            with pytest.raises(IndexError):
                getattr(torch, name)(torch.tensor(x), dim=1, keepdim=keepdim)
            with pytest.raises(IndexError):
                getattr(pyad, name)(pyad.tensor(x), dim=1, keepdim=keepdim)


def test_tensor_compare_ops_argmax_argmix_kthvalue_dim_empty():
    x = rnd((2, 0, 4), 17)
    for name in ("argmax", "argmin", "kthvalue"):
        args = (1,) if name == "kthvalue" else ()
        same(lambda m, a: getattr(m, name)(a, *args, dim=2), x)
        same(lambda m, a: getattr(m, name)(a, *args, dim=2, keepdim=True), x)
        for keepdim in (False, True):
            with pytest.raises(IndexError):
                getattr(torch, name)(torch.tensor(x), *args, dim=1, keepdim=keepdim)
            with pytest.raises(IndexError):
                getattr(pyad, name)(pyad.tensor(x), *args, dim=1, keepdim=keepdim)
    # argmax/argmin without dim of an empty input: "Expected reduction dim to be specified"
    for name in ("argmax", "argmin"):
        with pytest.raises(IndexError):
            getattr(torch, name)(torch.tensor(x))
        with pytest.raises(IndexError):
            getattr(pyad, name)(pyad.tensor(x))


@pytest.mark.parametrize("dtype", [np.uint8, np.int16, np.int32, np.int64, np.bool_])
def test_nanmean_integral_types(dtype):
    # torch: nanmean of an integral input is an error, as mean's
    x = rint((10,), 0, 5, 18, dtype) if dtype != np.bool_ else rint((10,), 0, 2, 18) > 0
    with pytest.raises(RuntimeError):
        torch.nanmean(torch.tensor(x))
    with pytest.raises(RuntimeError):
        pyad.nanmean(pyad.tensor(x))
    # with a floating dtype= it is the mean
    same(lambda m, a: m.nanmean(a.to(m.float64) if m is torch else a.double()), x)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64, np.int32, np.uint8,
                                   np.int16, np.float16])
def test_sum_vs_numpy(dtype):
    for shape in ((5,), (5, 7), (3, 4, 6)):
        x = rint(shape, 0, 30, 19, dtype) if not np.issubdtype(dtype, np.floating) \
            else (rnd(shape, 19) * 30).astype(dtype)
        for dim in [None] + list(range(len(shape))):
            for keepdim in (False, True):
                if dim is None:
                    p, t = same(lambda m, a: m.sum(a), x, exact=False)
                    expect = np.sum(x, dtype=np.int64 if x.dtype.kind in "iub" else None)
                else:
                    p, t = same(lambda m, a: m.sum(a, dim, keepdim=keepdim), x, exact=False)
                    expect = np.sum(x, axis=dim, keepdims=keepdim,
                                    dtype=np.int64 if x.dtype.kind in "iub" else None)
                if dtype == np.float16:
                    # torch (and pyad) accumulate float16 in float32 and round once;
                    # NumPy's float16 sum rounds every step: its float32 sum, rounded
                    expect = np.sum(x.astype(np.float32), axis=dim,
                                    keepdims=keepdim and dim is not None).astype(np.float16)
                np.testing.assert_allclose(p.data, expect, rtol=1e-3 if dtype == np.float16
                                           else 1e-5)


def test_argminmax_axis_with_dim_one():
    # torch issue 38922: a reduction along a dim of size 1 gives index 0
    n = 32768
    x = np.zeros((1, n))
    for name in ("argmax", "argmin"):
        p, t = same(lambda m, a: getattr(m, name)(a, dim=0), x)
        assert (p.data == 0).all()
        same(lambda m, a: getattr(m, name)(a, dim=-2), x)
        same(lambda m, a: getattr(m, name)(a, dim=0, keepdim=True), x)
        same(lambda m, a: getattr(m, name)(a, dim=-2, keepdim=True), x)


def test_dim_arg_reduction_scalar():
    example = 4.0
    x = pyad.tensor(example)
    for name in ("argmax", "argmin"):
        assert getattr(pyad, name)(x).item() == 0
        assert getattr(pyad, name)(x, dim=None).item() == 0
        assert getattr(pyad, name)(x, dim=0).item() == 0
        assert getattr(pyad, name)(x, dim=0, keepdim=True).shape == ()
        check(getattr(pyad, name)(x, dim=0, keepdim=True),
              getattr(torch, name)(torch.tensor(example), dim=0, keepdim=True))
    x = pyad.tensor(example, dtype=pyad.int64)
    assert pyad.argmax(x).item() == 0 and pyad.argmin(x, dim=0).item() == 0


# ------------------------------------------------------------------------------------
# test_sort_and_select.py
# ------------------------------------------------------------------------------------

def test_topk_4d():
    # torch's literal expectations
    for size in (128, 8192):
        x = np.ones((2, size, 2, 2), np.float32)
        x[:, 1, :, :] *= 2.0
        x[:, 10, :, :] *= 1.5
        p, t = same(lambda m, a: m.topk(a, k=2, dim=1), x)
        expected_ind = np.ones((2, 2, 2, 2), np.int64)
        expected_ind[:, 1, :, :] = 10
        expected_val = np.ones((2, 2, 2, 2), np.float32)
        expected_val[:, 0, :, :] *= 2.0
        expected_val[:, 1, :, :] *= 1.5
        np.testing.assert_array_equal(p.values.data, expected_val)
        np.testing.assert_array_equal(p.indices.data, expected_ind)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64, np.int64, np.uint8])
def test_topk_zero(dtype):
    # torch issue 49205: k=0 gives empty values of the input's dtype and int64 indices
    t = (np.random.default_rng(5).random((2, 2)) * 10).astype(dtype)
    p, tt = same(lambda m, a: m.topk(a, k=0, dim=-1), t)
    assert p.values.shape == (2, 0) and dname(p.values.dtype) == dname(dtype)
    assert p.indices.shape == (2, 0) and p.indices.dtype == np.int64


def test_topk_lower_precision():
    # float16: the values torch picks (nan is the largest), in torch's order
    x = np.array([nan, -inf, inf, 0.0, -0.0, 1.0, -1.0, 2.0, -2.0, 65504.0, -65504.0,
                  6e-8, 3.0, 3.0], np.float16)
    for k in (1, 3, 6, len(x)):
        for largest in (True, False):
            p, t = both(x)
            pv = pyad.topk(p, k, largest=largest)
            tv = torch.topk(t, k, largest=largest)
            check(pv.values, tv.values)
            np.testing.assert_array_equal(x[pv.indices.data], pv.values.data)


def test_sort_large_slice():
    x = rnd((4, 100000), 20, np.float32)
    p, t = both(x)
    for stable in (False, True):
        for descending in (False, True):
            pv, pi = pyad.sort(p, stable=stable, descending=descending)
            tv, ti = torch.sort(t, stable=stable, descending=descending)
            check(pv, tv)
            np.testing.assert_array_equal(np.take_along_axis(x, pi.data, 1), pv.data)
            if stable:
                # float32 draws of 100000 have ties: their order is fixed only when stable
                check(pi, ti)
    # a strided slice sorts the same as its contiguous copy
    pv, _ = pyad.sort(p[:, ::3])
    check(pv, torch.sort(t[:, ::3].contiguous()).values)


# ------------------------------------------------------------------------------------
# test_shape_ops.py
# ------------------------------------------------------------------------------------

def test_nonzero_non_diff():
    x = pyad.tensor(rnd((10,), 21), requires_grad=True)
    nz = x.nonzero()
    assert not nz.requires_grad and nz.grad_fn is None
    check(nz, torch.tensor(rnd((10,), 21), requires_grad=True).nonzero())
    for t in pyad.nonzero(x, as_tuple=True):
        assert not t.requires_grad


def test_fill_diagonal():
    a1 = rnd((7, 3), 22)
    v = 1.0
    # tall matrix, no wrap
    same(lambda m, a: a.fill_diagonal_(v), a1)
    # tall matrix, wrap=True: every (n + 1)-th row starts again
    p, t = same(lambda m, a: a.fill_diagonal_(v, wrap=True), a1)
    a2 = a1.copy()
    for i in range(3):
        a2[i, i] = v
    for i in range(4, 7):
        if i - 4 < 3:
            a2[i, i - 4] = v
    np.testing.assert_array_equal(p.data, a2)
    # wide matrix
    same(lambda m, a: a.fill_diagonal_(v), rnd((3, 7), 23))
    # a cube: every [i, i, i]
    p, t = same(lambda m, a: a.fill_diagonal_(v), rnd((3, 3, 3), 24))
    assert all(p.data[i, i, i] == v for i in range(3))
    # non-contiguous
    same(lambda m, a: a[:, 1:].fill_diagonal_(v), rnd((7, 3), 25))
    same(lambda m, a: a.t().fill_diagonal_(v), rnd((7, 3), 26))
    # a 1-d input is refused; so is a cube of unequal sides
    for shape in ((5,), (3, 3, 4)):
        with pytest.raises(RuntimeError):
            torch.tensor(np.zeros(shape)).fill_diagonal_(v)
        with pytest.raises(RuntimeError):
            pyad.tensor(np.zeros(shape)).fill_diagonal_(v)


# ------------------------------------------------------------------------------------
# test_linalg.py (CPU, float64)
# ------------------------------------------------------------------------------------

def spd(n, seed, batch=()):
    a = rnd(batch + (n, n), seed)
    return a @ np.swapaxes(a, -1, -2) + n * np.eye(n)


def test_inner():
    for sa, sb in (((3,), (3,)), ((2, 3), (3,)), ((2, 3), (4, 3)), ((2, 1, 3), (2, 3)),
                   ((), (2, 3)), ((0,), (0,))):
        same(lambda m, a, b: m.inner(a, b), rnd(sa, 1), rnd(sb, 2), exact=False)
    gradchecks(lambda a, b: pyad.inner(a, b), rnd((2, 3), 1), rnd((4, 3), 2))
    with pytest.raises(RuntimeError):
        torch.inner(torch.ones(2, 3), torch.ones(2, 4))
    with pytest.raises(RuntimeError):
        pyad.inner(pyad.ones(2, 3), pyad.ones(2, 4))


def test_outer_type_promotion():
    for da, db in ((np.float32, np.float64), (np.int64, np.float32), (np.int32, np.int64),
                   (np.bool_, np.int64), (np.uint8, np.int8)):
        a = (np.arange(4) - 1).astype(da)
        b = (np.arange(3) + 1).astype(db)
        for fn in ("outer", "ger"):
            same(lambda m, x, y: getattr(m, fn)(x, y), a, b)
    gradchecks(lambda a, b: pyad.outer(a, b), rnd((4,), 1), rnd((3,), 2))


def test_det_logdet_slogdet():
    for a in (rnd((5, 5), 3), spd(4, 4), np.diag([2.0, -3.0, 0.5]), np.zeros((3, 3)),
              np.eye(4), -np.eye(3)):
        same(lambda m, x: m.det(x), a, exact=False)
        same(lambda m, x: m.logdet(x), a, exact=False)
        same(lambda m, x: tuple(m.linalg.slogdet(x)), a, exact=False)
        p, t = same(lambda m, x: tuple(m.slogdet(x)), a, exact=False)
        # det = sign * exp(logabsdet)
        np.testing.assert_allclose(p[0].data * np.exp(p[1].data), np.linalg.det(a),
                                   rtol=1e-10, atol=1e-12)
    gradchecks(lambda x: pyad.det(x), rnd((4, 4), 5))
    gradchecks(lambda x: pyad.logdet(x), spd(3, 6))
    gradchecks(lambda x: pyad.linalg.slogdet(x)[1], rnd((3, 3), 7))


def test_det_logdet_slogdet_batched():
    for batch in ((2,), (3, 2), (0,), (2, 0)):
        a = rnd(batch + (3, 3), 8)
        same(lambda m, x: m.det(x), a, exact=False)
        same(lambda m, x: tuple(m.linalg.slogdet(x)), a, exact=False)
        b = spd(3, 9, batch)
        same(lambda m, x: m.logdet(x), b, exact=False)
    gradchecks(lambda x: pyad.det(x), rnd((2, 3, 3), 10))
    grads_vs_torch(lambda m, x: m.linalg.det(x), rnd((2, 2, 3, 3), 11))


def test_inverse():
    for shape in ((5, 5), (2, 4, 4), (3, 2, 3, 3), (0, 0), (2, 0, 0), (0, 3, 3)):
        a = rnd(shape, 12) + (3 * np.eye(shape[-1]) if shape[-1] else 0)
        p, t = same(lambda m, x: m.inverse(x), a, exact=False)
        same(lambda m, x: m.linalg.inv(x), a, exact=False)
        if a.size:
            np.testing.assert_allclose(a @ p.data, np.broadcast_to(np.eye(shape[-1]), a.shape),
                                       atol=1e-12)
    gradchecks(lambda x: pyad.linalg.inv(x), rnd((2, 3, 3), 13) + 3 * np.eye(3))
    grads_vs_torch(lambda m, x: m.linalg.inv(x), rnd((4, 4), 14) + 2 * np.eye(4))


def test_inverse_many_batches():
    a = rnd((64, 5, 5), 15) + 3 * np.eye(5)
    p, t = same(lambda m, x: m.inverse(x), a, exact=False)
    a = rnd((8, 16, 3, 3), 16) + 3 * np.eye(3)
    same(lambda m, x: m.linalg.inv(x), a, exact=False)


def test_inverse_errors():
    # not square, not at least 2-d, singular
    for bad in (np.ones((2, 3)), np.ones((3,))):
        with pytest.raises(RuntimeError):
            torch.inverse(torch.tensor(bad))
        with pytest.raises(RuntimeError):
            pyad.inverse(pyad.tensor(bad))
    sing = np.stack([np.eye(3), np.zeros((3, 3))])
    with pytest.raises(torch.linalg.LinAlgError, match=r"\(Batch element 1\).*singular"):
        torch.linalg.inv(torch.tensor(sing))
    with pytest.raises(RuntimeError, match="singular"):
        pyad.linalg.inv(pyad.tensor(sing))


def test_pinv():
    for shape in ((5, 5), (3, 5), (5, 3), (2, 4, 3), (2, 3, 2, 4), (0, 0), (3, 0), (2, 0, 3)):
        a = rnd(shape, 17)
        p, t = same(lambda m, x: m.linalg.pinv(x), a, exact=False)
        if a.size:
            # Moore-Penrose: A A+ A = A, A+ A A+ = A+
            np.testing.assert_allclose(a @ p.data @ a, a, atol=1e-12)
            np.testing.assert_allclose(p.data @ a @ p.data, p.data, atol=1e-12)
        same(lambda m, x: m.linalg.pinv(x, hermitian=False), a, exact=False)
    s = spd(4, 18)
    same(lambda m, x: m.linalg.pinv(x, hermitian=True), s, exact=False)
    # rank-deficient with rtol / atol
    a = rnd((4, 2), 19) @ rnd((2, 5), 20)
    same(lambda m, x: m.linalg.pinv(x, rtol=1e-8), a, exact=False)
    same(lambda m, x: m.linalg.pinv(x, atol=1e-8), a, exact=False)
    gradchecks(lambda x: pyad.linalg.pinv(x), rnd((3, 4), 21))
    grads_vs_torch(lambda m, x: m.linalg.pinv(x), rnd((2, 5, 3), 22))


def test_pinv_errors_and_warnings():
    for bad in (np.ones((3,)),):
        with pytest.raises(RuntimeError):
            torch.linalg.pinv(torch.tensor(bad))
        with pytest.raises(RuntimeError):
            pyad.linalg.pinv(pyad.tensor(bad))


def test_solve():
    for n, batch, k in ((5, (), None), (3, (2,), 4), (4, (2, 3), 1), (0, (), 2), (3, (0,), 2)):
        a = rnd(batch + (n, n), 23) + 3 * np.eye(n)
        b = rnd(batch + ((n,) if k is None else (n, k)), 24)
        p, t = same(lambda m, x, y: m.linalg.solve(x, y), a, b, exact=False)
        if a.size and b.size:
            np.testing.assert_allclose(a @ (p.data if k else p.data[..., None]),
                                       b if k else b[..., None], atol=1e-12)
        if k is not None:         # left=False: X A = B, B a batch of matrices
            same(lambda m, x, y: m.linalg.solve(x, y, left=False),
                 a, np.swapaxes(b, -1, -2), exact=False)
    gradchecks(lambda a, b: pyad.linalg.solve(a, b), rnd((3, 3), 25) + 3 * np.eye(3),
               rnd((3, 2), 26))
    grads_vs_torch(lambda m, a, b: m.linalg.solve(a, b), rnd((2, 3, 3), 27) + 3 * np.eye(3),
                   rnd((2, 3), 28))


def test_solve_batched():
    a = rnd((6, 4, 4), 29) + 3 * np.eye(4)
    b = rnd((6, 4, 2), 30)
    p, t = same(lambda m, x, y: m.linalg.solve(x, y), a, b, exact=False)
    # one by one equals the batch
    for i in range(6):
        q = pyad.linalg.solve(pyad.tensor(a[i]), pyad.tensor(b[i]))
        np.testing.assert_allclose(q.data, p.data[i], rtol=1e-12, atol=1e-14)


def test_solve_batched_broadcasting():
    cases = [((3, 3), (2, 3, 2)), ((2, 1, 3, 3), (4, 3, 1)), ((1, 3, 3), (5, 3, 3)),
             ((2, 3, 3), (3, 3)), ((4, 1, 3, 3), (2, 3, 4))]
    for sa, sb in cases:
        a = rnd(sa, 31) + 3 * np.eye(3)
        b = rnd(sb, 32)
        same(lambda m, x, y: m.linalg.solve(x, y), a, b, exact=False)
    grads_vs_torch(lambda m, a, b: m.linalg.solve(a, b), rnd((3, 3), 33) + 3 * np.eye(3),
                   rnd((2, 3, 2), 34))


def test_qr():
    for shape in ((5, 5), (5, 3), (3, 5), (2, 4, 3), (2, 3, 4), (0, 3), (3, 0), (2, 0, 0)):
        a = rnd(shape, 35)
        for mode in ("reduced", "complete", "r"):
            p, t = same(lambda m, x: tuple(m.linalg.qr(x, mode=mode)), a, exact=False)
            if mode != "r" and a.size:
                np.testing.assert_allclose(p[0].data @ p[1].data, a, atol=1e-12)
    gradchecks(lambda x: pyad.linalg.qr(x).Q, rnd((4, 3), 36))
    gradchecks(lambda x: pyad.linalg.qr(x).R, rnd((4, 3), 36))
    grads_vs_torch(lambda m, x: m.linalg.qr(x)[0] * 2 + m.linalg.qr(x)[1].sum(), rnd((3, 3), 37))


def test_qr_vs_numpy():
    for shape in ((7, 4), (4, 7), (5, 5)):
        a = rnd(shape, 38)
        for mode in ("reduced", "complete", "r"):
            q = pyad.linalg.qr(pyad.tensor(a), mode=mode)
            ref = np.linalg.qr(a, mode=mode)
            if mode == "r":
                np.testing.assert_allclose(q.R.data, ref, atol=1e-12)
            else:
                np.testing.assert_allclose(q.Q.data, ref[0], atol=1e-12)
                np.testing.assert_allclose(q.R.data, ref[1], atol=1e-12)


def test_qr_error_cases():
    with pytest.raises(RuntimeError):
        torch.linalg.qr(torch.ones(5))
    with pytest.raises(RuntimeError):
        pyad.linalg.qr(pyad.ones(5))
    with pytest.raises(RuntimeError, match="qr received unrecognized mode"):
        torch.linalg.qr(torch.ones(3, 3), mode="hello")
    with pytest.raises(RuntimeError, match="unrecognized mode"):
        pyad.linalg.qr(pyad.ones(3, 3), mode="hello")


def test_eigh():
    for shape in ((5, 5), (2, 4, 4), (0, 0), (2, 0, 0), (1, 1)):
        a = rnd(shape, 39)
        a = a + np.swapaxes(a, -1, -2)
        p, t = both(a)
        pw, pv = pyad.linalg.eigh(p)
        tw, tv = torch.linalg.eigh(t)
        check(pw, tw, exact=False)
        # eigenvectors up to sign: A V = V diag(w), V orthonormal
        np.testing.assert_allclose(np.abs(pv.data), np.abs(tnp(tv)), atol=1e-10)
        if a.size:
            np.testing.assert_allclose(a @ pv.data, pv.data * pw.data[..., None, :], atol=1e-12)
    # as torch's gradcheck of eigh: through a symmetric input (eigh reads one triangle)
    a = rnd((4, 4), 40)
    gradchecks(lambda x: pyad.linalg.eigh(x + x.mT).eigenvalues, a)
    # the eigenvectors' gradient, through a sign-invariant function of them
    gradchecks(lambda x: pyad.linalg.eigh(x + x.mT).eigenvectors.abs(), a)
    grads_vs_torch(lambda m, x: m.linalg.eigh(x).eigenvalues, a + a.T)


def test_eigh_lower_uplo():
    a = rnd((4, 4), 41)
    for uplo in ("L", "U", "l", "u"):         # torch reads UPLO case-insensitively
        p, t = both(a)          # not symmetric: only the named triangle is read
        pw = pyad.linalg.eigh(p, UPLO=uplo).eigenvalues
        tw = torch.linalg.eigh(t, UPLO=uplo).eigenvalues
        check(pw, tw, exact=False)
        sym = np.tril(a) + np.tril(a, -1).T if uplo in "Ll" else np.triu(a) + np.triu(a, 1).T
        np.testing.assert_allclose(pw.data, np.linalg.eigvalsh(sym), atol=1e-12)
        check(pyad.linalg.eigvalsh(p, UPLO=uplo), torch.linalg.eigvalsh(t, UPLO=uplo),
              exact=False)
    for bad in ("X", "lower", "", "LU"):
        with pytest.raises(RuntimeError):
            torch.linalg.eigh(torch.tensor(a), UPLO=bad)
        with pytest.raises(RuntimeError):
            pyad.linalg.eigh(pyad.tensor(a), UPLO=bad)


def test_eigvalsh():
    for shape in ((5, 5), (3, 2, 2), (0, 0)):
        a = rnd(shape, 42)
        a = a + np.swapaxes(a, -1, -2)
        p, t = same(lambda m, x: m.linalg.eigvalsh(x), a, exact=False)
        np.testing.assert_allclose(p.data, np.linalg.eigvalsh(a), atol=1e-12)
    a = rnd((3, 3), 43)
    gradchecks(lambda x: pyad.linalg.eigvalsh(x + x.mT), a)


def test_vector_norm():
    x = rnd((3, 4, 5), 44)
    ords = [0, 0.5, 1, 1.5, 2, 3, inf, -inf, -1, -2, -0.5]
    for ord in ords:
        for dim in (None, 0, -1, (0, 2), (1,)):
            for keepdim in (False, True):
                same(lambda m, a: m.linalg.vector_norm(a, ord, dim, keepdim), x, exact=False)
        same(lambda m, a: m.linalg.vector_norm(a, ord, dtype=m.float64), x.astype(np.float32),
             exact=False)
    # zeros and empty
    for ord in (0, 1, 2, inf):
        same(lambda m, a: m.linalg.vector_norm(a, ord), np.zeros((3, 4)), exact=False)
    for ord in (0, 1, 2):
        same(lambda m, a: m.linalg.vector_norm(a, ord), np.zeros((0,)), exact=False)
    for ord in (-1, -inf, inf):       # no identity: an error on an empty input
        with pytest.raises(RuntimeError):
            torch.linalg.vector_norm(torch.zeros(0), ord)
        with pytest.raises(RuntimeError):
            pyad.linalg.vector_norm(pyad.zeros(0), ord)
    for ord in (1, 2, 3, inf):
        gradchecks(lambda a: pyad.linalg.vector_norm(a, ord, dim=1), rnd((3, 4), 45))
    grads_vs_torch(lambda m, a: m.linalg.vector_norm(a, 0.5, dim=(0, 1)), rnd((3, 4), 46))


def test_matrix_norm():
    x = rnd((2, 4, 3), 47)
    for ord in ("fro", "nuc", inf, -inf, 1, -1, 2, -2):
        for dim in ((-2, -1), (0, 1), (2, 1)):
            for keepdim in (False, True):
                same(lambda m, a: m.linalg.matrix_norm(a, ord, dim, keepdim), x, exact=False)
    for ord in ("fro", "nuc", inf, 1, 2, -2):
        gradchecks(lambda a: pyad.linalg.matrix_norm(a, ord), rnd((3, 4), 48))
    for bad in (3, "bad"):
        with pytest.raises(RuntimeError):
            torch.linalg.matrix_norm(torch.tensor(x), bad)
        with pytest.raises(RuntimeError):
            pyad.linalg.matrix_norm(pyad.tensor(x), bad)


def test_norm_vector():
    x = rnd((5, 4), 49)
    for ord in (None, 0, 1, 2, 3, inf, -inf, -1, 0.5):
        same(lambda m, a: m.linalg.norm(a.reshape(-1), ord), x, exact=False)
        same(lambda m, a: m.linalg.norm(a, ord, dim=1), x, exact=False)
        same(lambda m, a: m.linalg.norm(a, ord, dim=0, keepdim=True), x, exact=False)
    for p in (1, 2, 3, inf, -inf, 0, "fro"):
        same(lambda m, a: m.norm(a, p), x, exact=False)
        same(lambda m, a: m.norm(a, p, dim=1), x, exact=False)
    gradchecks(lambda a: pyad.linalg.norm(a, 3, dim=0), x)


def test_norm_matrix():
    x = rnd((3, 4, 5), 50)
    for ord in (None, "fro", "nuc", inf, -inf, 1, -1, 2, -2):
        same(lambda m, a: m.linalg.norm(a[0], ord), x, exact=False)
        same(lambda m, a: m.linalg.norm(a, ord, dim=(1, 2)), x, exact=False)
        same(lambda m, a: m.linalg.norm(a, ord, dim=(2, 0), keepdim=True), x, exact=False)
    gradchecks(lambda a: pyad.linalg.norm(a, "nuc", dim=(1, 2)), rnd((2, 3, 4), 51))


def test_norm_extreme_values():
    vectors = [[inf, 0.0], [0.0, inf], [nan, 0.0], [nan, inf], [inf, nan], [inf, inf],
               [-inf, 0.0], [1e308, 1e308], [1e-320, 0.0]]
    for v in vectors:
        for ord in (0, 1, 2, 3, inf, -inf, -1, -2, 0.5):
            same(lambda m, a: m.linalg.vector_norm(a, ord), np.array(v), exact=False)
    matrices = [[[inf, 0.0], [0.0, 1.0]], [[nan, 0.0], [0.0, 1.0]], [[inf, nan], [0.0, 0.0]]]
    for mat in matrices:
        for ord in ("fro", inf, -inf, 1, -1):
            same(lambda m, a: m.linalg.matrix_norm(a, ord), np.array(mat), exact=False)


def test_lstsq():
    for sa, sb in (((5, 3), (5, 2)), ((3, 3), (3, 1)), ((2, 6, 4), (2, 6, 3)),
                   ((6, 4), (6, 1))):
        a = rnd(sa, 52)
        b = rnd(sb, 53)
        for driver in (None, "gelsy", "gelsd", "gelss"):
            p = pyad.linalg.lstsq(pyad.tensor(a), pyad.tensor(b), driver=driver)
            t = torch.linalg.lstsq(torch.tensor(a), torch.tensor(b), driver=driver)
            check(p.solution, t.solution, exact=False)
            # full-rank: the least-squares solution, as NumPy's (matrix by matrix)
            for k in np.ndindex(a.shape[:-2]):
                np.testing.assert_allclose(p.solution.data[k],
                                           np.linalg.lstsq(a[k], b[k], rcond=None)[0],
                                           atol=1e-12)
            if driver in ("gelsd", "gelss"):
                check(p.singular_values, t.singular_values, exact=False)
            check(p.rank, t.rank)
    gradchecks(lambda a, b: pyad.linalg.lstsq(a, b).solution, rnd((5, 3), 54), rnd((5, 2), 55))


def test_matrix_power_non_negative():
    for n in range(0, 7):
        for shape in ((4, 4), (2, 3, 3), (0, 0), (2, 0, 0)):
            a = rnd(shape, 56)
            p, t = same(lambda m, x: m.linalg.matrix_power(x, n), a, exact=False)
            ref = np.linalg.matrix_power(a, n) if a.size else p.data
            np.testing.assert_allclose(p.data, ref, rtol=1e-10, atol=1e-12)
    ints = rint((3, 3), -3, 4, 57)
    same(lambda m, x: m.matrix_power(x, 5), ints)
    gradchecks(lambda x: pyad.linalg.matrix_power(x, 3), rnd((3, 3), 58))


def test_matrix_power_negative():
    for n in (-1, -2, -3, -5):
        for shape in ((4, 4), (2, 3, 3)):
            a = rnd(shape, 59) + 2 * np.eye(shape[-1])
            p, t = same(lambda m, x: m.linalg.matrix_power(x, n), a, exact=False)
            np.testing.assert_allclose(p.data, np.linalg.matrix_power(a, n), rtol=1e-9)
    gradchecks(lambda x: pyad.linalg.matrix_power(x, -2), rnd((3, 3), 60) + 2 * np.eye(3))
    # integers have no inverse; neither has a singular matrix
    with pytest.raises(RuntimeError):
        torch.linalg.matrix_power(torch.ones(2, 2, dtype=torch.int64), -1)
    with pytest.raises(RuntimeError):
        pyad.linalg.matrix_power(pyad.ones(2, 2, dtype=pyad.int64), -1)


def test_multi_dot():
    shapes = [[(3,), (3,)], [(2, 3), (3,)], [(3,), (3, 2)], [(2, 3), (3, 4), (4, 5)],
              [(3,), (3, 4), (4, 2), (2, 5), (5,)], [(0, 3), (3, 2)], [(2, 0), (0, 3)],
              [(4, 2), (2, 0), (0, 3), (3, 1)]]
    for k, sh in enumerate(shapes):
        arrays = [rnd(s, 61 + i) for i, s in enumerate(sh)]
        p, t = same(lambda m, *xs: m.linalg.multi_dot(list(xs)), *arrays, exact=False)
        np.testing.assert_allclose(p.data, np.linalg.multi_dot(arrays), rtol=1e-12, atol=1e-12)
    gradchecks(lambda a, b, c: pyad.linalg.multi_dot([a, b, c]), rnd((2, 3), 62),
               rnd((3, 4), 63), rnd((4,), 64))


def test_cross():
    x, y = rnd((100, 3, 100), 65), rnd((100, 3, 100), 66)
    p, t = same(lambda m, a, b: m.cross(a, b, dim=1), x, y, exact=False)
    np.testing.assert_allclose(p.data, np.cross(x, y, axis=1), rtol=1e-12, atol=1e-12)
    gradchecks(lambda a, b: pyad.cross(a, b, dim=1), rnd((2, 3, 2), 67), rnd((2, 3, 2), 68))


def test_linalg_cross():
    x, y = rnd((2, 3, 4), 69), rnd((2, 3, 4), 70)
    same(lambda m, a, b: m.linalg.cross(a, b, dim=1), x, y, exact=False)
    # default dim=-1, broadcasting
    x, y = rnd((1, 3), 71), rnd((4, 3), 72)
    same(lambda m, a, b: m.linalg.cross(a, b), x, y, exact=False)
    same(lambda m, a, b: m.linalg.cross(b, a), x, y, exact=False)
    x, y = rnd((4, 1, 3), 73), rnd((1, 5, 3), 74)
    same(lambda m, a, b: m.linalg.cross(a, b), x, y, exact=False)
    # torch: the inputs must have the same number of dims (no broadcast of the rank)
    with pytest.raises(RuntimeError):
        torch.linalg.cross(torch.ones(4, 1, 3), torch.ones(5, 3))
    with pytest.raises(RuntimeError):
        pyad.linalg.cross(pyad.ones(4, 1, 3), pyad.ones(5, 3))
    # the dim must have size 3
    with pytest.raises(RuntimeError):
        torch.linalg.cross(torch.ones(2, 3), torch.ones(2, 3), dim=0)
    with pytest.raises(RuntimeError):
        pyad.linalg.cross(pyad.ones(2, 3), pyad.ones(2, 3), dim=0)
    grads_vs_torch(lambda m, a, b: m.linalg.cross(a, b), rnd((1, 3), 75), rnd((4, 3), 76))


def test_cross_with_and_without_dim():
    x, y = rnd((100, 3), 77), rnd((100, 3), 78)
    p1 = pyad.cross(pyad.tensor(x), pyad.tensor(y), dim=1)
    p2 = pyad.cross(pyad.tensor(x), pyad.tensor(y), dim=-1)
    p3 = pyad.linalg.cross(pyad.tensor(x), pyad.tensor(y))
    check(p1, p2)
    check(p1, p3)
    check(p1, torch.cross(torch.tensor(x), torch.tensor(y), dim=1), exact=False)


def test_cholesky_batched():
    for batch in ((), (3,), (2, 2), (0,)):
        a = spd(4, 79, batch)
        p, t = same(lambda m, x: m.linalg.cholesky(x), a, exact=False)
        same(lambda m, x: m.linalg.cholesky(x, upper=True), a, exact=False)
        if a.size:
            np.testing.assert_allclose(p.data @ np.swapaxes(p.data, -1, -2), a, atol=1e-12)
    # as torch's gradcheck of cholesky: through a symmetric positive-definite input
    gradchecks(lambda x: pyad.linalg.cholesky(x @ x.mT + 3 * pyad.eye(3, dtype=pyad.float64)),
               rnd((2, 3, 3), 80))
    grads_vs_torch(lambda m, x: m.linalg.cholesky(x, upper=True), spd(3, 81))


def test_cholesky_empty():
    for shape in ((0, 0), (2, 0, 0), (0, 3, 3)):
        a = np.zeros(shape) if shape[-1] == 0 else spd(3, 82, shape[:-2])
        same(lambda m, x: m.linalg.cholesky(x), a)
        same(lambda m, x: m.linalg.cholesky_ex(x).info, a)


def test_cholesky_errors_and_warnings():
    # not at least 2-d, not square, not positive definite (a batch names its element)
    for bad in (np.ones(3), np.ones((2, 3))):
        with pytest.raises(RuntimeError):
            torch.linalg.cholesky(torch.tensor(bad))
        with pytest.raises(RuntimeError):
            pyad.linalg.cholesky(pyad.tensor(bad))
    a = spd(3, 83, (2,))
    a[1, -1, -1] = -4
    with pytest.raises(torch.linalg.LinAlgError, match="The factorization could not be completed"):
        torch.linalg.cholesky(torch.tensor(a))
    with pytest.raises(RuntimeError, match="positive-definite"):
        pyad.linalg.cholesky(pyad.tensor(a))
    check(pyad.linalg.cholesky_ex(pyad.tensor(a)).info,
          torch.linalg.cholesky_ex(torch.tensor(a)).info)


def test_kron():
    for sa, sb in (((2, 3), (4, 5)), ((2,), (3, 4)), ((2, 1, 3), (3, 2)), ((0, 2), (3, 3)),
                   ((), (3,))):
        a, b = rnd(sa, 84), rnd(sb, 85)
        p, t = same(lambda m, x, y: m.kron(x, y), a, b, exact=False)
        np.testing.assert_allclose(p.data, np.kron(a, b), rtol=1e-12)
    same(lambda m, x, y: m.kron(x, y), rint((2, 2), -3, 3, 86), rint((2, 3), -3, 3, 87))
    gradchecks(lambda a, b: pyad.kron(a, b), rnd((2, 3), 88), rnd((2, 2), 89))


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64, np.complex64,
                                   np.complex128])
def test_dot_vs_numpy(dtype):
    for n in (0, 1, 7, 100):
        a = rnd((n,), 90).astype(dtype) if dtype != np.int64 else rint((n,), -9, 9, 90)
        b = rnd((n,), 91).astype(dtype) if dtype != np.int64 else rint((n,), -9, 9, 91)
        if np.issubdtype(dtype, np.complexfloating):
            a = a + 1j * rnd((n,), 92).astype(dtype)
            b = b - 1j * rnd((n,), 93).astype(dtype)
        p, t = same(lambda m, x, y: m.dot(x, y), a, b, exact=dtype == np.int64)
        np.testing.assert_allclose(p.data, np.dot(a, b), rtol=1e-5)
        same(lambda m, x, y: x.dot(y), a, b, exact=dtype == np.int64)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64, np.complex128])
def test_vdot_vs_numpy(dtype):
    for n in (0, 1, 7, 100):
        a = rnd((n,), 94).astype(dtype)
        b = rnd((n,), 95).astype(dtype)
        if np.issubdtype(dtype, np.complexfloating):
            a = a + 1j * rnd((n,), 96).astype(dtype)
            b = b - 1j * rnd((n,), 97).astype(dtype)
        p, t = same(lambda m, x, y: m.vdot(x, y), a, b, exact=False)
        # vdot conjugates its first argument
        np.testing.assert_allclose(p.data, np.vdot(a, b), rtol=1e-5)
    gradchecks(lambda a, b: pyad.vdot(a, b), rnd((4,), 98), rnd((4,), 99))


def test_svd():
    for shape in ((5, 5), (5, 3), (3, 5), (2, 4, 3), (0, 3), (3, 0), (2, 0, 0)):
        a = rnd(shape, 100)
        for full in (False, True):
            p = pyad.linalg.svd(pyad.tensor(a), full_matrices=full)
            t = torch.linalg.svd(torch.tensor(a), full_matrices=full)
            check(p.S, t.S, exact=False)
            assert p.U.shape == tuple(t.U.shape) and p.Vh.shape == tuple(t.Vh.shape)
            k = min(shape[-2:])
            if a.size:
                rec = (p.U.data[..., :, :k] * p.S.data[..., None, :]) @ p.Vh.data[..., :k, :]
                np.testing.assert_allclose(rec, a, atol=1e-12)
        check(pyad.linalg.svdvals(pyad.tensor(a)), torch.linalg.svdvals(torch.tensor(a)),
              exact=False)
    gradchecks(lambda x: pyad.linalg.svdvals(x), rnd((4, 3), 101))
    # a gauge-invariant function of the singular vectors
    gradchecks(lambda x: (lambda r: r.U @ pyad.diag_embed(r.S) @ r.Vh)(
        pyad.linalg.svd(x, full_matrices=False)), rnd((4, 3), 102))


def test_cholesky_inverse():
    for batch in ((), (2,), (2, 3)):
        a = spd(4, 103, batch)
        lo = np.linalg.cholesky(a)
        for upper in (False, True):
            f = np.swapaxes(lo, -1, -2) if upper else lo
            p, t = same(lambda m, x: m.cholesky_inverse(x, upper=upper), f, exact=False)
            np.testing.assert_allclose(p.data, np.linalg.inv(a), rtol=1e-10, atol=1e-12)
    # through the triangle cholesky_inverse reads, as torch's gradcheck of it
    gradchecks(lambda x: pyad.cholesky_inverse(x.tril()), np.linalg.cholesky(spd(3, 104)))
    grads_vs_torch(lambda m, x: m.cholesky_inverse(x), np.linalg.cholesky(spd(3, 105)))
