"""DLPack exchange: zero-copy import and export with NumPy, legacy capsules,
PyTorch (when installed) and CuPy (when installed with a GPU)."""
import numpy as np
import pytest

import pyad
from pyad import Variable

DTYPES = [np.float16, np.float32, np.float64, np.int32, np.int64, np.uint8]


@pytest.fixture
def torch():
    return pytest.importorskip("torch")


@pytest.fixture
def cupy():
    cp = pytest.importorskip("cupy")
    try:
        if cp.cuda.runtime.getDeviceCount() < 1:
            pytest.skip("no CUDA device")
    except Exception as exc:  # pragma: no cover - depends on the machine
        pytest.skip("CUDA unavailable: %s" % exc)
    return cp


# --------------------------------------------------------------------------------
# NumPy
# --------------------------------------------------------------------------------

def test_dlpack_device_is_cpu():
    assert tuple(Variable(np.ones(3)).__dlpack_device__()) == (1, 0)


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_numpy_from_dlpack_of_variable_shares_memory(dtype):
    a = np.arange(6, dtype=dtype).reshape(2, 3)
    v = Variable(a)
    b = np.from_dlpack(v)
    assert b.dtype == a.dtype and b.shape == a.shape
    assert np.shares_memory(a, b)
    b[0, 0] = 42
    assert v.data[0, 0] == 42        # write through


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_pyad_from_dlpack_of_ndarray_shares_memory(dtype):
    a = np.arange(6, dtype=dtype)
    v = pyad.from_dlpack(a)
    assert isinstance(v, Variable)
    assert v.dtype == a.dtype
    assert np.shares_memory(v.data, a)
    v.data[1] = 9
    assert a[1] == 9
    a[2] = 7
    assert v.data[2] == 7


def test_from_dlpack_result_is_a_leaf_without_grad():
    v = pyad.from_dlpack(np.ones(3))
    assert v.is_leaf and not v.requires_grad and v.grad_fn is None


def test_from_dlpack_result_can_require_grad_and_differentiate():
    v = pyad.from_dlpack(np.array([1.0, 2.0]))
    v.requires_grad_()
    (v * v).sum().backward()
    np.testing.assert_array_equal(v.grad.data, [2.0, 4.0])


def test_legacy_capsule_round_trip_shares_memory():
    a = np.arange(4.0)
    capsule = pyad.to_dlpack(Variable(a))
    assert type(capsule).__name__ == "PyCapsule"
    w = pyad.from_dlpack(capsule)
    np.testing.assert_array_equal(w.data, a)
    assert np.shares_memory(w.data, a)


def test_versioned_capsule_round_trip_shares_memory():
    a = np.arange(4.0)
    capsule = Variable(a).__dlpack__(max_version=(1, 0))
    w = pyad.from_dlpack(capsule)
    assert np.shares_memory(w.data, a)


def test_capsule_cannot_be_consumed_twice():
    capsule = pyad.to_dlpack(Variable(np.arange(3.0)))
    pyad.from_dlpack(capsule)
    with pytest.raises((ValueError, BufferError, RuntimeError)):
        pyad.from_dlpack(capsule)


def test_from_dlpack_of_variable_returns_it():
    v = Variable(np.ones(2))
    assert pyad.from_dlpack(v) is v


def test_from_dlpack_of_non_dlpack_object_raises_type_error():
    with pytest.raises(TypeError):
        pyad.from_dlpack(5)


def test_export_of_variable_requiring_grad_raises():
    x = Variable(np.ones(3), requires_grad=True)
    with pytest.raises(RuntimeError, match="detach"):
        np.from_dlpack(x)
    with pytest.raises(RuntimeError, match="detach"):
        pyad.to_dlpack(x)
    with pytest.raises(RuntimeError, match="detach"):
        x.__dlpack__()


def test_export_of_non_leaf_requiring_grad_raises_detached_works():
    y = Variable(np.ones(3), requires_grad=True) * 2.0
    with pytest.raises(RuntimeError):
        np.from_dlpack(y)
    b = np.from_dlpack(y.detach())
    assert np.shares_memory(b, y.data)


