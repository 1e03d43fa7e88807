"""The examples in pyad's docstrings run and print what they show."""
import doctest
import importlib.util
import sys

import numpy
import pytest

import pyad
import pyad._factories
import pyad.autograd.function
import pyad.autograd.grad_mode
import pyad.autograd.gradcheck
import pyad.autograd.anomaly_mode
import pyad.autograd.functional
import pyad.autograd.forward_ad
import pyad.func
import pyad._functorch_compat
import pyad.autograd.graph
import pyad.autograd.profiler
import pyad.autograd.profiler_util
import pyad.nn.functional
import pyad.nn.init
import pyad.nn.modules
import pyad.nn.parameter
import pyad.nn.utils.parametrizations
import pyad.nn.utils.parametrize
import pyad.nn.utils.stateless
import pyad.optim.lr_scheduler
import pyad.optim.optimizer
import pyad.serialization
import pyad.backends.cudnn
import pyad.backends.mps
import pyad.cuda
import pyad.accelerator
import pyad.xpu
import pyad._porting
import pyad._toplevel_math
import pyad._toplevel_nn
import pyad.jit
import pyad.profiler
import pyad.nn.parallel.data_parallel
import pyad.nn.sync_batchnorm
import pyad.cuda.amp
import pyad.amp
import pyad.amp.autocast_mode
import pyad.amp.grad_scaler
import pyad.random
import pyad.testing
import pyad.fft
import pyad.linalg
import pyad.optim.adadelta
import pyad.optim.adagrad
import pyad.optim.adamax
import pyad.optim.lbfgs
import pyad.optim.nadam
import pyad.optim.radam
import pyad.optim.rmsprop
import pyad.distributions
import pyad.distributions.constraints
import pyad.distributions.continuous
import pyad.distributions.discrete
import pyad.distributions.distribution
import pyad.distributions.gamma
import pyad.distributions.kl
import pyad.distributions.constraint_registry
import pyad.distributions.matrix
import pyad.distributions.more_continuous
import pyad.distributions.more_discrete
import pyad.distributions.multivariate
import pyad.distributions.relaxed
import pyad.distributions.transformed_distribution
import pyad.distributions.transforms
import pyad.utils.data
import pyad.utils.data._collate
import pyad.utils.data.dataloader
import pyad.utils.data.dataset
import pyad.utils.data.sampler
from pyad import _engine

MODULES = [_engine, pyad._factories, pyad.autograd.function, pyad.autograd.grad_mode,
           pyad.autograd.gradcheck, pyad.autograd.anomaly_mode, pyad.autograd.functional,
           pyad.autograd.forward_ad,
           pyad.func, pyad._functorch_compat,
           pyad.autograd.graph, pyad.autograd.profiler, pyad.autograd.profiler_util,
           pyad.nn.init, pyad.nn.modules, pyad.nn.sync_batchnorm,
           pyad.nn.parameter, pyad.optim.optimizer, pyad.optim.lr_scheduler,
           pyad.serialization, pyad.nn.functional,
           # porting torch scripts
           pyad.cuda, pyad.accelerator, pyad.xpu, pyad.backends, pyad.backends.cudnn,
           pyad.backends.mps,
           pyad.optim.rmsprop, pyad.optim.adagrad, pyad.optim.adadelta, pyad.optim.adamax,
           pyad.optim.nadam, pyad.optim.radam, pyad.optim.lbfgs, pyad.utils.data,
           pyad.utils.data.dataset, pyad.utils.data.sampler, pyad.utils.data._collate,
           pyad.utils.data.dataloader,
           # torch.amp, torch.random, torch.testing
           pyad.amp, pyad.amp.autocast_mode, pyad.amp.grad_scaler, pyad.cuda.amp, pyad.random,
           pyad.testing,
           # torch.nn.utils (weight_norm and spectral_norm are also functions' names there)
           pyad.nn.utils, pyad.nn.utils.parametrize, pyad.nn.utils.parametrizations,
           pyad.nn.utils.stateless, sys.modules["pyad.nn.utils.weight_norm"],
           sys.modules["pyad.nn.utils.spectral_norm"],
           # torch.distributions
           pyad.distributions, pyad.distributions.constraints, pyad.distributions.distribution,
           pyad.distributions.continuous, pyad.distributions.discrete, pyad.distributions.gamma,
           pyad.distributions.multivariate, pyad.distributions.kl, pyad.distributions.relaxed,
           pyad.distributions.transforms, pyad.distributions.transformed_distribution,
           pyad.distributions.more_continuous, pyad.distributions.more_discrete,
           pyad.distributions.matrix, pyad.distributions.constraint_registry,
           # torch.linalg's rest and torch.fft (Python modules)
           pyad.linalg, pyad.fft,
           # asarray and torch's other top-level names, torch.jit, torch.profiler,
           # nn.DataParallel
           pyad._porting, pyad._toplevel_math, pyad.jit, pyad.profiler, pyad.nn.parallel.data_parallel,
           # torch's top-level nn functions (torch.dropout, torch.layer_norm, ...)
           pyad._toplevel_nn]


@pytest.mark.parametrize("module", MODULES, ids=lambda m: m.__name__)
def test_docstring_examples_run(module):
    globs = dict(vars(module))          # each example runs in its own module's namespace
    globs.update(numpy=numpy, np=numpy, pyad=pyad)
    finder = doctest.DocTestFinder()
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    tests = [t for t in finder.find(module, globs=globs) if t.examples]
    if importlib.util.find_spec("scipy") is None:
        # pyad.linalg's ldl_* call LAPACK through SciPy, an optional dependency
        tests = [t for t in tests if ".ldl_" not in t.name]
    for test in tests:
        runner.run(test)
    results = runner.summarize(verbose=False)
    assert results.failed == 0
    if module is _engine:
        assert results.attempted >= 20


def _summary(obj):
    """The docstring's first line after Cython's embedded signature, or ''."""
    lines = [line.strip() for line in (obj.__doc__ or "").splitlines()]
    if lines and "(" in lines[0] and lines[0].split("(")[0].endswith(
            getattr(obj, "__name__", "\0")):
        lines = lines[1:]                    # "Variable.add(self, other, *, alpha=1)"
    lines = [line for line in lines if line]
    return lines[0] if lines else ""


def test_every_public_variable_member_has_a_summary():
    missing = []
    for name, member in vars(pyad.Variable).items():
        if name.startswith("_"):
            continue
        target = member.fget if isinstance(member, property) else member
        if not _summary(target if target.__doc__ else member):
            missing.append(name)
    assert not missing, "Variable members without a docstring summary: %s" % missing
