import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(42)

class Net(nn.Module):
    def __init__(self, num_classes=3):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 4, kernel_size=3, padding=1),
            nn.BatchNorm2d(4),
            nn.ReLU(inplace=True),
            nn.MaxPool2d(2),
            nn.Conv2d(4, 8, kernel_size=3, padding=1),
            nn.ReLU(),
            nn.AdaptiveAvgPool2d((1, 1)),
        )
        self.classifier = nn.Sequential(nn.Flatten(), nn.Dropout(0.2), nn.Linear(8, num_classes))

    def forward(self, x):
        return self.classifier(self.features(x))

X = torch.randn(24, 1, 8, 8)
y = torch.randint(0, 3, (24,))
model = Net()
print(model)
print(f"parameters: {sum(p.numel() for p in model.parameters() if p.requires_grad)}")
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, weight_decay=5e-4)
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=2, gamma=0.5)
for epoch in range(4):
    model.train()
    running_loss, correct = 0.0, 0
    for i in range(0, len(X), 8):
        inputs, labels = X[i:i + 8], y[i:i + 8]
        optimizer.zero_grad()
        outputs = model(inputs)
        loss = criterion(outputs, labels)
        loss.backward()
        optimizer.step()
        running_loss += loss.item() * inputs.size(0)
        _, predicted = torch.max(outputs.data, 1)
        correct += (predicted == labels).sum().item()
    scheduler.step()
    print(f"epoch {epoch + 1}: loss {running_loss / len(X):.4f} acc {100.0 * correct / len(X):.1f}% lr {scheduler.get_last_lr()[0]}")
model.eval()
with torch.no_grad():
    logits = model(X[:5])
    probs = F.softmax(logits, dim=1)
    print(probs.argmax(dim=1).tolist(), probs.max(dim=1).values)
print(model.features[1].running_mean)
