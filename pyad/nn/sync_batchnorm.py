"""``torch.nn.SyncBatchNorm``: batch normalisation whose batch statistics are those of
the whole batch spread over the ranks of a `pyad.distributed` process group.

Without an initialised process group, in eval mode, or in a group of one rank, it is
`pyad.nn.functional.batch_norm` exactly (torch falls back the same way). With one, each
training forward all-reduces the per-channel sum, sum of squares and count (so ranks
with different batch sizes weigh correctly, and a rank with an empty batch still
takes part), and the backward all-reduces the two per-channel gradient sums; N ranks
on shards then give the outputs, input gradients and running statistics of one process
on the concatenated batch. As torch's, the weight and bias gradients stay local (each
rank's share): summed over the ranks (what `DistributedDataParallel` does, up to its
averaging) they are the whole batch's. Unlike torch's, CPU (NumPy) input is supported:
the collectives go over MPI.
"""
import numpy

from pyad._engine import cat
from pyad.autograd.function import Function
from pyad.autograd.grad_mode import no_grad
from pyad.nn import functional as F
from pyad.nn.modules import _BatchNorm

__all__ = ["SyncBatchNorm"]


def _group_and_size(process_group):
    """(group, world size) when the batch statistics must be synchronised, else None."""
    from pyad import distributed as dist
    if not (dist.is_available() and dist.is_initialized()):
        return None
    group = process_group if process_group else dist.group.WORLD
    size = dist.get_world_size(group)
    return (group, size) if size > 1 else None


class _SyncBatchNormFunction(Function):
    """torch.nn.modules._functions.SyncBatchNorm: the synchronised training forward and
    its backward."""

    @staticmethod
    def forward(ctx, input, weight, bias, running_mean, running_var, eps, momentum,
                process_group, world_size, num_features):
        from pyad.distributed import collectives as _c
        group = _c._group(process_group)
        channels = input.shape[1]
        local_error = None
        if channels != num_features:
            local_error = ValueError("expected input with %d channels (num_features), got "
                                     "input of shape %s" % (num_features, tuple(input.shape)))
        # Every rank checks that the others reduce the same number of channels in the same
        # dtype before the statistics' all-reduce, and all raise together if not.
        _c._agree(group, "SyncBatchNorm", (("channels", channels),
                                           ("dtype", str(input.data.dtype))), local_error)
        dims = (0,) + tuple(range(2, input.dim()))
        view = (1, -1) + (1,) * (input.dim() - 2)
        x = input.detach()
        xd = x.to(numpy.float64)         # the statistics are accumulated in float64
        local_count = x.numel() // channels if channels else 0
        count = xd.new_full((1,), float(local_count))
        combined = cat([xd.sum(dim=dims), (xd * xd).sum(dim=dims), count])
        _c.all_reduce(combined, group=process_group)
        total = float(combined[2 * channels].item())
        if total <= 1:
            raise ValueError("SyncBatchNorm(): expected more than 1 value per channel when "
                             "training, got %d over the %d ranks" % (int(total), world_size))
        mean64 = combined[:channels] / total
        var64 = (combined[channels:2 * channels] / total - mean64 * mean64).clamp(min=0.0)
        invstd64 = (var64 + eps).rsqrt()
        with no_grad():
            if running_mean is not None:
                running_mean.mul_(1.0 - momentum).add_(
                    (mean64 * momentum).to(running_mean.dtype))
            if running_var is not None:
                unbiased = var64 * (total / (total - 1))
                running_var.mul_(1.0 - momentum).add_(
                    (unbiased * momentum).to(running_var.dtype))
        mean = mean64.to(x.dtype)
        invstd = invstd64.to(x.dtype)
        out = (x - mean.reshape(view)) * invstd.reshape(view)
        if weight is not None:
            out = out * weight.detach().reshape(view)
        if bias is not None:
            out = out + bias.detach().reshape(view)
        ctx.save_for_backward(x, weight, mean, invstd)
        ctx.total, ctx.dims, ctx.view = total, dims, view
        ctx.process_group = process_group
        ctx.has_bias = bias is not None
        return out

    @staticmethod
    def backward(ctx, grad_output):
        from pyad.distributed import collectives as _c
        x, weight, mean, invstd = ctx.saved_tensors
        dims, view = ctx.dims, ctx.view
        channels = x.shape[1]
        g = grad_output
        xmu = x - mean.reshape(view)
        sum_dy = g.sum(dim=dims)
        sum_dy_xmu = (g * xmu).sum(dim=dims)
        grad_weight = sum_dy_xmu * invstd if weight is not None else None
        grad_bias = sum_dy if ctx.has_bias else None
        # Always all-reduced (even where the input needs no gradient), so that the ranks'
        # collectives stay in step.
        combined = cat([sum_dy, sum_dy_xmu])
        _c.all_reduce(combined, group=ctx.process_group)
        mean_dy = combined[:channels] / ctx.total
        mean_dy_xmu = combined[channels:] / ctx.total
        scale = invstd if weight is None else invstd * weight.detach()
        grad_input = None
        if ctx.needs_input_grad[0]:
            grad_input = (g - mean_dy.reshape(view)
                          - xmu * (invstd * invstd * mean_dy_xmu).reshape(view)
                          ) * scale.reshape(view)
        return (grad_input, grad_weight, grad_bias, None, None, None, None, None, None,
                None)


