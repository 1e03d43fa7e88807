"""More ports of PyTorch's own optimizer tests: the per-optimizer ``TestOptim`` and the
``TestDifferentiableOptimizer`` classes of pytorch/pytorch test/optim/test_optim.py that
tests/optim/test_torch_optim_ports.py and test_torch_optim_info_ports.py do not already
carry, keeping torch's class and test names and the meaning of their assertions.

Every case runs the same code in torch 2.13 and in pyad on the same inputs (numpy
``RandomState`` draws): the torch run checks torch's own assertions still hold for torch,
the pyad run checks the same assertions for pyad and compares its parameters with the
torch run's (torch's assertEqual tolerances for the dtype).

Sizes that are only hyper-parameters of the original tests are cut to keep the file under
its time budget: ``_test_basic_cases_template`` takes 10 steps instead of 200, and
``_test_state_dict`` primes for 5 steps and runs 5 in parallel instead of 20 and 20.
Parameters are float64 where torch's draws are float32 (torch.randn), so that the two
frameworks can be compared at torch's float64 tolerance; the complex tests keep
complex64. CUDA, multi-GPU, sparse (SparseAdam, ``*_sparse``) and large-tensor tests are
left out."""
import copy
import functools
import importlib
import itertools
import warnings

import numpy as np
import pytest

import pyad

torch = pytest.importorskip("torch")

# torch's tests step ReduceLROnPlateau with the loss itself, which requires grad: both
# frameworks warn about converting it to a number
pytestmark = pytest.mark.filterwarnings(
    "ignore:Converting a tensor with requires_grad=True to a scalar")

F64 = dict(rtol=1e-7, atol=1e-7)      # torch's assertEqual tolerances, float64
F32 = dict(rtol=1.3e-6, atol=1e-5)    # and float32 / complex64


def _np(x):
    if isinstance(x, torch.Tensor):
        return x.detach().resolve_conj().numpy().copy()
    return np.array(x.detach().data)


def _is_var(x):
    return isinstance(x, (torch.Tensor, pyad.Variable))


def _assert_same(a, b, tol=F64, path="root"):
    """torch's assertEqual over state dicts: dicts, lists, tensors and numbers."""
    if isinstance(a, dict):
        assert isinstance(b, dict) and set(a) == set(b), path
        for k in a:
            _assert_same(a[k], b[k], tol, "%s[%r]" % (path, k))
    elif isinstance(a, (list, tuple)):
        assert len(a) == len(b), path
        for k, (x, y) in enumerate(zip(a, b)):
            _assert_same(x, y, tol, "%s[%d]" % (path, k))
    elif _is_var(a) or _is_var(b):
        np.testing.assert_allclose(_np(a) if _is_var(a) else a, _np(b) if _is_var(b) else b,
                                   err_msg=path, **tol)
    else:
        assert a == b, (path, a, b)


def _rosenbrock(t):
    x, y = t[0], t[1]
    return (1 - x) ** 2 + 100 * (y - x ** 2) ** 2


def _build_params_dict(weight, bias, **kwargs):
    return [{"params": [weight]}, dict(params=[bias], **kwargs)]


def _build_params_dict_single(weight, bias, **kwargs):
    return [dict(params=bias, **kwargs)]


# ------------------------------------------------------------------ torch's helpers, on lib


def _state_dict_case(lib, w0, b0, i0, constructor):
    """torch's ``_test_state_dict``; returns the final weight and bias."""
    weight = lib.nn.Parameter(lib.tensor(w0))
    bias = lib.nn.Parameter(lib.tensor(b0))
    inp = lib.tensor(i0, requires_grad=True)

    def fn_base(optimizer, weight, bias):
        optimizer.zero_grad()
        loss = (weight.mv(inp) + bias).pow(2).sum()
        loss.backward()
        return loss

    optimizer = constructor(weight, bias)
    fn = functools.partial(fn_base, optimizer, weight, bias)
    for _ in range(5):
        optimizer.step(fn)
    with lib.no_grad():
        weight_c = lib.nn.Parameter(weight.clone().detach())
        bias_c = lib.nn.Parameter(bias.clone().detach())
    optimizer_c = constructor(weight_c, bias_c)
    fn_c = functools.partial(fn_base, optimizer_c, weight_c, bias_c)
    state_dict = copy.deepcopy(optimizer.state_dict())
    state_dict_c = copy.deepcopy(optimizer.state_dict())
    optimizer_c.load_state_dict(state_dict_c)
    # the state dict was not modified by loading it. (torch checks this after the parallel
    # run below; torch 2.13 fails it there, since the loaded state shares its tensors with
    # the dict and the steps update them in place, so it is checked right after loading)
    _assert_same(state_dict, state_dict_c)
    for _ in range(5):
        optimizer.step(fn)
        optimizer_c.step(fn_c)
        _assert_same(weight, weight_c)
        _assert_same(bias, bias_c)
    # deterministic with equal but not identical parameters
    _assert_same(optimizer.state_dict(), optimizer_c.state_dict())
    # repeated parameters have identical representations
    optimizer_c.param_groups.extend(optimizer_c.param_groups)
    _assert_same(optimizer.state_dict()["param_groups"][-1],
                 optimizer_c.state_dict()["param_groups"][-1])
    # older state dicts without maximize / foreach load and step
    old_state_dict = copy.deepcopy(optimizer.state_dict())
    for flag in ("maximize", "foreach"):
        sd = copy.deepcopy(optimizer.state_dict())
        if flag in sd["param_groups"][0]:
            for group in sd["param_groups"]:
                del group[flag]
            optimizer.load_state_dict(sd)
            optimizer.step()
            optimizer.load_state_dict(old_state_dict)
    # a step that is a number, not a tensor, loads and steps (torch 2.13's SGD without
    # momentum keeps no state at all, so the original's state[0] is guarded)
    state_dict = optimizer.state_dict()
    if 0 in state_dict["state"] and "step" in state_dict["state"][0] and _is_var(state_dict["state"][0]["step"]):
        for state in state_dict["state"].values():
            state["step"] = state["step"].item()
        optimizer.load_state_dict(state_dict)
        optimizer.step()
    return [_np(weight), _np(bias)]


def _basic_template(lib, w0, b0, i0, constructor, schedulers, maximize, foreach, accepts):
    """torch's ``_test_basic_cases_template`` for one (maximize, foreach) pair."""
    with lib.no_grad():
        weight = lib.nn.Parameter(lib.tensor(w0) if w0.ndim == 2 else lib.tensor(w0)[..., 0])
        bias = lib.nn.Parameter(lib.tensor(b0) if b0.ndim == 1 else lib.tensor(b0)[..., 0])
        inp = lib.tensor(i0).requires_grad_()
    args = [a for a, ok in zip((maximize, foreach), accepts) if ok]
    optimizer = constructor(weight, bias, *args)
    scheds = [s(optimizer, lib) for s in schedulers]
    repr(optimizer)

    def fn():
        optimizer.zero_grad()
        loss = (weight.mv(inp) + bias).pow(2).sum()
        loss.backward()
        return loss

    initial_value = fn().item()
    for _ in range(10):
        optimizer.step(fn)
        for s in scheds:
            if isinstance(s, lib.optim.lr_scheduler.ReduceLROnPlateau):
                s.step(fn())
            else:
                s.step()
    if maximize:
        assert fn().item() > initial_value
    else:
        assert fn().item() < initial_value
    return [_np(weight), _np(bias)]


