"""Run under mpiexec on a machine with CuPy and a GPU: collectives and DDP on CuPy data.

    mpiexec -n N python mpi_gpu.py BACKEND     (BACKEND: nccl or mpi)

With ``nccl`` each rank needs a GPU of its own (NCCL refuses two ranks on one device);
with ``mpi`` the data goes through host memory (or CUDA-aware MPI), so ranks may share
a GPU. Prints "ok <check>" lines.
"""
import sys

import cupy
import numpy as np

import pyad
import pyad.distributed as dist
from pyad import nn
from pyad.nn.parallel import DistributedDataParallel as DDP

backend = sys.argv[1]
dist.init_process_group(backend)
rank, world = dist.get_rank(), dist.get_world_size()
cupy.cuda.Device(rank % cupy.cuda.runtime.getDeviceCount()).use()


def ok(name):
    print("ok %s (world %d)" % (name, world), flush=True)


v = pyad.tensor(np.arange(6.0).reshape(2, 3) + rank, dtype=pyad.float64, device="cuda")
dist.all_reduce(v)
assert isinstance(v.data, cupy.ndarray)
expected = sum(np.arange(6.0).reshape(2, 3) + r for r in range(world))
assert np.array_equal(cupy.asnumpy(v.data), expected)
w = pyad.tensor([1.0, 2.0], device="cuda") * (rank + 1)
dist.all_reduce(w, op=dist.ReduceOp.AVG, async_op=True).wait()
assert np.allclose(cupy.asnumpy(w.data), np.array([1.0, 2.0]) * (world + 1) / 2)
b = pyad.tensor([float(rank)] * 4, device="cuda")
dist.broadcast(b, src=world - 1)
assert np.array_equal(cupy.asnumpy(b.data), [world - 1.0] * 4)
out = [pyad.zeros(2, device="cuda") for _ in range(world)]
dist.all_gather(out, pyad.tensor([rank, rank], dtype=pyad.float32, device="cuda"))
assert [float(o.data[0]) for o in out] == list(range(world))
ok("collectives on cupy")

rng = np.random.default_rng(0)
pyad.manual_seed(0)
ref = nn.Sequential(nn.Linear(5, 8, dtype=pyad.float64), nn.Tanh(),
                    nn.Linear(8, 2, dtype=pyad.float64)).cuda()
pyad.manual_seed(0)
model = DDP(nn.Sequential(nn.Linear(5, 8, dtype=pyad.float64), nn.Tanh(),
                          nn.Linear(8, 2, dtype=pyad.float64)).cuda(), bucket_cap_mb=0.0002)
x = pyad.tensor(rng.normal(size=(4 * world, 5)), device="cuda")
y = pyad.tensor(rng.normal(size=(4 * world, 2)), device="cuda")
((ref(x) - y) ** 2).mean().backward()
((model(x[4 * rank:4 * rank + 4]) - y[4 * rank:4 * rank + 4]) ** 2).mean().backward()
for p, q in zip(model.parameters(), ref.parameters()):
    assert isinstance(p.grad.data, cupy.ndarray)
    assert np.allclose(cupy.asnumpy(p.grad.data), cupy.asnumpy(q.grad.data), rtol=1e-12,
                       atol=0)
ok("DDP on cupy")
dist.destroy_process_group()
