"""``pyad.testing``: `assert_close` and `make_tensor`, as ``torch.testing``.

`assert_close` compares Variables, NumPy arrays, Python and NumPy numbers, booleans,
None, and sequences and mappings of them (recursively) with torch's per-dtype default
tolerances, and fails with torch's messages (``"Tensor-likes are not close!"``, the
number of mismatched elements, the greatest absolute and relative differences and where
they are). The dtype and shape names in the messages are pyad's (``pyad.float32``,
``pyad.Size([3])``).

>>> import pyad
>>> pyad.testing.assert_close(pyad.tensor([1.0, 2.0]), pyad.tensor([1.0, 2.0 + 1e-7]))
>>> pyad.testing.assert_close(pyad.tensor([1.0, 2.0]), pyad.tensor([1.0, 2.1]))
Traceback (most recent call last):
    ...
AssertionError: Tensor-likes are not close!
<BLANKLINE>
Mismatched elements: 1 / 2 (50.0%)
Greatest absolute difference: 0.09999990463256836 at index (1,) (up to 1e-05 allowed)
Greatest relative difference: 0.04761900380253792 at index (1,) (up to 1.3e-06 allowed)
"""
import cmath
import collections.abc
import contextlib
import functools
import math
import warnings

import numpy

from pyad import _engine

__all__ = ["assert_close", "assert_allclose", "make_tensor"]


def _bfloat16():
    try:
        import ml_dtypes
        return numpy.dtype(ml_dtypes.bfloat16)
    except ImportError:          # pragma: no cover - ml_dtypes is a dependency of jax
        return None


# torch's default (rtol, atol) per dtype; every other dtype compares exactly
_DTYPE_PRECISIONS = {
    numpy.dtype(numpy.float16): (0.001, 1e-5),
    numpy.dtype(numpy.float32): (1.3e-6, 1e-5),
    numpy.dtype(numpy.float64): (1e-7, 1e-7),
    numpy.dtype(numpy.complex64): (1.3e-6, 1e-5),
    numpy.dtype(numpy.complex128): (1e-7, 1e-7),
}
if _bfloat16() is not None:
    _DTYPE_PRECISIONS[_bfloat16()] = (0.016, 1e-5)


class _ErrorMeta(Exception):
    """A failure to report, with its exception type and where in nested inputs it is."""

    def __init__(self, type, msg, *, id=()):
        super().__init__(msg)
        self.type = type
        self.msg = msg
        self.id = id

    def to_error(self, msg=None):
        if not isinstance(msg, str):
            generated = self.msg
            if self.id:
                generated += "\n\nThe failure occurred for item %s" % "".join(
                    str([item]) for item in self.id)
            msg = msg(generated) if callable(msg) else generated
        return self.type(msg)


class _Unsupported(Exception):
    """This kind of pair cannot compare these inputs: try the next."""


def _dtype_name(dtype):
    return "pyad.%s" % dtype


def _tolerances(dtypes, rtol, atol, id, precisions=None):
    if (rtol is None) ^ (atol is None):
        raise _ErrorMeta(ValueError, "Both 'rtol' and 'atol' must be either specified or "
                         "omitted, but got no %s." % ("rtol" if rtol is None else "atol"),
                         id=id)
    if rtol is not None:
        return rtol, atol
    precisions = precisions or _DTYPE_PRECISIONS
    rtols, atols = zip(*[precisions.get(numpy.dtype(d), (0.0, 0.0)) for d in dtypes])
    return max(rtols), max(atols)


def _mismatch_msg(identifier, extra, abs_diff, abs_idx, atol, rel_diff, rel_idx, rtol):
    equality = rtol == 0 and atol == 0

    def diff_msg(kind, diff, idx, tol):
        if idx is None:
            msg = "%s difference: %s" % (kind.title(), diff)
        else:
            msg = "Greatest %s difference: %s at index %s" % (kind, diff, idx)
        if not equality:
            msg += " (up to %s allowed)" % tol
        return msg + "\n"

    if callable(identifier):
        identifier = identifier("Tensor-likes")
    msg = "%s are not %s!\n\n" % (identifier, "equal" if equality else "close")
    if extra:
        msg += extra.strip() + "\n"
    msg += diff_msg("absolute", abs_diff, abs_idx, atol)
    msg += diff_msg("relative", rel_diff, rel_idx, rtol)
    return msg.strip()


