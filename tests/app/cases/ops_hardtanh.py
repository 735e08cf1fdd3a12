# F.hardtanh and F.relu6: HardtanhBackward0, a zero gradient at the bounds,
# integers kept, and the modules that use them.
import torch
import torch.nn.functional as F
x = torch.tensor([-2.0, -1.0, -0.5, 0.0, 0.5, 1.0, 6.0, 7.0], requires_grad=True)
y = F.hardtanh(x)
print(y)
y.sum().backward()
print(x.grad)
x.grad = None
y = F.relu6(x)
print(y)
y.sum().backward()
print(x.grad)
x.grad = None
y = F.hardtanh(x, -0.5, 0.5)
g, = torch.autograd.grad(y.sum(), x, create_graph=True)
print(y, g.detach())
z = x * 1
F.relu6(z, inplace=True)
print(z.detach())
z.sum().backward()
print(x.grad)
print(F.hardtanh(torch.tensor([1, -3, 5])), F.relu6(torch.tensor([1, -3, 9])))
print(F.hardtanh(x.detach().double(), min_val=-3.0, max_val=0.25))
try:
    F.hardtanh(torch.tensor([True]))
except RuntimeError as e:
    print("RuntimeError:", e)
print(torch.nn.ReLU6()(x), torch.nn.Hardtanh(-2, 2)(x))
print(torch.nn.ReLU6(), torch.nn.Hardtanh(-2, 2), torch.nn.ReLU6(inplace=True))
