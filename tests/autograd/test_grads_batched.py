"""grad(is_grads_batched=True): the first dimension of each grad_output is a batch of
vectors and every gradient gets it too (torch runs the VJP under vmap; pyad once per
batch entry). Compared with torch on the same inputs, and with per-row grad() calls;
and gradcheck's/gradgradcheck's forward-mode switches."""
import numpy as np
import pytest

import pyad
from pyad.autograd import gradcheck, gradgradcheck
from _torch_compare import as_np, torch_or_skip


def _pair(a, rg=True):
    torch = torch_or_skip()
    return (pyad.Variable(np.array(a, dtype=np.float64), requires_grad=rg),
            torch.tensor(np.array(a, dtype=np.float64), requires_grad=rg))


def _f(L, x, w):
    return (L.tanh(x) * w, (x * x).sum(0))


def test_batched_vjps_equal_torch_and_the_rows():
    torch = torch_or_skip()
    rng = np.random.default_rng(0)
    xp, xt = _pair(rng.standard_normal((3, 4)))
    wp, wt = _pair(rng.standard_normal((3, 4)))
    g0 = rng.standard_normal((5, 3, 4))
    g1 = rng.standard_normal((5, 4))
    yp, yt = _f(pyad, xp, wp), _f(torch, xt, wt)
    got = pyad.autograd.grad(yp, [xp, wp], [pyad.Variable(g0), pyad.Variable(g1)],
                             is_grads_batched=True, retain_graph=True)
    want = torch.autograd.grad(yt, [xt, wt], [torch.tensor(g0), torch.tensor(g1)],
                               is_grads_batched=True)
    for g, w in zip(got, want):
        assert g.shape == tuple(w.shape)
        np.testing.assert_allclose(as_np(g), as_np(w), rtol=1e-12, atol=1e-14)
    # row k is the plain grad() with the k-th vectors
    for k in range(5):
        row = pyad.autograd.grad(yp, [xp, wp], [pyad.Variable(g0[k]), pyad.Variable(g1[k])],
                                 retain_graph=True)
        for g, r in zip(got, row):
            np.testing.assert_array_equal(as_np(g)[k], as_np(r))


def test_batched_identity_gives_the_jacobian():
    torch = torch_or_skip()
    xp, xt = _pair([0.5, -1.0, 2.0])
    jp, = pyad.autograd.grad(pyad.sin(xp) * xp, xp, pyad.eye(3, dtype=pyad.float64),
                             is_grads_batched=True)
    jt, = torch.autograd.grad(torch.sin(xt) * xt, xt, torch.eye(3, dtype=torch.float64),
                              is_grads_batched=True)
    np.testing.assert_allclose(as_np(jp), as_np(jt), rtol=1e-14)


def test_batched_unused_inputs_as_torch():
    torch = torch_or_skip()
    xp, xt = _pair([1.0, 2.0, 3.0])
    zp, zt = _pair([1.0, 2.0])
    for kwargs in (dict(allow_unused=True), dict(materialize_grads=True)):
        got = pyad.autograd.grad(xp * 2, [xp, zp], pyad.eye(3, dtype=pyad.float64),
                                 is_grads_batched=True, **kwargs)
        want = torch.autograd.grad(xt * 2, [xt, zt], torch.eye(3, dtype=torch.float64),
                                   is_grads_batched=True, **kwargs)
        for g, w in zip(got, want):
            if w is None:
                assert g is None
                continue
            # (materialized zeros have the input's shape, without the batch: torch's)
            assert g.shape == tuple(w.shape), kwargs
            np.testing.assert_array_equal(as_np(g), as_np(w))
    with pytest.raises(RuntimeError, match="not have been used in the graph"):
        pyad.autograd.grad(xp * 2, [xp, zp], pyad.eye(3, dtype=pyad.float64),
                           is_grads_batched=True)


def test_batched_create_graph_is_differentiable_as_torch():
    torch = torch_or_skip()
    xp, xt = _pair([0.3, -0.7])
    gp, gt = _pair([[1.0, 2.0], [-1.0, 0.5], [0.0, 3.0]])
    jp, = pyad.autograd.grad(xp ** 3, xp, gp, is_grads_batched=True, create_graph=True)
    jt, = torch.autograd.grad(xt ** 3, xt, gt, is_grads_batched=True, create_graph=True)
    assert jp.requires_grad
    hp = pyad.autograd.grad((jp * jp).sum(), [xp, gp])
    ht = torch.autograd.grad((jt * jt).sum(), [xt, gt])
    for h, w in zip(hp, ht):
        np.testing.assert_allclose(as_np(h), as_np(w), rtol=1e-12)


