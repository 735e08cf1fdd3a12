# torch.optim.SGD with momentum and weight_decay: the parameters after each of
# three steps on a fixed quadratic loss, and zero_grad between steps.
import torch
w = torch.tensor([1.0, -2.0], requires_grad=True)
b = torch.tensor(0.5, requires_grad=True)
opt = torch.optim.SGD([w, b], lr=0.02, momentum=0.9, weight_decay=0.01)
for step in range(3):
    opt.zero_grad()
    loss = ((w * 3 + b - 1.0) ** 2).sum()
    loss.backward()
    opt.step()
    print(step, loss.item())
    print(w, b)
plain = torch.tensor([2.0], requires_grad=True)
opt2 = torch.optim.SGD([plain], lr=0.25)
(plain ** 2).sum().backward()
opt2.step()
print(plain, plain.grad)
