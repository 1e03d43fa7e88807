"""slogdet's gradient and the cotangent of its ``sign`` output (issue 14).

The issue measured that the derivative of slogdet's VJP with respect to the sign's
cotangent was 0.305 on a 3x3 real input where torch gives 0. The VJP is built with
``create_graph=True`` from cotangents that are themselves Variables requiring grad, and
differentiated with respect to the sign's cotangent: 0 for real input (the sign of a real
determinant is piecewise constant), torch's values for complex input.
"""
import numpy as np
import pytest

import pyad
from pyad.autograd import gradcheck, gradgradcheck

torch = pytest.importorskip("torch")


def _matrix(dtype, seed, shape=(3, 3)):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(shape)
    if dtype == "complex":
        a = a + 1j * rng.standard_normal(shape)
    return a


def _vjp_and_its_derivative(lib, a, gsign, glog, weight):
    """The VJP of slogdet at `a` for cotangents (gsign, glog), and the gradients of
    sum(weight * Re VJP) and its imaginary part with respect to both cotangents."""
    if lib is pyad:
        x = pyad.Variable(a, requires_grad=True)
        gs = pyad.Variable(gsign, requires_grad=True)
        gl = pyad.Variable(glog, requires_grad=True)
    else:
        x = torch.tensor(a, requires_grad=True)
        gs = torch.tensor(gsign, requires_grad=True)
        gl = torch.tensor(glog, requires_grad=True)
    sign, logabsdet = lib.linalg.slogdet(x)
    vjp, = lib.autograd.grad((sign, logabsdet), (x,), (gs, gl), create_graph=True)
    w = pyad.Variable(weight) if lib is pyad else torch.tensor(weight)
    loss = (vjp * w).real.sum() if np.iscomplexobj(a) else (vjp * w).sum()
    d_gs, d_gl = lib.autograd.grad(loss, (gs, gl), allow_unused=True)
    return vjp, d_gs, d_gl


def _np(v):
    if v is None:
        return None
    if isinstance(v, torch.Tensor):
        return v.detach().resolve_conj().numpy()
    return np.asarray(v.data)


@pytest.mark.parametrize("shape", [(3, 3), (2, 3, 3)])
def test_real_input_vjp_does_not_depend_on_the_sign_cotangent(shape):
    a = _matrix("real", 0, shape)
    batch = shape[:-2]
    rng = np.random.default_rng(1)
    gsign, glog = rng.standard_normal(batch), rng.standard_normal(batch)
    weight = rng.standard_normal(shape)
    vjp, d_gs, d_gl = _vjp_and_its_derivative(pyad, a, gsign, glog, weight)
    tvjp, td_gs, td_gl = _vjp_and_its_derivative(torch, a, gsign, glog, weight)
    np.testing.assert_allclose(_np(vjp), _np(tvjp), rtol=1e-12)
    # d VJP / d gsign: 0 (torch leaves it undefined, i.e. zero)
    for d in (d_gs, td_gs):
        assert d is None or not np.any(_np(d))
    # d VJP / d glog = sum(weight * A^-T), as torch
    np.testing.assert_allclose(_np(d_gl), _np(td_gl), rtol=1e-12)
    np.testing.assert_allclose(_np(d_gl), np.sum(weight * np.swapaxes(np.linalg.inv(a), -1, -2),
                                                 axis=(-2, -1)), rtol=1e-12)


@pytest.mark.parametrize("shape", [(3, 3), (2, 3, 3)])
def test_complex_input_vjp_depends_on_the_sign_cotangent_as_torch(shape):
    a = _matrix("complex", 2, shape)
    batch = shape[:-2]
    rng = np.random.default_rng(3)
    gsign = rng.standard_normal(batch) + 1j * rng.standard_normal(batch)
    glog = rng.standard_normal(batch)
    weight = rng.standard_normal(shape) + 1j * rng.standard_normal(shape)
    vjp, d_gs, d_gl = _vjp_and_its_derivative(pyad, a, gsign, glog, weight)
    tvjp, td_gs, td_gl = _vjp_and_its_derivative(torch, a, gsign, glog, weight)
    np.testing.assert_allclose(_np(vjp), _np(tvjp), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(_np(d_gs), _np(td_gs), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(_np(d_gl), _np(td_gl), rtol=1e-10, atol=1e-12)
    assert np.any(_np(d_gs))          # the complex sign does carry a gradient


@pytest.mark.parametrize("kind", ["real", "complex"])
def test_slogdet_gradcheck_through_both_outputs(kind):
    a = _matrix(kind, 4) + 3 * np.eye(3)
    x = pyad.Variable(a, requires_grad=True)

    def f(v):
        sign, logabsdet = pyad.linalg.slogdet(v)
        return sign * logabsdet if kind == "complex" else logabsdet

    assert gradcheck(f, (x,))
    assert gradgradcheck(f, (x,))
