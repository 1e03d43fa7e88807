"""Ported PyTorch tutorials, the sixth batch (examples/ported/): pytorch/tutorials' "Deep
Learning for NLP with PyTorch" (``beginner_source/nlp``: the introduction to tensors
and autograd, the bag-of-words classifier, word embeddings and the N-gram language
model, the LSTM part-of-speech tagger, the Bi-LSTM CRF). Each runs on torch and on pyad
from the same initial weights (every model the script builds goes through ``init``:
the torch run records its state_dict, the pyad run loads it) and the same random draws
(``randn`` from one NumPy stream through the ``seeded`` namespace proxy of
tests/test_ported_examples.py), and everything the tutorial prints (its ``print`` is
``run``'s ``log``) is compared: tensors by value, shape and dtype, ``grad_fn`` by node
name (without torch's version suffix), flags, dictionaries and the decoded tag paths
exactly. What ``run`` returns (every step's loss, the scores, the predicted tags, the
Viterbi paths and scores) and every model's final weights are compared too.
"""
import importlib.util
import os
import random
import re
import subprocess
import sys

import numpy as np
import pytest

import pyad

torch = pytest.importorskip("torch")

_HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location("_ported_examples_helpers",
                                               os.path.join(_HERE, "test_ported_examples.py"))
_helpers = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_helpers)
load, Proxy, seeded = _helpers.load, _helpers.Proxy, _helpers.seeded
PORTED = _helpers.PORTED


def _is_tensor(value):
    return isinstance(value, (torch.Tensor, pyad.Tensor))


def _node_name(node):
    return re.sub(r"\d+$", "", type(node).__name__)


def compare_printed(p, t, rtol, atol, where):
    """Assert that the value pyad's run printed agrees with torch's."""
    if _is_tensor(t):
        assert _is_tensor(p), (where, p, t)
        assert tuple(p.shape) == tuple(t.shape), (where, p.shape, t.shape)
        assert str(p.dtype).split(".")[-1] == str(t.dtype).split(".")[-1], (where, p.dtype,
                                                                           t.dtype)
        assert p.requires_grad == t.requires_grad, where
        np.testing.assert_allclose(p.detach().numpy(), t.detach().numpy(), rtol=rtol,
                                   atol=atol, err_msg=str(where))
    elif isinstance(t, (tuple, list)):
        assert isinstance(p, type(t)) and len(p) == len(t), (where, p, t)
        for k, (pv, tv) in enumerate(zip(p, t)):
            compare_printed(pv, tv, rtol, atol, (where, k))
    elif isinstance(t, float):
        assert isinstance(p, float), (where, p, t)
        np.testing.assert_allclose(p, t, rtol=rtol, atol=atol, err_msg=str(where))
    elif t is None or isinstance(t, (bool, int, str, dict)):
        assert type(p) is type(t) and p == t, (where, p, t)
    else:  # a graph node
        assert _node_name(p) == _node_name(t), (where, p, t)


def twin(name, rtol=2e-4, atol=2e-5, weights_rtol=1e-3, weights_atol=1e-5, **options):
    """Run ``name``'s ``run`` on torch then on pyad; compare what both print, what they
    return and every model's final weights. Returns both results."""
    module = load(name)
    states, t_models, p_models = [], [], []
    t_printed, p_printed = [], []

    def record(model):
        states.append({k: v.detach().numpy().copy() for k, v in model.state_dict().items()})
        t_models.append(model)

    def restore(model):
        state = states[len(p_models)]
        assert list(model.state_dict()) == list(state)
        model.load_state_dict({k: pyad.tensor(v) for k, v in state.items()})
        p_models.append(model)

    torch.manual_seed(0)
    pyad.manual_seed(0)
    random.seed(0)
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # the tiny ops of these tutorials are slower on more threads
    try:
        t_results = module.run(seeded(torch), init=record,
                               log=lambda *a: t_printed.append(a), **options)
    finally:
        torch.set_num_threads(threads)
    random.seed(0)
    p_results = module.run(seeded(pyad), init=restore,
                           log=lambda *a: p_printed.append(a), **options)
    assert len(p_printed) == len(t_printed) > 0
    for k, (p, t) in enumerate(zip(p_printed, t_printed)):
        compare_printed(p, t, rtol, atol, ("print", k))
    assert len(t_results) == len(p_results) > 0
    np.testing.assert_allclose(p_results, t_results, rtol=rtol, atol=atol)
    assert len(p_models) == len(t_models) == len(states)
    for t_model, p_model in zip(t_models, p_models):
        t_state, p_state = t_model.state_dict(), p_model.state_dict()
        assert list(p_state) == list(t_state)
        for key in t_state:
            np.testing.assert_allclose(p_state[key].detach().numpy(),
                                       t_state[key].detach().numpy(),
                                       rtol=weights_rtol, atol=weights_atol, err_msg=key)
    return t_results, p_results, t_printed, p_printed


