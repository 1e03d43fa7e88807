"""Ports of PyTorch's ModuleInfo tests (``test/test_modules.py``) to pyad.

The samples follow ``torch/testing/_internal/common_modules.py`` (the
``module_inputs_torch_nn_*`` constructor arguments and forward inputs, CPU float64, a few
samples per module) and its ``module_error_inputs_*``.  Every sample builds the module in
torch and in pyad, copies torch's initialised parameters and buffers into pyad (state_dict
through numpy) and runs torch's checks: ``test_forward`` (values and the gradients of
inputs and parameters equal torch 2.13's, torch's float64 tolerances), ``test_factory_kwargs``,
``test_repr``, ``test_save_load`` (pickle and state_dict round trips),
``test_check_inplace``, ``test_non_contiguous_tensors``, ``test_grad`` (gradcheck),
``test_gradgrad`` (gradgradcheck), ``test_memory_format`` (channels_last),
``test_errors``, ``test_if_train_and_eval_modes_differ`` and ``test_to_empty``.
``test_multiple_device_transfer`` is left out (CPU only).

Expected values come from torch run in the test on the same inputs -- never from pyad.
"""
import copy
import pickle
import re

import numpy as np
import pytest

import pyad
import pyad.nn as pnn
import pyad.nn.functional as pF
from pyad.autograd import gradcheck, gradgradcheck

torch = pytest.importorskip("torch")
tnn = torch.nn
tF = torch.nn.functional

from _port_helpers import _flat, twin  # noqa: E402

# torch's assertEqual tolerances for float64
ATOL, RTOL = 1e-7, 1e-7


# ------------------------------------------------------------------ sample table
#
# An input spec is a tuple (kind, ...):
#   ("f", shape)          make_tensor float64 in [-9, 9), requires grad
#   ("t", shape)          the same, a target (no grad)
#   ("pos", shape)        |make_tensor| + 0.1, requires grad;  ("tpos", shape) as target
#   ("prob", shape)       in (0.05, 0.95), requires grad;      ("tprob", shape) as target
#   ("ls", shape, dim)    make_tensor(...).log_softmax(dim), requires grad
#   ("sm", shape, dim)    make_tensor(...).softmax(dim), a target
#   ("long", shape, lo, hi)  int64 in [lo, hi)
#   ("sign", shape)       +-1 float target
#   ("lit", array-like, dtype)  a literal array
#   ("tuple", spec, ...)  a tuple of inputs;  ("list", [...])  a Python list
#   None                  passed as None
# Constructor keyword values may be specs too (class weights) or ("fn", name) for an
# activation function (F.gelu).

class S:
    def __init__(self, name, args=(), kw=None, inputs=(), fkw=None, desc="", eval_only=False):
        self.name, self.args, self.kw = name, tuple(args), dict(kw or {})
        self.inputs, self.fkw = list(inputs), dict(fkw or {})
        self.desc, self.eval_only = desc, eval_only

    @property
    def id(self):
        return self.name + ("_" + self.desc if self.desc else "")


def f(*shape):
    return ("f", shape)


def t(*shape):
    return ("t", shape)


def long_(shape, lo, hi):
    return ("long", shape, lo, hi)


KPM = ("lit", [False, False, True], bool)                      # key_padding_mask
AM3 = ("lit", [[False, False, True]] * 3, bool)                  # attn_mask (3, 3)
AM33 = ("lit", [[[False, False, True]] * 3] * 3, bool)           # attn_mask (3, 3, 3)

