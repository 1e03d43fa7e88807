"""pyad.nn.functional losses against torch.nn.functional (values, first and second
derivatives, gradcheck/gradgradcheck in float64, variants)."""
import warnings

import numpy as np
import pytest

import pyad
import pyad.nn.functional as F
from _nn_helpers import Case, standard_nn_tests

T3 = np.array([1, 0, 3])                       # class indices for (3, 4) inputs
T3_IGN = np.array([1, -100, 3])
T_ND = np.array([[[1, 0], [2, 2], [0, 1]], [[2, 1], [0, 0], [1, 2]]])   # for (2, 3, 3, 2)
W4 = np.array([0.5, 2.0, 1.0, 1.5])
P34 = np.random.default_rng(7).dirichlet(np.ones(4), size=3)             # probabilities
U34 = np.random.default_rng(8).uniform(0.05, 0.95, (3, 4))
B34 = (np.random.default_rng(9).uniform(size=(3, 4)) > 0.5).astype(np.float64)
Y34 = np.where(np.random.default_rng(10).uniform(size=(3, 4)) > 0.5, 1.0, -1.0)  # +-1
Y3 = np.array([1.0, -1.0, -1.0])
C34 = np.array([[0.0, 1.0, 2.0, 3.0], [5.0, 0.0, 1.0, 7.0], [2.0, 4.0, 0.0, 1.5]])  # counts
NO_VARIANTS = dict(zero_d=False, empty=False)


def _sig(L, x):
    return L.lib.sigmoid(x)


