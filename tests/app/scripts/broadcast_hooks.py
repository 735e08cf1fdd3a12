# Broadcasting and a hook: --trace-backward shows the sum back to b's shape
# and the hook that scaled b's gradient.
import torch

x = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
b = torch.ones(3, requires_grad=True)
b.register_hook(lambda grad: grad * 10)
y = (x * b).sum()
y.backward()
print(b.grad)
