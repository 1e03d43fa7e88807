"""``pyad.distributions.cauchy``: torch's module path of `Cauchy` (``from
torch.distributions.cauchy import Cauchy``)."""
from pyad.distributions.continuous import Cauchy

__all__ = ["Cauchy"]
