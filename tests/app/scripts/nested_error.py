import torch


def loss_of(w):
    y = w * 2
    return y.sum() + undefined


w = torch.tensor([1.0, 2.0], requires_grad=True)
print("before")
total = loss_of(w)
print("never")
