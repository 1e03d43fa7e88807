# Elementwise ops. Each op's forward is next to its backward node; every backward
# is written with differentiable pyad ops, so create_graph=True works for all.


cdef class _BinaryNode(Node):
    # The operands a binary op's backward needs, plus their shapes and dtypes: each
    # gradient is summed to its input's shape and cast to its dtype (NumPy promotion
    # may have widened the result, e.g. float32 * float64 array).
    cdef _SavedOperand a
    cdef _SavedOperand b
    # What each gradient must be summed back to and cast to: None in the common case
    # (no broadcasting, and every operand a number or of the result's dtype, so every
    # gradient comes out of the formula with its input's shape and dtype), else
    # (a_shape, b_shape, a_dtype, b_dtype), a shape None where the operand has the
    # result's, a dtype None for an operand that is not a Variable. One field for the
    # four: the node is 144 bytes, not 176 (issue 19, item 2).
    cdef tuple _reduce_to

    cdef inline Variable grad_a(self, Variable g):
        if self._reduce_to is None:
            return g
        return _reduce_grad(g, _shape_a(self), _dtype_a(self))

    cdef inline Variable grad_b(self, Variable g):
        if self._reduce_to is None:
            return g
        return _reduce_grad(g, _shape_b(self), _dtype_b(self))

    cdef inline Variable raw_grad_a(self, Variable g, object data):
        # Array form for the fast path; g itself when nothing needs changing.
        cdef tuple shape = _shape_a(self)
        cdef object dtype = _dtype_a(self)
        if data is g._data and (shape is None or _has_shape(data, shape)) and (
                dtype is None or _same_dtype(_dtype(data), dtype)):
            return g
        if self._reduce_to is None:
            return _raw(data)
        return _raw(_reduce_data(data, shape, dtype))

    cdef inline Variable raw_grad_b(self, Variable g, object data):
        cdef tuple shape = _shape_b(self)
        cdef object dtype = _dtype_b(self)
        if data is g._data and (shape is None or _has_shape(data, shape)) and (
                dtype is None or _same_dtype(_dtype(data), dtype)):
            return g
        if self._reduce_to is None:
            return _raw(data)
        return _raw(_reduce_data(data, shape, dtype))

    cdef inline Variable out_a(self, object v, Variable g):
        # Operand a's gradient from a value (an array, or a Variable under create_graph;
        # see _v_mul), g being the incoming gradient.
        if isinstance(v, Variable):
            return self.grad_a(<Variable>v)
        return self.raw_grad_a(g, v)

    cdef inline Variable out_b(self, object v, Variable g):
        if isinstance(v, Variable):
            return self.grad_b(<Variable>v)
        return self.raw_grad_b(g, v)

    cdef void _release_saved(self) noexcept:
        self._released = True
        if self.a is not None:
            self.a.release()
        if self.b is not None:
            self.b.release()


cdef inline tuple _shape_a(_BinaryNode node):
    return None if node._reduce_to is None else <tuple>(<tuple>node._reduce_to)[0]


cdef inline tuple _shape_b(_BinaryNode node):
    return None if node._reduce_to is None else <tuple>(<tuple>node._reduce_to)[1]


cdef inline object _dtype_a(_BinaryNode node):
    return None if node._reduce_to is None else (<tuple>node._reduce_to)[2]


cdef inline object _dtype_b(_BinaryNode node):
    return None if node._reduce_to is None else (<tuple>node._reduce_to)[3]


cdef inline void _set_reduce_to(_BinaryNode node, object a, object b, object out):
    # node._reduce_to for data = op(a, b)
    cdef object sa = _shape_if_broadcast(a, out), sb = _shape_if_broadcast(b, out)
    cdef object dtype = _dtype(out)
    # (ml_dtypes' bfloat16 and float8 promote with a Python number to float32: their
    # gradients are cast back to the operands' dtypes, as torch's stay bfloat16)
    if sa is not None or sb is not None or not _of_dtype(a, dtype) or \
            not _of_dtype(b, dtype) or _dtype_kind(out) == b'V':
        node._reduce_to = (sa, sb, _dtype_of(a), _dtype_of(b))


cdef inline bint _of_dtype(object x, object dtype):
    # Whether operand x takes part in a formula without changing the result's dtype: a
    # Python number (weak under NumPy's promotion), or an array or Variable of `dtype`.
    cdef type t = type(x)
    if t is float or t is int or t is bool:
        return True
    if isinstance(x, Variable):
        return _same_dtype(_dtype((<Variable>x)._data), dtype)
    d = getattr(x, "dtype", None)
    return d is not None and _same_dtype(d, dtype)


cdef inline object _shape_if_broadcast(object x, object out):
    # An operand's shape, or None when it equals the output's (compared in C) or the
    # operand is a number (which never takes a gradient: nothing to sum back to).
    cdef int i, nd
    cdef cnp.npy_intp* a
    cdef cnp.npy_intp* b
    if isinstance(x, Variable):
        x = (<Variable>x)._data
    elif isinstance(x, (int, float, bool, complex)):
        return None
    if type(x) is _NDARRAY and type(out) is _NDARRAY:
        nd = cnp.PyArray_NDIM(<cnp.ndarray>x)
        if nd == cnp.PyArray_NDIM(<cnp.ndarray>out):
            a = cnp.PyArray_DIMS(<cnp.ndarray>x)
            b = cnp.PyArray_DIMS(<cnp.ndarray>out)
            for i in range(nd):
                if a[i] != b[i]:
                    return x.shape
            return None
    return x.shape


cdef inline Variable _reduce_grad(Variable g, tuple shape, object dtype):
    if shape is not None:
        g = sum_to(g, shape)
    if dtype is not None and not _same_dtype(_dtype(g._data), dtype):
        g = _grad_as(g, None, dtype)
    return g


cdef inline object _dtype_of(object x):
    if isinstance(x, Variable):
        return _dtype((<Variable>x)._data)
    return None


cdef inline Variable _binary(_BinaryNode node, object data, object a, object b,
                             bint save_a, bint save_b):
    # Record `node` for data = op(a, b). save_a/save_b: keep the operand for backward.
    # b is saved first: torch's binary nodes save `other` before `self`, the order
    # saved_tensors_hooks' pack hook sees.
    _set_reduce_to(node, a, b, data)
    if save_b:
        node.b = _save_operand(b, 1)
    if save_a:
        node.a = _save_operand(a, 0)
    return _recorded2(node, data, _operand_edge(a), _operand_edge(b))


cdef inline bint _binary_records(object a, object b):
    # Any volatile input makes the output volatile, with no graph (legacy semantics).
    return ((_operand_requires_grad(a) or _operand_requires_grad(b)) and _grad_enabled()
            and not (_operand_volatile(a) or _operand_volatile(b)))


cdef inline object _apply_binary(object ufunc, object a, object b, str what):
    cdef object da = _binary_operand_data(a, what, "input")
    cdef object db = _binary_operand_data(b, what, "other")
    rt = _result_dtype(da, db)                  # None on the common path
    if ufunc is _np_true_divide or ufunc is _np_arctan2:
        # True division and atan2 of integers (or bools) give the default float dtype
        # (torch; NumPy picks float16 for bool and int8, float64 for int64).
        if rt is None:
            rt = _torch_result_dtype(da, db) if _category_of(da) <= 1 else None
        if rt is not None and _category(rt) <= 1:
            rt = _default_dtype
        elif rt is not None and _same_numpy_result(da, db, rt):
            rt = None
    # Division and powers reach inf and nan from finite inputs: no NumPy warning for
    # them (torch gives none); see _fp_quiet_enter.
    cdef bint quiet = (ufunc is _np_true_divide or ufunc is _np_power
                       or ufunc is _np_floor_divide or ufunc is _np_remainder
                       or ufunc is _np_fmod)
    cdef int op
    if ((_is_reduced_float(da) and _is_scalar_operand(db))
            or (_is_reduced_float(db) and _is_scalar_operand(da))):
        r = _opmath_binary(ufunc, da, db, rt)
        if r is not None:
            return r
    if rt is None:
        op = _loop_op(ufunc)
        if op >= 0:
            r = _loop2(op, da, db, None)
            if r is not None:
                return r
    token = _fp_quiet_enter() if quiet else None
    try:
        if rt is None:
            return ufunc(da, db)
        return ufunc(da, db, dtype=rt)
    except ValueError:
        raise _broadcast_error(what, a, b) from None
    except OverflowError:
        r = _wrapped_int_retry(ufunc, da, db, rt)
        if r is None:
            raise
        return r
    except TypeError:
        r = _wrapped_int_retry(ufunc, da, db, rt)
        if r is not None:
            return r
        if rt is not None and rt.kind == "V":
            # NumPy has no cast into ml_dtypes' bfloat16 under its same-kind rule: the
            # operands are cast first (torch: bfloat16 + an int64 Variable is bfloat16)
            return ufunc(_cast_operand(da, rt), _cast_operand(db, rt), dtype=rt)
        _check_same_device(da, db, what)
        _check_numeric_operands(da, db, what)
        raise
    finally:
        if quiet:
            _fp_quiet_exit(token)


cdef inline bint _is_scalar_operand(object d):
    return _scalar_category(d) >= 0 or d.ndim == 0


cdef object _opmath_binary(object ufunc, object da, object db, object rt):
    # float16/bfloat16 arithmetic with a number (or a 0-d Variable) as torch's CPU
    # kernels do it: the operation in float32 and one rounding to the result's dtype,
    # the number in float32 for mul and div, rounded to the dtype first for add and sub
    # (NumPy rounds it to float16 for all four, and has no bfloat16 loop with a Python
    # number). None for another ufunc or a result that is not float16/bfloat16.
    cdef bint additive = ufunc is _np_add or ufunc is _np_subtract
    if not (additive or ufunc is _np_multiply or ufunc is _np_true_divide):
        return None
    target = rt if rt is not None else _torch_result_dtype(da, db)
    if not (target.kind == "V" or (target.kind == "f" and target.itemsize == 2)):
        return None
    a = _opmath_operand(da, target, additive)
    b = _opmath_operand(db, target, additive)
    token = _fp_quiet_enter()
    try:
        return ufunc(a, b, dtype=numpy.float32).astype(target)
    finally:
        _fp_quiet_exit(token)


cdef object _cast_operand(object d, object dtype):
    if _scalar_category(d) >= 0:
        return numpy.asarray(d).astype(dtype)
    return d if d.dtype == dtype else d.astype(dtype)


cdef object _opmath_operand(object d, object target, bint rounded):
    # an operand of _opmath_binary in float32: a float16/bfloat16 array converted; a
    # number or other 0-d operand kept (rounded to the target dtype first when asked)
    # (the result is float16/bfloat16, so no operand is complex)
    if _scalar_category(d) >= 0:
        return numpy.asarray(d).astype(target).astype(numpy.float32) if rounded else d
    if d.ndim == 0:
        return d.astype(target).astype(numpy.float32) if rounded else d
    return _opmath_data(d)


cdef object _wrapped_int_retry(object ufunc, object da, object db, object rt):
    # torch wraps an integer number or 0-d operand into an integer result's dtype
    # (uint8 + -3 is 253, int8 + 200 wraps, uint8 + an int64 0-d Variable is uint8);
    # NumPy refuses both (OverflowError, and no cast across signedness). None when the
    # operands are not of that kind or do not fit even int64.
    if _category_of(da) != 1 or _category_of(db) != 1:
        return None
    if rt is None:
        rt = _torch_result_dtype(da, db)
    if _category(rt) != 1:
        return None
    try:
        return ufunc(_wrapped_int(da, rt), _wrapped_int(db, rt), dtype=rt)
    except (OverflowError, TypeError, ValueError):
        return None


cdef object _wrapped_int(object d, object dtype):
    # A number or 0-d array in `dtype`, wrapped modulo its range as C casts do.
    if _scalar_category(d) >= 0:
        return numpy.asarray(d).astype(dtype).item()
    if d.ndim == 0 and d.dtype != dtype:
        return d.astype(dtype)
    return d


cdef inline int _category_of(object d):
    # The category of an operand's data (a Python number or an array).
    cdef int c = _scalar_category(d)
    return c if c >= 0 else _kind_category(_dtype_kind(d))


# -- add / sub ----------------------------------------------------------------------

cdef class AddBackward(_BinaryNode):
    cdef tuple _backward(self, tuple grads):                # g, g
        cdef Variable g = grads[0]
        v = _gv(g, _grad_enabled())
        return (self.out_a(v, g) if self._needs_input_grad(0) else None,
                self.out_b(v, g) if self._needs_input_grad(1) else None)


cdef object _ONE = 1


cdef object _in_dtype(object d, object rt, object xp):
    # An operand (array or number) in dtype rt, an integer wrapped as C casts do.
    if _scalar_category(d) >= 0:
        return xp.asarray(numpy.asarray(d).astype(rt))
    return d.astype(rt, copy=False)


cdef object _WIDER = {2: numpy.dtype(numpy.float32), 4: numpy.dtype(numpy.float64),
                      8: numpy.dtype(numpy.longdouble)}


cdef inline object _dtype_or(object d, object rt):
    # an array operand's dtype; rt for a number
    return rt if _scalar_category(d) >= 0 else _dtype(d)


cdef object _add_scaled_data(object da, object db, object alpha):
    # torch's add kernel: da + alpha * db in the result dtype, alpha cast to it. Floating:
    # one rounding of the product and the sum, as its fused multiply-add (float16 computed
    # in float32, float32 in float64, float64 in long double), so alpha * db does not
    # overflow first; complex: a complex multiplication, so an infinite component of db
    # gives nan, as torch's; bool: da or (db and alpha).
    rt = _torch_result_dtype(da, db)
    xp = _xp_of(db if _scalar_category(da) >= 0 else da)
    a = _in_dtype(da, rt, xp)
    b = _in_dtype(db, rt, xp)
    cdef int category = _category(rt)
    with numpy.errstate(all="ignore"):
        if category == 0:
            r = xp.logical_or(a, xp.logical_and(b, builtins.bool(alpha)))
        elif category == 1:
            r = xp.add(a, xp.multiply(b, xp.asarray(numpy.asarray(alpha).astype(rt)),
                                      dtype=rt), dtype=rt)
        elif category == 3:
            r = xp.add(a, xp.multiply(b, xp.asarray(alpha, dtype=rt), dtype=rt), dtype=rt)
        elif rt.itemsize == 2 and not (_same_dtype(_dtype_or(da, rt), rt)
                                       and _same_dtype(_dtype_or(db, rt), rt)):
            # float16 from another dtype: torch's casting loop, float16 per operation
            r = xp.add(a, xp.multiply(b, numpy.asarray(alpha).astype(rt), dtype=rt), dtype=rt)
        else:
            wide = _WIDER[rt.itemsize] if xp is numpy or rt.itemsize < 8 else rt
            w = numpy.asarray(alpha).astype(numpy.float32 if rt.itemsize == 2 else rt)
            r = (xp.asarray(a, dtype=wide) + xp.asarray(w, dtype=wide)
                 * xp.asarray(b, dtype=wide)).astype(rt)
    return _ensure_array(r)


cdef class AddAlphaBackward(_BinaryNode):
    # input + alpha * other: g and g * alpha (conjugated for a complex alpha)
    cdef object alpha

    cdef tuple _backward(self, tuple grads):
        cdef Variable g = grads[0]
        return (self.grad_a(g) if self._needs_input_grad(0) else None,
                self.grad_b(mul(g, self.alpha.conjugate() if isinstance(self.alpha, complex)
                                else self.alpha)) if self._needs_input_grad(1) else None)


cdef Variable _add_alpha(object input, object other, object alpha, str what):
    # add/sub with alpha (sub: alpha negated), as torch's add kernel computes it
    da = _binary_operand_data(input, what, "input")
    db = _binary_operand_data(other, what, "other")
    try:
        data = _add_scaled_data(da, db, alpha)
    except ValueError:
        raise _broadcast_error(what, input, other) from None
    cdef AddAlphaBackward node
    if _binary_records(input, other):
        node = AddAlphaBackward.__new__(AddAlphaBackward)
        node.alpha = alpha
        return _binary(node, data, input, other, False, False)
    return _plain(data, _operand_volatile(input) or _operand_volatile(other))


cdef object _complex_add_data(object input, object other, object alpha, str what):
    # complex add/sub: torch multiplies other by the complex alpha (+-1) first; a number
    # plus a Variable is the Variable plus the number (torch's __radd__)
    da = _binary_operand_data(input, what, "input")
    db = _binary_operand_data(other, what, "other")
    if alpha == 1 and _scalar_category(da) >= 0 and _scalar_category(db) < 0:
        da, db = db, da
    return _add_scaled_data(da, db, alpha)


@profiled_op
cpdef Variable add(object input, object other, object alpha=1, object out=None):
    """Elementwise ``input + alpha * other`` with broadcasting.

    >>> add(Variable(numpy.array([1., 2.])), 10)
    tensor([11., 12.], dtype=float64)
    >>> add(Variable(numpy.array([1., 2.])), 10, alpha=2)
    tensor([21., 22.], dtype=float64)
    """
    if out is not None: return _write_out_checked("add", out, add(input, other, alpha),
                                                  (input, other, alpha))
    if isinstance(alpha, Variable) and _scalar_category(other) >= 0:
        other, alpha = _legacy_alpha_form("add", other, (alpha,), 1)
    if alpha is not _ONE and alpha != 1:
        _check_alpha(input, other, alpha, "add")
        return _add_alpha(input, other, alpha, "add")
    if alpha is not _ONE and type(alpha) is not int:
        # (True or 1.0 equal 1: a bool alpha only for a bool result, a floating one not
        # for an integral result, as torch's alpha_check)
        _check_alpha(input, other, alpha, "add")
    data = _apply_binary(_np_add, input, other, "add")
    if _dtype_kind(data) == b'c':
        data = _complex_add_data(input, other, 1, "add")
    if _binary_records(input, other):
        return _binary(AddBackward.__new__(AddBackward), data, input, other, False, False)
    return _plain(data, _operand_volatile(input) or _operand_volatile(other))


cdef void _check_alpha(object a, object b, object alpha, str what) except *:
    # torch's alpha_check: no floating alpha for an integral result, no bool alpha but
    # for a bool one
    category = _category(_torch_result_dtype(_binary_operand_data(a, what, "input"),
                                             _binary_operand_data(b, what, "other")))
    if isinstance(alpha, (bool, numpy.bool_)):
        if category != 0:
            raise RuntimeError("%s(): Boolean alpha only supported for Boolean results."
                               % what)
    elif category <= 1 and not isinstance(alpha, (int, numpy.integer)):
        raise RuntimeError("%s(): For integral input Variables, argument alpha must not be a "
                           "floating point number." % what)
    elif category != 3 and isinstance(alpha, (complex, numpy.complexfloating)):
        raise RuntimeError("%s(): For non-complex input Variables, argument alpha must not "
                           "be a complex number." % what)


cdef inline bint _is_bool_operand(object x):
    cdef type t = type(x)
    if t is float or t is int:                   # (sub's common operands: one test)
        return False
    if isinstance(x, Variable):
        return _dtype_kind((<Variable>x)._data) == b'b'
    if isinstance(x, (bool, numpy.bool_)):
        return True
    return isinstance(x, numpy.ndarray) and (<object>x).dtype.kind == "b"


cdef void _refuse_bool_subtraction(object a, object b, str what) except *:
    # torch's sub_check: no bool operand at all (a Python bool included)
    cdef bint ba = _is_bool_operand(a), bb = _is_bool_operand(b)
    if ba and bb:
        raise RuntimeError("%s(): Subtraction, the `-` operator, with two bool Variables is "
                           "not supported. Use the `^` or `logical_xor()` operator instead."
                           % what)
    if ba or bb:
        raise RuntimeError("%s(): Subtraction, the `-` operator, with a bool Variable is not "
                           "supported. If you are trying to invert a mask, use the `~` or "
                           "`logical_not()` operator instead." % what)


cdef void _no_kernel(str what, str kernel, object dtype) except *:
    # torch has no CPU kernel of this op for the (promoted) dtype
    raise NotImplementedError('%s(): "%s" not implemented for \'%s\''
                              % (what, kernel, _torch_dtype_name(dtype)))


