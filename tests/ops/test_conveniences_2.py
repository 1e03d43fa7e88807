"""More torch functions that ported scripts reach for: repeat_interleave, diff, logaddexp,
logaddexp2, addmm, addmv, baddbmm, addbmm, cdist, dist.

Each Case runs through the standard checks (values vs NumPy, gradcheck and gradgradcheck
in float64, values and first and second gradients vs torch, the 0-d, empty,
non-contiguous and float32 variants); the edge points (ties, zero distances, inf, nan,
beta = 0) are compared with torch below."""
import numpy as np
import pytest

import pyad
from _ops_helpers import Case, standard_op_tests

INF = float("inf")


def _np_cdist(a, b, p=2.0):
    d = np.abs(a[..., :, None, :] - b[..., None, :, :])
    if p == 0:
        return (d != 0).sum(-1).astype(a.dtype)
    if p == INF:
        return d.max(-1) if d.shape[-1] else np.zeros(d.shape[:-1], a.dtype)
    return (d ** p).sum(-1) ** (1.0 / p)


NP_REF = {
    "repeat_interleave": lambda x, r, dim=None: np.repeat(x, r, axis=dim),
    "diff": lambda x, n=1, dim=-1, prepend=None, append=None: np.diff(
        x, n, axis=dim, **({} if prepend is None else {"prepend": prepend}),
        **({} if append is None else {"append": append})),
    "addmm": lambda i, a, b, beta=1, alpha=1: beta * i + alpha * (a @ b),
    "addmv": lambda i, a, b, beta=1, alpha=1: beta * i + alpha * (a @ b),
    "baddbmm": lambda i, a, b, beta=1, alpha=1: beta * i + alpha * (a @ b),
    "addbmm": lambda i, a, b, beta=1, alpha=1: beta * i + alpha * (a @ b).sum(0),
    "cdist": _np_cdist,
    "dist": lambda a, b, p=2: np.linalg.norm((a - b).ravel(), p),
    "addcmul": lambda i, a, b, value=1: i + value * a * b,
    "addcdiv": lambda i, a, b, value=1: i + value * a / b,
    "true_divide": np.true_divide,
    "float_power": np.float_power,
    "logit": lambda x, eps=None: np.log((x if eps is None else np.clip(x, eps, 1 - eps)) / (
        1 - (x if eps is None else np.clip(x, eps, 1 - eps)))),
    "nan_to_num": lambda x, nan=0.0, posinf=None, neginf=None: np.nan_to_num(
        x, nan=nan, posinf=posinf, neginf=neginf),
    "moveaxis": np.moveaxis,
    "swapdims": np.swapaxes,
    "swapaxes": np.swapaxes,
}


def _np_windows(x, dimension, size, step):
    w = np.lib.stride_tricks.sliding_window_view(x, size, axis=dimension)
    return np.take(w, np.arange(0, w.shape[dimension], step), axis=dimension)


def windows(L, x, dimension, size, step):
    """Variable.unfold / Tensor.unfold (NumPy: a sliding window view, every step-th)."""
    if L.name == "numpy":
        return _np_windows(x, dimension, size, step)
    return x.unfold(dimension, size, step)


def _torch_cdist_twice_differentiable(torch, a, b, p=2.0):
    # torch.cdist has no second derivative ("the derivative for '_cdist_backward' is not
    # implemented"); pyad's has one. The standard checks take torch's as the same
    # norm of the pairwise differences (torch.cdist itself is compared below, first order).
    return torch.linalg.vector_norm(a[..., :, None, :] - b[..., None, :, :], p, -1)


def op(L, name, *args, **kwargs):
    if L.name == "numpy" and name in NP_REF:
        return NP_REF[name](*args, **kwargs)
    if L.name == "torch" and name == "cdist":
        return _torch_cdist_twice_differentiable(L, *args, **kwargs)
    return getattr(L, name)(*args, **kwargs)


NO0 = dict(zero_d=False)

