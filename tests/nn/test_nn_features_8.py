"""The nn pieces torch's ported tests found missing (round 8): fractional max pooling
(``F.fractional_max_pool2d/3d``, ``nn.FractionalMaxPool2d/3d``), ``F.adaptive_max_pool3d``
/ ``nn.AdaptiveMaxPool3d``, ``F.max_unpool3d`` / ``nn.MaxUnpool3d``,
``F.grid_sample(mode='bicubic')`` and ``F.interpolate(..., antialias=True)``.

Expected values come from torch 2.13 run on the same inputs (copied through numpy), or
from hand math; gradients go through ``pyad.autograd.gradcheck`` in float64 and are
compared with torch's.
"""
import math

import numpy as np
import pytest

import pyad
import pyad.nn as nn
import pyad.nn.functional as F
from pyad.autograd import gradcheck, gradgradcheck

torch = pytest.importorskip("torch")
tnn = torch.nn
tF = torch.nn.functional

from _port_helpers import _close, _close32, _eq, _np, _rng  # noqa: E402


def _both(a, requires_grad=False):
    a = np.asarray(a)
    return (torch.tensor(a, requires_grad=requires_grad),
            pyad.tensor(a, requires_grad=requires_grad))


def _closedt(p, t):
    if _np(t).dtype == np.float32:
        _close32(p, t)
    else:
        _close(p, t)


# ----------------------------------------------------------------- fractional max pooling

_FRAC_CASES = [
    # (spatial dims, input shape, kernel_size, output_size)
    (2, (2, 3, 11, 11), 2, (5, 5)),
    (2, (3, 9, 10), 3, (4, 6)),                     # unbatched
    (2, (1, 2, 7, 8), (2, 3), (6, 2)),
    (2, (1, 1, 6, 6), 1, (1, 6)),
    (3, (2, 2, 7, 8, 9), 2, (3, 4, 5)),
    (3, (2, 6, 6, 7), (3, 2, 1), (2, 4, 6)),        # unbatched
    (3, (1, 1, 5, 5, 5), 2, (3, 3, 3)),
]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n,shape,k,o", _FRAC_CASES)
def test_fractional_max_pool_matches_torch(dtype, n, shape, k, o):
    rng = _rng(1)
    x = rng.standard_normal(shape).astype(dtype)
    b = shape[0] if len(shape) == n + 2 else 1
    s = rng.random((b, shape[-n - 1], n)).astype(dtype)
    tx, px = _both(x, True)
    ts, ps = _both(s)
    tout, tidx = getattr(tF, "fractional_max_pool%dd" % n)(
        tx, k, output_size=o, _random_samples=ts, return_indices=True)
    pout, pidx = getattr(F, "fractional_max_pool%dd" % n)(
        px, k, output_size=o, _random_samples=ps, return_indices=True)
    _eq(pout, tout)
    _eq(pidx, tidx)
    assert pidx.dtype == pyad.int64
    g = rng.standard_normal(tout.shape).astype(dtype)
    tout.backward(torch.tensor(g))
    pout.backward(pyad.tensor(g))
    _eq(px.grad, tx.grad)


@pytest.mark.parametrize("n", [2, 3])
def test_fractional_max_pool_output_ratio_and_module(n):
    rng = _rng(2)
    shape = (2, 3) + (10, 9, 8)[:n]
    x = rng.standard_normal(shape)
    s = rng.random((2, 3, n))
    tx, px = _both(x)
    ratio = (0.5, 0.7, 0.3)[:n]
    tm = getattr(tnn, "FractionalMaxPool%dd" % n)(2, output_ratio=ratio, return_indices=True,
                                                   _random_samples=torch.tensor(s))
    pm = getattr(nn, "FractionalMaxPool%dd" % n)(2, output_ratio=ratio, return_indices=True,
                                                  _random_samples=pyad.tensor(s))
    tout, tidx = tm(tx)
    pout, pidx = pm(px)
    _eq(pout, tout)
    _eq(pidx, tidx)
    # the samples are a buffer, as torch's
    assert "_random_samples" in dict(pm.named_buffers())


