# a full backward hook may return its new grad_input as a list (the nn.Module docs' example)
import torch
from torch import nn
torch.manual_seed(0)

def backward_hook(m, grad_inputs, grad_outputs):
    return [torch.ones_like(gi) * 42. for gi in grad_inputs]

m = nn.Linear(3, 3)
x = torch.randn(2, 3, requires_grad=True)
h = m.register_full_backward_hook(backward_hook)
m(x).sum().backward()
print(x.grad)
h.remove()

def wrong_length(m, grad_inputs, grad_outputs):
    return [None, None]

m.register_full_backward_hook(wrong_length)
try:
    m(x).sum().backward()
except RuntimeError as e:
    print(e)
