"""Differential probes of pyad.nn against torch (layers and losses as training scripts use
them): module reprs and submodule class names, loss values and gradients over option
grids, the exception types torch raises for bad targets/weights/dtypes, kl_div's xlogy
semantics, and the Transformer flags scripts read. Each test runs the same code on torch
and on pyad, with torch's initial weights copied into pyad."""
import copy
import warnings

import numpy as np
import pytest

import pyad
import pyad.nn.functional as F
from pyad.autograd import gradcheck, gradgradcheck

torch = pytest.importorskip("torch")
TF = torch.nn.functional
RNG = np.random.default_rng(2024)


def _np(x):
    return x.detach().numpy() if isinstance(x, torch.Tensor) else np.asarray(x.detach().data)


def _close(ours, theirs, tol=1e-10):
    a, b = _np(ours), _np(theirs)
    assert a.shape == b.shape
    assert a.dtype == b.dtype
    np.testing.assert_allclose(a, b, rtol=tol, atol=tol, equal_nan=True)


def _copy_weights(tm, pm):
    sd = {k: v.detach().numpy().copy() for k, v in tm.state_dict().items()}
    assert list(sd) == list(pm.state_dict())
    pm.load_state_dict({k: pyad.tensor(v) for k, v in sd.items()})


def _error_type(fn):
    try:
        fn()
    except Exception as e:      # noqa: BLE001 - the type is what is compared
        return type(e)
    return None


