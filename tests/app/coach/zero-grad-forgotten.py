# Training without optimizer.zero_grad(): each backward adds its gradient
# to what .grad still holds from the last iteration.
import torch

torch.manual_seed(0)
x = torch.tensor([[1.0], [2.0], [3.0], [4.0]])
y = 2 * x + 1
model = torch.nn.Linear(1, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.02)
for step in range(6):
    loss = ((model(x) - y) ** 2).mean()
    loss.backward()
    optimizer.step()
    print(f"step {step}: loss {loss.item():.4f}")
