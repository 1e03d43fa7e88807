"""The backward graph: what it saves (``saved_tensors_hooks``, ``save_on_cpu``,
``disable_saved_tensors_hooks``, ``increment_version``, as ``torch.autograd.graph``)
and a picture of it
(``to_dot`` and ``render``).

`to_dot` walks the graph behind one or more outputs through the public node API
(``Variable.grad_fn``, ``Node.next_functions``, ``Node.name()``,
``AccumulateGrad.variable`` and, for custom Functions, ``saved_tensors``) and
returns it as Graphviz DOT text. It needs nothing outside the standard library.
`render` draws that text with the ``graphviz`` Python package and Graphviz's
``dot`` program (``pip install pyad[viz]`` and, for example,
``apt-get install graphviz``).

Edges point the way data flowed in the forward pass: from a leaf or the node
that produced an input, to the node that used it, and on to the outputs. An
input used twice (``y * y``) gives two edges.
"""

import contextlib
import shutil
import weakref

import pyad
from pyad import _engine

__all__ = ["Node", "GradientEdge", "get_gradient_edge", "saved_tensors_hooks", "save_on_cpu",
           "disable_saved_tensors_hooks", "increment_version", "register_multi_grad_hook",
           "allow_mutation_on_saved_tensors", "to_dot", "render"]


class _NodeMeta(type):
    def __instancecheck__(cls, instance):
        return isinstance(instance, _engine.Node)

    def __subclasscheck__(cls, subclass):
        return subclass is cls or (isinstance(subclass, type)
                                   and issubclass(subclass, _engine.Node))


class Node(metaclass=_NodeMeta):
    """The abstract type of the backward graph's nodes, as ``torch.autograd.graph.Node``:
    ``isinstance(v.grad_fn, Node)`` holds for every node (built-in ones, ``AccumulateGrad``
    and the nodes of custom Functions, whose ``ctx`` is one too) and
    ``issubclass(type(v.grad_fn), Node)`` for their classes, although, as in torch,
    ``Node`` is not in their ``mro()`` (a "virtual" base class). A node has
    ``name()``, ``next_functions``, ``metadata``, ``register_hook`` and
    ``register_prehook``.

    >>> import pyad
    >>> x = pyad.tensor([1.0], requires_grad=True)
    >>> isinstance(x.exp().grad_fn, Node), Node in type(x.exp().grad_fn).mro()
    (True, False)
    """


class _MultiHandle:
    """The handle of `register_multi_grad_hook`: ``remove()`` removes every hook."""

    def __init__(self, handles):
        self.handles = tuple(handles)

    def remove(self):
        for handle in self.handles:
            if handle is not None:
                handle.remove()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


def register_multi_grad_hook(tensors, fn, *, mode="all"):
    """Call ``fn`` once per backward pass for the gradients of several Variables, as
    ``torch.autograd.graph.register_multi_grad_hook``.

    With ``mode="all"`` ``fn(grads)`` gets a tuple with one entry per Variable of
    ``tensors``: its gradient, or None where the pass computed none; it runs once
    per backward pass that computed any of them (at the end of the pass: torch runs
    it when the last one is computed). With ``mode="any"`` ``fn(grad)`` runs once
    per pass, with the first of those gradients computed. The return value of
    ``fn`` is ignored. Returns a handle whose ``remove()`` removes the hook.

    >>> import pyad
    >>> a = pyad.tensor([1.0, 2.0], requires_grad=True)
    >>> b = pyad.tensor([3.0], requires_grad=True)
    >>> seen = []
    >>> handle = register_multi_grad_hook((a, b), lambda grads: seen.append(grads))
    >>> (a * 2).sum().backward()
    >>> seen
    [(tensor([2., 2.]), None)]
    """
    supported = ("all", "any")
    if mode not in supported:
        raise ValueError("register_multi_grad_hook(): Expects mode to be one of %s but got %s"
                         % (supported, mode))
    tensors = tuple(tensors)
    queue_callback = pyad.Variable._execution_engine.queue_callback
    # The state of the backward pass now running: a weak reference to a token that only
    # the callback queued in that pass holds, so it dies with the pass, whether the pass
    # ran its callbacks or stopped on an error (a pass that raised leaves no stale state).
    current = {"token": None, "buffer": None}

    def pass_state():
        token = current["token"]() if current["token"] is not None else None
        return token is not None

    if mode == "all":
        def inner_hook(index):
            def hook(grad):
                if not pass_state():
                    token, buffer = _PassToken(), [None] * len(tensors)
                    current["token"], current["buffer"] = weakref.ref(token), buffer

                    def fire(token=token, buffer=buffer):
                        if current["buffer"] is buffer:
                            current["token"] = current["buffer"] = None
                        fn(tuple(buffer))
                    queue_callback(fire)
                current["buffer"][index] = grad
            return hook

        return _MultiHandle(tensor.register_hook(inner_hook(index))
                            if tensor.requires_grad else None
                            for index, tensor in enumerate(tensors))

    def any_hook(grad):
        if pass_state():
            return
        token = _PassToken()
        current["token"] = weakref.ref(token)
        queue_callback(lambda token=token: None)
        fn(grad)

    return _MultiHandle(tensor.register_hook(any_hook) for tensor in tensors
                        if tensor.requires_grad)


