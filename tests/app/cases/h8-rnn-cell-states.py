# The cells' one forward: a sample or a batch, with or without a state, an
# LSTM's state as a pair, and the errors of a wrong input or nonlinearity.
import torch
import torch.nn as nn

torch.manual_seed(3)
lstm = nn.LSTMCell(2, 3)
gru = nn.GRUCell(2, 3)
rnn = nn.RNNCell(2, 3)
x = torch.randn(2)
h, c = lstm(x, (torch.ones(3), torch.zeros(3)))
print(h, c)
h, c = lstm(x.unsqueeze(0))
print(h.shape, c.shape, h.grad_fn)
print(gru(x, torch.ones(3)))
print(rnn(torch.randn(4, 2)).shape)
for cell in (lstm, gru, rnn):
    try:
        cell(torch.randn(1, 2, 2))
    except AssertionError as e:
        print(type(e).__name__, e)
rnn.nonlinearity = 'gelu'
try:
    rnn(x)
except RuntimeError as e:
    print(type(e).__name__, e)
try:
    gru(torch.randn(2, 2), torch.zeros(3, 3))
except RuntimeError as e:
    print(type(e).__name__, e)
