"""Ported bentrevett/pytorch-seq2seq notebooks (1 to 6) (examples/ported/bentrevett_*.py, MIT,
Copyright (c) 2018 Ben Trevett) and bentrevett/pytorch-sentiment-analysis notebooks (MIT,
Copyright (c) 2017 Ben Trevett).

Each script runs on torch and on pyad from torch's initial weights (every model it passes
to ``init``), on synthetic vocabularies and seeded integer sentences of the notebooks'
shapes (torchtext, spaCy and the data sets are not available), for a few tiny batches.
Compared: the loss of every batch, every value the notebook computes or prints (epoch
losses and perplexities, parameter counts, translations, attention weights,
predictions), the lines it logs (numbers to float32 tolerance, the epoch wall time
masked) and every model's final weights. Python's ``random`` (teacher forcing) and
``np.random`` (the data) are seeded by the notebooks' own seed cells; dropout masks come
from the ``seeded`` proxy's NumPy stream (the LSTMs' dropout between layers is torch's
own generator, so the multi-layer runs have dropout 0).
"""
import importlib.util
import os
import re

import numpy as np
import pytest

import pyad

torch = pytest.importorskip("torch")

pytestmark = [
    # nn.LSTM(..., dropout=0.5) of one layer
    pytest.mark.filterwarnings("ignore:dropout option adds dropout after all but last"),
]

_HERE = os.path.dirname(os.path.abspath(__file__))


