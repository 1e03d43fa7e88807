"""``pyad.autograd.forward_ad``: torch's forward-mode AD API (dual Variables).

Inside a `dual_level`, `make_dual` attaches a tangent to a Variable and
`unpack_dual` returns any Variable computed from such duals as
``(primal, tangent)``, where the tangent is the Jacobian-vector product of the
computation with the tangents of the duals it depends on (``None`` when it
depends on none). Only one level at a time, as torch; tangents are gone once the
level is exited.

pyad's forward mode runs on the reverse-mode engine (no per-op forward formulas):
tangents are computed lazily, when `unpack_dual` asks, by two reverse passes (the
double-vjp trick of `pyad.func.jvp`): a dual is recorded as a function of a fresh
private leaf standing for its primal, the first pass differentiates the output with
respect to those leaves against a placeholder cotangent ``u`` with
``create_graph=True``, and the second one differentiates that (linear in ``u``) with
respect to ``u`` in the direction of the tangents. Results are cached per level, so
unpacking the same Variable again is free. A custom Function that defines ``jvp`` is
the exception: when it is applied, its outputs get the tangents its ``jvp`` returns,
each carried by a private leaf as a dual's (`_apply_with_jvp`). Differences from torch
are listed in docs/functional.md.

>>> import pyad.autograd.forward_ad as fwAD
>>> x = pyad.tensor([1., 2.], dtype=pyad.float64)
>>> with fwAD.dual_level():
...     y = fwAD.make_dual(x, pyad.ones(2, dtype=pyad.float64)) ** 3
...     fwAD.unpack_dual(y).tangent
tensor([ 3., 12.], dtype=float64)
"""
import weakref
from typing import NamedTuple, Optional

import pyad
from pyad._engine import Variable
from pyad.autograd.function import Function
from pyad.autograd.grad_mode import _GradModeContext, enable_grad, is_grad_enabled, \
    set_grad_enabled

__all__ = ["UnpackedDualTensor", "enter_dual_level", "exit_dual_level", "make_dual",
           "unpack_dual", "dual_level"]

_current_level = -1
_level_state = None          # the _Level of _current_level (None outside any level)
_private = {}                # id -> weakref of the AccumulateGrad node of every private
                             # primal leaf made (nodes outlive their leaves)
_in_tangent_pass = [False]   # True while unpack_dual runs its two reverse passes

# Forward grad mode (torch's private switch, `_set_fwd_grad_enabled`). While it is off,
# unpack_dual gives no tangent, a custom Function's jvp is not called, and the ops run
# then propagate none, even when unpacked after it is back on (their outputs are
# constants of forward mode). pyad's tangents are computed later, by reverse passes
# over the graph, so the ops recorded while it was off are known by their nodes'
# sequence numbers: [first, end) ranges of them, kept while a level exists.
_fwd_grad_enabled = [True]
_fwd_off_ranges = []         # [first, end) sequence numbers; end None while off
_sequence_probe = []         # a private leaf whose product gives the next number
# > 0 while pyad.func's jvp/linearize/jacfwd run their function: they record the ranges
# too (outside any level) and treat those ops as constants, as torch's transforms do
_func_recording = [0]


def _next_sequence_nr():
    """The sequence number the next recorded node will get (the probe's node takes
    one number, so this is its number plus one)."""
    if not _sequence_probe:
        _sequence_probe.append(Variable(0.0)._mark_requires_grad(True))
    with pyad.inference_mode(False), enable_grad():
        return _sequence_probe[0].mul(1.0).grad_fn._sequence_nr() + 1


def _active():
    """Whether a level exists and forward grad mode is on: when custom Functions' jvps
    run and ops with their own forward formula take it (F.embedding)."""
    return _level_state is not None and _fwd_grad_enabled[0]


def _is_fwd_grad_enabled():
    """Whether forward grad mode is on (torch's private ``_is_fwd_grad_enabled``).

    >>> import pyad.autograd.forward_ad as fwAD
    >>> fwAD._is_fwd_grad_enabled()
    True
    """
    return _fwd_grad_enabled[0]


