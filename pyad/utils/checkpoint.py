"""``pyad.utils.checkpoint``: trade compute for memory, as ``torch.utils.checkpoint``.

``checkpoint(function, *args, use_reentrant=...)`` runs ``function`` without keeping
the values its backward would need, and runs it again during the backward pass to get
them back. Only the checkpoint's inputs (and the parameters it uses) stay alive between
the forward and the backward pass, so a deep model's activation memory falls to one
segment at a time.

The two modes follow torch's:

- ``use_reentrant=False`` (recommended, as torch): gradients reach the checkpoint's
  inputs and every Variable requiring grad that ``function`` uses (a module's
  parameters, say), through ``backward()`` and ``grad()`` alike, and of any order (the
  recomputation is recorded under ``create_graph``). Keyword arguments are passed to
  ``function``. pyad finds the parameters by recording the forward once and keeping
  only its leaves (the graph is dropped at once); a Variable with history that
  ``function`` reaches other than through its arguments cannot be found this way: then
  the recorded graph is kept (correct gradients, no memory saved) with a warning.
  The backward recomputes on detached stand-ins of the arguments, so a leaf reached
  both inside ``function`` and through an argument's history is counted once each way,
  and the same layer may be checkpointed twice in a row. Under ``create_graph`` the
  recomputation runs on the arguments themselves (gradients of any order) unless an
  argument's history reaches a leaf the function uses or another argument (a path
  out of the function and back in, which that would count twice): then it runs on the
  stand-ins and their share of the gradients' history is bound back to the arguments
  (a function whose value is zero and whose gradient is the stand-ins'). First and
  second derivatives are then exact; a third derivative through such a checkpoint is
  not (the stand-ins' share inside the second derivative's own graph is lost): pass
  the shared leaf as an argument, or do not checkpoint that block, for third order.
- ``use_reentrant=True``: ``function`` runs without recording; the backward recomputes
  it and runs a nested ``backward()`` on it, which accumulates into the parameters'
  ``.grad`` directly. As in torch, the output requires grad only if an input does,
  ``grad()`` and ``backward(inputs=...)`` through it raise ``RuntimeError`` (its nested
  backward could not give them the gradients they capture), and keyword arguments
  are refused.

With ``preserve_rng_state=True`` (the default) the recomputation draws the same random
numbers as the forward (dropout masks), from the default generator, and leaves that
generator where it was.
"""
import contextlib
import warnings

import pyad
from pyad import _engine
from pyad._engine import AccumulateGrad, Variable
from pyad._factories import default_generator

__all__ = ["CheckpointError", "checkpoint", "checkpoint_sequential",
           "set_checkpoint_debug_enabled", "set_checkpoint_early_stop"]


# -- the random state --------------------------------------------------------------------

def _rng_state():
    return default_generator._rng.bit_generator.state


@contextlib.contextmanager
def _replayed_rng(state):
    # Run with the default generator at `state` (None: as it is), then put back the
    # state it had, so a recomputation neither changes nor consumes the user's stream.
    if state is None:
        yield
        return
    bit_generator = default_generator._rng.bit_generator
    current = bit_generator.state
    bit_generator.state = state
    try:
        yield
    finally:
        bit_generator.state = current


def _as_outputs(outputs):
    # (the Variables among the outputs, a function rebuilding the outputs from them)
    if isinstance(outputs, Variable):
        return [outputs], lambda vs: vs[0]
    if isinstance(outputs, (tuple, list)):
        positions = [i for i, o in enumerate(outputs) if isinstance(o, Variable)]
        kind = type(outputs)

        def rebuild(vs):
            items = list(outputs)
            for i, v in zip(positions, vs):
                items[i] = v
            return tuple(items) if kind is tuple else items
        return [outputs[i] for i in positions], rebuild
    return [], lambda vs: outputs


# -- the autocast state ------------------------------------------------------------------

def _autocast_state():
    # (per device type: enabled, dtype; then the cache flag), as torch's checkpoint saves
    # its device and CPU autocast kwargs to recompute under them
    from pyad.amp import autocast_mode
    return (tuple((d, autocast_mode.is_autocast_enabled(d), autocast_mode.get_autocast_dtype(d))
                  for d in autocast_mode._DEVICE_TYPES),
            autocast_mode.is_autocast_cache_enabled())


