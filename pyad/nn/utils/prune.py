"""``pyad.nn.utils.prune``: pruning of a module's parameters by a mask, as
``torch.nn.utils.prune``.

Pruning ``name`` of a module moves the parameter to ``name + "_orig"``, adds the mask as
the buffer ``name + "_mask"`` and a forward pre-hook (the pruning method itself) that
sets the plain attribute ``name`` to ``mask * orig`` before each forward, so gradients
flow to ``name_orig`` through the mask. Pruning the same parameter again combines the
methods in a :class:`PruningContainer` (each acts on what the previous ones kept);
:func:`remove` makes the pruning permanent.

>>> import pyad
>>> from pyad.nn.utils import prune
>>> lin = pyad.nn.Linear(4, 2)
>>> _ = prune.l1_unstructured(lin, "weight", amount=3)
>>> sorted(dict(lin.named_buffers()))
['weight_mask']
>>> int((lin.weight == 0).sum())
3
>>> _ = prune.remove(lin, "weight")
>>> sorted(dict(lin.named_parameters()))
['bias', 'weight']
"""
import numbers
from abc import ABC, abstractmethod
from collections.abc import Iterable

import pyad

__all__ = ["BasePruningMethod", "PruningContainer", "Identity", "RandomUnstructured",
           "L1Unstructured", "RandomStructured", "LnStructured", "CustomFromMask",
           "identity", "random_unstructured", "l1_unstructured", "random_structured",
           "ln_structured", "global_unstructured", "custom_from_mask", "remove",
           "is_pruned"]


def _pre_hooks(module):
    """The module's forward pre-hooks as a list of ``(handle id, hook, with_kwargs)``
    (pyad keeps them in a list where torch has an OrderedDict)."""
    return module.__dict__.get("_forward_pre_hooks") or []


def _drop_pre_hook(module, key):
    hooks = _pre_hooks(module)
    for i, entry in enumerate(hooks):
        if entry[0] == key:
            del hooks[i]
            return


