"""torch's top-level neural-network functions (``pyad.dropout``, ``pyad.layer_norm``, ...,
pyad/_toplevel_nn.py) against torch's, with torch's top-level signatures: values,
first and second derivatives, gradcheck/gradgradcheck in float64, the float32,
non-contiguous, 0-d and empty variants, the random ones at p=0/p=1/eval and by their
statistics, the in-place forms, and the exception types of bad input."""
import warnings

import numpy as np
import pytest

import pyad
from _nn_helpers import Case, standard_nn_tests

torch = pytest.importorskip("torch")

IDX = np.array([[1, 0, 3], [3, 3, 2]])
RM, RV = np.array([0.1, -0.2, 0.3]), np.array([0.5, 1.5, 2.0])
BIN = np.array([1.0, -1.0, -1.0, 1.0])          # a +-1 target of 4
PROB = np.array([[0.2, 0.7, 0.1, 0.9], [0.5, 0.3, 0.6, 0.4], [0.8, 0.1, 0.3, 0.5]])


def T(L, a):
    """A constant tensor of the library ``L`` (pyad or torch) from ``a``."""
    return L.lib.as_tensor(L.c(a))


def _losses():
    out = []
    for r in (0, 1, 2):
        out += [
            Case("kl_div_r%d" % r, lambda L, x, r=r: L.lib.kl_div(x, T(L, PROB), r),
                 [(3, 4)]),
            Case("kl_div_log_target_r%d" % r, lambda L, x, y, r=r: L.lib.kl_div(
                x, y, r, log_target=True), [(3, 4), (3, 4)]),
            Case("bce_logits_r%d" % r, lambda L, x, r=r:
                 L.lib.binary_cross_entropy_with_logits(x, T(L, PROB), T(L, PROB[::-1] + 1),
                                                        T(L, PROB[0] * 2), r), [(3, 4)]),
            Case("bce_logits_plain_r%d" % r, lambda L, x, r=r:
                 L.lib.binary_cross_entropy_with_logits(x, T(L, PROB), None, None, r),
                 [(3, 4)]),
            Case("hinge_r%d" % r, lambda L, x, r=r: L.lib.hinge_embedding_loss(
                x, T(L, BIN), 0.7, r), [(4,)]),
            Case("margin_ranking_r%d" % r, lambda L, x, y, r=r: L.lib.margin_ranking_loss(
                x, y, T(L, BIN), 0.3, r), [(4,), (4,)]),
            Case("cosine_embedding_r%d" % r, lambda L, x, y, r=r:
                 L.lib.cosine_embedding_loss(x, y, T(L, BIN), 0.2, r), [(4, 3), (4, 3)]),
            Case("triplet_r%d" % r, lambda L, a, p, n, r=r: L.lib.triplet_margin_loss(
                a, p, n, 1.0, 2, 1e-6, False, r), [(4, 3), (4, 3), (4, 3)]),
            Case("poisson_nll_r%d" % r, lambda L, x, r=r: L.lib.poisson_nll_loss(
                x, T(L, PROB), True, False, 1e-8, r), [(3, 4)]),
        ]
    out += [
        Case("kl_div_other_enum_is_none", lambda L, x: L.lib.kl_div(x, T(L, PROB), 5),
             [(3, 4)]),
        Case("margin_ranking_broadcast", lambda L, x, y: L.lib.margin_ranking_loss(
        x, y, T(L, BIN[:3]), 0.1, 1), [(4, 3), (3,)]),
    Case("triplet_margin_0_and_negative", lambda L, a, p, n: L.lib.triplet_margin_loss(
        a, p, n, 0.0, 2, 1e-6, False, 2) + L.lib.triplet_margin_loss(a, p, n, -0.3, 2, 1e-6,
                                                                      True, 1),
        [(4, 3), (4, 3), (4, 3)]),
    Case("triplet_swap_p1", lambda L, a, p, n: L.lib.triplet_margin_loss(
            a, p, n, 0.5, 1, 1e-6, True), [(4, 3), (4, 3), (4, 3)]),
        Case("poisson_nll_full_rate", lambda L, x: L.lib.poisson_nll_loss(
            x, T(L, PROB * 3), False, True, 1e-8, 1), [(3, 4)], domain="positive"),
    ]
    return out


