"""Train the MLP of train_mlp.py data-parallel: one process per rank, launched by MPI.

    mpiexec -n 4 python examples/train_ddp.py            # 4 ranks, 150 points each
    mpiexec -n 2 python examples/train_ddp.py --quiet    # only the final accuracy
    python examples/train_ddp.py                         # one rank works too

Every rank builds the same model (rank 0's initial parameters are broadcast when it is
wrapped in DistributedDataParallel), takes its share of the 600 spiral points through
DistributedSampler, and runs full-batch gradient descent on it. During each backward
pass DDP averages the gradients across the ranks, bucket by bucket, so after every
step all ranks hold the same parameters: the parameters one process would reach
training on all 600 points. Rank 0 prints the progress; the script asserts the
training accuracy of train_mlp.py (at least 0.95) with the default settings.
"""
import argparse
import os
import sys
import time

import numpy as np

import pyad
import pyad.distributed as dist
from pyad import nn
from pyad.nn.parallel import DistributedDataParallel
from pyad.utils.data.distributed import DistributedSampler

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from train_mlp import (DEFAULT_LR, DEFAULT_STEPS, TARGET_ACCURACY, init_params,  # noqa: E402
                       make_spirals)


def make_model():
    """2 -> 64 -> 64 -> 3 with ReLU, initialised as train_mlp.py's parameters."""
    model = nn.Sequential(nn.Linear(2, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(),
                          nn.Linear(64, 3))
    params = init_params([2, 64, 64, 3], np.random.default_rng(1))
    linears = [m for m in model if isinstance(m, nn.Linear)]
    with pyad.no_grad():
        for layer, w, b in zip(linears, params[0::2], params[1::2]):
            layer.weight.copy_(w.t())
            layer.bias.copy_(b)
    return model


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=DEFAULT_STEPS, help="gradient steps")
    parser.add_argument("--lr", type=float, default=DEFAULT_LR, help="learning rate")
    parser.add_argument("--quiet", action="store_true", help="only print the result")
    args = parser.parse_args(argv)

    dist.init_process_group("mpi")
    rank, world = dist.get_rank(), dist.get_world_size()

    points, labels = make_spirals()
    # This rank's share of the data set (600 points split evenly for 1 to 6 ranks).
    mine = list(DistributedSampler(points, num_replicas=world, rank=rank, shuffle=False))
    x = pyad.Variable(points[mine])
    y = pyad.Variable(labels[mine].astype(np.int64))

    model = DistributedDataParallel(make_model())
    optimizer = pyad.optim.SGD(model.parameters(), lr=args.lr)

    start = time.perf_counter()
    for step in range(1, args.steps + 1):
        loss = nn.functional.cross_entropy(model(x), y)
        optimizer.zero_grad()
        loss.backward()            # gradients averaged across ranks when it returns
        optimizer.step()
        if rank == 0 and not args.quiet and (step % 50 == 0 or step == 1):
            print("step %5d  loss %.4f (rank 0's share)" % (step, loss.item()), flush=True)

    with pyad.no_grad():
        predicted = model.module(pyad.Variable(points)).data.argmax(axis=1)
    final = float((predicted == labels).mean())
    elapsed = time.perf_counter() - start
    if rank == 0:
        print("final training accuracy: %.3f (%d steps, %d ranks, %.1f s)"
              % (final, args.steps, world, elapsed), flush=True)
    if args.steps >= DEFAULT_STEPS and args.lr == DEFAULT_LR:
        assert final >= TARGET_ACCURACY, (
            "training accuracy %.3f is below the documented %.2f" % (final, TARGET_ACCURACY))
    dist.destroy_process_group()
    return final


if __name__ == "__main__":
    main()
