"""Ports of PyTorch's own optimizer and LR-scheduler tests (pytorch/pytorch
test/optim/test_lrscheduler.py and test/test_optim.py), keeping torch's test names and the
meaning of their assertions.

Each test body takes ``lib`` (``torch`` or ``pyad``) and runs the same code on both: the
torch run checks that the hand-written targets of the original test still hold for torch
2.13, the pyad run checks pyad against the same targets (and, where the original test has
no closed-form targets, against the torch run)."""
import copy
import gc
import importlib
import io
import math
import pickle
import types
import warnings
import weakref

import numpy as np
import pytest

import pyad

torch = pytest.importorskip("torch")

from _lr_helpers import LIBS, S, _f, lrs, make_opt, two  # noqa: E402


def _np(x):
    if isinstance(x, torch.Tensor):
        return x.detach().numpy()
    return np.asarray(x.detach().data)


def run_targets(opt, schedulers, targets, epochs=10):
    """torch's ``_test``: the lr of every group before each scheduler step."""
    for epoch in range(epochs):
        for k, (group, target) in enumerate(zip(opt.param_groups, targets)):
            assert _f(group["lr"]) == pytest.approx(target[epoch], abs=1e-5), (epoch, k)
        opt.step()
        for s in schedulers:
            s.step()


def run_get_last_lr(opt, schedulers, targets, epochs=10):
    """torch's ``_test_get_last_lr``."""
    for epoch in range(epochs):
        result = [s.get_last_lr() for s in schedulers]
        opt.step()
        for s in schedulers:
            s.step()
        for r in result:
            np.testing.assert_allclose([_f(x) for x in r], [t[epoch] for t in targets],
                                       atol=1e-5, rtol=0, err_msg="epoch %d" % epoch)


def run_with_epoch(lib, opt, schedulers, targets, epochs=10):
    """torch's ``_test_with_epoch``: step(epoch) warns the epoch deprecation warning."""
    for epoch in range(epochs):
        opt.step()
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            for s in schedulers:
                s.step(epoch)
        msgs = [str(x.message) for x in w]
        assert msgs == [S(lib).EPOCH_DEPRECATION_WARNING] * len(schedulers)
        for group, target in zip(opt.param_groups, targets):
            assert _f(group["lr"]) == pytest.approx(target[epoch], abs=1e-5)


# --------------------------------------------------------------------------- warnings


@LIBS
def test_old_pattern_warning(lib):
    opt = make_opt(lib)
    with warnings.catch_warnings(record=True) as ws:
        warnings.simplefilter("always")
        scheduler = S(lib).StepLR(opt, gamma=0.1, step_size=3)
    assert len(ws) == 0
    with pytest.warns(UserWarning, match="how-to-adjust-learning-rate"):
        for _ in range(35):
            scheduler.step()
            opt.step()


@LIBS
def test_old_pattern_warning_resuming(lib):
    opt = make_opt(lib)
    for group in opt.param_groups:
        group["initial_lr"] = 0.01
    with warnings.catch_warnings(record=True) as ws:
        warnings.simplefilter("always")
        scheduler = S(lib).StepLR(opt, gamma=0.1, step_size=3, last_epoch=10)
    assert len(ws) == 0
    with pytest.warns(UserWarning, match="how-to-adjust-learning-rate"):
        for _ in range(35):
            scheduler.step()
            opt.step()


@LIBS
def test_old_pattern_warning_with_overridden_optim_step(lib):
    opt = make_opt(lib)
    for group in opt.param_groups:
        group["initial_lr"] = 0.01
    scheduler = S(lib).StepLR(opt, gamma=0.1, step_size=3, last_epoch=10)
    old_step = opt.step

    def new_step(o, *args, **kwargs):
        return old_step(*args, **kwargs)

    opt.step = types.MethodType(new_step, opt)
    with pytest.warns(UserWarning, match="how-to-adjust-learning-rate"):
        for _ in range(35):
            scheduler.step()
            opt.step()


@LIBS
def test_new_pattern_no_warning(lib):
    opt = make_opt(lib)
    with warnings.catch_warnings(record=True) as ws:
        warnings.simplefilter("always")
        scheduler = S(lib).StepLR(opt, gamma=0.1, step_size=3)
        for _ in range(35):
            opt.step()
            scheduler.step()
    assert len(ws) == 0


@LIBS
def test_new_pattern_no_warning_with_overridden_optim_step(lib):
    opt = make_opt(lib)
    scheduler = S(lib).StepLR(opt, gamma=0.1, step_size=3)
    old_step = opt.step

    def new_step(o, *args, **kwargs):
        return old_step(*args, **kwargs)

    opt.step = types.MethodType(new_step, opt)
    with pytest.warns(UserWarning, match=r"`optimizer.step\(\)` has been overridden"):
        for _ in range(35):
            opt.step()
            scheduler.step()


CONSTANT_EPOCH = {
    "step_lr": lambda s, o: s.StepLR(o, 2),
    "exponential_lr": lambda s, o: s.ExponentialLR(o, gamma=0.9),
    "constantlr": lambda s, o: s.ConstantLR(o),
    "linear_linearlr": lambda s, o: s.LinearLR(o),
    "polynomial_lr": lambda s, o: s.PolynomialLR(o, power=0.9),
}


@LIBS
@pytest.mark.parametrize("name", sorted(CONSTANT_EPOCH))
def test_lr_is_constant_for_constant_epoch(lib, name):
    # torch: test_{step_lr,exponential_lr,constantlr,linear_linearlr,polynomial_lr}
    # _is_constant_for_constant_epoch
    opt = make_opt(lib)
    scheduler = CONSTANT_EPOCH[name](S(lib), opt)
    seen = []
    for _ in range(10):
        opt.step()
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            scheduler.step(2)
        assert [str(x.message) for x in w] == [S(lib).EPOCH_DEPRECATION_WARNING]
        seen.append(_f(opt.param_groups[0]["lr"]))
    assert min(seen) == max(seen)


# --------------------------------------------------------------------------- closed targets


@LIBS
def test_step_lr(lib):
    opt = make_opt(lib)
    single = [0.05] * 3 + [0.005] * 3 + [0.0005] * 3 + [0.00005] * 3
    run_targets(opt, [S(lib).StepLR(opt, gamma=0.1, step_size=3)], two(single))


@LIBS
def test_get_last_lr_step_lr(lib):
    opt = lib.optim.SGD([lib.nn.Parameter(lib.ones(2, 2))], 0.1)
    scheduler = S(lib).StepLR(opt, 3, gamma=0.1)
    run_get_last_lr(opt, [scheduler], [[0.1] * 3 + [0.01] * 3 + [0.001] * 3 + [0.0001]])


@LIBS
def test_get_last_lr_multi_step_lr(lib):
    opt = make_opt(lib)
    single = [0.05] * 2 + [0.005] * 3 + [0.0005] * 4 + [0.00005] * 1
    run_get_last_lr(opt, [S(lib).MultiStepLR(opt, gamma=0.1, milestones=[2, 5, 9])],
                    two(single))


@LIBS
def test_raise_error_when_last_epoch_is_greater_than_0_and_initial_lr_is_not_specified(lib):
    opt = lib.optim.SGD([lib.nn.Parameter(lib.ones(2, 2))], 0.1)
    with pytest.raises(KeyError, match=r"param \'initial_lr\' is not specified in "
                                       r"param_groups\[0\] when resuming scheduler with "
                                       r"last_epoch >= 0"):
        S(lib).StepLR(opt, step_size=3, gamma=0.1, last_epoch=1)


@LIBS
def test_multi_step_lr(lib):
    opt = make_opt(lib)
    single = [0.05] * 2 + [0.005] * 3 + [0.0005] * 4 + [0.00005] * 3
    run_targets(opt, [S(lib).MultiStepLR(opt, gamma=0.1, milestones=[2, 5, 9])], two(single))


@LIBS
def test_multi_step_lr_with_epoch(lib):
    opt = make_opt(lib)
    single = [0.05] * 2 + [0.005] * 3 + [0.0005] * 4 + [0.00005] * 3
    run_with_epoch(lib, opt, [S(lib).MultiStepLR(opt, gamma=0.1, milestones=[2, 5, 9])],
                   two(single))


@LIBS
def test_get_last_lr_constantlr(lib):
    opt = make_opt(lib)
    single = [0.025] * 5 + [0.05] * 5
    run_get_last_lr(opt, [S(lib).ConstantLR(opt, factor=1.0 / 2, total_iters=5)], two(single))


def _linear_targets(start, end, iters, epochs=10):
    interp = [start + i * (end - start) / iters for i in range(iters)]
    return [x * 0.05 for x in interp] + [0.05 * end] * (epochs - iters)


@LIBS
def test_get_last_lr_linearlr(lib):
    opt = make_opt(lib)
    single = _linear_targets(1.0 / 4, 3.0 / 5, 4)
    sched = S(lib).LinearLR(opt, start_factor=1.0 / 4, end_factor=3.0 / 5, total_iters=4)
    run_get_last_lr(opt, [sched], two(single))


@LIBS
def test_constantlr(lib):
    opt = make_opt(lib)
    single = [0.05 * 2.0 / 3] * 5 + [0.05] * 5
    run_targets(opt, [S(lib).ConstantLR(opt, factor=2.0 / 3, total_iters=5)], two(single))


@LIBS
def test_linearlr(lib):
    opt = make_opt(lib)
    single = _linear_targets(1.0 / 2, 1.0, 4)
    run_targets(opt, [S(lib).LinearLR(opt, start_factor=1.0 / 2, total_iters=4)], two(single))


@LIBS
@pytest.mark.parametrize("start_factor", [0, 1.1])
def test_linearlr_start_factor_limits(lib, start_factor):
    # torch: test_linearlr_start_factor_limits1 / _limits2
    opt = make_opt(lib)
    with pytest.raises(ValueError):
        S(lib).LinearLR(opt, start_factor=start_factor, total_iters=4)


@LIBS
def test_constantlr_with_epoch(lib):
    opt = make_opt(lib)
    single = [0.05 * 2.0 / 3] * 5 + [0.05] * 5
    run_with_epoch(lib, opt, [S(lib).ConstantLR(opt, factor=2.0 / 3, total_iters=5)],
                   two(single))


@LIBS
def test_linearlr_with_epoch(lib):
    opt = make_opt(lib)
    single = _linear_targets(1.0 / 2, 1.0, 4)
    run_with_epoch(lib, opt, [S(lib).LinearLR(opt, start_factor=1.0 / 2, total_iters=4)],
                   two(single))


@LIBS
def test_exp_lr(lib):
    opt = make_opt(lib)
    single = [0.05 * (0.9 ** x) for x in range(10)]
    run_targets(opt, [S(lib).ExponentialLR(opt, gamma=0.9)], two(single))


