# torch.optim.SGD: repr, steps, param_groups with a changed lr,
# zero_grad(set_to_none=True), momentum, weight decay, nesterov.
import torch
w = torch.tensor([1., 2.], requires_grad=True)
b = torch.tensor(0.5, requires_grad=True)
opt = torch.optim.SGD([w, b], lr=0.1)
print(opt)
for step in range(3):
    opt.zero_grad()
    loss = ((w * 2 + b - 1) ** 2).sum()
    loss.backward()
    opt.step()
    print(step, loss.item(), w, b)
print(opt.param_groups[0]['lr'], len(opt.param_groups[0]['params']))
opt.param_groups[0]['lr'] = 0.01
opt.zero_grad()
((w * 2 + b - 1) ** 2).sum().backward()
opt.step()
print(w, b)
opt.zero_grad(set_to_none=True)
print(w.grad, b.grad)
m = torch.tensor([1., -1.], requires_grad=True)
opt2 = torch.optim.SGD([m], lr=0.1, momentum=0.9, weight_decay=0.01)
print(opt2)
for i in range(3):
    opt2.zero_grad()
    (m ** 2).sum().backward()
    opt2.step()
print(m)
n = torch.tensor([1., -1.], requires_grad=True)
opt3 = torch.optim.SGD([n], 0.1, 0.9, nesterov=True)
for i in range(2):
    opt3.zero_grad()
    (n ** 2).sum().backward()
    opt3.step()
print(n)