CASES = [
    Case("linear", lambda L, x, w, b: L.F.linear(x, w, b), [(3, 4), (5, 4), (5,)],
         empty=[(0, 4), (5, 4), (5,)]),
    Case("linear_nobias_3d", lambda L, x, w: L.F.linear(x, w), [(2, 3, 4), (5, 4)]),
    # cross_entropy with class indices
    Case("ce", lambda L, x: L.F.cross_entropy(x, L.c(T3)), [(3, 4)]),
    Case("ce_sum", lambda L, x: L.F.cross_entropy(x, L.c(T3), reduction="sum"), [(3, 4)]),
    Case("ce_none", lambda L, x: L.F.cross_entropy(x, L.c(T3), reduction="none"), [(3, 4)]),
    Case("ce_weight", lambda L, x: L.F.cross_entropy(x, L.c(T3), weight=L.c(W4)), [(3, 4)]),
    Case("ce_ignore", lambda L, x: L.F.cross_entropy(x, L.c(T3_IGN)), [(3, 4)]),
    Case("ce_ignore_weight_none", lambda L, x: L.F.cross_entropy(
        x, L.c(np.array([1, 2, 3])), weight=L.c(W4), ignore_index=2, reduction="none"),
        [(3, 4)]),
    Case("ce_smoothing", lambda L, x: L.F.cross_entropy(x, L.c(T3), label_smoothing=0.2),
         [(3, 4)]),
    Case("ce_smoothing_weight_ignore", lambda L, x: L.F.cross_entropy(
        x, L.c(T3_IGN), weight=L.c(W4), label_smoothing=0.3), [(3, 4)]),
    Case("ce_smoothing_sum_none", lambda L, x: L.F.cross_entropy(
        x, L.c(T3_IGN), label_smoothing=0.1, reduction="none"), [(3, 4)]),
    Case("ce_smoothing_sum", lambda L, x: L.F.cross_entropy(
        x, L.c(T3), weight=L.c(W4), label_smoothing=0.1, reduction="sum"), [(3, 4)]),
    Case("ce_unbatched", lambda L, x: L.F.cross_entropy(x, L.c(np.array(2))), [(4,)]),
    Case("ce_nd", lambda L, x: L.F.cross_entropy(x, L.c(T_ND), weight=L.c(np.array(
        [1.0, 2.0, 0.5]))), [(2, 3, 3, 2)]),
    Case("ce_nd_smoothing_none", lambda L, x: L.F.cross_entropy(
        x, L.c(T_ND), label_smoothing=0.25, reduction="none"), [(2, 3, 3, 2)]),
    Case("ce_probs", lambda L, x: L.F.cross_entropy(x, L.c(P34)), [(3, 4)]),
    Case("ce_probs_weight_smoothing", lambda L, x: L.F.cross_entropy(
        x, L.c(P34), weight=L.c(W4), label_smoothing=0.2), [(3, 4)]),
    Case("ce_probs_none", lambda L, x: L.F.cross_entropy(x, L.c(P34), reduction="none"),
         [(3, 4)]),
    Case("ce_probs_target_grad", lambda L, x, p: L.F.cross_entropy(
        x, L.F.softmax(p, 1), reduction="sum"), [(3, 4), (3, 4)]),
    # nll_loss
    Case("nll", lambda L, x: L.F.nll_loss(L.F.log_softmax(x, 1), L.c(T3)), [(3, 4)]),
    Case("nll_weight_ignore", lambda L, x: L.F.nll_loss(
        x, L.c(T3_IGN), weight=L.c(W4)), [(3, 4)]),
    Case("nll_weight_ignore_sum", lambda L, x: L.F.nll_loss(
        x, L.c(T3), weight=L.c(W4), ignore_index=0, reduction="sum"), [(3, 4)]),
    # (torch's nll_loss2d backward refuses a non-contiguous gradient: no such variant)
    Case("nll_nd_none", lambda L, x: L.F.nll_loss(x, L.c(T_ND), reduction="none"),
         [(2, 3, 3, 2)], non_contiguous=False),
    Case("nll_unbatched", lambda L, x: L.F.nll_loss(x, L.c(np.array(1))), [(4,)]),
    # regression losses
    Case("mse", lambda L, x, y: L.F.mse_loss(x, y), [(3, 4), (3, 4)],
         zero_d=[(), ()]),
    Case("mse_sum", lambda L, x, y: L.F.mse_loss(x, y, reduction="sum"), [(3, 4), (3, 4)],
         zero_d=[(), ()], empty=[(0, 4), (0, 4)]),
    Case("mse_none", lambda L, x, y: L.F.mse_loss(x, y, reduction="none"), [(3, 4), (3, 4)],
         zero_d=[(), ()], empty=[(0, 4), (0, 4)]),
    Case("mse_weight", lambda L, x, y: L.F.mse_loss(x, y, weight=L.c(U34)), [(3, 4), (3, 4)]),
    Case("l1", lambda L, x, y: L.F.l1_loss(x, y), [(3, 4), (3, 4)], zero_d=[(), ()]),
    Case("l1_weight_sum", lambda L, x, y: L.F.l1_loss(x, y, reduction="sum",
                                                      weight=L.c(U34)), [(3, 4), (3, 4)]),
    Case("smooth_l1", lambda L, x, y: L.F.smooth_l1_loss(x * 2, y), [(3, 4), (3, 4)],
         zero_d=[(), ()]),
    Case("smooth_l1_beta", lambda L, x, y: L.F.smooth_l1_loss(
        x, y, beta=0.7, reduction="none"), [(3, 4), (3, 4)], empty=[(0, 4), (0, 4)]),
    Case("smooth_l1_beta0", lambda L, x, y: L.F.smooth_l1_loss(x, y, beta=0.0), [(3, 4),
                                                                                (3, 4)]),
    Case("huber", lambda L, x, y: L.F.huber_loss(x * 2, y), [(3, 4), (3, 4)],
         zero_d=[(), ()]),
    Case("huber_delta_sum", lambda L, x, y: L.F.huber_loss(x, y, reduction="sum", delta=0.6),
         [(3, 4), (3, 4)], empty=[(0, 4), (0, 4)]),
    Case("huber_weight", lambda L, x, y: L.F.huber_loss(x * 2, y, weight=L.c(U34)),
         [(3, 4), (3, 4)]),
    # binary cross entropy
    Case("bce", lambda L, x: L.F.binary_cross_entropy(_sig(L, x), L.c(B34)), [(3, 4)]),
    Case("bce_soft_target_grad", lambda L, x, y: L.F.binary_cross_entropy(
        _sig(L, x), _sig(L, y), reduction="sum"), [(3, 4), (3, 4)], zero_d=[(), ()]),
    Case("bce_weight_none", lambda L, x: L.F.binary_cross_entropy(
        _sig(L, x), L.c(B34), weight=L.c(U34), reduction="none"), [(3, 4)]),
    Case("bce_logits", lambda L, x, y: L.F.binary_cross_entropy_with_logits(
        x * 3, _sig(L, y)), [(3, 4), (3, 4)], zero_d=[(), ()]),
    Case("bce_logits_weights", lambda L, x: L.F.binary_cross_entropy_with_logits(
        x * 3, L.c(B34), weight=L.c(U34), pos_weight=L.c(W4), reduction="sum"), [(3, 4)]),
    Case("bce_logits_pos_weight", lambda L, x, y: L.F.binary_cross_entropy_with_logits(
        x, _sig(L, y), pos_weight=L.c(W4), reduction="none"), [(3, 4), (3, 4)]),
    # kl_div
    Case("kl_batchmean", lambda L, x, p: L.F.kl_div(
        L.F.log_softmax(x, 1), L.F.softmax(p, 1), reduction="batchmean"), [(3, 4), (3, 4)]),
    Case("kl_sum_log_target", lambda L, x, p: L.F.kl_div(
        L.F.log_softmax(x, 1), L.F.log_softmax(p, 1), reduction="sum", log_target=True),
        [(3, 4), (3, 4)]),
    Case("kl_none", lambda L, x: L.F.kl_div(x, L.c(U34), reduction="none"), [(3, 4)]),
    # pairwise distance
    Case("pairwise_distance", lambda L, x, y: L.F.pairwise_distance(x, y), [(3, 4), (3, 4)],
         zero_d=[(), ()]),
    Case("pairwise_distance_p1_keepdim", lambda L, x, y: L.F.pairwise_distance(
        x, y, p=1.0, keepdim=True), [(3, 4), (3, 4)]),
    Case("pairwise_distance_p3_eps", lambda L, x, y: L.F.pairwise_distance(
        x, y, 3.0, eps=0.1), [(3, 4), (3, 4)]),
    Case("pairwise_distance_broadcast", lambda L, x, y: L.F.pairwise_distance(x, y),
         [(3, 4), (4,)], zero_d=False, empty=False),
    # margin and embedding losses
    Case("margin_ranking", lambda L, x, y: L.F.margin_ranking_loss(x, y, L.c(Y34)),
         [(3, 4), (3, 4)], **NO_VARIANTS),
    Case("margin_ranking_margin_none", lambda L, x, y: L.F.margin_ranking_loss(
        x, y, L.c(Y34), margin=0.5, reduction="none"), [(3, 4), (3, 4)], **NO_VARIANTS),
    Case("margin_ranking_0d_sum", lambda L, x, y: L.F.margin_ranking_loss(
        x, y, L.c(np.array(-1.0)), margin=1.0, reduction="sum"), [(), ()],
         **NO_VARIANTS),
    Case("hinge_embedding", lambda L, x: L.F.hinge_embedding_loss(x, L.c(Y34)), [(3, 4)],
         **NO_VARIANTS),
    Case("hinge_embedding_margin_none", lambda L, x: L.F.hinge_embedding_loss(
        x * 2, L.c(Y34), margin=0.3, reduction="none"), [(3, 4)], **NO_VARIANTS),
    Case("soft_margin", lambda L, x: L.F.soft_margin_loss(x * 2, L.c(Y34)), [(3, 4)],
         **NO_VARIANTS),
    Case("soft_margin_0d_sum", lambda L, x: L.F.soft_margin_loss(
        x, L.c(np.array(-1.0)), reduction="sum"), [()], **NO_VARIANTS),
    Case("triplet", lambda L, a, p, n: L.F.triplet_margin_loss(a, p, n),
         [(3, 4), (3, 4), (3, 4)], zero_d=False),
    Case("triplet_swap_p1_none", lambda L, a, p, n: L.F.triplet_margin_loss(
        a, p, n, margin=2.0, p=1, swap=True, reduction="none"), [(3, 4), (3, 4), (3, 4)],
         zero_d=False),
    Case("triplet_eps_sum", lambda L, a, p, n: L.F.triplet_margin_loss(
        a, p, n, margin=3.0, eps=0.01, reduction="sum"), [(5, 2), (5, 2), (5, 2)],
         zero_d=False),
    Case("cosine_embedding", lambda L, x, y: L.F.cosine_embedding_loss(x, y, L.c(Y3)),
         [(3, 4), (3, 4)], **NO_VARIANTS),
    Case("cosine_embedding_margin_none", lambda L, x, y: L.F.cosine_embedding_loss(
        x, y, L.c(Y3), margin=-0.5, reduction="none"), [(3, 4), (3, 4)], **NO_VARIANTS),
    Case("cosine_embedding_0d_target", lambda L, x, y: L.F.cosine_embedding_loss(
        x, y, L.c(np.array(-1.0)), margin=-0.9, reduction="sum"), [(4,), (4,)],
         **NO_VARIANTS),
    Case("multi_margin", lambda L, x: L.F.multi_margin_loss(x, L.c(T3)), [(3, 4)],
         **NO_VARIANTS),
    Case("multi_margin_p2_weight_none", lambda L, x: L.F.multi_margin_loss(
        x, L.c(T3), p=2, margin=0.7, weight=L.c(W4), reduction="none"), [(3, 4)],
         **NO_VARIANTS),
    Case("multi_margin_unbatched", lambda L, x: L.F.multi_margin_loss(
        x, L.c(np.array(2)), reduction="sum"), [(4,)], **NO_VARIANTS),
    # likelihood losses
    Case("poisson_nll", lambda L, x: L.F.poisson_nll_loss(x, L.c(C34)), [(3, 4)],
         **NO_VARIANTS),
    Case("poisson_nll_full_sum", lambda L, x: L.F.poisson_nll_loss(
        x, L.c(C34), full=True, reduction="sum"), [(3, 4)], **NO_VARIANTS),
    Case("poisson_nll_rate_eps_none", lambda L, x: L.F.poisson_nll_loss(
        x, L.c(C34), log_input=False, eps=0.1, reduction="none"), [(3, 4)],
         domain="positive", **NO_VARIANTS),
    Case("poisson_nll_full_target_grad", lambda L, x, y: L.F.poisson_nll_loss(
        x, y * 2, log_input=False, full=True), [(3, 4), (3, 4)], domain="positive",
         zero_d=[(), ()]),
    Case("gaussian_nll", lambda L, x, y, v: L.F.gaussian_nll_loss(x, y, L.lib.exp(v)),
         [(3, 4), (3, 4), (3, 4)], zero_d=[(), (), ()]),
    Case("gaussian_nll_full_sum", lambda L, x, y, v: L.F.gaussian_nll_loss(
        x, y, v * v, full=True, reduction="sum"), [(3, 4), (3, 4), (3, 4)],
         empty=[(0, 4), (0, 4), (0, 4)]),
    Case("gaussian_nll_homoscedastic_none", lambda L, x, y, v: L.F.gaussian_nll_loss(
        x, y, L.lib.exp(v), reduction="none"), [(3, 4), (3, 4), (3,)], **NO_VARIANTS),
    Case("gaussian_nll_var_size1", lambda L, x, y, v: L.F.gaussian_nll_loss(
        x, y, L.lib.exp(v)), [(3, 4), (3, 4), (3, 1)], **NO_VARIANTS),
    Case("gaussian_nll_float_var", lambda L, x, y: L.F.gaussian_nll_loss(x, y, 0.5),
         [(3, 4), (3, 4)], zero_d=[(), ()]),
    # a variance below eps is clamped; the gradient passes the clamp unchanged
    Case("gaussian_nll_clamped_var", lambda L, x, y, v: L.F.gaussian_nll_loss(
        x, y, L.lib.exp(v) * 1e-7, eps=1e-6, reduction="none"), [(3, 4), (3, 4), (3, 4)],
         **NO_VARIANTS),
]

