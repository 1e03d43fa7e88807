"""Ports of PyTorch's data-loading tests (pytorch/pytorch test/test_dataloader.py:
TestDatasetRandomSplit, TestTensorDataset, TestStackDataset, TestConcatDataset,
TestDataLoader's sampler/batching/collate cases, TestStringDataLoader, TestDictDataLoader)
to ``pyad.utils.data``, in the main process (``num_workers=0``) and, in the second half,
in worker processes (TestWorkerInfoDataset, TestNamedTupleDataLoader, the worker,
timeout, segfault and DistributedSampler cases). Test names keep torch's;
random orders are checked by their properties (permutation, coverage, determinism for one
generator seed), not by torch's exact order; collated values are compared with what
torch 2.13 gives for the same inputs."""
import collections
import math
import os
import pickle
import sys
import warnings
from collections import Counter

import numpy as np
import pytest

import pyad
import pyad.utils.data as D_MOD
from pyad.utils.data import (BatchSampler, ChainDataset, ConcatDataset, DataLoader, Dataset,
                             IterableDataset, RandomSampler, SequentialSampler, StackDataset,
                             Subset, SubsetRandomSampler, TensorDataset,
                             WeightedRandomSampler, default_collate, get_worker_info,
                             random_split)
from pyad.utils.data.distributed import DistributedSampler

torch = pytest.importorskip("torch")
TD = torch.utils.data


def gen(seed):
    return pyad.Generator().manual_seed(seed)


def canon(x):
    """A comparable form of a pyad or torch batch: Variables/tensors as (dtype, values)."""
    if isinstance(x, pyad.Variable):
        return ("T", str(x.dtype).replace("pyad.", ""), np.asarray(x.data).tolist())
    if isinstance(x, torch.Tensor):
        return ("T", str(x.numpy().dtype), x.numpy().tolist())
    if isinstance(x, dict):
        return {k: canon(v) for k, v in x.items()}
    if isinstance(x, tuple) and hasattr(x, "_fields"):
        return (type(x).__name__,) + tuple(canon(v) for v in x)
    if isinstance(x, (list, tuple)):
        return (type(x).__name__, [canon(v) for v in x])
    return x


# -- datasets used by torch's tests -----------------------------------------------------

class CountingDataset(Dataset):
    def __init__(self, n):
        self.n = n

    def __getitem__(self, i):
        return i

    def __len__(self):
        return self.n


class CountingIterableDataset(IterableDataset):
    def __init__(self, n):
        self.n = n

    def __iter__(self):
        return iter(range(self.n))

    def __len__(self):
        return self.n


class ErrorDataset(Dataset):
    def __init__(self, size):
        self.size = size

    def __len__(self):
        return self.size


class StringDataset(Dataset):
    def __init__(self):
        self.s = "12345"

    def __len__(self):
        return len(self.s)

    def __getitem__(self, ndx):
        return (self.s[ndx], ndx)


class DictDataset(Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, ndx):
        return {"a_tensor": pyad.full((4, 2), float(ndx)),
                "another_dict": {"a_number": ndx}}


@pytest.fixture
def data_labels():
    rng = np.random.default_rng(0)
    data = pyad.tensor(rng.standard_normal((100, 2, 3, 5)).astype(np.float32))
    labels = pyad.tensor(rng.permutation(50).repeat(2))
    return data, labels, TensorDataset(data, labels)


def _test_sequential(loader, data, labels):
    batch_size = loader.batch_size
    if batch_size is None:
        for idx, (sample, target) in enumerate(loader):
            np.testing.assert_array_equal(sample.data, data[idx].data)
            assert int(target) == int(labels[idx])
        assert idx == len(data) - 1
        return
    for i, (sample, target) in enumerate(loader):
        idx = i * batch_size
        np.testing.assert_array_equal(sample.data, data[idx:idx + batch_size].data)
        np.testing.assert_array_equal(target.data, labels[idx:idx + batch_size].data)
    assert i == math.floor((len(data) - 1) / batch_size)


def _test_shuffle(loader, data, labels):
    found_data = {i: 0 for i in range(len(data))}
    batch_size = loader.batch_size
    flat = np.asarray(data.data).reshape(len(data), -1)
    if batch_size is None:
        batches = [(s[None], t[None]) for s, t in loader]
        batch_size = 1
    else:
        batches = list(loader)
    for i, (batch_samples, batch_targets) in enumerate(batches):
        for sample, target in zip(batch_samples, batch_targets):
            hits = np.flatnonzero((flat == np.asarray(sample.data).reshape(-1)).all(axis=1))
            assert len(hits) == 1
            k = int(hits[0])
            assert found_data[k] == 0
            found_data[k] += 1
            assert int(target) == int(labels[k])
        assert sum(found_data.values()) == min((i + 1) * batch_size, len(data))
    assert i == math.floor((len(data) - 1) / batch_size)
    assert sum(found_data.values()) == len(data)


# -- TestDatasetRandomSplit -------------------------------------------------------------

def test_lengths_must_equal_dataset_size():
    with pytest.raises(ValueError):
        random_split([1, 2, 3, 4], [1, 2])
    with pytest.raises(ValueError):                      # torch agrees
        TD.random_split([1, 2, 3, 4], [1, 2])


def test_splits_have_correct_size():
    splits = random_split([1, 2, 3, 4, 5, 6], [2, 4])
    assert [len(s) for s in splits] == [2, 4]
    splits = random_split([1, 2, 3, 4, 5, 6], [0.5, 0.5])
    assert [len(s) for s in splits] == [3, 3]
    assert len(random_split(range(3), [0.5, 0.5], generator=gen(1))) == 2
    # odd-sized round-robin splits: torch's floor-then-round-robin rule
    splits = random_split(range(106), [0.1, 0.2, 0.3, 0.4], generator=gen(1))
    assert [len(s) for s in splits] == [11, 22, 31, 42]
    theirs = TD.random_split(range(106), [0.1, 0.2, 0.3, 0.4],
                             generator=torch.Generator().manual_seed(1))
    assert [len(s) for s in splits] == [len(s) for s in theirs]


@pytest.mark.parametrize("n,fracs", [(3, [0.5, 0.5]), (10, [0.33, 0.33, 0.34]),
                                     (7, [0.2, 0.2, 0.6]), (11, [0.7, 0.1, 0.1, 0.1]),
                                     (5, [1.0])])
