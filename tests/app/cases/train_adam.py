# torch.optim.Adam (with weight decay) and AdamW on another parameter: each
# step's moments exp_avg and exp_avg_sq and the step count, printed from the
# script itself as `chainrule train --values` prints them from the run record.
import torch

w = torch.tensor([1.0, -2.0, 0.5], requires_grad=True)
c = torch.tensor(0.1, requires_grad=True)
x = torch.tensor([0.5, 1.0, -1.0])
adam = torch.optim.Adam([w], lr=0.1, weight_decay=0.01)
adamw = torch.optim.AdamW([c], lr=0.05, betas=(0.8, 0.99))

losses, lines = [], []
for k in range(1, 4):
    loss = ((w * x).sum() + c - 1.0) ** 2
    adam.zero_grad()
    adamw.zero_grad()
    loss.backward()
    adam.step()
    adamw.step()
    losses.append(loss.item())
    for opt, name, p in ((adam, "w", w), (adamw, "c", c)):
        head = f"{type(opt).__name__} step {k} {name}"
        lines.append(f"{head} grad {p.grad.tolist()}")
        for key, value in opt.state[p].items():
            shown = value.tolist() if isinstance(value, torch.Tensor) else value
            lines.append(f"{head} {key} {shown}")
        lines.append(f"{head} after {p.tolist()}")

for k, loss in enumerate(losses, 1):
    print("loss", k, loss)
for line in lines:
    print(line)
