"""The hook-based ``pyad.nn.utils.spectral_norm`` and ``remove_spectral_norm``, as
torch's: the parameter ``<name>_orig``, the power-iteration buffers ``<name>_u`` and
``<name>_v``, and a forward pre-hook that sets ``module.<name>`` to
``<name>_orig / sigma``."""
import numpy

import pyad
from pyad._engine import Variable
from pyad.autograd.grad_mode import no_grad
from pyad.nn import functional as F
from pyad.nn.parameter import Parameter, UninitializedParameter

__all__ = ["SpectralNorm", "SpectralNormLoadStateDictPreHook", "SpectralNormStateDictHook",
           "spectral_norm", "remove_spectral_norm"]


class SpectralNorm:
    """The forward pre-hook of `spectral_norm` (torch's ``SpectralNorm``)."""

    _version = 1     # of the state dict layout: since 1, <name>_v is saved and <name> not

    def __init__(self, name="weight", n_power_iterations=1, dim=0, eps=1e-12):
        self.name = name
        self.dim = dim
        if n_power_iterations <= 0:
            raise ValueError("Expected n_power_iterations to be positive, but got "
                             "n_power_iterations=%d" % n_power_iterations)
        self.n_power_iterations = n_power_iterations
        self.eps = eps

    def reshape_weight_to_matrix(self, weight):
        """The weight as a matrix with ``dim`` first and the other dims flattened."""
        weight_mat = weight
        if self.dim != 0:
            weight_mat = weight_mat.permute(self.dim, *[d for d in range(weight_mat.dim())
                                                        if d != self.dim])
        return weight_mat.reshape(weight_mat.shape[0], -1)

    def compute_weight(self, module, do_power_iteration):
        """``<name>_orig / sigma``; with ``do_power_iteration`` the buffers ``<name>_u``
        and ``<name>_v`` first take ``n_power_iterations`` steps (in place), as torch
        (v first, then u)."""
        weight = getattr(module, self.name + "_orig")
        u = getattr(module, self.name + "_u")
        v = getattr(module, self.name + "_v")
        weight_mat = self.reshape_weight_to_matrix(weight)
        if do_power_iteration:
            with no_grad():
                mat = weight_mat.detach()
                for _ in range(self.n_power_iterations):
                    v.copy_(F.normalize(pyad.mv(mat.t(), u), dim=0, eps=self.eps))
                    u.copy_(F.normalize(pyad.mv(mat, v), dim=0, eps=self.eps))
            # clones, so that the next in-place step does not touch this call's graph
            u = u.clone()
            v = v.clone()
        sigma = pyad.dot(u, pyad.mv(weight_mat, v))
        return weight / sigma

    def remove(self, module):
        with no_grad():
            weight = self.compute_weight(module, do_power_iteration=False)
        delattr(module, self.name)
        delattr(module, self.name + "_u")
        delattr(module, self.name + "_v")
        delattr(module, self.name + "_orig")
        module.register_parameter(self.name, Parameter(weight.detach()))

    def __call__(self, module, inputs):
        setattr(module, self.name,
                self.compute_weight(module, do_power_iteration=module.training))

    def _solve_v_and_rescale(self, weight_mat, u, target_sigma):
        # the v with u = normalize(W v) and u^T W v = target_sigma (for old checkpoints)
        v = weight_mat.t().mm(weight_mat).pinverse().mm(weight_mat.t()).mm(
            u.unsqueeze(1)).squeeze(1)
        return v.mul_(target_sigma / pyad.dot(u, pyad.mv(weight_mat, v)))

    @staticmethod
    def apply(module, name, n_power_iterations, dim, eps):
        for _, hook, _ in module._forward_pre_hooks:
            if isinstance(hook, SpectralNorm) and hook.name == name:
                raise RuntimeError("Cannot register two spectral_norm hooks on the same "
                                   "parameter %s" % name)
        fn = SpectralNorm(name, n_power_iterations, dim, eps)
        weight = module._parameters[name]
        if weight is None:
            raise ValueError("`SpectralNorm` cannot be applied as parameter `%s` is None"
                             % name)
        if isinstance(weight, UninitializedParameter):
            raise ValueError("The module passed to `SpectralNorm` can't have uninitialized "
                             "parameters. Make sure to run the dummy forward before applying "
                             "spectral normalization")
        with no_grad():
            weight_mat = fn.reshape_weight_to_matrix(weight)
            h, w = weight_mat.shape
            u = F.normalize(pyad.randn(h, dtype=weight.dtype, device=weight.device), dim=0,
                            eps=fn.eps)
            v = F.normalize(pyad.randn(w, dtype=weight.dtype, device=weight.device), dim=0,
                            eps=fn.eps)
        delattr(module, fn.name)
        module.register_parameter(fn.name + "_orig", weight)
        # a plain attribute until the first forward replaces it (torch's weight.data)
        setattr(module, fn.name, weight.detach())
        module.register_buffer(fn.name + "_u", u)
        module.register_buffer(fn.name + "_v", v)
        module.register_forward_pre_hook(fn)
        module._register_state_dict_hook(SpectralNormStateDictHook(fn))
        module._register_load_state_dict_pre_hook(SpectralNormLoadStateDictPreHook(fn))
        return fn


