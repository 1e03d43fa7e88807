"""Checks for ``pyad.nn.functional`` against ``torch.nn.functional``.

A case is ``f(L, *xs)``: ``L.F`` is ``pyad.nn.functional`` or ``torch.nn.functional``,
``L.c(array)`` a constant (a raw ndarray for pyad, a tensor for torch), ``xs`` the
differentiable inputs. The reference is torch itself (values, first derivatives, second
derivatives with create_graph), plus pyad's gradcheck and gradgradcheck in float64, the
create_graph formula against the plain one, and the non-contiguous, float32, 0-d and
empty variants (the last two where the case names their shapes).
"""
import numpy as np
import pytest

import pyad
import pyad.nn.functional as PF
import _ops_helpers as H
from _ops_helpers import Case  # noqa: F401  (re-exported for the test modules)


# Float constants (weights, probability targets) take the dtype of the inputs of the
# variant being run, as a user's would (torch refuses to mix float32 and float64 there).
_const_dtype = [np.float64]


def _const(a):
    if isinstance(a, np.ndarray) and a.dtype.kind == "f":
        return a.astype(_const_dtype[0])
    return a


class _PyadF:
    name = "pyad"
    F = PF
    lib = pyad

    @staticmethod
    def c(a):
        return _const(a)


class _TorchF:
    name = "torch"

    def __init__(self, torch):
        self.torch = torch
        self.F = torch.nn.functional
        self.lib = torch

    def c(self, a):
        if isinstance(a, np.ndarray):
            return self.torch.from_numpy(_const(a).copy())   # copy keeps a 0-d array 0-d
        return a


PYADF = _PyadF()


def _torch():
    torch = pytest.importorskip("torch")
    return _TorchF(torch), torch


def _wrap(case):
    """A Case of _ops_helpers whose f takes its adapters (so its checks run unchanged)."""
    c = Case(case.id, None, case.shapes, domain=case.domain)

    def f(L, *xs):
        if L.name == "torch":
            return case.f(_torch()[0], *xs)
        return case.f(PYADF, *xs)
    c.f = f
    return c


def variant_shapes(case, variant):
    if variant in ("float32", "noncontig"):
        return case.shapes
    given = case.zero_d if variant == "0d" else case.empty
    return None if given in (None, False) else [tuple(s) for s in given]


def check_plain_values(case, arrays):
    """Without grad the op records nothing and gives the values it gives with grad."""
    w = _wrap(case)
    out = w.f(H.PYAD, *H.variables(arrays, copy=False))
    plain = w.f(H.PYAD, *H.variables(arrays, requires_grad=False, copy=False))
    assert plain.grad_fn is None and not plain.requires_grad
    np.testing.assert_array_equal(plain.data, out.data)


def check_all(case, arrays, variant=None):
    _const_dtype[0] = arrays[0].dtype
    try:
        _check_all(case, arrays, variant)
    finally:
        _const_dtype[0] = np.float64


def _check_all(case, arrays, variant):
    w = _wrap(case)
    check_plain_values(case, arrays)
    # gradcheck=False: torch's gradient is by design not the derivative (embedding's
    # padding_idx and scale_grad_by_freq); torch is then the only reference
    if (arrays[0].dtype == np.float64 and variant in (None, "0d", "empty")
            and getattr(case, "gradcheck", True)):
        H.check_gradcheck(w, arrays)
        H.check_gradgradcheck(w, arrays)
    H.check_vs_torch(w, arrays)
    # torch_second_order=False: torch has no second derivative for the op
    # (multi_margin_loss); gradgradcheck is then the reference for pyad's
    if getattr(case, "torch_second_order", True):
        H.check_second_order_vs_torch(w, arrays)
    H.check_create_graph_matches_plain(w, arrays)


def variant_params(cases):
    out = []
    for c in cases:
        for v in ("noncontig", "float32", "0d", "empty"):
            if v == "noncontig" and not c.non_contiguous:
                continue
            if variant_shapes(c, v) is not None:
                out.append(pytest.param(c, v, id="%s-%s" % (c.id, v)))
    return out


def standard_nn_tests(cases):
    @pytest.mark.parametrize("case", [pytest.param(c, id=c.id) for c in cases])
    def test_matches_torch_and_finite_differences(case):
        check_all(case, H.make_inputs(case))

    @pytest.mark.parametrize("case, variant", variant_params(cases))
    def test_variant(case, variant):
        arrays = H.make_inputs(case, shapes=variant_shapes(case, variant),
                               dtype=np.float32 if variant == "float32" else np.float64,
                               non_contiguous=variant == "noncontig")
        check_all(case, arrays, variant)

    return test_matches_torch_and_finite_differences, test_variant
