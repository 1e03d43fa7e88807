"""Gradient rules written once: each node below computes its gradient with one rule,
on arrays in a plain backward and on Variables (recorded) under create_graph. For each,
first derivatives without and with create_graph, and second derivatives (through the
inputs and through the incoming gradient), are compared with PyTorch on the same
inputs, at extreme values and ties where the node has them; gradgradcheck in float64.

Nodes: PowBackward, PowConstGradBackward (x ** c differentiated twice), TanhGradBackward
(tanh differentiated twice), MaximumBackward, MinimumBackward, WhereBackward,
MeanBackward, LogsumexpBackward, LogSoftmaxBackward, CrossEntropyBackward."""
import numpy as np
import pytest

import pyad
import pyad.nn.functional as F

torch = pytest.importorskip("torch")
TF = torch.nn.functional

RTOL = 1e-13


def _same(ours, theirs, rtol=RTOL, what=""):
    """pyad's array equals torch's: the same non-finite entries, finite ones to rtol."""
    theirs = theirs.detach().numpy() if hasattr(theirs, "detach") else theirs
    ours = np.asarray(ours)
    assert ours.shape == theirs.shape, (what, ours.shape, theirs.shape)
    assert ours.dtype == theirs.dtype, (what, ours.dtype, theirs.dtype)
    np.testing.assert_array_equal(np.isnan(ours), np.isnan(theirs), err_msg=what)
    np.testing.assert_array_equal(np.isposinf(ours), np.isposinf(theirs), err_msg=what)
    np.testing.assert_array_equal(np.isneginf(ours), np.isneginf(theirs), err_msg=what)
    fin = np.isfinite(theirs)
    np.testing.assert_allclose(ours[fin], theirs[fin], rtol=rtol, atol=0, err_msg=what)


def _derivatives(lib, f, arrays, seed, weights, create_graph, second=True):
    """First derivatives of f(*xs) with upstream gradient `seed` (itself differentiated),
    and the second derivatives of sum(first_i * weights_i) by the inputs and the seed."""
    if lib is pyad:
        xs = [pyad.Variable(a.copy(), requires_grad=True) for a in arrays]
        u = pyad.Variable(seed.copy(), requires_grad=True)
        grad, wrap = pyad.autograd.grad, pyad.Variable
    else:
        xs = [torch.tensor(a, requires_grad=True) for a in arrays]
        u = torch.tensor(seed, requires_grad=True)
        grad, wrap = torch.autograd.grad, torch.tensor
    y = f(lib, *xs)
    if not create_graph:
        return [g.detach() if lib is torch else g.data
                for g in grad(y, xs, u, allow_unused=True)], None
    firsts = grad(y, xs, u, create_graph=True)
    data = (lambda v: v.detach().numpy()) if lib is torch else (lambda v: v.data)
    if not second:
        return [data(g) for g in firsts], []
    s = sum((g * wrap(w)).sum() for g, w in zip(firsts, weights))
    seconds = grad(s, xs + [u], allow_unused=True, materialize_grads=True)
    return [data(g) for g in firsts], [data(h) for h in seconds]


def check_vs_torch(f, arrays, seed, rtol=RTOL, rtol2=1e-10, weights=None, second=True):
    """First derivatives to rtol (the same formula as torch's, in its order), second
    derivatives to rtol2 (tight where pyad's recorded formula is torch's double
    backward, 1e-10 where the two take different routes)."""
    if weights is None:
        rng = np.random.default_rng(0)
        weights = [rng.uniform(0.5, 1.5, np.shape(a)).astype(a.dtype) for a in arrays]
    with np.errstate(all="ignore"):
        plain, _ = _derivatives(pyad, f, arrays, seed, weights, False)
        firsts, seconds = _derivatives(pyad, f, arrays, seed, weights, True, second)
    tplain, _ = _derivatives(torch, f, arrays, seed, weights, False)
    tfirsts, tseconds = _derivatives(torch, f, arrays, seed, weights, True, second)
    for i, (a, b, c) in enumerate(zip(plain, firsts, tfirsts)):
        _same(a, c, rtol, "first derivative %d" % i)
        _same(b, c, rtol, "first derivative %d, create_graph" % i)
    for i, (a, b) in enumerate(zip(seconds, tseconds)):
        _same(a, b, rtol2, "second derivative %d" % i)