ACT = (2, 3, 4, 5)
SAMPLES = [
    S("Linear", (10, 8), inputs=[f(4, 10)]),
    S("Linear", (10, 8), {"bias": False}, [f(4, 10)], desc="no_bias"),
    S("Linear", (3, 5), inputs=[f(3)], desc="no_batch_dim"),
    S("Bilinear", (2, 3, 4), inputs=[f(8, 2), f(8, 3)]),
    S("Bilinear", (2, 3, 4), {"bias": False}, [f(8, 2), f(8, 3)], desc="no_bias"),
    S("Bilinear", (2, 3, 4), inputs=[f(2), f(3)], desc="no_batch_dim"),
    S("Conv1d", (4, 5, 3), inputs=[f(2, 4, 3)]),
    S("Conv1d", (4, 5, 3), {"padding": "same"}, [f(4, 3)], desc="same_no_batch_dim"),
    S("Conv2d", (4, 5, 3), inputs=[f(2, 4, 3, 4)]),
    S("Conv2d", (4, 5, 3), {"padding": "same"}, [f(4, 3, 4)], desc="same_no_batch_dim"),
    S("Conv3d", (4, 5, 3), inputs=[f(2, 4, 3, 4, 5)]),
    S("Conv3d", (4, 5, 3), {"padding": "same"}, [f(4, 3, 4, 5)], desc="same_no_batch_dim"),
    S("ConvTranspose1d", (4, 5, 3), inputs=[f(2, 4, 3)]),
    S("ConvTranspose1d", (4, 5, 3), inputs=[f(4, 3)], desc="no_batch_dim"),
    S("ConvTranspose2d", (4, 5, 3), inputs=[f(2, 4, 3, 4)]),
    S("ConvTranspose2d", (4, 5, 3), inputs=[f(4, 3, 4)], desc="no_batch_dim"),
    S("BatchNorm1d", (10,), inputs=[f(4, 10)]),
    S("BatchNorm1d", (5, 1e-3, 0.3, False), inputs=[f(4, 5, 3)], desc="3d_input_not_affine"),
    S("BatchNorm1d", (5,), {"momentum": None}, [f(4, 5, 3)], desc="momentum_none"),
    S("BatchNorm1d", (10, 1e-3, 0.3, True, False), inputs=[f(4, 10)],
      desc="not_tracking_stats"),
    S("BatchNorm1d", (5, 1e-3, 0.3, False), inputs=[f(0, 5, 9)], desc="zero_batch"),
    S("BatchNorm1d", (10,), {"bias": False}, [f(4, 10)], desc="affine_not_bias"),
    S("BatchNorm2d", (3,), inputs=[f(2, 3, 6, 6)]),
    S("BatchNorm2d", (3, 1e-3, None), inputs=[f(2, 3, 6, 6)], desc="2d_simple_average"),
    S("BatchNorm2d", (5, 1e-3, 0.3, False), inputs=[f(0, 5, 2, 2)], desc="zero_batch"),
    S("BatchNorm2d", (3, 1e-3, 0.8, False), inputs=[f(2, 3, 6, 6)], desc="not_affine"),
    S("LayerNorm", ([5], 1e-3), inputs=[f(4, 5, 5)], desc="1d_elementwise_affine"),
    S("LayerNorm", ([2, 2, 5], 1e-3), inputs=[f(4, 2, 2, 5)], desc="3d_elementwise_affine"),
    S("LayerNorm", ([5], 1e-3, False), inputs=[f(4, 5, 5)], desc="1d_no_elementwise_affine"),
    S("LayerNorm", ([5], 1e-3), {"bias": False}, [f(4, 5, 5)], desc="without_bias"),
    S("LayerNorm", ([5], 1e-3), inputs=[f(0, 5)], desc="1d_empty_elementwise_affine"),
    S("GroupNorm", (3, 6, 1e-3), inputs=[f(4, 6, 5)], desc="1d_affine"),
    S("GroupNorm", (3, 12, 1e-3), inputs=[f(4, 12)], desc="1d_affine_GN"),
    S("GroupNorm", (1, 10, 1e-3, False), inputs=[f(4, 10)], desc="1d_no_affine_LN"),
    S("GroupNorm", (3, 9, 1e-3), {"bias": False}, [f(4, 9, 2, 3)], desc="2d_affine_not_bias"),
    S("GroupNorm", (3, 6, 1e-3), inputs=[f(4, 6, 2, 3)], desc="2d_affine"),
    S("GroupNorm", (3, 9, 1e-3, False), inputs=[f(4, 9, 3, 3)], desc="2d_no_affine"),
    S("InstanceNorm1d", (3, 1e-3, 0.3), inputs=[f(4, 3, 15)]),
    S("InstanceNorm1d", (3, 1e-3, 0.3, True, True), inputs=[f(4, 3, 15)],
      desc="tracking_stats_affine"),
    S("InstanceNorm1d", (3, 1e-3, 0.3), {"affine": True, "bias": False}, [f(4, 3, 15)],
      desc="affine_not_bias"),
    S("InstanceNorm2d", (3, 1e-3, 0.3), inputs=[f(2, 3, 6, 6)]),
    S("InstanceNorm2d", (3, 1e-3, 0.3, True, True), inputs=[f(3, 6, 6)],
      desc="tracking_stats_affine_no_batch_dim"),
    S("Embedding", (4, 3), inputs=[long_((2, 3), 0, 4)]),
    S("Embedding", (4, 3), {"padding_idx": 1}, [long_((2, 3), 0, 4)], desc="padding_idx"),
    S("Embedding", (4, 3), inputs=[("lit", [[0, 3, 1, 2, 2, 1]] * 7, np.int64)],
      desc="discontiguous"),
    S("EmbeddingBag", (4, 3), inputs=[long_((2, 3), 0, 4)], desc="mean"),
    S("EmbeddingBag", (4, 3), {"mode": "sum"}, [long_((5,), 0, 4), ("lit", [0, 2], np.int64)],
      desc="sum_offsets"),
    S("EmbeddingBag", (4, 3), {"mode": "max"}, [long_((2, 3), 0, 4)], desc="max"),
    S("RNN", (), {"input_size": 2, "hidden_size": 2, "num_layers": 2}, [f(3, 2)],
      desc="no_batch_dim"),
    S("RNN", (), {"input_size": 2, "hidden_size": 3, "num_layers": 2, "nonlinearity": "relu",
                  "batch_first": True, "bidirectional": True},
      [f(2, 3, 2), f(4, 2, 3)], desc="relu_bidirectional_batch_first_h0"),
    S("GRU", (), {"input_size": 2, "hidden_size": 2, "num_layers": 2}, [f(3, 2)],
      desc="no_batch_dim"),
    S("GRU", (), {"input_size": 2, "hidden_size": 3, "num_layers": 2, "bias": False,
                  "bidirectional": True}, [f(3, 2, 2), f(4, 2, 3)],
      desc="no_bias_bidirectional_h0"),
    S("LSTM", (), {"input_size": 2, "hidden_size": 2, "num_layers": 2}, [f(3, 2)],
      desc="no_batch_dim"),
    S("LSTM", (), {"input_size": 2, "hidden_size": 3, "num_layers": 2, "batch_first": True,
                   "bidirectional": True},
      [f(2, 3, 2), ("tuple", f(4, 2, 3), f(4, 2, 3))], desc="bidirectional_batch_first_hx"),
    S("LSTM", (), {"input_size": 2, "hidden_size": 3, "num_layers": 2, "proj_size": 2},
      [f(3, 2, 2)], desc="proj_size"),
    S("RNNCell", (5, 10), inputs=[f(5), f(10)], desc="no_batch_dim"),
    S("RNNCell", (5, 10, True, "relu"), inputs=[f(3, 5), f(3, 10)], desc="relu"),
    S("GRUCell", (5, 10), inputs=[f(5), f(10)], desc="no_batch_dim"),
    S("GRUCell", (5, 10, False), inputs=[f(3, 5)], desc="no_bias_no_hx"),
    S("LSTMCell", (5, 10), inputs=[f(5), ("tuple", f(10), f(10))], desc="no_batch_dim"),
    S("LSTMCell", (5, 10, True), inputs=[f(3, 5), ("tuple", f(3, 10), f(3, 10))]),
    S("MultiheadAttention", (), {"embed_dim": 3, "num_heads": 3, "batch_first": True},
      [f(3, 3), f(3, 3), f(3, 3)], desc="no_batch_dim_batch_first"),
    S("MultiheadAttention", (), {"embed_dim": 3, "num_heads": 3, "bias": False},
      [f(3, 3), f(3, 3), f(3, 3)], {"key_padding_mask": KPM}, desc="no_bias_kpm"),
    S("MultiheadAttention", (), {"embed_dim": 3, "num_heads": 3, "add_bias_kv": True,
                                 "add_zero_attn": True},
      [f(3, 3), f(3, 3), f(3, 3)], {"attn_mask": AM33}, desc="bias_kv_zero_attn_attn_mask"),
    S("MultiheadAttention", (), {"embed_dim": 4, "num_heads": 2, "batch_first": True},
      [f(2, 3, 4), f(2, 5, 4), f(2, 5, 4)], {"average_attn_weights": False},
      desc="batched_per_head_weights"),
    S("TransformerEncoderLayer", (4, 2, 16, 0.0), inputs=[f(2, 3, 4)], desc="relu_activation"),
    S("TransformerEncoderLayer", (4, 2, 8, 0.0, ("fn", "gelu")), inputs=[f(2, 3, 4)],
      desc="gelu_activation"),
    S("TransformerEncoderLayer", (4, 2, 8, 0.0), {"bias": False}, [f(2, 3, 4)], desc="no_bias"),
    S("TransformerEncoderLayer", (), {"d_model": 4, "nhead": 2, "dim_feedforward": 8,
                                      "dropout": 0.0, "batch_first": True, "norm_first": True},
      [f(3, 4)], {"src_mask": AM3, "src_key_padding_mask": KPM},
      desc="no_batch_dim_norm_first_masks"),
    S("TransformerDecoderLayer", (4, 2, 16, 0.0), inputs=[f(2, 3, 4), f(2, 3, 4)],
      desc="relu_activation"),
    S("TransformerDecoderLayer", (4, 2, 8, 0.0, ("fn", "gelu")), inputs=[f(2, 3, 4), f(2, 3, 4)],
      desc="gelu_activation"),
    S("TransformerDecoderLayer", (), {"d_model": 4, "nhead": 2, "dim_feedforward": 8,
                                      "dropout": 0.0, "norm_first": True, "bias": False},
      [f(3, 4), f(3, 4)], {"tgt_mask": AM3, "tgt_key_padding_mask": KPM},
      desc="no_batch_dim_norm_first_masks"),
    S("Transformer", (), {"d_model": 4, "nhead": 2, "dim_feedforward": 8,
                          "num_encoder_layers": 1, "num_decoder_layers": 1, "dropout": 0.0},
      [f(3, 4), f(3, 4)], desc="no_batch_dim"),
    S("Transformer", (), {"d_model": 4, "nhead": 2, "dim_feedforward": 8,
                          "num_encoder_layers": 1, "num_decoder_layers": 1, "dropout": 0.0,
                          "batch_first": True, "norm_first": True},
      [f(2, 3, 4), f(2, 3, 4)],
      {"src_mask": AM3, "tgt_mask": AM3, "src_key_padding_mask": ("lit", [[False] * 3] * 2, bool),
       "tgt_key_padding_mask": ("lit", [[False, False, True]] * 2, bool)},
      desc="batch_first_norm_first_masks"),
    # activations
    S("ReLU", inputs=[f(*ACT)]),
    S("GELU", inputs=[f(*ACT)]),
    S("GELU", (), {"approximate": "tanh"}, [f(*ACT)], desc="tanh"),
    S("SiLU", inputs=[f(*ACT)]),
    S("Mish", inputs=[f(*ACT)]),
    S("ELU", (2.,), inputs=[f(3, 2, 5)]),
    S("ELU", (2.,), inputs=[f()], desc="scalar"),
    S("CELU", (2.,), inputs=[f(3, 2, 5)]),
    S("SELU", inputs=[f(3, 2, 5)]),
    S("Hardswish", inputs=[f(*ACT)]),
    S("Hardtanh", inputs=[f(*ACT)]),
    S("Hardtanh", inputs=[f()], desc="scalar"),
    S("Hardtanh", (-2., 3.), inputs=[f(*ACT)], desc="min_max"),
    S("LeakyReLU", inputs=[f(3, 2, 5)]),
    S("LeakyReLU", (0.5,), inputs=[f(3, 2, 5)], desc="with_negval"),
    S("PReLU", inputs=[f(2, 3, 4)]),
    S("PReLU", inputs=[f()], desc="scalar"),
    S("PReLU", (3,), inputs=[f(2, 3, 4, 5, 6)], desc="3d_multiparam"),
    S("PReLU", (3,), inputs=[f(2, 3, 4)], desc="num_parameters"),
    S("Softmax", (1,), inputs=[f(10, 20)]),
    S("Softmax", (0,), inputs=[f(20)], desc="no_batch_dim"),
    S("LogSoftmax", (1,), inputs=[f(10, 20)]),
    S("LogSoftmax", (1,), inputs=[f(1, 3, 10, 20)], desc="multiparam"),
    S("Softplus", inputs=[f(10, 20)]),
    S("Softplus", (2,), inputs=[f(10, 20)], desc="beta"),
    S("Softplus", (2, -100), inputs=[f(10, 20)], desc="beta_threshold"),
    S("Softplus", (2, -100), inputs=[f()], desc="beta_threshold_scalar"),
    S("Tanh", inputs=[f(2, 3, 4, 5)]),
    S("Sigmoid", inputs=[f(2, 3, 4, 5)]),
    S("Threshold", (2., 1.), inputs=[f(2, 3, 4, 5)]),
    S("Threshold", (2., 10.), inputs=[f(2, 3, 4, 5)], desc="threshold_value"),
    S("Threshold", (2., 1.), inputs=[f()], desc="threshold_value_scalar"),
    # pools
    S("MaxPool1d", (4,), inputs=[f(2, 10, 4)]),
    S("MaxPool1d", (3, 2, 1), {"ceil_mode": True}, [f(3, 13)], desc="ceil_mode_no_batch_dim"),
    S("MaxPool2d", ((3, 3), (2, 2), (1, 1)), inputs=[f(3, 7, 7)], desc="3d_input"),
    S("MaxPool2d", ((3, 3), (2, 2), (1, 1)), {"return_indices": True}, [f(1, 3, 7, 7)],
      desc="return_indices"),
    S("AvgPool1d", (2,), inputs=[f(3, 6)], desc="no_batch_dim"),
    S("AvgPool1d", (4, 2, 1), {"count_include_pad": False}, [f(2, 3, 9)],
      desc="stride_pad_no_count_pad"),
    S("AvgPool2d", ((2, 2),), inputs=[f(3, 6, 6)], desc="no_batch_dim"),
    S("AvgPool2d", ((2, 2), (2, 2), (1, 1)), {"divisor_override": 1}, [f(2, 3, 6, 6)],
      desc="divisor_stride_pad"),
    S("AvgPool2d", ((3, 3), (2, 2), (1, 1)), {"ceil_mode": True, "count_include_pad": False},
      [f(1, 3, 6, 6)], desc="ceil_mode_no_count_pad"),
    S("AdaptiveAvgPool2d", (3,), inputs=[f(1, 3, 5, 6)], desc="single"),
    S("AdaptiveAvgPool2d", ((3, 4),), inputs=[f(1, 3, 5, 6)], desc="tuple"),
    S("AdaptiveAvgPool2d", ((None, 4),), inputs=[f(1, 3, 5, 6)], desc="tuple_none"),
    S("AdaptiveMaxPool2d", (3,), inputs=[f(1, 3, 5, 6)], desc="single"),
    S("AdaptiveMaxPool2d", ((3, 4),), inputs=[f(3, 5, 6)], desc="tuple_no_batch_dim"),
    S("LPPool2d", (2, 3), inputs=[f(1, 3, 7, 7)]),
    S("LPPool2d", (2, 2, 2), inputs=[f(3, 7, 7)], desc="no_batch_dim"),
    S("LPPool2d", (1.5, 2), inputs=[("pos", (1, 3, 7, 7))], desc="norm"),
    # shape / misc
    S("Dropout", (0.5,), inputs=[f(2, 3, 4)], eval_only=True, desc="eval"),
    S("Flatten", inputs=[f(2, 3, 4, 5)]),
    S("Flatten", (1, 2), inputs=[f(2, 3, 4, 5)], desc="start_end"),
    S("Unflatten", (1, (2, 2)), inputs=[f(2, 4, 3)]),
    S("PixelShuffle", (2,), inputs=[f(1, 8, 3, 3)]),
    S("Upsample", (), {"scale_factor": 2, "mode": "nearest"}, [f(1, 2, 3, 3)], desc="nearest"),
    S("Upsample", (), {"scale_factor": 2, "mode": "bilinear", "align_corners": False},
      [f(1, 2, 3, 3)], desc="bilinear"),
    S("Upsample", (), {"size": (5, 4), "mode": "bilinear", "align_corners": True},
      [f(1, 2, 3, 3)], desc="bilinear_size_align_corners"),
    S("ZeroPad2d", ((1, 2, 0, 3),), inputs=[f(2, 3, 4, 4)]),
    S("ZeroPad2d", (2,), inputs=[f(3, 4, 4)], desc="no_batch_dim"),
    S("ReflectionPad2d", ((1, 2, 2, 1),), inputs=[f(2, 3, 4, 4)]),
    S("ReflectionPad2d", (2,), inputs=[f(3, 4, 4)], desc="no_batch_dim"),
    # losses
    S("L1Loss", inputs=[f(2, 3, 4), t(2, 3, 4)]),
    S("L1Loss", inputs=[f(), f()], desc="scalar"),
    S("L1Loss", (), {"reduction": "none"}, [f(2, 3, 4), t(2, 3, 4)], desc="reduction_none"),
    S("MSELoss", inputs=[f(2, 3, 4), t(2, 3, 4)]),
    S("MSELoss", (), {"reduction": "sum"}, [f(2, 3, 4), t(2, 3, 4)], desc="reduction_sum"),
    S("CrossEntropyLoss", inputs=[f(4, 5), long_((4,), 0, 5)]),
    S("CrossEntropyLoss", (), {"ignore_index": 1, "label_smoothing": 0.15, "reduction": "mean"},
      [f(2, 3, 5, 5), long_((2, 5, 5), 0, 3)], desc="4d_ignore_index_label_smoothing_mean"),
    S("CrossEntropyLoss", (), {"weight": ("pos", (3,)), "reduction": "none"},
      [f(2, 3, 5, 5, 2, 2), long_((2, 5, 5, 2, 2), 0, 3)], desc="higher_dim_weights_none"),
    S("CrossEntropyLoss", (), {"label_smoothing": 0.15, "weight": ("pos", (3,))},
      [f(5, 3, 4, 2), ("sm", (5, 3, 4, 2), 1)], desc="4d_prob_target_weights_smoothing"),
    S("CrossEntropyLoss", (), {"weight": ("pos", (5,)), "ignore_index": 1,
                               "reduction": "sum"},
      [f(4, 5), long_((4,), 0, 5)], desc="weight_ignore_index_sum"),
    S("CrossEntropyLoss", (), {"label_smoothing": 0.15}, [f(4, 5, 3), long_((4, 3), 0, 5)],
      desc="label_smoothing_2d"),
    S("CrossEntropyLoss", (), {"reduction": "none"}, [f(4, 5), ("sm", (4, 5), 1)],
      desc="prob_target_none"),
    S("NLLLoss", inputs=[("ls", (15, 4), 1), long_((15,), 0, 4)]),
    S("NLLLoss", (), {"weight": ("pos", (4,)), "ignore_index": 2},
      [("ls", (15, 4), 1), long_((15,), 0, 4)], desc="weights_ignore_index"),
    S("NLLLoss", (), {"reduction": "none"}, [("ls", (3, 4, 5), 1), long_((3, 5), 0, 4)],
      desc="reduction_none_2d"),
    S("BCELoss", inputs=[("prob", (15, 10)), ("tprob", (15, 10))]),
    S("BCELoss", (), {"reduction": "none"}, [("prob", (15, 10)), ("lit", [[0., 1.] * 5] * 15,
                                                                   np.float64)],
      desc="binary_target_none"),
    S("BCELoss", (), {"weight": ("pos", (10,)), "reduction": "sum"},
      [("prob", (15, 10)), ("tprob", (15, 10))], desc="weight_sum"),
    S("BCEWithLogitsLoss", inputs=[f(15, 10), ("tprob", (15, 10))]),
    S("BCEWithLogitsLoss", (), {"pos_weight": ("pos", (10,)), "weight": ("pos", (10,))},
      [f(15, 10), ("tprob", (15, 10))], desc="pos_weight_weight"),
    S("HuberLoss", inputs=[f(5, 10), t(5, 10)]),
    S("HuberLoss", (), {"delta": 0.5, "reduction": "none"}, [f(5, 10), t(5, 10)],
      desc="delta_none"),
    S("SmoothL1Loss", inputs=[f(5, 10), t(5, 10)]),
    S("SmoothL1Loss", (), {"beta": 0.5, "reduction": "sum"}, [f(5, 10), t(5, 10)],
      desc="beta_sum"),
    S("KLDivLoss", (), {"reduction": "batchmean"}, [("ls", (10, 10), 1), ("tprob", (10, 10))],
      desc="batchmean"),
    S("KLDivLoss", (), {"log_target": True}, [("ls", (10, 10), 1), ("ls", (10, 10), 1)],
      desc="log_target"),
    S("CTCLoss", inputs=[("ls", (12, 3, 5), 2), long_((3, 4), 1, 5),
                         ("lit", [12, 10, 9], np.int64), ("lit", [4, 3, 2], np.int64)]),
    S("CTCLoss", (), {"reduction": "sum", "zero_infinity": True},
      [("ls", (12, 3, 5), 2), long_((3, 4), 1, 5), ("lit", [12, 10, 3], np.int64),
       ("lit", [4, 3, 3], np.int64)], desc="sum_zero_infinity"),
    S("CTCLoss", (), {"blank": 14},
      [("ls", (50, 3, 15), 2), long_((3, 30), 0, 14), ("list", [50, 50, 50]),
       ("list", [30, 25, 20])], desc="blank_lengths_intlists"),
    S("CTCLoss", (), {"reduction": "none"},
      [("ls", (50, 3, 15), 2), long_((75,), 1, 15), ("lit", [50, 50, 50], np.int64),
       ("lit", [30, 25, 20], np.int64)], desc="reduction_none_1d_target_lengths_tensors"),
    S("TripletMarginLoss", inputs=[f(5, 10), f(5, 10), f(5, 10)]),
    S("TripletMarginLoss", (), {"margin": 2., "p": 1, "swap": True, "reduction": "none"},
      [f(5, 10), f(5, 10), f(5, 10)], desc="margin_p_swap_none"),
    S("MarginRankingLoss", inputs=[f(15), f(15), ("sign", (15,))]),
    S("MarginRankingLoss", (), {"margin": 0.5, "reduction": "sum"},
      [f(15), f(15), ("sign", (15,))], desc="margin_sum"),
    S("CosineEmbeddingLoss", inputs=[f(15, 10), f(15, 10), ("sign", (15,))]),
    S("CosineEmbeddingLoss", (), {"margin": 0.7, "reduction": "none"},
      [f(15, 10), f(15, 10), ("sign", (15,))], desc="margin_none"),
    S("PoissonNLLLoss", inputs=[f(4, 3), ("tpos", (4, 3))]),
    S("PoissonNLLLoss", (), {"log_input": False, "full": True},
      [("pos", (4, 3)), ("tpos", (4, 3))], desc="no_log_input_full"),
    S("GaussianNLLLoss", inputs=[f(4, 3), t(4, 3), ("pos", (4, 1))]),
    S("GaussianNLLLoss", (), {"reduction": "none"}, [f(4, 3), t(4, 3), ("pos", (1, 3))],
      desc="homoscedastic_none"),
]

