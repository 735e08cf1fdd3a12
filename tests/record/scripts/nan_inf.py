# Gradients that are not finite: sqrt's at 0 is inf, at -1 NaN. The record
# writes them as the strings "inf" and "nan" (JSON has neither).
import torch

x = torch.tensor([0.0, 4.0, -1.0], requires_grad=True)
y = x.sqrt().sum()
y.backward()
print(x.grad)
