# Turning gradient tracking off: torch.no_grad() and detach().
# Inside `with torch.no_grad():` no graph is recorded, so results do not
# require grad; detach() gives a tensor that shares the data but has no history.
# Both are how you evaluate a trained model or update weights by hand.
import torch

x = torch.ones(5)
w = torch.tensor([[ 0.3367,  0.1288,  0.2345],
                  [ 0.2303, -1.1229, -0.1863],
                  [ 2.2082, -0.6380,  0.4617],
                  [ 0.2674,  0.5349,  0.8094],
                  [ 1.1103, -1.6898, -0.9890]], requires_grad=True)
b = torch.tensor([0.9580, 1.3221, 0.8172], requires_grad=True)

z = torch.matmul(x, w) + b
print(z.requires_grad)

with torch.no_grad():
    z = torch.matmul(x, w) + b
print(z.requires_grad)

z = torch.matmul(x, w) + b
z_det = z.detach()
print(z_det.requires_grad)
print(z_det)
print(z_det.grad_fn, z.grad_fn is not None)
