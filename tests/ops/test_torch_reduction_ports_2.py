"""A second batch of ports of PyTorch's reduction, sort/select and tensor-creation tests
(CPU) to pyad, covering what the earlier batches (tests/ops/test_torch_op_ports*.py,
tests/ops/test_torch_sweep_reductions.py) left out:

- ``test/test_tensor_creation_ops.py``: all of TestAsArray (aliasing and copy semantics
  of ``asarray`` from a Variable, a NumPy array, a DLPack capsule, a buffer and a list;
  the refused aliases; autograd history; consistency with ``as_tensor``), all of
  TestBufferProtocol (``frombuffer`` with count/offset, its errors, shared memory,
  read-only buffers), and from TestRandomTensorCreation ``randperm`` (dtype limits),
  ``randint``/``randint`` dtype inference, ``rand``/``randn`` reproducibility with
  ``out=``, ``normal``'s std errors, ``uniform_``'s range errors and ``random_`` with
  negative bounds;
- ``test/test_reductions.py``: mode on large and bool inputs and its dtype errors,
  logcumsumexp on complex inputs with infinities, reductions split over several
  outputs, sums of non-contiguous inputs, min/max/amin/amax/aminmax NaN propagation,
  argmax/argmin along a long axis, the small reference inputs of the ReductionOpInfos,
  reductions vectorised along the output or an input corner, var/std with
  ``correction=`` against NumPy, nanmedian/nanquantile/nanmean/nansum with NaN, quantile
  interpolation modes, logsumexp of -inf, count_nonzero, all/any of every dtype;
- ``test/test_sort_and_select.py``: searchsorted/bucketize with ``right=``, ``side=``,
  ``sorter=``, ``out_int32`` and their errors, sort with NaN (stable, descending),
  argsort(stable=True), msort, topk/kthvalue errors, unique with return_inverse and
  return_counts, unique_consecutive with dim, isin with ``invert=`` and mixed dtypes.

As in the earlier batches the tests keep torch's names (the torch test each mirrors is
named in its docstring) and the meaning of its assertions, without torch's device/dtype
decorators.  Every expected value is torch 2.13 run on the same inputs (``agree``
compares shape, dtype and values, or the exception class when torch raises) or NumPy.

Left out: CUDA, meta and multi-device cases (test_*_mult_devices,
test_randperm_device_compatibility, test_cat_stack_cross_devices: pyad's CPU run has
one device), bfloat16/complex32 (NumPy has neither), the huge inputs torch uses only to
reach another kernel path (test_sort_large, 2**24-element randperm: the same checks run
on small sizes), and ``torch.Generator`` device mismatches.
"""
import math
import warnings

import numpy as np
import pytest

import pyad

torch = pytest.importorskip("torch")

from _ops_helpers import check_result, dname, rnd, rint, tnp  # noqa: E402

inf, nan = math.inf, math.nan


def agree(fn, *arrays, exact=True):
    """``fn(lib, *inputs)`` with pyad and torch on copies of the same arrays: the same
    exception class when torch raises, otherwise the same shapes, dtypes and values."""
    ps = [pyad.tensor(np.array(a, copy=True)) for a in arrays]
    ts = [torch.tensor(np.array(a, copy=True)) for a in arrays]
    try:
        t = fn(torch, *ts)
    except Exception as exc:  # noqa: BLE001 - the class is what is compared
        with pytest.raises(type(exc)):
            fn(pyad, *ps)
        return None, exc
    p = fn(pyad, *ps)
    check_result(_plain(p), _plain(t), exact)
    return p, t


def _plain(r):
    if isinstance(r, tuple):
        return tuple(_plain(x) for x in r)
    return r


def ptr(x):
    """The address of a Variable's, tensor's or array's first element."""
    if isinstance(x, torch.Tensor):
        return x.data_ptr()
    if isinstance(x, pyad.Variable):
        return x.data.__array_interface__["data"][0]
    return np.asarray(x).__array_interface__["data"][0]


DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32",
          "float64", "complex64", "complex128"]


def sample(dtype, shape=(5, 5), seed=0):
    if dtype == "bool":
        return rint(shape, 0, 2, seed).astype(bool)
    if dtype.startswith(("int", "uint")):
        return rint(shape, 0, 9, seed, dtype)
    if dtype.startswith("complex"):
        return (rnd(shape, seed) + 1j * rnd(shape, seed + 1)).astype(dtype)
    return rnd(shape, seed).astype(dtype)


# ---------------------------------------------------------------------------------------
# TestAsArray
# ---------------------------------------------------------------------------------------

def _asarray_case(original_np, cvt, is_alias, **kwargs):
    """TestAsArray._check: the result aliases the source iff torch's does, has the
    requested dtype and values, and requires grad only when asked."""
    t_orig = torch.from_numpy(original_np.copy())
    t_res = torch.asarray(cvt("torch", t_orig), **kwargs)
    assert (t_res.data_ptr() == t_orig.data_ptr()) == is_alias
    p_src = np.array(original_np, copy=True)
    p_orig = pyad.from_numpy(p_src) if hasattr(pyad, "from_numpy") else pyad.tensor(p_src)
    p_kwargs = dict(kwargs)
    if "dtype" in p_kwargs:
        p_kwargs["dtype"] = getattr(pyad, dname(p_kwargs["dtype"]))
    p_res = pyad.asarray(cvt("pyad", p_orig), **p_kwargs)
    assert isinstance(p_res, pyad.Variable)
    assert (ptr(p_res) == ptr(p_orig)) == is_alias
    check_result(p_res, t_res)
    assert p_res.requires_grad == t_res.requires_grad == kwargs.get("requires_grad", False)


def _identity(lib, t):
    return t


def _to_numpy(lib, t):
    return t.numpy() if lib == "torch" else t.data


def _to_memview(lib, t):
    return memoryview(_to_numpy(lib, t))


def _alias_kwargs(dtype, only_with_dtype=False):
    tdt = getattr(torch, dtype)
    grad = dtype.startswith(("float", "complex"))
    out = [] if only_with_dtype else [dict(copy=False), dict(device="cpu"),
                                      dict(device="cpu", copy=False)]
    return out + [dict(dtype=tdt), dict(dtype=tdt, copy=False),
                  dict(requires_grad=False, dtype=tdt), dict(requires_grad=grad, dtype=tdt),
                  dict(device="cpu", dtype=tdt), dict(device="cpu", dtype=tdt, copy=False)]


