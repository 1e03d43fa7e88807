"""``pyad.distributions.binomial``: torch's module path of `Binomial` (``from
torch.distributions.binomial import Binomial``)."""
from pyad.distributions.discrete import Binomial

__all__ = ["Binomial"]
