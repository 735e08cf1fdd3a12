# A micrograd-style scalar MLP: every weight, every product and every sum is
# its own 0-d tensor, so one backward pass runs about 5,000 graph nodes
# (4 inputs, two hidden layers of 32 tanh neurons, one output). The window
# and the benches (tests/ui/bench-graph, tests/ui/bench-window) open it to
# check that a graph this big opens fast and stays smooth.
import torch

torch.manual_seed(0)


class Neuron:
    def __init__(self, nin):
        self.w = [torch.tensor(torch.rand(()).item() * 2 - 1, requires_grad=True) for _ in range(nin)]
        self.b = torch.tensor(0.0, requires_grad=True)

    def __call__(self, x):
        act = self.b
        for wi, xi in zip(self.w, x):
            act = act + wi * xi
        return act.tanh()


class Layer:
    def __init__(self, nin, nout):
        self.neurons = [Neuron(nin) for _ in range(nout)]

    def __call__(self, x):
        return [n(x) for n in self.neurons]


class MLP:
    def __init__(self, nin, nouts):
        sizes = [nin] + nouts
        self.layers = [Layer(sizes[i], sizes[i + 1]) for i in range(len(nouts))]

    def __call__(self, x):
        for layer in self.layers:
            x = layer(x)
        return x[0]


model = MLP(4, [32, 32, 1])
x = [torch.tensor(v) for v in [0.5, -1.0, 2.0, 0.25]]
y = model(x)
loss = (y - 1.0) ** 2
loss.backward()
print("loss", round(loss.item(), 4))