def _scalar_mismatch_msg(actual, expected, rtol, atol, identifier="Scalars"):
    abs_diff = abs(actual - expected)
    rel_diff = float("inf") if expected == 0 else abs_diff / abs(expected)
    return _mismatch_msg(identifier, "Expected %s but got %s." % (expected, actual),
                         abs_diff, None, atol, rel_diff, None, rtol)


def _is_floating(dtype):
    return dtype.kind == "f" or dtype.type.__module__ == "ml_dtypes"


def _tensor_mismatch_msg(actual, expected, matches, rtol, atol):
    """torch's message for two arrays (host copies, one dtype) that are not close."""
    n = matches.size
    mismatches = n - int(matches.sum())
    extra = "Mismatched elements: %d / %d (%.1f%%)" % (mismatches, n, 100.0 * mismatches / n)
    a, e, m = actual.reshape(-1), expected.reshape(-1), matches.reshape(-1)
    if not _is_floating(a.dtype) and a.dtype.kind != "c":
        a, e = a.astype(numpy.int64), e.astype(numpy.int64)
    elif a.dtype.type.__module__ == "ml_dtypes":
        a, e = a.astype(numpy.float32), e.astype(numpy.float32)
    with numpy.errstate(all="ignore"):
        abs_diff = numpy.abs(a - e)
        abs_diff[m] = 0
        rel_diff = abs_diff / numpy.abs(e)
    if rel_diff.dtype.kind != "f" or abs_diff.dtype.kind in "iu":
        # torch's true division of integers gives the default float dtype
        rel_diff = rel_diff.astype(_engine.get_default_dtype())
    rel_diff[m] = 0

    def argmax(x):      # torch.max's index: the first maximum, NaN counting as greatest
        nan = numpy.flatnonzero(numpy.isnan(x)) if x.dtype.kind == "f" else ()
        return int(nan[0]) if len(nan) else int(numpy.argmax(x))

    def unravel(flat):
        return tuple(int(i) for i in numpy.unravel_index(flat, matches.shape)) \
            if matches.shape else ()

    i, j = argmax(abs_diff), argmax(rel_diff)
    return _mismatch_msg("Tensor-likes", extra, abs_diff[i].item(), unravel(i), atol,
                         rel_diff[j].item(), unravel(j), rtol)


# -- the pairs: each takes (actual, expected) or raises _Unsupported ---------------------------

class _NonePair:
    def __init__(self, actual, expected, id=(), **options):
        if not (actual is None or expected is None):
            raise _Unsupported
        self.actual, self.expected, self.id = actual, expected, id

    def compare(self):
        if not (self.actual is None and self.expected is None):
            raise _ErrorMeta(AssertionError, "None mismatch: %s is not %s"
                             % (self.actual, self.expected), id=self.id)


class _BooleanPair:
    def __init__(self, actual, expected, id=(), **options):
        if not all(isinstance(x, (bool, numpy.bool_)) for x in (actual, expected)):
            raise _Unsupported
        self.actual, self.expected, self.id = bool(actual), bool(expected), id

    def compare(self):
        if self.actual is not self.expected:
            raise _ErrorMeta(AssertionError, "Booleans mismatch: %s is not %s"
                             % (self.actual, self.expected), id=self.id)


