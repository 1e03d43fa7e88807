"""``pyad.nn.attention.bias``: torch's causal attention biases for
`scaled_dot_product_attention` (``causal_upper_left``, ``causal_lower_right``).

A `CausalBias` is a Variable subclass (as torch's is a Tensor subclass) that holds no
meaningful values: it records the variant and the two sequence lengths, prints as the
boolean mask it stands for, and ``scaled_dot_product_attention`` given one as ``attn_mask`` runs the
causal attention it describes (upper left: ``is_causal=True``; lower right: the
materialized mask, torch's math path).

>>> import pyad
>>> from pyad.nn.attention.bias import causal_lower_right
>>> causal_lower_right(2, 3)
tensor([[ True,  True, False],
        [ True,  True,  True]])
"""
from enum import IntEnum, auto
from warnings import warn

import pyad
from pyad._engine import Variable

__all__ = ["causal_upper_left", "causal_lower_right", "CausalVariant", "CausalBias"]


class CausalVariant(IntEnum):
    """The two causal variants (values as torch's): ``UPPER_LEFT`` is
    ``tril(ones(L, S))``, ``LOWER_RIGHT`` is ``tril(ones(L, S), diagonal=S - L)``."""
    UPPER_LEFT = auto()
    LOWER_RIGHT = auto()


class CausalBias(Variable):
    """A causal attention bias of ``seq_len_q`` x ``seq_len_kv`` (see `CausalVariant`),
    for ``scaled_dot_product_attention``'s ``attn_mask``. Built by `causal_upper_left`
    and `causal_lower_right`; like torch's, its data is an uninitialized float array of
    ``(variant, seq_len_q, seq_len_kv)`` (torch's legacy constructor), and it prints
    as its materialized boolean mask."""

    def __new__(cls, variant, seq_len_q, seq_len_kv):
        return Variable.__new__(cls)

    def __init__(self, variant, seq_len_q, seq_len_kv):
        if not isinstance(variant, CausalVariant):
            raise AssertionError("variant must be a CausalVariant, got %s"
                                 % type(variant).__name__)
        # torch's CausalBias(variant, q, kv) goes through the legacy Tensor(*sizes)
        # constructor: an uninitialized float Variable of (variant, q, kv)
        Variable.__init__(self, pyad.empty(int(variant), seq_len_q, seq_len_kv).data, False)
        self.variant = variant
        self.seq_len_q = seq_len_q
        self.seq_len_kv = seq_len_kv
        if seq_len_q > seq_len_kv and variant == CausalVariant.LOWER_RIGHT:
            warn("Lower right causal bias will produce NaNs in the output when "
                 "seq_len_q > seq_len_kv!", stacklevel=2)

    def _upper_left(self, device):
        return pyad.tril(pyad.ones(self.seq_len_q, self.seq_len_kv, device=device,
                                   dtype=pyad.bool))

    def _lower_right(self, device):
        diagonal_offset = self.seq_len_kv - self.seq_len_q
        return pyad.tril(pyad.ones(self.seq_len_q, self.seq_len_kv, device=device,
                                   dtype=pyad.bool), diagonal=diagonal_offset)

    def _materialize(self, device=None):
        """The boolean mask this bias stands for (True: takes part)."""
        if device is None:
            device = pyad.device("cpu")
        if self.variant == CausalVariant.UPPER_LEFT:
            return self._upper_left(device)
        if self.variant == CausalVariant.LOWER_RIGHT:
            return self._lower_right(device)
        raise ValueError("CausalBias.variant must be a CausalVariant type, but found: %s"
                         % (self.variant,))

    @staticmethod
    def _dispatch(query, key, value, attn_mask, dropout_p=0.0, is_causal=False,
                  scale=None, enable_gqa=False):
        """``scaled_dot_product_attention`` with ``attn_mask`` this bias."""
        from pyad.nn.functional import scaled_dot_product_attention
        if is_causal:
            raise ValueError("CausalBias should not be used with causal=True")
        if attn_mask.seq_len_q == attn_mask.seq_len_kv or \
                attn_mask.variant == CausalVariant.UPPER_LEFT:
            return scaled_dot_product_attention(query, key, value, attn_mask=None,
                                                dropout_p=dropout_p, is_causal=True,
                                                scale=scale, enable_gqa=enable_gqa)
        if attn_mask.variant == CausalVariant.LOWER_RIGHT:
            return scaled_dot_product_attention(
                query, key, value, attn_mask=attn_mask._materialize(query.device),
                dropout_p=dropout_p, is_causal=False, scale=scale, enable_gqa=enable_gqa)
        raise ValueError("CausalBias.variant must be a CausalVariant type, but found: %s"
                         % (attn_mask.variant,))

    def __repr__(self):
        return repr(self._materialize())

    __str__ = __repr__


def causal_upper_left(*size):
    """A `CausalBias` of ``size`` = ``(seq_len_q, seq_len_kv)``, aligned to the upper
    left corner of the scores (as ``is_causal=True``)."""
    if len(size) != 2:
        raise AssertionError("causal_upper_left(): takes 2 sizes (seq_len_q, "
                             "seq_len_kv), got %d" % len(size))
    seq_len_q, seq_len_kv = size
    return CausalBias(CausalVariant.UPPER_LEFT, seq_len_q, seq_len_kv)


def causal_lower_right(*size):
    """A `CausalBias` of ``size`` = ``(seq_len_q, seq_len_kv)``, aligned to the lower
    right corner of the scores (the last query attends to every key)."""
    if len(size) != 2:
        raise AssertionError("causal_lower_right(): takes 2 sizes (seq_len_q, "
                             "seq_len_kv), got %d" % len(size))
    seq_len_q, seq_len_kv = size
    return CausalBias(CausalVariant.LOWER_RIGHT, seq_len_q, seq_len_kv)