def _ggc(f, arrays, seed):
    xs = [pyad.Variable(a.copy(), requires_grad=True) for a in arrays]
    u = pyad.Variable(seed.copy())
    assert pyad.autograd.gradgradcheck(lambda *v: f(pyad, *v), xs, [u])


RNG = np.random.default_rng(7)
X34 = RNG.uniform(0.5, 1.5, (3, 4))
G34 = RNG.standard_normal((3, 4))


# -- pow ------------------------------------------------------------------------------

@pytest.mark.parametrize("c", [3, 2, 2.5, 1, -2, -0.5])
def test_pow_constant_exponent_first_second_order_match_torch(c):
    check_vs_torch(lambda L, x: x ** c, [X34], G34, rtol2=RTOL)
    _ggc(lambda L, x: x ** c, [X34], G34)


def test_pow_zero_exponent_first_order_matches_torch():
    # torch's gradient of x ** 0 is a constant zeros_like (no second derivative to
    # compare; pyad's is g * 0, whose own derivative is 0)
    check_vs_torch(lambda L, x: x ** 0, [X34], G34, second=False)
    _ggc(lambda L, x: x ** 0, [X34], G34)


def test_pow_constant_exponent_third_order_matches_torch():
    # x ** 3 differentiated thrice: PowConstGradBackward's own backward under create_graph
    out = {}
    for lib in (pyad, torch):
        x = (pyad.Variable if lib is pyad else torch.tensor)(X34.copy(), requires_grad=True)
        g, = lib.autograd.grad((x ** 3).sum(), x, create_graph=True)
        h, = lib.autograd.grad((g * g).sum(), x, create_graph=True)
        k, = lib.autograd.grad((h * x).sum(), x)
        out[lib] = k
    _same(out[pyad].data, out[torch])


def test_pow_constant_exponent_second_order_in_torchs_order_at_extremes():
    # d/dx of g * (c x^(c-1)) is ((g' g) c) ((c-1) x^(c-2)) in torch: with g' g = 1e308
    # the product g' g c overflows to inf there, where the order (g' g x) c (c-1) stays
    # finite at x = 1e-200; tiny values: the order decides what underflows.
    x = np.array([1e-200, 1e-10, 1.0, 1e150, 3.0, 0.5])
    g = np.array([1e154, 1e154, 1e-160, 1e-160, 1e308, 1e-300])
    w = [np.array([1e154, 1e154, 1e-160, 1e160, 1.0, 1e-20])]
    for c in (3, -2.0, 0.5, 4):
        check_vs_torch(lambda L, a: a ** c, [x], g, rtol2=RTOL, weights=w)
    with np.errstate(over="ignore"):        # (the inputs tell the orders apart)
        assert np.isinf(((w[0][0] * g[0]) * 3) * (2 * x[0]))
        assert np.isfinite(((w[0][0] * g[0]) * x[0]) * 6)


def test_pow_variable_exponent_first_second_order_match_torch():
    b = RNG.uniform(-1.0, 2.0, (3, 4))
    check_vs_torch(lambda L, x, e: x ** e, [X34, b], G34)
    check_vs_torch(lambda L, x, e: x ** e, [X34, b[0]], G34)       # broadcast exponent
    _ggc(lambda L, x, e: x ** e, [X34, b], G34)


