"""Composable function transforms: ``pyad.func``, as ``torch.func``.

`grad`, `grad_and_value`, `vjp`, `jvp`, `linearize`, `jacrev`, `jacfwd`,
`hessian` and `vmap` take a Python function of Variables and return a new
function (or, for `vjp`, `jvp` and `linearize`, evaluate at a point), following
torch.func's signatures, pytrees (tuples, lists and dicts of Variables, in
arguments and results), errors and ``requires_grad`` rules:

- a transform differentiates whether or not its inputs require grad, and its
  results require grad only when something outside it needs them (an enclosing
  transform, or ordinary autograd through inputs or captured Variables that
  require grad), so ``grad(grad(f))``, ``jacrev(jacrev(f))``, ``vmap(grad(f))``
  and ``grad`` of a `functional_call` (MAML) compose;
- `functional_call` runs a ``pyad.nn.Module`` with some parameters and buffers
  replaced for one call.

Everything runs on pyad's reverse-mode engine. `jvp`, `linearize` and `jacfwd`
give torch's forward-mode results through the double-vjp trick (differentiate a
backward pass with respect to the gradient fed into it); `jacfwd` computes the
same Jacobian as `jacrev`. `vmap` is not vectorised: it calls the function once
per slice along the mapped dimensions and stacks the results (differentiably),
which is correct for any function but costs one call per batch entry.

>>> from pyad.func import grad, vmap
>>> x = pyad.tensor([1., 2., 3.], dtype=pyad.float64)
>>> grad(lambda x: (x ** 3).sum())(x)
tensor([ 3., 12., 27.], dtype=float64)
>>> vmap(grad(lambda x: x.sin()))(x)
tensor([ 0.5403, -0.4161, -0.9900], dtype=float64)
"""
import functools
import threading
import weakref

import numpy

import pyad
from pyad._engine import Variable
from pyad import _engine
from pyad.autograd.grad_mode import is_grad_enabled
from pyad.nn.utils.stateless import _functional_call as _stateless_call

# torch.func's names (functorch's older ones below are attributes only, as torch.func
# has them not)
__all__ = ["functional_call", "grad", "grad_and_value", "vjp", "jvp", "linearize", "jacrev",
           "jacfwd", "hessian", "vmap", "stack_module_state"]


# ---------------------------------------------------------------------------
# Pytrees: tuples (and namedtuples), lists and dicts are nodes; anything else is a leaf
# ---------------------------------------------------------------------------

class _TreeSpec:
    """The structure of a pytree: its node type, dict keys and children (None for a leaf)."""

    __slots__ = ("kind", "keys", "children", "num_leaves")

    def __init__(self, kind=None, keys=None, children=()):
        self.kind, self.keys, self.children = kind, keys, tuple(children)
        self.num_leaves = 1 if kind is None else sum(c.num_leaves for c in self.children)

    def __eq__(self, other):
        return (isinstance(other, _TreeSpec) and self.kind is other.kind
                and self.keys == other.keys and self.children == other.children)

    def __repr__(self):
        if self.kind is None:
            return "*"
        inner = ", ".join(repr(c) if k is None else "%r: %r" % (k, c)
                          for k, c in zip(self.keys or [None] * len(self.children),
                                          self.children))
        return "%s(%s)" % (self.kind.__name__, inner)


def _is_node(tree):
    return isinstance(tree, (tuple, list, dict))


def _children(tree):
    """``(keys, children)`` of a node, dict keys in insertion order."""
    if isinstance(tree, dict):
        return list(tree.keys()), list(tree.values())
    return None, list(tree)


def _tree_flatten(tree):
    """``(leaves, spec)`` of ``tree``."""
    leaves = []

    def walk(node):
        if not _is_node(node):
            leaves.append(node)
            return _TreeSpec()
        keys, children = _children(node)
        return _TreeSpec(type(node), keys, [walk(child) for child in children])

    spec = walk(tree)
    return leaves, spec


def _tree_unflatten(leaves, spec):
    """The pytree of structure ``spec`` holding ``leaves``."""
    leaves = iter(leaves)

    def build(node):
        if node.kind is None:
            return next(leaves)
        children = [build(child) for child in node.children]
        if node.keys is not None:
            return node.kind(zip(node.keys, children))
        if node.kind in (tuple, list):
            return node.kind(children)
        if hasattr(node.kind, "_fields"):              # a namedtuple
            return node.kind(*children)
        return node.kind(children)

    return build(spec)


def _tree_map(fn, tree):
    leaves, spec = _tree_flatten(tree)
    return _tree_unflatten([fn(leaf) for leaf in leaves], spec)


def _broadcast_to_and_flatten(prefix, spec):
    """One entry of ``prefix`` per leaf of ``spec`` (a leaf of ``prefix`` covers a
    whole subtree), or None where ``prefix`` is not a prefix of ``spec``'s structure."""
    result = []

    def walk(node, full):
        if not _is_node(node):
            result.extend([node] * full.num_leaves)
            return True
        if type(node) is not full.kind:
            return False
        keys, children = _children(node)
        if full.keys is not None:
            if set(keys) != set(full.keys):
                return False
            by_key = dict(zip(keys, children))
            children = [by_key[k] for k in full.keys]
        elif len(children) != len(full.children):
            return False
        return all(walk(child, sub) for child, sub in zip(children, full.children))

    return result if walk(prefix, spec) else None


# ---------------------------------------------------------------------------
# Shared pieces of the autograd transforms
# ---------------------------------------------------------------------------

def _name(func):
    if hasattr(func, "__name__"):
        return func.__name__
    if isinstance(func, functools.partial):
        return "functools.partial(%s, ...)" % _name(func.func)
    return repr(func)


def _validate_and_wrap_argnum(argnum, num_args, api):
    if not isinstance(argnum, int) or isinstance(argnum, bool):
        raise RuntimeError("%s(): argnum must be int, got: %s" % (api, type(argnum)))
    if 0 <= argnum < num_args:
        return argnum
    if -num_args <= argnum < 0:
        return argnum + num_args
    raise RuntimeError("%s(): Got argnum=%d, but only %d positional inputs"
                       % (api, argnum, num_args))


def _normalize_argnums(argnums, num_args, api):
    """``argnums`` checked and made non-negative (torch's rules)."""
    if isinstance(argnums, int) and not isinstance(argnums, bool):
        return _validate_and_wrap_argnum(argnums, num_args, api)
    if not isinstance(argnums, tuple):
        raise RuntimeError("%s(): argnums must be int or Tuple[int, ...], got: %s"
                           % (api, type(argnums)))
    argnums = tuple(_validate_and_wrap_argnum(a, num_args, api) for a in argnums)
    if len(argnums) == 0:
        raise RuntimeError("%s(): argnums must be non-empty" % api)
    if len(set(argnums)) != len(argnums):
        raise RuntimeError("%s(): argnums elements must be unique, got %s" % (api, argnums))
    return argnums


