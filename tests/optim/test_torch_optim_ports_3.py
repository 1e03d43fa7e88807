"""Third round of ports of PyTorch's own optimizer tests (pytorch/pytorch test/test_optim.py
``TestOptimRenewed``, test/optim/test_optim.py ``TestDifferentiableOptimizer`` and
``TestSGDComplexForeach``, test/optim/test_swa_utils.py ``TestSWAUtils``): the tests the
earlier port files (test_torch_optim_ports.py, _2.py, test_torch_optim_info_ports.py,
test_torch_lr_scheduler_ports.py) do not carry yet, under torch's test names.

Every case runs the same code on torch 2.13 and on pyad from the same numpy draws (initial
weights, gradients, noise): torch's own assertions are checked on both runs and pyad's
values are compared with torch's at torch's assertEqual tolerance for the dtype.

Covered:
- ``TestDifferentiableOptimizer``: the multi-step hyper-parameter tests
  (``test_adam_differentiable_lr/weight_decay/betas/all_hyperparams``, the AdamW four,
  ``test_differentiable_lr/weight_decay/weight_decay_and_lr`` for SGD), forward half: two
  steps with tensor lr / weight_decay / betas give torch's meta-loss, parameter and state;
  plus ``test_tensor_weight_decay`` over 11 optimizers (the fix these tests exposed).
- ``TestSGDComplexForeach.test_complex_foreach_matches_single`` (the eager part).
- ``TestOptimRenewed._test_derived_optimizers`` (``test_foreach_matches_forloop``): a
  layer frozen at step 3 and unfrozen at 5, all gradients None at step 2, a 0-d parameter
  last; pyad's foreach and for-loop runs both follow torch's for-loop run.
- ``TestSWAUtils``: every test (``test_averaged_model_all_devices``, ``_state_dict``,
  ``_default_avg_fn_picklable``, ``_exponential``, ``test_update_bn_dnn/_cnn``,
  ``test_bn_update_eval_momentum``), with the model weights copied from torch into pyad.

Left out: the gradcheck half of the differentiable tests (docs/optim.md: pyad accepts
``differentiable=True`` and ignores it, its step records no graph); CUDA, multi-GPU
(``test_mixed_device_dtype``), MPS, meta-device, large-tensor and peak-memory tests; sparse
gradients (``test_rosenbrock_sparse``: pyad has no sparse layout); ``torch.compile`` (the
compiled half of ``test_complex_foreach_matches_single``);
``test_optim_infos_do_not_specify_global_cliquey_kwargs`` (checks torch's test table, not
the optimizers). The rest of TestOptimRenewed and test_lrscheduler.py is already in the
earlier port files. Sizes cut for the time budget: ``update_bn`` runs on 40 samples
instead of 100 and its loaders are not shuffled, so that the pyad and torch runs see the
same batches (the running mean is order-independent, torch's check still holds)."""
import copy
import itertools
import pickle

import numpy as np
import pytest

import pyad

torch = pytest.importorskip("torch")

pytestmark = pytest.mark.filterwarnings(
    "ignore:Using backward\\(\\) with create_graph=True")

LIBS = pytest.mark.parametrize("lib", [torch, pyad], ids=["torch", "pyad"])
F64 = dict(rtol=1e-7, atol=1e-7)      # torch's assertEqual tolerances, float64
F32 = dict(rtol=1.3e-6, atol=1e-5)    # float32 / complex64


def _np(x):
    if isinstance(x, torch.Tensor):
        return x.detach().resolve_conj().numpy().copy()
    return np.array(x.detach().data)


def _is_var(x):
    return isinstance(x, (torch.Tensor, pyad.Variable))


def _close(a, b, tol=F64, msg=""):
    np.testing.assert_allclose(_np(a) if _is_var(a) else a, _np(b) if _is_var(b) else b,
                               err_msg=msg, **tol)


# =================================================== TestDifferentiableOptimizer (multistep)


