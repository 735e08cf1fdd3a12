# x.grad = f(x) makes a .grad whose graph holds x through its AccumulateGrad;
# a script that ends before resetting .grad leaked the cycle.
import torch
x = torch.arange(4.).reshape(2, 2).requires_grad_()
(x * 2).sum().backward()
x.grad = x.triu()
undefined_name(x.grad)
