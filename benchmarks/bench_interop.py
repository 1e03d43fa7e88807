#!/usr/bin/env python
"""Per-call overhead of pyad.interop's bridges against calling the function directly.

    python benchmarks/bench_interop.py [--smoke] [--repeat N]

Rows (small inputs, so the array work is negligible and the overhead shows):

* torch fwd: ``from_torch(f)(x)`` against ``f(x)`` on torch tensors, f(x) =
  sum(sin(x) * x), x of shape (8,) float32, no gradient recorded;
* torch fwd+bwd: the same with ``requires_grad`` and ``backward()`` on each side (the
  bridged column includes pyad's own backward call);
* jax fwd / jax fwd+bwd: ``from_jax(f)`` against ``jax.vjp`` of the same f (JAX is much
  slower per call than torch, so its overhead is reported but has no target).

The overhead column is bridged minus direct, in µs per call (the fastest of the
repeats, which is the least disturbed by other load on the machine);
the target for the torch rows is under 20 µs. Results are checked equal first.
"""
import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"

import argparse  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# Prefer the in-tree package when it was built in place; otherwise the installed one.
if any(f.startswith("_engine") and f.endswith((".so", ".pyd"))
       for f in os.listdir(os.path.join(REPO_ROOT, "pyad"))):
    sys.path.insert(0, REPO_ROOT)

import pyad  # noqa: E402
from pyad.interop import from_jax, from_torch  # noqa: E402

TARGET_US = 20.0


def per_call(fn, number, repeat):
    fn()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(number):
            fn()
        times.append((time.perf_counter() - start) / number)
    return min(times) * 1e6


def torch_rows(number, repeat):
    import torch
    torch.set_num_threads(1)

    def f(x):
        return (torch.sin(x) * x).sum()

    bridged = from_torch(f)
    x0 = np.linspace(-1, 1, 8, dtype=np.float32)
    t = torch.from_numpy(x0.copy())
    v = pyad.Variable(x0.copy())
    assert np.allclose(bridged(v).item(), f(t).item())
    yield ("torch fwd (8,) f32", per_call(lambda: f(t), number, repeat),
           per_call(lambda: bridged(v), number, repeat), TARGET_US)

    tg = torch.from_numpy(x0.copy()).requires_grad_()
    vg = pyad.Variable(x0.copy(), requires_grad=True)

    def direct():
        tg.grad = None
        f(tg).backward()

    def through():
        vg.grad = None
        bridged(vg).backward()

    direct()
    through()
    assert np.allclose(vg.grad.data, tg.grad.numpy())
    yield ("torch fwd+bwd (8,) f32", per_call(direct, number, repeat),
           per_call(through, number, repeat), TARGET_US)


def jax_rows(number, repeat):
    import jax
    import jax.numpy as jnp

    def f(x):
        return (jnp.sin(x) * x).sum()

    bridged = from_jax(f)
    x0 = np.linspace(-1, 1, 8, dtype=np.float32)
    j = jnp.asarray(x0)
    v = pyad.Variable(x0.copy())
    assert np.allclose(float(bridged(v).item()), float(f(j)))
    yield ("jax fwd (8,) f32", per_call(lambda: f(j).block_until_ready(), number, repeat),
           per_call(lambda: bridged(v), number, repeat), None)
    vg = pyad.Variable(x0.copy(), requires_grad=True)

    def direct():
        out, vjp = jax.vjp(f, j)
        return vjp(jnp.ones_like(out))[0].block_until_ready()

    def through():
        vg.grad = None
        bridged(vg).backward()

    through()
    assert np.allclose(vg.grad.data, np.asarray(direct()), rtol=1e-5)
    yield ("jax fwd+bwd (8,) f32", per_call(direct, number, repeat),
           per_call(through, number, repeat), None)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--smoke", action="store_true", help="few calls (a test run)")
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args(argv)
    number = 20 if args.smoke else 2000
    repeat = 2 if args.smoke else args.repeat
    print("%-26s %12s %12s %12s %10s" % ("benchmark", "direct µs", "bridged µs",
                                         "overhead µs", "target"))
    for rows in (torch_rows, jax_rows):
        try:
            results = list(rows(number if rows is torch_rows else number // 10, repeat))
        except ImportError as exc:
            print("%-26s n/a (%s)" % (rows.__name__, exc))
            continue
        for name, direct, bridged, target in results:
            overhead = bridged - direct
            verdict = "" if target is None else (
                "<%g ok" % target if overhead < target else "<%g MISS" % target)
            print("%-26s %12.1f %12.1f %12.1f %10s" % (name, direct, bridged, overhead,
                                                       verdict))
    return 0


if __name__ == "__main__":
    sys.exit(main())