class BasePruningMethod(ABC):
    """The base of the pruning methods: a forward pre-hook that recomputes the pruned
    attribute from ``<name>_orig`` and ``<name>_mask``. Subclasses define
    ``compute_mask(t, default_mask)`` and ``PRUNING_TYPE`` ('unstructured',
    'structured' with a ``dim`` attribute, or 'global')."""

    _tensor_name = None

    def __call__(self, module, inputs):
        setattr(module, self._tensor_name, self.apply_mask(module))

    @abstractmethod
    def compute_mask(self, t, default_mask):
        """The new mask of ``t``, given the mask ``default_mask`` of earlier prunings."""

    def apply_mask(self, module):
        """``<name>_mask * <name>_orig`` of ``module`` (differentiable in ``orig``)."""
        if self._tensor_name is None:
            raise AssertionError("Module %s has to be pruned" % (module,))
        mask = getattr(module, self._tensor_name + "_mask")
        orig = getattr(module, self._tensor_name + "_orig")
        return mask.to(dtype=orig.dtype) * orig

    @classmethod
    def apply(cls, module, name, *args, importance_scores=None, **kwargs):
        """Prune ``module``'s parameter ``name`` with ``cls(*args, **kwargs)``; when it
        is already pruned, the new method joins a :class:`PruningContainer`. Returns the
        method (or container) that is now the module's hook."""
        old_method, old_keys = None, []
        for key, hook, _ in list(_pre_hooks(module)):
            if isinstance(hook, BasePruningMethod) and hook._tensor_name == name:
                old_method = hook
                old_keys.append(key)
        if len(old_keys) > 1:
            raise AssertionError("Avoid adding multiple pruning hooks to the same Variable %s "
                                 "of module %s. Use a PruningContainer." % (name, module))
        for key in old_keys:
            _drop_pre_hook(module, key)
        method = cls(*args, **kwargs)
        method._tensor_name = name
        if old_method is not None:
            if isinstance(old_method, PruningContainer):
                old_method.add_pruning_method(method)
                method = old_method
            else:
                container = PruningContainer(old_method)
                container.add_pruning_method(method)
                method = container

        orig = getattr(module, name)
        if importance_scores is not None:
            if tuple(importance_scores.shape) != tuple(orig.shape):
                raise AssertionError(
                    "importance_scores should have the same shape as parameter %s of %s, "
                    "got %s vs %s" % (name, module, importance_scores.shape, orig.shape))
        else:
            importance_scores = orig
        if not isinstance(method, PruningContainer):
            # the parameter moves to name_orig; name becomes a plain attribute
            module.register_parameter(name + "_orig", orig)
            del module._parameters[name]
            default_mask = pyad.ones_like(orig)
        else:
            default_mask = getattr(module, name + "_mask").detach().clone()
        try:
            mask = method.compute_mask(importance_scores, default_mask=default_mask)
            module.register_buffer(name + "_mask", mask)
            setattr(module, name, method.apply_mask(module))
            module.register_forward_pre_hook(method)
        except Exception:
            if not isinstance(method, PruningContainer):
                orig = getattr(module, name + "_orig")
                module.register_parameter(name, orig)
                del module._parameters[name + "_orig"]
            raise
        return method

    def prune(self, t, default_mask=None, importance_scores=None):
        """``t`` times the mask this method computes for it (from ``importance_scores``
        when given, of ``t``'s shape)."""
        if importance_scores is not None:
            if tuple(importance_scores.shape) != tuple(t.shape):
                raise AssertionError("importance_scores should have the same shape as "
                                     "Variable t, got %s vs %s"
                                     % (importance_scores.shape, t.shape))
        else:
            importance_scores = t
        default_mask = default_mask if default_mask is not None else pyad.ones_like(t)
        return t * self.compute_mask(importance_scores, default_mask=default_mask)

    def remove(self, module):
        """Make the pruning permanent: the parameter ``name`` holds ``mask * orig``;
        ``name_orig`` and ``name_mask`` are gone (the hook is removed by
        :func:`remove`)."""
        if self._tensor_name is None:
            raise AssertionError("Module %s has to be pruned before pruning can be removed"
                                 % (module,))
        weight = self.apply_mask(module)
        if hasattr(module, self._tensor_name):
            delattr(module, self._tensor_name)
        orig = module._parameters[self._tensor_name + "_orig"]
        orig.data = weight.data
        del module._parameters[self._tensor_name + "_orig"]
        del module._buffers[self._tensor_name + "_mask"]
        setattr(module, self._tensor_name, orig)


class PruningContainer(BasePruningMethod):
    """A sequence of pruning methods of one parameter, applied one after the other:
    each new method computes its mask on the entries (unstructured) or channels
    (structured) that the previous ones kept."""

    def __init__(self, *args):
        self._pruning_methods = ()
        if len(args) == 1:
            self._tensor_name = args[0]._tensor_name
            self.add_pruning_method(args[0])
        else:
            for method in args:
                self.add_pruning_method(method)

    def add_pruning_method(self, method):
        """Append ``method`` (a :class:`BasePruningMethod` of the same parameter)."""
        if not isinstance(method, BasePruningMethod) and method is not None:
            raise TypeError("%s is not a BasePruningMethod subclass" % (type(method),))
        elif method is not None and self._tensor_name != method._tensor_name:
            raise ValueError("Can only add pruning methods acting on the parameter named "
                             "'%s' to PruningContainer %s. Found '%s'"
                             % (self._tensor_name, self, method._tensor_name))
        self._pruning_methods += (method,)

    def __len__(self):
        return len(self._pruning_methods)

    def __iter__(self):
        return iter(self._pruning_methods)

    def __getitem__(self, idx):
        return self._pruning_methods[idx]

    def compute_mask(self, t, default_mask):
        """The last method's mask computed on the part of ``t`` that ``default_mask``
        keeps, written back into ``default_mask``'s shape."""
        method = self._pruning_methods[-1]
        new_mask = default_mask.to(dtype=t.dtype)
        kind = method.PRUNING_TYPE
        if kind == "unstructured":
            slc = default_mask == 1
        elif kind == "structured":
            if not hasattr(method, "dim"):
                raise AttributeError('Pruning methods of PRUNING_TYPE "structured" need to '
                                     "have the attribute `dim` defined.")
            n_dims = t.dim()
            dim = method.dim
            if dim < 0:
                dim = n_dims + dim
            if dim < 0:
                raise IndexError("Index is out of bounds for Variable with dimensions %d"
                                 % n_dims)
            others = [d for d in range(n_dims) if d != dim]
            keep_channel = default_mask.sum(dim=others) != 0
            slc = [slice(None)] * n_dims
            slc[dim] = keep_channel
            slc = tuple(slc)
        elif kind == "global":
            slc = (slice(None),) * len(t.shape)
        else:
            raise ValueError("Unrecognized PRUNING_TYPE %s" % (kind,))
        partial = method.compute_mask(t[slc], default_mask=default_mask[slc])
        new_mask[slc] = partial.to(dtype=new_mask.dtype)
        return new_mask


