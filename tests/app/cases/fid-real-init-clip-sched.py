# Real code, written as tutorials write it: Chainrule must print what PyTorch 1.13 prints.
import torch
import torch.nn as nn

torch.manual_seed(7)
layer = nn.Linear(5, 3)
nn.init.xavier_uniform_(layer.weight)
nn.init.zeros_(layer.bias)
print(layer.weight)
print(layer.bias)
conv = nn.Conv2d(2, 3, 3)
nn.init.kaiming_normal_(conv.weight, mode='fan_out', nonlinearity='relu')
print(conv.weight.std() > 0)
nn.init.constant_(conv.bias, 0.1)
print(conv.bias)
w = torch.empty(2, 3)
nn.init.normal_(w, mean=0.0, std=0.02)
print(w)
nn.init.uniform_(w, -0.1, 0.1)
print(w)
nn.init.ones_(w)
print(w)

def init_weights(m):
    if isinstance(m, nn.Linear):
        torch.nn.init.xavier_normal_(m.weight)
        m.bias.data.fill_(0.01)

net = nn.Sequential(nn.Linear(2, 2), nn.ReLU(), nn.Linear(2, 1))
net.apply(init_weights)
print(net[0].bias)

x = torch.randn(8, 2)
target = torch.randn(8, 1)
opt = torch.optim.SGD(net.parameters(), lr=0.5)
sched = torch.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
for step in range(5):
    opt.zero_grad()
    loss = nn.functional.mse_loss(net(x), target)
    loss.backward()
    total = torch.nn.utils.clip_grad_norm_(net.parameters(), max_norm=0.5)
    opt.step()
    sched.step()
    print(step, round(loss.item(), 4), round(float(total), 4), sched.get_last_lr())
torch.nn.utils.clip_grad_value_(net.parameters(), clip_value=0.01)
print(net[0].weight.grad)
