# DLPack exchange, both directions, as DLPack 1.1 and the array API standard say.
# Export (Variable.__dlpack__ / __dlpack_device__, two thin methods in the class calling
# _dlpack_export / _dlpack_device below, and to_dlpack) checks the request, then lets
# the array library build the capsule. Import of CPU data reads the capsule here (both
# layouts: legacy "dltensor" and "dltensor_versioned"), so that every field is checked
# before memory is touched, the producer's deleter always runs, legacy capsules import
# writable and bfloat16/float8 cross through ml_dtypes; CUDA data goes to CuPy.

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
    ctypedef struct pyad_DLPackVersion:
        uint32_t major
        uint32_t minor
    ctypedef struct pyad_DLManagedTensorVersioned:
        pyad_DLPackVersion version
        void* manager_ctx
        void (*deleter)(pyad_DLManagedTensorVersioned*)
        uint64_t flags
        pyad_DLTensor dl_tensor


# -- dtypes ------------------------------------------------------------------------

cdef int _DL_INT = 0
cdef int _DL_UINT = 1
cdef int _DL_FLOAT = 2
cdef int _DL_BFLOAT = 4
cdef int _DL_COMPLEX = 5
cdef int _DL_BOOL = 6
cdef uint64_t _DL_FLAG_READ_ONLY = 1
cdef uint64_t _DL_FLAG_IS_COPIED = 2

# The DLPack type codes NumPy has no dtype for, by the name of ml_dtypes' dtype for them
# (all 16 or 8 bits wide; DLPack 1.1 numbers the 8-bit floats 7 to 14).
cdef dict _ML_DTYPE_CODES = {
    "bfloat16": 4, "float8_e3m4": 7, "float8_e4m3": 8, "float8_e4m3b11fnuz": 9,
    "float8_e4m3fn": 10, "float8_e4m3fnuz": 11, "float8_e5m2": 12, "float8_e5m2fnuz": 13,
    "float8_e8m0fnu": 14,
}
cdef dict _ML_DTYPE_NAMES = {code: name for name, code in _ML_DTYPE_CODES.items()}
cdef dict _DL_WIDTHS = {
    0: (8, 16, 32, 64), 1: (8, 16, 32, 64), 2: (16, 32, 64), 5: (64, 128), 6: (8,),
}
cdef dict _DL_KINDS = {0: "i", 1: "u", 2: "f", 5: "c"}


import importlib


def _ml_dtypes():
    """The ml_dtypes module (the ``bfloat16`` extra), imported on first use."""
    try:
        ml_dtypes = importlib.import_module("ml_dtypes")
    except ImportError:
        raise BufferError('from_dlpack(): bfloat16 and float8 data need the ml_dtypes '
                          'package: pip install "pyad[bfloat16]"') from None
    return ml_dtypes


