"""The functional ops that ported scripts miss, against torch on the same float64 inputs
(values and gradients), with gradcheck/gradgradcheck on pyad's side: circular padding,
rms_norm, adaptive max pooling, unpooling, LP pooling, local response norm, channel
shuffle, RReLU, the in-place activations, the multi-label and distance-triplet losses,
pdist, affine_grid/grid_sample, embedding_bag, conv_transpose1d."""
import warnings

import numpy as np
import pytest

import pyad
import pyad.nn.functional as F
from pyad.autograd import gradcheck, gradgradcheck

torch = pytest.importorskip("torch")
TF = torch.nn.functional

RNG = np.random.default_rng(5)


def _run(fn, lib, arrays, grad):
    mod = torch if lib == "torch" else pyad
    ins = []
    for a, g in zip(arrays, grad):
        ins.append(mod.tensor(a.copy(), requires_grad=g))
    out = fn(TF if lib == "torch" else F, mod, *ins)
    return ins, out


def _flat(out):
    return list(out) if isinstance(out, (tuple, list)) else [out]


def check(fn, arrays, grad=None, atol=1e-10, rtol=1e-8, gradcheck_=True, gradgrad=True):
    """Compare fn(F, lib, *inputs) on torch and pyad (values, then the gradients of a
    random weighted sum of the floating outputs), then gradcheck pyad's side."""
    arrays = [np.asarray(a) for a in arrays]
    grad = grad or [a.dtype.kind == "f" for a in arrays]
    t_in, t_out = _run(fn, "torch", arrays, grad)
    p_in, p_out = _run(fn, "pyad", arrays, grad)
    t_out, p_out = _flat(t_out), _flat(p_out)
    assert len(t_out) == len(p_out)
    t_loss, p_loss = 0, 0
    rng = np.random.default_rng(0)
    for t, p in zip(t_out, p_out):
        assert tuple(t.shape) == tuple(p.shape), (tuple(t.shape), tuple(p.shape))
        np.testing.assert_allclose(p.detach().data, t.detach().numpy(), atol=atol, rtol=rtol)
        if t.requires_grad:
            w = rng.standard_normal(tuple(t.shape))
            t_loss = t_loss + (t * torch.tensor(w)).sum()
            p_loss = p_loss + (p * pyad.tensor(w)).sum()
    if not isinstance(t_loss, int):
        t_loss.backward()
        p_loss.backward()
        for t, p in zip(t_in, p_in):
            if t.requires_grad:
                if t.grad is None or (p.grad is None and not t.grad.any()):
                    # no gradient (pyad None, torch zeros where torch materialises them)
                    assert p.grad is None or not np.any(p.grad.data)
                else:
                    np.testing.assert_allclose(p.grad.data, t.grad.numpy(), atol=atol,
                                               rtol=rtol)
    if gradcheck_ and any(grad):
        fresh = [pyad.tensor(a.copy(), requires_grad=g) for a, g in zip(arrays, grad)]

        def f(*xs):
            it = iter(xs)
            args = [next(it) if g else v for v, g in zip(fresh, grad)]
            return tuple(o for o in _flat(fn(F, pyad, *args))
                         if np.dtype(o.dtype).kind == "f")
        diff = [v for v, g in zip(fresh, grad) if g]
        assert gradcheck(f, diff)
        if gradgrad:
            assert gradgradcheck(f, diff)


def randn(*shape):
    return RNG.standard_normal(shape)


# -- padding -----------------------------------------------------------------------

@pytest.mark.parametrize("shape,pad", [((2, 3, 5), (2, 3)), ((2, 3, 5), (-1, 2)),
                                       ((1, 2, 3, 4), (1, 2, 3, 0)),
                                       ((1, 2, 2, 3, 4), (1, 1, 2, 2, 1, 0)),
                                       ((3, 4), (4, 4)), ((2, 3, 0), (0, 0))])
def test_circular_pad_matches_torch(shape, pad):
    check(lambda F, L, x: F.pad(x, pad, mode="circular"), [randn(*shape)])


