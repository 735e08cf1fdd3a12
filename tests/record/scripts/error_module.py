# A model given an input of the wrong width: the error is the call's, its
# operands those of the op that failed inside nn.Linear: the input and the
# first layer's weight (its bias is not at fault).
import torch
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.ReLU(), torch.nn.Linear(3, 1))
batch = torch.ones(5, 3)
pred = model(batch)  # record: operands=batch,0.weight