def _set_fwd_grad_mode(mode):
    # (torch._C._set_fwd_grad_enabled: pyad._C exposes it)
    mode = bool(mode)
    if mode == _fwd_grad_enabled[0]:
        return
    if not mode:
        if _level_state is not None or _func_recording[0]:
            _fwd_off_ranges.append([_next_sequence_nr(), None])
    elif _fwd_off_ranges and _fwd_off_ranges[-1][1] is None:
        _fwd_off_ranges[-1][1] = _next_sequence_nr()
    _fwd_grad_enabled[0] = mode


class _set_fwd_grad_enabled(_GradModeContext):
    """Sets forward grad mode on or off (torch's private context manager and
    decorator): set when made, the previous mode back on exit.

    >>> import pyad.autograd.forward_ad as fwAD
    >>> with fwAD._set_fwd_grad_enabled(False):
    ...     fwAD._is_fwd_grad_enabled()
    False
    >>> fwAD._is_fwd_grad_enabled()
    True
    """

    def __init__(self, mode):
        self.prev = _fwd_grad_enabled[0]
        self._mode = bool(mode)
        _set_fwd_grad_mode(self._mode)

    def __enter__(self):
        _set_fwd_grad_mode(self._mode)    # (again, for a decorated function's calls)

    def __exit__(self, exc_type, exc_value, traceback):
        _set_fwd_grad_mode(self.prev)
        return False

    def clone(self):
        return type(self)(self._mode)


def _made_while_off(node):
    """Whether ``node`` was recorded while forward grad mode was off (make_dual's
    nodes excepted: torch attaches the tangent then too)."""
    if not _fwd_off_ranges:
        return False
    seq = node._sequence_nr()
    for first, end in _fwd_off_ranges:
        if first <= seq and (end is None or seq < end):
            return type(node).__name__ not in ("_MakeDualBackward", "AccumulateGrad")
    return False


class _Level:
    __slots__ = ("level", "leaves", "tangents", "leaf_ids", "duals", "cache", "marked")

    def __init__(self, level):
        self.level = level
        self.leaves = []      # private primal leaves of the duals made at this level
        self.tangents = []    # weak references to their _MakeDual nodes, which hold the
                              # tangents cast to the leaf's dtype (so a tangent lives as
                              # long as a Variable computed from its dual)
        self.leaf_ids = set()  # ids of their AccumulateGrad nodes
        self.duals = {}       # id(dual) -> (weakref(dual), version, tangent as given)
        self.cache = {}       # id(var) -> (weakref(var), version, tangent)
        # (entries of duals and cache go when their Variable does)
        self.marked = set()   # ids of private leaves whose duals _require_grad marked


def _forget(key):
    _private.pop(key, None)


def _version_of(var):
    try:
        return var._version
    except RuntimeError:          # an inference Variable has no version counter
        return None


def _weak_entry(table, key, var):
    """A weak reference to ``var`` that removes ``table[key]`` when ``var`` goes (if
    the entry is still the one made with it)."""
    def drop(ref, table=table, key=key):
        entry = table.get(key)
        if entry is not None and entry[0] is ref:
            del table[key]
    return weakref.ref(var, drop)


class _MakeDual(Function):
    """The dual: ``tensor``'s values, recorded as a function of ``tensor`` (so reverse
    mode reaches the user's leaves) and of the private primal leaf."""

    @staticmethod
    def forward(ctx, tensor, leaf):
        return tensor.detach()

    @staticmethod
    def backward(ctx, grad):
        return grad, grad


class _Primal(Function):
    """unpack_dual's primal: an alias that passes reverse-mode gradients on, but carries
    no tangent (cut while unpack_dual computes tangents)."""

    @staticmethod
    def forward(ctx, tensor):
        return tensor.detach()

    @staticmethod
    def backward(ctx, grad):
        if _in_tangent_pass[0]:
            return None
        return grad


class _JvpOutput(Function):
    """A custom Function's output under forward AD: its values, recorded as a function
    of the output (reverse mode goes on through the Function's backward) and of a
    private primal leaf that carries the tangent its ``jvp`` gave. While unpack_dual
    computes tangents, nothing flows back into the Function's backward."""

    @staticmethod
    def forward(ctx, tensor, leaf):
        return tensor.detach()

    @staticmethod
    def backward(ctx, grad):
        if _in_tangent_pass[0]:
            return None, grad
        return grad, grad