class Identity(BasePruningMethod):
    """Prune nothing: the mask is all ones (a way to add ``_orig``/``_mask``)."""

    PRUNING_TYPE = "unstructured"

    def compute_mask(self, t, default_mask):
        return default_mask

    @classmethod
    def apply(cls, module, name):
        return super().apply(module, name)


class RandomUnstructured(BasePruningMethod):
    """Prune ``amount`` entries (a fraction of them if a float) chosen at random."""

    PRUNING_TYPE = "unstructured"

    def __init__(self, amount):
        _validate_pruning_amount_init(amount)
        self.amount = amount

    def compute_mask(self, t, default_mask):
        size = t.numel()
        nprune = _compute_nparams_toprune(self.amount, size)
        _validate_pruning_amount(nprune, size)
        mask = default_mask.clone()
        if nprune != 0:
            prob = pyad.rand_like(t.detach())
            idx = pyad.topk(prob.reshape(-1), k=nprune).indices
            flat = mask.reshape(-1)
            flat[idx] = 0
            mask = flat.reshape(mask.shape)
        return mask

    @classmethod
    def apply(cls, module, name, amount):
        return super().apply(module, name, amount=amount)


class L1Unstructured(BasePruningMethod):
    """Prune the ``amount`` entries (a fraction of them if a float) of smallest absolute
    value."""

    PRUNING_TYPE = "unstructured"

    def __init__(self, amount):
        _validate_pruning_amount_init(amount)
        self.amount = amount

    def compute_mask(self, t, default_mask):
        size = t.numel()
        nprune = _compute_nparams_toprune(self.amount, size)
        _validate_pruning_amount(nprune, size)
        mask = default_mask.clone()
        if nprune != 0:
            idx = pyad.topk(pyad.abs(t.detach()).reshape(-1), k=nprune, largest=False).indices
            flat = mask.reshape(-1)
            flat[idx] = 0
            mask = flat.reshape(mask.shape)
        return mask

    @classmethod
    def apply(cls, module, name, amount, importance_scores=None):
        return super().apply(module, name, amount=amount, importance_scores=importance_scores)


def _channel_mask(t, dim, keep):
    """A mask of ``t``'s shape with ones in the channels ``keep`` (indices or a bool
    Variable) along ``dim``."""
    mask = pyad.zeros_like(t.detach())
    slc = [slice(None)] * t.dim()
    slc[dim] = keep
    mask[tuple(slc)] = 1
    return mask


