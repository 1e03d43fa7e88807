"""pyad.autograd.forward_ad against torch.autograd.forward_ad: each function is written
once against a library ``L`` (pyad or torch) and run on both with the same primals and
tangents; primals, tangents (values, dtypes, shapes, None-ness) and error types must
agree. Tangents are also checked against finite differences, and the tangent's own
gradients by gradcheck and gradgradcheck in float64."""
import numpy as np
import pytest

import pyad
import pyad.nn.functional
from pyad.autograd import forward_ad as pfw
from pyad.autograd import gradcheck, gradgradcheck

torch = pytest.importorskip("torch")
import torch.autograd.forward_ad as tfw  # noqa: E402  (after the skip)
import torch.nn.functional  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore:`torch.jit.script` is deprecated")
LIBS = (pyad, torch)


def fw(L):
    return pfw if L is pyad else tfw


def F(L):
    return pyad.nn.functional if L is pyad else torch.nn.functional


def make(L, array, requires_grad=False):
    array = np.array(array)
    t = pyad.tensor(array) if L is pyad else torch.tensor(array)
    return t.requires_grad_() if requires_grad else t


def as_np(t):
    if isinstance(t, torch.Tensor):
        return np.array(t.detach().numpy())
    return np.array(t.detach().data)


@pytest.fixture(autouse=True)
def _no_level_left():
    yield
    assert pfw._current_level == -1


def rng(seed=0):
    return np.random.default_rng(seed)


def run(L, func, primals, tangents, requires_grad=False):
    """``[(primal, tangent)]`` of each output of ``func(L, *duals)``."""
    with fw(L).dual_level():
        duals = [fw(L).make_dual(make(L, p, requires_grad), make(L, t))
                 for p, t in zip(primals, tangents)]
        outs = func(L, *duals)
        outs = outs if isinstance(outs, tuple) else (outs,)
        return [tuple(fw(L).unpack_dual(o)) for o in outs]


def compare(func, primals, tangents, rtol=1e-10, atol=1e-12, requires_grad=False):
    got, want = (run(L, func, primals, tangents, requires_grad) for L in LIBS)
    assert len(got) == len(want)
    for (gp, gt), (wp, wt) in zip(got, want):
        assert str(gp.dtype).split(".")[-1] == str(wp.dtype).split(".")[-1]
        assert tuple(gp.shape) == tuple(wp.shape)
        assert gp.requires_grad == wp.requires_grad
        np.testing.assert_allclose(as_np(gp), as_np(wp), rtol=rtol, atol=atol)
        assert (gt is None) == (wt is None)
        if wt is not None:
            assert str(gt.dtype).split(".")[-1] == str(wt.dtype).split(".")[-1]
            assert tuple(gt.shape) == tuple(wt.shape)
            np.testing.assert_allclose(as_np(gt), as_np(wt), rtol=rtol, atol=atol)
    return got


def mlp(L, x, w1, b1, w2):
    h = F(L).gelu(F(L).linear(x, w1, b1))
    return F(L).log_softmax(h @ w2, dim=-1)


