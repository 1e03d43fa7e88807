"""Factories: ``tensor``, ``zeros``, ``ones``, ``rand``... with ``dtype``, ``device`` and
``requires_grad``. Floating factories default to ``get_default_dtype()`` (float32).
Random factories draw from one generator seeded by ``manual_seed``.
"""
import math
import warnings

import numpy

from pyad import _engine
from pyad._engine import Variable, device as _device
from pyad._out import takes_out

_default_device = None          # None: the CPU (torch's default)



class Generator:
    """A random number generator, as ``torch.Generator``: pass it as ``generator=`` to
    `rand`, `randn`, `randint`, `randperm`, `bernoulli`, `multinomial`, `normal`,
    ``Variable.uniform_`` and ``Variable.normal_``, and to the samplers of
    ``pyad.utils.data``; the draw then leaves the default generator's stream alone.

    On the CPU it wraps a ``numpy.random.Generator`` (PCG64); ``device='cuda'`` wraps a
    ``cupy.random.RandomState``. The streams differ from torch's: the same seed gives
    reproducible numbers in pyad, not torch's numbers.

    >>> g = Generator().manual_seed(42)
    >>> a = rand(3, generator=g)
    >>> _ = g.manual_seed(42)
    >>> bool((rand(3, generator=g) == a).all())
    True
    """

    def __init__(self, device="cpu"):
        self.device = _device(device)
        if self.device.type == "cuda" and _engine.cupy is None:
            raise RuntimeError("Generator(): device 'cuda' needs CuPy and an NVIDIA GPU")
        self.manual_seed(int(numpy.random.SeedSequence().entropy) & ((1 << 63) - 1))

    def manual_seed(self, seed):
        """Seed the generator; returns the generator itself, as torch."""
        seed = int(seed)
        if seed < -0x8000_0000_0000_0000 or seed > 0xffff_ffff_ffff_ffff:
            raise ValueError("Overflow when unpacking long long")   # torch 2.13's type
        self._seed = seed & 0xffff_ffff_ffff_ffff
        if self.device.type == "cpu":
            self._rng = numpy.random.default_rng(self._seed)
        else:
            with _engine.cupy.cuda.Device(self.device.index):
                self._rng = _engine.cupy.random.RandomState(self._seed)
        return self

    def seed(self):
        """Seed from the operating system's entropy; returns the new seed."""
        seed = int(numpy.random.SeedSequence().entropy) & ((1 << 63) - 1)
        self.manual_seed(seed)
        return seed

    def initial_seed(self):
        """The seed the generator was last seeded with."""
        return self._seed

    def get_state(self):
        """The generator's state as a uint8 Variable (for `set_state`)."""
        import pickle
        state = pickle.dumps(self._rng.bit_generator.state if self.device.type == "cpu"
                             else self._rng)
        return Variable(numpy.frombuffer(state, dtype=numpy.uint8).copy())

    def set_state(self, new_state):
        """Restore a state from `get_state`; returns the generator."""
        import pickle
        data = new_state.data if isinstance(new_state, Variable) else new_state
        if getattr(data, "dtype", None) != numpy.uint8:
            raise TypeError("set_state(): expected a uint8 Variable from get_state()")
        restored = pickle.loads(numpy.asarray(data).tobytes())
        if self.device.type == "cpu":
            self._rng.bit_generator.state = restored
        else:
            self._rng = restored
        return self

    def __repr__(self):
        return "<pyad.Generator object on %s>" % self.device


default_generator = Generator()


def manual_seed(seed):
    """Seed the default generator (behind ``rand``, ``randn``, ``randint``, dropout, the
    samplers) and CuPy's; returns the default `Generator`, as torch.

    >>> manual_seed(0).initial_seed()
    0
    """
    default_generator.manual_seed(seed)
    if _engine.cupy is not None:
        try:
            _engine.cupy.random.seed(int(seed) & 0xffff_ffff)
        except Exception:  # pragma: no cover - no GPU
            pass
    return default_generator


def seed():
    """Seed the default generator from the operating system's entropy; returns the seed."""
    return default_generator.seed()


def get_rng_state():
    """The default generator's state as a uint8 Variable, as ``torch.get_rng_state``.

    >>> state = get_rng_state()
    >>> a = rand(2)
    >>> set_rng_state(state)
    >>> bool((rand(2) == a).all())
    True
    """
    return default_generator.get_state()


def set_rng_state(new_state):
    """Restore the default generator's state from `get_rng_state`, as
    ``torch.set_rng_state``."""
    default_generator.set_state(new_state)


def _generator_for(data):
    """The random generator for arrays like ``data`` (host or device)."""
    if type(data) is numpy.ndarray:
        return default_generator._rng
    return _engine.cupy.random