@contextlib.contextmanager
def _replayed_autocast(state):
    # Run with the autocast state the forward ran under (None: as it is), then put back
    # the state found, so the recomputation casts as the forward did.
    if state is None:
        yield
        return
    from pyad.amp import autocast_mode
    current = _autocast_state()
    devices, cache_enabled = state
    for device_type, enabled, dtype in devices:
        autocast_mode.set_autocast_enabled(device_type, enabled)
        autocast_mode.set_autocast_dtype(device_type, dtype)
    autocast_mode.set_autocast_cache_enabled(cache_enabled)
    try:
        yield
    finally:
        devices, cache_enabled = current
        for device_type, enabled, dtype in devices:
            autocast_mode.set_autocast_enabled(device_type, enabled)
            autocast_mode.set_autocast_dtype(device_type, dtype)
        autocast_mode.set_autocast_cache_enabled(cache_enabled)


# -- use_reentrant=False ------------------------------------------------------------------

def _leaves_used(outputs, args, start):
    """The leaves requiring grad that the graph of ``outputs`` (recorded from sequence
    number ``start`` on) reaches, not counting ``args``; None if it also reaches a
    Variable with history other than through ``args``."""
    arg_nodes = set()
    for a in args:
        if isinstance(a, Variable) and a.grad_fn is not None:
            arg_nodes.add(a.grad_fn)
    arg_ids = {id(a) for a in args if isinstance(a, Variable)}
    leaves, seen = [], set()
    stack = [o.grad_fn for o in outputs if o.grad_fn is not None]
    while stack:
        node = stack.pop()
        if node is None or node in seen:
            continue
        seen.add(node)
        if isinstance(node, AccumulateGrad):
            variable = node.variable
            if id(variable) not in arg_ids:
                leaves.append(variable)
            continue
        if node in arg_nodes:
            continue
        if node._sequence_nr() < start:
            return None                  # history reached around the arguments
        stack.extend(edge[0] for edge in node.next_functions)
    return leaves