def _module(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_helpers = _module(os.path.join(_HERE, "test_ported_examples.py"), "_ported_helpers24")
load, Proxy, seeded = _helpers.load, _helpers.Proxy, _helpers.seeded

_NUMBER = re.compile(r"-?\d+\.\d*(?:e[-+]?\d+)?")
_TIME = re.compile(r"Time: \d+m \d+s")


def _same(p, t, rtol, atol, what):
    if isinstance(t, str):
        assert p == t, (what, p, t)
    elif isinstance(t, (list, tuple)):
        assert isinstance(p, (list, tuple)) and len(p) == len(t), (what, p, t)
        for i, (a, b) in enumerate(zip(p, t)):
            _same(a, b, rtol, atol, f"{what}[{i}]")
    else:
        t = np.asarray(t)
        p = np.asarray(p)
        assert p.shape == t.shape, (what, p.shape, t.shape)
        np.testing.assert_allclose(p, t, rtol=rtol, atol=atol, err_msg=what)


def twin(name, tmp_path, wrap=None, rtol=2e-4, atol=2e-5, weights_rtol=1e-3,
         weights_atol=1e-5, zero_grad_entries=(), lr_sum=None, reinit=None, **options):
    """Run ``name``'s ``run`` on torch then on pyad; compare everything (see above).

    ``zero_grad_entries`` name (the ends of the names of) the weights whose gradient is 0
    in exact arithmetic (a bias that shifts every score of a softmax alike): Adam's step
    there follows each framework's rounding, so they are only checked to stay within
    ``lr_sum`` (the sum of the learning rates of all steps) of each other. ``reinit``
    (a function of a torch model) redraws torch's initial weights before they are
    recorded (and copied into pyad's model)."""
    module = load(name)
    states, t_models, p_models = [], [], []

    def record(model):
        if reinit is not None:
            reinit(model)
        states.append({k: v.detach().numpy().copy() for k, v in model.state_dict().items()})
        t_models.append(model)

    def restore(model):
        state = states[len(p_models)]
        assert list(model.state_dict()) == list(state)
        model.load_state_dict({k: pyad.tensor(v) for k, v in state.items()})
        p_models.append(model)

    runs = []
    for lib, init, sub in ((torch, record, "torch"), (pyad, restore, "pyad")):
        logged = []
        workdir = tmp_path / sub
        workdir.mkdir()
        results = module.run(lib if wrap is None else wrap(lib), init=init,
                             log=lambda *a: logged.append(" ".join(str(x) for x in a)),
                             workdir=str(workdir), **options)
        runs.append((results, logged))
    (t_results, t_logged), (p_results, p_logged) = runs
    assert len(p_models) == len(t_models) == len(states) > 0
    assert len(p_results) == len(t_results) > 0
    _same(p_results, t_results, rtol, atol, name)
    for t_model, p_model in zip(t_models, p_models):
        t_state, p_state = t_model.state_dict(), p_model.state_dict()
        assert list(p_state) == list(t_state)
        for key in t_state:
            p_w, t_w = p_state[key].detach().numpy(), t_state[key].detach().numpy()
            if key.endswith(tuple(zero_grad_entries)):
                assert np.abs(p_w - t_w).max() <= lr_sum, key
                continue
            np.testing.assert_allclose(p_w, t_w, rtol=weights_rtol, atol=weights_atol,
                                       err_msg=key)
    assert len(p_logged) == len(t_logged) > 0
    for t, p in zip(t_logged, p_logged):
        t, p = _TIME.sub("Time: #", t), _TIME.sub("Time: #", p)
        assert _NUMBER.sub("#", p) == _NUMBER.sub("#", t), (p, t)
        np.testing.assert_allclose([float(x) for x in _NUMBER.findall(p)],
                                   [float(x) for x in _NUMBER.findall(t)],
                                   rtol=rtol, atol=atol, err_msg=t)
    return t_results, t_logged


SEQ2SEQ_TINY = dict(input_dim=24, output_dim=20, enc_emb_dim=12, dec_emb_dim=12,
                    hid_dim=16, batch_size=8, n_train=24, n_valid=8, n_test=8,
                    n_epochs=2)


def test_seq2seq_two_layers(tmp_path):
    # two LSTM layers: the dropout between them is each framework's own generator, so 0
    results, logged = twin("bentrevett_seq2seq", tmp_path, n_layers=2, enc_dropout=0.0,
                           dec_dropout=0.0, **SEQ2SEQ_TINY)
    # hand count: embeddings, two LSTM layers (4 gates, two biases), the Linear head
    e, h, v_in, v_out = 12, 16, 24, 20
    lstm = 4 * h * (e + h) + 8 * h + 4 * h * (h + h) + 8 * h
    assert results[0] == v_in * e + v_out * e + 2 * lstm + h * v_out + v_out
    assert len(results) == 1 + 2 * 3 + 2 + 1
    assert logged[0] == f"The model has {results[0]:,} trainable parameters"
    assert logged[-1].startswith("| Test Loss: ")


def test_seq2seq_dropout(tmp_path):
    # one layer: nn.Dropout's masks from the seeded proxy's NumPy stream
    results, _ = twin("bentrevett_seq2seq", tmp_path, wrap=seeded, n_layers=1,
                      **SEQ2SEQ_TINY)
    assert len(results) == 1 + 2 * 3 + 2 + 1


def test_seq2seq_verbatim_data(tmp_path):
    # nn.init.uniform_(param.data, ...): pyad's init fills the array in place
    twin("bentrevett_seq2seq", tmp_path, wrap=seeded, verbatim_data=True, n_layers=1,
         **SEQ2SEQ_TINY)


def test_seq2seq_verbatim_data_runs_on_torch(tmp_path):
    module = load("bentrevett_seq2seq")
    results = module.run(torch, verbatim_data=True, log=lambda *a: None,
                         workdir=str(tmp_path), n_layers=1, **SEQ2SEQ_TINY)
    assert np.isfinite(results[-1])


GRU_TINY = dict(input_dim=24, output_dim=20, enc_emb_dim=12, dec_emb_dim=12, hid_dim=16,
                batch_size=8, n_train=24, n_valid=8, n_test=8, n_epochs=2)


def test_gru_context(tmp_path):
    results, logged = twin("bentrevett_gru", tmp_path, wrap=seeded, **GRU_TINY)
    e, h, v_in, v_out = 12, 16, 24, 20
    gru = lambda i, hid: 3 * hid * (i + hid) + 6 * hid  # noqa: E731
    assert results[0] == (v_in * e + gru(e, h) + v_out * e + gru(e + h, h)
                          + (e + 2 * h) * v_out + v_out)
    assert len(results) == 1 + 2 * 3 + 2 + 1
    assert logged[-1].startswith("| Test Loss: ")


def test_gru_context_verbatim_data(tmp_path):
    twin("bentrevett_gru", tmp_path, wrap=seeded, verbatim_data=True, **GRU_TINY)


ATTENTION_TINY = dict(input_dim=24, output_dim=20, enc_emb_dim=12, dec_emb_dim=12,
                      enc_hid_dim=16, dec_hid_dim=16, batch_size=8, n_train=24,
                      n_valid=8, n_test=8, n_epochs=2)


def test_attention(tmp_path):
    results, logged = twin("bentrevett_attention", tmp_path, wrap=seeded,
                           **ATTENTION_TINY)
    e, h, v_in, v_out = 12, 16, 24, 20
    gru = lambda i, hid: 3 * hid * (i + hid) + 6 * hid  # noqa: E731
    count = (v_in * e + 2 * gru(e, h) + 2 * h * h + h  # encoder (bidirectional) and fc
             + (3 * h) * h + h + h                      # attention's attn and v
             + v_out * e + gru(2 * h + e, h)            # decoder's embedding and GRU
             + (3 * h + e) * v_out + v_out)             # fc_out
    assert results[0] == count
    assert len(results) == 1 + 2 * 3 + 2 + 1 + 1
    attentions = results[-1]
    assert len(attentions) > 0
    for a in attentions:
        np.testing.assert_allclose(a.sum(1), 1.0, rtol=1e-5)


def test_attention_from_wider_weights(tmp_path):
    # the notebook's N(0, 0.01) weights make every attention row uniform to 1e-7, so
    # this run starts both frameworks from weights drawn uniform on [-0.5, 0.5] by NumPy:
    # the attention weights, losses and final weights still agree
    rng = np.random.default_rng(7)

    def reinit(model):
        with torch.no_grad():
            for p in model.parameters():
                p.copy_(torch.tensor(rng.uniform(-0.5, 0.5, tuple(p.shape)),
                                     dtype=p.dtype))

    results, _ = twin("bentrevett_attention", tmp_path, wrap=seeded, reinit=reinit,
                      **ATTENTION_TINY)
    attentions = results[-1]
    spread = max(float(a.max() - a.min()) for a in attentions)
    assert spread > 0.05, spread  # no longer uniform
    for a in attentions:
        np.testing.assert_allclose(a.sum(1), 1.0, rtol=1e-5)


def test_attention_verbatim_data(tmp_path):
    twin("bentrevett_attention", tmp_path, wrap=seeded, verbatim_data=True,
         **ATTENTION_TINY)


SENTIMENT_TINY = dict(vocab_size=50, embedding_dim=12, batch_size=16, max_length=20,
                      n_train=48, n_test=16, n_epochs=2, shuffle=False)


def _check_sentiment(results, logged, n_params):
    # the parameter count, 3 + 3 batch losses, each epoch's metrics, the test loss and
    # accuracy, four predictions
    assert results[0] == n_params
    assert logged[0] == f"The model has {n_params:,} trainable parameters"
    assert len(results) == 1 + 2 * 3 + 1 + 1 + 4
    train_losses, train_accs, valid_losses, valid_accs = results[7]
    np.testing.assert_allclose(train_losses, [np.mean(results[1:4]), np.mean(results[4:7])],
                               rtol=1e-12)
    for acc in train_accs + valid_accs + [results[8][1]]:
        assert 0.0 <= acc <= 1.0
    for predicted_class, probability in results[9:]:
        assert predicted_class in (0, 1) and 0.5 <= probability <= 1.0
    assert logged[-1].startswith("test_loss: ")


def test_nbow(tmp_path):
    results, logged = twin("bentrevett_nbow", tmp_path, **SENTIMENT_TINY)
    _check_sentiment(results, logged, 50 * 12 + 12 * 2 + 2)


def _lstm_params(e, h, layers, v=50):
    count, size = v * e, e
    for _ in range(layers):
        count += 2 * (4 * h * (size + h) + 8 * h)  # two directions
        size = 2 * h
    return count + 2 * h * 2 + 2


def test_lstm_packed_bidirectional_two_layers(tmp_path):
    # two LSTM layers: the dropout between them is each framework's own generator, so 0
    results, logged = twin("bentrevett_lstm", tmp_path, hidden_dim=16, n_layers=2,
                           dropout_rate=0.0, **SENTIMENT_TINY)
    _check_sentiment(results, logged, _lstm_params(12, 16, 2))


def test_lstm_dropout(tmp_path):
    # one layer: nn.Dropout's masks from the seeded proxy's NumPy stream
    results, logged = twin("bentrevett_lstm", tmp_path, wrap=seeded, hidden_dim=16,
                           n_layers=1, dropout_rate=0.5, **SENTIMENT_TINY)
    _check_sentiment(results, logged, _lstm_params(12, 16, 1))


def test_cnn(tmp_path):
    results, logged = twin("bentrevett_cnn", tmp_path, wrap=seeded, n_filters=8,
                           **SENTIMENT_TINY)
    e, f = 12, 8
    _check_sentiment(results, logged,
                     50 * e + sum(f * e * k + f for k in (3, 5, 7)) + 3 * f * 2 + 2)


PACKED_TINY = dict(input_dim=24, output_dim=20, enc_emb_dim=12, dec_emb_dim=12,
                   enc_hid_dim=16, dec_hid_dim=16, batch_size=8, n_train=24, n_valid=16,
                   n_test=20, n_epochs=2)


def _wider(seed):
    """Torch's initial weights redrawn uniform on [-0.5, 0.5] by NumPy (the notebooks'
    N(0, 0.01) make every attention row uniform and every greedy translation '<eos>')."""
    rng = np.random.default_rng(seed)

    def reinit(model):
        with torch.no_grad():
            for p in model.parameters():
                p.copy_(torch.tensor(rng.uniform(-0.5, 0.5, tuple(p.shape)),
                                     dtype=p.dtype))
    return reinit


def test_packed_padded_masking(tmp_path):
    results, logged = twin("bentrevett_packed", tmp_path, wrap=seeded, **PACKED_TINY)
    # the parameter count, 3 + 3 batch losses, 2 epochs' losses, the test loss, three
    # translations with their attention
    assert len(results) == 1 + 6 + 2 + 1 + 6
    assert logged[-1].startswith("predicted trg = ")


def test_packed_padded_masking_from_wider_weights(tmp_path):
    results, logged = twin("bentrevett_packed", tmp_path, wrap=seeded,
                           reinit=_wider(11), **PACKED_TINY)
    translations, attentions = results[-6::2], results[-5::2]
    src_lens = [len(eval(line[len("src = "):])) + 2 for line in logged
                if line.startswith("src = ")]
    assert any(len(t) > 1 for t in translations), translations
    for translation, attention, src_len in zip(translations, attentions, src_lens):
        assert translation[-1] == "<eos>" or len(translation) == 50
        assert attention.shape == (len(translation), 1, src_len)
        np.testing.assert_allclose(attention.sum(-1), 1.0, rtol=1e-5)


CONV_TINY = dict(input_dim=24, output_dim=20, emb_dim=12, hid_dim=16, enc_layers=2,
                 dec_layers=2, batch_size=8, n_train=24, n_valid=8, n_test=8, n_epochs=2)


def test_convseq2seq(tmp_path):
    results, logged = twin("bentrevett_convseq2seq", tmp_path, wrap=seeded, **CONV_TINY)
    e, h, v_in, v_out, k = 12, 16, 24, 20, 3
    linear = lambda i, o: i * o + o  # noqa: E731
    conv = 2 * h * h * k + 2 * h
    encoder = v_in * e + 100 * e + linear(e, h) + linear(h, e) + 2 * conv
    decoder = (v_out * e + 100 * e + linear(e, h) + linear(h, e) + linear(h, e)
               + linear(e, h) + linear(e, v_out) + 2 * conv)
    assert results[0] == encoder + decoder
    # the count, 3 + 3 batch losses, 2 epochs, the test loss, a translation, its attention
    assert len(results) == 1 + 6 + 2 + 1 + 2
    translation, attention = results[-2:]
    src_len = len(eval(logged[-3][len("src = "):])) + 2
    assert attention.shape == (1, len(translation), src_len)
    np.testing.assert_allclose(attention.sum(-1), 1.0, rtol=1e-5)


TRANSFORMER_TINY = dict(input_dim=24, output_dim=20, hid_dim=16, enc_layers=2,
                        dec_layers=2, enc_heads=4, dec_heads=4, enc_pf_dim=32,
                        dec_pf_dim=32, batch_size=8, n_train=24, n_valid=8, n_test=8,
                        n_epochs=2)


def test_transformer(tmp_path):
    # every key projection's bias (fc_k.bias) shifts a whole row of scores alike: its
    # gradient is 0 in exact arithmetic, so Adam's steps there follow each framework's
    # rounding (6 steps of lr 5e-4)
    results, logged = twin("bentrevett_transformer", tmp_path, wrap=seeded,
                           zero_grad_entries=("fc_k.bias",), lr_sum=6 * 5e-4,
                           **TRANSFORMER_TINY)
    h, pf, v_in, v_out = 16, 32, 24, 20
    linear = lambda i, o: i * o + o  # noqa: E731
    attention = 4 * linear(h, h)
    ff = linear(h, pf) + linear(pf, h)
    encoder = v_in * h + 100 * h + 2 * (attention + ff + 2 * 2 * h)
    decoder = v_out * h + 100 * h + 2 * (2 * attention + ff + 3 * 2 * h) + linear(h, v_out)
    assert results[0] == encoder + decoder
    assert len(results) == 1 + 6 + 2 + 1 + 2
    translation, attention = results[-2:]
    src_len = len(eval(logged[-3][len("src = "):])) + 2
    assert attention.shape == (1, 4, len(translation), src_len)
    np.testing.assert_allclose(attention.sum(-1), 1.0, rtol=1e-5)


def test_transformer_verbatim_data(tmp_path):
    twin("bentrevett_transformer", tmp_path, wrap=seeded, verbatim_data=True,
         zero_grad_entries=("fc_k.bias",), lr_sum=6 * 5e-4, **TRANSFORMER_TINY)
