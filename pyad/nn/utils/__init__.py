"""``pyad.nn.utils``: gradient clipping, parameter/vector conversion, weight and
spectral normalisation, ``skip_init``, conv/linear-batch-norm fusion, and the submodules
``rnn``, ``parametrize``, ``parametrizations``, ``prune``, ``stateless`` and ``fusion``, as
``torch.nn.utils``.

>>> import pyad
>>> lin = pyad.nn.Linear(3, 1)
>>> lin(pyad.ones(2, 3)).sum().backward()
>>> norm = pyad.nn.utils.clip_grad_norm_(lin.parameters(), max_norm=0.5)
>>> total = sum(float((p.grad * p.grad).sum()) for p in lin.parameters()) ** 0.5
>>> round(total, 4) <= 0.5
True
"""
import inspect

import pyad
from pyad._engine import Variable
from pyad.autograd.grad_mode import no_grad
from pyad.nn.utils import fusion, parametrizations, parametrize, prune, rnn, stateless
from pyad.nn.utils.fusion import (fuse_conv_bn_eval, fuse_conv_bn_weights, fuse_linear_bn_eval,
                                  fuse_linear_bn_weights)
from pyad.nn.utils.spectral_norm import remove_spectral_norm, spectral_norm
from pyad.nn.utils.weight_norm import remove_weight_norm, weight_norm

__all__ = ["clip_grad_norm_", "clip_grad_norm", "clip_grad_value_", "get_total_norm",
           "clip_grads_with_norm_", "parameters_to_vector", "vector_to_parameters", "rnn",
           "parametrize", "parametrizations", "prune", "stateless", "weight_norm",
           "remove_weight_norm", "spectral_norm", "remove_spectral_norm", "skip_init",
           "convert_conv2d_weight_memory_format", "convert_conv3d_weight_memory_format",
           "fusion", "fuse_conv_bn_eval", "fuse_conv_bn_weights", "fuse_linear_bn_eval",
           "fuse_linear_bn_weights"]


def _params(parameters):
    if isinstance(parameters, Variable):
        return [parameters]
    return list(parameters)


def _grads(parameters):
    return [p.grad for p in _params(parameters) if p.grad is not None]


def get_total_norm(tensors, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """The ``norm_type`` norm of the norms of ``tensors`` (as if they were concatenated
    into one vector), as a 0-d Variable."""
    tensors = [tensors] if isinstance(tensors, Variable) else list(tensors)
    norm_type = float(norm_type)
    if not tensors:
        return pyad.tensor(0.0)
    with no_grad():
        norms = [pyad.linalg.vector_norm(t.detach(), norm_type) for t in tensors]
        total = pyad.linalg.vector_norm(pyad.stack(norms), norm_type)
    if error_if_nonfinite and not bool(pyad.isfinite(total).all()):
        raise RuntimeError(
            "The total norm of order %s for gradients from `parameters` is non-finite, so "
            "it cannot be clipped. To disable this error and scale the gradients by the "
            "non-finite norm anyway, set `error_if_nonfinite=False`" % norm_type)
    return total


def clip_grads_with_norm_(parameters, max_norm, total_norm, foreach=None):
    """Scale the gradients of ``parameters`` in place by
    ``min(1, max_norm / (total_norm + 1e-6))``."""
    grads = _grads(parameters)
    if not grads:
        return
    with no_grad():
        coef = pyad.clamp(float(max_norm) / (total_norm + 1e-6), max=1.0)
        for g in grads:
            g.mul_(coef.to(dtype=g.dtype))


def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False,
                    foreach=None):
    """Clip the gradient norm of ``parameters`` (all gradients as one vector) to
    ``max_norm`` in place; return the total norm before clipping (a 0-d Variable)."""
    params = _params(parameters)
    grads = _grads(params)
    if not grads:
        return pyad.tensor(0.0)
    total = get_total_norm(grads, norm_type, error_if_nonfinite, foreach)
    clip_grads_with_norm_(params, max_norm, total, foreach)
    return total


def clip_grad_norm(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False,
                   foreach=None):
    """Deprecated alias of `clip_grad_norm_` (as torch's, with a ``FutureWarning``)."""
    import warnings
    warnings.warn("`torch.nn.utils.clip_grad_norm` is now deprecated in favor of "
                  "`torch.nn.utils.clip_grad_norm_`.", FutureWarning, stacklevel=2)
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)


