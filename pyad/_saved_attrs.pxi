# torch's saved-value attributes of built-in backward nodes: ``grad_fn._saved_self``,
# ``_saved_other``, ``_saved_result``, ``_saved_exponent`` (the value, unpacked as the
# backward would: freed values and in-place changes raise) and ``_raw_saved_<name>`` (a
# _RawSavedVariable, whose register_hooks packs that one value with a pair of hooks).
# Covered: the unary elementwise nodes (one saved input, ``self``, or output,
# ``result``) and the binary ones (``self`` and ``other``; pow's ``exponent``).


@cython.final
cdef class _RawSavedVariable:
    """One value a backward node saved (torch's ``torch._C._autograd.SavedTensor``)."""
    cdef Node _owner
    cdef SavedVariable _saved

    def register_hooks(self, pack_hook, unpack_hook):
        """Pack this saved value with ``pack_hook`` now; each later use calls
        ``unpack_hook`` on what it returned (one pair per value)."""
        cdef SavedVariable s = self._saved
        global _saved_hooks_on
        if s._released:
            raise RuntimeError(
                "Calling register_hooks on a saved tensor after it has been freed. Saved "
                "intermediate values of the graph are freed when you call .backward() or "
                "autograd.grad(). Specify retain_graph=True if you need to backward through "
                "the graph a second time or if you need to access saved variables after "
                "calling backward.")
        if s._hooked:
            raise RuntimeError("Calling register_hooks on a saved tensor whose hooks have "
                               "already been set. Hint: only one pair of hooks is allowed at "
                               "a time.")
        if not callable(pack_hook) or not callable(unpack_hook):
            raise TypeError("register_hooks(): pack_hook and unpack_hook must be callable")
        cdef Variable v = s.unpack(self._owner)
        version = v._version_counter.version
        hooks_were_on = _saved_hooks_on
        _saved_hooks_on = False                 # the hook's own ops save plainly
        try:
            packed = pack_hook(v)
        finally:
            _saved_hooks_on = hooks_were_on
        if v._version_counter.version != version:
            raise RuntimeError("A saved tensor pack hook is modifying its input in place. "
                               "Tensors provided as input to pack hook can not be modified "
                               "by in-place operations as this can lead to unexpected "
                               "side-effects. Please open an issue if you need to perform "
                               "in-place operations on the input to a pack hook.")
        s._data = (packed, unpack_hook)
        s._hooked = True

    def unpack(self):
        """The saved value, as the node's backward would read it."""
        return self._saved.unpack(self._owner)

    @property
    def data(self):
        """What is kept: the pack hook's result when hooks are set, else the value
        (without history)."""
        cdef SavedVariable s = self._saved
        if s._released:
            raise _freed_error(self._owner)
        if s._hooked:
            return s._data[0]
        return _wrap(s._data)

    @property
    def unpack_hook(self):
        """The unpack hook of this value's pair, or None."""
        cdef SavedVariable s = self._saved
        if s._hooked and not s._released:
            return s._data[1]
        return None


cdef object _saved_slot(Node node, str key):
    # The SavedVariable, constant or None kept under torch's name `key`; raises
    # AttributeError for a name the node does not have.
    cdef SavedVariable sv
    cdef _SavedOperand operand
    if isinstance(node, _UnaryNode):
        sv = _unary_saved(<_UnaryNode>node)
        if sv is not None and key == ("result" if sv._is_output else "self"):
            return sv
    elif isinstance(node, _BinaryNode):
        if key == "self":
            operand = (<_BinaryNode>node).a
        elif key == ("exponent" if isinstance(node, PowBackward) else "other"):
            operand = (<_BinaryNode>node).b
        else:
            operand = None
            key = None
        if key is not None and operand is not None:
            if operand.saved is not None:
                return operand.saved
            operand._check(node)
            return operand
    raise AttributeError("'%s' object has no attribute '_saved_%s'"
                         % (type(node).__name__, key))


cdef object _user_unpack(SavedVariable s, Node owner):
    # A saved leaf comes back as the leaf itself (as torch's), when it is alive, still
    # holds the saved array and no hooks packed it; anything else as the backward
    # unpacks it.
    if not s._hooked and not s._released and not s._is_output and \
            isinstance(s._grad_fn, AccumulateGrad):
        leaf = (<AccumulateGrad>s._grad_fn).variable
        if leaf is not None and (<Variable>leaf)._data is s._data:
            s.data(owner)                       # the version check
            return leaf
    cdef Variable v = s.unpack(owner)
    if type(v._grad_fn) is AccumulateGrad and not s._is_output:
        # A leaf that hooks packed: torch's unpacked Variable is a leaf too (no grad_fn)
        # that shares the leaf's accumulator, so a gradient reaching it still lands in
        # the leaf's .grad.
        v._accumulator = <AccumulateGrad>v._grad_fn
        v._grad_fn = None
    return v


def _node_saved_attribute(Node node, str name):
    cdef bint raw = name.startswith("_raw_saved_")
    cdef str key = name[len("_raw_saved_"):] if raw else name[len("_saved_"):]
    cdef _RawSavedVariable wrapper
    try:
        slot = _saved_slot(node, key)
    except AttributeError:
        raise AttributeError("'%s' object has no attribute '%s'"
                             % (type(node).__name__, name)) from None
    if isinstance(slot, SavedVariable):
        if raw:
            wrapper = _RawSavedVariable.__new__(_RawSavedVariable)
            wrapper._owner = node
            wrapper._saved = <SavedVariable>slot
            return wrapper
        return _user_unpack(<SavedVariable>slot, node)
    if raw:
        # torch has no raw slot for a number (or for nothing saved)
        raise AttributeError("'%s' object has no attribute '%s'"
                             % (type(node).__name__, name))
    if isinstance(slot, _SavedOperand):
        value = (<_SavedOperand>slot).constant
        if isinstance(value, Variable):
            return value
        # torch saves a number as a wrapped-number tensor
        return Variable(_xp_of(value).asarray(value) if not isinstance(
            value, (int, float, complex, bool)) else numpy.asarray(value))
    return slot
