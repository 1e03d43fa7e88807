"""pyad.utils.data against torch.utils.data: datasets, random_split, samplers,
default_collate and DataLoader (batching, shuffling, errors), and the worker processes
(same batches as in-process, per-worker seeds, worker_init_fn, get_worker_info, errors
raised in the main process with the worker id, clean shutdown, no zombies)."""
import collections
import multiprocessing
import os
import signal
import time

import numpy as np
import pytest

import pyad
from pyad.utils import data as D

torch = pytest.importorskip("torch")
TD = torch.utils.data


def as_np(x):
    if isinstance(x, pyad.Variable):
        return ("V", str(x.dtype), x.data.tolist())
    if isinstance(x, torch.Tensor):
        return ("V", str(x.numpy().dtype), x.numpy().tolist())
    if isinstance(x, dict):
        return {k: as_np(v) for k, v in x.items()}
    if isinstance(x, tuple) and hasattr(x, "_fields"):
        return (type(x).__name__,) + tuple(as_np(v) for v in x)
    if isinstance(x, (list, tuple)):
        return (type(x).__name__, [as_np(v) for v in x])
    return x


# -- datasets ---------------------------------------------------------------------------

def test_tensor_dataset_indexes_every_variable_along_dim_0():
    x, y = np.arange(12.0).reshape(4, 3), np.arange(4)
    ours = D.TensorDataset(pyad.tensor(x), pyad.tensor(y))
    theirs = TD.TensorDataset(torch.tensor(x), torch.tensor(y))
    assert len(ours) == len(theirs) == 4
    for i in [0, 3, -1, slice(1, 3)]:
        assert as_np(ours[i]) == as_np(theirs[i])


def test_tensor_dataset_refuses_mismatched_sizes_as_torch():
    with pytest.raises(AssertionError, match="Size mismatch between tensors"):
        D.TensorDataset(pyad.zeros(3), pyad.zeros(4))


def test_subset_concat_and_add_index_as_torch():
    a, b = list(range(5)), list(range(10, 13))
    for ours, theirs in [(D.Subset(a, [4, 0, 2]), TD.Subset(a, [4, 0, 2])),
                         (D.ConcatDataset([a, b]), TD.ConcatDataset([a, b]))]:
        assert len(ours) == len(theirs)
        assert [ours[i] for i in range(-len(ours), len(ours))] == \
               [theirs[i] for i in range(-len(theirs), len(theirs))]
    assert D.ConcatDataset([a, b]).cumulative_sizes == [5, 8]
    with pytest.raises(ValueError, match="absolute value of index"):
        D.ConcatDataset([a, b])[-9]
    with pytest.raises(AssertionError, match="should not be an empty iterable"):
        D.ConcatDataset([])

    class Ds(D.Dataset):
        def __len__(self):
            return 2

        def __getitem__(self, i):
            return i

    both = Ds() + Ds()
    assert isinstance(both, D.ConcatDataset) and [both[i] for i in range(4)] == [0, 1, 0, 1]


def test_base_classes_raise_not_implemented():
    with pytest.raises(NotImplementedError):
        D.Dataset()[0]
    with pytest.raises(TypeError):          # abstract __iter__, as torch's
        D.IterableDataset()


@pytest.mark.parametrize("lengths", [[3, 7], [0.5, 0.5], [0.3, 0.3, 0.4], [0.33, 0.33, 0.34],
                                     [1.0], [0.1] * 10, [10, 0]])
def test_random_split_lengths_match_torch_and_partition_the_dataset(lengths):
    ds = list(range(10))
    ours = D.random_split(ds, lengths, generator=pyad.Generator().manual_seed(0))
    theirs = TD.random_split(ds, lengths, generator=torch.Generator().manual_seed(0))
    assert [len(s) for s in ours] == [len(s) for s in theirs]
    assert sorted(i for s in ours for i in s) == ds