@LIBS
def test_poly_lr(lib):
    opt = make_opt(lib)
    single = [0.05 * (1 - x / 4) ** 0.9 for x in range(4)] + [0.0] * 6
    run_targets(opt, [S(lib).PolynomialLR(opt, power=0.9, total_iters=4)], two(single))


@LIBS
def test_cos_anneal_lr(lib):
    opt = make_opt(lib)
    eta_min = 1e-10
    single = [eta_min + (0.05 - eta_min) * (1 + math.cos(math.pi * x / 10)) / 2
              for x in range(10)]
    run_targets(opt, [S(lib).CosineAnnealingLR(opt, T_max=10, eta_min=eta_min)], two(single))


@LIBS
def test_lambda_lr(lib):
    opt = make_opt(lib)
    opt.param_groups[0]["lr"] = 0.05
    opt.param_groups[1]["lr"] = 0.4
    targets = [[0.05 * (0.9 ** x) for x in range(10)], [0.4 * (0.8 ** x) for x in range(10)]]
    sched = S(lib).LambdaLR(opt, lr_lambda=[lambda x1: 0.9 ** x1, lambda x2: 0.8 ** x2])
    run_targets(opt, [sched], targets)


@LIBS
def test_multiplicative_lr(lib):
    opt = make_opt(lib)
    opt.param_groups[0]["lr"] = 0.05
    opt.param_groups[1]["lr"] = 0.4
    targets = [[0.05 * (0.9 ** x) for x in range(10)], [0.4 * (0.8 ** x) for x in range(10)]]
    sched = S(lib).MultiplicativeLR(opt, lr_lambda=[lambda x1: 0.9, lambda x2: 0.8])
    run_targets(opt, [sched], targets)


CLOSED_FORM = {
    "step_lr": lambda s, o: s.StepLR(o, gamma=0.1, step_size=3),
    "multi_step_lr": lambda s, o: s.MultiStepLR(o, gamma=0.1, milestones=[2, 5, 9]),
    "exp_lr": lambda s, o: s.ExponentialLR(o, gamma=0.9),
    "constantlr": lambda s, o: s.ConstantLR(o, factor=1.0 / 3, total_iters=4),
    "linearlr": lambda s, o: s.LinearLR(o, start_factor=0.2, end_factor=0.7, total_iters=4),
    "poly_lr": lambda s, o: s.PolynomialLR(o, power=0.8, total_iters=6),
    "cos_anneal_lr": lambda s, o: s.CosineAnnealingLR(o, T_max=10, eta_min=1e-10),
}


@LIBS
@pytest.mark.parametrize("name", sorted(CLOSED_FORM))
def test_closed_form(lib, name):
    # torch: test_closed_form_{step_lr,multi_step_lr,exp_lr,...} (_test_against_closed_form)
    opt = make_opt(lib)
    closed = CLOSED_FORM[name](S(lib), opt)
    targets = []
    for epoch in range(10):
        opt.step()
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            closed.step(epoch + 1)
        assert [str(x.message) for x in w] == [S(lib).EPOCH_DEPRECATION_WARNING]
        targets.append(lrs(opt))
    opt = make_opt(lib)
    sched = CLOSED_FORM[name](S(lib), opt)
    for epoch in range(10):
        opt.step()
        sched.step()
        np.testing.assert_allclose(lrs(opt), targets[epoch], atol=1e-5, rtol=0)


# --------------------------------------------------------------------------- composites


def _trace(lib, build, epochs=30, metrics=None):
    opt = make_opt(lib)
    scheds = build(S(lib), opt)
    out = []
    for epoch in range(epochs):
        out.append(lrs(opt))
        opt.step()
        for s in scheds:
            if metrics is not None and isinstance(s, S(lib).ReduceLROnPlateau):
                s.step(metrics[epoch])
            else:
                s.step()
    return out


def _same_as_torch(build, epochs=30, metrics=None, targets=None):
    got_t = _trace(torch, build, epochs, metrics)
    got_p = _trace(pyad, build, epochs, metrics)
    if targets is not None:
        np.testing.assert_allclose(np.array(got_t)[:, :len(targets)].T, targets,
                                   atol=1e-5, rtol=0, err_msg="torch itself")
    np.testing.assert_allclose(got_p, got_t, rtol=1e-12, atol=1e-15)


def test_sequentiallr1():
    targets = [[0.05, 0.04, 0.032] + [0.05] * 4 + [0.005] * 4 + [0.0005] * 4
               + [0.00005] * 4]
    _same_as_torch(lambda s, o: [s.SequentialLR(
        o, schedulers=[s.ExponentialLR(o, gamma=0.8), s.StepLR(o, gamma=0.1, step_size=4)],
        milestones=[3])], epochs=19, targets=targets)


def test_sequentiallr2():
    # ConstantLR(factor=0.1, total_iters=2) until milestone 3, then ExponentialLR(0.9)
    targets = [[0.005] * 2 + [0.05] + [0.05 * 0.9 ** x for x in range(7)]]
    _same_as_torch(lambda s, o: [s.SequentialLR(
        o, schedulers=[s.ConstantLR(o, factor=0.1, total_iters=2),
                       s.ExponentialLR(o, gamma=0.9)], milestones=[3])],
        epochs=10, targets=targets)


def test_sequentiallr3():
    # three schedules: ConstantLR, ExponentialLR, StepLR at milestones [3, 5]
    _same_as_torch(lambda s, o: [s.SequentialLR(
        o, schedulers=[s.ConstantLR(o, factor=0.1, total_iters=3),
                       s.ExponentialLR(o, gamma=0.9),
                       s.StepLR(o, gamma=0.1, step_size=2)], milestones=[3, 5])], epochs=14)


@LIBS
def test_sequentiallr_no_warnings(lib):
    opt = make_opt(lib)
    s1 = S(lib).ConstantLR(opt, factor=0.5, total_iters=2)
    s2 = S(lib).ExponentialLR(opt, gamma=0.9)
    with warnings.catch_warnings(record=True) as ws:
        warnings.simplefilter("always")
        sched = S(lib).SequentialLR(opt, schedulers=[s1, s2], milestones=[1])
        for _ in range(5):
            opt.step()
            sched.step()
    assert len(ws) == 0


def test_get_last_lr_sequentiallr():
    # torch: [0.1]*2 + [0.05 * 0.9**x ...]-style targets; compared against torch's own run
    for lib in (torch, pyad):
        opt = make_opt(lib)
        s = S(lib)
        sched = s.SequentialLR(opt, schedulers=[s.ConstantLR(opt, factor=0.1, total_iters=3),
                                                s.ExponentialLR(opt, gamma=0.9)],
                               milestones=[3])
        single = [0.005] * 3 + [0.05 * 0.9 ** x for x in range(7)]
        run_get_last_lr(opt, [sched], two(single))


def test_chained_lr1():
    targets = [[0.05] * 3 + [0.005] * 3 + [0.0005] * 3 + [0.00005] * 3]
    _same_as_torch(lambda s, o: [s.ChainedScheduler([s.StepLR(o, gamma=0.1, step_size=3)])],
                   epochs=12, targets=targets)


def test_chained_lr2():
    targets = [[0.02, 0.03, 0.04] + [0.05] * 9]
    _same_as_torch(lambda s, o: [s.ChainedScheduler(
        [s.LinearLR(o, start_factor=0.4, total_iters=3)])], epochs=12, targets=targets)


def test_chained_lr3():
    targets = [[0.02, 0.03, 0.04, 0.05] + [0.005] * 4 + [0.0005] * 2 + [0.00005] * 4]
    _same_as_torch(lambda s, o: [s.ChainedScheduler(
        [s.LinearLR(o, start_factor=0.4, total_iters=3),
         s.MultiStepLR(o, milestones=[4, 8, 10], gamma=0.1)])], epochs=14, targets=targets)


def test_chained_lr4():
    targets = [[0.05 * 0.2 * 0.9 ** x for x in range(3)]
               + [0.05 * 0.2 * 0.9 ** 3 * 0.1]
               + [0.05 * 0.9 ** x * 0.1 for x in range(4, 6)]
               + [0.05 * 0.9 ** x * 0.01 for x in range(6, 9)]
               + [0.05 * 0.9 ** x * 0.001 for x in range(9, 12)]]
    _same_as_torch(lambda s, o: [s.ChainedScheduler(
        [s.ExponentialLR(o, gamma=0.9), s.ConstantLR(o, factor=0.2, total_iters=4),
         s.StepLR(o, gamma=0.1, step_size=3)])], epochs=12, targets=targets)


def test_chained_lr5():
    def poly_lr(lr):
        return [lr * ((1.0 - x / 4) ** 0.9) for x in range(4)] + [0.0] * 6
    targets = [[x * 0.9 ** i for i, x in enumerate(poly_lr(0.05))]]
    _same_as_torch(lambda s, o: [s.ChainedScheduler(
        [s.PolynomialLR(o, power=0.9, total_iters=4), s.ExponentialLR(o, gamma=0.9)])],
        epochs=10, targets=targets)


@LIBS
def test_chained_lr2_get_last_lr_before_step(lib):
    opt = make_opt(lib)
    schedulers = [S(lib).LinearLR(opt, start_factor=0.4, total_iters=3),
                  S(lib).MultiStepLR(opt, milestones=[4, 8, 10], gamma=0.1)]
    sched = S(lib).ChainedScheduler(schedulers)
    assert sched.get_last_lr() == schedulers[-1].get_last_lr()


COMPOUND = {
    "step_and_multistep_lr": lambda s, o: [s.StepLR(o, gamma=0.1, step_size=3),
                                           s.MultiStepLR(o, gamma=0.1, milestones=[2, 5, 9])],
    "step_and_exp_lr": lambda s, o: [s.StepLR(o, gamma=0.1, step_size=3),
                                     s.ExponentialLR(o, gamma=0.9)],
    "exp_and_multistep_lr": lambda s, o: [s.MultiStepLR(o, gamma=0.1, milestones=[2, 5, 9]),
                                          s.ExponentialLR(o, gamma=0.9)],
    "exp_and_linearlr": lambda s, o: [s.ExponentialLR(o, gamma=0.9),
                                      s.LinearLR(o, start_factor=0.2, end_factor=1,
                                                 total_iters=4)],
    "step_and_constantlr": lambda s, o: [s.StepLR(o, gamma=0.1, step_size=3),
                                         s.ConstantLR(o, factor=0.1, total_iters=4)],
    "linearlr_and_multistep_lr": lambda s, o: [
        s.MultiStepLR(o, gamma=0.1, milestones=[2, 5, 9]),
        s.LinearLR(o, start_factor=0.2, total_iters=4)],
    "cosanneal_and_step_lr": lambda s, o: [s.CosineAnnealingLR(o, T_max=10, eta_min=1e-10),
                                           s.StepLR(o, gamma=0.1, step_size=3)],
    "reduce_lr_on_plateau_and_exp_lr": lambda s, o: [
        s.ReduceLROnPlateau(o, patience=1, factor=0.5, threshold=0.01, threshold_mode="abs"),
        s.ExponentialLR(o, gamma=0.9)],
    "cosanneal_and_poly_lr": lambda s, o: [s.CosineAnnealingLR(o, T_max=10, eta_min=1e-10),
                                           s.PolynomialLR(o, power=0.9, total_iters=6)],
}


