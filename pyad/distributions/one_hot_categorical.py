"""``pyad.distributions.one_hot_categorical``: torch's module path of `OneHotCategorical` and
`OneHotCategoricalStraightThrough` (``from torch.distributions.one_hot_categorical import
OneHotCategorical``)."""
from pyad.distributions.discrete import OneHotCategorical
from pyad.distributions.more_discrete import OneHotCategoricalStraightThrough

__all__ = ["OneHotCategorical", "OneHotCategoricalStraightThrough"]
