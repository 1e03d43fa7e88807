"""Differential probes of pyad.utils.data and pyad.save/pyad.load against torch 2.13.

Each test runs the same code with ``lib = torch`` and ``lib = pyad`` and compares the
results (values, dtypes, types of errors, warnings). Random orders are compared as
multisets: pyad's generators are not torch's streams.
"""
import collections
import io
import multiprocessing
import os
import pickle
import warnings

import numpy as np
import pytest

import pyad
import pyad.utils.data as PD

torch = pytest.importorskip("torch")
TD = torch.utils.data

LIBS = [(torch, TD), (pyad, PD)]


def norm(x):
    """A library-neutral form of a result, to compare torch's with pyad's."""
    if isinstance(x, torch.Tensor):
        return ("T", str(x.dtype).replace("torch.", ""), tuple(x.shape),
                x.detach().numpy().tolist())
    if isinstance(x, pyad.Variable):
        return ("T", str(x.dtype).replace("pyad.", ""), tuple(x.shape),
                np.asarray(x.data).tolist())
    if isinstance(x, dict):
        return (type(x).__name__, {k: norm(v) for k, v in x.items()})
    if isinstance(x, tuple) and hasattr(x, "_fields"):
        return ("namedtuple", type(x).__name__, [norm(v) for v in x])
    if isinstance(x, (list, tuple)):
        return (type(x).__name__, [norm(v) for v in x])
    return (type(x).__name__, x)


