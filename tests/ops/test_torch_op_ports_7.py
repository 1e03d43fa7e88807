"""A seventh batch of ports of PyTorch's op-semantics tests (CPU) to pyad: what was
left of ``test/test_reductions.py`` (nansum, mean/sum/prod/min/max on literal values
for every dtype, out= aliasing and out= dtype errors, var/std/var_mean against torch with positional
unbiased/keepdim and out=, the degrees-of-freedom warning, histc/histogram/histogramdd
and their errors, float16/bfloat16 sums and products, elementwise max/min), of
``test/test_sort_and_select.py`` (sort into 0-d outs, large and overflowing integer
sorts), of ``test/test_view_ops.py`` (real/imag assignment, the ``*_copy`` ops with out=,
resize_/resize_as_ with a memory format, conj() without a conjugate bit) and of
``test/test_shape_ops.py`` (unfold's errors).

As in tests/ops/test_torch_op_ports_6.py the tests keep torch's names and the meaning
of their assertions, without torch's OpInfo/device/dtype decorators: each writes its
concrete ops, dtypes and inputs.  Expected values are torch 2.13 run on the same inputs
(``check`` compares shape, dtype and values) or the literal values of torch's own
test, never pyad's output.  Sizes are cut down where they only make the kernels take
another code path in torch (a vectorised loop, a grain size, a parallel branch): the
assertions are the same.  Skipped: CUDA/meta/XLA-only tests, quantized inputs,
complex32, sparse layouts (``test_sparse_dense_dim``), and the reductions of a
65-dimensional Variable (``test_dim_reduction_less_than_64``, ``test_dim_ndim_limit``):
pyad's arrays are NumPy's, which cannot have more than 64 dimensions, so the Variable
cannot be made.
Not ported either: the tests of ``logsumexp`` without ``dim`` or with ``dim=None``
(``test_logsumexp_all_dims``, ``..._dim_none_keepdim``, ``..._structured_kernel_meta``,
``..._edge_cases_dim_none(_complex)``, ``..._backward_dim_none``,
``..._backward_intermediate_shapes``, ``..._jit_dim_none``) test a later torch: torch
2.13's ``logsumexp`` requires ``dim`` (TypeError), as pyad's does.
"""
import math
import warnings
from itertools import combinations, permutations, product

import numpy as np
import pytest

import pyad

torch = pytest.importorskip("torch")

from _ops_helpers import check_result as check, dname, rnd, tnp, rint  # noqa: E402

inf, nan = math.inf, math.nan


def P(t):
    """A torch tensor's values as a pyad Variable of the same dtype."""
    if t.dtype == torch.bfloat16:
        return pyad.tensor(t.float().numpy()).to(pyad.bfloat16)
    return pyad.tensor(tnp(t).copy())


def checkf(p, t, exact=True):
    """``check`` for any dtype: bfloat16 results (which NumPy cannot read from torch)
    compared through float32, after their dtypes."""
    if isinstance(t, (tuple, list)):
        for a, b in zip(p, t):
            checkf(a, b, exact)
        return
    if t.dtype == torch.bfloat16:
        assert dname(p.dtype) == "bfloat16", p.dtype
        check(p.float(), t.float(), exact)
    else:
        check(p, t, exact)


# torch's assertEqual tolerances for the low-precision dtypes
LOWP_TOL = {"float16": (1e-3, 1e-5), "bfloat16": (1.6e-2, 1e-5)}


def mods(dtype):
    """(pyad dtype, torch dtype) for a dtype name."""
    return getattr(pyad, dtype), getattr(torch, dtype)


FLOAT_COMPLEX = ["float32", "float64", "complex64", "complex128"]


# ------------------------------------------------------------------------------------
# test_reductions.py: sums, products, elementwise max/min
# ------------------------------------------------------------------------------------


def test_sum_parallel():
    # torch's sizes pass its grain size (32768 elements); the sums are exact (0s and 1s)
    rng = np.random.default_rng(0)
    for size in ([2, 3, 3, 3, 3, 2, 2, 3, 2, 3, 2, 3, 3], [4] * 8, [1, 32 * 8 * 32 * 8],
                 [1, 32770]):
        nv = np.round(rng.random(size))
        p, t = pyad.tensor(nv), torch.from_numpy(nv)
        assert p.numel() > 32768
        for dim in range(len(size) + 1):
            if dim == len(size):
                check(p.sum(), t.sum())
            else:
                check(p.sum(dim), t.sum(dim))


def _test_c_selection(name):
    # torch's _testCSelection: torch.max(a, b) (min) is the elementwise maximum (minimum),
    # compared with Python's max (min) per element, and with torch's result
    a, b = rnd((100, 100), 0, np.float32), rnd((100, 100), 1, np.float32)
    p = getattr(pyad, name)(pyad.tensor(a), pyad.tensor(b))
    expected = np.vectorize(max if name == "max" else min)(a, b).astype(np.float32)
    np.testing.assert_array_equal(p.data, expected)
    check(p, getattr(torch, name)(torch.tensor(a), torch.tensor(b)))


