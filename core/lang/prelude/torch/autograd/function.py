# torch.autograd.function: Function (native, torch._C._autograd) and the
# once_differentiable decorator for a backward that is not itself
# differentiable.
import torch
from torch._C._autograd import Function


def once_differentiable(fn):
    # PyTorch runs the backward under no_grad and, when an input requires
    # grad, makes the results fail a second backward with "trying to
    # differentiate twice"; here they simply carry no graph.
    def wrapper(ctx, *args):
        with torch.no_grad():
            return fn(ctx, *args)
    return wrapper


def __getattr__(name):
    torch._C._missing_attribute('torch.autograd.function', name)
