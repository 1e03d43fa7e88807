"""Attention layers: `MultiheadAttention`, `TransformerEncoderLayer`,
`TransformerEncoder`, `TransformerDecoderLayer`, `TransformerDecoder` and `Transformer`,
as ``torch.nn``, with torch's parameter names (``in_proj_weight``, ``out_proj.weight``,
``linear1.weight``, ``norm1.weight``, ...) so that a torch ``state_dict`` loads.

Masks follow torch: in `MultiheadAttention` and the Transformer layers a boolean mask
marks with True the positions that may *not* be attended to, a float mask is added to
the scores (``-inf`` excludes); ``key_padding_mask`` is ``(N, S)``.

>>> import pyad
>>> layer = pyad.nn.TransformerEncoderLayer(d_model=8, nhead=2, dim_feedforward=16,
...                                         batch_first=True)
>>> enc = pyad.nn.TransformerEncoder(layer, num_layers=2)
>>> mask = pyad.nn.Transformer.generate_square_subsequent_mask(5)
>>> enc(pyad.randn(3, 5, 8), mask=mask).shape
(3, 5, 8)
"""
import copy
import math
import warnings

import numpy as _np

from pyad._porting import _is_float
import pyad
from pyad._engine import Variable, matmul
from pyad.nn import functional as F
from pyad.nn import init
from pyad.nn.modules import (Module, ModuleList, Linear, LayerNorm, Dropout, ReLU, GELU,
                              NonDynamicallyQuantizableLinear, _factory)
from pyad.nn.parameter import Parameter

__all__ = ["MultiheadAttention", "TransformerEncoderLayer", "TransformerEncoder",
           "TransformerDecoderLayer", "TransformerDecoder", "Transformer"]


def _canonical_mask(mask, name, target_dtype, what):
    """A boolean mask becomes a float one with ``-inf`` where True; a float mask is kept."""
    if mask is None:
        return None
    if not isinstance(mask, Variable):
        mask = pyad.tensor(mask)
    if mask.dtype == pyad.bool:
        xp = pyad.get_array_module(mask.data)
        return Variable(xp.where(mask.data, -xp.inf, 0.0).astype(target_dtype))
    if not _is_float(mask.dtype):
        raise AssertionError("only bool and floating types of %s are supported" % name)
    return mask


