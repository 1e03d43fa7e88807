"""pyad.optim against torch.optim: the same parameters and gradients, step by step."""
import copy
import math

import numpy as np
import pytest

import pyad
from pyad import nn, optim

torch = pytest.importorskip("torch")

SHAPES = [(3, 4), (4,), ()]


def twins(shapes=SHAPES, seed=0):
    rng = np.random.default_rng(seed)
    values = [rng.normal(size=s) for s in shapes]
    return ([nn.Parameter(pyad.tensor(v)) for v in values],
            [torch.nn.Parameter(torch.tensor(v)) for v in values])


def run_both(make_pyad, make_torch, steps=6, groups=None, shapes=SHAPES, skip=()):
    """Step both optimizers on identical gradients; compare parameters after every step."""
    ps, ts = twins(shapes)
    if groups:
        opt_p = make_pyad([dict(g, params=[ps[i] for i in idx]) for idx, g in groups])
        opt_t = make_torch([dict(g, params=[ts[i] for i in idx]) for idx, g in groups])
    else:
        opt_p, opt_t = make_pyad(ps), make_torch(ts)
    rng = np.random.default_rng(1)
    for step in range(steps):
        for i, (p, t) in enumerate(zip(ps, ts)):
            if i in skip:
                continue
            g = rng.normal(size=p.shape) * (step + 1)
            p.grad = pyad.tensor(g)
            t.grad = torch.tensor(g)
        opt_p.step()
        opt_t.step()
        for i, (p, t) in enumerate(zip(ps, ts)):
            np.testing.assert_allclose(p.data, t.detach().numpy(), rtol=1e-6, atol=1e-12,
                                       err_msg="param %d after step %d" % (i, step + 1))
    return opt_p, opt_t, ps, ts


SGD_CASES = [dict(), dict(momentum=0.9), dict(momentum=0.9, dampening=0.3),
             dict(momentum=0.9, nesterov=True), dict(weight_decay=0.1),
             dict(momentum=0.5, weight_decay=0.1, maximize=True),
             dict(momentum=0.8, nesterov=True, weight_decay=0.01, maximize=True)]


@pytest.mark.parametrize("kwargs", SGD_CASES, ids=str)
def test_sgd_matches_torch_step_by_step(kwargs):
    run_both(lambda p: optim.SGD(p, lr=0.05, **kwargs),
             lambda p: torch.optim.SGD(p, lr=0.05, **kwargs))


ADAM_CASES = [dict(), dict(amsgrad=True), dict(weight_decay=0.1), dict(betas=(0.5, 0.9)),
              dict(eps=1e-3, maximize=True), dict(weight_decay=0.05, amsgrad=True,
                                                  maximize=True)]


@pytest.mark.parametrize("cls", ["Adam", "AdamW"])
@pytest.mark.parametrize("kwargs", ADAM_CASES, ids=str)
def test_adam_and_adamw_match_torch_step_by_step(cls, kwargs):
    run_both(lambda p: getattr(optim, cls)(p, lr=0.01, **kwargs),
             lambda p: getattr(torch.optim, cls)(p, lr=0.01, **kwargs))


def test_param_groups_with_their_own_options_match_torch():
    groups = [([0, 2], dict(lr=0.1)), ([1], dict(lr=0.01, weight_decay=0.2))]
    run_both(lambda g: optim.Adam(g, lr=0.5), lambda g: torch.optim.Adam(g, lr=0.5),
             groups=groups)
    run_both(lambda g: optim.SGD(g, lr=0.5, momentum=0.9),
             lambda g: torch.optim.SGD(g, lr=0.5, momentum=0.9), groups=groups)


def test_parameters_without_grad_are_skipped_and_have_no_state():
    opt_p, opt_t, ps, ts = run_both(lambda p: optim.Adam(p, lr=0.1),
                                    lambda p: torch.optim.Adam(p, lr=0.1), skip=(1,))
    assert sorted(opt_p.state_dict()["state"]) == sorted(opt_t.state_dict()["state"]) == [0, 2]


