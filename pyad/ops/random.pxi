# Random in-place fills (seeded by ``pyad.manual_seed``). A fill is recorded like a
# fill with a constant drawn now: the old values get a zero gradient (torch).


cdef Variable _inplace_random(Variable x, object draw, str what):
    # A fill with a constant drawn now: the old values get a zero gradient (torch).
    if not _is_float_dtype(x._data.dtype):
        raise RuntimeError("%s(): expected a floating point Variable, got %s"
                           % (what, x._data.dtype))
    sample = draw(x._data.shape)
    return _inplace_fill(x, _xp_of(x._data).asarray(sample, dtype=x._data.dtype), what)


cdef object _rng_of(object data, object generator, str what):
    # ``generator`` (a pyad.Generator on data's device) or the device's default stream.
    from pyad._factories import _rng_for
    return _rng_for(_xp_of(data), generator, what)


cdef object _uniform01(object rng, tuple shape):
    # U[0, 1) samples: NumPy's Generator and cupy.random call it random(), CuPy's
    # RandomState (behind a pyad.Generator on a GPU) random_sample().
    draw = getattr(rng, "random", None)
    return (draw if draw is not None else rng.random_sample)(shape)


@profiled_op
def uniform_(object input, low=0.0, high=1.0, *, generator=None):
    """Fill in place with samples from U[low, high) (from ``generator`` if given, else
    the default generator seeded by ``pyad.manual_seed``).

    >>> x = pyad.zeros(1000, dtype=pyad.float64)
    >>> _ = uniform_(x, 2.0, 3.0)
    >>> bool((x.data >= 2.0).all() and (x.data < 3.0).all()), x._version
    (True, 1)
    """
    cdef Variable x = _inplace_target(input, "uniform_")
    if _is_float_dtype(x._data.dtype) and _dtype_kind(x._data) != b'c':
        _check_uniform_range(float(low), float(high), x._data.dtype)
    gen = _rng_of(x._data, generator, "uniform_")
    return _inplace_random(x, lambda shape: gen.uniform(low, high, shape), "uniform_")


cdef void _check_uniform_range(double lo, double hi, object dtype) except *:
    # torch's checks: both bounds finite numbers of the dtype, from <= to, and the
    # width representable in it (float16's [-60000, 60000) is not)
    from pyad._compat import finfo                # (NumPy's has no bfloat16)
    fmax = float(finfo(dtype).max)
    name = _torch_dtype_name(dtype)
    if not (-fmax <= lo <= fmax):
        raise RuntimeError("uniform_(): from is out of bounds for %s" % name)
    if not (-fmax <= hi <= fmax):
        raise RuntimeError("uniform_(): to is out of bounds for %s" % name)
    if lo > hi:
        raise RuntimeError("uniform_(): uniform_ expects to return a [from, to) range, but "
                           "found from=%g > to=%g" % (lo, hi))
    if hi - lo > fmax:
        raise RuntimeError("uniform_(): uniform_ expects to-from <= std::numeric_limits<%s>::"
                           "max(), but found to=%g and from=%g which result in to-from to "
                           "exceed the limit" % (name, hi, lo))


@profiled_op
def normal_(object input, mean=0.0, std=1.0, *, generator=None):
    """Fill in place with samples from N(mean, std^2) (from ``generator`` if given, else
    the default generator seeded by ``pyad.manual_seed``).

    >>> x = pyad.zeros(10000, dtype=pyad.float64)
    >>> _ = normal_(x, 5.0, 0.1)
    >>> 4.99 < float(x.data.mean()) < 5.01, x._version
    (True, 1)
    """
    cdef Variable x = _inplace_target(input, "normal_")
    gen = _rng_of(x._data, generator, "normal_")
    return _inplace_random(x, lambda shape: gen.normal(mean, std, shape), "normal_")




cdef Variable _inplace_draw(Variable x, object sample, str what):
    # A fill of any dtype (random_, geometric_, bernoulli_ take integers and bool too).
    return _inplace_fill(x, _xp_of(x._data).asarray(sample).astype(x._data.dtype, copy=False),
                         what)