def test_splits_have_correct_size_like_torch_rounding(n, fracs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours = [len(s) for s in random_split(range(n), fracs, generator=gen(0))]
        theirs = [len(s) for s in TD.random_split(range(n), fracs,
                                                   generator=torch.Generator().manual_seed(0))]
    assert ours == theirs


def test_splits_are_mutually_exclusive():
    for data, lengths in (([5, 2, 3, 4, 1, 6], [2, 4]), ([5, 2, 3, 4, 1, 6], [0.33, 0.67]),
                          ([1, 2, 3, 4], [0.25, 0.75])):
        splits = random_split(data, lengths)
        all_values = sorted(list(splits[0]) + list(splits[1]))
        assert all_values == sorted(data)


def test_splits_indexing_type():
    seen = []

    class CustomDataset:
        def __init__(self, custom_list):
            self.data = custom_list

        def __getitem__(self, key):
            seen.append(type(key))
            return self.data[key]

        def __len__(self):
            return len(self.data)

    x = [1, 2, 3, 4, 5]
    for lengths in ([5], [1.0]):
        dataset = random_split(CustomDataset(x), lengths)[0]
        assert sorted(int(b) for b in DataLoader(dataset)) == x
    assert seen and all(t is int for t in seen)


def test_splits_reproducibility():
    a = [list(s) for s in random_split(range(10), [3, 7], generator=gen(1))]
    assert [len(p) for p in a] == [3, 7] and sorted(a[0] + a[1]) == list(range(10))
    for lengths in ([60, 40], [0.5, 0.5], [0.33, 0.33, 0.34]):
        first = [list(s) for s in random_split(range(100), lengths, generator=gen(42))]
        again = [list(s) for s in random_split(range(100), lengths, generator=gen(42))]
        assert first == again
    other = [list(s) for s in random_split(range(100), [60, 40], generator=gen(43))]
    assert other != [list(s) for s in random_split(range(100), [60, 40], generator=gen(42))]


def test_incomplete_fractional_splits():
    with pytest.raises(ValueError):
        random_split([1, 2, 3, 4], [0.1])           # the fractions do not sum to 1
    with pytest.raises(ValueError):
        random_split([1, 2, 3, 4], [1.1])           # a fraction > 1


def test_splits_generator():
    # without a generator random_split draws from the default one ...
    state = pyad.get_rng_state()
    a = pyad.rand(10)
    pyad.set_rng_state(state)
    random_split(range(10), [5, 5])
    b = pyad.rand(10)
    assert not np.array_equal(a.data, b.data)
    # ... and with one it leaves the default one alone
    state = pyad.get_rng_state()
    a = pyad.rand(10)
    pyad.set_rng_state(state)
    random_split(range(10), [5, 5], generator=gen(42))
    b = pyad.rand(10)
    np.testing.assert_array_equal(a.data, b.data)


def _eq(a, b):
    assert canon(a) == canon(b)


def test_slicing_of_subset_of_dataset():
    dataset = TensorDataset(pyad.tensor([1, 2, 3, 4, 5]))
    subset_of_dataset = Subset(dataset, [0, 1, 2, 3, 4])
    _eq(subset_of_dataset[:], dataset[:])
    _eq(subset_of_dataset[1:2], dataset[1:2])
    _eq(subset_of_dataset[0:-1:2], dataset[0:-1:2])
    subset1, subset2 = random_split(dataset, [3, 2])
    _eq(subset1[:], dataset[subset1.indices[:]])
    _eq(subset1[0:2], dataset[subset1.indices[0:2]])
    _eq(subset1[0:-1:2], dataset[subset1.indices[0:-1:2]])


def test_slicing_of_subset_of_subset():
    dataset = TensorDataset(pyad.tensor([1, 2, 3, 4, 5]))
    subset_of_dataset = Subset(dataset, [0, 1, 2, 3, 4])
    subset_of_subset = Subset(subset_of_dataset, [0, 1, 2, 3, 4])
    _eq(subset_of_subset[:], dataset[:])
    _eq(subset_of_subset[0:2], dataset[0:2])
    _eq(subset_of_subset[0:-1:2], dataset[0:-1:2])
    subset1, subset2 = random_split(dataset, [4, 1])
    subset_of_subset1, subset_of_subset2 = random_split(subset1, [3, 1])
    idx = [subset1.indices[i] for i in subset_of_subset1.indices]
    _eq(subset_of_subset1[:], dataset[idx.copy()])
    _eq(subset_of_subset1[0:2], dataset[idx[0:2]])
    _eq(subset_of_subset1[0:-1:2], dataset[idx[0:-1:2]])


# -- TestTensorDataset -----------------------------------------------------------------

def test_len():
    source = TensorDataset(pyad.randn(15, 10, 2, 3, 4, 5), pyad.randperm(15))
    assert len(source) == 15


@pytest.mark.parametrize("shapes", [((15, 10, 2, 3, 4, 5), (15, 10)), ((15,), (15,)),
                                    ((5, 10),),
                                    ((5, 10, 2, 3, 4, 5), (5, 10), (5, 10, 2, 5), (5, 10, 3, 7))],
                         ids=["test_getitem", "test_getitem_1d", "test_single_tensor",
                              "test_many_tensors"])
def test_tensor_dataset_getitem(shapes):
    ts = [pyad.randn(*s) for s in shapes]
    source = TensorDataset(*ts)
    assert len(source) == shapes[0][0]
    for i in range(len(source)):
        assert len(source[i]) == len(ts)
        for t, got in zip(ts, source[i]):
            np.testing.assert_array_equal(got.data, np.asarray(t.data)[i])


# -- TestStackDataset ------------------------------------------------------------------

def test_stack_dataset_errors_as_torch():
    with pytest.raises(ValueError, match="At least one dataset should be passed"):
        StackDataset()
    with pytest.raises(ValueError, match="Supported either"):
        StackDataset(TensorDataset(pyad.randn(15, 10)), a=TensorDataset(pyad.randn(10, 15)))
    with pytest.raises(ValueError, match="Size mismatch between datasets"):
        StackDataset(TensorDataset(pyad.randn(15, 10)), TensorDataset(pyad.randn(10, 15)))
    with pytest.raises(ValueError, match="Size mismatch between datasets"):
        StackDataset(a=TensorDataset(pyad.randn(15, 10)), b=TensorDataset(pyad.randn(10, 15)))


def test_stack_dataset_getitems_value_error():
    class GetItemsDataset(Dataset):
        def __init__(self):
            self.data = list(range(4))

        def __getitem__(self, item):
            return self.data[item]

        def __getitems__(self, items):
            return [self.data[i] for i in items][:-1]      # one too few

        def __len__(self):
            return 4

    source = StackDataset(GetItemsDataset(), [1, 2, 3, 4])
    with pytest.raises(ValueError,
                       match="Nested dataset's output size mismatch. Expected 4, got 3"):
        source.__getitems__([0, 1, 2, 3])


# -- TestConcatDataset -----------------------------------------------------------------

def test_concat_two_singletons():
    result = ConcatDataset([[0], [1]])
    assert (len(result), result[0], result[1]) == (2, 0, 1)


def test_concat_two_non_singletons():
    result = ConcatDataset([[0, 1, 2, 3, 4], [5, 6, 7, 8, 9]])
    assert (len(result), result[0], result[5]) == (10, 0, 5)


def test_concat_two_non_singletons_with_empty():
    result = ConcatDataset([[0, 1, 2, 3, 4], [], [5, 6, 7, 8, 9]])
    assert (len(result), result[0], result[5]) == (10, 0, 5)
    assert [result[i] for i in range(10)] == list(range(10))
    assert result.cumulative_sizes == [5, 5, 10]


def test_concat_raises_index_error():
    result = ConcatDataset([[0, 1, 2, 3, 4], [5, 6, 7, 8, 9]])
    with pytest.raises(IndexError):
        result[11]
    with pytest.raises(ValueError, match="absolute value of index should not exceed dataset "
                                         "length"):
        result[-11]
    assert result[-1] == 9


def test_add_dataset():
    d1 = TensorDataset(pyad.rand(7, 3, 28, 28), pyad.rand(7))
    d2 = TensorDataset(pyad.rand(7, 3, 28, 28), pyad.rand(7))
    d3 = TensorDataset(pyad.rand(7, 3, 28, 28), pyad.rand(7))
    result = d1 + d2 + d3
    assert len(result) == 21
    assert float((d1[0][0] - result[0][0]).abs().sum()) == 0
    assert float((d2[0][0] - result[7][0]).abs().sum()) == 0
    assert float((d3[0][0] - result[14][0]).abs().sum()) == 0


def test_iterable_dataset_err():
    d1 = TensorDataset(pyad.rand(7, 3, 28, 28), pyad.rand(7))
    it1 = CountingIterableDataset(5)
    it2 = CountingIterableDataset(10)
    for parts in ([d1, it2, it1], [it2], [it1, d1]):
        with pytest.raises(AssertionError, match="does not support IterableDataset"):
            ConcatDataset(parts)


def test_concat_empty_list_raises_as_torch():
    with pytest.raises(AssertionError, match="datasets should not be an empty iterable"):
        ConcatDataset([])


# -- TestDataLoader: batching, shuffling, samplers ---------------------------------------

@pytest.mark.parametrize("batch_size", [None, 1, 2, 3],
                         ids=["test_sequential_nonbatch", "test_sequential",
                              "test_sequential_batch", "test_sequential_batch_3"])
def test_sequential_batch(data_labels, batch_size):
    data, labels, dataset = data_labels
    _test_sequential(DataLoader(dataset, batch_size=batch_size), data, labels)


@pytest.mark.parametrize("batch_size", [None, 1, 2],
                         ids=["test_shuffle_batch_none", "test_shuffle", "test_shuffle_batch"])
def test_shuffle(data_labels, batch_size):
    data, labels, dataset = data_labels
    _test_shuffle(DataLoader(dataset, batch_size=batch_size, shuffle=True), data, labels)


def test_shuffle_reproducibility(data_labels):
    _, _, dataset = data_labels

    def fn(seed):
        return [canon(b) for b in DataLoader(dataset, shuffle=True, num_workers=0,
                                             generator=gen(seed))]
    assert fn(42) == fn(42)
    assert fn(42) != fn(7)


def test_len_of_loaders(data_labels):
    _, _, dataset = data_labels

    def check_len(dl, expected):
        assert len(dl) == expected
        assert sum(1 for _ in dl) == expected
    check_len(dataset, 100)
    check_len(DataLoader(dataset, batch_size=2), 50)
    check_len(DataLoader(dataset, batch_size=3), 34)
    check_len(DataLoader(dataset, batch_size=3, drop_last=True), 33)
    check_len(DataLoader(dataset, batch_size=None), 100)


def test_growing_dataset():
    dataset = [pyad.ones(4) for _ in range(4)]
    dataloader_seq = DataLoader(dataset, shuffle=False)
    dataloader_shuffle = DataLoader(dataset, shuffle=True)
    dataset.append(pyad.ones(4))
    assert len(dataloader_seq) == 5
    assert len(dataloader_shuffle) == 5


def test_invalid_assign_after_init(data_labels):
    dl = DataLoader(data_labels[2])
    for attr in ("batch_size", "sampler", "batch_sampler", "drop_last", "dataset"):
        with pytest.raises(ValueError):
            setattr(dl, attr, {})


def test_error():
    loader = DataLoader(ErrorDataset(100), batch_size=2, shuffle=True)
    it = iter(loader)
    errors = 0
    while True:
        try:
            next(it)
        except NotImplementedError:
            errors += 1
        except StopIteration:
            break
    assert errors == math.ceil(float(len(loader.dataset)) / loader.batch_size)


def test_sampler(data_labels):
    data, _, dataset = data_labels
    indices = range(2, 12)                       # a plain iterable as the sampler
    dl = DataLoader(dataset, sampler=indices, batch_size=2)
    assert len(dl) == 5
    for i, (inp, _target) in enumerate(dl):
        assert len(inp) == 2
        np.testing.assert_array_equal(inp.data, data[i * 2 + 2:i * 2 + 4].data)
    assert i == 4


def test_batch_sampler(data_labels):
    data, _, dataset = data_labels
    batches = []                                 # [(0, 1), (2, 3, 4), (5, 6), (7, 8, 9), ...]
    for i in range(0, 20, 5):
        batches.append(tuple(range(i, i + 2)))
        batches.append(tuple(range(i + 2, i + 5)))
    dl = DataLoader(dataset, batch_sampler=batches)
    assert len(dl) == 8
    for i, (inp, _target) in enumerate(dl):
        offset = i * 5 // 2
        n = 2 if i % 2 == 0 else 3
        assert len(inp) == n
        np.testing.assert_array_equal(inp.data, data[offset:offset + n].data)
    assert i == 7


def test_random_sampler(data_labels):
    _, _, dataset = data_labels
    N = len(dataset)

    def sample_stat(sampler):
        counts = Counter(sampler)
        count_repeated = sum(val > 1 for val in counts.values())
        return count_repeated, min(counts.keys()), max(counts.keys()), sum(counts.values())

    n = N + 1                                    # at least one index is drawn twice
    rep, lo, hi, total = sample_stat(RandomSampler(dataset, replacement=True, num_samples=n))
    assert rep > 0 and lo >= 0 and hi < N and total == n
    rep, lo, hi, total = sample_stat(RandomSampler(dataset))
    assert (rep, lo, hi, total) == (0, 0, N - 1, N)
    rep, lo, hi, total = sample_stat(RandomSampler(dataset, num_samples=2 * N))
    assert (rep, lo, hi, total) == (N, 0, N - 1, 2 * N)
    rep, lo, hi, total = sample_stat(RandomSampler(dataset, num_samples=N - 1))
    assert rep == 0 and lo >= 0 and hi < N and total == N - 1
    rep, lo, hi, total = sample_stat(RandomSampler(dataset, num_samples=N + 1))
    assert (rep, lo, hi, total) == (1, 0, N - 1, N + 1)
    with pytest.raises(TypeError, match="replacement should be a boolean value, but got "
                                        "replacement=0"):
        RandomSampler(dataset, replacement=0)


@pytest.mark.parametrize("replacement", [True, False],
                         ids=["test_random_sampler_len_with_replacement",
                              "test_random_sampler_len_without_replacement"])
def test_random_sampler_len(data_labels, replacement):
    _, _, dataset = data_labels
    num_samples = len(dataset) + 5
    sampler = RandomSampler(dataset, replacement=replacement, num_samples=num_samples)
    assert len(sampler) == num_samples
    assert sum(1 for _ in sampler) == num_samples
    assert len(DataLoader(dataset, batch_size=1, sampler=sampler)) == num_samples
    assert len(DataLoader(dataset, batch_size=6, sampler=sampler)) == \
        int(math.ceil(float(num_samples) / 6))


def test_random_sampler_num_samples_errors_as_torch():
    for bad in (0, -1, 2.5):
        with pytest.raises(ValueError, match="num_samples should be a positive integer value"):
            RandomSampler(range(5), num_samples=bad)
        with pytest.raises(ValueError, match="num_samples should be a positive integer value"):
            TD.RandomSampler(range(5), num_samples=bad)


def test_sampler_reproducibility(data_labels):
    _, _, dataset = data_labels
    weights = [0.1, 0.9, 0.4, 0.7, 3.0, 0.6]
    for fn in (
        lambda: RandomSampler(dataset, num_samples=5, replacement=True, generator=gen(42)),
        lambda: RandomSampler(dataset, replacement=False, generator=gen(42)),
        lambda: WeightedRandomSampler(weights, num_samples=5, replacement=True,
                                      generator=gen(42)),
        lambda: WeightedRandomSampler(weights, num_samples=5, replacement=False,
                                      generator=gen(42)),
        lambda: SubsetRandomSampler(range(10), generator=gen(42)),
    ):
        assert list(fn()) == list(fn())

    for sampler in (
        RandomSampler(dataset, num_samples=5, replacement=True),
        RandomSampler(dataset, replacement=False),
        WeightedRandomSampler(weights, num_samples=5, replacement=True),
        WeightedRandomSampler(weights, num_samples=5, replacement=False),
        SubsetRandomSampler(range(10)),
    ):
        pyad.manual_seed(0)
        l1 = list(sampler) + list(sampler)
        pyad.manual_seed(0)
        l2 = list(sampler) + list(sampler)
        assert l1 == l2
        its = (iter(sampler), iter(sampler))
        ls = ([], [])
        for idx in range(len(sampler)):
            for i in range(2):
                if idx == 0:
                    pyad.manual_seed(0)
                ls[i].append(next(its[i]))
        assert ls[0] == ls[1]


def test_subset_random_sampler_is_a_permutation_of_its_indices():
    indices = [5, 7, 9, 11, 13]
    s = SubsetRandomSampler(indices, generator=gen(0))
    assert len(s) == 5
    drawn = list(s)
    assert sorted(drawn) == indices
    assert list(SubsetRandomSampler(indices, generator=gen(0))) == drawn


def test_weighted_random_sampler_properties():
    weights = [0.1, 0.9, 0.4, 0.7, 3.0, 0.6]
    s = WeightedRandomSampler(weights, num_samples=6, replacement=False, generator=gen(1))
    assert len(s) == 6 and sorted(s) == list(range(6))      # without replacement: a permutation
    s = WeightedRandomSampler([0.0, 0.0, 1.0, 0.0], num_samples=7, replacement=True)
    assert list(s) == [2] * 7
    counts = Counter(WeightedRandomSampler([1.0, 3.0], num_samples=4000, generator=gen(3)))
    assert abs(counts[1] / 4000 - 0.75) < 0.03                # 6 sigma
    with pytest.raises(RuntimeError):
        list(WeightedRandomSampler([1.0, 1.0], num_samples=3, replacement=False))
    for bad in (0, -2, True):
        with pytest.raises(ValueError, match="num_samples should be a positive integer value"):
            WeightedRandomSampler(weights, num_samples=bad)
    with pytest.raises(ValueError, match="replacement should be a boolean value"):
        WeightedRandomSampler(weights, num_samples=2, replacement=1)


def test_sequential_and_batch_sampler_match_torch():
    for n, bs, drop in ((10, 3, False), (10, 3, True), (9, 3, False), (2, 5, False),
                        (2, 5, True)):
        ours = BatchSampler(SequentialSampler(range(n)), bs, drop)
        theirs = TD.BatchSampler(TD.SequentialSampler(range(n)), bs, drop)
        assert list(ours) == list(theirs)
        assert len(ours) == len(theirs)
    assert list(SequentialSampler(range(4))) == [0, 1, 2, 3]
    assert len(SequentialSampler(range(4))) == 4
    for bad in (0, -1, 2.0, True):
        with pytest.raises(ValueError, match="batch_size should be a positive integer value"):
            BatchSampler(SequentialSampler(range(3)), bad, False)
    with pytest.raises(ValueError, match="drop_last should be a boolean value"):
        BatchSampler(SequentialSampler(range(3)), 2, 1)


def test_invalid_ctor_args_combinations(data_labels):
    _, _, dataset = data_labels
    with pytest.raises(ValueError, match="num_workers option should be non-negative"):
        DataLoader(dataset, num_workers=-1)
    with pytest.raises(ValueError, match="timeout option should be non-negative"):
        DataLoader(dataset, timeout=-1)
    with pytest.raises(ValueError, match="batch_size=None option disables auto-batching and "
                                         "is mutually exclusive"):
        DataLoader(dataset, batch_size=None, drop_last=True)
    with pytest.raises(ValueError, match=r"multi-process loading \(num_workers > 0\), but got"):
        DataLoader(dataset, num_workers=0, multiprocessing_context="fork")
    with pytest.raises(ValueError, match="should specify a valid start method in"):
        DataLoader(dataset, num_workers=1, multiprocessing_context="bad")
    with pytest.raises(TypeError, match="multiprocessing_context option should be a valid "
                                        "context "):
        DataLoader(dataset, num_workers=1, multiprocessing_context=object())
    sampler = SequentialSampler(dataset)
    batch_sampler = BatchSampler(sampler, 3, False)
    for kw in (dict(batch_size=11, sampler=sampler, shuffle=True),
               dict(batch_sampler=batch_sampler, sampler=sampler, shuffle=True),
               dict(batch_sampler=batch_sampler, sampler=sampler, shuffle=3)):
        with pytest.raises(ValueError, match="sampler option is mutually exclusive with shuffle"):
            DataLoader(dataset, **kw)
    for kw in (dict(batch_size=11), dict(shuffle=True), dict(drop_last=True),
               dict(drop_last=3)):
        with pytest.raises(ValueError, match="batch_sampler option is mutually exclusive with"):
            DataLoader(dataset, batch_sampler=batch_sampler, **kw)
    ids = CountingIterableDataset(20)
    for kw, what in ((dict(shuffle=True), "shuffle"), (dict(shuffle=3), "shuffle"),
                     (dict(sampler=SequentialSampler(ids)), "sampler"),
                     (dict(sampler=3), "sampler"),
                     (dict(batch_sampler=BatchSampler(SequentialSampler(ids), 3, False)),
                      "batch_sampler"),
                     (dict(batch_sampler=3), "batch_sampler")):
        with pytest.raises(ValueError, match="DataLoader with IterableDataset: expected "
                                             "unspecified %s" % what):
            DataLoader(ids, **kw)


# -- iterable-style datasets ------------------------------------------------------------

def test_builtin_collection_conversion():
    expected_batches = [[i, i + 1] for i in range(0, 20, 2)]
    for coll_ty in (list, tuple):
        for dataset in (CountingDataset(20), CountingIterableDataset(20)):
            fetched = coll_ty(DataLoader(dataset, batch_size=None))
            assert fetched == coll_ty(range(20))
            fetched = coll_ty(DataLoader(dataset, batch_size=2))
            assert isinstance(fetched, coll_ty)
            assert [canon(b) for b in fetched] == [("T", "int64", b) for b in expected_batches]


def test_iterable_style_dataset():
    dataset = CountingIterableDataset(20)
    dataloader = DataLoader(dataset, batch_size=None)
    fetched = list(dataloader)
    assert len(fetched) == 20
    for i, d in enumerate(fetched):
        assert isinstance(d, int) and d == i           # no auto-batching: ints stay ints
    assert len(dataloader) == len(dataset)
    fetched = list(DataLoader(CountingIterableDataset(20), batch_size=7))
    assert [f.tolist() for f in fetched] == [list(range(7)), list(range(7, 14)),
                                             list(range(14, 20))]
    loader = DataLoader(CountingIterableDataset(20), batch_size=7, drop_last=True)
    fetched = list(loader)
    assert [f.tolist() for f in fetched] == [list(range(7)), list(range(7, 14))]
    assert len(loader) == 2
    assert len(DataLoader(CountingIterableDataset(20), batch_size=7)) == 3


def test_iterable_style_dataset_len_warning_as_torch():
    class LyingLength(CountingIterableDataset):
        def __len__(self):
            return 20                               # the stream really gives 25

    dataloader = DataLoader(LyingLength(25), batch_size=None)
    it = iter(dataloader)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for _ in range(25):                         # len() not asked yet: no warning
            next(it)
    assert len(dataloader) == 20
    it = iter(dataloader)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for _ in range(20):
            next(it)
    for _ in range(3):
        with pytest.warns(UserWarning, match=r"but [0-9]+ samples have been fetched\. "):
            next(it)


def test_chain_iterable_style_dataset(data_labels):
    dataset1 = CountingIterableDataset(20)
    dataset2 = CountingIterableDataset(15)
    expected = list(range(20)) + list(range(15))
    for chained in (dataset1 + dataset2, ChainDataset([dataset1, dataset2])):
        fetched = list(DataLoader(chained))
        assert len(fetched) == len(expected)
        for e, d in zip(expected, fetched):
            assert isinstance(d, pyad.Variable)
            assert d.tolist() == [e]
    with pytest.raises(AssertionError, match="ChainDataset only supports IterableDataset"):
        list(iter(dataset1 + data_labels[2]))
    with pytest.raises(AssertionError, match="ChainDataset only supports IterableDataset"):
        list(iter(ChainDataset([dataset1, data_labels[2]])))


# -- collation: NumPy, strings, dicts, namedtuples --------------------------------------

def test_numpy():
    class TestDataset(Dataset):
        def __getitem__(self, i):
            return np.ones((2, 3, 4)) * i

        def __len__(self):
            return 1000

    batch = next(iter(DataLoader(TestDataset(), batch_size=12)))
    assert isinstance(batch, pyad.Variable)
    assert batch.dtype == pyad.float64                  # torch: a DoubleTensor
    assert tuple(batch.shape) == (12, 2, 3, 4)
    np.testing.assert_array_equal(batch.data[5], np.full((2, 3, 4), 5.0))


def test_string_dataset_collate():                     # TestStringDataLoader, no pinning
    for batch_ndx, (s, n) in enumerate(DataLoader(StringDataset(), batch_size=2)):
        assert isinstance(s, tuple) and isinstance(s[0], str)   # torch: a tuple of str
        assert s == tuple("12345"[2 * batch_ndx:2 * batch_ndx + 2])
        assert n.tolist() == list(range(2 * batch_ndx, min(2 * batch_ndx + 2, 5)))
    got = sorted(c for s, _ in DataLoader(StringDataset(), batch_size=2, shuffle=True)
                 for c in s)
    assert got == list("12345")


def test_dict_dataset_sequential_batch():              # TestDictDataLoader
    loader = DataLoader(DictDataset(), batch_size=2, shuffle=False)
    batch_size = loader.batch_size
    for i, sample in enumerate(loader):
        idx = i * batch_size
        assert set(sample.keys()) == {"a_tensor", "another_dict"}
        assert set(sample["another_dict"].keys()) == {"a_number"}
        t = sample["a_tensor"]
        assert tuple(t.shape) == (batch_size, 4, 2)
        assert bool((t[0] == idx).all()) and bool((t[1] == idx + 1).all())
        n = sample["another_dict"]["a_number"]
        assert tuple(n.shape) == (batch_size,)
        assert n.tolist() == [idx, idx + 1]
    assert i == 1


Point = collections.namedtuple("Point", ["x", "y"])
TPoint = collections.namedtuple("Point", ["x", "y"])


@pytest.mark.parametrize("name", ["ints", "floats", "bools", "mixed_numbers", "strings",
                                  "nested_dict", "namedtuple", "tuples", "lists",
                                  "numpy_arrays", "numpy_scalars", "numpy_int32"])
def test_default_collate_matches_torch(name):
    def samples(lib):
        arr = np.arange(6, dtype=np.float32).reshape(2, 3)
        P = Point if lib == "pyad" else TPoint
        return {
            "ints": [1, 2, 3],
            "floats": [1.5, 2.5],
            "bools": [True, False],
            "mixed_numbers": [1, 2.5],
            "strings": ["a", "bc"],
            "nested_dict": [{"a": 1, "b": {"c": 0.5, "s": "x"}},
                            {"a": 2, "b": {"c": 1.5, "s": "y"}}],
            "namedtuple": [P(1, 2.0), P(3, 4.0)],
            "tuples": [(1, "a", 0.5), (2, "b", 1.5)],
            "lists": [[1, 2], [3, 4]],
            "numpy_arrays": [arr, arr + 1],
            "numpy_scalars": [np.float64(1.5), np.float64(2.5)],
            "numpy_int32": [np.arange(3, dtype=np.int32), np.arange(3, dtype=np.int32) * 2],
        }[name]
    ours = default_collate(samples("pyad"))
    theirs = TD.default_collate(samples("torch"))
    assert canon(ours) == canon(theirs)


def test_default_collate_errors_as_torch():
    with pytest.raises(RuntimeError, match="each element in list of batch should be of "
                                           "equal size"):
        default_collate([[1, 2], [3]])
    with pytest.raises(RuntimeError, match="each element in list of batch should be of "
                                           "equal size"):
        TD.default_collate([[1, 2], [3]])
    with pytest.raises(TypeError):
        default_collate([object(), object()])
    with pytest.raises(TypeError):
        TD.default_collate([object(), object()])
    with pytest.raises(TypeError):
        default_collate([np.array(["a"]), np.array(["b"])])
    with pytest.raises(TypeError):
        TD.default_collate([np.array(["a"]), np.array(["b"])])


def test_collate_fn_and_drop_last_with_shuffle():
    seen = []

    def collate(batch):
        seen.append(len(batch))
        return sum(batch)

    loader = DataLoader(CountingDataset(10), batch_size=3, shuffle=True, drop_last=True,
                        collate_fn=collate, generator=gen(5))
    sums = list(loader)
    assert len(loader) == 3 and len(sums) == 3 and seen == [3, 3, 3]
    assert all(isinstance(s, int) for s in sums)
    assert list(DataLoader(CountingDataset(10), batch_size=3, shuffle=True, drop_last=True,
                           collate_fn=sum, generator=gen(5))) == sums


# -- edge cases checked side by side with torch ------------------------------------------

def _outcome(fn, lib):
    try:
        return ("ok", canon(fn(lib)))
    except Exception as e:                      # the type is compared; messages may differ
        return ("raises", type(e).__name__)


def _V(lib):
    return pyad if lib is D_MOD else torch



@pytest.mark.parametrize("name,fn", [
    ("collate_ordered_dict", lambda L: L.default_collate(
        [collections.OrderedDict(a=1), collections.OrderedDict(a=2)])),
    ("collate_defaultdict_keeps_type", lambda L: type(L.default_collate(
        [collections.defaultdict(int, a=1), collections.defaultdict(int, a=2)])).__name__),
    ("collate_numpy_bool_arrays", lambda L: L.default_collate(
        [np.array([True]), np.array([False])])),
    ("collate_numpy_int32_scalars", lambda L: L.default_collate([np.int32(1), np.int32(2)])),
    ("collate_numpy_str_", lambda L: L.default_collate([np.str_("a"), np.str_("b")])),
    ("collate_bytes", lambda L: L.default_collate([b"a", b"b"])),
    ("collate_none_raises", lambda L: L.default_collate([None, None])),
    ("collate_list_of_dicts", lambda L: L.default_collate([[{"a": 1}], [{"a": 2}]])),
    ("collate_big_int", lambda L: L.default_collate([2 ** 40, 1])),
    ("convert_tuple", lambda L: L.default_convert((np.zeros(1), 1))),
    ("convert_numpy_scalar", lambda L: L.default_convert(np.float32(1.5))),
    ("split_negative_fraction", lambda L: L.random_split(range(4), [-0.5, 1.5])),
    ("split_numpy_lengths", lambda L: [len(s) for s in L.random_split(range(10),
                                                                    np.array([3, 7]))]),
    ("split_tuple_fractions", lambda L: [len(s) for s in L.random_split(range(10),
                                                                      (0.3, 0.3, 0.4))]),
    ("concat_negative_index", lambda L: L.ConcatDataset([[1, 2], [3]])[-3]),
    ("concat_numpy_index", lambda L: L.ConcatDataset([[1, 2], [3]])[np.int64(2)]),
    ("tensor_dataset_size_mismatch", lambda L: L.TensorDataset(_V(L).zeros(3),
                                                               _V(L).zeros(4))),
    ("random_sampler_empty_dataset", lambda L: L.RandomSampler([])),
    ("random_sampler_replacement_70", lambda L: len(list(
        L.RandomSampler(range(3), replacement=True, num_samples=70)))),
    ("weighted_sampler_2d_weights", lambda L: L.WeightedRandomSampler([[1.0, 2.0]], 2)),
    ("weighted_sampler_float_num_samples", lambda L: L.WeightedRandomSampler([1.0, 2.0], 2.0)),
    ("weighted_sampler_negative_weight", lambda L: list(
        L.WeightedRandomSampler([-1.0, 2.0], 2))),
    ("weighted_sampler_weights_are_float64", lambda L: L.WeightedRandomSampler([1, 2], 2).weights),
    ("batch_sampler_str_batch_size", lambda L: L.BatchSampler(range(10), "3", False)),
    ("batch_sampler_over_a_range", lambda L: list(L.BatchSampler(range(10), 3, False))),
    ("loader_batch_size_0", lambda L: L.DataLoader(range(10), batch_size=0)),
    ("loader_persistent_without_workers", lambda L: L.DataLoader(range(10),
                                                                 persistent_workers=True)),
    ("loader_prefetch_without_workers", lambda L: L.DataLoader(range(10), prefetch_factor=2)),
    ("loader_len_of_iterator", lambda L: len(iter(L.DataLoader(range(10), batch_size=4)))),
    ("loader_numpy_without_batching", lambda L: list(L.DataLoader([np.zeros(2)],
                                                                  batch_size=None))),
    ("stack_getitems_index_error", lambda L: L.StackDataset([1, 2], [3, 4]).__getitems__([0, 4])),
    ("base_dataset_getitem", lambda L: L.Dataset()[0]),
])
def test_edge_case_matches_torch(name, fn):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours = _outcome(fn, D_MOD)
        theirs = _outcome(fn, TD)
    if ours[0] == "ok" and isinstance(ours[1], list) and ours[1] and \
            isinstance(ours[1][0], D_MOD.Subset):
        ours = ("ok", [len(s) for s in ours[1]])
        theirs = ("ok", [len(s) for s in theirs[1]])
    assert ours == theirs


# == worker processes, DistributedSampler, StackDataset, named tuples ===================
# (torch's TestDataLoader worker cases, TestWorkerInfoDataset, TestNamedTupleDataLoader,
# TestStackDataset and the DistributedSampler cases of test_dataloader.py; workers are
# processes made with the platform's default start method unless a test names one)

_fork_only = pytest.mark.skipif(sys.platform == "win32", reason="needs fork")


@pytest.fixture(autouse=True)
def _no_worker_left_behind():
    # a loader whose workers failed is kept alive by the exception's traceback until the
    # garbage collector runs: collect it here so that its workers are joined before the
    # next test, and check that no worker process outlives its test
    yield
    import gc
    import multiprocessing
    gc.collect()
    assert multiprocessing.active_children() == []


class ShardedRange:
    """torch's test_iterable_style_dataset's sharded range: each worker yields its part
    (``get_worker_info`` tells which), written once for either library."""

    def __init__(self, lib, start, end):
        self.lib, self.start, self.end = lib, start, end

    def make(self):
        info = get_worker_info if self.lib is D_MOD else TD.get_worker_info
        base = D_MOD.IterableDataset if self.lib is D_MOD else TD.IterableDataset
        start, end = self.start, self.end

        class _Range(base):
            def __iter__(self):
                w = info()
                if w is None:
                    return iter(range(start, end))
                per = int(math.ceil((end - start) / float(w.num_workers)))
                lo = start + w.id * per
                return iter(range(lo, min(lo + per, end)))

            def __len__(self):
                return end - start
        return _Range()


@_fork_only
@pytest.mark.parametrize("num_workers", [1, 2, 3])
def test_iterable_style_dataset_sharded_by_worker_info(num_workers):
    ours = list(DataLoader(ShardedRange(D_MOD, 3, 20).make(), num_workers=num_workers,
                           batch_size=None))
    theirs = list(TD.DataLoader(ShardedRange(TD, 3, 20).make(), num_workers=num_workers,
                                batch_size=None))
    # batch_size=None: every sample is converted (an int stays an int), in the workers'
    # round-robin order, which is torch's
    assert [canon(x) for x in ours] == [canon(x) for x in theirs]
    assert sorted(ours) == list(range(3, 20))


@_fork_only
@pytest.mark.parametrize("drop_last", [False, True])
def test_iterable_style_dataset_drop_last_is_per_worker_as_torch(drop_last):
    kw = dict(num_workers=2, batch_size=4, drop_last=drop_last)
    ours = [canon(b) for b in DataLoader(ShardedRange(D_MOD, 0, 19).make(), **kw)]
    theirs = [canon(b) for b in TD.DataLoader(ShardedRange(TD, 0, 19).make(), **kw)]
    assert ours == theirs


@pytest.mark.parametrize("kwargs", [dict(), dict(batch_size=7), dict(batch_size=7,
                                                                     drop_last=True)])
def test_iterabledataset_len(kwargs):
    ours = DataLoader(ShardedRange(D_MOD, 0, 20).make(), **kwargs)
    theirs = TD.DataLoader(ShardedRange(TD, 0, 20).make(), **kwargs)
    assert len(ours) == len(theirs)


class WorkerInfoDataset(Dataset):
    """torch's TestWorkerInfoDataset: every sample reports what its worker knows."""

    def __init__(self, size):
        self.size = size
        self.value = "original"

    def __len__(self):
        return self.size

    def __getitem__(self, idx):
        info = get_worker_info()
        # the worker's copy of the data set: a write here never reaches the parent
        info.dataset.value = "changed in worker %d" % info.id
        return (info.id, info.num_workers, info.seed, os.getpid(), info.dataset.value)


@_fork_only
def test_get_worker_info():
    ds = WorkerInfoDataset(12)
    loader = DataLoader(ds, batch_size=None, num_workers=3)
    rows = list(loader)
    assert ds.value == "original"
    assert get_worker_info() is None                       # in the main process
    ids = sorted({r[0] for r in rows})
    assert ids == [0, 1, 2] and {r[1] for r in rows} == {3}
    # torch: seed = base_seed + worker id, one base seed per epoch
    seeds = {r[0]: r[2] for r in rows}
    assert seeds[1] - seeds[0] == 1 and seeds[2] - seeds[0] == 2
    # one process per worker, none of them this one
    pids = {r[0]: r[3] for r in rows}
    assert len(set(pids.values())) == 3 and os.getpid() not in pids.values()
    assert all(r[4] == "changed in worker %d" % r[0] for r in rows)


class SeedDataset(Dataset):
    def __init__(self, size):
        self.size = size

    def __len__(self):
        return self.size

    def __getitem__(self, idx):
        return pyad.initial_seed()


@_fork_only
def test_worker_seed():
    num_workers = 6
    loader = DataLoader(SeedDataset(num_workers), batch_size=1, num_workers=num_workers)
    seeds = {int(s) for s in loader}
    assert len(seeds) == num_workers


@_fork_only
def test_worker_seed_reproducibility():
    def get_loader():
        return DataLoader(SeedDataset(4), batch_size=1, num_workers=2,
                          generator=gen(42))
    first = {int(s) for s in get_loader()}
    assert first == {int(s) for s in get_loader()}
    assert len(first) == 2


def _init_fn(worker_id):
    pyad.manual_seed(12345)


@_fork_only
def test_worker_init_fn():
    loader = DataLoader(SeedDataset(4), batch_size=2, num_workers=2,
                        worker_init_fn=_init_fn)
    for batch in loader:
        assert np.asarray(batch.data).tolist() == [12345, 12345]


def _bad_init_fn(worker_id):
    raise ValueError("init of worker %d failed" % worker_id)


@_fork_only
def test_worker_init_fn_error_reaches_the_main_process():
    loader = DataLoader(CountingDataset(4), num_workers=2, worker_init_fn=_bad_init_fn)
    with pytest.raises(ValueError, match="init of worker"):
        list(loader)


@_fork_only
def test_multiprocessing_contexts(data_labels):
    import multiprocessing
    data, labels, ds = data_labels
    small = TensorDataset(data[:10], labels[:10])
    contexts = ["fork", "spawn"]
    for ctx in contexts:
        _test_sequential(DataLoader(small, batch_size=3, num_workers=2,
                                    multiprocessing_context=ctx), data[:10], labels[:10])
    _test_sequential(DataLoader(small, batch_size=3, num_workers=2,
                                multiprocessing_context=multiprocessing.get_context("fork")),
                     data[:10], labels[:10])


@pytest.mark.parametrize("name,kwargs", [
    ("bad_start_method", dict(num_workers=1, multiprocessing_context="no_such_method")),
    ("bad_context_type", dict(num_workers=1, multiprocessing_context=3)),
    ("context_without_workers", dict(num_workers=0, multiprocessing_context="fork")),
    ("negative_timeout", dict(timeout=-1)),
    ("negative_workers", dict(num_workers=-1)),
    ("negative_prefetch", dict(num_workers=1, prefetch_factor=-1)),
    ("prefetch_none_with_workers", dict(num_workers=1, prefetch_factor=None)),
    ("persistent_with_workers", dict(num_workers=1, persistent_workers=True)),
])
def test_loader_worker_arguments_checked_as_torch(name, kwargs):
    def make(L):
        loader = L.DataLoader(list(range(4)), **kwargs)
        return (loader.num_workers, loader.prefetch_factor, loader.persistent_workers,
                loader.timeout)
    assert _outcome(make, D_MOD) == _outcome(make, TD)


@_fork_only
def test_prefetch_factor_zero_with_workers_is_refused():
    # torch accepts prefetch_factor=0 at construction and refuses it when iterating
    # (an AssertionError in the multi-worker iterator)
    for L in (D_MOD, TD):
        loader = L.DataLoader(list(range(4)), num_workers=1, prefetch_factor=0)
        with pytest.raises(AssertionError):
            iter(loader)


@_fork_only
def test_error_workers():
    loader = DataLoader(ErrorDataset(41), batch_size=2, shuffle=True, num_workers=4)
    with pytest.raises(NotImplementedError) as info:
        list(loader)
    assert "DataLoader worker process" in str(info.value)


class SegfaultDataset(Dataset):
    def __init__(self, size):
        self.size = size

    def __getitem__(self, idx):
        import ctypes
        return ctypes.string_at(0)

    def __len__(self):
        return self.size


@_fork_only
def test_segfault():
    # torch: a worker that dies of a signal is a RuntimeError naming it, never a hang
    loader = DataLoader(SegfaultDataset(4), batch_size=2, num_workers=2)
    with pytest.raises(RuntimeError, match="DataLoader worker .* exited unexpectedly"):
        list(loader)


class ExitDataset(Dataset):
    def __getitem__(self, idx):
        os._exit(3)

    def __len__(self):
        return 4


@_fork_only
def test_a_worker_that_exits_is_a_clear_error():
    loader = DataLoader(ExitDataset(), batch_size=1, num_workers=1, timeout=30)
    with pytest.raises(RuntimeError, match="exited unexpectedly"):
        list(loader)


class SlowDataset(Dataset):
    def __getitem__(self, idx):
        import time
        time.sleep(3)
        return idx

    def __len__(self):
        return 2


@_fork_only
def test_timeout():
    loader = DataLoader(SlowDataset(), batch_size=1, num_workers=1, timeout=0.5)
    with pytest.raises(RuntimeError, match="timed out"):
        list(loader)


@_fork_only
def test_sequential_workers(data_labels):
    data, labels, ds = data_labels
    _test_sequential(DataLoader(ds, batch_size=8, num_workers=3), data, labels)


@_fork_only
def test_seqential_batch_workers_prefetch(data_labels):
    data, labels, ds = data_labels
    _test_sequential(DataLoader(ds, batch_size=8, num_workers=2, prefetch_factor=3),
                     data, labels)


@_fork_only
def test_shuffle_workers(data_labels):
    data, labels, ds = data_labels
    _test_shuffle(DataLoader(ds, batch_size=8, shuffle=True, num_workers=3), data, labels)


@_fork_only
def test_shuffle_batch_none_workers(data_labels):
    data, labels, ds = data_labels
    _test_shuffle(DataLoader(ds, batch_size=None, shuffle=True, num_workers=2), data,
                  labels)


@_fork_only
def test_batch_sampler_workers(data_labels):
    data, labels, ds = data_labels
    batches = [list(range(i, min(i + 7, 100))) for i in range(0, 100, 7)]
    loader = DataLoader(ds, batch_sampler=batches, num_workers=2)
    for idx, (x, y) in zip(batches, loader):
        np.testing.assert_array_equal(x.data, data[idx].data)
        np.testing.assert_array_equal(y.data, labels[idx].data)


@_fork_only
def test_pin_memory_with_workers(data_labels):
    data, labels, ds = data_labels
    _test_sequential(DataLoader(ds, batch_size=10, num_workers=2, pin_memory=True),
                     data, labels)


@_fork_only
def test_persistent_workers_len_and_epochs(data_labels):
    data, labels, ds = data_labels
    loader = DataLoader(ds, batch_size=25, num_workers=2, persistent_workers=True)
    assert len(loader) == 4
    for _ in range(3):
        _test_sequential(loader, data, labels)


def _collate_with_worker_id(batch):
    info = get_worker_info()
    return (info.id if info is not None else -1, len(batch))


@_fork_only
def test_collate_fn_runs_in_the_workers():
    out = list(DataLoader(CountingDataset(10), batch_size=3, num_workers=2,
                          collate_fn=_collate_with_worker_id))
    # batches go to the workers round-robin and come back in order, as torch's
    assert out == [(0, 3), (1, 3), (0, 3), (1, 1)]


@_fork_only
def test_chain_dataset_with_workers_is_iterated_by_every_worker_as_torch():
    ours = DataLoader(ChainDataset([CountingIterableDataset(3),
                                    CountingIterableDataset(2)]),
                      batch_size=None, num_workers=2)

    class TCount(TD.IterableDataset):
        def __init__(self, n):
            self.n = n

        def __iter__(self):
            return iter(range(self.n))
    theirs = TD.DataLoader(TD.ChainDataset([TCount(3), TCount(2)]), batch_size=None,
                           num_workers=2)
    assert list(ours) == list(theirs) == [0, 0, 1, 1, 2, 2, 0, 0, 1, 1]


@_fork_only
def test_large_sampler_indices():
    # torch's: a sampler's indices reach the data set unchanged, even 64-bit ones
    class Echo(Dataset):
        def __getitem__(self, i):
            return i

        def __len__(self):
            return 1
    big = [[2 ** 40, 2 ** 40 + 1], [2 ** 62]]
    out = list(DataLoader(Echo(), batch_sampler=big, num_workers=1))
    assert [np.asarray(b.data).tolist() for b in out] == big


# -- named tuples (TestNamedTupleDataLoader) ---------------------------------------------

Batch = collections.namedtuple("Batch", ["data", "label", "random_tensor"])
Data = collections.namedtuple("Data", ["positive", "negative"])


class NamedTupleDataset(Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, ndx):
        return Batch(data=pyad.full((2,), float(ndx)), label=str(ndx),
                     random_tensor=pyad.zeros(3))


class TNamedTupleDataset(TD.Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, ndx):
        return Batch(data=torch.full((2,), float(ndx)), label=str(ndx),
                     random_tensor=torch.zeros(3))


@pytest.mark.parametrize("num_workers", [0, pytest.param(2, marks=_fork_only)])
@pytest.mark.parametrize("batch_size", [None, 2])
def test_dataloader_with_namedtuple(num_workers, batch_size):
    ours = list(DataLoader(NamedTupleDataset(), batch_size=batch_size,
                           num_workers=num_workers))
    theirs = list(TD.DataLoader(TNamedTupleDataset(), batch_size=batch_size,
                                num_workers=num_workers))
    assert all(isinstance(b, Batch) for b in ours)
    assert [canon(b) for b in ours] == [canon(b) for b in theirs]


def test_default_collate_nested_namedtuple_matches_torch():
    ours = default_collate([Data(positive=np.array([1.0]), negative=(1, 2)),
                            Data(positive=np.array([2.0]), negative=(3, 4))])
    theirs = TD.default_collate([Data(positive=np.array([1.0]), negative=(1, 2)),
                                 Data(positive=np.array([2.0]), negative=(3, 4))])
    assert type(ours) is Data and canon(ours) == canon(theirs)


# -- StackDataset (TestStackDataset) -----------------------------------------------------

def test_stack_dataset_single_tuple_and_mixed():
    t = pyad.arange(15).reshape(15, 1)
    tt = torch.arange(15).reshape(15, 1)
    ours = StackDataset(t, list(range(15)), TensorDataset(t))
    theirs = TD.StackDataset(tt, list(range(15)), TD.TensorDataset(tt))
    assert len(ours) == len(theirs) == 15
    for i in (0, 7, 14):
        assert canon(ours[i]) == canon(theirs[i])


def test_stack_dataset_single_dict_and_getitems():
    t = pyad.arange(6).reshape(6, 1)
    tt = torch.arange(6).reshape(6, 1)
    ours = StackDataset(a=t, b=list("abcdef"))
    theirs = TD.StackDataset(a=tt, b=list("abcdef"))
    assert canon(ours[3]) == canon(theirs[3])
    assert canon(ours.__getitems__([0, 5])) == canon(theirs.__getitems__([0, 5]))
    assert canon(next(iter(DataLoader(ours, batch_size=3)))) == \
        canon(next(iter(TD.DataLoader(theirs, batch_size=3))))


def test_stack_dataset_length_mismatch_as_torch():
    def make(L):
        return L.StackDataset([1, 2, 3], [4, 5])
    assert _outcome(make, D_MOD) == _outcome(make, TD) == ("raises", "ValueError")

    def make_dict(L):
        return L.StackDataset(a=[1, 2, 3], b=[4, 5])
    assert _outcome(make_dict, D_MOD) == _outcome(make_dict, TD)


def test_concat_dataset_cumulative_sizes_as_torch():
    parts = [list(range(3)), [], list(range(5)), list(range(1))]
    assert ConcatDataset(parts).cumulative_sizes == TD.ConcatDataset(parts).cumulative_sizes
    assert [ConcatDataset(parts)[i] for i in range(9)] == \
        [TD.ConcatDataset(parts)[i] for i in range(9)]


# -- DistributedSampler ------------------------------------------------------------------

@pytest.mark.parametrize("world_size", [1, 2, 3, 5])
@pytest.mark.parametrize("drop_last", [False, True])
def test_DistributedSampler_padding(world_size, drop_last):
    for size in (100 + world_size + 1, max(world_size // 2 - 1, 1)):
        dataset = list(range(size))
        ours = [DistributedSampler(dataset, world_size, r, shuffle=False,
                                   drop_last=drop_last) for r in range(world_size)]
        theirs = [TD.DistributedSampler(dataset, world_size, r, shuffle=False,
                                        drop_last=drop_last) for r in range(world_size)]
        # without shuffling the shares are torch's, padding and dropping included
        assert [list(s) for s in ours] == [list(s) for s in theirs]
        assert [(s.num_samples, s.total_size, len(s)) for s in ours] == \
            [(s.num_samples, s.total_size, len(s)) for s in theirs]
        if drop_last and size >= world_size:
            effective = (math.ceil((size - world_size) / world_size)
                         if size % world_size else size // world_size)
            assert ours[0].num_samples == effective


def test_distributed_sampler_invalid_rank():
    for rank in (3, -1):
        def make(L):
            return (L.DistributedSampler if L is TD else DistributedSampler)(
                range(10), num_replicas=3, rank=rank)
        ours, theirs = _outcome(make, D_MOD), _outcome(make, TD)
        assert ours == theirs == ("raises", "ValueError")


def test_duplicating_data_with_drop_last():
    num_processes, num_batches = 4, 9
    data_set = pyad.tensor(list(range(num_batches)), dtype=pyad.int32)
    scanned = []
    for i in range(num_processes):
        s = DistributedSampler(data_set, num_processes, i)
        loader = DataLoader(data_set, batch_size=num_batches // num_processes,
                            drop_last=True, sampler=s)
        for batch in loader:
            scanned += np.asarray(batch.data).tolist()
    assert len(scanned) == len(set(scanned))


@pytest.mark.parametrize("drop_last", [False, True])
def test_distributed_sampler_shuffle_covers_the_data_set_on_every_epoch(drop_last):
    n, world = 23, 4
    shares = {}
    for epoch in (0, 1):
        samplers = [DistributedSampler(range(n), world, r, shuffle=True, seed=7,
                                       drop_last=drop_last) for r in range(world)]
        for s in samplers:
            s.set_epoch(epoch)
        shares[epoch] = [list(s) for s in samplers]
        flat = [i for share in shares[epoch] for i in share]
        theirs = [len(TD.DistributedSampler(range(n), world, r, drop_last=drop_last))
                  for r in range(world)]
        assert [len(share) for share in shares[epoch]] == theirs
        if drop_last:
            assert len(set(flat)) == len(flat) == (n // world) * world
        else:
            assert set(flat) == set(range(n))
            assert len(flat) == math.ceil(n / world) * world
    # another epoch, another order; the same epoch, the same order
    assert shares[0] != shares[1]
    again = DistributedSampler(range(n), world, 2, shuffle=True, seed=7,
                               drop_last=drop_last)
    again.set_epoch(1)
    assert list(again) == shares[1][2]


def test_distributed_sampler_seed():
    a = list(DistributedSampler(range(50), 2, 0, seed=1))
    assert a == list(DistributedSampler(range(50), 2, 0, seed=1))
    assert a != list(DistributedSampler(range(50), 2, 0, seed=2))
    assert a != list(range(0, 50, 2))                     # shuffled by default, as torch


def test_distributed_sampler_in_a_loader_with_set_epoch():
    sampler = DistributedSampler(range(12), num_replicas=3, rank=1, shuffle=True)
    loader = DataLoader(range(12), batch_size=2, sampler=sampler)
    epochs = []
    for epoch in range(2):
        sampler.set_epoch(epoch)
        epochs.append([np.asarray(b.data).tolist() for b in loader])
    assert [len(e) for e in epochs] == [2, 2] and len(loader) == 2
    assert epochs[0] != epochs[1]
    assert sorted(sum(epochs[0], [])) == sorted(_with_epoch(sampler, 0))


def _with_epoch(sampler, epoch):
    sampler.set_epoch(epoch)
    return list(sampler)


# -- samplers ---------------------------------------------------------------------------

def test_weighted_random_sampler_without_replacement():
    s = WeightedRandomSampler([0.1, 0.9, 0.4, 0.7, 3.0, 0.6], 5, replacement=False,
                              generator=gen(0))
    drawn = list(s)
    assert len(drawn) == len(set(drawn)) == 5 == len(s)

    def too_many(L):
        return list(L.WeightedRandomSampler([1.0, 2.0], 3, replacement=False))
    assert _outcome(too_many, D_MOD) == _outcome(too_many, TD)


def test_weighted_random_sampler_never_draws_a_zero_weight():
    drawn = list(WeightedRandomSampler([0.0, 1.0, 0.0, 2.0], 200, generator=gen(3)))
    assert set(drawn) <= {1, 3} and len(drawn) == 200


def test_subset_random_sampler_generator_reproducibility():
    idx = [3, 9, 27, 81]
    a = list(SubsetRandomSampler(idx, generator=gen(11)))
    assert a == list(SubsetRandomSampler(idx, generator=gen(11)))
    assert sorted(a) == idx and len(SubsetRandomSampler(idx)) == 4


def test_random_sampler_num_samples_with_replacement_and_generator():
    s = RandomSampler(range(5), replacement=True, num_samples=12, generator=gen(2))
    drawn = list(s)
    assert len(s) == len(drawn) == 12 and set(drawn) <= set(range(5))
    assert drawn == list(RandomSampler(range(5), replacement=True, num_samples=12,
                                       generator=gen(2)))
    # without replacement, num_samples > len draws whole permutations, as torch's
    drawn = list(RandomSampler(range(5), num_samples=12, generator=gen(2)))
    assert len(drawn) == 12
    assert sorted(drawn[:5]) == sorted(drawn[5:10]) == list(range(5))


@pytest.mark.parametrize("n,bs,drop", [(10, 3, False), (10, 3, True), (9, 3, True),
                                       (2, 5, False), (2, 5, True)])
def test_batch_sampler_len_and_batches_match_torch(n, bs, drop):
    ours = BatchSampler(SequentialSampler(range(n)), bs, drop)
    theirs = TD.BatchSampler(TD.SequentialSampler(range(n)), bs, drop)
    assert len(ours) == len(theirs) and list(ours) == list(theirs)


def test_worker_info_pickles():
    info = D_MOD.dataloader.WorkerInfo(id=1, num_workers=2, seed=5, dataset=[1])
    copy = pickle.loads(pickle.dumps(info))
    assert (copy.id, copy.num_workers, copy.seed, copy.dataset) == (1, 2, 5, [1])