@pytest.mark.parametrize("n", [2, 3])
def test_fractional_max_pool_noncontiguous_ties_nan_inf(n):
    rng = _rng(3)
    shape = (2, 3) + (9,) * n
    # small integers: many ties inside a window (torch keeps the first maximum)
    x = rng.integers(-2, 3, size=shape).astype(np.float64)
    x[0, 0].flat[::7] = np.nan
    x[0, 1].flat[::5] = np.inf
    x[1, 2] = -np.inf
    x[1, 1].flat[::3] = -np.inf
    s = rng.random((2, 3, n))
    tx = torch.tensor(x).transpose(-1, -2)          # non-contiguous
    px = pyad.tensor(x).transpose(-1, -2)
    assert not px.is_contiguous()
    tout, tidx = getattr(tF, "fractional_max_pool%dd" % n)(
        tx, 2, output_size=(4,) * n, _random_samples=torch.tensor(s), return_indices=True)
    pout, pidx = getattr(F, "fractional_max_pool%dd" % n)(
        px, 2, output_size=(4,) * n, _random_samples=pyad.tensor(s), return_indices=True)
    np.testing.assert_array_equal(_np(pout), _np(tout))      # NaN where torch has NaN
    _eq(pidx, tidx)


@pytest.mark.parametrize("n", [2, 3])
def test_fractional_max_pool_gradcheck_and_torch_grad(n):
    rng = _rng(4)
    shape = (2, 2) + (7,) * n
    x = rng.standard_normal(shape)
    s = rng.random((2, 2, n))
    px = pyad.tensor(x, requires_grad=True)
    ps = pyad.tensor(s)

    def func(v):
        return getattr(F, "fractional_max_pool%dd" % n)(v, 2, output_size=(3,) * n,
                                                         _random_samples=ps)

    assert gradcheck(func, [px])
    assert gradgradcheck(func, [px])
    tx = torch.tensor(x, requires_grad=True)
    tout = getattr(tF, "fractional_max_pool%dd" % n)(tx, 2, output_size=(3,) * n,
                                                      _random_samples=torch.tensor(s))
    g = rng.standard_normal(tout.shape)
    tout.backward(torch.tensor(g))
    func(px).backward(pyad.tensor(g))
    _close(px.grad, tx.grad)


def test_fractional_max_pool_drawn_samples():
    # without _random_samples the starts are drawn: each output is the input at its index,
    # and (windows of size 2 covering 8 -> 4 exactly) the max of its window
    x = pyad.randn(2, 3, 8, 8)
    out, idx = F.fractional_max_pool2d(x, 2, output_size=4, return_indices=True)
    assert tuple(out.shape) == (2, 3, 4, 4)
    flat = _np(x).reshape(2, 3, 64)
    np.testing.assert_array_equal(np.take_along_axis(flat, _np(idx).reshape(2, 3, 16), -1),
                                  _np(out).reshape(2, 3, 16))
    ref = _np(x).reshape(2, 3, 4, 2, 4, 2).max(axis=(3, 5))
    np.testing.assert_array_equal(_np(out), ref)


def test_fractional_max_pool_zero_batch_and_sizes():
    tmod = tnn.FractionalMaxPool2d(3, output_ratio=(0.5, 0.5))
    pmod = nn.FractionalMaxPool2d(3, output_ratio=(0.5, 0.5))
    inp = pyad.ones(0, 16, 50, 32, requires_grad=True)
    out = pmod(inp)
    assert tuple(out.shape) == tuple(tmod(torch.ones(0, 16, 50, 32)).shape)
    out.sum().backward()
    assert tuple(inp.grad.shape) == (0, 16, 50, 32)
    out = F.fractional_max_pool3d(pyad.rand(16, 50, 32, 32), (3, 2, 2), output_size=(0, 1, 1))
    assert tuple(out.shape) == (16, 0, 1, 1)