def multi_head_attention_forward(query, key, value, num_heads, in_proj_weight, in_proj_bias,
                                 bias_k, bias_v, add_zero_attn, dropout_p, out_proj_weight,
                                 out_proj_bias, training=True, key_padding_mask=None,
                                 need_weights=True, attn_mask=None,
                                 use_separate_proj_weight=False, q_proj_weight=None,
                                 k_proj_weight=None, v_proj_weight=None, static_k=None,
                                 static_v=None, average_attn_weights=True, is_causal=False,
                                 what="MultiheadAttention"):
    """The computation of `MultiheadAttention` on ``(L, N, E)`` / ``(L, E)`` inputs, as
    ``F.multi_head_attention_forward``."""
    unbatched = query.dim() == 2
    if query.dim() not in (2, 3):
        raise AssertionError("%s(): query should be unbatched 2D or batched 3D tensor but "
                             "received %dD query tensor" % (what, query.dim()))
    # torch's _mha_shape_check, with its wording
    kind = "unbatched (2-D)" if unbatched else "batched (3-D)"
    if key.dim() != query.dim() or value.dim() != query.dim():
        raise AssertionError("%s(): For %s `query`, expected `key` and `value` to be %d-D but "
                             "found %d-D and %d-D tensors respectively"
                             % (what, kind, query.dim(), key.dim(), value.dim()))
    if key_padding_mask is not None and key_padding_mask.dim() != query.dim() - 1:
        raise AssertionError("%s(): For %s `query`, expected `key_padding_mask` to be `None` "
                             "or %d-D but found %d-D tensor instead"
                             % (what, kind, query.dim() - 1, key_padding_mask.dim()))
    if attn_mask is not None and attn_mask.dim() not in (2, 3):
        raise AssertionError("%s(): For %s `query`, expected `attn_mask` to be `None`, 2-D "
                             "or 3-D but found %d-D tensor instead"
                             % (what, kind, attn_mask.dim()))
    if unbatched and attn_mask is not None and attn_mask.dim() == 3:
        expected = (num_heads, query.shape[0], key.shape[0])
        if tuple(attn_mask.shape) != expected:
            raise AssertionError("%s(): Expected `attn_mask` shape to be %s but got %s"
                                 % (what, expected, tuple(attn_mask.shape)))
    if unbatched:
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            if key_padding_mask.dim() != 1:
                raise AssertionError("%s(): For unbatched (2-D) `query`, expected "
                                     "`key_padding_mask` to be `None` or 1-D but found %d-D "
                                     "tensor instead" % (what, key_padding_mask.dim()))
            key_padding_mask = key_padding_mask.unsqueeze(0)
    tgt_len, bsz, embed_dim = query.shape
    src_len = key.shape[0]
    if key.shape[:2] != value.shape[:2]:
        raise AssertionError("%s(): key shape %s does not match value shape %s"
                             % (what, tuple(key.shape), tuple(value.shape)))
    head_dim = embed_dim // num_heads
    if head_dim * num_heads != embed_dim:
        raise AssertionError("embed_dim %d not divisible by num_heads %d"
                             % (embed_dim, num_heads))
    if is_causal and attn_mask is None:
        raise RuntimeError("%s(): Need attn_mask if specifying the is_causal hint. You may "
                           "use the Transformer module method `generate_square_subsequent_"
                           "mask` to create this mask." % what)
    dtype = query.dtype
    if (key_padding_mask is not None and attn_mask is not None
            and getattr(key_padding_mask, "dtype", None) != getattr(attn_mask, "dtype", None)):
        # torch's deprecation warning for a boolean padding mask with a float attn_mask
        # (or the other way round); both are still applied
        warnings.warn("Support for mismatched key_padding_mask and attn_mask is deprecated. "
                      "Use same type for both instead.", UserWarning, stacklevel=3)
    key_padding_mask = _canonical_mask(key_padding_mask, "key_padding_mask", dtype, what)
    if is_causal and key_padding_mask is None and not need_weights:
        # torch's rule: the mask is then only a hint; attention is causal, whatever it holds
        attn_mask = None
    else:
        attn_mask = _canonical_mask(attn_mask, "attn_mask", dtype, what)
        is_causal = False

    # input projections
    if not use_separate_proj_weight:
        if query is key and key is value:
            q, k, v = F.linear(query, in_proj_weight, in_proj_bias).chunk(3, -1)
        else:
            w_q, w_k, w_v = in_proj_weight.chunk(3, 0)
            b_q = b_k = b_v = None
            if in_proj_bias is not None:
                b_q, b_k, b_v = in_proj_bias.chunk(3, 0)
            q = F.linear(query, w_q, b_q)
            k = F.linear(key, w_k, b_k)
            v = F.linear(value, w_v, b_v)
    else:
        b_q = b_k = b_v = None
        if in_proj_bias is not None:
            b_q, b_k, b_v = in_proj_bias.chunk(3, 0)
        q = F.linear(query, q_proj_weight, b_q)
        k = F.linear(key, k_proj_weight, b_k)
        v = F.linear(value, v_proj_weight, b_v)

    if attn_mask is not None:
        if attn_mask.dim() == 2:
            if tuple(attn_mask.shape) != (tgt_len, src_len):
                raise RuntimeError("The shape of the 2D attn_mask is %s, but should be %s."
                                   % (tuple(attn_mask.shape), (tgt_len, src_len)))
            attn_mask = attn_mask.unsqueeze(0)
        elif attn_mask.dim() == 3:
            if tuple(attn_mask.shape) != (bsz * num_heads, tgt_len, src_len):
                raise RuntimeError("The shape of the 3D attn_mask is %s, but should be %s."
                                   % (tuple(attn_mask.shape),
                                      (bsz * num_heads, tgt_len, src_len)))
        else:
            raise RuntimeError("attn_mask's dimension %d is not supported" % attn_mask.dim())

    if bias_k is not None and bias_v is not None:
        if static_k is not None:
            raise AssertionError("bias cannot be added to static key.")
        if static_v is not None:
            raise AssertionError("bias cannot be added to static value.")
        k = pyad.cat([k, bias_k.expand(1, bsz, embed_dim)], 0)
        v = pyad.cat([v, bias_v.expand(1, bsz, embed_dim)], 0)
        if attn_mask is not None:
            attn_mask = F.pad(attn_mask, (0, 1))
        if key_padding_mask is not None:
            key_padding_mask = F.pad(key_padding_mask, (0, 1))

    q = q.reshape(tgt_len, bsz * num_heads, head_dim).transpose(0, 1)
    # static_k / static_v ((N * num_heads, S, head_dim)) replace the projected key / value
    if static_k is None:
        k = k.reshape(k.shape[0], bsz * num_heads, head_dim).transpose(0, 1)
    else:
        if static_k.shape[0] != bsz * num_heads:
            raise AssertionError("expecting static_k.size(0) of %d, but got %d"
                                 % (bsz * num_heads, static_k.shape[0]))
        if static_k.shape[2] != head_dim:
            raise AssertionError("expecting static_k.size(2) of %d, but got %d"
                                 % (head_dim, static_k.shape[2]))
        k = static_k
    if static_v is None:
        v = v.reshape(v.shape[0], bsz * num_heads, head_dim).transpose(0, 1)
    else:
        if static_v.shape[0] != bsz * num_heads:
            raise AssertionError("expecting static_v.size(0) of %d, but got %d"
                                 % (bsz * num_heads, static_v.shape[0]))
        if static_v.shape[2] != head_dim:
            raise AssertionError("expecting static_v.size(2) of %d, but got %d"
                                 % (head_dim, static_v.shape[2]))
        v = static_v

    if add_zero_attn:
        zeros = pyad.zeros(bsz * num_heads, 1, head_dim, dtype=q.dtype, device=q.device)
        k = pyad.cat([k, zeros], 1)
        v = pyad.cat([v, zeros], 1)
        if attn_mask is not None:
            attn_mask = F.pad(attn_mask, (0, 1))
        if key_padding_mask is not None:
            key_padding_mask = F.pad(key_padding_mask, (0, 1))
    src_len = k.shape[1]

    if key_padding_mask is not None:
        if tuple(key_padding_mask.shape) != (bsz, src_len):
            raise AssertionError("expecting key_padding_mask shape of %s, but got %s"
                                 % ((bsz, src_len), tuple(key_padding_mask.shape)))
        kpm = key_padding_mask.reshape(bsz, 1, 1, src_len).expand(
            bsz, num_heads, 1, src_len).reshape(bsz * num_heads, 1, src_len)
        attn_mask = kpm if attn_mask is None else attn_mask + kpm

    if not training:
        dropout_p = 0.0

    if need_weights:
        scores = matmul(q * math.sqrt(1.0 / head_dim), k.transpose(-2, -1))
        if attn_mask is not None:
            scores = scores + attn_mask
        weights = F.softmax(scores, -1)
        if dropout_p > 0.0:
            weights = F.dropout(weights, dropout_p)
        out = matmul(weights, v)
        out = out.transpose(0, 1).reshape(tgt_len * bsz, embed_dim)
        out = F.linear(out, out_proj_weight, out_proj_bias).reshape(tgt_len, bsz, embed_dim)
        weights = weights.reshape(bsz, num_heads, tgt_len, src_len)
        if average_attn_weights:
            weights = weights.mean(1)
        if unbatched:
            out = out.squeeze(1)
            weights = weights.squeeze(0)
        return out, weights
    if attn_mask is not None:
        if attn_mask.shape[0] == 1 and attn_mask.dim() == 3:
            attn_mask = attn_mask.unsqueeze(0)
        else:
            attn_mask = attn_mask.reshape(bsz, num_heads, -1, src_len)
    q = q.reshape(bsz, num_heads, tgt_len, head_dim)
    k = k.reshape(bsz, num_heads, src_len, head_dim)
    v = v.reshape(bsz, num_heads, src_len, head_dim)
    out = F.scaled_dot_product_attention(q, k, v, attn_mask, dropout_p,
                                         is_causal and attn_mask is None)
    out = out.permute(2, 0, 1, 3).reshape(bsz * tgt_len, embed_dim)
    out = F.linear(out, out_proj_weight, out_proj_bias).reshape(tgt_len, bsz, embed_dim)
    if unbatched:
        out = out.squeeze(1)
    return out, None


