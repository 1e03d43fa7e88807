# Elementwise ops. Each op's forward is next to its backward node; every backward
# is written with differentiable pyad ops, so create_graph=True works for all.


cdef class _BinaryNode(Node):
    # The operands a binary op's backward needs, plus their shapes and dtypes: each
    # gradient is summed to its input's shape and cast to its dtype (NumPy promotion
    # may have widened the result, e.g. float32 * float64 array).
    cdef _SavedOperand a
    cdef _SavedOperand b
    cdef tuple a_shape                # None: the same shape as the output (no reduction)
    cdef tuple b_shape
    cdef object a_dtype
    cdef object b_dtype

    cdef inline Variable grad_a(self, Variable g):
        return _reduce_grad(g, self.a_shape, self.a_dtype)

    cdef inline Variable grad_b(self, Variable g):
        return _reduce_grad(g, self.b_shape, self.b_dtype)

    cdef inline Variable raw_grad_a(self, Variable g, object data):
        # Array form for the fast path; g itself when nothing needs changing.
        if data is g._data and (self.a_shape is None or _has_shape(data, self.a_shape)) and (
                self.a_dtype is None or _same_dtype(_dtype(data), self.a_dtype)):
            return g
        return _raw(_reduce_data(data, self.a_shape, self.a_dtype))

    cdef inline Variable raw_grad_b(self, Variable g, object data):
        if data is g._data and (self.b_shape is None or _has_shape(data, self.b_shape)) and (
                self.b_dtype is None or _same_dtype(_dtype(data), self.b_dtype)):
            return g
        return _raw(_reduce_data(data, self.b_shape, self.b_dtype))

    cdef void _release_saved(self):
        self._released = True
        if self.a is not None:
            self.a.release()
        if self.b is not None:
            self.b.release()


cdef inline object _shape_if_broadcast(object x, object out):
    # An operand's shape, or None when it equals the output's (compared in C).
    cdef int i, nd
    cdef cnp.npy_intp* a
    cdef cnp.npy_intp* b
    if isinstance(x, Variable):
        x = (<Variable>x)._data
    elif isinstance(x, (int, float, bool, complex)):
        return ()
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
        g = _convert(g, None, dtype, False)
    return g


cdef inline object _dtype_of(object x):
    if isinstance(x, Variable):
        return _dtype((<Variable>x)._data)
    return None


cdef inline Variable _binary(_BinaryNode node, object data, object a, object b,
                             bint save_a, bint save_b):
    # Record `node` for data = op(a, b). save_a/save_b: keep the operand for backward.
    node.a_shape = _shape_if_broadcast(a, data)
    node.b_shape = _shape_if_broadcast(b, data)
    node.a_dtype = _dtype_of(a)
    node.b_dtype = _dtype_of(b)
    if save_a:
        node.a = _save_operand(a, 0)
    if save_b:
        node.b = _save_operand(b, 1)
    return _recorded(node, data, (_operand_edge(a), _operand_edge(b)))


cdef inline bint _binary_records(object a, object b):
    # Any volatile input makes the output volatile, with no graph (legacy semantics).
    return ((_operand_requires_grad(a) or _operand_requires_grad(b)) and _grad_enabled()
            and not (_operand_volatile(a) or _operand_volatile(b)))


cdef inline object _apply_binary(object ufunc, object a, object b, str what):
    cdef object da = _binary_operand_data(a, what, "input")
    cdef object db = _binary_operand_data(b, what, "other")
    rt = _result_dtype(da, db)                  # None on the common path
    if ufunc is _np_true_divide:
        # True division of integers (or bools) gives the default float dtype (torch).
        if rt is None:
            rt = _torch_result_dtype(da, db) if _category_of(da) <= 1 else None
        if rt is not None and _category(rt) <= 1:
            rt = _default_dtype
        elif rt is not None and _same_numpy_result(da, db, rt):
            rt = None
    try:
        if rt is None:
            return ufunc(da, db)
        return ufunc(da, db, dtype=rt)
    except ValueError:
        raise _broadcast_error(what, a, b) from None
    except TypeError:
        _check_same_device(da, db, what)
        _check_numeric_operands(da, db, what)
        raise


cdef inline int _category_of(object d):
    # The category of an operand's data (a Python number or an array).
    cdef int c = _scalar_category(d)
    return c if c >= 0 else _kind_category(_dtype_kind(d))


