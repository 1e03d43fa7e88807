"""Every learning-rate schedule against torch.optim.lr_scheduler: the learning rates
(and momenta) over 100 steps, several parameter groups, get_last_lr, state_dict round
trips, composition (ChainedScheduler, SequentialLR, two schedules on one optimizer) and
torch's errors for bad hyper-parameters."""

import numpy as np
import pytest

import pyad
from pyad import nn, optim
from pyad.optim import lr_scheduler as S

torch = pytest.importorskip("torch")
T = torch.optim.lr_scheduler


def pair(opt="SGD", lrs=(0.1, 0.05), **kw):
    ps = [nn.Parameter(pyad.zeros(2)) for _ in lrs]
    ts = [torch.nn.Parameter(torch.zeros(2)) for _ in lrs]
    op = getattr(optim, opt)([{"params": [p], "lr": lr} for p, lr in zip(ps, lrs)], **kw)
    ot = getattr(torch.optim, opt)([{"params": [t], "lr": lr} for t, lr in zip(ts, lrs)], **kw)
    return op, ot


def momenta(opt):
    return [g["betas"][0] if "betas" in g else g.get("momentum") for g in opt.param_groups]


def compare(make, steps=100, opt="SGD", metric=None, **kw):
    op, ot = pair(opt, **kw)
    sp, st = make(S, op), make(T, ot)
    for k in range(steps):
        np.testing.assert_allclose(sp.get_last_lr(), st.get_last_lr(), rtol=1e-12, atol=1e-15,
                                   err_msg="get_last_lr at step %d" % k)
        np.testing.assert_allclose([g["lr"] for g in op.param_groups],
                                   [g["lr"] for g in ot.param_groups], rtol=1e-12, atol=1e-15)
        assert momenta(op) == pytest.approx(momenta(ot), rel=1e-12, abs=1e-15)
        op.step()
        ot.step()
        if metric is None:
            sp.step()
            st.step()
        else:
            sp.step(metric(k))
            st.step(metric(k))
    return sp, st, op, ot


class Scale:
    """A callable object (its __dict__ goes into state_dict, as torch)."""

    def __init__(self, factor):
        self.factor = factor

    def __call__(self, epoch):
        return self.factor ** epoch


SCHEDULES = {
    "LambdaLR": lambda m, o: m.LambdaLR(o, lambda e: 1 / (1 + e)),
    "LambdaLR-list": lambda m, o: m.LambdaLR(o, [lambda e: 0.9 ** e, Scale(0.95)]),
    "MultiplicativeLR": lambda m, o: m.MultiplicativeLR(o, lambda e: 0.97),
    "StepLR": lambda m, o: m.StepLR(o, step_size=7, gamma=0.5),
    "MultiStepLR": lambda m, o: m.MultiStepLR(o, milestones=[10, 30, 30, 80], gamma=0.3),
    "ExponentialLR": lambda m, o: m.ExponentialLR(o, gamma=0.95),
    "LinearLR": lambda m, o: m.LinearLR(o, start_factor=0.25, end_factor=0.9, total_iters=40),
    "LinearLR-default": lambda m, o: m.LinearLR(o),
    "ConstantLR": lambda m, o: m.ConstantLR(o, factor=0.5, total_iters=13),
    "PolynomialLR": lambda m, o: m.PolynomialLR(o, total_iters=60, power=2.0),
    "CosineAnnealingLR": lambda m, o: m.CosineAnnealingLR(o, T_max=30, eta_min=0.001),
    "OneCycleLR": lambda m, o: m.OneCycleLR(o, max_lr=[1.0, 0.5], total_steps=101),
    "OneCycleLR-linear-3phase": lambda m, o: m.OneCycleLR(
        o, max_lr=0.3, epochs=10, steps_per_epoch=11, anneal_strategy="linear",
        three_phase=True, pct_start=0.25, div_factor=10.0, final_div_factor=100.0),
    "OneCycleLR-no-momentum": lambda m, o: m.OneCycleLR(o, max_lr=0.2, total_steps=100,
                                                         cycle_momentum=False),
    "CyclicLR": lambda m, o: m.CyclicLR(o, base_lr=0.01, max_lr=0.1, step_size_up=9),
    "CyclicLR-triangular2": lambda m, o: m.CyclicLR(o, [0.01, 0.02], [0.1, 0.3],
                                                    step_size_up=5, step_size_down=12,
                                                    mode="triangular2"),
    "CyclicLR-exp_range": lambda m, o: m.CyclicLR(o, 0.01, 0.1, step_size_up=6,
                                                  mode="exp_range", gamma=0.98),
    "CyclicLR-scale_fn": lambda m, o: m.CyclicLR(o, 0.01, 0.1, step_size_up=4,
                                                 scale_fn=lambda x: 0.5 ** x,
                                                 scale_mode="iterations",
                                                 cycle_momentum=False),
    "CosineAnnealingWarmRestarts": lambda m, o: m.CosineAnnealingWarmRestarts(o, T_0=10),
    "CosineAnnealingWarmRestarts-mult": lambda m, o: m.CosineAnnealingWarmRestarts(
        o, T_0=3, T_mult=2, eta_min=0.002),
    "SequentialLR": lambda m, o: m.SequentialLR(
        o, [m.LinearLR(o, start_factor=0.1, total_iters=10), m.ExponentialLR(o, gamma=0.9),
            m.StepLR(o, 5)], milestones=[10, 50]),
    "ChainedScheduler": lambda m, o: m.ChainedScheduler(
        [m.ConstantLR(o, factor=0.1, total_iters=5), m.ExponentialLR(o, gamma=0.98),
         m.MultiStepLR(o, [20, 40])]),
}


