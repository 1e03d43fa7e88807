# Neural-network building blocks that need their own fused backward.


cdef class LogSoftmaxBackward(Node):
    cdef SavedVariable result
    cdef Py_ssize_t dim

    cdef tuple _backward(self, tuple grads):
        # d log_softmax: g - exp(y) * sum(g), y the output (torch's order)
        cdef bint rec = _grad_enabled()
        v = _gv(grads[0], rec)
        t = _v_exp(_sv(self.result, self, rec))
        t = _v_mul_in(t, _v_sum(v, self.dim), t)
        return (_grad(_v_sub_in(v, t, t)),)

    cdef void _release_saved(self) noexcept:
        self._released = True
        self.result.release()


cdef object _log_softmax_fast(object a, Py_ssize_t d):
    # (a - m) - log(sum(exp(a - m))), m the slice maxima, in one buffer of its own:
    # max, subtract, exp (into a scratch array), sum, log, subtract in place. When every
    # maximum is finite, each sum lies in [1, n] and nothing is inf or nan but what a
    # holds (a nan in a slice makes that slice nan, as in torch). None where this
    # does not apply (not a non-empty float NumPy array, or a slice maximum +-inf or
    # nan): the general path handles those.
    if type(a) is not _NDARRAY or not cnp.PyArray_NDIM(<cnp.ndarray>a) or not a.size:
        return None
    m = _max_data(a, d, True)
    if not _all_finite(m):
        return None
    out = _ufunc2(_LOOP_SUB, a, m, None)
    t = _ufunc1(_LOOP_EXP, out, None)
    s = _sum_data(t, d, True)
    _ufunc1(_LOOP_LOG, s, s)
    return _np_subtract(out, s, out)


@profiled_op
cpdef Variable log_softmax(object input, object dim=None, object dtype=None):
    """``input - logsumexp(input, dim, keepdim=True)``, computed stably.

    >>> log_softmax(Variable(numpy.zeros(2)), dim=0)
    tensor([-0.6931, -0.6931], dtype=float64)
    """
    cdef Variable x = _as_variable(input, "log_softmax")
    if dim is None:
        raise TypeError("log_softmax(): argument 'dim' must be given")
    if dtype is not None:
        # torch casts first: a complex input with a real dtype= loses its imaginary part
        x = _convert(x, None, dtype, False)
    _refuse_complex(x, None, "log_softmax")
    if not _is_float_dtype(x._data.dtype):
        raise NotImplementedError("log_softmax(): expected a floating point input, got %s"
                                  % x._data.dtype)
    cdef Py_ssize_t d = _normalize_dim(dim, x._data.ndim, "log_softmax")
    # float16/bfloat16 in float32, rounded once, as torch's CPU kernel (measured: exact
    # off the last dim, and 8% of elements one unit apart on it, where its vectorised
    # exp differs; rounding at each step in the dtype was 40% apart)
    src = _opmath_data(x._data)
    data = _log_softmax_fast(src, d)
    if data is None:
        lse = _logsumexp_data(src, (d,) if x._data.ndim else (), True)
        xp = _xp_of(lse)
        if x._data.size and (_xp_of(lse) is not numpy or
                             not _finite_double(float(_np_add.reduce(lse, None)))):
            # A slice holding +inf: torch gives NaN for all of it (not -inf beside a NaN).
            lse = xp.where(xp.isposinf(lse), xp.asarray(numpy.nan, dtype=lse.dtype), lse)
        if xp is numpy:
            with numpy.errstate(invalid="ignore"):  # -inf - -inf: nan, silently (torch)
                data = src - lse
        else:
            data = src - lse
    if src is not x._data:
        data = data.astype(x._data.dtype)
    cdef LogSoftmaxBackward node
    cdef Variable out
    if _records(x):
        node = LogSoftmaxBackward.__new__(LogSoftmaxBackward)
        node.dim = d if x._data.ndim else 0
        out = _recorded1(node, data, _edge(x))
        node.result = _save(out, True)
        return out
    return _plain(data, x._volatile)