def _multistep(lib, params, grad, state, opt_class, kwargs):
    """torch's ``_multistep_backprop_diff_hyperparams_fn`` up to the meta-loss, on ``lib``:
    two steps of MSE on ``x * params.sum()`` with tensor hyper-parameters."""
    params = params.clone()
    params.grad = grad
    state = {k: v.clone() if _is_var(v) else v for k, v in state.items()}
    kwargs = dict(kwargs)
    if "beta1" in kwargs:
        kwargs["betas"] = (kwargs.pop("beta1"), kwargs.pop("beta2"))
    opt = opt_class([params], **kwargs)
    opt.state[params].update(state)
    x = lib.tensor([1.0], dtype=lib.float64)
    y = lib.tensor([2.0], dtype=lib.float64)
    for _ in range(2):
        loss = lib.nn.MSELoss()(x * lib.sum(params), y)
        loss.backward(inputs=(params,), create_graph=lib is torch)
        opt.step()
        opt.zero_grad()
    return loss, params, opt.state[params]


MULTISTEP = {
    # torch test: (optimizer, tensor hyper-parameters, state entries)
    "test_adam_differentiable_lr": ("Adam", dict(lr=0.001), "adam"),
    "test_adam_differentiable_weight_decay": ("Adam", dict(weight_decay=0.999), "adam"),
    "test_adam_differentiable_betas": ("Adam", dict(beta1=0.9, beta2=0.999, lr=[0.001]),
                                       "adam"),
    "test_adam_differentiable_all_hyperparams": (
        "Adam", dict(lr=0.001, weight_decay=0.999, beta1=0.9, beta2=0.999), "adam"),
    "test_adamw_differentiable_lr": ("AdamW", dict(lr=0.001), "adam"),
    "test_adamw_differentiable_weight_decay": ("AdamW", dict(weight_decay=0.999), "adam"),
    "test_adamw_differentiable_betas": ("AdamW", dict(beta1=0.9, beta2=0.999), "adam"),
    "test_adamw_differentiable_all_hyperparams": (
        "AdamW", dict(lr=0.001, weight_decay=0.999, beta1=0.9, beta2=0.999), "adam"),
    "test_differentiable_lr": ("SGD", dict(lr=0.001), "sgd"),
    "test_differentiable_weight_decay": ("SGD", dict(weight_decay=0.9), "sgd"),
    "test_differentiable_weight_decay_and_lr": ("SGD", dict(weight_decay=0.9, lr=0.001),
                                                "sgd"),
}


def _multistep_inputs(lib, hyper, kind, differentiable):
    rng = np.random.RandomState(0)
    f64 = lib.float64
    rg = lib is torch
    params = lib.tensor(rng.rand(10), dtype=f64, requires_grad=True)
    grad = lib.tensor(rng.rand(10), dtype=f64, requires_grad=rg)
    if kind == "adam":
        state = {"step": lib.tensor(10.0, dtype=f64)}
        for k in ("exp_avg", "exp_avg_sq", "max_exp_avg_sq"):
            state[k] = lib.tensor(rng.rand(10), dtype=f64, requires_grad=rg)
    else:
        state = {"momentum_buffer": lib.tensor(rng.rand(10), dtype=f64, requires_grad=rg)}
    kwargs = {k: lib.tensor(v, dtype=f64, requires_grad=rg) for k, v in hyper.items()}
    kwargs["differentiable"] = differentiable
    return params, grad, state, kwargs


