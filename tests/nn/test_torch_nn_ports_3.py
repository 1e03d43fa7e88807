"""A third batch of ports of PyTorch's own nn tests (pytorch/pytorch ``test/nn/test_pruning.py``,
``test_module_hooks.py``, ``test_load_state_dict.py``, ``test_lazy_modules.py``,
``test_parametrization.py``, ``test_init.py``, ``test_embedding.py``, ``test_dropout.py``
and the channels_last parts of ``test_convolution.py``) to pyad -- CPU, float32/float64,
without device/dtype decorators.

The tests keep torch's names and the meaning of their assertions.  Expected values are the
hand-written values of torch's tests, or come from torch 2.13 run in the test on the same
inputs -- never from pyad itself.  torch's ``mock.patch`` of a pruning method's
``compute_mask`` becomes ``mock.patch.object`` on pyad's class.
"""
import io
import math
import pickle
from unittest import mock

import numpy as np
import pytest

import pyad
import pyad.nn as nn
import pyad.nn.functional as F
from pyad.nn import Parameter
from pyad.nn.utils import prune

torch = pytest.importorskip("torch")
tnn = torch.nn
tF = torch.nn.functional

from _port_helpers import compare, twin  # noqa: E402


def _rng(seed=0):
    return np.random.default_rng(seed)


def _eq(a, b):
    """Exact equality of two Variables / arrays / torch tensors (values and shape)."""
    def arr(x):
        if isinstance(x, torch.Tensor):
            return x.detach().numpy()
        if isinstance(x, pyad.Variable):
            return x.detach().numpy()
        return np.asarray(x)
    a, b = arr(a), arr(b)
    assert a.shape == b.shape, (a.shape, b.shape)
    np.testing.assert_array_equal(a, b)


def _pair(a, requires_grad=False):
    """The same float64 array as a torch tensor and a pyad Variable."""
    a = np.asarray(a)
    return (torch.tensor(a, requires_grad=requires_grad),
            pyad.tensor(a, requires_grad=requires_grad))


def _close(p, t, atol=1e-10, rtol=1e-9):
    tv = t.detach().numpy() if isinstance(t, torch.Tensor) else np.asarray(t)
    np.testing.assert_allclose(p.detach().numpy() if isinstance(p, pyad.Variable) else p, tv,
                               atol=atol, rtol=rtol)


# --------------------------------------------------------------------------- pruning
# pytorch/pytorch test/nn/test_pruning.py

def test_validate_pruning_amount_init():
    with pytest.raises(TypeError):
        prune._validate_pruning_amount_init(amount="I'm a string")
    with pytest.raises(ValueError):
        prune._validate_pruning_amount_init(amount=1.1)
    with pytest.raises(ValueError):
        prune._validate_pruning_amount_init(amount=20.0)
    with pytest.raises(ValueError):
        prune._validate_pruning_amount_init(amount=-10)
    for ok in (0.34, 1500, 0, 0.0, 1, 1.0):
        assert prune._validate_pruning_amount_init(amount=ok) is None


def test_validate_pruning_amount():
    with pytest.raises(ValueError):
        prune._validate_pruning_amount(amount=20, tensor_size=19)
    # a float is a fraction: no error
    prune._validate_pruning_amount(amount=0.3, tensor_size=0)
    prune._validate_pruning_amount(amount=19, tensor_size=20)
    prune._validate_pruning_amount(amount=0, tensor_size=0)
    prune._validate_pruning_amount(amount=1, tensor_size=1)


def test_compute_nparams_to_prune():
    assert prune._compute_nparams_toprune(amount=0, tensor_size=15) == 0
    assert prune._compute_nparams_toprune(amount=10, tensor_size=15) == 10
    assert prune._compute_nparams_toprune(amount=1, tensor_size=15) == 1     # int: 1 unit
    assert prune._compute_nparams_toprune(amount=1.0, tensor_size=15) == 15  # float: 100%
    assert prune._compute_nparams_toprune(amount=0.4, tensor_size=17) == 7


def _modules_and_names():
    for make in (lambda: nn.Linear(5, 7), lambda: nn.Conv3d(2, 2, 2)):
        for name in ("weight", "bias"):
            yield make(), name


def test_random_pruning_sizes():
    for m, name in _modules_and_names():
        original = getattr(m, name)
        prune.random_unstructured(m, name=name, amount=0.1)
        assert original.size() == getattr(m, name + "_mask").size()
        assert original.size() == getattr(m, name + "_orig").size()
        assert original.size() == getattr(m, name).size()


def test_random_pruning_orig():
    for m, name in _modules_and_names():
        original = getattr(m, name)
        before = original.detach().numpy().copy()
        prune.random_unstructured(m, name=name, amount=0.1)
        _eq(before, getattr(m, name + "_orig"))
        assert getattr(m, name + "_orig") is original


def test_random_pruning_new_weight():
    for m, name in _modules_and_names():
        original = getattr(m, name)
        prune.random_unstructured(m, name=name, amount=0.1)
        _eq(getattr(m, name),
            getattr(m, name + "_orig") * getattr(m, name + "_mask").to(dtype=original.dtype))


def _ones_grads(m, input_):
    y = m(input_)
    y.sum().backward()
    old_w = m.weight.grad.clone()
    _eq(old_w, np.ones((2, 5), np.float32))
    old_b = m.bias.grad.clone()
    _eq(old_b, np.ones(2, np.float32))
    m.zero_grad()
    return y, old_w, old_b


def _check_unchanged(m, input_, y_pre, old_w, old_b):
    y_post = m(input_)
    _eq(y_pre, y_post)
    y_post.sum().backward()
    _eq(old_w, m.weight_orig.grad)
    _eq(old_b, m.bias.grad)
    _eq(m(input_), m(input_))


def test_identity_pruning():
    input_ = pyad.ones(1, 5)
    m = nn.Linear(5, 2)
    y, old_w, old_b = _ones_grads(m, input_)
    prune.identity(m, name="weight")
    _check_unchanged(m, input_, y, old_w, old_b)


def test_random_pruning_0perc():
    input_ = pyad.ones(1, 5)
    m = nn.Linear(5, 2)
    y, old_w, old_b = _ones_grads(m, input_)
    with mock.patch.object(prune.RandomUnstructured, "compute_mask") as compute_mask:
        compute_mask.return_value = pyad.ones_like(m.weight)
        prune.random_unstructured(m, name="weight", amount=0.9)  # amount won't count
    _check_unchanged(m, input_, y, old_w, old_b)


def _mocked_mask(m, ones, zero_at):
    a = np.ones((2, 5), np.float32) if ones else np.zeros((2, 5), np.float32)
    for ij in zero_at:
        a[ij] = 0 if ones else 1
    mask = pyad.tensor(a)
    with mock.patch.object(prune.RandomUnstructured, "compute_mask") as compute_mask:
        compute_mask.return_value = mask
        prune.random_unstructured(m, name="weight", amount=0.9)
    return a


def test_random_pruning():
    input_ = pyad.ones(1, 5)
    m = nn.Linear(5, 2)
    mask = _mocked_mask(m, True, [(1, 0), (0, 3)])
    m(input_).sum().backward()
    # weight_orig is the parameter: it accumulates the gradient, zero where masked
    _eq(m.weight_orig.grad, mask)
    _eq(m.bias.grad, np.ones(2, np.float32))
    old = m.weight_orig.clone()
    for p in m.parameters():
        # SPEC 10: .data is the ndarray itself (torch's p.data.sub_ is an in-place -=)
        p.data -= p.grad.data * 1.0
    _eq(old[1, 0], m.weight_orig[1, 0])
    _eq(old[0, 3], m.weight_orig[0, 3])


def test_random_pruning_forward():
    input_ = pyad.ones(1, 5)
    m = nn.Linear(5, 2)
    _mocked_mask(m, False, [(1, 0), (0, 3)])
    yhat = m(input_)
    _eq(yhat[0, 0], m.weight_orig[0, 3] + m.bias[0])
    _eq(yhat[0, 1], m.weight_orig[1, 0] + m.bias[1])


def test_remove_pruning_forward():
    input_ = pyad.ones(1, 5)
    m = nn.Linear(5, 2)
    _mocked_mask(m, True, [(1, 0), (0, 3)])
    y_post = m(input_)
    prune.remove(m, "weight")
    _eq(y_post, m(input_))


def test_pruning_id_consistency():
    m = nn.Linear(5, 2, bias=False)
    tensor_id = id(next(iter(m.parameters())))
    prune.random_unstructured(m, name="weight", amount=0.9)
    assert tensor_id == id(next(iter(m.parameters())))
    prune.remove(m, "weight")
    assert tensor_id == id(next(iter(m.parameters())))


def test_random_pruning_pickle():
    for m, name in _modules_and_names():
        prune.random_unstructured(m, name=name, amount=0.1)
        m_new = pickle.loads(pickle.dumps(m))
        assert isinstance(m_new, type(m))


def test_multiple_pruning_calls():
    m = nn.Conv3d(2, 2, 2)
    prune.l1_unstructured(m, name="weight", amount=0.1)
    weight_mask0 = m.weight_mask
    prune.ln_structured(m, name="weight", amount=0.3, n=2, dim=0)
    hook = next(iter(m._forward_pre_hooks.values()))
    assert isinstance(hook, prune.PruningContainer)
    assert hook._tensor_name == "weight"
    assert len(hook) == 2
    assert isinstance(hook[0], prune.L1Unstructured)
    assert isinstance(hook[1], prune.LnStructured)
    assert bool(pyad.all(m.weight_mask[weight_mask0 == 0] == 0))
    prune.ln_structured(m, name="weight", amount=0.1, n=float("inf"), dim=1)
    hook = next(iter(m._forward_pre_hooks.values()))
    assert hook._tensor_name == "weight"


def test_pruning_container():
    container = prune.PruningContainer()
    container._tensor_name = "test"
    assert len(container) == 0
    p = prune.L1Unstructured(amount=2)
    p._tensor_name = "test"
    container.add_pruning_method(p)
    q = prune.L1Unstructured(amount=2)
    q._tensor_name = "another_test"
    with pytest.raises(ValueError):
        container.add_pruning_method(q)
    with pytest.raises(TypeError):
        container.add_pruning_method(10)
    with pytest.raises(TypeError):
        container.add_pruning_method("ugh")


def test_pruning_container_compute_mask():
    container = prune.PruningContainer()
    container._tensor_name = "test"
    p = prune.L1Unstructured(amount=2)
    p._tensor_name = "test"
    container.add_pruning_method(p)
    t = pyad.tensor([[1, 2, 3, 4], [5, 6, 7, 8]]).to(dtype=pyad.float32)
    default_mask = pyad.tensor([[1, 1, 1, 0], [1, 1, 0, 1]])
    _eq(container.compute_mask(t, default_mask),
        np.array([[0, 0, 1, 0], [1, 1, 0, 1]], np.float32))
    q = prune.LnStructured(amount=1, n=2, dim=0)
    q._tensor_name = "test"
    container.add_pruning_method(q)
    _eq(container.compute_mask(t, default_mask),
        np.array([[0, 0, 0, 0], [1, 1, 0, 1]], np.float32))
    r = prune.LnStructured(amount=1, n=2, dim=1)
    r._tensor_name = "test"
    container.add_pruning_method(r)
    _eq(container.compute_mask(t, default_mask),
        np.array([[0, 1, 1, 0], [0, 1, 0, 1]], np.float32))


def test_l1_unstructured_pruning():
    m = nn.Linear(4, 2)
    m.weight = Parameter(pyad.tensor([[1, 2, 3, 4], [-4, -3, -2, -1]], dtype=pyad.float32))
    prune.l1_unstructured(m, "weight", amount=2)
    _eq(m.weight, np.array([[0, 2, 3, 4], [-4, -3, -2, 0]], np.float32))
    prune.l1_unstructured(m, "weight", amount=2)
    _eq(m.weight, np.array([[0, 0, 3, 4], [-4, -3, 0, 0]], np.float32))


def test_l1_unstructured_pruning_with_importance_scores():
    m = nn.Linear(4, 2)
    m.weight = Parameter(pyad.tensor([[1, 2, 3, 4], [-4, -3, -2, -1]], dtype=pyad.float32))
    scores = pyad.tensor([[4, 2, 1, 3], [-3, -1, -2, -4]], dtype=pyad.float32)
    prune.l1_unstructured(m, "weight", amount=2, importance_scores=scores)
    _eq(m.weight, np.array([[1, 2, 0, 4], [-4, 0, -2, -1]], np.float32))
    prune.l1_unstructured(m, "weight", amount=2, importance_scores=scores)
    _eq(m.weight, np.array([[1, 0, 0, 4], [-4, 0, 0, -1]], np.float32))