@pytest.mark.parametrize("dtype", ["bool", "uint8", "int64", "float16", "float32",
                                   "complex128"])
def test_alias_from_tensor(dtype):
    """TestAsArray.test_alias_from_tensor: asarray of a Variable shares its memory."""
    for kw in _alias_kwargs(dtype):
        _asarray_case(sample(dtype), _identity, True, **kw)


@pytest.mark.parametrize("dtype", ["bool", "int16", "float64", "complex64"])
def test_alias_from_numpy(dtype):
    """TestAsArray.test_alias_from_numpy: asarray of an ndarray shares its memory."""
    for kw in _alias_kwargs(dtype):
        _asarray_case(sample(dtype), _to_numpy, True, **kw)


@pytest.mark.parametrize("dtype", ["int32", "float32", "float64"])
def test_alias_from_dlpack(dtype):
    """TestAsArray.test_alias_from_dlpack: an object with ``__dlpack__`` (here a torch
    tensor handed to pyad, a pyad Variable handed to torch) is aliased, not copied."""
    src = sample(dtype)
    t = torch.from_numpy(src.copy())
    p = pyad.asarray(t)
    assert ptr(p) == t.data_ptr()
    check_result(p, t)
    v = pyad.tensor(src.copy())
    t2 = torch.asarray(v.data)
    assert t2.data_ptr() == ptr(v)


@pytest.mark.parametrize("dtype", ["uint8", "int64", "float32", "complex128"])
def test_alias_from_buffer(dtype):
    """TestAsArray.test_alias_from_buffer: a memoryview with an explicit dtype aliases."""
    for kw in _alias_kwargs(dtype, only_with_dtype=True):
        _asarray_case(sample(dtype, (5,)), _to_memview, True, **kw)


def _copy_kwargs(dtype, only_with_dtype=False):
    tdt = getattr(torch, dtype)
    grad = dtype.startswith(("float", "complex"))
    out = [] if only_with_dtype else [dict(copy=True), dict(device="cpu", copy=True)]
    out += [dict(requires_grad=False, dtype=tdt, copy=True),
            dict(requires_grad=grad, dtype=tdt, copy=True), dict(dtype=tdt, copy=True),
            dict(device="cpu", dtype=tdt, copy=True)]
    return out


def _other_dtypes(dtype):
    return [getattr(torch, d) for d in DTYPES if d != dtype]


@pytest.mark.parametrize("dtype", ["bool", "int8", "float32", "complex64"])
def test_copy_tensor(dtype):
    """TestAsArray.test_copy_tensor: copy=True (or a dtype change) gives new memory."""
    for kw in _copy_kwargs(dtype):
        _asarray_case(sample(dtype), _identity, False, **kw)
    for other in _other_dtypes(dtype):
        _asarray_case(sample(dtype), _identity, False, dtype=other)
        _asarray_case(sample(dtype), _identity, False, dtype=other, copy=True)


@pytest.mark.parametrize("dtype", ["uint8", "int64", "float64"])
def test_copy_from_numpy(dtype):
    """TestAsArray.test_copy_from_numpy."""
    for kw in _copy_kwargs(dtype):
        _asarray_case(sample(dtype), _to_numpy, False, **kw)
    for other in _other_dtypes(dtype):
        _asarray_case(sample(dtype), _to_numpy, False, dtype=other)


@pytest.mark.parametrize("dtype", ["int16", "float32"])
def test_copy_from_dlpack(dtype):
    """TestAsArray.test_copy_from_dlpack: copy=True from a DLPack producer copies."""
    src = sample(dtype)
    t = torch.from_numpy(src.copy())
    p = pyad.asarray(t, copy=True)
    assert ptr(p) != t.data_ptr()
    check_result(p, t)
    p64 = pyad.asarray(t, dtype=pyad.float64)
    check_result(p64, torch.asarray(t, dtype=torch.float64))


@pytest.mark.parametrize("dtype", ["int32", "float64"])
def test_copy_from_buffer(dtype):
    """TestAsArray.test_copy_from_buffer."""
    for kw in _copy_kwargs(dtype, only_with_dtype=True):
        _asarray_case(sample(dtype, (5,)), _to_memview, False, **kw)


@pytest.mark.parametrize("dtype", ["bool", "int64", "float32", "complex128"])
def test_copy_list(dtype):
    """TestAsArray.test_copy_list: a nested list becomes a new Variable of that dtype."""
    data = sample(dtype).tolist()
    tdt, pdt = getattr(torch, dtype), getattr(pyad, dtype)
    grad = dtype.startswith(("float", "complex"))
    for kw in (dict(), dict(requires_grad=False), dict(requires_grad=grad), dict(copy=True)):
        t = torch.asarray(data, device="cpu", dtype=tdt, **kw)
        p = pyad.asarray(data, device="cpu", dtype=pdt, **kw)
        check_result(p, t)
        assert p.requires_grad == t.requires_grad


def test_unsupported_alias():
    """TestAsArray.test_unsupported_alias: copy=False that cannot alias is ValueError."""
    src = sample("float32")
    t, p = torch.from_numpy(src.copy()), pyad.tensor(src.copy())
    with pytest.raises(ValueError):
        torch.asarray(t, dtype=torch.float64, copy=False)
    with pytest.raises(ValueError, match="dtype"):
        pyad.asarray(p, dtype=pyad.float64, copy=False)
    with pytest.raises(ValueError):
        torch.asarray(t.tolist(), copy=False)
    with pytest.raises(ValueError, match="sequence"):
        pyad.asarray(p.tolist(), copy=False)


