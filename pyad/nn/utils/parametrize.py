"""``pyad.nn.utils.parametrize``: a parameter or buffer computed from others on every
access, as ``torch.nn.utils.parametrize``.

`register_parametrization` moves ``module.<name>`` to
``module.parametrizations.<name>.original`` and turns ``module.<name>`` into a property
that returns ``parametrization(original)``; the module's class becomes a generated
subclass ``Parametrized<Class>`` holding that property (torch's design, so that state
dict keys, ``named_parameters``, optimizers and ``deepcopy`` behave as torch's).

>>> import pyad
>>> from pyad import nn
>>> from pyad.nn.utils import parametrize
>>> class Symmetric(nn.Module):
...     def forward(self, X):
...         return X.triu() + X.triu(1).transpose(-1, -2)
>>> lin = nn.Linear(3, 3)
>>> _ = parametrize.register_parametrization(lin, "weight", Symmetric())
>>> type(lin).__name__, bool((lin.weight == lin.weight.T).all())
('ParametrizedLinear', True)
>>> [name for name, _ in lin.named_parameters()]
['bias', 'parametrizations.weight.original']
"""
import collections.abc
import contextlib
import copy
import copyreg

from pyad._engine import Variable
from pyad.autograd.grad_mode import no_grad
from pyad.nn.layers import ModuleDict
from pyad.nn.modules import Module, ModuleList
from pyad.nn.parameter import Parameter

__all__ = ["cached", "ParametrizationList", "register_parametrization", "is_parametrized",
           "remove_parametrizations", "type_before_parametrizations",
           "transfer_parametrizations_and_params"]

_cache_enabled = 0
_cache = {}


@contextlib.contextmanager
def cached():
    """Inside this context each parametrized tensor is computed once, on its first
    access, and the same Variable is returned after that (torch's ``cached``): useful
    when a parametrized weight is read many times in one forward (an RNN's steps).

    >>> import pyad
    >>> from pyad.nn.utils import parametrize
    >>> lin = pyad.nn.Linear(2, 2)
    >>> _ = parametrize.register_parametrization(lin, "weight", pyad.nn.Tanh())
    >>> with parametrize.cached():
    ...     lin.weight is lin.weight
    True
    >>> lin.weight is lin.weight
    False
    """
    global _cache, _cache_enabled
    _cache_enabled += 1
    try:
        yield
    finally:
        _cache_enabled -= 1
        if not _cache_enabled:
            _cache = {}


def _register_parameter_or_buffer(module, name, value):
    if isinstance(value, Parameter):
        module.register_parameter(name, value)
    else:
        module.register_buffer(name, value)


def _maybe_set(dest, src):
    # torch's dest.set_(src): dest (the same object, which optimizers hold) now holds
    # src's values, whatever their shape
    dest.data = src.data


def _is_tensor(value):
    return isinstance(value, Variable)