IDS = [s.id for s in SAMPLES]
assert len(set(IDS)) == len(IDS), [i for i in IDS if IDS.count(i) > 1]

# module classes whose train and eval modes compute different things (torch's
# ModuleInfo.train_and_eval_differ)
TRAIN_EVAL_DIFFER = {"BatchNorm1d", "BatchNorm2d", "InstanceNorm1d", "InstanceNorm2d",
                     "Dropout", "MultiheadAttention", "TransformerEncoderLayer",
                     "TransformerDecoderLayer", "Transformer", "RNN", "GRU", "LSTM"}
# torch's ModuleInfo.has_inplace_variant
INPLACE = {"ReLU", "ELU", "CELU", "SELU", "Hardswish", "Hardtanh", "LeakyReLU", "SiLU", "Mish",
           "Threshold", "Dropout"}
# modules torch runs test_memory_format on with 4-d inputs (channels_last)
# (torch skips InstanceNorm2d: "No channels_last support for InstanceNorm2d currently")
MEMORY_FORMAT = {"Conv2d", "ConvTranspose2d", "BatchNorm2d", "GroupNorm",
                 "MaxPool2d", "AvgPool2d", "AdaptiveAvgPool2d", "AdaptiveMaxPool2d", "LPPool2d",
                 "ReLU", "GELU", "SiLU", "Hardswish", "Upsample", "PixelShuffle", "ZeroPad2d",
                 "ReflectionPad2d"}