@pytest.mark.parametrize("dtype", ["float32", "complex64"])
def test_retain_autograd_history(dtype):
    """TestAsArray.test_retain_autograd_history: asarray of a non-leaf keeps or drops
    its grad_fn as torch 2.13 does (torch's own test predates the change: today an
    aliasing asarray keeps the history unless requires_grad=False is given)."""
    src = sample(dtype)
    tc = torch.tensor(src, requires_grad=True).clone()
    pc = pyad.tensor(src, requires_grad=True).clone()
    for kw in (dict(), dict(requires_grad=True), dict(copy=True),
               dict(requires_grad=True, copy=True), dict(requires_grad=False),
               dict(requires_grad=False, copy=True)):
        t, p = torch.asarray(tc, **kw), pyad.asarray(pc, **kw)
        assert p.requires_grad == t.requires_grad, kw
        assert (p.grad_fn is None) == (t.grad_fn is None), kw
        assert p.is_leaf == t.is_leaf, kw


@pytest.mark.parametrize("example", [
    True, 42, 1.0, [True, True, False], [1, 2, 3, 42], [0.0, 1.0, 2.0, 3.0],
    [True, False, 0], [0.0, True, False], [0, 1.0, 42], [0.0, True, False, 42],
    [0.0, True, False, 42, 5j], range(5)], ids=repr)
def test_astensor_consistency(example):
    """TestAsArray.test_astensor_consistency: asarray and as_tensor agree (and with
    torch) on scalars, homogeneous and mixed lists and ranges."""
    t = torch.asarray(example)
    check_result(pyad.asarray(example), t)
    check_result(pyad.as_tensor(example), torch.as_tensor(example))


# ---------------------------------------------------------------------------------------
# TestBufferProtocol (frombuffer)
# ---------------------------------------------------------------------------------------

BUF_DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32",
              "float64", "complex64", "complex128"]
SIZE = 5


def _frombuffer_case(shape, dtype, count=-1, first=0, offset=None, **kwargs):
    """TestBufferProtocol._run_test: frombuffer views the buffer at the offset NumPy's
    frombuffer does, with the same values."""
    npdt = np.dtype(dtype)
    if offset is None:
        offset = first * npdt.itemsize
    arr = sample(dtype, shape, seed=first + 3)
    view = memoryview(arr)
    p = pyad.frombuffer(view, dtype=getattr(pyad, dtype), count=count, offset=offset,
                        **kwargs)
    ref = np.frombuffer(view, dtype=npdt, count=count, offset=offset)
    np.testing.assert_array_equal(p.data, ref)
    assert dname(p.dtype) == dtype
    assert ptr(p) == ref.__array_interface__["data"][0]
    return arr, p


@pytest.mark.parametrize("dtype", BUF_DTYPES)
def test_same_type(dtype):
    """TestBufferProtocol.test_same_type."""
    _frombuffer_case((), dtype)
    _frombuffer_case((4,), dtype)
    _frombuffer_case((10, 10), dtype)


@pytest.mark.parametrize("dtype", ["uint8", "float32", "complex64"])
def test_frombuffer_requires_grad(dtype):
    """TestBufferProtocol.test_requires_grad."""
    grad = dtype.startswith(("float", "complex"))
    for rg in (grad, False):
        for shape in ((), (4,), (10, 10)):
            _, p = _frombuffer_case(shape, dtype, requires_grad=rg)
            assert p.requires_grad == rg


@pytest.mark.parametrize("dtype", ["int8", "int64", "float16", "complex128"])
def test_with_count_and_offset(dtype):
    """TestBufferProtocol.test_with_offset / test_with_count / test_with_count_and_offset."""
    for i in range(SIZE):
        _frombuffer_case((SIZE,), dtype, first=i)
    for i in range(-1, SIZE + 1):
        if i != 0:
            _frombuffer_case((SIZE,), dtype, count=i)
    for i in range(1, SIZE):
        for j in range(SIZE - i + 1):
            _frombuffer_case((SIZE,), dtype, count=i, first=j)


@pytest.mark.parametrize("dtype", ["uint8", "int32", "float64"])
def test_invalid_positional_args(dtype):
    """TestBufferProtocol.test_invalid_positional_args: the same ValueErrors as torch."""
    nbytes = np.dtype(dtype).itemsize
    tdt, pdt = getattr(torch, dtype), getattr(pyad, dtype)
    arr = sample(dtype, (SIZE,))

    def both_raise(**kw):
        buf = kw.pop("buf", arr)
        with pytest.raises(ValueError):
            torch.frombuffer(memoryview(buf), dtype=tdt, **kw)
        with pytest.raises(ValueError):
            pyad.frombuffer(memoryview(buf), dtype=pdt, **kw)

    both_raise(buf=np.array([], dtype=dtype))
    both_raise(count=0)
    both_raise(offset=-nbytes)
    both_raise(offset=SIZE * nbytes)
    if nbytes > 1:
        both_raise(offset=nbytes - 1)
    for first in range(SIZE):
        both_raise(count=SIZE - first + 1, offset=first * nbytes)


@pytest.mark.parametrize("dtype", ["int16", "float32"])
def test_shared_buffer(dtype):
    """TestBufferProtocol.test_shared_buffer: writes through the Variable reach the
    buffer and writes to the buffer are seen by the Variable."""
    x = pyad.tensor(sample(dtype, (1,), seed=9))
    arr, p = _frombuffer_case((SIZE,), dtype)
    p[:] = x
    np.testing.assert_array_equal(arr, p.data)
    assert bool((p == x).all())
    for count in range(-1, SIZE + 1):
        if count == 0:
            continue
        n = count if count > 0 else SIZE
        for first in range(SIZE - n):
            arr, p = _frombuffer_case((SIZE,), dtype, first=first, count=count)
            p[:] = x
            np.testing.assert_array_equal(arr[first:first + n], p.data)
            arr[first] = x.item() - 1
            np.testing.assert_array_equal(arr[first:first + n], p.data)


def test_not_a_buffer():
    """TestBufferProtocol.test_not_a_buffer."""
    with pytest.raises(ValueError):
        torch.frombuffer([1, 2, 3, 4], dtype=torch.int32)
    with pytest.raises(ValueError, match="buffer protocol"):
        pyad.frombuffer([1, 2, 3, 4], dtype=pyad.int32)


def test_non_writable_buffer():
    """TestBufferProtocol.test_non_writable_buffer: a bytes object warns once."""
    data = sample("float32", (1,)).tobytes()
    with pytest.warns(UserWarning, match="not writable"):
        torch.frombuffer(data, dtype=torch.float32)
    with pytest.warns(UserWarning, match="not writable"):
        pyad.frombuffer(data, dtype=pyad.float32)


