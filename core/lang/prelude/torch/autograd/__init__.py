# torch.autograd: grad, backward and Function are native (the one backward
# engine, torch._C._autograd); functional, gradcheck and Variable are script.
from torch._C._autograd import grad, backward, Function
from torch.autograd import functional
from torch.autograd.gradcheck import gradcheck, gradgradcheck
from torch.autograd.variable import Variable
