# Jacobian-vector products, and gradients that accumulate.
# out is a matrix, so backward needs a vector v (here all ones) and computes
# vᵀ·J. Calling backward again adds to inp.grad; zero_() resets it.
# retain_graph=True keeps the graph alive for the next call.
import torch

inp = torch.eye(5, requires_grad=True)
out = (inp + 1).pow(2)
out.backward(torch.ones_like(inp), retain_graph=True)
print(f"First call\n{inp.grad}")
out.backward(torch.ones_like(inp), retain_graph=True)
print(f"\nSecond call\n{inp.grad}")
inp.grad.zero_()
out.backward(torch.ones_like(inp), retain_graph=True)
print(f"\nCall after zeroing gradients\n{inp.grad}")