for _c in CASES:
    if _c.id.startswith("multi_margin"):
        _c.torch_second_order = False       # torch: multi_margin_loss_backward has none
    if _c.id == "gaussian_nll_clamped_var":
        _c.gradcheck = False                # the clamp passes the gradient, as torch's

test_matches_torch_and_finite_differences, test_variant = standard_nn_tests(CASES)


def _torch():
    return pytest.importorskip("torch")


def test_cross_entropy_matches_log_softmax_nll_composition():
    x = pyad.tensor(np.random.default_rng(0).standard_normal((32, 10)), requires_grad=True)
    t = pyad.tensor(np.random.default_rng(1).integers(0, 10, 32))
    a = F.cross_entropy(x, t)
    b = F.nll_loss(F.log_softmax(x, 1), t)
    np.testing.assert_allclose(a.data, b.data, rtol=1e-15)


def test_empty_batch_means_are_nan_as_torch():
    torch = _torch()
    x = np.zeros((0, 4))
    for kw in ({}, {"label_smoothing": 0.1}):
        with warnings.catch_warnings():
            warnings.simplefilter("error")          # nan without a NumPy warning
            ours = F.cross_entropy(pyad.tensor(x), pyad.tensor(np.zeros(0, np.int64)),
                                   **kw)
        theirs = torch.nn.functional.cross_entropy(torch.tensor(x),
                                                   torch.zeros(0, dtype=torch.long), **kw)
        np.testing.assert_array_equal(ours.data, theirs.numpy())


