# A syntax error stops the script before anything runs: nothing is printed.
import torch
print("never printed")
x = torch.tensor([1.0, 2.0]
print(x)