cdef class SoftmaxBackward(Node):
    cdef SavedVariable result
    cdef Py_ssize_t dim

    cdef tuple _backward(self, tuple grads):
        # d softmax: y * (g - sum(g * y)), y = the output
        y = self.result.unpack(self)
        gy = mul(grads[0], y)
        return (sub(gy, mul(y, sum(gy, self.dim, True))),)

    cdef void _release_saved(self) noexcept:
        self._released = True
        self.result.release()


cdef object _softmax_data(object d, Py_ssize_t dim):
    if _is_reduced_float(d):
        return _softmax_data(d.astype(numpy.float32), dim).astype(d.dtype)   # (opmath)
    xp = _xp_of(d)
    if d.size == 0:
        return d.copy()
    if d.ndim == 0:
        e = xp.exp(d - d)
        return e / e
    e = xp.exp(d - d.max(axis=dim, keepdims=True))
    e /= e.sum(axis=dim, keepdims=True)
    return e


@profiled_op
cpdef Variable softmax(object input, object dim=None, object dtype=None):
    """``exp(input) / sum(exp(input), dim)``, computed stably.

    >>> softmax(Variable(numpy.array([0., numpy.log(3.)])), dim=0)
    tensor([0.2500, 0.7500], dtype=float64)
    """
    cdef Variable x = _as_variable(input, "softmax")
    if dim is None:
        raise TypeError("softmax(): argument 'dim' must be given")
    if dtype is not None:
        # torch casts first: a complex input with a real dtype= loses its imaginary part
        x = _convert(x, None, dtype, False)
    _refuse_complex(x, None, "softmax")
    if not _is_float_dtype(x._data.dtype):
        raise NotImplementedError("softmax(): expected a floating point input, got %s"
                                  % x._data.dtype)
    cdef Py_ssize_t d = _normalize_dim(dim, x._data.ndim, "softmax")
    data = _softmax_data(x._data, d)
    cdef SoftmaxBackward node
    cdef Variable out
    if _records(x):
        node = SoftmaxBackward.__new__(SoftmaxBackward)
        node.dim = d if x._data.ndim else 0
        out = _recorded1(node, data, _edge(x))
        node.result = _save(out, True)
        return out
    return _plain(data, x._volatile)


# -- activations: each saves its input; the backward is g times the derivative written
# with differentiable ops (so create_graph gives second and higher derivatives) ---------

cdef Variable _activation_input(object input, str what):
    cdef Variable x = _as_variable(input, what)
    if not _is_float_dtype(x._data.dtype):
        raise NotImplementedError("%s(): expected a floating point input, got %s"
                                  % (what, x._data.dtype))
    return x


cdef inline object _as_dtype(object data, object dtype):
    return data if data.dtype == dtype else data.astype(dtype)


cdef double _SQRT1_2 = 0.7071067811865476
cdef double _INV_SQRT_2PI = 0.3989422804014327
cdef double _SQRT_2_OVER_PI = 0.7978845608028654
cdef double _GELU_C = 0.044715


cdef class GeluBackward(_UnaryNode):
    cdef bint tanh_approx

    cdef tuple _backward(self, tuple grads):
        x = self.saved.unpack(self)
        if self.tanh_approx:
            # y = x/2 (1 + t), t = tanh(k (x + c x^3)):
            # y' = (1 + t)/2 + x/2 (1 - t^2) k (1 + 3 c x^2)
            x2 = mul(x, x)
            t = tanh(mul(add(x, mul(mul(x2, x), _GELU_C)), _SQRT_2_OVER_PI))
            inner = mul(add(mul(x2, 3.0 * _GELU_C), 1.0), _SQRT_2_OVER_PI)
            d = add(mul(add(t, 1.0), 0.5), mul(mul(mul(x, 0.5), sub(1.0, mul(t, t))), inner))
        else:
            # y = x Phi(x):  y' = Phi(x) + x phi(x)
            cdf = mul(add(erf(mul(x, _SQRT1_2)), 1.0), 0.5)
            pdf = mul(exp(mul(mul(x, x), -0.5)), _INV_SQRT_2PI)
            d = add(cdf, mul(x, pdf))
        return (mul(grads[0], d),)


