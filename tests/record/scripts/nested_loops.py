# Nested loops: a name bound in the inner loop, and results the script
# never named, are labelled with every loop's iteration, outermost first
# ("y₂,₃": inner iteration 3 of outer iteration 2); a loop inside a
# function called from a loop counts after the caller's.
import torch
w = torch.tensor([1.0, 2.0], requires_grad=True)
total = torch.zeros(())
for i in range(2):
    for j in range(3):
        y = w * (i + j)  # record: labels=y₁,₁,y₂,₃
        total = total + (y * w).sum()  # record: labels=(y * w)₁,₂,((y * w).sum())₂,₃
def scaled(t):
    for k in range(2):
        h = t * (k + 1)  # record: labels=h₁,₁,h₂,₂
    return h
for i in range(2):
    total = total + scaled(w).sum()  # record: labels=(scaled(w).sum())₁,(scaled(w).sum())₂
total.backward()
