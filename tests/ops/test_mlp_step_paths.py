"""The MLP training step's fast paths (issue 19, row (b)): relu's forward (maximum into
calloc'd zeros) and backward (one comparison, y != 0), log_softmax's fused forward.

Each path is compared with torch on the same inputs (float32 and float64; 0-d, empty,
non-contiguous and transposed operands; NaN, +-inf and ties at 0), gradchecked in float64
to second order, and checked to leave the general path's cases to it.
"""
import warnings

import numpy as np
import pytest

import pyad
from pyad.autograd import gradcheck, gradgradcheck

torch = pytest.importorskip("torch")

NAN, INF = float("nan"), float("inf")
_TOL = {np.float32: dict(rtol=2e-6, atol=2e-6), np.float64: dict(rtol=1e-12, atol=1e-12)}


def _pair(a):
    return (pyad.Variable(a.copy(), requires_grad=True),
            torch.tensor(a.copy(), requires_grad=True))


def _as_layout(a, layout):
    # the same values laid out as asked: C order, a transposed view, a strided slice
    if layout == "c":
        return np.ascontiguousarray(a)
    if layout == "t":
        return np.ascontiguousarray(a.T).T
    big = np.zeros((a.shape[0], 2 * a.shape[1]), a.dtype)
    big[:, ::2] = a
    return big[:, ::2]


def _values_and_grads(fn_p, fn_t, a, seed=0):
    g = np.random.default_rng(seed).standard_normal(a.shape).astype(a.dtype)
    p, t = _pair(a)
    yp, yt = fn_p(p), fn_t(t)
    yp.backward(pyad.Variable(g))
    yt.backward(torch.tensor(g))
    return yp.data, yt.detach().numpy(), p.grad.data, t.grad.numpy()


# -- relu ----------------------------------------------------------------------------

_RELU_EDGE = np.array([[NAN, -INF, -3.0, -1.0, 0.0, -0.0, 1e-30, 1.0, 3.0, INF],
                       [-NAN, 2.0, -2.0, 0.0, 5.0, -5.0, 0.5, -0.5, INF, -INF]])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("layout", ["c", "t", "strided"])
def test_relu_matches_torch_with_nan_inf_and_ties(dtype, layout):
    a = _as_layout(_RELU_EDGE.astype(dtype), layout)
    y, ty, gx, tgx = _values_and_grads(pyad.relu, torch.relu, a)
    assert y.dtype == dtype and gx.dtype == dtype
    np.testing.assert_array_equal(y, ty)              # nan where nan, 0 at -inf and at ties
    np.testing.assert_array_equal(gx, tgx)            # passes at nan, 0 at exactly 0


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(), (0,), (0, 3), (64, 256), (2, 3, 5)])
def test_relu_matches_torch_on_shapes(dtype, shape):
    a = np.random.default_rng(1).standard_normal(shape).astype(dtype)
    if a.size:
        a.flat[::3] = 0.0                              # ties at 0
    y, ty, gx, tgx = _values_and_grads(pyad.relu, torch.relu, a)
    assert y.shape == shape and y.dtype == dtype
    np.testing.assert_array_equal(y, ty)
    np.testing.assert_array_equal(gx, tgx)


def test_relu_output_is_a_fresh_array_in_the_input_layout():
    a = np.asfortranarray(np.random.default_rng(2).standard_normal((5, 7)))
    x = pyad.Variable(a)
    y = pyad.relu(x)
    assert y.data.strides == np.maximum(a, 0).strides   # F-order stays F-order
    c = pyad.Variable(np.ascontiguousarray(a))
    yc = pyad.relu(c)
    assert yc.data.flags.c_contiguous and yc.data.flags.writeable
    assert not np.shares_memory(yc.data, c.data)
    np.testing.assert_array_equal(yc.data, np.maximum(a, 0))


