"""The JAX bridge: JAX functions as pyad operations (``jax.vjp``, recursively for higher
orders) and pyad functions as JAX functions (``jax.custom_vjp`` over
``jax.pure_callback``, so they also run under ``jax.jit`` on the CPU).

Both directions trace once per signature, not per call: ``from_jax`` keeps, per wrapped
function, a ``jax.jit`` of the forward with its VJP (keyed on the Variables' shapes,
dtypes and which of them require grad, and on the other arguments' values), and runs
the backward through one ``jax.jit`` that applies the VJP; ``to_jax`` builds its
``custom_vjp`` once per wrapped function and calls it through ``jax.jit``.
"""
import functools

import numpy

from .. import _engine
from ..autograd import grad as _pyad_grad
from ._common import import_extra

Variable = _engine.Variable
_jax = None
_jnp = None
_to_buffer = None           # jaxlib's DLPack import/export, without jax's Python layer
_to_capsule = None
_cpu = None
_apply_vjp = None           # jax.jit(lambda vjp, cts: vjp(cts)), shared by every call
_set_grad = _engine._set_grad_enabled


def _import_jax(what):
    global _jax, _jnp, _to_buffer, _to_capsule, _cpu, _apply_vjp
    if _jax is None:
        import_extra("jax", "jax", what)
        import jax
        import jax.dlpack
        import jax.numpy
        try:
            from jax._src.lib import _jax as lib, jaxlib_extension_version
            if jaxlib_extension_version >= 467:
                _to_buffer = lib.dlpack_managed_tensor_to_buffer
            if jax.default_backend() == "cpu":     # (then every array is on the CPU)
                _to_capsule = lib.buffer_to_dlpack_managed_tensor
            _cpu = jax.devices("cpu")[0]
        except Exception:        # another jaxlib: the public (slower) routes only
            _to_buffer = _to_capsule = None
        _apply_vjp = jax.jit(lambda vjp, cts: vjp(cts))
        _jnp = jax.numpy
        _jax = jax
    return _jax


def _is_float(dtype):
    return numpy.issubdtype(dtype, numpy.inexact) or dtype.name == "bfloat16"


def _jax_view(var):
    """A JAX array on the same memory as ``var`` where JAX can take it (else a copy)."""
    data = var.data
    if type(data) is numpy.ndarray:
        if data.__array_interface__["data"][0] % 64:
            # JAX's CPU client shares only 64-byte aligned host memory and copies the
            # rest: copy directly (about 100 us), not after JAX's DLPack import.
            return _jnp.asarray(data)
        if _to_buffer is not None and \
                _jax.dtypes.canonicalize_dtype(data.dtype) == data.dtype:
            # jaxlib's own DLPack import (about 10 us; jax.dlpack.from_dlpack adds about
            # 100 us of checks and a jnp.asarray around it)
            try:
                return _to_buffer(data.__dlpack__(), _cpu, None, None, 1)
            except Exception:
                pass
    try:
        return _jax.dlpack.from_dlpack(var.detach())
    except Exception:          # JAX wants aligned, row-major memory; anything else copies
        return _jnp.asarray(var.data)


def _pyad_view(array):
    """A Variable on the memory of a JAX array (pyad's DLPack import)."""
    if _to_capsule is not None:
        try:
            return _engine.from_dlpack(_to_capsule(array, stream=None))
        except Exception:
            pass
    try:
        return _engine.from_dlpack(array)
    except Exception:
        return Variable(numpy.asarray(array))


def _float0_zeros(shape):
    return numpy.zeros(shape, dtype=_jax.dtypes.float0)


def _name(fn):
    return getattr(fn, "__name__", type(fn).__name__)


# -- JAX inside pyad --------------------------------------------------------------------

class JaxFunctionBackward(_engine._BridgeNode):
    """The node of one call of a JAX function (or of its VJP) in pyad's graph."""


_FLOAT = {}                 # dtype -> whether JAX differentiates it
_CACHE_SIZE = 64            # signatures kept per wrapped function (oldest dropped first)
_SCALARS = frozenset([type(None), bool, int, float, complex, str, bytes])


def _differentiable(dtype):
    flag = _FLOAT.get(dtype)
    if flag is None:
        flag = _FLOAT[dtype] = bool(_is_float(numpy.dtype(dtype)))
    return flag


