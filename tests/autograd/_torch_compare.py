"""Helpers for scenarios written once against a library module ``lib`` (``pyad`` or
``torch``): each runs on pyad with hand-derived expected values and, when torch is
installed, on torch too, so that the two are compared."""
import numpy as np
import pytest

import pyad

try:
    import torch
except ImportError:  # the torch comparisons skip; the exact values still run
    torch = None

LIBS = [pyad] + ([torch] if torch is not None else [])

needs_torch = pytest.mark.skipif(torch is None, reason="torch is not installed")


def torch_or_skip():
    """torch, or skip the test where it is not installed."""
    return pytest.importorskip("torch")


def is_torch(v):
    """Whether ``v`` is a torch tensor (not a pyad Variable)."""
    return type(v).__module__.startswith("torch")


def as_np(t):
    """A NumPy copy of a pyad Variable's or a torch tensor's values (None stays None)."""
    if t is None:
        return None
    if is_torch(t):
        return np.array(t.detach().numpy())
    return np.array(t.detach().data)


def both(scenario, expected):
    """Run ``scenario(lib)`` on pyad and torch; each result must equal ``expected``."""
    for lib in LIBS:
        got = scenario(lib)
        got = got if isinstance(got, tuple) else (got,)
        exp = expected if isinstance(expected, tuple) else (expected,)
        assert len(got) == len(exp), lib.__name__
        for g, e in zip(got, exp):
            if e is None:
                assert g is None, (lib.__name__, g)
            elif isinstance(e, (bool, int, str)) and not isinstance(e, float):
                assert g == e, (lib.__name__, g, e)
            else:
                np.testing.assert_array_equal(as_np(g), np.asarray(e), err_msg=lib.__name__)


def raises_in_both(scenario, exc, match):
    """``scenario(lib)`` raises ``exc`` matching ``match`` on pyad and on torch."""
    for lib in LIBS:
        with pytest.raises(exc, match=match):
            scenario(lib)
