# "Training a classifier" (the PyTorch 60-minute blitz) on random images:
# LeNet with batch norm and dropout, SGD with momentum, a scheduler, the
# evaluation loop and per-class accuracy.
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.utils.data import TensorDataset, DataLoader

torch.manual_seed(0)
classes = ('plane', 'car', 'bird', 'cat')
images = torch.randn(24, 3, 16, 16)
labels = torch.randint(0, len(classes), (24,))
images[labels == 1] += 0.5
trainset = TensorDataset(images[:16], labels[:16])
testset = TensorDataset(images[16:], labels[16:])
trainloader = DataLoader(trainset, batch_size=4, shuffle=True)
testloader = DataLoader(testset, batch_size=4, shuffle=False)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 6, 3, padding=1)
        self.bn1 = nn.BatchNorm2d(6)
        self.pool = nn.MaxPool2d(2, 2)
        self.conv2 = nn.Conv2d(6, 8, 3)
        self.fc1 = nn.Linear(8 * 3 * 3, 32)
        self.dropout = nn.Dropout(0.25)
        self.fc2 = nn.Linear(32, len(classes))

    def forward(self, x):
        x = self.pool(F.relu(self.bn1(self.conv1(x))))
        x = self.pool(F.relu(self.conv2(x)))
        x = torch.flatten(x, 1)
        x = self.dropout(F.relu(self.fc1(x)))
        x = self.fc2(x)
        return x


net = Net()
print(net)
print(sum(p.numel() for p in net.parameters() if p.requires_grad))
criterion = nn.CrossEntropyLoss()
optimizer = optim.SGD(net.parameters(), lr=0.01, momentum=0.9, weight_decay=5e-4)
scheduler = optim.lr_scheduler.StepLR(optimizer, step_size=2, gamma=0.5)

for epoch in range(3):
    running_loss = 0.0
    net.train()
    for i, data in enumerate(trainloader, 0):
        inputs, targets = data
        optimizer.zero_grad()
        outputs = net(inputs)
        loss = criterion(outputs, targets)
        loss.backward()
        optimizer.step()
        running_loss += loss.item()
        if i % 2 == 1:
            print(f'[{epoch + 1}, {i + 1:5d}] loss: {running_loss / 2:.3f}')
            running_loss = 0.0
    scheduler.step()
    print(epoch, scheduler.get_last_lr())

print('Finished Training')
print(net.bn1.running_mean, net.bn1.num_batches_tracked)
print(net.conv1.weight.grad[0, 0])

correct = 0
total = 0
net.eval()
with torch.no_grad():
    for data in testloader:
        images, targets = data
        outputs = net(images)
        _, predicted = torch.max(outputs.data, 1)
        total += targets.size(0)
        correct += (predicted == targets).sum().item()
print(f'Accuracy of the network on the {total} test images: {100 * correct // total} %')

correct_pred = {classname: 0 for classname in classes}
total_pred = {classname: 0 for classname in classes}
with torch.inference_mode():
    for images, targets in testloader:
        outputs = net(images)
        _, predictions = torch.max(outputs, 1)
        for label, prediction in zip(targets, predictions):
            if label == prediction:
                correct_pred[classes[label]] += 1
            total_pred[classes[label]] += 1
for classname, correct_count in correct_pred.items():
    if total_pred[classname] == 0:
        continue
    accuracy = 100 * float(correct_count) / total_pred[classname]
    print(f'Accuracy for class: {classname:5s} is {accuracy:.1f} %')
print(outputs.is_inference(), F.softmax(outputs, dim=1).argmax(1))
print(list(net.state_dict().keys())[:6])