def initial_seed():
    """The seed of the default generator."""
    return default_generator.initial_seed()


def _rng_for(xp, generator, what):
    """The array generator to draw from: ``generator`` (pyad or NumPy) or the default."""
    if generator is None:
        return default_generator._rng if xp is numpy else xp.random
    if isinstance(generator, Generator):
        if (generator.device.type == "cpu") != (xp is numpy):
            raise RuntimeError("%s(): expected a generator on the same device as the result, "
                               "got one on %s" % (what, generator.device))
        return generator._rng
    if xp is numpy and isinstance(generator, numpy.random.Generator):
        return generator
    raise TypeError("%s(): generator must be a pyad.Generator, got %s"
                    % (what, type(generator).__name__))


def set_default_device(device):
    """Make ``device`` (``'cpu'``, ``'cuda'``, ``'cuda:1'``, a `device`, or None for the
    CPU) the device of new Variables from factories and of new modules' parameters.

    >>> set_default_device("cpu")
    >>> get_default_device()
    device(type='cpu')
    >>> set_default_device(None)
    """
    global _default_device
    if device is None:
        _default_device = None
        return
    dev = _device(device)
    _default_device = None if dev.type == "cpu" else dev


def get_default_device():
    """The device factories use when given none (``device(type='cpu')`` by default)."""
    return _device("cpu") if _default_device is None else _default_device


def _xp_for(dev, what):
    if dev is None:
        dev = _default_device
    if dev is None or _device(dev).type == "cpu":
        return numpy
    if _engine.cupy is None:
        raise RuntimeError("%s(): device 'cuda' needs CuPy and an NVIDIA GPU; install "
                           "pyad[cuda]" % what)
    return _engine.cupy


def _finish(data, dtype, device, requires_grad, what):
    if device is None:
        device = _default_device
    if dtype is not None:
        with numpy.errstate(invalid="ignore", over="ignore"):   # (silent casts, as torch)
            data = data.astype(numpy.dtype(dtype), copy=False)
    if device is not None:
        data = _engine._move_to_device(data, device, what)
    v = Variable(data)
    if requires_grad:
        if not _engine._is_floating_or_complex(v.dtype):
            raise RuntimeError("%s(): only Variables of floating point dtype can require "
                               "gradients, got %s" % (what, v.dtype))
        v._mark_requires_grad(True)
    return v


def _size_item(s, what):
    """One element of a size as torch reads it: a one-element integer Variable or a 0-d
    integer ndarray stands for its int (``torch.ones(torch.tensor(3))``); a bool Variable
    is torch's RuntimeError; anything else is returned for ``_size`` to judge."""
    if isinstance(s, Variable) and s.numel() == 1:
        kind = numpy.dtype(s.dtype).kind
        if kind == "b":
            raise RuntimeError("%s(): size: expected an integral scalar, got a bool Variable"
                               % what)
        if kind in "iu":
            return int(s.item())
    elif isinstance(s, numpy.ndarray) and s.ndim == 0 and s.dtype.kind in "iu":
        return int(s)
    return s


def _size(size, what, dtype=None):
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = tuple(size[0])
    size = tuple(_size_item(s, what) for s in size)
    for i, s in enumerate(size):
        # torch's types: TypeError for a size that is no integer, RuntimeError for a
        # negative one
        if not isinstance(s, (int, numpy.integer)) or isinstance(s, bool):
            raise TypeError("%s(): argument 'size' must be tuple of ints, but found element "
                            "of type %s at pos %d" % (what, type(s).__name__, i))
        if s < 0:
            raise RuntimeError("%s(): Dimension size must be non-negative, got %d in %r"
                               % (what, s, list(size)))
    size = tuple(int(s) for s in size)
    # A byte size past int64 overflows inside NumPy: torch's RuntimeError instead.
    _engine._check_storage_size(size, numpy.float64 if dtype is None else dtype, what)
    return size


def _size_arg(shape, size, what):
    """The positional ``*size`` or torch's keyword ``size=`` (``torch.empty(size=(2, 3))``);
    both at once, or a keyword size that is no sequence, is torch's TypeError."""
    if size is None:
        return shape
    if shape:
        raise TypeError("%s() got multiple values for argument 'size'" % what)
    if not isinstance(size, (tuple, list)):
        raise TypeError("%s(): argument 'size' must be tuple of ints, not %s"
                        % (what, type(size).__name__))
    return tuple(size)


def _float_dtype(dtype):
    return numpy.dtype(dtype) if dtype is not None else _engine.get_default_dtype()


