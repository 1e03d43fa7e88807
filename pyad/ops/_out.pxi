# -- out=: an op's result written into a Variable the caller gives -------------------
#
# torch's functions take ``out=``. pyad runs the op as usual, then writes its result
# into ``out`` and returns ``out``, as torch does:
#
# * out= is not differentiable: with grad mode on, an op that would record (an input
#   requires grad) or an ``out`` that requires grad is refused, with torch's message;
# * the dtype: what may be written follows the kernel torch runs. Elementwise ops and
#   most reductions cast the result when torch.can_cast allows it (_OUT_CAST); cat and
#   stack too but raise TypeError (_OUT_CAT); matmul, gather, sort's values, where...
#   write only their own dtype (_OUT_EXACT), and indices only int64 (the same rule:
#   their result is int64). sum, prod, cumsum and cumprod compute in ``out``'s dtype
#   (their callers pass it as ``dtype=``), as torch's kernels do;
# * the shape: an ``out`` of another shape is resized to the result's (resize_), with
#   torch's deprecation warning when it had elements; an ``out`` whose elements overlap
#   (an expanded Variable) is refused;
# * the write is copy_, so a view ``out`` writes through to its base, the version
#   counter moves, and CuPy data stays on its device.
#
# Each op taking out= does it in its first statement, one line, by calling itself
# without out (tools/op_entries.py puts the profiler's entry after that line); an
# elementwise op names its operands, which torch refuses to see partly overlap ``out``:
#
#     if out is not None: return _write_out("sum", out, sum(input, dim, keepdim))
#     if out is not None: return _write_out_checked("mul", out, mul(a, b), (a, b))

cdef enum:
    _OUT_CAST = 0
    _OUT_CAT = 1
    _OUT_EXACT = 2
    _OUT_ANY = 3            # bernoulli: torch draws in out's dtype, whatever it is

# torch names the dtypes by their C++ types in the _OUT_EXACT message
_C_TYPE_NAMES = {"float16": "c10::Half", "bfloat16": "c10::BFloat16", "float32": "float",
                 "float64": "double", "complex64": "c10::complex<float>",
                 "complex128": "c10::complex<double>", "int8": "signed char",
                 "uint8": "unsigned char", "int16": "short int", "int32": "int",
                 "int64": "long int", "uint16": "unsigned short", "uint32": "unsigned int",
                 "uint64": "unsigned long", "bool": "bool"}


# -- memory overlap between what an op writes and what it reads (torch's MemoryOverlap)
#
# torch refuses to write an elementwise result into memory that an input partly shares
# ("a[1:].add_(a[:-1])", "exp(a[:-1], out=a[1:])"): the result would depend on the
# order the kernel visits elements in. The very same elements (in place, "a.add_(a)")
# are fine. As torch, only arrays whose elements fill one block of memory (in some
# order of their dimensions) are compared; anything else is too hard to tell and
# allowed (NumPy buffers overlapping operands, so pyad's result is then as if the input
# had been copied first).

cdef enum:
    _OVERLAP_NO = 0
    _OVERLAP_FULL = 1
    _OVERLAP_PARTIAL = 2
    _OVERLAP_TOO_HARD = 3


cdef bint _dense_block(cnp.ndarray a):
    # torch's is_non_overlapping_and_dense: the strides, sorted, step through one block
    # (size-1 dimensions aside); negative strides are not
    cdef int i, nd = cnp.PyArray_NDIM(a)
    cdef cnp.npy_intp expected = cnp.PyArray_ITEMSIZE(a)
    if cnp.PyArray_IS_C_CONTIGUOUS(a) or cnp.PyArray_IS_F_CONTIGUOUS(a):
        return True
    steps = sorted([(cnp.PyArray_STRIDE(a, i), cnp.PyArray_DIM(a, i)) for i in range(nd)
                    if cnp.PyArray_DIM(a, i) != 1])
    for stride, n in steps:
        if stride != expected:
            return False
        expected *= n
    return True


cdef inline bint _extents_meet(cnp.ndarray a, cnp.ndarray b):
    # whether the address ranges the two arrays' elements span intersect
    cdef char* lo_a = cnp.PyArray_BYTES(a)
    cdef char* hi_a = lo_a + cnp.PyArray_ITEMSIZE(a)
    cdef char* lo_b = cnp.PyArray_BYTES(b)
    cdef char* hi_b = lo_b + cnp.PyArray_ITEMSIZE(b)
    cdef int i
    cdef cnp.npy_intp step
    for i in range(cnp.PyArray_NDIM(a)):
        step = (cnp.PyArray_DIM(a, i) - 1) * cnp.PyArray_STRIDE(a, i)
        if step > 0:
            hi_a += step
        else:
            lo_a += step
    for i in range(cnp.PyArray_NDIM(b)):
        step = (cnp.PyArray_DIM(b, i) - 1) * cnp.PyArray_STRIDE(b, i)
        if step > 0:
            hi_b += step
        else:
            lo_b += step
    return lo_a < hi_b and lo_b < hi_a


