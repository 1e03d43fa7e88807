"""Host memory: an opt-in cache of freed array buffers (see docs/memory.md).

``with pyad.memory_pool():`` installs, for the code inside it (the current thread's
context), a NumPy data-allocation handler (NEP 49) that keeps freed blocks of at
least 128 KiB in a size-bucketed cache and hands them out again, so that a training
loop on big arrays stops page-faulting its temporaries and gradients in on every
step. Arrays allocated outside the block, or by other threads, are never touched;
an array allocated inside keeps its handler and returns its block to the cache when
it is freed, wherever that happens. The cache holds at most ``set_cache_limit()``
bytes (1 GiB by default); ``empty_cache()`` frees what it holds.

Python's own small objects (nodes, Variables, the array objects) live in pymalloc's
1 MiB arenas, which CPython hands back to the OS the moment one empties: a loop that
builds and frees a big graph every step page-faults all of it in again each time.
From import on, pyad keeps up to ``set_arena_cache_limit()`` bytes (256 MiB by
default) of freed arenas for reuse, their pages marked ``MADV_FREE`` so that the
kernel may still reclaim them under memory pressure. ``empty_cache()`` hands them
back too.
"""
from pyad import _mempool

__all__ = ["memory_pool", "empty_cache", "memory_stats", "set_cache_limit",
           "set_arena_cache_limit"]


class memory_pool:
    """Context manager: arrays allocated inside it (by pyad or by NumPy, in this
    thread's context) come from pyad's buffer cache.

    ``enabled=False`` makes it a no-op (handy for A/B runs). Nested uses are fine;
    leaving restores the handler that was active on entry. Memory handed out for
    ``zeros`` (``calloc``) is zeroed even when it comes from the cache; memory
    handed out for ``empty`` is not, as with NumPy.
    """

    def __init__(self, enabled=True):
        self.enabled = bool(enabled)
        self._previous = []

    def __enter__(self):
        if self.enabled:
            self._previous.append(_mempool.set_handler(_mempool.handler))
        return self

    def __exit__(self, exc_type, exc, tb):
        if self.enabled:
            _mempool.set_handler(self._previous.pop())
        return False

    def __call__(self, fn):
        import functools

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with memory_pool(self.enabled):
                return fn(*args, **kwargs)
        return wrapper


def empty_cache():
    """Free every buffer the cache holds and hand the kept object arenas back to the
    system (buffers and arenas still in use are not affected)."""
    _mempool.empty(0)
    _mempool.arena_empty(0)


def _nbytes(fn, nbytes):
    import operator
    try:
        nbytes = operator.index(nbytes)
    except TypeError:
        raise TypeError("%s(): nbytes must be an int, got %s"
                        % (fn, type(nbytes).__name__)) from None
    if nbytes < 0:
        raise ValueError("%s(): nbytes must be >= 0, got %d" % (fn, nbytes))
    return nbytes


def set_cache_limit(nbytes):
    """Set the most bytes the cache may hold (freeing the excess now); return the
    previous limit. 0 disables caching (blocks are freed at once)."""
    return _mempool.set_limit(_nbytes("set_cache_limit", nbytes))


def set_arena_cache_limit(nbytes):
    """Set the most bytes of freed Python object arenas pyad keeps for reuse (handing
    the excess back now, at most 8192 arenas); return the previous limit. 0 hands
    every arena back as soon as it empties, as CPython does on its own."""
    return _mempool.arena_set_limit(_nbytes("set_arena_cache_limit", nbytes))


def memory_stats():
    """A dict: ``cached_bytes`` (held by the cache, free), ``limit_bytes``,
    ``in_use_bytes`` and ``peak_in_use_bytes`` (cacheable-size blocks handed out and
    not yet freed), ``hits`` and ``misses`` (cacheable-size requests served from the
    cache or from the system); ``arena_cached_bytes``, ``arena_limit_bytes``,
    ``arena_hits`` and ``arena_misses`` for the kept object arenas (a hit is an
    arena CPython asked for and got from the kept ones)."""
    stats = _mempool.stats()
    stats.update(_mempool.arena_stats())
    return stats
