"""DLPack 1.1 and the array API's __dlpack__ / __dlpack_device__ / from_dlpack, to the
letter: no leaks, checked requests (TypeError for malformed
arguments, BufferError for requests that cannot be met), from_dlpack(device=, copy=),
copies only when needed and flagged IS_COPIED, bfloat16 and float8 through ml_dtypes,
forged capsules, and the exchange both ways with NumPy, torch, JAX and array-api-strict
on every layout and dtype each side has."""
import ctypes
import gc
import sys

import numpy as np
import pytest

import pyad
from pyad import Variable


# --------------------------------------------------------------------------------
# Capsules from ctypes: read flags of real capsules, forge bad ones
# --------------------------------------------------------------------------------

class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", DLDevice), ("ndim", ctypes.c_int32),
                ("dtype", DLDataType), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


DELETER = ctypes.CFUNCTYPE(None, ctypes.c_void_p)


class DLManagedTensor(ctypes.Structure):
    _fields_ = [("dl_tensor", DLTensor), ("manager_ctx", ctypes.c_void_p),
                ("deleter", DELETER)]


class DLPackVersion(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32)]


class DLManagedTensorVersioned(ctypes.Structure):
    _fields_ = [("version", DLPackVersion), ("manager_ctx", ctypes.c_void_p),
                ("deleter", DELETER), ("flags", ctypes.c_uint64), ("dl_tensor", DLTensor)]


READ_ONLY, IS_COPIED = 1, 2

_PyCapsule_New = ctypes.pythonapi.PyCapsule_New
_PyCapsule_New.restype = ctypes.py_object
_PyCapsule_New.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
_PyCapsule_GetPointer = ctypes.pythonapi.PyCapsule_GetPointer
_PyCapsule_GetPointer.restype = ctypes.c_void_p
_PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
_PyCapsule_GetName = ctypes.pythonapi.PyCapsule_GetName
_PyCapsule_GetName.restype = ctypes.c_char_p
_PyCapsule_GetName.argtypes = [ctypes.py_object]


def capsule_flags(capsule):
    ptr = _PyCapsule_GetPointer(capsule, b"dltensor_versioned")
    return DLManagedTensorVersioned.from_address(ptr).flags


