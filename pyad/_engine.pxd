# Typed layout of the engine's objects. Every field the backward loop or an op's
# forward touches is declared here so Cython accesses it as a C struct member.

from cpython.object cimport PyObject


cdef class _VersionRare:
    # What few version counters need, in one object made on first need (a counter is
    # kept by every saved output: 32 bytes with one pointer for these, not 48).
    cdef object last_change          # anomaly mode: frames of the latest in-place op
    cdef Py_ssize_t detaches         # detach_() calls on a non-leaf sharing this counter


cdef class VersionCounter:
    # Shared by a Variable, its views and detach()ed aliases; in-place ops bump it.
    cdef public Py_ssize_t version
    cdef _VersionRare _rare          # None until detach_() or anomaly mode needs it


cdef class Node


cdef class _NodeExtra:
    # A node's rarely set fields, in one object allocated on first need (issue 19: the
    # common node carries one pointer for all of them, not seven).
    cdef object pre_hooks            # _HookList (weakly referenceable by handles)
    cdef object post_hooks
    cdef object tensor_pre_hooks     # output_nr -> [hook, ...] (Variable.register_hook)
    cdef dict retain_grad_hooks      # output_nr -> weakref to the Variable retaining grad
    cdef dict metadata
    cdef object creation_stack       # anomaly mode: frames where the forward op ran
    cdef Node parent_node            # anomaly mode: node being run when this one was made
    cdef tuple out_meta              # ((shape, dtype, xp), ...) to materialise missing
                                     # grads (custom Functions with materialize_grads)
    cdef object cache                # a derivative a formula computed once and reuses
    cdef object cache_src            # (TanhBackward: 1 - y^2, and the y it came from)
    cdef str display_name            # torch's node name where pyad's node class is
                                     # another op's (mse_loss's last op is a mean)


cdef class Node:
    # One backward operation. Strong references point backwards only: a node holds
    # the nodes of its inputs (next_functions), never the Variables it produced.
    # Fields are ordered to pack: pointers and 8-byte integers, then the small ones.
    # Edges (_engine.pyx, _NO_EDGE): one entry per forward input, None, a Node or a
    # (Node, nr) pair; one or two entries are held in _e0/_e1, more as a tuple in _e0
    # (_ekind says which). No tuple per node for the common one- and two-input ops.
    cdef object _e0
    cdef object _e1
    cdef long long _seq
    cdef Py_ssize_t _num_outputs     # how many gradients flow into this node
    cdef _NodeExtra _x               # hooks, metadata, anomaly trace (None: none of them)
    # Per-backward bookkeeping, used by the outermost backward pass (nested passes,
    # e.g. grad() called inside a custom backward, keep theirs in dicts).
    cdef object _buffer              # summed incoming gradient(s): Variable or list
    # Cyclic-GC tracking (_gctrack.pxi): raw, non-owning links in the list of
    # untracked nodes.
    cdef PyObject* _gc_prev
    cdef PyObject* _gc_next
    cdef object __weakref__
    cdef int _deps                   # edges from not-yet-run nodes into this one
    cdef unsigned char _released     # (flags as bytes: they pack with _deps in 8 bytes)
    cdef unsigned char _in_task
    # _gc_state: 0 unsealed, 1 pinned tracked, 2 untracked and linked.
    cdef unsigned char _gc_state
    cdef unsigned char _ekind        # _EK_*: how many edges, and where they are

    cdef tuple _backward(self, tuple grads)
    cdef void _release_saved(self) noexcept
    cdef inline bint _needs_input_grad(self, Py_ssize_t i)
    cdef object _add_tensor_pre_hook(self, Py_ssize_t output_nr, object fn)


cdef class AccumulateGrad(Node):
    cdef object _variable_ref        # weakref to the leaf (the leaf holds us strongly)
    cdef object _post_accumulate_hooks


cdef class SavedVariable:
    cdef object _data
    cdef VersionCounter _version_counter
    cdef Node _grad_fn               # producer of a saved input (None for our own outputs)
    # (small fields last, packed: 80 bytes with the collector's header, not 96)
    cdef unsigned int _saved_version # the counter's version modulo 2**32 (torch's
                                     # counter is 32 bits wide too)
    cdef int _output_nr
    cdef unsigned short _saved_detaches  # the counter's detach_() count modulo 2**16
    cdef short _input_nr             # which input of the owner node (-1: unknown)
    cdef unsigned char _is_output
    cdef unsigned char _requires_grad
    cdef unsigned char _released
    cdef unsigned char _hooked       # _data is (packed, unpack_hook): saved_tensors_hooks

    cdef object data(self, Node owner)
    cdef Variable _unpack_hooked(self, Node owner)
    cdef void _attach_history(self, Variable v, Node owner) except *
    cdef str _version_error(self, Node owner)
    cdef Variable unpack(self, Node owner)
    cdef void release(self) noexcept


cdef class Variable:
    cdef object _data
    cdef Variable _grad
    cdef Node _grad_fn
    cdef Py_ssize_t _output_nr
    cdef bint _requires_grad
    cdef bint _volatile
    cdef bint _retains_grad
    cdef bint _is_view
    cdef VersionCounter _version_counter
    cdef Variable _view_base           # the Variable this one is a view of
    cdef object _view_fn               # replays base -> this view (_ViewFn), or None
    cdef Py_ssize_t _view_version      # counter value when the view's history was built
    cdef bint _view_no_grad            # taken under no_grad from a base requiring grad
    cdef int _view_creation            # torch's CreationMeta: 0 default, 1 no_grad,
                                       # 2 multi-output op, 3 custom Function output
    cdef bint _is_inference            # made inside inference_mode (torch's inference
                                       # tensor): no in-place change or saving outside
    cdef AccumulateGrad _accumulator
    cdef object _name
    cdef object __weakref__

    cdef AccumulateGrad _get_accumulator(self)
    cdef object _host_data(self)
