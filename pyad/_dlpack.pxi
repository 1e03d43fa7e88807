# DLPack exchange. Export delegates to the array library's own __dlpack__ (see
# Variable.__dlpack__); import goes through numpy.from_dlpack / cupy.from_dlpack, so
# byte_offset, strides, read-only flags and streams are handled by those libraries.

from cpython.pycapsule cimport PyCapsule_IsValid, PyCapsule_GetPointer
from libc.stdint cimport int32_t, int64_t, uint8_t, uint16_t, uint32_t, uint64_t


cdef extern from *:
    """
    typedef struct { int32_t device_type; int32_t device_id; } pyad_DLDevice;
    typedef struct { uint8_t code; uint8_t bits; uint16_t lanes; } pyad_DLDataType;
    typedef struct {
        void* data; pyad_DLDevice device; int32_t ndim; pyad_DLDataType dtype;
        int64_t* shape; int64_t* strides; uint64_t byte_offset;
    } pyad_DLTensor;
    typedef struct { pyad_DLTensor dl_tensor; void* manager_ctx; void (*deleter)(void*); }
        pyad_DLManagedTensor;
    typedef struct { uint32_t major; uint32_t minor; } pyad_DLPackVersion;
    typedef struct {
        pyad_DLPackVersion version; void* manager_ctx; void (*deleter)(void*);
        uint64_t flags; pyad_DLTensor dl_tensor;
    } pyad_DLManagedTensorVersioned;
    """
    ctypedef struct pyad_DLDevice:
        int32_t device_type
        int32_t device_id
    ctypedef struct pyad_DLTensor:
        pyad_DLDevice device
    ctypedef struct pyad_DLManagedTensor:
        pyad_DLTensor dl_tensor
    ctypedef struct pyad_DLManagedTensorVersioned:
        pyad_DLTensor dl_tensor


cdef int _DL_CPU = 1
cdef int _DL_CUDA = 2
cdef int _DL_CUDA_HOST = 3
cdef int _DL_CUDA_MANAGED = 13


cdef tuple _capsule_device(object capsule):
    # The struct layout differs between the legacy and versioned capsules: never cast
    # one to the other; the capsule's name says which one it is.
    cdef pyad_DLManagedTensor* legacy
    cdef pyad_DLManagedTensorVersioned* versioned
    if PyCapsule_IsValid(capsule, b"dltensor"):
        legacy = <pyad_DLManagedTensor*>PyCapsule_GetPointer(capsule, b"dltensor")
        return (legacy.dl_tensor.device.device_type, legacy.dl_tensor.device.device_id)
    if PyCapsule_IsValid(capsule, b"dltensor_versioned"):
        versioned = <pyad_DLManagedTensorVersioned*>PyCapsule_GetPointer(
            capsule, b"dltensor_versioned")
        return (versioned.dl_tensor.device.device_type, versioned.dl_tensor.device.device_id)
    raise ValueError("from_dlpack: the capsule is not an unconsumed DLPack tensor (its name "
                     "must be 'dltensor' or 'dltensor_versioned'; a used capsule cannot be "
                     "imported twice)")


class _CapsuleProducer:
    # numpy.from_dlpack takes producers, not bare capsules: present a capsule as one.
    def __init__(self, capsule, device):
        self._capsule = capsule
        self._device = device

    def __dlpack__(self, stream=None, max_version=None, dl_device=None, copy=None):
        capsule, self._capsule = self._capsule, None
        if capsule is None:
            raise BufferError("from_dlpack: this capsule was already consumed")
        return capsule

    def __dlpack_device__(self):
        return self._device


def _array_from_dlpack(obj):
    """The NumPy/CuPy array sharing memory with a DLPack producer or capsule."""
    if hasattr(obj, "__dlpack__"):
        dev = tuple(obj.__dlpack_device__())
        producer = obj
    elif type(obj).__name__ == "PyCapsule":
        dev = _capsule_device(obj)
        producer = _CapsuleProducer(obj, dev)
    else:
        raise TypeError("from_dlpack: expected an object with __dlpack__ or a DLPack capsule, "
                        "got %s" % type(obj).__name__)
    kind = dev[0]
    if kind == _DL_CPU or kind == _DL_CUDA_HOST:
        return numpy.from_dlpack(producer)
    if kind == _DL_CUDA or kind == _DL_CUDA_MANAGED:
        if cupy is None:
            raise RuntimeError("from_dlpack: the data is on a CUDA device (DLPack device %s); "
                               "importing it needs CuPy (pip install pyad[cuda])" % (dev,))
        if producer is not obj:
            return cupy.from_dlpack(obj)
        return cupy.from_dlpack(producer)
    raise BufferError("from_dlpack: unsupported DLPack device type %d" % kind)


def from_dlpack(ext_tensor):
    """A Variable sharing memory with any DLPack producer (NumPy, CuPy, PyTorch, JAX...).

    Also accepts a legacy ``PyCapsule``. Nothing is copied.

    >>> a = numpy.arange(3.)
    >>> v = from_dlpack(a)
    >>> v.data[0] = 7.
    >>> a[0]
    np.float64(7.0)
    """
    if isinstance(ext_tensor, Variable):
        return ext_tensor
    return _wrap(_array_from_dlpack(ext_tensor))


def to_dlpack(Variable tensor):
    """A legacy DLPack capsule for ``tensor`` (prefer passing the Variable itself)."""
    return tensor.__dlpack__()
