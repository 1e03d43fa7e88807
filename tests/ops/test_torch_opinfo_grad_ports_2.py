"""Round 2 of the OpInfo gradient ports (test/test_ops.py, TestGradients and TestCommon):
the torch.nn.functional ops that test_torch_opinfo_grad_ports.py's table does not have.

The machinery (``Op``, the sample helpers, the checks and the tolerances) is that file's;
this one has its own table ``OPS`` and runs the same parametrized tests over it, under
torch's test names: test_fn_grad / test_fn_gradgrad (gradcheck / gradgradcheck in
float64, gradgrad only where torch's OpInfo has supports_gradgrad),
test_fn_grad_matches_torch, test_forward_mode_AD (where the OpInfo has
supports_forward_ad), test_variant_consistency_eager (the in-place methods) and
test_noncontiguous_samples.

Sample inputs follow the OpInfos' ``sample_inputs_*`` (common_methods_invocations.py and
opinfo/definitions/nn.py) at small shapes: the keyword variants that change the
gradient formula (align_corners, padding modes, reductions, beta/threshold, weights,
pos_weight, log_target, probability targets with label smoothing, ...), 0-d and empty
inputs where the OpInfo has them. Integer targets, indices, offsets and class weights
are ``ND`` (not differentiable), as in torch's samples. Expected values come from torch
on the same inputs, never from pyad.
"""
import numpy as np
import pytest

import pyad

torch = pytest.importorskip("torch")

import test_torch_opinfo_grad_ports as base  # noqa: E402
from test_torch_opinfo_grad_ports import ND, Op, _params  # noqa: E402


def _F(L):
    return L.nn.functional


def _with(name, **fixed):
    """nn.functional.<name> with some keywords fixed (a mode, training=False)."""
    return lambda L: (lambda *a, **k: getattr(_F(L), name)(*a, **fixed, **k))


def _act(*kwcases, scale=3.0, empty=True, maker="__call__"):
    """Unary activations (sample_inputs_elementwise_unary plus the OpInfo's keywords)."""
    def build(r):
        mk = getattr(r, maker)
        out = [((mk(2, 3) * scale,), {}), ((mk() * scale,), {})]
        if empty:
            out.append(((mk(0, 3),), {}))
        for kw in kwcases:
            out.append(((mk(3, 2) * scale,), dict(kw)))
        return out
    return build


def _unpool(dim):
    def fn(L):
        def f(x, k, **kw):
            F = _F(L)
            y, idx = getattr(F, f"max_pool{dim}d")(x, k, return_indices=True, **kw)
            return getattr(F, f"max_unpool{dim}d")(y, idx, k, **kw)
        return f
    return fn


def _ctc(L):
    # torch's ctc_loss backward is the gradient with respect to the logits of a
    # log_softmax (it assumes normalized log_probs), so the OpInfo's gradcheck goes
    # through log_softmax; the same is done here.
    return lambda x, *a, **k: _F(L).ctc_loss(_F(L).log_softmax(x, 2), *a, **k)


def _logsm(a):
    return a - np.log(np.exp(a).sum(-1, keepdims=True))


def _pm1(*shape, seed=0):
    g = np.random.default_rng(seed)
    return ND(g.choice([-1.0, 1.0], shape))


