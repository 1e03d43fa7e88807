"""The kept object arenas (pyad.memory.set_arena_cache_limit): pyad wraps CPython's
arena allocator so that freed pymalloc arenas are reused instead of handed back to the
OS and faulted in again. Correctness only (no timings): reuse never changes a result,
the limit holds, empty_cache() and a zero limit hand everything back."""
import gc
import os
import subprocess
import sys
import textwrap
import threading

import numpy as np
import pytest

import pyad
from pyad import _mempool
from pyad.memory import set_arena_cache_limit

MIB = 1 << 20
# The directory holding the pyad this process imported (site-packages, or the checkout
# for an in-place build): the subprocess must import the same one.
PYAD_HOME = os.path.dirname(os.path.dirname(os.path.abspath(pyad.__file__)))


@pytest.fixture(autouse=True)
def _default_limit():
    old = set_arena_cache_limit(_mempool.ARENA_LIMIT_DEFAULT)
    yield
    set_arena_cache_limit(old)


def _chain(n, scale=0.5):
    """A graph of n live nodes (mul + tanh pairs) on shape (3,), and its leaf."""
    x = pyad.Variable(np.array([0.3, -1.2, 2.0]), requires_grad=True)
    y = x
    for _ in range(n // 2):
        y = pyad.tanh(pyad.mul(y, scale))
    return x, y


def _chain_grad_numpy(n, x0, scale=0.5):
    """The same chain's value and gradient, by hand in NumPy."""
    v, d = x0.copy(), np.ones_like(x0)
    for _ in range(n // 2):
        t = np.tanh(v * scale)
        d = d * scale * (1 - t * t)
        v = t
    return v, d


def _garbage(n):
    """Build and drop n small containers: enough arenas to empty several."""
    junk = [[i] for i in range(n)]
    del junk
    gc.collect()


def test_stats_and_default_limit():
    s = pyad.memory_stats()
    for key in ("arena_cached_bytes", "arena_limit_bytes", "arena_hits", "arena_misses"):
        assert isinstance(s[key], int) and s[key] >= 0
    assert s["arena_limit_bytes"] == 256 * MIB == _mempool.ARENA_LIMIT_DEFAULT
    assert s["arena_cached_bytes"] <= s["arena_limit_bytes"]


def test_freed_arenas_are_kept_and_reused():
    pyad.empty_cache()
    assert pyad.memory_stats()["arena_cached_bytes"] == 0
    _garbage(300_000)                        # tens of MiB of small objects
    kept = pyad.memory_stats()["arena_cached_bytes"]
    assert kept >= 4 * MIB
    hits = pyad.memory_stats()["arena_hits"]
    _garbage(300_000)
    s = pyad.memory_stats()
    assert s["arena_hits"] > hits            # the second round took kept arenas
    assert s["arena_cached_bytes"] <= s["arena_limit_bytes"]


def test_results_through_reused_arenas_are_exact():
    # Each round records its graph in arenas the previous round freed: the values
    # and gradients must be those of the hand-written NumPy chain, every round.
    n = 20_000
    for _ in range(3):
        x, y = _chain(n)
        y.sum().backward()
        v, d = _chain_grad_numpy(n, x.data)
        np.testing.assert_allclose(y.data, v, rtol=1e-12)
        np.testing.assert_allclose(x.grad.data, d, rtol=1e-12)
        del x, y
        gc.collect()
    assert pyad.memory_stats()["arena_hits"] > 0


def test_limit_bounds_what_is_kept():
    pyad.empty_cache()
    assert set_arena_cache_limit(2 * MIB) == 256 * MIB
    _garbage(300_000)
    assert 0 < pyad.memory_stats()["arena_cached_bytes"] <= 2 * MIB
    set_arena_cache_limit(1 * MIB)           # lowering the limit hands back the excess
    assert pyad.memory_stats()["arena_cached_bytes"] <= 1 * MIB
    assert pyad.memory_stats()["arena_limit_bytes"] == 1 * MIB


def test_zero_limit_keeps_nothing():
    set_arena_cache_limit(0)
    assert pyad.memory_stats()["arena_cached_bytes"] == 0
    _garbage(300_000)
    assert pyad.memory_stats()["arena_cached_bytes"] == 0
    x, y = _chain(2000)                      # the plain CPython behaviour still works
    y.sum().backward()
    np.testing.assert_allclose(x.grad.data, _chain_grad_numpy(2000, x.data)[1], rtol=1e-12)


def test_empty_cache_hands_arenas_back():
    _garbage(300_000)
    assert pyad.memory_stats()["arena_cached_bytes"] > 0
    pyad.empty_cache()
    assert pyad.memory_stats()["arena_cached_bytes"] == 0


@pytest.mark.parametrize("bad, exc", [(-1, ValueError), (1.5, TypeError), ("1", TypeError),
                                      (None, TypeError)])
def test_bad_limit_is_refused(bad, exc):
    before = pyad.memory_stats()["arena_limit_bytes"]
    with pytest.raises(exc, match="set_arena_cache_limit"):
        set_arena_cache_limit(bad)
    assert pyad.memory_stats()["arena_limit_bytes"] == before


def test_deep_recursion_reuses_frame_chunks():
    # The interpreter's frame stack chunks come from the same allocator (16 KiB and
    # up, of other sizes than arenas): deep recursion twice must work and agree.
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 6000))
    try:
        def depth(k):
            return 0 if k == 0 else 1 + depth(k - 1)
        assert depth(5000) == 5000
        assert depth(5000) == 5000
    finally:
        sys.setrecursionlimit(limit)