class ParametrizationList(ModuleList):
    """The parametrizations of one tensor of a module, in order, with the unparametrized
    value(s) registered on it: ``original`` (a parameter, or a buffer if the tensor was
    one), or ``original0``, ``original1``, ... when the first parametrization's
    ``right_inverse`` returns a sequence. Calling it computes the parametrized tensor.
    `register_parametrization` creates it, as ``module.parametrizations[name]``.
    """

    def __init__(self, modules, original, unsafe=False):
        if len(modules) == 0:
            raise ValueError("ParametrizationList requires one or more modules.")
        super().__init__(modules)
        self.unsafe = unsafe
        original_shape = original.shape
        original_dtype = original.dtype
        # the value(s) the first parametrization maps to `original`
        with no_grad():
            new = original
            for module in reversed(self):
                if hasattr(module, "right_inverse"):
                    try:
                        new = module.right_inverse(new)
                    except NotImplementedError:
                        pass
        if not _is_tensor(new) and not isinstance(new, collections.abc.Sequence):
            raise ValueError("'right_inverse' must return a Tensor or a Sequence of tensors "
                             "(list, tuple...). Got %s" % type(new).__name__)
        self.is_tensor = _is_tensor(new)
        self.ntensors = 1 if self.is_tensor else len(new)
        if self.is_tensor:
            if original.dtype != new.dtype:
                raise ValueError("When `right_inverse` outputs one tensor, it may not change "
                                 "the dtype.\noriginal.dtype: %s\nright_inverse(original)"
                                 ".dtype: %s" % (original.dtype, new.dtype))
            if original.device != new.device:
                raise ValueError("When `right_inverse` outputs one tensor, it may not change "
                                 "the device.\noriginal.device: %s\nright_inverse(original)"
                                 ".device: %s" % (original.device, new.device))
            with no_grad():
                _maybe_set(original, new)
            _register_parameter_or_buffer(self, "original", original)
        else:
            for i, originali in enumerate(new):
                if not _is_tensor(originali):
                    raise ValueError("'right_inverse' must return a Tensor or a Sequence of "
                                     "tensors (list, tuple...). Got element %d of the "
                                     "sequence with type %s." % (i, type(originali).__name__))
                if isinstance(original, Parameter):
                    originali = Parameter(originali, original.requires_grad)
                originali._mark_requires_grad(original.requires_grad)
                _register_parameter_or_buffer(self, "original%d" % i, originali)
        if not self.unsafe:
            # the parametrized tensor must look like the one it replaces
            Z = self()
            if not _is_tensor(Z):
                raise ValueError("A parametrization must return a tensor. Got %s."
                                 % type(Z).__name__)
            if Z.dtype != original_dtype:
                raise ValueError("Registering a parametrization may not change the dtype of "
                                 "the tensor, unless `unsafe` flag is enabled.\n"
                                 "unparametrized dtype: %s\nparametrized dtype: %s"
                                 % (original_dtype, Z.dtype))
            if Z.shape != original_shape:
                raise ValueError("Registering a parametrization may not change the shape of "
                                 "the tensor, unless `unsafe` flag is enabled.\n"
                                 "unparametrized shape: %s\nparametrized shape: %s"
                                 % (original_shape, Z.shape))

    def right_inverse(self, value):
        """Set the original value(s) so that the parametrized tensor is ``value``: each
        parametrization's ``right_inverse``, last first (what assigning
        ``module.<name> = value`` calls)."""
        with no_grad():
            for module in reversed(self):
                if hasattr(module, "right_inverse"):
                    value = module.right_inverse(value)
                else:
                    raise RuntimeError("parametrization %s does not implement right_inverse."
                                       % type(module).__name__)
            if self.is_tensor:
                if not _is_tensor(value):
                    raise ValueError("`right_inverse` should return a tensor. Got %s"
                                     % type(value).__name__)
                if value.dtype != self.original.dtype:
                    raise ValueError("The tensor returned by `right_inverse` has dtype %s "
                                     "while `original` has dtype %s"
                                     % (value.dtype, self.original.dtype))
                _maybe_set(self.original, value)
            else:
                if not isinstance(value, collections.abc.Sequence):
                    raise ValueError("'right_inverse' must return a sequence of tensors. "
                                     "Got %s." % type(value).__name__)
                if len(value) != self.ntensors:
                    raise ValueError("'right_inverse' must return a sequence of tensors of "
                                     "length %d. Got a sequence of length %d."
                                     % (self.ntensors, len(value)))
                for i, tensor in enumerate(value):
                    original_i = getattr(self, "original%d" % i)
                    if not _is_tensor(tensor):
                        raise ValueError("'right_inverse' must return a sequence of tensors "
                                         "or reference-type opaques. Got element %d of type "
                                         "%s." % (i, type(tensor).__name__))
                    if original_i.dtype != tensor.dtype:
                        raise ValueError("Tensor %d returned by `right_inverse` has dtype %s "
                                         "while `original%d` has dtype %s"
                                         % (i, tensor.dtype, i, original_i.dtype))
                    _maybe_set(original_i, tensor)

    def forward(self):
        if self.is_tensor:
            x = self[0](self.original)
        else:
            x = self[0](*(getattr(self, "original%d" % i) for i in range(self.ntensors)))
        for i in range(1, len(self)):
            x = self[i](x)
        return x


def _default_deepcopy(self, memo):
    # the generated class refuses pickling (below), which copy.deepcopy would go through
    obj = memo.get(id(self))
    if obj is not None:
        return obj
    replica = self.__new__(self.__class__)
    memo[id(self)] = replica
    replica.__dict__ = copy.deepcopy(self.__dict__, memo)
    for slot in copyreg._slotnames(self.__class__):
        if hasattr(self, slot):
            setattr(replica, slot, copy.deepcopy(getattr(self, slot), memo))
    return replica


def _refuse_pickling(self):
    raise RuntimeError(
        "Serialization of parametrized modules is only supported through state_dict(). "
        "See:\nhttps://pytorch.org/tutorials/beginner/saving_loading_models.html"
        "#saving-loading-a-general-checkpoint-for-inference-and-or-resuming-training")