def test_circular_pad_errors_like_torch():
    with pytest.raises(RuntimeError, match="wrapping around more than once"):
        F.pad(pyad.zeros(1, 1, 3), (4, 0), mode="circular")
    with pytest.raises(RuntimeError, match="doesn't take in value"):
        F.pad(pyad.zeros(1, 1, 3), (1, 0), mode="circular", value=1.0)


# -- normalisation -------------------------------------------------------------------

@pytest.mark.parametrize("shape,ns,weighted,eps", [((3, 4), (4,), True, None),
                                                   ((2, 3, 4), (3, 4), False, 1e-3),
                                                   ((4,), (4,), True, 1e-6),
                                                   ((0, 3), (3,), True, None)])
def test_rms_norm_matches_torch(shape, ns, weighted, eps):
    wshape = (ns,) if isinstance(ns, int) else ns
    arrays = [randn(*shape)] + ([randn(*wshape)] if weighted else [])
    check(lambda F, L, x, *w: F.rms_norm(x, ns, w[0] if w else None, eps), arrays)


def test_rms_norm_default_eps_float32_and_errors():
    x = RNG.standard_normal((2, 3)).astype(np.float32) * 1e-4
    np.testing.assert_allclose(F.rms_norm(pyad.tensor(x), (3,)).data,
                               TF.rms_norm(torch.tensor(x), (3,)).numpy(), rtol=1e-5)
    with pytest.raises(RuntimeError, match="rms_norm"):
        F.rms_norm(pyad.zeros(2, 3), (4,))
    with pytest.raises(TypeError, match="normalized_shape"):
        F.rms_norm(pyad.zeros(2, 3), 3)


@pytest.mark.parametrize("shape,size", [((2, 5, 4), 3), ((1, 4, 3, 2), 2), ((3, 6, 2), 5),
                                        ((2, 3, 2, 2, 2), 2)])
def test_local_response_norm_matches_torch(shape, size):
    check(lambda F, L, x: F.local_response_norm(x, size, alpha=0.1, beta=0.6, k=1.5),
          [randn(*shape)])


def test_local_response_norm_rejects_2d():
    with pytest.raises(ValueError, match="3D or higher"):
        F.local_response_norm(pyad.zeros(2, 3), 2)


# -- pooling -------------------------------------------------------------------------

@pytest.mark.parametrize("shape,size", [((2, 3, 7, 5), (3, 2)), ((3, 5, 5), 2),
                                        ((1, 2, 4, 6), (None, 4)), ((1, 1, 3, 3), 5)])
def test_adaptive_max_pool2d_matches_torch(shape, size):
    check(lambda F, L, x: F.adaptive_max_pool2d(x, size, return_indices=True),
          [randn(*shape)], gradgrad=False)


@pytest.mark.parametrize("shape,size", [((2, 3, 7), 3), ((3, 5), 5), ((1, 2, 4), 7)])
def test_adaptive_max_pool1d_matches_torch(shape, size):
    check(lambda F, L, x: F.adaptive_max_pool1d(x, size, return_indices=True),
          [randn(*shape)], gradgrad=False)


def test_adaptive_max_pool_ties_send_gradient_to_first():
    x = np.zeros((1, 1, 4, 4))
    check(lambda F, L, x: F.adaptive_max_pool2d(x, 2), [x], gradcheck_=False)
    check(lambda F, L, x: F.adaptive_max_pool2d(x, 3), [x], gradcheck_=False)


def test_max_pool_with_indices_names():
    x = randn(1, 2, 6, 6)
    check(lambda F, L, x: F.max_pool2d_with_indices(x, 2, 2), [x], gradgrad=False)
    check(lambda F, L, x: F.max_pool1d_with_indices(x, 3, 2, 1), [randn(2, 3, 7)],
          gradgrad=False)


@pytest.mark.parametrize("shape,k,s,p,out", [((2, 3, 6, 6), 2, None, 0, None),
                                             ((1, 2, 7, 5), 3, 2, 1, None),
                                             ((2, 4, 4), 2, 2, 0, (5, 5)),
                                             ((1, 2, 6, 6), 2, 2, 0, (1, 2, 7, 7))])
