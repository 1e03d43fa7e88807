"""``pyad.distributions.categorical``: torch's module path of `Categorical` (``from
torch.distributions.categorical import Categorical``)."""
from pyad.distributions.discrete import Categorical

__all__ = ["Categorical"]