def _slice_argnums(args, argnums, api, as_tuple=True):
    """The arguments ``argnums`` selects: one pytree for an int (a 1-tuple if
    ``as_tuple``), a tuple of them for a tuple."""
    argnums = _normalize_argnums(argnums, len(args), api)
    if isinstance(argnums, int):
        return (args[argnums],) if as_tuple else args[argnums]
    return tuple(args[i] for i in argnums)


def _replace_args(args, new_args, argnums, api):
    """``args`` with the entries ``argnums`` selects replaced by ``new_args`` (a tuple)."""
    argnums = _normalize_argnums(argnums, len(args), api)
    positions = (argnums,) if isinstance(argnums, int) else argnums
    replaced = list(args)
    for position, value in zip(positions, new_args):
        replaced[position] = value
    return tuple(replaced)


def _private_input(value, api):
    """A Variable of our own standing for ``value`` while ``func`` runs.

    A Variable that requires grad is passed through a view, so derivatives still
    reach it from outside (an enclosing transform or ordinary autograd); any other
    is detached and made to require grad. Either way it is a new object, so
    ``func``'s use of the argument is told apart from the same Variable captured
    in a closure (which would otherwise confuse nested derivatives).
    """
    if not isinstance(value, Variable):
        raise ValueError("%s(): the arguments to differentiate must be Variables (Thing passed "
                         "to transform API must be Tensor), got %s" % (api, type(value)))
    if value.dtype.kind not in "fc":
        if api in ("jvp", "jacfwd"):        # torch's forward mode refuses the primal itself
            raise ValueError("%s(): Expected primal to be floating point or complex, but got: %s"
                             % (api, value.dtype))
        raise RuntimeError("%s(): only Variables of floating point dtype can require gradients, "
                           "got %s" % (api, value.dtype))
    if value.requires_grad:
        return value.view_as(value)
    if value.is_inference():
        # made under inference_mode(): an inference Variable may not require grad
        # outside the mode, so the transform differentiates a copy of its values
        return Variable(value.data.copy(), requires_grad=True)
    return value.detach()._mark_requires_grad(True)


class _TransformGradMode:
    """Grad mode set to ``mode`` with inference mode off, both restored on exit: a
    transform differentiates its function also when it is called inside
    ``inference_mode()`` (torch.func's transforms do), where views would otherwise record
    no graph."""

    def __init__(self, mode=True):
        self.mode = bool(mode)

    def __enter__(self):
        self._previous_inference = _engine._set_inference_mode(False)
        self._previous = _engine._set_grad_enabled(self.mode)
        return None

    def __exit__(self, exc_type, exc, tb):
        _engine._set_grad_enabled(self._previous)
        _engine._set_inference_mode(self._previous_inference)
        return False


# The private leaves of transforms that have returned, by id (a weak reference each, so
# a reused id is told apart): nothing can differentiate with respect to them any more,
# so a result whose graph reaches only them needs no graph (torch's dead levels).
_RETIRED = {}


def _retire(variables):
    for variable in variables:
        if variable.grad_fn is None:
            key = id(variable)
            _RETIRED[key] = weakref.ref(
                variable, lambda ref, key=key: _RETIRED.get(key) is ref and _RETIRED.pop(key))


def _is_outer_leaf(variable, private_ids):
    key = id(variable)
    if key in private_ids:
        return False
    ref = _RETIRED.get(key)
    return ref is None or ref() is not variable


def _depends_on_outer(value, private_ids):
    """Whether ``value``'s graph reaches a leaf that requires grad other than the private
    inputs of this or a finished transform: then something outside the transform can
    differentiate it."""
    if not isinstance(value, Variable) or not value.requires_grad:
        return False
    if value.grad_fn is None:
        return _is_outer_leaf(value, private_ids)
    seen = {}                       # id -> node, holding the nodes so ids stay unique
    stack = [value.grad_fn]
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen[id(node)] = node
        variable = getattr(node, "variable", None)      # AccumulateGrad: a leaf
        if variable is not None:
            if _is_outer_leaf(variable, private_ids):
                return True
            continue
        stack.extend(next_node for next_node, _ in node.next_functions)
    return False


def _unwrapper(private_ids, keep_graph):
    """A function returning a result Variable as the caller should see it: with its graph
    if ``keep_graph`` and that graph reaches outside the transform, detached otherwise."""
    def unwrap(value):
        if not isinstance(value, Variable) or not value.requires_grad:
            return value
        if keep_graph and _depends_on_outer(value, private_ids):
            return value
        return value.detach()
    return unwrap


def _autograd_grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False):
    """`pyad.autograd.grad` over the outputs that require grad, zeros for unused inputs."""
    if grad_outputs is None:
        grad_outputs = [None] * len(outputs)
    kept = [(out, g) for out, g in zip(outputs, grad_outputs) if out.requires_grad]
    grads = [None] * len(inputs)
    if kept:
        with _TransformGradMode(create_graph):
            grads = pyad.autograd.grad([out for out, _ in kept], list(inputs),
                                       [g for _, g in kept], retain_graph=retain_graph,
                                       create_graph=create_graph, allow_unused=True)
    return [pyad.zeros_like(inp) if g is None else g for g, inp in zip(grads, inputs)]


def _check_outputs(flat_outputs, api, check_dtype):
    """torch's checks on the outputs of a function under vjp/jvp/jacrev."""
    if len(flat_outputs) == 0 or (len(flat_outputs) == 1 and flat_outputs[0] is None):
        raise RuntimeError("%s(): Expected f to be a function that has non-empty output (got "
                           "output = %r)" % (api, flat_outputs))
    for out in flat_outputs:
        if not isinstance(out, Variable):
            raise RuntimeError("%s(): expected f(*primals) to return only Variables, got "
                               "unsupported type %s" % (api, type(out)))
    if not check_dtype:
        return
    for out in flat_outputs:
        if out.dtype.kind not in "fc":
            raise RuntimeError("%s(): All outputs of f must be floating-point or complex "
                               "Variables, got one with dtype %s" % (api, out.dtype))


def _split_aux(output, has_aux, api):
    if not has_aux:
        return output, None
    if not (isinstance(output, tuple) and len(output) == 2):
        raise RuntimeError("%s(): output of function f should be a tuple: (output, aux) "
                           "if has_aux is True" % api)
    return output


def _error_if_complex(api, tree, is_input):
    leaves, _ = _tree_flatten(tree)
    for index, leaf in enumerate(leaves):
        if isinstance(leaf, Variable) and leaf.dtype.kind == "c":
            raise RuntimeError("%s(): Expected all %s to be real but received a complex "
                               "Variable at flattened input idx: %d"
                               % (api, "inputs" if is_input else "outputs", index))