def tensor(data, dtype=None, device=None, requires_grad=False, pin_memory=False):
    """A new Variable holding a copy of ``data`` (Python floats become float32); a
    Variable is copied without its history, with torch's warning to use
    ``detach().clone()``.
    ``pin_memory`` is accepted for torch's scripts and changes nothing (host memory
    here is NumPy's).

    >>> tensor([[1., 2.], [3., 4.]], requires_grad=True)
    tensor([[1., 2.],
            [3., 4.]], requires_grad=True)
    """
    if isinstance(data, Variable):
        # torch's warning: tensor() of a tensor copies and drops the history
        warnings.warn("tensor(): to copy construct from a Variable, it is recommended to "
                      "use source.detach().clone() or "
                      "source.detach().clone().requires_grad_(True), rather than "
                      "tensor(source).", UserWarning, stacklevel=2)
        arr = data.data
    else:
        if isinstance(data, (list, tuple)):
            if data and isinstance(data[0], numpy.ndarray):
                # torch's (once-per-process) advice, kept for ported scripts
                warnings.warn("Creating a tensor from a list of numpy.ndarrays is extremely "
                              "slow in torch (not in pyad); convert the list with "
                              "numpy.array() first for code that must run on both.",
                              UserWarning, stacklevel=2)
            data = _unwrap_nested(data)
        _check_complex_to_real(data, dtype, "tensor")
        arr = _python_data(data, dtype)
        if arr is None:
            try:
                arr = _engine._array_of(data, "Variable")
            except TypeError:
                if isinstance(data, (list, tuple)):
                    _check_ragged(data)
                raise
    arr = arr.copy()
    return _finish(arr, dtype, device, requires_grad, "tensor")


def _is_sequence(item):
    return isinstance(item, (list, tuple)) or (isinstance(item, numpy.ndarray) and item.ndim > 0)


def _check_ragged(data, depth=0, shape=None):
    """torch's errors for nested lists (or lists of NumPy arrays) that do not make a
    box, each sequence measured against the first one at its depth: ValueError for
    another length ("expected sequence of length 2 at dim 1 (got 1)"), TypeError for a
    number where a sequence was expected; found after NumPy refused the data."""
    if shape is None:
        shape, first = [], data
        while _is_sequence(first):
            shape.append(len(first))
            if not len(first):
                break
            first = first[0]
    if depth == len(shape):
        return
    if not _is_sequence(data):
        raise TypeError("tensor(): not a sequence (a number where dim %d expected a "
                        "sequence)" % depth)
    if len(data) != shape[depth]:
        raise ValueError("tensor(): expected sequence of length %d at dim %d (got %d)"
                         % (shape[depth], depth, len(data)))
    for item in data:
        _check_ragged(item, depth + 1, shape)


def _has_python_complex(data):
    if isinstance(data, (list, tuple)):
        return any(_has_python_complex(item) for item in data)
    return isinstance(data, (complex, numpy.complexfloating))


def _check_complex_to_real(data, dtype, what):
    """torch refuses Python complex numbers for a real dtype other than bool (rather than
    dropping the imaginary parts, as a NumPy cast does)."""
    if dtype is None or not isinstance(data, (complex, numpy.complexfloating, list, tuple)):
        return
    dtype = numpy.dtype(dtype)
    if (dtype.kind in "fiu" or dtype.name == "bfloat16") and _has_python_complex(data):
        raise TypeError("%s(): a complex number cannot be converted to %s (must be real "
                        "number, not complex)" % (what, numpy.dtype(dtype).name))


def _python_data(data, dtype):
    """Python numbers and (nested) lists straight to ``dtype``, so that
    ``tensor(0.1, dtype=float64)`` is 0.1 and not float32's 0.1 widened; else None."""
    if dtype is None or not isinstance(data, (int, float, complex, list, tuple)):
        return None
    dtype = numpy.dtype(dtype)
    try:
        arr = numpy.asarray(data, dtype=dtype)
    except OverflowError:
        if dtype.kind not in "iu":
            raise
        arr = _wrapped_integers(data, dtype)
    except (TypeError, ValueError):
        return None
    return arr if arr.dtype != object else None


def _wrapped_integers(data, dtype):
    """Python integers out of a small integer dtype's range, converted as torch does:
    a negative number into an unsigned dtype wraps (two's complement, ``-1`` in uint8 is
    255) when its magnitude fits; any other number out of range is torch's
    RuntimeError (NumPy raises OverflowError)."""
    info = numpy.iinfo(dtype)
    try:
        wide = numpy.asarray(data, dtype=numpy.int64)
    except (OverflowError, TypeError, ValueError):
        wide = None
    lo = -info.max if info.min == 0 else info.min
    if wide is None or wide.dtype != numpy.int64 or (
            wide.size and (wide.min() < lo or wide.max() > info.max)):
        raise RuntimeError("tensor(): value cannot be converted to type %s without "
                           "overflow" % dtype.name)
    return wide.astype(dtype)


