"""pyad.nn.utils.prune against torch.nn.utils.prune (torch 2.13) on the same weights:
masks, pruned weights, state_dict keys, iterative pruning through PruningContainer,
global pruning, remove, gradients to ``<name>_orig`` and torch's validation errors. The
random methods draw from different generators, so their tests check the counts and the
shape of the mask (whole channels for the structured one), not the positions."""
import math

import numpy as np
import pytest

import pyad
from pyad.nn.utils import prune

torch = pytest.importorskip("torch")
import torch.nn.utils.prune as tprune  # noqa: E402


def _twins(kind="linear", seed=0):
    """A torch module and a pyad module with the same (distinct-valued) weights."""
    torch.manual_seed(seed)
    if kind == "linear":
        t = torch.nn.Linear(5, 4).double()
        p = pyad.nn.Linear(5, 4).double()
    else:
        t = torch.nn.Conv2d(3, 6, 3).double()
        p = pyad.nn.Conv2d(3, 6, 3).double()
    p.load_state_dict({k: pyad.tensor(v.detach().numpy()) for k, v in t.state_dict().items()})
    return t, p


def _np(v):
    return v.detach().numpy()


def _same_pruning(t, p, name="weight"):
    assert list(t.state_dict()) == list(p.state_dict())
    np.testing.assert_array_equal(_np(getattr(p, name + "_mask")),
                                  _np(getattr(t, name + "_mask")))
    np.testing.assert_array_equal(_np(getattr(p, name)), _np(getattr(t, name)))
    np.testing.assert_array_equal(_np(getattr(p, name + "_orig")),
                                  _np(getattr(t, name + "_orig")))


@pytest.mark.parametrize("amount", [0, 3, 20, 0.0, 0.3, 0.5, 1.0])
def test_l1_unstructured(amount):
    t, p = _twins()
    tprune.l1_unstructured(t, "weight", amount=amount)
    out = prune.l1_unstructured(p, "weight", amount=amount)
    assert out is p
    _same_pruning(t, p)
    assert sorted(dict(p.named_parameters())) == ["bias", "weight_orig"]
    assert sorted(dict(p.named_buffers())) == ["weight_mask"]
    assert isinstance(p.weight_orig, pyad.nn.Parameter)
    assert not isinstance(p.weight, pyad.nn.Parameter)
    assert prune.is_pruned(p) and tprune.is_pruned(t)


def test_l1_unstructured_importance_scores():
    t, p = _twins()
    scores = np.random.default_rng(1).standard_normal((4, 5))
    tprune.l1_unstructured(t, "weight", amount=7, importance_scores=torch.tensor(scores))
    prune.l1_unstructured(p, "weight", amount=7, importance_scores=pyad.tensor(scores))
    _same_pruning(t, p)
    with pytest.raises(AssertionError, match="importance_scores should have the same shape"):
        prune.l1_unstructured(p, "bias", amount=1, importance_scores=pyad.ones(3))


@pytest.mark.parametrize("n,dim,amount", [(1, 0, 2), (2, 1, 0.34), (float("inf"), -1, 1),
                                          (2, 0, 0), (-math.inf, 0, 0.5), (3, 1, 2)])
def test_ln_structured(n, dim, amount):
    t, p = _twins("conv")
    tprune.ln_structured(t, "weight", amount=amount, n=n, dim=dim)
    prune.ln_structured(p, "weight", amount=amount, n=n, dim=dim)
    _same_pruning(t, p)


def test_ln_structured_importance_scores():
    t, p = _twins("conv")
    scores = np.random.default_rng(2).standard_normal((6, 3, 3, 3))
    tprune.ln_structured(t, "weight", 3, 2, 0, importance_scores=torch.tensor(scores))
    prune.ln_structured(p, "weight", 3, 2, 0, importance_scores=pyad.tensor(scores))
    _same_pruning(t, p)