class _NumberPair:
    _TYPE_TO_DTYPE = {int: numpy.int64, float: numpy.float64, complex: numpy.complex128}

    def __init__(self, actual, expected, id=(), rtol=None, atol=None, equal_nan=False,
                 check_dtype=False, **options):
        if not all(isinstance(x, (int, float, complex, numpy.number))
                   for x in (actual, expected)):
            raise _Unsupported
        actual, expected = (x.item() if isinstance(x, numpy.number) else x
                            for x in (actual, expected))
        self.actual, self.expected, self.id = actual, expected, id
        # a bool here (True against 1) has no dtype: torch fails the same way
        self.rtol, self.atol = _tolerances([self._TYPE_TO_DTYPE[type(x)]
                                            for x in (actual, expected)], rtol, atol, id)
        self.equal_nan, self.check_dtype = equal_nan, check_dtype

    def compare(self):
        actual, expected = self.actual, self.expected
        if self.check_dtype and type(actual) is not type(expected):
            raise _ErrorMeta(AssertionError, "The (d)types do not match: %s != %s."
                             % (type(actual), type(expected)), id=self.id)
        if actual == expected:
            return
        if self.equal_nan and cmath.isnan(actual) and cmath.isnan(expected):
            return
        abs_diff = abs(actual - expected)
        if cmath.isfinite(abs_diff) and abs_diff <= self.atol + self.rtol * abs(expected):
            return
        raise _ErrorMeta(AssertionError, _scalar_mismatch_msg(actual, expected, self.rtol,
                                                              self.atol), id=self.id)


class _TensorLikePair:
    def __init__(self, actual, expected, id=(), allow_subclasses=True, rtol=None,
                 atol=None, equal_nan=False, check_device=True, check_dtype=True,
                 check_layout=True, check_stride=False, **options):
        if not (isinstance(actual, type(expected)) or isinstance(expected, type(actual))):
            raise _Unsupported
        if not allow_subclasses and type(actual) is not type(expected):
            raise _Unsupported
        self.actual, self.expected = (self._to_variable(x) for x in (actual, expected))
        self.id = id
        self.rtol, self.atol = _tolerances([self.actual.dtype, self.expected.dtype],
                                           rtol, atol, id)
        self.equal_nan = equal_nan
        self.check_device, self.check_dtype = check_device, check_dtype
        self.check_stride = check_stride

    @staticmethod
    def _to_variable(x):
        if isinstance(x, _engine.Variable):
            return x
        from pyad._factories import as_tensor
        try:
            return as_tensor(x)
        except Exception:
            raise _Unsupported from None

    def _fail_attribute(self, name, actual, expected):
        raise _ErrorMeta(AssertionError, "The values for attribute '%s' do not match: "
                         "%s != %s." % (name, actual, expected), id=self.id)

    def compare(self):
        from pyad._compat import Size
        actual, expected = self.actual, self.expected
        if tuple(actual.shape) != tuple(expected.shape):
            self._fail_attribute("shape", Size(actual.shape), Size(expected.shape))
        if self.check_stride and actual.stride() != expected.stride():
            self._fail_attribute("stride()", actual.stride(), expected.stride())
        if self.check_device and actual.device != expected.device:
            self._fail_attribute("device", actual.device, expected.device)
        if self.check_dtype and actual.dtype != expected.dtype:
            self._fail_attribute("dtype", _dtype_name(actual.dtype),
                                 _dtype_name(expected.dtype))
        a, e = _host(actual), _host(expected)
        if a.dtype != e.dtype:
            dtype = _promote(a.dtype, e.dtype)
            a, e = a.astype(dtype), e.astype(dtype)
        self._compare_values(a, e)

    def _compare_values(self, a, e):
        matches = _isclose(a, e, self.rtol, self.atol, self.equal_nan)
        if bool(matches.all()):
            return
        if a.shape == ():
            msg = _scalar_mismatch_msg(a.item(), e.item(), self.rtol, self.atol)
        else:
            msg = _tensor_mismatch_msg(a, e, matches, self.rtol, self.atol)
        raise _ErrorMeta(AssertionError, msg, id=self.id)


def _host(v):
    data = v.detach().data
    if type(data) is not numpy.ndarray:
        data = data.get()                     # CuPy -> NumPy
    return numpy.asarray(data)


