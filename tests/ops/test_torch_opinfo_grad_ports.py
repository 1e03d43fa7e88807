"""Ports of the gradient checks of PyTorch's OpInfo tests (test/test_ops.py) for the
differentiable ops pyad has that the differential sweeps (test_torch_sweep_*.py) do not
already gradcheck: reductions with dims, shape ops, linear algebra, binary ops with
broadcasting / alpha / rounding modes, and nn.functional.

One table, ``OPS``: op name -> the callable in pyad and in torch (the same expression,
written once against a namespace ``L`` that is ``pyad`` or ``torch``), a sample-input
builder after the OpInfo's ``sample_inputs_*`` (small shapes, with 0-d, empty, broadcast
and non-contiguous inputs where the OpInfo has them), the OpInfo's supports_gradgrad /
supports_forward_ad flags and its complex dtypes, and the method / in-place / out=
variants. Parametrized over the table, with torch's test names:

- ``test_fn_grad`` / ``test_fn_gradgrad`` (TestGradients): pyad.autograd.gradcheck and
  gradgradcheck in float64 (and complex128 where the OpInfo's dtypes include complex)
  with torch's tolerances (eps=1e-6, atol=1e-5, rtol=1e-3) and the OpInfo's
  gradcheck_nondet_tol;
- ``test_fn_grad_matches_torch``: outputs and the gradient of ``real(out * w).sum()``
  equal torch 2.13's on the same inputs (float64, and complex128 where the OpInfo's
  dtypes include complex);
- ``test_forward_mode_AD``: the tangents pyad.autograd.forward_ad gives equal
  torch.autograd.forward_ad's, where the OpInfo has supports_forward_ad;
- ``test_variant_consistency_eager`` (TestCommon, with test_out's out= check): the
  method, in-place and out= forms give torch's function's outputs and gradients;
- ``test_noncontiguous_samples`` (TestCommon): every floating input passed as a
  non-contiguous view (a step slice of a larger leaf) gives torch's outputs and
  gradients on the contiguous inputs.

Expected values come from torch on the same inputs, never from pyad. Where an OpInfo
post-processes outputs for gradcheck (hermitian inputs of eigh / cholesky, the sign
gauge of eigenvectors and singular vectors), the same processing is in the op's
expression here.
"""
import zlib

import numpy as np
import pytest

import pyad
import pyad.autograd.forward_ad as pfwAD
from pyad.autograd import gradcheck, gradgradcheck

torch = pytest.importorskip("torch")
import torch.autograd.forward_ad as tfwAD  # noqa: E402

GC = dict(eps=1e-6, atol=1e-5, rtol=1e-3)          # torch's gradcheck defaults
CLOSE = dict(rtol=1e-7, atol=1e-7)                 # torch's assert_close, float64


# -- sample inputs ---------------------------------------------------------------------


class ND:
    """A non-differentiable array input (indices, masks, targets, running stats)."""

    def __init__(self, a):
        self.a = np.asarray(a)


class _Rng:
    def __init__(self, key):
        self.g = np.random.default_rng(zlib.crc32(key.encode()))

    def __call__(self, *shape, low=-1.0, high=1.0):
        return np.asarray(self.g.uniform(low, high, shape))

    def pos(self, *shape):
        return np.asarray(self.g.uniform(0.5, 1.5, shape))

    def spread(self, *shape, offset=0.013):
        """Values without ties, 0.1 apart (max / min / sorting ops)."""
        n = int(np.prod(shape))
        v = (self.g.permutation(n) - n / 2.0) * 0.1 + offset
        return np.asarray(v.reshape(shape))

    def spread2(self, *shape):
        """As spread, never equal to a value of spread (the other side of maximum)."""
        return self.spread(*shape, offset=0.061)

    def nonzero(self, *shape):
        s = self.g.choice([-1.0, 1.0], shape)
        return np.asarray(s * self.g.uniform(0.5, 1.5, shape))

    def wellcond(self, *shape):
        n = shape[-1]
        return self.g.uniform(-1, 1, shape) + 3 * np.eye(n)

    def spd(self, *shape):
        a = self.g.uniform(-1, 1, shape)
        return a @ np.swapaxes(a, -1, -2) + shape[-1] * np.eye(shape[-1])

    def idx(self, high, *shape):
        return ND(self.g.integers(0, high, shape))

    def ints(self, *shape, high=3):
        return self.g.integers(0, high, shape)


class Op:
    def __init__(self, name, fn, samples, *, gradgrad=True, fwd=True, cplx=False,
                 method=None, inplace=None, out=False, nc=True, gc=True, nondet=0.0):
        self.name, self.samples, self.gc, self.nondet = name, samples, gc, nondet
        self.fn = fn if fn is not None else (lambda L, _n=name: _resolve(L, _n))
        self.gradgrad, self.fwd, self.cplx = gradgrad, fwd, cplx
        self.method, self.inplace, self.out, self.nc = method, inplace, out, nc

    def cases(self):
        return self.samples(_Rng(self.name))


def _resolve(L, name):
    obj = L
    for part in name.split("."):
        obj = getattr(obj, part)
    return obj


def F(name):
    return lambda L: getattr(L.nn.functional, name)


def M(name, *a, **k):
    """A Tensor-method-only op (repeat, expand, Tensor.unfold)."""
    return lambda L: (lambda x, *aa, **kk: getattr(x, name)(*aa, **kk))


def S(*cases):
    """Samples given as a function of the rng: each case is (args, kwargs)."""
    return cases


# -- the table -------------------------------------------------------------------------

def _red(dims=(None, 0, -1, (0, 1)), keep=True, extra=None, maker="__call__",
         scalar=True):
    def build(r):
        mk = getattr(r, maker)
        out = [((mk(),), {})] if scalar else []     # 0-d
        out.append(((mk(2, 3),), {}))               # full reduction
        for d in dims:
            if d is None:
                continue
            out.append(((mk(2, 3),), dict(dim=d)))
            if keep:
                out.append(((mk(2, 3, 2),), dict(dim=d, keepdim=True)))
        for kw in (extra or []):
            out.append(((mk(2, 3),), dict(kw)))
        return out
    return build