def test_float32_parameters_stay_float32():
    w = nn.Parameter(pyad.ones(3))
    for opt in (optim.SGD([w], lr=0.1, momentum=0.9, weight_decay=0.1),
                optim.Adam([w], amsgrad=True, weight_decay=0.1), optim.AdamW([w])):
        w.grad = pyad.ones(3)
        opt.step()
        opt.step()
        assert w.dtype == np.float32
        assert all(v.dtype == np.float32 for v in opt.state[w].values() if v.ndim)


@pytest.mark.parametrize("name,kwargs", [("SGD", dict(lr=0.1, momentum=0.9)),
                                         ("Adam", dict(lr=0.1, amsgrad=True)),
                                         ("AdamW", dict(lr=0.1))])
def test_state_dict_has_torch_structure(name, kwargs):
    opt_p, opt_t, _, _ = run_both(lambda p: getattr(optim, name)(p, **kwargs),
                                  lambda p: getattr(torch.optim, name)(p, **kwargs), steps=2)
    sp, st = opt_p.state_dict(), opt_t.state_dict()
    assert set(sp) == set(st) == {"state", "param_groups"}
    assert list(sp["state"]) == list(st["state"])
    for i in st["state"]:
        assert list(sp["state"][i]) == list(st["state"][i])
        for key, value in st["state"][i].items():
            np.testing.assert_allclose(np.asarray(sp["state"][i][key].data),
                                       value.numpy(), rtol=1e-6, err_msg=key)
    assert [g["params"] for g in sp["param_groups"]] == [g["params"] for g in
                                                          st["param_groups"]]
    for gp, gt in zip(sp["param_groups"], st["param_groups"]):
        for key, value in gp.items():
            assert gt[key] == value, key


@pytest.mark.parametrize("name,kwargs", [("SGD", dict(lr=0.1, momentum=0.9, nesterov=True)),
                                         ("Adam", dict(lr=0.1, amsgrad=True)),
                                         ("AdamW", dict(lr=0.1, weight_decay=0.3))])
def test_load_state_dict_resumes_exactly(name, kwargs):
    rng = np.random.default_rng(5)
    grads = [[rng.normal(size=s) for s in SHAPES] for _ in range(6)]

    def train(params, opt, steps):
        for gs in steps:
            for p, g in zip(params, gs):
                p.grad = pyad.tensor(g)
            opt.step()

    ref, _ = twins()
    ref_opt = getattr(optim, name)(ref, **kwargs)
    train(ref, ref_opt, grads)

    first, _ = twins()
    first_opt = getattr(optim, name)(first, **kwargs)
    train(first, first_opt, grads[:3])
    # a deep copy, as a checkpoint file gives: load_state_dict itself shares the state's
    # Variables with the dict, as torch's
    state = copy.deepcopy(first_opt.state_dict())
    resumed = [nn.Parameter(p.detach().clone()) for p in first]
    opt = getattr(optim, name)(resumed, lr=123.0)
    opt.load_state_dict(state)
    assert opt.param_groups[0]["lr"] == 0.1 and opt.param_groups[0]["params"][0] is resumed[0]
    train(first, first_opt, grads[3:])
    train(resumed, opt, grads[3:])
    for p, q in zip(resumed, ref):
        np.testing.assert_array_equal(p.data, q.data)


def test_load_state_dict_refuses_mismatched_groups():
    a = optim.SGD([nn.Parameter(pyad.zeros(1))], lr=0.1)
    b = optim.SGD([nn.Parameter(pyad.zeros(1)), nn.Parameter(pyad.zeros(1))], lr=0.1)
    with pytest.raises(ValueError, match="doesn't match the size"):
        a.load_state_dict(b.state_dict())
    c = optim.SGD([{"params": [nn.Parameter(pyad.zeros(1))]},
                   {"params": [nn.Parameter(pyad.zeros(1))]}], lr=0.1)
    with pytest.raises(ValueError, match="different number of parameter groups"):
        a.load_state_dict(c.state_dict())


