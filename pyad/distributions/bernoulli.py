"""``pyad.distributions.bernoulli``: torch's module path of `Bernoulli` (``from
torch.distributions.bernoulli import Bernoulli``)."""
from pyad.distributions.discrete import Bernoulli

__all__ = ["Bernoulli"]