def test_batched_frees_the_graph_unless_retained():
    xp, _ = _pair([1.0, 2.0])
    y = xp * xp
    pyad.autograd.grad(y, xp, pyad.eye(2, dtype=pyad.float64), is_grads_batched=True)
    with pytest.raises(RuntimeError, match="second time"):
        pyad.autograd.grad(y, xp, pyad.eye(2, dtype=pyad.float64), is_grads_batched=True)


def test_batched_grad_output_shape_errors_as_torch():
    torch = torch_or_skip()
    xp, xt = _pair([1.0, 2.0, 3.0])
    with pytest.raises(RuntimeError, match="first dimension of each grad_output"):
        torch.autograd.grad(xt * 2, xt, torch.ones(3, dtype=torch.float64),
                            is_grads_batched=True)
    with pytest.raises(RuntimeError, match="first dimension of each grad_output") as info:
        pyad.autograd.grad(xp * 2, xp, pyad.ones(3, dtype=pyad.float64),
                           is_grads_batched=True)
    assert "grad_output[0] has a shape of" in str(info.value)
    with pytest.raises(RuntimeError, match="first dimension of each grad_output"):
        pyad.autograd.grad(xp * 2, xp, pyad.ones(2, 2, dtype=pyad.float64),
                           is_grads_batched=True)
    with pytest.raises(RuntimeError, match="needs grad_outputs"):
        pyad.autograd.grad((xp * 2).sum(), xp, is_grads_batched=True)


def test_batched_empty_batch():
    xp, _ = _pair([1.0, 2.0, 3.0])
    g, = pyad.autograd.grad(xp * 2, xp, pyad.zeros(0, 3, dtype=pyad.float64),
                            is_grads_batched=True)
    assert g.shape == (0, 3)


def test_gradcheck_forward_mode_switches():
    x = pyad.Variable(np.array([0.5, 1.5]), requires_grad=True)
    # torch's defaults, passed explicitly, are accepted
    assert gradcheck(pyad.sin, (x,), check_forward_ad=False, check_batched_forward_grad=False)
    assert gradgradcheck(pyad.sin, (x,), check_fwd_over_rev=False, check_rev_over_rev=True)
    # forward mode, as torch's (torch 2.13 accepts all of these for sin)
    assert gradcheck(pyad.sin, (x,), check_forward_ad=True)
    assert gradcheck(pyad.sin, (x,), check_forward_ad=True, check_backward_ad=False,
                     check_batched_forward_grad=True)
    assert gradgradcheck(pyad.sin, (x,), check_fwd_over_rev=True)
    # torch's AssertionErrors for combinations that check nothing
    with pytest.raises(AssertionError, match="Setting check_batched_forward_grad=True "
                                             "requires check_forward_ad to be True"):
        gradcheck(pyad.sin, (x,), check_batched_forward_grad=True)
    with pytest.raises(AssertionError, match="Expected at least one of check_fwd_over_rev"):
        gradgradcheck(pyad.sin, (x,), check_rev_over_rev=False)


def test_batched_inputs_are_checked_first():
    # (an empty batch once reached the inputs unchecked: a crash on a non-Variable)
    xp, _ = _pair([1.0, 2.0])
    with pytest.raises(TypeError, match="inputs must be Variables or GradientEdges, got int"):
        pyad.autograd.grad(xp * 2, [3], pyad.zeros(0, 2, dtype=pyad.float64),
                           is_grads_batched=True)
    with pytest.raises(RuntimeError, match="grad requires non-empty inputs"):
        pyad.autograd.grad(xp * 2, [], pyad.zeros(0, 2, dtype=pyad.float64),
                           is_grads_batched=True)
    with pytest.raises(RuntimeError, match="does not require grad"):
        pyad.autograd.grad(xp * 2, [pyad.ones(2)], pyad.eye(2, dtype=pyad.float64),
                           is_grads_batched=True)
