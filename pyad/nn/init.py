"""``pyad.nn.init``: in-place initialisations of parameters, as ``torch.nn.init``.

Each function fills its Variable in place under ``no_grad`` (bumping its version, as
torch), draws from pyad's generator (so ``pyad.manual_seed`` reproduces it) and returns
the Variable. Given an array instead (torch scripts write ``init.xavier_uniform_(
m.weight.data)``, and pyad's ``.data`` is the NumPy or CuPy array itself), it fills
that array in place and returns it.

>>> import pyad
>>> w = pyad.empty(3, 4)
>>> _ = pyad.nn.init.constant_(w, 0.5)
>>> float(w.sum())
6.0
"""
import functools
import math
import warnings

import numpy

from pyad._engine import Variable, _erfinv_array, get_array_module
from pyad.autograd.grad_mode import no_grad

__all__ = ["calculate_gain", "uniform_", "normal_", "constant_", "zeros_", "ones_",
           "xavier_uniform_", "xavier_normal_", "kaiming_uniform_", "kaiming_normal_",
           "trunc_normal_", "orthogonal_", "eye_", "dirac_", "sparse_"]


def _is_array(obj):
    # a NumPy or CuPy array (get_array_module knows CuPy's type when CuPy is installed)
    return not isinstance(obj, Variable) and (isinstance(obj, numpy.ndarray) or
                                              get_array_module(obj) is not numpy)


def _fills_arrays(init):
    """``init`` also fills a bare array in place, through a Variable sharing its memory
    (``Variable(array)`` never copies), and returns the array."""
    @functools.wraps(init)
    def fill(tensor, *args, **kwargs):
        if _is_array(tensor):
            init(Variable(tensor), *args, **kwargs)
            return tensor
        return init(tensor, *args, **kwargs)
    return fill


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
    if len(tensor.shape) < 2:
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
    from pyad._factories import _rng_for
    data = tensor.data
    xp = get_array_module(data)
    sample = draw(_rng_for(xp, generator, what), data.shape)
    return tensor.copy_(Variable(xp.asarray(sample, dtype=data.dtype)))


@_fills_arrays
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


@_fills_arrays
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


@_fills_arrays
def constant_(tensor, val):
    """Fill with the value ``val``.

    >>> import pyad
    >>> pyad.nn.init.constant_(pyad.empty(2), 3.0)
    tensor([3., 3.])
    """
    with no_grad():
        return tensor.fill_(val)


@_fills_arrays
def zeros_(tensor):
    """Fill with zeros.

    >>> import pyad
    >>> pyad.nn.init.zeros_(pyad.empty(2))
    tensor([0., 0.])
    """
    with no_grad():
        return tensor.zero_()


@_fills_arrays
def ones_(tensor):
    """Fill with ones.

    >>> import pyad
    >>> pyad.nn.init.ones_(pyad.empty(2))
    tensor([1., 1.])
    """
    with no_grad():
        return tensor.fill_(1.0)


@_fills_arrays
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


@_fills_arrays
def xavier_normal_(tensor, gain=1.0, generator=None):
    """Glorot normal: N(0, std^2) with std = gain * sqrt(2 / (fan_in + fan_out)).

    >>> import pyad
    >>> pyad.nn.init.xavier_normal_(pyad.empty(3, 5)).shape
    (3, 5)
    """
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return normal_(tensor, 0.0, gain * math.sqrt(2.0 / float(fan_in + fan_out)), generator)


@_fills_arrays
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
        warnings.warn("Initializing zero-element tensors is a no-op")
        return tensor
    fan = _fan(tensor, mode)
    bound = math.sqrt(3.0) * calculate_gain(nonlinearity, a) / math.sqrt(fan)
    return uniform_(tensor, -bound, bound, generator)


