"""Ported karpathy/* scripts (examples/ported/, the twenty-third batch, MIT-licensed per
each repository's README License section): ng-video-lecture's ``bigram.py`` and
``gpt.py`` (``ngvl_bigram``, ``ngvl_gpt``) and build-nanogpt's ``train_gpt2.py``
(``build_nanogpt``). Each runs on torch and on pyad from torch's initial weights, with
``get_batch``'s ``randint``, ``generate``'s ``multinomial`` and (``gpt.py``) the dropout
masks drawn from one NumPy stream through the namespace proxy; compared are every
step's loss, every evaluation, the printed lines (numbers to float32 tolerance, but
build-nanogpt's timings), the generated ids, the learning rates, gradient norms,
parameter groups and every final weight. karpathy/lecun1989-repro has no licence (no
LICENSE file, no License section in its README), so it is not ported.
"""
import importlib.util
import math
import os
import re
import subprocess
import sys
from contextlib import nullcontext

import numpy as np
import pytest

import pyad

torch = pytest.importorskip("torch")

_HERE = os.path.dirname(os.path.abspath(__file__))


def _module(name):
    spec = importlib.util.spec_from_file_location("_ported_helpers23_" + name,
                                                  os.path.join(_HERE, name + ".py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_helpers = _module("test_ported_examples")
_helpers10 = _module("test_ported_examples_10")
Proxy, shared, twin = _helpers.Proxy, _helpers10.shared, _helpers10.twin
compare_weights = _helpers10.compare_weights
PORTED, PYAD_HOME = _helpers.PORTED, _helpers.PYAD_HOME

# this batch's scripts (tests/test_ported_examples.py's list names them too)
SCRIPTS = ["ngvl_bigram", "ngvl_gpt", "build_nanogpt"]

_NUMBER = re.compile(r"-?\d+\.\d+(?:e[-+]\d+)?|-?\d+")


def compare_lines(p_lines, t_lines, skip=()):
    """The same lines, numbers within float32 tolerance (the words exact); numbers after
    a word in ``skip`` (timings) are not compared."""
    assert len(p_lines) == len(t_lines) > 0
    for p_line, t_line in zip(p_lines, t_lines):
        for word in skip:
            p_line = re.sub(word + r"\s*[\d.]+", word, p_line)
            t_line = re.sub(word + r"\s*[\d.]+", word, t_line)
        assert _NUMBER.sub("#", p_line) == _NUMBER.sub("#", t_line), (p_line, t_line)
        p_num = [float(v) for v in _NUMBER.findall(p_line)]
        t_num = [float(v) for v in _NUMBER.findall(t_line)]
        # a printed 4- or 6-decimal number may round the other way: one unit apart
        np.testing.assert_allclose(p_num, t_num, rtol=2e-4, atol=1.01e-4, err_msg=t_line)


# -- karpathy/ng-video-lecture: bigram.py, gpt.py -------------------------------------------

def _compare_ngvl(t, p):
    assert list(p) == list(t)
    np.testing.assert_allclose(p["losses"], t["losses"], rtol=2e-4, atol=2e-5)
    np.testing.assert_allclose(p["evals"], t["evals"], rtol=2e-4, atol=2e-5)
    assert p["generated"] == t["generated"]
    compare_lines(p["lines"], t["lines"])
    assert p["lines"][-1] == t["lines"][-1]  # the decoded text


def test_ngvl_bigram():
    # batch_size 32, block_size 8, lr 1e-2 as written; 6 steps, evaluations at 0 and 3
    t, p, t_model, p_model = twin("ngvl_bigram")
    _compare_ngvl(t, p)
    compare_weights(t_model, p_model)
    assert len(t["losses"]) == 6 and len(t["evals"]) == 2
    # the text's values by hand: the 90/10 split, a V x V table, generate's 40 new ids
    # after the "\n" (id 0) context, each a valid id
    n_train, n_val, V = t["split"]
    assert (n_train, n_val) == (2700, 300)
    assert tuple(t_model.token_embedding_table.weight.shape) == (V, V)
    assert len(t["generated"]) == 41 and t["generated"][0] == 0
    assert all(0 <= i < V for i in t["generated"])


def test_ngvl_gpt_with_dropout():
    # dropout 0.2 with shared masks (generate runs in training mode, as the text: its
    # masks are shared too); evaluations at 0, 3 and the last step (iter == max_iters - 1)
    t, p, t_model, p_model = twin("ngvl_gpt", wrap=lambda lib: shared(lib, dropout=True))
    _compare_ngvl(t, p)
    compare_weights(t_model, p_model)
    assert len(t["losses"]) == 6 and len(t["evals"]) == 3
    # the parameter count the text prints, by hand (C=32, 2 layers, 4 heads of 8)
    V, C, T, L = t_model.lm_head.out_features, 32, 16, 2
    per_layer = 3 * C * C + (C * C + C) + (C * 4 * C + 4 * C) + (4 * C * C + C) + 4 * C
    total = V * C + T * C + L * per_layer + 2 * C + C * V + V
    assert t["n_params"] == p["n_params"] == total
    assert t["lines"][0] == p["lines"][0] == f"{total / 1e6} M parameters"
    assert len(t["generated"]) == 25


# -- karpathy/build-nanogpt: train_gpt2.py --------------------------------------------------

def build_namespace(lib):
    """The autocast context a no-op (float32) on both; torch.compile the identity on
    torch (pyad's compile runs)."""
    overrides = dict(autocast=lambda **kw: nullcontext())
    if lib is torch:
        overrides["compile"] = lambda model, **kw: model
    return Proxy(lib, **overrides)


def test_build_nanogpt():
    t, p, t_model, p_model = twin("build_nanogpt", wrap=build_namespace)
    assert list(p) == list(t)
    np.testing.assert_allclose(p["losses"], t["losses"], rtol=2e-4, atol=2e-5)
    np.testing.assert_allclose(p["norms"], t["norms"], rtol=2e-4, atol=2e-5)
    assert p["lrs"] == t["lrs"]
    assert p["groups"] == t["groups"] and p["fused"] is t["fused"] is False
    assert p["position"] == t["position"]
    compare_lines(p["lines"], t["lines"], skip=("dt:", "tok/sec:"))
    # c_attn's key bias shifts a whole row of scores: its gradient is 0 up to rounding
    compare_weights(t_model, p_model, key_bias_drift=sum(t["lrs"]))
    # the text's values by hand: warmup then cosine from max_lr to max_lr / 10
    max_lr, warmup, max_steps = 6e-4, 2, 6
    expected = [max_lr * (it + 1) / warmup if it < warmup else
                0.1 * max_lr + 0.5 * (1 + math.cos(math.pi * (it - warmup) /
                                                   (max_steps - warmup))) * 0.9 * max_lr
                for it in range(max_steps)]
    np.testing.assert_allclose(t["lrs"], expected, rtol=1e-12)
    # 2-D weights decay (wte tied with lm_head counted once, wpe, 4 matrices per layer),
    # the rest (biases, LayerNorms) does not
    assert t["groups"] == [(2 + 4 * 2, 0.1), (2 * 6 + 2 + 4, 0.0)]
    assert t["lines"][2] == "=> calculated gradient accumulation steps: 2"
    assert t["position"] == 6 * 2 * 4 * 16
    # weight tying held through training in both frameworks
    assert t_model.transformer.wte.weight is t_model.lm_head.weight
    assert p_model.transformer.wte.weight is p_model.lm_head.weight


def test_build_nanogpt_accumulation_matches_one_batch():
    # two micro-batches of 4 (accumulated, each loss / 2) see the same 128 tokens as one
    # batch of 8: the same first loss and gradient norm, on each framework
    for lib in (torch, pyad):
        module = _helpers.load("build_nanogpt")
        state = {}

        def keep(model):
            if state:
                model.load_state_dict({k: lib.tensor(v) for k, v in state.items()})
            else:
                state.update({k: v.detach().numpy().copy()
                              for k, v in model.state_dict().items()})

        quiet = lambda *a: None  # noqa: E731
        two = module.run(build_namespace(lib), B=4, max_steps=1, init=keep, log=quiet)
        one = module.run(build_namespace(lib), B=8, max_steps=1, init=keep, log=quiet)
        assert two["lines"][2].endswith("steps: 2") and one["lines"][2].endswith("steps: 1")
        np.testing.assert_allclose(two["losses"], one["losses"], rtol=1e-5)
        np.testing.assert_allclose(two["norms"], one["norms"], rtol=1e-5)


def _run_as_scripts(names):
    env = dict(os.environ, PYTHONPATH=PYAD_HOME, OPENBLAS_NUM_THREADS="1")
    code = ("import runpy, sys\n"
            "for name in sys.argv[1:]:\n"
            "    runpy.run_path(name, run_name='__main__')\n")
    # (-P: the working directory, a checkout whose pyad may be unbuilt, is not put first
    # on sys.path; the pyad under test comes from PYTHONPATH)
    return subprocess.run([sys.executable, "-P", "-c", code] +
                          [os.path.join(PORTED, s + ".py") for s in names],
                          env=env, capture_output=True, text=True, timeout=120)


def test_scripts_run_as_scripts_on_pyad():
    out = _run_as_scripts(["ngvl_bigram", "ngvl_gpt"])
    assert out.returncode == 0, out.stderr
    assert out.stdout.count("step 0: train loss") == 2
    assert "M parameters" in out.stdout


def test_build_nanogpt_on_pyad_with_its_compile():
    # the text's torch.compile on pyad's own (autocast swapped for a no-op context: the
    # bfloat16 path runs as a script below)
    lines = []
    namespace = Proxy(pyad, autocast=lambda **kw: nullcontext())
    out = _helpers.load("build_nanogpt").run(namespace, log=lines.append)
    assert out["lines"] == lines and len(out["losses"]) == 6
    assert re.fullmatch(r"step    5 \| loss: \d\.\d{6} \| lr 1\.3908e-04 \| norm: .*",
                        lines[-1])


def test_build_nanogpt_as_a_script_on_pyad_with_bfloat16_autocast():
    out = _run_as_scripts(["build_nanogpt"])
    assert out.returncode == 0, out.stderr[-2000:]
    assert "step    5 | loss:" in out.stdout


def test_masked_fill_bfloat16():
    # the minimal case of the bfloat16 masked_fill the script's attention reaches
    mask = [[True, False], [False, True]]
    t = torch.zeros(2, 2, dtype=torch.bfloat16).masked_fill(torch.tensor(mask), float("-inf"))
    p = pyad.zeros(2, 2, dtype=pyad.bfloat16).masked_fill(pyad.tensor(mask), float("-inf"))
    assert str(p.dtype).endswith("bfloat16")
    np.testing.assert_array_equal(p.float().numpy(), t.float().numpy())