@pytest.mark.parametrize("test", sorted(MULTISTEP))
def test_differentiable_hyperparams(test):
    """The forward half of the torch test named ``test``: two steps with tensor
    hyper-parameters (lr, weight_decay, betas) give torch's meta-loss, parameter and
    state. torch's gradcheck through the steps is left out: docs/optim.md documents
    ``differentiable=True`` as accepted and ignored by pyad (its step records no graph);
    the pyad run with ``differentiable=True`` must still take torch's step."""
    name, hyper, kind = MULTISTEP[test]
    t = _multistep(torch, *_multistep_inputs(torch, hyper, kind, True)[:2],
                   _multistep_inputs(torch, hyper, kind, True)[2], torch.optim.__dict__[name],
                   _multistep_inputs(torch, hyper, kind, True)[3])
    pin = _multistep_inputs(pyad, hyper, kind, True)
    p = _multistep(pyad, pin[0], pin[1], pin[2], pyad.optim.__dict__[name], pin[3])
    _close(p[0], t[0], msg="meta-loss")
    _close(p[1], t[1], msg="params")
    assert sorted(p[2]) == sorted(t[2])
    for k in t[2]:
        _close(p[2][k], t[2][k], msg=k)


TENSOR_WD = ["SGD", "Adam", "AdamW", "Adamax", "Adagrad", "Adadelta", "RMSprop", "NAdam",
             "RAdam", "ASGD", "Adafactor"]


@pytest.mark.parametrize("name", TENSOR_WD)
def test_tensor_weight_decay(name):
    """torch's differentiable tests pass weight_decay as a 0-d tensor; torch's ordinary
    step takes it too. pyad follows torch's trajectory and state (it crashed or took a
    wrong step for most optimizers before reading the tensor as a number)."""
    out = {}
    for lib in (torch, pyad):
        rng = np.random.RandomState(0)
        p = lib.nn.Parameter(lib.tensor(rng.rand(3, 4)))
        opt = getattr(lib.optim, name)([p], lr=0.1,
                                       weight_decay=lib.tensor(0.3, dtype=lib.float64))
        for _ in range(3):
            p.grad = lib.tensor(rng.rand(3, 4))
            opt.step()
        out[lib] = (p, opt.state[p])
    (p, ps), (t, ts) = out[pyad], out[torch]
    _close(p, t)
    assert sorted(ps) == sorted(ts)
    for k in ts:
        if _is_var(ts[k]):
            _close(ps[k], ts[k], msg=k)


# ======================================================== TestSGDComplexForeach (eager part)


@pytest.mark.parametrize("kwargs", [{}, {"momentum": 0.9}, {"momentum": 0.9, "nesterov": True},
                                    {"weight_decay": 0.1}, {"maximize": True}],
                         ids=["plain", "momentum", "nesterov", "weight_decay", "maximize"])
def test_complex_foreach_matches_single(kwargs):
    """foreach and for-loop SGD agree on a complex64 parameter (torch's assertion), and
    both agree with torch's run on the same draws."""
    rng = np.random.RandomState(0)
    init = (rng.randn(3, 2) + 1j * rng.randn(3, 2)).astype(np.complex64)
    grads = [(rng.randn(3, 2) + 1j * rng.randn(3, 2)).astype(np.complex64) for _ in range(4)]
    out = {}
    for lib in (torch, pyad):
        for foreach in (False, True):
            p = lib.nn.Parameter(lib.tensor(init.copy()))
            opt = lib.optim.SGD([p], lr=0.1, foreach=foreach, dampening=0.0, **kwargs)
            for g in grads:
                p.grad = lib.tensor(g.copy())
                opt.step()
            out[lib, foreach] = (p, opt.state[p].get("momentum_buffer"))
    for lib in (torch, pyad):
        _close(out[lib, True][0], out[lib, False][0], F32)
    for foreach in (False, True):
        p, b = out[pyad, foreach]
        tp, tb = out[torch, foreach]
        assert p.dtype == pyad.complex64
        _close(p, tp, F32)
        assert (b is None) == (tb is None)
        if tb is not None:
            _close(b, tb, F32)


# ================================================================ TestSWAUtils


