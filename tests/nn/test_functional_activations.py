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
    with pytest.raises(ValueError, match=r"gelu\(\)"):
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