# the transforms whose function is running now, innermost last: pyad.autograd.functional
# refuses to run detached results inside a differentiating one (not "vmap"), and
# Variable.requires_grad_() / retain_grad() refuse inside any / a differentiating one
class _ActiveTransforms(threading.local):
    """Per thread, as grad mode: each thread's own stack of running transforms."""

    def __init__(self):
        self.stack = []


_ACTIVE = _ActiveTransforms()
_engine._register_transforms(_ACTIVE)   # Variable.requires_grad_()/retain_grad() refuse inside

# the transforms that are forward mode in torch (their primals are dual Variables)
_FORWARD_APIS = ("jvp", "linearize", "jacfwd")


class _FwdOffRecorder:
    """What ``forward_ad._set_fwd_grad_enabled(False)`` marks while a forward-mode
    transform's function runs: the [first, end) sequence-number ranges of the ops recorded
    then. torch's forward-mode transforms give those ops no tangent (constants of forward
    mode), so `_cut_off_nodes` zeroes the gradients through them in the passes that
    build the tangents. The transform runs its function with forward grad mode on, as
    torch's jvp does, and puts the caller's mode back."""

    def start(self):
        from pyad.autograd import forward_ad
        self.fw = forward_ad
        forward_ad._func_recording[0] += 1
        self.first = len(forward_ad._fwd_off_ranges)
        self.mode = forward_ad._set_fwd_grad_enabled(True)

    def stop(self):
        fw = self.fw
        if not fw._fwd_grad_enabled[0]:      # func left it off: close the open range
            fw._set_fwd_grad_mode(True)
        ranges = [(first, end) for first, end in fw._fwd_off_ranges[self.first:]]
        fw._func_recording[0] -= 1
        if fw._level_state is None and fw._func_recording[0] == 0:
            del fw._fwd_off_ranges[self.first:]
        self.mode.__exit__(None, None, None)
        return ranges


def _cut_off_nodes(outputs, ranges):
    """Prehooks sending zeros upstream from the nodes of ``outputs``' graph recorded in
    ``ranges`` (see `_FwdOffRecorder`); returns their handles, to remove."""
    if not ranges:
        return []
    from pyad.autograd.forward_ad import _zero_grads
    found, seen = [], {}
    stack = [out.grad_fn for out in outputs if isinstance(out, Variable)]
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen[id(node)] = node
        if getattr(node, "variable", None) is not None:        # AccumulateGrad: a leaf
            continue
        seq = node._sequence_nr()
        if any(first <= seq < end for first, end in ranges):
            found.append(node)
            continue
        stack.extend(next_node for next_node, _ in node.next_functions)
    return [node.register_prehook(_zero_grads) for node in found]


def _remove_hooks(handles):
    for handle in handles:
        handle.remove()


class _Traced:
    """``func`` run once on private inputs: its flat outputs, the private inputs to
    differentiate with respect to, and what the results may keep of the graph."""

    def __init__(self, func, args, argnums, has_aux, api, check_outputs, kwargs=None):
        self.api = api
        self.outer_enabled = is_grad_enabled()
        with _TransformGradMode(True):
            if argnums is None:
                diff, replace = args, None
            else:
                diff = _slice_argnums(args, argnums, api, as_tuple=False)
                replace = argnums
            flat_diff, self.diff_spec = _tree_flatten(diff)
            self.private = [_private_input(value, api) for value in flat_diff]
            passed = self.private
            if api in _FORWARD_APIS:
                # torch's forward-mode primals are dual Variables, which ``func`` may
                # change in place (the change reaching the caller's Variable); a private
                # leaf that requires grad may not be, so ``func`` gets a copy of it,
                # written back below when ``func`` changed it
                passed = [p.clone() for p in self.private]
                versions = [p._version for p in passed]
            new_diff = _tree_unflatten(passed, self.diff_spec)
            if replace is None:
                call_args = new_diff
            else:
                one = isinstance(_normalize_argnums(replace, len(args), api), int)
                call_args = _replace_args(args, (new_diff,) if one else new_diff, replace, api)
            self.off_ranges = ()
            recorder = _FwdOffRecorder() if api in _FORWARD_APIS else None
            _ACTIVE.stack.append(api)
            try:
                if recorder is not None:
                    recorder.start()
                output = func(*call_args, **(kwargs or {}))
            finally:
                _ACTIVE.stack.pop()
                if recorder is not None:
                    self.off_ranges = recorder.stop()
        if passed is not self.private:
            for value, copy, version in zip(flat_diff, passed, versions):
                if copy._version != version:
                    with pyad.no_grad():
                        value.copy_(copy.detach())
        self.private_ids = {id(p) for p in self.private}
        output, aux = _split_aux(output, has_aux, api)
        self.output = output
        self.flat_outputs, self.output_spec = _tree_flatten(output)
        if check_outputs:
            _check_outputs(self.flat_outputs, api, check_dtype=check_outputs == "dtype")
        # whether the outputs' graph reaches outside the transform; vjp_fn decides with it
        # when it is called (torch's vjp under no_grad gives a vjp_fn that records its
        # backward pass when called with grad mode on)
        self.reaches_outer = any(
            _depends_on_outer(out, self.private_ids) for out in self.flat_outputs)
        self.outer = self.outer_enabled and self.reaches_outer
        self.unwrap = _unwrapper(self.private_ids, self.outer_enabled)
        self.aux = _tree_map(self._unwrap_aux, aux) if has_aux else None

    def _unwrap_aux(self, value):
        if not isinstance(value, Variable):
            raise RuntimeError("%s(): Expected Variables in aux, got unsupported type %s (the "
                               "aux output of f must be a pytree of Variables)"
                               % (self.api, type(value)))
        return self.unwrap(value)

    def unwrapped_output(self):
        return _tree_unflatten([self.unwrap(out) for out in self.flat_outputs], self.output_spec)


# ---------------------------------------------------------------------------
# grad, grad_and_value
# ---------------------------------------------------------------------------

def _grad_and_value(func, argnums, has_aux, args, kwargs, api):
    traced = _Traced(func, args, argnums, has_aux, api, check_outputs=False, kwargs=kwargs)
    output = traced.output
    if not isinstance(output, Variable):
        raise RuntimeError("%s(): Expected f(*args) to return a Variable, got %s"
                           % (api, type(output)))
    if output.dim() != 0:
        raise RuntimeError("%s(): Expected f(*args) to return a scalar (0-d) Variable, got one "
                           "with %d dims. Maybe you wanted to use the vjp or jacrev APIs instead?"
                           % (api, output.dim()))
    grads = _autograd_grad([output], traced.private, create_graph=traced.outer)
    unwrap = _unwrapper(traced.private_ids, traced.outer)
    grads = _tree_unflatten([unwrap(g) for g in grads], traced.diff_spec)
    value = traced.unwrap(output)
    _retire(traced.private)
    if has_aux:
        return grads, (value, traced.aux)
    return grads, value


