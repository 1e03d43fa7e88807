"""Input gradients of padded convolutions, poolings and pads are dense, as torch's.

pyad's formulas for these take the padding off a larger buffer at the end; the slice
was returned as it was, so ``autograd.grad``'s result was a strided view and a WGAN-GP
gradient penalty's ``gradient.view(n, -1)`` raised (found porting
aladdinpersson/Machine-Learning-Collection's WGAN-GP). torch computes these gradients
into fresh memory. Values and layouts are compared with torch on the same inputs.
"""

import numpy as np
import pytest

import pyad

torch = pytest.importorskip("torch")


def _cases(lib):
    F = lib.nn.functional
    w1 = lib.tensor(np.linspace(-1, 1, 2 * 1 * 3).reshape(2, 1, 3), dtype=lib.float64)
    w2 = lib.tensor(np.linspace(-1, 1, 2 * 1 * 4 * 4).reshape(2, 1, 4, 4),
                    dtype=lib.float64)
    w3 = lib.tensor(np.linspace(-1, 1, 2 * 1 * 27).reshape(2, 1, 3, 3, 3),
                    dtype=lib.float64)
    wg = lib.tensor(np.linspace(-1, 1, 2 * 1 * 9).reshape(2, 1, 3, 3), dtype=lib.float64)
    return {
        "conv1d": ((2, 1, 8), lambda x: F.conv1d(x, w1, padding=1)),
        "conv2d_strided": ((2, 1, 8, 8), lambda x: F.conv2d(x, w2, stride=2, padding=1)),
        "conv2d_same": ((2, 1, 7, 7), lambda x: F.conv2d(x, wg, padding="same")),
        "conv2d_dilated": ((2, 1, 8, 8), lambda x: F.conv2d(x, wg, padding=2, dilation=2)),
        "conv2d_groups": ((2, 2, 6, 6), lambda x: F.conv2d(x, wg, padding=1, groups=2)),
        "conv3d": ((2, 1, 4, 4, 4), lambda x: F.conv3d(x, w3, padding=1)),
        "avg_pool2d": ((2, 1, 8, 8), lambda x: F.avg_pool2d(x, 3, 1, 1)),
        "max_pool2d_ceil": ((2, 1, 7, 7), lambda x: F.max_pool2d(x, 3, 2, 1, ceil_mode=True)),
        "pad": ((2, 1, 4, 4), lambda x: F.pad(x, (1, 2, 1, 0))),
    }


@pytest.mark.parametrize("name", sorted(_cases(pyad)))
@pytest.mark.parametrize("create_graph", [False, True])
def test_input_gradient_is_dense_and_views_as_torch(name, create_graph):
    results = []
    for lib in (torch, pyad):
        shape, f = _cases(lib)[name]
        values = np.random.default_rng(3).standard_normal(shape)
        x = lib.tensor(values, dtype=lib.float64, requires_grad=True)
        weights = lib.tensor(np.random.default_rng(4).standard_normal(
            tuple(f(x).shape)), dtype=lib.float64)
        g, = lib.autograd.grad((f(x).tanh() * weights).sum(), x, create_graph=create_graph)
        assert g.is_contiguous()
        flat = g.view(shape[0], -1)                 # the gradient penalty's reshape
        penalty = ((flat.norm(2, dim=1) - 1) ** 2).mean()
        if create_graph:
            penalty.backward()
            results.append((flat.detach().numpy(), x.grad.numpy()))
        else:
            results.append((flat.numpy(), penalty.item()))
    (t_flat, t_other), (p_flat, p_other) = results
    np.testing.assert_allclose(p_flat, t_flat, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(p_other, t_other, rtol=1e-11, atol=1e-12)