def test_byte_to_int():
    """TestBufferProtocol.test_byte_to_int: bytes reinterpreted as little-endian int32."""
    raw = np.array([-1, 0, 0, 0, -1, 0, 0, 0], dtype=np.byte)
    t = torch.frombuffer(raw, dtype=torch.int32)
    p = pyad.frombuffer(raw, dtype=pyad.int32)
    assert p.numel() == 2
    check_result(p, t)
    assert p.tolist() == [255, 255]


# ---------------------------------------------------------------------------------------
# TestRandomTensorCreation
# ---------------------------------------------------------------------------------------

def test_randperm():
    """TestRandomTensorCreation.test_randperm: a permutation of 0..n-1 in the asked
    dtype (int64 by default), the same with out=, empty for n=0, and RuntimeError when
    the dtype cannot hold n (torch's limits)."""
    for n in (5, 100):
        for dtype in ("int64", "float16", "float32"):
            pyad.manual_seed(3)
            r1 = pyad.randperm(n, dtype=getattr(pyad, dtype))
            pyad.manual_seed(3)
            r2 = pyad.empty(0, dtype=getattr(pyad, dtype))
            pyad.randperm(n, out=r2, dtype=getattr(pyad, dtype))
            assert dname(r1.dtype) == dtype
            np.testing.assert_array_equal(r1.data, r2.data)
            np.testing.assert_array_equal(np.sort(r1.data.astype(np.int64)), np.arange(n))
    assert pyad.randperm(100).dtype == pyad.int64
    assert pyad.randperm(0).numel() == 0
    for dtype, small, large in (("uint8", 2 ** 8, 2 ** 8 + 1),
                                ("int8", 2 ** 7, 2 ** 7 + 1),
                                ("float16", 2 ** 11 + 1, 2 ** 11 + 2)):
        t_small = torch.randperm(small, dtype=getattr(torch, dtype))
        p_small = pyad.randperm(small, dtype=getattr(pyad, dtype))
        assert dname(p_small.dtype) == dname(t_small.dtype)
        assert p_small.shape == tuple(t_small.shape)
        with pytest.raises(RuntimeError):
            torch.randperm(large, dtype=getattr(torch, dtype))
        with pytest.raises(RuntimeError):
            pyad.randperm(large, dtype=getattr(pyad, dtype))
    for dtype in ("bool", "complex64"):
        with pytest.raises(NotImplementedError):
            torch.randperm(3, dtype=getattr(torch, dtype))
        with pytest.raises(NotImplementedError):
            pyad.randperm(3, dtype=getattr(pyad, dtype))


def test_randint_inference():
    """TestRandomTensorCreation.test_randint_inference: int64 by default, else dtype= or
    the out= Variable's dtype."""
    size = (2, 1)
    for args in ((3,), (1, 3)):
        assert pyad.randint(*args, size=size).dtype == pyad.int64
        assert pyad.randint(*args, size=size, dtype=pyad.float32).dtype == pyad.float32
        out = pyad.empty(size, dtype=pyad.float32)
        assert pyad.randint(*args, size=size, out=out).dtype == pyad.float32
        out = pyad.empty(size, dtype=pyad.int64)
        assert pyad.randint(*args, size=size, out=out, dtype=pyad.int64).dtype == pyad.int64


def test_randint():
    """TestRandomTensorCreation.test_randint: the same seed gives the same draws with
    and without out= and with (low, high) vs (high,); all in [0, 6)."""
    results = []
    for form in range(4):
        pyad.manual_seed(123456)
        if form == 0:
            results.append(pyad.randint(0, 6, (10, 10)))
        elif form == 1:
            out = pyad.empty((), dtype=pyad.int64)
            pyad.randint(0, 6, (10, 10), out=out)
            results.append(out)
        elif form == 2:
            results.append(pyad.randint(6, (10, 10)))
        else:
            out = pyad.empty((), dtype=pyad.int64)
            pyad.randint(6, (10, 10), out=out)
            results.append(out)
    for r in results[1:]:
        np.testing.assert_array_equal(r.data, results[0].data)
    assert bool((results[0] < 6).all()) and bool((results[0] >= 0).all())


@pytest.mark.parametrize("name", ["rand", "randn"])
@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64"])
def test_rand(name, dtype):
    """TestRandomTensorCreation.test_rand / test_randn: out= gives the same draws."""
    fn = getattr(pyad, name)
    for size in (0, 10):
        pyad.manual_seed(123456)
        r1 = fn(size, size, dtype=getattr(pyad, dtype))
        r2 = pyad.tensor([], dtype=getattr(pyad, dtype))
        pyad.manual_seed(123456)
        fn(size, size, out=r2)
        assert dname(r1.dtype) == dtype
        np.testing.assert_array_equal(r1.data, r2.data)


def test_normal_std_error():
    """TestRandomTensorCreation.test_normal_std_error: RuntimeError for a negative std,
    scalar or Variable (the number-mean forms)."""
    for lib in (torch, pyad):
        std = lib.tensor(-1, dtype=lib.float32)
        with pytest.raises(RuntimeError, match="std"):
            lib.normal(0, -1, (10,))
        for mean in (0, lib.tensor(0, dtype=lib.float32)):
            with pytest.raises(RuntimeError, match="std"):
                lib.normal(mean, std)


def test_normal_std_error_variable_mean_with_size():
    """TestRandomTensorCreation.test_normal_std_error, the Variable-mean form with a
    size: torch raises RuntimeError on the negative std."""
    with pytest.raises(RuntimeError, match="std"):
        torch.normal(torch.tensor(0.0), -1, (10,))
    with pytest.raises(RuntimeError, match="std"):
        pyad.normal(pyad.tensor(0.0), -1, (10,))
    # a 0-d Variable that does not require grad stands for the number, as in torch
    for lib in (torch, pyad):
        sample = lib.normal(lib.tensor(0.0, dtype=lib.float64), lib.tensor(2.0), (3,))
        assert tuple(sample.shape) == (3,) and sample.dtype == lib.float32
        assert lib.normal(lib.tensor(0), 1.0, (3,)).dtype == lib.float32   # an int too
        with pytest.raises(TypeError):
            lib.normal(lib.tensor([0.0]), 1.0, (3,))
        with pytest.raises(TypeError):
            lib.normal(lib.tensor(0.0, requires_grad=True), 1.0, (3,))


