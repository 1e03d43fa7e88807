"""Anomaly detection: ``detect_anomaly`` and ``set_detect_anomaly`` (torch's names).

With anomaly mode on (per thread, like grad mode), every graph node remembers where in
the user's code the forward op that made it ran (frames and line numbers only; the text
is formatted when an error is raised). Backward then

* raises ``RuntimeError("Function 'MulBackward' returned nan values in its 0th
  output.")`` when a node returns NaN (unless ``check_nan=False``), with the forward
  traceback of that node in the exception's message;
* adds the same forward traceback to any error raised inside a backward (built-in or
  custom), and in double backward the chain of nodes that induced it;
* names, in "modified by an inplace operation" errors, where the in-place change was
  made.
"""
import functools
import warnings

from pyad import _engine

is_anomaly_enabled = _engine._is_anomaly_enabled
is_anomaly_check_nan_enabled = _engine._is_anomaly_check_nan_enabled


class detect_anomaly:
    """Context manager and decorator that turns anomaly detection on.

    >>> x = pyad.tensor([0.0], requires_grad=True)
    >>> with pyad.autograd.detect_anomaly():          # doctest: +SKIP
    ...     (x.sqrt() * 0).sum().backward()
    """

    def __init__(self, check_nan=True):
        self.check_nan = bool(check_nan)
        self._previous = None
        warnings.warn("Anomaly Detection has been enabled. This mode will increase the "
                      "runtime and should only be enabled for debugging.", UserWarning,
                      stacklevel=2)

    def __enter__(self):
        self._previous = _engine._set_anomaly_enabled(True, self.check_nan)
        return self

    def __exit__(self, *exc):
        _engine._set_anomaly_enabled(*self._previous)
        return False

    def __call__(self, func):
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            previous = _engine._set_anomaly_enabled(True, self.check_nan)
            try:
                return func(*args, **kwargs)
            finally:
                _engine._set_anomaly_enabled(*previous)
        return wrapper


class set_detect_anomaly:
    """Set anomaly detection on or off: at once, and back on exit when used in ``with``.

    >>> _ = pyad.autograd.set_detect_anomaly(True)
    >>> pyad.autograd.is_anomaly_enabled()
    True
    >>> _ = pyad.autograd.set_detect_anomaly(False)
    >>> pyad.autograd.is_anomaly_enabled()
    False
    """

    def __init__(self, mode, check_nan=True):
        self._previous = _engine._set_anomaly_enabled(bool(mode), bool(check_nan))

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        _engine._set_anomaly_enabled(*self._previous)
        return False