# -- add / sub ----------------------------------------------------------------------

cdef class AddBackward(_BinaryNode):
    cdef tuple _backward(self, tuple grads):
        cdef Variable g = grads[0]
        if not _grad_enabled():
            return (self.raw_grad_a(g, g._data) if self._needs_input_grad(0) else None,
                    self.raw_grad_b(g, g._data) if self._needs_input_grad(1) else None)
        return (self.grad_a(g) if self._needs_input_grad(0) else None,
                self.grad_b(g) if self._needs_input_grad(1) else None)


cpdef Variable add(object input, object other):
    """Elementwise ``input + other`` with broadcasting.

    >>> add(Variable(numpy.array([1., 2.])), 10)
    tensor([11., 12.], dtype=float64)
    """
    if _profiling:
        return _profiled(add, (input, other, ))
    data = _apply_binary(_np_add, input, other, "add")
    if _binary_records(input, other):
        return _binary(AddBackward.__new__(AddBackward), data, input, other, False, False)
    return _plain(data, _operand_volatile(input) or _operand_volatile(other))


cdef class SubBackward(_BinaryNode):
    cdef tuple _backward(self, tuple grads):
        cdef Variable g = grads[0]
        if not _grad_enabled():
            return (self.raw_grad_a(g, g._data) if self._needs_input_grad(0) else None,
                    self.raw_grad_b(g, _np_negative(g._data))
                    if self._needs_input_grad(1) else None)
        return (self.grad_a(g) if self._needs_input_grad(0) else None,
                self.grad_b(neg(g)) if self._needs_input_grad(1) else None)


cpdef Variable sub(object input, object other):
    """Elementwise ``input - other`` with broadcasting.

    >>> sub(Variable(numpy.array([5., 7.])), 2)
    tensor([3., 5.], dtype=float64)
    """
    if _profiling:
        return _profiled(sub, (input, other, ))
    data = _apply_binary(_np_subtract, input, other, "sub")
    if _binary_records(input, other):
        return _binary(SubBackward.__new__(SubBackward), data, input, other, False, False)
    return _plain(data, _operand_volatile(input) or _operand_volatile(other))


# -- mul / div ----------------------------------------------------------------------

cdef class MulBackward(_BinaryNode):
    cdef tuple _backward(self, tuple grads):
        cdef Variable g = grads[0]
        ga = gb = None
        if not _grad_enabled():
            if self._needs_input_grad(0):
                ga = self.raw_grad_a(g, _np_multiply(g._data, self.b.data(self)))
            if self._needs_input_grad(1):
                gb = self.raw_grad_b(g, _np_multiply(g._data, self.a.data(self)))
            return (ga, gb)
        if self._needs_input_grad(0):
            ga = self.grad_a(mul(g, self.b.get(self)))
        if self._needs_input_grad(1):
            gb = self.grad_b(mul(g, self.a.get(self)))
        return (ga, gb)


cpdef Variable mul(object input, object other):
    """Elementwise ``input * other`` with broadcasting.

    >>> mul(Variable(numpy.array([[1.], [2.]])), Variable(numpy.array([1., 10.])))
    tensor([[ 1., 10.],
            [ 2., 20.]], dtype=float64)
    """
    if _profiling:
        return _profiled(mul, (input, other, ))
    data = _apply_binary(_np_multiply, input, other, "mul")
    if _binary_records(input, other):
        return _binary(MulBackward.__new__(MulBackward), data, input, other,
                       _operand_requires_grad(other), _operand_requires_grad(input))
    return _plain(data, _operand_volatile(input) or _operand_volatile(other))


cdef class DivBackward(_BinaryNode):
    cdef tuple _backward(self, tuple grads):
        cdef Variable g = grads[0]
        ga = gb = None
        if not _grad_enabled():
            bd = self.b.data(self)
            quotient = _np_true_divide(g._data, bd)
            if self._needs_input_grad(1):
                # d(a/b)/db = -(g / b) * a / b
                gb = self.raw_grad_b(g, _np_negative(quotient * self.a.data(self) / bd))
            if self._needs_input_grad(0):
                ga = self.raw_grad_a(g, quotient)
            return (ga, gb)
        b = self.b.get(self)
        if self._needs_input_grad(0):
            ga = self.grad_a(div(g, b))
        if self._needs_input_grad(1):
            # d(a/b)/db = -a / b^2
            gb = self.grad_b(neg(div(mul(g, self.a.get(self)), mul(b, b))))
        return (ga, gb)


