# A loss rebuilt from .item(): a new leaf, cut from the parameters, so the
# loss cannot move.
import torch

x = torch.tensor([1.0, 2.0, 3.0])
w = torch.tensor([0.5, 0.5, 0.5], requires_grad=True)
optimizer = torch.optim.SGD([w], lr=0.01)
for step in range(4):
    optimizer.zero_grad()
    out = ((w * x).sum() - 4) ** 2
    loss = torch.tensor(out.item(), requires_grad=True)
    loss.backward()
    optimizer.step()
    print(step, loss.item(), w.grad)
