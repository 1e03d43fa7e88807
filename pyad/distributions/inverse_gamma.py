"""``pyad.distributions.inverse_gamma``: torch's module path of `InverseGamma` (``from
torch.distributions.inverse_gamma import InverseGamma``)."""
from pyad.distributions.more_continuous import InverseGamma

__all__ = ["InverseGamma"]
