"""``pyad.distributions.one_hot_categorical``: torch's module path of `OneHotCategorical` (``from
torch.distributions.one_hot_categorical import OneHotCategorical``)."""
from pyad.distributions.discrete import OneHotCategorical

__all__ = ["OneHotCategorical"]
