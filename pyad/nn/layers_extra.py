"""The rest of the ``torch.nn`` layers that ported scripts reach for: the padding modules
(``ZeroPad*``, ``ConstantPad*``, ``ReflectionPad*``, ``ReplicationPad*``,
``CircularPad*``), ``Softmin``, ``Softmax2d``, ``RMSNorm``, ``LocalResponseNorm``,
``LazyLinear`` (with ``UninitializedParameter``), adaptive max pooling, max unpooling,
LP pooling, ``ChannelShuffle``, alpha dropout, ``Dropout3d``, ``RReLU``,
``ConvTranspose1d``, ``EmbeddingBag`` and the losses ``MultiLabelMarginLoss``,
``MultiLabelSoftMarginLoss`` and ``TripletMarginWithDistanceLoss``.

Constructor signatures, defaults, attributes, ``extra_repr``, ``state_dict`` keys and
initialisations are torch's.

>>> import pyad
>>> net = pyad.nn.Sequential(pyad.nn.ReflectionPad2d(1), pyad.nn.Conv2d(2, 4, 3),
...                          pyad.nn.RMSNorm((4, 5, 5)), pyad.nn.AdaptiveMaxPool2d(2))
>>> net(pyad.randn(3, 2, 5, 5)).shape
(3, 4, 2, 2)
"""
import numbers

import numpy

from pyad.autograd.grad_mode import no_grad
from pyad.nn import functional as F
from pyad.nn import init
from pyad.nn.modules import (Module, Linear, Conv2d, _ConvNd, _ConvTransposeNd, _Loss,
                              _DropoutNd, _MaxPoolNd, _factory)
from pyad.nn.layers import (_AvgPoolNd, _AdaptiveAvgPoolNd, BatchNorm1d, Conv1d,
                            ConvTranspose2d, InstanceNorm1d,
                            InstanceNorm2d, _InstanceNorm, PairwiseDistance)
from pyad.nn.modules import BatchNorm2d, _BatchNorm
from pyad._factories import tensor
from pyad.nn.parameter import Parameter, UninitializedParameter, UninitializedBuffer

__all__ = [
    "ZeroPad1d", "ZeroPad2d", "ZeroPad3d", "ConstantPad1d", "ConstantPad2d", "ConstantPad3d",
    "ReflectionPad1d", "ReflectionPad2d", "ReflectionPad3d", "ReplicationPad1d",
    "ReplicationPad2d", "ReplicationPad3d", "CircularPad1d", "CircularPad2d",
    "CircularPad3d", "Softmin", "Softmax2d", "RMSNorm", "LocalResponseNorm",
    "UninitializedParameter", "LazyLinear", "AdaptiveMaxPool1d", "AdaptiveMaxPool2d",
    "MaxUnpool1d", "MaxUnpool2d", "LPPool1d", "LPPool2d", "LPPool3d", "ChannelShuffle", "AlphaDropout",
    "FeatureAlphaDropout", "Dropout3d", "RReLU", "ConvTranspose1d", "EmbeddingBag",
    "MultiLabelMarginLoss", "MultiLabelSoftMarginLoss", "TripletMarginWithDistanceLoss",
    "CTCLoss", "Conv3d", "ConvTranspose3d", "MaxPool3d", "AvgPool3d", "AdaptiveAvgPool3d", "BatchNorm3d",
    "InstanceNorm3d", "LazyConv1d", "LazyConv2d", "LazyConv3d", "LazyConvTranspose1d",
    "LazyConvTranspose2d", "LazyConvTranspose3d", "LazyBatchNorm1d", "LazyBatchNorm2d",
    "LazyBatchNorm3d", "LazyInstanceNorm1d", "LazyInstanceNorm2d", "LazyInstanceNorm3d",
    "UninitializedBuffer", "AdaptiveMaxPool3d", "MaxUnpool3d", "FractionalMaxPool2d",
    "FractionalMaxPool3d",
]


def _ntuple(x, n):
    if isinstance(x, (tuple, list)):
        return tuple(x)
    return (x,) * n


# -- padding -------------------------------------------------------------------------


class _PadNd(Module):
    _mode = "constant"
    _sides = 1

    def __init__(self, padding):
        super().__init__()
        self.padding = _ntuple(padding, 2 * self._sides)

    def forward(self, input):
        return F.pad(input, self.padding, self._mode)

    def extra_repr(self):
        return "%s" % (self.padding,)


class _ConstantPadNd(_PadNd):
    def __init__(self, padding, value):
        super().__init__(padding)
        self.value = value

    def forward(self, input):
        return F.pad(input, self.padding, "constant", self.value)

    def extra_repr(self):
        return "padding=%s, value=%s" % (self.padding, self.value)


class ConstantPad1d(_ConstantPadNd):
    """Pad the last dimension with ``value``: ``padding`` an int or ``(left, right)``.

    >>> import pyad
    >>> pyad.nn.ConstantPad1d((1, 2), 3.5)(pyad.zeros(1, 2)).tolist()
    [[3.5, 0.0, 0.0, 3.5, 3.5]]
    """
    _sides = 1


class ConstantPad2d(_ConstantPadNd):
    """Pad the last two dimensions with ``value``: ``(left, right, top, bottom)``."""
    _sides = 2


class ConstantPad3d(_ConstantPadNd):
    """Pad the last three dimensions with ``value``: ``(left, right, top, bottom, front,
    back)``."""
    _sides = 3


class ZeroPad1d(ConstantPad1d):
    """Pad the last dimension with zeros (``ConstantPad1d(padding, 0.0)``)."""

    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self):
        return "%s" % (self.padding,)


