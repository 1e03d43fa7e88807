"""``torch.nn.modules.loss``: the same classes as there (defined elsewhere in pyad.nn;
this module re-exports them so that torch's import paths work)."""
from pyad.nn import (  # noqa: F401
    L1Loss, NLLLoss, NLLLoss2d, PoissonNLLLoss, GaussianNLLLoss, KLDivLoss, MSELoss,
    BCELoss, BCEWithLogitsLoss, HingeEmbeddingLoss, MultiLabelMarginLoss, SmoothL1Loss,
    HuberLoss, SoftMarginLoss, CrossEntropyLoss, MultiLabelSoftMarginLoss,
    CosineEmbeddingLoss, MarginRankingLoss, MultiMarginLoss, TripletMarginLoss,
    TripletMarginWithDistanceLoss, CTCLoss,
)
from pyad.nn.modules import _Loss  # noqa: F401
from pyad.nn.modules import _WeightedLoss  # noqa: F401

__all__ = [
    "L1Loss", "NLLLoss", "NLLLoss2d", "PoissonNLLLoss", "GaussianNLLLoss", "KLDivLoss",
    "MSELoss", "BCELoss", "BCEWithLogitsLoss", "HingeEmbeddingLoss",
    "MultiLabelMarginLoss", "SmoothL1Loss", "HuberLoss", "SoftMarginLoss",
    "CrossEntropyLoss", "MultiLabelSoftMarginLoss", "CosineEmbeddingLoss",
    "MarginRankingLoss", "MultiMarginLoss", "TripletMarginLoss",
    "TripletMarginWithDistanceLoss", "CTCLoss",
]