def test_pow_variable_exponent_at_zero_base_and_zero_exponent_matches_torch():
    # 0 ** b for b >= 0: the exponent's gradient is 0 (not nan); b = 0: the base's is 0
    # (second derivatives at 0 ** b differ: torch's where(0 ** b = 0, 0, b log 0) gives
    # nan there, pyad's log(where(a = 0, 1, a)) 0; compared away from a = 0)
    base = np.array([0.0, 0.0, 0.0, 2.0, -1.5, 0.0, 1e-300])
    expo = np.array([0.0, 2.0, 0.5, 0.0, 2.0, 3.0, 2.0])
    check_vs_torch(lambda L, x, e: x ** e, [base, expo], np.ones(7), second=False)
    check_vs_torch(lambda L, x, e: x ** e, [base[3:5], expo[3:5]], np.ones(2))


def test_pow_number_base_and_array_operands_match_torch():
    e = RNG.uniform(-1.0, 2.0, (3, 4))
    check_vs_torch(lambda L, x: 2.5 ** x, [e], G34)
    check_vs_torch(lambda L, x: 0.0 ** x, [np.array([-1.0, 0.0, 2.0])], np.ones(3),
                   second=False)
    a = RNG.uniform(0.5, 2.0, (3, 4))
    check_vs_torch(lambda L, x: (pyad.Variable(a) if L is pyad else torch.tensor(a)) ** x,
                   [e], G34)
    check_vs_torch(lambda L, x: x ** (pyad.Variable(e) if L is pyad else torch.tensor(e)),
                   [a], G34)


def test_pow_exponent_gradient_takes_log_in_the_result_dtype_as_torch():
    # a float16 base raised to a float32 exponent: torch takes log(base) in float32
    base = np.array([0.3, 1.7, 2.9, 0.0], dtype=np.float16)
    expo = np.array([1.5, -0.5, 2.0, 1.0], dtype=np.float32)
    for create_graph in (False, True):
        x = pyad.Variable(base, requires_grad=True)
        e = pyad.Variable(expo, requires_grad=True)
        ge, = pyad.autograd.grad((x ** e).sum(), e, create_graph=create_graph)
        tx = torch.tensor(base, requires_grad=True)
        te = torch.tensor(expo, requires_grad=True)
        tge, = torch.autograd.grad((tx ** te).sum(), te)
        _same(ge.data, tge, 1e-6)


def test_pow_float32_constant_exponent_keeps_float32():
    x = X34.astype(np.float32)
    check_vs_torch(lambda L, a: a ** 3, [x], G34.astype(np.float32), rtol=1e-6, rtol2=1e-5)
    check_vs_torch(lambda L, a: a ** 1.5, [x], G34.astype(np.float32), rtol=1e-6,
                   rtol2=1e-5)


# -- pow by a number: torch's kernel forms, bit for bit ------------------------------------
#
# torch's CPU kernel computes x ** 2 as x * x, x ** 3 as (x * x) * x, x ** -2 as
# 1 / (x * x) and x ** -0.5 as 1 / sqrt(x) (pow_tensor_scalar_optimized_kernel, rsqrt);
# NumPy's pow differs from those in the last place for about a quarter of the inputs
# (3, -2, -0.5). The backward's self.pow(c - 1) goes through the same kernel.

def _pow_inputs(dtype):
    rng = np.random.default_rng(11)
    base = rng.standard_normal(257) * 3
    base[:8] = [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-200, -1e155, 1e300]
    with np.errstate(over="ignore"):                    # (float32: 1e300 is inf)
        return base.astype(dtype)


def _exact(ours, theirs, what):
    theirs = theirs.detach().numpy()
    ours = np.asarray(ours)
    assert ours.dtype == theirs.dtype and ours.shape == theirs.shape, what
    np.testing.assert_array_equal(ours, theirs, err_msg=what)     # nan == nan here
    np.testing.assert_array_equal(np.signbit(ours), np.signbit(theirs), err_msg=what)


# Exponents whose power pyad computes with torch's own arithmetic: the four forms above,
# and 1/x, x and 1, which NumPy's pow gives exactly as torch's kernel does.
TORCH_EXACT_POWERS = (2, 3, -2, -0.5, -1, 1, 0)


