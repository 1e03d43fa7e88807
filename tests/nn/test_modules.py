"""pyad.nn modules against torch.nn: registration, traversal, state_dict, repr,
initialisation, and the layers' outputs and gradients on the same weights."""
import collections
import math
import re
import warnings

import numpy as np
import pytest

import pyad
from pyad import nn
from pyad.nn import functional as F
from pyad.autograd import gradcheck, gradgradcheck

torch = pytest.importorskip("torch")


def needs(*names):
    missing = [n for n in names if not hasattr(F, n)]
    return pytest.mark.skipif(bool(missing), reason="pyad.nn.functional lacks %s" % missing)


def T(v):
    """A torch tensor with the data of a pyad Variable (or array)."""
    return torch.tensor(np.asarray(v.data if isinstance(v, pyad.Variable) else v))


def copy_weights(pyad_module, torch_module):
    """Give the pyad module the torch module's parameters and buffers (same names)."""
    state = {k: v.detach().numpy().copy() for k, v in torch_module.state_dict().items()}
    pyad_module.load_state_dict(state)


def zoo(lib):
    """The same model written with torch.nn or pyad.nn (construction only)."""
    n = lib.nn if hasattr(lib, "nn") else lib
    return n.Sequential(
        n.Conv2d(1, 4, 3, padding=1), n.Conv2d(4, 4, (3, 5), stride=2, bias=False, groups=2,
                                               dilation=2),
        n.BatchNorm2d(4), n.BatchNorm2d(4, affine=False, momentum=None), n.ReLU(),
        n.ReLU(inplace=True), n.MaxPool2d(2), n.MaxPool2d(3, stride=1, padding=1),
        n.Flatten(), n.Linear(16, 8), n.Linear(8, 8, bias=False), n.Tanh(), n.Sigmoid(),
        n.GELU(), n.GELU(approximate="tanh"), n.Softmax(dim=1), n.LogSoftmax(dim=-1),
        n.Softmax(), n.Dropout(0.2), n.LayerNorm(8),
        n.LayerNorm((2, 4), elementwise_affine=False), n.Embedding(10, 3),
        n.Embedding(10, 3, padding_idx=0), n.ModuleList([n.Linear(1, 1), n.Identity()]),
        n.CrossEntropyLoss(), n.MSELoss(reduction="sum"),
        n.LeakyReLU(), n.LeakyReLU(0.2, inplace=True), n.ELU(), n.ELU(alpha=0.5, inplace=True),
        n.CELU(), n.CELU(2.0, True), n.SELU(), n.SELU(inplace=True), n.SiLU(), n.SiLU(True),
        n.Mish(), n.Mish(inplace=True), n.Softplus(), n.Softplus(beta=2, threshold=10.0),
        n.Hardtanh(), n.Hardtanh(-2.0, 3, inplace=True), n.ReLU6(), n.ReLU6(inplace=True),
        n.Hardsigmoid(), n.Hardswish(inplace=True), n.LogSigmoid(), n.Softsign(),
        n.Tanhshrink(), n.Softshrink(), n.Softshrink(1.5), n.Hardshrink(lambd=0.25),
        n.Threshold(0.1, 20), n.Threshold(-1.0, 0.0, inplace=True), n.GLU(), n.GLU(dim=1),
        n.Unflatten(1, (2, 4)), n.Unflatten(-1, [3, 1]),
        n.L1Loss(), n.L1Loss(reduction="sum"), n.SmoothL1Loss(beta=0.5), n.HuberLoss(),
        n.HuberLoss(reduction="none", delta=2.0), n.BCELoss(), n.BCELoss(weight=lib.ones(3)),
        n.BCEWithLogitsLoss(), n.BCEWithLogitsLoss(pos_weight=lib.ones(2)),
        n.NLLLoss(), n.NLLLoss(weight=lib.ones(4), ignore_index=3), n.KLDivLoss(),
        n.KLDivLoss(reduction="batchmean", log_target=True),
        n.MarginRankingLoss(margin=0.5), n.HingeEmbeddingLoss(), n.SoftMarginLoss(),
        n.TripletMarginLoss(p=1.0, swap=True), n.PoissonNLLLoss(log_input=False),
        n.GaussianNLLLoss(full=True), n.CosineEmbeddingLoss(0.1), n.MultiMarginLoss(),
        n.MultiMarginLoss(p=2, weight=lib.ones(4)))


# -- Parameter ------------------------------------------------------------------------------


def test_parameter_is_a_leaf_variable_that_requires_grad_and_prints_like_torch():
    p = nn.Parameter(pyad.zeros(2))
    assert isinstance(p, pyad.Variable) and p.is_leaf and p.requires_grad
    assert repr(p) == repr(torch.nn.Parameter(torch.zeros(2)))
    assert str(p) == str(torch.nn.Parameter(torch.zeros(2)))
    assert nn.Parameter(pyad.zeros(2), requires_grad=False).requires_grad is False
    assert type(p * 2) is pyad.Variable          # ops give plain Variables, as torch


def test_parameter_shares_memory_with_its_data():
    base = pyad.zeros(3)
    p = nn.Parameter(base)
    with pyad.no_grad():
        p.add_(1.0)
    assert base.data.tolist() == [1.0, 1.0, 1.0]


def test_integer_parameter_that_requires_grad_is_refused():
    with pytest.raises(RuntimeError):
        nn.Parameter(pyad.tensor([1, 2]))


# -- registration and traversal ------------------------------------------------------------


def custom(lib):
    n = lib.nn

    class Block(n.Module):
        def __init__(self):
            super().__init__()
            self.scale = n.Parameter(lib.ones(2))
            self.register_parameter("unused", None)
            self.register_buffer("count", lib.zeros(1))
            self.register_buffer("scratch", lib.zeros(1), persistent=False)
            self.inner = n.Linear(2, 2)

        def forward(self, x):
            return self.inner(x) * self.scale

    class Net(n.Module):
        def __init__(self):
            super().__init__()
            self.first = Block()
            self.shared = n.Linear(2, 2)
            self.again = self.shared                  # the same module twice
            self.plain = 3                            # not registered
            self.stack = n.Sequential(Block(), n.ReLU())

        def forward(self, x):
            return self.stack(self.again(self.shared(self.first(x))))
    return Net()


def test_traversal_names_match_torch():
    a, b = custom(torch), custom(pyad)
    assert [n for n, _ in b.named_parameters()] == [n for n, _ in a.named_parameters()]
    assert [n for n, _ in b.named_buffers()] == [n for n, _ in a.named_buffers()]
    assert [n for n, _ in b.named_children()] == [n for n, _ in a.named_children()]
    assert [n for n, _ in b.named_modules()] == [n for n, _ in a.named_modules()]
    assert list(b.state_dict()) == list(a.state_dict())
    assert len(list(b.parameters())) == len(list(a.parameters()))
    assert len(list(b.modules())) == len(list(a.modules()))
    assert ([n for n, _ in b.named_parameters(remove_duplicate=False)]
            == [n for n, _ in a.named_parameters(remove_duplicate=False)])
    assert ([n for n, _ in b.named_parameters(recurse=False)]
            == [n for n, _ in a.named_parameters(recurse=False)])
    assert b.plain == 3 and "plain" not in dict(b.named_children())


def test_forward_through_a_custom_module_matches_torch():
    a, b = custom(torch).double(), custom(pyad).double()
    copy_weights(b, a)
    x = np.random.default_rng(0).normal(size=(3, 2))
    out_t = a(torch.tensor(x))
    out_p = b(pyad.tensor(x))
    np.testing.assert_allclose(out_p.data, out_t.detach().numpy(), rtol=1e-12)
    out_t.sum().backward()
    out_p.sum().backward()
    for (name, p), (_, q) in zip(b.named_parameters(), a.named_parameters()):
        np.testing.assert_allclose(p.grad.data, q.grad.numpy(), rtol=1e-12, err_msg=name)


