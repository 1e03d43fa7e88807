"""A sixth batch of ports of PyTorch's own nn tests (pytorch/pytorch ``test/test_nn.py``,
class TestNN: the Module API, containers' pickling, layers' argument checks, the
transformer decoder's deterministic values, the RNN argument checks, and the loss
functions' value tests) to pyad -- CPU, float32/float64, without device/dtype decorators.
CUDA, cuDNN, sparse, quantization, dynamo, meta tensors, nested and named tensors and
torchscript are left out.

The tests keep torch's names and the meaning of their assertions.  Expected values are the
literal values of torch's tests, hand math, or come from torch 2.13 run in the test on the
same inputs (copied through numpy) -- never from pyad itself.  Where torch compares against
``loss_reference_fns`` (its pure-Python references), torch's own loss on the same inputs is
the reference here.
"""
import itertools
import math
import pickle
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

from _port_helpers import _close, _close32, _eq, _np, _rng  # noqa: E402


@pytest.fixture(autouse=True)
def _seeded():
    pyad.manual_seed(0)
    torch.manual_seed(0)
    yield


# --------------------------------------------------------------------------- Module API


def test_to():
    m = nn.Linear(3, 5)
    assert m is m.to("cpu")
    assert m is m.to("cpu", dtype=pyad.float32)
    assert m.double() is m.to(pyad.float64)
    assert m.weight.dtype == pyad.float64
    # torch: RuntimeError(".to() does not accept copy argument")
    with pytest.raises(RuntimeError, match="copy"):
        m.to("cpu", copy=True)


def test_module_super_init():
    class MyMixin:
        def __init__(self, *a, **kw):
            super().__init__(*a, **kw)
            self.mixin_init = True

    class MyModuleWithMixinBefore(MyMixin, nn.Module):
        pass

    class MyModuleWithMixinAfter(nn.Module, MyMixin):
        pass

    assert hasattr(MyModuleWithMixinBefore(), "mixin_init")
    assert not hasattr(MyModuleWithMixinAfter(), "mixin_init")

    nn.Module.call_super_init = True
    try:
        assert hasattr(MyModuleWithMixinBefore(), "mixin_init")
        assert hasattr(MyModuleWithMixinAfter(), "mixin_init")
    finally:
        nn.Module.call_super_init = False

    MyModuleWithMixinBefore.call_super_init = True
    MyModuleWithMixinAfter.call_super_init = True
    assert hasattr(MyModuleWithMixinBefore(), "mixin_init")
    assert hasattr(MyModuleWithMixinAfter(), "mixin_init")


def test_buffer_bad_module_subclass():
    class MyBadModule(nn.Linear):
        def __init__(self):
            super().__init__(2, 2)
            self.bar = nn.Buffer(pyad.rand(2, 2))

        def register_buffer(self, name, value):
            # persistent is explicitly missing!
            super().register_buffer(name, value, True)

    foo = MyBadModule()
    assert foo.bar is not None


def test_parameterlistdict_setting_attributes():
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        mod = nn.ParameterList(map(nn.Parameter, [pyad.rand(2), pyad.rand(2)]))
    assert len(w) == 0

    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        mod.train()
        mod.eval()
    assert len(w) == 0

    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        mod = nn.ParameterDict({"a": nn.Parameter(pyad.rand(2)),
                                "b": nn.Parameter(pyad.rand(2))})
    assert len(w) == 0

    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        mod.train()
        mod.eval()
    assert len(w) == 0


def test_parameterlistdict_pickle():
    m = nn.ParameterList(map(nn.Parameter, [pyad.rand(2), pyad.rand(2)]))
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        m2 = pickle.loads(pickle.dumps(m))
    assert len(w) == 0
    assert len(m2) == 2
    for a, b in zip(m, m2):
        assert isinstance(b, nn.Parameter)
        _eq(a, b)

    m = nn.ParameterDict({"a": nn.Parameter(pyad.rand(2)), "b": nn.Parameter(pyad.rand(2))})
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        m2 = pickle.loads(pickle.dumps(m))
    assert len(w) == 0
    assert list(m2.keys()) == ["a", "b"]
    _eq(m2["a"], m["a"])
    # torch also deletes _forward_pre_hooks, _state_dict_hooks, ... to mimic old checkpoints;
    # those are torch's private attribute names (pyad keeps its own), so that part is left out.


def test_extra_state_non_dict():
    class MyModule(nn.Module):
        def __init__(self, foo):
            super().__init__()
            self.foo = foo

        def get_extra_state(self):
            return self.foo

        def set_extra_state(self, state):
            self.foo = state

    # Test various types of extra state.
    for state in ("something", 5, MyModule(3)):
        m = MyModule(state)
        m2 = MyModule("something else")
        m2.load_state_dict(m.state_dict())
        assert m.state_dict() == m2.state_dict()
        assert m.foo is m2.foo or m.foo == m2.foo


def test_pickle_module_no_weights_only_warning():
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        m = pickle.loads(pickle.dumps(nn.Linear(10, 10)))
    assert len(w) == 0
    assert isinstance(m, nn.Linear)


def test_rnn_weight_norm():
    def check_weight_norm(l, name, num_params):
        # Applying weight norm on one of them causes it to become a Variable
        l = nn.utils.weight_norm(l, name=name)
        assert sum(isinstance(p, nn.Parameter) for p in l._flat_weights) == num_params - 1

        # Removing the weight norm reparametrization restores the Parameter
        l = nn.utils.remove_weight_norm(l, name=name)
        assert sum(isinstance(p, nn.Parameter) for p in l._flat_weights) == num_params

        assert name in l._parameters
        assert l._parameters[name] is not None
        assert name + "_v" not in l._parameters
        assert name + "_g" not in l._parameters
        assert name in dict(l.named_parameters())
        assert dict(l.named_parameters())[name] is not None
        assert name + "_v" not in dict(l.named_parameters())
        assert name + "_g" not in dict(l.named_parameters())

    check_weight_norm(nn.LSTM(32, 32), "weight_ih_l0", 4)
    check_weight_norm(nn.LSTM(32, 32, proj_size=16), "weight_hr_l0", 5)


# --------------------------------------------------------------------------- layers


def test_linear_broadcasting():
    m = nn.Linear(5, 8)
    inp = pyad.randn(2, 3, 5)
    expected = m(inp.view(6, 5)).view(2, 3, 8)
    _close32(m(inp), expected)


def test_linear_raise_on_scalar_input():
    # https://github.com/pytorch/pytorch/issues/119161
    m = nn.Linear(1, 1)
    inp = pyad.ones(1).squeeze()
    # torch: ".*both arguments.*1D.*"; pyad's linear() names the 0-d input
    with pytest.raises(RuntimeError):
        m(inp)


def test_bilinear_non_contiguous():
    module = nn.Bilinear(7, 7, 5)
    input1 = pyad.randn(4, 7, 10, requires_grad=True)
    input2 = pyad.randn(4, 7, 10, requires_grad=True)
    input1_tp = input1.transpose(1, 2)
    input2_tp = input2.transpose(1, 2)
    grad_output = pyad.randn(4, 10, 5)

    def run(input1_tp, input2_tp):
        input1.grad = input2.grad = None
        output = module(input1_tp, input2_tp)
        output.backward(grad_output)
        return output.detach(), input1.grad.detach(), input2.grad.detach()

    out_nc, g1_nc, g2_nc = run(input1_tp, input2_tp)
    out, g1, g2 = run(input1_tp.contiguous(), input2_tp.contiguous())
    _close32(out, out_nc)
    _close32(g1, g1_nc)
    _close32(g2, g2_nc)


def test_padding_list():
    # Padding can be a list, or tuple (regression test for gh-54452)
    x = pyad.randn(4, 8, 32, 32)
    net = nn.ConvTranspose2d(8, 16, kernel_size=3, padding=[3, 3])
    y = net(x)
    assert tuple(y.shape) == (4, 16, 28, 28)
    net = nn.ConvTranspose2d(8, 16, kernel_size=3, padding=(3, 3))
    y = net(x)
    assert tuple(y.shape) == (4, 16, 28, 28)


def test_unflatten_invalid_arg():
    # Wrong type for unflattened_size (tuple of floats)
    with pytest.raises(TypeError, match=r"unflattened_size must be tuple of ints, but found "
                       r"element of type float at pos 2"):
        nn.Unflatten(dim=1, unflattened_size=(2, 5, 5.0))
    # the named-tensor half of torch's test (dim='features') is left out: pyad has no
    # named tensors