def _scan(maker="__call__"):
    def build(r):
        mk = getattr(r, maker)
        return [((mk(),), dict(dim=0)), ((mk(4),), dict(dim=0)),
                ((mk(2, 3),), dict(dim=1)), ((mk(2, 3),), dict(dim=-2)),
                ((mk(0, 3),), dict(dim=1))]
    return build


def _bin(maker="__call__", maker2=None, extra=None):
    def build(r):
        mk = getattr(r, maker)
        mk2 = getattr(r, maker2 or maker)
        out = [((mk(2, 3), mk2(2, 3)), {}),
               ((mk(2, 3), mk2(3)), {}),             # broadcast
               ((mk(3, 1), mk2(1, 4)), {}),          # both broadcast
               ((mk(), mk2(2)), {}),                 # 0-d
               ((mk(0, 3), mk2(3)), {})]             # empty
        for kw in (extra or []):
            out.append(((mk(2, 3), mk2(2, 3)), dict(kw)))
        return out
    return build


def _mat_op(fn):
    return lambda L: (lambda a, _f=fn: _f(L, a))


OPS = [
    # reductions with dims
    Op("sum", None, _red(extra=[dict(dim=())]), cplx=True, method="sum", out=True),
    Op("mean", None, _red(), cplx=True, method="mean", out=True),
    Op("var", None, _red(dims=(None, 1, (0, 1)),
                         extra=[dict(dim=1, correction=0), dict(dim=0, unbiased=False)],
                         scalar=False),
       cplx=True, method="var"),
    Op("std", None, _red(dims=(None, 1, (0, 1)),
                         extra=[dict(dim=1, correction=0), dict(dim=0, unbiased=False)],
                         scalar=False),
       method="std", cplx=True),
    Op("prod", lambda L: L.prod,
       lambda r: [((r.nonzero(),), {}), ((r.nonzero(2, 3),), {}),
                  ((r.nonzero(2, 3),), dict(dim=1)),
                  ((r.nonzero(2, 3, 2),), dict(dim=0, keepdim=True))],
       cplx=True, method="prod", out=True, nondet=1e-12),
    Op("amax", None, _red(maker="spread"), method="amax", out=True),
    Op("amin", None, _red(maker="spread"), method="amin", out=True),
    Op("norm", None,
       lambda r: [((r.nonzero(2, 3),), {}), ((r.nonzero(2, 3),), dict(p=1, dim=1)),
                  ((r.nonzero(2, 3),), dict(p=3, dim=0, keepdim=True)),
                  ((r.spread(2, 3),), dict(p=float("inf"), dim=1)),
                  ((r.nonzero(2, 3),), dict(p="fro"))],
       method="norm", cplx=True),
    Op("logsumexp", None,
       lambda r: [((r(),), dict(dim=0)), ((r(2, 3),), dict(dim=1)),
                  ((r(2, 3),), dict(dim=(0, 1))),
                  ((r(2, 3, 2),), dict(dim=-1, keepdim=True))],
       method="logsumexp", out=True, cplx=True),
    Op("cumsum", None, _scan(), cplx=True, method="cumsum", inplace="cumsum_", out=True),
    Op("cumprod", None, _scan("nonzero"), cplx=True, method="cumprod", out=True),
    Op("cummax", None, _scan("spread"), method="cummax", nondet=1e-12),
    Op("cummin", None, _scan("spread"), method="cummin", nondet=1e-12),
    # shape ops
    Op("cat", lambda L: (lambda *ts, **k: L.cat(list(ts), **k)),
       lambda r: [((r(2, 3), r(1, 3), r(0, 3)), dict(dim=0)),
                  ((r(2, 3), r(2, 1)), dict(dim=-1)), ((r(3),), {})],
       cplx=True),
    Op("stack", lambda L: (lambda *ts, **k: L.stack(list(ts), **k)),
       lambda r: [((r(2, 3), r(2, 3)), dict(dim=0)), ((r(2, 3), r(2, 3)), dict(dim=2)),
                  ((r(), r()), {})],
       cplx=True),
    Op("split", None,
       lambda r: [((r(4, 3), 2), {}), ((r(4, 3), [1, 2]), dict(dim=1)),
                  ((r(5), 2), {})],
       cplx=True, method="split"),
    Op("chunk", None,
       lambda r: [((r(4, 3), 2), {}), ((r(4, 3), 3), dict(dim=1)), ((r(5), 2), {})],
       method="chunk", cplx=True),
    Op("gather", None,
       lambda r: [((r(3, 4), 1, r.idx(4, 3, 2)), {}), ((r(3, 4), 0, r.idx(3, 2, 4)), {}),
                  ((r(), 0, ND(np.array(0))), {})],
       method="gather", cplx=True, nondet=1e-12),
    Op("scatter", None,
       lambda r: [((r(3, 4), 1, ND(np.array([[0, 2], [1, 3], [3, 0]])), r(3, 2)), {}),
                  ((r(3, 4), 0, ND(np.array([[2, 0, 1, 1]])), r(1, 4)), {})],
       method="scatter", inplace="scatter_", cplx=True),
    Op("scatter_add", None,
       lambda r: [((r(3, 4), 1, r.idx(4, 3, 3), r(3, 3)), {}),
                  ((r(3, 4), 0, r.idx(3, 2, 4), r(2, 4)), {})],
       method="scatter_add", inplace="scatter_add_", cplx=True),
    Op("index_select", None,
       lambda r: [((r(3, 4), 1, ND(np.array([0, 2, 2]))), {}),
                  ((r(3, 4), 0, ND(np.array([], dtype=np.int64))), {}),
                  ((r(), 0, ND(np.array([0]))), {})],
       cplx=True, method="index_select", out=True, nondet=1e-12),
    Op("index_add", None,
       lambda r: [((r(3, 4), 0, ND(np.array([0, 2])), r(2, 4)), {}),
                  ((r(3, 4), 1, ND(np.array([3, 1, 3])), r(3, 3)), dict(alpha=2.0))],
       method="index_add", inplace="index_add_", cplx=True, nondet=1e-12),
    Op("masked_fill", None,
       lambda r: [((r(2, 3), ND(np.array([[1, 0, 1], [0, 0, 1]], bool)), 2.5), {}),
                  ((r(2, 3), ND(np.array([True, False, True])), -1.0), {}),
                  ((r(), ND(np.array(True)), 0.5), {})],
       cplx=True, method="masked_fill", inplace="masked_fill_"),
    Op("take_along_dim", None,
       lambda r: [((r(3, 4), r.idx(4, 3, 2)), dict(dim=1)),
                  ((r(3, 4), r.idx(3, 1, 4)), dict(dim=0)),
                  ((r(3, 4), r.idx(12, 5)), {})],
       method="take_along_dim", out=True, cplx=True, nondet=1e-12),
    Op("roll", None,
       lambda r: [((r(3, 4), 1), {}), ((r(3, 4), (1, -2), (0, 1)), {}),
                  ((r(5), 7, 0), {})],
       cplx=True, method="roll"),
    Op("flip", None,
       lambda r: [((r(3, 4), (0,)), {}), ((r(2, 3, 2), (0, 2)), {}), ((r(), ()), {})],
       cplx=True, method="flip"),
    Op("tril", None,
       lambda r: [((r(3, 4),), {}), ((r(3, 4), 1), {}), ((r(2, 3, 3), -1), {}),
                  ((r(0, 3),), {})],
       cplx=True, method="tril", inplace="tril_", out=True),
    Op("triu", None,
       lambda r: [((r(3, 4),), {}), ((r(3, 4), -1), {}), ((r(2, 3, 3), 2), {})],
       cplx=True, method="triu", inplace="triu_", out=True),
    Op("diagonal", None,
       lambda r: [((r(3, 4),), {}), ((r(3, 4), 1), {}), ((r(2, 3, 4), -1, 0, 2), {})],
       method="diagonal", cplx=True),
    Op("diag_embed", None,
       lambda r: [((r(3),), {}), ((r(2, 3), 1), {}), ((r(2, 3), -1, 0, 2), {})],
       method="diag_embed", cplx=True),
    Op("repeat", M("repeat"),
       lambda r: [((r(2, 3), 2, 1), {}), ((r(3), 2, 2), {}), ((r(), 3), {})], cplx=True),
    Op("expand", M("expand"),
       lambda r: [((r(3, 1), 3, 4), {}), ((r(3), 2, 3), {}), ((r(), 2), {}),
                  ((r(1, 3), -1, 3), {})], cplx=True),
    Op("Tensor.unfold", M("unfold"),
       lambda r: [((r(7), 0, 3, 2), {}), ((r(3, 5), 1, 2, 1), {}), ((r(), 0, 1, 1), {})],
       cplx=True),
    Op("narrow", None,
       lambda r: [((r(3, 4), 1, 1, 2), {}), ((r(3, 4), 0, 0, 0), {}),
                  ((r(3, 4), -1, 2, 2), {})],
       cplx=True, method="narrow"),
    Op("movedim", None,
       lambda r: [((r(2, 3, 4), 0, 2), {}), ((r(2, 3, 4), (0, 1), (2, 0)), {})],
       method="movedim", cplx=True),
    # linear algebra
    Op("matmul", None,
       lambda r: [((r(3), r(3)), {}), ((r(2, 3), r(3)), {}), ((r(3), r(3, 2)), {}),
                  ((r(2, 3), r(3, 2)), {}), ((r(2, 2, 3), r(3, 2)), {}),
                  ((r(2, 1, 2, 3), r(3, 3, 2)), {}), ((r(0, 3), r(3, 2)), {})],
       cplx=True, method="matmul", out=True),
    Op("mm", None, lambda r: [((r(2, 3), r(3, 4)), {})], cplx=True, method="mm",
       out=True),
    Op("mv", None, lambda r: [((r(2, 3), r(3)), {})], cplx=True, method="mv", out=True),
    Op("bmm", None, lambda r: [((r(2, 2, 3), r(2, 3, 4)), {})], cplx=True, method="bmm",
       out=True),
    Op("baddbmm", None,
       lambda r: [((r(2, 2, 4), r(2, 2, 3), r(2, 3, 4)), {}),
                  ((r(4), r(2, 2, 3), r(2, 3, 4)), dict(beta=0.5, alpha=2.0))],
       cplx=True, method="baddbmm", inplace="baddbmm_", out=True),
    Op("addmm", None,
       lambda r: [((r(2, 4), r(2, 3), r(3, 4)), {}),
                  ((r(4), r(2, 3), r(3, 4)), dict(beta=0.2, alpha=0.6))],
       cplx=True, method="addmm", inplace="addmm_", out=True, nondet=1e-12),
    Op("addmv", None,
       lambda r: [((r(2), r(2, 3), r(3)), {}),
                  ((r(), r(2, 3), r(3)), dict(beta=0.2, alpha=0.6))],
       cplx=True, method="addmv", inplace="addmv_", out=True),
    Op("einsum", lambda L: (lambda eq, *ts: L.einsum(eq, *ts)),
       lambda r: [(("ij,jk->ik", r(2, 3), r(3, 4)), {}), (("ii->i", r(3, 3)), {}),
                  (("bij,bjk->bik", r(2, 2, 3), r(2, 3, 2)), {}),
                  (("i,j->ij", r(2), r(3)), {}), (("...i,...i->...", r(2, 3), r(3)), {})],
       cplx=True),
    Op("tensordot", None,
       lambda r: [((r(2, 3, 4), r(3, 4, 2)), dict(dims=2)),
                  ((r(2, 3), r(3, 2)), dict(dims=([1], [0]))),
                  ((r(2, 3), r(4)), dict(dims=0))],
       cplx=True),
    Op("kron", None,
       lambda r: [((r(2, 3), r(2, 2)), {}), ((r(3), r(2, 1)), {})],
       cplx=True, method="kron", out=True),
    Op("linalg.cross", None,
       lambda r: [((r(2, 3), r(2, 3)), {}), ((r(3, 2), r(3, 2)), dict(dim=0)),
                  ((r(2, 3), r(1, 3)), {})],
       cplx=True),
    Op("linalg.norm", None,
       lambda r: [((r.nonzero(4),), {}), ((r.nonzero(2, 3),), {}),
                  ((r.nonzero(2, 3),), dict(ord=1, dim=1)),
                  ((r.nonzero(2, 3),), dict(ord="fro")),
                  ((r.nonzero(2, 3),), dict(ord=3, dim=0, keepdim=True)),
                  ((r.wellcond(3, 3),), dict(ord="nuc"))], cplx=True),
    Op("linalg.det", None,
       lambda r: [((r.wellcond(3, 3),), {}), ((r.wellcond(2, 2, 2),), {}),
                  ((r(1, 1),), {})],
       cplx=True),
    Op("linalg.inv", None,
       lambda r: [((r.wellcond(3, 3),), {}), ((r.wellcond(2, 2, 2),), {})], cplx=True),
    Op("linalg.solve", None,
       lambda r: [((r.wellcond(3, 3), r(3, 2)), {}), ((r.wellcond(3, 3), r(3)), {}),
                  ((r.wellcond(2, 3, 3), r(2, 3, 1)), {})],
       cplx=True),
    Op("linalg.cholesky",
       _mat_op(lambda L, a: L.linalg.cholesky(a + a.mT)),   # gradcheck_wrapper_hermitian_input
       lambda r: [((r.spd(3, 3) * 0.5,), {}), ((r.spd(2, 2, 2) * 0.5,), {})]),
    Op("linalg.qr", None,
       lambda r: [((r.wellcond(3, 3),), {}), ((r(4, 2),), {}),
                  ((r(2, 4),), dict(mode="complete"))], cplx=True),
    Op("linalg.svd",
       _mat_op(lambda L, a: _svd_processed(L, a)),
       lambda r: [((r(3, 2),), {}), ((r(2, 3),), {})]),
    Op("linalg.eigh",
       _mat_op(lambda L, a: _eigh_processed(L, a)),
       lambda r: [((r(3, 3),), {}), ((r(2, 2, 2),), {})]),
    Op("linalg.pinv", None,
       lambda r: [((r.wellcond(3, 3),), {}), ((r(3, 2) + np.eye(3, 2),), {}),
                  ((r(2, 3) + np.eye(2, 3),), {})], cplx=True),
    Op("linalg.matrix_exp", None,
       lambda r: [((r(3, 3),), {}), ((r(2, 2, 2),), {}), ((r(1, 1),), {})], cplx=True),
    # binary, broadcasting, alpha, rounding modes
    Op("add", None, _bin(extra=[dict(alpha=2.0)]), cplx=True, method="add",
       inplace="add_", out=True),
    Op("sub", None, _bin(extra=[dict(alpha=-0.5)]), cplx=True, method="sub",
       inplace="sub_", out=True),
    Op("mul", None, _bin(), cplx=True, method="mul", inplace="mul_", out=True),
    Op("div", None, _bin(maker2="nonzero"), cplx=True, method="div", inplace="div_",
       out=True),
    Op("div_trunc", lambda L: (lambda a, b: L.div(a, b, rounding_mode="trunc")),
       _bin(maker2="nonzero")),
    Op("div_floor", lambda L: (lambda a, b: L.div(a, b, rounding_mode="floor")),
       _bin(maker2="nonzero")),
    Op("pow", None,
       lambda r: [((r.pos(2, 3), r(2, 3)), {}), ((r.pos(2, 3), r(3)), {}),
                  ((r.pos(2, 3), 2.5), {}), ((r.nonzero(2, 3), 3), {}),
                  ((r.pos(), r(2)), {})],
       cplx=True, method="pow", out=True),
    Op("atan2", None, _bin(maker="nonzero"), method="atan2", inplace="atan2_", out=True),
    Op("hypot", None, _bin(maker="nonzero"), method="hypot", inplace="hypot_", out=True),
    Op("maximum", None, _bin(maker="spread", maker2="spread2"), method="maximum",
       out=True),
    Op("minimum", None, _bin(maker="spread", maker2="spread2"), method="minimum",
       out=True),
    Op("lerp", None,
       lambda r: [((r(2, 3), r(2, 3), 0.3), {}), ((r(2, 3), r(2, 3), r(2, 3)), {}),
                  ((r(2, 3), r(3), r(2, 1)), {}), ((r(), r(), 0.7), {})],
       cplx=True, method="lerp", inplace="lerp_", out=True),
    Op("addcmul", None,
       lambda r: [((r(2, 3), r(2, 3), r(2, 3)), {}),
                  ((r(2, 3), r(3), r(2, 1)), dict(value=0.5))],
       cplx=True, method="addcmul", inplace="addcmul_", out=True),
    Op("addcdiv", None,
       lambda r: [((r(2, 3), r(2, 3), r.nonzero(2, 3)), {}),
                  ((r(2, 3), r(3), r.nonzero(2, 1)), dict(value=-2.0))],
       cplx=True, method="addcdiv", inplace="addcdiv_", out=True),
    Op("where", None,
       lambda r: [((ND(r.ints(2, 3, high=2).astype(bool)), r(2, 3), r(2, 3)), {}),
                  ((ND(np.array([True, False, True])), r(2, 3), r(3)), {}),
                  ((ND(np.array(True)), r(), r(2)), {})],
       cplx=True),
    Op("clamp", None,
       lambda r: [((r(2, 3), r(2, 3) - 0.5, r(2, 3) + 0.5), {}),
                  ((r(2, 3), r(3) - 0.5, None), {}),
                  ((r(2, 3), None, r(2, 1)), {}), ((r(2, 3), -0.3, 0.4), {})],
       method="clamp", out=True),
    # nn.functional
    Op("nn.functional.conv1d", None,
       lambda r: [((r(1, 2, 5), r(3, 2, 2), r(3)), {}),
                  ((r(2, 4, 6), r(2, 2, 3)), dict(stride=2, padding=1, groups=2))],
       cplx=True, nondet=1e-12),
    Op("nn.functional.conv2d", None,
       lambda r: [((r(1, 2, 4, 4), r(2, 2, 2, 2), r(2)), {}),
                  ((r(1, 2, 5, 4), r(2, 1, 3, 2)), dict(stride=(2, 1), padding=1,
                                                        groups=2, dilation=(1, 2)))],
       cplx=True, nondet=1e-12),
    Op("nn.functional.linear", None,
       lambda r: [((r(2, 3), r(4, 3), r(4)), {}), ((r(3), r(2, 3)), {}),
                  ((r(2, 2, 3), r(4, 3), r(4)), {})],
       cplx=True, nondet=1e-12),
    Op("nn.functional.softmax", None,
       lambda r: [((r(2, 3),), dict(dim=1)), ((r(2, 3),), dict(dim=0)),
                  ((r(),), dict(dim=0)), ((r(0, 3),), dict(dim=1))]),
    Op("nn.functional.log_softmax", None,
       lambda r: [((r(2, 3),), dict(dim=1)), ((r(2, 3),), dict(dim=0)),
                  ((r(),), dict(dim=0))]),
    Op("nn.functional.softmin", None,
       lambda r: [((r(2, 3),), dict(dim=1)), ((r(2, 3, 2),), dict(dim=-1))]),
    Op("nn.functional.layer_norm", None,
       lambda r: [((r(2, 3), (3,), r(3), r(3)), {}), ((r(2, 2, 3), (2, 3)), {}),
                  ((r(2, 3), (3,)), dict(eps=0.1))]),
    Op("nn.functional.group_norm", None,
       lambda r: [((r(2, 4, 3), 2, r(4), r(4)), {}), ((r(2, 4, 2, 2), 4), {})]),
    Op("nn.functional.batch_norm", None,
       lambda r: [((r(3, 2, 2), ND(r(2)), ND(r.pos(2)), r(2), r(2)), dict(training=True)),
                  ((r(3, 2), ND(r(2)), ND(r.pos(2)), r(2), r(2)), dict(training=False)),
                  ((r(4, 3), None, None), dict(training=True))]),
    Op("nn.functional.embedding", lambda L: (lambda i, w, **k: L.nn.functional.embedding(
        i, w, **k)),
       lambda r: [((r.idx(4, 2, 3), r(4, 3)), {}), ((r.idx(4, 5), r(4, 2)), {}),
                  ((ND(np.array([[0, 3], [3, 2]])), r(4, 2)), dict(max_norm=None))]),
    # padding_idx: the padding row gets no gradient by design (torch's gradcheck fails
    # on it too, the OpInfo checks it against the reference only)
    Op("nn.functional.embedding_padding_idx",
       lambda L: (lambda i, w, **k: L.nn.functional.embedding(i, w, **k)),
       lambda r: [((ND(np.array([0, 1, 1, 3])), r(4, 2)), dict(padding_idx=1)),
                  ((ND(np.array([[2, 0], [0, 0]])), r(3, 2)), dict(padding_idx=-3))],
       gc=False),
    Op("nn.functional.cross_entropy", None,
       lambda r: [((r(3, 4), r.idx(4, 3)), {}),
                  ((r(3, 4), r.idx(4, 3)), dict(reduction="sum", label_smoothing=0.1)),
                  ((r(2, 3, 2), r.idx(3, 2, 2)), dict(reduction="none")),
                  ((r(3, 4), r.pos(3, 4) / 4), {})]),
    Op("nn.functional.cross_entropy_weighted",
       lambda L: (lambda x, t, w, **k: L.nn.functional.cross_entropy(x, t, weight=w, **k)),
       # the class weights are not differentiable (torch refuses a weight requiring grad)
       lambda r: [((r(3, 4), r.idx(4, 3), ND(r.pos(4))), {}),
                  ((r(3, 4), ND(np.array([0, 2, 1])), ND(r.pos(4))), dict(ignore_index=2))]),
    Op("nn.functional.nll_loss", None,
       lambda r: [((r(3, 4), r.idx(4, 3)), {}),
                  ((r(3, 4), r.idx(4, 3)), dict(reduction="sum")),
                  ((r(2, 3, 2), r.idx(3, 2, 2)), dict(reduction="none")),
                  ((r(3, 4), ND(np.array([0, 2, 1]))), dict(ignore_index=1))]),
    Op("nn.functional.mse_loss", None,
       lambda r: [((r(2, 3), r(2, 3)), {}), ((r(2, 3), r(2, 3)), dict(reduction="sum")),
                  ((r(), r()), dict(reduction="none"))]),
    Op("nn.functional.l1_loss", None,
       lambda r: [((r.spread(2, 3), r.spread(2, 3) + 0.021), {}),
                  ((r.spread(2, 3), r.spread(2, 3) + 0.021), dict(reduction="none"))],
       cplx=True),
    Op("nn.functional.smooth_l1_loss", None,
       lambda r: [((r(2, 3), r(2, 3)), {}),
                  ((r(2, 3) * 3, r(2, 3)), dict(beta=0.5, reduction="sum"))]),
    Op("nn.functional.huber_loss", None,
       lambda r: [((r(2, 3), r(2, 3)), {}),
                  ((r(2, 3) * 3, r(2, 3)), dict(delta=0.5, reduction="none"))]),
    Op("nn.functional.pad", None,
       lambda r: [((r(2, 3), (1, 2)), {}), ((r(2, 3), (1, 0, 0, 2)), dict(value=0.5)),
                  ((r(1, 2, 4), (2, 1)), dict(mode="reflect")),
                  ((r(1, 2, 3), (1, 2)), dict(mode="replicate")),
                  ((r(1, 2, 3, 3), (1, 1, 2, 0)), dict(mode="circular")),
                  ((r(2, 3), (-1, 1)), {})],
       cplx=True),
    Op("nn.functional.interpolate", None,
       lambda r: [((r(1, 2, 3),), dict(size=5, mode="nearest")),
                  ((r(1, 2, 3),), dict(scale_factor=2, mode="linear")),
                  ((r(1, 2, 3),), dict(size=4, mode="linear", align_corners=True)),
                  ((r(1, 1, 2, 3),), dict(size=(3, 4), mode="bilinear")),
                  ((r(1, 1, 2, 3),), dict(size=(4, 4), mode="bicubic",
                                           align_corners=True)),
                  ((r(1, 1, 4, 4),), dict(size=(2, 3), mode="area")),
                  ((r(1, 1, 2, 3),), dict(scale_factor=2, mode="nearest-exact"))]),
    Op("nn.functional.avg_pool1d", None,
       lambda r: [((r(1, 2, 6), 2), {}),
                  ((r(1, 2, 5), 3), dict(stride=2, padding=1, count_include_pad=False))],
       nondet=1e-12),
    Op("nn.functional.avg_pool2d", None,
       lambda r: [((r(1, 2, 4, 4), 2), {}),
                  ((r(1, 1, 5, 4), (3, 2)), dict(stride=(2, 1), padding=1, ceil_mode=True))]),
    Op("nn.functional.max_pool1d", None,
       lambda r: [((r.spread(1, 2, 6), 2), {}),
                  ((r.spread(1, 2, 5), 3), dict(stride=2, padding=1))]),
    Op("nn.functional.max_pool2d", None,
       lambda r: [((r.spread(1, 2, 4, 4), 2), {}),
                  ((r.spread(1, 1, 5, 4), (3, 2)), dict(stride=(2, 1), padding=1,
                                                        ceil_mode=True))]),
    Op("nn.functional.unfold", None,
       lambda r: [((r(1, 2, 3, 3), 2), {}),
                  ((r(1, 1, 4, 3), (2, 2)), dict(stride=2, padding=1))], cplx=True),
    Op("nn.functional.fold", None,
       lambda r: [((r(1, 8, 4), (3, 3), 2), {}),
                  ((r(1, 4, 6), (4, 3), (2, 2)), dict(stride=2, padding=1))]),
    # pdist / cdist: torch's OpInfos have supports_gradgrad=False (no double backward in
    # torch); pyad's is checked here against finite differences all the same.
    Op("nn.functional.pdist", None,
       lambda r: [((r(4, 3),), {}), ((r(3, 2),), dict(p=1)), ((r(3, 2),), dict(p=3))],
       fwd=False),
    Op("cdist", None,
       lambda r: [((r(3, 2), r(4, 2)), {}), ((r(2, 3, 2), r(2, 2, 2)), dict(p=1)),
                  ((r(3, 2), r(2, 2)), dict(p=3))],
       fwd=False),
    Op("nn.functional.cosine_similarity", None,
       lambda r: [((r(3, 4), r(3, 4)), {}), ((r(3, 4), r(4)), dict(dim=-1)),
                  ((r(3, 4), r(3, 4)), dict(dim=0))]),
    Op("nn.functional.normalize", None,
       lambda r: [((r(3, 4),), {}), ((r(3, 4),), dict(p=1, dim=0)),
                  ((r(3),), dict(dim=0))], cplx=True),
]


