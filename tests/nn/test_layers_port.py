"""The everyday layers and nn.utils against torch, from torch's
weights (float64): Conv1d, ConvTranspose2d, ConvTranspose3d, BatchNorm1d, GroupNorm, InstanceNorm2d,
AvgPool2d, MaxPool1d, AdaptiveAvgPool2d, Upsample/interpolate, PixelShuffle, Dropout2d,
ModuleDict, ParameterList, ParameterDict, Bilinear, CosineSimilarity, PairwiseDistance,
clip_grad_norm_, clip_grad_value_, parameters_to_vector, vector_to_parameters."""
import numpy as np
import pytest

import pyad
import pyad.nn.functional as F
from pyad import nn
from pyad.autograd import gradcheck, gradgradcheck
from _port_helpers import torch, twin, compare

RNG = np.random.default_rng(11)


def _pair(name, *args, **kw):
    torch.manual_seed(0)
    return twin(getattr(torch.nn, name)(*args, **kw), getattr(nn, name)(*args, **kw))


LAYERS = [
    # name, args, kwargs, input shapes
    ("Conv1d", (2, 3, 3), dict(), [(4, 2, 7)]),
    ("Conv1d", (2, 4, 3), dict(stride=2, padding=1, dilation=2, groups=2), [(1, 2, 9)]),
    ("Conv1d", (2, 3, 3), dict(padding="same", bias=False), [(2, 5)]),
    ("ConvTranspose2d", (3, 2, 3), dict(), [(2, 3, 4, 5)]),
    ("ConvTranspose2d", (4, 2, 3), dict(stride=2, padding=1, output_padding=1, groups=2),
     [(1, 4, 3, 3)]),
    ("ConvTranspose2d", (2, 3, (2, 3)), dict(stride=(2, 1), dilation=2, bias=False),
     [(2, 3, 4)]),
    ("ConvTranspose3d", (2, 3, 2), dict(), [(2, 2, 3, 2, 3)]),
    ("ConvTranspose3d", (4, 2, 3), dict(stride=2, padding=1, output_padding=1, groups=2),
     [(1, 4, 2, 3, 2)]),
    ("ConvTranspose3d", (2, 1, (2, 1, 2)), dict(stride=(2, 1, 3), dilation=(2, 1, 1),
                                               padding=(1, 0, 0), bias=False), [(2, 2, 2, 3)]),
    ("Upsample", (), dict(scale_factor=1.5, mode="bicubic"), [(1, 2, 3, 4)]),
    ("Upsample", (), dict(size=(3, 4, 2), mode="trilinear"), [(1, 2, 2, 3, 3)]),
    ("BatchNorm1d", (3,), dict(), [(5, 3)]),
    ("BatchNorm1d", (3,), dict(), [(2, 3, 4)]),
    ("BatchNorm1d", (3,), dict(affine=False, momentum=None), [(4, 3)]),
    ("GroupNorm", (2, 4), dict(), [(3, 4, 5)]),
    ("GroupNorm", (1, 4), dict(affine=False, eps=1e-3), [(2, 4, 2, 3)]),
    ("InstanceNorm2d", (3,), dict(), [(2, 3, 4, 5)]),
    ("InstanceNorm2d", (3,), dict(affine=True, track_running_stats=True), [(2, 3, 4, 4)]),
    ("InstanceNorm2d", (3,), dict(affine=True), [(3, 2, 5)]),
    ("AvgPool2d", (2,), dict(), [(2, 3, 5, 4)]),
    ("AvgPool2d", (3,), dict(stride=2, padding=1, count_include_pad=False, ceil_mode=True),
     [(1, 2, 6, 7)]),
    ("MaxPool1d", (2,), dict(), [(2, 3, 7)]),
    ("MaxPool1d", (3,), dict(stride=2, padding=1, dilation=1, ceil_mode=True), [(3, 8)]),
    ("AdaptiveAvgPool2d", ((2, 3),), dict(), [(2, 3, 5, 7)]),
    ("AdaptiveAvgPool2d", (1,), dict(), [(1, 2, 4, 4)]),
    ("AdaptiveAvgPool2d", ((None, 2),), dict(), [(2, 3, 5)]),
    ("Upsample", (), dict(scale_factor=2), [(1, 2, 3, 4)]),
    ("Upsample", (), dict(size=(5, 7)), [(1, 2, 3, 4)]),
    ("Upsample", (), dict(scale_factor=1.7, mode="nearest-exact"), [(1, 2, 3, 4)]),
    ("Upsample", (), dict(scale_factor=2, mode="bilinear"), [(2, 1, 3, 4)]),
    ("Upsample", (), dict(size=(5, 3), mode="bilinear", align_corners=True), [(1, 2, 3, 4)]),
    ("Upsample", (), dict(scale_factor=(0.5, 1.5), mode="bilinear"), [(1, 2, 5, 4)]),
    ("Upsample", (), dict(size=7, mode="linear"), [(2, 3, 4)]),
    ("Upsample", (), dict(scale_factor=3), [(2, 2, 3)]),
    ("PixelShuffle", (2,), dict(), [(2, 8, 3, 4)]),
    ("PixelShuffle", (3,), dict(), [(9, 2, 2)]),
    ("PixelUnshuffle", (2,), dict(), [(1, 2, 4, 6)]),
    ("Bilinear", (3, 4, 5), dict(), [(6, 3), (6, 4)]),
    ("Bilinear", (2, 3, 1), dict(bias=False), [(2, 4, 2), (2, 4, 3)]),
    ("CosineSimilarity", (), dict(), [(4, 5), (4, 5)]),
    ("CosineSimilarity", (), dict(dim=0, eps=1e-3), [(3, 2), (1, 2)]),
    ("PairwiseDistance", (), dict(), [(4, 5), (4, 5)]),
    ("PairwiseDistance", (), dict(p=1.0, keepdim=True), [(3, 2), (3, 2)]),
]


