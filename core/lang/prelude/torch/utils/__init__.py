# torch.utils: only torch.utils.data so far.
import torch
from torch.utils import data


def __getattr__(name):
    torch._C._missing_attribute('torch.utils', name)