@pytest.mark.parametrize("name", sorted(SCHEDULES))
def test_learning_rates_match_torch_over_100_steps(name):
    compare(SCHEDULES[name])


@pytest.mark.parametrize("opt,kw", [("Adam", {}), ("SGD", {"momentum": 0.9}),
                                    ("NAdam", {}), ("RMSprop", {"momentum": 0.5})])
@pytest.mark.parametrize("name", ["OneCycleLR", "CyclicLR", "CyclicLR-triangular2"])
def test_cycled_momentum_or_beta1_match_torch(name, opt, kw):
    compare(SCHEDULES[name], opt=opt, **kw)


def test_cycle_momentum_needs_an_optimizer_with_momentum():
    op, ot = pair("Adagrad")
    with pytest.raises(ValueError) as ours:
        S.OneCycleLR(op, max_lr=1.0, total_steps=10)
    with pytest.raises(ValueError) as theirs:
        T.OneCycleLR(ot, max_lr=1.0, total_steps=10)
    assert str(ours.value) == str(theirs.value)


PLATEAU = [dict(), dict(mode="max"), dict(patience=2, factor=0.5, cooldown=3),
           dict(threshold_mode="abs", threshold=0.05, patience=1, min_lr=[0.01, 0.02]),
           dict(mode="max", threshold_mode="abs", threshold=0.1, patience=0, eps=1e-3,
                min_lr=0.004)]