def _exact_or_close(ours, theirs, exact, what):
    if exact:
        _exact(ours, theirs, what)
        return
    # torch calls its own pow() there, as pyad calls NumPy's: close, not the same bits
    theirs = theirs.detach().numpy()
    np.testing.assert_array_equal(np.isnan(ours), np.isnan(theirs), err_msg=what)
    finite = np.isfinite(theirs)
    np.testing.assert_allclose(ours[finite], theirs[finite],
                               rtol=8 * np.finfo(theirs.dtype).eps, err_msg=what)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("c", [2, 3, -2, 2.0, 3.0, -2.0, -0.5, -1, 0.5, 4, 1.5])
def test_pow_by_a_number_is_torchs_bits_forward_and_gradient(c, dtype):
    base = _pow_inputs(dtype)
    seed = np.random.default_rng(5).standard_normal(base.shape).astype(dtype)
    x, tx = pyad.Variable(base.copy(), requires_grad=True), torch.tensor(base, requires_grad=True)
    with np.errstate(all="raise"):                      # and no NumPy warning either
        y = x ** c
        y.backward(pyad.Variable(seed.copy()))
    ty = tx ** c
    ty.backward(torch.tensor(seed))
    _exact_or_close(y.data, ty, c in TORCH_EXACT_POWERS, "forward")
    # the gradient is seed * (c * x.pow(c - 1)): exact where x.pow(c - 1) is
    _exact_or_close(x.grad.data, tx.grad, c - 1 in TORCH_EXACT_POWERS, "gradient")


@pytest.mark.parametrize("c", [3, -2, -0.5, 2])
@pytest.mark.parametrize("shape", [(), (0,), (3, 4)])
def test_pow_by_a_number_keeps_shape_and_layout_as_torch(c, shape):
    base = np.random.default_rng(2).uniform(0.5, 2.0, (4, 3) if shape == (3, 4) else shape)
    if shape == (3, 4):
        base = base.T                                   # non-contiguous
    x = pyad.Variable(base, requires_grad=True)
    tx = torch.tensor(base, requires_grad=True)
    y, ty = x ** c, tx ** c
    _exact(y.data, ty, "forward")
    assert isinstance(y.data, np.ndarray)
    y.sum().backward()
    ty.sum().backward()
    _exact(x.grad.data, tx.grad, "gradient")


@pytest.mark.parametrize("c", [3, -2, -0.5])
def test_pow_by_a_number_second_order_and_in_place_match_torch(c):
    x = np.random.default_rng(4).uniform(0.5, 2.0, (3, 4))
    check_vs_torch(lambda L, a: a ** c, [x], G34, rtol2=RTOL)
    _ggc(lambda L, a: a ** c, [x], G34)
    ours, theirs = pyad.Variable(x.copy()), torch.tensor(x)
    ours.pow_(c)
    theirs.pow_(c)
    _exact(ours.data, theirs, "pow_")


def test_pow_by_a_number_leaves_integers_and_complex_to_numpy_as_torch():
    ints = np.array([-3, -1, 0, 2, 5])
    for c in (2, 3):
        _exact((pyad.Variable(ints) ** c).data, torch.tensor(ints) ** c, "int pow")
    z = np.array([1 + 2j, -0.5 + 0.25j, 3 - 1j])
    for c in (2, 3, -2):
        y, ty = pyad.Variable(z) ** c, torch.tensor(z) ** c
        np.testing.assert_allclose(y.data, ty.numpy(), rtol=1e-15)


# -- tanh differentiated twice (TanhGradBackward) ---------------------------------------

def test_tanh_second_order_matches_torch():
    x = RNG.standard_normal((3, 4)) * 2
    check_vs_torch(lambda L, a: L.tanh(a), [x], G34, rtol2=RTOL)
    _ggc(lambda L, a: L.tanh(a), [x], G34)


