"""pyad.nn.utils parametrizations (parametrize, weight_norm, spectral_norm), the legacy
hook-based weight_norm/spectral_norm, functional_call and skip_init, against torch on
the same weights: values, gradients, buffers, state dict keys and training steps."""
import collections
import copy
import pickle
import warnings

import numpy as np
import pytest

import pyad
from pyad import nn
from pyad.autograd import gradcheck, gradgradcheck
from pyad.nn.utils import parametrizations as PZ
from pyad.nn.utils import parametrize as P
from pyad.nn.utils.parametrizations import _weight_norm

torch = pytest.importorskip("torch")
tnn = torch.nn
TP = torch.nn.utils.parametrize
TPZ = torch.nn.utils.parametrizations


def arrays(state):
    """A state dict as NumPy arrays (what crosses between the two libraries)."""
    return {k: np.array(v.detach().cpu().numpy() if isinstance(v, torch.Tensor)
                        else np.asarray(v.data)) for k, v in state.items()}


def to_torch_state(state):
    return {k: torch.tensor(v) for k, v in arrays(state).items()}


def copy_from_torch(pyad_module, torch_module):
    """Load torch's state (parameters and buffers, same keys) into the pyad module."""
    result = pyad_module.load_state_dict(arrays(torch_module.state_dict()))
    assert not result.missing_keys and not result.unexpected_keys


def close(p, t, rtol=1e-6, atol=1e-7):
    p = np.asarray(p.data if isinstance(p, pyad.Variable) else p)
    t = t.detach().numpy()
    assert p.shape == t.shape and p.dtype == t.dtype
    np.testing.assert_allclose(p, t, rtol=rtol, atol=atol)


def pair(make_torch, make_pyad, dtype="float64"):
    """The same layer in torch and pyad, pyad holding torch's initial weights."""
    torch.manual_seed(0)
    t = make_torch().to(getattr(torch, dtype))
    p = make_pyad().to(getattr(pyad, dtype))
    copy_from_torch(p, t)
    return t, p


def grads_match(t_module, p_module, t_out, p_out, rtol=1e-6, atol=1e-7):
    """Backprop the same random cotangent; compare every parameter's gradient by name."""
    cot = np.random.default_rng(1).standard_normal(tuple(t_out.shape)).astype(
        t_out.detach().numpy().dtype)
    (t_out * torch.tensor(cot)).sum().backward()
    (p_out * pyad.tensor(cot)).sum().backward()
    t_named = dict(t_module.named_parameters())
    p_named = dict(p_module.named_parameters())
    assert list(t_named) == list(p_named)
    for name in t_named:
        close(p_named[name].grad, t_named[name].grad, rtol, atol)


# -- weight_norm (parametrization) -----------------------------------------------------

WN_CASES = [
    ("linear dim0", lambda L: L.nn.Linear(4, 3), 0, (5, 4)),
    ("linear dim1", lambda L: L.nn.Linear(4, 3), 1, (5, 4)),
    ("linear dimNone", lambda L: L.nn.Linear(4, 3), None, (5, 4)),
    ("linear dim-2", lambda L: L.nn.Linear(4, 3), -2, (5, 4)),
    ("conv dim0", lambda L: L.nn.Conv2d(2, 3, 3), 0, (2, 2, 5, 5)),
    ("conv dim2", lambda L: L.nn.Conv2d(2, 3, 3), 2, (2, 2, 5, 5)),
    ("conv last dim", lambda L: L.nn.Conv2d(2, 3, 3), 3, (2, 2, 5, 5)),
    ("convT dim1", lambda L: L.nn.ConvTranspose2d(2, 3, 3), 1, (1, 2, 4, 4)),
]


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("name,make,dim,shape", WN_CASES, ids=[c[0] for c in WN_CASES])
def test_weight_norm_matches_torch_values_gradients_and_keys(name, make, dim, shape, dtype):
    t, p = pair(lambda: make(torch), lambda: make(pyad), dtype)
    TPZ.weight_norm(t, dim=dim)
    PZ.weight_norm(p, dim=dim)
    assert type(p).__name__ == type(t).__name__ == "Parametrized" + type(make(torch)).__name__
    assert list(p.state_dict()) == list(t.state_dict())
    for key, value in arrays(p.state_dict()).items():    # g and v from the same weight
        np.testing.assert_allclose(value, arrays(t.state_dict())[key], rtol=1e-6)
    assert p.parametrizations.weight.original0.shape == t.parametrizations.weight.original0.shape
    x = np.random.default_rng(0).standard_normal(shape).astype(dtype)
    t_out, p_out = t(torch.tensor(x)), p(pyad.tensor(x))
    rtol = 1e-5 if dtype == "float32" else 1e-10
    close(p.weight, t.weight, rtol, atol=1e-6 if dtype == "float32" else 1e-12)
    close(p_out, t_out, rtol, atol=1e-5 if dtype == "float32" else 1e-12)
    grads_match(t, p, t_out, p_out, rtol, atol=1e-5 if dtype == "float32" else 1e-12)


@pytest.mark.parametrize("dim,shape", [(0, (3, 4)), (1, (3, 4)), (-1, (2, 3, 2)),
                                       (-2, (2, 3, 2)), (1, (2, 3, 2)), (0, (4,))])