def _basic_cases(lib, rng, constructor, schedulers=(), maximize=False, foreach=False):
    """torch's ``_test_basic_cases``: the state-dict round trip for every (maximize,
    foreach) pair, then the template on contiguous and non-contiguous parameters."""
    accepts = (maximize, foreach)
    out = []
    w, b, i = rng.randn(10, 5), rng.randn(10), rng.randn(5)
    for m, f in itertools.product(sorted({False, maximize}), sorted({False, foreach})):
        args = [a for a, ok in zip((m, f), accepts) if ok]
        out += _state_dict_case(lib, w, b, i, lambda wt, bs, a=args: constructor(wt, bs, *a))
    inputs = [(rng.randn(10, 5), rng.randn(10), rng.randn(5)),
              (rng.randn(10, 5, 2), rng.randn(10, 2), rng.randn(5))]  # non-contiguous
    for w, b, i in inputs:
        for m, f in itertools.product(sorted({False, maximize}), sorted({False, foreach})):
            out += _basic_template(lib, w, b, i, constructor, schedulers, m, f, accepts)
    return out


def _run_both(cases):
    """Run ``cases(lib, rng)`` on torch and on pyad from the same seed and compare."""
    got = {}
    for lib in (torch, pyad):
        got[lib] = cases(lib, np.random.RandomState(0))
    assert len(got[torch]) == len(got[pyad])
    for k, (t, p) in enumerate(zip(got[torch], got[pyad])):
        np.testing.assert_allclose(p, t, err_msg="array %d" % k, **F64)


def _sched(name, **kw):
    return lambda opt, lib: getattr(lib.optim.lr_scheduler, name)(opt, **kw)


def _test_complex_optimizer(lib, rng, optimizer_constructor):
    """torch's ``_test_complex_optimizer``: a complex parameter steps as its real view."""
    c0 = (rng.randn(5, 5) + 1j * rng.randn(5, 5)).astype(np.complex64)
    complex_param = lib.tensor(c0).requires_grad_()
    real_param = lib.view_as_real(complex_param).detach().clone().requires_grad_()
    complex_opt = optimizer_constructor(complex_param)
    real_opt = optimizer_constructor(real_param)
    out = []
    for _ in range(3):
        g = (rng.randn(5, 5) + 1j * rng.randn(5, 5)).astype(np.complex64)
        complex_param.grad = lib.tensor(g)
        real_param.grad = lib.view_as_real(complex_param.grad)
        complex_opt.step()
        real_opt.step()
        _assert_same(lib.view_as_real(complex_param), real_param, F32)
        out.append(_np(real_param))
    return out


def _test_complex_2d(lib, rng, optimizer_constructor):
    """torch's ``_test_complex_2d``: a complex parameter steps as its real and imaginary
    parts under |rosenbrock|."""
    a0 = (rng.randn(2) + 1j * rng.randn(2)).astype(np.complex64)
    a1 = lib.tensor(a0).requires_grad_()
    a1_real = a1.real.clone().detach().requires_grad_()
    a1_imag = a1.imag.clone().detach().requires_grad_()
    optim1 = optimizer_constructor([a1])
    optim2 = optimizer_constructor([a1_real, a1_imag])
    out = []
    for _ in range(10):
        optim1.zero_grad()
        optim2.zero_grad()
        a2 = lib.complex(a1_real, a1_imag)
        _rosenbrock(a1).abs().backward()
        _rosenbrock(a2).abs().backward()
        _assert_same(a1.grad.real, a1_real.grad, F32)
        _assert_same(a1.grad.imag, a1_imag.grad, F32)
        optim1.step()
        optim2.step()
        _assert_same(a1.real, a1_real, F32)
        _assert_same(a1.imag, a1_imag, F32)
        out.append(_np(a1_real))
        out.append(_np(a1_imag))
    return out


def _run_both_f32(cases):
    got = {lib: cases(lib, np.random.RandomState(0)) for lib in (torch, pyad)}
    assert len(got[torch]) == len(got[pyad])
    for k, (t, p) in enumerate(zip(got[torch], got[pyad])):
        np.testing.assert_allclose(p, t, err_msg="array %d" % k, **F32)


# --------------------------------------------------------------------------- TestOptim


