"""``pyad.nn.parallel``: `DistributedDataParallel`, as ``torch.nn.parallel``."""
from pyad.nn.parallel.distributed import DistributedDataParallel

__all__ = ["DistributedDataParallel"]
