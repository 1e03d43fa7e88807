"""More ports of PyTorch's own nn tests (pytorch/pytorch ``test/nn/test_convolution.py``,
``test_pooling.py``, ``test_embedding.py``, ``test_dropout.py``, ``test_init.py``,
``test_multihead_attention.py``, ``test_packed_sequence.py``, ``test_module_hooks.py`` and
the RNN / loss / normalization / padding / upsampling / utils parts of ``test/test_nn.py``)
to pyad -- the CPU, float32/float64 parts, without device/dtype decorators.

The tests keep torch's names and the meaning of their assertions.  Expected values come
from torch 2.13 run in the test on the same weights and inputs (torch's initial weights are
copied into pyad's module), or from the hand-written values of torch's test -- never from
pyad itself.
"""
import math
import pickle
import warnings

import numpy as np
import pytest

import pyad
import pyad.nn as nn
import pyad.nn.functional as F
from pyad.nn import Parameter

torch = pytest.importorskip("torch")
tnn = torch.nn
tF = torch.nn.functional

from _port_helpers import compare, twin  # noqa: E402


def _rng(seed=0):
    return np.random.default_rng(seed)


def _close(p, t, atol=1e-10, rtol=1e-9):
    tv = t.detach().numpy() if isinstance(t, torch.Tensor) else np.asarray(t)
    np.testing.assert_allclose(p.data if isinstance(p, pyad.Variable) else p, tv,
                               atol=atol, rtol=rtol)


def _pair(a, requires_grad=False):
    """The same float64 array as a torch tensor and a pyad Variable."""
    a = np.asarray(a)
    return (torch.tensor(a, requires_grad=requires_grad),
            pyad.tensor(a, requires_grad=requires_grad))


# --------------------------------------------------------------------------- convolution

def test_conv_padding_mode():
    with pytest.raises(ValueError, match="padding_mode must be one of"):
        nn.Conv2d(3, 3, 3, padding_mode="xyz")
    with pytest.raises(ValueError, match="padding_mode must be one of"):
        nn.Conv2d(3, 3, 3, padding_mode=3)
    with pytest.raises(ValueError, match='Only "zeros" '):
        nn.ConvTranspose2d(3, 3, 3, padding_mode="reflect")


@pytest.mark.parametrize("name,cls,args,shape", [
    ("Conv1d_circular_stride2_pad2", "Conv1d", (3, 4, 2), (2, 3, 5)),
    ("Conv2d_circular_stride2_pad2", "Conv2d", (2, 4, (3, 3)), (2, 2, 5, 5)),
    ("Conv2d_reflect_stride2_pad2", "Conv2d", (2, 4, (3, 3)), (2, 2, 5, 5)),
    ("Conv2d_replicate_stride2_pad2", "Conv2d", (2, 4, (3, 3)), (2, 2, 5, 5)),
    ("Conv3d_circular_stride2_pad2", "Conv3d", (2, 3, (2, 2, 3)), (2, 2, 4, 4, 4)),
    ("Conv3d_replicate_stride2_pad2", "Conv3d", (2, 3, (2, 2, 3)), (2, 2, 4, 4, 4)),
])
def test_conv_padding_modes_module_db(name, cls, args, shape):
    # torch's module_db entries of these names: stride=2, padding=2, the padding_mode.
    mode = name.split("_")[1]
    torch.manual_seed(0)
    t = getattr(tnn, cls)(*args, stride=2, padding=2, padding_mode=mode)
    t, p = twin(t, getattr(nn, cls)(*args, stride=2, padding=2, padding_mode=mode))
    compare(t, p, [_rng().standard_normal(shape)])


def test_conv_shapecheck():
    def check(should_raise, module, input_size):
        x = pyad.zeros(3, *input_size)
        if should_raise:
            with pytest.raises(RuntimeError):
                module(x)
        else:
            module(x)

    # Conv1D
    check(True, nn.Conv1d(1, 1, 3), (1, 2))
    check(True, nn.Conv1d(1, 1, 3, stride=2), (1, 2))
    check(False, nn.Conv1d(1, 1, 2), (1, 2))
    check(False, nn.Conv1d(1, 1, 2, stride=2), (1, 2))
    check(False, nn.Conv1d(1, 1, 3, stride=2, padding=1), (1, 2))
    # Conv2D
    check(True, nn.Conv2d(1, 1, (3, 3)), (1, 2, 2))
    check(False, nn.Conv2d(1, 1, (3, 3)), (1, 3, 3))
    check(False, nn.Conv2d(1, 1, (3, 3), padding=1), (1, 2, 2))
    # Conv3D
    check(True, nn.Conv3d(1, 1, (3, 3, 3)), (1, 2, 2, 2))
    check(False, nn.Conv3d(1, 1, (3, 3, 3)), (1, 3, 3, 3))
    check(False, nn.Conv3d(1, 1, (3, 3, 3), padding=1), (1, 2, 2, 2))


def test_conv_invalid_groups():
    with pytest.raises(ValueError, match="groups must be a positive integer"):
        nn.Conv1d(1, 1, kernel_size=3, dilation=2, stride=2, groups=0)
    with pytest.raises(ValueError, match="groups must be a positive integer"):
        nn.Conv2d(1, 1, kernel_size=3, dilation=2, stride=2, groups=-1)
    with pytest.raises(ValueError, match="groups must be a positive integer"):
        nn.Conv3d(1, 1, kernel_size=3, dilation=2, stride=2, groups=-2)


def test_Conv2d_missing_argument():
    c = nn.Conv2d(3, 3, 3)
    with pytest.raises(TypeError):
        c(None)


def test_Conv2d_backward_twice():
    x = pyad.randn(2, 3, 5, 5)
    c = nn.Conv2d(3, 3, 3)
    o1 = c(x)
    o1.sum().backward()
    with pytest.raises(RuntimeError, match="Specify retain_graph=True"):
        o1.sum().backward()


def _same_padding_check(fn_t, fn_p, x_shape, w_shape, **kw):
    rng = _rng(1)
    x = rng.standard_normal(x_shape)
    w = rng.standard_normal(w_shape)
    tx, px = _pair(x, True)
    tw, pw = _pair(w, True)
    t_out = fn_t(tx, tw, **kw)
    p_out = fn_p(px, pw, **kw)
    assert tuple(p_out.shape) == tuple(t_out.shape)
    _close(p_out, t_out)
    g = rng.standard_normal(tuple(t_out.shape))
    t_out.backward(torch.tensor(g))
    p_out.backward(pyad.tensor(g))
    _close(px.grad, tx.grad)
    _close(pw.grad, tw.grad)


def test_conv1d_same_padding():
    # torch's test: padding='same' equals the explicit (possibly asymmetric) padding.
    for in_size, k_size, dilation in [(10, 2, 1), (10, 4, 1), (10, 3, 2), (13, 4, 3)]:
        _same_padding_check(tF.conv1d, F.conv1d, (1, 1, in_size), (1, 1, k_size),
                            padding="same", dilation=dilation)
    # hand math: symmetric case
    x = pyad.tensor(np.arange(10.0).reshape(1, 1, 10))
    y = pyad.tensor(np.ones((1, 1, 3)))
    expect = F.conv1d(x, y, padding=1)
    np.testing.assert_allclose(F.conv1d(x, y, padding="same").data, expect.data)


def test_conv2d_same_padding():
    for k, d in [((4, 4), 1), ((3, 4), (1, 2)), ((4, 3), (2, 1))]:
        _same_padding_check(tF.conv2d, F.conv2d, (1, 1, 10, 11), (1, 1) + k,
                            padding="same", dilation=d)


def test_conv3d_same_padding():
    _same_padding_check(tF.conv3d, F.conv3d, (1, 1, 6, 7, 5), (1, 1, 2, 3, 4),
                        padding="same")
    _same_padding_check(tF.conv3d, F.conv3d, (1, 1, 6, 7, 5), (1, 1, 3, 3, 2),
                        padding="same", dilation=2)


def test_conv1d_valid_padding():
    x = pyad.tensor(_rng(2).standard_normal((1, 1, 10)))
    y = pyad.tensor(_rng(3).standard_normal((1, 1, 4)))
    np.testing.assert_allclose(F.conv1d(x, y, padding="valid").data, F.conv1d(x, y).data)
    _same_padding_check(tF.conv1d, F.conv1d, (1, 1, 10), (1, 1, 4), padding="valid")


def test_conv2d_valid_padding():
    x = pyad.tensor(_rng(2).standard_normal((1, 1, 1, 10)))
    y = pyad.tensor(_rng(3).standard_normal((1, 1, 1, 4)))
    np.testing.assert_allclose(F.conv2d(x, y, padding="valid").data, F.conv2d(x, y).data)


def test_conv1d_same_padding_backward():
    # symmetric and asymmetric padding; gradients vs torch
    _same_padding_check(tF.conv1d, F.conv1d, (1, 1, 12), (1, 1, 5), padding="same",
                        dilation=2)
    _same_padding_check(tF.conv1d, F.conv1d, (1, 1, 12), (1, 1, 4), padding="same")


def test_conv2d_same_padding_backward():
    _same_padding_check(tF.conv2d, F.conv2d, (1, 1, 10, 11), (1, 1, 4, 5),
                        padding="same", dilation=(2, 1))
    _same_padding_check(tF.conv2d, F.conv2d, (1, 1, 10, 11), (1, 1, 4, 4),
                        padding="same")


def test_ConvTranspose2d_output_size_downsample_upsample():
    # torch loops h in 13..23, w in 13..16; a subset of sizes keeps the run short.
    b, c, hid_c = 2, 3, 2
    for h in (13, 16, 23):
        for w in (13, 16):
            for k in range(2, 5):
                for d in range(1, 5):
                    for s in range(1, 4):
                        for p in range(3):
                            conv = nn.Conv2d(c, hid_c, kernel_size=k, stride=s,
                                             padding=p, dilation=d)
                            t_conv = nn.ConvTranspose2d(hid_c, c, kernel_size=k, stride=s,
                                                        padding=p, dilation=d)
                            i = pyad.randn(b, c, h, w)
                            try:
                                mid = conv(i)
                            except RuntimeError:
                                continue    # torch: output too small for this config
                            out = t_conv(mid, output_size=i.shape)
                            assert tuple(out.shape[2:]) == tuple(i.shape[2:])


def test_ConvTranspose3d_correct_output_size():
    # Check that ConvTranspose3d can take a 5d output_size.
    m = nn.ConvTranspose3d(2, 2, 2)
    i = pyad.rand(1, 2, 1, 1, 1)
    out = m(i, output_size=(1, 2, 2, 2, 2))
    assert tuple(out.shape) == (1, 2, 2, 2, 2)


def _groups_check(cls, in_c, out_c, k, shape, bias):
    m = cls(in_c, out_c, kernel_size=k, groups=2, bias=bias).double()
    x = pyad.tensor(_rng(4).standard_normal(shape), requires_grad=True)
    out = m(x)
    g = pyad.tensor(_rng(5).standard_normal(tuple(out.shape)))
    out.backward(g)
    half_in, half_out = in_c // 2, out_c // 2
    outs, grads = [], []
    for gi in range(2):
        mi = cls(half_in, half_out, kernel_size=k, bias=bias).double()
        mi.weight.data[...] = m.weight.data[gi * half_out:(gi + 1) * half_out]
        if bias:
            mi.bias.data[...] = m.bias.data[gi * half_out:(gi + 1) * half_out]
        xi = pyad.tensor(x.data[:, gi * half_in:(gi + 1) * half_in].copy(),
                         requires_grad=True)
        oi = mi(xi)
        oi.backward(pyad.tensor(g.data[:, gi * half_out:(gi + 1) * half_out].copy()))
        outs.append(oi.data)
        grads.append((xi.grad.data, mi.weight.grad.data,
                      mi.bias.grad.data if bias else None))
    np.testing.assert_allclose(out.data, np.concatenate(outs, 1), atol=1e-12)
    np.testing.assert_allclose(x.grad.data, np.concatenate([g_[0] for g_ in grads], 1),
                               atol=1e-12)
    np.testing.assert_allclose(m.weight.grad.data,
                               np.concatenate([g_[1] for g_ in grads], 0), atol=1e-12)
    if bias:
        np.testing.assert_allclose(m.bias.grad.data,
                                   np.concatenate([g_[2] for g_ in grads], 0), atol=1e-12)


def test_Conv3d_groups_nobias():
    _groups_check(nn.Conv3d, 4, 4, 3, (2, 4, 6, 6, 6), bias=False)


def test_Conv3d_groups_wbias():
    _groups_check(nn.Conv3d, 4, 4, 3, (2, 4, 6, 6, 6), bias=True)


def test_Conv2d_groups_nobias_v2():
    _groups_check(nn.Conv2d, 4, 16, 3, (2, 4, 6, 6), bias=False)


def test_Conv2d_depthwise_naive_groups():
    # depthwise: groups == in_channels, depth multiplier 1 and 2
    for depth_multiplier in (1, 2):
        m = nn.Conv2d(2, 2 * depth_multiplier, kernel_size=3, groups=2).double()
        x = pyad.tensor(_rng(6).standard_normal((2, 2, 6, 6)), requires_grad=True)
        out = m(x)
        g = _rng(7).standard_normal(tuple(out.shape))
        out.backward(pyad.tensor(g))
        offset = depth_multiplier
        for gi in range(2):
            mi = nn.Conv2d(1, depth_multiplier, kernel_size=3).double()
            mi.weight.data[...] = m.weight.data[gi * offset:(gi + 1) * offset]
            mi.bias.data[...] = m.bias.data[gi * offset:(gi + 1) * offset]
            xi = pyad.tensor(x.data[:, gi:gi + 1].copy(), requires_grad=True)
            oi = mi(xi)
            oi.backward(pyad.tensor(g[:, gi * offset:(gi + 1) * offset].copy()))
            np.testing.assert_allclose(out.data[:, gi * offset:(gi + 1) * offset], oi.data,
                                       atol=1e-12)
            np.testing.assert_allclose(x.grad.data[:, gi:gi + 1], xi.grad.data, atol=1e-12)
            np.testing.assert_allclose(m.weight.grad.data[gi * offset:(gi + 1) * offset],
                                       mi.weight.grad.data, atol=1e-12)
            np.testing.assert_allclose(m.bias.grad.data[gi * offset:(gi + 1) * offset],
                                       mi.bias.grad.data, atol=1e-12)