@pytest.mark.parametrize("name,args,kw,shapes", LAYERS,
                         ids=["%s-%d" % (c[0], i) for i, c in enumerate(LAYERS)])
@pytest.mark.parametrize("mode", ["train", "eval"])
def test_layer_matches_torch(name, args, kw, shapes, mode):
    t, p = _pair(name, *args, **kw)
    getattr(t, mode)()
    getattr(p, mode)()
    inputs = [RNG.standard_normal(s) for s in shapes]
    compare(t, p, inputs)
    # buffers (running statistics) evolve the same way
    for (k, tb), (pk, pb) in zip(t.state_dict().items(), p.state_dict().items()):
        assert k == pk
        np.testing.assert_allclose(pb.data, tb.numpy(), atol=1e-12, err_msg=k)


@pytest.mark.parametrize("name,args,kw,shapes", [c for c in LAYERS if c[0] in (
    "Conv1d", "ConvTranspose2d", "ConvTranspose3d", "GroupNorm", "InstanceNorm2d", "Upsample", "Bilinear",
    "PixelShuffle", "BatchNorm1d")][::2], ids=str)
def test_layer_gradcheck_and_gradgradcheck(name, args, kw, shapes):
    _, p = _pair(name, *args, **kw)
    inputs = [pyad.tensor(RNG.standard_normal(s) * 0.5, requires_grad=True) for s in shapes]
    assert gradcheck(lambda *a: p(*a), inputs)
    assert gradgradcheck(lambda *a: p(*a), inputs)


def test_batchnorm1d_running_stats_over_steps_and_eval():
    t, p = _pair("BatchNorm1d", 4, momentum=0.3)
    for _ in range(3):
        x = RNG.standard_normal((5, 4, 2))
        compare(t, p, [x])
    t.eval()
    p.eval()
    compare(t, p, [RNG.standard_normal((1, 4))])
    assert int(p.num_batches_tracked.item()) == 3
    with pytest.raises(ValueError, match="expected 2D or 3D input"):
        nn.BatchNorm1d(3)(pyad.randn(2, 3, 4, 5))


def test_conv_transpose3d_output_size_and_errors():
    t, p = _pair("ConvTranspose3d", 2, 1, 3, stride=2, padding=1)
    x = RNG.standard_normal((1, 2, 2, 3, 3))
    compare(t, p, [x], call=lambda m, x: m(x, output_size=[4, 6, 5]))
    with pytest.raises(ValueError):
        t(torch.zeros(1, 2, 2, 3, 3, dtype=torch.float64), output_size=[9, 6, 6])
    with pytest.raises(ValueError, match="output size"):
        p(pyad.zeros(1, 2, 2, 3, 3, dtype=pyad.float64), output_size=[9, 6, 6])
    with pytest.raises(RuntimeError):
        torch.nn.functional.conv_transpose3d(torch.ones(1, 3, 2, 2, 2), torch.ones(2, 1, 1, 1, 1))
    with pytest.raises(RuntimeError, match="channels"):
        F.conv_transpose3d(pyad.ones(1, 3, 2, 2, 2), pyad.ones(2, 1, 1, 1, 1))