def test_iterative_pruning_container():
    # torch's test_pruning_container_compute_mask / the tutorial's iterative pruning:
    # an unstructured then a structured pass on what is left
    t, p = _twins("conv")
    for lib, mod in ((tprune, t), (prune, p)):
        lib.l1_unstructured(mod, "weight", amount=0.3)
        lib.ln_structured(mod, "weight", amount=2, n=2, dim=0)
        lib.l1_unstructured(mod, "weight", amount=10)
    _same_pruning(t, p)
    hooks = [h for _, h, _ in p._forward_pre_hooks]
    assert len(hooks) == 1 and isinstance(hooks[0], prune.PruningContainer)
    container = hooks[0]
    assert [type(m).__name__ for m in container] == ["L1Unstructured", "LnStructured",
                                                     "L1Unstructured"]
    assert len(container) == 3 and container[1].dim == 0
    assert container._tensor_name == "weight"


def test_pruning_container_errors():
    a = prune.L1Unstructured(amount=1)
    a._tensor_name = "weight"
    container = prune.PruningContainer(a)
    with pytest.raises(TypeError, match="is not a BasePruningMethod subclass"):
        container.add_pruning_method(3)
    b = prune.L1Unstructured(amount=1)
    b._tensor_name = "bias"
    with pytest.raises(ValueError, match="Can only add pruning methods acting on the "
                                         "parameter named 'weight'"):
        container.add_pruning_method(b)
    ta = tprune.L1Unstructured(amount=1)
    ta._tensor_name = "weight"
    tb = tprune.L1Unstructured(amount=1)
    tb._tensor_name = "bias"
    with pytest.raises(ValueError, match="Can only add pruning methods acting on the "
                                         "parameter named 'weight'"):
        tprune.PruningContainer(ta).add_pruning_method(tb)


def test_structured_in_container_slices_by_channel():
    # a structured method after another structured one only sees the kept channels
    t, p = _twins("conv")
    for lib, mod in ((tprune, t), (prune, p)):
        lib.ln_structured(mod, "weight", amount=2, n=1, dim=0)
        lib.ln_structured(mod, "weight", amount=0.5, n=2, dim=0)
    _same_pruning(t, p)
    kept = (_np(p.weight_mask).reshape(6, -1).sum(1) != 0).sum()
    assert kept == 2


def test_random_unstructured_counts():
    pyad.manual_seed(0)
    _, p = _twins("conv")
    prune.random_unstructured(p, "weight", amount=0.25)
    mask = _np(p.weight_mask)
    assert set(np.unique(mask)) <= {0.0, 1.0}
    assert (mask == 0).sum() == round(0.25 * 162)
    np.testing.assert_array_equal(_np(p.weight), mask * _np(p.weight_orig))
    prune.random_unstructured(p, "weight", amount=10)
    mask2 = _np(p.weight_mask)
    assert (mask2 == 0).sum() == round(0.25 * 162) + 10
    assert np.all(mask2 <= mask)           # what was pruned stays pruned


def test_random_structured_counts():
    _, p = _twins("conv")
    prune.random_structured(p, "weight", amount=2, dim=0)
    mask = _np(p.weight_mask).reshape(6, -1)
    per_channel = mask.sum(1)
    assert sorted(per_channel.tolist()) == [0, 0, 27, 27, 27, 27]
    prune.random_structured(p, "weight", amount=0.5, dim=1)
    mask = _np(p.weight_mask)
    assert (mask.reshape(6, 3, 9).sum((0, 2)) != 0).sum() == 1   # round(0.5*3) = 2 pruned
    assert ((mask.reshape(6, -1).sum(1)) != 0).sum() == 4


def test_random_structured_zero_amount_keeps_default_mask():
    _, p = _twins("conv")
    method = prune.RandomStructured(amount=0, dim=1)
    default = pyad.tensor(np.random.default_rng(0).integers(0, 2, (6, 3, 3, 3)) * 1.0)
    assert method.compute_mask(p.weight, default) is default


def test_custom_from_mask_and_identity():
    t, p = _twins()
    mask = (np.arange(20).reshape(4, 5) % 3 != 0).astype(np.float64)
    tprune.custom_from_mask(t, "weight", torch.tensor(mask))
    prune.custom_from_mask(p, "weight", pyad.tensor(mask))
    _same_pruning(t, p)
    tprune.identity(t, "bias")
    prune.identity(p, "bias")
    _same_pruning(t, p, "bias")
    np.testing.assert_array_equal(_np(p.bias_mask), np.ones(4))


