# Real code, written as tutorials write it: Chainrule must print what PyTorch 1.13 prints.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(42)

class Net(nn.Module):
    def __init__(self, in_features, hidden, out_features):
        super(Net, self).__init__()
        self.fc1 = nn.Linear(in_features, hidden)
        self.fc2 = nn.Linear(hidden, hidden)
        self.fc3 = nn.Linear(hidden, out_features)

    def forward(self, x):
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        return self.fc3(x)

model = Net(4, 8, 3)
print(model)
X = torch.randn(16, 4)
y = torch.randint(0, 3, (16,))
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)

for epoch in range(5):
    optimizer.zero_grad()
    outputs = model(X)
    loss = criterion(outputs, y)
    loss.backward()
    optimizer.step()
    print(f"Epoch [{epoch+1}/5], Loss: {loss.item():.4f}")

with torch.no_grad():
    preds = model(X).argmax(dim=1)
    acc = (preds == y).float().mean()
    print(f"Accuracy: {acc.item()*100:.2f}%")
    print(preds)
print(sum(p.numel() for p in model.parameters() if p.requires_grad))
for name, param in model.named_parameters():
    print(name, param.shape, param.grad.norm().item() > 0)