class _JvpCut(Function):
    """A custom Function's output whose ``jvp`` gave no tangent (None)."""

    @staticmethod
    def forward(ctx, tensor):
        return tensor.detach()

    @staticmethod
    def backward(ctx, grad):
        if _in_tangent_pass[0]:
            return None
        return grad


def _reaches(var, stop, cut=False, off=None):
    """Walk ``var``'s graph; ``stop(node)`` is called on each leaf's AccumulateGrad node
    reached (the leaf itself may be gone: the node outlives it) and the walk returns True
    as soon as it returns True. With ``cut``, the walk does not go past unpack_dual's
    primals nor the nodes recorded while forward grad mode was off (they carry no
    tangent); those met are appended to the list ``off`` if given."""
    fn = var.grad_fn
    if fn is None:
        return False
    seen, todo = {id(fn)}, [fn]
    while todo:
        node = todo.pop()
        if type(node).__name__ == "AccumulateGrad" and stop(node):
            return True
        name = type(node).__name__
        if cut and name in ("_PrimalBackward", "_JvpCutBackward"):
            continue
        if cut and _made_while_off(node):
            if off is not None:
                off.append(node)
            continue
        edges = getattr(node, "next_functions", ()) or ()
        if cut and name == "_JvpOutputBackward":
            # the tangent of a custom Function's output is the one its jvp gave (the
            # private leaf), not one through the Function's backward
            edges = edges[1:]
        for nxt, _ in edges:
            if nxt is not None and id(nxt) not in seen:
                seen.add(id(nxt))
                todo.append(nxt)
    return False


def _is_private(node):
    ref = _private.get(id(node))
    return ref is not None and ref() is node


def _depends_on_user_leaf(var):
    if not var.requires_grad:
        return False
    if var.grad_fn is None:       # a leaf: the user's, or one of the private ones
        return not any(leaf is var for leaf in (_level_state.leaves if _level_state else ()))
    marked = _level_state.marked if _level_state is not None else ()
    return _reaches(var, lambda node: not _is_private(node) or id(node) in marked)


def _require_grad(dual):
    """torch's ``make_dual(x, t).requires_grad_(True)`` on an ``x`` that does not
    require grad: the dual becomes a leaf of reverse mode, so what is computed from it,
    tangents included, carries history (a forward-over-reverse Hessian's result
    requires grad, as torch's). A pyad dual already records a graph (to a private
    leaf); this makes that leaf count as the user's. Returns ``dual``."""
    state = _level_state
    if state is None or dual.grad_fn is None or dual.grad_fn.name() != "_MakeDualBackward":
        return dual._mark_requires_grad(True)
    state.marked.add(id(dual.grad_fn.next_functions[1][0]))
    return dual


def _depends_on_level(var, state):
    return var.requires_grad and var.grad_fn is not None and _reaches(
        var, lambda node: id(node) in state.leaf_ids and _is_private(node), cut=True)


def enter_dual_level():
    """Enter a new forward AD level and make it the current one; returns its number.

    Only one level may exist at a time (torch refuses nesting with RuntimeError).

    >>> import pyad.autograd.forward_ad as fwAD
    >>> level = fwAD.enter_dual_level()
    >>> level
    0
    >>> fwAD.exit_dual_level()
    """
    global _current_level, _level_state
    if _current_level >= 0:
        raise RuntimeError("enter_dual_level(): Nested forward mode AD is not supported at "
                           "the moment")
    _current_level = 0
    _level_state = _Level(0)
    # (nodes recorded before a level cannot reach its duals: no earlier range matters)
    del _fwd_off_ranges[:]
    if not _fwd_grad_enabled[0]:
        _fwd_off_ranges.append([_next_sequence_nr(), None])
    return _current_level


def exit_dual_level(*, level=None):
    """Exit forward AD level ``level`` (the current one by default), deleting every
    tangent of that level; only the last level entered may be exited.

    >>> import pyad.autograd.forward_ad as fwAD
    >>> fwAD.enter_dual_level()
    0
    >>> fwAD.exit_dual_level()
    """
    global _current_level, _level_state
    if level is None:
        level = _current_level
    if level != _current_level:
        raise RuntimeError("exit_dual_level(): Trying to exit a forward AD level that was not "
                           "the last one that was created. This is not supported.")
    if level < 0:
        raise RuntimeError("exit_dual_level(): Dual level must be a positive number.")
    state, _level_state = _level_state, None
    _current_level = level - 1
    del _fwd_off_ranges[:]
    if state is not None:
        state.cache.clear()
        state.duals.clear()
        state.leaves.clear()
        state.tangents.clear()
        state.marked.clear()


