# retain_grad on non-leaves: their .grad is written during backward, and
# accumulates over two backward calls (retain_graph=True).
import torch

a = torch.tensor([1.0, 2.0], requires_grad=True)
b = a * 3
b.retain_grad()
c = b.sin()
c.retain_grad()
d = c.sum()
d.backward(retain_graph=True)
print(b.grad, c.grad)
d.backward()
print(b.grad, c.grad, a.grad)
