"""al.utils.data against torch.utils.data: datasets, the batches a DataLoader makes (in
order, shuffled, dropped), how samples are collated, random_split's lengths, and the
refusals, in torch's words."""
from collections import namedtuple

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="torch is not installed; `pip install torch==2.13.0` "
                                            "to compare autograd_lab with PyTorch")
import torch.utils.data  # noqa: E402

import autograd_lab as al  # noqa: E402
from autograd_lab.utils import data  # noqa: E402

from op_cases import error_of  # noqa: E402

Pair = namedtuple("Pair", "a b")


def _printed(x):
    return repr(x).replace("torch.", "al.")


def _dataset(lib):
    return lib.utils.data.TensorDataset(lib.arange(14.0).reshape(7, 2), lib.arange(7))


@pytest.mark.parametrize("batch_size, drop_last", [(1, False), (3, False), (3, True), (7, True), (10, False)])
def test_a_dataloader_in_order_gives_torchs_batches(batch_size, drop_last):
    ours, theirs = (lib.utils.data.DataLoader(_dataset(lib), batch_size=batch_size, drop_last=drop_last)
                    for lib in (al, torch))
    assert len(ours) == len(theirs)
    assert _printed(list(ours)) == _printed(list(theirs))


def test_a_dataset_indexes_and_counts_as_torchs():
    for lib in (al, torch):
        assert len(_dataset(lib)) == 7
    assert _printed(_dataset(al)[2]) == _printed(_dataset(torch)[2])
    assert _printed(_dataset(al)[1:3]) == _printed(_dataset(torch)[1:3])
    ours = data.ConcatDataset([data.Subset(_dataset(al), [4, 0]), _dataset(al)])
    theirs = torch.utils.data.ConcatDataset([torch.utils.data.Subset(_dataset(torch), [4, 0]), _dataset(torch)])
    assert len(ours) == len(theirs) == 9
    assert [_printed(ours[i]) for i in (0, 1, 2, -1)] == [_printed(theirs[i]) for i in (0, 1, 2, -1)]


def test_shuffling_draws_a_new_order_each_pass_from_the_packages_generator():
    loader = data.DataLoader(_dataset(al), batch_size=2, shuffle=True)
    al.manual_seed(3)
    first, second = ([int(i) for _, y in loader for i in y] for _ in range(2))
    assert sorted(first) == sorted(second) == list(range(7)) and first != second
    al.manual_seed(3)
    assert [int(i) for _, y in loader for i in y] == first           # al.manual_seed repeats it
    orders = [[int(i) for _, y in data.DataLoader(_dataset(al), batch_size=3, shuffle=True,
                                                  generator=al.Generator().manual_seed(5)) for i in y]
              for _ in range(2)]
    assert orders[0] == orders[1]                                    # so does a generator of one's own
    kept = [len(y) for _, y in data.DataLoader(_dataset(al), batch_size=3, shuffle=True, drop_last=True)]
    assert kept == [3, 3]


COLLATED = {
    "tuples of numbers": [(1, 2.0), (3, 4.0)],
    "dicts with lists": [{"x": 1, "y": [1.0, 2.0]}, {"x": 2, "y": [3.0, 4.0]}],
    "NumPy arrays": [np.ones(2), np.zeros(2)],
    "NumPy float32 numbers": [np.float32(1), np.float32(2)],
    "strings": ["a", "b"],
    "bools": [True, False],
    "named tuples": [Pair(1, 2.0), Pair(3, 4.0)],
    "lists of unequal length": [[1, 2], [3]],
}


@pytest.mark.parametrize("case", list(COLLATED))
def test_default_collate_batches_samples_as_torchs(case):
    ours, theirs = (error_of(lambda: f(COLLATED[case])) for f in (data.default_collate,
                                                                   torch.utils.data.default_collate))
    if theirs[0] is not None:
        assert ours == theirs
    else:
        assert _printed(data.default_collate(COLLATED[case])) == \
            _printed(torch.utils.data.default_collate(COLLATED[case]))


def test_tensors_in_a_batch_are_stacked_keeping_the_graph():
    x = al.ones(3, 2, requires_grad=True)
    batch = data.default_collate([x[0] * 2, x[1]])
    batch.sum().backward()
    assert batch.shape == (2, 2) and x.grad.tolist() == [[2.0, 2.0], [1.0, 1.0], [0.0, 0.0]]


def test_without_batching_a_loader_gives_the_samples():
    assert list(data.DataLoader(range(3), batch_size=None)) == list(torch.utils.data.DataLoader(range(3),
                                                                                               batch_size=None))


@pytest.mark.parametrize("lengths, n", [([0.33, 0.33, 0.34], 10), ([0.5, 0.5], 7), ([2, 3], 5)])
def test_random_split_makes_torchs_lengths_from_disjoint_indices(lengths, n):
    ours = data.random_split(range(n), lengths, generator=al.Generator().manual_seed(0))
    theirs = torch.utils.data.random_split(range(n), lengths)
    assert [len(s) for s in ours] == [len(s) for s in theirs]
    assert sorted(i for s in ours for i in s) == list(range(n))


REFUSED = {
    "shuffle and a sampler": lambda L: L.utils.data.DataLoader(range(5), shuffle=True, sampler=[0]),
    "a batch_sampler and a batch_size": lambda L: L.utils.data.DataLoader(range(5), batch_sampler=[[0]], batch_size=2),
    "no batching and drop_last": lambda L: L.utils.data.DataLoader(range(5), batch_size=None, drop_last=True),
    "negative num_workers": lambda L: L.utils.data.DataLoader(range(5), num_workers=-1),
    "batch_size 0": lambda L: L.utils.data.DataLoader(range(5), batch_size=0),
    "drop_last not a bool": lambda L: L.utils.data.DataLoader(range(5), batch_size=2, drop_last=1),
    "a negative timeout": lambda L: L.utils.data.DataLoader(range(5), timeout=-1),
    "lengths that do not add up": lambda L: L.utils.data.random_split(range(5), [2, 2]),
    "tensors of different lengths": lambda L: L.utils.data.TensorDataset(L.ones(3), L.ones(2)),
    "num_samples 0": lambda L: L.utils.data.RandomSampler(range(3), num_samples=0),
    "a dataset without __getitem__": lambda L: L.utils.data.Dataset()[0],
}


@pytest.mark.parametrize("case", list(REFUSED))
def test_data_loading_refuses_what_torch_refuses_in_its_words(case):
    ours, theirs = error_of(lambda: REFUSED[case](al)), error_of(lambda: REFUSED[case](torch))
    assert theirs[0] is not None and ours == theirs