class RandomStructured(BasePruningMethod):
    """Prune ``amount`` channels (a fraction of them if a float) along ``dim``, chosen at
    random."""

    PRUNING_TYPE = "structured"

    def __init__(self, amount, dim=-1):
        _validate_pruning_amount_init(amount)
        self.amount = amount
        self.dim = dim

    def compute_mask(self, t, default_mask):
        _validate_structured_pruning(t)
        _validate_pruning_dim(t, self.dim)
        size = t.shape[self.dim]
        nprune = _compute_nparams_toprune(self.amount, size)
        _validate_pruning_amount(nprune, size)
        if nprune == 0:
            return default_mask
        prob = pyad.rand(size)
        threshold = pyad.kthvalue(prob, k=nprune).values
        mask = _channel_mask(t, self.dim, prob > threshold)
        return mask * default_mask.to(dtype=mask.dtype)

    @classmethod
    def apply(cls, module, name, amount, dim=-1):
        return super().apply(module, name, amount=amount, dim=dim)


class LnStructured(BasePruningMethod):
    """Prune the ``amount`` channels (a fraction of them if a float) along ``dim`` of
    smallest L``n`` norm."""

    PRUNING_TYPE = "structured"

    def __init__(self, amount, n, dim=-1):
        _validate_pruning_amount_init(amount)
        self.amount = amount
        self.n = n
        self.dim = dim

    def compute_mask(self, t, default_mask):
        _validate_structured_pruning(t)
        _validate_pruning_dim(t, self.dim)
        size = t.shape[self.dim]
        nprune = _compute_nparams_toprune(self.amount, size)
        _validate_pruning_amount(nprune, size)
        norm = _compute_norm(t.detach(), self.n, self.dim)
        keep = pyad.topk(norm, k=size - nprune, largest=True).indices
        if nprune == 0:
            return default_mask
        mask = _channel_mask(t, self.dim, keep)
        return mask * default_mask.to(dtype=mask.dtype)

    @classmethod
    def apply(cls, module, name, amount, n, dim, importance_scores=None):
        return super().apply(module, name, amount=amount, n=n, dim=dim,
                             importance_scores=importance_scores)


class CustomFromMask(BasePruningMethod):
    """Prune by a given mask (times the mask of earlier prunings)."""

    PRUNING_TYPE = "global"

    def __init__(self, mask):
        self.mask = mask

    def compute_mask(self, t, default_mask):
        if tuple(default_mask.shape) != tuple(self.mask.shape):
            raise AssertionError("default_mask shape %s must match self.mask shape %s"
                                 % (default_mask.shape, self.mask.shape))
        return default_mask * self.mask.to(dtype=default_mask.dtype)

    @classmethod
    def apply(cls, module, name, mask):
        return super().apply(module, name, mask=mask)


def identity(module, name):
    """Add ``name_orig``/``name_mask`` (all ones) to ``module`` without pruning."""
    Identity.apply(module, name)
    return module


def random_unstructured(module, name, amount):
    """Prune ``amount`` random entries of ``module.<name>``; returns ``module``."""
    RandomUnstructured.apply(module, name, amount)
    return module


def l1_unstructured(module, name, amount, importance_scores=None):
    """Prune the ``amount`` entries of ``module.<name>`` of smallest absolute value (of
    ``importance_scores`` when given); returns ``module``."""
    L1Unstructured.apply(module, name, amount=amount, importance_scores=importance_scores)
    return module


def random_structured(module, name, amount, dim):
    """Prune ``amount`` random channels along ``dim`` of ``module.<name>``."""
    RandomStructured.apply(module, name, amount, dim)
    return module


def ln_structured(module, name, amount, n, dim, importance_scores=None):
    """Prune the ``amount`` channels along ``dim`` of smallest L``n`` norm."""
    LnStructured.apply(module, name, amount, n, dim, importance_scores=importance_scores)
    return module