class TestOptim:
    def test_sgd(self):
        def cases(lib, rng):
            o = lib.optim
            out = []
            mk = [
                (lambda w, b, m, f: o.SGD([w, b], lr=1e-3, maximize=m, foreach=f), ()),
                (lambda w, b, m, f: o.SGD(_build_params_dict(w, b, lr=1e-2), lr=1e-3,
                                          maximize=m, foreach=f), ()),
                (lambda w, b, m, f: o.SGD(_build_params_dict_single(w, b, lr=1e-2), lr=1e-3,
                                          maximize=m, foreach=f), ()),
                (lambda w, b, m, f: o.SGD(_build_params_dict_single(w, b, lr=1e-2),
                                          maximize=m, foreach=f), ()),
                (lambda w, b, m, f: o.SGD([w, b], lr=1e-3, maximize=m, foreach=f),
                 (_sched("StepLR", gamma=0.9, step_size=10),)),
                (lambda w, b, m, f: o.SGD([w, b], lr=1e-3, maximize=m, foreach=f),
                 (_sched("LinearLR", start_factor=0.4, end_factor=0.8, total_iters=4),)),
                (lambda w, b, m, f: o.SGD([w, b], lr=1e-3, maximize=m, foreach=f),
                 (_sched("ConstantLR", factor=0.4, total_iters=4),)),
                (lambda w, b, m, f: o.SGD([w, b], lr=1e-3, maximize=m, foreach=f),
                 (_sched("PolynomialLR", power=0.9, total_iters=4),)),
                (lambda w, b, m, f: o.SGD([w, b], lr=1e-3, maximize=m, foreach=f),
                 (_sched("StepLR", gamma=0.9, step_size=10),
                  _sched("LinearLR", start_factor=0.4, end_factor=0.6, total_iters=4))),
                (lambda w, b, m, f: o.SGD([w, b], lr=1e-3, maximize=m, foreach=f),
                 (_sched("StepLR", gamma=0.9, step_size=10), _sched("ReduceLROnPlateau"))),
                (lambda w, b, m, f: o.SGD([w, b], lr=1e-3, maximize=m, foreach=f),
                 (_sched("StepLR", gamma=0.99, step_size=10),
                  _sched("ExponentialLR", gamma=0.99), _sched("ReduceLROnPlateau"))),
                (lambda w, b, m, f: o.SGD([w, b], lr=1e-3, momentum=0.5, maximize=m,
                                          foreach=f), ()),
                (lambda w, b, m, f: o.SGD([w, b], lr=1e-3, momentum=0.5, weight_decay=1,
                                          maximize=m, foreach=f), ()),
                (lambda w, b, m, f: o.SGD([w, b], nesterov=True, lr=1e-3, momentum=0.5,
                                          weight_decay=1, maximize=m, foreach=f), ()),
            ]
            for c, s in mk:
                out += _basic_cases(lib, rng, c, s, maximize=True, foreach=True)
            with pytest.raises(ValueError, match="Invalid momentum value: -0.5"):
                o.SGD(None, lr=1e-2, momentum=-0.5)
            return out
        _run_both(cases)

    def test_sgd_complex(self):
        def cases(lib, rng):
            out = []
            for foreach in (False, True):
                for kw in (dict(), dict(momentum=1), dict(momentum=1, weight_decay=1),
                           dict(nesterov=True, momentum=1, weight_decay=1),
                           dict(momentum=1, dampening=0.5, weight_decay=1)):
                    out += _test_complex_optimizer(
                        lib, rng, lambda p, kw=kw: lib.optim.SGD([p], lr=0.001,
                                                                 foreach=foreach, **kw))
            return out
        _run_both_f32(cases)

    def test_adam(self):
        def cases(lib, rng):
            o = lib.optim
            P = _build_params_dict
            out = []
            mk = [
                (lambda w, b, m, f: o.Adam([w, b], lr=1e-3, maximize=m, foreach=f), ()),
                (lambda w, b, m, f: o.Adam(P(w, b, lr=1e-2), lr=1e-3, maximize=m,
                                           foreach=f), ()),
                (lambda w, b, m, f: o.Adam([w, b], lr=1e-3, amsgrad=True, maximize=m,
                                           foreach=f), ()),
                (lambda w, b, m, f: o.Adam([w, b], lr=1e-3, weight_decay=0.1, maximize=m,
                                           foreach=f), ()),
                (lambda w, b, m, f: o.Adam(P(w, b, lr=1e-2), lr=1e-3, amsgrad=True,
                                           maximize=m, foreach=f), ()),
                (lambda w, b, m, f: o.Adam(P(w, b, lr=1e-2), lr=1e-3, maximize=m, foreach=f),
                 (_sched("ExponentialLR", gamma=0.9),)),
                (lambda w, b, m, f: o.Adam(P(w, b, lr=1e-2), lr=1e-3, maximize=m, foreach=f),
                 (_sched("LinearLR", start_factor=0.4, total_iters=4),)),
                (lambda w, b, m, f: o.Adam(P(w, b, lr=1e-2), lr=1e-3, maximize=m, foreach=f),
                 (_sched("ConstantLR", factor=0.4, total_iters=4),)),
                (lambda w, b, m, f: o.Adam([w, b], lr=1e-3, amsgrad=True, maximize=m,
                                           foreach=f),
                 (_sched("ConstantLR", factor=0.4, total_iters=4),
                  _sched("ExponentialLR", gamma=0.9))),
                (lambda w, b, m, f: o.Adam([w, b], lr=1e-3, amsgrad=True, maximize=m,
                                           foreach=f),
                 (_sched("ExponentialLR", gamma=0.9), _sched("ReduceLROnPlateau"))),
                (lambda w, b, m, f: o.Adam(P(w, b, lr=1e-2), lr=1e-3, amsgrad=True,
                                           maximize=m, foreach=f),
                 (_sched("StepLR", gamma=0.9, step_size=10), _sched("ReduceLROnPlateau"))),
                (lambda w, b, m, f: o.Adam(P(w, b, lr=1e-2), lr=1e-3, maximize=m, foreach=f),
                 (_sched("PolynomialLR", total_iters=4, power=0.9),)),
            ]
            for c, s in mk:
                out += _basic_cases(lib, rng, c, s, maximize=True, foreach=True)
            with pytest.raises(ValueError, match="Invalid beta parameter at index 0: 1.0"):
                o.Adam(None, lr=1e-2, betas=(1.0, 0.0))
            with pytest.raises(ValueError, match="Invalid weight_decay value: -1"):
                o.Adam(None, lr=1e-2, weight_decay=-1)
            return out
        _run_both(cases)

        def complex_cases(lib, rng):
            o = lib.optim
            return (_test_complex_2d(lib, rng, o.Adam)
                    + _test_complex_2d(lib, rng, functools.partial(o.Adam, foreach=True))
                    + _test_complex_2d(lib, rng, functools.partial(o.Adam, foreach=True,
                                                                   weight_decay=0.2)))
        _run_both_f32(complex_cases)

    def test_adamw(self):
        def cases(lib, rng):
            o = lib.optim
            out = []
            mk = [
                lambda w, b, m, f: o.AdamW([w, b], lr=1e-3, maximize=m, foreach=f),
                lambda w, b, m, f: o.AdamW(_build_params_dict(w, b, lr=1e-2), lr=1e-3,
                                           maximize=m, foreach=f),
                lambda w, b, m, f: o.AdamW([w, b], lr=1e-3, weight_decay=1, maximize=m,
                                           foreach=f),
                lambda w, b, m, f: o.AdamW([w, b], lr=1e-3, weight_decay=1, amsgrad=True,
                                           maximize=m, foreach=f),
            ]
            for c in mk:
                out += _basic_cases(lib, rng, c, (), maximize=True, foreach=True)
            with pytest.raises(ValueError, match="Invalid weight_decay value: -1"):
                o.AdamW(None, lr=1e-2, weight_decay=-1)
            return out
        _run_both(cases)

        def complex_cases(lib, rng):
            o = lib.optim
            return (_test_complex_2d(lib, rng, o.AdamW)
                    + _test_complex_2d(lib, rng, functools.partial(o.AdamW, foreach=True)))
        _run_both_f32(complex_cases)

    def test_adadelta(self):
        def cases(lib, rng):
            o = lib.optim
            out = []
            mk = [
                (lambda w, b, m, f: o.Adadelta([w, b], maximize=m, foreach=f), ()),
                (lambda w, b, m, f: o.Adadelta(_build_params_dict(w, b, rho=0.95),
                                               maximize=m, foreach=f), ()),
                (lambda w, b, m, f: o.Adadelta(_build_params_dict(w, b, rho=0.95),
                                               maximize=m, foreach=f),
                 (_sched("StepLR", gamma=0.9, step_size=10), _sched("ReduceLROnPlateau"))),
                (lambda w, b, m, f: o.Adadelta([w, b], weight_decay=1, maximize=m,
                                               foreach=f), ()),
            ]
            for c, s in mk:
                out += _basic_cases(lib, rng, c, s, maximize=True, foreach=True)
            with pytest.raises(ValueError, match="Invalid rho value: 1.1"):
                o.Adadelta(None, lr=1e-2, rho=1.1)
            return out
        _run_both(cases)

    def test_adadelta_complex(self):
        # torch sets rel_tol = 2e-2 for this test (its issue 69698); the comparison of the
        # complex run with the real-view run below keeps the float32 defaults, which hold
        def cases(lib, rng):
            o = lib.optim
            out = []
            for kw in (dict(), dict(rho=0.95), dict(rho=0.95, weight_decay=1)):
                out += _test_complex_optimizer(lib, rng, lambda w, kw=kw: o.Adadelta([w], **kw))
            return out
        _run_both_f32(cases)

    def test_nadam(self):
        def cases(lib, rng):
            o = lib.optim
            out = []
            mk = [
                (lambda w, b, f: o.NAdam(_build_params_dict(w, b, lr=1e-2), lr=1e-3,
                                         foreach=f), ()),
                (lambda w, b, f: o.NAdam([w, b], lr=1e-3, foreach=f), ()),
                (lambda w, b, f: o.NAdam([w, b], lr=1e-3, weight_decay=0.1,
                                         momentum_decay=6e-3, foreach=f), ()),
                (lambda w, b, f: o.NAdam([w, b], lr=1e-3, weight_decay=0.1,
                                         momentum_decay=6e-3, foreach=f),
                 (_sched("ExponentialLR", gamma=0.9),)),
            ]
            for c, s in mk:
                out += _basic_cases(lib, rng, c, s, foreach=True)
            with pytest.raises(ValueError, match="Invalid beta parameter at index 0: 1.0"):
                o.NAdam(None, lr=1e-2, betas=(1.0, 0.0))
            with pytest.raises(ValueError, match="Invalid momentum_decay value: -0.2"):
                o.NAdam(None, lr=1e-2, momentum_decay=-0.2)
            return out
        _run_both(cases)

    def test_adagrad(self):
        def cases(lib, rng):
            o = lib.optim
            P = _build_params_dict
            out = []
            mk = [
                (lambda w, b, m, f: o.Adagrad([w, b], lr=1e-1, maximize=m, foreach=f), ()),
                (lambda w, b, m, f: o.Adagrad([w, b], lr=1e-1, initial_accumulator_value=0.1,
                                              maximize=m, foreach=f), ()),
                (lambda w, b, m, f: o.Adagrad(P(w, b, lr=1e-2), lr=1e-1, maximize=m,
                                              foreach=f), ()),
                (lambda w, b, m, f: o.Adagrad(P(w, b, lr=1e-2), lr=1e-1, maximize=m,
                                              foreach=f), (_sched("ReduceLROnPlateau"),)),
                (lambda w, b, m, f: o.Adagrad(P(w, b, lr=1e-2), lr=1e-1, maximize=m,
                                              foreach=f),
                 (_sched("ReduceLROnPlateau"), _sched("ExponentialLR", gamma=0.99))),
            ]
            for c, s in mk:
                out += _basic_cases(lib, rng, c, s, maximize=True, foreach=True)
            with pytest.raises(ValueError, match="Invalid lr_decay value: -0.5"):
                o.Adagrad(None, lr=1e-2, lr_decay=-0.5)
            return out
        _run_both(cases)

    def test_adagrad_complex(self):
        def cases(lib, rng):
            o = lib.optim
            out = []
            for foreach in (False, True):
                out += _test_complex_optimizer(
                    lib, rng, lambda p: o.Adagrad([p], lr=1e-1, foreach=foreach))
                out += _test_complex_optimizer(
                    lib, rng, lambda p: o.Adagrad([p], lr=1e-1, initial_accumulator_value=0.1,
                                                  foreach=foreach))
            return out
        _run_both_f32(cases)

    def test_adamax(self):
        def cases(lib, rng):
            o = lib.optim
            out = []
            mk = [
                lambda w, b, m, f: o.Adamax([w, b], lr=1e-1, maximize=m, foreach=f),
                lambda w, b, m, f: o.Adamax(_build_params_dict(w, b, lr=1e-2), lr=1e-1,
                                            maximize=m, foreach=f),
                lambda w, b, m, f: o.Adamax([w, b], lr=1e-1, weight_decay=1, maximize=m,
                                            foreach=f),
            ]
            for c in mk:
                out += _basic_cases(lib, rng, c, (), maximize=True, foreach=True)
            with pytest.raises(ValueError, match="Invalid beta parameter at index 1: 1.0"):
                o.Adamax(None, lr=1e-2, betas=(0.0, 1.0))
            return out
        _run_both(cases)

        def complex_cases(lib, rng):
            o = lib.optim
            return (_test_complex_2d(lib, rng, o.Adamax)
                    + _test_complex_2d(lib, rng, functools.partial(o.Adamax, foreach=True)))
        _run_both_f32(complex_cases)

    def test_radam(self):
        def cases(lib, rng):
            o = lib.optim
            out = []
            mk = [
                (lambda w, b, f: o.RAdam([w, b], lr=1e-3, foreach=f), ()),
                (lambda w, b, f: o.RAdam(_build_params_dict(w, b, lr=1e-2), lr=1e-3,
                                         foreach=f), ()),
                (lambda w, b, f: o.RAdam([w, b], lr=1e-3, weight_decay=0.1, foreach=f), ()),
                (lambda w, b, f: o.RAdam([w, b], lr=1e-3, foreach=f),
                 (_sched("ExponentialLR", gamma=0.9), _sched("ReduceLROnPlateau"))),
            ]
            for c, s in mk:
                out += _basic_cases(lib, rng, c, s, foreach=True)
            with pytest.raises(ValueError, match="Invalid beta parameter at index 0: 1.0"):
                o.RAdam(None, lr=1e-2, betas=(1.0, 0.0))
            with pytest.raises(ValueError, match="Invalid weight_decay value: -1"):
                o.RAdam(None, lr=1e-2, weight_decay=-1)
            return out
        _run_both(cases)

    def test_rmsprop(self):
        def cases(lib, rng):
            o = lib.optim
            P = _build_params_dict
            out = []
            mk = [
                lambda w, b, m, f: o.RMSprop([w, b], lr=1e-2, maximize=m, foreach=f),
                lambda w, b, m, f: o.RMSprop(P(w, b, lr=1e-3), lr=1e-2, maximize=m,
                                             foreach=f),
                lambda w, b, m, f: o.RMSprop(P(w, b, lr=1e-3), lr=1e-2, centered=True,
                                             maximize=m, foreach=f),
                lambda w, b, m, f: o.RMSprop(P(w, b, lr=1e-3), lr=1e-2, centered=True,
                                             momentum=0.1, maximize=m, foreach=f),
                lambda w, b, m, f: o.RMSprop(P(w, b, lr=1e-3), lr=1e-2, momentum=0.1,
                                             maximize=m, foreach=f),
                lambda w, b, m, f: o.RMSprop(P(w, b, lr=1e-3), lr=1e-2, momentum=0.1,
                                             weight_decay=1, maximize=m, foreach=f),
            ]
            # torch loops `for foreach in (False, True)` around calls that ignore that
            # variable (the constructors take their own foreach); once is the same test
            for c in mk:
                out += _basic_cases(lib, rng, c, (), maximize=True, foreach=True)
            with pytest.raises(ValueError, match="Invalid momentum value: -1.0"):
                o.RMSprop(None, lr=1e-2, momentum=-1.0)
            return out
        _run_both(cases)

        def complex_cases(lib, rng):
            o = lib.optim
            out = []
            for foreach in (False, True):
                for kw in (dict(), dict(centered=True), dict(momentum=0.1),
                           dict(maximize=True)):
                    out += _test_complex_2d(
                        lib, rng, lambda p, kw=kw: o.RMSprop(p, foreach=foreach, **kw))
                for kw in (dict(), dict(centered=True), dict(momentum=0.1),
                           dict(maximize=True)):
                    out += _test_complex_optimizer(
                        lib, rng, lambda p, kw=kw: o.RMSprop([p], foreach=foreach, **kw))
            return out
        _run_both_f32(complex_cases)

    def test_asgd(self):
        def cases(lib, rng):
            o = lib.optim
            out = []
            mk = [
                lambda w, b, m, f: o.ASGD([w, b], lr=1e-3, t0=100, maximize=m, foreach=f),
                lambda w, b, m, f: o.ASGD(_build_params_dict(w, b, lr=1e-2), lr=1e-3, t0=100,
                                          maximize=m, foreach=f),
                lambda w, b, m, f: o.ASGD(_build_params_dict(w, b, lr=1e-2), lr=1e-3,
                                          weight_decay=1, maximize=m, foreach=f),
            ]
            for c in mk:
                out += _basic_cases(lib, rng, c, (), maximize=True, foreach=True)
            with pytest.raises(ValueError, match="Invalid weight_decay value: -0.5"):
                o.ASGD(None, lr=1e-2, weight_decay=-0.5)
            return out
        _run_both(cases)

        def complex_cases(lib, rng):
            o = lib.optim
            out = []
            for foreach in (False, True):
                for kw in (dict(), dict(maximize=True), dict(maximize=True, weight_decay=0.9),
                           dict(maximize=False, weight_decay=0.9)):
                    out += _test_complex_optimizer(
                        lib, rng, lambda p, kw=kw: o.ASGD([p], foreach=foreach, **kw))
            return out
        _run_both_f32(complex_cases)

    def test_rprop(self):
        def cases(lib, rng):
            o = lib.optim
            out = []
            mk = [
                lambda w, b, m, f: o.Rprop([w, b], lr=2e-4, maximize=m, foreach=f),
                lambda w, b, m, f: o.Rprop(_build_params_dict(w, b, lr=1e-2), lr=2e-4,
                                           maximize=m, foreach=f),
            ]
            for c in mk:
                out += _basic_cases(lib, rng, c, (), maximize=True, foreach=True)
            with pytest.raises(ValueError, match="Invalid eta values: 1.0, 0.5"):
                o.Rprop(None, lr=1e-2, etas=(1.0, 0.5))
            return out
        _run_both(cases)

        def complex_cases(lib, rng):
            o = lib.optim
            out = []
            for foreach in (False, True):
                out += _test_complex_2d(lib, rng, lambda p: o.Rprop(p, foreach=foreach))
                out += _test_complex_optimizer(
                    lib, rng, lambda p: o.Rprop([p], lr=0.001, foreach=foreach))
                out += _test_complex_optimizer(
                    lib, rng, lambda p: o.Rprop([p], lr=0.001, maximize=True, foreach=foreach))
            return out
        _run_both_f32(complex_cases)

    def test_lbfgs(self):
        def cases(lib, rng):
            o = lib.optim
            out = _basic_cases(lib, rng, lambda w, b: o.LBFGS([w, b]))
            out += _basic_cases(lib, rng,
                                lambda w, b: o.LBFGS([w, b], line_search_fn="strong_wolfe"))
            return out
        _run_both(cases)

    @pytest.mark.parametrize("lib", [torch, pyad], ids=["torch", "pyad"])
    def test_invalid_param_type(self, lib):
        # pyad's messages say "Variable" where torch's say "Tensor" (STYLE.md)
        word = "Tensors" if lib is torch else "Variables"
        with pytest.raises(TypeError, match="params argument given to the optimizer should "
                                            "be an iterable of %s or dicts" % word):
            lib.optim.LBFGS(lib.nn.Parameter(lib.tensor(np.random.randn(5, 5))))

    @pytest.mark.parametrize("lib", [torch, pyad], ids=["torch", "pyad"])
    def test_duplicate_params_in_one_param_group(self, lib):
        param = lib.nn.Parameter(lib.tensor(np.random.randn(1)))
        with pytest.warns(UserWarning, match=".*a parameter group with duplicate parameters.*"):
            lib.optim.Adamax([param, param], lr=0.01)

    @pytest.mark.parametrize("lib", [torch, pyad], ids=["torch", "pyad"])
    def test_duplicate_params_across_param_groups(self, lib):
        param = lib.nn.Parameter(lib.tensor(np.random.randn(1)))
        with pytest.raises(ValueError, match="some parameters appear in more than one "
                                             "parameter group"):
            lib.optim.Adadelta([{"params": param}, {"params": param}])

    @pytest.mark.parametrize("lib", [torch, pyad], ids=["torch", "pyad"])
    def test_step_is_noop_for_empty_grads(self, lib):
        # SparseAdam left out (pyad has no sparse gradients)
        names = ["Adadelta", "AdamW", "Adam", "RAdam", "NAdam", "Adagrad", "Adamax",
                 "RMSprop", "SGD", "ASGD", "LBFGS"]
        param = lib.tensor(np.random.RandomState(0).randn(5, 1), requires_grad=True)
        old_param = _np(param)

        def closure():
            return lib.tensor([1])

        for name in names:
            opt = getattr(lib.optim, name)([param], lr=1e-5)
            param.grad = lib.zeros_like(param)
            opt.step(closure)
            np.testing.assert_allclose(_np(param), old_param, err_msg=name, **F64)

    @pytest.mark.parametrize("lib", [torch, pyad], ids=["torch", "pyad"])
    def test_post_hook(self, lib):
        def post_hook(opt, args, kwargs):
            nonlocal data
            data += 2

        params = [lib.tensor([1.0, 1.0])]
        opt = lib.optim.SGD(params, lr=0.001)
        data = 2
        hook_handle = opt.register_step_post_hook(post_hook)
        opt.step()
        opt.step()
        assert data == 6
        hook_handle.remove()
        opt.step()
        assert data == 6

    @pytest.mark.parametrize("lib", [torch, pyad], ids=["torch", "pyad"])
    def test_pre_hook(self, lib):
        def pre_hook(opt, args, kwargs):
            nonlocal data
            data += 2

        params = [lib.tensor([1.0, 1.0])]
        opt = lib.optim.SGD(params, lr=0.001)
        data = 5
        hook_handle = opt.register_step_pre_hook(pre_hook)
        opt.step()
        opt.step()
        assert data == 9
        hook_handle.remove()
        opt.step()
        assert data == 9

    @pytest.mark.parametrize("lib", [torch, pyad], ids=["torch", "pyad"])
    def test_pre_and_post_hook(self, lib):
        data = []
        params = [lib.tensor([1.0, 1.0])]
        opt1 = lib.optim.SGD(params, lr=0.001)
        opt2 = lib.optim.Adam(params, lr=0.01)
        om = importlib.import_module(lib.__name__ + ".optim.optimizer")
        global_pre_handle = om.register_optimizer_step_pre_hook(lambda o, a, k: data.append(0))
        global_post_handle = om.register_optimizer_step_post_hook(lambda o, a, k: data.append(5))
        try:
            handles = []
            for o in (opt1, opt2):
                handles.append(o.register_step_pre_hook(lambda o, a, k: data.append(1)))
                handles.append(o.register_step_post_hook(lambda o, a, k: data.append(2)))
            opt1.step()
            assert data == [0, 1, 2, 5]
            opt2.step()
            assert data == [0, 1, 2, 5] * 2
            opt1.step()
            assert data == [0, 1, 2, 5] * 3
        finally:
            global_pre_handle.remove()
            global_post_handle.remove()
        for h in handles:
            h.remove()
        opt1.step()
        opt2.step()
        assert data == [0, 1, 2, 5] * 3

    # torch's _multi_tensor_optimizer_configs: foreach=True against foreach=False. torch
    # runs it only on CUDA; foreach is accepted on CPU, so both frameworks run it here
    MULTI_TENSOR_CONFIGS = [
        ("Adam", dict(weight_decay=1.0, amsgrad=True, fused=False)),
        ("Adam", dict(weight_decay=1.0, amsgrad=False, fused=False)),
        ("Adam", dict(weight_decay=0.0, amsgrad=True, fused=False)),
        ("Adam", dict(weight_decay=0.0, amsgrad=False, fused=False)),
        ("AdamW", dict(weight_decay=1.0, amsgrad=True)),
        ("AdamW", dict(weight_decay=1.0, amsgrad=False)),
        ("AdamW", dict(weight_decay=0.0, amsgrad=True)),
        ("AdamW", dict(weight_decay=0.0, amsgrad=False)),
        ("NAdam", dict(weight_decay=0.0, momentum_decay=6e-3)),
        ("NAdam", dict(weight_decay=1.0, momentum_decay=6e-3)),
        ("NAdam", dict(weight_decay=0.0, momentum_decay=4e-3)),
        ("NAdam", dict(weight_decay=0.01, momentum_decay=4e-3)),
        ("SGD", dict(lr=0.2, momentum=1, dampening=0, weight_decay=1, nesterov=True)),
        ("SGD", dict(lr=0.2, momentum=1, dampening=0.5, weight_decay=1, nesterov=False)),
        ("RAdam", dict(weight_decay=0, eps=1e-6)),
        ("RAdam", dict(weight_decay=0)),
        ("RAdam", dict(weight_decay=1, eps=1e-6)),
        ("RAdam", dict(weight_decay=1)),
        ("RMSprop", dict(weight_decay=1, momentum=1, centered=True)),
        ("RMSprop", dict(weight_decay=1, momentum=0, centered=True)),
        ("RMSprop", dict(weight_decay=1, momentum=1, centered=False)),
        ("RMSprop", dict(weight_decay=0, momentum=1, centered=False)),
        ("Rprop", dict(lr=1e-2, etas=(0.5, 1.2), step_sizes=(1e-6, 50))),
        ("ASGD", dict(weight_decay=0)),
        ("ASGD", dict(weight_decay=1)),
        ("Adamax", dict(weight_decay=0)),
        ("Adamax", dict(weight_decay=1)),
        ("Adadelta", dict(weight_decay=0)),
        ("Adadelta", dict(weight_decay=1)),
        ("Adagrad", dict(weight_decay=0)),
        ("Adagrad", dict(weight_decay=1)),
    ]

    FUSED_CONFIGS = [(name, dict(weight_decay=wd, amsgrad=ams)) for name in ("Adam", "AdamW")
                     for wd, ams in ((1., False), (1., True), (0., False), (0., True))]

    @staticmethod
    def _derived(lib, configs, flag):
        """torch's ``_test_derived_optimizers`` (float64, 7 iterations, a Linear-Sigmoid
        model and an empty parameter last; grads set to None after the first backward)."""
        out = []
        base = np.random.RandomState(1)
        weights = [base.uniform(-0.7, 0.7, s) for s in ((3, 2), (3,), (1, 3), (1,))]
        for name, kwargs in configs:
            res, states = [], []
            for flag_value in (False, True):
                inp = lib.tensor(np.array([0.1, 0.2, 0.3, 0.4, 0.5, 0.6]).reshape(3, 2))
                model = lib.nn.Sequential(lib.nn.Linear(2, 3), lib.nn.Sigmoid(),
                                          lib.nn.Linear(3, 1), lib.nn.Sigmoid()).double()
                with lib.no_grad():
                    for p, w in zip(model.parameters(), weights):
                        p.copy_(lib.tensor(w))
                empty = [lib.tensor(np.zeros(()))]
                kw = dict(kwargs, **{flag: flag_value})
                optimizer = getattr(lib.optim, name)(list(model.parameters()) + empty, **kw)
                for i in range(7):
                    optimizer.zero_grad()
                    model(inp).sum().backward()
                    if i == 0:
                        optimizer.zero_grad(set_to_none=True)
                    optimizer.step()
                params = list(model.parameters())
                res.append(params)
                states.append([optimizer.state[p] for p in params])
            for (a, b), (sa, sb) in zip(zip(*res), zip(*states)):
                _assert_same(a, b)
                for k in sa:
                    _assert_same(sa[k], sb[k])
            out += [_np(p) for p in res[0]]
        return out

    def test_multi_tensor_optimizers(self):
        _run_both(lambda lib, rng: self._derived(lib, self.MULTI_TENSOR_CONFIGS, "foreach"))

    def test_fused_optimizers(self):
        # torch runs this on CUDA only; torch 2.13 has fused Adam/AdamW on CPU too
        _run_both(lambda lib, rng: self._derived(lib, self.FUSED_CONFIGS, "fused"))

    @pytest.mark.parametrize("lib", [torch, pyad], ids=["torch", "pyad"])
    def test_fused_optimizer_raises(self, lib):
        # torch's test builds CUDA parameters; both checks are device independent
        for name in ("Adam", "AdamW"):
            ctor = getattr(lib.optim, name)
            with pytest.raises(RuntimeError, match="`fused` and `foreach` cannot be `True` "
                                                   "together."):
                ctor([lib.tensor(np.zeros(()))], foreach=True, fused=True)
            with pytest.raises(RuntimeError, match="`fused` does not support `differentiable`"):
                ctor([lib.tensor(np.zeros(()))], differentiable=True, fused=True)