cpdef Variable div(object input, object other):
    """Elementwise true division ``input / other`` with broadcasting.

    >>> div(Variable(numpy.array([1., 3.])), Variable(numpy.array([2., 4.])))
    tensor([0.5000, 0.7500], dtype=float64)
    """
    if _profiling:
        return _profiled(div, (input, other, ))
    data = _apply_binary(_np_true_divide, input, other, "div")
    if _binary_records(input, other):
        return _binary(DivBackward.__new__(DivBackward), data, input, other,
                       _operand_requires_grad(other), True)
    return _plain(data, _operand_volatile(input) or _operand_volatile(other))


# -- pow ----------------------------------------------------------------------------

cdef class PowBackward(_BinaryNode):
    cdef tuple _backward(self, tuple grads):
        g = grads[0]
        ga = gb = None
        if not _grad_enabled() and not self._needs_input_grad(1):
            exponent = self.b.data(self)
            if isinstance(exponent, (int, float)):
                # x ** c with a constant c: g * c * x ** (c - 1)
                if exponent == 0:
                    t = _np_multiply((<Variable>g)._data, 0.0)
                else:
                    t = _scratch(_np_power(self.a.data(self), exponent - 1))
                    _np_multiply(t, exponent, out=t)
                    _np_multiply(t, (<Variable>g)._data, out=t)
                return (self.raw_grad_a(g, t), None)
        base = self.a.get(self)
        exponent = self.b.get(self)
        if self._needs_input_grad(0):
            if isinstance(exponent, (int, float)):
                if exponent == 0:
                    ga = mul(g, 0.0)
                else:
                    ga = _pow_const_grad(<Variable>g, <Variable>base, exponent)
            else:
                ga = mul(g, mul(pow(base, sub(exponent, 1)), exponent))
                # b * a^(b-1) is 0 * inf = nan at a = 0, b = 0; the derivative is 0
                # there (torch's choice).
                zero_exponent = _operand_data(exponent, "pow") == 0
                if bool(zero_exponent.any()):
                    ga = where_const(zero_exponent, 0.0, ga)
            ga = self.grad_a(ga)
        if self._needs_input_grad(1):
            # d(a^b)/db = a^b log(a); taken as 0 where a == 0 and b >= 0 (torch's choice,
            # the limit from the right) so 0**b does not produce nan gradients.
            result = pow(base, exponent)
            bdata = _operand_data(base, "pow")
            edata = _operand_data(exponent, "pow")
            xp = _xp_of(edata)
            mask = xp.asarray(bdata == 0) & xp.asarray(edata >= 0)
            if isinstance(base, Variable):
                log_base = log(where_const(mask, 1.0, base))
            elif isinstance(base, (int, float)) and base == 0:
                # log(0) = -inf where b < 0 (so 0**b = inf gives -inf, as torch), 0 where
                # b >= 0 (the limit above).
                log_base = xp.where(edata >= 0, 0.0, -numpy.inf).astype(edata.dtype,
                                                                         copy=False)
            elif isinstance(base, (int, float)):
                # A Python float stays a weakly typed Python float (full precision).
                with numpy.errstate(invalid="ignore"):
                    log_base = float(numpy.log(numpy.float64(base)))
            else:
                # In the result's dtype: a float16 array base of a float32 power must not
                # round log(base) to float16.
                log_base = xp.log(xp.where(mask, 1, bdata).astype(
                    (<Variable>result)._data.dtype, copy=False))
            gb = self.grad_b(mul(g, mul(result, log_base)))
        return (ga, gb)


cpdef Variable pow(object input, object exponent):
    """Elementwise ``input ** exponent`` (either may be a Variable or a number).

    >>> pow(2, Variable(numpy.array([1., 3.])))
    tensor([2., 8.], dtype=float64)
    """
    if _profiling:
        return _profiled(pow, (input, exponent, ))
    data = _apply_binary(_np_power, input, exponent, "pow")
    if _binary_records(input, exponent):
        return _binary(PowBackward.__new__(PowBackward), data, input, exponent, True, True)
    return _plain(data, _operand_volatile(input) or _operand_volatile(exponent))


# -- unary --------------------------------------------------------------------------