@_fills_arrays
def kaiming_normal_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    """He normal: N(0, std^2) with std = gain / sqrt(fan).

    >>> import pyad
    >>> pyad.nn.init.kaiming_normal_(pyad.empty(4, 9)).shape
    (4, 9)
    """
    if 0 in tensor.shape:
        warnings.warn("Initializing zero-element tensors is a no-op")
        return tensor
    fan = _fan(tensor, mode)
    return normal_(tensor, 0.0, calculate_gain(nonlinearity, a) / math.sqrt(fan),
                   generator)


@_fills_arrays
def trunc_normal_(tensor, mean=0.0, std=1.0, a=-2.0, b=2.0, generator=None):
    """Fill with samples from N(mean, std^2) truncated to [a, b], by inverse transform
    sampling as torch: uniform draws between the normal CDF's values at ``a`` and ``b``,
    mapped back through the inverse CDF (so no sample is ever rejected), then clamped to
    [a, b] against rounding.

    >>> import pyad
    >>> w = pyad.nn.init.trunc_normal_(pyad.empty(1000), std=2.0, a=-1.0, b=1.0)
    >>> bool((w.data >= -1).all() and (w.data <= 1).all())
    True
    """
    if mean < a - 2 * std or mean > b + 2 * std:
        warnings.warn("mean is more than 2 std from [a, b] in nn.init.trunc_normal_. The "
                      "distribution of values may be incorrect.", stacklevel=2)

    def cdf(v):                       # the standard normal's CDF
        return (1.0 + math.erf(v / math.sqrt(2.0))) / 2.0

    lo, hi = cdf((a - mean) / std), cdf((b - mean) / std)

    def draw(rng, shape):
        u = rng.uniform(2 * lo - 1, 2 * hi - 1, shape)
        xp = get_array_module(u)
        return xp.clip(_erfinv_array(u) * (std * math.sqrt(2.0)) + mean, a, b)

    with no_grad():
        return _fill_from(tensor, generator, draw, "trunc_normal_")


@_fills_arrays
def orthogonal_(tensor, gain=1, generator=None):
    """Fill with a (semi-)orthogonal matrix, as torch: the Q of the QR decomposition of a
    normal draw, its columns' signs fixed by R's diagonal so that Q is uniform over
    orthogonal matrices, times ``gain``. Dimensions past the first are flattened.

    >>> import pyad
    >>> w = pyad.nn.init.orthogonal_(pyad.empty(3, 5))
    >>> bool(abs(w.data @ w.data.T - numpy.eye(3)).max() < 1e-5)
    True
    """
    if tensor.ndim < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")
    if tensor.numel() == 0:
        return tensor                  # nothing to fill (torch does the same)
    rows = tensor.shape[0]
    cols = tensor.numel() // rows

    def draw(rng, shape):
        flat = rng.normal(0.0, 1.0, (rows, cols))
        xp = get_array_module(flat)
        if rows < cols:
            flat = flat.T
        q, r = xp.linalg.qr(flat)
        q = q * xp.sign(xp.diag(r))
        if rows < cols:
            q = q.T
        return (gain * q).reshape(shape)

    with no_grad():
        return _fill_from(tensor, generator, draw, "orthogonal_")


@_fills_arrays
def eye_(tensor):
    """Fill a 2-D Variable with the identity (ones on the main diagonal).

    >>> import pyad
    >>> pyad.nn.init.eye_(pyad.empty(2, 3))
    tensor([[1., 0., 0.],
            [0., 1., 0.]])
    """
    if tensor.ndim != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    with no_grad():
        tensor.zero_()
        n = min(tensor.shape)
        if n:
            tensor.diagonal().fill_(1)
        return tensor


@_fills_arrays
def sparse_(tensor, sparsity, std=0.01, generator=None):
    """Fill a 2-D Variable as a sparse matrix, as torch's ``nn.init.sparse_``: samples
    from N(0, std^2), then in each column ``ceil(sparsity * rows)`` entries, at rows
    from a random permutation, set to zero.

    >>> import pyad
    >>> w = pyad.nn.init.sparse_(pyad.empty(4, 3), sparsity=0.5)
    >>> [int((w[:, j] == 0).sum()) for j in range(3)]
    [2, 2, 2]
    """
    if tensor.ndim != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    import pyad
    rows, cols = tensor.shape
    num_zeros = int(math.ceil(sparsity * rows))
    with no_grad():
        normal_(tensor, 0, std, generator=generator)
        for col_idx in range(cols):
            row_indices = pyad.randperm(rows, generator=generator)
            zero_indices = row_indices[:num_zeros]
            tensor[zero_indices, col_idx] = 0
    return tensor