def _promote(a, b):
    """torch.promote_types, with torch's uint16/32/64 -> int64 of assert_close."""
    a, b = (numpy.dtype(numpy.int64) if d in (numpy.uint16, numpy.uint32, numpy.uint64)
            else d for d in (a, b))
    from pyad._factories import zeros
    return (zeros((), dtype=a) + zeros((), dtype=b)).dtype


def _isclose(a, e, rtol, atol, equal_nan):
    """torch.isclose on host arrays of one dtype (pyad's isclose follows torch's)."""
    if a.dtype.type.__module__ == "ml_dtypes":
        a, e = a.astype(numpy.float32), e.astype(numpy.float32)
    from pyad import isclose
    return isclose(_engine.Variable(a), _engine.Variable(e), rtol=rtol, atol=atol,
                   equal_nan=equal_nan).data


_PAIR_TYPES = (_NonePair, _BooleanPair, _NumberPair, _TensorLikePair)


def _originate_pairs(actual, expected, id=(), **options):
    sequence, mapping = collections.abc.Sequence, collections.abc.Mapping
    if isinstance(actual, sequence) and not isinstance(actual, str) \
            and isinstance(expected, sequence) and not isinstance(expected, str):
        if len(actual) != len(expected):
            raise _ErrorMeta(AssertionError, "The length of the sequences mismatch: %d != %d"
                             % (len(actual), len(expected)), id=id)
        pairs = []
        for i in range(len(actual)):
            pairs.extend(_originate_pairs(actual[i], expected[i], id=(*id, i), **options))
        return pairs
    if isinstance(actual, mapping) and isinstance(expected, mapping):
        actual_keys, expected_keys = set(actual.keys()), set(expected.keys())
        if actual_keys != expected_keys:
            raise _ErrorMeta(AssertionError,
                             "The keys of the mappings do not match:\n"
                             "Missing keys in the actual mapping: %s\n"
                             "Additional keys in the actual mapping: %s"
                             % (sorted(expected_keys - actual_keys),
                                sorted(actual_keys - expected_keys)), id=id)
        keys = actual_keys
        with contextlib.suppress(Exception):
            keys = sorted(keys)
        pairs = []
        for key in keys:
            pairs.extend(_originate_pairs(actual[key], expected[key], id=(*id, key),
                                          **options))
        return pairs
    for pair_type in _PAIR_TYPES:
        try:
            return [pair_type(actual, expected, id=id, **options)]
        except _Unsupported:
            continue
        except _ErrorMeta:
            raise
        except Exception as error:
            raise RuntimeError("assert_close(): comparing %s(): %s and %s(): %s at item %s "
                               "failed" % (type(actual).__name__, actual,
                                           type(expected).__name__, expected,
                                           "".join(str([i]) for i in id))) from error
    raise _ErrorMeta(TypeError, "No comparison pair was able to handle inputs of type %s "
                     "and %s." % (type(actual), type(expected)), id=id)


def assert_close(actual, expected, *, allow_subclasses=True, rtol=None, atol=None,
                 equal_nan=False, check_device=True, check_dtype=True, check_layout=True,
                 check_stride=False, msg=None):
    """Raise ``AssertionError`` unless ``actual`` and ``expected`` are close, as
    ``torch.testing.assert_close``.

    Variables and NumPy arrays compare elementwise: ``|actual - expected| <= atol + rtol *
    |expected|`` (NaN equal to NaN only with ``equal_nan``), after checking shape, device
    and dtype (``check_device``/``check_dtype``; ``check_stride`` compares strides too;
    ``check_layout`` is accepted, pyad has one layout). Without ``rtol``/``atol`` (give
    both or neither, else ``ValueError``), each dtype's defaults apply: float16 (1e-3,
    1e-5), bfloat16 (0.016, 1e-5), float32 and complex64 (1.3e-6, 1e-5), float64 and
    complex128 (1e-7, 1e-7), exact for integers and bool. Python and NumPy numbers
    compare as scalars (an int against a float fails ``check_dtype``), booleans and None
    by identity, sequences and mappings item by item. A Variable against a NumPy array or
    a number, or any other mix of kinds, raises ``TypeError``. ``msg`` replaces the
    message, or, if callable, maps the generated one.

    >>> import pyad
    >>> pyad.testing.assert_close([pyad.tensor(1.0), 2], [pyad.tensor(1.0), 2])
    >>> pyad.testing.assert_close(1.0, 1.1, rtol=0.1, atol=0.0)
    >>> pyad.testing.assert_close(pyad.tensor([1, 2]), pyad.tensor([1.0, 2.0]))
    Traceback (most recent call last):
        ...
    AssertionError: The values for attribute 'dtype' do not match: pyad.int64 != pyad.float32.
    """
    __tracebackhide__ = True
    options = dict(allow_subclasses=allow_subclasses, rtol=rtol, atol=atol,
                   equal_nan=equal_nan, check_device=check_device, check_dtype=check_dtype,
                   check_layout=check_layout, check_stride=check_stride)
    try:
        pairs = _originate_pairs(actual, expected, **options)
    except _ErrorMeta as error:
        raise error.to_error() from None
    for pair in pairs:
        try:
            pair.compare()
        except _ErrorMeta as error:
            raise error.to_error(msg) from None


