"""Ported karpathy/nn-zero-to-hero lecture notebooks (examples/ported/zth_*, the fifteenth
batch, MIT License, Copyright (c) 2022 Andrej Karpathy): each notebook's code cells, in
order, are one ``run(torch, words, ...)``, run here on torch and on pyad with the same
synthetic word list (in place of ``names.txt``), and every value the cells compute,
print or display (datasets, losses at every step, manual gradients and autograd's, the
``cmp`` verdicts, the BatchNorm statistics, split losses, samples, final weights) is
compared with torch's.

The notebooks draw from ``torch.Generator().manual_seed(2147483647)`` (``randn``,
``randint``, ``multinomial``) and from the global generator: here both frameworks get
those draws from one shared NumPy stream through a namespace proxy (``zth``), which
ignores the ``generator`` argument; ``multinomial`` picks by the inverse CDF of a shared
uniform number, so both frameworks pick the same id from their float32-close
probabilities.
"""
import importlib.util
import math
import os
import runpy

import numpy as np
import pytest

import pyad

torch = pytest.importorskip("torch")

# part 3's histogram cells format t.mean() of a Variable that requires grad with "%+.2f"
pytestmark = pytest.mark.filterwarnings(
    "ignore:Converting a tensor with requires_grad=True to a scalar")

_HERE = os.path.dirname(os.path.abspath(__file__))