class Forged:
    """A capsule over a ctypes-built tensor (kept alive here), counting deleter calls."""

    def __init__(self, array=None, *, versioned=True, name=None, code=None, bits=None,
                 lanes=1, ndim=None, null_data=False, null_shape=False, major=1, flags=0):
        array = np.arange(3.0) if array is None else array
        self.array = array
        self.deleted = 0
        self.shape = (ctypes.c_int64 * max(array.ndim, 1))(*array.shape)
        self.strides = (ctypes.c_int64 * max(array.ndim, 1))(
            *[s // array.itemsize for s in array.strides])
        kind = {"i": 0, "u": 1, "f": 2, "c": 5, "b": 6}[array.dtype.kind]
        tensor = DLTensor(None if null_data else array.ctypes.data, DLDevice(1, 0),
                          array.ndim if ndim is None else ndim,
                          DLDataType(kind if code is None else code,
                                     array.itemsize * 8 if bits is None else bits, lanes),
                          None if null_shape else self.shape, self.strides, 0)
        self.deleter = DELETER(self._delete)
        if versioned:
            self.managed = DLManagedTensorVersioned(DLPackVersion(major, 1), None,
                                                    self.deleter, flags, tensor)
        else:
            self.managed = DLManagedTensor(tensor, None, self.deleter)
        name = name or (b"dltensor_versioned" if versioned else b"dltensor")
        self.capsule = _PyCapsule_New(ctypes.addressof(self.managed), name, None)

    def _delete(self, ptr):
        self.deleted += 1


@pytest.fixture
def torch():
    return pytest.importorskip("torch")


@pytest.fixture
def jax():
    jax = pytest.importorskip("jax")
    import jax.dlpack  # noqa: F401
    import jax.numpy  # noqa: F401
    previous = jax.config.jax_enable_x64
    jax.config.update("jax_enable_x64", True)
    yield jax
    jax.config.update("jax_enable_x64", previous)


@pytest.fixture
def xp():
    return pytest.importorskip("array_api_strict")


@pytest.fixture
def ml_dtypes():
    return pytest.importorskip("ml_dtypes")


# --------------------------------------------------------------------------------
# No leak: the producer's deleter always runs
# --------------------------------------------------------------------------------

def test_200_imports_of_8_mib_capsules_do_not_leak(torch):
    psutil = pytest.importorskip("psutil")
    process = psutil.Process()
    n = 2 ** 20                                  # 8 MiB of float64
    makers = {
        "torch legacy": lambda: torch.utils.dlpack.to_dlpack(torch.ones(n, dtype=torch.float64)),
        "torch versioned": lambda: torch.ones(n, dtype=torch.float64).__dlpack__(
            max_version=(1, 0)),
        "pyad legacy": lambda: pyad.to_dlpack(pyad.ones(n, dtype=pyad.float64)),
        "pyad versioned": lambda: pyad.ones(n, dtype=pyad.float64).__dlpack__(
            max_version=(1, 0)),
    }
    for name, make in makers.items():
        # warm up: the allocator settles (glibc raises its mmap threshold after the
        # first frees of large blocks, and keeps a few freed blocks in its heap)
        for _ in range(20):
            pyad.from_dlpack(make())
        gc.collect()
        before = process.memory_info().rss
        for _ in range(200):
            v = pyad.from_dlpack(make())
            assert v.shape == (n,)
            del v
        gc.collect()
        growth = (process.memory_info().rss - before) / 2 ** 20
        assert growth < 20, "%s: %.0f MiB growth over 200 imports" % (name, growth)


@pytest.mark.parametrize("versioned", [True, False], ids=["versioned", "legacy"])
def test_deleter_runs_once_when_the_last_view_is_freed(versioned):
    forged = Forged(np.arange(4.0), versioned=versioned)
    v = pyad.from_dlpack(forged.capsule)
    w = v[1:]
    del v
    gc.collect()
    assert forged.deleted == 0
    np.testing.assert_array_equal(w.data, [1.0, 2.0, 3.0])
    del w
    gc.collect()
    assert forged.deleted == 1
    expected = b"used_dltensor_versioned" if versioned else b"used_dltensor"
    assert _PyCapsule_GetName(forged.capsule) == expected


# --------------------------------------------------------------------------------
# Malformed arguments: TypeError; requests that cannot be met: BufferError
# --------------------------------------------------------------------------------

@pytest.mark.parametrize("bad", [None, 3, "x", [1.0], np.ones(2)],
                         ids=["None", "int", "str", "list", "ndarray"])
def test_to_dlpack_of_a_non_variable_raises_type_error(bad):
    with pytest.raises(TypeError, match=r"to_dlpack\(\): argument 'tensor' \(position 1\) "
                                        r"must be Variable, not"):
        pyad.to_dlpack(bad)


@pytest.mark.parametrize("bad", [None, 3, "x", [1.0]], ids=["None", "int", "str", "list"])
def test_from_dlpack_of_a_non_producer_raises_type_error(bad):
    with pytest.raises(TypeError, match=r"from_dlpack\(\): expected an object with __dlpack__"):
        pyad.from_dlpack(bad)


@pytest.mark.parametrize("bad", ["junk", (1,), -1, (1, 0, 0), (1.0, 0), [1, 0]],
                         ids=["str", "short", "int", "long", "float", "list"])
def test_invalid_max_version_raises_type_error(bad):
    with pytest.raises(TypeError, match=r"__dlpack__\(\): max_version must be None or a tuple"):
        Variable(np.ones(3)).__dlpack__(max_version=bad)


@pytest.mark.parametrize("max_version, name", [(None, b"dltensor"), ((0, 8), b"dltensor"),
                                               ((1, 0), b"dltensor_versioned"),
                                               ((1, 1), b"dltensor_versioned"),
                                               ((2, 0), b"dltensor_versioned")])
def test_max_version_chooses_the_capsule_layout(max_version, name):
    capsule = Variable(np.ones(3)).__dlpack__(max_version=max_version)
    assert _PyCapsule_GetName(capsule) == name


@pytest.mark.parametrize("stream", [0, 1, -1, 2])
def test_stream_on_cpu_raises_buffer_error(stream):
    with pytest.raises(BufferError, match=r"__dlpack__\(\): stream must be None"):
        Variable(np.ones(3)).__dlpack__(stream=stream)


def test_unreachable_dl_device_raises_buffer_error():
    with pytest.raises(BufferError, match=r"__dlpack__\(\): cannot export"):
        Variable(np.ones(3)).__dlpack__(dl_device=(2, 0))
    with pytest.raises(BufferError):
        Variable(np.ones(3)).__dlpack__(dl_device=(1, 1))


@pytest.mark.parametrize("bad", ["cpu", (1,), 1, (1.0, 0)])
def test_malformed_dl_device_raises_type_error(bad):
    with pytest.raises(TypeError, match="dl_device must be a tuple"):
        Variable(np.ones(3)).__dlpack__(dl_device=bad)


def test_malformed_copy_raises_type_error():
    with pytest.raises(TypeError, match="copy must be None, True or False"):
        Variable(np.ones(3)).__dlpack__(copy="yes")
    with pytest.raises(TypeError, match="copy must be None, True or False"):
        pyad.from_dlpack(np.ones(3), copy=1)


class BadDevice:
    def __init__(self, device):
        self.device = device

    def __dlpack__(self, **kwargs):
        return np.ones(2).__dlpack__(**kwargs)

    def __dlpack_device__(self):
        return self.device


@pytest.mark.parametrize("device", [1, "cpu", (1,), [1, 0], (1.0, 0), None])
def test_producer_with_a_malformed_dlpack_device_raises_type_error(device):
    with pytest.raises(TypeError, match=r"from_dlpack\(\): BadDevice.__dlpack_device__\(\) "
                                        r"must return a tuple"):
        pyad.from_dlpack(BadDevice(device))


def test_producer_on_an_unknown_device_raises_buffer_error():
    with pytest.raises(BufferError, match="unsupported DLPack device type 7"):
        pyad.from_dlpack(BadDevice((7, 0)))


def test_producer_without_keywords_is_asked_for_a_legacy_capsule():
    class Old:
        def __init__(self):
            self.a = np.arange(3.0)

        def __dlpack__(self, stream=None):
            return self.a.__dlpack__()

        def __dlpack_device__(self):
            return (1, 0)

    old = Old()
    v = pyad.from_dlpack(old)
    assert np.shares_memory(v.data, old.a) and v.data.flags.writeable
    w = pyad.from_dlpack(old, copy=True)
    assert not np.shares_memory(w.data, old.a)


# --------------------------------------------------------------------------------
# Copies: only when needed, flagged when made
# --------------------------------------------------------------------------------

def test_contiguous_and_strided_views_export_without_copy_or_flag():
    base = np.arange(12.0).reshape(3, 4)
    for view in (base, base.T, base[1:, ::2], base[:, 1]):
        capsule = Variable(view).__dlpack__(max_version=(1, 0))
        assert capsule_flags(capsule) & IS_COPIED == 0
        assert np.shares_memory(pyad.from_dlpack(capsule).data, base)


def test_copy_true_exports_a_flagged_copy():
    a = np.arange(3.0)
    capsule = Variable(a).__dlpack__(max_version=(1, 0), copy=True)
    assert capsule_flags(capsule) & IS_COPIED
    w = pyad.from_dlpack(capsule)
    assert not np.shares_memory(w.data, a)
    np.testing.assert_array_equal(w.data, a)


def test_negative_strides_export_as_they_are_with_copy_false():
    base = np.arange(6.0)
    capsule = Variable(base[::-1]).__dlpack__(max_version=(1, 0), copy=False)
    assert capsule_flags(capsule) & IS_COPIED == 0
    w = pyad.from_dlpack(capsule)
    assert np.shares_memory(w.data, base)
    np.testing.assert_array_equal(w.data, base[::-1])
    b = np.from_dlpack(Variable(base[::-1]), copy=False)
    assert np.shares_memory(b, base)


def test_negative_strides_with_copy_none_give_a_flagged_compact_copy(torch):
    # torch aborts the process on negative DLPack strides: the default hands it a copy
    base = np.arange(6.0)
    capsule = Variable(base[::-1]).__dlpack__(max_version=(1, 0))
    assert capsule_flags(capsule) & IS_COPIED
    t = torch.from_dlpack(Variable(base[::-1]))
    np.testing.assert_array_equal(t.numpy(), base[::-1])
    assert not np.shares_memory(t.numpy(), base)


def test_read_only_data_exports_read_only_flag_and_refuses_legacy():
    a = np.arange(3.0)
    a.flags.writeable = False
    capsule = Variable(a).__dlpack__(max_version=(1, 0))
    assert capsule_flags(capsule) & READ_ONLY
    assert not pyad.from_dlpack(capsule).data.flags.writeable
    with pytest.raises(BufferError):
        pyad.to_dlpack(Variable(a))


# --------------------------------------------------------------------------------
# from_dlpack(x, *, device=None, copy=None)
# --------------------------------------------------------------------------------

@pytest.mark.parametrize("device", [None, "cpu", pyad.device("cpu"), (1, 0)],
                         ids=["None", "str", "device", "tuple"])
def test_from_dlpack_device_cpu_shares(device):
    a = np.arange(3.0)
    v = pyad.from_dlpack(a, device=device)
    assert np.shares_memory(v.data, a)


def test_from_dlpack_copy_semantics():
    a = np.arange(3.0)
    assert np.shares_memory(pyad.from_dlpack(a, copy=None).data, a)
    assert np.shares_memory(pyad.from_dlpack(a, copy=False).data, a)
    c = pyad.from_dlpack(a, copy=True)
    assert not np.shares_memory(c.data, a)
    np.testing.assert_array_equal(c.data, a)
    assert not pyad.from_dlpack(pyad.to_dlpack(Variable(a)), copy=True).data.base is a


def test_from_dlpack_copy_of_a_variable():
    v = Variable(np.arange(3.0))
    assert pyad.from_dlpack(v) is v and pyad.from_dlpack(v, copy=False) is v
    w = pyad.from_dlpack(v, copy=True)
    assert w is not v and not np.shares_memory(w.data, v.data)


def test_from_dlpack_to_cuda_without_cupy_is_a_clear_error():
    if pyad._engine.cupy is not None:
        pytest.skip("CuPy is installed")
    with pytest.raises(RuntimeError, match="needs CuPy"):
        pyad.from_dlpack(np.ones(2), device="cuda")


def test_from_dlpack_of_an_unknown_device_raises():
    with pytest.raises(ValueError, match=r"from_dlpack\(\): unknown device 'tpu'"):
        pyad.from_dlpack(np.ones(2), device="tpu")


def test_from_dlpack_capsule_cannot_change_device():
    with pytest.raises(BufferError, match="a capsule cannot be moved"):
        pyad.from_dlpack(np.ones(2).__dlpack__(), device=(2, 0))


def test_from_dlpack_to_a_device_the_producer_cannot_reach_raises_buffer_error():
    with pytest.raises(BufferError):
        pyad.from_dlpack(np.ones(2), device=(1, 1))
    producer = BadDevice((1, 0))
    producer.__dlpack__ = Variable(np.ones(2)).__dlpack__
    with pytest.raises(BufferError, match="cannot export"):
        pyad.from_dlpack(producer, device=(1, 1))


def test_from_dlpack_copy_false_that_needs_a_copy_raises_buffer_error():
    with pytest.raises(BufferError, match="needs a copy, and copy=False"):
        pyad.from_dlpack(Variable(np.ones(2)), device="cuda", copy=False)


# --------------------------------------------------------------------------------
# Forged capsules
# --------------------------------------------------------------------------------

def test_forged_capsule_with_a_wrong_name_raises_and_is_not_consumed():
    forged = Forged(name=b"not_a_tensor")
    with pytest.raises(ValueError, match="not an unconsumed DLPack tensor"):
        pyad.from_dlpack(forged.capsule)
    assert forged.deleted == 0


@pytest.mark.parametrize("versioned", [True, False], ids=["versioned", "legacy"])
def test_forged_capsule_cannot_be_used_twice(versioned):
    forged = Forged(versioned=versioned)
    v = pyad.from_dlpack(forged.capsule)
    np.testing.assert_array_equal(v.data, [0.0, 1.0, 2.0])
    with pytest.raises(ValueError, match="used capsule cannot be imported twice"):
        pyad.from_dlpack(forged.capsule)


@pytest.mark.parametrize("kwargs, message", [
    (dict(null_data=True), "has no data"),
    (dict(null_shape=True), "has no shape"),
    (dict(ndim=-1), "unsupported number of dimensions -1"),
    (dict(ndim=1000), "unsupported number of dimensions 1000"),
    (dict(major=2), "unsupported DLPack version 2.1"),
    (dict(array=np.array([0, 1, 2], dtype=np.int16), code=6), r"code 6, 16 bits"),
    (dict(bits=12), r"code 2, 12 bits"),
    (dict(bits=128), r"code 2, 128 bits"),
    (dict(code=3), r"code 3, 64 bits"),
    (dict(code=99), r"code 99, 64 bits"),
    (dict(code=5, bits=32), r"code 5, 32 bits"),
    (dict(code=4, bits=32), r"code 4, 32 bits"),
    (dict(lanes=4), "lanes=4"),
], ids=["null-data", "null-shape", "ndim-negative", "ndim-absurd", "major-2", "bool16",
        "float12", "float128", "opaque", "unknown-code", "complex32", "bfloat32", "lanes"])
@pytest.mark.parametrize("versioned", [True, False], ids=["versioned", "legacy"])
def test_forged_capsule_is_refused_with_buffer_error(kwargs, message, versioned):
    if "major" in kwargs and not versioned:
        pytest.skip("the legacy layout has no version")
    forged = Forged(versioned=versioned, **kwargs)
    with pytest.raises(BufferError, match=r"from_dlpack\(\): .*" + message):
        pyad.from_dlpack(forged.capsule)
    # refused before consuming: the capsule keeps its name and nothing was deleted
    assert forged.deleted == 0
    assert _PyCapsule_GetName(forged.capsule) in (b"dltensor", b"dltensor_versioned")


def test_forged_empty_capsule_with_null_data_imports():
    forged = Forged(np.zeros((2, 0)), null_data=True)
    v = pyad.from_dlpack(forged.capsule)
    assert v.shape == (2, 0)


def test_forged_8_bit_bool_reads_as_bool():
    forged = Forged(np.array([0, 1, 1], dtype=np.uint8), code=6)
    v = pyad.from_dlpack(forged.capsule)
    assert v.dtype == np.bool_ and v.tolist() == [False, True, True]


def test_forged_read_only_flag_gives_read_only_data():
    forged = Forged(flags=READ_ONLY)
    v = pyad.from_dlpack(forged.capsule)
    assert not v.data.flags.writeable
    with pytest.raises(RuntimeError, match="read-only"):
        v.add_(1.0)


def test_legacy_capsule_of_read_only_memory_is_writable_as_torch_does(torch):
    v = pyad.from_dlpack(torch.utils.dlpack.to_dlpack(torch.arange(3.0)))
    assert v.data.flags.writeable


# --------------------------------------------------------------------------------
# bfloat16 and float8 through ml_dtypes
# --------------------------------------------------------------------------------

def test_bfloat16_crosses_zero_copy_with_torch(torch, ml_dtypes):
    t = torch.tensor([0.5, -1.25, 3.0, float("inf")], dtype=torch.bfloat16)
    v = pyad.from_dlpack(t)
    assert v.dtype == ml_dtypes.bfloat16
    assert v.data.ctypes.data == t.data_ptr()
    np.testing.assert_array_equal(v.data.astype(np.float32), t.float().numpy())
    back = torch.from_dlpack(v)
    assert back.dtype == torch.bfloat16 and back.data_ptr() == t.data_ptr()
    assert back.tolist() == t.tolist()
    v.data[0] = 2.0                              # NumPy ufuncs work on ml_dtypes' arrays
    assert t[0].item() == 2.0
    assert (v.data + v.data).dtype == ml_dtypes.bfloat16
    legacy = pyad.from_dlpack(torch.utils.dlpack.to_dlpack(t))
    assert legacy.dtype == ml_dtypes.bfloat16 and legacy.data.ctypes.data == t.data_ptr()


def test_bfloat16_crosses_zero_copy_with_jax(jax, ml_dtypes):
    jnp = jax.numpy
    j = jnp.array([0.5, -1.25, 3.0], dtype=jnp.bfloat16)
    v = pyad.from_dlpack(j)
    assert v.dtype == ml_dtypes.bfloat16
    assert v.data.ctypes.data == j.unsafe_buffer_pointer()
    back = jax.dlpack.from_dlpack(v)
    assert back.dtype == jnp.bfloat16 and back.unsafe_buffer_pointer() == v.data.ctypes.data
    np.testing.assert_array_equal(np.asarray(back, dtype=np.float32), [0.5, -1.25, 3.0])


def test_bfloat16_variable_from_numpy_exports_to_torch(torch, ml_dtypes):
    a = np.array([1.5, 2.5], dtype=ml_dtypes.bfloat16)
    v = pyad.from_dlpack(a)
    assert np.shares_memory(v.data, a)
    t = torch.from_dlpack(Variable(a))
    assert t.dtype == torch.bfloat16 and t.data_ptr() == a.ctypes.data
    assert t.tolist() == [1.5, 2.5]
    c = pyad.to_dlpack(Variable(a))
    assert torch.utils.dlpack.from_dlpack(c).dtype == torch.bfloat16


@pytest.mark.parametrize("name", ["float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz",
                                  "float8_e5m2fnuz"])
def test_float8_crosses_zero_copy_with_torch(torch, ml_dtypes, name):
    if not hasattr(torch, name):
        pytest.skip("torch has no %s" % name)
    t = torch.tensor([0.5, -2.0, 1.0]).to(getattr(torch, name))
    v = pyad.from_dlpack(t)
    assert v.dtype == getattr(ml_dtypes, name) and v.data.ctypes.data == t.data_ptr()
    np.testing.assert_array_equal(v.data.astype(np.float32), [0.5, -2.0, 1.0])
    back = torch.from_dlpack(v)
    assert back.dtype == getattr(torch, name) and back.data_ptr() == t.data_ptr()


def test_bfloat16_without_ml_dtypes_is_a_clear_error(torch, monkeypatch):
    monkeypatch.setitem(sys.modules, "ml_dtypes", None)     # `import ml_dtypes` fails
    t = torch.ones(2, dtype=torch.bfloat16)
    with pytest.raises(BufferError, match=r'ml_dtypes package: pip install "pyad\[bfloat16\]"'):
        pyad.from_dlpack(t)
    with pytest.raises(BufferError, match="ml_dtypes"):
        pyad.from_dlpack(torch.utils.dlpack.to_dlpack(t))
    assert t.tolist() == [1.0, 1.0]              # torch's memory is untouched and alive


# --------------------------------------------------------------------------------
# Every layout and dtype, both ways, with each framework
# --------------------------------------------------------------------------------

def _layouts():
    base = np.arange(24.0).reshape(4, 6)
    read_only = np.arange(5.0)
    read_only.flags.writeable = False
    return {
        "0d": np.array(3.5), "empty": np.zeros((0, 3)), "transposed": base.T,
        "sliced": base[1:3, ::2], "negative-stride": base[::-1, ::-2],
        "read-only": read_only, "contiguous": base,
    }


LAYOUTS = list(_layouts())
NUMPY_DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
                "uint64", "float16", "float32", "float64", "complex64", "complex128"]


def _same_layout(a, dtype):
    base = np.arange(24).reshape(4, 6)
    if dtype == "bool":
        base = base % 3 == 0
    else:
        base = base.astype(dtype)
    # the same view (shape, strides, offset) of an array of the new dtype
    if a.shape == (6, 4):
        return base.T
    if a.shape == (2, 3):
        return base[1:3, ::2]
    if a.shape == (4, 3):
        return base[::-1, ::-2]
    if a.shape == (4, 6):
        return base
    if a.shape == (0, 3):
        return np.zeros((0, 3), dtype=dtype)
    if a.shape == (5,):
        return base.ravel()[:5].copy()
    raise AssertionError(a.shape)


def numpy_case(layout, dtype):
    a = _layouts()[layout]
    if a.ndim == 0:
        out = np.array(3, dtype=dtype)
    else:
        out = _same_layout(a, dtype)
    if not a.flags.writeable:
        out.flags.writeable = False
    return out


@pytest.mark.parametrize("dtype", NUMPY_DTYPES)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_numpy_both_ways(layout, dtype):
    a = numpy_case(layout, dtype)
    v = pyad.from_dlpack(a)
    assert v.dtype == a.dtype and v.shape == a.shape
    np.testing.assert_array_equal(v.data, a)
    assert v.data.flags.writeable == a.flags.writeable
    if a.size:
        assert np.shares_memory(v.data, a)
    b = np.from_dlpack(Variable(a))
    np.testing.assert_array_equal(b, a)
    assert b.dtype == a.dtype
    if a.size:
        # NumPy asks with copy=None: only negative strides are copied (see the docs)
        assert np.shares_memory(b, a) == (layout != "negative-stride")
        assert np.shares_memory(np.from_dlpack(Variable(a), copy=False), a)


TORCH_DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
                "uint64", "float16", "bfloat16", "float32", "float64", "complex64",
                "complex128"]