class MultiheadAttention(Module):
    """Multi-head attention, as ``torch.nn.MultiheadAttention``.

    ``attn_output, attn_weights = mha(query, key, value, key_padding_mask=None,
    need_weights=True, attn_mask=None, average_attn_weights=True, is_causal=False)`` on
    ``(L, N, E)`` inputs (``(N, L, E)`` with ``batch_first``, ``(L, E)`` unbatched);
    ``attn_weights`` is ``(N, L, S)`` (``(N, H, L, S)`` without averaging) or None.

    >>> import pyad
    >>> mha = pyad.nn.MultiheadAttention(8, 2, batch_first=True)
    >>> x = pyad.randn(3, 5, 8)
    >>> out, w = mha(x, x, x)
    >>> out.shape, w.shape
    ((3, 5, 8), (3, 5, 5))
    """

    def __init__(self, embed_dim, num_heads, dropout=0.0, bias=True, add_bias_kv=False,
                 add_zero_attn=False, kdim=None, vdim=None, batch_first=False, device=None,
                 dtype=None):
        super().__init__()
        if embed_dim <= 0 or num_heads <= 0:
            raise ValueError("embed_dim and num_heads must be greater than 0, got "
                             "embed_dim=%s and num_heads=%s instead" % (embed_dim, num_heads))
        self.embed_dim = embed_dim
        self.kdim = kdim if kdim is not None else embed_dim
        self.vdim = vdim if vdim is not None else embed_dim
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        self.num_heads = num_heads
        self.dropout = dropout
        self.batch_first = batch_first
        self.head_dim = embed_dim // num_heads
        if self.head_dim * num_heads != embed_dim:
            raise AssertionError("embed_dim must be divisible by num_heads")
        if not self._qkv_same_embed_dim:
            self.q_proj_weight = Parameter(_factory((embed_dim, embed_dim), device, dtype))
            self.k_proj_weight = Parameter(_factory((embed_dim, self.kdim), device, dtype))
            self.v_proj_weight = Parameter(_factory((embed_dim, self.vdim), device, dtype))
            self.register_parameter("in_proj_weight", None)
        else:
            self.in_proj_weight = Parameter(_factory((3 * embed_dim, embed_dim), device,
                                                     dtype))
            self.register_parameter("q_proj_weight", None)
            self.register_parameter("k_proj_weight", None)
            self.register_parameter("v_proj_weight", None)
        if bias:
            self.in_proj_bias = Parameter(_factory((3 * embed_dim,), device, dtype))
        else:
            self.register_parameter("in_proj_bias", None)
        self.out_proj = NonDynamicallyQuantizableLinear(embed_dim, embed_dim, bias=bias,
                                                        device=device, dtype=dtype)
        if add_bias_kv:
            self.bias_k = Parameter(_factory((1, 1, embed_dim), device, dtype))
            self.bias_v = Parameter(_factory((1, 1, embed_dim), device, dtype))
        else:
            self.bias_k = self.bias_v = None
        self.add_zero_attn = add_zero_attn
        self._reset_parameters()

    def _reset_parameters(self):
        if self._qkv_same_embed_dim:
            init.xavier_uniform_(self.in_proj_weight)
        else:
            init.xavier_uniform_(self.q_proj_weight)
            init.xavier_uniform_(self.k_proj_weight)
            init.xavier_uniform_(self.v_proj_weight)
        if self.in_proj_bias is not None:
            init.constant_(self.in_proj_bias, 0.0)
            init.constant_(self.out_proj.bias, 0.0)
        if self.bias_k is not None:
            init.xavier_normal_(self.bias_k)
        if self.bias_v is not None:
            init.xavier_normal_(self.bias_v)

    def forward(self, query, key, value, key_padding_mask=None, need_weights=True,
                attn_mask=None, average_attn_weights=True, is_causal=False):
        batched = query.dim() == 3
        if self.batch_first and batched:
            if key is value:
                if query is key:
                    query = key = value = query.transpose(1, 0)
                else:
                    query, key = query.transpose(1, 0), key.transpose(1, 0)
                    value = key
            else:
                query, key, value = (x.transpose(1, 0) for x in (query, key, value))
        if query.dim() == 3 and key.dim() == 3 and query.shape[2] != self.embed_dim:
            raise AssertionError("was expecting embedding dimension of %d, but got %d"
                                 % (self.embed_dim, query.shape[2]))
        out, weights = multi_head_attention_forward(
            query, key, value, self.num_heads, self.in_proj_weight, self.in_proj_bias,
            self.bias_k, self.bias_v, self.add_zero_attn, self.dropout, self.out_proj.weight,
            self.out_proj.bias, training=self.training, key_padding_mask=key_padding_mask,
            need_weights=need_weights, attn_mask=attn_mask,
            use_separate_proj_weight=not self._qkv_same_embed_dim,
            q_proj_weight=self.q_proj_weight, k_proj_weight=self.k_proj_weight,
            v_proj_weight=self.v_proj_weight, average_attn_weights=average_attn_weights,
            is_causal=is_causal)
        if self.batch_first and batched:
            out = out.transpose(1, 0)
        return out, weights


