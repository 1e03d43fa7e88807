"""``pyad.nn``: modules, parameters and initialisations as ``torch.nn``.

``pyad.nn.functional`` holds the functional ops; the modules here call them.
"""
from pyad.nn import functional, grad, init
from pyad.nn.parameter import Buffer, Parameter
from pyad.nn.modules import (
    Module, Sequential, ModuleList, Identity, Linear, Conv2d, MaxPool2d, ReLU, Tanh,
    Sigmoid, GELU, Softmax, LogSoftmax, LeakyReLU, ELU, CELU, SELU, SiLU, Mish, Softplus,
    Hardtanh, ReLU6, Hardsigmoid, Hardswish, LogSigmoid, Softsign, Tanhshrink, Softshrink,
    Hardshrink, Threshold, GLU, Dropout, LayerNorm, BatchNorm2d, Embedding, Flatten,
    Unflatten, CrossEntropyLoss, MSELoss, L1Loss, SmoothL1Loss, HuberLoss, BCELoss,
    BCEWithLogitsLoss, NLLLoss, KLDivLoss, MarginRankingLoss, HingeEmbeddingLoss,
    SoftMarginLoss, TripletMarginLoss, PoissonNLLLoss, GaussianNLLLoss, CosineEmbeddingLoss,
    MultiMarginLoss, PReLU, NLLLoss2d,
)
from pyad.nn.rnn import RNNBase, RNN, LSTM, GRU, RNNCellBase, RNNCell, LSTMCell, GRUCell
from pyad.nn.layers import (
    Conv1d, ConvTranspose2d, BatchNorm1d, GroupNorm, InstanceNorm1d, InstanceNorm2d,
    AvgPool1d, AvgPool2d, MaxPool1d, AdaptiveAvgPool1d, AdaptiveAvgPool2d, Upsample,
    UpsamplingNearest2d, UpsamplingBilinear2d, PixelShuffle, PixelUnshuffle, Dropout1d,
    Dropout2d, Bilinear, CosineSimilarity, PairwiseDistance, ModuleDict, ParameterList,
    ParameterDict, Unfold, Fold,
)
from pyad.nn.layers_extra import (
    ZeroPad1d, ZeroPad2d, ZeroPad3d, ConstantPad1d, ConstantPad2d, ConstantPad3d,
    ReflectionPad1d, ReflectionPad2d, ReflectionPad3d, ReplicationPad1d, ReplicationPad2d,
    ReplicationPad3d, CircularPad1d, CircularPad2d, CircularPad3d, Softmin, Softmax2d,
    RMSNorm, LocalResponseNorm, UninitializedParameter, LazyLinear, AdaptiveMaxPool1d,
    AdaptiveMaxPool2d, MaxUnpool1d, MaxUnpool2d, LPPool1d, LPPool2d, LPPool3d, ChannelShuffle,
    AlphaDropout, FeatureAlphaDropout, Dropout3d, RReLU, ConvTranspose1d, EmbeddingBag,
    MultiLabelMarginLoss, MultiLabelSoftMarginLoss, TripletMarginWithDistanceLoss, CTCLoss,
    Conv3d, ConvTranspose3d, MaxPool3d, AvgPool3d, AdaptiveAvgPool3d, BatchNorm3d, InstanceNorm3d, LazyConv1d,
    LazyConv2d, LazyConv3d, LazyConvTranspose1d, LazyConvTranspose2d, LazyConvTranspose3d,
    LazyBatchNorm1d, LazyBatchNorm2d, LazyBatchNorm3d, LazyInstanceNorm1d, LazyInstanceNorm2d,
    LazyInstanceNorm3d, UninitializedBuffer, AdaptiveMaxPool3d, MaxUnpool3d,
    FractionalMaxPool2d, FractionalMaxPool3d,
)
from pyad.nn.adaptive import AdaptiveLogSoftmaxWithLoss
from pyad.nn.sync_batchnorm import SyncBatchNorm
from pyad.nn.transformer import (
    MultiheadAttention, TransformerEncoderLayer, TransformerEncoder, TransformerDecoderLayer,
    TransformerDecoder, Transformer,
)
from pyad.nn import utils
from pyad.nn import parallel
from pyad.nn import attention
from pyad.nn.parallel import DataParallel