def _torch_case(torch, layout, dtype):
    base = torch.arange(24).reshape(4, 6)
    base = base % 3 == 0 if dtype == "bool" else base.to(getattr(torch, dtype))
    return {"0d": lambda: base[1, 1].clone(), "empty": lambda: base[:0, :3],
            "transposed": lambda: base.t(), "sliced": lambda: base[1:3, ::2],
            "contiguous": lambda: base, "negative-stride": lambda: base.flip(0),
            "read-only": lambda: base[0]}[layout]()     # torch has no read-only tensors


@pytest.mark.parametrize("dtype", TORCH_DTYPES)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_torch_both_ways(torch, layout, dtype):
    if dtype == "bfloat16":
        pytest.importorskip("ml_dtypes")
    t = _torch_case(torch, layout, dtype)
    for tensor_or_capsule in (t, t.__dlpack__(max_version=(1, 0)),
                              torch.utils.dlpack.to_dlpack(t)):
        v = pyad.from_dlpack(tensor_or_capsule)
        assert v.shape == tuple(t.shape)
        assert v.data.flags.writeable
        if t.numel():
            assert v.data.ctypes.data == t.data_ptr()
        back = torch.from_dlpack(v)
        assert back.dtype == t.dtype and torch.equal(back, t)
        if t.numel():
            assert back.data_ptr() == t.data_ptr()
    if t.numel():
        flat = torch.from_dlpack(pyad.from_dlpack(t))
        flat.zero_()
        assert not t.any()


