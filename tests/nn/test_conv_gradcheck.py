"""Convolution and pooling without torch: values against plain NumPy loops, and
first and second derivatives by finite differences (gradcheck / gradgradcheck) in
float64. tests/nn/test_conv_pool.py compares the same ops with torch and skips when
torch is absent; this module always runs."""
import numpy as np
import pytest

import pyad
import pyad.nn.functional as F
from pyad.autograd import gradcheck, gradgradcheck


def _rng(seed=0):
    return np.random.default_rng(seed)


def _var(shape, seed, requires_grad=True):
    # Distinct values (no ties), so max pooling is differentiable at every input.
    return pyad.Variable(_rng(seed).standard_normal(shape), requires_grad=requires_grad)


def _pair(v):
    return (v, v) if isinstance(v, int) else tuple(v)


# -- NumPy references (direct loops over the output) -------------------------------------

def _ref_conv2d(x, w, b, stride, padding, dilation, groups):
    sh, sw = _pair(stride)
    ph, pw = _pair(padding)
    dh, dw = _pair(dilation)
    n, c, h, wd = x.shape
    co, cg, kh, kw = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (ph, ph), (pw, pw)))
    oh = (h + 2 * ph - dh * (kh - 1) - 1) // sh + 1
    ow = (wd + 2 * pw - dw * (kw - 1) - 1) // sw + 1
    out = np.zeros((n, co, oh, ow))
    per_group = co // groups
    for o in range(co):
        g = o // per_group
        for i in range(oh):
            for j in range(ow):
                patch = xp[:, g * cg:(g + 1) * cg,
                           i * sh:i * sh + dh * (kh - 1) + 1:dh,
                           j * sw:j * sw + dw * (kw - 1) + 1:dw]
                out[:, o, i, j] = (patch * w[o]).sum(axis=(1, 2, 3))
        if b is not None:
            out[:, o] += b[o]
    return out


def _ref_conv_transpose2d(x, w, b, stride, padding, output_padding, dilation):
    sh, sw = _pair(stride)
    ph, pw = _pair(padding)
    oph, opw = _pair(output_padding)
    dh, dw = _pair(dilation)
    n, ci, h, wd = x.shape
    _, co, kh, kw = w.shape
    full_h = (h - 1) * sh + dh * (kh - 1) + 1 + oph
    full_w = (wd - 1) * sw + dw * (kw - 1) + 1 + opw
    full = np.zeros((n, co, full_h, full_w))
    for i in range(h):
        for j in range(wd):
            for a in range(kh):
                for c in range(kw):
                    full[:, :, i * sh + a * dh, j * sw + c * dw] += x[:, :, i, j] @ w[:, :, a, c]
    oh = (h - 1) * sh - 2 * ph + dh * (kh - 1) + oph + 1
    ow = (wd - 1) * sw - 2 * pw + dw * (kw - 1) + opw + 1
    out = full[:, :, ph:ph + oh, pw:pw + ow]
    if b is not None:
        out = out + b[None, :, None, None]
    return out


def _ref_pool2d(x, kernel, stride, padding, reduce, pad_value):
    kh, kw = _pair(kernel)
    sh, sw = _pair(stride)
    ph, pw = _pair(padding)
    xp = np.pad(x, ((0, 0), (0, 0), (ph, ph), (pw, pw)), constant_values=pad_value)
    oh = (x.shape[2] + 2 * ph - kh) // sh + 1
    ow = (x.shape[3] + 2 * pw - kw) // sw + 1
    out = np.zeros(x.shape[:2] + (oh, ow))
    for i in range(oh):
        for j in range(ow):
            out[:, :, i, j] = reduce(xp[:, :, i * sh:i * sh + kh, j * sw:j * sw + kw],
                                     axis=(2, 3))
    return out


# -- convolution -------------------------------------------------------------------------

CONV2D_CASES = [
    # (input shape, weight shape, bias, kwargs)
    ((2, 3, 5, 6), (4, 3, 3, 2), True, {}),
    ((1, 2, 6, 5), (2, 2, 2, 2), False, {"stride": 2, "padding": 1}),
    ((1, 2, 7, 7), (3, 2, 2, 3), True, {"stride": (2, 1), "padding": (1, 2), "dilation": 2}),
    ((2, 4, 4, 4), (6, 2, 3, 3), True, {"groups": 2, "padding": 1}),
    ((1, 1, 1, 1), (1, 1, 1, 1), True, {}),
]


