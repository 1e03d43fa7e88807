"""``pyad.distributions.uniform``: torch's module path of `Uniform` (``from
torch.distributions.uniform import Uniform``)."""
from pyad.distributions.continuous import Uniform

__all__ = ["Uniform"]