@pytest.mark.parametrize("name", sorted(COMPOUND))
def test_compound(name):
    # torch: test_compound_{...}: two schedules stepped together on one optimizer
    metrics = [10 - i * 0.05 for i in range(20)] if "plateau" in name else None
    _same_as_torch(COMPOUND[name], epochs=20, metrics=metrics)


# --------------------------------------------------------------------------- plateau


PLATEAU = {
    "1": (dict(threshold_mode="abs", mode="min", threshold=0.01, patience=5, cooldown=5),
          [10 - i * 0.0167 for i in range(20)], [[0.5] * 20]),
    "2": (dict(patience=5, cooldown=0, threshold_mode="abs", mode="min", threshold=0.1),
          [10 - i * 0.0165 for i in range(22)],
          [[0.5] * 6 + [0.05] * 7 + [0.005] * 7 + [0.0005] * 2]),
    "3": (dict(mode="max", patience=5, cooldown=5, threshold_mode="abs"),
          [-0.8] * 2 + [-0.234] * 20, [[0.5] * (2 + 6) + [0.05] * (5 + 6) + [0.005] * 3]),
    "4": (dict(mode="max", threshold_mode="rel", threshold=0.1),
          [1.5 * (1.025 ** i) for i in range(20)], [[0.5] * 20]),
    "5": (dict(mode="max", threshold_mode="rel", min_lr=[0.4, 0.3]),
          [1.5 * (1.005 ** i) for i in range(20)], None),
    "6": (dict(threshold_mode="rel", mode="min", threshold=0.1, patience=5, cooldown=5),
          [1.5 * (1.005 ** i) for i in range(20)], [[0.5] * 6 + [0.05] * (5 + 6) + [0.005] * 4]),
    "7": (dict(threshold_mode="abs", mode="max", threshold=0.1, patience=5, cooldown=5),
          [-0.8] * 2 + [-0.234] * 20, None),
    "8": (dict(mode="min", threshold_mode="rel", min_lr=[0.4, 0.3]),
          [-0.8] * 7 + [-0.234] * 20, None),
}


@LIBS
@pytest.mark.parametrize("case", sorted(PLATEAU))
def test_reduce_lr_on_plateau(lib, case):
    # torch: test_reduce_lr_on_plateau1..8, all groups starting at lr 0.5 here; the
    # rows with None targets are compared against torch's run
    kwargs, metrics, targets = PLATEAU[case]
    opt = make_opt(lib)
    for g in opt.param_groups:
        g["lr"] = 0.5
    sched = S(lib).ReduceLROnPlateau(opt, **kwargs)
    got = []
    for epoch in range(len(metrics)):
        opt.step()
        sched.step(metrics[epoch])
        got.append(lrs(opt))
    if targets is not None:
        np.testing.assert_allclose(np.array(got)[:, 0], targets[0][:len(got)], atol=1e-5, rtol=0)
    if lib is pyad:
        opt_t = make_opt(torch)
        for g in opt_t.param_groups:
            g["lr"] = 0.5
        st = torch.optim.lr_scheduler.ReduceLROnPlateau(opt_t, **kwargs)
        want = []
        for m in metrics:
            opt_t.step()
            st.step(m)
            want.append(lrs(opt_t))
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-15)


@LIBS
@pytest.mark.parametrize("min_lr", ["scalar", "list"])
def test_add_param_group_does_not_break_reduce_lr_on_plateau(lib, min_lr):
    opt = make_opt(lib)
    for g in opt.param_groups:
        g["lr"] = 0.5
    targets = [[0.5] * 6 + [0.05] * (5 + 6) + [0.005] * 4]
    metrics = [1] * 7 + [0.6] + [0.5] * 12
    sched = S(lib).ReduceLROnPlateau(opt, mode="min", threshold_mode="rel", threshold=0.1,
                                     patience=5, cooldown=5,
                                     min_lr=0 if min_lr == "scalar" else [1e-5, 1e-4])
    for epoch in range(20):
        if epoch == 8:
            opt.add_param_group({"params": [lib.nn.Parameter(lib.ones(2, 3))], "lr": 0.05})
            if min_lr == "list":
                sched.min_lrs.append(1e-6)
        opt.step()
        sched.step(metrics[epoch])
        assert _f(opt.param_groups[0]["lr"]) == pytest.approx(targets[0][epoch], abs=1e-5)


@LIBS
def test_add_param_group_errors_reduce_lr_on_plateau(lib):
    opt = make_opt(lib)
    sched = S(lib).ReduceLROnPlateau(opt, mode="min", threshold_mode="rel", threshold=1e-5,
                                     patience=0, cooldown=0, min_lr=[1e-5, 1e-4])
    opt.add_param_group({"params": [lib.nn.Parameter(lib.ones(2, 3))], "lr": 0.05})
    opt.step()
    sched.step(1)
    with pytest.raises(RuntimeError, match="The number of param groups in the"):
        opt.step()
        sched.step(1.3)


# --------------------------------------------------------------------------- cyclic


CYCLIC = {
    "triangular_mode_one_lr": dict(base_lr=1, max_lr=5, step_size_up=4, cycle_momentum=False),
    "triangular_mode_one_lr_with_momentum": dict(base_lr=1, max_lr=5, step_size_up=4,
                                                 base_momentum=1, max_momentum=5),
    "triangular_mode": dict(base_lr=[1, 2], max_lr=[5, 6], step_size_up=4),
    "triangular2_mode": dict(base_lr=[1, 2], max_lr=[5, 6], step_size_up=4, mode="triangular2"),
    "exp_range_mode": dict(base_lr=[1, 2], max_lr=[5, 6], step_size_up=4, mode="exp_range",
                           gamma=0.9),
    "triangular_mode_step_size_up_down": dict(base_lr=1, max_lr=5, step_size_up=4,
                                              step_size_down=6),
    "with_scale_fn": dict(base_lr=1, max_lr=5, step_size_up=4, scale_fn=lambda x: 0.5 ** x,
                          scale_mode="iterations"),
}


def _cyclic_trace(lib, kwargs, steps=30):
    p = lib.nn.Parameter(lib.zeros(2))
    q = lib.nn.Parameter(lib.zeros(2))
    opt = lib.optim.SGD([{"params": [p]}, {"params": [q]}], lr=1.0, momentum=0.9)
    sched = S(lib).CyclicLR(opt, **kwargs)
    out = []
    for _ in range(steps):
        out.append([(_f(g["lr"]), g["momentum"]) for g in opt.param_groups])
        opt.step()
        sched.step()
    return out


@pytest.mark.parametrize("name", sorted(CYCLIC))
def test_cycle_lr(name):
    # torch: test_cycle_lr_{...}: lr and momentum per batch
    want = _cyclic_trace(torch, CYCLIC[name])
    got = _cyclic_trace(pyad, CYCLIC[name])
    np.testing.assert_allclose(np.array(got, dtype=float), np.array(want, dtype=float),
                               rtol=1e-12, atol=1e-15)


def test_cycle_lr_triangular_mode_one_lr_targets():
    # torch's hand targets for triangular mode, base 1, max 5, step 4
    lr_target = [1, 2, 3, 4, 5, 4, 3, 2, 1, 2, 3]
    got = _cyclic_trace(pyad, CYCLIC["triangular_mode_one_lr"], steps=len(lr_target))
    assert [row[0][0] for row in got] == pytest.approx(lr_target, abs=1e-12)


@LIBS
def test_cycle_lr_invalid_mode(lib):
    opt = make_opt(lib)
    with pytest.raises(ValueError):
        S(lib).CyclicLR(opt, base_lr=0, max_lr=0, mode="CATS")


@LIBS
def test_cycle_lr_cycle_momentum_fail_with_momentumless_optimizer(lib):
    opt = lib.optim.Rprop([lib.nn.Parameter(lib.zeros(2))])
    with pytest.raises(ValueError):
        S(lib).CyclicLR(opt, base_lr=0, max_lr=0, cycle_momentum=True)


@LIBS
def test_cycle_lr_removed_after_out_of_scope(lib):
    def build():
        opt = lib.optim.SGD([lib.nn.Parameter(lib.zeros(2))], lr=0.1, momentum=0.9)
        sched = S(lib).CyclicLR(opt, base_lr=0.01, max_lr=0.1)
        return weakref.ref(sched)

    gc.disable()
    try:
        ref = build()
        assert ref() is None
    finally:
        gc.enable()


@LIBS
def test_cycle_lr_state_dict_picklable(lib):
    opt = lib.optim.SGD([lib.nn.Parameter(lib.zeros(2))], lr=0.1, momentum=0.9)
    sched = S(lib).CyclicLR(opt, base_lr=0.01, max_lr=0.1)
    state = sched.state_dict()
    assert "_scale_fn_ref" not in state
    pickle.dumps(state)


@LIBS
def test_cycle_lr_scale_fn_restored_from_state_dict(lib):
    opt = lib.optim.SGD([lib.nn.Parameter(lib.zeros(2))], lr=0.1, momentum=0.9)
    sched = S(lib).CyclicLR(opt, base_lr=0.01, max_lr=0.1, mode="triangular2")
    restored = S(lib).CyclicLR(opt, base_lr=0.01, max_lr=0.1, mode="triangular")
    restored.load_state_dict(sched.state_dict())
    for x in range(10):
        assert restored.scale_fn(x) == sched.scale_fn(x)


def test_cosine_then_cyclic():
    for lib in (torch, pyad):
        opt = lib.optim.SGD([lib.nn.Parameter(lib.zeros(2))], lr=0.5)
        s1 = S(lib).CosineAnnealingLR(opt, T_max=20, eta_min=0.1)
        s2 = S(lib).CyclicLR(opt, base_lr=0.1, max_lr=0.3, step_size_up=1, step_size_down=3)
        for i in range(40):
            opt.step()
            if i <= s1.T_max:
                s1.step()
            else:
                s2.step()
        assert _f(opt.param_groups[0]["lr"]) <= 0.3


