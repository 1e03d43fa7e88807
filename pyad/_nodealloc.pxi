# A freelist for the engine's node objects (issue 19, item 1).
#
# Every recorded op makes one node, and a backward pass (or the death of the graph)
# frees it: a pymalloc allocation, a memset and the collector's bookkeeping each way,
# about a tenth of a recorded op's engine cost. Cython's @cython.freelist cannot serve
# the node classes (it refuses subtypes, and a freelist on Node never serves a
# subclass instance), so the engine's own node types get this allocator pair instead:
# freed node memory is kept in stacks by allocation size and handed to the next node
# of that size, zeroed exactly as PyType_GenericAlloc zeroes a new block.
#
# Only the engine's static node classes take part (and Variable, with a stack of its
# own: below). A Python subclass of Node is a heap type with its own allocator pair,
# which type() sets. A block in a stack is plain memory: it was untracked by the
# node's tp_dealloc and holds no references. The stacks are bounded
# (PYAD_NODE_FREELIST_MAX blocks per size, a few hundred kB in all) and
# `pyad.empty_cache()` does not need to empty them: they hold no user data.

cdef extern from *:
    """
    #if defined(Py_GIL_DISABLED) || PY_VERSION_HEX >= 0x030E0000
    /* The free-threaded build and later CPythons lay the collector's header out
       differently: the engine keeps the default allocator there. */
    #define PYAD_NODE_FREELIST 0
    #else
    #define PYAD_NODE_FREELIST 1
    #endif

    #define PYAD_NODE_SIZES 64      /* allocation sizes 8 .. 512 bytes, by 8 */
    #define PYAD_NODE_FREELIST_MAX 512

    /* The collector's header in front of each GC object (PyGC_Head: two words on
       CPython 3.9-3.13), which PyType_GenericAlloc zeroes with the object. */
    #define PYAD_GC_PRESIZE (2 * sizeof(void *))

    static PyObject *pyad_node_blocks[PYAD_NODE_SIZES][PYAD_NODE_FREELIST_MAX];
    static int pyad_node_nblocks[PYAD_NODE_SIZES];
    static Py_ssize_t pyad_node_reused = 0;

    static inline Py_ssize_t pyad_node_slot(PyTypeObject *t) {
        /* PyType_GenericAlloc's size for an item-less object, in 8-byte units */
        return (t->tp_basicsize + 7) >> 3;
    }

    static PyObject *pyad_node_alloc(PyTypeObject *t, Py_ssize_t nitems) {
    #if PYAD_NODE_FREELIST
        Py_ssize_t s = pyad_node_slot(t);
        if (nitems == 0 && s < PYAD_NODE_SIZES && pyad_node_nblocks[s] > 0) {
            PyObject *o = pyad_node_blocks[s][--pyad_node_nblocks[s]];
            memset((char *)o - PYAD_GC_PRESIZE, 0, PYAD_GC_PRESIZE + (size_t)(s << 3));
    #if defined(Py_TRACE_REFS) || defined(Py_REF_DEBUG)
            PyObject_Init(o, t);
    #else
            /* PyObject_Init for a static type, without its calls: the type is not
               reference counted, and tracemalloc keeps the block's first traceback */
            Py_SET_TYPE(o, t);
            Py_SET_REFCNT(o, 1);
    #endif
            PyObject_GC_Track(o);
            pyad_node_reused++;
            return o;
        }
    #endif
        return PyType_GenericAlloc(t, nitems);
    }

    static void pyad_node_free(void *p) {
    #if PYAD_NODE_FREELIST
        PyObject *o = (PyObject *)p;
        Py_ssize_t s = pyad_node_slot(Py_TYPE(o));
        if (s < PYAD_NODE_SIZES && pyad_node_nblocks[s] < PYAD_NODE_FREELIST_MAX) {
            pyad_node_blocks[s][pyad_node_nblocks[s]++] = o;
            return;
        }
    #endif
        PyObject_GC_Del(p);
    }

    /* Takes `t` into the freelist when its allocation is the default one for a GC
       type without items, finaliser or managed dict: what the pair above assumes. */
    static int pyad_node_adopt(PyTypeObject *t) {
        if (!PYAD_NODE_FREELIST) return 0;
        if (t->tp_flags & Py_TPFLAGS_HEAPTYPE) return 0;
        if (!(t->tp_flags & Py_TPFLAGS_HAVE_GC)) return 0;
    #ifdef Py_TPFLAGS_MANAGED_DICT
        if (t->tp_flags & Py_TPFLAGS_MANAGED_DICT) return 0;
    #endif
    #ifdef Py_TPFLAGS_MANAGED_WEAKREF
        if (t->tp_flags & Py_TPFLAGS_MANAGED_WEAKREF) return 0;
    #endif
        if (t->tp_itemsize != 0 || t->tp_finalize != NULL || t->tp_del != NULL) return 0;
        if (t->tp_is_gc != NULL) return 0;
        if (pyad_node_slot(t) >= PYAD_NODE_SIZES) return 0;
        if (t->tp_alloc == pyad_node_alloc) return 1;
        if (t->tp_alloc != PyType_GenericAlloc || t->tp_free != PyObject_GC_Del) return 0;
        t->tp_alloc = pyad_node_alloc;
        t->tp_free = pyad_node_free;
        return 1;
    }

    static Py_ssize_t pyad_node_held(void) {
        Py_ssize_t i, n = 0;
        for (i = 0; i < PYAD_NODE_SIZES; i++) n += pyad_node_nblocks[i];
        return n;
    }
    """
    int pyad_node_adopt(PyTypeObject* t)
    Py_ssize_t pyad_node_held()
    Py_ssize_t pyad_node_reused


