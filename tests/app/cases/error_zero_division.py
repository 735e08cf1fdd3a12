# Dividing a Python number by zero raises ZeroDivisionError (a tensor division
# by zero would give inf instead).
import torch
print(torch.tensor([1.0]) / 0)
steps = 0
rate = 1.0 / steps