def _static_key(value):
    """A key that tells apart every non-array argument a trace could depend on (its type
    too: 1 and 1.0 trace differently), or TypeError for a value that has none (an array,
    an object that may change): such a call is traced on its own, as an eager
    ``jax.vjp`` would, and not cached."""
    t = type(value)
    if t in _SCALARS:
        return (t, value)
    if t is tuple or t is list:
        return (t, tuple([_static_key(v) for v in value]))
    if t is type or t is numpy.dtype or isinstance(value, numpy.dtype):
        return (t, value)
    raise TypeError(t)


class _Traced:
    """One signature of a wrapped JAX function: the function of its array arguments
    (the others bound), its forward with the VJP (under ``jax.jit`` when cached), the
    layout of its outputs, and, made when first needed, the bridged VJP (higher orders).
    It keeps no argument of the call that made it (only the bound non-array ones)."""

    __slots__ = ("f", "fwd", "var_pos", "wanted", "jit", "what", "out_meta", "single",
                 "_higher")

    def __init__(self, fn, args, kwargs, var_pos, wanted, jit, what):
        statics = list(args)
        for i in var_pos:
            statics[i] = None
        var_pos = tuple(var_pos)
        wanted = tuple(wanted)
        everything = len(wanted) == len(var_pos)

        def f(*arrays):
            full = list(statics)
            for i, a in zip(var_pos, arrays):
                full[i] = a
            return fn(*full, **kwargs)

        def fwd(*arrays):
            if everything:
                return _jax.vjp(f, *arrays)

            def g(*diff):
                full = list(arrays)
                for k, d in zip(wanted, diff):
                    full[k] = d
                return f(*full)

            return _jax.vjp(g, *[arrays[k] for k in wanted])

        self.f, self.var_pos, self.wanted, self.jit, self.what = f, var_pos, wanted, jit, what
        self.fwd = _jax.jit(fwd) if jit else fwd
        self.out_meta = self.single = self._higher = None

    def higher(self):
        """The VJP as a bridged JAX function of (every array argument, the float outputs'
        cotangents), cached like any wrapped function: the next order goes through JAX."""
        if self._higher is None:
            f, wanted, out_meta, single = self.f, self.wanted, self.out_meta, self.single
            n = len(self.var_pos)

            def vjp_fn(*arrays_and_cts):
                arrays, float_cts = arrays_and_cts[:n], iter(arrays_and_cts[n:])
                cts = [next(float_cts) if fl else _float0_zeros(shape)
                       for shape, dtype, fl in out_meta]

                def g(*diff):
                    full = list(arrays)
                    for k, d in zip(wanted, diff):
                        full[k] = d
                    return f(*full)

                _, vjp = _jax.vjp(g, *[arrays[k] for k in wanted])
                return tuple(vjp(cts[0] if single else tuple(cts)))

            vjp_fn.__name__ = "vjp_of_" + self.what
            self._higher = _jax_bridge(vjp_fn, "the backward of " + self.what)
        return self._higher


def _jax_call(fn, cache, args, kwargs, what):
    """A recorded call of a JAX function: its forward and VJP from the signature's
    (cached) trace, one node whose backward applies the VJP (:func:`_jax_vjp`)."""
    var_pos, wanted, key = [], [], []
    cacheable = cache is not None
    for i, a in enumerate(args):
        if isinstance(a, Variable):
            w = a.requires_grad and _differentiable(a.dtype)
            if w:
                wanted.append(len(var_pos))
            var_pos.append(i)
            key.append((a.shape, a.dtype, w))
        elif cacheable:
            try:
                key.append(_static_key(a))
            except TypeError:
                cacheable = False
    if cacheable and kwargs:
        try:
            key.append(tuple(sorted([(k, _static_key(v)) for k, v in kwargs.items()])))
        except TypeError:
            cacheable = False
    entry = None
    if cacheable:
        key = tuple(key)
        entry = cache.get(key)
    if entry is None:
        entry = _Traced(fn, args, kwargs, var_pos, wanted, cacheable, what)
        if cacheable:
            if len(cache) >= _CACHE_SIZE:
                del cache[next(iter(cache))]
            cache[key] = entry
    arrays = [_jax_view(args[i]) for i in entry.var_pos]
    try:
        out, vjp = entry.fwd(*arrays)
    except _jax.errors.JAXTypeError:
        if not entry.jit:
            raise
        # fn needs concrete values (Python control flow on them), which jax.jit cannot
        # give and an eager jax.vjp can: trace this signature per call from now on
        entry = _Traced(fn, args, kwargs, var_pos, wanted, False, what)
        cache[key] = entry
        out, vjp = entry.fwd(*arrays)
    single = not isinstance(out, (tuple, list))
    outs = (out,) if single else tuple(out)
    if entry.out_meta is None:
        entry.single = single
        entry.out_meta = tuple((o.shape, o.dtype, _differentiable(o.dtype)) for o in outs)
    differentiable = tuple(fl for _, _, fl in entry.out_meta)
    results = tuple(_pyad_view(o).data for o in outs)
    others = [args[i] for k, i in enumerate(entry.var_pos) if k not in entry.wanted] \
        if len(entry.wanted) != len(entry.var_pos) else None
    state = (entry, vjp, others)
    outputs = _engine._bridge_record(JaxFunctionBackward, _jax_vjp, state, args, results,
                                      differentiable)
    return outputs[0] if single else tuple(outputs)


