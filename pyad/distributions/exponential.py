"""``pyad.distributions.exponential``: torch's module path of `Exponential` (``from
torch.distributions.exponential import Exponential``)."""
from pyad.distributions.continuous import Exponential

__all__ = ["Exponential"]