@profiled_op
cpdef Variable gelu(object input, str approximate="none"):
    """Gaussian error linear unit ``x * Phi(x)`` (``approximate='tanh'``: the tanh
    approximation ``x/2 (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))``).

    >>> gelu(Variable(numpy.array([-1., 0., 1.])))
    tensor([-0.1587,  0.0000,  0.8413], dtype=float64)
    """
    _refuse_complex(input, None, "gelu")
    cdef Variable x = _activation_input(input, "gelu")
    cdef bint use_tanh
    if approximate == "none":
        use_tanh = False
    elif approximate == "tanh":
        use_tanh = True
    else:
        raise RuntimeError("gelu(): approximate must be 'none' or 'tanh', got %r"
                         % (approximate,))
    d = _opmath_data(x._data)          # (float16/bfloat16 in float32, rounded once: torch)
    xp = _xp_of(d)
    if use_tanh:
        data = d * 0.5 * (1 + xp.tanh(_SQRT_2_OVER_PI * (d + _GELU_C * d * d * d)))
    else:
        data = d * 0.5 * (1 + _erf_data(d * _SQRT1_2))
    data = _as_dtype(_ensure_array(data), x._data.dtype)
    cdef GeluBackward node
    if _records(x):
        node = GeluBackward.__new__(GeluBackward)
        node.tanh_approx = use_tanh
        return _record_unary(node, data, x, True, False)
    return _plain(data, x._volatile)


cdef class SiluBackward(_UnaryNode):
    cdef tuple _backward(self, tuple grads):
        # y = x s(x):  y' = s (1 + x (1 - s))
        x = self.saved.unpack(self)
        s = sigmoid(x)
        return (mul(grads[0], mul(s, add(mul(x, sub(1.0, s)), 1.0))),)


@profiled_op
cpdef Variable silu(object input):
    """Sigmoid linear unit (swish) ``x * sigmoid(x)``.

    >>> silu(Variable(numpy.array([0., 1.])))
    tensor([0.0000, 0.7311], dtype=float64)
    """
    cdef Variable x = _activation_input(input, "silu")
    d = x._data
    if _dtype_kind(d) == b'c':
        # torch's complex silu: x / (1 + exp(-x)), a c10 complex division (so
        # silu(-0 + 0i) is 0 + 0i)
        with numpy.errstate(all="ignore"):
            den = 1 + _xp_of(d).exp(_xp_of(d).subtract(0, d))
        data = _c10_div(d.real, d.imag, den.real, den.imag, d.dtype)
    else:
        h = _opmath_data(d)            # (float16/bfloat16 in float32, rounded once: torch)
        data = _as_dtype(_ensure_array(h * _sigmoid_data(h)), d.dtype)
    if _records(x):
        return _record_unary(SiluBackward.__new__(SiluBackward), data, x, True, False)
    return _plain(data, x._volatile)


cdef class EluBackward(_UnaryNode):
    cdef double alpha

    cdef tuple _backward(self, tuple grads):
        # 1 for x > 0, alpha exp(x) elsewhere; the exp is taken of x where x < 0 and of
        # a constant 0 elsewhere (no overflow in the branch not taken, and, as torch,
        # no second derivative at 0)
        # (torch's test is x <= 0, so a NaN gets the gradient 1 of the linear side)
        x = self.saved.unpack(self)
        d = x._data
        neg = where_const(~(d < 0), 0.0, x)
        return (mul(grads[0], where(d <= 0, mul(exp(neg), self.alpha), 1.0)),)


