"""Ports of PyTorch's op-semantics tests (CPU) to pyad: ``test/test_reductions.py``
(sum/mean/prod/amax/amin/max/min with dim, argmax ties, std/var with correction,
logsumexp, cumsum/cumprod/cummax, median/mode/nanmedian, count_nonzero, all/any, empty
and 0-d inputs, NaN propagation, ``dtype=``), ``test/test_shape_ops.py`` (flip, roll,
rot90, diagonal, movedim, narrow, clamp, nonzero, trace, unbind), quantile and
bincount, ``test/test_sort_and_select.py`` (stable sort, topk, kthvalue,
unique/unique_consecutive, isin, searchsorted) and ``test/test_tensor_creation_ops.py``
(arange/linspace/logspace edges, eye, tril_indices/triu_indices, cat edges, tensor()
from nested data and from a Variable, empty factories).

The tests keep torch's names and the meaning of their assertions, without torch's
OpInfo/device/dtype decorators: each writes its concrete dtypes and inputs.  Expected
values are torch run on the same inputs (``check`` compares shape, dtype and values)
or the literal values of torch's own test, never pyad's output.  Parts of torch's tests
that write through ``out=`` are separate tests, strictly xfailed until the engine takes
the keyword.
"""
import math

import numpy as np
import pytest

import pyad

torch = pytest.importorskip("torch")

from _ops_helpers import both, dname, rnd, tnp  # noqa: E402

inf, nan = math.inf, math.nan


# ------------------------------------------------------------------------------------
# helpers
# ------------------------------------------------------------------------------------

def check(p, t, exact=True):
    """A pyad result against torch's: shape, dtype and values (nan where nan)."""
    if isinstance(t, (tuple, list)):
        assert isinstance(p, (tuple, list)) and len(p) == len(t)
        for a, b in zip(p, t):
            check(a, b, exact)
        return
    assert tuple(p.shape) == tuple(t.shape), (p.shape, t.shape)
    assert dname(p.dtype) == dname(t.dtype), (p.dtype, t.dtype)
    if exact:
        np.testing.assert_array_equal(p.data, tnp(t))
    else:
        # torch's assertEqual tolerances for the dtype (rtol, atol)
        tol = {"float32": (1.3e-6, 1e-5), "float64": (1e-7, 1e-7)}[dname(t.dtype)]
        np.testing.assert_allclose(p.data, tnp(t), rtol=tol[0], atol=tol[1])


# ------------------------------------------------------------------------------------
# test_reductions.py
# ------------------------------------------------------------------------------------

def test_logsumexp():
    a = rnd((5, 4), 1, np.float32)
    a[0, 0] = inf
    a[1, :] = -inf
    p, t = both(a)
    check(p.logsumexp(1), t.logsumexp(1), exact=False)
    check(pyad.logsumexp(p, 1, keepdim=True), torch.logsumexp(t, 1, keepdim=True), exact=False)


def test_logsumexp_out():
    a = rnd((5, 4), 1, np.float32)
    b = pyad.zeros(5, 2)
    c = b[:, 0]
    pyad.logsumexp(pyad.tensor(a), 1, out=c)
    np.testing.assert_allclose(b.data[:, 0], torch.logsumexp(torch.tensor(a), 1).numpy(),
                               rtol=1.3e-6)


def test_logsumexp_integral_promotion():
    # integer inputs are promoted to the default float dtype
    a = np.array([[1, 2, 3], [4, 5, 6]], np.int64)
    for dim in (0, 1):
        p, t = both(a)
        check(pyad.logsumexp(p, dim), torch.logsumexp(t, dim), exact=False)
    p, t = both(np.array([True, False, True]))
    check(pyad.logsumexp(p, 0), torch.logsumexp(t, 0), exact=False)


def test_sum_dim_reduction_uint8_overflow():
    example = [[-1, 2, 1], [5, 3, 6]]
    x = pyad.tensor(example, dtype=pyad.uint8)
    assert x.sum(dtype=pyad.uint8).item() == 16
    np.testing.assert_array_equal(x.sum(0, dtype=pyad.uint8).data, [4, 5, 7])
    np.testing.assert_array_equal(x.sum(1, dtype=pyad.uint8).data, [2, 14])
    assert x.sum(0, dtype=pyad.uint8).dtype == np.uint8
    # torch's conversion: -1 wraps to 255 in uint8, a number out of range is refused
    np.testing.assert_array_equal(x.data, [[255, 2, 1], [5, 3, 6]])
    for v, dt in (([300], pyad.uint8), ([-256], pyad.uint8), ([128], pyad.int8)):
        with pytest.raises(RuntimeError, match="without overflow"):
            torch.tensor(v, dtype=getattr(torch, np.dtype(dt).name))
        with pytest.raises(RuntimeError, match="without overflow"):
            pyad.tensor(v, dtype=dt)
    check(pyad.tensor([-129, 7], dtype=pyad.uint8), torch.tensor([-129, 7], dtype=torch.uint8))
    check(pyad.tensor(-1, dtype=pyad.uint8), torch.tensor(-1, dtype=torch.uint8))
    # without dtype= an integer sum is int64
    assert x.sum().dtype == np.int64 and x.sum().item() == 272


def test_sum_dim_reduction_uint8_overflow_out():
    x = pyad.tensor([[-1, 2, 1], [5, 3, 6]], dtype=pyad.uint8)
    y = pyad.tensor([[-1, 2, 1], [5, 3, 6]], dtype=pyad.uint8)
    pyad.sum(x, 0, out=y)
    np.testing.assert_array_equal(y.data, [4, 5, 7])


def test_sum_all():
    def check_sum_all(tensor):
        pylist = tensor.reshape(-1).tolist()
        np.testing.assert_allclose(tensor.sum().item(), sum(pylist), rtol=1e-7, atol=1e-7)

    check_sum_all(pyad.tensor([1, 2, 3, 4, 5], dtype=pyad.float64))
    check_sum_all(pyad.tensor(rnd(200000, 31)))
    check_sum_all(pyad.tensor(rnd((2000, 2), 32))[:, 0])
    b = pyad.tensor([True, False, True], dtype=pyad.bool)
    assert b.sum().item() == 2 and b.sum().dtype == np.int64


def _reduce_integer_upcast(fn):
    """torch's _test_reduce_integer_upcast without its out= part: integer inputs reduce
    to int64, floating ones keep their dtype, dtype= casts the input first."""
    shape = (3, 4, 5)
    for dt in ("uint8", "int8", "int16", "int32", "int64", "float32", "float64",
               "complex64", "complex128"):
        x = pyad.ones(shape, dtype=getattr(pyad, dt))
        kind = np.dtype(dt).kind
        expected = dt if kind in "fc" else "int64"
        assert dname(fn(x).dtype) == expected, (dt, fn(x).dtype)
        np.testing.assert_array_equal(fn(x.to(dtype=getattr(pyad, expected))).data, fn(x).data)
        other = ("float32" if dt == "float64" else "float64") if kind == "f" else \
                ("complex64" if dt == "complex128" else "complex128") if kind == "c" else \
                ("int32" if dt != "int32" else "int16")
        mixed = (("int32", "complex64") if kind == "f" else ("int32", "float32") if kind == "c"
                 else ("float32", "complex64"))
        for odt in (other,) + mixed:
            got = fn(x, dtype=getattr(pyad, odt))
            assert dname(got.dtype) == odt, (dt, odt, got.dtype)
            np.testing.assert_array_equal(got.data, fn(x.to(dtype=getattr(pyad, odt))).data)
            # torch on the same input
            t = torch.ones(shape, dtype=getattr(torch, dt))
            tfn = {"sum": torch.sum, "prod": torch.prod, "cumsum": torch.cumsum,
                   "cumprod": torch.cumprod}[fn.op]
            targs = (t,) + fn.args
            check(got, tfn(*targs, dtype=getattr(torch, odt)))


def _op(op, *args):
    f = lambda x, **kw: getattr(pyad, op)(x, *args, **kw)
    f.op, f.args = op, args
    return f


def test_sum_integer_upcast():
    _reduce_integer_upcast(_op("sum"))
    _reduce_integer_upcast(_op("sum", 0))


def test_cumsum_integer_upcast():
    _reduce_integer_upcast(_op("cumsum", 0))


def test_cumprod_integer_upcast():
    _reduce_integer_upcast(_op("cumprod", 0))


def test_sum_integer_upcast_out():
    x = pyad.ones((3, 4, 5), dtype=pyad.int32)
    out = pyad.ones((4, 5), dtype=pyad.int64)
    result = pyad.sum(x, 0, out=out)
    assert result.dtype == np.int64
    np.testing.assert_array_equal(out.data, np.full((4, 5), 3))


def test_prod_bool():
    vals = [[True, True], [True, False], [False, False], [], [False] * 256]
    for val in vals:
        result = pyad.prod(pyad.tensor(val, dtype=pyad.bool), dtype=pyad.bool).item()
        assert result == np.prod(np.array(val), dtype=bool)
        result = pyad.prod(pyad.tensor(val, dtype=pyad.bool)).item()
        assert result == np.prod(np.array(val))
        p, t = both(np.array(val, dtype=bool))
        check(pyad.prod(p), torch.prod(t))          # bool -> int64


def test_prod_integer_upcast():
    a = np.array([[2, 3], [4, 5]], np.int32)
    p, t = both(a)
    check(p.prod(), t.prod())
    check(p.prod(0), t.prod(0))
    check(p.prod(1, dtype=pyad.float64), t.prod(1, dtype=torch.float64))
    check(p.cumprod(1), t.cumprod(1))


def _dim_ops(pyad_op, numpy_op, use_integral=True):
    """torch's _test_dim_ops on smaller shapes: contiguous, non-contiguous and sliced
    inputs of float64/float32 (and int64/int32/int16) against NumPy."""
    rng = np.random.default_rng(34)
    dts = [np.float64, np.float32] + ([np.int64, np.int32, np.int16] if use_integral else [])

    def make(shape, dt):
        if np.dtype(dt).kind == "f":
            return np.clip(rng.standard_normal(shape) * (200 / (2 * math.pi)) + 100,
                           -100, 100).astype(dt)
        return rng.integers(-100, 101, shape).astype(dt)

    for shape, dim in (((3, 5, 7), 0), ((3, 5, 7), 1), ((3, 5, 7), 2), ((1000,), -1),
                       ((20, 20, 20), (1, 2)), ((20, 20, 20), (1, -1)),
                       ((20, 20, 20), (0, 2)), ((20, 20, 20), (0, 2, 1))):
        for dt in dts:
            cont = make(shape, dt)
            noncont = pyad.tensor(np.zeros(shape + (2, 2), dt))[..., 0].select(-1, -1)
            noncont[...] = pyad.tensor(cont)
            assert not noncont.is_contiguous()
            for x in (pyad.tensor(cont), noncont):
                expected = numpy_op(np.asarray(x.data), dim)
                actual = pyad_op(x, dim)
                assert actual.shape == expected.shape
                if dt == np.float32:
                    np.testing.assert_allclose(actual.data, expected, rtol=1e-3, atol=1e-5)
                elif np.dtype(dt).kind == "f":
                    np.testing.assert_allclose(actual.data, expected, rtol=1e-7, atol=1e-7)
                else:
                    np.testing.assert_array_equal(actual.data, expected)


def test_sum_dim():
    _dim_ops(lambda t, d: t.sum(d), lambda n, d: n.sum(d))


def test_mean_dim():
    _dim_ops(lambda t, d: t.mean(d), lambda n, d: n.mean(d), use_integral=False)


def test_std_dim():
    for unbiased in (False, True):
        _dim_ops(lambda t, d: t.std(d, unbiased=unbiased),
                 lambda n, d: n.std(d, ddof=1 if unbiased else 0), use_integral=False)


def test_var_dim():
    for unbiased in (False, True):
        _dim_ops(lambda t, d: t.var(d, unbiased=unbiased),
                 lambda n, d: n.var(d, ddof=1 if unbiased else 0), use_integral=False)


def test_logsumexp_dim():
    def np_logsumexp(n, d):
        m = np.max(n, axis=d, keepdims=True)
        return np.log(np.sum(np.exp(n - m), axis=d)) + np.squeeze(m, axis=d)
    _dim_ops(lambda t, d: t.logsumexp(d), np_logsumexp, use_integral=False)


def _minmax_helper(pfn, reffn, dt, skip_indices=False):
    """torch's _test_minmax_helper: against NumPy on contiguous and non-contiguous
    inputs, the indices point at the values, a NaN wins and its index is reported."""
    rng = np.random.default_rng(35)

    def create_input(shape):
        if np.dtype(dt).kind == "f":
            return rng.standard_normal(shape).astype(dt)
        lo, hi = (0, 2) if dt == np.bool_ else (-1000, 1000)
        return rng.integers(lo, hi, shape).astype(dt)

    def values(r):
        return r[0] if isinstance(r, tuple) else r

    x = create_input((100, 100))
    np.testing.assert_array_equal(values(pfn(pyad.tensor(x))).data, reffn(x))
    x = pyad.tensor(create_input((10, 10, 10)))[:, 4]
    np.testing.assert_array_equal(values(pfn(x)).data, reffn(np.asarray(x.data)))
    if not skip_indices:
        size = 5
        x = pyad.tensor(create_input((size, size)))
        for xinp in (x, x.t()):
            for d in (0, 1):
                result = pfn(xinp, d, False)
                np.testing.assert_array_equal(values(result).data,
                                              reffn(np.asarray(xinp.data), d, keepdims=False))
                if isinstance(result, tuple):
                    v, i = result
                    if d == 1:
                        picked = xinp[pyad.arange(size), i]
                    else:
                        picked = xinp[i, pyad.arange(size)]
                    np.testing.assert_array_equal(picked.data, v.data)
    if np.dtype(dt).kind == "f":
        for index in (0, 4, 99):
            x = create_input((100,))
            x[index] = nan
            x = pyad.tensor(x)
            if not skip_indices:
                result = pfn(x, 0)
                assert math.isnan(values(result).item())
                if isinstance(result, tuple):
                    assert result[1].item() == index
            assert math.isnan(values(pfn(x)).item())


@pytest.mark.parametrize("dt", [np.float32, np.float64, np.int64, np.bool_, np.float16])
def test_max(dt):
    _minmax_helper(pyad.max, np.amax, dt)


@pytest.mark.parametrize("dt", [np.float32, np.float64, np.int64, np.bool_, np.float16])
def test_min(dt):
    _minmax_helper(pyad.min, np.amin, dt)


@pytest.mark.parametrize("dt", [np.float16, np.float32, np.float64, np.int32, np.int64, np.bool_])
def test_amin(dt):
    _minmax_helper(pyad.amin, np.amin, dt)


@pytest.mark.parametrize("dt", [np.float16, np.float32, np.float64, np.int32, np.int64, np.bool_])
def test_amax(dt):
    _minmax_helper(pyad.amax, np.amax, dt)


@pytest.mark.parametrize("dt", [np.float32, np.float64, np.int64, np.bool_])
def test_aminmax(dt):
    def _amin_wrapper(x, dim=None, keepdims=False):
        return pyad.aminmax(x, dim=dim, keepdim=keepdims)[0]

    def _amax_wrapper(x, dim=None, keepdims=False):
        return pyad.aminmax(x, dim=dim, keepdim=keepdims)[1]
    _minmax_helper(_amin_wrapper, np.amin, dt)
    _minmax_helper(_amax_wrapper, np.amax, dt)


