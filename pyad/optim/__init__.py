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
from pyad.optim.rprop import Rprop
from pyad.optim.asgd import ASGD
from pyad.optim.adafactor import Adafactor
from pyad.optim import swa_utils
from pyad.optim import adam, adamw, sgd, optimizer  # noqa: F401 - torch's module paths

__all__ = ["Adadelta", "Adafactor", "Adagrad", "Adam", "Adamax", "AdamW", "ASGD", "LBFGS",
           "NAdam", "Optimizer", "RAdam", "RMSprop", "Rprop", "SGD", "lr_scheduler", "swa_utils"]