@pytest.mark.parametrize("xs, ws, bias, kwargs", CONV2D_CASES)
def test_conv2d_values_and_gradients(xs, ws, bias, kwargs):
    x, w = _var(xs, 1), _var(ws, 2)
    b = _var((ws[0],), 3) if bias else None
    out = F.conv2d(x, w, b, **kwargs)
    want = _ref_conv2d(x.data, w.data, None if b is None else b.data,
                       kwargs.get("stride", 1), kwargs.get("padding", 0),
                       kwargs.get("dilation", 1), kwargs.get("groups", 1))
    np.testing.assert_allclose(out.data, want, rtol=1e-12, atol=1e-12)
    inputs = (x, w) if b is None else (x, w, b)

    def f(*args):
        return F.conv2d(*args, **kwargs)
    assert gradcheck(f, inputs)
    assert gradgradcheck(f, inputs)


def test_conv2d_non_contiguous_input():
    base = _var((2, 3, 6, 5), 4, requires_grad=False).data
    x = pyad.Variable(base.transpose(0, 1, 3, 2), requires_grad=True)
    assert not x.data.flags.c_contiguous
    w = _var((2, 3, 2, 2), 5)
    want = _ref_conv2d(x.data, w.data, None, 1, 0, 1, 1)
    np.testing.assert_allclose(F.conv2d(x, w).data, want, rtol=1e-12, atol=1e-12)
    assert gradcheck(F.conv2d, (x, w))
    assert gradgradcheck(F.conv2d, (x, w))


CONV1D_CASES = [
    ((2, 3, 7), (4, 3, 3), True, {}),
    ((1, 2, 9), (2, 2, 2), False, {"stride": 2, "padding": 1, "dilation": 2}),
    ((1, 4, 5), (2, 2, 3), True, {"groups": 2}),
]


@pytest.mark.parametrize("xs, ws, bias, kwargs", CONV1D_CASES)
def test_conv1d_values_and_gradients(xs, ws, bias, kwargs):
    x, w = _var(xs, 6), _var(ws, 7)
    b = _var((ws[0],), 8) if bias else None
    out = F.conv1d(x, w, b, **kwargs)
    # conv1d is conv2d over a height of one
    want = _ref_conv2d(x.data[:, :, None], w.data[:, :, None], None if b is None else b.data,
                       (1, kwargs.get("stride", 1)), (0, kwargs.get("padding", 0)),
                       (1, kwargs.get("dilation", 1)), kwargs.get("groups", 1))[:, :, 0]
    np.testing.assert_allclose(out.data, want, rtol=1e-12, atol=1e-12)
    inputs = (x, w) if b is None else (x, w, b)

    def f(*args):
        return F.conv1d(*args, **kwargs)
    assert gradcheck(f, inputs)
    assert gradgradcheck(f, inputs)


CONV_T_CASES = [
    ((2, 3, 3, 4), (3, 2, 2, 3), True, {}),
    ((1, 2, 3, 3), (2, 3, 3, 2), False, {"stride": 2, "padding": 1, "output_padding": 1}),
    ((1, 2, 3, 2), (2, 1, 2, 2), True, {"stride": (1, 2), "dilation": 2}),
]


@pytest.mark.parametrize("xs, ws, bias, kwargs", CONV_T_CASES)
def test_conv_transpose2d_values_and_gradients(xs, ws, bias, kwargs):
    x, w = _var(xs, 9), _var(ws, 10)
    b = _var((ws[1],), 11) if bias else None
    out = F.conv_transpose2d(x, w, b, **kwargs)
    want = _ref_conv_transpose2d(x.data, w.data, None if b is None else b.data,
                                 kwargs.get("stride", 1), kwargs.get("padding", 0),
                                 kwargs.get("output_padding", 0), kwargs.get("dilation", 1))
    np.testing.assert_allclose(out.data, want, rtol=1e-12, atol=1e-12)
    inputs = (x, w) if b is None else (x, w, b)

    def f(*args):
        return F.conv_transpose2d(*args, **kwargs)
    assert gradcheck(f, inputs)
    assert gradgradcheck(f, inputs)


def test_conv_transpose2d_is_the_adjoint_of_conv2d():
    # <conv2d(x, w), y> == <x, conv_transpose2d(y, w)> for the same stride and padding.
    x, w = _var((1, 2, 5, 5), 12, False), _var((3, 2, 3, 3), 13, False)
    y = _var((1, 3, 3, 3), 14, False)
    lhs = (F.conv2d(x, w, stride=2, padding=1).data * y.data).sum()
    rhs = (x.data * F.conv_transpose2d(y, w, stride=2, padding=1).data).sum()
    np.testing.assert_allclose(lhs, rhs, rtol=1e-12)


