"""The PyTorch bridge: torch functions as pyad operations and back, to any order.

Each direction records one node per call. Its backward asks the other framework for
the vector-Jacobian product on the same buffers; when a graph of the backward is wanted
(``create_graph=True``), that request is itself a bridged node over the same inputs,
so the next order flows through the other framework again.
"""
import functools
import warnings

import numpy

from .. import _engine
from ..autograd import grad as _pyad_grad
from ._common import import_extra, bump_version

Variable = _engine.Variable
_numpy_layout = _engine._numpy_layout
_torch = None
_torch_C = None


_run_backward = None      # torch's engine call behind torch.autograd.grad
_run_engine = None        # the C++ engine's run_backward itself (CPU backward only)
_from_numpy = None
_Tensor = None


def _import_torch(what):
    global _torch, _torch_C, _run_backward, _run_engine, _from_numpy, _Tensor
    if _torch is None:
        torch = import_extra("torch", "torch", what)
        _torch_C = torch._C
        # the engine call behind torch.autograd.grad (a private function: without it,
        # torch.autograd.grad itself)
        _run_backward = getattr(getattr(torch.autograd, "graph", None),
                                "_engine_run_backward", None)
        # and the C++ engine's own entry point, which _engine_run_backward wraps with a
        # logging-level test and a context stash for the device threads (about 2 us):
        # a CPU backward runs on the calling thread, so it needs neither
        engine = getattr(getattr(getattr(torch.autograd, "variable", None), "Variable", None),
                         "_execution_engine", None)
        _run_engine = getattr(engine, "run_backward", None) if _run_backward else None
        _from_numpy = torch.from_numpy
        _Tensor = torch.Tensor
        _torch = torch
    return _torch


# -- zero-copy views -------------------------------------------------------------------
#
# On the CPU, torch.from_numpy / Tensor.numpy() share memory and cost about 2 and 3 us;
# the DLPack round trip (torch's Python-level __dlpack__/from_dlpack) costs about 15 us.
# DLPack stays for what NumPy cannot hold or torch.from_numpy cannot take: CuPy/CUDA
# data, bfloat16 and float8 (ml_dtypes), byte-swapped data, conjugate/negative views.

_FROM_NUMPY = frozenset()       # NumPy dtypes torch.from_numpy takes
_TO_NUMPY = frozenset()         # torch dtypes Tensor.numpy() gives without a copy


def _torch_view(var):
    """A torch tensor sharing ``var``'s memory (no grad, no history).

    Negative strides are the exception: torch has none, so such data is copied (a
    write by torch into that copy would be lost, and is refused by ``from_torch``).
    Read-only memory is shared as it is (torch has no read-only tensors; torch's own
    warning for it is silenced here and a write is refused by ``from_torch``)."""
    data = var.data
    layout = _numpy_layout(data)
    if layout == 0:
        try:
            return _from_numpy(data)
        except (TypeError, ValueError):     # a dtype torch lacks (bfloat16), byte-swapped
            pass
    elif layout == 1:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", UserWarning)
                return _from_numpy(data)
        except (TypeError, ValueError):
            pass
    elif layout == 2 and data.dtype in _FROM_NUMPY:
        return _from_numpy(numpy.ascontiguousarray(data))
    return _torch.from_dlpack(var.detach())


def _array_of(tensor):
    """The array (NumPy or CuPy) sharing a torch tensor's memory, for a pyad Variable."""
    if tensor.requires_grad:
        tensor = tensor.detach()
    try:
        return tensor.numpy()                        # the fast route (CPU, NumPy dtypes)
    except (RuntimeError, TypeError):                # conj/neg bits, bfloat16, CUDA:
        pass                                         # DLPack resolves them
    return _engine.from_dlpack(tensor).data


def _pyad_view(tensor):
    """A pyad Variable sharing a torch tensor's memory (no grad, no history)."""
    return _engine.Variable(_array_of(tensor))


def _bridge_hooks():
    """What the engine's :func:`_bridge_plain` and :func:`_bridge_call` need from torch
    (made once)."""
    global _HOOKS
    if _HOOKS is None:
        _HOOKS = _engine._BridgeHooks(
            _from_numpy, _torch_view, _torch_C.is_grad_enabled, _torch_C._set_grad_enabled,
            _Tensor.numpy, _array_of, _Tensor, _as_tuple, _written,
            node_cls=TorchFunctionBackward, vjp=_torch_vjp, general=_general,
            requires_grad=_Tensor.requires_grad_, detach=_Tensor.detach,
            run_engine=_run_engine, direct_vjp=_torch_vjp_direct)
    return _HOOKS


