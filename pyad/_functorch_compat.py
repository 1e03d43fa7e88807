"""functorch's older functional-module API, as ``functorch`` had it: `make_functional`,
`make_functional_with_buffers`, `combine_state_for_ensemble` and the callables they return.

torch.func replaced it with `pyad.func.functional_call` and `pyad.func.stack_module_state`,
on which these are built; they are kept so that scripts written against functorch port by
their imports. `pyad.func` exposes them (loaded on first use: pyad.nn imports pyad.func).
"""
import copy

import pyad
from pyad.func import functional_call, vmap  # noqa: F401  (vmap: the doctests)

__all__ = ["make_functional", "make_functional_with_buffers", "combine_state_for_ensemble",
           "FunctionalModule", "FunctionalModuleWithBuffers"]


class FunctionalModule(pyad.nn.Module):
    """What `make_functional` returns: ``fmodel(params, *args, **kwargs)`` calls a copy
    of the model with ``params`` (in ``named_parameters`` order) as its parameters."""

    def __init__(self, stateless_model, param_names, buffer_names=()):
        super().__init__()
        self.stateless_model = stateless_model
        self.param_names = tuple(param_names)
        self.buffer_names = tuple(buffer_names)

    def _call(self, values, names, args, kwargs):
        op = type(self).__name__
        if not _is_sequence(values):
            raise TypeError("%s(): expected a sequence of Variables as parameters and "
                            "buffers, got %s" % (op, type(values).__name__))
        values = tuple(values)
        if len(values) != len(names):
            raise RuntimeError("%s(): expected %d parameters and buffers, got %d"
                               % (op, len(names), len(values)))
        for name, value in zip(names, values):
            if not isinstance(value, pyad.Variable):
                raise TypeError("%s(): '%s' must be a Variable, got %s"
                                % (op, name, type(value).__name__))
        return functional_call(self.stateless_model, dict(zip(names, values)), tuple(args),
                               kwargs)

    def forward(self, params, *args, **kwargs):
        return self._call(params, self.param_names, args, kwargs)


class FunctionalModuleWithBuffers(FunctionalModule):
    """What `make_functional_with_buffers` returns: ``fmodel(params, buffers, *args,
    **kwargs)``."""

    def forward(self, params, buffers, *args, **kwargs):
        for what, values in (("parameters", params), ("buffers", buffers)):
            if not _is_sequence(values):
                raise TypeError("FunctionalModuleWithBuffers(): expected a sequence of "
                                "Variables as %s, got %s" % (what, type(values).__name__))
        return self._call(tuple(params) + tuple(buffers),
                          self.param_names + self.buffer_names, args, kwargs)


def _is_sequence(values):
    return isinstance(values, (tuple, list)) or (
        hasattr(values, "__len__") and hasattr(values, "__getitem__")
        and not isinstance(values, (str, bytes, dict, pyad.Variable)))


def _check_module(model, op):
    # functorch fails with AttributeError on a non-module (model.buffers): same type,
    # but a message that says what was wrong
    if not isinstance(model, pyad.nn.Module):
        raise AttributeError("%s(): expected an nn.Module, got %s"
                             % (op, type(model).__name__))


def _functional_copy(model, disable_autograd_tracking):
    # a deep copy holds the structure; its own parameters (new leaves, requiring grad as
    # the model's) are what the caller differentiates
    copied = copy.deepcopy(model)
    pairs = list(copied.named_parameters())
    names, params = tuple(n for n, _ in pairs), tuple(p for _, p in pairs)
    if disable_autograd_tracking:
        for p in params:
            p._mark_requires_grad(False)
    buffer_pairs = list(copied.named_buffers())
    return copied, tuple(names), tuple(params), buffer_pairs


