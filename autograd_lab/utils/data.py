"""``al.utils.data``, as ``torch.utils.data``: a dataset is anything with ``len()`` and
``[i]``; a DataLoader walks it in batches, in order or shuffled, and collates the samples
of a batch into tensors.

    ds = TensorDataset(x, y)                       # (x[i], y[i]) for each i
    for xb, yb in DataLoader(ds, batch_size=32, shuffle=True):
        ...

Shuffled orders are drawn from the package's generator (``al.manual_seed``) or the one
given as ``generator=``: reproducible, though not the orders torch draws (its generator
is not NumPy's).  Batches are loaded in this process: ``num_workers`` is accepted and
changes nothing but the speed torch would have.
"""
import collections.abc
import itertools
import math
import numbers
import warnings

import numpy as np

from .. import creation, functions
from ..core import dtypes
from ..core.tensor import Tensor

__all__ = ["Dataset", "TensorDataset", "Subset", "ConcatDataset", "DataLoader", "Sampler", "SequentialSampler",
           "RandomSampler", "BatchSampler", "default_collate", "default_convert", "random_split"]


# -- datasets ------------------------------------------------------------------------------
class Dataset:
    """What a DataLoader reads: ``dataset[i]`` is one sample (and ``len(dataset)`` their number)."""

    def __getitem__(self, index):
        raise NotImplementedError("Subclasses of Dataset should implement __getitem__.")

    def __add__(self, other):
        return ConcatDataset([self, other])


class TensorDataset(Dataset):
    """Sample i is (t[i] for each tensor t): tensors sharing their first dimension."""

    def __init__(self, *tensors):
        assert all(tensors[0].size(0) == t.size(0) for t in tensors), "Size mismatch between tensors"
        self.tensors = tensors

    def __getitem__(self, index):
        return tuple(t[index] for t in self.tensors)

    def __len__(self):
        return self.tensors[0].size(0)


class Subset(Dataset):
    """The samples of ``dataset`` at ``indices``, in that order."""

    def __init__(self, dataset, indices):
        self.dataset, self.indices = dataset, indices

    def __getitem__(self, idx):
        if isinstance(idx, list):
            return self.dataset[[self.indices[i] for i in idx]]
        return self.dataset[self.indices[idx]]

    def __len__(self):
        return len(self.indices)


class ConcatDataset(Dataset):
    """Datasets one after the other."""

    def __init__(self, datasets):
        self.datasets = list(datasets)
        assert len(self.datasets) > 0, "datasets should not be an empty iterable"
        self.cumulative_sizes = list(itertools.accumulate(len(d) for d in self.datasets))

    def __len__(self):
        return self.cumulative_sizes[-1]

    def __getitem__(self, idx):
        if idx < 0:
            if -idx > len(self):
                raise ValueError("absolute value of index should not exceed dataset length")
            idx = len(self) + idx
        which = next(i for i, end in enumerate(self.cumulative_sizes) if idx < end)
        start = self.cumulative_sizes[which - 1] if which else 0
        return self.datasets[which][idx - start]


def random_split(dataset, lengths, generator=None):
    """Split ``dataset`` at random into Subsets of the given lengths -- or fractions of
    its length (the remainder dealt out one by one from the first, as torch)."""
    n = len(dataset)
    if math.isclose(sum(lengths), 1) and sum(lengths) <= 1:
        sizes = [int(math.floor(n * frac)) for frac in lengths]
        for i in range(n - sum(sizes)):
            sizes[i % len(sizes)] += 1
        for i, size in enumerate(sizes):
            if size == 0:
                warnings.warn(f"Length of split at index {i} is 0. This might result in an empty dataset.",
                              stacklevel=2)
        lengths = sizes
    if sum(lengths) != n:
        raise ValueError("Sum of input lengths does not equal the length of the input dataset!")
    indices = creation.randperm(sum(lengths), generator=generator).tolist()
    return [Subset(dataset, indices[end - size:end]) for end, size in zip(itertools.accumulate(lengths), lengths)]


# -- samplers: the order of the indices ------------------------------------------------------
class Sampler:
    def __init__(self, data_source=None):
        pass

    def __iter__(self):
        raise NotImplementedError


class SequentialSampler(Sampler):
    def __init__(self, data_source):
        self.data_source = data_source

    def __iter__(self):
        return iter(range(len(self.data_source)))

    def __len__(self):
        return len(self.data_source)