class _Checkpoint(pyad.autograd.Function):
    # forward(ctx, *variables, state): `variables` are the Variable arguments, then the
    # leaves found; `state` holds the function, its other arguments, the random state
    # and the outputs already computed (as plain Variables). (`state` comes last so the
    # node's first edge is the first argument's, as the first edge of torch's
    # checkpointed graph is.)

    @staticmethod
    def forward(ctx, *args):
        state, variables = args[-1], args[:-1]
        ctx.state = state
        ctx.save_for_backward(*variables)
        outputs = state["outputs"]
        state["outputs"] = None
        ctx.mark_non_differentiable(*[o for o, d in zip(outputs, state["differentiable"])
                                      if not d])
        return tuple(outputs) if len(outputs) != 1 else outputs[0]

    @staticmethod
    def backward(ctx, *grads):
        state = ctx.state
        variables = list(ctx.saved_tensors)
        n_args = len(state["arg_positions"])
        create_graph = pyad.is_grad_enabled()
        # Recompute on detached stand-ins of the arguments: the gradient of a leaf the
        # function uses then counts only the paths inside the function (the paths
        # through an argument's own history get the argument's gradient from the
        # engine), and no argument's history is traversed here (it may be another
        # checkpoint's output, whose backward runs once, later). One stand-in per
        # distinct argument (checkpoint(f, w, w) passes w twice).
        # Under create_graph, when no argument's history reaches a leaf the function uses
        # or another argument, recompute on the arguments themselves instead: nothing is
        # counted twice, and the gradients' history is the real one, exact to any order.
        real_args, standin_of = [], {}
        on_standins = not create_graph or _histories_overlap(variables[:n_args],
                                                             variables[n_args:])
        for i in range(n_args if on_standins else 0):
            v = variables[i]
            if id(v) not in standin_of:
                # (an argument without gradient has no history to cut: torch recomputes
                # on the object itself, so a Function saving it gets that very object)
                standin_of[id(v)] = v.detach()._mark_requires_grad(True) if v.requires_grad \
                    else v
                real_args.append(v)
            variables[i] = standin_of[id(v)]
        args = list(state["args"])
        for position, v in zip(state["arg_positions"], variables[:n_args]):
            args[position] = v
        recompute_context = state.get("recompute_context") or contextlib.nullcontext()
        # The determinism check logs what the recomputation saves, through hooks whose
        # holders are emptied after the gradients are taken; under create_graph the
        # gradients' own graph uses those values later, and a node saving its output
        # through a hook holds itself (a cycle the collector alone frees), so a
        # create_graph recomputation runs unhooked and unchecked.
        saved = state["saved"]
        recomputed = _SavedLog(saved.metadata_fn)
        hooks = recomputed.hooks() if not create_graph else contextlib.nullcontext()
        with _replayed_rng(state["rng"]), _replayed_autocast(state.get("autocast")), \
                pyad.enable_grad(), recompute_context, hooks:
            outputs, _ = _as_outputs(state["function"](*args, **state["kwargs"]))
        if not create_graph:
            _check_recomputed(saved, recomputed, state["early_stop"], state["debug"])
        if len(outputs) != len(grads):
            raise RuntimeError("checkpoint(): the recomputed function returned %d Variables, "
                               "the forward returned %d" % (len(outputs), len(grads)))
        roots, root_grads = [], []
        for o, g in zip(outputs, grads):
            if g is not None and o.requires_grad:
                roots.append(o)
                root_grads.append(g)
        targets, seen = [], set()
        for i, v in enumerate(variables):
            if v.requires_grad and id(v) not in seen:
                seen.add(id(v))
                targets.append((i, v))
        result = [None] * len(variables)
        if roots and targets:
            found = pyad.autograd.grad(roots, [v for _, v in targets], root_grads,
                                       allow_unused=True, create_graph=create_graph)
            if create_graph and on_standins:
                # The gradients' history reaches the stand-ins, not the arguments: bind
                # it back to them, so the second order flows through the arguments'
                # graph (a third order misses the stand-ins' share inside the graph
                # of the second: see the module's description).
                found = _rebound(list(found), [standin_of[id(a)] for a in real_args],
                                 real_args)
            for (i, _), g in zip(targets, found):
                result[i] = g
        recomputed.drop()
        return tuple(result) + (None,)


class CheckpointError(RuntimeError):
    """The recomputation of a checkpointed function did not match its forward pass
    (``torch.utils.checkpoint.CheckpointError``)."""


def _default_metadata(v):
    return {"shape": tuple(v.shape), "dtype": v.dtype, "device": v.device}


_METADATA_OF = {"default": _default_metadata, "none": lambda v: None}

_DEBUG_TIP = ("\nTip: To see a more detailed error message, either pass `debug=True` to "
              "`pyad.utils.checkpoint.checkpoint(...)` or wrap the code block with `with "
              "pyad.utils.checkpoint.set_checkpoint_debug_enabled(True):` to enable "
              "checkpoint-debug mode globally.\n")

_DEBUG_EXPLANATION = (
    "\nERROR: Detected non-determinism while running activation checkpointing\n\n"
    "You are seeing this error because you passed `debug=True` to checkpoint and Variables "
    "to be saved during the original forward and differ between those saved during "
    "recomputation. This can happen if different operators were ran in the original "
    "forward and in the recomputation (a branch on global state, a random draw outside "
    "the default generator).\nSaved during the original forward (shape, dtype):\n%s\n"
    "Saved during recomputation:\n%s\n")


class _SavedLog:
    """The Variables saved for backward while a checkpointed function runs (through
    saved-tensor hooks, as torch's checkpoint finds them), for the determinism check.

    Each saved Variable is kept in a one-element holder: a node saving its own output
    would otherwise hold itself through the hook's packed object (a cycle, freed only by
    the collector), and the forward run's graph is meant to go at once; `drop` empties
    the holders."""

    def __init__(self, metadata_fn):
        self.metadata_fn = metadata_fn
        self.metadata = []
        self.described = []
        self.holders = []

    def _pack(self, v):
        self.metadata.append(self.metadata_fn(v))
        self.described.append("  %s %s" % (tuple(v.shape), v.dtype))
        holder = [v]
        self.holders.append(holder)
        return holder

    def hooks(self):
        return pyad.autograd.graph.saved_tensors_hooks(self._pack, _unpacked)

    def drop(self):
        for holder in self.holders:
            holder[0] = None
        self.holders = []


