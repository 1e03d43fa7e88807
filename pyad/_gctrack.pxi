# Keeping the recorded graph out of the cyclic garbage collector (issue 19, item 2).
#
# The graph holds no reference cycles by design (nodes point backwards only, saved
# values hold arrays, a leaf is reached through its accumulator's weak reference),
# yet every node, SavedVariable and edge tuple is a container the collector walks in
# each full collection: with 3*10^5 live nodes a forward pass paid 5x per op.
#
# The rule. A node leaves the collector's lists ("untracked") when it is *sealed*,
# the first time a later op takes it as an edge or saves its output's producer
# (_edge, _node_of: by then the op that made it has returned), and only when
# everything it references, transitively through tuples, slices, SavedVariables and
# _SavedOperands, is one of: an object the collector does not know (arrays, numbers,
# strings, dtypes, code objects), a module, an already untracked node, a version
# counter, a weak reference without callback, or the node's own engine-private dicts
# and lists (_metadata before the user touched it, _retain_grad_hooks, the anomaly
# stack, all in the node's side object _x) holding those. So an untracked object
# never references, even indirectly, an object the user can reach and change: no
# cycle can pass through it, and the collector loses nothing by not seeing its
# references. Anything else (hooks, user
# metadata, a custom Function's ctx, a saved-tensor hook's packed object, a heap-type
# node) keeps the node tracked, and every node downstream of it tracked too.
#
# User objects attached later, to a node that is already sealed (Node.register_hook,
# register_prehook, .metadata, Variable.register_hook, a post-accumulate hook), could
# close a cycle through untracked nodes downstream of it that the collector cannot see
# (D -> D.grad_fn -> ... -> U -> U's hook -> D). Their nodes are not known (edges point
# upstream), so the first such attachment re-tracks every live untracked node with
# its tuples and saved values: an intrusive list links them (O(1) insert and
# removal, no allocation), and marks them unsealed, so the next op that takes one
# checks it again. Nodes recorded after that re-track are untracked again unless they
# reach a tracked node (which they do when they are downstream of the hooked one).
# .metadata pins its node for good; a hook does not (_is_safe sees hooks), so after
# its removal the node and what is downstream of it can leave the lists again.

cdef extern from *:
    """
    typedef int (*__pyad_visitproc)(PyObject *, void *);

    static int __pyad_traverse(PyObject *o, __pyad_visitproc visit, void *arg) {
        traverseproc t = Py_TYPE(o)->tp_traverse;
        return t == NULL ? 0 : t(o, (visitproc)visit, arg);
    }

    /* PyObject_IS_GC, inline (the exported function is a call per visited object). */
    static inline int __pyad_is_gc(PyObject *o) {
        PyTypeObject *t = Py_TYPE(o);
        return PyType_IS_GC(t) && (t->tp_is_gc == NULL || t->tp_is_gc(o));
    }

    static Py_ssize_t __pyad_refcnt(PyObject *o) { return Py_REFCNT(o); }

    static int __pyad_is_heap_instance(PyObject *o) {
        return (Py_TYPE(o)->tp_flags & Py_TPFLAGS_HEAPTYPE) != 0;
    }

    /* A weakref.ref (exactly) without a callback references nothing strongly. */
    static int __pyad_plain_weakref(PyObject *o) {
        return PyWeakref_CheckRefExact(o) &&
               ((PyWeakReference *)o)->wr_callback == NULL;
    }

    static void __pyad_track(PyObject *o) {
        if (!PyObject_GC_IsTracked(o)) PyObject_GC_Track(o);
    }

    /* (PyObject_GC_UnTrack itself does nothing to an untracked object.) */
    static void __pyad_untrack(PyObject *o) { PyObject_GC_UnTrack(o); }

    static inline PyTypeObject *__pyad_type(PyObject *o) { return Py_TYPE(o); }

    static inline Py_ssize_t __pyad_basicsize(PyTypeObject *t) { return t->tp_basicsize; }

    /* isinstance for an extension base, without PyType_IsSubtype's call and MRO scan:
       an instance laid out as `base` has it on its chain of (solid) tp_base types. */
    static inline int __pyad_has_base(PyTypeObject *tp, PyTypeObject *base) {
        for (; tp != NULL; tp = tp->tp_base) if (tp == base) return 1;
        return 0;
    }
    """
    ctypedef int (*__pyad_visitproc)(PyObject*, void*) noexcept
    int __pyad_traverse(PyObject* o, __pyad_visitproc visit, void* arg) noexcept
    int __pyad_is_gc(PyObject* o) noexcept
    Py_ssize_t __pyad_refcnt(PyObject* o) noexcept
    int __pyad_is_heap_instance(PyObject* o) noexcept
    int __pyad_plain_weakref(PyObject* o) noexcept
    void __pyad_track(PyObject* o) noexcept
    void __pyad_untrack(PyObject* o) noexcept
    PyTypeObject* __pyad_type(PyObject* o) noexcept
    Py_ssize_t __pyad_basicsize(PyTypeObject* t) noexcept
    int __pyad_has_base(PyTypeObject* tp, PyTypeObject* base) noexcept
    int PyObject_GC_IsTracked(PyObject* o) noexcept
    int PyModule_CheckExact(PyObject* o) noexcept


