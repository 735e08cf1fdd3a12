# d2l writes numpy's spellings: axis= for dim=, keepdims= for keepdim=
import torch
A = torch.arange(20, dtype=torch.float32).reshape(5, 4)
print(A.sum(axis=0), A.sum(axis=[0, 1]), A.mean(axis=1))
print(A.sum(axis=1, keepdims=True).shape, torch.argmax(A, axis=1), A.argmax(axis=0))
print(torch.cumsum(A, axis=0)[-1], A.max(axis=1).values, torch.softmax(A, axis=1)[0])
try:
    torch.ones(2).add(torch.ones(2), axis=0)
except TypeError as e:
    print(e)