cdef void _check_floating(Variable x, str what, str distribution) except *:
    if not _is_float_dtype(x._data.dtype):
        raise RuntimeError("%s(): %s distribution is a continuous probability distribution. "
                           "dtype must be a floating point but you specified %s"
                           % (what, distribution, _torch_dtype_name(x._data.dtype)))


cdef object _integers(object gen, object low, object high, tuple shape):
    draw = getattr(gen, "integers", None)
    if draw is None:
        draw = gen.randint                       # CuPy's RandomState
    return draw(low, high, shape)


@profiled_op
def random_(object input, from_=_NO_VALUE, to=_NO_VALUE, *, generator=None):
    """Fill in place with integers drawn uniformly from ``[from, to)``: ``random_(to)``
    draws from ``[0, to)``, ``random_(from, None)`` from ``[from, max]``, and with no
    bound from ``[0, 2**mantissa]`` for floating dtypes and ``[0, max]`` for integers, as
    torch. A bound the dtype cannot hold is a RuntimeError; one past a floating dtype's
    exact integers (``2**mantissa``) torch's UserWarning.

    >>> x = pyad.zeros(1000, dtype=pyad.int64)
    >>> _ = random_(x, 3, 6)
    >>> sorted(set(x.tolist())), x._version
    ([3, 4, 5], 1)
    """
    cdef Variable x = _inplace_target(input, "random_")
    dtype = x._data.dtype
    floating = _is_float_dtype(dtype)
    if floating:
        from pyad._compat import finfo            # (NumPy's has no bfloat16)
        info = finfo(dtype)
        exact = 2 * int(round(1.0 / info.eps))   # the dtype's exact integers: +-2**digits
        low, high = -int(info.max), int(info.max)
    elif dtype.kind == "b":
        exact, low, high = None, 0, 1
    else:
        exact = None
        low, high = int(numpy.iinfo(dtype).min), int(numpy.iinfo(dtype).max)
    checks = ()
    if from_ is _NO_VALUE:                       # random_(): the full range
        from_, to = 0, (exact + 1 if floating else high + 1)
    elif to is _NO_VALUE:                        # random_(to)
        from_, to = 0, from_
        checks = (("to - 1", to - 1),)
    elif to is None:                             # random_(from, None): up to the max
        to = (exact if floating else high) + 1
        checks = (("from", from_),)
    else:
        checks = (("from", from_), ("to - 1", to - 1))
    if from_ >= to:                              # (torch's first check)
        raise RuntimeError("random_(): random_ expects 'from' to be less than 'to', but got "
                           "from=%s >= to=%s" % (from_, to))
    for name, value in checks:
        _random_bound_check(value, name, low, high, exact, dtype)
    gen = _rng_of(x._data, generator, "random_")
    return _inplace_draw(x, _integers(gen, from_, to, x._data.shape), "random_")


cdef void _random_bound_check(object value, str name, object low, object high, object exact,
                              object dtype) except *:
    # torch's check_from_to_in_range: a bound the dtype cannot hold is refused; for a
    # floating dtype, one past its exact integers only warned about
    if not low <= value <= high:
        raise RuntimeError("random_(): %s is out of bounds for %s"
                           % (name, _C_TYPE_NAMES.get(str(dtype), str(dtype))))
    if exact is not None and not -exact <= value <= exact:
        digits = exact.bit_length() - 1
        warnings.warn("%s is out of bounds [-(2^%d), 2^%d]. Due to precision limitations %s "
                      "can support discrete uniform distribution only within this range. This "
                      "warning will become an error in version 1.7 release, please fix the "
                      "code in advance" % (name, digits, digits,
                                           _C_TYPE_NAMES.get(str(dtype), str(dtype))),
                      UserWarning)


@profiled_op
def exponential_(object input, lambd=1.0, *, generator=None):
    """Fill in place with samples of the exponential distribution of rate ``lambd``.

    >>> x = pyad.zeros(10000, dtype=pyad.float64)
    >>> _ = exponential_(x, 4.0)
    >>> 0.24 < float(x.data.mean()) < 0.26
    True
    """
    cdef Variable x = _inplace_target(input, "exponential_")
    _check_floating(x, "exponential_", "Exponential")
    if not lambd > 0:
        raise RuntimeError("exponential_(): exponential_ expects lambda > 0.0, but found "
                           "lambda=%s" % lambd)
    gen = _rng_of(x._data, generator, "exponential_")
    return _inplace_draw(x, gen.exponential(1.0 / lambd, x._data.shape), "exponential_")


