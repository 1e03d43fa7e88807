"""More ports of PyTorch's data-loading tests (pytorch/pytorch test/test_dataloader.py:
TestTensorDataset, TestStackDataset, TestDataLoader's non-batched, bulk-loading, sampler
length, numpy-scalar and default_collate/default_convert cases, the worker-queue,
set-affinity, conv-after-fork and persistent-worker cases) to ``pyad.utils.data``; the
tests already in tests/utils/test_torch_dataloader_ports.py are not repeated.

Test names keep torch's. Expected values are torch 2.13's on the same inputs (computed
here side by side) or torch's literal test values. pyad does not document torch-identical
random draws, so shuffled orders are checked by their properties and by reproducibility
within pyad (one generator seed, two runs), never against torch's order. Sizes are only
hyperparameters where torch's were (a 24-sample data set instead of 100, 2 workers instead
of 4, batch sizes 8/16 and up to 2 workers in the worker-queue test) so that the file
stays fast; worker tests use ``fork`` (the Linux default) and finish in well under 2 s.
CUDA / pin_memory cases are not ported (no accelerator)."""
import math
import os
import tempfile
import warnings
from collections import Counter, namedtuple

import numpy as np
import pytest

import pyad
from pyad.utils.data import (BatchSampler, DataLoader, Dataset, IterableDataset,
                             RandomSampler, Sampler, SequentialSampler, StackDataset,
                             TensorDataset, default_collate, default_convert)

torch = pytest.importorskip("torch")
TD = torch.utils.data
from torch.utils.data import _utils as T_utils  # noqa: E402

N = 24          # torch's setUp uses 100 samples; only the count differs


def canon(x):
    """A comparable form of a pyad or torch batch: Variables/tensors as (dtype, values)."""
    if isinstance(x, pyad.Variable):
        return ("T", str(x.dtype).replace("pyad.", ""), np.asarray(x.data).tolist())
    if isinstance(x, torch.Tensor):
        return ("T", str(x.numpy().dtype), x.numpy().tolist())
    if isinstance(x, dict):
        return (type(x).__name__, {k: canon(v) for k, v in x.items()})
    if isinstance(x, tuple) and hasattr(x, "_fields"):
        return (type(x).__name__,) + tuple(canon(v) for v in x)
    if isinstance(x, (list, tuple)):
        return (type(x).__name__, [canon(v) for v in x])
    return x


def same(a, b):
    np.testing.assert_array_equal(np.asarray(a.data), np.asarray(b.data))


