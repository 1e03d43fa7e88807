"""Scale rows for issue 19: the live-graph growth row and the plain-process big row.

    python benchmarks/bench_scale.py growth [--no-torch] [--repeat N]
    python benchmarks/bench_scale.py big    [--repeat N] [--n 1000000]
    python benchmarks/bench_scale.py profiler [--repeat N]
    python benchmarks/bench_scale.py memory [--repeat N] [--ops 200000] [--no-torch]
    python benchmarks/bench_scale.py cold [--repeat N]
    python benchmarks/bench_scale.py --smoke      # every row at tiny sizes (CI)

growth: recording cost per op (mul + tanh pairs on shape (1,), forward only, cyclic
    GC on as users run it) over building a graph of 10^3, 10^4, 10^5 and 3*10^5 live
    nodes: the time to build it divided by its node count, min over repeats (the
    collector's passes over the growing graph are part of it), and the same for pyad
    with the collector disabled (the growth left there is the caches', not the GC's),
    and for the NumPy floor: the same ufunc calls on plain arrays with every result
    kept alive in a list, no graph (what touching ever more live memory costs);
    "pyad, marginal" is the cost per op of recording 2000 more pairs on top of a live
    graph of N nodes (built first, untimed): the cost at a live-graph size, not
    averaged over a build.
big: sum(tanh(2x+1)*x) forward+backward on 10^6 float64 in a process that never
    imports torch, three columns interleaved in one run: the hand-written NumPy floor,
    pyad, and pyad inside ``pyad.memory_pool()``; time (min of N) and page faults
    (getrusage minflt) per call, plus gc collections.
profiler: the 100-op chain forward+backward with the profiler off and on,
    interleaved, min of N; the ratio on/off.
memory: bytes per recorded op (mul + tanh pairs on shape (1,), 2*10^5 ops, cyclic GC
    on): the growth of the process's RSS while the graph is built, in a fresh
    subprocess per measurement (median of N), and the live pymalloc blocks per op
    (sys.getallocatedblocks: every object the graph keeps, plus NumPy's small
    shape/data buffers when they come from Python's allocator), for pyad and torch.
cold: the engine's fixed cost per training step with warm and with cold caches: the
    (b) MLP step of bench_core.py at tiny sizes (batch 2, 4-4-3), so that its array work
    is negligible, each call after a copy of 0 B to 16 MB of arrays that evicts what the
    caches held (as the real step's BLAS calls do), floor and pyad interleaved, median of
    N; pyad minus floor is what pyad's code and objects cost at that cache state.

No timings are asserted anywhere (tests/test_benchmarks_smoke.py runs --smoke).
"""
import argparse
import gc
import os
import resource
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
if any(f.startswith("_engine") and f.endswith((".so", ".pyd"))
       for f in os.listdir(os.path.join(ROOT, "pyad"))):
    sys.path.insert(0, ROOT)

import numpy as np  # noqa: E402


def _minflt():
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt


def _gc_collections():
    return [s["collections"] for s in gc.get_stats()]


def _min_time(fn, number, repeat):
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(number):
            fn()
        best = min(best, (time.perf_counter() - t0) / number)
    return best


# ------------------------------------------------------------------ growth