def test_relu_keeps_integer_and_half_dtypes():
    for dt in (np.float16, np.int32, np.int64):
        a = np.array([[-2, 0, 3]], dtype=dt)
        y = pyad.relu(pyad.Variable(a))
        assert y.dtype == dt
        np.testing.assert_array_equal(y.data, np.array([[0, 0, 3]], dtype=dt))


def test_relu_gradcheck_and_gradgradcheck():
    a = np.random.default_rng(3).standard_normal((4, 6))
    a[np.abs(a) < 0.1] = 0.5                       # away from the kink for finite differences
    for x in (pyad.Variable(a, requires_grad=True),
              pyad.Variable(np.asfortranarray(a), requires_grad=True)):
        assert gradcheck(pyad.relu, (x,))
        assert gradgradcheck(pyad.relu, (x,))


def test_relu_double_backward_matches_torch():
    a = np.array([[-1.0, 0.0, 2.0, NAN], [3.0, -0.0, -INF, INF]])
    g = np.array([[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0]])
    p, t = _pair(a)
    gp = pyad.Variable(g, requires_grad=True)
    gt = torch.tensor(g, requires_grad=True)
    (dp,) = pyad.autograd.grad(pyad.relu(p), p, gp, create_graph=True)
    (dt,) = torch.autograd.grad(torch.relu(t), t, gt, create_graph=True)
    np.testing.assert_array_equal(dp.data, dt.detach().numpy())
    (dp * dp).sum().backward()
    (dt * dt).sum().backward()
    np.testing.assert_array_equal(gp.grad.data, gt.grad.numpy())


def test_relu_saved_output_modified_in_place_is_refused():
    x = pyad.Variable(np.array([1.0, -1.0]), requires_grad=True)
    y = pyad.relu(x)
    with pyad.no_grad():
        y.mul_(2)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


# -- log_softmax ---------------------------------------------------------------------

def _lsm(dim):
    return (lambda v: pyad.log_softmax(v, dim=dim)), (lambda t: torch.log_softmax(t, dim))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape,dim", [((64, 10), 1), ((64, 10), 0), ((5,), 0), ((2, 3, 4), 1),
                                       ((2, 3, 4), -1), ((1, 7), 1), ((7, 1), 1)])
@pytest.mark.parametrize("scale", [1.0, 1e4])
def test_log_softmax_matches_torch(dtype, shape, dim, scale):
    a = (scale * np.random.default_rng(4).standard_normal(shape)).astype(dtype)
    fp, ft = _lsm(dim)
    y, ty, gx, tgx = _values_and_grads(fp, ft, a)
    assert y.dtype == dtype and gx.dtype == dtype and y.shape == shape
    tol = _TOL[dtype]
    np.testing.assert_allclose(y, ty, rtol=tol["rtol"], atol=tol["atol"] * max(scale, 1.0))
    np.testing.assert_allclose(gx, tgx, **tol)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("layout", ["t", "strided"])
def test_log_softmax_non_contiguous_matches_torch(dtype, layout):
    a = _as_layout(np.random.default_rng(5).standard_normal((6, 9)).astype(dtype), layout)
    for dim in (0, 1):
        fp, ft = _lsm(dim)
        y, ty, gx, tgx = _values_and_grads(fp, ft, a)
        np.testing.assert_allclose(y, ty, **_TOL[dtype])
        np.testing.assert_allclose(gx, tgx, **_TOL[dtype])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("row", [
    [0.0, -INF, 1.0, 2.0],            # -inf beside finite values (fast path): -inf there
    [-INF, -INF, -INF, -INF],         # a row of -inf (general path): nan
    [0.0, INF, 1.0, 2.0],             # +inf (general path): nan
    [0.0, NAN, 1.0, 2.0],             # nan: nan
    [3.0, 3.0, 3.0, 3.0],             # ties
    [1e30, -1e30, 0.0, 1e30],         # far apart
])
def test_log_softmax_edge_rows_match_torch(dtype, row):
    a = np.array([row, [0.5, -0.5, 1.5, 0.0]], dtype=dtype)
    fp, ft = _lsm(1)
    p, t = _pair(a)
    y, ty = fp(p), ft(t)
    with warnings.catch_warnings():
        warnings.simplefilter("error")               # torch warns of nothing here either
        y = fp(pyad.Variable(a.copy()))
    np.testing.assert_allclose(y.data, ty.detach().numpy(), **_TOL[dtype])
    y = fp(p)
    # the gradient of a finite loss (the second, ordinary row only)
    y[1].sum().backward()
    ty[1].sum().backward()
    np.testing.assert_allclose(p.grad.data, t.grad.numpy(), **_TOL[dtype])


