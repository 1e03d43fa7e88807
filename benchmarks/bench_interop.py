#!/usr/bin/env python
"""Per-call overhead of pyad.interop's bridges against calling the function directly.

    python benchmarks/bench_interop.py [--smoke] [--repeat N] [--number N] [--cpu-time]
                                       [--only torch|jax]

Rows (small inputs, so the array work is negligible and the overhead shows), each
"bridged" against "direct" on the same inputs, f(x) = sum(sin(x) * x), x of shape (8,)
float32:

* torch fwd: ``from_torch(f)(x)`` against ``f(t)`` on torch tensors, nothing recorded;
* torch fwd+bwd: the same with ``requires_grad`` and ``backward()`` on each side (the
  bridged column includes pyad's own backward pass around torch's);
* to_torch fwd / fwd+bwd: ``to_torch(g)(t)`` (g written in pyad) against ``g(v)`` on
  pyad Variables, with torch's backward against pyad's;
* jax fwd / jax fwd+bwd: ``from_jax(f)`` against ``f(j)`` / ``jax.vjp`` of the same f;
* to_jax fwd / fwd+bwd: ``to_jax(g)(j)`` / ``jax.grad(to_jax(g))(j)`` against pyad's
  ``g(v)`` / ``g(v).backward()``.

Timing: the rows' two sides run interleaved (row by row, side by side) ``--repeat``
times, ``--number`` calls each, and each column is the median of its repeats (the
machine this was written on is a loaded 2-core box: the median of interleaved runs is
what stays put). The overhead column is bridged minus direct, in µs per call; the
target for the torch rows is under 20 µs. Results are checked equal first. JAX's own
eager dispatch (tens of µs per op, milliseconds for an eager ``jax.vjp``, which traces
the function each call) is a floor that no bridge can go under, so its rows have no
target.
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
from pyad.interop import from_jax, from_torch, to_jax, to_torch  # noqa: E402

TARGET_US = 20.0


def _median(values):
    values = sorted(values)
    n = len(values)
    return values[n // 2] if n % 2 else 0.5 * (values[n // 2 - 1] + values[n // 2])


def measure(rows, number, repeat, clock=time.perf_counter):
    """Median µs per call of each side of each row, the sides run interleaved."""
    for row in rows:
        for fn in row[1:3]:
            fn()                               # warm up (and check that it runs)
    times = [([], []) for _ in rows]
    for _ in range(repeat):
        for r, row in enumerate(rows):
            n = number // row[4] if len(row) > 4 else number
            for side in (0, 1):
                fn = row[1 + side]
                start = clock()
                for _ in range(n):
                    fn()
                times[r][side].append((clock() - start) / n * 1e6)
    return [(row[0], _median(t[0]), _median(t[1]), row[3]) for row, t in zip(rows, times)]


def f_np(x):
    return float((np.sin(x) * x).sum())


def torch_rows():
    import torch
    torch.set_num_threads(1)

    def f(x):
        return (torch.sin(x) * x).sum()

    def g(x):
        return (pyad.sin(x) * x).sum()

    bridged = from_torch(f)
    x0 = np.linspace(-1, 1, 8, dtype=np.float32)
    t = torch.from_numpy(x0.copy())
    v = pyad.Variable(x0.copy())
    assert np.allclose(bridged(v).item(), f(t).item())
    rows = [("torch fwd (8,) f32", lambda: f(t), lambda: bridged(v), TARGET_US)]

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
    rows.append(("torch fwd+bwd (8,) f32", direct, through, TARGET_US))

    inside = to_torch(g)
    assert np.allclose(inside(t).item(), g(v).item())
    rows.append(("to_torch fwd (8,) f32", lambda: g(v), lambda: inside(t), None))

    def pyad_direct():
        vg.grad = None
        g(vg).backward()

    def torch_through():
        tg.grad = None
        inside(tg).backward()

    pyad_direct()
    torch_through()
    assert np.allclose(vg.grad.data, tg.grad.numpy())
    rows.append(("to_torch fwd+bwd (8,) f32", pyad_direct, torch_through, None))
    return rows


def jax_rows():
    import jax
    import jax.numpy as jnp

    def f(x):
        return (jnp.sin(x) * x).sum()

    def g(x):
        return (pyad.sin(x) * x).sum()

    bridged = from_jax(f)
    x0 = np.linspace(-1, 1, 8, dtype=np.float32)
    j = jnp.asarray(x0)
    v = pyad.Variable(x0.copy())
    assert np.allclose(float(bridged(v).item()), float(f(j)))
    rows = [("jax fwd (8,) f32", lambda: f(j).block_until_ready(), lambda: bridged(v), None)]
    vg = pyad.Variable(x0.copy(), requires_grad=True)

    def direct():
        out, vjp = jax.vjp(f, j)
        return vjp(jnp.ones_like(out))[0].block_until_ready()

    def through():
        vg.grad = None
        bridged(vg).backward()

    through()
    assert np.allclose(vg.grad.data, np.asarray(direct()), rtol=1e-5)
    # (an eager jax.vjp costs milliseconds: a tenth of the calls)
    rows.append(("jax fwd+bwd (8,) f32", direct, through, None, 10))

    inside = to_jax(g)
    assert np.allclose(float(inside(j)), g(v).item())
    rows.append(("to_jax fwd (8,) f32", lambda: g(v), lambda: inside(j).block_until_ready(),
                 None))
    grad = jax.grad(inside)

    def pyad_direct():
        vg.grad = None
        g(vg).backward()

    pyad_direct()
    assert np.allclose(np.asarray(grad(j)), vg.grad.data, rtol=1e-5)
    rows.append(("to_jax fwd+bwd (8,) f32", pyad_direct,
                 lambda: grad(j).block_until_ready(), None, 10))
    return rows


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--smoke", action="store_true", help="few calls (a test run)")
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--number", type=int, default=1000,
                        help="calls per timing (a tenth for the jax.vjp/jax.grad rows)")
    parser.add_argument("--cpu-time", action="store_true",
                        help="time with the process's CPU time (time.process_time, all its "
                             "threads) instead of the wall clock: steadier on a loaded "
                             "machine")
    parser.add_argument("--only", choices=("torch", "jax"), help="one framework's rows")
    args = parser.parse_args(argv)
    clock = time.process_time if args.cpu_time else time.perf_counter
    number = 10 if args.smoke else args.number
    repeat = 2 if args.smoke else args.repeat
    print("%-26s %12s %12s %12s %10s" % ("benchmark", "direct µs", "bridged µs",
                                         "overhead µs", "target"))
    for rows in (torch_rows, jax_rows):
        if args.only and rows.__name__ != args.only + "_rows":
            continue
        try:
            made = rows()
        except ImportError as exc:
            print("%-26s n/a (%s)" % (rows.__name__, exc))
            continue
        for name, direct, bridged, target in measure(made, number, repeat, clock):
            overhead = bridged - direct
            verdict = "" if target is None else (
                "<%g ok" % target if overhead < target else "<%g MISS" % target)
            print("%-26s %12.1f %12.1f %12.1f %10s" % (name, direct, bridged, overhead,
                                                       verdict), flush=True)
    print("(%s: median of %d interleaved repeats of %d calls; load average %s)"
          % ("CPU time" if args.cpu_time else "wall clock", repeat, number,
             " ".join("%.1f" % x for x in os.getloadavg())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
