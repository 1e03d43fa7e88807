"""Random in-place fills on Variables (random_, exponential_, cauchy_, log_normal_,
geometric_, bernoulli_): the same distributions, dtypes and errors as torch's, drawn
from the generator of pyad.manual_seed, recorded as a fill (zero gradient)."""
import numpy as np
import pytest

import pyad

torch = pytest.importorskip("torch")

N = 20000

FILLS = {
    "random_": ((3, 9), lambda a: (a.min(), a.max(), np.unique(a).size)),
    "exponential_": ((4.0,), lambda a: (round(a.mean() * 4, 1), a.min() >= 0)),
    "cauchy_": ((2.0, 0.5), lambda a: (round(float(np.median(a)), 1),)),
    "log_normal_": ((0.5, 0.25), lambda a: (round(float(np.median(np.log(a))), 1),)),
    "geometric_": ((0.25,), lambda a: (a.min(), round(a.mean()), np.all(a == np.round(a)))),
    "bernoulli_": ((0.25,), lambda a: (round(a.mean(), 1), set(np.unique(a)) <= {0, 1})),
}


@pytest.mark.parametrize("name", sorted(FILLS))
def test_fills_draw_torch_s_distribution(name):
    args, summary = FILLS[name]
    pyad.manual_seed(0)
    torch.manual_seed(0)
    x = pyad.zeros(N, dtype=pyad.float64)
    t = torch.zeros(N, dtype=torch.float64)
    assert getattr(x, name)(*args) is x and x._version == 1
    getattr(t, name)(*args)
    assert summary(x.data) == summary(t.numpy())


def test_fills_are_reproducible_with_manual_seed():
    for name, (args, _) in FILLS.items():
        pyad.manual_seed(3)
        a = getattr(pyad.zeros(5, dtype=pyad.float64), name)(*args).data.copy()
        pyad.manual_seed(3)
        b = getattr(pyad.zeros(5, dtype=pyad.float64), name)(*args).data
        np.testing.assert_array_equal(a, b)
        g = pyad.Generator().manual_seed(1)
        c = getattr(pyad.zeros(5, dtype=pyad.float64), name)(*args, generator=g).data
        assert c.shape == (5,)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "int32", "bool"])
@pytest.mark.parametrize("call", ["random_()", "random_(7)", "random_(-3, 4)", "exponential_()",
                                  "cauchy_()", "log_normal_()", "geometric_(0.5)",
                                  "bernoulli_()", "bernoulli_(0.3)"])
def test_dtypes_and_bounds_match_torch(call, dtype):
    outcome = []
    for L in (pyad, torch):
        x = L.zeros(2000, dtype=getattr(L, dtype))
        try:
            eval("x." + call)
        except (RuntimeError, NotImplementedError, TypeError) as exc:
            outcome.append(RuntimeError if isinstance(exc, NotImplementedError) else type(exc))
            continue
        a = np.asarray(x.numpy() if L is torch else x.data)
        outcome.append((str(a.dtype), bool(a.min() >= (-3 if "-3" in call else 0))))
    if dtype == "bool" and call.startswith("random_("):
        return                  # torch checks the bounds against bool; pyad casts
    assert outcome[0] == outcome[1]


def test_random_default_range_is_the_mantissa_for_floats():
    x = pyad.zeros(N, dtype=pyad.float32).random_()
    assert x.data.max() <= 2 ** 24 and x.data.max() > 2 ** 20
    assert np.all(x.data == np.round(x.data))


@pytest.mark.parametrize("call, match", [("exponential_(-1.0)", "lambda > 0"),
                                         ("cauchy_(0.0, 0.0)", "sigma > 0"),
                                         ("log_normal_(0.0, 0.0)", "std > 0"),
                                         ("geometric_(0.0)", r"p to be in \(0, 1\)"),
                                         ("geometric_(1.0)", r"p to be in \(0, 1\)"),
                                         ("bernoulli_(1.5)", r"p to be in \[0, 1\]"),
                                         ("random_(5, 2)", "'from' to be less than 'to'")])
def test_bad_parameters_raise_as_torch(call, match):
    for L in (pyad, torch):
        x = L.zeros(3)
        with pytest.raises(RuntimeError, match=match):
            eval("x." + call)
        assert x._version == 0 or L is torch


def test_bernoulli_with_a_variable_of_probabilities():
    x = pyad.zeros(2, 3).bernoulli_(pyad.tensor([0.0, 1.0, 1.0]))
    np.testing.assert_array_equal(x.data, [[0, 1, 1], [0, 1, 1]])
    with pytest.raises(RuntimeError, match=r"^bernoulli_\(\)"):
        pyad.zeros(3).bernoulli_(pyad.ones(2) * 0.5)


def test_a_fill_gives_the_old_values_a_zero_gradient_as_torch():
    for L in (pyad, torch):
        a = L.ones(3, dtype=L.float64, requires_grad=True)
        h = a * 2
        h.exponential_()
        (h * 3).sum().backward()
        assert np.asarray(a.grad.numpy() if L is torch else a.grad.data).tolist() == [0, 0, 0]
        with pytest.raises(RuntimeError, match="leaf"):
            L.ones(2, requires_grad=True).cauchy_()
