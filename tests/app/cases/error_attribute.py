# An unknown tensor attribute is an AttributeError.
import torch
t = torch.ones(2)
print(t.shape)
print(t.foo)
