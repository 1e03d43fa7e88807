"""DistributedSampler: each rank's share of a data set's indices, as torch's.

(``pyad.utils.data`` exports it.)
"""
import math

import numpy

from pyad.utils.data.sampler import Sampler

__all__ = ["DistributedSampler"]


class DistributedSampler(Sampler):
    """Restricts data loading to a subset of the data set: rank ``rank`` of
    ``num_replicas`` gets every ``num_replicas``-th index of one (shuffled) order.

    As torch's: ``num_replicas`` and ``rank`` default to the default process group's;
    the order is shuffled with ``seed + epoch`` (call `set_epoch` at the start of every
    epoch, or every epoch repeats the same order); without ``drop_last`` the order is
    padded by repeating its start so every rank gets ``ceil(len / num_replicas)``
    indices, with it the tail is dropped so every rank gets ``len // num_replicas``.
    The ranks' shares are disjoint (apart from the padding) and together cover the data
    set. The shuffled order is NumPy's (``numpy.random.default_rng(seed + epoch)``), not
    torch's ``randperm``: the same seed gives another order than torch, with the same
    properties.

    >>> from pyad.utils.data.distributed import DistributedSampler
    >>> list(DistributedSampler(range(10), num_replicas=3, rank=1, shuffle=False))
    [1, 4, 7, 0]
    """

    def __init__(self, dataset, num_replicas=None, rank=None, shuffle=True, seed=0,
                 drop_last=False):
        if num_replicas is None or rank is None:
            from pyad import distributed
            if num_replicas is None:
                num_replicas = distributed.get_world_size()
            if rank is None:
                rank = distributed.get_rank()
        if rank >= num_replicas or rank < 0:
            raise ValueError("Invalid rank %s, rank should be in the interval [0, %s]"
                             % (rank, num_replicas - 1))
        self.dataset = dataset
        self.num_replicas = num_replicas
        self.rank = rank
        self.epoch = 0
        self.drop_last = drop_last
        n = len(dataset)
        if self.drop_last and n % self.num_replicas != 0:
            self.num_samples = math.ceil((n - self.num_replicas) / self.num_replicas)
        else:
            self.num_samples = math.ceil(n / self.num_replicas)
        self.total_size = self.num_samples * self.num_replicas
        self.shuffle = shuffle
        self.seed = seed

    def __iter__(self):
        n = len(self.dataset)
        if self.shuffle:
            indices = numpy.random.default_rng(self.seed + self.epoch).permutation(n).tolist()
        else:
            indices = list(range(n))
        if not self.drop_last:
            padding_size = self.total_size - len(indices)
            if padding_size <= len(indices):
                indices += indices[:padding_size]
            else:
                indices += (indices * math.ceil(padding_size / len(indices)))[:padding_size]
        else:
            indices = indices[:self.total_size]
        assert len(indices) == self.total_size
        indices = indices[self.rank:self.total_size:self.num_replicas]
        assert len(indices) == self.num_samples
        return iter(indices)

    def __len__(self):
        return self.num_samples

    def set_epoch(self, epoch):
        """Set the epoch: with ``shuffle=True`` each epoch gets another order, the same on
        every rank."""
        self.epoch = epoch
