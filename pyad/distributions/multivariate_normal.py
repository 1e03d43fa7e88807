"""``pyad.distributions.multivariate_normal``: torch's module path of `MultivariateNormal` (``from
torch.distributions.multivariate_normal import MultivariateNormal``)."""
from pyad.distributions.multivariate import MultivariateNormal

__all__ = ["MultivariateNormal"]
