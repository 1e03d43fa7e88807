"""Test-suite-wide settings: the hypothesis profiles.

``ci`` (the default) keeps the property tests short and reproducible: few examples,
derandomized (the same examples on every run, no example database). ``long`` runs
many more random examples; select it with ``pytest --hypothesis-profile=long``.
Registered here (the top-level conftest is read before the hypothesis plugin picks
the profile), so the option works for any subset of the suite.
"""
import os
import sys

import pytest

# tests/_*.py helper modules importable under --import-mode=importlib (which does not put
# test directories on sys.path); tests/ops/conftest.py does the same for its own
_HERE = os.path.dirname(os.path.abspath(__file__))
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)

try:
    from hypothesis import HealthCheck, settings
except ImportError:          # hypothesis is a test dependency; its tests skip without it
    settings = None

if settings is not None:
    _common = dict(deadline=None, database=None, print_blob=True,
                   suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                          HealthCheck.filter_too_much])
    settings.register_profile("ci", max_examples=60, derandomize=True, **_common)
    settings.register_profile("long", max_examples=1000, **_common)
    settings.load_profile("ci")


def pytest_collection_finish(session):
    # Everything alive once the tests are collected (pytest's items, torch, JAX and the
    # other imported modules: millions of objects) moves to the collector's permanent
    # generation, so the many gc.collect() calls of the memory and cycle tests, and
    # the collector's own full passes, walk only what the tests make. Tests still see
    # every object they create collected as before; only cycles among the objects of
    # collection time are never freed, which a test run does not need.
    import gc
    gc.collect()
    gc.freeze()
    # torch, where a test module imported it, computes the references on one thread:
    # its thread pool on a small, busy machine makes the tests' small ops tens of times
    # slower (the ported CIFAR nets took minutes), and one thread is what pyad uses
    torch = sys.modules.get("torch")
    if torch is not None:
        _TORCH_THREADS[0] = torch.get_num_threads()
        torch.set_num_threads(1)


_TORCH_THREADS = [None]       # torch's own thread count, before the suite set it to 1


@pytest.fixture
def torch_default_threads():
    """torch on its own default thread count for one test: a ported script whose float32
    results were compared with torch's multithreaded kernels (their summation order), or
    one that reports torch's thread count."""
    torch = sys.modules.get("torch")
    if torch is None or _TORCH_THREADS[0] is None:
        yield
        return
    torch.set_num_threads(_TORCH_THREADS[0])
    try:
        yield
    finally:
        torch.set_num_threads(1)
