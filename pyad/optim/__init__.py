"""``pyad.optim``: optimizers and learning-rate schedules, as ``torch.optim``."""
from pyad.optim import lr_scheduler
from pyad.optim.optimizer import Optimizer, SGD, Adam, AdamW
from pyad.optim.rmsprop import RMSprop
from pyad.optim.adagrad import Adagrad
from pyad.optim.adadelta import Adadelta
from pyad.optim.adamax import Adamax
from pyad.optim.nadam import NAdam
from pyad.optim.radam import RAdam
from pyad.optim.lbfgs import LBFGS

__all__ = ["Adadelta", "Adagrad", "Adam", "Adamax", "AdamW", "LBFGS", "NAdam", "Optimizer",
           "RAdam", "RMSprop", "SGD", "lr_scheduler"]
