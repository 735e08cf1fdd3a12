import torch
print(hasattr(torch, "no_such_thing"), hasattr(torch.ones(1), "no_such_thing"))
x = torch.fft.fft(torch.ones(4))
