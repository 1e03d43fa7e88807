"""``pyad.cuda``: the GPU questions a torch script asks first, as ``torch.cuda``.

CuPy answers them when it is installed and sees an NVIDIA device; otherwise pyad has no
GPU: `is_available` is False, `device_count` is 0, the seeding functions do nothing (as
torch's do without CUDA) and the functions that need a device raise ``RuntimeError``.

>>> import pyad
>>> device = pyad.device("cuda" if pyad.cuda.is_available() else "cpu")
>>> pyad.zeros(2, device=device).device == device
True
"""
from pyad import _engine

__all__ = ["is_available", "device_count", "current_device", "set_device", "get_device_name",
           "synchronize", "manual_seed", "manual_seed_all", "memory_allocated", "empty_cache",
           "is_initialized", "get_rng_state", "set_rng_state", "amp", "memory_reserved",
           "max_memory_allocated", "max_memory_reserved", "reset_peak_memory_stats",
           "reset_max_memory_allocated", "memory_stats", "is_bf16_supported",
           "get_device_capability", "Event", "Stream", "current_stream", "default_stream",
           "stream", "StreamContext"]


def _cupy():
    """CuPy if it is installed and sees at least one device, else None."""
    cp = _engine.cupy
    if cp is None:
        return None
    try:
        if cp.cuda.runtime.getDeviceCount() < 1:
            return None
    except Exception:
        return None
    return cp


def _require(what):
    cp = _cupy()
    if cp is None:
        raise RuntimeError("pyad.cuda.%s(): no GPU: CuPy is not installed or sees no NVIDIA "
                           "device (pyad.cuda.is_available() is False)" % what)
    return cp


def _index(device, what):
    if device is None:
        return _require(what).cuda.runtime.getDevice()
    if isinstance(device, int):
        return device
    dev = _engine.device(device)
    if dev.type != "cuda":
        raise ValueError("pyad.cuda.%s(): expected a cuda device, but got: %s" % (what, dev))
    return dev.index


def is_available():
    """True when CuPy is installed and sees at least one NVIDIA GPU.

    >>> import pyad
    >>> isinstance(pyad.cuda.is_available(), bool)
    True
    """
    return _cupy() is not None


def is_initialized():
    """True when a GPU is usable (CuPy initialises lazily, so the same as `is_available`)."""
    return is_available()


def device_count():
    """The number of GPUs CuPy sees (0 without CuPy or without a GPU).

    >>> import pyad
    >>> pyad.cuda.device_count() >= 0
    True
    """
    cp = _cupy()
    return 0 if cp is None else int(cp.cuda.runtime.getDeviceCount())


def current_device():
    """The index of the current GPU (``RuntimeError`` without one)."""
    return int(_require("current_device").cuda.runtime.getDevice())


def set_device(device):
    """Make ``device`` (an index, ``'cuda:1'`` or a `pyad.device`) the current GPU.

    A negative index is ignored, as torch.
    """
    cp = _require("set_device")
    index = _index(device, "set_device")
    if index >= 0:
        cp.cuda.runtime.setDevice(index)


def get_device_name(device=None):
    """The GPU's name, as the driver reports it."""
    cp = _require("get_device_name")
    name = cp.cuda.runtime.getDeviceProperties(_index(device, "get_device_name"))["name"]
    return name.decode() if isinstance(name, bytes) else str(name)


def synchronize(device=None):
    """Wait for every kernel queued on the GPU to finish."""
    cp = _require("synchronize")
    with cp.cuda.Device(_index(device, "synchronize")):
        cp.cuda.Device().synchronize()


def manual_seed(seed):
    """Seed CuPy's generator on the current GPU; silently does nothing without a GPU."""
    cp = _cupy()
    if cp is not None:
        cp.random.seed(int(seed))


def manual_seed_all(seed):
    """Seed CuPy's generator on every GPU; silently does nothing without a GPU."""
    cp = _cupy()
    if cp is None:
        return
    for i in range(cp.cuda.runtime.getDeviceCount()):
        with cp.cuda.Device(i):
            cp.random.seed(int(seed))


def get_rng_state(device="cuda"):
    """CuPy's generator state on ``device`` as a uint8 Variable (``RuntimeError`` without
    a GPU, as torch without CUDA), for `set_rng_state` and `pyad.random.fork_rng`."""
    import pickle
    import numpy
    cp = _require("get_rng_state")
    with cp.cuda.Device(_index(device, "get_rng_state")):
        state = pickle.dumps(cp.random.get_random_state())
    return _engine.Variable(numpy.frombuffer(state, dtype=numpy.uint8).copy())


