# The reprs, state_dicts and argument errors of Adadelta, Adamax, NAdam, RAdam
# and Rprop after one step, as PyTorch 1.13 prints them.
import torch
w = torch.ones(2, requires_grad=True)
for c in [torch.optim.Adadelta, torch.optim.Adamax, torch.optim.NAdam, torch.optim.RAdam, torch.optim.Rprop]:
    o = c([w])
    (w*w).sum().backward()
    o.step()
    print(o, o.state_dict())
for bad in [lambda: torch.optim.Rprop([w], etas=(1.5, 1.2)), lambda: torch.optim.NAdam([w], momentum_decay=-1), lambda: torch.optim.Adadelta([w], rho=2)]:
    try:
        bad()
    except ValueError as e:
        print(e)
