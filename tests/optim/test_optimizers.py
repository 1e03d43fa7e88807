"""RMSprop, Adagrad, Adadelta, Adamax, NAdam, RAdam, Rprop, ASGD, Adafactor and LBFGS
against torch.optim:
20-step trajectories from the same parameters and gradients (float64), every option,
hyper-parameter checks, and state_dict round trips (also through pyad.save/pyad.load)."""
import io

import numpy as np
import pytest

import pyad
from pyad import nn, optim

torch = pytest.importorskip("torch")

SHAPES = [(3, 4), (5,), (), (1, 1), (0, 3)]


def twins(shapes=SHAPES, seed=0):
    rng = np.random.default_rng(seed)
    values = [rng.normal(size=s) for s in shapes]
    return ([nn.Parameter(pyad.tensor(v)) for v in values],
            [torch.nn.Parameter(torch.tensor(v)) for v in values])


def grads_for(shapes, steps, seed=1):
    rng = np.random.default_rng(seed)
    return [[rng.normal(size=s) * (k % 3 + 1) for s in shapes] for k in range(steps)]


def run_both(make_pyad, make_torch, steps=20, shapes=SHAPES, skip=(), groups=None):
    ps, ts = twins(shapes)
    if groups:
        opt_p = make_pyad([dict(g, params=[ps[i] for i in idx]) for idx, g in groups])
        opt_t = make_torch([dict(g, params=[ts[i] for i in idx]) for idx, g in groups])
    else:
        opt_p, opt_t = make_pyad(ps), make_torch(ts)
    for step, gs in enumerate(grads_for(shapes, steps)):
        for i, (p, t, g) in enumerate(zip(ps, ts, gs)):
            if i in skip:
                continue
            p.grad = pyad.tensor(g)
            t.grad = torch.tensor(g)
        opt_p.step()
        opt_t.step()
        for i, (p, t) in enumerate(zip(ps, ts)):
            np.testing.assert_allclose(p.data, t.detach().numpy(), rtol=1e-9, atol=1e-12,
                                       err_msg="param %d after step %d" % (i, step + 1))
    return opt_p, opt_t, ps, ts


CASES = {
    "RMSprop": [dict(), dict(lr=0.05, alpha=0.9), dict(momentum=0.9), dict(centered=True),
                dict(centered=True, momentum=0.5, weight_decay=0.1),
                dict(weight_decay=0.2, maximize=True), dict(eps=1e-3, foreach=False),
                dict(momentum=0.3, centered=True, maximize=True, lr=0.003)],
    "Adagrad": [dict(), dict(lr=0.1, lr_decay=0.05), dict(weight_decay=0.1),
                dict(initial_accumulator_value=0.5), dict(eps=1e-3, maximize=True),
                dict(lr_decay=0.01, weight_decay=0.05, initial_accumulator_value=0.1,
                     maximize=True)],
    "Adadelta": [dict(), dict(lr=0.5, rho=0.5), dict(weight_decay=0.1),
                 dict(eps=1e-3, maximize=True), dict(rho=0.95, weight_decay=0.01,
                                                     maximize=True)],
    "Adamax": [dict(), dict(lr=0.05, betas=(0.5, 0.9)), dict(weight_decay=0.1),
               dict(eps=1e-2, maximize=True), dict(weight_decay=0.3, maximize=True)],
    "NAdam": [dict(), dict(lr=0.05, betas=(0.5, 0.9)), dict(weight_decay=0.1),
              dict(weight_decay=0.1, decoupled_weight_decay=True),
              dict(momentum_decay=0.1, maximize=True), dict(eps=1e-3)],
    "RAdam": [dict(), dict(lr=0.05, betas=(0.5, 0.9)), dict(weight_decay=0.1),
              dict(weight_decay=0.1, decoupled_weight_decay=True), dict(maximize=True),
              dict(betas=(0.9, 0.5), eps=1e-3)],
    "Rprop": [dict(), dict(lr=0.05, etas=(0.3, 1.5)), dict(step_sizes=(1e-3, 0.02)),
              dict(maximize=True), dict(lr=0.2, etas=(0.9, 1.1), step_sizes=(0.05, 1.0))],
    "ASGD": [dict(), dict(lr=0.05, t0=5), dict(lambd=0.1, alpha=0.5, t0=3),
             dict(weight_decay=0.1, t0=0), dict(maximize=True, t0=10, lr=0.02)],
    "Adafactor": [dict(), dict(lr=0.05, beta2_decay=-0.5), dict(eps=(1e-4, 1e-2)),
                  dict(d=2.0, weight_decay=0.1), dict(maximize=True, lr=0.5),
                  dict(eps=(None, 0.5), weight_decay=0.01)],
}
ALL = [(name, kw) for name, kws in CASES.items() for kw in kws]


