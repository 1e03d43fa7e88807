"""Ported karpathy/* scripts (examples/ported/, the tenth batch, MIT-licensed): nanoGPT's
``model.py`` with ``train.py``'s loop and ``sample.py``'s generation, makemore's
``makemore.py`` with every model type, minGPT's ``model.py``, ``trainer.py`` and
``utils.py`` with ``demo.ipynb``'s sorting task, and llama2.c's ``model.py`` with
``train.py``'s inner loop. Each runs on torch and on pyad from torch's
initial weights, and every value the scripts print or compute (losses at every step,
learning rates, gradient norms, estimated losses, parameter counts and groups, MFU,
sampled ids and words, the dataset split, logits, final weights) is compared with
torch's.

The random draws inside the scripts (``get_batch``'s ``randint``, ``randperm``'s split,
``RandomSampler(replacement=True)``, the shuffling ``DataLoader``, ``multinomial``
sampling, dropout masks) come from one NumPy stream through a namespace proxy, so that
both runs see the same batches and draws; ``multinomial`` draws by the inverse CDF of a
shared uniform number, so both frameworks pick the same id from their (float32-close)
probabilities. Greedy (``topk`` k=1) and top-1 generation run on each framework's own
``multinomial``.
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

# nanoGPT's train.py builds torch.cuda.amp.GradScaler (deprecated in torch 2.4);
# makemore's InfiniteDataLoader asks for pin_memory without an accelerator
pytestmark = [pytest.mark.filterwarnings("ignore:`torch.cuda.amp.GradScaler"),
              pytest.mark.filterwarnings("ignore:'pin_memory' argument is set as true")]

_HERE = os.path.dirname(os.path.abspath(__file__))


def _module(name):
    spec = importlib.util.spec_from_file_location("_ported_helpers10_" + name,
                                                  os.path.join(_HERE, name + ".py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_helpers = _module("test_ported_examples")
load, Proxy, seeded = _helpers.load, _helpers.Proxy, _helpers.seeded
PORTED, REPO_ROOT, PYAD_HOME = _helpers.PORTED, _helpers.REPO_ROOT, _helpers.PYAD_HOME

# this batch's scripts (tests/test_ported_examples.py's list names them too)
SCRIPTS = ["nanogpt", "makemore", "llama2c", "mingpt"]


@pytest.fixture(autouse=True)
def _restore_tf32_switches():
    # train.py sets torch.backends.cuda.matmul.allow_tf32 and cudnn.allow_tf32 on the
    # real modules (torch's and pyad's): put them back for the tests that follow
    saved = []
    for lib in (torch, pyad):
        for owner in (getattr(getattr(lib.backends, "cuda", None), "matmul", None),
                      getattr(lib.backends, "cudnn", None)):
            if owner is not None and hasattr(owner, "allow_tf32"):
                saved.append((owner, owner.allow_tf32))
    yield
    for owner, value in saved:
        owner.allow_tf32 = value


def shared(lib, seed=0, multinomial=True, dropout=False, sdpa=True):
    """``lib`` whose ``randint``, ``rand``, ``randperm``, ``RandomSampler``, shuffling ``DataLoader``
    and (``multinomial=True``) ``multinomial`` draw from one NumPy stream; ``dropout``:
    the ``seeded`` proxy's dropout masks; ``sdpa=False``: ``nn.functional`` without
    ``scaled_dot_product_attention`` (nanoGPT's slow-attention branch)."""
    rng = np.random.default_rng(seed)
    base = seeded(lib, seed + 1) if dropout else lib

    def randint(*args, size=None, **kw):
        args = list(args)
        if size is None:
            size = args.pop()
        low, high = (0, args[0]) if len(args) == 1 else args
        return lib.tensor(rng.integers(low, high, tuple(size)),
                          dtype=kw.get("dtype") or lib.int64)

    def shared_multinomial(probs, num_samples, replacement=False, generator=None):
        assert num_samples == 1
        p = probs.detach().numpy().astype(np.float64)
        u = rng.random(p.shape[:-1] + (1,)) * p.sum(-1, keepdims=True)
        index = np.minimum((np.cumsum(p, -1) < u).sum(-1, keepdims=True), p.shape[-1] - 1)
        return lib.tensor(index, dtype=lib.int64)

    def rand(*size, **kw):
        if len(size) == 1 and isinstance(size[0], (tuple, list)):
            size = size[0]
        return lib.tensor(rng.random(tuple(size)),
                          dtype=kw.get("dtype") or lib.get_default_dtype())

    def randperm(n, **kw):
        return lib.tensor(rng.permutation(n), dtype=kw.get("dtype") or lib.int64)

    class RandomSampler(lib.utils.data.Sampler):
        def __init__(self, data_source, replacement=False, num_samples=None, generator=None):
            self.n, self.replacement = len(data_source), replacement
            self.num_samples = num_samples if num_samples is not None else self.n

        def __len__(self):
            return self.num_samples

        def __iter__(self):
            if self.replacement:
                for _ in range(self.num_samples // 32):
                    yield from rng.integers(0, self.n, 32).tolist()
            else:
                yield from rng.permutation(self.n).tolist()

    real_loader = lib.utils.data.DataLoader

    def DataLoader(dataset, shuffle=False, **kw):
        if shuffle:
            kw["sampler"] = RandomSampler(dataset)
        return real_loader(dataset, **kw)

    class NoSDPA(Proxy):
        def __getattr__(self, name):
            if name == "scaled_dot_product_attention":
                raise AttributeError(name)
            return super().__getattr__(name)

    overrides = dict(randint=randint, rand=rand, randperm=randperm,
                     utils=Proxy(lib.utils, data=Proxy(lib.utils.data,
                                                       RandomSampler=RandomSampler,
                                                       DataLoader=DataLoader)))
    if multinomial:
        overrides["multinomial"] = shared_multinomial
    if not sdpa:
        functional = NoSDPA(base.nn.functional)
        overrides["nn"] = Proxy(base.nn, functional=functional)
    return Proxy(base, **overrides)


def _quiet(*args):
    pass


def twin(name, wrap=shared, **options):
    """Run ``name``'s ``run`` on torch then on pyad (torch's initial weights); return both
    results and both models."""
    state, models = {}, []

    def record(model):
        state.update({k: v.detach().numpy().copy() for k, v in model.state_dict().items()})
        models.append(model)

    def restore(model):
        assert list(model.state_dict()) == list(state)
        model.load_state_dict({k: pyad.tensor(v) for k, v in state.items()})
        models.append(model)

    torch.manual_seed(0)
    pyad.manual_seed(0)
    module = load(name)
    t_out = module.run(wrap(torch), init=record, log=_quiet, **options)
    p_out = module.run(wrap(pyad), init=restore, log=_quiet, **options)
    return t_out, p_out, models[0], models[1]


def compare_weights(t_model, p_model, rtol=1e-3, atol=1e-5, key_bias_drift=None):
    """Every final weight alike. The key third of ``c_attn.bias`` is the exception: it
    adds ``q . b_k`` to a whole row of scores, which the softmax ignores, so its gradient
    is 0 up to rounding and Adam's step there (about ``lr`` per step, either sign) follows
    each framework's rounding; those entries are only checked to lie within twice
    ``key_bias_drift`` (the sum of the learning rates) of each other. Any weight whose
    gradient happens to be near 0 at some step is in the same position (the float32
    sums' order, NumPy's and torch's, decides the sign Adam steps by): one entry in a
    thousand of a tensor (at least one) may differ by more than the tolerance, and then
    by no more than that bound (a wrong gradient moves far more entries)."""
    t_state, p_state = t_model.state_dict(), p_model.state_dict()
    assert list(p_state) == list(t_state)
    for name in t_state:
        assert tuple(p_state[name].shape) == tuple(t_state[name].shape), name
        t_value = t_state[name].detach().numpy()
        p_value = p_state[name].detach().numpy()
        if name.endswith("attn.c_attn.bias"):
            C = t_value.shape[0] // 3
            assert np.abs(p_value[C:2 * C] - t_value[C:2 * C]).max() <= 2 * key_bias_drift
            t_value = np.concatenate([t_value[:C], t_value[2 * C:]])
            p_value = np.concatenate([p_value[:C], p_value[2 * C:]])
        if key_bias_drift is not None:
            off = ~np.isclose(p_value, t_value, rtol=rtol, atol=atol)
            if off.any():
                assert off.sum() <= max(1, off.size // 1000), (name, int(off.sum()))
                assert np.abs(p_value - t_value)[off].max() <= 2 * key_bias_drift, name
                continue
        np.testing.assert_allclose(p_value, t_value, rtol=rtol, atol=atol, err_msg=name)


# -- karpathy/nanoGPT: model.py, train.py, sample.py ----------------------------------------

_NANOGPT_EXACT = ["lrs", "samples", "texts", "n_params", "state_keys", "groups", "mfu_1s"]


def _compare_nanogpt(t, p):
    assert list(p) == list(t)
    for name in _NANOGPT_EXACT:
        assert p[name] == t[name], (name, p[name], t[name])
    assert len(p["losses"]) == len(t["losses"]) > 0
    np.testing.assert_allclose(p["losses"], t["losses"], rtol=2e-4, atol=2e-5)
    np.testing.assert_allclose(p["eval"], t["eval"], rtol=2e-4, atol=2e-5)
    np.testing.assert_allclose(p["best_val_loss"], t["best_val_loss"], rtol=2e-4, atol=2e-5)
    np.testing.assert_allclose(p["norms"], t["norms"], rtol=2e-4, atol=2e-5)
    assert p["logits"].shape == t["logits"].shape == (1, 1, t["logits"].shape[-1])
    np.testing.assert_allclose(p["logits"], t["logits"], rtol=1e-3, atol=2e-5)


def test_nanogpt():
    # flash branch (F.scaled_dot_product_attention), bias=False, a model built with
    # block_size 32 and cropped to 16 (crop_block_size), gradient accumulation over 2
    # micro-steps, clipping, the cosine schedule through warmup, decay and min_lr, and
    # sample.py's two samples at temperature 0.8, top_k 5
    t, p, t_model, p_model = twin("nanogpt", model_block_size=32)
    _compare_nanogpt(t, p)
    compare_weights(t_model, p_model)
    assert len(t["losses"]) == 7 and len(t["eval"]) == 3


def test_nanogpt_slow_attention_with_dropout_and_bias():
    # the namespace without scaled_dot_product_attention: the manual masked softmax with
    # the tril "bias" buffer (cropped by crop_block_size); dropout 0.1 with shared masks;
    # bias=True Linears and LayerNorms
    t, p, t_model, p_model = twin(
        "nanogpt", wrap=lambda lib: shared(lib, dropout=True, sdpa=False),
        model_block_size=32, dropout=0.1, bias=True)
    _compare_nanogpt(t, p)
    compare_weights(t_model, p_model, key_bias_drift=sum(t["lrs"]))
    assert "transformer.h.0.attn.bias" in t["state_keys"]
    assert tuple(p_model.transformer.h[0].attn.bias.shape) == (1, 1, 16, 16)
    assert not p_model.transformer.h[0].attn.flash


def test_nanogpt_top1_generation_on_each_frameworks_multinomial():
    # top_k=1 leaves one id of probability 1: each framework's own multinomial picks it
    t, p, _, _ = twin("nanogpt", wrap=lambda lib: shared(lib, multinomial=False),
                      top_k=1, max_iters=3, num_samples=2, max_new_tokens=24)
    _compare_nanogpt(t, p)
    assert t["samples"][0] == t["samples"][1]  # greedy: both samples alike


def test_nanogpt_eval_only_and_constant_lr():
    t, p, _, _ = twin("nanogpt", eval_only=True, max_new_tokens=4)
    assert t["losses"] == p["losses"] == [] and len(t["eval"]) == 1
    np.testing.assert_allclose(p["eval"], t["eval"], rtol=2e-4, atol=2e-5)
    assert p["samples"] == t["samples"]
    t, p, t_model, p_model = twin("nanogpt", decay_lr=False, grad_clip=0.0,
                                  gradient_accumulation_steps=1, max_iters=4)
    assert t["lrs"] == p["lrs"] == [1e-3] * 5
    assert "norms" not in p
    np.testing.assert_allclose(p["losses"], t["losses"], rtol=2e-4, atol=2e-5)
    compare_weights(t_model, p_model)


def test_nanogpt_values_are_the_scripts():
    # hand math on torch's run: what each line of the text computes
    t, _, t_model, p_model = twin("nanogpt", model_block_size=32)
    lr, wu, decay_iters, min_lr = 1e-3, 2, 5, 1e-4
    expected = []
    for it in range(7):
        if it < wu:
            expected.append(lr * (it + 1) / (wu + 1))
        elif it > decay_iters:
            expected.append(min_lr)
        else:
            ratio = (it - wu) / (decay_iters - wu)
            expected.append(min_lr + 0.5 * (1.0 + math.cos(math.pi * ratio)) * (lr - min_lr))
    np.testing.assert_allclose(t["lrs"], expected, rtol=1e-12)
    # parameters: the tied wte/lm_head counted once; wpe subtracted unless asked
    V, C, L, T = t_model.config.vocab_size, 32, 2, 16
    per_layer = 2 * C + C * 3 * C + C * C + C * 4 * C + 4 * C * C
    total = V * C + T * C + L * per_layer + C
    assert t["n_params"] == (total - T * C, total)
    # decay: wte (= lm_head), wpe and four matrices per layer; no decay: the LayerNorms
    assert t["groups"] == [(2 + 4 * L, 0.1), (2 * L + 1, 0.0)]
    N = total - T * C
    flops = (6 * N + 12 * L * 4 * (C // 4) * T) * T * 4 * 2
    np.testing.assert_allclose(t["mfu_1s"], flops / 312e12, rtol=1e-12)
    assert all(s[0] == 0 and len(s) == 21 for s in t["samples"])  # "\n" is id 0
    # weight tying held through training in both frameworks
    assert t_model.transformer.wte.weight is t_model.lm_head.weight
    assert p_model.transformer.wte.weight is p_model.lm_head.weight
    assert isinstance(p_model.transformer.wpe.weight, pyad.nn.Parameter)
    assert tuple(p_model.transformer.wpe.weight.shape) == (16, 32)


def test_nanogpt_tf32_switches_are_set():
    # train.py's torch.backends.cuda.matmul.allow_tf32 / cudnn.allow_tf32 lines (the
    # fixture puts the defaults back)
    pyad.backends.cuda.matmul.allow_tf32 = False
    pyad.backends.cudnn.allow_tf32 = False
    load("nanogpt").run(shared(pyad), max_iters=0, eval_interval=1, max_new_tokens=1,
                        log=_quiet)
    assert pyad.backends.cuda.matmul.allow_tf32 is True
    assert pyad.backends.cudnn.allow_tf32 is True


# -- karpathy/makemore: makemore.py ---------------------------------------------------------

_MAKEMORE_EXACT = ["samples", "saved", "split", "first_item", "n_params", "greedy"]


def _compare_makemore(t, p):
    assert list(p) == list(t)
    for name in _MAKEMORE_EXACT:
        assert p[name] == t[name], (name, p[name], t[name])
    assert len(p["losses"]) == len(t["losses"]) > 0
    np.testing.assert_allclose(p["losses"], t["losses"], rtol=2e-4, atol=2e-5)
    np.testing.assert_allclose(p["evals"], t["evals"], rtol=2e-4, atol=2e-5)
    if "reloaded_test_loss" in t:
        np.testing.assert_allclose(p["reloaded_test_loss"], t["reloaded_test_loss"],
                                   rtol=2e-4, atol=2e-5)


@pytest.mark.parametrize("model_type", ["transformer", "bigram", "mlp", "rnn", "gru", "bow"])
def test_makemore(model_type):
    t, p, t_model, p_model = twin("makemore", type=model_type, max_steps=11, eval_every=5,
                                  sample_every=10)
    _compare_makemore(t, p)
    compare_weights(t_model, p_model, key_bias_drift=11 * 5e-3)
    assert len(t["evals"]) == 2 and len(t["samples"]) == 1


def test_makemore_top_k_sampling():
    t, p, t_model, p_model = twin("makemore", type="transformer", top_k=3, max_steps=7,
                                  eval_every=3, sample_every=3)
    _compare_makemore(t, p)
    compare_weights(t_model, p_model, key_bias_drift=7 * 5e-3)
    assert len(t["samples"]) == 2


def test_makemore_values_are_the_scripts():
    # hand math on torch's run
    t, _, t_model, _ = twin("makemore", type="bigram", max_steps=3, eval_every=1,
                            sample_every=100)
    train_words, test_words = t["split"]
    words = load("makemore").synthetic_words(120)
    assert len(test_words) == 12 and sorted(train_words + test_words) == words
    chars = sorted(set("".join(words)))
    vocab_size, max_len = len(chars) + 1, max(len(w) for w in words)
    # the Bigram's zero table: every next character equally likely
    np.testing.assert_allclose(t["losses"][0], math.log(vocab_size), rtol=1e-6)
    assert t["n_params"] == vocab_size ** 2
    # CharDataset: <START> 0, the word's ids, <STOP> 0, then -1 (masked) targets
    x, y = t["first_item"]
    ids = [chars.index(c) + 1 for c in train_words[0]]
    assert x == [0] + ids + [0] * (max_len - len(ids))
    assert y == ids + [0] + [-1] * (max_len - len(ids))
    # greedy generation: each row the same (argmax of one table row after another)
    assert t["greedy"][0] == t["greedy"][1] == t["greedy"][2]
    assert len(t["greedy"][0]) == max_len + 1


def test_makemore_on_pyads_own_generators():
    # no proxy: pyad's randperm, RandomSampler(replacement=True, num_samples=int(1e10)),
    # shuffling DataLoader and multinomial
    out = load("makemore").run(pyad, type="gru", max_steps=6, eval_every=3, sample_every=5,
                               log=_quiet)
    train_words, test_words = out["split"]
    assert sorted(train_words + test_words) == load("makemore").synthetic_words(120)
    assert len(out["losses"]) == 6 and all(np.isfinite(out["losses"]))
    assert out["losses"][-1] < out["losses"][0]
    assert sum(len(s) for s in out["samples"][0]) == 10


# -- karpathy/llama2.c: model.py, train.py's inner loop --------------------------------------

_LLAMA_EXACT = ["lrs", "state_keys", "n_params", "hidden_dim", "groups", "mfu_1s", "greedy",
                "sampled"]


def _compare_llama(t, p):
    assert list(p) == list(t)
    for name in _LLAMA_EXACT:
        assert p[name] == t[name], (name, p[name], t[name])
    assert len(p["losses"]) == len(t["losses"]) > 0
    np.testing.assert_allclose(p["losses"], t["losses"], rtol=2e-4, atol=2e-5)
    np.testing.assert_allclose(p["norms"], t["norms"], rtol=2e-4, atol=2e-5)
    np.testing.assert_allclose(p["logits"], t["logits"], rtol=1e-3, atol=2e-5)


def test_llama2c():
    # scaled_dot_product_attention(is_causal=True), grouped multi-query attention (4
    # heads, 2 key/value heads: repeat_kv), RoPE, RMSNorm, SwiGLU; greedy (temperature 0,
    # topk) and top-k sampled generation
    t, p, t_model, p_model = twin("llama2c")
    _compare_llama(t, p)
    compare_weights(t_model, p_model)


def test_llama2c_manual_attention_with_dropout():
    # the namespace without scaled_dot_product_attention: the full/triu -inf mask buffer
    # added to the scores; dropout 0.1 (shared masks); one key/value head per query head
    t, p, t_model, p_model = twin(
        "llama2c", wrap=lambda lib: shared(lib, dropout=True, sdpa=False), dropout=0.1,
        n_kv_heads=None, top_k=None)
    _compare_llama(t, p)
    compare_weights(t_model, p_model)
    assert "layers.0.attention.mask" in t["state_keys"]
    mask = p_model.layers[0].attention.mask.numpy()[0, 0]
    np.testing.assert_array_equal(mask, np.triu(np.full((16, 16), -np.inf), 1) +
                                  np.tril(np.zeros((16, 16))))


def test_llama2c_values_are_the_scripts():
    t, _, t_model, p_model = twin("llama2c")
    # lr: linear warmup from 0, cosine decay, min_lr
    expected = [0.0, 5e-4, 1e-3]
    for it in range(3, 7):
        if it > 5:
            expected.append(1e-4)
        else:
            ratio = (it - 2) / 3
            expected.append(1e-4 + 0.5 * (1 + math.cos(math.pi * ratio)) * (1e-3 - 1e-4))
    np.testing.assert_allclose(t["lrs"], expected, rtol=1e-12)
    # SwiGLU width: 2/3 of 4 * dim, rounded up to a multiple of 32
    assert t["hidden_dim"] == 32 * math.ceil(int(2 * 4 * 32 / 3) / 32) == 96
    # the RoPE tables are not persistent; the tied embedding counted once
    assert not any("freqs" in k for k in t["state_keys"])
    dim, kv, H, L, V = 32, 2 * 8, 96, 2, 30
    per_layer = dim * dim + 2 * dim * kv + dim * dim + 3 * dim * H + 2 * dim
    assert t["n_params"] == V * dim + L * per_layer + dim
    assert t["groups"] == [(1 + 7 * L, 0.1), (2 * L + 1, 0.0)]
    assert p_model.tok_embeddings.weight is p_model.output.weight
    # the prompts are the first batch's x[:, :9]; greedy and sampled continuations keep them
    assert all(len(row) == 9 + 10 for row in t["greedy"] + t["sampled"])
    assert [row[:9] for row in t["greedy"]] == [row[:9] for row in t["sampled"]]


def test_llama2c_rope_rmsnorm_and_repeat_kv_are_the_hand_math():
    # NumPy hand math: apply_rotary_emb multiplies each (even, odd) pair by
    # exp(i * pos * theta**(-2k/d)); repeat_kv is repeat_interleave on dim 2; RMSNorm
    # divides by the root mean square
    m = load("llama2c").build(pyad, log=_quiet)
    cos, sin = m.precompute_freqs_cis(8, 6)
    freqs = np.outer(np.arange(6), 1.0 / 10000.0 ** (np.arange(0, 8, 2) / 8))
    np.testing.assert_allclose(cos.numpy(), np.cos(freqs), rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(sin.numpy(), np.sin(freqs), rtol=1e-6, atol=1e-6)
    rng = np.random.default_rng(0)
    xq = rng.standard_normal((2, 6, 2, 8)).astype(np.float32)
    xk = rng.standard_normal((2, 6, 1, 8)).astype(np.float32)
    q, k = m.apply_rotary_emb(pyad.tensor(xq), pyad.tensor(xk), cos, sin)
    rot = np.exp(1j * freqs)[None, :, None, :]
    for out, x in ((q, xq), (k, xk)):
        assert out.dtype == pyad.float32 and tuple(out.shape) == x.shape
        z = (x[..., 0::2] + 1j * x[..., 1::2]) * rot
        expect = np.stack([z.real, z.imag], -1).reshape(x.shape)
        np.testing.assert_allclose(out.numpy(), expect, rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(m.repeat_kv(pyad.tensor(xk), 3).numpy(),
                                  np.repeat(xk, 3, axis=2))
    norm = m.RMSNorm(8, eps=1e-5)
    x = rng.standard_normal((3, 8)).astype(np.float32)
    np.testing.assert_allclose(norm(pyad.tensor(x)).detach().numpy(),
                               x / np.sqrt((x ** 2).mean(-1, keepdims=True) + 1e-5),
                               rtol=1e-5, atol=1e-6)


def test_llama2c_complex_rope_matches_torch_and_the_real_rope():
    # the earlier revision's polar/view_as_complex RoPE: values and gradients against
    # torch's, and equal to the reshape/unbind version
    rng = np.random.default_rng(1)
    xq = rng.standard_normal((2, 6, 4, 8)).astype(np.float32)
    xk = rng.standard_normal((2, 6, 2, 8)).astype(np.float32)
    weights = rng.standard_normal((2, 6, 4, 8)).astype(np.float32)
    out = {}
    for lib in (torch, pyad):
        m = load("llama2c").build(lib, log=_quiet)
        q, k = lib.tensor(xq, requires_grad=True), lib.tensor(xk, requires_grad=True)
        freqs_cis = m.precompute_freqs_cis_complex(8, 6)
        assert freqs_cis.dtype == lib.complex64
        q_out, k_out = m.apply_rotary_emb_complex(q, k, freqs_cis)
        ((q_out * lib.tensor(weights)).sum() + (k_out ** 2).sum()).backward()
        cos, sin = m.precompute_freqs_cis(8, 6)
        q_real, k_real = m.apply_rotary_emb(lib.tensor(xq), lib.tensor(xk), cos, sin)
        out[lib.__name__] = [v.detach().numpy() for v in (q_out, k_out, q.grad, k.grad,
                                                          q_real, k_real)]
    for t_value, p_value in zip(out["torch"], out["pyad"]):
        np.testing.assert_allclose(p_value, t_value, rtol=1e-5, atol=1e-6)
    p_q, p_k, _, _, p_q_real, p_k_real = out["pyad"]
    np.testing.assert_allclose(p_q, p_q_real, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(p_k, p_k_real, rtol=1e-5, atol=1e-6)


# -- karpathy/minGPT: mingpt/model.py, trainer.py, utils.py, demo.ipynb -----------------------

_MINGPT_EXACT = ["iters", "mistakes", "example", "config", "config_str", "groups", "scores",
                 "given"]


def _compare_mingpt(t, p):
    assert list(p) == list(t)
    for name in _MINGPT_EXACT:
        assert p[name] == t[name], (name, p[name], t[name])
    assert len(p["losses"]) == len(t["losses"]) > 0
    np.testing.assert_allclose(p["losses"], t["losses"], rtol=2e-4, atol=2e-5)


def test_mingpt():
    # the notebook's gpt-nano (3 layers, 3 heads, 48 channels) with its dropout 0.1
    # (shared masks), the Trainer's infinite RandomSampler, greedy eval_split on both splits
    t, p, t_model, p_model = twin("mingpt", wrap=lambda lib: shared(lib, dropout=True))
    _compare_mingpt(t, p)
    compare_weights(t_model, p_model, key_bias_drift=8 * 5e-4)
    assert len(t["losses"]) == 8 and t["iters"] == [0, 2, 4, 6]


def test_mingpt_explicit_sizes_and_sampled_eval():
    # model_type=None with n_layer/n_head/n_embd (the XOR branch); eval_split sampling with
    # do_sample=True, top_k=2 (shared multinomial); two eval batches
    t, p, t_model, p_model = twin("mingpt", wrap=lambda lib: shared(lib, dropout=True),
                                  model_type=None, n_layer=2, n_head=4, n_embd=32,
                                  do_sample=True, top_k=2, max_batches=2, max_iters=6)
    _compare_mingpt(t, p)
    compare_weights(t_model, p_model, key_bias_drift=6 * 5e-4)


def test_mingpt_values_are_the_scripts():
    t, _, t_model, _ = twin("mingpt", wrap=lambda lib: shared(lib, dropout=True))
    # configure_optimizers: Linear weights decay (4 per block and lm_head); biases,
    # LayerNorm and Embedding weights do not
    L = t["config"]["n_layer"]
    assert (t["config"]["n_head"], t["config"]["n_embd"]) == (3, 48) and L == 3
    assert t["groups"] == [(4 * L + 1, 0.1), (8 * L + 4, 0.0)]
    # SortDataset: the first 6 ids are the problem, the targets its sorted copy
    x, y = t["example"]
    assert len(x) == len(y) == 11 and y[:5] == [-1] * 5
    assert y[5:] == sorted(x[:6]) and x[6:] == y[5:10]
    assert t["given"][1] == [0, 0, 0, 1, 1, 2]
    assert 0 <= t["scores"][0] <= 20 and 0 <= t["scores"][1] <= 20
    assert "n_layer: 3\n" in t["config_str"]


def test_every_script_of_this_batch_is_tested():
    assert set(SCRIPTS) <= set(f[:-3] for f in os.listdir(PORTED) if f.endswith(".py"))
    source = open(os.path.abspath(__file__)).read()
    for name in SCRIPTS:
        assert 'twin("%s"' % name in source, name


@pytest.mark.parametrize("name,expected", [("nanogpt", "iter 6: loss"),
                                           ("makemore", "test loss"),
                                           ("llama2c", "greedy:"),
                                           ("mingpt", "matches         :")])
def test_scripts_run_as_scripts_on_pyad(name, expected):
    env = dict(os.environ, PYTHONPATH=PYAD_HOME, OPENBLAS_NUM_THREADS="1",
               OMP_NUM_THREADS="1")
    proc = subprocess.run([sys.executable, os.path.join(PORTED, name + ".py")],
                          cwd=REPO_ROOT, env=env, capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert expected in proc.stdout, proc.stdout