def _uniform_bounds(dtype):
    fmax = float(np.finfo(dtype).max)
    values = [-float(np.finfo(np.float32).max), -42.0, 0.0, 42.0,
              float(np.finfo(np.float32).max)]
    return [(lo, hi) for lo in values for hi in values
            if -fmax <= lo <= fmax and -fmax <= hi <= fmax]


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_uniform_from_to(dtype):
    """TestRandomTensorCreation.test_uniform_from_to, the accepted ranges: where torch
    takes (from, to) pyad does too, and the draws lie in [from, to)."""
    for lo, hi in _uniform_bounds(dtype):
        try:
            torch.empty(50, dtype=getattr(torch, dtype)).uniform_(lo, hi)
        except RuntimeError:
            continue
        pt = pyad.empty(50, dtype=getattr(pyad, dtype))
        pt.uniform_(lo, hi)
        d = pt.data.astype(np.float64)
        if dtype != "float16" and not np.isnan(d).all() and np.isfinite(d).all():
            assert d.min() >= lo and (d.max() < hi or lo == hi)


@pytest.mark.parametrize("dtype", ["float16", "float32"])
def test_uniform_from_to_errors(dtype):
    """TestRandomTensorCreation.test_uniform_from_to, the refused ranges: RuntimeError
    ('uniform_ expects to return a [from, to) range' / 'expects to-from <= max')."""
    refused = 0
    for lo, hi in _uniform_bounds(dtype):
        try:
            torch.empty(50, dtype=getattr(torch, dtype)).uniform_(lo, hi)
        except RuntimeError:
            refused += 1
            with pytest.raises(RuntimeError):
                pyad.empty(50, dtype=getattr(pyad, dtype)).uniform_(lo, hi)
    assert refused


def test_random_neg_values():
    """TestRandomTensorCreation.test_random_neg_values: random_(-10, -1) on signed
    dtypes stays within [-10, -1)."""
    for dtype in ("float64", "float32", "int64", "int32", "int16"):
        res = pyad.rand(10, 10).to(getattr(pyad, dtype))
        res.random_(-10, -1)
        assert dname(res.dtype) == dtype
        assert res.max().item() <= -2 and res.min().item() >= -10


# ---------------------------------------------------------------------------------------
# TestReductions
# ---------------------------------------------------------------------------------------

def test_mode_large():
    """TestReductions.test_mode_large: the mode of a column of mostly one value, with
    its last index, along both dims of a (small) 2-d input."""
    x = np.arange(60, dtype=np.float64).reshape(6, 10) % 7
    x[:, 3] = 5.0
    agree(lambda L, a: L.mode(a, 0), x)
    agree(lambda L, a: L.mode(a, 1), x)
    agree(lambda L, a: L.mode(a, -1, True), x)
    agree(lambda L, a: L.mode(a.t().contiguous(), 1), x)


def test_mode_boolean_and_ints():
    """TestReductions.test_mode_boolean / test_mode for every integer dtype."""
    for dtype in ("bool", "uint8", "int8", "int32", "int64", "float16"):
        x = rint((4, 9), 0, 3, seed=1).astype(dtype)
        agree(lambda L, a: L.mode(a, 1), x)
        agree(lambda L, a: L.mode(a, 0, keepdim=True), x)


def test_mode_wrong_dtype():
    """TestReductions.test_mode_wrong_dtype: out= Variables of the wrong dtype raise."""
    x = np.arange(6.0).reshape(2, 3)
    for vals_dt, idx_dt in (("int64", "int64"), ("float64", "float64"),
                            ("float64", "int32")):
        def fn(L, a):
            values = L.empty(0, dtype=getattr(L, vals_dt))
            indices = L.empty(0, dtype=getattr(L, idx_dt))
            return L.mode(a, -1, False, out=(values, indices))
        agree(fn, x)


def test_logcumsumexp_complex():
    """TestReductions.test_logcumsumexp_complex: complex inputs with infinite and NaN
    real parts, and the complex128 values of a plain input."""
    cases = [
        [1 + 1j, 2 - 1j, -0.5 + 3j],
        [-inf + 0j, 1 + 1j, -inf + 2j],
        [inf + 0j, 1 + 1j, 2 + 0.5j],
        [1 + 1j, nan + 0j, 2 + 0j],
        [-inf + 0j, -inf + 0j],
    ]
    for c in cases:
        agree(lambda L, a: L.logcumsumexp(a, 0), np.array(c, dtype=np.complex128),
              exact=False)
    x = (rnd((3, 4)) + 1j * rnd((3, 4), 1)).astype(np.complex128)
    agree(lambda L, a: L.logcumsumexp(a, 1), x, exact=False)


def test_reduction_split():
    """TestReductions.test_reduction_split: a reduction over dims that split across the
    output (sum over the first dim of a 3-d permuted input)."""
    x = rnd((6, 4, 5)).astype(np.float32)
    agree(lambda L, a: a.permute(1, 0, 2).sum(1), x, exact=False)
    agree(lambda L, a: a.sum((0, 2)), x, exact=False)
    agree(lambda L, a: a.amax((1, 2)), x)


def test_sum_noncontig():
    """TestReductions.test_sum_noncontig: sums of a permuted (non-contiguous) input."""
    x = rnd((1, 2, 3, 4, 5)).astype(np.float32)
    agree(lambda L, a: a.permute(2, 4, 1, 3, 0).sum(), x, exact=False)
    agree(lambda L, a: a.permute(2, 4, 1, 3, 0).sum(-1), x, exact=False)
    agree(lambda L, a: a.permute(2, 4, 1, 3, 0).sum((1, 3)), x, exact=False)


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_min_max_nan(dtype):
    """TestReductions.test_min_max_nan: NaN propagates through max/min/amax/amin/
    aminmax, over everything and along a dim (values and indices)."""
    x = rnd((4, 5)).astype(dtype)
    x[1, 2] = nan
    x[3, 0] = nan
    for fn in (lambda L, a: a.max(), lambda L, a: a.min(), lambda L, a: a.amax(0),
               lambda L, a: a.amin(1), lambda L, a: a.max(1), lambda L, a: a.min(0),
               lambda L, a: L.aminmax(a), lambda L, a: L.aminmax(a, dim=1),
               lambda L, a: L.maximum(a, a.flip(0)), lambda L, a: L.fmax(a, a.flip(0))):
        agree(fn, x)


