"""scaled_dot_product_attention, MultiheadAttention and the Transformer layers against
torch, from torch's weights (float64), dropout off (eval mode or p=0)."""
import warnings

import numpy as np
import pytest

import pyad
import pyad.nn.functional as F
from pyad import nn
from pyad.autograd import gradcheck, gradgradcheck
from _port_helpers import torch, twin, compare

RNG = np.random.default_rng(5)
TF = torch.nn.functional


class _Fn:
    """A parameterless 'module' calling a functional op, for `compare`."""
    def __init__(self, fn):
        self.fn = fn

    def __call__(self, *a):
        return self.fn(*a)

    def named_parameters(self):
        return iter(())


def _fn_compare(torch_fn, pyad_fn, inputs, **kw):
    return compare(_Fn(torch_fn), _Fn(pyad_fn), inputs, **kw)


@pytest.mark.parametrize("shape_q,shape_kv", [((2, 3, 4, 5), (2, 3, 6, 5)), ((1, 1, 5),
                                                                          (1, 1, 5)),
                                              ((4, 5), (7, 5)), ((2, 0, 3), (2, 4, 3))])
@pytest.mark.parametrize("causal", [False, True])
def test_sdpa_matches_torch(shape_q, shape_kv, causal):
    q = RNG.standard_normal(shape_q)
    k = RNG.standard_normal(shape_kv)
    v = RNG.standard_normal(shape_kv)
    _fn_compare(lambda q, k, v: TF.scaled_dot_product_attention(q, k, v, is_causal=causal),
                lambda q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=causal),
                [q, k, v])


def test_sdpa_masks_and_scale_match_torch():
    q = RNG.standard_normal((2, 4, 3))
    k = RNG.standard_normal((2, 5, 3))
    v = RNG.standard_normal((2, 5, 2))
    bool_mask = RNG.random((4, 5)) > 0.4
    bool_mask[1] = False           # a row masked everywhere: zeros (torch's safe softmax)
    float_mask = RNG.standard_normal((2, 4, 5))
    float_mask[0, 2, :] = -np.inf
    for mask in (bool_mask, float_mask):
        _fn_compare(lambda q, k, v, m: TF.scaled_dot_product_attention(q, k, v, m, scale=0.3),
                    lambda q, k, v, m: F.scaled_dot_product_attention(q, k, v, m, scale=0.3),
                    [q, k, v, mask])


def test_sdpa_gradcheck_second_order():
    q = pyad.tensor(RNG.standard_normal((2, 3, 2)), requires_grad=True)
    k = pyad.tensor(RNG.standard_normal((2, 4, 2)), requires_grad=True)
    v = pyad.tensor(RNG.standard_normal((2, 4, 2)), requires_grad=True)
    mask = pyad.tensor(RNG.random((3, 4)) > 0.3)
    fn = lambda q, k, v: F.scaled_dot_product_attention(q, k, v, mask)
    assert gradcheck(fn, (q, k, v))
    assert gradgradcheck(fn, (q, k, v))


def test_sdpa_dropout_and_errors():
    q = pyad.ones(1, 4, 2)
    pyad.manual_seed(0)
    out = F.scaled_dot_product_attention(q, q, pyad.randn(1, 4, 2), dropout_p=0.5)
    assert out.shape == (1, 4, 2)
    with pytest.raises(RuntimeError, match="same embedding size"):
        F.scaled_dot_product_attention(pyad.ones(2, 3), pyad.ones(2, 4), pyad.ones(2, 4))
    with pytest.raises(RuntimeError, match="attn_mask should not be set"):
        F.scaled_dot_product_attention(q, q, q, pyad.ones(4, 4), is_causal=True)


MHA_CONFIGS = [dict(), dict(batch_first=True), dict(bias=False), dict(add_bias_kv=True),
               dict(add_zero_attn=True), dict(kdim=3, vdim=5)]


def _mha(embed=6, heads=2, **kw):
    torch.manual_seed(0)
    return twin(torch.nn.MultiheadAttention(embed, heads, **kw),
                nn.MultiheadAttention(embed, heads, **kw))


@pytest.mark.parametrize("kw", MHA_CONFIGS, ids=str)
@pytest.mark.parametrize("need_weights,average", [(True, True), (True, False),
                                                  (False, True)])
def test_multihead_attention_matches_torch(kw, need_weights, average):
    t, p = _mha(**kw)
    bf = kw.get("batch_first", False)
    L, S, N = 4, 5, 3
    q = RNG.standard_normal((N, L, 6) if bf else (L, N, 6))
    k = RNG.standard_normal((N, S, kw.get("kdim", 6)) if bf else (S, N, kw.get("kdim", 6)))
    v = RNG.standard_normal((N, S, kw.get("vdim", 6)) if bf else (S, N, kw.get("vdim", 6)))
    call = lambda m, q, k, v: m(q, k, v, need_weights=need_weights,
                                average_attn_weights=average)
    compare(t, p, [q, k, v], call=call)


@pytest.mark.parametrize("kw", [dict(), dict(batch_first=True)], ids=str)
@pytest.mark.parametrize("need_weights", [True, False])
def test_multihead_self_attention_masks_match_torch(kw, need_weights):
    t, p = _mha(**kw)
    L, N = 5, 2
    x = RNG.standard_normal((N, L, 6) if kw else (L, N, 6))
    causal_bool = np.triu(np.ones((L, L), dtype=bool), 1)
    kpm = np.zeros((N, L), dtype=bool)
    kpm[1, 3:] = True
    float_mask = RNG.standard_normal((N * 2, L, L))
    for attn_mask, key_padding_mask in ((causal_bool, None), (None, kpm),
                                        (causal_bool, kpm), (float_mask, None)):
        def call(m, x, am=attn_mask, kp=key_padding_mask):
            conv = torch.tensor if m is t else pyad.tensor
            return m(x, x, x, need_weights=need_weights,
                     attn_mask=None if am is None else conv(am),
                     key_padding_mask=None if kp is None else conv(kp))
        compare(t, p, [x], call=call)


