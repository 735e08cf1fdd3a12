# nn.MarginRankingLoss and nn.TripletMarginLoss, the docs' examples
import torch
from torch import nn
import torch.nn.functional as F
torch.manual_seed(0)
loss = nn.MarginRankingLoss(margin=0.1)
input1 = torch.randn(3, requires_grad=True)
input2 = torch.randn(3, requires_grad=True)
target = torch.randn(3).sign()
output = loss(input1, input2, target)
output.backward()
print(output, input1.grad, input2.grad)
print(F.margin_ranking_loss(input1, input2, target, reduction='none'))
triplet_loss = nn.TripletMarginLoss(margin=1.0, p=2)
anchor = torch.randn(4, 5, requires_grad=True)
positive = torch.randn(4, 5, requires_grad=True)
negative = torch.randn(4, 5, requires_grad=True)
output = triplet_loss(anchor, positive, negative)
output.backward()
print(output, anchor.grad.sum())
print(F.triplet_margin_loss(anchor, positive, negative, swap=True, reduction='sum'))
try:
    F.margin_ranking_loss(torch.ones(2), torch.ones(2, 1), torch.ones(2))
except RuntimeError as e:
    print(e)