cdef tuple _adopt_node_types():
    # Every static Node class of the engine (subclasses of subclasses included).
    cdef list adopted = []
    cdef list pending = [Node]
    cdef set seen = set()
    while pending:
        t = pending.pop()
        if t in seen:
            continue
        seen.add(t)
        pending.extend(type.__subclasses__(t))
        if pyad_node_adopt(<PyTypeObject*>t):
            adopted.append(t)
    return tuple(adopted)


cdef tuple _freelist_node_types = _adopt_node_types()

# the field-less node classes that carry torch's names (_retype_node switches a node to
# one of them in place: each must have its base's layout exactly)
_check_node_aliases((UnsqueezeBackward, SqueezeBackward, TakeBackward, TransposeBackward,
                     TBackward, SelectBackward, SliceBackward, _IndexUnsqueezeBackward,
                     GatherBackward, IndexSelectBackward, StackBackward, MaskedFillBackward,
                     SortBackward, TopkBackward, MmBackward, MvBackward, DotBackward,
                     BmmBackward, _MatmulSqueezeBackward, _MatmulUnsafeViewBackward))


def _node_freelist_stats():
    """(node classes served by the freelist, blocks held now, allocations served from
    it so far): a test and benchmark probe."""
    return _freelist_node_types, pyad_node_held(), pyad_node_reused


# -- Variables -------------------------------------------------------------------------
#
# Variable takes an allocator pair of the same kind (in place of Cython's freelist, with
# a stack of its own), which lets an op that records nothing make its output outside the
# collector's lists from the start (_plain, _track_var in _engine.pyx): no track on the
# way in, no untrack on the way out.

cdef extern from *:
    """
    static PyTypeObject *pyad_untracked_type = NULL;   /* Variable, once adopted */
    static PyObject *pyad_empty_tuple = NULL;

    /* Variables have a stack of their own (nodes of the same size do not share it):
       as many live and die per op as nodes, and a dedicated stack keeps each one's
       block the one just freed. */
    #define PYAD_VARIABLE_FREELIST_MAX 256
    /* Set just before a tp_new call whose object must start outside the collector's
       lists (pyad_variable_new_untracked); read and cleared first thing by the
       allocation that call makes, before anything else can run. */
    static int pyad_alloc_untracked = 0;
    static PyObject *pyad_variable_blocks[PYAD_VARIABLE_FREELIST_MAX];
    static int pyad_variable_nblocks = 0;

    static PyObject *pyad_variable_alloc(PyTypeObject *t, Py_ssize_t nitems) {
        int untracked = pyad_alloc_untracked;
        PyObject *o;
        pyad_alloc_untracked = 0;
    #if PYAD_NODE_FREELIST
        if (nitems == 0 && t == pyad_untracked_type && pyad_variable_nblocks > 0) {
            o = pyad_variable_blocks[--pyad_variable_nblocks];
            memset((char *)o - PYAD_GC_PRESIZE, 0, PYAD_GC_PRESIZE + (size_t)t->tp_basicsize);
    #if defined(Py_TRACE_REFS) || defined(Py_REF_DEBUG)
            PyObject_Init(o, t);
    #else
            Py_SET_TYPE(o, t);
            Py_SET_REFCNT(o, 1);
    #endif
            if (!untracked) PyObject_GC_Track(o);
            return o;
        }
    #endif
        o = PyType_GenericAlloc(t, nitems);
        if (o != NULL && untracked) PyObject_GC_UnTrack(o);
        return o;
    }

    static void pyad_variable_free(void *p) {
    #if PYAD_NODE_FREELIST
        if (Py_TYPE((PyObject *)p) == pyad_untracked_type
                && pyad_variable_nblocks < PYAD_VARIABLE_FREELIST_MAX) {
            pyad_variable_blocks[pyad_variable_nblocks++] = (PyObject *)p;
            return;
        }
    #endif
        PyObject_GC_Del(p);
    }

    static int pyad_variable_adopt(PyTypeObject *t) {
        if (pyad_empty_tuple == NULL && (pyad_empty_tuple = PyTuple_New(0)) == NULL)
            return -1;
        /* the node pair's conditions; then Variable's own pair */
        if (!pyad_node_adopt(t)) return 0;   /* this CPython: Variables stay tracked */
        t->tp_alloc = pyad_variable_alloc;
        t->tp_free = pyad_variable_free;
        pyad_untracked_type = t;
        return 1;
    }

    /* A new Variable that the collector does not track (t is Variable, adopted:
       _plain calls this only once pyad_variable_adopt has succeeded). */
    static PyObject *pyad_variable_new_untracked(PyTypeObject *t) {
        PyObject *o;
        pyad_alloc_untracked = 1;
        o = t->tp_new(t, pyad_empty_tuple, NULL);
        pyad_alloc_untracked = 0;
        return o;
    }
    """
    int pyad_variable_adopt(PyTypeObject* t) except -1
    object pyad_variable_new_untracked(PyTypeObject* t)


cdef bint _variables_born_untracked = pyad_variable_adopt(<PyTypeObject*>Variable)


def _variable_alloc_stats():
    """Whether outputs of ops that record nothing start outside the cyclic collector's
    lists on this CPython (a test probe)."""
    return _variables_born_untracked
