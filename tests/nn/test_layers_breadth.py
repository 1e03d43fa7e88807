"""The layers of ``pyad.nn.layers_extra`` against torch's, from torch's weights (float64):
padding modules, Softmin/Softmax2d, RMSNorm, LocalResponseNorm, LazyLinear, adaptive max
pooling, max unpooling, LP pooling, ChannelShuffle, alpha dropout, Dropout3d, RReLU,
ConvTranspose1d, EmbeddingBag and the new losses: outputs, gradients (inputs and
parameters), reprs and state_dict keys."""
import math

import numpy as np
import pytest

import pyad
from pyad import nn
from pyad.autograd import gradcheck
from _port_helpers import torch, twin, compare

RNG = np.random.default_rng(17)


def _pair(name, *args, **kw):
    torch.manual_seed(0)
    return twin(getattr(torch.nn, name)(*args, **kw), getattr(nn, name)(*args, **kw))


LAYERS = [
    ("ZeroPad1d", (2,), dict(), [(2, 3, 4)]),
    ("ZeroPad2d", ((1, 0, 2, -1),), dict(), [(2, 3, 4)]),
    ("ZeroPad3d", (1,), dict(), [(1, 2, 2, 3, 2)]),
    ("ConstantPad1d", ((0, 3), 2.5), dict(), [(3, 4)]),
    ("ConstantPad2d", (1, -1.0), dict(), [(1, 2, 3, 3)]),
    ("ConstantPad3d", ((1, 0, 0, 1, 2, 0), 0.5), dict(), [(2, 2, 3, 2)]),
    ("ReflectionPad1d", (2,), dict(), [(2, 3, 4)]),
    ("ReflectionPad2d", ((1, 2, 0, 1),), dict(), [(1, 2, 3, 4)]),
    ("ReflectionPad3d", (1,), dict(), [(1, 1, 3, 3, 3)]),
    ("ReplicationPad1d", ((3, 1),), dict(), [(2, 5)]),
    ("ReplicationPad2d", (2,), dict(), [(2, 1, 2, 3)]),
    ("ReplicationPad3d", ((1, 0, 2, 1, 0, 1),), dict(), [(1, 2, 2, 2, 3)]),
    ("CircularPad1d", (2,), dict(), [(2, 3, 4)]),
    ("CircularPad2d", ((1, 2, 2, 0),), dict(), [(2, 3, 4)]),
    ("CircularPad3d", (1,), dict(), [(1, 2, 2, 3, 2)]),
    ("Softmin", (1,), dict(), [(3, 4)]),
    ("Softmax2d", (), dict(), [(2, 3, 4, 2)]),
    ("Softmax2d", (), dict(), [(3, 2, 2)]),
    ("RMSNorm", (4,), dict(), [(3, 4)]),
    ("RMSNorm", ((2, 3),), dict(eps=1e-3), [(4, 2, 3)]),
    ("RMSNorm", ((3,),), dict(elementwise_affine=False), [(2, 3)]),
    ("LocalResponseNorm", (3,), dict(), [(2, 5, 4, 4)]),
    ("LocalResponseNorm", (2,), dict(alpha=0.2, beta=0.5, k=2.0), [(3, 4, 5)]),
    ("AdaptiveMaxPool2d", ((2, 3),), dict(), [(2, 3, 5, 7)]),
    ("AdaptiveMaxPool2d", (2,), dict(return_indices=True), [(3, 4, 4)]),
    ("AdaptiveMaxPool1d", (3,), dict(), [(2, 3, 8)]),
    ("LPPool2d", (2, 2), dict(), [(1, 2, 4, 6)]),
    ("LPPool1d", (3, 2), dict(stride=1), [(2, 3, 5)]),
    ("ChannelShuffle", (2,), dict(), [(2, 4, 3, 3)]),
    ("RReLU", (0.1, 0.4), dict(), [(3, 5)]),
    ("AlphaDropout", (0.3,), dict(), [(4, 5)]),
    ("FeatureAlphaDropout", (0.3,), dict(), [(2, 4, 5)]),
    ("Dropout3d", (0.3,), dict(), [(2, 3, 2, 2, 2)]),
    ("ConvTranspose1d", (4, 3, 3), dict(), [(2, 4, 5)]),
    ("ConvTranspose1d", (4, 2, 3), dict(stride=2, padding=1, output_padding=1, groups=2,
                                        bias=False), [(4, 5)]),
    ("ConvTranspose1d", (2, 3, 2), dict(dilation=3), [(1, 2, 4)]),
    ("Conv3d", (2, 3, 2), dict(), [(2, 2, 3, 4, 3)]),
    ("Conv3d", (4, 2, (2, 1, 3)), dict(stride=(2, 1, 1), padding=(1, 0, 1), dilation=(1, 2, 1),
                                       groups=2, bias=False), [(4, 3, 4, 3)]),
    ("Conv3d", (1, 2, 3), dict(padding="same"), [(1, 1, 3, 4, 3)]),
    ("MaxPool3d", (2,), dict(), [(2, 2, 4, 4, 5)]),
    ("MaxPool3d", (3,), dict(stride=2, padding=1, ceil_mode=True, return_indices=True),
     [(2, 4, 5, 3)]),
    ("AvgPool3d", (2,), dict(), [(1, 2, 4, 3, 4)]),
    ("AvgPool3d", (3,), dict(stride=2, padding=1, count_include_pad=False, ceil_mode=True),
     [(2, 2, 5, 4, 3)]),
    ("AvgPool3d", ((1, 2, 2),), dict(divisor_override=3), [(2, 3, 4, 4)]),
    ("AdaptiveAvgPool3d", ((2, 3, None),), dict(), [(2, 2, 5, 4, 3)]),
    ("AdaptiveAvgPool3d", (1,), dict(), [(3, 2, 2, 2)]),
    ("BatchNorm3d", (3,), dict(), [(2, 3, 2, 3, 2)]),
    ("BatchNorm3d", (3,), dict(affine=False, momentum=None), [(4, 3, 1, 2, 2)]),
    ("InstanceNorm3d", (2,), dict(affine=True, track_running_stats=True), [(2, 2, 2, 3, 2)]),
    ("InstanceNorm3d", (2,), dict(), [(2, 3, 2, 2)]),
]