def test_max_elementwise():
    _test_c_selection("max")


def test_min_elementwise():
    _test_c_selection("min")


@pytest.mark.xfail(strict=True, reason=(
    "engine: add() takes no NumPy-style x1=/x2= keywords (pyad/ops/elementwise.pxi add); "
    "torch.add(x1=a, x2=b) is torch.add(a, b)"))
def test_numpy_named_args():
    x1, x2 = rnd((10,), 0), rnd((10,), 1)
    for m in (torch, pyad):
        a, b = m.tensor(x1), m.tensor(x2)
        assert m.equal(m.add(input=a, other=b), m.add(x1=a, x2=b))
    x3 = rnd((4, 5, 6), 2)
    for m in (torch, pyad):
        a = m.tensor(x3)
        assert m.equal(a.sum(dim=(0, 2), keepdim=True), a.sum(axis=(0, 2), keepdims=True))
    check(pyad.tensor(x3).sum(axis=(0, 2), keepdims=True),
          torch.tensor(x3).sum(axis=(0, 2), keepdims=True))


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32", "float64"])
def test_mean_out_is_alias_of_return(dtype):
    pd, td = mods(dtype)
    vals = [[[1.0, 1.0, 1.0, 1.0]], [[2.0, 2.0, 2.0, 2.0]], [[3.0, 3.0, 3.0, 3.0]]]
    a = pyad.tensor(vals, dtype=pd)
    out = pyad.empty((1, 1, 4), dtype=pd)
    ret = pyad.mean(a, dim=0, keepdim=True, out=out)
    assert ret is out
    assert pyad.allclose(out, pyad.tensor([[[2.0, 2.0, 2.0, 2.0]]], dtype=pd))


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_invalid_0dim_aminmax(dtype):
    # pyad words its complex refusals "op(): does not support complex input"
    # (docs/graph-semantics.md, docs/complex.md); NotImplementedError is a RuntimeError
    for m, msg in ((torch, "not implemented"), (pyad, "does not support complex input")):
        with pytest.raises(RuntimeError, match=msg):
            m.aminmax(m.tensor(1., dtype=getattr(m, dtype)), dim=0)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_prod_lowp(dtype):
    g = torch.Generator().manual_seed(0)
    # torch's (100, 100): the products of 100 numbers in [0, 1) underflow float16 to 0;
    # a (10, 10) keeps them in range, so the comparison sees non-zero values
    for shape in ((100, 100), (10, 10)):
        x = torch.rand(*shape, generator=g).to(getattr(torch, dtype))
        p = P(x)
        for dim in (1, 0):
            r = pyad.prod(p, dim)
            ref = pyad.prod(p.float(), dim).to(getattr(pyad, dtype))
            assert dname(r.dtype) == dtype
            rtol, atol = LOWP_TOL[dtype]
            np.testing.assert_allclose(r.float().data, ref.float().data, rtol=rtol, atol=atol)
            np.testing.assert_allclose(r.float().data, torch.prod(x, dim).float().numpy(),
                                       rtol=rtol, atol=atol)


NANSUM_DTYPES = ["float16", "bfloat16", "float32", "float64", "uint8", "int8", "int16",
                 "int32", "int64"]


@pytest.mark.parametrize("dtype", NANSUM_DTYPES)
def test_nansum(dtype):
    g = torch.Generator().manual_seed(0)
    td = getattr(torch, dtype)
    seed = 0
    for noncontiguous, dim in product((True, False), (0, 1, None)):
        scale = 10 + 9 * seed
        seed += 1
        lo = 0 if dtype == "uint8" else -scale
        if td.is_floating_point:
            base = torch.rand(17, 17, generator=g) * (scale - lo) + lo
        else:
            base = torch.randint(lo, scale, (17, 17), generator=g)
        x = base.to(td)
        if noncontiguous:
            x = torch.empty(17, 34, dtype=td)[:, ::2].copy_(x)
        if td.is_floating_point:
            mask = x < 0.2 * scale
            x = x.clone()
            x[mask] = nan
        p = P(x.contiguous())
        if noncontiguous:
            p = pyad.empty((17, 34), dtype=p.dtype)[:, ::2].copy_(p)
            assert not p.is_contiguous()
        kw = {} if dim is None else {"dim": dim}
        r = pyad.nansum(p, **kw)
        if dtype in LOWP_TOL:
            e = torch.nansum(x, **kw)
            assert dname(r.dtype) == dtype
            np.testing.assert_allclose(r.float().data, e.float().numpy(), *LOWP_TOL[dtype])
            continue
        check(r, torch.nansum(x, **kw), exact=not td.is_floating_point)
        if td.is_floating_point:
            xn = torch.where(torch.isnan(x), torch.zeros((), dtype=td), x)
            check(r, torch.sum(xn, **kw), exact=False)