cdef inline bint _both_bool(object a, object b):
    return _is_bool_operand(a) and _is_bool_operand(b)


cdef class SubBackward(_BinaryNode):
    cdef tuple _backward(self, tuple grads):                # g, -g
        cdef Variable g = grads[0]
        v = _gv(g, _grad_enabled())
        return (self.out_a(v, g) if self._needs_input_grad(0) else None,
                self.out_b(_v_neg(v), g) if self._needs_input_grad(1) else None)


@profiled_op
cpdef Variable sub(object input, object other, object alpha=1, object out=None):
    """Elementwise ``input - alpha * other`` with broadcasting.

    >>> sub(Variable(numpy.array([5., 7.])), 2)
    tensor([3., 5.], dtype=float64)
    >>> sub(Variable(numpy.array([5., 7.])), 2, alpha=0.5)
    tensor([4., 6.], dtype=float64)
    """
    if out is not None: return _write_out_checked("sub", out, sub(input, other, alpha),
                                                  (input, other, alpha))
    if isinstance(alpha, Variable) and _scalar_category(other) >= 0:
        other, alpha = _legacy_alpha_form("sub", other, (alpha,), 1)
    _refuse_bool_subtraction(input, other, "sub")
    if alpha is not _ONE and alpha != 1:
        _check_alpha(input, other, alpha, "sub")
        return _add_alpha(input, other, -alpha, "sub")
    if alpha is not _ONE and type(alpha) is not int:
        _check_alpha(input, other, alpha, "sub")   # (True or 1.0: as in add)
    data = _apply_binary(_np_subtract, input, other, "sub")
    if _dtype_kind(data) == b'c':
        data = _complex_add_data(input, other, -1, "sub")
    if _binary_records(input, other):
        return _binary(SubBackward.__new__(SubBackward), data, input, other, False, False)
    return _plain(data, _operand_volatile(input) or _operand_volatile(other))


@profiled_op
def rsub(input, other, alpha=1):
    """``other - alpha * input`` (sub with the operands swapped), as torch.rsub.

    >>> rsub(Variable(numpy.array([1., 2.])), 10)
    tensor([9., 8.], dtype=float64)
    """
    try:
        r = sub(other, input, alpha)
    except _OP_ERRORS as exc:
        raise _renamed(exc, "rsub") from None
    return _as_rsub_of_number(r, input, other, alpha)


cdef class RsubBackward(Node):
    # number - x: torch's rsub with a Scalar (also the `2 - x` operator) records one
    # edge, to x (RsubBackward1), where sub(number, x) records two (None, then x)
    cdef tuple _backward(self, tuple grads):
        return (_grad(_v_neg(_gv(grads[0], _grad_enabled()))),)


cdef object _as_rsub_of_number(object r, object x, object number, object alpha):
    # sub(number, x)'s result r, recorded as torch's rsub records it when x is a real
    # Variable, the number a number and alpha 1 (the values are the same)
    cdef Variable v = <Variable>r
    if v._grad_fn is None or not isinstance(x, Variable) or not isinstance(
            number, (int, float, numpy.integer, numpy.floating)) \
            or not (alpha is _ONE or alpha == 1) or _dtype_kind(v._data) == b'c':
        return r                # (an array operand may broadcast x: sub's node sums back)
    return _recorded1(RsubBackward.__new__(RsubBackward), v._data, _edge(<Variable>x))


# -- mul / div ----------------------------------------------------------------------

cdef class MulBackward(_BinaryNode):
    cdef tuple _backward(self, tuple grads):
        cdef Variable g = grads[0]
        cdef bint rec = _grad_enabled()                     # g b, g a
        v = _gv(g, rec)
        ga = gb = None
        if self._needs_input_grad(0):
            ga = self.out_a(_mul_grad(v, _ov(self.b, self, rec), rec), g)
        if self._needs_input_grad(1):
            gb = self.out_b(_mul_grad(v, _ov(self.a, self, rec), rec), g)
        return (ga, gb)


cdef inline object _mul_grad(object v, object other, bint rec):
    # v * other; on arrays, a copy of other when v is all ones (the gradient of a sum,
    # as in (g * v).sum()): a copy costs less than the multiply, bit for bit the same.
    if not rec and type(other) is _NDARRAY and \
            cnp.PyArray_IS_C_CONTIGUOUS(<cnp.ndarray>other) and _is_ones_like(v, other):
        return cnp.PyArray_NewCopy(<cnp.ndarray>other, cnp.NPY_CORDER)
    return _v_mul(v, other)


@profiled_op
cpdef Variable mul(object input, object other, object out=None):
    """Elementwise ``input * other`` with broadcasting.

    >>> mul(Variable(numpy.array([[1.], [2.]])), Variable(numpy.array([1., 10.])))
    tensor([[ 1., 10.],
            [ 2., 20.]], dtype=float64)
    """
    if out is not None: return _write_out_checked("mul", out, mul(input, other), (input, other))
    data = _apply_binary(_np_multiply, input, other, "mul")
    if _binary_records(input, other):
        return _binary(MulBackward.__new__(MulBackward), data, input, other,
                       _operand_requires_grad(other), _operand_requires_grad(input))
    return _plain(data, _operand_volatile(input) or _operand_volatile(other))


# -- the operators' fast path (issue 19 item 1) --------------------------------------
#
# `x * 2.0`, `x + y`, `1 - x`... on plain float32/float64 arrays are most of what a
# user's elementwise code records. Variable.__add__/__sub__/__rsub__/__mul__/... try this
# first: when both operands are in the common case it calls the ufunc and records the
# node with none of the general path's promotion, broadcasting and operand-type work
# (and with the values the general path would compute: the tests compare the two).
# The common case: an exact Variable (no subclass) holding an exact ndarray of native
# float32/float64, at least one dimension, C-contiguous, not a view whose history may
# need replaying, not volatile; the other operand an exact Python float or int, or such
# a Variable of the same dtype and shape; the profiler off. Anything else returns None
# and takes the general path (the op itself).

# (_FAST_ADD, _FAST_SUB, _FAST_MUL: defined in _engine.pyx, before Variable's operators)


cdef inline bint _fast_variable(object v):
    cdef object d
    if type(v) is not Variable:
        return False
    d = (<Variable>v)._data
    if type(d) is not _NDARRAY or (<Variable>v)._view_fn is not None or (<Variable>v)._volatile:
        return False
    cdef int tn = cnp.PyArray_TYPE(<cnp.ndarray>d)
    return ((tn == cnp.NPY_DOUBLE or tn == cnp.NPY_FLOAT)
            and cnp.PyArray_NDIM(<cnp.ndarray>d) > 0
            and cnp.PyArray_IS_C_CONTIGUOUS(<cnp.ndarray>d)
            and cnp.PyArray_ISNOTSWAPPED(<cnp.ndarray>d))


cdef inline bint _same_layout(object a, object b):
    # Same dtype number and shape (both exact ndarrays).
    cdef int i, nd = cnp.PyArray_NDIM(<cnp.ndarray>a)
    cdef cnp.npy_intp* da
    cdef cnp.npy_intp* db
    if cnp.PyArray_TYPE(<cnp.ndarray>a) != cnp.PyArray_TYPE(<cnp.ndarray>b) or \
            nd != cnp.PyArray_NDIM(<cnp.ndarray>b):
        return False
    da = cnp.PyArray_DIMS(<cnp.ndarray>a)
    db = cnp.PyArray_DIMS(<cnp.ndarray>b)
    for i in range(nd):
        if da[i] != db[i]:
            return False
    return True


cdef inline _BinaryNode _fast_node(int op):
    if op == _FAST_MUL:
        return MulBackward.__new__(MulBackward)
    if op == _FAST_ADD:
        return AddBackward.__new__(AddBackward)
    return SubBackward.__new__(SubBackward)


cdef Py_ssize_t _fast_binop_hits = 0        # how many operator calls took it (tests)


def _fast_binop_count():
    """How many operator calls (``x * 2.0``, ``x + y``...) took the fast path so far:
    a test probe (tests/test_fast_operators.py)."""
    return _fast_binop_hits


cdef object _fast_binop(Variable x, object other, int op, bint reflected):
    # x op other (reflected: other op x), or None for the general path. x is the
    # Variable whose operator method runs.
    if _profiling:
        return _fast_binop_profiled(x, other, op, reflected)
    if not _fast_variable(x):
        return None
    return _fast_binop_body(x, other, op, reflected)


cdef tuple _FAST_OP_NAMES = ("add", "sub", "mul")     # by _FAST_ADD/_SUB/_MUL

# _fast_binop_body hands its op code to _ufunc2 as it is.
if (_FAST_ADD, _FAST_SUB, _FAST_MUL) != (_LOOP_ADD, _LOOP_SUB, _LOOP_MUL):
    raise ImportError("_fast_binop(): its op codes differ from _loops.pxi's _LOOP_* codes")


cdef object _fast_binop_profiled(Variable x, object other, int op, bint reflected):
    # The fast path with the profiler's own recorder on: it writes the event the op's
    # profiled entry (_profiled_named) would write, the op's name, its start and end and
    # the sequence number of the node it recorded. Any other profiler takes the op.
    cdef long long seq0 = _sequence_counter
    cdef long long seq = -1
    cdef Py_ssize_t index
    cdef _EventLog log
    profiler = _profiler
    if type(profiler) is not _EventLog or pyad_get_profile_bypass() or \
            not _fast_variable(x):
        return None
    log = <_EventLog>profiler
    index = log.begin(_FAST_OP_NAMES[op], 0, -1)
    cdef bint returned = False
    r = None
    try:
        r = _fast_binop_body(x, other, op, reflected)
        returned = True
    finally:
        if returned and r is None:
            log.drop_last(index)                # the general path records it instead
        else:                                   # (an error: the event ends, as the op's)
            fn = None if r is None else (<Variable>r)._grad_fn
            if fn is not None and seq0 <= (<Node>fn)._seq < _ACCUMULATE_SEQUENCE:
                seq = (<Node>fn)._seq
            log.end(index, seq)
    return r


cdef object _fast_binop_body(Variable x, object other, int op, bint reflected):
    # _fast_binop's work, x already checked (_fast_variable).
    global _fast_binop_hits
    cdef type t = type(other)
    cdef Variable y
    cdef _BinaryNode node
    cdef object xd, data
    xd = x._data
    if t is float or t is int:
        _fast_binop_hits += 1
        # (_FAST_ADD/_SUB/_MUL are _LOOP_ADD/_SUB/_MUL: checked at import)
        data = _ufunc2(op, other, xd, None) if reflected else _ufunc2(op, xd, other, None)
        if not (x._requires_grad and _grad_enabled()):
            return _plain(data, False)
        if reflected and op == _FAST_SUB:    # number - x: torch's rsub, one edge
            return _recorded1(RsubBackward.__new__(RsubBackward), data, _edge(x))
        # (number + x and number * x are recorded as x + number and x * number, as
        # torch does: x's edge first, then the number's empty one)
        node = _fast_node(op)          # (same dtype and shape: nothing to reduce)
        if op == _FAST_MUL:
            node.b = _save_operand(other, 1)
        return _recorded2(node, data, _edge(x), _NO_EDGE)
    if t is not Variable or reflected or not _fast_variable(other):
        return None                                 # (x op y reaches __op__ of x first)
    y = <Variable>other
    if not _same_layout(xd, y._data):
        return None
    _fast_binop_hits += 1
    data = _ufunc2(op, xd, y._data, None)
    if not ((x._requires_grad or y._requires_grad) and _grad_enabled()):
        return _plain(data, False)
    node = _fast_node(op)
    if op == _FAST_MUL:                             # (torch's order: other, then self)
        if x._requires_grad:
            node.b = _save_operand(y, 1)
        if y._requires_grad:
            node.a = _save_operand(x, 0)
    return _recorded2(node, data, _edge(x), _edge(y))


cdef class DivBackward(_BinaryNode):
    cdef tuple _backward(self, tuple grads):
        cdef Variable g = grads[0]
        cdef bint rec = _grad_enabled()                     # g / b, -g ((a / b) / b)
        v = _gv(g, rec)
        b = _ov(self.b, self, rec)
        ga = gb = None
        if self._needs_input_grad(0):
            ga = self.out_a(_v_div(v, b), g)
        if self._needs_input_grad(1):
            # torch's order: (a / b) / b, never b * b, which under- or overflows first
            q = _v_div(_ov(self.a, self, rec), b)
            q = _v_div_in(q, b, q)
            t = _v_mul(v, q)
            gb = self.out_b(_v_neg_in(t, t), g)
        return (ga, gb)


@profiled_op
cpdef Variable div(object input, object other, rounding_mode=None, object out=None):
    """Elementwise true division ``input / other`` with broadcasting; with
    ``rounding_mode`` ``"trunc"`` or ``"floor"`` the quotient rounded towards zero or
    minus infinity (integer inputs stay integers; zero gradient, as torch).

    >>> div(Variable(numpy.array([1., 3.])), Variable(numpy.array([2., 4.])))
    tensor([0.5000, 0.7500], dtype=float64)
    >>> div(Variable(numpy.array([7, -7])), 2, rounding_mode="trunc")
    tensor([ 3, -3])
    """
    if out is not None: return _write_out_checked("div", out, div(input, other, rounding_mode),
                                                  (input, other, rounding_mode))
    if rounding_mode is not None:
        return _div_rounded(input, other, rounding_mode)
    data = _apply_binary(_np_true_divide, input, other, "div")
    if _binary_records(input, other):
        return _binary(DivBackward.__new__(DivBackward), data, input, other,
                       _operand_requires_grad(other), True)
    return _plain(data, _operand_volatile(input) or _operand_volatile(other))


cdef class DivRoundedBackward(_BinaryNode):
    # div with a rounding_mode is piecewise constant: zero gradients for both inputs,
    # as torch's (new_zeros), so an inf or nan elsewhere cannot make them nan.
    cdef tuple _backward(self, tuple grads):
        z = _grad(_v_zeros_like(_gv(grads[0], _grad_enabled())))
        return (self.grad_a(z) if self._needs_input_grad(0) else None,
                self.grad_b(z) if self._needs_input_grad(1) else None)


cdef Variable _div_rounded(object input, object other, object rounding_mode):
    # torch's div(rounding_mode=): floor as floor_divide, trunc as trunc(a / b) (integers:
    # floor_divide corrected where the exact quotient is negative and not whole).
    if rounding_mode not in ("trunc", "floor"):
        raise RuntimeError("div(): div expected rounding_mode to be one of None, 'trunc', or "
                           "'floor' but found %r" % (rounding_mode,))
    _refuse_complex(input, other, "div")
    if _both_bool(input, other):
        _no_kernel("div", "div_trunc_cpu" if rounding_mode == "trunc" else "div_floor_cpu",
                   "bool")
    _check_integer_divisor(input, other, "div")
    data = _apply_binary(_np_floor_divide, input, other, "div")
    if not _is_float_dtype(data.dtype):
        if rounding_mode == "trunc":
            a = _binary_operand_data(input, "div", "input")
            b = _binary_operand_data(other, "div", "other")
            # (a number wrapped into the result's dtype, as the quotient took it)
            if _scalar_category(a) >= 0:
                a = _wrapped_int(a, _dtype(data))
            if _scalar_category(b) >= 0:
                b = _wrapped_int(b, _dtype(data))
            fix = (_np_remainder(a, b) != 0) & ((a < 0) != (b < 0))
            data = data + fix.astype(data.dtype)
        return _plain(data, _operand_volatile(input) or _operand_volatile(other))
    if rounding_mode == "trunc":
        with numpy.errstate(divide="ignore", invalid="ignore"):
            data = _ensure_array(numpy.trunc(_apply_binary(_np_true_divide, input, other,
                                                           "div")))
    # (floor: NumPy's floor division, Python's rounding, as torch)
    if _binary_records(input, other):
        return _binary(DivRoundedBackward.__new__(DivRoundedBackward), data, input, other,
                       False, False)
    return _plain(data, _operand_volatile(input) or _operand_volatile(other))



@profiled_op
cpdef Variable positive(object input):
    """``input`` itself (torch's ``positive``, unary ``+``); refuses bool Variables.

    >>> x = Variable(numpy.array([1., -2.]))
    >>> positive(x) is x
    True
    """
    cdef Variable x = _as_variable(input, "positive")
    if x._data.dtype == numpy.bool_:
        raise RuntimeError("positive(): The `+` operator, on a bool Variable is not "
                           "supported.")
    return x


# -- pow ----------------------------------------------------------------------------

cdef class PowBackward(_BinaryNode):
    cdef tuple _backward(self, tuple grads):
        cdef Variable g = grads[0]
        cdef bint rec = _grad_enabled()
        v = _gv(g, rec)
        base = _ov(self.a, self, rec)
        exponent = _ov(self.b, self, rec)
        ga = gb = None
        if self._needs_input_grad(0):
            if isinstance(exponent, (int, float, complex)):
                # g * (c * x^(c-1)); for c = 0 zeros (torch: zeros_like, so an inf or
                # nan gradient gives 0, not nan)
                ga = _v_zeros_like(v) if exponent == 0 else \
                    _pow_const_grad(v, base, exponent)
            else:
                # g * (b * a^(b-1)), 0 where b = 0 (torch's choice: there b * a^(b-1) is
                # 0 * inf = nan at a = 0, and the derivative is 0)
                t = _v_pow(base, _v_sub(exponent, 1))
                t = _v_mul_in(t, exponent, t)
                ga = _v_mul_in(v, t, t)
                zero_exponent = _operand_data(exponent, "pow") == 0
                # (on a GPU the any() would be a host sync: apply the mask always)
                if _xp_of(zero_exponent) is not numpy or bool(zero_exponent.any()):
                    ga = _v_where_const(zero_exponent, 0.0, ga)
            ga = self.out_a(ga, g)
        if self._needs_input_grad(1):
            # d(a^b)/db = g * where(a == 0 and b >= 0, 0, a^b log(a)), torch's
            # pow_backward_exponent: 0 there (the limit from the right), so 0**b has no
            # nan gradient. As in torch, log(a) is taken everywhere, so a derivative of
            # this at a == 0 is nan (the masked branch's 0 times log 0), not 0.
            result = _v_pow(base, exponent)
            bdata = _operand_data(base, "pow")
            edata = _operand_data(exponent, "pow")
            xp = _xp_of(edata)
            with numpy.errstate(divide="ignore", invalid="ignore"):
                if isinstance(base, (int, float)):
                    # A Python float stays a weakly typed Python float (full precision).
                    if base == 0:
                        log_base = -numpy.inf
                    elif base < 0 and _dtype_kind(edata) == b'c':
                        # a complex power: the complex log of the negative real base
                        # (torch: log|b| + i pi), not nan
                        log_base = complex(float(numpy.log(numpy.float64(-base))),
                                           numpy.pi)
                    else:
                        log_base = float(numpy.log(numpy.float64(base)))
                    t = _v_mul(result, log_base)
                    if base == 0:
                        t = _v_where_const(xp.asarray(edata >= 0), 0.0, t)
                else:
                    # In the result's dtype (torch): a float16 base of a float32 power
                    # must not round log(base) to float16.
                    mask = xp.asarray(bdata == 0) & xp.asarray(edata >= 0)
                    if not isinstance(base, Variable):
                        base = xp.asarray(bdata)            # (a complex number too)
                    log_base = _v_log(_v_astype(base, _dtype(_operand_data(result, "pow"))))
                    t = _v_where_const(mask, 0.0, _v_mul(result, log_base))
            gb = self.out_b(_v_mul_in(v, t, t), g)
        return (ga, gb)