class ZeroPad2d(ConstantPad2d):
    """Pad the last two dimensions with zeros.

    >>> import pyad
    >>> pyad.nn.ZeroPad2d(1)(pyad.ones(1, 1, 1)).shape
    (1, 3, 3)
    """

    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self):
        return "%s" % (self.padding,)


class ZeroPad3d(ConstantPad3d):
    """Pad the last three dimensions with zeros."""

    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self):
        return "%s" % (self.padding,)


class ReflectionPad1d(_PadNd):
    """Pad the last dimension with its mirror image (the edge not repeated).

    >>> import pyad
    >>> pyad.nn.ReflectionPad1d(2)(pyad.tensor([[0.0, 1.0, 2.0]])).tolist()
    [[2.0, 1.0, 0.0, 1.0, 2.0, 1.0, 0.0]]
    """
    _mode, _sides = "reflect", 1


class ReflectionPad2d(_PadNd):
    """Pad the last two dimensions with their mirror image."""
    _mode, _sides = "reflect", 2


class ReflectionPad3d(_PadNd):
    """Pad the last three dimensions with their mirror image."""
    _mode, _sides = "reflect", 3


class ReplicationPad1d(_PadNd):
    """Pad the last dimension by repeating its edge values.

    >>> import pyad
    >>> pyad.nn.ReplicationPad1d((1, 2))(pyad.tensor([[0.0, 1.0]])).tolist()
    [[0.0, 0.0, 1.0, 1.0, 1.0]]
    """
    _mode, _sides = "replicate", 1


class ReplicationPad2d(_PadNd):
    """Pad the last two dimensions by repeating their edge values."""
    _mode, _sides = "replicate", 2


class ReplicationPad3d(_PadNd):
    """Pad the last three dimensions by repeating their edge values."""
    _mode, _sides = "replicate", 3


class _CircularPadNd(_PadNd):
    _mode = "circular"

    def forward(self, input):
        dims = (self._sides + 1, self._sides + 2)
        if input.dim() not in dims:
            raise ValueError("expected %dD or %dD input (got %dD input)"
                             % (dims[0], dims[1], input.dim()))
        return F.pad(input, self.padding, "circular")


class CircularPad1d(_CircularPadNd):
    """Pad the last dimension of ``(C, W)``/``(N, C, W)`` input by wrapping around.

    >>> import pyad
    >>> pyad.nn.CircularPad1d(1)(pyad.tensor([[0.0, 1.0, 2.0]])).tolist()
    [[2.0, 0.0, 1.0, 2.0, 0.0]]
    """
    _sides = 1


class CircularPad2d(_CircularPadNd):
    """Pad the last two dimensions of 3-D/4-D input by wrapping around."""
    _sides = 2


class CircularPad3d(_CircularPadNd):
    """Pad the last three dimensions of 4-D/5-D input by wrapping around."""
    _sides = 3


# -- activations ---------------------------------------------------------------------


class Softmin(Module):
    """``softmax(-x)`` over ``dim`` (``F.softmin``).

    >>> import pyad
    >>> pyad.nn.Softmin(dim=0)(pyad.tensor([0.0, 0.0])).tolist()
    [0.5, 0.5]
    """

    def __init__(self, dim=None):
        super().__init__()
        self.dim = dim

    def forward(self, input):
        return F.softmin(input, self.dim, _stacklevel=5)

    def extra_repr(self):
        return "dim=%s" % (self.dim,)


class Softmax2d(Module):
    """``softmax`` over the channels of ``(N, C, H, W)`` or ``(C, H, W)`` input."""

    def forward(self, input):
        if input.dim() not in (3, 4):
            raise ValueError("Softmax2d: expected input to be 3D or 4D, got %dD instead"
                             % input.dim())
        return F.softmax(input, -3, _stacklevel=5)


class RReLU(Module):
    """Randomized leaky ReLU (``F.rrelu``): random slopes in training, their mean in eval.

    >>> import pyad
    >>> pyad.nn.RReLU(0.25, 0.75).eval()(pyad.tensor([-1.0, 1.0])).tolist()
    [-0.5, 1.0]
    """

    def __init__(self, lower=1.0 / 8, upper=1.0 / 3, inplace=False):
        super().__init__()
        self.lower = lower
        self.upper = upper
        self.inplace = inplace

    def forward(self, input):
        return F.rrelu(input, self.lower, self.upper, self.training, self.inplace)

    def extra_repr(self):
        return "lower=%s, upper=%s%s" % (self.lower, self.upper,
                                         ", inplace=True" if self.inplace else "")


# -- normalisation -------------------------------------------------------------------


