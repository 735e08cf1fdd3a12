# exp, log, tanh and sigmoid of float32 over long rows (the vectorised
# AVX2+FMA copy of the row functions), with the special values inside the
# rows: every element must have PyTorch's SLEEF bits, the lane of a special
# value included. The sums are in float64, so one changed last bit shows.
# cuda: cpu-only, the bits of PyTorch's CPU kernels (SLEEF)
import torch

torch.manual_seed(0)
x = torch.cat([torch.randn(40000) * 3.0, torch.randn(20000) * 40.0,
               torch.rand(20000) * 1e-3, torch.rand(5000) * 1e-38,
               torch.tensor([0.0, -0.0, 88.7, 88.8, -87.0, -100.0, -103.9, -104.0, -104.5,
                             100.0, 100.5, 8.6643, 8.6644, -8.6644, 1e-45, -1e-45,
                             float('inf'), -float('inf'), float('nan')])])
specials = x[-19:]
for name, f in [("exp", torch.exp), ("log", torch.log), ("tanh", torch.tanh),
                ("sigmoid", torch.sigmoid)]:
    y = f(x)
    finite = y[torch.isfinite(y)].double()
    print(name, finite.numel(), finite.sum().item(), (finite * finite).sum().item(),
          f(specials).tolist())
    if name != "sigmoid":
        # A strided view: its row is not contiguous (PyTorch's scalar path;
        # for sigmoid that is libm's expf, which Chainrule does not follow yet).
        z = f(x[::7])
        print(name, "strided", z[torch.isfinite(z)].double().sum().item())
