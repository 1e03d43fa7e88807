"""Grad-mode switches: ``no_grad``, ``enable_grad``, ``set_grad_enabled``,
``inference_mode``.

Each works as a context manager and as a decorator, and is thread-local (the flag is
a C thread-local in the engine).
"""
import functools
import inspect
import warnings

from pyad import _engine

is_grad_enabled = _engine.is_grad_enabled


def _drive(ctx_factory, gen):
    """Run generator-like ``gen`` step by step, each step (and only it) inside a fresh
    ``ctx_factory()`` context; what the caller sends, throws or closes is passed on.

    ``gen`` is a generator, a coroutine or an async generator's ``asend``/``athrow``
    awaitable: all have ``send``, ``throw`` and ``close``. This is torch's
    ``_wrap_generator``: the mode holds while the wrapped code runs and the caller's
    mode holds while the wrapped code is suspended.
    """
    try:
        with ctx_factory():
            response = gen.send(None)
        while True:
            try:
                request = yield response
            except GeneratorExit:
                with ctx_factory():
                    gen.close()
                raise
            except BaseException as exc:
                with ctx_factory():
                    response = gen.throw(exc)
            else:
                with ctx_factory():
                    response = gen.send(request)
    except StopIteration as stop:
        return stop.value


class _Stepped:
    """An awaitable that runs an awaitable's steps under the mode (see ``_drive``)."""

    __slots__ = ("_ctx_factory", "_awaitable")

    def __init__(self, ctx_factory, awaitable):
        self._ctx_factory = ctx_factory
        self._awaitable = awaitable

    def __await__(self):
        return (yield from _drive(self._ctx_factory, self._awaitable))


def _wrap_generator(ctx_factory, func):
    @functools.wraps(func)
    def generator(*args, **kwargs):
        return (yield from _drive(ctx_factory, func(*args, **kwargs)))
    return generator


def _wrap_coroutine(ctx_factory, func):
    @functools.wraps(func)
    async def coroutine(*args, **kwargs):
        return await _Stepped(ctx_factory, func(*args, **kwargs))
    return coroutine


def _wrap_async_generator(ctx_factory, func):
    @functools.wraps(func)
    async def async_generator(*args, **kwargs):
        agen = func(*args, **kwargs)
        try:
            response = await _Stepped(ctx_factory, agen.asend(None))
            while True:
                try:
                    request = yield response
                except GeneratorExit:
                    await _Stepped(ctx_factory, agen.aclose())
                    raise
                except BaseException as exc:
                    response = await _Stepped(ctx_factory, agen.athrow(exc))
                else:
                    response = await _Stepped(ctx_factory, agen.asend(request))
        except StopAsyncIteration:
            return
    return async_generator


class _GradModeContext:
    """Base: a context manager that is also usable as a function decorator.

    As a decorator it sets the mode while the function's own code runs: for a
    generator, coroutine or async generator that is each step between two
    suspensions, never the caller's code in between.
    """

    _mode = True

    # C functions in the engine (no Python frame per `with` block); as Python:
    #     def __enter__(self):
    #         self._previous = _engine._set_grad_enabled(self._mode)
    #     def __exit__(self, exc_type, exc, tb):
    #         _engine._set_grad_enabled(self._previous)
    #         return False
    __enter__ = _engine._grad_mode_enter
    __exit__ = _engine._grad_mode_exit

    def clone(self):
        return type(self)()

    def __call__(self, func):
        if inspect.isclass(func):
            warnings.warn(
                "Decorating classes is deprecated and will be disabled in future versions. "
                "You should only decorate functions or methods. To preserve the current "
                "behavior of class decoration, you can directly decorate the `__init__` "
                "method and nothing else.", FutureWarning, stacklevel=2)
            cls = func
            func = lambda *args, **kwargs: cls(*args, **kwargs)  # noqa: E731
        ctx_factory = self.clone
        if inspect.isgeneratorfunction(func):
            return _wrap_generator(ctx_factory, func)
        if inspect.iscoroutinefunction(func):
            return _wrap_coroutine(ctx_factory, func)
        if inspect.isasyncgenfunction(func):
            return _wrap_async_generator(ctx_factory, func)

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with ctx_factory():
                return func(*args, **kwargs)
        return wrapper


