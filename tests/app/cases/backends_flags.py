# torch.backends: the device pick of the tutorials and the cudnn flags.
# cuda: cpu-only, it prints the device the tutorial picks
import torch
device = "cuda" if torch.cuda.is_available() else "mps" if torch.backends.mps.is_available() else "cpu"
print(f"Using {device} device")
print(torch.backends.mps.is_available(), torch.backends.mps.is_built(), torch.backends.cudnn.enabled, torch.backends.cudnn.benchmark, torch.backends.cudnn.deterministic, torch.backends.cudnn.is_available(), torch.backends.cudnn.version())
torch.backends.cudnn.deterministic = True
torch.backends.cudnn.benchmark = False
print(torch.backends.cudnn.deterministic, torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32)
from torch.backends import cudnn
print(cudnn.deterministic)