def grad(func, argnums=0, has_aux=False):
    """The gradient of a function returning a scalar, as ``torch.func.grad``.

    ``grad(func, argnums)(*args, **kwargs)`` returns the gradient of
    ``func(*args, **kwargs)`` with respect to ``args[argnums]`` (an int; a tuple of
    ints gives a tuple of gradients). An argument may be a pytree (tuple, list or
    dict) of Variables; its gradient has the same structure. With ``has_aux=True``
    ``func`` returns ``(output, aux)`` and the result is ``(gradient, aux)``.
    The arguments need not require grad; the result requires grad only under an
    enclosing transform or when the inputs are themselves part of a graph.

    >>> x = pyad.tensor([1., 2.], dtype=pyad.float64)
    >>> grad(lambda x: (x ** 2).sum())(x)
    tensor([2., 4.], dtype=float64)
    >>> grad(grad(lambda x: x.sin()))(pyad.tensor(0.5, dtype=pyad.float64))
    tensor(-0.4794, dtype=float64)
    >>> grad(lambda p, y: (p["w"] * y).sum(), argnums=(0, 1))({"w": x}, x)
    ({'w': tensor([1., 2.], dtype=float64)}, tensor([1., 2.], dtype=float64))
    """
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        results = _grad_and_value(func, argnums, has_aux, args, kwargs, "grad")
        if has_aux:
            gradient, (_, aux) = results
            return gradient, aux
        return results[0]
    return wrapper


def grad_and_value(func, argnums=0, has_aux=False):
    """Like `grad`, but returns ``(gradient, value)`` (``(gradient, (value, aux))``
    with ``has_aux=True``), as ``torch.func.grad_and_value``.

    >>> x = pyad.tensor([1., 2.], dtype=pyad.float64)
    >>> grad_and_value(lambda x: (x ** 2).sum())(x)
    (tensor([2., 4.], dtype=float64), tensor(5., dtype=float64))
    """
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        return _grad_and_value(func, argnums, has_aux, args, kwargs, "grad_and_value")
    return wrapper


# ---------------------------------------------------------------------------
# vjp
# ---------------------------------------------------------------------------

def vjp(func, *primals, has_aux=False):
    """``(func(*primals), vjp_fn)``, as ``torch.func.vjp``.

    ``vjp_fn(cotangents, retain_graph=True, create_graph=None)`` takes cotangents
    with the structure of the output and returns a tuple with one vector-Jacobian
    product per primal (each with that primal's structure). It may be called any
    number of times. ``create_graph`` defaults to whether grad mode is on. With
    ``has_aux=True`` ``func`` returns ``(output, aux)`` and vjp returns
    ``(output, vjp_fn, aux)``.

    >>> x = pyad.tensor([1., 2.], dtype=pyad.float64)
    >>> out, vjp_fn = vjp(lambda x: x ** 2, x)
    >>> vjp_fn(pyad.ones(2, dtype=pyad.float64))
    (tensor([2., 4.], dtype=float64),)
    """
    return _vjp(func, primals, None, has_aux)


def _vjp(func, primals, argnums, has_aux):
    traced = _Traced(func, primals, argnums, has_aux, "vjp", check_outputs="dtype")

    def vjp_fn(cotangents, retain_graph=True, create_graph=None):
        if create_graph is None:
            create_graph = is_grad_enabled()
        flat_cotangents, cotangents_spec = _tree_flatten(cotangents)
        if cotangents_spec != traced.output_spec:
            raise RuntimeError("vjp_fn(): Expected pytree structure of cotangents to be the same "
                               "as pytree "
                               "structure of outputs to the function. cotangents: %r, primal "
                               "output: %r" % (cotangents_spec, traced.output_spec))
        for index, (cot, out) in enumerate(zip(flat_cotangents, traced.flat_outputs)):
            if not isinstance(cot, Variable):
                raise TypeError("vjp_fn(): expected the cotangents to be Variables, got %s"
                                % type(cot))
            if tuple(cot.shape) != tuple(out.shape):
                raise RuntimeError("vjp_fn(): Mismatch in shape: grad_output[%d] has a shape "
                                   "of %s and output[%d] has a shape of %s."
                                   % (index, tuple(cot.shape), index, tuple(out.shape)))
        keep = create_graph and (traced.reaches_outer
                                 or any(c.requires_grad for c in flat_cotangents))
        grads = _autograd_grad(traced.flat_outputs, traced.private, flat_cotangents,
                               retain_graph=retain_graph, create_graph=keep)
        unwrap = _unwrapper(traced.private_ids, keep)
        return _tree_unflatten([unwrap(g) for g in grads], traced.diff_spec)

    output = traced.unwrapped_output()
    _retire(traced.private)
    if has_aux:
        return output, vjp_fn, traced.aux
    return output, vjp_fn


# ---------------------------------------------------------------------------
# jvp and linearize: forward mode through the double-vjp trick
# ---------------------------------------------------------------------------

def _check_tangents(flat_primals, flat_tangents, api):
    for name, flat in (("primals", flat_primals), ("tangents", flat_tangents)):
        if len(flat) == 0:
            raise RuntimeError("%s(): Expected %s to contain at least one Variable."
                               % (api, name))
        for value in flat:
            if not isinstance(value, Variable):
                raise RuntimeError("%s(): Expected %s to only contain Variables, got %s"
                                   % (api, name, type(value)))
    for primal, tangent in zip(flat_primals, flat_tangents):
        if tuple(primal.shape) != tuple(tangent.shape):
            raise RuntimeError(
                "%s(): Trying to set a forward gradient that has a different size than that of "
                "the primal, this is not supported. The primal is of size %s while the given "
                "forward gradient is of size %s."
                % (api, list(primal.shape), list(tangent.shape)))


