# An in-place update (+=) of a leaf that requires grad outside no_grad fails;
# the fix is `with torch.no_grad():`.
import torch
w = torch.tensor([1.0, 2.0], requires_grad=True)
with torch.no_grad():
    w += 1
print(w)
w += 1
