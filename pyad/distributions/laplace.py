"""``pyad.distributions.laplace``: torch's module path of `Laplace` (``from
torch.distributions.laplace import Laplace``)."""
from pyad.distributions.continuous import Laplace

__all__ = ["Laplace"]
