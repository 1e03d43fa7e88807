"""More everyday ``torch.nn`` layers and containers: `Conv1d`, `ConvTranspose2d`,
`BatchNorm1d`, `GroupNorm`, `InstanceNorm1d`/`InstanceNorm2d`, pooling
(`AvgPool2d`, `MaxPool1d`, `AvgPool1d`, `AdaptiveAvgPool2d`, `AdaptiveAvgPool1d`),
`Upsample`, `PixelShuffle`, `PixelUnshuffle`, `Dropout1d`/`Dropout2d`, `Bilinear`,
`CosineSimilarity`, `PairwiseDistance`, `ModuleDict`, `ParameterList`, `ParameterDict`.

Parameter names, shapes and initialisation are torch's.

>>> import pyad
>>> net = pyad.nn.Sequential(pyad.nn.Conv1d(2, 4, 3, padding=1), pyad.nn.BatchNorm1d(4),
...                          pyad.nn.MaxPool1d(2))
>>> net(pyad.randn(5, 2, 8)).shape
(5, 4, 4)
"""
import collections
import collections.abc
import math

from pyad._engine import Variable
from pyad.nn import functional as F
from pyad.nn import init
from pyad.nn.modules import (Module, _BatchNorm, _ConvNd, _ConvTransposeNd, _DropoutNd,
                              _NormBase, _MaxPoolNd, _factory, _pair, _index)
from pyad.nn.parameter import Parameter

__all__ = ["Conv1d", "ConvTranspose2d", "BatchNorm1d", "GroupNorm", "InstanceNorm1d",
           "InstanceNorm2d", "AvgPool1d", "AvgPool2d", "MaxPool1d", "AdaptiveAvgPool1d",
           "AdaptiveAvgPool2d", "Upsample", "UpsamplingNearest2d", "UpsamplingBilinear2d",
           "PixelShuffle", "PixelUnshuffle", "Dropout1d", "Dropout2d", "Bilinear",
           "CosineSimilarity", "PairwiseDistance", "ModuleDict", "ParameterList",
           "ParameterDict"]


def _single(x):
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


# -- convolutions --------------------------------------------------------------------


class Conv1d(_ConvNd):
    """1-D convolution over ``(N, C, L)`` input (``F.conv1d``), torch's initialisation.

    >>> import pyad
    >>> pyad.nn.Conv1d(2, 3, 5).weight.shape
    (3, 2, 5)
    """

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 dilation=1, groups=1, bias=True, padding_mode="zeros", device=None,
                 dtype=None):
        super().__init__(in_channels, out_channels, _single(kernel_size), _single(stride),
                         padding if isinstance(padding, str) else _single(padding),
                         _single(dilation), False, _single(0), groups, bias, padding_mode,
                         device, dtype)

    def _conv_forward(self, input, weight, bias):
        # torch's Conv1d._conv_forward (subclasses pass their own weight and bias)
        input, padding = self._conv_input(input)
        return F.conv1d(input, weight, bias, self.stride, padding, self.dilation,
                        self.groups)

    def forward(self, input):
        return self._conv_forward(input, self.weight, self.bias)


class ConvTranspose2d(_ConvTransposeNd):
    """Transposed 2-D convolution (``F.conv_transpose2d``); weight
    ``(in_channels, out_channels / groups, kH, kW)`` as torch's.

    >>> import pyad
    >>> up = pyad.nn.ConvTranspose2d(4, 2, 3, stride=2, padding=1, output_padding=1)
    >>> up(pyad.randn(1, 4, 5, 5)).shape
    (1, 2, 10, 10)
    """

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 output_padding=0, groups=1, bias=True, dilation=1, padding_mode="zeros",
                 device=None, dtype=None):
        super().__init__(in_channels, out_channels, _pair(kernel_size), _pair(stride),
                         _pair(padding), _pair(dilation), True, _pair(output_padding),
                         groups, bias, padding_mode, device, dtype)

    def forward(self, input, output_size=None):
        return F.conv_transpose2d(input, self.weight, self.bias, self.stride, self.padding,
                                  self._output_padding(input, output_size), self.groups,
                                  self.dilation)


# -- normalisation -------------------------------------------------------------------


class BatchNorm1d(_BatchNorm):
    """Batch normalisation over ``(N, C)`` or ``(N, C, L)`` input, per channel (the
    running statistics as `BatchNorm2d`)."""

    def _check_input_dim(self, input):
        if input.dim() not in (2, 3):
            raise ValueError("BatchNorm1d(): expected 2D or 3D input (got %dD input)"
                             % input.dim())


