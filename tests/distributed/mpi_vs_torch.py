"""Run under mpiexec: pyad.distributed next to torch.distributed (gloo) on the same ranks
and the same inputs. Every rank joins both worlds (torch's over TCP on localhost, its
address sent over MPI), runs each collective in both and compares. Prints "ok" lines.
"""
import os
import socket
import sys
import warnings

import numpy as np
import torch
import torch.distributed as tdist
import torch.distributed.nn as tdnn
from mpi4py import MPI

import pyad
import pyad.distributed as dist
from pyad import nn
from pyad.nn.parallel import DistributedDataParallel as DDP

# torch.distributed.nn's functions are deprecated there, but still torch's API.
warnings.filterwarnings("ignore", category=FutureWarning)
dist.init_process_group("mpi")
rank, world = dist.get_rank(), dist.get_world_size()
port = None
if rank == 0:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
port = MPI.COMM_WORLD.bcast(port, root=0)
tdist.init_process_group("gloo", init_method="tcp://127.0.0.1:%d" % port, rank=rank,
                         world_size=world)
torch.set_default_dtype(torch.float64)
rng = np.random.default_rng(10 + rank)


def ok(name):
    print("ok %s (world %d)" % (name, world), flush=True)


def same(a, b, what):
    a = a.data if isinstance(a, pyad.Variable) else a
    b = b.detach().numpy()
    # 1e-13 of each element, or of the largest one for elements that are sums with
    # cancellation (a weight gradient of 3e-4 among ones of 0.2: torch's and NumPy's
    # BLAS add in different orders, 1 ulp of 0.2 apart, 1.5e-13 of the small one)
    scale = float(np.abs(b).max()) if b.size else 0.0
    assert a.shape == b.shape and np.allclose(a, b, rtol=1e-13, atol=1e-13 * scale), \
        (what, a, b)


ops = [(dist.ReduceOp.SUM, tdist.ReduceOp.SUM), (dist.ReduceOp.PRODUCT,
                                                 tdist.ReduceOp.PRODUCT),
       (dist.ReduceOp.MIN, tdist.ReduceOp.MIN), (dist.ReduceOp.MAX, tdist.ReduceOp.MAX)]
for ours, theirs in ops:
    data = rng.normal(size=(3, 4))
    v, t = pyad.tensor(data), torch.tensor(data)
    dist.all_reduce(v, op=ours)
    tdist.all_reduce(t, op=theirs)
    same(v, t, ours)
    for root in range(world):
        v, t = pyad.tensor(data), torch.tensor(data)
        dist.reduce(v, dst=root, op=ours)
        tdist.reduce(t, dst=root, op=theirs)
        if rank == root:       # elsewhere torch leaves partial results (unspecified)
            same(v, t, ("reduce", ours, root))
        else:
            assert np.array_equal(v.data, data)
for root in range(world):
    data = rng.normal(size=(5,))
    v, t = pyad.tensor(data), torch.tensor(data)
    dist.broadcast(v, src=root)
    tdist.broadcast(t, src=root)
    same(v, t, "broadcast")
    ours = [pyad.zeros(5, dtype=pyad.float64) for _ in range(world)] if rank == root else None
    theirs = [torch.zeros(5) for _ in range(world)] if rank == root else None
    dist.gather(pyad.tensor(data), ours, dst=root)
    tdist.gather(torch.tensor(data), theirs, dst=root)
    if rank == root:
        for a, b in zip(ours, theirs):
            same(a, b, "gather")
    pieces = rng.normal(size=(world, 2))
    v, t = pyad.zeros(2, dtype=pyad.float64), torch.zeros(2)
    dist.scatter(v, [pyad.tensor(p) for p in pieces] if rank == root else None, src=root)
    tdist.scatter(t, [torch.tensor(p) for p in pieces] if rank == root else None, src=root)
    same(v, t, "scatter")
data = rng.normal(size=(2, 3))
ours = [pyad.zeros(2, 3, dtype=pyad.float64) for _ in range(world)]
theirs = [torch.zeros(2, 3) for _ in range(world)]
dist.all_gather(ours, pyad.tensor(data))
tdist.all_gather(theirs, torch.tensor(data))
for a, b in zip(ours, theirs):
    same(a, b, "all_gather")
