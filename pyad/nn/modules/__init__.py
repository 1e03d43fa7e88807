"""``pyad.nn`` modules: `Module`, the containers and the layers, as ``torch.nn``.

A module holds its parameters (`Parameter`), buffers (Variables that are saved but not
trained, such as running statistics) and submodules in three dicts, filled by attribute
assignment. Layers call ``pyad.nn.functional`` at call time with torch's signatures.
"""
import inspect
import collections
import itertools
import math
import operator
import warnings

import numpy

from pyad import _engine
from pyad._engine import RemovableHandle, Variable, device as _device, matmul
from pyad._factories import empty, zeros, ones, tensor
from pyad.autograd import profiler as _profiler
from pyad.amp import autocast_mode as _autocast_mode
from pyad.autograd.function import Function
from pyad.autograd.grad_mode import is_grad_enabled, no_grad
from pyad.nn import functional as F
from pyad.nn import init
from pyad.nn import init as _init   # PReLU's `init` argument shadows the module
from pyad.nn.parameter import Buffer, Parameter, _zero_grads

__all__ = ["Module", "Sequential", "ModuleList", "Identity", "Linear", "Conv2d", "NLLLoss2d",
           "MaxPool2d", "ReLU", "Tanh", "Sigmoid", "GELU", "Softmax", "LogSoftmax",
           "LeakyReLU", "ELU", "CELU", "SELU", "SiLU", "Mish", "Softplus", "Hardtanh",
           "ReLU6", "Hardsigmoid", "Hardswish", "LogSigmoid", "Softsign", "Tanhshrink",
           "Softshrink", "Hardshrink", "Threshold", "GLU", "Dropout", "LayerNorm",
           "BatchNorm2d", "Embedding", "Flatten", "Unflatten", "CrossEntropyLoss", "MSELoss",
           "L1Loss", "SmoothL1Loss", "HuberLoss", "BCELoss", "BCEWithLogitsLoss", "NLLLoss",
           "KLDivLoss", "MarginRankingLoss", "HingeEmbeddingLoss", "SoftMarginLoss",
           "TripletMarginLoss", "PoissonNLLLoss", "GaussianNLLLoss", "CosineEmbeddingLoss",
           "MultiMarginLoss"]

class _IncompatibleKeys(collections.namedtuple("IncompatibleKeys",
                                              ["missing_keys", "unexpected_keys"])):
    """load_state_dict's result; printed as torch's when every key matched."""

    __slots__ = ()

    def __repr__(self):
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


def _addindent(text, spaces):
    lines = text.split("\n")
    if len(lines) == 1:
        return text
    return lines[0] + "\n" + "\n".join(" " * spaces + line for line in lines[1:])


def _shape(v):
    return str(tuple(v.shape))


def _parse_to(args, kwargs):
    """(device, dtype, memory_format) from Module.to's arguments: a device, a dtype, or a
    Variable, and the keywords."""
    dev = kwargs.pop("device", None)
    dtype = kwargs.pop("dtype", None)
    memory_format = kwargs.pop("memory_format", None)
    kwargs.pop("non_blocking", None)
    if "copy" in kwargs:
        # torch's Module.to parses Tensor.to's signature, then refuses copy= at run time
        raise RuntimeError("Module.to(): does not accept a copy argument")
    if kwargs:
        raise TypeError("Module.to() got an unexpected keyword argument %r"
                        % next(iter(kwargs)))
    for arg in args:
        if isinstance(arg, Variable):
            dev, dtype = arg.device, arg.dtype
        elif isinstance(arg, _device) or (isinstance(arg, str) and arg.split(":")[0] in
                                          ("cpu", "cuda")):
            dev = arg
        elif arg is not None:
            dtype = arg
    if dtype is not None:
        dtype = numpy.dtype(dtype)
        if not _engine._is_floating_or_complex(dtype):
            raise TypeError("nn.Module.to only accepts floating point or complex dtypes, "
                            "but got desired dtype=%s" % dtype)
    return dev, dtype, memory_format


class _HookList(list):
    """A module's hooks as ``(handle id, hook, with_kwargs)``; a list subclass so that
    its handles can reference it weakly. ``keys()``, ``values()`` and ``items()`` read
    it as torch's OrderedDict of hooks by handle id (code such as
    ``for hook in module._forward_pre_hooks.values()`` runs unchanged)."""

    def keys(self):
        return [entry[0] for entry in self]

    def values(self):
        return [entry[1] for entry in self]

    def items(self):
        return [(entry[0], entry[1]) for entry in self]


# Hooks registered for every module (torch.nn.modules.module.register_module_*): they
# run before each module's own hooks of the same kind.
_global_forward_pre_hooks = _HookList()
_global_forward_hooks = _HookList()
_global_backward_pre_hooks = _HookList()
_global_backward_hooks = _HookList()
# torch.nn.modules.module.register_module_{buffer,module,parameter}_registration_hook:
# called as hook(module, name, value) when a buffer / submodule / parameter is
# registered on any module; a non-None result is registered instead.
_global_buffer_registration_hooks = _HookList()
_global_module_registration_hooks = _HookList()
_global_parameter_registration_hooks = _HookList()


def _run_registration_hooks(hooks, module, name, value):
    for entry in list(hooks):
        output = entry[1](module, name, value)
        if output is not None:
            value = output
    return value


# Handle ids of forward hooks registered with always_call=True (global and per module).
_always_called_forward_hooks = set()


def _add_global_hook(hooks, hook, with_kwargs, what, prepend=False):
    if not callable(hook):
        raise TypeError("%s(): hook must be callable, got %s" % (what, type(hook).__name__))
    handle = RemovableHandle(hooks)
    entry = (handle.id, hook, bool(with_kwargs))
    if prepend:
        hooks.insert(0, entry)
    else:
        hooks.append(entry)
    return handle


class BackwardHookFunction(Function):
    # An identity on some Variables whose backward hands their gradients, all at once,
    # to `callback`, which may replace them: the seam where a module's full backward
    # hooks see grad_output (on its outputs) and grad_input (on its inputs), as torch's
    # BackwardHookFunction.

    @staticmethod
    def forward(ctx, callback, *args):
        ctx.callback = callback
        ctx.set_materialize_grads(False)
        ctx.mark_non_differentiable(*[a for a in args if not a.requires_grad])
        return args

    @staticmethod
    def backward(ctx, *grads):
        return (None,) + tuple(ctx.callback(grads))


class _BackwardHook:
    """One call's full backward hooks (torch.utils.hooks.BackwardHook): wraps the call's
    Variable inputs and outputs; the output wrapper's backward runs the pre-hooks on
    grad_output and keeps it, the input wrapper's backward runs the hooks on
    (grad_input, grad_output)."""

    def __init__(self, module, hooks, pre_hooks):
        self.module = module
        self.hooks = list(hooks or ())
        self.pre_hooks = list(pre_hooks or ())
        self.n_inputs = 0
        self.input_index = None          # positions of the inputs that were wrapped
        self.grad_outputs = None

    @staticmethod
    def _pack(index, values, n):
        packed = [None] * n
        for i, v in zip(index, values):
            packed[i] = v
        return tuple(packed)

    def wrap_inputs(self, args):
        self.n_inputs = len(args)
        index = [i for i, a in enumerate(args) if isinstance(a, Variable)]
        if not any(args[i].requires_grad for i in index):
            return args
        self.input_index = index
        wrapped = BackwardHookFunction.apply(self._on_input_grads, *[args[i] for i in index])
        args = list(args)
        for i, v in zip(index, wrapped):
            args[i] = v
        return tuple(args)

    def wrap_outputs(self, output):
        single = isinstance(output, Variable)
        outputs = (output,) if single else output
        if not isinstance(outputs, (tuple, list)):
            return output
        index = [i for i, o in enumerate(outputs) if isinstance(o, Variable)]
        self.n_outputs = len(outputs)
        self.output_index = index
        if not any(outputs[i].requires_grad for i in index):
            return output
        wrapped = BackwardHookFunction.apply(self._on_output_grads,
                                              *[outputs[i] for i in index])
        result = list(outputs)
        for i, v in zip(index, wrapped):
            result[i] = v
        if single:
            return result[0]
        return type(outputs)(result) if isinstance(outputs, tuple) and \
            type(outputs) is not tuple else (tuple(result) if isinstance(outputs, tuple)
                                             else result)

    @staticmethod
    def _replacing(hooks, call, grads, what):
        # Run each hook; a non-None result (of the same length) replaces the gradients
        # the next hook and the engine see.
        for hook in hooks:
            result = call(hook, grads)
            if result is not None:
                result = tuple(result) if isinstance(result, (tuple, list)) else (result,)
                if len(result) != len(grads):
                    raise RuntimeError("%s returned an invalid number of %s, got %d, but "
                                       "expected %d" % (what[0], what[1], len(result),
                                                        len(grads)))
                grads = result
        return grads

    def _on_output_grads(self, grads):
        grad_outputs = self._replacing(
            self.pre_hooks, lambda hook, g: hook(self.module, g),
            self._pack(self.output_index, grads, self.n_outputs),
            ("Backward pre hook", "grad_output"))
        self.grad_outputs = grad_outputs
        if self.input_index is None:
            # no input needs a gradient: the hooks run now, with None for every input
            if self.hooks:
                warnings.warn("Full backward hook is firing when gradients are computed with "
                              "respect to module outputs since no inputs require gradients. "
                              "See the docs of Module.register_full_backward_hook.",
                              UserWarning, stacklevel=2)
            grad_inputs = (None,) * self.n_inputs
            for hook in self.hooks:
                result = hook(self.module, grad_inputs, self.grad_outputs)
                if result is not None and not all(r is None for r in result):
                    raise RuntimeError("Backward hook for Modules where no input requires "
                                       "gradient should always return None or None for all "
                                       "gradients.")
            self.grad_outputs = None
        return tuple(grad_outputs[i] for i in self.output_index)

    def _on_input_grads(self, grads):
        if self.grad_outputs is None:
            # The output wrapper did not run in this backward pass (a double backward
            # through the input wrapper's recorded identity): the hooks already fired,
            # as in torch, which skips them when no grad_output was captured.
            return tuple(grads)
        grad_inputs = self._replacing(
            self.hooks, lambda hook, g: hook(self.module, g, self.grad_outputs),
            self._pack(self.input_index, grads, self.n_inputs),
            ("Backward hook", "grad_input"))
        self.grad_outputs = None
        return tuple(grad_inputs[i] for i in self.input_index)


_EXTRA_STATE_KEY_SUFFIX = "_extra_state"