def test_conv_transpose2d_output_size():
    t, p = _pair("ConvTranspose2d", 2, 2, 3, stride=2, padding=1)
    x = RNG.standard_normal((1, 2, 4, 4))
    compare(t, p, [x], call=lambda m, x: m(x, output_size=[8, 8]))
    with pytest.raises(ValueError):
        p(pyad.tensor(x), output_size=[12, 12])


def test_interpolate_errors_like_torch():
    x = pyad.randn(1, 1, 3, 3)
    with pytest.raises(ValueError, match="only one of size or scale_factor"):
        F.interpolate(x, size=4, scale_factor=2)
    with pytest.raises(ValueError, match="either size or scale_factor"):
        F.interpolate(x)
    with pytest.raises(ValueError, match="align_corners option can only be set"):
        F.interpolate(x, scale_factor=2, align_corners=True)
    with pytest.raises(NotImplementedError):
        F.interpolate(pyad.randn(1, 1, 3), scale_factor=2, mode="bilinear")
    with pytest.raises(ValueError):
        torch.nn.functional.interpolate(torch.randn(1, 1, 3, 3), size=4, scale_factor=2)


def test_group_norm_and_pixel_shuffle_errors():
    with pytest.raises(ValueError, match=r"num_channels \(\d+\) must be divisible by num_groups"):
        nn.GroupNorm(3, 4)
    with pytest.raises(ValueError):
        torch.nn.GroupNorm(3, 4)
    with pytest.raises(RuntimeError, match="pixel_shuffle"):
        F.pixel_shuffle(pyad.randn(1, 3, 2, 2), 2)
    with pytest.raises(RuntimeError):
        torch.nn.functional.pixel_shuffle(torch.randn(1, 3, 2, 2), 2)


def test_dropout2d_zeroes_whole_channels():
    d = nn.Dropout2d(0.5)
    pyad.manual_seed(0)
    x = pyad.ones(4, 16, 3, 3, requires_grad=True)
    y = d(x)
    per_channel = y.data.reshape(4, 16, 9)
    assert np.all((per_channel == 0).all(-1) | (per_channel == 2).all(-1))
    assert 0 < (per_channel == 0).all(-1).sum() < 64
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.data, y.data)
    d.eval()
    assert d(x) is x
    with pytest.raises(ValueError, match="between 0 and 1"):
        nn.Dropout2d(1.5)


def _containers(lib):
    n = lib.nn

    class Net(n.Module):
        def __init__(self):
            super().__init__()
            self.heads = n.ModuleDict({"a": n.Linear(2, 3), "b": n.Linear(3, 1)})
            self.ps = n.ParameterList([n.Parameter(lib.zeros(2)), n.Parameter(lib.zeros(3))])
            self.pd = n.ParameterDict({"scale": n.Parameter(lib.zeros(1))})
    return Net()


def test_module_dict_parameter_list_parameter_dict_match_torch_names():
    t, p = _containers(torch), _containers(pyad)
    assert [(k, tuple(v.shape)) for k, v in t.state_dict().items()] == \
        [(k, tuple(v.shape)) for k, v in p.state_dict().items()]
    assert len(p.heads) == 2 and "a" in p.heads and list(p.heads.keys()) == ["a", "b"]
    assert p.heads.pop("a").out_features == 3 and len(p.heads) == 1
    p.ps.append(pyad.ones(4))
    assert isinstance(p.ps[2], nn.Parameter) and len(p.ps) == 3 and p.ps[-1].shape == (4,)
    assert [tuple(v.shape) for v in p.ps] == [(2,), (3,), (4,)]
    p.pd["shift"] = pyad.zeros(2)
    assert isinstance(p.pd["shift"], nn.Parameter)
    assert list(p.pd) == ["scale", "shift"]
    assert "pd.shift" in dict(p.named_parameters())
    del p.pd["scale"]
    assert list(p.pd.keys()) == ["shift"] and "pd.scale" not in dict(p.named_parameters())


@pytest.mark.parametrize("norm_type", [2.0, 1.0, float("inf"), 3.0])
def test_clip_grad_norm_matches_torch(norm_type):
    torch.manual_seed(0)
    t, p = twin(torch.nn.Linear(4, 3), nn.Linear(4, 3))
    x = RNG.standard_normal((5, 4)) * 3
    compare(t, p, [x])
    tn = torch.nn.utils.clip_grad_norm_(t.parameters(), 0.5, norm_type)
    pn = nn.utils.clip_grad_norm_(p.parameters(), 0.5, norm_type)
    np.testing.assert_allclose(float(pn), float(tn), rtol=1e-12)
    for tp, pp in zip(t.parameters(), p.parameters()):
        np.testing.assert_allclose(pp.grad.data, tp.grad.numpy(), rtol=1e-12, atol=1e-15)