def outcome(fn, lib, D):
    """("ok", normalised result, warning categories) or ("error", exception type)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = norm(fn(lib, D))
        except Exception as exc:        # noqa: BLE001 - the type is what is compared
            return ("error", type(exc))
    return ("ok", result, sorted(w.category.__name__ for w in caught))


def assert_same(fn):
    t, p = (outcome(fn, lib, D) for lib, D in LIBS)
    if t[0] == "error":
        assert p[0] == "error" and issubclass(p[1], t[1]), (t, p)
    else:
        assert p == t


class Seq:
    def __init__(self, n):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        return i


def _counting(D, n):
    class Ds(D.Dataset):
        def __init__(self):
            self.batched = []

        def __len__(self):
            return n

        def __getitem__(self, i):
            return i * 10

        def __getitems__(self, indices):
            self.batched.append(list(indices))
            return [i * 10 for i in indices]
    return Ds()


def _stream(D, n, with_len=None):
    class Stream(D.IterableDataset):
        def __iter__(self):
            return iter(range(n))
    if with_len is not None:
        Stream.__len__ = lambda self: with_len
    return Stream()


def _tds(lib):
    return lib.utils.data.TensorDataset(lib.arange(6.0), lib.arange(6))


# -- StackDataset ---------------------------------------------------------------------------

STACK_CASES = {
    "tuple": lambda l, D: D.StackDataset(_tds(l), [5, 6, 7, 8, 9, 10])[2],
    "dict": lambda l, D: D.StackDataset(x=_tds(l), y=list("abcdef"))[4],
    "len": lambda l, D: len(D.StackDataset(x=_tds(l), y=list("abcdef"))),
    "getitems_tuple": lambda l, D: D.StackDataset(_tds(l), list("abcdef")).__getitems__([0, 5]),
    "getitems_dict": lambda l, D: D.StackDataset(
        a=D.Subset(_tds(l), [5, 4, 3, 2, 1, 0]), b=_counting(D, 6)).__getitems__([1, 3]),
    "loader": lambda l, D: list(D.DataLoader(D.StackDataset(a=_tds(l), b=list(range(6))),
                                             batch_size=4)),
    "loader_tuple": lambda l, D: list(D.DataLoader(D.StackDataset(_tds(l), _counting(D, 6)),
                                                   batch_size=4)),
    "no_datasets": lambda l, D: D.StackDataset(),
    "both_forms": lambda l, D: D.StackDataset([1], a=[1]),
    "size_mismatch": lambda l, D: D.StackDataset([1, 2], [1]),
    "size_mismatch_kw": lambda l, D: D.StackDataset(a=[1, 2], b=[1]),
}


@pytest.mark.parametrize("case", sorted(STACK_CASES))
def test_stack_dataset_matches_torch(case):
    assert_same(STACK_CASES[case])


def test_stack_dataset_error_messages_carry_torchs_text():
    with pytest.raises(ValueError, match="Size mismatch between datasets"):
        PD.StackDataset([1, 2], [1])
    with pytest.raises(ValueError, match="At least one dataset should be passed"):
        PD.StackDataset()


def test_stack_dataset_nested_getitems_size_mismatch_is_value_error():
    for lib, D in LIBS:
        class Short(D.Dataset):
            def __len__(self):
                return 3

            def __getitem__(self, i):
                return i

            def __getitems__(self, indices):
                return [0]
        with pytest.raises(ValueError, match="output size mismatch"):
            D.StackDataset(Short(), [1, 2, 3]).__getitems__([0, 1])


# -- Subset.__getitems__ and the loader's batched fetch ---------------------------------------

def test_subset_getitems_matches_torch():
    assert_same(lambda l, D: D.Subset(_tds(l), [4, 1, 3]).__getitems__([0, 2]))
    assert_same(lambda l, D: D.Subset(list("abcdef"), [4, 1, 3]).__getitems__([2, 1]))


def test_dataloader_fetches_batches_through_getitems_as_torch():
    seen = []
    for lib, D in LIBS:
        ds = _counting(D, 7)
        batches = [b.tolist() for b in D.DataLoader(D.Subset(ds, [6, 5, 4, 3, 2, 1, 0]),
                                                    batch_size=3)]
        seen.append((batches, ds.batched))
    assert seen[0] == seen[1]
    assert seen[1][1] == [[6, 5, 4], [3, 2, 1], [0]]       # one call per batch


def test_dataloader_getitems_in_worker_processes_matches_torch():
    seen = []
    for lib, D in LIBS:
        batches = [b.tolist() for b in D.DataLoader(_counting(D, 5), batch_size=2,
                                                    num_workers=1)]
        seen.append(batches)
    assert seen[0] == seen[1] == [[0, 10], [20, 30], [40]]


def test_dataloader_without_batching_does_not_call_getitems():
    for lib, D in LIBS:
        ds = _counting(D, 3)
        assert [int(x) for x in D.DataLoader(ds, batch_size=None)] == [0, 10, 20]
        assert ds.batched == []


# -- IterableDataset / ChainDataset ----------------------------------------------------------

def test_iterable_dataset_is_abstract_as_torch():
    assert_same(lambda l, D: D.IterableDataset())

    def missing_iter(l, D):
        class NoIter(D.IterableDataset):
            pass
        return NoIter()
    assert_same(missing_iter)
    for lib, D in LIBS:
        assert isinstance(_stream(D, 2), collections.abc.Iterable)


CHAIN_CASES = {
    "iterables": lambda l, D: list(D.ChainDataset([_stream(D, 2), _stream(D, 3)])),
    "len": lambda l, D: len(D.ChainDataset([_stream(D, 2, 2), _stream(D, 3, 3)])),
    "len_missing": lambda l, D: len(D.ChainDataset([_stream(D, 2), _stream(D, 3, 3)])),
    "list_member": lambda l, D: list(D.ChainDataset([[1, 2], _stream(D, 1)])),
    "list_member_len": lambda l, D: len(D.ChainDataset([[1, 2]])),
    "add": lambda l, D: list(_stream(D, 2) + _stream(D, 1)),
    "map_member": lambda l, D: list(D.ChainDataset([D.Subset([1, 2], [0])])),
}


@pytest.mark.parametrize("case", sorted(CHAIN_CASES))
def test_chain_dataset_matches_torch(case):
    assert_same(CHAIN_CASES[case])


# -- DataLoader options ---------------------------------------------------------------------

LOADER_CASES = {
    "mp_context_bad_name": lambda l, D: D.DataLoader(Seq(4), num_workers=1,
                                                     multiprocessing_context="bogus"),
    "mp_context_without_workers": lambda l, D: D.DataLoader(Seq(4),
                                                            multiprocessing_context="fork"),
    "mp_context_object_without_workers": lambda l, D: D.DataLoader(
        Seq(4), multiprocessing_context=multiprocessing.get_context("fork")),
    "mp_context_wrong_type": lambda l, D: D.DataLoader(Seq(4), num_workers=1,
                                                       multiprocessing_context=3),
    "mp_context_name": lambda l, D: type(D.DataLoader(
        Seq(4), num_workers=1, multiprocessing_context="fork").multiprocessing_context).__name__,
    "mp_context_object": lambda l, D: [b.tolist() for b in D.DataLoader(
        Seq(4), batch_size=2, num_workers=1,
        multiprocessing_context=multiprocessing.get_context("fork"))],
    "prefetch_zero_with_workers": lambda l, D: list(D.DataLoader(
        Seq(4), num_workers=1, prefetch_factor=0)),
    "prefetch_one": lambda l, D: [b.tolist() for b in D.DataLoader(
        Seq(5), batch_size=2, num_workers=2, prefetch_factor=1)],
    "iter_name": lambda l, D: type(iter(D.DataLoader(Seq(4)))).__name__,
    "iter_name_workers": lambda l, D: type(iter(D.DataLoader(Seq(4), num_workers=1))).__name__,
    "iter_len": lambda l, D: len(iter(D.DataLoader(Seq(5), batch_size=2))),
    "stream_len_over_reported": lambda l, D: (lambda d: [len(d), [b.tolist() for b in d]])(
        D.DataLoader(_stream(D, 5, with_len=5), batch_size=2)),
    "stream_len_under_reported": lambda l, D: (lambda d: [len(d), [b.tolist() for b in d]])(
        D.DataLoader(_stream(D, 5, with_len=2), batch_size=2)),
    "stream_len_not_called": lambda l, D: [b.tolist() for b in D.DataLoader(
        _stream(D, 5, with_len=2), batch_size=2)],
    "stream_len_unbatched": lambda l, D: (lambda d: [len(d), [int(b) for b in d]])(
        D.DataLoader(_stream(D, 4, with_len=3), batch_size=None)),
    "stream_len_workers": lambda l, D: (lambda d: [len(d), [b.tolist() for b in d]])(
        D.DataLoader(_stream(D, 5, with_len=5), batch_size=2, num_workers=2)),
    "stream_len_workers_ok": lambda l, D: (lambda d: [len(d), sorted(
        x for b in d for x in b.tolist())])(
        D.DataLoader(_stream(D, 5, with_len=5), batch_size=2, num_workers=1)),
}


# torch's iterator, failing its prefetch_factor check in __init__, complains in __del__
@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
@pytest.mark.parametrize("case", sorted(LOADER_CASES))
def test_dataloader_options_match_torch(case):
    assert_same(LOADER_CASES[case])


def test_iterable_length_warning_text_matches_torch():
    loader = PD.DataLoader(_stream(PD, 5, with_len=2), batch_size=2)
    assert len(loader) == 1
    with pytest.warns(UserWarning, match=r"was reported to be 2\(when accessing "
                                         r"len\(dataloader\)\), but 3 samples have been"):
        list(loader)


def test_too_many_workers_warn_as_torch(monkeypatch):
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") \
        else os.cpu_count()
    for n, expect in ((cpus, False), (cpus + 1, True)):
        got = []
        for lib, D in LIBS:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                D.DataLoader(Seq(4), num_workers=n)
            got.append([str(w.message)[:60] for w in caught
                        if "worker processes in total" in str(w.message)])
        assert got[0] == got[1]
        assert bool(got[1]) == expect


# -- WeightedRandomSampler ------------------------------------------------------------------

WEIGHTED_CASES = {
    "zeros_without_replacement": lambda l, D: sorted(D.WeightedRandomSampler(
        [1.0, 0.0, 0.0, 1.0], 4, replacement=False)),
    "zeros_last": lambda l, D: sorted(list(D.WeightedRandomSampler(
        [1.0, 0.0, 0.0, 1.0], 4, replacement=False))[:2]),
    "zero_weight_partial": lambda l, D: list(D.WeightedRandomSampler(
        [0.0, 2.0, 0.0], 2, replacement=False))[0],
    "all_positive": lambda l, D: sorted(D.WeightedRandomSampler(
        [1.0, 2.0, 3.0], 3, replacement=False)),
    "too_many": lambda l, D: list(D.WeightedRandomSampler([1.0, 2.0], 3, replacement=False)),
    "negative": lambda l, D: list(D.WeightedRandomSampler([-1.0, 2.0], 1)),
    "nan": lambda l, D: list(D.WeightedRandomSampler([float("nan"), 2.0], 1)),
    "inf": lambda l, D: list(D.WeightedRandomSampler([float("inf"), 2.0], 1)),
    "all_zero": lambda l, D: list(D.WeightedRandomSampler([0.0, 0.0], 1)),
    "all_zero_no_replacement": lambda l, D: list(D.WeightedRandomSampler(
        [0.0, 0.0], 1, replacement=False)),
    "empty": lambda l, D: list(D.WeightedRandomSampler([], 1)),
}


@pytest.mark.parametrize("case", sorted(WEIGHTED_CASES))
def test_weighted_random_sampler_matches_torch(case):
    assert_same(WEIGHTED_CASES[case])


# -- a broad sweep of what already matched (kept as regression tests) -----------------------

Point = collections.namedtuple("Point", "x y")

SWEEP_CASES = {
    "collate_nested": lambda l, D: D.default_collate(
        [{"a": (1, 2.5, True, "s"), "b": [np.ones(2, np.float32), Point(1, 2.0)]},
         {"a": (3, 4.5, False, "t"), "b": [np.zeros(2, np.float32), Point(3, 4.0)]}]),
    "collate_numpy_scalars": lambda l, D: D.default_collate([np.float32(1), np.float32(2)]),
    "collate_numpy_bool": lambda l, D: D.default_collate([np.bool_(True), np.bool_(False)]),
    "collate_defaultdict": lambda l, D: D.default_collate(
        [collections.defaultdict(int, a=1), collections.defaultdict(int, a=2)]),
    "collate_unequal_lists": lambda l, D: D.default_collate([[1, 2], [3]]),
    "collate_none": lambda l, D: D.default_collate([None, None]),
    "collate_shape_mismatch": lambda l, D: D.default_collate([l.zeros(2), l.zeros(3)]),
    "collate_numpy_strings": lambda l, D: D.default_collate([np.array(["a"]), np.array(["b"])]),
    # fixed in this round: ints take the dtype of all the samples; numpy bytes stay a list
    "collate_int_then_float": lambda l, D: D.default_collate([1, 2.5]),
    "collate_int_then_bool": lambda l, D: D.default_collate([1, True]),
    "collate_bool_then_int": lambda l, D: D.default_collate([True, 2]),
    "collate_big_ints": lambda l, D: D.default_collate([2 ** 40, -1]),
    "collate_numpy_bytes": lambda l, D: D.default_collate([np.bytes_(b"a"), np.bytes_(b"b")]),
    "collate_numpy_str": lambda l, D: D.default_collate([np.str_("a"), np.str_("b")]),
    "collate_dict_int_float": lambda l, D: D.default_collate([{"y": 0}, {"y": 0.5}]),
    "convert_nested": lambda l, D: D.default_convert((np.zeros(1), [np.ones(1), 2], "s")),
    "random_split_fractions": lambda l, D: [len(s) for s in D.random_split(
        range(11), [0.5, 0.3, 0.2], generator=l.Generator().manual_seed(0))],
    "random_split_partition": lambda l, D: sorted(
        i for s in D.random_split(range(9), [2, 3, 4]) for i in s),
    "random_split_bad_sum": lambda l, D: D.random_split(range(10), [3, 3]),
    "random_split_bad_fraction": lambda l, D: D.random_split(range(10), [1.2, -0.2]),
    "shuffle_multiset": lambda l, D: sorted(x for b in D.DataLoader(
        Seq(10), batch_size=3, shuffle=True, generator=l.Generator().manual_seed(0))
        for x in b.tolist()),
    "drop_last_len": lambda l, D: [len(D.DataLoader(Seq(10), batch_size=3, drop_last=True)),
                                   len(D.DataLoader(Seq(10), batch_size=3))],
    "batch_sampler_conflict": lambda l, D: D.DataLoader(Seq(4), batch_sampler=[[0]],
                                                        drop_last=True),
    "distributed": lambda l, D: [list(D.DistributedSampler(
        range(10), num_replicas=3, rank=r, shuffle=False, drop_last=d))
        for r in range(3) for d in (False, True)],
    "random_sampler_replacement": lambda l, D: len(list(D.RandomSampler(
        range(3), replacement=True, num_samples=70))),
}


@pytest.mark.parametrize("case", sorted(SWEEP_CASES))
def test_sweep_matches_torch(case):
    assert_same(SWEEP_CASES[case])


# -- pyad.save / pyad.load ------------------------------------------------------------------

def roundtrip(lib, obj, **kwargs):
    buffer = io.BytesIO()
    lib.save(obj, buffer)
    buffer.seek(0)
    return lib.load(buffer, **kwargs)


SAVE_CASES = {
    "same_tensor_twice_is_one_object": lambda l: (lambda r: [r[0] is r[1], r[0] is r[2]])(
        roundtrip(l, (lambda a: [a, a, l.ones(2)])(l.ones(2)))),
    "same_tensor_in_dict": lambda l: (lambda r: r["a"] is r["b"]["c"])(
        roundtrip(l, (lambda a: {"a": a, "b": {"c": a}})(l.ones(2, requires_grad=True)))),
    "same_parameter_twice": lambda l: (lambda r: [r[0] is r[1], type(r[0]).__name__])(
        roundtrip(l, (lambda p: [p, p])(l.nn.Parameter(l.ones(2))))),
    "shared_object_writes": lambda l: (lambda r: (r[0].add_(1), r[1].tolist())[1])(
        roundtrip(l, (lambda a: [a, a])(l.zeros(2)))),
    # (torch's weights_only loader refuses bytes; pyad's format stores them safely)
    "complex_scalar": lambda l: roundtrip(l, [1 + 2j, complex(0, -1.5)], weights_only=False),
    "bytes_value": lambda l: roundtrip(l, {"k": b"\x00\xffabc", "e": b""},
                                       weights_only=False),
    "weights_only": lambda l: roundtrip(l, {"w": l.ones(2), "n": 3}, weights_only=True),
    "map_location_unknown": lambda l: roundtrip(l, l.ones(1), map_location="bogus"),
}


@pytest.mark.parametrize("case", sorted(SAVE_CASES))
def test_save_load_matches_torch(case):
    assert_same(lambda lib, D: SAVE_CASES[case](lib))


def test_tied_weights_stay_tied_after_a_round_trip():
    for lib in (torch, pyad):
        a, b = lib.nn.Linear(2, 2), lib.nn.Linear(2, 2)
        b.weight = a.weight
        out = roundtrip(lib, [a.weight, b.weight])
        assert out[0] is out[1]


def _refusal(lib, payload, **kwargs):
    return lib.load(io.BytesIO(payload), **kwargs)


EVIL = {
    "os_system": b"cos\nsystem\n(S'echo pwned'\ntR.",
    "counter": pickle.dumps(collections.Counter("ab")),
    "plain_list": pickle.dumps([1, 2]),
    "garbage": b"certainly not a checkpoint",
}


@pytest.mark.parametrize("name", sorted(EVIL))
def test_pickles_are_refused_with_torchs_error_type(name, tmp_path):
    marker = tmp_path / "ran"
    payload = EVIL[name].replace(b"echo pwned", ("touch %s" % marker).encode())
    for weights_only in (True, None):
        kwargs = {} if weights_only is None else {"weights_only": weights_only}
        if name != "plain_list":                # torch's weights_only loads a plain list
            with pytest.raises(pickle.UnpicklingError):
                _refusal(torch, payload, **kwargs)
        with pytest.raises(pickle.UnpicklingError, match=r"pyad.load\(\)"):
            _refusal(pyad, payload, **kwargs)
        with pytest.raises(RuntimeError, match=r"not a valid pyad checkpoint"):
            _refusal(pyad, payload, **kwargs)
    assert not marker.exists()


def test_empty_file_is_eof_error_as_torch(tmp_path):
    assert_same(lambda lib, D: lib.load(io.BytesIO(b"")))
    path = tmp_path / "empty.pt"
    path.write_bytes(b"")
    with pytest.raises(EOFError):
        torch.load(path)
    with pytest.raises(EOFError, match=r"pyad.load\(\): .*empty"):
        pyad.load(path)


def test_file_argument_without_read_or_write_is_attribute_error():
    assert_same(lambda lib, D: lib.save(lib.ones(1), 12))
    assert_same(lambda lib, D: lib.load(12))


def test_a_torch_checkpoint_is_refused_not_misread(tmp_path):
    path = tmp_path / "torch.pt"
    torch.save(torch.nn.Linear(2, 2).state_dict(), path)
    with pytest.raises(pickle.UnpicklingError, match=r"pyad.load\(\): .*not a valid pyad"):
        pyad.load(path)


def test_state_dict_round_trip_through_path_and_bytesio(tmp_path):
    # values as torch: load the same weights into both, round-trip, run both models
    torch.manual_seed(0)
    tm = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.BatchNorm1d(4))
    pm = pyad.nn.Sequential(pyad.nn.Linear(3, 4), pyad.nn.BatchNorm1d(4))
    pm.load_state_dict({k: pyad.tensor(v.detach().numpy()) for k, v in tm.state_dict().items()})
    x = np.random.default_rng(0).standard_normal((5, 3)).astype(np.float32)
    tm(torch.tensor(x)), pm(pyad.tensor(x))               # update the running stats
    pyad.save(pm.state_dict(), tmp_path / "model.pt")     # a pathlib path
    torch.save(tm.state_dict(), tmp_path / "model_torch.pt")
    fresh_t = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.BatchNorm1d(4))
    fresh_p = pyad.nn.Sequential(pyad.nn.Linear(3, 4), pyad.nn.BatchNorm1d(4))
    fresh_t.load_state_dict(torch.load(tmp_path / "model_torch.pt"))
    fresh_p.load_state_dict(pyad.load(tmp_path / "model.pt"))
    sd_t, sd_p = fresh_t.state_dict(), fresh_p.state_dict()
    assert list(sd_t) == list(sd_p)
    for k in sd_t:
        assert str(sd_p[k].dtype) == str(sd_t[k].dtype).replace("torch.", "")
        np.testing.assert_allclose(np.asarray(sd_p[k].data), sd_t[k].numpy(), rtol=1e-6,
                                   atol=1e-7)
    fresh_t.eval(), fresh_p.eval()
    np.testing.assert_allclose(np.asarray(fresh_p(pyad.tensor(x)).data),
                               fresh_t(torch.tensor(x)).detach().numpy(), rtol=1e-5, atol=1e-6)