def test_max_unpool2d_matches_torch(shape, k, s, p, out):
    def fn(F, L, x):
        y, idx = F.max_pool2d(x, k, s, p, return_indices=True)
        return F.max_unpool2d(y, idx, k, s, p, output_size=out)
    # overlapping windows can pick one entry twice: the composition is then not the
    # identity on it, and its analytical gradient (torch's too) counts it twice
    check(fn, [randn(*shape)], gradcheck_=s is None or s >= k, gradgrad=False)


def test_max_unpool_gradcheck_with_fixed_indices():
    idx = pyad.tensor([[[[0, 3], [9, 14]]]])
    x = pyad.tensor(randn(1, 1, 2, 2), requires_grad=True)
    assert gradcheck(lambda v: F.max_unpool2d(v, idx, 2), (x,))
    assert gradgradcheck(lambda v: F.max_unpool2d(v, idx, 2), (x,))
    with pytest.raises(ValueError, match="invalid output_size"):
        F.max_unpool2d(x, idx, 2, output_size=(9, 9))


@pytest.mark.parametrize("shape,k,s,p", [((2, 3, 8), 2, None, 0), ((3, 9), 3, 2, 1)])
def test_max_unpool1d_matches_torch(shape, k, s, p):
    def fn(F, L, x):
        y, idx = F.max_pool1d(x, k, s, p, return_indices=True)
        return F.max_unpool1d(y, idx, k, s, p)
    check(fn, [randn(*shape)], gradcheck_=s is None or s >= k, gradgrad=False)


def test_max_unpool_bad_index_is_an_error():
    with pytest.raises(RuntimeError, match="max_unpool2d"):
        F.max_unpool2d(pyad.ones(1, 1, 2, 2), pyad.tensor([[[[0, 1], [2, 99]]]]), 2)


@pytest.mark.parametrize("p,k,s,ceil", [(2, 2, None, False), (3, (2, 3), 1, False),
                                        (1.5, 3, 2, True)])
def test_lp_pool2d_matches_torch(p, k, s, ceil):
    x = np.abs(randn(2, 3, 6, 7)) + 0.1
    check(lambda F, L, x: F.lp_pool2d(x, p, k, s, ceil), [x])


@pytest.mark.parametrize("p,k,s", [(2, 2, None), (3, 3, 1)])
def test_lp_pool1d_matches_torch(p, k, s):
    x = np.abs(randn(2, 3, 7)) + 0.1
    check(lambda F, L, x: F.lp_pool1d(x, p, k, s), [x])


# -- shuffle, dropout, rrelu ---------------------------------------------------------

@pytest.mark.parametrize("shape,g", [((2, 6, 3), 3), ((1, 4, 2, 2), 2), ((2, 3, 1, 1, 2), 1)])
def test_channel_shuffle_matches_torch(shape, g):
    check(lambda F, L, x: F.channel_shuffle(x, g), [randn(*shape)])


def test_channel_shuffle_errors():
    with pytest.raises(RuntimeError, match="divisible by groups"):
        F.channel_shuffle(pyad.zeros(1, 5, 2), 2)
    with pytest.raises(RuntimeError, match="at least 3 dimensions"):
        F.channel_shuffle(pyad.zeros(4, 2), 2)


def test_rrelu_eval_matches_torch_and_train_slopes_in_range():
    x = randn(3, 4)
    check(lambda F, L, x: F.rrelu(x, 0.1, 0.3), [x])
    check(lambda F, L, x: F.rrelu(x), [x])
    pyad.manual_seed(0)
    xv = pyad.tensor(x, requires_grad=True)
    y = F.rrelu(xv, 0.1, 0.3, training=True)
    ratio = y.data / x
    assert np.all(ratio[x > 0] == 1)
    assert np.all((ratio[x <= 0] >= 0.1) & (ratio[x <= 0] <= 0.3))
    y.sum().backward()
    np.testing.assert_allclose(xv.grad.data, ratio)


@pytest.mark.parametrize("name,args", [("relu_", ()), ("elu_", (0.7,)),
                                       ("leaky_relu_", (0.2,)), ("hardtanh_", (-0.5, 0.5)),
                                       ("selu_", ()), ("celu_", (1.3,)),
                                       ("threshold_", (0.1, -2.0)),
                                       ("rrelu_", (0.1, 0.3))])
