"""``pyad.distributions.fishersnedecor``: torch's module path of `FisherSnedecor` (``from
torch.distributions.fishersnedecor import FisherSnedecor``)."""
from pyad.distributions.more_continuous import FisherSnedecor

__all__ = ["FisherSnedecor"]
