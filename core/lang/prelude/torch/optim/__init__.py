# torch.optim: the optimizers and torch.optim.lr_scheduler.
import torch
from torch.optim.optimizer import Optimizer
from torch.optim.sgd import SGD
from torch.optim.adam import Adam
from torch.optim.adamw import AdamW
from torch.optim.rmsprop import RMSprop
from torch.optim.adagrad import Adagrad
from torch.optim.adadelta import Adadelta
from torch.optim.adamax import Adamax
from torch.optim.nadam import NAdam
from torch.optim.radam import RAdam
from torch.optim.rprop import Rprop
from torch.optim.lbfgs import LBFGS
from torch.optim.asgd import ASGD
from torch.optim import lr_scheduler


# What torch.optim has in PyTorch 1.13 and Chainrule lacks says so.
def __getattr__(name):
    torch._C._missing_attribute('torch.optim', name)