cdef object _dtype_from_dl(int code, int bits, int lanes):
    if lanes != 1:
        raise BufferError("from_dlpack(): vector dtypes (lanes=%d) are not supported" % lanes)
    if code in _ML_DTYPE_NAMES:
        if bits != (16 if code == _DL_BFLOAT else 8):
            raise BufferError("from_dlpack(): invalid DLPack dtype (code %d, %d bits)"
                              % (code, bits))
        return numpy.dtype(getattr(_ml_dtypes(), _ML_DTYPE_NAMES[code]))
    widths = _DL_WIDTHS.get(code)
    if widths is None or bits not in widths:
        raise BufferError("from_dlpack(): unsupported DLPack dtype (code %d, %d bits)"
                          % (code, bits))
    if code == _DL_BOOL:
        return numpy.dtype(numpy.bool_)
    return numpy.dtype("%s%d" % (_DL_KINDS[code], bits // 8))


# -- export ------------------------------------------------------------------------

cdef pyad_DLTensor* _capsule_tensor(object capsule, uint64_t** flags):
    # The DLTensor of an unconsumed capsule of either layout (NULL when it is neither);
    # *flags points at the versioned layout's flags, NULL for the legacy one.
    cdef pyad_DLManagedTensorVersioned* versioned
    flags[0] = NULL
    if PyCapsule_IsValid(capsule, b"dltensor_versioned"):
        versioned = <pyad_DLManagedTensorVersioned*>PyCapsule_GetPointer(
            capsule, b"dltensor_versioned")
        flags[0] = &versioned.flags
        return &versioned.dl_tensor
    if PyCapsule_IsValid(capsule, b"dltensor"):
        return &(<pyad_DLManagedTensor*>PyCapsule_GetPointer(capsule, b"dltensor")).dl_tensor
    return NULL


cdef tuple _check_dl_device(object dev, str what):
    if type(dev) is not tuple or len(dev) != 2 or not isinstance(dev[0], int) \
            or not isinstance(dev[1], int):
        raise TypeError("%s must be a tuple (device_type, device_id) of two integers, got %r"
                        % (what, dev))
    return (int(dev[0]), int(dev[1]))


cdef object _dlpack_export(Variable v, object stream, object max_version, object dl_device,
                           object copy):
    cdef pyad_DLTensor* t
    cdef uint64_t* flags
    if v._requires_grad:
        raise RuntimeError("__dlpack__(): Can't export a Variable that requires grad through "
                           "DLPack; use var.detach() first.")
    if max_version is not None and (
            type(max_version) is not tuple or len(max_version) != 2
            or not isinstance(max_version[0], int) or not isinstance(max_version[1], int)):
        raise TypeError("__dlpack__(): max_version must be None or a tuple (major, minor) of "
                        "two integers, got %r" % (max_version,))
    if copy is not None and not isinstance(copy, bool):
        raise TypeError("__dlpack__(): copy must be None, True or False, got %r" % (copy,))
    own = _dlpack_device(v)
    if dl_device is not None:
        dl_device = _check_dl_device(dl_device, "__dlpack__(): dl_device")
    data = v._data
    if type(data) is not _NDARRAY:
        return _dlpack_export_device(data, stream, max_version, dl_device, copy, own)
    if stream is not None:
        raise BufferError("__dlpack__(): stream must be None for data on the CPU, got %r"
                          % (stream,))
    if dl_device is not None and dl_device != own:
        raise BufferError("__dlpack__(): cannot export the Variable's data (on DLPack device "
                          "%r) to DLPack device %r" % (own, dl_device))
    copied = False
    if copy is None and data.ndim and builtins.min(data.strides) < 0:
        # DLPack allows negative strides, but PyTorch aborts the whole process on them:
        # unless the consumer said it takes a view as it is (copy=False), hand it a
        # compact copy, flagged IS_COPIED in a versioned capsule.
        data = numpy.ascontiguousarray(data)
        copied = True
    code = _ML_DTYPE_CODES.get(data.dtype.name) \
        if data.dtype.type.__module__ == "ml_dtypes" else None
    if code is not None:
        # NumPy cannot export ml_dtypes' types: export the same bytes as unsigned
        # integers of the same width, then give the fresh capsule the right type code.
        data = data.view(numpy.uint16 if data.dtype.itemsize == 2 else numpy.uint8)
    kwargs = {}
    if max_version is not None:
        kwargs["max_version"] = max_version
    if copy is not None:
        kwargs["copy"] = copy
    capsule = data.__dlpack__(**kwargs)
    t = _capsule_tensor(capsule, &flags)
    if t != NULL:
        if code is not None:
            t.dtype.code = <uint8_t>code
        if copied and flags != NULL:
            flags[0] |= _DL_FLAG_IS_COPIED
    return capsule


cdef object _dlpack_export_device(object data, object stream, object max_version,
                                  object dl_device, object copy, tuple own):
    # CuPy data: CuPy handles streams and devices. Older CuPy lacks the DLPack 1.0
    # keywords: then only requests it can meet without them pass.
    kwargs = {"stream": stream}
    if max_version is not None:
        kwargs["max_version"] = max_version
    if dl_device is not None:
        kwargs["dl_device"] = dl_device
    if copy is not None:
        kwargs["copy"] = copy
    try:
        return data.__dlpack__(**kwargs)
    except TypeError:
        if len(kwargs) == 1:
            raise
    if dl_device is not None and dl_device != own:
        raise BufferError("__dlpack__(): cannot export the Variable's data (on DLPack device "
                          "%r) to DLPack device %r" % (own, dl_device))
    if copy:
        data = data.copy()
    return data.__dlpack__(stream=stream)


cdef object _dlpack_device(Variable v):
    return tuple(v._data.__dlpack_device__())


def to_dlpack(tensor):
    """A legacy DLPack capsule for ``tensor`` (prefer passing the Variable itself).

    Parameters
    ----------
    tensor : Variable
        A Variable that does not require grad.

    Returns
    -------
    PyCapsule
        A ``"dltensor"`` capsule sharing ``tensor``'s memory; it can be consumed once.

    Examples
    --------
    >>> capsule = to_dlpack(pyad.arange(3.0))
    >>> from_dlpack(capsule)
    tensor([0., 1., 2.])
    """
    if not isinstance(tensor, Variable):
        raise TypeError("to_dlpack(): argument 'tensor' (position 1) must be Variable, not %s"
                        % type(tensor).__name__)
    return _dlpack_export(<Variable>tensor, None, None, None, None)


# -- import ------------------------------------------------------------------------

cdef int _DL_CPU = 1
cdef int _DL_CUDA = 2
cdef int _DL_CUDA_HOST = 3
cdef int _DL_CUDA_MANAGED = 13


cdef str _CAPSULE_ERROR = ("from_dlpack(): the capsule is not an unconsumed DLPack tensor "
                           "(its name must be 'dltensor' or 'dltensor_versioned'; a used "
                           "capsule cannot be imported twice)")


cdef extern from "numpy/arrayobject.h":
    # NumPy's own prototype takes a PyArray_Descr*, not a PyObject* (GCC 14 rejects the
    # mismatch as an incompatible pointer type). Declared as returning `object`, so that
    # Cython owns the new reference (a `<object>` cast of a PyObject* would add one more,
    # and the array, its owner and the producer's memory would never be freed).
    ctypedef struct _pyad_PyArray_Descr "PyArray_Descr":
        pass
    object PyArray_NewFromDescr(PyTypeObject* subtype, _pyad_PyArray_Descr* descr, int nd,
                                cnp.npy_intp* dims, cnp.npy_intp* strides, void* data,
                                int flags, PyObject* obj)


cdef class _LegacyDLPackOwner:
    # Keeps a consumed legacy DLManagedTensor alive as the base of the array that views
    # it, and calls the producer's deleter when that array is freed.
    cdef pyad_DLManagedTensor* managed

    def __dealloc__(self):
        if self.managed != NULL and self.managed.deleter != NULL:
            self.managed.deleter(self.managed)
        self.managed = NULL


cdef class _VersionedDLPackOwner:
    # The same for a DLManagedTensorVersioned (its deleter takes the versioned struct).
    cdef pyad_DLManagedTensorVersioned* managed

    def __dealloc__(self):
        if self.managed != NULL and self.managed.deleter != NULL:
            self.managed.deleter(self.managed)
        self.managed = NULL


cdef tuple _capsule_device(object capsule):
    cdef uint64_t* flags
    cdef pyad_DLTensor* t = _capsule_tensor(capsule, &flags)
    if t == NULL:
        raise ValueError(_CAPSULE_ERROR)
    return (t.device.device_type, t.device.device_id)


cdef object _array_from_capsule(object capsule):
    # A NumPy array viewing an unconsumed CPU capsule of either layout. Every field is
    # checked before the capsule is marked used: on an error its own destructor still
    # frees the tensor.
    cdef pyad_DLManagedTensor* legacy = NULL
    cdef pyad_DLManagedTensorVersioned* versioned = NULL
    cdef pyad_DLTensor* t
    cdef bint readonly = False
    if PyCapsule_IsValid(capsule, b"dltensor_versioned"):
        versioned = <pyad_DLManagedTensorVersioned*>PyCapsule_GetPointer(
            capsule, b"dltensor_versioned")
        if versioned == NULL:
            raise BufferError("from_dlpack(): the capsule holds no tensor")
        if versioned.version.major != 1:
            raise BufferError("from_dlpack(): unsupported DLPack version %d.%d (pyad reads 1.x)"
                              % (versioned.version.major, versioned.version.minor))
        t = &versioned.dl_tensor
        readonly = (versioned.flags & _DL_FLAG_READ_ONLY) != 0
    elif PyCapsule_IsValid(capsule, b"dltensor"):
        # The legacy protocol carried no read-only flag and its producers (torch) export
        # writable memory: import it writable, as torch does (NumPy would mark it
        # read-only, since it cannot tell).
        legacy = <pyad_DLManagedTensor*>PyCapsule_GetPointer(capsule, b"dltensor")
        if legacy == NULL:
            raise BufferError("from_dlpack(): the capsule holds no tensor")
        t = &legacy.dl_tensor
    else:
        raise ValueError(_CAPSULE_ERROR)
    cdef int ndim = t.ndim
    cdef int i
    cdef cnp.npy_intp dims[64]
    cdef cnp.npy_intp strides[64]
    if t.device.device_type != _DL_CPU and t.device.device_type != _DL_CUDA_HOST:
        raise BufferError("from_dlpack(): the capsule's data is not in host memory (DLPack "
                          "device %d)" % t.device.device_type)
    if ndim < 0 or ndim > 64:
        raise BufferError("from_dlpack(): unsupported number of dimensions %d" % ndim)
    if ndim > 0 and t.shape == NULL:
        raise BufferError("from_dlpack(): the tensor has no shape")
    dtype = _dtype_from_dl(t.dtype.code, t.dtype.bits, t.dtype.lanes)
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
    # From here on we call the deleter, through the owner that is the array's base.
    if versioned != NULL:
        owner = _VersionedDLPackOwner.__new__(_VersionedDLPackOwner)
        PyCapsule_SetName(capsule, b"used_dltensor_versioned")
        (<_VersionedDLPackOwner>owner).managed = versioned
    else:
        owner = _LegacyDLPackOwner.__new__(_LegacyDLPackOwner)
        PyCapsule_SetName(capsule, b"used_dltensor")
        (<_LegacyDLPackOwner>owner).managed = legacy
    Py_INCREF(dtype)                                 # NewFromDescr steals a reference
    arr = PyArray_NewFromDescr(
        <PyTypeObject*>numpy.ndarray, <_pyad_PyArray_Descr*><PyObject*>dtype, ndim, dims,
        strides, <void*>data, 0 if readonly else cnp.NPY_ARRAY_WRITEABLE, NULL)
    cnp.set_array_base(<cnp.ndarray>arr, owner)
    return arr


_DEVICE_TYPE = device


cdef tuple _target_device(object device, tuple source):
    # The DLPack device `from_dlpack(..., device=)` asks for (None: where the data is).
    if device is None:
        return source
    if isinstance(device, tuple):
        return _check_dl_device(device, "from_dlpack(): device")
    try:
        dev = _DEVICE_TYPE(device)
    except Exception:
        raise ValueError("from_dlpack(): unknown device %r" % (device,)) from None
    if dev.type == "cpu":
        return (_DL_CPU, 0)
    return (_DL_CUDA, dev.index)


def _array_from_dlpack(obj, device=None, copy=None):
    """The NumPy/CuPy array sharing memory with a DLPack producer or capsule."""
    if copy is not None and not isinstance(copy, bool):
        raise TypeError("from_dlpack(): copy must be None, True or False, got %r" % (copy,))
    if type(obj).__name__ == "PyCapsule":
        dev = _capsule_device(obj)
        target = _target_device(device, dev)
        if target != dev:
            raise BufferError("from_dlpack(): a capsule cannot be moved from DLPack device %r "
                              "to %r; pass the producing object instead" % (dev, target))
        if dev[0] == _DL_CPU or dev[0] == _DL_CUDA_HOST:
            arr = _array_from_capsule(obj)
            return arr.copy() if copy else arr
        return _array_from_cuda(_CapsuleProducer(obj, dev), dev, copy)
    if not hasattr(obj, "__dlpack__"):
        raise TypeError("from_dlpack(): expected an object with __dlpack__ or a DLPack capsule, "
                        "got %s" % type(obj).__name__)
    if type(obj) is _NDARRAY and obj.dtype.type.__module__ == "ml_dtypes" and device is None:
        # NumPy cannot export ml_dtypes' types through DLPack; they need none.
        return obj.copy() if copy else obj.view()
    dev = obj.__dlpack_device__()
    if type(dev) is not tuple or len(dev) != 2 or not isinstance(dev[0], int) \
            or not isinstance(dev[1], int):
        raise TypeError("from_dlpack(): %s.__dlpack_device__() must return a tuple "
                        "(device_type, device_id) of two integers, got %r"
                        % (type(obj).__name__, dev))
    dev = (int(dev[0]), int(dev[1]))
    target = _target_device(device, dev)
    if target[0] == _DL_CUDA or target[0] == _DL_CUDA_MANAGED:
        return _array_from_cuda(obj, dev, copy)
    if target[0] != _DL_CPU and target[0] != _DL_CUDA_HOST:
        raise BufferError("from_dlpack(): unsupported DLPack device type %d" % target[0])
    kwargs = {"max_version": (1, 1)}
    if target != dev:
        kwargs["dl_device"] = target
    if copy is not None:
        kwargs["copy"] = copy
    try:
        capsule = obj.__dlpack__(**kwargs)
    except TypeError:
        # A producer from before DLPack 1.0 takes no keywords and returns a legacy
        # capsule: do what was asked of it here.
        if target != dev:
            raise BufferError("from_dlpack(): %s cannot move its data to DLPack device %r"
                              % (type(obj).__name__, target)) from None
        capsule = obj.__dlpack__()
        arr = _array_from_capsule(capsule)
        return arr.copy() if copy else arr
    return _array_from_capsule(capsule)


cdef object _array_from_cuda(object producer, tuple dev, object copy):
    if cupy is None:
        raise RuntimeError("from_dlpack(): the data is on a CUDA device (DLPack device %s); "
                           "importing it needs CuPy (pip install pyad[cuda])" % (dev,))
    arr = cupy.from_dlpack(producer)
    return arr.copy() if copy else arr


class _CapsuleProducer:
    # cupy.from_dlpack takes producers, not bare capsules: present a capsule as one.
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


def from_dlpack(ext_tensor, *, device=None, copy=None):
    """A Variable sharing memory with any DLPack producer (NumPy, CuPy, PyTorch, JAX...).

    Also accepts a DLPack capsule (legacy or versioned), which can be consumed once.

    Parameters
    ----------
    ext_tensor : object
        An object with ``__dlpack__`` and ``__dlpack_device__``, or a capsule.
    device : str or device or tuple, optional
        Where the result should live (``"cpu"``, ``"cuda:0"``, or a DLPack
        ``(device_type, device_id)``); ``None`` keeps the producer's device.
    copy : bool, optional
        ``True`` always copies, ``False`` never does (``BufferError`` if a copy would be
        needed), ``None`` copies only if it must.

    Returns
    -------
    Variable
        A leaf that does not require grad.

    Examples
    --------
    >>> a = numpy.arange(3.)
    >>> v = from_dlpack(a)
    >>> v.data[0] = 7.
    >>> a[0]
    np.float64(7.0)
    """
    if isinstance(ext_tensor, Variable):
        var = <Variable>ext_tensor
        target = _target_device(device, _dlpack_device(var))
        if target != _dlpack_device(var):
            if copy is False:
                raise BufferError("from_dlpack(): moving the Variable to %r needs a copy, "
                                  "and copy=False" % (device,))
            return var.detach().to("cpu" if target[0] == _DL_CPU else "cuda:%d" % target[1])
        if copy:
            return _wrap(var._data.copy())
        return ext_tensor
    return _wrap(_array_from_dlpack(ext_tensor, device, copy))
