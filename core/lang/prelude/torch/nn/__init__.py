# torch.nn: Module, its layers and losses, Parameter, init and functional.
import torch
from torch.nn.parameter import Parameter, UninitializedParameter
from torch.nn.modules import *
from torch.nn import init
from torch.nn import functional
from torch.nn import utils

# What torch.nn has in PyTorch 1.13 and Chainrule lacks says so (a
# NotImplementedError), rather than reading like a typo in the script.
def __getattr__(name):
    torch._C._missing_attribute('torch.nn', name)