class Module:
    """Base class of every layer and model, as ``torch.nn.Module``.

    Subclasses assign `Parameter` s, submodules and buffers as attributes in
    ``__init__`` and define ``forward``; calling the module calls ``forward``.

    >>> import pyad
    >>> from pyad import nn
    >>> class Affine(nn.Module):
    ...     def __init__(self):
    ...         super().__init__()
    ...         self.scale = nn.Parameter(pyad.ones(2))
    ...         self.inner = nn.Linear(2, 2)
    ...     def forward(self, x):
    ...         return self.inner(x) * self.scale
    >>> [name for name, _ in Affine().named_parameters()]
    ['scale', 'inner.weight', 'inner.bias']
    """

    training = True
    _version = 1           # written into state_dict's _metadata, as torch's
    # as torch's Module.call_super_init: when True, __init__ passes its arguments on to
    # the next class in the MRO (a mixin after Module); when False it takes none
    call_super_init = False

    def __init__(self, *args, **kwargs):
        if self.call_super_init is False and (args or kwargs):
            if kwargs:
                raise TypeError("Module.__init__(): got an unexpected keyword argument %r"
                                % next(iter(kwargs)))
            raise TypeError("Module.__init__(): takes 1 positional argument but %d were "
                            "given" % (len(args) + 1))
        object.__setattr__(self, "training", True)
        object.__setattr__(self, "_parameters", {})
        object.__setattr__(self, "_buffers", {})
        object.__setattr__(self, "_non_persistent_buffers_set", set())
        object.__setattr__(self, "_modules", {})
        object.__setattr__(self, "_forward_pre_hooks", _HookList())
        object.__setattr__(self, "_forward_hooks", _HookList())
        if self.call_super_init:
            super().__init__(*args, **kwargs)

    def forward(self, *args, **kwargs):
        """The computation; subclasses define it."""
        raise NotImplementedError('Module [%s] is missing the required "forward" function'
                                  % type(self).__name__)

    def __call__(self, *args, **kwargs):
        # The hook lists are read through __dict__ so that a subclass which forgot
        # super().__init__() still reaches forward (and its own error, if any).
        pre_hooks = self.__dict__.get("_forward_pre_hooks")
        if _global_forward_pre_hooks:
            pre_hooks = list(_global_forward_pre_hooks) + list(pre_hooks or ())
        hooks = self.__dict__.get("_forward_hooks")
        if _global_forward_hooks:
            hooks = list(_global_forward_hooks) + list(hooks or ())
        if hooks and _always_called_forward_hooks:
            called = set()
            try:
                return self._call_with_hooks(pre_hooks, hooks, called, args, kwargs)
            except Exception:
                # as torch: the always_call forward hooks not yet run see output None,
                # and an error of theirs is only warned about
                for hook_id, hook, with_kwargs in list(hooks):
                    if hook_id in _always_called_forward_hooks and hook_id not in called:
                        try:
                            if with_kwargs:
                                hook(self, args, kwargs, None)
                            else:
                                hook(self, args, None)
                        except Exception as exc:  # noqa: BLE001 - torch silences it too
                            warnings.warn("forward hook with ``always_call=True`` raised an "
                                          "exception that was silenced as another error was "
                                          "raised in forward: %s" % exc)
                raise
        return self._call_with_hooks(pre_hooks, hooks, None, args, kwargs)

    def _call_with_hooks(self, pre_hooks, hooks, called, args, kwargs):
        if pre_hooks:
            for _, hook, with_kwargs in list(pre_hooks):
                if with_kwargs:
                    result = hook(self, args, kwargs)
                    if result is not None:
                        if not (isinstance(result, tuple) and len(result) == 2):
                            raise RuntimeError(
                                "forward pre-hook must return None or a tuple of "
                                "(new_args, new_kwargs), but got %r" % (result,))
                        args, kwargs = result
                else:
                    result = hook(self, args)
                    if result is not None:
                        args = result if isinstance(result, tuple) else (result,)
        backward_hooks = self.__dict__.get("_backward_hooks")
        backward_pre_hooks = self.__dict__.get("_backward_pre_hooks")
        if _global_backward_hooks:
            backward_hooks = list(_global_backward_hooks) + list(backward_hooks or ())
        if _global_backward_pre_hooks:
            backward_pre_hooks = list(_global_backward_pre_hooks) + list(backward_pre_hooks or ())
        backward_hook = None
        if (backward_hooks or backward_pre_hooks) and is_grad_enabled():
            backward_hook = _BackwardHook(self, [h for _, h, _ in backward_hooks or ()],
                                          [h for _, h, _ in backward_pre_hooks or ()])
            args = backward_hook.wrap_inputs(args)
        output = self.forward(*args, **kwargs)
        if hooks:
            for hook_id, hook, with_kwargs in list(hooks):
                if called is not None:
                    called.add(hook_id)
                if with_kwargs:
                    result = hook(self, args, kwargs, output)
                else:
                    result = hook(self, args, output)
                if result is not None:
                    output = result
        if backward_hook is not None:
            if not isinstance(output, (Variable, tuple, list)):
                # torch's warning: the backward hooks only see Variable / tuple outputs
                warnings.warn("%s(): for backward hooks to be called, module output should "
                              "be a Variable or a tuple of Variables but received %s"
                              % (type(self).__name__, type(output)), stacklevel=3)
            output = backward_hook.wrap_outputs(output)
        return output

    def _add_hook(self, attr, hook, prepend, with_kwargs, what):
        if not callable(hook):
            raise TypeError("%s(): hook must be callable, got %s"
                            % (what, type(hook).__name__))
        hooks = self.__dict__.get(attr)
        if hooks is None:
            hooks = _HookList()
            object.__setattr__(self, attr, hooks)
        handle = RemovableHandle(hooks)
        entry = (handle.id, hook, bool(with_kwargs))
        if prepend:
            hooks.insert(0, entry)
        else:
            hooks.append(entry)
        return handle

    def register_forward_pre_hook(self, hook, *, prepend=False, with_kwargs=False):
        """Call ``hook(module, args)`` before each ``forward``; a non-None result
        replaces the positional arguments (a single value is wrapped in a tuple). With
        ``with_kwargs=True`` the hook is ``hook(module, args, kwargs)`` and may return
        ``(args, kwargs)``. Returns a handle whose ``remove()`` unregisters it.

        >>> import pyad
        >>> from pyad import nn
        >>> layer = nn.Identity()
        >>> handle = layer.register_forward_pre_hook(lambda m, args: (args[0] * 2,))
        >>> layer(pyad.tensor([1.0]))
        tensor([2.])
        >>> handle.remove()
        >>> layer(pyad.tensor([1.0]))
        tensor([1.])
        """
        return self._add_hook("_forward_pre_hooks", hook, prepend, with_kwargs,
                              "register_forward_pre_hook")

    def register_forward_hook(self, hook, *, prepend=False, with_kwargs=False,
                              always_call=False):
        """Call ``hook(module, args, output)`` after each ``forward``; a non-None result
        replaces the output. With ``with_kwargs=True`` the hook is
        ``hook(module, args, kwargs, output)``. With ``always_call=True`` the hook
        also runs (with output None) when ``forward`` or an earlier hook raises, as
        torch. Returns a removable handle.

        >>> import pyad
        >>> from pyad import nn
        >>> seen = []
        >>> layer = nn.Linear(3, 2)
        >>> handle = layer.register_forward_hook(lambda m, args, out: seen.append(out.shape))
        >>> _ = layer(pyad.ones(4, 3))
        >>> seen
        [(4, 2)]
        """
        handle = self._add_hook("_forward_hooks", hook, prepend, with_kwargs,
                                "register_forward_hook")
        if always_call:
            _always_called_forward_hooks.add(handle.id)
        return handle

    def register_full_backward_hook(self, hook, prepend=False):
        """Call ``hook(module, grad_input, grad_output)`` when the gradients with respect
        to the module's inputs are computed, as torch: ``grad_input`` has one entry per
        positional argument (None for those that are not Variables or need no
        gradient), ``grad_output`` one per output; a non-None result replaces
        ``grad_input``. When no input needs a gradient the hook runs with all-None
        ``grad_input`` as soon as ``grad_output`` is known. Returns a removable handle.

        >>> import pyad
        >>> from pyad import nn
        >>> seen = []
        >>> layer = nn.Linear(3, 2)
        >>> handle = layer.register_full_backward_hook(
        ...     lambda m, gin, gout: seen.append((gin[0].shape, gout[0].shape)))
        >>> layer(pyad.ones(4, 3, requires_grad=True)).sum().backward()
        >>> seen
        [((4, 3), (4, 2))]
        """
        return self._add_hook("_backward_hooks", hook, prepend, False,
                              "register_full_backward_hook")

    def register_backward_hook(self, hook):
        """The older name of `register_full_backward_hook` (torch's non-full hook saw
        the gradients of the module's last op only, which torch deprecates; pyad gives
        the full hook's gradients)."""
        return self._add_hook("_backward_hooks", hook, False, False, "register_backward_hook")

    def register_full_backward_pre_hook(self, hook, prepend=False):
        """Call ``hook(module, grad_output)`` when the gradients with respect to the
        module's outputs are known, before the module's backward; a non-None result
        replaces ``grad_output``. Returns a removable handle.

        >>> import pyad
        >>> from pyad import nn
        >>> layer = nn.Identity()
        >>> _ = layer.register_full_backward_pre_hook(lambda m, gout: (gout[0] * 10,))
        >>> x = pyad.ones(2, requires_grad=True)
        >>> layer(x * 1).sum().backward()
        >>> x.grad
        tensor([10., 10.])
        """
        return self._add_hook("_backward_pre_hooks", hook, prepend, False,
                              "register_full_backward_pre_hook")

    # -- registration ----------------------------------------------------------------

    def _check_name(self, name, what):
        if "_parameters" not in self.__dict__:
            raise AttributeError("cannot assign %s before Module.__init__() call" % what)
        if not isinstance(name, str):
            raise TypeError("%s name should be a string. Got %s" % (what, type(name).__name__))
        if name == "" or "." in name:
            raise KeyError('%s name can\'t be empty or contain "."' % what)

    def register_parameter(self, name, param):
        """Add a `Parameter` (or None) under ``name``.

        >>> import pyad
        >>> m = pyad.nn.Module()
        >>> m.register_parameter("w", pyad.nn.Parameter(pyad.zeros(1)))
        >>> list(dict(m.named_parameters()))
        ['w']
        """
        self._check_name(name, "parameter")
        if hasattr(self, name) and name not in self._parameters:
            raise KeyError("attribute '%s' already exists" % name)
        if param is not None and not isinstance(param, Parameter):
            raise TypeError("cannot assign '%s' object to parameter '%s' (pyad.nn.Parameter "
                            "or None required)" % (type(param).__name__, name))
        if param is not None and param.grad_fn is not None:
            raise ValueError("Cannot assign non-leaf Variable to parameter '%s'. Model "
                             "parameters must be created explicitly." % name)
        param = _run_registration_hooks(_global_parameter_registration_hooks, self, name,
                                        param)
        self._parameters[name] = param

    def register_buffer(self, name, tensor, persistent=True):
        """Add a buffer (a Variable or None): saved in `state_dict` if ``persistent``.

        >>> import pyad
        >>> m = pyad.nn.Module()
        >>> m.register_buffer("count", pyad.zeros(1))
        >>> list(m.state_dict())
        ['count']
        """
        self._check_name(name, "buffer")
        if hasattr(self, name) and name not in self._buffers:
            raise KeyError("attribute '%s' already exists" % name)
        if tensor is not None and not isinstance(tensor, Variable):
            raise TypeError("cannot assign '%s' object to buffer '%s' (pyad.Variable or None "
                            "required)" % (type(tensor).__name__, name))
        tensor = _run_registration_hooks(_global_buffer_registration_hooks, self, name,
                                         tensor)
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def add_module(self, name, module):
        """Add a submodule (or None) under ``name``."""
        if module is not None and not isinstance(module, Module):
            raise TypeError("%s is not a Module subclass" % type(module).__name__)
        self._check_name(name, "module")
        if hasattr(self, name) and name not in self._modules:
            raise KeyError("attribute '%s' already exists" % name)
        module = _run_registration_hooks(_global_module_registration_hooks, self, name,
                                         module)
        self._modules[name] = module

    register_module = add_module

    def __getattr__(self, name):
        # Only called when normal lookup fails: parameters, buffers and submodules.
        d = self.__dict__
        for store in ("_parameters", "_buffers", "_modules"):
            if store in d and name in d[store]:
                return d[store][name]
        raise AttributeError("'%s' object has no attribute '%s'" % (type(self).__name__, name))

    def __setattr__(self, name, value):
        d = self.__dict__
        params = d.get("_parameters")
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            self._remove_from(name, d, self._buffers, self._modules)
            self.register_parameter(name, value)
        elif params is not None and name in params:
            if value is not None:
                raise TypeError("cannot assign '%s' as parameter '%s' (pyad.nn.Parameter or "
                                "None expected)" % (type(value).__name__, name))
            self.register_parameter(name, value)
        elif isinstance(value, Module):
            if params is None:
                raise AttributeError("cannot assign module before Module.__init__() call")
            self._remove_from(name, d, self._parameters, self._buffers)
            value = _run_registration_hooks(_global_module_registration_hooks, self, name,
                                            value)
            self._modules[name] = value
        elif "_modules" in d and name in self._modules:
            if value is not None:
                raise TypeError("cannot assign '%s' as child module '%s' (pyad.nn.Module or "
                                "None expected)" % (type(value).__name__, name))
            value = _run_registration_hooks(_global_module_registration_hooks, self, name,
                                            value)
            self._modules[name] = value
        elif isinstance(value, Buffer):
            if "_buffers" not in d:
                raise AttributeError("cannot assign buffer before Module.__init__() call")
            self._remove_from(name, d, self._parameters, self._modules)
            register = self.register_buffer
            if (getattr(register, "__func__", None) is Module.register_buffer
                    or "persistent" in inspect.signature(register).parameters):
                register(name, value, persistent=value.persistent)
            else:
                # as torch: a subclass's register_buffer(name, value) without the
                # persistent argument still registers persistent buffers
                if not value.persistent:
                    raise RuntimeError(
                        "Module.__setattr__(): registering a non-persistent buffer on a "
                        "Module subclass that implements register_buffer() without the "
                        "persistent argument is not allowed")
                register(name, value)
        elif "_buffers" in d and name in self._buffers:
            if value is not None and not isinstance(value, Variable):
                raise TypeError("cannot assign '%s' as buffer '%s' (pyad.Variable or None "
                                "expected)" % (type(value).__name__, name))
            value = _run_registration_hooks(_global_buffer_registration_hooks, self, name,
                                            value)
            self._buffers[name] = value
        else:
            object.__setattr__(self, name, value)

    @staticmethod
    def _remove_from(name, attrs, *stores):
        attrs.pop(name, None)
        for store in stores:
            store.pop(name, None)

    def __delattr__(self, name):
        for store in (self._parameters, self._buffers, self._modules):
            if name in store:
                del store[name]
                self._non_persistent_buffers_set.discard(name)
                return
        object.__delattr__(self, name)

    def __dir__(self):
        keys = list(object.__dir__(self)) + list(self._parameters) + list(self._buffers) \
            + list(self._modules)
        return sorted(k for k in set(keys) if not k[:1].isdigit())

    # -- traversal -------------------------------------------------------------------

    def _named_members(self, get_members, prefix="", recurse=True, remove_duplicate=True):
        memo = set()
        modules = (self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate)
                   if recurse else [(prefix, self)])
        for module_prefix, module in modules:
            for k, v in get_members(module):
                if v is None or (remove_duplicate and id(v) in memo):
                    continue
                if remove_duplicate:
                    memo.add(id(v))
                yield (module_prefix + ("." if module_prefix else "") + k, v)

    def named_parameters(self, prefix="", recurse=True, remove_duplicate=True):
        """Iterate over ``(name, parameter)`` pairs, submodules' with dotted names."""
        return self._named_members(lambda m: m._parameters.items(), prefix, recurse,
                                   remove_duplicate)

    def parameters(self, recurse=True):
        """Iterate over the parameters (each once), submodules' included.

        >>> import pyad
        >>> [tuple(p.shape) for p in pyad.nn.Linear(3, 2).parameters()]
        [(2, 3), (2,)]
        """
        for _, p in self.named_parameters(recurse=recurse):
            yield p

    def named_buffers(self, prefix="", recurse=True, remove_duplicate=True):
        """Iterate over ``(name, buffer)`` pairs, submodules' with dotted names."""
        return self._named_members(lambda m: m._buffers.items(), prefix, recurse,
                                   remove_duplicate)

    def buffers(self, recurse=True):
        """Iterate over the buffers, submodules' included."""
        for _, b in self.named_buffers(recurse=recurse):
            yield b

    def named_children(self):
        """Iterate over ``(name, module)`` for the immediate submodules."""
        memo = set()
        for name, module in self._modules.items():
            if module is not None and id(module) not in memo:
                memo.add(id(module))
                yield name, module

    def children(self):
        """Iterate over the immediate submodules."""
        for _, module in self.named_children():
            yield module

    def get_submodule(self, target):
        """The submodule at the dotted path ``target`` (``''`` is this module), as
        torch's: AttributeError naming the missing part."""
        module = self
        if target == "":
            return module
        for part in target.split("."):
            if not hasattr(module, part):
                raise AttributeError(type(module).__name__ + " has no attribute `" + part + "`")
            module = getattr(module, part)
            if not isinstance(module, Module):
                raise AttributeError("`" + part + "` is not an nn.Module")
        return module

    def set_submodule(self, target, module, strict=False):
        """Put ``module`` at the dotted path ``target``, as torch's: the parent path must
        exist; with ``strict=True`` so must the last name; a non-module there is an
        AttributeError, an empty ``target`` a ValueError."""
        if target == "":
            raise ValueError("set_submodule(): cannot set the submodule without a target "
                             "name")
        if not isinstance(module, Module):
            raise ValueError("set_submodule(): `module` is not an nn.Module, found "
                             + type(module).__name__)
        parent_path, _, name = target.rpartition(".")
        parent = self.get_submodule(parent_path)
        if strict and not hasattr(parent, name):
            raise AttributeError(parent._get_name() + " has no attribute `" + name + "`")
        if hasattr(parent, name) and not isinstance(getattr(parent, name), Module):
            raise AttributeError("`" + name + "` is not an nn.Module")
        setattr(parent, name, module)

    def get_parameter(self, target):
        """The parameter at the dotted path ``target`` (torch's)."""
        module_path, _, name = target.rpartition(".")
        module = self.get_submodule(module_path)
        if not hasattr(module, name):
            raise AttributeError(type(module).__name__ + " has no attribute `" + name + "`")
        param = getattr(module, name)
        if not isinstance(param, Parameter):
            raise AttributeError("`" + name + "` is not an nn.Parameter")
        return param

    def get_buffer(self, target):
        """The buffer at the dotted path ``target`` (torch's)."""
        module_path, _, name = target.rpartition(".")
        module = self.get_submodule(module_path)
        if name not in module._buffers:
            raise AttributeError("`" + name + "` is not a buffer")
        return module._buffers[name]

    def named_modules(self, memo=None, prefix="", remove_duplicate=True):
        """Iterate over ``(name, module)`` for this module (name '') and all below it."""
        if memo is None:
            memo = set()
        if id(self) in memo:
            return
        if remove_duplicate:
            memo.add(id(self))
        yield prefix, self
        for name, module in self._modules.items():
            if module is None:
                continue
            sub = prefix + ("." if prefix else "") + name
            yield from module.named_modules(memo, sub, remove_duplicate)

    def modules(self):
        """Iterate over this module and every module below it (each once)."""
        for _, module in self.named_modules():
            yield module

    def apply(self, fn):
        """Call ``fn`` on every submodule (children first) and then on self; return self.

        >>> import pyad
        >>> net = pyad.nn.Sequential(pyad.nn.Linear(2, 2), pyad.nn.ReLU())
        >>> _ = net.apply(lambda m: print(type(m).__name__))
        Linear
        ReLU
        Sequential
        """
        for module in self.children():
            module.apply(fn)
        fn(self)
        return self

    # -- modes and gradients -----------------------------------------------------------

    def train(self, mode=True):
        """Set training mode (``mode=True``) or evaluation mode on self and below."""
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        self.training = mode
        for module in self.children():
            module.train(mode)
        return self

    def eval(self):
        """Set evaluation mode (``train(False)``): no dropout, BatchNorm's running stats."""
        return self.train(False)

    def requires_grad_(self, requires_grad=True):
        """Set ``requires_grad`` on every parameter; return self."""
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none=True):
        """Reset the parameters' gradients: to None (the default) or to zeros."""
        _zero_grads(self.parameters(), set_to_none)

    # -- dtype and device --------------------------------------------------------------

    def _apply(self, fn, recurse=True):
        """Convert every parameter (and its grad) and buffer in place with ``fn(array)``
        (only this module's own ones when ``recurse`` is False)."""
        for module in (self.modules() if recurse else (self,)):
            for p in module._parameters.values():
                if p is None:
                    continue
                with no_grad():
                    new = fn(p)
                    if new is not p:
                        p.data = new.data
                    g = p.grad
                    if g is not None:
                        new_g = fn(g)
                        if new_g is not g:
                            p.grad = Variable(new_g.data)
            for name, b in module._buffers.items():
                if b is not None:
                    new = fn(b)
                    if new is not b:
                        module._buffers[name] = new
        return self

    def to(self, *args, **kwargs):
        """Move and/or cast parameters and buffers: ``to(dtype)``, ``to(device)``, ``to(x)``.

        Floating point parameters and buffers take the dtype; integer ones (such as
        BatchNorm's ``num_batches_tracked``) keep theirs. Parameters stay the same
        objects (their ``.data`` is replaced), as torch. ``memory_format=`` (such as
        :data:`pyad.channels_last`) lays out the 4-d and 5-d ones in that order.

        >>> import pyad
        >>> lin = pyad.nn.Linear(2, 2).to(pyad.float64)
        >>> lin.weight.dtype
        dtype('float64')
        """
        dev, dtype, memory_format = _parse_to(args, dict(kwargs))
        if dtype is not None and numpy.dtype(dtype).kind == "c":
            # torch's warning (its test_to_complex counts it)
            warnings.warn("Complex modules are a new feature under active development "
                          "whose design may change, and some modules might not work as "
                          "expected when using complex Variables as parameters or buffers.")

        def convert(v):
            out = v
            if (dtype is not None and (out.is_floating_point() or out.is_complex())
                    and out.dtype != dtype):            # (bfloat16 included)
                out = out.to(dtype=dtype)
            if dev is not None:
                out = out.to(device=dev)
            if memory_format is not None and out.dim() in (4, 5):
                out = out.to(memory_format=memory_format)
            if out is not v:
                out = out.detach()._mark_requires_grad(v.requires_grad and v.is_leaf)
            return out
        return self._apply(convert)

    def to_empty(self, *, device, recurse=True):
        """Replace every parameter's and buffer's storage with uninitialized memory of the
        same shape and dtype on ``device`` (``recurse=False``: this module's own only), as
        torch's ``Module.to_empty``; parameters stay the same objects. Returns self.

        >>> import pyad
        >>> pyad.nn.Linear(2, 3).to_empty(device="cpu").weight.shape
        (3, 2)
        """
        def convert(v):
            out = empty(tuple(v.shape), dtype=v.dtype, device=device)
            return out._mark_requires_grad(v.requires_grad and v.is_leaf)
        return self._apply(convert, recurse=recurse)

    def type(self, dst_type):
        """Cast *all* parameters and buffers to ``dst_type`` (a dtype or a type name such
        as ``"torch.DoubleTensor"``), integer buffers included, as torch's
        ``Module.type``; returns the module.

        >>> import pyad
        >>> pyad.nn.Linear(2, 2).type(pyad.float64).weight.dtype
        dtype('float64')
        """
        def convert(v):
            out = v.type(dst_type)
            if out is not v:
                out = out.detach()._mark_requires_grad(v.requires_grad and v.is_leaf)
            return out
        return self._apply(convert)

    def float(self):
        """Cast floating point parameters and buffers to float32."""
        return self.to(numpy.float32)

    def double(self):
        """Cast floating point parameters and buffers to float64."""
        return self.to(numpy.float64)

    def half(self):
        """Cast floating point parameters and buffers to float16."""
        return self.to(numpy.float16)

    def cpu(self):
        """Move parameters and buffers to the CPU."""
        return self.to("cpu")

    def _replicate_for_data_parallel(self):
        # torch's: a shallow replica that holds no parameters of its own (DataParallel's
        # replicas reference the original module's, set on them as plain attributes)
        replica = self.__new__(type(self))
        replica.__dict__ = self.__dict__.copy()
        replica._parameters = {}
        replica._buffers = replica._buffers.copy()
        replica._modules = replica._modules.copy()
        replica._is_replica = True
        return replica

    def share_memory(self):
        """Move every parameter (and its grad, where it has one) and buffer into shared
        memory with `Variable.share_memory_` (a no-op for those already shared) and
        return self, as torch's ``Module.share_memory``. Children made with the ``fork``
        start method then see and write the same parameters (hogwild training); a
        ``spawn`` child gets pickled copies. Parameters stay the same objects.

        >>> import pyad
        >>> lin = pyad.nn.Linear(2, 2).share_memory()
        >>> lin.weight.is_shared()
        True
        """
        return self._apply(lambda v: v.share_memory_())

    def cuda(self, device=None):
        """Move parameters and buffers to a GPU (needs CuPy)."""
        return self.to("cuda" if device is None else _device("cuda", device)
                       if isinstance(device, int) else device)

    # -- state ---------------------------------------------------------------------------

    def register_state_dict_pre_hook(self, hook):
        """Call ``hook(module, prefix, keep_vars)`` before this module's entries go into a
        `state_dict` (torch's order: before its own entries and its submodules').
        Returns a removable handle.

        >>> import pyad
        >>> seen = []
        >>> lin = pyad.nn.Linear(2, 1)
        >>> handle = lin.register_state_dict_pre_hook(lambda m, prefix, kv: seen.append(prefix))
        >>> _ = pyad.nn.Sequential(lin).state_dict()
        >>> seen
        ['0.']
        """
        return self._add_hook("_state_dict_pre_hooks", hook, False, False,
                              "register_state_dict_pre_hook")

    def _register_state_dict_hook(self, hook):
        """Call ``hook(module, state_dict, prefix, local_metadata)`` after this module and
        its submodules wrote their entries; a non-None result replaces the state dict
        (torch's private form, which `spectral_norm` uses)."""
        if getattr(hook, "_from_public_api", False):
            raise RuntimeError("Cannot register the same function as the state dict post "
                               "hook that was previously registered via "
                               "register_state_dict_post_hook")
        return self._add_hook("_state_dict_hooks", hook, False, False,
                              "_register_state_dict_hook")

    def register_state_dict_post_hook(self, hook):
        """Call ``hook(module, state_dict, prefix, local_metadata)`` after this module and
        its submodules wrote their entries; it edits the dict in place and must return
        None. Returns a removable handle."""
        hook._from_public_api = True
        return self._add_hook("_state_dict_hooks", hook, False, True,
                              "register_state_dict_post_hook")

    def _register_load_state_dict_pre_hook(self, hook, with_module=False):
        """Call ``hook(state_dict, prefix, local_metadata, strict, missing_keys,
        unexpected_keys, error_msgs)`` (``module`` first with ``with_module=True``) before
        this module loads its entries; it may edit ``state_dict`` in place (rename or
        convert keys). Returns a removable handle."""
        return self._add_hook("_load_state_dict_pre_hooks", hook, False, bool(with_module),
                              "_register_load_state_dict_pre_hook")

    def register_load_state_dict_pre_hook(self, hook):
        """Call ``hook(module, state_dict, prefix, local_metadata, strict, missing_keys,
        unexpected_keys, error_msgs)`` before this module loads its entries in
        `load_state_dict`. Returns a removable handle."""
        return self._register_load_state_dict_pre_hook(hook, with_module=True)

    def register_load_state_dict_post_hook(self, hook):
        """Call ``hook(module, incompatible_keys)`` after this module and its submodules
        loaded; ``incompatible_keys`` holds the lists of missing and unexpected keys so
        far, which the hook may edit in place (it must return None). Returns a removable
        handle.

        >>> import pyad
        >>> lin = pyad.nn.Linear(2, 1)
        >>> handle = lin.register_load_state_dict_post_hook(
        ...     lambda m, keys: keys.missing_keys.remove("bias"))
        >>> lin.load_state_dict({"weight": pyad.zeros(1, 2)})
        <All keys matched successfully>
        """
        return self._add_hook("_load_state_dict_post_hooks", hook, False, False,
                              "register_load_state_dict_post_hook")

    def _hooks_of(self, attr):
        return list(self.__dict__.get(attr) or ())

    def get_extra_state(self):
        """The extra (non-Variable) state to save in the state_dict under
        ``prefix + '_extra_state'``; override together with `set_extra_state` (torch's).
        The base method is never called: only an override is saved."""
        raise RuntimeError("get_extra_state(): reached a code path in "
                           "Module.get_extra_state() that should never be called")

    def set_extra_state(self, state):
        """Restore what `get_extra_state` returned, from ``load_state_dict`` (torch's)."""
        raise RuntimeError("set_extra_state(): reached a code path in "
                           "Module.set_extra_state() that should never be called")

    def _save_to_state_dict(self, destination, prefix, keep_vars):
        # an uninitialized (lazy) parameter or buffer goes in as itself, as torch's
        # (its detach() keeps the class), so that loading it can tell it apart
        for name, p in self._parameters.items():
            if p is not None:
                destination[prefix + name] = p if keep_vars or \
                    getattr(p, "_uninitialized", False) else p.detach()
        for name, b in self._buffers.items():
            if b is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = b if keep_vars or \
                    getattr(b, "_uninitialized", False) else b.detach()
        if getattr(type(self), "get_extra_state", Module.get_extra_state) \
                is not Module.get_extra_state:
            destination[prefix + _EXTRA_STATE_KEY_SUFFIX] = self.get_extra_state()

    def state_dict(self, *args, destination=None, prefix="", keep_vars=False):
        """A dict of every parameter and persistent buffer by dotted name.

        Values are detached Variables sharing memory with the module's (``keep_vars=True``
        gives the Parameters themselves). As torch, the dict carries ``_metadata`` (each
        module's version, by prefix) and the state dict hooks run: each module's pre-hooks
        before its entries, its post-hooks after its submodules'.

        >>> import pyad
        >>> list(pyad.nn.Sequential(pyad.nn.Linear(2, 3)).state_dict())
        ['0.weight', '0.bias']
        """
        if args:
            warnings.warn("Positional args are being deprecated, use kwargs instead. Refer to "
                          "https://pytorch.org/docs/main/generated/torch.nn.Module.html"
                          "#torch.nn.Module.state_dict for details.", FutureWarning,
                          stacklevel=2)
            if destination is None:
                destination = args[0]
            if len(args) > 1 and prefix == "":
                prefix = args[1]
            if len(args) > 2 and keep_vars is False:
                keep_vars = args[2]
        if destination is None:
            destination = collections.OrderedDict()
            destination._metadata = collections.OrderedDict()
        local_metadata = dict(version=self._version)
        if hasattr(destination, "_metadata"):
            destination._metadata[prefix[:-1]] = local_metadata
        for _, hook, _ in self._hooks_of("_state_dict_pre_hooks"):
            hook(self, prefix, keep_vars)
        self._save_to_state_dict(destination, prefix, keep_vars)
        for name, module in self._modules.items():
            if module is not None:
                module.state_dict(destination=destination, prefix=prefix + name + ".",
                                  keep_vars=keep_vars)
        for _, hook, public in self._hooks_of("_state_dict_hooks"):
            result = hook(self, destination, prefix, local_metadata)
            if not public:
                if result is not None:
                    destination = result
            elif result is not None:
                raise RuntimeError("state_dict post-hook must return None")
        return destination

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs):
        # torch's per-module step of load_state_dict: the pre-hooks, then this module's
        # own parameters and persistent buffers, then (strict) the unexpected keys under
        # this prefix
        for _, hook, with_module in self._hooks_of("_load_state_dict_pre_hooks"):
            if with_module:
                hook(self, state_dict, prefix, local_metadata, strict, missing_keys,
                     unexpected_keys, error_msgs)
            else:
                hook(state_dict, prefix, local_metadata, strict, missing_keys,
                     unexpected_keys, error_msgs)
        local_state = [(n, p) for n, p in self._parameters.items() if p is not None]
        local_state += [(n, b) for n, b in self._buffers.items()
                        if b is not None and n not in self._non_persistent_buffers_set]
        assign = local_metadata.get("assign_to_params_buffers", False)
        for name, target in local_state:
            key = prefix + name
            if key not in state_dict:
                # a checkpoint from before torch added num_batches_tracked (version 2 of
                # the norm layers) loads without it, the count kept as it is
                if strict and name != "num_batches_tracked":
                    missing_keys.append(key)
                continue
            value = state_dict[key]
            if not isinstance(value, Variable):
                try:
                    value = Variable(numpy.asarray(value))
                except Exception:
                    error_msgs.append('While copying the parameter named "%s", expected '
                                      'Variable or array-like object from checkpoint but '
                                      'received %s' % (key, type(value).__name__))
                    continue
            if getattr(value, "_uninitialized", False) and \
                    getattr(target, "_uninitialized", False):
                continue        # uninitialized into uninitialized: left as it is (torch's)
            if getattr(value, "_uninitialized", False):
                # torch's UninitializedParameter.shape raises this while the checkpoint's
                # value is compared with the initialized parameter
                raise RuntimeError(
                    "Can't access the shape of an uninitialized parameter or buffer. This "
                    "error usually happens in `load_state_dict` when trying to load an "
                    "uninitialized parameter into an initialized one. Call `forward` to "
                    "initialize the parameters before accessing their attributes.")
            if getattr(target, "_uninitialized", False):
                # a lazy module's parameter takes the checkpoint's shape, as torch's
                target.materialize(tuple(value.shape))
            if target.dim() == 0 and value.dim() == 1 and value.shape[0] == 1:
                value = value[0]
            if tuple(value.shape) != tuple(target.shape):
                error_msgs.append("size mismatch for %s: copying a param with shape %s from "
                                  "checkpoint, the shape in current model is %s."
                                  % (key, _shape(value), _shape(target)))
                continue
            try:
                with no_grad():
                    if assign:
                        if isinstance(target, Parameter) and not isinstance(value, Parameter):
                            value = Parameter(value, requires_grad=target.requires_grad)
                        elif isinstance(target, Parameter):
                            value._mark_requires_grad(target.requires_grad)
                        setattr(self, name, value)
                    else:
                        target.copy_(value)
            except Exception as ex:
                error_msgs.append('While copying the parameter named "%s", whose dimensions '
                                  'in the model are %s and whose dimensions in the '
                                  'checkpoint are %s, an exception occurred : %s.'
                                  % (key, _shape(target), _shape(value), ex.args))
        extra_state_key = prefix + _EXTRA_STATE_KEY_SUFFIX
        if getattr(type(self), "set_extra_state", Module.set_extra_state) \
                is not Module.set_extra_state:
            if extra_state_key in state_dict:
                self.set_extra_state(state_dict[extra_state_key])
            elif strict:
                missing_keys.append(extra_state_key)
        elif strict and extra_state_key in state_dict:
            unexpected_keys.append(extra_state_key)
        if strict:
            local_names = {n for n, _ in local_state}
            for key in state_dict:
                if key.startswith(prefix) and key != extra_state_key:
                    input_name = key[len(prefix):].split(".", 1)
                    if len(input_name) > 1:
                        if input_name[0] not in self._modules:
                            unexpected_keys.append(key)
                    elif input_name[0] not in local_names:
                        unexpected_keys.append(key)

    def load_state_dict(self, state_dict, strict=True, assign=False):
        """Copy parameters and buffers from ``state_dict`` into this module.

        Returns ``(missing_keys, unexpected_keys)``; with ``strict=True`` (the default)
        either list being non-empty raises RuntimeError, as does a shape mismatch (always).
        Values may be Variables or arrays; they are copied in place (cast to each
        parameter's dtype), so optimizers holding the parameters keep working;
        ``assign=True`` makes them the module's parameters and buffers instead. Each
        module's load pre-hooks run before it loads, its post-hooks after its submodules.

        >>> import pyad
        >>> a, b = pyad.nn.Linear(2, 2), pyad.nn.Linear(2, 2)
        >>> b.load_state_dict(a.state_dict())
        <All keys matched successfully>
        >>> bool((a.weight == b.weight).all())
        True
        """
        if not isinstance(state_dict, collections.abc.Mapping):
            raise TypeError("Expected state_dict to be dict-like, got %s."
                            % type(state_dict).__name__)
        missing, unexpected, errors = [], [], []
        metadata = getattr(state_dict, "_metadata", None)
        state_dict = collections.OrderedDict(state_dict)
        if metadata is not None:
            state_dict._metadata = metadata

        def load(module, local_state_dict, prefix=""):
            local_metadata = {} if metadata is None else metadata.get(prefix[:-1], {})
            if assign:
                local_metadata["assign_to_params_buffers"] = assign
            module._load_from_state_dict(local_state_dict, prefix, local_metadata, True,
                                         missing, unexpected, errors)
            for name, child in module._modules.items():
                if child is not None:
                    child_prefix = prefix + name + "."
                    child_state_dict = {k: v for k, v in local_state_dict.items()
                                        if k.startswith(child_prefix)}
                    load(child, child_state_dict, child_prefix)
            incompatible_keys = _IncompatibleKeys(missing, unexpected)
            for _, hook, _ in module._hooks_of("_load_state_dict_post_hooks"):
                if hook(module, incompatible_keys) is not None:
                    raise AssertionError("Hooks registered with "
                                         "``register_load_state_dict_post_hook`` are not "
                                         "expected to return new values, if "
                                         "incompatible_keys need to be modified, it should "
                                         "be done inplace.")

        try:
            load(self, state_dict)
        finally:
            # the recursive closure refers to itself through its cell: break that cycle,
            # so that loading leaves nothing for the cycle collector (as torch's)
            load = None  # noqa: F841
        if strict:
            if unexpected:
                errors.insert(0, "Unexpected key(s) in state_dict: %s. "
                              % ", ".join('"%s"' % k for k in unexpected))
            if missing:
                errors.insert(0, "Missing key(s) in state_dict: %s. "
                              % ", ".join('"%s"' % k for k in missing))
        if errors:
            raise RuntimeError("Error(s) in loading state_dict for %s:\n\t%s"
                               % (type(self).__name__, "\n\t".join(errors)))
        return _IncompatibleKeys(missing, unexpected)

    # -- printing ------------------------------------------------------------------------

    def extra_repr(self):
        """The text inside this module's parentheses in its repr (subclasses override)."""
        return ""

    def _get_name(self):
        return type(self).__name__

    def __repr__(self):
        extra = self.extra_repr()
        lines = extra.split("\n") if extra else []
        for name, module in self._modules.items():
            lines.append("(" + name + "): " + _addindent(repr(module), 2))
        if not lines:
            return self._get_name() + "()"
        if len(lines) == 1 and not self._modules:
            return self._get_name() + "(" + lines[0] + ")"
        return self._get_name() + "(\n  " + "\n  ".join(lines) + "\n)"


