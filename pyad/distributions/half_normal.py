"""``pyad.distributions.half_normal``: torch's module path of `HalfNormal` (``from
torch.distributions.half_normal import HalfNormal``)."""
from pyad.distributions.continuous import HalfNormal

__all__ = ["HalfNormal"]