def _svd_processed(L, a):
    # OpInfo linalg.svd: the singular vectors are defined up to sign, so gradcheck is
    # run on sign-invariant functions of them (here |U|, S, |Vh| of the thin SVD).
    U, S_, Vh = L.linalg.svd(a, full_matrices=False)
    return U.abs(), S_, Vh.abs()


def _eigh_processed(L, a):
    # OpInfo linalg.eigh: gradcheck_wrapper_hermitian_input plus eigenvectors taken up
    # to sign (their squares).
    w, V = L.linalg.eigh(a + a.mT)
    return w, V * V


OPS_BY_NAME = {op.name: op for op in OPS}
assert len(OPS_BY_NAME) == len(OPS)


# -- the harness -----------------------------------------------------------------------


def _is_float_array(x):
    return isinstance(x, np.ndarray) and x.dtype.kind in "fc"


def _tensor(L, a):
    a = np.array(a)
    return torch.from_numpy(a) if L is torch else pyad.tensor(a)


def _as_complex(a, key):
    g = np.random.default_rng(zlib.crc32(key.encode()))
    return a + 1j * g.uniform(-1, 1, a.shape)


def _args_with(L, args, kwargs, diff):
    """Replace the floating arrays of ``args`` by the Variables/tensors in ``diff`` (in
    order) and the ND arrays (of ``args`` and ``kwargs``) by tensors without grad."""
    it = iter(diff)
    out = []
    for a in args:
        if _is_float_array(a):
            out.append(next(it))
        elif isinstance(a, ND):
            out.append(_tensor(L, a.a))
        else:
            out.append(a)
    return out, {k: _tensor(L, v.a) if isinstance(v, ND) else v
                 for k, v in kwargs.items()}


