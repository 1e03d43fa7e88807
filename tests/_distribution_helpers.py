"""Shared by tests/test_distributions_more.py and _more_2.py: the same parameters as
pyad and torch Variables, and the comparison at float64/float32 tolerances."""
import numpy as np
import torch

import pyad

DTYPES = {"float32": (np.float32, torch.float32), "float64": (np.float64, torch.float64)}


def _p(a, dtype="float64", grad=False):
    return pyad.tensor(np.asarray(a, dtype=DTYPES[dtype][0]), requires_grad=grad)


def _t(a, dtype="float64", grad=False):
    return torch.tensor(np.asarray(a, dtype=DTYPES[dtype][0]), requires_grad=grad)


def _close(ours, theirs, dtype="float64", rtol=None, atol=None):
    theirs = theirs.detach() if isinstance(theirs, torch.Tensor) else torch.as_tensor(theirs)
    assert tuple(ours.shape) == tuple(theirs.shape)
    assert np.dtype(ours.dtype) == np.dtype(str(theirs.dtype).replace("torch.", ""))
    if rtol is None:
        rtol = 1e-12 if dtype == "float64" else 2e-6
    if atol is None:
        atol = 1e-13 if dtype == "float64" else 1e-6
    np.testing.assert_allclose(np.asarray(ours.data), theirs.numpy(), rtol=rtol, atol=atol)


# two 2 x 2 positive-definite matrices and two lower-triangular factors
PSD = [[[2.0, 0.5], [0.5, 1.0]], [[1.0, -0.3], [-0.3, 3.0]]]
TRIL = [[[1.5, 0.0], [0.4, 0.7]], [[0.9, 0.0], [-1.2, 2.0]]]
