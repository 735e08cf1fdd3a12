# torch.utils.data: datasets, samplers and the single-process DataLoader.
import torch
from torch.utils.data.dataset import (Dataset, IterableDataset, TensorDataset, ConcatDataset, ChainDataset,
                                      Subset, random_split)
from torch.utils.data.sampler import (Sampler, SequentialSampler, RandomSampler, SubsetRandomSampler,
                                      WeightedRandomSampler, BatchSampler)
from torch.utils.data.dataloader import DataLoader, default_collate, default_convert, get_worker_info


# What torch.utils.data has in PyTorch 1.13 and Chainrule lacks says so.
def __getattr__(name):
    torch._C._missing_attribute('torch.utils.data', name)