# ------------------------------------------------------------------ building

def _is_spec(spec):
    return isinstance(spec, tuple) and bool(spec) and isinstance(spec[0], str)


def _gen(spec, rng):
    """A spec -> numpy value (the same value feeds torch and pyad)."""
    if not _is_spec(spec):
        return spec                     # a plain value (a flag) passed as it is
    kind = spec[0]
    if kind == "tuple":
        return tuple(_gen(s, rng) for s in spec[1:])
    if kind == "list":
        return list(spec[1])
    if kind == "lit":
        return np.asarray(spec[1], dtype=spec[2])
    if kind == "long":
        return rng.integers(spec[2], spec[3], size=spec[1]).astype(np.int64)
    shape = spec[1]
    x = rng.uniform(-9, 9, size=shape)
    if kind in ("pos", "tpos"):
        x = np.abs(x) + 0.1
    elif kind in ("prob", "tprob"):
        x = rng.uniform(0.05, 0.95, size=shape)
    elif kind in ("ls", "sm"):
        x = torch.tensor(x)
        x = (x.log_softmax(spec[2]) if kind == "ls" else x.softmax(spec[2])).numpy()
    elif kind == "sign":
        x = np.sign(x)
        x[x == 0] = 1.
    return x


def _grad_kind(spec):
    return spec is not None and spec[0] in ("f", "pos", "prob", "ls")


