# A scalar chain with a reused input: the trace shows the accumulation.
import torch

x = torch.tensor(3.0, requires_grad=True)
y = x * x
z = y + x
z.backward()
print(x.grad)
