# torch.linspace as PyTorch's AVX2 CPU kernel computes it: 8-lane (float32)
# cuda: cpu-only, the bits of PyTorch's CPU kernels (SLEEF, OpenBLAS, its sum orders)
# or 4-lane (float64) blocks from a fused base, the tail element by element.
import torch, math
for (a, b, n) in [(-math.pi, math.pi, 2000), (0, 1, 100), (-1, 1, 37), (-2.5, 3.3, 77),
                  (0, 1, 5), (1e-3, 7.5, 4097)]:
    for dt in (torch.float32, torch.float64):
        t = torch.linspace(a, b, n, dtype=dt).tolist()
        print(n, dt, t[:3], t[n // 2 - 9:n // 2 + 9], t[-3:])
