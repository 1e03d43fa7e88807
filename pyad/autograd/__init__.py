"""``pyad.autograd``: the torch.autograd namespace over pyad's engine."""
from pyad._engine import Variable, backward, grad
from pyad.autograd.grad_mode import no_grad, enable_grad, set_grad_enabled, is_grad_enabled
from pyad.autograd.function import Function, FunctionCtx, once_differentiable
from pyad.autograd import function, grad_mode
from pyad.autograd import functional, graph

try:
    from pyad.autograd.gradcheck import gradcheck, gradgradcheck, GradcheckError
except ImportError:  # pragma: no cover - written alongside the engine
    pass

__all__ = ["Variable", "Function", "backward", "grad", "no_grad", "enable_grad",
           "set_grad_enabled", "is_grad_enabled", "gradcheck", "gradgradcheck",
           "once_differentiable", "FunctionCtx"]