class _Linearized:
    """``func`` traced once with the backward pass recorded against placeholder
    cotangents ``u``; since that pass is linear in ``u``, differentiating it with
    respect to ``u`` in the direction of a tangent gives the tangent's image."""

    def __init__(self, func, primals, argnums, has_aux, api):
        self.traced = _Traced(func, primals, argnums, has_aux, api, check_outputs=True)
        traced = self.traced
        with _TransformGradMode(True):
            self.diff_outputs = [i for i, out in enumerate(traced.flat_outputs)
                                 if out.requires_grad]
            # Zeros are safe: the value of u never shows in the result (no inf/NaN leaks in).
            self.placeholders = [pyad.zeros_like(traced.flat_outputs[i])._mark_requires_grad(True)
                                 for i in self.diff_outputs]
            self.backward = [None] * len(traced.private)
            if self.diff_outputs:
                handles = _cut_off_nodes(traced.flat_outputs, traced.off_ranges)
                try:
                    self.backward = list(pyad.autograd.grad(
                        [traced.flat_outputs[i] for i in self.diff_outputs], traced.private,
                        self.placeholders, create_graph=True, allow_unused=True))
                finally:
                    _remove_hooks(handles)
        self.private_ids = traced.private_ids | {id(u) for u in self.placeholders}

    def retire(self):
        _retire(self.traced.private + self.placeholders)

    def push(self, flat_tangents, strict, retain_graph):
        traced = self.traced
        tangents = [t if t.dtype == p.dtype else t.to(dtype=p.dtype)
                    for t, p in zip(flat_tangents, traced.private)]
        keep = traced.outer_enabled and (traced.outer or any(t.requires_grad for t in tangents))
        used = [(b, t) for b, t in zip(self.backward, tangents)
                if b is not None and b.requires_grad]
        images = [None] * len(self.placeholders)
        if used:
            with _TransformGradMode(keep):
                images = pyad.autograd.grad([b for b, _ in used], self.placeholders,
                                            [t for _, t in used], retain_graph=retain_graph,
                                            create_graph=keep, allow_unused=True)
        result = [None] * len(traced.flat_outputs)
        for index, image in zip(self.diff_outputs, images):
            result[index] = image
        unwrap = _unwrapper(self.private_ids, keep)
        tangents_out = []
        for out, image in zip(traced.flat_outputs, result):
            if image is None:
                if strict:
                    raise RuntimeError("jvp(): (strict=True) The output of f "
                                       "is independent of the inputs. This is not allowed with "
                                       "strict=True.")
                image = pyad.zeros_like(out)
            tangents_out.append(unwrap(image))
        return _tree_unflatten(tangents_out, traced.output_spec)


def jvp(func, primals, tangents, *, strict=False, has_aux=False):
    """``(func(*primals), J @ tangents)``, as ``torch.func.jvp``.

    ``primals`` is a tuple (``func(*primals)`` must work) and ``tangents`` has the
    same structure and shapes. Returns ``(output, jvp_out)`` with ``jvp_out`` shaped
    like the output (``(output, jvp_out, aux)`` with ``has_aux=True``). Outputs that
    do not depend on the inputs get zero tangents, or raise with ``strict=True``.
    Computed with two reverse passes (pyad has no forward mode); the results are
    torch's. As with torch's dual Variables, ``func`` may change a primal in place
    (the change reaches the caller's Variable).

    >>> x = pyad.tensor([1., 2.], dtype=pyad.float64)
    >>> jvp(lambda x: x ** 3, (x,), (pyad.ones(2, dtype=pyad.float64),))
    (tensor([1., 8.], dtype=float64), tensor([ 3., 12.], dtype=float64))
    """
    return _jvp(func, primals, tangents, None, strict, has_aux)


def _jvp(func, primals, tangents, argnums, strict, has_aux):
    if not isinstance(primals, tuple):
        raise RuntimeError("jvp(): Expected primals to be a tuple. E.g. it should be valid to "
                           "call f(*primals).")
    diff = primals if argnums is None else _slice_argnums(primals, argnums, "jvp")
    flat_primals, primals_spec = _tree_flatten(diff)
    flat_tangents, tangents_spec = _tree_flatten(tangents)
    if primals_spec != tangents_spec:
        raise RuntimeError("jvp(): Expected primals and tangents to have the same python "
                           "structure. "
                           "For example, if primals is a tuple of 3 tensors, tangents also must "
                           "be. Got primals with structure %r and tangents with structure %r"
                           % (primals_spec, tangents_spec))
    _check_tangents(flat_primals, flat_tangents, "jvp")
    linearized = _Linearized(func, primals, argnums, has_aux, "jvp")
    tangents_out = linearized.push(flat_tangents, strict, retain_graph=False)
    output = linearized.traced.unwrapped_output()
    linearized.retire()
    if has_aux:
        return output, tangents_out, linearized.traced.aux
    return output, tangents_out


def linearize(func, *primals):
    """``(func(*primals), jvp_fn)``, as ``torch.func.linearize``.

    ``jvp_fn(*tangents)`` returns the Jacobian-vector product at ``primals`` for
    tangents shaped like the primals. The function is traced once; each call of
    ``jvp_fn`` reuses that trace (one reverse pass through the recorded backward).

    >>> x = pyad.tensor([1., 2.], dtype=pyad.float64)
    >>> out, jvp_fn = linearize(lambda x: x.exp(), x)
    >>> jvp_fn(pyad.ones(2, dtype=pyad.float64))
    tensor([2.7183, 7.3891], dtype=float64)
    """
    flat_primals, primals_spec = _tree_flatten(primals)
    linearized = _Linearized(func, primals, None, False, "linearize")

    def jvp_fn(*tangents):
        flat_tangents, tangents_spec = _tree_flatten(tangents)
        if tangents_spec != primals_spec:
            raise RuntimeError("jvp_fn(): Expected the tangents %r to have the same argspec as "
                               "the primals %r" % (tangents_spec, primals_spec))
        for index, (tangent, primal) in enumerate(zip(flat_tangents, flat_primals)):
            if not isinstance(tangent, Variable):
                raise RuntimeError("jvp_fn(): expected the tangents to be Variables, got %s"
                                   % type(tangent))
            for what, got, want in (("shape", tuple(tangent.shape), tuple(primal.shape)),
                                    ("device", tangent.device, primal.device),
                                    ("dtype", tangent.dtype, primal.dtype)):
                if got != want:
                    raise RuntimeError("jvp_fn(): tangent:%d with %s %s in flattened pytree "
                                       "doesn't match the %s %s of the corresponding primal."
                                       % (index, what, got, what, want))
        return linearized.push(flat_tangents, strict=False, retain_graph=True)

    output = linearized.traced.unwrapped_output()
    linearized.retire()
    return output, jvp_fn


# ---------------------------------------------------------------------------
# jacrev, jacfwd, hessian
# ---------------------------------------------------------------------------

def _jacobian(func, argnums, has_aux, api, args):
    _error_if_complex(api, args, is_input=True)
    traced = _Traced(func, args, argnums, has_aux, api,
                     check_outputs="dtype" if api == "jacrev" else True)
    _error_if_complex(api, traced.flat_outputs, is_input=False)
    keep = traced.outer
    unwrap = _unwrapper(traced.private_ids, keep)
    per_output = []
    handles = _cut_off_nodes(traced.flat_outputs, traced.off_ranges)
    try:
        per_output = _jacobian_blocks(traced, keep, unwrap)
    finally:
        _remove_hooks(handles)
    result = _tree_unflatten(per_output, traced.output_spec)
    _retire(traced.private)
    return (result, traced.aux) if has_aux else result