def test_inplace_activations_match_torch(name, args):
    x = randn(3, 5)

    def fn(F, L, x):
        y = x * 1.0                      # a non-leaf, as in-place needs
        if L is torch and name == "celu_":
            # torch's celu gradient is ~3e-8 off exp(x / alpha) in float64 (pyad's is
            # exact): compare with the formula written out in torch
            (alpha,) = args
            return torch.where(y > 0, y, alpha * torch.expm1(y / alpha))
        out = getattr(F, name)(y, *args)
        assert out is y
        return out
    check(fn, [x], gradcheck_=False)


def test_alpha_dropout_keeps_mean_and_variance_and_eval_is_identity():
    x = pyad.ones(3)
    assert F.alpha_dropout(x, 0.5) is x
    assert F.feature_alpha_dropout(x, 0.5, training=False) is x
    pyad.manual_seed(1)
    z = pyad.tensor(RNG.standard_normal(200000))
    y = F.alpha_dropout(z, 0.3, training=True)
    assert abs(float(y.data.mean())) < 0.02 and abs(float(y.data.std()) - 1) < 0.02
    dropped = np.isclose(y.data, -1.7580993408473766 * (1 / np.sqrt((1.7580993408473766 ** 2
                                                                   * 0.3 + 1) * 0.7))
                         + 1.7580993408473766 * (1 / np.sqrt((1.7580993408473766 ** 2 * 0.3
                                                              + 1) * 0.7)) * 0.3)
    assert 0.28 < dropped.mean() < 0.32
    y = F.feature_alpha_dropout(pyad.tensor(RNG.standard_normal((4, 50, 3, 3))), 0.5, True)
    per = y.data.reshape(4, 50, 9)
    assert np.all(np.ptp(per, axis=2)[np.ptp(per, axis=2) < 1e-12] == 0)
    with pytest.raises(ValueError, match="between 0 and 1"):
        F.alpha_dropout(x, 1.5)


def test_dropout3d_zeroes_whole_channels():
    pyad.manual_seed(0)
    y = F.dropout3d(pyad.ones(2, 8, 2, 2, 2), 0.5)
    v = y.data.reshape(16, 8)
    assert np.all((v == 0).all(1) | (v == 2).all(1))
    y = F.dropout3d(pyad.ones(8, 2, 2, 2), 0.5)
    v = y.data.reshape(8, 8)
    assert np.all((v == 0).all(1) | (v == 2).all(1))
    assert F.dropout3d(pyad.ones(1, 2, 2, 2), training=False).shape == (1, 2, 2, 2)


# -- losses --------------------------------------------------------------------------

@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("target", [[[3, 0, -1, 1], [1, 2, 3, -1], [-1, 0, 1, 2]],
                                    [[0, 1, 2, 3], [2, 2, -1, 0], [1, -1, -1, -1]]])
def test_multilabel_margin_loss_matches_torch(reduction, target):
    x = randn(3, 4)
    check(lambda F, L, x, t: F.multilabel_margin_loss(x, t, reduction=reduction),
          [x, np.array(target, dtype=np.int64)])
    check(lambda F, L, x, t: F.multilabel_margin_loss(x, t, reduction=reduction),
          [x[0], np.array(target[0], dtype=np.int64)])


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("weighted", [False, True])
def test_multilabel_soft_margin_loss_matches_torch(reduction, weighted):
    x, t = randn(4, 5), (RNG.random((4, 5)) > 0.5).astype(np.float64)
    if weighted:
        check(lambda F, L, x, t, w: F.multilabel_soft_margin_loss(x, t, w,
                                                                  reduction=reduction),
              [x, t, RNG.random(5)], grad=[True, False, True])
    else:
        check(lambda F, L, x, t: F.multilabel_soft_margin_loss(x, t, reduction=reduction),
              [x, t], grad=[True, False])