@profiled_op
cpdef Variable elu(object input, double alpha=1.0):
    """Exponential linear unit: ``x`` for ``x > 0``, ``alpha * (exp(x) - 1)`` elsewhere.

    >>> elu(Variable(numpy.array([-1., 2.])))
    tensor([-0.6321,  2.0000], dtype=float64)
    """
    _refuse_complex(input, None, "elu")
    cdef Variable x = _activation_input(input, "elu")
    d = x._data
    xp = _xp_of(d)
    with numpy.errstate(all="ignore"):
        # (the exponential of x where x <= 0 or NaN, of 0 elsewhere: torch's
        # alpha * expm1(-0.0) is -0.0, so elu(-0.0) is -0.0)
        neg = xp.where(d > 0, xp.zeros((), dtype=d.dtype), d)
        data = _as_dtype(_ensure_array(xp.where(d > 0, d, alpha * xp.expm1(neg))), d.dtype)
    cdef EluBackward node
    if _records(x):
        node = EluBackward.__new__(EluBackward)
        node.alpha = alpha
        return _record_unary(node, data, x, True, False)
    return _plain(data, x._volatile)


cdef class LeakyReluBackward(_UnaryNode):
    cdef double slope

    cdef tuple _backward(self, tuple grads):
        # A constant factor (1 or the slope): linear in g, so differentiable again.
        d = self.saved.data(self)
        factor = _xp_of(d).where(d > 0, 1.0, self.slope).astype(d.dtype, copy=False)
        r = mul(grads[0], factor)
        return (_with_zero_dependence(r, self.saved.unpack(self)) if _grad_enabled() else r,)


@profiled_op
cpdef Variable leaky_relu(object input, double negative_slope=0.01):
    """``x`` for ``x > 0``, ``negative_slope * x`` elsewhere.

    >>> leaky_relu(Variable(numpy.array([-1., 2.])), 0.1)
    tensor([-0.1000,  2.0000], dtype=float64)
    """
    _refuse_complex(input, None, "leaky_relu")
    cdef Variable x = _activation_input(input, "leaky_relu")
    d = x._data
    data = _as_dtype(_ensure_array(_xp_of(d).where(d > 0, d, d * negative_slope)), d.dtype)
    cdef LeakyReluBackward node
    if _records(x):
        node = LeakyReluBackward.__new__(LeakyReluBackward)
        node.slope = negative_slope
        return _record_unary(node, data, x, True, False)
    return _plain(data, x._volatile)


cdef class SoftplusBackward(_UnaryNode):
    cdef double beta
    cdef double threshold

    cdef tuple _backward(self, tuple grads):
        # sigmoid(beta x); 1 where beta x > threshold (the linear part)
        # (torch's second derivative is 0 from beta x = threshold on: x is a constant
        # there)
        x = self.saved.unpack(self)
        d = x._data
        bx = d * self.beta
        xs = where_const(bx >= self.threshold, d, x)
        return (mul(grads[0], where(bx > self.threshold, 1.0, sigmoid(mul(xs, self.beta)))),)


@profiled_op
cpdef Variable softplus(object input, double beta=1.0, double threshold=20.0,
                       object out=None):
    """``log(1 + exp(beta * x)) / beta``; ``x`` itself where ``beta * x > threshold``.

    >>> softplus(Variable(numpy.array([0., 30.])))
    tensor([ 0.6931, 30.0000], dtype=float64)
    """
    if out is not None: return _write_out_checked("softplus", out, softplus(input, beta,
                                                                         threshold), (input,))
    _refuse_complex(input, None, "softplus")
    cdef Variable x = _activation_input(input, "softplus")
    d = _opmath_data(x._data)          # (float16/bfloat16 in float32, rounded once: torch)
    xp = _xp_of(d)
    bx = d * beta
    linear = bx > threshold
    with numpy.errstate(over="ignore"):
        soft = xp.log1p(xp.exp(xp.where(linear, 0, bx))) / beta
    data = _as_dtype(_ensure_array(xp.where(linear, d, soft)), x._data.dtype)
    cdef SoftplusBackward node
    if _records(x):
        node = SoftplusBackward.__new__(SoftplusBackward)
        node.beta = beta
        node.threshold = threshold
        return _record_unary(node, data, x, True, False)
    return _plain(data, x._volatile)


