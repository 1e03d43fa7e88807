"""``pyad.distributions.wishart``: torch's module path of `Wishart` (``from
torch.distributions.wishart import Wishart``)."""
from pyad.distributions.matrix import Wishart

__all__ = ["Wishart"]