def test_conv_double_backward():
    batch_size = 2
    for kern, inp_size, dilations in [(3, 6, [1, 2]), (3, 7, [1]), (4, 9, [1])]:
        for stride, padding, chan_in, chan_out, dilation in [
                (s, p, ci, co, d) for s in (1, 2) for p in (0, 1) for ci in (1,)
                for co in (1, 2) for d in dilations]:
            x = pyad.tensor(_rng(8).standard_normal((batch_size, chan_in, inp_size, inp_size)),
                            requires_grad=True)
            w = pyad.tensor(_rng(9).standard_normal((chan_out, chan_in, kern, kern)),
                            requires_grad=True)
            b = pyad.tensor(_rng(10).standard_normal(chan_out), requires_grad=True)

            def func(*inputs):
                return F.conv2d(*inputs, stride=stride, padding=padding, dilation=dilation)

            assert pyad.autograd.gradgradcheck(func, (x, w, b))


def test_Conv2d_size_1_kernel():
    torch.manual_seed(0)
    t, p = twin(tnn.Conv2d(3, 3, kernel_size=1), nn.Conv2d(3, 3, kernel_size=1))
    compare(t, p, [_rng().standard_normal((2, 3, 5, 5))])


def test_ConvTranspose2d_size_1_kernel():
    torch.manual_seed(0)
    t, p = twin(tnn.ConvTranspose2d(3, 3, kernel_size=1), nn.ConvTranspose2d(3, 3, kernel_size=1))
    compare(t, p, [_rng().standard_normal((2, 3, 5, 5))])


def test_conv_empty_channel():
    in_channels = 0
    mod = nn.Conv1d(in_channels, 8, 2, stride=2)
    out = mod(pyad.randn(2, 0, 15))
    assert tuple(out.shape) == (2, 8, 7)
    assert not np.any(out.data - mod.bias.data[None, :, None])
    # pyad's message is "conv1d(): expected input ... to have 0 channels (weight ...,
    # groups=1), but got 1 channels instead" where torch's starts "Given groups=1, weight".
    with pytest.raises(RuntimeError, match=r"groups=1\), but got 1 channels"):
        mod(pyad.randn(2, 1, 0))

    mod = nn.Conv2d(in_channels, 33, 3, stride=2)
    out = mod(pyad.randn(2, 0, 50, 100))
    assert tuple(out.shape) == (2, 33, 24, 49)
    with pytest.raises(RuntimeError, match=r"groups=1\), but got 1 channels"):
        mod(pyad.randn(2, 1, 40, 0))


# --------------------------------------------------------------------------- pooling

def test_MaxUnpool2d_output_size():
    m = nn.MaxPool2d(3, stride=2, return_indices=True)
    mu = nn.MaxUnpool2d(3, stride=2)
    big_t = pyad.rand(1, 1, 6, 6)
    big_t.data[0, 0, 4, 4] = 100
    output_big, indices_big = m(big_t)
    with pytest.raises(RuntimeError):
        mu(output_big, indices_big)

    small_t = pyad.rand(1, 1, 5, 5)
    for i in range(0, 4, 2):
        for j in range(0, 4, 2):
            small_t.data[:, :, i, j] = 100
    output_small, indices_small = m(small_t)
    for h in range(3, 10):
        for w in range(3, 10):
            if 4 <= h <= 6 and 4 <= w <= 6:
                size = (h, w)
                if h == 6:
                    size = (1, 1) + size
                mu(output_small, indices_small, output_size=size)
            else:
                with pytest.raises(ValueError):
                    mu(output_small, indices_small, (h, w))


@pytest.mark.parametrize("fn_name,arg", [
    ("max_pool1d", 3), ("max_pool2d", 3), ("max_pool3d", 3),
    ("adaptive_max_pool1d", 1), ("adaptive_max_pool2d", 1), ("adaptive_max_pool3d", 1)])
def test_max_pool_nan_inf(fn_name, arg):
    num_dim = int(fn_name[-2])
    fn = getattr(F, fn_name)
    x = pyad.full([1, 1] + num_dim * [3], math.nan, requires_grad=True)
    res = fn(x, arg)
    res.backward(pyad.randn(*res.shape))
    assert math.isnan(res.item())
    x.requires_grad_(False)
    res = fn(x, arg)
    assert math.isnan(res.item())

    x2 = pyad.full([1, 1] + num_dim * [3], -math.inf, requires_grad=True)
    res2 = fn(x2, arg)
    res2.backward(pyad.randn(*res2.shape))
    assert math.isinf(res2.item())
    x2.requires_grad_(False)
    res2 = fn(x2, arg)
    assert math.isinf(res2.item())


def test_adaptive_pooling_input_size():
    for numel in (2, 3):
        for pool_type in ("Max", "Avg"):
            cls_name = f"Adaptive{pool_type}Pool{numel}d"
            output_size = (2,) * numel
            module = getattr(nn, cls_name)(output_size)
            x = pyad.randn(*output_size)
            with pytest.raises(ValueError):
                module(x)


def test_adaptive_pooling_size_none():
    for numel in (2, 3):
        for pool_type in ("Max", "Avg"):
            cls_name = f"Adaptive{pool_type}Pool{numel}d"
            output_size = [2] * (numel - 1) + [None]
            module = getattr(nn, cls_name)(output_size)
            x = pyad.randn(*([4] * (numel + 1)))
            output = module(x)
            assert tuple(output.shape) == (4,) + (2,) * (numel - 1) + (4,)


def test_avg_pool2d_with_zero_divisor():
    with pytest.raises(RuntimeError, match="divisor must be not zero"):
        F.avg_pool2d(pyad.zeros(3, 3, 3), (2, 2), divisor_override=0)


def test_avg_pool1d_ceil_mode():
    # Backward-compat: ceil_mode with a window starting in the right padding gives no nan.
    a = 10 * _rng(11).standard_normal((1, 16, 4))
    y = F.avg_pool1d(pyad.tensor(a), ceil_mode=True, count_include_pad=True, kernel_size=1,
                     stride=2)
    assert not np.isnan(y.data).any()
    _close(y, tF.avg_pool1d(torch.tensor(a), ceil_mode=True, count_include_pad=True,
                            kernel_size=1, stride=2))
    y = F.avg_pool1d(pyad.tensor(a), ceil_mode=True, count_include_pad=True, kernel_size=1,
                     stride=2, padding=0)
    assert not np.isnan(y.data).any()


def test_avg_pool2d_ceil_mode():
    a = 10 * _rng(12).standard_normal((1, 16, 4, 4))
    kw = dict(ceil_mode=True, count_include_pad=True, kernel_size=(1, 2), padding=(0, 1),
              stride=2)
    y = F.avg_pool2d(pyad.tensor(a), **kw)
    assert not np.isnan(y.data).any()
    _close(y, tF.avg_pool2d(torch.tensor(a), **kw))


def _maxpool_indices_check(num_dim, adaptive):
    cls_name = ("AdaptiveMaxPool{}d" if adaptive else "MaxPool{}d").format(num_dim)
    numel = 4 ** (num_dim + 1)
    a = np.arange(1, numel + 1, dtype=np.float64).reshape((2, 2) + (4,) * num_dim)
    # expected values: torch's module on the same input (torch's test hard-codes them)
    tm = getattr(tnn, cls_name)(2, return_indices=True)
    ta = torch.tensor(a, requires_grad=True)
    t_out, t_idx = tm(ta)
    t_out.backward(torch.ones_like(t_out))

    module = getattr(nn, cls_name)(2, return_indices=True)
    x = pyad.tensor(a, requires_grad=True)
    output, indices = module(x)
    assert indices.dim() == x.dim()
    np.testing.assert_array_equal(indices.data, t_idx.numpy())
    _close(output, t_out)
    assert output.requires_grad
    assert not indices.requires_grad
    grad_output = pyad.ones(*output.shape, dtype=pyad.float64)
    output.backward(grad_output, retain_graph=True)
    _close(x.grad, ta.grad)
    # Make sure -Infinity is handled correctly
    t = pyad.tensor([[[-math.inf]]])
    m = nn.MaxPool1d(kernel_size=1, return_indices=True)
    output, indices = m(t)
    assert output.data[0, 0, 0] == -math.inf
    assert indices.data[0, 0, 0] == 0
    t = pyad.tensor([[[-math.inf]]])
    m = nn.MaxPool2d(kernel_size=1, return_indices=True)
    output, indices = m(t[None])
    assert output.data[0, 0, 0, 0] == -math.inf
    assert indices.data[0, 0, 0, 0] == 0


def test_MaxPool1d_indices():
    _maxpool_indices_check(1, False)


def test_MaxPool2d_indices():
    _maxpool_indices_check(2, False)


def test_MaxPool3d_indices():
    _maxpool_indices_check(3, False)


def test_AdaptiveMaxPool1d_indices():
    _maxpool_indices_check(1, True)


def test_AdaptiveMaxPool2d_indices():
    _maxpool_indices_check(2, True)


def test_pooling_zero_stride():
    # pyad's message for every pooling op is "<op>(): kernel_size, stride and dilation
    # must be greater than zero, got ..."; torch's test accepts either of two wordings.
    for op in ("max", "avg"):
        for num_dim in [1, 2, 3]:
            fn = getattr(F, f"{op}_pool{num_dim}d")
            x = pyad.ones(*([1, 2] + num_dim * [4]))
            with pytest.raises(RuntimeError,
                               match=r"%s_pool%dd\(\): kernel_size, stride and dilation must be "
                                     r"greater than zero" % (op, num_dim)):
                fn(x, kernel_size=2, stride=0)
            mod = getattr(nn, f"{op.title()}Pool{num_dim}d")(kernel_size=2, stride=0)
            with pytest.raises(RuntimeError,
                               match=r"stride and dilation must be greater than zero"):
                mod(x)


def test_pool_invalid_size():
    for op in ("max", "avg"):
        for num_dim in [1, 2, 3]:
            fn = getattr(F, f"{op}_pool{num_dim}d")
            x = pyad.ones(*([1, 1] + num_dim * [4]))
            with pytest.raises(RuntimeError, match=r"too small|smaller than"):
                if op == "max":
                    fn(x, 3, stride=2, padding=0, dilation=2)
                else:
                    fn(x, 6, stride=2, padding=0)


@pytest.mark.parametrize("cls,args,shape", [
    ("LPPool1d", (2.0, 3), (2, 3, 8)),
    ("LPPool1d", (1.5, 2, 2), (2, 3, 7)),
    ("LPPool2d", (2.0, 3), (2, 3, 6, 6)),
    ("LPPool2d", (1.5, (2, 3), 2), (2, 3, 7, 8)),
])
def test_LPPool_module_db(cls, args, shape):
    t, p = getattr(tnn, cls)(*args), getattr(nn, cls)(*args)
    compare(t, p, [np.abs(_rng(13).standard_normal(shape)) + 0.1])


# --------------------------------------------------------------------------- padding

def test_pad_scalar_error():
    inputs = pyad.tensor(0.0, requires_grad=True)
    with pytest.raises(RuntimeError):
        F.pad(inputs, (1, 1))
    with pytest.raises(RuntimeError):
        F.pad(inputs, (1,))


def test_pad():
    a = _rng(14).standard_normal((1, 3, 4, 4))
    inputs = pyad.tensor(a, requires_grad=True)
    for kw in [dict(pad=(1, 1, 1, 1)), dict(pad=(-1, 1, -2, 1)),
               dict(pad=(-1, 1, -2, 1), value=2)]:
        assert pyad.autograd.gradcheck(lambda x: F.pad(x, **kw), (inputs,))
        assert pyad.autograd.gradgradcheck(lambda x: F.pad(x, **kw), (inputs,))
    # torch's negative pads with mode replicate/reflect/circular: test_pad_negative_modes
    b = _rng(15).standard_normal((1, 2, 3, 4, 4))
    inputs = pyad.tensor(b, requires_grad=True)
    assert pyad.autograd.gradcheck(lambda x: F.pad(x, (1, 1, 1, 1, 1, 1), mode="replicate"),
                                   (inputs,))

    # invalid circular padding values
    inputs = pyad.randn(1, 1, 4, requires_grad=True)
    # wrapping around more than once
    with pytest.raises(RuntimeError):
        F.pad(inputs, (5, 4), mode="circular")
    with pytest.raises(RuntimeError):
        F.pad(inputs, (3, 6), mode="circular")
    # negative padding giving a negative output shape
    with pytest.raises(RuntimeError):
        F.pad(inputs, (-3, -2), mode="circular")

    # reflection padding errors when pad >= input size
    # torch: "Padding size should be less than the corresponding input dimension"; pyad:
    # "pad(): padding (3, 0) at dimension 2 is too large for the reflect mode on ..."
    expected_err_msg = r"pad\(\): padding .* is too large for the reflect mode"
    with pytest.raises(RuntimeError, match=expected_err_msg):
        F.pad(pyad.randn(1, 1, 2, 3, dtype=pyad.float64), (1, 1, 3, 0), mode="reflect")
    with pytest.raises(RuntimeError, match=expected_err_msg):
        F.pad(pyad.randn(1, 1, 2, dtype=pyad.float64), (2, 1), mode="reflect")

    # pad doesn't return a view into the input
    inputs = pyad.rand(1, 3, 4, 4)
    for mode in "constant", "reflect", "replicate", "circular":
        out = F.pad(inputs, (0, 0, 0, 0), mode=mode)
        out.data[...] = 4
        assert np.all(np.abs(inputs.data) < 2)
    out = F.pad(inputs, (0, 0, -1, -1), mode="constant")
    out.data[...] = 4
    assert np.all(np.abs(inputs.data) < 2)


def test_pad_negative_modes():
    # the rest of torch's test_pad
    a = _rng(14).standard_normal((1, 3, 4, 4))
    inputs = pyad.tensor(a, requires_grad=True)
    for mode in ("replicate", "reflect", "circular"):
        assert pyad.autograd.gradcheck(lambda x: F.pad(x, (-1, 1, -2, 1), mode=mode),
                                       (inputs,))
        _close(F.pad(pyad.tensor(a), (-1, 1, -2, 1), mode=mode),
               tF.pad(torch.tensor(a), (-1, 1, -2, 1), mode=mode))
    inputs = pyad.rand(1, 3, 4, 4)
    for mode in "reflect", "replicate", "circular":
        out = F.pad(inputs, (0, 0, -1, -1), mode=mode)
        out.data[...] = 4
        assert np.all(np.abs(inputs.data) < 2)


