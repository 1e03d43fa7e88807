"""``pyad.distributions.relaxed_bernoulli``: torch's module path of `RelaxedBernoulli` (``from
torch.distributions.relaxed_bernoulli import RelaxedBernoulli``)."""
from pyad.distributions.relaxed import RelaxedBernoulli

__all__ = ["RelaxedBernoulli"]
