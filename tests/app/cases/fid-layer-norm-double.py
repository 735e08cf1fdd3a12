# layer_norm differentiated twice: PyTorch 1.13 records the backward as one
# op, NativeLayerNormBackwardBackward0, over (grad_out, input, mean, rstd,
# weight, bias), with the three gradients as its outputs.
import torch
import torch.nn.functional as F

x = torch.tensor([[1.0, 2.0, 4.0], [0.5, -1.0, 3.0]], requires_grad=True)
w = torch.tensor([1.5, -0.5, 2.0], requires_grad=True)
b = torch.tensor([0.1, 0.2, -0.3], requires_grad=True)
y = F.layer_norm(x, (3,), w, b)
print(y.grad_fn, y.grad_fn.next_functions)
loss = (y * y * torch.tensor([1.0, 2.0, 3.0])).sum()
gx, gw, gb = torch.autograd.grad(loss, (x, w, b), create_graph=True)
print(gx.grad_fn)
print(gx.grad_fn is gw.grad_fn, gw.grad_fn is gb.grad_fn)
print(gx.grad_fn.next_functions)
print(gx)
print(gw)
print(gb)
node = gx.grad_fn
print(node._saved_normalized_shape)
print(node._saved_mean)
print(node._saved_rstd)
print(node._saved_weight)
print(node._saved_input is x or node._saved_input.equal(x))
print(sorted(a for a in dir(node) if a.startswith("_saved")))
s = (gx * gx).sum() + (gw ** 2).sum() + (gb * torch.tensor([1.0, -1.0, 2.0])).sum()
s.backward()
print(x.grad)
print(w.grad)
print(b.grad)

# No weight, no bias: only the input's gradient, the other edges None.
x2 = torch.tensor([[0.0, 1.0, 3.0, 2.0]], requires_grad=True)
y2 = F.layer_norm(x2, (4,))
g2, = torch.autograd.grad((y2 ** 3).sum(), x2, create_graph=True)
print(g2.grad_fn, g2.grad_fn.next_functions)
print(g2.grad_fn._saved_weight)
(g2 * torch.tensor([[1.0, 2.0, 0.0, -1.0]])).pow(2).sum().backward()
print(x2.grad)

# nn.LayerNorm over two dims, a linear loss: grad_out needs no gradient.
ln = torch.nn.LayerNorm((2, 2))
x3 = torch.tensor([[[1.0, 2.0], [3.0, 5.0]]], requires_grad=True)
z = ln(x3)
g3 = torch.autograd.grad((z * torch.tensor([[1.0, -2.0], [0.5, 3.0]])).sum(), [x3, ln.weight],
                         create_graph=True)
print(g3[0].grad_fn.next_functions[0], g3[1].grad_fn.name())
(g3[0].pow(2).sum() + g3[1].sum()).backward()
print(x3.grad)
print(ln.weight.grad, ln.bias.grad)

# A third derivative: PyTorch's double backward takes the saved mean and
# rstd as constants, and so does Chainrule's.
x4 = torch.tensor([[1.0, 2.0, 4.0], [0.5, -1.0, 3.0]], dtype=torch.float64, requires_grad=True)
w4 = torch.tensor([1.5, -0.5, 2.0], dtype=torch.float64, requires_grad=True)
y4 = F.layer_norm(x4, (3,), w4)
gx4, gw4 = torch.autograd.grad((y4 ** 3).sum(), (x4, w4), create_graph=True)
hx4, hw4 = torch.autograd.grad((gx4 ** 2).sum() + (gw4 ** 3).sum(), (x4, w4), create_graph=True)
(hx4.sum() + hw4.pow(2).sum()).backward()
print(x4.grad / 1e9)
print(w4.grad / 1e9)

# Only the bias requires grad: PyTorch drops ∂b's incoming gradient when
# there is no weight, so nothing reaches the bias.
b5 = torch.tensor([0.1, 0.2, 0.3], requires_grad=True)
y5 = F.layer_norm(torch.tensor([[1.0, 2.0, 4.0]]), (3,), None, b5)
gb5, = torch.autograd.grad((y5 ** 2).sum(), b5, create_graph=True)
print(gb5, gb5.grad_fn.next_functions[5])
gb5.sum().backward()
print(b5.grad)
