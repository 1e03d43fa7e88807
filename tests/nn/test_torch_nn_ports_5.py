"""A fifth batch of ports of PyTorch's own nn tests (pytorch/pytorch
``test/nn/test_convolution.py``, ``test/nn/test_embedding.py``, ``test/nn/test_dropout.py``
and ``test/test_transformers.py``) to pyad -- CPU, float32/float64, without device/dtype
decorators.  CUDA, cuDNN/oneDNN-backend selection, sparse gradients, quantization,
dynamo, meta tensors, nested tensors and the transformer fast path are left out.

The tests keep torch's names and the meaning of their assertions.  Expected values are the
hand-written values of torch's tests, SciPy's convolutions, or come from torch 2.13 run in
the test on the same inputs -- never from pyad itself.  Where torch's test draws random
weights, the torch module is built first and its weights are copied into the pyad twin.
"""
import itertools
import math

import numpy as np
import pytest

import pyad
import pyad.nn as nn
import pyad.nn.functional as F
from pyad.autograd import gradcheck, gradgradcheck

torch = pytest.importorskip("torch")
tnn = torch.nn
tF = torch.nn.functional

from _port_helpers import (_close, _close32, _eq, _pair, _rng,  # noqa: E402
                           _test_module_empty_input)


@pytest.fixture(autouse=True)
def _seeded():
    pyad.manual_seed(0)
    torch.manual_seed(0)
    yield


def _copy_params(tm, pm):
    """Copy the torch module's parameters (and buffers) into the pyad twin, same dtype."""
    sd = {k: pyad.tensor(v.detach().numpy().copy()) for k, v in tm.state_dict().items()}
    assert list(sd) == list(pm.state_dict()), (list(sd), list(pm.state_dict()))
    pm.load_state_dict(sd)
    return pm


# --------------------------------------------------------------------------- convolution
# pytorch/pytorch test/nn/test_convolution.py


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_invalid_conv1d(dtype):
    module = nn.Conv1d(in_channels=3, out_channels=33, kernel_size=10, stride=1,
                       bias=True).to(dtype=dtype)
    inp = pyad.randn(1, 3, 4).to(dtype=dtype)
    # pyad's wording (its messages start with "op(): "): the same sizes, the same meaning
    # as torch's "Calculated padded input size per channel: (4). Kernel size: (10).
    # Kernel size can't be greater than actual input size"
    with pytest.raises(RuntimeError, match=r"conv1d\(\): the \(dilated\) kernel size "
                       r"\(1, 10\) is larger than the padded input size \(1, 4\)"):
        module(inp)
    # negative stride
    module = nn.Conv1d(in_channels=3, out_channels=6, kernel_size=3, stride=-1,
                       bias=True).to(dtype=dtype)
    with pytest.raises(RuntimeError, match="non-positive stride is not supported"):
        module(pyad.randn(1, 3, 4).to(dtype=dtype))


def test_mismatch_shape_conv2d():
    x = pyad.randn(1, 10, 1, 28, 28)
    w = pyad.randn(6, 1, 5, 5)
    # pyad's wording of torch's "Expected 3D (unbatched) or 4D (batched) input to conv2d,
    # but got input of size: [1, 10, 1, 28, 28]"
    with pytest.raises(RuntimeError, match=r"conv2d\(\): expected a 3D \(unbatched\) or 4D "
                       r"\(batched\) input, got 5D with shape \[1, 10, 1, 28, 28\]"):
        F.conv2d(x, w)


def test_conv2d_discontiguous_weight():
    # https://github.com/pytorch/pytorch/issues/55781
    x = pyad.ones(64, 16, 16, 16)
    weight = pyad.arange(0, 1.0, 1 / 2.0 ** 10).reshape(32, 16, 1, 2)[:, :, :, ::2]
    assert not weight.is_contiguous()
    y = F.conv2d(x, weight, None)
    assert y.sum().item() == 4186112.0
    _eq(y, F.conv2d(x, weight.contiguous(), None))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_invalid_conv2d(dtype):
    module = nn.Conv2d(1, 1, kernel_size=3, dilation=2, stride=2).to(dtype=dtype)
    with pytest.raises(RuntimeError):
        module(pyad.empty(1, 1, 4, 4).to(dtype=dtype))

    module = nn.Conv2d(in_channels=3, out_channels=33, kernel_size=10, stride=1, bias=True)
    # pyad's wording of torch's "Calculated padded input size per channel: (1 x 1).
    # Kernel size: (10 x 10). Kernel size can't be greater than actual input size"
    with pytest.raises(RuntimeError, match=r"conv2d\(\): the \(dilated\) kernel size "
                       r"\(10, 10\) is larger than the padded input size \(1, 1\)"):
        module(pyad.randn(1, 3, 1, 1))

    for stride in (-1, 0):
        module = nn.Conv2d(in_channels=3, out_channels=6, kernel_size=4, stride=stride,
                           bias=True).to(dtype=dtype)
        with pytest.raises(RuntimeError, match="non-positive stride is not supported"):
            module(pyad.randn(1, 3, 4, 4).to(dtype=dtype))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_invalid_conv3d(dtype):
    module = nn.Conv3d(1, 1, kernel_size=3, dilation=2, stride=2).to(dtype=dtype)
    with pytest.raises(RuntimeError):
        module(pyad.empty(1, 1, 4, 4, 4).to(dtype=dtype))
    module = nn.Conv3d(1, 1, kernel_size=3, stride=-2)
    with pytest.raises(RuntimeError, match="non-positive stride is not supported"):
        module(pyad.empty(1, 1, 4, 4, 4))


def test_Conv2d_module_same_padding():
    x = pyad.rand(1, 1, 9, 20)
    module = nn.Conv2d(in_channels=1, out_channels=1, kernel_size=(5, 10), padding="same")
    expect = F.conv2d(x, module.weight, module.bias, padding="same")
    _close32(module(x), expect)

    module = nn.Conv2d(in_channels=1, out_channels=1, kernel_size=(3, 4), padding="same",
                       dilation=(1, 2))
    expect = F.conv2d(x, module.weight, module.bias, padding="same", dilation=(1, 2))
    _close32(module(x), expect)

    module = nn.Conv2d(in_channels=1, out_channels=1, kernel_size=(3, 4), padding="same",
                       padding_mode="reflect")
    x_padded = F.pad(x, [1, 2, 1, 1], mode="reflect")
    expect = F.conv2d(x_padded, module.weight, module.bias, padding="valid")
    _close32(module(x), expect)
    assert x.size() == expect.size()

    with pytest.raises(ValueError, match="Invalid padding string"):
        nn.Conv2d(in_channels=3, out_channels=33, kernel_size=10, padding="foo")
    for stride in (2, (1, 3), (4, 1)):
        with pytest.raises(ValueError, match="padding='same'"):
            nn.Conv2d(in_channels=3, out_channels=33, kernel_size=10, padding="same",
                      stride=stride)


def test_Conv3d_module_same_padding():
    x = pyad.rand(1, 1, 4, 4, 4)
    module = nn.Conv3d(in_channels=1, out_channels=1, kernel_size=(2, 3, 4), padding="same")
    expect = F.conv3d(x, module.weight, module.bias, padding="same")
    _close32(module(x), expect)

    module = nn.Conv3d(in_channels=1, out_channels=1, kernel_size=(2, 3, 4), padding="same",
                       dilation=(3, 2, 1))
    expect = F.conv3d(x, module.weight, module.bias, padding="same", dilation=(3, 2, 1))
    _close32(module(x), expect)

    module = nn.Conv3d(in_channels=1, out_channels=1, kernel_size=(2, 3, 4), padding="same",
                       padding_mode="circular")
    x_padded = F.pad(x, [1, 2, 1, 1, 0, 1], mode="circular")
    expect = F.conv3d(x_padded, module.weight, module.bias, padding="valid")
    _close32(module(x), expect)
    assert x.size() == expect.size()

    with pytest.raises(ValueError, match="Invalid padding string"):
        nn.Conv3d(in_channels=3, out_channels=33, kernel_size=10, padding="foo")
    for stride in (2, (1, 1, 3), (1, 4, 1), (5, 1, 1)):
        with pytest.raises(ValueError, match="padding='same'"):
            nn.Conv3d(in_channels=3, out_channels=33, kernel_size=10, padding="same",
                      stride=stride)


def test_Conv2d_inconsistent_types():
    inputs = pyad.randn(4, 1, 7, 7, dtype=pyad.float32)
    weights = pyad.randn(1, 1, 3, 3, dtype=pyad.float64)
    # inconsistent types should raise an exception
    with pytest.raises(RuntimeError):
        F.conv2d(inputs, weights)
    # but it should work with the same type
    F.conv2d(inputs.float(), weights.float())


def test_Conv2d_1x1():
    t_mod = tnn.Conv2d(2, 2, 1, bias=False).double()
    w = pyad.tensor(t_mod.weight.detach().numpy().copy(), requires_grad=True)
    inp = pyad.randn(1, 2, 5, 5, dtype=pyad.float64, requires_grad=True)
    assert gradcheck(F.conv2d, (inp, w))