def assert_allclose(actual, expected, rtol=None, atol=None, equal_nan=True, msg=""):
    """Deprecated since torch 1.12 (``FutureWarning``): `assert_close` with
    ``check_dtype=False``, ``equal_nan=True`` and the looser old defaults (float16 (1e-3,
    1e-3), float32 (1e-4, 1e-5), float64 (1e-5, 1e-8)); non-Variables are converted with
    `pyad.tensor` (``expected`` to ``actual``'s dtype).
    """
    warnings.warn("`torch.testing.assert_allclose()` is deprecated since 1.12 and will be "
                  "removed in a future release. Please use `torch.testing.assert_close()` "
                  "instead. You can find detailed upgrade instructions in "
                  "https://github.com/pytorch/pytorch/issues/61844.", FutureWarning,
                  stacklevel=2)
    from pyad._factories import tensor
    if not isinstance(actual, _engine.Variable):
        actual = tensor(actual)
    if not isinstance(expected, _engine.Variable):
        expected = tensor(expected, dtype=actual.dtype)
    if rtol is None and atol is None:
        rtol, atol = _tolerances([actual.dtype, expected.dtype], None, None, (), {
            numpy.dtype(numpy.float16): (1e-3, 1e-3),
            numpy.dtype(numpy.float32): (1e-4, 1e-5),
            numpy.dtype(numpy.float64): (1e-5, 1e-8)})
    assert_close(actual, expected, rtol=rtol, atol=atol, equal_nan=equal_nan,
                 check_device=True, check_dtype=False, check_stride=False, msg=msg or None)


_INTEGRAL = tuple(numpy.dtype(d) for d in (numpy.uint8, numpy.int8, numpy.int16,
                                           numpy.int32, numpy.int64, numpy.uint16,
                                           numpy.uint32, numpy.uint64))