def test_weight_norm_map_gradcheck_gradgradcheck_and_torch(dim, shape):
    rng = np.random.default_rng(2)
    v = rng.standard_normal(shape)
    g_shape = () if dim == -1 else tuple(n if i == dim % len(shape) else 1
                                         for i, n in enumerate(shape))
    g = rng.uniform(0.5, 2.0, g_shape)
    pv = pyad.tensor(v, requires_grad=True)
    pg = pyad.tensor(g, requires_grad=True)
    assert gradcheck(lambda g_, v_: _weight_norm(v_, g_, dim), (pg, pv))
    assert gradgradcheck(lambda g_, v_: _weight_norm(v_, g_, dim), (pg, pv))
    tv = torch.tensor(v, requires_grad=True)
    tg = torch.tensor(g, requires_grad=True)
    t_out = torch._weight_norm(tv, tg, dim)
    p_out = _weight_norm(pv, pg, dim)
    close(p_out, t_out, 1e-12, 1e-12)
    cot = rng.standard_normal(shape)
    tgrads = torch.autograd.grad((t_out * torch.tensor(cot)).sum(), (tg, tv))
    pgrads = pyad.autograd.grad((p_out * pyad.tensor(cot)).sum(), (pg, pv))
    for a, b in zip(pgrads, tgrads):
        close(a, b, 1e-10, 1e-12)


def test_weight_norm_on_a_non_contiguous_weight():
    t, p = pair(lambda: torch.nn.Linear(4, 3), lambda: nn.Linear(4, 3))
    with torch.no_grad():
        t.weight = torch.nn.Parameter(t.weight.detach().t().contiguous().t())
    p.weight = nn.Parameter(pyad.tensor(t.weight.detach().numpy().T.copy()).t())
    assert not p.weight.is_contiguous()
    TPZ.weight_norm(t)
    PZ.weight_norm(p)
    x = np.ones((2, 4))
    close(p(pyad.tensor(x)), t(torch.tensor(x)), 1e-12, 1e-12)


def test_weight_norm_loads_a_legacy_state_dict_as_torch():
    torch.manual_seed(0)
    t_legacy = torch.nn.Linear(3, 2).double()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        torch.nn.utils.weight_norm(t_legacy)
    legacy = arrays(t_legacy.state_dict())
    assert sorted(legacy) == ["bias", "weight_g", "weight_v"]
    t_new = TPZ.weight_norm(torch.nn.Linear(3, 2).double())
    p_new = PZ.weight_norm(nn.Linear(3, 2).double())
    assert repr(t_new.load_state_dict(to_torch_state(legacy))) == \
        repr(p_new.load_state_dict(legacy)) == "<All keys matched successfully>"
    close(p_new.weight, t_new.weight, 1e-12, 1e-12)


# -- spectral_norm (parametrization) ---------------------------------------------------

SN_CASES = [
    ("linear", lambda L: L.nn.Linear(5, 3), {}, (4, 5)),
    ("linear 3 iters", lambda L: L.nn.Linear(5, 3), {"n_power_iterations": 3}, (4, 5)),
    ("conv", lambda L: L.nn.Conv2d(2, 4, 3), {}, (1, 2, 5, 5)),
    ("conv dim1", lambda L: L.nn.Conv2d(2, 4, 3), {"dim": 1}, (1, 2, 5, 5)),
    ("conv dim-1", lambda L: L.nn.Conv2d(2, 4, 3), {"dim": -1}, (1, 2, 5, 5)),
    ("convT default dim 1", lambda L: L.nn.ConvTranspose2d(2, 4, 3), {}, (1, 2, 4, 4)),
]


def copy_buffers(p_module, t_module, names=("_u", "_v")):
    """Give pyad's spectral norm torch's power-iteration vectors (drawn from torch's
    generator): both then take the same steps."""
    t_sn, p_sn = t_module.parametrizations.weight[0], p_module.parametrizations.weight[0]
    for name in names:
        with pyad.no_grad():
            getattr(p_sn, name).copy_(pyad.tensor(getattr(t_sn, name).numpy()))


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("name,make,kwargs,shape", SN_CASES, ids=[c[0] for c in SN_CASES])
def test_spectral_norm_matches_torch_steps_buffers_and_gradients(name, make, kwargs, shape,
                                                                  dtype):
    t, p = pair(lambda: make(torch), lambda: make(pyad), dtype)
    TPZ.spectral_norm(t, **kwargs)
    PZ.spectral_norm(p, **kwargs)
    assert list(p.state_dict()) == list(t.state_dict())
    t_sn, p_sn = t.parametrizations.weight[0], p.parametrizations.weight[0]
    assert (p_sn.dim, p_sn.n_power_iterations, p_sn.eps) == \
        (t_sn.dim, t_sn.n_power_iterations, t_sn.eps)
    assert p_sn._u.dtype == np.dtype(dtype) and p_sn._u.shape == tuple(t_sn._u.shape)
    copy_buffers(p, t)
    u_before = p_sn._u
    rtol, atol = (1e-5, 1e-6) if dtype == "float32" else (1e-10, 1e-12)
    x = np.random.default_rng(0).standard_normal(shape).astype(dtype)
    for _ in range(3):                          # training mode: a power step per access
        t_out, p_out = t(torch.tensor(x)), p(pyad.tensor(x))
        close(p_sn._u, t_sn._u, rtol, atol)
        close(p_sn._v, t_sn._v, rtol, atol)
        close(p_out, t_out, rtol, atol)
    assert p_sn._u is u_before                  # updated in place, as torch
    grads_match(t, p, t_out, p_out, rtol, atol)
    t.eval()
    p.eval()
    u_eval = p_sn._u.detach().clone()
    close(p(pyad.tensor(x)), t(torch.tensor(x)), rtol, atol)
    assert bool((p_sn._u == u_eval).all())      # no step in eval mode


