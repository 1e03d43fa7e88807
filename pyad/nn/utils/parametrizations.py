"""``pyad.nn.utils.parametrizations``: `weight_norm` and `spectral_norm` as
parametrizations (`pyad.nn.utils.parametrize`), as ``torch.nn.utils.parametrizations``.

>>> import pyad
>>> from pyad.nn.utils.parametrizations import weight_norm
>>> lin = weight_norm(pyad.nn.Linear(3, 2))
>>> [(name, tuple(p.shape)) for name, p in lin.named_parameters()]
[('bias', (2,)), ('parametrizations.weight.original0', (2, 1)), ('parametrizations.weight.original1', (2, 3))]
"""
import pyad
from pyad._engine import Variable
from pyad.autograd.grad_mode import no_grad
from pyad.nn import functional as F
from pyad.nn.modules import Module
from pyad.nn.utils import parametrize

__all__ = ["orthogonal", "spectral_norm", "weight_norm"]


def _norm_except_dim(v, dim):
    # torch.norm_except_dim(v, 2, dim): the 2-norm over every dim but `dim`, kept as
    # size-1 dims; dim == -1 means the norm of the whole tensor (a 0-d result)
    if dim == -1:
        return pyad.linalg.vector_norm(v)
    dim = dim % v.dim()
    if v.dim() == 1:
        return v.abs()
    others = tuple(d for d in range(v.dim()) if d != dim)
    return pyad.linalg.vector_norm(v, 2, dim=others, keepdim=True)


def _weight_norm(v, g, dim):
    # torch._weight_norm: v rescaled to the norms g along `dim`
    return v * (g / _norm_except_dim(v, dim))


class _WeightNorm(Module):
    def __init__(self, dim=0):
        super().__init__()
        self.dim = -1 if dim is None else dim

    def forward(self, weight_g, weight_v):
        return _weight_norm(weight_v, weight_g, self.dim)

    def right_inverse(self, weight):
        return _norm_except_dim(weight, self.dim), weight


def weight_norm(module, name="weight", dim=0):
    """Parametrize ``module.<name>`` as ``g * v / ||v||`` (the norm over every dim but
    ``dim``; ``dim=None`` is the whole tensor's norm): ``original0`` is the magnitude
    ``g``, ``original1`` the direction ``v``, both starting from the current weight.
    A state dict saved with the legacy `pyad.nn.utils.weight_norm` (``<name>_g``,
    ``<name>_v``) loads. Returns ``module``.

    >>> import pyad
    >>> from pyad.nn.utils.parametrizations import weight_norm
    >>> lin = weight_norm(pyad.nn.Linear(3, 2))
    >>> g = lin.parametrizations.weight.original0
    >>> bool(pyad.allclose(pyad.linalg.vector_norm(lin.weight, dim=1), g.squeeze(1)))
    True
    """
    parametrize.register_parametrization(module, name, _WeightNorm(dim), unsafe=True)

    def _weight_norm_compat_hook(state_dict, prefix, local_metadata, strict, missing_keys,
                                 unexpected_keys, error_msgs):
        g_key = prefix + name + "_g"
        v_key = prefix + name + "_v"
        if g_key in state_dict and v_key in state_dict:
            original0 = state_dict.pop(g_key)
            original1 = state_dict.pop(v_key)
            state_dict[prefix + "parametrizations." + name + ".original0"] = original0
            state_dict[prefix + "parametrizations." + name + ".original1"] = original1

    module._register_load_state_dict_pre_hook(_weight_norm_compat_hook)
    return module