CASES = [
    # dropout family where it is deterministic: eval (the input itself), p=0, p=1
    Case("dropout_eval", lambda L, x: L.lib.dropout(x, 0.5, False) * 2, [(3, 4)],
         zero_d=[()], empty=[(0, 4)]),
    Case("dropout_p0", lambda L, x: L.lib.dropout(x, 0.0, True) * 2, [(3, 4)]),
    Case("dropout_p1", lambda L, x: L.lib.dropout(x, 1.0, True) + x, [(3, 4)],
         zero_d=[()]),
    Case("alpha_dropout_p1", lambda L, x: L.lib.alpha_dropout(x, 1.0, True) + x, [(3, 4)]),
    Case("alpha_dropout_eval", lambda L, x: L.lib.alpha_dropout(x, 0.2, False) * 2, [(3, 4)]),
    Case("feature_dropout_p1", lambda L, x: L.lib.feature_dropout(x, 1.0, True) + x,
         [(2, 3, 4)]),
    Case("feature_dropout_eval_1d", lambda L, x: L.lib.feature_dropout(x, 0.5, False) * 2,
         [(4,)]),
    Case("feature_alpha_dropout_p1", lambda L, x: L.lib.feature_alpha_dropout(x, 1.0, True)
         + x, [(2, 3, 4)]),
    # normalisation, torch's top-level argument order
    Case("batch_norm_train", lambda L, x, w, b: L.lib.batch_norm(
        x, w, b, None, None, True, 0.1, 1e-5, False), [(4, 3), (3,), (3,)]),
    Case("batch_norm_train_3d_plain", lambda L, x: L.lib.batch_norm(
        x, None, None, None, None, True, 0.1, 1e-3, True), [(2, 3, 5)]),
    Case("batch_norm_eval", lambda L, x, w, b: L.lib.batch_norm(
        x, w, b, T(L, RM), T(L, RV), False, 0.1, 1e-5, False), [(4, 3, 2), (3,), (3,)],
        empty=[(0, 3, 2), (3,), (3,)]),
    Case("instance_norm", lambda L, x, w, b: L.lib.instance_norm(
        x, w, b, None, None, True, 0.1, 1e-5, False), [(2, 3, 4), (3,), (3,)]),
    Case("instance_norm_running", lambda L, x: L.lib.instance_norm(
        x, None, None, T(L, RM), T(L, RV), False, 0.1, 1e-5, False), [(2, 3, 4)]),
    Case("layer_norm", lambda L, x: L.lib.layer_norm(x, (4,)), [(3, 4)], empty=[(0, 4)]),
    Case("layer_norm_affine", lambda L, x, w, b: L.lib.layer_norm(x, [3, 4], w, b, 1e-3, False),
         [(2, 3, 4), (3, 4), (3, 4)]),
    Case("group_norm", lambda L, x, w, b: L.lib.group_norm(x, 2, w, b), [(2, 4, 3), (4,), (4,)]),
    Case("group_norm_eps", lambda L, x: L.lib.group_norm(x, 3, None, None, 1e-2, False),
         [(2, 6, 2)]),
    Case("rms_norm", lambda L, x, w: L.lib.rms_norm(x, [4], w), [(3, 4), (4,)],
         empty=[(0, 4), (4,)]),
    Case("rms_norm_eps", lambda L, x: L.lib.rms_norm(x, (3, 4), None, 1e-3), [(2, 3, 4)]),
    # embedding: weight first; padding_idx -1 (and any negative) means none
    Case("embedding", lambda L, w: L.lib.embedding(w, T(L, IDX)), [(5, 3)]),
    Case("embedding_padding_idx", lambda L, w: L.lib.embedding(w, T(L, IDX), 3), [(5, 3)]),
    Case("embedding_negative_padding_is_none", lambda L, w: L.lib.embedding(
        w, T(L, IDX), -2), [(5, 3)]),
    Case("embedding_scale_grad_by_freq", lambda L, w: L.lib.embedding(
        w, T(L, IDX), -1, True), [(5, 3)]),
    # convolutions
    Case("conv3d", lambda L, x, w, b: L.lib.conv3d(x, w, b, 1, 1),
         [(1, 2, 3, 3, 3), (2, 2, 2, 2, 2), (2,)]),
    Case("conv_transpose1d", lambda L, x, w, b: L.lib.conv_transpose1d(x, w, b, 2, 1, 1),
         [(2, 2, 4), (2, 3, 3), (3,)]),
    Case("conv_transpose1d_groups", lambda L, x, w: L.lib.conv_transpose1d(
        x, w, None, 1, 0, 0, 2, 2), [(1, 4, 3), (4, 1, 2)]),
    Case("conv_transpose3d", lambda L, x, w: L.lib.conv_transpose3d(x, w, None, 2),
         [(1, 2, 2, 2, 2), (2, 1, 2, 2, 2)]),
    Case("convolution_1d", lambda L, x, w, b: L.lib.convolution(
        x, w, b, [2], [1], [1], False, [0], 1), [(2, 2, 5), (3, 2, 2), (3,)]),
    Case("convolution_2d_transposed", lambda L, x, w: L.lib.convolution(
        x, w, None, [2, 1], [0, 1], [1, 1], True, [1, 0], 1), [(1, 2, 3, 3), (2, 3, 2, 2)]),
    Case("convolution_3d", lambda L, x, w: L.lib.convolution(
        x, w, None, [1, 1, 1], [0, 0, 0], [1, 1, 1], False, [0, 0, 0], 1),
        [(1, 1, 3, 3, 3), (2, 1, 2, 2, 2)]),
    # shuffles and distances
    Case("pixel_shuffle", lambda L, x: L.lib.pixel_shuffle(x, 2), [(1, 8, 2, 3)]),
    Case("pixel_unshuffle", lambda L, x: L.lib.pixel_unshuffle(x, 2), [(1, 2, 4, 2)]),
    Case("channel_shuffle", lambda L, x: L.lib.channel_shuffle(x, 2), [(2, 4, 3)]),
    Case("cosine_similarity", lambda L, x, y: L.lib.cosine_similarity(x, y), [(3, 4), (3, 4)],
         empty=[(0, 4), (0, 4)]),
    Case("cosine_similarity_bcast", lambda L, x, y: L.lib.cosine_similarity(x, y, -1, 1e-6),
         [(2, 3, 4), (3, 4)]),
    Case("pairwise_distance", lambda L, x, y: L.lib.pairwise_distance(x, y), [(3, 4), (3, 4)]),
    Case("pairwise_distance_p1_keepdim", lambda L, x, y: L.lib.pairwise_distance(
        x, y, 1, 1e-3, True), [(3, 4), (4,)]),
    Case("pdist", lambda L, x: L.lib.pdist(x), [(4, 3)], domain="distinct"),
    Case("pdist_p3", lambda L, x: L.lib.pdist(x, 3), [(4, 3)], domain="distinct"),
    # activations
    Case("celu", lambda L, x: L.lib.celu(x), [(3, 4)], zero_d=[()], empty=[(0, 4)]),
    Case("celu_alpha", lambda L, x: L.lib.celu(x, 0.5), [(3, 4)]),
    Case("selu", lambda L, x: L.lib.selu(x), [(3, 4)], zero_d=[()], empty=[(0, 4)]),
    Case("rrelu_eval", lambda L, x: L.lib.rrelu(x), [(3, 4)], zero_d=[()]),
    Case("rrelu_eval_bounds", lambda L, x: L.lib.rrelu(x, 0.2, 0.6, False), [(3, 4)]),
    Case("threshold", lambda L, x: L.lib.threshold(x, 0.9, -2.0), [(3, 4)], zero_d=[()]),
] + _losses() + [
    # pooling, padding, bilinear
    Case("max_pool1d", lambda L, x: L.lib.max_pool1d(x, 2), [(2, 3, 6)], domain="distinct"),
    Case("max_pool1d_args", lambda L, x: L.lib.max_pool1d(x, 3, [2], 1, 1, True),
         [(2, 3, 6)], domain="distinct"),
    Case("max_pool3d", lambda L, x: L.lib.max_pool3d(x, 2, 1), [(1, 2, 3, 3, 3)],
         domain="distinct"),
    Case("max_pool1d_with_indices", lambda L, x: L.lib.max_pool1d_with_indices(x, 2)[0],
         [(2, 3, 6)], domain="distinct"),
    Case("avg_pool1d", lambda L, x: L.lib.avg_pool1d(x, 3, 2, 1, False, False), [(2, 3, 7)]),
    Case("avg_pool1d_default_stride", lambda L, x: L.lib.avg_pool1d(x, 2), [(2, 3, 6)]),
    Case("adaptive_avg_pool1d", lambda L, x: L.lib.adaptive_avg_pool1d(x, 4), [(2, 3, 7)]),
    Case("adaptive_max_pool1d", lambda L, x: L.lib.adaptive_max_pool1d(x, 3)[0], [(2, 3, 7)],
         domain="distinct"),
    Case("constant_pad_nd", lambda L, x: L.lib.constant_pad_nd(x, (1, 2, 0, 1), 1.5),
         [(2, 3)], empty=[(0, 3)]),
    Case("constant_pad_nd_crop", lambda L, x: L.lib.constant_pad_nd(x, [-1, 2]), [(2, 4)]),
    Case("bilinear", lambda L, x, y, w, b: L.lib.bilinear(x, y, w, b),
         [(3, 2), (3, 4), (5, 2, 4), (5,)]),
    Case("bilinear_nobias", lambda L, x, y, w: L.lib.bilinear(x, y, w),
         [(2, 3, 2), (2, 3, 4), (5, 2, 4)]),
]

