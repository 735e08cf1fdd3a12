# Every size from 1 to 100 (PyTorch fills 16 or more elements of randn
# differently from fewer), both float dtypes, several seeds interleaved.
import torch

def s(t):
    return "%.8f" % t.double().sum().item()

for seed in [0, 7, 2024]:
    torch.manual_seed(seed)
    print("seed", seed, torch.initial_seed())
    for n in range(1, 101):
        a = torch.randn(n)
        b = torch.randn(n, dtype=torch.float64)
        c = torch.rand(n)
        d = torch.rand(n, dtype=torch.float64)
        e = torch.randint(-50, 50, (n,))
        f = torch.randperm(n)
        print(n, s(a), s(b), s(c), s(d), int(e.sum()), int((f * torch.arange(n)).sum()),
              "%.8f" % a[n // 2].item(), "%.8f" % b[-1].item(), e[0].item(), f[0].item())