class RMSNorm(Module):
    """Root-mean-square normalisation over the trailing ``normalized_shape`` dims
    (``F.rms_norm``); ``weight`` starts at ones; ``eps=None`` means the dtype's epsilon.

    >>> import pyad
    >>> pyad.nn.RMSNorm(3)
    RMSNorm((3,), eps=None, elementwise_affine=True)
    """

    def __init__(self, normalized_shape, eps=None, elementwise_affine=True, device=None,
                 dtype=None):
        super().__init__()
        if isinstance(normalized_shape, numbers.Integral):
            normalized_shape = (normalized_shape,)
        self.normalized_shape = tuple(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        if elementwise_affine:
            self.weight = Parameter(_factory(self.normalized_shape, device, dtype))
        else:
            self.register_parameter("weight", None)
        self.reset_parameters()

    def reset_parameters(self):
        """Set ``weight`` to ones."""
        if self.elementwise_affine:
            init.ones_(self.weight)

    def forward(self, x):
        return F.rms_norm(x, self.normalized_shape, self.weight, self.eps)

    def extra_repr(self):
        return "%s, eps=%s, elementwise_affine=%s" % (self.normalized_shape, self.eps,
                                                      self.elementwise_affine)


class LocalResponseNorm(Module):
    """Normalisation across neighbouring channels (``F.local_response_norm``)."""

    def __init__(self, size, alpha=1e-4, beta=0.75, k=1.0):
        super().__init__()
        self.size = size
        self.alpha = alpha
        self.beta = beta
        self.k = k

    def forward(self, input):
        return F.local_response_norm(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self):
        return "%s, alpha=%s, beta=%s, k=%s" % (self.size, self.alpha, self.beta, self.k)


# -- lazy modules --------------------------------------------------------------------


def _is_uninitialized(p):
    return isinstance(p, (UninitializedParameter, UninitializedBuffer))


class LazyModuleMixin:
    """``torch.nn.modules.lazy.LazyModuleMixin``: the base of the lazy modules
    (`LazyLinear`, ``LazyConv*``, ``LazyConvTranspose*``, ``LazyBatchNorm*``,
    ``LazyInstanceNorm*``).  Their parameters (and buffers) are `UninitializedParameter`
    (`UninitializedBuffer`) until the first call, which calls ``initialize_parameters``
    with the input and turns the module into its ``cls_to_become``.

    >>> import pyad
    >>> isinstance(pyad.nn.LazyLinear(2), pyad.nn.modules.lazy.LazyModuleMixin)
    True
    """
    cls_to_become = None

    def __init__(self, *args, **kwargs):
        # a user's ``class M(LazyModuleMixin, nn.Module)`` (pyad's own lazy layers set
        # themselves up in their __init__ and materialise in their forward): as torch's,
        # a forward pre-hook runs ``initialize_parameters`` on the first call's arguments
        super().__init__(*args, **kwargs)
        self._initialize_hook = self.register_forward_pre_hook(self._infer_parameters,
                                                               with_kwargs=True)

    def _infer_parameters(self, module, args, kwargs=None):
        module.initialize_parameters(*args, **(kwargs or {}))
        if module.has_uninitialized_params():
            raise RuntimeError("module %s has not been fully initialized"
                               % type(module).__name__)
        module._initialize_hook.remove()
        del module._initialize_hook
        if module.cls_to_become is not None:
            module.__class__ = module.cls_to_become

    def has_uninitialized_params(self):
        """Whether a parameter or buffer still waits for its shape."""
        return any(_is_uninitialized(v) for v in
                   list(self._parameters.values()) + list(self._buffers.values()))

    def initialize_parameters(self, *args, **kwargs):
        """Make the parameters from the first input (each lazy module defines it)."""
        raise NotImplementedError(
            "initialize_parameters() is not implemented for %s" % type(self).__name__)


class LazyLinear(LazyModuleMixin, Linear):
    """A `Linear` whose ``in_features`` is taken from its first input: until then its
    ``weight`` and ``bias`` are `UninitializedParameter`; the first call makes them,
    draws them from torch's distributions, and turns the module into a `Linear`.

    >>> import pyad
    >>> lin = pyad.nn.LazyLinear(2)
    >>> lin(pyad.zeros(4, 3)).shape, type(lin).__name__, lin.in_features
    ((4, 2), 'Linear', 3)
    """
    cls_to_become = Linear

    def __init__(self, out_features, bias=True, device=None, dtype=None):
        Module.__init__(self)
        self.in_features = 0
        self.out_features = out_features
        self.weight = UninitializedParameter(device=device, dtype=dtype)
        if bias:
            self.bias = UninitializedParameter(device=device, dtype=dtype)
        else:
            self.register_parameter("bias", None)

    def reset_parameters(self):
        """Draw weight and bias once their shapes are known."""
        if not self.has_uninitialized_params() and self.in_features != 0:
            super().reset_parameters()

    def has_uninitialized_params(self):
        """Whether a parameter still waits for its shape."""
        return any(_is_uninitialized(p) for p in (self.weight, self.bias))

    def initialize_parameters(self, input):
        """Make the parameters for ``input``'s last dimension and draw them."""
        if self.has_uninitialized_params():
            with no_grad():
                self.in_features = input.shape[input.dim() - 1]
                self.weight.materialize((self.out_features, self.in_features))
                if self.bias is not None:
                    self.bias.materialize((self.out_features,))
                self.reset_parameters()
        if self.in_features == 0:
            # the parameters came from a state_dict: take in_features from them
            last = input.shape[input.dim() - 1]
            if last != self.weight.shape[1]:
                raise AssertionError("The in_features inferred from input: %d is not equal "
                                     "to in_features from self.weight: %d"
                                     % (last, self.weight.shape[1]))
            self.in_features = last
        self.__class__ = self.cls_to_become

    def forward(self, input):
        self.initialize_parameters(input)
        return Linear.forward(self, input)

    def extra_repr(self):
        return "in_features=%d, out_features=%d, bias=%s" % (
            self.in_features, self.out_features, self.bias is not None)


# -- pooling -------------------------------------------------------------------------


class _AdaptiveMaxPoolNd(Module):
    """torch's ``_AdaptiveMaxPoolNd``: ``output_size``, ``return_indices`` and the repr."""

    def __init__(self, output_size, return_indices=False):
        super().__init__()
        self.output_size = output_size
        self.return_indices = return_indices

    def extra_repr(self):
        return "output_size=%s" % (self.output_size,)


class AdaptiveMaxPool2d(_AdaptiveMaxPoolNd):
    """2-D adaptive max pooling to ``output_size`` (``F.adaptive_max_pool2d``)."""
    _fn = staticmethod(F.adaptive_max_pool2d)

    def forward(self, input):
        return type(self)._fn(input, self.output_size, self.return_indices)


class AdaptiveMaxPool1d(AdaptiveMaxPool2d):
    """1-D adaptive max pooling to ``output_size`` (``F.adaptive_max_pool1d``)."""
    _fn = staticmethod(F.adaptive_max_pool1d)


class AdaptiveMaxPool3d(AdaptiveMaxPool2d):
    """3-D adaptive max pooling to ``output_size`` (``F.adaptive_max_pool3d``)."""
    _fn = staticmethod(F.adaptive_max_pool3d)


class _FractionalMaxPoolNd(Module):
    _n = 2

    def __init__(self, kernel_size, output_size=None, output_ratio=None, return_indices=False,
                 _random_samples=None):
        super().__init__()
        name = type(self).__name__
        self.kernel_size = _ntuple(kernel_size, self._n)
        self.return_indices = return_indices
        self.register_buffer("_random_samples", _random_samples)
        self.output_size = _ntuple(output_size, self._n) if output_size is not None else None
        self.output_ratio = _ntuple(output_ratio, self._n) if output_ratio is not None \
            else None
        if output_size is None and output_ratio is None:
            raise ValueError("%s(): %s requires specifying either an output size, or a "
                             "pooling ratio" % (name, name))
        if output_size is not None and output_ratio is not None:
            raise ValueError("%s(): only one of output_size and output_ratio may be specified"
                             % name)
        if self.output_ratio is not None:
            if not all(0 < r < 1 for r in self.output_ratio):
                raise ValueError("%s(): output_ratio must be between 0 and 1 (got %s)"
                                 % (name, output_ratio))

    def forward(self, input):
        fn = F.fractional_max_pool2d if self._n == 2 else F.fractional_max_pool3d
        return fn(input, self.kernel_size, self.output_size, self.output_ratio,
                  self.return_indices, _random_samples=self._random_samples)


class FractionalMaxPool2d(_FractionalMaxPoolNd):
    """2-D fractional max pooling (``F.fractional_max_pool2d``): ``kernel_size`` windows at
    pseudo-random starts, to ``output_size`` or ``output_ratio`` (in ``(0, 1)``) times the
    input; ``_random_samples`` (a buffer) fixes the starts."""
    _n = 2


class FractionalMaxPool3d(_FractionalMaxPoolNd):
    """3-D fractional max pooling (``F.fractional_max_pool3d``); see `FractionalMaxPool2d`."""
    _n = 3


class _MaxUnpoolNd(Module):
    _n = 2

    def __init__(self, kernel_size, stride=None, padding=0):
        super().__init__()
        self.kernel_size = _ntuple(kernel_size, self._n)
        self.stride = _ntuple(stride if stride is not None else kernel_size, self._n)
        self.padding = _ntuple(padding, self._n)

    def forward(self, input, indices, output_size=None):
        fn = {1: F.max_unpool1d, 2: F.max_unpool2d, 3: F.max_unpool3d}[self._n]
        return fn(input, indices, self.kernel_size, self.stride, self.padding, output_size)

    def extra_repr(self):
        return "kernel_size=%s, stride=%s, padding=%s" % (self.kernel_size, self.stride,
                                                          self.padding)


class MaxUnpool1d(_MaxUnpoolNd):
    """The partial inverse of `MaxPool1d` (``F.max_unpool1d``)."""
    _n = 1


class MaxUnpool2d(_MaxUnpoolNd):
    """The partial inverse of `MaxPool2d` (``F.max_unpool2d``).

    >>> import pyad
    >>> pool, unpool = pyad.nn.MaxPool2d(2, return_indices=True), pyad.nn.MaxUnpool2d(2)
    >>> out, idx = pool(pyad.randn(1, 1, 4, 4))
    >>> unpool(out, idx).shape
    (1, 1, 4, 4)
    """
    _n = 2


class MaxUnpool3d(_MaxUnpoolNd):
    """The partial inverse of `MaxPool3d` (``F.max_unpool3d``)."""
    _n = 3


class _LPPoolNd(Module):
    def __init__(self, norm_type, kernel_size, stride=None, ceil_mode=False):
        super().__init__()
        self.norm_type = norm_type
        self.kernel_size = kernel_size
        self.stride = stride
        self.ceil_mode = ceil_mode

    def extra_repr(self):
        return "norm_type=%s, kernel_size=%s, stride=%s, ceil_mode=%s" % (
            self.norm_type, self.kernel_size, self.stride, self.ceil_mode)


class LPPool1d(_LPPoolNd):
    """1-D power-average pooling (``F.lp_pool1d``)."""

    def forward(self, input):
        return F.lp_pool1d(input, float(self.norm_type), self.kernel_size, self.stride,
                           self.ceil_mode)


class LPPool2d(_LPPoolNd):
    """2-D power-average pooling (``F.lp_pool2d``)."""

    def forward(self, input):
        return F.lp_pool2d(input, float(self.norm_type), self.kernel_size, self.stride,
                           self.ceil_mode)


class LPPool3d(_LPPoolNd):
    """3-D power-average pooling (``F.lp_pool3d``)."""

    def forward(self, input):
        return F.lp_pool3d(input, float(self.norm_type), self.kernel_size, self.stride,
                           self.ceil_mode)


# -- shuffling and dropout -----------------------------------------------------------


class ChannelShuffle(Module):
    """Interleave ``groups`` groups of channels (``F.channel_shuffle``)."""

    def __init__(self, groups):
        super().__init__()
        self.groups = groups

    def forward(self, input):
        return F.channel_shuffle(input, self.groups)

    def extra_repr(self):
        return "groups=%s" % (self.groups,)


class AlphaDropout(_DropoutNd):
    """Alpha dropout for SELU networks, in training (``F.alpha_dropout``)."""

    def forward(self, input):
        return F.alpha_dropout(input, self.p, self.training)


class FeatureAlphaDropout(_DropoutNd):
    """Alpha dropout of whole channels, in training (``F.feature_alpha_dropout``)."""

    def forward(self, input):
        return F.feature_alpha_dropout(input, self.p, self.training)


class Dropout3d(_DropoutNd):
    """Zero whole channels of ``(N, C, D, H, W)`` input in training (``F.dropout3d``)."""

    def forward(self, input):
        return F.dropout3d(input, self.p, self.training, self.inplace)


# -- transposed 1-D convolution and embedding bags ------------------------------------


class ConvTranspose1d(_ConvTransposeNd):
    """Transposed 1-D convolution (``F.conv_transpose1d``); weight
    ``(in_channels, out_channels / groups, k)`` as torch's.

    >>> import pyad
    >>> pyad.nn.ConvTranspose1d(4, 2, 3, stride=2)(pyad.randn(1, 4, 5)).shape
    (1, 2, 11)
    """

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 output_padding=0, groups=1, bias=True, dilation=1, padding_mode="zeros",
                 device=None, dtype=None):
        one = lambda v: _ntuple(v, 1)  # noqa: E731
        super().__init__(in_channels, out_channels, one(kernel_size), one(stride),
                         one(padding), one(dilation), True, one(output_padding), groups,
                         bias, padding_mode, device, dtype)

    def forward(self, input, output_size=None):
        return F.conv_transpose1d(input, self.weight, self.bias, self.stride, self.padding,
                                  self._output_padding(input, output_size), self.groups,
                                  self.dilation)


