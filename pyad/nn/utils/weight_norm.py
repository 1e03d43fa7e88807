"""The hook-based ``pyad.nn.utils.weight_norm`` and ``remove_weight_norm``, as torch's
(deprecated there in favour of `pyad.nn.utils.parametrizations.weight_norm`, with a
FutureWarning): the parameters ``<name>_g`` and ``<name>_v`` and a forward pre-hook that
recomputes ``module.<name>`` before each call."""
import warnings

from pyad.nn.parameter import Parameter, UninitializedParameter
from pyad.nn.utils.parametrizations import _norm_except_dim, _weight_norm

__all__ = ["WeightNorm", "weight_norm", "remove_weight_norm"]


class WeightNorm:
    """The forward pre-hook of `weight_norm`: sets ``module.<name>`` to
    ``g * v / ||v||`` from the parameters ``<name>_g`` and ``<name>_v``."""

    def __init__(self, name, dim):
        self.name = name
        self.dim = -1 if dim is None else dim

    def compute_weight(self, module):
        g = getattr(module, self.name + "_g")
        v = getattr(module, self.name + "_v")
        return _weight_norm(v, g, self.dim)

    @staticmethod
    def apply(module, name, dim):
        warnings.warn("`torch.nn.utils.weight_norm` is deprecated in favor of "
                      "`torch.nn.utils.parametrizations.weight_norm`.", FutureWarning,
                      stacklevel=3)
        for _, hook, _ in module._forward_pre_hooks:
            if isinstance(hook, WeightNorm) and hook.name == name:
                raise RuntimeError("Cannot register two weight_norm hooks on the same "
                                   "parameter %s" % name)
        fn = WeightNorm(name, dim)
        weight = getattr(module, name)
        if isinstance(weight, UninitializedParameter):
            raise ValueError("The module passed to `WeightNorm` can't have uninitialized "
                             "parameters. Make sure to run the dummy forward before applying "
                             "weight normalization")
        del module._parameters[name]
        module.register_parameter(name + "_g",
                                  Parameter(_norm_except_dim(weight, fn.dim).detach()))
        module.register_parameter(name + "_v", Parameter(weight.detach()))
        setattr(module, name, fn.compute_weight(module))
        module.register_forward_pre_hook(fn)
        return fn

    def remove(self, module):
        weight = self.compute_weight(module)
        delattr(module, self.name)
        del module._parameters[self.name + "_g"]
        del module._parameters[self.name + "_v"]
        setattr(module, self.name, Parameter(weight.detach()))

    def __call__(self, module, inputs):
        setattr(module, self.name, self.compute_weight(module))


def weight_norm(module, name="weight", dim=0):
    """Replace the parameter ``module.<name>`` by ``g * v / ||v||`` (the norm over every
    dim but ``dim``; ``dim=None``: the whole tensor), recomputed by a forward pre-hook
    from the new parameters ``<name>_g`` and ``<name>_v``. Deprecated, as in torch
    (FutureWarning): prefer `pyad.nn.utils.parametrizations.weight_norm`. Returns
    ``module``.

    >>> import warnings, pyad
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     lin = pyad.nn.utils.weight_norm(pyad.nn.Linear(3, 2))
    >>> sorted(name for name, _ in lin.named_parameters())
    ['bias', 'weight_g', 'weight_v']
    """
    WeightNorm.apply(module, name, dim)
    return module


def remove_weight_norm(module, name="weight"):
    """Undo `weight_norm`: ``module.<name>`` is a plain parameter again, holding the
    current normalised weight. Returns ``module``."""
    hooks = module._forward_pre_hooks
    for i, (_, hook, _) in enumerate(hooks):
        if isinstance(hook, WeightNorm) and hook.name == name:
            hook.remove(module)
            del hooks[i]
            return module
    raise ValueError("weight_norm of '%s' not found in %s" % (name, module))
