"""Ported rasbt/LLMs-from-scratch (examples/ported/, the sixteenth batch, Apache-2.0,
Copyright (c) Sebastian Raschka): chapter 3's attention classes, chapter 4's GPT model
and ``generate_text_simple``, chapter 5's loss functions, ``train_model_simple`` and
``generate`` with temperature and top-k, chapter 6's classification fine-tuning. Each
runs on torch and on pyad from torch's initial weights, and every value the scripts
compute (outputs, gradients, losses at every evaluation, accuracies, generated text,
final weights) is compared with torch's.

The random draws inside the scripts (dropout masks, the shuffling ``DataLoader``,
``multinomial`` sampling) come from one NumPy stream through the namespace proxies of
tests/test_ported_examples.py (``seeded``) and tests/test_ported_examples_10.py
(``shared``), so that both runs see the same batches and draws. tiktoken's GPT-2
encoding is replaced by integer ids (chapter 4) and a character tokenizer (chapters 5
and 6); the configuration is a tiny one (embedding 32, 2 layers, 4 heads, context 16).
"""
import importlib.util
import math
import os
import subprocess
import sys

import numpy as np
import pytest

import pyad

torch = pytest.importorskip("torch")

_HERE = os.path.dirname(os.path.abspath(__file__))


def _module(name):
    spec = importlib.util.spec_from_file_location("_ported_helpers16_" + name,
                                                  os.path.join(_HERE, name + ".py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_helpers = _module("test_ported_examples")
load, seeded = _helpers.load, _helpers.seeded
PORTED, REPO_ROOT, PYAD_HOME = _helpers.PORTED, _helpers.REPO_ROOT, _helpers.PYAD_HOME
shared = _module("test_ported_examples_10").shared

# this batch's scripts (tests/test_ported_examples.py's list names them too)
SCRIPTS = ["llms_from_scratch_ch03", "llms_from_scratch_ch04", "llms_from_scratch_ch05",
           "llms_from_scratch_ch06"]


def _quiet(*args, **kwargs):
    pass


def twin(name, wrap=seeded, initial=None, **options):
    """``name``'s ``run`` on torch, then on pyad with torch's initial weights copied into
    each module ``run`` hands to ``init`` (in order); ``initial``: a list that gets those
    weights."""
    states = []

    def record(model):
        states.append({k: v.detach().numpy().copy() for k, v in model.state_dict().items()})

    def restore(model):
        state = states.pop(0)
        assert list(model.state_dict()) == list(state)
        model.load_state_dict({k: pyad.tensor(v) for k, v in state.items()})

    module = load(name)
    t = module.run(wrap(torch), init=record, log=_quiet, **options)
    n = len(states)
    if initial is not None:
        initial.extend(states)
    p = module.run(wrap(pyad), init=restore, log=_quiet, **options)
    assert n > 0 and not states
    return t, p


def compare(t, p, exact=(), rtol=2e-4, atol=2e-5, state_rtol=1e-3, key_bias_drift=None):
    """Every value alike: ``exact`` ones equal, arrays and floats within float32 rounding
    (the final weights within ``state_rtol``). ``W_key.bias`` is the exception: it adds
    ``q . b_k`` to a whole row of scores, which the softmax ignores, so its gradient is 0 up
    to rounding and AdamW's steps there follow each framework's rounding: those entries
    are only checked to lie within twice ``key_bias_drift`` (the sum of the learning rates)
    of each other, as nanoGPT's ``c_attn`` key bias in tests/test_ported_examples_10.py."""
    assert list(p) == list(t)
    for name in t:
        if name in exact:
            assert p[name] == t[name], (name, p[name], t[name])
        elif isinstance(t[name], dict):
            assert list(p[name]) == list(t[name]), name
            for key in t[name]:
                tol = (state_rtol, 1e-5) if name == "state" else (rtol, atol)
                if name == "state" and key.endswith("W_key.bias") and key_bias_drift:
                    assert np.abs(p[name][key] - t[name][key]).max() <= 2 * key_bias_drift
                    continue
                np.testing.assert_allclose(p[name][key], t[name][key], rtol=tol[0],
                                           atol=tol[1], err_msg=name + " " + key)
        else:
            assert np.shape(p[name]) == np.shape(t[name]), name
            np.testing.assert_allclose(p[name], t[name], rtol=rtol, atol=atol, err_msg=name)


# -- chapter 3: attention -------------------------------------------------------------------

def test_ch03_attention_classes():
    t, p = twin("llms_from_scratch_ch03")
    assert len(t) == 42
    compare(t, p, rtol=1e-5, atol=1e-6)


def test_ch03_attention_classes_with_dropout():
    # the masks of nn.Dropout on the attention weights from the shared stream
    t, p = twin("llms_from_scratch_ch03", dropout=0.5)
    compare(t, p, rtol=1e-5, atol=1e-6)
    assert not np.allclose(t["CausalAttention"],
                           load("llms_from_scratch_ch03").run(torch, log=_quiet)["CausalAttention"])


def test_ch03_self_attention_v1_is_the_hand_math():
    # the chapter's formula with NumPy on pyad's own random weights
    ch03 = load("llms_from_scratch_ch03").build(pyad)
    pyad.manual_seed(123)
    sa = ch03.SelfAttention_v1(3, 2)
    x = np.random.default_rng(0).random((6, 3)).astype(np.float32)
    out = sa(pyad.tensor(x)).detach().numpy()
    Wq, Wk, Wv = (w.detach().numpy().astype(np.float64)
                  for w in (sa.W_query, sa.W_key, sa.W_value))
    scores = (x @ Wq) @ (x @ Wk).T / math.sqrt(2)
    weights = np.exp(scores - scores.max(-1, keepdims=True))
    weights /= weights.sum(-1, keepdims=True)
    np.testing.assert_allclose(out, weights @ (x @ Wv), rtol=1e-5, atol=1e-6)


def test_ch03_multi_head_attention_is_causal():
    # a later token does not change an earlier token's context vector
    ch03 = load("llms_from_scratch_ch03").build(pyad)
    mha = ch03.MultiHeadAttention(3, 4, 6, 0.0, num_heads=2)
    x = pyad.tensor(np.random.default_rng(1).random((1, 6, 3)).astype(np.float32))
    y = x.clone()
    y[0, 4:] = 9.0
    np.testing.assert_allclose(mha(x)[0, :4].detach().numpy(),
                               mha(y)[0, :4].detach().numpy(), rtol=1e-6, atol=1e-7)


# -- chapter 4: the GPT model ---------------------------------------------------------------

_CH04_EXACT = ["total_params", "total_params_gpt2", "total_size_mb", "generated",
               "generated_cropped"]


@pytest.mark.parametrize("model_class", ["GPTModel", "GPTModelFast"])
def test_ch04_gpt_model(model_class):
    t, p = twin("llms_from_scratch_ch04", model_class=model_class)
    compare(t, p, exact=_CH04_EXACT)
    # the chapter's tiny model: 2 blocks of 12 * 32^2 weights and 10 * 32 biases, scales and shifts, the final
    # norm, the two embeddings, the head (no bias)
    assert t["total_params"] == 2 * (12 * 32 * 32 + 10 * 32) + 2 * 32 + 48 * 32 * 2 + 16 * 32
    assert len(t["generated"][0]) == 10 and len(t["generated_cropped"][0]) == 28


def test_ch04_gpt_model_in_training_mode_with_dropout():
    t, p = twin("llms_from_scratch_ch04", train=True)
    compare(t, p, exact=_CH04_EXACT)


def test_ch04_layer_norm_and_gelu_match_torchs_modules():
    ch04 = load("llms_from_scratch_ch04").build(pyad)
    x = np.random.default_rng(2).standard_normal((2, 3, 8)).astype(np.float32)
    tx = torch.tensor(x)
    np.testing.assert_allclose(ch04.LayerNorm(8)(pyad.tensor(x)).detach().numpy(),
                               torch.nn.LayerNorm(8)(tx).detach().numpy(),
                               rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(ch04.GELU()(pyad.tensor(x)).detach().numpy(),
                               torch.nn.GELU(approximate="tanh")(tx).numpy(),
                               rtol=1e-5, atol=1e-6)


# -- chapter 5: pretraining -----------------------------------------------------------------

_CH05_EXACT = ["n_batches", "tokens_seen", "greedy", "sampled", "until_eos"]


def test_ch05_train_model_simple_and_generate():
    t, p = twin("llms_from_scratch_ch05", wrap=lambda lib: shared(lib, dropout=True))
    compare(t, p, exact=_CH05_EXACT, key_bias_drift=0.0)
    assert len(t["train_losses"]) == len(t["val_losses"]) == 7
    assert t["until_eos"].count(" ") == 2                # stopped before the third space


def test_ch05_greedy_generation_on_each_frameworks_own_draws():
    # temperature 0: argmax, no draws; no dropout: each framework's own generators unused
    t, p = twin("llms_from_scratch_ch05", wrap=shared, drop_rate=0.0, temperature=0.0,
                top_k=None)
    compare(t, p, exact=_CH05_EXACT)
    assert t["sampled"] == t["greedy"][:len(t["sampled"])]


def test_ch05_top_k_one_sampling_on_each_frameworks_multinomial():
    # top-k 1 leaves one id with probability 1: each framework's own multinomial picks it
    t, p = twin("llms_from_scratch_ch05", wrap=lambda lib: shared(lib, multinomial=False),
                drop_rate=0.0, top_k=1, num_epochs=1)
    compare(t, p, exact=_CH05_EXACT)
    assert t["sampled"] == t["greedy"][:len(t["sampled"])]


def test_ch05_load_weights_into_gpt():
    # GPT-2's parameter layout (NumPy arrays) loaded by assign/load_weights_into_gpt: the
    # model computes the same logits and greedy ids as torch's from the same arrays
    module = load("llms_from_scratch_ch05")
    t = module.run_pretrained(torch, log=_quiet)
    p = module.run_pretrained(pyad, log=_quiet)
    # the message formats the Variable's shape: torch's is a torch.Size, pyad's a tuple
    assert t.pop("mismatch") == "Shape mismatch. Left: torch.Size([16, 32]), Right: (48, 32)"
    assert p.pop("mismatch") == "Shape mismatch. Left: (16, 32), Right: (48, 32)"
    compare(t, p, exact=["n_parameters", "tied", "generated"])
    # embeddings, 16 per block, the final norm, the head's weight (tied to tok_emb's values)
    assert t["tied"] and t["n_parameters"] == 2 + 2 * 16 + 2 + 1


def test_ch05_load_weights_into_gpt_then_top_k_sampling():
    module = load("llms_from_scratch_ch05")
    t = module.run_pretrained(shared(torch), log=_quiet, temperature=1.5, top_k=3)
    p = module.run_pretrained(shared(pyad), log=_quiet, temperature=1.5, top_k=3)
    assert t.pop("mismatch").startswith("Shape mismatch") and p.pop("mismatch")
    compare(t, p, exact=["n_parameters", "tied", "generated"])
    assert len(t["generated"][0]) == 16


# -- chapter 6: classification fine-tuning --------------------------------------------------

_CH06_EXACT = ["max_length", "trainable", "initial_accuracy", "train_accs", "val_accs",
               "examples_seen", "val_accuracy", "reviews", "frozen_grads"]


def test_ch06_train_classifier_simple():
    t, p = twin("llms_from_scratch_ch06", wrap=shared)
    # 6 AdamW steps an epoch at lr 5e-4
    compare(t, p, exact=_CH06_EXACT, key_bias_drift=12 * 5e-4)
    assert len(t["trainable"]) == 16 + 2 + 2 and all(t["frozen_grads"])
    assert t["examples_seen"] == 48


def test_ch06_frozen_parameters_keep_their_values():
    initial = []
    t, p = twin("llms_from_scratch_ch06", wrap=lambda lib: shared(lib, dropout=True),
                initial=initial, drop_rate=0.1, num_epochs=1)
    compare(t, p, exact=_CH06_EXACT, key_bias_drift=6 * 5e-4)
    moved = []
    for name, value in initial[0].items():
        if name.startswith("trf_blocks.0.") or name.endswith("emb.weight"):
            np.testing.assert_array_equal(p["state"][name], value, err_msg=name)
            np.testing.assert_array_equal(t["state"][name], value, err_msg=name)
        elif not name.endswith("mask"):
            moved.append(not np.array_equal(p["state"][name], value))
    assert len(moved) == 20 and all(moved)


# -- this batch -----------------------------------------------------------------------------

def test_every_script_of_this_batch_is_tested():
    scripts = sorted(f[:-3] for f in os.listdir(PORTED) if f.startswith("llms_from_scratch_"))
    assert scripts == sorted(SCRIPTS)


@pytest.mark.parametrize("name,expected", [("llms_from_scratch_ch03", "MultiHeadAttention"),
                                           ("llms_from_scratch_ch05", "Ep 2 (Step 000012)"),
                                           ("llms_from_scratch_ch06", "Validation accuracy")])
def test_scripts_run_as_scripts_on_pyad(name, expected):
    env = dict(os.environ, PYTHONPATH=PYAD_HOME, OPENBLAS_NUM_THREADS="1",
               OMP_NUM_THREADS="1")
    proc = subprocess.run([sys.executable, os.path.join(PORTED, name + ".py")],
                          cwd=REPO_ROOT, env=env, capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert expected in proc.stdout, proc.stdout
