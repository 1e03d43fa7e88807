"""select_scatter, slice_scatter, diagonal_scatter, index_put(_) and fill_diagonal_
against torch on the same inputs: values, gradients w.r.t. input and src/values,
gradcheck/gradgradcheck in float64, and errors naming the op."""
import numpy as np
import pytest

import pyad
from pyad.autograd import gradcheck, gradgradcheck

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(5)
X = RNG.normal(size=(3, 4, 5))

CASES = {
    "select_scatter": (lambda L, x, s: L.select_scatter(x, s, 1, -1), (3, 5)),
    "select_scatter_0": (lambda L, x, s: L.select_scatter(x, s, 0, 2), (4, 5)),
    "slice_scatter": (lambda L, x, s: L.slice_scatter(x, s, 2, 1, None, 2), (3, 4, 2)),
    "slice_scatter_default": (lambda L, x, s: L.slice_scatter(x, s), (3, 4, 5)),
    "slice_scatter_empty": (lambda L, x, s: L.slice_scatter(x, s, 1, 3, 3), (3, 0, 5)),
    "diagonal_scatter": (lambda L, x, s: L.diagonal_scatter(x, s), (5, 3)),
    "diagonal_scatter_offset": (lambda L, x, s: L.diagonal_scatter(x, s, 1, 2, 0), (4, 2)),
    "diagonal_scatter_negative": (lambda L, x, s: L.diagonal_scatter(x, s, -2, -1, -2), (3, 3)),
    "index_put": (lambda L, x, s: x.index_put((_i(L, [0, 2]), _i(L, [1, 3])), s), (2, 5)),
    "index_put_broadcast": (lambda L, x, s: L.index_put(x, (_i(L, [[0], [2]]),), s), (5,)),
    "index_put_accumulate": (lambda L, x, s: x.index_put((_i(L, [1, 1, 0]),), s,
                                                         accumulate=True), (3, 4, 5)),
    "index_put_mask": (lambda L, x, s: x.index_put((_m(L),), s), (1,)),
}


def _i(L, values):
    return (pyad.tensor if L is pyad else torch.tensor)(values)


def _m(L):
    m = X > 0.5
    return pyad.tensor(m) if L is pyad else torch.tensor(m)


@pytest.mark.parametrize("name", sorted(CASES))
def test_values_and_gradients_match_torch(name):
    fn, src_shape = CASES[name]
    src = RNG.normal(size=src_shape)
    out = []
    for L in (pyad, torch):
        x = (pyad.tensor if L is pyad else torch.tensor)(X, requires_grad=True)
        s = (pyad.tensor if L is pyad else torch.tensor)(src, requires_grad=True)
        r = fn(L, x, s)
        w = np.sin(np.arange(r.numel())).reshape(tuple(r.shape))
        (r * (pyad.tensor(w) if L is pyad else torch.tensor(w))).sum().backward()
        conv = (lambda v: v.detach().numpy()) if L is torch else (lambda v: v.data)
        out.append((conv(r), conv(x.grad), conv(s.grad)))
    for g, e in zip(*out):
        np.testing.assert_allclose(g, e, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name", ["select_scatter", "slice_scatter", "diagonal_scatter_offset",
                                  "index_put_accumulate", "index_put"])
def test_gradcheck_and_gradgradcheck(name):
    fn, src_shape = CASES[name]
    x = pyad.tensor(X[:, :4, :4].copy() if "diagonal" in name else X, requires_grad=True)
    s = pyad.tensor(RNG.normal(size=src_shape), requires_grad=True)
    f = lambda a, b: fn(pyad, a, b)         # noqa: E731
    assert gradcheck(f, (x, s))
    assert gradgradcheck(f, (x, s))


def test_index_put_in_place_matches_torch_and_bumps_the_version():
    for L in (pyad, torch):
        x = L.zeros(3, 2, dtype=L.float64)
        assert x.index_put_((_i(L, [0, 0, 2]),), L.ones(2, dtype=L.float64),
                            accumulate=True) is x
        assert x.tolist() == [[2.0, 2.0], [0.0, 0.0], [1.0, 1.0]] and x._version == 1
        with pytest.raises(RuntimeError, match="leaf"):
            L.zeros(2, requires_grad=True).index_put_((_i(L, [0]),), L.ones(1))