@profiled_op
def cauchy_(object input, median=0.0, sigma=1.0, *, generator=None):
    """Fill in place with samples of the Cauchy distribution (``median``, scale
    ``sigma``).

    >>> x = pyad.zeros(10001, dtype=pyad.float64)
    >>> _ = cauchy_(x, 3.0, 0.5)
    >>> 2.9 < float(numpy.median(x.data)) < 3.1
    True
    """
    cdef Variable x = _inplace_target(input, "cauchy_")
    _check_floating(x, "cauchy_", "Cauchy")
    if not sigma > 0:
        raise RuntimeError("cauchy_(): cauchy_ expects sigma > 0.0, but found sigma=%s" % sigma)
    gen = _rng_of(x._data, generator, "cauchy_")
    return _inplace_draw(x, median + sigma * gen.standard_cauchy(x._data.shape), "cauchy_")


@profiled_op
def log_normal_(object input, mean=1.0, std=2.0, *, generator=None):
    """Fill in place with ``exp(N(mean, std^2))`` samples.

    >>> x = pyad.zeros(10000, dtype=pyad.float64)
    >>> _ = log_normal_(x, 0.0, 0.1)
    >>> 0.99 < float(numpy.median(x.data)) < 1.01
    True
    """
    cdef Variable x = _inplace_target(input, "log_normal_")
    if not _is_float_dtype(x._data.dtype):
        raise RuntimeError("log_normal_(): \"log_normal_cpu\" not implemented for '%s'"
                           % _torch_dtype_name(x._data.dtype))
    if not std > 0:
        raise RuntimeError("log_normal_(): log_normal_ expects std > 0.0, but found std=%s"
                           % std)
    gen = _rng_of(x._data, generator, "log_normal_")
    return _inplace_draw(x, _xp_of(x._data).exp(gen.normal(mean, std, x._data.shape)),
                         "log_normal_")


@profiled_op
def geometric_(object input, p, *, generator=None):
    """Fill in place with the number of Bernoulli(``p``) trials up to the first success
    (1, 2, ...).

    >>> x = pyad.zeros(10000, dtype=pyad.float64)
    >>> _ = geometric_(x, 0.5)
    >>> float(x.data.min()), 1.9 < float(x.data.mean()) < 2.1
    (1.0, True)
    """
    cdef Variable x = _inplace_target(input, "geometric_")
    if x._data.dtype.kind == "b":
        raise RuntimeError("geometric_(): \"geometric_cpu\" not implemented for 'Bool'")
    if not 0 < p < 1:
        raise RuntimeError("geometric_(): geometric_ expects p to be in (0, 1), but got p=%s"
                           % p)
    gen = _rng_of(x._data, generator, "geometric_")
    return _inplace_draw(x, gen.geometric(p, x._data.shape), "geometric_")


@profiled_op
def bernoulli_(object input, p=0.5, *, generator=None):
    """Fill in place with 1 with probability ``p`` (a number, or a Variable of
    probabilities broadcast to this shape), else 0.

    >>> x = pyad.zeros(4)
    >>> x.bernoulli_(pyad.tensor([0.0, 1.0, 1.0, 0.0])).tolist()
    [0.0, 1.0, 1.0, 0.0]
    """
    cdef Variable x = _inplace_target(input, "bernoulli_")
    probs = (<Variable>p)._data if isinstance(p, Variable) else p
    if not isinstance(p, Variable) and not 0 <= p <= 1:
        raise RuntimeError("bernoulli_(): bernoulli_ expects p to be in [0, 1], but got p=%s"
                           % p)
    if isinstance(p, Variable) and probs.size and \
            not bool(((probs >= 0) & (probs <= 1)).all()):         # (nan fails both)
        raise RuntimeError("bernoulli_(): expected every probability in p to be in [0, 1]")
    gen = _rng_of(x._data, generator, "bernoulli_")
    try:
        probs = _xp_of(x._data).broadcast_to(probs, x._data.shape)
    except ValueError:
        raise RuntimeError("bernoulli_(): the shape of p %s cannot be broadcast to %s"
                           % (_shape_str(_shape_of(p)), _shape_str(x._data.shape))) from None
    return _inplace_draw(x, _uniform01(gen, x._data.shape) < probs, "bernoulli_")