# -------------------------------------------------------------- TestDifferentiableOptimizer


def _diff_fn(lib, p, grad, opt_differentiable_state, opt_class, kwargs, *ignored):
    """torch's ``_diff_fn``: one step from a given state, returning the parameter and the
    state tensors that require grad."""
    p = p.clone()
    p.grad = grad
    opt_differentiable_state = {
        k: v.clone() if _is_var(v) else v for k, v in opt_differentiable_state.items()}
    opt = opt_class([p], **kwargs)
    opt.state[p].update(opt_differentiable_state)
    opt.step()
    return (p,) + tuple(v for v in opt.state[p].values() if _is_var(v) and v.requires_grad)


def _differentiable(name, kwargs, state_spec):
    """torch's TestDifferentiableOptimizer body. torch: gradcheck of ``_diff_fn`` with
    ``differentiable=True``. pyad: docs/optim.md documents ``differentiable=True`` as
    accepted and ignored (the step does not record a graph), so gradcheck does not apply;
    the pyad run instead checks the step ``_diff_fn`` takes from the same state (the
    parameter and every state tensor) against torch's ordinary (non-differentiable)
    kernel, which is the one pyad follows."""
    rng = np.random.RandomState(0)
    p0, g0 = rng.rand(10), rng.rand(10)
    spec = {k: (f(rng) if callable(f) else f) for k, f in state_spec.items()}

    def make_state(lib, grad_req):
        st = {}
        for k, (v, rg) in spec.items():
            if isinstance(v, np.ndarray):
                st[k] = lib.tensor(v, requires_grad=rg and grad_req)
            else:
                st[k] = v
        return st

    # torch, as its test
    st = make_state(torch, True)
    p = torch.tensor(p0, requires_grad=True)
    g = torch.tensor(g0, requires_grad=True)
    assert torch.autograd.gradcheck(
        _diff_fn, (torch, p, g, st, getattr(torch.optim, name),
                   dict(kwargs, differentiable=True), *st.values()))

    def step(lib):
        st = make_state(lib, False)
        p = lib.nn.Parameter(lib.tensor(p0))
        p.grad = lib.tensor(g0)
        opt = getattr(lib.optim, name)([p], **kwargs)
        opt.state[p].update({k: v.clone() if _is_var(v) else v for k, v in st.items()})
        opt.step()
        return [_np(p)] + [_np(opt.state[p][k]) for k, (v, rg) in spec.items()
                           if isinstance(v, np.ndarray)]

    for t, q in zip(step(torch), step(pyad)):
        np.testing.assert_allclose(q, t, **F64)
    # pyad's _diff_fn with differentiable=True runs too (non-leaf parameter allowed)
    stp = make_state(pyad, True)
    outs = _diff_fn(pyad, pyad.tensor(p0, requires_grad=True), pyad.tensor(g0), stp,
                    getattr(pyad.optim, name), dict(kwargs, differentiable=True))
    np.testing.assert_allclose(_np(outs[0]), step(torch)[0], **F64)