# -- containers ------------------------------------------------------------------------


def _index(idx, n, what):
    idx = operator.index(idx)
    if not -n <= idx < n:
        raise IndexError("index %d is out of range for %s of length %d" % (idx, what, n))
    return idx % n


class Sequential(Module):
    """Modules called in order, each on the previous one's output.

    ``Sequential(m0, m1, ...)`` or ``Sequential(OrderedDict([(name, m), ...]))``;
    supports indexing (an int gives a module, a slice a Sequential), ``len``,
    iteration, ``append``/``insert``/``extend``/``pop``, ``+`` (with another
    Sequential) and ``*`` (by a positive int: the same modules repeated), as torch.

    >>> import pyad
    >>> net = pyad.nn.Sequential(pyad.nn.Linear(4, 8), pyad.nn.ReLU(), pyad.nn.Linear(8, 1))
    >>> len(net), type(net[1]).__name__, net(pyad.zeros(5, 4)).shape
    (3, 'ReLU', (5, 1))
    >>> net
    Sequential(
      (0): Linear(in_features=4, out_features=8, bias=True)
      (1): ReLU()
      (2): Linear(in_features=8, out_features=1, bias=True)
    )
    >>> len(net + net), len(net * 2), type(net.pop(1)).__name__, len(net)
    (6, 6, 'ReLU', 2)
    """

    def __init__(self, *args):
        super().__init__()
        if len(args) == 1 and isinstance(args[0], collections.OrderedDict):
            for name, module in args[0].items():
                self.add_module(name, module)
        else:
            for i, module in enumerate(args):
                self.add_module(str(i), module)

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return self.__class__(collections.OrderedDict(list(self._modules.items())[idx]))
        keys = list(self._modules)
        return self._modules[keys[_index(idx, len(keys), "Sequential")]]

    def __setitem__(self, idx, module):
        keys = list(self._modules)
        setattr(self, keys[_index(idx, len(keys), "Sequential")], module)

    def __delitem__(self, idx):
        keys = list(self._modules)
        if isinstance(idx, slice):
            for key in keys[idx]:
                delattr(self, key)
        else:
            delattr(self, keys[_index(idx, len(keys), "Sequential")])
        # torch renumbers every remaining module 0, 1, ... (named ones included)
        values = list(self._modules.values())
        self._modules.clear()
        for i, module in enumerate(values):
            self._modules[str(i)] = module

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def _check_sequential(self, other):
        if not isinstance(other, Sequential):
            raise ValueError("add operator supports only objects of Sequential class, but "
                             "%s is given." % str(type(other)))

    def __add__(self, other):
        self._check_sequential(other)
        combined = Sequential()
        for module in itertools.chain(self, other):
            combined.append(module)
        return combined

    def __iadd__(self, other):
        self._check_sequential(other)
        offset = len(self)
        for i, module in enumerate(other):
            self.add_module(str(i + offset), module)
        return self

    def _check_factor(self, other):
        if not isinstance(other, int):
            raise TypeError("unsupported operand type(s) for *: %s and %s"
                            % (type(self), type(other)))
        if other <= 0:
            raise ValueError("Non-positive multiplication factor %s for %s"
                             % (other, type(self)))

    def __mul__(self, other):
        self._check_factor(other)
        combined = Sequential()
        offset = 0
        for _ in range(other):
            for module in self:
                combined.add_module(str(offset), module)
                offset += 1
        return combined

    def __rmul__(self, other):
        return self.__mul__(other)

    def __imul__(self, other):
        self._check_factor(other)
        n = len(self)
        for copy in range(1, other):
            for i in range(n):
                self.add_module(str(i + copy * n), self._modules[str(i)])
        return self

    def pop(self, key):
        """Remove the module at index ``key`` (an int or a slice) and return it."""
        module = self[key]
        del self[key]
        return module

    def append(self, module):
        """Add ``module`` at the end; return self."""
        self.add_module(str(len(self)), module)
        return self

    def insert(self, index, module):
        """Insert ``module`` before position ``index`` (``-len <= index <= len``);
        return self."""
        if not isinstance(module, Module):
            raise AssertionError("module should be of type: %s" % Module)
        n = len(self._modules)
        if not -n <= index <= n:
            raise IndexError("Index out of range: %s" % (index,))
        if index < 0:
            index += n
        for i in range(n, index, -1):
            self._modules[str(i)] = self._modules[str(i - 1)]
        self._modules[str(index)] = module
        return self

    def extend(self, sequential):
        """Append every module of an iterable; return self."""
        for module in sequential:
            self.append(module)
        return self

    def forward(self, input):
        for module in self._modules.values():
            input = module(input)
        return input