# --------------------------------------------------------------------------- one cycle


ONECYCLE = {
    "cosine_annealing": dict(max_lr=25, final_div_factor=2, base_momentum=1, max_momentum=22,
                             total_steps=10),
    "linear_annealing": dict(max_lr=25, final_div_factor=2, base_momentum=1, max_momentum=22,
                             total_steps=10, anneal_strategy="linear"),
    "three_phase": dict(max_lr=25, div_factor=25, base_momentum=1, max_momentum=22,
                        total_steps=10, anneal_strategy="linear", pct_start=0.4,
                        final_div_factor=4, three_phase=True),
    "epochs_steps": dict(max_lr=1.0, epochs=3, steps_per_epoch=4),
}


@pytest.mark.parametrize("name", sorted(ONECYCLE))
@pytest.mark.parametrize("opt", ["SGD", "Adam"])
def test_onecycle_lr(name, opt):
    # torch: test_onecycle_lr_{cosine,linear}_annealing, _three_phase, _with_adam (beta1)
    def trace(lib):
        p = lib.nn.Parameter(lib.zeros(2))
        o = (lib.optim.SGD([p], lr=0.1, momentum=0.9) if opt == "SGD"
             else lib.optim.Adam([p], lr=0.1))
        sched = S(lib).OneCycleLR(o, **ONECYCLE[name])
        out = []
        n = ONECYCLE[name].get("total_steps", 12)
        for _ in range(n - 1):
            g = o.param_groups[0]
            out.append((_f(g["lr"]), g["momentum"] if opt == "SGD" else g["betas"][0]))
            o.step()
            sched.step()
        return out
    np.testing.assert_allclose(trace(pyad), trace(torch), rtol=1e-12, atol=1e-15)


def test_onecycle_lr_linear_annealing_targets():
    # torch's hand targets (max_lr 25, div_factor 25 -> initial 1, final_div_factor 2)
    lr_target = [1, 13, 25, 21.5, 18, 14.5, 11, 7.5, 4, 0.5]
    p = pyad.nn.Parameter(pyad.zeros(2))
    o = pyad.optim.SGD([p], lr=0.1, momentum=0.9)
    sched = S(pyad).OneCycleLR(o, **ONECYCLE["linear_annealing"])
    got = []
    for _ in range(10):
        got.append(_f(o.param_groups[0]["lr"]))
        o.step()
        if len(got) < 10:
            sched.step()
    assert got == pytest.approx(lr_target, abs=1e-5)


# --------------------------------------------------------------------------- warm restarts


def _warm_restart_targets(T_0, T_mult, eta_min, epochs, base=0.05):
    out = []
    T_cur, T_i = 0.0, T_0
    for e in np.arange(0, epochs, 0.1):
        e = round(float(e), 1)
        if T_mult == 1:
            T_cur, T_i = e % T_0, T_0
        else:
            n = int(math.log(e / T_0 * (T_mult - 1) + 1, T_mult)) if e >= T_0 else 0
            T_cur = e - T_0 * (T_mult ** n - 1) / (T_mult - 1) if e >= T_0 else e
            T_i = T_0 * T_mult ** n
        out.append(eta_min + (base - eta_min) * (1 + math.cos(math.pi * T_cur / T_i)) / 2)
    return out


@LIBS
@pytest.mark.parametrize("T_0,T_mult,eta_min", [(10, 1, 1e-10), (10, 2, 1e-10),
                                                 (7, 3, 0.0)])
def test_CosineAnnealingWarmRestarts_lr(lib, T_0, T_mult, eta_min):
    # torch: test_CosineAnnealingWarmRestarts_lr1..5 (_test_CosineAnnealingWarmRestarts)
    epochs = 30
    opt = make_opt(lib)
    sched = S(lib).CosineAnnealingWarmRestarts(opt, T_0=T_0, T_mult=T_mult, eta_min=eta_min)
    single = _warm_restart_targets(T_0, T_mult, eta_min, epochs)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for index, epoch in enumerate(np.arange(0, epochs, 0.1)):
            sched.step(round(float(epoch), 1))
            assert _f(opt.param_groups[0]["lr"]) == pytest.approx(single[index], abs=1e-5)
            assert _f(opt.param_groups[1]["lr"]) == pytest.approx(single[index] * 10, abs=1e-5)


@LIBS
def test_CosineAnnealingWarmRestarts_lr_non_integer_T_mult_or_T_0(lib):
    opt = make_opt(lib)
    with pytest.raises(ValueError):
        S(lib).CosineAnnealingWarmRestarts(opt, T_0=10, T_mult=1.5)
    with pytest.raises(ValueError):
        S(lib).CosineAnnealingWarmRestarts(opt, T_0=0)


# --------------------------------------------------------------------------- state dicts


class LambdaLRTestObject:
    def __init__(self, value):
        self.value = value

    def __call__(self, epoch):
        return self.value * epoch

    def __eq__(self, other):
        return isinstance(other, self.__class__) and self.__dict__ == other.__dict__


def _check_scheduler_state_dict(lib, constr, constr2, epochs=10):
    opt = make_opt(lib)
    scheduler = constr(S(lib), opt)
    for _ in range(epochs):
        opt.step()
        scheduler.step()
    copy_ = constr2(S(lib), opt)
    copy_.load_state_dict(scheduler.state_dict())
    for key in scheduler.__dict__:
        if key != "optimizer":
            a, b = scheduler.__dict__[key], copy_.__dict__[key]
            if callable(a) and not isinstance(a, LambdaLRTestObject):
                continue  # bound methods (e.g. _get_closed_form_lr) compare by identity
            assert a == b or np.all(np.asarray(a) == np.asarray(b)), key
    assert copy_.get_last_lr() == scheduler.get_last_lr()


STATE_DICTS = {
    "step_lr": (lambda s, o: s.StepLR(o, gamma=0.1, step_size=3),
                lambda s, o: s.StepLR(o, gamma=0.01 / 2, step_size=1)),
    "multi_step_lr": (lambda s, o: s.MultiStepLR(o, gamma=0.1, milestones=[2, 5, 9]),
                      lambda s, o: s.MultiStepLR(o, milestones=[1, 4, 6])),
    "exp_lr": (lambda s, o: s.ExponentialLR(o, gamma=0.1),
               lambda s, o: s.ExponentialLR(o, gamma=0.01)),
    "cosine_lr": (lambda s, o: s.CosineAnnealingLR(o, T_max=10, eta_min=1e-10),
                  lambda s, o: s.CosineAnnealingLR(o, T_max=100, eta_min=1e-4)),
    "CosineAnnealingWarmRestarts_lr": (
        lambda s, o: s.CosineAnnealingWarmRestarts(o, T_0=10, T_mult=2),
        lambda s, o: s.CosineAnnealingWarmRestarts(o, T_0=100)),
    "lambda_lr_obj": (lambda s, o: s.LambdaLR(o, lr_lambda=LambdaLRTestObject(10)),
                      lambda s, o: s.LambdaLR(o, lr_lambda=LambdaLRTestObject(-1))),
    "polynomial_lr": (lambda s, o: s.PolynomialLR(o, power=0.5, total_iters=4),
                      lambda s, o: s.PolynomialLR(o, power=0.9, total_iters=8)),
    "swa_lr": (lambda s, o: SWALR(s, o, anneal_epochs=3, swa_lr=0.5),
               lambda s, o: SWALR(s, o, anneal_epochs=10, anneal_strategy="linear",
                                  swa_lr=5.0)),
}


def SWALR(s, o, **kw):
    lib = torch if s is torch.optim.lr_scheduler else pyad
    return lib.optim.swa_utils.SWALR(o, **kw)


@LIBS
@pytest.mark.parametrize("name", sorted(STATE_DICTS))
def test_state_dict(lib, name):
    # torch: test_{step_lr,multi_step_lr,exp_lr,cosine_lr,...}_state_dict
    _check_scheduler_state_dict(lib, *STATE_DICTS[name])


@LIBS
def test_lambda_lr_state_dict_fn(lib):
    opt = make_opt(lib)
    scheduler = S(lib).LambdaLR(opt, lr_lambda=lambda x: x)
    state = scheduler.state_dict()
    assert state["lr_lambdas"][0] is None
    copy_ = S(lib).LambdaLR(opt, lr_lambda=lambda x: x)
    copy_.load_state_dict(state)
    for key in scheduler.__dict__:
        if key not in {"optimizer", "lr_lambdas"}:
            assert scheduler.__dict__[key] == copy_.__dict__[key] or callable(
                scheduler.__dict__[key]), key


@LIBS
def test_lambda_lr_state_dict_obj(lib):
    opt = make_opt(lib)
    scheduler = S(lib).LambdaLR(opt, lr_lambda=LambdaLRTestObject(10))
    state = scheduler.state_dict()
    assert state["lr_lambdas"][0] is not None
    copy_ = S(lib).LambdaLR(opt, lr_lambda=LambdaLRTestObject(-1))
    copy_.load_state_dict(state)
    assert copy_.lr_lambdas[0].value == 10