def _r(rng, scale=1.0):
    return (rng.rand(10) * scale, True)


def _scalar(v):
    return (np.array(v), False)


class TestDifferentiableOptimizer:
    def test_sgd(self):
        _differentiable("SGD", {"lr": 0.9}, {"momentum_buffer": _r})

    def test_adam(self):
        _differentiable("Adam", {"lr": 0.9, "amsgrad": True},
                        {"step": _scalar(10.0), "exp_avg": _r, "exp_avg_sq": _r,
                         "max_exp_avg_sq": _r})

    def test_rmsprop(self):
        _differentiable("RMSprop", {"lr": 0.9, "maximize": True, "momentum": 0.9,
                                    "centered": True, "weight_decay": 0.1},
                        # torch's test has a Python 0 as the step; torch 2.13 refuses one
                        # ("`state_steps` argument must contain a list of singleton
                        # tensors"), so the step is a 0-d tensor 0.0
                        {"step": _scalar(0.0), "square_avg": _r, "momentum_buffer": _r,
                         "grad_avg": lambda rng: _r(rng, 1e-2)})

    def test_adadelta(self):
        _differentiable("Adadelta", {"lr": 0.9, "weight_decay": 0.1},
                        {"step": _scalar(10.0), "square_avg": _r, "acc_delta": _r})

    def test_adagrad(self):
        _differentiable("Adagrad", {"lr": 0.9, "weight_decay": 0.1},
                        {"step": _scalar(10.0), "sum": _r})

    def test_adamax(self):
        _differentiable("Adamax", {"lr": 0.9, "weight_decay": 0.1},
                        {"step": _scalar(10.0), "exp_avg": _r, "exp_inf": _r})

    def test_asgd(self):
        _differentiable("ASGD", {"lr": 0.9},
                        {"step": _scalar(10.0), "eta": _scalar(0.9), "mu": _scalar(1.0),
                         "ax": _r})

    def test_rprop(self):
        _differentiable("Rprop", {"lr": 0.9},
                        {"step": _scalar(10.0), "prev": _r, "step_size": _r})

    def test_adamw(self):
        _differentiable("AdamW", {"lr": 0.9, "amsgrad": True},
                        {"step": _scalar(10.0), "exp_avg": _r, "exp_avg_sq": _r,
                         "max_exp_avg_sq": _r})

    def test_nadam(self):
        _differentiable("NAdam", {"lr": 0.9},
                        {"step": _scalar(10.0), "exp_avg": _r, "exp_avg_sq": _r,
                         "mu_product": (np.array(1.0), True)})

    def test_radam(self):
        _differentiable("RAdam", {"lr": 0.9},
                        {"step": _scalar(10.0), "exp_avg": _r, "exp_avg_sq": _r})