@pytest.mark.parametrize("swap", [False, True])
@pytest.mark.parametrize("reduction", ["mean", "none"])
@pytest.mark.parametrize("custom", [False, True])
def test_triplet_margin_with_distance_loss_matches_torch(swap, reduction, custom):
    a, p, n = randn(5, 3), randn(5, 3), randn(5, 3)

    def fn(F, L, a, p, n):
        dist = (lambda u, v: 1 - F.cosine_similarity(u, v)) if custom else None
        return F.triplet_margin_with_distance_loss(a, p, n, distance_function=dist,
                                                   margin=1.5, swap=swap,
                                                   reduction=reduction)
    check(fn, [a, p, n])
    with pytest.raises(ValueError):
        F.triplet_margin_with_distance_loss(pyad.tensor(a), pyad.tensor(p), pyad.tensor(n),
                                            margin=0.0)


# -- sampling, distances, grids ------------------------------------------------------

def test_gumbel_softmax_hard_is_one_hot_with_soft_gradient():
    pyad.manual_seed(0)
    logits = pyad.tensor(randn(4, 5), requires_grad=True)
    y = F.gumbel_softmax(logits, tau=0.5, hard=True)
    assert np.all(y.data.sum(-1) == 1) and set(np.unique(y.data)) <= {0.0, 1.0}
    y_soft = F.gumbel_softmax(logits, tau=0.5)
    np.testing.assert_allclose(y_soft.data.sum(-1), 1)
    w = pyad.tensor(randn(4, 5))
    (y * w).sum().backward()
    assert logits.grad is not None and np.any(logits.grad.data)
    pyad.manual_seed(0)
    a = F.gumbel_softmax(logits, dim=0).data
    pyad.manual_seed(0)
    np.testing.assert_array_equal(a, F.gumbel_softmax(logits, dim=0).data)


@pytest.mark.parametrize("p", [2, 1, 3.5, float("inf")])
def test_pdist_matches_torch(p):
    check(lambda F, L, x: F.pdist(x, p), [randn(5, 3)], gradgrad=p != float("inf"))


def test_pdist_edge_cases():
    check(lambda F, L, x: F.pdist(x), [randn(1, 3)], gradcheck_=False)
    with pytest.raises(RuntimeError, match="2D"):
        F.pdist(pyad.zeros(3))


@pytest.mark.parametrize("align", [True, False])
@pytest.mark.parametrize("size", [(2, 3, 4, 5), (2, 1, 3, 2, 4)])
def test_affine_grid_matches_torch(align, size):
    theta = randn(2, 2, 3) if len(size) == 4 else randn(2, 3, 4)
    check(lambda F, L, t: F.affine_grid(t, size, align_corners=align), [theta])


@pytest.mark.parametrize("mode", ["bilinear", "nearest"])
@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("align", [True, False])
def test_grid_sample_matches_torch(mode, padding_mode, align):
    x = randn(2, 3, 4, 5)
    grid = RNG.uniform(-1.4, 1.4, (2, 3, 6, 2))          # some points outside the image
    check(lambda F, L, x, g: F.grid_sample(x, g, mode=mode, padding_mode=padding_mode,
                                           align_corners=align),
          [x, grid], gradgrad=False)


@pytest.mark.parametrize("mode", ["bilinear", "nearest"])
@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("align", [True, False])
def test_grid_sample_5d_matches_torch(mode, padding_mode, align):
    x = randn(2, 2, 3, 4, 3)
    grid = RNG.uniform(-1.3, 1.3, (2, 2, 3, 2, 3))
    check(lambda F, L, x, g: F.grid_sample(x, g, mode=mode, padding_mode=padding_mode,
                                           align_corners=align),
          [x, grid], gradgrad=False)


def test_grid_sample_errors():
    with pytest.raises(RuntimeError, match="bicubic"):
        F.grid_sample(pyad.zeros(1, 1, 2, 2, 2), pyad.zeros(1, 1, 1, 1, 3), mode="bicubic",
                      align_corners=False)
    with pytest.raises(RuntimeError, match="size 2 in last dimension"):
        F.grid_sample(pyad.zeros(1, 1, 2, 2), pyad.zeros(1, 1, 1, 3), align_corners=False)
    with pytest.raises(ValueError, match="padding_mode"):
        F.grid_sample(pyad.zeros(1, 1, 2, 2), pyad.zeros(1, 1, 1, 2), padding_mode="wrap")


