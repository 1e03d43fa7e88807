"""Samplers, as ``torch.utils.data``: they yield the indices (or lists of indices) a
`DataLoader` fetches."""
import types

import numpy

__all__ = ["Sampler", "SequentialSampler", "RandomSampler", "SubsetRandomSampler",
           "WeightedRandomSampler", "BatchSampler"]


def _fresh_generator():
    """A generator seeded from the default one, as torch's samplers make when given none
    (so ``pyad.manual_seed`` makes shuffling reproducible)."""
    from pyad._factories import Generator, default_generator
    seed = int(default_generator._rng.integers(0, 2 ** 63 - 1))
    return Generator().manual_seed(seed)


class Sampler:
    """Base class: subclasses define ``__iter__`` (and usually ``__len__``).
    ``Sampler[int]`` works in annotations and base classes, as torch's."""

    __class_getitem__ = classmethod(types.GenericAlias)

    def __init__(self, data_source=None):
        pass

    def __iter__(self):
        raise NotImplementedError


class SequentialSampler(Sampler):
    """``0, 1, ..., len(data_source) - 1``.

    >>> list(SequentialSampler(range(3)))
    [0, 1, 2]
    """

    def __init__(self, data_source):
        self.data_source = data_source

    def __iter__(self):
        return iter(range(len(self.data_source)))

    def __len__(self):
        return len(self.data_source)


class RandomSampler(Sampler):
    """Indices in random order: a permutation (repeated to give ``num_samples``), or
    ``num_samples`` draws with ``replacement``.

    >>> import pyad
    >>> sorted(RandomSampler(range(4), generator=pyad.Generator().manual_seed(0)))
    [0, 1, 2, 3]
    """

    def __init__(self, data_source, replacement=False, num_samples=None, generator=None):
        self.data_source = data_source
        self.replacement = replacement
        self._num_samples = num_samples
        self.generator = generator
        if not isinstance(self.replacement, bool):
            raise TypeError("replacement should be a boolean value, but got replacement=%s"
                            % (self.replacement,))
        if not isinstance(self.num_samples, int) or self.num_samples <= 0:
            raise ValueError("num_samples should be a positive integer value, but got "
                             "num_samples=%s" % (self.num_samples,))

    @property
    def num_samples(self):
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self):
        from pyad._factories import randint, randperm
        n = len(self.data_source)
        generator = self.generator if self.generator is not None else _fresh_generator()
        if self.replacement:
            for _ in range(self.num_samples // 32):
                yield from randint(high=n, size=(32,), generator=generator).tolist()
            yield from randint(high=n, size=(self.num_samples % 32,),
                               generator=generator).tolist()
        else:
            for _ in range(self.num_samples // n):
                yield from randperm(n, generator=generator).tolist()
            yield from randperm(n, generator=generator).tolist()[:self.num_samples % n]

    def __len__(self):
        return self.num_samples


class SubsetRandomSampler(Sampler):
    """The given ``indices`` in random order.

    >>> sorted(SubsetRandomSampler([5, 7, 9]))
    [5, 7, 9]
    """

    def __init__(self, indices, generator=None):
        self.indices = indices
        self.generator = generator

    def __iter__(self):
        from pyad._factories import randperm
        for i in randperm(len(self.indices), generator=self.generator).tolist():
            yield self.indices[i]

    def __len__(self):
        return len(self.indices)


class WeightedRandomSampler(Sampler):
    """``num_samples`` indices drawn with probabilities proportional to ``weights``.

    >>> list(WeightedRandomSampler([0.0, 1.0, 0.0], 3))
    [1, 1, 1]
    """

    def __init__(self, weights, num_samples, replacement=True, generator=None):
        if (not isinstance(num_samples, int) or isinstance(num_samples, bool)
                or num_samples <= 0):
            raise ValueError("num_samples should be a positive integer value, but got "
                             "num_samples=%s" % (num_samples,))
        if not isinstance(replacement, bool):
            raise ValueError("replacement should be a boolean value, but got replacement=%s"
                             % (replacement,))
        data = getattr(weights, "data", weights)
        w = numpy.asarray(data.get() if hasattr(data, "get") else data, dtype=numpy.float64)
        if w.ndim != 1:
            raise ValueError("weights should be a 1d sequence but given weights have shape %s"
                             % (tuple(w.shape),))
        from pyad._factories import tensor
        self.weights = tensor(w, dtype=numpy.float64)
        self.num_samples = num_samples
        self.replacement = replacement
        self.generator = generator

    def __iter__(self):
        from pyad._factories import _rng_for
        w = numpy.asarray(self.weights.data)
        if w.size == 0:
            raise RuntimeError("WeightedRandomSampler(): cannot sample from empty weights")
        if (w < 0).any() or not numpy.isfinite(w).all():
            raise RuntimeError("WeightedRandomSampler(): probability tensor contains either "
                               "`inf`, `nan` or element < 0")
        if w.sum() <= 0:
            raise RuntimeError("WeightedRandomSampler(): invalid multinomial distribution "
                               "(sum of probabilities <= 0)")
        if not self.replacement and self.num_samples > len(w):
            raise RuntimeError("WeightedRandomSampler(): cannot sample n_sample > "
                               "prob_dist.size(-1) samples without replacement")
        rng = _rng_for(numpy, self.generator, "WeightedRandomSampler")
        nonzero = numpy.count_nonzero(w)
        if not self.replacement and self.num_samples > nonzero:
            # as torch: the weighted categories first, then zero-weight ones (which
            # torch's multinomial gives last, in descending index order)
            draws = rng.choice(len(w), size=nonzero, replace=False, p=w / w.sum())
            zeros = numpy.flatnonzero(w == 0)[::-1][:self.num_samples - nonzero]
            draws = numpy.concatenate([draws, zeros])
        else:
            draws = rng.choice(len(w), size=self.num_samples, replace=self.replacement,
                               p=w / w.sum())
        yield from draws.tolist()

    def __len__(self):
        return self.num_samples


class BatchSampler(Sampler):
    """Group the indices of ``sampler`` into lists of ``batch_size``.

    >>> list(BatchSampler(SequentialSampler(range(5)), batch_size=2, drop_last=False))
    [[0, 1], [2, 3], [4]]
    >>> list(BatchSampler(SequentialSampler(range(5)), batch_size=2, drop_last=True))
    [[0, 1], [2, 3]]
    """

    def __init__(self, sampler, batch_size, drop_last):
        if (not isinstance(batch_size, int) or isinstance(batch_size, bool)
                or batch_size <= 0):
            raise ValueError("batch_size should be a positive integer value, but got "
                             "batch_size=%s" % (batch_size,))
        if not isinstance(drop_last, bool):
            raise ValueError("drop_last should be a boolean value, but got drop_last=%s"
                             % (drop_last,))
        self.sampler = sampler
        self.batch_size = batch_size
        self.drop_last = drop_last

    def __iter__(self):
        batch = []
        for idx in self.sampler:
            batch.append(idx)
            if len(batch) == self.batch_size:
                yield batch
                batch = []
        if batch and not self.drop_last:
            yield batch

    def __len__(self):
        if self.drop_last:
            return len(self.sampler) // self.batch_size
        return (len(self.sampler) + self.batch_size - 1) // self.batch_size
