"""``torch.nn.modules.lazy``: `LazyModuleMixin`, the base of the lazy modules (defined
in pyad.nn.layers_extra; this module re-exports it so that torch's import path works)."""
from pyad.nn.layers_extra import LazyModuleMixin  # noqa: F401

__all__ = ["LazyModuleMixin"]