def test_random_split_is_reproducible_with_a_generator_and_checks_lengths():
    a = D.random_split(range(20), [5, 15], generator=pyad.Generator().manual_seed(4))
    b = D.random_split(range(20), [5, 15], generator=pyad.Generator().manual_seed(4))
    assert list(a[0]) == list(b[0])
    with pytest.raises(ValueError, match="Sum of input lengths does not equal"):
        D.random_split(range(5), [2, 2])
    with pytest.raises(ValueError) as theirs:
        TD.random_split(range(5), [2, 2])
    with pytest.raises(ValueError) as ours:
        D.random_split(range(5), [2, 2])
    assert str(ours.value) == str(theirs.value)


# -- samplers ---------------------------------------------------------------------------

def test_samplers_yield_what_torchs_yield_up_to_order():
    ds = list(range(7))
    assert list(D.SequentialSampler(ds)) == list(TD.SequentialSampler(ds))
    assert sorted(D.RandomSampler(ds)) == sorted(TD.RandomSampler(ds))
    assert len(list(D.RandomSampler(ds, num_samples=17))) == 17
    assert sorted(D.RandomSampler(ds, num_samples=14)) == sorted(ds * 2)
    draws = list(D.RandomSampler(ds, replacement=True, num_samples=100))
    assert len(draws) == 100 and set(draws) <= set(ds)
    assert sorted(D.SubsetRandomSampler([3, 5, 1])) == [1, 3, 5]
    for drop_last in (False, True):
        for bs in (1, 3, 7, 10):
            ours = D.BatchSampler(D.SequentialSampler(ds), bs, drop_last)
            theirs = TD.BatchSampler(TD.SequentialSampler(ds), bs, drop_last)
            assert list(ours) == list(theirs) and len(ours) == len(theirs)


def test_random_sampler_follows_manual_seed_and_its_generator():
    pyad.manual_seed(5)
    a = list(D.RandomSampler(range(50)))
    pyad.manual_seed(5)
    assert list(D.RandomSampler(range(50))) == a
    assert a != list(range(50))
    g1, g2 = pyad.Generator().manual_seed(1), pyad.Generator().manual_seed(1)
    assert list(D.RandomSampler(range(30), generator=g1)) == \
           list(D.RandomSampler(range(30), generator=g2))


def test_weighted_random_sampler_draws_by_weight():
    pyad.manual_seed(0)
    draws = list(D.WeightedRandomSampler([0.0, 3.0, 1.0], 4000))
    counts = collections.Counter(draws)
    assert counts[0] == 0 and 0.70 < counts[1] / 4000 < 0.80
    no_rep = list(D.WeightedRandomSampler([1.0, 1.0, 1.0, 0.0], 3, replacement=False))
    assert sorted(no_rep) == [0, 1, 2]
    # as torch: zero-weight categories come after the weighted ones, no error
    assert list(D.WeightedRandomSampler([1.0, 0.0], 2, replacement=False)) == [0, 1]
    with pytest.raises(RuntimeError, match="without replacement"):
        list(D.WeightedRandomSampler([1.0, 1.0], 3, replacement=False))


BAD_SAMPLERS = [("RandomSampler", (range(3),), dict(replacement=1)),
                ("RandomSampler", (range(3),), dict(num_samples=0)),
                ("RandomSampler", ([],), dict()),
                ("BatchSampler", (range(3), 0, False), dict()),
                ("BatchSampler", (range(3), True, False), dict()),
                ("BatchSampler", (range(3), 2, 1), dict()),
                ("WeightedRandomSampler", ([1.0], 0), dict()),
                ("WeightedRandomSampler", ([1.0], 2), dict(replacement=0)),
                ("WeightedRandomSampler", ([[1.0]], 2), dict())]