def _jacobian_blocks(traced, keep, unwrap):
    per_output = []
    for out in traced.flat_outputs:
        rows = [[] for _ in traced.private]        # rows[i][k]: d out.flat[k] / d input i
        xp = pyad.get_array_module(out)
        for k in range(out.numel()):
            basis = xp.zeros(out.numel(), dtype=out.dtype)
            basis[k] = 1
            cotangent = pyad.Variable(basis.reshape(out.shape))
            grads = _autograd_grad([out], traced.private, [cotangent], retain_graph=True,
                                   create_graph=keep)
            for i, g in enumerate(grads):
                rows[i].append(g)
        jac = []
        for i, primal in enumerate(traced.private):
            shape = tuple(out.shape) + tuple(primal.shape)
            if rows[i]:
                block = pyad.stack(rows[i]).reshape(shape)
            else:
                block = pyad.zeros(shape, dtype=primal.dtype, device=primal.device)
            jac.append(unwrap(block))
        per_output.append(_tree_unflatten(jac, traced.diff_spec))
    return per_output


def jacrev(func, argnums=0, *, has_aux=False, chunk_size=None):
    """The Jacobian of ``func`` with respect to ``args[argnums]`` by reverse mode, as
    ``torch.func.jacrev``.

    For an output ``o`` and an input ``x`` the block has shape ``o.shape + x.shape``;
    pytrees of outputs and inputs nest as torch does (outputs outside, inputs inside;
    a tuple ``argnums`` adds a tuple level). ``chunk_size`` is checked and accepted:
    the rows are computed one reverse pass each in any case. With ``has_aux=True``
    returns ``(jacobian, aux)``.

    >>> x = pyad.tensor([1., 2.], dtype=pyad.float64)
    >>> jacrev(lambda x: x ** 2)(x)
    tensor([[2., 0.],
            [0., 4.]], dtype=float64)
    """
    if not (chunk_size is None or chunk_size > 0):
        raise ValueError("jacrev(): `chunk_size` should be greater than 0.")

    @functools.wraps(func)
    def wrapper(*args):
        return _jacobian(func, argnums, has_aux, "jacrev", args)
    return wrapper


def jacfwd(func, argnums=0, has_aux=False, *, randomness="error"):
    """The Jacobian of ``func`` with respect to ``args[argnums]``, as
    ``torch.func.jacfwd``.

    Same results and structure as `jacrev` (pyad computes it with reverse passes,
    one per output element, rather than forward mode). ``randomness`` is as in
    `vmap`: with ``"error"`` a random operation in ``func`` raises.

    >>> x = pyad.tensor([1., 2.], dtype=pyad.float64)
    >>> jacfwd(lambda x: x.sum() * x)(x)
    tensor([[4., 1.],
            [2., 5.]], dtype=float64)
    """
    _check_randomness_arg(randomness)

    @functools.wraps(func)
    def wrapper(*args):
        with _RandomnessGuard(randomness):
            return _jacobian(func, argnums, has_aux, "jacfwd", args)
    return wrapper


def hessian(func, argnums=0):
    """The Hessian of a scalar function, ``jacfwd(jacrev(func, argnums), argnums)``,
    as ``torch.func.hessian``.

    >>> x = pyad.tensor([1., 2.], dtype=pyad.float64)
    >>> hessian(lambda x: (x ** 3).sum())(x)
    tensor([[ 6.,  0.],
            [ 0., 12.]], dtype=float64)
    """
    return jacfwd(jacrev(func, argnums), argnums)


# ---------------------------------------------------------------------------
# vmap: one call per slice, results stacked
# ---------------------------------------------------------------------------

def _check_randomness_arg(randomness):
    if randomness not in ("error", "different", "same"):
        raise RuntimeError("vmap(): Only allowed values for randomness are 'error', 'different', "
                           "or 'same'. Got %s" % (randomness,))


def _rng_state():
    """A comparable snapshot of the default CPU generator's state."""
    from pyad._factories import default_generator
    rng = default_generator._rng
    return rng.bit_generator.state if isinstance(rng, numpy.random.Generator) else None


def _set_rng_state(state):
    from pyad._factories import default_generator
    if state is not None:
        default_generator._rng.bit_generator.state = state


class _RandomnessGuard:
    """randomness="error": a call that draws from the default generator raises
    (and the draw is undone), as torch's vmap refuses random operations."""

    def __init__(self, randomness):
        self.randomness = randomness

    def __enter__(self):
        self.before = _rng_state() if self.randomness == "error" else None
        return self

    def __exit__(self, kind, value, traceback):
        if self.before is None or kind is not None:
            return False
        if _rng_state() != self.before:
            _set_rng_state(self.before)
            raise RuntimeError("vmap(): called random operation while in randomness error mode. "
                               "Please either use the 'same' or 'different' randomness flags on "
                               "vmap or perform the randomness operation out of vmap")
        return False


def _process_batched_inputs(in_dims, args, func):
    name = _name(func)
    if not (isinstance(in_dims, int) and not isinstance(in_dims, bool)) \
            and not isinstance(in_dims, tuple):
        raise ValueError("vmap(%s, in_dims=%s, ...)(<inputs>): expected `in_dims` to be int or a "
                         "(potentially nested) tuple matching the structure of inputs, got: %s."
                         % (name, in_dims, type(in_dims)))
    if len(args) == 0:
        raise ValueError("vmap(%s)(<inputs>): got no inputs. Maybe you forgot to add inputs, or "
                         "you are trying to vmap over a function with no inputs. The latter is "
                         "unsupported." % name)
    flat_args, args_spec = _tree_flatten(args)
    flat_in_dims = _broadcast_to_and_flatten(in_dims, args_spec)
    if flat_in_dims is None:
        raise ValueError("vmap(%s, in_dims=%s, ...)(<inputs>): in_dims is not compatible with the "
                         "structure of `inputs`. in_dims has structure %r but inputs has "
                         "structure %r." % (name, in_dims, _tree_flatten(in_dims)[1], args_spec))
    for i, (arg, in_dim) in enumerate(zip(flat_args, flat_in_dims)):
        if in_dim is not None and (not isinstance(in_dim, int) or isinstance(in_dim, bool)):
            raise ValueError("vmap(%s, in_dims=%s, ...)(<inputs>): Got in_dim=%s for an input but "
                             "in_dim must be either an integer dimension or None."
                             % (name, in_dims, in_dim))
        if in_dim is not None and not isinstance(arg, Variable):
            raise ValueError("vmap(%s, in_dims=%s, ...)(<inputs>): Got in_dim=%s for an input but "
                             "the input is of type %s. We cannot vmap over non-Variable arguments, "
                             "please use None as the respective in_dim"
                             % (name, in_dims, in_dim, type(arg)))
        if in_dim is not None and not -arg.dim() <= in_dim < arg.dim():
            raise ValueError("vmap(%s, in_dims=%s, ...)(<inputs>): Got in_dim=%d for some input, "
                             "but that input is a Variable of dimensionality %d so expected in_dim "
                             "to satisfy -%d <= in_dim < %d."
                             % (name, in_dims, in_dim, arg.dim(), arg.dim(), arg.dim()))
        if in_dim is not None and in_dim < 0:
            flat_in_dims[i] = in_dim % arg.dim()
    sizes = [arg.shape[d] for arg, d in zip(flat_args, flat_in_dims) if d is not None]
    if not sizes:
        raise ValueError("vmap(): Expected at least one Variable to vmap over")
    if any(size != sizes[0] for size in sizes):
        raise ValueError("vmap(): Expected all Variables to have the same size in the mapped "
                         "dimension, got sizes %s for the mapped dimension" % sizes)
    return sizes[0], flat_in_dims, flat_args, args_spec