def shapes_for(name):
    # torch's Adafactor divides by the parameter's numel in Python: an empty parameter
    # raises ZeroDivisionError there (pyad takes its RMS as NaN, which max() ignores)
    return [(2, 2) if s == (0, 3) else s for s in SHAPES] if name == "Adafactor" else SHAPES


@pytest.mark.parametrize("name,kwargs", ALL, ids=[n + str(k) for n, k in ALL])
def test_trajectory_matches_torch_over_20_steps(name, kwargs):
    run_both(lambda p: getattr(optim, name)(p, **kwargs),
             lambda p: getattr(torch.optim, name)(p, **kwargs), shapes=shapes_for(name))


def test_adafactor_steps_an_empty_parameter():
    w, e = nn.Parameter(pyad.ones(2)), nn.Parameter(pyad.ones(0, 3))
    opt = optim.Adafactor([w, e])
    w.grad, e.grad = pyad.ones(2), pyad.ones(0, 3)
    opt.step()
    assert e.shape == (0, 3) and np.all(np.isfinite(w.data))


@pytest.mark.parametrize("name", sorted(CASES))
def test_param_groups_and_parameters_without_grad_match_torch(name):
    groups = [((0, 2), dict(lr=0.02)), ((1, 3, 4), dict(weight_decay=0.1))]
    opt_p, opt_t, _, _ = run_both(lambda p: getattr(optim, name)(p),
                                  lambda p: getattr(torch.optim, name)(p), steps=5,
                                  skip=(2,), groups=groups, shapes=shapes_for(name))
    sp, st = opt_p.state_dict(), opt_t.state_dict()
    assert sorted(sp["state"]) == sorted(st["state"])
    for i in st["state"]:
        assert sorted(sp["state"][i]) == sorted(st["state"][i])
        for key, tv in st["state"][i].items():
            np.testing.assert_allclose(np.asarray(sp["state"][i][key].data),
                                       tv.detach().numpy(), rtol=1e-6, atol=1e-12)
    for gp, gt in zip(sp["param_groups"], st["param_groups"]):
        assert sorted(gp) == sorted(gt)
        assert gp["params"] == gt["params"]


@pytest.mark.parametrize("name", sorted(CASES))
def test_defaults_are_torch_defaults(name):
    p, t = nn.Parameter(pyad.zeros(2)), torch.nn.Parameter(torch.zeros(2))
    dp = getattr(optim, name)([p]).defaults
    dt = getattr(torch.optim, name)([t]).defaults
    assert dp == dt


@pytest.mark.parametrize("name", sorted(CASES))
def test_float32_parameters_stay_float32(name):
    w = nn.Parameter(pyad.ones(3))
    opt = getattr(optim, name)([w], lr=0.1)
    for _ in range(3):
        w.grad = pyad.ones(3)
        opt.step()
    assert w.dtype == np.float32


