"""``pyad.optim``: optimizers and learning-rate schedules, as ``torch.optim``."""
from pyad.optim import lr_scheduler
from pyad.optim.optimizer import Optimizer, SGD, Adam, AdamW

__all__ = ["Adam", "AdamW", "Optimizer", "SGD", "lr_scheduler"]