_HOOKS = None


def _init_dtypes():
    global _FROM_NUMPY, _TO_NUMPY
    if not _TO_NUMPY:
        t = _torch
        pairs = [("float16", t.float16), ("float32", t.float32), ("float64", t.float64),
                 ("int8", t.int8), ("int16", t.int16), ("int32", t.int32),
                 ("int64", t.int64), ("uint8", t.uint8), ("bool", t.bool),
                 ("complex64", t.complex64), ("complex128", t.complex128)]
        for name in ("uint16", "uint32", "uint64"):
            if hasattr(t, name):
                pairs.append((name, getattr(t, name)))
        _FROM_NUMPY = frozenset(numpy.dtype(n) for n, _ in pairs)
        # complex tensors may carry a lazy conjugate bit that .numpy() refuses: DLPack
        _TO_NUMPY = frozenset(d for n, d in pairs if not n.startswith("complex"))


def _address(data):
    interface = getattr(data, "__array_interface__", None) or \
        getattr(data, "__cuda_array_interface__", None)
    return None if interface is None else interface["data"][0]


# -- torch inside pyad -------------------------------------------------------------------

def _as_tuple(outputs, what, allow_none=False):
    if type(outputs) is _Tensor:                     # the common case: one tensor
        return (outputs,), True
    if isinstance(outputs, (tuple, list)):
        single = False
        outputs = tuple(outputs)
    else:
        outputs, single = (outputs,), True
    tensor = _Tensor
    for o in outputs:
        if not isinstance(o, tensor) and not (allow_none and o is None):
            raise TypeError("from_torch(): the function %s must return a torch.Tensor or a "
                            "tuple of them, got %s" % (what, type(o).__name__))
    return outputs, single


class TorchFunctionBackward(_engine._BridgeNode):
    """The node of one call of a torch function (or of its VJP) in pyad's graph."""


def _bridged(fn, args, kwargs, record, leaves, what):
    """Run ``fn`` on torch tensors sharing the memory of ``args``' Variables and return
    its outputs as Variables sharing theirs (and whether it returned a single tensor).

    With ``record``, one node is recorded: the Variables requiring grad enter ``fn`` as
    torch leaves requiring grad, and the node's backward is torch's VJP on that graph
    (:func:`_torch_vjp`, itself a call of this function). ``leaves`` (or None) gives, per
    argument, a torch tensor to use instead of a new view (the VJP passes the leaves
    the forward recorded, so that torch differentiates its graph with respect to them).
    """
    n = len(args)
    t_args = list(args)
    t_inputs = [None] * n
    versions = None if leaves is None else [0] * n
    for i in range(n):
        a = args[i]
        if isinstance(a, Variable):
            t = None if leaves is None else leaves[i]
            if t is None:
                t = _torch_view(a)                   # a new view: its version is 0
                if record and a.requires_grad and (t.is_floating_point() or t.is_complex()):
                    t.requires_grad_(True)
            else:
                versions[i] = t._version
            t_args[i] = t_inputs[i] = t
    previous = _torch_C.is_grad_enabled()
    if previous is not record:
        _torch_C._set_grad_enabled(record)
        try:
            outputs = fn(*t_args, **kwargs)
        finally:
            _torch_C._set_grad_enabled(previous)
    else:
        outputs = fn(*t_args, **kwargs)
    outputs, single = _as_tuple(outputs, what, leaves is not None)
    for i in range(n):
        t = t_inputs[i]
        if t is not None and t._version != (0 if versions is None else versions[i]):
            _written(args[i], t, what)
    if single:
        o = outputs[0]
        arrays = (None if o is None else _array_of(o),)
    else:
        arrays = tuple(None if o is None else _array_of(o) for o in outputs)
    if record:
        differentiable = tuple(o is not None and o.requires_grad for o in outputs)
        if True in differentiable:
            state = (t_inputs, outputs, what)
            return _engine._bridge_record(TorchFunctionBackward, _torch_vjp, state, args,
                                          arrays, differentiable), single
    return _engine._bridge_record(None, None, None, args, arrays, ()), single


