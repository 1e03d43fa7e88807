"""``torch.distributions.exp_family``: `ExponentialFamily`, the base of distributions of
the form ``p(x; theta) = exp(<t(x), theta> - F(theta) + k(x))``.

Subclasses give ``_natural_params`` (the ``theta``), ``_log_normalizer`` (``F``) and
``_mean_carrier_measure`` (``E[k(x)]``); ``entropy`` then comes from the Bregman
divergence of ``F``, differentiated with pyad's autograd, as torch's. The members torch
derives from it (`Normal`, `Bernoulli`, `Exponential`, `Poisson`, `Gamma`, `Beta`,
`Dirichlet`, `ContinuousBernoulli`, `Wishart`) derive from it here too; each keeps its
closed-form entropy, and `kl_divergence` of two members of one family with no closed form
registered is the Bregman divergence of ``F``.
"""
import pyad
from pyad.distributions.distribution import Distribution

__all__ = ["ExponentialFamily"]


class ExponentialFamily(Distribution):
    """Base class of exponential-family distributions (``torch.distributions.
    ExponentialFamily``): ``entropy`` from ``_natural_params``, ``_log_normalizer`` and
    ``_mean_carrier_measure``."""

    @property
    def _natural_params(self):
        raise NotImplementedError

    def _log_normalizer(self, *natural_params):
        raise NotImplementedError

    @property
    def _mean_carrier_measure(self):
        raise NotImplementedError

    def entropy(self):
        """``F(theta) - <theta, grad F(theta)> - E[k(x)]``, per batch element."""
        result = -self._mean_carrier_measure
        nparams = [p.detach().requires_grad_() for p in self._natural_params]
        with pyad.enable_grad():
            lg_normal = self._log_normalizer(*nparams)
            gradients = pyad.autograd.grad(lg_normal.sum(), nparams, create_graph=True)
        result = result + lg_normal
        for np_, g in zip(nparams, gradients):
            result = result - (np_ * g).reshape(self._batch_shape + (-1,)).sum(-1)
        return result