CASES = [
    Case("repeat_interleave_int_dim0", lambda L, a: op(L, "repeat_interleave", a, 2, dim=0),
         [(3, 4)], **NO0),
    Case("repeat_interleave_int_flat", lambda L, a: op(L, "repeat_interleave", a, 3),
         [(2, 3)], zero_d=[()]),
    Case("repeat_interleave_counts",
         lambda L, a: op(L, "repeat_interleave", a,
                         np.array([2, 0, 3]) if L.name == "numpy" else L.tensor([2, 0, 3]),
                         dim=1), [(2, 3)], zero_d=False, empty=False),
    Case("repeat_interleave_method", lambda L, a: a.repeat_interleave(2, 1) if L.name != "numpy"
         else np.repeat(a, 2, axis=1), [(2, 3)], **NO0),
    Case("diff", lambda L, a: op(L, "diff", a), [(3, 5)], **NO0),
    Case("diff_n2_dim0", lambda L, a: op(L, "diff", a, 2, 0), [(4, 3)], **NO0),
    Case("diff_prepend_append", lambda L, a, b, c: op(L, "diff", a, 1, 1, b, c),
         [(3, 4), (3, 2), (3, 1)], zero_d=False, empty=[(0, 4), (0, 2), (0, 1)]),
    Case("diff_order_past_length", lambda L, a: op(L, "diff", a, 5), [(3,)], **NO0),
    Case("logaddexp", lambda L, a, b: L.logaddexp(a, b), [(3, 4), (3, 4)]),
    Case("logaddexp_broadcast", lambda L, a, b: L.logaddexp(a * 30, b), [(3, 1), (4,)]),
    Case("logaddexp2", lambda L, a, b: L.logaddexp2(a, b), [(3, 4), (4,)]),
    Case("addmm", lambda L, i, a, b: op(L, "addmm", i, a, b), [(2, 4), (2, 3), (3, 4)],
         zero_d=False, empty=[(0, 4), (0, 3), (3, 4)]),
    Case("addmm_scaled_broadcast", lambda L, i, a, b: op(L, "addmm", i, a, b, beta=0.5,
                                                         alpha=-2.0),
         [(4,), (2, 3), (3, 4)], zero_d=False, empty=[(4,), (0, 3), (3, 4)]),
    Case("addmv", lambda L, i, a, v: op(L, "addmv", i, a, v, alpha=3.0), [(2,), (2, 3), (3,)],
         zero_d=False, empty=[(0,), (0, 3), (3,)]),
    Case("baddbmm", lambda L, i, a, b: op(L, "baddbmm", i, a, b, beta=2.0),
         [(1, 4), (3, 2, 5), (3, 5, 4)], zero_d=False, empty=[(1, 4), (0, 2, 5), (0, 5, 4)]),
    Case("addbmm", lambda L, i, a, b: op(L, "addbmm", i, a, b),
         [(2, 4), (3, 2, 5), (3, 5, 4)], zero_d=False, empty=[(2, 4), (0, 2, 5), (0, 5, 4)]),
    Case("cdist_p2", lambda L, a, b: op(L, "cdist", a, b), [(4, 3), (5, 3)],
         zero_d=False, empty=[(0, 3), (5, 3)]),
    Case("cdist_p1", lambda L, a, b: op(L, "cdist", a, b, 1.0), [(4, 3), (5, 3)], **NO0),
    Case("cdist_p3", lambda L, a, b: op(L, "cdist", a, b, 3.0), [(4, 3), (5, 3)], **NO0),
    Case("cdist_p_half", lambda L, a, b: op(L, "cdist", a, b, 0.5), [(4, 3), (5, 3)], **NO0),
    Case("cdist_pinf", lambda L, a, b: op(L, "cdist", a, b, INF), [(4, 3), (5, 3)], **NO0),
    Case("cdist_batched_broadcast", lambda L, a, b: op(L, "cdist", a, b),
         [(2, 1, 4, 3), (3, 5, 3)], zero_d=False, empty=False),
    Case("dist", lambda L, a, b: op(L, "dist", a, b), [(3, 4), (4,)], zero_d=[(), ()]),
    Case("dist_p3", lambda L, a, b: op(L, "dist", a, b, 3), [(3, 4), (3, 4)]),
    Case("addcmul", lambda L, i, a, b: op(L, "addcmul", i, a, b, value=0.5),
         [(3, 4), (4,), (3, 1)]),
    Case("addcdiv", lambda L, i, a, b: op(L, "addcdiv", i, a, b, value=-2.0),
         [(3, 4), (4,), (3, 1)]),
    Case("addcdiv_value1", lambda L, i, a, b: op(L, "addcdiv", i, a, b), [(3, 4)] * 3),
    Case("true_divide", lambda L, a, b: op(L, "true_divide", a, b), [(3, 4), (4,)]),
    Case("float_power", lambda L, a, b: op(L, "float_power", a, b), [(3, 4), (4,)],
         domain="positive"),
    Case("float_power_number", lambda L, a: op(L, "float_power", a, 3), [(3, 4)]),
    Case("logit", lambda L, a: op(L, "logit", a * 0.3), [(3, 4)], domain="positive"),
    Case("logit_eps", lambda L, a: op(L, "logit", a * 0.3, 0.2), [(3, 4)],
         domain="positive"),
    Case("nan_to_num_finite", lambda L, a: op(L, "nan_to_num", a), [(3, 4)]),
    Case("moveaxis", lambda L, a: op(L, "moveaxis", a, 0, -1), [(2, 3, 4)], **NO0),
    Case("swapdims", lambda L, a: op(L, "swapdims", a, 0, 2), [(2, 3, 4)], **NO0),
    Case("swapaxes", lambda L, a: op(L, "swapaxes", a, 1, 0), [(2, 3, 4)], **NO0),
    Case("unfold_method", lambda L, a: windows(L, a, 1, 3, 2), [(2, 7, 3)], **NO0),
    Case("unfold_method_overlapping", lambda L, a: windows(L, a, 0, 3, 1), [(6,)], **NO0),
]

