"""``pyad.distributions.logistic_normal``: torch's module path of `LogisticNormal` (``from
torch.distributions.logistic_normal import LogisticNormal``)."""
from pyad.distributions.more_continuous import LogisticNormal

__all__ = ["LogisticNormal"]