@pytest.mark.parametrize("group_val", [24, 48, 23, 25])
@pytest.mark.parametrize("dilation", [1, 2])
def test_Conv2d_OneDNN(group_val, dilation):
    def run_once(lib, group_val, dilation):
        ifm = lib.ones([1, group_val, 6, 6], dtype=lib.float32)
        op = lib.nn.Conv2d(in_channels=group_val, out_channels=group_val, kernel_size=[3, 3],
                           stride=[2, 2], padding=[1, 1], dilation=[dilation, dilation],
                           groups=group_val, bias=False, padding_mode="zeros")
        with lib.no_grad():
            op.weight.copy_(lib.ones([group_val, 1, 3, 3], dtype=lib.float32))
        res = op(ifm)
        res.backward(lib.ones(tuple(res.shape), dtype=lib.float32))
        return op.weight.grad

    _eq(run_once(pyad, group_val, dilation), run_once(torch, group_val, dilation))


def test_conv_tbc():
    inp = np.random.default_rng(0).standard_normal((9, 4, 5))
    weight = np.random.default_rng(1).standard_normal((3, 5, 6))
    bias = np.random.default_rng(2).standard_normal(6)
    ti, pi = _pair(inp, True)
    tw, pw = _pair(weight, True)
    tb, pb = _pair(bias, True)
    assert gradcheck(lambda i, w, b: F.conv_tbc(i, w, b, 3), (pi, pw, pb))
    _close(F.conv_tbc(pi, pw, pb, 3), tF.conv_tbc(ti, tw, tb, 3))


def _run_grad_conv_test(func_forward, func_backward, tfunc_forward, dim, gradient):
    rng = _rng(dim)
    for kern, inp_size in [(3, 6), (3, 7), (4, 9)]:
        for batch, stride, padding, chan_in, chan_out, dilation in itertools.product(
                [1, 2], [1, 2], [0, 1, 2], [2], [3], [1]):
            for has_bias in [True, False]:
                input_shape = [batch, chan_in] + [inp_size] * dim
                weight_shape = [chan_out, chan_in] + [kern] * dim
                ti, pi = _pair(rng.standard_normal(input_shape).astype(np.float32), True)
                tw, pw = _pair(rng.standard_normal(weight_shape).astype(np.float32), True)
                tb, pb = (_pair(rng.standard_normal(chan_out).astype(np.float32), True)
                          if has_bias else (None, None))
                kw = dict(stride=stride, padding=padding, dilation=dilation)
                output = func_forward(pi, pw, bias=pb, **kw)
                g_np = rng.standard_normal(tuple(output.shape)).astype(np.float32)
                gradient_o = pyad.tensor(g_np)
                gradient_w = pyad.autograd.grad(
                    output, pi if gradient == "input" else pw, gradient_o)
                functional = func_backward(
                    input_shape if gradient == "input" else pi,
                    weight_shape if gradient == "weight" else pw,
                    gradient_o, **kw)
                _close(functional, gradient_w[0], atol=1e-5, rtol=1.3e-6)
                # and torch's autograd on the same numbers
                tout = tfunc_forward(ti, tw, bias=tb, **kw)
                tgrad = torch.autograd.grad(tout, ti if gradient == "input" else tw,
                                            torch.tensor(g_np))
                _close(functional, tgrad[0], atol=1e-4, rtol=1e-5)


@pytest.mark.parametrize("dim", [1, 2, 3])
@pytest.mark.parametrize("gradient", ["input", "weight"])
def test_grad_conv_input_weight(dim, gradient):
    """test_grad_conv{1,2,3}d_{input,weight}: torch.nn.grad.conv*d_input / _weight."""
    fwd = getattr(F, f"conv{dim}d")
    tfwd = getattr(tF, f"conv{dim}d")
    bwd = getattr(nn.grad, f"conv{dim}d_{gradient}")
    _run_grad_conv_test(fwd, bwd, tfwd, dim, gradient)


def test_functional_grad_conv():
    rng = _rng(3)
    for dim in (1, 2, 3):
        inp = pyad.tensor(rng.standard_normal((1, 1) + (5,) * dim), requires_grad=True)
        weight = pyad.tensor(rng.standard_normal((1, 1) + (3,) * dim), requires_grad=True)
        output = getattr(F, f"conv{dim}d")(inp, weight, dilation=2)
        grad_output = pyad.tensor(rng.standard_normal(tuple(output.shape)))
        gi, gw = pyad.autograd.grad(output, (inp, weight), grad_output)
        gi_f = getattr(nn.grad, f"conv{dim}d_input")(inp.shape, weight, grad_output,
                                                     dilation=2)
        _close(gi_f, gi)
        gw_f = getattr(nn.grad, f"conv{dim}d_weight")(inp, weight.shape, grad_output,
                                                      dilation=2)
        _close(gw_f, gw)


def test_functional_grad_conv2d():
    BATCH_SIZE, IN_CH, OUT_CH, SPATIAL = 4, 8, 16, 12   # torch: SPATIAL = 32
    rng = _rng(4)
    for stride, kernel_size, groups, dilation in itertools.product(
            [1, 2], [1, 3, 5], [1, 2, 4], [1, 2]):
        padding = kernel_size // 2
        inp = pyad.tensor(rng.uniform(-8.0, 8.0, (BATCH_SIZE, IN_CH, SPATIAL, SPATIAL)),
                          requires_grad=True)
        weight = pyad.tensor(rng.uniform(-4.0, 4.0, (OUT_CH, IN_CH // groups, kernel_size,
                                                     kernel_size)), requires_grad=True)
        kw = dict(stride=stride, padding=padding, dilation=dilation, groups=groups)
        output = F.conv2d(inp, weight, **kw)
        grad_output = pyad.tensor(rng.standard_normal(tuple(output.shape)))
        gi, gw = pyad.autograd.grad(output, (inp, weight), grad_output)
        _close(nn.grad.conv2d_input(inp.shape, weight, grad_output, **kw), gi)
        _close(nn.grad.conv2d_weight(inp, weight.shape, grad_output, **kw), gw)


def test_permute_conv2d_issue_120211():
    # torch runs a 1024x1024 image through radii 0..127; a 96x96 image and every 9th
    # radius keep the shape of the bug (a permuted, non-contiguous depthwise input) and
    # check the values against torch
    img = _rng(5).random((1, 96, 96, 3)).astype(np.float32)
    for radius in range(0, 48, 9):
        ti, pi = _pair(img)
        ti, pi = ti.permute(0, 3, 1, 2), pi.permute(0, 3, 1, 2)
        k = np.zeros([3, 1, 1, radius * 2 + 1], dtype=np.float32)
        k[:, :, :, radius] = 1.0
        k[:, :, :, 0] += 0.5
        tk, pk = _pair(k)
        out = F.conv2d(pi, pk, groups=pi.shape[-3])
        _close32(out, tF.conv2d(ti, tk, groups=ti.shape[-3]))


def test_conv3d_issue_120406():
    out = F.conv3d(pyad.ones(2, 3, 8, 9, 26), pyad.ones(3, 1, 1, 1, 17), groups=3)
    _eq(out, tF.conv3d(torch.ones(2, 3, 8, 9, 26), torch.ones(3, 1, 1, 1, 17), groups=3))


def test_conv1d_issue_120547():
    weight = pyad.ones([16, 1, 32])
    bias = pyad.ones([16])
    stride, padding, dilation, groups = (1, 16, 1, 16)
    x = _rng(6).random((1, 1, 16)).astype(np.float32)
    tx, px = _pair(x)
    out = F.conv1d(px.transpose(1, 2), weight, bias, stride, padding, dilation, groups)
    tout = tF.conv1d(tx.transpose(1, 2), torch.ones([16, 1, 32]), torch.ones([16]), stride,
                     padding, dilation, groups)
    _close32(out, tout)