(test_values_match_numpy, test_first_derivatives_pass_gradcheck,
 test_second_derivatives_pass_gradgradcheck, test_values_and_gradients_match_torch,
 test_second_derivatives_match_torch, test_create_graph_gradient_equals_plain_gradient,
 test_variant) = standard_op_tests(CASES)


def _torch():
    return pytest.importorskip("torch")


def _compare(fp, ft, *arrays, grad_seed=5, atol=1e-12):
    """Values and first gradients of pyad's fp and torch's ft on the same arrays."""
    torch = _torch()
    P = [pyad.tensor(a, requires_grad=a.dtype.kind == "f") for a in arrays]
    T = [torch.tensor(a, requires_grad=a.dtype.kind == "f") for a in arrays]
    out_p, out_t = fp(*P), ft(*T)
    assert out_p.shape == tuple(out_t.shape) and str(out_p.dtype) == \
        str(out_t.dtype).replace("torch.", "")
    np.testing.assert_allclose(out_p.data, out_t.detach().numpy(), rtol=1e-12, atol=atol)
    if out_t.requires_grad:
        g = np.random.default_rng(grad_seed).normal(size=tuple(out_t.shape))
        out_p.backward(pyad.tensor(g))
        out_t.backward(torch.tensor(g))
        for p, t in zip(P, T):
            if t.grad is not None:
                np.testing.assert_allclose(p.grad.data, t.grad.numpy(), rtol=1e-12, atol=atol)


TIES = np.array([[0.0, 0.0], [1.0, 1.0], [2.0, -2.0], [1.0, 3.0]])
CENTRES = np.array([[0.0, 0.0], [1.0, 3.0]])


@pytest.mark.parametrize("p", [0.0, 0.5, 1.0, 2.0, 3.0, INF])
@pytest.mark.parametrize("shapes", [((4, 3), (5, 3)), ((2, 1, 4, 3), (3, 5, 3)),
                                    ((0, 3), (2, 3)), ((2, 0), (3, 0))])
def test_cdist_matches_torch_cdist(p, shapes):
    torch = _torch()
    r = np.random.default_rng(3)
    _compare(lambda a, b: pyad.cdist(a, b, p), lambda a, b: torch.cdist(a, b, p),
             r.normal(size=shapes[0]), r.normal(size=shapes[1]))