@pytest.mark.parametrize("set_to_none", [True, False])
def test_zero_grad(set_to_none):
    w = nn.Parameter(pyad.ones(2))
    opt = optim.SGD([w], lr=0.1)
    (w * 3).sum().backward()
    opt.zero_grad(set_to_none=set_to_none)
    assert (w.grad is None) if set_to_none else (w.grad.data.tolist() == [0.0, 0.0])
    (w * 3).sum().backward()
    assert w.grad.data.tolist() == [3.0, 3.0]


def test_zero_grad_default_sets_to_none():
    w = nn.Parameter(pyad.ones(2))
    opt = optim.Adam([w])
    (w * 3).sum().backward()
    opt.zero_grad()
    assert w.grad is None


@pytest.mark.parametrize("make", [lambda p: optim.SGD(p, lr=0.1, momentum=0.9),
                                  lambda p: optim.Adam(p), lambda p: optim.AdamW(p)])
def test_step_updates_in_place_bumping_the_version(make):
    w = nn.Parameter(pyad.ones(2))
    data = w.data
    opt = make([w])
    y = w * w                                     # saves w for backward
    w.grad = pyad.ones(2)
    version = w._version
    opt.step()
    assert w._version > version and w.data is data and w.is_leaf and w.requires_grad
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


def test_step_with_closure_returns_its_loss():
    w = nn.Parameter(pyad.tensor([2.0]))
    opt = optim.SGD([w], lr=0.25)

    def closure():
        opt.zero_grad()
        loss = (w * w).sum()
        loss.backward()
        return loss
    with pyad.no_grad():
        loss = opt.step(closure)                  # the closure records a graph anyway
    assert float(loss) == 4.0 and w.data.tolist() == [1.0]


def test_a_model_trains_with_sgd():
    pyad.manual_seed(0)
    model = nn.Sequential(nn.Linear(2, 8), nn.Tanh(), nn.Linear(8, 1))
    x = pyad.randn(64, 2)
    y = (x[:, :1] * 2 - x[:, 1:]) * 0.5
    opt = optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    for _ in range(200):
        opt.zero_grad()
        loss = ((model(x) - y) ** 2).mean()
        loss.backward()
        opt.step()
    assert float(loss) < 1e-3


@pytest.mark.parametrize("bad,match", [
    (lambda: optim.SGD([], lr=0.1), "empty parameter list"),
    (lambda: optim.SGD(nn.Parameter(pyad.ones(1)), lr=0.1), "iterable"),
    (lambda: optim.SGD([pyad.ones(1, requires_grad=True) * 2], lr=0.1), "non-leaf"),
    (lambda: optim.SGD([1.0], lr=0.1), "optimize Tensors"),
    # torch refuses a set only in a parameter group (a bare set is accepted, as a list)
    (lambda: optim.SGD([{"params": {nn.Parameter(pyad.ones(1))}}], lr=0.1), "ordered"),
    (lambda: optim.SGD([nn.Parameter(pyad.ones(1))], lr=-1), "Invalid learning rate"),
    (lambda: optim.SGD([nn.Parameter(pyad.ones(1))], lr=0.1, nesterov=True), "Nesterov"),
    (lambda: optim.Adam([nn.Parameter(pyad.ones(1))], betas=(1.0, 0.9)), "beta parameter"),
])
def test_bad_arguments_raise_clear_errors(bad, match):
    with pytest.raises((ValueError, TypeError), match=match):
        bad()


def test_a_parameter_in_two_groups_is_refused():
    w = nn.Parameter(pyad.ones(1))
    with pytest.raises(ValueError, match="more than one parameter group"):
        optim.SGD([{"params": [w]}, {"params": [w]}], lr=0.1)