@pytest.mark.parametrize("call", [
    lambda m, x, s: m.fractional_max_pool2d(x(1, 0, 5, 5), 2, output_size=2),
    lambda m, x, s: m.fractional_max_pool2d(x(1, 1, 1, 5, 5), 2, output_size=2),
    lambda m, x, s: m.fractional_max_pool2d(x(1, 1, 5, 5), 3, output_size=4),
    lambda m, x, s: m.fractional_max_pool2d(x(1, 1, 5, 5), (2, 2, 2), output_size=2),
    lambda m, x, s: m.fractional_max_pool2d(x(1, 1, 5, 5), 2, output_size=(2, 2, 2)),
    lambda m, x, s: m.fractional_max_pool2d(x(2, 1, 5, 5), 2, output_size=2,
                                            _random_samples=s(1, 1, 2)),
    lambda m, x, s: m.fractional_max_pool2d(x(1, 3, 5, 5), 2, output_size=2,
                                            _random_samples=s(1, 2, 2)),
    lambda m, x, s: m.fractional_max_pool2d(x(1, 1, 5, 5), 2, output_size=2,
                                            _random_samples=s(1, 1, 3)),
    lambda m, x, s: m.fractional_max_pool2d(x(1, 1, 5, 5), 2, output_size=2,
                                            _random_samples=s(1, 1, 2, 1)),
    lambda m, x, s: m.fractional_max_pool3d(x(1, 0, 5, 5, 5), 2, output_size=2),
    lambda m, x, s: m.fractional_max_pool3d(x(1, 1, 5, 5, 5), (2, 5, 2), output_size=2),
    lambda m, x, s: m.fractional_max_pool3d(x(1, 1, 5, 5, 5), (2, 2), output_size=2),
    lambda m, x, s: m.fractional_max_pool3d(x(1, 1, 5, 5, 5), 2, output_size=(3, 3, 4)),
    lambda m, x, s: m.fractional_max_pool3d(x(1, 1, 5, 5, 5), 2, output_size=2,
                                            _random_samples=s(1, 1, 2)),
])
def test_fractional_max_pool_errors_as_torch(call):
    with pytest.raises(Exception) as te:
        call(tF, torch.randn, torch.rand)
    with pytest.raises(type(te.value)):
        call(F, pyad.randn, pyad.rand)


def test_fractional_max_pool_value_errors():
    for mod in (tnn, nn):
        with pytest.raises(ValueError):
            mod.FractionalMaxPool2d(2)
        with pytest.raises(ValueError):
            mod.FractionalMaxPool2d(2, output_size=2, output_ratio=0.5)
        with pytest.raises(ValueError):
            mod.FractionalMaxPool3d(2, output_ratio=1.5)
    with pytest.raises(ValueError):
        F.fractional_max_pool2d(pyad.randn(1, 1, 5, 5), 2)
    x = pyad.tensor(np.ones((1, 1, 5, 5), np.float32))
    with pytest.raises(RuntimeError, match="same dtype"):
        F.fractional_max_pool2d(x, 2, output_size=2,
                                _random_samples=pyad.rand(1, 1, 2, dtype=pyad.float64))


# ----------------------------------------------------------------- adaptive_max_pool3d


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape,o", [
    ((2, 3, 5, 6, 7), (2, 3, 4)),
    ((3, 5, 6, 7), 3),                              # unbatched
    ((1, 2, 4, 4, 4), (None, 2, 5)),
    ((1, 1, 3, 3, 3), (1, 1, 1)),
])
def test_adaptive_max_pool3d_matches_torch(dtype, shape, o):
    rng = _rng(5)
    x = rng.standard_normal(shape).astype(dtype)
    tx, px = _both(x, True)
    tout, tidx = tF.adaptive_max_pool3d(tx, o, return_indices=True)
    pout, pidx = F.adaptive_max_pool3d(px, o, return_indices=True)
    _eq(pout, tout)
    _eq(pidx, tidx)
    g = rng.standard_normal(tout.shape).astype(dtype)
    tout.backward(torch.tensor(g))
    pout.backward(pyad.tensor(g))
    _eq(px.grad, tx.grad)
    tm, pm = tnn.AdaptiveMaxPool3d(o), nn.AdaptiveMaxPool3d(o)
    _eq(pm(px), tm(tx))