def _diff_arrays(args, cplx_key=None):
    arrs = [a for a in args if _is_float_array(a)]
    if cplx_key is not None:
        arrs = [_as_complex(a, cplx_key + str(i)) for i, a in enumerate(arrs)]
    return arrs


def _flat(o):
    if isinstance(o, (tuple, list)):
        r = []
        for e in o:
            r.extend(_flat(e))
        return r
    return [o]


def _is_diff_out(L, o):
    if L is torch:
        return o.is_floating_point() or o.is_complex()
    return np.dtype(o.dtype).kind in "fc"


def _float_outs(L, o):
    return [e for e in _flat(o) if _is_diff_out(L, e)]


def _np(t):
    if t is None:
        return None
    if isinstance(t, torch.Tensor):
        t = t.detach()
        if t._is_zerotensor():       # a forward-AD / grad ZeroTensor has no storage
            return np.zeros(tuple(t.shape), dtype=torch.empty(0, dtype=t.dtype).numpy().dtype)
        return t.resolve_conj().resolve_neg().numpy()
    return np.asarray(t.detach().data)


def _call(op, L, args, kwargs, diff):
    a, k = _args_with(L, args, kwargs, diff)
    return op.fn(L)(*a, **k)


def _leaves(L, arrs):
    return [_tensor(L, a).requires_grad_(True) for a in arrs]