def test_repr_matches_torch_for_the_options_we_share():
    w = nn.Parameter(pyad.ones(1))
    text = repr(optim.SGD([w], lr=0.1, momentum=0.9))
    lines = text.splitlines()
    assert lines[:2] == ["SGD (", "Parameter Group 0"] and lines[-1] == ")"
    tlines = repr(torch.optim.SGD([torch.nn.Parameter(torch.ones(1))], lr=0.1,
                                  momentum=0.9)).splitlines()
    assert set(lines) <= set(tlines)


# -- lr schedulers ------------------------------------------------------------------------


def schedules(make_p, make_t, epochs=25):
    w, t = nn.Parameter(pyad.ones(1)), torch.nn.Parameter(torch.ones(1))
    opt_p, opt_t = optim.SGD([w], lr=0.5), torch.optim.SGD([t], lr=0.5)
    sp, st = make_p(opt_p), make_t(opt_t)
    got, want = [], []
    for _ in range(epochs):
        opt_p.step()
        opt_t.step()
        got.append((sp.get_last_lr()[0], opt_p.param_groups[0]["lr"]))
        want.append((st.get_last_lr()[0], opt_t.param_groups[0]["lr"]))
        sp.step()
        st.step()
    return got, want, sp, st


@pytest.mark.parametrize("kwargs", [dict(step_size=3), dict(step_size=1, gamma=0.5)])
def test_step_lr_matches_torch(kwargs):
    got, want, sp, st = schedules(lambda o: optim.lr_scheduler.StepLR(o, **kwargs),
                                  lambda o: torch.optim.lr_scheduler.StepLR(o, **kwargs))
    np.testing.assert_allclose(got, want, rtol=1e-15)
    for key in ("base_lrs", "last_epoch", "_step_count", "_last_lr", "step_size", "gamma"):
        assert sp.state_dict()[key] == pytest.approx(st.state_dict()[key], rel=1e-15), key


@pytest.mark.parametrize("kwargs", [dict(T_max=10), dict(T_max=7, eta_min=0.01)])
def test_cosine_annealing_lr_matches_torch(kwargs):
    got, want, sp, st = schedules(
        lambda o: optim.lr_scheduler.CosineAnnealingLR(o, **kwargs),
        lambda o: torch.optim.lr_scheduler.CosineAnnealingLR(o, **kwargs))
    np.testing.assert_allclose(got, want, rtol=1e-12)
    assert got[kwargs["T_max"]][0] == pytest.approx(kwargs.get("eta_min", 0.0), abs=1e-12)
    assert sp.state_dict()["T_max"] == st.state_dict()["T_max"]


def test_cosine_annealing_lr_closed_form():
    w = nn.Parameter(pyad.ones(1))
    opt = optim.SGD([w], lr=1.0)
    sched = optim.lr_scheduler.CosineAnnealingLR(opt, T_max=4)
    lrs = []
    for _ in range(5):
        lrs.append(sched.get_last_lr()[0])
        opt.step()
        sched.step()
    np.testing.assert_allclose(lrs, [(1 + math.cos(math.pi * e / 4)) / 2 for e in range(5)],
                               atol=1e-15)


def test_scheduler_state_dict_resumes():
    def make():
        opt = optim.SGD([nn.Parameter(pyad.ones(1))], lr=1.0)
        return opt, optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.1)
    opt, sched = make()
    for _ in range(3):
        opt.step()
        sched.step()
    opt2, sched2 = make()
    sched2.load_state_dict(sched.state_dict())
    opt2.load_state_dict(opt.state_dict())
    for _ in range(2):
        opt.step()
        opt2.step()
        sched.step()
        sched2.step()
    assert sched2.get_last_lr() == sched.get_last_lr() == [pytest.approx(0.01)]
    assert "optimizer" not in sched.state_dict()


def test_scheduler_needs_an_optimizer():
    with pytest.raises(TypeError, match="is not an Optimizer"):
        optim.lr_scheduler.StepLR(object(), 2)
