"""``pyad.distributed``: process groups and collectives over MPI, as ``torch.distributed``.

Start the ranks with ``mpiexec -n 4 python train.py``; each calls
`init_process_group` and then the collectives on its Variables. ``mpi4py`` (``pip
install 'pyad[mpi]'``) is imported on first use, so importing this module never needs
it. See docs/distributed.md.
"""
from pyad.distributed.collectives import (
    Backend, GroupMember, ProcessGroup, ReduceOp, Work, all_gather, all_gather_into_tensor,
    all_reduce, barrier, broadcast, destroy_process_group, gather, get_backend, get_rank,
    get_world_size, init_process_group, irecv, is_available, is_initialized,
    is_mpi_available, is_nccl_available, isend, new_group, recv, reduce, reduce_scatter,
    scatter, send,
)
from pyad.distributed import nn

group = GroupMember

__all__ = [
    "Backend", "GroupMember", "ProcessGroup", "ReduceOp", "Work", "all_gather",
    "all_gather_into_tensor", "all_reduce", "barrier", "broadcast", "destroy_process_group",
    "gather", "get_backend", "get_rank", "get_world_size", "group", "init_process_group",
    "irecv", "is_available", "is_initialized", "is_mpi_available", "is_nccl_available",
    "isend", "new_group", "nn", "recv", "reduce", "reduce_scatter", "scatter", "send",
]
