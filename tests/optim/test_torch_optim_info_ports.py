"""Ports of the OptimizerInfo-driven tests of pytorch/pytorch test/optim/test_optim.py
(TestOptimRenewed) that tests/optim/test_torch_optim_ports.py does not already carry:
test_foreach_matches_forloop, test_complex, test_can_load_older_state_dict, test_tensor_lr,
test_empty_grad and test_state_dict_with_cuda_params, over one table of constructor
kwargs taken from torch/testing/_internal/common_optimizers.py (optim_inputs).

Every case runs the same parameters (copied with numpy) and the same deterministic
gradients in torch 2.13 and pyad, and compares the parameters and every state_dict entry
with torch's float64 tolerances (assertEqual: rtol=1e-7, atol=1e-7).

Left out of the table: capturable=True (torch refuses it for CPU parameters),
differentiable=True (torch's step then needs non-leaf parameters; tested elsewhere),
fused=True (tests/optim/test_torch_probe_round.py covers pyad's fused path)."""
import copy
import inspect

import numpy as np
import pytest

import pyad

torch = pytest.importorskip("torch")

RTOL = ATOL = 1e-7  # torch's assertEqual tolerances for float64
TOLS = {np.float64: (1e-7, 1e-7), np.float32: (1.3e-6, 1e-5)}  # torch's, per dtype

TABLE = {
    "SGD": [dict(), dict(lr=0.01), dict(lr=0.01, momentum=0.9),
            dict(lr=0.01, momentum=0.9, dampening=0.5),
            dict(lr=0.01, momentum=0.9, weight_decay=0.1),
            dict(lr=0.01, momentum=0.9, nesterov=True, weight_decay=0.1),
            dict(lr=0.01, weight_decay=0.1, maximize=True)],
    "Adam": [dict(), dict(lr=0.01), dict(weight_decay=0.1), dict(weight_decay=0.1, maximize=True),
             dict(weight_decay=0.1, amsgrad=True), dict(weight_decay=0.1, amsgrad=True,
                                                        maximize=True),
             dict(weight_decay=0.1, decoupled_weight_decay=True)],
    "AdamW": [dict(), dict(lr=0.01), dict(weight_decay=0.1), dict(weight_decay=0.1, maximize=True),
              dict(weight_decay=0.1, amsgrad=True), dict(amsgrad=True, maximize=True)],
    "Adamax": [dict(), dict(lr=0.1), dict(weight_decay=0.1), dict(maximize=True),
               dict(weight_decay=0.1, maximize=True)],
    "Adadelta": [dict(), dict(lr=0.01), dict(rho=0.95, weight_decay=0.9),
                 dict(weight_decay=0.1, maximize=True)],
    "Adagrad": [dict(), dict(weight_decay=0.1), dict(weight_decay=0.1, maximize=True),
                dict(lr=0.1), dict(initial_accumulator_value=0.1, weight_decay=0.1),
                dict(lr=0.1, lr_decay=0.5, weight_decay=0.1)],
    "RMSprop": [dict(), dict(lr=0.01), dict(weight_decay=0.1), dict(weight_decay=0.1,
                                                                    centered=True),
                dict(weight_decay=0.1, centered=True, momentum=0.1),
                dict(weight_decay=0.1, centered=True, momentum=0.1, maximize=True)],
    "Rprop": [dict(), dict(lr=2e-4), dict(etas=(0.5, 1.5)), dict(step_sizes=(2e-6, 42)),
              dict(maximize=True)],
    "NAdam": [dict(), dict(lr=0.01), dict(weight_decay=0.1), dict(weight_decay=0.1,
                                                                  momentum_decay=6e-3),
              dict(weight_decay=0.1, momentum_decay=6e-3, decoupled_weight_decay=True),
              dict(weight_decay=0.1, maximize=True)],
    "RAdam": [dict(), dict(lr=2e-3), dict(eps=1e-6), dict(weight_decay=0.1),
              dict(weight_decay=0.1, decoupled_weight_decay=True),
              dict(weight_decay=0.1, maximize=True)],
    "ASGD": [dict(), dict(lr=0.02), dict(t0=100), dict(weight_decay=0.1),
             dict(weight_decay=0.1, maximize=True)],
    "Adafactor": [dict(), dict(lr=0.01), dict(weight_decay=0.1), dict(beta2_decay=-1.0),
                  dict(weight_decay=0.1, maximize=True)],
    "LBFGS": [dict(), dict(lr=0.01), dict(tolerance_grad=1e-6),
              dict(line_search_fn="strong_wolfe")],
}
for _name, _kws in TABLE.items():
    # torch's optim_inputs also pass capturable=False / differentiable=False explicitly
    _flags = {k: False for k in ("capturable", "differentiable")
              if k in inspect.signature(getattr(torch.optim, _name).__init__).parameters}
    if _flags:
        _kws.append(dict(_kws[-1], **_flags))