def _unpacked(holder):
    if holder[0] is None:
        raise RuntimeError("checkpoint(): a value saved in the checkpointed forward pass "
                           "was used after the pass's graph was dropped")
    return holder[0]


def _check_recomputed(forward, recomputed, early_stop, debug):
    # torch's three checks: fewer Variables saved in the recomputation, more of them
    # (only without early stop: torch stops recomputing once it has them all), and the
    # same number with different metadata (determinism_check="default")
    tip = _DEBUG_EXPLANATION % ("\n".join(forward.described), "\n".join(
        recomputed.described)) if debug else _DEBUG_TIP
    n, m = len(forward.metadata), len(recomputed.metadata)
    if m < n:
        raise CheckpointError(
            "checkpoint(): A different number of Variables was saved during the original "
            "forward and recomputation.\nNumber of Variables saved during forward: %d\n"
            "Number of Variables saved during recomputation: %d.\n%s" % (n, m, tip))
    if m > n and not early_stop:
        raise CheckpointError("checkpoint(): trying to save more Variables during "
                              "recomputation than during the original forward pass.\n%s"
                              % tip)
    lines = ["Variable at position %d:\nsaved metadata: %s\nrecomputed metadata: %s\n"
             % (i, before, now)
             for i, (before, now) in enumerate(zip(forward.metadata, recomputed.metadata))
             if before != now]
    if lines:
        raise CheckpointError("checkpoint(): Recomputed values for the following "
                              "Variables have different metadata than during the forward "
                              "pass.\n%s.\n%s" % ("".join(lines), tip))


def _histories_overlap(args, leaves):
    """Whether the history of one of ``args`` reaches one of ``leaves`` or another of
    ``args`` (a path out of the checkpointed function and back in)."""
    # (leaves are told apart by their arrays: ctx.saved_tensors gives new Variables)
    # (an unpacked saved leaf may show its accumulator as grad_fn)
    leaf_ids = {id(v.data) for v in leaves}
    arg_nodes = set()
    for a in args:
        if a.requires_grad:
            if a.grad_fn is None or isinstance(a.grad_fn, AccumulateGrad):
                leaf_ids.add(id(a.data))
            else:
                arg_nodes.add(a.grad_fn)
    seen = set()
    for a in args:
        if not a.requires_grad or a.grad_fn is None or isinstance(a.grad_fn, AccumulateGrad):
            continue
        stack = [edge[0] for edge in a.grad_fn.next_functions]
        while stack:
            node = stack.pop()
            if node is None or node in seen:
                continue
            seen.add(node)
            if node in arg_nodes:
                return True
            if isinstance(node, AccumulateGrad):
                if id(node.variable.data) in leaf_ids:
                    return True
                continue
            stack.extend(edge[0] for edge in node.next_functions)
    return False


class _Rebind(pyad.autograd.Function):
    # Zeros shaped like `values` (computed from `standins`, detached copies of `args`)
    # whose gradient w.r.t. `args` is that of `values` w.r.t. the stand-ins: added to
    # the values, it carries their dependence on the stand-ins over to the arguments.

    @staticmethod
    def forward(ctx, link, *args):
        ctx.link = link
        ctx.save_for_backward(*args)
        zeros = tuple(pyad.zeros_like(v) for v in link[0])
        return zeros if len(zeros) != 1 else zeros[0]

    @staticmethod
    def backward(ctx, *upstream):
        values, standins = ctx.link
        args = ctx.saved_tensors
        pairs = [(value, u) for value, u in zip(values, upstream) if u is not None]
        if not pairs:
            return (None,) * (1 + len(args))
        create_graph = pyad.is_grad_enabled()
        grads = pyad.autograd.grad([value for value, _ in pairs], standins,
                                   [u for _, u in pairs], retain_graph=True,
                                   allow_unused=True, create_graph=create_graph)
        if create_graph:
            grads = _rebound(list(grads), standins, args)     # and so on, to any order
        return (None,) + tuple(grads)


