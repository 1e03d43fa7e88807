"""``pyad.nn.attention``: torch's attention-kernel selection, for scripts that choose one.

pyad's ``scaled_dot_product_attention`` has one implementation, the math path (softmax of
the scaled scores, dropout, times the values: the same numbers torch's math kernel
gives), so `sdpa_kernel` changes no number; within it, attention refuses what torch's
CPU dispatch refuses (no CPU kernel among the chosen: the efficient, cuDNN and
overrideable kernels are CUDA's, and the fused flash kernel takes 4-D inputs without
dropout). ``pyad.nn.attention.bias`` holds torch's causal biases.

>>> import pyad
>>> from pyad.nn.attention import SDPBackend, sdpa_kernel
>>> q = pyad.ones(1, 2, 4, 8)
>>> with sdpa_kernel([SDPBackend.FLASH_ATTENTION, SDPBackend.MATH]):
...     out = pyad.nn.functional.scaled_dot_product_attention(q, q, q, is_causal=True)
>>> out.shape
(1, 2, 4, 8)
"""
import contextlib
import enum

__all__ = ["SDPBackend", "sdpa_kernel", "WARN_FOR_UNFUSED_KERNELS"]

WARN_FOR_UNFUSED_KERNELS = False


class SDPBackend(enum.IntEnum):
    """The attention kernels torch can choose from (values as torch's)."""
    ERROR = -1
    MATH = 0
    FLASH_ATTENTION = 1
    EFFICIENT_ATTENTION = 2
    CUDNN_ATTENTION = 3
    OVERRIDEABLE = 4


_chosen = [list(SDPBackend)[1:]]


@contextlib.contextmanager
def sdpa_kernel(backends, set_priority=False):
    """Within the block, attention may use only ``backends`` (one `SDPBackend` or a
    list): checked and recorded as torch's; pyad's single (math) kernel runs whenever
    torch's CPU dispatch would find a kernel among them, and raises RuntimeError (as
    torch) when it would not."""
    if isinstance(backends, SDPBackend):
        backends = [backends]
    if not isinstance(backends, list):
        raise AssertionError("Backend must be an instance of SDPBackend or a list of "
                             "SDPBackend instances, got %s" % type(backends).__name__)
    _chosen.append(list(backends))
    try:
        yield
    finally:
        _chosen.pop()


from pyad.nn.attention import bias  # noqa: E402  (torch.nn.attention.bias)


def _check_kernel(query, dropout_p):
    """Raise as torch's CPU dispatch does when the `sdpa_kernel` in force allows no
    kernel that runs on the CPU: the math kernel runs anything, the fused (flash) one 4-D
    inputs without dropout; the efficient, cuDNN and overrideable kernels are CUDA's."""
    chosen = _chosen[-1]
    if SDPBackend.MATH in chosen:
        return
    if SDPBackend.FLASH_ATTENTION in chosen:
        if query.dim() == 4 and not dropout_p > 0.0:
            return
        raise RuntimeError("scaled_dot_product_attention(): No available kernel.  "
                           "Aborting execution.")
    raise RuntimeError("scaled_dot_product_attention(): No viable backend for "
                       "scaled_dot_product_attention was found. This is likely due to "
                       "turning off both the math kernel and the fused kernels.")
