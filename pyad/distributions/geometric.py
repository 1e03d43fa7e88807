"""``pyad.distributions.geometric``: torch's module path of `Geometric` (``from
torch.distributions.geometric import Geometric``)."""
from pyad.distributions.discrete import Geometric

__all__ = ["Geometric"]
