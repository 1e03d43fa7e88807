"""Complex numbers: torch's gradient convention on every op that accepts complex input.

A real loss L of a complex z gets ``z.grad = dL/d(re z) + i dL/d(im z)`` (the conjugate
Wirtinger derivative, times 2), so a holomorphic op passes ``grad * conj(f'(z))``. Each
op is checked against torch on the same inputs: values, the gradient of a real loss
(``.abs().sum()``), the gradient for a complex ``grad_outputs``, and second derivatives;
and with pyad's gradcheck / gradgradcheck on complex inputs (re and im as two reals, as
torch's gradcheck). Ops torch has no complex kernel for refuse complex input.
"""
import numpy as np
import pytest

import pyad
from pyad.autograd.gradcheck import GradcheckError, gradcheck, gradgradcheck

torch = pytest.importorskip("torch")

RTOL, ATOL = 1e-10, 1e-12


def _c(shape, seed, lo=0.2, hi=0.8):
    # Complex values away from the branch cuts (negative real axis, |re| > 1 on the real
    # axis) and from zero: re in [lo, hi], |im| in [lo, hi] with random signs.
    rng = np.random.default_rng(seed)
    re = rng.uniform(lo, hi, shape)
    im = rng.uniform(lo, hi, shape) * rng.choice([-1.0, 1.0], shape)
    return np.asarray(re + 1j * im)


def _r(shape, seed):
    return np.asarray(np.random.default_rng(seed).uniform(0.3, 1.3, shape))


def _to_np(v):
    return np.asarray(v.detach().numpy())


def _t_np(t):
    # torch's conj() is a lazy view: resolve it before numpy()
    return t.detach().resolve_conj().resolve_neg().numpy()


def _close(a, b):
    a, b = np.asarray(a), np.asarray(b)
    assert a.dtype == b.dtype, (a.dtype, b.dtype)
    assert a.shape == b.shape, (a.shape, b.shape)
    np.testing.assert_allclose(a, b, rtol=RTOL, atol=ATOL)


def _grads_close(gp, gt):
    assert len(gp) == len(gt)
    for a, b in zip(gp, gt):
        assert (a is None) == (b is None)
        if a is not None:
            _close(_to_np(a), _t_np(b))


def _real_loss(y, lib):
    # A real loss of an output of either kind: |y|^2-like terms keep it smooth
    if y.is_complex():
        return (y * y.conj()).real.sum() + y.abs().sum()
    return (y * y).sum()


def check_vs_torch(fn, arrays, second_order=True):
    """fn(lib, *xs) with lib the module (pyad or torch); arrays: inputs (all require
    grad)."""
    xs = [pyad.Variable(a.copy(), requires_grad=True) for a in arrays]
    ts = [torch.tensor(a.copy(), requires_grad=True) for a in arrays]
    yp, yt = fn(pyad, *xs), fn(torch, *ts)
    _close(_to_np(yp), _t_np(yt))
    # the gradient of a real loss (the issue's .abs().sum(), plus a smooth term)
    _grads_close(pyad.autograd.grad(yp.abs().sum(), xs, retain_graph=True),
                 torch.autograd.grad(yt.abs().sum(), ts, retain_graph=True))
    # the gradient for a given grad_outputs (complex for a complex output)
    rng = np.random.default_rng(7)
    go = rng.standard_normal(tuple(yt.shape))
    if yt.is_complex():
        go = go + 1j * rng.standard_normal(tuple(yt.shape))
    _grads_close(pyad.autograd.grad(yp, xs, pyad.Variable(go.copy()), retain_graph=True),
                 torch.autograd.grad(yt, ts, torch.tensor(go.copy()), retain_graph=True))
    if not second_order:
        return
    gp = pyad.autograd.grad(_real_loss(yp, pyad), xs, create_graph=True)
    gt = torch.autograd.grad(_real_loss(yt, torch), ts, create_graph=True)
    _grads_close(gp, gt)
    # second order: a real function of the first gradients
    lp = sum((_real_loss(g, pyad) for g in gp), pyad.tensor(0.0, dtype=pyad.float64))
    lt = sum(_real_loss(g, torch) for g in gt)
    _grads_close(pyad.autograd.grad(lp, xs, allow_unused=True),
                 torch.autograd.grad(lt, ts, allow_unused=True))


def check_gradcheck(fn, arrays, second_order=True):
    xs = tuple(pyad.Variable(a.copy(), requires_grad=True) for a in arrays)
    assert gradcheck(lambda *v: fn(pyad, *v), xs)
    assert gradcheck(lambda *v: fn(pyad, *v), xs, fast_mode=True)
    if second_order:
        assert gradgradcheck(lambda *v: fn(pyad, *v), xs)


# -- the issue's example ---------------------------------------------------------------

def test_issue_example_abs_of_square():
    z = pyad.Variable(np.array([1 + 2j, 3 - 1j]), requires_grad=True)
    (z * z).abs().sum().backward()
    t = torch.tensor(np.array([1 + 2j, 3 - 1j]), requires_grad=True)
    (t * t).abs().sum().backward()
    _close(_to_np(z.grad), t.grad.numpy())
    # dL/d(re) + i dL/d(im) of |z|^2 is 2z
    np.testing.assert_allclose(_to_np(z.grad), [2 + 4j, 6 - 2j], rtol=1e-12)


