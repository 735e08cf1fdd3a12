import torch
import torch.special