def make_tensor(*shape, dtype, device, low=None, high=None, requires_grad=False,
                noncontiguous=False, exclude_zero=False, memory_format=None):
    """A Variable of ``shape`` filled with random values in ``[low, high)``, as
    ``torch.testing.make_tensor``.

    The defaults are torch's: ``[-9, 9)`` for floating and complex dtypes (real and
    imaginary parts), ``[-9, 10)`` for integers (clipped to the dtype's range, so
    ``[0, 10)`` for uint8), ``[0, 2)`` for bool. ``noncontiguous`` returns a strided view
    (every other element of a twice-as-wide array); ``exclude_zero`` replaces zeros with
    1 (integers) or the dtype's smallest normal number; ``requires_grad`` is for
    floating and complex dtypes only (``ValueError`` otherwise). ``memory_format`` is
    accepted for torch's signature (pyad arrays are C-ordered). The values come from
    pyad's default generator, not torch's.

    >>> import pyad
    >>> t = pyad.testing.make_tensor(2, 3, dtype=pyad.int64, device="cpu", low=0, high=5)
    >>> t.shape, t.dtype, bool(((t >= 0) & (t < 5)).all())
    ((2, 3), dtype('int64'), True)
    """
    from pyad._compat import finfo, iinfo
    from pyad._factories import randint, rand
    dtype = numpy.dtype(dtype)
    floating = _is_floating(dtype) or dtype.kind == "c"

    def modify_low_high(low, high, lowest_inclusive, highest_exclusive, default_low,
                        default_high):
        low = default_low if low is None else low
        high = default_high if high is None else high
        if any(isinstance(v, float) and math.isnan(v) for v in (low, high)):
            raise ValueError("`low` and `high` cannot be NaN, but got low=%r and high=%r"
                             % (low, high))
        elif low == high and floating:
            warnings.warn("Passing `low==high` to `torch.testing.make_tensor` for floating "
                          "or complex types is deprecated since 2.1 and will be removed in "
                          "2.3. Use `torch.full(...)` instead.", FutureWarning, stacklevel=3)
        elif low >= high:
            raise ValueError("`low` must be less than `high`, but got %s >= %s"
                             % (low, high))
        elif high < lowest_inclusive or low >= highest_exclusive:
            raise ValueError("The value interval specified by `low` and `high` is [%s, %s), "
                             "but %s only supports [%s, %s)"
                             % (low, high, _dtype_name(dtype), lowest_inclusive,
                                highest_exclusive))
        low = min(max(low, lowest_inclusive), highest_exclusive)
        high = min(max(high, lowest_inclusive), highest_exclusive)
        if not floating:
            return math.ceil(low), math.ceil(high)
        return low, high

    if len(shape) == 1 and isinstance(shape[0], collections.abc.Sequence):
        shape = shape[0]
    shape = tuple(shape)
    if noncontiguous and memory_format is not None:
        raise ValueError("The parameters `noncontiguous` and `memory_format` are mutually "
                         "exclusive, but got noncontiguous=%r and memory_format=%r"
                         % (noncontiguous, memory_format))
    if requires_grad and not floating:
        raise ValueError("`requires_grad=True` is not supported for boolean and integral "
                         "dtypes, but got dtype=%s" % _dtype_name(dtype))
    noncontiguous = noncontiguous and functools.reduce(lambda x, y: x * y, shape, 1) > 1
    if noncontiguous:
        shape = (*shape[:-1], 2 * shape[-1])
    if dtype == numpy.bool_:
        low, high = modify_low_high(low, high, 0, 2, 0, 2)
        result = randint(low, high, shape, device=device, dtype=dtype)
    elif dtype in _INTEGRAL:
        info = iinfo(dtype)
        low, high = modify_low_high(low, high, info.min,
                                    info.max + (1 if dtype != numpy.int64 else 0), -9, 10)
        result = randint(low, high, shape, device=device, dtype=dtype)
    elif floating:
        info = finfo(dtype)
        low, high = modify_low_high(low, high, float(info.min), float(info.max), -9, 9)
        real = numpy.dtype(numpy.float32 if dtype == numpy.complex64 else numpy.float64) \
            if dtype.kind == "c" else dtype
        compute = numpy.float64 if real.type.__module__ == "ml_dtypes" else real

        def uniform(size):
            u = rand(*size, dtype=compute, device=device).data
            if high - low >= float(info.max):      # torch halves the range not to overflow
                return (u * (high / 2 - low / 2) + low / 2) * 2
            return u * (high - low) + low

        if dtype.kind == "c":
            data = uniform(shape) + 1j * uniform(shape)
        else:
            data = uniform(shape)
        result = _engine.Variable(data.astype(dtype))
    else:
        raise TypeError("The requested dtype '%s' is not supported by "
                        "pyad.testing.make_tensor()." % _dtype_name(dtype))
    if noncontiguous:
        result = result[..., 1::2]
    if exclude_zero:
        data = result.data                  # in place, so a noncontiguous view stays one
        data[data == 0] = 1 if not floating else finfo(dtype).tiny
    if floating and requires_grad:
        result._mark_requires_grad(True)
    return result