def test_convention_from_real_and_imaginary_parts():
    # L = re(z)^2 + 3 im(z): z.grad = 2 re(z) + 3i (independent of torch)
    z = pyad.Variable(np.array([0.5 - 1j, 2 + 0.25j]), requires_grad=True)
    (z.real * z.real + 3 * z.imag).sum().backward()
    np.testing.assert_allclose(_to_np(z.grad), [1 + 3j, 4 + 3j], rtol=1e-14)


# -- elementwise -------------------------------------------------------------------------

UNARY = ["exp", "log", "sin", "cos", "tan", "tanh", "sinh", "cosh", "sqrt", "reciprocal",
         "neg", "square", "rsqrt", "expm1", "log1p", "log2", "log10", "asin", "acos",
         "atan", "sigmoid", "abs", "conj", "angle"]


@pytest.mark.parametrize("name", UNARY)
def test_unary_vs_torch(name):
    check_vs_torch(lambda L, x: getattr(L, name)(x), [_c((3, 4), 1)])


@pytest.mark.parametrize("name", UNARY)
def test_unary_gradcheck(name):
    check_gradcheck(lambda L, x: getattr(L, name)(x), [_c((2, 3), 2)])


@pytest.mark.parametrize("name", ["exp", "sin", "sqrt", "reciprocal", "abs", "angle"])
@pytest.mark.parametrize("shape", [(), (0,), (2, 0, 3)])
def test_unary_zero_d_and_empty(name, shape):
    check_vs_torch(lambda L, x: getattr(L, name)(x), [_c(shape, 3)])


@pytest.mark.parametrize("name", ["exp", "log", "tanh", "abs", "sigmoid"])
def test_unary_non_contiguous(name):
    base = _c((4, 6), 4)
    check_vs_torch(lambda L, x: getattr(L, name)(x.transpose(0, 1)[::2]), [base])


def test_silu():
    # torch computes complex silu but refuses to differentiate it ("silu does not support
    # automatic differentiation for outputs with complex dtype"); pyad differentiates it
    # (holomorphic): checked against torch's x * sigmoid(x) and with gradcheck.
    check_vs_torch(lambda L, x: pyad.nn.functional.silu(x) if L is pyad
                   else x * torch.sigmoid(x), [_c((3, 4), 5)])
    z = _c((3, 4), 5)
    _close(_to_np(pyad.nn.functional.silu(pyad.Variable(z))),
           torch.nn.functional.silu(torch.tensor(z)).numpy())
    check_gradcheck(lambda L, x: pyad.nn.functional.silu(x), [_c((2, 3), 5)])


def test_real_imag_vs_torch():
    check_vs_torch(lambda L, x: x.real * 2 + x.imag * x.imag, [_c((3, 4), 6)])
    check_vs_torch(lambda L, x: L.real(x) - 3 * L.imag(x), [_c((3,), 7)])
    check_gradcheck(lambda L, x: L.real(x) * L.imag(x), [_c((2, 3), 8)])


def test_real_of_real_is_itself_and_imag_of_real_refused():
    x = pyad.Variable(np.array([1.0, 2.0]), requires_grad=True)
    assert pyad.real(x) is x and x.real is x
    assert pyad.conj(x) is x
    with pytest.raises(RuntimeError, match=r"^imag\(\): "):
        x.imag
    with pytest.raises(RuntimeError):
        torch.tensor([1.0, 2.0]).imag


def test_angle_values_and_zero():
    # torch: angle of a real number is pi (negative) or 0; the gradient at z = 0 is 0
    x = np.array([-2.0, 0.0, 3.0, np.nan])
    _close(_to_np(pyad.angle(pyad.Variable(x))), torch.angle(torch.tensor(x)).numpy())
    z = np.array([0j, 1 + 1j, -2 + 0j])
    check_vs_torch(lambda L, v: L.angle(v), [z], second_order=False)


BINARY = {
    "add": lambda L, a, b: L.add(a, b),
    "sub": lambda L, a, b: L.sub(a, b),
    "mul": lambda L, a, b: L.mul(a, b),
    "div": lambda L, a, b: L.div(a, b),
    "pow": lambda L, a, b: L.pow(a, b),
    "add_alpha": lambda L, a, b: L.add(a, b, alpha=2 - 1j),
    "lerp": lambda L, a, b: L.lerp(a, b, 0.3),
}


@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_vs_torch(name):
    check_vs_torch(BINARY[name], [_c((3, 4), 10), _c((3, 4), 11)])


@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_gradcheck(name):
    check_gradcheck(BINARY[name], [_c((2, 3), 12), _c((2, 3), 13)])


@pytest.mark.parametrize("name", ["add", "sub", "mul", "div", "pow"])
def test_binary_broadcast_vs_torch(name):
    check_vs_torch(BINARY[name], [_c((3, 1), 14), _c((4,), 15)])


@pytest.mark.parametrize("name", ["add", "sub", "mul", "div", "pow"])
@pytest.mark.parametrize("real_first", [True, False])
def test_binary_mixed_real_complex_vs_torch(name, real_first):
    # A real input's gradient is the real part (torch); broadcast over its shape.
    arrays = [_r((3, 1), 16), _c((3, 4), 17)]
    if not real_first:
        arrays = [_c((3, 4), 17), _r((4,), 16)]
    check_vs_torch(BINARY[name], arrays)