CASES = {
    "sin_exp": (lambda L, x: x.sin() * x.exp(), [(3, 4)]),
    "div_pow": (lambda L, x, y: (x / (y * y + 1)) ** 3, [(3, 4), (3, 4)]),
    "tanh_sigmoid": (lambda L, x: L.tanh(x) + L.sigmoid(2 * x), [(5,)]),
    "matmul": (lambda L, a, b: a @ b, [(3, 4), (4, 2)]),
    "batched_matmul": (lambda L, a, b: L.matmul(a, b), [(2, 3, 4), (4, 5)]),
    "sum_mean": (lambda L, x: (x.sum(dim=1), x.mean(), x.sum(dim=0, keepdim=True)),
                 [(3, 4)]),
    "amax_logsumexp": (lambda L, x: (x.amax(dim=1), L.logsumexp(x, dim=0)), [(3, 4)]),
    "norm_prod": (lambda L, x: (x.norm(), x.prod(dim=1)), [(3, 4)]),
    "broadcast": (lambda L, x, y: x[:, None] * y + y, [(3,), (4,)]),
    "scalar_broadcast": (lambda L, x, y: x * y, [(), (2, 3)]),
    "views": (lambda L, x: (x.t(), x[1:, ::2], x.reshape(2, 6), x.unsqueeze(0).expand(2, 3, 4)),
              [(3, 4)]),
    "indexing": (lambda L, x: (x[[0, 2]], x[x.detach() > 0], x[:, 1]), [(3, 4)]),
    "cat_stack": (lambda L, x, y: (L.cat([x, y]), L.stack([x, y], dim=1)), [(3,), (3,)]),
    "where_clamp": (lambda L, x: (L.where(x > 0, x * x, -x), x.clamp(-0.5, 0.5)), [(7,)]),
    "softmax_family": (lambda L, x: (F(L).softmax(x, dim=1), F(L).log_softmax(x, dim=0)),
                       [(3, 4)]),
    "activations": (lambda L, x: (F(L).relu(x), F(L).gelu(x), F(L).softplus(x),
                                  F(L).elu(x), F(L).silu(x)), [(6,)]),
    "losses": (lambda L, x, y: (F(L).mse_loss(x, y), F(L).smooth_l1_loss(x, y)),
               [(3, 4), (3, 4)]),
    "linear": (lambda L, x, w, b: F(L).linear(x, w, b), [(2, 3), (4, 3), (4,)]),
    "conv1d": (lambda L, x, w: F(L).conv1d(x, w, padding=1), [(2, 3, 6), (4, 3, 3)]),
    "mlp": (mlp, [(5, 3), (4, 3), (4,), (4, 2)]),
    "zero_d": (lambda L, x: (x * x).exp(), [()]),
    "empty": (lambda L, x: (x.exp(), x.sum(dim=0)), [(0, 3)]),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_torch(name):
    func, shapes = CASES[name]
    g = rng(sum(map(ord, name)))
    primals = [g.standard_normal(s) for s in shapes]
    tangents = [g.standard_normal(s) for s in shapes]
    compare(func, primals, tangents)


def test_matches_torch_cross_entropy():
    g = rng(3)
    target = g.integers(0, 4, size=5)

    def func(L, x):
        return F(L).cross_entropy(x, make(L, target)), F(L).nll_loss(x.log_softmax(1),
                                                                       make(L, target))
    compare(func, [g.standard_normal((5, 4))], [g.standard_normal((5, 4))])


@pytest.mark.parametrize("name", ["sin_exp", "matmul", "mlp", "broadcast", "views"])
def test_against_finite_differences(name):
    func, shapes = CASES[name]
    g = rng(7)
    primals = [g.standard_normal(s) for s in shapes]
    tangents = [g.standard_normal(s) for s in shapes]
    got = run(pyad, func, primals, tangents)
    eps = 1e-6

    def values(shift):
        ins = [pyad.tensor(p + shift * t) for p, t in zip(primals, tangents)]
        outs = func(pyad, *ins)
        return [as_np(o) for o in (outs if isinstance(outs, tuple) else (outs,))]
    for (_, tangent), hi, lo in zip(got, values(eps), values(-eps)):
        np.testing.assert_allclose(as_np(tangent), (hi - lo) / (2 * eps), rtol=1e-6, atol=1e-7)


def test_float32_preserved_and_mixed_tangent_dtype():
    g = rng(1)
    x = g.standard_normal((3, 4)).astype(np.float32)
    t = g.standard_normal((3, 4)).astype(np.float32)
    got = compare(lambda L, x: (x.sin() @ x.t()), [x], [t], rtol=1e-5, atol=1e-6)
    assert got[0][1].dtype == pyad.float32
    for L in LIBS:   # a float32 tangent on a float64 primal: kept as-is on the dual itself,
        with fw(L).dual_level():   # float64 tangents on what is computed from it
            d = fw(L).make_dual(make(L, x.astype(np.float64)), make(L, t))
            assert fw(L).unpack_dual(d).tangent.dtype == (pyad.float32 if L is pyad else
                                                          torch.float32)
            assert fw(L).unpack_dual(d * 2).tangent.dtype == (pyad.float64 if L is pyad else
                                                              torch.float64)


def test_non_contiguous_primal_and_tangent():
    g = rng(2)
    x, t = g.standard_normal((4, 6)), g.standard_normal((6, 4))
    results = []
    for L in LIBS:
        with fw(L).dual_level():
            d = fw(L).make_dual(make(L, x)[:, ::2], make(L, t).t()[:, ::2])
            results.append([as_np(v) for v in fw(L).unpack_dual((d * d).cumsum(1))])
    for a, b in zip(*results):
        np.testing.assert_allclose(a, b, rtol=1e-12)


def test_unpack_dual_of_the_dual_and_cache():
    x = np.array([1., 2., 3.])
    for L in LIBS:
        with fw(L).dual_level():
            xt, tt = make(L, x), make(L, [0.5, 1., 2.])
            d = fw(L).make_dual(xt, tt)
            primal, tangent = fw(L).unpack_dual(d)
            assert tangent is tt
            assert primal.data_ptr() == xt.data_ptr() == d.data_ptr()
            assert not primal.requires_grad
            y = d.exp()
            first = fw(L).unpack_dual(y).tangent
            assert fw(L).unpack_dual(y).tangent is first
            assert type(fw(L).unpack_dual(y)).__name__ == "UnpackedDualTensor"
            assert fw(L).unpack_dual(y)._fields == ("primal", "tangent")


@pytest.mark.parametrize("requires_grad", [False, True])
def test_primal_carries_no_tangent(requires_grad):
    g = rng(4)
    x, t = g.standard_normal(3), g.standard_normal(3)
    compare(lambda L, d: fw(L).unpack_dual(d).primal * d, [x], [t], requires_grad=requires_grad)
    compare(lambda L, d: fw(L).unpack_dual(d.sin()).primal.exp(), [x], [t],
            requires_grad=requires_grad)


@pytest.mark.parametrize("name", ["mlp", "views", "indexing", "where_clamp"])
def test_matches_torch_with_primals_requiring_grad(name):
    func, shapes = CASES[name]
    g = rng(12)
    compare(func, [g.standard_normal(s) for s in shapes], [g.standard_normal(s) for s in shapes],
            requires_grad=True)


def test_tangent_none_cases():
    x = np.array([1., -2., 3.])
    for L in LIBS:
        with fw(L).dual_level():
            plain = make(L, x)
            d = fw(L).make_dual(make(L, x), make(L, np.ones(3)))
            assert fw(L).unpack_dual(plain).tangent is None
            assert fw(L).unpack_dual(plain.exp()).tangent is None
            assert fw(L).unpack_dual(d > 0).tangent is None
            assert fw(L).unpack_dual(d.argmax()).tangent is None
            assert fw(L).unpack_dual(d.detach()).tangent is None
            assert fw(L).unpack_dual(fw(L).unpack_dual(d).primal).tangent is None
            leaf = make(L, x, requires_grad=True)
            primal = fw(L).unpack_dual(fw(L).make_dual(leaf, make(L, x)).sin()).primal
            assert primal.requires_grad and fw(L).unpack_dual(primal).tangent is None
            zero = fw(L).unpack_dual(d * 0).tangent
            assert zero is not None and not as_np(zero).any()
            y = d * d
        assert fw(L).unpack_dual(y).tangent is None       # gone after exit
        assert fw(L).unpack_dual(y).primal is y           # outside a level: as given
        assert fw(L).unpack_dual(3.0) == (3.0, None)


def test_inplace_on_and_into_duals():
    g = rng(5)
    x, t, z = g.standard_normal(3), g.standard_normal(3), g.standard_normal(3)

    def func(L, d):
        u = make(L, z)
        u.add_(d)
        v = make(L, np.zeros(3))
        v.copy_(d * 3)
        w = d.clone()
        w.mul_(2)
        return u, v, w * w
    compare(func, [x], [t])


def test_reverse_mode_through_duals():
    g = rng(6)
    x, t, w = g.standard_normal(4), g.standard_normal(4), g.standard_normal(4)
    grads = []
    for L in LIBS:
        xt, wt = make(L, x, requires_grad=True), make(L, w, requires_grad=True)
        with fw(L).dual_level():
            d = fw(L).make_dual(xt, make(L, t))
            out = (d.sin() * wt).sum()
            primal, tangent = fw(L).unpack_dual(out)
            assert primal.requires_grad and tangent.requires_grad
            (primal + tangent).backward()
        grads.append((as_np(xt.grad), as_np(wt.grad)))
    for a, b in zip(*grads):
        np.testing.assert_allclose(a, b, rtol=1e-12)


def test_gradients_of_the_tangent_match_torch():
    g = rng(8)
    x, t = g.standard_normal((2, 3)), g.standard_normal((2, 3))
    grads = []
    for L in LIBS:
        xt, tt = make(L, x, requires_grad=True), make(L, t, requires_grad=True)
        with fw(L).dual_level():
            d = fw(L).make_dual(xt, tt)
            tangent = fw(L).unpack_dual((d.exp() * d).sum(1)).tangent
            gx, gt = L.autograd.grad(tangent.pow(2).sum(), (xt, tt))
        grads.append((as_np(gx), as_np(gt)))
    for a, b in zip(*grads):
        np.testing.assert_allclose(a, b, rtol=1e-11)


def _tangent_fn(func):
    def fn(x, t):
        with pfw.dual_level():
            return pfw.unpack_dual(func(pfw.make_dual(x, t))).tangent
    return fn


@pytest.mark.parametrize("func", [lambda d: d.sin() * d, lambda d: (d @ d.t()).logsumexp(0),
                                  lambda d: pyad.nn.functional.softmax(d, dim=1)])
def test_tangent_gradcheck_and_gradgradcheck(func):
    g = rng(9)
    x = pyad.tensor(g.standard_normal((2, 3)), requires_grad=True)
    t = pyad.tensor(g.standard_normal((2, 3)), requires_grad=True)
    assert gradcheck(_tangent_fn(func), (x, t))
    assert gradgradcheck(_tangent_fn(func), (x, t))


def test_primal_gradcheck():
    g = rng(10)
    x = pyad.tensor(g.standard_normal(3), requires_grad=True)
    t = pyad.tensor(g.standard_normal(3))

    def fn(x):
        with pfw.dual_level():
            return pfw.unpack_dual(pfw.make_dual(x, t).exp() * x).primal
    assert gradcheck(fn, (x,))
    assert gradgradcheck(fn, (x,))


def test_several_duals_and_levels_in_sequence():
    g = rng(11)
    a, b, ta, tb = (g.standard_normal(3) for _ in range(4))
    compare(lambda L, x, y: (x * y, x.exp(), y - x), [a, b], [ta, tb])
    for L in LIBS:   # a second level starts clean, with the same number
        for _ in range(2):
            with fw(L).dual_level() as level:
                assert level == 0


def test_dual_level_decorator():
    for L in LIBS:
        @fw(L).dual_level()
        def f(x):
            return fw(L).unpack_dual(fw(L).make_dual(x, x.clone()) ** 2).tangent
        np.testing.assert_allclose(as_np(f(make(L, [1., 2.]))), [2., 8.])


def errors(L):
    x = make(L, [1., 2., 3.])
    t = make(L, [1., 1., 1.])
    return [
        lambda: fw(L).make_dual(x, t),
        lambda: fw(L).exit_dual_level(),
    ], [
        lambda: fw(L).enter_dual_level(),
        lambda: fw(L).make_dual(x, make(L, [1., 2.])),
        lambda: fw(L).make_dual(x, make(L, [1.])),
        lambda: fw(L).make_dual(make(L, [1, 2, 3]), make(L, [1, 2, 3])),
        lambda: fw(L).make_dual(x, make(L, [1, 2, 3])),
        lambda: fw(L).make_dual(x, t, level=1),
        lambda: fw(L).make_dual(x, t, level=-1),
        lambda: fw(L).make_dual(fw(L).make_dual(x, t), t),
        lambda: fw(L).make_dual(fw(L).make_dual(x, t) * 2, t),
        lambda: fw(L).unpack_dual(fw(L).make_dual(x, t), level=3),
        lambda: fw(L).unpack_dual(3.0),
        lambda: fw(L).make_dual(3.0, t),
        lambda: fw(L).make_dual(x, np.ones(3)),
        lambda: fw(L).exit_dual_level(level=1),
    ]


def _kind(call):
    try:
        call()
    except Exception as exc:  # noqa: BLE001
        return type(exc), str(exc)
    return None, ""


def test_errors_match_torch():
    outside_p, inside_p = errors(pyad)
    outside_t, inside_t = errors(torch)
    for p, t in zip(outside_p, outside_t):
        (kp, mp), (kt, _) = _kind(p), _kind(t)
        assert kt is not None and kp is kt, (mp, kt)
    with pfw.dual_level(), tfw.dual_level():
        for p, t in zip(inside_p, inside_t):
            (kp, mp), (kt, _) = _kind(p), _kind(t)
            assert kt is not None and kp is kt, (mp, kt)
            assert mp.startswith(("make_dual()", "unpack_dual()", "enter_dual_level()",
                                  "exit_dual_level()")), mp


def test_exit_inside_with_raises_and_level_survives():
    with pfw.dual_level():
        with pytest.raises(RuntimeError, match="not the last one"):
            pfw.exit_dual_level(level=1)
        d = pfw.make_dual(pyad.tensor([1.]), pyad.tensor([2.]))
        assert pfw.unpack_dual(d * 3).tangent.item() == 6.0


@pytest.mark.parametrize("dtype", ["complex128", "float16"])
def test_other_float_dtypes(dtype):
    x = np.array([1. + 2j, -0.5 + 1j, 3. - 1j] if dtype == "complex128" else [1., -.5, 3.],
                 dtype=dtype)
    tol = dict(rtol=1e-12, atol=1e-12) if dtype == "complex128" else dict(rtol=1e-3, atol=1e-3)
    compare(lambda L, d: (d * d * 2, d.sum()), [x], [x[::-1].copy()], **tol)
    if dtype == "complex128":   # not holomorphic: the conjugation convention must agree
        compare(lambda L, d: (d.abs(), d.conj() * d, d.exp()), [x], [x[::-1] * 1j], **tol)


def test_namespace():
    import pyad.autograd
    assert pyad.autograd.forward_ad is pfw
    assert set(pfw.__all__) == set(tfw.__all__)


# -- forward grad mode off (torch's private _set_fwd_grad_enabled) -------------------

def _fwd_off_run(fw, lib, x_np, t_np):
    """What torch's forward grad mode switch does, as a list of tangents (None or
    arrays): made duals keep their tangent, unpack_dual gives none while off, ops run
    while off pass none on (their outputs are constants), a Function's jvp is skipped."""
    x = lib.tensor(x_np)
    t = lib.tensor(t_np)
    out = []

    def tangent(v):
        got = fw.unpack_dual(v).tangent
        out.append(None if got is None else got.detach().numpy().copy())

    with fw.dual_level():
        with fw._set_fwd_grad_enabled(False):
            d_off = fw.make_dual(x, t)
            tangent(d_off)                      # none while off
        tangent(d_off)                          # the tangent given, once back on
        d = fw.make_dual(x * 1.5, t * 2)
        with fw._set_fwd_grad_enabled(False):
            y = d * 2                           # a constant of forward mode
            e = d.exp()
            tangent(e)
        tangent(y)
        tangent(e)
        tangent(y * d)                          # y held constant: y * t_d
        tangent(y.sin() + d.cos() * e)          # a mix of both
        tangent(d.exp())                        # on again: propagates
    return out


def test_fwd_grad_off_matches_torch():
    rng = np.random.default_rng(7)
    x_np, t_np = rng.standard_normal(4), rng.standard_normal(4)
    ours = _fwd_off_run(pfw, pyad, x_np, t_np)
    theirs = _fwd_off_run(tfw, torch, x_np, t_np)
    assert [o is None for o in ours] == [o is None for o in theirs]
    for a, b in zip(ours, theirs):
        if b is not None:
            np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)