@pytest.mark.parametrize("name,args,kw,shapes", LAYERS,
                         ids=["%s-%d" % (c[0], i) for i, c in enumerate(LAYERS)])
def test_layer_matches_torch_in_eval(name, args, kw, shapes):
    t, p = _pair(name, *args, **kw)
    t.eval()
    p.eval()
    compare(t, p, [RNG.standard_normal(s) for s in shapes])
    if name not in ("BatchNorm3d", "InstanceNorm3d"):
        # torch 2.13's norm layers gained a keyword-only `bias` (shown in their repr),
        # which pyad's BatchNorm/InstanceNorm base classes do not have yet
        assert repr(p) == repr(t)


@pytest.mark.parametrize("name,args,kw,shapes", LAYERS,
                         ids=["%s-%d" % (c[0], i) for i, c in enumerate(LAYERS)])
def test_layer_gradcheck(name, args, kw, shapes):
    if name in ("AlphaDropout", "FeatureAlphaDropout", "Dropout3d", "RReLU"):
        pytest.skip("random in training; eval compared with torch above")
    _, p = _pair(name, *args, **kw)
    xs = [pyad.tensor(RNG.standard_normal(s), requires_grad=True) for s in shapes]
    if name.startswith("LPPool"):
        xs = [pyad.tensor(np.abs(x.data) + 0.1, requires_grad=True) for x in xs]

    def f(*v):
        out = p(*v)
        return out[0] if isinstance(out, tuple) else out
    assert gradcheck(f, xs)


def test_padding_module_input_checks():
    with pytest.raises(ValueError, match="expected 2D or 3D input"):
        nn.CircularPad1d(1)(pyad.zeros(4))
    with pytest.raises(ValueError, match="Softmax2d: expected input to be 3D or 4D"):
        nn.Softmax2d()(pyad.zeros(2, 3))


def test_training_dropouts_and_rrelu_are_random_but_shaped_like_torch():
    pyad.manual_seed(0)
    x = pyad.ones(4, 6, 2, 2, 2)
    y = nn.Dropout3d(0.5)(x)
    v = y.data.reshape(24, 8)
    assert np.all((v == 0).all(1) | (v == 2).all(1))
    r = nn.RReLU()(pyad.tensor(-np.ones(1000)))
    assert np.all((r.data <= -1 / 8) & (r.data >= -1 / 3))
    a = nn.AlphaDropout(0.5)
    assert a(x) is not x
    assert a.eval()(x) is x


