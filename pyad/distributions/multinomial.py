"""``pyad.distributions.multinomial``: torch's module path of `Multinomial` (``from
torch.distributions.multinomial import Multinomial``)."""
from pyad.distributions.more_discrete import Multinomial

__all__ = ["Multinomial"]