def _conv(spec, val, fw, noncontig=False):
    """numpy value -> a torch tensor or pyad Variable (requires_grad per the spec)."""
    if not _is_spec(spec):
        return spec
    if spec[0] == "tuple":
        return tuple(_conv(s, v, fw, noncontig) for s, v in zip(spec[1:], val))
    if spec[0] == "list":
        return list(val)
    rg = _grad_kind(spec)
    if noncontig and val.size and val.ndim and val.dtype.kind == "f":
        # torch's _make_noncontiguous: every other element of a doubled last dim
        val = np.repeat(val, 2, axis=-1)[..., ::2]
        assert not val.flags.c_contiguous
        if fw is pyad:
            return pyad.Variable(val, requires_grad=rg)
        return torch.from_numpy(val).requires_grad_(rg)
    if fw is pyad:
        return pyad.tensor(val.copy(), requires_grad=rg)
    return torch.tensor(val.copy(), requires_grad=rg)


def _ctor_value(v, fw, rng):
    if isinstance(v, tuple) and v and v[0] == "fn":
        return getattr(tF if fw is torch else pF, v[1])
    if isinstance(v, tuple) and v and isinstance(v[0], str) and v[0] in (
            "f", "pos", "prob", "t", "tpos", "tprob"):
        return _conv(("t",) + v[1:], _gen(v, rng), fw)   # class weights: no grad
    return v


def _ctor(s, fw, seed=1):
    rng = np.random.default_rng(seed)
    args = [_ctor_value(a, fw, rng) for a in s.args]
    rng = np.random.default_rng(seed)
    kw = {k: _ctor_value(v, fw, rng) for k, v in s.kw.items()}
    return args, kw


def _modules(s, training=True):
    torch.manual_seed(0)
    targs, tkw = _ctor(s, torch)
    pargs, pkw = _ctor(s, pyad)
    tm = getattr(tnn, s.name)(*targs, **tkw)
    pm = getattr(pnn, s.name)(*pargs, **pkw)
    tm, pm = twin(tm, pm)
    training = training and not s.eval_only
    tm.train(training)
    pm.train(training)
    return tm, pm


def _inputs(s, seed=0):
    rng = np.random.default_rng(seed)
    return [_gen(spec, rng) for spec in s.inputs], {k: _gen(v, rng) for k, v in s.fkw.items()}


def _args(s, vals, fkw_vals, fw, noncontig=False):
    args = [_conv(spec, v, fw, noncontig) for spec, v in zip(s.inputs, vals)]
    fkw = {k: _conv(s.fkw[k], v, fw) for k, v in fkw_vals.items()}
    return args, fkw


def _leaves(args):
    out = []
    for a in args:
        if isinstance(a, tuple):
            out.extend(_leaves(a))
        elif isinstance(a, (torch.Tensor, pyad.Variable)) and a.requires_grad:
            out.append(a)
    return out


def _np(x):
    return x.detach().numpy() if isinstance(x, torch.Tensor) else np.asarray(x.detach().data)


