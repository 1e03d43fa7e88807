"""Ops at ties, NaN, infinities and kinks, against values derived by hand and, when
torch is installed, against torch: max/min with dim return the first index of a tie
(and send it the gradient), kthvalue breaks ties as torch, activations and losses at
NaN and infinities, atan2 at the origin, slogdet, and ops with no derivative
(floor_divide, unique, rounding).
"""
import math

import numpy as np
import pytest

import pyad
import pyad.nn.functional as F
from pyad import Variable
from _torch_compare import torch, as_np, needs_torch, torch_or_skip


# -- max / min with dim: the first index of a tie --------------------------------------

TIES = {
    "small_ints": np.random.default_rng(0).integers(0, 3, (4, 5, 6)).astype(np.float64),
    "all_equal": np.full((3, 4, 2), 7.0),
    "two_values": np.array([[[1.0, 2.0], [2.0, 2.0], [2.0, 1.0]],
                            [[2.0, 1.0], [2.0, 2.0], [1.0, 2.0]]]),
    "signed_zeros": np.array([[[-0.0, 0.0], [0.0, -0.0]], [[0.0, 0.0], [-0.0, -0.0]]]),
    "long_rows": np.random.default_rng(1).integers(0, 2, (3, 2, 257)).astype(np.float64),
}


# pyad name: (numpy index function, numpy value function); min, and argmax/argmin
# with dim, are covered as soon as pyad has them
EXTREMES = {name: fns for name, fns in (("max", (np.argmax, np.max)),
                                        ("min", (np.argmin, np.min)))
            if hasattr(pyad, name)}


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("keepdim", [False, True])
@pytest.mark.parametrize("dim", [0, 1, 2, -1])
@pytest.mark.parametrize("data", list(TIES), ids=list(TIES))
@pytest.mark.parametrize("name", list(EXTREMES))
def test_max_min_with_dim_return_the_first_index_of_a_tie(name, data, dim, keepdim, dtype):
    torch = torch_or_skip()
    a = TIES[data].astype(dtype)
    arg, val = EXTREMES[name]
    values, indices = getattr(pyad, name)(Variable(a), dim, keepdim=keepdim)
    t_values, t_indices = getattr(torch, name)(torch.from_numpy(a), dim, keepdim=keepdim)
    np.testing.assert_array_equal(indices.data, arg(a, axis=dim, keepdims=keepdim))
    np.testing.assert_array_equal(indices.data, t_indices.numpy())
    np.testing.assert_array_equal(values.data, val(a, axis=dim, keepdims=keepdim))
    np.testing.assert_array_equal(values.data, t_values.numpy())
    # the method form too
    _, m_indices = getattr(Variable(a), name)(dim, keepdim)
    np.testing.assert_array_equal(m_indices.data, indices.data)
    if hasattr(pyad, "arg" + name):
        arg_indices = getattr(pyad, "arg" + name)(Variable(a), dim, keepdim=keepdim)
        np.testing.assert_array_equal(arg_indices.data, indices.data)


@pytest.mark.parametrize("dim", [0, 1, 2])
@pytest.mark.parametrize("data", list(TIES), ids=list(TIES))
@pytest.mark.parametrize("name", list(EXTREMES))
def test_max_min_with_dim_tie_gradient_goes_to_the_first_index_as_in_torch(name, data, dim):
    torch = torch_or_skip()
    a = TIES[data]
    w = np.random.default_rng(2).standard_normal(np.delete(a.shape, dim))
    x = Variable(a.copy(), requires_grad=True)
    t = torch.tensor(a, requires_grad=True)
    (getattr(pyad, name)(x, dim).values * Variable(w)).sum().backward()
    (getattr(torch, name)(t, dim).values * torch.from_numpy(w)).sum().backward()
    np.testing.assert_array_equal(x.grad.data, t.grad.numpy())
    # independently: w lands at the first extreme of each reduced line
    expected = np.zeros_like(a)
    first = EXTREMES[name][0](a, axis=dim)
    np.put_along_axis(expected, np.expand_dims(first, dim), np.expand_dims(w, dim), axis=dim)
    np.testing.assert_array_equal(x.grad.data, expected)


# -- values and gradients, checked by hand and against torch ---------------------------

INF, NAN = math.inf, math.nan


def _value_and_grads(lib, fn, *arrays, reduce=True):
    """fn(*leaves) and the gradients of its sum (None for an unused leaf)."""
    if lib is pyad:
        leaves = [pyad.Variable(np.array(a, dtype=np.float64), requires_grad=True)
                  for a in arrays]
        out = fn(*leaves)
        grads = pyad.autograd.grad(out.sum() if reduce else out, leaves, allow_unused=True)
    else:
        leaves = [torch.tensor(a, dtype=torch.float64, requires_grad=True) for a in arrays]
        out = fn(*leaves)
        grads = torch.autograd.grad(out.sum() if reduce else out, leaves, allow_unused=True)
    return as_np(out), [as_np(g) for g in grads]


def _assert_same(a, b, rtol=1e-12):
    if a is None or b is None:
        assert a is None and b is None
        return
    a, b = np.asarray(a), np.asarray(b)
    assert a.shape == b.shape
    np.testing.assert_allclose(a, b, rtol=rtol, atol=1e-15, equal_nan=True)


def _check(pyad_fn, torch_fn, arrays, value, grads):
    got_value, got_grads = _value_and_grads(pyad, pyad_fn, *arrays)
    np.testing.assert_allclose(got_value, value, rtol=1e-12, equal_nan=True)
    for g, e in zip(got_grads, grads):
        np.testing.assert_allclose(g, e, rtol=1e-12, equal_nan=True)
    if torch is not None:
        t_value, t_grads = _value_and_grads(torch, torch_fn, *arrays)
        _assert_same(got_value, t_value)
        for g, t in zip(got_grads, t_grads):
            _assert_same(g, t)


# -- edge points -----------------------------------------------------------------------

def test_atan2_gradient_at_the_origin_is_zero_like_torch():
    # d atan2(a, b) = (b da - a db) / (a^2 + b^2): torch gives 0 where a = b = 0.
    a, b = [0.0, 0.0, -0.0, 1.0], [0.0, -0.0, 0.0, 1.0]
    _check(lambda p, q: pyad.atan2(p, q), lambda p, q: torch.atan2(p, q), (a, b),
           [0.0, math.pi, -0.0, math.pi / 4], [[0, 0, 0, 0.5], [0, 0, 0, -0.5]])
    for p in (1.0, -1.0):               # on the axes, away from the origin: unchanged
        _check(lambda u, v: pyad.atan2(u, v), lambda u, v: torch.atan2(u, v),
               ([0.0, p], [p, 0.0]), [0.0 if p > 0 else math.pi, math.pi / 2 * p],
               [[1 / p, 0], [0, -1 / p]])


def test_atan2_gradient_elsewhere_still_checks():
    a = pyad.Variable(np.array([0.3, -1.2, 2.0]), requires_grad=True)
    b = pyad.Variable(np.array([1.1, 0.4, -0.7]), requires_grad=True)
    assert pyad.autograd.gradcheck(pyad.atan2, (a, b))
    assert pyad.autograd.gradgradcheck(pyad.atan2, (a, b))


@pytest.mark.parametrize("name", ["smooth_l1_loss", "huber_loss"])
@pytest.mark.parametrize("reduction, scale", [("mean", 0.25), ("sum", 1.0), ("none", 1.0)])
def test_smooth_l1_and_huber_at_infinity_have_torch_gradients(name, reduction, scale):
    # |d| = inf is on the linear side: the gradient is sign(d) (/ N for the mean).
    x, y = [INF, -INF, 1.0, 0.0], [0.0, 0.0, 0.0, INF]
    kw = {"reduction": reduction}
    value = [INF, INF, 0.5, INF]
    value = value if reduction == "none" else INF
    g = np.array([1.0, -1.0, 1.0, -1.0]) * scale
    _check(lambda a, b: getattr(F, name)(a, b, **kw),
           lambda a, b: getattr(torch.nn.functional, name)(a, b, **kw), (x, y),
           value, [g, -g])


@pytest.mark.parametrize("name", ["smooth_l1_loss", "huber_loss"])
def test_smooth_l1_and_huber_still_check(name):
    a = pyad.Variable(np.array([0.2, -2.0, 1.5, -0.4]), requires_grad=True)
    b = pyad.Variable(np.array([0.0, 0.5, -1.0, 0.3]), requires_grad=True)
    assert pyad.autograd.gradcheck(lambda p, q: getattr(F, name)(p, q), (a, b))
    assert pyad.autograd.gradgradcheck(lambda p, q: getattr(F, name)(p, q), (a, b))


_X = [NAN, -INF, -3.0, -1.0, 0.0, 1.0, 3.0, INF]


# name -> (function, expected values, expected gradient) on _X, worked out from torch's
# kernels: relu/threshold/hardtanh/elu/shrink pass the gradient at NaN (their tests are
# "x <= edge" comparisons, false for NaN).
_SELU_A, _SELU_S = 1.6732632423543772, 1.0507009873554805