def aligned(a, alignment=64):
    """A C-contiguous copy of ``a`` at an address JAX can view (it copies the rest)."""
    raw = np.empty(a.nbytes + alignment, dtype=np.uint8)
    start = -raw.ctypes.data % alignment
    out = raw[start:start + a.nbytes].view(a.dtype).reshape(a.shape)
    out[...] = a
    return out


@pytest.mark.parametrize("dtype", ["bool", "int8", "int32", "int64", "uint8", "uint32",
                                   "float16", "float32", "float64", "complex64",
                                   "complex128", "bfloat16"])
@pytest.mark.parametrize("layout", ["0d", "empty", "contiguous", "read-only"])
def test_jax_both_ways(jax, layout, dtype):
    jnp = jax.numpy
    if dtype == "bfloat16":
        ml = pytest.importorskip("ml_dtypes")
        a = numpy_case(layout, "float32").astype(ml.bfloat16)
        a.flags.writeable = layout != "read-only"
    else:
        a = numpy_case(layout, dtype)
    j = jnp.asarray(a).copy()                    # JAX's own buffer, not a view of `a`
    v = pyad.from_dlpack(j)
    assert v.dtype == np.dtype(j.dtype) and v.shape == j.shape
    np.testing.assert_array_equal(np.asarray(v.data), np.asarray(j))
    if j.size:
        assert v.data.ctypes.data == j.unsafe_buffer_pointer()
    w = Variable(aligned(a))
    if layout == "read-only":
        # JAX asks for a legacy capsule, which cannot say "read-only"
        with pytest.raises(BufferError):
            jax.dlpack.from_dlpack(Variable(a))
        return
    back = jax.dlpack.from_dlpack(w)
    assert back.dtype == j.dtype
    np.testing.assert_array_equal(np.asarray(back), np.asarray(j))
    if j.size:
        assert back.unsafe_buffer_pointer() == w.data.ctypes.data


