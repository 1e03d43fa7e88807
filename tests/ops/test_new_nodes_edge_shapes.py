"""The backward nodes added in the fifteenth round (add/sub with alpha, addcmul,
addcdiv, lerp with a Variable or a number weight, ldexp, nan_to_num) on the inputs
users reach first: 0-d, empty, non-contiguous and broadcast operands. Each gradient is
checked against finite differences (gradcheck and gradgradcheck in float64) and, where
torch is installed, the forward values and first-order gradients against torch on the
same inputs and the same upstream gradient.
"""
import numpy as np
import pytest

import pyad
from _torch_compare import torch, as_np


def _addc_divisor(a):
    # addcdiv's divisor kept away from zero so finite differences stay smooth
    return np.sign(a) * (np.abs(a) + 0.5) + (a == 0)


# name: (number of operands, fn(lib, *operands), transform of each operand's values)
OPS = {
    "add_alpha": (2, lambda L, a, b: L.add(a, b, alpha=2), None),
    "sub_alpha": (2, lambda L, a, b: L.sub(a, b, alpha=-0.5), None),
    "addcmul": (3, lambda L, a, b, c: L.addcmul(a, b, c, value=0.5), None),
    "addcdiv": (3, lambda L, a, b, c: L.addcdiv(a, b, c, value=2), (None, None, _addc_divisor)),
    "lerp_tensor_weight": (3, lambda L, a, b, w: L.lerp(a, b, w), None),
    "lerp_number_weight": (2, lambda L, a, b: L.lerp(a, b, 0.75), None),
    "ldexp": (2, lambda L, a, b: L.ldexp(a, b), (None, lambda e: np.clip(e, -2, 2))),
    "nan_to_num": (1, lambda L, a: L.nan_to_num(a), None),
}

# layout: shapes of the (up to three) operands; "noncontig" operands are strided views
LAYOUTS = {
    "0-d": [(), (), ()],
    "empty": [(0, 3), (0, 3), (0, 3)],
    "empty_broadcast": [(0, 1), (3,), (1, 3)],
    "noncontig": ["T", "T", "T"],
    "broadcast": [(2, 1, 3), (4, 1), (3,)],
    "0-d_with_matrix": [(), (2, 3), ()],
}


def _operand(rng, shape):
    if shape == "T":
        # a transposed view with a step: neither C- nor F-contiguous
        base = rng.standard_normal((6, 3))
        view = base[::2].T
        assert not view.flags.c_contiguous and not view.flags.f_contiguous
        return view
    return rng.standard_normal(shape)


def _operands(name, layout, seed=0):
    n, _, transforms = OPS[name]
    rng = np.random.default_rng(seed)
    arrays = [_operand(rng, s) for s in LAYOUTS[layout][:n]]
    if transforms:
        arrays = [t(a) if t else a for a, t in zip(arrays, transforms)]
    return arrays


@pytest.mark.parametrize("layout", list(LAYOUTS))
@pytest.mark.parametrize("name", list(OPS))
def test_new_nodes_pass_gradcheck_and_gradgradcheck(name, layout):
    fn = OPS[name][1]
    xs = tuple(pyad.Variable(a, requires_grad=True) for a in _operands(name, layout))
    f = lambda *v: fn(pyad, *v)
    assert pyad.autograd.gradcheck(f, xs)
    assert pyad.autograd.gradgradcheck(f, xs)


@pytest.mark.parametrize("layout", list(LAYOUTS))
@pytest.mark.parametrize("name", list(OPS))
def test_new_nodes_values_and_gradients_match_torch(name, layout):
    if torch is None:
        pytest.skip("torch is not installed")
    fn = OPS[name][1]
    arrays = _operands(name, layout, seed=1)
    px = [pyad.Variable(a, requires_grad=True) for a in arrays]
    tx = [torch.tensor(a, requires_grad=True) for a in arrays]
    pout, tout = fn(pyad, *px), fn(torch, *tx)
    np.testing.assert_allclose(as_np(pout), as_np(tout), rtol=1e-13, atol=0)
    g = np.random.default_rng(2).standard_normal(tuple(tout.shape))
    pg = pyad.autograd.grad(pout, px, pyad.Variable(g), allow_unused=True)
    tg = torch.autograd.grad(tout, tx, torch.tensor(g), allow_unused=True)
    for i, (p, t) in enumerate(zip(pg, tg)):
        assert (p is None) == (t is None), (name, i)
        if t is not None:
            assert tuple(p.shape) == tuple(t.shape), (name, i)
            np.testing.assert_allclose(as_np(p), as_np(t), rtol=1e-12, atol=1e-15,
                                       err_msg="%s operand %d" % (name, i))


NONFINITE = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1.5])


@pytest.mark.parametrize("name", list(OPS))
def test_new_nodes_at_nan_and_infinities_match_torch(name):
    # every operand in turn takes NaN, +-inf and signed zeros; the others are finite
    if torch is None:
        pytest.skip("torch is not installed")
    n, fn, transforms = OPS[name]
    rng = np.random.default_rng(3)
    for k in range(n):
        arrays = [rng.standard_normal(NONFINITE.shape) for _ in range(n)]
        if transforms:
            arrays = [t(a) if t else a for a, t in zip(arrays, transforms)]
        arrays[k] = NONFINITE.copy()
        px = [pyad.Variable(a, requires_grad=True) for a in arrays]
        tx = [torch.tensor(a, requires_grad=True) for a in arrays]
        pout, tout = fn(pyad, *px), fn(torch, *tx)
        np.testing.assert_allclose(as_np(pout), as_np(tout), rtol=1e-13, equal_nan=True,
                                   err_msg="%s, non-finite operand %d" % (name, k))
        g = np.linspace(-1.0, 2.0, NONFINITE.size)
        pg = pyad.autograd.grad(pout, px, pyad.Variable(g))
        tg = torch.autograd.grad(tout, tx, torch.tensor(g))
        for i, (p, t) in enumerate(zip(pg, tg)):
            np.testing.assert_allclose(as_np(p), as_np(t), rtol=1e-12, equal_nan=True,
                                       err_msg="%s, non-finite operand %d, grad %d"
                                       % (name, k, i))