BAD = [("RMSprop", dict(lr=-1)), ("RMSprop", dict(alpha=-0.1)), ("RMSprop", dict(eps=-1)),
       ("RMSprop", dict(momentum=-1)), ("RMSprop", dict(weight_decay=-1)),
       ("Adagrad", dict(lr_decay=-1)), ("Adagrad", dict(initial_accumulator_value=-1)),
       ("Adagrad", dict(eps=-1)), ("Adadelta", dict(rho=1.5)), ("Adadelta", dict(lr=-1)),
       ("Adamax", dict(betas=(1.0, 0.9))), ("Adamax", dict(betas=(0.9, -0.1))),
       ("NAdam", dict(momentum_decay=-1)), ("NAdam", dict(betas=(1.5, 0.9))),
       ("RAdam", dict(weight_decay=-1)), ("RAdam", dict(eps=-1)), ("LBFGS", dict(lr=-1)),
       ("Rprop", dict(lr=-1)), ("Rprop", dict(etas=(1.0, 1.2))), ("Rprop", dict(etas=(0.5, 0.9))),
       ("ASGD", dict(lr=-1)), ("ASGD", dict(weight_decay=-1)), ("Adafactor", dict(lr=-1)),
       ("Adafactor", dict(beta2_decay=0.5)), ("Adafactor", dict(eps=(-1, 1e-3))),
       ("Adafactor", dict(eps=(None, -1))), ("Adafactor", dict(d=0.5)),
       ("Adafactor", dict(weight_decay=-1))]


@pytest.mark.parametrize("name,kwargs", BAD, ids=[n + str(k) for n, k in BAD])
def test_bad_hyper_parameters_raise_torchs_value_error(name, kwargs):
    with pytest.raises(ValueError) as ours:
        getattr(optim, name)([nn.Parameter(pyad.zeros(1))], **kwargs)
    with pytest.raises(ValueError) as theirs:
        getattr(torch.optim, name)([torch.nn.Parameter(torch.zeros(1))], **kwargs)
    assert str(ours.value) == str(theirs.value)


@pytest.mark.parametrize("name,kwargs", [(n, k) for n, k in ALL if not k.get("maximize")][::2])
def test_state_dict_round_trip_resumes_exactly_also_through_save_load(name, kwargs):
    shapes = [(3, 2), (4,)]
    grads = grads_for(shapes, 8)
    ps, _ = twins(shapes)
    opt = getattr(optim, name)(ps, **kwargs)

    def train(params, o, gs):
        for g in gs:
            for p, gi in zip(params, g):
                p.grad = pyad.tensor(gi)
            o.step()

    train(ps, opt, grads[:4])
    buf = io.BytesIO()
    pyad.save({"opt": opt.state_dict(), "params": [p.detach().clone() for p in ps]}, buf)
    buf.seek(0)
    saved = pyad.load(buf)
    train(ps, opt, grads[4:])

    clones = [nn.Parameter(v) for v in saved["params"]]
    resumed = getattr(optim, name)(clones, **kwargs)
    resumed.load_state_dict(saved["opt"])
    train(clones, resumed, grads[4:])
    for a, b in zip(ps, clones):
        if name == "NAdam":
            # torch casts the float32 'mu_product' to the parameter's dtype on load, so
            # a resumed NAdam is float64-exact from there on and not bit-equal to the
            # uninterrupted run (in torch too)
            np.testing.assert_allclose(a.data, b.data, rtol=1e-9)
        else:
            np.testing.assert_array_equal(a.data, b.data)
    if name == "NAdam":
        assert resumed.state[clones[0]]["mu_product"].dtype == np.float64
        assert resumed.state[clones[0]]["step"].dtype == np.float32


def rosenbrock_pair(start=(-1.5, 2.0)):
    wp = nn.Parameter(pyad.tensor(np.array(start)))
    wt = torch.nn.Parameter(torch.tensor(np.array(start)))

    def f(w, lib):
        return (1 - w[0]) ** 2 + 100 * (w[1] - w[0] ** 2) ** 2

    return wp, wt, f


@pytest.mark.parametrize("kwargs", [dict(), dict(line_search_fn="strong_wolfe"),
                                    dict(lr=0.1, max_iter=5, history_size=3),
                                    dict(line_search_fn="strong_wolfe", history_size=2,
                                         max_iter=7, max_eval=9),
                                    dict(tolerance_grad=1e-3, line_search_fn="strong_wolfe")],
                         ids=str)