_ACTIVATIONS = {
    "relu": (F.relu, [NAN, 0, 0, 0, 0, 1, 3, INF], [1, 0, 0, 0, 0, 1, 1, 1]),
    "relu6": (F.relu6, [NAN, 0, 0, 0, 0, 1, 3, 6], [1, 0, 0, 0, 0, 1, 1, 0]),
    "hardtanh": (F.hardtanh, [NAN, -1, -1, -1, 0, 1, 1, 1], [1, 0, 0, 0, 1, 0, 0, 0]),
    "elu": (F.elu, [NAN, -1, math.expm1(-3), math.expm1(-1), 0, 1, 3, INF],
            [1, 0, math.exp(-3), math.exp(-1), 1, 1, 1, 1]),
    "selu": (F.selu, [NAN, -_SELU_S * _SELU_A, _SELU_S * _SELU_A * math.expm1(-3),
                      _SELU_S * _SELU_A * math.expm1(-1), 0, _SELU_S, 3 * _SELU_S, INF],
             [_SELU_S, 0, _SELU_S * _SELU_A * math.exp(-3), _SELU_S * _SELU_A * math.exp(-1),
              _SELU_S * _SELU_A, _SELU_S, _SELU_S, _SELU_S]),
    "celu": (F.celu, [NAN, -1, math.expm1(-3), math.expm1(-1), 0, 1, 3, INF],
             [1, 0, math.exp(-3), math.exp(-1), 1, 1, 1, 1]),
    "hardsigmoid": (F.hardsigmoid, [NAN, 0, 0, 1 / 3, 0.5, 2 / 3, 1, 1],
                    [0, 0, 0, 1 / 6, 1 / 6, 1 / 6, 0, 0]),
    "hardswish": (F.hardswish, [NAN, NAN, 0, -1 / 3, 0, 2 / 3, 3, INF],
                  [1, 0, 0, 1 / 6, 0.5, 5 / 6, 1, 1]),
    "threshold": (lambda t: F.threshold(t, 0.5, -2.0), [NAN, -2, -2, -2, -2, 1, 3, INF],
                  [1, 0, 0, 0, 0, 1, 1, 1]),
    "softshrink": (F.softshrink, [NAN, -INF, -2.5, -0.5, 0, 0.5, 2.5, INF],
                   [1, 1, 1, 1, 0, 1, 1, 1]),
    "hardshrink": (F.hardshrink, [NAN, -INF, -3, -1, 0, 1, 3, INF], [1, 1, 1, 1, 0, 1, 1, 1]),
}


def _check_elementwise(fn, tfn, x, value, grad, grad_rtol=1e-12):
    # torch is compared one element at a time: its vectorised CPU kernels (8 or more
    # float64 values with AVX-512) give other results at NaN than its scalar kernels
    # for hardtanh, elu, selu, celu, hardswish, softshrink and hardshrink (e.g. elu's
    # gradient NaN instead of 1); pyad follows the scalar kernels (torch's formulas,
    # also what it gives on small inputs) whatever the size.
    got_value, (got_grad,) = _value_and_grads(pyad, fn, x)
    np.testing.assert_allclose(got_value, value, rtol=1e-12, equal_nan=True)
    np.testing.assert_allclose(got_grad, grad, rtol=1e-12, equal_nan=True)
    if torch is not None:
        for i, xi in enumerate(x):
            t_value, (t_grad,) = _value_and_grads(torch, tfn, [xi])
            _assert_same(got_value[i:i + 1], t_value)
            _assert_same(got_grad[i:i + 1], t_grad, grad_rtol)


@pytest.mark.parametrize("name", sorted(_ACTIVATIONS))
def test_activations_at_nan_and_infinities_like_torch(name):
    fn, value, grad = _ACTIVATIONS[name]
    tfn = {"threshold": lambda t: torch.nn.functional.threshold(t, 0.5, -2.0)}.get(
        name, getattr(torch.nn.functional, name) if torch is not None else None)
    # torch's hardsigmoid backward multiplies by 1/6 rounded to float32 (0.16666667163...)
    # even in float64; pyad's exact 1/6 is checked against the hand-derived values above
    _check_elementwise(fn, tfn, _X, value, grad, 1e-7 if name == "hardsigmoid" else 1e-12)


def test_relu_op_and_method_at_nan_like_torch():
    _check_elementwise(pyad.relu, torch.relu if torch is not None else None, _X,
                       [NAN, 0, 0, 0, 0, 1, 3, INF], [1, 0, 0, 0, 0, 1, 1, 1])
    _check_elementwise(lambda t: t.relu(), lambda t: t.relu(), _X,
                       [NAN, 0, 0, 0, 0, 1, 3, INF], [1, 0, 0, 0, 0, 1, 1, 1])


@pytest.mark.parametrize("name", ["relu", "hardtanh", "elu", "hardswish", "hardsigmoid",
                                  "softshrink", "hardshrink", "celu"])
def test_activations_still_check_away_from_kinks(name):
    x = pyad.Variable(np.array([-2.3, -0.7, 0.2, 0.9, 2.4]), requires_grad=True)
    fn = _ACTIVATIONS[name][0]
    assert pyad.autograd.gradcheck(fn, (x,))
    assert pyad.autograd.gradgradcheck(fn, (x,))


def test_celu_negative_alpha_at_nan_like_torch():
    _check_elementwise(lambda t: F.celu(t, alpha=-2.0),
                       lambda t: torch.nn.functional.celu(t, alpha=-2.0), [NAN, -1.0, 1.0],
                       [NAN, -2 * math.expm1(0.5), 1.0], [1, math.exp(0.5), 1])


@pytest.mark.parametrize("row, value", [
    ([1.0, INF, 3.0], [NAN, NAN, NAN]),           # torch: the whole slice is NaN
    ([INF, INF, 3.0], [NAN, NAN, NAN]),
    ([1.0, -INF, 3.0], [1 - 3 - math.log1p(math.exp(-2)), -INF, -math.log1p(math.exp(-2))]),
])
def test_log_softmax_with_infinities_like_torch(row, value):
    got, (grad,) = _value_and_grads(pyad, lambda t: pyad.log_softmax(t, 0), row)
    np.testing.assert_allclose(got, value, rtol=1e-12, equal_nan=True)
    if torch is not None:
        t_value, (t_grad,) = _value_and_grads(torch, lambda t: torch.log_softmax(t, 0), row)
        _assert_same(got, t_value)
        _assert_same(grad, t_grad)
    # only the slice holding +inf is NaN
    two = pyad.log_softmax(pyad.Variable(np.array([row, [0.0, 0.0, 0.0]])), 1)
    np.testing.assert_allclose(two.data[1], np.log(np.full(3, 1 / 3)), rtol=1e-12)


def test_kthvalue_breaks_ties_as_torch():
    # torch's CPU kthvalue runs a median-of-three quickselect: its index among equal
    # values is not the first one. Hand-traced on [3, 1, 3, 1]: k=3 -> 2, k=4 -> 0.
    x = pyad.Variable(np.array([3.0, 1.0, 3.0, 1.0]))
    assert [int(pyad.kthvalue(x, k).indices.item()) for k in (1, 2, 3, 4)] == [1, 3, 2, 0]


@needs_torch
@pytest.mark.parametrize("seed", range(6))
def test_kthvalue_ties_and_nans_indices_and_gradients_match_torch(seed):
    rng = np.random.default_rng(seed)
    shape = [(7,), (4, 9), (3, 5, 6), (2, 17)][seed % 4]
    data = rng.integers(0, 3, size=shape).astype(np.float64)
    if seed % 2:
        data[rng.random(shape) < 0.2] = NAN
    dim = int(rng.integers(0, len(shape)))
    for k in range(1, shape[dim] + 1):
        for keepdim in (False, True):
            p = pyad.kthvalue(pyad.Variable(data), k, dim, keepdim)
            t = torch.kthvalue(torch.from_numpy(data), k, dim, keepdim)
            np.testing.assert_array_equal(p.values.data, t.values.numpy())
            np.testing.assert_array_equal(p.indices.data, t.indices.numpy())
    x = pyad.Variable(data, requires_grad=True)
    tx = torch.from_numpy(data).requires_grad_(True)
    pyad.kthvalue(x, 2, dim).values.sum().backward()
    torch.kthvalue(tx, 2, dim).values.sum().backward()
    np.testing.assert_array_equal(x.grad.data, tx.grad.numpy())


# -- slogdet ---------------------------------------------------------------------------

def test_slogdet_gradient_does_not_depend_on_the_sign_cotangent():
    a = np.array([[2.0, 1.0, 0.5], [0.3, 3.0, 1.0], [1.0, 0.2, -1.5]])
    results = []
    for v_sign in (0.0, 1.0, 7.0):
        x = pyad.Variable(a, requires_grad=True)
        vs = pyad.Variable(np.array(v_sign), requires_grad=True)
        vl = pyad.Variable(np.array(1.0), requires_grad=True)
        _, g = pyad.autograd.functional.vjp(lambda m: tuple(pyad.linalg.slogdet(m)), x,
                                            (vs, vl), create_graph=True)
        d_sign, d_log = pyad.autograd.grad(g.sum(), (vs, vl), allow_unused=True)
        assert d_sign is None or not np.any(d_sign.data)       # torch: 0
        results.append(g.data)
    np.testing.assert_allclose(results[0], np.linalg.inv(a).T, rtol=1e-13)
    for r in results[1:]:
        np.testing.assert_array_equal(r, results[0])


# -- ops with no derivative ------------------------------------------------------------