def _activation(activation, what):
    if isinstance(activation, str):
        if activation == "relu":
            return F.relu
        if activation == "gelu":
            return F.gelu
        raise RuntimeError("activation should be relu/gelu, not %s" % activation)
    if not callable(activation):
        raise RuntimeError("%s(): activation should be relu/gelu or a callable" % what)
    return activation


def _clones(module, n):
    return ModuleList([copy.deepcopy(module) for _ in range(n)])


class TransformerEncoderLayer(Module):
    """Self-attention then a feed-forward block, each with a residual connection and
    layer norm (after, or before with ``norm_first=True``), as
    ``torch.nn.TransformerEncoderLayer``."""

    def __init__(self, d_model, nhead, dim_feedforward=2048, dropout=0.1, activation=F.relu,
                 layer_norm_eps=1e-5, batch_first=False, norm_first=False, bias=True,
                 device=None, dtype=None):
        super().__init__()
        kw = dict(device=device, dtype=dtype)
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, bias=bias,
                                            batch_first=batch_first, **kw)
        self.linear1 = Linear(d_model, dim_feedforward, bias=bias, **kw)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, bias=bias, **kw)
        self.norm_first = norm_first
        self.norm1 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kw)
        self.norm2 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kw)
        self.dropout1 = Dropout(dropout)
        self.dropout2 = Dropout(dropout)
        # torch's flag for its fused fast path: 1 for relu, 2 for gelu, else 0
        if activation is F.relu or isinstance(activation, ReLU) or activation == "relu":
            self.activation_relu_or_gelu = 1
        elif activation is F.gelu or isinstance(activation, GELU) or activation == "gelu":
            self.activation_relu_or_gelu = 2
        else:
            self.activation_relu_or_gelu = 0
        self.activation = _activation(activation, "TransformerEncoderLayer")

    def forward(self, src, src_mask=None, src_key_padding_mask=None, is_causal=False):
        x = src
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), src_mask, src_key_padding_mask, is_causal)
            x = x + self._ff_block(self.norm2(x))
        else:
            x = self.norm1(x + self._sa_block(x, src_mask, src_key_padding_mask, is_causal))
            x = self.norm2(x + self._ff_block(x))
        return x

    def _sa_block(self, x, attn_mask, key_padding_mask, is_causal=False):
        x = self.self_attn(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask,
                           need_weights=False, is_causal=is_causal)[0]
        return self.dropout1(x)

    def _ff_block(self, x):
        x = self.linear2(self.dropout(self.activation(self.linear1(x))))
        return self.dropout2(x)