@pytest.mark.parametrize("shape,dim", [((), 0), ((0,), 0), ((0, 3), 1), ((3, 0), 1),
                                       ((3, 0), 0)])
def test_log_softmax_0d_and_empty_match_torch(shape, dim):
    a = np.random.default_rng(6).standard_normal(shape).astype(np.float32)
    fp, ft = _lsm(dim)
    y, ty, gx, tgx = _values_and_grads(fp, ft, a)
    assert y.shape == shape and y.dtype == np.float32
    np.testing.assert_allclose(y, ty, **_TOL[np.float32])
    np.testing.assert_allclose(gx, tgx, **_TOL[np.float32])


def test_log_softmax_output_is_its_own_array():
    a = np.random.default_rng(7).standard_normal((3, 4)).astype(np.float32)
    x = pyad.Variable(a)
    before = a.copy()
    y = pyad.log_softmax(x, dim=1)
    assert not np.shares_memory(y.data, a) and y.data.flags.writeable
    np.testing.assert_array_equal(a, before)         # the input is untouched


def test_log_softmax_gradcheck_and_gradgradcheck():
    rng = np.random.default_rng(8)
    for shape, dim in (((4, 5), 1), ((4, 5), 0), ((2, 3, 4), 1)):
        x = pyad.Variable(rng.standard_normal(shape), requires_grad=True)
        assert gradcheck(lambda v: pyad.log_softmax(v, dim=dim), (x,))
        assert gradgradcheck(lambda v: pyad.log_softmax(v, dim=dim), (x,))
    x = pyad.Variable(np.asfortranarray(rng.standard_normal((4, 5))), requires_grad=True)
    assert gradgradcheck(lambda v: pyad.log_softmax(v, dim=1), (x,))


def test_log_softmax_double_backward_matches_torch():
    a = np.random.default_rng(9).standard_normal((3, 5))
    g = np.random.default_rng(10).standard_normal((3, 5))
    p, t = _pair(a)
    (dp,) = pyad.autograd.grad(pyad.log_softmax(p, dim=1), p, pyad.Variable(g),
                               create_graph=True)
    (dt,) = torch.autograd.grad(torch.log_softmax(t, 1), t, torch.tensor(g), create_graph=True)
    np.testing.assert_allclose(dp.data, dt.detach().numpy(), rtol=1e-12, atol=1e-12)
    (dp * dp).sum().backward()
    (dt * dt).sum().backward()
    np.testing.assert_allclose(p.grad.data, t.grad.numpy(), rtol=1e-10, atol=1e-12)


# -- the whole step ------------------------------------------------------------------