# -- stochastic ops (bernoulli, multinomial, normal; reinforce) -----------------------------------------------
#
# bernoulli, multinomial and normal draw a sample whose grad_fn is a stochastic node.
# A sample is not a differentiable function of the distribution's parameters, so
# gradients arriving at it are discarded; instead, once ``sample.reinforce(reward)``
# gave it a reward, the node sends the score-function (REINFORCE) estimator
#     -reward * d log p(sample) / d params
# to the parameters (the sign of the older reference: minimising it maximises the
# expected reward). Backward reaching a node without a reward raises, unless nothing
# differentiable lies behind it (only other samples: their gradient is discarded).

cdef class _StochasticNode(Node):
    cdef tuple saved_params          # SavedVariable per Variable parameter, else None
    cdef tuple param_values          # the non-Variable parameters (Python numbers)
    cdef SavedVariable sample
    cdef object reward               # array shaped like the sample, or None

    cdef tuple _backward(self, tuple grads):
        if self._released and self.sample is None:
            raise _freed_error(self)
        if self.reward is None:
            if not _reaches_a_leaf(self):
                # Only samples lie behind: zeros (not None) so that their nodes still
                # run and deliver their own rewards.
                return tuple(None if not self._needs_input_grad(i) else
                             _wrap(_xp_of((<SavedVariable>self.saved_params[i])._data).zeros(
                                 (<SavedVariable>self.saved_params[i])._data.shape,
                                 dtype=(<SavedVariable>self.saved_params[i])._data.dtype))
                             for i in range(_num_edges(self)))
            raise RuntimeError(
                "%s(): differentiating a stochastic op requires a reward: call "
                "reinforce(reward) on its output (the sample) before backward"
                % self.name())
        return self._score_grads(_wrap(self.sample.data(self)), _wrap(self.reward))

    cdef tuple _score_grads(self, Variable sample, Variable reward):
        raise NotImplementedError

    cdef object _param(self, Py_ssize_t i):
        s = self.saved_params[i]
        if s is None:
            return self.param_values[i]
        return (<SavedVariable>s).unpack(self)

    cdef void _release_saved(self) noexcept:
        self._released = True
        if self.saved_params is not None:
            for s in self.saved_params:
                if s is not None:
                    (<SavedVariable>s).release()
        self.saved_params = None
        if self.sample is not None:
            self.sample.release()
        self.sample = None
        self.reward = None           # a reward is used once, as the older API did


cdef bint _reaches_a_leaf(Node start) except -1:
    # Whether a gradient from `start` can reach a leaf other than through a sample.
    cdef list stack = [_entry_node(e) for e in _edge_entries(start) if e is not None]
    cdef set seen = set()
    while stack:
        node = stack.pop()
        if node in seen:
            continue
        seen.add(node)
        if isinstance(node, AccumulateGrad):
            return True
        if isinstance(node, _StochasticNode):
            continue
        stack.extend([_entry_node(e) for e in _edge_entries(<Node>node) if e is not None])
    return False


def _reinforce(Variable output, reward):
    # Variable.reinforce: store the reward on the sample's stochastic node.
    node = output._grad_fn
    if not isinstance(node, _StochasticNode):
        if output._grad_fn is None and not output._requires_grad:
            raise RuntimeError(
                "reinforce() can only be called on the output of a stochastic op "
                "(bernoulli, multinomial, normal) whose parameters require grad; this "
                "Variable has no grad_fn")
        raise RuntimeError("reinforce() can only be called on the output of a stochastic op "
                           "(bernoulli, multinomial, normal); this Variable's grad_fn is %s"
                           % output._grad_fn.name())
    cdef _StochasticNode snode = <_StochasticNode>node
    if snode._released and snode.sample is None:
        raise _freed_error(snode)
    data = output._data
    if isinstance(reward, Variable):
        r = (<Variable>reward)._data
    elif isinstance(reward, (int, float, numpy.generic)) and not isinstance(reward, bool):
        r = reward
    else:
        r = _to_array(reward, None, "reinforce")
    xp = _xp_of(data)
    if not isinstance(r, (int, float, numpy.generic)):
        if _device_of(r) != _device_of(data):
            raise RuntimeError("reinforce(): the reward is on %s but the sample is on %s"
                               % (_device_of(r), _device_of(data)))
        if r.ndim != 0 and r.shape != data.shape:
            raise RuntimeError("reinforce(): the reward must have the sample's shape %s (or "
                               "be a scalar), got %s"
                               % (_shape_str(data.shape), _shape_str(r.shape)))
        if r.dtype.kind not in "biuf":
            raise TypeError("reinforce(): the reward must be real numbers, got %s" % r.dtype)
    dtype = snode._reward_dtype()
    snode.reward = xp.ascontiguousarray(xp.broadcast_to(xp.asarray(r, dtype=dtype),
                                                        data.shape))