for _c in CASES:
    if _c.id.startswith("embedding_") and "negative" not in _c.id:
        _c.gradcheck = False          # torch's gradient is by design not the derivative
    if _c.id.startswith("pdist"):
        _c.torch_second_order = False  # torch has no derivative of _pdist_backward

test_matches_torch_and_finite_differences, test_variant = standard_nn_tests(CASES)


NAMES = ["dropout", "dropout_", "alpha_dropout", "alpha_dropout_", "feature_dropout",
         "feature_dropout_", "feature_alpha_dropout", "feature_alpha_dropout_",
         "batch_norm", "instance_norm", "layer_norm", "group_norm", "rms_norm", "embedding",
         "conv3d", "conv_transpose1d", "conv_transpose3d", "convolution",
         "pixel_shuffle", "pixel_unshuffle", "channel_shuffle", "native_channel_shuffle",
         "cosine_similarity", "pairwise_distance", "pdist",
         "celu", "celu_", "selu", "selu_", "rrelu", "rrelu_", "threshold", "threshold_",
         "kl_div", "binary_cross_entropy_with_logits", "hinge_embedding_loss",
         "margin_ranking_loss", "cosine_embedding_loss", "triplet_margin_loss",
         "poisson_nll_loss", "ctc_loss",
         "max_pool1d", "max_pool3d", "max_pool1d_with_indices", "avg_pool1d",
         "adaptive_avg_pool1d", "adaptive_max_pool1d", "constant_pad_nd", "bilinear"]


@pytest.mark.parametrize("name", NAMES)
def test_every_name_is_top_level_exported_and_torch_has_it(name):
    assert hasattr(torch, name)
    assert name in pyad.__all__ and callable(getattr(pyad, name))
    assert getattr(pyad, name).__doc__


