"""The JAX bridge: JAX functions as pyad operations (``jax.vjp``, recursively for higher
orders) and pyad functions as JAX functions (``jax.custom_vjp`` over
``jax.pure_callback``, so they also run under ``jax.jit`` on the CPU)."""
import functools

import numpy

from .. import _engine
from ..autograd import grad as _pyad_grad
from ..autograd.function import Function
from ..autograd.grad_mode import enable_grad, no_grad, is_grad_enabled
from ._common import import_extra

_jax = None


def _import_jax(what):
    global _jax
    if _jax is None:
        import_extra("jax", "jax", what)
        import jax
        import jax.dlpack
        import jax.numpy
        _jax = jax
    return _jax


def _is_float(dtype):
    return numpy.issubdtype(dtype, numpy.inexact) or dtype.name == "bfloat16"


def _jax_view(var):
    """A JAX array on the same memory as ``var`` where JAX can take it (else a copy)."""
    data = var.data
    if type(data) is numpy.ndarray and data.__array_interface__["data"][0] % 64:
        # JAX's CPU client shares only 64-byte aligned host memory and copies the rest:
        # copy directly (about 100 us), not after JAX's DLPack import (about 160 us).
        return _jax.numpy.asarray(data)
    try:
        return _jax.dlpack.from_dlpack(var.detach())
    except Exception:          # JAX wants aligned, row-major memory; anything else copies
        return _jax.numpy.asarray(var.data)


def _pyad_view(array):
    try:
        return _engine.from_dlpack(array)
    except Exception:
        return _engine.Variable(numpy.asarray(array))


def _float0_zeros(shape):
    return numpy.zeros(shape, dtype=_jax.dtypes.float0)


# -- JAX inside pyad --------------------------------------------------------------------

class JaxFunction(Function):
    """One call of a JAX function (or of its VJP) in pyad's graph."""

    @staticmethod
    def forward(ctx, fn, kwargs, record, *args):
        j_args = [_jax_view(a) if isinstance(a, _engine.Variable) else a for a in args]
        wanted = [i for i, a in enumerate(args) if record and isinstance(a, _engine.Variable)
                  and a.requires_grad and _is_float(a.dtype)]

        def f(*diff):
            full = list(j_args)
            for i, d in zip(wanted, diff):
                full[i] = d
            return fn(*full, **kwargs)

        if wanted:
            out, vjp = _jax.vjp(f, *[j_args[i] for i in wanted])
        else:
            out, vjp = f(), None
        single = not isinstance(out, (tuple, list))
        outs = (out,) if single else tuple(out)
        outputs = tuple(_pyad_view(o) for o in outs)
        if wanted:
            ctx.f, ctx.vjp, ctx.wanted, ctx.single = f, vjp, wanted, single
            ctx.out_meta = [(o.shape, _is_float(numpy.dtype(o.dtype))) for o in outs]
            ctx.save_for_backward(*[args[i] for i in wanted])
            ctx.mark_non_differentiable(*[v for v, (_, fl) in zip(outputs, ctx.out_meta)
                                          if not fl])
        return outputs[0] if single else outputs

    @staticmethod
    def backward(ctx, *grads):
        n_args = len(ctx.needs_input_grad)
        result = [None] * n_args
        if not hasattr(ctx, "vjp"):
            return tuple(result)
        float_out = [j for j, (_, fl) in enumerate(ctx.out_meta) if fl]
        if not is_grad_enabled():
            cts = [_jax_view(grads[j]) if fl else _float0_zeros(shape)
                   for j, (shape, fl) in enumerate(ctx.out_meta)]
            vjp = ctx.vjp(cts[0] if ctx.single else tuple(cts))
            for i, g in zip(ctx.wanted, vjp):
                result[i + 3] = _pyad_view(g)
            return tuple(result)
        # A graph of the backward is wanted: the VJP, as a JAX function of the inputs
        # and the cotangents, is itself a bridged op (and so on, to any order).
        f, single, out_meta, n_x = ctx.f, ctx.single, ctx.out_meta, len(ctx.wanted)

        def vjp_fn(*xs_and_cts):
            xs, float_cts = xs_and_cts[:n_x], list(xs_and_cts[n_x:])
            cts = [float_cts.pop(0) if fl else _float0_zeros(shape) for shape, fl in out_meta]
            _, vjp = _jax.vjp(f, *xs)
            return tuple(vjp(cts[0] if single else tuple(cts)))

        xs = ctx.saved_tensors
        gs = [grads[j] for j in float_out]
        record = any(v.requires_grad for v in list(xs) + gs)
        vjp = JaxFunction.apply(vjp_fn, {}, record, *xs, *gs)
        for i, g in zip(ctx.wanted, vjp):
            result[i + 3] = g
        return tuple(result)