@pytest.mark.parametrize("form", ["function", "operator", "scalar", "reflected"])
def test_floor_divide_requires_grad_and_its_backward_raises_like_torch(form):
    for lib in [pyad] + ([torch] if torch is not None else []):
        if lib is pyad:
            x = pyad.Variable(np.array([5.0, -5.0, 7.5]), requires_grad=True)
            y = pyad.Variable(np.array([2.0, 2.0, -2.0]), requires_grad=True)
        else:
            x = torch.tensor([5.0, -5.0, 7.5], dtype=torch.float64, requires_grad=True)
            y = torch.tensor([2.0, 2.0, -2.0], dtype=torch.float64, requires_grad=True)
        q = {"function": lambda: lib.floor_divide(x, y), "operator": lambda: x // y,
             "scalar": lambda: x // 2, "reflected": lambda: 7 // x}[form]()
        assert q.requires_grad
        expected = {"function": [2.0, -3.0, -4.0], "operator": [2.0, -3.0, -4.0],
                    "scalar": [2.0, -3.0, 3.0], "reflected": [1.0, -2.0, 0.0]}[form]
        np.testing.assert_array_equal(as_np(q), expected)
        loss = (q * x).sum() + (x * x).sum()      # mixed with differentiable terms
        with pytest.raises(RuntimeError, match="derivative for aten::floor_divide is not "
                                               "implemented"):
            loss.backward()


def test_floor_divide_without_grad_records_nothing():
    x = pyad.Variable(np.array([5.0, -5.0]))
    assert not (x // 2).requires_grad
    with pyad.no_grad():
        assert not (pyad.Variable(np.array([5.0]), requires_grad=True) // 2).requires_grad
    i = pyad.Variable(np.array([5, -5]))
    assert (i // 2).tolist() == [2, -3] and not (i // 2).requires_grad


@pytest.mark.parametrize("kwargs, name", [({}, "_unique2"), ({"dim": 0}, "unique_dim"),
                                          ({"return_inverse": True}, "_unique2")])
def test_unique_values_require_grad_and_backward_raises_like_torch(kwargs, name):
    for lib in [pyad] + ([torch] if torch is not None else []):
        if lib is pyad:
            x = pyad.Variable(np.array([[1.0, 2.0], [1.0, 2.0]]), requires_grad=True)
        else:
            x = torch.tensor([[1.0, 2.0], [1.0, 2.0]], dtype=torch.float64,
                             requires_grad=True)
        out = lib.unique(x, **kwargs)
        values = out[0] if isinstance(out, tuple) else out
        assert values.requires_grad
        if isinstance(out, tuple):
            assert not out[1].requires_grad            # the integer inverse
        with pytest.raises(NotImplementedError,
                           match="the derivative for '%s' is not implemented." % name):
            values.sum().backward()


def test_rounding_ops_keep_zero_gradients_like_torch():
    # torch gives these zero gradients (not errors); integer outputs need no grad.
    x = pyad.Variable(np.array([1.5, -2.5, 3.0]), requires_grad=True)
    for op in (pyad.sign, pyad.round, pyad.floor, pyad.ceil, pyad.trunc):
        g, = pyad.autograd.grad(op(x).sum(), x)
        np.testing.assert_array_equal(g.data, np.zeros(3))
    for out in (pyad.argmax(x), pyad.argsort(x), x > 0):
        assert not out.requires_grad


# -- huge offsets and section counts (issue 14, item 3 of the finishing brief) -------------

_BIG_OFFSETS = [2 ** 62, -2 ** 62, 2 ** 63 - 1, -2 ** 63, 3, -3, 4, -4]


def _offset_ops(lib):
    return {
        "diagonal": lambda x, k: lib.diagonal(x, k),
        "diagonal_dims": lambda x, k: lib.diagonal(x, k, 1, 0),
        "method_diagonal": lambda x, k: x.diagonal(k),
        "diag": lambda x, k: lib.diag(x, k),
        "tril": lambda x, k: lib.tril(x, k),
        "triu": lambda x, k: lib.triu(x, k),
    }


@pytest.mark.parametrize("offset", _BIG_OFFSETS)
@pytest.mark.parametrize("name", sorted(_offset_ops(pyad)))
def test_huge_diagonal_offsets_match_torch(name, offset):
    # torch: any int64 offset is fine (an empty diagonal, or a whole / empty triangle);
    # pyad raised OverflowError (NumPy's C int) and wrapped -2**63 - 1 around in C.
    a = np.arange(1.0, 7.0).reshape(2, 3)
    fn = _offset_ops(pyad)[name]
    x = pyad.Variable(a, requires_grad=True)
    y = fn(x, offset)
    g, = pyad.autograd.grad((y * 2.0).sum(), x, allow_unused=True)
    assert pyad.autograd.gradcheck(lambda v: fn(v, offset), (x,))
    assert pyad.autograd.gradgradcheck(lambda v: fn(v, offset), (x,))
    if torch is None:
        return
    t = torch.tensor(a, requires_grad=True)
    ty = _offset_ops(torch)[name](t, offset)
    tg, = torch.autograd.grad((ty * 2.0).sum(), t, allow_unused=True)
    assert y.shape == tuple(ty.shape)
    np.testing.assert_array_equal(y.data, ty.detach().numpy())
    np.testing.assert_array_equal(g.data, tg.numpy())


@needs_torch
@pytest.mark.parametrize("offset", [2 ** 62, -2 ** 62, 2 ** 63 - 1, -2 ** 63])
@pytest.mark.parametrize("name", ["diag", "diag_embed"])
def test_diag_embed_with_a_huge_offset_raises_runtime_error_like_torch(name, offset):
    v = np.arange(3.0)
    with pytest.raises(RuntimeError):
        getattr(torch, name)(torch.tensor(v), offset)
    with pytest.raises(RuntimeError, match=r"^%s\(\): Storage size calculation overflowed"
                       % name):
        getattr(pyad, name)(pyad.Variable(v), offset)


@needs_torch
@pytest.mark.parametrize("name", ["diagonal", "diag", "diag_embed", "tril", "triu"])
@pytest.mark.parametrize("offset", [2 ** 63, -2 ** 63 - 1, 2 ** 64])
def test_offsets_beyond_int64_raise_value_error_like_torch(name, offset):
    a = np.arange(6.0).reshape(2, 3)
    with pytest.raises(ValueError):
        getattr(torch, name)(torch.tensor(a), offset)
    with pytest.raises(ValueError, match=r"^%s\(\): the diagonal offset" % name):
        getattr(pyad, name)(pyad.Variable(a), offset)


@needs_torch
@pytest.mark.parametrize("arg, error", [
    (2 ** 61, RuntimeError), (2 ** 60, RuntimeError), (2 ** 45, RuntimeError),
    (2 ** 63, ValueError), (-1, RuntimeError), ([1, 2 ** 63], TypeError),
])
def test_tensor_split_with_huge_counts_raises_like_torch(arg, error):
    v = np.arange(3.0)
    # (torch tries to allocate the 2**45 parts and raises std::bad_alloc as RuntimeError;
    # it is not run here, where it would allocate first.)
    if arg != 2 ** 45:
        with pytest.raises(error):
            torch.tensor_split(torch.tensor(v), arg)
    with pytest.raises(error, match=r"^tensor_split\(\): "):
        pyad.tensor_split(pyad.Variable(v), arg)


@needs_torch
def test_tensor_split_at_huge_indices_matches_torch():
    v = np.arange(4.0)
    for idx in ([2 ** 62, -2 ** 62], [2 ** 63 - 1], [-2 ** 63, 1]):
        x = pyad.Variable(v, requires_grad=True)
        t = torch.tensor(v, requires_grad=True)
        ours, theirs = pyad.tensor_split(x, idx), torch.tensor_split(t, idx)
        assert [p.shape for p in ours] == [tuple(p.shape) for p in theirs]
        sum((p * (i + 1.0)).sum() for i, p in enumerate(ours)).backward()
        sum((p * (i + 1.0)).sum() for i, p in enumerate(theirs)).backward()
        np.testing.assert_array_equal(x.grad.data, t.grad.numpy())


@pytest.mark.parametrize("create_graph", [False, True])
def test_div_gradient_for_the_divisor_does_not_square_it_first(create_graph):
    # torch computes d(a/b)/db as -g * ((a / b) / b): with a = b = 1e-200, b * b
    # underflows to 0 and -(g a) / (b b) would give -inf where the answer is -1e200.
    torch = pytest.importorskip("torch")
    a = np.array([1e-200, 3e-170, 2.0])
    b = np.array([1e-200, 1e-170, 1e200])
    x, y = pyad.Variable(a, requires_grad=True), pyad.Variable(b, requires_grad=True)
    gx, gy = pyad.autograd.grad((x / y).sum(), (x, y), create_graph=create_graph)
    tx = torch.tensor(a, requires_grad=True)
    ty = torch.tensor(b, requires_grad=True)
    tgx, tgy = torch.autograd.grad((tx / ty).sum(), (tx, ty))
    np.testing.assert_allclose(gx.data, tgx.numpy(), rtol=1e-15)
    np.testing.assert_allclose(gy.data, tgy.numpy(), rtol=1e-15)
    assert np.isfinite(gy.data).all()


# -- pow at zero bases, zero exponents and infinite gradients, to torch's formulas ------

def _pow_derivatives(L, base, expo, go, scalar_base=None, scalar_expo=None):
    """First and second derivatives of sum(go * base ** expo) w.r.t. the differentiable
    operands, in library L (torch or pyad), as NumPy arrays (None for unused)."""
    def var(a, rg):
        if L is torch:
            return torch.tensor(a, dtype=torch.float64, requires_grad=rg)
        return Variable(np.asarray(a, dtype=np.float64), requires_grad=rg)
    ins = []
    b = scalar_base if scalar_base is not None else var(base, True)
    e = scalar_expo if scalar_expo is not None else var(expo, True)
    for x in (b, e):
        if not isinstance(x, (int, float)):
            ins.append(x)
    g = var(go, True)
    y = b ** e
    first = L.autograd.grad(y, ins, g, create_graph=True)
    total = first[0].sum()
    for f in first[1:]:
        total = total + f.sum()
    if not total.requires_grad:
        # (x**0: torch's rule is zeros_like, which has no history)
        second = [None] * (len(ins) + 1)
    else:
        second = L.autograd.grad(total, ins + [g], allow_unused=True)

    def arr(v):
        if v is None:
            return None
        return v.detach().numpy() if L is torch else np.asarray(v.data)
    return [arr(v) for v in first], [arr(v) for v in second]


POW_EDGES = {
    # name: (base, exponent, incoming gradient, scalar base, scalar exponent)
    "x**0, inf and nan gradients": ([0.0, 1.0, -2.0], None, [np.inf, -np.inf, np.nan],
                                    None, 0),
    "x**1, inf gradient": ([0.0, 1.0, -2.0], None, [np.inf, 1.0, np.nan], None, 1),
    "x**2 at 0": ([0.0, -0.0, 3.0], None, [1.0, np.inf, 2.0], None, 2),
    "0**b": (None, [0.5, 1.0, 2.0, 0.0, -1.0], [1.0, 1.0, 1.0, 1.0, 1.0], 0, None),
    "2**b": (None, [0.5, -1.0, 0.0], [1.0, np.inf, 2.0], 2, None),
    "x**e at x=0": ([0.0, 0.0, 0.0, 0.0], [0.5, 1.0, 2.0, 0.0], [1.0, 1.0, 1.0, 1.0],
                    None, None),
    "x**e, e=0 and negative x": ([-1.5, 2.0, 0.0], [0.0, 0.0, -1.0], [1.0, 2.0, 1.0],
                                 None, None),
}


@pytest.mark.parametrize("case", list(POW_EDGES), ids=list(POW_EDGES))
def test_pow_edge_derivatives_match_torch(case):
    torch_or_skip()
    base, expo, go, sb, se = POW_EDGES[case]
    shape_of = base if base is not None else expo
    go = np.asarray(go, dtype=np.float64)
    assert go.shape == np.shape(shape_of)
    with np.errstate(all="ignore"):
        want = _pow_derivatives(torch, base, expo, go, sb, se)
        got = _pow_derivatives(pyad, base, expo, go, sb, se)
    for order in range(2):
        assert len(got[order]) == len(want[order])
        for g, w in zip(got[order], want[order]):
            if w is None:
                assert g is None or not np.any(g), (case, order, g)
                continue
            np.testing.assert_array_equal(g, w, err_msg="%s, order %d" % (case, order + 1))


# -- NaN, zeros and infinities in losses, logit, prod and cumprod ---------------------

@pytest.mark.parametrize("name", ["smooth_l1_loss", "huber_loss"])
def test_smooth_l1_and_huber_at_nan_have_nan_gradients_like_torch(name):
    # torch's kernels end on the quadratic branch, so a NaN difference gives a NaN
    # gradient (not 0 from sign(NaN)); |d| = 1 is on the linear side: sign(d).
    x, y = [NAN, 1.0, -3.0], [0.0, 0.0, 0.0]
    g = np.array([NAN, 1.0, -1.0])
    _check(lambda a, b: getattr(F, name)(a, b, reduction="none"),
           lambda a, b: getattr(torch.nn.functional, name)(a, b, reduction="none"),
           (x, y), [NAN, 0.5, 2.5], [g, -g])


@pytest.mark.parametrize("eps", [None, 0.0])
def test_logit_gradient_at_zero_and_one_is_g_times_inf_like_torch(eps):
    # 1 / (x (1 - x)) at x = -0.0 would be -inf; torch's kernel returns g * inf at 0 and 1
    x = [0.0, -0.0, 1.0, 0.5]
    _check(lambda a: pyad.logit(a, eps), lambda a: torch.logit(a, eps), (x,),
           [-INF, -INF, INF, 0.0], [[INF, INF, INF, 4.0]])


@pytest.mark.parametrize("x", [[0.0, 0.0, NAN], [0.0, INF, 0.0, 2.0], [0.0, -0.0, 3.0]])
def test_full_prod_with_two_zeros_has_zero_gradient_like_torch(x):
    # torch's shortcut: two zeros or more in a full product give all-zero gradients,
    # whatever else the input holds (the product of the others would be NaN here).
    with np.errstate(invalid="ignore"):
        value = float(np.prod(np.array(x)))
    _check(lambda a: pyad.prod(a), lambda a: torch.prod(a), (x,), value,
           [np.zeros(len(x))])


@pytest.mark.parametrize("x, grad", [
    # k < z1: rev_cumsum(g y over [0, z1)) / x_k; k = z1: prod(x[:z1]) times the sum
    # over [z1, z2) of g_j prod(x[z1+1 : j+1]); k > z1: 0, even past an inf or a NaN
    ([1.0, 0.0, INF], [1.0, INF, 0.0]),
    ([INF, 0.0, 2.0], [NAN, INF, 0.0]),       # inf * 1 / inf; inf * (1 + 2); 0
    ([0.0, NAN, 1.0], [NAN, 0.0, 0.0]),
    ([0.0, 0.0, NAN], [1.0, 0.0, 0.0]),
    ([2.0, 0.0, 3.0, 0.0, 4.0], [1.0, 8.0, 0.0, 0.0, 0.0]),   # 1 + 0; 2 (1 + 3); ...
])
def test_cumprod_gradient_with_zeros_follows_torch_rule(x, grad):
    with np.errstate(invalid="ignore"):
        value = float(np.cumprod(np.array(x)).sum())
    _check(lambda a: pyad.cumprod(a, 0).sum(), lambda a: torch.cumprod(a, 0).sum(), (x,),
           value, [grad])


@needs_torch
@pytest.mark.parametrize("seed", range(6))
def test_prod_and_cumprod_gradients_with_zeros_inf_nan_match_torch(seed):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((4, 6))
    m = rng.random((4, 6))
    a[m < 0.3] = 0.0
    a[m > 0.93] = INF
    a[(m > 0.88) & (m < 0.9)] = NAN
    for d in (0, 1):
        w = rng.standard_normal((4, 6))
        for fn, tfn, cot in ((lambda v: pyad.cumprod(v, d), lambda v: torch.cumprod(v, d), w),
                             (lambda v: pyad.prod(v, d), lambda v: torch.prod(v, d),
                              w.sum(d)),
                             (lambda v: pyad.prod(v), lambda v: torch.prod(v), np.ones(()))):
            x = pyad.Variable(a.copy(), requires_grad=True)
            t = torch.tensor(a, requires_grad=True)
            with np.errstate(all="ignore"):
                got, = pyad.autograd.grad(fn(x), x, pyad.Variable(cot))
            want, = torch.autograd.grad(tfn(t), t, torch.tensor(cot))
            np.testing.assert_allclose(got.data, want.numpy(), rtol=1e-12, equal_nan=True)


def test_cumprod_with_zeros_still_checks_to_second_order():
    # create_graph keeps the exact, differentiable rule
    x = pyad.Variable(np.array([[1.5, 0.0, -2.0, 0.5], [0.0, 0.7, 0.0, 1.2]]),
                      requires_grad=True)
    for d in (0, 1):
        assert pyad.autograd.gradcheck(lambda v: pyad.cumprod(v, d), (x,))
        assert pyad.autograd.gradgradcheck(lambda v: pyad.cumprod(v, d), (x,))


# -- complex logcumsumexp / cumprod and the complex var gradient at dof 0 (torch's) ------

_LCSE_COMPLEX = {
    "finite": np.array([[0.5 + 1.0j, -1.0 + 0.3j, 2.0 - 0.7j],
                        [1.5 - 2.0j, 0.25 + 0.5j, -0.5 + 0.0j]]),
    "infs": np.array([[-np.inf + 0j, -np.inf + 0j, 1.0 + 0j],
                      [-np.inf + 0j, 0.0 + 0j, np.inf + 0j]]),
    "equal_real": np.array([[1.0 + 2.0j, 1.0 - 1.0j, 1.0 + 0.5j],
                            [0.0 + 0j, 0.0 + 3.0j, -0.0 + 1.0j]]),
}


@pytest.mark.parametrize("dim", [0, 1, -1])
@pytest.mark.parametrize("name", list(_LCSE_COMPLEX))
def test_complex_logcumsumexp_values_and_gradient_match_torch(name, dim):
    torch = torch_or_skip()
    a = _LCSE_COMPLEX[name]
    w = np.random.default_rng(3).standard_normal(a.shape) + 0.5j
    p = Variable(a.copy(), requires_grad=True)
    t = torch.tensor(a, requires_grad=True)
    po, to = pyad.logcumsumexp(p, dim), torch.logcumsumexp(t, dim)
    assert po.dtype == np.complex128
    np.testing.assert_allclose(po.data, to.detach().resolve_conj().numpy(), rtol=1e-12, atol=1e-14)
    (po * Variable(w)).real.sum().backward()
    (to * torch.tensor(w)).real.sum().backward()
    if name == "finite":
        np.testing.assert_allclose(p.grad.data, t.grad.resolve_conj().numpy(), rtol=1e-10)


def test_complex64_logcumsumexp_keeps_its_dtype_like_torch():
    torch = torch_or_skip()
    a = _LCSE_COMPLEX["finite"].astype(np.complex64)
    out = pyad.logcumsumexp(Variable(a), 1)
    assert out.dtype == np.complex64
    np.testing.assert_allclose(out.data, torch.logcumsumexp(torch.tensor(a), 1).numpy(),
                               rtol=1e-5)


@pytest.mark.parametrize("dim", [0, 1])
def test_complex_logcumsumexp_gradcheck_and_gradgradcheck(dim):
    x = Variable(_LCSE_COMPLEX["finite"].copy(), requires_grad=True)
    assert pyad.autograd.gradcheck(lambda v: pyad.logcumsumexp(v, dim), (x,))
    assert pyad.autograd.gradgradcheck(lambda v: pyad.logcumsumexp(v, dim), (x,))


def test_complex_logcumsumexp_second_order_matches_torch():
    torch = torch_or_skip()
    a = _LCSE_COMPLEX["finite"]
    p = Variable(a.copy(), requires_grad=True)
    t = torch.tensor(a, requires_grad=True)
    gp, = pyad.autograd.grad(pyad.logcumsumexp(p, 1).abs().sum(), p, create_graph=True)
    gt, = torch.autograd.grad(torch.logcumsumexp(t, 1).abs().sum(), t, create_graph=True)
    np.testing.assert_allclose(gp.data, gt.detach().resolve_conj().numpy(), rtol=1e-10)
    hp, = pyad.autograd.grad(gp.abs().sum(), p)
    ht, = torch.autograd.grad(gt.abs().sum(), t)
    np.testing.assert_allclose(hp.data, ht.resolve_conj().numpy(), rtol=1e-8)


@pytest.mark.parametrize("dim", [0, 1, -1])
def test_complex_cumprod_with_infinities_matches_torch(dim):
    torch = torch_or_skip()
    a = _LCSE_COMPLEX["infs"]
    out = pyad.cumprod(Variable(a), dim).data
    ref = torch.cumprod(torch.tensor(a), dim).numpy()
    np.testing.assert_array_equal(np.isnan(out), np.isnan(ref))
    np.testing.assert_allclose(out, ref, rtol=1e-12)


def test_complex_cumprod_finite_still_checks():
    x = Variable(_LCSE_COMPLEX["finite"].copy(), requires_grad=True)
    assert pyad.autograd.gradcheck(lambda v: pyad.cumprod(v, 1), (x,))
    assert pyad.autograd.gradgradcheck(lambda v: pyad.cumprod(v, 1), (x,))


@pytest.mark.parametrize("op", ["var", "std", "var_mean"])
@pytest.mark.parametrize("dim, correction", [(0, 3), (1, 2), (-1, 2)])
def test_complex_var_gradient_at_zero_dof_matches_torch(op, dim, correction):
    # 2 / (n - correction) is inf: torch multiplies the real g by it first, so the
    # complex gradient is +-inf+-infj (not nan)
    torch = torch_or_skip()
    a = np.array([[0.5 + 1.0j, -1.0 + 0.3j], [2.0 - 0.7j, 1.5 - 2.0j],
                  [0.25 + 0.5j, -0.5 + 0.1j]])
    p = Variable(a.copy(), requires_grad=True)
    t = torch.tensor(a, requires_grad=True)
    kw = {"dim": dim, "correction": correction}
    po, to = getattr(pyad, op)(p, **kw), getattr(torch, op)(t, **kw)
    po, to = (po[0], to[0]) if op == "var_mean" else (po, to)
    w = np.random.default_rng(5).standard_normal(tuple(to.shape))
    (po * Variable(w)).sum().backward()
    (to * torch.tensor(w)).sum().backward()
    ref = t.grad.resolve_conj().numpy()
    np.testing.assert_array_equal(p.grad.data, ref)
    if op != "std":                 # (std: g / (2 inf) = 0 first, then 0 * inf = nan)
        assert np.isinf(ref.real).any() and not np.isnan(ref).any()


def test_var_gradient_with_positive_dof_still_checks_complex():
    x = Variable(np.array([[0.5 + 1.0j, -1.0 + 0.3j, 2.0 - 0.7j]]), requires_grad=True)
    for corr in (0, 1, 2):
        assert pyad.autograd.gradcheck(lambda v: pyad.var(v, 1, correction=corr), (x,))
        assert pyad.autograd.gradgradcheck(lambda v: pyad.var(v, 1, correction=corr), (x,))


@pytest.mark.parametrize("dtype", ["bool", "uint8", "int8", "int16", "int32", "int64",
                                   "float16", "float32", "float64", "complex128"])
@pytest.mark.parametrize("name", ["median", "nanmedian"])
def test_median_of_an_empty_input_matches_torch(name, dtype):
    # torch fills NaN converted to the dtype (0 / the lowest int32 or int64 / True)
    torch = torch_or_skip()
    a = np.zeros((0, 3), dtype=dtype)
    out = getattr(pyad, name)(Variable(a))
    ref = getattr(torch, name)(torch.from_numpy(a))
    assert out.shape == () and out.dtype == a.dtype
    np.testing.assert_array_equal(out.data, ref.numpy())


# -- nansum / nanmean: the gradient is g times the not-NaN mask (torch's product) -----

_NANS = np.array([[np.nan, np.nan, np.nan], [1.0, np.nan, -2.0], [0.5, 3.0, -1.0]])


@pytest.mark.parametrize("op", ["nansum", "nanmean"])
@pytest.mark.parametrize("dim", [None, 0, 1])
def test_nan_reductions_gradients_match_torch(op, dim):
    torch = torch_or_skip()
    w = np.array([-1.5, 2.0, -0.5]) if dim is not None else np.array(-1.5)
    p = Variable(_NANS.copy(), requires_grad=True)
    t = torch.tensor(_NANS, requires_grad=True)
    kw = {} if dim is None else {"dim": dim}
    po, to = getattr(pyad, op)(p, **kw), getattr(torch, op)(t, **kw)
    np.testing.assert_allclose(po.data, to.detach().numpy(), rtol=1e-12)
    gp, = pyad.autograd.grad((po * Variable(w)).sum(), p, create_graph=True)
    gt, = torch.autograd.grad((to * torch.tensor(w)).sum(), t, create_graph=True)
    ref = gt.detach().numpy()
    np.testing.assert_array_equal(np.isnan(gp.data), np.isnan(ref))
    np.testing.assert_array_equal(np.signbit(gp.data), np.signbit(ref))   # -0.0 at NaN
    np.testing.assert_allclose(gp.data, ref, rtol=1e-12)


@pytest.mark.parametrize("op", ["nansum", "nanmean"])
def test_nan_reductions_gradcheck_and_gradgradcheck(op):
    x = Variable(_NANS[2:].copy(), requires_grad=True)
    for dim in (None, 1):
        f = (lambda v: getattr(pyad, op)(v)) if dim is None else \
            (lambda v: getattr(pyad, op)(v, dim=1))
        assert pyad.autograd.gradcheck(f, (x,))
        assert pyad.autograd.gradgradcheck(f, (x,))


# -- the complex sgn of a denormal (abs and norm gradients) -----------------------------

@pytest.mark.parametrize("p", [1, float("inf"), 2])
def test_complex_norm_gradient_at_a_denormal_matches_torch(p):
    torch = torch_or_skip()
    a = np.array([1e-310 + 0j, 0.3 - 0.4j, -2.0 + 1.0j, 0j, -1e-312 + 1e-311j, 0.5j,
                  1.0 + 0j, 2.0 + 2.0j, -0.1 + 0.2j])
    pv = Variable(a.copy(), requires_grad=True)
    tv = torch.tensor(a, requires_grad=True)
    pyad.norm(pv, p).backward()
    torch.norm(tv, p).backward()
    ref = tv.grad.resolve_conj().numpy()
    assert not np.isnan(pv.grad.data).any()
    np.testing.assert_allclose(pv.grad.data, ref, rtol=1e-12, atol=1e-300)


def test_complex_abs_still_checks_near_a_denormal_scale():
    x = Variable(np.array([1e-3 + 2e-3j, -0.5 + 0.25j, 3.0 - 4.0j]), requires_grad=True)
    assert pyad.autograd.gradcheck(pyad.abs, (x,))
    assert pyad.autograd.gradgradcheck(pyad.abs, (x,))


def test_complex_abs_gradient_at_a_denormal_is_its_sign():
    z = Variable(np.array([1e-310 + 0j, -1e-311j, 3.0 - 4.0j, 0j]), requires_grad=True)
    pyad.abs(z).sum().backward()
    np.testing.assert_allclose(z.grad.data, [1.0, -1j, 0.6 - 0.8j, 0.0], rtol=1e-15)

# -- unary gap fixes: gradients at edge points against torch, and checked to second order

from pyad.autograd import gradcheck, gradgradcheck  # noqa: E402


def _grad_pair(op_p, op_t, vals, dtype=np.float64, w_seed=3):
    """pyad's and torch's gradient of (op(x) * w).sum() (real part for complex)."""
    torch = pytest.importorskip("torch")
    x = np.asarray(vals, dtype=dtype)
    rng = np.random.default_rng(w_seed)
    w = rng.standard_normal(x.shape)
    if np.iscomplexobj(x):
        w = w + 1j * rng.standard_normal(x.shape)
    out = []
    for lib, op in ((pyad, op_p), (torch, op_t)):
        leaf = lib.tensor(x.copy(), requires_grad=True)
        with np.errstate(all="ignore"):
            y = op(leaf)
            loss = y * lib.tensor(w.astype(x.dtype))
            loss = (loss.real if np.iscomplexobj(x) else loss).sum()
            (g,) = lib.autograd.grad(loss, [leaf])
        out.append((np.asarray(y.detach().numpy()), np.asarray(g.detach().numpy())))
    return out


def _zero_signs_agree(a, b):
    for part in (np.real, np.imag):
        pa, pb = part(np.asarray(a)), part(np.asarray(b))
        zero = (pa == 0) & (pb == 0)
        assert np.array_equal(np.signbit(pa[zero]), np.signbit(pb[zero])), (a, b)


def _same(a, b, signed_zeros=False):
    np.testing.assert_allclose(a, b, rtol=1e-12, atol=0, equal_nan=True)
    if signed_zeros:
        _zero_signs_agree(a, b)


def test_acosh_gradient_is_torchs_below_minus_one_and_at_one():
    # 1 / sqrt(x^2 - 1): finite below -1 (where the value is nan), inf at +-1
    torch = pytest.importorskip("torch")
    (yp, gp), (yt, gt) = _grad_pair(pyad.acosh, torch.acosh,
                                    [-3.0, -1.5, -1.0, 1.0, 1.5, 2.0, 10.0])
    _same(yp, yt)
    _same(gp, gt)
    assert np.isfinite(gp[:2]).all()
    x = pyad.tensor([1.1, 1.5, 3.0, 40.0], dtype=pyad.float64, requires_grad=True)
    assert gradcheck(pyad.acosh, (x,)) and gradgradcheck(pyad.acosh, (x,))


def test_complex_acosh_gradient_at_a_negative_zero_part_is_torchs():
    # torch's x - 1 is x + (-1 + 0i): the -0.0 imaginary part of 0 - 0i becomes +0.0
    torch = pytest.importorskip("torch")
    vals = [complex(0.0, -0.0), complex(-0.0, 0.0), 2 + 1j, -0.5 - 0.5j, 3j]
    (yp, gp), (yt, gt) = _grad_pair(pyad.acosh, torch.acosh, vals, np.complex128)
    _same(yp, yt)
    _same(gp, gt)
    x = pyad.tensor(np.array([2 + 1j, -0.5 - 0.5j, 3j, 1.5 - 2j]), requires_grad=True)
    assert gradcheck(pyad.acosh, (x,)) and gradgradcheck(pyad.acosh, (x,))


def test_sinc_gradient_is_zero_where_its_denominator_underflows():
    torch = pytest.importorskip("torch")
    vals = [0.0, -0.0, 1e-310, -1e-170, 1e-160, 0.5, -1.5, 3.7, 1e17, math.inf]
    (yp, gp), (yt, gt) = _grad_pair(pyad.sinc, torch.sinc, vals)
    _same(yp, yt)
    _same(gp, gt)
    assert gp[2] == 0 and gp[3] == 0
    x = pyad.tensor([-2.3, -0.4, 0.3, 1.7], dtype=pyad.float64, requires_grad=True)
    assert gradcheck(pyad.sinc, (x,)) and gradgradcheck(pyad.sinc, (x,))


def test_complex_sinc_gradient_matches_torch_and_checks_to_second_order():
    torch = pytest.importorskip("torch")
    vals = [0j, 1e-310 + 1e-310j, 0.3 + 0.2j, -1 + 0.5j, 2.5 - 2.5j, 3j]
    (yp, gp), (yt, gt) = _grad_pair(pyad.special.sinc, torch.special.sinc, vals,
                                    np.complex128)
    _same(yp, yt)
    np.testing.assert_allclose(gp, gt, rtol=1e-10, atol=0)
    assert gp[1] == 0
    x = pyad.tensor(np.array([0.3 + 0.2j, -1 + 0.5j, 2 - 1j]), requires_grad=True)
    assert gradcheck(pyad.special.sinc, (x,)) and gradgradcheck(pyad.special.sinc, (x,))


@pytest.mark.parametrize("name", ["i1", "i1e"])
def test_i1_i1e_gradient_is_one_half_at_tiny_and_nan_input(name):
    # torch: 1/2 where not |x| > eps (0, a denormal, NaN); i1(1e308) is inf (the
    # asymptotic series no longer overflows 2 pi x), its gradient nan
    torch = pytest.importorskip("torch")
    vals = [math.nan, 0.0, -0.0, 1e-310, 1e-17, 0.5, -2.5, 40.0, 1e308, -1e308]
    (yp, gp), (yt, gt) = _grad_pair(getattr(pyad.special, name),
                                    getattr(torch.special, name), vals)
    _same(yp, yt, signed_zeros=True)
    _same(gp, gt)
    x = pyad.tensor([-3.0, -0.2, 0.4, 2.5, 35.0], dtype=pyad.float64, requires_grad=True)
    f = getattr(pyad.special, name)
    assert gradcheck(f, (x,)) and gradgradcheck(f, (x,))


def test_i0_i1_at_huge_input_are_inf_as_torch():
    torch = pytest.importorskip("torch")
    x = np.array([1e308, -1e308, 713.0, 1e300])
    for name in ("i0", "i0e", "i1", "i1e"):
        ours = getattr(pyad.special, name)(pyad.tensor(x)).numpy()
        theirs = getattr(torch.special, name)(torch.tensor(x)).numpy()
        _same(ours, theirs, signed_zeros=True)


def test_complex_angle_gradient_at_zero_and_infinity_is_torchs():
    torch = pytest.importorskip("torch")
    vals = [0j, complex(math.inf, 0), complex(0, math.inf), 1 + 1j, -1 + 0j, 2 - 3j]
    (yp, gp), (yt, gt) = _grad_pair(pyad.angle, torch.angle, vals, np.complex128)
    _same(yp, yt)
    _same(gp, gt)
    x = pyad.tensor(np.array([1 + 1j, -1 + 0.5j, 2 - 3j]), requires_grad=True)
    assert gradcheck(pyad.angle, (x,)) and gradgradcheck(pyad.angle, (x,))


def test_complex_abs_and_sgn_divide_each_part_by_the_modulus():
    # torch's (vectorised) sgn: re / |z| + (im / |z|) i, so a tiny z is not inf and an
    # infinite one keeps its zero part; abs's gradient is g sgn(z)
    torch = pytest.importorskip("torch")
    vals = [0j, 1e-310 + 1e-310j, complex(math.inf, 0), complex(0, math.inf), 1 + 1j,
            -2 + 0.5j, 3j, 1e308 + 1e308j]
    z = np.array(vals)
    _same(pyad.sgn(pyad.tensor(z)).numpy(), torch.sgn(torch.tensor(z)).numpy(),
          signed_zeros=True)
    # (abs's gradient at the tiny z is left out: torch's scalar loop, which a short
    # Variable takes, gives nan there, its SIMD body g sgn(z))
    (yp, gp), (yt, gt) = _grad_pair(pyad.abs, torch.abs, vals[:1] + vals[4:],
                                    np.complex128)
    _same(yp, yt)
    np.testing.assert_allclose(gp, gt, rtol=1e-12)
    x = pyad.tensor(np.array([1 + 1j, -2 + 0.5j, 3j]), requires_grad=True)
    for f in (pyad.abs, pyad.sgn):
        assert gradcheck(f, (x,)) and gradgradcheck(f, (x,))


@pytest.mark.parametrize("kw", [{}, {"nan": 1.5, "posinf": 2.0, "neginf": -3.0}])
def test_nan_to_num_keeps_negative_zero_and_its_gradient(kw):
    torch = pytest.importorskip("torch")
    vals = [math.nan, math.inf, -math.inf, -0.0, 0.0, 1.5]
    (yp, gp), (yt, gt) = _grad_pair(lambda x: pyad.nan_to_num(x, **kw),
                                    lambda x: torch.nan_to_num(x, **kw), vals)
    _same(yp, yt, signed_zeros=True)
    _same(gp, gt)
    x = pyad.tensor([-1.5, 0.3, 2.0], dtype=pyad.float64, requires_grad=True)
    f = lambda t: pyad.nan_to_num(t, **kw)  # noqa: E731
    assert gradcheck(f, (x,)) and gradgradcheck(f, (x,))


def test_mvlgamma_gradient_at_negative_zero_comes_from_the_right():
    # torch's shifts end in +0: -0.0 + 0 is +0.0, where digamma is -inf
    torch = pytest.importorskip("torch")
    vals = [-0.0, 0.0, 0.5, 1.0, 1.5, 3.2]
    (yp, gp), (yt, gt) = _grad_pair(lambda x: pyad.mvlgamma(x, 2),
                                    lambda x: torch.mvlgamma(x, 2), vals)
    _same(yp, yt)
    _same(gp, gt)
    x = pyad.tensor([1.2, 2.5, 4.0], dtype=pyad.float64, requires_grad=True)
    f = lambda t: pyad.mvlgamma(t, 3)  # noqa: E731
    assert gradcheck(f, (x,)) and gradgradcheck(f, (x,))


@pytest.mark.parametrize("n", [1, 7, 40])
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
def test_relu_elu_keep_negative_zero(dtype, n):
    # (torch's SIMD body and scalar tail agree here, unlike clamp's with Variable bounds)
    torch = pytest.importorskip("torch")
    x = np.array([-0.0, 0.0, -1.0, 2.0, math.nan] * n, dtype=dtype)
    calls = [lambda m, F, t: m.relu(t), lambda m, F, t: F.elu(t),
             lambda m, F, t: F.selu(t), lambda m, F, t: F.celu(t, 2.0),
             lambda m, F, t: F.elu(t, 0.5), lambda m, F, t: m.nan_to_num(t)]
    tF = torch.nn.functional
    for call in calls:
        ours = call(pyad, F, pyad.tensor(x)).numpy()
        theirs = call(torch, tF, torch.tensor(x)).numpy()
        _same(ours, theirs, signed_zeros=True)
    t = pyad.tensor(x[::2])          # a strided view (the general path)
    _same(pyad.relu(t).numpy(), torch.relu(torch.tensor(x)[::2]).numpy(),
          signed_zeros=True)


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_complex_kernels_special_points_match_torch(dtype):
    # reciprocal and pow(-1) (c10's division: 1 / 0 is inf + nan i), pow(0.5) (sqrt),
    # pow(2) (z z, no fused multiply-add), log1p (Kahan's), acos, neg (0 - z)
    torch = pytest.importorskip("torch")
    inf, nan = math.inf, math.nan
    vals = [complex(nan, 0), complex(inf, 0), complex(-inf, 0), complex(0, inf), 0j,
            complex(-0.0, 0.0), complex(0.0, -0.0), 1 + 1j, -2 + 0.5j, 0.5 - 0.3j, 3j,
            -1 + 0j, 1e-30 + 1e-30j, 1e30 + 1e30j, 2.5 - 2.5j, -0.5 + 0.5j]
    z = np.array(vals, dtype=dtype)
    calls = [lambda m, t: m.reciprocal(t), lambda m, t: m.pow(t, -1),
             lambda m, t: m.pow(t, 0.5), lambda m, t: m.pow(t, 2),
             lambda m, t: m.pow(t, -2), lambda m, t: m.pow(t, 3), lambda m, t: m.log1p(t),
             lambda m, t: m.square(t), lambda m, t: m.neg(t), lambda m, t: m.rsqrt(t)]
    if dtype == "complex128":
        calls.append(lambda m, t: m.acos(t))
        calls.append(lambda m, t: m.nn.functional.silu(t))
    for call in calls:
        with np.errstate(all="ignore"):
            ours = call(pyad, pyad.tensor(z)).numpy()
        theirs = call(torch, torch.tensor(z)).numpy()
        np.testing.assert_allclose(ours, theirs, rtol=2e-6, equal_nan=True)
        _zero_signs_agree(ours, theirs)


def test_complex_reciprocal_and_log1p_check_to_second_order():
    x = pyad.tensor(np.array([1 + 1j, -2 + 0.5j, 0.5 - 0.3j, 3j]), requires_grad=True)
    for f in (pyad.reciprocal, pyad.log1p, pyad.rsqrt, lambda t: pyad.pow(t, -1),
              lambda t: pyad.pow(t, 2), pyad.acos):
        assert gradcheck(f, (x,)) and gradgradcheck(f, (x,))


def test_float16_round_decimals_and_logsigmoid_compute_in_float32():
    torch = pytest.importorskip("torch")
    x = np.array([100.0, 20.0, 1.2345, -7.5, 65000.0], dtype=np.float16)
    _same(pyad.round(pyad.tensor(x), decimals=3).numpy(),
          torch.round(torch.tensor(x), decimals=3).numpy())
    _same(F.logsigmoid(pyad.tensor(x)).numpy(),
          torch.nn.functional.logsigmoid(torch.tensor(x)).numpy(), signed_zeros=True)


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_softmax_with_a_real_dtype_casts_complex_input_first(dtype):
    torch = pytest.importorskip("torch")
    z = np.array([[1 + 2j, 3 - 1j, -0.5j], [0.2 + 0j, -1 + 1j, 2 + 2j]], dtype=dtype)
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name in ("softmax", "log_softmax"):
            ours = getattr(pyad, name)(pyad.tensor(z), dim=-1, dtype=pyad.float64)
            theirs = getattr(torch, name)(torch.tensor(z), dim=-1, dtype=torch.float64)
            assert str(ours.dtype) == "float64"
            _same(ours.numpy(), theirs.numpy())

# -- binary/ternary ops with torch's kernel formulas: add/sub alpha, addcmul/addcdiv,
#    lerp, hypot, xlogy, nextafter (values near overflow and their gradients) ----------

def _pair_values(lib, fn, arrays, dtype="float64"):
    """fn(*leaves) and the gradients of (out * w).sum() for a fixed w."""
    if lib is pyad:
        leaves = [pyad.tensor(np.array(a, dtype=dtype)).requires_grad_() for a in arrays]
    else:
        leaves = [torch.tensor(np.array(a, dtype=dtype)).requires_grad_() for a in arrays]
    out = fn(lib, *leaves)
    w = np.linspace(-1.5, 2.0, int(np.prod(out.shape))).reshape(tuple(out.shape))
    wl = (pyad.tensor(w.astype(dtype)) if lib is pyad else torch.tensor(w.astype(dtype)))
    grads = lib.autograd.grad((out * wl).sum(), leaves, allow_unused=True)
    return as_np(out), [as_np(g) for g in grads]


def _same_as_torch(fn, arrays, dtype="float64", rtol=1e-12):
    torch_or_skip()
    got, got_grads = _pair_values(pyad, fn, arrays, dtype)
    exp, exp_grads = _pair_values(torch, fn, arrays, dtype)
    assert got.dtype == exp.dtype
    np.testing.assert_allclose(got, exp, rtol=rtol, atol=0, equal_nan=True)
    for g, e in zip(got_grads, exp_grads):
        _assert_same(g, e, rtol=rtol)


_HUGE = [-INF, 1e308, -1e308, 2.5, 0.0, 1e-310]
_BIG2 = [1e308, 1e308, 3.0, -2.5, 1e308, 7.0]


@pytest.mark.parametrize("alpha", [2, 1.5, -0.5])
@pytest.mark.parametrize("name", ["add", "sub"])
def test_add_sub_alpha_scales_inside_the_fused_sum_like_torch(name, alpha):
    # torch's a + alpha * b does not overflow alpha * b first (-inf + 2 * 1e308 is -inf)
    _same_as_torch(lambda L, a, b: getattr(L, name)(a, b, alpha=alpha), (_HUGE, _BIG2))
    a = pyad.tensor([0.3, -1.2, 2.0], dtype=pyad.float64).requires_grad_()
    b = pyad.tensor([1.1, 0.4, -0.7], dtype=pyad.float64).requires_grad_()
    f = lambda p, q: getattr(pyad, name)(p, q, alpha=alpha)
    assert pyad.autograd.gradcheck(f, (a, b))
    assert pyad.autograd.gradgradcheck(f, (a, b))


@pytest.mark.parametrize("dtype", ["float32"])
def test_add_alpha_low_precision_like_torch(dtype):
    # (float16: torch fuses only in its vectorized loop, the last n mod 32 elements
    # round alpha * other to float16 first; pyad fuses everywhere)
    torch_or_skip()
    big = {"float16": 6e4, "float32": 3e38}[dtype]
    a, b = np.array([-np.inf, big, 1.0], dtype=dtype), np.array([big, big, 2.0], dtype=dtype)
    for alpha in (2, 1.5):
        got = pyad.add(pyad.tensor(a), pyad.tensor(b), alpha=alpha)
        exp = torch.add(torch.tensor(a), torch.tensor(b), alpha=alpha)
        assert str(got.dtype) == str(exp.dtype).replace("torch.", "")
        np.testing.assert_array_equal(got.numpy(), exp.numpy())


def test_add_alpha_integer_and_bool_like_torch():
    torch_or_skip()
    u8, i8 = np.array([0, 200, 255], dtype=np.uint8), np.array([-128, 127, -1], dtype=np.int8)
    for lib, x, y in ((pyad, pyad.tensor(u8), pyad.tensor(i8)),
                      (torch, torch.tensor(u8), torch.tensor(i8))):
        r = lib.add(x, y, alpha=2)
        assert str(r.dtype).endswith("int16") and as_np(r).tolist() == [-256, 454, 253]
    b = np.array([True, False, False])
    got = pyad.add(pyad.tensor(b), pyad.tensor(b[::-1].copy()), alpha=2)
    exp = torch.add(torch.tensor(b), torch.tensor(b[::-1].copy()), alpha=2)
    assert got.dtype == pyad.bool and as_np(got).tolist() == exp.tolist()


def test_complex_add_sub_multiply_by_alpha_like_torch():
    torch_or_skip()
    a = np.array([0j, 1 + 2j, 3 - 1j], dtype=np.complex128)
    b = np.array([complex(INF, 1), complex(1, -INF), 2 + 0j], dtype=np.complex128)
    for name in ("add", "sub"):
        got = as_np(getattr(pyad, name)(pyad.tensor(a), pyad.tensor(b)))
        exp = getattr(torch, name)(torch.tensor(a), torch.tensor(b)).numpy()
        np.testing.assert_array_equal(got, exp)
        x = pyad.tensor(a.copy())
        getattr(x, name + "_")(pyad.tensor(b))
        np.testing.assert_array_equal(as_np(x), exp)


@pytest.mark.parametrize("value", [1, 2, 0.5])
def test_addcmul_order_and_gradients_like_torch(value):
    t = [INF, 1e308, 1e308, 2.0, -3.0, 1e-310]
    u = [1e308, -2.5, 1e308, 0.5, 4.0, 1e308]
    s = [-2.5, 1e308, -INF, 1.0, 0.0, 3.0]
    _same_as_torch(lambda L, a, b, c: L.addcmul(a, b, c, value=value), (t, u, s))
    a, b, c = (pyad.tensor(np.array(v), dtype=pyad.float64).requires_grad_()
               for v in ([0.3, -1.2, 2.0], [1.1, 0.4, -0.7], [0.5, 2.0, -1.5]))
    f = lambda p, q, r: pyad.addcmul(p, q, r, value=value)
    assert pyad.autograd.gradcheck(f, (a, b, c))
    assert pyad.autograd.gradgradcheck(f, (a, b, c))


@pytest.mark.parametrize("value", [1, 2, 0.5])
def test_addcdiv_order_and_gradients_like_torch(value):
    t = [0.0, 1e308, 1.0, 2.0, -3.0, 1e-310]
    u = [1e308, -2.5, 1e-310, 0.5, 4.0, 1e308]
    s = [-2.5, 1e308, 3.0, 1.0, 0.25, 3.0]
    _same_as_torch(lambda L, a, b, c: L.addcdiv(a, b, c, value=value), (t, u, s))
    a, b, c = (pyad.tensor(np.array(v), dtype=pyad.float64).requires_grad_()
               for v in ([0.3, -1.2, 2.0], [1.1, 0.4, -0.7], [0.5, 2.0, -1.5]))
    f = lambda p, q, r: pyad.addcdiv(p, q, r, value=value)
    assert pyad.autograd.gradcheck(f, (a, b, c))
    assert pyad.autograd.gradgradcheck(f, (a, b, c))


def test_addcmul_addcdiv_dtypes_and_complex_like_torch():
    torch_or_skip()
    cases = [
        (np.array([1, 2, 3], np.int64), np.array([5, 6, 7], np.int64),
         np.array([2, 3, 4], np.int64), 0.5, "addcmul"),
        (np.array([1, 2, 3], np.uint8), np.array([-5, 100, 7], np.int8),
         np.array([100, 3, -128], np.int8), 2, "addcmul"),
        (np.array([1.0, 2.0], np.float64), np.array([6e-8, 3.0], np.float16),
         np.array([65504.0, 2.0], np.float16), 1, "addcdiv"),
        (np.array([0j, 1 + 1j], np.complex64), np.array([complex(INF, 1), 2j], np.complex64),
         np.array([3 - 4j, 1 + 0j], np.complex64), 1, "addcmul"),
        (np.array([1.0, 2.0], np.float16), np.array([6e4, 3.0], np.float16),
         np.array([-2.5, 2.0], np.float16), 1, "addcmul"),
    ]
    for a, b, c, v, name in cases:
        got = getattr(pyad, name)(pyad.tensor(a), pyad.tensor(b), pyad.tensor(c), value=v)
        exp = getattr(torch, name)(torch.tensor(a), torch.tensor(b), torch.tensor(c), value=v)
        assert str(got.dtype) == str(exp.dtype).replace("torch.", ""), (name, a.dtype)
        np.testing.assert_allclose(as_np(got), exp.numpy(), rtol=1e-6, equal_nan=True)


def test_lerp_branches_and_gradients_like_torch():
    # weight < 0.5: start + weight * (end - start); else end - (end - start) * (1 - weight)
    s = [INF, 0.0, 1.0, -2.0, 3.0, 1e308]
    e = [-0.0, INF, 5.0, 4.0, -1.0, -1e308]
    w = [3.0, 0.25, 0.75, -3.0, 0.5, 0.4]
    _same_as_torch(lambda L, a, b, c: L.lerp(a, b, c), (s, e, w))
    for weight in (0.25, 0.75, -3, 2):
        _same_as_torch(lambda L, a, b: L.lerp(a, b, weight), (s, e))
    a, b, c = (pyad.tensor(np.array(v), dtype=pyad.float64).requires_grad_()
               for v in ([0.3, -1.2, 2.0], [1.1, 0.4, -0.7], [0.1, 0.6, 1.5]))
    assert pyad.autograd.gradcheck(pyad.lerp, (a, b, c))
    assert pyad.autograd.gradgradcheck(pyad.lerp, (a, b, c))
    f = lambda p, q: pyad.lerp(p, q, 0.75)
    assert pyad.autograd.gradcheck(f, (a, b))
    assert pyad.autograd.gradgradcheck(f, (a, b))


def test_lerp_broadcast_and_float32_like_torch():
    torch_or_skip()
    s = np.array([[1.0], [2.0]], np.float32)
    e = np.array([3.0, -1.0, 5.0], np.float32)
    w = np.array(0.75, np.float32)
    got = pyad.lerp(pyad.tensor(s), pyad.tensor(e), pyad.tensor(w))
    exp = torch.lerp(torch.tensor(s), torch.tensor(e), torch.tensor(w))
    assert got.dtype == pyad.float32 and tuple(got.shape) == tuple(exp.shape)
    np.testing.assert_array_equal(as_np(got), exp.numpy())


def test_hypot_gradient_at_overflow_and_denormals_like_torch():
    # torch: grad * x / hypot(x, y) (x / sqrt(x**2 + y**2) would overflow or underflow)
    _same_as_torch(lambda L, a, b: L.hypot(a, b),
                   ([1e308, 1e-310, 3.0, 0.0, -1e308], [1e308, 1e-310, 4.0, 2.0, 1.0]))
    a = pyad.tensor([0.3, -1.2, 2.0], dtype=pyad.float64).requires_grad_()
    b = pyad.tensor([1.1, 0.4, -0.7], dtype=pyad.float64).requires_grad_()
    assert pyad.autograd.gradcheck(pyad.hypot, (a, b))
    assert pyad.autograd.gradgradcheck(pyad.hypot, (a, b))


def test_xlogy_gradient_for_other_like_torch():
    # torch: grad * x / y left to right (x / y alone is inf at x = 1e308, y = 0.5; the
    # weight there is -1/3, so torch's gradient is finite)
    _same_as_torch(lambda L, a, b: L.xlogy(a, b),
                   ([2.0, 1e308, 0.0, -1.5], [3.0, 0.5, 2.0, 0.5]))
    a = pyad.tensor([0.3, -1.2, 2.0], dtype=pyad.float64).requires_grad_()
    b = pyad.tensor([1.1, 0.4, 0.7], dtype=pyad.float64).requires_grad_()
    assert pyad.autograd.gradcheck(pyad.xlogy, (a, b))
    assert pyad.autograd.gradgradcheck(pyad.xlogy, (a, b))


def test_nextafter_gradient_is_zero_where_the_operands_are_equal_like_torch():
    _same_as_torch(lambda L, a, b: L.nextafter(a, b),
                   ([0.0, 1.0, 1.0, NAN, INF, -0.0, 2.0], [0.0, 1.0, 2.0, 1.0, INF, 0.0, -1.0]))
    a = pyad.tensor([0.3, -1.2, 2.0], dtype=pyad.float64).requires_grad_()
    b = pyad.tensor([1.1, 0.4, -0.7], dtype=pyad.float64).requires_grad_()
    assert pyad.autograd.gradcheck(pyad.nextafter, (a, b))
    assert pyad.autograd.gradgradcheck(pyad.nextafter, (a, b))


def test_nextafter_promotes_like_torch():
    torch_or_skip()
    a, b = np.array([1, 2], np.int32), np.array([2.0, 0.0], np.float16)
    got = pyad.nextafter(pyad.tensor(a), pyad.tensor(b))
    exp = torch.nextafter(torch.tensor(a), torch.tensor(b))
    assert got.dtype == pyad.float16
    np.testing.assert_array_equal(as_np(got), exp.numpy())


def test_atan2_gradient_multiplies_grad_by_other_first_like_torch():
    # torch: (grad * other) * (1 / (self**2 + other**2)); at (0, 1e308) with grad 2 the
    # product overflows: inf * 0 is nan in both
    _same_as_torch(lambda L, a, b: L.atan2(a, b),
                   ([0.5, 3.0, -1.0, 0.0], [1.0, -2.0, 1e308, 1e308]))


# -- pow of a negative number to a complex power; ldexp; gcd/lcm at INT_MIN ----------------

@pytest.mark.parametrize("base", [-1, -3.0, -0.5])
def test_pow_negative_number_base_complex_exponent_gradient(base):
    # d/dy b**y = b**y log b with the complex log of the negative real b (log|b| + i pi)
    e = pyad.Variable(np.array([0.3 - 0.2j, -1.1 + 0.7j, 2.0 + 0j]), requires_grad=True)
    assert pyad.autograd.gradcheck(lambda y: pyad.pow(base, y), (e,))
    assert pyad.autograd.gradgradcheck(lambda y: pyad.pow(base, y), (e,))
    t = torch_or_skip()
    te = t.tensor(as_np(e), requires_grad=True)
    g = np.array([0.5 + 0.1j, -1.0 + 2.0j, 0.25 - 0.5j])
    out = pyad.pow(base, e)
    (pg,) = pyad.autograd.grad(out, (e,), pyad.Variable(g))
    (tg,) = t.autograd.grad(t.pow(base, te), (te,), t.tensor(g))
    np.testing.assert_allclose(as_np(out), t.pow(base, te).detach().numpy(), rtol=1e-12)
    np.testing.assert_allclose(as_np(pg), tg.numpy(), rtol=1e-12)


def test_ldexp_gradients_check():
    x = pyad.Variable(np.array([0.3, -1.2, 2.0, 0.0]), requires_grad=True)
    e = pyad.Variable(np.array([1.5, -0.4, 3.0, 2.0]), requires_grad=True)
    assert pyad.autograd.gradcheck(pyad.ldexp, (x, e))
    assert pyad.autograd.gradgradcheck(pyad.ldexp, (x, e))
    k = pyad.Variable(np.array([3, -2, 0, 5]))
    assert pyad.autograd.gradcheck(lambda u: pyad.ldexp(u, k), (x,))
    assert pyad.autograd.gradgradcheck(lambda u: pyad.ldexp(u, k), (x,))
    xc = pyad.Variable(np.array([0.3 + 1j, -1.2 - 0.5j]), requires_grad=True)
    ec = pyad.Variable(np.array([1.5 - 0.2j, -0.4 + 1j]), requires_grad=True)
    assert pyad.autograd.gradcheck(pyad.ldexp, (xc, ec))
    assert pyad.autograd.gradgradcheck(pyad.ldexp, (xc, ec))


@needs_torch
def test_ldexp_edges_like_torch():
    # an integer exponent scales exactly in the input's dtype (float16 stays float16,
    # 2**20 does not overflow first); the gradient of the exponent is (g * out) * ln 2,
    # so it overflows where torch's does
    x = np.array([1e-3, 6e4], dtype=np.float16)
    k = np.array([20, -20], dtype=np.int32)
    got = pyad.ldexp(pyad.Variable(x), pyad.Variable(k))
    want = torch.ldexp(torch.tensor(x), torch.tensor(k))
    assert got.dtype == pyad.float16
    np.testing.assert_array_equal(as_np(got), want.numpy())
    xs, es, w = [1e308, 1e308, 3.0], [1.0, 0.0, 0.5], [0.3, 2.0, 1.7]
    px = pyad.Variable(np.array(xs), requires_grad=True)
    pe = pyad.Variable(np.array(es), requires_grad=True)
    tx = torch.tensor(xs, dtype=torch.float64, requires_grad=True)
    te = torch.tensor(es, dtype=torch.float64, requires_grad=True)
    pg = pyad.autograd.grad((pyad.ldexp(px, pe) * pyad.Variable(np.array(w))).sum(), (px, pe))
    tg = torch.autograd.grad((torch.ldexp(tx, te) * torch.tensor(w, dtype=torch.float64)).sum(),
                             (tx, te))
    for p, t in zip(pg, tg):
        np.testing.assert_allclose(as_np(p), t.numpy(), rtol=1e-14)
    # a complex product: (1+2j) * 2**inf is nan+nanj, as torch
    xc = np.array([1 + 2j, 3 - 4j], dtype=np.complex64)
    ef = np.array([math.inf, 1.0])
    got = pyad.ldexp(pyad.Variable(xc), pyad.Variable(ef))
    want = torch.ldexp(torch.tensor(xc), torch.tensor(ef))
    np.testing.assert_allclose(as_np(got), want.numpy(), rtol=1e-6, equal_nan=True)


@needs_torch
@pytest.mark.parametrize("dtype", ["int8", "int16", "int32", "int64"])
def test_gcd_lcm_wrap_like_torch(dtype):
    info = np.iinfo(dtype)
    pool = [0, 1, -1, 2, -3, 7, 9, int(info.max)]
    if dtype in ("int8", "int16"):          # (torch dies of SIGFPE at INT_MIN for int32/64)
        pool.append(int(info.min))
    a = np.array([p for p in pool for q in pool], dtype=dtype)
    b = np.array([q for p in pool for q in pool], dtype=dtype)
    for name in ("gcd", "lcm"):
        got = getattr(pyad, name)(pyad.Variable(a), pyad.Variable(b))
        want = getattr(torch, name)(torch.tensor(a), torch.tensor(b))
        np.testing.assert_array_equal(as_np(got), want.numpy())