@pytest.mark.parametrize("mode", ["reflect", "replicate", "circular"])
@pytest.mark.parametrize("sizes", [(-1, 2), (2, -1), (-2, -1), (-1, 0), (1, -1, -1, 1),
                                   (0, -2, 1, -1)])
def test_pad_negative_sizes_values_and_gradients_match_torch(mode, sizes):
    # a negative size crops what the positive sizes padded (torch's kernels)
    a = _rng(15).standard_normal((1, 3, 4) if len(sizes) == 2 else (1, 1, 3, 4))
    g = _rng(16).standard_normal(tF.pad(torch.tensor(a), sizes, mode=mode).shape)
    x = pyad.tensor(a, requires_grad=True)
    t = torch.tensor(a, requires_grad=True)
    out, ref = F.pad(x, sizes, mode=mode), tF.pad(t, sizes, mode=mode)
    _close(out, ref)
    out.backward(pyad.tensor(g))
    ref.backward(torch.tensor(g))
    np.testing.assert_allclose(x.grad.data, t.grad.numpy(), rtol=1e-12, atol=0)


def test_ReflectionPad_fails():
    # the same calls fail in torch; pyad must fail with the same exception type
    for cls, shape in [("ReflectionPad1d", (3, 3, 10, 10)), ("ReflectionPad2d", (3, 3, 3, 10, 10)),
                       ("ReflectionPad3d", (3, 3, 3, 3, 10, 10))]:
        with pytest.raises(Exception) as t_err:
            getattr(tnn, cls)(2)(torch.randn(*shape))
        with pytest.raises(t_err.type):
            getattr(nn, cls)(2)(pyad.randn(*shape))


@pytest.mark.parametrize("mode", ["constant", "reflect", "replicate", "circular"])
def test_padding_modes_match_torch(mode):
    # module_db's ReflectionPad/ReplicationPad/CircularPad/ConstantPad entries, 1-3d
    for dims, pad in [(1, (1, 2)), (2, (1, 2, 2, 1)), (3, (1, 2, 0, 1, 2, 1))]:
        a = _rng(16).standard_normal((2, 3) + (4,) * dims)
        tx, px = _pair(a, True)
        t_out = tF.pad(tx, pad, mode=mode)
        p_out = F.pad(px, pad, mode=mode)
        _close(p_out, t_out)
        g = _rng(17).standard_normal(tuple(t_out.shape))
        t_out.backward(torch.tensor(g))
        p_out.backward(pyad.tensor(g))
        _close(px.grad, tx.grad)


# --------------------------------------------------------------------------- upsampling

def test_upsamplingNearest1d():
    m = nn.Upsample(size=4, mode="nearest")
    out_t = m(pyad.ones(1, 1, 2))
    np.testing.assert_array_equal(out_t.data, np.ones((1, 1, 4)))
    x = pyad.randn(1, 1, 2, dtype=pyad.float64, requires_grad=True)
    assert pyad.autograd.gradcheck(lambda x: F.interpolate(x, 4, mode="nearest"), [x])
    for kw in [dict(size=5), dict(scale_factor=3), dict(scale_factor=1.7)]:
        a = _rng(18).standard_normal((1, 2, 3))
        _close(F.interpolate(pyad.tensor(a), mode="nearest", **kw),
               tF.interpolate(torch.tensor(a), mode="nearest", **kw))


def test_upsamplingNearest2d():
    a = _rng(19).standard_normal((1, 2, 3, 4))
    for kw in [dict(size=(4, 7)), dict(scale_factor=2), dict(scale_factor=(1.5, 2.5))]:
        _close(F.interpolate(pyad.tensor(a), mode="nearest", **kw),
               tF.interpolate(torch.tensor(a), mode="nearest", **kw))
    m = nn.Upsample(size=4, mode="nearest")
    np.testing.assert_array_equal(m(pyad.ones(1, 1, 2, 2)).data, np.ones((1, 1, 4, 4)))
    x = pyad.randn(1, 1, 2, 2, dtype=pyad.float64, requires_grad=True)
    assert pyad.autograd.gradcheck(lambda x: F.interpolate(x, 4, mode="nearest"), [x])


def test_upsamplingLinear1d():
    for align_corners in [True, False]:
        for recompute_scale_factor in [True, False]:
            kwargs = dict(mode="linear", align_corners=align_corners,
                          recompute_scale_factor=recompute_scale_factor)
            # test float scale factor up & downsampling
            for scale_factor in [0.5, 1.5, 2]:
                m = nn.Upsample(scale_factor=scale_factor, **kwargs)
                in_t = pyad.ones(1, 1, 2)
                out_size = int(math.floor(in_t.shape[-1] * scale_factor))
                out_t = m(in_t)
                np.testing.assert_allclose(out_t.data, np.ones((1, 1, out_size)), atol=1e-6)
                x = pyad.randn(1, 1, 2, dtype=pyad.float64, requires_grad=True)
                assert pyad.autograd.gradcheck(
                    lambda x: F.interpolate(x, out_size, **kwargs), (x,))
                a = _rng(20).standard_normal((1, 2, 5))
                _close(F.interpolate(pyad.tensor(a), scale_factor=scale_factor, **kwargs),
                       tF.interpolate(torch.tensor(a), scale_factor=scale_factor, **kwargs))


def test_upsamplingLinear1d_spatial_invariance():
    m = nn.Upsample(scale_factor=3, mode="linear", align_corners=False)
    in_t_9 = np.zeros((1, 1, 9))
    in_t_9[:, :, :4] = _rng(21).standard_normal((1, 1, 4))
    out_t_9 = m(pyad.tensor(in_t_9))
    out_t_5 = m(pyad.tensor(in_t_9[:, :, :5].copy()))
    np.testing.assert_allclose(out_t_9.data[:, :, :15], out_t_5.data, atol=1e-12)


def test_upsamplingBilinear2d_spatial_invariance():
    m = nn.Upsample(scale_factor=3, mode="bilinear", align_corners=False)
    in_t_9 = np.zeros((1, 1, 9, 9))
    in_t_9[:, :, :4, :4] = _rng(22).standard_normal((1, 1, 4, 4))
    out_t_9 = m(pyad.tensor(in_t_9))
    out_t_5 = m(pyad.tensor(in_t_9[:, :, :5, :5].copy()))
    np.testing.assert_allclose(out_t_9.data[:, :, :15, :15], out_t_5.data, atol=1e-12)


@pytest.mark.parametrize("mode,shape", [("bilinear", (1, 2, 4, 5)), ("bicubic", (1, 2, 4, 5)),
                                        ("trilinear", (1, 2, 3, 4, 5)),
                                        ("nearest", (1, 2, 3, 4, 5))])
def test_upsampling_modes_match_torch(mode, shape):
    # test_upsamplingBilinear2d / Bicubic2d / Trilinear3d / Nearest3d: values and
    # gradients against torch, align_corners both ways where it applies
    a = _rng(23).standard_normal(shape)
    for align in ([None] if mode == "nearest" else [True, False]):
        for kw in [dict(scale_factor=2), dict(scale_factor=1.7), dict(size=(6,) * (len(shape) - 2))]:
            kw = dict(kw, mode=mode)
            if align is not None:
                kw["align_corners"] = align
            tx, px = _pair(a, True)
            t_out = tF.interpolate(tx, **kw)
            p_out = F.interpolate(px, **kw)
            _close(p_out, t_out)
            g = _rng(24).standard_normal(tuple(t_out.shape))
            t_out.backward(torch.tensor(g))
            p_out.backward(pyad.tensor(g))
            _close(px.grad, tx.grad)


def test_upsampling_not_recompute_scale_factor():
    # test output against known input: the result must match opencv (torch's values)
    in_t = pyad.arange(8.0).reshape(1, 2, 2, 2)
    expected_out_t = np.array(
        [[[[-0.32725, -0.08843, 0.37933, 0.79744],
           [0.15039, 0.38921, 0.85697, 1.27508],
           [1.08591, 1.32473, 1.79249, 2.21060],
           [1.92213, 2.16095, 2.62871, 3.04682]],
          [[3.67275, 3.91157, 4.37933, 4.79744],
           [4.15039, 4.38921, 4.85697, 5.27508],
           [5.08591, 5.32473, 5.79249, 6.21060],
           [5.92213, 6.16095, 6.62871, 7.04682]]]])
    out_t = F.interpolate(in_t, scale_factor=2.3, mode="bicubic", align_corners=False,
                          recompute_scale_factor=False)
    np.testing.assert_allclose(out_t.data, expected_out_t, atol=1e-5)


# --------------------------------------------------------------------------- pixel shuffle

def test_pixel_shuffle_unshuffle():
    # torch's helper: the round trip is covered in test_torch_nn_ports.py; here the values
    # against torch for 3-5 dims and the error cases.
    for num_input_dims in (3, 4, 5):
        for upscale_factor in (1, 2, 3):
            batch = (2, 3)[:num_input_dims - 3]
            a = _rng(25).standard_normal(batch + (3 * upscale_factor ** 2, 4, 5))
            tx, px = _pair(a)
            ps = F.pixel_shuffle(px, upscale_factor)
            _close(ps, tF.pixel_shuffle(tx, upscale_factor))
            _close(F.pixel_unshuffle(ps, upscale_factor), tx)
    # 1D and 2D inputs
    for shape in [(4,), (3, 4)]:
        with pytest.raises(RuntimeError):
            F.pixel_shuffle(pyad.rand(*shape), 2)
        with pytest.raises(RuntimeError):
            F.pixel_unshuffle(pyad.rand(*shape), 2)
    # invalid channels dim: not divisible by upscale_factor ** 2
    with pytest.raises(RuntimeError):
        F.pixel_shuffle(pyad.rand(2, 5, 4, 4), 2)
    # invalid upscale factor
    for factor in (0, -2):
        with pytest.raises(RuntimeError):
            F.pixel_shuffle(pyad.rand(2, 4, 4, 4), factor)
        with pytest.raises(RuntimeError):
            F.pixel_unshuffle(pyad.rand(2, 4, 4, 4), factor)
    # invalid height / width for unshuffle: not divisible by downscale_factor
    with pytest.raises(RuntimeError):
        F.pixel_unshuffle(pyad.rand(2, 1, 5, 4), 2)
    with pytest.raises(RuntimeError):
        F.pixel_unshuffle(pyad.rand(2, 1, 4, 5), 2)


# --------------------------------------------------------------------------- fold / unfold

def test_fold_invalid_arg():
    # input.size(1) not divisible by \prod(kernel_size)
    fold = nn.Fold(output_size=(4, 5), kernel_size=(2, 3))
    with pytest.raises(RuntimeError, match=r"be divisible by the product of kernel_size"):
        fold(pyad.randn(1, 5, 9))
    with pytest.raises(RuntimeError, match=r"be divisible by the product of kernel_size"):
        fold(pyad.randn(1, 19, 9))
    # input.size(2) not matching the total number of sliding blocks
    with pytest.raises(RuntimeError, match=r"match the calculated number of sliding blocks"):
        fold = nn.Fold(output_size=(4, 5), kernel_size=(2, 3))
        fold(pyad.randn(1, 6, 10))
    with pytest.raises(RuntimeError, match=r"match the calculated number of sliding blocks"):
        fold = nn.Fold(output_size=(4, 5), kernel_size=(2, 3), stride=(2, 2))
        fold(pyad.randn(1, 6, 5))
    with pytest.raises(RuntimeError, match=r"match the calculated number of sliding blocks"):
        fold = nn.Fold(output_size=(4, 5), kernel_size=(2, 3), stride=(2, 2), dilation=(1, 2),
                       padding=(2, 0))
        fold(pyad.randn(1, 6, 5))  # should be 4 * 1 = 4 sliding blocks
    # the last check of torch's test: test_fold_invalid_arg_negative_blocks


def test_fold_invalid_arg_negative_blocks():
    fold = nn.Fold(output_size=(4, 5), kernel_size=(2, 2), stride=1, dilation=8, padding=0)
    with pytest.raises(RuntimeError, match=r"calculated shape of the array of sliding blocks as"):
        fold(pyad.randn(1, 12, 12))


def test_unfold_invalid_arg():
    # calculated output shape is too small
    with pytest.raises(RuntimeError, match=r"its components must be at least one"):
        nn.Unfold(kernel_size=(2, 3))(pyad.randn(1, 2, 2, 2))
    with pytest.raises(RuntimeError, match=r"its components must be at least one"):
        nn.Unfold(kernel_size=(5, 3), padding=(1, 1))(pyad.randn(1, 2, 2, 3))
    with pytest.raises(RuntimeError, match=r"its components must be at least one"):
        nn.Unfold(kernel_size=(1, 3), padding=(1, 1), dilation=(1, 2))(pyad.randn(1, 2, 2, 2))


# --------------------------------------------------------------------------- embedding

def test_embedding_padding_idx():
    embedding = nn.Embedding(10, 20, padding_idx=0)
    inp = pyad.tensor([[0, 2, 4, 5], [4, 3, 0, 9]])
    output = embedding(inp)
    assert output[0][0].sum().item() == 0
    assert output[1][2].sum().item() == 0

    # negative indexing check for padding_idx: padding_idx=-2 on 10 embeddings pads index 8
    embedding = nn.Embedding(10, 20, padding_idx=-2)
    inp = pyad.tensor([[0, 2, 8, 5], [4, 8, 0, 9]])
    output = embedding(inp)
    assert output[0][2].sum().item() == 0
    assert output[1][1].sum().item() == 0

    # out of bounds check for padding_idx
    with pytest.raises(AssertionError):
        nn.Embedding(num_embeddings=10, embedding_dim=20, padding_idx=25)
    with pytest.raises(AssertionError):
        nn.Embedding(num_embeddings=10, embedding_dim=20, padding_idx=-25)

    padding_idx = 0
    embedding = nn.Embedding(5, 2, padding_idx=padding_idx)
    for n in (1, 2, 1000):
        for other_indices in ([], [1, 3], [2]):
            indices = pyad.tensor(other_indices + [padding_idx] * n, dtype=pyad.int64)
            pre = embedding.weight[padding_idx].detach().clone()
            embedding(indices).sum().backward()
            after = (embedding.weight + embedding.weight.grad)[padding_idx]
            embedding.zero_grad()
            np.testing.assert_array_equal(after.data, pre.data)

            # double backward
            emb_sum = embedding(indices).sum()
            emb_grad = pyad.autograd.grad(outputs=emb_sum, inputs=list(embedding.parameters()),
                                          retain_graph=True)
            scalar = emb_grad[0].sum() + emb_sum
            scalar.backward()
            after = (embedding.weight + embedding.weight.grad)[padding_idx]
            embedding.zero_grad()
            np.testing.assert_array_equal(after.data, pre.data)