class TransformerDecoderLayer(Module):
    """Self-attention, attention over the encoder's ``memory``, then a feed-forward
    block, each with a residual connection and layer norm, as
    ``torch.nn.TransformerDecoderLayer``."""

    def __init__(self, d_model, nhead, dim_feedforward=2048, dropout=0.1, activation=F.relu,
                 layer_norm_eps=1e-5, batch_first=False, norm_first=False, bias=True,
                 device=None, dtype=None):
        super().__init__()
        kw = dict(device=device, dtype=dtype)
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout,
                                            batch_first=batch_first, bias=bias, **kw)
        self.multihead_attn = MultiheadAttention(d_model, nhead, dropout=dropout,
                                                 batch_first=batch_first, bias=bias, **kw)
        self.linear1 = Linear(d_model, dim_feedforward, bias=bias, **kw)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, bias=bias, **kw)
        self.norm_first = norm_first
        self.norm1 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kw)
        self.norm2 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kw)
        self.norm3 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kw)
        self.dropout1 = Dropout(dropout)
        self.dropout2 = Dropout(dropout)
        self.dropout3 = Dropout(dropout)
        self.activation = _activation(activation, "TransformerDecoderLayer")

    def __setstate__(self, state):
        # torch's TransformerDecoderLayer.__setstate__, quirk included: a deep copy (as
        # TransformerDecoder and Transformer make of their layer) or an unpickled layer
        # whose activation is a Module (kept in _modules, not in the instance dict) gets
        # F.relu as its activation, so it computes relu as torch's does
        if "activation" not in state:
            state["activation"] = F.relu
        self.__dict__.update(state)

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                memory_key_padding_mask=None, tgt_is_causal=False, memory_is_causal=False):
        x = tgt
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), tgt_mask, tgt_key_padding_mask,
                                   tgt_is_causal)
            x = x + self._mha_block(self.norm2(x), memory, memory_mask,
                                    memory_key_padding_mask, memory_is_causal)
            x = x + self._ff_block(self.norm3(x))
        else:
            x = self.norm1(x + self._sa_block(x, tgt_mask, tgt_key_padding_mask,
                                              tgt_is_causal))
            x = self.norm2(x + self._mha_block(x, memory, memory_mask,
                                               memory_key_padding_mask, memory_is_causal))
            x = self.norm3(x + self._ff_block(x))
        return x

    def _sa_block(self, x, attn_mask, key_padding_mask, is_causal=False):
        x = self.self_attn(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask,
                           is_causal=is_causal, need_weights=False)[0]
        return self.dropout1(x)

    def _mha_block(self, x, mem, attn_mask, key_padding_mask, is_causal=False):
        x = self.multihead_attn(x, mem, mem, attn_mask=attn_mask,
                                key_padding_mask=key_padding_mask, is_causal=is_causal,
                                need_weights=False)[0]
        return self.dropout2(x)

    def _ff_block(self, x):
        x = self.linear2(self.dropout(self.activation(self.linear1(x))))
        return self.dropout3(x)