def test_unstructured_pruning_same_magnitude():
    AMOUNT = 0.2
    p = prune.L1Unstructured(amount=AMOUNT)
    t = 2 * pyad.randint(low=-1, high=2, size=(10, 7))
    nparams_toprune = prune._compute_nparams_toprune(AMOUNT, t.nelement())
    computed_mask = p.compute_mask(t, default_mask=pyad.ones_like(t))
    assert nparams_toprune == int(pyad.sum(computed_mask == 0)) == 14


def test_random_structured_pruning_amount():
    AMOUNT, AXIS = 0.6, 2
    p = prune.RandomStructured(amount=AMOUNT, dim=AXIS)
    t = 2 * pyad.randint(low=-1, high=2, size=(5, 4, 2)).to(dtype=pyad.float32)
    computed_mask = p.compute_mask(t, default_mask=pyad.ones_like(t))
    remaining = [a for a in range(t.dim()) if a != AXIS]
    per_column = sorted(int(v) for v in pyad.sum(computed_mask == 0, dim=remaining))
    assert per_column == [0, 20]


_LN_W = [[[[1.0, 2.0], [1.0, 2.5]], [[0.5, 1.0], [0.1, 0.1]], [[-3.0, -5.0], [0.1, -1.0]]]]


def test_ln_structured_pruning():
    m = nn.Conv2d(3, 1, 2)
    m.weight.data = pyad.tensor(_LN_W)
    expected = np.ones((1, 3, 2, 2), np.float32)
    expected[:, 1] = 0.0
    prune.ln_structured(m, "weight", amount=1, n=2, dim=1)
    _eq(m.weight_mask, expected)
    expected[:, :, :, 0] = 0.0
    prune.ln_structured(m, "weight", amount=1, n=1, dim=-1)
    _eq(m.weight_mask, expected)


def test_ln_structured_pruning_importance_scores():
    m = nn.Conv2d(3, 1, 2)
    m.weight.data = pyad.tensor(_LN_W)
    scores = pyad.tensor([[[[10.0, 1.0], [10.0, 1.0]], [[30.0, 3.0], [30.0, 3.0]],
                           [[-20.0, -2.0], [-20.0, -2.0]]]])
    expected = np.ones((1, 3, 2, 2), np.float32)
    expected[:, 0] = 0.0
    prune.ln_structured(m, "weight", amount=1, n=2, dim=1, importance_scores=scores)
    _eq(m.weight_mask, expected)
    expected[:, :, :, 1] = 0.0
    prune.ln_structured(m, "weight", amount=1, n=1, dim=-1, importance_scores=scores)
    _eq(m.weight_mask, expected)


def test_remove_pruning():
    for m, name in _modules_and_names():
        prune.random_unstructured(m, name, amount=0.5)
        assert name + "_orig" in dict(m.named_parameters())
        assert name + "_mask" in dict(m.named_buffers())
        assert name not in dict(m.named_parameters())
        assert hasattr(m, name)
        pruned_t = getattr(m, name)
        prune.remove(m, name)
        assert name in dict(m.named_parameters())
        assert name + "_orig" not in dict(m.named_parameters())
        assert name + "_mask" not in dict(m.named_buffers())
        _eq(pruned_t, getattr(m, name))


def test_remove_pruning_exception():
    for m, name in _modules_and_names():
        assert not prune.is_pruned(m)
        with pytest.raises(ValueError):
            prune.remove(m, name)


def _global_mn():
    m = nn.Linear(4, 2)
    n = nn.Linear(3, 1)
    m.weight = Parameter(pyad.tensor([[1, 2, 3, 4], [-4, -3, -2, -1]]).to(dtype=pyad.float32))
    n.weight = Parameter(pyad.tensor([[0, 0.1, -2]]).to(dtype=pyad.float32))
    return m, n


def test_global_pruning():
    m, n = _global_mn()
    prune.global_unstructured(((m, "weight"), (n, "weight")),
                              pruning_method=prune.L1Unstructured, amount=4)
    _eq(m.weight, np.array([[0, 2, 3, 4], [-4, -3, -2, 0]], np.float32))
    _eq(n.weight, np.array([[0, 0, -2]], np.float32))


def test_global_pruning_importance_scores():
    m, n = _global_mn()
    scores = {(m, "weight"): pyad.tensor([[4, 2, 1, 3], [-3, -1, -2, -4]], dtype=pyad.float32),
              (n, "weight"): pyad.tensor([[0, 10.0, -0.2]]).to(dtype=pyad.float32)}
    prune.global_unstructured(((m, "weight"), (n, "weight")),
                              pruning_method=prune.L1Unstructured, amount=4,
                              importance_scores=scores)
    _eq(m.weight, np.array([[1, 2, 0, 4], [-4, 0, -2, -1]], np.float32))
    _eq(n.weight, np.array([[0, 0.1, 0]], np.float32))


def test_custom_from_mask_pruning():
    mask = pyad.tensor([[0, 1, 1, 0], [0, 0, 1, 1]])
    default_mask = pyad.tensor([[0, 0, 0, 0], [1, 1, 1, 1]])
    t = pyad.rand_like(mask.to(dtype=pyad.float32))
    computed = prune.CustomFromMask(mask=mask).compute_mask(t, default_mask)
    _eq(computed, np.array([[0, 0, 0, 0], [0, 0, 1, 1]], computed.detach().numpy().dtype))


def test_pruning_rollback():
    for m, name in _modules_and_names():
        with mock.patch.object(prune.L1Unstructured, "compute_mask") as compute_mask:
            compute_mask.side_effect = Exception("HA!")
            with pytest.raises(Exception, match="HA!"):
                prune.l1_unstructured(m, name=name, amount=0.9)
            assert name in dict(m.named_parameters())
            assert name + "_mask" not in dict(m.named_buffers())
            assert name + "_orig" not in dict(m.named_parameters())


def _seq():
    return nn.Sequential(nn.Linear(10, 10), nn.ReLU(), nn.Linear(10, 1))


def _check_pruned_keys(model):
    sd = model.state_dict()
    assert "0.weight_orig" in sd and "0.weight_mask" in sd and "0.weight" not in sd
    assert hasattr(model[0], "weight")


def test_pruning_serialization_model(tmp_path):
    model = _seq()
    sd = model.state_dict()
    assert "0.weight_orig" not in sd and "0.weight_mask" not in sd and "0.weight" in sd
    prune.l1_unstructured(module=model[0], name="weight", amount=0.9)
    _check_pruned_keys(model)
    pruned_weight = model[0].weight
    # pyad.save never pickles (pyad/serialization.py: checkpoints hold arrays and plain
    # containers only), so torch.save(model) / torch.load(weights_only=False) of a whole
    # module -- a pickle -- becomes pickle through a file.
    fname = tmp_path / "model.pt"
    fname.write_bytes(pickle.dumps(model))
    new_model = pickle.loads(fname.read_bytes())
    _check_pruned_keys(new_model)
    _eq(pruned_weight, new_model[0].weight)


def test_pruning_serialization_state_dict(tmp_path):
    model = _seq()
    prune.l1_unstructured(module=model[0], name="weight", amount=0.9)
    _check_pruned_keys(model)
    pruned_weight = model[0].weight
    prune.remove(module=model[0], name="weight")
    sd = model.state_dict()
    assert "0.weight_orig" not in sd and "0.weight_mask" not in sd and "0.weight" in sd
    new_model = _seq()
    fname = str(tmp_path / "sd.pt")
    pyad.save(model.state_dict(), fname)
    new_model.load_state_dict(pyad.load(fname))
    sd = new_model.state_dict()
    assert "0.weight_orig" not in sd and "0.weight_mask" not in sd and "0.weight" in sd
    _eq(pruned_weight, new_model[0].weight)


_PT = [[1, 2, 3, 4], [5, 6, 7, 8]]
_PD = [[1, 1, 1, 0], [1, 1, 0, 1]]


def test_prune():
    p = prune.L1Unstructured(amount=2)
    t = pyad.tensor(_PT).to(dtype=pyad.float32)
    pruned = p.prune(t, pyad.tensor(_PD))
    _eq(pruned, np.array(_PT, np.float32) * np.array([[0, 0, 1, 0], [1, 1, 0, 1]]))


def test_prune_importance_scores():
    p = prune.L1Unstructured(amount=2)
    t = pyad.tensor(_PT).to(dtype=pyad.float32)
    scores = pyad.tensor([[1, 2, 3, 4], [1.5, 1.6, 1.7, 1.8]]).to(dtype=pyad.float32)
    pruned = p.prune(t, pyad.tensor(_PD), importance_scores=scores)
    _eq(pruned, np.array(_PT, np.float32) * np.array([[0, 1, 1, 0], [0, 1, 0, 1]]))


def test_prune_importance_scores_mimic_default():
    p = prune.L1Unstructured(amount=2)
    t = pyad.tensor(_PT).to(dtype=pyad.float32)
    default_mask = pyad.tensor(_PD)
    without = p.prune(t, default_mask)
    with_ = p.prune(t, default_mask, importance_scores=t)
    _eq(without, with_)
    _eq(without, np.array(_PT, np.float32) * np.array([[0, 0, 1, 0], [1, 1, 0, 1]]))


def test_rnn_pruning():
    lstm = nn.LSTM(32, 32)
    prune.l1_unstructured(lstm, "weight_ih_l0", 0.5)
    assert sum(isinstance(p, Parameter) for p in lstm._flat_weights) == 3
    prune.remove(lstm, "weight_ih_l0")
    assert sum(isinstance(p, Parameter) for p in lstm._flat_weights) == 4
    assert "weight_ih_l0" in lstm._parameters
    assert lstm._parameters["weight_ih_l0"] is not None
    assert "weight_ih_l0_orig" not in lstm._parameters
    assert "weight_ih_l0" in dict(lstm.named_parameters())
    assert dict(lstm.named_parameters())["weight_ih_l0"] is not None
    assert "weight_ih_l0_orig" not in dict(lstm.named_parameters())



# --------------------------------------------------------------------------- load_state_dict
# pytorch/pytorch test/nn/test_load_state_dict.py

def test_load_state_dict_invalid():
    # pyad's documented difference (Module.load_state_dict: "Values may be Variables or
    # arrays"): the ndarray and the nested tuple torch refuses load here, so the test checks
    # they load the values, and that what is not array-like is refused with pyad's message.
    m = nn.Linear(2, 2, bias=False)
    a = np.random.randn(2, 2)
    m.load_state_dict({"weight": a})
    _eq(m.weight, a.astype(np.float32))
    m.load_state_dict({"weight": ((1.0, 1.0), (2.0, 2.0))})
    _eq(m.weight, np.array([[1, 1], [2, 2]], np.float32))
    with pytest.raises(RuntimeError,
                       match="expected Variable or array-like object from checkpoint but "
                             "received object"):
        m.load_state_dict({"weight": object()})


def test_load_state_dict_type():
    m = nn.Module()
    with pytest.raises(TypeError, match="Expected state_dict to be dict-like, got"):
        m.load_state_dict("")
    with pytest.raises(TypeError, match="Expected state_dict to be dict-like, got"):
        m.load_state_dict(2)


def test_register_state_dict_pre_hook_backward_compat():
    called = []

    def my_state_dict_pre_hook(*args, **kwargs):
        called.append(True)

    m = nn.Linear(1, 1)
    # pyad creates a module's hook lists on the first registration, so a fresh module has
    # no _state_dict_pre_hooks -- the state torch makes with delattr (a module pickled
    # before the attribute existed)
    if hasattr(m, "_state_dict_pre_hooks"):
        delattr(m, "_state_dict_pre_hooks")
    assert not hasattr(m, "_state_dict_pre_hooks")
    # torch.save / torch.load of a module is a pickle (see test_pruning_serialization_model)
    m = pickle.loads(pickle.dumps(m))
    m.state_dict()
    assert not called
    m.register_state_dict_pre_hook(my_state_dict_pre_hook)
    m.state_dict()
    assert called


def test_load_state_dict_ref_cycle():
    import copy
    import gc
    m = nn.LSTM(16, 16, bidirectional=True)
    gc.collect()
    m.load_state_dict(copy.deepcopy(m).state_dict())
    assert gc.collect() == 0