cdef class _UnaryNode(Node):
    # Saves the input or the output of a unary op (whichever the formula needs).
    cdef SavedVariable saved

    cdef void _release_saved(self):
        self._released = True
        if self.saved is not None:
            self.saved.release()


cdef inline Variable _float_input(object input):
    # Integer and bool inputs of float functions compute in the default float dtype.
    cdef Variable x = _as_variable(input)
    cdef char kind = _dtype_kind(x._data)
    if kind == b'i' or kind == b'u' or kind == b'b':
        return _plain(x._data.astype(_default_dtype), x._volatile)
    return x


cdef inline Variable _record_unary(_UnaryNode node, object data, Variable x, bint save_input,
                                   bint save_output):
    cdef Variable out = _recorded(node, data, (_edge(x),))
    if save_input:
        node.saved = _save(x, False, 0)
    elif save_output:
        node.saved = _save(out, True)
    return out


cdef class NegBackward(Node):
    cdef tuple _backward(self, tuple grads):
        if not _grad_enabled():
            return (_raw(_np_negative((<Variable>grads[0])._data)),)
        return (neg(grads[0]),)


cpdef Variable neg(object input):
    """Elementwise ``-input``.

    >>> neg(Variable(numpy.array([1., -2.])))
    tensor([-1.,  2.], dtype=float64)
    """
    if _profiling:
        return _profiled(neg, (input, ))
    cdef Variable x = _as_variable(input)
    data = _np_negative(x._data)
    if _records(x):
        return _recorded(NegBackward.__new__(NegBackward), data, (_edge(x),))
    return _plain(data, x._volatile)


cdef class ExpBackward(_UnaryNode):
    cdef tuple _backward(self, tuple grads):
        if not _grad_enabled():
            return (_raw(_np_multiply((<Variable>grads[0])._data, self.saved.data(self))),)
        return (mul(grads[0], self.saved.unpack(self)),)


cpdef Variable exp(object input):
    """Elementwise exponential.

    >>> exp(Variable(numpy.array([0., 1.])))
    tensor([1.0000, 2.7183], dtype=float64)
    """
    if _profiling:
        return _profiled(exp, (input, ))
    cdef Variable x = _float_input(input)
    data = _np_exp(x._data)
    if _records(x):
        return _record_unary(ExpBackward.__new__(ExpBackward), data, x, False, True)
    return _plain(data, x._volatile)


cdef class LogBackward(_UnaryNode):
    cdef tuple _backward(self, tuple grads):
        if not _grad_enabled():
            return (_raw(_np_true_divide((<Variable>grads[0])._data, self.saved.data(self))),)
        return (div(grads[0], self.saved.unpack(self)),)


cpdef Variable log(object input):
    """Elementwise natural logarithm.

    >>> log(Variable(numpy.array([1., numpy.e])))
    tensor([0., 1.], dtype=float64)
    """
    if _profiling:
        return _profiled(log, (input, ))
    cdef Variable x = _float_input(input)
    data = _np_log(x._data)
    if _records(x):
        return _record_unary(LogBackward.__new__(LogBackward), data, x, True, False)
    return _plain(data, x._volatile)


cdef class SqrtBackward(_UnaryNode):
    cdef tuple _backward(self, tuple grads):
        if not _grad_enabled():
            t = _scratch(_np_multiply(self.saved.data(self), 2))
            return (_raw(_np_true_divide((<Variable>grads[0])._data, t, out=t)),)
        return (div(grads[0], mul(self.saved.unpack(self), 2)),)


cpdef Variable sqrt(object input):
    """Elementwise square root.

    >>> sqrt(Variable(numpy.array([4., 9.])))
    tensor([2., 3.], dtype=float64)
    """
    if _profiling:
        return _profiled(sqrt, (input, ))
    cdef Variable x = _float_input(input)
    data = _np_sqrt(x._data)
    if _records(x):
        return _record_unary(SqrtBackward.__new__(SqrtBackward), data, x, False, True)
    return _plain(data, x._volatile)


cdef class TanhBackward(_UnaryNode):
    cdef tuple _backward(self, tuple grads):
        if not _grad_enabled():
            yd = self.saved.data(self)
            t = _scratch(_np_multiply(yd, yd))  # g * (1 - y^2), one temporary
            _np_subtract(1, t, out=t)
            return (_raw(_np_multiply((<Variable>grads[0])._data, t, out=t)),)
        return (_tanh_grad(<Variable>grads[0], self.saved.unpack(self)),)


