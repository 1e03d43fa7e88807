"""``pyad.distributions.weibull``: torch's module path of `Weibull` (``from
torch.distributions.weibull import Weibull``)."""
from pyad.distributions.more_continuous import Weibull

__all__ = ["Weibull"]