def _rebound(values, standins, args):
    """``values`` (computed from ``standins``) with their history bound to ``args``."""
    live = [i for i, v in enumerate(values) if v is not None and v.requires_grad]
    if not live or not any(a.requires_grad for a in args):
        return values
    zeros = _Rebind.apply(([values[i] for i in live], standins), *args)
    if isinstance(zeros, Variable):
        zeros = (zeros,)
    for i, z in zip(live, zeros):
        values[i] = values[i] + z
    return values


def _checkpoint_without_reentrant(function, preserve_rng_state, args, kwargs,
                                  context_fn=None, determinism_check="default",
                                  early_stop=True, debug=False):
    # context_fn() gives two context managers, as torch's: the forward runs in the
    # first, the recomputation during backward in the second
    forward_context, recompute_context = (context_fn() if context_fn is not None else
                                          (contextlib.nullcontext(), None))
    if not pyad.is_grad_enabled():
        with forward_context:
            return function(*args, **kwargs)       # nothing is recorded anyway
    rng = _rng_state() if preserve_rng_state else None
    autocast = _autocast_state()
    # nodes recorded from here on have sequence numbers above this probe's
    start = (pyad.zeros((), requires_grad=True) * 1.0).grad_fn._sequence_nr() + 1
    saved = _SavedLog(_METADATA_OF[determinism_check])
    with forward_context, saved.hooks():
        result = function(*args, **kwargs)
    outputs, rebuild = _as_outputs(result)
    differentiable = [o.requires_grad for o in outputs]
    if not any(differentiable):
        return result
    leaves = _leaves_used([o for o, d in zip(outputs, differentiable) if d], args, start)
    if leaves is None:
        warnings.warn("checkpoint(): the function uses a Variable with history that is not "
                      "one of its arguments; pass it as an argument to checkpoint it. Its "
                      "graph is kept as recorded (no memory is saved).", stacklevel=3)
        return result
    arg_positions = [i for i, a in enumerate(args) if isinstance(a, Variable)]
    state = {"function": function, "args": args, "kwargs": kwargs, "rng": rng,
             "autocast": autocast, "recompute_context": recompute_context,
             "arg_positions": arg_positions, "differentiable": differentiable,
             "outputs": [o.detach() for o in outputs],
             "saved": saved, "early_stop": early_stop, "debug": debug}
    saved.drop()
    del result, outputs                        # the recorded graph goes here
    out = _Checkpoint.apply(*[args[i] for i in arg_positions], *leaves, state)
    if isinstance(out, Variable):
        return rebuild([out])
    # Several outputs: each gets a node of its own (a copy) above the shared one, as
    # each output of torch's checkpoint has its own node, so a hook on one output's
    # grad_fn does not run in a backward pass from another output.
    return rebuild([o.clone() if o.requires_grad else o for o in out])


# -- use_reentrant=True -------------------------------------------------------------------

