"""pyad.memory_pool(): the NEP 49 buffer cache (correctness only, no timings)."""
import gc
import threading

import numpy as np
import pytest

import pyad
from pyad import _mempool

try:
    from numpy._core.multiarray import get_handler_name
except ImportError:                 # NumPy 1.x
    from numpy.core.multiarray import get_handler_name

BIG = 1 << 20                       # elements: 8 MiB of float64, well above the minimum
MIN = _mempool._MIN_POOLED


@pytest.fixture(autouse=True)
def _clean_cache():
    pyad.empty_cache()
    old = pyad.set_cache_limit(1 << 30)
    yield
    pyad.set_cache_limit(old)
    pyad.empty_cache()


def _is_pooled(a):
    # The handler that allocated an array is visible through numpy's own API.
    return get_handler_name(a) == "pyad_memory_pool"


def test_scoped_to_the_block():
    outside = np.ones(BIG)
    with pyad.memory_pool():
        inside = np.ones(BIG)
    after = np.ones(BIG)
    assert _is_pooled(inside)
    assert not _is_pooled(outside) and not _is_pooled(after)
    assert get_handler_name() != "pyad_memory_pool"


def test_disabled_is_a_no_op_and_nesting_restores():
    with pyad.memory_pool(enabled=False):
        assert not _is_pooled(np.ones(BIG))
    with pyad.memory_pool():
        with pyad.memory_pool():
            pass
        assert _is_pooled(np.ones(BIG))     # the inner exit restored the outer handler
    assert not _is_pooled(np.ones(BIG))


def test_decorator_form():
    @pyad.memory_pool()
    def f():
        return np.empty(BIG)
    assert _is_pooled(f())
    assert not _is_pooled(np.empty(BIG))


def test_freed_block_is_reused_and_counted():
    with pyad.memory_pool():
        a = np.empty(BIG)
        addr = a.ctypes.data
        del a
        s0 = pyad.memory_stats()
        assert s0["cached_bytes"] >= BIG * 8
        b = np.empty(BIG)
        s1 = pyad.memory_stats()
    assert b.ctypes.data == addr
    assert s1["hits"] == s0["hits"] + 1
    assert s1["cached_bytes"] == s0["cached_bytes"] - (s0["cached_bytes"] - s1["cached_bytes"])
    assert s1["cached_bytes"] < s0["cached_bytes"]


def test_zeros_are_zero_even_from_a_dirty_cached_block():
    with pyad.memory_pool():
        a = np.empty(BIG)
        a.fill(np.nan)
        addr = a.ctypes.data
        del a
        z = np.zeros(BIG)                      # calloc: must be zeroed
        assert z.ctypes.data == addr           # (it did come from the cache)
        assert not z.any()
        v = pyad.zeros(BIG, dtype=pyad.float64)
        assert not v.numpy().any()


def test_small_arrays_pass_through_and_work():
    with pyad.memory_pool():
        a = np.arange(10.0)
        z = np.zeros(100)
        a2 = np.resize(a, 50)                  # realloc paths in numpy
        grown = np.fromiter(range(100000), dtype=np.float64)
    assert not z.any()
    np.testing.assert_array_equal(a2[:10], np.arange(10.0))
    np.testing.assert_array_equal(grown, np.arange(100000.0))
    assert pyad.memory_stats()["cached_bytes"] <= 1 << 30


def test_realloc_across_the_threshold_keeps_data():
    with pyad.memory_pool():
        n = MIN // 8 - 16
        a = np.fromiter((float(i) for i in range(4 * n)), dtype=np.float64)  # grows by realloc
        b = np.fromiter((float(i) for i in range(7)), dtype=np.float64, count=7)
    np.testing.assert_array_equal(a, np.arange(4.0 * n))
    np.testing.assert_array_equal(b, np.arange(7.0))