def test_max_pool1d_invalid_output_size():
    arg_class = nn.MaxPool1d(kernel_size=3, stride=255, return_indices=False)
    with pytest.raises(RuntimeError):
        arg_class(pyad.tensor([[0.3204]]))


def test_channel_shuffle_return_alias_of_self():
    # gh-76616: nn.ChannelShuffle will return alias of self with an empty input tensor
    input_tensor = pyad.rand(0, 9, 4, 4)
    output = nn.ChannelShuffle(3)(input_tensor)
    _eq(output, input_tensor)


def test_channel_shuffle_input_checks():
    input_tensor = pyad.rand(1, 3, 2, 2)
    with pytest.raises(RuntimeError, match="Number of groups to divide channels in must be "
                       "positive"):
        pyad.native_channel_shuffle(input_tensor, 0)
    with pytest.raises(RuntimeError, match="Number of channels must be divisible by groups"):
        pyad.native_channel_shuffle(input_tensor, 2)
    # pyad's wording of torch's "channel_shuffle expects input with > 2 dims, but got input
    # with sizes [1, 2]"
    with pytest.raises(RuntimeError, match="channel_shuffle expects input to have at least 3 "
                       "dimensions, but got input with 2 dimension"):
        pyad.native_channel_shuffle(pyad.rand(1, 2), 2)


def test_native_channel_shuffle_return_alias_of_self():
    input_tensor = pyad.rand(0, 9, 4, 4)
    output = pyad.native_channel_shuffle(input_tensor, 3)
    _eq(output, input_tensor)


def test_constant_pad_nd():
    a = pyad.tensor([[1, 2], [3, 4]])
    res = pyad.constant_pad_nd(a, [1, 2, 1, 0], 9)
    expected = np.array([[9, 9, 9, 9, 9],
                         [9, 1, 2, 9, 9],
                         [9, 3, 4, 9, 9]])
    _eq(res, expected.astype(res.dtype))


def test_preserves_memory_format():
    nchw_tensor = pyad.rand(1, 2, 5, 3)
    nchw_padded = pyad.constant_pad_nd(nchw_tensor, [1, 2], 0.5)
    assert nchw_padded.is_contiguous(memory_format=pyad.contiguous_format)

    nhwc_tensor = nchw_tensor.contiguous(memory_format=pyad.channels_last)
    nhwc_padded = pyad.constant_pad_nd(nhwc_tensor, [1, 2], 0.5)
    assert nhwc_padded.is_contiguous(memory_format=pyad.channels_last)


def test_normalize():
    inputs = pyad.randn(1, 3, 4, 4, requires_grad=True, dtype=pyad.float64)
    assert gradcheck(lambda x: F.normalize(x, p=1, dim=-1), (inputs,))
    assert gradcheck(lambda x: F.normalize(x, p=2, dim=-2), (inputs,))

    inputs = pyad.randn((), requires_grad=True, dtype=pyad.float64)
    assert gradcheck(lambda x: F.normalize(x, p=1, dim=-1), (inputs,))


def test_cosine_similarity():
    # Check cosine_similarity input/output shapes
    input1 = pyad.randn(1, 3, 2, 1, requires_grad=True, dtype=pyad.float64)
    input2 = pyad.randn(1, 3, 2, 1, requires_grad=True, dtype=pyad.float64)
    assert tuple(F.cosine_similarity(input1, input2, dim=1).shape) == (1, 2, 1)

    # Check numerical precision, issue #18057
    vv1 = pyad.tensor([float(i) for i in range(84)], dtype=pyad.float64).unsqueeze(0)
    vv2 = pyad.tensor([float(i) for i in range(84)], dtype=pyad.float64).unsqueeze(0)
    out = F.cosine_similarity(vv1, vv2)
    assert out.item() <= 1.0

    # Check dividing by 0: the gradient wrt the zero vector is (y/||y||)/eps
    input1 = pyad.randn(10, dtype=pyad.float64).requires_grad_()
    input2 = pyad.zeros_like(input1).requires_grad_()
    pyad.cosine_similarity(input1, input2, 0).sum().backward()
    _close(input1.grad, np.zeros(10))
    x1 = _np(input1)
    _close(input2.grad, x1 / np.linalg.norm(x1) * 1e8, atol=1e-7, rtol=1e-7)

    # Check type promotion, issue #61454
    inp = pyad.tensor(12.)
    out = F.cosine_similarity(inp.to(pyad.int8), inp, dim=-1)
    assert out.item() == 1.

    # Check broadcasting #109333
    a = pyad.ones(2, 3, dtype=pyad.float32)
    b = pyad.ones(1, 1, dtype=pyad.float32)
    _close32(F.cosine_similarity(a, b), np.ones(2, dtype=np.float32))
    b = pyad.ones(1, dtype=pyad.float32)
    _close32(F.cosine_similarity(a, b), np.ones(2, dtype=np.float32))


def test_pairwise_distance():
    input1 = pyad.randn(4, 4, requires_grad=True, dtype=pyad.float64)
    input2 = pyad.randn(4, 4, requires_grad=True, dtype=pyad.float64)
    assert gradcheck(lambda x, y: F.pairwise_distance(x, y), (input1, input2))


def test_pdist():
    for trans in [False, True]:
        inp = pyad.randn(4, 5, dtype=pyad.float64, requires_grad=True)
        if trans:
            inp = inp.transpose(0, 1)
        for p in [0, 1, 2, 0.5, 1.5, 2.5, float("inf")]:
            assert gradcheck(lambda x: F.pdist(x, p), (inp,))


def test_adaptive_log_softmax():
    # args validation
    with pytest.raises(ValueError):
        nn.AdaptiveLogSoftmaxWithLoss(16, 20, [5, 15, 15], div_value=2.)
    with pytest.raises(ValueError):
        nn.AdaptiveLogSoftmaxWithLoss(16, 20, [5, 15, 10], div_value=2.)
    with pytest.raises(ValueError):
        nn.AdaptiveLogSoftmaxWithLoss(16, 20, [5, 10, 25], div_value=2.)
    with pytest.raises(ValueError, match="cutoffs should be a sequence of unique,"):
        nn.AdaptiveLogSoftmaxWithLoss(16, 20, [5, 10, 20], div_value=2.)
    # not raise
    nn.AdaptiveLogSoftmaxWithLoss(16, 20, [5, 10, 19], div_value=2.)

    # input shapes
    with pytest.raises(RuntimeError, match=r"Input and target should have the same size"):
        asfm = nn.AdaptiveLogSoftmaxWithLoss(16, 20, [5, 10, 15], div_value=2.)
        asfm(pyad.randn(2, 16), pyad.tensor([0, 5, 10]))

    # out-of-bound targets
    with pytest.raises(RuntimeError, match=r"Target values should be in"):
        asfm = nn.AdaptiveLogSoftmaxWithLoss(16, 20, [5, 10, 15], div_value=2.)
        asfm(pyad.randn(2, 16), pyad.tensor([0, 20]))

    # cluster sizes
    asfm = nn.AdaptiveLogSoftmaxWithLoss(16, 20, [5, 10, 15], div_value=2.)
    x = pyad.randn(2, 16)
    y = pyad.tensor([0, 17])
    assert tuple(asfm.head.weight.shape) == (5 + 3, 16)
    assert tuple(asfm.tail[0][1].weight.shape) == (5, 8)
    assert tuple(asfm.tail[1][1].weight.shape) == (5, 4)
    assert tuple(asfm.tail[2][1].weight.shape) == (5, 2)
    assert tuple(asfm(x, y).output.shape) == (2,)

    # test no_batch_dim support
    asfm = nn.AdaptiveLogSoftmaxWithLoss(16, 20, [5, 10, 15], div_value=2.)
    x = pyad.randn(1, 16)
    y = pyad.tensor([17])
    _close32(asfm(x, y).output.squeeze(0), asfm(x.squeeze(0), y.squeeze(0)).output)

    # log_probs actually returns log_proba
    asfm = nn.AdaptiveLogSoftmaxWithLoss(8, 4, [2], div_value=2.)
    x = pyad.randn(4, 8)
    logprob_out = asfm.log_prob(x)
    _close32(pyad.exp(logprob_out).detach().sum(1), np.ones(4, dtype=np.float32))

    # forward returns the same thing as log_probs
    for v in [0, 1, 2, 3]:
        y = pyad.full((4,), v, dtype=pyad.int64)
        out, loss = asfm(x, y)
        _close32(out, logprob_out.gather(1, y.unsqueeze(1)).squeeze())
        _close32(loss, F.nll_loss(logprob_out, y))

    # predict
    x = pyad.randn(64, 8).abs_()

    # argmax in shortlist
    asfm = nn.AdaptiveLogSoftmaxWithLoss(8, 10, [4, 8], div_value=2., head_bias=True)
    with pyad.no_grad():
        asfm.head.weight.abs_()
        asfm.head.bias.abs_()
        asfm.head.weight[asfm.shortlist_size:, :] = 0
    _eq(asfm.predict(x), asfm.log_prob(x).argmax(dim=1))

    # argmax outside of shortlist
    asfm = nn.AdaptiveLogSoftmaxWithLoss(8, 10, [4, 8], div_value=2., head_bias=True)
    with pyad.no_grad():
        asfm.head.weight.abs_()
        asfm.head.bias.abs_()
        asfm.head.weight[:asfm.shortlist_size, :] = 0
    _eq(asfm.predict(x), asfm.log_prob(x).argmax(dim=1))

    # half of the argmax in shortlist, half in clusters
    asfm = nn.AdaptiveLogSoftmaxWithLoss(8, 10, [4, 8], div_value=2., head_bias=True)
    with pyad.no_grad():
        asfm.head.weight.abs_()
        asfm.head.bias.abs_()
        x[:32, :asfm.shortlist_size] = 0
        x[32:, asfm.shortlist_size:] = 0
        asfm.head.weight[:asfm.shortlist_size, asfm.shortlist_size:] = 0
        asfm.head.weight[asfm.shortlist_size:, :asfm.shortlist_size] = 0
    _eq(asfm.predict(x), asfm.log_prob(x).argmax(dim=1))


