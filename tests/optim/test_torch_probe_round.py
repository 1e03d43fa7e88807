"""Differential probes of pyad.optim and pyad.optim.lr_scheduler against torch 2.13:
each test runs the same code on both libraries (``lib`` is ``torch`` or ``pyad``) and
compares the results (parameter values after several steps in float64, learning-rate
sequences, state dict contents, warnings and error types)."""
import copy
import importlib
import warnings

import numpy as np
import pytest

import pyad

torch = pytest.importorskip("torch")

LIBS = (torch, pyad)


def _np(x):
    return x.detach().numpy() if isinstance(x, torch.Tensor) else np.asarray(x.detach().data)


def _params(lib, seed=0, shapes=((3, 4), (4,), (2,))):
    rng = np.random.RandomState(seed)
    return [lib.nn.Parameter(lib.tensor(rng.randn(*s))) for s in shapes]


def _loss(lib, params, k):
    total = 0
    for i, p in enumerate(params):
        c = lib.tensor(np.cos(np.arange(p.numel()) * 0.7 + k + i).reshape(tuple(p.shape)))
        total = total + ((p - c) ** 2 * (1.5 + lib.sin(p))).sum() + (p ** 4).sum() * 0.1
    return total


def _train(lib, opt, params, steps, start=0):
    for k in range(start, start + steps):
        opt.zero_grad()
        _loss(lib, params, k).backward()
        opt.step()


def _assert_params_equal(tps, pps):
    for t, p in zip(tps, pps):
        np.testing.assert_allclose(_np(p), _np(t), rtol=1e-10, atol=1e-12)