class EmbeddingBag(Module):
    """Sums, means or maxima of bags of embeddings (``F.embedding_bag``), weight from
    N(0, 1) as torch's (the ``padding_idx`` row zeroed).

    >>> import pyad
    >>> bag = pyad.nn.EmbeddingBag(10, 3, mode="sum")
    >>> bag(pyad.tensor([1, 2, 4, 5, 4]), pyad.tensor([0, 2])).shape
    (2, 3)
    """

    def __init__(self, num_embeddings, embedding_dim, max_norm=None, norm_type=2.0,
                 scale_grad_by_freq=False, mode="mean", sparse=False, _weight=None,
                 include_last_offset=False, padding_idx=None, device=None, dtype=None):
        super().__init__()
        self.num_embeddings = num_embeddings
        self.embedding_dim = embedding_dim
        self.max_norm = max_norm
        self.norm_type = norm_type
        self.scale_grad_by_freq = scale_grad_by_freq
        if padding_idx is not None:
            if not -num_embeddings <= padding_idx < num_embeddings:
                raise AssertionError("padding_idx must be within num_embeddings")
            padding_idx = padding_idx % num_embeddings
        self.padding_idx = padding_idx
        if _weight is None:
            self.weight = Parameter(_factory((num_embeddings, embedding_dim), device, dtype))
            self.reset_parameters()
        else:
            if tuple(_weight.shape) != (num_embeddings, embedding_dim):
                raise AssertionError("Shape of weight does not match num_embeddings and "
                                     "embedding_dim")
            self.weight = Parameter(_weight)
        self.mode = mode
        self.sparse = sparse
        self.include_last_offset = include_last_offset

    def reset_parameters(self):
        """Redraw the weight from N(0, 1) and zero the ``padding_idx`` row."""
        init.normal_(self.weight)
        if self.padding_idx is not None:
            with no_grad():
                self.weight[self.padding_idx].fill_(0)

    def forward(self, input, offsets=None, per_sample_weights=None):
        return F.embedding_bag(input, self.weight, offsets, self.max_norm, self.norm_type,
                               self.scale_grad_by_freq, self.mode, self.sparse,
                               per_sample_weights, self.include_last_offset,
                               self.padding_idx)

    def extra_repr(self):
        s = "%r, %r" % (self.num_embeddings, self.embedding_dim)
        if self.max_norm is not None:
            s += ", max_norm=%r" % (self.max_norm,)
        if self.norm_type != 2:
            s += ", norm_type=%r" % (self.norm_type,)
        if self.scale_grad_by_freq is not False:
            s += ", scale_grad_by_freq=%r" % (self.scale_grad_by_freq,)
        s += ", mode=%r" % (self.mode,)
        if self.padding_idx is not None:
            s += ", padding_idx=%r" % (self.padding_idx,)
        return s

    @classmethod
    def from_pretrained(cls, embeddings, freeze=True, max_norm=None, norm_type=2.0,
                        scale_grad_by_freq=False, mode="mean", sparse=False,
                        include_last_offset=False, padding_idx=None):
        """An `EmbeddingBag` holding ``embeddings`` (2-D) as its weight."""
        if embeddings.dim() != 2:
            raise AssertionError("Embeddings parameter is expected to be 2-dimensional")
        rows, cols = embeddings.shape
        bag = cls(rows, cols, max_norm, norm_type, scale_grad_by_freq, mode, sparse,
                  embeddings, include_last_offset, padding_idx)
        bag.weight.requires_grad = not freeze
        return bag


