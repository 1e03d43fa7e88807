#!/usr/bin/env python
"""Core overhead benchmarks: pyad vs a hand-written NumPy floor (and torch).

    python benchmarks/bench_core.py [--smoke] [--repeat N] [--json PATH]

Each benchmark is timed in up to three columns:

* NumPy floor: the same math written by hand in plain NumPy, forward plus a
  hand-derived backward (no autograd at all). This is the cost of the array
  work alone; an autograd engine can only add overhead on top of it.
* pyad: the same computation via pyad.Variable and the torch-like API.
* torch: the same computation via torch.autograd (optional; "n/a" if torch
  cannot be imported).

Before anything is timed, every column's result is compared once with the
floor (np.allclose), so a wrong gradient can't post a fast number, and the
floor itself is checked against central finite differences.

Everything runs in one process on one thread. See benchmarks/README.md.
"""
import os

# One thread for every BLAS/OpenMP pool. This must happen before numpy or
# torch is imported: the pools read these variables when they start.
for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
             "VECLIB_MAXIMUM_THREADS", "NUMEXPR_NUM_THREADS"):
    os.environ[_var] = "1"

import argparse  # noqa: E402
import gc  # noqa: E402
import json  # noqa: E402
import math  # noqa: E402
import platform  # noqa: E402
import statistics  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
import traceback  # noqa: E402

import numpy as np  # noqa: E402

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

HEADER = ("benchmark", "NumPy floor µs", "pyad µs", "pyad/floor", "target",
          "torch µs", "torch/floor")


# --------------------------------------------------------------------------
# Optional frameworks
# --------------------------------------------------------------------------

def import_torch(disabled):
    if disabled:
        return None, "disabled (--no-torch)"
    try:
        import torch
    except Exception as exc:  # ImportError, or a broken install
        return None, "%s: %s" % (type(exc).__name__, exc)
    torch.set_num_threads(1)
    try:
        torch.set_num_interop_threads(1)
    except RuntimeError:  # already set / parallel work already started
        pass
    return torch, None


def import_pyad(disabled):
    if disabled:
        return None, "disabled (--no-pyad)"
    # Prefer the in-tree package when it was built in place
    # (`python setup.py build_ext --inplace`); otherwise the installed one.
    import glob
    if glob.glob(os.path.join(REPO_ROOT, "pyad", "_engine*.so")) or \
            glob.glob(os.path.join(REPO_ROOT, "pyad", "_engine*.pyd")):
        sys.path.insert(0, REPO_ROOT)
    try:
        import pyad
        import pyad.autograd  # noqa: F401  (autograd.grad is needed by (d))
    except Exception as exc:
        return None, "%s: %s" % (type(exc).__name__, exc)
    return pyad, None


# --------------------------------------------------------------------------
# Sizes
# --------------------------------------------------------------------------

FULL = dict(chain_n=8, chain_reps=25, mlp_batch=64, mlp_in=784, mlp_hidden=256,
            mlp_out=10, big_n=10 ** 6, hvp_n=16, surface_shape=(256, 64),
            cnn_batch=32, cnn_hw=28, cnn_channels=8)
SMOKE = dict(chain_n=8, chain_reps=25, mlp_batch=8, mlp_in=32, mlp_hidden=16,
             mlp_out=10, big_n=1000, hvp_n=16, surface_shape=(8, 4),
             cnn_batch=4, cnn_hw=8, cnn_channels=2)
LR = 0.01

F64_TOL = dict(rtol=1e-9, atol=1e-12)
F32_TOL = dict(rtol=2e-4, atol=1e-6)


# --------------------------------------------------------------------------
# (a) chain of 100 elementwise ops on a tiny vector
# --------------------------------------------------------------------------

def chain(x, tanh, reps):
    """(x*1.0001, +0.1, tanh, -0.05) `reps` times: 4*reps ops, any framework."""
    for _ in range(reps):
        x = x * 1.0001
        x = x + 0.1
        x = tanh(x)
        x = x - 0.05
    return x


def floor_chain_fwd_bwd(x, reps):
    """Forward keeping the tanh outputs, then the hand-derived backward of sum()."""
    ts = []
    y = x
    for _ in range(reps):
        y = y * 1.0001
        y = y + 0.1
        y = np.tanh(y)
        ts.append(y)
        y = y - 0.05
    s = y.sum()
    g = np.ones_like(x)                     # d sum / d y
    for t in reversed(ts):                  # - 0.05: identity
        g = g * (1.0 - t * t)               # tanh
        g = g * 1.0001                      # + 0.1: identity; * 1.0001
    return s, g


class ChainFwd:
    name = "(a) chain100 fwd"
    target = None
    tol = F64_TOL

    def __init__(self, cfg):
        self.reps = cfg["chain_reps"]
        self.x0 = np.random.default_rng(0).standard_normal(cfg["chain_n"])
        self.name = "(a) chain%d fwd (%d,)" % (4 * self.reps, cfg["chain_n"])

    def floor(self):
        x, reps = self.x0.copy(), self.reps
        return lambda: (chain(x, np.tanh, reps),)

    def pyad(self, pyad):
        x, reps, tanh = pyad.Variable(self.x0.copy(), requires_grad=True), self.reps, pyad.tanh
        return lambda: (chain(x, tanh, reps),)

    def torch(self, torch):
        x = torch.from_numpy(self.x0.copy()).requires_grad_()
        reps, tanh = self.reps, torch.tanh
        return lambda: (chain(x, tanh, reps),)


