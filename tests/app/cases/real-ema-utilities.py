# Small utilities real training code uses: an exponential moving average of
# the weights with lerp_, nan_to_num on a loss that overflowed, isclose and
# count_nonzero in checks, movedim for image layouts, take_along_dim for
# picking each row's chosen action, _is_view.
import copy
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Linear(3, 2)
ema = copy.deepcopy(model)
for p in ema.parameters():
    p.requires_grad_(False)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(3):
    loss = model(torch.randn(4, 3)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    with torch.no_grad():
        for p_ema, p in zip(ema.parameters(), model.parameters()):
            p_ema.lerp_(p, 1 - 0.9)
print(ema.weight, ema.bias)

a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
b = torch.tensor([4.0, 0.0, -1.0], requires_grad=True)
w = torch.tensor([0.2, 0.5, 0.9], requires_grad=True)
y = torch.lerp(a, b, 0.3)
z = a.lerp(b, w)
print(y, y.grad_fn._saved_weight, z, z.grad_fn._saved_weight is w)
(y.sum() + (z * torch.tensor([1.0, 2.0, 3.0])).sum()).backward()
print(a.grad, b.grad, w.grad)
print(torch.lerp(a, b, 2).grad_fn._saved_weight)
try:
    torch.lerp(torch.ones(2), torch.ones(2, dtype=torch.float64), 0.5)
except RuntimeError as e:
    print("RuntimeError:", e)

x = torch.tensor([float('nan'), float('inf'), -float('inf'), 1.5], requires_grad=True)
n = torch.nan_to_num(x)
print(n, n.grad_fn.name())
n2 = x.nan_to_num(nan=0.5, posinf=10.0, neginf=-10.0)
n2.sum().backward()
print(n2, x.grad)
print(torch.nan_to_num(torch.tensor([float('inf')], dtype=torch.float64)),
      torch.nan_to_num(torch.tensor([1, 2])))
c = torch.tensor([float('nan'), 3.0])
c.nan_to_num_(nan=-1.0)
print(c)

print(torch.isclose(torch.tensor([1.0, 2.0, float('nan'), float('inf')]),
                    torch.tensor([1.0 + 1e-7, 2.1, float('nan'), float('inf')])))
print(torch.isclose(torch.tensor([float('nan')]), torch.tensor([float('nan')]), equal_nan=True),
      torch.isclose(torch.tensor([1, 5]), torch.tensor([2, 5]), atol=1),
      torch.tensor([1.0, 10.0]).isclose(torch.tensor([1.05, 10.5]), rtol=0.06))
print(torch.count_nonzero(torch.tensor([[0, 1], [2, 0]])),
      torch.tensor([[0.0, 1.0], [2.0, 3.0]]).count_nonzero(dim=1))

img = torch.arange(24.0).view(2, 3, 4).requires_grad_()
hwc = img.movedim(0, -1)
print(hwc.shape, hwc.grad_fn.name(), torch.moveaxis(img, (0, 1), (2, 0)).shape)
print(hwc[1, 2], img[0]._is_view(), torch.ones(2)._is_view(), hwc._is_view())

q = torch.tensor([[0.1, 0.7, 0.2], [0.5, 0.3, 0.9]], requires_grad=True)
actions = torch.tensor([[1], [2]])
chosen = torch.take_along_dim(q, actions, dim=1)
print(chosen, chosen.grad_fn.name(), chosen.grad_fn.next_functions[0][0].name())
chosen.sum().backward()
print(q.grad)
print(torch.take_along_dim(q, q.argsort(dim=1), dim=1), torch.take_along_dim(q, torch.tensor([5, 0])))
print(torch.take_along_dim(q, torch.tensor([[0], [1]]), dim=-1).shape,
      torch.take_along_dim(q, torch.tensor([[0, 1, 1]]), dim=0))