def test_minmax_illegal_dtype():
    x = pyad.randn(5, 5, dtype=pyad.float32)
    vv = pyad.empty(5, dtype=pyad.float32)
    vi = pyad.empty(5, dtype=pyad.int64)
    iv = pyad.empty(5, dtype=pyad.int32)
    ii = pyad.empty(5, dtype=pyad.float64)
    pyad.max(x, dim=0, out=(vv, vi))
    pyad.min(x, dim=0, out=(vv, vi))
    pyad.amax(x, dim=0, out=vv)
    pyad.amin(x, dim=0, out=vv)
    rmsg = r"scalar type|dtype"
    for f in (pyad.max, pyad.min):
        for out in ((iv, vi), (vv, ii), (iv, ii)):
            with pytest.raises(RuntimeError, match=rmsg):
                f(x, dim=0, out=out)


DIM_REDUCTION_DTYPES = ["float16", "bfloat16", "float32", "float64", "int8", "int16",
                        "int32", "int64"]


@pytest.mark.parametrize("dtype", DIM_REDUCTION_DTYPES)
def test_dim_reduction(dtype):
    example = [[-1, 2, 1], [5, 3, 6]]
    pd, td = mods(dtype)
    sum_dtype = td if td.is_floating_point else torch.int64
    lowp = dtype in ("float16", "bfloat16")
    x = pyad.tensor(example, dtype=pd)
    t = torch.tensor(example, dtype=td)

    def eq(p, expected, dt):
        checkf(p, torch.tensor(expected, dtype=dt), exact=not lowp)

    assert x.sum().item() == 16
    eq(x.sum(0), [4, 5, 7], sum_dtype)
    eq(x.sum(1), [2, 14], sum_dtype)
    y = pyad.tensor(example, dtype=getattr(pyad, dname(sum_dtype)))
    pyad.sum(x, 0, out=y)
    assert pyad.equal(x.sum(0), y)
    if td.is_floating_point:
        assert abs(x.mean().item() - 16.0 / 6) < (1e-2 if lowp else 1e-6)
        checkf(x.mean(0), t.mean(0), exact=False)
        checkf(x.mean(1), t.mean(1), exact=False)
        assert pyad.equal(x.mean(), x.mean((0, 1)))
    if not lowp:      # torch: prod is not supported for float16 & bfloat16 on CPU
        assert x.prod().item() == -180
        eq(x.prod(0), [-5, 6, 6], sum_dtype)
        eq(x.prod(1), [-2, 90], sum_dtype)
    L = torch.int64
    assert x.min().item() == -1 and x.argmin().item() == 0
    assert x.argmin(dim=None).item() == 0
    checkf(tuple(x.min(0)), (torch.tensor([-1, 2, 1], dtype=td), torch.tensor([0, 0, 0])))
    eq(x.amin(0), [-1, 2, 1], td)
    eq(x.argmin(0), [0, 0, 0], L)
    checkf(tuple(x.min(dim=0, keepdim=True)),
          (torch.tensor([[-1, 2, 1]], dtype=td), torch.tensor([[0, 0, 0]])))
    eq(x.amin(dim=0, keepdim=True), [[-1, 2, 1]], td)
    eq(x.argmin(dim=0, keepdim=True), [[0, 0, 0]], L)
    checkf(tuple(x.min(1)), (torch.tensor([-1, 3], dtype=td), torch.tensor([0, 1])))
    eq(x.amin(1), [-1, 3], td)
    eq(x.argmin(1), [0, 1], L)
    checkf(tuple(x.min(dim=1, keepdim=True)),
          (torch.tensor([[-1], [3]], dtype=td), torch.tensor([[0], [1]])))
    eq(x.amin(dim=1, keepdim=True), [[-1], [3]], td)
    eq(x.argmin(dim=1, keepdim=True), [[0], [1]], L)
    assert x[:, :2].min().item() == -1 and x[:, :2].amin().item() == -1
    assert x[:, :2].argmin().item() == 0
    assert x.max().item() == 6 and x.amax().item() == 6 and x.argmax().item() == 5
    checkf(tuple(x.max(0)), (torch.tensor([5, 3, 6], dtype=td), torch.tensor([1, 1, 1])))
    eq(x.amax(0), [5, 3, 6], td)
    eq(x.argmax(dim=0), [1, 1, 1], L)
    checkf(tuple(x.max(dim=0, keepdim=True)),
          (torch.tensor([[5, 3, 6]], dtype=td), torch.tensor([[1, 1, 1]])))
    eq(x.amax(dim=0, keepdim=True), [[5, 3, 6]], td)
    eq(x.argmax(dim=0, keepdim=True), [[1, 1, 1]], L)
    checkf(tuple(x.max(1)), (torch.tensor([2, 6], dtype=td), torch.tensor([1, 2])))
    eq(x.amax(1), [2, 6], td)
    eq(x.argmax(dim=1), [1, 2], L)
    checkf(tuple(x.max(1, keepdim=True)),
          (torch.tensor([[2], [6]], dtype=td), torch.tensor([[1], [2]])))
    eq(x.amax(1, keepdim=True), [[2], [6]], td)
    eq(x.argmax(dim=1, keepdim=True), [[1], [2]], L)
    assert x[:, :2].max().item() == 5 and x[:, :2].amax().item() == 5
    assert x[:, :2].argmax().item() == 2