class ModuleList(Module):
    """A list of submodules, registered so their parameters are the parent's.

    Indexing, ``len``, iteration, ``append``/``extend``/``insert``/``pop``, ``+`` with
    any iterable of modules and ``+=``, as torch; the repr folds repeated modules.

    >>> import pyad
    >>> layers = pyad.nn.ModuleList([pyad.nn.Linear(2, 2) for _ in range(3)])
    >>> len(layers), len(list(layers.parameters()))
    (3, 6)
    >>> layers
    ModuleList(
      (0-2): 3 x Linear(in_features=2, out_features=2, bias=True)
    )
    """

    def __init__(self, modules=None):
        super().__init__()
        if modules is not None:
            self += modules

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return self.__class__(list(self._modules.values())[idx])
        return self._modules[str(_index(idx, len(self), "ModuleList"))]

    def __setitem__(self, idx, module):
        setattr(self, str(_index(idx, len(self), "ModuleList")), module)

    def __delitem__(self, idx):
        keys = list(self._modules)
        if isinstance(idx, slice):
            for key in keys[idx]:
                del self._modules[key]
        else:
            del self._modules[keys[_index(idx, len(keys), "ModuleList")]]
        values = list(self._modules.values())
        self._modules.clear()
        for i, module in enumerate(values):
            self._modules[str(i)] = module

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def __iadd__(self, modules):
        return self.extend(modules)

    def __add__(self, other):
        combined = ModuleList()
        for i, module in enumerate(itertools.chain(self, other)):
            combined.add_module(str(i), module)
        return combined

    def __repr__(self):
        # torch's: runs of equal reprs print once, as "(i-j): n x repr"
        reprs = [repr(m) for m in self]
        if not reprs:
            return self._get_name() + "()"
        runs = []                       # [start, end, repr]
        for i, r in enumerate(reprs):
            if runs and runs[-1][2] == r:
                runs[-1][1] = i
            else:
                runs.append([i, i, r])
        lines = []
        for start, end, r in runs:
            if start == end:
                line = "(%d): %s" % (start, r)
            else:
                line = "(%d-%d): %d x %s" % (start, end, end - start + 1, r)
            lines.append(_addindent(line, 2))
        return self._get_name() + "(\n  " + "\n  ".join(lines) + "\n)"

    def pop(self, key):
        """Remove the module at index ``key`` (an int or a slice) and return it."""
        module = self[key]
        del self[key]
        return module

    def append(self, module):
        """Add ``module`` at the end; return self."""
        self.add_module(str(len(self)), module)
        return self

    def extend(self, modules):
        """Add every module of an iterable at the end; return self."""
        if not isinstance(modules, collections.abc.Iterable):
            raise TypeError("ModuleList.extend should be called with an iterable, but got "
                            + type(modules).__name__)
        offset = len(self)
        for i, module in enumerate(modules):
            self.add_module(str(offset + i), module)
        return self

    def insert(self, index, module):
        """Insert ``module`` before position ``index`` (torch's: shifts the modules from
        ``index`` on one place up)."""
        for i in range(len(self._modules), index, -1):
            self._modules[str(i)] = self._modules[str(i - 1)]
        self._modules[str(index)] = module

    def forward(self, *args, **kwargs):
        raise NotImplementedError("ModuleList has no forward; iterate over it instead")


