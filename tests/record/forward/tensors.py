# Tensor ops over two iterations: each forward value printed by the script.
import torch

x = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
w = torch.tensor([[0.5, -1.0], [2.0, 1.0]], requires_grad=True)
bias = torch.tensor([0.25, -0.5], requires_grad=True)
for i in range(2):
    y = x @ w
    z = y + bias
    h = torch.relu(z - 3)
    loss = h.mean()
    print("y =", y.tolist())
    print("z =", z.tolist())
    print("h =", h.tolist())
    print("loss =", loss.item())
    loss.backward()
    with torch.no_grad():
        w -= 0.1 * w.grad
        w.grad.zero_()