class RandomSampler(Sampler):
    """A fresh random order of the indices at every pass (with ``replacement``: indices
    drawn independently)."""

    def __init__(self, data_source, replacement=False, num_samples=None, generator=None):
        self.data_source, self.replacement, self._num_samples = data_source, replacement, num_samples
        self.generator = generator
        if not isinstance(replacement, bool):
            raise TypeError(f"replacement should be a boolean value, but got replacement={replacement}")
        if not isinstance(self.num_samples, int) or self.num_samples <= 0:
            raise ValueError(f"num_samples should be a positive integer value, but got "
                             f"num_samples={self.num_samples}")

    @property
    def num_samples(self):
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self):
        n, wanted = len(self.data_source), self.num_samples
        if self.replacement:
            return iter(creation.randint(n, (wanted,), generator=self.generator).tolist())
        order = []
        while len(order) < wanted:
            order += creation.randperm(n, generator=self.generator).tolist()
        return iter(order[:wanted])

    def __len__(self):
        return self.num_samples


class BatchSampler(Sampler):
    """The indices of ``sampler`` in lists of ``batch_size`` (the last one shorter, or
    dropped with ``drop_last``)."""

    def __init__(self, sampler, batch_size, drop_last):
        if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size <= 0:
            raise ValueError(f"batch_size should be a positive integer value, but got batch_size={batch_size}")
        if not isinstance(drop_last, bool):
            raise ValueError(f"drop_last should be a boolean value, but got drop_last={drop_last}")
        self.sampler, self.batch_size, self.drop_last = sampler, batch_size, drop_last

    def __iter__(self):
        it = iter(self.sampler)
        while True:
            batch = list(itertools.islice(it, self.batch_size))
            if not batch or (self.drop_last and len(batch) < self.batch_size):
                return
            yield batch

    def __len__(self):
        n = len(self.sampler)
        return n // self.batch_size if self.drop_last else -(-n // self.batch_size)


# -- collating: a list of samples becomes a batch -------------------------------------------
def default_convert(data):
    """What a sample becomes without batching: NumPy arrays turn into tensors, the rest
    (containers walked into) stays."""
    if isinstance(data, np.ndarray) and data.dtype.kind in "biuf":
        return creation.as_tensor(data)
    if isinstance(data, collections.abc.Mapping):
        return type(data)({k: default_convert(v) for k, v in data.items()})
    if isinstance(data, tuple) and hasattr(data, "_fields"):
        return type(data)(*(default_convert(d) for d in data))
    if isinstance(data, (list, tuple)):
        return type(data)(default_convert(d) for d in data)
    return data


