# A loop that prints its numbers as `name value`, `name=value` and `name:
# value`: `chainrule train` lists each printed series (an epoch counter is
# left out), and the window draws them under the loss curve.
import torch

w = torch.tensor([0.5, -0.5], requires_grad=True)
x = torch.tensor([[1.0, 2.0], [2.0, 1.0], [0.0, 1.0]])
y = torch.tensor([1.0, 2.0, 0.5])
opt = torch.optim.SGD([w], lr=0.05)
for epoch in range(4):
    pred = x @ w
    loss = ((pred - y) ** 2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    err = (pred - y).abs().max().item()
    print(f"epoch {epoch}: loss={loss.item():.4f} | max_err: {err:.3f}")