def test_embedding_dense_grad():
    embd = nn.Embedding(20, 20).double()
    weight = embd.weight

    def fn(weight):
        inp = pyad.tensor([[0, 1, 1, 2], [3, 5, 7, 11]], dtype=pyad.int64)
        return F.embedding(inp, weight)

    assert pyad.autograd.gradcheck(fn, (pyad.tensor(weight.data, requires_grad=True),))
    assert pyad.autograd.gradgradcheck(fn, (pyad.tensor(weight.data, requires_grad=True),))


def test_embedding_max_norm_unsorted_repeating_indices():
    torch.manual_seed(0)
    t = tnn.Embedding(num_embeddings=20, embedding_dim=64, max_norm=1.0)
    t, p = twin(t, nn.Embedding(num_embeddings=20, embedding_dim=64, max_norm=1.0))
    ix = np.tile(np.arange(2), 2000)
    _close(p(pyad.tensor(ix)), t(torch.tensor(ix)))
    _close(p.weight, t.weight)


def test_embedding_scalar_weight_error():
    indices = pyad.tensor([[0, 0], [0, 0]])
    for weight in [pyad.tensor(1.0), pyad.tensor(1.0).reshape(1, 1, 1)]:
        # torch: "'weight' must be 2-D"; pyad: "embedding(): weight must be 2-d (...)"
        with pytest.raises(RuntimeError, match="weight must be 2-d"):
            F.embedding(indices, weight)


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
def test_embedding_bag_1D_padding_idx(mode):
    # torch checks padding_idx entries are left out of each bag (compared with bags built
    # without them); here against torch's EmbeddingBag on the same weights.
    torch.manual_seed(0)
    t = tnn.EmbeddingBag(10, 5, mode=mode, padding_idx=2)
    t, p = twin(t, nn.EmbeddingBag(10, 5, mode=mode, padding_idx=2))
    inp = np.array([2, 1, 2, 3, 2, 2, 4, 5, 2, 9])
    offsets = np.array([0, 2, 4, 6, 9])
    compare(t, p, [inp, offsets])


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
def test_embedding_bag_2D_padding_idx(mode):
    torch.manual_seed(0)
    t = tnn.EmbeddingBag(10, 5, mode=mode, padding_idx=2)
    t, p = twin(t, nn.EmbeddingBag(10, 5, mode=mode, padding_idx=2))
    inp = np.array([[2, 1, 2, 3], [2, 2, 4, 5], [2, 9, 9, 1]])
    compare(t, p, [inp])


def test_EmbeddingBag_per_sample_weights_failures():
    es = nn.EmbeddingBag(5, 2, mode="sum")
    # Failure 2.1: input/per_sample_weights have different sizes (1d input)
    inp = pyad.tensor([3, 1, 1, 1, 4, 0])
    offsets = pyad.tensor([0, 0, 3, 3, 6])
    with pytest.raises(ValueError, match="same shape as the input"):
        es(inp, offsets, pyad.randn(5))
    # Failure 2.2: input/per_sample_weights have different sizes (2d input)
    inp = pyad.randint(5, (7, 3))
    with pytest.raises(ValueError, match="same shape as the input"):
        es(inp, None, pyad.randn(7 * 3))
    # Failure 3: Unsupported per_sample_weights and mode=('max', 'mean')
    for unsupported_mode in ("max", "mean"):
        es = nn.EmbeddingBag(5, 2, mode=unsupported_mode)
        with pytest.raises(NotImplementedError, match="only supported for mode='sum'"):
            es(pyad.randint(5, (7, 3)), None, pyad.randn(7, 3))


# --------------------------------------------------------------------------- dropout

def _test_dropout(cls, inp):
    p = 0.2
    inp.data[...] = 1 - p
    module = cls(p)
    input_var = inp.clone().requires_grad_()
    output = module(input_var)
    assert abs(output.data.mean() - (1 - p)) < 0.05
    output.backward(inp)
    assert abs(input_var.grad.data.mean() - (1 - p)) < 0.05

    module = cls(p, True)
    input_var = inp.clone().requires_grad_()
    output = module(input_var + 0)
    assert abs(output.data.mean() - (1 - p)) < 0.05
    output.backward(inp)
    assert abs(input_var.grad.data.mean() - (1 - p)) < 0.05

    # check eval mode doesn't change anything
    for inplace in [True, False]:
        module = cls(p, inplace).eval()
        np.testing.assert_array_equal(module(inp).data, inp.data)
    # Check that these don't raise errors
    repr(module)
    str(module)


def _test_dropoutNd_no_batch(dropout, inp):
    input_clone = inp.clone()
    pyad.manual_seed(123)
    res_no_batch = dropout(inp)
    pyad.manual_seed(123)
    res_batched = dropout(input_clone.unsqueeze(0)).squeeze(0)
    np.testing.assert_array_equal(res_no_batch.data, res_batched.data)


def _test_dropoutNd_channel_zero(dropout, inp):
    # the number of zeros in a channel is 0 or the channel's size, for a positive input
    shape = inp.shape
    channel_numel = int(np.prod(shape[2:]))
    result = dropout(inp)
    for b in range(shape[0]):
        for c in range(shape[1]):
            assert int(np.count_nonzero(result.data[b, c])) in (0, channel_numel)


def test_Dropout():
    pyad.manual_seed(0)
    _test_dropout(nn.Dropout, pyad.empty(1000))


def test_Dropout1d():
    pyad.manual_seed(0)
    N, C, L = 12, 13, 14
    _test_dropout(nn.Dropout1d, pyad.empty(N, C, L))
    # torch: "Expected 2D or 3D input, but received a 4D input"; pyad's wording differs
    with pytest.raises(RuntimeError, match="dropout1d\\(\\): Expected 2D or 3D input, got 4D"):
        nn.Dropout1d(p=0.5)(pyad.rand(1, 2, 2, 2))
    with pytest.raises(RuntimeError, match="dropout1d\\(\\): Expected 2D or 3D input, got 1D"):
        nn.Dropout1d(p=0.5)(pyad.rand(2))
    # no batch dims
    inp = pyad.rand(50, 2)
    _test_dropoutNd_no_batch(nn.Dropout1d(p=0.5), inp)
    _test_dropoutNd_no_batch(nn.Dropout1d(p=0.5, inplace=True), inp)
    # complete channels are dropped
    inp = pyad.ones(10, 4, 2)
    _test_dropoutNd_channel_zero(nn.Dropout1d(p=0.5), inp)
    _test_dropoutNd_channel_zero(nn.Dropout1d(p=0.5, inplace=True), inp)


def test_Dropout2d():
    pyad.manual_seed(0)
    b, w, h = 3, 10, 11
    num_features = 1000
    _test_dropout(nn.Dropout2d, pyad.empty(num_features, b, w, h))
    with pytest.warns(UserWarning, match="Received a 5-D input to dropout2d"):
        nn.Dropout2d(p=0.5)(pyad.rand(1, 2, 2, 2, 2))
    with pytest.warns(UserWarning, match="Received a 2-D input to dropout2d"):
        nn.Dropout2d(p=0.5)(pyad.rand(1, 2))
    # a 3-D input is taken as batched 1-D channel-wise dropout (torch's warning)
    with pytest.warns(UserWarning, match="assuming that channel-wise 1D dropout"):
        nn.Dropout2d(p=0.5)(pyad.rand(50, 2, 2))
    # complete channels are dropped
    inp = pyad.ones(10, 4, 2, 2)
    _test_dropoutNd_channel_zero(nn.Dropout2d(p=0.5), inp)
    _test_dropoutNd_channel_zero(nn.Dropout2d(p=0.5, inplace=True), inp)


def test_Dropout3d():
    pyad.manual_seed(0)
    b, w, h, d = 3, 6, 7, 2
    num_features = 1000
    _test_dropout(nn.Dropout3d, pyad.empty(num_features, b, d, w, h))
    # no batch dims
    inp = pyad.rand(50, 2, 2, 2)
    _test_dropoutNd_no_batch(nn.Dropout3d(p=0.5), inp)
    _test_dropoutNd_no_batch(nn.Dropout3d(p=0.5, inplace=True), inp)
    # complete channels are dropped
    inp = pyad.ones(10, 4, 2, 2, 2)
    _test_dropoutNd_channel_zero(nn.Dropout3d(p=0.5), inp)
    _test_dropoutNd_channel_zero(nn.Dropout3d(p=0.5, inplace=True), inp)


def test_empty_dropout():
    x = pyad.tensor([])
    out = F.dropout(x)
    assert tuple(out.shape) == tuple(x.shape)


def _test_alpha_dropout(cls, inp):
    mean = inp.data.mean()
    std = inp.data.std()
    for p in [0.2, 0.5, 0.8]:
        module = cls(p)
        input_var = inp.detach().clone().requires_grad_()
        output = module(input_var)
        # output mean and std should be close to the input's
        assert abs(output.data.mean() - mean) < 0.1
        assert abs(output.data.std() - std) < 0.1
        output.backward(inp)


def test_AlphaDropout():
    pyad.manual_seed(0)
    _test_alpha_dropout(nn.AlphaDropout, pyad.randn(5000))


def test_FeatureAlphaDropout():
    pyad.manual_seed(0)
    b, w, h, d = 3, 4, 2, 2
    _test_alpha_dropout(nn.FeatureAlphaDropout, pyad.randn(1000, b, d, w, h))
    # no batch dims
    _test_alpha_dropout(nn.FeatureAlphaDropout, pyad.randn(50, 20, 64, 64))


# --------------------------------------------------------------------------- init

init = nn.init


def test_calculate_gain_linear():
    for fn in ["linear", "conv1d", "conv2d", "conv3d", "conv_transpose2d", "conv_transpose2d",
               "conv_transpose3d", "sigmoid"]:
        assert init.calculate_gain(fn) == 1


def test_calculate_gain_nonlinear():
    for fn in ["tanh", "relu", "leaky_relu", "selu"]:
        gain = init.calculate_gain(fn)
        if fn == "tanh":
            assert gain == 5 / 3
        elif fn == "relu":
            assert gain == math.sqrt(2.0)
        elif fn == "leaky_relu":
            assert gain == math.sqrt(2.0 / (1 + 0.01 ** 2))
        elif fn == "selu":
            assert gain == 0.75


def test_calculate_gain_leaky_relu():
    for param in [None, 0, 0.01, 10]:
        gain = init.calculate_gain("leaky_relu", param)
        if param is None:           # Default slope is 0.01
            assert gain == math.sqrt(2.0 / (1 + 0.01 ** 2))
        elif param == 0:            # No slope = same gain as normal ReLU
            assert gain == math.sqrt(2.0)
        elif param == 0.01:
            assert gain == math.sqrt(2.0 / (1 + 0.01 ** 2))
        elif param == 10:
            assert gain == math.sqrt(2.0 / (1 + 10 ** 2))


def test_calculate_gain_leaky_relu_only_accepts_numbers():
    for param in [True, [1], {"a": "b"}]:
        with pytest.raises(ValueError):
            init.calculate_gain("leaky_relu", param)


def test_calculate_gain_only_accepts_valid_nonlinearities():
    for n in [2, 5, 25]:
        random_string = "".join("qzxjkv"[i % 6] for i in range(n))
        with pytest.raises(ValueError):
            init.calculate_gain(random_string)


def _random_nd(dims, lo, hi, seed=0):
    rng = _rng(seed)
    return pyad.zeros(*[int(rng.integers(lo, hi + 1)) for _ in range(dims)])


def test_constant():
    for dims in [1, 2, 4]:
        t = _random_nd(dims, 1, 5)
        val = 3.75
        init.constant_(t, val)
        np.testing.assert_array_equal(t.data, np.full(t.shape, val, dtype=t.dtype))


def test_ones_and_zeros():
    for init_fn_, val in zip([init.ones_, init.zeros_], [1, 0]):
        for dims in [1, 2, 4]:
            t = _random_nd(dims, 1, 5) + 7.0
            init_fn_(t)
            np.testing.assert_array_equal(t.data, np.full(t.shape, val, dtype=t.dtype))


def test_eye_only_works_on_2d_inputs():
    for dims in [1, 3]:
        with pytest.raises(ValueError):
            init.eye_(_random_nd(dims, 1, 5))


def test_dirac_properties():
    rng = _rng(26)
    for dims in [3, 4, 5]:
        for groups in [1, 2, 3]:
            a, c, d, e = (int(rng.integers(1, 6)) for _ in range(4))
            b = int(rng.integers(1, 5 * groups + 1))
            t = pyad.randn(*(a * groups, b, c, d, e)[:dims])
            init.dirac_(t, groups)
            c_out, c_in = t.shape[0] // groups, t.shape[1]
            min_d = min(c_out, c_in)
            # number of nonzeros and their sum equal the smallest dim (for each group)
            assert np.count_nonzero(t.data) == min_d * groups
            assert t.data.sum() == min_d * groups


def test_dirac_identity():
    for groups in [1, 3]:
        batch, in_c, out_c, size, kernel_size = 8, 3, 9, 5, 3
        eff_out_c = out_c // groups
        for nd, conv in [(1, F.conv1d), (2, F.conv2d), (3, F.conv3d)]:
            x = pyad.randn(*((batch, in_c) + (size,) * nd))
            filt = pyad.zeros(*((eff_out_c, in_c) + (kernel_size,) * nd))
            filt = pyad.cat([filt] * groups)
            init.dirac_(filt, groups)
            out = conv(x, filt).data
            inner = (slice(None), slice(None)) + (slice(1, -1),) * nd
            for g in range(groups):
                # in_c outputs are preserved (per each group)
                np.testing.assert_allclose(x.data[inner],
                                           out[:, eff_out_c * g:eff_out_c * g + in_c],
                                           rtol=1e-6, atol=1e-6)
                # extra outputs are 0
                assert np.count_nonzero(out[:, eff_out_c * g + in_c:eff_out_c * (g + 1)]) == 0