v, t = pyad.zeros(2 * world, 3, dtype=pyad.float64), torch.zeros(2 * world, 3)
dist.all_gather_into_tensor(v, pyad.tensor(data))
tdist.all_gather_into_tensor(t, torch.tensor(data))
same(v, t, "all_gather_into_tensor")
ok("collectives match torch.distributed")

# Differentiable collectives: the same per-rank functions and weights in both.
x0 = rng.normal(size=4)
w = rng.normal(size=(world, 4))
for name, ours_fn, theirs_fn in (
        ("all_reduce", lambda x: dist.nn.all_reduce(x * x).sin(),
         lambda x: tdnn.all_reduce(x * x).sin()),
        ("all_gather", lambda x: pyad.stack(list(dist.nn.all_gather(x.exp() * (rank + 1)))),
         lambda x: torch.stack(list(tdnn.all_gather(x.exp() * (rank + 1))))),
        ("broadcast", lambda x: dist.nn.broadcast(x.tanh(), src=world - 1) * (rank + 2),
         lambda x: tdnn.broadcast(x.tanh(), src=world - 1) * (rank + 2))):
    xa = pyad.tensor(x0, requires_grad=True)
    xt = torch.tensor(x0, requires_grad=True)
    ya, yt = ours_fn(xa), theirs_fn(xt)
    same(ya, yt, name)
    weight = w[:ya.shape[0]] if ya.ndim == 2 else w[0]
    (ya * pyad.tensor(weight)).sum().backward()
    (yt * torch.tensor(weight)).sum().backward()
    same(xa.grad, xt.grad, name + " grad")
ok("differentiable collectives match torch.distributed.nn")


# DDP next to torch's DDP: same initial weights (rank 0's), same shards, same steps.
def pyad_model():
    pyad.manual_seed(rank)                    # differs per rank: DDP broadcasts rank 0's
    return nn.Sequential(nn.Linear(3, 8, dtype=pyad.float64), nn.Tanh(),
                         nn.Linear(8, 2, dtype=pyad.float64))


ours = pyad_model()
theirs = torch.nn.Sequential(torch.nn.Linear(3, 8), torch.nn.Tanh(), torch.nn.Linear(8, 2))
with torch.no_grad():
    for p, q in zip(ours.parameters(), theirs.parameters()):
        q.copy_(torch.tensor(p.data))
ours, theirs = DDP(ours), torch.nn.parallel.DistributedDataParallel(theirs)
opt_a = pyad.optim.Adam(ours.parameters(), lr=0.05)
opt_t = torch.optim.Adam(theirs.parameters(), lr=0.05)
for step in range(4):
    data = np.random.default_rng(100 + step).normal(size=(4 * world, 3))
    target = np.random.default_rng(200 + step).normal(size=(4 * world, 2))
    mine = slice(4 * rank, 4 * rank + 4)
    loss_a = ((ours(pyad.tensor(data[mine])) - pyad.tensor(target[mine])) ** 2).mean()
    loss_t = ((theirs(torch.tensor(data[mine])) - torch.tensor(target[mine])) ** 2).mean()
    opt_a.zero_grad()
    opt_t.zero_grad()
    loss_a.backward()
    loss_t.backward()
    for p, q in zip(ours.parameters(), theirs.parameters()):
        same(p.grad, q.grad, "DDP grad step %d" % step)
    opt_a.step()
    opt_t.step()
    for p, q in zip(ours.parameters(), theirs.parameters()):
        same(p, q, "DDP parameter step %d" % step)
assert list(ours.state_dict()) == list(theirs.state_dict())
ok("DDP matches torch DDP")
dist.barrier()                 # both ranks are done with gloo before either tears it down
tdist.destroy_process_group()
dist.destroy_process_group()
sys.stdout.flush()
sys.stderr.flush()
if not MPI.Is_finalized():
    MPI.Finalize()
# Every check has run. torch's gloo threads can abort a rank in C++ static destructors at
# interpreter exit ("terminate called without an active exception", seen under load):
# leave without running them.
os._exit(0)