OPS = [
    # convolutions
    Op("nn.functional.conv3d", None,
       lambda r: [((r(1, 2, 3, 3, 3), r(2, 2, 2, 2, 2), r(2)), {}),
                  ((r(1, 2, 4, 3, 3), r(2, 1, 2, 2, 1)),
                   dict(stride=(2, 1, 1), padding=1, groups=2, dilation=(1, 2, 1)))],
       cplx=True, nondet=1e-12),
    Op("nn.functional.conv_transpose1d", None,
       lambda r: [((r(1, 2, 4), r(2, 3, 2), r(3)), {}),
                  ((r(2, 4, 3), r(4, 1, 3)),
                   dict(stride=2, padding=1, output_padding=1, groups=2, dilation=1)),
                  ((r(1, 2, 3), r(2, 2, 2)), dict(dilation=2))],
       cplx=True, nondet=1e-12),
    Op("nn.functional.conv_transpose2d", None,
       lambda r: [((r(1, 2, 3, 3), r(2, 3, 2, 2), r(3)), {}),
                  ((r(1, 4, 3, 2), r(4, 1, 2, 3)),
                   dict(stride=(2, 1), padding=(1, 0), output_padding=(1, 0), groups=2,
                        dilation=(1, 2)))],
       cplx=True, nondet=1e-12),
    Op("nn.functional.conv_transpose3d", None,
       lambda r: [((r(1, 2, 2, 2, 2), r(2, 2, 2, 2, 2), r(2)), {}),
                  ((r(1, 2, 2, 3, 2), r(2, 1, 2, 1, 2)),
                   dict(stride=2, padding=1, output_padding=1, groups=2))],
       cplx=True, nondet=1e-12),
    Op("nn.functional.conv_tbc", None,
       lambda r: [((r(4, 2, 3), r(2, 3, 2), r(2)), {}),
                  ((r(4, 1, 2), r(3, 2, 3), r(3)), dict(pad=1))],
       fwd=False, nondet=1e-12),
    Op("nn.functional.bilinear", None,
       lambda r: [((r(2, 3), r(2, 4), r(5, 3, 4), r(5)), {}),
                  ((r(2, 2, 3), r(2, 2, 2), r(3, 3, 2)), {})],
       nondet=1e-12),
    # pooling
    Op("nn.functional.max_pool3d", None,
       lambda r: [((r.spread(1, 2, 4, 4, 4), 2), {}),
                  ((r.spread(1, 1, 5, 4, 3), (3, 2, 2)),
                   dict(stride=(2, 1, 2), padding=1, ceil_mode=True)),
                  ((r.spread(1, 1, 4, 4, 4), 2), dict(dilation=2))]),
    Op("nn.functional.avg_pool3d", None,
       lambda r: [((r(1, 2, 4, 4, 4), 2), {}),
                  ((r(1, 1, 5, 4, 3), (3, 2, 2)),
                   dict(stride=(2, 1, 2), padding=1, ceil_mode=True,
                        count_include_pad=False)),
                  ((r(1, 1, 4, 4, 4), 2), dict(divisor_override=3))],
       nondet=1e-12),
    Op("nn.functional.avg_pool2d_divisor", _with("avg_pool2d"),
       lambda r: [((r(1, 2, 4, 5), 2), dict(divisor_override=3)),
                  ((r(2, 3, 3), 2), dict(stride=1, padding=1, count_include_pad=False))]),
    Op("nn.functional.adaptive_avg_pool1d", None,
       lambda r: [((r(1, 2, 6), 3), {}), ((r(2, 5), 3), {}), ((r(1, 2, 4), 5), {})]),
    Op("nn.functional.adaptive_avg_pool2d", None,
       lambda r: [((r(1, 2, 4, 4), 2), {}), ((r(2, 5, 3), (3, 2)), {}),
                  ((r(1, 1, 3, 4), (None, 3)), {})]),
    Op("nn.functional.adaptive_avg_pool3d", None,
       lambda r: [((r(1, 2, 4, 4, 4), 2), {}), ((r(1, 3, 3, 2), (2, 1, 3)), {})]),
    Op("nn.functional.adaptive_max_pool1d", None,
       lambda r: [((r.spread(1, 2, 6), 3), {}), ((r.spread(2, 5), 3), {}),
                  ((r.spread(1, 2, 5), 3), dict(return_indices=True))]),
    Op("nn.functional.adaptive_max_pool2d", None,
       lambda r: [((r.spread(1, 2, 4, 4), 2), {}), ((r.spread(2, 5, 3), (3, 2)), {}),
                  ((r.spread(1, 1, 3, 4), (None, 3)), dict(return_indices=True))]),
    Op("nn.functional.adaptive_max_pool3d", None,
       lambda r: [((r.spread(1, 2, 4, 4, 4), 2), {}),
                  ((r.spread(1, 3, 3, 2), (2, 1, 3)), {})]),
    Op("nn.functional.lp_pool1d", None,
       lambda r: [((r.pos(1, 2, 6), 2.0, 2), {}), ((r.pos(2, 7), 1.5, 3), dict(stride=2)),
                  ((r.pos(1, 2, 5), 3, 2), dict(ceil_mode=True))]),
    Op("nn.functional.lp_pool2d", None,
       lambda r: [((r.pos(1, 2, 4, 4), 2.0, 2), {}),
                  ((r.pos(1, 3, 5), 1.5, (2, 3)), dict(stride=(1, 2))),
                  ((r.pos(1, 1, 5, 5), 3, 2), dict(ceil_mode=True))]),
    Op("nn.functional.lp_pool3d", None,
       lambda r: [((r.pos(1, 1, 4, 4, 4), 2.0, 2), {}),
                  ((r.pos(1, 3, 3, 4), 1.5, (2, 2, 3)), dict(stride=1))]),
    Op("nn.functional.max_unpool1d", _unpool(1),
       # windows that do not overlap: an index chosen twice is scattered twice, which
       # torch documents as nondeterministic (no OpInfo sample has it)
       lambda r: [((r.spread(1, 2, 6), 2), {}), ((r.spread(1, 2, 7), 3), dict(stride=3))]),
    Op("nn.functional.max_unpool2d", _unpool(2),
       lambda r: [((r.spread(1, 2, 4, 4), 2), {}),
                  ((r.spread(1, 1, 5, 4), (3, 2)), dict(stride=(3, 2)))]),
    Op("nn.functional.max_unpool3d", _unpool(3),
       lambda r: [((r.spread(1, 1, 4, 4, 4), 2), {})]),
    # shuffles, sampling, resizing
    Op("nn.functional.pixel_shuffle", None,
       lambda r: [((r(1, 8, 2, 3), 2), {}), ((r(2, 1, 9, 2, 2), 3), {}),
                  ((r(4, 1, 1), 1), {})], cplx=True),
    Op("nn.functional.pixel_unshuffle", None,
       lambda r: [((r(1, 2, 4, 6), 2), {}), ((r(2, 1, 1, 3, 3), 3), {}),
                  ((r(2, 1, 1), 1), {})], cplx=True),
    Op("nn.functional.channel_shuffle", None,
       lambda r: [((r(1, 6, 2), 2), {}), ((r(2, 6, 1, 2), 3), {})]),
    # grid_sample: the OpInfo has supports_gradgrad=False (and torch has no forward
    # formula: supports_forward_ad=False, as for conv_tbc, multi_margin_loss,
    # multilabel_margin_loss and the CPU kernel of scaled_dot_product_attention)
    Op("nn.functional.grid_sample", None,
       lambda r: [((r(1, 2, 3, 4), r(1, 2, 3, 2) * 1.2), {}),
                  ((r(2, 1, 3, 3), r(2, 3, 2, 2) * 1.2),
                   dict(padding_mode="border", align_corners=True)),
                  ((r(1, 1, 4, 3), r(1, 2, 2, 2) * 1.4),
                   dict(padding_mode="reflection", align_corners=False)),
                  ((r(1, 1, 4, 3), r(1, 2, 2, 2) * 1.4),
                   dict(padding_mode="reflection", align_corners=True)),
                  ((r(1, 2, 3, 3), r(1, 2, 2, 2)), dict(mode="nearest")),
                  ((r(1, 1, 4, 4), r(1, 2, 2, 2) * 1.2), dict(mode="bicubic")),
                  ((r(1, 1, 4, 4), r(1, 2, 2, 2)), dict(mode="bicubic",
                                                        padding_mode="border",
                                                        align_corners=True)),
                  ((r(1, 2, 2, 3, 3), r(1, 2, 2, 1, 3) * 1.2), {}),
                  ((r(1, 1, 3, 3, 2), r(1, 2, 1, 2, 3)), dict(padding_mode="border",
                                                              align_corners=True)),
                  ((r(1, 1, 3, 2, 2), r(1, 1, 2, 2, 3) * 1.3),
                   dict(padding_mode="reflection"))],
       gradgrad=False, fwd=False, nondet=1e-12),
    Op("nn.functional.affine_grid", None,
       lambda r: [((r(2, 2, 3), (2, 1, 3, 4)), dict(align_corners=False)),
                  ((r(1, 2, 3), (1, 2, 2, 3)), dict(align_corners=True)),
                  ((r(1, 3, 4), (1, 1, 2, 3, 2)), dict(align_corners=False)),
                  ((r(2, 3, 4), (2, 1, 2, 2, 3)), dict(align_corners=True))]),
    Op("nn.functional.interpolate_bilinear", _with("interpolate", mode="bilinear"),
       lambda r: [((r(1, 2, 2, 3),), dict(size=(3, 5))),
                  ((r(1, 1, 3, 3),), dict(size=(5, 4), align_corners=True)),
                  ((r(1, 1, 4, 4),), dict(scale_factor=0.5)),
                  ((r(1, 1, 2, 2),), dict(scale_factor=(1.5, 2.0),
                                          recompute_scale_factor=False)),
                  ((r(1, 1, 4, 4),), dict(size=(3, 3), antialias=True))],
       nondet=1e-12),
    Op("nn.functional.interpolate_bicubic", _with("interpolate", mode="bicubic"),
       lambda r: [((r(1, 2, 2, 3),), dict(size=(3, 5))),
                  ((r(1, 1, 3, 3),), dict(scale_factor=1.7)),
                  ((r(1, 1, 4, 4),), dict(size=(2, 3), align_corners=True)),
                  ((r(1, 1, 5, 4),), dict(size=(2, 3), antialias=True))],
       nondet=1e-12),
    Op("nn.functional.interpolate_trilinear", _with("interpolate", mode="trilinear"),
       lambda r: [((r(1, 1, 2, 2, 3),), dict(size=(3, 3, 2))),
                  ((r(1, 2, 2, 2, 2),), dict(scale_factor=2, align_corners=True)),
                  ((r(1, 1, 2, 3, 2),), dict(size=(3, 2, 4), align_corners=False))],
       nondet=1e-12),
    Op("nn.functional.interpolate_area", _with("interpolate", mode="area"),
       lambda r: [((r(1, 2, 6),), dict(size=4)), ((r(1, 1, 4, 5),), dict(size=(3, 2))),
                  ((r(1, 1, 4, 4, 2),), dict(size=(2, 3, 1)))],
       nondet=1e-12),
    Op("nn.functional.interpolate_nearest", _with("interpolate", mode="nearest"),
       lambda r: [((r(1, 2, 2, 3),), dict(size=(3, 5))),
                  ((r(1, 1, 2, 2, 3),), dict(scale_factor=2)),
                  ((r(1, 1, 5, 4),), dict(size=(2, 3)))]),
    Op("nn.functional.interpolate_nearest_exact", _with("interpolate", mode="nearest-exact"),
       lambda r: [((r(1, 2, 5),), dict(size=3)), ((r(1, 1, 2, 3),), dict(size=(4, 5))),
                  ((r(1, 1, 2, 2, 3),), dict(size=(3, 1, 4)))]),
    # activations
    Op("nn.functional.glu", None,
       lambda r: [((r(2, 4),), {}), ((r(4, 3),), dict(dim=0)), ((r(2, 2, 6),), dict(dim=-1))]),
    Op("nn.functional.gelu", None,
       _act(dict(approximate="tanh"), dict(approximate="none"))),
    Op("nn.functional.prelu", None,
       lambda r: [((r.nonzero(2, 3, 2), r(1)), {}), ((r.nonzero(2, 3, 2), r(3)), {}),
                  ((r.nonzero(3), r(1)), {}), ((r.nonzero(2, 3), r(3)), {})],
       method="prelu"),
    Op("nn.functional.hardtanh", None,
       _act(dict(min_val=-0.5, max_val=2.0))),
    Op("nn.functional.relu6", None, _act(scale=8.0)),
    Op("nn.functional.elu", None, _act(dict(alpha=0.5))),
    Op("nn.functional.selu", None, _act()),
    Op("nn.functional.celu", None, _act(dict(alpha=2.0))),
    Op("nn.functional.softplus", None,
       _act(dict(beta=2.0), dict(beta=0.5, threshold=1.0), dict(threshold=0.5))),
    Op("nn.functional.mish", None, _act()),
    Op("nn.functional.silu", None, _act()),
    Op("nn.functional.hardswish", None, _act(scale=4.0)),
    Op("nn.functional.hardsigmoid", None, _act(scale=4.0)),
    Op("nn.functional.logsigmoid", None, _act(scale=8.0)),
    Op("nn.functional.tanhshrink", None, _act()),
    Op("nn.functional.softsign", None, _act()),
    Op("nn.functional.hardshrink", None, _act(dict(lambd=1.0)), method="hardshrink"),
    Op("nn.functional.softshrink", None, _act(dict(lambd=1.0))),
    Op("nn.functional.leaky_relu", None, _act(dict(negative_slope=0.3), maker="nonzero")),
    Op("nn.functional.rrelu", _with("rrelu", training=False), _act(maker="nonzero")),
    Op("nn.functional.threshold", None,
       lambda r: [((r(2, 3) * 3, 0.5, -1.0), {}), ((r() * 3, 0.1, 2.0), {}),
                  ((r(0, 2), 0.0, 0.0), {})]),
    # normalization
    Op("nn.functional.instance_norm", None,
       lambda r: [((r(2, 3, 4),), {}),
                  ((r(2, 2, 2, 3), None, None, r(2), r(2)), dict(eps=0.1)),
                  ((r(1, 2, 3), ND(r(2)), ND(r.pos(2)), r(2), r(2)),
                   dict(use_input_stats=False)),
                  ((r(1, 2, 2, 2, 2),), {}),
                  # running stats given and updated (use_input_stats, the default)
                  ((r(2, 2, 3), ND(r(2)), ND(r.pos(2))), dict(momentum=0.3))]),
    Op("nn.functional.local_response_norm", None,
       lambda r: [((r(2, 4, 3), 2), {}),
                  ((r(1, 5, 2, 2), 3), dict(alpha=0.5, beta=0.6, k=2.0)),
                  ((r(1, 3, 2, 2, 2), 2), {})]),
    Op("nn.functional.rms_norm", None,
       lambda r: [((r(2, 3), (3,)), {}), ((r(2, 2, 3), (2, 3), r(2, 3)), {}),
                  ((r(3, 4), [4], r(4)), dict(eps=0.5))]),
    # embeddings: the OpInfo's embedding_bag has supports_gradgrad=False
    Op("nn.functional.embedding_bag", None,
       lambda r: [((r.idx(5, 2, 3), r(5, 2)), {}),
                  ((ND(np.array([0, 2, 4, 1, 3])), r(5, 3), ND(np.array([0, 2]))),
                   dict(mode="sum")),
                  ((ND(np.array([0, 2, 4, 1, 3])), r(5, 3), ND(np.array([0, 3, 3]))),
                   dict(mode="mean")),
                  ((ND(np.array([[0, 2, 4], [1, 3, 3]])), r.spread(5, 2)),
                   dict(mode="max")),
                  ((ND(np.array([0, 2, 4, 1, 2])), r(5, 2), ND(np.array([0, 2, 5]))),
                   dict(include_last_offset=True)),
                  ((ND(np.array([[0, 2, 1], [1, 1, 3]])), r(4, 2)),
                   dict(padding_idx=1, mode="sum")),
                  # empty bags (offsets repeating), padding_idx in mean / max mode
                  ((ND(np.array([0, 2, 3, 1])), r(4, 3), ND(np.array([0, 0, 2]))),
                   dict(mode="mean")),
                  ((ND(np.array([0, 2, 3, 1, 0])), r.spread(4, 3),
                    ND(np.array([0, 2, 2, 4]))), dict(mode="max")),
                  ((ND(np.array([0, 2, 3, 2, 2])), r(4, 2), ND(np.array([0, 2, 3]))),
                   dict(mode="mean", padding_idx=2)),
                  ((ND(np.array([0, 1, 3, 1, 2])), r.spread(4, 2), ND(np.array([0, 2, 3]))),
                   dict(mode="max", padding_idx=-1, include_last_offset=True))],
       gradgrad=False, fwd=False, nondet=1e-12),
    Op("nn.functional.embedding_bag_per_sample_weights",
       lambda L: (lambda i, w, o, psw, **k: _F(L).embedding_bag(
           i, w, o, mode="sum", per_sample_weights=psw, **k)),
       lambda r: [((ND(np.array([0, 2, 4, 1])), r(5, 2), ND(np.array([0, 1])), r(4)), {}),
                  ((ND(np.array([0, 2, 3, 1, 1])), r(4, 3), ND(np.array([0, 3, 3])),
                    r(5)), dict(include_last_offset=True)),
                  ((ND(np.array([0, 2, 3, 1])), r(4, 2), ND(np.array([0, 0, 2])), r(4)),
                   dict(padding_idx=0))],
       gradgrad=False, fwd=False, nondet=1e-12),
    # losses
    Op("nn.functional.kl_div", None,
       lambda r: [((r(2, 3), r.pos(2, 3) / 3), {}),
                  ((r(2, 3), r.pos(2, 3) / 3), dict(reduction="batchmean")),
                  ((r(2, 3), r(2, 3)), dict(reduction="sum", log_target=True)),
                  ((r(3), r.pos(3)), dict(reduction="none")),
                  ((r(), r.pos()), dict(reduction="sum"))]),
    Op("nn.functional.binary_cross_entropy", None,
       lambda r: [((r.pos(2, 3) * 0.6, r.pos(2, 3) * 0.5), {}),
                  ((r.pos(2, 3) * 0.6, r.pos(2, 3) * 0.5, ND(r.pos(2, 3))),
                   dict(reduction="sum")),
                  ((r.pos(3) * 0.6, r.pos(3) * 0.5, ND(r.pos(3))), dict(reduction="none")),
                  ((r.pos() * 0.6, r.pos() * 0.5), {})]),
    Op("nn.functional.binary_cross_entropy_with_logits", None,
       lambda r: [((r(2, 3) * 2, r.pos(2, 3) * 0.5), {}),
                  ((r(2, 3) * 2, r.pos(2, 3) * 0.5),
                   dict(weight=ND(r.pos(2, 3)), reduction="sum")),
                  ((r(2, 3) * 2, r.pos(2, 3) * 0.5),
                   dict(pos_weight=ND(r.pos(3)), reduction="none")),
                  ((r(2, 3) * 2, r.pos(2, 3) * 0.5),
                   dict(weight=ND(r.pos(3)), pos_weight=ND(r.pos(3))))]),
    Op("nn.functional.poisson_nll_loss", None,
       lambda r: [((r(2, 3), r.pos(2, 3) * 2), {}),
                  ((r.pos(2, 3), r.pos(2, 3) * 2), dict(log_input=False)),
                  ((r(2, 3), r.pos(2, 3) * 3), dict(full=True, reduction="sum")),
                  ((r.pos(3), r.pos(3) * 2), dict(log_input=False, full=True,
                                                  reduction="none", eps=0.1))]),
    Op("nn.functional.gaussian_nll_loss", None,
       lambda r: [((r(2, 3), r(2, 3), r.pos(2, 3)), {}),
                  ((r(2, 3), r(2, 3), r.pos(2, 1)), dict(full=True, reduction="sum")),
                  ((r(2, 3), r(2, 3), r.pos(2)), dict(reduction="none"))]),
    # var below eps: torch clamps a clone of var under no_grad, so the gradient passes
    # through the clamp as if it were the identity (not the true derivative, so no
    # gradcheck: torch's own fails too); pyad must give torch's gradient all the same
    Op("nn.functional.gaussian_nll_loss_clamped_var", _with("gaussian_nll_loss"),
       lambda r: [((r(2, 3), r(2, 3), r.pos(2, 3) * 0.01), dict(eps=0.02)),
                  ((r(2, 3), r(2, 3), r.pos(2, 1) * 0.01), dict(eps=0.012))],
       gc=False),
    Op("nn.functional.ctc_loss", _ctc,
       lambda r: [((r(5, 2, 4), ND(np.array([[1, 2, 2], [3, 1, 0]])),
                    ND(np.array([5, 4])), ND(np.array([3, 2]))), {}),
                  ((r(4, 2, 3), ND(np.array([1, 2, 1, 1])), ND(np.array([4, 3])),
                    ND(np.array([3, 1]))), dict(reduction="sum")),
                  ((r(4, 1, 3), ND(np.array([[2, 1]])), ND(np.array([4])),
                    ND(np.array([2]))), dict(blank=0, reduction="none"))],
       gradgrad=False, fwd=False, nondet=1e-12),
    # as the OpInfo's samples: normalized log_probs as the leaf itself, torch's gradient
    # (the log_softmax-logits formula, not gradcheck's) compared as it is; lengths as
    # tensors and lists, zero_infinity with a target too long for its input
    Op("nn.functional.ctc_loss_log_probs", _with("ctc_loss"),
       lambda r: [((_logsm(r(5, 2, 4)), ND(np.array([[1, 2, 2], [3, 1, 0]])),
                    ND(np.array([5, 4])), ND(np.array([3, 2]))), {}),
                  ((_logsm(r(4, 2, 3)), ND(np.array([[1, 2], [2, 2]])), [4, 3], [2, 2]),
                   dict(reduction="none")),
                  ((_logsm(r(3, 2, 3)), ND(np.array([[1, 2, 1, 2], [2, 1, 1, 1]])),
                    ND(np.array([3, 3])), ND(np.array([4, 1]))),
                   dict(zero_infinity=True, reduction="sum")),
                  ((_logsm(r(3, 2, 3)), ND(np.array([[1, 2, 1, 2], [2, 1, 1, 1]])),
                    ND(np.array([3, 3])), ND(np.array([4, 1]))),
                   dict(zero_infinity=True))],
       gc=False, fwd=False),
    Op("nn.functional.multi_margin_loss", None,
       lambda r: [((r(3, 4), r.idx(4, 3)), {}),
                  ((r(3, 4), r.idx(4, 3)), dict(p=2, margin=0.7, reduction="sum")),
                  ((r(3, 4), r.idx(4, 3), 1, 1.0, ND(r.pos(4))), dict(reduction="none")),
                  ((r(4), ND(np.array(2))), {})],
       gradgrad=False, fwd=False),
    Op("nn.functional.multilabel_margin_loss", None,
       lambda r: [((r(2, 4), ND(np.array([[3, 0, -1, 1], [1, 2, 3, -1]]))), {}),
                  ((r(2, 4), ND(np.array([[0, -1, 2, 2], [-1, 0, 0, 0]]))),
                   dict(reduction="none")),
                  ((r(3), ND(np.array([2, -1, 0]))), dict(reduction="sum"))],
       gradgrad=False, fwd=False),
    Op("nn.functional.multilabel_soft_margin_loss", None,
       lambda r: [((r(2, 4), ND(r.ints(2, 4, high=2))), {}),
                  ((r(2, 4), ND(r.ints(2, 4, high=2))),
                   dict(weight=ND(r.pos(4)), reduction="none")),
                  ((r(2, 4), ND(r.ints(2, 4, high=2))), dict(reduction="sum"))]),
    Op("nn.functional.triplet_margin_loss", None,
       lambda r: [((r(3, 4), r(3, 4), r(3, 4)), {}),
                  ((r(3, 4), r(3, 4), r(3, 4)), dict(margin=2.0, p=1, swap=True)),
                  ((r(3, 4), r(3, 4), r(3, 4)), dict(p=3, reduction="none")),
                  ((r(4), r(4), r(4)), dict(margin=5.0, reduction="sum"))]),
    Op("nn.functional.triplet_margin_with_distance_loss", None,
       lambda r: [((r(3, 4), r(3, 4), r(3, 4)), {}),
                  ((r(3, 4), r(3, 4), r(3, 4)), dict(margin=2.0, swap=True,
                                                      reduction="none"))]),
    Op("nn.functional.cosine_embedding_loss", None,
       lambda r: [((r(3, 4), r(3, 4), _pm1(3, seed=1)), {}),
                  ((r(3, 4), r(3, 4), _pm1(3, seed=2)), dict(margin=0.1,
                                                              reduction="none")),
                  ((r(4), r(4), ND(np.array(-1.0))), dict(margin=-0.5))]),
    Op("nn.functional.margin_ranking_loss", None,
       lambda r: [((r(2, 3), r(2, 3), _pm1(2, 3, seed=3)), {}),
                  ((r(2, 3), r(2, 3), _pm1(2, 3, seed=4)), dict(margin=0.4,
                                                                 reduction="none")),
                  ((r(3), r(3), _pm1(3, seed=5)), dict(margin=0.2, reduction="sum"))]),
    Op("nn.functional.hinge_embedding_loss", None,
       lambda r: [((r(2, 3), _pm1(2, 3, seed=6)), {}),
                  ((r(2, 3) * 2, _pm1(2, 3, seed=7)), dict(margin=0.5, reduction="none")),
                  ((r(3), _pm1(3, seed=8)), dict(reduction="sum"))]),
    Op("nn.functional.soft_margin_loss", None,
       lambda r: [((r(2, 3), _pm1(2, 3, seed=9)), {}),
                  ((r(2, 3), ND(np.random.default_rng(11).uniform(-1, 1, (2, 3)))),
                   dict(reduction="none")),
                  ((r(), _pm1(seed=10)), dict(reduction="sum"))]),
    Op("nn.functional.cross_entropy_probs", _with("cross_entropy"),
       lambda r: [((r(3, 4), r.pos(3, 4) / 4), dict(label_smoothing=0.2)),
                  ((r(3, 4), r.pos(3, 4) / 4), dict(weight=ND(r.pos(4)),
                                                    reduction="sum")),
                  ((r(2, 3, 2), r.pos(2, 3, 2) / 3),
                   dict(weight=ND(r.pos(3)), label_smoothing=0.3, reduction="none")),
                  ((r(4), r.pos(4) / 4), {})]),
    Op("nn.functional.cross_entropy_smoothing", _with("cross_entropy"),
       lambda r: [((r(3, 4), r.idx(4, 3)), dict(label_smoothing=0.25)),
                  ((r(3, 4), ND(np.array([0, 2, 1]))),
                   dict(weight=ND(r.pos(4)), label_smoothing=0.1, ignore_index=2)),
                  ((r(2, 3, 2), r.idx(3, 2, 2)),
                   dict(label_smoothing=0.5, reduction="none")),
                  ((r(4), ND(np.array(1))), dict(label_smoothing=0.1))]),
    # attention, distances
    Op("nn.functional.scaled_dot_product_attention", None,
       lambda r: [((r(2, 3, 4), r(2, 5, 4), r(2, 5, 2)), {}),
                  ((r(1, 2, 3, 4), r(1, 2, 3, 4), r(1, 2, 3, 4)), dict(is_causal=True)),
                  ((r(2, 3, 4), r(2, 5, 4), r(2, 5, 3), r(3, 5)), dict(scale=0.3)),
                  ((r(2, 3, 4), r(2, 5, 4), r(2, 5, 3), ND(np.array(
                      [[1, 0, 1, 1, 0], [1, 1, 1, 1, 1], [0, 0, 1, 0, 0]], bool))), {}),
                  ((r(1, 4, 3, 2), r(1, 2, 3, 2), r(1, 2, 3, 3)), dict(enable_gqa=True)),
                  ((r(1, 2, 3, 2), r(1, 2, 4, 2), r(1, 2, 4, 2), r(1, 1, 3, 4)), {})],
       fwd=False, nondet=1e-12),
    Op("nn.functional.pairwise_distance", None,
       lambda r: [((r(3, 4), r(3, 4)), {}), ((r(3, 4), r(4)), dict(p=1)),
                  ((r(3, 4), r(3, 4)), dict(p=3, eps=1e-3, keepdim=True)),
                  ((r(4), r(4)), {})]),
    # dropout family, eval mode (and p=0): the identity
    Op("nn.functional.dropout", _with("dropout", training=False),
       lambda r: [((r(2, 3),), {}), ((r(),), dict(p=0.3)), ((r(0, 2),), {})]),
    Op("nn.functional.dropout_p0", _with("dropout", p=0.0, training=True),
       lambda r: [((r(2, 3),), {})]),
    Op("nn.functional.dropout1d", _with("dropout1d", training=False),
       lambda r: [((r(2, 3, 4),), {}), ((r(3, 4),), dict(p=0.2))]),
    Op("nn.functional.dropout2d", _with("dropout2d", training=False),
       lambda r: [((r(1, 2, 3, 4),), {}), ((r(2, 3, 4),), dict(p=0.2))]),
    Op("nn.functional.dropout3d", _with("dropout3d", training=False),
       lambda r: [((r(1, 2, 2, 3, 2),), {}), ((r(2, 2, 2, 3),), dict(p=0.2))]),
    Op("nn.functional.alpha_dropout", _with("alpha_dropout", training=False),
       lambda r: [((r(2, 3),), {}), ((r(),), dict(p=0.3))]),
    Op("nn.functional.feature_alpha_dropout",
       _with("feature_alpha_dropout", training=False),
       lambda r: [((r(1, 2, 3, 4),), {}), ((r(2, 3, 4),), dict(p=0.2))]),
]

