# An activation's, a loss's and softmax's backward run as ops (a double
# backward with create_graph=True): tanh, sigmoid, elu, leaky_relu,
# hardtanh, softplus, gelu (both forms), log_sigmoid, hardswish, the shrinks, threshold,
# mse, smooth_l1 and huber losses, softmax and log_softmax. The gradient that
# flows in requires grad too, so each op's both inputs get gradients. Each
# opens as a scalar graph whose sums equal the step's.
import torch
import torch.nn.functional as F

x = torch.tensor([[0.5, -1.0, 2.0], [-3.5, 3.0, -0.25]], requires_grad=True)
w = torch.tensor([[1.5, -0.5, 0.25], [2.0, 1.0, -1.0]], requires_grad=True)
t = torch.tensor([[1.0, 0.0, 1.5], [0.0, 2.5, -1.0]])
fs = [torch.tanh, torch.sigmoid, lambda v: F.elu(v, 0.5), lambda v: F.leaky_relu(v, 0.2),
      lambda v: F.hardtanh(v, -2.0, 2.5), lambda v: F.softplus(v, 2.0, 3.0), F.gelu,
      lambda v: F.gelu(v, approximate='tanh'), F.logsigmoid,
      F.hardswish, lambda v: F.hardshrink(v, 0.75), F.softshrink, lambda v: F.threshold(v, 0.7, -1.0),
      lambda v: F.mse_loss(v, t), lambda v: F.smooth_l1_loss(v, t, beta=0.8),
      lambda v: F.huber_loss(v, t, delta=1.2, reduction='sum'), lambda v: F.mse_loss(v, t, reduction='none'),
      lambda v: F.softmax(v, 1), lambda v: F.log_softmax(v, 0)]
total = 0
for f in fs:
    y = f(x)
    g, = torch.autograd.grad((y * w).sum(), x, create_graph=True)
    print(g.grad_fn.name(), g)
    total = total + (g * g).sum()
total.backward()
print(x.grad, w.grad, sep='\n')
