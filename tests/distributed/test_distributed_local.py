"""pyad.distributed without mpiexec: what needs no process group, and the sampler."""
import numpy as np
import pytest

import pyad
import pyad.distributed as dist
from pyad.utils.data.distributed import DistributedSampler


def test_names_follow_torch():
    assert [op.name for op in dist.ReduceOp][:5] == ["SUM", "AVG", "PRODUCT", "MIN", "MAX"]
    assert dist.is_available()
    assert dist.group.WORLD is None          # until init_process_group
    assert pyad.nn.parallel.DistributedDataParallel.__name__ == "DistributedDataParallel"


def test_calls_before_init_process_group_are_value_errors_as_torch():
    assert not dist.is_initialized()
    for call in (dist.get_rank, dist.get_world_size, dist.barrier,
                 lambda: dist.all_reduce(pyad.zeros(2))):
        with pytest.raises(ValueError, match="Default process group has not been "
                                             "initialized"):
            call()


def test_unknown_backend_is_refused():
    with pytest.raises(ValueError, match="backend 'gloo' is not available"):
        dist.init_process_group("gloo")
    assert not dist.is_initialized()


def test_collectives_want_variables():
    with pytest.raises(TypeError, match=r"all_reduce\(\): expected parameter `tensor` of "
                                        r"type Variable"):
        dist.all_reduce(np.zeros(2))


def partitions(n, replicas, **kwargs):
    return [list(DistributedSampler(range(n), num_replicas=replicas, rank=r, **kwargs))
            for r in range(replicas)]


@pytest.mark.parametrize("n", [1, 7, 10, 12, 13])
@pytest.mark.parametrize("replicas", [1, 2, 3, 4])
@pytest.mark.parametrize("shuffle", [False, True])
def test_sampler_partition_properties(n, replicas, shuffle):
    # Without drop_last: equal shares of ceil(n / replicas) that together cover every
    # index, the padding repeating the order's start; with it: disjoint equal shares of
    # n // replicas.
    shares = partitions(n, replicas, shuffle=shuffle, seed=3)
    per = -(-n // replicas)
    assert all(len(s) == per for s in shares)
    flat = [i for s in shares for i in s]
    assert sorted(set(flat)) == list(range(n))
    assert len(flat) - len(set(flat)) == per * replicas - n
    dropped = partitions(n, replicas, shuffle=shuffle, seed=3, drop_last=True)
    assert all(len(s) == n // replicas for s in dropped)
    flat = [i for s in dropped for i in s]
    assert len(set(flat)) == len(flat) == (n // replicas) * replicas
    assert len(DistributedSampler(range(n), replicas, 0, drop_last=True)) == n // replicas


@pytest.mark.parametrize("n, replicas", [(10, 3), (7, 4), (12, 2), (5, 1)])
@pytest.mark.parametrize("drop_last", [False, True])
def test_sampler_unshuffled_order_is_torchs(n, replicas, drop_last):
    torch_dist = pytest.importorskip("torch.utils.data.distributed")
    for r in range(replicas):
        ours = DistributedSampler(range(n), replicas, r, shuffle=False, drop_last=drop_last)
        theirs = torch_dist.DistributedSampler(range(n), replicas, r, shuffle=False,
                                               drop_last=drop_last)
        assert list(ours) == list(theirs)
        assert len(ours) == len(theirs)


def test_sampler_epochs_reshuffle_the_same_way_on_every_rank():
    samplers = [DistributedSampler(range(20), 2, r, seed=5) for r in range(2)]
    first = [list(s) for s in samplers]
    assert first == [list(s) for s in samplers]          # same epoch, same order
    for s in samplers:
        s.set_epoch(1)
    second = [list(s) for s in samplers]
    assert second != first
    assert sorted(second[0] + second[1]) == list(range(20))
    assert first != [list(DistributedSampler(range(20), 2, r, seed=6)) for r in range(2)]


def test_sampler_bad_rank_and_missing_group():
    with pytest.raises(ValueError, match=r"Invalid rank 2, rank should be in the interval "
                                         r"\[0, 1\]"):
        DistributedSampler(range(3), num_replicas=2, rank=2)
    with pytest.raises(ValueError, match="Invalid rank -1"):
        DistributedSampler(range(3), num_replicas=2, rank=-1)
    with pytest.raises(ValueError, match="Default process group has not been initialized"):
        DistributedSampler(range(3))