@pytest.mark.parametrize("name,args,kwargs", BAD_SAMPLERS, ids=lambda v: str(v))
def test_sampler_arguments_are_checked_as_torch(name, args, kwargs):
    with pytest.raises((ValueError, TypeError)) as theirs:
        getattr(TD, name)(*args, **kwargs)
    with pytest.raises(theirs.type) as ours:
        getattr(D, name)(*args, **kwargs)
    assert str(ours.value) == str(theirs.value)


# -- collate ----------------------------------------------------------------------------

Point = collections.namedtuple("Point", "x y")


def batches():
    rng = np.random.default_rng(0)
    a = [rng.normal(size=(2, 3)) for _ in range(3)]
    yield "variables", [pyad.tensor(v) for v in a], [torch.tensor(v) for v in a]
    yield "arrays", a, a
    yield "float32 arrays", [v.astype(np.float32) for v in a], [v.astype(np.float32) for v in a]
    yield "floats", [1.5, 2.0, -3.0], [1.5, 2.0, -3.0]
    yield "ints", [1, 2, 3], [1, 2, 3]
    yield "bools", [True, False], [True, False]
    yield "numpy scalars", [np.float32(1), np.float32(2)], [np.float32(1), np.float32(2)]
    yield "numpy ints", [np.int32(1), np.int32(2)], [np.int32(1), np.int32(2)]
    yield "strings", ["a", "b"], ["a", "b"]
    yield "tuples", [(pyad.tensor(v), 1, "s") for v in a], [(torch.tensor(v), 1, "s") for v in a]
    yield "lists", [[1.0, 2], [3.0, 4]], [[1.0, 2], [3.0, 4]]
    yield "dicts", [{"x": pyad.tensor(v), "n": i} for i, v in enumerate(a)], \
        [{"x": torch.tensor(v), "n": i} for i, v in enumerate(a)]
    yield "namedtuples", [Point(pyad.tensor(v), 1.0) for v in a], \
        [Point(torch.tensor(v), 1.0) for v in a]
    yield "nested", [{"p": (1, [2.0, {"q": "z"}])}] * 2, [{"p": (1, [2.0, {"q": "z"}])}] * 2
    yield "0-d variables", [pyad.tensor(1.0), pyad.tensor(2.0)], \
        [torch.tensor(1.0), torch.tensor(2.0)]
    yield "empty", [pyad.zeros(0, 2), pyad.zeros(0, 2)], [torch.zeros(0, 2), torch.zeros(0, 2)]


@pytest.mark.parametrize("name,ours,theirs", list(batches()), ids=[b[0] for b in batches()])
def test_default_collate_matches_torch(name, ours, theirs):
    assert as_np(D.default_collate(ours)) == as_np(TD.default_collate(theirs))


def test_default_collate_errors_match_torch():
    for batch in ([object(), object()], [np.array(["a"]), np.array(["b"])]):
        with pytest.raises(TypeError) as theirs:
            TD.default_collate(batch)
        with pytest.raises(TypeError) as ours:
            D.default_collate(batch)
        assert str(ours.value).replace("pyad", "torch") == str(theirs.value) or \
            str(ours.value).split(";")[0] == str(theirs.value).split(";")[0]
    with pytest.raises(RuntimeError, match="each element in list of batch should be of equal"):
        D.default_collate([[1, 2], [3]])


def test_default_convert_matches_torch():
    a = np.arange(3.0)
    for sample in [a, {"a": a, "s": "x"}, (a, 1), [a, 2.0], Point(a, 1), 3, "s"]:
        assert as_np(D.default_convert(sample)) == as_np(TD.default_convert(sample))


# -- DataLoader in the main process -------------------------------------------------------

def pair_of_datasets(n=10):
    x, y = np.arange(n * 2, dtype=np.float64).reshape(n, 2), np.arange(n) % 3
    return (D.TensorDataset(pyad.tensor(x), pyad.tensor(y)),
            TD.TensorDataset(torch.tensor(x), torch.tensor(y)))