def _run(m, args, fkw, fw, seed=2):
    """Forward, then backward of a fixed random weighting of every float output; returns
    (outputs as arrays, gradients of the input leaves, gradients of the parameters)."""
    outs = [o for o in _flat(m(*args, **fkw)) if o is not None]
    rng = np.random.default_rng(seed)
    loss = None
    for o in outs:
        if o.requires_grad:
            w = rng.standard_normal(tuple(o.shape))
            term = (o * (torch.tensor(w) if fw is torch else pyad.tensor(w))).sum()
            loss = term if loss is None else loss + term
    if loss is not None:
        loss.backward()

    def g(x):
        return None if x.grad is None else _np(x.grad)
    return ([_np(o) for o in outs], [g(x) for x in _leaves(args)],
            [(n, g(p)) for n, p in m.named_parameters()])


def _assert_same(p_res, t_res, what=""):
    p_outs, p_ig, p_pg = p_res
    t_outs, t_ig, t_pg = t_res
    assert len(p_outs) == len(t_outs), what
    for i, (p, t_) in enumerate(zip(p_outs, t_outs)):
        assert p.shape == t_.shape, (what, "output", i, p.shape, t_.shape)
        np.testing.assert_allclose(p, t_, atol=ATOL, rtol=RTOL, err_msg=f"{what} output {i}")
    for i, (p, t_) in enumerate(zip(p_ig, t_ig)):
        if t_ is None:
            assert p is None or not np.any(p), (what, "input grad", i)
        else:
            assert p is not None, (what, "input grad", i)
            np.testing.assert_allclose(p, t_, atol=ATOL, rtol=RTOL,
                                       err_msg=f"{what} grad of input {i}")
    assert [n for n, _ in p_pg] == [n for n, _ in t_pg]
    for (n, p), (_, t_) in zip(p_pg, t_pg):
        if t_ is None:
            assert p is None or not np.any(p), (what, n)
        else:
            assert p is not None, (what, n)
            np.testing.assert_allclose(p, t_, atol=ATOL, rtol=RTOL, err_msg=f"{what} grad of {n}")


def _compare(s, training=True, noncontig=False, memory_format=None):
    tm, pm = _modules(s, training)
    vals, fvals = _inputs(s)
    targs, tfkw = _args(s, vals, fvals, torch)
    pargs, pfkw = _args(s, vals, fvals, pyad, noncontig)
    if memory_format is not None:
        targs = [a.detach().contiguous(memory_format=torch.channels_last).requires_grad_()
                 for a in targs]
        pargs = [a.detach().contiguous(memory_format=pyad.channels_last).requires_grad_()
                 for a in pargs]
        tm = tm.to(memory_format=torch.channels_last)
        pm = pm.to(memory_format=pyad.channels_last)
    _assert_same(_run(pm, pargs, pfkw, pyad), _run(tm, targs, tfkw, torch), s.id)
    # the buffers (running statistics) after the forward are torch's too
    t_bufs = dict(tm.named_buffers())
    p_bufs = dict(pm.named_buffers())
    assert sorted(p_bufs) == sorted(t_bufs)
    for name, b in t_bufs.items():
        np.testing.assert_allclose(_np(p_bufs[name]), _np(b), atol=ATOL, rtol=RTOL,
                                   err_msg=name)
    return tm, pm, targs, pargs, tfkw, pfkw


# ------------------------------------------------------------------ xfails
# sample id (or module name) -> reason, for each test that cannot pass yet
XFAIL = {}


def _param(ids_filter=None, test=None):
    out = []
    for s in SAMPLES:
        if ids_filter is not None and not ids_filter(s):
            continue
        reason = XFAIL.get((test, s.id)) or XFAIL.get((test, s.name))
        marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
        out.append(pytest.param(s, id=s.id, marks=marks))
    return out


# ------------------------------------------------------------------ the tests

@pytest.mark.parametrize("training", [True, False], ids=["train", "eval"])
@pytest.mark.parametrize("s", _param(test="forward"))
def test_forward(s, training):
    _compare(s, training=training)


def _has_factory_kwargs(s):
    import inspect
    return "dtype" in inspect.signature(getattr(tnn, s.name).__init__).parameters


@pytest.mark.parametrize("s", _param(_has_factory_kwargs, test="factory_kwargs"))
def test_factory_kwargs(s):
    # the module's parameters and buffers follow dtype= / device= factory kwargs
    args, kw = _ctor(s, pyad)
    for dtype in (pyad.float64, pyad.float32):
        m = getattr(pnn, s.name)(*args, **kw, dtype=dtype, device="cpu")
        for name, p in m.named_parameters():
            assert isinstance(p, pnn.Parameter), name
            assert p.dtype == dtype and p.device.type == "cpu", (name, p.dtype)
        for name, b in m.named_buffers():
            if b is not None and np.dtype(b.dtype).kind == "f":
                assert b.dtype == dtype, (name, b.dtype)


@pytest.mark.parametrize("s", _param(test="repr"))
def test_repr(s):
    tm, pm = _modules(s)
    # torch's test only calls repr/str; we also ask for torch's text
    assert repr(pm) == repr(tm)
    assert str(pm) == str(tm)


@pytest.mark.parametrize("s", _param(test="save_load"))
def test_save_load(s):
    tm, pm = _modules(s)
    vals, fvals = _inputs(s)
    pargs, pfkw = _args(s, vals, fvals, pyad)
    with pyad.no_grad():
        before = [_np(o) for o in _flat(pm(*pargs, **pfkw)) if o is not None]
    # pickle round trip (torch.save/torch.load of the whole module)
    pm2 = pickle.loads(pickle.dumps(pm))
    assert type(pm2) is type(pm)
    # state_dict round trip into a fresh module
    args, kw = _ctor(s, pyad)
    pm3 = getattr(pnn, s.name)(*args, **kw).double()
    pm3.load_state_dict(pickle.loads(pickle.dumps(pm.state_dict())))
    pm3.train(pm.training)
    for m in (pm2, pm3):
        with pyad.no_grad():
            after = [_np(o) for o in _flat(m(*pargs, **pfkw)) if o is not None]
        assert len(after) == len(before)
        for a, b in zip(after, before):
            np.testing.assert_allclose(a, b, atol=ATOL, rtol=RTOL)