class GroupNorm(Module):
    """Group normalisation (``F.group_norm``) with a per-channel affine map.

    >>> import pyad
    >>> pyad.nn.GroupNorm(2, 4)(pyad.randn(3, 4, 5)).shape
    (3, 4, 5)
    """

    def __init__(self, num_groups, num_channels, eps=1e-5, affine=True, device=None,
                 dtype=None, *, bias=True):
        super().__init__()
        if num_channels % num_groups != 0:
            raise ValueError("num_channels (%d) must be divisible by num_groups (%d)"
                             % (num_channels, num_groups))
        self.num_groups = num_groups
        self.num_channels = num_channels
        self.eps = eps
        self.affine = affine
        if affine:
            self.weight = Parameter(_factory((num_channels,), device, dtype))
            if bias:
                self.bias = Parameter(_factory((num_channels,), device, dtype))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        """Weight to ones, bias to zeros."""
        if self.affine:
            init.ones_(self.weight)
            if self.bias is not None:
                init.zeros_(self.bias)

    def forward(self, input):
        return F.group_norm(input, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return "%d, %d, eps=%s, affine=%s, bias=%s" % (
            self.num_groups, self.num_channels, self.eps, self.affine, self.bias is not None)


class _InstanceNorm(_NormBase):
    """torch's ``_InstanceNorm``: a `_NormBase` with instance statistics; no affine map
    and no running statistics by default."""
    _ndim = 4

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=False,
                 track_running_stats=False, device=None, dtype=None, *, bias=True):
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device,
                         dtype, bias=bias)

    def _check_input_dim(self, input):
        if input.dim() not in (self._ndim - 1, self._ndim):
            raise ValueError("%s(): expected %dD or %dD input (got %dD input)"
                             % (type(self).__name__, self._ndim - 1, self._ndim,
                                input.dim()))

    def forward(self, input):
        self._check_input_dim(input)
        unbatched = input.dim() == self._ndim - 1
        if unbatched:
            input = input.unsqueeze(0)
        channels = input.shape[1]
        if channels != self.num_features:
            if self.affine:
                raise ValueError("expected input's size at dim=1 to match num_features (%d), "
                                 "but got: %d." % (self.num_features, channels))
            import warnings
            warnings.warn("input's size at dim=1 does not match num_features. You can "
                          "silence this warning by not passing in num_features, which is "
                          "not used because affine=False")
        use_input_stats = self.training or not self.track_running_stats
        out = F.instance_norm(input, self.running_mean, self.running_var, self.weight,
                              self.bias, use_input_stats,
                              # (torch: momentum None leaves the running stats alone)
                              0.0 if self.momentum is None else self.momentum, self.eps)
        return out.squeeze(0) if unbatched else out

    def extra_repr(self):
        return ("%d, eps=%s, momentum=%s, affine=%s, bias=%s, track_running_stats=%s"
                % (self.num_features, self.eps, self.momentum, self.affine,
                   self.bias is not None, self.track_running_stats))


class InstanceNorm1d(_InstanceNorm):
    """Instance normalisation of ``(N, C, L)`` / ``(C, L)`` input (``F.instance_norm``)."""
    _ndim = 3


class InstanceNorm2d(_InstanceNorm):
    """Instance normalisation of ``(N, C, H, W)`` / ``(C, H, W)`` input: each channel of
    each sample over its ``H x W`` values; no affine map and no running statistics by
    default, as torch's.

    >>> import pyad
    >>> y = pyad.nn.InstanceNorm2d(3)(pyad.randn(2, 3, 4, 4))
    >>> abs(float(y[1, 2].mean())) < 1e-5
    True
    """
    _ndim = 4


# -- pooling and resizing ------------------------------------------------------------


class _AvgPoolNd(Module):
    """torch's ``_AvgPoolNd``: the base of AvgPool1d/2d/3d (their repr)."""

    def extra_repr(self):
        return "kernel_size=%s, stride=%s, padding=%s" % (self.kernel_size, self.stride,
                                                           self.padding)


class _AdaptiveAvgPoolNd(Module):
    """torch's ``_AdaptiveAvgPoolNd``: ``output_size`` and its repr."""

    def __init__(self, output_size):
        super().__init__()
        self.output_size = output_size

    def extra_repr(self):
        return "output_size=%s" % (self.output_size,)