def _weights(outs, key):
    g = np.random.default_rng(zlib.crc32(key.encode()))
    ws = []
    for o in outs:
        w = g.uniform(-1, 1, tuple(o.shape))
        if np.dtype(_np(o).dtype).kind == "c":
            w = w + 1j * g.uniform(-1, 1, w.shape)
        ws.append(w)
    return ws


def _loss(L, outs, ws):
    total = None
    for o, w in zip(outs, ws):
        t = (o * _tensor(L, w)).real.sum() if np.iscomplexobj(w) else (o * _tensor(L, w)).sum()
        total = t if total is None else total + t
    return total


def _grads(L, outs, leaves, ws):
    needs = [o for o in outs if o.requires_grad]
    if not needs or not leaves:
        return [None] * len(leaves)
    loss = _loss(L, outs, ws)
    return list(L.autograd.grad(loss, leaves, allow_unused=True))


def _assert_close(got, want, what):
    if want is None and got is None:
        return
    if want is None:
        want = np.zeros_like(got)
    if got is None:
        got = np.zeros_like(want)
    assert got.shape == want.shape, f"{what}: shape {got.shape} != torch's {want.shape}"
    np.testing.assert_allclose(got, want, err_msg=what, **CLOSE)


def _torch_ref(op, args, kwargs, arrs, key):
    tl = _leaves(torch, arrs)
    touts = _float_outs(torch, _call(op, torch, args, kwargs, tl))
    ws = _weights(touts, key)
    tg = _grads(torch, touts, tl, ws)
    return touts, ws, tg