def _get_seq_len(src, batch_first):
    """torch's _get_seq_len: the sequence length of a (batched or unbatched) input."""
    shape = tuple(src.shape)
    if len(shape) == 2:
        return shape[0]
    return shape[1 if batch_first else 0]


def _detect_is_causal_mask(mask, is_causal=None, size=None):
    """torch's _detect_is_causal_mask: ``is_causal`` when given; else whether ``mask`` is
    exactly the square causal mask (``-inf``/True above the diagonal) of ``size``."""
    make_causal = is_causal is True
    if is_causal is None and mask is not None:
        m = mask.data if isinstance(mask, Variable) else _np.asarray(mask)
        sz = size if size is not None else m.shape[-2]
        if tuple(m.shape) == (sz, sz):
            xp = pyad.get_array_module(m)
            upper = xp.triu(xp.ones((sz, sz), dtype=bool), 1)
            if m.dtype == bool:
                causal = upper
            else:
                causal = xp.where(upper, -xp.inf, 0.0).astype(m.dtype)
            make_causal = bool((m == causal).all())
    return make_causal


def _why_not_nested(layer):
    # torch.nn.TransformerEncoder's reasons, in its order
    name = "encoder_layer"
    if not isinstance(layer, TransformerEncoderLayer):
        return "%s was not TransformerEncoderLayer" % name
    if layer.norm_first:
        return "%s.norm_first was True" % name
    if not layer.self_attn.batch_first:
        return ("%s.self_attn.batch_first was not True(use batch_first for better inference "
                "performance)" % name)
    if not layer.self_attn._qkv_same_embed_dim:
        return "%s.self_attn._qkv_same_embed_dim was not True" % name
    if layer.self_attn.in_proj_bias is None:
        return "%s.self_attn was passed bias=False" % name
    if not layer.activation_relu_or_gelu:
        return "%s.activation_relu_or_gelu was not True" % name
    if not layer.norm1.eps == layer.norm2.eps:
        return "%s.norm1.eps was not equal to %s.norm2.eps" % (name, name)
    if layer.self_attn.num_heads % 2 == 1:
        return "%s.self_attn.num_heads is odd" % name
    return ""


