# x.storage() and x.data_ptr(): views share the storage of their base.
# cuda: cpu-only, the storage names its device
import torch
x = torch.arange(6.).reshape(2, 3)
print(x.storage())
y = x.t()
print(y.storage().data_ptr() == x.storage().data_ptr(), y.data_ptr() == x.data_ptr())
z = x[1]
print(z.data_ptr() - x.data_ptr(), z.storage().size(), len(z.storage()), z.storage().element_size(), z.storage().nbytes())
print(x.storage().tolist(), list(x.storage())[:2], x.storage()[4])
c = y.contiguous()
print(c.data_ptr() == x.data_ptr())
print(torch.tensor([True, False]).storage())
print(torch.arange(3).storage(), torch.zeros(0).storage())
print(x.storage().dtype)