def test_spectral_norm_map_gradcheck_gradgradcheck():
    lin = PZ.spectral_norm(nn.Linear(4, 3).double()).eval()   # eval: u and v fixed
    sn = lin.parametrizations.weight[0]
    w = pyad.tensor(np.random.default_rng(3).standard_normal((3, 4)), requires_grad=True)
    assert gradcheck(sn, (w,))
    assert gradgradcheck(sn, (w,))
    conv = PZ.spectral_norm(nn.Conv2d(2, 3, 2).double(), dim=1).eval()
    w4 = pyad.tensor(np.random.default_rng(4).standard_normal((3, 2, 2, 2)),
                     requires_grad=True)
    assert gradcheck(conv.parametrizations.weight[0], (w4,))
    assert gradgradcheck(conv.parametrizations.weight[0], (w4,))


def test_spectral_norm_sigma_is_close_to_the_largest_singular_value():
    lin = PZ.spectral_norm(nn.Linear(6, 4).double(), n_power_iterations=20)
    for _ in range(5):
        w = lin.weight
    assert abs(float(pyad.linalg.matrix_norm(w, ord=2)) - 1.0) < 1e-6


def test_spectral_norm_of_a_vector_normalises_it_as_torch():
    tm, pm = torch.nn.Module(), nn.Module()
    v = np.array([3.0, 4.0, 0.0])
    tm.register_parameter("w", torch.nn.Parameter(torch.tensor(v)))
    pm.register_parameter("w", nn.Parameter(pyad.tensor(v)))
    TPZ.spectral_norm(tm, "w")
    PZ.spectral_norm(pm, "w")
    assert list(pm.state_dict()) == list(tm.state_dict()) == ["parametrizations.w.original"]
    close(pm.w, tm.w, 1e-12, 1e-12)


def test_spectral_norm_bad_arguments_raise_torchs_errors():
    for kwargs, error in (({"n_power_iterations": 0}, ValueError), ({"dim": 2}, IndexError),
                          ({"dim": -3}, IndexError)):
        with pytest.raises(error):
            TPZ.spectral_norm(torch.nn.Linear(2, 2), **kwargs)
        with pytest.raises(error):
            PZ.spectral_norm(nn.Linear(2, 2), **kwargs)
    with pytest.raises(ValueError):
        TPZ.spectral_norm(torch.nn.Linear(2, 2), name="nope")
    with pytest.raises(ValueError, match="no parameter or buffer with name 'nope'"):
        PZ.spectral_norm(nn.Linear(2, 2), name="nope")


# -- register_parametrization ----------------------------------------------------------

def parametrizations(L):
    """torch's tutorial parametrizations, written once for either library."""
    class Symmetric(L.nn.Module):
        def forward(self, X):
            return X.triu() + X.triu(1).transpose(-1, -2)

        def right_inverse(self, A):
            return A.triu()

    class Scale(L.nn.Module):
        def __init__(self, c):
            super().__init__()
            self.c = c

        def forward(self, X):
            return self.c * X

        def right_inverse(self, A):
            return A / self.c

    class Plus(L.nn.Module):                    # two originals from right_inverse
        def forward(self, A, B):
            return A + B

        def right_inverse(self, X):
            return X * 0.25, X * 0.75

    class NoInverse(L.nn.Module):
        def forward(self, X):
            return X.exp()

    class Flatten(L.nn.Module):                 # changes the shape: unsafe only
        def forward(self, X):
            return X.reshape(-1)

    return Symmetric, Scale, Plus, NoInverse, Flatten


def both(build):
    torch.manual_seed(0)
    t = build(torch).double()
    p = build(pyad).double()
    copy_from_torch(p, t)
    return t, p


def test_chained_parametrizations_with_right_inverse_match_torch():
    t, p = both(lambda L: L.nn.Linear(3, 3))
    for L, m in ((torch, t), (pyad, p)):
        Symmetric, Scale, _, _, _ = parametrizations(L)
        L.nn.utils.parametrize.register_parametrization(m, "weight", Symmetric())
        L.nn.utils.parametrize.register_parametrization(m, "weight", Scale(3.0))
    assert len(p.parametrizations.weight) == 2
    close(p.parametrizations.weight.original, t.parametrizations.weight.original, 1e-12)
    close(p.weight, t.weight, 1e-12)
    x = np.random.default_rng(0).standard_normal((4, 3))
    t_out, p_out = t(torch.tensor(x)), p(pyad.tensor(x))
    close(p_out, t_out, 1e-12)
    grads_match(t, p, t_out, p_out, 1e-12, 1e-12)
    # assignment goes through right_inverse, last parametrization first
    target = np.arange(9.0).reshape(3, 3)
    target = target + target.T
    original = p.parametrizations.weight.original
    t.weight = torch.tensor(target)
    p.weight = pyad.tensor(target)
    assert p.parametrizations.weight.original is original     # same object, new values
    close(p.parametrizations.weight.original, t.parametrizations.weight.original, 1e-12)
    close(p.weight, t.weight, 1e-12)