def _pair(shape=(3, 4), seed=0, dtype=np.float64):
    a = np.random.default_rng(seed).standard_normal(shape).astype(dtype)
    return pyad.tensor(a), torch.tensor(a)


# -- dropout: statistics, identity, in-place ---------------------------------------------

@pytest.mark.parametrize("name", ["dropout", "alpha_dropout", "feature_dropout",
                                  "feature_alpha_dropout"])
def test_dropout_family_eval_and_p0_return_the_input_itself_as_torch(name):
    x, tx = _pair((2, 3, 4))
    for p, train in ((0.5, False), (0.0, True), (1.0, False)):
        assert (getattr(pyad, name)(x, p, train) is x) == (getattr(torch, name)(tx, p, train)
                                                           is tx) is True
    e, te = pyad.ones(0, 3), torch.ones(0, 3)
    assert (getattr(pyad, name)(e, 0.5, True) is e) and (getattr(torch, name)(te, 0.5, True)
                                                         is te)


def test_dropout_statistics_and_gradient_is_the_mask():
    pyad.manual_seed(0)
    x = pyad.ones(20000, dtype=pyad.float64, requires_grad=True)
    y = pyad.dropout(x, 0.3, True)
    vals = y.data
    assert set(np.unique(vals).tolist()) <= {0.0, 1 / 0.7}
    assert abs((vals == 0).mean() - 0.3) < 0.02
    y.sum().backward()
    np.testing.assert_allclose(x.grad.data, vals)


def test_feature_dropout_drops_whole_channels_and_keeps_dtype():
    pyad.manual_seed(1)
    y = pyad.feature_dropout(pyad.ones(4, 50, 3, 2), 0.5, True)
    assert y.dtype == pyad.float32
    v = y.data.reshape(200, 6)
    assert bool(((v == 0).all(1) | (v == 2).all(1)).all())
    assert 40 < int((v == 0).all(1).sum()) < 160


def test_alpha_dropout_keeps_mean_and_variance():
    pyad.manual_seed(2)
    z = pyad.tensor(np.random.default_rng(0).standard_normal(40000))
    for name in ("alpha_dropout", "feature_alpha_dropout"):
        y = getattr(pyad, name)(z.reshape(200, 200) if "feature" in name else z, 0.3, True)
        assert abs(float(y.mean()) - float(z.mean())) < 0.05
        assert abs(float(y.std()) - float(z.std())) < 0.08


def test_dropout_argument_forms_as_torch():
    x, tx = _pair()
    for p, train in ((True, False), (1, True), (0, True)):     # a bool or int p is a float
        y, ty = pyad.dropout(x, p, train), torch.dropout(tx, p, train)
        np.testing.assert_array_equal(y.data, ty.numpy())
    with pytest.raises(TypeError):
        torch.dropout(tx, 0.5, np.bool_(True))
    with pytest.raises(TypeError):
        pyad.dropout(x, 0.5, np.bool_(True))


@pytest.mark.parametrize("name", ["dropout", "alpha_dropout", "feature_dropout",
                                  "feature_alpha_dropout"])
@pytest.mark.parametrize("make", [lambda L: L.tensor([1, 2, 3]), lambda L: L.ones(3),
                                  lambda L: L.tensor([[float("nan"), 1.0]])])
def test_p1_zeroes_any_dtype_and_rank_as_torch(name, make):
    # p == 1 multiplies by 0 before torch's dtype and rank checks (NaN stays NaN)
    y, ty = getattr(pyad, name)(make(pyad), 1.0, True), getattr(torch, name)(make(torch), 1.0,
                                                                            True)
    assert str(y.dtype) == str(ty.dtype).replace("torch.", "")
    np.testing.assert_array_equal(y.data, ty.numpy())


@pytest.mark.parametrize("name", ["dropout_", "alpha_dropout_", "feature_dropout_",
                                  "feature_alpha_dropout_"])
def test_in_place_dropouts_modify_and_return_the_input_as_torch(name):
    for p, train in ((1.0, True), (0.5, False)):
        x, tx = _pair((2, 3, 4))
        xg = x.clone().requires_grad_()
        txg = tx.clone().requires_grad_()
        h, th = xg * 2, txg * 2
        out, tout = getattr(pyad, name)(h, p, train), getattr(torch, name)(th, p, train)
        assert out is h and tout is th
        np.testing.assert_array_equal(h.data, th.detach().numpy())
        (out * out).sum().backward()
        (tout * tout).sum().backward()
        np.testing.assert_allclose(xg.grad.data, txg.grad.numpy(), rtol=1e-12)
    pyad.manual_seed(3)
    x = pyad.ones(4, 100, 2)
    assert getattr(pyad, name)(x, 0.5, True) is x
    assert (x.data == 1).mean() < 0.9          # something was dropped, in place


def test_in_place_dropout_on_a_leaf_that_requires_grad_is_refused_as_torch():
    x, tx = _pair()
    x.requires_grad_()
    tx.requires_grad_()
    with pytest.raises(RuntimeError):
        torch.dropout_(tx, 0.5, True)
    with pytest.raises(RuntimeError):
        pyad.dropout_(x, 0.5, True)