def _check_out_dims(out_dims, func):
    leaves = [out_dims] if isinstance(out_dims, int) else _tree_flatten(out_dims)[0]
    for leaf in leaves:
        if leaf is not None and (not isinstance(leaf, int) or isinstance(leaf, bool)):
            raise ValueError("vmap(%s, ..., out_dims=%s): `out_dims` must be an int, None or a "
                             "python collection of ints representing where in the outputs the "
                             "vmapped dimension should appear." % (_name(func), out_dims))


def _same_values(values):
    first = values[0]
    for other in values[1:]:
        if other is first:
            continue
        if not isinstance(other, Variable) or other.shape != first.shape \
                or other.dtype != first.dtype:
            return False
        a, b = pyad.get_array_module(first).asarray(first.data), other.data
        if not bool((a == b).all()):
            return False
    return True


def _stack_outputs(per_slice, out_dims, func, empty):
    name = _name(func)
    flat_first, spec = _tree_flatten(per_slice[0])
    flat_slices = [flat_first]
    for output in per_slice[1:]:
        flat, other_spec = _tree_flatten(output)
        if other_spec != spec:
            raise RuntimeError("vmap(%s, ...): the function returned outputs of different "
                               "structures for different batch entries (%r and %r); vmap needs "
                               "the same structure for every entry." % (name, spec, other_spec))
        flat_slices.append(flat)

    def incompatible():
        raise ValueError("vmap(%s, ..., out_dims=%s)(<inputs>): out_dims is not compatible with "
                         "the structure of `outputs`. out_dims has structure %r but outputs has "
                         "structure %r." % (name, out_dims, _tree_flatten(out_dims)[1], spec))

    if isinstance(per_slice[0], Variable):
        if isinstance(out_dims, int) or out_dims is None:
            flat_out_dims = [out_dims]
        elif isinstance(out_dims, tuple) and len(out_dims) == 1:
            flat_out_dims = list(out_dims)
        else:
            incompatible()
    else:
        flat_out_dims = _broadcast_to_and_flatten(out_dims, spec)
        if flat_out_dims is None:
            incompatible()

    results = []
    for position, out_dim in enumerate(flat_out_dims):
        values = [flat[position] for flat in flat_slices]
        first = values[0]
        if out_dim is None:
            if isinstance(first, Variable) and not (empty or _same_values(values)):
                raise ValueError("vmap(%s, ...): `%s` can not return a batched Variable (torch: "
                                 "a BatchedTensor) when out_dim is None" % (name, name))
            results.append(first)
            continue
        if not isinstance(first, Variable):
            raise ValueError("vmap(%s, ...): `%s` must only return Variables, got type %s. Did you "
                             "mean to set out_dims= to None for output?"
                             % (name, name, type(first)))
        rank = first.dim() + 1
        if not -rank <= out_dim < rank:
            raise IndexError("vmap(): out_dims: Dimension out of range (expected to be in range "
                             "of [%d, %d], but got %d)" % (-rank, rank - 1, out_dim))
        stacked = pyad.stack(values, dim=out_dim)
        if empty:
            stacked = stacked.narrow(out_dim, 0, 0)
        results.append(stacked)
    return _tree_unflatten(results, spec)


def _check_unbatched_unmodified(unbatched, batch_size, func):
    """An in-place op on an input vmap does not map (in_dim None) would run once per
    entry here; torch refuses to write a batched value into an unbatched tensor
    (RuntimeError), so refuse every such write rather than apply it batch_size times."""
    for position, arg, version in unbatched:
        if arg._version != version:
            raise RuntimeError("vmap(%s): an in-place operation modified input %d, which is not "
                               "mapped (in_dim=None): output with shape %s doesn't match the "
                               "broadcast shape %s. Map that input too, or use the out-of-place "
                               "op." % (_name(func), position, list(arg.shape),
                                        [batch_size] + list(arg.shape)))


def vmap(func, in_dims=0, out_dims=0, randomness="error", *, chunk_size=None):
    """Map ``func`` over a dimension of its inputs, as ``torch.func.vmap``.

    ``vmap(func, in_dims, out_dims)(*args, **kwargs)`` calls ``func`` on each slice
    ``args[..., i, ...]`` along the dimensions ``in_dims`` names (an int, or a tuple
    matching the arguments' pytree; None leaves an argument whole) and stacks the
    results along ``out_dims`` (an int, a pytree of them, or None for an output that
    is the same for every slice). Keyword arguments are passed unmapped.

    Unlike torch, pyad does not vectorise: ``func`` runs once per batch entry, so
    the result is right for any function (data-dependent control flow included) but
    costs a Python call per entry. Slicing and stacking are differentiable, so
    gradients flow through vmap's result to its inputs. ``randomness="error"``
    raises if ``func`` draws from the default generator, ``"same"`` replays the same
    draws for every entry, ``"different"`` lets each entry draw its own.
    ``chunk_size`` is checked and otherwise changes nothing. An in-place op on an
    input that is not mapped (in_dim None) raises RuntimeError, as torch does when the
    written value is batched (pyad would otherwise apply it once per entry).

    >>> x = pyad.tensor([[1., 2.], [3., 4.]], dtype=pyad.float64)
    >>> vmap(lambda row: row.sum())(x)
    tensor([3., 7.], dtype=float64)
    >>> vmap(pyad.dot, in_dims=(0, None))(x, pyad.tensor([1., 1.], dtype=pyad.float64))
    tensor([3., 7.], dtype=float64)
    >>> vmap(lambda col: col * 2, in_dims=1, out_dims=1)(x)
    tensor([[2., 4.],
            [6., 8.]], dtype=float64)
    """
    _check_randomness_arg(randomness)
    if not (chunk_size is None or chunk_size > 0):
        raise ValueError("vmap(): chunk_size should be None or greater than 0. (got %s)"
                         % (chunk_size,))

    @functools.wraps(func)
    def wrapped(*args, **kwargs):
        _check_out_dims(out_dims, func)
        batch_size, flat_in_dims, flat_args, args_spec = _process_batched_inputs(
            in_dims, args, func)
        start = _rng_state() if randomness == "same" else None
        unbatched = [(position, arg, arg._version) for position, (arg, d)
                     in enumerate(zip(flat_args, flat_in_dims))
                     if d is None and isinstance(arg, Variable)]
        per_slice = []
        for index in range(max(batch_size, 1)):
            if batch_size == 0:     # run once on a zero entry to learn the outputs' shapes
                sliced = [arg if d is None else
                          pyad.zeros(tuple(arg.shape[:d]) + tuple(arg.shape[d + 1:]),
                                     dtype=arg.dtype, device=arg.device)
                          for arg, d in zip(flat_args, flat_in_dims)]
            else:
                sliced = [arg if d is None else arg.select(d, index)
                          for arg, d in zip(flat_args, flat_in_dims)]
            if start is not None:
                _set_rng_state(start)
            _ACTIVE.stack.append("vmap")
            try:
                with _RandomnessGuard(randomness):
                    per_slice.append(func(*_tree_unflatten(sliced, args_spec), **kwargs))
            finally:
                _ACTIVE.stack.pop()
            if batch_size > 1:
                _check_unbatched_unmodified(unbatched, batch_size, func)
        return _stack_outputs(per_slice, out_dims, func, empty=batch_size == 0)
    return wrapped


