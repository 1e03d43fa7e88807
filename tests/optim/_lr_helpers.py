"""The scheduler set-up shared by the ports of torch's lr-scheduler tests
(tests/optim/test_torch_optim_ports.py, tests/optim/test_torch_lr_scheduler_ports.py):
each test runs on torch and on pyad (``LIBS``) over torch's ``TestLRScheduler.setUp``
optimizer."""
import numpy as np
import pytest

import pyad

torch = pytest.importorskip("torch")

LIBS = pytest.mark.parametrize("lib", [torch, pyad], ids=["torch", "pyad"])


def S(lib):
    return lib.optim.lr_scheduler


def _f(x):
    return float(x)


def make_opt(lib):
    """torch's ``TestLRScheduler.setUp``: two groups, the second with a tensor lr 0.5."""
    rng = np.random.RandomState(0)
    g0 = [lib.nn.Parameter(lib.tensor(rng.randn(1, 1, 1, 1))),
          lib.nn.Parameter(lib.tensor(rng.randn(1)))]
    g1 = [lib.nn.Parameter(lib.tensor(rng.randn(1, 1, 1, 1))),
          lib.nn.Parameter(lib.tensor(rng.randn(1)))]
    return lib.optim.SGD([{"params": g0}, {"params": g1, "lr": lib.tensor(0.5)}], lr=0.05)


def lrs(opt):
    return [_f(g["lr"]) for g in opt.param_groups]


def two(single, factor=10):
    """Targets for the two groups: the second group's lr is ``factor`` times the first's."""
    return [single, [x * factor for x in single]]
