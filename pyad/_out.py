"""``out=`` for pyad's functions written in Python. The ops in the engine take it
themselves (``pyad/ops/_out.pxi`` says what is written and when it is refused); these
decorators give the same to the factories (`takes_out`: the values are made in
``out``'s dtype) and to the other Python-level ops (`writes_out`).
"""
import functools
import inspect

import numpy

from pyad import _engine
from pyad._engine import Variable


def _check_out(out, name, types=Variable):
    if not isinstance(out, types):
        raise TypeError("%s(): argument 'out' must be Variable, not %s"
                        % (name, type(out).__name__))


def _with_out_signature(wrapper, fn):
    params = list(inspect.signature(fn).parameters.values())
    wrapper.__signature__ = inspect.Signature(
        params + [inspect.Parameter("out", inspect.Parameter.KEYWORD_ONLY, default=None)])
    del wrapper.__wrapped__            # the signature above, with out, is the one to show
    return wrapper


def takes_out(factory=None, name=None, *, fill_shape=False):
    """Give a factory torch's ``out=``: the values are made in ``out``'s dtype (a
    ``dtype=`` that differs is refused, as torch) on its device and written into it
    (resized to the size asked for); returns ``out``. Not differentiable: an ``out``
    that requires grad is refused while grad mode is on. ``fill_shape``: torch's ranges
    (arange, linspace...) fill an ``out`` with as many elements in its own shape, in
    order, and resize only one with another number of elements."""
    if factory is None:
        return functools.partial(takes_out, name=name, fill_shape=fill_shape)
    name = name or factory.__name__

    @functools.wraps(factory)
    def with_out(*args, out=None, **kwargs):
        if out is None:
            return factory(*args, **kwargs)
        _check_out(out, name)
        dtype = kwargs.get("dtype")
        if dtype is None:
            kwargs["dtype"] = out.dtype
        elif numpy.dtype(dtype) != out.data.dtype:
            raise RuntimeError("%s(): dtype %s does not match dtype of out parameter (%s)"
                               % (name, _engine._torch_dtype_name_py(dtype),
                                  _engine._torch_dtype_name_py(out.data.dtype)))
        if kwargs.get("device") is None:
            kwargs["device"] = out.device
        values = factory(*args, **kwargs)
        if fill_shape and values.numel() == out.numel() and values.shape != out.shape:
            values = values.reshape(out.shape)
        return _engine._write_out_py(name, out, values)

    return _with_out_signature(with_out, factory)


def writes_out(fn=None, *, name=None, exact=False):
    """Give a Python-level op torch's ``out=``: the op runs, then its result (a Variable,
    or a tuple of them) is written into ``out`` as the engine's ops do; returns ``out``.
    ``exact``: ``out`` must have the result's dtype (torch's linear-algebra and
    structured kernels), else the result is cast where torch.can_cast allows.
    """
    if fn is None:
        return functools.partial(writes_out, name=name, exact=exact)
    name = name or fn.__name__

    @functools.wraps(fn)
    def with_out(*args, out=None, **kwargs):
        if out is None:
            return fn(*args, **kwargs)
        _check_out(out, name, (Variable, tuple, list))
        return _engine._write_out_py(name, out, fn(*args, **kwargs), exact)

    return _with_out_signature(with_out, fn)
