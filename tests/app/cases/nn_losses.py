import torch
import torch.nn as nn

torch.manual_seed(0)
pred = torch.randn(4, 3, requires_grad=True)
target = torch.randn(4, 3)
for loss_fn in [nn.MSELoss(), nn.MSELoss(reduction='sum'), nn.L1Loss(), nn.L1Loss(reduction='none'),
                nn.SmoothL1Loss(), nn.SmoothL1Loss(beta=0.5), nn.HuberLoss(), nn.HuberLoss(delta=0.3)]:
    loss = loss_fn(pred, target)
    g, = torch.autograd.grad(loss.sum(), pred)
    print(loss_fn, loss.detach() if isinstance(loss_fn, nn.HuberLoss) else loss)
    print(g)
logits = torch.randn(5, 4, requires_grad=True)
labels = torch.tensor([0, 3, 1, 1, 2])
w = torch.tensor([1.0, 2.0, 0.5, 1.5])
for loss_fn in [nn.CrossEntropyLoss(), nn.CrossEntropyLoss(weight=w), nn.CrossEntropyLoss(ignore_index=1),
                nn.CrossEntropyLoss(label_smoothing=0.1), nn.CrossEntropyLoss(reduction='none'),
                nn.CrossEntropyLoss(weight=w, label_smoothing=0.2)]:
    loss = loss_fn(logits, labels)
    g, = torch.autograd.grad(loss.sum(), logits)
    print(loss_fn, loss)
    print(g)
logp = torch.log_softmax(logits, dim=1)
print(nn.NLLLoss()(logp, labels), nn.NLLLoss(weight=w, reduction='sum')(logp, labels), nn.NLLLoss(ignore_index=3)(logp, labels))
probs = torch.sigmoid(torch.randn(6, requires_grad=True))
t01 = torch.tensor([0., 1., 1., 0., 1., 0.])
print(nn.BCELoss()(probs, t01), nn.BCELoss(weight=torch.linspace(0.5, 1.5, 6))(probs, t01))
z = torch.randn(6, requires_grad=True)
print(nn.BCEWithLogitsLoss()(z, t01), nn.BCEWithLogitsLoss(pos_weight=torch.tensor(3.0))(z, t01))
print(list(nn.CrossEntropyLoss(weight=w).state_dict().items()))
zz = torch.randn(3, 4, requires_grad=True)
tt = torch.rand(3, 4)
for kwargs in [{'weight': torch.tensor([[0.5], [2.0], [1.0]])}, {'pos_weight': torch.tensor([3.0, 0.5, 1.0, 2.0])},
               {'weight': torch.tensor([1.0, 2.0, 0.5, 1.5]), 'pos_weight': torch.tensor([2.0, 1.0, 1.0, 4.0]), 'reduction': 'sum'}]:
    loss = nn.BCEWithLogitsLoss(**kwargs)(zz, tt)
    g, = torch.autograd.grad(loss, zz)
    print(loss)
    print(g)