def test_global_unstructured():
    t1, p1 = _twins("linear", 0)
    t2, p2 = _twins("conv", 1)
    tprune.global_unstructured([(t1, "weight"), (t2, "weight"), (t2, "bias")],
                               pruning_method=tprune.L1Unstructured, amount=0.4)
    prune.global_unstructured([(p1, "weight"), (p2, "weight"), (p2, "bias")],
                              pruning_method=prune.L1Unstructured, amount=0.4)
    _same_pruning(t1, p1)
    _same_pruning(t2, p2)
    _same_pruning(t2, p2, "bias")
    total = sum(int((_np(m) == 0).sum()) for m in (p1.weight_mask, p2.weight_mask,
                                                     p2.bias_mask))
    assert total == round(0.4 * (20 + 162 + 6))


def test_global_unstructured_importance_scores_and_errors():
    t, p = _twins()
    scores = np.random.default_rng(3).standard_normal((4, 5))
    tprune.global_unstructured([(t, "weight")], tprune.L1Unstructured,
                               importance_scores={(t, "weight"): torch.tensor(scores)},
                               amount=5)
    prune.global_unstructured([(p, "weight")], prune.L1Unstructured,
                              importance_scores={(p, "weight"): pyad.tensor(scores)},
                              amount=5)
    _same_pruning(t, p)
    with pytest.raises(TypeError, match="parameters is not an Iterable"):
        prune.global_unstructured(3, prune.L1Unstructured, amount=1)
    with pytest.raises(TypeError, match="importance_scores must be of type dict"):
        prune.global_unstructured([(p, "bias")], prune.L1Unstructured,
                                  importance_scores=[1], amount=1)
    with pytest.raises(TypeError, match='Only "unstructured" PRUNING_TYPE supported'):
        prune.global_unstructured([(p, "bias")], prune.LnStructured, amount=1, n=2)


def test_remove():
    t, p = _twins("conv")
    for lib, mod in ((tprune, t), (prune, p)):
        lib.l1_unstructured(mod, "weight", amount=0.5)
        lib.ln_structured(mod, "weight", amount=1, n=1, dim=1)
        lib.remove(mod, "weight")
    assert list(t.state_dict()) == list(p.state_dict()) == ["bias", "weight"]
    assert isinstance(p.weight, pyad.nn.Parameter)
    np.testing.assert_array_equal(_np(p.weight), _np(t.weight))
    assert not prune.is_pruned(p)
    assert p._forward_pre_hooks == [] or not p._forward_pre_hooks
    with pytest.raises(ValueError, match="Parameter 'weight' of module .* has to be pruned "
                                         "before pruning can be removed"):
        prune.remove(p, "weight")


def test_is_pruned_sees_submodules():
    net = pyad.nn.Sequential(pyad.nn.Linear(3, 3), pyad.nn.Sequential(pyad.nn.Linear(3, 2)))
    assert not prune.is_pruned(net)
    prune.random_unstructured(net[1][0], "bias", amount=1)
    assert prune.is_pruned(net)
    prune.remove(net[1][0], "bias")
    assert not prune.is_pruned(net)


def test_forward_pre_hook_recomputes_weight_and_grads_to_orig():
    t, p = _twins("conv")
    x = np.random.default_rng(4).standard_normal((2, 3, 5, 5))
    grads = []
    for lib, mod, tensor in ((tprune, t, torch.tensor), (prune, p, pyad.tensor)):
        lib.l1_unstructured(mod, "weight", amount=0.4)
        with (torch.no_grad() if lib is tprune else pyad.no_grad()):
            mod.weight_orig.mul_(2.0)            # the hook recomputes weight from it
        out = mod(tensor(x))
        (out ** 2).sum().backward()
        grads.append((_np(mod.weight), _np(mod.weight_orig.grad), _np(out)))
    for a, b in zip(grads[0], grads[1]):
        np.testing.assert_allclose(b, a, rtol=1e-12, atol=1e-12)
    # pruned entries get no gradient
    assert np.all(grads[1][1][_np(p.weight_mask) == 0] == 0)


