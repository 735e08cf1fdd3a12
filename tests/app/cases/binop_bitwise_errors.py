# cuda: cpu-only, the errors name PyTorch's CPU kernels ("bitwise_and_cpu")
import torch
for f_ in (lambda: torch.tensor([1.0]) & torch.tensor([1.0]), lambda: torch.bitwise_xor(torch.tensor([1.5]), torch.tensor([1])),
           lambda: torch.tensor([1]) | torch.tensor([2.0], dtype=torch.float64), lambda: torch.bitwise_and(torch.ones(2), 1)):
    try:
        print(f_())
    except Exception as e:
        print(type(e).__name__, e)