def test_clip_grad_norm_nonfinite_and_no_grads():
    w = nn.Parameter(pyad.ones(2))
    assert float(nn.utils.clip_grad_norm_([w], 1.0)) == 0.0
    w.grad = pyad.tensor([float("inf"), 1.0])
    with pytest.raises(RuntimeError, match="non-finite"):
        nn.utils.clip_grad_norm_([w], 1.0, error_if_nonfinite=True)


def test_clip_grad_value_and_vector_round_trip():
    torch.manual_seed(0)
    t, p = twin(torch.nn.Bilinear(2, 3, 2), nn.Bilinear(2, 3, 2))
    compare(t, p, [RNG.standard_normal((4, 2)) * 4, RNG.standard_normal((4, 3)) * 4])
    torch.nn.utils.clip_grad_value_(t.parameters(), 0.3)
    nn.utils.clip_grad_value_(p.parameters(), 0.3)
    for tp, pp in zip(t.parameters(), p.parameters()):
        np.testing.assert_array_equal(pp.grad.data, tp.grad.numpy())
    tv = torch.nn.utils.parameters_to_vector(t.parameters())
    pv = nn.utils.parameters_to_vector(p.parameters())
    np.testing.assert_array_equal(pv.data, tv.detach().numpy())
    new = RNG.standard_normal(pv.shape)
    torch.nn.utils.vector_to_parameters(torch.tensor(new), t.parameters())
    nn.utils.vector_to_parameters(pyad.tensor(new), p.parameters())
    for tp, pp in zip(t.parameters(), p.parameters()):
        np.testing.assert_array_equal(pp.data, tp.detach().numpy())
    with pytest.raises(TypeError):
        nn.utils.vector_to_parameters(new, p.parameters())


def _mask_axes(lib, f, shape, draws=30):
    """The axes along which ``f``'s dropout mask varies (over ``draws`` calls on ones)."""
    x = lib.ones(shape)
    varies = set()
    for _ in range(draws):
        y = np.asarray(f(x, 0.5).detach().numpy())
        varies.update(ax for ax in range(len(shape))
                      if not (y == y.take([0], axis=ax)).all())
    return sorted(varies)


@pytest.mark.parametrize("name", ["dropout1d", "dropout2d", "dropout3d"])
@pytest.mark.parametrize("shape", [(), (6,), (6, 5), (6, 5, 4), (6, 5, 4, 3),
                                   (6, 5, 4, 3, 2), (6, 5, 4, 3, 2, 2)])
def test_channel_dropout_of_every_rank_as_torch(name, shape):
    # torch 2.13: dropout2d of a rank other than 3 or 4 warns and drops along dims 0 and
    # 1 (a 2-D input elementwise); dropout3d of a rank other than 4 or 5 warns and treats
    # the input as unbatched (one draw per entry of dim 0); dropout1d refuses them
    import warnings
    pyad.manual_seed(0)
    torch.manual_seed(0)
    tf, pf = getattr(torch.nn.functional, name), getattr(F, name)
    with warnings.catch_warnings(record=True) as tw:
        warnings.simplefilter("always")
        try:
            expected = _mask_axes(torch, tf, shape)
        except RuntimeError:
            expected = RuntimeError
    with warnings.catch_warnings(record=True) as pw:
        warnings.simplefilter("always")
        if expected is RuntimeError:
            with pytest.raises(RuntimeError, match=name):
                _mask_axes(pyad, pf, shape)
        else:
            assert _mask_axes(pyad, pf, shape) == expected
    assert sorted({str(w.message)[:40] for w in pw}) == sorted(
        {str(w.message)[:40] for w in tw})


def test_dropout2d_of_2d_input_scales_and_backpropagates_as_its_mask():
    import warnings
    x = pyad.ones(64, 32, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        y = nn.Dropout2d(0.25)(x)
        out = F.dropout2d(x.detach().clone(), 0.25, inplace=True)
    assert set(np.unique(y.data)) == {0.0, np.float32(1 / 0.75)}
    assert set(np.unique(out.data)) <= {0.0, np.float32(1 / 0.75)}
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.data, y.data)
