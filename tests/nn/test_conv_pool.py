"""Convolution and pooling in pyad.nn.functional, against
torch.nn.functional: values, first derivatives (the array fast path and the
differentiable formula) and second derivatives, plus gradcheck/gradgradcheck."""
import numpy as np
import pytest

import pyad
import pyad.nn.functional as F
from pyad.autograd import gradcheck, gradgradcheck

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.filterwarnings("ignore:Using padding=.same.:UserWarning")
TF = torch.nn.functional

RTOL = 1e-10


def _rng(seed=0):
    return np.random.default_rng(seed)


def _close(got, want, what):
    want = want.detach().numpy() if hasattr(want, "detach") else np.asarray(want)
    assert got.shape == want.shape, (what, got.shape, want.shape)
    np.testing.assert_allclose(got, want, rtol=RTOL, atol=1e-12, err_msg=what)


def check_vs_torch(pf, tf, arrays):
    """Values, first derivatives (plain and create_graph) and second derivatives
    (w.r.t. the inputs and the output gradient) of pf against tf, in float64."""
    rng = _rng(1)
    pv = [pyad.Variable(a.copy(), requires_grad=True) for a in arrays]
    tv = [torch.tensor(a, requires_grad=True) for a in arrays]
    po, to = pf(*pv), tf(*tv)
    _close(po.data, to, "value")
    go = rng.standard_normal(po.shape)
    # first order, array fast path
    g_fast = pyad.autograd.grad(po, pv, pyad.Variable(go), retain_graph=True)
    # first order, differentiable formula
    gop = pyad.Variable(go.copy(), requires_grad=True)
    got = torch.tensor(go, requires_grad=True)
    pg = pyad.autograd.grad(po, pv, gop, create_graph=True)
    tg = torch.autograd.grad(to, tv, got, create_graph=True)
    for i, (a, b, c) in enumerate(zip(g_fast, pg, tg)):
        _close(a.data, c, "grad %d (fast path)" % i)
        _close(b.data, c, "grad %d (create_graph)" % i)
    # second order: d/d(inputs, grad_output) of sum(grads * r)
    rs = [rng.standard_normal(a.shape) for a in arrays]
    sp = pyad.sum(pg[0] * pyad.Variable(rs[0]))
    st = (tg[0] * torch.tensor(rs[0])).sum()
    for g, r, t, rt in zip(pg[1:], rs[1:], tg[1:], rs[1:]):
        sp = sp + pyad.sum(g * pyad.Variable(r))
        st = st + (t * torch.tensor(rt)).sum()
    p2 = pyad.autograd.grad(sp, pv + [gop], allow_unused=True)
    t2 = torch.autograd.grad(st, tv + [got], allow_unused=True)
    for i, (a, b) in enumerate(zip(p2, t2)):
        if a is None or b is None:       # an op linear in that input: zero either way
            assert (a is None or not np.any(a.data)) and (b is None or not b.any()), i
        else:
            _close(a.data, b, "second grad %d" % i)


def _v(a):
    return pyad.Variable(a, requires_grad=True)


# -- conv2d ----------------------------------------------------------------------------

CONV2D = [
    # x shape, w shape, bias, kwargs
    ((2, 3, 7, 6), (4, 3, 3, 3), True, {}),
    ((2, 3, 7, 6), (4, 3, 3, 2), False, dict(stride=2, padding=1)),
    ((2, 4, 7, 6), (6, 2, 3, 2), True, dict(stride=(2, 1), padding=(1, 2), dilation=(1, 2),
                                           groups=2)),
    ((1, 4, 6, 6), (4, 1, 2, 2), True, dict(groups=4, padding="same")),
    ((2, 2, 5, 6), (3, 2, 2, 3), False, dict(padding="same", dilation=(2, 1))),
    ((2, 2, 5, 6), (3, 2, 5, 6), True, dict(padding="valid")),
    ((5, 6, 6), (2, 5, 3, 3), True, dict(stride=2)),             # unbatched
]


@pytest.mark.parametrize("xs,ws,has_bias,kw", CONV2D)
def test_conv2d_vs_torch(xs, ws, has_bias, kw):
    rng = _rng()
    arrays = [rng.standard_normal(xs), rng.standard_normal(ws)]
    if has_bias:
        arrays.append(rng.standard_normal(ws[0]))
    check_vs_torch(lambda *a: F.conv2d(*a, **kw), lambda *a: TF.conv2d(*a, **kw), arrays)