def _unwrap_nested(data, _open=None):
    # Variables inside a list: one-element ones become 0-d values (torch's
    # torch.tensor([t]) reads t.item()), with torch's warning when one requires grad;
    # the copy has no history either way. A list that contains itself is refused (torch's
    # TypeError) instead of recursing without end; `_open` holds the lists being read.
    _open = set() if _open is None else _open
    if id(data) in _open:
        raise TypeError("tensor(): self-referential lists are incompatible")
    _open.add(id(data))
    out = []
    for item in data:
        if isinstance(item, (list, tuple)):
            out.append(_unwrap_nested(item, _open))
        elif isinstance(item, Variable):
            if item.requires_grad:
                warnings.warn("Converting a tensor with requires_grad=True to a scalar may "
                              "lead to unexpected behavior. Consider using tensor.detach() "
                              "first.", UserWarning, stacklevel=3)
            array = item.data
            out.append(array.reshape(()) if array.size == 1 else array)
        else:
            out.append(item)
    _open.discard(id(data))
    return out


def as_tensor(data, dtype=None, device=None):
    """Like ``tensor`` but shares memory with an array when no conversion is needed; a
    Variable comes back itself, or converted with ``to`` (the graph kept), as torch."""
    if isinstance(data, Variable):
        if dtype is None and device is None:
            return data
        # torch: a conversion of a Variable is recorded (the result keeps the graph);
        # nothing to convert returns the Variable itself
        return data.to(device=device, dtype=dtype)
    if isinstance(data, list):
        _unwrap_nested(data)        # (a list containing itself: torch's TypeError)
    _check_complex_to_real(data, dtype, "as_tensor")
    return _finish(_engine._array_of(data, "Variable"), dtype, device, False, "as_tensor")


def _check_strided_layout(layout, what):
    """torch's ``layout=`` of a factory: pyad's Variables are all dense (strided)."""
    if layout is not None and getattr(layout, "_name", layout) != "strided":
        raise RuntimeError("%s(): pyad has only the strided layout, got layout=%r"
                           % (what, layout))


@takes_out
def zeros(*shape, size=None, dtype=None, layout=None, device=None, requires_grad=False):
    """A Variable of zeros of shape ``size`` (positional, or the keyword ``size=``);
    ``layout`` may be ``pyad.strided`` (the only layout pyad has) or None."""
    _check_strided_layout(layout, "zeros")
    size = _size_arg(shape, size, "zeros")
    xp = _xp_for(device, "zeros")
    return _finish(xp.zeros(_size(size, "zeros", _float_dtype(dtype)), dtype=_float_dtype(dtype)), None, device,
                   requires_grad, "zeros")


@takes_out
def ones(*shape, size=None, dtype=None, layout=None, device=None, requires_grad=False):
    """A Variable of ones of shape ``size`` (positional, or the keyword ``size=``);
    ``layout`` may be ``pyad.strided`` (the only layout pyad has) or None."""
    _check_strided_layout(layout, "ones")
    size = _size_arg(shape, size, "ones")
    xp = _xp_for(device, "ones")
    return _finish(xp.ones(_size(size, "ones", _float_dtype(dtype)), dtype=_float_dtype(dtype)), None, device,
                   requires_grad, "ones")


@takes_out
def empty(*shape, size=None, dtype=None, device=None, requires_grad=False,
          memory_format=_engine.contiguous_format):
    """An uninitialised Variable of shape ``size`` (positional, or the keyword
    ``size=``, as ``torch.empty(size=(2, 3))``), its memory in C order or in
    ``memory_format``'s (:data:`pyad.channels_last`)."""
    size = _size_arg(shape, size, "empty")
    xp = _xp_for(device, "empty")
    data = xp.empty(_size(size, "empty", _float_dtype(dtype)), dtype=_float_dtype(dtype))
    if memory_format is not _engine.contiguous_format and memory_format is not None:
        data = _engine._laid_out(data, memory_format, "empty")
    return _finish(data, None, device, requires_grad, "empty")