def test_dirac_only_works_on_3_4_5d_inputs():
    for dims in [1, 2, 6]:
        with pytest.raises(ValueError):
            init.dirac_(_random_nd(dims, 1, 3))


@pytest.mark.parametrize("fn", ["xavier_uniform_", "xavier_normal_", "kaiming_uniform_",
                                "kaiming_normal_"])
def test_xavier_kaiming_errors_on_inputs_smaller_than_2d(fn):
    # test_xavier_uniform_errors_on_inputs_smaller_than_2d and its three siblings
    for dims in [0, 1]:
        t = pyad.zeros(*([1] * dims))
        with pytest.raises(ValueError):
            getattr(init, fn)(t)


@pytest.mark.parametrize("fn", ["kaiming_uniform_", "kaiming_normal_"])
def test_kaiming_warning_on_0element_tensor(fn):
    # test_kaiming_uniform_warning_on_0element_tensor / test_kaiming_normal_...
    t = pyad.empty(0, 1)
    with pytest.warns(UserWarning, match="Initializing zero-element tensors is a no-op"):
        getattr(init, fn)(t)


def test_sparse_only_works_on_2d_inputs():
    for dims in [1, 3]:
        with pytest.raises(ValueError):
            init.sparse_(_random_nd(dims, 1, 3), 0.3)


def test_orthogonal():
    for use_gain in [True, False]:
        for tensor_size in [[3, 4], [4, 3], [20, 2, 3, 4], [2, 3, 4, 5]]:
            t = pyad.zeros(*tensor_size)
            gain = 1.0
            if use_gain:
                gain = 1.37
                init.orthogonal_(t, gain=gain)
            else:
                init.orthogonal_(t)
            rows, cols = tensor_size[0], int(np.prod(tensor_size[1:]))
            flat = t.data.reshape(rows, cols).astype(np.float64)
            if rows > cols:
                np.testing.assert_allclose(flat.T @ flat, np.eye(cols) * gain ** 2, atol=1e-6,
                                           rtol=0)
            else:
                np.testing.assert_allclose(flat @ flat.T, np.eye(rows) * gain ** 2, atol=1e-6,
                                           rtol=0)


def test_trunc_normal():
    stats = pytest.importorskip("scipy.stats")
    rng = _rng(27)
    for dims in [1, 2, 4]:
        t = _random_nd(dims, 30, 50 if dims < 4 else 32)
        mean = rng.uniform(-3, 3)
        std = rng.uniform(0.01, 1)
        a = rng.uniform(mean - 2 * std, mean)
        b = rng.uniform(mean, mean + 2 * std)
        init.trunc_normal_(t, mean=mean, std=std, a=a, b=b)
        samples = t.data.ravel().astype(np.float64)
        assert samples.min() >= a - 1e-6 and samples.max() <= b + 1e-6
        # torch's _is_trunc_normal: a KS test against scipy's truncnorm
        p_value = stats.kstest(samples, "truncnorm", args=((a - mean) / std, (b - mean) / std,
                                                          mean, std))[1]
        assert p_value > 0.0001


# --------------------------------------------------------------------------- multihead attention

def _mha_twin(embed_dim=8, num_heads=2, **kw):
    torch.manual_seed(0)
    t = tnn.MultiheadAttention(embed_dim, num_heads, **kw)
    p = nn.MultiheadAttention(embed_dim, num_heads, **kw)
    if kw.get("add_bias_kv"):
        # torch inits bias_k / bias_v with xavier_normal_; give both non-trivial values
        with torch.no_grad():
            t.bias_k.normal_()
            t.bias_v.normal_()
    return twin(t, p)


def _mha_compare(t, p, L=4, S=5, N=3, E=8, kdim=None, vdim=None, **kw):
    rng = _rng(30)
    q = rng.standard_normal((L, N, E))
    k = rng.standard_normal((S, N, kdim or E))
    v = rng.standard_normal((S, N, vdim or E))
    extra = {key: (torch.tensor(val), pyad.tensor(val)) if isinstance(val, np.ndarray)
             else (val, val) for key, val in kw.items()}
    compare(t, p, [q, k, v],
            call=lambda m, *a: m(*a, **{key: val[0 if m is t else 1]
                                        for key, val in extra.items()}))


def test_multihead_attn_no_masking():
    t, p = _mha_twin()
    _mha_compare(t, p)


def test_multihead_attn_key_padding_mask():
    t, p = _mha_twin()
    kpm = np.zeros((3, 5), dtype=bool)
    kpm[0, -2:] = True
    kpm[2, 0] = True
    _mha_compare(t, p, key_padding_mask=kpm)


def test_multihead_attn_3d_attn_mask():
    t, p = _mha_twin()
    mask = _rng(31).standard_normal((3 * 2, 4, 5))     # (N * num_heads, L, S), float
    _mha_compare(t, p, attn_mask=mask)
    bmask = _rng(32).random((3 * 2, 4, 5)) < 0.3
    bmask[:, :, 0] = False
    _mha_compare(t, p, attn_mask=bmask)


def test_multihead_attn_key_padding_mask_attn_mask():
    t, p = _mha_twin()
    kpm = np.zeros((3, 5), dtype=bool)
    kpm[1, -1] = True
    mask = np.triu(np.ones((4, 5), dtype=bool), k=2)
    _mha_compare(t, p, key_padding_mask=kpm, attn_mask=mask)


def test_multihead_attn_add_bias_kv():
    t, p = _mha_twin(add_bias_kv=True)
    _mha_compare(t, p)
    kpm = np.zeros((3, 5), dtype=bool)
    kpm[0, -1] = True
    _mha_compare(t, p, key_padding_mask=kpm)


def test_multihead_attn_add_zero_attn():
    t, p = _mha_twin(add_zero_attn=True)
    _mha_compare(t, p)
    kpm = np.zeros((3, 5), dtype=bool)
    kpm[2, :2] = True
    _mha_compare(t, p, key_padding_mask=kpm)


def test_multihead_attn_in_proj_bias_none():
    t, p = _mha_twin(bias=False)
    assert p.in_proj_bias is None
    _mha_compare(t, p)


def test_multihead_attn_in_proj_weight_none():
    # kdim / vdim != embed_dim: separate q/k/v projection weights, no in_proj_weight
    t, p = _mha_twin(kdim=6, vdim=5)
    assert p.in_proj_weight is None
    _mha_compare(t, p, kdim=6, vdim=5)


def test_multihead_attn_batch_first_average_attn_weights():
    # need_weights with average_attn_weights False/True, batch_first
    t, p = _mha_twin(batch_first=True)
    rng = _rng(33)
    q = rng.standard_normal((3, 4, 8))
    kv = rng.standard_normal((3, 5, 8))
    for avg in (True, False):
        compare(t, p, [q, kv, kv],
                call=lambda m, *a: m(*a, need_weights=True, average_attn_weights=avg))


def test_multihead_attn_invalid_shape():
    # each call fails in torch (AssertionError); pyad must fail with the same type
    mha_t = tnn.MultiheadAttention(4, 4)
    mha_p = nn.MultiheadAttention(4, 4)
    bool_ = lambda lib, v: lib.tensor(v, dtype=lib.bool)   # noqa: E731
    cases = [
        # batched (3D) query
        lambda lib: ((4, 4, 4), (4, 4), (4, 4, 4), {}),
        lambda lib: ((4, 4, 4), (4, 4, 4), (4, 4), {}),
        lambda lib: ((4, 4, 4), (4, 4, 4), (4, 4, 4),
                     {"key_padding_mask": bool_(lib, [False, False, True, True])}),
        lambda lib: ((4, 4, 4), (4, 4, 4), (4, 4, 4),
                     {"attn_mask": bool_(lib, [False, False, True, True])}),
        # unbatched (2D) query
        lambda lib: ((4, 4), (4, 4, 4), (4, 4), {}),
        lambda lib: ((4, 4), (4, 4), (4, 4, 4), {}),
        lambda lib: ((4, 4), (4, 4), (4, 4),
                     {"key_padding_mask": bool_(lib, [[False, True], [True, False]])}),
        lambda lib: ((4, 4), (4, 4), (4, 4),
                     {"attn_mask": bool_(lib, [False, False, True, True])}),
    ]
    for case in cases:
        qs, ks, vs, kw = case(torch)
        with pytest.raises(Exception) as t_err:
            mha_t(torch.randn(*qs), torch.randn(*ks), torch.randn(*vs), **kw)
        qs, ks, vs, kw = case(pyad)
        with pytest.raises(t_err.type):
            mha_p(pyad.randn(*qs), pyad.randn(*ks), pyad.randn(*vs), **kw)


# --------------------------------------------------------------------------- packed sequences

rnn_utils = nn.utils.rnn
PackedSequence = rnn_utils.PackedSequence


def _ordered_sequence(seed=0, batch_size=5, max_length=6):
    rng = _rng(seed)
    seqs = [pyad.tensor(rng.integers(-128, 128, size=int(rng.integers(1, max_length + 1)))
                        .astype(np.float32)) for _ in range(batch_size)]
    return sorted(seqs, key=lambda s: s.shape[0], reverse=True)


def test_total_length():
    ordered = _ordered_sequence()
    lengths = [s.shape[0] for s in ordered]
    padded = rnn_utils.pad_sequence(ordered)
    max_length = max(lengths)
    packed = rnn_utils.pack_padded_sequence(padded, lengths)
    # ValueError if total_length < max_length
    for total_length in (-1, 0, max_length - 1):
        for batch_first in (True, False):
            with pytest.raises(ValueError, match=r"Expected total_length to be at least the "
                                                 r"length of the longest sequence in input"):
                rnn_utils.pad_packed_sequence(packed, batch_first=batch_first,
                                              total_length=total_length)
    # pad_packed_sequence returns results of the right length
    for batch_first in (True, False):
        no_extra_pad, _ = rnn_utils.pad_packed_sequence(packed, batch_first=batch_first)
        for total_length_delta in (0, 1, 8):
            total_length = max_length + total_length_delta
            unpacked, lengths_out = rnn_utils.pad_packed_sequence(
                packed, batch_first=batch_first, total_length=total_length)
            assert list(np.asarray(lengths_out.data if isinstance(lengths_out, pyad.Variable)
                                   else lengths_out)) == lengths
            assert unpacked.shape[1 if batch_first else 0] == total_length
            ref = no_extra_pad.data
            if total_length_delta:
                pad_shape = (5, total_length_delta) if batch_first else (total_length_delta, 5)
                ref = np.concatenate([ref, np.zeros(pad_shape, ref.dtype)],
                                     1 if batch_first else 0)
            np.testing.assert_array_equal(unpacked.data, ref)


def _ints(v):
    return None if v is None else np.asarray(v.data if isinstance(v, pyad.Variable) else v).tolist()


def test_pack_sequence():
    def _compatibility_test(sequences, lengths, batch_first, enforce_sorted=False):
        padded = rnn_utils.pad_sequence(sequences, batch_first)
        packed = rnn_utils.pack_sequence(sequences, enforce_sorted)
        unpacked = rnn_utils.pad_packed_sequence(packed, batch_first)
        np.testing.assert_array_equal(padded.data, unpacked[0].data)
        pack_padded = rnn_utils.pack_padded_sequence(padded, lengths, batch_first,
                                                     enforce_sorted)
        np.testing.assert_array_equal(packed.data.data, pack_padded.data.data)
        assert _ints(packed.batch_sizes) == _ints(pack_padded.batch_sizes)
        assert _ints(packed.sorted_indices) == _ints(pack_padded.sorted_indices)

    # single dimensional
    a = pyad.tensor([1, 2, 3])
    b = pyad.tensor([4, 5])
    c = pyad.tensor([6])
    packed = rnn_utils.pack_sequence([a, b, c], enforce_sorted=False)
    expected = [1, 4, 6, 2, 5, 3]
    assert _ints(packed.batch_sizes) == [3, 2, 1]
    assert _ints(packed.data) == expected
    assert _ints(packed.sorted_indices) == [0, 1, 2]
    assert _ints(packed.unsorted_indices) == [0, 1, 2]

    packed_unsorted = rnn_utils.pack_sequence([b, c, a], enforce_sorted=False)
    assert _ints(packed_unsorted.batch_sizes) == [3, 2, 1]
    assert _ints(packed_unsorted.data) == expected
    assert _ints(packed_unsorted.sorted_indices) == [2, 0, 1]
    assert _ints(packed_unsorted.unsorted_indices) == [1, 2, 0]

    # single dimensional, enforce_sorted = True
    packed_enforce_sorted = rnn_utils.pack_sequence([a, b, c], enforce_sorted=True)
    assert _ints(packed_enforce_sorted.batch_sizes) == [3, 2, 1]
    assert _ints(packed_enforce_sorted.data) == expected
    assert packed_enforce_sorted.sorted_indices is None
    assert packed_enforce_sorted.unsorted_indices is None

    with pytest.raises(RuntimeError, match="must be sorted in decreasing order"):
        rnn_utils.pack_sequence([b, c, a], enforce_sorted=True)
    with pytest.raises(RuntimeError, match="You can pass `enforce_sorted=False`"):
        rnn_utils.pack_sequence([b, c, a], enforce_sorted=True)

    # more dimensions
    maxlen = 6
    rng = _rng(35)
    for num_dim in (0, 1, 2):
        sequences = []
        lengths = []
        trailing_dims = [4] * num_dim
        for i in range(maxlen, 0, -1):
            seq_len = i * i
            lengths.append(seq_len)
            sequences.append(pyad.rand(seq_len, 5, *trailing_dims))
        order = rng.permutation(len(sequences))
        unsorted_sequences = [sequences[j].clone() for j in order]
        unsorted_lengths = [s.shape[0] for s in unsorted_sequences]
        for batch_first in (True, False):
            for enforce_sorted in (True, False):
                _compatibility_test(sequences, lengths, batch_first, enforce_sorted)
            _compatibility_test(unsorted_sequences, unsorted_lengths, batch_first)