# _gc_state of a Node
DEF _GC_UNSEALED = 0      # tracked; no later op has taken it yet
DEF _GC_PINNED = 1        # tracked for good (holds, or may hold, user objects)
DEF _GC_UNTRACKED = 2     # out of the collector's lists, linked in _untracked_head
DEF _GC_PENDING = 3       # tracked, taken by a later op, waiting in the pending list

cdef PyObject* _untracked_head = NULL
cdef Py_ssize_t _untracked_count = 0
# Nodes waiting to be sealed, oldest first (raw links in _gc_prev/_gc_next, as the
# untracked list: a node is in one list at most). See _seal_node.
cdef PyObject* _pending_head = NULL
cdef PyObject* _pending_tail = NULL
cdef Py_ssize_t _pending_count = 0
DEF _SEAL_BATCH = 1024
cdef Py_ssize_t _retrack_count = 0
cdef bint _gc_untrack_enabled = True
# PYAD_GC_AUDIT=1: the backward loop re-checks every untracked node it runs (tests).
import os as _gc_os
cdef bint _gc_audit = _gc_os.environ.get("PYAD_GC_AUDIT", "") not in ("", "0")


DEF _SEAL_FOUND_MAX = 32

cdef struct _SealScan:
    # One safety check of a node (on the C stack: the check is reentrant). `found`
    # collects the tracked tuples, saved values and side object it crossed, which
    # _seal_node untracks when the node is safe, without a second traversal (more than
    # _SEAL_FOUND_MAX of them: it traverses again).
    PyObject* owner
    int n
    PyObject* found[_SEAL_FOUND_MAX]


cdef int _safe_visit(PyObject* op, void* arg) noexcept:
    # 0: `op` may sit behind an untracked node; 1: it may not (stops the traversal).
    # The common objects (tuples, saved values, nodes) are told apart by their type
    # pointer alone: no reference counting, no PyType_IsSubtype call.
    cdef _SealScan* scan = <_SealScan*>arg
    cdef PyTypeObject* tp
    cdef object o
    cdef type t
    if not __pyad_is_gc(op):
        return 0                                 # arrays, numbers, str, dtypes, code
    tp = __pyad_type(op)
    if tp == <PyTypeObject*>tuple or tp == <PyTypeObject*>SavedVariable or \
            tp == <PyTypeObject*>_SavedOperand or tp == <PyTypeObject*>_NodeExtra:
        # (a _NodeExtra is reached only from its own node: `owner`'s side object)
        if PyObject_GC_IsTracked(op):
            if scan.n < _SEAL_FOUND_MAX:
                scan.found[scan.n] = op
            scan.n += 1
        return __pyad_traverse(op, _safe_visit, arg)
    if __pyad_has_base(tp, <PyTypeObject*>Node):
        return 0 if (<Node>op)._gc_state == _GC_UNTRACKED else 1
    o = <object>op
    t = type(o)
    if t is slice:
        return __pyad_traverse(op, _safe_visit, arg)
    if t is VersionCounter:
        return 0                     # (not a GC container: not reached; kept for clarity)
    if __pyad_plain_weakref(op) or PyModule_CheckExact(op):
        return 0
    if t is _HookList or t is _HookDict:
        # what removed hooks leave behind (handles reach them only weakly)
        if t is _HookList:
            return 1 if len(o) else 0
        for hooks in (<dict>o).values():
            if hooks:
                return 1
        return 0
    x = (<Node>scan.owner)._x
    if (t is dict or t is list) and x is not None and (
            o is x.metadata or o is x.retain_grad_hooks or o is x.creation_stack):
        return __pyad_traverse(op, _safe_visit, arg)  # engine-private containers
    return 1