def test_tanh_second_order_in_torchs_order_at_extremes():
    # torch: d/dy of g * (1 - y^2) is g' * ((-2 y) g); with y = 1e-200 and g = g' = 1e200
    # that is -2e200, where (g' g) (-2 y) overflows to inf first. Saturated y = +-1.
    x = np.array([1e-200, -1e-200, 30.0, -30.0, 0.0, 1e-5])
    g = np.array([1e200, 1e200, 1.0, 1e300, 1e-300, 1e155])
    w = [np.array([1e200, 1e200, 1e300, 1e10, 1e300, 1e155])]
    with np.errstate(over="ignore"):        # (the inputs tell the orders apart)
        assert np.isfinite(w[0][0] * ((-2 * x[0]) * g[0]))
        assert np.isinf((w[0][0] * g[0]) * (-2 * x[0]))
    check_vs_torch(lambda L, a: L.tanh(a), [x], g, rtol2=RTOL, weights=w)


def test_tanh_third_order_matches_torch():
    x = RNG.standard_normal(6)
    out = {}
    for lib in (pyad, torch):
        v = (pyad.Variable if lib is pyad else torch.tensor)(x.copy(), requires_grad=True)
        d1, = lib.autograd.grad(lib.tanh(v).sum(), v, create_graph=True)
        d2, = lib.autograd.grad((d1 * d1).sum(), v, create_graph=True)
        d3, = lib.autograd.grad((d2 * v).sum(), v)
        out[lib] = d3
    _same(out[pyad].data, out[torch])


def test_hvp_of_sum_tanh_cubed_matches_torch():
    # the benchmarked Hessian-vector product: PowConstGradBackward and TanhGradBackward
    x, v = RNG.standard_normal(16), RNG.standard_normal(16)
    res = {}
    for lib in (pyad, torch):
        mk = pyad.Variable if lib is pyad else torch.tensor
        xv = mk(x.copy(), requires_grad=True)
        g, = lib.autograd.grad((lib.tanh(xv) ** 3).sum(), xv, create_graph=True)
        hv, = lib.autograd.grad((g * mk(v)).sum(), xv)
        res[lib] = hv
    _same(res[pyad].data, res[torch])


# -- maximum, minimum, where (_SelectNode) ----------------------------------------------

TIES_A = np.array([[1.0, 2.0, np.nan, 3.0], [-0.0, 5.0, 1.0, np.inf]])
TIES_B = np.array([[1.0, 3.0, 0.5, np.nan], [0.0, 4.0, 1.0, np.inf]])
G24 = np.array([[1.0, -2.0, 3.0, 4.0], [0.5, 1e300, -7.0, 2.0]])


@pytest.mark.parametrize("name", ["maximum", "minimum"])
def test_maximum_minimum_first_second_order_at_ties_and_nan_match_torch(name):
    f = lambda L, a, b: getattr(L, name)(a, b)
    check_vs_torch(f, [TIES_A, TIES_B], G24)
    check_vs_torch(f, [TIES_A, TIES_B[:1]], G24)                # broadcast, ties summed
    check_vs_torch(f, [X34, RNG.uniform(0.5, 1.5, (3, 4))], G34)
    _ggc(f, [X34, RNG.uniform(0.5, 1.5, (3, 4))], G34)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_where_first_second_order_match_torch(dtype):
    cond = np.array([[True, False, True, False], [False, False, True, True]])
    a = np.array([[1.0, np.nan, 3.0, np.inf], [2.0, -1.0, -np.inf, 0.5]]).astype(dtype)
    b = np.array([[np.inf, 2.0, np.nan, 1.0], [3.0, 4.0, 5.0, np.nan]]).astype(dtype)
    g = G24.astype(dtype) if dtype == np.float64 else np.ones((2, 4), dtype)
    f = (lambda L, x, y: L.where(pyad.Variable(cond) if L is pyad
                                 else torch.tensor(cond), x, y))
    check_vs_torch(f, [a, b], g, rtol=1e-6)
    check_vs_torch(f, [a, b[:, :1].copy()], g, rtol=1e-6)       # broadcast (no bit select)
    if dtype == np.float64:
        _ggc(f, [X34[:2], RNG.standard_normal((2, 4))], G24 * 1e-300 + 1)