def from_jax(fn):
    """Wrap a JAX function as a differentiable function of pyad Variables.

    The wrapped function runs ``fn`` on JAX arrays viewing the Variables' memory (JAX
    copies only what it cannot view) and records one node whose backward is
    ``jax.vjp``'s; that backward is itself a bridged op, so ``create_graph=True`` and
    higher orders flow through JAX. Positional Variables are differentiable; other
    arguments and keyword arguments are passed through. float64 needs JAX's
    ``jax_enable_x64``.

    Parameters
    ----------
    fn : callable
        Takes JAX arrays (and other arguments), returns an array or a tuple of them.

    Returns
    -------
    callable
        The same function on pyad Variables.

    Examples
    --------
    >>> import jax.numpy as jnp
    >>> sin = pyad.interop.from_jax(jnp.sin)
    >>> x = pyad.tensor([0.0, 1.0], requires_grad=True)
    >>> sin(x).sum().backward()
    >>> x.grad
    tensor([1.0000, 0.5403])
    """
    _import_jax("pyad.interop.from_jax()")

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        for k, v in kwargs.items():
            if isinstance(v, _engine.Variable):
                raise TypeError("from_jax(): pass Variables positionally (keyword %r of %s is a "
                                "Variable)" % (k, getattr(fn, "__name__", "fn")))
        record = is_grad_enabled() and any(isinstance(a, _engine.Variable) and a.requires_grad
                                           for a in args)
        return JaxFunction.apply(fn, kwargs, record, *args)

    return wrapper


# -- pyad inside JAX --------------------------------------------------------------------

def _host_outputs(outputs, name):
    single = not isinstance(outputs, (tuple, list))
    outputs = (outputs,) if single else tuple(outputs)
    for o in outputs:
        if not isinstance(o, _engine.Variable):
            raise TypeError("to_jax(): the function %s must return a Variable or a tuple of "
                            "them, got %s" % (name, type(o).__name__))
    return outputs, single


def to_jax(fn):
    """Wrap a function of pyad Variables as a differentiable JAX function.

    The result is a ``jax.custom_vjp`` function over ``jax.pure_callback``: it runs
    under ``jax.jit`` on the CPU, and its backward is pyad's vector-Jacobian product,
    itself wrapped the same way, so ``jax.grad`` can be nested. All positional arguments
    are arrays; keyword arguments are passed to ``fn`` unchanged.

    Parameters
    ----------
    fn : callable
        Takes Variables, returns a Variable or a tuple of them.

    Returns
    -------
    callable
        The same function on JAX arrays.

    Examples
    --------
    >>> import jax, jax.numpy as jnp
    >>> square = pyad.interop.to_jax(lambda x: (x * x).sum())
    >>> float(jax.grad(square)(jnp.array([3.0]))[0])
    6.0
    """
    jax = _import_jax("pyad.interop.to_jax()")
    name = getattr(fn, "__name__", "fn")
    shapes = {}

    def run(*arrays):
        with no_grad():
            outputs, single = _host_outputs(
                fn(*[_engine.Variable(numpy.asarray(a)) for a in arrays]), name)
        data = tuple(numpy.asarray(o.data) for o in outputs)
        return data[0] if single else data

    def result_shape(xs):
        key = tuple((x.shape, numpy.dtype(x.dtype)) for x in xs)
        if key not in shapes:
            # Run once on zeros of the same shapes to learn what fn returns.
            out = run(*[numpy.zeros(s, d) for s, d in key])
            shapes[key] = jax.tree_util.tree_map(
                lambda o: jax.ShapeDtypeStruct(o.shape, o.dtype), out)
        return shapes[key]

    @jax.custom_vjp
    def call(*xs):
        # "sequential": under jax.vmap (jacrev, hessians) the callback runs per example
        return jax.pure_callback(run, result_shape(xs), *xs, vmap_method="sequential")

    def call_fwd(*xs):
        return call(*xs), xs

    def call_bwd(xs, g):
        gs = g if isinstance(g, tuple) else (g,)
        float_x = [i for i, x in enumerate(xs) if _is_float(numpy.dtype(x.dtype))]
        float_g = [j for j, t in enumerate(gs) if t.dtype != jax.dtypes.float0]
        n = len(xs)

        def vjp_fn(*xs_and_gs):
            inputs = [v.requires_grad_(True) if i in float_x else v
                      for i, v in enumerate(xs_and_gs[:n])]
            with enable_grad():
                outputs, _ = _host_outputs(fn(*inputs, **{}), name)
                grads = _pyad_grad([outputs[j] for j in float_g],
                                   [inputs[i] for i in float_x], list(xs_and_gs[n:]),
                                   create_graph=True, allow_unused=True,
                                   materialize_grads=True)
            return tuple(grads)

        grads = to_jax(vjp_fn)(*xs, *[gs[j] for j in float_g]) if float_x and float_g else ()
        if not isinstance(grads, tuple):
            grads = (grads,)
        result = []
        for i, x in enumerate(xs):
            if i in float_x:
                result.append(grads[float_x.index(i)] if float_g else jax.numpy.zeros_like(x))
            else:
                result.append(_float0_zeros(x.shape))
        return tuple(result)

    call.defvjp(call_fwd, call_bwd)

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        if kwargs:
            return to_jax(functools.partial(fn, **kwargs))(*args)
        return call(*args)

    return wrapper