def test_adaptive_max_pool3d_noncontiguous_ties_nan_inf():
    rng = _rng(6)
    x = rng.integers(-2, 3, size=(2, 3, 6, 5, 7)).astype(np.float64)
    x[0, 0].flat[::11] = np.nan
    x[0, 1].flat[::4] = np.inf
    x[1, 2] = -np.inf
    tx = torch.tensor(x).permute(0, 1, 4, 3, 2)
    px = pyad.tensor(x).permute(0, 1, 4, 3, 2)
    tout, tidx = tF.adaptive_max_pool3d(tx, (3, 2, 4), return_indices=True)
    pout, pidx = F.adaptive_max_pool3d(px, (3, 2, 4), return_indices=True)
    np.testing.assert_array_equal(_np(pout), _np(tout))
    _eq(pidx, tidx)


def test_adaptive_max_pool3d_gradcheck():
    rng = _rng(7)
    x = rng.standard_normal((2, 2, 4, 5, 3))
    px = pyad.tensor(x, requires_grad=True)
    assert gradcheck(lambda v: F.adaptive_max_pool3d(v, (2, 3, 2)), [px])
    assert gradgradcheck(lambda v: F.adaptive_max_pool3d(v, (2, 3, 2)), [px])


@pytest.mark.parametrize("call", [
    lambda m, x: m.adaptive_max_pool3d(x(1, 0, 4, 4, 4), 2),
    lambda m, x: m.adaptive_max_pool3d(x(4, 4, 4), 2),
    lambda m, x: m.adaptive_max_pool3d(x(1, 1, 1, 4, 4, 4), 2),
    lambda m, x: m.adaptive_max_pool3d(x(1, 1, 4, 4, 4).long(), 2),
    lambda m, x: m.adaptive_max_pool3d(x(1, 1, 4, 4, 4), (2, 2)),
    lambda m, x: m.adaptive_max_pool3d(x(4, 4, 4), (2, 2, 2)),
    lambda m, x: m.adaptive_max_pool3d(x(4, 4), (2, 2)),
])
def test_adaptive_max_pool3d_errors_as_torch(call):
    with pytest.raises(Exception) as te:
        call(tF, torch.randn)
    with pytest.raises(type(te.value)):
        call(F, pyad.randn)


# ----------------------------------------------------------------- max_unpool3d


@pytest.mark.parametrize("shape,k,s,p,osize", [
    ((2, 3, 6, 4, 6), 2, None, 0, None),
    ((3, 6, 6, 6), 3, 2, 1, (6, 6, 6)),            # unbatched
    ((1, 2, 5, 6, 7), 2, None, 0, (5, 6, 7)),
])
def test_max_unpool3d_matches_torch(shape, k, s, p, osize):
    rng = _rng(8)
    x = rng.standard_normal(shape)
    tx, px = _both(x)
    tout, tidx = tF.max_pool3d(tx, k, s, p, return_indices=True)
    pout, pidx = F.max_pool3d(px, k, s, p, return_indices=True)
    _eq(pidx, tidx)
    tv, pv = _both(_np(tout), True)
    tu = tF.max_unpool3d(tv, tidx, k, s, p, output_size=osize)
    pu = F.max_unpool3d(pv, pidx, k, s, p, output_size=osize)
    _eq(pu, tu)
    g = rng.standard_normal(tu.shape)
    tu.backward(torch.tensor(g))
    pu.backward(pyad.tensor(g))
    _eq(pv.grad, tv.grad)
    tm, pm = tnn.MaxUnpool3d(k, s, p), nn.MaxUnpool3d(k, s, p)
    _eq(pm(pv, pidx, osize), tm(tv, tidx, osize))
    planes = _np(tidx).reshape(-1, int(np.prod(tidx.shape[-3:])))
    if all(len(np.unique(r)) == r.size for r in planes):
        # (overlapping windows can repeat an index: the scatter keeps one, no derivative)
        pv2 = pyad.tensor(_np(tout), requires_grad=True)
        assert gradcheck(lambda v: F.max_unpool3d(v, pidx, k, s, p, output_size=osize), [pv2])


