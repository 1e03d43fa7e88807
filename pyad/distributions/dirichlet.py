"""``pyad.distributions.dirichlet``: torch's module path of `Dirichlet` (``from
torch.distributions.dirichlet import Dirichlet``)."""
from pyad.distributions.gamma import Dirichlet

__all__ = ["Dirichlet"]
