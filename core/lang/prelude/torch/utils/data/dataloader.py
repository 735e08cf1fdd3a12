# torch.utils.data.DataLoader as PyTorch 1.13 runs it with num_workers=0:
# the batch sampler's indices, the dataset's items, default_collate. Each
# pass draws the loader's base seed from the global generator before the
# sampler draws its own, as PyTorch's iterator does, so shuffles match.
import math
import torch
from torch.utils.data.dataset import IterableDataset, TensorDataset
from torch.utils.data.sampler import SequentialSampler, RandomSampler, BatchSampler

default_collate_err_msg_format = (
    "default_collate: batch must contain tensors, numpy arrays, numbers, "
    "dicts or lists; found {}")


def default_convert(data):
    if isinstance(data, torch.Tensor):
        return data
    elif isinstance(data, dict):
        return {key: default_convert(data[key]) for key in data}
    elif isinstance(data, tuple):
        return [default_convert(d) for d in data]
    elif isinstance(data, list):
        return [default_convert(d) for d in data]
    else:
        return data


def default_collate(batch):
    elem = batch[0]
    elem_type = type(elem)
    if isinstance(elem, torch.Tensor):
        return torch.stack(batch, 0)
    elif isinstance(elem, float):
        return torch.tensor(batch, dtype=torch.float64)
    elif isinstance(elem, int):
        return torch.tensor(batch)
    elif isinstance(elem, str):
        return batch
    elif isinstance(elem, dict):
        return {key: default_collate([d[key] for d in batch]) for key in elem}
    elif isinstance(elem, (tuple, list)):
        elem_size = len(elem)
        if not all(len(e) == elem_size for e in batch):
            raise RuntimeError('each element in list of batch should be of equal size')
        transposed = list(zip(*batch))
        return [default_collate(list(samples)) for samples in transposed]
    raise TypeError(default_collate_err_msg_format.format(elem_type))


def get_worker_info():
    return None


class _InfiniteConstantSampler(object):
    def __iter__(self):
        while True:
            yield None


class DataLoader(object):
    def __init__(self, dataset, batch_size=1, shuffle=None, sampler=None,
                 batch_sampler=None, num_workers=0, collate_fn=None,
                 pin_memory=False, drop_last=False, timeout=0, worker_init_fn=None,
                 multiprocessing_context=None, generator=None, *, prefetch_factor=2,
                 persistent_workers=False, pin_memory_device=""):
        if num_workers < 0:
            raise ValueError('num_workers option should be non-negative; '
                             'use num_workers=0 to disable multiprocessing.')
        if timeout < 0:
            raise ValueError('timeout option should be non-negative')
        if num_workers == 0 and prefetch_factor != 2:
            raise ValueError('prefetch_factor option could only be specified in multiprocessing.'
                             'let num_workers > 0 to enable multiprocessing.')
        if persistent_workers and num_workers == 0:
            raise ValueError('persistent_workers option needs num_workers > 0')
        # Worker processes would load the same batches in the same order:
        # Chainrule loads them in the script's process.
        self.dataset = dataset
        self.num_workers = num_workers
        self.prefetch_factor = prefetch_factor
        self.pin_memory = pin_memory
        self.pin_memory_device = pin_memory_device
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self.multiprocessing_context = multiprocessing_context
        if isinstance(dataset, IterableDataset):
            self._dataset_is_iterable = True
            if shuffle not in {False, None}:
                raise ValueError(
                    "DataLoader with IterableDataset: expected unspecified "
                    "shuffle option, but got shuffle={}".format(shuffle))
            if sampler is not None:
                raise ValueError(
                    "DataLoader with IterableDataset: expected unspecified "
                    "sampler option, but got sampler={}".format(sampler))
            elif batch_sampler is not None:
                raise ValueError(
                    "DataLoader with IterableDataset: expected unspecified "
                    "batch_sampler option, but got batch_sampler={}".format(batch_sampler))
        else:
            shuffle = bool(shuffle)
            self._dataset_is_iterable = False
        if sampler is not None and shuffle:
            raise ValueError('sampler option is mutually exclusive with '
                             'shuffle')
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError('batch_sampler option is mutually exclusive '
                                 'with batch_size, shuffle, sampler, and '
                                 'drop_last')
            batch_size = None
            drop_last = False
        elif batch_size is None:
            if drop_last:
                raise ValueError('batch_size=None option disables auto-batching '
                                 'and is mutually exclusive with drop_last')
        if sampler is None:
            if self._dataset_is_iterable:
                sampler = _InfiniteConstantSampler()
            elif shuffle:
                sampler = RandomSampler(dataset, generator=generator)
            else:
                sampler = SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        self.batch_size = batch_size
        self.drop_last = drop_last
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        self.generator = generator
        if collate_fn is None:
            if self._auto_collation:
                collate_fn = default_collate
            else:
                collate_fn = default_convert
        self.collate_fn = collate_fn
        self.persistent_workers = persistent_workers
        self._IterableDataset_len_called = None
        self._initialized = True

    def __setattr__(self, attr, val):
        if getattr(self, '_initialized', False) and attr in (
                'batch_size', 'batch_sampler', 'sampler', 'drop_last', 'dataset', 'persistent_workers'):
            raise ValueError('{} attribute should not be set after {} is '
                             'initialized'.format(attr, self.__class__.__name__))
        super(DataLoader, self).__setattr__(attr, val)

    @property
    def _auto_collation(self):
        return self.batch_sampler is not None

    @property
    def _index_sampler(self):
        if self._auto_collation:
            return self.batch_sampler
        else:
            return self.sampler

    def __iter__(self):
        return _SingleProcessDataLoaderIter(self)

    def __len__(self):
        if self._dataset_is_iterable:
            length = self._IterableDataset_len_called = len(self.dataset)
            if self.batch_size is not None:
                if self.drop_last:
                    length = length // self.batch_size
                else:
                    length = math.ceil(length / self.batch_size)
            return length
        else:
            return len(self._index_sampler)


