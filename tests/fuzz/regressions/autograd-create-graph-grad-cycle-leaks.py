# backward(create_graph=True) makes a leaf.grad whose graph holds the leaf
# (PyTorch warns of this cycle); a script that ends before resetting .grad
# leaked it.
import torch
p = torch.tensor([1., 2.], requires_grad=True)
s = p.exp().sum()
s.backward(create_graph=True)
undefined_name(p.grad)