def test_max_unpool3d_noncontiguous():
    rng = _rng(9)
    x = rng.standard_normal((2, 3, 4, 4, 4))
    tout, tidx = tF.max_pool3d(torch.tensor(x), 2, return_indices=True)
    tv = tout.transpose(2, 4)
    pv = pyad.tensor(_np(tout)).transpose(2, 4)
    pidx = pyad.tensor(_np(tidx)).transpose(2, 4)
    _eq(F.max_unpool3d(pv, pidx, 2), tF.max_unpool3d(tv, tidx.transpose(2, 4), 2))


@pytest.mark.parametrize("call", [
    lambda m, x, i: m.max_unpool3d(x(1, 3, 1, 1, 1), i((1, 3, 1, 1, 1)), [1, 1]),
    lambda m, x, i: m.max_unpool3d(x(3, 1, 1), i((3, 1, 1)), 2),
    lambda m, x, i: m.max_unpool3d(x(1, 3, 1, 1, 1), i((1, 3, 1, 1, 2)), 2),
    lambda m, x, i: m.max_unpool3d(x(1, 3, 1, 1, 1), i((1, 3, 1, 1, 1)) + 8, 2),
    lambda m, x, i: m.max_unpool3d(x(1, 3, 1, 1, 1), i((1, 3, 1, 1, 1)) - 1, 2),
    lambda m, x, i: m.max_unpool3d(x(1, 3, 1, 1, 1), i((1, 3, 1, 1, 1)), 2, stride=0),
    lambda m, x, i: m.max_unpool3d(x(1, 3, 2, 2, 2), i((1, 3, 2, 2, 2)), 2,
                                   output_size=(9, 4, 4)),
])
def test_max_unpool3d_errors_as_torch(call):
    with pytest.raises(Exception) as te:
        call(tF, torch.ones, lambda s: torch.zeros(s, dtype=torch.int64))
    with pytest.raises(type(te.value)):
        call(F, pyad.ones, lambda s: pyad.zeros(s, dtype=pyad.int64))


def test_max_unpool3d_int32_indices_refused():
    with pytest.raises(RuntimeError, match="int64"):
        tF.max_unpool3d(torch.ones(1, 3, 1, 1, 1), torch.zeros(1, 3, 1, 1, 1,
                                                                 dtype=torch.int32), 2)
    with pytest.raises(RuntimeError, match="int64"):
        F.max_unpool3d(pyad.ones(1, 3, 1, 1, 1), pyad.zeros(1, 3, 1, 1, 1,
                                                             dtype=pyad.int32), 2)


# ----------------------------------------------------------------- grid_sample bicubic


@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("align_corners", [True, False])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_grid_sample_bicubic_matches_torch(padding_mode, align_corners, dtype):
    rng = _rng(10)
    x = rng.standard_normal((2, 3, 5, 7)).astype(dtype)
    g = rng.uniform(-1.4, 1.4, size=(2, 4, 6, 2)).astype(dtype)
    g[0, 0, :3] = [[-1, -1], [1, 1], [0, 0]]       # corners and the centre exactly
    tx, px = _both(x, True)
    tg, pg = _both(g, True)
    kw = dict(mode="bicubic", padding_mode=padding_mode, align_corners=align_corners)
    tout = tF.grid_sample(tx, tg, **kw)
    pout = F.grid_sample(px, pg, **kw)
    _closedt(pout, tout)
    w = rng.standard_normal(tout.shape).astype(dtype)
    (tout * torch.tensor(w)).sum().backward()
    (pout * pyad.tensor(w)).sum().backward()
    _closedt(px.grad, tx.grad)
    if dtype == np.float32:
        _close(pg.grad, tg.grad, atol=1e-4, rtol=1e-4)   # torch's float32 grid tolerance
    else:
        _close(pg.grad, tg.grad)