def test_grid_sample_error_checking():
    inp = pyad.empty(1, 1, 2, 2)
    grid = pyad.empty(1, 1, 1, 2)
    # assert no error
    F.grid_sample(inp, grid, align_corners=False)

    with pytest.raises(ValueError, match="but got: 'garbage'"):
        F.grid_sample(inp, grid, mode="garbage", align_corners=False)
    with pytest.raises(ValueError, match="but got: 'garbage'"):
        F.grid_sample(inp, grid, padding_mode="garbage", align_corners=False)
    # torch reports these two as "expected grid to have size 1 (2) in last dimension"; pyad
    # checks the dimensions first: the same refusal, its wording
    with pytest.raises(RuntimeError, match=r"expected 4D or 5D input and grid with same number "
                       r"of dimensions, but got input with sizes \[1, 2, 2\]"):
        F.grid_sample(inp[0], grid, align_corners=False)
    with pytest.raises(RuntimeError, match=r"expected 4D or 5D input and grid with same number "
                       r"of dimensions, but got input with sizes \[1, 1, 2, 2\] and grid with "
                       r"sizes \[1, 1, 1, 1, 3\]"):
        F.grid_sample(inp, pyad.empty(1, 1, 1, 1, 3), align_corners=False)
    with pytest.raises(RuntimeError, match="expected grid and input to have same batch size"):
        F.grid_sample(inp, pyad.empty(2, 1, 1, 2), align_corners=False)
    with pytest.raises(RuntimeError, match="expected grid to have size 2 in last dimension"):
        F.grid_sample(inp, pyad.empty(1, 1, 1, 3), align_corners=False)
    with pytest.raises(RuntimeError, match="expected input to have non-empty spatial "
                       "dimensions"):
        F.grid_sample(pyad.empty(1, 1, 0, 2), grid, align_corners=False)
    with pytest.raises(RuntimeError, match="bicubic interpolation only supports 4D input"):
        F.grid_sample(pyad.empty(1, 1, 2, 2, 2), pyad.empty(1, 1, 1, 1, 3), mode="bicubic")


def test_affine_grid_error_checking():
    # 2D affine
    theta = pyad.empty(1, 2, 3, dtype=pyad.float64)
    size = [1, 1, 2, 2]
    # assert no error
    F.affine_grid(theta, size, align_corners=False)

    # check for warning for empty span along dimension
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        F.affine_grid(theta, [1, 1, 2, 1], align_corners=False)
        assert "See the documentation of affine_grid for details." not in \
            " ".join(map(str, w))
        F.affine_grid(theta, [1, 1, 2, 1], align_corners=True)
        assert "See the documentation of affine_grid for details." in " ".join(map(str, w))

    with pytest.raises(ValueError, match="Expected theta to have floating point type"):
        F.affine_grid(theta.int(), size, align_corners=False)
    for bad in (theta[0], theta.unsqueeze(0), theta.repeat(1, 2, 1), theta.repeat(1, 1, 2)):
        with pytest.raises(ValueError, match="Expected a batch of 2D affine matrices of shape "
                           "Nx2x3"):
            F.affine_grid(bad, size, align_corners=False)

    # 3D affine
    theta = pyad.empty(1, 3, 4, dtype=pyad.float64)
    size = [1, 1, 2, 2, 2]
    F.affine_grid(theta, size, align_corners=False)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        F.affine_grid(theta, [1, 1, 3, 2, 1], align_corners=False)
        assert "See the documentation of affine_grid for details." not in \
            " ".join(map(str, w))
        F.affine_grid(theta, [1, 1, 3, 2, 1], align_corners=True)
        assert "See the documentation of affine_grid for details." in " ".join(map(str, w))
    for bad in (theta[0], theta.unsqueeze(0), theta.repeat(1, 2, 1), theta.repeat(1, 1, 2)):
        with pytest.raises(ValueError, match="Expected a batch of 3D affine matrices of shape "
                           "Nx3x4"):
            F.affine_grid(bad, size, align_corners=False)
    with pytest.raises(NotImplementedError, match="affine_grid only supports 4D and 5D sizes"):
        F.affine_grid(theta, [1, 2, 2], align_corners=False)
    with pytest.raises(NotImplementedError, match="affine_grid only supports 4D and 5D sizes"):
        F.affine_grid(theta, [1, 1, 2, 2, 2, 2], align_corners=False)


def test_affine_grid_3d():
    # test known input on CPU
    inp = pyad.arange(1., 13, dtype=pyad.float64).view(1, 3, 4)
    output = F.affine_grid(inp, [1, 1, 2, 2, 2], align_corners=True)
    groundtruth = np.array(
        [[[[[-2., -10., -18.], [0., 0., 0.]], [[2., 2., 2.], [4., 12., 20.]]],
          [[[4., 4., 4.], [6., 14., 22.]], [[8., 16., 24.], [10., 26., 42.]]]]]
    ).reshape(1, 2, 2, 2, 3)
    _close(output, groundtruth)
    output = F.affine_grid(inp, [1, 1, 2, 2, 2], align_corners=False)
    groundtruth = np.array(
        [[[[[1., -1., -3.], [2., 4., 6.]], [[3., 5., 7.], [4., 10., 16.]]],
          [[[4., 6., 8.], [5., 11., 17.]], [[6., 12., 18.], [7., 17., 27.]]]]]
    ).reshape(1, 2, 2, 2, 3)
    _close(output, groundtruth)

    rng = _rng(3)
    for align_corners in (True, False):
        N, C, D, H, W = (int(v) for v in rng.integers(1, 9, size=5))
        inp = pyad.randn(N, 3, 4, dtype=pyad.float64, requires_grad=True)
        with warnings.catch_warnings(record=True):
            warnings.simplefilter("always")
            assert gradcheck(lambda t: F.affine_grid(t, [N, C, D, H, W],
                                                     align_corners=align_corners), (inp,))


def test_upsamplingTrilinear3d_spatial_invariance():
    m = nn.Upsample(scale_factor=3, mode="trilinear", align_corners=False)
    in_t_9 = pyad.zeros(1, 1, 9, 9, 9)
    with pyad.no_grad():
        in_t_9[:, :, :4, :4, :4].normal_()
    with warnings.catch_warnings(record=True):
        out_t_9 = m(in_t_9)
        out_t_5 = m(in_t_9[:, :, :5, :5, :5])
    _close32(out_t_9[:, :, :15, :15, :15], out_t_5)


def test_upsampling_small_scale():
    m = nn.Upsample(scale_factor=0.5, mode="bilinear")
    in_t = pyad.arange(1, 5, dtype=pyad.float32).reshape(1, 1, 2, 2)
    out_t = m(in_t)
    _close32(out_t, np.array([[[[2.5]]]], dtype=np.float32))


