# nn.Linear is x @ W.T + b (addmm); sums and means over a dim; softmax,
# log_softmax and the losses the tutorials use, all small enough to open.
import torch

torch.manual_seed(0)
lin = torch.nn.Linear(3, 2)
x = torch.tensor([[1.0, -1.0, 0.5], [0.0, 2.0, -0.5]])
h = lin(x)
p = torch.softmax(h, dim=1)
lp = torch.log_softmax(h, dim=0)
r = h.sum(dim=0)
m = h.mean(dim=1, keepdim=True)
t = torch.tensor([[0.0, 1.0], [1.0, 0.0]])
loss = torch.nn.functional.mse_loss(p, t) + lp.sum() * 0.1 + r.sum() + m.sum()
loss = loss + torch.nn.functional.binary_cross_entropy_with_logits(h, t)
loss.backward()
print(h)
print(loss)
print(lin.weight.grad)
print(lin.bias.grad)
