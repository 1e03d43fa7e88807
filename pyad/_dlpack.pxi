# DLPack exchange, both directions. Export (Variable.__dlpack__ and __dlpack_device__,
# two thin methods in the class calling _dlpack_export / _dlpack_device below, and
# to_dlpack) delegates to the array library's own __dlpack__; import goes through
# numpy.from_dlpack / cupy.from_dlpack, so byte_offset, strides, read-only flags and
# streams are handled by those libraries.

from cpython.pycapsule cimport PyCapsule_IsValid, PyCapsule_GetPointer, PyCapsule_SetName
from cpython.ref cimport Py_INCREF
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
    ctypedef struct pyad_DLDataType:
        uint8_t code
        uint8_t bits
        uint16_t lanes
    ctypedef struct pyad_DLTensor:
        void* data
        pyad_DLDevice device
        int32_t ndim
        pyad_DLDataType dtype
        int64_t* shape
        int64_t* strides
        uint64_t byte_offset
    ctypedef struct pyad_DLManagedTensor:
        pyad_DLTensor dl_tensor
        void* manager_ctx
        void (*deleter)(pyad_DLManagedTensor*)
    ctypedef struct pyad_DLManagedTensorVersioned:
        pyad_DLTensor dl_tensor


# -- export ------------------------------------------------------------------------

cdef object _dlpack_export(Variable v, object stream, object max_version, object dl_device,
                           object copy):
    if v._requires_grad:
        raise RuntimeError("__dlpack__(): Can't export a Variable that requires grad through "
                           "DLPack; use var.detach() first.")
    kwargs = {}
    if stream is not None:
        kwargs["stream"] = stream
    if max_version is not None:
        kwargs["max_version"] = max_version
    if dl_device is not None:
        kwargs["dl_device"] = dl_device
    if copy is not None:
        kwargs["copy"] = copy
    data = v._data
    if copy is None and type(data) is _NDARRAY and data.ndim and \
            builtins.min(data.strides) < 0:
        # Several consumers (torch among them) abort on negative strides: when a
        # copy is allowed, hand out a contiguous one instead.
        data = data.copy()
    try:
        return data.__dlpack__(**kwargs)
    except TypeError:
        if "max_version" in kwargs or "dl_device" in kwargs or "copy" in kwargs:
            kwargs.pop("max_version", None)
            if kwargs.pop("dl_device", None) not in (None, _dlpack_device(v)):
                raise BufferError("__dlpack__(): cannot export to the requested device")
            if kwargs.pop("copy", None):
                return data.copy().__dlpack__(**kwargs)
            return data.__dlpack__(**kwargs)
        raise


cdef object _dlpack_device(Variable v):
    return v._data.__dlpack_device__()


def to_dlpack(Variable tensor):
    """A legacy DLPack capsule for ``tensor`` (prefer passing the Variable itself)."""
    return _dlpack_export(tensor, None, None, None, None)


# -- import ------------------------------------------------------------------------

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
    raise ValueError("from_dlpack(): the capsule is not an unconsumed DLPack tensor (its name "
                     "must be 'dltensor' or 'dltensor_versioned'; a used capsule cannot be "
                     "imported twice)")


cdef extern from "numpy/arrayobject.h":
    # NumPy's own prototype takes a PyArray_Descr*, not a PyObject* (GCC 14 rejects the
    # mismatch as an incompatible pointer type).
    ctypedef struct _pyad_PyArray_Descr "PyArray_Descr":
        pass
    PyObject* PyArray_NewFromDescr(PyTypeObject* subtype, _pyad_PyArray_Descr* descr, int nd,
                                   cnp.npy_intp* dims, cnp.npy_intp* strides, void* data,
                                   int flags, PyObject* obj) except NULL


cdef class _LegacyDLPackOwner:
    # Keeps a consumed legacy DLManagedTensor alive as the base of the array that views
    # it, and calls the producer's deleter when that array is freed.
    cdef pyad_DLManagedTensor* managed

    def __dealloc__(self):
        if self.managed != NULL and self.managed.deleter != NULL:
            self.managed.deleter(self.managed)
        self.managed = NULL


cdef dict _DL_KINDS = {0: "i", 1: "u", 2: "f", 5: "c", 6: "b"}