@pytest.mark.parametrize("kwargs", [dict(), dict(batch_size=3), dict(batch_size=3, drop_last=True),
                                    dict(batch_size=10), dict(batch_size=11),
                                    dict(batch_size=None), dict(batch_size=4, drop_last=True)],
                         ids=str)
def test_loader_batches_match_torch(kwargs):
    ours_ds, theirs_ds = pair_of_datasets()
    ours, theirs = D.DataLoader(ours_ds, **kwargs), TD.DataLoader(theirs_ds, **kwargs)
    assert len(ours) == len(theirs)
    assert [as_np(b) for b in ours] == [as_np(b) for b in theirs]


def test_loader_with_batch_sampler_sampler_and_collate_fn_matches_torch():
    ours_ds, theirs_ds = pair_of_datasets(7)
    idx = [[6, 0], [3], [1, 2, 5]]
    assert [as_np(b) for b in D.DataLoader(ours_ds, batch_sampler=idx)] == \
           [as_np(b) for b in TD.DataLoader(theirs_ds, batch_sampler=idx)]
    assert [as_np(b) for b in D.DataLoader(ours_ds, sampler=[4, 2, 0], batch_size=2)] == \
           [as_np(b) for b in TD.DataLoader(theirs_ds, sampler=[4, 2, 0], batch_size=2)]
    assert list(D.DataLoader(range(5), batch_size=2, collate_fn=len)) == [2, 2, 1]


def test_shuffle_visits_every_sample_once_and_follows_the_generator():
    ds = D.TensorDataset(pyad.arange(20))
    order = [int(v) for (b,) in D.DataLoader(ds, batch_size=3, shuffle=True) for v in b.tolist()]
    assert sorted(order) == list(range(20)) and order != list(range(20))
    runs = [[b.tolist() for (b,) in D.DataLoader(ds, batch_size=4, shuffle=True,
                                                 generator=pyad.Generator().manual_seed(7))]
            for _ in range(2)]
    assert runs[0] == runs[1]


def test_empty_dataset_gives_no_batches():
    ds = D.TensorDataset(pyad.zeros(0, 3))
    assert list(D.DataLoader(ds, batch_size=2)) == [] and len(D.DataLoader(ds)) == 0


class Stream(D.IterableDataset):
    def __init__(self, n):
        self.n = n

    def __iter__(self):
        info = D.get_worker_info()
        start, step = (0, 1) if info is None else (info.id, info.num_workers)
        return iter(range(start, self.n, step))

    def __len__(self):
        return self.n


class TorchStream(TD.IterableDataset):
    def __init__(self, n):
        self.n = n

    def __iter__(self):
        info = TD.get_worker_info()
        start, step = (0, 1) if info is None else (info.id, info.num_workers)
        return iter(range(start, self.n, step))

    def __len__(self):
        return self.n


@pytest.mark.parametrize("num_workers", [0, 1, 2, 3])
@pytest.mark.parametrize("kwargs", [dict(batch_size=3), dict(batch_size=3, drop_last=True),
                                    dict(batch_size=None)], ids=str)
def test_iterable_dataset_batches_match_torch(num_workers, kwargs):
    ours = [as_np(b) for b in D.DataLoader(Stream(10), num_workers=num_workers, **kwargs)]
    theirs = [as_np(b) for b in TD.DataLoader(TorchStream(10), num_workers=num_workers,
                                              **kwargs)]
    assert ours == theirs
    assert len(D.DataLoader(Stream(10), **kwargs)) == len(TD.DataLoader(TorchStream(10),
                                                                         **kwargs))


BAD_LOADERS = [dict(num_workers=-1), dict(timeout=-1), dict(prefetch_factor=2),
               dict(persistent_workers=True), dict(sampler=[0], shuffle=True),
               dict(batch_sampler=[[0]], batch_size=2), dict(batch_sampler=[[0]], shuffle=True),
               dict(batch_sampler=[[0]], drop_last=True), dict(batch_size=None, drop_last=True)]