@pytest.mark.parametrize("expr", [
    lambda L, x: x * (2 - 1j),
    lambda L, x: (2 - 1j) / x,
    lambda L, x: x / (0.5 + 2j),
    lambda L, x: x ** 2,
    lambda L, x: x ** 3.5,
    lambda L, x: x ** (1 + 1j),
    lambda L, x: 2.0 ** x,
    lambda L, x: (1 - 0.5j) ** x,
    lambda L, x: x - 1j,
    lambda L, x: 1j - x,
    lambda L, x: x * x * x,
])
def test_python_scalar_operands(expr):
    check_vs_torch(expr, [_c((3, 4), 18)])
    check_gradcheck(expr, [_c((2, 2), 19)])


def test_real_variable_times_complex_scalar():
    check_vs_torch(lambda L, x: (x * (1 + 2j)).exp(), [_r((3, 4), 20)])
    check_gradcheck(lambda L, x: (x * (1 + 2j)).exp(), [_r((2, 3), 21)])


def test_real_to_complex_conversion_gradient_is_real_part():
    x = pyad.Variable(_r((3,), 22), requires_grad=True)
    t = torch.tensor(_r((3,), 22), requires_grad=True)
    y = x.to(pyad.Variable(np.zeros(1, complex)).dtype)
    (y * (1 - 2j)).abs().sum().backward()
    (t.to(torch.complex128) * (1 - 2j)).abs().sum().backward()
    _close(_to_np(x.grad), t.grad.numpy())


def test_where_and_masked_fill_vs_torch():
    mask = np.array([[True, False, True, False]] * 3)
    check_vs_torch(lambda L, a, b: L.where(
        pyad.Variable(mask) if L is pyad else torch.tensor(mask), a, b),
        [_c((3, 4), 23), _c((3, 4), 24)])
    check_vs_torch(lambda L, a: a.masked_fill(
        pyad.Variable(mask) if L is pyad else torch.tensor(mask), 2 - 1j) * a,
        [_c((3, 4), 25)])


# -- in-place --------------------------------------------------------------------------

@pytest.mark.parametrize("expr", [
    lambda L, x, w: (x * 1).mul_(w),
    lambda L, x, w: (x * 1).div_(w),
    lambda L, x, w: (x * 1).add_(w, alpha=2),
    lambda L, x, w: (x * 1).sub_(w),
    lambda L, x, w: (x * w).exp_(),
    lambda L, x, w: (x * w).sin_(),
    lambda L, x, w: (x + w).sqrt_(),
    lambda L, x, w: (x * w).pow_(2),
    lambda L, x, w: (x * 1).reciprocal_() * w,
])
def test_inplace_vs_torch(expr):
    check_vs_torch(expr, [_c((3, 4), 26), _c((3, 4), 27)])


# -- reductions ----------------------------------------------------------------------------

REDUCTIONS = {
    "sum": lambda L, x: x.sum(),
    "sum_dim": lambda L, x: x.sum(1),
    "mean": lambda L, x: x.mean(0),
    "prod": lambda L, x: x.prod(),
    "prod_dim": lambda L, x: x.prod(1),
    "cumsum": lambda L, x: x.cumsum(1),
    "cumprod": lambda L, x: x.cumprod(1),
    "var": lambda L, x: x.var(1),
    "var_all": lambda L, x: x.var(),
    "std": lambda L, x: x.std(0),
    "var_mean": lambda L, x: L.var_mean(x, 1)[0] + L.var_mean(x, 1)[1],
    "std_mean": lambda L, x: L.std_mean(x, 0, correction=0)[0] * L.std_mean(x, 0)[1],
    "norm": lambda L, x: L.norm(x),
    "norm_dim": lambda L, x: L.norm(x, dim=1),
    "norm_p1": lambda L, x: L.norm(x, p=1, dim=0),
    "norm_p3": lambda L, x: L.norm(x, p=3, dim=1),
    "norm_p1.5": lambda L, x: L.norm(x, p=1.5),
    "norm_pinf": lambda L, x: L.norm(x, p=float("inf"), dim=1),
    "logsumexp": lambda L, x: L.logsumexp(x, 1),
    "vector_norm": lambda L, x: L.linalg.vector_norm(x, 3, dim=0),
    "matrix_norm_fro": lambda L, x: L.linalg.matrix_norm(x),
    "matrix_norm_1": lambda L, x: L.linalg.matrix_norm(x, 1),
    "matrix_norm_inf": lambda L, x: L.linalg.matrix_norm(x, float("inf")),
    "trace": lambda L, x: L.trace(x),
}


@pytest.mark.parametrize("name", sorted(REDUCTIONS))
def test_reduction_vs_torch(name):
    check_vs_torch(REDUCTIONS[name], [_c((3, 4), 30)])


@pytest.mark.parametrize("name", sorted(REDUCTIONS))
def test_reduction_gradcheck(name):
    check_gradcheck(REDUCTIONS[name], [_c((2, 3), 31)])


def test_prod_with_a_zero_vs_torch():
    x = _c((3, 4), 32)
    x[1, 2] = 0
    x[2, 0] = x[2, 3] = 0
    check_vs_torch(lambda L, v: v.prod(1), [x])
    check_vs_torch(lambda L, v: v.cumprod(1), [x])


def test_norm_and_var_are_real():
    z = pyad.Variable(_c((3, 4), 33))
    for v in (z.var(), z.std(1), pyad.norm(z), pyad.norm(z, p=1), pyad.norm(z, p=0),
              pyad.linalg.vector_norm(z, 3)):
        assert v.dtype == np.float64
    assert pyad.Variable(_c((2,), 34).astype(np.complex64)).var().dtype == np.float32


