# nn.LSTMCell, nn.GRUCell and nn.RNNCell, stepped by hand as tutorials do:
# PyTorch 1.13's CPU cells split their gates with unsafe_chunk
# (UnsafeSplitBackward0), as nn.LSTM and nn.GRU do.
import torch
import torch.nn as nn


def walk(fn, depth=0, maxd=4):
    if fn is None or depth > maxd:
        return
    print('  ' * depth + fn.name())
    for f, _ in fn.next_functions:
        walk(f, depth + 1, maxd)


torch.manual_seed(0)
cell = nn.LSTMCell(3, 4)
print(cell, [n for n, _ in cell.named_parameters()])
x = torch.randn(5, 2, 3)
h = torch.zeros(2, 4)
c = torch.zeros(2, 4)
outs = []
for t in range(x.size(0)):
    h, c = cell(x[t], (h, c))
    outs.append(h)
out = torch.stack(outs)
print(out.shape, h.grad_fn, c.grad_fn)
print(h)
walk(h.grad_fn, maxd=3)
out.sum().backward()
print(cell.weight_ih.grad.shape, cell.bias_hh.grad[:4])
print(cell.weight_hh.grad[0])

gru = nn.GRUCell(3, 4)
hg = gru(x[0])
print(gru, hg)
walk(hg.grad_fn, maxd=3)
hg2 = gru(x[1], hg)
hg2.pow(2).sum().backward()
print(gru.bias_ih.grad)

rnn = nn.RNNCell(3, 4, nonlinearity='relu')
print(rnn, nn.RNNCell(3, 2, bias=False))
r = rnn(x[0], torch.ones(2, 4))
print(r, r.grad_fn)
one, = [nn.RNNCell(3, 4)(torch.randn(3))]
print(one.shape, one.grad_fn)
h1, c1 = cell(torch.randn(3))
print(h1.shape, h1.grad_fn, c1.grad_fn)

print(torch.tensor([[1.0, 2.0, 3.0]]).unsafe_chunk(3, 1))
print(torch.unsafe_split(torch.arange(5.0), 2))
y = torch.arange(4.0, requires_grad=True).unsafe_chunk(2)[1]
print(y.grad_fn, y.grad_fn.next_functions)


def show(f):
    try:
        f()
    except Exception as e:
        print(type(e).__name__ + ':', e)


show(lambda: cell(torch.randn(2, 2, 3)))
show(lambda: cell(torch.randn(2, 5)))
show(lambda: cell(torch.randn(2, 3), (torch.zeros(3, 4), torch.zeros(2, 4))))
show(lambda: cell(torch.randn(2, 3), (torch.zeros(2, 4), torch.zeros(2, 5))))
show(lambda: gru(torch.randn(2, 3), torch.zeros(2, 3)))
show(lambda: nn.RNNCell(3, 4, nonlinearity='sigmoid')(torch.randn(1, 3)))