def make_functional(model, disable_autograd_tracking=False):
    """``(fmodel, params)`` for a model without buffers, as functorch's
    ``make_functional``: ``fmodel(params, *args)`` runs the model with ``params``, so
    transforms can differentiate with respect to them (``grad(lambda p: loss(fmodel(p,
    x)))(params)``). ``params`` are a copy's parameters (the model is not touched);
    ``disable_autograd_tracking=True`` makes them not require grad. A model with buffers
    is refused: use `make_functional_with_buffers`.

    >>> fmodel, params = make_functional(pyad.nn.Linear(2, 1))
    >>> [tuple(p.shape) for p in params]
    [(1, 2), (1,)]
    >>> fmodel(params, pyad.ones(3, 2)).shape
    (3, 1)
    """
    _check_module(model, "make_functional")
    if any(True for _ in model.buffers()):
        raise RuntimeError("make_functional(model): `model` has buffers. Please use "
                           "make_functional_with_buffers(model) instead.")
    copied, names, params, _ = _functional_copy(model, disable_autograd_tracking)
    return FunctionalModule(copied, names), params


def make_functional_with_buffers(model, disable_autograd_tracking=False):
    """``(fmodel, params, buffers)``, as functorch's ``make_functional_with_buffers``:
    ``fmodel(params, buffers, *args)`` runs the model with those parameters and buffers
    (see `make_functional`).

    >>> fmodel, params, buffers = make_functional_with_buffers(pyad.nn.BatchNorm1d(2))
    >>> len(params), len(buffers)
    (2, 3)
    """
    _check_module(model, "make_functional_with_buffers")
    copied, names, params, buffer_pairs = _functional_copy(model, disable_autograd_tracking)
    buffer_names = tuple(n for n, _ in buffer_pairs)
    buffers = tuple(b for _, b in buffer_pairs)
    return FunctionalModuleWithBuffers(copied, names, buffer_names), params, buffers


def combine_state_for_ensemble(models):
    """``(fmodel, params, buffers)`` for same-class models, as functorch's
    ``combine_state_for_ensemble``: each entry of ``params`` and ``buffers`` stacks the
    models' (a new leading dimension, detached), for ``vmap(fmodel, (0, 0, None))(params,
    buffers, x)``.

    >>> models = [pyad.nn.Linear(3, 2) for _ in range(4)]
    >>> fmodel, params, buffers = combine_state_for_ensemble(models)
    >>> vmap(fmodel, (0, 0, None))(params, buffers, pyad.ones(5, 3)).shape
    (4, 5, 2)
    """
    if not hasattr(models, "__len__") or isinstance(models, pyad.nn.Module):
        raise TypeError("combine_state_for_ensemble(): expected a sequence of nn.Modules, "
                        "got %s" % type(models).__name__)
    models = list(models)
    if len(models) == 0:
        raise RuntimeError("combine_state_for_ensemble(): Expected at least one model, got 0.")
    for m in models:
        _check_module(m, "combine_state_for_ensemble")
    if not (all(m.training for m in models) or all(not m.training for m in models)):
        raise RuntimeError("combine_state_for_ensemble(): Expected all models to have the same "
                           "training/eval mode.")
    if not all(type(m) is type(models[0]) for m in models):
        raise RuntimeError("combine_state_for_ensemble(): Expected all models to be of the same "
                           "class.")
    made = [make_functional_with_buffers(m) for m in models]
    first = made[0][0]
    for k, (fmodel, params, buffers) in enumerate(made[1:], 1):
        if fmodel.param_names + fmodel.buffer_names != first.param_names + first.buffer_names:
            raise RuntimeError("combine_state_for_ensemble(): model %d's parameters and "
                               "buffers are not named as model 0's" % k)
        for name, a, b in zip(first.param_names + first.buffer_names,
                              made[0][1] + made[0][2], params + buffers):
            if tuple(a.shape) != tuple(b.shape):
                raise RuntimeError("combine_state_for_ensemble(): '%s' has shape %s in model "
                                   "%d but %s in model 0" % (name, list(b.shape), k,
                                                             list(a.shape)))

    def stacked(index):
        return tuple(pyad.stack(entries).detach()
                     for entries in zip(*(parts[index] for parts in made)))

    return made[0][0], stacked(1), stacked(2)
