import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class LeNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 4, 3, padding=1)
        self.pool = nn.MaxPool2d(2, 2)
        self.conv2 = nn.Conv2d(4, 8, kernel_size=3)
        self.bn = nn.BatchNorm2d(8)
        self.avg = nn.AdaptiveAvgPool2d((1, 1))
        self.drop = nn.Dropout(0.25)
        self.fc = nn.Linear(8, 3)

    def forward(self, x):
        x = self.pool(F.relu(self.conv1(x)))
        x = F.relu(self.bn(self.conv2(x)))
        x = self.avg(x).flatten(1)
        return self.fc(self.drop(x))


net = LeNet()
print(net)
x = torch.randn(2, 1, 8, 8)
out = net(x)
print(out)
out.sum().backward()
print(net.conv1.weight.grad.shape, net.conv1.bias.grad.abs().sum())
print(net.bn.running_mean, net.bn.num_batches_tracked)
net.eval()
print(net(x))
print([k for k in net.state_dict().keys()])
print(nn.Conv1d(2, 4, 3, stride=2, padding=1, bias=False))
print(nn.Conv2d(3, 6, (3, 5), dilation=2, groups=3, padding_mode='reflect'))
print(nn.AvgPool2d(3, stride=1, padding=1))
e = nn.Embedding(10, 3, padding_idx=0)
print(e)
print(e(torch.tensor([[0, 2], [4, 9]])))
ln = nn.LayerNorm(4)
print(ln)
print(ln(torch.randn(2, 4)))
bn1 = nn.BatchNorm1d(3)
print(bn1)
y = bn1(torch.randn(5, 3))
print(y)
print(bn1.running_var)
c1 = nn.Conv1d(2, 3, 2)
print(c1(torch.randn(1, 2, 5)))