# -- the common nodes, checked field by field ----------------------------------------
#
# The elementwise ops' nodes (a _BinaryNode or _UnaryNode class that adds no field of
# its own: same tp_basicsize) are most of every graph. Their fields are known, so the
# check reads them directly instead of walking them with tp_traverse and _safe_visit
# (a call per field and per saved value: about 4% of a recorded forward op). It only
# answers "safe" when every field is one the walk would accept, collecting the same
# tracked containers; anything else (an edge pair, a saved-tensor hook, a side object,
# a released value...) goes to the walk, which decides.

cdef inline bint _fast_entry(object e) noexcept:
    # An edge entry: None or an already untracked node (a pair: the walk decides).
    if e is None:
        return True
    return __pyad_has_base(__pyad_type(<PyObject*>e), <PyTypeObject*>Node) and \
        (<Node>e)._gc_state == _GC_UNTRACKED


cdef inline void _fast_found(_SealScan* scan, object o) noexcept:
    if PyObject_GC_IsTracked(<PyObject*>o):
        if scan.n < _SEAL_FOUND_MAX:
            scan.found[scan.n] = <PyObject*>o
        scan.n += 1


cdef inline bint _fast_saved(SavedVariable s, _SealScan* scan) noexcept:
    # An array saved without a pack hook, its node (if any) already untracked.
    if s._hooked or type(s._data) is not _NDARRAY:
        return False
    if s._grad_fn is not None and s._grad_fn._gc_state != _GC_UNTRACKED:
        return False
    _fast_found(scan, s)
    return True


cdef inline bint _fast_operand(_SavedOperand s, _SealScan* scan) noexcept:
    cdef type t
    if s is None:
        return True
    if s.saved is not None:
        if not _fast_saved(s.saved, scan):
            return False
    else:
        t = type(s.constant)
        if not (t is float or t is int or t is complex or t is bool):
            return False
    _fast_found(scan, s)
    return True


cdef inline bint _fast_shape(object t, _SealScan* scan) noexcept:
    if t is None:
        return True
    if type(t) is not tuple:
        return False
    for e in <tuple>t:
        if type(e) is not int:
            return False
    _fast_found(scan, t)
    return True


cdef inline bint _fast_reduce_to(tuple t, _SealScan* scan) noexcept:
    # A _BinaryNode's _reduce_to: None, or two shapes and two dtypes
    if t is None:
        return True
    if len(t) != 4 or not (_fast_shape(t[0], scan) and _fast_shape(t[1], scan)
                           and _fast_plain(t[2]) and _fast_plain(t[3])):
        return False
    _fast_found(scan, t)
    return True


cdef inline bint _fast_plain(object o) noexcept:
    # None or an object the collector does not know (a dtype)
    return o is None or not __pyad_is_gc(<PyObject*>o)


cdef bint _fast_safe(Node node, PyTypeObject* tp, _SealScan* scan) noexcept:
    # True: `node` is safe (scan holds its tracked containers). False: undecided.
    cdef _BinaryNode b
    cdef _UnaryNode u
    cdef _UnaryOutNode o
    if node._x is not None or node._buffer is not None:
        return False
    if __pyad_basicsize(tp) == __pyad_basicsize(<PyTypeObject*>_BinaryNode) and \
            __pyad_has_base(tp, <PyTypeObject*>_BinaryNode):
        b = <_BinaryNode>node
        return (b._ekind == _EK_2 and _fast_entry(b._e0) and _fast_entry(b._e1)
                and _fast_operand(b.a, scan) and _fast_operand(b.b, scan)
                and _fast_reduce_to(b._reduce_to, scan))
    if __pyad_basicsize(tp) == __pyad_basicsize(<PyTypeObject*>_UnaryNode) and \
            __pyad_has_base(tp, <PyTypeObject*>_UnaryNode):
        u = <_UnaryNode>node
        return (u._ekind == _EK_1 and _fast_entry(u._e0)
                and (u.saved is None or _fast_saved(u.saved, scan)))
    if __pyad_basicsize(tp) == __pyad_basicsize(<PyTypeObject*>_UnaryOutNode) and \
            __pyad_has_base(tp, <PyTypeObject*>_UnaryOutNode):
        o = <_UnaryOutNode>node           # (an inline output: an array and its counter)
        return (o._ekind == _EK_1 and _fast_entry(o._e0)
                and (o._out is None or type(o._out) is _NDARRAY)
                and (o.saved is None or _fast_saved(o.saved, scan)))
    return False