# -- linear algebra ------------------------------------------------------------------------

LINALG = {
    "matmul": lambda L, a, b: a @ b.transpose(0, 1),
    "mm": lambda L, a, b: L.mm(a, b.t()),
    "bmm": lambda L, a, b: L.bmm(a.reshape(2, 3, 2), b.reshape(2, 2, 3)),
    "matmul_batched": lambda L, a, b: L.matmul(a.reshape(2, 3, 2), b[:2, :2]),
    "mv": lambda L, a, b: L.mv(a, b[0]),
    "dot": lambda L, a, b: L.dot(a[0], b[1]),
    "outer": lambda L, a, b: L.outer(a[0], b[1]),
    "einsum": lambda L, a, b: L.einsum("ij,kj->ik", a, b),
    "tensordot": lambda L, a, b: L.tensordot(a, b, ([1], [1])),
    "kron": lambda L, a, b: L.kron(a[:2, :2], b[:2, :2]),
    "cross": lambda L, a, b: L.cross(a[:, :3], b[:, :3], dim=1),
    "matrix_power": lambda L, a, b: L.matrix_power(a[:, :3] + b[:, :3], 3),
    "diag_tril": lambda L, a, b: L.tril(a[:, :3]) @ L.diag(b[0, :3]),
}


@pytest.mark.parametrize("name", sorted(LINALG))
def test_linalg_vs_torch(name):
    check_vs_torch(LINALG[name], [_c((3, 4), 40), _c((3, 4), 41)])


@pytest.mark.parametrize("name", sorted(LINALG))
def test_linalg_gradcheck(name):
    check_gradcheck(LINALG[name], [_c((3, 4), 42), _c((3, 4), 43)])


def test_matmul_real_by_complex_vs_torch():
    # matmul takes one dtype (torch's "expected m1 and m2 to have the same dtype"): the
    # real operand converted, whose gradient is the real part as well
    for lib in (pyad, torch):
        with pytest.raises(RuntimeError, match="same dtype"):
            lib.ones(3, 4, dtype=lib.float64) @ lib.ones(4, 2, dtype=lib.complex128)

    def f(L, a, b):
        return a.to(L.complex128) @ b.to(L.complex128)
    check_vs_torch(f, [_r((3, 4), 44), _c((4, 2), 45)])
    check_vs_torch(f, [_c((3, 4), 46), _r((4, 2), 47)])
    check_gradcheck(f, [_r((3, 4), 44), _c((4, 2), 45)])


# -- decompositions: torch's complex formulas ----------------------------------------------
#
# Each is checked against torch (values, the gradient of a real loss and of a complex
# grad_outputs, second order) and with gradcheck / gradgradcheck on complex float64
# inputs, unbatched and batched. eigh and svd are checked through gauge-invariant
# functions of their outputs (as torch's tests): eigenvalues, singular values,
# |V|^2-weighted eigenvalues, projectors v v^H, U diag(S) Vh, U Vh.

def _mh(L, a):
    return a.mH if L is torch else L.conj(a.transpose(-2, -1))


def _hermitian(L, a):
    return a + _mh(L, a)


def _posdef(L, a):
    n = a.shape[-1]
    eye = torch.eye(n, dtype=torch.complex128) if L is torch else pyad.Variable(np.eye(n) + 0j)
    return a @ _mh(L, a) + eye


DECOMPOSITIONS = {
    "inv": lambda L, a: L.linalg.inv(a),
    "det": lambda L, a: L.linalg.det(a),
    "slogdet_logabsdet": lambda L, a: L.linalg.slogdet(a)[1],
    "slogdet_sign": lambda L, a: L.linalg.slogdet(a)[0],
    "slogdet_both": lambda L, a: L.linalg.slogdet(a)[0] * L.linalg.slogdet(a)[1],
    "solve": lambda L, a: L.linalg.solve(a, a[..., :2] * 2 + 1),
    "solve_vector": lambda L, a: L.linalg.solve(a, a[..., 0] - 1j),
    "cholesky": lambda L, a: L.linalg.cholesky(_posdef(L, a)),
    "cholesky_upper": lambda L, a: L.linalg.cholesky(_posdef(L, a), upper=True),
    "qr": lambda L, a: (lambda q, r: q * 2 + r.sum(-1, keepdim=True))(*L.linalg.qr(a)),
    "qr_wide": lambda L, a: (lambda q, r: q.sum(-1, keepdim=True) + r)(*L.linalg.qr(a[..., :2, :])),
    "qr_tall": lambda L, a: (lambda q, r: q + r.sum())(*L.linalg.qr(a[..., :2])),
    "eigh_eigenvalues": lambda L, a: L.linalg.eigh(_hermitian(L, a))[0],
    "eigh_weighted": lambda L, a: (lambda w, v: (v * v.conj()).real * w.unsqueeze(-2))(
        *L.linalg.eigh(_hermitian(L, a))),
    "eigh_projector": lambda L, a: (lambda w, v: v[..., :1] @ _mh(L, v[..., :1]))(
        *L.linalg.eigh(_hermitian(L, a))),
    "svdvals": lambda L, a: L.linalg.svdvals(a),
    "svd_reconstruction": lambda L, a: (lambda u, s, vh: (u * s.unsqueeze(-2)) @ vh)(
        *L.linalg.svd(a, full_matrices=False)),
    "svd_u_vh": lambda L, a: (lambda u, s, vh: u @ vh)(*L.linalg.svd(a, full_matrices=False)),
    "svd_full_tall": lambda L, a: (lambda u, s, vh: u[..., :2] @ vh + s.sum())(
        *L.linalg.svd(a[..., :2], full_matrices=True)),
    "svd_wide_abs_u": lambda L, a: (lambda u, s, vh: u.abs() + s.unsqueeze(-2))(
        *L.linalg.svd(a[..., :2, :], full_matrices=False)),
}