def _resolve_level(level, api, invalid):
    if level is None:
        level = _current_level
    if level >= 0 and level != _current_level:
        raise RuntimeError("%s(): %s" % (api, invalid))
    return level


def _storage_numel(v):
    # elements of the memory block a Variable's array views (torch's storage numel)
    array = v.data
    while isinstance(getattr(array, "base", None), type(array)):
        array = array.base
    return array.size


def make_dual(tensor, tangent, *, level=None):
    """A dual Variable: ``tensor``'s values (the result aliases its memory) with
    ``tangent`` attached at ``level`` (the current level by default).

    Reverse mode flows through the result to ``tensor`` as usual. Errors as torch:
    RuntimeError outside a level, for another level, for a tangent of another shape,
    or for a ``tensor`` that already has a tangent at this level; ValueError for a
    primal or tangent that is not floating point or complex.

    >>> import pyad.autograd.forward_ad as fwAD
    >>> with fwAD.dual_level():
    ...     d = fwAD.make_dual(pyad.tensor([1., 2.]), pyad.tensor([1., 0.]))
    ...     fwAD.unpack_dual(d.exp()).tangent
    tensor([2.7183, 0.0000])
    """
    if level is None:
        level = _current_level
    if level < 0:
        raise RuntimeError("make_dual(): Trying to create a dual Tensor for forward AD but no "
                           "level exists, make sure to enter_dual_level() first.")
    if level != _current_level:
        raise RuntimeError("make_dual(): Invalid level given to _make_dual")
    for what, value in (("primal", tensor), ("tangent", tangent)):
        if not isinstance(value, Variable):
            # torch fails on the missing ``is_floating_point`` with AttributeError
            raise AttributeError("make_dual(): expected the %s to be a Variable, got %s "
                                 "(it has no attribute 'is_floating_point')"
                                 % (what, type(value).__name__))
        if not (value.is_floating_point() or value.is_complex()):
            raise ValueError("make_dual(): Expected %s to be floating point or complex, but "
                             "got: %s" % (what, value.dtype))
    if tuple(tangent.shape) != tuple(tensor.shape):
        raise RuntimeError(
            "make_dual(): Trying to set a forward gradient that has a different size than that "
            "of the original Tensor, this is not supported. Tensor is of size %s while the "
            "given forward gradient is of size %s."
            % (list(tensor.shape), list(tangent.shape)))
    if tangent.numel() and _storage_numel(tangent) != _storage_numel(tensor):
        # torch reuses the tangent as given only when it is laid out like the primal; a
        # primal viewing a larger (or smaller) memory block gets a copy, so an in-place
        # change of the unpacked tangent does not reach the one given
        tangent = tangent.clone()
    state = _level_state
    if _depends_on_level(tensor, state):
        raise RuntimeError("make_dual(): Making a dual Tensor based on a Tensor that already "
                           "has a forward gradient at the same level %d is not supported."
                           % level)
    if _depends_on_level(tangent, state):
        raise RuntimeError("make_dual(): Setting a forward grad that itself has a forward "
                           "gradient at the same level%d is not supported." % level)
    if pyad.is_inference_mode_enabled():
        # no graph is recorded here: the dual is an alias of ``tensor`` whose tangent
        # unpack_dual gives back, but no op propagates it
        dual = tensor.detach()
        state.duals[id(dual)] = (_weak_entry(state.duals, id(dual), dual), None, tangent,
                                 None)
        return dual
    with enable_grad():
        leaf = tensor.detach()._mark_requires_grad(True)
        dual = _MakeDual.apply(tensor, leaf)
    node = dual.grad_fn.next_functions[1][0]    # the private leaf's AccumulateGrad
    _private[id(node)] = weakref.ref(node, lambda _, key=id(node): _forget(key))
    state.leaves.append(leaf)
    state.leaf_ids.add(id(node))
    cast = tangent if tangent.dtype == tensor.dtype else tangent.to(dtype=tensor.dtype)
    dual.grad_fn._fw_tangent = cast
    state.tangents.append(weakref.ref(dual.grad_fn))
    state.duals[id(dual)] = (_weak_entry(state.duals, id(dual), dual), dual._version, tangent,
                             weakref.ref(dual.grad_fn))
    return dual