cpdef Variable tanh(object input):
    """Elementwise hyperbolic tangent.

    >>> x = Variable(numpy.array([0., 1.]), requires_grad=True)
    >>> tanh(x).sum().backward()
    >>> x.grad                                  # 1 - tanh(x)^2
    tensor([1.0000, 0.4200], dtype=float64)
    """
    if _profiling:
        return _profiled(tanh, (input, ))
    cdef Variable x = _float_input(input)
    data = _np_tanh(x._data)
    if _records(x):
        return _record_unary(TanhBackward.__new__(TanhBackward), data, x, False, True)
    return _plain(data, x._volatile)


cdef class SigmoidBackward(_UnaryNode):
    cdef tuple _backward(self, tuple grads):
        if not _grad_enabled():
            yd = self.saved.data(self)
            t = _scratch(_np_subtract(1, yd))  # g * y * (1 - y)
            _np_multiply(t, yd, out=t)
            return (_raw(_np_multiply((<Variable>grads[0])._data, t, out=t)),)
        y = self.saved.unpack(self)
        return (mul(grads[0], mul(y, sub(1, y))),)


cdef object _sigmoid_data(object d):
    # Split by sign so exp never overflows: 1/(1+e^-x) for x>=0, e^x/(1+e^x) otherwise.
    xp = _xp_of(d)
    e = xp.exp(-xp.abs(d))
    return xp.where(d >= 0, 1 / (1 + e), e / (1 + e)).astype(d.dtype, copy=False)


cpdef Variable sigmoid(object input):
    """Elementwise logistic sigmoid ``1 / (1 + exp(-x))``.

    >>> sigmoid(Variable(numpy.array([0., 100.])))
    tensor([0.5000, 1.0000], dtype=float64)
    """
    if _profiling:
        return _profiled(sigmoid, (input, ))
    cdef Variable x = _float_input(input)
    data = _sigmoid_data(x._data)
    if _records(x):
        return _record_unary(SigmoidBackward.__new__(SigmoidBackward), data, x, False, True)
    return _plain(data, x._volatile)


cdef class ReluBackward(_UnaryNode):
    cdef tuple _backward(self, tuple grads):
        # The mask is a constant, so the backward is linear in the incoming gradient
        # and is itself differentiable (its own derivative is the same mask).
        y = self.saved.data(self)
        if not _grad_enabled():
            return (_raw(_np_multiply((<Variable>grads[0])._data, y > 0)),)
        return (mul(grads[0], y > 0),)


cpdef Variable relu(object input):
    """Elementwise ``max(input, 0)``.

    >>> relu(Variable(numpy.array([-1., 2.])))
    tensor([0., 2.], dtype=float64)
    """
    if _profiling:
        return _profiled(relu, (input, ))
    cdef Variable x = _as_variable(input)
    data = _np_maximum(x._data, 0)
    if data.dtype != x._data.dtype:
        data = data.astype(x._data.dtype)
    if _records(x):
        return _record_unary(ReluBackward.__new__(ReluBackward), data, x, False, True)
    return _plain(data, x._volatile)


# -- where with a constant (used by formulas that must avoid nan, e.g. pow) --------------

cdef class WhereConstBackward(Node):
    cdef object mask
    cdef tuple input_shape

    cdef tuple _backward(self, tuple grads):
        if self.mask is None:
            raise _freed_error(self)
        return (sum_to(mul(grads[0], ~self.mask), self.input_shape),)

    cdef void _release_saved(self):
        self._released = True
        self.mask = None


cpdef Variable where_const(object mask, object value, object input):
    """``value`` where ``mask`` is true, ``input`` elsewhere (gradient flows to input)."""
    cdef Variable x = _as_variable(input)
    xp = _xp_of(x._data)
    mask = xp.asarray(mask)
    data = xp.where(mask, xp.asarray(value, dtype=x._data.dtype), x._data)
    cdef WhereConstBackward node
    if _records(x):
        node = WhereConstBackward.__new__(WhereConstBackward)
        node.mask = mask
        node.input_shape = x._data.shape
        return _recorded(node, data, (_edge(x),))
    return _plain(data, x._volatile)