cdef class _FloatSampleNode(_StochasticNode):
    cdef object dtype

    def _reward_dtype(self):
        return self.dtype


cdef Variable _stochastic_output(_StochasticNode node, object sample, tuple params,
                                 bint differentiable_output):
    # Record `node` for `sample` drawn from `params` (Variables or numbers).
    cdef Variable out = _wrap(_ensure_array(sample))
    node.saved_params = tuple(_save(<Variable>p, False, i) if isinstance(p, Variable)
                              else None for i, p in enumerate(params))
    node.param_values = tuple(None if isinstance(p, Variable) else p for p in params)
    _init_node(node, tuple(_edge(<Variable>p) if isinstance(p, Variable) else _NO_EDGE
                           for p in params), 1)
    out._grad_fn = node
    # A float sample requires grad, so the graph of a loss computed from it reaches
    # this node; an integer sample (multinomial) cannot, so it is a backward root.
    out._requires_grad = differentiable_output
    node.sample = _save(out, True)
    return out


cdef bint _stochastic_records(tuple params) except -1:
    # Whether a stochastic op on `params` records a node (and, else, its volatility).
    if not _grad_enabled():
        return False
    any_requires = False
    for p in params:
        if isinstance(p, Variable):
            if (<Variable>p)._volatile:
                return False
            any_requires = any_requires or _requires_grad_now(<Variable>p)
    return any_requires


cdef bint _any_volatile(tuple params):
    for p in params:
        if isinstance(p, Variable) and (<Variable>p)._volatile:
            return True
    return False


cdef class BernoulliBackward(_FloatSampleNode):
    cdef tuple _score_grads(self, Variable s, Variable reward):
        p = self._param(0)
        # d log p(s) / dp = s / p - (1 - s) / (1 - p), written so that neither branch
        # divides by zero (s = 1 only where p > 0, s = 0 only where p < 1).
        not_s = sub(1.0, s)
        score = sub(div(s, add(p, not_s)), div(not_s, add(sub(1.0, p), s)))
        return (neg(mul(reward, score)),)


@profiled_op
def bernoulli(input, p=None, *, generator=None, out=None):
    """Draw 0/1 samples, 1 with probability ``input`` (or the number ``p``) elementwise,
    from ``generator`` if given (else the default generator).

    A stochastic op: when ``input`` requires grad, call ``reinforce(reward)`` on the
    sample before backward (see docs/stochastic.md).

    >>> _ = pyad.manual_seed(0)
    >>> bernoulli(pyad.tensor([0.0, 1.0, 1.0]))
    tensor([0., 1., 1.])
    """
    if out is not None: return _write_out("bernoulli", out, bernoulli(input, p,
                                          generator=generator), _OUT_ANY)
    cdef Variable x = _as_variable(input, "bernoulli")
    data = x._data
    xp = _xp_of(data)
    if p is not None:
        if isinstance(p, Variable):
            raise TypeError("bernoulli(): p must be a number (for a probability per "
                            "element, pass them as input)")
        p = float(p)
        if not 0.0 <= p <= 1.0:
            raise RuntimeError("bernoulli(): expected p in [0, 1], got %r" % p)
        dtype = data.dtype if _is_float_dtype(data.dtype) else _default_dtype
        u = _uniform01(_rng_of(data, generator, "bernoulli"), data.shape)
        sample = (u < p).astype(dtype)
        return _plain(xp.asarray(sample), x._volatile)
    if not _is_float_dtype(data.dtype):
        raise RuntimeError("bernoulli(): expected a floating point tensor of probabilities, "
                           "got %s" % data.dtype)
    if data.size and not bool(((data >= 0) & (data <= 1)).all()):
        raise RuntimeError("bernoulli(): expected all probabilities in [0, 1]")
    u = _uniform01(_rng_of(data, generator, "bernoulli"), data.shape)
    sample = (u < data).astype(data.dtype)
    cdef BernoulliBackward node
    if _stochastic_records((x,)):
        node = BernoulliBackward.__new__(BernoulliBackward)
        node.dtype = data.dtype
        return _stochastic_output(node, sample, (x,), True)
    return _plain(sample, x._volatile)


