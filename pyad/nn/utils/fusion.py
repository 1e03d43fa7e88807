"""``pyad.nn.utils.fusion``: fold an eval-mode batch norm into the convolution or linear
layer before it, as ``torch.nn.utils.fusion``.

In eval mode a batch norm is an affine map per channel, ``y = (x - mean) * s + beta``
with ``s = gamma / sqrt(var + eps)``; applied to a layer's output ``W x + b`` it is the
same layer with weight ``W * s`` (each output channel scaled) and bias
``(b - mean) * s + beta``. The fused layer gives the same outputs with one op fewer.

>>> import pyad
>>> conv, bn = pyad.nn.Conv2d(2, 3, 3).eval(), pyad.nn.BatchNorm2d(3).eval()
>>> x = pyad.randn(1, 2, 5, 5)
>>> fused = pyad.nn.utils.fuse_conv_bn_eval(conv, bn)
>>> bool((fused(x) - bn(conv(x))).abs().max() < 1e-5)
True
"""
import copy

import pyad

__all__ = ["fuse_conv_bn_eval", "fuse_conv_bn_weights", "fuse_linear_bn_eval",
           "fuse_linear_bn_weights"]


def _refuse_training(layer, bn, what):
    if layer.training or bn.training:
        raise AssertionError("Fusion only for eval!")
    if bn.running_mean is None or bn.running_var is None:
        raise AssertionError("%s(): the batch norm has no running statistics "
                             "(track_running_stats=False)" % what)


def fuse_conv_bn_eval(conv, bn, transpose=False):
    """A copy of the eval-mode ``conv`` with the eval-mode ``bn`` after it folded into
    its weight and bias (``transpose=True`` for a transposed convolution, whose output
    channels are the weight's dim 1)."""
    _refuse_training(conv, bn, "fuse_conv_bn_eval")
    fused = copy.deepcopy(conv)
    fused.weight, fused.bias = fuse_conv_bn_weights(
        fused.weight, fused.bias, bn.running_mean, bn.running_var, bn.eps, bn.weight,
        bn.bias, transpose)
    return fused


def fuse_conv_bn_weights(conv_w, conv_b, bn_rm, bn_rv, bn_eps, bn_w, bn_b, transpose=False):
    """The fused convolution's ``(weight, bias)`` as Parameters (requiring grad as the
    convolution's did), in the convolution's dtypes; a missing bias, batch-norm weight or
    bias counts as 0, 1 and 0."""
    weight_dtype = conv_w.dtype
    bias_dtype = conv_b.dtype if conv_b is not None else weight_dtype
    # (a missing bias gives a new one that requires no grad, as torch's)
    bias_requires_grad = conv_b.requires_grad if conv_b is not None else False
    with pyad.no_grad():
        if conv_b is None:
            conv_b = pyad.zeros_like(bn_rm)
        if bn_w is None:
            bn_w = pyad.ones_like(bn_rm)
        if bn_b is None:
            bn_b = pyad.zeros_like(bn_rm)
        scale = bn_w * pyad.rsqrt(bn_rv + bn_eps)
        # one factor per output channel: dim 0 of a convolution's weight, dim 1 of a
        # transposed one's
        shape = ([1, -1] if transpose else [-1, 1]) + [1] * (conv_w.dim() - 2)
        weight = (conv_w * scale.reshape(shape)).to(dtype=weight_dtype)
        bias = ((conv_b - bn_rm) * scale + bn_b).to(dtype=bias_dtype)
    return (pyad.nn.Parameter(weight, conv_w.requires_grad),
            pyad.nn.Parameter(bias, bias_requires_grad))


def fuse_linear_bn_eval(linear, bn):
    """A copy of the eval-mode ``linear`` with the eval-mode ``bn`` after it folded into
    its weight and bias; ``bn.num_features`` must be ``linear.out_features`` or 1."""
    _refuse_training(linear, bn, "fuse_linear_bn_eval")
    if not (linear.out_features == bn.num_features or bn.num_features == 1):
        raise AssertionError("To fuse, linear.out_features == bn.num_features or "
                             "bn.num_features == 1")
    fused = copy.deepcopy(linear)
    fused.weight, fused.bias = fuse_linear_bn_weights(
        fused.weight, fused.bias, bn.running_mean, bn.running_var, bn.eps, bn.weight,
        bn.bias)
    return fused


def fuse_linear_bn_weights(linear_w, linear_b, bn_rm, bn_rv, bn_eps, bn_w, bn_b):
    """The fused linear layer's ``(weight, bias)`` as Parameters, in its dtypes."""
    weight_dtype = linear_w.dtype
    bias_dtype = linear_b.dtype if linear_b is not None else weight_dtype
    with pyad.no_grad():
        bias_in = linear_b if linear_b is not None else pyad.zeros_like(bn_rm)
        scale = bn_w * pyad.rsqrt(bn_rv + bn_eps)
        weight = linear_w * scale.unsqueeze(-1).to(dtype=weight_dtype)
        bias = ((bias_in - bn_rm) * scale + bn_b).to(dtype=bias_dtype)
    return (pyad.nn.Parameter(weight, linear_w.requires_grad),
            pyad.nn.Parameter(bias, linear_b.requires_grad if linear_b is not None
                              else False))