def _inject_new_class(module):
    # a subclass of the module's own class, just for this instance: the properties of
    # its parametrized tensors go there, not on the class every other instance shares
    cls = module.__class__
    attrs = {"__getstate__": _refuse_pickling}
    if not hasattr(cls, "__deepcopy__"):
        attrs["__deepcopy__"] = _default_deepcopy
    module.__class__ = type("Parametrized" + cls.__name__, (cls,), attrs)


def _inject_property(module, tensor_name):
    if hasattr(module, tensor_name):
        raise AssertionError("Module already has an attribute named '%s'" % tensor_name)

    def get_parametrized(self):
        parametrization = self.parametrizations[tensor_name]
        if not _cache_enabled:
            return parametrization()
        key = (id(self), tensor_name)
        tensor = _cache.get(key)
        if tensor is None:
            tensor = parametrization()
            _cache[key] = tensor
        return tensor

    def set_original(self, value):
        self.parametrizations[tensor_name].right_inverse(value)

    setattr(module.__class__, tensor_name, property(get_parametrized, set_original))


def _check_like(what, X, Y, tensor_name, returned="parametrization(module.%s)"):
    if X.dtype != Y.dtype:
        raise ValueError("%s may not change the dtype of the tensor, unless the `unsafe` "
                         "flag is enabled.\nmodule.%s.dtype: %s\n%s.dtype: %s"
                         % (what, tensor_name, Y.dtype, returned % tensor_name, X.dtype))
    if X.shape != Y.shape:
        raise ValueError("%s may not change the shape of the tensor, unless the `unsafe` "
                         "flag is enabled.\nmodule.%s.shape: %s\n%s.shape: %s"
                         % (what, tensor_name, Y.shape, returned % tensor_name, X.shape))


def register_parametrization(module, tensor_name, parametrization, *, unsafe=False):
    """Parametrize ``module.<tensor_name>`` (a parameter or buffer) by the module
    ``parametrization``: from now on reading it returns ``parametrization(original)``,
    with the old value kept as ``module.parametrizations.<tensor_name>.original`` (after
    ``parametrization.right_inverse``, if it has one; a sequence from ``right_inverse``
    gives ``original0``, ``original1``, ... and the forward takes them all). Registering
    again on the same name chains the parametrizations; assigning ``module.<name> = X``
    calls their ``right_inverse``. Unless ``unsafe``, the parametrization may not change
    the tensor's shape or dtype. Returns ``module``.

    >>> import pyad
    >>> from pyad.nn.utils import parametrize
    >>> class Double(pyad.nn.Module):
    ...     def forward(self, X):
    ...         return 2 * X
    ...     def right_inverse(self, A):
    ...         return A / 2
    >>> lin = pyad.nn.Linear(2, 2)
    >>> _ = parametrize.register_parametrization(lin, "bias", Double())
    >>> lin.bias = pyad.tensor([4.0, 6.0])
    >>> lin.parametrizations.bias.original
    Parameter containing:
    tensor([2., 3.], requires_grad=True)
    """
    parametrization.train(module.training)
    if is_parametrized(module, tensor_name):
        if not unsafe:
            Y = getattr(module, tensor_name)
            X = parametrization(Y)
            if not _is_tensor(X):
                raise ValueError("A parametrization must return a tensor. Got %s."
                                 % type(X).__name__)
            _check_like("Registering a parametrization", X, Y, tensor_name)
            if hasattr(parametrization, "right_inverse"):
                try:
                    Z = parametrization.right_inverse(X)
                except NotImplementedError:
                    pass
                else:
                    if not _is_tensor(Z):
                        raise ValueError("parametrization.right_inverse must return a "
                                         "tensor. Got: %s" % type(Z).__name__)
                    if Z.dtype != Y.dtype:
                        raise ValueError(
                            "The tensor returned by parametrization.right_inverse must have "
                            "the same dtype as module.%s, unless the `unsafe` flag is "
                            "enabled.\nmodule.%s.dtype: %s\nreturned dtype: %s"
                            % (tensor_name, tensor_name, Y.dtype, Z.dtype))
                    if Z.shape != Y.shape:
                        raise ValueError(
                            "The tensor returned by parametrization.right_inverse must have "
                            "the same shape as module.%s, unless the `unsafe` flag is "
                            "enabled.\nmodule.%s.shape: %s\nreturned shape: %s"
                            % (tensor_name, tensor_name, Y.shape, Z.shape))
        module.parametrizations[tensor_name].append(parametrization)
        module.parametrizations[tensor_name].unsafe |= unsafe
    elif tensor_name in module._buffers or tensor_name in module._parameters:
        original = getattr(module, tensor_name)
        parametrizations = ParametrizationList([parametrization], original, unsafe=unsafe)
        delattr(module, tensor_name)
        if not is_parametrized(module):
            _inject_new_class(module)
            module.parametrizations = ModuleDict()
        _inject_property(module, tensor_name)
        module.parametrizations[tensor_name] = parametrizations
    else:
        raise ValueError("Module '%s' does not have a parameter, a buffer, or a parametrized "
                         "element with name '%s'" % (module, tensor_name))
    return module