# --------------------------------------------------------------------- TestOptimRenewed

# torch 2.13's optim_inputs (torch/testing/_internal/common_optimizers.py, device "cpu")
# of the optimizers whose supported_impls include "fused"; the "Tensor lr" and
# "capturable" inputs are left out (torch skips capturable on CPU; tensor lrs are
# covered by test_tensor_lr in tests/optim/test_torch_optim_info_ports.py)
FUSED_OPTIM_INPUTS = [
    ("Adagrad", dict()), ("Adagrad", dict(weight_decay=0.1)),
    ("Adagrad", dict(weight_decay=0.1, maximize=True)), ("Adagrad", dict(lr=0.1)),
    ("Adagrad", dict(initial_accumulator_value=0.1, weight_decay=0.1)),
    ("Adagrad", dict(lr=0.1, lr_decay=0.5, weight_decay=0.1)),
    ("Adam", dict()), ("Adam", dict(lr=0.01)), ("Adam", dict(weight_decay=0.1)),
    ("Adam", dict(weight_decay=0.1, maximize=True)), ("Adam", dict(weight_decay=0.1,
                                                                   amsgrad=True)),
    ("AdamW", dict()), ("AdamW", dict(lr=0.01)), ("AdamW", dict(weight_decay=0.1)),
    ("AdamW", dict(weight_decay=0.1, maximize=True)), ("AdamW", dict(weight_decay=0.1,
                                                                     amsgrad=True)),
    ("SGD", dict()), ("SGD", dict(lr=1e-2)), ("SGD", dict(weight_decay=0.5)),
    ("SGD", dict(momentum=0.9)), ("SGD", dict(weight_decay=0.1, maximize=True)),
    ("SGD", dict(momentum=0.9, dampening=0.5)), ("SGD", dict(momentum=0.9, weight_decay=0.1)),
    ("SGD", dict(momentum=0.9, nesterov=True, weight_decay=0.1)),
]