class UnpackedDualTensor(NamedTuple):
    """The ``(primal, tangent)`` namedtuple returned by `unpack_dual`."""

    primal: Variable
    tangent: Optional[Variable]


def _primal_of(tensor):
    if _depends_on_user_leaf(tensor):
        with enable_grad():
            return _Primal.apply(tensor)
    return tensor.detach()


def _cut_nodes(var):
    """The nodes of ``var``'s graph recorded while forward grad mode was off (the walk
    does not go past them)."""
    found = []
    if _fwd_off_ranges:
        _reaches(var, lambda node: False, cut=True, off=found)
    return found


def _zero_grads(grad_outputs):
    return tuple(None if g is None else pyad.zeros_like(g) for g in grad_outputs)


def _tangent_of(tensor, state):
    if not _depends_on_level(tensor, state):
        return None
    # An op recorded while forward grad mode was off passes no tangent on: for the two
    # passes its node sends zeros upstream (its output is a constant of forward mode).
    handles = [node.register_prehook(_zero_grads) for node in _cut_nodes(tensor)]
    try:
        return _tangent_passes(tensor, state)
    finally:
        for handle in handles:
            handle.remove()


def _tangent_passes(tensor, state):
    outer = is_grad_enabled()
    with enable_grad():
        u = pyad.zeros_like(tensor)._mark_requires_grad(True)
        _in_tangent_pass[0] = True
        try:
            firsts = pyad.autograd.grad([tensor], state.leaves, [u], create_graph=True,
                                        allow_unused=True)
            # (a leaf whose _MakeDual node is gone is not reached: its g is None)
            used = [(g, ref()._fw_tangent) for g, ref in zip(firsts, state.tangents)
                    if g is not None and g.requires_grad and ref() is not None]
            keep = outer and (any(t.requires_grad for _, t in used)
                              or _depends_on_user_leaf(tensor))
            image = None
            if used:
                with set_grad_enabled(keep):
                    image, = pyad.autograd.grad([g for g, _ in used], [u],
                                                [t for _, t in used], create_graph=keep,
                                                allow_unused=True)
        finally:
            _in_tangent_pass[0] = False
    if image is None:
        return pyad.zeros_like(tensor)
    return image if keep else image.detach()


def unpack_dual(tensor, *, level=None):
    """``UnpackedDualTensor(primal, tangent)`` of ``tensor`` at ``level`` (the current
    level by default).

    ``primal`` aliases ``tensor``'s values and carries no tangent (reverse mode still
    flows through it); ``tangent`` is the Jacobian-vector product of the computation
    of ``tensor`` with the tangents of the duals it depends on, or None when it depends
    on none, or outside a level (then ``primal`` is ``tensor`` itself). For a dual made
    by `make_dual` the tangent is the one given, as-is. Computed lazily by two reverse
    passes and cached until the level is exited.

    >>> import pyad.autograd.forward_ad as fwAD
    >>> x = pyad.tensor([1., 2.], dtype=pyad.float64)
    >>> with fwAD.dual_level():
    ...     out = fwAD.make_dual(x, pyad.tensor([1., 1.], dtype=pyad.float64)).sum()
    ...     primal, tangent = fwAD.unpack_dual(out)
    >>> primal, tangent
    (tensor(3., dtype=float64), tensor(2., dtype=float64))
    """
    if level is None:
        level = _current_level
    if level < 0 or _level_state is None:
        return UnpackedDualTensor(tensor, None)
    if not isinstance(tensor, Variable):
        raise TypeError("unpack_dual(): argument 'tensor' must be a Variable, not %s"
                        % type(tensor).__name__)
    state = _level_state
    if level != _current_level:
        if _depends_on_level(tensor, state):
            raise RuntimeError("unpack_dual(): Invalid level given to _fw_primal")
        return UnpackedDualTensor(_primal_of(tensor), None)
    if not _fwd_grad_enabled[0]:
        return UnpackedDualTensor(_primal_of(tensor), None)     # (torch: no tangent then)
    key = id(tensor)
    version = _version_of(tensor)
    hit = state.cache.get(key)
    if hit is not None and hit[0]() is tensor and hit[1] == version:
        # (a new primal each time, as torch's unpack_dual gives a new view each time)
        return UnpackedDualTensor(_primal_of(tensor), hit[2])
    dual = state.duals.get(key)
    if dual is not None and dual[0]() is tensor and (
            dual[1] == version
            or (dual[3] is not None and tensor.grad_fn is dual[3]())):
        # the dual as made (its history unchanged: an in-place change of the Variable
        # it aliases, made without a tangent, leaves its tangent alone): the tangent
        # as given, the same object (torch)
        tangent = dual[2]
    else:
        tangent = _tangent_of(tensor, state)
    state.cache[key] = (_weak_entry(state.cache, key, tensor), version, tangent)
    return UnpackedDualTensor(_primal_of(tensor), tangent)


