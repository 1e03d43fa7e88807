"""``torch.utils.data._utils.collate``: `default_collate` and `default_convert` (defined
in ``pyad.utils.data``), importable under torch's path."""
from pyad.utils.data._collate import default_collate, default_convert

__all__ = ["default_collate", "default_convert"]
