"""``pyad.distributions.generalized_pareto``: torch's module path of `GeneralizedPareto` (``from
torch.distributions.generalized_pareto import GeneralizedPareto``)."""
from pyad.distributions.more_continuous import GeneralizedPareto

__all__ = ["GeneralizedPareto"]