def test_prune_method_on_a_variable():
    w = np.random.default_rng(5).standard_normal((4, 6))
    tout = tprune.L1Unstructured(amount=5).prune(torch.tensor(w))
    pout = prune.L1Unstructured(amount=5).prune(pyad.tensor(w))
    np.testing.assert_array_equal(_np(pout), _np(tout))
    tout = tprune.LnStructured(amount=2, n=1, dim=1).prune(torch.tensor(w))
    pout = prune.LnStructured(amount=2, n=1, dim=1).prune(pyad.tensor(w))
    np.testing.assert_array_equal(_np(pout), _np(tout))
    with pytest.raises(AssertionError, match="importance_scores should have the same shape"):
        prune.L1Unstructured(amount=5).prune(pyad.tensor(w), importance_scores=pyad.ones(3))


@pytest.mark.parametrize("amount,exc,msg", [
    ("a", TypeError, "Invalid type for amount: a. Must be int or float."),
    (-1, ValueError, r"amount=-1 should either be a float in the range \[0, 1\] or a "
                     "non-negative integer"),
    (1.5, ValueError, r"amount=1.5 should either be a float in the range \[0, 1\]"),
    (-0.1, ValueError, r"amount=-0.1 should either be a float in the range \[0, 1\]"),
])
def test_amount_validation(amount, exc, msg):
    for lib in (tprune, prune):
        for cls in (lib.L1Unstructured, lib.RandomUnstructured):
            with pytest.raises(exc, match=msg):
                cls(amount)
        with pytest.raises(exc, match=msg):
            lib.LnStructured(amount, n=2)
        with pytest.raises(exc, match=msg):
            lib.RandomStructured(amount)


def test_amount_too_large_restores_the_parameter():
    for lib, mod in ((tprune, _twins()[0]), (prune, _twins()[1])):
        with pytest.raises(ValueError, match="amount=21 should be smaller than the number "
                                             "of parameters to prune=20"):
            lib.l1_unstructured(mod, "weight", amount=21)
        # the failed apply puts the parameter back
        assert sorted(dict(mod.named_parameters())) == ["bias", "weight"]
        assert "weight_mask" not in dict(mod.named_buffers())


def test_structured_validation():
    _, p = _twins()
    t, _ = _twins()
    for lib, mod in ((tprune, t), (prune, p)):
        with pytest.raises(ValueError, match="Structured pruning can only be applied to "
                                             "multidimensional"):
            lib.ln_structured(mod, "bias", amount=1, n=2, dim=0)
        with pytest.raises(IndexError, match="Invalid index 2 for"):
            lib.ln_structured(mod, "weight", amount=1, n=2, dim=2)
        with pytest.raises(ValueError, match="amount=6 should be smaller than the number of "
                                             "parameters to prune=5"):
            lib.random_structured(mod, "weight", amount=6, dim=1)


def test_state_dict_round_trip_of_a_pruned_module():
    t, p = _twins()
    tprune.l1_unstructured(t, "weight", amount=6)
    prune.l1_unstructured(p, "weight", amount=6)
    state = p.state_dict()
    assert list(state) == list(t.state_dict()) == ["bias", "weight_orig", "weight_mask"]
    q = pyad.nn.Linear(5, 4).double()
    prune.identity(q, "weight")
    q.load_state_dict(state)
    x = pyad.tensor(np.ones((1, 5)))
    np.testing.assert_array_equal(_np(q(x)), _np(p(x)))
    np.testing.assert_array_equal(_np(q(x)), _np(t(torch.ones(1, 5, dtype=torch.float64))))


def test_apply_twice_same_tensor_builds_container_once():
    _, p = _twins()
    first = prune.L1Unstructured.apply(p, "weight", amount=2)
    assert isinstance(first, prune.L1Unstructured)
    second = prune.RandomUnstructured.apply(p, "weight", amount=3)
    assert isinstance(second, prune.PruningContainer) and len(second) == 2
    third = prune.L1Unstructured.apply(p, "weight", amount=1)
    assert third is second and len(second) == 3
    assert int((_np(p.weight_mask) == 0).sum()) == 6