class _PassToken:
    """Lives as long as the backward pass that queued a callback holding it."""


class _SavedHandle:
    """What a Variable saved inside ``allow_mutation_on_saved_tensors`` is packed into."""


class _MutationOnSavedContext:
    """What ``allow_mutation_on_saved_tensors()`` yields, with torch's bookkeeping:
    ``tid_to_weakhandle`` maps each (Variable, version) saved and still needed by a
    graph to its handle, and ``cloned`` holds, per handle, the copy of a saved Variable
    changed in place since it was saved (both empty once the context is left)."""

    def __init__(self):
        self.tid_to_weakhandle = weakref.WeakValueDictionary()
        self._saved = weakref.WeakKeyDictionary()   # handle -> (variable, version, copy)

    @property
    def cloned(self):
        return {handle: copy for handle, (variable, version, copy) in list(self._saved.items())
                if variable._version != version}

    def _pack(self, variable):
        key = (id(variable), variable._version)
        handle = self.tid_to_weakhandle.get(key)
        if handle is None:
            handle = _SavedHandle()
            self.tid_to_weakhandle[key] = handle
            self._saved[handle] = (variable, variable._version, variable.detach().clone())
        return handle

    def _unpack(self, handle):
        entry = self._saved.get(handle)
        if entry is None:
            raise AssertionError("Trying to backward outside of the "
                                 "'allow_mutation_on_saved_tensors' context in which the "
                                 "graph was originally recorded.")
        variable, version, copy = entry
        return variable if variable._version == version else copy

    def clear(self):
        self._saved.clear()
        self.tid_to_weakhandle.clear()


_mutation_on_saved_active = [False]


@contextlib.contextmanager
def allow_mutation_on_saved_tensors():
    """Within this context, Variables saved for backward may be changed in place, as
    ``torch.autograd.graph.allow_mutation_on_saved_tensors``: the backward pass sees
    the values they had when they were saved. It yields a context whose ``cloned``
    holds the copies of the saved Variables changed in place so far (each saved
    (Variable, version) once) and whose ``tid_to_weakhandle`` has an entry per saved
    (Variable, version) a graph still needs; both are emptied on exit, and a backward
    pass through a graph recorded inside the context raises ``AssertionError`` after
    it. The contexts cannot be nested (``RuntimeError``). (pyad copies each saved
    Variable when it is saved and hands the copy out only if the Variable was changed
    in place since; torch copies on the change: the results are the same.)

    >>> import pyad
    >>> x = pyad.tensor([1.0, 2.0], requires_grad=True)
    >>> with allow_mutation_on_saved_tensors():
    ...     y = x * 1
    ...     z = y * y
    ...     _ = y.mul_(2)
    ...     z.sum().backward()
    >>> x.grad
    tensor([2., 4.])
    """
    if _mutation_on_saved_active[0]:
        raise RuntimeError("allow_mutation_on_saved_tensors contexts cannot be nested")
    ctx = _MutationOnSavedContext()
    _mutation_on_saved_active[0] = True
    try:
        with saved_tensors_hooks(ctx._pack, ctx._unpack):
            yield ctx
    finally:
        _mutation_on_saved_active[0] = False
        ctx.clear()