def is_parametrized(module, tensor_name=None):
    """Whether ``module`` has a parametrization (on ``tensor_name``, if given).

    >>> import pyad
    >>> from pyad.nn.utils import parametrize
    >>> lin = pyad.nn.Linear(2, 2)
    >>> _ = parametrize.register_parametrization(lin, "weight", pyad.nn.Identity())
    >>> parametrize.is_parametrized(lin), parametrize.is_parametrized(lin, "bias")
    (True, False)
    """
    parametrizations = getattr(module, "parametrizations", None)
    if parametrizations is None or not isinstance(parametrizations, ModuleDict):
        return False
    if tensor_name is None:
        return len(parametrizations) > 0
    return tensor_name in parametrizations


def remove_parametrizations(module, tensor_name, leave_parametrized=True):
    """Undo the parametrizations of ``module.<tensor_name>``: it becomes a plain
    parameter (or buffer) again holding its current parametrized value
    (``leave_parametrized=True``, the same object as ``original``, so optimizers keep
    it) or the unparametrized ``original`` (``False``; refused when ``right_inverse``
    made several originals). The class goes back to the original one when no
    parametrization is left. Returns ``module``.

    >>> import pyad
    >>> from pyad.nn.utils import parametrize
    >>> lin = pyad.nn.Linear(2, 2)
    >>> _ = parametrize.register_parametrization(lin, "weight", pyad.nn.Identity())
    >>> type(parametrize.remove_parametrizations(lin, "weight")).__name__
    'Linear'
    """
    if not is_parametrized(module, tensor_name):
        raise ValueError("Module %s does not have a parametrization on %s"
                         % (module, tensor_name))
    parametrizations = module.parametrizations[tensor_name]
    if parametrizations.is_tensor:
        original = parametrizations.original
        if leave_parametrized:
            with no_grad():
                t = getattr(module, tensor_name)
                _maybe_set(original, t)
    elif leave_parametrized:
        # several originals: the parametrized value becomes a new parameter
        t = getattr(module, tensor_name)
        original = Parameter(t) if t.requires_grad else t
    else:
        raise ValueError("Cannot leave unparametrized (`leave_parametrized=False`) a tensor "
                         "that is parametrized in terms of a sequence of tensors.")
    delattr(module.__class__, tensor_name)
    del module.parametrizations[tensor_name]
    _register_parameter_or_buffer(module, tensor_name, original)
    if not is_parametrized(module):
        delattr(module, "parametrizations")
        module.__class__ = module.__class__.__bases__[0]
    return module


def type_before_parametrizations(module):
    """The module's class before any parametrization (``type(module)`` if none).

    >>> import pyad
    >>> from pyad.nn.utils import parametrize
    >>> lin = pyad.nn.Linear(2, 2)
    >>> _ = parametrize.register_parametrization(lin, "weight", pyad.nn.Identity())
    >>> parametrize.type_before_parametrizations(lin).__name__
    'Linear'
    """
    if is_parametrized(module):
        return module.__class__.__bases__[0]
    return type(module)


def transfer_parametrizations_and_params(from_module, to_module, tensor_name=None):
    """Register ``from_module``'s parametrizations (of ``tensor_name``, or all) on
    ``to_module`` too, sharing the parametrization modules and the originals (torch's).
    Returns ``to_module``."""
    if is_parametrized(from_module):
        names = from_module.parametrizations if tensor_name is None else [tensor_name]
        for name in list(names):
            if not hasattr(to_module, name):
                setattr(to_module, name, Parameter(getattr(from_module, name)))
            for param_func in from_module.parametrizations[name]:
                register_parametrization(to_module, name, param_func)
            source = from_module.parametrizations[name]
            target = to_module.parametrizations[name]
            if hasattr(source, "original"):
                target.original = source.original
            else:
                i = 0
                while hasattr(source, "original%d" % i):
                    setattr(target, "original%d" % i, getattr(source, "original%d" % i))
                    i += 1
    return to_module