def test_fill_diagonal_matches_torch():
    for shape, wrap in [((3, 3), False), ((7, 3), False), ((7, 3), True), ((2, 5), True),
                        ((3, 3, 3), False), ((0, 3), False)]:
        p = pyad.zeros(*shape).fill_diagonal_(2.5, wrap=wrap)
        t = torch.zeros(*shape).fill_diagonal_(2.5, wrap=wrap)
        np.testing.assert_array_equal(p.data, t.numpy())
        assert p._version == 1
    for L in (pyad, torch):
        with pytest.raises(RuntimeError):
            L.zeros(3).fill_diagonal_(1.0)
        with pytest.raises(RuntimeError):
            L.zeros(2, 3, 4).fill_diagonal_(1.0)
        a = L.ones(2, 2, dtype=L.float64, requires_grad=True)
        h = a * 3
        h.fill_diagonal_(0.0)
        h.sum().backward()
        np.testing.assert_array_equal(a.grad.numpy() if L is torch else a.grad.data,
                                      [[0, 3], [3, 0]])


@pytest.mark.parametrize("call, exc", [
    (lambda: pyad.select_scatter(pyad.zeros(2, 3), pyad.ones(2), 0, 0), RuntimeError),
    (lambda: pyad.select_scatter(pyad.zeros(2, 3), pyad.ones(3), 0, 5), IndexError),
    (lambda: pyad.select_scatter(pyad.zeros(2, 3), pyad.ones(3), 4, 0), IndexError),
    (lambda: pyad.slice_scatter(pyad.zeros(4), pyad.ones(3), 0, 0, 2), RuntimeError),
    (lambda: pyad.slice_scatter(pyad.zeros(4), pyad.ones(4), 0, step=0), RuntimeError),
    (lambda: pyad.diagonal_scatter(pyad.zeros(3, 3), pyad.ones(2)), RuntimeError),
    # (torch checks the dims first: dim1=1 is out of range for a 1-D input)
    (lambda: pyad.diagonal_scatter(pyad.zeros(3), pyad.ones(3)), IndexError),
    (lambda: pyad.diagonal_scatter(pyad.zeros(3, 3), pyad.ones(3), 0, 1, 1), RuntimeError),
    (lambda: pyad.index_put(pyad.zeros(3), (pyad.tensor([5]),), pyad.ones(1)), IndexError),
    (lambda: pyad.index_put(pyad.zeros(3), (pyad.tensor([0.5]),), pyad.ones(1)), IndexError),
    (lambda: pyad.index_put(pyad.zeros(3), pyad.tensor([0]), pyad.ones(1)), TypeError),
    (lambda: pyad.index_put(pyad.zeros(3), (pyad.tensor([0, 1]),), pyad.ones(3)), RuntimeError),
])
def test_bad_input_raises_naming_the_op(call, exc):
    with pytest.raises(exc, match=r"^(select|slice|diagonal)_scatter\(\)|^index_put\(\)"):
        call()


def test_empty_index_of_another_rank_as_torch():
    torch = pytest.importorskip("torch")
    values = np.arange(4.0)
    index = np.zeros((0, 4), dtype=np.int64)
    for name in ("scatter", "scatter_add"):
        x = pyad.tensor(values, requires_grad=True)
        src = pyad.zeros((0, 4), dtype=pyad.float64, requires_grad=True)
        got = getattr(pyad, name)(x, 0, pyad.tensor(index), src)
        want = getattr(torch, name)(torch.tensor(values), 0, torch.tensor(index),
                                    torch.zeros((0, 4), dtype=torch.float64))
        assert np.array_equal(got.detach().numpy(), want.numpy())
        got.sum().backward()
        assert np.array_equal(x.grad.numpy(), np.ones(4))     # the input passes through
        assert src.grad.shape == (0, 4)
        got.detach().add_(1)
        assert np.array_equal(x.detach().numpy(), values)     # a copy, not x itself
    x = pyad.tensor(values, requires_grad=True)
    out = pyad.gather(x, 0, pyad.tensor(index))
    assert out.shape == tuple(torch.gather(torch.tensor(values), 0,
                                           torch.tensor(index)).shape) == (0, 4)
    out.sum().backward()
    assert np.array_equal(x.grad.numpy(), np.zeros(4))
    with pytest.raises(IndexError, match="Dimension out of range"):
        pyad.gather(x, 3, pyad.tensor(index))
    # first and second order through the nothing-written result, src bigger than index
    src = pyad.tensor(np.arange(8.0).reshape(2, 4), requires_grad=True)
    for name in ("scatter", "scatter_add"):
        fn = lambda v, s: getattr(pyad, name)(v, 0, pyad.tensor(index), s).sin()
        assert gradcheck(fn, (x, src))
        assert gradgradcheck(fn, (x, src))