class AvgPool2d(_AvgPoolNd):
    """2-D average pooling (``F.avg_pool2d``); ``stride`` defaults to ``kernel_size``."""

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
        return F.avg_pool2d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad, self.divisor_override)


class AvgPool1d(_AvgPoolNd):
    """1-D average pooling (``F.avg_pool1d``)."""

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False,
                 count_include_pad=True):
        super().__init__()
        self.kernel_size = _single(kernel_size)
        self.stride = _single(stride if stride is not None else kernel_size)
        self.padding = _single(padding)
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad

    def forward(self, input):
        return F.avg_pool1d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad)


class MaxPool1d(_MaxPoolNd):
    """1-D max pooling (``F.max_pool1d``); ``stride`` defaults to ``kernel_size``."""

    def forward(self, input):
        return F.max_pool1d(input, self.kernel_size, self.stride, self.padding, self.dilation,
                            ceil_mode=self.ceil_mode, return_indices=self.return_indices)


class AdaptiveAvgPool2d(_AdaptiveAvgPoolNd):
    """2-D adaptive average pooling to ``output_size`` (``F.adaptive_avg_pool2d``)."""

    def forward(self, input):
        from pyad.nn._functional_more import _adaptive_dim_check
        _adaptive_dim_check(input, 2, "adaptive_avg_pool2d")
        return F.adaptive_avg_pool2d(input, self.output_size)


class AdaptiveAvgPool1d(AdaptiveAvgPool2d):
    """1-D adaptive average pooling to ``output_size`` (``F.adaptive_avg_pool1d``)."""

    def forward(self, input):
        return F.adaptive_avg_pool1d(input, self.output_size)


class Upsample(Module):
    """Resize by ``F.interpolate`` (``size`` or ``scale_factor``; modes nearest,
    nearest-exact, linear, bilinear).

    >>> import pyad
    >>> pyad.nn.Upsample(scale_factor=2, mode="bilinear")(pyad.randn(1, 1, 3, 4)).shape
    (1, 1, 6, 8)
    """

    def __init__(self, size=None, scale_factor=None, mode="nearest", align_corners=None,
                 recompute_scale_factor=None):
        super().__init__()
        self.name = type(self).__name__
        self.size = size
        self.scale_factor = float(scale_factor) if isinstance(scale_factor, (int, float)) \
            else (tuple(float(f) for f in scale_factor) if scale_factor else None)
        self.mode = mode
        self.align_corners = align_corners
        self.recompute_scale_factor = recompute_scale_factor

    def forward(self, input):
        return F.interpolate(input, self.size, self.scale_factor, self.mode,
                             self.align_corners,
                             recompute_scale_factor=self.recompute_scale_factor)

    def extra_repr(self):
        if self.scale_factor is not None:
            info = "scale_factor=%r" % (self.scale_factor,)
        else:
            info = "size=%r" % (self.size,)
        return info + ", mode=%r" % (self.mode,)


class UpsamplingNearest2d(Upsample):
    """`Upsample` with ``mode='nearest'``."""

    def __init__(self, size=None, scale_factor=None):
        super().__init__(size, scale_factor, mode="nearest")


class UpsamplingBilinear2d(Upsample):
    """`Upsample` with ``mode='bilinear'`` and ``align_corners=True``."""

    def __init__(self, size=None, scale_factor=None):
        super().__init__(size, scale_factor, mode="bilinear", align_corners=True)


class PixelShuffle(Module):
    """``(*, C r^2, H, W) -> (*, C, H r, W r)`` (``F.pixel_shuffle``)."""

    def __init__(self, upscale_factor):
        super().__init__()
        self.upscale_factor = upscale_factor

    def forward(self, input):
        return F.pixel_shuffle(input, self.upscale_factor)

    def extra_repr(self):
        return "upscale_factor=%s" % self.upscale_factor


class PixelUnshuffle(Module):
    """``(*, C, H r, W r) -> (*, C r^2, H, W)`` (``F.pixel_unshuffle``)."""

    def __init__(self, downscale_factor):
        super().__init__()
        self.downscale_factor = downscale_factor

    def forward(self, input):
        return F.pixel_unshuffle(input, self.downscale_factor)

    def extra_repr(self):
        return "downscale_factor=%s" % self.downscale_factor