def test_argminmax_large_axis():
    """TestReductions.test_argminmax_large_axis (small): the index of the extreme value
    at the end of a long axis."""
    x = np.zeros((3, 3000), dtype=np.float32)
    x[:, -1] = 1.0
    agree(lambda L, a: a.argmax(1), x)
    agree(lambda L, a: (-a).argmin(1), x)
    agree(lambda L, a: a.argmax(), x)


@pytest.mark.parametrize("op", ["sum", "prod", "mean", "amax", "amin", "nansum",
                                "nanmean", "logsumexp", "std", "var", "count_nonzero",
                                "all", "any", "argmax", "argmin", "median", "nanmedian"])
def test_ref_small_input(op):
    """TestReductions.test_ref_small_input: each reduction over small inputs (with a
    zero row, every dim, keepdim), against torch."""
    x = rnd((2, 3, 4))
    x[0, 1] = 0.0
    fn = getattr
    agree(lambda L, a: fn(L, op)(a) if op not in ("logsumexp",) else L.logsumexp(a, (0, 1, 2)),
          x, exact=False)
    for dim in (0, 1, -1):
        if op in ("median", "nanmedian"):
            agree(lambda L, a: fn(L, op)(a, dim)[0], x, exact=False)
        elif op in ("argmax", "argmin", "count_nonzero", "all", "any"):
            agree(lambda L, a: fn(L, op)(a, dim), x)
        else:
            agree(lambda L, a: fn(L, op)(a, dim, keepdim=True), x, exact=False)


def test_reduction_vectorize_along_output():
    """TestReductions.test_reduction_vectorize_along_output: reduce dim 0 of inputs
    whose inner size is and is not a multiple of the vector width."""
    for shape in ((8, 16), (8, 17), (8, 3, 5), (1, 33)):
        x = rnd(shape).astype(np.float32)
        agree(lambda L, a: a.sum(0), x, exact=False)
        agree(lambda L, a: a.amax(0), x)
        agree(lambda L, a: a.prod(0), x, exact=False)


def test_reduction_vectorize_along_input_corner():
    """TestReductions.test_reduction_vectorize_along_input_corner: one non-zero element
    at each position of the last dim found by sum/argmax."""
    for size in (1, 15, 16, 17, 33):
        for i in range(size):
            x = np.zeros(size, dtype=np.float32)
            x[i] = 1.0
            agree(lambda L, a: (a.sum(), a.argmax(), a.amax()), x)


@pytest.mark.parametrize("correction", [0, 1, 2, 3, 0.5])
def test_var_std_correction_numpy(correction):
    """TestReductions.test_std_correction_vs_numpy / test_var_correction_vs_numpy:
    var/std/var_mean/std_mean with correction= against NumPy's ddof, dims and keepdim."""
    x = rnd((4, 5, 3))
    for dim in (None, 0, (1, 2), -1):
        for keepdim in (False, True):
            p = pyad.var(pyad.tensor(x), dim=dim, correction=correction, keepdim=keepdim)
            ref = np.var(x, axis=dim, ddof=correction, keepdims=keepdim)
            np.testing.assert_allclose(p.data, ref, rtol=1e-7, atol=1e-7)
            s, m = pyad.std_mean(pyad.tensor(x), dim=dim, correction=correction,
                                 keepdim=keepdim)
            np.testing.assert_allclose(s.data, np.sqrt(ref), rtol=1e-7, atol=1e-7)
            np.testing.assert_allclose(m.data, np.mean(x, axis=dim, keepdims=keepdim),
                                       rtol=1e-7, atol=1e-7)


def test_var_correction_too_large():
    """TestReductions.test_warn_invalid_degrees_of_freedom counterpart: correction >=
    N gives inf/NaN (as torch, with a warning) rather than an error."""
    x = rnd((3,))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        agree(lambda L, a: L.var(a, correction=3), x)
        agree(lambda L, a: L.std(a, correction=5), x)
        agree(lambda L, a: L.var(a[:1], correction=1), x)


def test_nan_reductions():
    """TestReductions.test_nanmedian / test_nansum / test_nanmean / nanquantile: NaNs
    skipped, all-NaN slices give NaN (nanmedian's index as torch)."""
    x = rnd((3, 5))
    x[0, :] = nan
    x[1, 1] = nan
    x[2, [0, 4]] = nan
    agree(lambda L, a: L.nansum(a, 1), x, exact=False)
    agree(lambda L, a: L.nanmean(a, 1), x, exact=False)
    agree(lambda L, a: L.nanmedian(a[1:], 1), x)
    agree(lambda L, a: L.nanmedian(a), x)
    agree(lambda L, a: L.nanquantile(a, 0.3, dim=1), x, exact=False)
    agree(lambda L, a: L.median(a, 1), x)
    agree(lambda L, a: L.quantile(a, 0.3, dim=1), x, exact=False)


@pytest.mark.parametrize("n", [1, 2, 3])
def test_nanmedian_all_nan_row_index(n):
    """TestReductions.test_nanmedian: an all-NaN row has value NaN and index 0 for rows
    of up to 3 elements (torch's index there is what its selection algorithm leaves:
    2 for 4 or 5 NaNs, 3 for 6, 5 for 7; pyad's is the first NaN, docs/graph-semantics.md)."""
    x = np.array([[nan] * n, [1.0, nan, 2.0][:n]])
    agree(lambda L, a: L.nanmedian(a, 1), x)


@pytest.mark.parametrize("interpolation", ["linear", "lower", "higher", "midpoint",
                                           "nearest"])