def _same_error(fn):
    """fn(lib) raises the same exception type on torch and on pyad (and does raise)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = _error_type(lambda: fn(torch))
        ours = _error_type(lambda: fn(pyad))
    assert theirs is not None
    assert ours is theirs, (ours, theirs)


# -- reprs and submodule class names ----------------------------------------------------

def _ctor_pairs():
    return [
        lambda lib: lib.nn.MultiheadAttention(8, 2),
        lambda lib: lib.nn.MultiheadAttention(8, 2, kdim=6, vdim=3, add_bias_kv=True,
                                              batch_first=True, dropout=0.2),
        lambda lib: lib.nn.TransformerEncoder(lib.nn.TransformerEncoderLayer(8, 2, 16), 2,
                                              enable_nested_tensor=False),
        lambda lib: lib.nn.Transformer(8, 2, 1, 1, 16),
        lambda lib: lib.nn.TransformerDecoderLayer(8, 2, 16, activation=lib.nn.GELU()),
        lambda lib: lib.nn.Embedding(10, 3, padding_idx=0, max_norm=1.0, norm_type=1.0,
                                     scale_grad_by_freq=True, sparse=True),
        lambda lib: lib.nn.Embedding(10, 3, max_norm=2.0, norm_type=2.0),
        lambda lib: lib.nn.Embedding(10, 3, norm_type=3.0),
        lambda lib: lib.nn.TripletMarginWithDistanceLoss(),
        lambda lib: lib.nn.TripletMarginWithDistanceLoss(margin=0.5, swap=True,
                                                         reduction="sum"),
    ]


@pytest.mark.parametrize("i", range(len(_ctor_pairs())))
def test_repr_and_named_modules_match_torch(i):
    ctor = _ctor_pairs()[i]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t, p = ctor(torch), ctor(pyad)
    assert repr(p) == repr(t)
    assert [(n, type(m).__name__) for n, m in p.named_modules()] == \
        [(n, type(m).__name__) for n, m in t.named_modules()]
    assert [(n, tuple(x.shape)) for n, x in p.named_parameters()] == \
        [(n, tuple(x.shape)) for n, x in t.named_parameters()]


def test_mha_out_proj_is_a_linear_computing_as_linear():
    mha = pyad.nn.MultiheadAttention(4, 2)
    assert isinstance(mha.out_proj, pyad.nn.Linear)
    assert type(mha.out_proj).__name__ == "NonDynamicallyQuantizableLinear"
    x = pyad.randn(3, 4)
    lin = pyad.nn.Linear(4, 4)
    lin.load_state_dict(mha.out_proj.state_dict())
    np.testing.assert_array_equal(mha.out_proj(x).data, lin(x).data)


def test_triplet_with_distance_default_matches_torch():
    a, p_, n = (RNG.standard_normal((5, 4)) for _ in range(3))
    for swap in (False, True):
        ts = [torch.tensor(v, requires_grad=True) for v in (a, p_, n)]
        ps = [pyad.tensor(v, requires_grad=True) for v in (a, p_, n)]
        lt = torch.nn.TripletMarginWithDistanceLoss(swap=swap)(*ts)
        lp = pyad.nn.TripletMarginWithDistanceLoss(swap=swap)(*ps)
        _close(lp, lt)
        for gp, gt in zip(pyad.autograd.grad(lp, ps), torch.autograd.grad(lt, ts)):
            _close(gp, gt)


# -- MultiheadAttention / Transformer option grids (values and gradients) ----------------

def _run_module(lib, m, inputs, kw):
    ts = [lib.tensor(a, requires_grad=a.dtype.kind == "f") for a in inputs]
    out = m(*ts, **kw(lib))
    outs = [o for o in (out if isinstance(out, tuple) else (out,))]
    s = sum(o.sum() for o in outs if o is not None)
    wrt = [t for t in ts if t.requires_grad] + list(m.parameters())
    return outs + list(lib.autograd.grad(s, wrt, allow_unused=True))


def _module_matches(ctor, inputs, kw=lambda lib: {}, tol=1e-10):
    torch.manual_seed(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tm, pm = ctor(torch), ctor(pyad)
    _copy_weights(tm, pm)
    tm.eval()
    pm.eval()
    theirs = _run_module(torch, tm, inputs, kw)
    ours = _run_module(pyad, pm, inputs, kw)
    assert len(ours) == len(theirs)
    for o, t in zip(ours, theirs):
        if t is None:
            assert o is None
        else:
            _close(o, t, tol)


E, H = 8, 2
_Q = RNG.standard_normal((3, 4, E))
_K = RNG.standard_normal((5, 4, E))
_V = RNG.standard_normal((5, 4, E))
_KPM = np.zeros((4, 5), bool)
_KPM[1, 3:] = True
_KPM[2, 4] = True
_AM2 = RNG.random((3, 5)) > 0.7
_AM3F = RNG.standard_normal((4 * H, 3, 5))


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("add_bias_kv,add_zero_attn", [(False, False), (True, False),
                                                       (False, True), (True, True)])
@pytest.mark.parametrize("kvdim", [False, True])
def test_mha_options_match_torch(batch_first, add_bias_kv, add_zero_attn, kvdim):
    q, k, v = _Q, _K, _V
    if kvdim:
        k, v = RNG.standard_normal((5, 4, 6)), RNG.standard_normal((5, 4, 3))
    if batch_first:
        q, k, v = (a.transpose(1, 0, 2).copy() for a in (q, k, v))
    extra = dict(kdim=6, vdim=3) if kvdim else {}
    _module_matches(
        lambda lib: lib.nn.MultiheadAttention(E, H, dropout=0.3, batch_first=batch_first,
                                              add_bias_kv=add_bias_kv,
                                              add_zero_attn=add_zero_attn,
                                              dtype=lib.float64, **extra),
        [q, k, v],
        lambda lib: dict(key_padding_mask=lib.tensor(_KPM), attn_mask=lib.tensor(_AM2),
                         average_attn_weights=False))


@pytest.mark.parametrize("kw", [
    lambda lib: dict(key_padding_mask=lib.tensor(np.where(_KPM, -1e9, 0.0))),
    lambda lib: dict(attn_mask=lib.tensor(_AM3F), need_weights=False),
    lambda lib: dict(attn_mask=lib.tensor(_AM3F > 0.5), key_padding_mask=lib.tensor(_KPM)),
])
def test_mha_masks_match_torch(kw):
    _module_matches(lambda lib: lib.nn.MultiheadAttention(E, H, dtype=lib.float64),
                    [_Q, _K, _V], kw)


def test_mha_float32_keeps_dtype():
    _module_matches(lambda lib: lib.nn.MultiheadAttention(E, H),
                    [a.astype(np.float32) for a in (_Q, _K, _V)],
                    lambda lib: dict(key_padding_mask=lib.tensor(_KPM)), tol=1e-5)


@pytest.mark.parametrize("norm_first", [False, True])
@pytest.mark.parametrize("act", ["relu", "gelu", "callable", "module"])
def test_transformer_matches_torch(norm_first, act):
    def activation(lib):
        return {"relu": "relu", "gelu": "gelu", "callable": lib.nn.functional.silu,
                "module": lib.nn.GELU()}[act]
    src, tgt = RNG.standard_normal((3, 4, E)), RNG.standard_normal((3, 5, E))
    skpm = np.zeros((3, 4), bool)
    skpm[1, 2:] = True
    _module_matches(
        lambda lib: lib.nn.Transformer(E, H, 2, 2, 16, batch_first=True,
                                       norm_first=norm_first, activation=activation(lib),
                                       dtype=lib.float64),
        [src, tgt],
        lambda lib: dict(tgt_mask=lib.nn.Transformer.generate_square_subsequent_mask(
            5, dtype=lib.float64), tgt_is_causal=True, src_key_padding_mask=lib.tensor(skpm),
            memory_key_padding_mask=lib.tensor(skpm)))


# -- Transformer flags scripts read --------------------------------------------------------

@pytest.mark.parametrize("make", [
    lambda lib: lib.nn.TransformerEncoderLayer(8, 2, 16),
    lambda lib: lib.nn.TransformerEncoderLayer(8, 2, 16, activation="gelu"),
    lambda lib: lib.nn.TransformerEncoderLayer(8, 2, 16, activation=lib.nn.functional.gelu),
    lambda lib: lib.nn.TransformerEncoderLayer(8, 2, 16, activation=lib.nn.ReLU()),
    lambda lib: lib.nn.TransformerEncoderLayer(8, 2, 16, activation=lib.nn.functional.silu),
])
def test_activation_relu_or_gelu_matches_torch(make):
    assert make(pyad).activation_relu_or_gelu == make(torch).activation_relu_or_gelu


@pytest.mark.parametrize("layer_kw,enable", [
    (dict(), True), (dict(batch_first=True), True), (dict(batch_first=True), False),
    (dict(batch_first=True, norm_first=True), True),
    (dict(batch_first=True, activation="gelu"), True),
    (dict(batch_first=True, bias=False), True),
    (dict(batch_first=True, activation=lambda x: x), True),
])
def test_encoder_use_nested_tensor_and_warning_match_torch(layer_kw, enable):
    res = {}
    for lib in (torch, pyad):
        layer_kw_lib = {k: v for k, v in layer_kw.items()}
        layer = lib.nn.TransformerEncoderLayer(8, 2, 16, **layer_kw_lib)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            enc = lib.nn.TransformerEncoder(layer, 2, enable_nested_tensor=enable)
        msgs = [str(x.message) for x in w if "enable_nested_tensor" in str(x.message)]
        res[lib] = (enc.use_nested_tensor, enc.enable_nested_tensor, msgs)
    assert res[pyad] == res[torch]


def test_decoder_copies_of_a_module_activation_compute_relu_as_torch():
    # torch's TransformerDecoderLayer.__setstate__ gives a deep copy (TransformerDecoder's
    # layers) of a layer whose activation is a Module F.relu; pyad follows
    tgt, mem = RNG.standard_normal((5, 3, E)), RNG.standard_normal((4, 3, E))
    _module_matches(
        lambda lib: lib.nn.TransformerDecoder(
            lib.nn.TransformerDecoderLayer(E, H, 16, activation=lib.nn.GELU(),
                                           dtype=lib.float64), 2),
        [tgt, mem])
    layer = pyad.nn.TransformerDecoderLayer(E, H, 16, activation=pyad.nn.GELU())
    assert isinstance(layer.activation, pyad.nn.GELU)
    assert copy.deepcopy(layer).activation is F.relu
    tlayer = torch.nn.TransformerDecoderLayer(E, H, 16, activation=torch.nn.GELU())
    assert copy.deepcopy(tlayer).activation is TF.relu
    fn_layer = pyad.nn.TransformerDecoderLayer(E, H, 16, activation=F.silu)
    assert copy.deepcopy(fn_layer).activation is F.silu


def test_nhead_odd_disables_nested_tensor_as_torch():
    for lib in (torch, pyad):
        with pytest.warns(UserWarning, match="self_attn.num_heads is odd"):
            enc = lib.nn.TransformerEncoder(
                lib.nn.TransformerEncoderLayer(9, 3, 16, batch_first=True), 1)
        assert enc.use_nested_tensor is False


def test_generate_square_subsequent_mask_negative_size():
    _same_error(lambda lib: lib.nn.Transformer.generate_square_subsequent_mask(-1))
    for sz in (0, 1, 4):
        _close(pyad.nn.Transformer.generate_square_subsequent_mask(sz, dtype=pyad.float64),
               torch.nn.Transformer.generate_square_subsequent_mask(sz, dtype=torch.float64))


# -- scaled_dot_product_attention mask dtypes ---------------------------------------------

@pytest.mark.parametrize("qdt,mdt", [("float64", "float16"), ("float64", "int32"),
                                     ("float32", "float64"), ("float32", "uint8"),
                                     ("float32", "int64")])
def test_sdpa_refuses_mask_dtypes_as_torch(qdt, mdt):
    q = RNG.standard_normal((2, 3, 4))
    m = np.ones((3, 3))

    def fn(lib):
        t = lib.tensor(q, dtype=getattr(lib, qdt))
        return lib.nn.functional.scaled_dot_product_attention(
            t, t, t, attn_mask=lib.tensor(m, dtype=getattr(lib, mdt)))
    _same_error(fn)


@pytest.mark.parametrize("qdt,mdt", [("float64", "float32"), ("float64", "float64"),
                                     ("float32", "float32"), ("float64", "bool")])
def test_sdpa_accepts_mask_dtypes_as_torch(qdt, mdt):
    q = RNG.standard_normal((2, 3, 4))
    m = RNG.standard_normal((3, 3)) if mdt != "bool" else RNG.random((3, 3)) > 0.3

    def fn(lib):
        t = lib.tensor(q, dtype=getattr(lib, qdt))
        return lib.nn.functional.scaled_dot_product_attention(
            t, t, t, attn_mask=lib.tensor(m, dtype=getattr(lib, mdt)))
    _close(fn(pyad), fn(torch), 1e-6)


# -- losses: values and gradients over option grids ---------------------------------------

def _loss_matches(make, inputs, grad_of, tol=1e-10):
    res = []
    for lib in (torch, pyad):
        ts = [lib.tensor(a, requires_grad=i in grad_of) for i, a in enumerate(inputs)]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = make(lib)(*ts)
        gs = lib.autograd.grad(out.sum(), [ts[i] for i in grad_of])
        res.append([out] + list(gs))
    for o, t in zip(res[1], res[0]):
        _close(o, t, tol)


_X = RNG.standard_normal((4, 5))
_T = np.array([1, 0, 4, 2])
_W = RNG.random(5) + 0.1
_P = np.abs(RNG.standard_normal((4, 5)))
_P /= _P.sum(1, keepdims=True)


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("kw,target", [
    (dict(), "idx"), (dict(weight=True, ignore_index=4), "idx"),
    (dict(label_smoothing=0.2), "idx"), (dict(weight=True, label_smoothing=0.3,
                                              ignore_index=0), "idx"),
    (dict(), "prob"), (dict(weight=True, label_smoothing=0.25), "prob"),
])
def test_cross_entropy_matches_torch(reduction, dtype, kw, target):
    tol = 1e-10 if dtype == np.float64 else 1e-5
    x = _X.astype(dtype)

    def make(lib):
        k = dict(kw)
        if k.pop("weight", False):
            k["weight"] = lib.tensor(_W.astype(dtype))
        return lib.nn.CrossEntropyLoss(reduction=reduction, **k)
    if target == "idx":
        _loss_matches(make, [x, _T], (0,), tol)
    else:
        _loss_matches(make, [x, _P.astype(dtype)], (0, 1), tol)


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_nll_loss_higher_dimensional_matches_torch(reduction):
    x = RNG.standard_normal((2, 5, 3, 4))
    t = RNG.integers(0, 5, (2, 3, 4))
    t[0, 0, 0] = -100
    _loss_matches(lambda lib: lib.nn.NLLLoss(weight=lib.tensor(_W), reduction=reduction),
                  [x, t], (0,))


# -- kl_div: torch's xlogy(target, target) --------------------------------------------------

_KL_T = np.array([[0.0, 0.5, 0.2, -0.3], [0.1, 0.0, 1.5, np.nan]])
_KL_X = RNG.standard_normal((2, 4))


@pytest.mark.parametrize("reduction", ["none", "sum", "batchmean"])
def test_kl_div_zero_negative_nan_targets_match_torch(reduction):
    _loss_matches(lambda lib: lib.nn.KLDivLoss(reduction=reduction), [_KL_X, _KL_T],
                  (0, 1))


def test_kl_div_gradcheck_and_gradgradcheck():
    x = pyad.tensor(_KL_X, requires_grad=True)
    t = pyad.tensor(np.abs(_KL_X) + 0.1, requires_grad=True)
    for log_target in (False, True):
        def f(a, b):
            return F.kl_div(a, b, reduction="batchmean", log_target=log_target)
        assert gradcheck(f, (x, t))
        assert gradgradcheck(f, (x, t))


def test_kl_div_float32_dtype():
    x, t = _KL_X.astype(np.float32), np.abs(_KL_X).astype(np.float32)
    _loss_matches(lambda lib: lib.nn.KLDivLoss(reduction="sum"), [x, t], (0, 1), 1e-5)


# -- exception types torch raises for bad losses' arguments -----------------------------

def _t(lib, a, **kw):
    return lib.tensor(np.asarray(a), **kw)


_X4 = np.zeros((4, 5))
_BAD_LOSS_CALLS = {
    "ce float target wrong shape":
        lambda lib: lib.nn.functional.cross_entropy(_t(lib, _X4), _t(lib, [1., 2., 3., 0.])),
    "ce bool target":
        lambda lib: lib.nn.functional.cross_entropy(_t(lib, _X4),
                                                    _t(lib, [True, False, True, False])),
    "ce int target of input shape":
        lambda lib: lib.nn.functional.cross_entropy(_t(lib, _X4),
                                                    _t(lib, np.ones((4, 5), np.int64))),
    "ce multi-target":
        lambda lib: lib.nn.functional.cross_entropy(_t(lib, _X4),
                                                    _t(lib, np.ones((4, 2), np.int64))),
    "nll multi-target":
        lambda lib: lib.nn.functional.nll_loss(_t(lib, _X4), _t(lib, np.ones((4, 2), np.int64))),
    "ce 0-d input int target":
        lambda lib: lib.nn.functional.cross_entropy(_t(lib, 1.0), _t(lib, 1)),
    "nll 0-d input": lambda lib: lib.nn.functional.nll_loss(_t(lib, 1.0), _t(lib, 1)),
    "ce batch mismatch":
        lambda lib: lib.nn.functional.cross_entropy(_t(lib, _X4), _t(lib, [1, 2, 3])),
    "nll 3-d batch mismatch float target":
        lambda lib: lib.nn.functional.nll_loss(_t(lib, np.ones((2, 3, 4))),
                                               _t(lib, np.ones((3, 4)))),
    "nll 3-d target shape":
        lambda lib: lib.nn.functional.nll_loss(_t(lib, np.ones((2, 3, 4))),
                                               _t(lib, np.zeros((2, 3), np.int64))),
    "nll 2-d 0-d target":
        lambda lib: lib.nn.functional.nll_loss(_t(lib, _X4), _t(lib, 1)),
    "ce weight wrong size":
        lambda lib: lib.nn.functional.cross_entropy(_t(lib, _X4), _t(lib, [1, 2, 3, 0]),
                                                    weight=_t(lib, np.ones(3))),
    "ce prob weight 2-d":
        lambda lib: lib.nn.functional.cross_entropy(_t(lib, _X4), _t(lib, np.ones((4, 5))),
                                                    weight=_t(lib, np.ones((1, 5)))),
    "nll weight wrong size":
        lambda lib: lib.nn.functional.nll_loss(_t(lib, _X4), _t(lib, [1, 2, 3, 0]),
                                               weight=_t(lib, np.ones(6))),
    "nll weight dtype":
        lambda lib: lib.nn.functional.nll_loss(_t(lib, _X4.astype(np.float32)),
                                               _t(lib, [1, 2, 3, 0]), weight=_t(lib, _W)),
    "ce weight dtype":
        lambda lib: lib.nn.functional.cross_entropy(_t(lib, _X4.astype(np.float32)),
                                                    _t(lib, [1, 2, 3, 0]), weight=_t(lib, _W)),
    "ce smoothing weight dtype":
        lambda lib: lib.nn.functional.cross_entropy(_t(lib, _X4.astype(np.float32)),
                                                    _t(lib, [1, 2, 3, 0]), weight=_t(lib, _W),
                                                    label_smoothing=0.1),
    "ce weight requires grad":
        lambda lib: lib.nn.functional.cross_entropy(
            _t(lib, _X4), _t(lib, [1, 2, 3, 0]), weight=_t(lib, _W, requires_grad=True)),
    "ce smoothing weight requires grad":
        lambda lib: lib.nn.functional.cross_entropy(
            _t(lib, _X4), _t(lib, [1, 2, 3, 0]), weight=_t(lib, _W, requires_grad=True),
            label_smoothing=0.1),
    "nll weight requires grad":
        lambda lib: lib.nn.functional.nll_loss(
            _t(lib, _X4), _t(lib, [1, 2, 3, 0]), weight=_t(lib, _W, requires_grad=True)),
    "multi_margin weight requires grad":
        lambda lib: lib.nn.functional.multi_margin_loss(
            _t(lib, _X4), _t(lib, [1, 2, 3, 0]), weight=_t(lib, _W, requires_grad=True)),
    "soft_margin target requires grad":
        lambda lib: lib.nn.functional.soft_margin_loss(
            _t(lib, [1., 2.]), _t(lib, [1., -1.], requires_grad=True)),
    "soft_margin target requires grad, none":
        lambda lib: lib.nn.SoftMarginLoss(reduction="none")(
            _t(lib, [1., 2.]), _t(lib, [1., -1.], requires_grad=True)),
    "mse int64": lambda lib: lib.nn.functional.mse_loss(_t(lib, [1, 2]), _t(lib, [1, 3])),
    "mse int64 none":
        lambda lib: lib.nn.MSELoss(reduction="none")(_t(lib, [1, 2]), _t(lib, [1, 3])),
    "mse bool": lambda lib: lib.nn.functional.mse_loss(_t(lib, [True]), _t(lib, [False])),
    "smooth_l1 int64":
        lambda lib: lib.nn.functional.smooth_l1_loss(_t(lib, [1, 2]), _t(lib, [1, 3])),
    "huber int64": lambda lib: lib.nn.functional.huber_loss(_t(lib, [1, 2]), _t(lib, [1, 3])),
    "bce int64":
        lambda lib: lib.nn.functional.binary_cross_entropy(_t(lib, [1, 0]), _t(lib, [1, 0])),
    "bce int64 target":
        lambda lib: lib.nn.functional.binary_cross_entropy(_t(lib, [1., 0.]), _t(lib, [1, 0])),
    "bce target dtype":
        lambda lib: lib.nn.functional.binary_cross_entropy(
            _t(lib, np.array([.5, .2], np.float32)), _t(lib, [1., 0.])),
    "bce_with_logits int64 input":
        lambda lib: lib.nn.functional.binary_cross_entropy_with_logits(_t(lib, [1, 0]),
                                                                       _t(lib, [1, 0])),
    "bce_with_logits int64 target":
        lambda lib: lib.nn.functional.binary_cross_entropy_with_logits(_t(lib, [1., 0.]),
                                                                       _t(lib, [1, 0])),
    "kl_div int64": lambda lib: lib.nn.functional.kl_div(_t(lib, [1, 0]), _t(lib, [1, 0])),
    "kl_div int64 target":
        lambda lib: lib.nn.functional.kl_div(_t(lib, [1., 0.]), _t(lib, [1, 0])),
    "kl_div int64 input":
        lambda lib: lib.nn.functional.kl_div(_t(lib, [1, 0]), _t(lib, [1., 0.])),
    "group_norm 1-d":
        lambda lib: lib.nn.functional.group_norm(_t(lib, np.ones(4)), 2),
    "GroupNorm 1-d": lambda lib: lib.nn.GroupNorm(2, 4)(_t(lib, np.ones(4))),
}


@pytest.mark.parametrize("case", sorted(_BAD_LOSS_CALLS))
def test_bad_loss_arguments_raise_torchs_type(case):
    _same_error(_BAD_LOSS_CALLS[case])


def test_messages_name_the_function():
    x = pyad.tensor(_X4)
    with pytest.raises(RuntimeError, match=r"cross_entropy\(\): weight"):
        F.cross_entropy(x, pyad.tensor([1, 2, 3, 0]), weight=pyad.ones(3, dtype=pyad.float64))
    with pytest.raises(RuntimeError, match=r"nll_loss\(\): expected scalar type"):
        F.nll_loss(x.float(), pyad.tensor([1, 2, 3, 0]), weight=pyad.tensor(_W))
    with pytest.raises(RuntimeError, match=r"soft_margin_loss\(\).*'target'"):
        F.soft_margin_loss(x, pyad.ones(4, 5, requires_grad=True))
    with pytest.raises(NotImplementedError, match=r"mse_loss\(\)"):
        F.mse_loss(pyad.tensor([1]), pyad.tensor([2]))
    with pytest.raises(RuntimeError, match=r"kl_div\(\): Integral"):
        F.kl_div(pyad.tensor([1]), pyad.tensor([2]))
    with pytest.raises(ValueError, match=r"cross_entropy\(\): expected input batch_size"):
        F.cross_entropy(x, pyad.tensor([1, 2]))


@pytest.mark.parametrize("call", [
    lambda lib: lib.nn.functional.mse_loss(_t(lib, [1., 2.]), _t(lib, [1, 3])),
    lambda lib: lib.nn.functional.mse_loss(_t(lib, [1, 2]), _t(lib, [1., 3.])),
    lambda lib: lib.nn.functional.smooth_l1_loss(_t(lib, [1., 2.]), _t(lib, [1, 3])),
    lambda lib: lib.nn.functional.huber_loss(_t(lib, [1., 2.]), _t(lib, [1, 3])),
    lambda lib: lib.nn.functional.l1_loss(_t(lib, [1, 2]), _t(lib, [1, 3]), reduction="sum"),
    lambda lib: lib.nn.functional.binary_cross_entropy_with_logits(
        _t(lib, np.array([.5, .2], np.float32)), _t(lib, [1., 0.])),
    lambda lib: lib.nn.functional.cross_entropy(_t(lib, _X.astype(np.float32)),
                                                _t(lib, np.full((4, 5), 0.2))),
    lambda lib: lib.nn.functional.cross_entropy(_t(lib, _X),
                                                _t(lib, np.array([1, 2, 3, 4], np.uint8))),
])
def test_mixed_dtype_losses_torch_accepts(call):
    _close(call(pyad), call(torch), 1e-6)


def test_non_differentiable_arguments_are_fine_without_grad():
    w = pyad.tensor(_W, requires_grad=True)
    with pyad.no_grad():
        ours = F.cross_entropy(pyad.tensor(_X), pyad.tensor(_T), weight=w)
        ours_sm = F.soft_margin_loss(pyad.tensor(_X), pyad.ones(4, 5, requires_grad=True))
    with torch.no_grad():
        theirs = TF.cross_entropy(torch.tensor(_X), torch.tensor(_T),
                                  weight=torch.tensor(_W, requires_grad=True))
        theirs_sm = TF.soft_margin_loss(torch.tensor(_X), torch.ones(4, 5, requires_grad=True))
    _close(ours, theirs)
    _close(ours_sm, theirs_sm)


# -- Module.type ---------------------------------------------------------------------------

@pytest.mark.parametrize("dst", ["float64", "float32", "float16"])
def test_module_type_casts_every_parameter_and_buffer_as_torch(dst):
    t = torch.nn.Sequential(torch.nn.Linear(2, 3), torch.nn.BatchNorm1d(3))
    p = pyad.nn.Sequential(pyad.nn.Linear(2, 3), pyad.nn.BatchNorm1d(3))
    weight = p[0].weight
    assert t.type(getattr(torch, dst)) is t
    assert p.type(getattr(pyad, dst)) is p
    assert p[0].weight is weight            # the same Parameter, its data cast
    ours = [(n, str(v.dtype), v.requires_grad)
            for n, v in list(p.named_parameters()) + list(p.named_buffers())]
    theirs = [(n, str(v.dtype).replace("torch.", ""), v.requires_grad)
              for n, v in list(t.named_parameters()) + list(t.named_buffers())]
    assert ours == theirs


def test_module_type_accepts_torch_type_names():
    m = pyad.nn.BatchNorm1d(2).type("torch.DoubleTensor")
    assert m.weight.dtype == pyad.float64
    assert m.num_batches_tracked.dtype == pyad.float64     # as torch: integers too


# -- F.multi_head_attention_forward and the is_causal hint ---------------------------------

_MW = RNG.standard_normal((3 * E, E))
_MB = RNG.standard_normal(3 * E)
_MWO = RNG.standard_normal((E, E))
_MBO = RNG.standard_normal(E)
_MBK = RNG.standard_normal((1, 1, E))
_MBV = RNG.standard_normal((1, 1, E))


@pytest.mark.parametrize("need_weights", [True, False])
@pytest.mark.parametrize("separate", [False, True])
@pytest.mark.parametrize("bias_kv,zero_attn", [(False, False), (True, True)])
def test_functional_multi_head_attention_forward_matches_torch(need_weights, separate,
                                                               bias_kv, zero_attn):
    res = []
    for lib in (torch, pyad):
        ts = [lib.tensor(a, requires_grad=True)
              for a in (_Q, _K, _V, _MW, _MB, _MWO, _MBO, _MBK, _MBV)]
        q, k, v, w, b, wo, bo, bk, bv = ts
        extra = {}
        if separate:
            extra = dict(use_separate_proj_weight=True, q_proj_weight=w[:E],
                         k_proj_weight=w[E:2 * E], v_proj_weight=w[2 * E:])
        out, weights = lib.nn.functional.multi_head_attention_forward(
            q, k, v, E, H, None if separate else w, b, bk if bias_kv else None,
            bv if bias_kv else None, zero_attn, 0.0, wo, bo, training=False,
            key_padding_mask=lib.tensor(_KPM), need_weights=need_weights,
            attn_mask=lib.tensor(_AM2), average_attn_weights=False, **extra)
        s = out.sum() + (weights.sum() if weights is not None else 0)
        res.append([out, weights] + list(lib.autograd.grad(s, ts, allow_unused=True)))
    for o, t in zip(res[1], res[0]):
        if t is None:
            assert o is None
        else:
            _close(o, t)


def test_functional_multi_head_attention_forward_checks_embed_dim():
    _same_error(lambda lib: lib.nn.functional.multi_head_attention_forward(
        lib.tensor(_Q), lib.tensor(_K), lib.tensor(_V), E - 2, H, lib.tensor(_MW),
        lib.tensor(_MB), None, None, False, 0.0, lib.tensor(_MWO), lib.tensor(_MBO)))


def test_is_causal_hint_without_weights_ignores_the_mask_as_torch():
    # torch: is_causal with no key_padding_mask and need_weights=False takes attn_mask as a
    # hint only (the attention is causal whatever the mask holds)
    mask = np.zeros((3, 3), bool)
    mask[0, 0] = mask[2, 1] = True

    def run(lib, **kw):
        m = lib.nn.MultiheadAttention(E, H, dtype=lib.float64)
        m.load_state_dict({"in_proj_weight": lib.tensor(_MW), "in_proj_bias": lib.tensor(_MB),
                           "out_proj.weight": lib.tensor(_MWO),
                           "out_proj.bias": lib.tensor(_MBO)})
        x = lib.tensor(_Q)
        return m(x, x, x, attn_mask=lib.tensor(mask), **kw)[0]
    for kw in (dict(is_causal=True, need_weights=False), dict(is_causal=False),
               dict(is_causal=True, need_weights=True)):
        _close(run(pyad, **kw), run(torch, **kw))


def test_nll_loss2d_is_a_deprecated_nll_loss():
    x = RNG.standard_normal((2, 4, 3, 3))
    t = RNG.integers(0, 4, (2, 3, 3))
    for lib in (torch, pyad):
        with pytest.warns(FutureWarning, match="NLLLoss2d"):
            lib.nn.NLLLoss2d()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours = pyad.nn.NLLLoss2d(weight=pyad.tensor(_W[:4]), ignore_index=1)
        theirs = torch.nn.NLLLoss2d(weight=torch.tensor(_W[:4]), ignore_index=1)
    assert isinstance(ours, pyad.nn.NLLLoss)
    assert repr(ours) == repr(theirs)
    _close(ours(pyad.tensor(x), pyad.tensor(t)), theirs(torch.tensor(x), torch.tensor(t)))


# -- one dtype for a layer's input and parameters (torch refuses to promote) --------------

_MIXED = {
    "Linear f64 input": lambda lib: lib.nn.Linear(3, 2)(_t(lib, np.ones((4, 3)))),
    "Linear 3-d f64 input": lambda lib: lib.nn.Linear(3, 2)(_t(lib, np.ones((2, 4, 3)))),
    "Linear 1-d f64 input": lambda lib: lib.nn.Linear(3, 2)(_t(lib, np.ones(3))),
    "Linear int input": lambda lib: lib.nn.Linear(3, 2)(_t(lib, np.ones((4, 3), np.int64))),
    "F.linear f64 bias":
        lambda lib: lib.nn.functional.linear(_t(lib, np.ones((2, 3), np.float32)),
                                             _t(lib, np.ones((4, 3), np.float32)),
                                             _t(lib, np.ones(4))),
    "MHA f64 input":
        lambda lib: lib.nn.MultiheadAttention(4, 2)(*[_t(lib, np.ones((3, 2, 4)))] * 3),
    "LayerNorm f64 input": lambda lib: lib.nn.LayerNorm(3)(_t(lib, np.ones((2, 3)))),
    "layer_norm f32 input f64 weight":
        lambda lib: lib.nn.functional.layer_norm(_t(lib, np.ones((2, 3), np.float32)), (3,),
                                                 _t(lib, np.ones(3))),
    "layer_norm f64 input f32 bias only":
        lambda lib: lib.nn.functional.layer_norm(_t(lib, np.ones((2, 3))), (3,), None,
                                                 _t(lib, np.ones(3, np.float32))),
    "layer_norm f32 input f16 weight":
        lambda lib: lib.nn.functional.layer_norm(_t(lib, np.ones((2, 3), np.float32)), (3,),
                                                 _t(lib, np.ones(3, np.float16))),
    "GroupNorm f64 input": lambda lib: lib.nn.GroupNorm(2, 4)(_t(lib, np.ones((2, 4)))),
    "BatchNorm1d f64 input train":
        lambda lib: lib.nn.BatchNorm1d(4)(_t(lib, np.arange(8.0).reshape(2, 4))),
    "BatchNorm1d f64 input eval":
        lambda lib: lib.nn.BatchNorm1d(4).eval()(_t(lib, np.arange(8.0).reshape(2, 4))),
    "BatchNorm2d f64 input no affine":
        lambda lib: lib.nn.BatchNorm2d(2, affine=False)(_t(lib, np.ones((2, 2, 2, 2)))),
    "batch_norm f64 input f32 weight, no stats":
        lambda lib: lib.nn.functional.batch_norm(_t(lib, np.arange(8.0).reshape(2, 4)), None,
                                                 None, _t(lib, np.ones(4, np.float32)),
                                                 training=True),
    "InstanceNorm1d affine f64 input":
        lambda lib: lib.nn.InstanceNorm1d(2, affine=True)(_t(lib, np.ones((2, 2, 3)))),
}


@pytest.mark.parametrize("case", sorted(_MIXED))
def test_mixed_dtype_layers_raise_as_torch(case):
    _same_error(_MIXED[case])


@pytest.mark.parametrize("call", [
    # torch's accepted mixes: float32 parameters with a float16 input for the norms, running
    # statistics of any dtype for instance_norm, no parameters at all, rms_norm
    lambda lib: lib.nn.functional.layer_norm(
        _t(lib, np.arange(6.).reshape(2, 3), dtype=lib.float16), (3,),
        _t(lib, np.ones(3, np.float32)), _t(lib, np.zeros(3, np.float32))),
    lambda lib: lib.nn.functional.group_norm(
        _t(lib, np.arange(8.).reshape(2, 4), dtype=lib.float16), 2,
        _t(lib, np.ones(4, np.float32))),
    lambda lib: lib.nn.functional.instance_norm(_t(lib, np.arange(12.).reshape(2, 2, 3)),
                                                _t(lib, np.zeros(2, np.float32)),
                                                _t(lib, np.ones(2, np.float32))),
    lambda lib: lib.nn.functional.batch_norm(_t(lib, np.arange(8.).reshape(2, 4)), None, None,
                                             training=True),
    lambda lib: lib.nn.functional.rms_norm(_t(lib, np.arange(8.).reshape(2, 4)), (4,),
                                           _t(lib, np.ones(4, np.float32))),
])
def test_mixed_dtype_norms_torch_accepts(call):
    _close(call(pyad), call(torch), 1e-3)


def test_lazy_linear_materialises_in_the_dtype_set_by_double():
    x = RNG.standard_normal((4, 3))
    t, p = torch.nn.LazyLinear(2).double(), pyad.nn.LazyLinear(2).double()
    torch.manual_seed(0)
    t(torch.tensor(x))
    p(pyad.tensor(x))
    assert p.weight.dtype == pyad.float64 and p.bias.dtype == pyad.float64
    assert str(t.weight.dtype) == "torch.float64"
    p.load_state_dict({k: pyad.tensor(v.detach().numpy()) for k, v in t.state_dict().items()})
    _close(p(pyad.tensor(x)), t(torch.tensor(x)))


# -- TransformerEncoder's inference fast path: zeros at padded positions --------------------

_SRC = RNG.standard_normal((3, 4, E))
_SKPM = {"left": np.array([[0, 0, 0, 0], [0, 0, 1, 1], [0, 1, 1, 1]], bool),
         "not_left": np.array([[0, 0, 0, 0], [0, 1, 0, 1], [0, 0, 0, 1]], bool)}


@pytest.mark.parametrize("pad", sorted(_SKPM))
@pytest.mark.parametrize("norm", [False, True])
@pytest.mark.parametrize("float_mask", [False, True])
@pytest.mark.parametrize("grad_mode", ["no_grad", "frozen", "grad"])
def test_encoder_padding_outputs_match_torch_in_inference(pad, norm, float_mask, grad_mode):
    def make(lib):
        layer = lib.nn.TransformerEncoderLayer(E, H, 16, batch_first=True, dtype=lib.float64)
        return lib.nn.TransformerEncoder(
            layer, 2, norm=lib.nn.LayerNorm(E, dtype=lib.float64) if norm else None)
    torch.manual_seed(0)
    tm, pm = make(torch), make(pyad)
    _copy_weights(tm, pm)
    tm.eval()
    pm.eval()
    if grad_mode == "frozen":
        tm.requires_grad_(False)
        pm.requires_grad_(False)
    kpm = _SKPM[pad]
    outs = []
    for lib, m in ((torch, tm), (pyad, pm)):
        k = lib.tensor(np.where(kpm, -np.inf, 0.0) if float_mask else kpm)
        with lib.set_grad_enabled(grad_mode != "no_grad"):
            outs.append(m(lib.tensor(_SRC), src_key_padding_mask=k))
    _close(outs[1], outs[0])


def test_encoder_fast_path_zeros_only_where_torch_does():
    layer = pyad.nn.TransformerEncoderLayer(E, H, 16, batch_first=True, dtype=pyad.float64)
    enc = pyad.nn.TransformerEncoder(layer, 1).eval()
    x = pyad.tensor(_SRC)
    kpm = pyad.tensor(_SKPM["left"])
    with pyad.no_grad():
        fast = enc(x, src_key_padding_mask=kpm)
    slow = enc(x, src_key_padding_mask=kpm)         # grad mode, parameters need grad
    assert bool((fast.data[1, 2:] == 0).all()) and bool((slow.data[1, 2:] != 0).any())
    np.testing.assert_allclose(fast.data[0], slow.data[0], rtol=1e-12, atol=1e-12)