class _ReentrantCheckpoint(pyad.autograd.Function):

    @staticmethod
    def forward(ctx, function, rng, *args):
        ctx.function, ctx.rng = function, rng
        ctx.autocast = _autocast_state()
        ctx.args = [None if isinstance(a, Variable) else a for a in args]
        # (the arguments' own flags: a saved argument that forward returns as-is unpacks
        # as that output, which requires grad when another argument does)
        ctx.args_requires_grad = [isinstance(a, Variable) and a.requires_grad for a in args]
        ctx.save_for_backward(*[a if isinstance(a, Variable) else None for a in args])
        outputs = function(*args)                  # (recording is off in forward)
        return outputs

    @staticmethod
    def backward(ctx, *grads):
        if not _engine._is_checkpoint_valid():
            raise RuntimeError(
                "When use_reentrant=True, pyad.utils.checkpoint is incompatible with .grad() or "
                "passing an `inputs` parameter to .backward(). To resolve this error, you "
                "can either set use_reentrant=False, or call .backward() without passing "
                "the `inputs` argument.")
        args = list(ctx.args)
        for i, v in enumerate(ctx.saved_tensors):
            if v is not None:
                detached = v.detach()
                detached.requires_grad = ctx.args_requires_grad[i]
                args[i] = detached
        with _replayed_rng(ctx.rng), _replayed_autocast(ctx.autocast), pyad.enable_grad():
            result = ctx.function(*args)
        outputs, _ = _as_outputs(result)
        if isinstance(result, (tuple, list)) and len(grads) == len(result) != len(outputs):
            # one gradient per output, None for the non-Variable ones: keep the
            # Variables' own (torch's checkpoint pairs them by position)
            grads = [grads[i] for i, o in enumerate(result) if isinstance(o, Variable)]
        roots, root_grads = [], []
        for o, g in zip(outputs, grads):
            if g is not None and o.requires_grad:
                roots.append(o)
                root_grads.append(g)
        if not roots:
            raise RuntimeError("none of output has requires_grad=True, this checkpoint() "
                               "is not necessary")
        pyad.autograd.backward(roots, root_grads)
        return (None, None) + tuple(a.grad if isinstance(a, Variable) else None
                                    for a in args)


def _checkpoint_reentrant(function, preserve_rng_state, args, kwargs):
    if kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))
    if pyad.is_grad_enabled() and not any(isinstance(a, Variable) and a.requires_grad
                                          for a in args):
        warnings.warn("None of the inputs have requires_grad=True. Gradients will be None",
                      stacklevel=3)
    rng = _rng_state() if preserve_rng_state else None
    return _ReentrantCheckpoint.apply(function, rng, *args)


# -- the public functions -----------------------------------------------------------------

# Global settings of the context managers below (None: each checkpoint's own argument).
_early_stop = [None]
_debug = [None]


@contextlib.contextmanager
def set_checkpoint_early_stop(enable):
    """Set, for the checkpoints run inside the block, whether their recomputation may stop
    once it has recomputed every value the backward pass needs, as
    ``torch.utils.checkpoint.set_checkpoint_early_stop`` (it overrides
    ``checkpoint(..., early_stop=)``). pyad's recomputation always runs the whole
    function, so the setting never changes the results; as in torch, without early stop a
    recomputation that saves more Variables than the forward did raises `CheckpointError`.

    >>> import pyad
    >>> from pyad.utils.checkpoint import checkpoint, set_checkpoint_early_stop
    >>> x = pyad.tensor(1.0, requires_grad=True)
    >>> with set_checkpoint_early_stop(False):
    ...     y = checkpoint(lambda t: t.sin(), x, use_reentrant=False)
    >>> y.backward()
    >>> round(x.grad.item(), 4)
    0.5403
    """
    previous = _early_stop[0]
    _early_stop[0] = bool(enable)
    try:
        yield
    finally:
        _early_stop[0] = previous


@contextlib.contextmanager
def set_checkpoint_debug_enabled(enabled):
    """Set, for the checkpoints run inside the block, whether a `CheckpointError` lists
    the Variables saved in the forward and in the recomputation, as
    ``torch.utils.checkpoint.set_checkpoint_debug_enabled`` (it overrides
    ``checkpoint(..., debug=)``; None defers to it).

    >>> from pyad.utils.checkpoint import set_checkpoint_debug_enabled
    >>> with set_checkpoint_debug_enabled(True):
    ...     pass
    """
    previous = _debug[0]
    _debug[0] = None if enabled is None else bool(enabled)
    try:
        yield
    finally:
        _debug[0] = previous


