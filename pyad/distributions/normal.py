"""``pyad.distributions.normal``: torch's module path of `Normal` (``from
torch.distributions.normal import Normal``, ``torch.distributions.normal.Normal``)."""
from pyad.distributions.continuous import Normal

__all__ = ["Normal"]
