"""``torch.nn.utils.clip_grad``: gradient clipping (defined in ``pyad.nn.utils``),
importable under torch's path."""
from pyad.nn.utils import (  # noqa: F401
    clip_grad_norm, clip_grad_norm_, clip_grad_value_, clip_grads_with_norm_, get_total_norm,
)
from pyad.nn.utils import clip_grads_with_norm_ as _clip_grads_with_norm_  # noqa: F401
from pyad.nn.utils import get_total_norm as _get_total_norm  # noqa: F401

__all__ = ["clip_grad_norm", "clip_grad_norm_", "clip_grad_value_"]