def test_bincount():
    # errors
    # pyad's messages start "bincount(): " and name the case (a negative value)
    with pytest.raises(RuntimeError, match=r"bincount\(\): .*non-negative"):
        pyad.bincount(pyad.tensor([1, -1]))
    with pytest.raises(RuntimeError, match="1-d non-negative integral"):
        pyad.bincount(pyad.tensor([[1, 2], [3, 4]]))
    with pytest.raises(RuntimeError, match="not implemented"):
        pyad.bincount(pyad.tensor([1.0, 0.3]))
    with pytest.raises(RuntimeError, match="minlength should be >= 0"):
        pyad.bincount(pyad.tensor([1, 3]), pyad.tensor([0.2, 0.2]), minlength=-1)
    with pytest.raises(RuntimeError, match="1-d"):
        pyad.bincount(pyad.tensor([1, 0]), pyad.tensor([[1.0, 0.3], [1.0, 0.3]]))
    with pytest.raises(RuntimeError, match="same length"):
        pyad.bincount(pyad.tensor([1, 0]), pyad.tensor([1.0, 0.3, 0.5]))
    # empty input, with and without minlength
    r = pyad.bincount(pyad.tensor([], dtype=pyad.int64))
    assert r.shape == (0,) and r.dtype == np.int64
    np.testing.assert_array_equal(pyad.bincount(pyad.tensor([], dtype=pyad.int64),
                                                minlength=10).data,
                                  np.zeros(10, np.int64))
    long_counts = pyad.tensor([0, 3, 2, 1, 3], dtype=pyad.uint8).bincount()
    np.testing.assert_array_equal(long_counts.data, [1, 1, 1, 2])
    assert long_counts.dtype == np.int64
    count_uint8 = pyad.tensor([0, 1, 2, 3, 255], dtype=pyad.uint8).bincount()
    count_int16 = pyad.tensor([0, 1, 2, 3, 255], dtype=pyad.int16).bincount()
    np.testing.assert_array_equal(count_uint8.data, count_int16.data)
    np.testing.assert_array_equal(pyad.bincount(pyad.tensor([1, 1, 1, 1]), minlength=5).data,
                                  [0, 4, 0, 0, 0])
    # weights: float32 weights give float32... as torch on the same inputs
    p = pyad.bincount(pyad.tensor([0, 1, 1, 1, 4]), pyad.tensor([0.1, 0.2, 0.3, 0.4, 0.5]))
    t = torch.bincount(torch.tensor([0, 1, 1, 1, 4]), torch.tensor([0.1, 0.2, 0.3, 0.4, 0.5]))
    # torch adds float32 weights in float32, pyad (NumPy) in float64 then rounds: one ulp
    # apart, within torch's assertEqual tolerance for float32, which its test uses
    check(p, t, exact=False)
    p = pyad.bincount(pyad.tensor([0, 1, 1, 1, 4]), pyad.tensor([1, 2, 3, 4, 5], dtype=pyad.int8))
    np.testing.assert_array_equal(p.data, [1, 9, 0, 0, 5])
    assert p.dtype == np.float64
    # non-contiguous inputs and weights
    inputs = pyad.tensor([[0, 0], [3, 1], [2, 1], [1, 1], [3, 4]])
    weights = pyad.tensor([[0.1, 1], [0.2, 2], [0.3, 3], [0.4, 4], [0.5, 5]])
    np.testing.assert_array_equal(inputs[:, 0].bincount().data, [1, 1, 1, 2])
    r = inputs[:, 1].bincount(weights[:, 1])
    np.testing.assert_array_equal(r.data, [1, 9, 0, 0, 5])
    assert r.dtype == np.float32
    all0s = pyad.zeros((32, 2), dtype=pyad.int64)
    np.testing.assert_array_equal(all0s[:, 0].bincount().data, [32])
    all1s = pyad.ones((32, 2), dtype=pyad.int64)
    np.testing.assert_array_equal(all1s[:, 0].bincount().data, [0, 32])


def test_sum_out():
    x = pyad.tensor(np.random.default_rng(36).random((100, 100)))
    res1 = pyad.sum(x, 1)
    res2 = pyad.tensor([], dtype=pyad.float64)
    pyad.sum(x, 1, out=res2)
    np.testing.assert_array_equal(res1.data, res2.data)


def test_prod():
    x = pyad.tensor(np.random.default_rng(37).random((100, 100)).astype(np.float32))
    res1 = pyad.prod(x, 1)
    res2 = pyad.tensor([], dtype=pyad.float32)
    pyad.prod(x, 1, out=res2)
    np.testing.assert_array_equal(res1.data, res2.data)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_std_correction_vs_numpy(dtype):
    a = rnd((5, 6, 7), 3, dtype)
    for dim in (None, 0, 1, (0, 2), -1):
        for correction in (0, 1, 2, 7):
            for keepdim in (False, True):
                got = pyad.std(pyad.tensor(a), dim=dim, correction=correction, keepdim=keepdim)
                exp = np.std(a, axis=dim, ddof=correction, keepdims=keepdim)
                # numpy's exact formula in float64; torch compares with its tolerances
                np.testing.assert_allclose(got.data, exp, rtol=1.3e-6 if dtype == np.float32
                                           else 1e-7, atol=1e-5 if dtype == np.float32 else 1e-7)
                assert got.dtype == dtype


@pytest.mark.parametrize("dt", [np.float32, np.float64, np.complex64, np.complex128])
def test_var_correction_vs_numpy(dt):
    import warnings
    from itertools import product
    rng = np.random.default_rng(4)
    array = rng.uniform(-9, 9, (20, 20)).astype(dt)
    if np.dtype(dt).kind == "c":
        array = array + 1j * rng.uniform(-9, 9, (20, 20)).astype(dt)
    tensor = pyad.tensor(array)
    args = [*product((None, 0, 1), (None, 0, 10, 30), (False, True)), (None, -100, True)]
    for dim, correction, keepdim in args:
        ddof = 1 if correction is None else correction   # torch's default is 1, NumPy's 0
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            numpy_res = np.asarray(np.var(array, axis=dim, ddof=ddof, keepdims=keepdim))
        res = pyad.var(tensor, dim=dim, correction=correction, keepdim=keepdim)
        tol = (1.3e-6, 1e-5) if dt in (np.float32, np.complex64) else (1e-7, 1e-7)
        # inf vs. nan past the degrees of freedom is machine-dependent: only finite ones
        finite = np.isfinite(numpy_res)
        np.testing.assert_allclose(np.asarray(res.data)[finite], numpy_res[finite],
                                   rtol=tol[0], atol=tol[1])
        assert res.shape == numpy_res.shape
        assert res.dtype == np.dtype(dt).type(0).real.dtype


def test_std_var_vs_numpy():
    from itertools import product
    rng = np.random.default_rng(65)
    for dt in (np.float32, np.float64, np.complex64, np.complex128):
        a = rng.standard_normal((20, 20)).astype(dt)
        if np.dtype(dt).kind == "c":
            a = a + 1j * rng.standard_normal((20, 20)).astype(dt)
        t = pyad.tensor(a)
        tol = (1.3e-6, 1e-5) if dt in (np.float32, np.complex64) else (1e-7, 1e-7)
        for op, numpy_op in ((pyad.var, np.var), (pyad.std, np.std)):
            for dim, unbiased, keepdim in product((None, 0, 1), (False, True), (False, True)):
                ddof = 1 if unbiased else 0
                if dim is None:
                    got, want = op(t, unbiased=unbiased), numpy_op(a, ddof=ddof)
                else:
                    got = op(t, dim, unbiased, keepdim)
                    want = numpy_op(a, axis=dim, ddof=ddof, keepdims=keepdim)
                np.testing.assert_allclose(got.data, want, rtol=tol[0], atol=tol[1])


def test_std_mean():
    x = pyad.rand(100, 50, 20)
    for dim in range(x.dim()):
        for unbiased in (False, True):
            for keepdim in (False, True):
                std1, mean1 = pyad.std_mean(x, dim=dim, unbiased=unbiased, keepdim=keepdim)
                std2 = x.std(dim=dim, unbiased=unbiased, keepdim=keepdim)
                mean2 = x.mean(dim=dim, keepdim=keepdim)
                np.testing.assert_allclose(std1.data, std2.data, rtol=1.3e-6, atol=1e-5)
                np.testing.assert_allclose(mean1.data, mean2.data, rtol=1.3e-6, atol=1e-5)


def test_std_mean_all_dims():
    x = pyad.rand(100, 50, 20)
    for unbiased in (False, True):
        std1, mean1 = pyad.std_mean(x, unbiased=unbiased)
        np.testing.assert_allclose(std1.item(), x.std(unbiased=unbiased).item(), rtol=1.3e-6)
        np.testing.assert_allclose(mean1.item(), x.mean().item(), rtol=1.3e-6)


def test_var_mean_all_dims():
    x = pyad.rand(100, 50, 20)
    for unbiased in (False, True):
        var1, mean1 = pyad.var_mean(x, unbiased=unbiased)
        np.testing.assert_allclose(var1.item(), x.var(unbiased=unbiased).item(), rtol=1.3e-6)
        np.testing.assert_allclose(mean1.item(), x.mean().item(), rtol=1.3e-6)


@pytest.mark.parametrize("dt", [np.float32, np.float64])
def test_quantile(dt):
    from itertools import product
    rng = np.random.default_rng(66)
    inputs = [tuple(rng.integers(2, 10, i)) for i in range(1, 4)]
    quantiles = [tuple(rng.random(i)) for i in range(0, 5)]
    inputs += [0.75, (1,), (1, 1), (1, 2, 1), [nan], [[nan, nan], [1, 2]], [[nan, nan], [nan, 2]]]
    quantiles += [0.5, [0.0, 1.0], rng.random(10)]
    for op, x, q, keepdim in product(("quantile", "nanquantile"), inputs, quantiles, (True, False)):
        if isinstance(x, tuple):
            a = rng.standard_normal(x).astype(dt)
            a[rng.integers(0, 20, x) == 0] = nan
        else:
            a = np.array(x, dtype=dt)
        qa = np.asarray(q, dtype=dt)
        for interpolation in ("linear", "lower", "higher", "midpoint", "nearest"):
            for dim in [None] + list(range(a.ndim)):
                result = getattr(pyad, op)(pyad.tensor(a), pyad.tensor(qa), dim=dim,
                                           keepdim=keepdim, interpolation=interpolation)
                expected = getattr(np, op)(a, qa, dim, method=interpolation, keepdims=keepdim)
                expected = np.asarray(expected).astype(dt)
                assert result.shape == expected.shape, (op, x, q, dim, keepdim)
                np.testing.assert_allclose(result.data, expected,
                                           rtol=1.3e-6 if dt == np.float32 else 1e-7,
                                           atol=1e-5 if dt == np.float32 else 1e-7)


def test_quantile_out():
    a = pyad.tensor([1.0, 2.0, 3.0, 4.0])
    out = pyad.empty(())
    pyad.quantile(a, 0.5, out=out)
    assert out.item() == 2.5


def test_quantile_backward():
    def chk(a, q, dim, expected_grad, ops=(pyad.quantile, pyad.nanquantile)):
        for op in ops:
            t = pyad.tensor(a, requires_grad=True)
            op(t, pyad.tensor(q), dim).sum().backward()
            np.testing.assert_allclose(t.grad.data, expected_grad, rtol=1.3e-6)

    chk([1.0, 2, 3], 0.5, 0, [0, 1, 0])
    chk([1.0, 2, 3, 4], 0.5, 0, [0, 0.5, 0.5, 0])
    chk([3.0, 1, 4, 2], 0.5, 0, [0.5, 0, 0, 0.5])
    chk([1.0, 2, 3, 4], [0.25, 0.5, 0.75], 0, [0.25, 1.25, 1.25, 0.25])
    chk([[1.0, 2], [2, 1]], 0.0, 0, [[1, 0], [0, 1]])
    chk([[1.0, 2], [4, 3]], 1.0, 1, [[0, 1], [1, 0]])
    chk([1, nan, 2], 0.5, 0, [0, 1, 0], [pyad.quantile])
    chk([1, nan, 2], 0.5, 0, [0.5, 0, 0.5], [pyad.nanquantile])


def test_quantile_error():
    def chk(a, q, args, kwargs, message):
        # pyad's messages say "Variable" where torch's say "tensor" (its convention)
        message = message.replace("tensor", "(?:tensor|Variable)")
        with pytest.raises(RuntimeError, match=r"quantile\(\):? " + message):
            at = pyad.tensor(a)
            qt = pyad.tensor(q) if isinstance(q, list) else q
            pyad.quantile(at, qt, *args, **kwargs)

    chk([], 0.5, [], {}, r"input tensor must be non-empty")
    chk([1.0], [[1.0]], [], {}, r"q must be a scalar or 1D tensor")
    chk([1], 0.5, [], {}, r"input tensor must be either float or double dtype")
    chk([1.0], [1], [], {}, r"q tensor must be same dtype as the input tensor")
    chk([1.0], -1.0, [], {}, r"q must be in the range \[0, 1\] but got -1")
    chk([1.0], 1.1, [], {}, r"q must be in the range \[0, 1\] but got 1.1")
    chk([1.0], [1.0], [None, False], {"interpolation": "random_mode"},
        r"interpolation must be one of linear, lower, higher, midpoint or nearest, but got "
        r"random_mode")
    chk([1.0], [0.5, 1.1, -1], [], {}, r"q values must be in the range \[0, 1\]")


def test_var_mean_correction():
    a = rnd((4, 5), 5)
    p, t = both(a)
    for dim in (None, 0, 1):
        for correction in (0, 1, 2):
            check(pyad.var_mean(p, dim, correction=correction),
                  torch.var_mean(t, dim, correction=correction), exact=False)
            check(pyad.std_mean(p, dim, correction=correction),
                  torch.std_mean(t, dim, correction=correction), exact=False)


def test_var_stability2():
    tensor = pyad.tensor([2281.5, 2281.25], dtype=pyad.float32)
    # stability for inner dim
    assert tensor.var(0).item() == 0.03125
    # general stability
    assert tensor.var().item() == 0.03125
    # stability for outer dimensions
    tensor = tensor.unsqueeze(1)
    np.testing.assert_array_equal(tensor.var(0).data, [0.03125])


def test_var_large_correction():
    # correction >= N: torch gives inf (0 / 0 is nan for a constant row)
    p, t = both([[1.0, 2.0], [3.0, 3.0]])
    check(pyad.var(p, 1, correction=2), torch.var(t, 1, correction=2))
    check(pyad.var(p, 1, correction=3), torch.var(t, 1, correction=3))


def test_var_large_correction_warns():
    # torch: "var(): degrees of freedom is <= 0. Correction should be strictly less than
    # the reduction factor (input numel divided by output numel)."
    with pytest.warns(UserWarning, match="degrees of freedom is <= 0"):
        torch.var(torch.tensor([[1.0, 2.0]]), 1, correction=2)
    with pytest.warns(UserWarning, match="degrees of freedom is <= 0"):
        pyad.var(pyad.tensor([[1.0, 2.0]]), 1, correction=2)


def test_amin_amax_some_dims():
    a = rnd((2, 3, 4, 5), 6)
    p, t = both(a)
    for dim in (0, -1, (0, 1), (1, 3), (0, 1, 2, 3)):
        for keepdim in (False, True):
            check(pyad.amax(p, dim, keepdim), torch.amax(t, dim, keepdim))
            check(pyad.amin(p, dim, keepdim), torch.amin(t, dim, keepdim))


def test_max_with_inf():
    for dt in (np.float32, np.float64):
        a = np.array([[-inf, -inf, inf, 3], [inf, inf, -inf, -1]], dt)
        p = pyad.tensor(a)
        assert np.all(pyad.max(p, 1)[0].data == inf)
        assert np.all(pyad.max(p, 1).values.data == inf)
        assert np.all(pyad.amax(p, 1).data == inf)
        assert pyad.max(p).item() == inf
        assert pyad.amax(p).item() == inf


def test_min_with_inf():
    for dt in (np.float32, np.float64):
        a = np.array([[-inf, -inf, inf, 3], [inf, inf, -inf, -1]], dt)
        p = pyad.tensor(a)
        assert np.all(pyad.min(p, 1)[0].data == -inf)
        assert np.all(pyad.amin(p, 1).data == -inf)
        assert pyad.min(p).item() == -inf
        assert pyad.amin(p).item() == -inf


