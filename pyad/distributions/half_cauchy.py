"""``pyad.distributions.half_cauchy``: torch's module path of `HalfCauchy` (``from
torch.distributions.half_cauchy import HalfCauchy``)."""
from pyad.distributions.more_continuous import HalfCauchy

__all__ = ["HalfCauchy"]
