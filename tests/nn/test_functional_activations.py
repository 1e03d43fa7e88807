"""pyad.nn.functional activations (and pyad.softmax & co.) against torch.nn.functional."""
import numpy as np
import pytest

import pyad
import pyad.nn.functional as F
from _nn_helpers import Case, standard_nn_tests

_1D = dict(zero_d=[()], empty=[(0,)])
_2D = dict(zero_d=[()], empty=[(0, 4)])

CASES = [
    Case("relu", lambda L, x: L.F.relu(x), [(3, 4)], **_2D),
    Case("sigmoid", lambda L, x: L.F.sigmoid(x), [(3, 4)], **_2D),
    Case("tanh", lambda L, x: L.F.tanh(x), [(3, 4)], **_2D),
    Case("gelu", lambda L, x: L.F.gelu(x), [(3, 4)], **_2D),
    Case("gelu_tanh", lambda L, x: L.F.gelu(x, approximate="tanh"), [(3, 4)], **_2D),
    Case("silu", lambda L, x: L.F.silu(x), [(3, 4)], **_2D),
    Case("elu", lambda L, x: L.F.elu(x), [(3, 4)], **_2D),
    Case("elu_alpha", lambda L, x: L.F.elu(x, alpha=0.4), [(5,)], **_1D),
    Case("leaky_relu", lambda L, x: L.F.leaky_relu(x), [(3, 4)], **_2D),
    Case("leaky_relu_slope", lambda L, x: L.F.leaky_relu(x, 0.3), [(5,)], **_1D),
    Case("softplus", lambda L, x: L.F.softplus(x), [(3, 4)], **_2D),
    Case("softplus_beta_threshold", lambda L, x: L.F.softplus(x * 3, beta=2.0, threshold=2.5),
         [(3, 4)], **_2D),
    Case("hardtanh", lambda L, x: L.F.hardtanh(x * 2), [(3, 4)], **_2D),
    Case("hardtanh_bounds", lambda L, x: L.F.hardtanh(x, -0.7, 1.2), [(5,)], **_1D),
    Case("logsigmoid", lambda L, x: L.F.logsigmoid(x), [(3, 4)], **_2D),
    Case("softmax_dim1", lambda L, x: L.F.softmax(x, dim=1), [(3, 4)],
         empty=[(0, 4)]),
    Case("softmax_dim0", lambda L, x: L.F.softmax(x, 0), [(3, 4)], zero_d=[()]),
    Case("softmax_3d_middle", lambda L, x: L.F.softmax(x, dim=1), [(2, 3, 4)],
         empty=[(0, 3, 4)]),
    Case("log_softmax_dim1", lambda L, x: L.F.log_softmax(x, dim=1), [(3, 4)],
         empty=[(0, 4)]),
    Case("softmax_of_softmax", lambda L, x: L.F.softmax(L.F.softmax(x, -1) * 3, 0), [(3, 4)]),
    Case("softmin_dim1", lambda L, x: L.F.softmin(x, dim=1), [(3, 4)], empty=[(0, 4)]),
    Case("lib_softmax", lambda L, x: L.lib.softmax(x, -1), [(3, 4)]),
    Case("method_softmax", lambda L, x: x.softmax(-1), [(3, 4)]),
    Case("method_log_softmax", lambda L, x: x.log_softmax(0), [(3, 4)]),
    # piecewise and composite activations (inputs scaled to reach past their kinks)
    Case("relu6", lambda L, x: L.F.relu6(x * 5), [(3, 4)], **_2D),
    # torch's hardsigmoid gradient is 1/6 rounded to float32 and it has no second
    # derivative; its exact equivalent relu6(x + 3) / 6 is the reference here
    # (hardsigmoid itself is compared at its kinks below)
    Case("hardsigmoid", lambda L, x: (L.F.hardsigmoid(x * 4) if L.name == "pyad"
                                      else L.F.relu6(x * 4 + 3) / 6), [(3, 4)], **_2D),
    Case("hardswish", lambda L, x: L.F.hardswish(x * 4), [(3, 4)], **_2D),
    Case("selu", lambda L, x: L.F.selu(x * 2), [(3, 4)], **_2D),
    Case("celu", lambda L, x: L.F.celu(x * 2), [(3, 4)], **_2D),
    Case("celu_alpha", lambda L, x: L.F.celu(x, alpha=0.4), [(5,)], **_1D),
    Case("celu_negative_alpha", lambda L, x: L.F.celu(x, -0.7), [(5,)], **_1D),
    Case("mish", lambda L, x: L.F.mish(x * 3), [(3, 4)], **_2D),
    Case("softsign", lambda L, x: L.F.softsign(x * 2), [(3, 4)], **_2D),
    Case("tanhshrink", lambda L, x: L.F.tanhshrink(x), [(3, 4)], **_2D),
    Case("softshrink", lambda L, x: L.F.softshrink(x * 2), [(3, 4)], **_2D),
    Case("softshrink_lambd", lambda L, x: L.F.softshrink(x, lambd=0.9), [(5,)], **_1D),
    Case("hardshrink", lambda L, x: L.F.hardshrink(x * 0.8), [(3, 4)], **_2D),
    Case("hardshrink_lambd", lambda L, x: L.F.hardshrink(x, lambd=1.0), [(5,)], **_1D),
    Case("threshold", lambda L, x: L.F.threshold(x, 0.8, -2.5), [(3, 4)], **_2D),
    Case("threshold_kw", lambda L, x: L.F.threshold(x, threshold=-1.0, value=0.0), [(5,)],
         **_1D),
    Case("glu", lambda L, x: L.F.glu(x), [(3, 4)], zero_d=False, empty=[(0, 4)]),
    Case("glu_dim0", lambda L, x: L.F.glu(x, dim=0), [(4, 3)], zero_d=False,
         empty=[(2, 0)]),
    Case("glu_3d", lambda L, x: L.F.glu(x, 1), [(2, 6, 3)], zero_d=False),
]

