"""F.unfold / F.fold and nn.Unfold / nn.Fold against torch: values, first and second
derivatives (each is the other's adjoint), gradcheck and gradgradcheck, and torch's
errors."""
import numpy as np
import pytest

import pyad
import pyad.nn as nn
import pyad.nn.functional as F
from _nn_helpers import Case, standard_nn_tests

CASES = [
    Case("unfold_k2", lambda L, x: L.F.unfold(x, 2), [(2, 3, 4, 5)], zero_d=False,
         empty=[(0, 3, 4, 5)]),
    Case("unfold_all_args", lambda L, x: L.F.unfold(x, (2, 3), dilation=(2, 1),
                                                    padding=1, stride=(2, 1)),
         [(2, 2, 5, 6)], zero_d=False, empty=[(0, 2, 5, 6)]),
    Case("unfold_unbatched", lambda L, x: L.F.unfold(x, 3, padding=2, stride=2), [(2, 4, 4)],
         zero_d=False, empty=False),
    Case("fold_k2", lambda L, x: L.F.fold(x, (4, 5), 2), [(2, 12, 12)], zero_d=False,
         empty=[(0, 12, 12)]),
    Case("fold_all_args", lambda L, x: L.F.fold(x, (5, 6), (2, 3), dilation=(2, 1), padding=1,
                                                stride=(2, 1)),
         [(2, 12, 18)], zero_d=False, empty=[(0, 12, 18)]),
    Case("fold_unbatched", lambda L, x: L.F.fold(x, 4, 3, padding=2, stride=2), [(18, 9)],
         zero_d=False, empty=False),
    Case("fold_of_unfold", lambda L, x: L.F.fold(L.F.unfold(x, 2) * 2, (3, 4), 2),
         [(1, 2, 3, 4)], zero_d=False, empty=False),
]

test_matches_torch_and_finite_differences, test_variant = standard_nn_tests(CASES)


def _torch():
    return pytest.importorskip("torch")


def test_fold_is_the_adjoint_of_unfold():
    # <unfold(x), c> == <x, fold(c)>: an identity, not pyad's own output
    r = np.random.default_rng(0)
    x, kw = r.normal(size=(2, 3, 6, 5)), dict(kernel_size=(3, 2), dilation=(1, 2), padding=1,
                                             stride=(2, 1))
    u = F.unfold(pyad.tensor(x), **kw)
    c = r.normal(size=u.shape)
    lhs = float((u.data * c).sum())
    rhs = float((x * F.fold(pyad.tensor(c), (6, 5), **kw).data).sum())
    assert abs(lhs - rhs) <= 1e-10 * abs(lhs)


def test_modules_match_torch():
    torch = _torch()
    for ours, theirs in [(nn.Unfold(2, padding=1), torch.nn.Unfold(2, padding=1)),
                         (nn.Unfold((2, 3), dilation=2, stride=(1, 2)),
                          torch.nn.Unfold((2, 3), dilation=2, stride=(1, 2))),
                         (nn.Fold((4, 5), 2, stride=2), torch.nn.Fold((4, 5), 2, stride=2))]:
        assert repr(ours) == repr(theirs)
    x = np.random.default_rng(1).normal(size=(2, 3, 4, 4)).astype(np.float32)
    u = nn.Unfold(2, padding=1)(pyad.tensor(x))
    np.testing.assert_allclose(u.data, torch.nn.Unfold(2, padding=1)(torch.tensor(x)).numpy())
    assert u.dtype == np.float32
    back = nn.Fold((4, 4), 2, padding=1)(u)
    np.testing.assert_allclose(back.data, torch.nn.Fold((4, 4), 2, padding=1)(
        torch.tensor(u.data)).numpy(), rtol=1e-6)


@pytest.mark.parametrize("name, shape, args, message", [
    ("unfold", (3, 4), (2,), "Only 3D or 4D input"),
    ("unfold", (2, 3, 5, 6), (7,), "calculated shape of the array of sliding blocks"),
    ("unfold", (2, 3, 5, 6), (0,), "kernel size should be greater than zero"),
    ("unfold", (2, 3, 5, 6), (2, 1, 0, 0), "stride should be greater than zero"),
    ("unfold", (2, 3, 5, 6), (2, 1, -1), "padding should be non-negative"),
    ("unfold", (2, 0, 5, 6), (2,), "non-zero dimensions"),
    ("fold", (2, 12, 20), ((5, 7), 2), r"calculated number of sliding blocks 4 \* 6 = 24"),
    ("fold", (2, 11, 20), ((5, 6), 2), "divisible by the product of kernel_size"),
    ("fold", (2, 3, 4, 5), ((5, 6), 2), "Expected 2D or 3D"),
])
def test_bad_input_raises_as_torch_naming_the_function(name, shape, args, message):
    torch = _torch()
    with pytest.raises((RuntimeError, IndexError)):
        getattr(torch.nn.functional, name)(torch.ones(shape), *args)
    with pytest.raises(RuntimeError, match=r"%s\(\): .*%s" % (name, message)):
        getattr(F, name)(pyad.ones(shape), *args)


def test_integer_input_is_refused_as_torch():
    with pytest.raises(NotImplementedError, match=r"unfold\(\): .*'Long'"):
        F.unfold(pyad.ones(1, 1, 3, 3, dtype=pyad.int64), 2)