cdef class HardtanhBackward(_UnaryNode):
    cdef double min_val
    cdef double max_val

    cdef tuple _backward(self, tuple grads):
        # g inside (min_val, max_val) and at a NaN, 0 outside and on the edges (torch)
        d = self.saved.data(self)
        cdef bint rec = _grad_enabled()
        r = _grad(_v_keep(_gv(grads[0], rec), ~((d <= self.min_val) | (d >= self.max_val))))
        return (_with_zero_dependence(r, self.saved.unpack(self)) if rec else r,)


@profiled_op
cpdef Variable hardtanh(object input, double min_val=-1.0, double max_val=1.0):
    """``input`` clamped to ``[min_val, max_val]``.

    >>> hardtanh(Variable(numpy.array([-2., 0.5, 3.])))
    tensor([-1.0000,  0.5000,  1.0000], dtype=float64)
    """
    _refuse_complex(input, None, "hardtanh")
    if min_val > max_val:
        raise ValueError("hardtanh(): min_val (%r) cannot be greater than max_val (%r)"
                         % (min_val, max_val))
    cdef Variable x = _activation_input(input, "hardtanh")
    d = x._data
    data = _as_dtype(_ensure_array(_xp_of(d).clip(d, min_val, max_val)), d.dtype)
    cdef HardtanhBackward node
    if _records(x):
        node = HardtanhBackward.__new__(HardtanhBackward)
        node.min_val = min_val
        node.max_val = max_val
        return _record_unary(node, data, x, True, False)
    return _plain(data, x._volatile)


cdef class LogSigmoidBackward(_UnaryNode):
    cdef tuple _backward(self, tuple grads):
        # d log sigmoid(x) = 1 - sigmoid(x) = sigmoid(-x)
        return (mul(grads[0], sigmoid(neg(self.saved.unpack(self)))),)


@profiled_op
cpdef Variable logsigmoid(object input, object out=None):
    """``log(sigmoid(x))``, computed stably as ``min(x, 0) - log1p(exp(-|x|))``.

    >>> logsigmoid(Variable(numpy.array([0., -100.])))
    tensor([  -0.6931, -100.0000], dtype=float64)
    """
    if out is not None: return _write_out_checked("logsigmoid", out, logsigmoid(input), (input,))
    _refuse_complex(input, None, "logsigmoid")
    cdef Variable x = _activation_input(input, "logsigmoid")
    d = x._data
    xp = _xp_of(d)
    # (float16/bfloat16 compute in float32, as torch: a tiny negative rounds to -0.0)
    h = _opmath_data(d)
    data = _as_dtype(_ensure_array(xp.minimum(h, 0) - xp.log1p(xp.exp(-xp.abs(h)))), d.dtype)
    if _records(x):
        return _record_unary(LogSigmoidBackward.__new__(LogSigmoidBackward), data, x, True,
                             False)
    return _plain(data, x._volatile)


# -- cross entropy with class indices: one node (log_softmax, pick, weight, reduce) ----

cdef class CrossEntropyBackward(Node):
    # loss = sum_i coef_i * -log_softmax(x)_i[t_i] (or per i for reduction='none'):
    # d/dx_i = coef_i * (softmax(x)_i - onehot(t_i)), written with softmax (a node
    # with its own backward), so the gradient is differentiable again.
    cdef SavedVariable saved
    cdef object index          # the class index of each sample (ignored ones: 0)
    cdef object coef           # weight[t] / total weight (mean), weight[t] otherwise; 0 if ignored
    cdef Py_ssize_t class_dim
    cdef bint reduced

    def name(self):
        """torch's name: its cross_entropy of class indices is nll_loss of log_softmax."""
        return _display_name_or(self, "NllLossBackward")

    cdef tuple _backward(self, tuple grads):
        # (softmax(x) - onehot(t)) * (g * coef), the softmax recorded under create_graph
        if self.coef is None:
            raise _freed_error(self)
        cdef bint rec = _grad_enabled()
        xp = _xp_of(self.coef)
        coef = xp.expand_dims(self.coef, self.class_dim)
        v = _gv(grads[0], rec)
        if not self.reduced:
            v = _v_reshape(v, coef.shape)           # (unsqueezed at the class dim)
        scale = _v_mul(v, coef)
        t = _v_softmax(_sv(self.saved, self, rec), self.class_dim)
        t = _v_sub_onehot_in(t, self.index, self.class_dim)
        return (_grad(_v_mul_in(t, scale, t)),)

    cdef void _release_saved(self) noexcept:
        self._released = True
        self.saved.release()
        self.index = None
        self.coef = None