def test_minmax_nan_propagation():
    # torch: max/min/amax/amin/argmax propagate NaN (the NaN wins, its index is chosen)
    a = np.array([[1.0, nan, 3.0], [4.0, 5.0, 6.0], [nan, 0.0, nan]])
    p, t = both(a)
    check(p.max(1), tuple(t.max(1)))
    check(p.min(1), tuple(t.min(1)))
    check(p.amax(1), t.amax(1))
    check(p.amin(0), t.amin(0))
    check(p.argmax(1), t.argmax(1))
    check(p.argmin(1), t.argmin(1))
    check(p.max(), t.max())
    check(pyad.aminmax(p, dim=0), tuple(torch.aminmax(t, dim=0)))


def test_argminmax_multiple():
    # ties: the first index, as numpy's argmax
    a = np.array([[1, 5, 5, 0, 0], [3, 3, 3, 2, 2], [4, 1, 4, 1, 4]], np.int64)
    for dt in (np.int64, np.float32, np.float64):
        p, t = both(a, dt)
        for dim in (None, 0, 1):
            check(pyad.argmax(p, dim), torch.argmax(t, dim))
            check(pyad.argmin(p, dim), torch.argmin(t, dim))
        check(p.max(1).indices, t.max(1).indices)
        check(p.min(0).indices, t.min(0).indices)


def test_dim_default():
    # reductions with dim=None reduce everything; keepdim with a dim keeps a size-1 axis
    a = rnd((2, 3, 4), 7)
    p, t = both(a)
    for op in ("sum", "mean", "prod", "amax", "amin", "std", "var", "logsumexp"):
        if op == "logsumexp":
            check(getattr(p, op)((0, 1, 2)), getattr(t, op)((0, 1, 2)), exact=False)
            continue
        check(getattr(p, op)(), getattr(t, op)(), exact=False)
        check(getattr(p, op)(1, keepdim=True), getattr(t, op)(1, keepdim=True), exact=False)


def test_mean_int_with_optdtype():
    a = np.array([[1, 2, 3], [4, 5, 6]], np.int64)
    p, t = both(a)
    check(p.mean(dtype=pyad.float32), t.mean(dtype=torch.float32))
    check(p.mean(0, dtype=pyad.float64), t.mean(0, dtype=torch.float64))


def test_mean_int_without_dtype_raises():
    # torch: "mean(): could not infer output dtype. Input dtype must be either a floating
    # point or complex dtype"
    with pytest.raises(RuntimeError):
        torch.tensor([1, 2]).mean()
    with pytest.raises(RuntimeError):
        pyad.tensor([1, 2]).mean()


def test_tensor_reduce_ops_empty():
    # reductions over an empty dimension: sum 0, prod 1, mean/var nan; max/min/argmax raise
    a = np.zeros((2, 0, 3))
    p, t = both(a)
    check(p.sum(1), t.sum(1))
    check(p.prod(1), t.prod(1))
    check(p.mean(1), t.mean(1))
    check(p.var(1), t.var(1))
    check(p.logsumexp(1), t.logsumexp(1))
    check(p.sum(), t.sum())
    check(p.amax(2), t.amax(2))          # reducing a non-empty dim of an empty tensor
    check(p.max(2)[0], t.max(2)[0])
    check(p.argmax(2), t.argmax(2))
    for op in ("amax", "amin", "argmax", "argmin"):
        with pytest.raises(IndexError):
            getattr(t, op)(1)
        with pytest.raises(IndexError):
            getattr(p, op)(1)
    with pytest.raises(IndexError):
        t.max(1)
    with pytest.raises(IndexError):
        p.max(1)


def test_all_any_empty():
    for dt in (pyad.uint8, pyad.bool):
        x = pyad.tensor([], dtype=dt)
        assert x.all().item() == 1
        assert x.any().item() == 0
    # and along a dim of an empty tensor, against torch
    for dt in (np.float32, np.int64, np.bool_):
        p, t = both(np.zeros((0, 2), dt))
        check(p.all(), t.all())
        check(p.any(), t.any())
        check(p.all(0), t.all(0))
        check(p.any(0), t.any(0))
        check(p.all(1), t.all(1))


def test_all_any():
    # torch's literals: a byte and a bool tensor, one zero, all zero, filled with 2
    for size in ((10,), (5, 5)):
        x = pyad.ones(*size).byte()
        assert x.all().item() and x.any().item()
        x[3] = 0
        assert not x.all().item() and x.any().item()
        x.zero_()
        assert not x.all().item() and not x.any().item()
        x.fill_(2)
        assert x.all().item() and x.any().item()
        assert x.all().dtype == np.uint8       # torch keeps uint8 for a uint8 input
        assert x.any(0).dtype == np.uint8
        x = pyad.ones(*size).bool()
        assert x.all().item() and x.any().item()
        x[3] = False
        assert not x.all().item() and x.any().item()


def test_all_any_with_dim():
    x = pyad.tensor([[0, 0, 0], [0, 0, 1], [0, 1, 1], [1, 1, 1]], dtype=pyad.uint8)
    r1 = x.prod(dim=0, keepdim=False).byte()
    r2 = x.all(dim=0, keepdim=False)
    assert r1.shape == r2.shape
    assert (r1 == r2).all().item()
    r3 = x.sum(dim=1, keepdim=True).clamp(0, 1).byte()
    r4 = x.any(dim=1, keepdim=True)
    assert r3.shape == r4.shape
    assert (r3 == r4).all().item()
    # and against torch, dtype included
    t = torch.tensor(x.data)
    for dim in (0, 1, -1):
        for keepdim in (False, True):
            check(x.all(dim, keepdim), t.all(dim, keepdim))
            check(x.any(dim, keepdim), t.any(dim, keepdim))


def test_all_issue117215():
    info = np.iinfo(np.uint8)
    a = np.random.default_rng(30).integers(info.min, info.max, (73, 11, 3, 17)).astype(np.uint8)
    p = pyad.tensor(a)
    b = pyad.all(p, dim=0)
    c = p.to(dtype=pyad.bool).all(dim=0)
    assert pyad.ne(b, c).sum().item() == 0


def test_all_any_vs_numpy():
    rng = np.random.default_rng(8)
    a = rng.random((3, 4, 5)) < 0.8
    a[..., 0] = True
    p = pyad.tensor(a)
    for dim in (0, 1, 2):
        np.testing.assert_array_equal(p.all(dim).data, np.all(a, dim))
        np.testing.assert_array_equal(p.any(dim).data, np.any(a, dim))
    # nan counts as true
    assert pyad.tensor([nan, 1.0]).all().item() is True


def test_all_any_0d():
    for v in (0, 1, 0.0, 2.5, True, False):
        p, t = both(v)
        check(p.all(), t.all())
        check(p.any(), t.any())
        check(p.all(0), t.all(0))


def test_count_nonzero():
    a = np.array([[0, 1, 0, 2], [3, 0, 0, 0], [0, 0, 0, 0]], np.int64)
    for dt in (np.int64, np.float32, np.bool_):
        p, t = both(a, dt)
        check(pyad.count_nonzero(p), torch.count_nonzero(t))
        for dim in (0, 1, (0, 1), -1):
            check(pyad.count_nonzero(p, dim), torch.count_nonzero(t, dim))


def test_cumsum():
    a = rnd((4, 5), 9)
    p, t = both(a)
    for dim in (0, 1, -1):
        check(p.cumsum(dim), t.cumsum(dim), exact=False)
    # bool and empty inputs
    p, t = both(np.array([True, False, True]))
    check(p.cumsum(0), t.cumsum(0))
    p, t = both(np.zeros((0, 3)))
    check(p.cumsum(0), t.cumsum(0))
    check(p.cumsum(1), t.cumsum(1))
    p, t = both(np.array(3.0))
    check(p.cumsum(0), t.cumsum(0))


def test_cumprod():
    a = np.array([[1.0, 2.0, 0.0, 4.0], [inf, 1.0, nan, 2.0]])
    p, t = both(a)
    check(p.cumprod(1), t.cumprod(1))
    check(p.cumprod(0), t.cumprod(0))
    p, t = both(np.array([[1, 2], [3, 4]], np.int32))
    check(p.cumprod(0), t.cumprod(0))
    check(p.cumprod(1, dtype=pyad.float64), t.cumprod(1, dtype=torch.float64))


def test_cummax_cummin():
    x = np.array([[0.0, 2.0, 1.0, nan, 3.0, -1.0], [nan, 1.0, -inf, 4.0, inf, 4.0]])
    p, t = both(x)
    for dim in (1, 0):
        check(pyad.cummax(p, dim), tuple(torch.cummax(t, dim)))
        check(pyad.cummin(p, dim), tuple(torch.cummin(t, dim)))
    # ties: torch reports the last index of the running extremum
    p, t = both(np.array([1, 3, 3, 2, 3, 0, 0], np.int64))
    check(pyad.cummax(p, 0), tuple(torch.cummax(t, 0)))
    check(pyad.cummin(p, 0), tuple(torch.cummin(t, 0)))
    p, t = both(np.array([True, False, True]))
    check(pyad.cummax(p, 0), tuple(torch.cummax(t, 0)))


def test_median_real_values():
    # distinct values (ties are a documented difference, docs/graph-semantics.md)
    a = np.random.default_rng(10).permutation(24).reshape(4, 6).astype(np.float64)
    for dt in (np.float32, np.float64, np.int64):
        p, t = both(a, dt)
        check(p.median(), t.median())
        for dim in (0, 1):
            for keepdim in (False, True):
                check(p.median(dim, keepdim), tuple(t.median(dim, keepdim)))


@pytest.mark.parametrize("dt", [np.float32, np.float64])
def test_median_nan_values(dt):
    import random
    rnd_ = random.Random(64)
    rng = np.random.default_rng(64)
    sizes = [rnd_.sample(range(1, 32), i) for i in range(4) for _ in range(2)]
    for size in sizes:
        a = rng.random(size).astype(dt)
        a[a < 0.1] = nan
        t = pyad.tensor(a)
        for op, numpy_op in ((pyad.median, np.median), (pyad.nanmedian, np.nanmedian)):
            res = op(t)
            num_nan = int(np.isnan(a).sum())
            if op is pyad.median and num_nan > 0:
                k = a.size - 1
            else:
                k = int((a.size - num_nan - 1) / 2)
            np.testing.assert_array_equal(res.data, np.sort(a.reshape(-1))[k])
            if (a.size - num_nan) % 2 == 1:
                # NumPy averages the two middle values; torch (and pyad) take the lower
                np.testing.assert_array_equal(res.item(), numpy_op(a))
            for dim in range(a.ndim):
                values, indices = op(t, dim, True)
                n = a.shape[dim]
                nn = np.isnan(a).sum(dim, keepdims=True)
                if op is pyad.median:
                    k = np.where(nn > 0, n - 1, int((n - 1) / 2))
                else:
                    k = ((n - nn - 1) / 2).astype(np.int64)
                np.testing.assert_array_equal(values.data,
                                              np.take_along_axis(np.sort(a, dim), k, dim))
                np.testing.assert_array_equal(values.data, np.take_along_axis(a, indices.data, dim))
                mask = (n - nn) % 2 == 1
                np.testing.assert_array_equal(values.data[mask],
                                              numpy_op(a, dim, keepdims=True)[mask])


def test_median_corner_cases():
    def chk(op, a, args, key):
        res = op(pyad.tensor(a), *args)
        if not args:
            np.testing.assert_array_equal(res.data, key)
        elif len(key) == 1:
            np.testing.assert_array_equal(res[0].data, key[0])
        else:
            np.testing.assert_array_equal(res[0].data, key[0])
            np.testing.assert_array_equal(res[1].data, key[1])

    med, nanmed = pyad.median, pyad.nanmedian
    chk(med, nan, [], nan)
    chk(nanmed, nan, [], nan)
    chk(med, nan, [0], [nan, 0])
    chk(nanmed, nan, [0], [nan, 0])
    chk(med, [nan], [0, True], [[nan], [0]])
    chk(nanmed, [nan], [0, True], [[nan], [0]])
    # values only (torch's indices are not deterministic here)
    chk(med, [[nan, nan], [1, 2]], [0], [[nan, nan]])
    chk(nanmed, [[nan, nan], [1, 2]], [0], [[1, 2.0]])
    chk(med, [[nan, nan], [1, 2]], [1], [[nan, 1]])
    chk(nanmed, [[nan, nan], [1, 2]], [1], [[nan, 1.0]])
    # discontiguous and strided
    a = pyad.arange(12)
    assert a[::2].median().item() == 4
    assert a[::2].nanmedian().item() == 4
    a = a.reshape(3, 4)
    assert a.T.median().item() == 5
    assert a.T.nanmedian().item() == 5
    np.testing.assert_array_equal(a[::2, ::2].median(-1)[0].data, [0, 8])
    np.testing.assert_array_equal(a[::2, ::2].nanmedian(-1)[0].data, [0, 8])
    a = a.reshape(2, 3, 2)
    assert a.T.median().item() == 5
    assert a.T.nanmedian().item() == 5
    np.testing.assert_array_equal(a[:, ::2, :].median(-1)[0].data, [[0, 4], [6, 10]])
    np.testing.assert_array_equal(a[:, ::2, :].nanmedian(-1)[0].data, [[0, 4], [6, 10]])


def test_mode():
    size = 10
    for dt in (np.float32, np.float64, np.int64, np.int32, np.uint8):
        x = np.arange(1, size * size + 1).reshape(size, size).astype(dt)
        x[:2] = 1
        x[:, :2] = 1
        p = pyad.tensor(x)
        # torch's pre-calculated results: the indices are the position of the last
        # appearance of the mode element
        res1val = np.ones(size, dt)
        res1ind = np.ones(size, np.int64)
        res1ind[0] = size - 1
        res1ind[1] = size - 1
        v, i = pyad.mode(p, keepdim=False)
        np.testing.assert_array_equal(v.data, res1val)
        np.testing.assert_array_equal(i.data, res1ind)
        assert v.dtype == dt and i.dtype == np.int64
        # non-default dim
        v, i = pyad.mode(p, 0, False)
        np.testing.assert_array_equal(v.data, res1val)
        np.testing.assert_array_equal(i.data, res1ind)
        # input unchanged
        np.testing.assert_array_equal(p.data, x)


def test_mode_out():
    x = pyad.ones(3, 3)
    v, i = pyad.tensor([]), pyad.tensor([], dtype=pyad.int64)
    pyad.mode(x, keepdim=False, out=(v, i))
    np.testing.assert_array_equal(v.data, np.ones(3))


