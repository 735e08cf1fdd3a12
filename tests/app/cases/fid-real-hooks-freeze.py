# Real code, written as tutorials write it: Chainrule must print what PyTorch 1.13 prints.
import torch
import torch.nn as nn
torch.manual_seed(5)
model = nn.Sequential(nn.Linear(3, 3), nn.ReLU(), nn.Linear(3, 2))
for p in model[0].parameters():
    p.requires_grad = False
trainable = [n for n, p in model.named_parameters() if p.requires_grad]
print(trainable)
x = torch.randn(4, 3, requires_grad=True)
grads = {}
def save_grad(name):
    def hook(grad):
        grads[name] = grad
    return hook
h = model[0](x)
h.register_hook(save_grad('h'))
out = model[2](torch.relu(h)).sum()
out.backward()
print(grads['h'].shape, model[0].weight.grad, model[2].weight.grad.shape)
activations = {}
def fwd_hook(module, inp, outp):
    activations['relu'] = outp.detach()
handle = model[1].register_forward_hook(fwd_hook)
model(x)
print(activations['relu'].shape)
handle.remove()
x.grad = None
y = x * 3
y.retain_grad()
y.sum().backward()
print(y.grad)
print(x.grad)
v = torch.tensor([1.0, 2.0], requires_grad=True)
hh = v.register_hook(lambda g: g * 2)
(v * v).sum().backward()
print(v.grad)
hh.remove()