def test_threads_building_graphs_at_once():
    errors = []

    def work(scale):
        try:
            for _ in range(3):
                x, y = _chain(6000, scale)
                y.sum().backward()
                v, d = _chain_grad_numpy(6000, x.data, scale)
                np.testing.assert_allclose(x.grad.data, d, rtol=1e-12)
                del x, y
        except Exception as e:               # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(s,)) for s in (0.3, 0.5, 0.9)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []


def test_rebuilding_a_graph_stops_faulting():
    # The point of the cache, in a fresh process: the second build of the same graph
    # takes its arenas from the cache and faults (almost) none of them in again. With
    # the cache off, it faults as many as the first. (Page-fault counts, not time.)
    code = textwrap.dedent("""
        import gc, resource, sys
        import numpy as np
        import pyad
        pyad.memory.set_arena_cache_limit(int(sys.argv[1]))
        x = pyad.Variable(np.ones(1), requires_grad=True)

        def build():
            f0 = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
            y = x
            for _ in range(50_000):
                y = pyad.tanh(pyad.mul(y, 0.5))
            f1 = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
            del y
            gc.collect()
            return f1 - f0

        print(build(), build())
    """)
    out = {}
    for limit in (256 * MIB, 0):
        # Not from the checkout: `-c` puts the working directory first on sys.path.
        proc = subprocess.run([sys.executable, "-c", code, str(limit)],
                              capture_output=True, text=True, timeout=300,
                              env=dict(os.environ, PYTHONPATH=PYAD_HOME),
                              cwd=os.path.dirname(PYAD_HOME))
        assert proc.returncode == 0, proc.stderr
        out[limit] = [int(v) for v in proc.stdout.split()]
    first, second = out[256 * MIB]
    first_off, second_off = out[0]
    assert first > 1000 and first_off > 1000       # 10^5 nodes: thousands of pages
    assert second_off > first_off // 2             # without the cache: faulted again
    assert second < first // 10                    # with it: reused


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork()")
def test_caches_work_in_a_forked_child():
    # The child gets fresh locks (os.register_at_fork) and inherits the kept arenas:
    # building a graph and using the buffer cache there must work and be exact.
    _garbage(300_000)
    assert pyad.memory_stats()["arena_cached_bytes"] > 0
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:                                   # the child: report, never return
        ok = 0
        try:
            x, y = _chain(20_000)
            y.sum().backward()
            d = _chain_grad_numpy(20_000, x.data)[1]
            with pyad.memory_pool():
                for _ in range(3):
                    big = np.ones(1 << 18) * 2.0
                    del big
            ok = int(np.allclose(x.grad.data, d, rtol=1e-12, atol=0)
                     and pyad.memory_stats()["hits"] > 0)
        finally:
            os.write(write_end, b"%d" % ok)
            os._exit(0)
    os.close(write_end)
    _, status = os.waitpid(pid, 0)
    assert os.read(read_end, 16) == b"1"
    os.close(read_end)
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0
