"""The PyTorch bridge: torch functions as pyad operations and back, to any order.

Each direction records one node per call. Its backward asks the other framework for
the vector-Jacobian product on the same buffers; when a graph of the backward is wanted
(``create_graph=True``), that request is itself a bridged node over the same inputs,
so the next order flows through the other framework again.
"""
import functools

import numpy

from .. import _engine
from ..autograd import grad as _pyad_grad
from ..autograd.function import Function
from ..autograd.grad_mode import enable_grad, no_grad, is_grad_enabled
from ._common import import_extra, bump_version

_torch = None


def _import_torch(what):
    global _torch
    if _torch is None:
        _torch = import_extra("torch", "torch", what)
    return _torch


# -- zero-copy views -------------------------------------------------------------------

def _torch_view(var):
    """A torch tensor sharing ``var``'s memory (no grad, no history)."""
    data = var.data
    if type(data) is numpy.ndarray and data.dtype.isbuiltin and data.flags.writeable \
            and (data.ndim == 0 or min(data.strides) >= 0):
        return _torch.from_numpy(data)               # the fast route, about 1 us
    return _torch.from_dlpack(var.detach())


def _pyad_view(tensor):
    """A pyad Variable sharing a torch tensor's memory (no grad, no history)."""
    if tensor.requires_grad:
        tensor = tensor.detach()
    if tensor.dtype in _REAL_DTYPES and tensor.device.type == "cpu":
        return _engine.Variable(tensor.numpy())     # the fast route
    return _engine.from_dlpack(tensor)              # complex (conj bits), bfloat16, CUDA


_REAL_DTYPES = ()


def _init_dtypes():
    global _REAL_DTYPES
    if not _REAL_DTYPES:
        t = _torch
        _REAL_DTYPES = frozenset([t.float16, t.float32, t.float64, t.int8, t.int16, t.int32,
                                  t.int64, t.uint8, t.bool])


# -- torch inside pyad -------------------------------------------------------------------

def _as_tuple(outputs, what):
    if isinstance(outputs, (tuple, list)):
        single = False
    else:
        outputs, single = (outputs,), True
    for o in outputs:
        if not isinstance(o, _torch.Tensor):
            raise TypeError("from_torch(): the function %s must return a torch.Tensor or a "
                            "tuple of them, got %s" % (what, type(o).__name__))
    return tuple(outputs), single


class TorchFunction(Function):
    """One call of a torch function (or of its vector-Jacobian product) in pyad's graph.

    ``compute(args, record)`` returns the torch tensors standing for the arguments (None
    for non-Variables), the torch outputs, and whether a single output was returned.
    """

    @staticmethod
    def forward(ctx, compute, record, *args):
        t_inputs, t_outputs, single = compute(args, record)
        ctx.t_inputs, ctx.t_outputs = t_inputs, t_outputs
        outputs = tuple(_pyad_view(o) for o in t_outputs)
        if record:
            ctx.save_for_backward(*[a if isinstance(a, _engine.Variable) else None
                                    for a in args])
            ctx.mark_non_differentiable(*[o for o, t in zip(outputs, t_outputs)
                                          if not t.requires_grad])
        return outputs[0] if single else outputs

    @staticmethod
    def backward(ctx, *grads):
        t_inputs, t_outputs = ctx.t_inputs, ctx.t_outputs
        wanted = [i for i, t in enumerate(t_inputs) if t is not None and t.requires_grad]
        used = [j for j, (t, g) in enumerate(zip(t_outputs, grads))
                if t.requires_grad and g is not None]
        result = [None] * (len(t_inputs) + 2)
        if not wanted or not used:
            return tuple(result)
        if not is_grad_enabled():
            # First order: one torch.autograd.grad on the recorded torch graph.
            with _torch.enable_grad():
                vjp = _torch.autograd.grad([t_outputs[j] for j in used],
                                           [t_inputs[i] for i in wanted],
                                           [_torch_view(grads[j]) for j in used],
                                           retain_graph=True, allow_unused=True)
            for i, g in zip(wanted, vjp):
                result[i + 2] = None if g is None else _pyad_view(g)
            return tuple(result)
        # A graph of the backward is wanted: the VJP is a bridged op of the same inputs
        # (their torch tensors are the leaves of the recorded graph) and the gradients.
        saved = ctx.saved_tensors
        xs = [saved[i] for i in wanted]
        gs = [grads[j] for j in used]
        t_xs = [t_inputs[i] for i in wanted]
        t_os = [t_outputs[j] for j in used]

        def vjp_compute(args, record):
            t_gs = []
            for g in args[len(xs):]:
                t = _torch_view(g)
                if record and g.requires_grad and t.is_floating_point():
                    t.requires_grad_(True)
                t_gs.append(t)
            with _torch.enable_grad():
                vjp = _torch.autograd.grad(t_os, t_xs, t_gs, retain_graph=True,
                                           create_graph=record, allow_unused=True,
                                           materialize_grads=True)
            return t_xs + t_gs, tuple(vjp), False

        record = any(v.requires_grad for v in xs + gs)
        vjp = TorchFunction.apply(vjp_compute, record, *xs, *gs)
        for i, g in zip(wanted, vjp):
            result[i + 2] = g
        return tuple(result)


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
    what = _name(fn)

    def compute(args, record, kwargs):
        t_args, t_inputs, versions = [], [], []
        for a in args:
            if isinstance(a, _engine.Variable):
                t = _torch_view(a)
                if record and a.requires_grad and (t.is_floating_point() or t.is_complex()):
                    t.requires_grad_(True)
                t_inputs.append(t)
                versions.append(t._version)
                t_args.append(t)
            else:
                t_inputs.append(None)
                versions.append(None)
                t_args.append(a)
        previous = _torch.is_grad_enabled()
        if previous != record:
            _torch.set_grad_enabled(record)
        try:
            outputs = fn(*t_args, **kwargs)
        finally:
            if previous != record:
                _torch.set_grad_enabled(previous)
        outputs, single = _as_tuple(outputs, what)
        for a, t, version in zip(args, t_inputs, versions):
            if t is not None and t._version != version:
                # torch wrote into the Variable's memory: pyad must know, or values it
                # saved for a backward would be used stale without an error.
                bump_version(a)
        return t_inputs, outputs, single

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        for k, v in kwargs.items():
            if isinstance(v, _engine.Variable):
                raise TypeError("from_torch(): pass Variables positionally (keyword %r of %s is "
                                "a Variable)" % (k, _name(fn)))
        record = is_grad_enabled() and any(isinstance(a, _engine.Variable) and a.requires_grad
                                           for a in args)
        return TorchFunction.apply(functools.partial(_with_kwargs, compute, kwargs), record,
                                   *args)

    return wrapper