def test_lbfgs_matches_torch_over_20_steps(kwargs):
    wp, wt, f = rosenbrock_pair()
    if "line_search_fn" not in kwargs and kwargs.get("lr", 1) == 1:
        kwargs = dict(kwargs, lr=0.002)        # a fixed unit step diverges on Rosenbrock
    op, ot = optim.LBFGS([wp], **kwargs), torch.optim.LBFGS([wt], **kwargs)
    calls = [0, 0]

    def closure_p():
        calls[0] += 1
        op.zero_grad()
        loss = f(wp, pyad)
        loss.backward()
        return loss

    def closure_t():
        calls[1] += 1
        ot.zero_grad()
        loss = f(wt, torch)
        loss.backward()
        return loss

    for step in range(20):
        lp, lt = op.step(closure_p), ot.step(closure_t)
        np.testing.assert_allclose(float(lp), float(lt.detach()), rtol=1e-7, atol=1e-12)
        np.testing.assert_allclose(wp.data, wt.detach().numpy(), rtol=1e-7, atol=1e-10,
                                   err_msg="after step %d" % (step + 1))
    assert calls[0] == calls[1]
    assert op.state[wp]["func_evals"] == ot.state[wt]["func_evals"]
    assert op.state[wp]["n_iter"] == ot.state[wt]["n_iter"]


def test_lbfgs_several_parameters_match_torch_on_a_least_squares_fit():
    rng = np.random.default_rng(3)
    x, y = rng.normal(size=(20, 3)), rng.normal(size=(20, 2))
    lin_p, lin_t = nn.Linear(3, 2).double(), torch.nn.Linear(3, 2).double()
    with torch.no_grad():
        lin_t.weight.copy_(torch.tensor(lin_p.weight.data))
        lin_t.bias.copy_(torch.tensor(lin_p.bias.data))
    op = optim.LBFGS(lin_p.parameters(), line_search_fn="strong_wolfe")
    ot = torch.optim.LBFGS(lin_t.parameters(), line_search_fn="strong_wolfe")
    xp_, yp = pyad.tensor(x), pyad.tensor(y)
    xt, yt = torch.tensor(x), torch.tensor(y)

    def cp():
        op.zero_grad()
        loss = ((lin_p(xp_) - yp) ** 2).mean()
        loss.backward()
        return loss

    def ct():
        ot.zero_grad()
        loss = ((lin_t(xt) - yt) ** 2).mean()
        loss.backward()
        return loss

    for _ in range(3):
        np.testing.assert_allclose(float(op.step(cp)), float(ot.step(ct).detach()), rtol=1e-9)
    np.testing.assert_allclose(lin_p.weight.data, lin_t.weight.detach().numpy(), rtol=1e-7,
                               atol=1e-10)


def test_lbfgs_refuses_parameter_groups_and_unknown_line_search():
    a, b = nn.Parameter(pyad.zeros(1)), nn.Parameter(pyad.zeros(1))
    with pytest.raises(ValueError, match="per-parameter options"):
        optim.LBFGS([{"params": [a]}, {"params": [b]}])
    opt = optim.LBFGS([a], line_search_fn="armijo")

    def closure():
        opt.zero_grad()
        loss = ((a - 1) ** 2).sum()
        loss.backward()
        return loss

    with pytest.raises(RuntimeError, match="only 'strong_wolfe' is supported"):
        opt.step(closure)


def test_lbfgs_stops_at_once_when_the_gradient_is_already_small():
    w = nn.Parameter(pyad.tensor([1.0]))
    opt = optim.LBFGS([w])

    def closure():
        opt.zero_grad()
        loss = ((w - 1) ** 2).sum()
        loss.backward()
        return loss

    assert float(opt.step(closure)) == 0.0
    assert opt.state[w]["func_evals"] == 1 and opt.state[w]["n_iter"] == 0


def test_adagrad_state_exists_from_construction_as_torch():
    p, t = nn.Parameter(pyad.zeros(2)), torch.nn.Parameter(torch.zeros(2))
    sp = optim.Adagrad([p], initial_accumulator_value=0.3).state_dict()
    st = torch.optim.Adagrad([t], initial_accumulator_value=0.3).state_dict()
    assert sorted(sp["state"][0]) == sorted(st["state"][0])
    np.testing.assert_allclose(sp["state"][0]["sum"].data, st["state"][0]["sum"].numpy())