OPS_BY_NAME = {op.name: op for op in OPS}
assert len(OPS_BY_NAME) == len(OPS)
assert not set(OPS_BY_NAME) & set(base.OPS_BY_NAME), "an op of round 1's table"

# -- known gaps: (test, op name) -> xfail reason (engine bugs, reported) ---------------

KNOWN = {
}


def _p(test, pred=lambda op: True, dtypes=None):
    return _params(test, pred, dtypes, ops=OPS, known=KNOWN)


# -- TestGradients ---------------------------------------------------------------------


@pytest.mark.parametrize("op, dtype", _p("test_fn_grad", lambda op: op.gc,
                                          dtypes=("float64", "complex128")))
def test_fn_grad(op, dtype):
    base.test_fn_grad(op, dtype)


@pytest.mark.parametrize("op, dtype", _p("test_fn_gradgrad",
                                          lambda op: op.gc and op.gradgrad,
                                          dtypes=("float64", "complex128")))
def test_fn_gradgrad(op, dtype):
    base.test_fn_gradgrad(op, dtype)


@pytest.mark.parametrize("op, dtype", _p("test_fn_grad_matches_torch",
                                          dtypes=("float64", "complex128")))
def test_fn_grad_matches_torch(op, dtype):
    base.test_fn_grad_matches_torch(op, dtype)


