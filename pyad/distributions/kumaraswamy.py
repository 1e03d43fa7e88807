"""``pyad.distributions.kumaraswamy``: torch's module path of `Kumaraswamy` (``from
torch.distributions.kumaraswamy import Kumaraswamy``)."""
from pyad.distributions.more_continuous import Kumaraswamy

__all__ = ["Kumaraswamy"]