def test_all_targets_ignored_gives_nan_mean():
    torch = _torch()
    x = np.ones((2, 3))
    t = np.array([-100, -100])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours = F.cross_entropy(pyad.tensor(x), pyad.tensor(t))
    theirs = torch.nn.functional.cross_entropy(torch.tensor(x), torch.tensor(t))
    np.testing.assert_array_equal(ours.data, theirs.numpy())


@pytest.mark.parametrize("fn", [F.cross_entropy, F.nll_loss])
def test_target_errors_name_the_op(fn):
    name = fn.__name__
    x = pyad.tensor(np.zeros((3, 4)))
    with pytest.raises(IndexError, match=r"%s\(\): target 4 is out of bounds" % name):
        fn(x, pyad.tensor([0, 4, 1]))
    with pytest.raises(IndexError, match=r"%s\(\): target -1" % name):
        fn(x, pyad.tensor([0, -1, 1]))
    with pytest.raises(ValueError, match=r"%s\(\)" % name):
        fn(x, pyad.tensor([0, 1]))
    with pytest.raises(ValueError, match=r"%s\(\): reduction" % name):
        fn(x, pyad.tensor([0, 1, 2]), reduction="avg")
    # torch: a 0-d input is a ValueError for nll_loss; cross_entropy reads a target of the
    # input's shape as probabilities and refuses an integer one (RuntimeError)
    with pytest.raises(ValueError if fn is F.nll_loss else RuntimeError,
                       match=r"%s\(\)" % name):
        fn(pyad.tensor(1.0), pyad.tensor(0))
    with pytest.raises(RuntimeError, match=r"%s\(\): weight" % name):
        fn(x, pyad.tensor([0, 1, 2]), weight=pyad.ones(3))