def _to_pyad(value):
    """A torch state dict (or part) with every tensor made a pyad Variable."""
    if isinstance(value, torch.Tensor):
        return pyad.tensor(value.detach().numpy().copy())
    if isinstance(value, dict):
        return {k: _to_pyad(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_to_pyad(v) for v in value]
    return value


def _outcome(fn):
    """``('ok', value)`` or ``('error', exception type)``."""
    try:
        return "ok", fn()
    except Exception as exc:       # noqa: BLE001 -- the type is what is compared
        return "error", type(exc)


# -- a tensor lr ---------------------------------------------------------------------------

TENSOR_LR_OPTIMIZERS = [("SGD", dict(momentum=0.9)), ("Adam", {}), ("AdamW", {}),
                        ("Adagrad", {}), ("Adadelta", {}), ("Adamax", {}), ("NAdam", {}),
                        ("RAdam", {}), ("RMSprop", {}), ("Rprop", {}), ("ASGD", {}),
                        ("Adafactor", {}), ("Adafactor", dict(weight_decay=0.1))]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name,kwargs", TENSOR_LR_OPTIMIZERS)
def test_a_tensor_lr_gives_torch_trajectory(name, kwargs, dtype):
    result = {}
    for lib in LIBS:
        params = _params(lib)
        lr = lib.tensor(0.01, dtype=getattr(lib, dtype))
        opt = getattr(lib.optim, name)(params, lr=lr, **kwargs)
        _train(lib, opt, params, 4)
        assert opt.param_groups[0]["lr"] is lr
        result[lib] = (params, float(lr))
    _assert_params_equal(result[torch][0], result[pyad][0])
    assert result[pyad][1] == result[torch][1]     # the lr itself is left alone


def test_asgd_eta_does_not_alias_a_tensor_lr():
    for lib in LIBS:
        lr = lib.tensor(0.01, dtype=lib.float32)
        params = _params(lib)
        opt = lib.optim.ASGD(params, lr=lr)
        _train(lib, opt, params, 3)
        assert float(lr) == np.float32(0.01)


@pytest.mark.parametrize("name", ["SGD", "Adam", "Adagrad", "Adadelta", "Adamax", "NAdam",
                                  "RAdam", "RMSprop", "Rprop", "ASGD", "LBFGS", "Adafactor"])
def test_a_tensor_lr_of_several_elements_is_a_value_error(name):
    outcomes = [_outcome(lambda lib=lib: getattr(lib.optim, name)(
        _params(lib), lr=lib.tensor([0.1, 0.2]))) for lib in LIBS]
    assert outcomes[0] == outcomes[1] == ("error", ValueError)


@pytest.mark.parametrize("kwargs,error", [
    (dict(foreach=True, fused=True), RuntimeError),
    (dict(fused=True, differentiable=True), RuntimeError),
    (dict(lr="tensor", foreach=True), ValueError),
    (dict(lr="tensor", foreach=True, capturable=True), None),
])
@pytest.mark.parametrize("name", ["Adam", "AdamW"])
def test_adam_kernel_flag_checks(name, kwargs, error):
    for lib in LIBS:
        kw = dict(kwargs)
        if kw.get("lr") == "tensor":
            kw["lr"] = lib.tensor(0.1)
        make = lambda: getattr(lib.optim, name)(_params(lib), **kw)   # noqa: E731
        if error is None:
            make()
        else:
            with pytest.raises(error):
                make()


@pytest.mark.parametrize("name", ["SGD", "Adagrad"])
def test_fused_and_foreach_together_is_a_runtime_error(name):
    for lib in LIBS:
        with pytest.raises(RuntimeError, match="cannot be `True` together"):
            getattr(lib.optim, name)(_params(lib), lr=0.1, foreach=True, fused=True)


# -- schedulers with a tensor lr ---------------------------------------------------------

SCHEDULES = {
    "StepLR": lambda S, o: S.StepLR(o, 3, 0.5),
    "CosineAnnealingLR": lambda S, o: S.CosineAnnealingLR(o, 10),
    "OneCycleLR": lambda S, o: S.OneCycleLR(o, 1.0, total_steps=20),
    "CyclicLR": lambda S, o: S.CyclicLR(o, 0.1, 1.0, cycle_momentum=False),
    "LambdaLR": lambda S, o: S.LambdaLR(o, lambda e: 0.5 ** e),
    "SequentialLR": lambda S, o: S.SequentialLR(
        o, [S.LinearLR(o), S.ExponentialLR(o, 0.9)], [3]),
    "CosineAnnealingWarmRestarts": lambda S, o: S.CosineAnnealingWarmRestarts(o, 3),
    "ReduceLROnPlateau": lambda S, o: S.ReduceLROnPlateau(o, patience=0),
}


@pytest.mark.parametrize("name", sorted(SCHEDULES))
def test_a_tensor_lr_is_filled_in_place_by_schedulers(name):
    seen = {}
    for lib in LIBS:
        lr = lib.tensor(0.1, dtype=lib.float64)
        opt = lib.optim.Adam([lib.nn.Parameter(lib.zeros(2))], lr=lr)
        sched = SCHEDULES[name](lib.optim.lr_scheduler, opt)
        rows = []
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for _ in range(8):
                opt.step()
                sched.step(1.0) if name == "ReduceLROnPlateau" else sched.step()
                group = opt.param_groups[0]
                last = sched.get_last_lr()[0]
                initial = group.get("initial_lr")
                rows.append((group["lr"] is lr, float(group["lr"]),
                             type(group["lr"]).__name__ in ("Tensor", "Variable"),
                             last is not group["lr"], float(last),
                             initial is not lr, type(initial).__name__))
        seen[lib] = rows
    torch_rows = [r[:6] + (r[6].replace("Tensor", "T"),) for r in seen[torch]]
    pyad_rows = [r[:6] + (r[6].replace("Variable", "T"),) for r in seen[pyad]]
    np.testing.assert_allclose([r[1] for r in pyad_rows], [r[1] for r in torch_rows],
                               rtol=1e-12)
    assert ([r[:1] + r[2:4] + r[5:] for r in pyad_rows]
            == [r[:1] + r[2:4] + r[5:] for r in torch_rows])


# -- scheduler warnings ------------------------------------------------------------------

def _messages(fn):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fn()
    return [(w.category, str(w.message)) for w in caught]


@pytest.mark.parametrize("name", ["StepLR", "CosineAnnealingLR", "LambdaLR", "OneCycleLR",
                                  "CyclicLR", "CosineAnnealingWarmRestarts"])
def test_get_lr_outside_step_warns_as_torch(name):
    got = []
    for lib in LIBS:
        opt = lib.optim.SGD([lib.nn.Parameter(lib.zeros(2))], lr=0.1, momentum=0.9)
        sched = SCHEDULES.get(name, lambda S, o: None)(lib.optim.lr_scheduler, opt)
        got.append(_messages(sched.get_lr))
    assert got[0] == got[1]
    assert any("get_last_lr()" in m for _, m in got[1])


def test_scheduler_step_before_optimizer_step_warns_as_torch():
    got = []
    for lib in LIBS:
        opt = lib.optim.SGD([lib.nn.Parameter(lib.zeros(2))], lr=0.1)
        sched = lib.optim.lr_scheduler.StepLR(opt, 2)
        got.append(_messages(lambda: (sched.step(), opt.step(), sched.step())))
    assert got[0] == got[1] and len(got[1]) == 1


def test_resuming_without_initial_lr_is_the_torch_key_error():
    messages = []
    for lib in LIBS:
        opt = lib.optim.SGD([lib.nn.Parameter(lib.zeros(2))], lr=0.1)
        with pytest.raises(KeyError) as info:
            lib.optim.lr_scheduler.StepLR(opt, 3, last_epoch=4)
        messages.append(str(info.value))
    assert messages[0] == messages[1]


def test_lr_scheduler_old_base_name_is_a_subclass():
    for lib in LIBS:
        S = lib.optim.lr_scheduler
        assert S._LRScheduler is not S.LRScheduler
        assert issubclass(S._LRScheduler, S.LRScheduler)
        assert S._LRScheduler.__name__ == "_LRScheduler"
        assert S.LRScheduler._get_lr_called_within_step is False


# -- parameter groups ----------------------------------------------------------------------

def test_named_parameters_give_param_names_in_groups_and_state_dict():
    dicts = []
    for lib in LIBS:
        p, q = _params(lib)[:2]
        opt = lib.optim.Adam([{"params": [("a", p)]}, {"params": [("b", q)], "lr": 0.3}],
                             lr=0.1)
        assert opt.param_groups[0]["params"][0] is p
        dicts.append(opt.state_dict()["param_groups"])
        flat = lib.optim.SGD([("a", p), ("b", q)], lr=0.1)
        dicts.append(flat.state_dict()["param_groups"])
    assert dicts[:2] == dicts[2:]
    assert dicts[2][0]["param_names"] == ["a"]


def test_named_and_unnamed_groups_cannot_mix():
    for lib in LIBS:
        p, q, r = _params(lib)
        opt = lib.optim.SGD([p], lr=0.1)
        with pytest.raises(ValueError, match="with/without names"):
            opt.add_param_group({"params": [("b", q)]})
        with pytest.raises(ValueError, match="Some param names are missing"):
            lib.optim.SGD([("a", p), q], lr=0.1)


def test_named_parameters_train_as_torch():
    result = {}
    for lib in LIBS:
        params = _params(lib)
        opt = lib.optim.AdamW([("w%d" % i, p) for i, p in enumerate(params)], lr=0.05)
        _train(lib, opt, params, 5)
        result[lib] = params
    _assert_params_equal(result[torch], result[pyad])


def test_add_param_group_uses_the_dict_given():
    for lib in LIBS:
        p, q = _params(lib)[:2]
        opt = lib.optim.SGD([p], lr=0.1)
        group = {"params": q, "lr": 0.5}
        opt.add_param_group(group)
        assert opt.param_groups[1] is group
        assert group["params"] == [q] and group["momentum"] == 0


def test_duplicate_parameters_warn_and_a_bare_set_is_accepted():
    for lib in LIBS:
        p = _params(lib)[0]
        with pytest.warns(UserWarning, match="duplicate parameters"):
            lib.optim.SGD([p, p], lr=0.1)
        assert lib.optim.SGD({p}, lr=0.1).param_groups[0]["params"] == [p]
        with pytest.raises(TypeError, match="ordered collections"):
            lib.optim.SGD([{"params": {p}}], lr=0.1)


def test_non_leaf_retaining_grad_can_be_optimized():
    for lib in LIBS:
        x = lib.ones(2, dtype=lib.float64, requires_grad=True) * 2
        with pytest.raises(ValueError, match="non-leaf"):
            lib.optim.SGD([x], lr=0.1)
        x.retain_grad()
        lib.optim.SGD([x], lr=0.1)
        y = lib.ones(2, dtype=lib.float64, requires_grad=True) * 2
        lib.optim.SGD([y], lr=0.1, differentiable=True)


def test_bad_param_types_are_type_errors():
    for lib in LIBS:
        with pytest.raises(TypeError, match="optimize Tensors"):
            lib.optim.SGD([1.0], lr=0.1)
        with pytest.raises(TypeError, match="param_group must be a dict"):
            lib.optim.SGD(_params(lib), lr=0.1).add_param_group([1])


def test_repr_has_torch_layout():
    reprs = []
    for lib in LIBS:
        p, q = _params(lib)[:2]
        reprs.append(repr(lib.optim.Adam([{"params": [p]}, {"params": [q], "lr": 0.3}])))
    assert reprs[0] == reprs[1]
    assert "\n\nParameter Group 1\n" in reprs[1]


# -- state dicts ---------------------------------------------------------------------------

def test_loading_a_state_dict_without_newer_flags_fills_torch_defaults():
    result = {}
    for lib in LIBS:
        params = _params(lib)
        opt = lib.optim.Adam(params, lr=0.1)
        _train(lib, opt, params, 2)
        sd = opt.state_dict()
        for key in ("maximize", "amsgrad", "foreach", "capturable", "differentiable",
                    "fused", "decoupled_weight_decay"):
            del sd["param_groups"][0][key]
        opt.load_state_dict(sd)
        _train(lib, opt, params, 2, start=2)
        result[lib] = (params, opt.param_groups[0])
    _assert_params_equal(result[torch][0], result[pyad][0])
    groups = [{k: v for k, v in g.items() if k != "params"} for _, g in result.values()]
    assert groups[0] == groups[1]


@pytest.mark.parametrize("name,flags", [
    ("SGD", dict(momentum=0.9)), ("RMSprop", dict(momentum=0.5, centered=True)),
    ("NAdam", {}), ("RAdam", {}), ("Rprop", {}), ("ASGD", {}), ("Adagrad", {}),
    ("Adadelta", {}), ("Adamax", {})])
def test_every_optimizer_fills_missing_flags_as_torch(name, flags):
    groups = []
    for lib in LIBS:
        params = _params(lib)
        opt = getattr(lib.optim, name)(params, **flags)
        _train(lib, opt, params, 1)
        sd = opt.state_dict()
        for key in ("maximize", "foreach", "differentiable", "capturable", "fused",
                    "nesterov", "centered", "decoupled_weight_decay"):
            sd["param_groups"][0].pop(key, None)
        opt.load_state_dict(sd)
        _train(lib, opt, params, 1, start=1)
        groups.append({k: v for k, v in opt.param_groups[0].items() if k != "params"})
    assert groups[0] == groups[1]


def test_state_dict_keeps_state_keyed_by_non_parameters():
    for lib in LIBS:
        params = _params(lib)
        opt = lib.optim.SGD(params, lr=0.1, momentum=0.9)
        _train(lib, opt, params, 1)
        sd = opt.state_dict()
        sd["state"]["extra"] = {"note": 1}
        opt.load_state_dict(sd)
        assert opt.state["extra"] == {"note": 1}
        assert opt.state_dict()["state"]["extra"] == {"note": 1}


def test_load_state_dict_keeps_param_names_of_the_optimizer():
    for lib in LIBS:
        p, q = _params(lib)[:2]
        opt = lib.optim.SGD([("a", p), ("b", q)], lr=0.1)
        sd = opt.state_dict()
        del sd["param_groups"][0]["param_names"]
        opt.load_state_dict(sd)
        assert opt.param_groups[0]["param_names"] == ["a", "b"]


def test_loading_an_old_float_step_makes_a_tensor_step():
    result = {}
    for lib in LIBS:
        params = _params(lib)
        opt = lib.optim.Adam(params, lr=0.1)
        _train(lib, opt, params, 2)
        sd = copy.deepcopy(opt.state_dict())
        for s in sd["state"].values():
            s["step"] = float(s["step"])
        opt.load_state_dict(sd)
        _train(lib, opt, params, 2, start=2)
        step = opt.state[params[0]]["step"]
        result[lib] = (params, float(step), str(step.dtype).replace("torch.", ""))
    _assert_params_equal(result[torch][0], result[pyad][0])
    assert result[torch][1:] == result[pyad][1:]


@pytest.mark.parametrize("kwargs,steps", [(dict(lr=0.5, max_iter=1), 1),
                                          (dict(lr=0.5, max_iter=1), 3),
                                          (dict(lr=0.5), 3),
                                          (dict(line_search_fn="strong_wolfe"), 2),
                                          (dict(lr=0.1, history_size=2, max_iter=6), 3)])
def test_lbfgs_state_holds_tensors_where_torch_does(kwargs, steps):
    kinds, values = [], []
    for lib in LIBS:
        params = _params(lib)
        opt = lib.optim.LBFGS(params, **kwargs)

        def closure():
            opt.zero_grad()
            loss = _loss(lib, params, 0)
            loss.backward()
            return loss

        for _ in range(steps):
            opt.step(closure)
        state = opt.state_dict()["state"][0]
        kinds.append({k: [type(x).__name__.replace("Variable", "Tensor") for x in v]
                      if isinstance(v, list) else type(v).__name__.replace("Variable", "Tensor")
                      for k, v in state.items() if k != "t"})
        values.append([float(x) for key in ("ro", "al") for x in state.get(key, [])
                       if x is not None] + [float(state["H_diag"])])
    assert kinds[0] == kinds[1]
    np.testing.assert_allclose(values[1], values[0], rtol=1e-8)


def test_lbfgs_resumes_from_a_torch_state_dict():
    tps = _params(torch)
    t_opt = torch.optim.LBFGS(tps, lr=0.5, history_size=4, max_iter=4)

    def closure(lib, params, opt, k):
        def run():
            opt.zero_grad()
            loss = _loss(lib, params, k)
            loss.backward()
            return loss
        return run

    for k in range(2):
        t_opt.step(closure(torch, tps, t_opt, k))
    pps = [pyad.nn.Parameter(pyad.tensor(p.detach().numpy().copy())) for p in tps]
    p_opt = pyad.optim.LBFGS(pps, lr=0.5, history_size=4, max_iter=4)
    p_opt.load_state_dict(_to_pyad(copy.deepcopy(t_opt.state_dict())))
    for k in range(2, 4):
        t_opt.step(closure(torch, tps, t_opt, k))
        p_opt.step(closure(pyad, pps, p_opt, k))
    _assert_params_equal(tps, pps)


# -- hooks -----------------------------------------------------------------------------------

def test_step_hooks_as_torch():
    logs = []
    for lib in LIBS:
        log = []
        p = _params(lib)[0]
        p.grad = lib.ones_like(p)
        opt = lib.optim.SGD([p], lr=0.1)
        handle = opt.register_step_pre_hook(
            lambda o, args, kwargs: log.append(("pre", len(args), sorted(kwargs))))
        opt.register_step_post_hook(
            lambda o, args, kwargs: log.append(("post", len(args), sorted(kwargs))))
        opt.step()
        opt.step(closure=None)
        handle.remove()
        opt.step()
        logs.append(log)
    assert logs[0] == logs[1] and len(logs[1]) == 5


def test_step_pre_hook_can_replace_arguments_or_must_return_a_pair():
    for lib in LIBS:
        p = _params(lib)[0]
        p.grad = lib.ones_like(p)
        opt = lib.optim.Adam([p], lr=0.1)
        handle = opt.register_step_pre_hook(
            lambda o, args, kwargs: ((args[0],), {"closure": lambda: 7.0}))
        assert opt.step() == 7.0
        handle.remove()
        opt.register_step_pre_hook(lambda o, args, kwargs: 5)
        with pytest.raises(RuntimeError, match="must return None or a tuple"):
            opt.step()


def test_state_dict_hooks_as_torch():
    results = []
    for lib in LIBS:
        log = []
        params = _params(lib)
        opt = lib.optim.AdamW(params, lr=0.1)
        opt.register_state_dict_pre_hook(lambda o: log.append("sd-pre"))
        opt.register_state_dict_post_hook(lambda o, sd: dict(sd, extra=1))
        sd = opt.state_dict()
        opt.register_load_state_dict_pre_hook(lambda o, sd: log.append(sorted(sd)))
        opt.register_load_state_dict_post_hook(lambda o: log.append("load-post1"))
        opt.register_load_state_dict_post_hook(lambda o: log.append("load-post0"),
                                               prepend=True)
        opt.load_state_dict(sd)
        results.append((sorted(sd), log))
    assert results[0] == results[1]


def test_global_step_hooks_as_torch():
    logs = []
    for lib in LIBS:
        module = importlib.import_module(lib.__name__ + ".optim.optimizer")
        log = []
        p = _params(lib)[0]
        p.grad = lib.ones_like(p)
        opt = lib.optim.RMSprop([p])
        h1 = module.register_optimizer_step_pre_hook(
            lambda o, a, k: log.append(type(o).__name__))
        h2 = module.register_optimizer_step_post_hook(lambda o, a, k: log.append("gpost"))
        try:
            opt.register_step_post_hook(lambda o, a, k: log.append("post"))
            opt.step()
        finally:
            h1.remove()
            h2.remove()
        opt.step()
        logs.append(log)
    assert logs[0] == logs[1] == [["RMSprop", "post", "gpost", "post"][i] for i in range(4)]


@pytest.mark.parametrize("name", ["Adam", "AdamW"])
@pytest.mark.parametrize("betas", [(0, 0.99), (0.9, 0.99), [0.8, 0.9], (0.5, 0)])
def test_adam_betas_must_be_floats_as_torch(name, betas):
    outcomes = [_outcome(lambda lib=lib: getattr(lib.optim, name)(
        _params(lib), betas=betas).param_groups[0]["betas"]) for lib in LIBS]
    assert outcomes[0] == outcomes[1]


@pytest.mark.parametrize("name", ["Adam", "AdamW"])
def test_adam_tensor_betas_give_torch_trajectory(name):
    result = {}
    for lib in LIBS:
        params = _params(lib)
        betas = (lib.tensor(0.9, dtype=lib.float64), lib.tensor(0.99, dtype=lib.float64))
        opt = getattr(lib.optim, name)(params, lr=0.01, betas=betas, amsgrad=True)
        _train(lib, opt, params, 4)
        result[lib] = params
    _assert_params_equal(result[torch], result[pyad])


@pytest.mark.parametrize("kwargs", [dict(foreach=True), dict(shape=(2,))])
def test_adam_tensor_beta_checks(kwargs):
    kwargs = dict(kwargs)
    shape = kwargs.pop("shape", ())
    outcomes = [_outcome(lambda lib=lib: lib.optim.Adam(
        _params(lib), betas=(lib.full(shape, 0.9, dtype=lib.float64), lib.tensor(0.99)),
        **kwargs)) for lib in LIBS]
    assert outcomes[0][0] == outcomes[1][0] == "error"
    assert outcomes[0] == outcomes[1]


@pytest.mark.parametrize("lr", [0.05, 0.01, 0.3])
@pytest.mark.parametrize("kwargs", [{}, dict(t0=1), dict(weight_decay=0.1, lambd=1e-3)])
def test_asgd_float32_tensor_lr_eta_as_torch(lr, kwargs):
    result = {}
    for lib in LIBS:
        params = _params(lib)
        opt = lib.optim.ASGD(params, lr=lib.tensor(lr, dtype=lib.float32), **kwargs)
        etas = []
        for k in range(6):
            _train(lib, opt, params, 1, start=k)
            etas.append(opt.state[params[0]]["eta"].item())
        result[lib] = (params, etas)
    _assert_params_equal(result[torch][0], result[pyad][0])
    assert result[pyad][1] == result[torch][1]


@pytest.mark.parametrize("name", ["SGD", "Adam", "RMSprop", "ASGD"])
def test_load_state_dict_shares_state_with_the_dict_as_torch(name):
    shared = []
    for lib in LIBS:
        params = _params(lib)
        opt = getattr(lib.optim, name)(params, lr=0.1, **({"momentum": 0.9}
                                                          if name == "SGD" else {}))
        _train(lib, opt, params, 2)
        clones = [lib.nn.Parameter(p.detach().clone()) for p in params]
        other = getattr(lib.optim, name)(clones, lr=0.5)
        other.load_state_dict(opt.state_dict())
        pairs = [(k, other.state[clones[0]][k] is v) for k, v in opt.state[params[0]].items()]
        # a float32 copy of float64 state is a new Variable, as torch's .to(dtype)
        low = [lib.nn.Parameter(p.detach().float()) for p in params]
        third = getattr(lib.optim, name)(low, lr=0.5)
        third.load_state_dict(opt.state_dict())
        pairs += [(k, third.state[low[0]][k] is v) for k, v in opt.state[params[0]].items()]
        shared.append(pairs)
    assert shared[0] == shared[1]


@pytest.mark.filterwarnings("ignore:Using backward\\(\\) with create_graph")
def test_zero_grad_keeps_a_graph_grad_object_as_torch():
    for lib in LIBS:
        p = lib.nn.Parameter(lib.tensor([1.0, -2.0], dtype=lib.float64))
        (p ** 3).sum().backward(create_graph=True)
        grad = p.grad
        lib.optim.SGD([p], lr=0.1).zero_grad(set_to_none=False)
        assert p.grad is grad and p.grad.grad_fn is None and not p.grad.requires_grad
        assert _np(p.grad).tolist() == [0.0, 0.0]


def test_adagrad_complex_initial_accumulator_in_both_parts_as_torch():
    result = {}
    for lib in LIBS:
        rng = np.random.RandomState(3)
        values = rng.randn(2, 3) + 1j * rng.randn(2, 3)
        p = lib.nn.Parameter(lib.tensor(values))
        opt = lib.optim.Adagrad([p], lr=0.1, initial_accumulator_value=0.3, lr_decay=0.1)
        initial = _np(opt.state[p]["sum"]).copy()
        for k in range(4):
            opt.zero_grad()
            target = lib.tensor(np.full((2, 3), 0.5 - 0.25j * k))
            ((p - target).abs() ** 3).sum().backward()
            opt.step()
        result[lib] = (initial, _np(p), _np(opt.state[p]["sum"]))
    for got, want in zip(result[pyad], result[torch]):
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)


