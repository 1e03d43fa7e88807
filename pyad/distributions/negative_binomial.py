"""``pyad.distributions.negative_binomial``: torch's module path of `NegativeBinomial` (``from
torch.distributions.negative_binomial import NegativeBinomial``)."""
from pyad.distributions.more_discrete import NegativeBinomial

__all__ = ["NegativeBinomial"]