test_matches_torch_and_finite_differences, test_variant = standard_nn_tests(CASES)


def _torch():
    return pytest.importorskip("torch")


SPECIAL = np.array([-30.0, -3.0, -1.0, -1e-3, 0.0, 1e-3, 1.0, 3.0, 30.0])


@pytest.mark.parametrize("name, args, kwargs", [
    ("gelu", (), {}), ("gelu", (), {"approximate": "tanh"}), ("silu", (), {}),
    ("elu", (0.5,), {}), ("leaky_relu", (0.2,), {}), ("softplus", (), {}),
    ("softplus", (2.0, 1.0), {}), ("hardtanh", (-1.0, 1.0), {}), ("logsigmoid", (), {}),
    ("relu", (), {}),
])
def test_special_points_and_edges_match_torch(name, args, kwargs):
    # zero, the hardtanh edges, the softplus threshold, large magnitudes
    torch = _torch()
    pts = np.concatenate([SPECIAL, [-1.0, 1.0, 0.5, 10.0, 20.0, 20.5]])
    x = pyad.tensor(pts, requires_grad=True)
    t = torch.tensor(pts, requires_grad=True)
    y = getattr(F, name)(x, *args, **kwargs)
    ty = getattr(torch.nn.functional, name)(t, *args, **kwargs)
    np.testing.assert_allclose(y.data, ty.detach().numpy(), rtol=1e-10, atol=1e-12)
    g, = pyad.grad(y.sum(), [x], create_graph=True)
    tg, = torch.autograd.grad(ty.sum(), [t], create_graph=True)
    np.testing.assert_allclose(g.data, tg.detach().numpy(), rtol=1e-10, atol=1e-12)
    if g.requires_grad:
        gg, = pyad.grad(g.sum(), [x])
        tgg, = torch.autograd.grad(tg.sum(), [t]) if tg.requires_grad else (torch.zeros(1),)
        np.testing.assert_allclose(gg.data, tgg.numpy(), rtol=1e-10, atol=1e-12)


def test_large_inputs_do_not_overflow():
    x = pyad.tensor([-1000.0, 1000.0], requires_grad=True)
    with np.errstate(over="raise", invalid="raise", divide="raise"):
        for f in (F.elu, F.softplus, F.logsigmoid, F.silu):
            y = f(x)
            assert np.isfinite(y.data).all()
            g, = pyad.grad(y.sum(), [x], create_graph=True)
            assert np.isfinite(g.data).all(), f
    np.testing.assert_array_equal(F.logsigmoid(x).data, [-1000.0, 0.0])
    np.testing.assert_array_equal(F.softmax(x, 0).data, [0.0, 1.0])


def test_functional_reexports_the_pyad_ops():
    for name in ("gelu", "softplus", "logsigmoid", "sigmoid", "tanh", "pad"):
        assert getattr(F, name) is getattr(pyad, name)