@pytest.mark.parametrize("kwargs", PLATEAU, ids=str)
def test_reduce_lr_on_plateau_matches_torch(kwargs):
    def metric(k):
        return [1.0, 0.9, 0.95, 0.91, 0.9, 0.92][k % 6] - 0.001 * (k // 6)

    sp, st, _, _ = compare(lambda m, o: m.ReduceLROnPlateau(o, **kwargs), metric=metric)
    assert sp.num_bad_epochs == st.num_bad_epochs and sp.best == st.best
    assert sp.last_epoch == st.last_epoch


def test_reduce_lr_on_plateau_accepts_a_0d_variable_metric():
    op, _ = pair()
    sched = S.ReduceLROnPlateau(op, patience=0)
    sched.step(pyad.tensor(1.0))
    sched.step(pyad.tensor(2.0))
    assert sched.get_last_lr() == pytest.approx([0.01, 0.005])


@pytest.mark.parametrize("name", sorted(SCHEDULES))
def test_state_dict_round_trip_resumes_the_same_schedule(name):
    make = SCHEDULES[name]
    op, ot = pair()
    sp, st = make(S, op), make(T, ot)
    for _ in range(17):
        op.step()
        sp.step()
        ot.step()
        st.step()
    saved = sp.state_dict()
    assert "optimizer" not in saved
    assert sorted(saved) == sorted(st.state_dict())
    op2, _ = pair()                      # resume as torch documents: build, then load
    sp2 = make(S, op2)
    op2.load_state_dict(op.state_dict())
    sp2.load_state_dict(saved)
    for _ in range(30):
        for o, s in ((op, sp), (op2, sp2)):
            o.step()
            s.step()
        st.step()
        assert sp2.get_last_lr() == pytest.approx(sp.get_last_lr(), rel=1e-12)
        assert sp.get_last_lr() == pytest.approx(st.get_last_lr(), rel=1e-12)


def test_two_schedules_on_one_optimizer_compose_as_in_torch():
    def make(m, o):
        a = m.ExponentialLR(o, gamma=0.9)
        b = m.StepLR(o, step_size=3, gamma=0.5)

        class Both:
            def step(self):
                a.step()
                b.step()

            def get_last_lr(self):
                return b.get_last_lr()
        return Both()

    compare(make, steps=40)


def test_epoch_argument_uses_the_closed_form_as_torch():
    for name in ["StepLR", "MultiStepLR", "ExponentialLR", "CosineAnnealingLR", "LinearLR",
                 "PolynomialLR", "ConstantLR"]:
        op, ot = pair()
        sp, st = SCHEDULES[name](S, op), SCHEDULES[name](T, ot)
        op.step()
        ot.step()
        for epoch in [3, 11, 7, 40]:
            with pytest.warns(UserWarning, match="The epoch parameter"):
                sp.step(epoch)
            with pytest.warns(UserWarning):
                st.step(epoch)
            assert sp.get_last_lr() == pytest.approx(st.get_last_lr(), rel=1e-12), name


def test_warm_restarts_with_fractional_epochs_match_torch():
    op, ot = pair()
    sp = S.CosineAnnealingWarmRestarts(op, T_0=4, T_mult=2)
    st = T.CosineAnnealingWarmRestarts(ot, T_0=4, T_mult=2)
    for epoch in np.arange(0, 30, 0.37):
        sp.step(float(epoch))
        st.step(float(epoch))
        assert sp.get_last_lr() == pytest.approx(st.get_last_lr(), rel=1e-12)


BAD = [("ConstantLR", dict(factor=1.5)), ("LinearLR", dict(start_factor=0)),
       ("LinearLR", dict(end_factor=2.0)), ("ReduceLROnPlateau", dict(factor=1.0)),
       ("ReduceLROnPlateau", dict(mode="mid")), ("ReduceLROnPlateau", dict(threshold_mode="x")),
       ("ReduceLROnPlateau", dict(min_lr=[0.1])),
       ("CosineAnnealingWarmRestarts", dict(T_0=0)),
       ("CosineAnnealingWarmRestarts", dict(T_0=2, T_mult=0)),
       ("OneCycleLR", dict(max_lr=1.0)), ("OneCycleLR", dict(max_lr=1.0, total_steps=-1)),
       ("OneCycleLR", dict(max_lr=1.0, total_steps=10, pct_start=1)),
       ("OneCycleLR", dict(max_lr=1.0, total_steps=10, anneal_strategy="sqrt")),
       ("OneCycleLR", dict(max_lr=[1.0], total_steps=10)),
       ("CyclicLR", dict(base_lr=0.1, max_lr=1.0, mode="square")),
       ("LambdaLR", dict(lr_lambda=[lambda e: 1.0])),
       ("SequentialLR", dict(schedulers=[], milestones=[]))]


@pytest.mark.parametrize("name,kwargs", BAD, ids=[n + str(sorted(k)) for n, k in BAD])
def test_bad_arguments_raise_torchs_error(name, kwargs):
    op, ot = pair()
    with pytest.raises((ValueError, TypeError)) as theirs:
        getattr(T, name)(ot, **kwargs)
    with pytest.raises(theirs.type) as ours:
        getattr(S, name)(op, **kwargs)
    assert str(ours.value) == str(theirs.value)


def test_one_cycle_refuses_stepping_past_total_steps():
    op, _ = pair()
    sched = S.OneCycleLR(op, max_lr=1.0, total_steps=3)
    for _ in range(3):
        op.step()
        sched.step()
    with pytest.raises(ValueError, match="Tried to step 4 times"):
        sched.step()


def test_not_an_optimizer_is_a_type_error():
    with pytest.raises(TypeError, match="list is not an Optimizer"):
        S.StepLR([], step_size=1)


def test_resuming_without_initial_lr_is_a_key_error():
    op, _ = pair()
    with pytest.raises(KeyError, match="initial_lr"):
        S.StepLR(op, step_size=1, last_epoch=3)


def test_stepping_the_schedule_before_the_optimizer_warns_as_torch():
    op, ot = pair()
    sp, st = S.StepLR(op, 2), T.StepLR(ot, 2)
    with pytest.warns(UserWarning) as theirs:
        st.step()
    with pytest.warns(UserWarning) as ours:
        sp.step()
    assert str(ours[0].message) == str(theirs[0].message)
    op, _ = pair()
    sched = S.ExponentialLR(op, 0.5)
    op.step()
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        sched.step()                       # the right order: no warning
    assert op.step._wrapped_by_lr_sched
    S.StepLR(op, 3)                        # a second schedule does not wrap twice
    assert op.step.__wrapped__ is type(op).step