def test_multihead_attention_unbatched_and_state_dict_names():
    t, p = _mha()
    x = RNG.standard_normal((4, 6))
    compare(t, p, [x, x, x])
    for kw in MHA_CONFIGS:
        tm, pm = torch.nn.MultiheadAttention(6, 3, **kw), nn.MultiheadAttention(6, 3, **kw)
        assert [(k, tuple(v.shape)) for k, v in tm.state_dict().items()] == \
            [(k, tuple(v.shape)) for k, v in pm.state_dict().items()]


def test_multihead_attention_gradcheck():
    _, p = _mha(4, 2, add_bias_kv=True)
    x = pyad.tensor(RNG.standard_normal((3, 2, 4)), requires_grad=True)
    mask = pyad.tensor(np.triu(np.ones((3, 3), dtype=bool), 1))
    assert gradcheck(lambda x: p(x, x, x, attn_mask=mask)[0], (x,))
    assert gradgradcheck(lambda x: p(x, x, x, attn_mask=mask, need_weights=False)[0], (x,))


def test_multihead_attention_errors():
    with pytest.raises(AssertionError, match="divisible by num_heads"):
        nn.MultiheadAttention(5, 2)
    with pytest.raises(AssertionError):
        torch.nn.MultiheadAttention(5, 2)
    mha = nn.MultiheadAttention(4, 2)
    x = pyad.randn(3, 1, 4)
    with pytest.raises(RuntimeError, match="2D attn_mask"):
        mha(x, x, x, attn_mask=pyad.zeros(2, 3))
    with pytest.raises(RuntimeError, match="Need attn_mask"):
        mha(x, x, x, is_causal=True)


ENC_CONFIGS = [dict(), dict(batch_first=True), dict(norm_first=True),
               dict(activation="gelu"), dict(bias=False)]


@pytest.mark.parametrize("kw", ENC_CONFIGS, ids=str)
def test_transformer_encoder_matches_torch(kw):
    torch.manual_seed(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tl = torch.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.1, **kw)
        t = torch.nn.TransformerEncoder(tl, 2, norm=torch.nn.LayerNorm(8))
    pl = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.1, **kw)
    p = nn.TransformerEncoder(pl, 2, norm=nn.LayerNorm(8))
    t, p = twin(t, p)
    t.eval()
    p.eval()
    bf = kw.get("batch_first", False)
    x = RNG.standard_normal((3, 5, 8) if bf else (5, 3, 8))
    mask = np.triu(np.full((5, 5), -np.inf), 1)
    kpm = np.zeros((3, 5), dtype=bool)
    kpm[0, 4] = True
    compare(t, p, [x])
    compare(t, p, [x, mask, kpm], call=lambda m, x, mk, kp: m(x, mask=mk,
                                                             src_key_padding_mask=kp))
    compare(t, p, [x[:1] if bf else x[:, :1]])      # batch 1


@pytest.mark.parametrize("kw", [dict(), dict(batch_first=True, norm_first=True)], ids=str)
def test_transformer_decoder_and_full_model_match_torch(kw):
    torch.manual_seed(0)
    t = torch.nn.TransformerDecoder(torch.nn.TransformerDecoderLayer(8, 2, 16, **kw), 2)
    p = nn.TransformerDecoder(nn.TransformerDecoderLayer(8, 2, 16, **kw), 2)
    t, p = twin(t, p)
    t.eval()
    p.eval()
    bf = kw.get("batch_first", False)
    tgt = RNG.standard_normal((2, 4, 8) if bf else (4, 2, 8))
    mem = RNG.standard_normal((2, 6, 8) if bf else (6, 2, 8))
    tmask = np.triu(np.ones((4, 4), dtype=bool), 1)
    compare(t, p, [tgt, mem, tmask], call=lambda m, a, b, mk: m(a, b, tgt_mask=mk))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tt = torch.nn.Transformer(8, 2, 2, 1, 16, **kw)
    pt = nn.Transformer(8, 2, 2, 1, 16, **kw)
    tt, pt = twin(tt, pt)
    tt.eval()
    pt.eval()
    compare(tt, pt, [mem, tgt])
    np.testing.assert_array_equal(
        nn.Transformer.generate_square_subsequent_mask(4).data,
        torch.nn.Transformer.generate_square_subsequent_mask(4).numpy())


def test_transformer_encoder_layer_gradcheck():
    layer = nn.TransformerEncoderLayer(4, 2, 6, dropout=0.0).double()
    x = pyad.tensor(RNG.standard_normal((3, 2, 4)), requires_grad=True)
    assert gradcheck(lambda x: layer(x), (x,))


def test_transformer_dropout_is_active_in_training():
    layer = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.5)
    x = pyad.randn(4, 2, 8)
    pyad.manual_seed(0)
    a = layer(x)
    pyad.manual_seed(1)
    b = layer(x)
    assert not np.allclose(a.data, b.data)
    layer.eval()
    np.testing.assert_array_equal(layer(x).data, layer(x).data)