@pytest.mark.parametrize("layout", ["transposed", "negative-stride"])
def test_jax_takes_strided_views(jax, layout):
    a = numpy_case(layout, "float64")
    back = jax.dlpack.from_dlpack(Variable(a))
    np.testing.assert_array_equal(np.asarray(back), a)


def test_jax_refuses_non_compact_views_with_its_own_error(jax):
    a = numpy_case("sliced", "float64")
    with pytest.raises(Exception, match="compact"):
        jax.dlpack.from_dlpack(Variable(a))
    np.testing.assert_array_equal(np.asarray(jax.dlpack.from_dlpack(Variable(a).contiguous())),
                                  a)


@pytest.mark.parametrize("dtype", ["bool", "int8", "int16", "int32", "int64", "uint8",
                                   "uint16", "uint32", "uint64", "float32", "float64",
                                   "complex64", "complex128"])
@pytest.mark.parametrize("layout", LAYOUTS)
def test_array_api_strict_both_ways(xp, layout, dtype):
    a = numpy_case(layout, dtype)
    s = xp.from_dlpack(Variable(a))
    np.testing.assert_array_equal(np.asarray(s._array), a)
    if a.size:
        assert np.shares_memory(s._array, a) == (layout != "negative-stride")
    v = pyad.from_dlpack(s)
    np.testing.assert_array_equal(v.data, a)
    if a.size:
        assert np.shares_memory(v.data, s._array)