# ---------------------------------------------------------------------------
# functional_call
# ---------------------------------------------------------------------------

def functional_call(module, parameter_and_buffer_dicts, args=None, kwargs=None, *,
                    tie_weights=True, strict=False):
    """Call ``module`` with some parameters and buffers replaced, as
    ``torch.func.functional_call``.

    ``parameter_and_buffer_dicts`` maps dotted names (as ``named_parameters``
    gives them) to Variables, or is a list/tuple of such dicts with distinct keys.
    The module holds these for the call only: its own are put back afterwards, also
    when the call raises. ``args`` is one argument or a tuple of them, ``kwargs`` a
    dict. With ``tie_weights=True`` (the default) a value given for one of several
    tied names is used for all of them; ``strict=True`` requires exactly the module's
    names. Gradients flow to the given Variables, so ``grad(lambda p:
    loss(functional_call(model, p, x)))(params)`` differentiates a model by its
    parameters without touching the model.

    >>> model = pyad.nn.Linear(2, 1)
    >>> params = {"weight": pyad.ones(1, 2), "bias": pyad.zeros(1)}
    >>> functional_call(model, params, (pyad.tensor([[1., 2.]]),))
    tensor([[3.]])
    >>> model.weight is not params["weight"]
    True
    """
    if isinstance(parameter_and_buffer_dicts, dict):
        values = parameter_and_buffer_dicts
    elif isinstance(parameter_and_buffer_dicts, (list, tuple)):
        if not all(isinstance(d, dict) for d in parameter_and_buffer_dicts):
            raise ValueError("functional_call(): Expected all elements of "
                             "parameter_and_buffer_dicts to be "
                             "dictionaries")
        counts = {}
        for d in parameter_and_buffer_dicts:
            for key in d:
                counts[key] = counts.get(key, 0) + 1
        repeated = [key for key, n in counts.items() if n > 1]
        if repeated:
            raise ValueError("functional_call(): %s appeared in multiple dictionaries; behavior "
                             "of functional call is ambiguous" % repeated)
        values = {k: v for d in parameter_and_buffer_dicts for k, v in d.items()}
    else:
        raise ValueError("functional_call(): Expected parameter_and_buffer_dicts to be a dict, "
                         "or a list/tuple of "
                         "dicts, but got %s" % type(parameter_and_buffer_dicts))
    # One implementation of the swap, torch's layout: nn.utils.stateless holds it
    return _stateless_call(module, values, args, kwargs, tie_weights=tie_weights,
                           strict=strict)


# ---------------------------------------------------------------------------
# stack_module_state
# ---------------------------------------------------------------------------

def _construct_stacked_leaf(variables, name):
    all_requires_grad = all(v.requires_grad for v in variables)
    none_requires_grad = all(not v.requires_grad for v in variables)
    if not all_requires_grad and not none_requires_grad:
        raise RuntimeError("stack_module_state(): Expected %s from each model to have the same "
                           ".requires_grad" % name)
    result = pyad.stack(variables)
    if all_requires_grad:
        result = result.detach()._mark_requires_grad()
    return result


def stack_module_state(models):
    """Stack the parameters and buffers of same-class models, as
    ``torch.func.stack_module_state``.

    Returns ``(params, buffers)``: dicts mapping each name ``named_parameters`` and
    ``named_buffers`` give to the stack of that entry of every model (a new leading
    dimension of size ``len(models)``). Stacked parameters are new leaves that require
    grad (detached from the models); buffers are stacked as they are. With
    `functional_call` and `vmap` this runs an ensemble of models as one function.
    The models must be of one class and all in training or all in eval mode.

    >>> models = [pyad.nn.Linear(2, 3) for _ in range(4)]
    >>> params, buffers = stack_module_state(models)
    >>> params["weight"].shape, params["weight"].requires_grad, buffers
    ((4, 3, 2), True, {})
    """
    models = list(models)
    if len(models) == 0:
        raise RuntimeError("stack_module_state(): Expected at least one model, got 0.")
    if not (all(m.training for m in models) or all(not m.training for m in models)):
        raise RuntimeError("stack_module_state(): Expected all models to have the same "
                           "training/eval mode.")
    model0_type = type(models[0])
    if not all(type(m) is model0_type for m in models):
        raise RuntimeError("stack_module_state(): Expected all models to be of the same class.")
    all_params = [dict(model.named_parameters()) for model in models]
    params = {k: _construct_stacked_leaf(tuple(p[k] for p in all_params), k)
              for k in all_params[0]}
    all_buffers = [dict(model.named_buffers()) for model in models]
    buffers = {k: _construct_stacked_leaf(tuple(b[k] for b in all_buffers), k)
               for k in all_buffers[0]}
    return params, buffers



# functorch's older API (make_functional, ...) lives in pyad/_functorch_compat.py, which
# subclasses nn.Module; pyad.nn imports this module, so it is loaded on first use
_FUNCTORCH_NAMES = ("make_functional", "make_functional_with_buffers",
                    "combine_state_for_ensemble", "FunctionalModule",
                    "FunctionalModuleWithBuffers")


def __getattr__(name):
    if name in _FUNCTORCH_NAMES:
        from pyad import _functorch_compat
        return getattr(_functorch_compat, name)
    raise AttributeError("module 'pyad.func' has no attribute %r" % name)