_in_repr = [False]


def _tangent_repr(var):
    """The text of ``var``'s tangent at the current level for its repr (torch prints
    ``tangent=...``), or None when it has none. Called by ``Variable.__repr__``."""
    if _in_repr[0] or _in_tangent_pass[0] or _level_state is None:
        return None
    _in_repr[0] = True          # (the tangent's own repr shows no tangent)
    try:
        tangent = unpack_dual(var).tangent
        return None if tangent is None else repr(tangent)
    finally:
        _in_repr[0] = False


class dual_level(_GradModeContext):
    """Context manager (and function decorator) for forward AD: enters a level on
    entry (``with dual_level() as level``) and exits it, deleting its tangents, on exit.

    >>> import pyad.autograd.forward_ad as fwAD
    >>> with fwAD.dual_level():
    ...     out = fwAD.make_dual(pyad.tensor([3.]), pyad.tensor([1.])) ** 2
    ...     fwAD.unpack_dual(out).tangent
    tensor([6.])
    >>> fwAD.unpack_dual(out).tangent is None
    True
    """

    def __enter__(self):
        return enter_dual_level()

    def __exit__(self, exc_type, exc_value, traceback):
        exit_dual_level()
        return False


def _attach_tangent(output, tangent, state):
    """``output`` as a Variable whose tangent at ``state``'s level is ``tangent`` (a
    custom Function's jvp result), as make_dual records a dual."""
    with enable_grad():
        leaf = output.detach()._mark_requires_grad(True)
        dual = _JvpOutput.apply(output, leaf)
    node = dual.grad_fn.next_functions[1][0]
    _private[id(node)] = weakref.ref(node, lambda _, key=id(node): _forget(key))
    state.leaves.append(leaf)
    state.leaf_ids.add(id(node))
    cast = tangent if tangent.dtype == output.dtype else tangent.to(dtype=output.dtype)
    dual.grad_fn._fw_tangent = cast
    state.tangents.append(weakref.ref(dual.grad_fn))
    state.duals[id(dual)] = (_weak_entry(state.duals, id(dual), dual), dual._version, tangent,
                             weakref.ref(dual.grad_fn))
    return dual


class _JvpContext:
    """The ctx a Function's ``jvp`` sees after ``ctx.save_for_forward``: its
    ``saved_tensors`` are those Variables (as primals); everything else is the ctx's
    own. (A proxy here, so that the backward's ``ctx.saved_tensors`` pays nothing.)"""

    __slots__ = ("_ctx", "saved_tensors")

    def __init__(self, ctx, saved):
        object.__setattr__(self, "_ctx", ctx)
        object.__setattr__(self, "saved_tensors", saved)

    def __getattr__(self, name):
        return getattr(self._ctx, name)

    def __setattr__(self, name, value):
        setattr(self._ctx, name, value)


def _check_view_tangent(output, tangent, args, tangents, given):
    """torch's check of a custom Function's jvp for an output that its forward made as a
    view of an input which has a tangent: the output's tangent must be a view of that
    input's tangent (of the same base, where the input is itself a view). An input
    returned as-is is exempt (its output aliases the input's very array)."""
    if not output._is_view():
        return
    base = output._base
    for i, arg in enumerate(args):
        if not isinstance(arg, Variable) or not given[i]:
            continue
        if output.data is arg.data:
            return                                  # an input returned as-is
        if (arg._base if arg._is_view() else arg) is not base:
            continue
        if not tangent._is_view():
            raise RuntimeError("A custom Function's forward is returning a view (or an input "
                               "as-is) but the jvp is not returning a view.")
        passed = tangents[i]
        if tangent._base is passed or (passed._is_view() and tangent._base is passed._base):
            return
        if arg._is_view():
            raise RuntimeError("A custom Function is returning a view but the jvp is not "
                               "returning a view of the same base as the given grad input.")
        raise RuntimeError("A custom Function is returning a view but the jvp is not "
                           "returning a view of the given grad input.")


