"""``pyad.distributions.lkj_cholesky``: torch's module path of `LKJCholesky` (``from
torch.distributions.lkj_cholesky import LKJCholesky``)."""
from pyad.distributions.matrix import LKJCholesky

__all__ = ["LKJCholesky"]