@pytest.mark.parametrize("make", [lambda a: a[:, ::2], lambda a: a.T, lambda a: a[1:, 1:],
                                  lambda a: a[:, 1]],
                         ids=["step2", "transposed", "offset", "column"])
def test_non_contiguous_export_and_import_share_memory(make):
    base = np.arange(12.0).reshape(3, 4)
    view = make(base)
    b = np.from_dlpack(Variable(view))
    np.testing.assert_array_equal(b, view)
    assert np.shares_memory(b, base)
    w = pyad.from_dlpack(view)
    np.testing.assert_array_equal(w.data, view)
    assert np.shares_memory(w.data, base)


def test_negative_stride_export_gives_correct_values():
    base = np.arange(6.0)
    b = np.from_dlpack(Variable(base[::-1]))
    np.testing.assert_array_equal(b, base[::-1])


def test_negative_stride_import_shares_memory():
    base = np.arange(6.0)
    w = pyad.from_dlpack(base[::-1])
    np.testing.assert_array_equal(w.data, base[::-1])
    assert np.shares_memory(w.data, base)


def test_0d_round_trip():
    v = Variable(np.array(3.5))
    b = np.from_dlpack(v)
    assert b.shape == () and b == 3.5


def test_bool_export():
    a = np.array([True, False, True])
    np.testing.assert_array_equal(np.from_dlpack(Variable(a)), a)


def test_dlpack_with_cpu_dl_device_argument():
    a = np.arange(3.0)
    capsule = Variable(a).__dlpack__(dl_device=(1, 0))
    assert np.shares_memory(pyad.from_dlpack(capsule).data, a)


def test_dlpack_copy_true_does_not_share():
    a = np.arange(3.0)
    capsule = Variable(a).__dlpack__(copy=True, max_version=(1, 0))
    w = pyad.from_dlpack(capsule)
    np.testing.assert_array_equal(w.data, a)
    assert not np.shares_memory(w.data, a)


# --------------------------------------------------------------------------------
# PyTorch
# --------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64],
                         ids=["float32", "float64", "int64"])
def test_torch_from_dlpack_of_variable_shares_memory_both_directions(torch, dtype):
    a = np.arange(6, dtype=dtype).reshape(2, 3)
    v = Variable(a)
    t = torch.from_dlpack(v)
    assert tuple(t.shape) == (2, 3)
    t[0, 1] = 100
    assert v.data[0, 1] == 100
    v.data[1, 2] = -5
    assert t[1, 2].item() == -5


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
def test_pyad_from_dlpack_of_torch_tensor_shares_memory_both_directions(torch, dtype):
    t = torch.arange(6, dtype=getattr(torch, dtype)).reshape(2, 3)
    v = pyad.from_dlpack(t)
    assert v.dtype == np.dtype(dtype) and v.shape == (2, 3)
    v.data[0, 0] = 11
    assert t[0, 0].item() == 11
    t[1, 1] = 22
    assert v.data[1, 1] == 22


def test_torch_legacy_capsule_into_pyad_shares_memory(torch):
    t = torch.arange(4.0)
    v = pyad.from_dlpack(torch.utils.dlpack.to_dlpack(t))
    np.testing.assert_array_equal(v.data, [0.0, 1.0, 2.0, 3.0])
    t[0] = 9.0
    assert v.data[0] == 9.0




def test_torch_legacy_capsule_into_pyad_is_writable(torch):
    t = torch.arange(4.0)
    v = pyad.from_dlpack(torch.utils.dlpack.to_dlpack(t))
    v.add_(1.0)
    assert t[0].item() == 1.0


def test_legacy_capsule_round_trip_is_writable():
    a = np.arange(4.0)
    w = pyad.from_dlpack(pyad.to_dlpack(Variable(a)))
    w.data[0] = 5.0
    assert a[0] == 5.0


def test_pyad_legacy_capsule_into_torch(torch):
    a = np.arange(4.0)
    t = torch.utils.dlpack.from_dlpack(pyad.to_dlpack(Variable(a)))
    t[3] = -1.0
    assert a[3] == -1.0


