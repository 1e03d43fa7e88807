#!/usr/bin/env python
"""Training-step benchmarks of issue 17: pyad vs torch, same weights, one thread.

    python benchmarks/bench_port.py [--smoke] [--repeat N] [--only lstm,transformer]

* ``lstm``: the word_language_model LSTM step: Embedding(V, 200) -> 2-layer LSTM(200,
  200) -> Linear(200, V), batch 20, sequence 35, cross-entropy, backward,
  ``clip_grad_norm_(0.25)`` and a plain SGD update (what pytorch/examples'
  word_language_model does per batch). V = 10000 (Penn Treebank's vocabulary).
  ``lstm-core`` is the same without the embedding and the decoder (the recurrent part
  alone: its loss is the mean square of the LSTM output).
* ``transformer``: a 2-layer TransformerEncoder (d_model 128, 4 heads, feed-forward 512,
  batch_first) on batch 32, sequence 64, causal mask, loss the mean square of the
  output, backward and an SGD update.

Dropout is 0 so both frameworks compute the same numbers: before timing, the losses and
every parameter's gradient after one step are compared (float32 tolerance). Each cell
is the median over ``--repeat`` steps after warm-up. Build pyad with the normal (-O2)
build to measure, not ``PYAD_FAST_BUILD``.
"""
import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
             "VECLIB_MAXIMUM_THREADS", "NUMEXPR_NUM_THREADS"):
    os.environ[_var] = "1"

import argparse  # noqa: E402
import glob  # noqa: E402
import statistics  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# the in-place build when there is one (as bench_core.py), else the installed pyad
if glob.glob(os.path.join(REPO_ROOT, "pyad", "_engine*.so")) or \
        glob.glob(os.path.join(REPO_ROOT, "pyad", "_engine*.pyd")):
    sys.path.insert(0, REPO_ROOT)

import pyad  # noqa: E402


def _import_torch():
    try:
        import torch
    except Exception:      # pragma: no cover - torch is optional
        return None
    torch.set_num_threads(1)
    try:
        torch.set_num_interop_threads(1)
    except RuntimeError:
        pass
    return torch


def _copy_weights(src, dst, lib):
    """Copy torch module ``src``'s state into ``dst`` (a pyad module)."""
    dst.load_state_dict({k: pyad.tensor(v.detach().numpy().copy())
                         for k, v in src.state_dict().items()})


# -- models, written once against a namespace (torch or pyad) --------------------------


def lstm_lm(lib, vocab, core=False):
    nn = lib.nn

    class LM(nn.Module):
        def __init__(self):
            super().__init__()
            self.encoder = nn.Embedding(vocab, 200)
            self.rnn = nn.LSTM(200, 200, 2)
            self.decoder = nn.Linear(200, vocab)

        def forward(self, tokens, x):
            if core:
                out, _ = self.rnn(x)
                return (out * out).mean()
            out, _ = self.rnn(self.encoder(tokens))
            logits = self.decoder(out)
            return nn.functional.cross_entropy(logits.reshape(-1, vocab), tokens.reshape(-1))
    return LM()


def encoder(lib):
    nn = lib.nn
    layer = nn.TransformerEncoderLayer(128, 4, 512, dropout=0.0, batch_first=True)
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        enc = nn.TransformerEncoder(layer, 2)

    class Enc(nn.Module):
        def __init__(self):
            super().__init__()
            self.enc = enc

        def forward(self, mask, x):
            out = self.enc(x, mask=mask)
            return (out * out).mean()
    return Enc()


def step_fn(lib, model, inputs, clip):
    params = list(model.parameters())

    def step():
        for p in params:
            p.grad = None
        loss = model(*inputs)
        loss.backward()
        if clip:
            lib.nn.utils.clip_grad_norm_(params, 0.25)
        with lib.no_grad():
            for p in params:
                if p.grad is not None:
                    p.add_(p.grad, alpha=-0.1)
        return loss
    return step


def _median_us(fn, repeat, warmup):
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1e6


def _case(name, torch, smoke):
    rng = np.random.default_rng(0)
    if name in ("lstm", "lstm-core"):
        vocab = 500 if smoke else 10000
        L, N = (5, 2) if smoke else (35, 20)
        tokens = rng.integers(0, vocab, (L, N))
        x = rng.standard_normal((L, N, 200)).astype(np.float32)
        torch.manual_seed(0)
        tm = lstm_lm(torch, vocab, name == "lstm-core")
        pm = lstm_lm(pyad, vocab, name == "lstm-core")
        t_in = (torch.tensor(tokens), torch.tensor(x))
        p_in = (pyad.tensor(tokens), pyad.tensor(x))
        clip = True
    else:
        B, L = (2, 6) if smoke else (32, 64)
        x = rng.standard_normal((B, L, 128)).astype(np.float32)
        mask = np.triu(np.full((L, L), -np.inf, dtype=np.float32), 1)
        torch.manual_seed(0)
        tm = encoder(torch)
        pm = encoder(pyad)
        t_in = (torch.tensor(mask), torch.tensor(x))
        p_in = (pyad.tensor(mask), pyad.tensor(x))
        clip = False
    _copy_weights(tm, pm, pyad)
    t_step = step_fn(torch, tm, t_in, clip)
    p_step = step_fn(pyad, pm, p_in, clip)
    # same numbers first: losses of the first step and every gradient
    tl, pl = float(t_step().detach()), float(p_step().detach())
    if not np.isclose(tl, pl, rtol=1e-4, atol=1e-5):
        raise AssertionError("%s: losses differ: torch %r, pyad %r" % (name, tl, pl))
    for (k, tp), (_, pp) in zip(tm.named_parameters(), pm.named_parameters()):
        if tp.grad is None:
            assert pp.grad is None, k
            continue
        np.testing.assert_allclose(pp.grad.data, tp.grad.numpy(), rtol=2e-3, atol=2e-5,
                                   err_msg="%s: %s" % (name, k))
    return p_step, t_step


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--smoke", action="store_true", help="tiny sizes, 2 repeats")
    ap.add_argument("--repeat", type=int, default=15)
    ap.add_argument("--only", default="lstm,lstm-core,transformer")
    args = ap.parse_args(argv)
    torch = _import_torch()
    if torch is None:
        print("torch is not installed: nothing to compare with")
        return 0
    repeat = 2 if args.smoke else args.repeat
    warmup = 1 if args.smoke else 3
    print("%-14s %12s %12s %10s" % ("benchmark", "pyad ms", "torch ms", "pyad/torch"))
    for name in args.only.split(","):
        p_step, t_step = _case(name, torch, args.smoke)
        # interleave the two so that load on the machine hits both alike
        p_us, t_us = [], []
        for _ in range(3):
            p_us.append(_median_us(p_step, max(1, repeat // 3), warmup))
            t_us.append(_median_us(t_step, max(1, repeat // 3), warmup))
        p, t = min(p_us), min(t_us)
        print("%-14s %12.2f %12.2f %9.2fx" % (name, p / 1e3, t / 1e3, p / t))
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