def test_interpolate_undefined_behavior_casting():
    x = pyad.ones(1, 1, 16, 16)
    with pytest.raises(RuntimeError):
        F.interpolate(x, scale_factor=-1e20, mode="bilinear")
    with pytest.raises(RuntimeError):
        F.interpolate(x, scale_factor=1e20, mode="bilinear")


def test_interpolate():
    def _test_interpolate_non_integer_size_warning(in_t, out_size, dim, **kwargs):
        for size in [float(out_size), pyad.tensor(out_size, dtype=pyad.float32)]:
            with pytest.raises(TypeError, match="(expected size to be one of int or).*"):
                F.interpolate(in_t, size=(size,) * dim, **kwargs)

    def _test_interpolate_helper(in_t, scale_factor, layer, kwargs):
        out_size = int(math.floor(in_t.shape[-1] * scale_factor))
        dim = len(in_t.shape) - 2
        out_shape = [1, 1] + [out_size] * dim
        with warnings.catch_warnings(record=True):
            out_t = layer(in_t)
        _close(out_t, np.ones(out_shape))
        _close(F.interpolate(in_t, (out_size,) * dim, **kwargs),
               F.interpolate(in_t, scale_factor=scale_factor, **kwargs))
        assert gradcheck(lambda x: F.interpolate(x, out_size, **kwargs), [in_t])
        assert gradgradcheck(lambda x: F.interpolate(x, out_size, **kwargs), [in_t])
        _test_interpolate_non_integer_size_warning(in_t, out_size, dim, **kwargs)

    def _make_input(dim):
        return pyad.ones([1, 1] + [2] * dim, requires_grad=True, dtype=pyad.float64)

    for scale_factor in [0.5, 1.5, 2]:
        for mode in ["nearest", "area"]:
            kwargs = dict(mode=mode)
            m = nn.Upsample(scale_factor=scale_factor, **kwargs)
            for inp in [_make_input(1), _make_input(2), _make_input(3)]:
                _test_interpolate_helper(inp, scale_factor, m, kwargs)

        for align_corners in [True, False]:
            kwargs = dict(mode="linear", align_corners=align_corners)
            m = nn.Upsample(scale_factor=scale_factor, **kwargs)
            _test_interpolate_helper(_make_input(1), scale_factor, m, kwargs)

            kwargs = dict(mode="bilinear", align_corners=align_corners)
            m = nn.Upsample(scale_factor=scale_factor, **kwargs)
            _test_interpolate_helper(_make_input(2), scale_factor, m, kwargs)

            kwargs = dict(mode="bicubic", align_corners=align_corners)

            def m(t, kwargs=kwargs):
                return F.interpolate(t, scale_factor=scale_factor, **kwargs)
            _test_interpolate_helper(_make_input(2), scale_factor, m, kwargs)

            kwargs = dict(mode="trilinear", align_corners=align_corners)
            m = nn.Upsample(scale_factor=scale_factor, **kwargs)
            _test_interpolate_helper(_make_input(3), scale_factor, m, kwargs)


# --------------------------------------------------------------------------- RNN checks


def test_LSTM_cell_forward_input_size():
    input = pyad.randn(3, 11)
    hx = pyad.randn(3, 20)
    cx = pyad.randn(3, 20)
    lstm = nn.LSTMCell(10, 20)
    with pytest.raises(Exception):
        lstm(input, (hx, cx))


def test_LSTM_cell_forward_hidden_size():
    input = pyad.randn(3, 10)
    hx = pyad.randn(3, 21)
    cx = pyad.randn(3, 20)
    lstm = nn.LSTMCell(10, 20)
    with pytest.raises(Exception):
        lstm(input, (hx, cx))
    with pytest.raises(Exception):
        lstm(input, (cx, hx))


def test_cudnn_forward_exception():
    # torch's test runs on the CPU too: the checks are the module's, not cuDNN's
    rnns = [
        (nn.LSTM(10, 20, batch_first=True), (pyad.zeros(1, 2, 19), pyad.zeros(1, 2, 19))),
        (nn.LSTM(10, 20, batch_first=True, proj_size=10),
         (pyad.zeros(1, 2, 19), pyad.zeros(1, 2, 19))),
        (nn.GRU(10, 20, batch_first=True), pyad.zeros(1, 2, 19)),
        (nn.RNN(10, 20, batch_first=True), pyad.zeros(1, 2, 19)),
    ]
    x_wrong = pyad.randn(2, 3, 3)
    x_right = pyad.randn(2, 3, 10)
    for rnn, hidden in rnns:
        with pytest.raises(RuntimeError, match="Expected hidden.*size.*got"):
            rnn(x_right, hidden)
        with pytest.raises(RuntimeError, match=r"input.size\(-1\) must be equal to input_size"):
            rnn(x_wrong)


def test_projections_errors_on_gru_and_rnn():
    error_msg = "proj_size argument is only supported for LSTM, not RNN or GRU"
    for mode in ["RNN", "GRU"]:
        with pytest.raises(ValueError, match=error_msg):
            getattr(nn, mode)(30, 20, 2, proj_size=10)


# --------------------------------------------------------------------------- transformer


def _cos_weights(model):
    """torch's tests set every parameter, in order, to cos(arange(numel)) (float32)."""
    with pyad.no_grad():
        for p in model.parameters():
            sz = int(np.prod(p.shape))
            p.copy_(pyad.tensor(np.cos(np.arange(sz, dtype=np.float32)).reshape(p.shape)))


_DEC_IN = [[[0.4517, 0.6793, 0.5313, 0.0034], [0.2678, 0.3677, 0.4459, 0.7166]],
           [[0.8100, 0.3716, 0.4096, 0.1976], [0.6958, 0.8844, 0.6081, 0.8315]],
           [[0.0494, 0.9343, 0.5955, 0.3830], [0.5404, 0.3464, 0.9378, 0.6200]]]
_MEM_IN = [[[0.7462, 0.6653, 0.5679, 0.4891], [0.5387, 0.1655, 0.3565, 0.0471]],
           [[0.8335, 0.2799, 0.5031, 0.2947], [0.1402, 0.0318, 0.7636, 0.1346]],
           [[0.6333, 0.9344, 0.1376, 0.9938], [0.8924, 0.2872, 0.6692, 0.2944]],
           [[0.9897, 0.6915, 0.3154, 0.1733], [0.8645, 0.3513, 0.3064, 0.0767]],
           [[0.8117, 0.2366, 0.4838, 0.7881], [0.3718, 0.4945, 0.9511, 0.0864]]]
_REF_RELU_4 = [[[2.430065, 0.027862, -0.601136, -0.073096],
                [2.431935, 0.028907, -0.599809, -0.072488]],
               [[2.428457, 0.027053, -0.602275, -0.073462],
                [2.431970, 0.029387, -0.599789, -0.071621]],
               [[2.431934, 0.028196, -0.599802, -0.073809],
                [2.432306, 0.028858, -0.599542, -0.072846]]]
_REF_TGT_MASK = [[[2.430025, 0.027643, -0.601164, -0.073476],
                  [2.4323, 0.029375, -0.599553, -0.071881]],
                 [[2.428523, 0.026838, -0.602226, -0.07391],
                  [2.432634, 0.029842, -0.599318, -0.071253]],
                 [[2.432278, 0.028152, -0.599555, -0.074139],
                  [2.432659, 0.029244, -0.599294, -0.072382]]]
_REF_MEM_MASK = [[[2.429757, 0.027358, -0.601351, -0.073816],
                  [2.432692, 0.028583, -0.599263, -0.073634]],
                 [[2.428247, 0.02662, -0.602419, -0.074123],
                  [2.432657, 0.029055, -0.599293, -0.072732]],
                 [[2.431515, 0.027687, -0.600096, -0.074459],
                  [2.433075, 0.028543, -0.598987, -0.073985]]]
_REF_GELU_4 = [[[2.42049104, 0.03443088, -0.60793706, -0.05436271],
                [2.42210631, 0.03546578, -0.60679895, -0.05357488]],
               [[2.41907674, 0.0336104, -0.60892977, -0.05490462],
                [2.42216881, 0.03586554, -0.6067524, -0.05289126]],
               [[2.42205716, 0.03488046, -0.60683681, -0.05460596],
                [2.42240309, 0.0354595, -0.60659063, -0.05378816]]]


