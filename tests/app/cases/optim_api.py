# torch.optim's API as PyTorch 1.13 prints it: each optimizer's repr with its
# defaults, param groups given as dicts, add_param_group, param_groups' keys
# in order, state and state_dict, load_state_dict, zero_grad's 1.13 default
# (zeros, not None), step(closure), and the errors of bad arguments.
import torch

w = torch.tensor([1.0, -2.0, 3.0], requires_grad=True)
b = torch.tensor(0.5, requires_grad=True)
for cls in [torch.optim.SGD, torch.optim.Adam, torch.optim.AdamW, torch.optim.RMSprop,
            torch.optim.Adagrad]:
    opt = cls([w, b], lr=0.01)
    print(opt)
    print(list(opt.param_groups[0].keys()))
    print(opt.defaults)

opt = torch.optim.SGD([{'params': [w]}, {'params': b, 'lr': 0.5}], lr=0.1, momentum=0.9)
print(opt)
print(len(opt.param_groups), opt.param_groups[1]['lr'], opt.param_groups[1]['params'])
for step in range(3):
    opt.zero_grad()
    loss = ((w * b - 1) ** 2).sum()
    loss.backward()
    opt.step()
print(w, b)
print(opt.state[w])
sd = opt.state_dict()
print(sd)
opt.zero_grad()
print(w.grad, b.grad)
opt.zero_grad(set_to_none=True)
print(w.grad, b.grad)

c = torch.zeros(2, requires_grad=True)
opt.add_param_group({'params': [c], 'lr': 1.0, 'momentum': 0.0})
print(opt)

# load_state_dict into a new optimizer over other tensors: a copy of the
# state, mapped by position; the groups' keys keep the saved order.
w2 = w.detach().clone().requires_grad_()
b2 = b.detach().clone().requires_grad_()
opt2 = torch.optim.SGD([{'params': [w2]}, {'params': [b2]}], lr=0.3)
opt2.load_state_dict(sd)
print(opt2.param_groups)
print(opt2.state[w2], opt2.state[w2]['momentum_buffer'] is sd['state'][0]['momentum_buffer'])
for o, p, q in [(opt, w, b), (opt2, w2, b2)]:
    o.zero_grad()
    ((p * q - 1) ** 2).sum().backward()
    o.step()
print(torch.equal(w, w2), torch.equal(b, b2))

# Adam's state: step is a 0-d float tensor.
a = torch.tensor([0.5, 1.5], requires_grad=True)
adam = torch.optim.Adam([a], lr=0.1, amsgrad=True)


def closure():
    adam.zero_grad()
    loss = (a ** 2).sum()
    loss.backward()
    return loss


for i in range(3):
    print(adam.step(closure))
print(a, adam.state_dict()['state'])
ada = torch.optim.Adagrad([a], lr_decay=0.1, initial_accumulator_value=0.2)
print(ada.state[a])

for make in [lambda: torch.optim.SGD([w], lr=-0.1),
             lambda: torch.optim.SGD([w]),
             lambda: torch.optim.SGD([w], lr=0.1, momentum=-1),
             lambda: torch.optim.SGD([w], lr=0.1, nesterov=True),
             lambda: torch.optim.SGD([], lr=0.1),
             lambda: torch.optim.SGD(w, lr=0.1),
             lambda: torch.optim.SGD([w * 2], lr=0.1),
             lambda: torch.optim.SGD([w, 1.0], lr=0.1),
             lambda: torch.optim.SGD([{'params': [w]}, {'params': [w]}], lr=0.1),
             lambda: torch.optim.Adam([w], betas=(1.0, 0.999)),
             lambda: torch.optim.Adam([w], eps=-1),
             lambda: torch.optim.AdamW([w], weight_decay=-1),
             lambda: torch.optim.RMSprop([w], alpha=-0.5),
             lambda: torch.optim.Adagrad([w], lr_decay=-1),
             lambda: torch.optim.Adagrad([w], initial_accumulator_value=-1)]:
    try:
        make()
    except (ValueError, TypeError) as e:
        print(type(e).__name__, e)
