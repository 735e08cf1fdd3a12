# Manual updates under no_grad: `w -= lr * w.grad` and `b.data -= lr * b.grad`,
# each printed from the script itself as `chainrule train --values` prints
# them from the run record.
import torch

w = torch.tensor([[0.5, -1.0], [2.0, 0.25]], requires_grad=True)
b = torch.tensor(0.3, requires_grad=True)
x = torch.tensor([1.0, -2.0])
lr = 0.05

losses, lines = [], []
for k in range(1, 4):
    loss = ((w @ x + b) ** 2).sum()
    loss.backward()
    with torch.no_grad():
        w -= lr * w.grad
    b.data -= lr * b.grad
    losses.append(loss.item())
    for name, p in (("w", w), ("b", b)):
        head = f"manual update {k} {name}"
        lines.append(f"{head} grad {p.grad.tolist()}")
        lines.append(f"{head} after {p.tolist()}")
    w.grad.zero_()
    b.grad.zero_()

for k, loss in enumerate(losses, 1):
    print("loss", k, loss)
for line in lines:
    print(line)