@takes_out
def full(size, fill_value, dtype=None, device=None, requires_grad=False):
    """A Variable of shape ``size`` filled with ``fill_value``."""
    xp = _xp_for(device, "full")
    if dtype is None:
        # as torch: a Python complex gives the default complex dtype
        dtype = (numpy.bool_ if isinstance(fill_value, bool) else
                 numpy.int64 if isinstance(fill_value, (int, numpy.integer)) else
                 numpy.promote_types(_float_dtype(None), numpy.complex64)
                 if isinstance(fill_value, complex) else _float_dtype(None))
    if (isinstance(fill_value, (complex, numpy.complexfloating))
            and numpy.dtype(dtype).kind not in "cb" and fill_value.imag != 0):
        # torch refuses to drop the imaginary part (NumPy's cast drops it with a warning)
        raise RuntimeError("full(): value cannot be converted to type %s without overflow"
                           % numpy.dtype(dtype).name)
    if (isinstance(fill_value, int) and not isinstance(fill_value, bool)
            and numpy.dtype(dtype).kind in "iu"
            and -2 ** 63 <= fill_value < 2 ** 63):
        # torch converts an integer fill to the dtype as C does (wrapping: -1 in uint8
        # is 255); NumPy refuses a Python int out of the dtype's range
        fill_value = numpy.array(fill_value, numpy.int64).astype(dtype)
    return _finish(xp.full(_size((size,) if isinstance(size, int) else (size,), "full", dtype),
                           fill_value, dtype=dtype), None, device, requires_grad, "full")


@takes_out(fill_shape=True)
def arange(start, end=None, step=1, dtype=None, device=None, requires_grad=False):
    """Values from ``start`` to ``end`` (exclusive) by ``step``; int64 for integer args
    (0-d Variables count as their numbers). As torch: a zero step, a step whose sign
    leads away from ``end`` and a non-finite bound raise RuntimeError; int64 truncates the
    bounds and step first (a step that becomes 0 raises ValueError), the other integer
    dtypes take the length from the numbers as given and truncate start and step."""
    if end is None:
        start, end = 0, start
    start, end, step = (a.item() if isinstance(a, Variable) else a
                        for a in (start, end, step))
    if dtype is None:
        dtype = (numpy.int64 if all(isinstance(a, (int, numpy.integer)) for a in
                                    (start, end, step)) else _float_dtype(None))
    if all(isinstance(a, (int, float, numpy.integer, numpy.floating))
           for a in (start, end, step)):
        if not (math.isfinite(start) and math.isfinite(end)):
            raise RuntimeError("arange(): unsupported range: %s -> %s" % (start, end))
        if step == 0:
            raise RuntimeError("arange(): step must be nonzero")
        if (step > 0 and end < start) or (step < 0 and end > start):
            raise RuntimeError("arange(): upper bound and lower bound inconsistent with "
                               "step sign")
        kind = numpy.dtype(dtype).kind
        if kind in "iu" and numpy.dtype(dtype) != numpy.int64 and not all(
                isinstance(a, (int, numpy.integer)) for a in (start, end, step)):
            # torch's arange for an integer dtype other than int64: the length from
            # the numbers as given, the values from the truncated start and step
            # (arange(0, 5, 1.5, dtype=int32) is [0, 1, 2, 3])
            count = max(math.ceil((end - start) / step), 0)
            _engine._check_storage_size((count,), numpy.float64, "arange")
            xp = _xp_for(device, "arange")
            data = int(start) + xp.arange(count, dtype=numpy.int64) * int(step)
            return _finish(data.astype(dtype), None, device, requires_grad, "arange")
        if kind in "iub":
            start, end, step = int(start), int(end), int(step)
            if step == 0:
                raise ValueError("arange(): step must be nonzero")
    xp = _xp_for(device, "arange")
    try:
        count = math.ceil((end - start) / step)
    except (TypeError, ValueError, OverflowError, ZeroDivisionError):
        count = 0                       # NumPy's own error then
    if count > 0:
        _engine._check_storage_size((count,), numpy.float64, "arange")
    if numpy.dtype(dtype).kind == "f" and count > 0:
        # torch's values: start + i * step in double (NumPy's arange adds step to
        # start + step, so its third value of arange(0.6, 0.89, 0.1) is 0.7999...)
        data = start + xp.arange(count, dtype=numpy.float64) * step
        return _finish(data.astype(dtype), None, device, requires_grad, "arange")
    return _finish(xp.arange(start, end, step, dtype=numpy.float64 if
                             numpy.dtype(dtype).kind == "f" else dtype).astype(dtype),
                   None, device, requires_grad, "arange")


@takes_out(fill_shape=True)
def linspace(start, end, steps, dtype=None, device=None, requires_grad=False):
    """``steps`` evenly spaced values from ``start`` to ``end`` inclusive."""
    xp = _xp_for(device, "linspace")
    if isinstance(steps, (int, numpy.integer)) and steps < 0:
        raise RuntimeError("linspace(): number of steps must be non-negative")
    if isinstance(steps, (int, numpy.integer)) and steps > 0:
        _engine._check_storage_size((int(steps),), numpy.float64, "linspace")
    start, end = (a.item() if isinstance(a, Variable) else a for a in (start, end))
    if dtype is None and any(isinstance(a, (complex, numpy.complexfloating))
                             for a in (start, end)):
        # torch: a complex start or end gives the default complex dtype
        dtype = _default_complex_dtype()
    dtype = _float_dtype(dtype)
    return _finish(xp.linspace(start, end, steps).astype(dtype), None, device,
                   requires_grad, "linspace")