@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("align_corners", [True, False])
def test_grid_sample_bicubic_gradcheck(padding_mode, align_corners):
    rng = _rng(11)
    x = pyad.tensor(rng.standard_normal((1, 2, 4, 5)), requires_grad=True)
    g = pyad.tensor(rng.uniform(-1.3, 1.3, size=(1, 3, 2, 2)), requires_grad=True)

    def func(a, b):
        return F.grid_sample(a, b, mode="bicubic", padding_mode=padding_mode,
                             align_corners=align_corners)

    assert gradcheck(func, [x, g])


def test_grid_sample_bicubic_noncontiguous_and_small():
    rng = _rng(12)
    x = rng.standard_normal((2, 3, 6, 4))
    g = rng.uniform(-1.1, 1.1, size=(2, 5, 3, 2))
    tx = torch.tensor(x).transpose(2, 3)
    px = pyad.tensor(x).transpose(2, 3)
    tg = torch.tensor(g).transpose(1, 2)
    pg = pyad.tensor(g).transpose(1, 2)
    for pm in ("zeros", "border", "reflection"):
        _close(F.grid_sample(px, pg, mode="bicubic", padding_mode=pm, align_corners=False),
               tF.grid_sample(tx, tg, mode="bicubic", padding_mode=pm, align_corners=False))
        # a 1 x 1 input (reflection over a single pixel)
        t1 = torch.tensor(x[:, :, :1, :1])
        p1 = pyad.tensor(x[:, :, :1, :1])
        for ac in (True, False):
            _close(F.grid_sample(p1, pg, mode="bicubic", padding_mode=pm, align_corners=ac),
                   tF.grid_sample(t1, tg, mode="bicubic", padding_mode=pm, align_corners=ac))


def test_grid_sample_bicubic_inf_grid():
    x = np.arange(1.0, 26).reshape(1, 1, 5, 5)
    g = np.array([[[[np.inf, 0.0], [0.0, -np.inf], [0.2, 0.3]]]])
    for pm in ("zeros", "border", "reflection"):
        tout = tF.grid_sample(torch.tensor(x), torch.tensor(g), mode="bicubic",
                              padding_mode=pm, align_corners=False)
        pout = F.grid_sample(pyad.tensor(x), pyad.tensor(g), mode="bicubic",
                             padding_mode=pm, align_corners=False)
        np.testing.assert_allclose(_np(pout), _np(tout), rtol=1e-9, atol=1e-10)


def test_grid_sample_bicubic_5d_refused():
    with pytest.raises(RuntimeError, match="bicubic"):
        tF.grid_sample(torch.randn(1, 1, 2, 2, 2), torch.zeros(1, 1, 1, 1, 3), mode="bicubic",
                       align_corners=False)
    with pytest.raises(RuntimeError, match="bicubic"):
        F.grid_sample(pyad.randn(1, 1, 2, 2, 2), pyad.zeros(1, 1, 1, 1, 3), mode="bicubic",
                      align_corners=False)


# ----------------------------------------------------------------- antialiased interpolate

_AA_CASES = [
    ((2, 3, 8, 8), dict(size=(2, 3))),                  # down
    ((1, 2, 17, 13), dict(size=(5, 4))),                # down, odd factors
    ((1, 2, 5, 7), dict(size=(11, 9))),                 # up
    ((1, 2, 9, 6), dict(scale_factor=0.4)),             # down by a scale factor
    ((1, 2, 9, 6), dict(scale_factor=(0.3, 2.5))),      # down one way, up the other
    ((1, 1, 6, 6), dict(size=(6, 3))),
    ((2, 1, 12, 10), dict(size=(1, 1))),
]


