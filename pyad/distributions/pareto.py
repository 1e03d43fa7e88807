"""``pyad.distributions.pareto``: torch's module path of `Pareto` (``from
torch.distributions.pareto import Pareto``)."""
from pyad.distributions.more_continuous import Pareto

__all__ = ["Pareto"]