def test_unpad_sequence():
    a = pyad.tensor([1, 2, 3])
    b = pyad.tensor([4, 5])
    c = pyad.tensor([6])
    sequences = [a, b, c]
    lengths = pyad.tensor([v.shape[0] for v in sequences])
    for batch_first in [True, False]:
        padded = rnn_utils.pad_sequence(sequences, batch_first=batch_first)
        unpadded = rnn_utils.unpad_sequence(padded, lengths, batch_first=batch_first)
        assert [_ints(s) for s in unpadded] == [_ints(s) for s in sequences]

    rng = _rng(36)
    for num_dim in (0, 1, 2):
        sequences = [pyad.rand(i * i, 5, *([4] * num_dim)) for i in range(1, 7)]
        sequences = [sequences[j] for j in rng.permutation(len(sequences))]
        lengths = pyad.tensor([v.shape[0] for v in sequences])
        for batch_first in [True, False]:
            padded = rnn_utils.pad_sequence(sequences, batch_first=batch_first)
            unpadded = rnn_utils.unpad_sequence(padded, lengths, batch_first=batch_first)
            for s, u in zip(sequences, unpadded):
                np.testing.assert_array_equal(s.data, u.data)


def test_unpack_sequence():
    a = pyad.tensor([1, 2, 3])
    b = pyad.tensor([4, 5])
    c = pyad.tensor([6])
    sequences = [a, b, c]
    packed = rnn_utils.pack_sequence(sequences, enforce_sorted=False)
    unpacked = rnn_utils.unpack_sequence(packed)
    assert [_ints(s) for s in unpacked] == [_ints(s) for s in sequences]

    rng = _rng(37)
    for num_dim in (0, 1, 2):
        sequences = [pyad.rand(i * i, 5, *([4] * num_dim)) for i in range(1, 7)]
        sequences = [sequences[j] for j in rng.permutation(len(sequences))]
        packed = rnn_utils.pack_sequence(sequences, enforce_sorted=False)
        unpacked = rnn_utils.unpack_sequence(packed)
        for s, u in zip(sequences, unpacked):
            np.testing.assert_array_equal(s.data, u.data)


def test_pad_sequence_with_tensor_sequences():
    seq_tuple_input = rnn_utils.pad_sequence((pyad.tensor([[7, 6]]), pyad.tensor([[-7, -1]])))
    seq_tensor_input = rnn_utils.pad_sequence(pyad.tensor([[[7, 6]], [[-7, -1]]]))
    np.testing.assert_array_equal(seq_tuple_input.data, seq_tensor_input.data)
    assert tuple(seq_tuple_input.shape) == (1, 2, 2)


def test_wrong_order():
    a = pyad.ones(25, 300)
    b = pyad.ones(22, 300)
    b_a = rnn_utils.pad_sequence([b, a])
    with pytest.raises(RuntimeError):
        rnn_utils.pack_padded_sequence(b_a, [22, 25], enforce_sorted=True)


# --------------------------------------------------------------------------- RNN

def test_RNN_input_size_zero():
    for module in (nn.RNN, nn.LSTM, nn.GRU):
        inp = pyad.zeros(5, 0, 3)
        rnn = module(input_size=3, hidden_size=4)
        outs = rnn(inp)
        assert tuple(outs[0].shape) == (5, 0, 4)
        # backward does not cause a hard error
        outs[0].sum().backward()


def test_RNN_change_dropout():
    for train in (True, False):
        pyad.manual_seed(0)
        rnn = nn.RNN(100, 100, 2, dropout=0, nonlinearity="relu")
        inp = pyad.rand(1, 1, 100)
        rnn.train(train)
        prev_output = None
        for p in (0, 0.5, 0, 0.7, 0.2, 1, 0.2, 0):
            rnn.dropout = p
            output1, hx1 = rnn(inp)
            output2, hx2 = rnn(inp)
            if p == 0 or p == 1 or not train:
                np.testing.assert_array_equal(output1.data, output2.data)
                np.testing.assert_array_equal(hx1.data, hx2.data)
            else:
                assert not np.array_equal(output1.data, output2.data)
                assert not np.array_equal(hx1.data, hx2.data)
            if prev_output is not None:
                if not train:
                    np.testing.assert_array_equal(output1.data, prev_output)
                    np.testing.assert_array_equal(output2.data, prev_output)
                else:
                    assert not np.array_equal(output1.data, prev_output)
                    assert not np.array_equal(output2.data, prev_output)
            prev_output = output1.data


def test_rnn_proj_size_and_dropout_errors():
    # RNNBase's argument checks (torch's messages), each raised by torch as well
    for lib in (torch, pyad):
        with pytest.raises(ValueError, match="proj_size has to be smaller than hidden_size"):
            lib.nn.LSTM(4, 3, proj_size=3)
        with pytest.raises(ValueError, match="proj_size should be a positive integer or zero"):
            lib.nn.LSTM(4, 3, proj_size=-1)
        with pytest.raises(ValueError, match="proj_size argument is only supported for LSTM"):
            lib.nn.GRU(4, 3, proj_size=2)
        with pytest.raises(ValueError, match="dropout should be a number in range"):
            lib.nn.GRU(4, 3, dropout=1.5)
        with pytest.warns(UserWarning, match="non-zero dropout expects num_layers greater than 1"):
            lib.nn.LSTM(4, 3, num_layers=1, dropout=0.5)


@pytest.mark.parametrize("cls", ["RNN", "LSTM", "GRU"])
def test_rnn_hidden_state_shape_errors(cls):
    # wrong hidden-state shapes fail in torch with RuntimeError; pyad must too
    torch.manual_seed(0)
    t, p = twin(getattr(tnn, cls)(3, 4, num_layers=2, bidirectional=True, batch_first=True),
                getattr(nn, cls)(3, 4, num_layers=2, bidirectional=True, batch_first=True))
    x = _rng(38).standard_normal((2, 5, 3))
    for bad in [(4, 2, 5), (2, 2, 4), (4, 3, 4)]:
        h = np.zeros(bad)
        hx_t = (torch.tensor(h), torch.tensor(np.zeros((4, 2, 4)))) if cls == "LSTM" \
            else torch.tensor(h)
        hx_p = (pyad.tensor(h), pyad.tensor(np.zeros((4, 2, 4)))) if cls == "LSTM" \
            else pyad.tensor(h)
        with pytest.raises(RuntimeError):
            t(torch.tensor(x), hx_t)
        with pytest.raises(RuntimeError):
            p(pyad.tensor(x), hx_p)
    # the right shape: outputs (batch_first) and h_n shapes as torch's
    t_out = t(torch.tensor(x))
    p_out = p(pyad.tensor(x))
    assert tuple(p_out[0].shape) == tuple(t_out[0].shape) == (2, 5, 8)
    t_h = t_out[1][0] if cls == "LSTM" else t_out[1]
    p_h = p_out[1][0] if cls == "LSTM" else p_out[1]
    assert tuple(p_h.shape) == tuple(t_h.shape) == (4, 2, 4)
    _close(p_out[0], t_out[0])


# --------------------------------------------------------------------------- losses

def test_nll_loss_invalid_target_dim():
    x = pyad.randn(10, 3)
    t = pyad.zeros(10, 2, dtype=pyad.int64)
    # torch: "1D target tensor expected"; pyad: "nll_loss(): expected a target of shape
    # (10,) for an input of shape (10, 3), got (10, 2)"
    with pytest.raises(RuntimeError, match=r"expected a target of shape \(10,\)"):
        F.nll_loss(x, t)


def test_nll_loss_invalid_weights():
    x = pyad.randn(10, 3)
    t = pyad.randint(0, 3, (10,))
    # torch: "weight tensor should be ..."; pyad: "nll_loss(): weight should be ..."
    msg = "weight should be defined either for all 3 classes or no classes"
    for weight in [pyad.randn(4), pyad.randn(1, 3)]:
        with pytest.raises(RuntimeError, match=msg):
            F.nll_loss(x, t, weight=weight)


def test_nll_loss_mismatched_batch():
    x = pyad.randn(10, 3, requires_grad=True)
    # t should have size (10,)
    t = pyad.zeros(3, dtype=pyad.int64)
    # pyad's message starts lower case ("nll_loss(): expected input batch_size ...")
    with pytest.raises(ValueError, match="(?i)Expected.*batch_size"):
        F.nll_loss(x, t)


def test_nll_loss_out_of_bounds_ignore_index():
    a = _rng(39).standard_normal((6, 3))
    t = np.array([0, 1, 255, 0, 1, 2])
    for reduction in ["mean", "none"]:
        tx, px = _pair(a, True)
        t_l = tF.nll_loss(tx, torch.tensor(t), ignore_index=255, reduction=reduction)
        p_l = F.nll_loss(px, pyad.tensor(t), ignore_index=255, reduction=reduction)
        _close(p_l, t_l)
        t_l.sum().backward()
        p_l.sum().backward()
        _close(px.grad, tx.grad)


def test_cross_entropy_label_smoothing_errors():
    N, C = 3, 4
    for inp, target in [(pyad.randn(N, C), pyad.tensor([0, 1, 3])),
                        (pyad.randn(N, C), pyad.randn(N, C))]:
        loss = nn.CrossEntropyLoss(label_smoothing=1.2)
        with pytest.raises(RuntimeError, match=r"label_smoothing must be between 0\.0"):
            loss(inp, target)


def test_cross_entropy_loss_one_hot_target():
    rng = _rng(40)
    for k in range(5):
        N, C = 5, 4
        other_dims = [int(rng.integers(2, 5)) for _ in range(k)]
        inp = pyad.tensor(rng.standard_normal((N, C, *other_dims)), requires_grad=True)
        target = pyad.tensor(rng.integers(0, C, (N, *other_dims)))
        weight = pyad.tensor(np.abs(rng.standard_normal(C)))
        target_one_hot = F.one_hot(target, num_classes=C).to(inp.dtype)
        target_one_hot = target_one_hot.permute(0, -1, *range(1, target_one_hot.dim() - 1))
        for reduction in ["none", "sum"]:
            for w in [None, weight]:
                m = nn.CrossEntropyLoss(weight=w, reduction=reduction)
                output = m(inp, target)
                output_one_hot = m(inp, target_one_hot)
                np.testing.assert_allclose(output.data, output_one_hot.data, rtol=1e-12,
                                           atol=1e-12)


def test_cross_entropy_label_smoothing_consistent_index_target_and_probs():
    N, C = 10, 4
    rng = _rng(41)
    for k in range(5):
        for reduction in ["none", "mean", "sum"]:
            for label_smoothing in [0.05, 0.15]:
                other_dims = [int(rng.integers(2, 5)) for _ in range(k)]
                inp = pyad.tensor(rng.standard_normal((N, C, *other_dims)),
                                  requires_grad=True)
                target = rng.integers(0, C, (N, *other_dims))
                proba = np.moveaxis(np.eye(C)[target], -1, 1)
                # y_k^ls = y_k * (1 - label_smoothing) + label_smoothing / n_classes
                proba = np.where(proba == 1, 1 - label_smoothing + label_smoothing / C,
                                 label_smoothing / C)
                out_prob = nn.CrossEntropyLoss(reduction=reduction)(inp, pyad.tensor(proba))
                out_index = nn.CrossEntropyLoss(reduction=reduction,
                                                label_smoothing=label_smoothing)(
                    inp, pyad.tensor(target))
                np.testing.assert_allclose(out_prob.data, out_index.data, rtol=1e-7,
                                           atol=1e-5)


def test_loss_equal_input_target_shape():
    losses = {
        "mse_loss": lambda x, y: F.mse_loss(x, y),
        "l1_loss": lambda x, y: F.l1_loss(x, y),
        "smooth_l1_loss": lambda x, y: F.smooth_l1_loss(x, y),
        "huber_loss": lambda x, y: F.huber_loss(x, y),
        "kl_div": lambda x, y: F.kl_div(x, y),
        "poisson_nll_loss": lambda x, y: F.poisson_nll_loss(x, y),
    }
    inp = pyad.randn(3, 5)
    target = pyad.randn(5, 3)
    for name, fn in losses.items():
        with pytest.raises(Exception):
            fn(inp, target)


def test_bce_loss_always_nonnegative():
    for val in (1.0, 0.0):
        target = pyad.full((5,), val)
        inp = pyad.full((5,), val)
        assert (nn.BCELoss()(inp, target) < 0).sum().item() == 0


def test_bce_with_logits_raises_if_target_and_input_are_different_size():
    with pytest.raises(ValueError):
        nn.BCEWithLogitsLoss()(pyad.rand(5, 1), pyad.rand(5))
    with pytest.raises(ValueError):
        nn.BCEWithLogitsLoss()(pyad.rand(5), pyad.rand(5, 1))


def test_bce_with_logits_gives_same_result_as_sigmoid_and_bce_loss():
    sigmoid = nn.Sigmoid()
    rng = _rng(42)
    target = pyad.tensor(rng.random((64, 4)))
    output = pyad.tensor(rng.random((64, 4)) - 0.5)
    _close(nn.BCEWithLogitsLoss()(output, target), nn.BCELoss()(sigmoid(output), target).data)
    weight = pyad.tensor(rng.random(4))
    _close(nn.BCEWithLogitsLoss(weight)(output, target),
           nn.BCELoss(weight)(sigmoid(output), target).data)
    target = pyad.zeros(4, 1, dtype=pyad.float64)
    output = pyad.full((4, 1), -100.0, dtype=pyad.float64)
    _close(nn.BCEWithLogitsLoss()(output, target), nn.BCELoss()(sigmoid(output), target).data)
    _close(nn.BCEWithLogitsLoss(reduction="none")(output, target),
           nn.BCELoss(reduction="none")(sigmoid(output), target).data)
    weight = pyad.tensor(rng.random(1))
    _close(nn.BCEWithLogitsLoss(weight)(output, target),
           nn.BCELoss(weight)(sigmoid(output), target).data)


def test_bce_with_logits_has_correct_grad_at_zero():
    output = pyad.zeros(3, 1, requires_grad=True)
    target = pyad.zeros(3, 1)
    nn.BCEWithLogitsLoss(reduction="sum")(output, target).backward()
    np.testing.assert_array_equal(output.grad.data, np.full((3, 1), 0.5, np.float32))


