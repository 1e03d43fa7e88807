"""Gradients across frameworks: wrap a PyTorch or JAX function as a differentiable pyad
function, or a pyad function as a differentiable PyTorch or JAX one.

Data crosses without a copy (DLPack views, or the frameworks' own zero-copy NumPy
views), and every backward is itself a bridged operation, so gradients of any order
flow across the boundary. torch and JAX are optional: they are imported on first use
(``pip install "pyad[torch]"``, ``pip install "pyad[jax]"``).

- :func:`from_torch` / :func:`to_torch`
- :func:`from_jax` / :func:`to_jax`
"""
from .torch import from_torch, to_torch
from .jax import from_jax, to_jax

__all__ = ["from_torch", "to_torch", "from_jax", "to_jax"]