def test_zoo_state_dict_names_shapes_and_dtypes_match_torch():
    a, b = zoo(torch), zoo(pyad)
    sa, sb = a.state_dict(), b.state_dict()
    assert list(sb) == list(sa)
    for k in sa:
        assert tuple(sb[k].shape) == tuple(sa[k].shape), k
        assert str(sb[k].dtype) == str(sa[k].dtype).replace("torch.", ""), k
        assert type(sb[k]) is pyad.Variable and not sb[k].requires_grad
    assert isinstance(sb, collections.OrderedDict)


def test_zoo_repr_matches_torch():
    assert repr(zoo(pyad)) == repr(zoo(torch))


def test_state_dict_shares_memory_and_keep_vars_gives_the_parameters():
    lin = nn.Linear(2, 2)
    state = lin.state_dict()
    assert np.shares_memory(state["weight"].data, lin.weight.data)
    assert lin.state_dict(keep_vars=True)["weight"] is lin.weight


def test_assigning_a_variable_to_a_parameter_name_is_refused():
    lin = nn.Linear(2, 2)
    with pytest.raises(TypeError, match="parameter 'weight'"):
        lin.weight = pyad.zeros(2, 2)
    lin.bias = None                                   # None is allowed, as torch
    assert "bias" not in lin.state_dict()
    with pytest.raises(TypeError, match="parameter 'w2'"):
        lin.register_parameter("w2", nn.Parameter(pyad.zeros(1)) * 2)


def test_reassigning_a_name_moves_it_between_kinds():
    m = nn.Module()
    m.thing = nn.Linear(1, 1)
    m.thing = nn.Parameter(pyad.zeros(1))
    assert list(dict(m.named_children())) == [] and list(dict(m.named_parameters())) == ["thing"]
    del m.thing
    assert list(m.parameters()) == []
    with pytest.raises(AttributeError, match="'Module' object has no attribute 'thing'"):
        m.thing


def test_assignment_before_init_is_a_clear_error():
    class Bad(nn.Module):
        def __init__(self):
            self.w = nn.Parameter(pyad.zeros(1))
    with pytest.raises(AttributeError, match="before Module.__init__"):
        Bad()


def test_module_without_forward_raises_not_implemented():
    with pytest.raises(NotImplementedError, match="forward"):
        nn.Module()(1)


# -- load_state_dict ---------------------------------------------------------------------


def test_load_state_dict_copies_in_place_and_casts():
    lin = nn.Linear(3, 2)
    weight, version = lin.weight, lin.weight._version
    new = {"weight": np.arange(6.0).reshape(2, 3), "bias": pyad.tensor([1.0, 2.0],
                                                                       dtype=pyad.float64)}
    result = lin.load_state_dict(new)
    assert result.missing_keys == [] and result.unexpected_keys == []
    assert lin.weight is weight and weight._version > version
    assert lin.weight.dtype == np.float32 and lin.weight.requires_grad
    assert lin.weight.data.tolist() == [[0, 1, 2], [3, 4, 5]]
    assert lin.bias.data.tolist() == [1.0, 2.0]


def test_load_state_dict_non_strict_reports_keys_as_torch():
    a, b = torch.nn.Sequential(torch.nn.Linear(2, 2)), nn.Sequential(nn.Linear(2, 2))
    state = {"0.weight": np.zeros((2, 2), np.float32), "extra": np.zeros(1, np.float32)}
    ra = a.load_state_dict({k: torch.tensor(v) for k, v in state.items()}, strict=False)
    rb = b.load_state_dict(state, strict=False)
    assert (rb.missing_keys, rb.unexpected_keys) == (ra.missing_keys, ra.unexpected_keys)
    assert rb.missing_keys == ["0.bias"] and rb.unexpected_keys == ["extra"]


@pytest.mark.parametrize("strict", [True, False])
def test_load_state_dict_errors_read_as_torch(strict):
    state = {"weight": np.zeros((3, 2), np.float32), "extra": np.zeros(1, np.float32)}
    with pytest.raises(RuntimeError) as et:
        torch.nn.Linear(2, 2).load_state_dict({k: torch.tensor(v) for k, v in state.items()},
                                              strict=strict)
    with pytest.raises(RuntimeError) as ep:
        nn.Linear(2, 2).load_state_dict(state, strict=strict)
    # pyad shapes are tuples: torch.Size([3, 2]) reads (3, 2)
    torch_text = re.sub(r"torch\.Size\(\[(\d+), (\d+)\]\)", r"(\1, \2)", str(et.value))
    assert str(ep.value) == torch_text
    assert "size mismatch for weight" in str(ep.value)


def test_load_state_dict_strict_missing_and_unexpected_message_matches_torch():
    with pytest.raises(RuntimeError) as et:
        torch.nn.Linear(2, 2).load_state_dict({"weight": torch.zeros(2, 2), "x": torch.ones(1)})
    with pytest.raises(RuntimeError) as ep:
        nn.Linear(2, 2).load_state_dict({"weight": pyad.zeros(2, 2), "x": pyad.ones(1)})
    assert str(ep.value) == str(et.value)


def test_load_state_dict_round_trip_between_modules():
    a, b = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 1)), \
        nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 1))
    b.load_state_dict(a.state_dict())
    x = pyad.randn(5, 3)
    assert np.array_equal(a(x).data, b(x).data)


# -- modes, gradients, dtype ------------------------------------------------------------


def test_train_and_eval_propagate():
    net = zoo(pyad)
    assert net.training and all(m.training for m in net.modules())
    assert net.eval() is net
    assert not any(m.training for m in net.modules())
    net.train()
    assert all(m.training for m in net.modules())
    with pytest.raises(ValueError):
        net.train("yes")


@pytest.mark.parametrize("set_to_none", [True, False])
def test_zero_grad(set_to_none):
    lin = nn.Linear(2, 1)
    lin(pyad.ones(1, 2)).sum().backward()
    lin.zero_grad(set_to_none=set_to_none)
    if set_to_none:
        assert lin.weight.grad is None and lin.bias.grad is None
    else:
        assert lin.weight.grad.data.tolist() == [[0.0, 0.0]]
    lin(pyad.ones(1, 2)).sum().backward()
    assert lin.weight.grad.data.tolist() == [[1.0, 1.0]]


def test_zero_grad_default_is_set_to_none():
    lin = nn.Linear(2, 1)
    lin(pyad.ones(1, 2)).sum().backward()
    lin.zero_grad()
    assert lin.weight.grad is None


def test_requires_grad_():
    lin = nn.Linear(2, 1).requires_grad_(False)
    assert not any(p.requires_grad for p in lin.parameters())


def test_to_double_keeps_parameter_objects_and_integer_buffers_as_torch():
    a, b = torch.nn.BatchNorm2d(3).double(), nn.BatchNorm2d(3)
    weight = b.weight
    b.weight.grad = pyad.ones(3)
    assert b.double() is b
    assert b.weight is weight and isinstance(b.weight, nn.Parameter) and b.weight.requires_grad
    for (k, v), (_, w) in zip(b.state_dict().items(), a.state_dict().items()):
        assert str(v.dtype) == str(w.dtype).replace("torch.", ""), k
    assert b.weight.grad.dtype == np.float64
    assert b.float().weight.dtype == np.float32
    assert b.to(pyad.float64).running_mean.dtype == np.float64
    assert b.to("cpu", dtype=pyad.float32).running_var.dtype == np.float32
    with pytest.raises(TypeError, match="floating point"):
        b.to(pyad.int64)


def test_apply_visits_children_first_as_torch():
    seen_t, seen_p = [], []
    zoo(torch).apply(lambda m: seen_t.append(type(m).__name__))
    zoo(pyad).apply(lambda m: seen_p.append(type(m).__name__))
    assert seen_p == seen_t