def test_quantile_interpolation(interpolation):
    """TestReductions.test_quantile: every interpolation mode, scalar and Variable q,
    with dims and keepdim."""
    x = rnd((4, 7))
    q = np.array([0.0, 0.25, 0.5, 0.6, 1.0])
    agree(lambda L, a: L.quantile(a, 0.4, interpolation=interpolation), x, exact=False)
    agree(lambda L, a, qq: L.quantile(a, qq, dim=1, keepdim=True,
                                       interpolation=interpolation), x, q, exact=False)
    agree(lambda L, a, qq: L.nanquantile(a, qq, dim=0, interpolation=interpolation),
          x, q, exact=False)


def test_quantile_error():
    """TestReductions.test_quantile_error: bad q, dtypes and interpolation raise the
    same exception classes as torch."""
    x = rnd((3,))
    agree(lambda L, a: L.quantile(a, 1.5), x)
    agree(lambda L, a: L.quantile(a, -0.5), x)
    agree(lambda L, a: L.quantile(a, L.tensor([[0.5]], dtype=L.float64)), x)
    agree(lambda L, a: L.quantile(a, 0.5, interpolation="bad"), x)
    agree(lambda L, a: L.quantile(a.float(), L.tensor([0.5], dtype=L.float64)), x)
    agree(lambda L, a: L.quantile(a.long(), 0.5), x)
    agree(lambda L, a: L.quantile(a[:0], 0.5), x)


def test_logsumexp_neg_inf():
    """TestReductions.test_logsumexp: rows of -inf give -inf, +inf gives inf."""
    x = np.array([[-inf, -inf, -inf], [1.0, -inf, 2.0], [inf, 0.0, -inf]])
    agree(lambda L, a: L.logsumexp(a, 1), x, exact=False)
    agree(lambda L, a: L.logsumexp(a, 0, keepdim=True), x, exact=False)
    agree(lambda L, a: L.logsumexp(a.long(), 1), np.array([[1, 2], [3, 4]]), exact=False)


@pytest.mark.parametrize("dtype", DTYPES)
def test_all_any_dtypes(dtype):
    """TestReductions.test_all_any_vs_numpy / test_all_any_with_dim: every dtype; bool
    results (uint8 kept for uint8 inputs, as torch), dims and keepdim, empty inputs."""
    x = sample(dtype, (3, 4), seed=2)
    if dtype != "bool":
        x[1] = 0
    for fn in (lambda L, a: a.all(), lambda L, a: a.any(), lambda L, a: a.all(1),
               lambda L, a: a.any(0, keepdim=True), lambda L, a: L.all(a[:0]),
               lambda L, a: L.any(a[:, :0], 1)):
        agree(fn, x)


@pytest.mark.parametrize("dtype", ["bool", "uint8", "int32", "float32", "complex64"])
def test_count_nonzero_dtypes(dtype):
    """TestReductions.test_count_nonzero: int64 counts over all, one or several dims."""
    x = sample(dtype, (3, 4, 2), seed=4)
    if dtype != "bool":
        x[0, 1] = 0
    for fn in (lambda L, a: L.count_nonzero(a), lambda L, a: L.count_nonzero(a, 1),
               lambda L, a: L.count_nonzero(a, (0, 2)), lambda L, a: L.count_nonzero(a, -1)):
        agree(fn, x)


@pytest.mark.parametrize("dtype", ["bool", "uint8", "int8", "int32", "int64"])
def test_prod_sum_int_upcast(dtype):
    """TestReductions.test_prod_integer_upcast / test_sum_integer_upcast: integer and
    bool inputs reduce to int64 unless dtype= says otherwise."""
    x = sample(dtype, (3, 4), seed=5)
    for fn in (lambda L, a: a.prod(), lambda L, a: a.prod(1), lambda L, a: a.sum(0),
               lambda L, a: a.cumsum(1), lambda L, a: a.cumprod(0),
               lambda L, a: a.prod(dtype=L.int32), lambda L, a: a.sum(1, dtype=L.float64)):
        agree(fn, x)


def test_empty_max_min_errors():
    """TestReductions.test_tensor_compare_ops_empty: max/min/argmax/amax of an empty
    input raise (IndexError along an empty dim, RuntimeError over everything), while
    sum/prod/any/all give identities."""
    x = np.zeros((0, 3))
    for fn in (lambda L, a: a.max(), lambda L, a: a.min(), lambda L, a: a.argmax(),
               lambda L, a: a.amax(), lambda L, a: a.max(0), lambda L, a: a.amin(0),
               lambda L, a: a.argmin(0), lambda L, a: L.aminmax(a),
               lambda L, a: a.max(1), lambda L, a: a.amax(1), lambda L, a: a.median(),
               lambda L, a: L.mode(a, 0), lambda L, a: L.kthvalue(a, 1, 0),
               lambda L, a: a.sum(0), lambda L, a: a.prod(0), lambda L, a: a.all(0),
               lambda L, a: a.logsumexp(0), lambda L, a: a.mean(0)):
        agree(fn, x)


def test_cumulative_ops_dtypes():
    """TestReductions.test_cumsum / test_cumprod / test_cummax_cummin: dtype= and NaN,
    along each dim, including 0-d and empty inputs."""
    x = rnd((3, 4))
    x[1, 2] = nan
    for fn in (lambda L, a: a.cumsum(0), lambda L, a: a.cumprod(1),
               lambda L, a: a.cumsum(1, dtype=L.float32), lambda L, a: L.cummax(a, 1),
               lambda L, a: L.cummin(a, 0), lambda L, a: L.cumsum(a[0, 0], 0),
               lambda L, a: L.cummax(a[:0], 0), lambda L, a: L.logcumsumexp(a, 1)):
        agree(fn, x, exact=False)


# ---------------------------------------------------------------------------------------
# TestSortAndSelect
# ---------------------------------------------------------------------------------------

