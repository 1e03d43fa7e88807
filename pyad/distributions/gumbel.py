"""``pyad.distributions.gumbel``: torch's module path of `Gumbel` (``from
torch.distributions.gumbel import Gumbel``)."""
from pyad.distributions.continuous import Gumbel

__all__ = ["Gumbel"]