def test_parametrizing_a_buffer_matches_torch():
    t, p = both(lambda L: L.nn.BatchNorm1d(3))
    for L, m in ((torch, t), (pyad, p)):
        _, Scale, _, _, _ = parametrizations(L)
        L.nn.utils.parametrize.register_parametrization(m, "running_var", Scale(2.0))
    assert list(p.state_dict()) == list(t.state_dict())
    assert [n for n, _ in p.named_buffers()] == [n for n, _ in t.named_buffers()]
    assert not isinstance(p.parametrizations.running_var.original, nn.Parameter)
    close(p.running_var, t.running_var, 1e-12)
    P.remove_parametrizations(p, "running_var")
    TP.remove_parametrizations(t, "running_var")
    assert "running_var" in p._buffers and list(p.state_dict()) == list(t.state_dict())
    close(p.running_var, t.running_var, 1e-12)


def test_multi_output_right_inverse_gives_original0_original1():
    t, p = both(lambda L: L.nn.Linear(2, 2))
    for L, m in ((torch, t), (pyad, p)):
        _, _, Plus, _, _ = parametrizations(L)
        L.nn.utils.parametrize.register_parametrization(m, "weight", Plus())
    assert [n for n, _ in p.named_parameters()] == [n for n, _ in t.named_parameters()]
    assert not hasattr(p.parametrizations.weight, "original")
    for i in (0, 1):
        close(getattr(p.parametrizations.weight, "original%d" % i),
              getattr(t.parametrizations.weight, "original%d" % i), 1e-12)
    close(p.weight, t.weight, 1e-12)
    with pytest.raises(ValueError):
        TP.remove_parametrizations(t, "weight", leave_parametrized=False)
    with pytest.raises(ValueError, match="sequence of tensors"):
        P.remove_parametrizations(p, "weight", leave_parametrized=False)
    TP.remove_parametrizations(t, "weight")
    P.remove_parametrizations(p, "weight")
    assert isinstance(p.weight, nn.Parameter) and type(p) is nn.Linear
    close(p.weight, t.weight, 1e-12)


def test_parametrization_without_right_inverse_keeps_the_value_as_original():
    t, p = both(lambda L: L.nn.Linear(2, 2))
    for L, m in ((torch, t), (pyad, p)):
        _, _, _, NoInverse, _ = parametrizations(L)
        L.nn.utils.parametrize.register_parametrization(m, "weight", NoInverse())
    close(p.parametrizations.weight.original, t.parametrizations.weight.original, 1e-12)
    close(p.weight, t.weight, 1e-12)
    with pytest.raises(RuntimeError):
        t.weight = torch.zeros(2, 2, dtype=torch.float64)
    with pytest.raises(RuntimeError, match="NoInverse does not implement right_inverse"):
        p.weight = pyad.zeros(2, 2, dtype=pyad.float64)


def test_unsafe_allows_a_shape_change_and_the_checks_raise_valueerror_as_torch():
    for L, m in ((torch, torch.nn.Linear(2, 3)), (pyad, nn.Linear(2, 3))):
        _, _, _, _, Flatten = parametrizations(L)
        with pytest.raises(ValueError, match="may not change the shape"):
            L.nn.utils.parametrize.register_parametrization(m, "weight", Flatten())
        assert not L.nn.utils.parametrize.is_parametrized(m)
        L.nn.utils.parametrize.register_parametrization(m, "weight", Flatten(), unsafe=True)
        assert tuple(m.weight.shape) == (6,)
        with pytest.raises(ValueError, match="does not have a parameter, a buffer"):
            L.nn.utils.parametrize.register_parametrization(m, "nothing", Flatten())
        with pytest.raises(ValueError, match="does not have a parametrization on bias"):
            L.nn.utils.parametrize.remove_parametrizations(m, "bias")


def test_is_parametrized_type_before_and_class_restoration():
    lin = nn.Linear(2, 2)
    assert not P.is_parametrized(lin) and P.type_before_parametrizations(lin) is nn.Linear
    P.register_parametrization(lin, "weight", nn.Identity())
    P.register_parametrization(lin, "bias", nn.Identity())
    assert P.is_parametrized(lin) and P.is_parametrized(lin, "bias")
    assert not P.is_parametrized(lin, "other")
    assert type(lin) is not nn.Linear and isinstance(lin, nn.Linear)
    assert P.type_before_parametrizations(lin) is nn.Linear
    assert not hasattr(nn.Linear(2, 2).__class__, "weight")   # the property is per instance
    P.remove_parametrizations(lin, "weight")
    assert type(lin) is not nn.Linear                        # bias still parametrized
    P.remove_parametrizations(lin, "bias")
    assert type(lin) is nn.Linear and "parametrizations" not in lin._modules
    assert [n for n, _ in lin.named_parameters()] == ["weight", "bias"]


