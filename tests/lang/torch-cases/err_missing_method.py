import torch
x = torch.arange(5.)
m = x.nanmedian()
