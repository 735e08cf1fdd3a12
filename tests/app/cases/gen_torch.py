import torch

class Net:
    def __init__(self):
        self.w = torch.tensor([1.0, 2.0], requires_grad=True)
        self.b = torch.tensor(0.5, requires_grad=True)
    def parameters(self):
        for p in [self.w, self.b]:
            yield p

net = Net()
params = list(net.parameters())
print(len(params), all(p.requires_grad for p in params))
x = torch.tensor([3.0, 4.0])
loss = sum((p * p).sum() for p in net.parameters()) + (net.w * x).sum()
loss.backward()
print(loss)
print(net.w.grad, net.b.grad)
def batches(data, size):
    for i in range(0, len(data), size):
        yield data[i:i + size]
t = torch.arange(10.0)
for b in batches(t, 4):
    print(b, b.sum().item())
def no_grad_gen():
    with torch.no_grad():
        yield torch.is_grad_enabled()
    yield torch.is_grad_enabled()
g = no_grad_gen()
print(next(g), torch.is_grad_enabled())
print(next(g), torch.is_grad_enabled())
print(torch.stack(list(p.detach().sum() for p in net.parameters())))
print(torch.tensor([v for v in (i * 2 for i in range(3))]))
