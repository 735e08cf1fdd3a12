import torch
names = ["w", "b", "lr"]
vals = [1.5, -2, 0.1]
d = {k: v for k, v in zip(names, vals) if k != "b"}
print(d)
sq = {i: i * i for i in range(5)}
print(sq, len(sq))
inv = {v: k for k, v in sq.items()}
print(inv)
grid = {(i, j): i * j for i in range(3) for j in range(i)}
print(grid)
params = {n: torch.tensor(float(i), requires_grad=True) for i, n in enumerate(["a", "b"])}
loss = params["a"] * 3 + params["b"] ** 2
loss.backward()
print({k: p.grad.item() for k, p in params.items()})
dup = {x % 3: x for x in range(10)}
print(dup)
k = "outer"
print({k: 1 for k in "ab"}, k)
print({[i]: i for i in range(2)})