def _tensor_rows(dataset, collate_fn, auto_collation):
    # The tensors whose rows a batch is, when default_collate of
    # TensorDataset items would give exactly tensor[indices] for each: then
    # one gather per tensor makes the batch instead of a stack of rows.
    if not auto_collation or collate_fn is not default_collate or type(dataset) is not TensorDataset:
        return None
    for t in dataset.tensors:
        if t.requires_grad:
            return None
    return dataset.tensors


class _SingleProcessDataLoaderIter(object):
    def __init__(self, loader):
        self._dataset = loader.dataset
        self._dataset_is_iterable = loader._dataset_is_iterable
        self._IterableDataset_len_called = loader._IterableDataset_len_called
        self._auto_collation = loader._auto_collation
        self._drop_last = loader.drop_last
        self._index_sampler = loader._index_sampler
        self._num_workers = loader.num_workers
        self._collate_fn = loader.collate_fn
        self._sampler_iter = iter(self._index_sampler)
        self._base_seed = torch.empty((), dtype=torch.int64).random_(generator=loader.generator).item()
        self._num_yielded = 0
        self._ended = False
        self._dataset_iter = iter(self._dataset) if self._dataset_is_iterable else None
        self._rows = _tensor_rows(self._dataset, self._collate_fn, self._auto_collation)

    def __iter__(self):
        return self

    def __len__(self):
        return len(self._index_sampler)

    def _next_index(self):
        return next(self._sampler_iter)

    def _fetch_map(self, index):
        if self._auto_collation:
            if self._rows is not None:
                return [t[index] for t in self._rows]
            data = [self._dataset[idx] for idx in index]
        else:
            data = self._dataset[index]
        return self._collate_fn(data)

    def _fetch_iterable(self, index):
        if self._ended:
            raise StopIteration
        if self._auto_collation:
            data = []
            for _ in index:
                try:
                    data.append(next(self._dataset_iter))
                except StopIteration:
                    self._ended = True
                    break
            if len(data) == 0 or (self._drop_last and len(data) < len(index)):
                raise StopIteration
        else:
            data = next(self._dataset_iter)
        return self._collate_fn(data)

    def __next__(self):
        index = self._next_index()
        if self._dataset_is_iterable:
            data = self._fetch_iterable(index)
        else:
            data = self._fetch_map(index)
        self._num_yielded += 1
        if self._dataset_is_iterable and self._IterableDataset_len_called is not None and \
                self._num_yielded > self._IterableDataset_len_called:
            torch._C._warn(("Length of IterableDataset {} was reported to be {} (when accessing len(dataloader)), but {} "
                            "samples have been fetched. ").format(self._dataset, self._IterableDataset_len_called,
                                                                  self._num_yielded))
        return data
