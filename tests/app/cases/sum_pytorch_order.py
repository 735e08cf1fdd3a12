# Float sums add in PyTorch's order (its cascade in AVX2 lanes): .item()
# shows every digit, so any other order prints other last digits.
# cuda: cpu-only, CUDA adds in the order of its own kernels
import torch, math
torch.manual_seed(0)
a = torch.linspace(0., 2. * math.pi, steps=25)
print(repr((2 * torch.sin(a) + 1).sum().item()))
for n in [1, 3, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 100, 127, 128, 129, 255, 256, 257, 1000, 1023, 1024, 1025, 4097, 10000, 30000, 32767]:
    x = torch.randn(n)
    print(n, repr(x.sum().item()), repr(x.double().sum().item()), repr(x.mean().item()))
for shape in [(3, 5), (5, 3), (4, 8), (8, 4), (7, 9), (9, 7), (33, 17), (17, 33), (2, 3, 4), (6, 40), (40, 6), (100, 37), (37, 100), (3, 64, 5)]:
    x = torch.randn(*shape)
    for d in range(len(shape)):
        s = x.sum(d)
        print(shape, d, s.flatten()[:3].tolist(), repr(s.sum().item()), repr(x.double().sum(d).flatten()[-1].item()))
    print(shape, "all", repr(x.sum().item()), repr(x.mean(-1).flatten()[0].item()))
x = torch.randn(3, 4, 5)
print(x.sum((0, 1)).tolist(), x.sum((1, 2)).tolist())
w = torch.randn(5, 3, requires_grad=True)
(w * torch.randn(3)).sum().backward()
print(w.grad.sum(0).tolist())
print(torch.tensor([-0.0, -0.0]).sum(), torch.tensor([[-0.0], [-0.0]]).sum(0))
