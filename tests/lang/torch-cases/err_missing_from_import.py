import torch
from torch import nanmedian