def _general(fn, args, kwargs, what):
    # the recorded call the engine's _bridge_call leaves to Python (see _bridged)
    outputs, single = _bridged(fn, args, kwargs, True, None, what)
    return outputs[0] if single else tuple(outputs)


def _written(var, tensor, what):
    # torch wrote into the Variable's memory: pyad must know, or values it saved for a
    # backward would be used stale without an error.
    data = var.data
    if _address(data) != tensor.data_ptr() and data.size:
        raise RuntimeError("from_torch(): %s modified in place an argument whose data torch "
                           "received as a copy (torch has no negative strides), so the "
                           "change cannot reach the Variable; pass a contiguous Variable"
                           % what)
    if not getattr(getattr(data, "flags", None), "writeable", True):
        raise RuntimeError("from_torch(): %s modified in place an argument whose memory is "
                           "read-only (shared with torch, which has no read-only tensors)"
                           % what)
    bump_version(var)


def _torch_vjp(state, inputs, grads):
    """The backward of a bridged call: torch's vector-Jacobian product over the graph the
    forward recorded, as a bridged call of the inputs and the incoming gradients (so it
    is recorded, and differentiable again, when pyad builds a graph of the backward)."""
    t_inputs, t_outputs, what = state
    n = len(t_inputs)
    if n == 1 and len(t_outputs) == 1:               # the common case, without lists
        t, o, g = t_inputs[0], t_outputs[0], grads[0]
        if t is None or inputs[0] is None or g is None or not t.requires_grad \
                or not o.requires_grad:
            return [None]
        wanted, used = [0], [0]
    else:
        wanted = [i for i in range(n)
                  if t_inputs[i] is not None and inputs[i] is not None
                  and t_inputs[i].requires_grad]
        used = [j for j, g in enumerate(grads) if g is not None and t_outputs[j].requires_grad]
        if not wanted or not used:
            return [None] * n
    xs = [inputs[i] for i in wanted]
    gs = [grads[j] for j in used]
    t_xs = tuple([t_inputs[i] for i in wanted])
    t_os = tuple([t_outputs[j] for j in used])
    record = False
    if _engine.is_grad_enabled():
        for v in xs + gs:
            if v.requires_grad:
                record = True
                break
    if not record:
        vjps = _torch_vjp_direct(t_os, t_xs, gs, what)
    else:
        k = len(xs)

        def vjp(*tensors):
            leaves = tensors[:k]
            if _run_backward is None:
                return _torch.autograd.grad(t_os, leaves, tensors[k:], retain_graph=True,
                                            create_graph=True, allow_unused=True,
                                            materialize_grads=True)
            result = _run_backward(t_os, tensors[k:], True, True, leaves, True,
                                   accumulate_grad=False)
            return tuple(_torch.zeros_like(x, requires_grad=True) if r is None else r
                         for r, x in zip(result, leaves))

        vjps, _ = _bridged(vjp, tuple(xs + gs), {}, True, list(t_xs) + [None] * len(gs),
                           "the backward of " + what)
    result = [None] * n
    for i, g in zip(wanted, vjps):
        result[i] = g
    return result


def _torch_vjp_direct(t_os, t_xs, gs, what):
    """The first-order VJP (nothing recorded): torch's engine on views of the incoming
    gradients, the results as plain Variables sharing their memory."""
    t_gs = tuple([_torch_view(g) for g in gs])
    previous = _torch_C.is_grad_enabled()
    if previous:
        _torch_C._set_grad_enabled(False)
    try:
        if _run_backward is None:
            result = _torch.autograd.grad(t_os, t_xs, t_gs, retain_graph=True,
                                          allow_unused=True)
        elif _run_engine is not None and t_xs[0].is_cpu and t_os[0].is_cpu:
            # torch.autograd.grad's own engine call, without its argument normalisation
            # and checks (the gradients are tensors of the outputs' shapes and dtypes
            # already: pyad's gradients of them), nor _engine_run_backward's logging
            # test and context stash (a CPU backward runs on this thread)
            result = _run_engine(t_os, t_gs, True, False, t_xs, True, False)
        else:
            result = _run_backward(t_os, t_gs, True, False, t_xs, True,
                                   accumulate_grad=False)
    finally:
        if previous:
            _torch_C._set_grad_enabled(True)
    return [None if r is None else Variable(_array_of(r)) for r in result]