def test_torch_non_contiguous_tensor_into_pyad(torch):
    t = torch.arange(12.0).reshape(3, 4).t()
    v = pyad.from_dlpack(t)
    np.testing.assert_array_equal(v.data, t.numpy())
    v.data[0, 2] = 55.0
    assert t[0, 2].item() == 55.0


def test_non_contiguous_variable_into_torch(torch):
    base = np.arange(12.0).reshape(3, 4)
    t = torch.from_dlpack(Variable(base[:, ::2]))
    np.testing.assert_array_equal(t.numpy(), base[:, ::2])
    t[2, 1] = 0.5
    assert base[2, 2] == 0.5


def test_negative_stride_variable_into_torch_gives_correct_values(torch):
    base = np.arange(6.0)
    t = torch.from_dlpack(Variable(base[::-1]))
    np.testing.assert_array_equal(t.numpy(), base[::-1])


def test_torch_tensor_requiring_grad_is_refused_by_torch(torch):
    # torch refuses to export a tensor that requires grad (BufferError); the error
    # reaches the caller unchanged
    t = torch.ones(3, requires_grad=True)
    with pytest.raises((BufferError, RuntimeError)):
        pyad.from_dlpack(t)
    v = pyad.from_dlpack(t.detach())
    assert v.shape == (3,)


def test_variable_built_from_torch_tensor_shares_memory(torch):
    t = torch.arange(3.0)
    v = Variable(t)
    assert v.dtype == np.float32
    v.data[0] = 5.0
    assert t[0].item() == 5.0


# --------------------------------------------------------------------------------
# CuPy (skipped without CuPy and a GPU)
# --------------------------------------------------------------------------------

def test_cupy_from_dlpack_of_cuda_variable_shares_memory(cupy):
    a = cupy.arange(6.0)
    v = Variable(a)
    assert v.__dlpack_device__()[0] == 2
    b = cupy.from_dlpack(v)
    b[0] = 42.0
    assert float(v.data[0]) == 42.0


def test_pyad_from_dlpack_of_cupy_array_shares_memory(cupy):
    a = cupy.arange(6.0)
    v = pyad.from_dlpack(a)
    assert isinstance(v.data, cupy.ndarray)
    v.data[1] = 7.0
    assert float(a[1]) == 7.0


def test_cuda_variable_into_torch_shares_memory(cupy, torch):
    if not torch.cuda.is_available():
        pytest.skip("torch without CUDA")
    a = cupy.arange(4.0)
    t = torch.from_dlpack(Variable(a))
    t[0] = 3.0
    assert float(a[0]) == 3.0


def test_legacy_capsule_import_honours_offsets_and_negative_strides():
    a = np.arange(24.0).reshape(4, 6)[::-2, 1:5:2]
    v = pyad.from_dlpack(a.__dlpack__())
    np.testing.assert_array_equal(v.data, a)
    assert np.shares_memory(v.data, a)


def test_legacy_capsule_cannot_be_imported_twice():
    capsule = np.ones(3).__dlpack__()
    pyad.from_dlpack(capsule)
    with pytest.raises(ValueError, match="used capsule"):
        pyad.from_dlpack(capsule)


def test_legacy_capsule_keeps_producer_memory_alive(torch):
    t = torch.arange(5.0)
    v = pyad.from_dlpack(torch.utils.dlpack.to_dlpack(t))
    del t
    import gc
    gc.collect()
    np.testing.assert_array_equal(v.data, np.arange(5.0))


def test_legacy_capsule_of_bool_and_int_dtypes(torch):
    b = pyad.from_dlpack(torch.utils.dlpack.to_dlpack(torch.tensor([True, False])))
    assert b.dtype == np.bool_ and b.tolist() == [True, False]
    i = pyad.from_dlpack(torch.utils.dlpack.to_dlpack(torch.tensor([1, 2], dtype=torch.int32)))
    assert i.dtype == np.int32 and i.tolist() == [1, 2]
