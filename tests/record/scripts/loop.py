# A name rebound in a loop (y at iterations 1..3), and a backward call per
# iteration of a second loop with the gradient accumulating and then zeroed.
import torch

w = torch.tensor([0.5, 1.5], requires_grad=True)
x = torch.tensor([2.0, -1.0])
y = x
for i in range(3):
    y = y * w + 1                # record: labels=y₁,y₂,y₃
loss = y.sum()
loss.backward()
print(w.grad)

w.grad = None
for step in range(3):
    out = (w * x * (step + 1)).sum()
    out.backward()               # record: iterations=1,2,3
    print(w.grad)
    if step == 1:
        w.grad.zero_()
