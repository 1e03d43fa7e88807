"""Grad-mode switches: ``no_grad``, ``enable_grad``, ``set_grad_enabled``.

Each works as a context manager and as a decorator, and is thread-local (the flag is
a C thread-local in the engine).
"""
import functools
import inspect

from pyad import _engine

is_grad_enabled = _engine.is_grad_enabled


class _GradModeContext:
    """Base: a context manager that is also usable as a function decorator."""

    _mode = True

    def __enter__(self):
        self._previous = _engine._set_grad_enabled(self._mode)
        return None

    def __exit__(self, exc_type, exc, tb):
        _engine._set_grad_enabled(self._previous)
        return False

    def clone(self):
        return type(self)()

    def __call__(self, func):
        if inspect.isgeneratorfunction(func):
            @functools.wraps(func)
            def generator(*args, **kwargs):
                # The mode applies while the generator's body runs, not while it is
                # suspended at a yield (the caller's code runs in the caller's mode).
                gen = func(*args, **kwargs)
                try:
                    with self.clone():
                        response = gen.send(None)
                    while True:
                        try:
                            request = yield response
                        except GeneratorExit:
                            with self.clone():
                                gen.close()
                            raise
                        except BaseException as exc:
                            with self.clone():
                                response = gen.throw(exc)
                        else:
                            with self.clone():
                                response = gen.send(request)
                except StopIteration as stop:
                    return stop.value
            return generator

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with self.clone():
                return func(*args, **kwargs)
        return wrapper


class _NoParamDecorator(_GradModeContext):
    # Also usable bare, as ``@no_grad`` without parentheses (torch 2.x allows it).
    def __new__(cls, orig_func=None):
        if orig_func is None:
            return super().__new__(cls)
        return cls()(orig_func)


class no_grad(_NoParamDecorator):
    """Disable recording of operations (inference, parameter updates).

    >>> x = pyad.ones(2, requires_grad=True)
    >>> with pyad.no_grad():
    ...     y = x * 2
    >>> y.requires_grad
    False
    """

    _mode = False


class enable_grad(_NoParamDecorator):
    """Re-enable recording inside a ``no_grad`` block (or as a decorator)."""

    _mode = True


class set_grad_enabled(_GradModeContext):
    """Set grad mode to ``mode``: immediately, and restored on exit when used with ``with``.

    >>> _ = pyad.set_grad_enabled(False)
    >>> pyad.is_grad_enabled()
    False
    >>> _ = pyad.set_grad_enabled(True)
    """

    def __init__(self, mode):
        self._mode = bool(mode)
        self._previous = _engine._set_grad_enabled(self._mode)

    def __enter__(self):
        return None

    def __exit__(self, exc_type, exc, tb):
        _engine._set_grad_enabled(self._previous)
        return False

    def clone(self):
        return _SetGradScope(self._mode)

    def __call__(self, func):
        # Used as a decorator: undo the immediate switch made by __init__.
        _engine._set_grad_enabled(self._previous)
        return _GradModeContext.__call__(self, func)


class _SetGradScope(_GradModeContext):
    def __init__(self, mode):
        self._mode = mode