def test_remove_leaves_the_same_parameter_object_holding_the_parametrized_value():
    t, p = both(lambda L: L.nn.Linear(3, 3))
    for L, m in ((torch, t), (pyad, p)):
        Symmetric, _, _, _, _ = parametrizations(L)
        L.nn.utils.parametrize.register_parametrization(m, "weight", Symmetric())
    original = p.parametrizations.weight.original
    expected = p.weight.detach().clone()
    TP.remove_parametrizations(t, "weight")
    P.remove_parametrizations(p, "weight")
    assert p.weight is original and isinstance(p.weight, nn.Parameter)
    assert bool((p.weight == expected).all())
    close(p.weight, t.weight, 1e-12)
    t2, p2 = both(lambda L: L.nn.Linear(3, 3))
    for L, m in ((torch, t2), (pyad, p2)):
        Symmetric, _, _, _, _ = parametrizations(L)
        L.nn.utils.parametrize.register_parametrization(m, "weight", Symmetric())
        L.nn.utils.parametrize.remove_parametrizations(m, "weight", leave_parametrized=False)
    close(p2.weight, t2.weight, 1e-12)                       # the upper triangle only
    assert float(p2.weight[1, 0]) == 0.0


def test_cached_computes_each_parametrization_once():
    calls = []

    class Counting(nn.Module):
        def forward(self, X):
            calls.append(1)
            return X * 2

    lin = nn.Linear(2, 2)
    P.register_parametrization(lin, "weight", Counting())
    calls.clear()
    with P.cached():
        w1 = lin.weight
        with P.cached():                  # nested: still cached
            w2 = lin.weight
        w3 = lin.weight
    assert w1 is w2 is w3 and len(calls) == 1
    lin.weight
    assert len(calls) == 2 and P._cache == {}


def test_deepcopy_and_pickling_as_torch():
    lin = PZ.weight_norm(nn.Linear(3, 2))
    clone = copy.deepcopy(lin)
    assert type(clone) is type(lin) and P.is_parametrized(clone, "weight")
    assert clone.parametrizations.weight.original0 is not lin.parametrizations.weight.original0
    x = pyad.randn(4, 3)
    assert bool((clone(x) == lin(x)).all())
    with pytest.raises(RuntimeError, match="only supported through state_dict"):
        pickle.dumps(lin)
    with pytest.raises(RuntimeError):
        pickle.dumps(TPZ.weight_norm(torch.nn.Linear(3, 2)))


def test_state_dict_round_trip_between_torch_and_pyad():
    def build(L):
        net = L.nn.Sequential(L.nn.Linear(4, 6), L.nn.Tanh(), L.nn.Linear(6, 2))
        L.nn.utils.parametrizations.weight_norm(net[0])
        L.nn.utils.parametrizations.spectral_norm(net[2])
        return net.double()

    torch.manual_seed(0)
    t = build(torch)
    p = build(pyad)
    assert list(p.state_dict()) == list(t.state_dict())
    p.load_state_dict(arrays(t.state_dict()))
    t2 = build(torch)
    t2.load_state_dict(to_torch_state(p.state_dict()))
    for key, value in arrays(t2.state_dict()).items():
        np.testing.assert_array_equal(value, arrays(t.state_dict())[key])
    t.eval(), p.eval()
    x = np.random.default_rng(0).standard_normal((3, 4))
    close(p(pyad.tensor(x)), t(torch.tensor(x)), 1e-12, 1e-12)


def test_sgd_training_of_parametrized_layers_stays_equal_to_torch_step_by_step():
    def build(L):
        net = L.nn.Sequential(L.nn.Linear(4, 8), L.nn.Tanh(), L.nn.Linear(8, 8), L.nn.Tanh(),
                              L.nn.Linear(8, 1))
        L.nn.utils.parametrizations.weight_norm(net[0])
        L.nn.utils.parametrizations.spectral_norm(net[2])
        Symmetric, _, _, _, _ = parametrizations(L)
        L.nn.utils.parametrize.register_parametrization(net[2], "weight", Symmetric())
        return net.double()

    torch.manual_seed(0)
    t = build(torch)
    p = build(pyad)
    p.load_state_dict(arrays(t.state_dict()))
    t_opt = torch.optim.SGD(t.parameters(), lr=0.1, momentum=0.9)
    p_opt = pyad.optim.SGD(p.parameters(), lr=0.1, momentum=0.9)
    rng = np.random.default_rng(0)
    x, y = rng.standard_normal((16, 4)), rng.standard_normal((16, 1))
    for step in range(8):
        t_opt.zero_grad()
        p_opt.zero_grad()
        t_loss = ((t(torch.tensor(x)) - torch.tensor(y)) ** 2).mean()
        p_loss = ((p(pyad.tensor(x)) - pyad.tensor(y)) ** 2).mean()
        np.testing.assert_allclose(float(p_loss), t_loss.item(), rtol=1e-10)
        t_loss.backward()
        p_loss.backward()
        t_opt.step()
        p_opt.step()
        for key, value in arrays(p.state_dict()).items():
            np.testing.assert_allclose(value, arrays(t.state_dict())[key], rtol=1e-9,
                                       atol=1e-12, err_msg="%s at step %d" % (key, step))


# -- legacy hook-based weight_norm / spectral_norm -------------------------------------