def checkpoint(function, *args, use_reentrant=None, context_fn=None,
               determinism_check="default", debug=False, early_stop=True,
               preserve_rng_state=True, **kwargs):
    """Run ``function(*args, **kwargs)`` without keeping its intermediate values for the
    backward pass, which recomputes them, as ``torch.utils.checkpoint.checkpoint``.

    Parameters
    ----------
    function : callable
        A function of Variables (a module, a block of layers).
    *args
        Its arguments; Variables among them get gradients.
    use_reentrant : bool
        Pass it explicitly, as torch asks (None warns and means True, torch's default):
        False is the recommended mode (see the module's description).
    preserve_rng_state : bool
        Replay the default generator's random numbers in the recomputation (default).
    context_fn : callable
        ``use_reentrant=False`` only, as torch: returns two context managers, the first
        entered around the forward, the second around the recomputation in backward.
    determinism_check : str
        ``use_reentrant=False`` only, as torch: ``"default"`` checks that the
        recomputation saves as many Variables for backward as the forward did, with the
        same shapes, dtypes and devices (else `CheckpointError`); ``"none"`` checks only
        their number.
    debug : bool
        A `CheckpointError` lists the Variables saved in both runs.
    early_stop : bool
        torch stops the recomputation once it has every saved value; pyad always runs
        the whole function, and, as torch, raises for extra saved Variables only when
        early stop is off.
    **kwargs
        Passed to ``function`` (``use_reentrant=False`` only, as torch).

    Returns
    -------
    What ``function`` returns.

    Examples
    --------
    >>> import pyad
    >>> from pyad.utils.checkpoint import checkpoint
    >>> layer = pyad.nn.Linear(3, 3)
    >>> x = pyad.ones(2, 3, requires_grad=True)
    >>> y = checkpoint(lambda t: layer(t).tanh(), x, use_reentrant=False)
    >>> y.sum().backward()
    >>> layer.weight.grad.shape
    (3, 3)
    """
    if determinism_check not in ("default", "none"):
        raise ValueError("checkpoint(): determinism_check should be one of ['default', "
                         "'none'], but got %s" % (determinism_check,))
    if _early_stop[0] is not None:
        early_stop = _early_stop[0]
    if _debug[0] is not None:
        debug = _debug[0]
    if use_reentrant is None:
        warnings.warn("pyad.utils.checkpoint: the use_reentrant parameter should be passed "
                      "explicitly; use_reentrant=False is recommended (None means True, "
                      "torch's default).", stacklevel=2)
        use_reentrant = True
    if use_reentrant and (context_fn is not None or debug):
        raise ValueError("checkpoint(): Passing `context_fn` or `debug` is only supported "
                         "when use_reentrant=False.")
    if use_reentrant:
        return _checkpoint_reentrant(function, preserve_rng_state, args, kwargs)
    return _checkpoint_without_reentrant(function, preserve_rng_state, args, kwargs,
                                         context_fn, determinism_check, early_stop, debug)


def checkpoint_sequential(functions, segments, input, use_reentrant=None, **kwargs):
    """Run a sequence of functions (an ``nn.Sequential`` or a list of modules) in
    ``segments`` checkpointed chunks, the last one run normally, as
    ``torch.utils.checkpoint.checkpoint_sequential``.

    >>> import pyad
    >>> from pyad.utils.checkpoint import checkpoint_sequential
    >>> model = pyad.nn.Sequential(pyad.nn.Linear(4, 4), pyad.nn.Tanh(), pyad.nn.Linear(4, 1))
    >>> y = checkpoint_sequential(model, 2, pyad.ones(3, 4), use_reentrant=False)
    >>> y.shape
    (3, 1)
    """
    if use_reentrant is None:
        warnings.warn("pyad.utils.checkpoint: the use_reentrant parameter should be passed "
                      "explicitly; use_reentrant=False is recommended (None means True, "
                      "torch's default).", stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))
    if hasattr(functions, "children") and not isinstance(functions, (list, tuple)):
        functions = list(functions.children())
    functions = list(functions)
    if int(segments) != segments or segments < 1:
        raise ValueError("checkpoint_sequential(): segments must be a positive integer, "
                         "got %r" % (segments,))
    size = max(len(functions) // int(segments), 1)

    def run(start, end):
        def forward(x):
            for j in range(start, end + 1):
                x = functions[j](x)
            return x
        return forward

    end = -1
    for start in range(0, size * (int(segments) - 1), size):
        end = start + size - 1
        if end >= len(functions) - 1:
            end = start - 1
            break
        input = checkpoint(run(start, end), input, use_reentrant=use_reentrant,
                           preserve_rng_state=preserve)
    return run(end + 1, len(functions) - 1)(input)
