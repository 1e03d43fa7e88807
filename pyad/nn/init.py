"""``pyad.nn.init``: in-place initialisations of parameters, as ``torch.nn.init``.

Each function fills its Variable in place under ``no_grad`` (bumping its version, as
torch), draws from pyad's generator (so ``pyad.manual_seed`` reproduces it) and returns
the Variable.

>>> import pyad
>>> w = pyad.empty(3, 4)
>>> _ = pyad.nn.init.constant_(w, 0.5)
>>> float(w.sum())
6.0
"""
import math

import numpy

from pyad.autograd.grad_mode import no_grad

__all__ = ["calculate_gain", "uniform_", "normal_", "constant_", "zeros_", "ones_",
           "xavier_uniform_", "xavier_normal_", "kaiming_uniform_", "kaiming_normal_"]


def calculate_gain(nonlinearity, param=None):
    """The recommended gain for a nonlinearity (torch's table).

    >>> calculate_gain("relu") == 2 ** 0.5
    True
    """
    linear = ("linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d",
              "conv_transpose2d", "conv_transpose3d", "sigmoid")
    if nonlinearity in linear:
        return 1
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            slope = 0.01
        elif isinstance(param, (int, float)) and not isinstance(param, bool):
            slope = param
        else:
            raise ValueError("negative_slope %r not a valid number" % (param,))
        return math.sqrt(2.0 / (1 + slope ** 2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError("Unsupported nonlinearity %s" % (nonlinearity,))


def _calculate_fan_in_and_fan_out(tensor):
    if tensor.dim() < 2:
        raise ValueError("Fan in and fan out can not be computed for tensor with fewer "
                         "than 2 dimensions")
    receptive = 1
    for s in tensor.shape[2:]:
        receptive *= s
    return tensor.shape[1] * receptive, tensor.shape[0] * receptive


def _fan(tensor, mode):
    mode = mode.lower()
    if mode not in ("fan_in", "fan_out"):
        raise ValueError("Mode %s not supported, please use one of fan_in, fan_out" % mode)
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


def _fill_from(tensor, generator, draw, what):
    """Fill ``tensor`` in place with ``draw(rng, shape)`` from ``generator``'s stream."""
    from pyad._engine import Variable
    from pyad._factories import _rng_for
    data = tensor.data
    xp = numpy if isinstance(data, numpy.ndarray) else __import__("cupy")
    sample = draw(_rng_for(xp, generator, what), data.shape)
    return tensor.copy_(Variable(xp.asarray(sample, dtype=data.dtype)))


def uniform_(tensor, a=0.0, b=1.0, generator=None):
    """Fill with samples from U(a, b) (drawn from ``generator``, a `pyad.Generator`, if
    given).

    >>> import pyad
    >>> w = pyad.nn.init.uniform_(pyad.empty(100), -1.0, 1.0)
    >>> bool((w.data >= -1).all() and (w.data < 1).all())
    True
    """
    with no_grad():
        if generator is not None:
            return _fill_from(tensor, generator, lambda g, shape: g.uniform(a, b, shape),
                              "uniform_")
        return tensor.uniform_(a, b)


def normal_(tensor, mean=0.0, std=1.0, generator=None):
    """Fill with samples from N(mean, std^2) (drawn from ``generator`` if given).

    >>> import pyad
    >>> w = pyad.nn.init.normal_(pyad.empty(10000, dtype=pyad.float64), 3.0, 0.1)
    >>> 2.99 < float(w.mean()) < 3.01
    True
    """
    with no_grad():
        if generator is not None:
            return _fill_from(tensor, generator, lambda g, shape: g.normal(mean, std, shape),
                              "normal_")
        return tensor.normal_(mean, std)


def constant_(tensor, val):
    """Fill with the value ``val``.

    >>> import pyad
    >>> pyad.nn.init.constant_(pyad.empty(2), 3.0)
    tensor([3., 3.])
    """
    with no_grad():
        return tensor.fill_(val)


def zeros_(tensor):
    """Fill with zeros.

    >>> import pyad
    >>> pyad.nn.init.zeros_(pyad.empty(2))
    tensor([0., 0.])
    """
    with no_grad():
        return tensor.zero_()


def ones_(tensor):
    """Fill with ones.

    >>> import pyad
    >>> pyad.nn.init.ones_(pyad.empty(2))
    tensor([1., 1.])
    """
    with no_grad():
        return tensor.fill_(1.0)


def xavier_uniform_(tensor, gain=1.0, generator=None):
    """Glorot uniform: U(-a, a) with a = gain * sqrt(6 / (fan_in + fan_out)).

    >>> import pyad
    >>> w = pyad.nn.init.xavier_uniform_(pyad.empty(3, 5))
    >>> bool((abs(w.data) <= (6 / 8) ** 0.5).all())
    True
    """
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    a = math.sqrt(3.0) * gain * math.sqrt(2.0 / float(fan_in + fan_out))
    return uniform_(tensor, -a, a, generator)


def xavier_normal_(tensor, gain=1.0, generator=None):
    """Glorot normal: N(0, std^2) with std = gain * sqrt(2 / (fan_in + fan_out)).

    >>> import pyad
    >>> pyad.nn.init.xavier_normal_(pyad.empty(3, 5)).shape
    (3, 5)
    """
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return normal_(tensor, 0.0, gain * math.sqrt(2.0 / float(fan_in + fan_out)), generator)


def kaiming_uniform_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    """He uniform: U(-bound, bound) with bound = gain * sqrt(3 / fan).

    ``Linear`` and ``Conv2d`` use ``a=sqrt(5)``, so their weights are U(-1/sqrt(fan_in),
    1/sqrt(fan_in)), as torch's.

    >>> import pyad, math
    >>> w = pyad.nn.init.kaiming_uniform_(pyad.empty(4, 9), a=math.sqrt(5))
    >>> bool((abs(w.data) <= 1 / 3).all())
    True
    """
    if 0 in tensor.shape:
        return tensor
    fan = _fan(tensor, mode)
    bound = math.sqrt(3.0) * calculate_gain(nonlinearity, a) / math.sqrt(fan)
    return uniform_(tensor, -bound, bound, generator)


def kaiming_normal_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    """He normal: N(0, std^2) with std = gain / sqrt(fan).

    >>> import pyad
    >>> pyad.nn.init.kaiming_normal_(pyad.empty(4, 9)).shape
    (4, 9)
    """
    if 0 in tensor.shape:
        return tensor
    fan = _fan(tensor, mode)
    return normal_(tensor, 0.0, calculate_gain(nonlinearity, a) / math.sqrt(fan),
                   generator)