def _default_complex_dtype():
    # the complex dtype of the default float dtype (float64 -> complex128, else complex64)
    return numpy.dtype(numpy.complex128 if _engine.get_default_dtype() == numpy.float64
                       else numpy.complex64)


@takes_out
def eye(n, m=None, dtype=None, device=None, requires_grad=False):
    """The identity matrix of shape ``(n, m or n)``."""
    xp = _xp_for(device, "eye")
    # torch's RuntimeError for a negative size (NumPy's is a ValueError)
    for name, size in (("n", n), ("m", m)):
        if isinstance(size, (int, numpy.integer)) and size < 0:
            raise RuntimeError("eye(): %s must be greater or equal to 0, got %d"
                               % (name, size))
    if isinstance(n, (int, numpy.integer)) and isinstance(m, (int, numpy.integer, type(None))):
        _engine._check_storage_size((int(n), int(n if m is None else m)), _float_dtype(dtype),
                                    "eye")
    return _finish(xp.eye(n, m, dtype=_float_dtype(dtype)), None, device, requires_grad, "eye")


def _random(xp, draw, size, dtype, what, generator=None, complex_scale=1.0):
    if not _engine._is_floating_or_complex(dtype):
        raise NotImplementedError("%s(): only floating point and complex dtypes are supported "
                                  "(as in torch), got %s" % (what, dtype))
    rng = _rng_for(xp, generator, what)
    if dtype.kind == "c":
        # torch's complex samples: real and imaginary parts drawn independently, each
        # scaled so that randn's samples have unit variance in all (E|z|^2 = 1)
        real, imag = draw(rng)(size), draw(rng)(size)
        # (asarray: on 0-d operands NumPy's arithmetic returns a scalar, not an array)
        return xp.asarray(((real + 1j * imag) * complex_scale).astype(dtype, copy=False))
    return draw(rng)(size).astype(dtype, copy=False)


@takes_out
def rand(*shape, size=None, generator=None, dtype=None, device=None, requires_grad=False):
    """Uniform samples on [0, 1) of shape ``size`` (positional or ``size=``; from
    ``generator`` if given)."""
    size = _size_arg(shape, size, "rand")
    xp = _xp_for(device, "rand")
    data = _random(xp, lambda g: g.random, _size(size, "rand", _float_dtype(dtype)),
                   _float_dtype(dtype), "rand", generator)
    return _finish(data, None, device, requires_grad, "rand")


@takes_out
def randn(*shape, size=None, generator=None, dtype=None, device=None, requires_grad=False):
    """Standard normal samples of shape ``size`` (positional or ``size=``; from
    ``generator`` if given)."""
    size = _size_arg(shape, size, "randn")
    xp = _xp_for(device, "randn")
    data = _random(xp, lambda g: g.standard_normal, _size(size, "randn", _float_dtype(dtype)),
                   _float_dtype(dtype), "randn", generator, math.sqrt(0.5))
    return _finish(data, None, device, requires_grad, "randn")


@takes_out
def randperm(n, *, generator=None, dtype=None, device=None, requires_grad=False):
    """A random permutation of ``0 .. n-1`` (int64 unless ``dtype`` says otherwise).

    >>> sorted(randperm(4).tolist())
    [0, 1, 2, 3]
    """
    if isinstance(n, bool) or not isinstance(n, (int, numpy.integer)):
        raise TypeError("randperm(): argument 'n' must be int, not %s" % type(n).__name__)
    if n < 0:
        raise RuntimeError("randperm(): n must be non-negative, got %d" % n)
    target = numpy.dtype(numpy.int64 if dtype is None else dtype)
    _check_randperm_fits(int(n), target)
    xp = _xp_for(device, "randperm")
    data = _rng_for(xp, generator, "randperm").permutation(int(n))
    data = data.astype(target, copy=False)
    return _finish(data, None, device, requires_grad, "randperm")


# The largest n whose permutation a floating dtype holds exactly (torch's limits).
_RANDPERM_FLOAT_LIMITS = {"float16": 2 ** 11 + 1, "float32": 2 ** 24 + 1,
                          "float64": 2 ** 53 + 1}


def _check_randperm_fits(n, dtype):
    """torch refuses bool and complex outright, an integer dtype that cannot hold n - 1
    and a floating dtype that cannot count to n exactly: check before permuting."""
    if dtype.kind in "bc":
        raise NotImplementedError("randperm(): not implemented for %s" % dtype)
    if dtype.kind in "iu" and n - 1 > numpy.iinfo(dtype).max:
        raise RuntimeError("randperm(): n=%d cannot be converted to %s without overflow"
                           % (n, dtype))
    limit = _RANDPERM_FLOAT_LIMITS.get(dtype.name)
    if limit is not None and n > limit:
        raise RuntimeError("randperm(): n cannot be greater than %d for %s" % (limit, dtype))


