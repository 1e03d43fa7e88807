"""``pyad.distributions.continuous_bernoulli``:
torch's module path of `ContinuousBernoulli` (``from
torch.distributions.continuous_bernoulli import ContinuousBernoulli``)."""
from pyad.distributions.more_continuous import ContinuousBernoulli

__all__ = ["ContinuousBernoulli"]
