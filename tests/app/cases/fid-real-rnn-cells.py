# Real code, written as tutorials write it: Chainrule must print what PyTorch 1.13 prints.
import torch
import torch.nn as nn
torch.manual_seed(0)
cell = nn.LSTMCell(3, 4)
x = torch.randn(5, 2, 3)
h = torch.zeros(2, 4)
c = torch.zeros(2, 4)
outs = []
for t in range(x.size(0)):
    h, c = cell(x[t], (h, c))
    outs.append(h)
out = torch.stack(outs)
print(out.shape, h.grad_fn)
out.sum().backward()
print(cell.weight_ih.grad.shape, cell.bias_hh.grad[:4])
gru = nn.GRUCell(3, 4)
hg = gru(x[0])
print(hg)
rnn = nn.RNNCell(3, 4, nonlinearity='tanh')
print(rnn(x[0]).shape)
lstm = nn.LSTM(input_size=3, hidden_size=4, num_layers=1, batch_first=True)
seq = torch.randn(2, 5, 3)
output, (hn, cn) = lstm(seq)
print(output.shape, hn.shape, cn.shape)
print(output[:, -1, :])
gru2 = nn.GRU(3, 4, batch_first=True)
o2, h2 = gru2(seq)
print(o2.shape, h2.shape)
