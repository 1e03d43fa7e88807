"""Run under mpiexec with a case name: faults must end (or be refused on) every rank.

    raise-in-backward   rank 1 raises inside backward while the others wait for its
                        gradients: every rank must exit, the output naming rank 1.
    raise-in-forward    rank 0 raises before a collective the others are blocked in.
    model-mismatch      rank 1 wraps a model of another shape in DDP: RuntimeError on
                        every rank (caught and reported), then a clean exit.
    timeout             rank 1 hangs instead of joining an all-reduce: the others raise
                        after the group's 3 s timeout, which ends every rank.
    communicator        (not a fault) the world is an mpi4py communicator.
"""
import datetime
import sys
import time

import numpy as np

import pyad
import pyad.distributed as dist
from pyad import nn
from pyad.autograd import Function
from pyad.nn.parallel import DistributedDataParallel as DDP

case = sys.argv[1]
if case == "timeout":
    dist.init_process_group("mpi", timeout=datetime.timedelta(seconds=3))
    rank, world = dist.get_rank(), dist.get_world_size()
elif case != "communicator":
    dist.init_process_group("mpi")
    rank, world = dist.get_rank(), dist.get_world_size()


class FailOnRankOne(Function):
    @staticmethod
    def forward(ctx, x):
        return x.clone()

    @staticmethod
    def backward(ctx, grad):
        if rank == 1:
            raise ValueError("injected failure in backward")
        return grad


if case == "raise-in-backward":
    # The failing node sits between the layers: the last layer's gradients are already
    # bucketed and their all-reduce started when rank 1 raises.
    first, last = nn.Sequential(nn.Linear(4, 8), nn.Tanh()), nn.Linear(8, 2)

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.first, self.last = first, last

        def forward(self, x):
            return self.last(FailOnRankOne.apply(self.first(x)))

    model = DDP(Net(), bucket_cap_mb=0.0001)
    for step in range(3):
        model(pyad.randn(6, 4)).sum().backward()
    print("rank %d finished, which it must not" % rank, flush=True)
elif case == "raise-in-forward":
    v = pyad.ones(3)
    if rank == 0:
        raise KeyError("injected failure before all_reduce")
    dist.all_reduce(v)
    print("rank %d finished, which it must not" % rank, flush=True)
elif case == "model-mismatch":
    width = 8 if rank != 1 else 9
    try:
        DDP(nn.Sequential(nn.Linear(4, width), nn.Tanh(), nn.Linear(width, 2)))
    except RuntimeError as exc:
        print("rank %d refused: %s" % (rank, exc), flush=True)
    try:
        DDP(nn.Linear(4, 2, dtype=pyad.float64 if rank == 0 else pyad.float32))
    except RuntimeError as exc:
        print("rank %d refused dtype: %s" % (rank, exc), flush=True)
    dist.barrier()
    dist.destroy_process_group()
elif case == "timeout":
    # Rank 1 is stuck (not raising) instead of joining the all-reduce: the others give
    # up after the group's timeout, and their error ends the job.
    if rank == 1:
        time.sleep(60)
    dist.all_reduce(pyad.ones(3))
    print("rank %d finished, which it must not" % rank, flush=True)
elif case == "communicator":
    # The world is an mpi4py communicator: here the odd and the even ranks apart, in
    # reverse order. Ranks and roots are the communicator's.
    from mpi4py import MPI
    me = MPI.COMM_WORLD.Get_rank()
    comm = MPI.COMM_WORLD.Split(me % 2, -me)
    dist.init_process_group(comm)
    assert dist.get_rank() == comm.Get_rank() and dist.get_world_size() == comm.Get_size()
    members = [r for r in range(MPI.COMM_WORLD.Get_size()) if r % 2 == me % 2][::-1]
    v = pyad.tensor([float(me)], dtype=pyad.float64)
    dist.all_reduce(v)
    assert v.item() == sum(members), (v, members)
    v = pyad.tensor([float(me)], dtype=pyad.float64)
    dist.broadcast(v, src=0)
    assert v.item() == members[0], (v, members)
    print("ok communicator (rank %d)" % me, flush=True)
    dist.destroy_process_group()
else:
    raise SystemExit("unknown case " + case)
