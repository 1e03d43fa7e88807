"""Differentiable collectives, as ``torch.distributed.nn``.

Each returns new Variables (the input is not modified) and records a node whose backward
is the matching collective, itself differentiable: the gradient of an all-reduce is an
all-reduce of the gradients, of an all-gather a reduce-scatter, of a broadcast a reduce
to the source rank. Every rank of the group must call them in the same order, in the
forward and (through ``backward()``) in the backward pass.
"""
from pyad._factories import zeros_like
from pyad.autograd.function import Function
from pyad.distributed import collectives as _c
from pyad.distributed.collectives import ReduceOp

__all__ = ["all_gather", "all_reduce", "broadcast"]


def _fresh(v):
    return v.detach().clone().contiguous()


class _AllReduce(Function):
    @staticmethod
    def forward(ctx, op, group, tensor):
        ctx.op, ctx.group = op, group
        out = _fresh(tensor)
        _c.all_reduce(out, op=op, group=group)
        return out

    @staticmethod
    def backward(ctx, grad_output):
        if ctx.op not in (ReduceOp.SUM, ReduceOp.AVG):
            raise RuntimeError("all_reduce(): only ReduceOp.SUM and ReduceOp.AVG are "
                               "differentiable, got ReduceOp.%s" % ctx.op.name)
        return None, None, _AllReduce.apply(ctx.op, ctx.group, grad_output)


class _Reduce(Function):
    @staticmethod
    def forward(ctx, dst, group, tensor):
        ctx.dst, ctx.group = dst, group
        out = _fresh(tensor)
        _c.reduce(out, dst, op=ReduceOp.SUM, group=group)
        return out

    @staticmethod
    def backward(ctx, grad_output):
        return None, None, _Broadcast.apply(ctx.dst, ctx.group, grad_output)


class _Broadcast(Function):
    @staticmethod
    def forward(ctx, src, group, tensor):
        ctx.src, ctx.group = src, group
        out = _fresh(tensor)
        _c.broadcast(out, src, group=group)
        return out

    @staticmethod
    def backward(ctx, grad_output):
        grad = _Reduce.apply(ctx.src, ctx.group, grad_output)
        if _c.get_rank() != ctx.src:
            # Only the source's value reached the outputs.
            grad = grad * 0
        return None, None, grad


class _AllGather(Function):
    @staticmethod
    def forward(ctx, group, tensor):
        ctx.group = group
        tensor = _fresh(tensor)
        out = [zeros_like(tensor) for _ in range(_c.get_world_size(group))]
        _c.all_gather(out, tensor, group=group)
        return tuple(out)

    @staticmethod
    def backward(ctx, *grad_outputs):
        return None, _ReduceScatter.apply(ctx.group, *grad_outputs)


class _ReduceScatter(Function):
    @staticmethod
    def forward(ctx, group, *inputs):
        ctx.group = group
        out = zeros_like(inputs[0])
        _c.reduce_scatter(out, [_fresh(v) for v in inputs], op=ReduceOp.SUM, group=group)
        return out

    @staticmethod
    def backward(ctx, grad_output):
        return (None,) + tuple(_AllGather.apply(ctx.group, grad_output))


def all_reduce(tensor, op=ReduceOp.SUM, group=None):
    """The reduction of ``tensor`` over every rank, as a new Variable (differentiable).

    The backward all-reduces the gradients with the same op (``SUM`` or ``AVG``).
    """
    return _AllReduce.apply(op, group, tensor)


def all_gather(tensor, group=None):
    """A tuple of every rank's ``tensor``, in rank order (differentiable: the backward
    reduce-scatters the gradients, summing each rank's share)."""
    return _AllGather.apply(group, tensor)


def broadcast(tensor, src, group=None):
    """Rank ``src``'s ``tensor`` on every rank, as a new Variable (differentiable: the
    gradients are summed on ``src``; the other ranks' inputs get zeros)."""
    return _Broadcast.apply(src, group, tensor)