# -- losses --------------------------------------------------------------------------


class MultiLabelMarginLoss(_Loss):
    """Multi-class multi-label hinge loss (``F.multilabel_margin_loss``)."""

    def forward(self, input, target):
        return F.multilabel_margin_loss(input, target, reduction=self.reduction)


class MultiLabelSoftMarginLoss(_Loss):
    """One-versus-all logistic loss (``F.multilabel_soft_margin_loss``); ``weight`` is a
    buffer, as in torch's ``_WeightedLoss``."""

    def __init__(self, weight=None, size_average=None, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)

    def forward(self, input, target):
        return F.multilabel_soft_margin_loss(input, target, weight=self.weight,
                                             reduction=self.reduction)


class TripletMarginWithDistanceLoss(_Loss):
    """Triplet loss with any distance (``F.triplet_margin_with_distance_loss``)."""

    def __init__(self, *, distance_function=None, margin=1.0, swap=False, reduction="mean"):
        super().__init__(None, None, reduction)
        if margin <= 0:
            raise ValueError("TripletMarginWithDistanceLoss: expected margin to be greater "
                             "than 0, got %s instead" % (margin,))
        # torch stores a PairwiseDistance submodule by default (it shows in print(loss))
        if distance_function is None:
            distance_function = PairwiseDistance()
        self.distance_function = distance_function
        self.margin = margin
        self.swap = swap

    def forward(self, anchor, positive, negative):
        return F.triplet_margin_with_distance_loss(
            anchor, positive, negative, distance_function=self.distance_function,
            margin=self.margin, swap=self.swap, reduction=self.reduction)