def clip_grad_value_(parameters, clip_value, foreach=None):
    """Clamp every gradient of ``parameters`` to ``[-clip_value, clip_value]`` in place."""
    clip_value = float(clip_value)
    with no_grad():
        for g in _grads(parameters):
            g.clamp_(-clip_value, clip_value)


def parameters_to_vector(parameters):
    """Flatten ``parameters`` into one 1-D Variable (differentiable)."""
    params = _params(parameters)
    if not params:
        raise RuntimeError("parameters_to_vector(): expected a non-empty list of Variables")
    return pyad.cat([p.reshape(-1) for p in params])


def vector_to_parameters(vec, parameters):
    """Copy the slices of the 1-D Variable ``vec`` into ``parameters`` (their ``.data``)."""
    if not isinstance(vec, Variable):
        raise TypeError("expected torch.Tensor, but got: %s" % type(vec).__name__)
    params = _params(parameters)
    total = sum(p.numel() for p in params)
    if vec.dim() != 1 or vec.numel() != total:
        raise RuntimeError("vector_to_parameters(): vec must be 1-D of %d elements (the "
                           "parameters' total), got shape %s" % (total, tuple(vec.shape)))
    pointer = 0
    for p in params:
        n = p.numel()
        p.data = vec.data[pointer:pointer + n].reshape(p.shape)
        pointer += n


def skip_init(module_cls, *args, **kwargs):
    """Build ``module_cls(*args, **kwargs)`` without drawing its initial values from the
    random generator, as torch's (which builds it on the meta device and allocates it
    uninitialised): the parameters' values are unspecified, to be set by the caller;
    the generator's state is as before the call. The class must accept ``device``.

    >>> import pyad
    >>> lin = pyad.nn.utils.skip_init(pyad.nn.Linear, 3, 2)
    >>> lin.weight.shape
    (2, 3)
    """
    if not (isinstance(module_cls, type) and issubclass(module_cls, pyad.nn.Module)):
        raise RuntimeError("Expected a Module; got %s" % (module_cls,))
    if "device" not in inspect.signature(module_cls).parameters:
        raise RuntimeError("Module must support a 'device' arg to skip initialization")
    kwargs["device"] = kwargs.pop("device", "cpu")
    state = pyad.get_rng_state()
    try:
        return module_cls(*args, **kwargs)
    finally:
        pyad.set_rng_state(state)


def _convert_conv_weight_memory_format(module, memory_format, classes):
    if isinstance(module, classes):
        module.weight.data = module.weight.detach().contiguous(
            memory_format=memory_format).data
    for child in module.children():
        _convert_conv_weight_memory_format(child, memory_format, classes)
    return module


def convert_conv2d_weight_memory_format(module, memory_format):
    """Lay out the weight of every ``Conv2d`` / ``ConvTranspose2d`` in ``module``
    (recursively) in ``memory_format`` (``pyad.channels_last`` or
    ``pyad.contiguous_format``), in place, and return ``module``, as torch's. A
    convolution with a channels-last weight gives a channels-last output.

    >>> import pyad
    >>> m = pyad.nn.utils.convert_conv2d_weight_memory_format(
    ...     pyad.nn.Sequential(pyad.nn.Conv2d(8, 4, 3)), pyad.channels_last)
    >>> m[0].weight.is_contiguous(memory_format=pyad.channels_last)
    True
    """
    return _convert_conv_weight_memory_format(
        module, memory_format, (pyad.nn.Conv2d, pyad.nn.ConvTranspose2d))


def convert_conv3d_weight_memory_format(module, memory_format):
    """Lay out the weight of every ``Conv3d`` / ``ConvTranspose3d`` in ``module``
    (recursively) in ``memory_format`` (``pyad.channels_last_3d`` or
    ``pyad.contiguous_format``), in place, and return ``module``, as torch's.

    >>> import pyad
    >>> m = pyad.nn.utils.convert_conv3d_weight_memory_format(
    ...     pyad.nn.Conv3d(8, 4, 3), pyad.channels_last_3d)
    >>> m.weight.is_contiguous(memory_format=pyad.channels_last_3d)
    True
    """
    return _convert_conv_weight_memory_format(
        module, memory_format, (pyad.nn.Conv3d, pyad.nn.ConvTranspose3d))


# torch's module paths of the functions above (torch.nn.utils.clip_grad, ...)
from pyad.nn.utils import clip_grad, convert_parameters, memory_format  # noqa: E402,F401