class _NoParamDecorator(_GradModeContext):
    # Also usable bare, as ``@no_grad`` without parentheses (torch 2.x allows it). As
    # Python (it is a C function in the engine):
    #     def __new__(cls, orig_func=None):
    #         if orig_func is None:
    #             return super().__new__(cls)
    #         return cls()(orig_func)
    __new__ = staticmethod(_engine._grad_mode_new)


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


def is_inference_mode_enabled():
    """Whether an ``inference_mode()`` block is active on this thread.

    >>> with pyad.inference_mode():
    ...     pyad.is_inference_mode_enabled()
    True
    """
    return _engine._is_inference_mode_enabled()


class inference_mode(_GradModeContext):
    """torch's ``inference_mode(mode=True)``: no graph is recorded inside (grad mode
    off); ``mode=False`` turns grad mode on inside, as torch's does (its guard sets grad
    mode to ``not mode``). Context manager and decorator (bare or called), thread-local
    like ``no_grad``. What is made inside is an inference Variable
    (`Variable.is_inference`), which outside the mode may not be changed in place or
    saved for backward, as torch's inference tensors.

    >>> x = pyad.ones(2, requires_grad=True)
    >>> with pyad.inference_mode():
    ...     y = x * 2
    >>> y.requires_grad
    False
    """

    def __new__(cls, mode=True):
        if not isinstance(mode, bool) and callable(mode):    # bare @inference_mode
            return cls()(mode)
        return super().__new__(cls)

    def __init__(self, mode=True):
        self.mode = bool(mode)

    def __enter__(self):
        self._previous_inference = _engine._set_inference_mode(self.mode)
        self._previous = _engine._set_grad_enabled(not self.mode)
        return None

    def __exit__(self, exc_type, exc, tb):
        _engine._set_inference_mode(self._previous_inference)
        _engine._set_grad_enabled(self._previous)
        return False

    def clone(self):
        return type(self)(self.mode)


_multithreading_enabled = [True]


def is_multithreading_enabled():
    """Whether backward passes may use worker threads, as
    ``torch.autograd.is_multithreading_enabled`` (True unless `set_multithreading_enabled`
    turned it off). pyad's backward always runs on the calling thread; the flag is kept
    for code written for torch.

    >>> import pyad
    >>> pyad.autograd.is_multithreading_enabled()
    True
    """
    return _multithreading_enabled[0]


class set_multithreading_enabled(_GradModeContext):
    """Set the multithreading flag to ``mode``: immediately, and restored on exit when
    used with ``with``, as ``torch.autograd.set_multithreading_enabled``. The flag is a
    process-wide setting read by `is_multithreading_enabled`; it changes nothing in
    pyad, whose backward always runs on the calling thread.

    >>> import pyad
    >>> with pyad.autograd.set_multithreading_enabled(False):
    ...     pyad.autograd.is_multithreading_enabled()
    False
    >>> pyad.autograd.is_multithreading_enabled()
    True
    """

    def __init__(self, mode):
        self._mode = bool(mode)
        self._previous = _multithreading_enabled[0]
        _multithreading_enabled[0] = self._mode

    def __enter__(self):
        return None

    def __exit__(self, exc_type, exc, tb):
        _multithreading_enabled[0] = self._previous
        return False

    def clone(self):
        return set_multithreading_enabled(self._mode)

    def __call__(self, func):
        # Used as a decorator: undo the immediate switch made by __init__.
        _multithreading_enabled[0] = self._previous
        return _GradModeContext.__call__(self, func)
