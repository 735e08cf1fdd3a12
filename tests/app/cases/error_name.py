# Using a name that was never assigned is a NameError.
import torch
weights = torch.ones(2)
print(weights)
print(undefined_total)
