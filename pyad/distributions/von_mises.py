"""``pyad.distributions.von_mises``: torch's module path of `VonMises` (``from
torch.distributions.von_mises import VonMises``)."""
from pyad.distributions.more_continuous import VonMises

__all__ = ["VonMises"]
