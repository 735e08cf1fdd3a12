import torch
from torch import median