def global_unstructured(parameters, pruning_method, importance_scores=None, **kwargs):
    """Prune the ``(module, name)`` pairs of ``parameters`` together, as one vector, with
    the unstructured ``pruning_method(**kwargs)``; each gets a :class:`CustomFromMask`."""
    if not isinstance(parameters, Iterable):
        raise TypeError("global_unstructured(): parameters is not an Iterable")
    parameters = list(parameters)
    importance_scores = importance_scores if importance_scores is not None else {}
    if not isinstance(importance_scores, dict):
        raise TypeError("global_unstructured(): importance_scores must be of type dict")
    scores = pyad.nn.utils.parameters_to_vector(
        [importance_scores.get((module, name), getattr(module, name))
         for module, name in parameters])
    default_mask = pyad.nn.utils.parameters_to_vector(
        [getattr(module, name + "_mask", None) if hasattr(module, name + "_mask")
         else pyad.ones_like(getattr(module, name)) for module, name in parameters])
    container = PruningContainer()
    container._tensor_name = "temp"
    method = pruning_method(**kwargs)
    method._tensor_name = "temp"
    if method.PRUNING_TYPE != "unstructured":
        raise TypeError('Only "unstructured" PRUNING_TYPE supported for the '
                        "`pruning_method`. Found method %s of type %s"
                        % (pruning_method, method.PRUNING_TYPE))
    container.add_pruning_method(method)
    final_mask = container.compute_mask(scores, default_mask)
    pointer = 0
    for module, name in parameters:
        param = getattr(module, name)
        n = param.numel()
        custom_from_mask(module, name, mask=final_mask[pointer:pointer + n].view_as(param))
        pointer += n


def custom_from_mask(module, name, mask):
    """Prune ``module.<name>`` by ``mask`` (a Variable of its shape)."""
    CustomFromMask.apply(module, name, mask)
    return module


def remove(module, name):
    """Make the pruning of ``module.<name>`` permanent and drop its hook."""
    for key, hook, _ in list(_pre_hooks(module)):
        if isinstance(hook, BasePruningMethod) and hook._tensor_name == name:
            hook.remove(module)
            _drop_pre_hook(module, key)
            return module
    raise ValueError("Parameter '%s' of module %s has to be pruned before pruning can be "
                     "removed" % (name, module))


def is_pruned(module):
    """Whether ``module`` or a submodule has a pruning hook."""
    for _, sub in module.named_modules():
        for _, hook, _ in _pre_hooks(sub):
            if isinstance(hook, BasePruningMethod):
                return True
    return False


def _validate_pruning_amount_init(amount):
    if not isinstance(amount, numbers.Real):
        raise TypeError("Invalid type for amount: %s. Must be int or float." % (amount,))
    if (isinstance(amount, numbers.Integral) and amount < 0) or (
            not isinstance(amount, numbers.Integral)
            and (float(amount) > 1.0 or float(amount) < 0.0)):
        raise ValueError("amount=%s should either be a float in the range [0, 1] or a "
                         "non-negative integer" % (amount,))


def _validate_pruning_amount(amount, tensor_size):
    # torch's keyword name (tensor_size), so torch's tests can call it by keyword
    if isinstance(amount, numbers.Integral) and amount > tensor_size:
        raise ValueError("amount=%s should be smaller than the number of parameters to "
                         "prune=%s" % (amount, tensor_size))


def _validate_structured_pruning(t):
    shape = t.shape
    if len(shape) <= 1:
        raise ValueError("Structured pruning can only be applied to multidimensional "
                         "Variables. Found Variable of shape %s with %d dims"
                         % (shape, len(shape)))


def _compute_nparams_toprune(amount, tensor_size):
    if isinstance(amount, numbers.Integral):
        return amount
    return round(amount * tensor_size)


def _validate_pruning_dim(t, dim):
    if dim >= t.dim():
        raise IndexError("Invalid index %s for Variable of size %s" % (dim, t.shape))


def _compute_norm(t, n, dim):
    dims = list(range(t.dim()))
    if dim < 0:
        dim = dims[dim]
    dims.remove(dim)
    return pyad.norm(t, p=n, dim=dims)
