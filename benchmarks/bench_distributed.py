"""pyad.distributed benchmarks, run under MPI (not a timed test):

    mpiexec -n 2 python benchmarks/bench_distributed.py            # the figures in README
    mpiexec -n 2 python benchmarks/bench_distributed.py --smoke    # tiny sizes, seconds

1. all-reduce of a 25 MB float32 gradient: ``pyad.distributed.all_reduce`` on a
   Variable vs raw ``mpi4py`` ``Comm.Allreduce(IN_PLACE, array)`` on the same array
   (blocking, and ``async_op=True`` vs ``Iallreduce`` + ``Wait``). Target: pyad within
   1.05x of raw MPI.
2. A DistributedDataParallel training step (forward, backward, SGD) of an MLP:
   - every rank alone on its half of the batch (no communication: the floor),
   - DDP, buckets all-reduced while backward runs (the default),
   - the same gradients all-reduced after backward, in one flat blocking Allreduce
     (what a loop without DDP does); overlap gain = this / DDP.

Each figure is the median over repeats of the slowest rank's time (every repeat starts
at a barrier). Rank 0 prints the table.
"""
import argparse
import statistics
import time

import numpy as np
from mpi4py import MPI

import pyad
import pyad.distributed as dist
from pyad import nn
from pyad.nn.parallel import DistributedDataParallel

comm = MPI.COMM_WORLD


def timed(fn, repeat, warmup=2):
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(repeat):
        comm.Barrier()
        start = time.perf_counter()
        fn()
        elapsed = np.array([time.perf_counter() - start])
        comm.Allreduce(MPI.IN_PLACE, elapsed, op=MPI.MAX)
        times.append(elapsed[0])
    return statistics.median(times)


def paired(raw_fn, ours_fn, repeat):
    """Medians of raw and pyad timed in alternation (drift in the machine's load hits
    both alike), and the median of the per-pair ratios."""
    raws, ours, ratios = [], [], []
    for _ in range(repeat):
        r = timed(raw_fn, 1, warmup=0 if raws else 2)
        o = timed(ours_fn, 1, warmup=0 if ours else 2)
        raws.append(r)
        ours.append(o)
        ratios.append(o / r)
    return statistics.median(raws), statistics.median(ours), statistics.median(ratios)


def bench_all_reduce(mb, repeat):
    n = int(mb * 1024 * 1024) // 4
    array = np.random.default_rng(comm.rank).random(n, dtype=np.float32)
    v = pyad.Variable(array)                  # the same memory
    rows = [("all_reduce %g MB float32" % mb,)
            + paired(lambda: comm.Allreduce(MPI.IN_PLACE, array), lambda: dist.all_reduce(v),
                     repeat),
            ("all_reduce async %g MB" % mb,)
            + paired(lambda: comm.Iallreduce(MPI.IN_PLACE, array).Wait(),
                     lambda: dist.all_reduce(v, async_op=True).wait(), repeat)]
    return rows


def make_model(sizes):
    layers = []
    for a, b in zip(sizes[:-1], sizes[1:]):
        layers += [nn.Linear(a, b), nn.ReLU()]
    pyad.manual_seed(0)
    return nn.Sequential(*layers[:-1])


def bench_ddp(sizes, batch, repeat, bucket_cap_mb):
    rng = np.random.default_rng(comm.rank)
    half = batch // 2
    x = pyad.Variable(rng.normal(size=(half, sizes[0])).astype(np.float32))
    y = pyad.Variable(rng.integers(0, sizes[-1], half))

    def step_fn(model, opt, after=None):
        def step():
            loss = nn.functional.cross_entropy(model(x), y)
            opt.zero_grad()
            loss.backward()
            if after is not None:
                after()
            opt.step()
        return step

    alone = make_model(sizes)
    t_alone = timed(step_fn(alone, pyad.optim.SGD(alone.parameters(), lr=1e-3)), repeat)

    ddp = DistributedDataParallel(make_model(sizes), bucket_cap_mb=bucket_cap_mb)
    t_ddp = timed(step_fn(ddp, pyad.optim.SGD(ddp.parameters(), lr=1e-3)), repeat)

    plain = make_model(sizes)
    params = list(plain.parameters())
    flat = np.empty(sum(p.data.size for p in params), np.float32)
    size = comm.size

    def allreduce_after_backward():
        offset = 0
        for p in params:
            flat[offset:offset + p.data.size] = p.grad.data.reshape(-1)
            offset += p.data.size
        comm.Allreduce(MPI.IN_PLACE, flat)
        flat[...] /= size
        offset = 0
        for p in params:
            p.grad.data[...] = flat[offset:offset + p.data.size].reshape(p.data.shape)
            offset += p.data.size

    t_after = timed(step_fn(plain, pyad.optim.SGD(plain.parameters(), lr=1e-3),
                            allreduce_after_backward), repeat)
    return t_alone, t_ddp, t_after, flat.nbytes


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--smoke", action="store_true", help="tiny sizes, few repeats")
    parser.add_argument("--repeat", type=int, default=21)
    parser.add_argument("--bucket-cap-mb", type=float, default=2.0)
    args = parser.parse_args()
    dist.init_process_group("mpi")
    world = dist.get_world_size()
    if args.smoke:
        mb, sizes, batch, repeat = 0.25, [32, 64, 64, 10], 16, 3
    else:
        mb, sizes, batch, repeat = 25, [784, 1024, 1024, 1024, 10], 256, args.repeat
    rows = bench_all_reduce(mb, repeat)
    t_alone, t_ddp, t_after, nbytes = bench_ddp(sizes, batch, repeat, args.bucket_cap_mb)
    if comm.rank == 0:
        print("pyad.distributed on %d ranks (%s), median of %d"
              % (world, MPI.Get_library_version().splitlines()[0].strip(), repeat))
        print("%-32s %12s %12s %8s" % ("benchmark", "raw mpi4py", "pyad", "ratio"))
        for name, raw, ours, ratio in rows:
            print("%-32s %10.2f ms %10.2f ms %7.3fx" % (name, raw * 1e3, ours * 1e3, ratio))
        print("(ratio: median of per-pair ratios, raw and pyad timed in alternation)")
        print("DDP step, MLP %s, %.1f MB of gradients, batch %d split over %d ranks:"
              % ("-".join(map(str, sizes)), nbytes / 2 ** 20, batch, world))
        print("  one rank alone on its %d rows  %10.2f ms" % (batch // 2, t_alone * 1e3))
        print("  DDP, buckets overlapped        %10.2f ms  (%.2fx the lone step)"
              % (t_ddp * 1e3, t_ddp / t_alone))
        print("  all-reduce after backward      %10.2f ms  (%.2fx the lone step)"
              % (t_after * 1e3, t_after / t_alone))
        print("  overlap gain (after / overlapped): %.3fx" % (t_after / t_ddp))
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
