"""Ported pytorch/examples (examples/ported/, the thirteenth batch): ``mnist_hogwild``, one
model moved into shared memory with ``Module.share_memory()`` and trained at once by
worker processes (``torch.multiprocessing.Process``, start method ``fork``).

With one worker the run is deterministic and is compared with torch's from the same
initial weights and dropout masks (every loss the worker logs, and the test loss the
parent computes afterwards from the model the worker trained); with two workers the
updates interleave, so the test checks that the parent's shared parameters were
trained. ``Module.share_memory`` and what ``fork`` shares and ``spawn`` copies are checked
against torch's.
"""
import contextlib
import importlib.util
import multiprocessing
import os
import subprocess
import sys

import numpy as np
import pytest

import pyad

torch = pytest.importorskip("torch")

pytestmark = pytest.mark.skipif(sys.platform == "win32" or
                                "fork" not in multiprocessing.get_all_start_methods(),
                                reason="needs the fork start method")

_HERE = os.path.dirname(os.path.abspath(__file__))


def _module(name):
    spec = importlib.util.spec_from_file_location("_ported_helpers13_" + name,
                                                  os.path.join(_HERE, name + ".py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_helpers = _module("test_ported_examples")
load, seeded, PORTED = _helpers.load, _helpers.seeded, _helpers.PORTED
REPO_ROOT, PYAD_HOME = _helpers.REPO_ROOT, _helpers.PYAD_HOME

# this batch's scripts (tests/test_ported_examples.py's list names them too)
SCRIPTS = ["mnist_hogwild"]


def _quiet(*args):
    pass


@contextlib.contextmanager
def _torch_one_thread():
    # a fork child of a process whose OpenMP pool has run can hang in torch's next
    # parallel region: one thread keeps the pool from being started
    old = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(old)


def _twin(**options):
    state = {}

    def record(model):
        state.update({k: v.detach().numpy().copy() for k, v in model.state_dict().items()})

    def restore(model):
        assert list(model.state_dict()) == list(state)
        model.load_state_dict({k: pyad.tensor(v) for k, v in state.items()})

    with _torch_one_thread():
        t = load("mnist_hogwild").run(seeded(torch), init=record, log=_quiet, **options)
    p = load("mnist_hogwild").run(seeded(pyad), init=restore, log=_quiet, **options)
    return t, p


def test_mnist_hogwild_with_one_process_matches_torch():
    t, p = _twin(num_processes=1, n_batches=3, shuffle=False)
    assert len(t["losses"]) == len(p["losses"]) == 1
    assert len(t["losses"][0]) == len(p["losses"][0]) == 3
    np.testing.assert_allclose(p["losses"][0], t["losses"][0], rtol=2e-4, atol=2e-5)
    # the parent tests the model its child trained: the same loss as torch's parent
    np.testing.assert_allclose(p["test_loss"], t["test_loss"], rtol=2e-4, atol=2e-5)
    assert p["correct"] == t["correct"]
    for name in t["after"]:
        np.testing.assert_allclose(p["after"][name], t["after"][name], rtol=1e-4,
                                   atol=1e-5, err_msg=name)
    assert p["shared"] == t["shared"] == [True] * 8


def test_mnist_hogwild_workers_train_the_parents_shared_model():
    out = load("mnist_hogwild").run(pyad, num_processes=2, log=_quiet)
    assert [len(losses) for losses in out["losses"]] == [2, 2]
    assert all(np.isfinite(out["losses"][0] + out["losses"][1]))
    assert out["shared"] == [True] * 8
    for name, before in out["before"].items():
        # every parameter of the parent's model moved: the workers wrote into it
        assert not np.allclose(out["after"][name], before), name


def test_mnist_hogwild_two_workers_move_the_model_as_far_as_torchs():
    # hogwild's interleaving differs from run to run (a worker's gradient is taken at
    # weights the other may have stepped already), so single small parameters move by
    # varying amounts; all of them together move by about as much as torch's do
    t, p = _twin(num_processes=2, shuffle=False)

    def moved(run):
        return sum(np.abs(run["after"][n] - run["before"][n]).sum() for n in run["before"])
    assert 0.7 < moved(p) / moved(t) < 1.4, (moved(p), moved(t))


@pytest.mark.parametrize("lib", [torch, pyad], ids=["torch", "pyad"])
def test_module_share_memory_as_torch(lib):
    m = lib.nn.BatchNorm1d(3)
    weight = m.weight
    m.weight.grad = lib.ones(3)
    assert not m.weight.is_shared()
    assert m.share_memory() is m
    assert m.weight is weight
    assert m.weight.is_shared() and m.bias.is_shared()
    assert m.weight.grad.is_shared() and m.bias.grad is None
    assert m.running_mean.is_shared() and m.num_batches_tracked.is_shared()
    assert m.share_memory() is m and m.weight.is_shared()      # a no-op when shared


def _add_in_child(lib, method):
    v = lib.zeros(3).share_memory_()
    ctx = multiprocessing.get_context(method)
    process = ctx.Process(target=lib.Tensor.add_ if lib is torch else pyad.Variable.add_,
                          args=(v, 1.0))
    process.start()
    process.join(60)
    assert process.exitcode == 0
    return v.detach().numpy().tolist()


def test_fork_children_write_into_shared_variables_as_torchs():
    with _torch_one_thread():
        expected = _add_in_child(torch, "fork")
    assert expected == [1.0, 1.0, 1.0]
    assert _add_in_child(pyad, "fork") == expected


def test_spawn_children_get_copies_of_shared_variables():
    # torch pickles a shared tensor as a handle to its memory; pyad as its data (a
    # NumPy array has no handle to pickle): a spawn child writes into its own copy
    assert _add_in_child(torch, "spawn") == [1.0, 1.0, 1.0]
    assert _add_in_child(pyad, "spawn") == [0.0, 0.0, 0.0]


def test_mnist_hogwild_runs_as_a_script_on_pyad():
    env = dict(os.environ, PYTHONPATH=PYAD_HOME, OPENBLAS_NUM_THREADS="1",
               OMP_NUM_THREADS="1")
    proc = subprocess.run([sys.executable, os.path.join(PORTED, "mnist_hogwild.py")],
                          cwd=REPO_ROOT, env=env, capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Test set: Average loss" in proc.stdout, proc.stdout
    assert proc.stdout.count("Train Epoch: 1") == 4, proc.stdout