@profiled_op
cpdef Variable pow(object input, object exponent, object out=None):
    """Elementwise ``input ** exponent`` (either may be a Variable or a number).

    >>> pow(2, Variable(numpy.array([1., 3.])))
    tensor([2., 8.], dtype=float64)
    """
    if out is not None: return _write_out_checked("pow", out, pow(input, exponent),
                                                  (input, exponent))
    data = None
    if _both_bool(input, exponent):
        if isinstance(input, Variable) and isinstance(exponent, (bool, numpy.bool_)):
            # torch keeps bool: x ** True is x, x ** False all true
            d = (<Variable>input)._data
            return _plain(d.copy() if exponent else _xp_of(d).ones_like(d),
                          (<Variable>input)._volatile)
        _no_kernel("pow", "pow", "bool")
    if isinstance(input, Variable):
        data = _pow_by_number((<Variable>input)._data, exponent)       # torch's forms
    if data is None:
        data = _int_pow_negative(input, exponent)
    if data is None and (_is_complex_operand(input) or (
            type(exponent) is not float and type(exponent) is not int
            and _is_complex_operand(exponent))) and \
            not (type(exponent) in (int, float, bool)
                 and exponent in (0, 1, 2, 3, -2, -1, 0.5, -0.5)):
        data = _complex_pow_data(input, exponent)
    if data is None:
        data = _apply_binary(_np_power, input, exponent, "pow")
    if _binary_records(input, exponent):
        return _binary(PowBackward.__new__(PowBackward), data, input, exponent, True, True)
    return _plain(data, _operand_volatile(input) or _operand_volatile(exponent))


cdef object _complex_pow_data(object input, object exponent):
    # torch's complex pow: exp(log(input) * exponent) (0j ** 0 and x ** 0j at an
    # infinity are nan + nanj, NumPy gives 1)
    da = _binary_operand_data(input, "pow", "input")
    db = _binary_operand_data(exponent, "pow", "other")
    rt = _torch_result_dtype(da, db)
    xp = _xp_of(db if _scalar_category(da) >= 0 else da)
    try:
        with numpy.errstate(all="ignore"):
            return _ensure_array(xp.exp(xp.multiply(xp.log(_in_dtype(da, rt, xp)),
                                                    _in_dtype(db, rt, xp), dtype=rt)))
    except ValueError:
        raise _broadcast_error("pow", input, exponent) from None


cdef object _int_pow_negative(object input, object exponent):
    # Integers to negative integer powers, as torch computes them (NumPy refuses): 0,
    # except 1 for a base of 1 and +-1 for -1; a negative Python-number exponent is
    # refused (torch's error). None when there is nothing of the kind.
    da = _binary_operand_data(input, "pow", "input")
    db = _binary_operand_data(exponent, "pow", "other")
    if _category_of(da) > 1 or _category_of(db) != 1:     # (a bool base: 1 or 0, as torch)
        return None
    if _scalar_category(db) >= 0:
        if db < 0:
            raise RuntimeError("pow(): Integers to negative integer powers are not allowed.")
        return None
    xp = _xp_of(db)
    negative = db < 0
    if not bool(negative.any()):
        return None
    r = _apply_binary(_np_power, input, xp.where(negative, 0, db), "pow")
    odd = (db % 2) != 0
    fill = xp.where(da == 1, 1, xp.where(da == -1, xp.where(odd, -1, 1), 0))
    return _ensure_array(xp.where(negative, fill, r).astype(r.dtype, copy=False))


# pow's gradient for a constant exponent as one fused node (see TanhGradBackward).

cdef class PowConstGradBackward(_BinaryNode):
    # out = g * (c * x^(c-1)):  d/dg = c x^(c-1),  d/dx = ((g' g) c) ((c-1) x^(c-2))
    # (torch's order: the rule of pow applied to x^(c-1); 0 for c = 0 or 1)
    cdef object exponent

    cdef tuple _backward(self, tuple grads):
        cdef Variable gg = grads[0]
        cdef bint rec = _grad_enabled()
        c = self.exponent
        v = _gv(gg, rec)
        x = _ov(self.b, self, rec)
        dg = dx = None
        if self._needs_input_grad(0):
            dg = self.out_a(_pow_const_grad(v, x, c), gg)
        if self._needs_input_grad(1):
            a = _ov(self.a, self, rec)
            if c * (c - 1) == 0:
                t = _v_zeros_like(_v_mul(v, a))     # torch: x^(c-1) is x^0, rule zeros
            elif not rec and (type(c) is int or type(c) is float) and (c == 2 or c == 3) \
                    and _dtype_kind(v) == b'f' and \
                    _same_dtype(_dtype(v), _dtype(x)):
                # On arrays (the second grad of a Hessian-vector product), torch's order
                # with what is exact left out: a gradient of ones (the sum's) is not
                # multiplied in, x^(c-2) is x for c = 3 and 1 for c = 2 (pow returns
                # those exactly), so (c-1) x^(c-2) is one multiply or none.
                if _is_ones_like(a, v):
                    t = _scratch(_np_multiply(v, c))
                else:
                    t = _v_mul(v, a)
                    _np_multiply(t, c, t)
                if c == 3:
                    u = _scratch(_np_multiply(x, c - 1))
                    t = _np_multiply(t, u, t)
            else:
                t = _v_mul(v, a)
                t = _v_mul_in(t, c, t)
                u = _v_pow(x, c - 2)
                t = _v_mul_in(t, _v_mul_in(u, c - 1, u), t)
            dx = self.out_b(t, gg)
        return (dg, dx)


cdef object _pow_const_grad(object g, object x, object c):
    # g * (c * x^(c-1)) as a value (see _v_mul): on arrays with one temporary, on
    # Variables recorded as one PowConstGradBackward node.
    xd = _operand_data(x, "pow")
    t = _pow_by_number(xd, c - 1)               # torch's self.pow(c - 1), its forms too
    if t is None:
        t = _scratch(_np_power(xd, c - 1))
    _np_multiply(t, c, out=t, casting="unsafe")
    if not _on_variables(g, x):
        if _is_ones_like(g, t):
            return t                # (g = 1: g * t is t, bit for bit, nan and -0 too)
        return _np_multiply(g, t, t)
    gd = _operand_data(g, "pow")
    # The gradient of a sum is often all ones (the implicit gradient of a scalar root):
    # t, which nothing else holds, is then the product.
    data = t if _is_ones_like(gd, t) else _np_multiply(gd, t)
    cdef PowConstGradBackward node
    if _binary_records(g, x):
        node = PowConstGradBackward.__new__(PowConstGradBackward)
        node.exponent = c
        return _binary(node, data, g, x, _operand_requires_grad(x), True)
    return _plain(data, _operand_volatile(g) or _operand_volatile(x))


# -- unary --------------------------------------------------------------------------

cdef class _UnaryNode(Node):
    # Saves the input or the output of a unary op (whichever the formula needs).
    cdef SavedVariable saved

    cdef void _release_saved(self) noexcept:
        self._released = True
        if self.saved is not None:
            self.saved.release()


cdef inline Variable _float_input(object input, str what):
    # Integer and bool inputs of float functions compute in the default float dtype.
    cdef Variable x = _as_variable(input, what)
    cdef char kind = _dtype_kind(x._data)
    if kind == b'i' or kind == b'u' or kind == b'b':
        return _plain(x._data.astype(_default_dtype), x._volatile)
    return x


cdef class _UnaryOutNode(_UnaryNode):
    # A unary op whose backward formula needs its output (tanh, exp, sigmoid...). The
    # output is kept in the node itself, not in a SavedVariable: its array, the version
    # counter it shares with the output Variable and the counter's state when saved
    # (issue 19, item 2: 56 bytes and one object less per op, in graphs that outgrow the
    # caches; and no counter at all until the Variable needs one, _out_pending: 32 more). `saved` is None then. Whatever needs the general form (create_graph's
    # unpack, a version error, _raw_saved_result, an in-place op moving the save) gets it
    # from _out_saved, which moves the inline fields into a SavedVariable once. With
    # saved-tensor hooks on, the output is saved in the general form from the start.
    cdef object _out                 # the saved array (None: general form, or released)
    cdef VersionCounter _out_vc
    cdef unsigned int _out_version   # _out_vc's version and detach_() count when saved
    cdef unsigned short _out_detaches
    # 1 while the output Variable has no version counter of its own: none is made at
    # record time (most outputs are never viewed or changed in place); the Variable
    # adopts this node's when it first needs one (_new_version_counter), at version 0,
    # so a change made after that is seen. _out_vc is None then, or (once the general
    # form was made) the counter the SavedVariable holds.
    cdef unsigned char _out_pending

    cdef void _release_saved(self) noexcept:
        _release_out(self)


cdef inline void _release_out(_UnaryOutNode node) noexcept:
    node._released = True
    node._out = None
    node._out_vc = None
    if node.saved is not None:
        node.saved.release()


cdef inline void _stamp_out(_UnaryOutNode node, object data, VersionCounter counter) noexcept:
    node._out = data
    node._out_vc = counter
    node._out_version = <unsigned int>counter.version
    node._out_detaches = <unsigned short>_vc_detaches(counter)
    node._out_pending = 0


cdef inline void _stamp_out_pending(_UnaryOutNode node, object data) noexcept:
    # The output of the op being recorded, which has no version counter yet.
    node._out = data
    node._out_vc = None
    node._out_version = 0
    node._out_detaches = 0
    node._out_pending = 1


cdef VersionCounter _new_version_counter(Variable v):
    # A counter for `v`, which has none (_vc): the one its node saved it under, if that
    # node kept it inline without a counter (_stamp_out_pending), else a new one.
    cdef _UnaryOutNode node
    cdef VersionCounter fresh = VersionCounter.__new__(VersionCounter)
    # (allocated first: no collection, and so no other thread, runs between the reads
    # and writes below)
    if v._grad_fn is not None and v._output_nr == 0 and isinstance(v._grad_fn, _UnaryOutNode):
        node = <_UnaryOutNode>v._grad_fn
        if node._out_pending:
            node._out_pending = 0
            if node.saved is not None and node.saved._version_counter is not None:
                return node.saved._version_counter      # (the general form's, made since)
            if node._out is not None:
                node._out_vc = fresh
    return fresh


cdef SavedVariable _out_saved(_UnaryOutNode node):
    # The saved output in the general form (None if nothing was saved).
    cdef SavedVariable s
    cdef VersionCounter counter
    if node.saved is None and (node._out is not None or node._released):
        # (a pending output gets its counter here, which the Variable adopts later)
        counter = VersionCounter.__new__(VersionCounter) if node._out_vc is None else None
        s = SavedVariable.__new__(SavedVariable)
        if node.saved is not None:
            # (the allocations may have run a collection, and with it another thread
            # backpropagating through this node, which made the general form first)
            return node.saved
        s._input_nr = -1
        s._is_output = True
        s._requires_grad = True
        if node._out is None:
            s._released = True
        else:
            s._data = node._out
            s._version_counter = node._out_vc if node._out_vc is not None else counter
            s._saved_version = node._out_version
            s._saved_detaches = node._out_detaches
        node._out = None
        node._out_vc = None
        node.saved = s
    return node.saved


cdef inline object _out_value(_UnaryOutNode node, bint rec):
    # The saved output as a value (see _sv): the array itself when it is inline, not
    # released and unchanged since, else through the general form (which checks).
    cdef VersionCounter counter = node._out_vc
    if not rec and node._out is not None and (counter is None or (
            <unsigned int>counter.version == node._out_version and
            <unsigned short>_vc_detaches(counter) == node._out_detaches)):
        return node._out              # (no counter: pending, so never changed since)
    return _sv(_out_saved(node), node, rec)


cdef inline bint _out_hooked(_UnaryOutNode node) noexcept:
    # Whether a saved-tensor pack hook holds the output (its unpack may return anything).
    return node.saved is not None and node.saved._hooked


cdef inline SavedVariable _unary_saved(_UnaryNode node):
    # A unary node's saved value in the general form, whichever form it is kept in.
    if isinstance(node, _UnaryOutNode):
        return _out_saved(<_UnaryOutNode>node)
    return node.saved


cdef inline Variable _record_unary(_UnaryNode node, object data, Variable x, bint save_input,
                                   bint save_output):
    cdef Variable out = _recorded1(node, data, _edge(x))
    if save_input:
        node.saved = _save(x, False, 0)
    elif save_output:
        if isinstance(node, _UnaryOutNode) and not _saved_hooks_on and \
                not out._is_inference:
            _stamp_out_pending(<_UnaryOutNode>node, out._data)
        else:
            node.saved = _save(out, True)
    return out


cdef class NegBackward(Node):
    cdef tuple _backward(self, tuple grads):
        return (_grad(_v_neg(_gv(grads[0], _grad_enabled()))),)


@profiled_op
cpdef Variable neg(object input, object out=None):
    """Elementwise ``-input``.

    >>> neg(Variable(numpy.array([1., -2.])))
    tensor([-1.,  2.], dtype=float64)
    """
    if out is not None: return _write_out_checked("neg", out, neg(input), (input,), _OUT_EXACT)
    cdef Variable x = _as_variable(input, "neg")
    if x._data.dtype.kind == "b":
        raise RuntimeError("neg(): Negation, the `-` operator, on a bool Variable is not "
                           "supported. If you are trying to invert a mask, use the `~` or "
                           "`logical_not()` operator instead.")
    if _dtype_kind(x._data) == b'c':
        # torch: 0 - z, so neg(0j) is 0j, not -0-0j
        data = _xp_of(x._data).subtract(0, x._data)
    else:
        data = _ufunc1(_LOOP_NEG, x._data, None)
    if _records(x):
        return _recorded1(NegBackward.__new__(NegBackward), data, _edge(x))
    return _plain(data, x._volatile)


cdef class ExpBackward(_UnaryOutNode):
    cdef tuple _backward(self, tuple grads):
        cdef bint rec = _grad_enabled()                 # g * y
        return (_grad(_v_mul(_gv(grads[0], rec), _out_value(self, rec))),)


@profiled_op
cpdef Variable exp(object input, object out=None):
    """Elementwise exponential.

    >>> exp(Variable(numpy.array([0., 1.])))
    tensor([1.0000, 2.7183], dtype=float64)
    """
    if out is not None: return _write_out_checked("exp", out, exp(input), (input,))
    cdef Variable x = _float_input(input, "exp")
    data = _quiet_ufunc1(_LOOP_EXP, x._data)  # (no NumPy warning: see _fp_quiet_enter)
    if _records(x):
        return _record_unary(ExpBackward.__new__(ExpBackward), data, x, False, True)
    return _plain(data, x._volatile)


cdef class LogBackward(_UnaryNode):
    cdef tuple _backward(self, tuple grads):
        cdef bint rec = _grad_enabled()                 # g / x
        return (_grad(_v_div(_gv(grads[0], rec), _sv(self.saved, self, rec))),)


@profiled_op
cpdef Variable log(object input, object out=None):
    """Elementwise natural logarithm.

    >>> log(Variable(numpy.array([1., numpy.e])))
    tensor([0., 1.], dtype=float64)
    """
    if out is not None: return _write_out_checked("log", out, log(input), (input,))
    cdef Variable x = _float_input(input, "log")
    data = _quiet_ufunc1(_LOOP_LOG, x._data)  # (no NumPy warning: see _fp_quiet_enter)
    if _records(x):
        return _record_unary(LogBackward.__new__(LogBackward), data, x, True, False)
    return _plain(data, x._volatile)


cdef class SqrtBackward(_UnaryOutNode):
    cdef tuple _backward(self, tuple grads):
        cdef bint rec = _grad_enabled()                 # g / (2 y), one temporary
        t = _v_mul(_out_value(self, rec), 2)
        return (_grad(_v_div_in(_gv(grads[0], rec), t, t)),)


@profiled_op
cpdef Variable sqrt(object input, object out=None):
    """Elementwise square root.

    >>> sqrt(Variable(numpy.array([4., 9.])))
    tensor([2., 3.], dtype=float64)
    """
    if out is not None: return _write_out_checked("sqrt", out, sqrt(input), (input,))
    cdef Variable x = _float_input(input, "sqrt")
    data = _quiet_ufunc1(_LOOP_SQRT, x._data)  # (no NumPy warning: see _fp_quiet_enter)
    if _records(x):
        return _record_unary(SqrtBackward.__new__(SqrtBackward), data, x, False, True)
    return _plain(data, x._volatile)


cdef class TanhBackward(_UnaryOutNode):
    cdef tuple _backward(self, tuple grads):
        cdef bint rec = _grad_enabled()                 # g * (1 - y^2)
        y = _out_value(self, rec)
        out = _tanh_grad(_gv(grads[0], rec), y, _cached_tanh_deriv(self, y))
        if rec and isinstance(out, Variable) and \
                type((<Variable>out)._grad_fn) is TanhGradBackward and \
                (self._x is None or self._x.cache is None):
            # Under create_graph the fused node keeps 1 - y^2; this node shares it (no
            # memory while the new graph lives), so a later backward through it (the
            # second grad of a Hessian-vector product) multiplies once, not three times.
            _cache_tanh_deriv(self, (<TanhGradBackward>(<Variable>out)._grad_fn))
        return (_grad(out),)

    cdef void _release_saved(self) noexcept:
        _release_out(self)
        if self._x is not None:
            self._x.cache = None
            self._x.cache_src = None


@profiled_op
cpdef Variable tanh(object input, object out=None):
    """Elementwise hyperbolic tangent.

    >>> x = Variable(numpy.array([0., 1.]), requires_grad=True)
    >>> tanh(x).sum().backward()
    >>> x.grad                                  # 1 - tanh(x)^2
    tensor([1.0000, 0.4200], dtype=float64)
    """
    if out is not None: return _write_out_checked("tanh", out, tanh(input), (input,))
    cdef Variable x = _float_input(input, "tanh")
    data = _ufunc1(_LOOP_TANH, x._data, None)
    if _records(x):
        return _record_unary(TanhBackward.__new__(TanhBackward), data, x, False, True)
    return _plain(data, x._volatile)


# -- tanh's gradient as one fused node -------------------------------------------------
#
# Under create_graph a backward formula records what it computes. For the commonest
# formulas (tanh's here, pow's with a constant exponent beside pow) one node with its own
# derivative (Chainer's ReLUGrad idea) replaces three recorded ops: less to build now,
# less to run when differentiating again.

cdef class TanhGradBackward(_BinaryNode):
    # out = g * (1 - y^2), with y = tanh(x):  d/dg = 1 - y^2,  d/dy = g' ((-2 y) g)
    # (torch's order). `deriv` keeps the 1 - y^2 its forward computed from the array
    # `deriv_src` (y's data), reused by d/dg while the saved y is that same array.
    cdef object deriv
    cdef object deriv_src

    cdef tuple _backward(self, tuple grads):
        cdef Variable gg = grads[0]
        cdef bint rec = _grad_enabled()
        v = _gv(gg, rec)
        y = _ov(self.b, self, rec)
        dg = dy = None
        if self._needs_input_grad(0):
            dg = self.out_a(_tanh_grad(v, y, self._deriv_for(y)), gg)
        if self._needs_input_grad(1):
            t = _v_mul(y, -2.0)
            t = _v_mul_in(t, _ov(self.a, self, rec), t)
            dy = self.out_b(_v_mul_in(v, t, t), gg)
        return (dg, dy)

    cdef inline object _deriv_for(self, object y):
        # The cached 1 - y^2 when y (a value: array or Variable) is still the array it
        # was computed from and the saved value has no unpack hook (which may return
        # anything).
        if self.deriv is None or self.b is None or self.b.saved is None or \
                self.b.saved._hooked:
            return None
        if _v_array(y) is self.deriv_src:
            return self.deriv
        return None

    cdef void _release_saved(self) noexcept:
        self._released = True
        self.deriv = None
        self.deriv_src = None
        if self.a is not None:
            self.a.release()
        if self.b is not None:
            self.b.release()


cdef inline object _cached_tanh_deriv(TanhBackward node, object y):
    # TanhBackward's shared 1 - y^2 (see its _backward), or None.
    cdef _NodeExtra x = node._x
    if x is None or x.cache is None or _out_hooked(node):
        return None
    if _v_array(y) is x.cache_src:
        return x.cache
    return None


cdef void _cache_tanh_deriv(TanhBackward node, TanhGradBackward fused) except *:
    cdef _NodeExtra x
    if fused.deriv is None or _out_hooked(node):
        return
    x = _extra(node)
    x.cache = fused.deriv
    x.cache_src = fused.deriv_src
    _untrack_extra(node)


