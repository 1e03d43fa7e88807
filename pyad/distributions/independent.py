"""``pyad.distributions.independent``: torch's module path of `Independent` (``from
torch.distributions.independent import Independent``)."""
from pyad.distributions.multivariate import Independent

__all__ = ["Independent"]
