"""``torch.nn.modules.container``: the same classes as there (defined elsewhere in pyad.nn;
this module re-exports them so that torch's import paths work)."""
from pyad.nn import (  # noqa: F401
    Sequential, ModuleList, ModuleDict, ParameterList, ParameterDict,
)

__all__ = [
    "Sequential", "ModuleList", "ModuleDict", "ParameterList", "ParameterDict",
]
