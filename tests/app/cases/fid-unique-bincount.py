# torch.unique / torch.bincount on labels, as data preparation uses them (no NaN: PyTorch's order for it is unspecified).
import torch
def show(f):
    try:
        print(f())
    except Exception as e:
        print(type(e).__name__ + ":", e)
print(torch.unique(torch.tensor([3, 1, 3, 2])))
print(torch.unique(torch.tensor([3., 1., 3.]), return_inverse=True))
print(torch.unique(torch.tensor([[2, 1], [1, 5]]), return_inverse=True, return_counts=True))
print(torch.tensor([2, 2, 0]).unique(return_counts=True))
print(torch.unique(torch.tensor([True, False, True])))
print(torch.unique(torch.tensor([], dtype=torch.long)))
print(torch.bincount(torch.tensor([0, 1, 1, 3])), torch.bincount(torch.tensor([1]), minlength=4))
print(torch.bincount(torch.tensor([0, 1, 1, 3]), weights=torch.tensor([0.5, 1., 1., 2.])))
print(torch.bincount(torch.tensor([0, 2]), weights=torch.tensor([1., 2.], dtype=torch.float64)))
print(torch.tensor([2, 2]).bincount(), torch.bincount(torch.tensor([], dtype=torch.long)))
show(lambda: torch.bincount(torch.tensor([-1, 2])))
show(lambda: torch.bincount(torch.tensor([1.0, 2.0])))
show(lambda: torch.bincount(torch.tensor([[1, 2]])))
show(lambda: torch.bincount(torch.tensor([1, 2]), weights=torch.tensor([1.0])))
labels = torch.tensor([0, 2, 2, 1, 2])
classes, counts = labels.unique(return_counts=True)
print(classes.tolist(), counts.tolist(), (counts.float() / counts.sum()).tolist())
