# torch.autograd: grad, backward and Function are native (the one backward
# engine, torch._C._autograd); functional, gradcheck and Variable are script.
import torch
from torch._C._autograd import grad, backward, Function
from torch import no_grad, enable_grad, set_grad_enabled
from torch.autograd import functional
from torch.autograd.gradcheck import gradcheck, gradgradcheck
from torch.autograd.variable import Variable


# What torch.autograd has in PyTorch 1.13 and Chainrule lacks says so.
def __getattr__(name):
    torch._C._missing_attribute('torch.autograd', name)
