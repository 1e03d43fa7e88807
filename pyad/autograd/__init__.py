"""``pyad.autograd``: the torch.autograd namespace over pyad's engine."""
from pyad._engine import Variable, backward, grad, _is_checkpoint_valid  # noqa: F401
from pyad.autograd.grad_mode import (
    no_grad, enable_grad, set_grad_enabled, is_grad_enabled, inference_mode,
    is_inference_mode_enabled, is_multithreading_enabled, set_multithreading_enabled,
)
from pyad.autograd.function import Function, FunctionCtx, once_differentiable
from pyad.autograd.anomaly_mode import (
    detect_anomaly, set_detect_anomaly, is_anomaly_enabled, is_anomaly_check_nan_enabled,
)
from pyad.autograd import function, grad_mode, anomaly_mode, functional, graph, profiler
from pyad.autograd import profiler_util, forward_ad

try:
    from pyad.autograd.gradcheck import gradcheck, gradgradcheck, GradcheckError
except ImportError:  # pragma: no cover - written alongside the engine
    pass

__all__ = ["Variable", "Function", "backward", "grad", "no_grad", "enable_grad",
           "set_grad_enabled", "is_grad_enabled", "inference_mode",
           "is_inference_mode_enabled", "is_multithreading_enabled",
           "set_multithreading_enabled", "gradcheck", "gradgradcheck",
           "once_differentiable", "FunctionCtx", "detect_anomaly", "set_detect_anomaly",
           "is_anomaly_enabled", "is_anomaly_check_nan_enabled", "functional", "graph",
           "profiler", "profiler_util", "forward_ad"]

from pyad.autograd import variable  # noqa: E402,F401 - torch.autograd.variable.Variable