def test_step_bumps_the_parameter_version_so_saved_values_are_caught():
    w = nn.Parameter(pyad.tensor([1.0, 2.0]))
    y = (w * w).sum()
    opt = optim.RMSprop([w])
    w.grad = pyad.ones(2)
    opt.step()
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.backward()


def test_closure_loss_is_returned():
    w = nn.Parameter(pyad.tensor([1.0]))
    for cls in (optim.RMSprop, optim.Adagrad, optim.Adadelta, optim.Adamax, optim.NAdam,
                optim.RAdam):
        opt = cls([w])
        seen = []

        def closure():
            opt.zero_grad()
            loss = (w * 3).sum()
            loss.backward()
            seen.append(loss)
            return loss

        assert opt.step(closure) is seen[0]


@pytest.mark.parametrize("line_search_fn", [None, "strong_wolfe"])
def test_lbfgs_state_dict_round_trip_through_save_load_resumes_exactly(line_search_fn):
    def run(w, opt, steps):
        def closure():
            opt.zero_grad()
            loss = (1 - w[0]) ** 2 + 100 * (w[1] - w[0] ** 2) ** 2
            loss.backward()
            return loss
        for _ in range(steps):
            opt.step(closure)

    kwargs = dict(lr=0.002 if line_search_fn is None else 1, max_iter=4,
                  line_search_fn=line_search_fn)
    w = nn.Parameter(pyad.tensor(np.array([-1.5, 2.0])))
    opt = optim.LBFGS([w], **kwargs)
    run(w, opt, 3)
    buf = io.BytesIO()
    pyad.save({"opt": opt.state_dict(), "w": w.detach().clone()}, buf)
    buf.seek(0)
    saved = pyad.load(buf)
    run(w, opt, 3)
    w2 = nn.Parameter(saved["w"])
    opt2 = optim.LBFGS([w2], **kwargs)
    opt2.load_state_dict(saved["opt"])
    run(w2, opt2, 3)
    np.testing.assert_array_equal(w.data, w2.data)
    keys = sorted(opt.state_dict()["state"][0])
    wt = torch.nn.Parameter(torch.tensor([-1.5, 2.0], dtype=torch.float64))
    ot = torch.optim.LBFGS([wt], **kwargs)

    def ct():
        ot.zero_grad()
        loss = (1 - wt[0]) ** 2 + 100 * (wt[1] - wt[0] ** 2) ** 2
        loss.backward()
        return loss

    ot.step(ct)
    ot.step(ct)
    assert keys == sorted(ot.state_dict()["state"][0])


COMPLEX = [(n, k) for n, k in ALL if n != "Adafactor"][::2]


def test_adafactor_refuses_complex_parameters_as_torch():
    p = nn.Parameter(pyad.tensor([1.0 + 1.0j]))
    p.grad = pyad.tensor([1.0 + 0.0j])
    with pytest.raises(RuntimeError, match="Adafactor does not support complex parameters"):
        optim.Adafactor([p]).step()


def test_adafactor_factors_matrices_and_stacks_as_torch():
    shapes = [(2, 3, 4), (5, 1), (1, 6), (7,)]
    opt_p, opt_t, _, _ = run_both(lambda p: optim.Adafactor(p, lr=0.05),
                                  lambda p: torch.optim.Adafactor(p, lr=0.05), steps=10,
                                  shapes=shapes)
    for i in range(3):
        st = opt_t.state_dict()["state"][i]
        sp = opt_p.state_dict()["state"][i]
        assert sorted(sp) == sorted(st) == ["col_var", "row_var", "step"]
        for key in ("row_var", "col_var"):
            assert tuple(sp[key].shape) == tuple(st[key].shape)
            np.testing.assert_allclose(sp[key].data, st[key].numpy(), rtol=1e-12)


