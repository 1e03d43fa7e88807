"""``pyad.nn.utils.stateless.functional_call``: call a module with some of its
parameters and buffers replaced for that one call, as torch's (and
``torch.func.functional_call``).

>>> import pyad
>>> from pyad.nn.utils.stateless import _functional_call
>>> lin = pyad.nn.Linear(2, 1)
>>> out = _functional_call(lin, {"weight": pyad.ones(1, 2), "bias": pyad.zeros(1)},
...                        (pyad.tensor([[1.0, 2.0]]),))
>>> out, isinstance(lin.weight, pyad.nn.Parameter)
(tensor([[3.]]), True)
"""
import contextlib
import warnings

from pyad._engine import Variable
from pyad.nn.modules import Module

__all__ = ["functional_call"]

_MISSING = object()


def _swap_tensor(module, name, tensor):
    # torch's swap_tensor: put `tensor` where module.<name> is (its _parameters or
    # _buffers entry as is, a plain attribute otherwise) and return what was there
    if "." in name:
        raise KeyError('tensor name can\'t contain "."')
    if name == "":
        raise KeyError('tensor name can\'t be empty string ""')
    for store in (module._parameters, module._buffers):
        if name in store:
            original = store[name]
            if tensor is _MISSING:
                del store[name]
            else:
                store[name] = tensor
            return original
    original = getattr(module, name, _MISSING)
    if original is not _MISSING and not isinstance(original, Variable) \
            and original is not None:
        raise TypeError("attribute `%s`: %s is not an instance of torch.Tensor"
                        % (name, original))
    if tensor is not _MISSING:
        setattr(module, name, tensor)
    elif hasattr(module, name):
        delattr(module, name)
    return original


def _submodule(module, path):
    for part in path.split(".") if path else ():
        parent = module
        try:
            module = getattr(module, part)
        except AttributeError as ex:
            raise AttributeError("%s has no attribute `%s`" % (parent._get_name(), part)) \
                from ex
        if not isinstance(module, Module):
            raise TypeError("submodule `%s`: %s is not an instance of torch.nn.Module"
                            % (path, module))
    return module


def _swap_all(module, named_tensors):
    originals = {}
    try:
        for name, tensor in named_tensors.items():
            if tensor is not _MISSING and tensor is not None \
                    and not isinstance(tensor, Variable):
                raise TypeError("%s is not an instance of torch.Tensor" % (tensor,))
            prefix, _, attr = name.rpartition(".")
            originals[name] = _swap_tensor(_submodule(module, prefix), attr, tensor)
    except Exception:
        for name, original in originals.items():
            prefix, _, attr = name.rpartition(".")
            _swap_tensor(_submodule(module, prefix), attr, original)
        raise
    return originals


def _untie_named_tensors_map(module, parameters_and_buffers):
    # every name of a tied tensor gets the value given for any one of its names
    all_named = dict(module.named_parameters(remove_duplicate=False))
    all_named.update(module.named_buffers(remove_duplicate=False))
    names_of = {}
    for name, tensor in all_named.items():
        names_of.setdefault(id(tensor), set()).add(name)
    tied = {name: names for names in names_of.values() if len(names) > 1
            for name in names}
    given_tied = [name for name in parameters_and_buffers if name in tied]
    for name in given_tied:
        names = tied[name]
        if len(names.intersection(given_tied)) > 1 and \
                len({id(parameters_and_buffers[n]) for n in names
                     if n in parameters_and_buffers}) != 1:
            raise ValueError("functional_call got multiple values for keys %s, which are "
                             "tied. Consider using tie_weights=False" % sorted(names))
    untied = dict(parameters_and_buffers)
    for name in given_tied:
        for tied_name in tied[name]:
            untied[tied_name] = parameters_and_buffers[name]
    return untied


@contextlib.contextmanager
def _reparametrize_module(module, parameters_and_buffers, tie_weights=False, strict=False):
    if tie_weights:
        untied = _untie_named_tensors_map(module, parameters_and_buffers)
    else:
        untied = parameters_and_buffers
    if strict:
        valid = {name for name, _ in module.named_parameters(remove_duplicate=False)}
        valid |= {name for name, _ in module.named_buffers(remove_duplicate=False)}
        missing = sorted(valid - set(untied))
        unexpected = sorted(set(untied) - valid)
        errors = []
        if unexpected:
            errors.append("Unexpected key(s): %s." % ", ".join(map(repr, unexpected)))
        if missing:
            errors.append("Missing key(s): %s." % ", ".join(map(repr, missing)))
        if errors:
            raise RuntimeError("Error(s) in reparametrizing for %s:\n\t%s"
                               % (module._get_name(), "\n\t".join(errors)))
    originals = {}
    try:
        originals = _swap_all(module, untied)
        yield
    finally:
        # the originals go back even if the call raised; a value the call replaced in
        # its slot (a buffer updated by assignment) is handed back in the dict, as torch
        new = _swap_all(module, originals)
        parameters_and_buffers.update({k: new[k] for k in parameters_and_buffers
                                       if k in new})


def _functional_call(module, parameters_and_buffers, args=None, kwargs=None, *,
                     tie_weights=True, strict=False):
    kwargs = {} if kwargs is None else kwargs
    if args is None:
        args = ()
    elif not isinstance(args, tuple):
        args = (args,)
    with _reparametrize_module(module, parameters_and_buffers, tie_weights=tie_weights,
                               strict=strict):
        return module(*args, **kwargs)


def functional_call(module, parameters_and_buffers, args=None, kwargs=None, *,
                    tie_weights=True, strict=False):
    """Call ``module(*args, **kwargs)`` with the parameters and buffers named (dotted, as
    ``named_parameters``) in ``parameters_and_buffers`` replaced by the given Variables
    for this call only; the module's own come back afterwards, even if the call raises.
    ``tie_weights`` gives a value to every name of a tied tensor; ``strict`` requires
    exactly the module's names. ``args`` that is not a tuple is the single argument.
    Deprecated in torch (FutureWarning) in favour of ``torch.func.functional_call``,
    which takes a dict or a sequence of dicts; this one takes a dict.

    Gradients flow to the given Variables, not to the module's parameters:

    >>> import warnings, pyad
    >>> from pyad.nn.utils.stateless import functional_call
    >>> lin = pyad.nn.Linear(2, 1, bias=False)
    >>> w = pyad.ones(1, 2, requires_grad=True)
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     functional_call(lin, {"weight": w}, pyad.tensor([[1.0, 2.0]])).sum().backward()
    >>> w.grad, lin.weight.grad
    (tensor([[1., 2.]]), None)
    """
    warnings.warn("`torch.nn.utils.stateless.functional_call` is deprecated as of PyTorch "
                  "2.0 and will be removed in a future version of PyTorch. Please use "
                  "`torch.func.functional_call` instead which is a drop-in replacement.",
                  FutureWarning, stacklevel=2)
    return _functional_call(module, parameters_and_buffers, args, kwargs,
                            tie_weights=tie_weights, strict=strict)