@pytest.mark.parametrize("p", [0.0, 1.0, 2.0, 3.0, INF])
def test_cdist_at_zero_distances_and_ties_matches_torch(p):
    # zero distances (row 0 and column 0, row 3 and column 1) and |d| ties under inf
    torch = _torch()
    _compare(lambda a, b: pyad.cdist(a, b, p), lambda a, b: torch.cdist(a, b, p), TIES,
             CENTRES)


@pytest.mark.parametrize("p", [0.0, 1.0, INF])
def test_cdist_with_an_inf_coordinate_matches_torch(p):
    torch = _torch()
    x = np.array([[np.inf, 1.0], [2.0, -2.0]])
    with np.errstate(invalid="ignore"):
        _compare(lambda a, b: pyad.cdist(a, b, p), lambda a, b: torch.cdist(a, b, p), x,
                 CENTRES)


def test_cdist_float32_and_its_grad_fn():
    torch = _torch()
    a = np.random.default_rng(0).normal(size=(3, 2)).astype(np.float32)
    out = pyad.cdist(pyad.tensor(a, requires_grad=True), pyad.tensor(a))
    ref = torch.cdist(torch.tensor(a), torch.tensor(a))
    assert out.dtype == np.float32
    np.testing.assert_allclose(out.data, ref.numpy(), rtol=1e-5, atol=1e-6)


def test_logaddexp_at_infinities_and_nan_matches_torch():
    torch = _torch()
    a = np.array([0.0, 1000.0, -INF, INF, INF, -INF, 1.0, np.nan, -1000.0])
    b = np.array([0.0, 1000.0, -INF, 1.0, INF, 3.0, -INF, 1.0, 1000.0])
    with np.errstate(invalid="ignore"):
        _compare(pyad.logaddexp, torch.logaddexp, a, b)
        _compare(pyad.logaddexp2, torch.logaddexp2, a, b)


def test_logaddexp_refuses_integers_as_torch():
    with pytest.raises(NotImplementedError, match=r"logaddexp\(\): .*not implemented for 'Long'"):
        pyad.logaddexp(pyad.tensor([1, 2]), pyad.tensor([1, 2]))


def test_addmm_with_beta_zero_ignores_nan_input_and_gives_it_a_zero_gradient():
    torch = _torch()
    i = np.full((2, 4), np.nan)
    r = np.random.default_rng(1)
    _compare(lambda i, a, b: pyad.addmm(i, a, b, beta=0),
             lambda i, a, b: torch.addmm(i, a, b, beta=0), i, r.normal(size=(2, 3)),
             r.normal(size=(3, 4)))
    x = pyad.tensor(i, requires_grad=True)
    out = pyad.addmm(x, pyad.ones(2, 3, dtype=pyad.float64), pyad.ones(3, 4,
                                                                      dtype=pyad.float64),
                     beta=0)
    assert out.requires_grad and not np.isnan(out.data).any()
    out.sum().backward()
    np.testing.assert_array_equal(x.grad.data, np.zeros((2, 4)))


def test_repeat_interleave_forms_match_torch():
    torch = _torch()
    for counts in ([2, 0, 1], [0, 0], [], [3]):
        ours = pyad.repeat_interleave(pyad.tensor(counts, dtype=pyad.int64))
        theirs = torch.repeat_interleave(torch.tensor(counts, dtype=torch.int64))
        assert ours.tolist() == theirs.tolist() and ours.dtype == np.int64
    assert pyad.repeat_interleave(pyad.tensor([1, 2], dtype=pyad.int32)).dtype == np.int32
    x = np.arange(6.0).reshape(2, 3)
    _compare(lambda a: pyad.repeat_interleave(a, pyad.tensor([3]), dim=1),
             lambda a: torch.repeat_interleave(a, torch.tensor([3]), dim=1), x)
    _compare(lambda a: pyad.repeat_interleave(a, pyad.tensor(2), dim=0),
             lambda a: torch.repeat_interleave(a, torch.tensor(2), dim=0), x)
    _compare(lambda a: pyad.repeat_interleave(a, 0, dim=1),
             lambda a: torch.repeat_interleave(a, 0, dim=1), x)
    out = pyad.repeat_interleave(pyad.tensor(x), 2, dim=0, output_size=4)
    assert out.shape == (4, 3)