cdef int _overlap_status(object a, object b):
    # torch's get_overlap_status for two arrays (CuPy's: too hard here)
    cdef char* a0
    cdef char* b0
    cdef cnp.npy_intp na, nb
    if a is b:
        return _OVERLAP_FULL
    if type(a) is not _NDARRAY or type(b) is not _NDARRAY:
        return _OVERLAP_NO if type(a) is not type(b) else _OVERLAP_TOO_HARD
    if cnp.PyArray_SIZE(<cnp.ndarray>a) == 0 or cnp.PyArray_SIZE(<cnp.ndarray>b) == 0 or \
            not _extents_meet(<cnp.ndarray>a, <cnp.ndarray>b):
        return _OVERLAP_NO
    if not _dense_block(<cnp.ndarray>a) or not _dense_block(<cnp.ndarray>b):
        return _OVERLAP_TOO_HARD
    a0 = cnp.PyArray_BYTES(<cnp.ndarray>a)
    b0 = cnp.PyArray_BYTES(<cnp.ndarray>b)
    na = cnp.PyArray_NBYTES(<cnp.ndarray>a)
    nb = cnp.PyArray_NBYTES(<cnp.ndarray>b)
    if a0 == b0 and na == nb and a.strides == b.strides:
        return _OVERLAP_FULL
    return _OVERLAP_PARTIAL       # (dense blocks whose extents meet)


cdef inline bint _may_share(object a, object b):
    # whether two NumPy arrays' memory bounds meet (a cheap first test)
    return (type(a) is _NDARRAY and type(b) is _NDARRAY
            and _extents_meet(<cnp.ndarray>a, <cnp.ndarray>b))


cdef void _refuse_overlap_with(object written, object value, str what,
                               bint full_too=False) except *:
    # torch's assert_no_partial_overlap(written, value); with full_too its
    # assert_no_overlap, for the indexing ops, whose index and source may not share
    # written's memory at all, not even as the very same elements (a Variable scattered
    # into by its own index). A Variable or an array; numbers and None pass.
    cdef int status = _overlap_status(
        written, (<Variable>value)._data if isinstance(value, Variable) else value)
    if status == _OVERLAP_PARTIAL or (full_too and status == _OVERLAP_FULL):
        raise RuntimeError(
            "%s(): unsupported operation: some elements of the input Variable and the "
            "written-to Variable refer to a single memory location. Please clone() the "
            "Variable before performing the operation." % what)


cdef void _refuse_partial_overlap(object written, tuple inputs, str what) except *:
    for value in inputs:
        _refuse_overlap_with(written, value, what)


cdef void _refuse_overlap(object written, tuple inputs, str what) except *:
    for value in inputs:
        _refuse_overlap_with(written, value, what, True)


cdef Variable _out_variable(object out, str what):
    if not isinstance(out, Variable):
        raise TypeError("%s(): argument 'out' must be Variable, not %s"
                        % (what, type(out).__name__))
    return <Variable>out


cdef object _dtype_or_out(object dtype, object out, str what):
    # the dtype sum/prod/cumsum/cumprod compute in when given out=: their dtype= if
    # given, else out's
    return dtype if dtype is not None else _dtype(_out_variable(out, what)._data)


cdef void _refuse_out_grad(Variable o, Variable r, str what) except *:
    if _grad_enabled() and (_requires_grad_now(r) or _requires_grad_now(o)):
        raise RuntimeError("%s(): functions with out=... arguments don't support automatic "
                           "differentiation, but one of the arguments requires grad." % what)


cdef void _check_out_dtype(Variable o, Variable r, int rule, str what) except *:
    src, dst = _dtype(r._data), _dtype(o._data)
    if src == dst or rule == _OUT_ANY:
        return
    if rule == _OUT_EXACT:
        raise RuntimeError("%s(): Expected out Variable to have dtype %s, but got %s instead"
                           % (what, _C_TYPE_NAMES.get(str(src), str(src)),
                              _C_TYPE_NAMES.get(str(dst), str(dst))))
    if _torch_can_cast(src, dst):
        return
    if rule == _OUT_CAT:
        raise TypeError("%s(): input types can't be cast to the desired output type %s"
                        % (what, _torch_dtype_name(dst)))
    raise RuntimeError("%s(): result type %s can't be cast to the desired output type %s"
                       % (what, _torch_dtype_name(src), _torch_dtype_name(dst)))