cdef bint _is_safe(Node node, _SealScan* scan):
    scan.owner = <PyObject*>node
    scan.n = 0
    cdef PyTypeObject* tp = __pyad_type(<PyObject*>node)
    if __pyad_is_heap_instance(<PyObject*>node) or \
            __pyad_has_base(tp, <PyTypeObject*>FunctionNode):
        return False
    if _fast_safe(node, tp, scan):
        return True
    scan.n = 0
    if node._x is not None and (node._x.pre_hooks or node._x.post_hooks):
        return False                    # (_safe_visit checks tensor_pre_hooks' lists)
    if type(node) is AccumulateGrad and (<AccumulateGrad>node)._post_accumulate_hooks:
        return False
    return __pyad_traverse(<PyObject*>node, _safe_visit, <void*>scan) == 0


cdef int _untrack_visit(PyObject* op, void* arg) noexcept:
    # Takes a sealed node's tuples and saved values out of the collector's lists too.
    cdef object o
    cdef type t
    if not __pyad_is_gc(op) or not PyObject_GC_IsTracked(op):
        return 0
    o = <object>op
    t = type(o)
    if t is tuple or t is SavedVariable or t is _SavedOperand or t is _NodeExtra:
        __pyad_untrack(op)
        __pyad_traverse(op, _untrack_visit, arg)
    return 0


cdef int _retrack_visit(PyObject* op, void* arg) noexcept:
    cdef object o
    cdef type t
    if not __pyad_is_gc(op) or PyObject_GC_IsTracked(op):
        return 0
    o = <object>op
    t = type(o)
    if t is tuple or t is SavedVariable or t is _SavedOperand or t is _NodeExtra:
        __pyad_track(op)
        __pyad_traverse(op, _retrack_visit, arg)
    return 0


# Sealing is deferred and batched. A node taken by a later op joins the pending list
# (two pointer writes); the list is sealed, oldest first, when it reaches _SEAL_BATCH
# nodes and when the collector starts a collection (gc.callbacks), so no collection
# ever walks a node that could have been untracked. A node that dies first (most of
# them: a training step's graph is freed by its backward) leaves the list from its
# dealloc and is never checked at all. Oldest first keeps the rule that a node is
# sealed after the nodes it points to: an op takes its inputs' nodes before a later
# op can take its own.

cdef void _seal_node(Node node) noexcept:
    # First use of `node` by a later op (its own op has returned): queue it for sealing.
    global _pending_head, _pending_tail, _pending_count
    if not _gc_untrack_enabled:
        node._gc_state = _GC_PINNED
        return
    node._gc_state = _GC_PENDING
    node._gc_next = NULL
    node._gc_prev = _pending_tail
    if _pending_tail != NULL:
        (<Node>_pending_tail)._gc_next = <PyObject*>node
    else:
        _pending_head = <PyObject*>node
    _pending_tail = <PyObject*>node
    _pending_count += 1
    if _pending_count >= _SEAL_BATCH:
        _seal_pending()


cdef inline void _unlink_pending(Node node) noexcept:
    global _pending_head, _pending_tail, _pending_count
    if node._gc_prev != NULL:
        (<Node>node._gc_prev)._gc_next = node._gc_next
    else:
        _pending_head = node._gc_next
    if node._gc_next != NULL:
        (<Node>node._gc_next)._gc_prev = node._gc_prev
    else:
        _pending_tail = node._gc_prev
    node._gc_prev = NULL
    node._gc_next = NULL
    node._gc_state = _GC_UNSEALED
    _pending_count -= 1


cdef void _seal_pending() noexcept:
    # Seal every waiting node, oldest first. Nothing here runs Python code that could
    # free a node (the check only reads), so the raw pointers stay valid.
    cdef Node node
    while _pending_head != NULL:
        node = <Node>_pending_head
        _unlink_pending(node)
        _seal_now(node)


def _seal_before_collection(phase, info):
    # gc.callbacks: the collector is about to walk its lists; seal what waits first.
    # (The phase is compared in C, with no module constant: a collection late in the
    # interpreter's shutdown may run after this module's objects are gone.)
    if _pending_head != NULL and isinstance(phase, str) and \
            PyUnicode_CompareWithASCIIString(phase, b"start") == 0:
        _seal_pending()


def _seal_pending_now():
    """Seal the nodes waiting to be sealed now (tests; a collection does it too)."""
    _seal_pending()


