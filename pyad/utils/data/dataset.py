"""Datasets, as ``torch.utils.data``: `Dataset`, `IterableDataset`, `TensorDataset`,
`StackDataset`, `Subset`, `ConcatDataset`, `ChainDataset` and `random_split`."""
import abc
import bisect
import collections.abc
import itertools
import math
import types
import warnings

from pyad._engine import Variable

__all__ = ["Dataset", "IterableDataset", "TensorDataset", "StackDataset", "Subset",
           "ConcatDataset", "ChainDataset", "random_split"]


class Dataset:
    """A map-style dataset: subclasses define ``__getitem__(index)`` and usually
    ``__len__``. ``a + b`` is ``ConcatDataset([a, b])``.

    >>> class Squares(Dataset):
    ...     def __len__(self):
    ...         return 4
    ...     def __getitem__(self, i):
    ...         return i * i
    >>> [Squares()[i] for i in range(4)]
    [0, 1, 4, 9]
    """

    # ``Dataset[T]`` in annotations and base classes, as torch's ``Generic`` Dataset
    __class_getitem__ = classmethod(types.GenericAlias)

    def __getitem__(self, index):
        raise NotImplementedError("Subclasses of Dataset should implement __getitem__.")

    def __add__(self, other):
        return ConcatDataset([self, other])


class IterableDataset(Dataset, collections.abc.Iterable):
    """A stream-style dataset: subclasses define ``__iter__`` (it is abstract, as torch's:
    a subclass without one cannot be instantiated, TypeError). With worker processes,
    every worker iterates its own copy, so split the stream with
    ``pyad.utils.data.get_worker_info()``. ``a + b`` is ``ChainDataset([a, b])``.

    >>> class Count(IterableDataset):
    ...     def __iter__(self):
    ...         return iter(range(3))
    >>> list(Count())
    [0, 1, 2]
    """

    @abc.abstractmethod
    def __iter__(self):
        raise NotImplementedError("Subclasses of IterableDataset should implement __iter__.")

    def __add__(self, other):
        return ChainDataset([self, other])


def _size0(t):
    return t.shape[0] if isinstance(t, Variable) or hasattr(t, "shape") else len(t)


class TensorDataset(Dataset):
    """Samples are tuples of the given Variables (or arrays) indexed along dimension 0.

    >>> import pyad
    >>> ds = TensorDataset(pyad.arange(3), pyad.tensor([1.0, 2.0, 3.0]))
    >>> len(ds), ds[1]
    (3, (tensor(1), tensor(2.)))
    """

    def __init__(self, *tensors):
        if not all(_size0(tensors[0]) == _size0(t) for t in tensors):
            raise AssertionError("Size mismatch between tensors")
        self.tensors = tensors

    def __getitem__(self, index):
        return tuple(t[index] for t in self.tensors)

    def __len__(self):
        return _size0(self.tensors[0])


class StackDataset(Dataset):
    """Several datasets of one length side by side: sample ``i`` is the tuple of their
    ``i``-th samples (datasets given as positional arguments) or the dict of them (given
    as keyword arguments), as torch's. ValueError for no datasets, for both forms at
    once, or for datasets of different lengths.

    >>> ds = StackDataset([1, 2], ["a", "b"])
    >>> len(ds), ds[1]
    (2, (2, 'b'))
    >>> StackDataset(x=[1, 2], y=["a", "b"])[0]
    {'x': 1, 'y': 'a'}
    """

    def __init__(self, *args, **kwargs):
        if args:
            if kwargs:
                raise ValueError("StackDataset: Supported either ``tuple``- (via ``args``) or"
                                 "``dict``- (via ``kwargs``) like input/output, but both "
                                 "types are given.")
            datasets = args
        elif kwargs:
            datasets = kwargs
        else:
            raise ValueError("StackDataset: At least one dataset should be passed")
        parts = list(datasets.values()) if isinstance(datasets, dict) else list(datasets)
        self._length = len(parts[0])
        if any(self._length != len(d) for d in parts):
            raise ValueError("StackDataset: Size mismatch between datasets")
        self.datasets = datasets

    def __getitem__(self, index):
        if isinstance(self.datasets, dict):
            return {k: d[index] for k, d in self.datasets.items()}
        return tuple(d[index] for d in self.datasets)

    def __getitems__(self, indices):
        """The samples at ``indices`` (a list), fetched with each dataset's own
        ``__getitems__`` where it has one (the `DataLoader` calls this for a batch)."""
        named = isinstance(self.datasets, dict)
        items = self.datasets.items() if named else enumerate(self.datasets)
        columns = {}
        for k, d in items:
            if callable(getattr(d, "__getitems__", None)):
                got = d.__getitems__(indices)
                if len(got) != len(indices):
                    raise ValueError("StackDataset: Nested dataset's output size mismatch. "
                                     "Expected %d, got %d" % (len(indices), len(got)))
                columns[k] = list(got)
            else:
                columns[k] = [d[i] for i in indices]
        if named:
            return [{k: col[j] for k, col in columns.items()} for j in range(len(indices))]
        return [tuple(col[j] for col in columns.values()) for j in range(len(indices))]

    def __len__(self):
        return self._length


