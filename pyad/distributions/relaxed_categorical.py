"""``pyad.distributions.relaxed_categorical``: torch's module path of `RelaxedOneHotCategorical` (``from
torch.distributions.relaxed_categorical import RelaxedOneHotCategorical``)."""
from pyad.distributions.relaxed import RelaxedOneHotCategorical

__all__ = ["RelaxedOneHotCategorical"]
