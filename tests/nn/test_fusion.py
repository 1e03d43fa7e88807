"""pyad.nn.utils.fusion against torch.nn.utils.fusion on the same layers and statistics."""

import numpy as np
import pytest

import pyad

torch = pytest.importorskip("torch")


def _pair(make):
    """The same layer in both frameworks (torch's initial weights copied into pyad's)."""
    t = make(torch)
    p = make(pyad)
    p.load_state_dict({k: pyad.tensor(v.detach().numpy()) for k, v in t.state_dict().items()})
    return t, p


def _stats(lib, bn, rng, affine_values=True):
    n = bn.num_features
    bn.running_mean = lib.tensor(rng.standard_normal(n), dtype=lib.float64)
    bn.running_var = lib.tensor(rng.random(n) + 0.25, dtype=lib.float64)
    if affine_values and bn.weight is not None:
        with lib.no_grad():
            bn.weight.copy_(lib.tensor(rng.standard_normal(n)))
            bn.bias.copy_(lib.tensor(rng.standard_normal(n)))


@pytest.mark.parametrize("kind", ["conv2d", "conv2d_nobias", "conv1d", "conv3d",
                                  "conv_transpose2d", "bn_no_affine"])
def test_fuse_conv_bn_eval_matches_torch(kind):
    def make(lib):
        nn = lib.nn
        lib.manual_seed(0)
        if kind == "conv1d":
            return nn.Conv1d(3, 4, 3).double(), nn.BatchNorm1d(4).double()
        if kind == "conv3d":
            return nn.Conv3d(2, 4, 2).double(), nn.BatchNorm3d(4).double()
        if kind == "conv_transpose2d":
            return nn.ConvTranspose2d(3, 4, 3, stride=2).double(), nn.BatchNorm2d(4).double()
        bias = kind != "conv2d_nobias"
        affine = kind != "bn_no_affine"
        return (nn.Conv2d(3, 4, 3, bias=bias).double(),
                nn.BatchNorm2d(4, affine=affine).double())

    tconv, tbn = make(torch)
    pconv, pbn = make(pyad)
    pconv.load_state_dict({k: pyad.tensor(v.detach().numpy())
                           for k, v in tconv.state_dict().items()})
    for lib, bn in ((torch, tbn), (pyad, pbn)):
        _stats(lib, bn, np.random.default_rng(1))
    shape = {"conv1d": (2, 3, 7), "conv3d": (2, 2, 4, 4, 4)}.get(kind, (2, 3, 6, 6))
    x = np.random.default_rng(2).standard_normal(shape)
    transpose = kind == "conv_transpose2d"
    outs = []
    for lib, conv, bn in ((torch, tconv, tbn), (pyad, pconv, pbn)):
        conv.eval(), bn.eval()
        fused = lib.nn.utils.fusion.fuse_conv_bn_eval(conv, bn, transpose=transpose)
        xv = lib.tensor(x)
        outs.append((fused(xv).detach().numpy(), bn(conv(xv)).detach().numpy(),
                     fused.weight.detach().numpy(), fused.bias.detach().numpy(),
                     fused.weight.requires_grad, fused.bias.requires_grad,
                     type(fused.weight).__name__))
        assert conv.weight is not fused.weight            # a copy; the original kept
    (t_out, t_ref, t_w, t_b, *t_flags), (p_out, p_ref, p_w, p_b, *p_flags) = outs
    np.testing.assert_allclose(p_out, p_ref, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(p_w, t_w, rtol=1e-14, atol=1e-15)
    np.testing.assert_allclose(p_b, t_b, rtol=1e-14, atol=1e-15)
    np.testing.assert_allclose(p_out, t_out, rtol=1e-12, atol=1e-12)
    assert p_flags == t_flags


@pytest.mark.parametrize("features", [4, 1])
def test_fuse_linear_bn_eval_matches_torch(features):
    def make(lib):
        lib.manual_seed(0)
        return lib.nn.Linear(3, 4).double(), lib.nn.BatchNorm1d(features).double()

    (tlin, tbn), (plin, pbn) = make(torch), make(pyad)
    plin.load_state_dict({k: pyad.tensor(v.detach().numpy())
                          for k, v in tlin.state_dict().items()})
    for lib, bn in ((torch, tbn), (pyad, pbn)):
        _stats(lib, bn, np.random.default_rng(3))
    x = np.random.default_rng(4).standard_normal((5, 3))
    res = []
    for lib, lin, bn in ((torch, tlin, tbn), (pyad, plin, pbn)):
        lin.eval(), bn.eval()
        fused = lib.nn.utils.fuse_linear_bn_eval(lin, bn)
        res.append((fused(lib.tensor(x)).detach().numpy(), fused.weight.detach().numpy(),
                    fused.bias.detach().numpy()))
    for p, t in zip(res[1], res[0]):
        np.testing.assert_allclose(p, t, rtol=1e-13, atol=1e-14)


def test_fusion_refuses_training_layers_and_mismatched_features_as_torch():
    for lib in (torch, pyad):
        conv, bn = lib.nn.Conv2d(2, 3, 3), lib.nn.BatchNorm2d(3)
        with pytest.raises(AssertionError, match="Fusion only for eval"):
            lib.nn.utils.fuse_conv_bn_eval(conv, bn)
        lin, bn = lib.nn.Linear(3, 4).eval(), lib.nn.BatchNorm1d(3).eval()
        with pytest.raises(AssertionError, match="linear.out_features == bn.num_features"):
            lib.nn.utils.fuse_linear_bn_eval(lin, bn)


def test_fuse_weights_with_gradients_flowing_as_parameters():
    # the fused Parameters are new leaves: gradients reach them, not the originals
    conv, bn = pyad.nn.Conv2d(1, 2, 2).eval(), pyad.nn.BatchNorm2d(2).eval()
    w, b = pyad.nn.utils.fuse_conv_bn_weights(conv.weight, conv.bias, bn.running_mean,
                                              bn.running_var, bn.eps, bn.weight, bn.bias)
    assert isinstance(w, pyad.nn.Parameter) and w.is_leaf and w.requires_grad
    pyad.nn.functional.conv2d(pyad.ones(1, 1, 3, 3), w, b).sum().backward()
    assert w.grad is not None and conv.weight.grad is None