@pytest.mark.parametrize("s", _param(lambda s: s.name in INPLACE, test="check_inplace"))
def test_check_inplace(s):
    # the inplace=True variant gives the same output and gradients as inplace=False and
    # modifies its input (torch's test_check_inplace)
    vals, fvals = _inputs(s)
    x = pyad.tensor(vals[0], requires_grad=True)
    args, kw = _ctor(s, pyad)
    m_op = getattr(pnn, s.name)(*args, **kw).double()
    m_ip = getattr(pnn, s.name)(*args, **kw, inplace=True).double()
    if s.eval_only:
        m_op.eval()
        m_ip.eval()
    out_op = m_op(x)
    x_ip = x.clone()
    v = x_ip._version
    out_ip = m_ip(x_ip)
    np.testing.assert_allclose(_np(out_ip), _np(out_op), atol=ATOL, rtol=RTOL)
    if not s.eval_only:
        assert x_ip._version > v
        np.testing.assert_allclose(_np(x_ip), _np(out_ip))
    g = np.random.default_rng(3).standard_normal(vals[0].shape)
    gx_op, = pyad.autograd.grad(out_op, x, pyad.tensor(g))
    gx_ip, = pyad.autograd.grad(out_ip, x, pyad.tensor(g))
    np.testing.assert_allclose(_np(gx_ip), _np(gx_op), atol=ATOL, rtol=RTOL)


@pytest.mark.parametrize("s", _param(
    lambda s: any(sp is not None and sp[0] != "long" and len(sp[1]) > 0 for sp in s.inputs
                  if sp is not None and sp[0] not in ("tuple", "lit")),
    test="non_contiguous"))
def test_non_contiguous_tensors(s):
    _compare(s, noncontig=True)


def _gradcheck_fn(s, pm, pargs, pfkw):
    leaves = _leaves(pargs)
    params = [p for p in pm.parameters() if p.requires_grad]

    def fn(*flat):
        # gradcheck perturbs the Variables it is given in place: the leaves of the
        # inputs and the module's own parameters
        outs = [o for o in _flat(pm(*pargs, **pfkw)) if o is not None and o.requires_grad]
        return tuple(outs)
    return fn, tuple(leaves) + tuple(params)


# large samples gradgradcheck (torch runs it too) only in fast mode here, to keep the file
# inside the suite's time budget
_BIG = {"Transformer", "TransformerDecoderLayer", "TransformerEncoderLayer", "LSTM", "GRU",
        "RNN", "Conv3d", "MultiheadAttention", "CTCLoss"}


def _gradchecked(s):
    # torch's ModuleInfo skips test_grad/test_gradgrad for CTCLoss ("derivative for
    # aten::_ctc_loss_backward is not implemented": its backward assumes normalised
    # log-probabilities, so finite differences of free log_probs disagree); pyad uses
    # torch's formula (test_forward checks its gradient equals torch's).  A padding_idx
    # row of Embedding gets a zero gradient by design, not the mathematical one.
    return s.name != "CTCLoss" and "padding_idx" not in s.kw


@pytest.mark.parametrize("s", _param(_gradchecked, test="grad"))
def test_grad(s):
    _, pm = _modules(s)
    vals, fvals = _inputs(s)
    pargs, pfkw = _args(s, vals, fvals, pyad)
    fn, inputs = _gradcheck_fn(s, pm, pargs, pfkw)
    if not inputs:
        pytest.skip("no differentiable input or parameter")
    assert gradcheck(fn, inputs, fast_mode=s.name in _BIG)


@pytest.mark.parametrize("s", _param(_gradchecked, test="gradgrad"))
def test_gradgrad(s):
    _, pm = _modules(s)
    vals, fvals = _inputs(s)
    pargs, pfkw = _args(s, vals, fvals, pyad)
    fn, inputs = _gradcheck_fn(s, pm, pargs, pfkw)
    if not inputs:
        pytest.skip("no differentiable input or parameter")
    assert gradgradcheck(fn, inputs, fast_mode=s.name in _BIG)


@pytest.mark.parametrize("s", _param(
    lambda s: s.name in MEMORY_FORMAT and s.inputs[0][0] != "long"
    and len(s.inputs[0][1]) == 4, test="memory_format"))
def test_memory_format(s):
    tm, pm, targs, pargs, tfkw, pfkw = _compare(s, memory_format=True)
    # the output keeps channels_last where torch's does
    with torch.no_grad():
        t_out = _flat(tm(*targs, **tfkw))[0]
    with pyad.no_grad():
        p_out = _flat(pm(*pargs, **pfkw))[0]
    if t_out.dim() == 4:
        assert (p_out.is_contiguous(memory_format=pyad.channels_last)
                == t_out.is_contiguous(memory_format=torch.channels_last))


@pytest.mark.parametrize("s", _param(test="train_eval"))
def test_if_train_and_eval_modes_differ(s):
    if s.name in TRAIN_EVAL_DIFFER:
        # both modes compute what torch's do (dropout is 0 in these samples)
        if not s.eval_only:
            _compare(s, training=True)
        _compare(s, training=False)
    else:
        # torch: a module whose modes do not differ gives the same output in both
        _, pm = _modules(s)
        vals, fvals = _inputs(s)
        pargs, pfkw = _args(s, vals, fvals, pyad)
        with pyad.no_grad():
            a = [_np(o) for o in _flat(pm(*pargs, **pfkw))]
            pm.eval()
            b = [_np(o) for o in _flat(pm(*pargs, **pfkw))]
        for x, y in zip(a, b):
            np.testing.assert_array_equal(x, y)


@pytest.mark.parametrize("s", _param(test="to_empty"))
def test_to_empty(s):
    _, pm = _modules(s)
    before = {n: (tuple(p.shape), p.dtype) for n, p in pm.named_parameters()}
    bufs = {n: (tuple(b.shape), b.dtype) for n, b in pm.named_buffers() if b is not None}
    m = pm.to_empty(device="cpu")
    assert m is pm
    assert {n: (tuple(p.shape), p.dtype) for n, p in pm.named_parameters()} == before
    assert {n: (tuple(b.shape), b.dtype) for n, b in pm.named_buffers() if b is not None} == bufs
    for n, p in pm.named_parameters():
        assert isinstance(p, pnn.Parameter) and p.requires_grad, n


# ------------------------------------------------------------------ test_errors

class E:
    """module_error_inputs_*: constructor args, forward inputs (None: a construction
    error), torch's error regex."""

    def __init__(self, name, args=(), kw=None, inputs=None, regex="", desc="", pregex=None):
        self.name, self.args, self.kw = name, tuple(args), dict(kw or {})
        self.inputs, self.regex, self.desc = inputs, regex, desc
        # pyad words some messages its own way ("op(): ...", the values named); pregex
        # then says what pyad's message must name
        self.pregex = pregex or regex