class ChainFwdBwd(ChainFwd):
    target = 1.5

    def __init__(self, cfg):
        super().__init__(cfg)
        self.name = "(a) chain%d fwd+bwd (%d,)" % (4 * self.reps, cfg["chain_n"])

    def floor(self):
        x, reps = self.x0.copy(), self.reps
        return lambda: floor_chain_fwd_bwd(x, reps)

    def pyad(self, pyad):
        x, reps, tanh = pyad.Variable(self.x0.copy(), requires_grad=True), self.reps, pyad.tanh

        def run():
            x.grad = None
            s = chain(x, tanh, reps).sum()
            s.backward()
            return s, x.grad
        return run

    def torch(self, torch):
        x = torch.from_numpy(self.x0.copy()).requires_grad_()
        reps, tanh = self.reps, torch.tanh

        def run():
            x.grad = None
            s = chain(x, tanh, reps).sum()
            s.backward()
            return s, x.grad
        return run


class ChainNoGrad(ChainFwd):
    """(a) forward with recording off (pyad.no_grad / torch.no_grad): the engine's cost
    per op when nothing is recorded."""
    target = None

    def __init__(self, cfg):
        super().__init__(cfg)
        self.name = "(a) chain%d fwd no_grad (%d,)" % (4 * self.reps, cfg["chain_n"])

    def pyad(self, pyad):
        x, reps, tanh = pyad.Variable(self.x0.copy(), requires_grad=True), self.reps, pyad.tanh

        def run():
            with pyad.no_grad():
                return (chain(x, tanh, reps),)
        return run

    def torch(self, torch):
        x = torch.from_numpy(self.x0.copy()).requires_grad_()
        reps, tanh = self.reps, torch.tanh

        def run():
            with torch.no_grad():
                return (chain(x, tanh, reps),)
        return run


class ChainAnomaly(ChainFwdBwd):
    """(a) with anomaly detection on, in both frameworks (target: 3x the (a) target)."""
    target = 4.5

    def __init__(self, cfg):
        super().__init__(cfg)
        self.name = "(a') chain%d fwd+bwd, anomaly on" % (4 * self.reps)

    def _with_anomaly(self, lib, run):
        def wrapped():
            with lib.autograd.set_detect_anomaly(True):
                return run()
        return wrapped

    def pyad(self, pyad):
        return self._with_anomaly(pyad, super().pyad(pyad))

    def torch(self, torch):
        return self._with_anomaly(torch, super().torch(torch))


class ChainProfiler(ChainFwdBwd):
    """(a) inside the autograd profiler, in both frameworks: every op and backward node
    is an event (target: 3x the (a) target). The results are not read."""
    target = 4.5

    def __init__(self, cfg):
        super().__init__(cfg)
        self.name = "(a) chain%d fwd+bwd, profiler on" % (4 * self.reps)

    def _with_profiler(self, lib, run):
        def wrapped():
            with lib.autograd.profiler.profile():
                return run()
        return wrapped

    def pyad(self, pyad):
        import pyad.autograd.profiler  # noqa: F401
        return self._with_profiler(pyad, super().pyad(pyad))

    def torch(self, torch):
        import torch.autograd.profiler  # noqa: F401
        return self._with_profiler(torch, super().torch(torch))