GradientEdge = _engine.GradientEdge


def get_gradient_edge(tensor):
    """The `GradientEdge` ``tensor``'s gradient flows into: its ``grad_fn`` (or, for a
    leaf, its ``AccumulateGrad`` node) and its output number, as
    ``torch.autograd.graph.get_gradient_edge``. ``grad()`` and ``backward()`` take the
    edge in place of the Variable, as an input or as an output to differentiate (the
    edge keeps the Variable's shape and dtype, to check or create the gradient it
    starts with).

    >>> import pyad
    >>> x = pyad.tensor([1.0, 2.0], requires_grad=True)
    >>> y = x * 2
    >>> edge = get_gradient_edge(y)
    >>> pyad.autograd.grad((y * y).sum(), edge)
    (tensor([4., 8.]),)
    """
    if not isinstance(tensor, pyad.Variable):
        raise TypeError("get_gradient_edge(): expected a Variable, got %s"
                        % type(tensor).__name__)
    return _engine._gradient_edge(tensor)


def increment_version(tensor):
    """Bump the version counter of ``tensor`` (a Variable, or an iterable of them), as
    ``torch.autograd.graph.increment_version``: for code that changed a Variable's
    data in place behind autograd's back, so that a backward which saved the old
    value refuses it. The counter is shared with the Variable's views.

    >>> import pyad
    >>> x = pyad.tensor([1.0, 2.0])
    >>> v = x._version
    >>> increment_version(x)
    >>> x._version == v + 1
    True
    """
    if isinstance(tensor, pyad.Variable):
        tensor = (tensor,)
    for t in tensor:
        if not isinstance(t, pyad.Variable):
            raise TypeError("increment_version(): expected a Variable or an iterable of "
                            "Variables, got %s" % type(t).__name__)
        _engine._increment_version(t)


class saved_tensors_hooks:
    """Context manager setting a pair of hooks for the values saved for backward, as
    ``torch.autograd.graph.saved_tensors_hooks``.

    Inside the block, every Variable an op saves for its backward (built-in ops and
    ``ctx.save_for_backward`` alike) is passed to ``pack_hook(variable)``, and what it
    returns is kept instead of the value. Each use of the value in the backward pass
    (or ``ctx.saved_tensors``) calls ``unpack_hook(packed)``, which must return a
    Variable with the original's content; it takes the saved value's history. The
    hooks may be nested (the innermost pair is used); they apply to the whole process,
    not per thread (torch's are per thread). As in torch, the pack hook must not modify
    its input in place, and a value behind hooks is not checked against in-place
    changes (the hooks own it).

    >>> import pyad
    >>> x = pyad.tensor([1.0, 2.0], requires_grad=True)
    >>> packed = []
    >>> with saved_tensors_hooks(lambda v: packed.append(v) or len(packed) - 1,
    ...                          lambda i: packed[i]):
    ...     y = (x * x).sum()
    >>> len(packed)
    2
    >>> y.backward()
    >>> x.grad
    tensor([2., 4.])
    """

    def __init__(self, pack_hook, unpack_hook):
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def __enter__(self):
        _engine._push_saved_tensors_hooks(self.pack_hook, self.unpack_hook)

    def __exit__(self, *args):
        _engine._pop_saved_tensors_hooks()


class save_on_cpu(saved_tensors_hooks):
    """Keep the values saved for backward in host memory and move them back to their
    device for the backward pass, as ``torch.autograd.graph.save_on_cpu``. A Variable
    already on the host is kept as it is, not copied (as torch's ``.cpu()``), and like
    any value behind hooks it is not checked against in-place changes. ``pin_memory``
    and ``device_type`` are accepted as torch's; pyad does not pin host memory.

    >>> import pyad
    >>> x = pyad.tensor([1.0, 2.0], requires_grad=True)
    >>> with save_on_cpu():
    ...     y = (x.exp() * x).sum()
    >>> y.backward()
    >>> x.grad
    tensor([ 5.4366, 22.1672])
    """

    def __init__(self, pin_memory=False, device_type="cuda"):
        del pin_memory, device_type

        def pack_to_cpu(variable):
            return variable.device, variable.detach().cpu()

        def unpack_from_cpu(packed):
            device, variable = packed
            return variable.to(device)

        super().__init__(pack_to_cpu, unpack_from_cpu)