@pytest.mark.parametrize("kwargs", BAD_LOADERS, ids=str)
def test_bad_loader_arguments_raise_torchs_value_error(kwargs):
    with pytest.raises(ValueError) as theirs:
        TD.DataLoader(list(range(4)), **kwargs)
    with pytest.raises(ValueError) as ours:
        D.DataLoader(list(range(4)), **kwargs)
    assert str(ours.value) == str(theirs.value)


@pytest.mark.parametrize("kwargs", [dict(shuffle=True), dict(sampler=[0]),
                                    dict(batch_sampler=[[0]])], ids=str)
def test_iterable_dataset_refuses_shuffle_and_samplers_as_torch(kwargs):
    with pytest.raises(ValueError) as theirs:
        TD.DataLoader(TorchStream(3), **kwargs)
    with pytest.raises(ValueError) as ours:
        D.DataLoader(Stream(3), **kwargs)
    assert str(ours.value) == str(theirs.value).replace("TorchStream", "Stream")


def test_loader_attributes_are_frozen_as_torch():
    loader = D.DataLoader(list(range(4)), batch_size=2)
    with pytest.raises(ValueError, match="batch_size attribute should not be set after "
                                         "DataLoader is initialized"):
        loader.batch_size = 3
    loader.num_workers = 0                         # allowed, as torch


def test_pin_memory_is_accepted():
    with pytest.warns(UserWarning, match="pin_memory"):
        loader = D.DataLoader(list(range(4)), batch_size=2, pin_memory=True)
    assert [b.tolist() for b in loader] == [[0, 1], [2, 3]]


# -- worker processes ---------------------------------------------------------------------

class Tagged(D.Dataset):
    """Each sample carries the worker id and a draw from pyad, NumPy and random."""

    def __init__(self, n=12, fail_at=None, sleep=0.0):
        self.n, self.fail_at, self.sleep = n, fail_at, sleep

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        import random
        if i == self.fail_at:
            raise ValueError("sample %d is broken" % i)
        if self.sleep:
            time.sleep(self.sleep)
        info = D.get_worker_info()
        return {"i": i, "worker": -1 if info is None else info.id,
                "pid": os.getpid(), "pyad": float(pyad.rand(1)), "numpy": np.random.rand(),
                "random": random.random()}


def children_of_this_process():
    return {p.pid for p in multiprocessing.active_children()}


@pytest.mark.parametrize("num_workers", [1, 2, 4])
def test_workers_give_the_same_batches_in_the_same_order(num_workers):
    ds, _ = pair_of_datasets(23)
    ref = [as_np(b) for b in D.DataLoader(ds, batch_size=3)]
    got = [as_np(b) for b in D.DataLoader(ds, batch_size=3, num_workers=num_workers)]
    assert got == ref
    got = [as_np(b) for b in D.DataLoader(ds, batch_size=None, num_workers=num_workers)]
    assert got == [as_np(b) for b in D.DataLoader(ds, batch_size=None)]


def test_workers_are_processes_with_their_own_seeds_and_info():
    loader = D.DataLoader(Tagged(8), batch_size=2, num_workers=2,
                          generator=pyad.Generator().manual_seed(3))
    batches = list(loader)
    pids = {int(p) for b in batches for p in b["pid"].tolist()}
    assert os.getpid() not in pids and len(pids) == 2
    assert [b["worker"].tolist() for b in batches] == [[0, 0], [1, 1], [0, 0], [1, 1]]
    first = {int(b["worker"][0]): (b["pyad"].tolist(), b["numpy"].tolist(),
                                   b["random"].tolist()) for b in batches[:2]}
    assert first[0] != first[1]                    # each worker draws its own numbers
    again = list(D.DataLoader(Tagged(8), batch_size=2, num_workers=2,
                              generator=pyad.Generator().manual_seed(3)))
    assert [as_np({k: b[k] for k in ("pyad", "numpy", "random")}) for b in again] == \
           [as_np({k: b[k] for k in ("pyad", "numpy", "random")}) for b in batches]