class Subset(Dataset):
    """The samples of ``dataset`` at ``indices``, in that order.

    >>> Subset([10, 11, 12, 13], [3, 0])[0]
    13
    """

    def __init__(self, dataset, indices):
        self.dataset = dataset
        self.indices = indices

    def __getitem__(self, idx):
        if isinstance(idx, list):
            return self.dataset[[self.indices[i] for i in idx]]
        return self.dataset[self.indices[idx]]

    def __getitems__(self, indices):
        """The samples at ``indices`` (a list), through the dataset's own
        ``__getitems__`` where it has one (the `DataLoader` calls this for a batch)."""
        if callable(getattr(self.dataset, "__getitems__", None)):
            return self.dataset.__getitems__([self.indices[i] for i in indices])
        return [self.dataset[self.indices[i]] for i in indices]

    def __len__(self):
        return len(self.indices)


class ConcatDataset(Dataset):
    """The datasets one after the other (``cumulative_sizes`` holds the boundaries).

    >>> ds = ConcatDataset([[1, 2], [3]])
    >>> len(ds), ds[2], ds[-1]
    (3, 3, 3)
    """

    @staticmethod
    def cumsum(sequence):
        r, s = [], 0
        for e in sequence:
            s += len(e)
            r.append(s)
        return r

    def __init__(self, datasets):
        self.datasets = list(datasets)
        if len(self.datasets) == 0:
            raise AssertionError("datasets should not be an empty iterable")
        for d in self.datasets:
            if isinstance(d, IterableDataset):
                raise AssertionError("ConcatDataset does not support IterableDataset")
        self.cumulative_sizes = self.cumsum(self.datasets)

    def __len__(self):
        return self.cumulative_sizes[-1]

    def __getitem__(self, idx):
        if idx < 0:
            if -idx > len(self):
                raise ValueError("absolute value of index should not exceed dataset length")
            idx = len(self) + idx
        dataset_idx = bisect.bisect_right(self.cumulative_sizes, idx)
        sample_idx = idx if dataset_idx == 0 else idx - self.cumulative_sizes[dataset_idx - 1]
        return self.datasets[dataset_idx][sample_idx]


class ChainDataset(IterableDataset):
    """Iterable datasets chained one after the other (AssertionError, as torch, when one
    of them is not an `IterableDataset`).

    >>> class Count(IterableDataset):
    ...     def __init__(self, n):
    ...         self.n = n
    ...     def __iter__(self):
    ...         return iter(range(self.n))
    >>> list(ChainDataset([Count(2), Count(3)]))
    [0, 1, 0, 1, 2]
    """

    def __init__(self, datasets):
        self.datasets = datasets

    def __iter__(self):
        for d in self.datasets:
            if not isinstance(d, IterableDataset):
                raise AssertionError("ChainDataset only supports IterableDataset")
            yield from d

    def __len__(self):
        total = 0
        for d in self.datasets:
            if not isinstance(d, IterableDataset):
                raise AssertionError("ChainDataset only supports IterableDataset")
            total += len(d)
        return total


def random_split(dataset, lengths, generator=None):
    """Split ``dataset`` into non-overlapping random `Subset` s of the given ``lengths``
    (counts summing to ``len(dataset)``, or fractions summing to 1, the remainder dealt
    round-robin as torch). ``generator`` is a ``pyad.Generator`` (default: the global one).

    >>> import pyad
    >>> a, b = random_split(range(10), [0.7, 0.3], generator=pyad.Generator().manual_seed(0))
    >>> len(a), len(b), sorted(list(a) + list(b)) == list(range(10))
    (7, 3, True)
    """
    from pyad._factories import randperm
    lengths = list(lengths)
    if math.isclose(sum(lengths), 1) and sum(lengths) <= 1:
        counts = []
        for i, frac in enumerate(lengths):
            if frac < 0 or frac > 1:
                raise ValueError("Fraction at index %d is not between 0 and 1" % i)
            counts.append(int(math.floor(len(dataset) * frac)))
        remainder = len(dataset) - sum(counts)
        for i in range(remainder):
            counts[i % len(counts)] += 1
        for i, n in enumerate(counts):
            if n == 0:
                warnings.warn("Length of split at index %d is 0. This might result in an empty "
                              "dataset." % i)
        lengths = counts
    if sum(lengths) != len(dataset):
        raise ValueError("Sum of input lengths does not equal the length of the input dataset!")
    indices = randperm(sum(lengths), generator=generator).tolist()
    return [Subset(dataset, indices[offset - length:offset])
            for offset, length in zip(itertools.accumulate(lengths), lengths)]