class TransformerEncoder(Module):
    """``num_layers`` copies of ``encoder_layer`` (deep copies, as torch's), then an
    optional ``norm``."""

    def __init__(self, encoder_layer, num_layers, norm=None, enable_nested_tensor=True,
                 mask_check=True):
        super().__init__()
        self.layers = _clones(encoder_layer, num_layers)
        self.num_layers = num_layers
        self.norm = norm
        self.enable_nested_tensor = enable_nested_tensor
        # torch's flag (and warning) for its nested-tensor fast path, which pyad does not
        # take: the flag is kept for scripts that read it, computed by torch's rules
        self.use_nested_tensor = enable_nested_tensor
        self.mask_check = mask_check
        why_not = _why_not_nested(encoder_layer)
        if enable_nested_tensor and why_not:
            warnings.warn("enable_nested_tensor is True, but self.use_nested_tensor is False "
                          "because %s" % why_not, UserWarning, stacklevel=2)
            self.use_nested_tensor = False

    def forward(self, src, mask=None, src_key_padding_mask=None, is_causal=None):
        out = src
        batch_first = getattr(getattr(self.layers[0], "self_attn", None), "batch_first", False)
        is_causal = _detect_is_causal_mask(mask, is_causal, _get_seq_len(src, batch_first))
        for mod in self.layers:
            out = mod(out, src_mask=mask, src_key_padding_mask=src_key_padding_mask,
                      is_causal=bool(is_causal) and mask is not None)
        padded = self._nested_padding(src, mask, src_key_padding_mask)
        if padded is not None:
            # torch's inference fast path runs the layers on a nested tensor of the
            # unpadded positions and pads the result back with zeros: the outputs at
            # padded positions are 0 (before the final norm), the others unchanged
            out = pyad.masked_fill(out, Variable(padded[..., None]), 0.0)
        if self.norm is not None:
            out = self.norm(out)
        return out

    def _nested_padding(self, src, mask, src_key_padding_mask):
        """The (N, S) padding of torch's nested-tensor fast path when torch takes it
        (its conditions, in its order), else None."""
        if not getattr(self, "use_nested_tensor", False) or src_key_padding_mask is None:
            return None
        first = self.layers[0]
        if first.training or src.dim() != 3 or mask is not None:
            return None
        from pyad.amp import autocast_mode
        if autocast_mode._active:
            return None
        kpm = src_key_padding_mask
        kpm = kpm.data if isinstance(kpm, Variable) else _np.asarray(kpm)
        padded = kpm if kpm.dtype == bool else kpm != 0
        xp = pyad.get_array_module(padded)
        if self.mask_check:
            keep = ~padded
            # left aligned: each row's kept positions form a prefix
            if bool((keep[:, 1:] & ~keep[:, :-1]).any()):
                return None
        attn, = (first.self_attn,)
        params = (attn.in_proj_weight, attn.in_proj_bias, attn.out_proj.weight,
                  attn.out_proj.bias, first.norm1.weight, first.norm1.bias,
                  first.norm2.weight, first.norm2.bias, first.linear1.weight,
                  first.linear1.bias, first.linear2.weight, first.linear2.bias)
        if pyad.is_grad_enabled() and (src.requires_grad or any(
                p is not None and p.requires_grad for p in params)):
            return None
        return xp.asarray(padded, dtype=bool)