def _t(a):
    return pyad.tensor(np.asarray(a, dtype=np.float32))


def _check(result, ref, atol=1e-5, rtol=0.0):
    ref = np.asarray(ref, dtype=np.float32)
    result = _np(result)
    assert tuple(result.shape) == tuple(ref.shape)
    np.testing.assert_allclose(result, ref, atol=atol, rtol=rtol)


@pytest.mark.parametrize("batch_first", [False, True])
def test_transformerdecoderlayer(batch_first):
    # this is a deterministic test for TransformerDecoderLayer
    def perm_fn(x):
        return x.transpose(1, 0) if batch_first else x

    def perm(a):
        return np.swapaxes(np.asarray(a, dtype=np.float32), 0, 1) if batch_first \
            else np.asarray(a, dtype=np.float32)

    model = nn.TransformerDecoderLayer(4, 2, 16, 0.0, batch_first=batch_first)
    _cos_weights(model)

    result = model(_t([[[20., 30., 40., 50.]]]), _t([[[60., 70., 80., 90.]]]))
    _check(result, [[[2.314351, 0.094805, -0.671322, 0.101977]]])

    decoder_input = perm_fn(_t([[[9., 10., 11., 12.]], [[11., 12., 13., 14.]]]))
    memory_input = _t([[[1., 2., 3., 4.]]])
    result = model(decoder_input, memory_input)
    _check(result, perm([[[2.422245, 0.051716, -0.606338, -0.024756]],
                         [[2.422245, 0.051716, -0.606338, -0.024756]]]))

    decoder_input = perm_fn(_t([[[1., 2., 3., 4.]], [[5., 6., 7., 8.]]]))
    memory_input = perm_fn(_t([[[9., 10., 11., 12.]], [[11., 12., 13., 14.]]]))
    result = model(decoder_input, memory_input)
    _check(result, perm([[[2.343536, 0.085561, -0.654954, 0.074991]],
                         [[2.343536, 0.085561, -0.654954, 0.074991]]]))

    decoder_input = perm_fn(_t(_DEC_IN))
    memory_input = perm_fn(_t(_MEM_IN))
    _check(model(decoder_input, memory_input), perm(_REF_RELU_4))

    # key_padding_mask
    key_padding_mask = np.zeros((2, 3), dtype=bool)
    _check(model(decoder_input, memory_input,
                 tgt_key_padding_mask=pyad.tensor(key_padding_mask)), perm(_REF_RELU_4))
    key_padding_mask[0, 2] = key_padding_mask[1, 1] = key_padding_mask[1, 2] = True
    _check(model(decoder_input, memory_input,
                 tgt_key_padding_mask=pyad.tensor(key_padding_mask)), perm(_REF_TGT_MASK))

    # memory_key_padding_mask
    key_padding_mask = np.zeros((2, 5), dtype=bool)
    _check(model(decoder_input, memory_input,
                 memory_key_padding_mask=pyad.tensor(key_padding_mask)), perm(_REF_RELU_4))
    key_padding_mask[0, 4] = key_padding_mask[1, 3] = key_padding_mask[1, 4] = True
    _check(model(decoder_input, memory_input,
                 memory_key_padding_mask=pyad.tensor(key_padding_mask)), perm(_REF_MEM_MASK))


@pytest.mark.parametrize("activation", ["gelu", "F.gelu", "nn.GELU()"])
@pytest.mark.parametrize("batch_first", [True, False])
def test_transformerdecoderlayer_gelu(activation, batch_first):
    # this is a deterministic test for TransformerDecoderLayer with gelu activation
    activation = {"gelu": "gelu", "F.gelu": F.gelu, "nn.GELU()": nn.GELU()}[activation]

    def perm_fn(x):
        return x.transpose(1, 0) if batch_first else x

    def perm(a):
        return np.swapaxes(np.asarray(a, dtype=np.float32), 0, 1) if batch_first \
            else np.asarray(a, dtype=np.float32)

    model = nn.TransformerDecoderLayer(4, 2, 16, 0.0, activation, batch_first=batch_first)
    _cos_weights(model)
    # torch.testing.assert_close(result, ref_output, rtol=1e-5, atol=0)
    result = model(_t([[[20., 30., 40., 50.]]]), _t([[[60., 70., 80., 90.]]]))
    _check(result, [[[2.306435, 0.095946, -0.675796, 0.10687]]], atol=0, rtol=1e-5)

    result = model(perm_fn(_t([[[9., 10., 11., 12.]], [[11., 12., 13., 14.]]])),
                   perm_fn(_t([[[1., 2., 3., 4.]]])))
    _check(result, perm([[[2.415448, 0.054389, -0.610932, -0.0156613]],
                         [[2.415448, 0.054389, -0.610932, -0.0156613]]]), atol=0, rtol=1e-5)

    result = model(perm_fn(_t([[[1., 2., 3., 4.]], [[5., 6., 7., 8.]]])),
                   perm_fn(_t([[[9., 10., 11., 12.]], [[11., 12., 13., 14.]]])))
    _check(result, perm([[[2.338531, 0.087709, -0.65776, 0.080646]],
                         [[2.338531, 0.087709, -0.65776, 0.080646]]]), atol=0, rtol=1e-5)

    result = model(perm_fn(_t(_DEC_IN)), perm_fn(_t(_MEM_IN)))
    _check(result, perm(_REF_GELU_4), atol=0, rtol=1e-5)


@pytest.mark.parametrize("batch_first", [False, True])
def test_transformerdecoder(batch_first):
    def get_a_test_layer(activation):
        layer = nn.TransformerDecoderLayer(4, 2, dim_feedforward=16, dropout=0.0,
                                           activation=activation, batch_first=batch_first)
        _cos_weights(layer)
        return layer

    def perm_fn(x):
        return x.transpose(1, 0) if batch_first else x

    def perm(a):
        return np.swapaxes(np.asarray(a, dtype=np.float32), 0, 1) if batch_first \
            else np.asarray(a, dtype=np.float32)

    decoder_layer = get_a_test_layer(F.relu)
    model = nn.TransformerDecoder(decoder_layer, 1)

    result = model(_t([[[20., 30., 40., 50.]]]), _t([[[60., 70., 80., 90.]]]))
    _check(result, [[[2.314351, 0.094805, -0.671322, 0.101977]]], atol=1e-3, rtol=1e-7)

    result = model(perm_fn(_t([[[9., 10., 11., 12.]], [[11., 12., 13., 14.]]])),
                   perm_fn(_t([[[1., 2., 3., 4.]]])))
    _check(result, perm([[[2.422245, 0.051716, -0.606338, -0.024756]],
                         [[2.422245, 0.051716, -0.606338, -0.024756]]]), atol=1e-4, rtol=1e-7)

    result = model(perm_fn(_t([[[1., 2., 3., 4.]], [[5., 6., 7., 8.]]])),
                   perm_fn(_t([[[9., 10., 11., 12.]], [[11., 12., 13., 14.]]])))
    _check(result, perm([[[2.343536, 0.085561, -0.654954, 0.074991]],
                         [[2.343536, 0.085561, -0.654954, 0.074991]]]), atol=1e-4, rtol=1e-7)

    decoder_input = perm_fn(_t(_DEC_IN))
    memory_input = perm_fn(_t(_MEM_IN))
    _check(model(decoder_input, memory_input), perm(_REF_RELU_4), atol=1e-5, rtol=1e-7)

    key_padding_mask = np.zeros((2, 3), dtype=bool)
    _check(model(decoder_input, memory_input,
                 tgt_key_padding_mask=pyad.tensor(key_padding_mask)),
           perm(_REF_RELU_4), atol=1e-5, rtol=1e-7)
    key_padding_mask[0, 2] = key_padding_mask[1, 1] = key_padding_mask[1, 2] = True
    _check(model(decoder_input, memory_input,
                 tgt_key_padding_mask=pyad.tensor(key_padding_mask)),
           perm(_REF_TGT_MASK), atol=1e-5, rtol=1e-7)

    key_padding_mask = np.zeros((2, 5), dtype=bool)
    _check(model(decoder_input, memory_input,
                 memory_key_padding_mask=pyad.tensor(key_padding_mask)),
           perm(_REF_RELU_4), atol=1e-5, rtol=1e-7)
    key_padding_mask[0, 4] = key_padding_mask[1, 3] = key_padding_mask[1, 4] = True
    _check(model(decoder_input, memory_input,
                 memory_key_padding_mask=pyad.tensor(key_padding_mask)),
           perm(_REF_MEM_MASK), atol=1e-5, rtol=1e-7)

    # multiple layers no norm
    model = nn.TransformerDecoder(decoder_layer, 2)
    result = model(_t([[[20., 30., 40., 50.]]]), _t([[[60., 70., 80., 90.]]]))
    _check(result, [[[2.31316, 0.0950293, -0.671995, 0.102802]]], atol=1e-3, rtol=1e-7)

    model = nn.TransformerDecoder(decoder_layer, 6)
    result = model(decoder_input, memory_input)
    row = [[2.42794, 0.026164, -0.60263, -0.0747591],
           [2.43113, 0.0279516, -0.600376, -0.0736896]]
    _check(result, perm([row, row, row]), atol=1e-5, rtol=1e-7)

    # multiple layers with norm
    norm = nn.LayerNorm(4)
    model = nn.TransformerDecoder(decoder_layer, 2, norm=norm)
    result = model(_t([[[20., 30., 40., 50.]]]), _t([[[60., 70., 80., 90.]]]))
    _check(result, [[[1.66166, -0.326986, -1.01466, -0.320017]]], atol=1e-3, rtol=1e-7)

    model = nn.TransformerDecoder(decoder_layer, 6, norm=norm)
    result = model(decoder_input, memory_input)
    row = [[1.69559, -0.357291, -0.894741, -0.443553],
           [1.69571, -0.357363, -0.894154, -0.444196]]
    _check(result, perm([row, row, row]), atol=1e-5, rtol=1e-7)

    # gelu activation test cases
    decoder_layer = get_a_test_layer("gelu")
    model = nn.TransformerDecoder(decoder_layer, 1)
    result = model(_t([[[20., 30., 40., 50.]]]), _t([[[60., 70., 80., 90.]]]))
    _check(result, [[[2.306435, 0.095946, -0.675796, 0.10687]]], atol=1e-3, rtol=1e-7)
    result = model(perm_fn(_t([[[9., 10., 11., 12.]], [[11., 12., 13., 14.]]])),
                   perm_fn(_t([[[1., 2., 3., 4.]]])))
    _check(result, perm([[[2.415448, 0.054389, -0.610932, -0.0156613]],
                         [[2.415448, 0.054389, -0.610932, -0.0156613]]]), atol=1e-4, rtol=1e-7)
    result = model(perm_fn(_t([[[1., 2., 3., 4.]], [[5., 6., 7., 8.]]])),
                   perm_fn(_t([[[9., 10., 11., 12.]], [[11., 12., 13., 14.]]])))
    _check(result, perm([[[2.338531, 0.087709, -0.65776, 0.080646]],
                         [[2.338531, 0.087709, -0.65776, 0.080646]]]), atol=1e-4, rtol=1e-7)
    _check(model(decoder_input, memory_input), perm(_REF_GELU_4), atol=1e-5, rtol=1e-7)