def test_methods_follow_torch():
    x = pyad.tensor([[1.0, 2.0]])
    np.testing.assert_array_equal(x.softmax(1).data, pyad.softmax(x, 1).data)
    for name in ("gelu", "silu", "elu", "leaky_relu", "softplus", "hardtanh", "logsigmoid"):
        assert not hasattr(x, name), name       # torch.Tensor has none of these


@pytest.mark.parametrize("name, args", [("relu", ()), ("elu", (0.5,)),
                                        ("leaky_relu", (0.2,)), ("hardtanh", (-0.5, 0.5)),
                                        ("silu", ())])
def test_inplace_flag_matches_torch(name, args):
    torch = _torch()
    a = np.array([-2.0, -0.3, 0.2, 1.5])
    x = pyad.tensor(a, requires_grad=True)
    t = torch.tensor(a, requires_grad=True)
    h = x * 2
    th = t * 2
    y = getattr(F, name)(h, *args, inplace=True)
    ty = getattr(torch.nn.functional, name)(th, *args, inplace=True)
    assert y is h
    np.testing.assert_allclose(h.data, th.detach().numpy(), rtol=1e-15)
    (y * y).sum().backward()
    (ty * ty).sum().backward()
    np.testing.assert_allclose(x.grad.data, t.grad.numpy(), rtol=1e-14)


def test_inplace_on_leaf_requiring_grad_raises():
    x = pyad.tensor([1.0, -1.0], requires_grad=True)
    with pytest.raises(RuntimeError):
        F.elu(x, inplace=True)


def test_bad_arguments_raise_naming_the_op():
    x = pyad.tensor([1.0])
    with pytest.raises(RuntimeError, match=r"gelu\(\)"):
        F.gelu(x, approximate="fast")
    with pytest.raises(ValueError, match=r"hardtanh\(\)"):
        F.hardtanh(x, 1.0, -1.0)
    with pytest.raises(RuntimeError, match=r"softmax\(\)"):
        F.softmax(pyad.tensor([1, 2]), 0)
    with pytest.raises(IndexError):
        F.softmax(x, 3)
    with pytest.raises(RuntimeError, match=r"elu\(\)"):
        F.elu(pyad.tensor([1, 2]))


def test_softmax_dtype_argument():
    x = pyad.tensor(np.array([1.0, 2.0], np.float32), requires_grad=True)
    y = F.softmax(x, 0, dtype=pyad.float64)
    assert y.dtype == np.float64
    y[0].backward()
    assert x.grad.dtype == np.float32


def test_softmax_rows_sum_to_one_and_are_stable():
    x = pyad.tensor(np.random.default_rng(0).standard_normal((5, 7)) * 300)
    with np.errstate(over="raise", invalid="raise"):
        y = F.softmax(x, 1)
    np.testing.assert_allclose(y.data.sum(1), 1.0, rtol=1e-14)


def test_float32_stays_float32():
    x = pyad.tensor(np.linspace(-2, 2, 6, dtype=np.float32), requires_grad=True)
    for f in (F.gelu, F.silu, F.elu, F.leaky_relu, F.softplus, F.hardtanh, F.logsigmoid,
              lambda v: F.gelu(v, approximate="tanh"), lambda v: F.softmax(v, 0)):
        y = f(x)
        assert y.dtype == np.float32
        g, = pyad.grad(y.sum(), [x])
        assert g.dtype == np.float32


@pytest.mark.parametrize("shape, expected_dim", [((), 0), ((5,), 0), ((3, 4), 1),
                                                 ((2, 3, 4), 0), ((2, 3, 4, 5), 1)])
@pytest.mark.parametrize("name", ["softmax", "softmin", "log_softmax"])
def test_implicit_dim_warns_and_picks_torchs_dim(name, shape, expected_dim):
    # torch's deprecated rule: dim 0 for 0-, 1- and 3-D input, else 1
    rng = np.random.default_rng(len(shape))
    data = rng.standard_normal(shape)
    with pytest.warns(UserWarning, match="Implicit dimension choice for %s" % name):
        implicit = getattr(F, name)(pyad.tensor(data))
    explicit = getattr(F, name)(pyad.tensor(data), dim=expected_dim)
    np.testing.assert_array_equal(implicit.data, explicit.data)
    torch = pytest.importorskip("torch")
    with pytest.warns(UserWarning):
        reference = getattr(torch.nn.functional, name)(torch.tensor(data))
    np.testing.assert_allclose(implicit.data, reference.numpy(), rtol=1e-12, atol=1e-12)