# -- mean, logsumexp ------------------------------------------------------------------

@pytest.mark.parametrize("dim,keepdim", [(None, False), (0, False), (1, True), ((0, 1), True)])
def test_mean_first_second_order_match_torch(dim, keepdim):
    x = RNG.standard_normal((3, 4))
    f = (lambda L, a: L.mean(a) if dim is None else L.mean(a, dim, keepdim))
    seed = np.asarray(np.mean(x, axis=dim, keepdims=keepdim) * 0 + 1.5)
    check_vs_torch(lambda L, a: f(L, a) * f(L, a), [x], seed)
    _ggc(lambda L, a: f(L, a) * f(L, a), [x], seed)


def test_mean_of_empty_and_0d_match_torch():
    check_vs_torch(lambda L, a: L.mean(a, 0), [np.zeros((0, 3))], np.ones(3))
    check_vs_torch(lambda L, a: L.mean(a) * L.mean(a), [np.array(2.5)], np.array(3.0))


@pytest.mark.parametrize("keepdim", [False, True])
def test_logsumexp_first_second_order_match_torch(keepdim):
    x = RNG.standard_normal((3, 4))
    seed = np.ones((3, 1) if keepdim else (3,)) * [[1.0], [-2.0], [0.5]][0]
    check_vs_torch(lambda L, a: L.logsumexp(a, 1, keepdim), [x], seed)
    _ggc(lambda L, a: L.logsumexp(a, 1, keepdim), [x], seed)


def test_logsumexp_at_extremes_matches_torch():
    # huge, tiny and -inf entries; a row of -inf has a nan gradient in both
    x = np.array([[1e300, 1e300, -1e300], [-np.inf, 0.0, 1.0], [-745.0, -746.0, -800.0],
                  [-np.inf, -np.inf, -np.inf]])
    check_vs_torch(lambda L, a: L.logsumexp(a, 1), [x], np.array([1.0, 2.0, -1.0, 1.0]))


# -- log_softmax, cross entropy ---------------------------------------------------------

@pytest.mark.parametrize("dim", [0, 1, -1])
def test_log_softmax_first_second_order_match_torch(dim):
    x = RNG.standard_normal((3, 4))
    check_vs_torch(lambda L, a: L.log_softmax(a, dim), [x], G34)
    _ggc(lambda L, a: L.log_softmax(a, dim), [x], G34)


def test_log_softmax_at_extremes_matches_torch():
    x = np.array([[1e300, -1e300, 0.0], [-np.inf, 0.0, 1.0], [800.0, 799.0, -800.0]])
    check_vs_torch(lambda L, a: L.log_softmax(a, 1), [x], np.arange(9.0).reshape(3, 3))


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("shape", [(4, 3), (2, 3, 5)])
def test_cross_entropy_first_second_order_match_torch(reduction, shape):
    x = RNG.standard_normal(shape)
    tshape = (shape[0],) + shape[2:]
    target = RNG.integers(0, 3, tshape)
    target.flat[0] = 1
    target.flat[-1] = 2
    weight = np.array([0.5, 2.0, 1.0])

    def f(L, a):
        mod = F if L is pyad else TF
        mk = pyad.Variable if L is pyad else torch.tensor
        return mod.cross_entropy(a, mk(target), weight=mk(weight), ignore_index=2,
                                 reduction=reduction)
    seed = np.array(1.5) if reduction != "none" else RNG.standard_normal(tshape)
    check_vs_torch(f, [x], seed)
    _ggc(f, [x], seed)


def test_cross_entropy_at_extreme_logits_matches_torch():
    x = np.array([[1e300, -1e300, 0.0], [800.0, 799.0, -800.0], [0.0, 0.0, 0.0]])
    target = np.array([1, 0, 2])

    def f(L, a):
        mod = F if L is pyad else TF
        mk = pyad.Variable if L is pyad else torch.tensor
        return mod.cross_entropy(a, mk(target), reduction="sum")
    check_vs_torch(f, [x], np.array(1.0))