def growth(args):
    import pyad
    sizes = [10 ** 3, 10 ** 4, 10 ** 5, 3 * 10 ** 5] if not args.smoke else [100, 1000]
    frameworks = [("pyad", pyad)]
    if not args.no_torch:
        try:
            import torch
            torch.set_num_threads(1)
            frameworks.append(("torch", torch))
        except ImportError:
            pass
    assert gc.isenabled()
    print("live-graph growth: forward us/op building a graph of N live nodes (mul+tanh on "
          "shape (1,)), gc on, min of %d" % args.repeat)
    # "pyad, gc off" builds the same graphs with the collector disabled: what is left of
    # the growth there is the memory hierarchy (the graph outgrowing the caches), not the
    # collector, whose share is the difference between the two pyad columns.
    frameworks.insert(1, ("pyad, gc off", pyad))
    # "pyad, no arenas" hands every freed pymalloc arena back at once, as CPython does
    # on its own (set_arena_cache_limit(0)): a rebuilt graph faults its pages in again.
    frameworks.insert(2, ("pyad, no arenas", pyad))
    # "numpy, kept" is the floor: the same ufunc calls on plain arrays, every result
    # kept alive in a list (as a graph keeps what its backward needs). Its growth is
    # what touching ever more live memory costs any code, with no graph at all.
    frameworks.insert(3, ("numpy, kept", np))
    # "pyad, marginal" is the cost of recording 2000 more pairs on top of a live graph
    # of N nodes (built first, untimed): the cost per op *at* a live-graph size, which
    # the build columns above average over a graph growing from 0 to N, and whose own
    # fresh memory (N ops' worth) decides how much of it the caches hold.
    frameworks.insert(4, ("pyad, marginal", pyad))
    batch = 2000 if not args.smoke else 50
    rows = {}
    for name, lib in frameworks:
        if name.endswith("marginal"):
            x = pyad.Variable(np.ones(1), requires_grad=True)

            def build_base(n, x=x, mul=lib.mul, tanh=lib.tanh):
                y = x
                for _ in range(n // 2):
                    y = tanh(mul(y, 0.5))
                return y

            for n in sizes:
                base = build_base(n)
                best = float("inf")
                c0 = _gc_collections()
                f0 = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
                for _ in range(args.repeat):
                    z = base
                    t0 = time.perf_counter()
                    for _ in range(batch):
                        z = lib.tanh(lib.mul(z, 0.5))
                    best = min(best, (time.perf_counter() - t0) / (2 * batch))
                    del z                            # (freeing it is not timed)
                faults = (resource.getrusage(resource.RUSAGE_SELF).ru_minflt - f0) / (
                    2 * batch * args.repeat)
                c1 = _gc_collections()
                rows.setdefault(n, {})[name] = (best * 1e6, [b - a for a, b in zip(c0, c1)],
                                                faults)
                del base
                gc.collect()
            continue
        if lib is np:
            x = np.ones(1)

            def build(n, x=x):
                kept = []
                keep = kept.append
                y = x
                for _ in range(n // 2):
                    y = np.multiply(y, 0.5)
                    keep(y)
                    y = np.tanh(y)
                    keep(y)
                return kept
        else:
            if lib is pyad:
                x = pyad.Variable(np.ones(1), requires_grad=True)
            else:
                x = lib.ones(1, dtype=lib.float64, requires_grad=True)

            def build(n, x=x, mul=lib.mul, tanh=lib.tanh):
                y = x
                for _ in range(n // 2):              # builds a graph of n live nodes
                    y = tanh(mul(y, 0.5))
                return y
        if name.endswith("gc off"):
            gc.disable()
        arena_limit = (pyad.memory.set_arena_cache_limit(0)
                       if name.endswith("no arenas") else None)
        try:
            for n in sizes:
                best = float("inf")
                c0 = _gc_collections()
                f0 = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
                for _ in range(args.repeat):
                    t0 = time.perf_counter()
                    y = build(n)
                    best = min(best, (time.perf_counter() - t0) / n)
                    del y                            # (freeing it is not timed)
                faults = (resource.getrusage(resource.RUSAGE_SELF).ru_minflt - f0) / (
                    n * args.repeat)
                c1 = _gc_collections()
                rows.setdefault(n, {})[name] = (best * 1e6, [b - a for a, b in zip(c0, c1)],
                                                faults)
                gc.collect()
        finally:
            gc.enable()
            if arena_limit is not None:
                pyad.memory.set_arena_cache_limit(arena_limit)
    names = [n for n, _ in frameworks]
    print("%-10s" % "live nodes" + "".join("%16s" % n for n in names)
          + "   gc collections (gen0, gen1, gen2) per framework")
    for n in sizes:
        r = rows[n]
        print("%-10d" % n + "".join("%13.3f us" % r[f][0] for f in names)
              + "   " + "  ".join(str(tuple(r[f][1])) for f in names))
    print("minor page faults per op (mean over the repeats, freeing included): "
          + ", ".join("%s %s" % (f, "/".join("%.3f" % rows[n][f][2] for n in sizes))
                      for f in names))
    if len(sizes) > 1:
        for f in names:
            print("%s growth %d -> %d: %.2fx" % (f, sizes[0], sizes[-1],
                                                  rows[sizes[-1]][f][0] / rows[sizes[0]][f][0]))


# ------------------------------------------------------------------ big

def floor_big(x):
    t = np.tanh(x * 2.0 + 1.0)
    s = (t * x).sum()
    g = t + x * (1.0 - t * t) * 2.0
    return s, g


def big(args):
    import pyad
    assert "torch" not in sys.modules, "the plain-process row must not import torch"
    n = args.n if not args.smoke else 1000
    x0 = np.random.default_rng(2).standard_normal(n)
    xf = x0.copy()
    x = pyad.Variable(x0.copy(), requires_grad=True)
    tanh = pyad.tanh

    def run_pyad():
        x.grad = None
        s = (tanh(x * 2.0 + 1.0) * x).sum()
        s.backward()
        return s, x.grad

    pool = pyad.memory_pool()

    def run_pool():
        with pool:
            return run_pyad()

    cols = [("floor", lambda: floor_big(xf)), ("pyad", run_pyad), ("pyad+pool", run_pool)]
    s0, g0 = floor_big(x0.copy())
    for name, fn in cols[1:]:
        s, g = fn()
        np.testing.assert_allclose(float(s.item()), float(s0), rtol=1e-10)
        np.testing.assert_allclose(g.numpy(), g0, rtol=1e-10, atol=1e-12)
    number = 20 if not args.smoke else 2
    best = {c: float("inf") for c, _ in cols}
    flt = {c: float("inf") for c, _ in cols}
    c0 = _gc_collections()
    for _ in range(args.repeat):
        for name, fn in cols:                  # interleaved: A, B, C, A, B, C, ...
            fn()
            f0 = _minflt()
            t0 = time.perf_counter()
            for _ in range(number):
                fn()
            dt = (time.perf_counter() - t0) / number
            f1 = _minflt()
            best[name] = min(best[name], dt)
            flt[name] = min(flt[name], (f1 - f0) / number)
    c1 = _gc_collections()
    print("plain-process big row: sum(tanh(2x+1)*x) fwd+bwd, %d float64, no torch in the "
          "process, min of %d x %d calls" % (n, args.repeat, number))
    print("%-10s %12s %8s %16s" % ("column", "us/call", "ratio", "minflt/call"))
    for name, _ in cols:
        print("%-10s %12.0f %7.2fx %16.0f" % (name, best[name] * 1e6,
                                              best[name] / best["floor"], flt[name]))
    print("gc collections during the run (gen0, gen1, gen2):",
          tuple(b - a for a, b in zip(c0, c1)))
    print("pool:", pyad.memory_stats())


# ------------------------------------------------------------------ profiler

def profiler(args):
    import pyad
    import pyad.autograd.profiler as prof
    reps = 25 if not args.smoke else 2
    x = pyad.Variable(np.linspace(-1, 1, 8), requires_grad=True)
    tanh = pyad.tanh

    def off():
        x.grad = None
        y = x
        for _ in range(reps):
            y = tanh(y * 1.0001 + 0.1) - 0.05
        y.sum().backward()
        return x.grad

    def on():
        with prof.profile():
            return off()

    number = 200 if not args.smoke else 2
    best = {"off": float("inf"), "on": float("inf")}
    for _ in range(args.repeat):
        for name, fn in (("off", off), ("on", on)):
            fn()
            best[name] = min(best[name], _min_time(fn, number, 1))
    print("profiler: chain%d fwd+bwd, min of %d x %d calls" % (4 * reps, args.repeat, number))
    print("off %.1f us   on %.1f us   on/off %.2fx" % (best["off"] * 1e6, best["on"] * 1e6,
                                                       best["on"] / best["off"]))


# ------------------------------------------------------------------ memory

_MEMORY_CHILD = r"""
import gc, os, sys
sys.path[:0] = %(path)r
import numpy as np
lib = __import__(%(lib)r)
if %(lib)r == "pyad":
    x = lib.Variable(np.ones(1), requires_grad=True)
else:
    lib.set_num_threads(1)
    x = lib.ones(1, dtype=lib.float64, requires_grad=True)
mul, tanh = lib.mul, lib.tanh

def rss():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")

y = x
for _ in range(1000):                     # warm up every allocator on the path
    y = tanh(mul(y, 0.5))
del y
gc.collect()
if %(lib)r == "pyad":
    lib.empty_cache()                     # kept arenas would hide the growth of RSS
assert gc.isenabled()
n = %(ops)d
b0, r0 = sys.getallocatedblocks(), rss()
y = x
for _ in range(n // 2):
    y = tanh(mul(y, 0.5))
r1, b1 = rss(), sys.getallocatedblocks()
print((r1 - r0) / n, (b1 - b0) / n)
"""


def _memory_once(lib, ops):
    import subprocess
    code = _MEMORY_CHILD % dict(path=[p for p in sys.path[:1] if p == ROOT], lib=lib,
                                ops=ops)
    # cwd: `python -c` puts the working directory first on sys.path, and the repository
    # root holds a `pyad/` source folder that shadows an installed pyad when the
    # extension is not built in place (the CI's case); the benchmarks folder holds none.
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=HERE)
    if proc.returncode != 0:
        raise RuntimeError("the %s memory measurement failed:\n%s" % (lib, proc.stderr))
    out = proc.stdout.split()
    return float(out[0]), float(out[1])


def memory(args):
    import statistics
    ops = args.ops if not args.smoke else 2000
    libs = ["pyad"]
    if not args.no_torch:
        try:
            import importlib.util
            if importlib.util.find_spec("torch") is not None:
                libs.append("torch")
        except ImportError:
            pass
    print("memory per recorded op: mul + tanh pairs on shape (1,), %d ops, gc on, a fresh "
          "process per measurement, median of %d" % (ops, args.repeat))
    results = {lib: [] for lib in libs}
    for _ in range(args.repeat):
        for lib in libs:                       # interleaved
            results[lib].append(_memory_once(lib, ops))
    print("%-8s %14s %22s" % ("", "RSS B/op", "live pymalloc blocks/op"))
    for lib in libs:
        rss = statistics.median(r[0] for r in results[lib])
        blocks = statistics.median(r[1] for r in results[lib])
        print("%-8s %14.0f %22.2f" % (lib, rss, blocks))


# ------------------------------------------------------------------ cold

def cold(args):
    sys.path.insert(0, HERE)
    import pyad
    from bench_core import FULL, MLPStep
    cfg = dict(FULL, mlp_batch=2, mlp_in=4, mlp_hidden=4, mlp_out=3)
    step = MLPStep(cfg)
    sizes = [0, 10 ** 6, 4 * 10 ** 6, 16 * 10 ** 6] if not args.smoke else [0, 10 ** 4]
    number = 200 if not args.smoke else 2
    print("cold: MLP step %dx%d-%d-%d, each call after a copy of the given size; "
          "median of %d x %d calls" % (2, 4, 4, 3, args.repeat, number))
    print("%-10s %10s %10s %10s %12s" % ("evicted", "copy us", "floor us", "pyad us",
                                         "pyad-floor"))
    for size in sizes:
        src = np.ones(max(size // 8, 1))
        dst = np.empty_like(src)

        def evict():
            np.copyto(dst, src)

        def after_evict(f):
            def run():
                evict()
                return f()
            return run
        fns = {"copy": evict, "floor": after_evict(step.floor()),
               "pyad": after_evict(step.pyad(pyad))}
        times = {k: [] for k in fns}
        for _ in range(args.repeat):
            for k, f in fns.items():
                times[k].append(_min_time(f, number, 1))
        med = {k: sorted(v)[len(v) // 2] * 1e6 for k, v in times.items()}
        print("%-10s %10.1f %10.1f %10.1f %12.1f" % (
            "%d kB" % (size // 1000), med["copy"], med["floor"], med["pyad"],
            med["pyad"] - med["floor"]))


# ------------------------------------------------------------------ main

def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("row", nargs="?", choices=["growth", "big", "profiler", "memory", "cold"],
                   default=None)
    p.add_argument("--smoke", action="store_true", help="tiny sizes, every row (CI)")
    p.add_argument("--repeat", type=int, default=None)
    p.add_argument("--n", type=int, default=10 ** 6, help="elements for the big row")
    p.add_argument("--ops", type=int, default=2 * 10 ** 5, help="memory: ops recorded")
    p.add_argument("--no-torch", action="store_true", help="growth, memory: skip torch")
    args = p.parse_args(argv)
    if args.repeat is None:
        args.repeat = 2 if args.smoke else 7
    if args.smoke:
        args.no_torch = True
    rows = [args.row] if args.row else ["big", "profiler", "growth", "memory", "cold"]
    if not args.smoke and args.row is None:
        p.error("name a row (growth, big, profiler, memory, cold) or pass --smoke")
    for r in rows:
        {"growth": growth, "big": big, "profiler": profiler, "memory": memory,
         "cold": cold}[r](args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