def test_grid_sample_of_affine_grid_near_identity():
    x = randn(1, 2, 4, 4)
    # near (not at) the identity: its grid points sit on pixel centres, where bilinear
    # sampling has kinks that finite differences cannot see through
    theta = np.array([[[1.0, 0, 0], [0, 1.0, 0]]]) + 0.05 * randn(1, 2, 3)
    check(lambda F, L, x, t: F.grid_sample(x, F.affine_grid(t, (1, 2, 4, 4),
                                                            align_corners=False),
                                           align_corners=False), [x, theta], gradgrad=False)


def test_upsample_deprecated_aliases_match_torch():
    x = randn(1, 2, 3, 4)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check(lambda F, L, x: F.upsample_nearest(x, scale_factor=2), [x])
        check(lambda F, L, x: F.upsample_bilinear(x, size=(5, 7)), [x])


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
@pytest.mark.parametrize("padding_idx", [None, 2])
def test_embedding_bag_matches_torch(mode, padding_idx):
    w = randn(6, 3)
    idx = np.array([1, 2, 4, 5, 4, 3, 2, 0], dtype=np.int64)
    off = np.array([0, 2, 2, 5], dtype=np.int64)              # one empty bag
    check(lambda F, L, i, w, o: F.embedding_bag(i, w, o, mode=mode, padding_idx=padding_idx),
          [idx, w, off], gradgrad=mode != "max")
    idx2 = np.array([[1, 2, 4], [5, 2, 2]], dtype=np.int64)
    check(lambda F, L, i, w: F.embedding_bag(i, w, mode=mode, padding_idx=padding_idx),
          [idx2, w], gradgrad=mode != "max")
    check(lambda F, L, i, w, o: F.embedding_bag(i, w, o, mode=mode, include_last_offset=True),
          [idx, w, np.array([0, 3, 8], dtype=np.int64)], gradgrad=False)


def test_embedding_bag_max_ties_pick_first():
    w = np.array([[1.0, 2.0], [1.0, 0.5], [0.0, 2.0]])
    idx = np.array([0, 1, 2], dtype=np.int64)
    check(lambda F, L, i, w, o: F.embedding_bag(i, w, o, mode="max"),
          [idx, w, np.array([0], dtype=np.int64)], gradcheck_=False)


def test_embedding_bag_per_sample_weights_matches_torch():
    w = randn(5, 4)
    idx = np.array([0, 3, 3, 1, 4], dtype=np.int64)
    psw = randn(5)
    check(lambda F, L, i, w, o, s: F.embedding_bag(i, w, o, mode="sum",
                                                   per_sample_weights=s),
          [idx, w, np.array([0, 1, 3], dtype=np.int64), psw])
    with pytest.raises(NotImplementedError, match="per_sample_weights"):
        F.embedding_bag(pyad.tensor(idx), pyad.tensor(w), pyad.tensor([0, 1]),
                        mode="mean", per_sample_weights=pyad.tensor(psw))


@pytest.mark.parametrize("kw", [dict(), dict(stride=2, padding=1, output_padding=1),
                                dict(groups=2, dilation=2), dict(stride=3)])
@pytest.mark.parametrize("bias", [False, True])
def test_conv_transpose1d_matches_torch(kw, bias):
    x, w = randn(2, 4, 5), randn(4, 3, 3)
    arrays = [x, w] + ([randn(3 * kw.get("groups", 1))] if bias else [])
    check(lambda F, L, x, w, *b: F.conv_transpose1d(x, w, b[0] if b else None, **kw), arrays)
    check(lambda F, L, x, w: F.conv_transpose1d(x, w, **kw), [x[0], w])


# -- CTC -----------------------------------------------------------------------------