cdef object _tanh_grad(object g, object y, object deriv=None):
    # g * (1 - y^2) as a value (see _v_mul): on arrays with one temporary, on Variables
    # recorded as one TanhGradBackward node. `deriv`: 1 - y^2 already computed (cached
    # by a node), never written to.
    cdef TanhGradBackward node
    if not _on_variables(g, y):
        if deriv is not None and _same_dtype(_dtype(g), _dtype(deriv)):
            return _scratch(_ufunc2(_LOOP_MUL, g, deriv, None))
        t = _scratch(_ufunc2(_LOOP_MUL, y, y, None))
        _ufunc2(_LOOP_SUB, 1.0, t, t)   # (a float 1: NumPy converts an int scalar slowly)
        return _ufunc2(_LOOP_MUL, g, t, t)
    cdef Variable gv = <Variable>g, yv = <Variable>y
    if deriv is None:
        deriv = _scratch(_ufunc2(_LOOP_MUL, yv._data, yv._data, None))
        _ufunc2(_LOOP_SUB, 1.0, deriv, deriv)
    data = _ufunc2(_LOOP_MUL, gv._data, deriv, None)
    if _binary_records(gv, yv):
        node = TanhGradBackward.__new__(TanhGradBackward)
        node.deriv = deriv
        node.deriv_src = yv._data
        return _binary(node, data, gv, yv,
                       yv._requires_grad, gv._requires_grad or yv._requires_grad)
    return _plain(data, gv._volatile or yv._volatile)


cdef class SigmoidBackward(_UnaryOutNode):
    cdef tuple _backward(self, tuple grads):
        cdef bint rec = _grad_enabled()                 # g * (1 - y) * y, one temporary
        y = _out_value(self, rec)
        t = _v_sub(1, y)
        t = _v_mul_in(t, y, t)
        return (_grad(_v_mul_in(_gv(grads[0], rec), t, t)),)


cdef object _sigmoid_data(object d):
    # Split by sign so exp never overflows: 1/(1+e^-x) for x>=0, e^x/(1+e^x) otherwise.
    if _is_reduced_float(d):
        return _sigmoid_data(d.astype(numpy.float32)).astype(d.dtype)   # (opmath)
    xp = _xp_of(d)
    if _dtype_kind(d) == b'c':
        return 1 / (1 + xp.exp(-d))     # torch's complex formula (no sign split)
    e = xp.exp(-xp.abs(d))
    return xp.where(d >= 0, 1 / (1 + e), e / (1 + e)).astype(d.dtype, copy=False)


@profiled_op
cpdef Variable sigmoid(object input, object out=None):
    """Elementwise logistic sigmoid ``1 / (1 + exp(-x))``.

    >>> sigmoid(Variable(numpy.array([0., 100.])))
    tensor([0.5000, 1.0000], dtype=float64)
    """
    if out is not None: return _write_out_checked("sigmoid", out, sigmoid(input), (input,))
    cdef Variable x = _float_input(input, "sigmoid")
    data = _sigmoid_data(x._data)
    if _records(x):
        return _record_unary(SigmoidBackward.__new__(SigmoidBackward), data, x, False, True)
    return _plain(data, x._volatile)


cdef bint _probe_maximum_ties_second():
    # Whether NumPy's maximum(a, b) gives b where a == b (as x86's maxps/maxpd do) for
    # float32 and float64, in its vector loops and its scalar ones: then
    # maximum(0, x) keeps x's -0.0, as torch's relu does.
    for dt in (numpy.float32, numpy.float64):
        for n in (1, 3, 67):
            neg = numpy.full((n, 2), -0.0, dtype=dt)
            for d in (neg[:, 0].copy(), neg[:, 0], numpy.asarray(neg[0, 0])):
                if not numpy.signbit(numpy.maximum(numpy.zeros_like(d), d)).all():
                    return False
    return True


cdef bint _MAXIMUM_TIES_SECOND = _probe_maximum_ties_second()


cdef object _relu_data(object d):
    # torch's relu: x unless x < 0 (so relu(-0.0) is -0.0 and NaN propagates). NumPy's
    # maximum against a scalar has no SIMD loop (~1.3 ns per float32 element here),
    # against an array it has (~0.3 ns): for a C-contiguous native float32/64 array the
    # zeros are the output buffer itself (calloc'd), then one maximum(out, d, out=out)
    # pass, which keeps -0.0 where NumPy's maximum gives its second operand at ties
    # (probed once). Other layouts and dtypes: where(x < 0, 0, x).
    cdef cnp.dtype descr
    if (_MAXIMUM_TIES_SECOND and type(d) is _NDARRAY and cnp.PyArray_NDIM(<cnp.ndarray>d)
            and cnp.PyArray_IS_C_CONTIGUOUS(<cnp.ndarray>d)):
        descr = <cnp.dtype><object>cnp.PyArray_DESCR(<cnp.ndarray>d)
        if descr.kind == b'f' and descr.isnative and (descr.itemsize == 4
                                                      or descr.itemsize == 8):
            out = cnp.PyArray_ZEROS(cnp.PyArray_NDIM(<cnp.ndarray>d),
                                    cnp.PyArray_DIMS(<cnp.ndarray>d), descr.type_num, 0)
            # (out by keyword: NumPy deprecates a third positional argument of maximum)
            return _np_maximum(out, d, out=out)
    xp = _xp_of(d)
    data = xp.where(d < 0, xp.zeros((), dtype=d.dtype), d)
    if data.dtype != d.dtype:
        data = data.astype(d.dtype)
    return data


cdef class ReluBackward(_UnaryOutNode):
    cdef tuple _backward(self, tuple grads):
        # The mask is a constant, so the backward is linear in the incoming gradient
        # and is itself differentiable (its own derivative is the same mask).
        # torch's mask is ~(y <= 0): the gradient passes at a NaN. y is relu's output
        # (+0, positive, +inf or NaN), where y <= 0 is y == 0: one comparison, y != 0.
        y = _out_value(self, False)
        cdef bint rec = _grad_enabled()
        r = _grad(_keep_where_nonzero(_gv(grads[0], rec), y))
        return (_with_zero_dependence(r, _out_saved(self).unpack(self)) if rec else r,)


@profiled_op
cpdef Variable relu(object input):
    """Elementwise ``max(input, 0)``.

    >>> relu(Variable(numpy.array([-1., 2.])))
    tensor([0., 2.], dtype=float64)
    """
    _refuse_complex(input, None, "relu")
    cdef Variable x = _as_variable(input, "relu")
    if _dtype_kind(x._data) == b'b':
        raise RuntimeError("relu(): Boolean inputs not supported for relu")
    data = _relu_data(x._data)
    if _records(x):
        return _record_unary(ReluBackward.__new__(ReluBackward), data, x, False, True)
    return _plain(data, x._volatile)


# -- more unary math (one differentiable formula each, no array fast path) -------------

import math
import operator

cdef double _LN2 = math.log(2.0)
cdef double _LN10 = math.log(10.0)
cdef double _TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)


cdef Variable _float_unary(object ufunc, object input, type node_type, int save, str what):
    # A float function of one input (integer inputs compute in the default float dtype).
    # save: what the backward formula needs, 1 the input, 2 the output, 0 nothing.
    # (log2(0), acos(2), sin(inf): inf or nan without a NumPy warning, as torch)
    cdef Variable x = _float_input(input, what)
    data = _quiet1(ufunc, x._data)
    if _records(x):
        return _record_unary(<_UnaryNode>node_type.__new__(node_type), data, x, save == 1,
                             save == 2)
    return _plain(data, x._volatile)


cdef Variable _same_dtype_unary(object ufunc, object input, type node_type, int save,
                                 str what):
    # A function that keeps integer dtypes (abs, sign, square), as torch does.
    cdef Variable x = _as_variable(input, what)
    data = ufunc(x._data)
    if _records(x):
        return _record_unary(<_UnaryNode>node_type.__new__(node_type), data, x, save == 1,
                             save == 2)
    return _plain(data, x._volatile)


cdef class _ZeroGradNode(_UnaryNode):
    # Piecewise-constant functions (sign, floor, ...): a zero gradient, as torch gives.
    cdef tuple _backward(self, tuple grads):
        cdef Variable g = grads[0]
        return (_raw(_xp_of(g._data).zeros(g._data.shape, dtype=g._data.dtype)),)


cdef object _sign_data(object d):
    # torch's sign: 0 at nan (NumPy's is nan)
    cdef char kind = _dtype_kind(d)
    if kind == b'f':
        return _np_subtract(d > 0, d < 0, dtype=d.dtype)
    if kind == b'b':
        return d.copy()
    return _np_sign(d)


cdef class AbsBackward(_UnaryNode):
    cdef tuple _backward(self, tuple grads):
        d = self.saved.data(self)
        if _dtype_kind(d) == b'c':
            return (mul(grads[0], _sgn(self.saved.unpack(self))),)
        # sign(x) is a constant here: the second derivative is 0 (torch's too)
        r = mul(grads[0], _sign_data(d))
        return (_with_zero_dependence(r, self.saved.unpack(self)) if _grad_enabled() else r,)


cdef Variable _sgn(Variable z):
    # z / |z| (0 at 0) for complex z, differentiable (torch's sgn): the derivative of
    # |z|, which unlike a real sign is not locally constant. As torch's vectorised
    # kernel, each part is divided by the real |z| (a complex division would overflow
    # 1 / |z| at a tiny z, and give nan + nan i at an infinite one).
    a = abs(z)
    zero = _xp_of(a._data).asarray(a._data == 0)
    any_zero = bool(zero.any())
    if any_zero:
        a = where_const(zero, 1, a)
    if z._data.size == 0:
        q = div(z, a)
    else:
        q = view_as_complex(stack([div(real(z), a), div(imag(z), a)], -1).contiguous())
    return where_const(zero, 0, q) if any_zero else q


cdef int _abs_out_rule(object input):
    # torch's abs writes only its own dtype, but a complex input's into a complex out too
    if isinstance(input, Variable) and _dtype_kind((<Variable>input)._data) == b'c':
        return _OUT_CAST
    return _OUT_EXACT


@profiled_op
cpdef Variable abs(object input, object out=None):
    """Elementwise absolute value (``abs(x)`` works too); the gradient at 0 is 0.

    >>> abs(Variable(numpy.array([-1.5, 0., 2.])))
    tensor([1.5000, 0.0000, 2.0000], dtype=float64)
    """
    if out is not None: return _write_out_checked("abs", out, abs(input),
                                                  (input,), _abs_out_rule(input))
    cdef Variable x = _as_variable(input, "abs")
    if _dtype_kind(x._data) == b'b':
        _not_implemented_for(x._data, "abs", "abs_cpu")
    return _same_dtype_unary(_np_absolute, x, AbsBackward, 1, "abs")


@profiled_op
cpdef Variable absolute(object input, object out=None):
    """Alias of :func:`abs`.

    >>> absolute(Variable(numpy.array([-2., 3.])))
    tensor([2., 3.], dtype=float64)
    """
    if out is not None: return _write_out_checked("absolute", out, absolute(input), (input,))
    try:
        return abs(input)
    except _OP_ERRORS as exc:
        raise _renamed(exc, "absolute") from None


cdef class ReciprocalBackward(_UnaryOutNode):
    cdef tuple _backward(self, tuple grads):
        y = _out_saved(self).unpack(self)
        return (mul(neg(grads[0]), mul(y, y)),)


@profiled_op
cpdef Variable reciprocal(object input, object out=None):
    """Elementwise ``1 / input``.

    >>> reciprocal(Variable(numpy.array([2., 4.])))
    tensor([0.5000, 0.2500], dtype=float64)
    """
    if out is not None: return _write_out_checked("reciprocal", out, reciprocal(input), (input,))
    return _float_unary(_reciprocal_data, input, ReciprocalBackward, 2, "reciprocal")


cdef object _reciprocal_data(object d):
    if _dtype_kind(d) == b'c':
        return _c10_reciprocal(d)     # torch's complex division: 1 / 0 is inf + nan i
    return _np_reciprocal(d)


cdef class SignBackward(_ZeroGradNode):
    pass


@profiled_op
cpdef Variable sign(object input, object out=None):
    """Elementwise sign (-1, 0 or 1; 0 at nan, as torch); its gradient is zero.

    >>> sign(Variable(numpy.array([-2., 0., 3.])))
    tensor([-1.,  0.,  1.], dtype=float64)
    """
    if out is not None: return _write_out_checked("sign", out, sign(input), (input,), _OUT_EXACT)
    if _is_complex_operand(input):
        raise NotImplementedError("sign(): unlike NumPy, sign is not intended to support "
                                  "complex numbers (torch.sgn is z / |z|)")
    return _same_dtype_unary(_sign_data, input, SignBackward, 0, "sign")


cdef class SquareBackward(_UnaryNode):
    cdef tuple _backward(self, tuple grads):
        return (mul(grads[0], mul(self.saved.unpack(self), 2)),)


@profiled_op
cpdef Variable square(object input, object out=None):
    """Elementwise ``input * input``.

    >>> square(Variable(numpy.array([-2., 3.])))
    tensor([4., 9.], dtype=float64)
    """
    if out is not None: return _write_out_checked("square", out, square(input), (input,))
    cdef Variable x = _as_variable(input, "square")
    if _dtype_kind(x._data) == b'b':
        x = _convert(x, None, numpy.int64, False)    # torch: pow(x, 2), an int64 result
    return _same_dtype_unary(_square_data, x, SquareBackward, 1, "square")


cdef object _square_data(object d):
    if _dtype_kind(d) == b'c':
        return _complex_mul(d, d)          # torch: z * z, as its complex multiply
    return _np_square(d)


cdef class RsqrtBackward(_UnaryOutNode):
    cdef tuple _backward(self, tuple grads):
        return (mul(grads[0], mul(pow(_out_saved(self).unpack(self), 3), -0.5)),)


cdef object _rsqrt_data(object d):
    if _is_reduced_float(d):
        return _rsqrt_data(d.astype(numpy.float32)).astype(d.dtype)     # (opmath)
    r = _scratch(_np_sqrt(d))
    if _dtype_kind(d) == b'c':
        return _c10_reciprocal(r)          # torch's complex 1 / sqrt(z)
    return _np_true_divide(1.0, r, r)


@profiled_op
cpdef Variable rsqrt(object input, object out=None):
    """Elementwise ``1 / sqrt(input)``.

    >>> rsqrt(Variable(numpy.array([4., 16.])))
    tensor([0.5000, 0.2500], dtype=float64)
    """
    if out is not None: return _write_out_checked("rsqrt", out, rsqrt(input), (input,))
    return _float_unary(_rsqrt_data, input, RsqrtBackward, 2, "rsqrt")


cdef class Expm1Backward(_UnaryOutNode):
    cdef tuple _backward(self, tuple grads):
        return (mul(grads[0], add(_out_saved(self).unpack(self), 1)),)


@profiled_op
cpdef Variable expm1(object input, object out=None):
    """Elementwise ``exp(input) - 1``, accurate near 0.

    >>> expm1(Variable(numpy.array([0., 1e-10])))
    tensor([0.0000e+00, 1.0000e-10], dtype=float64)
    """
    if out is not None: return _write_out_checked("expm1", out, expm1(input), (input,))
    return _float_unary(_np_expm1, input, Expm1Backward, 2, "expm1")


cdef class Log1pBackward(_UnaryNode):
    cdef tuple _backward(self, tuple grads):
        return (div(grads[0], add(self.saved.unpack(self), 1)),)


@profiled_op
cpdef Variable log1p(object input, object out=None):
    """Elementwise ``log(1 + input)``, accurate near 0.

    >>> log1p(Variable(numpy.array([0., 1e-10])))
    tensor([0.0000e+00, 1.0000e-10], dtype=float64)
    """
    if out is not None: return _write_out_checked("log1p", out, log1p(input), (input,))
    return _float_unary(_log1p_data, input, Log1pBackward, 1, "log1p")


cdef object _log1p_data(object d):
    if _dtype_kind(d) == b'c':
        return _complex_log1p(d)
    return _np_log1p(d)


cdef object _complex_log1p(object z):
    # torch's complex log1p: with u = 1 + z, z where u == 1, log(u) where u - 1 == z,
    # else log(u) * (z / (u - 1)) (Kahan's; complex division as c10's); nan + nan i
    # where z has a nan part.
    xp = _xp_of(z)
    x, y = z.real, z.imag
    with numpy.errstate(all="ignore"):
        ur = x + 1
        u = _complex_parts(ur, y, z.dtype)
        lu = xp.log(u)
        um1r = ur - 1
        q = _c10_div(x, y, um1r, y, z.dtype)
        lr, li, qr, qi = lu.real, lu.imag, q.real, q.imag
        r = _complex_parts(lr * qr - li * qi, lr * qi + li * qr, z.dtype)
        r = xp.where(um1r == x, lu, r)
        r = xp.where((ur == 1) & (y == 0), z, r)
        return xp.where(xp.isnan(x) | xp.isnan(y),
                        xp.asarray(complex(numpy.nan, numpy.nan), dtype=z.dtype), r)


cdef class Log2Backward(_UnaryNode):
    cdef tuple _backward(self, tuple grads):
        return (div(grads[0], mul(self.saved.unpack(self), _LN2)),)


@profiled_op
cpdef Variable log2(object input, object out=None):
    """Elementwise base-2 logarithm.

    >>> log2(Variable(numpy.array([1., 8.])))
    tensor([0., 3.], dtype=float64)
    """
    if out is not None: return _write_out_checked("log2", out, log2(input), (input,))
    return _float_unary(_np_log2, input, Log2Backward, 1, "log2")


cdef class Log10Backward(_UnaryNode):
    cdef tuple _backward(self, tuple grads):
        return (div(grads[0], mul(self.saved.unpack(self), _LN10)),)


@profiled_op
cpdef Variable log10(object input, object out=None):
    """Elementwise base-10 logarithm.

    >>> log10(Variable(numpy.array([1., 100.])))
    tensor([0., 2.], dtype=float64)
    """
    if out is not None: return _write_out_checked("log10", out, log10(input), (input,))
    return _float_unary(_np_log10, input, Log10Backward, 1, "log10")


cdef class SinBackward(_UnaryNode):
    cdef tuple _backward(self, tuple grads):
        return (mul(grads[0], cos(self.saved.unpack(self))),)


@profiled_op
cpdef Variable sin(object input, object out=None):
    """Elementwise sine.

    >>> sin(Variable(numpy.array([0., numpy.pi / 2])))
    tensor([0., 1.], dtype=float64)
    """
    if out is not None: return _write_out_checked("sin", out, sin(input), (input,))
    return _float_unary(_np_sin, input, SinBackward, 1, "sin")


cdef class CosBackward(_UnaryNode):
    cdef tuple _backward(self, tuple grads):
        return (mul(grads[0], neg(sin(self.saved.unpack(self)))),)


@profiled_op
cpdef Variable cos(object input, object out=None):
    """Elementwise cosine.

    >>> cos(Variable(numpy.array([0., numpy.pi])))
    tensor([ 1., -1.], dtype=float64)
    """
    if out is not None: return _write_out_checked("cos", out, cos(input), (input,))
    return _float_unary(_np_cos, input, CosBackward, 1, "cos")


cdef class TanBackward(_UnaryOutNode):
    cdef tuple _backward(self, tuple grads):
        y = _out_saved(self).unpack(self)
        return (mul(grads[0], add(mul(y, y), 1)),)


@profiled_op
cpdef Variable tan(object input, object out=None):
    """Elementwise tangent.

    >>> tan(Variable(numpy.array([0., numpy.pi / 4])))
    tensor([0.0000, 1.0000], dtype=float64)
    """
    if out is not None: return _write_out_checked("tan", out, tan(input), (input,))
    return _float_unary(_np_tan, input, TanBackward, 2, "tan")


cdef class AsinBackward(_UnaryNode):
    cdef tuple _backward(self, tuple grads):
        x = self.saved.unpack(self)
        return (mul(grads[0], rsqrt(sub(1, mul(x, x)))),)


@profiled_op
cpdef Variable asin(object input, object out=None):
    """Elementwise arcsine (nan outside [-1, 1]).

    >>> asin(Variable(numpy.array([0., 1.])))
    tensor([0.0000, 1.5708], dtype=float64)
    """
    if out is not None: return _write_out_checked("asin", out, asin(input), (input,))
    return _float_unary(_np_arcsin, input, AsinBackward, 1, "asin")


