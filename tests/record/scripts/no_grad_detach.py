# no_grad and detach stop the graph: the tensors made there are constants of
# the backward that follows.
import torch

w = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
with torch.no_grad():
    scale = w * 2
frozen = w.detach() + 1
torch.set_grad_enabled(False)
offset = w.sum()
torch.set_grad_enabled(True)
y = (w * scale + frozen * w + offset).sum()
y.backward()
print(scale.requires_grad, frozen.requires_grad, offset.requires_grad)
print(w.grad)