# -- containers ------------------------------------------------------------------------------


def test_sequential_indexing_len_iteration_as_torch():
    a, b = zoo(torch), zoo(pyad)
    assert len(b) == len(a)
    assert [type(m).__name__ for m in b] == [type(m).__name__ for m in a]
    assert type(b[-1]).__name__ == "MultiMarginLoss" and b[0] is list(b)[0]
    assert repr(b[2:5]) == repr(a[2:5])
    with pytest.raises(IndexError):
        b[len(b)]
    del a[1]
    del b[1]
    assert list(b.state_dict()) == list(a.state_dict())
    b.append(nn.Tanh())
    assert type(b[-1]) is nn.Tanh
    od = nn.Sequential(collections.OrderedDict([("fc", nn.Linear(1, 2)), ("act", nn.ReLU())]))
    assert list(od.state_dict()) == ["fc.weight", "fc.bias"] and od.act is od[1]


def test_module_list():
    layers = nn.ModuleList([nn.Linear(2, 2)])
    layers.append(nn.Linear(2, 3))
    layers += [nn.ReLU()]
    layers.insert(0, nn.Tanh())
    assert [type(m).__name__ for m in layers] == ["Tanh", "Linear", "Linear", "ReLU"]
    assert list(layers.state_dict()) == ["1.weight", "1.bias", "2.weight", "2.bias"]
    assert len(layers[1:]) == 3 and layers[-1] is list(layers)[-1]
    del layers[0]
    assert list(layers.state_dict()) == ["0.weight", "0.bias", "1.weight", "1.bias"]


# -- initialisation ----------------------------------------------------------------------


def test_linear_and_conv_initialisation_follow_torch_bounds():
    pyad.manual_seed(0)
    lin = nn.Linear(400, 300)
    w, b = lin.weight.data, lin.bias.data
    bound = 1 / math.sqrt(400)
    assert np.abs(w).max() <= bound and np.abs(w).max() > 0.99 * bound
    assert abs(w.var() / (bound ** 2 / 3) - 1) < 0.03      # U(-b, b) has variance b^2/3
    assert np.abs(b).max() <= bound
    conv = nn.Conv2d(8, 64, 5)
    bound = 1 / math.sqrt(8 * 5 * 5)
    assert np.abs(conv.weight.data).max() <= bound
    assert abs(conv.weight.data.var() / (bound ** 2 / 3) - 1) < 0.05
    assert np.abs(conv.bias.data).max() <= bound


def test_initialisation_is_reproducible_with_manual_seed():
    pyad.manual_seed(3)
    a = nn.Sequential(nn.Linear(4, 4), nn.Embedding(5, 2), nn.Conv2d(1, 2, 3))
    pyad.manual_seed(3)
    b = nn.Sequential(nn.Linear(4, 4), nn.Embedding(5, 2), nn.Conv2d(1, 2, 3))
    for k, v in a.state_dict().items():
        assert np.array_equal(v.data, b.state_dict()[k].data), k


def test_embedding_and_norm_initialisation():
    pyad.manual_seed(1)
    emb = nn.Embedding(1000, 100, padding_idx=3)
    w = emb.weight.data
    assert abs(w.mean()) < 0.01 and abs(w.std() - 1) < 0.01
    assert not w[3].any()
    ln, bn = nn.LayerNorm(4), nn.BatchNorm2d(2)
    assert ln.weight.data.tolist() == [1] * 4 and ln.bias.data.tolist() == [0] * 4
    assert bn.running_var.data.tolist() == [1, 1] and int(bn.num_batches_tracked.item()) == 0
    assert bn.num_batches_tracked.dtype == np.int64


@pytest.mark.parametrize("nonlinearity,param", [("relu", None), ("tanh", None),
                                                ("leaky_relu", None), ("leaky_relu", 0.2),
                                                ("sigmoid", None), ("conv2d", None),
                                                ("selu", None)])
def test_calculate_gain_matches_torch(nonlinearity, param):
    assert nn.init.calculate_gain(nonlinearity, param) == pytest.approx(
        torch.nn.init.calculate_gain(nonlinearity, param), rel=1e-15)


def test_init_functions_fill_in_place_with_the_stated_bounds():
    w = pyad.empty(50, 20, dtype=pyad.float64)
    version = w._version
    assert nn.init.kaiming_uniform_(w, nonlinearity="relu") is w and w._version > version
    assert np.abs(w.data).max() <= math.sqrt(6 / 20)
    nn.init.kaiming_uniform_(w, mode="fan_out", nonlinearity="relu")
    assert np.abs(w.data).max() <= math.sqrt(6 / 50)
    nn.init.xavier_uniform_(w, gain=2.0)
    assert np.abs(w.data).max() <= 2.0 * math.sqrt(6 / 70)
    assert nn.init.constant_(w, 0.25).data.min() == 0.25
    assert not nn.init.zeros_(w).data.any() and nn.init.ones_(w).data.min() == 1.0
    nn.init.uniform_(w, 2.0, 3.0)
    assert w.data.min() >= 2.0 and w.data.max() < 3.0
    with pytest.raises(ValueError, match="fewer than 2 dimensions"):
        nn.init.xavier_uniform_(pyad.empty(3))
    with pytest.raises(ValueError, match="Mode"):
        nn.init.kaiming_uniform_(w, mode="fan_middle")


def test_init_on_a_parameter_is_allowed_and_bumps_its_version():
    p = nn.Parameter(pyad.zeros(3, 3))
    nn.init.normal_(p)
    assert p._version == 1 and p.requires_grad and p.is_leaf


# -- layers against torch -----------------------------------------------------------------


def _pair(n_pyad, n_torch, x, dtype=torch.float64):
    a = n_torch.to(dtype)
    b = n_pyad.double() if dtype == torch.float64 else n_pyad
    copy_weights(b, a)
    xt = torch.tensor(x, requires_grad=x.dtype.kind == "f")
    xp = pyad.tensor(x, requires_grad=x.dtype.kind == "f")
    return a, b, xt, xp


def _check_forward_backward(n_pyad, n_torch, x, rtol=1e-10, atol=1e-12):
    a, b, xt, xp = _pair(n_pyad, n_torch, x)
    out_t, out_p = a(xt), b(xp)
    np.testing.assert_allclose(out_p.data, out_t.detach().numpy(), rtol=rtol, atol=atol)
    g = np.random.default_rng(7).normal(size=out_t.shape)
    out_t.backward(torch.tensor(g))
    out_p.backward(pyad.tensor(g))
    if xt.requires_grad:
        np.testing.assert_allclose(xp.grad.data, xt.grad.numpy(), rtol=rtol, atol=atol)
    for (name, p), (_, q) in zip(b.named_parameters(), a.named_parameters()):
        np.testing.assert_allclose(p.grad.data, q.grad.numpy(), rtol=rtol, atol=atol,
                                   err_msg=name)
    for (name, p), (_, q) in zip(b.named_buffers(), a.named_buffers()):
        np.testing.assert_allclose(p.data, q.numpy(), rtol=rtol, atol=atol, err_msg=name)
    return b, xp


def _x(*shape, seed=0):
    return np.random.default_rng(seed).normal(size=shape)


def test_linear_matches_torch():
    _check_forward_backward(nn.Linear(3, 4), torch.nn.Linear(3, 4), _x(5, 3))
    _check_forward_backward(nn.Linear(3, 2, bias=False), torch.nn.Linear(3, 2, bias=False),
                            _x(2, 4, 3))