def _check_against_torch(op, args, kwargs, arrs, key, pyad_outs_and_grads):
    touts, ws, tg = _torch_ref(op, args, kwargs, arrs, key)
    pouts, pgrads = pyad_outs_and_grads(ws)
    assert len(pouts) == len(touts), f"{key}: {len(pouts)} outputs, torch {len(touts)}"
    for i, (p, t) in enumerate(zip(pouts, touts)):
        _assert_close(_np(p), _np(t), f"{key}: output {i}")
    for i, (p, t) in enumerate(zip(pgrads, tg)):
        _assert_close(_np(p), _np(t), f"{key}: grad of input {i}")


# -- known gaps: (test, op name) -> xfail reason -----------------------------------------

KNOWN = {
}


def _params(test, pred=lambda op: True, dtypes=None, ops=None, known=None):
    """pytest params over ``ops`` (this file's OPS by default), with the xfails of
    ``known`` (this file's KNOWN by default); the later rounds' files
    (_2, _3) pass their own."""
    out = []
    ops = OPS if ops is None else ops
    known = KNOWN if known is None else known
    for op in ops:
        if not pred(op):
            continue
        marks = []
        reason = known.get((test, op.name))
        if reason is not None:
            marks.append(pytest.mark.xfail(strict=True, reason=reason))
        if dtypes is None:
            out.append(pytest.param(op, id=op.name, marks=marks))
            continue
        for dt in dtypes:
            if dt == "complex128" and not op.cplx:       # the OpInfo's dtypes: no complex
                continue
            out.append(pytest.param(op, dt, id=f"{op.name}-{dt}", marks=marks))
    return out