def set_rng_state(new_state, device="cuda"):
    """Restore CuPy's generator state on ``device`` from `get_rng_state`."""
    import pickle
    import numpy
    cp = _require("set_rng_state")
    data = new_state.data if isinstance(new_state, _engine.Variable) else new_state
    with cp.cuda.Device(_index(device, "set_rng_state")):
        cp.random.set_random_state(pickle.loads(numpy.asarray(data).tobytes()))


def memory_allocated(device=None):
    """Bytes of GPU memory held by arrays (CuPy's default memory pool's used bytes); 0
    without a GPU, as torch's without CUDA."""
    cp = _cupy()
    if cp is None:
        return 0
    with cp.cuda.Device(_index(device, "memory_allocated")):
        return int(cp.get_default_memory_pool().used_bytes())


def memory_reserved(device=None):
    """Bytes of GPU memory CuPy's default memory pool holds (in use or cached); 0 without
    a GPU, as torch's without CUDA."""
    cp = _cupy()
    if cp is None:
        return 0
    with cp.cuda.Device(_index(device, "memory_reserved")):
        return int(cp.get_default_memory_pool().total_bytes())


def _no_peak(what):
    # CuPy's memory pool counts the bytes in use now, not the most ever in use
    if _cupy() is not None:
        raise RuntimeError("pyad.cuda.%s(): CuPy's memory pool keeps no peak statistics; "
                           "use memory_allocated() / memory_reserved()" % what)


def max_memory_allocated(device=None):
    """The peak of `memory_allocated`: 0 without a GPU, as torch's without CUDA. With
    CuPy it raises ``RuntimeError``: CuPy's memory pool keeps no peak."""
    _no_peak("max_memory_allocated")
    return 0


def max_memory_reserved(device=None):
    """The peak of `memory_reserved`: 0 without a GPU (``RuntimeError`` with CuPy, as
    `max_memory_allocated`)."""
    _no_peak("max_memory_reserved")
    return 0


def reset_peak_memory_stats(device=None):
    """Reset the peaks: nothing to do without a GPU (``RuntimeError`` with CuPy, whose
    pool keeps none)."""
    _no_peak("reset_peak_memory_stats")


def reset_max_memory_allocated(device=None):
    """torch's older spelling of `reset_peak_memory_stats`."""
    _no_peak("reset_max_memory_allocated")


def memory_stats(device=None):
    """The allocator's statistics as a dict: empty without a GPU (as torch's without
    CUDA); with CuPy its pool's ``allocated_bytes.all.current`` and
    ``reserved_bytes.all.current``."""
    import collections
    cp = _cupy()
    if cp is None:
        return collections.OrderedDict()
    return collections.OrderedDict([
        ("allocated_bytes.all.current", memory_allocated(device)),
        ("reserved_bytes.all.current", memory_reserved(device))])


def get_device_capability(device=None):
    """The GPU's compute capability ``(major, minor)``; ``RuntimeError`` without one."""
    cp = _require("get_device_capability")
    capability = cp.cuda.Device(_index(device, "get_device_capability")).compute_capability
    return int(capability[:-1]), int(capability[-1])


def is_bf16_supported(including_emulation=True):
    """True on a GPU of compute capability 8.0 or later (Ampere); False without a GPU,
    as torch's."""
    if _cupy() is None:
        return False
    return get_device_capability()[0] >= 8


def empty_cache():
    """Give cached, unused GPU memory back to the driver; does nothing without a GPU."""
    cp = _cupy()
    if cp is not None:
        cp.get_default_memory_pool().free_all_blocks()



# -- streams and events ------------------------------------------------------------------


def _dummy(cls):
    # torch's CPU build: "Tried to instantiate dummy base class Event"
    cp = _cupy()
    if cp is None:
        raise RuntimeError("pyad.cuda.%s(): Tried to instantiate dummy base class %s: no GPU "
                           "(CuPy is not installed or sees no NVIDIA device; pip install "
                           "'pyad[cuda]' on a machine with one)" % (cls, cls))
    return cp