def _record_init(worker_id):
    info = D.get_worker_info()
    assert info.id == worker_id and info.num_workers == 3
    np.random.seed(1000 + worker_id)


def test_worker_init_fn_runs_in_each_worker_with_worker_info():
    batches = list(D.DataLoader(Tagged(6), batch_size=2, num_workers=3,
                                worker_init_fn=_record_init))
    for b in batches:
        wid = int(b["worker"][0])
        expected = np.random.RandomState(1000 + wid).rand()
        assert float(b["numpy"][0]) == expected
    assert D.get_worker_info() is None


def test_worker_info_is_read_only():
    info = D.WorkerInfo(id=0, num_workers=1, seed=1, dataset=None)
    with pytest.raises(RuntimeError, match="Cannot assign attributes"):
        info.id = 3


def test_a_worker_exception_is_raised_in_the_main_process_with_the_worker_id():
    before = children_of_this_process()
    loader = D.DataLoader(Tagged(12, fail_at=5), batch_size=2, num_workers=2)
    with pytest.raises(ValueError) as err:
        list(loader)
    msg = str(err.value)
    assert msg.startswith("Caught ValueError in DataLoader worker process 0.")
    assert "sample 5 is broken" in msg and "Traceback" in msg
    time.sleep(0.2)
    assert children_of_this_process() <= before


def test_key_error_in_a_worker_keeps_a_readable_message():
    class Missing(D.Dataset):
        def __len__(self):
            return 4

        def __getitem__(self, i):
            return {}["nope"]

    with pytest.raises(KeyError) as err:
        next(iter(D.DataLoader(Missing(), num_workers=1)))
    assert "Caught KeyError in DataLoader worker process 0" in str(err.value)


def test_breaking_out_of_the_loop_stops_and_joins_the_workers():
    before = children_of_this_process()
    for _ in D.DataLoader(Tagged(200, sleep=0.01), batch_size=2, num_workers=3):
        break
    deadline = time.time() + 10
    while children_of_this_process() - before and time.time() < deadline:
        time.sleep(0.05)
    assert not children_of_this_process() - before


def test_an_exhausted_iterator_leaves_no_process_behind():
    before = children_of_this_process()
    it = iter(D.DataLoader(Tagged(4), batch_size=2, num_workers=2))
    workers = [w.pid for w in it._workers]
    assert len(list(it)) == 2
    for pid in workers:                            # joined: no zombie left to reap
        with pytest.raises(ChildProcessError):
            os.waitpid(pid, os.WNOHANG)
    assert not children_of_this_process() - before


def test_a_killed_worker_is_reported_not_waited_for():
    it = iter(D.DataLoader(Tagged(100, sleep=0.2), batch_size=1, num_workers=1))
    os.kill(it._workers[0].pid, signal.SIGKILL)
    with pytest.raises(RuntimeError, match=r"DataLoader worker \(pid\(s\) \d+\) exited "
                                           "unexpectedly"):
        list(it)


def test_timeout_raises_instead_of_hanging():
    loader = D.DataLoader(Tagged(4, sleep=5.0), batch_size=1, num_workers=1, timeout=1)
    with pytest.raises(RuntimeError, match="DataLoader timed out after 1 seconds"):
        next(iter(loader))


def test_shuffled_loader_with_workers_visits_every_sample():
    ds = D.TensorDataset(pyad.arange(30))
    seen = [v for (b,) in D.DataLoader(ds, batch_size=4, shuffle=True, num_workers=2)
            for v in b.tolist()]
    assert sorted(seen) == list(range(30))