def test_fwd_grad_switch_state_and_decorator():
    assert pfw._is_fwd_grad_enabled() and pyad._C._is_fwd_grad_enabled()

    @pfw._set_fwd_grad_enabled(False)
    def inside():
        return pfw._is_fwd_grad_enabled()

    # (torch's switch is set when made: the decorator's construction turns it off)
    pyad._C._set_fwd_grad_enabled(True)
    assert inside() is False
    assert pfw._is_fwd_grad_enabled()
    try:
        pyad._C._set_fwd_grad_enabled(False)
        with pfw.dual_level():
            d = pfw.make_dual(pyad.tensor([1.0, 2.0], dtype=pyad.float64),
                              pyad.tensor([1.0, 1.0], dtype=pyad.float64))
            assert pfw.unpack_dual(d.exp()).tangent is None
            pyad._C._set_fwd_grad_enabled(True)
            # made while off, the dual still carries its tangent; exp ran while off
            assert pfw.unpack_dual(d).tangent.tolist() == [1.0, 1.0]
            np.testing.assert_allclose(pfw.unpack_dual(d * 3).tangent.numpy(), [3.0, 3.0])
    finally:
        pyad._C._set_fwd_grad_enabled(True)


def test_fwd_grad_off_skips_custom_jvp():
    calls = []

    class Double(pyad.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2

        @staticmethod
        def jvp(ctx, t):
            calls.append(1)
            return t * 2

    x = pyad.tensor([1.0, 2.0], dtype=pyad.float64)
    with pfw.dual_level():
        d = pfw.make_dual(x, pyad.ones(2, dtype=pyad.float64))
        with pfw._set_fwd_grad_enabled(False):
            y = Double.apply(d)
        assert calls == []
        assert pfw.unpack_dual(y).tangent is None
        z = Double.apply(d)
        assert calls == [1]
        assert pfw.unpack_dual(z).tangent.tolist() == [2.0, 2.0]


@pytest.mark.parametrize("kw", [{"padding_idx": 2}, {"scale_grad_by_freq": True},
                                {"padding_idx": -1, "scale_grad_by_freq": True}])
def test_embedding_tangent_and_grad_in_a_level_match_torch(kw):
    # torch's forward formula looks the weight's tangent up, padding row included and
    # unscaled; the reverse-mode gradient inside the level still zeroes and scales
    rng = np.random.default_rng(3)
    w, t = rng.standard_normal((5, 3)), rng.standard_normal((5, 3))
    g = rng.standard_normal((2, 3, 3))
    idx = np.array([[0, 2, 2], [4, 2, 1]])
    results = []
    for lib, fw in ((pyad, pfw), (torch, tfw)):
        weight = lib.tensor(w, requires_grad=True)
        with fw.dual_level():
            d = fw.make_dual(weight, lib.tensor(t))
            out = lib.nn.functional.embedding(lib.tensor(idx), d, **kw)
            tangent = fw.unpack_dual(out).tangent.detach().numpy().copy()
            out.backward(lib.tensor(g))
        results.append((out.detach().numpy().copy(), tangent, weight.grad.numpy().copy()))
    for ours, theirs in zip(*results):
        np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=1e-12)

