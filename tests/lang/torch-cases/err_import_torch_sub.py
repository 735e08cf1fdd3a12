import torch.foo