# -- in-place activations ------------------------------------------------------------------

@pytest.mark.parametrize("name, args", [("celu_", ()), ("celu_", (0.5,)), ("selu_", ()),
                                        ("rrelu_", ()), ("rrelu_", (0.1, 0.4, False)),
                                        ("threshold_", (0.2, -3.0))])
def test_in_place_activations_match_torch(name, args):
    x, tx = _pair()
    xg, txg = x.clone().requires_grad_(), tx.clone().requires_grad_()
    h, th = xg * 1.5, txg * 1.5
    out, tout = getattr(pyad, name)(h, *args), getattr(torch, name)(th, *args)
    assert out is h and tout is th
    np.testing.assert_allclose(h.data, th.detach().numpy(), rtol=1e-12)
    (out * out).sum().backward()
    (tout * tout).sum().backward()
    np.testing.assert_allclose(xg.grad.data, txg.grad.numpy(), rtol=1e-12)


@pytest.mark.parametrize("args", [(1, 5), (1.5, 5.7), (-1.5, 2.2), (2, -3.9)])
def test_threshold_of_integers_stays_integer_as_torch(args):
    a = np.array([-3, -1, 0, 1, 2, 3])
    for name in ("threshold", "threshold_"):
        y, ty = getattr(pyad, name)(pyad.tensor(a), *args), getattr(torch, name)(
            torch.tensor(a), *args)
        assert y.dtype == pyad.int64
        np.testing.assert_array_equal(y.data, ty.numpy())


def test_rrelu_training_draws_slopes_in_bounds_and_takes_a_generator():
    x = pyad.tensor(-np.ones(5000))
    y = pyad.rrelu(x, 0.1, 0.3, True)
    assert bool(((y.data <= -0.1) & (y.data >= -0.3)).all())
    assert float(y.data.std()) > 0.03
    g1, g2 = pyad.Generator().manual_seed(7), pyad.Generator().manual_seed(7)
    a, b = pyad.rrelu(x, 0.1, 0.3, True, g1), pyad.rrelu(x, 0.1, 0.3, True, g2)
    np.testing.assert_array_equal(a.data, b.data)
    assert bool(((a.data <= -0.1) & (a.data >= -0.3)).all())
    pos = pyad.tensor(np.ones(4))
    np.testing.assert_array_equal(pyad.rrelu(pos, 0.1, 0.3, True).data, np.ones(4))


# -- normalisation statistics, embedding, pools --------------------------------------------