def _square(shape, seed):
    return _c(shape, seed) + 2 * np.eye(shape[-1])


@pytest.mark.parametrize("shape", [(3, 3), (2, 3, 3)], ids=["single", "batched"])
@pytest.mark.parametrize("name", sorted(DECOMPOSITIONS))
def test_decomposition_vs_torch(name, shape):
    check_vs_torch(DECOMPOSITIONS[name], [_square(shape, 60)])


@pytest.mark.parametrize("shape", [(3, 3), (2, 3, 3)], ids=["single", "batched"])
@pytest.mark.parametrize("name", sorted(DECOMPOSITIONS))
def test_decomposition_gradcheck(name, shape):
    check_gradcheck(DECOMPOSITIONS[name], [_square(shape, 61)])


@pytest.mark.parametrize("name, loss", [
    ("svd", lambda L, a: L.linalg.svd(a)[0].sum().abs()),
    ("svd", lambda L, a: L.linalg.svd(a, full_matrices=False)[2].real.sum()),
    ("eigh", lambda L, a: L.linalg.eigh(_hermitian(L, a))[1].real.sum()),
])
def test_phase_dependent_losses_raise_like_torch(name, loss):
    a = _square((3, 3), 62)
    t = torch.tensor(a, requires_grad=True)
    with pytest.raises(RuntimeError, match="e\\^\\{i phi\\}.*ill-defined"):
        loss(torch, t).backward()
    x = pyad.Variable(a, requires_grad=True)
    with pytest.raises(RuntimeError, match="^%s\\(\\): .*e\\^\\{i phi\\}.*ill-defined" % name):
        loss(pyad, x).backward()


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_decomposition_values_in_both_complex_dtypes(dtype):
    a = _square((3, 3), 63).astype(dtype)
    x, t = pyad.Variable(a), torch.tensor(a)
    tol = dict(rtol=1e-5, atol=1e-5) if dtype == np.complex64 else dict(rtol=1e-10, atol=1e-12)
    for name in ("inv", "det", "slogdet_logabsdet", "slogdet_sign", "svdvals", "cholesky",
                 "eigh_eigenvalues"):
        y, ty = DECOMPOSITIONS[name](pyad, x), DECOMPOSITIONS[name](torch, t)
        assert y.dtype == _t_np(ty).dtype
        np.testing.assert_allclose(y.data, _t_np(ty), **tol)


def test_decompositions_refuse_integer_input_naming_the_op():
    # torch's error types: RuntimeError ("Expected a floating point or complex tensor"),
    # NotImplementedError for eigh (its kernel is dispatched on the dtype)
    for name in ("inv", "det", "slogdet", "cholesky", "qr", "svd", "svdvals"):
        spoken = "svd" if name == "svdvals" else name
        with pytest.raises(RuntimeError, match=r"^linalg\.%s\(\): Expected a floating point or "
                           r"complex tensor as input\. Got Long" % spoken):
            getattr(pyad.linalg, name)(pyad.Variable(np.eye(3, dtype=np.int64)))
    with pytest.raises(NotImplementedError, match=r"^linalg\.eigh\(\): .*Long"):
        pyad.linalg.eigh(pyad.Variable(np.eye(3, dtype=np.int64)))


# -- shape ops (linear with real coefficients: right by construction) ------------------------

SHAPE = {
    "transpose": lambda L, x: x.transpose(0, 1) * x.transpose(0, 1),
    "getitem": lambda L, x: x[1:, ::2] * x[:2, 1::2],
    "reshape": lambda L, x: x.reshape(4, 3).exp(),
    "cat": lambda L, x: L.cat([x, x * x], 0),
    "stack": lambda L, x: L.stack([x, x.exp()], 1),
    "expand": lambda L, x: x[:1].expand(3, 4) * x,
    "flip": lambda L, x: x.flip(0) * x,
    "roll": lambda L, x: x.roll(1, 1) * x,
    "gather": lambda L, x: L.gather(x, 1, (pyad if L is pyad else torch).tensor(
        np.array([[0, 2], [1, 1], [3, 0]]))) ** 2,
    "repeat": lambda L, x: x.repeat(2, 1) * 1j,
}


@pytest.mark.parametrize("name", sorted(SHAPE))
def test_shape_vs_torch(name):
    check_vs_torch(SHAPE[name], [_c((3, 4), 50)])


@pytest.mark.parametrize("name", ["transpose", "getitem", "cat", "expand"])
def test_shape_gradcheck(name):
    check_gradcheck(SHAPE[name], [_c((3, 4), 51)])


# -- refusals (torch has no complex kernel) --------------------------------------------------

_Z = _c((2, 3), 60)
_W = _c((2, 3), 61)