@contextlib.contextmanager
def disable_saved_tensors_hooks(error_message):
    """Context manager under which setting saved-tensor hooks (``saved_tensors_hooks``,
    ``save_on_cpu``) raises ``RuntimeError(error_message)``, as
    ``torch.autograd.graph.disable_saved_tensors_hooks``.

    >>> with disable_saved_tensors_hooks("no hooks here"):
    ...     try:
    ...         with save_on_cpu():
    ...             pass
    ...     except RuntimeError as exc:
    ...         print(exc)
    no hooks here
    """
    previous = _engine._saved_tensors_hooks_disabled_message()
    try:
        # raises (error_message) when a pair of hooks is set already, as torch
        _engine._set_saved_tensors_hooks_disabled(error_message)
        yield
    finally:
        _engine._set_saved_tensors_hooks_disabled(previous)

_OUTPUT_STYLE = 'style=filled, fillcolor="darkolivegreen1"'
_LEAF_STYLE = 'style=filled, fillcolor="lightblue"'
_SAVED_STYLE = 'style=filled, fillcolor="orange"'


def _quote(text):
    """A DOT string literal; ``\\n`` in ``text`` stays a DOT line break."""
    return '"%s"' % str(text).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def _describe(variable):
    """``(2, 2) float64``: the shape and dtype of a Variable."""
    return "%s %s" % (tuple(variable.shape), variable.dtype)


def _as_list(outputs):
    if isinstance(outputs, pyad.Variable):
        return [outputs]
    outputs = list(outputs)
    for index, output in enumerate(outputs):
        if not isinstance(output, pyad.Variable):
            raise TypeError("to_dot(): outputs must be a Variable or a sequence of Variables, "
                            "but entry %d has type %s" % (index, type(output).__name__))
    return outputs


def _saved_values(node):
    """The saved Variables of ``node``, or an explanation of why there are none to show."""
    try:
        saved = node.saved_tensors
    except AttributeError:
        return None
    except RuntimeError as exc:   # freed by backward, or modified in place since
        return str(exc).split("\n")[0]
    return tuple(saved)


