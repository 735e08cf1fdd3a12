# retain_grad() on intermediate results: their .grad is filled by backward and
# accumulates like a leaf's; is_leaf and requires_grad along a chain.
import torch
x = torch.tensor([1.0, -1.0, 2.0], requires_grad=True)
h1 = x * 2
h2 = h1.exp()
h3 = h2.sum()
h1.retain_grad()
h2.retain_grad()
h3.retain_grad()
print(h1.is_leaf, h2.requires_grad, h3.retains_grad, x.retains_grad)
h3.backward(retain_graph=True)
print(h3.grad)
print(h2.grad)
print(h1.grad)
print(x.grad)
h3.backward()
print(h1.grad)