def test_load_state_dict_assign_with_optimizer():
    # torch builds the second module on the meta device; a fresh module stands in for it
    # (meta is out of scope): assign=True must still hand its Parameters to a new optimizer.
    import copy

    class MyModule(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = nn.Linear(3, 5)
            self.bn = nn.BatchNorm1d(5)

        def forward(self, input):
            return self.bn(self.fc1(input))

    net = MyModule()
    opt = pyad.optim.Adam(net.parameters(), lr=1000)
    x = pyad.randn(4, 3)
    for _ in range(3):
        opt.zero_grad()
        net(x).sum().backward()
        opt.step()
    opt_sd = copy.deepcopy(opt.state_dict())
    net_sd = copy.deepcopy(net.state_dict())
    net2 = MyModule()
    net2.load_state_dict(net_sd, assign=True)
    opt2 = pyad.optim.Adam(net2.parameters(), lr=1000)
    opt2.load_state_dict(opt_sd)
    y = x.clone()
    for _ in range(3):
        opt.zero_grad()
        net(x).sum().backward()
        opt.step()
        opt2.zero_grad()
        net2(y).sum().backward()
        opt2.step()
    s1, s2 = opt.state_dict(), opt2.state_dict()
    assert s1["param_groups"] == s2["param_groups"]
    for k in s1["state"]:
        for name, v in s1["state"][k].items():
            _eq(v, s2["state"][k][name])
    sd1, sd2 = net.state_dict(), net2.state_dict()
    assert list(sd1) == list(sd2)
    for k in sd1:
        _eq(sd1[k], sd2[k])


def test_load_state_dict_with_unexpected_key():
    class MyModule(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = nn.Linear(5, 10)

    m = MyModule()
    state_dict = m.state_dict()
    state_dict["fc1.bad_suffix"] = pyad.randn(5, 10)
    with pytest.raises(RuntimeError, match="Unexpected key"):
        m.load_state_dict(state_dict)
    assert "fc1.bad_suffix" in m.load_state_dict(state_dict, strict=False).unexpected_keys
    state_dict = m.state_dict()
    state_dict["fc1.weight.bad_suffix"] = pyad.randn(5, 10)
    with pytest.raises(RuntimeError, match="Unexpected key"):
        m.load_state_dict(state_dict)
    assert ("fc1.weight.bad_suffix"
            in m.load_state_dict(state_dict, strict=False).unexpected_keys)


# --------------------------------------------------------------------------- module hooks
# pytorch/pytorch test/nn/test_module_hooks.py

class _Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.seq1 = nn.Sequential(*[nn.Linear(10, 10) for _ in range(2)])
        self.seq2 = nn.Sequential(*[nn.Linear(10, 10) for _ in range(2)])

    def forward(self, x):
        return self.seq2(self.seq1(x))


class _ToyModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.net1 = _Net()
        self.net2 = _Net()

    def forward(self, x):
        return self.net2(self.net1(x))


class _KwargModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.net1 = _Net()
        self.net2 = _Net()

    def forward(self, x, bias=None):
        if bias is not None:
            x = x + bias
        return x

    def internal_forward_hook(self, module, args, kwargs, out):
        return out + kwargs["bias"]


def _recorder(fired, expected_module, n_args):
    def make(hook_id):
        def hook(module, *args):
            fired.append(hook_id)
            assert module is expected_module
            for a in args[:n_args]:
                assert len(a) == 1
        return hook
    return make


def _kwarg_pre(fired, expected_module, hook_id):
    def hook(module, args, kwargs):
        fired.append(hook_id)
        assert module is expected_module
        assert len(args) == 1
        kwargs["bias"] = 2 * kwargs["bias"]
        return args, kwargs
    return hook


def _kwarg_fwd(fired, expected_module, hook_id):
    def hook(module, args, kwargs, out):
        fired.append(hook_id)
        assert module is expected_module
        assert len(args) == 1
        return out + kwargs["bias"]
    return hook


def _run_twice(model, x, fired, expected, fires_in_forward):
    assert fired == []
    out = model(x)
    assert fired == (expected if fires_in_forward else [])
    out.sum().backward()
    assert fired == expected
    model(x).sum().backward()
    assert fired == expected + expected


def test_forward_hooks():
    fired = []
    model = _ToyModel()
    hook = _recorder(fired, model.net1.seq2, 1)
    m = model.net1.seq2
    m.register_forward_hook(hook(0))
    m.register_forward_hook(hook(1), prepend=True)
    m.register_forward_hook(hook(2))
    m.register_forward_hook(hook(3))
    m.register_forward_hook(hook(4), prepend=True)
    _run_twice(model, pyad.randn(10, 10), fired, [4, 1, 0, 2, 3], True)


def test_forward_pre_hooks():
    fired = []
    model = _ToyModel()
    hook = _recorder(fired, model.net2.seq1, 1)
    m = model.net2.seq1
    m.register_forward_pre_hook(hook(0), prepend=True)
    m.register_forward_pre_hook(hook(1))
    m.register_forward_pre_hook(hook(2))
    m.register_forward_pre_hook(hook(3))
    m.register_forward_pre_hook(hook(4), prepend=True)
    _run_twice(model, pyad.randn(10, 10), fired, [4, 0, 1, 2, 3], True)


def test_full_backward_hooks():
    fired = []
    model = _ToyModel()
    hook = _recorder(fired, model.net1, 2)
    m = model.net1
    m.register_full_backward_hook(hook(0))
    m.register_full_backward_hook(hook(1))
    m.register_full_backward_hook(hook(2))
    m.register_full_backward_hook(hook(3), prepend=True)
    m.register_full_backward_hook(hook(4), prepend=True)
    _run_twice(model, pyad.randn(10, 10), fired, [4, 3, 0, 1, 2], False)


def test_mixed_hooks():
    fired = []
    model = _ToyModel()
    model.register_forward_pre_hook(_recorder(fired, model, 1)(0))
    model.register_forward_hook(_recorder(fired, model, 1)(1))
    model.register_full_backward_pre_hook(_recorder(fired, model, 1)(2))
    model.register_full_backward_hook(_recorder(fired, model, 2)(3))
    x = pyad.randn(10, 10)
    assert fired == []
    out = model(x)
    assert fired == [0, 1]
    out.sum().backward()
    assert fired == [0, 1, 2, 3]
    model(x).sum().backward()
    assert fired == [0, 1, 2, 3, 0, 1, 2, 3]


def test_kwarg_hooks():
    x, bias = pyad.ones(10, 10), pyad.ones(10, 10)
    ones = np.ones((10, 10), np.float32)
    # 1. forward pre hook: bias' = 2 bias, out = x + 2 bias
    fired = []
    model = _KwargModel()
    model.register_forward_pre_hook(_kwarg_pre(fired, model, 0), with_kwargs=True)
    assert fired == []
    out = model(x, bias=bias)
    assert fired == [0]
    np.testing.assert_allclose(out.detach().numpy(), 3 * ones, rtol=0, atol=1e-5)
    # 2. pre and forward hooks: out = x + 4 bias
    fired = []
    model = _KwargModel()
    model.register_forward_hook(_kwarg_fwd(fired, model, 1), with_kwargs=True)
    model.register_forward_pre_hook(_kwarg_pre(fired, model, 0), with_kwargs=True)
    out = model(x, bias=bias)
    assert fired == [0, 1]
    np.testing.assert_allclose(out.detach().numpy(), 5 * ones, rtol=0, atol=1e-5)
    # 3. a bound method of the module as the forward hook: out = x + 2 bias
    model = _KwargModel()
    model.register_forward_hook(model.internal_forward_hook, with_kwargs=True)
    out = model(x, bias=bias)
    np.testing.assert_allclose(out.detach().numpy(), 3 * ones, rtol=0, atol=1e-5)


def _hook_ids(hooks):
    # pyad keeps (id, hook, with_kwargs) entries in one list per kind where torch keeps a
    # dict plus a _forward_hooks_with_kwargs set of ids
    return [entry[0] for entry in (hooks or ())]


def test_remove_kwarg_hooks():
    fired = []
    x, bias = pyad.ones(10, 10), pyad.ones(10, 10)
    ones = np.ones((10, 10), np.float32)
    model = _KwargModel()
    fwd = model.register_forward_hook(_kwarg_fwd(fired, model, 1), with_kwargs=True)
    pre = model.register_forward_pre_hook(_kwarg_pre(fired, model, 0), with_kwargs=True)
    out = model(x, bias=bias)
    assert fired == [0, 1]
    np.testing.assert_allclose(out.detach().numpy(), 5 * ones, rtol=0, atol=1e-5)
    fwd.remove()
    out = model(x, bias=bias)
    assert fired == [0, 1, 0]
    np.testing.assert_allclose(out.detach().numpy(), 3 * ones, rtol=0, atol=1e-5)
    assert fwd.id not in _hook_ids(model.__dict__.get("_forward_hooks"))
    pre.remove()
    out = model(x, bias=bias)
    assert fired == [0, 1, 0]
    np.testing.assert_allclose(out.detach().numpy(), 2 * ones, rtol=0, atol=1e-5)
    assert pre.id not in _hook_ids(model.__dict__.get("_forward_pre_hooks"))


def test_bw_hook_warning_for_non_tensor_or_tuple():
    import warnings
    counter = {"forward": 0, "backward": 0}

    def fw_pre_hook(module, _inputs):
        counter["forward"] += 1

    def fw_hook(module, _inputs, _outputs):
        counter["forward"] += 1

    def bw_hook(module, *_):
        counter["backward"] += 1

    class TestModule(nn.Module):
        def forward(self, d):
            return {"x": F.softmax(d["x"], dim=0)}

    x = pyad.ones(2, requires_grad=True)
    model = TestModule()
    model.register_forward_pre_hook(fw_pre_hook)
    model.register_forward_hook(fw_hook)
    model.register_full_backward_pre_hook(bw_hook)
    model.register_full_backward_hook(bw_hook)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        y = model({"x": x})["x"]
        y.sum().backward()
    assert counter == {"forward": 2, "backward": 0}
    assert len(w) == 1
    # torch's message says "should be a Tensor or a tuple of Tensors"; pyad's says
    # Variable (STYLE: messages say "Variable", not "tensor")
    assert "should be a Variable or a tuple of Variables" in str(w[0].message)


def test_load_state_dict_post_hook_backward_compatibility():
    import copy
    called = []

    def my_post_load_hook(mod, _):
        called.append(True)

    for m in [nn.Softmin(10), nn.Softmax(10), nn.LogSoftmax(10)]:
        called.clear()
        sd = copy.deepcopy(m.state_dict())
        # pyad creates the hook list on first registration (torch: hasattr, then delattr
        # to simulate an older pickle); torch.save/load of a module is a pickle
        if hasattr(m, "_load_state_dict_post_hooks"):
            delattr(m, "_load_state_dict_post_hooks")
        m = pickle.loads(pickle.dumps(m))
        m.load_state_dict(sd)
        assert not called
        m.register_load_state_dict_post_hook(my_post_load_hook)
        m.load_state_dict(sd)
        assert called


@pytest.fixture
def _clean_global_hooks():
    from pyad.nn import modules as _m
    yield
    for hooks in (_m._global_forward_pre_hooks, _m._global_forward_hooks,
                  _m._global_backward_pre_hooks, _m._global_backward_hooks):
        del hooks[:]


_SIG1 = 1 / (1 + 1 / math.e)


def test_module_global_hooks(_clean_global_hooks):
    from pyad.nn.modules import module as mm
    module = nn.Sigmoid
    module_1, module_2, module_3 = module(), module(), module()
    input = pyad.ones(5, 5, requires_grad=True)
    counter = {"forwards": 0, "backwards": 0}

    def fw_hook(inc, h_module, input, output):
        assert isinstance(input, tuple)
        assert isinstance(output, pyad.Variable)
        assert isinstance(h_module, module)
        _eq(input[0], np.ones((5, 5), np.float32))
        np.testing.assert_allclose(output.detach().numpy(), np.full((5, 5), _SIG1), rtol=1e-6)
        counter["forwards"] += inc

    def bw_hook(inc, h_module, grad_input, grad_output):
        assert isinstance(grad_input, tuple) and isinstance(grad_output, tuple)
        assert isinstance(h_module, module)
        _eq(grad_output[0], np.full((5, 5), 2, np.float32))
        counter["backwards"] += inc

    two = pyad.ones(5, 5) * 2
    test_fwd = mm.register_module_forward_hook(lambda *args: fw_hook(1, *args))
    module_1(input)
    module_2(input)
    module_3(input)
    assert counter == {"forwards": 3, "backwards": 0}
    test_bwd = mm.register_module_backward_hook(lambda *args: bw_hook(1, *args))
    output_1 = module_1(input)
    output_2 = module_2(input)
    output_3 = module_3(input)
    assert counter == {"forwards": 6, "backwards": 0}
    output_1.backward(two, retain_graph=True)
    output_2.backward(two, retain_graph=False)
    output_3.backward(two, retain_graph=False)
    assert counter == {"forwards": 6, "backwards": 3}
    output_1.backward(two, retain_graph=True)
    assert counter == {"forwards": 6, "backwards": 4}
    test2_fwd = mm.register_module_forward_hook(lambda *args: fw_hook(2, *args))
    module_1(input)
    module_2(input)
    module_3(input)
    assert counter == {"forwards": 15, "backwards": 4}
    test2_bwd = mm.register_module_backward_hook(lambda *args: bw_hook(2, *args))
    module_1(input).backward(two)
    assert counter == {"forwards": 18, "backwards": 7}
    test2_bwd.remove()
    module_2(input).backward(two)
    assert counter == {"forwards": 21, "backwards": 8}
    test2_fwd.remove()
    module_3(input).backward(two)
    assert counter == {"forwards": 22, "backwards": 9}
    test_fwd.remove()
    test_bwd.remove()


def test_module_global_hook_invalid_outputs(_clean_global_hooks):
    from pyad.nn.modules import module as mm
    module = nn.Sigmoid()
    input = pyad.randn(5, 5, requires_grad=True)

    def bw_fail1(self, grad_input, grad_output):
        return grad_input[:-1]

    def bw_fail2(self, grad_input, grad_output):
        return grad_input + (pyad.randn(2, 2),)

    with mm.register_module_backward_hook(bw_fail1):
        with pytest.raises(RuntimeError, match="got 0, but expected 1"):
            module(input).sum().backward()
    with mm.register_module_backward_hook(bw_fail2):
        with pytest.raises(RuntimeError, match="got 2, but expected 1"):
            module(input).sum().backward()


def test_module_backward_global_hook_writeable(_clean_global_hooks):
    from pyad.nn.modules import module as mm
    module = nn.Sigmoid()
    a = _rng(3).standard_normal((5, 5))
    tin, input = _pair(a, requires_grad=True)

    def bw_hook(module, grad_input, grad_output):
        assert all(isinstance(g, pyad.Variable) for g in grad_input)
        assert all(isinstance(g, pyad.Variable) for g in grad_output)
        return tuple(gi * 2 for gi in grad_input)

    mm.register_module_backward_hook(bw_hook)
    module(input).backward(pyad.ones(5, 5, dtype=pyad.float64))
    sig = torch.sigmoid(tin)
    _close(input.grad, sig * (1 - sig) * 2)


def test_module_global_forward_preforward_hook_writeable(_clean_global_hooks):
    from pyad.nn.modules import module as mm
    module = nn.Sigmoid()
    a = _rng(4).standard_normal((5, 5))
    tin, input = _pair(a, requires_grad=True)
    mm.register_module_forward_pre_hook(lambda m, inp: F.relu(inp[0]))
    mm.register_module_forward_hook(lambda m, inp, out: -out)
    output = module(input)
    _close(output, -torch.sigmoid(tF.relu(tin)))
    output.backward(pyad.ones(5, 5, dtype=pyad.float64) * 2, retain_graph=True)
    sig = torch.sigmoid(tin)
    _close(input.grad, -sig * (1 - sig) * 2 * (tin > 0))


def test_global_and_local_hooks_order(_clean_global_hooks):
    from pyad.nn.modules import module as mm
    module = nn.Sigmoid()
    called = []

    def rec(name, ret):
        def hook(m, *args):
            called.append(name)
            return args[ret] if ret is not None else None
        return hook

    input = pyad.randn(5, 5, requires_grad=True)
    mm.register_module_forward_pre_hook(rec("global_pre", 0))
    module.register_forward_pre_hook(rec("local_pre", 0))
    mm.register_module_forward_hook(rec("global_fwd", 1))
    module.register_forward_hook(rec("local_fwd", 1))
    mm.register_module_backward_hook(rec("global_bwd", 0))
    module.register_backward_hook(rec("local_bwd", 0))
    output = module(input)
    assert called == ["global_pre", "local_pre", "global_fwd", "local_fwd"]
    output.backward(pyad.ones(5, 5), retain_graph=True)
    assert called[4:] == ["global_bwd", "local_bwd"]


def test_backward_hooks_interaction():
    module = nn.Sigmoid()
    cnt = {"backward_cnt": 0}

    def bw_pre_hook(m, grad_output):
        cnt["backward_cnt"] += 1
        return (grad_output[0] * 0.5,)

    def bw_hook(m, grad_in, grad_output):
        _eq(grad_output[0], np.full((1, 2), 0.5, np.float32))
        cnt["backward_cnt"] += 1
        return grad_output

    module.register_full_backward_pre_hook(bw_pre_hook)
    module.register_full_backward_hook(bw_hook)
    module(pyad.ones(1, 2, requires_grad=True)).sum().backward()
    assert cnt["backward_cnt"] == 2


# --------------------------------------------------------------------------- channels_last
# pytorch/pytorch test/nn/test_convolution.py, test_pooling.py and test/test_nn.py: the CPU
# tests that run an op on a channels_last input (or module) against a C-ordered reference
# and check values, gradients and the layout of the result.

def _cl(a, fmt=None):
    fmt = pyad.channels_last if fmt is None else fmt
    return pyad.tensor(a).contiguous(memory_format=fmt)


def _ints(shape, seed):
    # torch.randint(-3, 3, ...): small integers, so every sum is exact in any order
    return _rng(seed).integers(-3, 3, size=shape).astype(np.float64)


_THNN_NHWC_CASES = [
    # mod, n, c, h, w, out_channels, kernel_size, dilation, groups, input_fmt, weight_fmt
    # (torch's helper calls; "cl" channels_last, "c" contiguous_format)
    (2, 8, 4, 4, 8, 3, 1, 1), (2, 8, 4, 4, 8, 3, 1, 8), (2, 1, 10, 10, 32, 3, 1, 1),
    (1, 16, 56, 56, 16, 1, 1, 1), (1, 16, 56, 56, 16, 1, 1, 16), (2, 8, 11, 13, 8, 3, 2, 1),
    (2, 16, 11, 13, 8, 3, 2, 8),
]
_THNN_NHWC_FORMATS = [("cl", "cl"), ("cl", "c"), ("c", "cl")]


def _conv_nhwc_run(case, input_format, weight_format, seed=0):
    n, c, h, w, oc, k, dil, groups = case
    fmt = {"cl": pyad.channels_last, "c": pyad.contiguous_format}
    if c == 1:                         # torch: "input channels 1 ... not converted"
        weight_format = "c"
    if groups == c and c == 16 and k == 1:   # torch sticks this input to channels_last
        input_format = "cl"
    a = _ints((n, c, h, w), seed)
    inp = _cl(a, fmt[input_format]).requires_grad_()
    conv = nn.Conv2d(c, oc, k, dilation=dil, groups=groups).double()
    conv = conv.to(memory_format=fmt[weight_format])
    for i, p in enumerate(conv.parameters()):
        p.data = pyad.tensor(_ints(tuple(p.shape), seed + 1 + i)).contiguous(
            memory_format=fmt[weight_format] if p.dim() == 4 else pyad.contiguous_format).data
    ref_input = inp.detach().clone().contiguous().requires_grad_()
    ref_conv = nn.Conv2d(c, oc, k, dilation=dil, groups=groups).double()
    ref_conv.load_state_dict(conv.state_dict())
    ref_conv = ref_conv.to(memory_format=pyad.contiguous_format)
    out = conv(inp)
    ref_out = ref_conv(ref_input)
    grad = pyad.tensor(_ints(tuple(out.shape), seed + 9))
    out.backward(grad)
    ref_out.backward(grad.detach().clone().contiguous())
    return inp, conv, out, ref_input, ref_conv, ref_out, input_format, weight_format


@pytest.mark.parametrize("input_format,weight_format", _THNN_NHWC_FORMATS)
def test_conv_thnn_nhwc(input_format, weight_format):
    # values and gradients: the channels_last run equals the C-ordered one and torch's
    for case in _THNN_NHWC_CASES:
        inp, conv, out, ref_input, ref_conv, ref_out, _, _ = _conv_nhwc_run(
            case, input_format, weight_format)
        assert ref_out.is_contiguous()
        _eq(out, ref_out)
        _eq(conv.weight.grad, ref_conv.weight.grad)
        _eq(conv.bias.grad, ref_conv.bias.grad)
        _eq(inp.grad, ref_input.grad)
        t_out = tF.conv2d(torch.tensor(inp.detach().numpy()),
                          torch.tensor(conv.weight.detach().numpy()),
                          torch.tensor(conv.bias.detach().numpy()),
                          dilation=case[6], groups=case[7])
        _eq(out, t_out)


@pytest.mark.parametrize("input_format,weight_format", _THNN_NHWC_FORMATS)
def test_conv_thnn_nhwc_output_layout(input_format, weight_format):
    # the layout half of torch's test_conv_thnn_nhwc
    for case in _THNN_NHWC_CASES[:2]:
        inp, conv, out, ref_input, ref_conv, ref_out, _, _ = _conv_nhwc_run(
            case, input_format, weight_format)
        if input_format == "c" and case[7] == case[1]:
            # a depthwise (O, 1, kh, kw) weight made channels_last by .contiguous() keeps
            # C-order strides (it is contiguous in both orders), so neither operand reads
            # as channels_last: torch 2.13's output is C-ordered here too (measured:
            # stride (32, 4, 2, 1) for this case)
            assert out.is_contiguous()
        else:
            assert out.is_contiguous(memory_format=pyad.channels_last)
        assert ref_out.is_contiguous()


@pytest.mark.parametrize("mod,shape,fmt", [
    ("BatchNorm2d", (4, 8, 10, 10), "channels_last"),
    ("BatchNorm2d", (4, 1, 9, 9), "channels_last"),
    ("BatchNorm2d", (4, 9, 1, 1), "channels_last"),
    ("BatchNorm3d", (4, 8, 2, 10, 10), "channels_last_3d"),
    ("BatchNorm3d", (4, 1, 2, 9, 9), "channels_last_3d"),
    ("BatchNorm3d", (4, 9, 1, 1, 1), "channels_last_3d"),
])
def test_batchnorm_nhwc_cpu(mod, shape, fmt):
    # torch's float32 cases, in float64 (pyad has no bfloat16 arithmetic of torch's kind)
    rng = _rng(5)
    fmt = getattr(pyad, fmt)
    channels = shape[1]
    a = rng.standard_normal(shape)
    g = rng.standard_normal(shape)
    inp = _cl(a, fmt).requires_grad_()
    grad = _cl(g, fmt)
    bn = getattr(nn, mod)(channels).double()
    bn.weight.data = rng.uniform(size=channels)
    bn.bias.data = rng.uniform(size=channels)
    ref_input = inp.detach().clone().contiguous().requires_grad_(True)
    ref_grad = grad.detach().clone().contiguous()
    ref_bn = getattr(nn, mod)(channels).double()
    ref_bn.load_state_dict(bn.state_dict())
    tbn = getattr(tnn, mod)(channels).double()
    tbn.load_state_dict({k: torch.tensor(v.detach().numpy()) for k, v in
                         bn.state_dict().items()})
    out = bn(inp)
    out.backward(grad)
    ref_out = ref_bn(ref_input)
    ref_out.backward(ref_grad)
    assert out.is_contiguous(memory_format=fmt)
    assert ref_out.is_contiguous()
    _close(out, ref_out.detach().numpy())
    _close(bn.weight.grad, ref_bn.weight.grad.detach().numpy())
    _close(bn.bias.grad, ref_bn.bias.grad.detach().numpy())
    _close(inp.grad, ref_input.grad.detach().numpy())
    # and torch on the same values
    tx = torch.tensor(a, requires_grad=True)
    tout = tbn(tx)
    tout.backward(torch.tensor(g))
    _close(out, tout)
    _close(inp.grad, tx.grad)
    _close(bn.running_mean, tbn.running_mean)
    _close(bn.running_var, tbn.running_var)


@pytest.mark.parametrize("input_format", ["contiguous_format", "channels_last"])
@pytest.mark.parametrize("grad_format", ["contiguous_format", "channels_last"])
def test_GroupNorm_memory_format(input_format, grad_format):
    import copy
    B, C, W, H = 2, 4, 4, 4
    net_orig = nn.GroupNorm(B, C).double()
    net = copy.deepcopy(net_orig)
    rng = _rng(6)
    x_orig = pyad.tensor(rng.uniform(size=(B, C, W, H)), requires_grad=True)
    grad_orig = pyad.tensor(rng.uniform(size=(B, C, W, H)))
    x = x_orig.clone().detach().to(memory_format=getattr(pyad, input_format)) \
        .requires_grad_(True)
    grad = grad_orig.detach().to(memory_format=getattr(pyad, grad_format))
    y = net(x)
    y.backward(grad)
    y_orig = net_orig(x_orig)
    y_orig.backward(grad_orig)
    _close(y, y_orig.detach().numpy())
    _close(x.grad, x_orig.grad.detach().numpy())
    tx = torch.tensor(x_orig.detach().numpy(), requires_grad=True)
    ty = tF.group_norm(tx, B)
    ty.backward(torch.tensor(grad_orig.detach().numpy()))
    _close(y, ty)
    _close(x.grad, tx.grad)


def _pool_nhwc(pool, ref_pool, tpool, n, c, h, w, out_hw, seed=7):
    rng = _rng(seed)
    a = rng.standard_normal((n, c, h, w))
    inp = _cl(a).requires_grad_()
    g = rng.standard_normal((n, c) + out_hw)
    grad = pyad.tensor(g)
    ref_input = inp.detach().clone().contiguous().requires_grad_(True)
    res = pool(inp)
    out = res[0] if isinstance(res, tuple) else res
    out.backward(grad)
    ref_res = ref_pool(ref_input)
    ref_out = ref_res[0] if isinstance(ref_res, tuple) else ref_res
    ref_out.backward(grad.detach().clone().contiguous())
    _eq(out, ref_out)
    _eq(inp.grad, ref_input.grad)
    tx = torch.tensor(a, requires_grad=True)
    tres = tpool(tx)
    tout = tres[0] if isinstance(tres, tuple) else tres
    tout.backward(torch.tensor(g))
    _close(out, tout)
    _close(inp.grad, tx.grad)
    if isinstance(res, tuple):
        _eq(res[1], ref_res[1])
        _eq(res[1], tres[1])
    return res, ref_res


# torch's sizes (200, 512, 28, 28) and (10, 512, 31, 31) shrunk in N and C: the layout
# and the values do not depend on them, and the machine is small
_MAXPOOL_NHWC = [(4, 8, 8, 8, 7, None), (2, 16, 28, 28, 2, None), (4, 8, 7, 7, 3, 1),
                 (2, 16, 31, 31, 3, 2), (1, 129, 8, 8, 3, 2)]


def _max_pool2d_nhwc_run(check_layout):
    for n, c, h, w, k, s in _MAXPOOL_NHWC:
        s = k if s is None else s
        out_hw = ((h - k) // s + 1, (w - k) // s + 1)
        (out, ind), (ref_out, ref_ind) = _pool_nhwc(
            nn.MaxPool2d(k, s, return_indices=True), nn.MaxPool2d(k, s, return_indices=True),
            tnn.MaxPool2d(k, s, return_indices=True), n, c, h, w, out_hw)
        assert ref_out.is_contiguous()
        assert ref_ind.is_contiguous()
        if check_layout:
            assert out.is_contiguous(memory_format=pyad.channels_last)
            assert ind.is_contiguous(memory_format=pyad.channels_last)


def test_max_pool2d_nhwc():
    _max_pool2d_nhwc_run(False)


def test_max_pool2d_nhwc_output_layout():
    _max_pool2d_nhwc_run(True)


_AVGPOOL_NHWC = [(4, 8, 8, 8, 3), (4, 8, 8, 8, 3, 2), (2, 16, 9, 9, 2)]


def _avg_pool2d_nhwc_run(check_layout):
    for case in _AVGPOOL_NHWC:
        n, c, h, w, k = case[:5]
        s = case[5] if len(case) > 5 else k
        out_hw = ((h - k) // s + 1, (w - k) // s + 1)
        out, ref_out = _pool_nhwc(nn.AvgPool2d(k, s), nn.AvgPool2d(k, s), tnn.AvgPool2d(k, s),
                                  n, c, h, w, out_hw)
        if check_layout:
            assert out.is_contiguous(memory_format=pyad.channels_last)
            assert ref_out.is_contiguous()


def test_avg_pool2d_nhwc():
    _avg_pool2d_nhwc_run(False)


def test_avg_pool2d_nhwc_output_layout():
    _avg_pool2d_nhwc_run(True)


def _adaptive_max_nhwc_run(check_layout):
    for (n, c, h, w), osz in [((2, 8, 9, 9), (3, 3)), ((1, 16, 7, 5), (2, 4)),
                              ((4, 3, 8, 8), (8, 8))]:
        res, ref_res = _pool_nhwc(nn.AdaptiveMaxPool2d(osz, return_indices=True),
                                  nn.AdaptiveMaxPool2d(osz, return_indices=True),
                                  tnn.AdaptiveMaxPool2d(osz, return_indices=True),
                                  n, c, h, w, osz)
        if check_layout:
            assert res[0].is_contiguous(memory_format=pyad.channels_last)
            assert res[1].is_contiguous(memory_format=pyad.channels_last)
            assert ref_res[0].is_contiguous()


def test_adaptive_pooling_max_nhwc():
    _adaptive_max_nhwc_run(False)


def test_adaptive_pooling_max_nhwc_output_layout():
    _adaptive_max_nhwc_run(True)


@pytest.mark.parametrize("mode", ["nearest", "nearest-exact"])
@pytest.mark.parametrize("memory_format", ["contiguous_format", "channels_last"])
def test_upsamplingNearest2d_memory_format(mode, memory_format):
    # the memory-format half of torch's test_upsamplingNearest2d
    fmt = getattr(pyad, memory_format)
    in_t = pyad.ones(1, 2, 2, 2, dtype=pyad.float64).contiguous(memory_format=fmt)
    out_t = F.interpolate(in_t, size=4, mode=mode)
    _eq(out_t, np.ones((1, 2, 4, 4)))
    assert out_t.is_contiguous(memory_format=fmt)
    in_t = pyad.ones(1, 2, 2, 1, dtype=pyad.float64).contiguous(memory_format=fmt) \
        .requires_grad_()
    out_t = F.interpolate(in_t, size=(4, 2), mode=mode)
    _eq(out_t, np.ones((1, 2, 4, 2)))
    assert out_t.is_contiguous(memory_format=fmt)
    out_t.backward(pyad.randn_like(out_t))
    assert in_t.grad.is_contiguous(memory_format=fmt)
    a = _rng(8).standard_normal((1, 2, 2, 2))
    inp = pyad.tensor(a).contiguous(memory_format=fmt)
    _eq(F.interpolate(inp, 4, mode=mode), F.interpolate(inp, scale_factor=2, mode=mode))
    _eq(F.interpolate(inp, 4, mode=mode), tF.interpolate(torch.tensor(a), 4, mode=mode))


@pytest.mark.parametrize("mode,kw", [("bilinear", {"align_corners": False}),
                                     ("bilinear", {"align_corners": True}),
                                     ("bicubic", {"align_corners": False})])
def test_upsampling_channels_last_values_and_layout(mode, kw):
    # test_nn's test_upsamplingBiLinear2d / test_upsamplingBicubic2d run both memory
    # formats: the result keeps the input's (torch's suggest_memory_format) and its values
    a = _rng(9).standard_normal((2, 3, 5, 4))
    inp = _cl(a).requires_grad_()
    out = F.interpolate(inp, scale_factor=2, mode=mode, **kw)
    tx = torch.tensor(a).contiguous(memory_format=torch.channels_last).requires_grad_()
    tout = tF.interpolate(tx, scale_factor=2, mode=mode, **kw)
    assert tout.is_contiguous(memory_format=torch.channels_last)
    assert out.is_contiguous(memory_format=pyad.channels_last)
    assert tuple(out.stride()) == tuple(tout.stride())
    _close(out, tout)
    g = _rng(10).standard_normal(tuple(out.shape))
    out.backward(pyad.tensor(g))
    tout.backward(torch.tensor(g))
    _close(inp.grad, tx.grad)


# --------------------------------------------------------------------------- lazy modules
# pytorch/pytorch test/nn/test_lazy_modules.py

from pyad.nn import UninitializedParameter  # noqa: E402


def test_linear():
    module = nn.LazyLinear(10)
    assert isinstance(module.weight, UninitializedParameter)
    assert isinstance(module.bias, UninitializedParameter)
    input = pyad.ones(5, 5)
    output = module(input)
    assert isinstance(module, nn.Linear)
    assert not isinstance(module, nn.LazyLinear)
    assert module.weight.shape == (10, 5)
    assert module.bias.shape == (10,)
    assert bool((module.weight != 0).any())
    assert bool((module.bias != 0).any())
    assert bool((output != 0).any())
    y = module(input)
    _eq(F.linear(input, module.weight, module.bias), y)


def test_lazy_linear_pickle():
    module = nn.LazyLinear(10)
    module = pickle.loads(pickle.dumps(module))
    assert isinstance(module, nn.LazyLinear)
    assert isinstance(module.weight, UninitializedParameter)
    assert isinstance(module.bias, UninitializedParameter)
    module(pyad.ones(5, 5))
    new_module = pickle.loads(pickle.dumps(module))
    assert isinstance(new_module, nn.Linear)
    assert not isinstance(new_module, nn.LazyLinear)
    assert new_module.weight.shape == (10, 5)
    assert not isinstance(new_module.weight, UninitializedParameter)
    assert new_module.bias.shape == (10,)
    assert not isinstance(new_module.bias, UninitializedParameter)


def _same_lazy_state(p_lazy, t_lazy, attr):
    # The stored torch test (newer than 2.13) expects the class to become the concrete one
    # on load_state_dict; torch 2.13 -- the reference -- keeps the lazy class (and
    # in_features/in_channels 0) until the first call. pyad is checked against torch 2.13.
    assert type(p_lazy).__name__ == type(t_lazy).__name__
    assert getattr(p_lazy, attr) == getattr(t_lazy, attr)


def test_linear_state():
    module = nn.Linear(5, 10)
    lazy_module = nn.LazyLinear(10)
    lazy_module.load_state_dict(module.state_dict())
    t_lazy = tnn.LazyLinear(10)
    t_lazy.load_state_dict(tnn.Linear(5, 10).state_dict())
    _same_lazy_state(lazy_module, t_lazy, "in_features")
    assert isinstance(lazy_module, nn.Linear)
    assert lazy_module.weight.shape == (10, 5)
    assert lazy_module.bias.shape == (10,)
    module = nn.Linear(5, 10)
    lazy_module = nn.LazyLinear(10)
    with pytest.raises(RuntimeError, match="shape of an uninitialized"):
        module.load_state_dict(lazy_module.state_dict())


def test_lazy_linear_state_and_forward():
    module = nn.Linear(5, 10)
    lazy_module = nn.LazyLinear(10)
    lazy_module.load_state_dict(module.state_dict())
    t_lazy = tnn.LazyLinear(10)
    t_lazy.load_state_dict(tnn.Linear(5, 10).state_dict())
    _same_lazy_state(lazy_module, t_lazy, "in_features")
    x = _rng(11).standard_normal((5, 5)).astype(np.float32)
    lazy_module(pyad.tensor(x))
    t_lazy(torch.tensor(x))
    _same_lazy_state(lazy_module, t_lazy, "in_features")
    assert lazy_module.in_features == 5
    assert isinstance(lazy_module, nn.Linear) and not isinstance(lazy_module, nn.LazyLinear)


_LAZY_CONV = {
    # name: (cls, lazy_cls, torch functional, init_args, input_shape, weight, bias)
    "conv1d": ("Conv1d", "LazyConv1d", tF.conv1d, (32, 2), (192, 16, 50), (32, 16, 2)),
    "conv2d": ("Conv2d", "LazyConv2d", tF.conv2d, (32, 2), (192, 16, 8, 6), (32, 16, 2, 2)),
    "conv3d": ("Conv3d", "LazyConv3d", tF.conv3d, (32, 2), (192, 16, 8, 7, 6),
               (32, 16, 2, 2, 2)),
    "conv_transposed1d": ("ConvTranspose1d", "LazyConvTranspose1d", tF.conv_transpose1d,
                          (32, 2), (192, 16, 50), (16, 32, 2)),
}


@pytest.mark.parametrize("name", list(_LAZY_CONV))
def test_lazy_conv(name):
    # torch's test_lazy_conv1d / _conv2d / _conv3d / _conv_transposed1d
    cls, lazy_cls, tfunc, init_args, input_shape, wshape = _LAZY_CONV[name]
    cls, lazy_cls = getattr(nn, cls), getattr(nn, lazy_cls)
    module = lazy_cls(*init_args)
    assert isinstance(module.weight, UninitializedParameter)
    assert isinstance(module.bias, UninitializedParameter)
    input = pyad.ones(*input_shape)
    module(input)
    assert isinstance(module, cls)
    assert not isinstance(module, lazy_cls)
    assert tuple(module.weight.shape) == wshape
    assert tuple(module.bias.shape) == (32,)
    y = module(input)
    # torch's func(input, weight, bias) == y, with torch's functional on the same weights
    t = tfunc(torch.ones(*input_shape), torch.tensor(module.weight.detach().numpy()),
              torch.tensor(module.bias.detach().numpy()))
    _close(y, t, atol=1e-4, rtol=1e-5)   # float32 sums in another order


@pytest.mark.parametrize("name", ["conv1d", "conv2d", "conv3d"])
def test_lazy_conv_pickle(name):
    # torch's test_lazy_conv1d_pickle / _conv2d_pickle / _conv3d_pickle
    cls, lazy_cls, _, init_args, input_shape, wshape = _LAZY_CONV[name]
    cls, lazy_cls = getattr(nn, cls), getattr(nn, lazy_cls)
    module = pickle.loads(pickle.dumps(lazy_cls(*init_args)))
    assert isinstance(module, lazy_cls)
    assert isinstance(module.weight, UninitializedParameter)
    assert isinstance(module.bias, UninitializedParameter)
    module(pyad.ones(*input_shape))
    new_module = pickle.loads(pickle.dumps(module))
    assert isinstance(new_module, cls) and not isinstance(new_module, lazy_cls)
    assert tuple(new_module.weight.shape) == wshape
    assert not isinstance(new_module.weight, UninitializedParameter)
    assert tuple(new_module.bias.shape) == (32,)
    assert not isinstance(new_module.bias, UninitializedParameter)


@pytest.mark.parametrize("name", ["conv1d", "conv2d", "conv3d"])
def test_lazy_conv_state(name):
    # torch's test_lazy_conv1d_state / _conv2d_state / _conv3d_state
    cls, lazy_cls, _, _, _, wshape = _LAZY_CONV[name]
    cls, lazy_cls = getattr(nn, cls), getattr(nn, lazy_cls)
    tcls, tlazy = getattr(tnn, _LAZY_CONV[name][0]), getattr(tnn, _LAZY_CONV[name][1])
    module = cls(16, 32, 2)
    lazy_module = lazy_cls(32, 2)
    lazy_module.load_state_dict(module.state_dict())
    t_lazy = tlazy(32, 2)
    t_lazy.load_state_dict(tcls(16, 32, 2).state_dict())
    _same_lazy_state(lazy_module, t_lazy, "in_channels")
    assert isinstance(lazy_module, cls)
    assert tuple(lazy_module.weight.shape) == wshape
    assert tuple(lazy_module.bias.shape) == (32,)
    module = cls(16, 32, 2)
    lazy_module = lazy_cls(32, 2)
    with pytest.raises(RuntimeError, match="shape of an uninitialized"):
        module.load_state_dict(lazy_module.state_dict())


@pytest.mark.parametrize("cls,lazy_cls", [("Conv2d", "LazyConv2d"),
                                          ("ConvTranspose2d", "LazyConvTranspose2d")])
def test_lazy_conv2d_state_and_forward(cls, lazy_cls):
    # torch's test_lazy_conv2d_state_and_forward and
    # test_lazy_conv_transpose2d_state_and_forward
    module = getattr(nn, cls)(3, 16, 3, padding=1)
    lazy_module = getattr(nn, lazy_cls)(16, 3, padding=1)
    lazy_module.load_state_dict(module.state_dict())
    t_lazy = getattr(tnn, lazy_cls)(16, 3, padding=1)
    t_lazy.load_state_dict(getattr(tnn, cls)(3, 16, 3, padding=1).state_dict())
    _same_lazy_state(lazy_module, t_lazy, "in_channels")
    assert isinstance(lazy_module, getattr(nn, cls))
    x = pyad.randn(1, 3, 8, 8)
    y = lazy_module(x)
    t_lazy(torch.randn(1, 3, 8, 8))
    _eq(y, module(x))
    assert not isinstance(lazy_module, getattr(nn, lazy_cls))
    # torch's test expects in_channels 3 here; torch 2.13 leaves it 0 (the parameters came
    # from the state_dict, so its first call infers nothing): pyad matches torch 2.13
    _same_lazy_state(lazy_module, t_lazy, "in_channels")


# --------------------------------------------------------------------------- parametrization
# pytorch/pytorch test/nn/test_parametrization.py

from pyad.nn.utils import parametrize  # noqa: E402


class _Skew(nn.Module):
    def forward(self, X):
        X = X.tril(-1)
        return X - X.T


class _Orthogonal(nn.Module):
    def forward(self, X):
        # the Cayley map: orthogonal for a skew-symmetric X
        Id = pyad.eye(X.size(0), dtype=X.dtype)
        return pyad.linalg.solve(Id + X, Id - X).contiguous()


class _Resize(nn.Module):
    def forward(self, X):
        return X[[0]]


class _NoResize(nn.Module):
    def forward(self, X):
        return X


class _FirstZero(nn.Module):
    def forward(self, x):
        return pyad.cat([x.new_zeros(1), x[1:]])


class _LastZero(nn.Module):
    def forward(self, x):
        return pyad.cat([x[:-1], x.new_zeros(1)])


def _assert_close(a, b, atol=1e-5, rtol=1.3e-6):
    # torch's assertEqual default tolerance for float32
    np.testing.assert_allclose(np.asarray(a.detach().numpy() if hasattr(a, "detach") else a),
                               np.asarray(b.detach().numpy() if hasattr(b, "detach") else b),
                               atol=atol, rtol=rtol)


def _not_equal(a, b):
    return not np.array_equal(a.detach().numpy(), b.detach().numpy())


def _is_weight_only(model):
    assert hasattr(model, "parametrizations")
    assert parametrize.is_parametrized(model)
    assert parametrize.is_parametrized(model, "weight")
    assert not parametrize.is_parametrized(model, "bias")
    assert "weight" not in model._parameters


def _restored(model, initial_model, initial_weight_id):
    assert not hasattr(model, "parametrizations")
    _eq(model.weight, initial_model.weight)
    assert id(model.weight) == initial_weight_id
    assert model.__class__ is nn.Linear


def _sgd_changes(model, sgd):
    weight_copy = model.weight.clone()
    bias_copy = model.bias.clone()
    sgd.zero_grad()
    (model.weight.T @ model.bias).sum().backward()
    sgd.step()
    assert _not_equal(model.weight, weight_copy)
    assert _not_equal(model.bias, bias_copy)


def test_register_and_remove_parametrization():
    import copy
    model = nn.Linear(8, 8)
    initial_weight_id = id(model.weight)
    initial_bias_id = id(model.bias)
    initial_model = copy.deepcopy(model)

    with pytest.raises(ValueError,
                       match="Registering a parametrization may not change the shape of the "
                             "tensor"):
        parametrize.register_parametrization(model, "weight", _Resize())
        model(pyad.ones(8, 8))

    # one parametrization with unsafe=True
    parametrize.register_parametrization(model, "weight", _Resize(), unsafe=True)
    _is_weight_only(model)
    assert model.weight.shape[0] == 1
    parametrize.remove_parametrizations(model, "weight", leave_parametrized=False)
    _restored(model, initial_model, initial_weight_id)

    # two, the first unsafe
    parametrize.register_parametrization(model, "weight", _Resize(), unsafe=True)
    parametrize.register_parametrization(model, "weight", _NoResize(), unsafe=False)
    _is_weight_only(model)
    assert model.weight.shape[0] == 1
    parametrize.remove_parametrizations(model, "weight", leave_parametrized=False)
    _restored(model, initial_model, initial_weight_id)

    # unsafe does not change the expected behaviour
    for unsafe in (True, False):
        parametrize.register_parametrization(model, "weight", _Skew(), unsafe=unsafe)
        _is_weight_only(model)
        A = model.weight
        _eq(A, -A.T)
        parametrize.remove_parametrizations(model, "weight", leave_parametrized=False)
        _restored(model, initial_model, initial_weight_id)

    # two at the same time
    parametrize.register_parametrization(model, "weight", _Skew())
    parametrize.register_parametrization(model, "weight", _Orthogonal())
    X = model.weight
    _assert_close(X.T @ X, np.eye(8, dtype=np.float32))
    _is_weight_only(model)
    assert "weight" in model.parametrizations
    parametrize.remove_parametrizations(model, "weight", leave_parametrized=False)
    _restored(model, initial_model, initial_weight_id)

    # everything
    parametrize.register_parametrization(model, "weight", _Skew())
    parametrize.register_parametrization(model, "weight", _Orthogonal())
    parametrize.register_parametrization(model, "bias", _FirstZero())
    parametrize.register_parametrization(model, "bias", _LastZero())
    assert parametrize.is_parametrized(model)
    assert parametrize.is_parametrized(model, "weight")
    assert parametrize.is_parametrized(model, "bias")
    assert model.bias[0].item() == 0.0
    assert model.bias[-1].item() == 0.0
    assert len(list(model.parameters())) == 2
    sgd = pyad.optim.SGD(model.parameters(), lr=0.01)
    _sgd_changes(model, sgd)

    parametrize.remove_parametrizations(model, "weight", leave_parametrized=False)
    assert parametrize.is_parametrized(model)
    assert not parametrize.is_parametrized(model, "weight")
    assert parametrize.is_parametrized(model, "bias")
    assert model.bias[0].item() == 0.0
    assert model.bias[-1].item() == 0.0
    assert _not_equal(model.weight, initial_model.weight)
    assert id(model.weight) == initial_weight_id
    assert len(list(model.parameters())) == 2
    _sgd_changes(model, sgd)

    parametrize.remove_parametrizations(model, "bias", leave_parametrized=False)
    assert not parametrize.is_parametrized(model)
    assert _not_equal(model.bias, initial_model.bias)
    assert model.bias[0].item() != 0.0
    assert model.bias[-1].item() != 0.0
    assert id(model.bias) == initial_bias_id
    assert not hasattr(model, "parametrizations")
    assert model.__class__ is nn.Linear
    assert len(list(model.parameters())) == 2
    _sgd_changes(model, sgd)

    for _ in range(2):
        parametrize.register_parametrization(model, "weight", _Skew())
        parametrize.register_parametrization(model, "weight", _Orthogonal())
        parametrize.remove_parametrizations(model, "weight", leave_parametrized=True)
        assert id(model.weight) == initial_weight_id
        assert id(model.bias) == initial_bias_id
        _sgd_changes(model, sgd)


def test_register_and_remove_nested_parametrization():
    model = nn.Linear(8, 8)
    parametrize.register_parametrization(model, "weight", _Skew())
    _is_weight_only(model)
    A = model.weight
    _eq(A, -A.T)
    param_mod = model.parametrizations.weight
    assert not hasattr(param_mod, "parametrizations")
    assert not parametrize.is_parametrized(param_mod)
    assert not parametrize.is_parametrized(param_mod, "original")
    parametrize.register_parametrization(param_mod, "original", _Skew())
    assert hasattr(param_mod, "parametrizations")
    assert parametrize.is_parametrized(param_mod)
    assert parametrize.is_parametrized(param_mod, "original")
    assert "original" not in param_mod._parameters
    A = param_mod.original
    _eq(A, -A.T)
    parametrize.remove_parametrizations(param_mod, "original", leave_parametrized=False)
    assert not hasattr(param_mod, "parametrizations")
    assert param_mod.__class__ is parametrize.ParametrizationList
    parametrize.remove_parametrizations(model, "weight", leave_parametrized=False)
    assert not hasattr(model, "parametrizations")
    assert model.__class__ is nn.Linear


class _Identity(nn.Module):
    def forward(self, x):
        return x


def _still_identity(module):
    assert parametrize.is_parametrized(module)
    assert len(module.parametrizations.weight) == 1
    assert isinstance(module.parametrizations.weight[0], _Identity)


def test_errors_parametrized_tensor_parametrization():
    module = nn.Linear(3, 4)
    parametrize.register_parametrization(module, "weight", _Identity())

    class WrongReturn(nn.Module):
        def forward(self, x):
            return x, x

    class ChangeDtype(nn.Module):
        def forward(self, x):
            return x.bool()

    class ChangeShape(nn.Module):
        def forward(self, x):
            return x[:-1]

    class WrongReturnInverse(_Identity):
        def right_inverse(self, x):
            return x, x

    class ChangeDtypeInverse(_Identity):
        def right_inverse(self, x):
            return x.bool()

    class ChangeShapeInverse(_Identity):
        def right_inverse(self, x):
            return x[:-1]

    for cls, msg in [(WrongReturn, "must return a tensor"),
                     (ChangeDtype, "may not change the dtype"),
                     (ChangeShape, "may not change the shape"),
                     (WrongReturnInverse, "right_inverse must return a tensor"),
                     (ChangeDtypeInverse, "must have the same dtype"),
                     (ChangeShapeInverse, "must have the same shape")]:
        with pytest.raises(ValueError, match=msg):
            parametrize.register_parametrization(module, "weight", cls())
        _still_identity(module)


class _RankOne(nn.Module):
    def forward(self, x, y):
        return x.unsqueeze(-1) @ y.unsqueeze(-2)

    def right_inverse(self, Y):
        U, S, Vh = pyad.linalg.svd(Y, full_matrices=False)
        s0_sqrt = S[0].sqrt().unsqueeze(-1)
        return U[..., :, 0] * s0_sqrt, Vh[..., 0, :] * s0_sqrt


class _Double(nn.Module):
    def forward(self, x):
        return 2.0 * x

    def right_inverse(self, w):
        return 0.5 * w


def _rank(w):
    return int(pyad.linalg.matrix_rank(w).item())


def _sgd_twice(model):
    sgd = pyad.optim.SGD(model.parameters(), lr=0.1)
    for _ in range(2):
        sgd.zero_grad()
        (model.weight.T @ model.bias).sum().backward()
        sgd.step()


def test_multiple_inputs_parametrization():
    model = nn.Linear(3, 3)
    parametrize.register_parametrization(model, "weight", _RankOne())
    assert hasattr(model, "parametrizations")
    assert parametrize.is_parametrized(model)
    assert parametrize.is_parametrized(model, "weight")
    assert "original0" in model.parametrizations.weight._parameters
    assert "original1" in model.parametrizations.weight._parameters
    assert not parametrize.is_parametrized(model, "bias")
    assert "weight" not in model._parameters
    assert _rank(model.weight) == 1
    with pytest.raises(ValueError, match="leave_parametrized=False"):
        parametrize.remove_parametrizations(model, "weight", leave_parametrized=False)
    parametrize.remove_parametrizations(model, "weight", leave_parametrized=True)
    assert not hasattr(model, "parametrizations")
    assert model.__class__ is nn.Linear
    assert not parametrize.is_parametrized(model)
    assert _rank(model.weight) == 1
    assert "weight" in model._parameters

    init_weight = model.weight.clone()
    parametrize.register_parametrization(model, "weight", _RankOne())
    _assert_close(init_weight, model.weight)
    parametrize.register_parametrization(model, "weight", _Double())
    _assert_close(2.0 * init_weight, model.weight)
    assert _rank(model.weight) == 1
    assert len(list(model.parameters())) == 3
    _sgd_twice(model)
    with pytest.raises(ValueError, match="leave_parametrized=False"):
        parametrize.remove_parametrizations(model, "weight", leave_parametrized=False)
    parametrize.remove_parametrizations(model, "weight", leave_parametrized=True)
    assert not hasattr(model, "parametrizations")
    assert model.__class__ is nn.Linear
    assert not parametrize.is_parametrized(model)
    assert _rank(model.weight) == 1
    assert "weight" in model._parameters
    assert len(list(model.parameters())) == 2
    _sgd_twice(model)


def test_caching_parametrization():
    model = nn.Linear(5, 5)
    parametrize.register_parametrization(model, "weight", _Skew())
    parametrize.register_parametrization(model, "weight", _Orthogonal())
    with parametrize.cached():
        X = model.weight
        Y = model.weight
        assert id(X) == id(Y)


def test_caching_parametrization_with_transfer_parametrizations_and_params():
    model = nn.Linear(5, 5)
    parametrize.register_parametrization(model, "weight", _Skew())
    parametrize.register_parametrization(model, "weight", _Orthogonal())
    to_model = nn.Linear(5, 5)
    parametrize.transfer_parametrizations_and_params(model, to_model)
    with parametrize.cached():
        X = model.weight
        Y = model.weight
        assert id(X) == id(Y)
        A = to_model.weight
        B = to_model.weight
        assert id(A) == id(B)
        # the two models are not the same objects, nor their cached weights
        assert id(A) != id(X)


def test_type_before_parametrizations():
    model = nn.Linear(5, 5)
    original_type = type(model)
    assert parametrize.type_before_parametrizations(model) == original_type
    parametrize.register_parametrization(model, "weight", _Identity())
    assert parametrize.type_before_parametrizations(model) == original_type


class _AddOne(nn.Module):
    def forward(self, x):
        return x + 1.0


class _MinusOne(nn.Module):
    def forward(self, x):
        return x - 1.0


def test_deepcopy_after_parametrization():
    import copy

    class ModelWithoutDeepcopy(nn.Module):
        def __init__(self):
            super().__init__()
            self.weight = Parameter(pyad.tensor([1.0, 1.0, 1.0, 1.0]), requires_grad=True)
            self.bias = Parameter(pyad.tensor([0.0, 0.0, 0.0, 0.0]), requires_grad=True)
            self.attr = [1.0, 2.0, 3.0, 4.0]

    class ActualModel(ModelWithoutDeepcopy):
        def __deepcopy__(self, memo):
            result = self.__new__(self.__class__)
            memo[id(self)] = result
            result.__dict__ = copy.deepcopy(self.__dict__, memo)
            return result

    def check_deepcopy(m1, m2):
        w1 = m1.parametrizations.weight.original
        w2 = m2.parametrizations.weight.original
        b1 = m1.parametrizations.bias.original if parametrize.is_parametrized(m1, "bias") \
            else m1.bias
        b2 = m2.parametrizations.bias.original if parametrize.is_parametrized(m2, "bias") \
            else m2.bias
        assert m1.__dict__.keys() == m2.__dict__.keys()
        assert m1 is not m2
        _eq(w1, w2)
        assert w1 is not w2
        _eq(b1, b2)
        assert b1 is not b2
        assert m1.attr == m2.attr
        assert m1.attr is not m2.attr

    for model in (ModelWithoutDeepcopy(), ActualModel()):
        parametrize.register_parametrization(model, "weight", _AddOne())
        check_deepcopy(model, copy.deepcopy(model))
        parametrize.register_parametrization(model, "bias", _AddOne())
        check_deepcopy(model, copy.deepcopy(model))
        parametrize.register_parametrization(model, "weight", _AddOne())
        check_deepcopy(model, copy.deepcopy(model))


# torch transfers to torch.ao.nn.qat.Linear (quantization is out of scope): a plain
# Linear of the same shape stands in for it.

def test_transfer_parametrizations_and_params():
    model = nn.Linear(5, 5)
    parametrize.register_parametrization(model, "weight", _AddOne())
    parametrize.register_parametrization(model, "weight", _Double())
    parametrize.register_parametrization(model, "weight", _MinusOne())
    hold_weight = model.weight
    to_model = nn.Linear(5, 5)
    parametrize.transfer_parametrizations_and_params(model, to_model)
    assert parametrize.is_parametrized(to_model, "weight")
    _eq(model.weight, to_model.weight)
    _eq(model.parametrizations.weight.original, to_model.parametrizations.weight.original)
    _eq(hold_weight, model.weight)
    parametrize.remove_parametrizations(to_model, "weight")
    assert not parametrize.is_parametrized(to_model, "weight")
    assert parametrize.is_parametrized(model, "weight")
    model.test_param = Parameter(pyad.randn(5, 5))
    assert not hasattr(to_model, "test_param")
    parametrize.register_parametrization(model, "test_param", _Double())
    hold_test_param = model.test_param
    parametrize.transfer_parametrizations_and_params(model, to_model, "test_param")
    _eq(model.test_param, to_model.test_param)
    _eq(model.parametrizations.test_param.original,
        to_model.parametrizations.test_param.original)
    _eq(hold_test_param, model.test_param)


def test_transfer_parametrizations_and_params_right_inverse():
    model = nn.Linear(5, 5)
    parametrize.register_parametrization(model, "weight", _Double())
    hold_weight = model.weight
    to_model = nn.Linear(5, 5)
    parametrize.transfer_parametrizations_and_params(model, to_model)
    _eq(model.weight, to_model.weight)
    _eq(model.parametrizations.weight.original, to_model.parametrizations.weight.original)
    _eq(hold_weight, model.weight)


def test_transfer_parametrizations_and_params_single_param():
    model = nn.Linear(5, 5, bias=True)
    for name in ("weight", "bias"):
        for p in (_AddOne(), _Double(), _MinusOne()):
            parametrize.register_parametrization(model, name, p)
    to_model = nn.Linear(5, 5, bias=True)
    parametrize.transfer_parametrizations_and_params(model, to_model, "weight")
    _eq(model.weight, to_model.weight)
    _eq(model.parametrizations.weight.original, to_model.parametrizations.weight.original)
    assert "bias" not in to_model.parametrizations


def test_transfer_parametrizations_and_params_many_to_one():
    model = nn.Linear(3, 3)
    parametrize.register_parametrization(model, "weight", _RankOne())
    parametrize.register_parametrization(model, "weight", _Double())
    hold_weight = model.weight
    to_model = nn.Linear(3, 3)
    parametrize.transfer_parametrizations_and_params(model, to_model)
    assert parametrize.is_parametrized(to_model, "weight")
    _eq(model.weight, to_model.weight)
    _eq(model.parametrizations.weight.original0, to_model.parametrizations.weight.original0)
    _eq(model.parametrizations.weight.original1, to_model.parametrizations.weight.original1)
    _eq(hold_weight, model.weight)
    model.test_param = Parameter(pyad.randn(3, 3))
    assert not hasattr(to_model, "test_param")
    parametrize.register_parametrization(model, "test_param", _RankOne())
    hold_test_param = model.test_param
    parametrize.transfer_parametrizations_and_params(model, to_model, "test_param")
    _eq(model.test_param, to_model.test_param)
    _eq(model.parametrizations.test_param.original0,
        to_model.parametrizations.test_param.original0)
    _eq(model.parametrizations.test_param.original1,
        to_model.parametrizations.test_param.original1)
    _eq(hold_test_param, model.test_param)


# --------------------------------------------------------------------------- init
# pytorch/pytorch test/nn/test_init.py (the statistical tests keep torch's Kolmogorov-Smirnov
# criterion, p > 1e-4, on seeded draws)

import random  # noqa: E402

from pyad.nn import init  # noqa: E402

stats = pytest.importorskip("scipy.stats")


@pytest.fixture
def _seeded():
    random.seed(123)
    pyad.manual_seed(123)


def _is_normal(t, mean, std):
    return stats.kstest(t.detach().numpy().ravel().tolist(), "norm", args=(mean, std))[1] \
        > 0.0001


def _is_uniform(t, a, b):
    return stats.kstest(t.detach().numpy().ravel().tolist(), "uniform",
                        args=(a, b - a))[1] > 0.0001


def _is_trunc_normal(t, mean, std, a, b):
    z = ((t.detach().numpy().ravel().astype(np.float64) - mean) / std).tolist()
    return stats.kstest(z, "truncnorm", args=((a - mean) / std, (b - mean) / std))[1] \
        > 0.0001


def _random_nd(dims, size_min, size_max):
    return pyad.zeros([random.randint(size_min, size_max) for _ in range(dims)])


def _random_float(a, b):
    return (b - a) * random.random() + a


def _fans(t):
    fan_in, fan_out = t.size(1), t.size(0)
    if t.dim() > 2:
        fan_in *= t[0, 0].numel()
        fan_out *= t[0, 0].numel()
    return fan_in, fan_out


@pytest.mark.parametrize("fn", ["xavier_uniform_", "xavier_normal_", "kaiming_uniform_",
                                "kaiming_normal_"])
def test_xavier_kaiming_errors_on_inputs_smaller_than_2d(fn, _seeded):
    # torch's test_xavier_uniform_errors_on_inputs_smaller_than_2d and its three siblings
    for dims in [0, 1]:
        tensor = _random_nd(dims, 1, 1)
        with pytest.raises(ValueError):
            getattr(init, fn)(tensor)


@pytest.mark.parametrize("fn", ["kaiming_uniform_", "kaiming_normal_"])
def test_kaiming_warning_on_0element_tensor(fn):
    # torch's test_kaiming_uniform_warning_on_0element_tensor / _normal_
    with pytest.warns(UserWarning, match="Initializing zero-element tensors is a no-op"):
        getattr(init, fn)(pyad.empty(0, 1))


def test_xavier_uniform(_seeded):
    for use_gain in [True, False]:
        for dims in [2, 4]:
            t = _random_nd(dims, 20, 25)
            gain = 1
            if use_gain:
                gain = _random_float(0.1, 2)
                init.xavier_uniform_(t, gain=gain)
            else:
                init.xavier_uniform_(t)
            fan_in, fan_out = _fans(t)
            bounds = gain * math.sqrt(2.0 / (fan_in + fan_out)) * math.sqrt(3)
            assert _is_uniform(t, -bounds, bounds)


def test_xavier_normal(_seeded):
    for use_gain in [True, False]:
        for dims in [2, 4]:
            t = _random_nd(dims, 20, 25)
            gain = 1
            if use_gain:
                gain = _random_float(0.1, 2)
                init.xavier_normal_(t, gain=gain)
            else:
                init.xavier_normal_(t)
            fan_in, fan_out = _fans(t)
            assert _is_normal(t, 0, gain * math.sqrt(2.0 / (fan_in + fan_out)))


@pytest.mark.parametrize("kind", ["uniform", "normal"])
def test_kaiming(kind, _seeded):
    # torch's test_kaiming_uniform and test_kaiming_normal
    for use_a in [True, False]:
        for dims in [2, 4]:
            for mode in ["fan_in", "fan_out"]:
                t = _random_nd(dims, 20, 25)
                fn = getattr(init, "kaiming_%s_" % kind)
                if use_a:
                    a = _random_float(0.1, 2)
                    fn(t, a=a, mode=mode)
                else:
                    a = 0
                    fn(t, mode=mode)
                fan_in, fan_out = _fans(t)
                n = fan_in if mode == "fan_in" else fan_out
                std = math.sqrt(2.0 / ((1 + a ** 2) * n))
                if kind == "uniform":
                    assert _is_uniform(t, -std * math.sqrt(3.0), std * math.sqrt(3.0))
                else:
                    assert _is_normal(t, 0, std)


def test_sparse_default_std(_seeded):
    for use_random_std in [True, False]:
        t = _random_nd(2, 30, 35)
        rows = t.size(0)
        sparsity = _random_float(0.1, 0.2)
        std = 0.01
        if use_random_std:
            std = _random_float(0.01, 0.2)
            init.sparse_(t, sparsity=sparsity, std=std)
        else:
            init.sparse_(t, sparsity=sparsity)
        for col_idx in range(t.size(1)):
            column = t[:, col_idx]
            assert column[column == 0].nelement() >= math.ceil(sparsity * rows)
        assert _is_normal(t[t != 0], 0, std)


def test_deprecation():
    x = pyad.randn(3, 3)
    with pytest.warns(FutureWarning, match="deprecated"):
        init.normal(x)


def test_trunc_normal_generator():
    gen = pyad.Generator()
    gen.manual_seed(42)
    input_tensor = pyad.empty(5)
    init.trunc_normal_(input_tensor, generator=gen)
    ref = pyad.empty(5)
    pyad.manual_seed(42)
    init.trunc_normal_(ref)
    _eq(input_tensor, ref)
    assert _is_trunc_normal(input_tensor, mean=0, std=1, a=0, b=1)   # torch's a, b


@pytest.mark.parametrize("dims", [1, 2, 4])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_trunc_normal_all_dtypes(dims, dtype, _seeded):
    size = [random.randint(30, 50) for _ in range(dims)]
    t = pyad.zeros(size, dtype=getattr(pyad, dtype))
    mean = random.uniform(-3, 3)
    std = random.uniform(0.01, 1)
    a = random.uniform(mean - 2 * std, mean)
    b = random.uniform(mean, mean + 2 * std)
    init.trunc_normal_(t, mean=mean, std=std, a=a, b=b)
    lo = float(np.asarray(a, dtype=dtype))
    hi = float(np.asarray(b, dtype=dtype))
    assert t.min().item() >= lo
    assert t.max().item() <= hi
    assert _is_trunc_normal(t, mean, std, a, b)


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
def test_trunc_normal_narrow_interval(dtype, _seeded):
    t = pyad.empty(10000, dtype=getattr(pyad, dtype))
    init.trunc_normal_(t, mean=0.0, std=1.0, a=2.0, b=3.0)
    assert t.min().item() >= 2.0
    assert t.max().item() <= 3.0
    assert _is_trunc_normal(t, 0.0, 1.0, 2.0, 3.0)


@pytest.mark.parametrize("dtype,min_unique", [("float32", 5000), ("float64", 5000),
                                              ("float16", 3000)])
def test_trunc_normal_unique_values(dtype, min_unique, _seeded):
    t = pyad.empty(10000, dtype=getattr(pyad, dtype))
    init.trunc_normal_(t, mean=0.0, std=1.0, a=-2.0, b=2.0)
    assert t.min().item() >= -2.0
    assert t.max().item() <= 2.0
    assert t.unique().numel() > min_unique
    assert not t.isinf().any().item()
    assert not t.isnan().any().item()


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
def test_trunc_normal_no_boundary_values_small_std(dtype, _seeded):
    t = pyad.empty(10000, dtype=getattr(pyad, dtype))
    init.trunc_normal_(t, mean=0.0, std=0.1, a=-2.0, b=2.0)
    assert (t == -2.0).sum().item() == 0
    assert (t == 2.0).sum().item() == 0


# --------------------------------------------------------------------------- dropout layouts
# pytorch/pytorch test/nn/test_dropout.py: the memory-format parts of _test_dropout,
# _test_dropout_discontiguous and _test_dropout_stride_mean_preserve (statistics with
# torch's tolerances)

def _dropout_layout(cls, input, memory_format):
    p = 0.2
    input = input.fill_(1 - p)
    for module, plus in ((cls(p), False), (cls(p, True), True)):
        input_var = input.clone(memory_format=memory_format).requires_grad_()
        output = module(input_var + 0 if plus else input_var)
        assert output.is_contiguous(memory_format=memory_format)
        assert abs(output.data.mean() - (1 - p)) < 0.05
        output.backward(input)
        assert input_var.grad.is_contiguous(memory_format=memory_format)
        assert abs(input_var.grad.data.mean() - (1 - p)) < 0.05
    for inplace in [True, False]:
        module = cls(p, inplace).eval()
        _eq(input, module(input))


def test_Dropout2d_channels_last():
    # torch's test_Dropout2d runs _test_dropout with channels_last too
    pyad.manual_seed(0)
    _dropout_layout(nn.Dropout2d, pyad.empty(1000, 3, 4, 5), pyad.channels_last)


@pytest.mark.parametrize("cls", ["Dropout", "Dropout2d", "Dropout3d"])
@pytest.mark.parametrize("memory_format", ["contiguous_format", "channels_last"])
def test_dropout_discontiguous(cls, memory_format):
    # torch's _test_dropout_discontiguous (issue 47176): p=0 and p close to 0 keep the
    # values of a discontiguous input; p != 0 gives a result in the input's memory format
    fmt = getattr(pyad, memory_format)
    for p in [0, 1e-10]:
        inp = pyad.ones(2, 3, 3, 3)
        inp_discontiguous = pyad.empty(2, 3, 3, 6, memory_format=fmt)[..., ::2]
        inp_discontiguous.copy_(inp)
        out = getattr(nn, cls)(p=p)(inp_discontiguous)
        if p != 0:
            assert out.is_contiguous(memory_format=fmt)
        _eq(inp_discontiguous, out)


def test_dropout_stride_mean_preserve():
    import itertools

    def invert_perm(p):
        d = {x: i for i, x in enumerate(p)}
        return (d[0], d[1], d[2], d[3])

    pyad.manual_seed(0)
    inp = pyad.ones(2, 3, 4, 5)
    for perm in itertools.permutations((0, 1, 2, 3), r=4):
        for shift in [(0, 0), (1, 0), (0, 1), (1, 1)]:
            for p in [1e-10, 0.3, 0.5, 0.7]:
                permuted = inp.permute(perm).contiguous().permute(invert_perm(perm))
                permuted = permuted[shift[0]:, shift[1]:, :, :]
                out = nn.Dropout(p=p)(permuted)
                assert out.permute(perm).is_contiguous()
                np.testing.assert_allclose(out.mean().item(), inp.mean().item(), rtol=0.5,
                                           atol=0.5)
                if p == 1e-10:
                    _eq(permuted, out)
                else:
                    assert not np.array_equal(permuted.detach().numpy(),
                                              out.detach().numpy())


# --------------------------------------------------------------------------- embedding bags
# pytorch/pytorch test/nn/test_embedding.py

def test_embedding_bag_from_pretrained():
    a = pyad.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    embedding = nn.EmbeddingBag.from_pretrained(a)
    _eq(a, embedding.weight)
    input = pyad.tensor([0, 1], dtype=pyad.int64)
    output = embedding(input, pyad.arange(input.size(0)))
    _eq(a, output)


def test_embedding_bag_from_pretrained_padding_idx():
    embeddings = pyad.rand(4, 3, requires_grad=True)
    embedding_nn = nn.EmbeddingBag.from_pretrained(embeddings, padding_idx=2)
    _eq(embedding_nn.weight, embeddings)


def test_embedding_bag_functional():
    a = pyad.tensor([[1, 3, 2], [0, 2, 1]], dtype=pyad.int64)
    w = _rng(12).uniform(size=(4, 3)).astype(np.float32)
    embeddings = pyad.tensor(w, requires_grad=True)
    embed_old = nn.EmbeddingBag(4, 3)
    embed_old.weight = Parameter(embeddings)
    res_old = embed_old(a)
    res_F = F.embedding_bag(a, embeddings)
    _eq(res_old, res_F)
    _close(res_F, tF.embedding_bag(torch.tensor(a.numpy()), torch.tensor(w)), atol=1e-6,
           rtol=1e-6)
    embed_old = nn.EmbeddingBag(4, 3)
    embed_old = embed_old.from_pretrained(embeddings, padding_idx=2)
    res_old = embed_old(a)
    res_F = F.embedding_bag(a, embeddings, padding_idx=2)
    _eq(res_old, res_F)
    _close(res_F, tF.embedding_bag(torch.tensor(a.numpy()), torch.tensor(w), padding_idx=2),
           atol=1e-6, rtol=1e-6)


def test_embedding_bag_from_pretrained_options():
    # torch's test_embeddingbag_from_pretrained_options (under a float64 default dtype)
    a = pyad.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], dtype=pyad.float64)
    opts = {"max_norm": 2.0, "norm_type": 0.5, "scale_grad_by_freq": False, "mode": "max",
            "sparse": False}
    embeddingbag = nn.EmbeddingBag.from_pretrained(a, **opts)
    output = embeddingbag(pyad.tensor([[0, 1]], dtype=pyad.int64))
    _eq(a.max(0, keepdim=True)[0], output)
    assert bool(a.ne(pyad.arange(1, 7, dtype=a.dtype).view(2, 3)).all())
    assert bool(a.norm(p=opts["norm_type"], dim=1).le(opts["max_norm"]).all())
    # torch on the same weights renormalises them the same way
    ta = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], dtype=torch.float64)
    tout = tnn.EmbeddingBag.from_pretrained(ta, **opts)(torch.tensor([[0, 1]]))
    _close(a, ta)
    _close(output, tout)


def test_embeddingbag_include_last_offset():
    # the case of torch's issue 89677
    embeddingbag = nn.EmbeddingBag(100, 3, include_last_offset=True, padding_idx=61)
    input = pyad.tensor([0, 1, 2, 3])
    out = embeddingbag(input, pyad.tensor([0, 3, 3]))
    out2 = embeddingbag(input, pyad.tensor([0, 3, 4]))
    weight = embeddingbag.weight
    ref_out = pyad.stack([weight[0:3].mean(0), weight[3]])
    _assert_close(ref_out, out)
    _assert_close(ref_out, out2)
