"""``pyad.jit``: torch.jit's names, so that a ported script which scripts or traces its
model runs unchanged, eagerly.

pyad has no compiler and no TorchScript. `script` and `trace` return the function or
module they are given, as `pyad.compile` does: for valid TorchScript, scripted code
computes what the eager Python computes, so the results (values, gradients) are the
same. What differs is only what a compiler adds: nothing is type-checked or compiled
(an error TorchScript would report at ``script`` time shows up, if at all, when the
code runs), `trace` does not run the function on its example inputs (torch does, and
freezes its control flow to the path those inputs took; here data-dependent branches
are taken anew at each call), `is_scripting` and `is_tracing` are False (as in torch's
eager mode), `fork` runs its function at once and `wait` returns the result, and
`save` / `load` (TorchScript archives) raise NotImplementedError naming
`pyad.save` / `pyad.load`.

>>> import pyad
>>> @pyad.jit.script
... def f(x):
...     return x * 2 if not pyad.jit.is_scripting() else x
>>> f(pyad.tensor([1.0, 2.0]))
tensor([2., 4.])
>>> pyad.jit.wait(pyad.jit.fork(f, pyad.tensor(3.0)))
tensor(6.)
"""
import typing

from pyad.nn.modules import Module

__all__ = ["script", "trace", "trace_module", "ignore", "unused", "export", "is_scripting",
           "is_tracing", "annotate", "ScriptModule", "ScriptFunction", "save", "load",
           "fork", "wait", "Future", "Final"]

Final = typing.Final        # torch.jit.Final is typing.Final


def script(obj, optimize=None, _frames_up=0, _rcb=None, example_inputs=None):
    """Return ``obj`` (a function, method or Module) itself: pyad has no TorchScript
    compiler, and the eager code computes what the scripted code would. Works as a
    decorator."""
    return obj


def script_method(fn):
    """Return ``fn`` itself (``torch.jit.script_method``: pyad has no TorchScript)."""
    return fn


def trace(func, example_inputs=None, optimize=None, check_trace=True, check_inputs=None,
          check_tolerance=1e-5, strict=True, _force_outplace=False, _module_class=None,
          _compilation_unit=None, example_kwarg_inputs=None, _store_inputs=True):
    """Return ``func`` (a function or Module) itself, as `script` does. The example
    inputs are required, as in torch, but not run: torch runs ``func`` once on them and
    records the ops taken, so later calls follow that path whatever the data; here
    each call runs the Python code."""
    if example_inputs is None and example_kwarg_inputs is None:
        raise TypeError("trace(): example_inputs (or example_kwarg_inputs) is required")
    if example_kwarg_inputs is not None and not isinstance(example_kwarg_inputs, dict):
        raise RuntimeError("trace(): example_kwarg_inputs should be a dict")
    return func


def trace_module(mod, inputs, optimize=None, check_trace=True, check_inputs=None,
                 check_tolerance=1e-5, strict=True, _force_outplace=False,
                 _module_class=None, _compilation_unit=None, example_inputs_is_kwarg=False,
                 _store_inputs=True):
    """Return the Module ``mod`` itself; ``inputs`` is a dict of method names to example
    inputs, as in torch (checked, not run)."""
    if not isinstance(mod, Module):
        raise AttributeError("trace_module(): expected pyad.nn.Module as the first "
                             "argument, got %s" % type(mod).__name__)
    if not isinstance(inputs, dict):
        raise AttributeError("trace_module(): expected a dictionary of (method_name, "
                             "input) pairs, got %s" % type(inputs).__name__)
    return mod


def ignore(drop=False, **kwargs):
    """Mark a function for the compiler to leave as Python (``@ignore`` or
    ``@ignore(drop=True)``): returns the function; everything is Python here."""
    if callable(drop):
        return drop
    return lambda fn: fn


def unused(fn):
    """Mark a method for the compiler to replace by a raise: returns ``fn`` (it is
    never compiled here, so it stays callable)."""
    return fn


def export(fn):
    """Mark a method for compilation as an entry point: returns ``fn``."""
    return fn


def is_scripting():
    """False: code never runs under TorchScript here (torch's answer in eager mode)."""
    return False


def is_tracing():
    """False: nothing traces here (torch's answer outside `trace`)."""
    return False


def annotate(the_type, the_value):
    """Return ``the_value``: the type is for the TorchScript compiler."""
    return the_value


class ScriptModule(Module):
    """torch's class of scripted modules, for ``isinstance`` checks and subclassing.
    `script` returns a Module unchanged, so a module is a ScriptModule here only if its
    class derives from this one (it then behaves as any Module)."""


class ScriptFunction:
    """torch's class of scripted functions, for ``isinstance`` checks: `script` returns
    functions unchanged, so no function is an instance."""

    def __init__(self, *args, **kwargs):
        raise TypeError("ScriptFunction(): pyad has no TorchScript functions; "
                        "pyad.jit.script returns the function itself")


class Future:
    """The result of `fork`: already complete (fork runs its function at once).
    ``wait()`` and ``value()`` return the result, ``done()`` is True, ``then(callback)``
    returns a Future of ``callback(self)``."""

    def __init__(self, value):
        self._value = value

    def done(self):
        return True

    def wait(self):
        return self._value

    def value(self):
        return self._value

    def then(self, callback):
        return Future(callback(self))

    def __repr__(self):
        return "Future(done=True)"


def fork(func, *args, **kwargs):
    """Call ``func(*args, **kwargs)`` now and return a completed `Future` holding the
    result (torch's eager ``fork`` also runs synchronously; an exception propagates
    from ``fork``)."""
    return Future(func(*args, **kwargs))


def wait(future):
    """The result of a `Future` from `fork`."""
    if not isinstance(future, Future):
        raise TypeError("wait(): expected a pyad.jit.Future, got %s"
                        % type(future).__name__)
    return future.wait()


def save(m, f, _extra_files=None):
    """Not supported: torch.jit.save writes a TorchScript archive, and pyad has no
    TorchScript. Raises NotImplementedError; save the weights with
    ``pyad.save(m.state_dict(), f)`` and restore them with ``load_state_dict``."""
    raise NotImplementedError(
        "pyad.jit.save(): pyad has no TorchScript, so it cannot write a TorchScript "
        "archive; save the weights with pyad.save(module.state_dict(), f) and restore "
        "them with module.load_state_dict(pyad.load(f))")


def load(f, map_location=None, _extra_files=None, _restore_shapes=False):
    """Not supported: torch.jit.load reads a TorchScript archive, and pyad has no
    TorchScript. Raises NotImplementedError; build the Module in Python and load
    weights that `pyad.save` wrote with ``module.load_state_dict(pyad.load(f))``."""
    raise NotImplementedError(
        "pyad.jit.load(): pyad has no TorchScript, so it cannot read a TorchScript "
        "archive; build the Module in Python and restore weights saved with pyad.save "
        "by module.load_state_dict(pyad.load(f))")