# -- beginner_source/nlp/pytorch_tutorial.py ------------------------------------------------------

def test_nlp_pytorch_tutorial():
    t, p, printed, _ = twin("nlp_pytorch_tutorial")
    # the gradient of a sum is all ones; the last three flags are True, True, False
    assert printed[18][0].tolist() == [1.0, 1.0, 1.0]
    assert [a[0] for a in printed[-3:]] == [True, True, False]


# -- beginner_source/nlp/deep_learning_tutorial.py ------------------------------------------------

def test_deep_learning_tutorial():
    t, p, _, _ = twin("deep_learning_tutorial")
    assert len(t) == 2 + 4 + 2 + 100 * 4 + 4 + 2


def test_deep_learning_tutorial_few_epochs():
    twin("deep_learning_tutorial", epochs=3)


# -- beginner_source/nlp/word_embeddings_tutorial.py ----------------------------------------------

def test_word_embeddings_tutorial_ngram_and_cbow():
    twin("word_embeddings_tutorial", epochs=3, cbow_epochs=3)


def test_word_embeddings_tutorial_tutorial_epochs():
    # the tutorial's 10 epochs of the N-gram model (1130 steps)
    t, p, printed, _ = twin("word_embeddings_tutorial", cbow=False)
    losses = printed[2][0]
    assert len(losses) == 10 and all(b < a for a, b in zip(losses, losses[1:]))


# -- beginner_source/nlp/sequence_models_tutorial.py ----------------------------------------------

def test_sequence_models_tutorial():
    twin("sequence_models_tutorial", epochs=20)


def test_sequence_models_tutorial_tutorial_epochs():
    # 300 epochs: the tagger learns DET NN V DET NN, as the tutorial says
    t, p, _, _ = twin("sequence_models_tutorial")
    assert p[-5:] == t[-5:] == [0, 1, 2, 0, 1]


# -- beginner_source/nlp/advanced_tutorial.py -----------------------------------------------------

def test_advanced_tutorial_bilstm_crf():
    # the Viterbi paths and scores before and after, every step's negative
    # log-likelihood; init_hidden's randn from the shared stream
    twin("advanced_tutorial", epochs=5)


def test_advanced_tutorial_tutorial_epochs():
    # 300 epochs: the decoded path is the gold one, B I I I O O O B I O O
    t, p, printed, _ = twin("advanced_tutorial", rtol=1e-3, atol=1e-4)
    gold = [0, 1, 1, 1, 2, 2, 2, 0, 1, 2, 2]
    assert printed[-1][0][1] == gold
    assert p[-11:] == t[-11:] == gold


def test_advanced_tutorial_older_text_legacy_tensor_of_a_shape():
    # the older advanced_tutorial text's torch.Tensor(1, self.tagset_size).fill_(-10000.)
    # (the current text, ported, has torch.full)
    init_alphas = pyad.Tensor(1, 5).fill_(-10000.)
    assert init_alphas.shape == (1, 5) and init_alphas.dtype == pyad.float32


def test_older_texts_autograd_variable():
    # the older texts wrap tensors in autograd.Variable: pyad's Variable is its tensor
    for lib in (torch, pyad):
        x = lib.autograd.Variable(lib.tensor([1., 2., 3]), requires_grad=True)
        s = (x + x).sum()
        s.backward()
        assert x.grad.tolist() == [2.0, 2.0, 2.0]


# -- this batch's scripts ---------------------------------------------------------------------

SCRIPTS = ["nlp_pytorch_tutorial", "deep_learning_tutorial", "word_embeddings_tutorial",
           "sequence_models_tutorial", "advanced_tutorial"]


def test_every_script_of_this_batch_is_tested():
    scripts = set(f[:-3] for f in os.listdir(PORTED) if f.endswith(".py"))
    assert set(SCRIPTS) <= scripts
    text = open(__file__).read()
    for name in SCRIPTS:
        assert 'twin("%s"' % name in text, name


@pytest.mark.parametrize("name,expected", [
    ("nlp_pytorch_tutorial", "SumBackward"),
    ("deep_learning_tutorial", "'creo'"),
    ("word_embeddings_tutorial", "'When', 'forty'"),
    ("sequence_models_tutorial", "'Everybody'"),
    ("advanced_tutorial", "[0, 1, 1, 1, 2, 2, 2, 0, 1, 2, 2]")])
def test_scripts_run_as_scripts_on_pyad(name, expected):
    env = dict(os.environ, PYTHONPATH=_helpers.PYAD_HOME, OPENBLAS_NUM_THREADS="1",
               OMP_NUM_THREADS="1")
    proc = subprocess.run([sys.executable, os.path.join(PORTED, name + ".py")],
                          cwd=_helpers.REPO_ROOT, env=env, capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert expected in proc.stdout, proc.stdout