def from_torch(fn):
    """Wrap a function of torch tensors as a differentiable function of pyad Variables.

    The wrapped function runs ``fn`` on torch tensors that share the Variables' memory
    and returns Variables that share the outputs' memory. Its gradient is torch's
    vector-Jacobian product, itself a bridged operation, so ``create_graph=True`` and
    gradients of any order flow through torch. Positional Variables are differentiable;
    other arguments (and keyword arguments) are passed through unchanged.

    Parameters
    ----------
    fn : callable
        Takes torch tensors (and other arguments), returns a tensor or a tuple of them.

    Returns
    -------
    callable
        The same function on pyad Variables.

    Examples
    --------
    >>> import torch
    >>> sin = pyad.interop.from_torch(torch.sin)
    >>> x = pyad.tensor([0.0, 1.0], requires_grad=True)
    >>> sin(x).sum().backward()
    >>> x.grad
    tensor([1.0000, 0.5403])
    """
    _import_torch("pyad.interop.from_torch()")
    _init_dtypes()
    _hooks = _bridge_hooks()
    what = _name(fn)
    profiling = _engine._bridge_profiling
    call = _engine._bridge_call
    event = "from_torch(%s)" % what

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        if kwargs:
            for k, v in kwargs.items():
                if isinstance(v, Variable):
                    raise TypeError("from_torch(): pass Variables positionally (keyword %r "
                                    "of %s is a Variable)" % (k, what))
        if profiling():                              # one event: from_torch(fn)
            return _engine._bridge_profiled(event, call, (_hooks, fn, args, kwargs, what), {})
        return call(_hooks, fn, args, kwargs, what)

    return wrapper


def _name(fn):
    return getattr(fn, "__name__", type(fn).__name__)


# -- pyad inside torch -------------------------------------------------------------------

_set_pyad_grad = _engine._set_grad_enabled
_views = _engine._bridge_views                  # torch views of Variables (None kept)
_pyad_first_order = _engine._bridge_pyad_vjp    # PyadFunction's backward, first order


def _pyad_vjp(outputs, inputs, grads, create_graph, materialize):
    """pyad.autograd.grad of ``outputs`` w.r.t. ``inputs`` with grad mode on (a bridged
    backward runs inside the other framework's backward, under any pyad mode)."""
    previous = _set_pyad_grad(True)
    try:
        return _pyad_grad(outputs, inputs, grads, retain_graph=True,
                          create_graph=create_graph, allow_unused=True,
                          materialize_grads=materialize)
    finally:
        if not previous:
            _set_pyad_grad(False)


class _PyadFunctionHolder:
    cls = None
    apply = None      # torch._C._FunctionBase.apply bound to the class, when usable


def _direct_apply(cls):
    # torch.autograd.Function.apply is Python around the C apply (about 6 us): a test
    # for setup_context (PyadFunction has none), one for functorch transforms (under
    # which such a Function raises) and functorch's unwrapping of dead wrappers. The
    # bridge makes the same tests itself and calls the C apply (None: not available).
    torch_C = _torch_C
    functorch = getattr(torch_C, "_functorch", None)
    unwrap_if_dead = getattr(functorch, "unwrap_if_dead", None)
    active = getattr(torch_C, "_are_functorch_transforms_active", None)
    base = getattr(torch_C, "_FunctionBase", None)
    descriptor = None if base is None else base.__dict__.get("apply")
    if unwrap_if_dead is None or active is None or descriptor is None or \
            cls.setup_context is not _torch.autograd.function._SingleLevelFunction.setup_context:
        return None
    c_apply = descriptor.__get__(None, cls)
    Tensor = _Tensor
    function_apply = cls.apply

    def apply(*args):
        if active():
            return function_apply(*args)            # (torch's error for this case)
        return c_apply(*[unwrap_if_dead(a) if isinstance(a, Tensor) else a for a in args])

    return apply