class _SpectralNorm(Module):
    def __init__(self, weight, n_power_iterations=1, dim=0, eps=1e-12):
        super().__init__()
        ndim = weight.ndim
        if dim >= ndim or dim < -ndim:
            raise IndexError("Dimension out of range (expected to be in range of [-%d, %d] "
                             "but got %d)" % (ndim, ndim - 1, dim))
        if n_power_iterations <= 0:
            raise ValueError("Expected n_power_iterations to be positive, but got "
                             "n_power_iterations=%d" % n_power_iterations)
        self.dim = dim if dim >= 0 else dim + ndim
        self.eps = eps
        if ndim > 1:
            self.n_power_iterations = n_power_iterations
            weight_mat = self._reshape_weight_to_matrix(weight.detach())
            h, w = weight_mat.shape
            u = pyad.randn(h, dtype=weight.dtype, device=weight.device)
            v = pyad.randn(w, dtype=weight.dtype, device=weight.device)
            self.register_buffer("_u", F.normalize(u, dim=0, eps=self.eps))
            self.register_buffer("_v", F.normalize(v, dim=0, eps=self.eps))
            self._power_method(weight_mat, 15)

    def _reshape_weight_to_matrix(self, weight):
        # the matrix whose largest singular value is the weight's spectral norm: `dim`
        # first, the rest flattened
        if self.dim != 0:
            weight = weight.permute(self.dim, *(d for d in range(weight.dim())
                                                if d != self.dim))
        return weight.flatten(1)

    def _power_method(self, weight_mat, n_power_iterations):
        # u and v are updated in place (torch's normalize(..., out=)): the buffers stay
        # the same objects
        with no_grad():
            weight_mat = weight_mat.detach()
            for _ in range(n_power_iterations):
                self._u.copy_(F.normalize(pyad.mv(weight_mat, self._v), dim=0, eps=self.eps))
                self._v.copy_(F.normalize(pyad.mv(weight_mat.mH, self._u), dim=0,
                                          eps=self.eps))

    def forward(self, weight):
        if weight.ndim == 1:
            return F.normalize(weight, dim=0, eps=self.eps)
        weight_mat = self._reshape_weight_to_matrix(weight)
        if self.training:
            self._power_method(weight_mat, self.n_power_iterations)
        u = self._u.clone()
        v = self._v.clone()
        sigma = pyad.vdot(u, pyad.mv(weight_mat, v))
        return weight / sigma

    def right_inverse(self, value):
        return value


def _transposed_convolutions():
    from pyad import nn
    return tuple(getattr(nn, n) for n in ("ConvTranspose1d", "ConvTranspose2d",
                                          "ConvTranspose3d") if hasattr(nn, n))


def spectral_norm(module, name="weight", n_power_iterations=1, eps=1e-12, dim=None):
    """Parametrize ``module.<name>`` as ``W / sigma(W)``, ``sigma`` the largest singular
    value of ``W`` reshaped to a matrix with ``dim`` first (``dim=None``: 0, or 1 for
    the transposed convolutions), estimated by power iteration: the buffers
    ``parametrizations.<name>.0._u`` and ``._v`` take ``n_power_iterations`` steps on
    each access in training mode (15 at registration) and none in eval mode. A 1-D
    tensor is simply normalised. Returns ``module``.

    >>> import pyad
    >>> from pyad.nn.utils.parametrizations import spectral_norm
    >>> lin = spectral_norm(pyad.nn.Linear(4, 3))
    >>> sorted(lin.parametrizations.weight[0]._buffers)
    ['_u', '_v']
    >>> round(float(pyad.linalg.matrix_norm(lin.weight, ord=2)), 2)
    1.0
    """
    weight = getattr(module, name, None)
    if not isinstance(weight, Variable):
        raise ValueError("Module '%s' has no parameter or buffer with name '%s'"
                         % (module, name))
    if dim is None:
        dim = 1 if isinstance(module, _transposed_convolutions()) else 0
    parametrize.register_parametrization(
        module, name, _SpectralNorm(weight, n_power_iterations, dim, eps))
    return module


def orthogonal(module, name="weight", orthogonal_map=None, *, use_trivialization=True):
    """Not available in pyad: torch's maps need ``matrix_exp``, ``geqrf`` and
    ``householder_product``, which pyad does not have; raises NotImplementedError."""
    raise NotImplementedError("orthogonal(): the orthogonal parametrization is not "
                              "implemented in pyad (it needs matrix_exp, geqrf and "
                              "householder_product)")
