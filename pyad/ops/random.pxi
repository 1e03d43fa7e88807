# Random in-place fills (seeded by ``pyad.manual_seed``). A fill is recorded like a
# fill with a constant drawn now: the old values get a zero gradient (torch).


cdef Variable _inplace_random(Variable x, object draw, str what):
    # A fill with a constant drawn now: the old values get a zero gradient (torch).
    if not _is_float_dtype(x._data.dtype):
        raise RuntimeError("%s(): expected a floating point Variable, got %s"
                           % (what, x._data.dtype))
    sample = draw(x._data.shape)
    return _inplace_fill(x, _xp_of(x._data).asarray(sample, dtype=x._data.dtype), what)


def uniform_(object input, low=0.0, high=1.0):
    """Fill in place with samples from U[low, high) (seeded by ``pyad.manual_seed``).

    >>> x = pyad.zeros(1000, dtype=pyad.float64)
    >>> _ = uniform_(x, 2.0, 3.0)
    >>> bool((x.data >= 2.0).all() and (x.data < 3.0).all()), x._version
    (True, 1)
    """
    if _profiling and _profile_enter():
        return _profiled(uniform_, (input, low, high, ))
    cdef Variable x = _inplace_target(input, "uniform_")
    from pyad._factories import _generator_for
    gen = _generator_for(x._data)
    return _inplace_random(x, lambda shape: gen.uniform(low, high, shape), "uniform_")


def normal_(object input, mean=0.0, std=1.0):
    """Fill in place with samples from N(mean, std^2) (seeded by ``pyad.manual_seed``).

    >>> x = pyad.zeros(10000, dtype=pyad.float64)
    >>> _ = normal_(x, 5.0, 0.1)
    >>> 4.99 < float(x.data.mean()) < 5.01, x._version
    (True, 1)
    """
    if _profiling and _profile_enter():
        return _profiled(normal_, (input, mean, std, ))
    cdef Variable x = _inplace_target(input, "normal_")
    from pyad._factories import _generator_for
    gen = _generator_for(x._data)
    return _inplace_random(x, lambda shape: gen.normal(mean, std, shape), "normal_")


RANDOM_OPS = (uniform_, normal_)