cdef object _array_from_legacy_capsule(object capsule):
    # NumPy imports an unversioned capsule read-only (it cannot tell), but the legacy
    # protocol carried no read-only flag and producers (torch) export writable memory:
    # build a writable view ourselves, checking every field before touching memory.
    cdef pyad_DLManagedTensor* managed = <pyad_DLManagedTensor*>PyCapsule_GetPointer(
        capsule, b"dltensor")
    if managed == NULL:
        raise BufferError("from_dlpack(): the capsule holds no tensor")
    cdef pyad_DLTensor* t = &managed.dl_tensor
    cdef int ndim = t.ndim
    cdef int i
    cdef cnp.npy_intp dims[64]
    cdef cnp.npy_intp strides[64]
    if ndim < 0 or ndim > 64:
        raise BufferError("from_dlpack(): unsupported number of dimensions %d" % ndim)
    if ndim > 0 and t.shape == NULL:
        raise BufferError("from_dlpack(): the tensor has no shape")
    if t.dtype.lanes != 1 or t.dtype.code not in _DL_KINDS or t.dtype.bits % 8 != 0:
        raise BufferError("from_dlpack(): unsupported DLPack dtype (code %d, bits %d, lanes %d)"
                          % (t.dtype.code, t.dtype.bits, t.dtype.lanes))
    kind = _DL_KINDS[t.dtype.code]
    dtype = numpy.dtype("?" if kind == "b" else "%s%d" % (kind, t.dtype.bits // 8))
    cdef Py_ssize_t itemsize = dtype.itemsize
    cdef Py_ssize_t expected = itemsize
    for i in range(ndim - 1, -1, -1):
        if t.shape[i] < 0:
            raise BufferError("from_dlpack(): negative dimension %d" % t.shape[i])
        dims[i] = <cnp.npy_intp>t.shape[i]
        # NULL strides mean compact row-major (DLPack < 1.2 allowed it).
        strides[i] = <cnp.npy_intp>(t.strides[i] * itemsize if t.strides != NULL else expected)
        expected *= t.shape[i]
    cdef char* data = <char*>t.data
    if data == NULL and expected != 0:
        raise BufferError("from_dlpack(): the tensor has no data")
    if data != NULL:
        data += t.byte_offset
    owner = _LegacyDLPackOwner.__new__(_LegacyDLPackOwner)
    PyCapsule_SetName(capsule, b"used_dltensor")   # we call the deleter from now on
    (<_LegacyDLPackOwner>owner).managed = managed
    Py_INCREF(dtype)                                 # NewFromDescr steals a reference
    arr = <object>PyArray_NewFromDescr(
        <PyTypeObject*>numpy.ndarray, <_pyad_PyArray_Descr*><PyObject*>dtype, ndim, dims, strides, <void*>data,
        cnp.NPY_ARRAY_WRITEABLE, NULL)
    cnp.set_array_base(<cnp.ndarray>arr, owner)
    return arr


class _CapsuleProducer:
    # numpy.from_dlpack takes producers, not bare capsules: present a capsule as one.
    def __init__(self, capsule, device):
        self._capsule = capsule
        self._device = device

    def __dlpack__(self, stream=None, max_version=None, dl_device=None, copy=None):
        capsule, self._capsule = self._capsule, None
        if capsule is None:
            raise BufferError("from_dlpack(): this capsule was already consumed")
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
        if dev[0] in (_DL_CPU, _DL_CUDA_HOST) and PyCapsule_IsValid(obj, b"dltensor"):
            return _array_from_legacy_capsule(obj)
        producer = _CapsuleProducer(obj, dev)
    else:
        raise TypeError("from_dlpack(): expected an object with __dlpack__ or a DLPack capsule, "
                        "got %s" % type(obj).__name__)
    kind = dev[0]
    if kind == _DL_CPU or kind == _DL_CUDA_HOST:
        return numpy.from_dlpack(producer)
    if kind == _DL_CUDA or kind == _DL_CUDA_MANAGED:
        if cupy is None:
            raise RuntimeError("from_dlpack(): the data is on a CUDA device (DLPack device %s); "
                               "importing it needs CuPy (pip install pyad[cuda])" % (dev,))
        if producer is not obj:
            return cupy.from_dlpack(obj)
        return cupy.from_dlpack(producer)
    raise BufferError("from_dlpack(): unsupported DLPack device type %d" % kind)


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