def test_modules_pass_gradcheck_for_input_and_parameters():
    # gradcheck perturbs the Variables it is given in place, so passing the module's own
    # parameters checks the derivatives with respect to them.
    pyad.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 4), nn.Sigmoid(),
                          nn.Flatten(0), nn.Identity()).double()
    x = pyad.randn(2, 3, dtype=pyad.float64, requires_grad=True)
    inputs = (x, *model.parameters())
    assert gradcheck(lambda x, *params: model(x), inputs)
    assert gradgradcheck(lambda x, *params: model(x), inputs)


@pytest.mark.parametrize("name", ["ReLU", "Tanh", "Sigmoid", "Flatten", "Identity"])
def test_elementwise_and_flatten_modules_match_torch(name):
    _check_forward_backward(getattr(nn, name)(), getattr(torch.nn, name)(), _x(2, 3, 4))


def test_flatten_dims_match_torch():
    _check_forward_backward(nn.Flatten(0, 1), torch.nn.Flatten(0, 1), _x(2, 3, 4))


def test_relu_inplace_matches_torch_on_a_non_leaf():
    x = _x(3, 4)
    xt = torch.tensor(x, requires_grad=True)
    xp = pyad.tensor(x, requires_grad=True)
    out_t = torch.nn.ReLU(inplace=True)(xt * 2)
    out_p = nn.ReLU(inplace=True)(xp * 2)
    np.testing.assert_allclose(out_p.data, out_t.detach().numpy())
    out_t.sum().backward()
    out_p.sum().backward()
    np.testing.assert_allclose(xp.grad.data, xt.grad.numpy())


def test_sequential_mlp_matches_torch():
    def mlp(n):
        return n.Sequential(n.Linear(3, 5), n.Tanh(), n.Linear(5, 5), n.ReLU(),
                            n.Linear(5, 2), n.Sigmoid())
    _check_forward_backward(mlp(nn), mlp(torch.nn), _x(4, 3))


@needs("conv2d")
@pytest.mark.parametrize("kwargs", [dict(), dict(stride=2, padding=1),
                                    dict(padding=(1, 2), dilation=2, bias=False),
                                    dict(groups=2, kernel_size=(2, 3))])
def test_conv2d_matches_torch(kwargs):
    kw = dict(in_channels=2, out_channels=4, kernel_size=3)
    kw.update(kwargs)
    _check_forward_backward(nn.Conv2d(**kw), torch.nn.Conv2d(**kw), _x(2, 2, 7, 8),
                            rtol=1e-9)


@needs("max_pool2d")
@pytest.mark.parametrize("args,kwargs", [((2,), {}), ((3,), dict(stride=1, padding=1)),
                                         ((2,), dict(ceil_mode=True))])
def test_max_pool2d_matches_torch(args, kwargs):
    _check_forward_backward(nn.MaxPool2d(*args, **kwargs), torch.nn.MaxPool2d(*args, **kwargs),
                            _x(2, 3, 7, 7))


@needs("gelu")
@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_gelu_matches_torch(approximate):
    _check_forward_backward(nn.GELU(approximate), torch.nn.GELU(approximate), _x(3, 4))


@needs("dropout")
def test_dropout_is_identity_in_eval_and_scales_in_training():
    drop = nn.Dropout(0.25)
    x = pyad.ones(2000, dtype=pyad.float64)
    out = drop(x)
    kept = out.data != 0
    np.testing.assert_allclose(out.data[kept], 1 / 0.75)
    assert 0.2 < 1 - kept.mean() < 0.3
    assert np.array_equal(drop.eval()(x).data, x.data)


@needs("layer_norm")
@pytest.mark.parametrize("shape,kwargs", [((4,), {}), ((3, 4), {}),
                                          ((4,), dict(elementwise_affine=False)),
                                          ((4,), dict(bias=False))])
def test_layer_norm_matches_torch(shape, kwargs):
    a = torch.nn.LayerNorm(shape, **kwargs)
    if a.weight is not None:               # not the trivial ones/zeros
        with torch.no_grad():
            a.weight.normal_()
            if a.bias is not None:
                a.bias.normal_()
    _check_forward_backward(nn.LayerNorm(shape, **kwargs), a, _x(2, 3, 4), rtol=1e-9)


@needs("batch_norm")
@pytest.mark.parametrize("kwargs", [{}, dict(momentum=None), dict(affine=False),
                                    dict(track_running_stats=False)])
def test_batch_norm2d_training_steps_and_eval_match_torch(kwargs):
    a = torch.nn.BatchNorm2d(3, **kwargs).double()
    b = nn.BatchNorm2d(3, **kwargs).double()
    copy_weights(b, a)
    for step in range(3):
        x = _x(4, 3, 5, 5, seed=step) * (step + 1) + step
        out_t, out_p = a(torch.tensor(x)), b(pyad.tensor(x))
        np.testing.assert_allclose(out_p.data, out_t.detach().numpy(), rtol=1e-9, atol=1e-12)
    for (k, v), (_, w) in zip(b.state_dict().items(), a.state_dict().items()):
        np.testing.assert_allclose(v.data, w.numpy(), rtol=1e-12, err_msg=k)
    a.eval()
    b.eval()
    _check_forward_backward(b, a, _x(2, 3, 4, 4, seed=9), rtol=1e-9)


def test_batch_norm2d_refuses_non_4d_input():
    with pytest.raises(ValueError, match=r"BatchNorm2d\(\): expected 4D input"):
        nn.BatchNorm2d(3)(pyad.zeros(2, 3))


@needs("embedding")
@pytest.mark.parametrize("padding_idx", [None, 1])
def test_embedding_matches_torch(padding_idx):
    a, b = torch.nn.Embedding(5, 3, padding_idx=padding_idx).double(), \
        nn.Embedding(5, 3, padding_idx=padding_idx).double()
    copy_weights(b, a)
    idx = np.array([[0, 1, 1], [4, 2, 1]])
    out_t, out_p = a(torch.tensor(idx)), b(pyad.tensor(idx))
    np.testing.assert_allclose(out_p.data, out_t.detach().numpy())
    g = _x(2, 3, 3)
    out_t.backward(torch.tensor(g))
    out_p.backward(pyad.tensor(g))
    np.testing.assert_allclose(b.weight.grad.data, a.weight.grad.numpy(), rtol=1e-12)


@needs("cross_entropy")
@pytest.mark.parametrize("kwargs", [{}, dict(reduction="sum"), dict(ignore_index=1),
                                    dict(label_smoothing=0.1)])
def test_cross_entropy_loss_matches_torch(kwargs):
    x, y = _x(5, 4), np.array([0, 3, 1, 1, 2])
    xt, xp = torch.tensor(x, requires_grad=True), pyad.tensor(x, requires_grad=True)
    lt = torch.nn.CrossEntropyLoss(**kwargs)(xt, torch.tensor(y))
    lp = nn.CrossEntropyLoss(**kwargs)(xp, pyad.tensor(y))
    np.testing.assert_allclose(lp.data, lt.detach().numpy(), rtol=1e-12)
    lt.backward()
    lp.backward()
    np.testing.assert_allclose(xp.grad.data, xt.grad.numpy(), rtol=1e-10, atol=1e-14)


@needs("cross_entropy")
def test_cross_entropy_loss_class_weights_match_torch():
    w = np.array([1.0, 2.0, 0.5, 1.5])
    x, y = _x(5, 4), np.array([0, 3, 1, 1, 2])
    lt = torch.nn.CrossEntropyLoss(weight=torch.tensor(w))(torch.tensor(x), torch.tensor(y))
    loss = nn.CrossEntropyLoss(weight=pyad.tensor(w))
    assert "weight" in loss.state_dict()                # a buffer, as torch
    np.testing.assert_allclose(loss(pyad.tensor(x), pyad.tensor(y)).data, lt.numpy(),
                               rtol=1e-12)


