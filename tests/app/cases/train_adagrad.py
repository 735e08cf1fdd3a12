# torch.optim.Adagrad (a learning rate decay and weight decay on one group, a starting sum on both), printed from the script itself as `chainrule train
# --values` prints them from the run record.
import torch

W = torch.tensor([[0.5, -0.4, 0.2], [0.3, 0.8, -0.6]], requires_grad=True)
b = torch.tensor([0.1, -0.2, 0.0], requires_grad=True)
X = torch.tensor([[1.0, 2.0], [-1.0, 0.5], [0.0, 1.0], [2.0, -1.0]])
Y = torch.tensor([[1.0, 0.0, 0.5], [0.0, 1.0, -1.0], [1.0, 1.0, 0.0], [-0.5, 0.0, 2.0]])
opt = torch.optim.Adagrad([{'params': [W]},
                           {'params': [b], 'lr_decay': 0.5, 'weight_decay': 0.1}],
                          lr=0.3, initial_accumulator_value=0.1)

losses, lines = [], []
for k in range(1, 5):
    loss = ((X @ W + b - Y) ** 2).mean() + (0.5 if k % 2 else 0.0) * (W ** 2).sum()
    opt.zero_grad()
    loss.backward()
    opt.step()
    losses.append(loss.item())
    for name, p in (("W", W), ("b", b)):
        head = f"Adagrad step {k} {name}"
        lines.append(f"{head} grad {p.grad.tolist()}")
        for key, value in opt.state[p].items():
            shown = value.tolist() if isinstance(value, torch.Tensor) else value
            lines.append(f"{head} {key} {shown}")
        lines.append(f"{head} after {p.tolist()}")

for k, loss in enumerate(losses, 1):
    print("loss", k, loss)
for line in lines:
    print(line)