def _as_variable(value):
    return value if isinstance(value, Variable) else Variable(numpy.asarray(value))


class SpectralNormLoadStateDictPreHook:
    """Loads a state dict from before version 1 (``<name>`` saved, ``<name>_v`` not):
    ``<name>_v`` is solved from the saved weight, as torch."""

    def __init__(self, fn):
        self.fn = fn

    def __call__(self, state_dict, prefix, local_metadata, strict, missing_keys,
                 unexpected_keys, error_msgs):
        fn = self.fn
        version = local_metadata.get("spectral_norm", {}).get(fn.name + ".version", None)
        if version is None or version < 1:
            weight_key = prefix + fn.name
            if version is None and all(weight_key + s in state_dict
                                       for s in ("_orig", "_u", "_v")) \
                    and weight_key not in state_dict:
                # a version-1 layout without metadata (a plain dict)
                return
            has_missing_keys = False
            for suffix in ("_orig", "", "_u"):
                key = weight_key + suffix
                if key not in state_dict:
                    has_missing_keys = True
                    if strict:
                        missing_keys.append(key)
            if has_missing_keys:
                return
            with no_grad():
                # (pyad's load_state_dict also takes arrays)
                weight_orig = _as_variable(state_dict[weight_key + "_orig"])
                weight = _as_variable(state_dict.pop(weight_key))
                sigma = (weight_orig / weight).mean()
                weight_mat = fn.reshape_weight_to_matrix(weight_orig)
                u = _as_variable(state_dict[weight_key + "_u"])
                state_dict[weight_key + "_v"] = fn._solve_v_and_rescale(weight_mat, u, sigma)


class SpectralNormStateDictHook:
    """Writes the layout version into the state dict's metadata, as torch."""

    def __init__(self, fn):
        self.fn = fn

    def __call__(self, module, state_dict, prefix, local_metadata):
        if "spectral_norm" not in local_metadata:
            local_metadata["spectral_norm"] = {}
        key = self.fn.name + ".version"
        if key in local_metadata["spectral_norm"]:
            raise RuntimeError("Unexpected key in metadata['spectral_norm']: %s" % key)
        local_metadata["spectral_norm"][key] = self.fn._version


def spectral_norm(module, name="weight", n_power_iterations=1, eps=1e-12, dim=None):
    """Replace the parameter ``module.<name>`` by ``<name>_orig / sigma``, ``sigma`` the
    power-iteration estimate of its largest singular value (``dim`` first; ``None``: 0,
    or 1 for the transposed convolutions), recomputed by a forward pre-hook; the buffers
    ``<name>_u`` and ``<name>_v`` take ``n_power_iterations`` steps per call in training
    mode only. Returns ``module``.

    >>> import pyad
    >>> lin = pyad.nn.utils.spectral_norm(pyad.nn.Linear(4, 3))
    >>> list(lin.state_dict())
    ['bias', 'weight_orig', 'weight_u', 'weight_v']
    """
    if dim is None:
        from pyad.nn.utils.parametrizations import _transposed_convolutions
        dim = 1 if isinstance(module, _transposed_convolutions()) else 0
    SpectralNorm.apply(module, name, n_power_iterations, dim, eps)
    return module


def remove_spectral_norm(module, name="weight"):
    """Undo `spectral_norm`: ``module.<name>`` is a plain parameter again holding
    ``<name>_orig / sigma`` (no power step). Returns ``module``."""
    for attr, what in (("_forward_pre_hooks", SpectralNorm),
                       ("_state_dict_hooks", SpectralNormStateDictHook),
                       ("_load_state_dict_pre_hooks", SpectralNormLoadStateDictPreHook)):
        hooks = module.__dict__.get(attr) or []
        for i, (_, hook, _) in enumerate(hooks):
            if isinstance(hook, what) and \
                    (hook if what is SpectralNorm else hook.fn).name == name:
                if what is SpectralNorm:
                    hook.remove(module)
                del hooks[i]
                break
        else:
            if what is SpectralNorm:
                raise ValueError("spectral_norm of '%s' not found in %s" % (name, module))
    return module
