# torch.nn.functional: the native functions (torch._C._nn) and those written
# here in script.
from torch._C._nn import *