@_fills_arrays
def dirac_(tensor, groups=1):
    """Fill a 3-, 4- or 5-D convolution weight with the Dirac delta, so that the
    convolution keeps the identity of its input channels (per group).

    >>> import pyad
    >>> w = pyad.nn.init.dirac_(pyad.empty(2, 2, 3))
    >>> w[:, :, 1]
    tensor([[1., 0.],
            [0., 1.]])
    """
    if tensor.ndim not in (3, 4, 5):
        raise ValueError("Only tensors with 3, 4, or 5 dimensions are supported")
    out_channels = tensor.shape[0]
    if out_channels % groups != 0:
        raise ValueError("dim 0 must be divisible by groups")
    out_per_group = out_channels // groups
    n = min(out_per_group, tensor.shape[1])
    centre = tuple(s // 2 for s in tensor.shape[2:])
    with no_grad():
        tensor.zero_()
        data = tensor.data
        for g in range(groups):
            for d in range(n):
                data[(g * out_per_group + d, d) + centre] = 1
        return tensor


def _make_deprecated(new):
    old_name = new.__name__[:-1]

    def deprecated_init(*args, **kwargs):
        warnings.warn("`nn.init.%s` is now deprecated in favor of `nn.init.%s`."
                      % (old_name, new.__name__), FutureWarning, stacklevel=2)
        return new(*args, **kwargs)

    deprecated_init.__name__ = deprecated_init.__qualname__ = old_name
    deprecated_init.__doc__ = (
        "%s(...): the deprecated name of :func:`%s`, as torch's ``nn.init.%s`` (warns "
        "with torch's FutureWarning, then does the same)." % (old_name, new.__name__,
                                                              old_name))
    return deprecated_init


# torch's deprecated names without the trailing underscore (old scripts still call
# ``nn.init.xavier_uniform(m.weight)``): each warns, then does what the new one does
uniform = _make_deprecated(uniform_)
normal = _make_deprecated(normal_)
constant = _make_deprecated(constant_)
xavier_uniform = _make_deprecated(xavier_uniform_)
xavier_normal = _make_deprecated(xavier_normal_)
kaiming_uniform = _make_deprecated(kaiming_uniform_)
kaiming_normal = _make_deprecated(kaiming_normal_)
orthogonal = _make_deprecated(orthogonal_)
dirac = _make_deprecated(dirac_)
eye = _make_deprecated(eye_)
sparse = _make_deprecated(sparse_)

__all__ += ["uniform", "normal", "constant", "xavier_uniform", "xavier_normal",
            "kaiming_uniform", "kaiming_normal", "orthogonal", "dirac", "eye", "sparse"]


# torch's private helpers of nn.init, which public code (timm's trunc_normal_, ...) calls
# directly: each fills in place without recording the op, as torch's
def _no_grad_uniform_(tensor, a, b, generator=None):
    return uniform_(tensor, a, b, generator)


def _no_grad_normal_(tensor, mean, std, generator=None):
    return normal_(tensor, mean, std, generator)


def _no_grad_trunc_normal_(tensor, mean, std, a, b, generator=None):
    return trunc_normal_(tensor, mean, std, a, b, generator)


@_fills_arrays
def _no_grad_fill_(tensor, val):
    with no_grad():
        return tensor.fill_(val)


@_fills_arrays
def _no_grad_zero_(tensor):
    with no_grad():
        return tensor.zero_()


def _calculate_correct_fan(tensor, mode):
    return _fan(tensor, mode)