@needs("mse_loss")
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_mse_loss_matches_torch(reduction):
    x, y = _x(3, 4), _x(3, 4, seed=1)
    xt, xp = torch.tensor(x, requires_grad=True), pyad.tensor(x, requires_grad=True)
    lt = torch.nn.MSELoss(reduction=reduction)(xt, torch.tensor(y))
    lp = nn.MSELoss(reduction=reduction)(xp, pyad.tensor(y))
    np.testing.assert_allclose(lp.data, lt.detach().numpy(), rtol=1e-12)
    lt.sum().backward()
    lp.sum().backward()
    np.testing.assert_allclose(xp.grad.data, xt.grad.numpy(), rtol=1e-12)


def test_conv2d_and_dropout_arguments_are_validated():
    with pytest.raises(ValueError, match="Conv2d"):
        nn.Conv2d(3, 4, 3, groups=2)
    with pytest.raises(ValueError, match=r"padding_mode must be one of"):
        nn.Conv2d(2, 2, 3, padding_mode="reflection")
    with pytest.raises(ValueError, match=r'Only "zeros" padding mode'):
        nn.ConvTranspose2d(2, 2, 3, padding_mode="reflect")
    with pytest.raises(ValueError, match="dropout probability"):
        nn.Dropout(1.5)


# -- forward hooks --------------------------------------------------------------------------


def _hooked_calls(lib):
    """The order of hook calls and the output of a Linear with pre/post hooks, some of
    which replace arguments or outputs, one prepended and one removed, in ``lib``."""
    n = lib.nn
    layer = n.Linear(3, 2)
    with lib.no_grad():
        layer.weight.copy_(lib.tensor(np.arange(6.0).reshape(2, 3)))
        layer.bias.fill_(0.5)
    calls = []
    layer.register_forward_pre_hook(lambda m, args: calls.append(("pre", len(args))))
    layer.register_forward_pre_hook(lambda m, args: (args[0] * 2,))
    layer.register_forward_pre_hook(lambda m, args: calls.append(("first",)), prepend=True)
    gone = layer.register_forward_pre_hook(lambda m, args: calls.append(("removed",)))
    gone.remove()
    layer.register_forward_hook(lambda m, args, out: calls.append(("post", tuple(out.shape))))
    layer.register_forward_hook(lambda m, args, out: out + args[0].sum())
    layer.register_forward_hook(
        lambda m, args, kwargs, out: calls.append(("kw", sorted(kwargs))), with_kwargs=True)
    out = layer(lib.ones(4, 3))
    return calls, out.detach().numpy()


def test_forward_hooks_run_in_torchs_order_and_replace_like_torch():
    calls, out = _hooked_calls(pyad)
    torch_calls, torch_out = _hooked_calls(torch)
    assert calls == torch_calls
    assert calls[0] == ("first",)
    np.testing.assert_allclose(out, torch_out)


def test_forward_pre_hook_with_kwargs_rewrites_both():
    seen = []

    class Scale(nn.Module):
        def forward(self, x, factor=1.0):
            return x * factor

    module = Scale()
    module.register_forward_pre_hook(lambda m, args, kwargs: (args, {"factor": 3.0}),
                                     with_kwargs=True)
    module.register_forward_hook(lambda m, args, out: seen.append(out.tolist()))
    assert module(pyad.tensor([1.0, 2.0]), factor=5.0).tolist() == [3.0, 6.0]
    assert seen == [[3.0, 6.0]]


def test_hooks_see_gradients_flow_through_replaced_outputs():
    layer = nn.Linear(2, 1)
    layer.register_forward_hook(lambda m, args, out: out * 3)
    x = pyad.ones(1, 2)
    layer(x).sum().backward()
    np.testing.assert_allclose(layer.weight.grad.data, np.full((1, 2), 3.0))


def test_bad_hooks_are_clear_errors():
    layer = nn.Identity()
    with pytest.raises(TypeError, match=r"register_forward_hook\(\)"):
        layer.register_forward_hook(3)
    layer.register_forward_pre_hook(lambda m, a, k: 5, with_kwargs=True)
    with pytest.raises(RuntimeError, match="forward pre-hook must return None or a tuple"):
        layer(pyad.ones(1))


# -- the activation and loss modules added with the extra functions -------------------------

ACTIVATION_MODULES = [
    ("LeakyReLU", (), {}), ("LeakyReLU", (0.2,), {}), ("ELU", (), {}),
    ("ELU", (), {"alpha": 0.5}), ("CELU", (1.5,), {}), ("SELU", (), {}), ("SiLU", (), {}),
    ("Mish", (), {}), ("Softplus", (), {}), ("Softplus", (), {"beta": 2.0, "threshold": 1.0}),
    ("Hardtanh", (), {}), ("Hardtanh", (-0.5, 2.0), {}), ("ReLU6", (), {}),
    ("Hardsigmoid", (), {}), ("Hardswish", (), {}), ("LogSigmoid", (), {}),
    ("Softsign", (), {}), ("Tanhshrink", (), {}), ("Softshrink", (), {}),
    ("Hardshrink", (0.8,), {}), ("Threshold", (0.2, -1.0), {}), ("GLU", (), {}),
    ("GLU", (), {"dim": 1}), ("Unflatten", (1, (2, 2)), {}),
]
FUNCTIONAL_OF = {"LeakyReLU": "leaky_relu", "ELU": "elu", "CELU": "celu", "SELU": "selu",
                 "SiLU": "silu", "Mish": "mish", "Softplus": "softplus",
                 "Hardtanh": "hardtanh", "ReLU6": "relu6", "Hardsigmoid": "hardsigmoid",
                 "Hardswish": "hardswish", "LogSigmoid": "logsigmoid",
                 "Softsign": "softsign", "Tanhshrink": "tanhshrink",
                 "Softshrink": "softshrink", "Hardshrink": "hardshrink",
                 "Threshold": "threshold", "GLU": "glu"}


@pytest.mark.parametrize("name, args, kwargs", ACTIVATION_MODULES,
                         ids=["%s%s%s" % (n, a, k) for n, a, k in ACTIVATION_MODULES])
def test_activation_modules_match_torch_and_their_functional(name, args, kwargs):
    x = _x(3, 4, 2) * 2                      # past the kinks at +-3 too
    mp, mt = getattr(nn, name)(*args, **kwargs), getattr(torch.nn, name)(*args, **kwargs)
    assert repr(mp) == repr(mt)
    assert len(mp.state_dict()) == 0 and list(mp.parameters()) == []
    # torch's hardsigmoid gradient is 1/6 rounded to float32 (docs/nn-functional.md)
    _check_forward_backward(mp, mt, x, rtol=1e-7 if name == "Hardsigmoid" else 1e-10)
    if name in FUNCTIONAL_OF:
        out = mp(pyad.tensor(x))
        fargs = args if name != "GLU" else (kwargs.get("dim", -1),)
        fkwargs = kwargs if name != "GLU" else {}
        ref = getattr(F, FUNCTIONAL_OF[name])(pyad.tensor(x), *fargs, **fkwargs)
        np.testing.assert_array_equal(out.data, ref.data)


@pytest.mark.parametrize("name", ["LeakyReLU", "ELU", "CELU", "SELU", "SiLU", "Mish",
                                  "Hardtanh", "ReLU6", "Hardsigmoid", "Hardswish"])
def test_inplace_activation_modules_overwrite_a_non_leaf_as_torch(name):
    x = _x(2, 3) * 3
    xp = pyad.tensor(x, requires_grad=True)
    xt = torch.tensor(x, requires_grad=True)
    hp, ht = xp * 1.0, xt * 1.0
    yp = getattr(nn, name)(inplace=True)(hp)
    yt = getattr(torch.nn, name)(inplace=True)(ht)
    assert yp is hp
    np.testing.assert_allclose(hp.data, ht.detach().numpy(), rtol=1e-12, atol=1e-15)
    (yp * yp).sum().backward()
    (yt * yt).sum().backward()
    np.testing.assert_allclose(xp.grad.data, xt.grad.numpy(), rtol=1e-7, atol=1e-15)