@pytest.mark.parametrize("mode", ["bilinear", "bicubic"])
@pytest.mark.parametrize("align_corners", [False, True])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape,kw", _AA_CASES)
def test_interpolate_antialias_matches_torch(mode, align_corners, dtype, shape, kw):
    rng = _rng(13)
    x = rng.standard_normal(shape).astype(dtype)
    tx, px = _both(x, True)
    tout = tF.interpolate(tx, mode=mode, align_corners=align_corners, antialias=True, **kw)
    pout = F.interpolate(px, mode=mode, align_corners=align_corners, antialias=True, **kw)
    _closedt(pout, tout)
    g = rng.standard_normal(tout.shape).astype(dtype)
    tout.backward(torch.tensor(g))
    pout.backward(pyad.tensor(g))
    _closedt(px.grad, tx.grad)


@pytest.mark.parametrize("mode", ["bilinear", "bicubic"])
def test_interpolate_antialias_channels_last_and_noncontiguous(mode):
    rng = _rng(14)
    x = rng.standard_normal((2, 3, 10, 12)).astype(np.float32)
    t_in = torch.tensor(x).contiguous(memory_format=torch.channels_last)
    p_in = pyad.tensor(x).contiguous(memory_format=pyad.channels_last)
    _close32(F.interpolate(p_in, size=(4, 5), mode=mode, antialias=True),
             tF.interpolate(t_in, size=(4, 5), mode=mode, antialias=True))
    t_in = torch.tensor(x).transpose(2, 3)
    p_in = pyad.tensor(x).transpose(2, 3)
    _close32(F.interpolate(p_in, size=(7, 3), mode=mode, antialias=True),
             tF.interpolate(t_in, size=(7, 3), mode=mode, antialias=True))


@pytest.mark.parametrize("mode", ["bilinear", "bicubic"])
@pytest.mark.parametrize("size", [(3, 2), (9, 7)])
def test_interpolate_antialias_gradcheck(mode, size):
    x = pyad.tensor(_rng(15).standard_normal((1, 2, 6, 5)), requires_grad=True)

    def func(v):
        return F.interpolate(v, size=size, mode=mode, antialias=True, align_corners=False)

    assert gradcheck(func, [x])
    assert gradgradcheck(func, [x])


@pytest.mark.parametrize("mode", ["bilinear", "bicubic"])
def test_interpolate_antialias_width_one_output(mode):
    # torch 2.13's CPU kernel resamples a (17, 4) input to (3, 1) wrongly (it repeats one
    # row: its vertical pass over a width-1 intermediate); its two single-dim passes are
    # right, and the resampling is separable, so the expected value is those two passes.
    x = torch.tensor(_rng(16).standard_normal((1, 1, 17, 4)))
    expected = tF.interpolate(tF.interpolate(x, size=(3, 4), mode=mode, antialias=True),
                              size=(3, 1), mode=mode, antialias=True)
    out = F.interpolate(pyad.tensor(_np(x)), size=(3, 1), mode=mode, antialias=True)
    _close(out, expected)


def test_interpolate_antialias_hand_math():
    # bilinear, 4 -> 2 along the width: scale 2, support 2, centres 1 and 3; taps 0..2 and
    # 1..3, the triangle of half-width 2 at distances (0.5, 0.5, 1.5) -> (3, 3, 1) / 7
    x = pyad.tensor([[[[0.0, 1.0, 2.0, 3.0]]]], dtype=pyad.float64)
    out = F.interpolate(x, size=(1, 2), mode="bilinear", antialias=True)
    w0 = np.array([0.75, 0.75, 0.25]) / 1.75
    w1 = np.array([0.25, 0.75, 0.75]) / 1.75
    _close(out, np.array([[[[w0 @ [0.0, 1.0, 2.0], w1 @ [1.0, 2.0, 3.0]]]]]))


@pytest.mark.parametrize("mode,shape", [("nearest", (1, 1, 4, 4)), ("linear", (1, 1, 4)),
                                        ("bilinear", (1, 1, 2, 4, 4))])
def test_interpolate_antialias_refused(mode, shape):
    with pytest.raises(ValueError):
        tF.interpolate(torch.randn(*shape), scale_factor=0.5, mode=mode, antialias=True)
    with pytest.raises(ValueError):
        F.interpolate(pyad.randn(*shape), scale_factor=0.5, mode=mode, antialias=True)
