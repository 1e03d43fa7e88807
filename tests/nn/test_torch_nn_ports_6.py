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
from collections import OrderedDict

import numpy as np
import pytest

import pyad
import pyad.nn as nn
import pyad.nn.functional as F
from pyad.nn import Parameter
from pyad.autograd import gradcheck, gradgradcheck

torch = pytest.importorskip("torch")
tnn = torch.nn
tF = torch.nn.functional


@pytest.fixture(autouse=True)
def _seeded():
    pyad.manual_seed(0)
    torch.manual_seed(0)
    yield


def _rng(seed=0):
    return np.random.default_rng(seed)


def _np(x):
    if isinstance(x, (torch.Tensor, pyad.Variable)):
        return x.detach().numpy()
    return np.asarray(x)


def _eq(a, b):
    a, b = _np(a), _np(b)
    assert a.shape == b.shape, (a.shape, b.shape)
    np.testing.assert_array_equal(a, b)


def _close(p, t, atol=1e-10, rtol=1e-9):
    p, t = _np(p), _np(t)
    assert p.shape == t.shape, (p.shape, t.shape)
    np.testing.assert_allclose(p, t, atol=atol, rtol=rtol)


def _close32(p, t):
    # torch's assertEqual tolerances for float32
    _close(p, t, atol=1e-5, rtol=1.3e-6)


def _pair(a, requires_grad=False):
    a = np.asarray(a)
    return (torch.tensor(a, requires_grad=requires_grad),
            pyad.tensor(a, requires_grad=requires_grad))


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
    # torch: RuntimeError("bicubic interpolation only supports 4D input"); pyad's grid_sample
    # has no bicubic mode at all (docs/nn-functional.md, "Not there yet")
    with pytest.raises(NotImplementedError, match="mode 'bicubic' is not supported"):
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