def _copy_weights(tmod, pmod):
    """pyad module ``pmod`` gets torch module ``tmod``'s parameters and buffers."""
    for (tn, t), (pn, p) in zip(itertools.chain(tmod.named_parameters(), tmod.named_buffers()),
                                itertools.chain(pmod.named_parameters(), pmod.named_buffers())):
        assert tn == pn
        p.data = _np(t).copy()


def _swa_net(lib, kind):
    nn = lib.nn
    if kind == "big":
        return nn.Sequential(nn.Conv2d(1, 5, kernel_size=3), nn.ReLU(),
                             nn.MaxPool2d(kernel_size=2), nn.BatchNorm2d(5, momentum=0.3),
                             nn.Conv2d(5, 2, kernel_size=3), nn.ReLU(), nn.Linear(5, 5),
                             nn.ReLU(), nn.Linear(5, 10))
    if kind == "bn":
        return nn.Sequential(nn.Conv2d(1, 5, kernel_size=3), nn.BatchNorm2d(5, momentum=0.3),
                             nn.Linear(5, 10))
    return nn.Sequential(nn.Conv2d(1, 5, kernel_size=3), nn.Linear(5, 10))


def _swa_pair(kind):
    torch.manual_seed(0)
    tnet = _swa_net(torch, kind)
    pnet = _swa_net(pyad, kind)
    _copy_weights(tnet, pnet)
    return {torch: tnet, pyad: pnet}


@pytest.mark.parametrize("ema", [True, False])
def test_averaged_model_all_devices(ema):
    """torch's _run_averaged_steps on CPU: the averaged parameters equal the closed form
    (EMA with decay 0.999 or the plain mean over 10 updates), in both libraries."""
    nets = _swa_pair("big")
    decay, n = 0.999, 10
    res = {}
    for lib, net in nets.items():
        su = lib.optim.swa_utils
        fn = su.get_ema_multi_avg_fn(decay) if ema else su.get_swa_multi_avg_fn()
        avg = su.AveragedModel(net, device=lib.device("cpu"), multi_avg_fn=fn)
        expected = [np.zeros(tuple(p.shape)) for p in net.parameters()]
        rng = np.random.RandomState(1)
        for i in range(n):
            for p, e in zip(net.parameters(), expected):
                p.detach().add_(lib.tensor(rng.randn(*p.shape).astype(np.float32)))
                if ema:
                    e += _np(p) * decay ** (n - i - 1) * ((1 - decay) if i > 0 else 1.0)
                else:
                    e += _np(p) / n
            avg.update_parameters(net)
        for e, q in zip(expected, avg.parameters()):
            _close(q, e, F32)
            assert q.device.type == "cpu"
        assert avg.n_averaged.device.type == "cpu"
        res[lib] = avg
    for q, t in zip(res[pyad].parameters(), res[torch].parameters()):
        _close(q, t, F32)
    assert int(res[pyad].n_averaged) == int(res[torch].n_averaged) == n


@LIBS
def test_averaged_model_state_dict(lib):
    net = _swa_pair("plain")[lib]
    su = lib.optim.swa_utils
    a, b = su.AveragedModel(net), su.AveragedModel(net)
    rng = np.random.RandomState(2)
    for _ in range(10):
        for p in net.parameters():
            p.detach().add_(lib.tensor(rng.randn(*p.shape).astype(np.float32)))
        a.update_parameters(net)
    b.load_state_dict(a.state_dict())
    for p, q in zip(a.parameters(), b.parameters()):
        _close(p, q, F32)
    assert a.n_averaged == b.n_averaged


@LIBS
def test_averaged_model_default_avg_fn_picklable(lib):
    nn = lib.nn
    net = nn.Sequential(nn.Conv2d(1, 5, kernel_size=3), nn.BatchNorm2d(5), nn.Linear(5, 5))
    pickle.dumps(lib.optim.swa_utils.AveragedModel(net))