@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_mlp_step_gradients_match_torch(dtype):
    # benchmarks/bench_core.py row (b) at a small size, with hooks and retain_graph
    rng = np.random.default_rng(11)
    B, I, H, O = 8, 12, 16, 5
    x = rng.standard_normal((B, I)).astype(dtype)
    onehot = np.eye(O, dtype=dtype)[rng.integers(0, O, size=B)]
    params = [rng.standard_normal((I, H)).astype(dtype), rng.standard_normal(H).astype(dtype),
              rng.standard_normal((H, O)).astype(dtype), rng.standard_normal(O).astype(dtype)]
    params[0][:, 0] = 0.0                   # some pre-activations exactly 0 (ties)
    params[1][0] = 0.0

    def step(L, P, xv, ov, hooked):
        h = (xv @ P[0] + P[1]).relu()
        h.register_hook(lambda g: hooked.append(
            g.data.copy() if L is pyad else g.detach().numpy().copy()))
        logits = h @ P[2] + P[3]
        lp = L.log_softmax(logits, dim=1) if L is pyad else torch.log_softmax(logits, 1)
        loss = -(lp * ov).sum() / B
        loss.backward(retain_graph=True)
        loss.backward()                      # twice: the grads double
        return loss

    hp, ht = [], []
    P = [pyad.Variable(p.copy(), requires_grad=True) for p in params]
    T = [torch.tensor(p.copy(), requires_grad=True) for p in params]
    lp_ = step(pyad, P, pyad.Variable(x), pyad.Variable(onehot), hp)
    lt_ = step(torch, T, torch.tensor(x), torch.tensor(onehot), ht)
    tol = _TOL[dtype]
    np.testing.assert_allclose(lp_.data, lt_.detach().numpy(), **tol)
    for a, b in zip(hp, ht):
        np.testing.assert_allclose(a, b, **tol)
    for p, t in zip(P, T):
        assert p.grad.dtype == dtype
        np.testing.assert_allclose(p.grad.data, t.grad.numpy(), **tol)


def test_the_hot_paths_warn_about_nothing():
    # Every warning is an error here, NumPy's DeprecationWarnings included (a ufunc
    # called with a form NumPy deprecates, as a third positional argument of maximum):
    # the MLP step, the chain and the Hessian-vector product of the benchmarks.
    rng = np.random.default_rng(3)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for dtype in (np.float32, np.float64):
            x = pyad.Variable(rng.standard_normal((8, 5)).astype(dtype))
            w = pyad.Variable(rng.standard_normal((5, 4)).astype(dtype), requires_grad=True)
            b = pyad.Variable(rng.standard_normal(4).astype(dtype), requires_grad=True)
            onehot = pyad.Variable(np.eye(4, dtype=dtype)[rng.integers(0, 4, 8)])
            h = (x @ w + b).relu()
            loss = -(pyad.log_softmax(h, dim=1) * onehot).sum() / 8
            loss.backward()
            v = pyad.Variable(rng.standard_normal(6).astype(dtype), requires_grad=True)
            y = v
            for _ in range(3):
                y = pyad.tanh(y * 1.5 + 0.25) - 0.1
            y.sum().backward()
            g, = pyad.autograd.grad((pyad.tanh(v) ** 3).sum(), v, create_graph=True)
            hv, = pyad.autograd.grad((g * v).sum(), v)
    assert w.grad is not None and b.grad is not None and hv.shape == (6,)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_relu_backward_with_a_broadcast_or_other_dtype_gradient_matches_torch(dtype):
    # relu's backward reads the output and the incoming gradient in one C pass when
    # both are plain arrays of one dtype and shape; a broadcast gradient (sum's backward
    # on a big array) or a gradient of another dtype takes the masked path.
    rng = np.random.default_rng(3)
    a = rng.standard_normal((80, 80)).astype(dtype)
    a[0, :4] = [0.0, -0.0, NAN, INF]
    p, t = _pair(a)
    p.relu().sum().backward()
    t.relu().sum().backward()
    np.testing.assert_array_equal(p.grad.numpy(), t.grad.numpy())
    p, t = _pair(a)
    g = rng.standard_normal(a.shape)           # float64 whatever a is
    p.relu().backward(pyad.Variable(g.astype(dtype)))
    t.relu().backward(torch.tensor(g.astype(dtype)))
    np.testing.assert_array_equal(p.grad.numpy(), t.grad.numpy())
