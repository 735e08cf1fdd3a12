# Broadcasting: (3,1) with (1,4), (2,3) with (3,), 0-d with anything; the result
# shapes, and gradients summed back to each input's own shape.
import torch
col = torch.tensor([[1.0], [2.0], [3.0]], requires_grad=True)
row = torch.tensor([[10.0, 20.0, 30.0, 40.0]], requires_grad=True)
t = col * row
print(t)
print(t.shape)
t.sum().backward()
print(col.grad)
print(row.grad)

m = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
v = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
s = torch.tensor(3.0, requires_grad=True)
out = (m - v) * s
print(out)
out.sum().backward()
print(m.grad)
print(v.grad)
print(s.grad)
print((torch.ones(2, 1, 3) + torch.ones(4, 1)).shape)