@pytest.mark.parametrize("op", _p("test_forward_mode_AD", lambda op: op.fwd))
def test_forward_mode_AD(op):
    base.test_forward_mode_AD(op)


# -- TestCommon ------------------------------------------------------------------------


@pytest.mark.parametrize("op", _p("test_variant_consistency_eager", base._has_variants))
def test_variant_consistency_eager(op):
    base.test_variant_consistency_eager(op)


@pytest.mark.parametrize("op", _p("test_noncontiguous_samples", lambda op: op.nc))
def test_noncontiguous_samples(op):
    base.test_noncontiguous_samples(op)


# the OpInfos' inplace_variant of the activations: F.<name>(x, inplace=True) and, where
# torch has one, F.<name>_ (these are not Tensor methods, so not Op.inplace)
INPLACE = {
    "elu": True, "celu": True, "selu": True, "hardtanh": True, "leaky_relu": True,
    "threshold": True, "rrelu": True, "relu6": False, "hardswish": False,
    "hardsigmoid": False, "silu": False, "mish": False, "dropout": False,
    "alpha_dropout": False, "feature_alpha_dropout": False, "dropout1d": False,
    "dropout2d": False, "dropout3d": False,
}


@pytest.mark.parametrize("short, form", [(n, f) for n, under in INPLACE.items()
                                         for f in (("kw", "_") if under else ("kw",))])
