# Moving tensors between devices and dtypes on a machine without CUDA: every
# CPU form of .to()/.cpu()/device= is the tensor itself or a copy with history.
import torch

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
print(x.to("cpu") is x, x.cpu() is x, x.to(torch.device("cpu")) is x)
print(x.to("cpu", torch.float64))
print(x.to(device="cpu", dtype=torch.float64))

y = torch.ones(2, 3, device="cpu")
print(y, y.device, y.is_cuda, y.device.type)
print(torch.zeros(2, device=torch.device("cpu")).device)
print(torch.zeros_like(y).device, torch.full((2,), 3.0, device="cpu"))
print(torch.arange(3, device="cpu"), torch.tensor([[1, 2]], device="cpu").device)

other = torch.zeros(1, dtype=torch.float64)
z = x.to(other)
print(z, z.dtype, z.device)
print(x.to(torch.int64), x.to(dtype=torch.float64).dtype)
print(x.to(x) is x, x.to("cpu", torch.float32) is x)

loss = (x.to(torch.float64) * torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64)).sum()
loss.backward()
print(x.grad, x.grad.dtype)
print(torch.cuda.is_available(), torch.cuda.device_count())
print(y.tolist(), y.sum().item(), bool(y.sum() > 1))
print(torch.device('cuda'), repr(torch.device('cuda')), torch.device('cuda:0'))
print(repr(torch.device('cuda', 0)), torch.device(0), torch.device('cuda').index)
print(torch.device('cuda:0') == torch.device('cuda'), repr(y.device), y.device.index)