def test_legacy_weight_norm_matches_torch_and_removes_to_a_plain_parameter():
    t, p = pair(lambda: torch.nn.Conv2d(2, 3, 3), lambda: nn.Conv2d(2, 3, 3))
    with pytest.warns(FutureWarning):
        torch.nn.utils.weight_norm(t, dim=1)
    with pytest.warns(FutureWarning, match="parametrizations.weight_norm"):
        assert nn.utils.weight_norm(p, dim=1) is p
    assert list(p.state_dict()) == list(t.state_dict())
    assert [n for n, _ in p.named_parameters()] == [n for n, _ in t.named_parameters()]
    assert type(p) is nn.Conv2d and not isinstance(p.weight, nn.Parameter)
    x = np.random.default_rng(0).standard_normal((1, 2, 5, 5))
    t_out, p_out = t(torch.tensor(x)), p(pyad.tensor(x))
    close(p_out, t_out, 1e-12, 1e-12)
    grads_match(t, p, t_out, p_out, 1e-10, 1e-12)
    with pytest.raises(RuntimeError, match="Cannot register two weight_norm hooks"):
        with pytest.warns(FutureWarning):
            nn.utils.weight_norm(p, dim=1)
    torch.nn.utils.remove_weight_norm(t)
    nn.utils.remove_weight_norm(p)
    assert isinstance(p.weight, nn.Parameter) and not p._forward_pre_hooks
    assert list(p.state_dict()) == list(t.state_dict())
    close(p.weight, t.weight, 1e-12, 1e-12)
    with pytest.raises(ValueError, match="weight_norm of 'weight' not found"):
        nn.utils.remove_weight_norm(p)


def test_legacy_spectral_norm_matches_torch_steps_and_state_dict():
    t, p = pair(lambda: torch.nn.Linear(5, 3), lambda: nn.Linear(5, 3))
    torch.nn.utils.spectral_norm(t, n_power_iterations=2)
    nn.utils.spectral_norm(p, n_power_iterations=2)
    assert list(p.state_dict()) == list(t.state_dict()) == \
        ["bias", "weight_orig", "weight_u", "weight_v"]
    assert p.state_dict()._metadata[""]["spectral_norm"] == \
        t.state_dict()._metadata[""]["spectral_norm"]
    p.load_state_dict(arrays(t.state_dict()))       # torch's u and v
    x = np.random.default_rng(0).standard_normal((4, 5))
    for _ in range(3):
        t_out, p_out = t(torch.tensor(x)), p(pyad.tensor(x))
        close(p.weight_u, t.weight_u, 1e-10, 1e-12)
        close(p.weight_v, t.weight_v, 1e-10, 1e-12)
        close(p_out, t_out, 1e-10, 1e-12)
    grads_match(t, p, t_out, p_out, 1e-9, 1e-12)
    t.eval(), p.eval()
    u = p.weight_u.detach().clone()
    close(p(pyad.tensor(x)), t(torch.tensor(x)), 1e-10, 1e-12)
    assert bool((p.weight_u == u).all())
    torch.nn.utils.remove_spectral_norm(t)
    nn.utils.remove_spectral_norm(p)
    assert list(p.state_dict()) == list(t.state_dict()) == ["bias", "weight"]
    assert isinstance(p.weight, nn.Parameter) and not p._forward_pre_hooks
    assert not p.__dict__.get("_state_dict_hooks")
    assert not p.__dict__.get("_load_state_dict_pre_hooks")
    close(p.weight, t.weight, 1e-10, 1e-12)


def test_legacy_spectral_norm_loads_a_version_0_state_dict_as_torch():
    t, p = pair(lambda: torch.nn.Linear(4, 3), lambda: nn.Linear(4, 3))
    torch.nn.utils.spectral_norm(t)
    nn.utils.spectral_norm(p)
    t(torch.ones(1, 4, dtype=torch.float64))
    old = arrays(t.state_dict())                    # the layout before version 1
    old["weight"] = t.weight.detach().numpy().copy()
    del old["weight_v"]
    t_state = collections.OrderedDict(to_torch_state(old))
    t_state._metadata = {"": {"version": 1}}
    p_state = dict(old)
    t2 = torch.nn.utils.spectral_norm(torch.nn.Linear(4, 3).double())
    t2.load_state_dict(t_state)
    p.load_state_dict(p_state)
    close(p.weight_v, t2.weight_v, 1e-8, 1e-10)


def test_legacy_spectral_norm_uses_dim_1_for_transposed_convolutions():
    p = nn.utils.spectral_norm(nn.ConvTranspose2d(2, 5, 3))
    t = torch.nn.utils.spectral_norm(torch.nn.ConvTranspose2d(2, 5, 3))
    assert p.weight_u.shape == tuple(t.weight_u.shape) == (5,)
    with pytest.raises(RuntimeError, match="Cannot register two spectral_norm hooks"):
        nn.utils.spectral_norm(p)
    with pytest.raises(ValueError, match="n_power_iterations"):
        nn.utils.spectral_norm(nn.Linear(2, 2), n_power_iterations=0)


# -- functional_call and skip_init -----------------------------------------------------

def functional_call(*args, **kwargs):
    with pytest.warns(FutureWarning, match="torch.func.functional_call"):
        return nn.utils.stateless.functional_call(*args, **kwargs)