def test_Transformer_cell():
    # this is just a smoke test; torch's sizes (d_model 512, 4 + 3 layers, float64)
    d_model, nhead, num_encoder_layers, num_decoder_layers = 512, 16, 4, 3
    dim_feedforward, dropout, bsz, seq_length, tgt_length = 256, 0.3, 8, 35, 15
    for batch_first, src_size, tgt_size in zip((True, False),
                                               [(bsz, seq_length, d_model),
                                                (seq_length, bsz, d_model)],
                                               [(bsz, tgt_length, d_model),
                                                (tgt_length, bsz, d_model)]):
        transformer = nn.Transformer(d_model, nhead, num_encoder_layers, num_decoder_layers,
                                     dim_feedforward, dropout, batch_first=batch_first,
                                     dtype=pyad.float64)
        src = pyad.randn(*src_size, dtype=pyad.float64)
        src_mask = transformer.generate_square_subsequent_mask(seq_length).double()
        tgt = pyad.randn(*tgt_size, dtype=pyad.float64)
        tgt_mask = transformer.generate_square_subsequent_mask(tgt_length).double()
        memory_mask = pyad.randn(tgt_length, seq_length).double()
        src_key_padding_mask = pyad.rand(bsz, seq_length) >= 0.5
        tgt_key_padding_mask = pyad.rand(bsz, tgt_length) >= 0.5
        memory_key_padding_mask = pyad.rand(bsz, seq_length) >= 0.5

        output = transformer(src, tgt, src_mask=src_mask, tgt_mask=tgt_mask,
                             memory_mask=memory_mask,
                             src_key_padding_mask=src_key_padding_mask,
                             tgt_key_padding_mask=tgt_key_padding_mask,
                             memory_key_padding_mask=memory_key_padding_mask)
        assert tuple(output.shape) == tgt_size
        output.sum().backward()
        for p in transformer.parameters():
            assert p.grad is not None and p.grad.shape == p.shape


# --------------------------------------------------------------------------- losses


def test_weighted_mse_loss():
    inputs = pyad.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    targets = pyad.tensor([1.5, 2.5, 3.5, 4.5])
    weight = pyad.tensor([1.0, 2.0, 3.0, 4.0])
    loss = F.mse_loss(inputs, targets, weight=weight, reduction="mean")
    assert pyad.isclose(loss, pyad.tensor(0.25)).item(), loss


def test_weighted_l1_loss_with_weights():
    inputs = pyad.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    targets = pyad.tensor([1.5, 2.5, 3.5, 4.5])
    weight = pyad.tensor([1.0, 2.0, 3.0, 4.0])
    loss = F.l1_loss(inputs, targets, weight=weight, reduction="mean")
    assert pyad.isclose(loss, pyad.tensor(0.5)).item(), loss


def test_weighted_huber_loss():
    # torch's test only prints torch.isclose(loss, 0.25) (which is False: the weighted
    # mean is 0.125 * mean(weight) = 0.3125); here pyad's value is compared with torch's
    vals = ([1.0, 2.0, 3.0, 4.0], [1.5, 2.5, 3.5, 4.5], [1.0, 2.0, 3.0, 4.0])
    loss = F.huber_loss(input=pyad.tensor(vals[0], requires_grad=True),
                        target=pyad.tensor(vals[1]), weight=pyad.tensor(vals[2]),
                        reduction="mean", delta=1.0)
    expected = tF.huber_loss(input=torch.tensor(vals[0], requires_grad=True),
                             target=torch.tensor(vals[1]), weight=torch.tensor(vals[2]),
                             reduction="mean", delta=1.0)
    _close32(loss, expected)
    _close32(loss, np.float32(0.3125))


def test_gaussian_nll_loss_broadcasting():
    input = pyad.tensor([[0.5, 1.5, 2.5], [2., 4., 6.]])
    target_full = pyad.tensor([[1., 2., 3.], [1., 2., 3.]])
    target_part = pyad.tensor([[1., 2., 3.]])
    var_full = pyad.tensor([[0.5, 0.5, 0.5], [1.5, 1.5, 1.5]])
    var_part1 = pyad.tensor([[0.5], [1.5]])
    var_part2 = pyad.tensor([0.5, 1.5])
    component_wise_loss = 0.5 * (pyad.log(var_full) + (input - target_full) ** 2 / var_full)
    _close32(component_wise_loss,
             F.gaussian_nll_loss(input, target_part, var_full, reduction="none"))
    _close32(component_wise_loss,
             F.gaussian_nll_loss(input, target_full, var_part1, reduction="none"))
    _close32(component_wise_loss,
             F.gaussian_nll_loss(input, target_full, var_part2, reduction="none"))
    _close32(component_wise_loss,
             F.gaussian_nll_loss(input, target_part, var_part1, reduction="none"))
    _close32(component_wise_loss,
             F.gaussian_nll_loss(input, target_part, var_part2, reduction="none"))


def test_CTCLoss_zero_lengths():
    N, S, C, T = 3, 2, 200, 1
    target = pyad.randint(1, C, (N, S), dtype=pyad.int32)
    input_lengths = pyad.full((N,), 0, dtype=pyad.int32)
    target_lengths = pyad.full((N,), 0, dtype=pyad.int32)
    inp = pyad.randn(T, N, C, dtype=pyad.float32).log_softmax(2).detach().requires_grad_()
    res = F.ctc_loss(inp, target, input_lengths, target_lengths, reduction="none")
    assert (res == 0).all().item()
    res.sum().backward()
    assert (inp.grad == 0).all().item()

    target_lengths = pyad.full((N,), 1, dtype=pyad.int32)
    inp = pyad.randn(T, N, C, dtype=pyad.float32).log_softmax(2).detach().requires_grad_()
    res = F.ctc_loss(inp, target, input_lengths, target_lengths, reduction="none")
    assert (res == math.inf).all().item()
    res.sum().backward()
    assert (inp.grad == 0).all().item()