cdef class AcosBackward(_UnaryNode):
    cdef tuple _backward(self, tuple grads):
        x = self.saved.unpack(self)
        return (mul(neg(grads[0]), rsqrt(sub(1, mul(x, x)))),)


@profiled_op
cpdef Variable acos(object input, object out=None):
    """Elementwise arccosine (nan outside [-1, 1]).

    >>> acos(Variable(numpy.array([1., 0.])))
    tensor([0.0000, 1.5708], dtype=float64)
    """
    if out is not None: return _write_out_checked("acos", out, acos(input), (input,))
    return _float_unary(_acos_data, input, AcosBackward, 1, "acos")


cdef object _acos_data(object d):
    if d.dtype == numpy.complex128:
        # torch's complex128 acos is pi/2 - asin(z) (so acos(0j) is pi/2 + 0i, not
        # - 0i); its complex64 one is the C library's, as NumPy's
        a = _xp_of(d).arcsin(d)
        return _complex_parts(math.pi / 2 - a.real, 0.0 - a.imag, d.dtype)
    return _np_arccos(d)


cdef class AtanBackward(_UnaryNode):
    cdef tuple _backward(self, tuple grads):
        x = self.saved.unpack(self)
        return (div(grads[0], add(mul(x, x), 1)),)


@profiled_op
cpdef Variable atan(object input, object out=None):
    """Elementwise arctangent.

    >>> atan(Variable(numpy.array([0., 1.])))
    tensor([0.0000, 0.7854], dtype=float64)
    """
    if out is not None: return _write_out_checked("atan", out, atan(input), (input,))
    return _float_unary(_np_arctan, input, AtanBackward, 1, "atan")


cdef class SinhBackward(_UnaryNode):
    cdef tuple _backward(self, tuple grads):
        return (mul(grads[0], cosh(self.saved.unpack(self))),)


@profiled_op
cpdef Variable sinh(object input, object out=None):
    """Elementwise hyperbolic sine.

    >>> sinh(Variable(numpy.array([0., 1.])))
    tensor([0.0000, 1.1752], dtype=float64)
    """
    if out is not None: return _write_out_checked("sinh", out, sinh(input), (input,))
    return _float_unary(_np_sinh, input, SinhBackward, 1, "sinh")


cdef class CoshBackward(_UnaryNode):
    cdef tuple _backward(self, tuple grads):
        return (mul(grads[0], sinh(self.saved.unpack(self))),)


@profiled_op
cpdef Variable cosh(object input, object out=None):
    """Elementwise hyperbolic cosine.

    >>> cosh(Variable(numpy.array([0., 1.])))
    tensor([1.0000, 1.5431], dtype=float64)
    """
    if out is not None: return _write_out_checked("cosh", out, cosh(input), (input,))
    return _float_unary(_np_cosh, input, CoshBackward, 1, "cosh")


cdef class ErfBackward(_UnaryNode):
    cdef tuple _backward(self, tuple grads):
        x = self.saved.unpack(self)
        return (mul(grads[0], mul(exp(neg(mul(x, x))), _TWO_OVER_SQRT_PI)),)


cdef object _erf_scalar = numpy.frompyfunc(math.erf, 1, 1)


cdef object _erf_data(object d):
    # NumPy has no erf: math.erf (correctly rounded to a few ulps) element by element,
    # in float64, then rounded to the input dtype; CuPy has one.
    if cupy is not None and isinstance(d, cupy.ndarray):
        import cupyx.scipy.special
        return cupyx.scipy.special.erf(d)
    return numpy.asarray(_erf_scalar(d), dtype=numpy.float64).astype(d.dtype, copy=False)


@profiled_op
cpdef Variable erf(object input, object out=None):
    """Elementwise error function ``2/sqrt(pi) * integral from 0 to x of exp(-t^2)``.

    >>> erf(Variable(numpy.array([0., 1.])))
    tensor([0.0000, 0.8427], dtype=float64)
    """
    if out is not None: return _write_out_checked("erf", out, erf(input), (input,))
    _refuse_complex(input, None, "erf")
    return _float_unary(_erf_data, input, ErfBackward, 1, "erf")


# -- selections: maximum, minimum, where, clamp (gradient masks fixed at forward) --------

cdef object _ZERO_BITS_INT = {2: numpy.dtype(numpy.int16), 4: numpy.dtype(numpy.int32),
                              8: numpy.dtype(numpy.int64)}


cdef object _zero_where_data(object g, object zero):
    # The array form of where_const(zero, 0, g): g with +0 where the bool mask `zero`
    # is true (nan and inf there too, as torch's where). numpy.where takes ~3 ns per
    # element (no fast loop for a mask and a 0-d value); for a native float g the same
    # select is a bitwise AND of g's bits with a mask of all-ones or all-zeros bits,
    # two SIMD passes. The mask broadcasts against g as in where.
    cdef cnp.dtype descr
    if type(g) is _NDARRAY and type(zero) is _NDARRAY and cnp.PyArray_NDIM(<cnp.ndarray>g):
        descr = <cnp.dtype><object>cnp.PyArray_DESCR(<cnp.ndarray>g)
        if descr.kind == b'f' and descr.isnative:
            int_dtype = _ZERO_BITS_INT.get(descr.itemsize)
            if int_dtype is not None:
                keep = zero.astype(int_dtype)          # 1 where zeroed, 0 where kept
                _np_subtract(keep, 1, keep)        # 0 (no bits) / -1 (all bits)
                out = _np_bitwise_and(g.view(int_dtype), keep)
                return out.view(descr)
    xp = _xp_of(g)
    return xp.where(zero, xp.zeros((), dtype=g.dtype), g)


cdef class _SelectNode(_BinaryNode):
    # The output takes each element from a or b (or both, at ties): a's gradient is g with
    # zeros where zero_a is true, b's where zero_b is; `scale` (0.5 at ties) splits it.
    cdef object zero_a
    cdef object zero_b
    cdef object scale
    cdef object keep_bits             # where's bit select: all ones where a was taken
    cdef object bits_dtype            # ... for gradients of this (the output's) dtype

    cdef tuple _backward(self, tuple grads):
        if self.zero_a is None:
            raise _freed_error(self)
        cdef Variable g = grads[0]
        v = _gv(g, _grad_enabled())
        if self.scale is not None:
            v = _v_mul(v, self.scale)
        va, vb = self._split(v, self._needs_input_grad(0), self._needs_input_grad(1))
        return (self.out_a(va, g) if va is not None else None,
                self.out_b(vb, g) if vb is not None else None)

    cdef tuple _split(self, object v, bint need_a, bint need_b):
        # v as a value split in two: a's part (zero where zero_a) and b's (zero where
        # zero_b), None where not needed.
        va = vb = None
        if isinstance(v, Variable):
            if need_a:
                va = where_const(self.zero_a, 0.0, v)
            if need_b:
                vb = where_const(self.zero_b, 0.0, v)
        elif self.keep_bits is not None and type(v) is _NDARRAY and \
                _dtype(v) is self.bits_dtype:
            # where's bit select: a's part is v's bits under the mask, b's the rest,
            # v ^ (v & mask)
            vi = v.view(self.keep_bits.dtype)
            da = _np_bitwise_and(vi, self.keep_bits)
            if need_b:
                vb = _np_bitwise_xor(vi, da).view(self.bits_dtype)
            if need_a:
                va = da.view(self.bits_dtype)
        else:
            if need_a:
                va = _zero_where_data(v, self.zero_a)
            if need_b:
                vb = _zero_where_data(v, self.zero_b)
        return (va, vb)

    cdef void _release_saved(self) noexcept:
        _BinaryNode._release_saved(self)
        self.zero_a = self.zero_b = self.scale = self.keep_bits = None


cdef Variable _pairwise_extremum(object input, object other, bint is_max, str what):
    data = _ensure_array(_apply_binary(_np_maximum if is_max else _np_minimum, input, other,
                                       what))
    if not _binary_records(input, other):
        return _plain(data, _operand_volatile(input) or _operand_volatile(other))
    cdef _SelectNode node = (MaximumBackward.__new__(MaximumBackward) if is_max
                                 else MinimumBackward.__new__(MinimumBackward))
    xp = _xp_of(data)
    da = _operand_data(input, what)
    db = _operand_data(other, what)
    # torch: ties split the gradient half and half; nan goes to both (no comparison holds)
    node.zero_a = xp.asarray(da < db if is_max else da > db)
    node.zero_b = xp.asarray(da > db if is_max else da < db)
    ties = xp.asarray(da == db)
    if xp is not numpy or bool(ties.any()):     # (on a GPU the any() would be a sync)
        node.scale = xp.where(ties, 0.5, 1.0).astype(data.dtype, copy=False)
    return _binary(node, data, input, other, False, False)


cdef class MaximumBackward(_SelectNode):
    pass


@profiled_op
cpdef Variable maximum(object input, object other, object out=None):
    """Elementwise maximum with broadcasting; at ties each input gets half the gradient.

    >>> maximum(Variable(numpy.array([1., 5.])), Variable(numpy.array([3., 2.])))
    tensor([3., 5.], dtype=float64)
    """
    if out is not None: return _write_out_checked("maximum", out, maximum(input, other),
                                                  (input, other))
    _refuse_complex(input, other, "maximum")
    return _pairwise_extremum(input, other, True, "maximum")


cdef class MinimumBackward(_SelectNode):
    pass


@profiled_op
cpdef Variable minimum(object input, object other, object out=None):
    """Elementwise minimum with broadcasting; at ties each input gets half the gradient.

    >>> minimum(Variable(numpy.array([1., 5.])), Variable(numpy.array([3., 2.])))
    tensor([1., 2.], dtype=float64)
    """
    if out is not None: return _write_out_checked("minimum", out, minimum(input, other),
                                                  (input, other))
    _refuse_complex(input, other, "minimum")
    return _pairwise_extremum(input, other, False, "minimum")


cdef class WhereBackward(_SelectNode):
    pass


class _NotGiven:
    """where()'s absent input and other (None cannot mark them: it is no number)."""

    def __repr__(self):
        return "<not given>"


_NO_VALUE = _NotGiven()


@profiled_op
cpdef object where(object condition, object input=_NO_VALUE, object other=_NO_VALUE,
                   object out=None):
    """Elementwise ``input`` where ``condition`` is true, ``other`` elsewhere (either may
    be a number); the gradient goes to the input each element came from. With the
    condition alone, ``nonzero(condition, as_tuple=True)``, as torch.

    >>> where(Variable(numpy.array([True, False])), Variable(numpy.array([1., 2.])), 0.)
    tensor([1., 0.], dtype=float64)
    """
    if out is not None: return _write_out_checked("where", out, where(condition, input, other),
                                                  (condition, input, other), _OUT_EXACT)
    if input is _NO_VALUE and other is _NO_VALUE:
        return nonzero(condition, as_tuple=True)
    if input is _NO_VALUE or other is _NO_VALUE:
        raise TypeError("where(): expected the condition alone or the condition, input and "
                        "other")
    cond = _binary_operand_data(condition, "where", "condition")
    if hasattr(cond, "dtype"):
        if cond.dtype.kind != "b":
            # (torch: RuntimeError, "where expected condition to be a boolean tensor")
            raise RuntimeError("where(): expected condition to be a bool Variable, but got "
                               "one with dtype %s" % cond.dtype)
    elif not isinstance(cond, bool):
        raise TypeError("where(): condition must be a bool Variable or array, got %s"
                        % type(cond).__name__)
    da = _binary_operand_data(input, "where", "input")
    db = _binary_operand_data(other, "where", "other")
    # an int beside an integer Variable is converted to its dtype as torch does (300
    # into uint8 is an error, not 44)
    if type(da) is int and hasattr(db, "dtype") and _dtype_kind(db) in b"iu":
        da = _fill_scalar(da, db, "where")
    elif type(db) is int and hasattr(da, "dtype") and _dtype_kind(da) in b"iu":
        db = _fill_scalar(db, da, "where")
    xp = _xp_of(da if hasattr(da, "dtype") else (db if hasattr(db, "dtype") else cond))
    cdef object int_dtype = None
    if (type(da) is _NDARRAY and type(db) is _NDARRAY and type(cond) is _NDARRAY
            and cnp.PyArray_NDIM(<cnp.ndarray>da) and cnp.PyArray_NDIM(<cnp.ndarray>db)
            and _dtype(da) is _dtype(db) and _dtype_kind(da) == b'f'
            and (<cnp.dtype>_dtype(da)).isnative):
        int_dtype = _ZERO_BITS_INT.get((<cnp.dtype>_dtype(da)).itemsize)
    try:
        if int_dtype is not None:
            # Two float arrays of one dtype: select bits, b ^ ((a ^ b) & mask) with an
            # all-ones mask where cond is true (three SIMD passes; numpy.where has no
            # fast loop for broadcast or strided operands, ~3 ns per element).
            keep = cond.astype(int_dtype)
            _np_negative(keep, keep)
            bi = db.view(int_dtype)
            t = _np_bitwise_and(_np_bitwise_xor(da.view(int_dtype), bi), keep)
            data = _np_bitwise_xor(t, bi, t).view(_dtype(da))
        else:
            data = _ensure_array(xp.where(cond, da, db))
    except ValueError:
        raise RuntimeError("where(): the shapes of condition %s, input %s and other %s "
                           "cannot be broadcast together"
                           % (_shape_str(_shape_of(cond)), _shape_str(_shape_of(input)),
                              _shape_str(_shape_of(other)))) from None
    rt = _result_dtype(da, db)                 # torch's promotion, not numpy.where's
    if rt is not None and data.dtype != rt:
        data = data.astype(rt)
    volatile = (_operand_volatile(condition) or _operand_volatile(input)
                or _operand_volatile(other))
    if not _binary_records(input, other) or _operand_volatile(condition):
        return _plain(data, volatile)
    cdef _SelectNode node = WhereBackward.__new__(WhereBackward)
    if int_dtype is not None:
        node.keep_bits = keep
        node.bits_dtype = _dtype(data)
    cond = xp.asarray(cond)
    node.zero_a = ~cond
    node.zero_b = cond
    return _binary(node, data, input, other, False, False)


cdef class ClampBackward(Node):
    # Three inputs (input, min, max; a bound may be a number or None). zero_*: where
    # each gets no gradient (torch's clamp_backward and clamp_backward_min_max).
    cdef object zero_input
    cdef object zero_min
    cdef object zero_max
    cdef tuple shapes
    cdef tuple dtypes

    cdef tuple _backward(self, tuple grads):
        if self.zero_input is None:
            raise _freed_error(self)
        g = _gv(grads[0], _grad_enabled())
        out = [None, None, None]
        for i, zero in enumerate((self.zero_input, self.zero_min, self.zero_max)):
            if zero is not None and self._needs_input_grad(i):
                out[i] = _grad(_v_reduce(_v_zero_where(g, zero), self.shapes[i], self.dtypes[i]))
        return tuple(out)

    cdef void _release_saved(self) noexcept:
        self._released = True
        self.zero_input = self.zero_min = self.zero_max = None


cdef inline bint _clip_bound(object bound):
    # A bound numpy.clip takes as torch's clamp does: None, or a Python int or float.
    return bound is None or type(bound) is float or type(bound) is int


cdef object _bound_as(object bound, object rt):
    # a Variable bound's array in the clamp's result dtype rt (None: as it is)
    if rt is not None and isinstance(bound, Variable) and \
            not _same_dtype(_dtype((<Variable>bound)._data), rt):
        return (<Variable>bound)._data.astype(rt)
    return bound


@profiled_op
cpdef Variable clamp(object input, object min=None, object max=None, object out=None):
    """Elementwise ``input`` limited to [min, max] (numbers or Variables; one may be None).
    The gradient flows to ``input`` where ``min <= input <= max``, to a Variable bound
    where the bound was taken.

    >>> clamp(Variable(numpy.array([-2., 0.5, 3.])), -1, 1)
    tensor([-1.0000,  0.5000,  1.0000], dtype=float64)
    """
    if out is not None: return _write_out_checked("clamp", out, clamp(input, min, max),
                                                  (input, min, max), _OUT_EXACT)
    if min is None and max is None:
        raise RuntimeError("clamp(): At least one of 'min' or 'max' must not be None")
    _refuse_complex(input, None, "clamp")
    cdef Variable x = _as_variable(input, "clamp")
    data = x._data
    cdef bint clipped = (_dtype_kind(data) == b'f' and type(data) is _NDARRAY
                         and _clip_bound(min) and _clip_bound(max))
    if clipped:
        # Float array and number bounds: numpy.clip's one loop is minimum(maximum(x, min),
        # max) (nan propagates), several times faster than the two ufunc calls.
        data = _np_clip(data, min, max)
    else:
        if isinstance(min, Variable) or isinstance(max, Variable):
            rt = _ternary_dtype(tuple([_binary_operand_data(v, "clamp", n) for v, n in
                                       ((x, "input"), (min, "min"), (max, "max"))
                                       if v is not None]))
            if _category(rt) == 3 or (_category(rt) == 0 and min is not None
                                      and max is not None):
                _no_kernel("clamp", "clamp_cpu" if min is not None and max is not None else
                           ("maximum_cpu" if min is not None else "minimum_cpu"), rt)
            # torch promotes the three together (a 0-d bound below a dimensioned one's
            # category), not pairwise: compute in that dtype from the start
            if not _same_dtype(_dtype(data), rt):
                data = data.astype(rt)
        else:
            rt = None
        if min is not None:
            _binary_operand_data(min, "clamp", "min")
            data = _apply_binary(_np_maximum, data, _bound_as(min, rt), "clamp")
        if max is not None:
            _binary_operand_data(max, "clamp", "max")
            data = _apply_binary(_np_minimum, data, _bound_as(max, rt), "clamp")
    data = _ensure_array(data)
    volatile = x._volatile or _operand_volatile(min) or _operand_volatile(max)
    if not ((_requires_grad_now(x) or _operand_requires_grad(min)
             or _operand_requires_grad(max)) and _grad_enabled()) or volatile:
        return _plain(data, volatile)
    xp = _xp_of(data)
    xd = x._data
    lo = None if min is None else _operand_data(min, "clamp")
    hi = None if max is None else _operand_data(max, "clamp")
    if clipped and (lo is None or hi is None or lo <= hi):
        # the clip left x unchanged exactly where min <= x <= max (nan: neither holds)
        inside = _np_equal(data, xd)
    elif lo is not None and hi is not None:
        inside = (xd >= lo) & (xd <= hi)
    elif lo is not None:
        inside = xd >= lo
    else:
        inside = xd <= hi
    cdef ClampBackward node = ClampBackward.__new__(ClampBackward)
    node.zero_input = ~xp.asarray(inside)
    if isinstance(min, Variable):
        took_min = xd < lo
        if hi is not None:
            took_min = took_min & (lo < hi)
        node.zero_min = ~xp.asarray(took_min)
    if isinstance(max, Variable):
        took_max = xd > hi
        if lo is not None:
            took_max = took_max | (hi < lo)
        node.zero_max = ~xp.asarray(took_max)
    node.shapes = (_shape_if_broadcast(x, data),
                   None if min is None else _shape_if_broadcast(min, data),
                   None if max is None else _shape_if_broadcast(max, data))
    node.dtypes = (_dtype(xd), _dtype_of(min), _dtype_of(max))
    return _recorded(node, data, (_edge(x), _operand_edge(min), _operand_edge(max)))


@profiled_op
cpdef Variable clip(object input, object min=None, object max=None, object out=None):
    """Alias of :func:`clamp`.

    >>> clip(Variable(numpy.array([-2., 3.])), None, 1)
    tensor([-2.,  1.], dtype=float64)
    """
    if out is not None: return _write_out_checked("clip", out, clip(input, min, max),
                                                  (input, min, max), _OUT_EXACT)
    try:
        return clamp(input, min, max)
    except _OP_ERRORS as exc:
        raise _renamed(exc, "clip") from None


@profiled_op
cpdef Variable clamp_min(object input, object min, object out=None):
    """``clamp(input, min=min)``.

    >>> clamp_min(Variable(numpy.array([-2., 3.])), 0)
    tensor([0., 3.], dtype=float64)
    """
    if out is not None: return _write_out_checked("clamp_min", out, clamp_min(input, min),
                                                  (input, min), _OUT_EXACT)
    _refuse_complex(input, None, "clamp_min")
    try:
        return clamp(input, min, None)
    except _OP_ERRORS as exc:
        raise _renamed(exc, "clamp_min") from None