@pytest.mark.parametrize("kw", [dict(stride=2, padding=1, groups=2),
                                dict(dilation=2, padding=(0, 1))])
def test_conv2d_gradcheck(kw):
    rng = _rng()
    x = _v(rng.standard_normal((2, 2, 5, 4)))
    w = _v(rng.standard_normal((2, 2 // kw.get("groups", 1), 2, 2)))
    b = _v(rng.standard_normal(2))
    f = lambda x, w, b: F.conv2d(x, w, b, **kw)      # noqa: E731
    assert gradcheck(f, (x, w, b))
    assert gradgradcheck(f, (x, w, b))


def test_conv2d_only_weight_or_only_input_needs_grad():
    rng = _rng()
    x, w = rng.standard_normal((2, 2, 5, 5)), rng.standard_normal((3, 2, 3, 3))
    for need in ((True, False), (False, True)):
        pv = [pyad.Variable(a, requires_grad=r) for a, r in zip((x, w), need)]
        tv = [torch.tensor(a, requires_grad=r) for a, r in zip((x, w), need)]
        F.conv2d(*pv, padding=1).sum().backward()
        TF.conv2d(*tv, padding=1).sum().backward()
        for p, t in zip(pv, tv):
            if t.grad is None:
                assert p.grad is None
            else:
                _close(p.grad.data, t.grad, "grad")


@pytest.mark.parametrize("need", [(True, False), (False, True)])
def test_conv2d_create_graph_when_one_input_needs_grad(need):
    # The rule on Variables recomputes the columns from the saved input (the array
    # path may keep them): first and second order against torch.
    rng = _rng(7)
    x, w = rng.standard_normal((2, 4, 6, 5)), rng.standard_normal((4, 2, 3, 2))
    g, r = rng.standard_normal((2, 4, 3, 5)), rng.standard_normal
    kw = dict(stride=(2, 1), padding=(1, 1), dilation=(1, 2), groups=2)
    pv = [pyad.Variable(a, requires_grad=q) for a, q in zip((x, w), need)]
    tv = [torch.tensor(a, requires_grad=q) for a, q in zip((x, w), need)]
    pg = pyad.Variable(g, requires_grad=True)
    tg = torch.tensor(g, requires_grad=True)
    po, to = F.conv2d(*pv, **kw), TF.conv2d(*tv, **kw)
    k = 0 if need[0] else 1
    (p1,) = pyad.autograd.grad(po, pv[k], pg, create_graph=True)
    (t1,) = torch.autograd.grad(to, tv[k], tg, create_graph=True)
    _close(p1.data, t1, "first order")
    rr = r(p1.shape)
    (p2,) = pyad.autograd.grad(pyad.sum(p1 * pyad.Variable(rr)), pg)
    (t2,) = torch.autograd.grad((t1 * torch.tensor(rr)).sum(), tg)
    _close(p2.data, t2, "second order")


def test_conv2d_float32_and_non_contiguous():
    rng = _rng()
    x = rng.standard_normal((2, 3, 8, 9)).astype(np.float32).transpose(0, 1, 3, 2)
    w = rng.standard_normal((4, 3, 3, 3)).astype(np.float32)
    out = F.conv2d(pyad.Variable(x), pyad.Variable(w), stride=2)
    assert out.dtype == np.float32
    want = TF.conv2d(torch.tensor(x), torch.tensor(w), stride=2).numpy()
    np.testing.assert_allclose(out.data, want, rtol=1e-5, atol=1e-5)


def test_conv2d_empty_batch():
    w = _v(np.ones((2, 3, 2, 2)))
    out = F.conv2d(pyad.Variable(np.zeros((0, 3, 4, 4))), w)
    assert out.shape == (0, 2, 3, 3)
    out.sum().backward()
    np.testing.assert_array_equal(w.grad.data, np.zeros((2, 3, 2, 2)))


@pytest.mark.parametrize("call,match", [
    (lambda: F.conv2d(pyad.zeros(1, 2, 3, 4, 4), pyad.zeros(1, 3, 2, 2)),
     r"conv2d\(\).*3D.*4D"),
    (lambda: F.conv2d(pyad.zeros(3, 4), pyad.zeros(1, 3, 2, 2)), r"conv2d\(\): expected"),
    (lambda: F.conv2d(pyad.zeros(1, 3, 4, 4), pyad.zeros(1, 3, 2)), r"conv2d\(\).*4D weight"),
    (lambda: F.conv2d(pyad.zeros(1, 3, 4, 4), pyad.zeros(1, 2, 2, 2)),
     r"conv2d\(\).*channels"),
    (lambda: F.conv2d(pyad.zeros(1, 4, 4, 4), pyad.zeros(3, 2, 2, 2), groups=2),
     r"conv2d\(\).*divisible by groups"),
    (lambda: F.conv2d(pyad.zeros(1, 1, 2, 2), pyad.zeros(1, 1, 3, 3)),
     r"conv2d\(\).*larger than the padded input"),
    (lambda: F.conv2d(pyad.zeros(1, 1, 4, 4), pyad.zeros(1, 1, 2, 2), stride=0),
     r"conv2d\(\).*stride"),
    (lambda: F.conv2d(pyad.zeros(1, 1, 4, 4), pyad.zeros(1, 1, 2, 2), padding=-1),
     r"conv2d\(\).*negative padding"),
    (lambda: F.conv2d(pyad.zeros(1, 1, 4, 4), pyad.zeros(1, 1, 2, 2), padding="full"),
     r"conv2d\(\).*padding string"),
    (lambda: F.conv2d(pyad.zeros(1, 1, 4, 4), pyad.zeros(1, 1, 2, 2), stride=2,
                      padding="same"), r"conv2d\(\).*strided"),
    (lambda: F.conv2d(pyad.zeros(1, 1, 4, 4), pyad.zeros(1, 1, 2, 2), pyad.zeros(2)),
     r"conv2d\(\).*bias"),
    (lambda: F.conv2d(pyad.zeros(1, 1, 4, 4), pyad.zeros(1, 1, 2, 2, dtype=pyad.float64)),
     r"conv2d\(\).*same dtype"),
    (lambda: F.conv2d(pyad.zeros(1, 1, 4, 4), pyad.zeros(1, 1, 2, 2), groups=0),
     r"conv2d\(\).*groups"),
    (lambda: F.conv2d(pyad.tensor(np.zeros((1, 1, 4, 4), np.int64)), pyad.zeros(1, 1, 2, 2)),
     r"conv2d\(\).*floating point"),
    (lambda: F.conv1d(pyad.zeros(1, 1, 4), pyad.zeros(1, 1, 2, 2)), r"conv1d\(\).*3D weight"),
    (lambda: F.conv_transpose2d(pyad.zeros(1, 2, 4, 4), pyad.zeros(3, 1, 2, 2)),
     r"conv_transpose2d\(\).*channels"),
    (lambda: F.conv_transpose2d(pyad.zeros(1, 1, 4, 4), pyad.zeros(1, 1, 2, 2),
                                output_padding=1), r"conv_transpose2d\(\).*output padding"),
    (lambda: F.max_pool2d(pyad.zeros(1, 1, 4, 4), 2, padding=2), r"max_pool2d\(\).*half"),
    (lambda: F.max_pool2d(pyad.zeros(4, 4), 2), r"max_pool2d\(\): expected"),
    (lambda: F.max_pool2d(pyad.zeros(1, 1, 2, 2), 3), r"max_pool2d\(\).*too small"),
    (lambda: F.avg_pool2d(pyad.zeros(1, 1, 4, 4), 2, divisor_override=0),
     r"avg_pool2d\(\).*divisor"),
    (lambda: F.avg_pool2d(pyad.zeros(1, 1, 4, 4), 0), r"avg_pool2d\(\).*greater than zero"),
    (lambda: F.adaptive_avg_pool2d(pyad.zeros(1, 1, 4, 4), (1, 2, 3)),
     r"adaptive_avg_pool2d\(\)"),
])
def test_bad_input_raises_naming_the_op(call, match):
    with pytest.raises((RuntimeError, ValueError, TypeError), match=match):
        call()


# -- conv1d ----------------------------------------------------------------------------

@pytest.mark.parametrize("xs,ws,has_bias,kw", [
    ((2, 4, 9), (4, 4, 3), True, dict(stride=2, padding=1, dilation=2)),
    ((2, 4, 9), (6, 2, 2), False, dict(groups=2, padding="same")),
    ((3, 8), (2, 3, 3), True, {}),                               # unbatched
])
def test_conv1d_vs_torch(xs, ws, has_bias, kw):
    rng = _rng()
    arrays = [rng.standard_normal(xs), rng.standard_normal(ws)]
    if has_bias:
        arrays.append(rng.standard_normal(ws[0]))
    check_vs_torch(lambda *a: F.conv1d(*a, **kw), lambda *a: TF.conv1d(*a, **kw), arrays)


def test_conv1d_gradcheck():
    rng = _rng()
    args = (_v(rng.standard_normal((2, 2, 6))), _v(rng.standard_normal((3, 2, 3))),
            _v(rng.standard_normal(3)))
    f = lambda x, w, b: F.conv1d(x, w, b, stride=2, padding=1)      # noqa: E731
    assert gradcheck(f, args)
    assert gradgradcheck(f, args)


# -- conv_transpose2d ------------------------------------------------------------------

@pytest.mark.parametrize("xs,ws,has_bias,kw", [
    ((2, 3, 4, 5), (3, 2, 3, 3), True, {}),
    ((2, 4, 4, 3), (4, 3, 3, 2), True, dict(stride=(2, 3), padding=(1, 1),
                                           output_padding=(1, 2), groups=2, dilation=(1, 2))),
    ((2, 2, 3, 3), (2, 2, 2, 2), False, dict(stride=2, output_padding=1)),
    ((2, 3, 3), (2, 1, 3, 3), True, dict(stride=2, padding=1)),  # unbatched
])
def test_conv_transpose2d_vs_torch(xs, ws, has_bias, kw):
    rng = _rng()
    arrays = [rng.standard_normal(xs), rng.standard_normal(ws)]
    if has_bias:
        arrays.append(rng.standard_normal(ws[1] * kw.get("groups", 1)))
    check_vs_torch(lambda *a: F.conv_transpose2d(*a, **kw),
                   lambda *a: TF.conv_transpose2d(*a, **kw), arrays)


def test_conv_transpose2d_gradcheck():
    rng = _rng()
    args = (_v(rng.standard_normal((1, 2, 3, 3))), _v(rng.standard_normal((2, 1, 2, 2))),
            _v(rng.standard_normal(2)))
    f = lambda x, w, b: F.conv_transpose2d(x, w, b, stride=2, padding=1,  # noqa: E731
                                           output_padding=1, groups=2)
    assert gradcheck(f, args)
    assert gradgradcheck(f, args)


def test_conv_transpose2d_is_the_input_gradient_of_conv2d():
    rng = _rng()
    x = _v(rng.standard_normal((1, 2, 7, 7)))
    w = pyad.Variable(rng.standard_normal((3, 2, 3, 3)))
    g = pyad.Variable(rng.standard_normal((1, 3, 4, 4)))
    (gx,) = pyad.autograd.grad(F.conv2d(x, w, stride=2, padding=1), x, g)
    want = F.conv_transpose2d(g, w, stride=2, padding=1)
    np.testing.assert_allclose(gx.data, want.data, rtol=RTOL)


# -- max_pool2d ------------------------------------------------------------------------

MAXPOOL = [
    ((2, 3, 6, 7), dict(kernel_size=2)),
    ((2, 3, 7, 8), dict(kernel_size=3, stride=2, padding=1, dilation=(1, 2), ceil_mode=True)),
    ((1, 2, 7, 7), dict(kernel_size=(3, 2), stride=(2, 1), padding=(1, 1))),
    ((1, 2, 5, 5), dict(kernel_size=2, ceil_mode=True)),
    ((2, 5, 5), dict(kernel_size=3, stride=1)),                   # unbatched
]


@pytest.mark.parametrize("xs,kw", MAXPOOL)
def test_max_pool2d_vs_torch(xs, kw):
    # distinct values: no ties
    x = _rng().permutation(int(np.prod(xs))).reshape(xs) / 7.0
    check_vs_torch(lambda a: F.max_pool2d(a, **kw), lambda a: TF.max_pool2d(a, **kw), [x])
    out, idx = F.max_pool2d(pyad.Variable(x), return_indices=True, **kw)
    tout, tidx = TF.max_pool2d(torch.tensor(x), return_indices=True, **kw)
    assert idx.dtype == np.int64
    np.testing.assert_array_equal(idx.data, tidx.numpy())
    _close(out.data, tout, "value")


def test_max_pool2d_ties_give_the_gradient_to_the_first_maximum():
    x = np.array([[[[1., 3., 3., 0.], [3., 2., 0., 0.], [0., 0., 5., 5.], [0., 0., 5., 5.]]]])
    px = _v(x.copy())
    tx = torch.tensor(x, requires_grad=True)
    out, idx = F.max_pool2d(px, 2, return_indices=True)
    tout, tidx = TF.max_pool2d(tx, 2, return_indices=True)
    np.testing.assert_array_equal(idx.data, tidx.numpy())
    np.testing.assert_array_equal(idx.data, [[[[1, 2], [8, 10]]]])
    out.sum().backward()
    tout.sum().backward()
    np.testing.assert_array_equal(px.grad.data, tx.grad.numpy())
    # overlapping windows: one position can be the max of several windows
    px.grad = None
    tx.grad = None
    F.max_pool2d(px, 2, stride=1).sum().backward()
    TF.max_pool2d(tx, 2, stride=1).sum().backward()
    np.testing.assert_array_equal(px.grad.data, tx.grad.numpy())


def test_max_pool2d_all_minus_inf_window_points_at_an_input_entry():
    x = np.full((1, 1, 3, 3), -np.inf)
    px, tx = _v(x.copy()), torch.tensor(x, requires_grad=True)
    out, idx = F.max_pool2d(px, 2, stride=2, padding=1, return_indices=True)
    tout, tidx = TF.max_pool2d(tx, 2, stride=2, padding=1, return_indices=True)
    np.testing.assert_array_equal(idx.data, tidx.numpy())
    np.testing.assert_array_equal(out.data, tout.detach().numpy())
    g = np.arange(1.0, 5.0).reshape(1, 1, 2, 2)
    out.backward(pyad.Variable(g))
    tout.backward(torch.tensor(g))
    np.testing.assert_array_equal(px.grad.data, tx.grad.numpy())


TILING = [
    ((2, 3, 7, 9), dict(kernel_size=(3, 2))),
    ((2, 3, 7, 9), dict(kernel_size=(1, 2))),
    ((2, 3, 7, 9), dict(kernel_size=(2, 1), stride=(2, 1))),
    ((1, 2, 6, 6), dict(kernel_size=3, ceil_mode=True)),
    ((3, 5, 7), dict(kernel_size=2)),                              # unbatched
]


@pytest.mark.parametrize("xs,kw", TILING)
def test_max_pool2d_tiling_windows_vs_torch(xs, kw):
    # kernel == stride, no padding: the separable path, first and second order
    x = _rng(4).permutation(int(np.prod(xs))).reshape(xs) / 7.0
    check_vs_torch(lambda a: F.max_pool2d(a, **kw), lambda a: TF.max_pool2d(a, **kw), [x])
    xt = np.ascontiguousarray(x.swapaxes(-1, -2)).swapaxes(-1, -2)   # non-contiguous
    check_vs_torch(lambda a: F.max_pool2d(a, **kw), lambda a: TF.max_pool2d(a, **kw), [xt])


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_max_pool2d_tiling_ties_nan_inf_vs_torch(dtype):
    rng = _rng(5)
    x = rng.integers(-2, 3, size=(2, 3, 9, 8)).astype(dtype)
    x[0, 0, 0, 1] = x[0, 1, 3, 3] = x[1, 2, 2, 0] = x[1, 2, 3, 1] = np.nan
    x[0, 2, :2, :2] = -np.inf
    x[1, 0, 4, 4] = np.inf
    for kernel in (2, (3, 2), (2, 4)):
        px, tx = _v(x.copy()), torch.tensor(x, requires_grad=True)
        po, to = F.max_pool2d(px, kernel), TF.max_pool2d(tx, kernel)
        np.testing.assert_array_equal(po.data, to.detach().numpy())
        g = rng.standard_normal(po.shape).astype(dtype)
        g[0, 0, 0, 0], g[1, 1, 1, 1] = np.inf, np.nan
        po.backward(pyad.Variable(g))
        to.backward(torch.tensor(g))
        np.testing.assert_array_equal(px.grad.data, tx.grad.numpy())
        assert (np.signbit(px.grad.data) == np.signbit(tx.grad.numpy())).all()


def test_max_pool2d_gradcheck():
    x = _v(_rng().permutation(2 * 36).reshape(1, 2, 6, 6) / 5.0)
    f = lambda x: F.max_pool2d(x, 3, stride=2, padding=1)      # noqa: E731
    assert gradcheck(f, (x,))
    assert gradgradcheck(f, (x,))


def test_max_pool2d_float32():
    x = _rng().standard_normal((2, 3, 6, 6)).astype(np.float32)
    out = F.max_pool2d(pyad.Variable(x), 2)
    assert out.dtype == np.float32
    np.testing.assert_array_equal(out.data, TF.max_pool2d(torch.tensor(x), 2).numpy())


# -- avg_pool2d ------------------------------------------------------------------------

@pytest.mark.parametrize("kw", [
    dict(kernel_size=2),
    dict(kernel_size=3, stride=2, padding=1),
    dict(kernel_size=3, stride=2, padding=1, ceil_mode=True),
    dict(kernel_size=3, stride=2, padding=1, ceil_mode=True, count_include_pad=False),
    dict(kernel_size=(3, 2), stride=(2, 1), padding=(1, 0), divisor_override=5),
    dict(kernel_size=2, ceil_mode=True, count_include_pad=False),
])
@pytest.mark.parametrize("xs", [(2, 3, 7, 8), (3, 5, 5)])
def test_avg_pool2d_vs_torch(xs, kw):
    x = _rng().standard_normal(xs)
    check_vs_torch(lambda a: F.avg_pool2d(a, **kw), lambda a: TF.avg_pool2d(a, **kw), [x])


def test_avg_pool2d_gradcheck():
    x = _v(_rng().standard_normal((1, 2, 5, 5)))
    f = lambda x: F.avg_pool2d(x, 3, stride=2, padding=1, ceil_mode=True,  # noqa: E731
                               count_include_pad=False)
    assert gradcheck(f, (x,))
    assert gradgradcheck(f, (x,))


# -- adaptive_avg_pool2d ---------------------------------------------------------------

@pytest.mark.parametrize("xs,size", [((2, 3, 7, 8), (3, 5)), ((2, 3, 6, 6), 3),
                                     ((2, 3, 5, 7), (None, 2)), ((3, 5, 4), 1),
                                     ((1, 2, 3, 3), (5, 4))])
def test_adaptive_avg_pool2d_vs_torch(xs, size):
    x = _rng().standard_normal(xs)
    check_vs_torch(lambda a: F.adaptive_avg_pool2d(a, size),
                   lambda a: TF.adaptive_avg_pool2d(a, size), [x])


def test_adaptive_avg_pool2d_gradcheck():
    x = _v(_rng().standard_normal((1, 2, 5, 4)))
    f = lambda x: F.adaptive_avg_pool2d(x, (2, 3))      # noqa: E731
    assert gradcheck(f, (x,))
    assert gradgradcheck(f, (x,))


def test_functional_exports():
    for name in ("conv1d", "conv2d", "conv_transpose2d", "max_pool2d", "avg_pool2d",
                 "adaptive_avg_pool2d"):
        assert name in F.__all__
        # the convolutions are wrapped for autocast's casting (pyad/amp/autocast_mode.py)
        op = getattr(F, name)
        assert getattr(op, "__wrapped__", op) is getattr(pyad, name)
        assert not hasattr(pyad.Variable, name)


def test_conv_node_refuses_a_second_backward():
    x = _v(np.ones((1, 1, 3, 3)))
    out = F.conv2d(x, _v(np.ones((1, 1, 2, 2)))).sum()
    out.backward()
    with pytest.raises(RuntimeError):
        out.backward()
    y = F.max_pool2d(x, 2, stride=1).sum()
    y.backward()
    with pytest.raises(RuntimeError):
        y.backward()
    y = F.max_pool2d(x, 2).sum()             # windows that tile the input
    y.backward()
    with pytest.raises(RuntimeError):
        y.backward()


def test_nodes_called_with_a_wrong_gradient_raise():
    # never a crash: the window views are strided views, checked against the array bounds
    x = _v(np.ones((1, 1, 4, 4)))
    for out in (F.conv2d(x, _v(np.ones((1, 1, 2, 2)))), F.max_pool2d(x, 2)):
        for bad in (np.ones((1, 1, 9, 9)), np.ones(3)):
            for mode in (False, True):
                with pyad.set_grad_enabled(mode):
                    with pytest.raises((RuntimeError, ValueError, IndexError, TypeError)):
                        out.grad_fn(pyad.Variable(bad))
    fold = F.conv_transpose2d(x, _v(np.ones((1, 1, 2, 2)))).grad_fn   # FoldBackward
    with pytest.raises(RuntimeError, match="do not fit"):
        fold(pyad.Variable(np.ones((1, 1, 2, 2))))


def test_conv2d_input_changed_in_place_after_forward_raises():
    # only the weight needs a gradient: its fast path keeps the im2col columns, and
    # still refuses an input changed since the forward, as torch
    h = pyad.Variable(np.ones((1, 1, 4, 4)))
    out = F.conv2d(h, _v(np.ones((1, 1, 2, 2))))
    h.mul_(2)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        out.sum().backward()


OPS = [
    ("conv2d", lambda m, x, w: m.conv2d(x, w, padding=1), (3, 2, 3, 3)),
    ("conv1d", lambda m, x, w: m.conv1d(x[:, :, 1], w, stride=2), (3, 2, 3)),
    ("conv_transpose2d", lambda m, x, w: m.conv_transpose2d(x, w, stride=2), (2, 3, 3, 3)),
    ("max_pool2d", lambda m, x, w: m.max_pool2d(x, 3, stride=2, padding=1), None),
    ("avg_pool2d", lambda m, x, w: m.avg_pool2d(x, 2, ceil_mode=True), None),
    ("adaptive_avg_pool2d", lambda m, x, w: m.adaptive_avg_pool2d(x, (2, 3)), None),
]


@pytest.mark.parametrize("name,call,wshape", OPS, ids=[o[0] for o in OPS])
@pytest.mark.parametrize("variant", ["float32", "non-contiguous", "empty batch"])
def test_variants_vs_torch(name, call, wshape, variant):
    rng = _rng(3)
    x = rng.standard_normal((2, 2, 6, 5) if variant != "empty batch" else (0, 2, 6, 5))
    w = rng.standard_normal(wshape) if wshape else None
    if variant == "float32":
        x = x.astype(np.float32)
        w = None if w is None else w.astype(np.float32)
    if variant == "non-contiguous":
        x = np.ascontiguousarray(x.transpose(0, 1, 3, 2)).transpose(0, 1, 3, 2)
        assert not x.flags.c_contiguous
    px, tx = _v(x), torch.tensor(x, requires_grad=True)
    pw = None if w is None else _v(w)
    tw = None if w is None else torch.tensor(w, requires_grad=True)
    po, to = call(F, px, pw), call(TF, tx, tw)
    assert po.dtype == x.dtype and po.shape == tuple(to.shape)
    tol = dict(rtol=1e-5, atol=1e-5) if variant == "float32" else dict(rtol=RTOL, atol=1e-12)
    np.testing.assert_allclose(po.data, to.detach().numpy(), **tol)
    g = rng.standard_normal(po.shape).astype(x.dtype)
    po.backward(pyad.Variable(g))
    to.backward(torch.tensor(g))
    np.testing.assert_allclose(px.grad.data, tx.grad.numpy(), **tol)
    assert px.grad.dtype == x.dtype
    if w is not None:
        np.testing.assert_allclose(pw.grad.data, tw.grad.numpy(), **tol)


@pytest.mark.parametrize("kw", [dict(kernel_size=2), dict(kernel_size=3, stride=1, padding=1)])
def test_max_pool2d_nan_propagates_as_torch(kw):
    x = np.arange(16.).reshape(1, 1, 4, 4)
    x[0, 0, 0, 1] = x[0, 0, 1, 0] = x[0, 0, 3, 3] = np.nan
    out, idx = F.max_pool2d(pyad.Variable(x), return_indices=True, **kw)
    tout, tidx = TF.max_pool2d(torch.tensor(x), return_indices=True, **kw)
    np.testing.assert_array_equal(out.data, tout.numpy())       # NaN equal to NaN
    np.testing.assert_array_equal(idx.data, tidx.numpy())


# -- integer and bool inputs: pooled forward where torch's CPU kernels take them --------

_INT_DTYPES = ["int8", "int16", "int32", "int64", "uint8", "bool"]


def _torch_or_error(fn):
    try:
        return fn(), None
    except (NotImplementedError, RuntimeError) as exc:
        return None, exc


@pytest.mark.parametrize("dtype", _INT_DTYPES)
@pytest.mark.parametrize("case", [
    ("max_pool2d", dict(kernel_size=2)),
    ("max_pool2d", dict(kernel_size=3, stride=2, padding=1)),
    ("max_pool2d", dict(kernel_size=2, padding=1, return_indices=True)),
    ("max_pool2d", dict(kernel_size=2, dilation=2, ceil_mode=True)),
    ("avg_pool2d", dict(kernel_size=2)),
    ("avg_pool2d", dict(kernel_size=3, stride=2, padding=1)),
    ("avg_pool2d", dict(kernel_size=3, padding=1, count_include_pad=False)),
    ("avg_pool2d", dict(kernel_size=2, divisor_override=3)),
    ("avg_pool2d", dict(kernel_size=2, divisor_override=-3)),
    ("adaptive_avg_pool2d", dict(output_size=2)),
])
def test_integer_pooling_matches_torch(dtype, case):
    name, kwargs = case
    x = _rng(5).integers(-9, 10, size=(2, 3, 6, 5))
    if dtype == "uint8":
        x = x + 9
    x = x.astype(dtype)
    want, err = _torch_or_error(lambda: getattr(TF, name)(torch.from_numpy(x.copy()),
                                                         **kwargs))
    if err is not None:
        with pytest.raises(type(err), match=r"%s\(\)" % name) as info:
            getattr(F, name)(pyad.Variable(x.copy()), **kwargs)
        # the same kernel and dtype names as torch's message
        assert str(err).split(" for ")[-1] in str(info.value), (str(err), str(info.value))
        return
    got = getattr(F, name)(pyad.Variable(x.copy()), **kwargs)
    pairs = zip(got, want) if isinstance(want, tuple) else [(got, want)]
    for g, w in pairs:
        assert g.data.dtype == np.dtype(str(w.dtype).replace("torch.", "")), (g.dtype, w.dtype)
        np.testing.assert_array_equal(g.data, w.numpy())


@pytest.mark.parametrize("dtype", _INT_DTYPES)
@pytest.mark.parametrize("return_indices", [False, True])
def test_integer_pooling_1d_matches_torch(dtype, return_indices):
    x = _rng(6).integers(-9, 10, size=(2, 3, 7))
    x = (x + 9 if dtype == "uint8" else x).astype(dtype)
    for name, kwargs in (("max_pool1d", dict(kernel_size=2, return_indices=return_indices)),
                         ("avg_pool1d", dict(kernel_size=3, padding=1))):
        want, err = _torch_or_error(lambda: getattr(TF, name)(torch.from_numpy(x.copy()),
                                                             **kwargs))
        if err is not None:
            with pytest.raises(type(err)) as info:
                getattr(F, name)(pyad.Variable(x.copy()), **kwargs)
            assert str(err).split(" for ")[-1] in str(info.value), (str(err), str(info.value))
            continue
        got = getattr(F, name)(pyad.Variable(x.copy()), **kwargs)
        pairs = zip(got, want) if isinstance(want, tuple) else [(got, want)]
        for g, w in pairs:
            np.testing.assert_array_equal(g.data, w.numpy())


def test_integer_max_pool_padding_never_wins():
    # all-negative input with padding: -inf padding for floats, the dtype's least value
    # for integers; every output is an input value
    x = -np.arange(1, 26, dtype=np.int32).reshape(1, 1, 5, 5)
    got = F.max_pool2d(pyad.Variable(x), 3, stride=2, padding=1)
    want = TF.max_pool2d(torch.from_numpy(x), 3, stride=2, padding=1)
    np.testing.assert_array_equal(got.data, want.numpy())