# -- pooling -----------------------------------------------------------------------------

MAX_POOL_CASES = [
    ((2, 2, 4, 4), {"kernel_size": 2}),
    ((1, 3, 5, 6), {"kernel_size": (2, 3), "stride": 1}),
    ((1, 1, 5, 5), {"kernel_size": 3, "stride": 2, "padding": 1}),
    # windows that tile the input (kernel == stride, no padding): the separable path,
    # with rows and columns past the last window, and kernels of 1 along one axis
    ((2, 2, 5, 7), {"kernel_size": 2}),
    ((1, 2, 7, 8), {"kernel_size": (3, 2)}),
    ((1, 2, 4, 7), {"kernel_size": (1, 3)}),
    ((2, 1, 5, 3), {"kernel_size": (2, 1), "stride": (2, 1)}),
    ((1, 1, 6, 6), {"kernel_size": 3, "ceil_mode": True}),
]


@pytest.mark.parametrize("xs, kwargs", MAX_POOL_CASES)
def test_max_pool2d_values_and_gradients(xs, kwargs):
    x = _var(xs, 15)
    kernel = kwargs["kernel_size"]
    stride = kwargs.get("stride", kernel)
    want = _ref_pool2d(x.data, kernel, stride, kwargs.get("padding", 0), np.max, -np.inf)
    np.testing.assert_allclose(F.max_pool2d(x, **kwargs).data, want, rtol=0, atol=0)

    def f(v):
        return F.max_pool2d(v, **kwargs)
    assert gradcheck(f, (x,))
    assert gradgradcheck(f, (x,))


def test_max_pool2d_tie_sends_the_gradient_to_one_input():
    x = pyad.Variable(np.ones((1, 1, 2, 2)), requires_grad=True)
    F.max_pool2d(x, 2).sum().backward()
    assert x.grad.data.sum() == 1.0
    assert np.count_nonzero(x.grad.data) == 1