class Unfold(Module):
    """Extract sliding blocks as columns (``F.unfold``): ``(N, C, H, W)`` to
    ``(N, C * kh * kw, L)``.

    >>> import pyad
    >>> pyad.nn.Unfold(2)(pyad.zeros(1, 3, 4, 4)).shape
    (1, 12, 9)
    """

    def __init__(self, kernel_size, dilation=1, padding=0, stride=1):
        super().__init__()
        self.kernel_size = kernel_size
        self.dilation = dilation
        self.padding = padding
        self.stride = stride

    def forward(self, input):
        return F.unfold(input, self.kernel_size, self.dilation, self.padding, self.stride)

    def extra_repr(self):
        return "kernel_size=%s, dilation=%s, padding=%s, stride=%s" % (
            self.kernel_size, self.dilation, self.padding, self.stride)


class Fold(Module):
    """Sum columns of sliding blocks back into an image (``F.fold``), the adjoint of
    `Unfold`: ``(N, C * kh * kw, L)`` to ``(N, C, *output_size)``.

    >>> import pyad
    >>> pyad.nn.Fold((4, 4), 2)(pyad.zeros(1, 12, 9)).shape
    (1, 3, 4, 4)
    """

    def __init__(self, output_size, kernel_size, dilation=1, padding=0, stride=1):
        super().__init__()
        self.output_size = output_size
        self.kernel_size = kernel_size
        self.dilation = dilation
        self.padding = padding
        self.stride = stride

    def forward(self, input):
        return F.fold(input, self.output_size, self.kernel_size, self.dilation, self.padding,
                      self.stride)

    def extra_repr(self):
        return "output_size=%s, kernel_size=%s, dilation=%s, padding=%s, stride=%s" % (
            self.output_size, self.kernel_size, self.dilation, self.padding, self.stride)


class Dropout1d(_DropoutNd):
    """Zero whole channels of ``(N, C, L)`` input in training (``F.dropout1d``)."""

    def forward(self, input):
        return F.dropout1d(input, self.p, self.training, self.inplace)


class Dropout2d(_DropoutNd):
    """Zero whole channels of ``(N, C, H, W)`` input in training (``F.dropout2d``)."""

    def forward(self, input):
        return F.dropout2d(input, self.p, self.training, self.inplace)


# -- bilinear and distances ----------------------------------------------------------


class Bilinear(Module):
    """``y = x1^T A x2 + b`` (``F.bilinear``): weight ``(out, in1, in2)``, weight and bias
    from U(-1/sqrt(in1), 1/sqrt(in1)) as torch's.

    >>> import pyad
    >>> pyad.nn.Bilinear(2, 3, 4)(pyad.randn(5, 2), pyad.randn(5, 3)).shape
    (5, 4)
    """

    def __init__(self, in1_features, in2_features, out_features, bias=True, device=None,
                 dtype=None):
        super().__init__()
        if in1_features <= 0:
            raise ValueError("Bilinear(): in1_features must be > 0, but got "
                             + str(in1_features))
        self.in1_features = in1_features
        self.in2_features = in2_features
        self.out_features = out_features
        self.weight = Parameter(_factory((out_features, in1_features, in2_features), device,
                                         dtype))
        if bias:
            self.bias = Parameter(_factory((out_features,), device, dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        """Redraw weight and bias from U(-1/sqrt(in1_features), 1/sqrt(in1_features))."""
        bound = 1 / math.sqrt(self.weight.shape[1]) if self.weight.shape[1] else 0
        init.uniform_(self.weight, -bound, bound)
        if self.bias is not None:
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input1, input2):
        return F.bilinear(input1, input2, self.weight, self.bias)

    def extra_repr(self):
        return "in1_features=%d, in2_features=%d, out_features=%d, bias=%s" % (
            self.in1_features, self.in2_features, self.out_features, self.bias is not None)


class CosineSimilarity(Module):
    """``F.cosine_similarity`` along ``dim``."""

    def __init__(self, dim=1, eps=1e-8):
        super().__init__()
        self.dim = dim
        self.eps = eps

    def forward(self, x1, x2):
        return F.cosine_similarity(x1, x2, self.dim, self.eps)


class PairwiseDistance(Module):
    """``F.pairwise_distance``: the ``p``-norm of ``x1 - x2 + eps`` over the last dim."""

    def __init__(self, p=2.0, eps=1e-6, keepdim=False):
        super().__init__()
        self.norm = p
        self.eps = eps
        self.keepdim = keepdim

    def forward(self, x1, x2):
        return F.pairwise_distance(x1, x2, self.norm, self.eps, self.keepdim)


# -- containers ----------------------------------------------------------------------


class ModuleDict(Module):
    """An ordered dict of submodules, registered so their parameters are the parent's.

    >>> import pyad
    >>> heads = pyad.nn.ModuleDict({"a": pyad.nn.Linear(2, 1), "b": pyad.nn.Linear(2, 3)})
    >>> list(heads), heads["b"].out_features, len(list(heads.parameters()))
    (['a', 'b'], 3, 4)
    """

    def __init__(self, modules=None):
        super().__init__()
        if modules is not None:
            self.update(modules)

    def __getitem__(self, key):
        return self._modules[key]

    def __setitem__(self, key, module):
        self.add_module(key, module)

    def __delitem__(self, key):
        del self._modules[key]

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules)

    def __contains__(self, key):
        return key in self._modules

    def clear(self):
        """Remove every module."""
        self._modules.clear()

    def pop(self, key):
        """Remove ``key`` and return its module."""
        v = self[key]
        del self[key]
        return v

    def keys(self):
        return self._modules.keys()

    def items(self):
        return self._modules.items()

    def values(self):
        return self._modules.values()

    def update(self, modules):
        """Add the ``(name, module)`` pairs of a mapping or an iterable of pairs."""
        if isinstance(modules, (collections.OrderedDict, ModuleDict, dict)) or \
                hasattr(modules, "keys"):
            for key, module in modules.items():
                self[key] = module
        else:
            if not isinstance(modules, collections.abc.Iterable):
                raise TypeError("ModuleDict.update(): expected an iterable of key/value "
                                "pairs, but got " + type(modules).__name__)
            for j, m in enumerate(modules):
                if not isinstance(m, collections.abc.Iterable):
                    raise TypeError("ModuleDict.update(): sequence element #%d should be "
                                    "Iterable; is %s" % (j, type(m).__name__))
                if len(m) != 2:
                    raise ValueError("ModuleDict.update(): sequence element #%d has length "
                                     "%d; 2 is required" % (j, len(m)))
                self[m[0]] = m[1]

    def forward(self, *args, **kwargs):
        raise NotImplementedError("ModuleDict has no forward; index it instead")