@profiled_op
cpdef Variable clamp_max(object input, object max, object out=None):
    """``clamp(input, max=max)``.

    >>> clamp_max(Variable(numpy.array([-2., 3.])), 0)
    tensor([-2.,  0.], dtype=float64)
    """
    if out is not None: return _write_out_checked("clamp_max", out, clamp_max(input, max),
                                                  (input, max), _OUT_EXACT)
    _refuse_complex(input, None, "clamp_max")
    try:
        return clamp(input, None, max)
    except _OP_ERRORS as exc:
        raise _renamed(exc, "clamp_max") from None


# -- atan2, hypot, lerp ---------------------------------------------------------------

cdef class Atan2Backward(_BinaryNode):
    cdef tuple _backward(self, tuple grads):
        g = grads[0]
        a = self.a.get(self)
        b = self.b.get(self)
        ga = gb = None
        # d atan2(a, b) = (b da - a db) / r^2, with 0 where r = 0 (torch: no NaN at (0, 0))
        r2 = add(mul(a, a), mul(b, b))
        at_origin = (<Variable>r2)._data == 0
        recip = where_const(at_origin, 0, reciprocal(where_const(at_origin, 1, r2)))
        # torch's order: (grad * other) * recip, so an overflow of grad * other at
        # (0, 1e308) is inf * 0 = nan, as torch's
        if self._needs_input_grad(0):
            ga = self.grad_a(mul(mul(g, b), recip))
        if self._needs_input_grad(1):
            gb = self.grad_b(mul(mul(g, neg(a) if isinstance(a, Variable) else -a), recip))
        return (ga, gb)


@profiled_op
cpdef Variable atan2(object input, object other, object out=None):
    """Elementwise angle of the point (other, input), in (-pi, pi].

    >>> atan2(Variable(numpy.array([1., 1.])), Variable(numpy.array([1., -1.])))
    tensor([0.7854, 2.3562], dtype=float64)
    """
    if out is not None: return _write_out_checked("atan2", out, atan2(input, other),
                                                  (input, other))
    _refuse_complex(input, other, "atan2")
    data = _apply_binary(_np_arctan2, input, other, "atan2")
    if _binary_records(input, other):
        return _binary(Atan2Backward.__new__(Atan2Backward), data, input, other, True, True)
    return _plain(data, _operand_volatile(input) or _operand_volatile(other))


cdef class HypotBackward(_BinaryNode):
    cdef tuple _backward(self, tuple grads):
        g = grads[0]
        a = self.a.get(self)
        b = self.b.get(self)
        r = hypot(a, b)
        ga = gb = None
        # torch's order, grad * x / result (no overflow of x / r's reciprocal)
        if self._needs_input_grad(0):
            ga = self.grad_a(div(mul(g, a), r))
        if self._needs_input_grad(1):
            gb = self.grad_b(div(mul(g, b), r))
        return (ga, gb)


@profiled_op
cpdef Variable hypot(object input, object other, object out=None):
    """Elementwise ``sqrt(input**2 + other**2)`` without overflow.

    >>> hypot(Variable(numpy.array([3., 5.])), 4.)
    tensor([5.0000, 6.4031], dtype=float64)
    """
    if out is not None: return _write_out_checked("hypot", out, hypot(input, other),
                                                  (input, other))
    _refuse_complex(input, other, "hypot")
    rt = _torch_result_dtype(_binary_operand_data(input, "hypot", "input"),
                             _binary_operand_data(other, "hypot", "other"))
    if _category(rt) <= 1:
        _no_kernel("hypot", "hypot_cpu", rt)
    data = _apply_binary(_np_hypot, input, other, "hypot")
    if _binary_records(input, other):
        return _binary(HypotBackward.__new__(HypotBackward), data, input, other, True, True)
    return _plain(data, _operand_volatile(input) or _operand_volatile(other))


cdef class LogaddexpBackward(_BinaryNode):
    # d/da log(e^a + e^b) = 1 / (1 + e^(b - a)) (torch's form: exact 1 and 0 when one
    # operand is inf and the other finite, where e^(a - out) would be nan); base 2 scales
    # the differences by ln 2.
    cdef double scale

    cdef tuple _backward(self, tuple grads):
        g = grads[0]
        a = self.a.get(self)
        b = self.b.get(self)
        ga = gb = None
        with numpy.errstate(over="ignore"):     # e^big = inf is the right answer: 1/inf = 0
            if self._needs_input_grad(0):
                ga = self.grad_a(div(g, self._conj(add(exp(self._scaled(sub(b, a))), 1))))
            if self._needs_input_grad(1):
                gb = self.grad_b(div(g, self._conj(add(exp(self._scaled(sub(a, b))), 1))))
        return (ga, gb)

    cdef object _conj(self, Variable d):
        # complex operands: the derivative's conjugate (torch's convention)
        return conj(d) if _dtype_kind(d._data) == b'c' else d

    cdef object _scaled(self, object difference):
        return difference if self.scale == 1.0 else mul(difference, self.scale)


cdef object _complex_logaddexp(object da, object db, object rt, object xp):
    # torch's complex log(e^a + e^b): the operand with the larger real part factored out;
    # two equal infinite real parts give the smaller operand (-inf) or the direct sum
    # (+inf); a NaN in the smaller operand gives nan+nanj.
    a, b = xp.broadcast_arrays(xp.asarray(da, dtype=rt), xp.asarray(db, dtype=rt))
    swap = a.real < b.real
    hi = xp.where(swap, b, a)
    lo = xp.where(swap, a, b)
    with numpy.errstate(all="ignore"):
        out = hi + xp.log1p(xp.exp(lo - hi))
        both_inf = xp.isinf(lo.real) & (lo.real == hi.real)
        out = xp.where(both_inf, xp.where(lo.real < 0, lo, xp.log(xp.exp(lo) + xp.exp(hi))),
                       out)
        out = xp.where(xp.isnan(lo.real) | xp.isnan(lo.imag),
                       xp.asarray(complex(float("nan"), float("nan")), dtype=rt), out)
    return xp.ascontiguousarray(out).reshape(out.shape)     # (0-d stays 0-d)


cdef Variable _logaddexp(object ufunc, object input, object other, double scale, str what):
    # torch promotes the operands first (an integer Variable with a floating one computes
    # in the floating dtype); only an integer or bool result has no kernel, and base 2
    # none for complex
    da = _binary_operand_data(input, what, "input")
    db = _binary_operand_data(other, what, "other")
    rt = _torch_result_dtype(da, db)
    cdef int category = _category(rt)
    if category <= 1 or (category == 3 and scale != 1.0):
        raise NotImplementedError('%s(): "%s_cpu" not implemented for \'%s\''
                                  % (what, what, _torch_dtype_name(rt)))
    if category == 3:
        data = _complex_logaddexp(da, db, rt, _xp_of(da if hasattr(da, "dtype") else db))
    else:
        data = _apply_binary(ufunc, input, other, what)
    cdef LogaddexpBackward node
    if _binary_records(input, other):
        node = LogaddexpBackward.__new__(LogaddexpBackward)
        node.scale = scale
        return _binary(node, data, input, other, True, True)
    return _plain(data, _operand_volatile(input) or _operand_volatile(other))


@profiled_op
cpdef Variable logaddexp(object input, object other, object out=None):
    """Elementwise ``log(exp(input) + exp(other))``, without overflow.

    >>> logaddexp(Variable(numpy.array([0., 2.])), Variable(numpy.array([0., 2.])))
    tensor([0.6931, 2.6931], dtype=float64)
    """
    if out is not None: return _write_out_checked("logaddexp", out, logaddexp(input, other),
                                                  (input, other))
    return _logaddexp(numpy.logaddexp, input, other, 1.0, "logaddexp")


@profiled_op
cpdef Variable logaddexp2(object input, object other, object out=None):
    """Elementwise ``log2(2**input + 2**other)``, without overflow.

    >>> logaddexp2(Variable(numpy.array([0., 3.])), Variable(numpy.array([0., 3.])))
    tensor([1., 4.], dtype=float64)
    """
    if out is not None: return _write_out_checked("logaddexp2", out, logaddexp2(input, other),
                                                  (input, other))
    return _logaddexp(numpy.logaddexp2, input, other, 0.6931471805599453, "logaddexp2")


cdef class _TernaryBackward(Node):
    # lerp (kind 0: start, end, weight), addcmul (1) and addcdiv (2: input, tensor1,
    # tensor2 with the number `value`), with torch's derivative formulas and their order
    # of operations; a number operand (lerp's weight) gets no gradient.
    cdef int kind
    cdef object value
    cdef _SavedOperand s0
    cdef _SavedOperand s1
    cdef _SavedOperand s2
    cdef tuple shapes
    cdef tuple dtypes

    cdef tuple _backward(self, tuple grads):
        g = grads[0]
        out = [None, None, None]
        cdef bint cplx = _dtype_kind((<Variable>g)._data) == b'c'
        if self.kind == 0:
            a = self.s0.get(self)
            e = self.s1.get(self)
            w = self.s2.get(self)
            wc = conj(w) if cplx and isinstance(w, Variable) else (
                w.conjugate() if cplx else w)
            if self._needs_input_grad(0):
                out[0] = mul(g, sub(1, wc) if isinstance(wc, Variable) else 1 - wc)
            if self._needs_input_grad(1):
                out[1] = mul(g, wc)
            if self._needs_input_grad(2):
                d = sub(e, a)
                out[2] = mul(g, conj(d) if cplx else d)
        else:
            t1 = self.s1.get(self)
            t2 = self.s2.get(self)
            v = self.value
            if self._needs_input_grad(0):
                out[0] = g
            if self.kind == 1:
                if self._needs_input_grad(1):
                    d = mul(t2, v)
                    out[1] = mul(g, conj(d) if cplx else d)
                if self._needs_input_grad(2):
                    d = mul(t1, v)
                    out[2] = mul(g, conj(d) if cplx else d)
            else:
                if self._needs_input_grad(1):
                    d = div(v, t2)
                    out[1] = mul(g, conj(d) if cplx else d)
                if self._needs_input_grad(2):
                    d = div(mul(t1, v), mul(t2, t2))
                    out[2] = mul(neg(g), conj(d) if cplx else d)
        for i in range(3):
            if out[i] is not None:
                out[i] = _reduce_grad(_as_variable(out[i], "backward"), self.shapes[i],
                                      self.dtypes[i])
        return tuple(out)

    cdef void _release_saved(self) noexcept:
        self._released = True
        for s in (self.s0, self.s1, self.s2):
            if s is not None:
                (<_SavedOperand>s).release()


cdef class LerpBackward(_TernaryBackward):
    pass


cdef class AddcmulBackward(_TernaryBackward):
    pass


cdef class AddcdivBackward(_TernaryBackward):
    pass


cdef Variable _ternary(int kind, object data, object x0, object x1, object x2,
                       object value, bint volatile):
    # Record a _TernaryBackward for data = op(x0, x1, x2) when any operand requires grad.
    if not ((_operand_requires_grad(x0) or _operand_requires_grad(x1)
             or _operand_requires_grad(x2)) and _grad_enabled()) or volatile:
        return _plain(data, volatile)
    cdef _TernaryBackward node
    if kind == 0:
        node = LerpBackward.__new__(LerpBackward)
    elif kind == 1:
        node = AddcmulBackward.__new__(AddcmulBackward)
    else:
        node = AddcdivBackward.__new__(AddcdivBackward)
    node.kind = kind
    node.value = value
    node.s0 = _save_operand(x0, 0)
    node.s1 = _save_operand(x1, 1)
    node.s2 = _save_operand(x2, 2)
    node.shapes = (_shape_if_broadcast(x0, data), _shape_if_broadcast(x1, data),
                   _shape_if_broadcast(x2, data))
    node.dtypes = (_dtype_of(x0), _dtype_of(x1), _dtype_of(x2))
    return _recorded(node, data, (_operand_edge(x0), _operand_edge(x1), _operand_edge(x2)))


cdef object _ternary_dtype(tuple datas):
    # torch's result dtype of several operands (TensorIterator's promotion)
    dim = zero = wrapped = None
    for d in datas:
        if _scalar_category(d) >= 0:
            t = _wrapped_dtype(d)
            wrapped = t if wrapped is None else _promote_pair(wrapped, t)
        elif d.ndim == 0:
            zero = d.dtype if zero is None else _promote_pair(zero, d.dtype)
        else:
            dim = d.dtype if dim is None else _promote_pair(dim, d.dtype)
    return _combine_categories(dim, _combine_categories(zero, wrapped))


cdef tuple _ternary_arrays(tuple datas, object rt, str what, tuple operands):
    xp = numpy
    for d in datas:
        if _scalar_category(d) < 0:
            xp = _xp_of(d)
            break
    try:
        arrays = xp.broadcast_arrays(*[_in_dtype(d, rt, xp) for d in datas])
    except ValueError:
        raise RuntimeError("%s(): the shapes %s do not broadcast together"
                           % (what, ", ".join([_shape_str(_shape_of(o)) for o in operands]))
                           ) from None
    return xp, arrays


@profiled_op
cpdef Variable lerp(object input, object end, object weight, object out=None):
    """Linear interpolation ``input + weight * (end - input)`` (weight a number or a
    Variable); differentiable in all three. As torch: one floating or complex dtype for
    all Variables, ``end - (end - input) * (1 - weight)`` where ``|weight| >= 0.5``.

    >>> lerp(Variable(numpy.array([0., 10.])), Variable(numpy.array([1., 20.])), 0.5)
    tensor([ 0.5000, 15.0000], dtype=float64)
    """
    if out is not None: return _write_out_checked("lerp", out, lerp(input, end, weight),
                                                  (input, end, weight))
    cdef Variable s = _as_variable(input, "lerp")
    cdef Variable e = _as_variable(end, "lerp")
    dt = _dtype(s._data)
    cdef bint tensor_weight = isinstance(weight, Variable)
    if not _same_dtype(_dtype(e._data), dt):
        raise RuntimeError("lerp(): expected dtype %s for `end` but got dtype %s"
                           % (dt, _dtype(e._data)))
    if tensor_weight and (<Variable>weight)._data.ndim == 0:
        # a 0-d weight takes part in the promotion (int Variables, float64 0-d: float64)
        dt = _ternary_dtype((s._data, e._data, (<Variable>weight)._data))
    elif tensor_weight and not _same_dtype(_dtype((<Variable>weight)._data), dt):
        raise RuntimeError("lerp(): expected dtype %s for `weight` but got dtype %s"
                           % (dt, _dtype((<Variable>weight)._data)))
    cdef int category = _category(dt)
    if category <= 1:
        _no_kernel("lerp", "lerp_kernel_tensor" if tensor_weight else "lerp_kernel_scalar", dt)
    wd = _binary_operand_data(weight, "lerp", "weight")
    if not tensor_weight:
        if isinstance(wd, complex) and category != 3:
            raise RuntimeError("lerp(): value cannot be converted to type %s without overflow"
                               % dt)
    # float16 computed in float32 (torch's opmath), then rounded
    ct = numpy.dtype(numpy.float32) if dt.itemsize == 2 and category == 2 else dt
    xp, (a, b, w) = _ternary_arrays((s._data, e._data, wd), ct, "lerp", (s, e, weight))
    with numpy.errstate(all="ignore"):
        diff = b - a
        data = xp.where(xp.abs(w) < 0.5, a + w * diff, b - diff * (1 - w))
    data = _ensure_array(xp.asarray(data).astype(dt, copy=False))
    return _ternary(0, data, s, e, weight, None,
                    s._volatile or e._volatile or _operand_volatile(weight))


# -- composites torch users reach for: addcmul, addcdiv, true_divide, float_power,
#    logit, nan_to_num --------------------------------------------------------------------

cdef tuple _legacy_value_form(str what, object value, object tensor1, object tensor2):
    # torch's deprecated overload addcdiv(input, Number value, tensor1, tensor2) (and
    # addcmul, and their in-place forms): the old optimizers' addcdiv_(-step, m, denom).
    # Read as the current signature it would compute with the operands shifted by one.
    warnings.warn("This overload of %s is deprecated:\n\t%s(Tensor input, Number value, "
                  "Tensor tensor1, Tensor tensor2)\nConsider using one of the following "
                  "signatures instead:\n\t%s(Tensor input, Tensor tensor1, Tensor tensor2, "
                  "*, Number value = 1)" % (what, what, what), UserWarning)
    return value, tensor1, tensor2


cdef Variable _addc(object input, object tensor1, object tensor2, object value, bint divide):
    # torch's addcmul/addcdiv kernels: the three promoted to one dtype, value cast to it
    # (0.5 with integers is 0), input + (value * tensor1) op tensor2 with the product
    # fused into the sum (float16 computed in float32, float32 in float64, float64 in
    # long double: no overflow of the product alone)
    what = "addcdiv" if divide else "addcmul"
    operands = (input, tensor1, tensor2)
    datas = tuple([_binary_operand_data(o, what, n)
                   for o, n in zip(operands, ("input", "tensor1", "tensor2"))])
    rt = _ternary_dtype(datas)
    cdef int category = _category(rt)
    if category == 0 and not divide:
        _no_kernel(what, "addcmul_cpu_out", rt)
    if isinstance(value, complex) and category != 3:
        raise RuntimeError("%s(): value cannot be converted to type %s without overflow"
                           % (what, rt))
    xp, (a, t1, t2) = _ternary_arrays(datas, rt, what, operands)
    with numpy.errstate(all="ignore"):
        if category == 2:
            op_t = numpy.dtype(numpy.float32) if rt.itemsize == 2 else rt    # torch's opmath
            wide = _WIDER[rt.itemsize] if xp is numpy or rt.itemsize < 8 else rt
            p = xp.asarray(numpy.asarray(value).astype(op_t)) * t1.astype(op_t)
            if divide:
                data = a.astype(op_t) + p / t2.astype(op_t)
            else:
                data = a.astype(wide) + p.astype(wide) * t2.astype(wide)
        else:
            p = xp.multiply(xp.asarray(numpy.asarray(value).astype(rt)), t1, dtype=rt)
            data = a + (p / t2 if divide else xp.multiply(p, t2, dtype=rt))
    data = _ensure_array(xp.asarray(data).astype(rt, copy=False))
    return _ternary(2 if divide else 1, data, input, tensor1, tensor2, value,
                    _operand_volatile(input) or _operand_volatile(tensor1)
                    or _operand_volatile(tensor2))


@profiled_op
cpdef Variable addcmul(object input, object tensor1, object tensor2, object value=1,
                       object out=None):
    """``input + value * tensor1 * tensor2`` (broadcast), differentiable in all three.

    >>> addcmul(Variable(numpy.ones(2)), Variable(numpy.array([1., 2.])),
    ...         Variable(numpy.array([3., 4.])), value=0.5)
    tensor([2.5000, 5.0000], dtype=float64)
    """
    if out is not None: return _write_out_checked(
        "addcmul", out, addcmul(input, tensor1, tensor2, value), (input, tensor1, tensor2, value))
    if isinstance(value, Variable) and _scalar_category(tensor1) >= 0:
        value, tensor1, tensor2 = _legacy_value_form("addcmul", tensor1, tensor2, value)
    return _addc(input, tensor1, tensor2, value, False)