ERRORS = [
    E("BatchNorm1d", (10,), {"eps": -1.0}, [f(2, 10)], "eps must be positive", "eps_negative"),
    E("BatchNorm2d", (10,), {"eps": 0.0}, [f(2, 10, 5, 5)], "eps must be positive", "eps_zero"),
    E("GroupNorm", (3, 10), regex=r"num_channels \(10\) must be divisible by num_groups \(3\)"),
    E("GroupNorm", (5, 13), regex=r"num_channels \(13\) must be divisible by num_groups \(5\)",
      desc="13_5"),
    E("Embedding", (), {"num_embeddings": 10, "embedding_dim": 3},
      [("lit", [0, 5, 15], np.int64)], r"index out of range", "index_out_of_range",
      pregex=r"index 15 is out of range for a weight of 10 rows"),
    E("Embedding", (), {"num_embeddings": 10, "embedding_dim": 3},
      [("lit", [1.5, 2.5], np.float32)],
      r"Expected tensor for argument.*indices.*to have.*scalar type.*Long.*Int", "float_indices",
      pregex=r"indices must be an integer Variable, got dtype float32"),
    E("Embedding", (), {"num_embeddings": -1, "embedding_dim": 3},
      regex=r"negative dimension", desc="negative_num_embeddings",
      pregex=r"must be non-negative, got -1"),
    E("RNNCell", (10, 20), inputs=[f(3, 11), f(3, 20)],
      regex="input has inconsistent input_size: got 11 expected 10", desc="input_size"),
    E("GRUCell", (10, 20), inputs=[f(3, 10), f(3, 21)],
      regex="hidden0 has inconsistent hidden_size: got 21, expected 20", desc="hidden_size",
      pregex="hidden has inconsistent hidden_size: got 21, expected 20"),
    E("RNNCell", (10, 20), inputs=[f(3, 10), f(5, 20)],
      regex="Input batch size 3 doesn't match hidden0 batch size 5", desc="batch",
      pregex="Input batch size 3 doesn't match hidden batch size 5"),
    E("GRUCell", (10, 20), inputs=[f(3, 10), f(3, 1, 1, 20)],
      regex="Expected hidden to be 1D or 2D, got 4D instead", desc="hidden_4d"),
    E("LSTMCell", (10, 20), inputs=[f(3, 11), ("tuple", f(3, 20), f(3, 20))],
      regex="input has inconsistent input_size: got 11 expected 10", desc="input_size"),
    E("LSTMCell", (10, 20), inputs=[f(3, 10), ("tuple", f(5, 20), f(5, 20))],
      regex="Input batch size 3 doesn't match hidden0 batch size 5", desc="batch",
      pregex=r"Input batch size 3 doesn't match hx\[0\] batch size 5"),
    E("LSTMCell", (10, 20), inputs=[f(3, 10), ("tuple", f(3, 1, 1, 20), f(3, 1, 1, 20))],
      regex=r"Expected hx\[0\] to be 1D or 2D, got 4D instead", desc="hidden_4d"),
    E("GRU", (10, 0, 1), regex="hidden_size must be greater than zero", desc="hidden_size"),
    E("LSTM", (10, 10, 0), regex="num_layers must be greater than zero", desc="num_layers"),
    E("RNN", (3, 5), {"bias": 1}, regex="bias should be of type bool, got: int", desc="bias"),
    E("MaxPool2d", (2,), inputs=[f(3, 4)],
      regex=r"non-empty 3D or 4D \(batch mode\) tensor expected for input", desc="2d_input",
      pregex=r"expected a 3D \(unbatched\) or 4D \(batched\) input, got 2D"),
    E("MaxPool2d", (3,), {"padding": 5}, [f(1, 1, 10, 10)],
      regex=r"pad should be at most half of effective kernel size", desc="pad",
      pregex=r"pad should be at most half of the kernel size.*padding=\(5, 5\)"),
    # module_error_inputs_torch_nn_Pad2d is torch's for CircularPad2d; ReflectionPad2d
    # raises in F.pad
    E("CircularPad2d", (3,), inputs=[f(2, 3)], regex=r"expected 3D or 4D input \(got 2D input\)"),
    E("ReflectionPad2d", (3,), inputs=[f(2, 3)],
      regex=r"Padding size 4 is not supported for 2D input"),
    E("HuberLoss", (), {"delta": 1.0 + 0.0j},
      regex=r"delta must be a float or int, got: <class 'complex'>"),
    E("CrossEntropyLoss", inputs=[f(2, 3), f(2)],
      regex="expected target dtype to be Long or Byte", desc="float_index_target"),
    E("CrossEntropyLoss", inputs=[f(2, 3), ("lit", [0, 1, 2], np.int64)],
      regex="Expected input batch_size .* to match target batch_size", desc="batch_size",
      pregex=r"expected input batch_size \(2\) to match target batch_size \(3\)"),
    E("CrossEntropyLoss", (), {"weight": ("pos", (2,))}, [f(2, 3), ("lit", [0, 1], np.int64)],
      regex="weight tensor should be defined either for all .* classes or no classes",
      desc="weight_size", pregex="weight should be defined either for all 3 classes or no "
      r"classes but got a weight of shape \(2,\)"),
    E("CrossEntropyLoss", (), {"ignore_index": 1}, [f(2, 3), ("sm", (2, 3), 1)],
      regex="ignore_index is not supported for floating point target", desc="ignore_index"),
    E("CrossEntropyLoss", (), {"label_smoothing": 1.5}, [f(2, 3), ("lit", [0, 1], np.int64)],
      regex="label_smoothing must be between 0.0 and 1.0", desc="label_smoothing"),
    E("CrossEntropyLoss", inputs=[f(2, 3, 5), long_((2, 4), 0, 3)],
      regex="Expected target size", desc="target_size",
      pregex=r"expected a target of shape \(2, 5\) for an input of shape \(2, 3, 5\), "
      r"got \(2, 4\)"),
]
ERROR_XFAIL = {}


def _eparams():
    out = []
    for e in ERRORS:
        eid = e.name + ("_" + e.desc if e.desc else "")
        reason = ERROR_XFAIL.get(eid)
        out.append(pytest.param(e, id=eid,
                                marks=[pytest.mark.xfail(strict=True, reason=reason)]
                                if reason else []))
    return out


def _raise(e, fw):
    rng = np.random.default_rng(1)
    args = [_ctor_value(a, fw, rng) for a in e.args]
    kw = {k: _ctor_value(v, fw, rng) for k, v in e.kw.items()}
    m = getattr(tnn if fw is torch else pnn, e.name)(*args, **kw)
    if e.inputs is None:
        return
    rng = np.random.default_rng(0)
    vals = [_gen(spec, rng) for spec in e.inputs]
    m.double()
    m(*[_conv(spec, v, fw) for spec, v in zip(e.inputs, vals)])


@pytest.mark.parametrize("e", _eparams())
def test_errors(e):
    with pytest.raises(Exception) as t_exc:
        _raise(e, torch)
    assert re.search(e.regex, str(t_exc.value)), str(t_exc.value)   # the sample is torch's
    with pytest.raises(Exception) as p_exc:
        _raise(e, pyad)
    assert issubclass(p_exc.type, t_exc.type), (p_exc.type, t_exc.type, str(p_exc.value))
    assert re.search(e.pregex, str(p_exc.value)), str(p_exc.value)