class ParameterList(Module):
    """A list of `Parameter` s, registered (as ``'0'``, ``'1'``, ...) on the module.

    >>> import pyad
    >>> ps = pyad.nn.ParameterList([pyad.nn.Parameter(pyad.zeros(2)) for _ in range(3)])
    >>> len(ps), [name for name, _ in ps.named_parameters()]
    (3, ['0', '1', '2'])
    """

    def __init__(self, values=None):
        super().__init__()
        self._size = 0
        if values is not None:
            self += values

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return ParameterList([self[i] for i in range(len(self))[idx]])
        return getattr(self, str(_index(idx, len(self), "ParameterList")))

    def __setitem__(self, idx, param):
        idx = _index(idx, len(self), "ParameterList")
        self._set(str(idx), param)

    def _set(self, name, param):
        if isinstance(param, Variable) and not isinstance(param, Parameter):
            param = Parameter(param)
        if isinstance(param, Parameter):
            self.register_parameter(name, param)
        else:
            setattr(self, name, param)

    def __len__(self):
        return self._size

    def __iter__(self):
        return iter(self[i] for i in range(len(self)))

    def __iadd__(self, parameters):
        return self.extend(parameters)

    def append(self, value):
        """Add ``value`` at the end (a Variable becomes a `Parameter`); return self."""
        new_idx = len(self)
        self._size += 1
        self._set(str(new_idx), value)
        return self

    def extend(self, values):
        """Append every value of an iterable; return self."""
        if not isinstance(values, collections.abc.Iterable) or isinstance(values, Variable):
            raise TypeError("ParameterList.extend(): expected an iterable, but got "
                            + type(values).__name__)
        for value in values:
            self.append(value)
        return self

    def extra_repr(self):
        lines = []
        for k, p in enumerate(self):
            if isinstance(p, Variable):
                lines.append("  (%d): Parameter containing: [%s of size %s]"
                             % (k, p.dtype, "x".join(str(s) for s in p.shape)))
            else:
                lines.append("  (%d): Object of type: %s" % (k, type(p).__name__))
        return "\n".join(lines)

    def forward(self, *args, **kwargs):
        raise NotImplementedError("ParameterList has no forward; iterate over it instead")


