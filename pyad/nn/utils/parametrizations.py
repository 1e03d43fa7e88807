"""``pyad.nn.utils.parametrizations``: `weight_norm`, `spectral_norm` and `orthogonal`
as parametrizations (`pyad.nn.utils.parametrize`), as ``torch.nn.utils.parametrizations``.

>>> import pyad
>>> from pyad.nn.utils.parametrizations import weight_norm
>>> lin = weight_norm(pyad.nn.Linear(3, 2))
>>> [(name, tuple(p.shape)) for name, p in lin.named_parameters()]
[('bias', (2,)), ('parametrizations.weight.original0', (2, 1)), ('parametrizations.weight.original1', (2, 3))]
"""

import numpy

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


# -- orthogonal --------------------------------------------------------------------------

def _qr_raw(A):
    # torch.geqrf: (the reflectors with R above the diagonal, tau), as NumPy's raw QR
    xp = pyad.get_array_module(A.data)
    h, tau = xp.linalg.qr(A.data, mode="raw")
    return Variable(xp.ascontiguousarray(xp.swapaxes(h, -1, -2))), Variable(tau)


def _sgn(x):
    return x.sgn() if x.is_complex() else x.sign()


def _is_orthogonal(Q):
    n, k = Q.shape[-2], Q.shape[-1]
    Id = pyad.eye(k, dtype=Q.dtype, device=Q.device)
    eps = 10.0 * n * numpy.finfo(Q.dtype).eps
    return pyad.allclose(Q.mH @ Q, Id, atol=eps)


def _make_orthogonal(A):
    # Q of A's QR, its columns' signs chosen so that R has a positive diagonal
    X, tau = _qr_raw(A)
    Q = pyad.linalg.householder_product(X, tau)
    return Q * _sgn(X.diagonal(dim1=-2, dim2=-1)).unsqueeze(-2)


_ORTHOGONAL_MAPS = ("matrix_exp", "cayley", "householder")


class _Orthogonal(Module):
    def __init__(self, weight, orthogonal_map, *, use_trivialization=True):
        super().__init__()
        if weight.is_complex() and orthogonal_map == "householder":
            raise ValueError("The householder parametrization does not support complex "
                             "tensors.")
        self.shape = weight.shape
        self.orthogonal_map = orthogonal_map
        if use_trivialization:
            self.register_buffer("base", None)

    def forward(self, X):
        n, k = X.shape[-2], X.shape[-1]
        transposed = n < k
        if transposed:
            X = X.mT
            n, k = k, n
        if self.orthogonal_map in ("matrix_exp", "cayley"):
            # a skew-symmetric (skew-Hermitian) A from the lower triangle, then exp(A)
            # or the Cayley map (I - A/2)^-1 (I + A/2)
            X = X.tril()
            if n != k:
                X = pyad.cat([X, X.new_zeros(n, n - k).expand(*X.shape[:-2], -1, -1)],
                             dim=-1)
            A = X - X.mH
            if self.orthogonal_map == "matrix_exp":
                Q = pyad.linalg.matrix_exp(A)
            else:
                Id = pyad.eye(n, dtype=A.dtype, device=A.device)
                Q = pyad.linalg.solve(Id - 0.5 * A, Id + 0.5 * A)
            if n != k:
                Q = Q[..., :k]
        else:
            A = X.tril(diagonal=-1)
            tau = 2.0 / (1.0 + (A * A).sum(dim=-2))
            Q = pyad.linalg.householder_product(A, tau)
            # torch's: the diagonal truncated to an integer flips or zeroes each column
            Q = Q * X.diagonal(dim1=-2, dim2=-1).int().unsqueeze(-2)
        if hasattr(self, "base"):
            Q = self.base @ Q
        if transposed:
            Q = Q.mT
        return Q

    def right_inverse(self, Q):
        with no_grad():
            if Q.shape != self.shape:
                raise ValueError("Expected a matrix or batch of matrices of shape %s. Got a "
                                 "tensor of shape %s." % (self.shape, Q.shape))
            Q_init = Q
            n, k = Q.shape[-2], Q.shape[-1]
            transpose = n < k
            if transpose:
                Q = Q.mT
                n, k = k, n
            if not hasattr(self, "base"):
                if self.orthogonal_map in ("cayley", "matrix_exp"):
                    raise NotImplementedError(
                        "It is not possible to assign to the matrix exponential or the "
                        "Cayley parametrizations when use_trivialization=False.")
                # the reflectors of Q's QR, with the signs of R's diagonal on it
                A, tau = _qr_raw(Q)
                diag = A.diagonal(dim1=-2, dim2=-1)
                sign = diag.sign()
                sign = pyad.where(tau == 0.0, -sign, sign)
                diag.copy_(sign)
                return A.mT if transpose else A
            if n == k:
                Q = Q.clone() if _is_orthogonal(Q) else _make_orthogonal(Q)
            else:
                N = pyad.randn(*(tuple(Q.shape[:-2]) + (n, n - k)), dtype=Q.dtype,
                               device=Q.device)
                Q = _make_orthogonal(pyad.cat([Q, N], dim=-1))
            self.base = Q
            # the parametrization of -Id is Id, so the weight is `base` at first
            neg_Id = pyad.zeros_like(Q_init)
            neg_Id.diagonal(dim1=-2, dim2=-1).fill_(-1.0)
            return neg_Id


def orthogonal(module, name="weight", orthogonal_map=None, *, use_trivialization=True):
    """Parametrize ``module.<name>`` (a matrix or a batch of them) as an orthogonal
    (unitary) matrix, as torch's: ``orthogonal_map`` ``"matrix_exp"`` (the default for
    square or complex matrices), ``"cayley"`` or ``"householder"`` (the default
    otherwise) maps the unconstrained ``original`` to it. With ``use_trivialization``
    (the default) the weight is ``base @ map(original)``, the buffer ``base`` set from
    the current weight (made orthogonal by a QR, with random extra columns for a
    non-square one) and ``original`` starting at ``-I``. Returns ``module``.

    >>> import pyad
    >>> from pyad.nn.utils.parametrizations import orthogonal
    >>> lin = orthogonal(pyad.nn.Linear(3, 3).double())
    >>> Q = lin.weight
    >>> bool(pyad.allclose(Q.T @ Q, pyad.eye(3, dtype=pyad.float64)))
    True
    """
    weight = getattr(module, name, None)
    if not isinstance(weight, Variable):
        raise ValueError("Module '%s' has no parameter or buffer with name '%s'"
                         % (module, name))
    if weight.ndim < 2:
        raise ValueError("Expected a matrix or batch of matrices. Got a tensor of %d "
                         "dimensions." % weight.ndim)
    if orthogonal_map is None:
        orthogonal_map = ("matrix_exp" if weight.shape[-2] == weight.shape[-1]
                          or weight.is_complex() else "householder")
    if orthogonal_map not in _ORTHOGONAL_MAPS:
        raise ValueError('orthogonal_map has to be one of "matrix_exp", "cayley", '
                         '"householder". Got: %s' % (orthogonal_map,))
    orth = _Orthogonal(weight, orthogonal_map, use_trivialization=use_trivialization)
    parametrize.register_parametrization(module, name, orth, unsafe=True)
    return module
