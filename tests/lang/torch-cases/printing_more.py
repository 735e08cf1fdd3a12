# reprs inside containers, str of dtype/device/shape, .item() and Python float reprs,
# format specs on 0-d tensors, tolist.
import torch
x = torch.tensor([[1.5, -2.25], [3., 0.]], requires_grad=True)
print([x], (x,), {'a': x.sum()})
print(x.grad_fn, x.sum().grad_fn, x[0].grad_fn)
print(str(x.dtype), str(x.device), str(x.shape))
print(f"{x.shape}", f"{x.dtype}", f"{x.device}")
print(torch.float64, [torch.float32, torch.bool])
print(x.sum().item(), x.mean().item(), x.max().item(), x.argmax().item())
print(torch.tensor(1/3).item(), torch.tensor(1/3, dtype=torch.float64).item())
print(torch.tensor([1, 2]).sum().item(), torch.tensor([True]).item())
print(round(x.sum().item(), 2), int(x.sum()), float(x[0, 0]))
t = torch.tensor(0.123456789)
print(f"{t:.2f} {t:10.4f} {t:e} {t:g} {t}")
n = torch.tensor(7)
print(f"{n:03d} {n:>5} {n}")
print(x.tolist(), x[0].tolist(), x[0, 0].tolist())
print(x.numel(), len(x), x.dim())
