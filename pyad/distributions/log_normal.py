"""``pyad.distributions.log_normal``: torch's module path of `LogNormal` (``from
torch.distributions.log_normal import LogNormal``)."""
from pyad.distributions.continuous import LogNormal

__all__ = ["LogNormal"]