def test_searchsorted():
    """TestSortAndSelect test_searchsorted-style checks (torch's test_bucketization in
    test_reductions.py): right=, side=, sorter=, out_int32, 1-d and batched boundaries,
    scalar values, and the argument errors."""
    seq = np.array([[1, 3, 5, 7, 9], [2, 4, 6, 8, 10]])
    vals = np.array([[3, 6, 9], [3, 6, 9]])
    for kw in (dict(), dict(right=True), dict(side="right"), dict(side="left"),
               dict(out_int32=True), dict(right=True, out_int32=True)):
        agree(lambda L, s, v: L.searchsorted(s, v, **kw), seq, vals)
        agree(lambda L, s, v: L.searchsorted(s[0], v, **kw), seq, vals)
        agree(lambda L, s, v: L.bucketize(v, s[0], **{k: w for k, w in kw.items()
                                                     if k != "side"}), seq, vals)
    unsorted = np.array([5, 1, 9, 3, 7])
    sorter = np.argsort(unsorted)
    agree(lambda L, s, o, v: L.searchsorted(s, v, sorter=o), unsorted, sorter,
          np.array([0, 4, 10]))
    agree(lambda L, s, o, v: L.searchsorted(s, v, sorter=o, side="right"), unsorted,
          sorter, np.array([1, 5, 9]))
    # errors
    agree(lambda L, s, v: L.searchsorted(s, v, right=False, side="right"), seq, vals)
    agree(lambda L, s, v: L.searchsorted(s, v, side="middle"), seq, vals)
    agree(lambda L, s, v: L.searchsorted(s, v[:1]), seq, vals)
    agree(lambda L, s, v: L.bucketize(v, s), seq, vals)
    agree(lambda L, s, o, v: L.searchsorted(s, v, sorter=o[:3]), unsorted, sorter,
          np.array([1]))
    agree(lambda L, s: L.searchsorted(s[0], 4), seq)


def test_sort_nan_stable_descending():
    """TestSortAndSelect.test_sort (NaN part) / test_stable_sort_against_numpy: NaN
    sorts last ascending and first descending; stable sorts keep equal keys in order."""
    x = np.array([[3.0, nan, 1.0, 3.0, -inf, inf, nan, 1.0],
                  [0.0, 0.0, -0.0, 2.0, nan, 2.0, 1.0, 0.0]])
    for kw in (dict(), dict(descending=True), dict(stable=True),
               dict(stable=True, descending=True), dict(dim=0, stable=True)):
        agree(lambda L, a: L.sort(a, **kw), x)
        agree(lambda L, a: L.argsort(a, **kw), x)
    agree(lambda L, a: L.msort(a), x)
    agree(lambda L, a: L.msort(a[0]), x)


@pytest.mark.parametrize("dtype", ["uint8", "int16", "int64", "float16", "float64", "bool"])
def test_argsort_stable(dtype):
    """TestSortAndSelect.test_stable_sort: stable argsort of repeated keys returns the
    indices of equal keys in increasing order."""
    x = np.array([0, 1] * 50).astype(dtype)
    agree(lambda L, a: L.argsort(a, stable=True), x)
    agree(lambda L, a: L.argsort(a, stable=True, descending=True), x)
    agree(lambda L, a: a.sort(stable=True)[1], x)


def test_topk_kthvalue_errors():
    """TestSortAndSelect.test_topk_arguments / test_kthvalue: k out of range, a bool for
    dim and a 0-d input."""
    x = rnd((3, 4))
    agree(lambda L, a: a.topk(5, 1), x)
    agree(lambda L, a: a.topk(-1), x)
    agree(lambda L, a: a.topk(0, 1), x)
    agree(lambda L, a: L.kthvalue(a, 0, 1), x)
    agree(lambda L, a: L.kthvalue(a, 5, 1), x)
    agree(lambda L, a: L.kthvalue(a, 4, 1), x)
    agree(lambda L, a: L.kthvalue(a[0, 0], 1), x)
    agree(lambda L, a: a[0, 0].topk(1), x)
    agree(lambda L, a: L.kthvalue(a, 2, 0, keepdim=True), x)


def test_kthvalue_ties_nan():
    """TestSortAndSelect.test_kthvalue with ties and NaN (NaN is the largest)."""
    x = np.array([[1.0, 2.0, 2.0, 2.0, nan], [nan, nan, 0.0, 0.0, 1.0]])
    for k in (1, 2, 3, 5):
        agree(lambda L, a: L.kthvalue(a, k, 1)[0], x)


def test_unique_inverse_counts():
    """TestSortAndSelect.test_unique / test_unique_dim: return_inverse and return_counts,
    sorted, over a dim, of bool, int and float inputs, and of an empty input."""
    for x in (np.array([2, 1, 2, 3, 1, 1]), np.array([True, False, True]),
              np.array([1.5, -0.0, 0.0, 1.5]), np.zeros((0,), dtype=np.int64)):
        for kw in (dict(), dict(return_inverse=True), dict(return_counts=True),
                   dict(return_inverse=True, return_counts=True)):
            agree(lambda L, a: L.unique(a, **kw), x)
    m = np.array([[1, 2], [0, 1], [1, 2], [0, 0]])
    for dim in (0, 1, -1):
        agree(lambda L, a: L.unique(a, dim=dim, return_inverse=True, return_counts=True),
              m)
    agree(lambda L, a: L.unique(a, dim=2), m)


def test_unique_consecutive_dim():
    """TestSortAndSelect.test_unique_consecutive with dim, inverse and counts."""
    m = np.array([[1, 1, 2, 2, 1], [1, 1, 2, 2, 3], [0, 0, 0, 1, 1]])
    for dim in (None, 0, 1):
        agree(lambda L, a: L.unique_consecutive(a, return_inverse=True,
                                                return_counts=True, dim=dim), m)
    agree(lambda L, a: L.unique_consecutive(a[:, :0], dim=1), m)


def test_isin_invert_mixed():
    """TestSortAndSelect.test_isin / test_isin_different_dtypes: invert=, assume_unique,
    scalar elements or test_elements, mixed int/float, and the bool-only error cases."""
    e = np.array([[1, 2, 3], [4, 5, 6]])
    t = np.array([2.0, 5.0, 7.5])
    agree(lambda L, a, b: L.isin(a, b), e, t)
    agree(lambda L, a, b: L.isin(a, b, invert=True), e, t)
    agree(lambda L, a, b: L.isin(a, b, assume_unique=True), e, t)
    agree(lambda L, a, b: L.isin(a, 5), e, t)
    agree(lambda L, a, b: L.isin(3, a), e, t)
    agree(lambda L, a, b: L.isin(a.to(L.uint8), b.to(L.int8)), e, t)
    agree(lambda L, a, b: L.isin(a[:0], b), e, t)
