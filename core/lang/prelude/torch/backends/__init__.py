# torch.backends: the switches scripts set or read about the compute
# libraries behind PyTorch. Chainrule's own kernels have no such libraries, so
# the flags are kept for the script to read back and change nothing.
import torch.backends.cuda
import torch.backends.cudnn
import torch.backends.mps