def _ctc_case(T, N, C, S, seed, blank=0, zero_len=False):
    rng = np.random.default_rng(seed)
    logits = rng.standard_normal((T, N, C))
    labels = [c for c in range(C) if c != blank]
    tg_len = rng.integers(1, S + 1, N)
    if zero_len:
        tg_len[0] = 0
    targets = rng.choice(labels, size=(N, S))
    targets[0, :2] = targets[0, 0]                         # a repeated label
    in_len = rng.integers(max(2 * S + 1, 1), T + 1, N)
    in_len[0] = T
    return logits, targets.astype(np.int64), in_len.astype(np.int64), tg_len.astype(np.int64)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("blank", [0, 3])
@pytest.mark.parametrize("zero_len", [False, True])
def test_ctc_loss_matches_torch(reduction, blank, zero_len):
    logits, targets, in_len, tg_len = _ctc_case(12, 3, 5, 3, 1, blank, zero_len)

    def fn(F, L, x, t, il, tl):
        return F.ctc_loss(F.log_softmax(x, 2), t, il, tl, blank=blank, reduction=reduction)
    check(fn, [logits, targets, in_len, tg_len], gradgrad=False)


def test_ctc_loss_gradient_of_log_probs_is_torchs():
    # torch's gradient w.r.t. log_probs themselves (not through log_softmax)
    logits, targets, in_len, tg_len = _ctc_case(10, 2, 4, 2, 2)
    lp = np.asarray(torch.log_softmax(torch.tensor(logits), 2))
    check(lambda F, L, x, t, il, tl: F.ctc_loss(x, t, il, tl, reduction="sum"),
          [lp, targets, in_len, tg_len], gradcheck_=False)


def test_ctc_loss_concatenated_targets_unbatched_and_infeasible():
    logits, targets, in_len, tg_len = _ctc_case(9, 3, 4, 2, 3)
    flat = np.concatenate([targets[b, :tg_len[b]] for b in range(3)])
    check(lambda F, L, x, t, il, tl: F.ctc_loss(F.log_softmax(x, 2), t, il, tl),
          [logits, flat, in_len, tg_len], gradgrad=False)
    check(lambda F, L, x, t: F.ctc_loss(F.log_softmax(x, 1), t, (9,), (2,)),
          [logits[:, 0], targets[0, :2]], gradgrad=False)
    # a target longer than the input can emit: infinite loss, or zero with zero_infinity
    bad = [logits[:3], np.array([[1, 2, 1, 2]]).repeat(3, 0), np.array([3, 3, 3]),
           np.array([4, 4, 4])]
    check(lambda F, L, x, t, il, tl: F.ctc_loss(F.log_softmax(x, 2), t, il, tl,
                                                reduction="none", zero_infinity=True),
          bad, gradcheck_=False)
    out = F.ctc_loss(pyad.tensor(bad[0]).log_softmax(2), pyad.tensor(bad[1]), bad[2],
                     bad[3], reduction="none")
    assert np.all(np.isinf(out.data))


# -- 3-D convolution and pooling ---------------------------------------------------

@pytest.mark.parametrize("kw", [dict(), dict(stride=2, padding=1),
                                dict(stride=(1, 2, 1), dilation=(2, 1, 1), padding=(1, 0, 1)),
                                dict(padding="same"), dict(padding="valid")])
def test_conv3d_matches_torch(kw):
    x, w, b = randn(2, 2, 4, 3, 4), randn(3, 2, 2, 2, 3), randn(3)
    check(lambda F, L, x, w, b: F.conv3d(x, w, b, **kw), [x, w, b])
    check(lambda F, L, x, w: F.conv3d(x, w, groups=2, **kw), [x[0], randn(4, 1, 2, 1, 2)],
          gradgrad=False)


@pytest.mark.parametrize("kw", [dict(kernel_size=2), dict(kernel_size=3, stride=2, padding=1),
                                dict(kernel_size=(2, 1, 2), stride=1, dilation=2,
                                     ceil_mode=True)])
def test_max_pool3d_matches_torch(kw):
    check(lambda F, L, x: F.max_pool3d(x, return_indices=True, **kw), [randn(2, 2, 5, 4, 5)],
          gradgrad=False)
    check(lambda F, L, x: F.max_pool3d(x, **kw), [randn(2, 5, 4, 5)], gradgrad=False)