def test_functional_call_replaces_for_one_call_and_matches_torch():
    t, p = pair(lambda: torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.BatchNorm1d(4)),
                lambda: nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4)))
    rng = np.random.default_rng(0)
    w, mean = rng.standard_normal((4, 3)), rng.standard_normal(4)
    x = rng.standard_normal((5, 3))
    tw = torch.tensor(w, requires_grad=True)
    pw = pyad.tensor(w, requires_grad=True)
    t.eval(), p.eval()
    t_out = torch.func.functional_call(t, {"0.weight": tw, "1.running_mean": torch.tensor(mean)},
                                       (torch.tensor(x),))
    p_weight, p_mean = p[0].weight, p[1].running_mean
    p_out = functional_call(p, {"0.weight": pw, "1.running_mean": pyad.tensor(mean)},
                            pyad.tensor(x))
    close(p_out, t_out, 1e-12, 1e-12)
    assert p[0].weight is p_weight and p[1].running_mean is p_mean
    t_out.sum().backward()
    p_out.sum().backward()
    close(pw.grad, tw.grad, 1e-12, 1e-12)
    assert p[0].weight.grad is None


def test_functional_call_restores_even_when_the_call_raises():
    lin = nn.Linear(2, 2)
    weight = lin.weight
    with pytest.raises(RuntimeError):
        functional_call(lin, {"weight": pyad.zeros(3, 3)}, pyad.ones(1, 2))
    assert lin.weight is weight and isinstance(lin._parameters["weight"], nn.Parameter)


def test_functional_call_tied_weights_and_strict_as_torch():
    def build(L):
        net = L.nn.Sequential(L.nn.Linear(2, 2, bias=False), L.nn.Linear(2, 2, bias=False))
        net[1].weight = net[0].weight
        return net.double()

    t, p = build(torch), build(pyad)
    p.load_state_dict(arrays(t.state_dict()))
    assert p[0].weight is p[1].weight
    w = np.array([[1.0, 2.0], [3.0, 4.0]])
    x = np.array([[1.0, -1.0]])
    t_out = torch.func.functional_call(t, {"0.weight": torch.tensor(w)}, torch.tensor(x))
    p_out = functional_call(p, {"0.weight": pyad.tensor(w)}, pyad.tensor(x))
    close(p_out, t_out, 1e-12)                        # both layers see the new weight
    t_untied = torch.func.functional_call(t, {"0.weight": torch.tensor(w)}, torch.tensor(x),
                                          tie_weights=False)
    p_untied = functional_call(p, {"0.weight": pyad.tensor(w)}, pyad.tensor(x),
                               tie_weights=False)
    close(p_untied, t_untied, 1e-12)
    with pytest.raises(ValueError):
        torch.func.functional_call(t, {"0.weight": torch.tensor(w),
                                       "1.weight": torch.tensor(w + 1)}, torch.tensor(x))
    with pytest.raises(ValueError, match="which are tied"):
        functional_call(p, {"0.weight": pyad.tensor(w), "1.weight": pyad.tensor(w + 1)},
                        pyad.tensor(x))
    with pytest.raises(RuntimeError, match="Missing key"):
        torch.func.functional_call(t, {"0.weight": torch.tensor(w)}, torch.tensor(x),
                                   tie_weights=False, strict=True)
    with pytest.raises(RuntimeError, match=r"Missing key\(s\): '1.weight'"):
        functional_call(p, {"0.weight": pyad.tensor(w)}, pyad.tensor(x), tie_weights=False,
                        strict=True)
    with pytest.raises(RuntimeError, match=r"Unexpected key\(s\): 'extra'"):
        functional_call(p, {"0.weight": pyad.tensor(w), "extra": pyad.tensor(w)},
                        pyad.tensor(x), strict=True)


def test_functional_call_on_a_parametrized_module_replaces_the_original():
    t, p = pair(lambda: torch.nn.Linear(2, 2), lambda: nn.Linear(2, 2))
    TPZ.weight_norm(t)
    PZ.weight_norm(p)
    v = np.array([[1.0, 0.0], [0.0, 2.0]])
    x = np.array([[1.0, 1.0]])
    key = "parametrizations.weight.original1"
    t_out = torch.func.functional_call(t, {key: torch.tensor(v)}, torch.tensor(x))
    p_out = functional_call(p, {key: pyad.tensor(v)}, pyad.tensor(x))
    close(p_out, t_out, 1e-12)


def test_skip_init_builds_without_drawing_and_checks_as_torch():
    pyad.manual_seed(0)
    expected = pyad.rand(3)
    pyad.manual_seed(0)
    lin = nn.utils.skip_init(nn.Linear, 4, 2, bias=False, dtype=pyad.float64)
    assert lin.weight.shape == (2, 4) and lin.weight.dtype == np.float64
    assert lin.bias is None
    assert bool((pyad.rand(3) == expected).all())       # the generator did not move
    with pytest.raises(RuntimeError, match="Expected a Module"):
        nn.utils.skip_init(int)
    with pytest.raises(RuntimeError):
        torch.nn.utils.skip_init(torch.nn.ReLU)
    with pytest.raises(RuntimeError, match="support a 'device' arg"):
        nn.utils.skip_init(nn.ReLU)


# -- orthogonal ------------------------------------------------------------------------

ORTH_CASES = [(m, shape, triv) for m in ("matrix_exp", "cayley", "householder")
              for shape in ((4, 4), (3, 5), (5, 3)) for triv in (True, False)]


@pytest.mark.parametrize("orthogonal_map,shape,triv", ORTH_CASES,
                         ids=["%s-%dx%d-%s" % (m, s[0], s[1], "triv" if t else "direct")
                              for m, s, t in ORTH_CASES])
