import torch
class Bad(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, k):
        return x * k
    @staticmethod
    def backward(ctx, g):
        return g
x = torch.tensor([1.], requires_grad=True)
Bad.apply(x, 2).sum().backward()