def test_mode_boolean():
    for shape in ((10, 10), (4, 2048), (1, 4096)):
        a = pyad.zeros(shape, dtype=pyad.bool)
        a[:, (shape[1] - 1) // 2:] = True
        values, indices = a.mode(-1)
        np.testing.assert_array_equal(values.data, np.ones(shape[0], bool))
        indexed = a.gather(1, indices.unsqueeze(1)).squeeze(1)
        np.testing.assert_array_equal(values.data, indexed.data)
        a.fill_(False)
        a[:, shape[1] // 2 + 1:] = True
        values, indices = a.mode(-1)
        np.testing.assert_array_equal(values.data, np.zeros(shape[0], bool))
        indexed = a.gather(1, indices.unsqueeze(1)).squeeze(1)
        np.testing.assert_array_equal(values.data, indexed.data)


def test_accreal_type():
    x = pyad.ones(2, 3, 4)
    assert isinstance(x.double().sum().item(), float)
    assert isinstance(x.float().sum().item(), float)
    assert isinstance(x.long().sum().item(), int)
    assert isinstance(x.int().sum().item(), int)
    assert isinstance(x.short().sum().item(), int)
    assert isinstance(x.char().sum().item(), int)
    assert isinstance(x.byte().sum().item(), int)


def test_var_mean_some_dims():
    from itertools import combinations
    sizes = (4, 6, 7, 5, 3)
    x = pyad.tensor(np.random.default_rng(33).random(sizes).astype(np.float32))
    for num_of_dims in range(2, len(sizes)):
        for dim in combinations(range(len(sizes)), num_of_dims):
            for unbiased in (False, True):
                for keepdim in (False, True):
                    var1, mean1 = pyad.var_mean(x, dim=dim, unbiased=unbiased, keepdim=keepdim)
                    var2 = x.var(dim=dim, unbiased=unbiased, keepdim=keepdim)
                    mean2 = x.mean(dim=dim, keepdim=keepdim)
                    np.testing.assert_allclose(var1.data, var2.data, rtol=1.3e-6, atol=1e-5)
                    np.testing.assert_allclose(mean1.data, mean2.data, rtol=1.3e-6, atol=1e-5)


def test_nansum_vs_numpy():
    a = np.array([[1.0, nan, 2.0], [nan, nan, 3.0]])
    p = pyad.tensor(a)
    np.testing.assert_array_equal(pyad.nansum(p).data, np.nansum(a))
    np.testing.assert_array_equal(pyad.nansum(p, 1).data, np.nansum(a, 1))
    np.testing.assert_array_equal(pyad.nanmean(p, 0).data, np.nanmean(a, 0))


def test_bucketization():
    # torch's literals for bucketize / searchsorted, left and right
    values_1d = pyad.tensor([1, 2, 3, 4, 5, 6, 7, 8, 9])
    values_3d = pyad.tensor([[[1, 3, 5], [2, 4, 6]], [[1, 2, 3], [4, 5, 6]]])
    boundaries = pyad.tensor([1, 2, 3, 4, 5, 6])
    np.testing.assert_array_equal(pyad.bucketize(values_3d, boundaries).data,
                                  [[[0, 2, 4], [1, 3, 5]], [[0, 1, 2], [3, 4, 5]]])
    np.testing.assert_array_equal(pyad.bucketize(values_3d, boundaries, right=True).data,
                                  [[[1, 3, 5], [2, 4, 6]], [[1, 2, 3], [4, 5, 6]]])
    # float 1-D boundaries with repeats, int32 output
    for dt in (pyad.float32, pyad.float16):
        values_1d_float = values_1d.to(dtype=dt)
        bnd = pyad.tensor([0.9, 1, 2, 2, 3, 3, 4, 4.1, 9, 9], dtype=dt)
        expected = np.array([1, 2, 4, 6, 8, 8, 8, 8, 8], np.int32)
        r = pyad.searchsorted(bnd, values_1d_float, out_int32=True)
        np.testing.assert_array_equal(r.data, expected)
        assert r.dtype == np.int32
        np.testing.assert_array_equal(pyad.bucketize(values_1d_float, bnd, out_int32=True).data,
                                      expected)
    v = pyad.tensor([[3, 6, 9], [3, 6, 9]])
    np.testing.assert_array_equal(pyad.searchsorted(boundaries, v).data, [[2, 5, 6], [2, 5, 6]])
    np.testing.assert_array_equal(pyad.searchsorted(boundaries, v, right=True).data,
                                  [[3, 6, 6], [3, 6, 6]])
    np.testing.assert_array_equal(pyad.bucketize(values_1d, boundaries).data,
                                  [0, 1, 2, 3, 4, 5, 6, 6, 6])
    np.testing.assert_array_equal(pyad.bucketize(values_1d, boundaries, right=True).data,
                                  [1, 2, 3, 4, 5, 6, 6, 6, 6])
    # a batch of boundaries, and out_int32
    b2 = pyad.tensor([[1, 3, 5, 7, 9], [2, 4, 6, 8, 10]])
    v2 = pyad.tensor([[3, 6, 9], [3, 6, 9]])
    r = pyad.searchsorted(b2, v2)
    np.testing.assert_array_equal(r.data, [[1, 3, 4], [1, 2, 4]])
    assert r.dtype == np.int64
    r = pyad.searchsorted(b2, v2, out_int32=True)
    assert r.dtype == np.int32
    np.testing.assert_array_equal(pyad.searchsorted(b2, v2, side="right").data,
                                  [[2, 3, 5], [1, 3, 4]])


def test_bucketization_out():
    values_3d = pyad.tensor([[[1, 3, 5], [2, 4, 6]], [[1, 2, 3], [4, 5, 6]]])
    output = pyad.empty(2, 2, 3, dtype=pyad.int64)
    pyad.bucketize(values_3d, pyad.tensor([1, 2, 3, 4, 5, 6]), out=output)
    np.testing.assert_array_equal(output.data, [[[0, 2, 4], [1, 3, 5]], [[0, 1, 2], [3, 4, 5]]])


def test_searchsorted_sorter():
    b = np.array([5.0, 1.0, 3.0, 2.0])
    v = np.array([0.5, 2.0, 2.5, 6.0])
    sorter = np.argsort(b)
    p = pyad.searchsorted(pyad.tensor(b), pyad.tensor(v), sorter=pyad.tensor(sorter))
    t = torch.searchsorted(torch.tensor(b), torch.tensor(v), sorter=torch.tensor(sorter))
    check(p, t)


# ------------------------------------------------------------------------------------
# test_shape_ops.py
# ------------------------------------------------------------------------------------

_FLIP_DTYPES = ["float32", "float64", "int64", "int16", "uint8", "bool", "complex128", "float16"]


@pytest.mark.parametrize("dt", _FLIP_DTYPES)
def test_flip(dt):
    from itertools import chain, combinations, permutations, product
    dtype = getattr(pyad, dt)
    make = lambda data: pyad.tensor(np.asarray(data).astype(dt))
    rng = np.random.default_rng(56)

    def make_from_size(size):
        return pyad.tensor((rng.integers(0, 9, size) if dt != "bool"
                            else rng.integers(0, 2, size)).astype(dt))

    def check_flip(in_t, dims, out_t):
        np.testing.assert_array_equal(in_t.flip(dims).data, out_t.data)
        n = in_t.ndim
        if not isinstance(dims, tuple):
            np.testing.assert_array_equal(in_t.flip(-n + dims).data, out_t.data)   # wrap
        else:
            for p_dims in permutations(dims):
                np.testing.assert_array_equal(in_t.flip(p_dims).data, out_t.data)
                if len(p_dims) > 0:
                    np.testing.assert_array_equal(
                        in_t.flip((-n + p_dims[0],) + p_dims[1:]).data, out_t.data)

    def gen_data():
        data = make([1, 2, 3, 4, 5, 6, 7, 8]).view(2, 2, 2)
        nonctg = pyad.zeros(2, 2, 4, dtype=dtype)[..., ::2]
        nonctg[...] = data
        assert not nonctg.is_contiguous()
        dims_result = ((0, make([5, 6, 7, 8, 1, 2, 3, 4]).view(2, 2, 2)),
                       (1, make([3, 4, 1, 2, 7, 8, 5, 6]).view(2, 2, 2)),
                       (2, make([2, 1, 4, 3, 6, 5, 8, 7]).view(2, 2, 2)),
                       ((0, 1), make([7, 8, 5, 6, 3, 4, 1, 2]).view(2, 2, 2)),
                       ((0, 1, 2), make([8, 7, 6, 5, 4, 3, 2, 1]).view(2, 2, 2)))
        for in_tensor, (dims, out_tensor) in product((data, nonctg), dims_result):
            yield in_tensor, dims, out_tensor
        # expanded
        in_t = make([1, 2, 3]).view(3, 1).expand(3, 2)
        yield in_t, 0, make([3, 3, 2, 2, 1, 1]).view(3, 2)
        yield in_t, 1, in_t
        # transposed
        in_t = make([1, 2, 3, 4, 5, 6, 7, 8]).view(2, 2, 2).transpose(0, 1)
        yield in_t, (0, 1, 2), make([8, 7, 4, 3, 6, 5, 2, 1]).view(2, 2, 2)
        # rectangular
        in_t = make([1, 2, 3, 4, 5, 6]).view(2, 3)
        yield in_t, 0, make([[4, 5, 6], [1, 2, 3]])
        yield in_t, 1, make([[3, 2, 1], [6, 5, 4]])
        # images (NCHW), contiguous and strided
        for c in (2, 3, 8):
            in_t = make_from_size((2, c, 32, 32))
            a = np.asarray(in_t.data)
            yield in_t, 3, pyad.tensor(a[:, :, :, ::-1].copy())
            yield in_t, 2, pyad.tensor(a[:, :, ::-1, :].copy())
            in_tt = in_t[..., ::2, :]
            yield in_tt, 3, pyad.tensor(np.asarray(in_tt.data)[:, :, :, ::-1].copy())
            in_tt = in_t[..., ::2]
            yield in_tt, 3, pyad.tensor(np.asarray(in_tt.data)[:, :, :, ::-1].copy())
        # no-ops: size 0, dims = (), zero elements, size 1
        in_t = make(np.zeros(0))
        yield in_t, 0, in_t
        yield in_t, (), in_t
        in_t = make_from_size((3, 2, 1))
        yield in_t, (), in_t
        in_t = make_from_size((3, 0, 2))
        for i in range(in_t.ndim):
            yield in_t, i, in_t
        in_t = make_from_size(())
        yield in_t, 0, in_t
        in_t = make_from_size((1,))
        yield in_t, 0, in_t

    for in_tensor, dims, out_tensor in gen_data():
        check_flip(in_tensor, dims, out_tensor)
    size = [2, 3, 4]
    data = make_from_size(size)
    for dims in chain(combinations(range(3), 1), combinations(range(3), 2)):
        assert list(data.flip(dims).size()) == size


@pytest.mark.parametrize("dt", _FLIP_DTYPES)
def test_flip_errors(dt):
    data = pyad.zeros(2, 2, 2, dtype=getattr(pyad, dt))
    # not the same dim more than once
    with pytest.raises(RuntimeError):
        data.flip(0, 1, 1)
    # not an empty argument list
    with pytest.raises(TypeError):
        data.flip()
    # not a dim past the last
    with pytest.raises(IndexError):
        data.flip(0, 1, 2, 3)
    with pytest.raises(IndexError):
        data.flip(3)


@pytest.mark.parametrize("dt", _FLIP_DTYPES)
def test_flip_numpy(dt):
    from itertools import combinations
    rng = np.random.default_rng(57)
    for ndim in (3, 4):
        shape = tuple(rng.integers(5, 11, ndim))
        data = rng.integers(0, 9, shape).astype(dt)
        p = pyad.tensor(data)
        for i in range(1, ndim + 1):
            for flip_dim in combinations(range(ndim), i):
                np.testing.assert_array_equal(pyad.flip(p, dims=flip_dim).data,
                                              np.flip(data, axis=flip_dim))


def _fliplr_flipud(pfn, np_fn, min_dim, max_dim, dt):
    rng = np.random.default_rng(58)
    for dim in range(min_dim, max_dim + 1):
        shape = tuple(rng.integers(5, 11, dim))
        if np.dtype(dt).kind in "fc":
            data = (rng.standard_normal(shape) + (1j * rng.standard_normal(shape)
                                                  if np.dtype(dt).kind == "c" else 0)).astype(dt)
        else:
            data = rng.integers(0, 10, shape).astype(dt)
        np.testing.assert_array_equal(pfn(pyad.tensor(data)).data, np_fn(data))


@pytest.mark.parametrize("dt", [np.int64, np.float64, np.complex128])
def test_fliplr(dt):
    _fliplr_flipud(pyad.fliplr, np.fliplr, 2, 4, dt)


@pytest.mark.parametrize("dt", [np.int64, np.float64, np.complex128])
def test_fliplr_invalid(dt):
    x = pyad.tensor(rnd(42, 59).astype(dt))
    # pyad's message starts "fliplr(): input must be >= 2-d" (the op's name first)
    with pytest.raises(RuntimeError, match="(?i)input must be >= 2-d"):
        pyad.fliplr(x)
    with pytest.raises(RuntimeError, match="(?i)input must be >= 2-d"):
        pyad.fliplr(pyad.tensor(np.array(42).astype(dt)))


@pytest.mark.parametrize("dt", [np.int64, np.float64, np.complex128])
def test_flipud(dt):
    _fliplr_flipud(pyad.flipud, np.flipud, 1, 4, dt)


@pytest.mark.parametrize("dt", [np.int64, np.float64, np.complex128])
def test_flipud_invalid(dt):
    with pytest.raises(RuntimeError, match="(?i)input must be >= 1-d"):
        pyad.flipud(pyad.tensor(np.array(42).astype(dt)))


def test_roll():
    # torch's literals (test_shape_ops.py::test_roll)
    numbers = pyad.arange(1, 9)
    single = numbers.roll(1, 0)
    np.testing.assert_array_equal(single.data, [8, 1, 2, 3, 4, 5, 6, 7])
    np.testing.assert_array_equal(numbers.roll(-2, 0).data, [3, 4, 5, 6, 7, 8, 1, 2])
    np.testing.assert_array_equal(numbers.roll(8, 0).data, numbers.data)
    np.testing.assert_array_equal(numbers.roll(-9, 0).data, [2, 3, 4, 5, 6, 7, 8, 1])
    data = numbers.view(2, 2, 2)
    np.testing.assert_array_equal(data.roll(1, 0).data.ravel(), [5, 6, 7, 8, 1, 2, 3, 4])
    d2 = numbers.view(4, 2)
    np.testing.assert_array_equal(d2.roll(1).data, [[8, 1], [2, 3], [4, 5], [6, 7]])
    np.testing.assert_array_equal(d2.roll((1, -1), (0, 1)).data, [[8, 7], [2, 1], [4, 3], [6, 5]])
    # a transposed (non-contiguous) input
    t = d2.t()
    tt = torch.arange(1, 9).view(4, 2).t()
    check(t.roll(1, 1), tt.roll(1, 1))
    check(t.roll((2, 1), (1, 0)), tt.roll((2, 1), (1, 0)))
    # empty input
    p, tz = both(np.zeros((0, 3)))
    check(p.roll(2, 1), tz.roll(2, 1))


def test_roll_errors():
    with pytest.raises(RuntimeError):
        torch.arange(4).roll((1, 2), (0,))
    with pytest.raises(RuntimeError):
        pyad.arange(4).roll((1, 2), (0,))


def test_rot90():
    data = pyad.arange(1, 5).view(2, 2)
    eq = lambda a, b: np.testing.assert_array_equal(a.data, b.data if hasattr(b, "data") else b)
    eq(data.rot90(0, [0, 1]), [[1, 2], [3, 4]])
    eq(data.rot90(1, [0, 1]), [[2, 4], [1, 3]])
    eq(data.rot90(2, [0, 1]), [[4, 3], [2, 1]])
    eq(data.rot90(3, [0, 1]), [[3, 1], [4, 2]])
    # default args k=1, dims=[0, 1]
    eq(data.rot90(), data.rot90(1, [0, 1]))
    # reversed order of dims
    eq(data.rot90(3, [0, 1]), data.rot90(1, [1, 0]))
    # k modulo 4
    eq(data.rot90(5, [0, 1]), data.rot90(1, [0, 1]))
    eq(data.rot90(3, [0, 1]), data.rot90(-1, [0, 1]))
    eq(data.rot90(-5, [0, 1]), data.rot90(-1, [0, 1]))
    # dims out of range (torch 2.13 raises IndexError here, its test's older RuntimeError
    # predates that)
    with pytest.raises(IndexError):
        data.rot90(1, [0, -3])
    with pytest.raises(IndexError):
        data.rot90(1, [0, 2])
    # more than 2-D
    data = pyad.arange(1, 9).view(2, 2, 2)
    eq(data.rot90(1, [1, 2]), np.array([2, 4, 1, 3, 6, 8, 5, 7]).reshape(2, 2, 2))
    eq(data.rot90(1, [1, -1]), data.rot90(1, [1, 2]))
    with pytest.raises(IndexError):
        data.rot90(1, [0, 3])
    for dims in ([1, 1], [0, 1, 2], [0]):
        with pytest.raises(RuntimeError):
            data.rot90(1, dims)
    # a transposed input against torch
    a = np.arange(24).reshape(2, 3, 4)
    pp, tt = both(a)
    for k in (-2, -1, 0, 1, 2, 3):
        check(pp.transpose(0, 1).rot90(k, (0, 2)), tt.transpose(0, 1).rot90(k, (0, 2)))


@pytest.mark.parametrize("dt", [np.complex64, np.complex128])
def test_complex_rot90(dt):
    rng = np.random.default_rng(60)
    shape = tuple(rng.integers(5, 11, int(rng.integers(2, 5))))
    for rot_times in range(4):
        data = (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dt)
        np.testing.assert_array_equal(pyad.rot90(pyad.tensor(data), k=rot_times, dims=[0, 1]).data,
                                      np.rot90(data, k=rot_times, axes=[0, 1]))


def test_nonzero_no_warning():
    import warnings
    t = pyad.randn(2, 2)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        pyad.nonzero(t)
        t.nonzero()
        assert len(w) == 0


def test_diagonal():
    x = pyad.randn(100, 100)
    np.testing.assert_array_equal(pyad.diagonal(x).data, pyad.diag(x).data)
    np.testing.assert_array_equal(pyad.diagonal(x, 17).data, pyad.diag(x, 17).data)
    # offsets past the edges give empty diagonals, as torch
    a = rnd((5, 5), 11)
    p, t = both(a)
    for off in (0, 1, -1, 2, -4, 5, -6):
        check(p.diagonal(off), t.diagonal(off))


def test_diag():
    x = pyad.rand(100, 100)
    res2 = pyad.tensor([])
    pyad.diag(x, out=res2)
    np.testing.assert_array_equal(pyad.diag(x).data, res2.data)


def test_diagonal_multidim():
    x = pyad.tensor(rnd((10, 11, 12, 13), 12, np.float32))
    xn = np.asarray(x.data)
    for args in ((2, 2, 3), (2,), (-2, 1, 2), (0, -2, -1)):
        result = pyad.diagonal(x, *args)
        expected = xn.diagonal(*args)
        assert result.shape == expected.shape
        np.testing.assert_array_equal(result.data, expected)
    # non-contiguous
    xp = x.permute(1, 2, 3, 0)
    result = pyad.diagonal(xp, 0, -2, -1)
    expected = np.asarray(xp.data).diagonal(0, -2, -1)
    assert result.shape == expected.shape
    np.testing.assert_array_equal(result.data, expected)
    # the gradient goes to the diagonal only
    a = rnd((10, 1, 6, 3), 12)
    px = pyad.tensor(a, requires_grad=True)
    tx = torch.tensor(a, requires_grad=True)
    px.diagonal(1, 2, 0).sum().backward()
    tx.diagonal(1, 2, 0).sum().backward()
    np.testing.assert_array_equal(px.grad.data, tx.grad.numpy())


@pytest.mark.parametrize("dt", ["uint8", "int8", "int16", "int32", "int64", "float32", "float64"])
def test_trace(dt):
    rng = np.random.default_rng(55)
    for shape in ((10, 1), (1, 10), (100, 100), (20, 100), (100, 20)):
        a = rng.uniform(0 if dt == "uint8" else -9, 9, shape).astype(dt)
        p = pyad.tensor(a)
        expected_dtype = p.sum().dtype
        expected = np.trace(a, dtype=expected_dtype)
        got = p.trace()
        assert got.dtype == expected_dtype
        np.testing.assert_allclose(got.data, expected, rtol=1.3e-6 if dt == "float32" else 1e-7)


def test_unbind():
    x = pyad.rand(2, 3, 4, 5)
    for dim in range(4):
        res = pyad.unbind(x, dim)
        res2 = x.unbind(dim)
        assert len(res) == x.size(dim) and len(res2) == x.size(dim)
        for i in range(x.size(dim)):
            np.testing.assert_array_equal(x.select(dim, i).data, res[i].data)
            np.testing.assert_array_equal(x.select(dim, i).data, res2[i].data)


def test_tolist():
    assert pyad.tensor([]).tolist() == []
    table1d = [1.0, 2.0, 3.0]
    assert pyad.tensor(table1d).tolist() == table1d
    table2d = [[1, 2], [3, 4]]
    assert pyad.tensor(table2d).tolist() == table2d
    tensor3d = pyad.tensor([[[1, 2], [3, 4]], [[5, 6], [7, 8]]])
    non_contig = tensor3d.select(1, 1)
    assert not non_contig.is_contiguous()
    assert non_contig.tolist() == [[3, 4], [7, 8]]


@pytest.mark.parametrize("dt", ["int64", "float32", "complex128"])
def test_movedim(dt):
    import random
    from itertools import permutations
    rnd_ = random.Random(53)
    for fn in (pyad.moveaxis, pyad.movedim):
        for nd in range(5):
            shape = tuple(rnd_.randint(5, 10) for _ in range(nd))
            x = np.arange(int(np.prod(shape))).reshape(shape).astype(dt)
            px = pyad.tensor(x)
            for src, dst in permutations(range(nd), 2):
                for s_, d_ in ((src, dst), (src - nd, dst), (src, dst - nd), (src - nd, dst - nd)):
                    np.testing.assert_array_equal(fn(px, s_, d_).data, np.moveaxis(x, s_, d_))
            if nd == 0:
                continue
            for src_seq in permutations(range(nd), rnd_.randint(1, nd)):
                dst_seq = tuple(rnd_.sample(range(nd), len(src_seq)))
                neg_src = tuple(v - nd if i == 0 else v for i, v in enumerate(src_seq))
                for s_, d_ in ((src_seq, dst_seq), (neg_src, dst_seq)):
                    got = fn(px, source=s_, destination=d_)
                    np.testing.assert_array_equal(got.data, np.moveaxis(x, s_, d_))
        x = np.random.default_rng(54).standard_normal((2, 3, 5, 7, 11))
        px = pyad.tensor(x)
        for s_, d_ in (((0, 1), (0, 1)), (1, 1), ((), ())):
            np.testing.assert_array_equal(fn(px, source=s_, destination=d_).data,
                                          np.moveaxis(x, s_, d_))


@pytest.mark.parametrize("dt", ["int64", "float32", "complex128"])
def test_movedim_invalid(dt):
    x = pyad.zeros(5, 6, 7, 8, dtype=getattr(pyad, dt))
    # pyad's messages start "movedim(): " and name source and destination without
    # torch's backquotes
    for fn in (pyad.movedim, pyad.moveaxis):
        with pytest.raises(IndexError, match="Dimension out of range"):
            fn(x, 5, 0)
        with pytest.raises(IndexError, match="Dimension out of range"):
            fn(x, 0, 5)
        with pytest.raises(RuntimeError, match="Invalid source or destination dims:"):
            fn(x, (1, 0), (0,))
        with pytest.raises(RuntimeError, match="repeated dim in .?source"):
            fn(x, (0, 0), (0, 1))
        with pytest.raises(RuntimeError, match="repeated dim in .?source"):
            fn(x, (0, 1, 0), (0, 1, 2))
        with pytest.raises(RuntimeError, match="destination"):
            fn(x, (0, 1), (1, 1))
        with pytest.raises(RuntimeError, match="destination"):
            fn(x, (0, 1, 2), (1, 0, 1))


def test_narrow():
    a = np.arange(12.0).reshape(3, 4)
    p, t = both(a)
    for dim, start, length in ((0, 0, 1), (0, 1, 2), (1, 3, 1), (-1, 1, 3), (1, -2, 2), (0, 3, 0)):
        check(p.narrow(dim, start, length), t.narrow(dim, start, length))
    # start as a 0-d integer tensor
    check(p.narrow(1, pyad.tensor(1), 2), t.narrow(1, torch.tensor(1), 2))
    with pytest.raises(RuntimeError):
        t.narrow(0, 2, 2)
    with pytest.raises(RuntimeError):
        p.narrow(0, 2, 2)


def _clamp_ops():
    return (pyad.clamp, pyad.Variable.clamp, pyad.Variable.clamp_, pyad.clip,
            pyad.Variable.clip, pyad.Variable.clip_)


def _clamp_baseline(dt, min_val, max_val, with_nans, seed):
    rng = np.random.default_rng(seed)
    x = (rng.random(100) * 50 - 25).astype(dt)
    if with_nans:
        x[rng.integers(0, 2, 100).astype(bool)] = nan
    return x, np.clip(x, min_val, max_val)


@pytest.mark.parametrize("dt", [np.int64, np.float32])
def test_clamp(dt):
    from itertools import product
    for op in _clamp_ops():
        for min_val, max_val in product((-10, None), (10, None)):
            if min_val is None and max_val is None:
                continue
            x, expected = _clamp_baseline(dt, min_val, max_val, False, 50)
            actual = op(pyad.tensor(x), min_val, max_val)
            np.testing.assert_array_equal(actual.data, expected)
            assert actual.dtype == dt
    # against torch: float bounds, min > max, tensor bounds broadcast
    a = rnd((4, 5), 14) * 3
    for dt2 in (np.float32, np.float64):
        p, t = both(a, dt2)
        check(p.clamp(-1, 1), t.clamp(-1, 1))
        check(p.clamp(min=0.5), t.clamp(min=0.5))
        check(p.clamp(max=-0.5), t.clamp(max=-0.5))
        check(pyad.clamp_min(p, 0.2), torch.clamp_min(t, 0.2))
        check(pyad.clamp_max(p, 0.2), torch.clamp_max(t, 0.2))
        check(p.clamp(1.0, -1.0), t.clamp(1.0, -1.0))      # min > max: all max
        lo, tlo = both(np.array([-1.0, 0.0, -2.0, 0.5, -0.1], dt2))
        hi, thi = both(np.full(5, 1.5, dt2))
        check(p.clamp(lo, hi), t.clamp(tlo, thi))
        check(pyad.clamp(p, min=lo), torch.clamp(t, min=tlo))


def test_clamp_out():
    x, expected = _clamp_baseline(np.float32, -10, 10, False, 51)
    y_out = pyad.empty_like(pyad.tensor(x))
    pyad.clamp(pyad.tensor(x), min=-10, max=10, out=y_out)
    np.testing.assert_array_equal(y_out.data, expected)


def test_clamp_propagates_nans():
    from itertools import product
    for op in _clamp_ops():
        for min_val, max_val in product((-10, None), (10, None)):
            if min_val is None and max_val is None:
                continue
            x, expected = _clamp_baseline(np.float32, min_val, max_val, True, 52)
            actual = op(pyad.tensor(x), min_val, max_val)
            np.testing.assert_array_equal(np.isnan(actual.data), np.isnan(expected))
    # NaN bounds give NaN, as torch
    a = np.array([nan, -1.0, 0.5, nan, 3.0])
    p, t = both(a)
    check(p.clamp(-1, 1), t.clamp(-1, 1))
    check(p.clamp(min=nan), t.clamp(min=nan))
    bp, bt = both(np.array([0.0, nan, 0.0, 0.0, nan]))
    check(p.clamp(min=bp), t.clamp(min=bt))
    check(p.clamp(max=bp), t.clamp(max=bt))


def test_clamp_raises_arg_errors():
    x = pyad.randn(100)
    # torch: "At least one of 'min' or 'max' must not be None"; pyad's message starts with
    # the op's name ("clamp(): at least one ...")
    error_msg = "(?i)at least one of 'min' or 'max' must not be None"
    with pytest.raises(RuntimeError, match=error_msg):
        x.clamp()
    with pytest.raises(RuntimeError, match=error_msg):
        x.clamp_()
    with pytest.raises(RuntimeError, match=error_msg):
        pyad.clamp(x)


def test_nonzero_discontiguous():
    a = np.array([[0, 1, 0, 2, 0, 3], [4, 0, 5, 0, 0, 0], [0, 0, 0, 0, 6, 0]], np.int64)
    p, t = both(a)
    check(pyad.nonzero(p[:, ::2]), torch.nonzero(t[:, ::2]))
    check(pyad.nonzero(p.t()), torch.nonzero(t.t()))
    check(pyad.nonzero(p, as_tuple=True), torch.nonzero(t, as_tuple=True))
    check(p.t().nonzero(as_tuple=True), t.t().nonzero(as_tuple=True))


def test_nonzero_edge_shapes():
    # 0-d, empty and bool inputs
    for a in (np.array(5.0), np.array(0.0), np.zeros((0, 3)),
              np.array([[True, False], [False, True]])):
        p, t = both(a)
        check(pyad.nonzero(p), torch.nonzero(t))
        check(pyad.nonzero(p, as_tuple=True), torch.nonzero(t, as_tuple=True))


def test_nonzero_astuple_out():
    t = pyad.randn(3, 3, 3)
    out = pyad.empty_like(t, dtype=pyad.int64)
    with pytest.raises(RuntimeError):
        pyad.nonzero(t, as_tuple=True, out=out)
    np.testing.assert_array_equal(pyad.nonzero(t, as_tuple=False, out=out).data,
                                  pyad.nonzero(t, out=out).data)


def test_where_scalar_valid_combination():
    # scalar operands of where promote as torch's table says
    cond = np.array([True, False, True])
    a = np.array([1.0, 2.0, 3.0], np.float32)
    pc, tc = both(cond)
    pa, ta = both(a)
    check(pyad.where(pc, pa, 0), torch.where(tc, ta, 0))
    check(pyad.where(pc, 0.5, pa), torch.where(tc, 0.5, ta))
    check(pyad.where(pc, 1, 0), torch.where(tc, 1, 0))
    check(pyad.where(pc, 1.5, 0), torch.where(tc, 1.5, 0))
    pi, ti = both(np.array([4, 5, 6], np.int32))
    check(pyad.where(pc, pi, 2), torch.where(tc, ti, 2))
    check(pyad.where(pc, pi, 2.5), torch.where(tc, ti, 2.5))


# ------------------------------------------------------------------------------------
# test_sort_and_select.py
# ------------------------------------------------------------------------------------

def _assert_is_ordered(order, x, mxx, ixx):
    """torch's assertIsOrdered: values ordered along the last dim (NaN last ascending,
    first descending) and the indices a permutation pointing at the values."""
    a, b = mxx.data[:, :-1], mxx.data[:, 1:]
    if order == "descending":
        assert ((a != a) | (a >= b)).all()
    else:
        assert ((b != b) | (a <= b)).all()
    xs, ms, ix = x.tolist(), mxx.tolist(), ixx.tolist()
    for k in range(len(xs)):
        for j in range(len(xs[k])):
            got, want = xs[k][ix[k][j]], ms[k][j]
            assert got == want or (got != got and want != want)
        assert len(set(ix[k])) == len(xs[k])


def test_sort():
    rng = np.random.default_rng(40)
    for size in (4, 2049):
        x = pyad.tensor(rng.random((4, size)).astype(np.float32))
        res1val, res1ind = pyad.sort(x)
        np.testing.assert_array_equal(pyad.argsort(x).data, res1ind.data)
        np.testing.assert_array_equal(x.argsort().data, res1ind.data)
        _assert_is_ordered("ascending", x, res1val, res1ind)
        # simple sort
        np.testing.assert_array_equal(pyad.sort(pyad.tensor((50, 40, 30, 20, 10)))[0].data,
                                      [10, 20, 30, 40, 50])
        # duplicate keys
        x = pyad.floor(pyad.tensor(rng.random((4, size)).astype(np.float32)) * 10)
        v, i = pyad.sort(x)
        _assert_is_ordered("ascending", x, v, i)
        # descending
        x = pyad.tensor(rng.random((4, size)).astype(np.float32))
        res1val, res1ind = pyad.sort(x, x.dim() - 1, True)
        np.testing.assert_array_equal(pyad.argsort(x, x.dim() - 1, True).data, res1ind.data)
        np.testing.assert_array_equal(x.argsort(x.dim() - 1, True).data, res1ind.data)
        _assert_is_ordered("descending", x, res1val, res1ind)
        np.testing.assert_array_equal(
            pyad.sort(pyad.tensor((10, 20, 30, 40, 50)), 0, True)[0].data, [50, 40, 30, 20, 10])
        # argsort with and without stable
        x = pyad.tensor([1, 10, 2, 2, 3, 7, 7, 8, 9, 9] * 3)
        np.testing.assert_array_equal(pyad.argsort(x, stable=True).data,
                                      pyad.sort(x, stable=True).indices.data)
        np.testing.assert_array_equal(pyad.argsort(x, stable=False).data,
                                      pyad.sort(x, stable=False).indices.data)
        np.testing.assert_array_equal(pyad.argsort(x).data, pyad.sort(x).indices.data)
        # NaNs
        xa = rng.random((4, size)).astype(np.float32)
        xa[1][2] = nan
        xa[3][0] = nan
        x = pyad.tensor(xa)
        v, i = pyad.sort(x)
        _assert_is_ordered("ascending", x, v, i)
        v, i = pyad.sort(x, descending=True)
        _assert_is_ordered("descending", x, v, i)
        # and the values against torch
        t = torch.tensor(xa)
        check(pyad.sort(x)[0], torch.sort(t)[0])
        check(pyad.sort(x, descending=True)[0], torch.sort(t, descending=True)[0])


def test_sort_out():
    x = pyad.tensor(np.random.default_rng(41).random((4, 5)).astype(np.float32))
    res2val = pyad.tensor([])
    res2ind = pyad.tensor([], dtype=pyad.int64)
    pyad.sort(x, out=(res2val, res2ind))
    np.testing.assert_array_equal(res2val.data, np.sort(x.data, -1))


def test_sort_stable_none():
    x = pyad.ones(10)
    y = x.sort(stable=None).values
    assert pyad.all(y == pyad.ones(10)).item()


def test_complex_unsupported_cpu():
    x = torch.tensor([3.0 + 2j, 4.0 + 3j])
    with pytest.raises(RuntimeError, match="Sort does not support complex"):
        torch.sort(input=x)
    with pytest.raises(RuntimeError, match="complex"):
        pyad.sort(pyad.tensor([3.0 + 2j, 4.0 + 3j]))


@pytest.mark.parametrize("dt", ["float32", "float64", "int64", "int32", "uint8", "bool",
                                "float16"])
def test_stable_sort(dt):
    for ncopies in (100, 1000, 10000):
        x = pyad.tensor([0, 1] * ncopies, dtype=getattr(pyad, dt))
        _, idx = x.sort(stable=True)
        np.testing.assert_array_equal(idx.data[:ncopies], np.arange(0, 2 * ncopies, 2))
        np.testing.assert_array_equal(idx.data[ncopies:], np.arange(1, 2 * ncopies, 2))


@pytest.mark.parametrize("dt", ["float32", "float64", "int64", "int16", "uint8", "bool"])
def test_stable_sort_against_numpy(dt):
    from itertools import chain, combinations
    rng = np.random.default_rng(42)
    npdt = np.dtype(dt)
    if npdt.kind == "f":
        inf_, neg_inf, nan_ = inf, -inf, nan
    elif npdt.kind == "b":
        inf_, neg_inf = True, False
        nan_ = inf_
    else:
        inf_, neg_inf = np.iinfo(npdt).max, np.iinfo(npdt).min
        nan_ = inf_

    def samples():
        for size in (1025, 10000, 100):
            yield np.array([0, 1] * size, dtype=npdt), 0
        for sizes in ((1, 10), (10, 1), (10, 10), (10, 10, 10)):
            size = min(*sizes)
            x = (rng.standard_normal(sizes) * size).astype(npdt)
            yield x, 0
            for dim in range(len(sizes)):
                idxs = [rng.integers(0, size, size // 10) for _ in range(3)]
                vals = (inf_, neg_inf, nan_)
                subsets = chain.from_iterable(combinations(list(zip(idxs, vals)), r)
                                              for r in range(1, 4))
                for subset in subsets:
                    res = x.copy()
                    for idx, val in subset:
                        sl = [slice(None)] * res.ndim
                        sl[dim] = idx
                        res[tuple(sl)] = val
                    yield res, dim

    for sample, dim in samples():
        _, idx = pyad.tensor(sample).sort(dim=dim, stable=True)
        np.testing.assert_array_equal(idx.data, np.argsort(sample, axis=dim, kind="stable"))


def test_sort_discontiguous():
    from itertools import permutations
    rng = np.random.default_rng(43)
    for shape in permutations((5, 7, 33)):
        for perm in permutations((0, 1, 2)):
            for dim in range(3):
                t = pyad.tensor(rng.standard_normal(shape).astype(np.float32)).permute(perm)
                r1 = t.sort(dim=dim)
                r2 = t.contiguous().sort(dim=dim)
                np.testing.assert_array_equal(r1.values.data, r2.values.data)
                np.testing.assert_array_equal(r1.indices.data, r2.indices.data)
                n = t.size(dim)
                ordered = r1.values.narrow(dim, 1, n - 1) >= r1.values.narrow(dim, 0, n - 1)
                assert ordered.all().item()
                assert (t.unsqueeze(-1).transpose(dim, -1) == r1.values.unsqueeze(-1)).any(
                    dim=dim).any(dim=-1).all().item()


def test_sort_1d_output_discontiguous():
    tensor = pyad.tensor(np.random.default_rng(44).standard_normal(12).astype(np.float32))[:6]
    values = pyad.empty_like(tensor)[::2]
    indices = pyad.empty(18, dtype=pyad.int64)[::3]
    pyad.sort(tensor, out=(values, indices))
    values_cont, indices_cont = tensor.sort()
    np.testing.assert_array_equal(indices.data, indices_cont.data)
    np.testing.assert_array_equal(values.data, values_cont.data)


def test_topk_1d_output_discontiguous():
    tensor = pyad.tensor(np.random.default_rng(45).standard_normal(12).astype(np.float32))
    values = pyad.empty_like(tensor)[::2]
    indices = pyad.empty(18, dtype=pyad.int64)[::3]
    pyad.topk(tensor, 6, sorted=True, out=(values, indices))
    values_cont, indices_cont = tensor.topk(6, sorted=True)
    np.testing.assert_array_equal(indices.data, indices_cont.data)
    np.testing.assert_array_equal(values.data, values_cont.data)


def test_sort_expanded_tensor():
    data = pyad.tensor(1.0).expand([1, 1, 1])
    ref = pyad.tensor([[[1.0]]])
    out = pyad.sort(data, stable=True, dim=1, descending=True)
    expected = pyad.sort(ref, stable=True, dim=1, descending=True)
    check(out, (torch.tensor([[[1.0]]]), torch.tensor([[[0]]])))
    check(out, tuple(expected))
    data = pyad.tensor(rnd((4, 1, 10), 46, np.float32)).expand([4, 8, 10])
    ref = data.contiguous()
    out = pyad.sort(data, stable=True, dim=1, descending=True)
    expected = pyad.sort(ref, stable=True, dim=1, descending=True)
    np.testing.assert_array_equal(out.values.data, expected.values.data)
    np.testing.assert_array_equal(out.indices.data, expected.indices.data)
    # the stable order of equal values is 0..7 along dim 1
    np.testing.assert_array_equal(out.indices.data, np.broadcast_to(np.arange(8)[None, :, None],
                                                                    (4, 8, 10)))


def test_msort():
    rng = np.random.default_rng(47)
    for dt in (np.float32, np.float64, np.int64, np.int16):
        for shape in ((), (0,), (20,), (1, 20), (30, 30), (10, 20, 30)):
            a = rng.uniform(-9, 9, shape).astype(dt)
            expected = a if a.ndim == 0 else np.sort(a, axis=0)
            result = pyad.msort(pyad.tensor(a))
            np.testing.assert_array_equal(result.data, expected)
            assert result.dtype == dt


def test_msort_out():
    a = pyad.tensor([[3.0, 1.0], [2.0, 4.0]])
    out = pyad.empty_like(a)
    pyad.msort(a, out=out)
    np.testing.assert_array_equal(out.data, [[2.0, 1.0], [3.0, 4.0]])


def test_topk():
    rng = np.random.default_rng(48)

    def topk_via_sort(t, k, dim, dir):
        sorted_, indices = t.sort(dim, dir)
        return sorted_.narrow(dim, 0, k), indices.narrow(dim, 0, k)

    def compare(t, k, dim, dir):
        top_val, top_ind = t.topk(k, dim, dir, True)
        sort_val, sort_ind = topk_via_sort(t, k, dim, dir)
        # values exactly equal; indices may differ among equal values, so gather
        np.testing.assert_array_equal(sort_val.data, top_val.data)
        if not (sort_ind == top_ind).all().item():
            np.testing.assert_array_equal(sort_val.data, t.gather(dim, top_ind).data)

    t = pyad.tensor(rng.random(tuple(rng.integers(1, 40, 3))).astype(np.float32))
    for _ in range(3):
        for _ in range(3):
            for transpose in (True, False):
                for dir in (True, False):
                    test_tensor = t
                    if transpose:
                        dim1, dim2 = rng.choice(3, 2, replace=False)
                        test_tensor = t.transpose(int(dim1), int(dim2))
                    dim = int(rng.integers(0, test_tensor.ndim))
                    k = int(rng.integers(1, test_tensor.size(dim) + 1))
                    compare(test_tensor, k, dim, dir)
    t = pyad.tensor(rng.standard_normal((2, 10000)).astype(np.float32))
    compare(t, 2000, 1, True)
    compare(t, 2000, 1, False)
    # and against torch, k = 0 and the default dim
    a = rnd((5, 8), 17)
    p, tt = both(a)
    check(p.topk(0), tuple(tt.topk(0)))
    check(p.topk(3, 0, False), tuple(tt.topk(3, 0, False)))


def test_topk_arguments():
    q = pyad.tensor(rnd((10, 2, 10), 49, np.float32))
    # True is not taken as dim 1
    with pytest.raises(TypeError):
        torch.tensor(q.data).topk(4, True)
    with pytest.raises(TypeError):
        q.topk(4, True)


def test_topk_k_and_dim_out_of_range():
    t = torch.zeros(3, 4)
    p = pyad.zeros(3, 4)
    with pytest.raises(RuntimeError):
        t.topk(5, 1)
    with pytest.raises(RuntimeError):
        p.topk(5, 1)
    with pytest.raises(IndexError):
        t.topk(1, 2)
    with pytest.raises(IndexError):
        p.topk(1, 2)


def test_topk_integral():
    a = np.array([[5, 1, 9, 3], [2, 8, 4, 6]], np.int64)
    for dt in (np.int64, np.int32, np.uint8):
        p, t = both(a, dt)
        check(p.topk(2, 1), tuple(t.topk(2, 1)))
        check(p.topk(1, 0, largest=False), tuple(t.topk(1, 0, largest=False)))


def test_topk_nonfinite():
    a = np.array([nan, inf, 1e4, 0.0, -nan, -1e4, -inf])
    for dt in (np.float32, np.float64):
        p, t = both(a, dt)
        vals, idx = p.topk(4)
        np.testing.assert_array_equal(vals.data, np.array([nan, nan, inf, 1e4], dt))
        np.testing.assert_array_equal(idx.data[2:], [1, 2])
        vals, idx = p.topk(4, largest=False)
        np.testing.assert_array_equal(vals.data, np.array([-inf, -1e4, 0.0, 1e4], dt))
        np.testing.assert_array_equal(idx.data, [6, 5, 3, 2])


def test_kthvalue():
    a = np.random.default_rng(18).permutation(40).reshape(5, 8).astype(np.float64)
    p, t = both(a)
    for k in (1, 3, 5):
        check(p.kthvalue(k, 0), tuple(t.kthvalue(k, 0)))
        check(p.kthvalue(k, 1, keepdim=True), tuple(t.kthvalue(k, 1, keepdim=True)))
    check(p.kthvalue(8), tuple(t.kthvalue(8)))
    # a non-contiguous input
    check(p.t().kthvalue(2, 1), tuple(t.t().kthvalue(2, 1)))
    # NaN is the largest
    p, t = both(np.array([1.0, nan, 0.5, 2.0]))
    check(p.kthvalue(4), tuple(t.kthvalue(4)))
    check(p.kthvalue(3), tuple(t.kthvalue(3)))


def test_kthvalue_scalar():
    # torch: a 0-d input gives its own value for k = 1 and dim 0/-1
    p, t = both(np.array(2.5))
    check(p.kthvalue(1), tuple(t.kthvalue(1)))
    check(p.kthvalue(1, 0), tuple(t.kthvalue(1, 0)))
    check(p.kthvalue(1, -1, True), tuple(t.kthvalue(1, -1, True)))


def test_unique():
    x = np.array([1, 2, 3, 2, 8, 5, 2, 3], np.int64)
    expected_unique = [1, 2, 3, 5, 8]
    expected_inverse = [0, 1, 2, 1, 4, 3, 1, 2]
    expected_counts = [1, 3, 2, 1, 1]
    p = pyad.tensor(x)
    u = pyad.unique(p)
    np.testing.assert_array_equal(u.data, expected_unique)
    u, inv = pyad.unique(p, return_inverse=True)
    np.testing.assert_array_equal(inv.data, expected_inverse)
    u, c = pyad.unique(p, return_counts=True)
    np.testing.assert_array_equal(c.data, expected_counts)
    u, inv, c = pyad.unique(p, sorted=True, return_inverse=True, return_counts=True)
    np.testing.assert_array_equal(u.data, expected_unique)
    np.testing.assert_array_equal(inv.data, expected_inverse)
    np.testing.assert_array_equal(c.data, expected_counts)
    assert inv.dtype == np.int64 and c.dtype == np.int64
    # a 2-D input: inverse has the input's shape
    p2 = p.view(2, 4)
    u, inv = pyad.unique(p2, return_inverse=True)
    np.testing.assert_array_equal(inv.data, np.array(expected_inverse).reshape(2, 4))
    # bool and empty inputs
    pb, tb = both(np.array([True, False, True]))
    check(pyad.unique(pb), torch.unique(tb))
    pe, te = both(np.zeros(0, np.int64))
    check(pyad.unique(pe, return_inverse=True, return_counts=True),
          torch.unique(te, return_inverse=True, return_counts=True))


@pytest.mark.parametrize("dt", ["float32", "float64", "int64", "int16", "uint8", "bool"])
def test_unique_dim(dt):
    assert not hasattr(pyad, "unique_dim")
    dtype = getattr(pyad, dt)
    is_bool = dt == "bool"
    is_float = dt.startswith("float")
    x = pyad.tensor([[[1.0, 1.0], [0.0, 1.0], [2.0, 1.0], [0.0, 1.0]],
                     [[1.0, 1.0], [0.0, 1.0], [2.0, 1.0], [0.0, 1.0]]], dtype=dtype)
    x_empty = pyad.empty(5, 0, dtype=dtype)
    x_ill_formed_empty = pyad.empty(5, 0, 0, dtype=dtype)
    x_ill_formed_empty_another = pyad.empty(5, 0, 5, dtype=dtype)

    def eq(got, want, want_dtype=None):
        want = np.asarray(want, dtype=want_dtype or np.dtype(dt))
        assert got.shape == want.shape, (got.shape, want.shape)
        np.testing.assert_array_equal(got.data, want)
        assert got.dtype == want.dtype

    u0 = [[[1.0, 1.0], [0.0, 1.0], [2.0, 1.0], [0.0, 1.0]]]
    u1 = [[[0.0, 1.0], [1.0, 1.0], [2.0, 1.0]], [[0.0, 1.0], [1.0, 1.0], [2.0, 1.0]]]
    u1_bool = [[[False, True], [True, True]], [[False, True], [True, True]]]
    u2 = [[[1.0, 1.0], [0.0, 1.0], [2.0, 1.0], [0.0, 1.0]],
          [[1.0, 1.0], [0.0, 1.0], [2.0, 1.0], [0.0, 1.0]]]
    i64 = np.int64
    # dim0
    eq(pyad.unique(x, dim=0), u0)
    u, inv = pyad.unique(x, return_inverse=True, dim=0)
    eq(u, u0), eq(inv, [0, 0], i64)
    u, c = pyad.unique(x, return_inverse=False, return_counts=True, dim=0)
    eq(u, u0), eq(c, [2], i64)
    u, inv, c = pyad.unique(x, return_inverse=True, return_counts=True, dim=0)
    eq(u, u0), eq(inv, [0, 0], i64), eq(c, [2], i64)
    # dim1
    u, inv, c = pyad.unique(x, return_inverse=True, return_counts=True, dim=1)
    if is_bool:
        eq(u, u1_bool), eq(inv, [1, 0, 1, 0], i64), eq(c, [2, 2], i64)
    else:
        eq(u, u1), eq(inv, [1, 0, 2, 0], i64), eq(c, [2, 1, 1], i64)
    eq(pyad.unique(x, dim=1), u1_bool if is_bool else u1)
    # dim2
    u, inv, c = pyad.unique(x, return_inverse=True, return_counts=True, dim=2)
    eq(u, u2), eq(inv, [0, 1], i64), eq(c, [1, 1], i64)
    # an empty tensor
    u, inv, c = pyad.unique(x_empty, return_inverse=True, return_counts=True, dim=1)
    eq(u, np.empty((5, 0))), eq(inv, [], i64), eq(c, [], i64)
    # not a well formed tensor
    with pytest.raises(RuntimeError):
        pyad.unique(x_ill_formed_empty, return_inverse=True, return_counts=True, dim=1)
    with pytest.raises(RuntimeError):
        pyad.unique(x_ill_formed_empty_another, return_inverse=True, return_counts=True, dim=2)
    # the consecutive version
    y = pyad.tensor([[0, 1], [0, 1], [0, 1], [1, 2], [1, 2], [3, 4], [0, 1], [0, 1], [3, 4],
                     [1, 2]], dtype=dtype)
    _, y_inverse, y_counts = pyad.unique_consecutive(y, return_inverse=True, return_counts=True,
                                                     dim=0)
    if is_bool:
        eq(y_inverse, [0, 0, 0, 1, 1, 1, 2, 2, 3, 3], i64), eq(y_counts, [3, 3, 2, 2], i64)
    else:
        eq(y_inverse, [0, 0, 0, 1, 1, 2, 3, 3, 4, 5], i64), eq(y_counts, [3, 2, 1, 2, 1, 1], i64)
    if is_float:
        y_nan = pyad.tensor([nan, 0, 0, nan, nan, 1], dtype=dtype)
        u, inv, c = pyad.unique_consecutive(y_nan, return_inverse=True, return_counts=True, dim=0)
        eq(u, [nan, 0, nan, nan, 1]), eq(inv, [0, 1, 1, 2, 3, 4], i64), eq(c, [1, 2, 1, 1, 1], i64)


@pytest.mark.parametrize("dt", ["float32", "float64"])
def test_unique_dim_nan(dt):
    # torch's test_unique_dim, NaN part: unique([nan, 0, 0, nan, nan, 1], dim=0) has five
    # values, each NaN its own (torch lists them as [nan, 0, nan, nan, 1] with counts
    # [1, 2, 1, 1, 1]); checked here without depending on where the NaNs are placed
    x = [nan, 0, 0, nan, nan, 1]
    u, inv, c = pyad.unique(pyad.tensor(x, dtype=getattr(pyad, dt)), return_inverse=True,
                            return_counts=True, dim=0)
    t = torch.unique(torch.tensor(x, dtype=getattr(torch, dt)), return_inverse=True,
                     return_counts=True, dim=0)
    assert u.shape == tuple(t[0].shape) == (5,)
    assert np.isnan(u.data).sum() == 3
    np.testing.assert_array_equal(np.sort(c.data), np.sort(t[2].numpy()))
    np.testing.assert_array_equal(u.data[inv.data], np.asarray(x, dt))
    assert sorted(inv.data[np.isnan(x)].tolist()) == sorted(set(inv.data[np.isnan(x)].tolist()))


def test_unique_consecutive():
    x = np.array([1, 2, 2, 2, 5, 5, 2, 2, 3], np.int64)
    p = pyad.tensor(x)
    expected_output = [1, 2, 5, 2, 3]
    expected_inverse = [0, 1, 1, 1, 2, 2, 3, 3, 4]
    expected_counts = [1, 3, 2, 2, 1]
    np.testing.assert_array_equal(pyad.unique_consecutive(p).data, expected_output)
    out, inv = pyad.unique_consecutive(p, return_inverse=True)
    np.testing.assert_array_equal(inv.data, expected_inverse)
    out, cnt = pyad.unique_consecutive(p, return_counts=True)
    np.testing.assert_array_equal(cnt.data, expected_counts)
    out, inv, cnt = p.unique_consecutive(return_inverse=True, return_counts=True)
    np.testing.assert_array_equal(out.data, expected_output)
    np.testing.assert_array_equal(inv.data, expected_inverse)
    np.testing.assert_array_equal(cnt.data, expected_counts)
    # along a dim
    x2 = np.array([[1, 1, 2, 2], [1, 1, 3, 3], [1, 1, 3, 3]], np.int64)
    p2, t2 = both(x2)
    for dim in (0, 1):
        check(pyad.unique_consecutive(p2, return_inverse=True, return_counts=True, dim=dim),
              torch.unique_consecutive(t2, return_inverse=True, return_counts=True, dim=dim))


def test_isin():
    elements = np.arange(1, 12).reshape(1, 11).astype(np.int64) * 2
    test_elements = np.array([4, 6, 8, 10, 12, 18, 22], np.int64)
    pe, te = both(elements)
    pt, tt = both(test_elements)
    check(pyad.isin(pe, pt), torch.isin(te, tt))
    check(pyad.isin(pe, pt, invert=True), torch.isin(te, tt, invert=True))
    check(pyad.isin(pe, pt, assume_unique=True), torch.isin(te, tt, assume_unique=True))
    # scalar elements / scalar test elements
    check(pyad.isin(pe, 6), torch.isin(te, 6))
    check(pyad.isin(4, pt), torch.isin(4, tt))
    # empty test elements
    check(pyad.isin(pe, pyad.tensor(np.zeros(0, np.int64))),
          torch.isin(te, torch.tensor(np.zeros(0, np.int64))))


def test_isin_different_dtypes():
    a = np.array([1, 2, 3], np.int64)
    b = np.array([2.0, 3.5], np.float32)
    pa, ta = both(a)
    pb, tb = both(b)
    check(pyad.isin(pa, pb), torch.isin(ta, tb))
    check(pyad.isin(pb, pa), torch.isin(tb, ta))


# ------------------------------------------------------------------------------------
# test_tensor_creation_ops.py
# ------------------------------------------------------------------------------------

def test_arange():
    eq = lambda a, b: np.testing.assert_array_equal(a.data, b)
    # one argument
    eq(pyad.arange(10), pyad.arange(0, 10).data)
    # negative step, equal bounds
    eq(pyad.arange(1, -1, -1), [1, 0])
    eq(pyad.arange(1, 0, -1), [1])
    eq(pyad.arange(1, 2, 1), [1])
    # float32 and float64: torch's values are start + i * step
    for dt in (pyad.float32, pyad.float64):
        res1 = pyad.arange(0.6, 0.89, 0.1, dtype=dt)
        np.testing.assert_array_equal(res1.data, np.array([0.6, 0.7, 0.8], dt))
        res1 = pyad.arange(1, 10, 0.3, dtype=dt)
        assert res1.size(0) == 30
        assert res1[0].item() == 1
        assert res1[29].item() == pytest.approx(9.7, rel=1.3e-6)
    # bool input as NumPy: arange(True) is [0], arange(False) is empty, both int64
    r, r2 = pyad.arange(True), pyad.arange(False)
    assert r[0].item() == 0 and len(r2) == 0
    assert r.dtype == np.int64 and r2.dtype == np.int64
    # exclusive end
    r = pyad.arange(0, 5)
    assert r.min().item() == 0 and r.max().item() == 4 and r.numel() == 5
    r = pyad.arange(0, 5, 2)
    assert r.min().item() == 0 and r.max().item() == 4 and r.numel() == 3
    r1 = pyad.arange(0, 5 + 1e-6)
    r2 = pyad.arange(0, 5, dtype=pyad.float32)
    r3 = pyad.arange(0, 5 - 1e-6)
    eq(r1[:-1], r2.data)
    eq(r2, r3.data)
    r1 = pyad.arange(10, -1 + 1e-6, -1)
    r2 = pyad.arange(10, -1, -1, dtype=pyad.float32)
    r3 = pyad.arange(10, -1 - 1e-6, -1)
    eq(r1, r2.data)
    eq(r2, r3[:-1].data)
    # rounding: 2 / 49 steps from -1 to 1 are 50 values
    assert pyad.arange(-1, 1, 2.0 / 49, dtype=pyad.float32).shape == (50,)
    # errors
    msg = "unsupported range"
    for args in ((0, inf), (inf,), (-5, nan), (0, -inf, -1), (-inf, 10), (nan, 10), (nan,)):
        with pytest.raises(RuntimeError, match=msg):
            pyad.arange(*args)
    with pytest.raises(RuntimeError, match="overflow"):
        pyad.arange(1.175494351e-38, 3.402823466e+38)
    # a consistent length on precision-cornered steps
    assert pyad.arange(-4.0, 4.0, 0.01, dtype=pyad.float32).shape[0] == 800
    # and against torch for a few float ranges (values start + i * step)
    check(pyad.arange(0, 1, 0.25), torch.arange(0, 1, 0.25))
    check(pyad.arange(1, 0, -0.25), torch.arange(1, 0, -0.25))
    check(pyad.arange(-4.0, 4.0, 1.5), torch.arange(-4.0, 4.0, 1.5))
    check(pyad.arange(0, 0.3, 0.1), torch.arange(0, 0.3, 0.1))
    check(pyad.arange(0.6, 0.89, 0.1, dtype=pyad.float64),
          torch.arange(0.6, 0.89, 0.1, dtype=torch.float64))
    check(pyad.arange(2, 11, 3, dtype=pyad.int32), torch.arange(2, 11, 3, dtype=torch.int32))


def test_arange_out():
    x = pyad.zeros(2, 3)
    pyad.arange(0, 4, out=x.narrow(1, 1, 2))
    np.testing.assert_array_equal(x.data, [[0, 0, 1], [0, 2, 3]])


def test_arange_step_errors():
    # a zero step and a step leading away from the end raise, as torch
    for args in ((0, 10, 0), (0, 10, -1), (10, 0, 1)):
        with pytest.raises(RuntimeError):
            torch.arange(*args)
        with pytest.raises(RuntimeError):
            pyad.arange(*args)


def test_linspace():
    check(pyad.linspace(0, 10, 5), torch.linspace(0, 10, 5), exact=False)
    check(pyad.linspace(10, 0, 5), torch.linspace(10, 0, 5), exact=False)
    check(pyad.linspace(0, 1, 1), torch.linspace(0, 1, 1))
    check(pyad.linspace(0, 1, 0), torch.linspace(0, 1, 0))
    check(pyad.linspace(-1, 1, 21, dtype=pyad.float64),
          torch.linspace(-1, 1, 21, dtype=torch.float64),
          exact=False)
    # integer dtypes: the float steps truncated
    check(pyad.linspace(0, 10, 4, dtype=pyad.int64), torch.linspace(0, 10, 4, dtype=torch.int64))
    check(pyad.linspace(2, 0, 3, dtype=pyad.int64), torch.linspace(2, 0, 3, dtype=torch.int64))
    with pytest.raises(RuntimeError):
        torch.linspace(0, 1, -1)
    with pytest.raises(RuntimeError):
        pyad.linspace(0, 1, -1)


def test_linspace_special_steps():
    # torch's test: the end points are exact and the steps symmetric
    for steps in (1, 2, 3, 5, 10, 11):
        p = pyad.linspace(-3.0, 5.0, steps, dtype=pyad.float64)
        t = torch.linspace(-3.0, 5.0, steps, dtype=torch.float64)
        check(p, t, exact=False)
        assert p.data[0] == -3.0
        if steps > 1:
            assert p.data[-1] == 5.0


def test_logspace_base2():
    check(pyad.logspace(1, 4, 4, base=2), torch.logspace(1, 4, 4, base=2), exact=False)
    check(pyad.logspace(0, 10, 11, base=2, dtype=pyad.float64),
          torch.logspace(0, 10, 11, base=2, dtype=torch.float64), exact=False)
    check(pyad.logspace(0, 1, 1), torch.logspace(0, 1, 1), exact=False)


def test_logspace_special_steps():
    for steps in (0, 1, 2, 5):
        check(pyad.logspace(-2, 2, steps, dtype=pyad.float64),
              torch.logspace(-2, 2, steps, dtype=torch.float64), exact=False)
    check(pyad.logspace(0, 3, 4, dtype=pyad.int64), torch.logspace(0, 3, 4, dtype=torch.int64))


def test_eye():
    from itertools import product
    for dt in ("float16", "float32", "float64", "uint8", "int8", "int16", "int32", "int64",
               "bool", "complex64", "complex128"):
        for n, m in product((3, 5, 7), repeat=2):
            res1 = pyad.eye(n, m, dtype=getattr(pyad, dt))
            naive_eye = pyad.zeros(n, m, dtype=getattr(pyad, dt))
            naive_eye.diagonal(dim1=-2, dim2=-1).fill_(1)
            np.testing.assert_array_equal(naive_eye.data, res1.data)
            assert res1.dtype == np.dtype(dt)
    # default dtype, one argument, zero sizes, against torch
    for args in ((3,), (2, 4), (4, 2), (0, 3), (1, 1), (0,)):
        check(pyad.eye(*args), torch.eye(*args))
    for args in ((-1,), (3, -2)):
        with pytest.raises(RuntimeError, match="must be greater or equal to 0"):
            torch.eye(*args)
        with pytest.raises(RuntimeError, match="must be greater or equal to 0"):
            pyad.eye(*args)


def test_eye_out():
    res2 = pyad.empty(0)
    pyad.eye(3, 4, out=res2)
    np.testing.assert_array_equal(res2.data, np.eye(3, 4))


@pytest.mark.parametrize("dt", [np.float32, np.float64, np.complex64, np.complex128])
def test_linspace_vs_numpy(dt):
    start = -0.0316082797944545745849609375 + (0.8888888888j if np.dtype(dt).kind == "c" else 0)
    end = .0315315723419189453125 + (0.444444444444j if np.dtype(dt).kind == "c" else 0)
    # torch's precisionOverride for this test: 1e-8 (float), 1e-10 (double)
    atol = 1e-8 if dt in (np.float32, np.complex64) else 1e-10
    for steps in (1, 2, 3, 5, 11, 256, 257, 2 ** 16):
        t = pyad.linspace(start, end, steps, dtype=dt)
        a = np.linspace(start, end, steps, dtype=dt)
        assert t.dtype == dt
        np.testing.assert_allclose(t.data, a, rtol=0, atol=atol)
        assert t[0].item() == a[0]
        assert t[steps - 1].item() == a[steps - 1]


@pytest.mark.parametrize("dt", [np.float32, np.float64])
def test_logspace_vs_numpy(dt):
    start = -0.0316082797944545745849609375
    end = .0315315723419189453125
    atol = 1e-6 if dt == np.float32 else 1e-10
    for steps in (1, 2, 3, 5, 11, 256, 257, 2 ** 16):
        t = pyad.logspace(start, end, steps, dtype=dt)
        a = np.logspace(start, end, steps, dtype=dt)
        np.testing.assert_allclose(t.data, a, rtol=0, atol=atol)
        np.testing.assert_allclose(t[0].item(), a[0], rtol=0, atol=atol)
        np.testing.assert_allclose(t[steps - 1].item(), a[steps - 1], rtol=0, atol=atol)


def test_tensor_factories_empty():
    for shape in ((5, 0, 1), (0,), (0, 0, 1, 0, 2, 0, 0)):
        for dt in ("float16", "float32", "float64", "uint8", "int8", "int16", "int32", "int64",
                   "bool", "complex64", "complex128"):
            dtype = getattr(pyad, dt)
            z = pyad.zeros(shape, dtype=dtype)
            assert z.shape == shape
            assert pyad.zeros_like(z).shape == shape
            assert pyad.full(shape, 3, dtype=dtype).shape == shape
            assert pyad.full_like(z, 3).shape == shape
            assert pyad.ones(shape, dtype=dtype).shape == shape
            assert pyad.ones_like(z).shape == shape
            assert pyad.empty(shape, dtype=dtype).shape == shape
            assert pyad.empty_like(z).shape == shape
            if dt == "bool":
                assert pyad.randint(2, shape, dtype=dtype).shape == shape
                assert pyad.randint_like(z, 2).shape == shape
            elif dt.startswith("complex"):
                with pytest.raises(RuntimeError):
                    pyad.randint(6, shape, dtype=dtype)
            else:
                assert pyad.randint(6, shape, dtype=dtype).shape == shape
                assert pyad.randint_like(z, 6).shape == shape
            if dt not in ("float16", "float32", "float64", "complex64", "complex128"):
                with pytest.raises(RuntimeError):
                    pyad.rand(shape, dtype=dtype)
            if dt in ("float32", "float64", "complex64", "complex128"):
                assert pyad.randn(shape, dtype=dtype).shape == shape
                assert pyad.randn_like(z).shape == shape
    assert pyad.arange(0).shape == (0,)
    assert pyad.eye(0).shape == (0, 0)
    assert pyad.eye(0, 0).shape == (0, 0)
    assert pyad.eye(5, 0).shape == (5, 0)
    assert pyad.eye(0, 5).shape == (0, 5)
    assert pyad.linspace(1, 1, 0).shape == (0,)
    assert pyad.logspace(1, 1, 0).shape == (0,)
    assert pyad.randperm(0).shape == (0,)


def test_tril_and_triu_indices():
    for row, col, off in ((3, 3, 0), (4, 3, 1), (3, 5, -1), (1, 1, 0), (0, 3, 0), (3, 0, 0),
                          (5, 5, 10), (5, 5, -10), (4, 6, 2)):
        check(pyad.tril_indices(row, col, off), torch.tril_indices(row, col, off))
        check(pyad.triu_indices(row, col, off), torch.triu_indices(row, col, off))
    check(pyad.tril_indices(3, 3, dtype=pyad.int32), torch.tril_indices(3, 3, dtype=torch.int32))


def test_cat_empty_legacy():
    # torch's legacy behaviour: a 1-D empty tensor is skipped by cat, whatever the dim
    for dt in (np.float32, np.float64):
        x = np.random.default_rng(19).standard_normal((4, 3, 32, 32)).astype(dt)
        empty = np.zeros(0, dt)
        p, t = both(x)
        pe, te = both(empty)
        res1 = pyad.cat([p, pe], dim=1)
        res2 = pyad.cat([pe, p], dim=1)
        np.testing.assert_array_equal(res1.data, res2.data)
        check(res1, torch.cat([t, te], 1))
        res1 = pyad.cat([pe, pe], dim=1)
        check(res1, torch.cat([te, te], 1))
        np.testing.assert_array_equal(res1.data, empty)


def test_cat_all_dtypes_and_devices():
    for dt in ("float16", "float32", "float64", "uint8", "int8", "int16", "int32", "int64",
               "bool", "complex64", "complex128"):
        x = pyad.tensor([[1, 2], [3, 4]], dtype=getattr(pyad, dt))
        expected1 = np.array([[1, 2], [3, 4], [1, 2], [3, 4]], dtype=dt)
        r = pyad.cat((x, x), 0)
        np.testing.assert_array_equal(r.data, expected1)
        assert r.dtype == np.dtype(dt)
        expected2 = np.array([[1, 2, 1, 2], [3, 4, 3, 4]], dtype=dt)
        np.testing.assert_array_equal(pyad.cat((x, x), 1).data, expected2)


def test_cat():
    rng = np.random.default_rng(61)
    size = 10
    for dim in range(-3, 3):
        pos_dim = dim if dim >= 0 else 3 + dim
        x = pyad.tensor(rng.random((13, size, size))).transpose(0, pos_dim)
        y = pyad.tensor(rng.random((17, size, size))).transpose(0, pos_dim)
        z = pyad.tensor(rng.random((19, size, size))).transpose(0, pos_dim)
        res1 = pyad.cat((x, y, z), dim)
        np.testing.assert_array_equal(res1.narrow(pos_dim, 0, 13).data, x.data)
        np.testing.assert_array_equal(res1.narrow(pos_dim, 13, 17).data, y.data)
        np.testing.assert_array_equal(res1.narrow(pos_dim, 30, 19).data, z.data)
    x = pyad.tensor(rng.standard_normal((20, size, size)))
    np.testing.assert_array_equal(pyad.cat(pyad.split(x, 7)).data, x.data)
    np.testing.assert_array_equal(pyad.cat(pyad.chunk(x, 7)).data, x.data)
    y = pyad.tensor(rng.standard_normal((1, size, size)))
    assert pyad.cat([x, y]).size() == (21, size, size)


def test_cat_mem_overlap():
    x = pyad.rand(1, 3).expand(6, 3)
    y = pyad.rand(3, 3)
    with pytest.raises(RuntimeError, match="unsupported operation"):
        pyad.cat([y, y], out=x)


def test_cat_out_fast_path_dim0_dim1():
    y = pyad.tensor(rnd((4, 6), 62))
    w = y.view(-1).clone()
    a = pyad.cat([w[:2], w[4:6]])
    b = pyad.cat([w[:2], w[4:6]], out=w[6:10])
    np.testing.assert_array_equal(a.data, b.data)
    np.testing.assert_array_equal(a.data, w[6:10].data)
    np.testing.assert_array_equal(w[:6].data, y.view(-1)[:6].data)


def test_cat_empty():
    x = rnd((4, 3, 32, 32), 20, np.float32)
    empty = np.zeros((4, 0, 32, 32), np.float32)
    p, t = both(x)
    pe, te = both(empty)
    check(pyad.cat([p, pe], 1), torch.cat([t, te], 1))
    check(pyad.cat([pe, p], 1), torch.cat([te, t], 1))
    check(pyad.cat([pe, pe], 1), torch.cat([te, te], 1))
    # an empty tensor of another shape cannot be concatenated along dim 1
    bad = np.zeros((4, 0), np.float32)
    with pytest.raises(RuntimeError):
        torch.cat([t, torch.tensor(bad)], 1)
    with pytest.raises(RuntimeError):
        pyad.cat([p, pyad.tensor(bad)], 1)


def test_cat_bad_input_sizes():
    p = pyad.zeros(2, 3)
    t = torch.zeros(2, 3)
    with pytest.raises(RuntimeError):
        torch.cat([t, torch.zeros(3, 3)], 1)
    with pytest.raises(RuntimeError):
        pyad.cat([p, pyad.zeros(3, 3)], 1)
    with pytest.raises(RuntimeError):
        torch.cat([t, torch.zeros(2, 3, 1)], 0)
    with pytest.raises(RuntimeError):
        pyad.cat([p, pyad.zeros(2, 3, 1)], 0)
    with pytest.raises(IndexError):
        torch.cat([t, t], 2)
    with pytest.raises(IndexError):
        pyad.cat([p, p], 2)


def test_cat_scalars():
    # 0-d inputs cannot be concatenated (torch: "zero-dimensional tensor ... cannot be
    # concatenated")
    with pytest.raises(RuntimeError):
        torch.cat([torch.tensor(1.0), torch.tensor(2.0)])
    with pytest.raises(RuntimeError):
        pyad.cat([pyad.tensor(1.0), pyad.tensor(2.0)])


def test_concat_empty_list_error():
    # torch: ValueError "expected a non-empty list of Tensors", for cat and concat
    for fn in (torch.cat, torch.concat):
        with pytest.raises(ValueError, match="non-empty"):
            fn([])
    for fn in (pyad.cat, pyad.concat):
        with pytest.raises(ValueError, match="non-empty"):
            fn([])


def test_cat_fast_path_dim0_dim1_without_out():
    # the parts of torch's test_cat_out_fast_path_dim0_dim1 that need no out=: strided
    # and tensor_split inputs, and the gradients of cat along dims 0 and 1
    y = pyad.tensor(rnd((4, 6), 62))
    w = y.view(-1).clone()
    a = pyad.cat([w[:2], w[4:6]])
    np.testing.assert_array_equal(pyad.cat([w[:2].contiguous(), w[4:6].contiguous()]).data, a.data)
    np.testing.assert_array_equal(a.data, np.concatenate([w.data[:2], w.data[4:6]]))
    w = y.clone()
    w_slices = pyad.tensor_split(w, (2, 4), dim=1)
    b = pyad.cat([w_slices[0], w_slices[1]], dim=1)
    expected_b = pyad.index_select(w, 1, pyad.tensor([0, 1, 2, 3]))
    np.testing.assert_array_equal(b.data, expected_b.data)
    b_fast = pyad.cat([w_slices[0].contiguous(), w_slices[1].contiguous()], dim=1)
    np.testing.assert_array_equal(b_fast.data, expected_b.data)
    rng = np.random.default_rng(63)
    for dt in (np.float32, np.float64):
        a = pyad.tensor(rng.standard_normal((4, 3)).astype(dt), requires_grad=True)
        b = pyad.tensor(rng.standard_normal((2, 3)).astype(dt), requires_grad=True)
        c = pyad.tensor(rng.standard_normal((5, 3)).astype(dt), requires_grad=True)
        d = pyad.tensor(rng.standard_normal((5, 2)).astype(dt), requires_grad=True)
        pyad.cat([a.contiguous(), b.contiguous()], dim=0).sum().backward()
        np.testing.assert_array_equal(a.grad.data, np.ones((4, 3), dt))
        np.testing.assert_array_equal(b.grad.data, np.ones((2, 3), dt))
        pyad.cat([c.contiguous(), d.contiguous()], dim=1).sum().backward()
        np.testing.assert_array_equal(c.grad.data, np.ones((5, 3), dt))
        np.testing.assert_array_equal(d.grad.data, np.ones((5, 2), dt))


def test_cat_out():
    x = pyad.zeros(0)
    y = pyad.ones(2, 3)
    pyad.cat([y, y], out=x)
    np.testing.assert_array_equal(x.data, np.ones((4, 3)))


def test_stack_edge_cases():
    a, b = rnd((2, 3), 23), rnd((2, 3), 24)
    pa, ta = both(a)
    pb, tb = both(b)
    for dim in (0, 1, 2, -1, -3):
        check(pyad.stack([pa, pb], dim), torch.stack([ta, tb], dim))
    # 0-d inputs stack into a 1-D result; empty inputs keep their zero size
    p0, t0 = both(np.array(1.5))
    check(pyad.stack([p0, p0, p0]), torch.stack([t0, t0, t0]))
    pe, te = both(np.zeros((0, 2)))
    check(pyad.stack([pe, pe], 1), torch.stack([te, te], 1))
    with pytest.raises(RuntimeError):
        torch.stack([ta, torch.zeros(3, 2)])
    with pytest.raises(RuntimeError):
        pyad.stack([pa, pyad.zeros(3, 2)])
    with pytest.raises(IndexError):
        torch.stack([ta, tb], 3)
    with pytest.raises(IndexError):
        pyad.stack([pa, pb], 3)


def test_tensor_factory():
    # nested lists, bools and complex numbers
    for data in ([[1, 2], [3, 4]], [[1.0, 2], [3, 4]], [[True, False], [False, True]],
                 [1 + 2j, 3], [[[]]], [], [[1, 2.5], [True, 4]], 3, 2.5, True, 1j,
                 [[1, True]], [[1.0, 1j]]):
        check(pyad.tensor(data), torch.tensor(data))
    # ragged lists are refused
    for ragged, msg in (([[1, 2], [3]], r"length 2 at dim 1 \(got 1\)"),
                        ([[[1], [2, 3]]], r"length 1 at dim 2 \(got 2\)")):
        with pytest.raises(ValueError, match=msg):
            torch.tensor(ragged)
        with pytest.raises(ValueError, match=msg):
            pyad.tensor(ragged)


def test_tensor_ctor_scalar():
    x = pyad.tensor(5.0)
    assert x.shape == () and x.dtype == np.float32 and x.item() == 5.0
    x = pyad.tensor(5)
    assert x.shape == () and x.dtype == np.int64
    x = pyad.tensor(True)
    assert x.shape == () and x.dtype == np.bool_
    # a 0-d tensor inside a list counts as its value
    check(pyad.tensor([pyad.tensor(1.5), 2.0]), torch.tensor([torch.tensor(1.5), 2.0]))


def test_tensor_factory_copy_var():
    import warnings

    def check_copy(copy, is_leaf, requires_grad, shares=False):
        assert copy.is_leaf == is_leaf
        assert copy.requires_grad == requires_grad
        assert np.shares_memory(copy.data, source.data) == shares

    source = pyad.randn(5, 5, dtype=pyad.float64, requires_grad=True)
    # tensor() copies and drops the history, with torch's warning
    with pytest.warns(UserWarning, match="detach"):
        check_copy(pyad.tensor(source), True, False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_copy(pyad.tensor(source, requires_grad=False), True, False)
        check_copy(pyad.tensor(source, requires_grad=True), True, True)
        # new_tensor() likewise
        copy = pyad.randn(1)
        check_copy(copy.new_tensor(source), True, False)
        check_copy(copy.new_tensor(source, requires_grad=False), True, False)
        check_copy(copy.new_tensor(source, requires_grad=True), True, True)
    # as_tensor(): the source itself, or a recorded conversion that keeps the graph
    assert pyad.as_tensor(source) is source
    check_copy(pyad.as_tensor(source), source.is_leaf, source.requires_grad, shares=True)
    converted = pyad.as_tensor(source, dtype=pyad.float32)
    check_copy(converted, False, True)
    converted.sum().backward()
    np.testing.assert_array_equal(source.grad.data, np.ones((5, 5)))


def test_new_tensor_copy_warns():
    # torch's new_tensor warns as tensor() does when given a tensor
    source = pyad.randn(2, requires_grad=True)
    with pytest.warns(UserWarning, match="detach"):
        pyad.randn(1).new_tensor(source)


def test_full_dtype_inference():
    for fill in (1, 1.5, True, 1 + 2j):
        check(pyad.full((2, 2), fill), torch.full((2, 2), fill))
        if not isinstance(fill, complex):
            check(pyad.full((2,), fill, dtype=pyad.float64),
                  torch.full((2,), fill, dtype=torch.float64))
    # a complex fill into a real dtype is refused
    with pytest.raises(RuntimeError):
        torch.full((2,), 1 + 2j, dtype=torch.float64)
    with pytest.raises(RuntimeError, match="without overflow"):
        pyad.full((2,), 1 + 2j, dtype=pyad.float64)
    check(pyad.full((2,), 1 + 0j, dtype=pyad.float64),
          torch.full((2,), 1 + 0j, dtype=torch.float64))
    check(pyad.full((2,), 1 + 2j, dtype=pyad.bool), torch.full((2,), 1 + 2j, dtype=torch.bool))
    check(pyad.zeros(2, 3, dtype=pyad.int32), torch.zeros(2, 3, dtype=torch.int32))
    check(pyad.ones((0, 3), dtype=pyad.bool), torch.ones((0, 3), dtype=torch.bool))
    check(pyad.zeros(()), torch.zeros(()))
    p, t = both(np.array([1, 2], np.int32))
    check(pyad.full_like(p, 2.5), torch.full_like(t, 2.5))
    check(pyad.ones_like(p, dtype=pyad.float32), torch.ones_like(t, dtype=torch.float32))