def test_threshold_inplace_module_and_repr():
    m, mt = nn.Threshold(0.5, 9.0, inplace=True), torch.nn.Threshold(0.5, 9.0, inplace=True)
    assert repr(m) == repr(mt)
    h = pyad.tensor(np.array([0.2, 1.0])) * 1.0
    assert m(h) is h and h.tolist() == [9.0, 1.0]


def test_hardtanh_module_checks_its_bounds_and_takes_the_deprecated_keywords():
    with pytest.raises(AssertionError, match=r"hardtanh\(\): max_val"):
        nn.Hardtanh(1.0, -1.0)
    with pytest.raises(AssertionError):
        torch.nn.Hardtanh(1.0, -1.0)
    with pytest.warns(FutureWarning, match="min_value"):
        m = nn.Hardtanh(min_value=-2.0)
    with pytest.warns(FutureWarning):
        mt = torch.nn.Hardtanh(min_value=-2.0)
    assert repr(m) == repr(mt) and m.min_val == -2.0


def test_unflatten_module_matches_torch_and_checks_its_size():
    x = _x(2, 6, 3)
    for args in ((1, (2, 3)), (-1, [3, 1]), (1, (-1, 2))):
        m, mt = nn.Unflatten(*args), torch.nn.Unflatten(*args)
        assert repr(m) == repr(mt)
        _check_forward_backward(m, mt, x)
    with pytest.raises(TypeError, match=r"unflatten\(\): unflattened_size must be tuple of "
                                        r"ints, but found element of type float at pos 1"):
        nn.Unflatten(1, (2, 3.0))
    with pytest.raises(TypeError):
        torch.nn.Unflatten(1, (2, 3.0))


def _loss_inputs(name):
    rng = np.random.default_rng(3)
    x = rng.normal(size=(4, 3))
    if name == "BCELoss":
        return 1 / (1 + np.exp(-x)), rng.uniform(size=(4, 3))
    if name == "NLLLoss":
        return x, np.array([0, 2, 1, 2])
    if name == "KLDivLoss":
        return x - np.log(np.exp(x).sum(1, keepdims=True)), rng.dirichlet(np.ones(3), 4)
    return x, rng.normal(size=(4, 3))


LOSS_MODULES = [
    ("L1Loss", {}), ("L1Loss", {"reduction": "sum"}), ("SmoothL1Loss", {}),
    ("SmoothL1Loss", {"beta": 0.3, "reduction": "none"}), ("HuberLoss", {}),
    ("HuberLoss", {"delta": 0.4, "reduction": "sum"}), ("BCELoss", {}),
    ("BCELoss", {"weight": np.array([1.0, 2.0, 0.5])}), ("BCEWithLogitsLoss", {}),
    ("BCEWithLogitsLoss", {"weight": np.array([1.0, 2.0, 0.5]),
                           "pos_weight": np.array([3.0, 1.0, 0.2]), "reduction": "none"}),
    ("NLLLoss", {}), ("NLLLoss", {"weight": np.array([1.0, 2.0, 0.5]), "ignore_index": 1}),
    ("KLDivLoss", {"reduction": "batchmean"}), ("KLDivLoss", {"reduction": "sum"}),
    ("L1Loss", {"size_average": False}), ("NLLLoss", {"reduce": False}),
]


@pytest.mark.parametrize("name, kwargs", LOSS_MODULES,
                         ids=["%s%s" % (n, sorted(k)) for n, k in LOSS_MODULES])
def test_loss_modules_match_torch_and_their_functional(name, kwargs):
    x, y = _loss_inputs(name)
    kp = {k: pyad.tensor(v) if isinstance(v, np.ndarray) else v for k, v in kwargs.items()}
    kt = {k: torch.tensor(v) if isinstance(v, np.ndarray) else v for k, v in kwargs.items()}
    mp = getattr(nn, name)(**kp)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")         # torch warns about size_average / reduce
        mt = getattr(torch.nn, name)(**kt)
    assert repr(mp) == repr(mt)
    assert sorted(mp.state_dict()) == sorted(mt.state_dict())   # weights are buffers
    assert mp.reduction == mt.reduction
    xp = pyad.tensor(x, requires_grad=True)
    xt = torch.tensor(x, requires_grad=True)
    lp, lt = mp(xp, pyad.tensor(y)), mt(xt, torch.tensor(y))
    np.testing.assert_allclose(lp.data, lt.detach().numpy(), rtol=1e-12)
    lp.sum().backward()
    lt.sum().backward()
    np.testing.assert_allclose(xp.grad.data, xt.grad.numpy(), rtol=1e-12, atol=1e-15)
    if not any(k in kwargs for k in ("size_average", "reduce")):
        fname = {"L1Loss": "l1_loss", "SmoothL1Loss": "smooth_l1_loss",
                 "HuberLoss": "huber_loss", "BCELoss": "binary_cross_entropy",
                 "BCEWithLogitsLoss": "binary_cross_entropy_with_logits",
                 "NLLLoss": "nll_loss", "KLDivLoss": "kl_div"}[name]
        ref = getattr(F, fname)(pyad.tensor(x), pyad.tensor(y), **kp)
        np.testing.assert_array_equal(mp(pyad.tensor(x), pyad.tensor(y)).data, ref.data)


def _pm1(shape, seed):
    return np.where(np.random.default_rng(seed).uniform(size=shape) > 0.5, 1.0, -1.0)


MORE_LOSS_MODULES = [
    ("MarginRankingLoss", {"margin": 0.5}, lambda: (_x(4, 3), _x(4, 3, seed=1)),
     lambda: (_pm1((4, 3), 2),)),
    ("HingeEmbeddingLoss", {"margin": 0.7, "reduction": "sum"}, lambda: (_x(4, 3),),
     lambda: (_pm1((4, 3), 2),)),
    ("SoftMarginLoss", {"reduction": "none"}, lambda: (_x(4, 3),), lambda: (_pm1((4, 3), 2),)),
    ("TripletMarginLoss", {"margin": 2.0, "p": 1.0, "swap": True},
     lambda: (_x(4, 3), _x(4, 3, seed=1), _x(4, 3, seed=2)), lambda: ()),
    ("PoissonNLLLoss", {"full": True}, lambda: (_x(4, 3),),
     lambda: (np.abs(_x(4, 3, seed=1)) * 3,)),
    ("GaussianNLLLoss", {"full": True, "eps": 1e-3}, lambda: (_x(4, 3), _x(4, 3, seed=1)),
     lambda: (np.abs(_x(4, 3, seed=2)),)),
    ("CosineEmbeddingLoss", {"margin": -0.3}, lambda: (_x(4, 3), _x(4, 3, seed=1)),
     lambda: (_pm1((4,), 2),)),
    ("MultiMarginLoss", {"p": 2, "margin": 0.5, "weight": np.array([1.0, 2.0, 0.5])},
     lambda: (_x(4, 3),), lambda: (np.array([0, 2, 1, 2]),)),
]


@pytest.mark.parametrize("name, kwargs, inputs, constants", MORE_LOSS_MODULES,
                         ids=[c[0] for c in MORE_LOSS_MODULES])