@pytest.fixture
def data_labels():
    rng = np.random.default_rng(1)
    data = pyad.tensor(rng.standard_normal((N, 2, 3, 5)).astype(np.float32))
    labels = pyad.tensor(rng.permutation(N // 2).repeat(2))
    return data, labels, TensorDataset(data, labels)


def _test_sequential(loader, data, labels):
    batch_size = loader.batch_size
    if batch_size is None:
        for idx, (sample, target) in enumerate(loader):
            same(sample, data[idx])
            same(target, labels[idx])
        assert idx == len(data) - 1
    else:
        for i, (sample, target) in enumerate(loader):
            idx = i * batch_size
            same(sample, data[idx:idx + batch_size])
            same(target, labels[idx:idx + batch_size])
        assert i == math.floor((len(data) - 1) / batch_size)


def _test_shuffle(loader, data, labels):
    flat = np.asarray(data.data).reshape(len(data), -1)
    found = dict.fromkeys(range(len(data)), 0)
    batch_size = loader.batch_size
    seen = 0
    for i, (samples, targets) in enumerate(loader):
        if batch_size is None:
            samples, targets = samples[None], targets[None]
        for sample, target in zip(samples, targets):
            hits = np.flatnonzero((flat == np.asarray(sample.data).reshape(-1)).all(axis=1))
            assert len(hits) == 1
            k = int(hits[0])
            assert not found[k]
            found[k] += 1
            assert int(target) == int(labels[k])
            seen += 1
        assert sum(found.values()) == seen == min((i + 1) * (batch_size or 1), len(data))
    assert i == (len(data) - 1 if batch_size is None
                 else math.floor((len(data) - 1) / batch_size))


# -- TestTensorDataset -------------------------------------------------------------------

def test_getitem():
    t = pyad.randn(15, 10, 2, 3)
    lab = pyad.randn(15, 10)
    source = TensorDataset(t, lab)
    for i in range(15):
        same(t[i], source[i][0])
        same(lab[i], source[i][1])


def test_getitem_1d():
    t = pyad.randn(15)
    lab = pyad.randn(15)
    source = TensorDataset(t, lab)
    for i in range(15):
        same(t[i], source[i][0])
        same(lab[i], source[i][1])


def test_single_tensor():
    t = pyad.randn(5, 10)
    source = TensorDataset(t)
    assert len(source) == 5
    for i in range(5):
        assert len(source[i]) == 1
        same(t[i], source[i][0])


def test_many_tensors():
    t0 = pyad.randn(5, 10, 2, 3, 4, 5)
    t1 = pyad.randn(5, 10)
    t2 = pyad.randn(5, 10, 2, 5)
    t3 = pyad.randn(5, 10, 3, 7)
    source = TensorDataset(t0, t1, t2, t3)
    assert len(source) == 5
    for i in range(5):
        for k, t in enumerate((t0, t1, t2, t3)):
            same(t[i], source[i][k])


# -- TestStackDataset --------------------------------------------------------------------

def test_empty():
    with pytest.raises(ValueError, match="At least one dataset should be passed"):
        StackDataset()


def test_mixed():
    with pytest.raises(ValueError, match="Supported either"):
        StackDataset(TensorDataset(pyad.randn(15, 10)), a=TensorDataset(pyad.randn(10, 15)))


def test_size_mismatch():
    with pytest.raises(ValueError, match="Size mismatch between datasets"):
        StackDataset(TensorDataset(pyad.randn(15, 10)), TensorDataset(pyad.randn(10, 15)))
    with pytest.raises(ValueError, match="Size mismatch between datasets"):
        StackDataset(a=TensorDataset(pyad.randn(15, 10)), b=TensorDataset(pyad.randn(10, 15)))


def test_single():
    t = TensorDataset(pyad.randn(15, 10))
    source = StackDataset(t)
    for i in range(15):
        same(t[i][0], source[i][0][0])
    source = StackDataset(a=t)
    for i in range(15):
        same(t[i][0], source[i]["a"][0])


def test_stack_dataset_getitem():            # TestStackDataset.test_getitem
    t = TensorDataset(pyad.randn(15, 10))
    lab = TensorDataset(pyad.randn(15, 5, 4))
    source = StackDataset(t, lab)
    for i in range(15):
        same(t[i][0], source[i][0][0])
        same(lab[i][0], source[i][1][0])
    source = StackDataset(a=t, b=lab)
    for i in range(15):
        same(t[i][0], source[i]["a"][0])
        same(lab[i][0], source[i]["b"][0])


class GetItemsDataset(Dataset):
    def __init__(self, short=False):
        self.data = pyad.randn(4)
        self.short = short

    def __getitem__(self, item):
        return self.data[item]

    def __getitems__(self, items):
        got = self.data[items]
        return got[:-1] if self.short else got      # short: return one less, as torch's

    def __len__(self):
        return 4


def test_getitems():
    t = GetItemsDataset()
    lab = [1, 2, 3, 4]
    batch = StackDataset(t, lab).__getitems__([0, 1, 2, 3])
    for i in range(4):
        same(t[i], batch[i][0])
        assert batch[i][1] == lab[i]
    batch = StackDataset(t=t, l=lab).__getitems__([0, 1, 2, 3])
    for i in range(4):
        same(t[i], batch[i]["t"])
        assert batch[i]["l"] == lab[i]


def test_getitems_raises_index_error():
    source = StackDataset(GetItemsDataset(), [1, 2, 3, 4])
    with pytest.raises(IndexError):
        source.__getitems__([0, 4])


def test_getitems_value_error():
    source = StackDataset(GetItemsDataset(short=True), [1, 2, 3, 4])
    with pytest.raises(ValueError,
                       match="Nested dataset's output size mismatch. Expected 4, got 3"):
        source.__getitems__([0, 1, 2, 3])


# -- TestDataLoader: main process ---------------------------------------------------------

def test_sequential(data_labels):
    data, labels, ds = data_labels
    _test_sequential(DataLoader(ds), data, labels)


def test_sequential_nonbatch(data_labels):
    data, labels, ds = data_labels
    _test_sequential(DataLoader(ds, batch_size=None), data, labels)


def test_shuffle_batch_none(data_labels):
    data, labels, ds = data_labels
    _test_shuffle(DataLoader(ds, batch_size=None, shuffle=True), data, labels)


def test_shuffle_batch(data_labels):
    data, labels, ds = data_labels
    _test_shuffle(DataLoader(ds, batch_size=2, shuffle=True), data, labels)


class BulkLoadingDataset(Dataset):
    def __init__(self, length):
        self.length = length

    def __getitem__(self, indices):
        assert isinstance(indices, (list, tuple))
        return pyad.tensor(indices)

    def __len__(self):
        return self.length


class BulkLoadingSampler(Sampler):
    def __init__(self, dataset, batch_size):
        self.dataset = dataset
        self.batch_size = batch_size

    def __iter__(self):
        perm = pyad.randperm(len(self.dataset)).tolist()
        for k in range(0, len(perm), self.batch_size):
            yield perm[k:k + self.batch_size]

    def __len__(self):
        return int(math.ceil(len(self.dataset) / float(self.batch_size)))


@pytest.mark.parametrize("num_workers", [0, 2])
def test_bulk_loading_nobatch(num_workers):
    n = 35
    ds = BulkLoadingDataset(n)
    sampler = BulkLoadingSampler(ds, batch_size=4)
    dl = DataLoader(ds, num_workers=num_workers, batch_size=None, sampler=sampler)
    assert not dl._auto_collation
    samples = list(dl)
    assert len(samples) == 9
    assert set(pyad.cat(samples, 0).tolist()) == set(range(n))


def test_typing():
    from typing import List

    # as torch: Dataset and DataLoader can be subscripted in annotations (no TypeError)
    class SomeDatasetClass(Dataset[List[pyad.Variable]]):
        pass

    def _create_dataloader(is_train: bool) -> DataLoader[List[pyad.Variable]]:
        pass

    assert issubclass(SomeDatasetClass, Dataset)
    assert Sampler[int] is not None and IterableDataset[int] is not None


@pytest.mark.parametrize("replacement", [True, False])
def test_random_sampler_len_with_replacement(data_labels, replacement):
    # with replacement=False this is torch's test_random_sampler_len_without_replacement
    _, _, ds = data_labels
    num_samples = len(ds) + 5
    sampler = RandomSampler(ds, replacement=replacement, num_samples=num_samples)
    assert len(sampler) == num_samples
    assert sum(1 for _ in sampler) == num_samples
    assert len(DataLoader(ds, batch_size=1, sampler=sampler)) == num_samples
    assert len(DataLoader(ds, batch_size=6, sampler=sampler)) == \
        num_samples // 6 + (num_samples % 6 > 0)


def test_random_sampler_len_without_replacement(data_labels):
    _, _, ds = data_labels
    num_samples = len(ds) + 5
    sampler = RandomSampler(ds, replacement=False, num_samples=num_samples)
    counts = Counter(sampler)
    # a full permutation then 5 more distinct indices: exactly 5 repeated, all covered
    assert sum(counts.values()) == num_samples
    assert sum(v > 1 for v in counts.values()) == 5
    assert set(counts) == set(range(len(ds)))
    assert len(DataLoader(ds, batch_size=6, sampler=sampler)) == math.ceil(num_samples / 6)


NP_SCALARS = ["float64", "float32", "float16", "int64", "int32", "int16", "int8", "uint8"]


@pytest.mark.parametrize("dt", NP_SCALARS)
def test_numpy_scalars(dt):
    class ScalarDataset(Dataset):
        def __getitem__(self, i):
            return getattr(np, dt)()

        def __len__(self):
            return 4

    class TScalarDataset(TD.Dataset):
        def __getitem__(self, i):
            return getattr(np, dt)()

        def __len__(self):
            return 4

    ours = next(iter(DataLoader(ScalarDataset(), batch_size=2)))
    theirs = next(iter(TD.DataLoader(TScalarDataset(), batch_size=2)))
    assert isinstance(ours, pyad.Variable)
    assert canon(ours) == canon(theirs)
    assert str(theirs.dtype) == "torch." + dt


class CustomList(list):
    pass


class CustomDict(dict):
    pass


def test_default_convert_mapping_keep_type():
    data = CustomDict({"a": 1, "b": 2})
    converted = default_convert(data)
    theirs = T_utils.collate.default_convert(CustomDict({"a": 1, "b": 2}))
    assert type(converted) is type(theirs) is CustomDict
    assert converted == data == theirs


def test_default_convert_sequence_keep_type():
    data = CustomList([1, 2, 3])
    converted = default_convert(data)
    assert type(converted) is type(T_utils.collate.default_convert(CustomList([1, 2, 3])))
    assert type(converted) is CustomList
    assert converted == data


def test_default_convert_sequence_dont_keep_type():
    assert default_convert(range(2)) == T_utils.collate.default_convert(range(2)) == [0, 1]


def test_default_collate_dtype():
    for arr in ([1, 2, -1], [1.1, 2.3, -0.9], [True, False]):
        ours = default_collate(arr)
        theirs = T_utils.collate.default_collate(arr)
        assert canon(ours) == canon(theirs)
    assert str(T_utils.collate.default_collate([1, 2, -1]).dtype) == "torch.int64"
    assert str(default_collate([1, 2, -1]).dtype).endswith("int64")
    assert str(default_collate([1.1, 2.3, -0.9]).dtype).endswith("float64")
    assert str(default_collate([True, False]).dtype).endswith("bool")
    arr = ["a", "b", "c"]                          # should be a no-op
    assert default_collate(arr) == arr


def test_default_collate_mapping_keep_type():
    batch = [CustomDict({"a": 1, "b": 2}), CustomDict({"a": 3, "b": 4})]
    ours = default_collate(batch)
    theirs = T_utils.collate.default_collate(
        [CustomDict({"a": 1, "b": 2}), CustomDict({"a": 3, "b": 4})])
    assert canon(ours) == canon(theirs)
    assert canon(ours) == ("CustomDict", {"a": ("T", "int64", [1, 3]),
                                          "b": ("T", "int64", [2, 4])})


def test_default_collate_sequence_keep_type():
    batch = [CustomList([1, 2, 3]), CustomList([4, 5, 6])]
    ours = default_collate(batch)
    theirs = T_utils.collate.default_collate([CustomList([1, 2, 3]), CustomList([4, 5, 6])])
    assert canon(ours) == canon(theirs)
    assert canon(ours) == ("CustomList", [("T", "int64", [1, 4]), ("T", "int64", [2, 5]),
                                          ("T", "int64", [3, 6])])


def test_default_collate_sequence_dont_keep_type():
    ours = default_collate([range(2), range(2)])
    theirs = T_utils.collate.default_collate([range(2), range(2)])
    assert canon(ours) == canon(theirs) == ("list", [("T", "int64", [0, 0]),
                                                     ("T", "int64", [1, 1])])


def test_default_collate_bad_numpy_types():
    arr = np.array(["a", "b", "c"])                # should be a no-op
    assert list(default_collate(arr)) == list(T_utils.collate.default_collate(arr))
    for bad in (np.array([[["a", "b", "c"]]]), np.array([object(), object(), object()]),
                np.array([[[object(), object(), object()]]])):
        with pytest.raises(TypeError):
            T_utils.collate.default_collate(bad)
        with pytest.raises(TypeError):
            default_collate(bad)


@pytest.mark.filterwarnings("ignore:The given NumPy array is not writable")
def test_default_collate_numpy_memmap():
    with tempfile.TemporaryFile() as f:
        arr = np.array([[0, 1], [2, 3], [4, 5], [6, 7]])
        arr_memmap = np.memmap(f, dtype=arr.dtype, mode="w+", shape=arr.shape)
        arr_memmap[:] = arr[:]
        arr_new = np.memmap(f, dtype=arr.dtype, mode="r", shape=arr.shape)
        ours = default_collate(list(arr_new))
        theirs = T_utils.collate.default_collate(list(arr_new))
    assert isinstance(ours, pyad.Variable)
    assert canon(ours) == canon(theirs) == ("T", "int64", [[0, 1], [2, 3], [4, 5], [6, 7]])


def test_default_collate_bad_sequence_type():
    batch = [["X"], ["X", "X"]]
    for collate in (default_collate, T_utils.collate.default_collate):
        with pytest.raises(RuntimeError):
            collate(batch)
        with pytest.raises(RuntimeError):
            collate(batch[::-1])


def test_excessive_thread_creation_warning(data_labels):
    _, _, ds = data_labels
    with pytest.warns(UserWarning, match=r"excessive worker creation might get DataLoader "
                                         r"running slow or even freeze"):
        DataLoader(ds, batch_size=2, num_workers=1000)


# -- TestNamedTupleDataLoader / TestDictDataLoader extras --------------------------------

Batch = namedtuple("Batch", ["data", "label", "random_tensor"])
Data = namedtuple("Data", ["positive", "negative"])


class NamedTupleDataset(Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, ndx):
        return Batch(data=Data(positive=ndx, negative=-ndx), label=str(ndx),
                     random_tensor=pyad.randn(3))


def test_dataloader_with_namedtuple_no_auto_collation():
    # torch's test_dataloader_with_namedtuple, second half: batch_size=None keeps the
    # namedtuples and leaves numbers as they are (no Variable)
    for ndx, batch in enumerate(DataLoader(NamedTupleDataset(), batch_size=None)):
        assert isinstance(batch, Batch) and isinstance(batch.data, Data)
        assert not isinstance(batch.data.positive, pyad.Variable)
        assert batch.data == (ndx, -ndx) and batch.label == str(ndx)
        assert isinstance(batch.random_tensor, pyad.Variable)
        assert tuple(batch.random_tensor.shape) == (3,)


# -- TestDataLoader: worker processes ----------------------------------------------------

class ErrorIterableDataset(IterableDataset):
    def __iter__(self):
        raise RuntimeError("Error in __iter__")


def error_worker_init_fn(_):
    raise RuntimeError("Error in worker_init_fn")


def test_error_in_init(data_labels):
    _, _, ds = data_labels
    for num_workers in [0, 2]:
        loader = DataLoader(ErrorIterableDataset(), num_workers=num_workers)
        with pytest.raises(RuntimeError, match="Error in __iter__"):
            list(iter(loader))
    loader = DataLoader(ds, num_workers=2, worker_init_fn=error_worker_init_fn)
    with pytest.raises(RuntimeError, match="Error in worker_init_fn"):
        list(iter(loader))


def test_seqential_batch_workers(data_labels):
    data, labels, ds = data_labels
    _test_sequential(DataLoader(ds, batch_size=2, num_workers=2), data, labels)


def test_shuffle_batch_workers(data_labels):
    data, labels, ds = data_labels
    _test_shuffle(DataLoader(ds, batch_size=2, shuffle=True, num_workers=2), data, labels)


def test_shuffle_batch_workers_prefetch(data_labels):
    data, labels, ds = data_labels
    _test_shuffle(DataLoader(ds, batch_size=2, shuffle=True, num_workers=2,
                             prefetch_factor=3), data, labels)


def test_partial_workers(data_labels):
    """Workers exit even if the iterator is not exhausted."""
    _, _, ds = data_labels
    loader = iter(DataLoader(ds, batch_size=2, num_workers=2))
    workers = loader._workers
    for i, _ in enumerate(loader):
        if i == 5:
            break
    assert i == 5
    del loader
    for w in workers:
        w.join(10)
        assert not w.is_alive(), "subprocess not terminated"


def test_multiple_dataloaders(data_labels):
    _, _, ds = data_labels
    loader1_it = iter(DataLoader(ds, num_workers=1))
    loader2_it = iter(DataLoader(ds, num_workers=2, multiprocessing_context="fork"))
    a = [next(loader1_it), next(loader1_it)]
    b = [next(loader2_it), next(loader2_it)]
    a.append(next(loader1_it))
    b.append(next(loader2_it))
    for x, y in zip(a, b):       # both sequential: the same three batches
        same(x[0], y[0])
    same(a[2][1], ds[2][1][None])
    del loader1_it
    del loader2_it


class MultiEpochDataset(IterableDataset):   # torch's TestMultiEpochDataset
    def __init__(self, length):
        self.length = length

    def __iter__(self):
        worker_info = pyad.utils.data.get_worker_info()
        assert worker_info is not None
        for _ in range(self.length // worker_info.num_workers):
            yield worker_info.id

    def __len__(self):
        return self.length


@pytest.mark.parametrize("persistent_workers", [False, True])
def test_multi_epochs_reproducibility(persistent_workers):
    num_workers, batch_size, num_epochs = 2, 10, 3
    dataloader = DataLoader(MultiEpochDataset(batch_size * num_workers), batch_size=batch_size,
                            shuffle=False, num_workers=num_workers,
                            persistent_workers=persistent_workers)
    for _ in range(num_epochs):
        n = 0
        for batch_idx, sample in enumerate(dataloader):
            assert sample.tolist() == [batch_idx % num_workers] * batch_size
            n += 1
        assert n == num_workers


class DummyDataset(Dataset):
    def __init__(self):
        self.data = list(range(10))

    def __len__(self):
        return len(self.data)

    def __getitem__(self, idx):
        # persistent workers keep the data set they were started with
        assert self.start == 0
        return self.data[idx]


def test_dataset_not_reset():                # TestDataLoaderPersistentWorkers
    dataset = DummyDataset()
    dataloader = DataLoader(dataset, num_workers=2, persistent_workers=True)
    dataset.start = 0
    for i in range(4):                       # torch: 10 epochs
        assert [int(x) for x in dataloader] == list(range(10))
        dataset.start = i + 1
    del dataloader


class WorkerQueueDataset(Dataset):           # torch's TestWorkerQueueDataset
    def __init__(self, data):
        self.data = data
        self.worker_id = None

    def worker_init_fn(self, worker_id):
        self.worker_id = worker_id

    def __getitem__(self, item):
        return self.worker_id, self.data[item]

    def __len__(self):
        return len(self.data)


def test_ind_worker_queue():
    dataset = WorkerQueueDataset(list(range(64)))       # torch: 128 samples
    for batch_size in (8, 16):                            # torch: 8, 16, 32, 64
        for num_workers in (1, 2):                        # torch: up to 6
            loader = DataLoader(dataset, batch_size=batch_size, shuffle=False,
                                num_workers=num_workers, timeout=5,
                                worker_init_fn=dataset.worker_init_fn)
            current = 0
            for i, (worker_ids, sample) in enumerate(loader):
                assert worker_ids.tolist() == [current] * batch_size
                assert sample.tolist() == list(range(i * batch_size, (i + 1) * batch_size))
                current = (current + 1) % num_workers


class SetAffinityDataset(IterableDataset):
    def __iter__(self):
        pyad.randperm(1)
        return iter(os.sched_getaffinity(0))


@pytest.mark.skipif(not hasattr(os, "sched_setaffinity"), reason="no os.sched_setaffinity")
def test_set_affinity_in_worker_init():
    old_affinity = os.sched_getaffinity(0)
    if not old_affinity:
        pytest.skip("No affinity information")
    expected_affinity = list(old_affinity)[-1]

    def worker_set_affinity(_):
        os.sched_setaffinity(0, [expected_affinity])

    n = 0
    for sample in DataLoader(SetAffinityDataset(), num_workers=2,
                             worker_init_fn=worker_set_affinity):
        assert sample.tolist() == [expected_affinity]
        n += 1
    assert n == 2                              # one core from each of the two workers
    assert os.sched_getaffinity(0) == old_affinity


class ConvDataset(Dataset):
    def __init__(self):
        self.x = pyad.ones(1, 1, 24000)
        self[0]                                 # a convolution in the parent process

    def __len__(self):
        return 1

    def __getitem__(self, index):
        return pyad.nn.functional.conv1d(self.x, pyad.ones(1, 1, 2))


def test_conv_after_fork():
    n = 0
    for x in DataLoader(ConvDataset(), num_workers=1):
        assert tuple(x.shape) == (1, 1, 1, 23999)
        np.testing.assert_array_equal(np.asarray(x.data), 2.0)    # ones * ones, 2 taps
        n += 1
    assert n == 1


def test_shuffle_reproducibility_with_workers_and_sampler_batches(data_labels):
    # torch's test_shuffle_reproducibility second loader (num_workers=2), and the
    # BatchSampler drop_last lengths (compared with torch's on the same sizes)
    _, _, ds = data_labels

    def run():
        return [b[1].tolist() for b in DataLoader(ds, batch_size=5, shuffle=True,
                                                  num_workers=2,
                                                  generator=pyad.Generator().manual_seed(42))]
    first, second = run(), run()
    assert first == second
    assert sorted(sum(first, [])) == sorted(np.asarray(ds.tensors[1].data).tolist())
    for drop in (False, True):
        ours = list(BatchSampler(SequentialSampler(range(N)), 5, drop))
        theirs = list(TD.BatchSampler(TD.SequentialSampler(range(N)), 5, drop))
        assert ours == theirs


# -- TestCustomPinFn, without pinning (no accelerator): a custom batch class -------------

class SimpleCustomBatch:
    def __init__(self, data):
        transposed_data = list(zip(*data))
        self.inp = pyad.stack(transposed_data[0], 0)
        self.tgt = pyad.stack(transposed_data[1], 0)


def collate_wrapper(batch):
    return SimpleCustomBatch(batch)


@pytest.mark.parametrize("num_workers", [0, 1])
def test_custom_batch_pin(num_workers):
    # num_workers=1 is torch's test_custom_batch_pin_worker
    inps = pyad.arange(10 * 5, dtype=pyad.float32).view(10, 5)
    tgts = pyad.arange(10 * 5, dtype=pyad.float32).view(10, 5)
    loader = DataLoader(TensorDataset(inps, tgts), batch_size=2, collate_fn=collate_wrapper,
                        num_workers=num_workers)
    n = 0
    for i, sample in enumerate(loader):
        assert isinstance(sample, SimpleCustomBatch)
        same(sample.inp, inps[2 * i:2 * i + 2])
        same(sample.tgt, tgts[2 * i:2 * i + 2])
        n += 1
    assert n == 5
