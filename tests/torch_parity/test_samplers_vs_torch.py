"""The samplers learners add to a DataLoader, against torch.utils.data: SubsetRandomSampler
(a shuffled validation split), WeightedRandomSampler (draws by weight) and
DistributedSampler (one replica's share) -- the indices they give (in order, torch's; in a
random order, the same set, drawn from autograd_lab's generator), their lengths and their
refusals."""
import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="torch is not installed; `pip install torch==2.13.0` "
                                            "to compare autograd_lab with PyTorch")

import autograd_lab as al  # noqa: E402

from op_cases import error_of  # noqa: E402


@pytest.mark.parametrize("n, replicas, drop_last", [(10, 3, False), (10, 3, True), (9, 3, False), (2, 4, False),
                                                     (11, 4, True)])
def test_distributed_sampler_gives_each_replica_torchs_share(n, replicas, drop_last):
    data = list(range(n))
    for rank in range(replicas):
        ours = al.utils.data.DistributedSampler(data, replicas, rank, shuffle=False, drop_last=drop_last)
        theirs = torch.utils.data.DistributedSampler(data, replicas, rank, shuffle=False, drop_last=drop_last)
        assert list(ours) == list(theirs) and len(ours) == len(theirs)


def test_distributed_sampler_shuffles_alike_on_every_replica_and_anew_each_epoch():
    data = list(range(12))
    shares = [al.utils.data.DistributedSampler(data, 3, rank, seed=5) for rank in range(3)]
    first = [list(s) for s in shares]
    assert sorted(sum(first, [])) == data                         # the replicas split the data
    assert first == [list(s) for s in shares]                     # the same epoch: the same order
    for s in shares:
        s.set_epoch(1)
    assert sorted(sum([list(s) for s in shares], [])) == data and [list(s) for s in shares] != first


def test_subset_and_weighted_samplers_draw_what_they_say():
    al.manual_seed(0)
    subset = al.utils.data.SubsetRandomSampler([10, 11, 12, 13])
    orders = [list(subset) for _ in range(5)]
    assert all(sorted(o) == [10, 11, 12, 13] for o in orders) and len(subset) == 4 and len(set(map(tuple, orders))) > 1
    weighted = al.utils.data.WeightedRandomSampler([0.1, 0.0, 0.9], 20000)
    counts = np.bincount(list(weighted), minlength=3) / 20000
    assert len(weighted) == 20000 and np.allclose(counts, [0.1, 0.0, 0.9], atol=0.015)
    once = list(al.utils.data.WeightedRandomSampler([1.0, 5.0, 0.0, 2.0], 3, replacement=False))
    assert sorted(once) == [0, 1, 3]
    loader = al.utils.data.DataLoader(al.utils.data.TensorDataset(al.arange(20)), batch_size=4,
                                      sampler=al.utils.data.SubsetRandomSampler(list(range(8))))
    assert sorted(sum([b.tolist() for b, in loader], [])) == list(range(8))


REFUSED = {
    "DistributedSampler without a process group": lambda D: D.DistributedSampler(list(range(10))),
    "DistributedSampler, a rank past the replicas": lambda D: D.DistributedSampler(list(range(10)), 2, 2),
    "WeightedRandomSampler, no samples": lambda D: D.WeightedRandomSampler([0.1, 0.9], 0),
    "WeightedRandomSampler, replacement not a bool": lambda D: D.WeightedRandomSampler([0.1, 0.9], 3, 1),
    "WeightedRandomSampler, 2-D weights": lambda D: D.WeightedRandomSampler([[0.1]], 2),
}


@pytest.mark.parametrize("case", list(REFUSED))
def test_samplers_refuse_what_torch_refuses_in_its_words(case):
    ours, theirs = error_of(lambda: REFUSED[case](al.utils.data)), error_of(lambda: REFUSED[case](torch.utils.data))
    assert theirs[0] is not None and ours == theirs
