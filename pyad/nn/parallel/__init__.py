"""``pyad.nn.parallel``: `DataParallel`, `data_parallel` and `DistributedDataParallel`,
as ``torch.nn.parallel``."""
from pyad.nn.parallel.data_parallel import DataParallel, data_parallel
from pyad.nn.parallel.distributed import DistributedDataParallel

__all__ = ["DataParallel", "data_parallel", "DistributedDataParallel"]
