"""``pyad.distributions.mixture_same_family``: torch's module path of `MixtureSameFamily` (``from
torch.distributions.mixture_same_family import MixtureSameFamily``)."""
from pyad.distributions.multivariate import MixtureSameFamily

__all__ = ["MixtureSameFamily"]
