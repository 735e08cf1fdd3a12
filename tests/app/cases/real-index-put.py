# Tensor.index_put_ / index_put / torch.index_put, with accumulate=: repeated
# positions add up, IndexPutBackward0 with _saved_accumulate, gradients to the
# tensor and to the values, and PyTorch's errors.
import torch

w = torch.tensor([[1., 2., 3.], [4., 5., 6.]], requires_grad=True)
a = w * 1
r = a.index_put_((torch.tensor([0, 1, 0]), torch.tensor([2, 0, 2])), torch.tensor([10., 20., 30.]),
                 accumulate=True)
print(r is a, a, a.grad_fn, a.grad_fn._saved_accumulate)
b = w.index_put((torch.tensor([1]),), torch.tensor(7.))
print(b, b.grad_fn, b.grad_fn._saved_accumulate, b.grad_fn.next_functions[0][0])
v = torch.tensor([1., 2.], requires_grad=True)
c = torch.index_put(w, (torch.tensor([0, 0]), torch.tensor([1, 1])), v, True)
print(c, c.grad_fn)
d = w.clone()
torch.index_put_(d, [torch.tensor([[0], [1]]), torch.tensor([0, 2])], v * 3)
print(d)
(a.sum() + (b * 2).sum() + (c * c).sum() + (d ** 2).sum()).backward()
print(w.grad, v.grad)

m = torch.zeros(3)
m.index_put_([torch.tensor([True, False, True])], torch.tensor(5.))
print(m)
m.index_put_((torch.tensor([0, 0, 0]),), torch.tensor(1.), accumulate=True)
print(m, m._version)
counts = torch.zeros(4, dtype=torch.int64)
counts.index_put_((torch.tensor([1, 3, 1, 1]),), torch.tensor(1), accumulate=True)
print(counts)

for f in [lambda: w.index_put_((torch.tensor([0]),), torch.tensor(1.)),
          lambda: torch.zeros(3).index_put_((torch.tensor([0]),), torch.tensor([1])),
          lambda: torch.zeros(3).index_put_((torch.tensor([5]),), torch.tensor(1.)),
          lambda: torch.zeros(3).index_put_(torch.tensor([1]), torch.tensor(1.)),
          lambda: torch.zeros(3).index_put_((torch.tensor([1]),), 1.),
          lambda: torch.zeros(2, 3).index_put_((None, torch.tensor([1])), torch.tensor(1.)),
          lambda: torch.zeros(3).index_put_((torch.tensor([1, 2]),), torch.tensor([1., 2., 3.]))]:
    try:
        print(f())
    except (RuntimeError, IndexError, TypeError) as e:
        print(type(e).__name__, e)