def test_iterable_dataset_exception_in_a_worker_is_raised():
    class Broken(D.IterableDataset):
        def __iter__(self):
            yield 1
            raise OSError("disk gone")

    with pytest.raises(OSError, match="Caught OSError in DataLoader worker process 0"):
        list(D.DataLoader(Broken(), batch_size=1, num_workers=1))


def test_spawn_context_works_with_a_picklable_dataset():
    ds, _ = pair_of_datasets(5)
    got = [as_np(b) for b in D.DataLoader(ds, batch_size=2, num_workers=1,
                                          multiprocessing_context="spawn")]
    assert got == [as_np(b) for b in D.DataLoader(ds, batch_size=2)]


def test_a_batch_that_cannot_be_pickled_is_an_error_not_a_hang():
    class Local(Exception):
        pass

    class Unpicklable(D.Dataset):
        def __len__(self):
            return 4

        def __getitem__(self, i):
            if i == 2:
                raise Local("local exception class")
            return lambda: i                       # a lambda cannot be pickled

    loader = D.DataLoader(Unpicklable(), batch_size=None, num_workers=1, timeout=20)
    with pytest.raises(Exception, match="Caught .* in DataLoader worker process 0"):
        list(loader)
    loader = D.DataLoader(Unpicklable(), batch_size=None, sampler=[2], num_workers=1,
                          timeout=20)
    with pytest.raises(RuntimeError, match="local exception class"):
        list(loader)


def _pids(batches):
    return {int(p) for b in batches for p in b["pid"].tolist()}


def test_persistent_workers_are_kept_across_epochs():
    loader = D.DataLoader(Tagged(8), batch_size=2, num_workers=2, persistent_workers=True)
    first, second = list(loader), list(loader)
    assert len(_pids(first)) == 2 and os.getpid() not in _pids(first)
    assert _pids(second) == _pids(first)                   # the same processes
    assert [b["i"].tolist() for b in second] == [b["i"].tolist() for b in first] == \
           [[0, 1], [2, 3], [4, 5], [6, 7]]
    # without persistent_workers, every epoch has processes of its own
    fresh = D.DataLoader(Tagged(8), batch_size=2, num_workers=2)
    assert not _pids(list(fresh)) & _pids(list(fresh))


def test_persistent_workers_stop_when_the_loader_is_deleted():
    before = children_of_this_process()
    loader = D.DataLoader(Tagged(6), batch_size=2, num_workers=2, persistent_workers=True)
    pids = _pids(list(loader))
    assert pids <= children_of_this_process() - before   # alive between epochs
    del loader
    assert not children_of_this_process() - before
    for pid in pids:                                     # joined: no zombie left to reap
        with pytest.raises(ChildProcessError):
            os.waitpid(pid, os.WNOHANG)


def test_persistent_workers_after_an_epoch_left_early_start_the_next_one_afresh():
    loader = D.DataLoader(Tagged(12), batch_size=2, num_workers=2, persistent_workers=True)
    for _ in loader:
        break
    assert [b["i"].tolist() for b in loader] == [[2 * k, 2 * k + 1] for k in range(6)]
    assert len(loader) == 6


@pytest.mark.parametrize("num_workers", [1, 3])
def test_persistent_workers_restart_an_iterable_dataset_each_epoch_as_torch(num_workers):
    ours = D.DataLoader(Stream(10), batch_size=3, num_workers=num_workers,
                        persistent_workers=True)
    theirs = TD.DataLoader(TorchStream(10), batch_size=3, num_workers=num_workers,
                           persistent_workers=True)
    for _ in range(2):
        assert [as_np(b) for b in ours] == [as_np(b) for b in theirs]


def test_persistent_workers_are_started_again_after_a_worker_error():
    loader = D.DataLoader(Tagged(6, fail_at=3), batch_size=2, num_workers=2,
                          persistent_workers=True)
    for _ in range(2):
        with pytest.raises(ValueError, match="sample 3 is broken"):
            list(loader)