class SyncBatchNorm(_BatchNorm):
    """Batch normalisation over ``(N, C, ...)`` input (at least 2-d) whose training
    statistics are synchronised over ``process_group`` (default: the whole world).

    Without an initialised `pyad.distributed` process group, in eval mode, or with a
    group of one rank, it is `pyad.nn.functional.batch_norm` as `BatchNorm2d` computes
    it. See the module docstring for the distributed semantics.

    >>> import pyad
    >>> m = pyad.nn.SyncBatchNorm(3)
    >>> m(pyad.tensor([[[1.0], [2.0], [0.0]], [[3.0], [2.0], [4.0]]])).detach()[:, :, 0]
    tensor([[-1.0000,  0.0000, -1.0000],
            [ 1.0000,  0.0000,  1.0000]])
    """

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True,
                 track_running_stats=True, process_group=None, device=None, dtype=None,
                 *, bias=True):
        super().__init__(num_features, eps, momentum, affine, track_running_stats,
                         device=device, dtype=dtype, bias=bias)
        self.process_group = process_group

    def _check_input_dim(self, input):
        if input.dim() < 2:
            raise ValueError("SyncBatchNorm(): expected at least 2D input (got %dD input)"
                             % input.dim())

    def _check_non_zero_input_channels(self, input):
        if input.size(1) == 0:
            raise ValueError("SyncBatchNorm(): number of input channels should be non-zero")

    def forward(self, input):
        self._check_input_dim(input)
        self._check_non_zero_input_channels(input)
        factor = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats:
            if self.num_batches_tracked is None:
                raise AssertionError("num_batches_tracked must not be None")
            with no_grad():
                self.num_batches_tracked.add_(1)
            if self.momentum is None:
                factor = 1.0 / float(self.num_batches_tracked.item())
        bn_training = self.training or (self.running_mean is None
                                        and self.running_var is None)
        use_buffers = not self.training or self.track_running_stats
        running_mean = self.running_mean if use_buffers else None
        running_var = self.running_var if use_buffers else None
        sync = _group_and_size(self.process_group) if (bn_training and self.training) else None
        if sync is None:
            return F.batch_norm(input, running_mean, running_var, self.weight, self.bias,
                                bn_training, factor, self.eps)
        group, world_size = sync
        return _SyncBatchNormFunction.apply(input, self.weight, self.bias, running_mean,
                                            running_var, self.eps, factor, group, world_size,
                                            self.num_features)

    @classmethod
    def convert_sync_batchnorm(cls, module, process_group=None):
        """Replace every ``BatchNorm*D`` (any `_BatchNorm`) in ``module``, recursively, by
        a `SyncBatchNorm` sharing its parameters and buffers (and taking its ``training``
        flag and ``qconfig``); returns the module, or the new layer when ``module`` is
        itself a batch norm.

        >>> import pyad
        >>> net = pyad.nn.Sequential(pyad.nn.Linear(4, 3), pyad.nn.BatchNorm1d(3))
        >>> type(pyad.nn.SyncBatchNorm.convert_sync_batchnorm(net)[1]).__name__
        'SyncBatchNorm'
        """
        module_output = module
        if isinstance(module, _BatchNorm):
            module_output = SyncBatchNorm(module.num_features, module.eps, module.momentum,
                                          module.affine, module.track_running_stats,
                                          process_group, bias=module.bias is not None)
            if module.affine:
                with no_grad():
                    module_output.weight = module.weight
                    module_output.bias = module.bias
            module_output.running_mean = module.running_mean
            module_output.running_var = module.running_var
            module_output.num_batches_tracked = module.num_batches_tracked
            module_output.training = module.training
            if hasattr(module, "qconfig"):
                module_output.qconfig = module.qconfig
        for name, child in module.named_children():
            module_output.add_module(name, cls.convert_sync_batchnorm(child, process_group))
        del module
        return module_output