def _apply_with_jvp(cls, args, kwargs, separate_setup_context):
    """``cls.apply(*args, **kwargs)`` inside a level for a custom Function that defines
    ``jvp``: when an input has a tangent, ``jvp(ctx, *tangents)`` gives those of the
    outputs (torch: a Variable input without one gets zeros, any other argument None;
    ``ctx.saved_tensors`` is then what ``ctx.save_for_forward`` kept, as primals)."""
    from pyad import _engine
    state = _level_state
    tangents = []
    any_tangent = False
    for arg in args:
        if not isinstance(arg, Variable):
            tangents.append(None)
            continue
        tangent = unpack_dual(arg).tangent
        if tangent is not None:
            any_tangent = True
            made = state.duals.get(id(arg))
            if made is None or made[0]() is not arg or made[2] is not tangent:
                # a computed tangent may alias a dual's (an identity's backward hands
                # the cotangent on): a jvp that updates it in place must not reach those
                tangent = tangent.clone()
        elif arg.is_floating_point() or arg.is_complex():
            tangent = pyad.zeros_like(arg)
        tangents.append(tangent)
    given = [isinstance(a, Variable) and unpack_dual(a).tangent is not None for a in args]
    outputs = _engine._function_apply(cls, cls._backward_cls, args, kwargs,
                                      separate_setup_context)
    if not any_tangent:
        return outputs
    is_tuple = isinstance(outputs, tuple)
    outs = list(outputs) if is_tuple else [outputs]
    ctx = next((o.grad_fn for o in outs if isinstance(o, Variable)
                and type(o.grad_fn) is cls._backward_cls), None)
    if ctx is None:
        # nothing recorded (grad mode off, or no differentiable output): pyad's forward
        # mode runs on the reverse-mode graph, so there is nothing to carry a tangent
        return outputs
    saved = ctx.__dict__.get("_saved_for_forward")
    jvp_ctx = ctx if saved is None else _JvpContext(
        ctx, tuple(t if t is None else _primal_of(t) for t in saved))
    result = cls.jvp(jvp_ctx, *tangents)
    result = result if isinstance(result, tuple) else (result,)
    if len(result) != len(outs):
        raise RuntimeError("Function's jvp returned an invalid number of forward gradients "
                           "(expected %d but got %d)" % (len(outs), len(result)))
    for k, (output, tangent) in enumerate(zip(outs, result)):
        if not isinstance(output, Variable) or output.grad_fn is not ctx:
            continue
        dirty = [a for a in args if a is output]
        if dirty:
            # an input modified in place: its tangent must be modified in place too
            # (torch); pyad then computes it through the backward (the Variable cannot
            # be replaced by one carrying the jvp's tangent)
            position = next(p for p, a in enumerate(args) if a is output)
            if tangent is not None and tangent is not tangents[position]:
                raise RuntimeError(
                    "inplace custom Function is not modifying the forward mode gradients "
                    "inplace. If the forward is modifying an input inplace, then the jvp "
                    "function must modify the corresponding gradient inplace.")
            continue
        if tangent is None:
            with enable_grad():
                outs[k] = _JvpCut.apply(output)
            continue
        if not isinstance(tangent, Variable):
            raise TypeError("Function's jvp must return Variables or None, got %s for "
                            "output %d" % (type(tangent).__name__, k))
        if tuple(tangent.shape) != tuple(output.shape):
            raise RuntimeError(
                "Trying to set a forward gradient that has a different size than that of "
                "the original Tensor, this is not supported. Tensor is of size %s while the "
                "given forward gradient is of size %s."
                % (list(output.shape), list(tangent.shape)))
        _check_view_tangent(output, tangent, args, tangents, given)
        outs[k] = _attach_tangent(output, tangent, state)
    return tuple(outs) if is_tuple else outs[0]