def _refused(lib):
    f = pyad.nn.functional if lib is pyad else torch.nn.functional
    return {
        "relu": lambda a, b: lib.relu(a), "maximum": lambda a, b: lib.maximum(a, b),
        "minimum": lambda a, b: lib.minimum(a, b), "clamp": lambda a, b: lib.clamp(a, 0, 1),
        "clamp_min": lambda a, b: lib.clamp_min(a, 0), "clamp_max": lambda a, b: lib.clamp_max(a, 0),
        "atan2": lambda a, b: lib.atan2(a, b), "hypot": lambda a, b: lib.hypot(a, b),
        "erf": lambda a, b: lib.erf(a), "floor": lambda a, b: lib.floor(a),
        "ceil": lambda a, b: lib.ceil(a), "round": lambda a, b: lib.round(a),
        "trunc": lambda a, b: lib.trunc(a), "frac": lambda a, b: lib.frac(a),
        "floor_divide": lambda a, b: lib.floor_divide(a, b),
        "remainder": lambda a, b: lib.remainder(a, b), "fmod": lambda a, b: lib.fmod(a, b),
        "lt": lambda a, b: lib.lt(a, b), "le": lambda a, b: lib.le(a, b),
        "gt": lambda a, b: lib.gt(a, b), "ge": lambda a, b: lib.ge(a, b),
        "sign": lambda a, b: lib.sign(a), "max": lambda a, b: lib.max(a),
        "max_dim": lambda a, b: lib.max(a, 1), "min": lambda a, b: lib.min(a),
        "amax": lambda a, b: lib.amax(a, 1), "amin": lambda a, b: lib.amin(a, 1),
        "argmax": lambda a, b: lib.argmax(a), "argmin": lambda a, b: lib.argmin(a),
        "sort": lambda a, b: lib.sort(a), "argsort": lambda a, b: lib.argsort(a),
        "topk": lambda a, b: lib.topk(a, 2), "kthvalue": lambda a, b: lib.kthvalue(a, 2),
        "median": lambda a, b: lib.median(a), "cummax": lambda a, b: lib.cummax(a, 1),
        "cummin": lambda a, b: lib.cummin(a, 1), "aminmax": lambda a, b: lib.aminmax(a),
        "nansum": lambda a, b: lib.nansum(a), "nanmean": lambda a, b: lib.nanmean(a),
        "unique": lambda a, b: lib.unique(a),
        "unique_consecutive": lambda a, b: lib.unique_consecutive(a),
        "unique_consecutive_dim": lambda a, b: lib.unique_consecutive(a, dim=0),
        "softmax": lambda a, b: lib.softmax(a, 1), "log_softmax": lambda a, b: lib.log_softmax(a, 1),
        "gelu": lambda a, b: f.gelu(a), "elu": lambda a, b: f.elu(a),
        "leaky_relu": lambda a, b: f.leaky_relu(a), "softplus": lambda a, b: f.softplus(a),
        "hardtanh": lambda a, b: f.hardtanh(a), "logsigmoid": lambda a, b: f.logsigmoid(a),
    }


@pytest.mark.parametrize("case", sorted(_refused(pyad)))
def test_refuses_complex_like_torch(case):
    with pytest.raises(RuntimeError):
        _refused(torch)[case](torch.tensor(_Z), torch.tensor(_W))
    name = case.split("_dim")[0]
    with pytest.raises(NotImplementedError, match=r"^%s\(\): " % name):
        _refused(pyad)[case](pyad.Variable(_Z, requires_grad=True), pyad.Variable(_W))


@pytest.mark.parametrize("case", ["maximum", "lt", "atan2", "floor_divide"])
def test_refuses_complex_other_operand(case):
    with pytest.raises(NotImplementedError, match=r"^%s\(\): " % case):
        _refused(pyad)[case](pyad.Variable(_Z.real), pyad.Variable(_W))


def test_comparison_operators_refuse_complex():
    z = pyad.Variable(_Z)
    with pytest.raises(NotImplementedError):
        z < 1
    with pytest.raises(NotImplementedError):
        z >= pyad.Variable(_W)
    assert bool((z == z).all()) and not bool((z != z).any())


# -- gradcheck on complex ----------------------------------------------------------------------

class _NoConj(pyad.autograd.Function):
    # exp with the derivative not conjugated: what pyad did before the fix
    @staticmethod
    def forward(ctx, x):
        y = x.exp()
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, g):
        (y,) = ctx.saved_tensors
        return g * y


class _Conj(_NoConj):
    @staticmethod
    def backward(ctx, g):
        (y,) = ctx.saved_tensors
        return g * y.conj()


@pytest.mark.parametrize("fast_mode", [False, True])
def test_gradcheck_catches_a_missing_conjugate(fast_mode):
    z = pyad.Variable(_c((2, 2), 70), requires_grad=True)
    assert gradcheck(_Conj.apply, (z,), fast_mode=fast_mode)
    with pytest.raises(GradcheckError, match="Jacobian mismatch"):
        gradcheck(_NoConj.apply, (z,), fast_mode=fast_mode)
    assert not gradcheck(_NoConj.apply, (z,), fast_mode=fast_mode, raise_exception=False)


def test_gradcheck_complex_input_real_output_and_mixed():
    z = pyad.Variable(_c((3,), 71), requires_grad=True)
    x = pyad.Variable(_r((3,), 72), requires_grad=True)
    assert gradcheck(lambda a, b: (a * b).abs(), (z, x))
    assert gradcheck(lambda a, b: (a * b, b * 2), (z, x))
    assert gradgradcheck(lambda a, b: (a * b).abs() + a.real * b, (z, x))
    # the message indexes the real and imaginary part of an element
    with pytest.raises(GradcheckError, match=r"input\[\d, [01]\]"):
        gradcheck(_NoConj.apply, (pyad.Variable(_c((2,), 73), requires_grad=True),))