NO_FOREACH = {"LBFGS"}
NO_COMPLEX = {"Adafactor"}  # torch raises for complex parameters (tested in test_optimizers)


def _id(name, kw):
    return "%s-%s" % (name, "-".join("%s=%s" % i for i in sorted(kw.items())) or "default")


CASES = [pytest.param(n, dict(kw, **({} if n in NO_FOREACH else dict(foreach=f))),
                      id=_id(n, kw) + ("" if n in NO_FOREACH else "-foreach=%s" % f))
         for n, kws in TABLE.items() for kw in kws for f in (False, True)
         if not (n in NO_FOREACH and f)]
SHAPES = [(3, 4), (5,), ()]


def _np(x):
    if isinstance(x, torch.Tensor):
        return x.detach().numpy()
    return np.asarray(x.detach().data)


def _values(shapes, seed, dtype=np.float64):
    rng = np.random.RandomState(seed)
    out = [rng.randn(*s) for s in shapes]
    if np.dtype(dtype).kind == "c":
        out = [v + 1j * rng.randn(*v.shape) for v in out]
    return [np.asarray(v, dtype=dtype) for v in out]


def _run(lib, name, kwargs, steps=5, shapes=SHAPES, dtype=np.float64, params=None):
    """Same starting values, same gradients (or for LBFGS the same closure) in both libs."""
    if params is None:
        params = [lib.nn.Parameter(lib.tensor(v)) for v in _values(shapes, 0, dtype)]
    opt = getattr(lib.optim, name)(params, **kwargs)
    targets = [lib.tensor(v) for v in _values(shapes, 7, dtype)]
    for k in range(steps):
        grads = _values(shapes, 100 + k, dtype)
        if name == "LBFGS":
            def closure():
                opt.zero_grad()
                loss = sum(((p - t).abs() ** 2).sum() for p, t in zip(params, targets))
                loss.backward()
                return loss
            opt.step(closure)
        else:
            for p, g in zip(params, grads):
                p.grad = lib.tensor(g * (k % 3 + 1))
            opt.step()
    return opt, params


def _same(p, t, what, tol=(RTOL, ATOL)):
    """pyad value ``p`` equals torch value ``t`` (tensors, numbers, lists, tuples, dicts)."""
    if isinstance(t, torch.Tensor):
        assert isinstance(p, pyad.Variable), (what, type(p))
        assert str(p.dtype) == str(t.dtype).replace("torch.", ""), (what, p.dtype, t.dtype)
        assert tuple(p.shape) == tuple(t.shape), what
        np.testing.assert_allclose(_np(p), _np(t), rtol=tol[0], atol=tol[1], err_msg=what)
    elif isinstance(t, dict):
        assert sorted(p) == sorted(t), (what, sorted(p), sorted(t))
        for key in t:
            _same(p[key], t[key], "%s[%r]" % (what, key), tol)
    elif isinstance(t, (list, tuple)):
        assert type(p) is type(t) and len(p) == len(t), (what, p, t)
        for i, (a, b) in enumerate(zip(p, t)):
            _same(a, b, "%s[%d]" % (what, i), tol)
    elif isinstance(t, float):
        assert p == pytest.approx(t, rel=tol[0], abs=tol[1]), (what, p, t)
    else:
        assert p == t, (what, p, t)


