import torch

w = [torch.zeros(2, requires_grad=True)]
nan = float('nan')
tries = [
    ("SGD", dict(lr=-1)), ("SGD", dict(lr=0.1, momentum=-0.5)), ("SGD", dict(lr=0.1, weight_decay=-1)),
    ("SGD", dict(lr=nan)), ("SGD", dict(lr=0.1, nesterov=True)),
    ("Adam", dict(lr=-1e-3)), ("Adam", dict(eps=-1)), ("Adam", dict(betas=(1.0, 0.9))),
    ("Adam", dict(betas=(0.9, -0.1))), ("Adam", dict(weight_decay=-2)), ("Adam", dict(lr=nan)),
    ("Adam", dict(lr=-1, eps=-1)), ("AdamW", dict(betas=(0.5, 1.5))), ("AdamW", dict(eps=nan)),
    ("RMSprop", dict(alpha=-0.1)), ("RMSprop", dict(momentum=-1, weight_decay=-1)),
    ("Adagrad", dict(lr_decay=-1)), ("Adagrad", dict(initial_accumulator_value=-0.5)),
    ("Adagrad", dict(eps=-1, weight_decay=-1)), ("Adadelta", dict(rho=1.5)),
    ("Adadelta", dict(rho=nan)), ("Adamax", dict(betas=(0.9, 1.0))), ("NAdam", dict(momentum_decay=-1)),
    ("RAdam", dict(eps=-1e-8)), ("Rprop", dict(etas=(1.5, 2.0))), ("Rprop", dict(lr=-1)),
    ("ASGD", dict(weight_decay=-1)),
]
for name, kwargs in tries:
    try:
        getattr(torch.optim, name)(w, **kwargs)
        print(name, kwargs, "accepted")
    except ValueError as e:
        print(name, kwargs, "->", e)

# Per-group hyperparameters are not range-checked, as in PyTorch.
opt = torch.optim.Adam([{'params': w, 'lr': -1.0}], lr=0.1)
print(opt.param_groups[0]['lr'])
# maximize climbs the gradient.
x = torch.tensor([1.0, -2.0], requires_grad=True)
for name in ["SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "Adadelta", "Adamax", "Rprop", "ASGD"]:
    p = x.detach().clone().requires_grad_()
    o = getattr(torch.optim, name)([p], lr=0.1, maximize=True)
    for _ in range(3):
        o.zero_grad()
        (p * p).sum().backward()
        o.step()
    print(name, p)
