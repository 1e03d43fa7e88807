"""``pyad.distributions.chi2``: torch's module path of `Chi2` (``from
torch.distributions.chi2 import Chi2``)."""
from pyad.distributions.gamma import Chi2

__all__ = ["Chi2"]