def _same_run(popt, pparams, topt, tparams, tol=(RTOL, ATOL)):
    for i, (p, t) in enumerate(zip(pparams, tparams)):
        np.testing.assert_allclose(_np(p), _np(t), rtol=tol[0], atol=tol[1],
                                   err_msg="param %d" % i)
    _same(popt.state_dict(), topt.state_dict(), "state_dict", tol)


@pytest.mark.parametrize("dtype", [np.float64, np.float32], ids=["float64", "float32"])
@pytest.mark.parametrize("name,kwargs", CASES)
def test_foreach_matches_forloop(name, kwargs, dtype):
    # torch compares its foreach and for-loop paths with each other; here each path of
    # pyad is compared with the same path of torch: parameters and every state_dict entry
    if dtype is np.float32 and name == "LBFGS" and kwargs.get("lr") == 0.01:
        # 100 tiny fixed steps: al[97] is float32 cancellation noise (|al| ~ 7e-6, its
        # sign set by the dot product's summation order, NumPy's and torch's differ)
        pytest.skip("float32 cancellation noise in LBFGS's al (summation order)")
    tol = TOLS[dtype]
    _same_run(*_run(pyad, name, kwargs, dtype=dtype), *_run(torch, name, kwargs, dtype=dtype),
              tol=tol)
    if "foreach" in kwargs and kwargs["foreach"]:
        # and pyad's foreach run equals pyad's for-loop run, as in torch's test
        a_opt, a = _run(pyad, name, kwargs, dtype=dtype)
        b_opt, b = _run(pyad, name, dict(kwargs, foreach=False), dtype=dtype)
        for x, y in zip(a, b):
            np.testing.assert_allclose(_np(x), _np(y), rtol=tol[0], atol=tol[1])


COMPLEX = [c for c in CASES if c.values[0] not in NO_COMPLEX]


@pytest.mark.parametrize("name,kwargs", COMPLEX)
def test_complex(name, kwargs):
    # a complex parameter steps exactly as its view_as_real twin with the view_as_real
    # gradient; and both follow torch's complex run
    for lib in (pyad, torch):
        cvals = _values(SHAPES[:2], 0, np.complex128)
        cparams = [lib.nn.Parameter(lib.tensor(v)) for v in cvals]
        rparams = [lib.nn.Parameter(lib.view_as_real(lib.tensor(v)).clone()) for v in cvals]
        copt = getattr(lib.optim, name)(cparams, **kwargs)
        ropt = getattr(lib.optim, name)(rparams, **kwargs)
        targets = [lib.tensor(v) for v in _values(SHAPES[:2], 7, np.complex128)]
        for k in range(3):
            if name == "LBFGS":
                def closure(params, opt, real):
                    def f():
                        opt.zero_grad()
                        loss = 0
                        for p, t in zip(params, targets):
                            d = (lib.view_as_complex(p) if real else p) - t
                            loss = loss + (d.abs() ** 2).sum()
                        loss.backward()
                        return loss
                    return f
                copt.step(closure(cparams, copt, False))
                ropt.step(closure(rparams, ropt, True))
            else:
                for c, r, g in zip(cparams, rparams, _values(SHAPES[:2], 100 + k,
                                                               np.complex128)):
                    c.grad = lib.tensor(g)
                    r.grad = lib.view_as_real(lib.tensor(g)).clone()
                copt.step()
                ropt.step()
            for c, r in zip(cparams, rparams):
                np.testing.assert_allclose(_np(lib.view_as_real(c)), _np(r), rtol=RTOL,
                                           atol=ATOL)
        if lib is pyad:
            pyad_c = [_np(c) for c in cparams]
    for p, t in zip(pyad_c, cparams):
        np.testing.assert_allclose(p, _np(t), rtol=RTOL, atol=ATOL)


NEW_FLAGS = ["maximize", "foreach", "fused", "differentiable", "capturable"]