def test_implicit_dim_warning_points_at_the_caller():
    with pytest.warns(UserWarning) as record:
        F.softmax(pyad.tensor([1.0, 2.0]))
    assert record[0].filename == __file__


KINKS = np.array([-30.0, -7.0, -6.0, -3.0, -2.9, -1.5, -1.0, -0.9, -0.5, -0.3, -0.0, 0.0,
                  0.3, 0.5, 0.9, 1.0, 1.5, 2.9, 3.0, 5.9, 6.0, 7.0, 30.0])


@pytest.mark.parametrize("name, args, kwargs", [
    ("relu6", (), {}), ("hardsigmoid", (), {}), ("hardswish", (), {}), ("selu", (), {}),
    ("celu", (), {}), ("celu", (0.5,), {}), ("celu", (), {"alpha": -2.0}), ("mish", (), {}),
    ("softsign", (), {}), ("tanhshrink", (), {}), ("softshrink", (), {}),
    ("softshrink", (1.0,), {}), ("softshrink", (), {"lambd": 0.0}), ("hardshrink", (), {}),
    ("hardshrink", (), {"lambd": 1.5}), ("hardshrink", (0.0,), {}),
    ("threshold", (0.3, -2.0), {}), ("threshold", (0.0, 0.0), {}),
    ("threshold", (-1.0, 5.0), {}),
])
def test_new_activations_at_their_kinks_match_torch(name, args, kwargs):
    # 0, +-3, 6, +-lambd, the threshold itself: the gradient torch gives there, and the
    # second derivative (0 at a kink where torch's is 0)
    torch = _torch()
    x = pyad.tensor(KINKS, requires_grad=True)
    t = torch.tensor(KINKS, requires_grad=True)
    y = getattr(F, name)(x, *args, **kwargs)
    ty = getattr(torch.nn.functional, name)(t, *args, **kwargs)
    np.testing.assert_allclose(y.data, ty.detach().numpy(), rtol=1e-13, atol=1e-15)
    g, = pyad.grad(y.sum(), [x], create_graph=True)
    tg, = torch.autograd.grad(ty.sum(), [t], create_graph=True)
    # torch's hardsigmoid gradient is 1/6 rounded to float32 (in float64 too); pyad's is 1/6
    rtol = 1e-7 if name == "hardsigmoid" else 1e-13
    np.testing.assert_allclose(g.data, tg.detach().numpy(), rtol=rtol, atol=1e-15)
    gg = pyad.grad(g.sum(), [x])[0].data if g.requires_grad else np.zeros_like(KINKS)
    if name == "hardsigmoid":           # torch has no second derivative; it is 0
        np.testing.assert_array_equal(gg, 0.0)
        return
    tgg = (torch.autograd.grad(tg.sum(), [t], allow_unused=True)[0]
           if tg.requires_grad else None)
    tgg = np.zeros_like(KINKS) if tgg is None else tgg.numpy()
    np.testing.assert_allclose(gg, tgg, rtol=1e-12, atol=1e-14)


def test_kink_gradients_are_torchs_conventions():
    # spelled out, so a change of convention reads as one here
    x = pyad.tensor(np.array([-3.0, 0.0, 3.0, 6.0]), requires_grad=True)
    for f, expected in ((F.relu6, [0.0, 0.0, 1.0, 0.0]),
                        (F.hardswish, [0.0, 0.5, 1.0, 1.0]),
                        (F.hardsigmoid, [0.0, 1 / 6, 0.0, 0.0]),
                        (lambda v: F.threshold(v, 3.0, 0.0), [0.0, 0.0, 0.0, 1.0]),
                        (lambda v: F.softshrink(v, 3.0), [0.0, 0.0, 0.0, 1.0]),
                        (lambda v: F.hardshrink(v, 3.0), [0.0, 0.0, 0.0, 1.0])):
        g, = pyad.grad(f(x).sum(), [x])
        np.testing.assert_allclose(g.data, expected, rtol=1e-15, atol=0)


@pytest.mark.parametrize("name, args", [("relu6", ()), ("hardsigmoid", ()),
                                        ("hardswish", ()), ("selu", ()), ("celu", (0.5,)),
                                        ("mish", ()), ("threshold", (0.1, -3.0))])