def test_bce_loss_input_range():
    bceloss = nn.BCELoss()
    target = pyad.rand(25, 25)
    output_valid = pyad.rand(25, 25)
    output_too_negative = output_valid - 1.0
    output_too_positive = output_valid + 1.0
    bceloss(output_valid, target)
    with pytest.raises(RuntimeError, match="between 0 and 1"):
        bceloss(output_too_negative, target)
    with pytest.raises(RuntimeError, match="between 0 and 1"):
        bceloss(output_too_positive, target)


def test_bce_with_logits_has_correct_forward_grad():
    output = pyad.randn(3, 5, requires_grad=True, dtype=pyad.float64)
    target = pyad.randn(3, 5, dtype=pyad.float64)
    for reduction in ("sum", "mean", "none"):
        assert gradcheck(lambda x, t: nn.BCEWithLogitsLoss(reduction=reduction)(x, t),
                         (output, target), check_forward_ad=True)


def test_batchnorm_raises_error_if_running_var_is_not_same_size_as_input():
    input = pyad.rand(2, 10)
    running_mean = pyad.rand(10)
    for size in [9, 11]:
        with pytest.raises(RuntimeError):
            F.batch_norm(input, running_mean, pyad.rand(size))


_MATH_DTYPES = [np.uint8, np.int8, np.int16, np.int32, np.int64,
                np.float16, np.float32, np.float64]


def test_cosine_embedding_loss_with_diff_type():
    input1 = pyad.tensor([[2, 3, 4], [6, 2, 4]], dtype=pyad.float64)
    input2 = pyad.tensor([[2, 3, 5], [3, 2, 1]], dtype=pyad.float64)
    target = pyad.tensor([1, -1], dtype=pyad.int32)
    expected = F.cosine_embedding_loss(input1, input2, target)
    texpected = tF.cosine_embedding_loss(torch.tensor([[2., 3, 4], [6, 2, 4]]).double(),
                                         torch.tensor([[2., 3, 5], [3, 2, 1]]).double(),
                                         torch.tensor([1, -1], dtype=torch.int))
    _close(expected, texpected)
    for dt1 in _MATH_DTYPES:
        for dt2 in _MATH_DTYPES:
            for dt3 in _MATH_DTYPES:
                # dt3 is used as dtype for target = [1, -1], so let's skip unsigned type
                if dt3 == np.uint8:
                    continue
                result = F.cosine_embedding_loss(input1.to(dt1), input2.to(dt2),
                                                 target.to(dt3))
                assert abs(result.item() - texpected.item()) <= 0.001, (dt1, dt2, dt3)


def test_kl_div_with_diff_type():
    input = pyad.tensor([[2, 3, 5], [3, 2, 1]], dtype=pyad.float64)
    target = pyad.tensor([[1, 2, 3], [4, 5, 6]], dtype=pyad.float64)
    texpected = tF.kl_div(torch.tensor([[2., 3, 5], [3, 2, 1]]).double(),
                          torch.tensor([[1., 2, 3], [4, 5, 6]]).double())
    _close(F.kl_div(input, target), texpected)
    for input_dtype, target_dtype in itertools.product((np.float32, np.float64, np.float16),
                                                       repeat=2):
        if target_dtype == np.float16:      # torch skips a float16 target on the CPU
            continue
        result = F.kl_div(input.to(input_dtype), target.to(target_dtype))
        assert abs(result.item() - texpected.item()) <= 0.001


def test_kl_div_with_diff_type_log_target():
    input = pyad.tensor([[2, 3, 5], [3, 2, 1]], dtype=pyad.float64)
    target = pyad.tensor([[1, 2, 3], [4, 5, 6]], dtype=pyad.float64).log()
    texpected = tF.kl_div(torch.tensor([[2., 3, 5], [3, 2, 1]]).double(),
                          torch.tensor([[1., 2, 3], [4, 5, 6]]).double().log(),
                          log_target=True)
    _close(F.kl_div(input, target, log_target=True), texpected)
    for input_dtype, target_dtype in itertools.product((np.float32, np.float64, np.float16),
                                                       repeat=2):
        if target_dtype == np.float16:
            continue
        result = F.kl_div(input.to(input_dtype), target.to(target_dtype), log_target=True)
        assert abs(result.item() - texpected.item()) <= 0.001


def test_kl_div_log_softmax_target():
    a = pyad.tensor([[1.0, 2, 3], [5.0, 5, 5]])
    b = pyad.tensor([[1.0, 2, 3], [5.0, 5, 5]])
    _close32(F.kl_div(F.log_softmax(a, 1), F.log_softmax(b, 1), reduction="none",
                      log_target=True), np.zeros((2, 3), dtype=np.float32))


def _randn(*shape, seed=0):
    return _rng(seed).standard_normal(shape)


def test_cosine_embedding_loss_no_reduce():
    a, b, t = _randn(15, 10, seed=1), _randn(15, 10, seed=2), np.sign(_randn(15, seed=3))
    input1 = pyad.tensor(a, requires_grad=True)
    input2 = pyad.tensor(b, requires_grad=True)
    target = pyad.tensor(t)
    assert gradcheck(lambda x, y, z: F.cosine_embedding_loss(x, y, z, reduction="none"),
                     (input1, input2, target))
    _close(F.cosine_embedding_loss(input1, input2, target, reduction="none"),
           tF.cosine_embedding_loss(torch.tensor(a), torch.tensor(b), torch.tensor(t),
                                    reduction="none"))


def test_cosine_embedding_loss_margin_no_reduce():
    a, b, t = _randn(15, 10, seed=4), _randn(15, 10, seed=5), np.sign(_randn(15, seed=6))
    input1 = pyad.tensor(a, requires_grad=True)
    input2 = pyad.tensor(b, requires_grad=True)
    target = pyad.tensor(t)
    assert gradcheck(lambda x, y, z: F.cosine_embedding_loss(x, y, z, margin=0.5,
                                                             reduction="none"),
                     (input1, input2, target))
    _close(F.cosine_embedding_loss(input1, input2, target, margin=0.5, reduction="none"),
           tF.cosine_embedding_loss(torch.tensor(a), torch.tensor(b), torch.tensor(t),
                                    margin=0.5, reduction="none"))


def test_cosine_embedding_loss_invalid_shape():
    input1 = pyad.randn(15, 10)
    input2 = pyad.randn(15, 10)
    target = pyad.randn(15, 1).sign()
    with pytest.raises(RuntimeError, match="1D target tensor expected"):
        F.cosine_embedding_loss(input1, input2, target)
    with pytest.raises(RuntimeError, match="1D target tensor expects 2D input tensors"):
        F.cosine_embedding_loss(pyad.randn(10), pyad.randn(10), pyad.randn(10))
    with pytest.raises(RuntimeError, match="0D target tensor expects 1D input tensors"):
        F.cosine_embedding_loss(pyad.randn(2, 5), pyad.randn(2, 5), pyad.randn(()))


def test_margin_ranking_loss_no_reduce():
    a, b, t = _randn(15, seed=7) * 10, _randn(15, seed=8) * 10, np.sign(_randn(15, seed=9))
    input1 = pyad.tensor(a, requires_grad=True)
    input2 = pyad.tensor(b, requires_grad=True)
    target = pyad.tensor(t)
    assert gradcheck(lambda x, y, z: F.margin_ranking_loss(x, y, z, reduction="none"),
                     (input1, input2, target))
    _close(F.margin_ranking_loss(input1, input2, target, reduction="none"),
           tF.margin_ranking_loss(torch.tensor(a), torch.tensor(b), torch.tensor(t),
                                  reduction="none"))


def test_margin_ranking_loss_margin_no_reduce():
    a, b, t = _randn(15, seed=10) * 10, _randn(15, seed=11) * 10, np.sign(_randn(15, seed=12))
    input1 = pyad.tensor(a, requires_grad=True)
    input2 = pyad.tensor(b, requires_grad=True)
    target = pyad.tensor(t)
    assert gradcheck(lambda x, y, z: F.margin_ranking_loss(x, y, z, margin=0.5,
                                                           reduction="none"),
                     (input1, input2, target))
    _close(F.margin_ranking_loss(input1, input2, target, margin=0.5, reduction="none"),
           tF.margin_ranking_loss(torch.tensor(a), torch.tensor(b), torch.tensor(t),
                                  margin=0.5, reduction="none"))