cdef void _seal_now(Node node) noexcept:
    # Untrack `node` if nothing it holds can be part of a cycle; otherwise it stays
    # tracked (unsealed: the next op that takes it queues it again).
    global _untracked_head, _untracked_count
    if not _gc_untrack_enabled:
        node._gc_state = _GC_PINNED
        return
    cdef _SealScan scan
    cdef int i
    if not _is_safe(node, &scan):
        # Stays unsealed (tracked): the next op that takes it checks again, so a node
        # whose hooks were removed, or whose upstream was untracked again after a
        # re-track, can still leave the collector's lists.
        return
    node._gc_state = _GC_UNTRACKED
    __pyad_untrack(<PyObject*>node)
    if scan.n <= _SEAL_FOUND_MAX:
        for i in range(scan.n):
            __pyad_untrack(scan.found[i])
    else:
        __pyad_traverse(<PyObject*>node, _untrack_visit, NULL)
    node._gc_prev = NULL
    node._gc_next = _untracked_head
    if _untracked_head != NULL:
        (<Node>_untracked_head)._gc_prev = <PyObject*>node
    _untracked_head = <PyObject*>node
    _untracked_count += 1


cdef inline void _unlink_untracked(Node node) noexcept:
    global _untracked_head, _untracked_count
    if node._gc_prev != NULL:
        (<Node>node._gc_prev)._gc_next = node._gc_next
    else:
        _untracked_head = node._gc_next
    if node._gc_next != NULL:
        (<Node>node._gc_next)._gc_prev = node._gc_prev
    node._gc_prev = NULL
    node._gc_next = NULL
    _untracked_count -= 1


cdef void _retrack_all():
    # Every live untracked node, with its tuples and saved values, back into the
    # collector's lists (a user object was attached to a sealed node). Raw pointers
    # only: a node being freed (its subclass fields cleared, reference count 0) may
    # still be linked when a weakref callback run by that clearing attaches a hook.
    global _untracked_head, _untracked_count, _retrack_count
    cdef PyObject* p = _untracked_head
    cdef PyObject* nxt
    _retrack_count += 1
    while p != NULL:
        nxt = (<Node>p)._gc_next
        (<Node>p)._gc_prev = NULL
        (<Node>p)._gc_next = NULL
        (<Node>p)._gc_state = _GC_UNSEALED   # the next op taking it checks it again
        if __pyad_refcnt(p) > 0:
            __pyad_track(p)
            __pyad_traverse(p, _retrack_visit, NULL)
        p = nxt
    _untracked_head = NULL
    _untracked_count = 0


cdef void _user_attach(Node node):
    # The user gets `node`'s metadata dict: it may hold anything from now on, unseen
    # by _is_safe, so the node stays tracked for good.
    if node._gc_state == _GC_UNTRACKED:
        _retrack_all()
    elif node._gc_state == _GC_PENDING:
        _unlink_pending(node)
    node._gc_state = _GC_PINNED


cdef void _hook_attach(Node node):
    # A hook is being attached to `node`. _is_safe sees hooks, so the node only goes
    # back to unsealed (tracked): while it holds a hook it (and all downstream of it)
    # stays tracked; once its hooks are removed the next op taking it may untrack it.
    # Without this a single hook ever registered on a long-lived leaf would keep every
    # later graph built from it in the collector's lists.
    if node._gc_state == _GC_UNTRACKED:
        _retrack_all()
    elif node._gc_state == _GC_PENDING:
        _unlink_pending(node)
    if node._gc_state != _GC_PINNED:
        node._gc_state = _GC_UNSEALED


cdef void _untrack_extra(Node node) noexcept:
    # A side object set on a node after the node was sealed (a cached derivative: it
    # holds arrays only) stays out of the collector's lists too.
    if node._gc_state == _GC_UNTRACKED and node._x is not None:
        __pyad_untrack(<PyObject*>node._x)


cdef void _gc_audit_node(Node node) except *:
    # PYAD_GC_AUDIT: an untracked node must still hold nothing that could form a cycle
    # (catches an op that changes a node after a later op sealed it).
    cdef _SealScan scan
    if node._gc_state == _GC_UNTRACKED and not _is_safe(node, &scan):
        raise AssertionError("backward(): %s was untracked by the cyclic GC but now "
                             "holds an object that could be part of a cycle (PYAD_GC_AUDIT)"
                             % node.name())


def _gc_untrack_stats():
    """(live untracked nodes, re-tracks so far): a test and benchmark probe. Nodes
    waiting to be sealed are sealed first."""
    _seal_pending()
    return _untracked_count, _retrack_count


def _gc_pending_count():
    """How many nodes wait to be sealed (tests)."""
    return _pending_count


import gc as _gc_module
_gc_module.callbacks.append(_seal_before_collection)


def _set_gc_untrack(bint enabled):
    """Turn the untracking of sealed nodes on or off (benchmarks A/B); returns the
    previous setting. Nodes already untracked stay so."""
    global _gc_untrack_enabled
    old = _gc_untrack_enabled
    _gc_untrack_enabled = enabled
    return old