def _derived_renewed(lib, name, kwargs, flag):
    """TestOptimRenewed's ``_test_derived_optimizers`` (float64, 7 iterations, the grads
    left None at iteration 3, an empty parameter with a grad last); returns the
    parameters and states of the flag=False run."""
    base = np.random.RandomState(1)
    weights = [base.uniform(-0.7, 0.7, s) for s in ((3, 2), (3,), (1, 3), (1,))]
    empty_grad = base.rand()
    res, states = [], []
    for flag_value in (False, True):
        inp = lib.tensor(np.array([0.1, 0.2, 0.3, 0.4, 0.5, 0.6]).reshape(3, 2))
        model = lib.nn.Sequential(lib.nn.Linear(2, 3), lib.nn.Sigmoid(),
                                  lib.nn.Linear(3, 1), lib.nn.Sigmoid()).double()
        with lib.no_grad():
            for p, w in zip(model.parameters(), weights):
                p.copy_(lib.tensor(w))
        empty_param = lib.tensor(np.zeros(()), requires_grad=True)
        empty_param.grad = lib.tensor(np.array(empty_grad))
        params = list(model.parameters()) + [empty_param]
        optimizer = getattr(lib.optim, name)(params, **dict(kwargs, **{flag: flag_value}))
        for i in range(7):
            optimizer.zero_grad()
            if i != 3:
                model(inp).sum().backward()
            optimizer.step()
        res.append(params)
        states.append([optimizer.state[p] for p in params])
    out = []
    for a, b, sa, sb in zip(res[0], res[1], states[0], states[1]):
        _assert_same(a, b)
        for k in sa:
            _assert_same(sa[k], sb[k])
        out.append(_np(a))
        out += [_np(v) for k, v in sorted(sa.items()) if _is_var(v)]
    return out


