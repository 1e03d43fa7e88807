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
        values = tuple(values)
        if len(values) != len(names):
            raise RuntimeError("%s(): expected %d parameters and buffers, got %d"
                               % (type(self).__name__, len(names), len(values)))
        return functional_call(self.stateless_model, dict(zip(names, values)), tuple(args),
                               kwargs)

    def forward(self, params, *args, **kwargs):
        return self._call(params, self.param_names, args, kwargs)


class FunctionalModuleWithBuffers(FunctionalModule):
    """What `make_functional_with_buffers` returns: ``fmodel(params, buffers, *args,
    **kwargs)``."""

    def forward(self, params, buffers, *args, **kwargs):
        return self._call(tuple(params) + tuple(buffers),
                          self.param_names + self.buffer_names, args, kwargs)


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
    models = list(models)
    if len(models) == 0:
        raise RuntimeError("combine_state_for_ensemble(): Expected at least one model, got 0.")
    if not (all(m.training for m in models) or all(not m.training for m in models)):
        raise RuntimeError("combine_state_for_ensemble(): Expected all models to have the same "
                           "training/eval mode.")
    if not all(type(m) is type(models[0]) for m in models):
        raise RuntimeError("combine_state_for_ensemble(): Expected all models to be of the same "
                           "class.")
    made = [make_functional_with_buffers(m) for m in models]

    def stacked(index):
        return tuple(pyad.stack(entries).detach()
                     for entries in zip(*(parts[index] for parts in made)))

    return made[0][0], stacked(1), stacked(2)