def test_orthogonal_matches_torch(orthogonal_map, shape, triv):
    t, p = pair(lambda: torch.nn.Linear(shape[1], shape[0]),
                lambda: nn.Linear(shape[1], shape[0]))
    TPZ.orthogonal(t, orthogonal_map=orthogonal_map, use_trivialization=triv)
    PZ.orthogonal(p, orthogonal_map=orthogonal_map, use_trivialization=triv)
    assert list(p.state_dict()) == list(t.state_dict())
    if shape[0] == shape[1] or not triv:
        # registration is deterministic here (no random completion of the basis)
        for key, value in arrays(p.state_dict()).items():
            np.testing.assert_allclose(value, arrays(t.state_dict())[key], rtol=1e-10,
                                       atol=1e-12, err_msg=key)
    p.load_state_dict(arrays(t.state_dict()))
    W = p.weight
    eye = np.eye(min(shape))
    gram = (W @ W.mT if shape[0] < shape[1] else W.mT @ W).data
    np.testing.assert_allclose(gram, eye, atol=1e-12)
    x = np.random.default_rng(0).standard_normal((2, shape[1]))
    t_out, p_out = t(torch.tensor(x)), p(pyad.tensor(x))
    close(p_out, t_out, 1e-10, 1e-12)
    grads_match(t, p, t_out, p_out, 1e-9, 1e-12)


@pytest.mark.parametrize("orthogonal_map", ["matrix_exp", "cayley", "householder"])
def test_orthogonal_maps_gradcheck_gradgradcheck(orthogonal_map):
    lin = PZ.orthogonal(nn.Linear(3, 3).double(), orthogonal_map=orthogonal_map)
    orth = lin.parametrizations.weight[0]
    X = pyad.tensor(np.random.default_rng(5).standard_normal((3, 3)) * 0.5,
                    requires_grad=True)
    assert gradcheck(orth, (X,))
    assert gradgradcheck(orth, (X,))


def test_matrix_exp_batched_float32_and_large_norm_match_torch():
    rng = np.random.default_rng(6)
    for a, rtol in ((rng.standard_normal((2, 3, 4, 4)), 1e-12),
                    (rng.standard_normal((3, 3)) * 20, 1e-9),
                    (rng.standard_normal((4, 4)).astype(np.float32), 1e-5),
                    (np.zeros((0, 0)), 0)):
        out = pyad.linalg.matrix_exp(pyad.tensor(a))   # what orthogonal's map uses
        expected = torch.matrix_exp(torch.tensor(a))
        assert out.dtype == a.dtype
        np.testing.assert_allclose(out.data, expected.numpy(), rtol=rtol,
                                   atol=rtol * float(np.abs(expected.numpy()).max(initial=0)))


def test_orthogonal_assignment_and_errors_as_torch():
    t, p = pair(lambda: torch.nn.Linear(4, 4), lambda: nn.Linear(4, 4))
    TPZ.orthogonal(t, orthogonal_map="householder", use_trivialization=False)
    PZ.orthogonal(p, orthogonal_map="householder", use_trivialization=False)
    Q = np.linalg.qr(np.random.default_rng(7).standard_normal((4, 4)))[0]
    t.weight = torch.tensor(Q)
    p.weight = pyad.tensor(Q)
    close(p.parametrizations.weight.original, t.parametrizations.weight.original, 1e-10,
          1e-12)
    close(p.weight, t.weight, 1e-10, 1e-12)
    for L, lib_pz in ((torch, TPZ), (pyad, PZ)):
        with pytest.raises(ValueError, match="orthogonal_map has to be one of"):
            lib_pz.orthogonal(L.nn.Linear(2, 2), orthogonal_map="svd")
        with pytest.raises(ValueError, match="Expected a matrix or batch of matrices"):
            lib_pz.orthogonal(L.nn.Linear(2, 2), name="bias")
        m = lib_pz.orthogonal(L.nn.Linear(2, 2), orthogonal_map="cayley",
                              use_trivialization=False)
        with pytest.raises(NotImplementedError):
            m.weight = L.eye(2)
        with pytest.raises(ValueError, match="Expected a matrix or batch of matrices of "
                                             "shape"):
            m.parametrizations.weight[0].right_inverse(L.eye(3))


@pytest.mark.parametrize("orthogonal_map", ["matrix_exp", "cayley", "householder"])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_orthogonal_of_a_batch_of_matrices_matches_torch(orthogonal_map, dtype):
    rng = np.random.default_rng(8)
    w = rng.standard_normal((2, 4, 3)).astype(dtype)
    tm, pm = torch.nn.Module(), nn.Module()
    tm.register_parameter("w", torch.nn.Parameter(torch.tensor(w)))
    pm.register_parameter("w", nn.Parameter(pyad.tensor(w)))
    TPZ.orthogonal(tm, "w", orthogonal_map=orthogonal_map)
    PZ.orthogonal(pm, "w", orthogonal_map=orthogonal_map)
    pm.load_state_dict(arrays(tm.state_dict()))        # the random completion of base
    rtol, atol = (1e-4, 1e-5) if dtype == "float32" else (1e-10, 1e-12)
    close(pm.w, tm.w, rtol, atol)
    cot = rng.standard_normal((2, 4, 3)).astype(dtype)
    (tm.w * torch.tensor(cot)).sum().backward()
    (pm.w * pyad.tensor(cot)).sum().backward()
    close(pm.parametrizations.w.original.grad, tm.parametrizations.w.original.grad, rtol,
          atol)