SAVE_LOAD = {
    "LambdaLR": lambda s, o: s.LambdaLR(o, lr_lambda=lambda e: e // 10),
    "MultiplicativeLR": lambda s, o: s.MultiplicativeLR(o, lr_lambda=lambda e: 0.95),
    "StepLR": lambda s, o: s.StepLR(o, step_size=30),
    "MultiStepLR": lambda s, o: s.MultiStepLR(o, milestones=[30, 80]),
    "ConstantLR": lambda s, o: s.ConstantLR(o),
    "LinearLR": lambda s, o: s.LinearLR(o),
    "ExponentialLR": lambda s, o: s.ExponentialLR(o, gamma=0.9),
    "PolynomialLR": lambda s, o: s.PolynomialLR(o),
    "CosineAnnealingLR": lambda s, o: s.CosineAnnealingLR(o, T_max=10),
    "ChainedScheduler": lambda s, o: s.ChainedScheduler(
        schedulers=[s.ConstantLR(o), s.ConstantLR(o)]),
    "SequentialLR": lambda s, o: s.SequentialLR(
        o, schedulers=[s.ConstantLR(o), s.ConstantLR(o)], milestones=[2]),
    "ReduceLROnPlateau": lambda s, o: s.ReduceLROnPlateau(o),
    "CyclicLR": lambda s, o: s.CyclicLR(o, base_lr=0.01, max_lr=0.1),
    "OneCycleLR": lambda s, o: s.OneCycleLR(o, max_lr=0.01, total_steps=10,
                                            anneal_strategy="linear"),
    "CosineAnnealingWarmRestarts": lambda s, o: s.CosineAnnealingWarmRestarts(o, T_0=20),
}


def _eq(a, b):
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(_eq(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(_eq(x, y) for x, y in zip(a, b))
    if hasattr(a, "shape") or hasattr(b, "shape"):
        return np.array_equal(np.asarray(getattr(a, "data", a)), np.asarray(getattr(b, "data", b)))
    return a == b


@pytest.mark.parametrize("name", sorted(SAVE_LOAD))
def test_lr_scheduler_state_dict_load(name):
    # torch saves with torch.save/torch.load; pyad with pyad.save/pyad.load
    opt = make_opt(pyad)
    state = SAVE_LOAD[name](S(pyad), opt).state_dict()
    buf = io.BytesIO()
    pyad.save(state, buf)
    buf.seek(0)
    loaded = pyad.load(buf)
    assert _eq(state, loaded)
    sched2 = SAVE_LOAD[name](S(pyad), opt)
    sched2.load_state_dict(loaded)
    assert _eq(sched2.state_dict(), state)
    # and the keys are torch's
    tstate = SAVE_LOAD[name](S(torch), make_opt(torch)).state_dict()
    assert sorted(state) == sorted(tstate)


CONSTANT_INITIAL = {
    "LambdaLR": lambda s, o: s.LambdaLR(o, lr_lambda=lambda e: e // 10),
    "MultiplicativeLR": lambda s, o: s.MultiplicativeLR(o, lr_lambda=lambda e: 0.95),
    "StepLR": lambda s, o: s.StepLR(o, step_size=30),
    "MultiStepLR": lambda s, o: s.MultiStepLR(o, milestones=[30, 80]),
    "ConstantLR": lambda s, o: s.ConstantLR(o),
    "LinearLR": lambda s, o: s.LinearLR(o),
    "ExponentialLR": lambda s, o: s.ExponentialLR(o, gamma=0.9),
    "PolynomialLR": lambda s, o: s.PolynomialLR(o),
    "CosineAnnealingLR": lambda s, o: s.CosineAnnealingLR(o, T_max=10),
    "CosineAnnealingWarmRestarts": lambda s, o: s.CosineAnnealingWarmRestarts(o, T_0=20),
}


@LIBS
@pytest.mark.parametrize("name", sorted(CONSTANT_INITIAL))
def test_constant_initial_lr(lib, name):
    # the initial lr is constant and base_lrs does not alias a tensor lr
    lr = lib.tensor(0.1)
    opt = lib.optim.SGD([lib.nn.Parameter(lib.ones(1))], lr=lr)
    sched = CONSTANT_INITIAL[name](S(lib), opt)
    ori = [_f(g["initial_lr"]) for g in opt.param_groups]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for i in range(2):
            opt.step()
            sched.step(i)
            lr.mul_(0.1)
            assert [_f(g["initial_lr"]) for g in opt.param_groups] == ori
            assert [_f(b) for b in sched.base_lrs] == [pytest.approx(0.1)]
            assert sched.base_lrs[0] is not opt.param_groups[0]["initial_lr"]


@LIBS
def test_error_when_getlr_has_epoch(lib):
    class MultiStepLR(S(lib).LRScheduler):
        def __init__(self, optimizer, gamma, milestones, last_epoch=-1):
            self.init_lr = [group["lr"] for group in optimizer.param_groups]
            self.gamma = gamma
            self.milestones = milestones
            super().__init__(optimizer, last_epoch)

        def get_lr(self, step):
            return self.init_lr

    opt = lib.optim.SGD([lib.nn.Parameter(lib.ones(1))], lr=1)
    with pytest.raises(TypeError):
        MultiStepLR(opt, gamma=1, milestones=[10, 20])


@LIBS
def test_no_cyclic_references(lib):
    param = lib.nn.Parameter(lib.zeros(10))
    opt = lib.optim.SGD([param], lr=0.5)
    scheduler = S(lib).LambdaLR(opt, lambda epoch: 1.0)
    del scheduler
    assert len(gc.get_referrers(opt)) == 0
    gc.collect()
    del opt
    assert gc.collect() == 0


@LIBS
def test_no_cyclic_references_in_step(lib):
    def run():
        param = lib.zeros(10, requires_grad=True)
        opt = lib.optim.SGD(params=[param], lr=0.5)
        scheduler = S(lib).LambdaLR(opt, lambda epoch: 1.0)
        param.sum().backward()
        opt.step()
        scheduler.step()
        return weakref.ref(scheduler)

    gc.disable()
    try:
        ref = run()
        assert ref() is None
    finally:
        gc.enable()


# =========================================================================== optimizers
# ports of test/test_optim.py (TestOptimRenewed), with torch's optim_inputs


OPTIM_INPUTS = {
    "SGD": [dict(lr=0.01), dict(lr=0.01, momentum=0.9), dict(lr=0.01, momentum=0.9,
                                                             dampening=0.5),
            dict(lr=0.01, momentum=0.9, nesterov=True), dict(lr=0.01, weight_decay=0.1),
            dict(lr=0.01, momentum=0.9, weight_decay=0.1, maximize=True)],
    "Adam": [dict(), dict(lr=0.01), dict(weight_decay=0.1), dict(weight_decay=0.1,
                                                                  amsgrad=True),
             dict(weight_decay=0.1, maximize=True), dict(amsgrad=True, maximize=True)],
    "AdamW": [dict(), dict(lr=0.01), dict(weight_decay=0.1, amsgrad=True),
              dict(weight_decay=0.1, maximize=True)],
    "Adagrad": [dict(), dict(lr=0.1, lr_decay=0.5), dict(weight_decay=0.1),
                dict(initial_accumulator_value=0.1, maximize=True)],
    "Adadelta": [dict(), dict(lr=0.01), dict(rho=0.95, weight_decay=0.9),
                 dict(weight_decay=0.1, maximize=True)],
    "Adamax": [dict(), dict(lr=0.01), dict(weight_decay=0.1), dict(maximize=True)],
    "NAdam": [dict(), dict(lr=0.01), dict(momentum_decay=6e-3), dict(weight_decay=0.1),
              dict(weight_decay=0.1, momentum_decay=6e-3, decoupled_weight_decay=True),
              dict(maximize=True)],
    "RAdam": [dict(), dict(lr=0.01), dict(eps=1e-6), dict(weight_decay=0.1),
              dict(weight_decay=0.1, decoupled_weight_decay=True), dict(maximize=True)],
    "RMSprop": [dict(), dict(lr=0.01), dict(weight_decay=0.1), dict(centered=True),
                dict(momentum=0.1, centered=True), dict(momentum=0.1, maximize=True)],
    "Rprop": [dict(), dict(lr=0.0002), dict(etas=(0.5, 1.5), step_sizes=(1e-6, 9)),
              dict(maximize=True)],
    "ASGD": [dict(), dict(lr=0.02), dict(t0=100), dict(weight_decay=0.1),
             dict(maximize=True)],
    "Adafactor": [dict(), dict(lr=0.01), dict(weight_decay=0.1), dict(beta2_decay=-1.0),
                  dict(maximize=True)],
    "LBFGS": [dict(), dict(lr=0.01), dict(tolerance_grad=1e-6),
              dict(line_search_fn="strong_wolfe")],
}
INPUTS = [(n, kw) for n, kws in OPTIM_INPUTS.items() for kw in kws]
INPUT_IDS = ["%s-%s" % (n, "-".join("%s=%s" % i for i in sorted(kw.items())) or "default")
             for n, kw in INPUTS]


def _model(lib, seed=0):
    rng = np.random.RandomState(seed)
    weight = lib.nn.Parameter(lib.tensor(rng.randn(10, 5)))
    bias = lib.nn.Parameter(lib.tensor(rng.randn(10)))
    inp = lib.tensor(rng.randn(5))
    return weight, bias, inp


def _goes_right_direction(lib, name, kwargs, groups=None):
    weight, bias, inp = _model(lib)
    cls = getattr(lib.optim, name)
    if groups is None:
        opt = cls([weight, bias], **kwargs)
    else:
        opt = cls([dict(groups[0], params=[weight]), dict(groups[1], params=[bias])], **kwargs)

    def closure():
        opt.zero_grad()
        loss = ((weight @ inp + bias) ** 2).sum()
        loss.backward()
        return loss

    initial = closure().item()
    for _ in range(20):
        if name == "LBFGS":
            opt.step(closure)
        else:
            closure()
            opt.step()
    return initial, closure().item(), [_np(weight), _np(bias)]


@pytest.mark.parametrize("name,kwargs", INPUTS, ids=INPUT_IDS)
def test_forloop_goes_right_direction(name, kwargs):
    # torch asserts only the direction; the pyad run must also follow torch's trajectory
    ti, tf, tparams = _goes_right_direction(torch, name, kwargs)
    pi, pf, pparams = _goes_right_direction(pyad, name, kwargs)
    if kwargs.get("maximize", False):
        assert pf > pi
    else:
        assert pf < pi
    assert pi == pytest.approx(ti, rel=1e-12)
    for p, t in zip(pparams, tparams):
        np.testing.assert_allclose(p, t, rtol=1e-9, atol=1e-12)


NO_LBFGS = [(n, kw) for n, kw in INPUTS if n != "LBFGS"]
NO_LBFGS_IDS = [i for i, (n, _) in zip(INPUT_IDS, INPUTS) if n != "LBFGS"]


@pytest.mark.parametrize("name,kwargs", NO_LBFGS, ids=NO_LBFGS_IDS)
def test_param_groups_weight_decay(name, kwargs):
    # weight has the input's weight decay, bias none (torch's test_param_groups_weight_decay)
    kw = dict(kwargs)
    wd = kw.pop("weight_decay", 0.1)
    groups = [dict(weight_decay=wd), dict(weight_decay=0)]
    ti, tf, tparams = _goes_right_direction(torch, name, kw, groups)
    pi, pf, pparams = _goes_right_direction(pyad, name, kw, groups)
    assert (pf > pi) if kw.get("maximize", False) else (pf < pi)
    for p, t in zip(pparams, tparams):
        np.testing.assert_allclose(p, t, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("name,kwargs", NO_LBFGS, ids=NO_LBFGS_IDS)
def test_param_groups_lr(name, kwargs):
    # the bias group has its own lr (torch's test_param_groups_lr)
    kw = dict(kwargs)
    lr = kw.pop("lr", 0.01)
    groups = [dict(lr=lr), dict(lr=lr / 2)]
    ti, tf, tparams = _goes_right_direction(torch, name, kw, groups)
    pi, pf, pparams = _goes_right_direction(pyad, name, kw, groups)
    for p, t in zip(pparams, tparams):
        np.testing.assert_allclose(p, t, rtol=1e-9, atol=1e-12)


@LIBS
@pytest.mark.parametrize("name", sorted(OPTIM_INPUTS))
def test_step_is_noop_when_params_have_no_grad(lib, name):
    rng = np.random.RandomState(0)
    params = [lib.nn.Parameter(lib.tensor(rng.randn(2, 3))) for _ in range(2)]
    old = [_np(p).copy() for p in params]
    opt = getattr(lib.optim, name)(params)

    def closure():
        return lib.tensor(1.0)

    opt.step(closure)
    for p, o in zip(params, old):
        np.testing.assert_array_equal(_np(p), o)


# torch leaves out inputs with weight decay (AdamW's default and ASGD's lambd decay the
# parameters even for zero gradients)
NO_DECAY = [(i, n, kw) for i, (n, kw) in zip(INPUT_IDS, INPUTS)
            if not kw.get("weight_decay", 0) and n not in ("AdamW", "ASGD")]


@LIBS
@pytest.mark.parametrize("name,kwargs", [c[1:] for c in NO_DECAY], ids=[c[0] for c in NO_DECAY])
def test_step_is_noop_for_zero_grads(lib, name, kwargs):
    rng = np.random.RandomState(0)
    param = lib.nn.Parameter(lib.tensor(rng.randn(5, 1)))
    old = _np(param).copy()
    opt = getattr(lib.optim, name)([param], **kwargs)

    def closure():
        opt.zero_grad()
        param.grad = lib.zeros_like(param)
        return lib.tensor(1.0)

    for _ in range(5):
        opt.step(closure)
    np.testing.assert_array_equal(_np(param), old)


def _reload_run(lib, name, kwargs):
    """Train 3 steps, load a deep copy of the state_dict into a fresh optimizer on cloned
    parameters, continue both 3 steps."""
    def closure_for(opt, weight, bias, inp):
        def closure():
            opt.zero_grad()
            loss = ((weight @ inp + bias) ** 2).sum()
            loss.backward()
            return loss
        return closure

    weight, bias, inp = _model(lib)
    cls = getattr(lib.optim, name)
    opt = cls([weight, bias], **kwargs)
    closure = closure_for(opt, weight, bias, inp)
    for _ in range(3):
        opt.step(closure)
    weight_c = lib.nn.Parameter(lib.tensor(_np(weight).copy()))
    bias_c = lib.nn.Parameter(lib.tensor(_np(bias).copy()))
    opt_c = cls([weight_c, bias_c], **kwargs)
    closure_c = closure_for(opt_c, weight_c, bias_c, inp)
    opt_c.load_state_dict(copy.deepcopy(opt.state_dict()))
    for _ in range(3):
        opt.step(closure)
        opt_c.step(closure_c)
    return opt, opt_c, [_np(weight), _np(bias)], [_np(weight_c), _np(bias_c)]


@pytest.mark.parametrize("name,kwargs", INPUTS, ids=INPUT_IDS)
def test_state_dict_deterministic(name, kwargs):
    # torch compares the two runs with assertEqual (float64: rtol=atol=1e-7): loading
    # casts float state (NAdam's mu_product) to the parameter dtype, so they are not
    # bit-identical in torch either; pyad's two runs must each match torch's tightly
    t_opt, t_opt_c, t_a, t_b = _reload_run(torch, name, kwargs)
    opt, opt_c, a, b = _reload_run(pyad, name, kwargs)
    for x, y in zip(a, b):
        np.testing.assert_allclose(x, y, rtol=1e-7, atol=1e-7)
    for x, y in zip(a + b, t_a + t_b):
        np.testing.assert_allclose(x, y, rtol=1e-9, atol=1e-12)
    sd, sd_c, tsd = opt.state_dict(), opt_c.state_dict(), t_opt.state_dict()
    assert sorted(sd) == ["param_groups", "state"]
    assert [g["params"] for g in sd["param_groups"]] == [[0, 1]]
    assert _eq(sd["param_groups"], sd_c["param_groups"])
    assert sorted(sd["state"]) == sorted(sd_c["state"]) == sorted(tsd["state"])
    for k in tsd["state"]:
        assert sorted(sd["state"][k]) == sorted(sd_c["state"][k]) == sorted(tsd["state"][k])
        for key, value in tsd["state"][k].items():
            if isinstance(value, torch.Tensor):
                assert str(sd_c["state"][k][key].dtype) == str(
                    t_opt_c.state_dict()["state"][k][key].dtype).replace("torch.", ""), key
    assert sorted(tsd["param_groups"][0]) == sorted(sd["param_groups"][0])


@LIBS
@pytest.mark.parametrize("name", sorted(OPTIM_INPUTS))
def test_optimizer_can_be_printed(lib, name):
    params = [lib.nn.Parameter(lib.ones(2, 3)), lib.nn.Parameter(lib.ones(2, 3))]
    opt = getattr(lib.optim, name)(params)
    text = repr(opt)
    assert text.startswith(name + " (")
    assert "Parameter Group 0" in text


def _hook_opt(lib):
    params = [lib.nn.Parameter(lib.ones(2, 3))]
    return lib.optim.SGD(params, lr=0.1), params


@LIBS
def test_step_post_hook(lib):
    def post_hook(opt, args, kwargs):
        data.append(2)

    opt, params = _hook_opt(lib)
    data = []
    hook_handle = opt.register_step_post_hook(post_hook)
    opt.step()
    opt.step()
    assert data == [2, 2]
    hook_handle.remove()
    opt.step()
    assert data == [2, 2]


@LIBS
def test_step_pre_hook(lib):
    def pre_hook(opt, args, kwargs):
        data.append(2)

    opt, params = _hook_opt(lib)
    data = []
    hook_handle = opt.register_step_pre_hook(pre_hook)
    opt.step()
    opt.step()
    assert data == [2, 2]
    hook_handle.remove()
    opt.step()
    assert data == [2, 2]


@LIBS
def test_step_all_hooks(lib):
    def global_pre_hook(opt, args, kwargs):
        data.append(0)

    def global_post_hook(opt, args, kwargs):
        data.append(5)

    def local_pre_hook(opt, args, kwargs):
        data.append(1)

    def local_post_hook(opt, args, kwargs):
        data.append(2)

    opt, params = _hook_opt(lib)
    opt2 = lib.optim.Adam(params, lr=0.1)
    data = []
    module = importlib.import_module(lib.__name__ + ".optim.optimizer")
    handles = [module.register_optimizer_step_pre_hook(global_pre_hook),
               module.register_optimizer_step_post_hook(global_post_hook),
               opt.register_step_pre_hook(local_pre_hook),
               opt.register_step_post_hook(local_post_hook),
               opt2.register_step_pre_hook(local_pre_hook),
               opt2.register_step_post_hook(local_post_hook)]
    try:
        opt.step()
        assert data == [0, 1, 2, 5]
        opt2.step()
        assert data == [0, 1, 2, 5, 0, 1, 2, 5]
        opt.step()
        assert data == [0, 1, 2, 5, 0, 1, 2, 5, 0, 1, 2, 5]
    finally:
        for h in handles:
            h.remove()
    opt.step()
    opt2.step()
    assert data == [0, 1, 2, 5, 0, 1, 2, 5, 0, 1, 2, 5]


@LIBS
@pytest.mark.parametrize("set_to_none", [True, False])
def test_zero_grad(lib, set_to_none):
    p = lib.nn.Parameter(lib.ones(2, 3))
    opt = lib.optim.SGD([p], lr=0.1)
    (p * 2).sum().backward()
    opt.zero_grad(set_to_none=set_to_none)
    if set_to_none:
        assert p.grad is None
    else:
        np.testing.assert_array_equal(_np(p.grad), np.zeros((2, 3)))


ERRORS = [
    ("SGD", dict(lr=-0.5), "Invalid learning rate: -0.5"),
    ("SGD", dict(lr=0.1, momentum=-0.5), "Invalid momentum value: -0.5"),
    ("SGD", dict(lr=0.1, weight_decay=-0.5), "Invalid weight_decay value: -0.5"),
    ("SGD", dict(lr=0.1, nesterov=True), "Nesterov momentum requires a momentum and zero "
                                         "dampening"),
    ("SGD", dict(lr=0.1, momentum=0.9, dampening=0.5, nesterov=True),
     "Nesterov momentum requires a momentum and zero dampening"),
    ("Adam", dict(betas=(1.0, 0.0)), "Invalid beta parameter at index 0: 1.0"),
    ("Adam", dict(betas=(0.0, 1.0)), "Invalid beta parameter at index 1: 1.0"),
    ("Adam", dict(eps=-1), "Invalid epsilon value: -1"),
    ("AdamW", dict(weight_decay=-1), "Invalid weight_decay value: -1"),
    ("Adagrad", dict(lr_decay=-0.5), "Invalid lr_decay value: -0.5"),
    ("Adagrad", dict(initial_accumulator_value=-1),
     "Invalid initial_accumulator_value value: -1"),
    ("Adadelta", dict(rho=1.1), "Invalid rho value: 1.1"),
    ("NAdam", dict(momentum_decay=-0.2), "Invalid momentum_decay value: -0.2"),
    ("RMSprop", dict(alpha=-1.0), "Invalid alpha value: -1.0"),
    ("RMSprop", dict(momentum=-1.0), "Invalid momentum value: -1.0"),
    ("Rprop", dict(etas=(1.0, 0.5)), "Invalid eta values: 1.0, 0.5"),
    ("Adafactor", dict(beta2_decay=0.8), "beta2_decay should be <= 0 but is: 0.8"),
    ("Adafactor", dict(d=0.0), "Clipping threshold d should be >= 1 but is: 0.0"),
]


@LIBS
@pytest.mark.parametrize("name,kwargs,message", ERRORS,
                         ids=["%s-%d" % (e[0], i) for i, e in enumerate(ERRORS)])
def test_errors(lib, name, kwargs, message):
    p = lib.nn.Parameter(lib.ones(2, 3))
    with pytest.raises(ValueError) as info:
        getattr(lib.optim, name)([p], **kwargs)
    assert str(info.value) == message


@LIBS
def test_add_param_group_errors(lib):
    # from test_optim.py's param-group checks: duplicates across groups, non-Variables
    p, q = lib.nn.Parameter(lib.ones(2)), lib.nn.Parameter(lib.ones(2))
    opt = lib.optim.SGD([p], lr=0.1)
    with pytest.raises(ValueError, match="some parameters appear in more than one "
                                         "parameter group"):
        opt.add_param_group({"params": [p]})
    with pytest.raises(TypeError, match="optimizer can only optimize Tensors"):
        opt.add_param_group({"params": [1.0]})
    with pytest.raises(TypeError, match="param_group must be a dict"):
        opt.add_param_group([q])
    opt.add_param_group({"params": q, "lr": 0.5, "momentum": 0.9})
    assert [_f(g["lr"]) for g in opt.param_groups] == [0.1, 0.5]
    assert opt.param_groups[1]["momentum"] == 0.9
    assert opt.param_groups[1]["nesterov"] is False


@pytest.mark.parametrize("name,kwargs", [("SGD", dict(lr=0.01, momentum=0.9)),
                                         ("Adam", dict(lr=0.01)),
                                         ("Adam", dict(lr=0.01, amsgrad=True)),
                                         ("AdamW", dict(lr=0.01)),
                                         ("RMSprop", dict(centered=True, momentum=0.5)),
                                         ("Adagrad", dict()), ("NAdam", dict()),
                                         ("RAdam", dict()), ("Adadelta", dict()),
                                         ("ASGD", dict()), ("Rprop", dict()),
                                         ("Adamax", dict()),
                                         ("LBFGS", dict(line_search_fn="strong_wolfe"))])
def test_complex_2d(name, kwargs):
    # a complex parameter follows torch's trajectory (torch's test_complex_2d compares
    # against view_as_real; here against torch's own complex run)
    def run(lib):
        rng = np.random.RandomState(3)
        a = lib.nn.Parameter(lib.tensor(rng.randn(2, 2) + 1j * rng.randn(2, 2)))
        opt = getattr(lib.optim, name)([a], **kwargs)

        def closure():
            opt.zero_grad()
            loss = (a.real ** 2 + a.imag ** 2 * 2 + a.real * a.imag).sum()
            loss.backward()
            return loss

        for _ in range(5):
            opt.step(closure)
        return _np(a)

    np.testing.assert_allclose(run(pyad), run(torch), rtol=1e-9, atol=1e-12)


def _rosenbrock(lib, t):
    x, y = t[0], t[1]
    return (1 - x) ** 2 + 100 * (y - x ** 2) ** 2


@pytest.mark.parametrize("name,kwargs", [("LBFGS", dict(line_search_fn="strong_wolfe")),
                                         ("LBFGS", dict(max_iter=5, history_size=5)),
                                         ("Adam", dict(lr=1e-2)),
                                         ("SGD", dict(lr=1e-3, momentum=0.9, nesterov=True))])
def test_rosenbrock(name, kwargs):
    # the old TestOptim rosenbrock runs (dense): the same iterates as torch from (1.5, 1.5)
    def run(lib):
        t = lib.nn.Parameter(lib.tensor(np.array([1.5, 1.5])))
        opt = getattr(lib.optim, name)([t], **kwargs)

        def closure():
            opt.zero_grad()
            loss = _rosenbrock(lib, t)
            loss.backward()
            return loss

        out = []
        for _ in range(10):
            opt.step(closure)
            out.append(_np(t).copy())
        return np.array(out)

    want = run(torch)
    np.testing.assert_allclose(run(pyad), want, rtol=1e-9, atol=1e-12)
    assert _rosenbrock(np, want[-1]) < _rosenbrock(np, np.array([1.5, 1.5]))


@pytest.mark.parametrize("name", sorted(OPTIM_INPUTS))
def test_load_nontensor_step(name):
    # a state_dict whose 'step' values are Python floats loads and continues as torch
    def run(lib):
        weight, bias, inp = _model(lib)
        opt = getattr(lib.optim, name)([weight, bias])

        def closure():
            opt.zero_grad()
            loss = ((weight @ inp + bias) ** 2).sum()
            loss.backward()
            return loss

        for _ in range(2):
            opt.step(closure)
        sd = opt.state_dict()
        for state in sd["state"].values():
            if "step" in state and not isinstance(state["step"], (int, float)):
                state["step"] = state["step"].item()
        opt.load_state_dict(sd)
        for _ in range(2):
            opt.step(closure)
        return [_np(weight), _np(bias)]

    for p, t in zip(run(pyad), run(torch)):
        np.testing.assert_allclose(p, t, rtol=1e-9, atol=1e-12)


@LIBS
def test_param_group_with_lrscheduler_goes_right_direction(lib):
    for name in ("SGD", "Adam", "RMSprop"):
        weight, bias, inp = _model(lib)
        opt = getattr(lib.optim, name)([weight, bias], lr=0.01)
        schedulers = [S(lib).StepLR(opt, step_size=1, gamma=0.99),
                      S(lib).ReduceLROnPlateau(opt, threshold=1e-4)]

        def closure():
            opt.zero_grad()
            loss = ((weight @ inp + bias) ** 2).sum()
            loss.backward()
            return loss

        initial = closure().item()
        for _ in range(20):
            loss = opt.step(closure)
            for s in schedulers:
                if isinstance(s, S(lib).ReduceLROnPlateau):
                    s.step(loss)
                else:
                    s.step()
        assert closure().item() < initial


# --------------------------------------------------------------------------- more schedules


@LIBS
def test_cos_anneal_lr_continue(lib):
    opt = make_opt(lib)
    scheduler = S(lib).CosineAnnealingLR(opt, T_max=10, eta_min=1e-10)
    opt.step()
    scheduler.step()
    original_lrs = [_f(x) for x in scheduler._last_lr]
    new_scheduler = S(lib).CosineAnnealingLR(opt, T_max=10, eta_min=1e-10, last_epoch=0)
    assert [_f(x) for x in new_scheduler._last_lr] == pytest.approx(original_lrs, abs=1e-12)


def test_CosineAnnealingWarmRestarts_lr3():
    # interleaved epochs: step(epoch) jumping back and forth, T_0=10, T_mult 1, 2, 3; the
    # lrs are compared with torch's run
    epochs_for_T_mults = [[0, 1, 2, 3, 4, 5, 12, 27, 3, 4, 5, 6, 13],
                          [0, 1, 2, 3, 4, 5, 25, 32, 33, 34, 80, 81, 3],
                          [0, 0.1, 0.2, 0.3, 1.3, 2.3, 17.5, 18.5, 19.5, 29.5, 30.5, 31.5, 50]]
    for epochs, T_mult in zip(epochs_for_T_mults, [1, 2, 3]):
        got = {}
        for lib in (torch, pyad):
            opt = make_opt(lib)
            scheduler = S(lib).CosineAnnealingWarmRestarts(opt, T_0=10, T_mult=T_mult,
                                                           eta_min=1e-10)
            got[lib] = []
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                for epoch in epochs[1:]:
                    scheduler.step(epoch)
                    got[lib].append(lrs(opt) + [scheduler.T_cur, scheduler.T_i])
        np.testing.assert_allclose(got[pyad], got[torch], rtol=1e-12, atol=1e-15)


@LIBS
def test_onecycle_lr_invalid_anneal_strategy(lib):
    opt = make_opt(lib)
    with pytest.raises(ValueError):
        S(lib).OneCycleLR(opt, max_lr=1e-3, total_steps=10, anneal_strategy="CATS")


@LIBS
@pytest.mark.parametrize("pct_start", [1.1, -0.1])
def test_onecycle_lr_invalid_pct_start(lib, pct_start):
    opt = make_opt(lib)
    with pytest.raises(ValueError):
        S(lib).OneCycleLR(opt, max_lr=1e-3, total_steps=10, pct_start=pct_start)


def _annealing_cos(start, end, pct):
    return end + (start - end) / 2.0 * (math.cos(math.pi * pct) + 1)


@LIBS
def test_onecycle_lr_legacy_state_dict(lib):
    # an old state_dict holds the anneal function itself ('anneal_func') instead of
    # '_anneal_func_type'; loading it still gives the cosine schedule
    opt = make_opt(lib)
    scheduler = S(lib).OneCycleLR(opt, max_lr=25, final_div_factor=2, base_momentum=1,
                                  max_momentum=22, total_steps=10, anneal_strategy="cos")
    delattr(scheduler, "_anneal_func_type")
    state_dict = scheduler.state_dict()
    assert "anneal_func_type" not in state_dict
    state_dict["anneal_func"] = S(lib).OneCycleLR._annealing_cos
    scheduler.load_state_dict(state_dict)
    lr_target = [1, 13, 25] + [_annealing_cos(25, 0.5, k / 7) for k in range(1, 8)]
    momentum_target = [22, 11.5, 1] + [_annealing_cos(1, 22, k / 7) for k in range(1, 8)]
    for batch in range(10):
        for group in opt.param_groups:
            assert _f(group["lr"]) == pytest.approx(lr_target[batch], abs=1e-5), batch
            assert group["momentum"] == pytest.approx(momentum_target[batch], abs=1e-5)
        opt.step()
        scheduler.step()


@LIBS
def test_sequentiallr_wrong_number_of_milestones(lib):
    opt = make_opt(lib)
    s1 = S(lib).ConstantLR(opt, factor=0.1, total_iters=2)
    s2 = S(lib).ExponentialLR(opt, gamma=0.9)
    with pytest.raises(ValueError, match="Sequential Schedulers expects number of schedulers "
                                         "provided to be one more than the number of "
                                         "milestone points"):
        S(lib).SequentialLR(opt, schedulers=[s1, s2], milestones=[1, 2])


@LIBS
def test_chained_scheduler_different_optimizers(lib):
    opt, opt2 = make_opt(lib), make_opt(lib)
    s1 = S(lib).ConstantLR(opt, factor=0.1, total_iters=2)
    s2 = S(lib).ExponentialLR(opt2, gamma=0.9)
    with pytest.raises(ValueError, match="ChainedScheduler expects all schedulers to belong "
                                         "to the same optimizer"):
        S(lib).ChainedScheduler([s1, s2])


@LIBS
def test_reduce_lr_on_plateau_state_dict(lib):
    opt = make_opt(lib)
    scheduler = S(lib).ReduceLROnPlateau(opt, mode="min", factor=0.1, patience=2)
    for score in [1.0, 2.0, 3.0, 4.0, 3.0, 4.0, 5.0, 3.0, 2.0, 1.0]:
        opt.step()
        scheduler.step(score)
    scheduler_copy = S(lib).ReduceLROnPlateau(opt, mode="max", factor=0.5, patience=10)
    scheduler_copy.load_state_dict(scheduler.state_dict())
    for key in scheduler.__dict__:
        if key not in {"optimizer", "is_better"}:
            assert scheduler.__dict__[key] == scheduler_copy.__dict__[key], key


# --------------------------------------------------------------------------- more optimizers


@LIBS
@pytest.mark.parametrize("name", sorted(OPTIM_INPUTS))
def test_deepcopy_copies_all_public_attrs(lib, name):
    params = [lib.nn.Parameter(lib.ones(2, 3)) for _ in range(2)]
    opt = getattr(lib.optim, name)(params)

    def closure():
        opt.zero_grad()
        loss = sum((p ** 2).sum() for p in params)
        loss.backward()
        return loss

    opt.step(closure)

    def getpublicattrs(obj):
        return {k for k in obj.__dict__ if not k.startswith("_")}

    assert getpublicattrs(opt) == getpublicattrs(copy.deepcopy(opt))
    assert getpublicattrs(opt) == ({"defaults", "state", "param_groups"}
                                   | getpublicattrs(getattr(torch.optim, name)(
                                       [torch.nn.Parameter(torch.ones(1))])))


@LIBS
@pytest.mark.parametrize("name", sorted(OPTIM_INPUTS))
def test_non_empty_state(lib, name):
    # every parameter with a gradient gets state after a step (LBFGS keeps it for the first)
    weight, bias, inp = _model(lib)
    # (SGD keeps a momentum buffer only with momentum, as torch)
    opt = getattr(lib.optim, name)([weight, bias], **({"momentum": 0.9} if name == "SGD"
                                                      else {}))

    def closure():
        opt.zero_grad()
        loss = ((weight @ inp + bias) ** 2).sum()
        loss.backward()
        return loss

    opt.step(closure)
    params = [weight] if name == "LBFGS" else [weight, bias]
    for p in params:
        assert len(opt.state[p]) > 0


@LIBS
def test_lbfgs_returns_consistent_type(lib):
    rng = np.random.RandomState(0)
    params = [lib.nn.Parameter(lib.tensor(rng.randn(10, 5))),
              lib.nn.Parameter(lib.tensor(rng.randn(10)))]
    opt1 = lib.optim.LBFGS(params, 0.01, tolerance_grad=math.inf)
    opt2 = lib.optim.LBFGS(params, 0.01, tolerance_grad=-math.inf)

    def closure():
        return float(rng.rand())

    res1 = opt1.step(closure)
    res2 = opt2.step(closure)
    assert type(res1) is type(res2) is float


@pytest.mark.parametrize("name,kwargs", INPUTS, ids=INPUT_IDS)
def test_save_load_equality_with_weights_only(name, kwargs):
    # pyad.save/pyad.load (torch: torch.save/torch.load(weights_only=True)) keep the
    # state_dict equal, and the loaded one resumes as the original
    opt, _, _, _ = _reload_run(pyad, name, kwargs)
    sd = opt.state_dict()
    buf = io.BytesIO()
    pyad.save(sd, buf)
    buf.seek(0)
    loaded = pyad.load(buf)
    assert _eq(sd, loaded)


# --------------------------------------------------------------------------- SWALR


def _test_swalr(opt, swa_scheduler, scheduler, targets, swa_start, epochs):
    for epoch in range(epochs):
        for group, target in zip(opt.param_groups, targets):
            assert _f(group["lr"]) == pytest.approx(target[epoch], abs=1e-5), epoch
        if epoch >= swa_start:
            opt.step()
            swa_scheduler.step()
        elif scheduler is not None:
            opt.step()
            scheduler.step()


@LIBS
def test_swalr_no_anneal(lib):
    opt = make_opt(lib)
    epochs, swa_start, swa_lr = 10, 5, 0.01
    targets = [[lr] * (swa_start + 1) + [swa_lr] * (epochs - swa_start - 1) for lr in lrs(opt)]
    swa_scheduler = lib.optim.swa_utils.SWALR(opt, anneal_epochs=1, swa_lr=swa_lr)
    _test_swalr(opt, swa_scheduler, None, targets, swa_start, epochs)


@LIBS
def test_swalr_cosine_anneal_after_multiplicative(lib):
    opt = make_opt(lib)
    epochs, swa_start, swa_lr, anneal_epochs = 15, 5, 0.01, 5
    mult_factor = 0.9
    scheduler = S(lib).MultiplicativeLR(opt, lr_lambda=lambda epoch: mult_factor)
    swa_scheduler = lib.optim.swa_utils.SWALR(opt, anneal_epochs=anneal_epochs, swa_lr=swa_lr)

    def anneal_coef(t):
        if t + 1 >= anneal_epochs:
            return 0.0
        return (1 + math.cos(math.pi * (t + 1) / anneal_epochs)) / 2

    before = [[lr * mult_factor ** i for i in range(swa_start + 1)] for lr in lrs(opt)]
    swa_epochs = epochs - swa_start - 1
    targets = [ls + [ls[-1] * anneal_coef(t) + swa_lr * (1 - anneal_coef(t))
                     for t in range(swa_epochs)] for ls in before]
    _test_swalr(opt, swa_scheduler, scheduler, targets, swa_start, epochs)


@LIBS
def test_swalr_linear_anneal_after_multiplicative(lib):
    opt = make_opt(lib)
    epochs, swa_start, swa_lrs, anneal_epochs = 15, 5, [0.01, 0.02], 4
    mult_factor = 0.9
    scheduler = S(lib).MultiplicativeLR(opt, lr_lambda=lambda epoch: mult_factor)
    swa_scheduler = lib.optim.swa_utils.SWALR(opt, anneal_epochs=anneal_epochs,
                                              anneal_strategy="linear", swa_lr=swa_lrs)

    def anneal_coef(t):
        if t + 1 >= anneal_epochs:
            return 0.0
        return 1 - (t + 1) / anneal_epochs

    before = [[lr * mult_factor ** i for i in range(swa_start + 1)] for lr in lrs(opt)]
    swa_epochs = epochs - swa_start - 1
    targets = [ls + [ls[-1] * anneal_coef(t) + swa_lr * (1 - anneal_coef(t))
                     for t in range(swa_epochs)] for ls, swa_lr in zip(before, swa_lrs)]
    _test_swalr(opt, swa_scheduler, scheduler, targets, swa_start, epochs)


@LIBS
def test_swalr_hypers(lib):
    opt = make_opt(lib)
    SWALR_ = lib.optim.swa_utils.SWALR
    with pytest.raises(ValueError, match="anneal_strategy must"):
        SWALR_(opt, anneal_strategy="exponential", swa_lr=1.0)
    with pytest.raises(ValueError, match="anneal_epochs must"):
        SWALR_(opt, anneal_epochs=-1, swa_lr=1.0)
    with pytest.raises(ValueError, match="anneal_epochs must"):
        SWALR_(opt, anneal_epochs=1.7, swa_lr=1.0)
    with pytest.raises(ValueError, match="swa_lr must"):
        SWALR_(opt, swa_lr=[1.0, 0.1, 0.01])


# --------------------------------------------------------------------------- state_dict hooks


def _state_dict_pre_hook(optimizer):
    optimizer.state["test"] = 1


def _state_dict_post_hook(optimizer, state_dict):
    if "test" in state_dict["state"]:
        state_dict["state"].pop("test")
        state_dict["ran_state_dict_pre_hook"] = True
    else:
        state_dict["ran_state_dict_pre_hook"] = False
    return state_dict


def _load_state_dict_pre_hook1(optimizer, state_dict):
    state_dict["param_groups"][0]["lr"] = 0.002


def _load_state_dict_pre_hook2(optimizer, state_dict):
    # returning a (deep-copied) state dict replaces the one being loaded
    my_state_dict = copy.deepcopy(state_dict)
    my_state_dict["param_groups"][0]["lr"] = 0.003
    return my_state_dict


def _load_state_dict_post_hook(optimizer):
    optimizer.state["ran_load_state_dict_pre_hook2"] = optimizer.param_groups[0]["lr"] == 0.003
    optimizer.state["ran_load_state_dict_post_hook"] = True


HOOK_OPTIMS = ["SGD", "Adam", "RMSprop", "LBFGS"]


def _hook_setup(lib, name):
    params = [lib.nn.Parameter(lib.ones(2, 3))]
    return getattr(lib.optim, name)(params, lr=0.001), params


@LIBS
@pytest.mark.parametrize("name", HOOK_OPTIMS)
def test_state_dict_pre_hook(lib, name):
    opt, _ = _hook_setup(lib, name)
    opt.register_state_dict_pre_hook(_state_dict_pre_hook)
    assert opt.state_dict()["state"]["test"] == 1


@LIBS
@pytest.mark.parametrize("name", HOOK_OPTIMS)
def test_state_dict_post_hook(lib, name):
    opt, _ = _hook_setup(lib, name)
    opt.register_state_dict_post_hook(_state_dict_post_hook)
    assert opt.state_dict()["ran_state_dict_pre_hook"] is False


@LIBS
@pytest.mark.parametrize("name", HOOK_OPTIMS)
def test_state_dict_pre_post_hook(lib, name):
    opt, _ = _hook_setup(lib, name)
    opt.register_state_dict_pre_hook(_state_dict_pre_hook)
    opt.register_state_dict_post_hook(_state_dict_post_hook)
    state_dict = opt.state_dict()
    assert "test" not in state_dict["state"]
    assert state_dict["ran_state_dict_pre_hook"] is True


@LIBS
@pytest.mark.parametrize("name", HOOK_OPTIMS)
def test_load_state_dict_pre_hook_and_prepend(lib, name):
    opt, params = _hook_setup(lib, name)
    state_dict = opt.state_dict()
    opt2 = getattr(lib.optim, name)(params, lr=0.001)
    opt2.register_load_state_dict_pre_hook(_load_state_dict_pre_hook1)
    opt2.load_state_dict(state_dict)
    assert opt2.param_groups[0]["lr"] == 0.002
    opt2.register_load_state_dict_pre_hook(_load_state_dict_pre_hook2, prepend=True)
    opt2.load_state_dict(state_dict)
    # hook2 runs first (prepended) and its returned copy reaches hook1, which sets 0.002
    assert opt2.param_groups[0]["lr"] == 0.002


@LIBS
@pytest.mark.parametrize("name", HOOK_OPTIMS)
def test_load_state_dict_post_hook(lib, name):
    opt, params = _hook_setup(lib, name)
    opt2 = getattr(lib.optim, name)(params, lr=0.001)
    opt2.register_load_state_dict_post_hook(_load_state_dict_post_hook)
    opt2.load_state_dict(opt.state_dict())
    assert opt2.state["ran_load_state_dict_pre_hook2"] is False
    assert opt2.state["ran_load_state_dict_post_hook"] is True


@LIBS
@pytest.mark.parametrize("name", HOOK_OPTIMS)
def test_load_state_dict_pre_post_hook(lib, name):
    opt, params = _hook_setup(lib, name)
    opt2 = getattr(lib.optim, name)(params, lr=0.001)
    opt2.register_load_state_dict_pre_hook(_load_state_dict_pre_hook2)
    opt2.register_load_state_dict_post_hook(_load_state_dict_post_hook)
    opt2.load_state_dict(opt.state_dict())
    assert opt2.state["ran_load_state_dict_pre_hook2"] is True
    assert opt2.state["ran_load_state_dict_post_hook"] is True
