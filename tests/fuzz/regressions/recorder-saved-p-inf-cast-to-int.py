import torch
x = torch.tensor([3., -4.], requires_grad=True)
n = x.norm(p=float("inf"))
n.backward()
print(x.grad)