def default_collate(batch):
    """Stack a list of samples into a batch, as torch: tensors (and NumPy arrays) stacked
    along a new first dimension, Python floats to a float64 tensor and ints to int64, and
    containers collated entry by entry (a tuple's entries come back as a list)."""
    elem = batch[0]
    if isinstance(elem, Tensor):
        return functions.stack(batch, 0)
    if isinstance(elem, np.ndarray) and elem.dtype.kind in "biuf":
        return default_collate([creation.as_tensor(b) for b in batch])
    if isinstance(elem, np.generic) and not isinstance(elem, (np.str_, np.bytes_)):
        return creation.as_tensor(np.array(batch))
    if isinstance(elem, float):
        return creation.tensor(batch, dtype=dtypes.float64)
    if isinstance(elem, numbers.Integral):
        return creation.tensor(batch)
    if isinstance(elem, (str, bytes)):
        return batch
    if isinstance(elem, collections.abc.Mapping):
        return type(elem)({key: default_collate([d[key] for d in batch]) for key in elem})
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):
        return type(elem)(*(default_collate(s) for s in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        if any(len(e) != len(elem) for e in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        return [default_collate(s) for s in zip(*batch)]
    raise TypeError(f"default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; "
                    f"found {type(elem)}")


# -- the loader -----------------------------------------------------------------------------------
class DataLoader:
    """Batches of ``dataset``: ``batch_size`` samples at a time (None: one sample at a
    time, unbatched), in order or, with ``shuffle=True``, in a new random order at every
    pass; the samples of a batch combined by ``collate_fn`` (default_collate)."""

    def __init__(self, dataset, batch_size=1, shuffle=None, sampler=None, batch_sampler=None, num_workers=0,
                 collate_fn=None, pin_memory=False, drop_last=False, timeout=0, worker_init_fn=None,
                 multiprocessing_context=None, generator=None, *, prefetch_factor=None,
                 persistent_workers=False, pin_memory_device="", in_order=True):
        if num_workers < 0:
            raise ValueError("num_workers option should be non-negative; use num_workers=0 to disable "
                             "multiprocessing.")
        if timeout < 0:
            raise ValueError("timeout option should be non-negative")
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError("batch_sampler option is mutually exclusive with batch_size, shuffle, sampler, "
                                 "and drop_last")
            batch_size, drop_last = None, False
        elif batch_size is None and drop_last:
            raise ValueError("batch_size=None option disables auto-batching and is mutually exclusive with "
                             "drop_last")
        if sampler is None:
            sampler = RandomSampler(dataset, generator=generator) if shuffle else SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        self.dataset, self.batch_size, self.drop_last = dataset, batch_size, drop_last
        self.sampler, self.batch_sampler, self.generator = sampler, batch_sampler, generator
        self.num_workers, self.pin_memory, self.timeout = num_workers, pin_memory, timeout
        self.worker_init_fn, self.prefetch_factor = worker_init_fn, prefetch_factor
        self.persistent_workers = persistent_workers
        if collate_fn is None:
            collate_fn = default_collate if batch_sampler is not None else default_convert
        self.collate_fn = collate_fn

    def __iter__(self):
        if self.batch_sampler is None:
            for i in self.sampler:
                yield self.collate_fn(self.dataset[i])
            return
        for indices in self.batch_sampler:
            yield self.collate_fn([self.dataset[i] for i in indices])

    def __len__(self):
        return len(self.batch_sampler if self.batch_sampler is not None else self.sampler)


# -- more samplers: a random order of some indices, draws by weight, one replica's share ----------
class SubsetRandomSampler(Sampler):
    """The given ``indices``, in a new random order at every pass (a validation split, say)."""

    def __init__(self, indices, generator=None):
        self.indices, self.generator = indices, generator

    def __iter__(self):
        for i in creation.randperm(len(self.indices), generator=self.generator).tolist():
            yield self.indices[i]

    def __len__(self):
        return len(self.indices)


class WeightedRandomSampler(Sampler):
    """``num_samples`` indices 0..len(weights)-1, each drawn with probability proportional
    to its weight (with ``replacement``, independently; without, no index twice)."""

    def __init__(self, weights, num_samples, replacement=True, generator=None):
        if not isinstance(num_samples, int) or isinstance(num_samples, bool) or num_samples <= 0:
            raise ValueError(f"num_samples should be a positive integer value, but got num_samples={num_samples}")
        if not isinstance(replacement, bool):
            raise ValueError(f"replacement should be a boolean value, but got replacement={replacement}")
        weights = np.asarray(weights._data if isinstance(weights, Tensor) else weights, dtype=np.float64)
        if weights.ndim != 1:
            raise ValueError(f"weights should be a 1d sequence but given weights have shape {tuple(weights.shape)}")
        self.weights = creation.as_tensor(weights)
        self.num_samples, self.replacement, self.generator = num_samples, replacement, generator

    def __iter__(self):
        w = self.weights._data
        draw = lambda n: creation.rand(n, generator=self.generator, dtype=dtypes.float64)._data   # noqa: E731
        if self.replacement:
            chosen = np.searchsorted(np.cumsum(w), draw(self.num_samples) * w.sum(), side="right")
            return iter(np.minimum(chosen, len(w) - 1).tolist())
        with np.errstate(divide="ignore"):          # (a weight of 0: last, as a key of -inf)
            keys = np.log(draw(len(w))) / w
        return iter(np.argsort(-keys, kind="stable")[:self.num_samples].tolist())

    def __len__(self):
        return self.num_samples


class DistributedSampler(Sampler):
    """One replica's share of the dataset's indices (replica ``rank`` of ``num_replicas``),
    shuffled alike on every replica by ``seed + epoch`` (``set_epoch``), padded (or, with
    drop_last, cut) to a multiple of the replicas.  autograd_lab runs in one process and
    has no process group: give ``num_replicas`` and ``rank``."""

    def __init__(self, dataset, num_replicas=None, rank=None, shuffle=True, seed=0, drop_last=False):
        if num_replicas is None or rank is None:
            raise ValueError("Default process group has not been initialized, please make sure to call "
                             "init_process_group.")
        if rank >= num_replicas or rank < 0:
            raise ValueError(f"Invalid rank {rank}, rank should be in the interval [0, {num_replicas - 1}]")
        self.dataset, self.num_replicas, self.rank = dataset, num_replicas, rank
        self.epoch, self.drop_last, self.shuffle, self.seed = 0, drop_last, shuffle, seed
        if drop_last and len(dataset) % num_replicas != 0:
            self.num_samples = math.ceil((len(dataset) - num_replicas) / num_replicas)
        else:
            self.num_samples = math.ceil(len(dataset) / num_replicas)
        self.total_size = self.num_samples * num_replicas

    def __iter__(self):
        n = len(self.dataset)
        if self.shuffle:
            order = creation.randperm(n, generator=creation.Generator().manual_seed(self.seed + self.epoch)).tolist()
        else:
            order = list(range(n))
        if not self.drop_last:
            missing = self.total_size - len(order)
            order += order[:missing] if missing <= len(order) else (order * math.ceil(missing / len(order)))[:missing]
        else:
            order = order[:self.total_size]
        return iter(order[self.rank:self.total_size:self.num_replicas])

    def __len__(self):
        return self.num_samples

    def set_epoch(self, epoch):
        self.epoch = epoch


__all__ += ["SubsetRandomSampler", "WeightedRandomSampler", "DistributedSampler"]

from .. import not_here as _not_here  # noqa: E402
__getattr__ = _not_here.module_getattr("torch.utils.data", __name__, "al.utils.data")   # (names torch has: not_here.py)