def _diff_cases(op, dtype="float64"):
    for n, (args, kwargs) in enumerate(op.cases()):
        arrs = _diff_arrays(args, f"{op.name}[{n}]" if dtype == "complex128" else None)
        if arrs:
            yield n, args, kwargs, arrs


# -- TestGradients ---------------------------------------------------------------------


@pytest.mark.parametrize("op, dtype", _params("test_fn_grad", lambda op: op.gc,
                                               dtypes=("float64", "complex128")))
def test_fn_grad(op, dtype):
    for n, args, kwargs, arrs in _diff_cases(op, dtype):
        leaves = _leaves(pyad, arrs)
        f = lambda *xs: tuple(_float_outs(pyad, _call(op, pyad, args, kwargs, xs)))
        assert gradcheck(f, tuple(leaves), nondet_tol=op.nondet, **GC), \
            f"{op.name} sample {n}"


@pytest.mark.parametrize("op, dtype", _params("test_fn_gradgrad",
                                               lambda op: op.gc and op.gradgrad,
                                               dtypes=("float64", "complex128")))
def test_fn_gradgrad(op, dtype):
    for n, args, kwargs, arrs in _diff_cases(op, dtype):
        leaves = _leaves(pyad, arrs)
        f = lambda *xs: tuple(_float_outs(pyad, _call(op, pyad, args, kwargs, xs)))
        assert gradgradcheck(f, tuple(leaves), nondet_tol=op.nondet, **GC), \
            f"{op.name} sample {n}"


@pytest.mark.parametrize("op, dtype", _params("test_fn_grad_matches_torch",
                                               dtypes=("float64", "complex128")))
def test_fn_grad_matches_torch(op, dtype):
    for n, args, kwargs, arrs in _diff_cases(op, dtype):
        key = f"{op.name}[{n}]"

        def pyad_side(ws):
            pl = _leaves(pyad, arrs)
            pouts = _float_outs(pyad, _call(op, pyad, args, kwargs, pl))
            return pouts, _grads(pyad, pouts, pl, ws)

        _check_against_torch(op, args, kwargs, arrs, key, pyad_side)