def test_new_inplace_flags_match_torch(name, args):
    torch = _torch()
    a = np.array([-4.0, -2.0, -0.3, 0.2, 1.5, 3.5])
    x = pyad.tensor(a, requires_grad=True)
    t = torch.tensor(a, requires_grad=True)
    h = x * 2
    th = t * 2
    y = getattr(F, name)(h, *args, inplace=True)
    ty = getattr(torch.nn.functional, name)(th, *args, inplace=True)
    assert y is h
    np.testing.assert_allclose(h.data, th.detach().numpy(), rtol=1e-15)
    (y * y).sum().backward()
    (ty * ty).sum().backward()
    np.testing.assert_allclose(x.grad.data, t.grad.numpy(), rtol=1e-7 if name == "hardsigmoid"
                               else 1e-12, atol=1e-15)


def test_new_activation_bad_arguments_raise_naming_the_op():
    x = pyad.tensor([1.0, 2.0, 3.0])
    with pytest.raises(RuntimeError, match=r"softshrink\(\): lambda must be greater"):
        F.softshrink(x, -0.5)
    with pytest.raises(RuntimeError, match=r"hardshrink\(\): lambda"):
        F.hardshrink(x, -0.5)
    with pytest.raises(RuntimeError, match=r"celu\(\): alpha cannot be 0"):
        F.celu(x, 0.0)
    with pytest.raises(RuntimeError, match=r"glu\(\): halving dimension must be even"):
        F.glu(x)
    with pytest.raises(RuntimeError, match=r"glu\(\): glu does not support scalars"):
        F.glu(pyad.tensor(1.0))
    with pytest.raises(IndexError, match=r"glu\(\): Dimension out of range"):
        F.glu(pyad.ones(2, 2), 2)
    torch = _torch()
    for f in (lambda L: L.nn.functional.glu(L.ones(3)),
              lambda L: L.nn.functional.glu(L.tensor(1.0)),
              lambda L: L.nn.functional.softshrink(L.ones(3), -0.5)):
        with pytest.raises(RuntimeError):
            f(torch)                         # torch refuses the same calls


def test_new_activations_keep_float32_and_do_not_overflow():
    x = pyad.tensor(np.linspace(-8, 8, 9, dtype=np.float32), requires_grad=True)
    for f in (F.relu6, F.hardsigmoid, F.hardswish, F.selu, F.celu, F.mish, F.softsign,
              F.tanhshrink, F.softshrink, F.hardshrink, lambda v: F.threshold(v, 0.5, 2.0),
              lambda v: F.celu(v, -1.5), F.glu):
        y = f(x[:8] if f is F.glu else x)
        assert y.dtype == np.float32
        g, = pyad.grad(y.sum(), [x])
        assert g.dtype == np.float32
    big = pyad.tensor([-1000.0, 1000.0], requires_grad=True)
    with np.errstate(over="raise", invalid="raise", divide="raise"):
        for f in (F.selu, F.celu, F.mish, F.softsign, F.tanhshrink):
            y = f(big)
            assert np.isfinite(y.data).all(), f
            g, = pyad.grad(y.sum(), [big], create_graph=True)
            assert np.isfinite(g.data).all(), f



@pytest.mark.parametrize("name", ["hardsigmoid", "hardswish", "selu", "celu", "mish",
                                  "softshrink", "hardshrink", "glu"])
def test_new_activations_refuse_integers_as_torch(name):
    with pytest.raises(RuntimeError, match=r"%s\(\): expected a floating point input, "
                                           r"got int64" % name):
        getattr(F, name)(pyad.tensor([1, 2]))
    with pytest.raises(NotImplementedError):
        getattr(_torch().nn.functional, name)(_torch().tensor([1, 2]))


def test_integer_relu6_and_threshold_match_torch():
    torch = _torch()
    a = np.array([-2, 1, 7])
    for f in (lambda L, x: L.nn.functional.relu6(x),
              lambda L, x: L.nn.functional.threshold(x, 1, 5)):
        ours, theirs = f(pyad, pyad.tensor(a)), f(torch, torch.tensor(a))
        assert ours.dtype == np.int64 and theirs.dtype == torch.int64
        np.testing.assert_array_equal(ours.data, theirs.numpy())
    h = pyad.tensor(a)
    assert F.relu6(h, inplace=True) is h and h.tolist() == [0, 1, 6]
