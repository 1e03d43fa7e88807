"""``pyad.distributions.studentT``: torch's module path of `StudentT` (``from
torch.distributions.studentT import StudentT``)."""
from pyad.distributions.gamma import StudentT

__all__ = ["StudentT"]
