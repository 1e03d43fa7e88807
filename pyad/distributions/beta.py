"""``pyad.distributions.beta``: torch's module path of `Beta` (``from
torch.distributions.beta import Beta``)."""
from pyad.distributions.gamma import Beta

__all__ = ["Beta"]