def test_reused_buffer_never_visible_through_a_live_variable():
    with pyad.memory_pool():
        x = pyad.Variable(np.random.default_rng(0).standard_normal(BIG), requires_grad=True)
        keep = pyad.tanh(x * 2.0)
        expected = np.tanh(x.detach().numpy() * 2.0)
        view = keep[::2]
        for _ in range(5):                     # churn same-size temporaries and gradients
            x.grad = None
            y = (pyad.tanh(x * 2.0 + 1.0) * x).sum()
            y.backward()
            g = x.grad.numpy().copy()
            np.testing.assert_allclose(keep.detach().numpy(), expected, rtol=0, atol=0)
            np.testing.assert_allclose(view.detach().numpy(), expected[::2], rtol=0, atol=0)
        t = np.tanh(x.detach().numpy() * 2.0 + 1.0)
        want = t + x.detach().numpy() * (1.0 - t * t) * 2.0
        np.testing.assert_allclose(g, want, rtol=1e-12, atol=1e-12)
        assert pyad.memory_stats()["hits"] > 0


def test_matches_torch_gradient_with_the_pool():
    torch = pytest.importorskip("torch")
    x0 = np.random.default_rng(1).standard_normal(BIG)
    with pyad.memory_pool():
        for _ in range(3):
            x = pyad.Variable(x0.copy(), requires_grad=True)
            (pyad.tanh(x * 2.0 + 1.0) * x).sum().backward()
    xt = torch.from_numpy(x0.copy()).requires_grad_()
    (torch.tanh(xt * 2.0 + 1.0) * xt).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), xt.grad.numpy(), rtol=1e-12, atol=1e-12)


def test_cache_is_bounded_by_the_limit():
    pyad.set_cache_limit(3 * BIG * 8)
    with pyad.memory_pool():
        arrays = [np.empty(BIG) for _ in range(8)]
        del arrays
    s = pyad.memory_stats()
    assert 0 < s["cached_bytes"] <= 3 * BIG * 8
    assert s["limit_bytes"] == 3 * BIG * 8
    pyad.set_cache_limit(BIG * 8)              # lowering the limit frees the excess now
    assert pyad.memory_stats()["cached_bytes"] <= BIG * 8
    pyad.set_cache_limit(0)                    # 0: nothing is kept
    assert pyad.memory_stats()["cached_bytes"] == 0
    with pyad.memory_pool():
        a = np.empty(BIG)
        del a
    assert pyad.memory_stats()["cached_bytes"] == 0


def test_empty_cache_frees_everything_but_live_arrays_survive():
    with pyad.memory_pool():
        live = np.full(BIG, 3.0)
        tmp = [np.empty(BIG) for _ in range(3)]
        del tmp
    assert pyad.memory_stats()["cached_bytes"] > 0
    pyad.empty_cache()
    assert pyad.memory_stats()["cached_bytes"] == 0
    assert (live == 3.0).all()
    del live                                   # freed back into the cache after empty_cache
    assert pyad.memory_stats()["cached_bytes"] > 0


def test_array_outlives_the_block_and_frees_back():
    with pyad.memory_pool():
        a = np.ones(BIG)
    before = pyad.memory_stats()["cached_bytes"]
    del a
    gc.collect()
    assert pyad.memory_stats()["cached_bytes"] > before


def test_threads_share_the_cache_safely():
    errors = []

    def work(seed):
        try:
            with pyad.memory_pool():
                rng = np.random.default_rng(seed)
                for _ in range(30):
                    n = int(rng.integers(MIN // 8, 4 * MIN // 8))
                    a = np.full(n, float(seed))
                    b = np.zeros(n)
                    assert (a == seed).all() and not b.any()
        except BaseException as e:     # pragma: no cover - reported below
            errors.append(e)
    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors


def test_other_threads_are_not_affected():
    seen = []
    with pyad.memory_pool():
        t = threading.Thread(target=lambda: seen.append(_is_pooled(np.ones(BIG))))
        t.start()
        t.join()
    assert seen == [False]


def test_bad_limits():
    with pytest.raises(TypeError, match=r"^set_cache_limit\(\): "):
        pyad.set_cache_limit(1.5)
    with pytest.raises(ValueError, match=r"^set_cache_limit\(\): "):
        pyad.set_cache_limit(-1)