def test_asgd_average_matches_torch():
    opt_p, opt_t, _, _ = run_both(lambda p: optim.ASGD(p, lr=0.05, t0=3),
                                  lambda p: torch.optim.ASGD(p, lr=0.05, t0=3), steps=12)
    for i, st in opt_t.state_dict()["state"].items():
        sp = opt_p.state_dict()["state"][i]
        for key in ("ax", "eta", "mu", "step"):
            assert sp[key].dtype == st[key].numpy().dtype, key
            np.testing.assert_allclose(np.asarray(sp[key].data), st[key].numpy(),
                                       rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("name,kwargs", COMPLEX, ids=[n + str(k) for n, k in COMPLEX])
def test_complex_parameters_match_torch(name, kwargs):
    rng = np.random.default_rng(5)
    shapes = [(3, 2), (4,), ()]
    values = [rng.normal(size=s) + 1j * rng.normal(size=s) for s in shapes]
    values.append((rng.normal(size=(4, 3)) + 1j * rng.normal(size=(4, 3))).T)   # strided
    ps = [nn.Parameter(pyad.tensor(v)) for v in values]
    ts = [torch.nn.Parameter(torch.tensor(np.array(v, order="C"))) for v in values]
    opt_p = getattr(optim, name)(ps, **kwargs)
    opt_t = getattr(torch.optim, name)(ts, **kwargs)
    for step in range(20):
        for p, t in zip(ps, ts):
            g = rng.normal(size=p.shape) + 1j * rng.normal(size=p.shape)
            p.grad = pyad.tensor(g)
            t.grad = torch.tensor(g)
        opt_p.step()
        opt_t.step()
        for i, (p, t) in enumerate(zip(ps, ts)):
            np.testing.assert_allclose(p.data, t.detach().numpy(), rtol=1e-9, atol=1e-12,
                                       err_msg="param %d after step %d" % (i, step + 1))


@pytest.mark.parametrize("line_search_fn", [None, "strong_wolfe"])
def test_lbfgs_complex_parameters_match_torch(line_search_fn):
    start = np.array([1.0 + 2.0j, -0.5 + 0.3j])
    target = np.array([0.2 - 1.0j, 1.5 + 0.5j])
    wp, wt = nn.Parameter(pyad.tensor(start)), torch.nn.Parameter(torch.tensor(start))
    kw = dict(lr=0.1 if line_search_fn is None else 1, max_iter=6,
              line_search_fn=line_search_fn)
    op, ot = optim.LBFGS([wp], **kw), torch.optim.LBFGS([wt], **kw)

    def closure(w, opt, lib_target):
        def f():
            opt.zero_grad()
            diff = w - lib_target
            loss = (diff.abs() ** 2).sum() + (w.abs() ** 4).sum() * 0.1
            loss.backward()
            return loss
        return f

    for _ in range(5):
        lp = op.step(closure(wp, op, pyad.tensor(target)))
        lt = ot.step(closure(wt, ot, torch.tensor(target)))
        np.testing.assert_allclose(float(lp), float(lt.detach()), rtol=1e-9)
        np.testing.assert_allclose(wp.data, wt.detach().numpy(), rtol=1e-8, atol=1e-12)


def test_asgd_resumed_run_matches_torchs_resumed_run():
    shapes = [(3, 2), (4,)]
    grads = grads_for(shapes, 8)
    ps, ts = twins(shapes)
    kw = dict(lr=0.05, t0=2, lambd=0.01)
    op, ot = optim.ASGD(ps, **kw), torch.optim.ASGD(ts, **kw)
    for g in grads[:4]:
        for p, t, gi in zip(ps, ts, g):
            p.grad, t.grad = pyad.tensor(gi), torch.tensor(gi)
        op.step()
        ot.step()
    cp = [nn.Parameter(p.detach().clone()) for p in ps]
    ct = [torch.nn.Parameter(t.detach().clone()) for t in ts]
    rp, rt = optim.ASGD(cp, **kw), torch.optim.ASGD(ct, **kw)
    rp.load_state_dict(op.state_dict())
    rt.load_state_dict(ot.state_dict())
    assert rp.state[cp[0]]["eta"].dtype == rt.state[ct[0]]["eta"].numpy().dtype
    for g in grads[4:]:
        for p, t, gi in zip(cp, ct, g):
            p.grad, t.grad = pyad.tensor(gi), torch.tensor(gi)
        rp.step()
        rt.step()
    for p, t in zip(cp, ct):
        np.testing.assert_allclose(p.data, t.detach().numpy(), rtol=1e-12, atol=1e-14)