def _jax_vjp(state, inputs, grads):
    """The backward of a bridged JAX call: the VJP the forward returned, applied (under
    ``jax.jit``) to the incoming gradients; or, when pyad records the backward, the
    bridged VJP function of the inputs and the gradients (so it differentiates again)."""
    entry, vjp, others = state
    result = [None] * len(inputs)
    out_meta = entry.out_meta
    if all(g is None for g, (_, _, fl) in zip(grads, out_meta) if fl):
        return result
    var_pos, wanted = entry.var_pos, entry.wanted
    xs = [inputs[var_pos[k]] for k in wanted]
    record = False
    if _engine.is_grad_enabled():
        for v in xs + list(grads):
            if v is not None and v.requires_grad:
                record = True
                break
    if not record:
        cts = [(_float0_zeros(shape) if not fl
                else _jax_view(grads[j]) if grads[j] is not None
                else numpy.zeros(shape, dtype))
               for j, (shape, dtype, fl) in enumerate(out_meta)]
        ct = cts[0] if entry.single else tuple(cts)
        gs = _apply_vjp(vjp, ct) if entry.jit else vjp(ct)
        for k, g in zip(wanted, gs):
            result[var_pos[k]] = _pyad_view(g)
        return result
    # A graph of the backward is wanted: the VJP, as a JAX function of the array
    # arguments and the cotangents, is itself a bridged call (and so on, to any order).
    others = iter(others or ())
    arrays = [inputs[var_pos[k]] if k in wanted else next(others)
              for k in range(len(var_pos))]
    cts = [g if g is not None else Variable(numpy.zeros(shape, dtype))
           for g, (shape, dtype, fl) in zip(grads, out_meta) if fl]
    gs = entry.higher()(*arrays, *cts)
    for k, g in zip(wanted, gs):
        result[var_pos[k]] = g
    return result


def _jax_bridge(fn, what):
    """``fn`` (a JAX function) as a function of Variables: recorded calls go through
    :func:`_jax_call` with this function's cache of traces; others run ``fn`` eagerly
    on views of the Variables."""
    cache = {}
    grad_enabled = _engine.is_grad_enabled
    profiling = _engine._bridge_profiling
    event = "from_jax(%s)" % _name(fn)

    def call(*args, **kwargs):
        if profiling():                              # one event: from_jax(fn)
            return _engine._bridge_profiled(event, run, args, kwargs)
        return run(*args, **kwargs)

    def run(*args, **kwargs):
        if kwargs:
            for k, v in kwargs.items():
                if isinstance(v, Variable):
                    raise TypeError("from_jax(): pass Variables positionally (keyword %r of "
                                    "%s is a Variable)" % (k, what))
        if grad_enabled():
            for a in args:
                if isinstance(a, Variable) and a.requires_grad and \
                        _differentiable(a.dtype):
                    return _jax_call(fn, cache, args, kwargs, what)
        out = fn(*[_jax_view(a) if isinstance(a, Variable) else a for a in args], **kwargs)
        single = not isinstance(out, (tuple, list))
        outs = (out,) if single else tuple(out)
        outputs = _engine._bridge_record(None, None, None, args,
                                         tuple(_pyad_view(o).data for o in outs), ())
        return outputs[0] if single else tuple(outputs)

    return call