def _pool_unpool(lib, n, output_size):
    class PoolUnpool(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.pool = getattr(lib.nn, "MaxPool%dd" % n)(2, return_indices=True)
            self.unpool = getattr(lib.nn, "MaxUnpool%dd" % n)(2)

        def forward(self, x):
            out, idx = self.pool(x)
            return self.unpool(out, idx, output_size=output_size)
    return PoolUnpool()


@pytest.mark.parametrize("n,shape,output_size", [(2, (2, 3, 6, 6), (7, 7)),
                                                 (2, (3, 4, 4), None), (1, (2, 3, 8), None),
                                                 (1, (3, 7), (7,))])
def test_max_unpool_modules_invert_max_pool_like_torch(n, shape, output_size):
    t, p = _pool_unpool(torch, n, output_size), _pool_unpool(pyad, n, output_size)
    assert repr(p.unpool) == repr(t.unpool)
    compare(t, p, [RNG.standard_normal(shape)])


def test_rmsnorm_weight_init_and_state_dict():
    t, p = torch.nn.RMSNorm((2, 3)), nn.RMSNorm((2, 3))
    assert list(p.state_dict()) == list(t.state_dict()) == ["weight"]
    np.testing.assert_array_equal(p.weight.data, np.ones((2, 3)))
    assert list(nn.RMSNorm(3, elementwise_affine=False).state_dict()) == []


def test_lazy_linear_materialises_on_first_call():
    lin = nn.LazyLinear(4)
    assert repr(lin) == repr(torch.nn.LazyLinear(4))
    assert isinstance(lin.weight, nn.UninitializedParameter)
    assert repr(lin.weight) == "<UninitializedParameter>"
    assert lin.has_uninitialized_params()
    with pytest.raises(ValueError, match="uninitialized parameter"):
        lin.weight.shape
    pyad.manual_seed(0)
    y = lin(pyad.randn(5, 7))
    assert y.shape == (5, 4)
    assert type(lin) is nn.Linear and lin.in_features == 7
    assert type(lin.weight) is nn.Parameter and lin.weight.shape == (4, 7)
    bound = 1 / math.sqrt(7)                    # kaiming_uniform(a=sqrt(5)) and the bias'
    assert np.all(np.abs(lin.weight.data) <= bound) and np.all(np.abs(lin.bias.data) <= bound)
    assert np.std(lin.weight.data) > 0
    assert list(lin.state_dict()) == ["weight", "bias"]
    # the parameters are the module's: an optimizer built now trains them
    opt = pyad.optim.SGD(lin.parameters(), lr=0.1)
    before = lin.weight.data.copy()
    lin(pyad.randn(5, 7)).sum().backward()
    opt.step()
    assert not np.array_equal(before, lin.weight.data)
    no_bias = nn.LazyLinear(2, bias=False)
    no_bias(pyad.zeros(1, 3))
    assert no_bias.bias is None and no_bias.weight.shape == (2, 3)


def test_embedding_bag_module_matches_torch():
    for kw in [dict(mode="sum"), dict(mode="mean", padding_idx=1), dict(mode="max"),
               dict(mode="sum", include_last_offset=True)]:
        t, p = _pair("EmbeddingBag", 6, 3, **kw)
        assert repr(p) == repr(t)
        idx = np.array([1, 2, 4, 5, 4, 3, 2, 0], dtype=np.int64)
        off = np.array([0, 2, 2, 5], dtype=np.int64)
        compare(t, p, [idx, off])
    t, p = _pair("EmbeddingBag", 6, 3, mode="sum")
    psw = RNG.standard_normal(8)
    compare(t, p, [idx, off, psw])
    torch.manual_seed(0)
    bag = nn.EmbeddingBag(1000, 8, padding_idx=3)
    assert bag.weight.data[3].tolist() == [0.0] * 8
    assert abs(float(bag.weight.data.std()) - 1) < 0.05
    pre = nn.EmbeddingBag.from_pretrained(pyad.tensor(np.eye(3)), mode="sum")
    assert not pre.weight.requires_grad
    assert pre(pyad.tensor([[0, 1]])).tolist() == [[1.0, 1.0, 0.0]]


LOSSES = [
    ("MultiLabelMarginLoss", (), dict(),
     lambda: [RNG.standard_normal((3, 4)), np.array([[3, 0, -1, 1], [1, 2, -1, 0],
                                                     [0, 1, 2, 3]])]),
    ("MultiLabelMarginLoss", (), dict(reduction="none"),
     lambda: [RNG.standard_normal(4), np.array([2, -1, 0, 1])]),
    ("MultiLabelSoftMarginLoss", (), dict(),
     lambda: [RNG.standard_normal((3, 4)), (RNG.random((3, 4)) > 0.5) * 1.0]),
    ("MultiLabelSoftMarginLoss", (), dict(reduction="sum"),
     lambda: [RNG.standard_normal((3, 4)), (RNG.random((3, 4)) > 0.5) * 1.0]),
    ("TripletMarginWithDistanceLoss", (), dict(margin=0.5, swap=True),
     lambda: [RNG.standard_normal((4, 3)) for _ in range(3)]),
]


@pytest.mark.parametrize("name,args,kw,make", LOSSES,
                         ids=["%s-%d" % (c[0], i) for i, c in enumerate(LOSSES)])
def test_loss_matches_torch(name, args, kw, make):
    t, p = _pair(name, *args, **kw)
    inputs = make()
    if name == "MultiLabelSoftMarginLoss":
        compare(t, p, inputs, call=lambda m, x, y: m(x, y.detach()))
    else:
        compare(t, p, inputs)


def test_weighted_multilabel_soft_margin_loss_keeps_weight_as_buffer():
    w = RNG.random(4)
    t = torch.nn.MultiLabelSoftMarginLoss(weight=torch.tensor(w))
    p = nn.MultiLabelSoftMarginLoss(weight=pyad.tensor(w))
    assert list(p.state_dict()) == list(t.state_dict()) == ["weight"]
    x, y = RNG.standard_normal((3, 4)), (RNG.random((3, 4)) > 0.5) * 1.0
    np.testing.assert_allclose(p(pyad.tensor(x), pyad.tensor(y)).item(),
                               t(torch.tensor(x), torch.tensor(y)).item(), rtol=1e-12)
    with pytest.raises(ValueError, match="margin"):
        nn.TripletMarginWithDistanceLoss(margin=-1)


def test_ctc_loss_module_matches_torch():
    rng = np.random.default_rng(3)
    logits = rng.standard_normal((8, 2, 4))
    targets = np.array([[1, 2, 2], [3, 1, 0]])
    for kw in [dict(), dict(blank=0, reduction="sum", zero_infinity=True)]:
        t, p = torch.nn.CTCLoss(**kw), nn.CTCLoss(**kw)
        compare(t, p, [logits, targets],
                call=lambda m, x, y: m(x.log_softmax(2), y, [8, 6], [3, 2]))


@pytest.mark.parametrize("name,args,kw,shapes", [c for c in LAYERS if "Norm3d" in c[0]])
def test_3d_norms_train_and_running_stats_match_torch(name, args, kw, shapes):
    t, p = _pair(name, *args, **kw)
    for _ in range(2):
        compare(t, p, [RNG.standard_normal(s) for s in shapes])
    for (k, tb), (pk, pb) in zip(t.state_dict().items(), p.state_dict().items()):
        assert k == pk
        np.testing.assert_allclose(np.asarray(pb.data), tb.numpy(), rtol=1e-10, atol=1e-12)


def test_max_pool3d_ties_and_indices_match_torch():
    x = np.zeros((1, 1, 3, 4, 4))
    x[0, 0, 1, 1:3, 1:3] = 1.0
    t, p = _pair("MaxPool3d", 2, stride=1, return_indices=True)
    compare(t, p, [x])


@pytest.mark.parametrize("name,kw,shape", [("LazyConv1d", dict(), (2, 3, 7)),
                                          ("LazyConv1d", dict(groups=2, bias=False), (4, 6)),
                                          ("LazyConv2d", dict(stride=2, padding=1),
                                           (1, 2, 5, 5))])
def test_lazy_convs_materialise_like_torch(name, kw, shape):
    t, p = getattr(torch.nn, name)(4, 3, **kw), getattr(nn, name)(4, 3, **kw)
    assert repr(p) == repr(t)
    assert isinstance(p.weight, nn.UninitializedParameter)
    x = RNG.standard_normal(shape)
    t(torch.tensor(x, dtype=torch.float32))
    pyad.manual_seed(0)
    p(pyad.tensor(x, dtype=pyad.float32))
    assert repr(p) == repr(t) and type(p).__name__ == type(t).__name__
    assert list(p.state_dict()) == list(t.state_dict())
    assert p.weight.shape == tuple(t.weight.shape)
    fan_in = int(np.prod(p.weight.shape[1:]))
    assert np.all(np.abs(p.weight.data) <= 1 / math.sqrt(fan_in))
    # then it is the layer itself: from torch's weights, the same outputs and gradients
    t2, p2 = twin(t, p)
    compare(t2, p2, [x])
    with pytest.raises(RuntimeError, match="Expected"):
        getattr(nn, name)(4, 3)(pyad.zeros(2))


def test_lazy_linear_loads_a_state_dict_before_its_first_call_as_torch():
    src = torch.nn.Linear(3, 2).double()
    t, p = torch.nn.LazyLinear(2).double(), nn.LazyLinear(2).double()
    sd = src.state_dict()
    t.load_state_dict(sd)
    p.load_state_dict({k: pyad.tensor(v.numpy()) for k, v in sd.items()})
    assert p.weight.shape == (2, 3) and type(p.weight) is nn.Parameter
    x = RNG.standard_normal((4, 3))
    np.testing.assert_allclose(p(pyad.tensor(x)).data, t(torch.tensor(x)).detach().numpy(),
                               rtol=1e-12)
    assert type(p) is nn.Linear and repr(p) == repr(t)