@pytest.mark.parametrize("kw", [dict(kernel_size=2),
                                dict(kernel_size=3, stride=2, padding=1, ceil_mode=True),
                                dict(kernel_size=3, stride=2, padding=1,
                                     count_include_pad=False),
                                dict(kernel_size=(1, 2, 3), divisor_override=4)])
def test_avg_pool3d_matches_torch(kw):
    check(lambda F, L, x: F.avg_pool3d(x, **kw), [randn(2, 2, 5, 4, 5)])


@pytest.mark.parametrize("size", [2, (3, None, 1), (4, 3, 5), 1])
def test_adaptive_avg_pool3d_matches_torch(size):
    check(lambda F, L, x: F.adaptive_avg_pool3d(x, size), [randn(2, 2, 4, 3, 5)])


def test_float32_stays_float32():
    x = pyad.tensor(randn(2, 3, 4, 4).astype(np.float32), requires_grad=True)
    w = pyad.tensor(randn(6, 3).astype(np.float32), requires_grad=True)
    outs = [F.rms_norm(x, (4,)), F.adaptive_max_pool2d(x, 2), F.local_response_norm(x, 2),
            F.lp_pool2d(x.abs() + 0.1, 2, 2), F.channel_shuffle(x, 3), F.pdist(x[0, 0]),
            F.grid_sample(x, pyad.tensor(RNG.uniform(-1, 1, (2, 2, 2, 2)).astype(np.float32)),
                          align_corners=False),
            F.embedding_bag(pyad.tensor([0, 2, 5, 1]), w, pyad.tensor([0, 1])),
            F.conv3d(x.unsqueeze(0), pyad.tensor(randn(2, 2, 2, 2, 2).astype(np.float32))),
            F.avg_pool3d(x, 2), F.max_pool3d(x, 2)]
    for o in outs:
        assert o.dtype == np.float32
        (o.sum()).backward(retain_graph=True)
    assert x.grad.dtype == np.float32 and w.grad.dtype == np.float32


def test_new_functions_run_on_cupy():
    cupy = pytest.importorskip("cupy")
    try:
        cupy.zeros(1)
    except Exception:
        pytest.skip("no CUDA device")
    x = pyad.tensor(randn(2, 3, 5, 4), device="cuda", requires_grad=True)
    w = pyad.tensor(randn(6, 3), device="cuda", requires_grad=True)
    outs = [F.rms_norm(x, (4,)), F.adaptive_max_pool2d(x, 2), F.local_response_norm(x, 2),
            F.pad(x, (1, 2), mode="circular"),
            F.embedding_bag(pyad.tensor([0, 2, 5, 1], device="cuda"), w,
                            pyad.tensor([0, 1], device="cuda"), mode="max"),
            F.ctc_loss(x[:, :, 0].permute(2, 0, 1).log_softmax(2)[:, :2],
                       pyad.tensor([[1, 2], [2, 1]], device="cuda"), [4, 4], [2, 2]),
            F.avg_pool3d(x.unsqueeze(0), 2), F.max_pool3d(x.unsqueeze(0), 2)]
    for o in outs:
        assert o.device == x.device
        o.sum().backward(retain_graph=True)
    assert x.grad.device == x.device


def test_max_pools_pick_the_last_nan_as_torch():
    x = np.array([[[1.0, np.nan, 3.0, np.nan, 0.5, 2.0]]])
    check(lambda F, L, x: F.adaptive_max_pool1d(x, 2, return_indices=True), [x],
          gradcheck_=False)
    x5 = np.full((1, 1, 2, 2, 2), np.nan)
    x5[0, 0, 0, 0, 0] = 1.0
    check(lambda F, L, x: F.max_pool3d(x, 2, return_indices=True), [x5], gradcheck_=False)


def test_embedding_bag_refuses_what_it_does_not_do():
    w, i, o = pyad.ones(3, 2), pyad.tensor([0, 1]), pyad.tensor([0])
    with pytest.raises(NotImplementedError, match="sparse"):
        F.embedding_bag(i, w, o, sparse=True)
    with pytest.raises(NotImplementedError, match="scale_grad_by_freq"):
        F.embedding_bag(i, w, o, scale_grad_by_freq=True)