def from_jax(fn):
    """Wrap a JAX function as a differentiable function of pyad Variables.

    The wrapped function runs ``fn`` on JAX arrays viewing the Variables' memory (JAX
    copies only what it cannot view) and records one node whose backward is
    ``jax.vjp``'s; that backward is itself a bridged op, so ``create_graph=True`` and
    higher orders flow through JAX. Positional Variables are differentiable; other
    arguments and keyword arguments are passed through. float64 needs JAX's
    ``jax_enable_x64``.

    A call that records (a Variable requires grad) runs ``fn`` and its VJP under
    ``jax.jit``, traced once per signature (the Variables' shapes and dtypes, which of
    them require grad, the values of the other arguments when they are numbers,
    strings, dtypes or tuples of them; other arguments are traced per call): as under
    ``jax.jit``, Python side effects of ``fn`` happen when it is traced. A call that
    records nothing runs ``fn`` eagerly.

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
    return functools.wraps(fn)(_jax_bridge(fn, _name(fn)))


# -- pyad inside JAX --------------------------------------------------------------------

def _host_outputs(outputs, name):
    single = not isinstance(outputs, (tuple, list))
    outputs = (outputs,) if single else tuple(outputs)
    for o in outputs:
        if not isinstance(o, Variable):
            raise TypeError("to_jax(): the function %s must return a Variable or a tuple of "
                            "them, got %s" % (name, type(o).__name__))
    return outputs, single


def _custom_vjp(fn, name):
    """``fn`` as a ``jax.custom_vjp`` function over ``jax.pure_callback``, wrapped in
    ``jax.jit`` (so an eager call reuses its trace per shape/dtype signature). Its
    backward is the same construction over pyad's VJP, built once per layout of
    differentiable inputs and outputs."""
    jax = _jax
    shapes = {}
    backwards = {}

    def run(*arrays):
        previous = _set_grad(False)
        try:
            outputs, single = _host_outputs(fn(*[Variable(numpy.asarray(a)) for a in arrays]),
                                            name)
        finally:
            _set_grad(previous)
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

    def backward(float_x, float_g, n):
        key = (float_x, float_g, n)
        if key not in backwards:
            def vjp_fn(*xs_and_gs):
                inputs = [v._mark_requires_grad(True) if i in float_x else v
                          for i, v in enumerate(xs_and_gs[:n])]
                previous = _set_grad(True)
                try:
                    outputs, _ = _host_outputs(fn(*inputs), name)
                    grads = _pyad_grad([outputs[j] for j in float_g],
                                       [inputs[i] for i in float_x], list(xs_and_gs[n:]),
                                       create_graph=True, allow_unused=True,
                                       materialize_grads=True)
                finally:
                    _set_grad(previous)
                return tuple(grads)

            vjp_fn.__name__ = "vjp_of_" + name
            backwards[key] = _custom_vjp(vjp_fn, vjp_fn.__name__)
        return backwards[key]

    def call_bwd(xs, g):
        gs = g if isinstance(g, tuple) else (g,)
        float_x = tuple(i for i, x in enumerate(xs) if _is_float(numpy.dtype(x.dtype)))
        float_g = tuple(j for j, t in enumerate(gs) if t.dtype != jax.dtypes.float0)
        n = len(xs)
        grads = backward(float_x, float_g, n)(*xs, *[gs[j] for j in float_g]) \
            if float_x and float_g else ()
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
    return jax.jit(call)


def to_jax(fn):
    """Wrap a function of pyad Variables as a differentiable JAX function.

    The result is a ``jax.custom_vjp`` function over ``jax.pure_callback``: it runs
    under ``jax.jit`` on the CPU, and its backward is pyad's vector-Jacobian product,
    itself wrapped the same way, so ``jax.grad`` can be nested. All positional arguments
    are arrays; keyword arguments are passed to ``fn`` unchanged. The wrapper is built
    once and called through ``jax.jit``: an eager call traces it once per shape/dtype
    signature (and per value of the keyword arguments), not per call.

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
    _import_jax("pyad.interop.to_jax()")
    name = _name(fn)
    call = _custom_vjp(fn, name)
    with_kwargs = {}

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        if not kwargs:
            return call(*args)
        try:
            key = tuple(sorted([(k, _static_key(v)) for k, v in kwargs.items()]))
        except TypeError:
            return _custom_vjp(functools.partial(fn, **kwargs), name)(*args)
        bound = with_kwargs.get(key)
        if bound is None:
            if len(with_kwargs) >= _CACHE_SIZE:
                del with_kwargs[next(iter(with_kwargs))]
            bound = with_kwargs[key] = _custom_vjp(functools.partial(fn, **kwargs), name)
        return bound(*args)

    return wrapper