# -- fused backward nodes --------------------------------------------------------------
#
# Under create_graph a backward formula records what it computes. For the commonest
# formulas one node with its own derivative (Chainer's ReLUGrad idea) replaces three
# recorded ops: less to build now, less to run when differentiating again.

cdef class TanhGradBackward(_BinaryNode):
    # out = g * (1 - y^2), with y = tanh(x):  d/dg = 1 - y^2,  d/dy = -2 g y
    cdef tuple _backward(self, tuple grads):
        cdef Variable gg = grads[0]
        dg = dy = None
        if not _grad_enabled():
            yd = self.b.data(self)
            if self._needs_input_grad(0):
                t = _scratch(_np_multiply(yd, yd))
                _np_subtract(1, t, out=t)
                dg = self.raw_grad_a(gg, _np_multiply(gg._data, t, out=t))
            if self._needs_input_grad(1):
                t = _scratch(_np_multiply(gg._data, self.a.data(self)))
                _np_multiply(t, yd, out=t)
                dy = self.raw_grad_b(gg, _np_multiply(t, -2.0, out=t))
            return (dg, dy)
        g = self.a.get(self)
        y = self.b.get(self)
        if self._needs_input_grad(0):
            dg = self.grad_a(mul(gg, sub(1, mul(y, y))))
        if self._needs_input_grad(1):
            dy = self.grad_b(mul(mul(gg, g), mul(y, -2.0)))
        return (dg, dy)


cdef Variable _tanh_grad(Variable g, Variable y):
    t = _scratch(_np_multiply(y._data, y._data))
    _np_subtract(1, t, out=t)
    data = _np_multiply(g._data, t)
    if _binary_records(g, y):
        return _binary(TanhGradBackward.__new__(TanhGradBackward), data, g, y,
                       y._requires_grad, g._requires_grad or y._requires_grad)
    return _plain(data, g._volatile or y._volatile)


cdef class PowConstGradBackward(_BinaryNode):
    # out = g * c * x^(c-1):  d/dg = c x^(c-1),  d/dx = g c (c-1) x^(c-2)
    cdef object exponent

    cdef tuple _backward(self, tuple grads):
        cdef Variable gg = grads[0]
        c = self.exponent
        dg = dx = None
        if not _grad_enabled():
            xd = self.b.data(self)
            if self._needs_input_grad(0):
                t = _scratch(_np_power(xd, c - 1))
                _np_multiply(t, c, out=t, casting="unsafe")
                dg = self.raw_grad_a(gg, _np_multiply(gg._data, t, out=t))
            if self._needs_input_grad(1):
                t = _scratch(_np_multiply(gg._data, self.a.data(self)))
                if c * (c - 1) == 0:
                    _np_multiply(t, 0.0, out=t)
                else:
                    _np_multiply(t, _np_power(xd, c - 2), out=t)
                    _np_multiply(t, c * (c - 1), out=t, casting="unsafe")
                dx = self.raw_grad_b(gg, t)
            return (dg, dx)
        g = self.a.get(self)
        x = self.b.get(self)
        if self._needs_input_grad(0):
            dg = self.grad_a(mul(gg, mul(pow(x, c - 1), c)))
        if self._needs_input_grad(1):
            if c * (c - 1) == 0:
                dx = self.grad_b(mul(mul(gg, g), 0.0))
            else:
                dx = self.grad_b(mul(mul(gg, g), mul(pow(x, c - 2), c * (c - 1))))
        return (dg, dx)


cdef Variable _pow_const_grad(Variable g, Variable x, object c):
    t = _scratch(_np_power(x._data, c - 1))
    _np_multiply(t, c, out=t, casting="unsafe")
    data = _np_multiply(g._data, t)
    cdef PowConstGradBackward node
    if _binary_records(g, x):
        node = PowConstGradBackward.__new__(PowConstGradBackward)
        node.exponent = c
        return _binary(node, data, g, x, x._requires_grad, True)
    return _plain(data, g._volatile or x._volatile)


# -- comparisons (no gradient, bool result) ----------------------------------------

cdef tuple _COMPARISON_NAMES = ("lt", "le", "eq", "ne", "gt", "ge")


cdef Variable _compare(Variable a, object b, int op):
    other = _binary_operand_data(b, _COMPARISON_NAMES[op], "other")
    d = a._data
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
ELEMENTWISE_OPS = (add, sub, mul, div, pow, neg, exp, log, sqrt, tanh, sigmoid, relu)
