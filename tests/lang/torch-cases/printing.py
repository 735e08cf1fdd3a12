# .item() types, f-string formats, reprs and strs, sizes, float()/int()/bool(),
# scientific and integer print modes.
import torch
x = torch.tensor([1.5, 2.5], requires_grad=True)
s = (x * x).sum()
print(s.item(), type(s.item()).__name__, torch.tensor(0.1).item(), torch.tensor(3).item())
print(torch.tensor(True).item(), type(torch.tensor([7]).item()).__name__)
print(f"{s:.4f} {s} {s.item():.2f} {x}")
print(f"{torch.tensor(3)} {torch.tensor(3):>4} {torch.tensor(True)} {torch.tensor(2.5):e}")
print(str(x), repr(s), [x.sum()], (s,))
print(x.shape, x.size(), str(x.shape), repr(x.dtype), x.dtype)
print(float(s), int(torch.tensor(3.7)), float(torch.tensor([2.])), bool(torch.tensor([0])))
print(x.grad_fn, s.grad_fn)
print(torch.tensor([1e-5, 1.]), torch.tensor([1, 200000]), torch.tensor([0.1, 100.]))
print(torch.tensor([[1, 2], [3, 4]], dtype=torch.float64))
print(torch.ones(2, 2, requires_grad=True) * 2)
print(torch.zeros(2, dtype=torch.bool), torch.tensor(-0.0), torch.tensor(float('inf')))