cdef object _v_sub_onehot_in(object t, object index, Py_ssize_t dim):
    # t minus 1 at each sample's class index along dim (in place on an array t: a
    # temporary of the caller's).
    if isinstance(t, Variable):
        d = (<Variable>t)._data
        onehot = _xp_of(d).zeros(d.shape, d.dtype)
        _add_at_index(onehot, index, dim, 1)
        return sub(t, onehot)
    _add_at_index(t, index, dim, -1)
    return t


cdef void _add_at_index(object t, object index, Py_ssize_t dim, object value) except *:
    # t[..., index, ...] += value in place, at each sample's class index along dim.
    xp = _xp_of(t)
    if t.ndim == 2 and dim == 1:
        t[xp.arange(t.shape[0]), index] += value
    else:
        idx = xp.expand_dims(index, dim)
        xp.put_along_axis(t, idx, xp.take_along_axis(t, idx, dim) + value, dim)


@profiled_op
cpdef Variable _cross_entropy_indices(object input, object index, object weight_t,
                                      Py_ssize_t class_dim, int reduction):
    """Cross entropy of logits ``input`` at the checked class indices ``index`` (an int64
    array, 0 at ignored samples) with per-sample weights ``weight_t`` (0 at ignored
    samples); reduction 0 none, 1 mean, 2 sum. Called by
    ``pyad.nn.functional.cross_entropy``, which checks the arguments.

    >>> _cross_entropy_indices(Variable(numpy.zeros((1, 2))), numpy.array([1]),
    ...                        numpy.ones(1), 1, 1)
    tensor(0.6931, dtype=float64)
    """
    cdef Variable x = _as_variable(input, "cross_entropy")
    d = x._data
    xp = _xp_of(d)
    logp = d - _logsumexp_data(d, (class_dim,), True)
    if d.ndim == 2 and class_dim == 1:
        picked = logp[xp.arange(d.shape[0]), index]
    else:
        picked = xp.take_along_axis(logp, xp.expand_dims(index, class_dim), class_dim)
        picked = picked.reshape(index.shape)
    with numpy.errstate(invalid="ignore", divide="ignore"):
        if reduction == 0:
            coef = weight_t
            data = -picked * coef
        else:
            coef = weight_t
            data = -(picked * coef).sum()
            if reduction == 1:
                total = weight_t.sum()
                data = data / total
                # 0 at the ignored samples even when all are ignored (total 0): torch
                # writes the gradient of the counted samples only.
                coef = xp.where(weight_t == 0, 0, weight_t / total)
    data = _ensure_array(data).astype(d.dtype, copy=False)
    cdef CrossEntropyBackward node
    if _records(x):
        node = CrossEntropyBackward.__new__(CrossEntropyBackward)
        node.index = index
        node.coef = xp.asarray(coef, dtype=d.dtype)
        node.class_dim = class_dim
        node.reduced = reduction != 0
        out = _recorded1(node, data, _edge(x))
        node.saved = _save(x, False, 0)
        return out
    return _plain(data, x._volatile)


NN_OPS = (log_softmax, softmax, gelu, silu, elu, leaky_relu, softplus, hardtanh, logsigmoid)
# The family's heading in docs/op-reference.md, and its ops that are pyad.<name>
# functions but not Variable methods (torch.nn.functional only (torch.Tensor has no such methods)).
NN_TITLE = "Neural-network functions"
NN_FUNCTION_ONLY = ("gelu", "silu", "elu", "leaky_relu", "softplus", "hardtanh", "logsigmoid")