def _run_conv_double_back_test(kern, stride, padding, chan_in, chan_out, batch_size,
                               inp_size, dilation, no_weight, groups=1, use_bias=True):
    rng = _rng(kern * 100 + stride * 10 + padding)
    x = pyad.tensor(rng.standard_normal((batch_size, chan_in, inp_size, inp_size)),
                    requires_grad=True)
    weight = pyad.tensor(rng.standard_normal((chan_out, chan_in // groups, kern, kern)),
                         requires_grad=not no_weight)
    bias = pyad.tensor(rng.standard_normal(chan_out), requires_grad=True) if use_bias else None

    def func(*inputs):
        if use_bias:
            lx, lweight, lbias = inputs
        else:
            (lx, lweight), lbias = inputs, None
        return F.conv2d(lx, lweight, lbias, stride, padding, dilation, groups)

    inputs = (x, weight, bias) if use_bias else (x, weight)
    dummy_out = func(*inputs)
    grad_y = pyad.tensor(rng.standard_normal(tuple(dummy_out.shape)), requires_grad=True)
    return gradgradcheck(func, inputs, (grad_y,))


def test_conv_double_backward_no_bias():
    assert _run_conv_double_back_test(3, 2, 1, 2, 4, 2, 5, 1, False, use_bias=True)


def test_conv_double_backward_groups():
    groups = 2
    assert _run_conv_double_back_test(3, 1, 2, 2 * groups, 4 * groups, 2, 6, 1, False,
                                      groups=groups)


def test_conv_double_backward_stride():
    for kern, inp_size, dilations in [(3, 5, [1, 2]), (3, 7, [1])]:
        for stride, padding, chan_in, chan_out, dilation in itertools.product(
                [2], [0, 1], [1], [2], dilations):
            assert _run_conv_double_back_test(kern, stride, padding, chan_in, chan_out, 2,
                                              inp_size, dilation, False)


def test_conv3d_valid_padding():
    x = pyad.rand(1, 1, 1, 1, 10)
    y = pyad.rand(1, 1, 1, 1, 4)
    _eq(F.conv3d(x, y, padding="valid"), F.conv3d(x, y))


def _abs_sum_backward_grads(f, x, y):
    x.grad, y.grad = None, None
    f(x, y).sum().abs().backward()
    gx, gy = x.grad, y.grad
    x.grad, y.grad = None, None
    return gx, gy


def test_conv3d_same_padding_backward():
    rng = _rng(7)
    x = pyad.tensor(rng.random((1, 1, 1, 11, 12)), requires_grad=True)
    y = pyad.tensor(rng.random((1, 1, 1, 2, 5)), requires_grad=True)
    gx_e, gy_e = _abs_sum_backward_grads(
        lambda a, b: F.conv3d(a, b, padding=(0, 1, 4), dilation=2), x, y)
    gx, gy = _abs_sum_backward_grads(
        lambda a, b: F.conv3d(a, b, padding="same", dilation=2), x, y)
    _close(gx, gx_e)
    _close(gy, gy_e)
    assert gradcheck(lambda a, b: F.conv3d(a, b, padding="same", dilation=2), (x, y),
                     nondet_tol=1e-5)
    assert gradgradcheck(lambda a, b: F.conv3d(a, b, padding="same", dilation=2), (x, y))

    y = pyad.tensor(rng.random((1, 1, 1, 4, 4)), requires_grad=True)
    gx_e, gy_e = _abs_sum_backward_grads(
        lambda a, b: F.conv3d(a, b, padding=2)[..., 1:, 1:], x, y)
    gx, gy = _abs_sum_backward_grads(lambda a, b: F.conv3d(a, b, padding="same"), x, y)
    _close(gx, gx_e)
    _close(gy, gy_e)
    assert gradcheck(lambda a, b: F.conv3d(a, b, padding="same"), (x, y), nondet_tol=1e-5)
    assert gradgradcheck(lambda a, b: F.conv3d(a, b, padding="same"), (x, y))


@pytest.mark.parametrize("dim", [1, 2])
def test_conv_valid_padding_backward(dim):
    """test_conv1d_valid_padding_backward / test_conv2d_valid_padding_backward."""
    conv = getattr(F, f"conv{dim}d")
    x = pyad.rand(*((1, 1) + (1,) * (dim - 1) + (10,)), requires_grad=True)
    y = pyad.rand(*((1, 1) + (1,) * (dim - 1) + (4,)), requires_grad=True)
    gx_e, gy_e = _abs_sum_backward_grads(lambda a, b: conv(a, b, padding=0), x, y)
    gx, gy = _abs_sum_backward_grads(lambda a, b: conv(a, b, padding="valid"), x, y)
    _eq(gx, gx_e)
    _eq(gy, gy_e)


def test_conv3d_valid_padding_backward():
    rng = _rng(8)
    x = pyad.tensor(rng.random((1, 1, 1, 1, 10)), requires_grad=True)
    y = pyad.tensor(rng.random((1, 1, 1, 1, 4)), requires_grad=True)
    gx_e, gy_e = _abs_sum_backward_grads(lambda a, b: F.conv3d(a, b, padding=0), x, y)
    gx, gy = _abs_sum_backward_grads(lambda a, b: F.conv3d(a, b, padding="valid"), x, y)
    _eq(gx, gx_e)
    _eq(gy, gy_e)
    assert gradcheck(lambda a, b: F.conv3d(a, b, padding="valid"), (x, y))
    assert gradgradcheck(lambda a, b: F.conv3d(a, b, padding="valid"), (x, y))


@pytest.mark.parametrize("N", [2, 3])
def test_conv_transpose_with_output_size_and_no_batch_dim(N):
    # https://github.com/pytorch/pytorch/issues/75889
    inp = pyad.randn(*((1, 15, 13) if N == 2 else (1, 15, 13, 13)))
    output_size = (1, 240, 200) if N == 2 else (1, 240, 200, 200)
    m = getattr(nn, f"ConvTranspose{N}d")(1, 1, kernel_size=16, stride=16, padding=7,
                                          bias=False)
    output = m(inp, output_size=output_size)
    assert tuple(output.shape) == output_size


@pytest.mark.parametrize("mode", ["valid", "same"])
@pytest.mark.parametrize("dim", [1, 2, 3])
def test_conv_vs_scipy(dim, mode):
    """test_conv1d_vs_scipy / test_conv2d_vs_scipy / test_conv3d_vs_scipy."""
    import scipy.signal
    rng = _rng(9 + dim)
    shapes = {1: ((1, 10), (1, 1, 4), (1, 1, 5)),
              2: ((1, 5, 10), (1, 1, 2, 4), (1, 1, 3, 5)),
              3: ((1, 5, 5, 10), (1, 1, 2, 2, 4), (1, 1, 2, 3, 5))}[dim]
    t = pyad.tensor(rng.uniform(-9, 9, shapes[0]).astype(np.float32))
    conv = getattr(F, f"conv{dim}d")
    for wshape in shapes[1:]:
        weight = pyad.tensor(rng.uniform(-9, 9, wshape).astype(np.float32))
        # SciPy in float64: the exact sums (torch's float32 conv happens to round as
        # SciPy's float32 does; pyad's sums in another order, as close to the truth)
        t_a = t.numpy().astype(np.float64)
        w_a = weight.numpy().astype(np.float64)
        t_a = t_a.reshape(-1) if dim == 1 else t_a[0]
        w_a = w_a.reshape(-1) if dim == 1 else w_a[0, 0]
        if dim == 2:
            expected = scipy.signal.convolve2d(t_a, w_a, mode=mode)
        else:
            expected = scipy.signal.convolve(t_a, w_a, mode=mode)
        tt = t
        kwargs = {"padding": mode}
        if mode == "same":
            p = []
            for d in range(dim):
                p += [weight.shape[-1 - d] // 2] * 2
            tt = F.pad(t, tuple(p))
            kwargs.pop("padding")
        actual = conv(tt, pyad.flip(weight, tuple(range(2, 2 + dim))), **kwargs).squeeze(0)
        if mode == "same":
            actual = actual[tuple(slice(0, s) for s in t.shape[1:])]
        if dim == 1:
            _close(actual, expected, atol=2e-5, rtol=2e-5)
        else:
            _close(actual, expected, atol=5e-6, rtol=2e-5)


def test_group_conv_empty():
    mod = nn.Conv2d(4, 4, stride=2, kernel_size=3, padding=1, groups=4)
    _test_module_empty_input(mod, pyad.randn(0, 4, 4, 4), check_size=False)


def test_group_convTranspose_empty():
    mod = nn.ConvTranspose2d(4, 4, stride=2, kernel_size=3, padding=1, groups=4)
    _test_module_empty_input(mod, pyad.randn(0, 4, 4, 4), check_size=False)


def test_convTranspose_empty():
    mod = nn.ConvTranspose2d(4, 4, stride=2, kernel_size=3, padding=1)
    _test_module_empty_input(mod, pyad.randn(0, 4, 4, 4), check_size=False)


def test_conv_noncontig_weights():
    rng = _rng(10)
    for dim in (1, 2, 3):
        for grouped in (False, True):
            nc = 3
            groups = 3 if grouped else 1
            w0 = rng.standard_normal([3] * dim)
            x0 = rng.standard_normal([1, nc] + [5] * dim)
            for name in (f"conv{dim}d", f"conv_transpose{dim}d"):
                tw = torch.tensor(w0).expand([nc, nc // groups] + [3] * dim).detach() \
                    .requires_grad_()
                pw = pyad.tensor(w0).expand([nc, nc // groups] + [3] * dim).detach() \
                    .requires_grad_()
                tx, px = _pair(x0, True)
                getattr(tF, name)(tx, tw, groups=groups).sum().backward()
                y = getattr(F, name)(px, pw, groups=groups)
                y.sum().backward()
                _close(px.grad, tx.grad)
                _close(pw.grad, tw.grad)


def test_conv_noncontig_weights_and_bias():
    # need floats to exercise https://github.com/pytorch/pytorch/issues/16018
    rng = _rng(11)
    for bias in [True, False]:
        conv1 = nn.Conv2d(3, 64, kernel_size=7, stride=2, padding=3, bias=bias)
        input_nc = pyad.tensor(rng.standard_normal((1, 3, 64, 64, 2)).astype(np.float32))[
            :, :, :, :, 1]
        input_c = input_nc.contiguous()
        weight_nc = pyad.tensor(rng.standard_normal((64, 3, 7, 7, 2)).astype(np.float32))[
            :, :, :, :, 1]
        conv1.weight = nn.Parameter(weight_nc)
        weight_c = conv1.weight.contiguous()
        if bias:
            bias_nc = pyad.tensor(rng.standard_normal((64, 2)).astype(np.float32))[:, 1]
            conv1.bias = nn.Parameter(bias_nc)
            bias_c = conv1.bias.contiguous()
        out1 = conv1(input_nc)
        conv1.weight = nn.Parameter(weight_c)
        if bias:
            conv1.bias = nn.Parameter(bias_c)
        out2 = conv1(input_c)
        _close32(out1, out2)


def test_Conv2d_naive_groups():
    # Check that grouped convolutions matches two half convolutions
    m = nn.Conv2d(4, 4, kernel_size=3, groups=2)
    i = pyad.randn(2, 4, 6, 6, requires_grad=True)
    output = m(i)
    grad_output = pyad.randn(2, 4, 4, 4)
    output.backward(grad_output)

    def half(sl):
        mh = nn.Conv2d(2, 2, kernel_size=3)
        with pyad.no_grad():
            mh.weight.copy_(m.weight[sl])
            mh.bias.copy_(m.bias[sl])
        ih = i.detach()[:, sl].contiguous().requires_grad_(True)
        out = mh(ih)
        out.backward(grad_output[:, sl].contiguous())
        return mh, ih, out

    m1, i1, output1 = half(slice(0, 2))
    m2, i2, output2 = half(slice(2, 4))
    _close32(output, pyad.cat([output1, output2], 1))
    _close(i.grad, pyad.cat([i1.grad, i2.grad], 1), atol=1e-5, rtol=0)
    _close(m.bias.grad, pyad.cat([m1.bias.grad, m2.bias.grad], 0), atol=1e-5, rtol=0)
    _close(m.weight.grad, pyad.cat([m1.weight.grad, m2.weight.grad], 0), atol=1e-5, rtol=0)


def test_Conv2d_backward_depthwise():
    rng = _rng(12)
    x = pyad.tensor(rng.standard_normal((2, 2, 4, 20)), requires_grad=True)
    weight = pyad.tensor(rng.standard_normal((2, 1, 3, 5)), requires_grad=True)

    def conv2d_depthwise(x, weight):
        return F.conv2d(x, weight, bias=None, stride=(1, 10), groups=2)

    assert gradcheck(conv2d_depthwise, (x, weight))


@pytest.mark.parametrize("batch", [1, 2, 3])
@pytest.mark.parametrize("groups", [1, 2, 4])
def test_conv2d_no_grad(batch, groups):
    inp = pyad.rand(batch, groups, 8, 8)
    m = nn.Conv2d(groups, 8, kernel_size=(3, 3), groups=groups)
    with pyad.no_grad():
        output_ng = m(inp)
    output = m(inp)
    _close(output, output_ng, rtol=1e-2, atol=1e-5)


def test_conv_contiguous_for_oneDNN():
    # https://github.com/pytorch/pytorch/issues/80837 -- a transposed, non-contiguous
    # input; torch compares its oneDNN and native paths, the port compares with torch
    tconv = tnn.Conv2d(1, 128, kernel_size=(5, 2), stride=(2, 1), padding=(0, 1),
                       dilation=(1, 1), groups=1, bias=True, padding_mode="zeros")
    pconv = _copy_params(tconv, nn.Conv2d(1, 128, kernel_size=(5, 2), stride=(2, 1),
                                          padding=(0, 1), dilation=(1, 1), groups=1,
                                          bias=True, padding_mode="zeros"))
    x = _rng(13).random((1, 2, 81, 51, 1)).astype(np.float32)   # torch: (1, 2, 321, 201, 1)
    tx, px = _pair(x)
    tx2 = torch.transpose(tx, 1, 4)[..., 0]
    px2 = pyad.transpose(px, 1, 4)[..., 0]
    _close(pconv(px2), tconv(tx2), atol=1e-5, rtol=1e-5)


def test_conv_ic1_channels_last_for_oneDNN():
    # https://github.com/pytorch/pytorch/issues/82060
    tconv = tnn.Conv2d(1, 64, kernel_size=(3, 3), padding=(1, 1), bias=False)
    pconv = _copy_params(tconv, nn.Conv2d(1, 64, kernel_size=(3, 3), padding=(1, 1),
                                          bias=False))
    tconv = tconv.to(memory_format=torch.channels_last)
    pconv = pconv.to(memory_format=pyad.channels_last)
    x = _rng(14).random((2, 1, 30, 30)).astype(np.float32)     # torch: (2, 1, 100, 100)
    tx, px = _pair(x)
    _close(pconv(px), tconv(tx), atol=1e-5, rtol=1e-5)


# --------------------------------------------------------------------------- embedding
# pytorch/pytorch test/nn/test_embedding.py


def test_embedding_bag_padding_idx_error():
    a = pyad.tensor([[1, 3, 2], [0, 2, 1]], dtype=pyad.int64)
    num_embeddings, num_features = 4, 3
    embeddings = pyad.rand(num_embeddings, num_features, requires_grad=True)
    functional_err_msg = r"padding_idx must be within the number of embeddings"
    module_err_msg = r"padding_idx must be within num_embeddings"
    for padding_idx in range(-(num_embeddings + 2), (num_embeddings + 2)):
        if (padding_idx < -num_embeddings) or (padding_idx >= num_embeddings):
            with pytest.raises(RuntimeError, match=functional_err_msg):
                F.embedding_bag(a, embeddings, padding_idx=padding_idx)
            with pytest.raises(AssertionError, match=module_err_msg):
                nn.EmbeddingBag(num_embeddings, num_features, padding_idx=padding_idx)
        else:
            F.embedding_bag(a, embeddings, padding_idx=padding_idx)
            nn.EmbeddingBag(num_embeddings, num_features, padding_idx=padding_idx)


def test_embeddingbag_from_pretrained():
    a = pyad.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    embeddingbag = nn.EmbeddingBag.from_pretrained(a)
    _eq(embeddingbag.weight, a)
    output = embeddingbag(pyad.tensor([[0, 1]], dtype=pyad.int64))
    _eq(output, np.array([[2.5, 3.5, 4.5]], dtype=np.float32))


def test_embeddingbag_from_pretrained_options():
    a = pyad.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], dtype=pyad.float64)
    opts = {"max_norm": 2.0, "norm_type": 0.5, "scale_grad_by_freq": False, "mode": "max",
            "sparse": False}
    embeddingbag = nn.EmbeddingBag.from_pretrained(a, **opts)
    output = embeddingbag(pyad.tensor([[0, 1]], dtype=pyad.int64))
    _eq(output, a.max(0, keepdim=True)[0])
    # the weight (which is `a` itself) was renormalised in place
    assert (a.numpy() != np.arange(1, 7, dtype=np.float64).reshape(2, 3)).all()
    assert (np.sum(np.abs(a.numpy()) ** 0.5, axis=1) ** 2 <= 2.0 + 1e-12).all()
    # and as torch renormalises it
    ta = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], dtype=torch.float64)
    tnn.EmbeddingBag.from_pretrained(ta, **opts)(torch.tensor([[0, 1]]))
    _close(a, ta)


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
@pytest.mark.parametrize("padding_idx", [None, 0])
@pytest.mark.parametrize("w_dtype", [np.float32, np.float64])
def test_embedding_bag_out_of_bounds_idx(mode, padding_idx, w_dtype):
    padding_idx = 0    # as in torch's test, which overrides its parameter
    idx1 = pyad.tensor([[-1, 1]], dtype=pyad.int64)
    idx2 = pyad.tensor([[11, 8]], dtype=pyad.int64)
    weight = pyad.randn(10, 2, dtype=w_dtype)
    per_sample_weights = (None, pyad.randn(1, 2, dtype=w_dtype)) if mode == "sum" else (None,)
    for p_s_weights, idx in itertools.product(per_sample_weights, (idx1, idx2)):
        with pytest.raises(RuntimeError, match="Expected idx >= 0 && idx < num_embeddings"):
            F.embedding_bag(idx, weight, per_sample_weights=p_s_weights,
                            padding_idx=padding_idx, mode=mode)


def test_embedding_bag_dimension_errors():
    # pyad's messages say "Variable" where torch's say "Tensor"
    f = lambda x, y, z: F.embedding_bag(y, x, z)  # noqa: E731
    weight = pyad.zeros(2, 6, dtype=pyad.float64)
    indices = pyad.full((2, 0, 0, 6, 6), 2, dtype=pyad.int64)
    offsets = pyad.full((2, 0, 0, 6, 6), 0, dtype=pyad.int64)
    with pytest.raises((ValueError, RuntimeError), match="input has to be a 1D or 2D Variable"):
        f(weight, indices, offsets)

    weight = pyad.zeros(2, 2, dtype=pyad.float64)
    indices = pyad.full((2,), 1, dtype=pyad.int64)
    with pytest.raises((ValueError, RuntimeError), match="offsets has to be a 1D Variable"):
        f(weight, indices, offsets)

    weight = pyad.zeros(2, 2, 2, dtype=pyad.float64)
    indices = pyad.full((2,), 2, dtype=pyad.int64)
    offsets = pyad.full((2,), 0, dtype=pyad.int64)
    with pytest.raises((ValueError, RuntimeError), match="weight has to be a 2D Variable"):
        f(weight, indices, offsets)


def _embedding_bag_reference_impl(inp, weight, offsets=None, mode="sum",
                                  per_sample_weights=None, include_last_offset=False):
    """torch's reference implementation, run in torch."""
    assert mode == "sum" or per_sample_weights is None
    if per_sample_weights is None:
        per_sample_weights = torch.ones(inp.size()).to(dtype=weight.dtype)
    bags = []
    long_input = inp.to(torch.long)
    embeddings = weight.index_select(0, long_input) * per_sample_weights.unsqueeze(1)
    offs = offsets.tolist()
    ends = offs[1:] if include_last_offset else offs[1:] + [len(long_input)]
    starts = offs[:-1] if include_last_offset else offs
    for offset, next_offset in zip(starts, ends):
        length = next_offset - offset
        if length == 0:
            bags.append(torch.zeros(weight.size(1), dtype=embeddings.dtype))
        elif mode == "sum":
            bags.append(embeddings.narrow(0, offset, length).sum(0))
        elif mode == "mean":
            bags.append(embeddings.narrow(0, offset, length).sum(0).div(length))
        else:
            bags.append(embeddings.narrow(0, offset, length).max(0)[0])
    return torch.stack(bags)


_IDX_DTYPES = list(itertools.product((np.int32, np.int64), (np.int32, np.int64)))


def _es_known(mode, wdtype, include_last_offset=False):
    es = nn.EmbeddingBag(5, 2, mode=mode, include_last_offset=include_last_offset) \
        .to(dtype=wdtype)
    with pyad.no_grad():
        es.weight.copy_(pyad.arange(1, 11).view_as(es.weight).to(dtype=wdtype))
    return es


@pytest.mark.parametrize("dtypes", _IDX_DTYPES)
@pytest.mark.parametrize("wdtype", [np.float32, np.float64])
@pytest.mark.parametrize("trainable_scale", [True, False])
def test_EmbeddingBag_empty_per_sample_weights_and_offsets(dtypes, wdtype, trainable_scale):
    es = _es_known("sum", wdtype)
    inp = pyad.tensor([], dtype=dtypes[0])
    offsets = pyad.tensor([0, 0, 0, 0, 0], dtype=dtypes[1])
    per_sample_weights = pyad.randn(0, dtype=wdtype).requires_grad_(trainable_scale)
    result = es(inp, offsets, per_sample_weights)
    _eq(result, np.zeros((5, 2), dtype=wdtype))
    result.backward(pyad.randn(5, 2, dtype=wdtype))
    _eq(es.weight.grad, np.zeros((5, 2), dtype=wdtype))
    if trainable_scale:
        assert tuple(per_sample_weights.grad.shape) == (0,)


@pytest.mark.parametrize("dtypes", _IDX_DTYPES)
@pytest.mark.parametrize("wdtype", [np.float32, np.float64])
@pytest.mark.parametrize("trainable_scale", [True, False])
def test_EmbeddingBag_per_sample_weights_and_offsets(dtypes, wdtype, trainable_scale):
    es = _es_known("sum", wdtype)
    inp = np.array([3, 1, 1, 1, 4, 0])
    offsets = np.array([0, 0, 3, 3, 6])
    psw = _rng(15).standard_normal(6).astype(wdtype)
    tpsw = torch.tensor(psw, requires_grad=trainable_scale)
    ppsw = pyad.tensor(psw, requires_grad=trainable_scale)
    tref_w = torch.tensor(es.weight.detach().numpy().copy(), requires_grad=True)
    expected = _embedding_bag_reference_impl(torch.tensor(inp), tref_w,
                                             torch.tensor(offsets), "sum", tpsw)
    result = es(pyad.tensor(inp.astype(dtypes[0])), pyad.tensor(offsets.astype(dtypes[1])),
                ppsw)
    prec = 1e-5 if wdtype == np.float32 else 1e-7
    _close(result, expected, atol=prec, rtol=0)
    grad = _rng(16).standard_normal(tuple(expected.shape)).astype(wdtype)
    result.backward(pyad.tensor(grad))
    expected.backward(torch.tensor(grad))
    _close(es.weight.grad, tref_w.grad, atol=prec, rtol=0)
    if trainable_scale:
        _close(ppsw.grad, tpsw.grad, atol=prec, rtol=0)


@pytest.mark.parametrize("dtypes", _IDX_DTYPES)
@pytest.mark.parametrize("wdtype", [np.float32, np.float64])
def test_EmbeddingBag_per_sample_weights_and_new_offsets(dtypes, wdtype):
    modes = (("sum", False), ("sum", True), ("max", False), ("mean", False))
    prec = 1e-5 if wdtype == np.float32 else 1e-7
    rng = _rng(17)
    for (mode, has_weight), trainable, include_last_offset in itertools.product(
            modes, (True, False), (True, False)):
        es = _es_known(mode, wdtype, include_last_offset)
        inp = np.array([3, 1, 1, 1, 4, 0])
        offsets = np.array([0, 0, 3, 3, 6])
        if include_last_offset:
            offsets = np.concatenate([offsets, [inp.shape[0]]])
        if has_weight:
            psw = rng.standard_normal(6).astype(wdtype)
            tpsw = torch.tensor(psw, requires_grad=trainable)
            ppsw = pyad.tensor(psw, requires_grad=trainable)
        else:
            tpsw = ppsw = None
        tref_w = torch.tensor(es.weight.detach().numpy().copy(), requires_grad=True)
        expected = _embedding_bag_reference_impl(torch.tensor(inp), tref_w,
                                                 torch.tensor(offsets), mode, tpsw,
                                                 include_last_offset)
        result = es(pyad.tensor(inp.astype(dtypes[0])),
                    pyad.tensor(offsets.astype(dtypes[1])), ppsw)
        _close(result, expected, atol=prec, rtol=0)
        grad = rng.standard_normal(tuple(expected.shape)).astype(wdtype)
        result.backward(pyad.tensor(grad))
        expected.backward(torch.tensor(grad))
        _close(es.weight.grad, tref_w.grad, atol=prec, rtol=0)
        if has_weight and trainable:
            _close(ppsw.grad, tpsw.grad, atol=prec, rtol=0)


def _test_EmbeddingBag_vs_Embedding(N, D, B, L, max_norm=None, mode="mean",
                                    wdtype=np.float32, dtype=np.int64,
                                    test_per_sample_weights=False,
                                    trainable_per_sample_weights=False, seed=0):
    rng = _rng(seed)
    es = nn.EmbeddingBag(N, D, mode=mode, max_norm=max_norm).to(dtype=wdtype)
    e = nn.Embedding(N, D, max_norm=max_norm).to(dtype=wdtype)
    with pyad.no_grad():
        e.weight.copy_(es.weight)
    inp = pyad.tensor(rng.integers(0, N, (B, L)).astype(dtype))
    offsets = pyad.tensor((np.arange(0, B) * L).astype(dtype))
    grad_output = pyad.tensor(rng.random((B, D)).astype(wdtype))
    if test_per_sample_weights:
        psw = pyad.tensor(rng.standard_normal((B, L)).astype(wdtype)).softmax(dim=-1)
        psw_ref = psw.clone().requires_grad_(trainable_per_sample_weights)
        psw = psw.detach().requires_grad_(trainable_per_sample_weights)
        output = es(inp.view(-1), offsets, psw.view(-1))
    else:
        output = es(inp.view(-1), offsets)
    if mode == "sum":
        ref_output = (e(inp) * psw_ref.unsqueeze(-1)).sum(1) if test_per_sample_weights \
            else e(inp).sum(1)
    elif mode == "mean":
        ref_output = e(inp).mean(1)
    else:
        ref_output = e(inp).max(1)[0]
    prec = 1e-5 if wdtype == np.float32 else 1e-7
    _close(output, ref_output, atol=prec, rtol=0)
    output.backward(grad_output)
    ref_output.backward(grad_output)
    _close(es.weight.grad, e.weight.grad, atol=prec * 5, rtol=0)
    if test_per_sample_weights and trainable_per_sample_weights:
        _close(psw.grad, psw_ref.grad, atol=prec, rtol=0)


@pytest.mark.parametrize("dtypes", list(itertools.product((np.int32, np.int64),
                                                          (np.float32, np.float64))))
@pytest.mark.parametrize("trainable", [True, False])
def test_EmbeddingBag_per_sample_weights_and_no_offsets(dtypes, trainable):
    # sparse=True is left out (pyad has no sparse gradients)
    kwargs = dict(test_per_sample_weights=True, mode="sum", wdtype=dtypes[1],
                  dtype=dtypes[0], trainable_per_sample_weights=trainable)
    _test_EmbeddingBag_vs_Embedding(2, 3, 5, 7, **kwargs)
    _test_EmbeddingBag_vs_Embedding(2, 5, 53, 23, **kwargs)
    _test_EmbeddingBag_vs_Embedding(101, 5, 3, 7, **kwargs)
    _test_EmbeddingBag_vs_Embedding(2, 101, 3, 7, **kwargs)


def _test_EmbeddingBag(mode, wdtype=np.float64, dtype=np.int64, odtype=np.int64):
    es = _es_known(mode, wdtype)
    inp = pyad.tensor([3, 1, 1, 1, 4, 0], dtype=dtype)
    offsets = pyad.tensor([0, 0, 3, 3, 6], dtype=odtype)
    grad_output = pyad.tensor([1, 2, 3, 4], dtype=wdtype).view(2, 2)
    grad_output_with_empty = pyad.tensor([99, 99, 1, 2, 99, 99, 3, 4, 99, 99],
                                         dtype=wdtype).view(5, 2)
    if mode in ("sum", "mean"):
        den = 1 if mode == "sum" else 3
        expected_output = np.array([[13, 16], [13, 16]], dtype=wdtype) / den
        expected_output_with_empty = np.array(
            [[0, 0], [13, 16], [0, 0], [13, 16], [0, 0]], dtype=wdtype) / den
        expected_grad_weight = np.array(
            [[3, 4], [5, 8], [0, 0], [1, 2], [3, 4]], dtype=wdtype) / den
    else:
        expected_output = np.array([[7, 8], [9, 10]], dtype=wdtype)
        expected_output_with_empty = np.array(
            [[0, 0], [7, 8], [0, 0], [9, 10], [0, 0]], dtype=wdtype)
        expected_grad_weight = np.array(
            [[0, 0], [0, 0], [0, 0], [1, 2], [3, 4]], dtype=wdtype)
    prec = 1e-5 if wdtype == np.float32 else 1e-7
    output = es(inp, offsets)
    output.backward(grad_output_with_empty)
    _close(output, expected_output_with_empty.astype(wdtype), atol=prec, rtol=1.3e-6)
    _close(es.weight.grad, expected_grad_weight.astype(wdtype), atol=prec, rtol=0)

    # the same example as 2D (2 x 3)
    es.zero_grad()
    output = es(inp.view(2, -1))
    output.backward(grad_output)
    _close(output, expected_output.astype(wdtype), atol=prec, rtol=1.3e-6)
    _close(es.weight.grad, expected_grad_weight.astype(wdtype), atol=prec, rtol=0)

    # all empty bags
    es.zero_grad()
    es(pyad.tensor([], dtype=dtype), pyad.tensor([0, 0, 0, 0], dtype=odtype)).sum().backward()
    _eq(es.weight.grad, np.zeros((5, 2), dtype=wdtype))

    # EmbeddingBag vs Embedding + sum/mean/max for constant bag length
    _test_EmbeddingBag_vs_Embedding(37, 11, 13, 7, mode=mode, wdtype=wdtype, dtype=dtype)
    for max_norm in (None, 3):
        for p in itertools.product([1, 2], repeat=4):
            _test_EmbeddingBag_vs_Embedding(*p, max_norm=max_norm, mode=mode, wdtype=wdtype,
                                            dtype=dtype)

    # illegal input combinations
    es = nn.EmbeddingBag(10, 20, mode=mode)
    inp = pyad.ones(3, 4, dtype=dtype)
    offset = pyad.arange(0, 3, dtype=odtype)
    with pytest.raises(ValueError):
        es(inp, offset)
    with pytest.raises(ValueError):
        es(inp.view(-1))
    offset[0] = 1
    with pytest.raises(RuntimeError):
        es(inp.view(-1), offset)
    offset[0] = 0
    offset[-1] = 100
    with pytest.raises(RuntimeError):
        es(inp.view(-1), offset)


@pytest.mark.parametrize("dtypes", _IDX_DTYPES)
@pytest.mark.parametrize("wdtype", [np.float32, np.float64])
@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
def test_embedding_bag_device(dtypes, wdtype, mode):
    # the sparse=True halves of torch's test are left out (no sparse gradients in pyad)
    _test_EmbeddingBag(mode, wdtype=wdtype, dtype=dtypes[0], odtype=dtypes[1])


@pytest.mark.parametrize("bag_use_grad,per_sample_weights_use_grad",
                         [(True, True), (True, False), (False, True), (False, False)])
def test_embedding_bag_per_sample_weights_grad(bag_use_grad, per_sample_weights_use_grad):
    bag = nn.EmbeddingBag(256, 256, mode="sum")
    bag.requires_grad_(bag_use_grad)
    x = pyad.arange(1, 5).expand(3, -1)
    w = pyad.rand(3, 4, requires_grad=per_sample_weights_use_grad)
    out = bag(x, per_sample_weights=F.softmax(w, dim=-1))
    assert out.requires_grad == (bag_use_grad or per_sample_weights_use_grad)
    tbag = tnn.EmbeddingBag(256, 256, mode="sum")
    with torch.no_grad():
        tbag.weight.copy_(torch.tensor(bag.weight.detach().numpy()))
    tout = tbag(torch.arange(1, 5).expand(3, -1),
                per_sample_weights=tF.softmax(torch.tensor(w.detach().numpy()), dim=-1))
    _close(out, tout, atol=1e-6, rtol=1e-5)


# --------------------------------------------------------------------------- dropout
# pytorch/pytorch test/nn/test_dropout.py


def test_invalid_dropout_p():
    v = pyad.ones(1)
    for p in (-0.1, 1.1):
        for cls in (nn.Dropout, nn.Dropout1d, nn.Dropout2d, nn.Dropout3d):
            with pytest.raises(ValueError):
                cls(p)
        with pytest.raises(ValueError):
            F.dropout(v, p)


# --------------------------------------------------------------------------- transformers
# pytorch/pytorch test/test_transformers.py


@pytest.mark.parametrize("nhead", [1, 4, 8])
def test_transformerencoderlayer_src_mask(nhead):
    batch_size, seqlen, d_model, dim_feedforward = 2, 4, 8, 32
    tmodel = tnn.TransformerEncoderLayer(d_model=d_model, nhead=nhead,
                                         dim_feedforward=dim_feedforward, batch_first=True)
    model = _copy_params(tmodel, nn.TransformerEncoderLayer(
        d_model=d_model, nhead=nhead, dim_feedforward=dim_feedforward, batch_first=True))
    src = _rng(20).random((batch_size, seqlen, d_model)).astype(np.float32)
    src_mask = np.zeros((seqlen, seqlen), dtype=bool)
    model(pyad.tensor(src), src_mask=pyad.tensor(src_mask))   # training mode runs
    model.eval()
    tmodel.eval()
    with pyad.no_grad():
        out = model(pyad.tensor(src), src_mask=pyad.tensor(src_mask))
    with torch.no_grad():
        tout = tmodel(torch.tensor(src), src_mask=torch.tensor(src_mask))
    _close(out, tout, atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize("nhead", [3, 4])
def test_transformerencoderlayer_no_fastpath_with_hooks(nhead):
    d_model = 12
    model = nn.TransformerEncoderLayer(d_model=d_model, nhead=nhead, dim_feedforward=d_model,
                                       batch_first=True).eval()
    src = pyad.rand(2, 4, d_model)
    cache = []

    def hook(module, inputs, output):
        cache.append(output[0].detach())

    handle = model.self_attn.register_forward_hook(hook)
    with pyad.no_grad():
        model(src)
    assert len(cache) == 1, f"Expected 1 output, got {len(cache)}"
    handle.remove()


def _cos_weights(model):
    """torch's tests set every parameter p to cos(arange(p.numel())).view(p.shape)."""
    with pyad.no_grad():
        for p in model.parameters():
            sz = p.numel()
            p.copy_(pyad.cos(pyad.arange(0, sz).float().view(*p.shape)).to(dtype=p.dtype))


@pytest.mark.parametrize("with_no_grad", [True, False])
@pytest.mark.parametrize("training", [True, False])
def test_transformerencoder_square_input(with_no_grad, training):
    model = nn.TransformerEncoder(
        nn.TransformerEncoderLayer(d_model=4, nhead=2, dim_feedforward=16, dropout=0.0,
                                   batch_first=True),
        num_layers=2, enable_nested_tensor=False)
    _cos_weights(model)
    model = model.train() if training else model.eval()
    x = pyad.arange(0, 16).reshape(2, 2, 4).float()
    src_mask = pyad.tensor([[0, 1], [0, 0]]).to(dtype=pyad.bool)
    if with_no_grad:
        with pyad.no_grad():
            result = model(x, mask=src_mask)
    else:
        result = model(x, mask=src_mask)
    ref_output = np.array(
        [[[2.420306205749512, 0.017629241570830, -0.607857942581177, -0.085519507527351],
          [2.420306205749512, 0.017629241570830, -0.607857942581177, -0.085519507527351]],
         [[2.419836044311523, 0.017548924311996, -0.608187675476074, -0.085347734391689],
          [2.419836044311523, 0.017548924311996, -0.608187675476074, -0.085347734391689]]],
        dtype=np.float32)
    _close32(result, ref_output)


_ENC_INPUT = [[[0.7462, 0.6653, 0.5679, 0.4891], [0.5387, 0.1655, 0.3565, 0.0471]],
              [[0.8335, 0.2799, 0.5031, 0.2947], [0.1402, 0.0318, 0.7636, 0.1346]],
              [[0.6333, 0.9344, 0.1376, 0.9938], [0.8924, 0.2872, 0.6692, 0.2944]],
              [[0.9897, 0.6915, 0.3154, 0.1733], [0.8645, 0.3513, 0.3064, 0.0767]],
              [[0.8117, 0.2366, 0.4838, 0.7881], [0.3718, 0.4945, 0.9511, 0.0864]]]
_ENC_REF_1 = [[[2.428589, 0.020835, -0.602055, -0.085249], [2.427987, 0.021213, -0.602496, -0.084103]],
              [[2.424689, 0.019155, -0.604793, -0.085672], [2.413863, 0.022211, -0.612486, -0.072490]],
              [[2.433774, 0.021598, -0.598343, -0.087548], [2.425104, 0.019748, -0.604515, -0.084839]],
              [[2.436185, 0.022682, -0.596625, -0.087261], [2.433556, 0.021891, -0.598509, -0.086832]],
              [[2.416246, 0.017512, -0.610712, -0.082961], [2.422901, 0.024187, -0.606178, -0.074929]]]
_ENC_REF_MASKED = [[[2.429026, 0.020793, -0.601741, -0.085642], [2.428811, 0.021445, -0.601912, -0.084252]],
                   [[2.425009, 0.019155, -0.604566, -0.085899], [2.415408, 0.02249, -0.611415, -0.073]],
                   [[2.434199, 0.021682, -0.598039, -0.087699], [2.42598, 0.019941, -0.603896, -0.085091]],
                   [[2.436457, 0.022736, -0.59643, -0.08736], [2.434021, 0.022093, -0.598179, -0.08679]],
                   [[2.416531, 0.017498, -0.610513, -0.083181], [2.4242, 0.024653, -0.605266, -0.074959]]]
_ENC_REF_2 = [[[2.419051, 0.017446, -0.608738, -0.085003], [2.419102, 0.017452, -0.608703, -0.085026]],
              [[2.419043, 0.017445, -0.608744, -0.084999], [2.419052, 0.017446, -0.608738, -0.085004]],
              [[2.419067, 0.017448, -0.608727, -0.085010], [2.419098, 0.017452, -0.608706, -0.085024]],
              [[2.419072, 0.017449, -0.608724, -0.085012], [2.419119, 0.017455, -0.608691, -0.085034]],
              [[2.419019, 0.017442, -0.608761, -0.084989], [2.419075, 0.017449, -0.608722, -0.085014]]]
_ENC_REF_6 = [[[2.419101, 0.017453, -0.608703, -0.085025], [2.419101, 0.017453, -0.608704, -0.085025]]] * 5
_ENC_REF_2N = [[[1.695949, -0.357635, -0.893077, -0.445238], [1.695955, -0.357639, -0.893050, -0.445266]],
               [[1.695948, -0.357634, -0.893082, -0.445233], [1.695950, -0.357635, -0.893077, -0.445238]],
               [[1.695951, -0.357636, -0.893069, -0.445246], [1.695955, -0.357639, -0.893052, -0.445264]],
               [[1.695952, -0.357636, -0.893066, -0.445249], [1.695957, -0.357641, -0.893041, -0.445276]],
               [[1.695946, -0.357632, -0.893095, -0.445220], [1.695952, -0.357637, -0.893065, -0.445251]]]
_ENC_REF_6N = [[[1.695955, -0.357639, -0.893051, -0.445265]] * 2] * 5


@pytest.mark.parametrize("batch_first", [True, False])
@pytest.mark.parametrize("training", [True, False])
def test_transformerencoder(batch_first, training):
    # torch runs this test with float64 as the default dtype; so does the port
    def perm_fn(x):
        x = np.asarray(x, dtype=np.float64)
        return x.transpose(1, 0, 2) if batch_first else x

    def check(result, ref):
        ref = perm_fn(ref)
        assert tuple(result.shape) == ref.shape
        _close(result, ref, atol=1e-5, rtol=1e-7)

    layer = nn.TransformerEncoderLayer(4, 2, dim_feedforward=16, dropout=0.0,
                                       activation=F.relu, batch_first=batch_first).double()
    _cos_weights(layer)

    def make(n, norm=None):
        m = nn.TransformerEncoder(layer, n, norm=norm, enable_nested_tensor=False)
        return m if training else m.eval()

    ctx = pyad.enable_grad() if training else pyad.no_grad()
    with ctx:
        encoder_input = pyad.tensor(perm_fn(_ENC_INPUT))
        model = make(1)
        check(model(encoder_input), _ENC_REF_1)
        # all-False src_mask and padding mask
        check(model(encoder_input, mask=pyad.zeros(5, 5) == 1), _ENC_REF_1)
        mask = pyad.zeros(2, 5) == 1
        check(model(encoder_input, src_key_padding_mask=mask), _ENC_REF_1)
        mask[0, 1] = True
        mask[1, 3] = True
        mask[1, 4] = True
        check(model(encoder_input, src_key_padding_mask=mask), _ENC_REF_MASKED)
        # several layers, no norm
        check(make(2)(encoder_input, src_key_padding_mask=mask), _ENC_REF_2)
        check(make(6)(encoder_input, src_key_padding_mask=mask), _ENC_REF_6)
        # several layers with a norm
        norm = nn.LayerNorm(4).double()
        check(make(2, norm)(encoder_input, src_key_padding_mask=mask), _ENC_REF_2N)
        check(make(6, norm)(encoder_input, src_key_padding_mask=mask), _ENC_REF_6N)


def test_encoder_padding_and_src_mask_bool():
    encoder_layer = nn.TransformerEncoderLayer(d_model=16, nhead=2, dim_feedforward=32,
                                               dropout=0.1, activation="relu",
                                               batch_first=True)
    encoder = nn.TransformerEncoder(encoder_layer, 2, nn.LayerNorm(16))
    inputs = pyad.randn(2, 3, 16)
    src_mask = pyad.ones(3, 3, dtype=pyad.bool).triu_(diagonal=1)
    input_seq_len = pyad.tensor([3, 2])
    padding_mask = pyad.arange(3)[None, :] >= input_seq_len[:, None]
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")    # torch asserts no log/warning here
        out = encoder(inputs, mask=src_mask, src_key_padding_mask=padding_mask)
    assert tuple(out.shape) == (2, 3, 16)
    assert np.isfinite(out.detach().numpy()).all()


def test_decoder_padding_and_src_mask_bool():
    def transformer_decoder(inputs, input_seq_len, memory):
        decoder_layer = nn.TransformerDecoderLayer(d_model=16, nhead=2, dim_feedforward=32,
                                                   dropout=0.1, activation="relu",
                                                   batch_first=True)
        decoder = nn.TransformerDecoder(decoder_layer, 2, nn.LayerNorm(16))
        src_mask = pyad.ones(inputs.shape[1], inputs.shape[1], dtype=pyad.bool) \
            .triu_(diagonal=1)
        padding_mask = pyad.arange(inputs.shape[1])[None, :] >= input_seq_len[:, None]
        return decoder(inputs, memory, tgt_mask=src_mask, tgt_key_padding_mask=padding_mask,
                       memory_key_padding_mask=padding_mask)

    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = transformer_decoder(pyad.randn(2, 3, 16), pyad.tensor([3, 2]),
                                  pyad.randn(2, 3, 16))
    assert tuple(out.shape) == (2, 3, 16)
    assert np.isfinite(out.detach().numpy()).all()


def test_encoder_is_causal():
    d_model = 3
    layer = nn.TransformerEncoderLayer(d_model, 1, 6, batch_first=True)
    layer.eval()
    x = pyad.randn(1, 5, d_model)
    unmasked_output = layer(x)
    mask = nn.Transformer.generate_square_subsequent_mask(x.size(1))
    is_causal_output = layer(x, src_mask=mask, is_causal=True)
    masked_output = layer(x, src_mask=mask)
    _eq(masked_output, is_causal_output)
    assert not np.allclose(unmasked_output.detach().numpy(), masked_output.detach().numpy())


@pytest.mark.parametrize("input_dim,attn_mask_dim,is_causal",
                         [(3, None, False), (3, 2, False), (3, 2, True), (3, 3, False),
                          (3, 3, True), (4, None, False), (4, 2, False), (4, 2, True),
                          (4, 4, False), (4, 4, True)])
def test_scaled_dot_product_attention(input_dim, attn_mask_dim, is_causal):
    # dropout_p = 0 only: torch's dropout cases compare two runs of torch's own RNG
    def sdp_ref(q, k, v, attn_mask=None):
        E = q.size(-1)
        q = q / math.sqrt(E)
        if attn_mask is not None:
            attn = torch.baddbmm(attn_mask, q, k.transpose(-2, -1))
        else:
            attn = torch.bmm(q, k.transpose(-2, -1))
        attn = torch.nn.functional.softmax(attn, dim=-1)
        return torch.bmm(attn, v)

    rng = _rng(21)
    for dtype, tol in ((np.float64, dict(atol=1e-7, rtol=1e-7)),
                       (np.float32, dict(atol=1e-5, rtol=1.3e-6))):
        N, N_prime, L, S, E = 5, 2, 4, 3, 6
        if input_dim == 3:
            shapes = ((N, L, E), (N, S, E), (N, S, E))
        else:
            shapes = ((N, N_prime, L, E), (N, N_prime, S, E), (N, N_prime, S, E))
        query, key, value = (rng.standard_normal(s).astype(dtype) for s in shapes)
        attn_mask = None
        if attn_mask_dim is not None:
            mask_size = (L, S) if attn_mask_dim == 2 else (
                (N, L, S) if input_dim == 3 else (N, N_prime, L, S))
            attn_mask = (np.tril(np.ones(mask_size, dtype=bool)) if is_causal
                         else rng.integers(0, 2, size=mask_size).astype(bool))
        a = None
        if attn_mask is not None:
            a = torch.zeros(attn_mask.shape, dtype=torch.tensor(query).dtype)
            a.masked_fill_(torch.tensor(~attn_mask), float("-inf"))
            if attn_mask_dim > 3:
                a = a.view(-1, L, S)
        expected = sdp_ref(torch.tensor(query).view(-1, L, E), torch.tensor(key).view(-1, S, E),
                           torch.tensor(value).view(-1, S, E), attn_mask=a)
        if input_dim > 3:
            expected = expected.view(-1, N_prime, L, E)
        # a fully masked row: the reference's softmax of all -inf is NaN, torch's sdpa
        # gives zeros there (its "safe softmax"); expect torch's sdpa on those rows
        if attn_mask is not None and not is_causal:
            tsdpa = tF.scaled_dot_product_attention(
                torch.tensor(query), torch.tensor(key), torch.tensor(value),
                torch.tensor(attn_mask))
            expected = torch.where(torch.isnan(expected), tsdpa, expected)
        pq, pk, pv = pyad.tensor(query), pyad.tensor(key), pyad.tensor(value)
        if is_causal:
            actual = F.scaled_dot_product_attention(pq, pk, pv, None, 0.0, is_causal)
            with pytest.raises(RuntimeError, match="Explicit attn_mask should not be set "
                               "when is_causal=True"):
                F.scaled_dot_product_attention(pq, pk, pv, pyad.tensor(attn_mask), 0.0,
                                               is_causal)
        else:
            pm = None if attn_mask is None else pyad.tensor(attn_mask)
            actual = F.scaled_dot_product_attention(pq, pk, pv, pm, 0.0, is_causal)
        # a fully-masked row gives NaN in both (softmax of all -inf)
        _close(actual, expected, **tol)


@pytest.mark.parametrize("input_dim", [3, 4])
def test_scaled_dot_product_attention_gradcheck(input_dim):
    """The gradcheck half of torch's test_scaled_dot_product_attention (no mask)."""
    rng = _rng(22)
    N, N_prime, L, S, E = 5, 2, 4, 3, 6
    q = pyad.tensor(rng.standard_normal((N * N_prime, L, E)), requires_grad=True)
    k = pyad.tensor(rng.standard_normal((N * N_prime, S, E)), requires_grad=True)
    v = pyad.tensor(rng.standard_normal((N * N_prime, S, E)), requires_grad=True)
    if input_dim == 4:
        q, k, v = (pyad.tensor(t.detach().numpy().reshape((N, N_prime) + tuple(t.shape[1:])),
                               requires_grad=True) for t in (q, k, v))

    def sdp_ref(q, k, v):
        q = q / math.sqrt(q.size(-1))
        return pyad.matmul(F.softmax(pyad.matmul(q, k.transpose(-2, -1)), dim=-1), v)

    assert gradcheck(sdp_ref, (q, k, v))
    assert gradcheck(lambda q, k, v: F.scaled_dot_product_attention(q, k, v, None, 0.0),
                     (q, k, v))


def test_incompatible_mask():
    S, L, E, H = 1, 2, 4, 1
    qkv = pyad.ones(S, L, E, dtype=pyad.float32)
    mha = nn.MultiheadAttention(E, H)
    mha.in_proj_weight = nn.Parameter(pyad.ones(E * 3, E))
    mha.out_proj.weight = nn.Parameter(pyad.ones(E, E))
    qkv = qkv.to(dtype=pyad.float64)
    kpm = pyad.ones(S, L) * float("-inf")
    am = pyad.ones(L, L).to(dtype=pyad.bool)
    with pytest.raises(RuntimeError):
        mha(qkv, qkv, qkv, need_weights=False, key_padding_mask=kpm, attn_mask=am)


def test_bias_is_none():
    x = pyad.rand(1, 5, 10)
    model = nn.MultiheadAttention(10, 1, bias=False, batch_first=True)
    model.eval()
    out, _ = model(x, x, x)
    assert tuple(out.shape) == (1, 5, 10)


def test_transformer_bias_is_none():
    batch_size, seqlen, d_model, nhead = 2, 3, 8, 4
    encoder_layer = nn.TransformerEncoderLayer(d_model, nhead, bias=False, batch_first=True)
    encoder_layer.eval()
    assert encoder_layer.self_attn.in_proj_bias is None
    x = pyad.randn(batch_size, seqlen, d_model)
    assert tuple(encoder_layer(x).shape) == (batch_size, seqlen, d_model)
    with pytest.warns(UserWarning, match="encoder_layer.self_attn was passed bias=False"):
        encoder = nn.TransformerEncoder(encoder_layer, num_layers=1).eval()
        assert tuple(encoder(x).shape) == (batch_size, seqlen, d_model)
    with pytest.warns(UserWarning, match="self_attn was passed bias=False"):
        transformer = nn.Transformer(d_model=d_model, nhead=nhead, bias=False,
                                     batch_first=True).eval()
        assert tuple(transformer(x, x).shape) == (batch_size, seqlen, d_model)


def test_train_with_is_causal():
    from unittest.mock import ANY, MagicMock
    S, L, E, H = 1, 2, 2, 1
    layer = nn.TransformerEncoderLayer(d_model=2, dim_feedforward=4, nhead=H,
                                       batch_first=True, activation="gelu", dropout=0)
    encoder = nn.TransformerEncoder(layer, 2)
    optimizer = pyad.optim.SGD(encoder.parameters(), lr=0.1, momentum=0.9)
    encoder.train()
    optimizer.zero_grad()
    inputs = pyad.randn(S, L, E)
    mask = nn.Transformer.generate_square_subsequent_mask(inputs.size(1))
    outputs = encoder(inputs, mask=mask, is_causal=True)
    loss = nn.MSELoss()(outputs[:, 0:2, :], inputs[:, 0:2, :])
    loss.backward()
    optimizer.step()

    # inference with is_causal
    t_qvk = pyad.randn(S, L, E, dtype=pyad.float32)
    mha = nn.MultiheadAttention(E, H)
    mask = nn.Transformer.generate_square_subsequent_mask(S)
    attn_out, _ = mha(t_qvk, t_qvk, t_qvk, attn_mask=mask, is_causal=True)
    # is_causal alone (without a mask) is refused
    with pytest.raises(RuntimeError):
        mha(t_qvk, t_qvk, t_qvk, is_causal=True)

    # passing a causal mask sets is_causal
    causal_mask = pyad.triu(pyad.ones(L, L) * float("-inf"), diagonal=1).to(dtype=pyad.bool)
    mock_layer = MagicMock(nn.MultiheadAttention(E, H), return_value=inputs)
    encoder.layers[1] = mock_layer
    encoder(inputs, mask=causal_mask)
    mock_layer.assert_called_with(ANY, src_mask=ANY, is_causal=True, src_key_padding_mask=ANY)

    # is_causal_kernels([SDPBackend.MATH]): the values by hand
    S, L, E, H = 1, 2, 4, 1
    qkv = pyad.ones(S, L, E)
    mha = nn.MultiheadAttention(E, H)
    mha.in_proj_weight = nn.Parameter(pyad.ones(E * 3, E))
    mha.out_proj.weight = nn.Parameter(pyad.ones(E, E))
    expected = pyad.ones(S, L, E) * 16
    mask = nn.Transformer.generate_square_subsequent_mask(qkv.size(1))
    actual, _ = mha(qkv, qkv, qkv, attn_mask=mask, need_weights=False, is_causal=True)
    _eq(actual, expected)


def test_invalid_inputs_different_datatypes():
    shape = (1, 4, 8, 16)
    query = pyad.randn(*shape, dtype=pyad.float32)
    key = pyad.randn(*shape, dtype=pyad.float16)
    value = pyad.randn(*shape, dtype=pyad.float16)
    with pytest.raises(RuntimeError):
        F.scaled_dot_product_attention(query, key, value)


def test_invalid_inputs_1_dimensional_inputs():
    query = pyad.randn(4, dtype=pyad.float16)
    key = pyad.randn(1, 4, dtype=pyad.float16)
    value = pyad.randn(1, 4, dtype=pyad.float16)
    with pytest.raises(RuntimeError):
        F.scaled_dot_product_attention(query, key, value)
