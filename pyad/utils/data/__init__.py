"""``pyad.utils.data``: datasets, samplers and ``DataLoader``, as ``torch.utils.data``.

>>> import pyad
>>> from pyad.utils.data import DataLoader, TensorDataset
>>> x, y = pyad.randn(10, 3), pyad.randint(0, 2, (10,))
>>> loader = DataLoader(TensorDataset(x, y), batch_size=4, shuffle=True)
>>> [tuple(xb.shape) for xb, yb in loader]
[(4, 3), (4, 3), (2, 3)]
"""
from pyad.utils.data._collate import default_collate, default_convert
from pyad.utils.data.dataloader import DataLoader, WorkerInfo, get_worker_info
from pyad.utils.data.distributed import DistributedSampler
from pyad.utils.data.dataset import (ChainDataset, ConcatDataset, Dataset, IterableDataset,
                                     StackDataset, Subset, TensorDataset, random_split)
from pyad.utils.data.sampler import (BatchSampler, RandomSampler, Sampler, SequentialSampler,
                                     SubsetRandomSampler, WeightedRandomSampler)

__all__ = ["BatchSampler", "ChainDataset", "ConcatDataset", "DataLoader", "Dataset",
           "DistributedSampler",
           "IterableDataset", "RandomSampler", "Sampler", "SequentialSampler", "StackDataset",
           "Subset",
           "SubsetRandomSampler", "TensorDataset", "WeightedRandomSampler", "WorkerInfo",
           "default_collate", "default_convert", "get_worker_info", "random_split"]

from pyad.utils.data import _utils  # noqa: E402,F401 - torch.utils.data._utils.collate
