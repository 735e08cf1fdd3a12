# A model evaluated under no_grad, as after training: its prediction is
# made from the model's parameters and its input, the source the window
# draws it from; a method of the prediction keeps that source.
import torch
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Tanh(), torch.nn.Linear(4, 2))
inputs = torch.randn(5, 3)
targets = torch.tensor([0, 1, 1, 0, 1])
loss = torch.nn.functional.cross_entropy(model(inputs), targets)
loss.backward()
with torch.no_grad():  # record: region=no_grad
    pred = model(inputs)  # record: source=inputs
    guess = model(inputs).argmax(1)  # record: source=inputs
    accuracy = (guess == targets).float().mean()
print(round(accuracy.item(), 4))
