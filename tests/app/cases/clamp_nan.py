# clamp with NaN bounds as PyTorch 1.13: both bounds given and one NaN fills
# NaN; a single NaN bound leaves x as it is (issue 9, item 12).
import torch

nan = float('nan')
x = torch.tensor([1., 2., nan, -5.])
print(torch.tensor([1., 2.]).clamp(min=nan))
print(x.clamp(min=nan))
print(x.clamp(max=nan))
print(x.clamp(min=nan, max=1))
print(x.clamp(min=0, max=nan))
print(torch.clamp(x, nan, nan))
print(x.double().clamp(min=nan, max=1))
print(x.clamp(3, 1))
print(torch.tensor([1, 2]).clamp(min=nan, max=3))
print(torch.tensor([1, 2]).clamp(max=float('inf')))
print(torch.tensor([1, 2]).clamp(min=-1e19))
print(torch.tensor([1, 2]).clamp(min=2**62))
try:
    torch.tensor([1, 2]).clamp(min=1e300)
except RuntimeError as e:
    print("RuntimeError:", e)
