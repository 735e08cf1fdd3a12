# Errors a beginner meets, with PyTorch 1.13's types and texts.
import torch
import torch.nn as nn
def show(f):
    try:
        f()
    except Exception as e:
        print(type(e).__name__ + ":", e)
a = torch.randn(2, 3)
b = torch.randn(4, 5)
show(lambda: a @ b)
show(lambda: a + b)
show(lambda: nn.Linear(3, 2)(torch.randn(4, 5)))
show(lambda: a.view(5))
x = torch.ones(2, requires_grad=True)
show(lambda: x.add_(1))
y = (x * 2).sum()
y.backward()
show(lambda: y.backward())
show(lambda: (x * 2).backward())
show(lambda: torch.zeros(3)[5])
show(lambda: nn.CrossEntropyLoss()(torch.randn(2, 3), torch.tensor([0, 3])))
show(lambda: torch.randn(2, 3).numpy() if False else torch.cat([torch.ones(2), torch.ones(2, 2)]))
show(lambda: nn.Conv2d(3, 4, 3)(torch.randn(1, 2, 5, 5)))
show(lambda: x.numpy())
show(lambda: torch.tensor([1, 2]).float().backward())
show(lambda: torch.randn(3).reshape(2, 2))
show(lambda: torch.stack([torch.ones(2), torch.ones(3)]))
show(lambda: nn.functional.mse_loss(torch.ones(2, requires_grad=True), torch.ones(2, 1)))
