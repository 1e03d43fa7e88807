"""Profile a few training steps of a small MLP with ``pyad.autograd.profiler``.

Runs three SGD steps of a 2 -> 64 -> 64 -> 3 ReLU MLP on random data inside
``profile(record_shapes=True, profile_memory=True)``, with each phase of a step
(forward, backward, update) in a ``record_function`` range, then prints the per-op
table (sorted by self CPU time) and writes a Chrome trace (open it in
https://ui.perfetto.dev or chrome://tracing: one track per thread, arrows from each
forward op to its backward node).

    python examples/profile_mlp.py                  # trace into a temporary directory
    python examples/profile_mlp.py trace.json       # trace to this path
"""
import argparse
import os
import tempfile

import numpy as np

import pyad
from pyad.autograd.profiler import profile, record_function


def make_params(rng, sizes=(2, 64, 64, 3)):
    params = []
    for fan_in, fan_out in zip(sizes[:-1], sizes[1:]):
        w = rng.normal(scale=np.sqrt(2.0 / fan_in), size=(fan_in, fan_out))
        params.append(pyad.Variable(w.astype(np.float32), requires_grad=True))
        params.append(pyad.Variable(np.zeros(fan_out, np.float32), requires_grad=True))
    return params


def step(params, x, one_hot, lr=0.1):
    with record_function("forward"):
        h = x
        for i in range(0, len(params) - 2, 2):
            h = (h @ params[i] + params[i + 1]).relu()
        logits = h @ params[-2] + params[-1]
        loss = -(pyad.log_softmax(logits, dim=1) * one_hot).sum(dim=1).mean()
    with record_function("backward"):
        loss.backward()
    with record_function("update"), pyad.no_grad():
        for p in params:
            p.data -= lr * p.grad.data
            p.grad = None
    return loss.item()


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("trace", nargs="?", help="where to write the Chrome trace JSON")
    parser.add_argument("--steps", type=int, default=3)
    args = parser.parse_args(argv)

    rng = np.random.default_rng(0)
    params = make_params(rng)
    x = pyad.Variable(rng.standard_normal((128, 2)).astype(np.float32))
    one_hot = pyad.Variable(np.eye(3, dtype=np.float32)[rng.integers(0, 3, 128)])
    step(params, x, one_hot)                         # warm-up, not profiled

    with profile(record_shapes=True, profile_memory=True) as prof:
        for _ in range(args.steps):
            loss = step(params, x, one_hot)
    print(prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=12))
    print("loss after %d profiled steps: %.4f" % (args.steps, loss))

    path = args.trace
    if path is None:
        path = os.path.join(tempfile.mkdtemp(prefix="pyad-profile-"), "trace.json")
    prof.export_chrome_trace(path)
    print("chrome trace written to %s (%d events)" % (path, len(prof.function_events)))


if __name__ == "__main__":
    main()