@pytest.mark.parametrize("op", _params("test_forward_mode_AD", lambda op: op.fwd))
def test_forward_mode_AD(op):
    for n, args, kwargs, arrs in _diff_cases(op):
        key = f"{op.name}[{n}]"
        g = np.random.default_rng(zlib.crc32(key.encode()))
        tangents = [g.uniform(-1, 1, a.shape) for a in arrs]
        res = {}
        for L, fw in ((torch, tfwAD), (pyad, pfwAD)):
            with fw.dual_level():
                duals = [fw.make_dual(_tensor(L, a), _tensor(L, t))
                         for a, t in zip(arrs, tangents)]
                outs = _float_outs(L, _call(op, L, args, kwargs, duals))
                res[L] = [(_np(fw.unpack_dual(o).primal), _np(fw.unpack_dual(o).tangent))
                          for o in outs]
        assert len(res[pyad]) == len(res[torch])
        for i, ((pp, pt), (tp, tt)) in enumerate(zip(res[pyad], res[torch])):
            _assert_close(pp, tp, f"{key}: primal {i}")
            _assert_close(pt, tt, f"{key}: tangent {i}")


# -- TestCommon ------------------------------------------------------------------------


def _has_variants(op):
    return bool(op.method or op.inplace or op.out)


@pytest.mark.parametrize("op", _params("test_variant_consistency_eager", _has_variants))
def test_variant_consistency_eager(op):
    checked = 0
    for n, (args, kwargs) in enumerate(op.cases()):
        arrs = _diff_arrays(args)
        key = f"{op.name}[{n}]"
        first_diff = bool(args) and _is_float_array(args[0])
        if not first_diff:
            continue
        touts, ws, tg = _torch_ref(op, args, kwargs, arrs, key)

        def check(pouts, pgrads, what):
            assert len(pouts) == len(touts), what
            for i, (p, t) in enumerate(zip(pouts, touts)):
                _assert_close(_np(p), _np(t), f"{key} {what}: output {i}")
            if pgrads is not None:
                for i, (p, t) in enumerate(zip(pgrads, tg)):
                    _assert_close(_np(p), _np(t), f"{key} {what}: grad of input {i}")

        if op.method:
            pl = _leaves(pyad, arrs)
            a, k = _args_with(pyad, args, kwargs, pl)
            pouts = _float_outs(pyad, getattr(a[0], op.method)(*a[1:], **k))
            check(pouts, _grads(pyad, pouts, pl, ws), "method")
            checked += 1
        same_shape = len(touts) == 1 and tuple(touts[0].shape) == args[0].shape
        if op.inplace and same_shape:
            pl = _leaves(pyad, arrs)
            a, k = _args_with(pyad, args, kwargs, pl)
            a[0] = a[0].clone()          # in-place on a leaf that requires grad raises
            res = getattr(a[0], op.inplace)(*a[1:], **k)
            assert res is a[0], f"{key}: {op.inplace} returns self"
            check([res], _grads(pyad, [res], pl, ws), "inplace")
            checked += 1
        if op.out and len(touts) == 1 and touts[0].numel():   # empty: test_out_zero_size
            with pyad.no_grad():
                a, k = _args_with(pyad, args, kwargs, [_tensor(pyad, x) for x in arrs])
                buf = pyad.empty(tuple(touts[0].shape), dtype=_np(touts[0]).dtype)
                res = op.fn(pyad)(*a, **k, out=buf)
            assert res is buf, f"{key}: out= returns out"
            check([buf], None, "out=")
            checked += 1
    assert checked


def _noncontig(L, a):
    """A leaf twice as wide in the last dim and its step-slice view holding ``a``."""
    if a.ndim == 0:
        leaf = _tensor(L, a).requires_grad_(True)
        return leaf, leaf, lambda g: g
    base = np.zeros(a.shape[:-1] + (2 * a.shape[-1],), dtype=a.dtype)
    base[..., ::2] = a
    leaf = _tensor(L, base).requires_grad_(True)
    return leaf, leaf[..., ::2], lambda g: None if g is None else g[..., ::2]


@pytest.mark.parametrize("op", _params("test_noncontiguous_samples", lambda op: op.nc))
def test_noncontiguous_samples(op):
    for n, args, kwargs, arrs in _diff_cases(op):
        key = f"{op.name}[{n}]"

        def pyad_side(ws):
            made = [_noncontig(pyad, a) for a in arrs]
            views = [v for _, v, _ in made]
            assert all(a.ndim == 0 or a.size == 0 or not v.is_contiguous()
                       for a, v in zip(arrs, views) if a.shape[-1:] != (1,))
            pouts = _float_outs(pyad, _call(op, pyad, args, kwargs, views))
            gs = _grads(pyad, pouts, [l for l, _, _ in made], ws)
            return pouts, [sl(g) for (_, _, sl), g in zip(made, gs)]

        _check_against_torch(op, args, kwargs, arrs, key, pyad_side)


def test_table_size():
    # ~80 differentiable ops the sweeps do not gradcheck
    assert len(OPS) >= 80


@pytest.mark.parametrize("name", ["add", "mul", "matmul", "cumsum", "tril", "index_select"])
def test_out_zero_size(name):
    # test_out (TestCommon) on the OpInfos' empty samples
    op = OPS_BY_NAME[name]
    for n, (args, kwargs) in enumerate(op.cases()):
        arrs = _diff_arrays(args)
        tout = _float_outs(torch, _call(op, torch, args, kwargs,
                                        [_tensor(torch, a) for a in arrs]))
        if len(tout) != 1 or tout[0].numel():
            continue
        with pyad.no_grad():
            a, k = _args_with(pyad, args, kwargs, [_tensor(pyad, x) for x in arrs])
            buf = pyad.empty(tuple(tout[0].shape), dtype=pyad.float64)
            res = op.fn(pyad)(*a, **k, out=buf)
        assert res is buf and tuple(buf.shape) == tuple(tout[0].shape)
        return
    raise AssertionError(f"{name}: no zero-size sample")