@profiled_op
cpdef Variable addcdiv(object input, object tensor1, object tensor2, object value=1,
                       object out=None):
    """``input + value * tensor1 / tensor2`` (broadcast), differentiable in all three;
    integer operands are refused, as torch.

    >>> addcdiv(Variable(numpy.ones(2)), Variable(numpy.array([1., 2.])),
    ...         Variable(numpy.array([4., 4.])), value=2)
    tensor([1.5000, 2.0000], dtype=float64)
    """
    if out is not None: return _write_out_checked(
        "addcdiv", out, addcdiv(input, tensor1, tensor2, value), (input, tensor1, tensor2, value))
    if isinstance(value, Variable) and _scalar_category(tensor1) >= 0:
        value, tensor1, tensor2 = _legacy_value_form("addcdiv", tensor1, tensor2, value)
    for operand in (tensor1, tensor2):
        if isinstance(operand, Variable) and _kind_category(
                _dtype_kind((<Variable>operand)._data)) <= 1:
            raise RuntimeError(
                "addcdiv(): Integer division with addcdiv is no longer supported, and in a "
                "future  release addcdiv will perform a true division of tensor1 and "
                "tensor2. The historic addcdiv behavior can be implemented as (input + value "
                "* torch.trunc(tensor1 / tensor2)).to(input.dtype) for integer inputs and as "
                "(input + value * tensor1 / tensor2) for float inputs. The future addcdiv "
                "behavior is just the latter implementation: (input + value * tensor1 / "
                "tensor2), for all dtypes.")
    return _addc(input, tensor1, tensor2, value, True)


@profiled_op
cpdef Variable true_divide(object input, object other, object out=None):
    """True division, as `div` (torch's older name).

    >>> true_divide(Variable(numpy.array([1, 2])), 2)
    tensor([0.5000, 1.0000])
    """
    if out is not None: return _write_out_checked("true_divide", out, true_divide(input, other),
                                                  (input, other))
    try:
        return div(input, other)
    except _OP_ERRORS as exc:
        raise _renamed(exc, "true_divide") from None


cdef object _widened(object v, bint to_complex):
    # float_power's operand in float64 (complex128 if either is complex): a Variable
    # converted (differentiably), a number as a Python float or complex
    if isinstance(v, Variable):
        return _convert(<Variable>v, None, numpy.complex128 if to_complex else numpy.float64,
                        False)
    if not isinstance(v, (int, float, complex, numpy.number)):
        raise TypeError("float_power(): expected a Variable or a number, got %s"
                        % type(v).__name__)
    return complex(v) if to_complex else float(v)


@profiled_op
cpdef Variable float_power(object input, object exponent, object out=None):
    """``input ** exponent`` computed in float64 (complex128 if either is complex),
    whatever the operands' dtypes.

    >>> float_power(Variable(numpy.array([2, 3])), -1)
    tensor([0.5000, 0.3333], dtype=float64)
    """
    if out is not None: return _write_out_checked("float_power", out, float_power(input, exponent),
                                                  (input, exponent), _OUT_EXACT)
    cdef bint to_complex = _is_complex_operand(input) or _is_complex_operand(exponent)
    try:
        base, power = _widened(input, to_complex), _widened(exponent, to_complex)
        return pow(base, power)
    except _OP_ERRORS as exc:
        raise _renamed(exc, "float_power") from None


cdef class LogitBackward(_UnaryNode):
    # g / (x (1 - x)) inside the domain; outside it, torch's values: nan without eps
    # (x < 0 or x > 1), 0 with eps (x < eps or x > 1 - eps)
    cdef object eps

    cdef tuple _backward(self, tuple grads):
        cdef Variable x = self.saved.unpack(self)
        if self.eps is None:
            outside, fill = (x._data < 0) | (x._data > 1), numpy.nan
        else:
            outside, fill = (x._data < self.eps) | (x._data > 1 - self.eps), 0
        with numpy.errstate(divide="ignore", invalid="ignore"):
            g = div(grads[0], mul(x, rsub(x, 1)))
            # at 0 and 1 torch's kernel gives g * inf: the sign of g, also at x = -0.0
            # (where g / (x (1 - x)) would flip it)
            edge = (x._data == 0) | (x._data == 1)
            if _xp_of(x._data) is not numpy or bool(edge.any()):
                g = where(edge, mul(grads[0], numpy.inf), g)
        return (where_const(outside, fill, g),)


@profiled_op
cpdef Variable logit(object input, object eps=None, object out=None):
    """``log(p / (1 - p))``, the inverse of `sigmoid`; with ``eps``, ``p`` is first
    clamped to ``[eps, 1 - eps]`` (and the gradient is 0 outside it, as torch).

    >>> logit(Variable(numpy.array([0.5, 0.75])))
    tensor([0.0000, 1.0986], dtype=float64)
    """
    if out is not None: return _write_out_checked("logit", out, logit(input, eps), (input, eps))
    cdef Variable x = _float_input(input, "logit")
    _refuse_complex(x, None, "logit")
    z = x._data if eps is None else _xp_of(x._data).clip(x._data, eps, 1 - eps)
    with numpy.errstate(divide="ignore", invalid="ignore"):   # 0 and 1 give -inf and inf
        data = _xp_of(z).log(z / (1 - z))
    cdef LogitBackward node
    if _records(x):
        node = LogitBackward.__new__(LogitBackward)
        node.eps = None if eps is None else float(eps)
        return _record_unary(node, data, x, True, False)
    return _plain(data, x._volatile)


@profiled_op
cpdef Variable nan_to_num(object input, object nan=0.0, object posinf=None,
                          object neginf=None, object out=None):
    """``input`` with nan replaced by ``nan``, +inf by ``posinf`` and -inf by ``neginf``
    (by default the dtype's largest and lowest finite values); the gradient is 0 at
    the replaced entries, as torch. Integers and bools are returned as a copy.

    >>> nan_to_num(Variable(numpy.array([numpy.nan, numpy.inf, 1.0])), posinf=9.0)
    tensor([0., 9., 1.], dtype=float64)
    """
    if out is not None: return _write_out_checked(
        "nan_to_num", out, nan_to_num(input, nan, posinf, neginf), (input, nan, posinf, neginf),
        _OUT_EXACT)
    cdef Variable x = _as_variable(input, "nan_to_num")
    cdef char kind = _dtype_kind(x._data)
    if kind != b'f' and kind != b'c':
        return _convert(x, None, None, True)
    xp = _xp_of(x._data)
    replaced = xp.nan_to_num(x._data, nan=nan, posinf=posinf, neginf=neginf)
    not_finite = ~xp.isfinite(x._data)
    if not _records(x):
        return _plain(replaced, x._volatile)
    if kind == b'c':
        raise RuntimeError("nan_to_num(): nan_to_num does not support automatic "
                           "differentiation for outputs with complex dtype.")
    # x where finite (its gradient passes, its -0.0 stays), the replacements elsewhere
    return where_const(not_finite, replaced, x)

# -- rounding: zero gradients, as torch -------------------------------------------------

cdef void _not_implemented_for(object d, str what, str kernel) except *:
    # torch's refusal of a dtype its CPU kernel has no loop for
    raise NotImplementedError("%s(): \"%s\" not implemented for '%s'"
                              % (what, kernel, _torch_dtype_name(d.dtype)))


cdef Variable _rounding(object ufunc, object input, type node_type, str what,
                        object decimals=0):
    cdef Variable x = _as_variable(input, what)
    cdef char kind = _dtype_kind(x._data)
    if kind == b'i' or kind == b'u' or kind == b'b':
        # torch: no bool kernel; integers are already whole (a copy), but rounding them
        # to decimals has no kernel either
        if decimals != 0:
            _not_implemented_for(x._data, what, "round_cpu")
        if kind == b'b':
            _not_implemented_for(x._data, what, ("trunc" if what == "fix" else what)
                                 + "_vml_cpu")
        data = x._data.copy()
    elif decimals != 0:
        if x._data.dtype == numpy.float16:
            # torch scales a float16 in float32 (10^3 * 100 does not overflow)
            data = _xp_of(x._data).round(x._data.astype(numpy.float32),
                                         decimals).astype(numpy.float16)
        else:
            data = _xp_of(x._data).round(x._data, decimals)
    else:
        data = ufunc(x._data)
    if _records(x):
        return _record_unary(<_UnaryNode>node_type.__new__(node_type), data, x, False, False)
    return _plain(data, x._volatile)


cdef class FloorBackward(_ZeroGradNode):
    pass


@profiled_op
cpdef Variable floor(object input, object out=None):
    """Elementwise largest integer <= input (zero gradient).

    >>> floor(Variable(numpy.array([-1.5, 1.5])))
    tensor([-2.,  1.], dtype=float64)
    """
    if out is not None: return _write_out_checked("floor", out, floor(input), (input,), _OUT_EXACT)
    _refuse_complex(input, None, "floor")
    return _rounding(_np_floor, input, FloorBackward, "floor")


cdef class CeilBackward(_ZeroGradNode):
    pass


@profiled_op
cpdef Variable ceil(object input, object out=None):
    """Elementwise smallest integer >= input (zero gradient).

    >>> ceil(Variable(numpy.array([-1.5, 1.5])))
    tensor([-1.,  2.], dtype=float64)
    """
    if out is not None: return _write_out_checked("ceil", out, ceil(input), (input,), _OUT_EXACT)
    _refuse_complex(input, None, "ceil")
    return _rounding(_np_ceil, input, CeilBackward, "ceil")


cdef class RoundBackward(_ZeroGradNode):
    pass


@profiled_op
cpdef Variable round(object input, object decimals=0, object out=None):
    """Elementwise rounding to ``decimals`` places, halves to even (zero gradient);
    ``round(x)`` and ``round(x, n)`` work too.

    >>> round(Variable(numpy.array([0.5, 1.5, 2.675])))
    tensor([0., 2., 3.], dtype=float64)
    >>> round(Variable(numpy.array([1.234, 5.678])), decimals=1)
    tensor([1.2000, 5.7000], dtype=float64)
    """
    if out is not None: return _write_out_checked("round", out, round(input, decimals),
                                                  (input, decimals), _OUT_EXACT)
    _refuse_complex(input, None, "round")
    try:
        decimals = operator.index(decimals)
    except TypeError:
        raise TypeError("round(): decimals must be an int, got %s"
                        % type(decimals).__name__) from None
    return _rounding(_np_rint, input, RoundBackward, "round", decimals)


cdef class TruncBackward(_ZeroGradNode):
    pass


@profiled_op
cpdef Variable trunc(object input, object out=None):
    """Elementwise rounding towards zero (zero gradient).

    >>> trunc(Variable(numpy.array([-1.5, 1.5])))
    tensor([-1.,  1.], dtype=float64)
    """
    if out is not None: return _write_out_checked("trunc", out, trunc(input), (input,), _OUT_EXACT)
    _refuse_complex(input, None, "trunc")
    return _rounding(_np_trunc, input, TruncBackward, "trunc")


@profiled_op
cpdef Variable frac(object input, object out=None):
    """Elementwise fractional part ``input - trunc(input)`` (gradient 1).

    >>> frac(Variable(numpy.array([-1.25, 2.5])))
    tensor([-0.2500,  0.5000], dtype=float64)
    """
    if out is not None: return _write_out_checked("frac", out, frac(input), (input,), _OUT_EXACT)
    _refuse_complex(input, None, "frac")
    if isinstance(input, Variable) and _dtype_kind((<Variable>input)._data) in b'biu':
        _not_implemented_for((<Variable>input)._data, "frac", "frac_cpu")
    try:
        return sub(input, trunc(input))
    except _OP_ERRORS as exc:
        raise _renamed(exc, "frac") from None


# -- floor division and remainders --------------------------------------------------------

cdef void _check_integer_divisor(object input, object other, str what) except *:
    # Integer division by zero: torch raises (NumPy would give 0 with a warning).
    da = _binary_operand_data(input, what, "input")
    db = _binary_operand_data(other, what, "other")
    if isinstance(db, builtins.float) or isinstance(da, builtins.float):
        return
    if ((not hasattr(da, "dtype") or da.dtype.kind in "biu")
            and (not hasattr(db, "dtype") or db.dtype.kind in "biu")
            and not builtins.bool((db != 0).all() if hasattr(db, "dtype") else db != 0)):
        raise RuntimeError("%s(): ZeroDivisionError (integer division by zero)" % what)


@profiled_op
cpdef Variable floor_divide(object input, object other, object out=None):
    """Elementwise ``input // other`` (rounded towards minus infinity). As torch, a
    floating result of inputs that require grad requires grad too, and differentiating
    it raises (torch has no derivative for floor_divide): it is never silently a
    constant.

    >>> floor_divide(Variable(numpy.array([5., -5.])), 2)
    tensor([ 2., -3.], dtype=float64)
    """
    if out is not None: return _write_out_checked("floor_divide", out, floor_divide(input, other),
                                                  (input, other))
    _refuse_complex(input, other, "floor_divide")
    if _both_bool(input, other):
        _no_kernel("floor_divide", "div_floor_cpu", "bool")
    _check_integer_divisor(input, other, "floor_divide")
    data = _apply_binary(_np_floor_divide, input, other, "floor_divide")
    if _binary_records(input, other) and _is_float_dtype(data.dtype):
        return _delayed_error((_wrap(data),), (input, other),
                              "derivative for aten::floor_divide is not implemented")[0]
    return _plain(data, _operand_volatile(input) or _operand_volatile(other))


cdef class _RemainderNode(_BinaryNode):
    # a - b * q with q = a / b rounded (floor or trunc): d/da = 1, d/db = -q (torch).
    cdef tuple _backward(self, tuple grads):
        g = grads[0]
        ga = gb = None
        if self._needs_input_grad(0):
            ga = self.grad_a(g)
        if self._needs_input_grad(1):
            gb = self.grad_b(mul(neg(g), self.quotient(self.a.data(self), self.b.data(self))))
        return (ga, gb)

    cdef object quotient(self, object a, object b):
        return None


cdef class RemainderBackward(_RemainderNode):
    cdef object quotient(self, object a, object b):
        with numpy.errstate(divide="ignore", invalid="ignore"):
            return _np_floor_divide(a, b)


@profiled_op
cpdef Variable remainder(object input, object other, object out=None):
    """Elementwise ``input % other`` with the sign of ``other`` (Python's ``%``).

    >>> remainder(Variable(numpy.array([5., -5.])), 3)
    tensor([2., 1.], dtype=float64)
    """
    if out is not None: return _write_out_checked("remainder", out, remainder(input, other),
                                                  (input, other))
    _refuse_complex(input, other, "remainder")
    if _both_bool(input, other):
        _no_kernel("remainder", "remainder_cpu", "bool")
    _check_integer_divisor(input, other, "remainder")
    data = _apply_binary(_np_remainder, input, other, "remainder")
    if _dtype_kind(data) == b'f':
        data = _zero_takes_dividend_sign(data, input)
    if _binary_records(input, other) and _scalar_category(input) >= 0:
        # torch's remainder(Scalar, Tensor) has no derivative: an error at backward
        return _delayed_error((_wrap(data),), (input, other),
                              "derivative for aten::remainder is not implemented")[0]
    if _binary_records(input, other):
        return _binary(RemainderBackward.__new__(RemainderBackward), data, input, other,
                       _operand_requires_grad(other), _operand_requires_grad(other))
    return _plain(data, _operand_volatile(input) or _operand_volatile(other))


cdef object _zero_takes_dividend_sign(object data, object input):
    # torch's float remainder is fmod(a, b) moved into b's sign, so a zero result keeps
    # fmod's sign, the dividend's (remainder(0., -2.) and remainder(6., -3.) are +0.0);
    # NumPy's takes the divisor's (-0.0)
    xp = _xp_of(data)
    zero = data == 0
    if not zero.any():
        return data
    a = (<Variable>input)._data if isinstance(input, Variable) else input
    return xp.where(zero, xp.copysign(xp.zeros((), dtype=data.dtype),
                                      xp.asarray(a).astype(data.dtype, copy=False)), data)


cdef class FmodBackward(_RemainderNode):
    cdef object quotient(self, object a, object b):
        with numpy.errstate(divide="ignore", invalid="ignore"):
            return _xp_of(b if not isinstance(b, (int, float)) else a).trunc(
                _np_true_divide(a, b))


@profiled_op
cpdef Variable fmod(object input, object other, object out=None):
    """Elementwise C-style remainder, with the sign of ``input``.

    >>> fmod(Variable(numpy.array([5., -5.])), 3)
    tensor([ 2., -2.], dtype=float64)
    """
    if out is not None: return _write_out_checked("fmod", out, fmod(input, other), (input, other))
    _refuse_complex(input, other, "fmod")
    if _both_bool(input, other):
        _no_kernel("fmod", "fmod_cpu", "bool")
    _check_integer_divisor(input, other, "fmod")
    data = _apply_binary(_np_fmod, input, other, "fmod")
    if _binary_records(input, other):
        return _binary(FmodBackward.__new__(FmodBackward), data, input, other,
                       _operand_requires_grad(other), _operand_requires_grad(other))
    return _plain(data, _operand_volatile(input) or _operand_volatile(other))


# -- comparisons, logical and bitwise ops, tests of values (no gradient) -----------------

@profiled_op
cpdef Variable lt(object input, object other, object out=None):
    """Elementwise ``input < other`` (bool).

    >>> lt(Variable(numpy.array([1., 3.])), 2)
    tensor([ True, False])
    """
    if out is not None: return _write_out_checked("lt", out, lt(input, other), (input, other))
    return _compare(_as_variable(input, "lt"), other, 0)


@profiled_op
cpdef Variable le(object input, object other, object out=None):
    """Elementwise ``input <= other`` (bool).

    >>> le(Variable(numpy.array([1., 3.])), 1)
    tensor([ True, False])
    """
    if out is not None: return _write_out_checked("le", out, le(input, other), (input, other))
    return _compare(_as_variable(input, "le"), other, 1)


@profiled_op
cpdef Variable eq(object input, object other, object out=None):
    """Elementwise ``input == other`` (bool).

    >>> eq(Variable(numpy.array([1., 3.])), 3)
    tensor([False,  True])
    """
    if out is not None: return _write_out_checked("eq", out, eq(input, other), (input, other))
    return _compare(_as_variable(input, "eq"), other, 2)


@profiled_op
cpdef Variable ne(object input, object other, object out=None):
    """Elementwise ``input != other`` (bool).

    >>> ne(Variable(numpy.array([1., 3.])), 3)
    tensor([ True, False])
    """
    if out is not None: return _write_out_checked("ne", out, ne(input, other), (input, other))
    return _compare(_as_variable(input, "ne"), other, 3)


@profiled_op
cpdef Variable gt(object input, object other, object out=None):
    """Elementwise ``input > other`` (bool).

    >>> gt(Variable(numpy.array([1., 3.])), 2)
    tensor([False,  True])
    """
    if out is not None: return _write_out_checked("gt", out, gt(input, other), (input, other))
    return _compare(_as_variable(input, "gt"), other, 4)


@profiled_op
cpdef Variable ge(object input, object other, object out=None):
    """Elementwise ``input >= other`` (bool).

    >>> ge(Variable(numpy.array([1., 3.])), 3)
    tensor([False,  True])
    """
    if out is not None: return _write_out_checked("ge", out, ge(input, other), (input, other))
    return _compare(_as_variable(input, "ge"), other, 5)


cdef Variable _no_grad_unary(object ufunc, object input, str what):
    cdef Variable x = _as_variable(input, what)
    try:
        data = ufunc(x._data)
    except TypeError:
        raise TypeError("%s(): not supported for dtype %s" % (what, x._data.dtype)) from None
    return _plain(data, x._volatile)


cdef Variable _no_grad_binary(object ufunc, object input, object other, str what):
    try:
        data = _apply_binary(ufunc, input, other, what)
    except TypeError:
        raise TypeError("%s(): not supported for dtypes %s and %s"
                        % (what, _dtype_of(input) or type(input).__name__,
                           _dtype_of(other) or type(other).__name__)) from None
    return _plain(data, _operand_volatile(input) or _operand_volatile(other))


cdef Variable _logical_binary(object ufunc, object input, object other, str what):
    # Logical ops read each operand as true or false in its own dtype: no promotion
    # (torch's logical_and(int16, float16) is defined; a promoted dtype need not exist).
    # torch takes no Python number as `other` (its signature has only a Tensor there).
    if isinstance(other, (bool, int, float, complex)):
        raise TypeError("%s(): argument 'other' (position 2) must be Variable, not %s"
                        % (what, type(other).__name__))
    da = _binary_operand_data(input, what, "input")
    db = _binary_operand_data(other, what, "other")
    try:
        data = ufunc(da, db)
    except ValueError:
        raise _broadcast_error(what, input, other) from None
    except TypeError:
        raise TypeError("%s(): not supported for dtypes %s and %s"
                        % (what, _dtype_of(input) or type(input).__name__,
                           _dtype_of(other) or type(other).__name__)) from None
    return _plain(_ensure_array(data), _operand_volatile(input) or _operand_volatile(other))