@pytest.mark.parametrize("shape", [(5, 3), (4, 3, 2)])
def test_batch_norm_updates_running_stats_as_torch(shape):
    x, tx = _pair(shape)
    rm, rv = pyad.tensor(RM.copy()), pyad.tensor(RV.copy())
    trm, trv = torch.tensor(RM.copy()), torch.tensor(RV.copy())
    for _ in range(2):
        y = pyad.batch_norm(x, None, None, rm, rv, True, 0.3, 1e-5, False)
        ty = torch.batch_norm(tx, None, None, trm, trv, True, 0.3, 1e-5, False)
    np.testing.assert_allclose(y.data, ty.numpy(), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(rm.data, trm.numpy(), rtol=1e-12)
    np.testing.assert_allclose(rv.data, trv.numpy(), rtol=1e-12)


def test_instance_norm_updates_running_stats_as_torch():
    x, tx = _pair((2, 3, 5))
    rm, rv = pyad.tensor(RM.copy()), pyad.tensor(RV.copy())
    trm, trv = torch.tensor(RM.copy()), torch.tensor(RV.copy())
    y = pyad.instance_norm(x, None, None, rm, rv, True, 0.2, 1e-5, False)
    ty = torch.instance_norm(tx, None, None, trm, trv, True, 0.2, 1e-5, False)
    np.testing.assert_allclose(y.data, ty.numpy(), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(rm.data, trm.numpy(), rtol=1e-12)
    np.testing.assert_allclose(rv.data, trv.numpy(), rtol=1e-12)


@pytest.mark.parametrize("fn, shape", [("batch_norm", (1, 3)), ("batch_norm", (1, 3, 1)),
                                       ("batch_norm", (0, 3)), ("batch_norm", (0, 3, 2)),
                                       ("instance_norm", (2, 3, 1)),
                                       ("instance_norm", (3, 4))])
def test_one_value_per_channel_is_normalised_as_torch(fn, shape):
    # F.batch_norm / F.instance_norm refuse it; torch's top-level functions give the bias,
    # a zero gradient for the input, and a NaN running variance
    a = np.random.default_rng(0).standard_normal(shape)
    c = shape[1]
    res = []
    for L in (pyad, torch):
        x = L.tensor(a, requires_grad=True)
        w = L.tensor(np.arange(1.0, c + 1), requires_grad=True)
        b = L.tensor(np.full(c, 0.5), requires_grad=True)
        rm, rv = L.tensor(np.full(c, 0.2)), L.tensor(np.full(c, 0.7))
        y = getattr(L, fn)(x, w, b, rm, rv, True, 0.1, 1e-5, False)
        (y * y).sum().backward()
        res.append([v.detach().numpy() if L is torch else v.data
                    for v in (y, rm, rv, x.grad, w.grad, b.grad)])
    for ours, theirs in zip(*res):
        assert ours.shape == theirs.shape
        # torch's kernel leaves rounding noise (~1e-14) where the exact value is 0
        np.testing.assert_allclose(ours, theirs, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_norms_keep_the_dtype_as_torch(dtype):
    x, tx = _pair((2, 4, 3), dtype=dtype)
    for f in (lambda L, x: L.layer_norm(x, [3]), lambda L, x: L.group_norm(x, 2),
              lambda L, x: L.rms_norm(x, [3]),
              lambda L, x: L.batch_norm(x, None, None, None, None, True, 0.1, 1e-5, False)):
        y, ty = f(pyad, x), f(torch, tx)
        assert str(y.dtype) == str(ty.dtype).replace("torch.", "")
        np.testing.assert_allclose(y.data, ty.numpy(), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("padding_idx", [-1, -3, 0, 3, 7])
def test_embedding_padding_idx_gradient_as_torch(padding_idx):
    w = np.random.default_rng(0).standard_normal((5, 2))
    pw, tw = pyad.tensor(w, requires_grad=True), torch.tensor(w, requires_grad=True)
    idx = np.array([0, 3, 3, 4, 1])
    y = pyad.embedding(pw, pyad.tensor(idx), padding_idx)
    ty = torch.embedding(tw, torch.tensor(idx), padding_idx)
    np.testing.assert_array_equal(y.data, ty.detach().numpy())
    (y * y).sum().backward()
    (ty * ty).sum().backward()
    np.testing.assert_allclose(pw.grad.data, tw.grad.numpy(), rtol=1e-12)


def test_pool_tuples_and_indices_as_torch():
    x, tx = _pair((2, 3, 7))
    for name, args in (("max_pool1d_with_indices", (2,)), ("adaptive_max_pool1d", (3,)),
                       ("max_pool1d_with_indices", (3, [2], 1, 1, True))):
        out, tout = getattr(pyad, name)(x, *args), getattr(torch, name)(tx, *args)
        assert type(out) is tuple and type(tout) is tuple and len(out) == len(tout) == 2
        np.testing.assert_array_equal(out[0].data, tout[0].numpy())
        np.testing.assert_array_equal(out[1].data, tout[1].numpy())
        assert out[1].dtype == pyad.int64


def test_ctc_loss_matches_torch_for_each_reduction():
    # (None: the reduction left out, 0 in torch as in pyad)
    rng = np.random.default_rng(0)
    lp = np.log(rng.dirichlet(np.ones(4), size=(6, 2)))
    targets = np.array([[1, 2, 2], [3, 1, 0]])
    for r in (None, 0, 1, 2):
        x, tx = pyad.tensor(lp, requires_grad=True), torch.tensor(lp, requires_grad=True)
        kw = {} if r is None else {"reduction": r}
        y = pyad.ctc_loss(x, pyad.tensor(targets), [6, 5], [3, 2], 0, **kw)
        ty = torch.ctc_loss(tx, torch.tensor(targets), [6, 5], [3, 2], 0, **kw)
        assert y.shape == tuple(ty.shape)
        np.testing.assert_allclose(y.data, ty.detach().numpy(), rtol=1e-10)
        y.sum().backward()
        ty.sum().backward()
        np.testing.assert_allclose(x.grad.data, tx.grad.numpy(), rtol=1e-8, atol=1e-10)


def test_native_channel_shuffle_values_and_no_derivative_as_torch():
    x, tx = _pair((2, 6, 3))
    np.testing.assert_array_equal(pyad.native_channel_shuffle(x, 3).data,
                                  torch.native_channel_shuffle(tx, 3).numpy())
    x.requires_grad_()
    tx.requires_grad_()
    y, ty = pyad.native_channel_shuffle(x, 2), torch.native_channel_shuffle(tx, 2)
    np.testing.assert_array_equal(y.data, ty.detach().numpy())
    assert y.requires_grad and ty.requires_grad
    with pytest.raises(RuntimeError, match="derivative"):
        ty.sum().backward()
    with pytest.raises(RuntimeError, match="derivative"):
        y.sum().backward()


@pytest.mark.parametrize("r", [0, 1, 2])
def test_bce_with_logits_broadcasts_the_input_to_the_target_as_torch(r):
    # (values only: torch's own backward fails on a broadcast input)
    x, tx = _pair((1, 4))
    y = pyad.binary_cross_entropy_with_logits(x, pyad.tensor(PROB), None, None, r)
    ty = torch.binary_cross_entropy_with_logits(tx, torch.tensor(PROB), None, None, r)
    assert y.shape == tuple(ty.shape)
    np.testing.assert_allclose(y.data, ty.numpy(), rtol=1e-12)


def test_kl_div_mean_does_not_warn_as_torch():
    x, tx = _pair()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        pyad.kl_div(x, x.exp(), 1)
        torch.kl_div(tx, tx.exp(), 1)


def test_keyword_names_are_torchs():
    x, tx = _pair((2, 4, 3))
    calls = [
        ("dropout", dict(p=0.0, train=True)),
        ("layer_norm", dict(normalized_shape=[3], eps=1e-3, cudnn_enable=False)),
        ("group_norm", dict(num_groups=2, eps=1e-3, cudnn_enabled=False)),
        ("rms_norm", dict(normalized_shape=[3], eps=1e-3)),
        ("celu", dict(alpha=0.5)), ("rrelu", dict(lower=0.1, upper=0.2, training=False)),
        ("threshold", dict(threshold=0.1, value=2.0)),
        ("pixel_unshuffle", None), ("channel_shuffle", dict(groups=2)),
        ("max_pool1d", dict(kernel_size=2, stride=1, padding=1, dilation=1, ceil_mode=True)),
        ("avg_pool1d", dict(kernel_size=2, stride=1, padding=1, ceil_mode=True,
                            count_include_pad=False)),
        ("adaptive_avg_pool1d", dict(output_size=2)),
        ("constant_pad_nd", dict(pad=[1, 1], value=3.0)),
    ]
    for name, kw in calls:
        if kw is None:
            continue
        y, ty = getattr(pyad, name)(input=x, **kw), getattr(torch, name)(input=tx, **kw)
        np.testing.assert_allclose(y.data, ty.numpy(), rtol=1e-10, atol=1e-12)
    w, tw = _pair((5, 2))
    idx = np.array([1, 2])
    np.testing.assert_array_equal(
        pyad.embedding(weight=w, indices=pyad.tensor(idx), padding_idx=1).data,
        torch.embedding(weight=tw, indices=torch.tensor(idx), padding_idx=1).numpy())
    a, ta = _pair((3, 4))
    kw = dict(x1=a, x2=a * 2, dim=0, eps=1e-6)
    tkw = dict(x1=ta, x2=ta * 2, dim=0, eps=1e-6)
    np.testing.assert_allclose(pyad.cosine_similarity(**kw).data,
                               torch.cosine_similarity(**tkw).numpy(), rtol=1e-12)
    # (target exp(a / 2), not exp(a): with exp(a) every term is log(exp(a)) - a, rounding
    # noise whose sum is ~1e-16 and differs with the CPU's summation order)
    y = pyad.kl_div(input=a, target=(a * 0.5).exp(), reduction=2, log_target=False)
    ty = torch.kl_div(input=ta, target=(ta * 0.5).exp(), reduction=2, log_target=False)
    np.testing.assert_allclose(y.data, ty.numpy(), rtol=1e-12)


# -- bad input: the exception type torch raises ------------------------------------------

X34 = np.arange(12.0).reshape(3, 4) / 10


def _bad_cases():
    def c(L):
        return L.tensor(X34)
    return [
        ("dropout_no_train", lambda L: L.dropout(c(L), 0.5), TypeError),
        ("dropout_train_int", lambda L: L.dropout(c(L), 0.5, 1), TypeError),
        ("dropout_p_str", lambda L: L.dropout(c(L), "a", True), TypeError),
        ("dropout_list", lambda L: L.dropout([1.0], 0.5, True), TypeError),
        ("dropout_p_high", lambda L: L.dropout(c(L), 1.5, True), RuntimeError),
        ("dropout_p_neg_eval", lambda L: L.dropout(c(L), -0.5, False), RuntimeError),
        ("dropout_int_train", lambda L: L.dropout(L.tensor([1, 2]), 0.5, True),
         RuntimeError),
        ("alpha_dropout_p_high", lambda L: L.alpha_dropout(c(L), 2.0, False), RuntimeError),
        ("feature_dropout_1d", lambda L: L.feature_dropout(L.tensor([1.0, 2.0]), 0.5, True),
         RuntimeError),
        ("feature_alpha_dropout_1d", lambda L: L.feature_alpha_dropout(
            L.tensor([1.0, 2.0]), 0.5, True), RuntimeError),
        ("feature_dropout_no_train", lambda L: L.feature_dropout(c(L), 0.5), TypeError),
        ("batch_norm_missing", lambda L: L.batch_norm(c(L), None, None, None, None, True),
         TypeError),
        ("batch_norm_eval_no_stats", lambda L: L.batch_norm(
            c(L), None, None, None, None, False, 0.1, 1e-5, False), RuntimeError),
        ("batch_norm_weight_size", lambda L: L.batch_norm(
            c(L), L.ones(3, dtype=L.float64), None, None, None, True, 0.1, 1e-5, False),
         RuntimeError),
        ("batch_norm_1d", lambda L: L.batch_norm(
            L.tensor([1.0, 2.0]), None, None, None, None, True, 0.1, 1e-5, False), IndexError),
        ("instance_norm_eval_no_stats", lambda L: L.instance_norm(
            c(L)[None], None, None, None, None, False, 0.1, 1e-5, False), RuntimeError),
        ("instance_norm_1d", lambda L: L.instance_norm(
            L.tensor([1.0, 2.0]), None, None, None, None, True, 0.1, 1e-5, False), IndexError),
        ("layer_norm_int_shape", lambda L: L.layer_norm(c(L), 4), TypeError),
        ("layer_norm_bad_shape", lambda L: L.layer_norm(c(L), [3]), RuntimeError),
        ("group_norm_indivisible", lambda L: L.group_norm(c(L), 3), RuntimeError),
        ("group_norm_zero_groups", lambda L: L.group_norm(c(L), 0), RuntimeError),
        ("group_norm_1d", lambda L: L.group_norm(L.tensor([1.0, 2.0]), 1), IndexError),
        ("rms_norm_bad_shape", lambda L: L.rms_norm(c(L), [3]), RuntimeError),
        ("rms_norm_int_shape", lambda L: L.rms_norm(c(L), 4), TypeError),
        ("embedding_float_indices", lambda L: L.embedding(c(L), L.tensor([0.0, 1.0])),
         RuntimeError),
        ("embedding_out_of_range", lambda L: L.embedding(c(L), L.tensor([0, 3])),
         IndexError),
        ("embedding_1d_weight", lambda L: L.embedding(L.tensor([1.0, 2.0]), L.tensor([0])),
         RuntimeError),
        ("convolution_int_stride", lambda L: L.convolution(
            L.ones(1, 2, 5), L.ones(3, 2, 2), None, 1, [0], [1], False, [0], 1), TypeError),
        ("pixel_shuffle_indivisible", lambda L: L.pixel_shuffle(L.ones(1, 3, 2, 2), 2),
         RuntimeError),
        ("channel_shuffle_indivisible", lambda L: L.channel_shuffle(L.ones(1, 3, 2), 2),
         RuntimeError),
        ("native_channel_shuffle_2d", lambda L: L.native_channel_shuffle(L.ones(4, 2), 2),
         RuntimeError),
        ("pdist_1d", lambda L: L.pdist(L.ones(3)), RuntimeError),
        ("celu_alpha_0", lambda L: L.celu(c(L), 0.0), RuntimeError),
        ("selu_int", lambda L: L.selu(L.tensor([1, 2])), NotImplementedError),
        ("rrelu_bounds", lambda L: L.rrelu(c(L), 0.5, 0.1), RuntimeError),
        ("threshold_missing_value", lambda L: L.threshold(c(L), 0.5), TypeError),
        ("kl_div_str_reduction", lambda L: L.kl_div(c(L), c(L), "mean"), TypeError),
        ("kl_div_bool_reduction", lambda L: L.kl_div(c(L), c(L), True), TypeError),
        ("kl_div_log_target_positional", lambda L: L.kl_div(c(L), c(L), 1, True), TypeError),
        ("binary_cross_entropy_with_logits_str_reduction",
         lambda L: L.binary_cross_entropy_with_logits(
            c(L), c(L), None, None, "sum"), TypeError),
        ("binary_cross_entropy_with_logits_target_broadcast", lambda L:
            L.binary_cross_entropy_with_logits(c(L), c(L)[:1], None, None, 1), RuntimeError),
        ("binary_cross_entropy_with_logits_weight_grad", lambda L:
            L.binary_cross_entropy_with_logits(c(L), c(L), c(L).requires_grad_(), None, 1),
         RuntimeError),
        ("dropout_numpy_bool_train", lambda L: L.dropout(c(L), 0.5, np.bool_(True)),
         TypeError),
        ("threshold_bool_input", lambda L: L.threshold(c(L) > 0, 0, 1), NotImplementedError),
        ("rrelu_int", lambda L: L.rrelu(L.tensor([1, 2])), NotImplementedError),
        ("rrelu_int_training", lambda L: L.rrelu(L.tensor([1, 2]), 0.1, 0.3, True),
         NotImplementedError),
        ("layer_norm_int", lambda L: L.layer_norm(L.tensor([[1, 2]]), [2]),
         NotImplementedError),
        ("group_norm_int", lambda L: L.group_norm(L.ones(2, 4, dtype=L.int64), 2),
         NotImplementedError),
        ("batch_norm_int", lambda L: L.batch_norm(L.ones(2, 4, dtype=L.int64), None, None,
                                                  None, None, True, 0.1, 1e-5, False),
         NotImplementedError),
        ("rms_norm_int", lambda L: L.rms_norm(L.ones(2, 4, dtype=L.int64), [4]),
         NotImplementedError),
        ("cosine_similarity_shapes", lambda L: L.cosine_similarity(c(L), c(L)[:, :2]),
         RuntimeError),
        ("bilinear_dtypes", lambda L: L.bilinear(c(L), c(L), L.ones(2, 4, 4)), RuntimeError),
        ("poisson_nll_loss_missing", lambda L: L.poisson_nll_loss(c(L), c(L)), TypeError),
        ("hinge_embedding_loss_str_reduction",
         lambda L: L.hinge_embedding_loss(c(L), c(L), 1.0, "none"),
         TypeError),
        ("constant_pad_nd_odd", lambda L: L.constant_pad_nd(c(L), [1]), RuntimeError),
        ("constant_pad_nd_int_pad", lambda L: L.constant_pad_nd(c(L), 1), TypeError),
        ("bilinear_missing_weight", lambda L: L.bilinear(c(L), c(L)), TypeError),
    ]


@pytest.mark.parametrize("label, call, error", _bad_cases(), ids=[c[0] for c in _bad_cases()])
def test_bad_input_raises_torchs_exception_type(label, call, error):
    with pytest.raises(error):
        call(torch)
    with pytest.raises(error) as info:
        call(pyad)
    # the message names the function (longest top-level name the label starts with)
    name = next(n for n in call.__code__.co_names if n in NAMES)
    assert name + "(" in str(info.value), str(info.value)