cdef void _fit_out_shape(Variable o, tuple shape, str what, int stacklevel=1) except *:
    if o._data.shape == shape:
        if o._data.size == 0:
            return        # (NumPy gives empty arrays zero strides: nothing overlaps)
        for n, stride in zip(o._data.shape, o._data.strides):
            if stride == 0 and n > 1:
                raise RuntimeError(
                    "%s(): unsupported operation: more than one element of the written-to "
                    "Variable refers to a single memory location. Please clone() the "
                    "Variable before performing the operation." % what)
        return
    if o._data.size:
        warnings.warn(
            "An output with one or more elements was resized since it had shape %s, which "
            "does not match the required output shape %s. This behavior is deprecated, and "
            "in a future PyTorch release outputs will not be resized unless they have zero "
            "elements. You can explicitly reuse an out tensor t by resizing it, inplace, to "
            "zero elements with t.resize_(0)."
            % (_shape_str(o._data.shape), _shape_str(shape)), UserWarning,
            stacklevel=stacklevel)
    o.resize_(shape)


cdef object _write_out_checked(str what, object out, object result, tuple inputs,
                               int rule=_OUT_CAST):
    """_write_out for an elementwise op, whose ``inputs`` must not partly share ``out``'s
    memory (torch checks it after refusing an out= that would be differentiated)."""
    if isinstance(out, Variable) and not isinstance(result, tuple):
        _refuse_out_grad(<Variable>out, <Variable>result, what)
        _refuse_partial_overlap((<Variable>out)._data, inputs, what)
    return _write_out(what, out, result, rule)


cdef object _write_out_apart(str what, object out, object result, tuple inputs):
    """_write_out (exact dtype) for an op that reads its input in another order than it
    writes its result (gather, take, index_select, masked_select; kthvalue's values and
    indices): ``out``, or each Variable of an out pair, may share no memory with the
    inputs at all, the same memory included (torch's assert_no_overlap)."""
    if isinstance(result, tuple):
        if isinstance(out, (tuple, list)):
            for o in out:
                if isinstance(o, Variable):
                    _refuse_overlap((<Variable>o)._data, inputs, what)
    elif isinstance(out, Variable):
        _refuse_overlap((<Variable>out)._data, inputs, what)
    return _write_out(what, out, result, _OUT_EXACT)


cdef object _write_out(str what, object out, object result, int rule=_OUT_CAST,
                       int stacklevel=1):
    """Write ``result`` (the op's Variable, or its tuple) into ``out``; return ``out``.
    (``stacklevel``: the resize warning's, for a caller written in Python.)"""
    if isinstance(result, tuple):
        return _write_outs(what, out, result, rule)
    cdef Variable o = _out_variable(out, what)
    cdef Variable r = <Variable>result
    _refuse_out_grad(o, r, what)
    _check_out_dtype(o, r, rule, what)
    _fit_out_shape(o, r._data.shape, what, stacklevel)
    copy_(o, r)
    return o


cdef object _write_outs(str what, object out, object results, int rule):
    """out= for an op returning (values, indices): ``out`` is a tuple of Variables. The
    indices are int64, so the rule (_OUT_EXACT for all of these ops) holds for both."""
    if not isinstance(out, (tuple, list)) or len(out) != len(results):
        raise TypeError("%s(): argument 'out' must be tuple of %d Variables, not %s"
                        % (what, len(results), type(out).__name__ if not
                           isinstance(out, (tuple, list)) else "%d items" % len(out)))
    outs = [_out_variable(o, what) for o in out]
    for o, r in zip(outs, results):                  # refuse before anything is written
        _refuse_out_grad(<Variable>o, <Variable>r, what)
        _check_out_dtype(<Variable>o, <Variable>r, rule, what)
    for o, r in zip(outs, results):
        _fit_out_shape(<Variable>o, (<Variable>r)._data.shape, what)
        copy_(o, r)
    return type(results)(*outs) if hasattr(results, "_fields") else tuple(outs)


def _write_out_py(str what, object out, object result, bint exact=True):
    """`_write_out` for the ops written in Python (pyad/_out.py): the factories, which
    make their values in out's dtype (``exact``), and the others (cast as _OUT_CAST)."""
    return _write_out(what, out, result, _OUT_EXACT if exact else _OUT_CAST, 2)


def _torch_dtype_name_py(dtype):
    """torch's name of a dtype ("Float", "Long"), for messages written in Python."""
    return _torch_dtype_name(numpy.dtype(dtype))