def test_diff_forms_match_torch():
    torch = _torch()
    assert pyad.diff(pyad.tensor([True, False, True, True])).tolist() == \
        torch.diff(torch.tensor([True, False, True, True])).tolist()
    ours = pyad.diff(pyad.arange(5), prepend=pyad.tensor([9]))
    theirs = torch.diff(torch.arange(5), prepend=torch.tensor([9]))
    assert ours.tolist() == theirs.tolist() and ours.dtype == np.int64
    x = np.random.default_rng(2).normal(size=(2, 3))
    _compare(lambda a: pyad.diff(a, dim=0, prepend=pyad.tensor([[7.0, 8.0, 9.0]],
                                                               dtype=pyad.float64)),
             lambda a: torch.diff(a, dim=0, prepend=torch.tensor([[7.0, 8.0, 9.0]],
                                                                 dtype=torch.float64)), x)
    _compare(lambda a: pyad.diff(a, n=0), lambda a: torch.diff(a, n=0), x)
    _compare(lambda a: pyad.diff(a, n=4), lambda a: torch.diff(a, n=4), x)


@pytest.mark.parametrize("call, torch_call, message", [
    (lambda: pyad.repeat_interleave(pyad.ones(2, 3), pyad.tensor([1, 2]), dim=1),
     lambda t: t.repeat_interleave(t.ones(2, 3), t.tensor([1, 2]), dim=1),
     "repeats must have the same size as input along dim"),
    (lambda: pyad.repeat_interleave(pyad.ones(2, 3), pyad.tensor([-1, 2]), dim=0),
     lambda t: t.repeat_interleave(t.ones(2, 3), t.tensor([-1, 2]), dim=0),
     "repeats can not be negative"),
    (lambda: pyad.repeat_interleave(pyad.ones(2, 3), -1),
     lambda t: t.repeat_interleave(t.ones(2, 3), -1), "Repeats must be non-negative"),
    (lambda: pyad.repeat_interleave(pyad.ones(2, 3), pyad.tensor([[1, 2]]), dim=0),
     lambda t: t.repeat_interleave(t.ones(2, 3), t.tensor([[1, 2]]), dim=0),
     "repeats must be 0-dim or 1-dim tensor"),
    (lambda: pyad.repeat_interleave(pyad.tensor([[1, 2]])),
     lambda t: t.repeat_interleave(t.tensor([[1, 2]])), "only accept 1D vector as repeat"),
    (lambda: pyad.diff(pyad.ones(5), prepend=pyad.tensor(9.0)),
     lambda t: t.diff(t.ones(5), prepend=t.tensor(9.0)), "same dimension as input"),
    (lambda: pyad.repeat_interleave(pyad.ones(2, 2), 2, output_size=5),
     lambda t: t.repeat_interleave(t.ones(2, 2), 2, output_size=5), "Invalid output_size"),
    (lambda: pyad.diff(pyad.tensor(1.0)), lambda t: t.diff(t.tensor(1.0)),
     "diff expects input to be at least one-dimensional"),
    (lambda: pyad.diff(pyad.ones(5), n=-1), lambda t: t.diff(t.ones(5), n=-1),
     "order must be non-negative"),
    (lambda: pyad.diff(pyad.ones(5), prepend=pyad.ones(1, 1)),
     lambda t: t.diff(t.ones(5), prepend=t.ones(1, 1)), "same dimension as input"),
    (lambda: pyad.diff(pyad.ones(2, 3), dim=0, prepend=pyad.ones(1, 2)),
     lambda t: t.diff(t.ones(2, 3), dim=0, prepend=t.ones(1, 2)),
     r"input.size\(1\) = 3, but got tensor.size\(1\) = 2"),
    (lambda: pyad.addmm(pyad.ones(4), pyad.ones(3), pyad.ones(3, 4)),
     lambda t: t.addmm(t.ones(4), t.ones(3), t.ones(3, 4)), "mat1 must be a matrix"),
    (lambda: pyad.addmm(pyad.ones(4), pyad.ones(2, 3), pyad.ones(4, 4)),
     lambda t: t.addmm(t.ones(4), t.ones(2, 3), t.ones(4, 4)),
     r"shapes cannot be multiplied \(2x3 and 4x4\)"),
    (lambda: pyad.addmm(pyad.ones(3, 2, 4), pyad.ones(2, 3), pyad.ones(3, 4)),
     lambda t: t.addmm(t.ones(3, 2, 4), t.ones(2, 3), t.ones(3, 4)), "size"),
    (lambda: pyad.addmm(pyad.ones(3), pyad.ones(2, 3), pyad.ones(3, 4)),
     lambda t: t.addmm(t.ones(3), t.ones(2, 3), t.ones(3, 4)), "size"),
    (lambda: pyad.addmm(pyad.ones(4, dtype=pyad.float64), pyad.ones(2, 3), pyad.ones(3, 4)),
     lambda t: t.addmm(t.ones(4, dtype=t.float64), t.ones(2, 3), t.ones(3, 4)),
     "same dtype"),
    (lambda: pyad.baddbmm(pyad.ones(4), pyad.ones(2, 3), pyad.ones(5, 3, 4)),
     lambda t: t.baddbmm(t.ones(4), t.ones(2, 3), t.ones(5, 3, 4)), "batch1 must be a 3D"),
    (lambda: pyad.cdist(pyad.ones(3), pyad.ones(2, 3)),
     lambda t: t.cdist(t.ones(3), t.ones(2, 3)), "cdist only supports at least 2D tensors"),
    (lambda: pyad.cdist(pyad.ones(2, 3), pyad.ones(2, 4)),
     lambda t: t.cdist(t.ones(2, 3), t.ones(2, 4)),
     "X1 and X2 must have the same number of columns. X1: 3 X2: 4"),
    (lambda: pyad.cdist(pyad.ones(2, 3), pyad.ones(2, 3), p=-1),
     lambda t: t.cdist(t.ones(2, 3), t.ones(2, 3), p=-1), "non-negative p values"),
    (lambda: pyad.cdist(pyad.ones(2, 3, dtype=pyad.int64), pyad.ones(2, 3, dtype=pyad.int64)),
     lambda t: t.cdist(t.ones(2, 3, dtype=t.long), t.ones(2, 3, dtype=t.long)),
     "floating-point dtypes, X1 got: Long"),
])
def test_bad_input_raises_as_torch_naming_the_op(call, torch_call, message):
    torch = _torch()
    with pytest.raises(RuntimeError, match=message):
        torch_call(torch)
    name = call.__code__.co_names[1]
    with pytest.raises(RuntimeError, match=r"%s\(\): .*%s" % (name, message)):
        call()