def _int_arg(value, name):
    if isinstance(value, bool) or not isinstance(value, (int, numpy.integer)):
        raise TypeError("randint(): argument '%s' must be int, not %s"
                        % (name, type(value).__name__))
    return int(value)


def _randint_data(low, high, size, generator, dtype, device):
    low, high = _int_arg(low, "low"), _int_arg(high, "high")
    if low >= high:
        raise RuntimeError("randint(): expects 'low' to be less than 'high', but got low=%d >= "
                           "high=%d" % (low, high))
    dtype = numpy.dtype(numpy.int64 if dtype is None else dtype)
    if dtype.kind in "iub":
        info = numpy.iinfo(dtype) if dtype.kind != "b" else None
        lo, hi = (0, 1) if info is None else (info.min, info.max)
        if low < lo or high - 1 > hi:
            raise RuntimeError("randint(): the range [%d, %d) is out of bounds for %s"
                               % (low, high, dtype))
    elif dtype.kind == "c":
        raise RuntimeError("randint(): random bounds are checked only for integral, "
                           "floating-point and boolean dtypes (as in torch), got %s" % dtype)
    elif dtype.kind != "f":
        raise TypeError("randint(): dtype must be numeric, got %s" % dtype)
    xp = _xp_for(device, "randint")
    rng = _rng_for(xp, generator, "randint")
    if xp is numpy:
        data = rng.integers(low, high, size=size, dtype=numpy.int64)
    else:
        data = rng.randint(low, high, size=size, dtype=numpy.int64)
    return data.astype(dtype, copy=False)


@takes_out
def randint(*args, low=None, high=None, size=None, generator=None, dtype=None, device=None,
            requires_grad=False):
    """Integers uniform on [low, high) of shape ``size``; int64 unless ``dtype`` says otherwise.

    torch's signatures: ``randint(high, size)``, ``randint(low, high, size)`` and the same
    as keywords (``low`` defaults to 0). ``generator`` is a `Generator` (or a
    ``numpy.random.Generator``).

    >>> randint(10, (2, 3)).shape
    (2, 3)
    >>> randint(5, 6, size=(2,))
    tensor([5, 5])
    """
    names = ("low", "high", "size")
    given = {"low": low, "high": high, "size": size}
    missing = [n for n in names if given[n] is None]
    if len(args) > 3:
        raise TypeError("randint() takes at most 3 positional arguments (%d given)" % len(args))
    if len(args) > len(missing):
        raise TypeError("randint() got multiple values for an argument")
    if len(args) == len(missing) or low is not None:
        targets = missing
    else:                                # randint(high, size): low defaults to 0
        targets = missing[1:]
    for name, value in zip(targets, args):
        given[name] = value
    low, high, size = given["low"], given["high"], given["size"]
    if high is None or size is None:
        absent = [repr(n) for n in ("high", "size") if given[n] is None]
        raise TypeError("randint() missing required argument%s: %s"
                        % ("s" if len(absent) > 1 else "", " and ".join(absent)))
    if not isinstance(size, (tuple, list)):
        raise TypeError("randint(): argument 'size' must be a tuple of ints, not %s"
                        % type(size).__name__)
    size = _size((tuple(size),), "randint")
    data = _randint_data(0 if low is None else low, high, size, generator, dtype, device)
    return _finish(data, None, device, requires_grad, "randint")


def _in_format_of(result, like, memory_format, name):
    # a *_like factory's result laid out as torch's: like's own layout (preserve_format,
    # the default) or memory_format's
    if (memory_format is _engine.preserve_format or memory_format is None) and \
            like.data.flags.c_contiguous:
        return result
    data = _engine._like_layout(result.data, like.data, memory_format, name)
    if data is result.data:
        return result
    return Variable(data)._mark_requires_grad(result.requires_grad)


def _like(factory):
    def like(input, dtype=None, device=None, requires_grad=False,
             memory_format=_engine.preserve_format, **kwargs):
        v = input if isinstance(input, Variable) else Variable(input)
        result = factory(*v.shape, dtype=dtype if dtype is not None else v.dtype,
                         device=device if device is not None else v.device,
                         requires_grad=requires_grad, **kwargs)
        return _in_format_of(result, v, memory_format, like.__name__)
    like.__name__ = factory.__name__ + "_like"
    like.__doc__ = ("Like ``%s`` with the shape, dtype and device of ``input``, laid out "
                    "in memory as ``input`` (or as ``memory_format`` asks)." % factory.__name__)
    return like


