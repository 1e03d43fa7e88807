"""``pyad.distributions.lowrank_multivariate_normal``:
torch's module path of `LowRankMultivariateNormal` (``from
torch.distributions.lowrank_multivariate_normal import LowRankMultivariateNormal``)."""
from pyad.distributions.matrix import LowRankMultivariateNormal

__all__ = ["LowRankMultivariateNormal"]
