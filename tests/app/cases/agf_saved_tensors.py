# grad_fn._saved_self and its kind, as PyTorch 1.13 names them: what mul, div,
# pow, mm, where, maximum, addcmul and the elementwise functions saved (None for
# what an op did not need), and the error once a backward freed them.
import torch
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = torch.tensor([3.0, 4.0], requires_grad=True)
c = torch.tensor([5.0, 6.0])
z = x * y
print(z.grad_fn._saved_self, z.grad_fn._saved_other)
z2 = x * c
print(z2.grad_fn._saved_self, z2.grad_fn._saved_other)
print((x / y).grad_fn._saved_self, (x / y).grad_fn._saved_other)
w = x.exp()
print(w.grad_fn._saved_result)
print(x.sin().grad_fn._saved_self, x.tanh().grad_fn._saved_result, x.sigmoid().grad_fn._saved_result)
p = x ** 2
print(p.grad_fn._saved_self, p.grad_fn._saved_exponent, (x ** 2.5).grad_fn._saved_exponent)
q = x ** y
print(q.grad_fn._saved_self, q.grad_fn._saved_exponent, q.grad_fn._saved_result)
m = torch.ones(2, 3, requires_grad=True) @ torch.ones(3, 2, requires_grad=True)
print(m.grad_fn, m.grad_fn._saved_self, m.grad_fn._saved_mat2)
print(torch.maximum(x, y).grad_fn._saved_self, torch.where(x > 1, x, y).grad_fn._saved_condition)
a = torch.addcmul(x, x, y, value=0.5)
print(a.grad_fn._saved_tensor1, a.grad_fn._saved_tensor2, a.grad_fn._saved_value)
z.sum().backward()
try:
    print(z.grad_fn._saved_self)
except RuntimeError as e:
    print(e)
print(x.relu().grad_fn._saved_result, x.log().grad_fn._saved_self)