def test_gradcheck_complex_0d():
    z = pyad.Variable(np.array(0.3 - 0.7j), requires_grad=True)
    assert gradcheck(lambda a: a.exp() * a, (z,))
    assert gradgradcheck(lambda a: a.exp() * a, (z,))


# -- convolution ---------------------------------------------------------------------------

def _F(L):
    return pyad.nn.functional if L is pyad else torch.nn.functional


CONV = {
    "conv2d": lambda L, x, w: _F(L).conv2d(x, w, padding=1, stride=(1, 2)),
    "conv2d_groups": lambda L, x, w: _F(L).conv2d(x, w.reshape(4, 1, 2, 2)[:2], groups=2),
    "conv1d": lambda L, x, w: _F(L).conv1d(x[:, :, 0], w[:, :, 0], dilation=2),
    "conv_transpose2d": lambda L, x, w: _F(L).conv_transpose2d(
        x, w.transpose(0, 1), stride=2),
}


@pytest.mark.parametrize("name", sorted(CONV))
def test_conv_vs_torch(name):
    check_vs_torch(CONV[name], [_c((1, 2, 5, 5), 80), _c((2, 2, 2, 2), 81)])


@pytest.mark.parametrize("name", sorted(CONV))
def test_conv_gradcheck(name):
    check_gradcheck(CONV[name], [_c((1, 2, 3, 3), 82), _c((2, 2, 2, 2), 83)],
                    second_order=name != "conv_transpose2d")


def test_conv_real_input_complex_weight_vs_torch():
    # both libraries want one dtype: the real input is converted, and its gradient is
    # the real part
    def f(L, x, w):
        return _F(L).conv2d(x.to(torch.complex128 if L is torch else np.complex128), w)
    check_vs_torch(f, [_r((1, 2, 4, 4), 84), _c((3, 2, 2, 2), 85)])


@pytest.mark.parametrize("name", ["max_pool2d", "avg_pool2d", "adaptive_avg_pool2d"])
def test_pooling_refuses_complex_like_torch(name):
    z = _c((1, 2, 4, 4), 86)
    with pytest.raises(RuntimeError):
        getattr(torch.nn.functional, name)(torch.tensor(z), 2)
    with pytest.raises(NotImplementedError, match=r"^%s\(\): " % name):
        getattr(pyad.nn.functional, name)(pyad.Variable(z), 2)


@pytest.mark.parametrize("output_size", [1, (1, 1)])
@pytest.mark.parametrize("shape", [(1, 2, 4, 5), (2, 3, 3)], ids=["batched", "unbatched"])
def test_adaptive_avg_pool2d_to_one_computes_complex_input_as_torch(output_size, shape):
    # torch computes a complex adaptive_avg_pool2d only as a global average (output 1)
    def f(L, z):
        return _F(L).adaptive_avg_pool2d(z, output_size)
    check_vs_torch(f, [_c(shape, 87)])
    check_gradcheck(f, [_c(shape, 88)])


# -- roots of the backward pass ------------------------------------------------------------

def test_complex_output_needs_an_explicit_gradient_like_torch():
    z = _c((2,), 90)
    with pytest.raises(RuntimeError, match="real scalar outputs"):
        torch.tensor(z, requires_grad=True).sum().backward()
    with pytest.raises(RuntimeError, match="real scalar outputs"):
        pyad.Variable(z, requires_grad=True).sum().backward()
    with pytest.raises(RuntimeError, match="real scalar outputs"):
        v = pyad.Variable(z, requires_grad=True)
        pyad.autograd.grad(v.sum(), v)


def test_grad_output_must_match_complexness_like_torch():
    z = _c((2,), 91)
    t = torch.tensor(z, requires_grad=True)
    with pytest.raises(RuntimeError, match="Mismatch in dtype"):
        torch.autograd.grad(t.exp(), t, torch.ones(2, dtype=torch.float64))
    v = pyad.Variable(z, requires_grad=True)
    with pytest.raises(RuntimeError, match="Mismatch in dtype"):
        pyad.autograd.grad(v.exp(), v, pyad.Variable(np.ones(2)))
    with pytest.raises(RuntimeError, match="Mismatch in dtype"):
        v.abs().backward(pyad.Variable(np.ones(2) + 0j))
    # complex64 for a complex128 output is converted, as torch
    g = pyad.autograd.grad(v.exp(), v, pyad.Variable(np.ones(2, np.complex64)))[0]
    gt = torch.autograd.grad(t.exp(), t, torch.ones(2, dtype=torch.complex64))[0]
    _close(_to_np(g), gt.numpy())


def test_real_and_imag_of_a_0d_complex_variable_stay_0d_like_torch():
    z = pyad.Variable(np.array(1.5 - 2j), requires_grad=True)
    t = torch.tensor(np.array(1.5 - 2j), requires_grad=True)
    for part in ("real", "imag"):
        ours, theirs = getattr(pyad, part)(z), getattr(torch, part)(t)
        assert ours.shape == tuple(theirs.shape) == ()
        assert ours.item() == theirs.item()
    check_vs_torch(lambda L, v: L.real(v) * 2 + L.imag(v) * 3, [np.array(0.5 + 0.25j)])


# -- sgn, vdot, view_as_real, view_as_complex ------------------------------------------------

