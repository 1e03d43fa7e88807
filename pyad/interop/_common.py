"""What the torch and JAX bridges share: lazy imports and in-place detection."""
import importlib

from ..autograd.grad_mode import no_grad


def import_extra(module, extra, what):
    """Import ``module`` (an optional dependency), naming the extra when it is missing."""
    try:
        return importlib.import_module(module)
    except ImportError:
        raise ImportError('%s needs %s, which is not installed: pip install "pyad[%s]"'
                          % (what, module, extra)) from None


def bump_version(var):
    """Count a write made to ``var``'s memory by another framework, so that pyad's saved
    Variables see it (a multiplication by one in place leaves every bit as it is)."""
    with no_grad():
        var.mul_(1)
