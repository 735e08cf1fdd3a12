import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(4, 8)
        self.act = nn.ReLU()
        self.fc2 = nn.Linear(8, 2)
        self.register_buffer('running', torch.zeros(2))

    def forward(self, x):
        return self.fc2(self.act(self.fc1(x)))


net = Net()
print(net)
for name, p in net.named_parameters():
    print(name, p.shape, p.requires_grad)
print([n for n, _ in net.named_buffers()])
print([n for n, _ in net.named_modules()])
print(list(net.children()))
x = torch.randn(3, 4)
out = net(x)
print(out)
print(out.grad_fn)
loss = out.sum()
loss.backward()
print(net.fc1.weight.grad)
print(net.fc2.bias.grad)
sd = net.state_dict()
print(list(sd.keys()))
print(sd['fc2.bias'])
net2 = Net()
print(net2.load_state_dict(sd))
print(torch.equal(net2.fc1.weight, net.fc1.weight))
net.zero_grad()
print(net.fc1.weight.grad.abs().sum())
print(net.training, net.fc1.training)
net.eval()
print(net.training, net.fc1.training)
net.train()
print(net.training)
print(sum(p.numel() for p in net.parameters()))
