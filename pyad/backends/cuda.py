"""``pyad.backends.cuda``: torch's CUDA switches, settable so scripts run unchanged.

``matmul.allow_tf32`` and the reduced-precision flags, and the scaled-dot-product
attention kernel switches, are recorded, not acted on: pyad's matmul runs in the
Variables' own precision (NumPy, or CuPy's default cuBLAS mode) and its
``scaled_dot_product_attention`` always computes the math path.

>>> import pyad
>>> pyad.backends.cuda.matmul.allow_tf32 = True      # nanoGPT's first lines
>>> pyad.backends.cuda.matmul.allow_tf32
True
>>> pyad.backends.cuda.matmul.allow_tf32 = False
"""
import contextlib

from pyad import _engine

__all__ = ["matmul", "is_built", "flash_sdp_enabled", "enable_flash_sdp",
           "mem_efficient_sdp_enabled", "enable_mem_efficient_sdp", "math_sdp_enabled",
           "enable_math_sdp", "cudnn_sdp_enabled", "enable_cudnn_sdp", "sdp_kernel",
           "preferred_linalg_library"]


class _MatmulFlags:
    """torch.backends.cuda.matmul: three flags, with torch's defaults."""
    __slots__ = ("allow_tf32", "allow_fp16_reduced_precision_reduction",
                 "allow_bf16_reduced_precision_reduction")

    def __init__(self):
        self.allow_tf32 = False
        self.allow_fp16_reduced_precision_reduction = True
        self.allow_bf16_reduced_precision_reduction = True

    def __repr__(self):
        return "<pyad.backends.cuda.matmul: %s>" % ", ".join(
            "%s=%s" % (name, getattr(self, name)) for name in self.__slots__)


matmul = _MatmulFlags()
_sdp_enabled = {"flash": True, "mem_efficient": True, "math": True, "cudnn": True}


def is_built():
    """True when pyad can use a GPU at all (CuPy installed), as torch's "built with CUDA"."""
    return _engine.cupy is not None


def flash_sdp_enabled():
    """The flash-attention switch (recorded; pyad computes attention one way)."""
    return _sdp_enabled["flash"]


def enable_flash_sdp(enabled):
    """Set the flash-attention switch (recorded only)."""
    _sdp_enabled["flash"] = bool(enabled)


def mem_efficient_sdp_enabled():
    """The memory-efficient attention switch (recorded only)."""
    return _sdp_enabled["mem_efficient"]


def enable_mem_efficient_sdp(enabled):
    """Set the memory-efficient attention switch (recorded only)."""
    _sdp_enabled["mem_efficient"] = bool(enabled)


def math_sdp_enabled():
    """The math attention switch (recorded; the path pyad always takes)."""
    return _sdp_enabled["math"]


def enable_math_sdp(enabled):
    """Set the math attention switch (recorded only)."""
    _sdp_enabled["math"] = bool(enabled)


def cudnn_sdp_enabled():
    """The cuDNN attention switch (recorded only)."""
    return _sdp_enabled["cudnn"]


def enable_cudnn_sdp(enabled):
    """Set the cuDNN attention switch (recorded only)."""
    _sdp_enabled["cudnn"] = bool(enabled)


@contextlib.contextmanager
def sdp_kernel(enable_flash=True, enable_math=True, enable_mem_efficient=True,
               enable_cudnn=True):
    """torch's deprecated context manager over the four switches, restored on exit."""
    saved = dict(_sdp_enabled)
    _sdp_enabled.update(flash=bool(enable_flash), math=bool(enable_math),
                        mem_efficient=bool(enable_mem_efficient), cudnn=bool(enable_cudnn))
    try:
        yield
    finally:
        _sdp_enabled.clear()
        _sdp_enabled.update(saved)


def preferred_linalg_library(backend=None):
    """The linear-algebra backend: always ``"default"`` (NumPy's LAPACK or cuSOLVER via
    CuPy); a ``backend`` argument is accepted and ignored."""
    return "default"