def _triplet(kwargs, seed):
    arrs = [_randn(5, 10, seed=seed + i) for i in range(3)]
    xs = [pyad.tensor(a, requires_grad=True) for a in arrs]
    assert gradcheck(lambda x1, x2, x3: F.triplet_margin_loss(x1, x2, x3, **kwargs), xs)
    _close(F.triplet_margin_loss(*xs, **kwargs),
           tF.triplet_margin_loss(*[torch.tensor(a) for a in arrs], **kwargs))


def test_triplet_margin_loss():
    _triplet({}, 20)


def test_triplet_margin_loss_swap():
    _triplet(dict(swap=True), 30)


def test_triplet_margin_loss_no_reduce():
    _triplet(dict(reduction="none"), 40)


def test_triplet_margin_loss_swap_no_reduce():
    _triplet(dict(swap=True, reduction="none"), 50)


def test_smoothl1loss_intergral_target():
    def _input_grad(input, target, reduction):
        output = F.smooth_l1_loss(input, target, reduction=reduction, beta=0.5)
        output.sum().backward()
        return input.grad

    for dtype, reduction in itertools.product(
            [pyad.uint8, pyad.int8, pyad.int16, pyad.int32, pyad.int64],
            ("none", "sum", "mean")):
        input = pyad.randn(2, 2, requires_grad=True)
        target = pyad.randint(0, 9, (2, 2), dtype=dtype)
        input_grad_with_float_target = _input_grad(input, target.float(), reduction)
        input_grad = _input_grad(input.detach().clone().requires_grad_(True), target,
                                 reduction)
        _close32(input_grad, input_grad_with_float_target)


def test_cross_entropy_loss():
    dtype = pyad.bfloat16
    loss_cpu = nn.CrossEntropyLoss()
    inputf = pyad.randn(15, 10, dtype=pyad.float32, requires_grad=True)
    input = inputf.to(dtype).detach().requires_grad_(True)
    target = pyad.randint(0, 10, (15,), dtype=pyad.int64)

    outf = loss_cpu(inputf, target)
    out = loss_cpu(input, target)
    assert out.dtype == dtype
    _close(out.float(), outf.to(dtype=dtype).float(), atol=1e-1, rtol=0)

    outf.backward()
    out.backward()
    _close(input.grad.float(), inputf.grad.to(dtype=dtype).float(), atol=1e-1, rtol=0)


def test_cross_entropy_loss_zero_div():
    # Test for issue #73165
    input_1 = pyad.rand(5, 0, dtype=pyad.float32)
    input_2 = pyad.rand(5, 0, dtype=pyad.float32)
    out = nn.CrossEntropyLoss()(input_1, input_2)
    tout = tnn.CrossEntropyLoss()(torch.rand(5, 0), torch.rand(5, 0))
    _eq(out, tout)


# --------------------------------------------------------------------------- more Module API


def test_share_memory():
    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.p = nn.Parameter(pyad.eye(5))
            self.par = nn.ParameterList()
            self.par.append(nn.Parameter(pyad.randn(10)))

        def forward(self, inp):
            # NB: dead code
            return inp.clone()

    net = Net()
    # torch asks p.storage().is_shared(); pyad has no storage objects: Variable.is_shared()
    for p in net.parameters():
        assert not p.is_shared()
    for b in net.buffers():
        assert not b.is_shared()
    assert net.share_memory() is net
    for p in net.parameters():
        assert p.is_shared()
    for b in net.buffers():
        assert b.is_shared()


def test_spectral_norm_load_state_dict():
    import copy
    inp = pyad.randn(2, 3)
    for activate_times in (0, 3):
        # Test backward compatibility
        # At version None -> 1: weight becomes not a buffer and v vector becomes a buffer
        m = nn.Linear(3, 5)
        snm = nn.utils.spectral_norm(m)
        snm.train()
        for _ in range(activate_times):
            snm(inp)

        version_latest_ref_state_dict = copy.deepcopy(snm.state_dict())
        assert {"weight_orig", "bias", "weight_u", "weight_v"} == \
            set(version_latest_ref_state_dict.keys())

        # test that non-strict loading works
        non_strict_state_dict = copy.deepcopy(version_latest_ref_state_dict)
        non_strict_state_dict["nonsense"] = "nonsense"
        with pytest.raises(RuntimeError, match=r'Unexpected key\(s\) in state_dict: "nonsense"'):
            snm.load_state_dict(non_strict_state_dict, strict=True)
        snm.load_state_dict(non_strict_state_dict, strict=False)
        del non_strict_state_dict["weight_orig"]
        snm.load_state_dict(non_strict_state_dict, strict=False)
        del non_strict_state_dict["weight_u"]
        snm.load_state_dict(non_strict_state_dict, strict=False)
        del non_strict_state_dict["weight_v"]
        snm.load_state_dict(non_strict_state_dict, strict=False)
        non_strict_state_dict["weight"] = snm.weight.detach().clone()  # set W as a buffer
        snm.load_state_dict(non_strict_state_dict, strict=False)
        del non_strict_state_dict._metadata[""]["spectral_norm"]       # remove metadata info
        snm.load_state_dict(non_strict_state_dict, strict=False)
        del non_strict_state_dict["weight"]                            # remove W buffer
        snm.load_state_dict(non_strict_state_dict, strict=False)
        del non_strict_state_dict["bias"]
        snm.load_state_dict(non_strict_state_dict, strict=False)

        # craft a version None state_dict
        version_none_state_dict = copy.deepcopy(version_latest_ref_state_dict)
        assert "spectral_norm" in version_none_state_dict._metadata[""]
        del version_none_state_dict._metadata[""]["spectral_norm"]       # remove metadata info
        del version_none_state_dict["weight_v"]                          # remove v vector
        version_none_state_dict["weight"] = snm.weight.detach().clone()  # set W as a buffer

        # normal state_dict
        for version_latest_with_metadata in [True, False]:
            version_latest_state_dict = copy.deepcopy(version_latest_ref_state_dict)
            if not version_latest_with_metadata:
                # We want to still load a user-crafted state_dict, one without metadata
                del version_latest_state_dict._metadata[""]["spectral_norm"]

            # test that re-wrapping does not matter
            m = nn.utils.remove_spectral_norm(snm)
            snm = nn.utils.spectral_norm(m)

            snm.load_state_dict(version_latest_ref_state_dict)
            with pyad.no_grad():
                snm.eval()
                out0_eval = snm(inp)
                snm.train()
                out1_train = snm(inp)
                out2_train = snm(inp)
                snm.eval()
                out3_eval = snm(inp)

            m = nn.utils.remove_spectral_norm(snm)
            snm = nn.utils.spectral_norm(m)

            snm.load_state_dict(version_none_state_dict)
            if activate_times > 0:
                # loading a version None state dict assumes its values went through at
                # least one forward: equivalence only when activate_times > 0
                with pyad.no_grad():
                    snm.eval()
                    _close32(out0_eval, snm(inp))
                    snm.train()
                    _close32(out1_train, snm(inp))
                    _close32(out2_train, snm(inp))
                    snm.eval()
                    _close32(out3_eval, snm(inp))

            m = nn.utils.remove_spectral_norm(snm)
            snm = nn.utils.spectral_norm(m)

            # Test normal loading
            snm.load_state_dict(version_latest_state_dict)
            with pyad.no_grad():
                snm.eval()
                _close32(out0_eval, snm(inp))
                snm.train()
                _close32(out1_train, snm(inp))
                _close32(out2_train, snm(inp))
                snm.eval()
                _close32(out3_eval, snm(inp))


def test_overwrite_module_params_on_conversion():
    # The default-settings half of torch's test (the sparse-layout half and the
    # torch.__future__ switches are left out): under the default settings a view of a
    # module's parameter no longer shares data with its base once the module is converted
    # to another dtype.
    m = nn.Linear(20, 10).float()
    mw = m.weight[:]
    m.double()
    with pyad.no_grad():
        mw[0][0] = 5
    assert mw[0][0].dtype == pyad.float32
    assert mw._base[0][0].dtype == pyad.float64