@pytest.mark.parametrize("name,kwargs", CASES)
def test_can_load_older_state_dict(name, kwargs):
    # a state_dict saved before the flags existed loads (the flags take their defaults)
    # and the optimizer still steps, as torch's
    out = []
    for lib in (pyad, torch):
        opt, params = _run(lib, name, kwargs, steps=3)
        old = copy.deepcopy(opt.state_dict())
        for group in old["param_groups"]:
            for flag in NEW_FLAGS:
                # torch 2.13's Adafactor reads group["maximize"] without a default
                # (KeyError in torch itself): it keeps that flag
                if not (name == "Adafactor" and flag == "maximize"):
                    group.pop(flag, None)
        fresh = [lib.nn.Parameter(lib.tensor(_np(p).copy())) for p in params]
        opt2 = getattr(lib.optim, name)(fresh, **kwargs)
        opt2.load_state_dict(old)
        for p, g in zip(fresh, _values(SHAPES, 5)):
            p.grad = lib.tensor(g)
        if name == "LBFGS":
            opt2.step(lambda: sum((p ** 2).sum() for p in fresh))
        else:
            opt2.step()
        out.append((opt2, fresh))
    _same_run(*out[0], *out[1])


TENSOR_LR = [c for c in CASES if c.values[0] not in ("LBFGS",)
             and c.values[1].get("foreach") is False]


@pytest.mark.parametrize("name,kwargs", TENSOR_LR)
def test_tensor_lr(name, kwargs):
    # a 0-d Variable lr steps as the same float lr (torch's test_tensor_lr), and as torch's
    lr = kwargs.get("lr", getattr(torch.optim, name)([torch.zeros(1)]).defaults["lr"])
    base_opt, base = _run(pyad, name, kwargs)
    popt, pparams = _run(pyad, name, dict(kwargs, lr=pyad.tensor(lr)))
    topt, tparams = _run(torch, name, dict(kwargs, lr=torch.tensor(lr)))
    for p, b, t in zip(pparams, base, tparams):
        np.testing.assert_allclose(_np(p), _np(b), rtol=RTOL, atol=ATOL)
        np.testing.assert_allclose(_np(p), _np(t), rtol=RTOL, atol=ATOL)
    _same(popt.state_dict(), topt.state_dict(), "state_dict")


EMPTY = [c for c in CASES if c.values[0] not in ("LBFGS", "Adafactor")]


@pytest.mark.parametrize("name,kwargs", EMPTY)
def test_empty_grad(name, kwargs):
    # zero-size parameters next to a normal one step as in torch: the empty one stays
    # empty and gets torch's state entries (torch's Adafactor divides by numel: left out)
    shapes = [(0, 3), (4,), (0,)]
    _same_run(*_run(pyad, name, kwargs, shapes=shapes), *_run(torch, name, kwargs,
                                                               shapes=shapes))


@pytest.mark.skipif(not (pyad.cuda.is_available() and torch.cuda.is_available()),
                    reason="needs CUDA in both pyad and torch")
@pytest.mark.parametrize("name,kwargs", [c for c in CASES if c.values[0] != "LBFGS"][:20])
def test_state_dict_with_cuda_params(name, kwargs):
    # a state_dict of CPU parameters loads onto CUDA parameters and steps as on the CPU
    cpu_opt, cpu = _run(pyad, name, kwargs, steps=3)
    dev = [pyad.nn.Parameter(pyad.tensor(_np(p).copy(), device="cuda")) for p in cpu]
    dev_opt = getattr(pyad.optim, name)(dev, **kwargs)
    dev_opt.load_state_dict(copy.deepcopy(cpu_opt.state_dict()))
    for p, q, g in zip(cpu, dev, _values(SHAPES, 9)):
        p.grad, q.grad = pyad.tensor(g), pyad.tensor(g, device="cuda")
    cpu_opt.step()
    dev_opt.step()
    for p, q in zip(cpu, dev):
        np.testing.assert_allclose(_np(q.cpu()), _np(p), rtol=RTOL, atol=ATOL)