def test_float_target_of_wrong_shape_and_float_nll_target_raise():
    x = pyad.tensor(np.zeros((3, 4)))
    with pytest.raises(RuntimeError, match=r"cross_entropy\(\)"):     # torch's type
        F.cross_entropy(x, pyad.tensor([0.0, 1.0, 2.0]))
    with pytest.raises(RuntimeError, match=r"nll_loss\(\): expected target dtype to be Long"):
        F.nll_loss(x, pyad.tensor([0.0, 1.0, 2.0]))
    with pytest.raises(RuntimeError, match=r"cross_entropy\(\): expected target dtype"):
        F.cross_entropy(x, pyad.tensor([0, 1, 2], dtype=pyad.int32))
    with pytest.raises(RuntimeError, match=r"cross_entropy\(\): label_smoothing"):
        F.cross_entropy(x, pyad.tensor([0, 1, 2]), label_smoothing=1.5)
    with pytest.raises(RuntimeError, match=r"ignore_index is not supported for floating"):
        F.cross_entropy(x, pyad.softmax(x, 1), ignore_index=1)


def test_legacy_size_average_and_reduce_follow_torch():
    torch = _torch()
    x, y = np.arange(6.0).reshape(2, 3), np.ones((2, 3))
    for sa, red in ((False, None), (None, False), (True, True), (False, True)):
        with pytest.warns(UserWarning):
            ours = F.mse_loss(pyad.tensor(x), pyad.tensor(y), size_average=sa, reduce=red)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            theirs = torch.nn.functional.mse_loss(torch.tensor(x), torch.tensor(y),
                                                  size_average=sa, reduce=red)
        np.testing.assert_allclose(ours.data, theirs.numpy(), rtol=1e-15)


def test_broadcasting_target_warns_as_torch():
    with pytest.warns(UserWarning, match="target size"):
        out = F.mse_loss(pyad.tensor(np.ones((2, 3))), pyad.tensor(np.zeros(3)))
    assert out.item() == 1.0


def test_bce_checks_range_and_shape_and_clamps_log():
    torch = _torch()
    with pytest.raises(RuntimeError, match=r"binary_cross_entropy\(\): all elements"):
        F.binary_cross_entropy(pyad.tensor([1.5]), pyad.tensor([1.0]))
    with pytest.raises(ValueError, match=r"binary_cross_entropy\(\): target size"):
        F.binary_cross_entropy(pyad.tensor([0.5]), pyad.tensor([1.0, 0.0]))
    with pytest.raises(ValueError, match=r"binary_cross_entropy_with_logits\(\)"):
        F.binary_cross_entropy_with_logits(pyad.tensor([0.5]), pyad.tensor([1.0, 0.0]))
    x, t = np.array([0.0, 1.0, 0.5]), np.array([1.0, 0.0, 1.0])
    with np.errstate(divide="ignore"):
        ours = F.binary_cross_entropy(pyad.tensor(x), pyad.tensor(t), reduction="none")
    theirs = torch.nn.functional.binary_cross_entropy(torch.tensor(x), torch.tensor(t),
                                                      reduction="none")
    np.testing.assert_allclose(ours.data, theirs.numpy(), rtol=1e-15)   # 100, 100, log 2


def test_bce_with_logits_is_stable_for_large_logits():
    torch = _torch()
    x, t = np.array([-800.0, 800.0, 0.0]), np.array([1.0, 0.0, 1.0])
    xs = pyad.tensor(x, requires_grad=True)
    ts = torch.tensor(x, requires_grad=True)
    with np.errstate(over="raise"):
        ours = F.binary_cross_entropy_with_logits(xs, pyad.tensor(t), reduction="sum")
    theirs = torch.nn.functional.binary_cross_entropy_with_logits(ts, torch.tensor(t),
                                                                  reduction="sum")
    np.testing.assert_allclose(ours.data, theirs.detach().numpy(), rtol=1e-15)
    ours.backward()
    theirs.backward()
    np.testing.assert_allclose(xs.grad.data, ts.grad.numpy(), rtol=1e-15)


