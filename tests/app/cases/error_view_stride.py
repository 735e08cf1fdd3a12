# view() needs memory laid out compatibly: a transposed tensor cannot be viewed
# flat (reshape would copy instead).
import torch
m = torch.arange(6.0).reshape(2, 3)
print(m.t().reshape(6))
print(m.t().view(6))