def _pyad_function():
    if _PyadFunctionHolder.cls is None:
        torch = _torch

        class PyadFunction(torch.autograd.Function):
            """One call of a pyad function (or of its VJP) in torch's graph."""

            @staticmethod
            def forward(ctx, compute, kwargs, *args):
                inputs, outputs, single = compute(args, True, kwargs)
                ctx.inputs, ctx.outputs = inputs, outputs
                t_outputs = _views(_HOOKS, outputs)
                ctx.save_for_backward(*[a if isinstance(a, _Tensor) else None
                                        for a in args])
                frozen = [t for t, o in zip(t_outputs, outputs) if not o.requires_grad]
                if frozen:
                    ctx.mark_non_differentiable(*frozen)
                return t_outputs[0] if single else t_outputs

            @staticmethod
            def backward(ctx, *grads):
                inputs, outputs = ctx.inputs, ctx.outputs
                if not _torch_C.is_grad_enabled():
                    # first order: pyad's VJP on views of torch's gradients, nothing
                    # recorded on either side (in the engine)
                    return _pyad_first_order(_HOOKS, inputs, outputs, grads)
                wanted = [i for i, v in enumerate(inputs) if v is not None and v.requires_grad]
                used = [j for j, (o, g) in enumerate(zip(outputs, grads))
                        if o.requires_grad and g is not None]
                result = [None] * (len(inputs) + 2)
                if not wanted or not used:
                    return tuple(result)
                saved = ctx.saved_tensors
                xs = [saved[i] for i in wanted]
                gs = [grads[j] for j in used]
                p_xs = [inputs[i] for i in wanted]
                p_os = [outputs[j] for j in used]
                n_x = len(xs)

                def vjp_compute(args, record, kwargs):
                    p_gs = []
                    for g in args[n_x:]:
                        v = _pyad_view(g)
                        if record and g.requires_grad and v.is_floating_point():
                            v._mark_requires_grad(True)
                        p_gs.append(v)
                    return p_xs + p_gs, tuple(_pyad_vjp(p_os, p_xs, p_gs, record, True)), False

                if any(t.requires_grad for t in xs + gs):
                    vjp = PyadFunction.apply(vjp_compute, None, *xs, *gs)
                else:
                    vjp = _unrecorded(vjp_compute, None, xs + gs)
                for i, g in zip(wanted, vjp):
                    result[i + 2] = g
                return tuple(result)

        _PyadFunctionHolder.cls = PyadFunction
        try:
            _PyadFunctionHolder.apply = _direct_apply(PyadFunction)
        except AttributeError:
            _PyadFunctionHolder.apply = None
    return _PyadFunctionHolder.cls


def _unrecorded(compute, kwargs, args):
    """A call of a pyad function from torch that torch does not record: the outputs as
    plain tensors sharing the Variables' memory."""
    _, outputs, single = compute(args, False, kwargs)
    t_outputs = _views(_HOOKS, outputs)
    return t_outputs[0] if single else t_outputs


def to_torch(fn):
    """Wrap a function of pyad Variables as a differentiable function of torch tensors.

    The result is a ``torch.autograd.Function`` application: torch tensors enter ``fn``
    as Variables sharing their memory, the outputs leave as tensors sharing the
    Variables' memory, and torch's backward asks pyad for the vector-Jacobian product
    (itself a bridged op, so double backward in torch works).

    Parameters
    ----------
    fn : callable
        Takes Variables (and other arguments), returns a Variable or a tuple of them.

    Returns
    -------
    callable
        The same function on torch tensors.

    Examples
    --------
    >>> import torch
    >>> square = pyad.interop.to_torch(lambda x: x * x)
    >>> t = torch.tensor([3.0], requires_grad=True)
    >>> square(t).backward()
    >>> t.grad
    tensor([6.])
    """
    _import_torch("pyad.interop.to_torch()")
    _init_dtypes()
    hooks = _bridge_hooks()
    function = _pyad_function()
    apply = _PyadFunctionHolder.apply or function.apply
    name = _name(fn)
    Tensor = _Tensor
    torch_grad_enabled = _torch_C.is_grad_enabled
    call = _engine._bridge_pyad_call

    def compute(args, record, kwargs):
        # (p_inputs, outputs, single): fn on Variables sharing the tensors' memory
        return call(hooks, fn, args, record, kwargs, name)

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        if torch_grad_enabled():
            for a in args:
                if isinstance(a, Tensor) and a.requires_grad:
                    return apply(compute, kwargs, *args)
        return _unrecorded(compute, kwargs, args)

    return wrapper