def test_kl_div_mean_warns_and_batchmean_divides_by_batch():
    torch = _torch()
    x = np.log(np.array([[0.25, 0.75], [0.5, 0.5]]))
    t = np.array([[0.5, 0.5], [0.9, 0.1]])
    with pytest.warns(UserWarning, match="batchmean"):
        F.kl_div(pyad.tensor(x), pyad.tensor(t))
    for red in ("batchmean", "sum", "none"):
        ours = F.kl_div(pyad.tensor(x), pyad.tensor(t), reduction=red)
        theirs = torch.nn.functional.kl_div(torch.tensor(x), torch.tensor(t), reduction=red)
        np.testing.assert_allclose(ours.data, theirs.numpy(), rtol=1e-14)
    # a zero target contributes 0 (xlogy), not nan
    z = F.kl_div(pyad.tensor(x), pyad.tensor([[0.0, 1.0], [1.0, 0.0]]), reduction="sum")
    assert np.isfinite(z.item())


def test_cross_entropy_float32_stays_float32():
    x = pyad.tensor(np.random.default_rng(0).standard_normal((4, 3)).astype(np.float32),
                    requires_grad=True)
    loss = F.cross_entropy(x, pyad.tensor([0, 1, 2, 0]), weight=pyad.tensor(
        np.array([1.0, 2.0, 3.0], np.float32)), label_smoothing=0.1)
    assert loss.dtype == np.float32
    loss.backward()
    assert x.grad.dtype == np.float32


def test_cross_entropy_with_indices_is_one_node_freed_after_backward():
    x = pyad.tensor(np.zeros((2, 3)), requires_grad=True)
    loss = F.cross_entropy(x, pyad.tensor([0, 2]))
    # one node (pyad's CrossEntropyBackward class), named as torch's: NllLossBackward
    assert type(loss.grad_fn).__name__ == "CrossEntropyBackward"
    assert loss.grad_fn.name() == "NllLossBackward"
    assert loss.grad_fn.next_functions[0][0] is not None
    loss.backward()
    np.testing.assert_allclose(x.grad.data, [[-1 / 3, 1 / 6, 1 / 6], [1 / 6, 1 / 6, -1 / 3]],
                               rtol=1e-15)
    with pytest.raises(RuntimeError, match="NllLossBackward"):
        loss.backward()


def test_cross_entropy_third_derivative_matches_torch():
    torch = _torch()
    a = np.random.default_rng(5).standard_normal((3, 4))
    x = pyad.tensor(a, requires_grad=True)
    tx = torch.tensor(a, requires_grad=True)
    w = np.array([1.0, 0.5, 2.0, 1.0])
    y = F.cross_entropy(x * x, pyad.tensor(T3_IGN), weight=pyad.tensor(w))
    ty = torch.nn.functional.cross_entropy(tx * tx, torch.tensor(T3_IGN), weight=torch.tensor(w))
    g, = pyad.grad(y, [x], create_graph=True)
    tg, = torch.autograd.grad(ty, [tx], create_graph=True)
    h, = pyad.grad(g.sum(), [x], create_graph=True)
    th, = torch.autograd.grad(tg.sum(), [tx], create_graph=True)
    k, = pyad.grad((h * h).sum(), [x])
    tk, = torch.autograd.grad((th * th).sum(), [tx])
    np.testing.assert_allclose(k.data, tk.numpy(), rtol=1e-10, atol=1e-12)


def _new_loss_calls(lib, **kw):
    """Each new loss once, on small inputs, with the keyword arguments kw."""
    F_ = lib.nn.functional
    a = lib.tensor(np.array([[0.5, -1.0], [2.0, 0.3]]))
    b = lib.tensor(np.array([[1.5, 0.5], [-1.0, 0.2]]))
    c = lib.tensor(np.array([[0.1, 0.2], [0.3, 0.4]]))
    y = lib.tensor(np.array([[1.0, -1.0], [-1.0, 1.0]]))
    return {
        "margin_ranking_loss": lambda: F_.margin_ranking_loss(a, b, y, **kw),
        "hinge_embedding_loss": lambda: F_.hinge_embedding_loss(a, y, **kw),
        "soft_margin_loss": lambda: F_.soft_margin_loss(a, y, **kw),
        "triplet_margin_loss": lambda: F_.triplet_margin_loss(a, b, c, **kw),
        "poisson_nll_loss": lambda: F_.poisson_nll_loss(a, c, **kw),
        "gaussian_nll_loss": lambda: F_.gaussian_nll_loss(a, b, c, **kw),
        "cosine_embedding_loss": lambda: F_.cosine_embedding_loss(
            a, b, lib.tensor(np.array([1.0, -1.0])), **kw),
        "multi_margin_loss": lambda: F_.multi_margin_loss(a, lib.tensor(np.array([1, 0])),
                                                           **kw),
    }