@pytest.mark.parametrize("fn_name", ["mean", "median", "nanmedian", "mode", "norm", "prod",
                                     "std", "sum", "var", "max", "min", "amax", "amin"])
def test_dim_reduction_fns(fn_name):
    # torch's dtype loop does not reach the body (its inputs are randn float32)
    def fn_attr(m):
        if fn_name == "norm":
            return lambda t, dim, keepdim=False, out=None: m.norm(t, 2, dim, keepdim, out=out)
        return getattr(m, fn_name)

    def fn(m, x, dim, keepdim=False, out=None):
        ans = fn_attr(m)(x, dim, keepdim=keepdim, out=out)
        return ans if not isinstance(ans, tuple) else ans[0]

    def test_multidim(x, tx, dim):
        # torch's assertEqual: within the float32 tolerance (keepdim may sum in another order)
        check(fn(pyad, x, dim).unsqueeze(dim), fn(torch, tx, dim, keepdim=True), exact=False)
        np.testing.assert_allclose(fn(pyad, x, dim).unsqueeze(dim).data,
                                   fn(pyad, x, dim, keepdim=True).data, rtol=1.3e-6, atol=1e-5)
        assert x.ndimension() - 1 == fn(pyad, x, dim).ndimension()
        assert x.ndimension() == fn(pyad, x, dim, keepdim=True).ndimension()
        check(fn(pyad, x, dim, keepdim=True), fn(torch, tx, dim, keepdim=True), exact=False)

    for shape, dim in (((3, 4, 5), 1), ((3, 1, 5), 1), ((1, 4, 5), 0), ((3, 4, 1), 2)):
        a = rnd(shape, sum(shape), np.float32)
        test_multidim(pyad.tensor(a), torch.tensor(a), dim)
    x = pyad.randn(1)
    assert tuple(fn(pyad, x, 0).shape) == ()
    assert tuple(fn(pyad, x, 0, keepdim=True).shape) == (1,)
    y = rnd((5, 3), 7, np.float32)
    if fn_name in ("median", "nanmedian", "mode", "max", "min"):
        values = pyad.randn(5, 3)
        indices = pyad.zeros(5, 3).long() - 1
        fn_attr(pyad)(pyad.tensor(y), 1, keepdim=False, out=(values[:, 1], indices[:, 1]))
        ve, ie = fn_attr(torch)(torch.tensor(y), 1, keepdim=False)
        check(values[:, 1], ve)
        check(indices[:, 1], ie)
        return
    x = pyad.randn(5, 3)
    fn(pyad, pyad.tensor(y), 1, keepdim=False, out=x[:, 1])
    check(x[:, 1], fn(torch, torch.tensor(y), 1, keepdim=False), exact=False)


def test_var_mean():
    # torch's (100, 300, 50): the grain sizes of its kernels; (10, 30, 5) here
    x = rnd((10, 30, 5), 0, np.float32)
    p, t = pyad.tensor(x), torch.tensor(x)
    for dim in range(3):
        for unbiased, keepdim in product((False, True), (False, True)):
            var1, mean1 = pyad.var_mean(p, dim=dim, unbiased=unbiased, keepdim=keepdim)
            check(var1, p.var(dim=dim, unbiased=unbiased, keepdim=keepdim), exact=False)
            check(mean1, p.mean(dim=dim, keepdim=keepdim), exact=False)
            tv, tm = torch.var_mean(t, dim=dim, unbiased=unbiased, keepdim=keepdim)
            check(var1, tv, exact=False)
            check(mean1, tm, exact=False)