def _module(name):
    spec = importlib.util.spec_from_file_location("_ported_helpers15_" + name,
                                                  os.path.join(_HERE, name + ".py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_helpers = _module("test_ported_examples")
load, Proxy, PORTED = _helpers.load, _helpers.Proxy, _helpers.PORTED

# this batch's scripts (tests/test_ported_examples.py's list names them too)
SCRIPTS = ["zth_part1_bigrams", "zth_part2_mlp", "zth_part3_bn", "zth_part4_backprop",
           "zth_part5_wavenet", "zth_micrograd"]


def zth(lib, seed=0, **overrides):
    """``lib`` whose ``rand``, ``randn``, ``randint`` and ``multinomial`` draw from one
    NumPy stream, whatever ``generator`` they are given."""
    rng = np.random.default_rng(seed)

    def size_of(size):
        if len(size) == 1 and isinstance(size[0], (tuple, list)):
            return tuple(size[0])
        return tuple(size)

    def randn(*size, generator=None, dtype=None, requires_grad=False):
        t = lib.tensor(rng.standard_normal(size_of(size)),
                       dtype=dtype or lib.get_default_dtype())
        return t.requires_grad_() if requires_grad else t

    def rand(*size, generator=None, dtype=None, requires_grad=False):
        t = lib.tensor(rng.random(size_of(size)), dtype=dtype or lib.get_default_dtype())
        return t.requires_grad_() if requires_grad else t

    def randint(low, high=None, size=None, generator=None, dtype=None):
        if high is None:
            low, high = 0, low
        return lib.tensor(rng.integers(low, high, tuple(size)), dtype=dtype or lib.int64)

    def multinomial(probs, num_samples, replacement=False, generator=None):
        p = probs.detach().numpy().astype(np.float64)
        squeeze = p.ndim == 1
        p = np.atleast_2d(p)
        picks = []
        for _ in range(num_samples):
            u = rng.random(p.shape[:-1] + (1,)) * p.sum(-1, keepdims=True)
            picks.append(np.minimum((np.cumsum(p, -1) < u).sum(-1), p.shape[-1] - 1))
        index = np.stack(picks, -1)
        return lib.tensor(index[0] if squeeze else index, dtype=lib.int64)

    return Proxy(lib, **dict(dict(rand=rand, randn=randn, randint=randint, multinomial=multinomial),
                             **overrides))


def _np(v):
    return np.asarray(v.detach().numpy()) if hasattr(v, "detach") else np.asarray(v)


def same(p, t, rtol=1e-5, atol=1e-6, path="out"):
    """``p`` (pyad's) is ``t`` (torch's): tensors by value, shape and dtype, sizes as
    tuples, containers entry by entry, the rest by ``==``."""
    if isinstance(t, torch.Tensor):
        assert hasattr(p, "detach"), (path, type(p))
        assert tuple(p.shape) == tuple(t.shape), (path, p.shape, t.shape)
        assert str(p.dtype).split(".")[-1] == str(t.dtype).split(".")[-1], (path, p.dtype,
                                                                             t.dtype)
        np.testing.assert_allclose(_np(p), _np(t), rtol=rtol, atol=atol, err_msg=path)
    elif isinstance(t, torch.dtype):
        assert str(p).split(".")[-1] == str(t).split(".")[-1], (path, p, t)
    elif isinstance(t, torch.Size):
        assert tuple(p) == tuple(t), (path, p, t)
    elif isinstance(t, dict):
        assert list(p) == list(t), (path, list(p), list(t))
        for k in t:
            same(p[k], t[k], rtol, atol, "%s[%r]" % (path, k))
    elif isinstance(t, (list, tuple)):
        assert len(p) == len(t), (path, len(p), len(t))
        for i, (a, b) in enumerate(zip(p, t)):
            same(a, b, rtol, atol, "%s[%d]" % (path, i))
    elif isinstance(t, float):
        np.testing.assert_allclose(p, t, rtol=rtol, atol=atol, err_msg=path)
    else:
        assert p == t, (path, p, t)


def twins(name, seed=0, nwords=200, **options):
    module = load(name)
    w = module.synthetic_words(seed, nwords)
    t = module.run(zth(torch), w, log=lambda *a: None, **options)
    p = module.run(zth(pyad), w, log=lambda *a: None, **options)
    return t, p


# -- makemore part 1: bigrams ----------------------------------------------------------------

@pytest.mark.parametrize("descent_steps", [1, 5])
def test_zth_part1_bigrams(descent_steps):
    # one gradient-descent step as the stored text (range(1)), and five
    t, p = twins("zth_part1_bigrams", descent_steps=descent_steps)
    same(p, t)
    assert len(t["losses"]) == descent_steps and len(t["samples_W"]) == 5
    assert t["xs"].tolist() == [0, 5, 13, 13, 1]  # .e, em, mm, ma, a.


# -- makemore part 2: the MLP ----------------------------------------------------------------

def test_zth_part2_mlp():
    t, p = twins("zth_part2_mlp", max_steps=5)
    same(p, t)
    assert len(t["losses"]) == 5 and len(t["samples"]) == 20


# -- makemore part 3: activations, gradients, BatchNorm ---------------------------------------

def test_zth_part3_bn():
    t, p = twins("zth_part3_bn", max_steps=5)
    # after five steps through six BatchNorm layers, float32 rounding reaches a few
    # units in 1e-6 of the activations: the tolerances of the other ported scripts'
    # losses (tests/test_ported_examples.py's twin_runs)
    tol = dict(rtol=2e-4, atol=2e-5)
    # the histogram cells' (t, hx[:-1], hy): t as torch's; hx and hy as torch.histogram
    # of pyad's own t (a value within float32 rounding of a bin edge may fall in the next
    # bin in one framework, so the two runs' counts can differ by one there)
    for key in ("activation stats", "gradient stats", "weight gradient stats"):
        for k in range(1, len(t[key]), 2):
            (pt, phx, phy), (tt, thx, thy) = p[key][k], t[key][k]
            same(pt, tt, path=key + " t", **tol)
            hy, hx = torch.histogram(torch.tensor(_np(pt)), density=True)
            same(phx, hx[:-1], path=key + " hx")
            same(phy, hy, path=key + " hy")
            p[key][k] = t[key][k] = None
    same(p, t, **tol)
    assert len(t["losses"]) == len(t["deep_losses"]) == len(t["ud"]) == 5
    assert len(t["activation stats"]) == 10 and len(t["samples"]) == 20


@pytest.mark.xfail(strict=True, reason="python: Variable.data is the NumPy array in pyad "
                   "(pyad/_engine.pyx's data property), so the text's p.data.std() is "
                   "NumPy's std (divides by n), not torch's (n - 1); the port writes "
                   "p.detach().std()")
def test_zth_part3_bn_verbatim_data_std():
    t, p = twins("zth_part3_bn", max_steps=2, data_std=True)
    same(p["ud"], t["ud"])


# -- makemore part 4: becoming a backprop ninja ---------------------------------------------

def test_zth_part4_backprop():
    t, p = twins("zth_part4_backprop", max_steps=5)
    # every manual gradient and autograd's, and the cmp verdicts: the allclose flags and
    # the shapes as in torch, the exact flags where torch's are True, the largest
    # differences within float32's rounding of the gradients. torch 2.13's tanh backward
    # rounds differently from the text's (1.0 - h**2) * dh (1e-9 apart from hpreact down,
    # so its exact flags are False there); the notebook's printed output, from an older
    # torch, has them all True, as pyad's
    assert [c[0] for c in p["cmp"]] == [c[0] for c in t["cmp"]]
    for (name, ex, app, maxdiff, shape_ok, dt, grad), tc in zip(p["cmp"], t["cmp"]):
        assert (app, shape_ok) == (tc[2], tc[4]), (name, app, shape_ok, tc)
        assert ex == (maxdiff == 0), (name, ex, maxdiff)
        if tc[1]:
            assert ex, (name, maxdiff)
        assert maxdiff <= max(4 * tc[3], 1e-8), (name, maxdiff, tc[3])
        same(dt, tc[5], path=name + " manual")
        same(grad, tc[6], path=name + " autograd")
    rest = {k: v for k, v in t.items() if k != "cmp"}
    same({k: p[k] for k in rest}, rest, rtol=1e-5, atol=1e-6)
    assert len(t["losses"]) == 5


# -- makemore part 5: the hierarchical (WaveNet-like) network -------------------------------

def test_zth_part5_wavenet():
    t, p = twins("zth_part5_wavenet", max_steps=5)
    same(p, t)
    assert len(t["losses"]) == 5 and len(t["samples"]) == 20


# -- the micrograd lecture's torch cell ------------------------------------------------------

def test_zth_micrograd():
    module = load("zth_micrograd")
    t = module.run(torch, log=lambda *a: None)
    p = module.run(pyad, log=lambda *a: None)
    same(p, t, rtol=1e-14, atol=1e-15)
    # and by hand: o = tanh(2*-3 + 0*1 + b), do/dn = 1 - o**2, with b rounded to float32
    # first (torch.Tensor(...) is float32, then .double()): the notebook's printed
    # 0.7071066904050358, not tanh(0.8813735870195432) = 0.7071067811865476
    o = math.tanh(-6.0 + float(np.float32(6.8813735870195432)))
    dn = 1 - o ** 2
    assert p["o"] == pytest.approx(o, rel=1e-15)
    assert dict(p["grads"]) == pytest.approx({"x2": dn * 1.0, "w2": dn * 0.0,
                                              "x1": dn * -3.0, "w1": dn * 2.0}, rel=1e-14)
    assert p["dtypes"] == ["float64"] * 4


@pytest.mark.parametrize("name", SCRIPTS)
def test_scripts_run_as_scripts_on_pyad(name, capsys):
    # each file's __main__ (import pyad as torch; run on its own generators and prints)
    runpy.run_path(os.path.join(PORTED, name + ".py"), run_name="__main__")
    out = capsys.readouterr().out
    assert out.strip(), name
    if name != "zth_micrograd":
        assert any(line.endswith(".") and " " not in line
                   for line in out.splitlines()), out[-300:]  # sampled words