# -- layers ----------------------------------------------------------------------------


def _factory(shape, device, dtype):
    return empty(*shape, device=device, dtype=dtype)


def _pair(x):
    return tuple(x) if isinstance(x, (tuple, list)) else (x, x)


class Identity(Module):
    """Return the input unchanged."""

    def __init__(self, *args, **kwargs):
        super().__init__()

    def forward(self, input):
        return input


def _linear_forward(input, weight, bias):
    if input.dtype != weight.dtype or (bias is not None and bias.dtype != input.dtype):
        F._same_dtype_as_weight("linear", input, weight if input.dtype != weight.dtype
                                else bias)
    out = matmul(input, weight.t())
    if bias is None:
        return out
    # torch's node names (F.linear's): its addmm, or a vector's addmm viewed back
    return _engine._name_grad_fn(out + bias, input, "AddmmBackward" if input.ndim == 2
                                 else "ViewBackward")


class Linear(Module):
    """``y = x @ weight.T + bias``, with torch's initialisation U(-1/sqrt(in), 1/sqrt(in)).

    >>> import pyad
    >>> lin = pyad.nn.Linear(3, 2)
    >>> lin.weight.shape, lin.bias.shape, lin(pyad.zeros(4, 3)).shape
    ((2, 3), (2,), (4, 2))
    """

    def __init__(self, in_features, out_features, bias=True, device=None, dtype=None):
        super().__init__()
        self.in_features = in_features
        self.out_features = out_features
        self.weight = Parameter(_factory((out_features, in_features), device, dtype))
        if bias:
            self.bias = Parameter(_factory((out_features,), device, dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        """Redraw weight and bias from torch's default distributions."""
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in = self.in_features
            bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input):
        if input.ndim > 2 or _profiler._active is not None or _autocast_mode._active:
            # F.linear records one "linear" event (as torch's aten::linear) and takes
            # (..., in) as one (N, in) matrix: one GEMM forward and backward.
            return F.linear(input, self.weight, self.bias)
        return _linear_forward(input, self.weight, self.bias)

    def extra_repr(self):
        return "in_features=%d, out_features=%d, bias=%s" % (
            self.in_features, self.out_features, self.bias is not None)


class NonDynamicallyQuantizableLinear(Linear):
    """`Linear` under the class name torch gives ``MultiheadAttention.out_proj``
    (``torch.nn.modules.linear.NonDynamicallyQuantizableLinear``), so that
    ``print(model)`` and ``named_modules`` type names match torch; it computes exactly
    what `Linear` does.

    >>> import pyad
    >>> pyad.nn.MultiheadAttention(4, 2).out_proj
    NonDynamicallyQuantizableLinear(in_features=4, out_features=4, bias=True)
    """


class _ConvNd(Module):
    """What every convolution layer shares, as torch's ``_ConvNd``: the argument checks,
    the attributes (``transposed`` and ``output_padding`` included), the weight
    ``(out_channels, in_channels / groups, *kernel_size)`` (``(in_channels, out_channels
    / groups, *kernel_size)`` when transposed), torch's initialisation and ``extra_repr``.
    Subclasses turn their arguments into tuples of their dimension count and forward."""

    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, dilation,
                 transposed, output_padding, groups, bias, padding_mode, device=None,
                 dtype=None):
        super().__init__()
        name = type(self).__name__
        if groups <= 0:
            raise ValueError("%s(): groups must be a positive integer" % name)
        if in_channels % groups:
            raise ValueError("%s(): in_channels must be divisible by groups" % name)
        if out_channels % groups:
            raise ValueError("%s(): out_channels must be divisible by groups" % name)
        if isinstance(padding, str):
            if padding not in ("same", "valid"):
                raise ValueError("Invalid padding string '%s', should be one of {'valid', "
                                 "'same'}" % (padding,))
            if padding == "same" and any(s != 1 for s in stride):
                raise ValueError("padding='same' is not supported for strided convolutions")
        if padding_mode not in ("zeros", "reflect", "replicate", "circular"):
            raise ValueError("padding_mode must be one of ['zeros', 'reflect', 'replicate', "
                             "'circular'], but got padding_mode='%s'" % (padding_mode,))
        if padding_mode != "zeros" and transposed:        # torch's own text
            raise ValueError('Only "zeros" padding mode is supported for %s' % name)
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.kernel_size = kernel_size
        self.stride = stride
        self.padding = padding
        self.dilation = dilation
        self.transposed = transposed
        self.output_padding = output_padding
        self.groups = groups
        self.padding_mode = padding_mode
        # F.pad's amounts for the other padding modes (last dim first, each twice), as
        # torch's _reversed_padding_repeated_twice; 'same' splits k - 1 as torch does
        if padding == "same":
            amounts = []
            for d, k in zip(dilation, kernel_size):
                total = d * (k - 1)
                amounts.append((total // 2, total - total // 2))
        elif isinstance(padding, str):
            amounts = [(0, 0)] * len(kernel_size)
        else:
            amounts = [(p, p) for p in padding]
        self._reversed_padding_repeated_twice = [a for pair in reversed(amounts)
                                                 for a in pair]
        shape = ((in_channels, out_channels // groups) if transposed
                 else (out_channels, in_channels // groups))
        self.weight = Parameter(_factory(shape + kernel_size, device, dtype))
        if bias:
            self.bias = Parameter(_factory((out_channels,), device, dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        """Redraw weight and bias from torch's default distributions."""
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            if fan_in != 0:
                bound = 1 / math.sqrt(fan_in)
                init.uniform_(self.bias, -bound, bound)

    def _output_padding(self, input, output_size):
        # A transposed convolution's output_padding for a requested output_size (torch's
        # _ConvTransposeNd._output_padding): each size must be reachable by the stride.
        if output_size is None:
            return self.output_padding
        n = len(self.kernel_size)
        output_size = list(output_size)
        if len(output_size) == input.dim():
            output_size = output_size[input.dim() - n:]
        if len(output_size) != n:
            raise ValueError("%s(): output_size must have %d or %d elements (got %d)"
                             % (type(self).__name__, n, input.dim(), len(output_size)))
        spatial = list(input.shape[input.dim() - n:])
        pads = []
        for d in range(n):
            min_size = ((spatial[d] - 1) * self.stride[d] - 2 * self.padding[d]
                        + self.dilation[d] * (self.kernel_size[d] - 1) + 1)
            max_size = min_size + self.stride[d] - 1
            if not min_size <= output_size[d] <= max_size:
                raise ValueError("%s(): requested an output size of %s, but valid sizes range "
                                 "from %s to %s (for an input of %s)"
                                 % (type(self).__name__, output_size, min_size, max_size,
                                    spatial))
            pads.append(output_size[d] - min_size)
        return tuple(pads)

    def _conv_input(self, input):
        # (input, padding) for the functional conv: the input padded by F.pad in the
        # reflect/replicate/circular modes (then no zero padding), as torch's forward
        if self.padding_mode == "zeros":
            return input, self.padding
        return (F.pad(input, self._reversed_padding_repeated_twice, mode=self.padding_mode),
                (0,) * len(self.kernel_size))

    def extra_repr(self):
        s = "%d, %d, kernel_size=%s, stride=%s" % (self.in_channels, self.out_channels,
                                                   self.kernel_size, self.stride)
        if self.padding != (0,) * len(self.padding):
            s += ", padding=%s" % (self.padding,)
        if self.dilation != (1,) * len(self.dilation):
            s += ", dilation=%s" % (self.dilation,)
        if self.output_padding != (0,) * len(self.output_padding):
            s += ", output_padding=%s" % (self.output_padding,)
        if self.groups != 1:
            s += ", groups=%d" % self.groups
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += ", padding_mode=%s" % self.padding_mode
        return s


class _ConvTransposeNd(_ConvNd):
    """torch's ``_ConvTransposeNd``: the base of ConvTranspose1d/2d/3d (``transposed``
    convolutions; ``_output_padding`` turns a requested ``output_size`` into the
    ``output_padding``)."""


class Conv2d(_ConvNd):
    """2-D convolution over ``(N, C, H, W)`` input (``F.conv2d``), torch's initialisation.

    >>> import pyad
    >>> conv = pyad.nn.Conv2d(1, 4, 3, padding=1)
    >>> conv.weight.shape
    (4, 1, 3, 3)
    """

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 dilation=1, groups=1, bias=True, padding_mode="zeros", device=None,
                 dtype=None):
        super().__init__(in_channels, out_channels, _pair(kernel_size), _pair(stride),
                         padding if isinstance(padding, str) else _pair(padding),
                         _pair(dilation), False, _pair(0), groups, bias, padding_mode,
                         device, dtype)

    def _conv_forward(self, input, weight, bias):
        # torch's Conv2d._conv_forward: subclasses pass their own weight (standardised,
        # masked, ...) and bias
        input, padding = self._conv_input(input)
        return F.conv2d(input, weight, bias, self.stride, padding, self.dilation,
                        self.groups)

    def forward(self, input):
        return self._conv_forward(input, self.weight, self.bias)


class _MaxPoolNd(Module):
    """torch's ``_MaxPoolNd``: the max-pooling arguments (``stride`` defaults to
    ``kernel_size``) and their repr, shared by MaxPool1d/2d/3d."""

    def __init__(self, kernel_size, stride=None, padding=0, dilation=1,
                 return_indices=False, ceil_mode=False):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding = padding
        self.dilation = dilation
        self.return_indices = return_indices
        self.ceil_mode = ceil_mode

    def extra_repr(self):
        return ("kernel_size=%s, stride=%s, padding=%s, dilation=%s, ceil_mode=%s"
                % (self.kernel_size, self.stride, self.padding, self.dilation,
                   self.ceil_mode))


class MaxPool2d(_MaxPoolNd):
    """2-D max pooling (``F.max_pool2d``); ``stride`` defaults to ``kernel_size``."""

    def forward(self, input):
        return F.max_pool2d(input, self.kernel_size, self.stride, self.padding,
                            self.dilation, ceil_mode=self.ceil_mode,
                            return_indices=self.return_indices)


class ReLU(Module):
    """``max(x, 0)`` elementwise (``inplace=True`` overwrites the input)."""

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return input.relu_() if self.inplace else F.relu(input)

    def extra_repr(self):
        return "inplace=True" if self.inplace else ""


class Tanh(Module):
    """``tanh(x)`` elementwise."""

    def forward(self, input):
        return F.tanh(input)


class Sigmoid(Module):
    """``1 / (1 + exp(-x))`` elementwise."""

    def forward(self, input):
        return F.sigmoid(input)


class GELU(Module):
    """The Gaussian error linear unit (``approximate='none'`` or ``'tanh'``)."""

    def __init__(self, approximate="none"):
        super().__init__()
        self.approximate = approximate

    def forward(self, input):
        return F.gelu(input, approximate=self.approximate)

    def extra_repr(self):
        return "approximate=%r" % (self.approximate,)


class Softmax(Module):
    """``softmax`` over ``dim`` (torch's implicit choice, with a warning, when None)."""

    def __init__(self, dim=None):
        super().__init__()
        self.dim = dim

    def forward(self, input):
        return F.softmax(input, self.dim, _stacklevel=5)

    def extra_repr(self):
        return "dim=%r" % (self.dim,)


class LogSoftmax(Module):
    """``log_softmax`` over ``dim`` (torch's implicit choice, with a warning, when None)."""

    def __init__(self, dim=None):
        super().__init__()
        self.dim = dim

    def forward(self, input):
        return F.log_softmax(input, self.dim, _stacklevel=5)

    def extra_repr(self):
        return "dim=%r" % (self.dim,)


def _inplace_repr(inplace, prefix=""):
    return (prefix + ", inplace=True" if prefix else "inplace=True") if inplace else prefix


class LeakyReLU(Module):
    """``x`` where positive, ``negative_slope * x`` elsewhere (``F.leaky_relu``)."""

    def __init__(self, negative_slope=0.01, inplace=False):
        super().__init__()
        self.negative_slope = negative_slope
        self.inplace = inplace

    def forward(self, input):
        return F.leaky_relu(input, self.negative_slope, self.inplace)

    def extra_repr(self):
        return _inplace_repr(self.inplace, "negative_slope=%s" % (self.negative_slope,))


class ELU(Module):
    """``x`` where positive, ``alpha * (exp(x) - 1)`` elsewhere (``F.elu``)."""

    def __init__(self, alpha=1.0, inplace=False):
        super().__init__()
        self.alpha = alpha
        self.inplace = inplace

    def forward(self, input):
        return F.elu(input, self.alpha, self.inplace)

    def extra_repr(self):
        return _inplace_repr(self.inplace, "alpha=%s" % (self.alpha,))


class CELU(Module):
    """``max(0, x) + min(0, alpha * (exp(x / alpha) - 1))`` (``F.celu``)."""

    def __init__(self, alpha=1.0, inplace=False):
        super().__init__()
        self.alpha = alpha
        self.inplace = inplace

    def forward(self, input):
        return F.celu(input, self.alpha, self.inplace)

    def extra_repr(self):
        return _inplace_repr(self.inplace, "alpha=%s" % (self.alpha,))


class SELU(Module):
    """The self-normalising ``scale * elu(x, alpha)`` (``F.selu``)."""

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return F.selu(input, self.inplace)

    def extra_repr(self):
        return _inplace_repr(self.inplace)


class SiLU(Module):
    """``x * sigmoid(x)`` (``F.silu``)."""

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return F.silu(input, inplace=self.inplace)

    def extra_repr(self):
        return _inplace_repr(self.inplace)


class Mish(Module):
    """``x * tanh(softplus(x))`` (``F.mish``)."""

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return F.mish(input, inplace=self.inplace)

    def extra_repr(self):
        return _inplace_repr(self.inplace)


class Softplus(Module):
    """``log(1 + exp(beta * x)) / beta``, linear above ``threshold`` (``F.softplus``)."""

    def __init__(self, beta=1.0, threshold=20.0):
        super().__init__()
        self.beta = beta
        self.threshold = threshold

    def forward(self, input):
        return F.softplus(input, self.beta, self.threshold)

    def extra_repr(self):
        return "beta=%s, threshold=%s" % (self.beta, self.threshold)


class Hardtanh(Module):
    """``x`` clamped to ``[min_val, max_val]`` (``F.hardtanh``). The deprecated
    ``min_value``/``max_value`` keywords are accepted, with torch's warning."""

    def __init__(self, min_val=-1.0, max_val=1.0, inplace=False, min_value=None,
                 max_value=None):
        super().__init__()
        if min_value is not None:
            warnings.warn("keyword argument `min_value` is deprecated and rename to "
                          "`min_val`", FutureWarning, stacklevel=2)
            min_val = min_value
        if max_value is not None:
            warnings.warn("keyword argument `max_value` is deprecated and rename to "
                          "`max_val`", FutureWarning, stacklevel=2)
            max_val = max_value
        if not max_val > min_val:
            raise AssertionError("hardtanh(): max_val (%s) must be greater than min_val (%s)"
                             % (max_val, min_val))
        self.min_val = min_val
        self.max_val = max_val
        self.inplace = inplace

    def forward(self, input):
        return F.hardtanh(input, self.min_val, self.max_val, self.inplace)

    def extra_repr(self):
        return _inplace_repr(self.inplace, "min_val=%s, max_val=%s"
                             % (self.min_val, self.max_val))


class ReLU6(Hardtanh):
    """``min(max(x, 0), 6)`` (``F.relu6``; a `Hardtanh` from 0 to 6, as in torch)."""

    def __init__(self, inplace=False):
        super().__init__(0.0, 6.0, inplace)

    def forward(self, input):
        return F.relu6(input, self.inplace)

    def extra_repr(self):
        return _inplace_repr(self.inplace)


class Hardsigmoid(Module):
    """``relu6(x + 3) / 6`` (``F.hardsigmoid``)."""

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return F.hardsigmoid(input, self.inplace)


class Hardswish(Module):
    """``x * relu6(x + 3) / 6`` (``F.hardswish``)."""

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return F.hardswish(input, self.inplace)


class LogSigmoid(Module):
    """``log(sigmoid(x))``, computed stably (``F.logsigmoid``)."""

    def forward(self, input):
        return F.logsigmoid(input)


class Softsign(Module):
    """``x / (1 + |x|)`` (``F.softsign``)."""

    def forward(self, input):
        return F.softsign(input)


class Tanhshrink(Module):
    """``x - tanh(x)`` (``F.tanhshrink``)."""

    def forward(self, input):
        return F.tanhshrink(input)


class Softshrink(Module):
    """``x - lambd`` above ``lambd``, ``x + lambd`` below ``-lambd``, 0 between
    (``F.softshrink``)."""

    def __init__(self, lambd=0.5):
        super().__init__()
        self.lambd = lambd

    def forward(self, input):
        return F.softshrink(input, self.lambd)

    def extra_repr(self):
        return str(self.lambd)


class Hardshrink(Module):
    """``x`` where ``|x| > lambd``, 0 elsewhere (``F.hardshrink``)."""

    def __init__(self, lambd=0.5):
        super().__init__()
        self.lambd = lambd

    def forward(self, input):
        return F.hardshrink(input, self.lambd)

    def extra_repr(self):
        return str(self.lambd)


class Threshold(Module):
    """``x`` where ``x > threshold``, ``value`` elsewhere (``F.threshold``)."""

    def __init__(self, threshold, value, inplace=False):
        super().__init__()
        self.threshold = threshold
        self.value = value
        self.inplace = inplace

    def forward(self, input):
        return F.threshold(input, self.threshold, self.value, self.inplace)

    def extra_repr(self):
        return _inplace_repr(self.inplace, "threshold=%s, value=%s"
                             % (self.threshold, self.value))


class GLU(Module):
    """The gated linear unit over ``dim`` (``F.glu``)."""

    def __init__(self, dim=-1):
        super().__init__()
        self.dim = dim

    def forward(self, input):
        return F.glu(input, self.dim)

    def extra_repr(self):
        return "dim=%s" % (self.dim,)


class PReLU(Module):
    """``x`` where positive, ``weight * x`` elsewhere, the slopes learned (``F.prelu``):
    ``num_parameters`` slopes (1, or the number of input channels), all ``init`` at first.

    >>> import pyad
    >>> m = pyad.nn.PReLU(2)
    >>> m(pyad.tensor([[-4.0, -4.0]]))
    tensor([[-1., -1.]], grad_fn=<PreluKernelBackward>)
    """

    def __init__(self, num_parameters=1, init=0.25, device=None, dtype=None):
        super().__init__()
        self.num_parameters = num_parameters
        self.init = init
        self.weight = Parameter(_factory((num_parameters,), device, dtype))
        self.reset_parameters()

    def reset_parameters(self):
        """Set every slope back to ``init``."""
        _init.constant_(self.weight, self.init)

    def forward(self, input):
        return F.prelu(input, self.weight)

    def extra_repr(self):
        return "num_parameters=%s" % (self.num_parameters,)


class _DropoutNd(Module):
    """torch's ``_DropoutNd``: the ``p`` check, ``p`` / ``inplace`` and their repr, shared
    by every dropout layer."""

    def __init__(self, p=0.5, inplace=False):
        super().__init__()
        if not 0 <= p <= 1:
            raise ValueError("dropout probability has to be between 0 and 1, but got %r"
                             % (p,))
        self.p = p
        self.inplace = inplace

    def extra_repr(self):
        return "p=%s, inplace=%s" % (self.p, self.inplace)


class Dropout(_DropoutNd):
    """Zero each element with probability ``p`` in training mode (scaling the rest by
    ``1 / (1 - p)``); the identity in eval mode."""

    def forward(self, input):
        return F.dropout(input, self.p, self.training, self.inplace)


class LayerNorm(Module):
    """Normalise over the last ``len(normalized_shape)`` dims, then scale and shift."""

    def __init__(self, normalized_shape, eps=1e-5, elementwise_affine=True, bias=True,
                 device=None, dtype=None):
        super().__init__()
        if isinstance(normalized_shape, int):
            normalized_shape = (normalized_shape,)
        self.normalized_shape = tuple(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        if elementwise_affine:
            self.weight = Parameter(_factory(self.normalized_shape, device, dtype))
            if bias:
                self.bias = Parameter(_factory(self.normalized_shape, device, dtype))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        """Weight to ones, bias to zeros."""
        if self.weight is not None:
            init.ones_(self.weight)
        if self.bias is not None:
            init.zeros_(self.bias)

    def forward(self, input):
        return F.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return "%s, eps=%s, elementwise_affine=%s, bias=%s" % (
            self.normalized_shape, self.eps, self.elementwise_affine, self.bias is not None)


class _NormBase(Module):
    """torch's ``_NormBase``: what batch and instance normalisation share, the affine
    ``weight``/``bias`` and the ``running_mean``/``running_var``/``num_batches_tracked``
    buffers; subclasses give ``_check_input_dim`` and ``forward``."""

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True,
                 track_running_stats=True, device=None, dtype=None, *, bias=True):
        super().__init__()
        self.num_features = num_features
        self.eps = eps
        self.momentum = momentum
        self.affine = affine
        self.track_running_stats = track_running_stats
        if affine:
            self.weight = Parameter(_factory((num_features,), device, dtype))
            if bias:
                self.bias = Parameter(_factory((num_features,), device, dtype))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        if track_running_stats:
            self.register_buffer("running_mean", zeros(num_features, device=device,
                                                       dtype=dtype))
            self.register_buffer("running_var", ones(num_features, device=device,
                                                     dtype=dtype))
            self.register_buffer("num_batches_tracked", tensor(0, dtype=numpy.int64,
                                                               device=device))
        else:
            self.register_buffer("running_mean", None)
            self.register_buffer("running_var", None)
            self.register_buffer("num_batches_tracked", None)
        self.reset_parameters()

    def reset_running_stats(self):
        """Running mean to zeros, running variance to ones, the batch count to 0."""
        if self.track_running_stats:
            with no_grad():
                self.running_mean.zero_()
                self.running_var.fill_(1.0)
                self.num_batches_tracked.zero_()

    def reset_parameters(self):
        """Reset the running statistics; weight to ones, bias to zeros."""
        self.reset_running_stats()
        if self.weight is not None:
            init.ones_(self.weight)
        if self.bias is not None:
            init.zeros_(self.bias)

    def _check_input_dim(self, input):
        raise NotImplementedError

    def extra_repr(self):
        return ("%d, eps=%s, momentum=%s, affine=%s, bias=%s, track_running_stats=%s"
                % (self.num_features, self.eps, self.momentum, self.affine,
                   self.bias is not None, self.track_running_stats))


class _BatchNorm(_NormBase):
    """torch's ``_BatchNorm``: ``forward`` checks the input with ``_check_input_dim`` (which
    BatchNorm1d/2d/3d and custom subclasses override), then normalises with the batch
    statistics in training mode, updating the buffers ``running_mean``, ``running_var``
    (with ``momentum``, or a cumulative average when ``momentum=None``) and
    ``num_batches_tracked``; in eval mode it uses the running ones."""

    def forward(self, input):
        self._check_input_dim(input)
        return self._norm(input)

    def _norm(self, input):
        factor = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats and self.num_batches_tracked is not None:
            with no_grad():
                self.num_batches_tracked.add_(1)
            if self.momentum is None:
                factor = 1.0 / float(self.num_batches_tracked.item())
        bn_training = self.training or (self.running_mean is None and self.running_var is None)
        use_stats = not self.training or self.track_running_stats
        return F.batch_norm(input, self.running_mean if use_stats else None,
                            self.running_var if use_stats else None, self.weight, self.bias,
                            bn_training, factor, self.eps)


class BatchNorm2d(_BatchNorm):
    """Batch normalisation over ``(N, C, H, W)`` input, per channel.

    In training mode it normalises with the batch statistics and updates the buffers
    ``running_mean``, ``running_var`` (with ``momentum``, or a cumulative average when
    ``momentum=None``) and ``num_batches_tracked``; in eval mode it uses the running ones.
    """

    def _check_input_dim(self, input):
        if input.dim() != 4:
            raise ValueError("BatchNorm2d(): expected 4D input (got %dD input)" % input.dim())


class Embedding(Module):
    """A lookup table of ``num_embeddings`` vectors of size ``embedding_dim``, N(0, 1).

    The row ``padding_idx`` (if given) starts at zero and receives no gradient.
    """

    def __init__(self, num_embeddings, embedding_dim, padding_idx=None, max_norm=None,
                 norm_type=2.0, scale_grad_by_freq=False, sparse=False, _weight=None,
                 _freeze=False, device=None, dtype=None):
        super().__init__()
        if padding_idx is not None:
            if not -num_embeddings <= padding_idx < num_embeddings:
                raise AssertionError("Padding_idx must be within num_embeddings")
            padding_idx %= num_embeddings
        self.num_embeddings = num_embeddings
        self.embedding_dim = embedding_dim
        self.padding_idx = padding_idx
        self.max_norm = max_norm
        self.norm_type = norm_type
        self.scale_grad_by_freq = scale_grad_by_freq
        self.sparse = sparse
        if _weight is None:
            self.weight = Parameter(_factory((num_embeddings, embedding_dim), device, dtype),
                                    requires_grad=not _freeze)
            self.reset_parameters()
        else:
            if tuple(_weight.shape) != (num_embeddings, embedding_dim):
                raise AssertionError("Shape of weight does not match num_embeddings and "
                                     "embedding_dim")
            self.weight = Parameter(_weight, requires_grad=not _freeze)

    @classmethod
    def from_pretrained(cls, embeddings, freeze=True, padding_idx=None, max_norm=None,
                        norm_type=2.0, scale_grad_by_freq=False, sparse=False):
        """An `Embedding` holding ``embeddings`` (2-D) as its weight, frozen unless
        ``freeze=False`` (torch's)."""
        if embeddings.dim() != 2:
            raise AssertionError("Embeddings parameter is expected to be 2-dimensional")
        rows, cols = embeddings.shape
        return cls(rows, cols, padding_idx=padding_idx, max_norm=max_norm,
                   norm_type=norm_type, scale_grad_by_freq=scale_grad_by_freq, sparse=sparse,
                   _weight=embeddings, _freeze=freeze)

    def reset_parameters(self):
        """Weight from N(0, 1), the padding row zeroed."""
        init.normal_(self.weight)
        if self.padding_idx is not None:
            with no_grad():
                self.weight[self.padding_idx].fill_(0)

    def forward(self, input):
        return F.embedding(input, self.weight, self.padding_idx, self.max_norm,
                           self.norm_type, self.scale_grad_by_freq, self.sparse)

    def extra_repr(self):
        s = "%d, %d" % (self.num_embeddings, self.embedding_dim)
        if self.padding_idx is not None:
            s += ", padding_idx=%d" % self.padding_idx
        if self.max_norm is not None:
            s += ", max_norm=%s" % self.max_norm
        if self.norm_type != 2:
            s += ", norm_type=%s" % self.norm_type
        if self.scale_grad_by_freq is not False:
            s += ", scale_grad_by_freq=%s" % self.scale_grad_by_freq
        if self.sparse is not False:
            s += ", sparse=True"
        return s


class Flatten(Module):
    """Flatten dims ``start_dim`` to ``end_dim`` (by default all but the batch dim)."""

    def __init__(self, start_dim=1, end_dim=-1):
        super().__init__()
        self.start_dim = start_dim
        self.end_dim = end_dim

    def forward(self, input):
        return input.flatten(self.start_dim, self.end_dim)

    def extra_repr(self):
        return "start_dim=%d, end_dim=%d" % (self.start_dim, self.end_dim)


class Unflatten(Module):
    """Split dimension ``dim`` into ``unflattened_size`` (``Variable.unflatten``)."""

    def __init__(self, dim, unflattened_size):
        super().__init__()
        if not isinstance(dim, int) or isinstance(dim, bool):
            raise TypeError("unflatten(): dim must be an int (named dimensions are not "
                            "supported), got %s" % type(dim).__name__)
        if not isinstance(unflattened_size, (tuple, list)):
            raise TypeError("unflatten(): unflattened_size must be a tuple of ints, but "
                            "found type %s" % type(unflattened_size).__name__)
        for i, size in enumerate(unflattened_size):
            if not isinstance(size, int) or isinstance(size, bool):
                raise TypeError("unflatten(): unflattened_size must be tuple of ints, but "
                                "found element of type %s at pos %d"
                                % (type(size).__name__, i))
        self.dim = dim
        self.unflattened_size = unflattened_size

    def forward(self, input):
        return input.unflatten(self.dim, self.unflattened_size)

    def extra_repr(self):
        return "dim=%s, unflattened_size=%s" % (self.dim, self.unflattened_size)


class CrossEntropyLoss(Module):
    """The cross entropy between logits and class indices or probabilities
    (``F.cross_entropy``)."""

    def __init__(self, weight=None, size_average=None, ignore_index=-100, reduce=None,
                 reduction="mean", label_smoothing=0.0):
        super().__init__()
        if size_average is not None or reduce is not None:
            reduction = _legacy_reduction(size_average, reduce)
        self.register_buffer("weight", weight)
        self.ignore_index = ignore_index
        self.reduction = reduction
        self.label_smoothing = label_smoothing

    def forward(self, input, target):
        return F.cross_entropy(input, target, weight=self.weight,
                               ignore_index=self.ignore_index, reduction=self.reduction,
                               label_smoothing=self.label_smoothing)


class MSELoss(Module):
    """The mean (or sum, or none) of squared differences (``F.mse_loss``)."""

    def __init__(self, size_average=None, reduce=None, reduction="mean"):
        super().__init__()
        if size_average is not None or reduce is not None:
            reduction = _legacy_reduction(size_average, reduce)
        self.reduction = reduction

    def forward(self, input, target):
        return F.mse_loss(input, target, reduction=self.reduction)


class _Loss(Module):
    # torch's _Loss: the legacy size_average/reduce arguments set the reduction
    def __init__(self, size_average=None, reduce=None, reduction="mean"):
        super().__init__()
        if size_average is not None or reduce is not None:
            reduction = _legacy_reduction(size_average, reduce)
        self.reduction = reduction


class _WeightedLoss(_Loss):
    # torch's _WeightedLoss: a _Loss with a per-class ``weight`` buffer (None allowed)
    def __init__(self, weight=None, size_average=None, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)


class L1Loss(_Loss):
    """The mean (or sum, or none) of absolute differences (``F.l1_loss``)."""

    def forward(self, input, target):
        return F.l1_loss(input, target, reduction=self.reduction)


class SmoothL1Loss(_Loss):
    """Quadratic below ``beta``, linear above (``F.smooth_l1_loss``)."""

    def __init__(self, size_average=None, reduce=None, reduction="mean", beta=1.0):
        super().__init__(size_average, reduce, reduction)
        self.beta = beta

    def forward(self, input, target):
        return F.smooth_l1_loss(input, target, reduction=self.reduction, beta=self.beta)


class HuberLoss(_Loss):
    """Quadratic below ``delta``, ``delta``-scaled linear above (``F.huber_loss``)."""

    def __init__(self, reduction="mean", delta=1.0):
        if not isinstance(delta, (float, int)):
            raise TypeError("HuberLoss(): delta must be a float or int, got: %s" % type(delta))
        super().__init__(reduction=reduction)
        self.delta = delta

    def forward(self, input, target):
        return F.huber_loss(input, target, reduction=self.reduction, delta=self.delta)


class BCELoss(_Loss):
    """Binary cross entropy of probabilities (``F.binary_cross_entropy``); ``weight``
    is a buffer, as in torch."""

    def __init__(self, weight=None, size_average=None, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)

    def forward(self, input, target):
        return F.binary_cross_entropy(input, target, weight=self.weight,
                                      reduction=self.reduction)


class BCEWithLogitsLoss(_Loss):
    """Binary cross entropy of logits (``F.binary_cross_entropy_with_logits``);
    ``weight`` and ``pos_weight`` are buffers, as in torch."""

    def __init__(self, weight=None, size_average=None, reduce=None, reduction="mean",
                 pos_weight=None):
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)
        self.register_buffer("pos_weight", pos_weight)

    def forward(self, input, target):
        return F.binary_cross_entropy_with_logits(input, target, self.weight,
                                                  pos_weight=self.pos_weight,
                                                  reduction=self.reduction)


class NLLLoss(_Loss):
    """The negative log-likelihood of class indices (``F.nll_loss``)."""

    def __init__(self, weight=None, size_average=None, ignore_index=-100, reduce=None,
                 reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)
        self.ignore_index = ignore_index

    def forward(self, input, target):
        return F.nll_loss(input, target, weight=self.weight, ignore_index=self.ignore_index,
                          reduction=self.reduction)


class NLLLoss2d(NLLLoss):
    """`NLLLoss` under its deprecated torch name (``torch.nn.NLLLoss2d``): warns, as
    torch does, then behaves exactly as `NLLLoss`.

    >>> import warnings, pyad
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     loss = pyad.nn.NLLLoss2d()
    >>> loss(pyad.tensor([[[[-1.0]], [[-2.0]]]]), pyad.tensor([[[1]]]))
    tensor(2.)
    """

    def __init__(self, weight=None, size_average=None, ignore_index=-100, reduce=None,
                 reduction="mean"):
        warnings.warn("`NLLLoss2d` has been deprecated. Please use `NLLLoss` instead as a "
                      "drop-in replacement and see "
                      "https://pytorch.org/docs/main/nn.html#torch.nn.NLLLoss for more "
                      "details.", FutureWarning, stacklevel=2)
        super().__init__(weight, size_average, ignore_index, reduce, reduction)


class KLDivLoss(_Loss):
    """The Kullback-Leibler divergence from log-probabilities (``F.kl_div``)."""

    def __init__(self, size_average=None, reduce=None, reduction="mean", log_target=False):
        super().__init__(size_average, reduce, reduction)
        self.log_target = log_target

    def forward(self, input, target):
        return F.kl_div(input, target, reduction=self.reduction, log_target=self.log_target)


class MarginRankingLoss(_Loss):
    """``max(0, -target * (x1 - x2) + margin)`` (``F.margin_ranking_loss``)."""

    def __init__(self, margin=0.0, size_average=None, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        self.margin = margin

    def forward(self, input1, input2, target):
        return F.margin_ranking_loss(input1, input2, target, margin=self.margin,
                                     reduction=self.reduction)


class HingeEmbeddingLoss(_Loss):
    """``x`` for target 1, ``max(0, margin - x)`` for -1 (``F.hinge_embedding_loss``)."""

    def __init__(self, margin=1.0, size_average=None, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        self.margin = margin

    def forward(self, input, target):
        return F.hinge_embedding_loss(input, target, margin=self.margin,
                                      reduction=self.reduction)


class SoftMarginLoss(_Loss):
    """``log(1 + exp(-target * x))`` (``F.soft_margin_loss``)."""

    def forward(self, input, target):
        return F.soft_margin_loss(input, target, reduction=self.reduction)


class TripletMarginLoss(_Loss):
    """``max(d(a, p) - d(a, n) + margin, 0)`` (``F.triplet_margin_loss``)."""

    def __init__(self, margin=1.0, p=2.0, eps=1e-6, swap=False, size_average=None,
                 reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        if margin <= 0:
            raise ValueError("triplet_margin_loss(): margin must be greater than 0, got %r"
                             % (margin,))
        self.margin = margin
        self.p = p
        self.eps = eps
        self.swap = swap

    def forward(self, anchor, positive, negative):
        return F.triplet_margin_loss(anchor, positive, negative, margin=self.margin,
                                     p=self.p, eps=self.eps, swap=self.swap,
                                     reduction=self.reduction)


class PoissonNLLLoss(_Loss):
    """The Poisson negative log-likelihood (``F.poisson_nll_loss``)."""

    def __init__(self, log_input=True, full=False, size_average=None, eps=1e-8, reduce=None,
                 reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        self.log_input = log_input
        self.full = full
        self.eps = eps

    def forward(self, log_input, target):
        return F.poisson_nll_loss(log_input, target, log_input=self.log_input,
                                  full=self.full, eps=self.eps, reduction=self.reduction)


class GaussianNLLLoss(_Loss):
    """The Gaussian negative log-likelihood (``F.gaussian_nll_loss``)."""

    def __init__(self, *, full=False, eps=1e-6, reduction="mean"):
        super().__init__(reduction=reduction)
        self.full = full
        self.eps = eps

    def forward(self, input, target, var):
        return F.gaussian_nll_loss(input, target, var, full=self.full, eps=self.eps,
                                   reduction=self.reduction)


class CosineEmbeddingLoss(_Loss):
    """``1 - cos`` for target 1, ``max(0, cos - margin)`` for -1
    (``F.cosine_embedding_loss``)."""

    def __init__(self, margin=0.0, size_average=None, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        self.margin = margin

    def forward(self, input1, input2, target):
        return F.cosine_embedding_loss(input1, input2, target, margin=self.margin,
                                       reduction=self.reduction)


class MultiMarginLoss(_Loss):
    """The multi-class hinge loss (``F.multi_margin_loss``); ``weight`` is a buffer."""

    def __init__(self, p=1, margin=1.0, weight=None, size_average=None, reduce=None,
                 reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        if p not in (1, 2):
            raise ValueError("multi_margin_loss(): only p == 1 and p == 2 supported, got %r"
                             % (p,))
        if weight is not None and weight.ndim != 1:
            raise ValueError("multi_margin_loss(): expected weight to be None or 1D tensor, "
                             "got %dD instead" % weight.ndim)
        self.register_buffer("weight", weight)
        self.p = p
        self.margin = margin

    def forward(self, input, target):
        return F.multi_margin_loss(input, target, p=self.p, margin=self.margin,
                                   weight=self.weight, reduction=self.reduction)


def _legacy_reduction(size_average, reduce):
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    if not reduce:
        return "none"
    return "mean" if size_average else "sum"



def __getattr__(name):
    # torch.nn.modules holds every layer class (torch.nn.modules.Conv1d, ...): pyad defines
    # most of them in other files of pyad.nn, so look them up there (the layer submodules,
    # pyad.nn.modules.conv etc., are imported by pyad.nn itself)
    import pyad.nn
    if name in pyad.nn.__all__ and name[:1].isupper():
        return getattr(pyad.nn, name)
    raise AttributeError("module 'pyad.nn.modules' has no attribute '%s'" % (name,))