@pytest.mark.parametrize("use_buffers", [True, False])
@pytest.mark.parametrize("use_multi_avg_fn", [True, False])
def test_averaged_model_exponential(use_multi_avg_fn, use_buffers):
    nets = _swa_pair("bn")
    decay = 0.9
    res = {}
    for lib, net in nets.items():
        su = lib.optim.swa_utils
        if use_multi_avg_fn:
            avg = su.AveragedModel(net, multi_avg_fn=su.get_ema_multi_avg_fn(decay),
                                   use_buffers=use_buffers)
        else:
            avg = su.AveragedModel(net, avg_fn=lambda a, p, n: decay * a + (1 - decay) * p,
                                   use_buffers=use_buffers)
        tracked = list(itertools.chain(net.parameters(), net.buffers())) if use_buffers \
            else list(net.parameters())
        tracked = [p for p in tracked if tuple(p.shape) != ()]
        expected = None
        rng = np.random.RandomState(3)
        for i in range(10):
            new = []
            for k, p in enumerate(tracked):
                p.detach().add_(lib.tensor(rng.randn(*p.shape).astype(np.float32)))
                new.append(_np(p) if i == 0 else expected[k] * decay + _np(p) * (1 - decay))
            avg.update_parameters(net)
            expected = new
        if use_buffers:
            got = [p for p in itertools.chain(avg.module.parameters(), avg.module.buffers())
                   if tuple(p.shape) != ()]
        else:
            got = list(avg.parameters())
            for b, q in zip(net.buffers(), avg.module.buffers()):
                _close(q, b, F32)
        for e, q in zip(expected, got):
            _close(q, e, F32)
        res[lib] = avg
    for q, t in zip(res[pyad].state_dict().values(), res[torch].state_dict().values()):
        _close(q, t, F32)


class _BNNet:
    """torch's SWATestDNN / SWATestCNN, built on ``lib``."""

    @staticmethod
    def make(lib, cnn):
        nn = lib.nn

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.n_features = 10 if cnn else 100
                self.fc1 = nn.Conv2d(3, 10, kernel_size=3, padding=1) if cnn else nn.Linear(5, 100)
                self.bn = nn.BatchNorm2d(10, momentum=0.3) if cnn else nn.BatchNorm1d(100)

            def compute_preactivation(self, x):
                return self.fc1(x)

            def forward(self, x):
                return self.bn(self.fc1(x))

        return Net()


def _update_bn_case(cnn):
    rng = np.random.RandomState(4)
    x = rng.rand(*((40, 3, 5, 5) if cnn else (40, 5))).astype(np.float32)
    y = rng.rand(40).astype(np.float32)
    torch.manual_seed(0)
    nets = {torch: _BNNet.make(torch, cnn)}
    nets[pyad] = _BNNet.make(pyad, cnn)
    _copy_weights(nets[torch], nets[pyad])
    for lib, net in nets.items():
        data = lib.utils.data
        dl_x = data.DataLoader(data.TensorDataset(lib.tensor(x)), batch_size=5)
        dl_xy = data.DataLoader(data.TensorDataset(lib.tensor(x), lib.tensor(y)), batch_size=5)
        net.train()
        pre = _np(net.compute_preactivation(lib.tensor(x)))
        if pre.ndim == 4:
            pre = pre.transpose(0, 3, 2, 1)
        pre = pre.reshape(-1, net.n_features).astype(np.float64)
        mean = pre.mean(0)
        var = (pre ** 2).mean(0) - mean ** 2
        for loader in (dl_xy, dl_xy, dl_x):      # torch's three runs, reset in between
            net.bn.running_mean = lib.zeros_like(net.bn.running_mean)
            net.bn.running_var = lib.ones_like(net.bn.running_var)
            lib.optim.swa_utils.update_bn(loader, net, device=lib.device("cpu"))
            _close(net.bn.running_mean, mean, F32)
            _close(net.bn.running_var, var, dict(atol=1e-1, rtol=0))   # torch's tolerance
        assert net.training
    _close(nets[pyad].bn.running_mean, nets[torch].bn.running_mean, F32)
    _close(nets[pyad].bn.running_var, nets[torch].bn.running_var, F32)
    assert nets[pyad].bn.momentum == nets[torch].bn.momentum


