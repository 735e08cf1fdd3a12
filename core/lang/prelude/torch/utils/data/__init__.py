# torch.utils.data: datasets, samplers and the single-process DataLoader.
from torch.utils.data.dataset import Dataset, IterableDataset, TensorDataset, ConcatDataset, Subset, random_split
from torch.utils.data.sampler import Sampler, SequentialSampler, RandomSampler, SubsetRandomSampler, BatchSampler
from torch.utils.data.dataloader import DataLoader, default_collate, default_convert, get_worker_info
