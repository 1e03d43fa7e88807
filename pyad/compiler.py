"""``pyad.compiler``: torch.compiler's names for code written to run compiled or not.

pyad runs every op eagerly (its Cython engine is the fast path), so nothing is ever being
compiled: `is_compiling` is False and `disable` returns the function unchanged, which is
what these calls mean in eager torch.

>>> import pyad
>>> @pyad.compiler.disable
... def f(x):
...     return x + 1
>>> f(1), pyad.compiler.is_compiling()
(2, False)
"""

__all__ = ["compile", "disable", "is_compiling", "is_dynamo_compiling", "reset",
           "allow_in_graph", "assume_constant_result", "cudagraph_mark_step_begin"]


def compile(*args, **kwargs):
    """``pyad.compile``: the model or function itself."""
    import pyad
    return pyad.compile(*args, **kwargs)


def disable(fn=None, recursive=True, *, reason=None):
    """The function itself (as a decorator with or without arguments)."""
    if fn is None:
        return lambda f: f
    return fn


def is_compiling():
    """Always False: pyad never traces."""
    return False


def is_dynamo_compiling():
    """Always False: pyad never traces."""
    return False


def reset():
    """Nothing to reset."""


def allow_in_graph(fn):
    """The function itself."""
    return fn


def assume_constant_result(fn):
    """The function itself."""
    return fn


def cudagraph_mark_step_begin():
    """Nothing to mark: pyad records no CUDA graphs."""
