import torch
# An integer tensor with alpha=inf is refused as any float alpha is (it was
# cast to an integer on the way).
t = torch.tensor([1, 2])
print(t.sub(1, alpha=2))
try:
    t.sub(1, alpha=float('nan'))
except RuntimeError as e:
    print('nan:', e)
print(t.sub(1, alpha=float('inf')))