UTILITIES = {
    "sgn": lambda L, x: L.sgn(x),
    "sgn_method": lambda L, x: x.sgn() * x,
    "vdot": lambda L, x: L.vdot(x.reshape(-1), (x * x).reshape(-1)),
    "vdot_method": lambda L, x: x[0].vdot(x[1] + 1j),
    "view_as_real": lambda L, x: L.view_as_real(x) * L.view_as_real(x),
    "view_as_real_transposed": lambda L, x: L.view_as_real(x.t()).sum(-1),
    "view_as_real_then_complex": lambda L, x: L.view_as_complex(L.view_as_real(x) * 2) * x,
}


@pytest.mark.parametrize("name", sorted(UTILITIES))
def test_complex_utilities_vs_torch(name):
    check_vs_torch(UTILITIES[name], [_c((2, 3), 70)])


@pytest.mark.parametrize("name", sorted(UTILITIES))
def test_complex_utilities_gradcheck(name):
    check_gradcheck(UTILITIES[name], [_c((2, 3), 71)])


def test_view_as_complex_vs_torch_and_gradcheck():
    fn = lambda L, r: L.view_as_complex(r) * L.view_as_complex(r)
    check_vs_torch(fn, [_r((3, 2), 72)])
    check_gradcheck(fn, [_r((2, 3, 2), 73)])


def test_sgn_at_zero_and_of_real_input_like_torch():
    check_vs_torch(lambda L, x: L.sgn(x) * 2, [np.array([0j, 1 - 1j, 0j])], second_order=False)
    for a in (np.array([-2.0, 0.0, 3.0]), np.array(-1.5), np.zeros(0)):
        ours, theirs = pyad.sgn(pyad.Variable(a)), torch.sgn(torch.tensor(a))
        np.testing.assert_array_equal(ours.data, theirs.numpy())
        assert ours.shape == tuple(theirs.shape)
    x = pyad.Variable(np.array([-2.0, 3.0]), requires_grad=True)
    g, = pyad.autograd.grad(pyad.sgn(x).sum(), x)
    np.testing.assert_array_equal(g.data, [0.0, 0.0])        # torch: zero


@pytest.mark.parametrize("shape", [(), (0,), (2, 0, 3), (4,)])
def test_view_as_real_shapes_like_torch(shape):
    a = _c(shape, 74) if np.prod(shape) else np.zeros(shape, complex)
    ours, theirs = pyad.view_as_real(pyad.Variable(a)), torch.view_as_real(torch.tensor(a))
    assert ours.shape == tuple(theirs.shape) and ours.dtype == np.float64
    np.testing.assert_array_equal(ours.data, theirs.numpy())
    back = pyad.view_as_complex(ours)
    assert back.shape == shape and back.dtype == np.complex128
    np.testing.assert_array_equal(back.data, a)
    assert pyad.view_as_real(pyad.Variable(a.astype(np.complex64))).dtype == np.float32


def test_views_share_memory_and_version_counter_like_torch():
    z = pyad.Variable(np.array([1 + 2j, 3 - 1j]))
    r = pyad.view_as_real(z)
    assert r.is_view and r._base is z
    r[0, 1] = 5.0                                  # writes the imaginary part of z[0]
    assert z.tolist() == [1 + 5j, 3 - 1j] and z._version == r._version == 1
    c = pyad.view_as_complex(r)
    c.mul_(1j)
    np.testing.assert_array_equal(z.data, [-5 + 1j, 1 + 3j])
    np.testing.assert_array_equal(r.data, [[-5.0, 1.0], [1.0, 3.0]])
    # non-contiguous complex input: a view all the same (torch doubles the strides)
    base = pyad.Variable(_c((3, 4), 75))
    rt = pyad.view_as_real(base.t())
    rt[1, 2, 0] = 9.0
    assert base.data[2, 1].real == 9.0


def test_in_place_through_view_as_real_gradients_like_torch():
    def run(L):
        leaf = (torch.tensor(_c((3,), 76), requires_grad=True) if L is torch
                else pyad.Variable(_c((3,), 76), requires_grad=True))
        w = (torch.tensor(_r((3, 2), 77), requires_grad=True) if L is torch
             else pyad.Variable(_r((3, 2), 77), requires_grad=True))
        x = leaf * 1
        r = L.view_as_real(x)
        r.mul_(2)
        r.add_(w)
        y = (x * x).abs().sum()
        return y, L.autograd.grad(y, (leaf, w))
    (yp, gp), (yt, gt) = run(pyad), run(torch)
    _close(_to_np(yp), _t_np(yt))
    _grads_close(gp, gt)


@pytest.mark.parametrize("call", [
    lambda L: L.view_as_real(L.ones(2)),
    lambda L: L.view_as_complex(L.ones(3)),
    lambda L: L.view_as_complex(L.ones(4, 2).t()),
    lambda L: L.view_as_complex(L.ones(())),
    lambda L: L.view_as_complex(L.ones(2, dtype=L.int64)),
    lambda L: L.vdot(L.ones(2, dtype=L.float64), L.ones(2, dtype=L.float64) * 1j),
    lambda L: L.vdot(L.ones(2, 2), L.ones(2)),
    lambda L: L.vdot(L.ones(2), L.ones(3)),
])
def test_complex_utility_errors_like_torch(call):
    with pytest.raises(RuntimeError):
        call(torch)
    with pytest.raises(RuntimeError, match=r"^(view_as_real|view_as_complex|vdot)\(\): "):
        call(pyad)