cdef class MultinomialBackward(_StochasticNode):
    cdef bint replacement

    def _reward_dtype(self):
        return (<SavedVariable>self.saved_params[0])._data.dtype

    cdef tuple _score_grads(self, Variable k, Variable reward):
        w = self._param(0)
        one_d = w.ndim == 1
        if one_d:
            w = unsqueeze(w, 0)
            k = unsqueeze(k, 0)
            reward = unsqueeze(reward, 0)
        # log p(k_i | k_<i) = log w[k_i] - log(total weight left before draw i);
        # without replacement the drawn weights leave the total.
        chosen = gather(w, 1, k)
        total = sum(w, 1, True)
        left = sub(total, sub(cumsum(chosen, 1), chosen)) if not self.replacement else total
        wd = (<Variable>w)._data
        zeros = _wrap(_xp_of(wd).zeros(wd.shape, dtype=wd.dtype))
        per_draw = div(reward, left)
        d = sub(scatter_add(zeros, 1, k, div(reward, chosen)), sum(per_draw, 1, True))
        if not self.replacement:
            later = sub(sum(per_draw, 1, True), cumsum(per_draw, 1))
            d = scatter_add(d, 1, k, later)
        d = neg(d)
        return (squeeze(d, 0) if one_d else d,)


@profiled_op
def multinomial(input, num_samples, replacement=False, *, generator=None, out=None):
    """Draw ``num_samples`` category indices per row, with probabilities proportional to
    the rows of ``input`` (1-d or 2-d, non-negative weights); an int64 result, drawn from
    ``generator`` if given (else the default generator).

    A stochastic op: when ``input`` requires grad, call ``reinforce(reward)`` on the
    sample, then ``backward()`` from it (see docs/stochastic.md).

    >>> _ = pyad.manual_seed(0)
    >>> multinomial(pyad.tensor([0.0, 0.0, 1.0, 0.0]), 1)
    tensor([2])
    """
    if out is not None: return _write_out("multinomial", out, multinomial(input, num_samples,
                                          replacement, generator=generator), _OUT_EXACT)
    cdef Variable x = _as_variable(input, "multinomial")
    data = x._data
    if data.ndim not in (1, 2):
        raise RuntimeError("multinomial(): prob_dist must be 1 or 2 dim, got %d" % data.ndim)
    if not _is_float_dtype(data.dtype):
        raise RuntimeError("multinomial(): only supports floating-point dtypes for input, "
                           "got %s" % data.dtype)
    if isinstance(num_samples, bool) or not isinstance(num_samples, (int, numpy.integer)):
        raise TypeError("multinomial(): num_samples must be an int, got %s"
                        % type(num_samples).__name__)
    k = int(num_samples)
    replacement = bool(replacement)
    if k <= 0:
        raise RuntimeError("multinomial(): cannot sample n_sample <= 0 samples")
    n = data.shape[data.ndim - 1]
    if not replacement and k > n:
        raise RuntimeError("multinomial(): cannot sample n_sample > prob_dist.size(-1) "
                           "samples without replacement")
    xp = _xp_of(data)
    rows = data if data.ndim == 2 else data.reshape(1, n)
    _checked_sizes([k] if data.ndim == 1 else [rows.shape[0], k], 8, "multinomial")
    if rows.size and not bool((xp.isfinite(rows) & (rows >= 0)).all()):
        raise RuntimeError("multinomial(): probability tensor contains either `inf`, `nan` "
                           "or element < 0")
    if rows.shape[0] and (n == 0 or not bool((rows.sum(axis=1) > 0).all())):
        raise RuntimeError("multinomial(): invalid multinomial distribution (sum of "
                           "probabilities <= 0)")
    gen = _rng_of(data, generator, "multinomial")
    weights = rows.astype(numpy.float64)
    if replacement:
        u = _uniform01(gen, (rows.shape[0], k))
        sample = xp.empty((rows.shape[0], k), dtype=numpy.int64)
        for r in range(rows.shape[0]):
            cdf = xp.cumsum(weights[r])
            sample[r] = xp.searchsorted(cdf / cdf[n - 1], u[r], side="right")
    else:
        # torch's algorithm (the exponential race, as Gumbel top-k): category c scores
        # w_c / E_c with E_c ~ Exp(1), and the k best scores, best first, are the draws
        # of k sequential draws each removing the drawn category. Zero-weight
        # categories score 0, so they come last (lowest index first), as torch's.
        race = xp.maximum(-xp.log1p(-_uniform01(gen, rows.shape)),   # Exp(1), > 0
                          numpy.finfo(numpy.float64).tiny)
        sample = xp.argsort(-(weights / race), axis=1, kind="stable")[:, :k]
        sample = xp.ascontiguousarray(sample.astype(numpy.int64, copy=False))
    sample = sample.reshape((k,)) if data.ndim == 1 else sample
    cdef MultinomialBackward node
    if _stochastic_records((x,)):
        node = MultinomialBackward.__new__(MultinomialBackward)
        node.replacement = replacement
        return _stochastic_output(node, sample, (x,), False)
    return _plain(sample, x._volatile)


