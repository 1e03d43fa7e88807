"""torch's thread-count controls: ``set_num_threads``, ``get_num_threads``,
``set_num_interop_threads``, ``get_num_interop_threads``.

pyad runs each op as one NumPy call on the calling thread; the only parallel work below
it is the BLAS library's (matmul, conv through matmul, linalg). So the intra-op count is
BLAS's thread count, set through ``threadpoolctl`` (the ``threads`` extra) when it is
installed. Without it the count is still validated and remembered, and
``get_num_threads`` returns it, but BLAS keeps the threads it started with (set
``OPENBLAS_NUM_THREADS`` before starting Python to change them). pyad has no inter-op
pool, so the inter-op count is only remembered, for scripts that set and read it back.
"""
import operator
import os

__all__ = ["set_num_threads", "get_num_threads", "set_num_interop_threads",
           "get_num_interop_threads"]

_intra_threads = None
_interop_threads = None
_blas_limits = None     # threadpoolctl's limiter while a count is applied


def _positive_count(value, what):
    # torch's checks and wording: an int (not a bool, not a float), at least 1.
    if isinstance(value, bool) or not hasattr(type(value), "__index__"):
        raise RuntimeError("%s expects an int, but got %s" % (what, type(value).__name__))
    value = operator.index(value)
    if value <= 0:
        raise RuntimeError("%s expects a positive integer" % what)
    return value


def _default_threads():
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:      # not on Linux
        return os.cpu_count() or 1


def set_num_threads(int):
    """Set the number of threads used for intra-op parallelism (BLAS's thread count).

    >>> import pyad
    >>> n = pyad.get_num_threads()
    >>> pyad.set_num_threads(1)
    >>> pyad.get_num_threads()
    1
    >>> pyad.set_num_threads(n)
    """
    global _intra_threads, _blas_limits
    count = _positive_count(int, "set_num_threads")
    try:
        import threadpoolctl
    except ImportError:
        threadpoolctl = None
    if threadpoolctl is not None:
        _blas_limits = threadpoolctl.threadpool_limits(limits=count, user_api="blas")
    _intra_threads = count


def get_num_threads():
    """The number of threads used for intra-op parallelism: the last count given to
    :func:`set_num_threads`, else BLAS's thread count (``threadpoolctl``), else the
    CPUs this process may run on."""
    if _intra_threads is not None:
        return _intra_threads
    try:
        import threadpoolctl
    except ImportError:
        return _default_threads()
    counts = [pool["num_threads"] for pool in threadpoolctl.threadpool_info()
              if pool.get("user_api") == "blas"]
    return max(counts) if counts else _default_threads()


def set_num_interop_threads(int):
    """Set the number of threads for inter-op parallelism. pyad runs ops one after
    another, so the count is validated and remembered only."""
    global _interop_threads
    _interop_threads = _positive_count(int, "set_num_interop_threads")


def get_num_interop_threads():
    """The count given to :func:`set_num_interop_threads`, else the CPUs this process
    may run on (pyad itself runs ops one after another)."""
    return _interop_threads if _interop_threads is not None else _default_threads()
