"""``torch.nn.modules.module``: `Module` (defined in ``pyad.nn.modules``) and the hooks
for every module.

Global hooks run for every `pyad.nn.Module` call, before the module's own hooks of the
same kind, and are removed through the returned handle.

>>> import pyad
>>> from pyad.nn.modules.module import register_module_forward_hook
>>> handle = register_module_forward_hook(lambda mod, args, out: out + 1)
>>> pyad.nn.Identity()(pyad.tensor([1.0]))
tensor([2.])
>>> handle.remove()
>>> pyad.nn.Identity()(pyad.tensor([1.0]))
tensor([1.])
"""
from pyad.nn import modules as _modules
from pyad.nn.modules import Module, _IncompatibleKeys, _addindent  # noqa: F401 - as torch's

__all__ = ["Module", "register_module_forward_pre_hook", "register_module_forward_hook",
           "register_module_full_backward_pre_hook", "register_module_full_backward_hook",
           "register_module_backward_hook", "register_module_buffer_registration_hook",
           "register_module_module_registration_hook",
           "register_module_parameter_registration_hook"]


def register_module_forward_pre_hook(hook):
    """Call ``hook(module, args)`` before every module's ``forward`` (before the
    module's own pre-hooks); a non-None result replaces the positional arguments.
    Returns a handle whose ``remove()`` unregisters it."""
    return _modules._add_global_hook(_modules._global_forward_pre_hooks, hook, False,
                                     "register_module_forward_pre_hook")


def register_module_forward_hook(hook, *, with_kwargs=False, always_call=False):
    """Call ``hook(module, args, output)`` after every module's ``forward`` (before the
    module's own forward hooks); a non-None result replaces the output. ``with_kwargs``
    and ``always_call`` are as in `Module.register_forward_hook`. Returns a removable
    handle."""
    handle = _modules._add_global_hook(_modules._global_forward_hooks, hook, with_kwargs,
                                       "register_module_forward_hook")
    if always_call:
        _modules._always_called_forward_hooks.add(handle.id)
    return handle


def register_module_full_backward_pre_hook(hook):
    """Call ``hook(module, grad_output)`` for every module, as
    `Module.register_full_backward_pre_hook` (before the module's own). Returns a
    removable handle."""
    return _modules._add_global_hook(_modules._global_backward_pre_hooks, hook, False,
                                     "register_module_full_backward_pre_hook")


def register_module_full_backward_hook(hook):
    """Call ``hook(module, grad_input, grad_output)`` for every module, as
    `Module.register_full_backward_hook` (before the module's own). Returns a
    removable handle."""
    return _modules._add_global_hook(_modules._global_backward_hooks, hook, False,
                                     "register_module_full_backward_hook")


def register_module_backward_hook(hook):
    """The older name of `register_module_full_backward_hook`, as
    `Module.register_backward_hook` is of `Module.register_full_backward_hook` (torch's
    non-full hook saw the gradients of a module's last op only, which torch deprecates;
    pyad gives the full hook's gradients). Returns a removable handle."""
    return _modules._add_global_hook(_modules._global_backward_hooks, hook, False,
                                     "register_module_backward_hook")


def register_module_buffer_registration_hook(hook):
    """Call ``hook(module, name, buffer)`` whenever any module registers a buffer
    (`Module.register_buffer` or assignment); a non-None result is registered instead.
    Returns a removable handle."""
    return _modules._add_global_hook(_modules._global_buffer_registration_hooks, hook,
                                     False, "register_module_buffer_registration_hook")


def register_module_module_registration_hook(hook):
    """Call ``hook(module, name, submodule)`` whenever any module registers a submodule
    (`Module.add_module` or assignment); a non-None result is registered instead.
    Returns a removable handle."""
    return _modules._add_global_hook(_modules._global_module_registration_hooks, hook,
                                     False, "register_module_module_registration_hook")


def register_module_parameter_registration_hook(hook):
    """Call ``hook(module, name, param)`` whenever any module registers a parameter
    (`Module.register_parameter` or assignment); a non-None result is registered
    instead. Returns a removable handle."""
    return _modules._add_global_hook(_modules._global_parameter_registration_hooks, hook,
                                     False, "register_module_parameter_registration_hook")