def _ref_max_pool_grad(x, g, kernel):
    # Windows that tile x: each window's gradient to its first maximum in row-major
    # order, or to its last NaN.
    kh, kw = _pair(kernel)
    out = np.zeros_like(x)
    for n in range(x.shape[0]):
        for c in range(x.shape[1]):
            for i in range(x.shape[2] // kh):
                for j in range(x.shape[3] // kw):
                    win = x[n, c, i * kh:(i + 1) * kh, j * kw:(j + 1) * kw].ravel()
                    nan = np.flatnonzero(np.isnan(win))
                    k = nan[-1] if nan.size else int(np.argmax(win))
                    out[n, c, i * kh + k // kw, j * kw + k % kw] = g[n, c, i, j]
    return out


@pytest.mark.parametrize("kernel", [2, (2, 3), (3, 1)])
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.float16])
def test_max_pool2d_ties_nan_and_inf_in_tiling_windows(kernel, dtype):
    # Few distinct values (many ties), NaN, +-inf in the input, and inf and NaN in the
    # output gradient: the gradient goes to one entry per window, exactly.
    rng = _rng(20)
    x = rng.integers(-2, 3, size=(2, 3, 7, 8)).astype(dtype)
    x[0, 0, 0, 1] = x[0, 1, 3, 3] = x[1, 2, 2, 0] = x[1, 2, 3, 1] = np.nan
    x[0, 2, :2, :2] = -np.inf
    x[1, 0, 4, 4] = np.inf
    xv = pyad.Variable(x, requires_grad=True)
    out = F.max_pool2d(xv, kernel)
    kh, kw = _pair(kernel)
    with np.errstate(invalid="ignore"):
        want = _ref_pool2d(x.astype(np.float64), kernel, kernel, 0,
                           lambda a, axis: np.max(a, axis=axis), -np.inf)
    np.testing.assert_array_equal(out.data, want.astype(dtype))     # NaN where NaN
    g = rng.standard_normal(out.shape).astype(dtype)
    g[0, 0, 0, 0], g[1, 1, 1, 1], g[0, 2, 0, 0] = np.inf, np.nan, -np.inf
    out.backward(pyad.Variable(g))
    want = _ref_max_pool_grad(x, g, kernel)
    assert xv.grad.dtype == dtype
    np.testing.assert_array_equal(xv.grad.data, want)
    assert not np.signbit(xv.grad.data[want == 0]).any()     # +0 off the maxima
    # the differentiable form (create_graph) gives the same
    xv.grad = None
    (gx,) = pyad.autograd.grad(F.max_pool2d(xv, kernel), xv, pyad.Variable(g),
                               create_graph=True)
    np.testing.assert_array_equal(gx.data, want)


def test_max_pool2d_tiling_second_order_is_the_gather_of_the_maxima():
    # d/dg of <max_pool2d backward(g), r> is r at each window's maximum.
    x = _var((2, 2, 5, 7), 21)
    g = pyad.Variable(_rng(22).standard_normal((2, 2, 2, 3)), requires_grad=True)
    r = _rng(23).standard_normal((2, 2, 5, 7))
    (gx,) = pyad.autograd.grad(F.max_pool2d(x, (2, 2)), x, g, create_graph=True)
    (gg,) = pyad.autograd.grad(pyad.sum(gx * pyad.Variable(r)), g)
    picked = _ref_max_pool_grad(x.data, np.ones((2, 2, 2, 3)), 2) * r
    np.testing.assert_allclose(gg.data, _ref_pool2d(picked, 2, 2, 0, np.sum, 0.0),
                               rtol=1e-12)


AVG_POOL_CASES = [
    ((2, 2, 4, 4), {"kernel_size": 2}),
    ((1, 3, 5, 6), {"kernel_size": (2, 3), "stride": 1}),
    ((1, 1, 5, 5), {"kernel_size": 3, "stride": 2, "padding": 1}),
]


@pytest.mark.parametrize("xs, kwargs", AVG_POOL_CASES)
def test_avg_pool2d_values_and_gradients(xs, kwargs):
    x = _var(xs, 16)
    kernel = kwargs["kernel_size"]
    stride = kwargs.get("stride", kernel)
    kh, kw = _pair(kernel)
    # count_include_pad=True (the default): padded zeros count in the divisor
    want = _ref_pool2d(x.data, kernel, stride, kwargs.get("padding", 0), np.sum, 0.0) / (kh * kw)
    np.testing.assert_allclose(F.avg_pool2d(x, **kwargs).data, want, rtol=1e-12, atol=1e-12)

    def f(v):
        return F.avg_pool2d(v, **kwargs)
    assert gradcheck(f, (x,))
    assert gradgradcheck(f, (x,))


@pytest.mark.parametrize("xs, size", [((2, 2, 4, 4), 2), ((1, 3, 6, 4), (3, 2)),
                                      ((1, 1, 5, 7), 1)])
def test_adaptive_avg_pool2d_values_and_gradients(xs, size):
    x = _var(xs, 17)
    oh, ow = _pair(size)
    h, w = xs[2], xs[3]
    want = np.zeros(xs[:2] + (oh, ow))
    for i in range(oh):
        for j in range(ow):
            rows = slice(i * h // oh, -(-(i + 1) * h // oh))
            cols = slice(j * w // ow, -(-(j + 1) * w // ow))
            want[:, :, i, j] = x.data[:, :, rows, cols].mean(axis=(2, 3))
    np.testing.assert_allclose(F.adaptive_avg_pool2d(x, size).data, want, rtol=1e-12,
                               atol=1e-12)

    def f(v):
        return F.adaptive_avg_pool2d(v, size)
    assert gradcheck(f, (x,))
    assert gradgradcheck(f, (x,))


def test_conv_then_pool_chain_second_order():
    x, w = _var((1, 2, 6, 6), 18), _var((2, 2, 3, 3), 19)

    def f(a, b):
        return F.max_pool2d(pyad.tanh(F.conv2d(a, b, padding=1)), 2)
    assert gradcheck(f, (x, w))
    assert gradgradcheck(f, (x, w))


@pytest.mark.parametrize("which", ["input", "weight"])
def test_nn_grad_refuses_a_grad_output_of_the_wrong_shape(which):
    # pyad.nn.grad: the convolution with the stand-in gives (1, 1, 2, 2), not (1, 1, 3, 3)
    from pyad.nn import grad as G
    g = pyad.ones(1, 1, 3, 3)
    message = (r"conv2d_%s\(\): grad_output has shape \(1, 1, 3, 3\), but the "
               r"convolution with an? %s of size" % (which, which))
    with pytest.raises(ValueError, match=message):
        if which == "input":
            G.conv2d_input((1, 1, 4, 4), pyad.ones(1, 1, 3, 3), g)
        else:
            G.conv2d_weight(pyad.ones(1, 1, 4, 4), (1, 1, 3, 3), g)