def test_bce_with_logits_broadcasts_weights():
    rng = _rng(43)
    target = pyad.tensor(rng.random((16, 4)))
    output = pyad.tensor(rng.random((16, 4)) - 0.5)
    for wshape in [(4,), (16, 1)]:
        weight = rng.random(wshape)
        out1 = nn.BCEWithLogitsLoss(pyad.tensor(weight))(output, target)
        out2 = nn.BCEWithLogitsLoss(pyad.tensor(np.broadcast_to(weight, (16, 4)).copy()))(
            output, target)
        np.testing.assert_allclose(out1.data, out2.data, rtol=1e-12)


def test_bce_loss_broadcasts_weights():
    sigmoid = nn.Sigmoid()
    rng = _rng(44)
    target = pyad.tensor(rng.random((16, 4)))
    output = sigmoid(pyad.tensor(rng.random((16, 4)) - 0.5))
    for wshape in [(4,), (16, 1)]:
        weight = rng.random(wshape)
        out1 = nn.BCELoss(pyad.tensor(weight))(output, target)
        out2 = nn.BCELoss(pyad.tensor(np.broadcast_to(weight, (16, 4)).copy()))(output, target)
        np.testing.assert_allclose(out1.data, out2.data, rtol=1e-12)


# --------------------------------------------------------------------------- normalization

def test_GroupNorm_raises_error_if_one_value_per_group():
    x = pyad.rand(10)[None, :, None]
    with pytest.raises(ValueError):
        nn.GroupNorm(10, 10)(x)


def test_LayerNorm_general():
    rng = _rng(45)
    for i in range(2, 6):
        shape = [int(v) for v in rng.integers(3, 6, i)]
        x = pyad.tensor(rng.uniform(0, 10, shape))
        normalized_ndim = int(rng.integers(1, i))
        normalized_shape = shape[-normalized_ndim:]
        unnormalized_shape = shape[:-normalized_ndim]
        # LN normalizes to mean 0 and stddev 1
        ln = nn.LayerNorm(normalized_shape, eps=0).double()
        ln.weight.data[...] = 1
        ln.bias.data[...] = 0
        out = ln(x).data.reshape(unnormalized_shape + [-1])
        assert abs(np.abs(out.mean(-1)).mean()) < 1e-5
        assert abs(np.abs(out.var(-1)).mean() - 1) < 1e-5
        # LN applies weight and bias correctly
        scale, bias = rng.uniform(0.2, 2, 2)
        ln.weight.data[...] = scale
        ln.bias.data[...] = bias
        out = ln(x).data.reshape(unnormalized_shape + [-1])
        assert abs(np.abs(out.mean(-1)).mean() - bias) < 1e-5
        assert abs(np.abs(out.var(-1)).mean() - scale ** 2) < 1e-5

    bad_norm_shape_input_shape = {(): (), (2, 3): (3,), (2,): (1, 2, 3), (10,): (2, 3),
                                  10: (2, 3)}
    for norm_shape, input_shape in bad_norm_shape_input_shape.items():
        ln = nn.LayerNorm(norm_shape)
        with pytest.raises(RuntimeError):
            ln(pyad.tensor(rng.uniform(0, 10, input_shape)))


def test_GroupNorm_general():
    rng = _rng(46)
    good_shape_g = {(1, 2, 3, 4): 2, (2, 3, 10): 3, (3, 1, 1, 1, 2): 1, (2, 6, 4, 2, 2): 3,
                    (1, 256, 1, 1): 32}
    for (shape, g) in good_shape_g.items():
        for grad in (True, False):
            x = pyad.tensor(rng.uniform(0, 10, shape), requires_grad=grad)
            b, c = shape[0], shape[1]
            # GN normalizes to mean 0 and stddev 1
            gn = nn.GroupNorm(g, c, eps=0).double()
            gn.weight.data[...] = 1
            gn.bias.data[...] = 0
            output = gn(x)
            out = output.data.reshape(b, g, -1)
            assert np.abs(out.mean(-1)).mean() < 1e-5
            assert abs(np.abs(out.var(-1)).mean() - 1) < 1e-5
            if grad:
                output.backward(pyad.tensor(rng.standard_normal(shape)))
            # GN applies weight and bias correctly
            scale = rng.uniform(0.2, 2, c)
            bias = rng.uniform(0.2, 2, c)
            gn.weight.data[...] = scale
            gn.bias.data[...] = bias
            out = gn(x).data.reshape(b, c, -1)
            out_normed = ((out - bias.reshape(c, 1)) / scale.reshape(c, 1)).reshape(b, g, -1)
            assert np.abs(out_normed.mean(-1)).mean() < 1e-5
            assert abs(np.abs(out_normed.var(-1)).mean() - 1) < 1e-5

    bad_shape_g = {(1, 2, 3, 4): 3, (2, 3, 10): 2, (3, 1, 1, 1, 2): 10, (2, 6, 4, 2, 2): 4}
    for shape, g in bad_shape_g.items():
        with pytest.raises(ValueError):
            nn.GroupNorm(g, shape[1])


def _test_InstanceNorm_general(cls, a):
    b, c = a.shape[0], a.shape[1]
    input_var = pyad.tensor(a, requires_grad=True)
    IN = cls(c, eps=0).double()
    output = IN(input_var)
    out = output.data.reshape(b * c, -1)
    assert np.abs(out.mean(1)).mean() < 1e-5
    assert abs(np.abs(out.var(1)).mean() - 1) < 1e-5
    # eval mode doesn't change behavior (track_running_stats=False)
    grad_out = pyad.tensor(_rng(47).standard_normal(output.shape))
    res1 = output.data.copy()
    output.backward(grad_out)
    grad1 = input_var.grad.data.copy()
    IN.eval()
    output = IN(input_var)
    input_var.grad = None
    output.backward(grad_out)
    np.testing.assert_array_equal(res1, output.data)
    np.testing.assert_array_equal(grad1, input_var.grad.data)

    # track_running_stats=True and momentum=1: the running stats are the input's
    # mean / unbiased var
    IN = cls(c, momentum=1, eps=0, track_running_stats=True).double()
    IN(input_var)
    mean = np.moveaxis(a, 1, 0).reshape(c, -1).mean(1)
    var = np.moveaxis(a, 1, 0).reshape(c, b, -1).var(2, ddof=1)
    assert np.abs(mean - IN.running_mean.data).mean() < 1e-5
    assert np.abs(var.mean(1) - IN.running_var.data).mean() < 1e-5

    # eval: adding X * std to a channel makes that output channel's mean X
    IN.eval()
    delta = (np.sqrt(IN.running_var.data) * np.arange(c)).reshape((-1,) + (1,) * (a.ndim - 2))
    output = IN(pyad.tensor(a + delta))
    np.testing.assert_allclose(np.moveaxis(output.data, 1, 0).reshape(c, -1).mean(1),
                               np.arange(c), atol=1e-5)


def test_InstanceNorm1d_general():
    _test_InstanceNorm_general(nn.InstanceNorm1d, _rng(48).random((4, 3, 9)))


def test_InstanceNorm2d_general():
    _test_InstanceNorm_general(nn.InstanceNorm2d, _rng(49).random((4, 3, 5, 6)))


def test_InstanceNorm3d_general():
    _test_InstanceNorm_general(nn.InstanceNorm3d, _rng(50).random((3, 4, 3, 4, 5)))


def test_instancenorm_raises_error_if_less_than_one_value_per_channel():
    x = pyad.rand(10)[None, :, None]
    with pytest.raises(ValueError):
        nn.InstanceNorm1d(10)(x)


def test_instancenorm_raises_error_for_single_spatial_element_during_training():
    BATCH_SIZE, NUM_CHANNELS = 10, 3
    for i, norm in enumerate([nn.InstanceNorm1d, nn.InstanceNorm2d, nn.InstanceNorm3d]):
        m = norm(NUM_CHANNELS, track_running_stats=True)
        inp = pyad.randn(BATCH_SIZE, NUM_CHANNELS, *[1] * (i + 1))
        with pytest.raises(ValueError):
            m(inp)
        # single spatial element is fine in eval
        m.eval()
        m(inp)


def test_batchnorm_update_stats():
    module = nn.BatchNorm1d(3)
    data = pyad.rand(4, 3)
    # training pass
    old_mean = module.running_mean.data.copy()
    old_var = module.running_var.data.copy()
    old_nbt = int(module.num_batches_tracked.item())
    module(data)
    assert not np.array_equal(old_mean, module.running_mean.data)
    assert not np.array_equal(old_var, module.running_var.data)
    assert old_nbt + 1 == int(module.num_batches_tracked.item())
    # eval pass
    module.eval()
    old_mean = module.running_mean.data.copy()
    old_var = module.running_var.data.copy()
    old_nbt = int(module.num_batches_tracked.item())
    module(data)
    np.testing.assert_array_equal(old_mean, module.running_mean.data)
    np.testing.assert_array_equal(old_var, module.running_var.data)
    assert old_nbt == int(module.num_batches_tracked.item())


def test_batchnorm_load_state_dict():
    bn = nn.BatchNorm2d(3)
    assert int(bn.state_dict()["num_batches_tracked"].item()) == 0
    bn.num_batches_tracked = pyad.tensor(10)
    assert int(bn.state_dict()["num_batches_tracked"].item()) == 10
    bn.load_state_dict({}, strict=False)
    assert int(bn.state_dict()["num_batches_tracked"].item()) == 10


# --------------------------------------------------------------------------- clip_grad_norm_

@pytest.mark.parametrize("foreach", [False, True])
def test_clip_grad_norm_error_if_nonfinite(foreach):
    inf, nan = math.inf, math.nan
    norms_pos = [0.1, 1, 2, 3.5, inf]
    norms_neg = [-0.1, -1, -2, -3.5]
    norms_except_0 = norms_pos + norms_neg
    norms_all = norms_except_0 + [0]
    # (grad_only_one_elem, prefix_finite_grad_param, scalars, norms_nonfinite, norms_finite)
    test_cases = [
        (False, False, [inf, -inf], norms_except_0, [0]),
        (False, True, [inf, -inf], norms_pos, norms_neg + [0]),
        (True, False, [inf, -inf], norms_pos, norms_neg + [0]),
        (True, True, [inf, -inf], norms_pos, norms_neg + [0]),
        (False, False, [nan], norms_except_0, [0]),
        (False, True, [nan], norms_except_0, [0]),
        (True, False, [nan], norms_except_0, [0]),
        (True, True, [nan], norms_except_0, [0]),
        (False, False, [2e22, -2e22], [], norms_all),
        (False, True, [2e22, -2e22], [], norms_all),
        (True, False, [2e22, -2e22], [], norms_all),
        (True, True, [2e22, -2e22], [], norms_all),
        (False, False, [2e200, -2e200], [3.5, 2, -2, -3.5], [inf, 1, 0.1, 0, -1, -0.1]),
        (False, True, [2e200, -2e200], [3.5, 2], norms_neg + [inf, 1, 0.1, 0]),
        (True, False, [2e200, -2e200], [3.5, 2], norms_neg + [inf, 1, 0.1, 0]),
        (True, True, [2e200, -2e200], [3.5, 2], norms_neg + [inf, 1, 0.1, 0]),
    ]

    def gen_parameters(scalar, grad_only_one_elem, prefix_finite_grad_param):
        param = pyad.ones(10, dtype=pyad.float64, requires_grad=True)
        if grad_only_one_elem:
            param[1].mul(scalar).sum().backward()
        else:
            param.mul(scalar).sum().backward()
        if prefix_finite_grad_param:
            prefix_param = pyad.ones(1, dtype=pyad.float64, requires_grad=True)
            prefix_param.mul(1).sum().backward()
            return [prefix_param, param]
        return [param]

    def run_test_case(norm_type, error_if_nonfinite, scalar, grad_only_one_elem,
                      prefix_finite_grad_param, is_norm_nonfinite):
        parameters = gen_parameters(scalar, grad_only_one_elem, prefix_finite_grad_param)
        if is_norm_nonfinite and error_if_nonfinite:
            grads_before = [p.grad.data.copy() for p in parameters]
            with pytest.raises(RuntimeError,
                               match=f"The total norm of order {float(norm_type)} for gradients"):
                nn.utils.clip_grad_norm_(parameters, 1, norm_type=norm_type,
                                         error_if_nonfinite=True, foreach=foreach)
            # grads do not change when the error is raised
            for before, p in zip(grads_before, parameters):
                np.testing.assert_array_equal(before, p.grad.data)
        else:
            nn.utils.clip_grad_norm_(parameters, 1, norm_type=norm_type,
                                     error_if_nonfinite=error_if_nonfinite, foreach=foreach)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)     # numpy's overflow warnings
        for grad_only_one_elem, prefix, scalars, norms_nonfinite, norms_finite in test_cases:
            for error_if_nonfinite in [False, True]:
                for norm_type in norms_nonfinite:
                    for scalar in scalars:
                        run_test_case(norm_type, error_if_nonfinite, scalar, grad_only_one_elem,
                                      prefix, True)
                for norm_type in norms_finite:
                    for scalar in scalars:
                        run_test_case(norm_type, error_if_nonfinite, scalar, grad_only_one_elem,
                                      prefix, False)


# --------------------------------------------------------------------------- weight / spectral norm

def test_weight_norm_pickle():
    m = nn.utils.weight_norm(nn.Linear(5, 7))
    m = pickle.loads(pickle.dumps(m))
    assert isinstance(m, nn.Linear)


def test_spectral_norm_pickle():
    m = nn.utils.spectral_norm(nn.Linear(5, 7))
    m = pickle.loads(pickle.dumps(m))
    assert isinstance(m, nn.Linear)


def test_spectral_norm_dim():
    inp = pyad.randn(2, 3, 10, 12)
    m = nn.utils.spectral_norm(nn.ConvTranspose2d(3, 4, (5, 6)))
    # this should not run into incompatible shapes
    m(inp)
    # u refers to the same dimension
    assert tuple(m.weight_u.shape) == tuple(m.weight_orig[0, :, 0, 0].shape)