def test_repeat_interleave_refuses_float_repeats_as_torch():
    with pytest.raises(NotImplementedError, match="not implemented for 'Float'"):
        pyad.repeat_interleave(pyad.ones(3), pyad.tensor([1.0, 2.0, 1.0]))
    with pytest.raises(TypeError, match=r"repeat_interleave\(\)"):
        pyad.repeat_interleave(pyad.ones(3), 2.0)


def test_nan_to_num_at_non_finite_entries_matches_torch():
    torch = _torch()
    x = np.array([np.nan, INF, -INF, 1.0, 0.0, -2.5])
    _compare(pyad.nan_to_num, torch.nan_to_num, x)
    _compare(lambda a: pyad.nan_to_num(a, 1.0, 2.0, -3.0),
             lambda a: torch.nan_to_num(a, 1.0, 2.0, -3.0), x)
    _compare(lambda a: pyad.nan_to_num(a, posinf=7.0), lambda a: torch.nan_to_num(a, posinf=7.0),
             x.astype(np.float32).astype(np.float64))
    f32 = pyad.nan_to_num(pyad.tensor(x.astype(np.float32)))
    np.testing.assert_array_equal(f32.data, torch.nan_to_num(torch.tensor(
        x.astype(np.float32))).numpy())
    ints = pyad.tensor([1, 2])
    out = pyad.nan_to_num(ints)
    assert out.tolist() == [1, 2] and out.dtype == np.int64 and out.data is not ints.data