@pytest.mark.parametrize("name", sorted(_new_loss_calls(pyad)))
def test_new_losses_refuse_an_unknown_reduction_naming_the_op(name):
    with pytest.raises(ValueError, match=r"%s\(\): reduction must be one of" % name):
        _new_loss_calls(pyad, reduction="avg")[name]()
    with pytest.raises((ValueError, RuntimeError)):
        _new_loss_calls(_torch(), reduction="avg")[name]()


@pytest.mark.parametrize("name", sorted(set(_new_loss_calls(pyad)) - {"gaussian_nll_loss"}))
@pytest.mark.parametrize("size_average, reduce", [(False, None), (None, False), (True, True)])
def test_new_losses_take_the_legacy_reduction_arguments_as_torch(name, size_average, reduce):
    torch = _torch()
    kw = dict(size_average=size_average, reduce=reduce)
    with pytest.warns(UserWarning, match="size_average and reduce are deprecated"):
        ours = _new_loss_calls(pyad, **kw)[name]()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = _new_loss_calls(torch, **kw)[name]()
    np.testing.assert_allclose(ours.data, theirs.numpy(), rtol=1e-12)


@pytest.mark.parametrize("name", sorted(_new_loss_calls(pyad)))
@pytest.mark.parametrize("reduction", ["none", "sum", "mean"])
def test_new_losses_on_empty_batches_match_torch(name, reduction):
    torch = _torch()

    def calls(lib):
        F_ = lib.nn.functional
        e = lib.tensor(np.zeros((0, 2)))
        e1 = lib.tensor(np.zeros(0))
        return {
            "margin_ranking_loss": lambda: F_.margin_ranking_loss(e, e, e,
                                                                  reduction=reduction),
            "hinge_embedding_loss": lambda: F_.hinge_embedding_loss(e, e,
                                                                    reduction=reduction),
            "soft_margin_loss": lambda: F_.soft_margin_loss(e, e, reduction=reduction),
            "triplet_margin_loss": lambda: F_.triplet_margin_loss(e, e, e,
                                                                  reduction=reduction),
            "poisson_nll_loss": lambda: F_.poisson_nll_loss(e, e, reduction=reduction),
            "gaussian_nll_loss": lambda: F_.gaussian_nll_loss(e, e, e, reduction=reduction),
            "cosine_embedding_loss": lambda: F_.cosine_embedding_loss(e, e, e1,
                                                                      reduction=reduction),
            "multi_margin_loss": lambda: F_.multi_margin_loss(
                e, lib.tensor(np.zeros(0, np.int64)), reduction=reduction),
        }
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours = calls(pyad)[name]()
        theirs = calls(torch)[name]()
    if name == "multi_margin_loss" and reduction != "none":
        # torch returns uninitialised memory here; pyad the other losses' 0 and nan
        np.testing.assert_array_equal(ours.data, 0.0 if reduction == "sum" else np.nan)
        return
    assert tuple(ours.shape) == tuple(theirs.shape)
    np.testing.assert_array_equal(ours.data, theirs.numpy())