__all__ = [
    "RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell", "utils",
    "Conv1d", "ConvTranspose2d", "BatchNorm1d", "GroupNorm", "InstanceNorm1d",
    "InstanceNorm2d", "AvgPool1d", "AvgPool2d", "MaxPool1d", "AdaptiveAvgPool1d",
    "AdaptiveAvgPool2d", "Upsample", "UpsamplingNearest2d", "UpsamplingBilinear2d",
    "PixelShuffle", "PixelUnshuffle", "Dropout1d", "Dropout2d", "Bilinear",
    "CosineSimilarity", "PairwiseDistance", "ModuleDict", "ParameterList", "ParameterDict",
    "Unfold", "Fold",
    "MultiheadAttention", "TransformerEncoderLayer", "TransformerEncoder",
    "TransformerDecoderLayer", "TransformerDecoder", "Transformer",
    "BCELoss", "BCEWithLogitsLoss", "BatchNorm2d", "CELU", "Conv2d", "CosineEmbeddingLoss",
    "CrossEntropyLoss", "Dropout", "ELU", "Embedding", "Flatten", "GELU", "GLU",
    "GaussianNLLLoss", "Hardshrink", "Hardsigmoid", "Hardswish", "Hardtanh",
    "HingeEmbeddingLoss", "HuberLoss", "Identity", "KLDivLoss", "L1Loss", "LayerNorm",
    "LeakyReLU", "Linear", "LogSigmoid", "LogSoftmax", "MSELoss", "MarginRankingLoss",
    "MaxPool2d", "Mish", "Module", "ModuleList", "MultiMarginLoss", "NLLLoss", "NLLLoss2d",
    "PReLU",
    "Parameter", "Buffer",
    "PoissonNLLLoss", "ReLU", "ReLU6", "SELU", "Sequential", "SiLU", "Sigmoid",
    "SmoothL1Loss", "SoftMarginLoss", "Softmax", "Softplus", "Softshrink", "Softsign",
    "Tanh", "Tanhshrink", "Threshold", "TripletMarginLoss", "Unflatten", "functional",
    "init", "grad", "parallel", "DataParallel", "attention", "SyncBatchNorm",
    "ZeroPad1d", "ZeroPad2d", "ZeroPad3d", "ConstantPad1d", "ConstantPad2d", "ConstantPad3d",
    "ReflectionPad1d", "ReflectionPad2d", "ReflectionPad3d", "ReplicationPad1d",
    "ReplicationPad2d", "ReplicationPad3d", "CircularPad1d", "CircularPad2d",
    "CircularPad3d", "Softmin", "Softmax2d", "RMSNorm", "LocalResponseNorm",
    "UninitializedParameter", "LazyLinear", "AdaptiveMaxPool1d", "AdaptiveMaxPool2d",
    "MaxUnpool1d", "MaxUnpool2d", "LPPool1d", "LPPool2d", "LPPool3d", "ChannelShuffle", "AlphaDropout",
    "FeatureAlphaDropout", "Dropout3d", "RReLU", "ConvTranspose1d", "EmbeddingBag",
    "MultiLabelMarginLoss", "MultiLabelSoftMarginLoss", "TripletMarginWithDistanceLoss",
    "CTCLoss", "Conv3d", "ConvTranspose3d", "MaxPool3d", "AvgPool3d", "AdaptiveAvgPool3d", "BatchNorm3d",
    "InstanceNorm3d", "LazyConv1d", "LazyConv2d", "LazyConv3d", "LazyConvTranspose1d",
    "LazyConvTranspose2d", "LazyConvTranspose3d", "LazyBatchNorm1d", "LazyBatchNorm2d",
    "LazyBatchNorm3d", "LazyInstanceNorm1d", "LazyInstanceNorm2d", "LazyInstanceNorm3d",
    "UninitializedBuffer", "AdaptiveMaxPool3d", "MaxUnpool3d", "FractionalMaxPool2d",
    "FractionalMaxPool3d", "AdaptiveLogSoftmaxWithLoss",
]

# torch.nn.modules' submodules (torch.nn.modules.batchnorm._BatchNorm, ...), loaded here
# once every layer file is, so that they are attributes of pyad.nn.modules as in torch
def _load_module_paths():
    import importlib
    for name in ("activation", "adaptive", "batchnorm", "channelshuffle", "container",
                 "conv", "distance", "dropout", "flatten", "fold", "instancenorm", "lazy",
                 "linear", "loss", "module", "normalization", "padding", "pixelshuffle",
                 "pooling", "rnn", "sparse", "transformer", "upsampling", "utils"):
        importlib.import_module("pyad.nn.modules." + name)


_load_module_paths()
del _load_module_paths
from pyad.nn import modules, common_types, _reduction  # noqa: E402,F401