class FunctionChain(ChainFwdBwd):
    """(a) with the elementwise steps as custom autograd Functions (each step one
    Function.apply, backward written by hand): the engine's custom-Function path."""
    target = None

    def __init__(self, cfg):
        super().__init__(cfg)
        self.name = "(a) chain%d fwd+bwd, custom Functions" % (4 * self.reps)

    @staticmethod
    def _functions(lib):
        class Scale(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 1.0001

            @staticmethod
            def backward(ctx, g):
                return g * 1.0001

        class Shift(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x, c):
                return x + c

            @staticmethod
            def backward(ctx, g):
                return g, None

        class Tanh(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                y = lib.tanh(x)
                ctx.save_for_backward(y)
                return y

            @staticmethod
            def backward(ctx, g):
                y, = ctx.saved_tensors
                return g * (1 - y * y)

        scale, shift, tanh = Scale.apply, Shift.apply, Tanh.apply

        def chain_f(x, reps):
            for _ in range(reps):
                x = shift(tanh(shift(scale(x), 0.1)), -0.05)
            return x
        return chain_f

    def _run(self, lib, x):
        chain_f, reps = self._functions(lib), self.reps

        def run():
            x.grad = None
            s = chain_f(x, reps).sum()
            s.backward()
            return s, x.grad
        return run

    def pyad(self, pyad):
        return self._run(pyad, pyad.Variable(self.x0.copy(), requires_grad=True))

    def torch(self, torch):
        return self._run(torch, torch.from_numpy(self.x0.copy()).requires_grad_())


# --------------------------------------------------------------------------
# (b) MLP training step
# --------------------------------------------------------------------------

def floor_mlp_loss_grads(x, W1, b1, W2, b2, onehot):
    """Forward (relu MLP, log-softmax cross-entropy, mean over the batch) and
    the hand-derived gradients w.r.t. W1, b1, W2, b2."""
    B = x.shape[0]
    z1 = x @ W1 + b1
    h = np.maximum(z1, 0)
    logits = h @ W2 + b2
    m = logits.max(axis=1, keepdims=True)
    e = np.exp(logits - m)
    se = e.sum(axis=1, keepdims=True)
    lp = logits - m - np.log(se)
    loss = -(lp * onehot).sum() / B
    # d loss/d lp = -onehot/B; through log_softmax:
    # d logits = d lp - softmax * rowsum(d lp) = (softmax - onehot) / B
    # because every onehot row sums to 1.
    dlogits = (e / se - onehot) / B
    dW2 = h.T @ dlogits
    db2 = dlogits.sum(axis=0)
    dz1 = (dlogits @ W2.T) * (z1 > 0)
    dW1 = x.T @ dz1
    db1 = dz1.sum(axis=0)
    return loss, dW1, db1, dW2, db2


class MLPStep:
    target = 1.10
    tol = F32_TOL

    def __init__(self, cfg):
        B, I, H, O = (cfg["mlp_batch"], cfg["mlp_in"], cfg["mlp_hidden"],
                      cfg["mlp_out"])
        self.B = B
        self.name = "(b) mlp step %dx%d-%d-%d f32" % (B, I, H, O)
        rng = np.random.default_rng(1)
        f32 = np.float32
        self.x = rng.standard_normal((B, I)).astype(f32)
        self.onehot = np.eye(O, dtype=f32)[rng.integers(0, O, size=B)]
        self.params0 = [
            (rng.standard_normal((I, H)) / math.sqrt(I)).astype(f32),
            (0.1 * rng.standard_normal(H)).astype(f32),
            (rng.standard_normal((H, O)) / math.sqrt(H)).astype(f32),
            (0.1 * rng.standard_normal(O)).astype(f32),
        ]

    def floor(self):
        x, onehot = self.x, self.onehot
        params = [p.copy() for p in self.params0]

        def run():
            loss, *grads = floor_mlp_loss_grads(x, *params, onehot)
            for p, g in zip(params, grads):
                p -= LR * g
            return (loss, *grads)
        return run

    def pyad(self, pyad):
        B = self.B
        xv, ohv = pyad.Variable(self.x), pyad.Variable(self.onehot)
        params = [pyad.Variable(p.copy(), requires_grad=True) for p in self.params0]
        W1, b1, W2, b2 = params
        log_softmax = pyad.log_softmax

        def run():
            h = (xv @ W1 + b1).relu()
            logits = h @ W2 + b2
            lp = log_softmax(logits, dim=1)
            loss = -(lp * ohv).sum() / B
            loss.backward()
            grads = []
            for p in params:
                g = p.grad
                d = p.data
                d -= LR * g.data          # in place on the shared ndarray
                p.grad = None
                grads.append(g)
            return (loss, *grads)
        return run

    def torch(self, torch):
        B = self.B
        xv, ohv = torch.from_numpy(self.x), torch.from_numpy(self.onehot)
        params = [torch.from_numpy(p.copy()).requires_grad_() for p in self.params0]
        W1, b1, W2, b2 = params
        log_softmax = torch.log_softmax

        def run():
            h = (xv @ W1 + b1).relu()
            logits = h @ W2 + b2
            lp = log_softmax(logits, dim=1)
            loss = -(lp * ohv).sum() / B
            loss.backward()
            grads = []
            with torch.no_grad():
                for p in params:
                    g = p.grad
                    p -= LR * g
                    p.grad = None
                    grads.append(g)
            return (loss, *grads)
        return run


# --------------------------------------------------------------------------
# (c) big elementwise: sum(tanh(x*2+1)*x), forward+backward
# --------------------------------------------------------------------------

def floor_big(x):
    t = np.tanh(x * 2.0 + 1.0)
    s = (t * x).sum()
    g = t + x * (1.0 - t * t) * 2.0        # d/dx [tanh(2x+1) x]
    return s, g


class BigTanhSum:
    target = 1.15
    tol = F64_TOL

    def __init__(self, cfg):
        n = cfg["big_n"]
        self.name = "(c) sum(tanh(2x+1)*x) fwd+bwd %s f64" % _fmt_count(n)
        self.x0 = np.random.default_rng(2).standard_normal(n)

    def floor(self):
        x = self.x0.copy()
        return lambda: floor_big(x)

    def pyad(self, pyad):
        x, tanh = pyad.Variable(self.x0.copy(), requires_grad=True), pyad.tanh

        def run():
            x.grad = None
            s = (tanh(x * 2.0 + 1.0) * x).sum()
            s.backward()
            return s, x.grad
        return run

    def torch(self, torch):
        x, tanh = torch.from_numpy(self.x0.copy()).requires_grad_(), torch.tanh

        def run():
            x.grad = None
            s = (tanh(x * 2.0 + 1.0) * x).sum()
            s.backward()
            return s, x.grad
        return run


# --------------------------------------------------------------------------
# (d) Hessian-vector product of f(x) = sum(tanh(x)**3)
# --------------------------------------------------------------------------

def floor_hvp_f(x):
    return (np.tanh(x) ** 3).sum()


def floor_hvp_grad(x):
    t2 = np.tanh(x) ** 2
    return 3.0 * t2 * (1.0 - t2)                        # d/dx t^3 = 3 t^2 (1 - t^2)


def floor_hvp(x, v):
    # f = sum t^3, t = tanh x, dt/dx = 1 - t^2.
    # g = 3 t^2 (1 - t^2) = 3 t^2 - 3 t^4
    # dg/dx = (6 t - 12 t^3)(1 - t^2) = 6 t (1 - 2 t^2)(1 - t^2)
    # The Hessian is diagonal, so H v = dg/dx * v.
    t = np.tanh(x)
    f = (t ** 3).sum()
    t2 = t * t
    one_m = 1.0 - t2
    g = 3.0 * t2 * one_m
    hv = 6.0 * t * (1.0 - 2.0 * t2) * one_m * v
    return f, g, hv


class HVP:
    target = 4.0
    tol = F64_TOL

    def __init__(self, cfg):
        n = cfg["hvp_n"]
        self.name = "(d) hvp sum(tanh(x)**3) (%d,)" % n
        rng = np.random.default_rng(3)
        self.x0 = rng.standard_normal(n)
        self.v0 = rng.standard_normal(n)

    def floor(self):
        x, v = self.x0.copy(), self.v0.copy()
        return lambda: floor_hvp(x, v)

    def pyad(self, pyad):
        x = pyad.Variable(self.x0.copy(), requires_grad=True)
        v = pyad.Variable(self.v0.copy())
        tanh, grad = pyad.tanh, pyad.autograd.grad

        def run():
            f = (tanh(x) ** 3).sum()
            g, = grad(f, x, create_graph=True)
            hv, = grad((g * v).sum(), x)
            return f, g, hv
        return run

    def torch(self, torch):
        x = torch.from_numpy(self.x0.copy()).requires_grad_()
        v = torch.from_numpy(self.v0.copy())
        tanh, grad = torch.tanh, torch.autograd.grad

        def run():
            f = (tanh(x) ** 3).sum()
            g, = grad(f, x, create_graph=True)
            hv, = grad((g * v).sum(), x)
            return f, g, hv
        return run


# --------------------------------------------------------------------------
# (e) the wider op surface: clamp, where, cat, an index gather, logsumexp loss
# --------------------------------------------------------------------------

def floor_surface(x, w, idx):
    # The gather as flat positions in c (C order): one take forward, one flat add.at
    # back (add.at with the (rows, idx) pair of index arrays takes its slow general path)
    flat = np.arange(x.shape[0])[:, None] * (2 * x.shape[1]) + idx
    xw = x * w
    h = np.clip(xw, -1.0, 1.0)
    pos = x > 0
    m = np.where(pos, h, h * 0.1)
    c = np.concatenate([m, x], axis=1)
    g = c.take(flat)
    gmax = g.max(axis=1, keepdims=True)
    e = np.exp(g - gmax)
    se = e.sum(axis=1, keepdims=True)
    loss = (np.log(se) + gmax).sum()
    # backward: d loss / d g = softmax(g); the gather scatters back (repeats add up)
    dg = e / se
    dc = np.zeros_like(c)
    np.add.at(dc.reshape(-1), flat.reshape(-1), dg.reshape(-1))
    dm, dx = dc[:, :x.shape[1]], dc[:, x.shape[1]:].copy()
    dh = dm * np.where(pos, 1.0, 0.1).astype(x.dtype)
    dxw = dh * ((xw >= -1.0) & (xw <= 1.0))
    dx += dxw * w
    dw = (dxw * x).sum(axis=0)
    return loss, dx, dw


class SurfaceStep:
    target = 1.2
    tol = F32_TOL

    def __init__(self, cfg):
        n, d = cfg["surface_shape"]
        self.name = "(e) clamp/where/cat/gather/lse %dx%d f32" % (n, d)
        rng = np.random.default_rng(5)
        self.x0 = rng.standard_normal((n, d)).astype(np.float32)
        self.w0 = rng.standard_normal(d).astype(np.float32)
        self.idx = rng.integers(0, 2 * d, size=(n, 16))

    def floor(self):
        x, w, idx = self.x0.copy(), self.w0.copy(), self.idx
        return lambda: floor_surface(x, w, idx)

    def _run(self, lib, x, w, idx):
        def run():
            x.grad = w.grad = None
            h = lib.clamp(x * w, -1.0, 1.0)
            m = lib.where(x > 0, h, h * 0.1)
            c = lib.cat([m, x], dim=1)
            loss = lib.logsumexp(lib.gather(c, 1, idx), dim=1).sum()
            loss.backward()
            return loss, x.grad, w.grad
        return run

    def pyad(self, pyad):
        x = pyad.Variable(self.x0.copy(), requires_grad=True)
        w = pyad.Variable(self.w0.copy(), requires_grad=True)
        return self._run(pyad, x, w, pyad.Variable(self.idx))

    def torch(self, torch):
        x = torch.from_numpy(self.x0.copy()).requires_grad_()
        w = torch.from_numpy(self.w0.copy()).requires_grad_()
        return self._run(torch, x, w, torch.from_numpy(self.idx))


# --------------------------------------------------------------------------
# (f) small CNN training step: conv 3x3 (padding 0) -> relu -> max-pool 2 ->
# flatten -> linear -> cross-entropy with class indices
# --------------------------------------------------------------------------

def floor_cnn(x, W, b, Wl, bl, target):
    """Forward and hand-derived gradients w.r.t. W, b, Wl, bl. The convolution is
    im2col (a strided window view copied to (B, C*kh*kw, oh*ow)) and one matmul; the
    2x2 pooling windows do not overlap: one strided slice per window offset."""
    B, Ci, H, Wd = x.shape
    C, _, kh, kw = W.shape
    oh, ow = H - kh + 1, Wd - kw + 1
    win = np.lib.stride_tricks.sliding_window_view(x, (kh, kw), axis=(2, 3))
    cols = win.transpose(0, 1, 4, 5, 2, 3).reshape(B, Ci * kh * kw, oh * ow)
    z = (W.reshape(C, -1) @ cols).reshape(B, C, oh, ow) + b[:, None, None]
    r = np.maximum(z, 0)
    # 2x2 max-pool: one pass per window offset, keeping the running max and its offset
    ph, pw = oh // 2, ow // 2
    s = r.strides
    rv = np.lib.stride_tricks.as_strided(r, (B, C, ph, pw, 2, 2),
                                         (s[0], s[1], 2 * s[2], 2 * s[3], s[2], s[3]))
    p = rv[:, :, :, :, 0, 0].copy()
    arg = np.zeros(p.shape, dtype=np.int64)
    for k in range(1, 4):
        cand = rv[:, :, :, :, k // 2, k % 2]
        better = cand > p
        np.copyto(p, cand, where=better)
        np.copyto(arg, k, where=better)
    f = p.reshape(B, -1)
    logits = f @ Wl + bl
    m = logits.max(axis=1, keepdims=True)
    e = np.exp(logits - m)
    se = e.sum(axis=1, keepdims=True)
    rows = np.arange(B)
    loss = -(logits[rows, target] - m[:, 0] - np.log(se[:, 0])).mean()
    # d logits = (softmax - onehot) / B
    dlogits = e / se
    dlogits[rows, target] -= 1
    dlogits /= B
    dWl = f.T @ dlogits
    dbl = dlogits.sum(axis=0)
    dp = (dlogits @ Wl.T).reshape(B, C, ph, pw)
    dr = np.zeros_like(r)
    s = dr.strides
    dv = np.lib.stride_tricks.as_strided(dr, (B, C, ph, pw, 2, 2),
                                         (s[0], s[1], 2 * s[2], 2 * s[3], s[2], s[3]))
    for k in range(4):
        np.copyto(dv[:, :, :, :, k // 2, k % 2], dp, where=arg == k)
    dz = dr * (z > 0)
    db = dz.sum(axis=(0, 2, 3))
    dW = (dz.reshape(B, C, oh * ow) @ cols.transpose(0, 2, 1)).sum(axis=0).reshape(W.shape)
    return loss, dW, db, dWl, dbl


class CNNStep:
    target = 1.15
    tol = F32_TOL

    def __init__(self, cfg):
        B, hw, C = cfg["cnn_batch"], cfg["cnn_hw"], cfg["cnn_channels"]
        self.B = B
        self.name = "(f) cnn step %dx1x%dx%d conv3x3-%d f32" % (B, hw, hw, C)
        rng = np.random.default_rng(6)
        f32 = np.float32
        nf = C * ((hw - 2) // 2) ** 2
        self.x = rng.standard_normal((B, 1, hw, hw)).astype(f32)
        self.target_idx = rng.integers(0, 10, size=B)
        self.params0 = [
            (rng.standard_normal((C, 1, 3, 3)) / 3.0).astype(f32),
            (0.1 * rng.standard_normal(C)).astype(f32),
            (rng.standard_normal((nf, 10)) / math.sqrt(nf)).astype(f32),
            (0.1 * rng.standard_normal(10)).astype(f32),
        ]

    def floor(self):
        x, target = self.x, self.target_idx
        params = [p.copy() for p in self.params0]

        def run():
            loss, *grads = floor_cnn(x, *params, target)
            for p, g in zip(params, grads):
                p -= LR * g
            return (loss, *grads)
        return run

    def pyad(self, pyad):
        import pyad.nn.functional as F
        B = self.B
        xv, tv = pyad.Variable(self.x), pyad.Variable(self.target_idx)
        params = [pyad.Variable(p.copy(), requires_grad=True) for p in self.params0]
        W, b, Wl, bl = params

        def run():
            h = F.max_pool2d(F.conv2d(xv, W, b).relu(), 2)
            logits = h.reshape(B, -1) @ Wl + bl
            loss = F.cross_entropy(logits, tv)
            loss.backward()
            grads = []
            for p in params:
                g = p.grad
                d = p.data
                d -= LR * g.data          # in place on the shared ndarray
                p.grad = None
                grads.append(g)
            return (loss, *grads)
        return run

    def torch(self, torch):
        F = torch.nn.functional
        B = self.B
        xv, tv = torch.from_numpy(self.x), torch.from_numpy(self.target_idx)
        params = [torch.from_numpy(p.copy()).requires_grad_() for p in self.params0]
        W, b, Wl, bl = params

        def run():
            h = F.max_pool2d(F.conv2d(xv, W, b).relu(), 2)
            logits = h.reshape(B, -1) @ Wl + bl
            loss = F.cross_entropy(logits, tv)
            loss.backward()
            grads = []
            with torch.no_grad():
                for p in params:
                    g = p.grad
                    p -= LR * g
                    p.grad = None
                    grads.append(g)
            return (loss, *grads)
        return run


CASES = [ChainFwd, ChainNoGrad, ChainFwdBwd, ChainAnomaly, ChainProfiler, FunctionChain, MLPStep,
         BigTanhSum, HVP, SurfaceStep, CNNStep]
CASE_KEYS = {"chain": (ChainFwd, ChainNoGrad, ChainFwdBwd), "anomaly": (ChainAnomaly,),
             "profiler": (ChainProfiler,), "function": (FunctionChain,), "mlp": (MLPStep,),
             "big": (BigTanhSum,), "hvp": (HVP,), "surface": (SurfaceStep,), "cnn": (CNNStep,)}


# --------------------------------------------------------------------------
# Floor self-checks: the floors' hand-derived derivatives vs central
# finite differences, in float64.
# --------------------------------------------------------------------------

def _fd_grad(f, x, idx, eps=1e-6):
    out = []
    for i in idx:
        xp, xm = x.copy(), x.copy()
        xp.flat[i] += eps
        xm.flat[i] -= eps
        out.append((f(xp) - f(xm)) / (2 * eps))
    return np.array(out)


def _assert_close(what, got, want, rtol=1e-6, atol=1e-8):
    got, want = np.asarray(got, dtype=np.float64), np.asarray(want, dtype=np.float64)
    if not np.allclose(got, want, rtol=rtol, atol=atol):
        raise AssertionError("floor self-check failed: %s: max |diff| = %.3g\n got  %s\n want %s"
                             % (what, np.max(np.abs(got - want)), got, want))


def verify_floors():
    rng = np.random.default_rng(42)

    # (a) chain: full gradient vs FD.
    x = rng.standard_normal(8)
    reps = 25
    s, g = floor_chain_fwd_bwd(x, reps)
    _assert_close("chain forward", s, chain(x, np.tanh, reps).sum(), 1e-12, 1e-12)
    _assert_close("chain grad", g,
                  _fd_grad(lambda z: floor_chain_fwd_bwd(z, reps)[0], x, range(8)))

    # (b) mlp: float64 copy, loss vs a naive cross-entropy, grads vs FD on
    # a few entries of every parameter.
    B, I, H, O = 5, 7, 6, 4
    xb = rng.standard_normal((B, I))
    onehot = np.eye(O)[rng.integers(0, O, size=B)]
    params = [rng.standard_normal((I, H)), rng.standard_normal(H),
              rng.standard_normal((H, O)), rng.standard_normal(O)]
    loss, *grads = floor_mlp_loss_grads(xb, *params, onehot)
    logits = np.maximum(xb @ params[0] + params[1], 0) @ params[2] + params[3]
    naive = -np.mean(np.log((np.exp(logits) / np.exp(logits).sum(1, keepdims=True))
                            [np.arange(B), onehot.argmax(1)]))
    _assert_close("mlp loss", loss, naive, 1e-12, 1e-12)
    for k, name in enumerate(("W1", "b1", "W2", "b2")):
        idx = rng.choice(params[k].size, size=min(6, params[k].size), replace=False)

        def loss_k(pk, k=k):
            ps = list(params)
            ps[k] = pk
            return floor_mlp_loss_grads(xb, *ps, onehot)[0]
        _assert_close("mlp grad " + name, grads[k].flat[idx], _fd_grad(loss_k, params[k], idx))

    # (c) big elementwise: gradient vs FD on a small vector.
    x = rng.standard_normal(16)
    s, g = floor_big(x)
    _assert_close("tanh-sum forward", s, np.sum(np.tanh(2 * x + 1) * x), 1e-12, 1e-12)
    _assert_close("tanh-sum grad", g, _fd_grad(lambda z: floor_big(z)[0], x, range(16)))

    # (d) hvp: g vs FD of f, and H v vs FD of g along v:
    # (g(x + eps v) - g(x - eps v)) / (2 eps) -> H v.
    x, v = rng.standard_normal(16), rng.standard_normal(16)
    f, g, hv = floor_hvp(x, v)
    _assert_close("hvp f", f, floor_hvp_f(x), 1e-12, 1e-12)
    _assert_close("hvp grad", g, _fd_grad(floor_hvp_f, x, range(16)))
    _assert_close("hvp grad (closed form)", g, floor_hvp_grad(x), 1e-12, 1e-12)
    eps = 1e-6
    fd_hv = (floor_hvp_grad(x + eps * v) - floor_hvp_grad(x - eps * v)) / (2 * eps)
    _assert_close("hvp H v", hv, fd_hv)

    # (e) surface step: in float64, gradients vs FD on a few entries.
    xs = rng.standard_normal((6, 4))
    ws = rng.standard_normal(4)
    idx = rng.integers(0, 8, size=(6, 3))
    loss, dx, dw = floor_surface(xs, ws, idx)
    c = np.concatenate([np.where(xs > 0, np.clip(xs * ws, -1, 1),
                                 0.1 * np.clip(xs * ws, -1, 1)), xs], axis=1)
    g = np.take_along_axis(c, idx, axis=1)
    _assert_close("surface loss", loss, np.log(np.exp(g).sum(axis=1)).sum(), 1e-12, 1e-12)
    _assert_close("surface dx", dx.flat[:8],
                  _fd_grad(lambda z: floor_surface(z, ws, idx)[0], xs, range(8)))
    _assert_close("surface dw", dw, _fd_grad(lambda z: floor_surface(xs, z, idx)[0], ws,
                                             range(4)))

    # (f) cnn step: in float64, loss vs a direct convolution, gradients vs FD.
    xc = rng.standard_normal((3, 1, 7, 7))
    tc = rng.integers(0, 10, size=3)
    pc = [rng.standard_normal((2, 1, 3, 3)), rng.standard_normal(2),
          rng.standard_normal((2 * 2 * 2, 10)), rng.standard_normal(10)]
    loss, *grads = floor_cnn(xc, *pc, tc)
    z = np.zeros((3, 2, 5, 5))
    for i in range(3):
        for j in range(3):
            z += pc[0][None, :, 0, i, j, None, None] * xc[:, :, i:i + 5, j:j + 5]
    z += pc[1][:, None, None]
    pooled = np.maximum(z, 0)[:, :, :4, :4].reshape(3, 2, 2, 2, 2, 2).max(axis=(3, 5))
    logits = pooled.reshape(3, -1) @ pc[2] + pc[3]
    lse = np.log(np.exp(logits).sum(axis=1))
    _assert_close("cnn loss", loss, np.mean(lse - logits[np.arange(3), tc]), 1e-12, 1e-12)
    for k, name in enumerate(("W", "b", "Wl", "bl")):
        idx = rng.choice(pc[k].size, size=min(6, pc[k].size), replace=False)

        def loss_c(pk, k=k):
            ps = list(pc)
            ps[k] = pk
            return floor_cnn(xc, *ps, tc)[0]
        _assert_close("cnn grad " + name, grads[k].flat[idx], _fd_grad(loss_c, pc[k], idx))


# --------------------------------------------------------------------------
# Timing
# --------------------------------------------------------------------------

# The clock of every timing: wall time, or with --cpu-time this process's CPU time
# (time.process_time: steadier on a shared, loaded machine, where other processes
# take the CPU away between calls).
_clock = time.perf_counter


def calibrate(fn, min_time, warmup):
    """Warm up, then pick `number` (calls per repeat) so that one repeat takes
    about `min_time` seconds."""
    for _ in range(warmup):
        fn()
    t0 = _clock()
    fn()
    once = _clock() - t0
    return max(1, min(100000, int(math.ceil(min_time / max(once, 1e-9)))))


def time_once(fn, number):
    """Seconds per call over one repeat of `number` calls."""
    t0 = _clock()
    for _ in range(number):
        fn()
    return (_clock() - t0) / number


def _np_of(obj, torch):
    """An ndarray from a numpy value, a pyad.Variable or a torch.Tensor."""
    if torch is not None and isinstance(obj, torch.Tensor):
        return obj.detach().cpu().numpy()
    if isinstance(obj, (np.ndarray, np.generic, float, int)):
        return np.asarray(obj)
    data = getattr(obj, "data", None)      # pyad.Variable
    if data is None:
        raise TypeError("can't convert %r to an ndarray" % (type(obj),))
    return np.asarray(data)


def compare(results, refs, tol, torch):
    if len(results) != len(refs):
        return "returned %d values, expected %d" % (len(results), len(refs))
    for i, (got, want) in enumerate(zip(results, refs)):
        if got is None:
            return "value %d is None (missing gradient?)" % i
        got = _np_of(got, torch)
        if got.shape != np.shape(want):
            return "value %d: shape %s, expected %s" % (i, got.shape, np.shape(want))
        if not np.allclose(got, want, **tol):
            return "value %d: max |diff| %.3g (max |want| %.3g)" % (
                i, float(np.max(np.abs(got - want))), float(np.max(np.abs(want))))
    return None


def run_case(case, frameworks, args):
    """Check every column against the floor, then time the columns that
    passed. The repeats are interleaved (floor, pyad, torch, floor, ...), so
    slow drift of the machine hits all columns alike and the ratios stay
    steadier than the absolute numbers."""
    torch = frameworks.get("torch")
    row = {"name": case.name, "target": case.target}

    gc.collect()
    runs = {"floor": case.floor()}
    refs = [np.asarray(r) for r in runs["floor"]()]     # first call = reference

    for fw in ("pyad", "torch"):
        mod = frameworks.get(fw)
        row[fw + "_us"] = row[fw + "_min_us"] = row[fw + "_ratio"] = None
        if mod is None:
            row[fw + "_status"] = "n/a"
            continue
        try:
            gc.collect()
            run = getattr(case, fw)(mod)
            err = compare(run(), refs, case.tol, torch)
        except Exception:
            row[fw + "_status"] = "ERROR"
            row[fw + "_detail"] = traceback.format_exc()
            continue
        if err is not None:
            row[fw + "_status"] = "WRONG"
            row[fw + "_detail"] = "result differs from the NumPy floor: " + err
            continue
        row[fw + "_status"] = "ok"
        runs[fw] = run

    numbers, times = {}, {}
    for col, run in list(runs.items()):
        try:
            numbers[col] = calibrate(run, args.min_time, args.warmup)
            times[col] = []
        except Exception:
            if col == "floor":
                raise
            row[col + "_status"] = "ERROR"
            row[col + "_detail"] = "while timing:\n" + traceback.format_exc()
            del runs[col]

    gc.collect()
    for _ in range(args.repeat):
        for col, run in list(runs.items()):
            try:
                times[col].append(time_once(run, numbers[col]))
            except Exception:
                if col == "floor":
                    raise
                row[col + "_status"] = "ERROR"
                row[col + "_detail"] = "while timing:\n" + traceback.format_exc()
                del runs[col]

    for col in runs:
        row[col + "_us"] = statistics.median(times[col]) * 1e6
        row[col + "_min_us"] = min(times[col]) * 1e6
        row[col + "_number"] = numbers[col]
    for fw in ("pyad", "torch"):
        if fw in runs:
            row[fw + "_ratio"] = row[fw + "_us"] / row["floor_us"]
    return row


# --------------------------------------------------------------------------
# Output
# --------------------------------------------------------------------------

def _fmt_count(n):
    if n >= 1000 and math.log10(n) == int(math.log10(n)):
        return "1e%d" % int(math.log10(n))
    return str(n)


def _fmt_us(us):
    if us >= 1000:
        return "{:,.0f}".format(us)
    if us >= 100:
        return "%.1f" % us
    return "%.2f" % us


def format_table(rows):
    lines = []
    for r in rows:
        cells = [r["name"], _fmt_us(r["floor_us"])]
        for fw in ("pyad", "torch"):
            if r[fw + "_status"] == "ok":
                cells += [_fmt_us(r[fw + "_us"]), "%.2fx" % r[fw + "_ratio"]]
            else:
                cells += [r[fw + "_status"], "-"]
            if fw == "pyad":
                t = r["target"]
                if t is None:
                    cells.append("-")
                else:
                    verdict = ""
                    if r["pyad_status"] == "ok":
                        verdict = " ok" if r["pyad_ratio"] <= t else " MISS"
                    cells.append("<=%.2fx%s" % (t, verdict))
        lines.append(cells)
    widths = [max(len(h), *(len(c[i]) for c in lines)) for i, h in enumerate(HEADER)]

    def fmt(cells):
        return "  ".join(c.ljust(w) if i == 0 else c.rjust(w)
                         for i, (c, w) in enumerate(zip(cells, widths)))
    out = [fmt(HEADER), "  ".join("-" * w for w in widths)]
    out += [fmt(c) for c in lines]
    return "\n".join(out)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--smoke", action="store_true",
                   help="tiny sizes and 3 repeats (CI check that everything runs)")
    p.add_argument("--repeat", type=int, default=None,
                   help="timed repeats per column; the median is reported (default 15, smoke 3)")
    p.add_argument("--min-time", type=float, default=None,
                   help="seconds per repeat; calls are batched to reach it (default 0.05, smoke 0.001)")
    p.add_argument("--warmup", type=int, default=None, help="untimed calls first (default 3, smoke 1)")
    p.add_argument("--only", default=None,
                   help="comma-separated subset of: " + ",".join(CASE_KEYS))
    p.add_argument("--json", metavar="PATH", help="also write the results as JSON to PATH")
    p.add_argument("--no-torch", action="store_true", help="skip the torch column")
    p.add_argument("--no-pyad", action="store_true", help="skip the pyad column")
    p.add_argument("--cpu-time", action="store_true",
                   help="time with this process's CPU time (time.process_time), not wall "
                        "time: for a loaded machine")
    args = p.parse_args(argv)
    if args.cpu_time:
        global _clock
        _clock = time.process_time
    if args.repeat is None:
        args.repeat = 3 if args.smoke else 15
    if args.min_time is None:
        args.min_time = 0.001 if args.smoke else 0.05
    if args.warmup is None:
        args.warmup = 1 if args.smoke else 3
    if args.repeat < 1:
        p.error("--repeat must be >= 1")
    cases = CASES
    if args.only:
        keys = [k.strip() for k in args.only.split(",") if k.strip()]
        bad = [k for k in keys if k not in CASE_KEYS]
        if bad:
            p.error("unknown --only key(s) %s; choose from %s" % (bad, ",".join(CASE_KEYS)))
        wanted = {c for k in keys for c in CASE_KEYS[k]}
        cases = [c for c in CASES if c in wanted]

    try:
        sys.stdout.reconfigure(errors="replace")
    except AttributeError:
        pass

    verify_floors()

    torch, torch_why = import_torch(args.no_torch)
    pyad, pyad_why = import_pyad(args.no_pyad)
    frameworks = {"torch": torch, "pyad": pyad}

    meta = {
        "python": platform.python_version(),
        "platform": platform.platform(),
        "machine": platform.machine(),
        "numpy": np.__version__,
        "torch": torch.__version__ if torch is not None else None,
        "torch_unavailable": torch_why,
        "torch_threads": torch.get_num_threads() if torch is not None else None,
        "pyad": getattr(pyad, "__version__", "?") if pyad is not None else None,
        "pyad_file": getattr(pyad, "__file__", None) if pyad is not None else None,
        "pyad_unavailable": pyad_why,
        "threads_env": {v: os.environ.get(v) for v in
                        ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")},
        "smoke": args.smoke,
        "repeat": args.repeat,
        "min_time_s": args.min_time,
        "warmup": args.warmup,
    }
    print("pyad core benchmarks%s: median of %d repeats (>= %g s each), one thread"
          % (" (SMOKE sizes)" if args.smoke else "", args.repeat, args.min_time))
    print("python %s, numpy %s, torch %s, pyad %s" % (
        meta["python"], meta["numpy"],
        meta["torch"] or "n/a (%s)" % torch_why,
        ("%s (%s)" % (meta["pyad"], meta["pyad_file"])) if pyad is not None
        else "n/a (%s)" % pyad_why))
    print("floor self-checks vs finite differences: ok")
    print()

    rows = []
    for cls in cases:
        rows.append(run_case(cls(SMOKE if args.smoke else FULL), frameworks, args))
    print(format_table(rows))
    print()
    print("ratios are framework median / NumPy floor median; target applies to pyad/floor")

    failed = False
    for r in rows:
        for fw in ("pyad", "torch"):
            if r[fw + "_status"] in ("ERROR", "WRONG"):
                failed = True
                print("\n%s %s in %s:\n%s" % (fw, r[fw + "_status"], r["name"],
                                               r[fw + "_detail"].rstrip()), file=sys.stderr)

    if args.json:
        with open(args.json, "w") as fh:
            json.dump({"meta": meta, "results": rows}, fh, indent=2)
        print("wrote", args.json)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