def test_more_loss_modules_match_torch(name, kwargs, inputs, constants):
    kp = {k: pyad.tensor(v) if isinstance(v, np.ndarray) else v for k, v in kwargs.items()}
    kt = {k: torch.tensor(v) if isinstance(v, np.ndarray) else v for k, v in kwargs.items()}
    mp, mt = getattr(nn, name)(**kp), getattr(torch.nn, name)(**kt)
    assert repr(mp) == repr(mt)
    assert sorted(mp.state_dict()) == sorted(mt.state_dict())
    xs = inputs()
    xp = [pyad.tensor(x, requires_grad=True) for x in xs]
    xt = [torch.tensor(x, requires_grad=True) for x in xs]
    cs = constants()
    lp = mp(*xp, *[pyad.tensor(c) for c in cs])
    lt = mt(*xt, *[torch.tensor(c) for c in cs])
    np.testing.assert_allclose(lp.data, lt.detach().numpy(), rtol=1e-12)
    lp.sum().backward()
    lt.sum().backward()
    for a, b in zip(xp, xt):
        np.testing.assert_allclose(a.grad.data, b.grad.numpy(), rtol=1e-12, atol=1e-15)


def test_more_loss_module_arguments_are_checked():
    with pytest.raises(ValueError, match=r"triplet_margin_loss\(\): margin"):
        nn.TripletMarginLoss(margin=0.0)
    with pytest.raises(ValueError, match=r"multi_margin_loss\(\): only p == 1 and p == 2"):
        nn.MultiMarginLoss(p=3)
    with pytest.raises(ValueError, match=r"multi_margin_loss\(\): expected weight"):
        nn.MultiMarginLoss(weight=pyad.ones(2, 2))
    for bad in (lambda: torch.nn.TripletMarginLoss(margin=0.0),
                lambda: torch.nn.MultiMarginLoss(p=3),
                lambda: torch.nn.MultiMarginLoss(weight=torch.ones(2, 2))):
        with pytest.raises(ValueError):
            bad()


CONV_LAYERS = [
    ("Conv1d", (4, 6, 3), dict()),
    ("Conv1d", (4, 6, 3), dict(stride=2, padding="valid", dilation=2, groups=2, bias=False)),
    ("Conv2d", (4, 6, (3, 2)), dict(padding=(1, 0))),
    ("Conv2d", (4, 6, 3), dict(padding="same", groups=2)),
    ("ConvTranspose2d", (4, 6, 3), dict(stride=2, padding=1, output_padding=1)),
    ("ConvTranspose2d", (4, 6, (2, 3)), dict(dilation=2, groups=2, bias=False)),
]


@pytest.mark.parametrize("name, args, kwargs", CONV_LAYERS, ids=str)
def test_conv_layers_share_torch_attributes_repr_state_and_init(name, args, kwargs):
    ours, theirs = getattr(nn, name)(*args, **kwargs), getattr(torch.nn, name)(*args, **kwargs)
    for attr in ("in_channels", "out_channels", "kernel_size", "stride", "padding",
                 "dilation", "transposed", "output_padding", "groups", "padding_mode"):
        assert getattr(ours, attr) == getattr(theirs, attr), attr
    assert repr(ours) == repr(theirs)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    for key, value in ours.state_dict().items():
        assert value.shape == tuple(theirs.state_dict()[key].shape), key
    # torch's initialisation: kaiming_uniform(a=sqrt(5)) and a bias in +-1/sqrt(fan_in)
    fan_in = ours.weight.shape[1] * int(np.prod(ours.weight.shape[2:]))
    bound = 1 / math.sqrt(fan_in)
    assert np.abs(ours.weight.data).max() <= bound
    assert np.abs(ours.weight.data).max() > 0.5 * bound
    if ours.bias is not None:
        assert np.abs(ours.bias.data).max() <= bound


@pytest.mark.parametrize("name", ["Conv1d", "Conv2d", "ConvTranspose2d"])
@pytest.mark.parametrize("kwargs, match", [
    (dict(groups=0), "groups must be a positive integer"),
    (dict(groups=4), "in_channels must be divisible by groups"),
    (dict(groups=3), "out_channels must be divisible by groups"),
])
def test_conv_layers_check_their_groups_as_torch(name, kwargs, match):
    with pytest.raises(ValueError, match=match):
        getattr(torch.nn, name)(6, 4, 3, **kwargs)
    with pytest.raises(ValueError, match=r"^%s\(\): %s" % (name, match)):
        getattr(nn, name)(6, 4, 3, **kwargs)