def test_variant_consistency_eager_inplace(short, form):
    # TestCommon.test_variant_consistency_eager with the OpInfo's inplace_variant: the
    # result is the (non-leaf) input itself, with torch's values and gradients
    op = OPS_BY_NAME["nn.functional." + short]
    fixed = {"training": False} if ("drop" in short or short == "rrelu") else {}
    for n, args, kwargs, arrs in base._diff_cases(op):
        key = f"{op.name}[{n}]"
        touts, ws, tg = base._torch_ref(op, args, kwargs, arrs, key)
        pl = base._leaves(pyad, arrs)
        a, k = base._args_with(pyad, args, kwargs, pl)
        a[0] = a[0].clone()
        F = pyad.nn.functional
        if form == "kw":
            res = getattr(F, short)(*a, **fixed, **k, inplace=True)
        else:
            res = getattr(F, short + "_")(*a, **fixed, **k)
        assert res is a[0], f"{key}: the in-place form returns its input"
        base._assert_close(base._np(res), base._np(touts[0]), f"{key}: output")
        for i, (g, t) in enumerate(zip(base._grads(pyad, [res], pl, ws), tg)):
            base._assert_close(base._np(g), base._np(t), f"{key}: grad of input {i}")


def test_table_size():
    assert len(OPS) >= 70


@pytest.mark.parametrize("num_classes", [-1, 5])
def test_one_hot(num_classes):
    # nn.functional.one_hot has no gradient (its OpInfo is not differentiable): the
    # int64 result equals torch's, for 0-d, n-d and empty index inputs
    for idx in (np.array(2), np.array([[0, 3], [1, 1]]), np.zeros((0, 2), np.int64)):
        if idx.size == 0 and num_classes == -1:
            continue
        want = torch.nn.functional.one_hot(torch.from_numpy(idx), num_classes)
        got = pyad.nn.functional.one_hot(pyad.tensor(idx), num_classes)
        assert np.dtype(got.dtype) == np.int64 and not got.requires_grad
        np.testing.assert_array_equal(np.asarray(got.data), want.numpy())