@profiled_op
cpdef Variable logical_not(object input, object out=None):
    """Elementwise logical NOT (bool result; nonzero is true).

    >>> logical_not(Variable(numpy.array([0., 2.])))
    tensor([ True, False])
    """
    if out is not None: return _write_out_checked("logical_not", out, logical_not(input), (input,))
    return _no_grad_unary(numpy.logical_not, input, "logical_not")


@profiled_op
cpdef Variable logical_and(object input, object other, object out=None):
    """Elementwise logical AND (bool result; nonzero is true).

    >>> logical_and(Variable(numpy.array([0., 2.])), Variable(numpy.array(True)))
    tensor([False,  True])

    ``other`` is a Variable (or an array), not a Python number: torch's TypeError.
    """
    if out is not None: return _write_out_checked("logical_and", out, logical_and(input, other),
                                                  (input, other))
    return _logical_binary(numpy.logical_and, input, other, "logical_and")


@profiled_op
cpdef Variable logical_or(object input, object other, object out=None):
    """Elementwise logical OR (bool result; nonzero is true).

    >>> logical_or(Variable(numpy.array([0., 2.])), Variable(numpy.array(False)))
    tensor([False,  True])

    ``other`` is a Variable (or an array), not a Python number: torch's TypeError.
    """
    if out is not None: return _write_out_checked("logical_or", out, logical_or(input, other),
                                                  (input, other))
    return _logical_binary(numpy.logical_or, input, other, "logical_or")


@profiled_op
cpdef Variable logical_xor(object input, object other, object out=None):
    """Elementwise logical XOR (bool result; nonzero is true).

    >>> logical_xor(Variable(numpy.array([0., 2.])), Variable(numpy.array(True)))
    tensor([ True, False])

    ``other`` is a Variable (or an array), not a Python number: torch's TypeError.
    """
    if out is not None: return _write_out_checked("logical_xor", out, logical_xor(input, other),
                                                  (input, other))
    return _logical_binary(numpy.logical_xor, input, other, "logical_xor")


cdef void _check_bitwise2(object a, object b, str what) except *:
    # torch promotes, then finds no bitwise kernel for a floating or complex result
    rt = _torch_result_dtype(_binary_operand_data(a, what, "input"),
                             _binary_operand_data(b, what, "other"))
    if _category(rt) >= 2:
        raise NotImplementedError('%s(): "%s_cpu" not implemented for \'%s\''
                                  % (what, what, _torch_dtype_name(rt)))


@profiled_op
cpdef Variable bitwise_not(object input, object out=None):
    """Elementwise NOT of bool or integer Variables (``~x``).

    >>> bitwise_not(Variable(numpy.array([True, False])))
    tensor([False,  True])
    """
    if out is not None: return _write_out_checked("bitwise_not", out, bitwise_not(input),
                                                  (input,), _OUT_EXACT)
    cdef Variable x = _as_variable(input, "bitwise_not")
    if _dtype_kind(x._data) not in b'biu':
        _not_implemented_for(x._data, "bitwise_not", "bitwise_not_cpu")
    return _no_grad_unary(numpy.invert, x, "bitwise_not")


@profiled_op
cpdef Variable bitwise_and(object input, object other, object out=None):
    """Elementwise AND of bool or integer Variables (``a & b``).

    >>> bitwise_and(Variable(numpy.array([True, False])), True)
    tensor([ True, False])
    """
    if out is not None: return _write_out_checked("bitwise_and", out, bitwise_and(input, other),
                                                  (input, other))
    _check_bitwise2(input, other, "bitwise_and")
    return _no_grad_binary(numpy.bitwise_and, input, other, "bitwise_and")


@profiled_op
cpdef Variable bitwise_or(object input, object other, object out=None):
    """Elementwise OR of bool or integer Variables (``a | b``).

    >>> bitwise_or(Variable(numpy.array([True, False])), False)
    tensor([ True, False])
    """
    if out is not None: return _write_out_checked("bitwise_or", out, bitwise_or(input, other),
                                                  (input, other))
    _check_bitwise2(input, other, "bitwise_or")
    return _no_grad_binary(numpy.bitwise_or, input, other, "bitwise_or")


@profiled_op
cpdef Variable bitwise_xor(object input, object other, object out=None):
    """Elementwise XOR of bool or integer Variables (``a ^ b``).

    >>> bitwise_xor(Variable(numpy.array([True, False])), True)
    tensor([False,  True])
    """
    if out is not None: return _write_out_checked("bitwise_xor", out, bitwise_xor(input, other),
                                                  (input, other))
    _check_bitwise2(input, other, "bitwise_xor")
    return _no_grad_binary(numpy.bitwise_xor, input, other, "bitwise_xor")


cdef Variable _shift(object ufunc, object input, object other, str what, str kernel):
    # torch shifts integers only (a float or bool result: "lshift_cpu" not implemented);
    # a shift by the bit width or more gives 0 (-1 for a negative value shifted right),
    # as NumPy's loops do.
    kinds = ""
    for x in (input, other):
        kind = ((<Variable>x)._data.dtype.kind if isinstance(x, Variable) else
                "f" if isinstance(x, float) else "c" if isinstance(x, complex) else
                "b" if isinstance(x, bool) else getattr(x, "dtype", numpy.dtype(int)).kind)
        if kind not in "biu":
            raise NotImplementedError("%s(): \"%s\" not implemented for %s operands"
                                      % (what, kernel, "complex" if kind == "c" else "float"))
        kinds += kind
    if kinds == "bb":
        raise NotImplementedError("%s(): \"%s\" not implemented for 'Bool'" % (what, kernel))
    result = _no_grad_binary(ufunc, input, other, what)
    if result._data.dtype.kind == "b":
        raise NotImplementedError("%s(): \"%s\" not implemented for 'Bool'" % (what, kernel))
    return result


@profiled_op
cpdef Variable bitwise_left_shift(object input, object other, object out=None):
    """Elementwise left shift of integer Variables (``a << b``); bits shifted past the
    width are lost.

    >>> bitwise_left_shift(Variable(numpy.array([1, 3])), 2)
    tensor([ 4, 12])
    """
    if out is not None: return _write_out("bitwise_left_shift", out,
                                          bitwise_left_shift(input, other))
    return _shift(numpy.left_shift, input, other, "bitwise_left_shift", "lshift_cpu")


@profiled_op
cpdef Variable bitwise_right_shift(object input, object other, object out=None):
    """Elementwise arithmetic right shift of integer Variables (``a >> b``).

    >>> bitwise_right_shift(Variable(numpy.array([-8, 9])), 1)
    tensor([-4,  4])
    """
    if out is not None: return _write_out("bitwise_right_shift", out,
                                          bitwise_right_shift(input, other))
    return _shift(numpy.right_shift, input, other, "bitwise_right_shift", "rshift_cpu")


@profiled_op
cpdef Variable isnan(object input):
    """Elementwise test for nan (bool).

    >>> isnan(Variable(numpy.array([1., numpy.nan])))
    tensor([False,  True])
    """
    return _no_grad_unary(numpy.isnan, input, "isnan")


@profiled_op
cpdef Variable isinf(object input):
    """Elementwise test for +-inf (bool).

    >>> isinf(Variable(numpy.array([1., -numpy.inf])))
    tensor([False,  True])
    """
    return _no_grad_unary(numpy.isinf, input, "isinf")


@profiled_op
cpdef Variable isfinite(object input):
    """Elementwise test for finite values (bool).

    >>> isfinite(Variable(numpy.array([1., numpy.nan])))
    tensor([ True, False])
    """
    return _no_grad_unary(numpy.isfinite, input, "isfinite")


@profiled_op
cpdef Variable isclose(object input, object other, double rtol=1e-05, double atol=1e-08,
                       bint equal_nan=False):
    """Elementwise ``|input - other| <= atol + rtol * |other|`` (bool).

    >>> isclose(Variable(numpy.array([1., 1.1])), 1.0)
    tensor([ True, False])
    """
    da = _binary_operand_data(input, "isclose", "input")
    db = _binary_operand_data(other, "isclose", "other")
    if hasattr(da, "dtype") and hasattr(db, "dtype") and not _same_dtype(_dtype(da), _dtype(db)):
        raise RuntimeError("isclose(): expected both Variables to have the same dtype, got %s "
                           "and %s" % (_torch_dtype_name(_dtype(da)),
                                       _torch_dtype_name(_dtype(db))))
    xp = _xp_of(da if hasattr(da, "dtype") else db)
    try:
        data = xp.isclose(da, db, rtol=rtol, atol=atol, equal_nan=equal_nan)
    except ValueError:
        raise _broadcast_error("isclose", input, other) from None
    return _plain(data, _operand_volatile(input) or _operand_volatile(other))


@profiled_op
def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """``True`` when every element of ``input`` is close to ``other`` (a Python bool).

    >>> allclose(Variable(numpy.array([1., 2.])), Variable(numpy.array([1., 2. + 1e-9])))
    True
    """
    try:
        return builtins.bool(isclose(input, other, rtol, atol, equal_nan)._data.all())
    except _OP_ERRORS as exc:
        raise _renamed(exc, "allclose") from None


@profiled_op
def equal(input, other):
    """``True`` when both have the same shape and the same elements (a Python bool).

    >>> equal(Variable(numpy.array([1., 2.])), Variable(numpy.array([1., 2.])))
    True
    """
    da = _binary_operand_data(input, "equal", "input")
    db = _binary_operand_data(other, "equal", "other")
    if _shape_of(input) != _shape_of(other):
        return False
    return builtins.bool((da == db).all()) if _shape_of(input) else builtins.bool(da == db)


# -- where with a constant (used by formulas that must avoid nan, e.g. pow) --------------

cdef class WhereConstBackward(Node):
    cdef object mask
    cdef tuple input_shape

    cdef tuple _backward(self, tuple grads):
        if self.mask is None:
            raise _freed_error(self)
        return (sum_to(_grad(_v_keep(_gv(grads[0], _grad_enabled()), ~self.mask)),
                       self.input_shape),)

    cdef void _release_saved(self) noexcept:
        self._released = True
        self.mask = None


cpdef Variable where_const(object mask, object value, object input):
    """``value`` where ``mask`` is true, ``input`` elsewhere (gradient flows to input)."""
    cdef Variable x = _as_variable(input, "where_const")
    xp = _xp_of(x._data)
    mask = xp.asarray(mask)
    data = xp.where(mask, xp.asarray(value, dtype=x._data.dtype), x._data)
    cdef WhereConstBackward node
    if _records(x):
        node = WhereConstBackward.__new__(WhereConstBackward)
        node.mask = mask
        node.input_shape = x._data.shape
        return _recorded1(node, data, _edge(x))
    return _plain(data, x._volatile)


# -- a zero-derivative dependence of a gradient on an op's input -------------------------
# torch's backward formulas for the piecewise-linear ops (threshold_backward,
# max_pool2d_with_indices_backward, hardshrink_backward, ...) take the forward input as an
# operand, so under create_graph the first derivative requires grad whenever the input
# does, and differentiating it again gives zeros there, not "does not require grad". A
# formula that keeps no copy of the input reaches it through its node's edge instead.

cdef object _zero_grad_on_edge(Node node, Py_ssize_t i, object like):
    # Zeros shaped and typed as the array `like`, with a history into the node's edge i
    # (whose gradient is then zeros); None when that input has no history.
    if i >= _num_edges(node):
        return None
    e = _edge_at(node, i)
    if e is None:
        return None
    xp = _xp_of(like)
    cdef WhereConstBackward z = WhereConstBackward.__new__(WhereConstBackward)
    z.mask = xp.ones(like.shape, dtype=numpy.bool_)
    z.input_shape = like.shape
    return _recorded1(z, xp.zeros(like.shape, dtype=like.dtype), e)


cdef Variable _zero_dependence_on_edge(Variable r, Node node, Py_ssize_t i):
    # r (node's gradient for its input i) made to depend on that input, as
    # _with_zero_dependence does from a saved copy of it.
    if not _grad_enabled():
        return r
    z = _zero_grad_on_edge(node, i, r._data)
    return r if z is None else add(r, z)


cdef class GradDependsOnBackward(Node):
    # _grad_depends_on's node: the gradient passes to the op's own history (edge 0)
    # unchanged; under create_graph a zero gradient with a history also goes to the
    # input (edge 1), as torch's formula reaches it.
    cdef tuple input_shape
    cdef object input_dtype
    cdef str op_name                 # torch's node name for the op (name(), repr)

    cdef tuple _backward(self, tuple grads):
        cdef Variable g = grads[0]
        if not _grad_enabled():
            return (g, None)
        like = _xp_of(g._data).empty(self.input_shape, dtype=self.input_dtype)
        return (g, _zero_grad_on_edge(self, 1, like))

    def name(self):
        """The node's name: the op's, as torch names its node (``'ThresholdBackward'``)."""
        return self.op_name if self.op_name is not None else type(self).__name__


cpdef Variable _grad_depends_on(object output, object input, str name=None):
    """``output`` (the same array, no copy: the caller drops ``output``) whose gradient
    under ``create_graph`` also depends on ``input``, with a zero derivative: for the
    piecewise-linear ops composed in Python (threshold, hardshrink, prelu, the max
    poolings), whose torch formulas take their input as an operand. ``name`` is the
    node's ``name()`` (torch's node name for the op)."""
    cdef Variable out = <Variable?>output
    cdef Variable x = <Variable?>input
    if not _grad_enabled() or not out._requires_grad or not _requires_grad_now(x):
        return out
    cdef GradDependsOnBackward node = GradDependsOnBackward.__new__(GradDependsOnBackward)
    node.input_shape = x._data.shape
    node.input_dtype = x._data.dtype
    node.op_name = name
    return _recorded2(node, out._data, _edge(out), _edge(x))



# -- comparisons (no gradient, bool result) ----------------------------------------

cdef tuple _COMPARISON_NAMES = ("lt", "le", "eq", "ne", "gt", "ge")


cdef inline bint _is_numeric_kind(char k):
    # bool, integers, floats, complex and bfloat16 ('V', ml_dtypes)
    return k == b'b' or k == b'i' or k == b'u' or k == b'f' or k == b'c' or k == b'V'


cdef Variable _compare(Variable a, object b, int op):
    if op != 2 and op != 3:                     # orderings: none for complex (torch)
        _refuse_complex(a, b, _COMPARISON_NAMES[op])
    other = _binary_operand_data(b, _COMPARISON_NAMES[op], "other")
    d = a._data
    cdef char kd = _dtype_kind(d)
    if type(other) is int:
        if (kd == b'u' and other < 0) or ((kd == b'u' or kd == b'i') and
                                          (other > 127 or other < -128)):
            try:
                other = _wrapped_int(other, _dtype(d))      # torch wraps it into d's dtype
            except OverflowError:
                pass
    elif type(other) is _NDARRAY and not _same_dtype(_dtype(d), _dtype(other)) and \
            _is_numeric_kind(_dtype_kind(other)) and _is_numeric_kind(kd):
        # compared in torch's promoted dtype, which a 0-d operand does not widen: int32
        # with float16 compares in float16, int8 with a 0-d int64 300 in int8 (300 wraps
        # to 44), float32 with a 0-d float64 0.1 in float32 (strings and objects: NumPy's
        # TypeError below)
        rt = _torch_result_dtype(d, other)
        with numpy.errstate(all="ignore"):          # the wrap or overflow is the rule
            d = d.astype(rt, copy=False)
            other = other.astype(rt, copy=False)
    try:
        if op == 0:
            r = d < other
        elif op == 1:
            r = d <= other
        elif op == 2:
            r = d == other
        elif op == 3:
            r = d != other
        elif op == 4:
            r = d > other
        else:
            r = d >= other
    except ValueError:
        raise _broadcast_error(_COMPARISON_NAMES[op], a, b) from None
    except TypeError:
        _check_numeric_operands(d, other, _COMPARISON_NAMES[op])
        raise
    return _plain(r, a._volatile or _operand_volatile(b))


# The public elementwise ops (each also a Variable method, see _install_methods).
@profiled_op
def isin(elements, test_elements, *, assume_unique=False, invert=False, out=None):
    """Whether each element of ``elements`` is in ``test_elements`` (either may be a
    number; a bool Variable of ``elements``' shape; not differentiable). ``invert``
    negates the result.

    >>> isin(Variable(numpy.array([1., 2., 3.])), Variable(numpy.array([2., 5.])))
    tensor([False,  True, False])
    """
    if out is not None: return _write_out("isin", out, isin(elements, test_elements,
                                          assume_unique=assume_unique, invert=invert), _OUT_EXACT)
    if not isinstance(elements, Variable) and not isinstance(test_elements, Variable):
        raise TypeError("isin(): expected elements or test_elements to be a Variable, got "
                        "%s and %s" % (type(elements).__name__, type(test_elements).__name__))
    like = (<Variable>elements)._data if isinstance(elements, Variable) else \
        (<Variable>test_elements)._data
    a = _value_array(elements, like, "isin", "elements")
    b = _value_array(test_elements, like, "isin", "test_elements")
    xp = _xp_of(like)
    data = xp.isin(a, b, assume_unique=bool(assume_unique), invert=bool(invert))
    return _plain(xp.asarray(data), _operand_volatile(elements) or
                  _operand_volatile(test_elements))


@profiled_op
cpdef Variable signbit(object input, object out=None):
    """Whether the sign bit of each element is set (negative numbers, -0.0 and NaN with
    the sign bit); bool, not differentiable.

    >>> signbit(Variable(numpy.array([-1., -0., 0., 2.])))
    tensor([ True,  True, False, False])
    """
    if out is not None: return _write_out_checked("signbit", out, signbit(input),
                                                  (input,), _OUT_EXACT)
    cdef Variable x = _as_variable(input, "signbit")
    if _dtype_kind(x._data) == b'c':
        raise NotImplementedError("signbit(): signbit is not implemented for complex "
                                  "Variables.")
    return _plain(_xp_of(x._data).signbit(x._data), x._volatile)


ELEMENTWISE_OPS = (add, sub, mul, div, positive, pow, neg, exp, log, sqrt, tanh, sigmoid, relu,
                   abs, absolute, rsub, reciprocal, sign, square, rsqrt, expm1, log1p, log2, log10,
                   sin, cos, tan, asin, acos, atan, sinh, cosh, erf,
                   maximum, minimum, where, clamp, clip, clamp_min, clamp_max, atan2, hypot,
                   logaddexp, logaddexp2, addcmul, addcdiv, true_divide, float_power, logit,
                   nan_to_num,
                   lerp, floor, ceil, round, trunc, frac,
                   floor_divide, remainder, fmod, lt, le, eq, ne, gt, ge,
                   logical_not, logical_and, logical_or, logical_xor,
                   bitwise_not, bitwise_and, bitwise_or, bitwise_xor,
                   bitwise_left_shift, bitwise_right_shift,
                   isnan, isinf, isfinite, isclose, allclose, equal, isin, signbit)
# The family's heading in docs/op-reference.md, and its ops that are pyad.<name>
# functions but not Variable methods (torch has rsub and isin as functions only).
ELEMENTWISE_TITLE = "Elementwise"
ELEMENTWISE_FUNCTION_ONLY = ("rsub", "isin")
# The unary ops that get an in-place twin (exp -> exp_, a pyad.<name>_ function and a
# Variable method, made in pyad/ops/inplace.pxi), each with the extra arguments of the
# twin's docstring example (pow_ takes the exponent).
ELEMENTWISE_INPLACE_TWINS = (
    (exp, ""), (log, ""), (sqrt, ""), (tanh, ""), (sigmoid, ""), (relu, ""), (neg, ""),
    (pow, "2"), (abs, ""), (reciprocal, ""), (sign, ""), (square, ""), (rsqrt, ""),
    (expm1, ""), (log1p, ""), (log2, ""), (log10, ""), (sin, ""), (cos, ""), (tan, ""),
    (asin, ""), (acos, ""), (atan, ""), (sinh, ""), (cosh, ""), (erf, ""), (floor, ""),
    (ceil, ""), (round, ""), (trunc, ""), (frac, ""))
