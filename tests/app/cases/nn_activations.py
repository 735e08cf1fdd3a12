import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
x = torch.randn(3, 4, requires_grad=True)
acts = [nn.ReLU(), nn.LeakyReLU(0.1), nn.Tanh(), nn.Sigmoid(), nn.GELU(),
        nn.SiLU(), nn.ELU(alpha=0.5), nn.Softplus(beta=2, threshold=1), nn.Softmax(dim=1),
        nn.LogSoftmax(dim=0), nn.ReLU6(), nn.Hardtanh(-0.5, 0.5), nn.LogSigmoid(), nn.Softsign(),
        nn.Tanhshrink(), nn.Mish(), nn.Softmin(dim=1), nn.Identity()]
for act in acts:
    y = act(x)
    g, = torch.autograd.grad((y * torch.arange(12.).view(3, 4)).sum(), x)
    print(act)
    print(y)
    print(g)
