"""``torch.utils.data._utils``: the module path of the collate functions
(``torch.utils.data._utils.collate.default_collate``)."""
from pyad.utils.data._utils import collate  # noqa: F401