def _compare_std_var(op, dtype, dim, keepdim, unbiased, use_out):
    pd, td = mods(dtype)
    g = torch.Generator().manual_seed(3)
    t = torch.randn(20, 20, dtype=td, generator=g)
    p = P(t)
    pop, top = getattr(pyad, op), getattr(torch, op)
    if dim is None and not use_out:
        r, e = pop(p, unbiased), top(t, unbiased)
    elif not use_out:
        r, e = pop(p, dim, unbiased, keepdim), top(t, dim, unbiased, keepdim)
    else:
        out = pyad.empty(0, dtype=pd)
        r = pop(p, dim, unbiased, keepdim, out=out)
        assert r is out
        e = top(t, dim, unbiased, keepdim, out=torch.empty(0, dtype=td))
    check(r, e, exact=False)
    a = tnp(t)
    kw = {"ddof": 1 if unbiased else 0}
    if dim is not None:
        kw.update(axis=dim, keepdims=keepdim)
    np.testing.assert_allclose(r.data, getattr(np, op)(a, **kw), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("dtype", FLOAT_COMPLEX)
def test_var_vs_numpy(dtype):
    for case in product((None, 0, 1), (False, True), (False, True), (False, True)):
        _compare_std_var("var", dtype, *case)


@pytest.mark.parametrize("dtype", FLOAT_COMPLEX)
def test_std_vs_numpy(dtype):
    for case in product((None, 0, 1), (False, True), (False, True), (False, True)):
        _compare_std_var("std", dtype, *case)


@pytest.mark.parametrize("dtype", FLOAT_COMPLEX)
def test_warn_invalid_degrees_of_freedom(dtype):
    correction = 20
    pd, _ = mods(dtype)
    x = pyad.randn(10, correction, dtype=pd)
    for f in (pyad.std, pyad.var, pyad.var_mean, pyad.std_mean):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            f(x, dim=-1, correction=correction)
        assert w, f
        assert "degrees of freedom is <= 0" in str(w[0].message)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_sum_noncontig_lowp(dtype):
    # torch's shapes up to (10, 5, 10, 50, 7) pass its vectorised loops; the sums of
    # ones are exact at any size, so smaller shapes of the same ranks
    dim_sequences = {2: [0, 1], 3: [0, 1, 2], 4: [0, 1, 2, 3]}
    pd, td = mods(dtype)
    for shape in ((8, 6), (6, 4, 6), (4, 6, 4, 2)):
        n = len(shape)
        for perm in permutations(dim_sequences[n], n):
            x = pyad.ones(shape, dtype=pd)[(slice(None, None, 2),) * n]
            xt = x.permute(perm)
            tx = torch.ones(shape, dtype=td)[(slice(None, None, 2),) * n].permute(perm)
            for i in range(1, n + 1):
                for rd in combinations(dim_sequences[n], i):
                    s = pyad.sum(xt, rd)
                    ref = pyad.sum(xt.float(), rd).to(pd)
                    assert dname(s.dtype) == dtype
                    np.testing.assert_array_equal(s.float().data, ref.float().data)
                    np.testing.assert_array_equal(s.float().data,
                                                  torch.sum(tx, rd).float().numpy())


# ------------------------------------------------------------------------------------
# test_reductions.py: histc, histogram, histogramdd
# ------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", ["uint8", "int8", "int32", "int64", "float32", "float64"])
def test_histc_min_max_errors(dtype):
    for m in (torch, pyad):
        with pytest.raises(RuntimeError, match="max must be larger than min"):
            m.histc(m.tensor([1., 2., 3.], dtype=getattr(m, dtype)), bins=4, min=5, max=1)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_histc_min_max_corner_cases(dtype):
    pd, td = mods(dtype)
    r = pyad.histc(pyad.tensor([1., 2, 1], dtype=pd), bins=4, min=5, max=5)
    check(r, torch.tensor([2, 0, 0, 1], dtype=td))
    check(r, torch.histc(torch.tensor([1., 2, 1], dtype=td), bins=4, min=5, max=5))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_histc_value_corner_cases(dtype):
    pd, _ = mods(dtype)
    for v in (np.finfo(dtype).min, np.finfo(dtype).max):
        r = pyad.histc(pyad.tensor([v, v, v], dtype=pd), bins=4)
        assert r.sum().item() == 3.0


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
def test_histc_lowp(dtype):
    pd, td = mods(dtype)
    r = pyad.histc(pyad.tensor([1, 2, 1], dtype=pd), bins=4, min=0, max=3)
    assert dname(r.dtype) == dtype
    np.testing.assert_array_equal(r.float().data, [0, 2, 1, 0])
    np.testing.assert_array_equal(
        r.float().data,
        torch.histc(torch.tensor([1, 2, 1], dtype=td), bins=4, min=0, max=3).float().numpy())


def _make(shape, lo, hi, seed, noncontig=False):
    a = np.random.default_rng(seed).uniform(lo, hi, shape).astype(np.float32)
    p = pyad.tensor(a)
    if noncontig and len(shape) > 0:
        p = pyad.empty(tuple(shape[:-1]) + (2 * shape[-1],), dtype=pyad.float32)[..., ::2].copy_(p)
    return p, torch.tensor(a)


def _hist_same(p, t, bins, weights_p, weights_t, density, rng=None, dd=False, tol=None):
    """torch's _test_histogram(dd)_numpy with torch as the reference: the bin edges
    within the 1e-5 its test allows (linspace rounds differently), then the histogram
    made with torch's edges (the workaround of its test, gh-58758) and the out= form."""
    kw = dict(weight=weights_p, density=density)
    tkw = dict(weight=weights_t, density=density)
    if rng is not None:
        kw["range"] = tkw["range"] = rng
    f_p = pyad.histogramdd if dd else pyad.histogram
    f_t = torch.histogramdd if dd else torch.histogram
    th, te = f_t(t, bins, **tkw)
    ph, pe = f_p(p, bins if not isinstance(bins, torch.Tensor) and not (
        isinstance(bins, list) and bins and isinstance(bins[0], torch.Tensor)) else
        ([P(b) for b in bins] if dd else P(bins)), **kw)
    te_list = list(te) if dd else [te]
    pe_list = list(pe) if dd else [pe]
    assert len(pe_list) == len(te_list)
    for a, b in zip(pe_list, te_list):
        assert dname(a.dtype) == dname(b.dtype) and tuple(a.shape) == tuple(b.shape)
        np.testing.assert_allclose(a.data, b.numpy(), atol=1e-5, rtol=1e-5)
    if not isinstance(bins, torch.Tensor) and not dd or dd and not (
            isinstance(bins, list) and bins and isinstance(bins[0], torch.Tensor)):
        # as torch's test: the reference histogram made with the edges under test
        edges_t = [torch.tensor(e.data) for e in pe_list]
        tkw.pop("range", None)
        th = f_t(t, edges_t if dd else edges_t[0], **tkw)[0]
    def same_hist(a):
        if tol is None:
            check(a, th, exact=False)
        else:
            assert dname(a.dtype) == dname(th.dtype) and tuple(a.shape) == tuple(th.shape)
            np.testing.assert_allclose(a.data, th.numpy(), rtol=tol[0], atol=tol[1])

    same_hist(ph)
    if not dd:
        hist = pyad.empty(2 * th.numel(), dtype=ph.dtype)[::2]
        edges = pyad.empty(2 * pe.numel(), dtype=ph.dtype)[::2]
        pyad.histogram(p, pe, weight=weights_p, density=density, out=(hist, edges))
        same_hist(hist)
        assert pyad.equal(edges, pe)


def test_histogram():
    # torch's product of options with bin counts 1..9 on 7 shapes; bin counts (1, 4, 9)
    shapes = ((), (0,), (1,), (1, 5), (3, 5), (1, 5, 1), (2, 3, 5))
    seed = 0
    for contig, weighted, density, shape in product((True, False), (True, False),
                                                   (True, False), shapes):
        for bin_ct in (1, 4, 9):
            seed += 1
            p, t = _make(shape, -9, 9, seed, not contig)
            pw, tw = _make(shape, 0, 9, seed + 1000, not contig) if weighted else (None, None)
            _hist_same(p, t, bin_ct, pw, tw, density)
            rng = sorted(np.random.default_rng(seed).uniform(-9, 9, 2).tolist())
            _hist_same(p, t, bin_ct, pw, tw, density, rng)
            rng[1] = rng[0]
            # torch's test compares this case with rtol=3e-5, atol=0 (its TODO: the
            # densities of a range of width 1 round differently)
            _hist_same(p, t, bin_ct, pw, tw, density, rng, tol=(3e-5, 0.0))
            edges = torch.tensor(np.sort(np.random.default_rng(seed + 7).uniform(
                -9, 9, bin_ct + 1)).astype(np.float32))
            _hist_same(p, t, edges, pw, tw, density)
    for bin_ct, shape in product((1, 4, 9), shapes):
        p, _ = _make(shape, -9, 9, bin_ct)
        a, b = pyad.histogram(p, bin_ct)
        c, d = pyad.histogram(p, bin_ct, range=None, weight=None, density=False)
        assert pyad.equal(a, c) and pyad.equal(b, d)


def test_histogramdd():
    # torch's shapes but (7, 7, 7, 7), (16, 8, 4, 2) and (10, 10, 10) cut to (3, 3, 3, 3),
    # (4, 4, 2, 2) and (10, 10, 5): fewer points, and 5 dimensions instead of 10 (up to
    # 5 ** 10 bins)
    shapes = ((1, 5), (3, 5), (1, 5, 1), (2, 3, 5), (3, 3, 3, 3), (4, 4, 2, 2),
              (10, 10, 5), (7, 0, 3), (5, 0))
    seed = 0
    for contig, weighted, density, shape in product((True, False), (True, False),
                                                   (True, False), shapes):
        seed += 1
        D = shape[-1]
        p, t = _make(shape, -9, 9, seed, not contig)
        pw, tw = _make(shape[:-1], 0, 9, seed + 1000) if weighted else (None, None)
        rs = np.random.default_rng(seed)
        _hist_same(p, t, int(rs.integers(1, 6)), pw, tw, density, dd=True)
        cts = [int(c) for c in rs.integers(1, 6, D)]
        _hist_same(p, t, cts, pw, tw, density, dd=True)
        rng = [e for _ in range(D) for e in sorted(rs.uniform(-9, 9, 2).tolist())]
        _hist_same(p, t, cts, pw, tw, density, rng, dd=True)
        for i in range(D):
            rng[2 * i + 1] = rng[2 * i]
        _hist_same(p, t, cts, pw, tw, density, rng, dd=True)
        edges = [torch.tensor(np.sort(rs.uniform(-9, 9, c + 1)).astype(np.float32))
                 for c in cts]
        if D:
            _hist_same(p, t, edges, pw, tw, density, dd=True)


def test_histogram_error_handling():
    def raises(exc, msg, f):
        # pyad's messages say Variable where torch's say tensor (pyad's conventions)
        for m, text in ((torch, msg), (pyad, msg.replace("tensor", "Variable"))):
            with pytest.raises(exc, match=text):
                f(m)

    raises(RuntimeError, "not implemented for",
           lambda m: m.histogram(m.tensor(1, dtype=m.int32), 1))
    raises(RuntimeError, "input tensor and bins tensors should have the same dtype",
           lambda m: m.histogram(m.tensor(1.), m.tensor(1., dtype=m.float64)))
    raises(RuntimeError, "input tensor and weight tensor should have the same dtype",
           lambda m: m.histogram(m.tensor(1.), 1, weight=m.tensor(1., dtype=m.float64)))
    raises(RuntimeError, "input tensor and hist tensor should have the same dtype",
           lambda m: m.histogram(m.tensor(1.), 1, out=(m.tensor(1., dtype=m.float64),
                                                        m.tensor(1.))))
    raises(RuntimeError, "input tensor and bin_edges tensor should have the same dtype",
           lambda m: m.histogram(m.tensor(1.), 1, out=(m.tensor(1.),
                                                        m.tensor(1., dtype=m.float64))))
    raises(RuntimeError, "bins tensor should have one dimension",
           lambda m: m.histogram(m.ones(2, 2), m.ones(2, 2)))
    raises(RuntimeError, "bins tensor should have at least 1 element",
           lambda m: m.histogram(m.ones(0), m.ones(0)))
    raises(RuntimeError, "bins must be > 0", lambda m: m.histogram(m.tensor(1.), -1))
    raises(RuntimeError, "if weight tensor is provided it should have the same shape "
           "as the input tensor excluding its innermost dimension",
           lambda m: m.histogram(m.ones(2, 2), 1, weight=m.ones(1)))
    raises(TypeError, "received an invalid combination of arguments",
           lambda m: m.histogram(m.tensor(1.), m.tensor(1.), range=(0, 1)))
    raises(RuntimeError, "min should not exceed max",
           lambda m: m.histogram(m.tensor(1.), 2, range=(1, 0)))
    raises(RuntimeError, r"range \[nan, nan\] is not finite",
           lambda m: m.histogram(m.tensor([nan]), 2))


# ------------------------------------------------------------------------------------
# test_sort_and_select.py
# ------------------------------------------------------------------------------------


def test_sort_restride():
    base = rnd((3, 5), 0, np.float32)
    p, t = pyad.tensor(base)[:, 0], torch.tensor(base)[:, 0]
    values = pyad.tensor(0, dtype=pyad.float32)
    indices = pyad.tensor(0, dtype=pyad.int64)
    pyad.sort(p, out=(values, indices))
    assert tuple(values.stride()) == (1,)
    assert tuple(indices.stride()) == (1,)
    assert pyad.equal(p[indices], values)
    check((values, indices), tuple(torch.sort(t)))


INTEGRAL = ["uint8", "int8", "int16", "int32", "int64"]


@pytest.mark.parametrize("dtype", INTEGRAL)
def test_sort_1d_parallel(dtype):
    lo = 0 if dtype == "uint8" else -128
    a = rint((100000,), lo, 127, 0, getattr(np, dtype))
    vals, _ = pyad.sort(pyad.tensor(a), stable=True)
    assert bool(pyad.all(vals[:-1] <= vals[1:]))
    check(vals, torch.sort(torch.tensor(a), stable=True).values)


@pytest.mark.parametrize("dtype", INTEGRAL)
def test_sort_overflow(dtype):
    # torch's regression test runs single-threaded; pyad's sort is NumPy's
    pd, _ = mods(dtype)
    low = 0 if dtype == "uint8" else -1
    x = pyad.full((32768,), low, dtype=pd)
    x[:100] = np.iinfo(dtype).max
    uv = x.sort().values.unique()
    assert uv.size(0) == 2


# ------------------------------------------------------------------------------------
# test_view_ops.py
# ------------------------------------------------------------------------------------

SET_REAL_IMAG = ["uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16",
                 "float32", "float64", "complex64", "complex128", "bool"]


@pytest.mark.parametrize("cdtype", ["complex64", "complex128"])
@pytest.mark.parametrize("dtype", SET_REAL_IMAG)
def test_set_real_imag(cdtype, dtype):
    g = torch.Generator().manual_seed(0)
    td = getattr(torch, dtype)
    x = torch.randn(10, dtype=getattr(torch, cdtype), generator=g)
    if td.is_complex or td.is_floating_point:
        new_real = torch.randn(10, dtype=td if td != torch.bfloat16 else torch.float32,
                               generator=g).to(td)
        new_imag = torch.randn(10, dtype=new_real.dtype if td != torch.bfloat16
                               else torch.float32, generator=g).to(td)
    else:
        new_real = torch.randint(0, 2 if dtype == "bool" else 10, (10,), generator=g).to(td)
        new_imag = torch.randint(0, 2 if dtype == "bool" else 10, (10,), generator=g).to(td)
    p = P(x)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")      # torch warns when a complex part is dropped
        x.real = new_real
        x.imag = new_imag
        p.real = P(new_real)
        p.imag = P(new_imag)
    check(p, x)
    expect_r = new_real.real if td.is_complex else new_real
    expect_i = new_imag.real if td.is_complex else new_imag
    np.testing.assert_array_equal(p.real.data, expect_r.to(torch.float64).numpy()
                                  .astype(p.real.data.dtype))
    np.testing.assert_array_equal(p.imag.data, expect_i.to(torch.float64).numpy()
                                  .astype(p.imag.data.dtype))


def test_view_copy_out():
    a = rnd((2, 2), 0, np.float32)
    out = pyad.empty(2)
    pyad.diagonal_copy(pyad.tensor(a), out=out)
    assert pyad.equal(out, pyad.diagonal_copy(pyad.tensor(a)))
    check(out, torch.diagonal_copy(torch.tensor(a)))
    a = rnd((4,), 1, np.float32)
    out1, out2 = pyad.empty(2), pyad.empty(2)
    pyad.split_copy(pyad.tensor(a), 2, out=(out1, out2))
    e1, e2 = pyad.split_copy(pyad.tensor(a), 2)
    assert pyad.equal(e1, out1) and pyad.equal(e2, out2)
    check((out1, out2), tuple(torch.split_copy(torch.tensor(a), 2)))


def test_memory_format_resize_as():
    # torch's (10, 3, 32, 32) and (3, 10, 3, 32, 32): the layout does not depend on size
    for shape, mf in (((4, 3, 5, 6), "channels_last"), ((3, 4, 3, 5, 6), "channels_last_3d")):
        for m in (torch, pyad):
            xc = m.randn(shape).contiguous(memory_format=getattr(m, mf))
            flat = m.randn(xc.numel())
            flat.resize_as_(xc, memory_format=m.preserve_format)
            assert flat.is_contiguous(memory_format=getattr(m, mf)), m


def test_memory_format_resize_():
    for shape, mf in (((4, 3, 5, 6), "channels_last"), ((3, 4, 3, 5, 6), "channels_last_3d")):
        for m in (torch, pyad):
            flat = m.randn(int(np.prod(shape)))
            flat.resize_(shape, memory_format=getattr(m, mf))
            assert flat.is_contiguous(memory_format=getattr(m, mf)), m


def test_conj_neg_view_numpy_error():
    t = torch.tensor([1 + 2j])
    with pytest.raises(RuntimeError, match="has conjugate bit set"):
        t.conj().numpy()
    with pytest.raises(RuntimeError, match="has negative bit set"):
        t.conj().imag.numpy()
    with pytest.raises(RuntimeError, match="not supported for conjugate view tensors"):
        t.conj().view(torch.float64)
    with pytest.raises(RuntimeError, match="not supported for tensors with negative bit set"):
        t.conj().imag.view(torch.int32)
    # pyad has no lazy conjugate or negative bit (docs/porting.md: is_conj/is_neg are
    # always False): conj() and its imag are plain Variables, so the four calls torch
    # refuses give the values torch gives once the bits are resolved
    p = pyad.tensor([1 + 2j])
    assert not p.conj().is_conj() and not p.conj().imag.is_neg()
    np.testing.assert_array_equal(p.conj().numpy(), t.conj().resolve_conj().numpy())
    np.testing.assert_array_equal(p.conj().imag.numpy(),
                                  t.conj().imag.resolve_neg().numpy())
    check(p.conj().view(pyad.float64), t.conj().resolve_conj().view(torch.float64))
    check(p.conj().imag.view(pyad.int32), t.conj().imag.resolve_neg().view(torch.int32))


# ------------------------------------------------------------------------------------
# test_shape_ops.py
# ------------------------------------------------------------------------------------


def test_unfold_errors():
    for m in (torch, pyad):
        x = m.arange(1.0, 8)
        with pytest.raises(RuntimeError, match="size is -1 but must be >= 0"):
            x.unfold(0, -1, 1)
        with pytest.raises(RuntimeError, match="step is -1 but must be > 0"):
            x.unfold(0, 1, -1)