def to_dot(outputs, params=None, show_saved=False):
    """Return the backward graph of ``outputs`` as Graphviz DOT text.

    Parameters
    ----------
    outputs : Variable or sequence of Variables
        The graph shown is everything their ``grad_fn`` reaches.
    params : dict of str to Variable, optional
        Names for leaves: a leaf found in the graph is labelled with its name
        here (else with ``Variable.name`` if set, else without a name).
    show_saved : bool
        Also show the values saved for backward, as orange boxes with dashed
        edges to the node that saved them. Only custom Functions expose their
        saved values (``ctx.saved_tensors``); built-in nodes keep theirs as
        C-level fields, so for them nothing is shown.

    Each backward node is a box labelled with ``node.name()``; leaves are blue
    boxes (name, shape, dtype), outputs green boxes (shape, dtype). Built-in
    nodes do not expose the shapes of what they produced, so interior boxes
    carry only the node's name. The walk is a loop, not a recursion: graphs a
    million nodes deep are fine.

    Examples
    --------
    >>> from pyad.autograd.graph import to_dot
    >>> x = pyad.Variable(numpy.ones(2), requires_grad=True)
    >>> print(to_dot((x * 2).sum(), params={"x": x}))
    digraph autograd {
      node [shape=box, fontname="monospace", fontsize=10];
      output0 [label="output 0\\n() float64", style=filled, fillcolor="darkolivegreen1"];
      node0 [label="SumBackward"];
      node0 -> output0;
      node1 [label="MulBackward"];
      node1 -> node0;
      node2 [label="x\\n(2,) float64", style=filled, fillcolor="lightblue"];
      node2 -> node1;
    }
    """
    outputs = _as_list(outputs)
    names = {}
    data_names = {}      # saved values come back as new Variables over the same array
    for name, variable in (params or {}).items():
        if not isinstance(variable, pyad.Variable):
            raise TypeError("to_dot(): params must map names to Variables, but %r maps to %s"
                            % (name, type(variable).__name__))
        names[id(variable)] = name
        data_names[id(variable.data)] = (name, variable)

    lines = ["digraph autograd {",
             '  node [shape=box, fontname="monospace", fontsize=10];']
    node_ids = {}        # id(node) -> DOT name; the nodes themselves are held in `keep`
    keep = []
    stack = []

    def leaf_label(variable):
        name = names.get(id(variable)) or getattr(variable, "name", None)
        return (name + "\n" if name else "") + _describe(variable)

    def visit(node):
        """DOT name of ``node``; queue it for its own edges the first time it is seen."""
        key = id(node)
        if key not in node_ids:
            node_ids[key] = "node%d" % len(node_ids)
            keep.append(node)
            stack.append(node)
            if node.name() == "AccumulateGrad":
                variable = node.variable
                label = leaf_label(variable) if variable is not None else "AccumulateGrad\n(leaf freed)"
                lines.append("  %s [label=%s, %s];" % (node_ids[key], _quote(label), _LEAF_STYLE))
            else:
                lines.append("  %s [label=%s];" % (node_ids[key], _quote(node.name())))
        return node_ids[key]

    saved_count = 0
    for index, output in enumerate(outputs):
        out_id = "output%d" % index
        if output.grad_fn is None and output.requires_grad:
            label = "output %d\n%s" % (index, leaf_label(output))
        else:
            label = "output %d\n%s" % (index, _describe(output))
        lines.append("  %s [label=%s, %s];" % (out_id, _quote(label), _OUTPUT_STYLE))
        if output.grad_fn is None:
            continue
        lines.append("  %s -> %s;" % (visit(output.grad_fn), out_id))
        while stack:
            node = stack.pop()
            node_id = node_ids[id(node)]
            for next_node, _ in node.next_functions:
                if next_node is not None:
                    lines.append("  %s -> %s;" % (visit(next_node), node_id))
            if not show_saved:
                continue
            saved = _saved_values(node)
            if isinstance(saved, str):
                saved_id = "saved%d" % saved_count
                saved_count += 1
                lines.append("  %s [label=%s, %s];" % (saved_id, _quote("saved values\n" + saved),
                                                      _SAVED_STYLE))
                lines.append("  %s -> %s [style=dashed];" % (saved_id, node_id))
            elif saved:
                for slot, variable in enumerate(saved):
                    saved_id = "saved%d" % saved_count
                    saved_count += 1
                    if variable is None:
                        label = "saved %d\nNone" % slot
                    else:
                        name = names.get(id(variable))
                        if name is None and id(variable.data) in data_names:
                            name = data_names[id(variable.data)][0]
                        label = "saved %d\n%s%s" % (slot, name + " " if name else "",
                                                   _describe(variable))
                    lines.append("  %s [label=%s, %s];" % (saved_id, _quote(label), _SAVED_STYLE))
                    lines.append("  %s -> %s [style=dashed];" % (saved_id, node_id))
    lines.append("}")
    return "\n".join(lines)


def render(outputs, path, format="svg", params=None, show_saved=False):
    """Draw the graph of ``outputs`` (see `to_dot`) into the file ``path``.

    ``format`` is any output format of Graphviz's ``dot`` (``"svg"``, ``"png"``,
    ``"pdf"``, ...). Needs the ``graphviz`` Python package (``pip install
    pyad[viz]``) and the ``dot`` program on the PATH; raises ImportError or
    RuntimeError saying which is missing otherwise. Returns ``path``.
    """
    try:
        import graphviz
    except ImportError:
        raise ImportError("render(): needs the 'graphviz' Python package: "
                          "pip install 'pyad[viz]' (or pip install graphviz). to_dot() works "
                          "without it.") from None
    if shutil.which("dot") is None:
        raise RuntimeError("render(): needs Graphviz's 'dot' program on the "
                           "PATH (for example: apt-get install graphviz, or brew install "
                           "graphviz). to_dot() works without it.")
    picture = graphviz.Source(to_dot(outputs, params=params, show_saved=show_saved)).pipe(format=format)
    with open(path, "wb") as f:
        f.write(picture)
    return path