def test_spectral_norm_forward():
    inp = pyad.randn(3, 5, dtype=pyad.float64)
    m = nn.utils.spectral_norm(nn.Linear(5, 7).double())
    # naive forward
    _weight, _bias, _u = m.weight_orig.data.copy(), m.bias.data, m.weight_u.data.copy()
    _weight_mat = _weight.reshape(_weight.shape[0], -1)
    _v = _weight_mat.T @ _u
    _v = _v / max(np.linalg.norm(_v), 1e-12)
    _u = _weight_mat @ _v
    _u = _u / max(np.linalg.norm(_u), 1e-12)
    _weight = _weight / (_u @ (_weight_mat @ _v))
    out_hat = inp.data @ _weight.T + _bias
    expect_out = m(inp)
    np.testing.assert_allclose(expect_out.data, out_hat, rtol=1e-10, atol=1e-12)


# --------------------------------------------------------------------------- state_dict hooks

def _hook_to_pickle(*args, **kwargs):
    pass


def _sd_equal(a, b):
    assert list(a) == list(b)
    for k in a:
        np.testing.assert_array_equal(a[k].data, b[k].data)


def test_load_state_dict_pre_hook():
    m = nn.Linear(10, 10)
    m_state_dict = m.state_dict()
    m_load = nn.Linear(10, 10)
    hook_called = 0

    def hook_without_module(state_dict, prefix, local_metadata, strict, missing_keys,
                            unexpected_keys, error_msgs):
        _sd_equal(m_state_dict, state_dict)
        nonlocal hook_called
        hook_called += 1

    def hook_with_module(module, state_dict, prefix, local_metadata, strict, missing_keys,
                         unexpected_keys, error_msgs):
        _sd_equal(m_state_dict, state_dict)
        assert m_load is module
        nonlocal hook_called
        hook_called += 1

    hook_called = 0
    m_load._register_load_state_dict_pre_hook(hook_without_module)
    m_load.load_state_dict(m_state_dict)
    assert hook_called == 1

    hook_called = 0
    m_load._register_load_state_dict_pre_hook(hook_with_module, True)
    m_load.load_state_dict(m_state_dict)
    assert hook_called == 2


def test_load_state_dict_module_pre_hook():
    hook_called = 0

    class MyModule(nn.Module):
        def __init__(self):
            super().__init__()
            self.foo = Parameter(pyad.rand(10))

        def my_pre_load_hook(self, state_dict, prefix, local_metadata, strict, missing_keys,
                             unexpected_keys, error_msgs):
            assert [] == error_msgs
            assert [] == unexpected_keys
            assert [] == missing_keys
            assert strict
            nonlocal hook_called
            hook_called += 1

        def my_pre_load_hook_with_module(self, module, state_dict, prefix, local_metadata,
                                         strict, missing_keys, unexpected_keys, error_msgs):
            assert [] == error_msgs
            assert [] == unexpected_keys
            assert [] == missing_keys
            assert strict
            assert self is module
            nonlocal hook_called
            hook_called += 1

    class MyModuleContainer(nn.Module):
        def __init__(self, mod):
            super().__init__()
            self.mod = mod

    for ctor in [MyModuleContainer, lambda x: x]:
        m = ctor(MyModule())
        state_dict = m.state_dict()
        mod = m.mod if isinstance(m, MyModuleContainer) else m

        hook_called = 0
        mod._register_load_state_dict_pre_hook(mod.my_pre_load_hook)
        m.load_state_dict(state_dict)
        assert hook_called == 1

        hook_called = 0
        mod._register_load_state_dict_pre_hook(mod.my_pre_load_hook_with_module, True)
        m.load_state_dict(state_dict)
        assert hook_called == 2


def test_register_state_dict_pre_hook():
    _state_dict_prefix = "foo."
    state_dict_pre_hook_count = 0
    keep_var_setting = False

    class MyModule(nn.Module):
        def __init__(self):
            super().__init__()
            self.a = nn.Sequential(nn.Linear(3, 3), nn.Linear(3, 3), nn.Linear(3, 3))

        def forward(self, x):
            return self.a(x)

    def my_state_dict_pre_hook(module, prefix, keep_vars):
        assert keep_vars == keep_var_setting
        nonlocal state_dict_pre_hook_count
        state_dict_pre_hook_count += 1
        assert prefix.startswith(_state_dict_prefix)

    model = MyModule()
    assert len(list(model.named_modules())) == 5
    for mod in model.modules():
        mod.register_state_dict_pre_hook(my_state_dict_pre_hook)
    # submodules run the hook as well
    for keep_var_setting in [True, False]:
        state_dict_pre_hook_count = 0
        model.state_dict(prefix=_state_dict_prefix, keep_vars=keep_var_setting)
        assert state_dict_pre_hook_count == 5


def test_no_extra_ref_to_module():
    import gc
    import weakref
    try:
        gc.disable()
        m = nn.Linear(10, 10)
        m._register_load_state_dict_pre_hook(_hook_to_pickle, True)
        weak_m = weakref.ref(m)
        del m
        assert weak_m() is None
    finally:
        gc.enable()


def test_pickled_hook():
    m = nn.Linear(10, 10)
    m._register_load_state_dict_pre_hook(_hook_to_pickle, True)
    pickle.loads(pickle.dumps(m))


# --------------------------------------------------------------------------- assign / to_empty

def test_load_state_dict_assign_shape_stride():
    # the assigned Variable may differ from the initial one in everything but shape
    class MyModule(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = nn.Linear(3, 5)
            self.bn = nn.BatchNorm1d(5)

        def forward(self, input):
            return self.bn(self.fc1(input))

    net = MyModule()
    state_dict = net.state_dict(keep_vars=True)
    # loading is fine when the strides differ
    new_w = pyad.randn(3, 5).transpose(0, 1)
    state_dict["fc1.weight"] = new_w
    net2 = MyModule()
    net2.load_state_dict(state_dict, strict=False, assign=True)
    np.testing.assert_array_equal(net2.fc1.weight.data, new_w.data)
    # torch's assign: a plain tensor becomes a Parameter keeping the module's requires_grad
    assert isinstance(net2.fc1.weight, Parameter)
    assert net2.fc1.weight.requires_grad
    state_dict["fc1.weight"] = pyad.randn(2, 4)
    with pytest.raises(RuntimeError,
                       match="size mismatch for fc1.weight: copying a param with shape"):
        net2.load_state_dict(state_dict, strict=False, assign=True)


def test_load_state_dict_assign_matches_torch():
    # assign=True takes the state_dict's objects (no copy), as torch's
    for lib in (torch, pyad):
        m = lib.nn.Linear(3, 2)
        w = lib.nn.Parameter(lib.zeros(2, 3), requires_grad=False)
        b = lib.ones(2)
        m.load_state_dict({"weight": w, "bias": b}, assign=True)
        assert m.weight is w
        # the assigned Parameter takes the module parameter's requires_grad
        assert m.weight.requires_grad
        assert isinstance(m.bias, lib.nn.Parameter)
        assert m.bias.requires_grad
        m.weight.requires_grad_(False)
        w2 = lib.nn.Parameter(lib.zeros(2, 3))
        m.load_state_dict({"weight": w2, "bias": b}, assign=True)
        assert m.weight is w2
        assert not m.weight.requires_grad


def test_module_to_empty_non_recursive():
    class Layer(nn.Module):
        def __init__(self, in_features, out_features):
            super().__init__()
            self.weight = Parameter(pyad.randn(in_features, out_features))
            self.register_buffer("buf", pyad.randn(out_features))

        def forward(self, x):
            return x @ self.weight + self.buf

    class MyModule(nn.Module):
        def __init__(self, in_features, out_features):
            super().__init__()
            self.weight = Parameter(pyad.randn(in_features, out_features))
            self.register_buffer("buf1", pyad.randn(out_features))
            self.layer = Layer(out_features, out_features)

        def forward(self, x):
            return self.layer(x @ self.weight + self.buf1)

    m = MyModule(3, 5)
    child = [v.data for v in (*m.layer.parameters(), *m.layer.buffers())]
    weight, buf1 = m.weight, m.buf1
    m.to_empty(device="cpu", recurse=False)
    # the parent's own parameters and buffers have new storage (same shapes, dtypes)
    assert m.weight is weight and isinstance(m.weight, Parameter) and m.weight.requires_grad
    assert tuple(m.weight.shape) == (3, 5) and tuple(m.buf1.shape) == (5,)
    assert not np.shares_memory(m.buf1.data, buf1.data)
    # the children's are untouched
    for old, v in zip(child, (*m.layer.parameters(), *m.layer.buffers())):
        assert v.data is old
    m(pyad.randn(2, 3))


def test_module_to_empty():
    class MyModule(nn.Module):
        def __init__(self, in_features, out_features):
            super().__init__()
            self.weight = Parameter(pyad.randn(in_features, out_features))

        def forward(self, x):
            return x @ self.weight

    inp = pyad.randn(5, 10)
    m = MyModule(10, 1)
    m.to_empty(device="cpu")
    m(inp)
    with pyad.no_grad():
        nn.init.kaiming_uniform_(m.weight)
    assert tuple(m(inp).shape) == (5, 1)


# --------------------------------------------------------------------------- a few more

def test_max_unpool():
    # 1D
    output, indices = F.max_pool1d(pyad.randn(1, 1, 4), 2, stride=2, return_indices=True)
    np.testing.assert_array_equal(F.max_unpool1d(output, indices, 2).data,
                                  F.max_unpool1d(output, indices, 2, stride=2).data)
    # list / tuple output_size
    inp = pyad.randn(1, 1, 5, dtype=pyad.float64, requires_grad=True)
    output, indices = F.max_pool1d(inp, 2, stride=2, return_indices=True)
    np.testing.assert_array_equal(
        F.max_unpool1d(output, indices, 2, stride=2, output_size=inp.shape).data,
        F.max_unpool1d(output, indices, 2, stride=2, output_size=list(inp.shape)).data)
    assert pyad.autograd.gradcheck(lambda o: F.max_unpool1d(o, indices, 2), (output,))
    # 2D
    output, indices = F.max_pool2d(pyad.randn(1, 1, 4, 4, dtype=pyad.float64,
                                              requires_grad=True),
                                   2, stride=2, return_indices=True)
    np.testing.assert_array_equal(F.max_unpool2d(output, indices, 2).data,
                                  F.max_unpool2d(output, indices, 2, stride=2).data)
    assert pyad.autograd.gradcheck(lambda o: F.max_unpool2d(o, indices, 2), (output,))


def test_type_casts():
    # PackedSequence casts, then unpacking gives that dtype
    casts = {"double": np.float64, "float": np.float32, "half": np.float16,
             "long": np.int64, "int": np.int32, "short": np.int16, "char": np.int8,
             "byte": np.uint8}
    for enforce_sorted in [True, False]:
        ordered = _ordered_sequence(1)
        lengths = [s.shape[0] for s in ordered]
        padded = rnn_utils.pad_sequence(ordered)
        packed = rnn_utils.pack_padded_sequence(padded, lengths, enforce_sorted=enforce_sorted)
        for cast_str, dtype in casts.items():
            masked = getattr(packed, cast_str)()
            unpacked, _ = rnn_utils.pad_packed_sequence(masked)
            assert unpacked.dtype == dtype, cast_str
            if dtype != np.uint8:      # the values lie in [-128, 128)
                np.testing.assert_array_equal(unpacked.data, padded.data.astype(dtype))


def test_embedding_bag_empty_input():
    m, n = 4, 3
    x = pyad.tensor([], dtype=pyad.int64)
    embed = nn.EmbeddingBag(m, n)
    for offsets in ([0], [0, 0]):
        output = embed(input=x, offsets=pyad.tensor(offsets, dtype=pyad.int64))
        assert tuple(output.shape) == (len(offsets), n)
        assert not np.any(output.data)


def test_embedding_bag_non_contiguous_weight():
    weight = pyad.randn(3, 4, dtype=pyad.float64)
    weight_non_contig = weight[:, :3]              # non-contiguous strided
    weight_contig = weight_non_contig.clone().contiguous()
    index = pyad.tensor([0, 1, 2], dtype=pyad.int64)
    offsets = pyad.tensor([0, 2], dtype=pyad.int64)
    for mode in ["sum", "mean", "max"]:
        out_nc = F.embedding_bag(input=index, weight=weight_non_contig, offsets=offsets,
                                 mode=mode)
        out_c = F.embedding_bag(input=index, weight=weight_contig, offsets=offsets, mode=mode)
        np.testing.assert_array_equal(out_nc.data, out_c.data)


def test_channel_shuffle():
    # 3D
    x = pyad.tensor([[[1, 2], [5, 6], [9, 10], [13, 14]]])
    y_ref = [[[1, 2], [9, 10], [5, 6], [13, 14]]]
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        y = F.channel_shuffle(x, 2)
    assert len(w) == 0
    assert y.tolist() == y_ref
    # 4D
    x = pyad.tensor([[[[1, 2], [3, 4]], [[5, 6], [7, 8]], [[9, 10], [11, 12]],
                      [[13, 14], [15, 16]]]])
    y_ref = [[[[1, 2], [3, 4]], [[9, 10], [11, 12]], [[5, 6], [7, 8]], [[13, 14], [15, 16]]]]
    assert F.channel_shuffle(x, 2).tolist() == y_ref
    assert nn.ChannelShuffle(2)(x).tolist() == y_ref
    # 5D
    x = pyad.tensor([[[[[1, 2]], [[3, 4]]], [[[5, 6]], [[7, 8]]], [[[9, 10]], [[11, 12]]],
                      [[[13, 14]], [[15, 16]]]]])
    y_ref = [[[[[1, 2]], [[3, 4]]], [[[9, 10]], [[11, 12]]], [[[5, 6]], [[7, 8]]],
              [[[13, 14]], [[15, 16]]]]]
    assert F.channel_shuffle(x, 2).tolist() == y_ref


@pytest.mark.parametrize("shape", [(1, 2, 5), (1, 2, 4, 5)])
def test_upsamplingNearestExact(shape):
    # test_upsamplingNearestExact1d / 2d: values and gradients against torch
    a = _rng(51).standard_normal(shape)
    for kw in [dict(scale_factor=2), dict(scale_factor=1.6), dict(size=(7,) * (len(shape) - 2))]:
        tx, px = _pair(a, True)
        t_out = tF.interpolate(tx, mode="nearest-exact", **kw)
        p_out = F.interpolate(px, mode="nearest-exact", **kw)
        _close(p_out, t_out)
        g = _rng(52).standard_normal(tuple(t_out.shape))
        t_out.backward(torch.tensor(g))
        p_out.backward(pyad.tensor(g))
        _close(px.grad, tx.grad)