zeros_like = _like(zeros)
ones_like = _like(ones)
empty_like = _like(empty)
rand_like = _like(rand)
randn_like = _like(randn)


def full_like(input, fill_value, dtype=None, device=None, requires_grad=False,
              memory_format=_engine.preserve_format):
    """Like ``full`` with the shape, dtype and device of ``input``, laid out in memory as
    ``input`` (or as ``memory_format`` asks)."""
    v = input if isinstance(input, Variable) else Variable(input)
    result = full(v.shape, fill_value, dtype=dtype if dtype is not None else v.dtype,
                  device=device if device is not None else v.device,
                  requires_grad=requires_grad)
    return _in_format_of(result, v, memory_format, "full_like")


def randint_like(input, *args, low=None, high=None, dtype=None, device=None,
                 requires_grad=False, generator=None, memory_format=_engine.preserve_format):
    """``randint`` with the shape, dtype and device of ``input``: ``randint_like(input, high)``
    or ``randint_like(input, low, high)``."""
    v = input if isinstance(input, Variable) else Variable(input)
    if len(args) == 2:
        if low is not None or high is not None:
            raise TypeError("randint_like() got multiple values for an argument")
        low, high = args
    elif len(args) == 1:
        if high is None:
            high = args[0]
        elif low is None:
            low = args[0]
        else:
            raise TypeError("randint_like() got multiple values for an argument")
    elif args:
        raise TypeError("randint_like() takes at most 3 positional arguments (%d given)"
                        % (len(args) + 1))
    if high is None:
        raise TypeError("randint_like() missing required argument 'high'")
    result = randint(0 if low is None else low, high, v.shape, generator=generator,
                     dtype=dtype if dtype is not None else v.dtype,
                     device=device if device is not None else v.device,
                     requires_grad=requires_grad)
    return _in_format_of(result, v, memory_format, "randint_like")


def from_numpy(ndarray):
    """A Variable sharing memory with the NumPy array ``ndarray`` (no copy, its dtype).
    As torch: negative or unaligned strides raise ValueError, a read-only array warns
    (``pyad.Variable(ndarray)`` takes any array as it is).

    >>> a = numpy.zeros(2)
    >>> v = from_numpy(a)
    >>> a[0] = 5.0
    >>> v
    tensor([5., 0.], dtype=float64)
    """
    if not isinstance(ndarray, numpy.ndarray):
        raise TypeError("from_numpy(): expected a numpy.ndarray, got %s"
                        % type(ndarray).__name__)
    # torch's checks on the strides (ValueError) and its warning on a read-only array
    itemsize = ndarray.dtype.itemsize
    if any(s < 0 for s in ndarray.strides):
        raise ValueError("from_numpy(): at least one stride in the given numpy array is "
                         "negative, and Variables made by from_numpy may not have "
                         "negative strides (as in torch). Copy the array first "
                         "(array.copy()), or use pyad.Variable(array), which shares it.")
    if itemsize and any(s % itemsize for s in ndarray.strides):
        raise ValueError("from_numpy(): given numpy array strides not a multiple of the "
                         "element byte size. Copy the numpy array to reallocate the memory.")
    if not ndarray.flags.writeable:
        warnings.warn("from_numpy(): the given NumPy array is not writable; the Variable "
                      "shares its read-only memory, so writing to it in place will raise. "
                      "Copy the array (array.copy()) or make it writable first.",
                      UserWarning, stacklevel=2)
    return Variable(ndarray)


def is_tensor(obj):
    """True if ``obj`` is a pyad Variable (``pyad.Tensor`` is the same class)."""
    return isinstance(obj, Variable)


# --------------------------------------------------------------------------------
# The profiler records the factories as ops (torch's aten::zeros, aten::rand...), so a
# profile with profile_memory counts the arrays they make. pyad.autograd.profiler sets
# _profiler when it is imported; until a profile runs, a factory pays one global read.
# --------------------------------------------------------------------------------

_profiler = None


def _recorded(factory):
    name = factory.__name__

    def recorded(*args, **kwargs):
        prof = _profiler
        if prof is None or prof._active is None:
            return factory(*args, **kwargs)
        return prof._run_op(name, lambda *a: factory(*a, **kwargs), args)

    recorded.__name__ = recorded.__qualname__ = name
    recorded.__doc__ = factory.__doc__
    recorded.__module__ = factory.__module__
    recorded.__wrapped__ = factory
    return recorded


for _name in ("zeros", "ones", "empty", "full", "arange", "linspace", "eye", "rand", "randn",
              "randperm", "randint", "zeros_like", "ones_like", "empty_like", "rand_like",
              "randn_like", "full_like", "randint_like"):
    globals()[_name] = _recorded(globals()[_name])
del _name