@pytest.mark.parametrize("mode", ["reflect", "replicate", "circular"])
@pytest.mark.parametrize("dims, padding", [(1, 2), (2, 1), (2, "same"), (2, (1, 2)), (3, 1)])
def test_conv_padding_modes_match_torch(mode, dims, padding):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(11)
    layer = getattr(nn, "Conv%dd" % dims)(2, 3, 3, padding=padding, padding_mode=mode,
                                          dtype=pyad.float64)
    tlayer = getattr(torch.nn, "Conv%dd" % dims)(2, 3, 3, padding=padding, padding_mode=mode,
                                                dtype=torch.float64)
    w = rng.standard_normal(tuple(layer.weight.shape))
    b = rng.standard_normal(3)
    with pyad.no_grad():
        layer.weight.data = w.copy()
        layer.bias.data = b.copy()
    with torch.no_grad():
        tlayer.weight.copy_(torch.from_numpy(w))
        tlayer.bias.copy_(torch.from_numpy(b))
    x = rng.standard_normal((2, 2) + (5,) * dims)
    xp = pyad.Variable(x.copy(), requires_grad=True)
    xt = torch.from_numpy(x.copy()).requires_grad_()
    yp, yt = layer(xp), tlayer(xt)
    np.testing.assert_allclose(yp.data, yt.detach().numpy(), rtol=1e-12, atol=1e-12)
    g = rng.standard_normal(tuple(yt.shape))
    yp.backward(pyad.Variable(g))
    yt.backward(torch.from_numpy(g))
    np.testing.assert_allclose(xp.grad.data, xt.grad.numpy(), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(layer.weight.grad.data, tlayer.weight.grad.numpy(),
                               rtol=1e-11, atol=1e-12)
    assert "padding_mode=%s" % mode in repr(layer)


def test_load_state_dict_prints_as_torch_when_every_key_matched():
    a, b = nn.Linear(2, 2), nn.Linear(2, 2)
    assert repr(b.load_state_dict(a.state_dict())) == "<All keys matched successfully>"
    result = b.load_state_dict({"weight": a.weight.data}, strict=False)
    assert result.missing_keys == ["bias"] and "missing_keys=['bias']" in repr(result)


@pytest.mark.parametrize("shape, kwargs", [
    ((2, 3, 7), dict(size=3)), ((1, 2, 6, 5), dict(size=(4, 2))),
    ((1, 2, 8, 8), dict(scale_factor=0.5)), ((1, 1, 4, 5, 6), dict(size=(2, 3, 4))),
])
def test_interpolate_area_is_adaptive_average_pooling_as_torch(shape, kwargs):
    x = np.random.default_rng(12).standard_normal(shape)
    xp = pyad.Variable(x.copy(), requires_grad=True)
    xt = torch.from_numpy(x.copy()).requires_grad_()
    yp = F.interpolate(xp, mode="area", **kwargs)
    yt = torch.nn.functional.interpolate(xt, mode="area", **kwargs)
    np.testing.assert_allclose(yp.data, yt.detach().numpy(), rtol=1e-12, atol=1e-12)
    (yp * yp).sum().backward()
    (yt * yt).sum().backward()
    np.testing.assert_allclose(xp.grad.data, xt.grad.numpy(), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("shape,mode,kwargs", [
    ((2, 3, 5, 7), "bicubic", dict(size=(9, 4))),
    ((1, 1, 4, 4), "bicubic", dict(scale_factor=2.5)),
    ((1, 1, 4, 4), "bicubic", dict(scale_factor=0.5)),          # downsampling
    ((1, 2, 6, 5), "bicubic", dict(size=(3, 11), align_corners=True)),
    ((1, 1, 1, 1), "bicubic", dict(size=(3, 3))),              # every tap clamped
    ((1, 1, 3, 4, 5), "trilinear", dict(size=(5, 2, 7))),
    ((1, 2, 3, 4, 5), "trilinear", dict(scale_factor=1.7, align_corners=True)),
])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_interpolate_bicubic_and_trilinear_match_torch(shape, mode, kwargs, dtype):
    rng = np.random.default_rng(13)
    x = rng.standard_normal(shape).astype(dtype)
    xp = pyad.Variable(x.copy(), requires_grad=True)
    xt = torch.from_numpy(x.copy()).requires_grad_()
    yp = F.interpolate(xp, mode=mode, **kwargs)
    yt = torch.nn.functional.interpolate(xt, mode=mode, **kwargs)
    assert yp.dtype == dtype and tuple(yp.shape) == tuple(yt.shape)
    tol = 1e-12 if dtype == np.float64 else 1e-5
    np.testing.assert_allclose(yp.data, yt.detach().numpy(), rtol=tol, atol=tol)
    g = rng.standard_normal(tuple(yt.shape)).astype(dtype)
    yp.backward(pyad.Variable(g))
    yt.backward(torch.from_numpy(g))
    np.testing.assert_allclose(xp.grad.data, xt.grad.numpy(), rtol=tol, atol=tol)


def test_interpolate_bicubic_gradchecks_and_upsample_module_uses_it():
    x = pyad.Variable(np.random.default_rng(14).standard_normal((1, 1, 3, 4)),
                      requires_grad=True)
    f = lambda v: F.interpolate(v, size=(5, 2), mode="bicubic")   # noqa: E731
    assert gradcheck(f, (x,)) and gradgradcheck(f, (x,))
    up = nn.Upsample(scale_factor=2, mode="bicubic", align_corners=False)
    np.testing.assert_allclose(
        up(x).data, torch.nn.Upsample(scale_factor=2, mode="bicubic", align_corners=False)(
            torch.from_numpy(x.data)).numpy(), rtol=1e-12, atol=1e-12)


def test_interpolate_mode_needs_its_dimensions_as_torch():
    for mode, shape in (("bicubic", (1, 1, 4)), ("trilinear", (1, 1, 4, 4)),
                        ("bicubic", (1, 1, 2, 2, 2))):
        with pytest.raises(NotImplementedError):
            torch.nn.functional.interpolate(torch.ones(shape), size=3, mode=mode)
        with pytest.raises(NotImplementedError, match=mode):
            F.interpolate(pyad.ones(*shape), size=3, mode=mode)


# -- details found by probing pyad's nn against torch's --------------------------------

@pytest.mark.parametrize("make", [
    lambda L: L.nn.GroupNorm(2, 4, bias=False), lambda L: L.nn.GroupNorm(2, 4),
    lambda L: L.nn.InstanceNorm2d(4, affine=True, bias=False),
    lambda L: L.nn.InstanceNorm1d(3),
])
def test_norm_layers_take_bias_and_print_it_as_torch(make):
    ours, theirs = make(pyad), make(torch)
    assert repr(ours) == repr(theirs)
    assert list(ours.state_dict()) == list(theirs.state_dict())


def test_instance_norm_with_momentum_none_keeps_its_running_stats():
    x = np.arange(12.0).reshape(2, 2, 3)
    ours = nn.InstanceNorm1d(2, track_running_stats=True, momentum=None)
    theirs = torch.nn.InstanceNorm1d(2, track_running_stats=True, momentum=None)
    ours(pyad.Variable(x))
    theirs(torch.from_numpy(x))
    np.testing.assert_array_equal(ours.running_mean.data, theirs.running_mean.numpy())
    np.testing.assert_array_equal(ours.running_mean.data, [0.0, 0.0])


def test_pad_value_none_is_zero():
    assert F.pad(pyad.ones(2), (1, 1), value=None).tolist() == [0.0, 1.0, 1.0, 0.0]


@pytest.mark.parametrize("norm_type", [float("inf"), -float("inf")])
def test_lp_pool_at_infinite_norm_is_a_max_pool_of_abs(norm_type):
    x = np.array([[[1.0, -3.0, 2.0, 5.0]]])
    xp = pyad.Variable(x.copy(), requires_grad=True)
    xt = torch.from_numpy(x.copy()).requires_grad_()
    yp = F.lp_pool1d(xp, norm_type, 2)
    yt = torch.nn.functional.lp_pool1d(xt, norm_type, 2)
    np.testing.assert_array_equal(yp.data, yt.detach().numpy())
    yp.sum().backward()
    yt.sum().backward()
    np.testing.assert_array_equal(xp.grad.data, xt.grad.numpy())
    x2 = np.arange(16.0).reshape(1, 1, 4, 4) - 8
    np.testing.assert_array_equal(
        F.lp_pool2d(pyad.Variable(x2), norm_type, 2).data,
        torch.nn.functional.lp_pool2d(torch.from_numpy(x2), norm_type, 2).numpy())


def test_multi_margin_loss_p1_counts_no_gradient_at_the_hinge():
    x = np.array([[1.0, 0.0, 0.5]])
    xp = pyad.Variable(x.copy(), requires_grad=True)
    xt = torch.from_numpy(x.copy()).requires_grad_()
    F.multi_margin_loss(xp, pyad.tensor([0])).backward()
    torch.nn.functional.multi_margin_loss(xt, torch.tensor([0])).backward()
    np.testing.assert_allclose(xp.grad.data, xt.grad.numpy(), rtol=1e-15)
    np.testing.assert_allclose(xp.grad.data, [[-1 / 3, 0.0, 1 / 3]], rtol=1e-15)


def test_parameter_dict_from_a_plain_dict_sorts_its_keys():
    params = {"b": np.ones(1), "a": np.zeros(1)}
    ours = nn.ParameterDict({k: nn.Parameter(pyad.Variable(v)) for k, v in params.items()})
    theirs = torch.nn.ParameterDict({k: torch.nn.Parameter(torch.from_numpy(v))
                                     for k, v in params.items()})
    assert list(ours.keys()) == list(theirs.keys()) == ["a", "b"]
    ordered = collections.OrderedDict([("b", nn.Parameter(pyad.ones(1))),
                                       ("a", nn.Parameter(pyad.ones(1)))])
    assert list(nn.ParameterDict(ordered).keys()) == ["b", "a"]


def test_deepcopy_of_a_module_starts_without_gradients():
    import copy
    layer = nn.Linear(2, 2)
    layer(pyad.ones(1, 2)).sum().backward()
    twin = copy.deepcopy(layer)
    assert layer.weight.grad is not None and twin.weight.grad is None
    assert isinstance(twin.weight, nn.Parameter) and twin.weight.requires_grad
    assert twin.weight.data is not layer.weight.data
    np.testing.assert_array_equal(twin.weight.data, layer.weight.data)


def test_batch_norm_loads_a_checkpoint_without_num_batches_tracked():
    source = nn.BatchNorm1d(2)
    old = {k: v for k, v in source.state_dict().items() if k != "num_batches_tracked"}
    target = nn.BatchNorm1d(2)
    assert repr(target.load_state_dict(old)) == "<All keys matched successfully>"
    tsource = torch.nn.BatchNorm1d(2)
    told = {k: v for k, v in tsource.state_dict().items() if k != "num_batches_tracked"}
    torch.nn.BatchNorm1d(2).load_state_dict(told)


def test_conv_padding_strings_are_checked_at_construction():
    for lib in (nn, torch.nn):
        with pytest.raises(ValueError, match="strided"):
            lib.Conv2d(1, 1, 3, stride=2, padding="same")
        with pytest.raises(ValueError, match="Invalid padding string"):
            lib.Conv2d(1, 1, 3, padding="foo")


def test_rnn_and_gru_refuse_a_projection_as_torch():
    for lib in (nn, torch.nn):
        for cls in (lib.GRU, lib.RNN):
            with pytest.raises(ValueError, match="proj_size argument is only supported"):
                cls(2, 3, proj_size=2)