def test_new_loss_argument_errors_name_the_op_and_torch_refuses_them_too():
    torch = _torch()
    two = np.ones((2, 3))
    bad = [
        (ValueError, r"triplet_margin_loss\(\): margin must be greater than 0",
         lambda L: L.nn.functional.triplet_margin_loss(L.tensor(two), L.tensor(two),
                                                       L.tensor(two), margin=0.0)),
        (RuntimeError, r"triplet_margin_loss\(\): all input tensors should have the same "
                       r"number of dimensions",
         lambda L: L.nn.functional.triplet_margin_loss(L.tensor(two), L.tensor(two),
                                                       L.tensor(np.ones(3)))),
        (RuntimeError, r"margin_ranking_loss\(\): all input tensors",
         lambda L: L.nn.functional.margin_ranking_loss(L.tensor(two), L.tensor(two),
                                                       L.tensor(np.ones(3)))),
        (ValueError, r"gaussian_nll_loss\(\): var has negative",
         lambda L: L.nn.functional.gaussian_nll_loss(L.tensor(two), L.tensor(two),
                                                     L.tensor(-two))),
        (ValueError, r"gaussian_nll_loss\(\): var has negative",
         lambda L: L.nn.functional.gaussian_nll_loss(L.tensor(two), L.tensor(two), -1.0)),
        (ValueError, r"gaussian_nll_loss\(\): var is of incorrect size",
         lambda L: L.nn.functional.gaussian_nll_loss(L.tensor(two), L.tensor(two),
                                                     L.tensor(np.ones((3, 2))))),
        (RuntimeError, r"cosine_embedding_loss\(\): 0D or 1D target",
         lambda L: L.nn.functional.cosine_embedding_loss(L.tensor(two), L.tensor(two),
                                                         L.tensor(two))),
        (RuntimeError, r"cosine_embedding_loss\(\): 1D target tensor expects 2D input",
         lambda L: L.nn.functional.cosine_embedding_loss(L.tensor(np.ones(3)),
                                                         L.tensor(np.ones(3)),
                                                         L.tensor(np.ones(3)))),
        (ValueError, r"multi_margin_loss\(\): only p == 1 and p == 2",
         lambda L: L.nn.functional.multi_margin_loss(L.tensor(two), L.tensor([0, 1]), p=3)),
        (IndexError, r"multi_margin_loss\(\): target 3 is out of bounds",
         lambda L: L.nn.functional.multi_margin_loss(L.tensor(two), L.tensor([0, 3]))),
    ]
    for exc, msg, call in bad:
        with pytest.raises(exc, match=msg):
            call(pyad)
        with pytest.raises(Exception):
            call(torch)


def test_pairwise_distance_infinity_norm_and_0d_match_torch():
    torch = _torch()
    a, b = np.array([[1.0, -2.0, 0.5]]), np.array([[0.0, 1.0, 0.5]])
    for p in (float("inf"), 1.0, 0.5):
        x = pyad.tensor(a, requires_grad=True)
        t = torch.tensor(a, requires_grad=True)
        y = F.pairwise_distance(x, pyad.tensor(b), p=p)
        ty = torch.nn.functional.pairwise_distance(t, torch.tensor(b), p=p)
        np.testing.assert_allclose(y.data, ty.detach().numpy(), rtol=1e-13)
        y.sum().backward()
        ty.sum().backward()
        np.testing.assert_allclose(x.grad.data, t.grad.numpy(), rtol=1e-12)
    y = F.pairwise_distance(pyad.tensor(np.array(2.0)), pyad.tensor(np.array(0.5)))
    ty = torch.nn.functional.pairwise_distance(torch.tensor(2.0, dtype=torch.float64),
                                               torch.tensor(0.5, dtype=torch.float64))
    assert y.shape == tuple(ty.shape)
    np.testing.assert_allclose(y.data, ty.numpy(), rtol=1e-15)


def test_poisson_full_masks_small_targets_without_warnings():
    torch = _torch()
    x, t = np.array([0.3, -0.2, 1.0, 2.0]), np.array([0.0, 1.0, 0.5, 4.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with np.errstate(all="raise"):
            ours = F.poisson_nll_loss(pyad.tensor(x), pyad.tensor(t), full=True,
                                      reduction="none")
    theirs = torch.nn.functional.poisson_nll_loss(torch.tensor(x), torch.tensor(t),
                                                  full=True, reduction="none")
    np.testing.assert_allclose(ours.data, theirs.numpy(), rtol=1e-14)


def test_gaussian_nll_clamped_variance_passes_the_gradient_as_torch():
    torch = _torch()
    v = np.array([1e-9, 0.5, 0.0])
    x = pyad.tensor(v, requires_grad=True)
    t = torch.tensor(v, requires_grad=True)
    inp, tgt = np.array([0.1, 0.2, 0.3]), np.array([0.0, 0.0, 0.0])
    y = F.gaussian_nll_loss(pyad.tensor(inp), pyad.tensor(tgt), x, reduction="sum")
    ty = torch.nn.functional.gaussian_nll_loss(torch.tensor(inp), torch.tensor(tgt), t,
                                               reduction="sum")
    np.testing.assert_allclose(y.data, ty.detach().numpy(), rtol=1e-14)
    y.backward()
    ty.backward()
    np.testing.assert_allclose(x.grad.data, t.grad.numpy(), rtol=1e-14)


def test_triplet_swap_takes_the_nearer_negative():
    a = pyad.tensor([[0.0, 0.0]])
    p = pyad.tensor([[1.0, 0.0]])
    n = pyad.tensor([[2.0, 0.0]])
    plain = F.triplet_margin_loss(a, p, n, margin=2.0, eps=0.0)
    swapped = F.triplet_margin_loss(a, p, n, margin=2.0, eps=0.0, swap=True)
    assert plain.item() == pytest.approx(1.0) and swapped.item() == pytest.approx(2.0)