class TestOptimRenewed:
    @pytest.mark.parametrize("name,kwargs", FUSED_OPTIM_INPUTS,
                             ids=["%s-%s" % (n, "-".join("%s=%s" % i for i in k.items()))
                                  for n, k in FUSED_OPTIM_INPUTS])
    def test_fused_matches_forloop(self, name, kwargs):
        # torch runs it on CUDA (and, since 2.4, on CPU for these four optimizers); here
        # fused=True against fused=False in each framework, and pyad against torch
        _run_both(lambda lib, rng: _derived_renewed(lib, name, kwargs, "fused"))

    @pytest.mark.parametrize("is_named_optim0", [True, False])
    @pytest.mark.parametrize("is_named_optim1", [True, False])
    @pytest.mark.parametrize("name,kwargs", [("SGD", dict(lr=0.1, momentum=0.9)),
                                             ("Adam", dict(lr=0.01, amsgrad=True)),
                                             ("Rprop", dict()), ("Adagrad", dict(lr=0.1))])
    def test_can_load_from_to_named_state_dict(self, name, kwargs, is_named_optim0,
                                               is_named_optim1):
        """A state dict of an optimizer over named_parameters() (or parameters()) loads into
        one over parameters() (or named_parameters()): both then step alike, and each keeps
        its own parameter names. torch's model (Conv2d(4, 2, 1, stride=2), BatchNorm2d(2)),
        input 1x4x16x16, 3 steps; pyad against torch's run (which groups have
        'param_names' after the load, as torch). torch's loss is ``mod(i).sum()``, whose
        gradient for the convolution is rounding noise (a batch-normalised output sums to
        a constant, and a bias before batch statistics cancels), which Adam and Rprop
        amplify differently in each framework; here the model is in eval mode (running
        statistics) and the output is weighted by fixed random numbers,
        ``(mod(i) * c).sum()``."""
        rng0 = np.random.RandomState(1)
        weights = [rng0.uniform(-0.5, 0.5, s) for s in ((2, 4, 1, 1), (2,))]
        x = rng0.rand(1, 4, 16, 16)
        c = rng0.randn(1, 2, 8, 8)

        def cases(lib, rng):
            def model_and_input():
                model = lib.nn.Sequential(lib.nn.Conv2d(4, 2, 1, stride=2),
                                          lib.nn.BatchNorm2d(2, eps=1e-05, momentum=0.1))
                model.double().eval()
                with lib.no_grad():
                    for p, w in zip(model[0].parameters(), weights):
                        p.copy_(lib.tensor(w))
                return model, lib.tensor(x)

            def fwd_bwd(optim, mod, i):
                optim.zero_grad()
                loss = (mod(i) * lib.tensor(c)).sum()
                loss.backward()
                return loss

            opt_cls = getattr(lib.optim, name)
            model, inp = model_and_input()
            optimizer = opt_cls(model.named_parameters() if is_named_optim0
                                else model.parameters(), **kwargs)
            for _ in range(3):
                fwd_bwd(optimizer, model, inp)
                optimizer.step()
            model2, inp2 = model_and_input()
            with lib.no_grad():
                for p2, p in zip(model2.parameters(), model.parameters()):
                    p2.copy_(p)
            optimizer2 = opt_cls(model2.named_parameters() if is_named_optim1
                                 else model2.parameters(), **kwargs)
            optimizer2.load_state_dict(copy.deepcopy(optimizer.state_dict()))
            names = [np.array(["param_names" in g for g in optimizer2.param_groups]
                              + ["param_names" in g
                                 for g in optimizer2.state_dict()["param_groups"]],
                              dtype=float)]
            for _ in range(3):
                fwd_bwd(optimizer, model, inp)
                optimizer.step()
                fwd_bwd(optimizer2, model2, inp2)
                optimizer2.step()
            out = []
            for p, p2 in zip(model.parameters(), model2.parameters()):
                _assert_same(p, p2)
                out.append(_np(p))
            _assert_same(optimizer.state_dict()["state"], optimizer2.state_dict()["state"])
            return names + out
        _run_both(cases)
