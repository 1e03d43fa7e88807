"""pyad.functional: the functions of ``torch.functional``, as torch's module lists them.

Each is the top-level pyad function of the same name (``pyad.functional.einsum`` is
``pyad.einsum``), so that code written ``import torch.functional as F`` (the
"Introduction to PyTorch" tutorials) runs with ``import pyad as torch`` and
``F = torch.functional``.
"""
from pyad import (
    atleast_1d, atleast_2d, atleast_3d, broadcast_shapes, broadcast_tensors,
    cartesian_prod, block_diag, cdist, chain_matmul, einsum, lu, norm, meshgrid,
    pca_lowrank, split, stft, istft, svd_lowrank, tensordot, unique, unique_consecutive,
    unravel_index,
)

__all__ = ["atleast_1d", "atleast_2d", "atleast_3d", "broadcast_shapes", "broadcast_tensors",
           "cartesian_prod", "block_diag", "cdist", "chain_matmul", "einsum", "istft", "lu",
           "norm", "meshgrid", "pca_lowrank", "split", "stft", "svd_lowrank", "tensordot",
           "unique", "unique_consecutive", "unravel_index"]