class Stream:
    """A CUDA stream, as ``torch.cuda.Stream``: a ``cupy.cuda.Stream`` (its
    ``cupy_stream``) with torch's methods. ``RuntimeError`` without CuPy and a GPU, as
    torch's CPU build.
    """

    def __init__(self, device=None, priority=0, *, _cupy_stream=None):
        cp = _dummy("Stream")
        if _cupy_stream is None:
            with cp.cuda.Device(_index(device, "Stream")):
                _cupy_stream = cp.cuda.Stream(non_blocking=False)
        self.cupy_stream = _cupy_stream
        self.priority = priority

    @property
    def cuda_stream(self):
        """The raw ``cudaStream_t``, as an int."""
        return int(self.cupy_stream.ptr)

    @property
    def device(self):
        return _engine.device("cuda", int(self.cupy_stream.device_id))

    def query(self):
        """True when every kernel queued on the stream has finished."""
        return bool(self.cupy_stream.done)

    def synchronize(self):
        """Wait for every kernel queued on the stream."""
        self.cupy_stream.synchronize()

    def wait_event(self, event):
        """Make the kernels queued on this stream from now on wait for ``event``."""
        self.cupy_stream.wait_event(event.cupy_event)

    def wait_stream(self, stream):
        """Make this stream wait for the work queued on ``stream`` so far."""
        self.wait_event(stream.record_event())

    def record_event(self, event=None):
        """Record ``event`` (a new one by default) on this stream; returns it."""
        if event is None:
            event = Event()
        event.record(self)
        return event

    def __eq__(self, other):
        return isinstance(other, Stream) and self.cuda_stream == other.cuda_stream

    def __hash__(self):
        return hash(self.cuda_stream)

    def __repr__(self):
        return "<pyad.cuda.Stream device=%s cuda_stream=0x%x>" % (self.device,
                                                                   self.cuda_stream)


class Event:
    """A CUDA event, as ``torch.cuda.Event``: a ``cupy.cuda.Event`` (its
    ``cupy_event``) with torch's methods; ``enable_timing=True`` for `elapsed_time`.
    ``RuntimeError`` without CuPy and a GPU, as torch's CPU build.
    """

    def __init__(self, enable_timing=False, blocking=False, interprocess=False):
        cp = _dummy("Event")
        self.enable_timing = bool(enable_timing)
        self.cupy_event = cp.cuda.Event(block=blocking, disable_timing=not enable_timing,
                                        interprocess=interprocess)
        self._recorded = False

    def record(self, stream=None):
        """Record the event on ``stream`` (the current stream by default)."""
        if stream is None:
            stream = current_stream()
        self.cupy_event.record(stream.cupy_stream)
        self._recorded = True

    def wait(self, stream=None):
        """Make ``stream`` (the current one by default) wait for this event."""
        if stream is None:
            stream = current_stream()
        stream.wait_event(self)

    def query(self):
        """True when the work recorded before the event has finished."""
        return bool(self.cupy_event.done)

    def synchronize(self):
        """Wait for the work recorded before the event."""
        self.cupy_event.synchronize()

    def elapsed_time(self, end_event):
        """Milliseconds between this event and ``end_event`` (both recorded, both with
        ``enable_timing=True``)."""
        if not (self.enable_timing and end_event.enable_timing):
            raise RuntimeError("Event.elapsed_time(): both events must be created with "
                               "enable_timing=True")
        if not (self._recorded and end_event._recorded):
            raise RuntimeError("Event.elapsed_time(): both events must be recorded first")
        return float(_cupy().cuda.get_elapsed_time(self.cupy_event, end_event.cupy_event))

    @property
    def cuda_event(self):
        return int(self.cupy_event.ptr)

    def __repr__(self):
        return "<pyad.cuda.Event enable_timing=%s>" % self.enable_timing


def current_stream(device=None):
    """The stream kernels are queued on now (``RuntimeError`` without a GPU)."""
    cp = _require("current_stream")
    with cp.cuda.Device(_index(device, "current_stream")):
        return Stream(_cupy_stream=cp.cuda.get_current_stream())


def default_stream(device=None):
    """The device's default (null) stream (``RuntimeError`` without a GPU)."""
    cp = _require("default_stream")
    with cp.cuda.Device(_index(device, "default_stream")):
        return Stream(_cupy_stream=cp.cuda.Stream.null)


class StreamContext:
    """``with pyad.cuda.stream(s):`` queues the kernels on ``s``; ``s=None`` does nothing
    (also without a GPU, as torch's)."""

    def __init__(self, stream):
        self.stream = stream

    def __enter__(self):
        if self.stream is not None:
            self.stream.cupy_stream.__enter__()
        return self.stream

    def __exit__(self, *exc):
        if self.stream is not None:
            self.stream.cupy_stream.__exit__(*exc)
        return False


def stream(stream):
    """A context manager making ``stream`` the current stream (`StreamContext`)."""
    return StreamContext(stream)


from pyad.cuda import amp  # noqa: E402  (torch.cuda.amp, the deprecated spellings)
