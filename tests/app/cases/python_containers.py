# Lists, tuples, dicts and strings: methods, slicing, membership, nested
# structures of tensors, and how they print.
import torch
losses = []
for step in range(4):
    losses.append(round(1.0 / (step + 1), 3))
print(losses, losses[-1], losses[1:3], losses[::-1])
losses.pop()
losses.insert(0, 2.0)
print(losses, len(losses), 0.5 in losses)
grads = {"a": [1, 2], "b": (3, 4)}
grads["c"] = {"nested": True}
print(grads)
print(grads.get("z", "missing"), list(grads))
words = "chain rule backward".split()
print(words, "-".join(words), words[0].upper(), "rule" in words)
print(" padded ".strip(), "x,y".replace(",", ";"), "abc"[1], len("tensor"))
pair = (torch.tensor([1.0]), 2)
print(pair)
print([torch.tensor(1.0), torch.tensor([2, 3])])
print({"t": torch.tensor([0.5])})
print((1,), (), [], {}, None, True and False, not None)
print([1, 2] + [3], (1, 2) * 2, [0] * 3)
