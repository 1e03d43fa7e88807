"""Run under mpiexec: pyad.nn.SyncBatchNorm on unequal shards of one batch against
torch's BatchNorm on the whole batch, in one process (each rank computes the torch
reference itself). Prints "ok <case> (world N)" per case on every rank.

Every rank holds the same float64 batch (the same seed) and normalises its shard: rank r
gets r + 1 samples (rank 0 none in the "empty shard" case). Two training steps (the
second on a scaled batch, so the cumulative average of ``momentum=None`` is exercised),
then one eval step. Checked on every rank, at rtol 1e-10: the outputs and input
gradients of its shard, the weight and bias gradients summed over the ranks (each
rank's are its share, as torch's), the running statistics and num_batches_tracked.
The sizes are small: they are only hyperparameters of the check.

With an argument it runs a fault case instead, catching the error on every rank:

    channel-mismatch    rank 1's SyncBatchNorm has 5 channels, the others' 4
    input-mismatch      rank 1 feeds 5 channels to a SyncBatchNorm(4)
"""
import sys

import numpy as np
import torch

import pyad
import pyad.distributed as dist
from pyad import nn

dist.init_process_group("mpi")
rank, world = dist.get_rank(), dist.get_world_size()
RTOL, ATOL = 1e-10, 1e-12


def close(name, a, b):
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape or not np.allclose(a, b, rtol=RTOL, atol=ATOL):
        raise AssertionError("rank %d: %s differs:\npyad %s\ntorch %s" % (rank, name, a, b))


TORCH_BN = {2: torch.nn.BatchNorm1d, 3: torch.nn.BatchNorm1d, 4: torch.nn.BatchNorm2d,
            5: torch.nn.BatchNorm3d}


def run_case(name, shape_tail, empty_first=False, **options):
    channels = shape_tail[0]
    sizes = [r + 1 for r in range(world)]
    if empty_first:
        sizes[0] = 0
    start, total = sum(sizes[:rank]), sum(sizes)
    rng = np.random.default_rng(1234)
    x_all = rng.standard_normal((total,) + shape_tail) * 2.0 + 0.5
    g_all = rng.standard_normal((total,) + shape_tail)
    weight = rng.standard_normal(channels)
    bias = rng.standard_normal(channels)

    sync = nn.SyncBatchNorm(channels, dtype=pyad.float64, **options)
    ref = TORCH_BN[1 + len(shape_tail)](channels, dtype=torch.float64, **options)
    if sync.affine:
        with pyad.no_grad():
            sync.weight.copy_(pyad.tensor(weight))
            if sync.bias is not None:
                sync.bias.copy_(pyad.tensor(bias))
        with torch.no_grad():
            ref.weight.copy_(torch.tensor(weight))
            if ref.bias is not None:
                ref.bias.copy_(torch.tensor(bias))
    for step, scale in enumerate((1.0, 3.0, None)):
        if scale is None:
            sync.eval()
            ref.eval()
            scale = 0.5
        x = x_all * scale
        mine = slice(start, start + sizes[rank])
        xp = pyad.tensor(x[mine], requires_grad=True)
        gp = pyad.tensor(g_all[mine])
        if sync.training or sync.track_running_stats:
            xt, gt = torch.tensor(x, requires_grad=True), torch.tensor(g_all)
        else:
            # In eval without running statistics torch's SyncBatchNorm normalises by
            # the local batch, unsynchronised: the reference is BatchNorm on the shard.
            xt, gt, mine = (torch.tensor(x[mine], requires_grad=True),
                            torch.tensor(g_all[mine]), slice(None))
        yp = sync(xp)
        yt = ref(xt)
        (yp * gp).sum().backward()
        (yt * gt).sum().backward()
        where = "%s step %d" % (name, step)
        close(where + " output", yp.detach().numpy(), yt.detach().numpy()[mine])
        close(where + " input grad", xp.grad.numpy(), xt.grad.numpy()[mine])
        if sync.affine and (sync.training or sync.track_running_stats):
            for pname in ("weight", "bias") if sync.bias is not None else ("weight",):
                grad = getattr(sync, pname).grad.detach().clone()
                dist.all_reduce(grad)
                close(where + " " + pname + " grad (summed over ranks)", grad.numpy(),
                      getattr(ref, pname).grad.numpy())
                getattr(sync, pname).grad = None
                getattr(ref, pname).grad = None
        if sync.track_running_stats:
            close(where + " running_mean", sync.running_mean.numpy(),
                  ref.running_mean.numpy())
            close(where + " running_var", sync.running_var.numpy(), ref.running_var.numpy())
            assert int(sync.num_batches_tracked.item()) == int(ref.num_batches_tracked), where
        else:
            assert sync.running_mean is None and sync.running_var is None, where
    print("ok %s (world %d)" % (name, world), flush=True)


def run_fault(case):
    channels = 5 if rank == 1 and case == "channel-mismatch" else 4
    fed = 5 if rank == 1 else 4
    module = nn.SyncBatchNorm(channels)
    try:
        module(pyad.randn(3, fed, 2))
    except (RuntimeError, ValueError) as exc:
        print("rank %d refused: %s: %s" % (rank, type(exc).__name__, exc), flush=True)
    else:
        print("rank %d finished, which it must not" % rank, flush=True)


if len(sys.argv) > 1:
    run_fault(sys.argv[1])
else:
    run_case("2-d", (3,))
    run_case("3-d", (3, 4))
    run_case("4-d", (2, 3, 2))
    run_case("5-d", (2, 2, 2, 2))
    run_case("momentum None", (3, 4), momentum=None)
    run_case("track_running_stats False", (3, 2), track_running_stats=False)
    run_case("affine False", (2, 3, 2), affine=False)
    run_case("bias False", (3,), bias=False)
    if world > 1:
        run_case("empty shard", (3, 2), empty_first=True)
    print("done", flush=True)