def test_adagrad_added_group_starts_from_the_defaults_accumulator_as_torch():
    sums = []
    for lib in LIBS:
        p, q = _params(lib)[:2]
        opt = lib.optim.Adagrad([p], initial_accumulator_value=0.1)
        opt.add_param_group({"params": [q], "initial_accumulator_value": 0.7})
        assert len(opt.state) == 1
        _train(lib, opt, [p, q], 1)
        sums.append(_np(opt.state[q]["sum"]))
    np.testing.assert_allclose(sums[1], sums[0], rtol=1e-12)


@pytest.mark.parametrize("name", ["SGD", "Adam", "Adagrad", "Adadelta", "Adamax", "NAdam",
                                  "RAdam", "RMSprop", "Rprop", "ASGD"])
def test_a_tensor_lr_with_complex_parameters_as_torch(name):
    result = {}
    for lib in LIBS:
        rng = np.random.RandomState(4)
        p = lib.nn.Parameter(lib.tensor(rng.randn(3, 2) + 1j * rng.randn(3, 2)))
        opt = getattr(lib.optim, name)([p], lr=lib.tensor(0.01, dtype=lib.float64))
        for k in range(4):
            opt.zero_grad()
            target = lib.tensor(np.full((3, 2), 0.5 - 0.25j * k))
            ((p - target).abs() ** 3).sum().backward()
            opt.step()
        result[lib] = _np(p)
    np.testing.assert_allclose(result[pyad], result[torch], rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("kwargs", [{}, dict(line_search_fn="strong_wolfe")])
def test_lbfgs_tensor_lr_as_torch(kwargs):
    result = {}
    for lib in LIBS:
        params = _params(lib)
        opt = lib.optim.LBFGS(params, lr=lib.tensor(0.5, dtype=lib.float64), max_iter=5,
                              **kwargs)

        def closure():
            opt.zero_grad()
            loss = _loss(lib, params, 0)
            loss.backward()
            return loss

        for _ in range(2):
            opt.step(closure)
        t = opt.state[params[0]]["t"]
        result[lib] = (params, type(t).__name__.replace("Variable", "Tensor"), float(t))
    _assert_params_equal(result[torch][0], result[pyad][0])
    assert result[torch][1:] == result[pyad][1:]


@pytest.mark.parametrize("make", [
    lambda S, o: S.StepLR(o, 2), lambda S, o: S.LambdaLR(o, lambda e: 0.5 ** e),
    lambda S, o: S.MultiplicativeLR(o, lambda e: 0.5), lambda S, o: S.CosineAnnealingLR(o, 5),
    lambda S, o: S.CyclicLR(o, 0.1, 1.0), lambda S, o: S.OneCycleLR(o, 1.0, total_steps=10),
    lambda S, o: S.CosineAnnealingWarmRestarts(o, 3), lambda S, o: S.ExponentialLR(o, 0.5)])
def test_a_group_added_after_the_scheduler_as_torch(make):
    outcomes = []
    for lib in LIBS:
        p, q = _params(lib)[:2]
        opt = lib.optim.SGD([p], lr=0.1, momentum=0.9)
        sched = make(lib.optim.lr_scheduler, opt)
        opt.add_param_group({"params": [q]})

        def run():
            for _ in range(2):
                opt.step()
                sched.step()
            return [float(g["lr"]) for g in opt.param_groups]

        outcomes.append(_outcome(run))
    assert outcomes[0] == outcomes[1]