cdef class NormalBackward(_FloatSampleNode):
    cdef tuple _score_grads(self, Variable x, Variable reward):
        mean = self._param(0)
        std = self._param(1)
        # log p(x) = -(x - mean)^2 / (2 std^2) - log std - log(2 pi) / 2
        diff = sub(x, mean)
        gm = gs = None
        if self._needs_input_grad(0):
            gm = neg(mul(reward, div(diff, mul(std, std))))
            gm = sum_to(gm, (<Variable>mean)._data.shape)
        if self._needs_input_grad(1):
            gs = neg(mul(reward, sub(div(mul(diff, diff), mul(mul(std, std), std)),
                                     reciprocal(std) if isinstance(std, Variable)
                                     else 1.0 / std)))
            gs = sum_to(gs, (<Variable>std)._data.shape)
        return (gm, gs)


@profiled_op
def normal(mean=0.0, std=1.0, size=None, dtype=None, device=None, *, generator=None, out=None):
    """Samples from N(mean, std^2): ``mean`` and/or ``std`` Variables (broadcast), or
    numbers with ``size=`` (and ``device=``, where the sample is drawn: a GPU draws it
    on the GPU), as torch's overloads; drawn from ``generator`` if given (else the
    default generator).

    A stochastic op, not reparameterised: when ``mean`` or ``std`` requires grad, call
    ``reinforce(reward)`` on the sample before backward (see docs/stochastic.md); for a
    pathwise gradient write ``mean + std * pyad.randn_like(mean)``.

    >>> _ = pyad.manual_seed(0)
    >>> normal(pyad.tensor([0.0, 100.0]), 1e-6).round()
    tensor([  0., 100.])
    """
    if out is not None: return _write_out("normal", out, normal(mean, std, size, dtype,
                                          device, generator=generator))
    mean_is_tensor = not isinstance(mean, (int, float, numpy.generic))
    std_is_tensor = not isinstance(std, (int, float, numpy.generic))
    if mean_is_tensor:
        mean = _as_variable(mean, "normal")
    if std_is_tensor:
        std = _as_variable(std, "normal")
    if size is not None:
        # torch's normal(float mean, float std, size) also takes a 0-d Variable that does
        # not require grad for either number, of any real dtype (the sample has the default
        # dtype)
        if mean_is_tensor and (<Variable>mean)._data.ndim == 0 and \
                not (<Variable>mean)._requires_grad:
            mean, mean_is_tensor = float(mean), False
        if std_is_tensor and (<Variable>std)._data.ndim == 0 and \
                not (<Variable>std)._requires_grad:
            std, std_is_tensor = float(std), False
    params = (mean, std)
    for name, p in (("mean", mean), ("std", std)):
        if isinstance(p, Variable) and not _is_float_dtype((<Variable>p)._data.dtype):
            raise RuntimeError("normal(): expected a floating point %s, got %s"
                               % (name, (<Variable>p)._data.dtype))
    if not mean_is_tensor and not std_is_tensor:
        if size is None:
            raise TypeError("normal(): with a number mean and std, size= is required")
        shape = tuple(size) if not isinstance(size, (int, numpy.integer)) else (int(size),)
        out_dtype = numpy.dtype(dtype) if dtype is not None else _default_dtype
        _check_storage_size(shape, out_dtype, "normal")
        if std < 0:
            raise RuntimeError("normal(): expected std >= 0.0, got %r" % std)
        return _plain(_normal_numbers(shape, mean, std, out_dtype, device, generator), False)
    if size is not None:
        raise TypeError("normal(): size= is only taken with a number mean and std")
    if device is not None:
        raise TypeError("normal(): device= is only taken with a number mean and std (a "
                        "Variable mean or std decides the device)")
    if mean_is_tensor and std_is_tensor:
        if _device_of((<Variable>mean)._data) != _device_of((<Variable>std)._data):
            raise RuntimeError("normal(): mean is on %s but std is on %s"
                               % (_device_of((<Variable>mean)._data),
                                  _device_of((<Variable>std)._data)))
        out_dtype = numpy.result_type((<Variable>mean)._data.dtype, (<Variable>std)._data.dtype)
        try:
            shape = numpy.broadcast_shapes((<Variable>mean)._data.shape,
                                           (<Variable>std)._data.shape)
        except ValueError:
            raise RuntimeError("normal(): mean of shape %s and std of shape %s do not "
                               "broadcast" % (_shape_str((<Variable>mean)._data.shape),
                                              _shape_str((<Variable>std)._data.shape))) from None
        like = (<Variable>mean)._data
    elif mean_is_tensor:
        like = (<Variable>mean)._data
        out_dtype, shape = like.dtype, like.shape
    else:
        like = (<Variable>std)._data
        out_dtype, shape = like.dtype, like.shape
    if dtype is not None and numpy.dtype(dtype) != out_dtype:
        raise RuntimeError("normal(): dtype= is only taken with a number mean and std")
    xp = _xp_of(like)
    std_data = (<Variable>std)._data if std_is_tensor else std
    if (xp.asarray(std_data) < 0).any():
        raise RuntimeError("normal(): expected all elements of std >= 0.0")
    mean_data = (<Variable>mean)._data if mean_is_tensor else mean
    eps = _rng_of(like, generator, "normal").standard_normal(shape)
    sample = xp.asarray(mean_data + std_data * eps, dtype=out_dtype)
    cdef NormalBackward node
    if _stochastic_records(params):
        node = NormalBackward.__new__(NormalBackward)
        node.dtype = out_dtype
        return _stochastic_output(node, sample, params, True)
    return _plain(sample, _any_volatile(params))


cdef object _normal_numbers(tuple shape, object mean, object std, object dtype, object dev,
                           object generator):
    # Drawn by the generator of the target device, so a GPU sample never visits the host.
    from pyad._factories import _rng_for
    if dev is None or device(dev).type == "cpu":
        sample = _rng_for(numpy, generator, "normal").standard_normal(shape) * std + mean
        return numpy.asarray(sample, dtype=dtype)
    dev = device(dev)
    cp = _require_cupy("normal")
    with cp.cuda.Device(dev.index):
        rng = _rng_for(cp, generator, "normal")
        return (rng.standard_normal(shape) * std + mean).astype(dtype, copy=False)


RANDOM_OPS = (uniform_, normal_, bernoulli, multinomial, normal, random_, exponential_, cauchy_,
              log_normal_, geometric_, bernoulli_)
# The family's heading in docs/op-reference.md, and its ops that are pyad.<name>
# functions but not Variable methods (torch has normal as a function only).
RANDOM_TITLE = "Random fills"
RANDOM_FUNCTION_ONLY = ("normal",)