@pytest.mark.parametrize("eps", [None, 0.1])
def test_logit_at_and_past_the_domain_edges_matches_torch(eps):
    torch = _torch()
    p = np.array([0.0, 0.05, 0.1, 0.5, 0.9, 0.96, 1.0, 1.2, -0.1])
    with np.errstate(divide="ignore", invalid="ignore"):
        P = pyad.tensor(p, requires_grad=True)
        T = torch.tensor(p, requires_grad=True)
        out_p, out_t = pyad.logit(P, eps), torch.logit(T, eps)
        np.testing.assert_allclose(out_p.data, out_t.detach().numpy(), rtol=1e-12)
        out_p.sum().backward()
        out_t.sum().backward()
    np.testing.assert_allclose(P.grad.data, T.grad.numpy(), rtol=1e-12)
    assert pyad.logit(pyad.tensor([1, 0])).dtype == np.float32


def test_float_power_dtypes_match_torch():
    torch = _torch()
    for a, b in [(np.float32([2.0]), 2), (np.array([2]), np.array([-1])),
                 (np.float32([4.0]), np.float32([0.5]))]:
        ours = pyad.float_power(pyad.tensor(a), pyad.tensor(b) if isinstance(b, np.ndarray)
                                else b)
        theirs = torch.float_power(torch.tensor(a), torch.tensor(b) if isinstance(
            b, np.ndarray) else b)
        assert str(ours.dtype) == str(theirs.dtype).replace("torch.", "")
        np.testing.assert_allclose(ours.data, theirs.numpy(), rtol=1e-15)


def test_addcdiv_refuses_integers_as_torch():
    torch = _torch()
    with pytest.raises(RuntimeError, match="Integer division with addcdiv"):
        torch.addcdiv(torch.ones(2, dtype=torch.long), torch.ones(2, dtype=torch.long),
                      torch.ones(2, dtype=torch.long))
    with pytest.raises(RuntimeError, match=r"addcdiv\(\): Integer division with addcdiv"):
        pyad.addcdiv(pyad.ones(2, dtype=pyad.int64), pyad.ones(2, dtype=pyad.int64),
                     pyad.ones(2, dtype=pyad.int64))


def test_variable_unfold_edges_match_torch():
    torch = _torch()
    x = np.arange(5.0)
    for args in [(0, 2, 2), (0, 5, 1), (0, 0, 1), (0, 1, 3)]:
        assert pyad.tensor(x).unfold(*args).tolist() == torch.tensor(x).unfold(*args).tolist()
    assert pyad.tensor(3.0).unfold(0, 1, 1).tolist() == [3.0]
    with pytest.raises(RuntimeError, match=r"unfold\(\): maximum size for tensor at dimension 0 "
                       "is 5 but size is 6"):
        pyad.tensor(x).unfold(0, 6, 1)
    with pytest.raises(RuntimeError, match=r"unfold\(\): step is 0 but must be > 0"):
        pyad.tensor(x).unfold(0, 2, 0)


def test_small_variable_conveniences_match_torch():
    torch = _torch()
    x = np.array([[1.5, 2.0, 100.0]])
    for name in ("byte", "char", "short"):
        ours, theirs = getattr(pyad.tensor(x), name)(), getattr(torch.tensor(x), name)()
        assert str(ours.dtype) == str(theirs.dtype).replace("torch.", "")
        assert ours.tolist() == theirs.tolist()
    v = pyad.ones(2, 3, requires_grad=True)
    assert v.ndimension() == torch.ones(2, 3).ndimension() == 2
    s = v.sum_to_size(1, 3)
    assert s.shape == (1, 3) and s.tolist() == torch.ones(2, 3).sum_to_size(1, 3).tolist()
    s.sum().backward()
    assert v.grad.tolist() == [[1.0] * 3] * 2
    assert v.sum_to_size((2, 1)).shape == (2, 1)
    assert v.pin_memory() is v and v.is_pinned() is False
