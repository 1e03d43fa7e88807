"""Ported pytorch/tutorials texts (examples/ported/, the twelfth batch): the Pruning
Tutorial (``torch.nn.utils.prune`` on LeNet) and the PyTorch Benchmark recipe
(``torch.utils.benchmark``). The pruning tutorial runs on torch and on pyad from the
same initial weights, with ``rand_like`` (what ``random_unstructured`` draws) from one
NumPy stream, and everything it prints is compared with torch's; the benchmark recipe
cannot agree on times, so both runs are compared by structure (the Measurements'
labels, counts and the tables' rows and columns) and every time is checked positive.
"""
import importlib.util
import os
import re
import subprocess
import sys

import numpy as np
import pytest

import pyad

torch = pytest.importorskip("torch")
import torch.nn.utils.prune  # noqa: E402,F401  (torch.nn.utils.prune is not imported by torch)
import torch.utils.benchmark  # noqa: E402,F401

_HERE = os.path.dirname(os.path.abspath(__file__))


def _module(name):
    spec = importlib.util.spec_from_file_location("_ported_helpers12_" + name,
                                                  os.path.join(_HERE, name + ".py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_helpers = _module("test_ported_examples")
load, PORTED = _helpers.load, _helpers.PORTED

# this batch's scripts (tests/test_ported_examples.py's list names them too)
SCRIPTS = ["pruning_tutorial", "benchmark_recipe"]


def _quiet(*args):
    pass


def _shared_rand_like(monkeypatch, seed=0):
    """torch.rand_like and pyad.rand_like from one NumPy stream per library (restarted
    for each), so both runs of random_unstructured prune the same entries."""
    def patch(lib):
        rng = np.random.default_rng(seed)

        def rand_like(t, dtype=None, **kw):
            return lib.tensor(rng.random(tuple(t.shape)), dtype=dtype or t.dtype)
        monkeypatch.setattr(lib, "rand_like", rand_like)
    patch(torch)
    patch(pyad)


def _twin(name, **options):
    states, seen = [], [0]

    def record(model):
        states.append({k: v.detach().numpy().copy() for k, v in model.state_dict().items()})

    def restore(model):
        state = states[seen[0]]
        seen[0] += 1
        assert list(model.state_dict()) == list(state)
        model.load_state_dict({k: pyad.tensor(v) for k, v in state.items()})

    torch.manual_seed(0)
    t_out = load(name).run(torch, init=record, log=_quiet, **options)
    p_out = load(name).run(pyad, init=restore, log=_quiet, **options)
    assert seen[0] == len(states) == 4
    return t_out, p_out


def _tree(value, prefix=""):
    if isinstance(value, dict):
        return [kv for k, v in value.items() for kv in _tree(v, "%s%s/" % (prefix, k))]
    if isinstance(value, (list, tuple)):
        return [kv for i, v in enumerate(value) for kv in _tree(v, "%s%d/" % (prefix, i))]
    if hasattr(value, "detach"):
        return [(prefix.rstrip("/"), np.asarray(value.detach().numpy()))]
    return [(prefix.rstrip("/"), value)]


def _compare(t_out, p_out, rtol=0.0, atol=0.0):
    t_flat, p_flat = _tree(t_out), _tree(p_out)
    assert [k for k, _ in p_flat] == [k for k, _ in t_flat]
    for (name, t), (_, p) in zip(t_flat, p_flat):
        if isinstance(t, np.ndarray):
            assert p.shape == t.shape and p.dtype == t.dtype, (name, p.shape, t.shape)
            np.testing.assert_allclose(p, t, rtol=rtol, atol=atol, err_msg=name)
        else:
            assert p == t and type(p) is type(t), (name, p, t)


# -- intermediate_source/pruning_tutorial.py --------------------------------------------------

def test_pruning_tutorial(monkeypatch):
    _shared_rand_like(monkeypatch)
    t_out, p_out = _twin("pruning_tutorial", forward=True)
    grads = {k: (t_out.pop(k), p_out.pop(k)) for k in ("output", "fc3_bias_orig_grad")}
    # masks and pruned tensors are products by 0 and 1: exactly torch's
    _compare(t_out, p_out)
    for t, p in grads.values():
        np.testing.assert_allclose(p.detach().numpy(), t.detach().numpy(), rtol=1e-5,
                                   atol=1e-6)
    # hand math: what the tutorial states
    assert t_out["params_1"] == ["bias", "weight_orig"]
    assert t_out["buffers_2"] == ["weight_mask", "bias_mask"]
    assert t_out["hooks_2"] == ["RandomUnstructured", "L1Unstructured"]
    assert t_out["container"] == ["PruningContainer", "RandomUnstructured", "LnStructured"]
    assert p_out["params_4"] == ["bias_orig", "weight"]
    assert p_out["global_sparsity"] == "20.00"
    np.testing.assert_array_equal(p_out["foobar_mask"].numpy(), [0, 1] * 5)
    weight_3 = p_out["weight_3"].detach().numpy().reshape(6, -1)
    assert (np.abs(weight_3).sum(1) == 0).sum() >= 3        # 3 of 6 channels gone


def test_pruning_tutorial_own_random_draws():
    # pyad's own generator: the counts the text states, whatever entries are drawn
    out = load("pruning_tutorial").run(pyad, log=_quiet)
    assert int((out["weight_1"] == 0).sum()) >= round(0.3 * 54)
    assert int((out["bias_2"] == 0).sum()) == 3
    masks = out["new_model_masks"]
    for mask, fraction in zip(masks, (0.2, 0.2, 0.4, 0.4, 0.4)):
        assert int((mask == 0).sum()) == round(fraction * mask.numel())


# -- recipes_source/recipes/benchmark.py ------------------------------------------------------

_SMALL = dict(n=256, sizes=(1, 8), threads=(1, 2), min_run_time=0.01,
              ab_shapes=((1, 1), (8, 16)), number=5)


def _skeleton(table):
    """A Compare table without its numbers, colours and column widths: the header, the
    row names, the thread separators and one ``#`` per cell."""
    text = re.sub(r"\x1b\[[0-9;]*m", "", table)
    lines = []
    for line in text.splitlines():
        if "|" in line:
            cells = [c.strip() for c in line.split("|")]
            if cells[0]:                  # a row: its name, then a number per cell
                cells = [re.sub(r"\s+", " ", cells[0])] + [
                    "#" if re.fullmatch(r"\d+(\.\d+)?", c) else c for c in cells[1:]]
            lines.append(" | ".join(cells))
        else:
            line = re.sub(r"Times are in \w+ \(\w+\)", "Times are in UNIT", line)
            lines.append(re.sub(r"-{2,}", "--", line).strip())
    return lines


def _measurement_fields(m):
    return (m.label, m.sub_label, m.description, m.env, m.num_threads, m.stmt)


@pytest.mark.usefixtures("torch_default_threads")  # (tests/conftest.py)
def test_benchmark_recipe():
    t_out = load("benchmark_recipe").run(torch, log=_quiet, **_SMALL)
    p_out = load("benchmark_recipe").run(pyad, log=_quiet, **_SMALL)
    assert all(v > 0 for v in p_out["timeit"]) and len(p_out["timeit"]) == 2
    for key in ("timer", "threaded", "blocked", "results", "ab_results"):
        assert len(p_out[key]) == len(t_out[key]), key
        for t, p in zip(t_out[key], p_out[key]):
            assert isinstance(p, pyad.utils.benchmark.Measurement)
            assert _measurement_fields(p) == _measurement_fields(t)
            assert all(v > 0 for v in p.times) and p.median > 0 and p.mean > 0
            assert p.iqr >= 0 and p.number_per_run >= 1
    for t, p in zip(t_out["timer"], p_out["timer"]):
        assert p.number_per_run == t.number_per_run == 5
        assert len(p.raw_times) == 1
        # the repr's lines but the object's address and the time
        assert repr(p).splitlines()[1:-2] == repr(t).splitlines()[1:-2]
        assert repr(p).splitlines()[-1] == repr(t).splitlines()[-1] == \
            "  1 measurement, 5 runs , 1 thread"
    assert repr(p_out["threaded"][0]).splitlines()[1] == \
        "Multithreaded batch dot: Implemented using mul and sum"
    # 2 sizes squared x 2 thread counts x 2 statements
    assert len(p_out["results"]) == 16
    for key in ("compare", "compare_trimmed", "ab_compare"):
        assert _skeleton(p_out[key]) == _skeleton(t_out[key]), key
    assert "(environment B: bmm)" in p_out["ab_compare"]
    assert "2 threads: " in p_out["compare"]


# -- this batch's scripts ---------------------------------------------------------------------

def test_every_script_of_this_batch_is_tested():
    scripts = set(f[:-3] for f in os.listdir(PORTED) if f.endswith(".py"))
    assert set(SCRIPTS) <= scripts
    text = open(__file__).read()
    for name in SCRIPTS:
        assert 'load("%s")' % name in text or '_twin("%s"' % name in text, name


@pytest.mark.parametrize("name,expected", [
    ("pruning_tutorial", "Global sparsity: 20.00%"),
    ("benchmark_recipe", "(environment A: mul/sum)  batched_dot(x, x)")])
def test_scripts_run_as_scripts_on_pyad(name, expected):
    env = dict(os.environ, PYTHONPATH=_helpers.PYAD_HOME, OPENBLAS_NUM_THREADS="1",
               OMP_NUM_THREADS="1")
    proc = subprocess.run([sys.executable, os.path.join(PORTED, name + ".py")],
                          cwd=_helpers.REPO_ROOT, env=env, capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert expected in proc.stdout, proc.stdout
