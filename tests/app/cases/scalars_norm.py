# layer_norm, batch_norm and group_norm taken apart: each group's mean μ and
# variance σ², then x̂ = (x − μ)/√(σ² + eps) and the affine y = x̂·w + b;
# batch norm in eval reads its running statistics instead.
import torch
import torch.nn.functional as F

x = torch.tensor([[1.0, -2.0, 0.5, 3.0],
                  [0.0, 1.5, -1.0, 2.0],
                  [2.5, -0.5, 1.0, -3.0]], requires_grad=True)
g = torch.tensor([1.0, 0.5, -1.0, 2.0], requires_grad=True)
beta = torch.tensor([0.0, 0.1, 0.2, -0.3], requires_grad=True)
ln = F.layer_norm(x, (4,), g, beta)
plain = F.layer_norm(x, (4,), eps=0.1)
bn = F.batch_norm(x, None, None, g, beta, training=True)
norm = torch.nn.BatchNorm1d(4)
norm.running_mean = torch.tensor([0.5, -0.5, 1.0, 0.0])
norm.running_var = torch.tensor([2.0, 1.0, 0.5, 4.0])
norm.eval()
ev = norm(x)
gn = F.group_norm(x.view(3, 4, 1), 2, g, beta)
t = torch.arange(12.0).view(3, 4)
loss = (ln * t).sum() + (plain * t).sum() + (bn * t * t).sum() + (ev * t).sum()
loss = loss + (gn.view(3, 4) * t.flip(0)).sum()
loss.backward()
print(ln)
print(plain)
print(bn)
print(ev)
print(gn)
print(loss)
print(x.grad)
print(g.grad)
print(beta.grad)
print(norm.weight.grad)
