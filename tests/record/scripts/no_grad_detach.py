# no_grad and detach stop the graph: the tensors made there are constants of
# the backward that follows. The marks at the end of lines say what the
# record must hold about them (check-record).
import torch

w = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
with torch.no_grad():                  # record: region=no_grad
    scale = w * 2                      # record: origin=no_grad
d = w.detach()                         # record: origin=detached
frozen = d + 1
torch.set_grad_enabled(False)          # record: region=grad_disabled
offset = w.sum()                       # record: origin=no_grad
torch.set_grad_enabled(True)
y = (w * scale + frozen * w + offset).sum()
y.backward()
print(scale.requires_grad, frozen.requires_grad, offset.requires_grad, d.requires_grad)
print(w.grad)