def _with_kwargs(compute, kwargs, args, record):
    return compute(args, record, kwargs)


def _name(fn):
    return getattr(fn, "__name__", type(fn).__name__)


# -- pyad inside torch -------------------------------------------------------------------

class _PyadFunctionHolder:
    cls = None


def _pyad_function():
    if _PyadFunctionHolder.cls is None:
        torch = _torch

        class PyadFunction(torch.autograd.Function):
            """One call of a pyad function (or of its VJP) in torch's graph."""

            @staticmethod
            def forward(ctx, compute, record, *args):
                inputs, outputs, single = compute(args, record)
                ctx.inputs, ctx.outputs = inputs, outputs
                t_outputs = tuple(_torch_view(o) for o in outputs)
                ctx.save_for_backward(*[a if isinstance(a, torch.Tensor) else None
                                        for a in args])
                ctx.mark_non_differentiable(*[t for t, o in zip(t_outputs, outputs)
                                              if not o.requires_grad])
                return t_outputs[0] if single else t_outputs

            @staticmethod
            def backward(ctx, *grads):
                inputs, outputs = ctx.inputs, ctx.outputs
                wanted = [i for i, v in enumerate(inputs) if v is not None and v.requires_grad]
                used = [j for j, (o, g) in enumerate(zip(outputs, grads))
                        if o.requires_grad and g is not None]
                result = [None] * (len(inputs) + 2)
                if not wanted or not used:
                    return tuple(result)
                if not torch.is_grad_enabled():
                    with enable_grad():
                        vjp = _pyad_grad([outputs[j] for j in used],
                                         [inputs[i] for i in wanted],
                                         [_pyad_view(grads[j]) for j in used],
                                         retain_graph=True, allow_unused=True)
                    for i, g in zip(wanted, vjp):
                        result[i + 2] = None if g is None else _torch_view(g)
                    return tuple(result)
                saved = ctx.saved_tensors
                xs = [saved[i] for i in wanted]
                gs = [grads[j] for j in used]
                p_xs = [inputs[i] for i in wanted]
                p_os = [outputs[j] for j in used]

                def vjp_compute(args, record):
                    p_gs = []
                    for g in args[len(xs):]:
                        v = _pyad_view(g)
                        if record and g.requires_grad and v.is_floating_point():
                            v.requires_grad_(True)
                        p_gs.append(v)
                    with enable_grad():
                        vjp = _pyad_grad(p_os, p_xs, p_gs, retain_graph=True,
                                         create_graph=record, allow_unused=True,
                                         materialize_grads=True)
                    return p_xs + p_gs, tuple(vjp), False

                record = any(t.requires_grad for t in xs + gs)
                vjp = PyadFunction.apply(vjp_compute, record, *xs, *gs)
                for i, g in zip(wanted, vjp):
                    result[i + 2] = g
                return tuple(result)

        _PyadFunctionHolder.cls = PyadFunction
    return _PyadFunctionHolder.cls


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
    torch = _import_torch("pyad.interop.to_torch()")
    _init_dtypes()
    function = _pyad_function()

    def compute(args, record, kwargs):
        p_args, p_inputs = [], []
        for a in args:
            if isinstance(a, torch.Tensor):
                v = _pyad_view(a)
                if record and a.requires_grad and v.is_floating_point():
                    v.requires_grad_(True)
                p_inputs.append(v)
                p_args.append(v)
            else:
                p_inputs.append(None)
                p_args.append(a)
        with _engine_grad(record):
            outputs = fn(*p_args, **kwargs)
        single = not isinstance(outputs, (tuple, list))
        outputs = (outputs,) if single else tuple(outputs)
        for o in outputs:
            if not isinstance(o, _engine.Variable):
                raise TypeError("to_torch(): the function %s must return a Variable or a tuple "
                                "of them, got %s" % (_name(fn), type(o).__name__))
        return p_inputs, outputs, single

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        record = torch.is_grad_enabled() and any(
            isinstance(a, torch.Tensor) and a.requires_grad for a in args)
        return function.apply(functools.partial(_with_kwargs, compute, kwargs), record, *args)

    return wrapper


def _engine_grad(record):
    return enable_grad() if record else no_grad()
