# Optimizer.state is PyTorch's defaultdict(dict): empty before a step, {} for a
# parameter never stepped, printed as a defaultdict; load_state_dict keeps it so.
import torch
w = torch.tensor([1.0, 2.0], requires_grad=True)
opt = torch.optim.SGD([w], lr=0.1, momentum=0.9)
print(opt.state, opt.state[w], len(opt.state))
(w * w).sum().backward()
opt.step()
print(opt.state)
a = torch.optim.Adam([w])
a.step()
print(a.state)
sd = a.state_dict()
a.load_state_dict(sd)
print(a.state, type(sd['state']).__name__)
o = torch.optim.Adadelta([w])
(w*w).sum().backward()
o.step()
print(o, o.state_dict())