class CTCLoss(_Loss):
    """The Connectionist Temporal Classification loss (``F.ctc_loss``)."""

    def __init__(self, blank=0, reduction="mean", zero_infinity=False):
        super().__init__(None, None, reduction)
        self.blank = blank
        self.zero_infinity = zero_infinity

    def forward(self, log_probs, targets, input_lengths, target_lengths):
        return F.ctc_loss(log_probs, targets, input_lengths, target_lengths, self.blank,
                          self.reduction, self.zero_infinity)


# -- 3-D layers ----------------------------------------------------------------------


class Conv3d(_ConvNd):
    """3-D convolution over ``(N, C, D, H, W)`` input (``F.conv3d``), torch's
    initialisation.

    >>> import pyad
    >>> pyad.nn.Conv3d(2, 4, 3, padding=1)(pyad.randn(1, 2, 4, 4, 4)).shape
    (1, 4, 4, 4, 4)
    """

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 dilation=1, groups=1, bias=True, padding_mode="zeros", device=None,
                 dtype=None):
        three = lambda v: _ntuple(v, 3)  # noqa: E731
        super().__init__(in_channels, out_channels, three(kernel_size), three(stride),
                         padding if isinstance(padding, str) else three(padding),
                         three(dilation), False, three(0), groups, bias, padding_mode,
                         device, dtype)

    def _conv_forward(self, input, weight, bias):
        # torch's Conv3d._conv_forward (subclasses pass their own weight and bias)
        input, padding = self._conv_input(input)
        return F.conv3d(input, weight, bias, self.stride, padding, self.dilation,
                        self.groups)

    def forward(self, input):
        return self._conv_forward(input, self.weight, self.bias)


class ConvTranspose3d(_ConvTransposeNd):
    """Transposed 3-D convolution (``F.conv_transpose3d``); weight
    ``(in_channels, out_channels / groups, kD, kH, kW)`` as torch's.

    >>> import pyad
    >>> pyad.nn.ConvTranspose3d(2, 1, 3, stride=2)(pyad.randn(1, 2, 2, 3, 3)).shape
    (1, 1, 5, 7, 7)
    """

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 output_padding=0, groups=1, bias=True, dilation=1, padding_mode="zeros",
                 device=None, dtype=None):
        three = lambda v: _ntuple(v, 3)  # noqa: E731
        super().__init__(in_channels, out_channels, three(kernel_size), three(stride),
                         three(padding), three(dilation), True, three(output_padding), groups,
                         bias, padding_mode, device, dtype)

    def forward(self, input, output_size=None):
        return F.conv_transpose3d(input, self.weight, self.bias, self.stride, self.padding,
                                  self._output_padding(input, output_size), self.groups,
                                  self.dilation)


class MaxPool3d(_MaxPoolNd):
    """3-D max pooling (``F.max_pool3d``); ``stride`` defaults to ``kernel_size``."""

    def forward(self, input):
        return F.max_pool3d(input, self.kernel_size, self.stride, self.padding, self.dilation,
                            ceil_mode=self.ceil_mode, return_indices=self.return_indices)


class AvgPool3d(_AvgPoolNd):
    """3-D average pooling (``F.avg_pool3d``); ``stride`` defaults to ``kernel_size``."""

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False,
                 count_include_pad=True, divisor_override=None):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding = padding
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad
        self.divisor_override = divisor_override

    def forward(self, input):
        return F.avg_pool3d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad, self.divisor_override)


class AdaptiveAvgPool3d(_AdaptiveAvgPoolNd):
    """3-D adaptive average pooling to ``output_size`` (``F.adaptive_avg_pool3d``)."""

    def forward(self, input):
        return F.adaptive_avg_pool3d(input, self.output_size)


