"""``pyad.distributions.poisson``: torch's module path of `Poisson` (``from
torch.distributions.poisson import Poisson``)."""
from pyad.distributions.discrete import Poisson

__all__ = ["Poisson"]