def test_update_bn_dnn():
    _update_bn_case(cnn=False)


def test_update_bn_cnn():
    _update_bn_case(cnn=True)


@LIBS
def test_bn_update_eval_momentum(lib):
    net = _BNNet.make(lib, cnn=True)
    net.eval()
    x = np.random.RandomState(5).rand(10, 3, 5, 5).astype(np.float32)
    data = lib.utils.data
    lib.optim.swa_utils.update_bn(data.DataLoader(data.TensorDataset(lib.tensor(x)),
                                                  batch_size=5), net)
    assert not net.training
    assert net.bn.momentum == 0.3


# ==================================================== TestOptimRenewed._test_derived_optimizers

DERIVED = [("SGD", dict(momentum=0.9, nesterov=True, weight_decay=0.1)), ("Adam", dict(amsgrad=True)),
           ("AdamW", dict(weight_decay=0.1)), ("Adamax", dict(weight_decay=0.1)),
           ("Adagrad", dict(lr_decay=0.5)), ("Adadelta", dict(weight_decay=0.1)),
           ("RMSprop", dict(centered=True, momentum=0.1)), ("Rprop", {}),
           ("NAdam", dict(decoupled_weight_decay=True, weight_decay=0.1)),
           ("RAdam", dict(eps=1e-6)), ("ASGD", dict(t0=2)), ("Adafactor", {})]


def _derived_run(lib, name, kwargs):
    torch.manual_seed(1)
    tmodel = torch.nn.Sequential(torch.nn.Linear(2, 3), torch.nn.Sigmoid(),
                                 torch.nn.Linear(3, 1), torch.nn.Sigmoid()).double()
    if lib is torch:
        model = tmodel
    else:
        nn = pyad.nn
        model = nn.Sequential(nn.Linear(2, 3), nn.Sigmoid(), nn.Linear(3, 1),
                              nn.Sigmoid()).double()
        _copy_weights(tmodel, model)
    empty = lib.tensor(0.25, dtype=lib.float64, requires_grad=True)   # 0-d, last
    empty.grad = lib.tensor(0.5, dtype=lib.float64)
    params = list(model.parameters()) + [empty]
    opt = getattr(lib.optim, name)(params, **kwargs)
    x = lib.tensor(np.arange(1, 7, dtype=np.float64).reshape(3, 2) / 10)
    for i in range(7):
        opt.zero_grad()
        if i == 3:
            model[2].requires_grad_(False)      # a frozen layer steps no more
        if i == 5:
            model[2].requires_grad_(True)
        if i != 2:                               # all grads None: the step is a no-op
            model(x).sum().backward()
        opt.step()
    return params, opt


@pytest.mark.parametrize("foreach", [False, True])
@pytest.mark.parametrize("name,kwargs", DERIVED, ids=[d[0] for d in DERIVED])
def test_foreach_matches_forloop(name, kwargs, foreach):
    """torch's _test_derived_optimizers scenario (frozen layer at steps 3-4, None grads at
    step 2, a 0-d parameter last): pyad's foreach and for-loop runs both follow torch's
    for-loop run, parameters and state."""
    tparams, topt = _derived_run(torch, name, dict(kwargs, foreach=False))
    pparams, popt = _derived_run(pyad, name, dict(kwargs, foreach=foreach))
    for k, (p, t) in enumerate(zip(pparams, tparams)):
        _close(p, t, msg="param %d" % k)
        ps, ts = popt.state[p], topt.state[t]
        assert sorted(ps) == sorted(ts), k
        for key in ts:
            if _is_var(ts[key]):
                _close(ps[key], ts[key], msg="%d %s" % (k, key))
            else:
                assert ps[key] == pytest.approx(ts[key]), key
