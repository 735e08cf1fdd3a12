# One tensor feeding three ops: its gradient is the sum of three
# contributions, accumulated as they arrive.
import torch

a = torch.tensor([1.0, 2.0], requires_grad=True)
b = a * a
c = a.exp()
d = (b + c + a).sum()
d.backward()
print(a.grad)
