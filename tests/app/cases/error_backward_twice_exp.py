# A second backward through a graph whose saved tensors were freed (exp saves
# its result) fails unless the first call used retain_graph=True.
import torch
x = torch.tensor([0.0, 1.0], requires_grad=True)
y = x.exp().sum()
y.backward()
print(x.grad)
y.backward()