class TransformerDecoder(Module):
    """``num_layers`` copies of ``decoder_layer``, then an optional ``norm``."""

    def __init__(self, decoder_layer, num_layers, norm=None):
        super().__init__()
        self.layers = _clones(decoder_layer, num_layers)
        self.num_layers = num_layers
        self.norm = norm

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                memory_key_padding_mask=None, tgt_is_causal=None, memory_is_causal=False):
        out = tgt
        batch_first = getattr(getattr(self.layers[0], "self_attn", None), "batch_first", False)
        tgt_is_causal = _detect_is_causal_mask(tgt_mask, tgt_is_causal,
                                               _get_seq_len(tgt, batch_first))
        for mod in self.layers:
            out = mod(out, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                      tgt_key_padding_mask=tgt_key_padding_mask,
                      memory_key_padding_mask=memory_key_padding_mask,
                      tgt_is_causal=bool(tgt_is_causal) and tgt_mask is not None,
                      memory_is_causal=memory_is_causal)
        if self.norm is not None:
            out = self.norm(out)
        return out


class Transformer(Module):
    """The encoder-decoder Transformer of "Attention Is All You Need", as
    ``torch.nn.Transformer`` (an encoder and a decoder stack, each with a final
    LayerNorm)."""

    def __init__(self, d_model=512, nhead=8, num_encoder_layers=6, num_decoder_layers=6,
                 dim_feedforward=2048, dropout=0.1, activation=F.relu, custom_encoder=None,
                 custom_decoder=None, layer_norm_eps=1e-5, batch_first=False,
                 norm_first=False, bias=True, device=None, dtype=None):
        super().__init__()
        kw = dict(device=device, dtype=dtype)
        if custom_encoder is not None:
            self.encoder = custom_encoder
        else:
            layer = TransformerEncoderLayer(d_model, nhead, dim_feedforward, dropout,
                                            activation, layer_norm_eps, batch_first,
                                            norm_first, bias, **kw)
            self.encoder = TransformerEncoder(
                layer, num_encoder_layers,
                LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kw))
        if custom_decoder is not None:
            self.decoder = custom_decoder
        else:
            layer = TransformerDecoderLayer(d_model, nhead, dim_feedforward, dropout,
                                            activation, layer_norm_eps, batch_first,
                                            norm_first, bias, **kw)
            self.decoder = TransformerDecoder(
                layer, num_decoder_layers,
                LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kw))
        self._reset_parameters()
        self.d_model = d_model
        self.nhead = nhead
        self.batch_first = batch_first

    def forward(self, src, tgt, src_mask=None, tgt_mask=None, memory_mask=None,
                src_key_padding_mask=None, tgt_key_padding_mask=None,
                memory_key_padding_mask=None, src_is_causal=None, tgt_is_causal=None,
                memory_is_causal=False):
        is_batched = src.dim() == 3
        if not self.batch_first and src.shape[1] != tgt.shape[1] and is_batched:
            raise RuntimeError("the batch number of src and tgt must be equal")
        if self.batch_first and src.shape[0] != tgt.shape[0] and is_batched:
            raise RuntimeError("the batch number of src and tgt must be equal")
        if src.shape[-1] != self.d_model or tgt.shape[-1] != self.d_model:
            raise RuntimeError("the feature number of src and tgt must be equal to d_model")
        memory = self.encoder(src, mask=src_mask, src_key_padding_mask=src_key_padding_mask,
                              is_causal=src_is_causal)
        return self.decoder(tgt, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                            tgt_key_padding_mask=tgt_key_padding_mask,
                            memory_key_padding_mask=memory_key_padding_mask,
                            tgt_is_causal=tgt_is_causal, memory_is_causal=memory_is_causal)

    @staticmethod
    def generate_square_subsequent_mask(sz, device=None, dtype=None):
        """The ``(sz, sz)`` float mask with ``-inf`` above the diagonal, 0 elsewhere."""
        if sz < 0:
            raise RuntimeError("generate_square_subsequent_mask(): trying to create a mask "
                               "with negative dimension %d" % sz)
        mask = _np.triu(_np.full((sz, sz), -_np.inf), 1)
        return pyad.tensor(mask, dtype=dtype if dtype is not None else pyad.get_default_dtype(),
                           device=device)

    def _reset_parameters(self):
        for p in self.parameters():
            if p.dim() > 1:
                init.xavier_uniform_(p)