class ParameterDict(Module):
    """An ordered dict of `Parameter` s, registered under their keys.

    >>> import pyad
    >>> pd = pyad.nn.ParameterDict({"scale": pyad.nn.Parameter(pyad.ones(1))})
    >>> pd["shift"] = pyad.zeros(1)           # a Variable becomes a Parameter
    >>> list(pd.keys()), type(pd["shift"]).__name__
    (['scale', 'shift'], 'Parameter')
    """

    def __init__(self, parameters=None):
        super().__init__()
        self._keys = {}
        if parameters is not None:
            self.update(parameters)

    def __getitem__(self, key):
        return getattr(self, key)

    def __setitem__(self, key, value):
        if not isinstance(key, str):
            raise TypeError("ParameterDict(): a key must be a string, got "
                            + type(key).__name__)
        self._keys[key] = None
        if isinstance(value, Variable) and not isinstance(value, Parameter):
            value = Parameter(value)
        if isinstance(value, Parameter):
            self.register_parameter(key, value)
        else:
            setattr(self, key, value)

    def __delitem__(self, key):
        del self._keys[key]
        delattr(self, key)

    def __len__(self):
        return len(self._keys)

    def __iter__(self):
        return iter(self._keys)

    def __contains__(self, key):
        return key in self._keys

    def keys(self):
        return self._keys.keys()

    def items(self):
        return ((k, self[k]) for k in self._keys)

    def values(self):
        return (self[k] for k in self._keys)

    def get(self, key, default=None):
        return self[key] if key in self else default

    def pop(self, key):
        """Remove ``key`` and return its parameter."""
        v = self[key]
        del self[key]
        return v

    def clear(self):
        """Remove every parameter."""
        for k in list(self._keys):
            del self[k]

    def __reversed__(self):
        return reversed(list(self._keys))

    def copy(self):
        """A new ParameterDict holding the same parameter objects, in the same order."""
        return ParameterDict(collections.OrderedDict((k, self[k]) for k in self._keys))

    def setdefault(self, key, default=None):
        """``self[key]``, first set to ``default`` if ``key`` is absent (dict's)."""
        if key not in self:
            self[key] = default
        return self[key]

    def popitem(self):
        """Remove and return the last ``(key, parameter)`` pair."""
        if not self._keys:
            raise KeyError("popitem(): ParameterDict is empty")
        k = next(reversed(self._keys))
        return k, self.pop(k)

    def fromkeys(self, keys, default=None):
        """A new ParameterDict mapping each of ``keys`` to ``default`` (torch's, an
        instance method)."""
        return ParameterDict(collections.OrderedDict((k, default) for k in keys))

    def __or__(self, other):
        copy = self.copy()
        copy.update(other)
        return copy

    def __ror__(self, other):
        copy = other.copy()
        copy.update(self)
        return copy

    def __ior__(self, other):
        self.update(other)
        return self

    def update(self, parameters):
        """Add the ``(key, parameter)`` pairs of a mapping or an iterable of pairs (a
        plain dict in sorted key order, an OrderedDict or ParameterDict in its own, as
        torch's)."""
        if hasattr(parameters, "keys"):
            keys = list(parameters.keys())
            if not isinstance(parameters, (collections.OrderedDict, ParameterDict)):
                keys = sorted(keys)
            for key in keys:
                self[key] = parameters[key]
        else:
            if not isinstance(parameters, collections.abc.Iterable):
                raise TypeError("ParameterDict.update(): expected an iterable of key/value "
                                "pairs, but got " + type(parameters).__name__)
            for j, p in enumerate(parameters):
                if not isinstance(p, collections.abc.Iterable):
                    raise TypeError("ParameterDict.update(): sequence element #%d should be "
                                    "Iterable; is %s" % (j, type(p).__name__))
                if len(p) != 2:
                    raise ValueError("ParameterDict.update(): sequence element #%d has "
                                     "length %d; 2 is required" % (j, len(p)))
                self[p[0]] = p[1]

    def extra_repr(self):
        lines = []
        for k, p in self.items():
            if isinstance(p, Variable):
                lines.append("  (%s): Parameter containing: [%s of size %s]"
                             % (k, p.dtype, "x".join(str(s) for s in p.shape)))
            else:
                lines.append("  (%s): Object of type: %s" % (k, type(p).__name__))
        return "\n".join(lines)

    def forward(self, *args, **kwargs):
        raise NotImplementedError("ParameterDict has no forward; index it instead")