class BatchNorm3d(_BatchNorm):
    """Batch normalisation over ``(N, C, D, H, W)`` input, per channel (the running
    statistics as `BatchNorm2d`)."""

    def _check_input_dim(self, input):
        if input.dim() != 5:
            raise ValueError("BatchNorm3d(): expected 5D input (got %dD input)" % input.dim())


class InstanceNorm3d(_InstanceNorm):
    """Instance normalisation of ``(N, C, D, H, W)`` / ``(C, D, H, W)`` input
    (``F.instance_norm``)."""
    _ndim = 5


# -- lazy convolutions ---------------------------------------------------------------


class _LazyConvMixin(LazyModuleMixin):
    # in_channels from the first input (dim 1, or dim 0 unbatched), as torch's
    _spatial = 2

    def _lazy_init(self, bias, device, dtype):
        self.weight = UninitializedParameter(device=device, dtype=dtype)
        if bias:
            self.bias = UninitializedParameter(device=device, dtype=dtype)

    def reset_parameters(self):
        """Draw weight and bias once their shapes are known."""
        if not self.has_uninitialized_params() and self.in_channels != 0:
            super().reset_parameters()

    def has_uninitialized_params(self):
        """Whether a parameter still waits for its shape."""
        return any(_is_uninitialized(p) for p in (self.weight, self.bias))

    def initialize_parameters(self, input):
        """Make the parameters for ``input``'s channel count and draw them."""
        if self.has_uninitialized_params():
            batched = self._spatial + 2
            if input.dim() not in (batched - 1, batched):
                raise RuntimeError("Expected %dD (unbatched) or %dD (batched) input to %s, "
                                   "but got input of size: %s"
                                   % (batched - 1, batched, type(self).__name__,
                                      list(input.shape)))
            self.in_channels = input.shape[1] if input.dim() == batched else input.shape[0]
            if self.in_channels % self.groups != 0:
                raise ValueError("in_channels must be divisible by groups")
            with no_grad():
                if self.transposed:
                    shape = (self.in_channels, self.out_channels // self.groups)
                else:
                    shape = (self.out_channels, self.in_channels // self.groups)
                self.weight.materialize(shape + tuple(self.kernel_size))
                if self.bias is not None:
                    self.bias.materialize((self.out_channels,))
                self.reset_parameters()
        self.__class__ = self.cls_to_become

    def forward(self, input, *args, **kwargs):
        layer = self.cls_to_become
        self.initialize_parameters(input)
        return layer.forward(self, input, *args, **kwargs)


class _LazyConvNd(_LazyConvMixin):
    def __init__(self, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1,
                 bias=True, padding_mode="zeros", device=None, dtype=None):
        # built as the layer with 0 input channels (reset_parameters draws nothing then),
        # then its parameters replaced by uninitialized ones
        self.cls_to_become.__init__(self, 0, out_channels, kernel_size, stride, padding,
                                    dilation, groups, bias, padding_mode, device, dtype)
        self._lazy_init(bias, device, dtype)


class LazyConv1d(_LazyConvNd, Conv1d):
    """A `Conv1d` whose ``in_channels`` is taken from its first input (``torch.nn``'s
    lazy module): until then its parameters are `UninitializedParameter`; the first call
    makes them, draws them from torch's distributions and turns the module into a
    `Conv1d`.

    >>> import pyad
    >>> conv = pyad.nn.LazyConv1d(4, 3)
    >>> conv(pyad.zeros(2, 5, 7)).shape, type(conv).__name__, conv.in_channels
    ((2, 4, 5), 'Conv1d', 5)
    """
    cls_to_become = Conv1d
    _spatial = 1


class LazyConv2d(_LazyConvNd, Conv2d):
    """A `Conv2d` whose ``in_channels`` is taken from its first input; see `LazyConv1d`.

    >>> import pyad
    >>> conv = pyad.nn.LazyConv2d(4, 3)
    >>> conv
    LazyConv2d(0, 4, kernel_size=(3, 3), stride=(1, 1))
    >>> conv(pyad.zeros(1, 2, 5, 5)).shape, conv
    ((1, 4, 3, 3), Conv2d(2, 4, kernel_size=(3, 3), stride=(1, 1)))
    """
    cls_to_become = Conv2d
    _spatial = 2


class LazyConv3d(_LazyConvNd, Conv3d):
    """A `Conv3d` whose ``in_channels`` is taken from its first input; see `LazyConv1d`.

    >>> import pyad
    >>> conv = pyad.nn.LazyConv3d(4, 3)
    >>> conv(pyad.zeros(1, 2, 5, 5, 5)).shape, type(conv).__name__, conv.weight.shape
    ((1, 4, 3, 3, 3), 'Conv3d', (4, 2, 3, 3, 3))
    """
    cls_to_become = Conv3d
    _spatial = 3


class _LazyConvTransposeNd(_LazyConvMixin):
    def __init__(self, out_channels, kernel_size, stride=1, padding=0, output_padding=0,
                 groups=1, bias=True, dilation=1, padding_mode="zeros", device=None,
                 dtype=None):
        self.cls_to_become.__init__(self, 0, out_channels, kernel_size, stride, padding,
                                    output_padding, groups, bias, dilation, padding_mode,
                                    device, dtype)
        self._lazy_init(bias, device, dtype)


class LazyConvTranspose1d(_LazyConvTransposeNd, ConvTranspose1d):
    """A `ConvTranspose1d` whose ``in_channels`` is taken from its first input (weight
    ``(in_channels, out_channels / groups, k)`` made then); see `LazyConv1d`.

    >>> import pyad
    >>> up = pyad.nn.LazyConvTranspose1d(2, 3, stride=2)
    >>> up(pyad.zeros(1, 4, 5)).shape, type(up).__name__, up.weight.shape
    ((1, 2, 11), 'ConvTranspose1d', (4, 2, 3))
    """
    cls_to_become = ConvTranspose1d
    _spatial = 1


class LazyConvTranspose2d(_LazyConvTransposeNd, ConvTranspose2d):
    """A `ConvTranspose2d` whose ``in_channels`` is taken from its first input; see
    `LazyConvTranspose1d`."""
    cls_to_become = ConvTranspose2d
    _spatial = 2


class LazyConvTranspose3d(_LazyConvTransposeNd, ConvTranspose3d):
    """A `ConvTranspose3d` whose ``in_channels`` is taken from its first input; see
    `LazyConvTranspose1d`."""
    cls_to_become = ConvTranspose3d
    _spatial = 3


# -- lazy normalisation --------------------------------------------------------------


class _LazyNormMixin(LazyModuleMixin):
    """torch's ``_LazyNormBase``: ``num_features`` from ``input.shape[1]`` at the first
    call; ``weight``/``bias`` (if ``affine``) are `UninitializedParameter` and
    ``running_mean``/``running_var`` (if ``track_running_stats``) `UninitializedBuffer`
    until then (``num_batches_tracked`` is a plain int64 0 from the start)."""

    def __init__(self, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True,
                 device=None, dtype=None, *, bias=True):
        # built with 0 features and no affine map / statistics, then given the lazy ones
        self.cls_to_become.__init__(self, 0, eps, momentum, False, False, device, dtype,
                                    bias=False)
        self.affine = affine
        self.track_running_stats = track_running_stats
        if affine:
            self.weight = UninitializedParameter(device=device, dtype=dtype)
            if bias:
                self.bias = UninitializedParameter(device=device, dtype=dtype)
        if track_running_stats:
            self.running_mean = UninitializedBuffer(device=device, dtype=dtype)
            self.running_var = UninitializedBuffer(device=device, dtype=dtype)
            self.num_batches_tracked = tensor(0, dtype=numpy.int64, device=device)

    def reset_parameters(self):
        """Reset the statistics and the affine map once their shapes are known."""
        if not self.has_uninitialized_params() and self.num_features != 0:
            # torch's _NormBase.reset_parameters (pyad's InstanceNorm has none)
            with no_grad():
                if self.track_running_stats:
                    self.running_mean.zero_()
                    self.running_var.fill_(1.0)
                    self.num_batches_tracked.zero_()
                if self.affine:
                    init.ones_(self.weight)
                    if self.bias is not None:
                        init.zeros_(self.bias)

    def has_uninitialized_params(self):
        """Whether a parameter or buffer still waits for its shape."""
        return any(_is_uninitialized(v) for v in
                   list(self._parameters.values()) + list(self._buffers.values()))

    def initialize_parameters(self, input):
        """Make the parameters and statistics for ``input.shape[1]`` features."""
        if self.has_uninitialized_params():
            self.num_features = input.shape[1]
            with no_grad():
                if self.affine:
                    self.weight.materialize((self.num_features,))
                    if self.bias is not None:
                        self.bias.materialize((self.num_features,))
                if self.track_running_stats:
                    self.running_mean.materialize((self.num_features,))
                    self.running_var.materialize((self.num_features,))
                self.reset_parameters()
        self.__class__ = self.cls_to_become

    def forward(self, input):
        layer = self.cls_to_become
        self.initialize_parameters(input)
        return layer.forward(self, input)


class LazyBatchNorm1d(_LazyNormMixin, BatchNorm1d):
    """A `BatchNorm1d` whose ``num_features`` is taken from ``input.shape[1]`` at its
    first call (``torch.nn.LazyBatchNorm1d``); it then becomes a `BatchNorm1d`.

    >>> import pyad
    >>> bn = pyad.nn.LazyBatchNorm1d()
    >>> bn
    LazyBatchNorm1d(0, eps=1e-05, momentum=0.1, affine=True, bias=True, track_running_stats=True)
    >>> bn(pyad.randn(4, 3)).shape, type(bn).__name__, bn.running_mean.shape
    ((4, 3), 'BatchNorm1d', (3,))
    """
    cls_to_become = BatchNorm1d


class LazyBatchNorm2d(_LazyNormMixin, BatchNorm2d):
    """A `BatchNorm2d` whose ``num_features`` is taken from its first input; see
    `LazyBatchNorm1d`."""
    cls_to_become = BatchNorm2d


class LazyBatchNorm3d(_LazyNormMixin, BatchNorm3d):
    """A `BatchNorm3d` whose ``num_features`` is taken from its first input; see
    `LazyBatchNorm1d`."""
    cls_to_become = BatchNorm3d


class LazyInstanceNorm1d(_LazyNormMixin, InstanceNorm1d):
    """An `InstanceNorm1d` whose ``num_features`` is taken from ``input.shape[1]`` at its
    first call; as torch's, ``affine`` and ``track_running_stats`` default to True here.
    """
    cls_to_become = InstanceNorm1d


class LazyInstanceNorm2d(_LazyNormMixin, InstanceNorm2d):
    """An `InstanceNorm2d` whose ``num_features`` is taken from its first input; see
    `LazyInstanceNorm1d`."""
    cls_to_become = InstanceNorm2d


class LazyInstanceNorm3d(_LazyNormMixin, InstanceNorm3d):
    """An `InstanceNorm3d` whose ``num_features`` is taken from its first input; see
    `LazyInstanceNorm1d`."""
    cls_to_become = InstanceNorm3d
