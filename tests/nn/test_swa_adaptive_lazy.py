"""``pyad.optim.swa_utils`` (AveragedModel, SWALR, update_bn, the avg-fn factories),
``pyad.nn.AdaptiveLogSoftmaxWithLoss`` and the lazy modules LazyBatchNorm*/
LazyInstanceNorm*/LazyConv3d/LazyConvTranspose* (with ``UninitializedBuffer``) against
torch 2.13: every value from torch run on the same weights and inputs, gradients too,
plus torch's errors."""
import copy
import math
import warnings

import numpy as np
import pytest

import pyad
from pyad import nn
from pyad.optim import swa_utils
from _port_helpers import torch, twin, compare

RNG = np.random.default_rng(23)


def _arr(v):
    return v.detach().numpy() if isinstance(v, torch.Tensor) else v.detach().data


def _load(p_module, t_module):
    p_module.load_state_dict({k: pyad.tensor(v.detach().numpy().copy())
                              for k, v in t_module.state_dict().items()})


def _close(p, t, **kw):
    np.testing.assert_allclose(_arr(p), _arr(t), **{"rtol": 1e-12, "atol": 1e-12, **kw})


# -- swa_utils: AveragedModel ----------------------------------------------------------


def _net(lib, bn=True):
    layers = [lib.nn.Linear(3, 4)]
    if bn:
        layers.append(lib.nn.BatchNorm1d(4))
    layers += [lib.nn.ReLU(), lib.nn.Linear(4, 2)]
    return lib.nn.Sequential(*layers)


def _twin_models(bn=True):
    torch.manual_seed(0)
    t = _net(torch, bn).double()
    p = _net(pyad, bn).double()
    _load(p, t)
    return t, p


def _perturb(t, p, step):
    # the same new weights (and, via a training call, new BatchNorm statistics) in both
    rng = np.random.default_rng(step)
    with torch.no_grad(), pyad.no_grad():
        for tp, pp in zip(t.parameters(), p.parameters()):
            w = rng.standard_normal(tuple(tp.shape))
            tp.copy_(torch.tensor(w))
            pp.copy_(pyad.tensor(w))
    x = rng.standard_normal((5, 3))
    t.train()(torch.tensor(x))
    p.train()(pyad.tensor(x))


@pytest.mark.parametrize("use_buffers", [False, True])
def test_averaged_model_running_mean_matches_torch(use_buffers):
    t, p = _twin_models()
    t_swa = torch.optim.swa_utils.AveragedModel(t, use_buffers=use_buffers)
    p_swa = swa_utils.AveragedModel(p, use_buffers=use_buffers)
    assert list(p_swa.state_dict()) == list(t_swa.state_dict())
    assert list(p_swa.state_dict())[0] == "n_averaged"
    assert all(k.startswith("module.") for k in list(p_swa.state_dict())[1:])
    for step in range(4):
        _perturb(t, p, step)
        t_swa.update_parameters(t)
        p_swa.update_parameters(p)
        assert int(p_swa.n_averaged) == int(t_swa.n_averaged) == step + 1
        for (name, tv), (pname, pv) in zip(t_swa.state_dict().items(),
                                           p_swa.state_dict().items()):
            assert name == pname
            assert pv.dtype == np.dtype(str(tv.dtype).replace("torch.", "")), name
            _close(pv, tv, err_msg=name)
    # the copy is separate from the model: the averaged weights differ from the last ones
    assert not np.allclose(p_swa.module[0].weight.data, p[0].weight.data)
    assert p_swa.n_averaged.dtype == np.int64


def test_averaged_model_forward_delegates_with_gradients():
    t, p = _twin_models(bn=False)
    t_swa, p_swa = torch.optim.swa_utils.AveragedModel(t), swa_utils.AveragedModel(p)
    for step in range(2):
        _perturb(t, p, step)
        t_swa.update_parameters(t)
        p_swa.update_parameters(p)
    x = RNG.standard_normal((6, 3))
    compare(t_swa, p_swa, [x])


@pytest.mark.parametrize("kind", ["ema_avg", "ema_multi", "swa_avg", "swa_multi"])
def test_averaged_model_avg_fns_match_torch(kind):
    t, p = _twin_models()
    fns = {"ema_avg": ("avg_fn", "get_ema_avg_fn", (0.7,)),
           "ema_multi": ("multi_avg_fn", "get_ema_multi_avg_fn", (0.7,)),
           "swa_avg": ("avg_fn", "get_swa_avg_fn", ()),
           "swa_multi": ("multi_avg_fn", "get_swa_multi_avg_fn", ())}
    arg, factory, fargs = fns[kind]
    t_swa = torch.optim.swa_utils.AveragedModel(
        t, **{arg: getattr(torch.optim.swa_utils, factory)(*fargs)})
    p_swa = swa_utils.AveragedModel(p, **{arg: getattr(swa_utils, factory)(*fargs)})
    for step in range(3):
        _perturb(t, p, step)
        t_swa.update_parameters(t)
        p_swa.update_parameters(p)
    for (name, tv), pv in zip(t_swa.state_dict().items(), p_swa.state_dict().values()):
        _close(pv, tv, err_msg=name)


def test_ema_by_hand():
    # ema after values 1, 3, 5 with decay 0.5: 1 -> 2 -> 3.5
    model = nn.Linear(1, 1, bias=False)
    ema = swa_utils.AveragedModel(model, multi_avg_fn=swa_utils.get_ema_multi_avg_fn(0.5))
    for v in (1.0, 3.0, 5.0):
        with pyad.no_grad():
            model.weight.fill_(v)
        ema.update_parameters(model)
    assert ema.module.weight.item() == 3.5


def test_averaged_model_errors_as_torch():
    with pytest.raises(AssertionError, match="Only one of avg_fn and multi_avg_fn"):
        swa_utils.AveragedModel(nn.Linear(1, 1), avg_fn=swa_utils.get_swa_avg_fn(),
                                multi_avg_fn=swa_utils.get_swa_multi_avg_fn())
    for factory in ("get_ema_avg_fn", "get_ema_multi_avg_fn"):
        for decay in (-0.1, 1.5):
            with pytest.raises(ValueError, match=r"Invalid decay value .* in \[0,1\] range"):
                getattr(swa_utils, factory)(decay)
            with pytest.raises(ValueError, match=r"Invalid decay value .* in \[0,1\] range"):
                getattr(torch.optim.swa_utils, factory)(decay)


def test_averaged_model_state_dict_loads_from_torch():
    t, p = _twin_models()
    t_swa, p_swa = torch.optim.swa_utils.AveragedModel(t), swa_utils.AveragedModel(p)
    _perturb(t, p, 1)
    t_swa.update_parameters(t)
    t_swa.update_parameters(t)
    _load(p_swa, t_swa)
    assert int(p_swa.n_averaged) == 2
    _close(p_swa.module[0].weight, t_swa.module[0].weight)


# -- swa_utils: update_bn ----------------------------------------------------------------


@pytest.mark.parametrize("tupled", [False, True])
def test_update_bn_matches_torch(tupled):
    t, p = _twin_models()
    t.eval()
    p.eval()
    data = [RNG.standard_normal((4, 3)) * (i + 1) + i for i in range(3)]
    t_loader = [(torch.tensor(x), 0) if tupled else torch.tensor(x) for x in data]
    p_loader = [(pyad.tensor(x), 0) if tupled else pyad.tensor(x) for x in data]
    torch.optim.swa_utils.update_bn(t_loader, t)
    swa_utils.update_bn(p_loader, p)
    _close(p[1].running_mean, t[1].running_mean)
    _close(p[1].running_var, t[1].running_var)
    assert int(p[1].num_batches_tracked) == int(t[1].num_batches_tracked) == 3
    # by hand: with momentum None the running mean is the mean of the batch means
    hand = np.mean([(x @ p[0].weight.data.T + p[0].bias.data).mean(0) for x in data], 0)
    np.testing.assert_allclose(p[1].running_mean.data, hand, rtol=1e-12)
    assert p[1].momentum == 0.1 and not p.training


def test_update_bn_without_batchnorm_does_nothing():
    p = _net(pyad, bn=False)
    calls = []
    p.register_forward_hook(lambda m, i, o: calls.append(1))
    swa_utils.update_bn([pyad.zeros(2, 3)], p)
    assert calls == []


# -- swa_utils: SWALR ----------------------------------------------------------------


def _sched_pair(**kw):
    tw = torch.nn.Parameter(torch.zeros(1))
    pw = nn.Parameter(pyad.zeros(1))
    t_opt = torch.optim.SGD([{"params": [tw]}, {"params": [torch.nn.Parameter(
        torch.zeros(1))], "lr": 0.5}], lr=1.0)
    p_opt = pyad.optim.SGD([{"params": [pw]}, {"params": [nn.Parameter(pyad.zeros(1))],
                                               "lr": 0.5}], lr=1.0)
    return (t_opt, torch.optim.swa_utils.SWALR(t_opt, **kw),
            p_opt, swa_utils.SWALR(p_opt, **kw))


@pytest.mark.parametrize("kw", [dict(swa_lr=0.05),
                                dict(swa_lr=0.05, anneal_epochs=3, anneal_strategy="linear"),
                                dict(swa_lr=[0.1, 0.2], anneal_epochs=4),
                                dict(swa_lr=0.3, anneal_epochs=0),
                                dict(swa_lr=0.3, anneal_epochs=1, anneal_strategy="linear")])
def test_swalr_schedule_matches_torch(kw):
    t_opt, t_s, p_opt, p_s = _sched_pair(**kw)
    assert [g["swa_lr"] for g in p_opt.param_groups] == \
        [g["swa_lr"] for g in t_opt.param_groups]
    for _ in range(14):
        np.testing.assert_allclose(p_s.get_last_lr(), t_s.get_last_lr(), rtol=1e-13)
        t_opt.step()
        p_opt.step()
        t_s.step()
        p_s.step()
    # after the annealing every group sits at its swa_lr
    np.testing.assert_allclose(p_s.get_last_lr(), [g["swa_lr"] for g in p_opt.param_groups],
                               rtol=1e-13)


def test_swalr_cos_by_hand():
    # one group, lr 1 -> swa_lr 0 over 2 epochs, cos: alpha(t) = (1 - cos(pi t)) / 2
    w = nn.Parameter(pyad.zeros(1))
    opt = pyad.optim.SGD([w], lr=1.0)
    s = swa_utils.SWALR(opt, swa_lr=0.0, anneal_epochs=2)
    lrs = [s.get_last_lr()[0]]
    for _ in range(2):
        opt.step()
        s.step()
        lrs.append(s.get_last_lr()[0])
    np.testing.assert_allclose(lrs, [1.0, 1 - (1 - math.cos(math.pi / 2)) / 2, 0.0],
                               atol=1e-15)


def test_swalr_errors_and_warnings_as_torch():
    for lib, mod in ((torch, torch.optim.swa_utils), (pyad, swa_utils)):
        opt = lib.optim.SGD([lib.nn.Parameter(lib.zeros(1))], lr=1.0)
        with pytest.raises(ValueError, match="anneal_strategy must be one of 'cos' or "
                                             "'linear', instead got exp"):
            mod.SWALR(opt, 0.1, anneal_strategy="exp")
        with pytest.raises(ValueError, match="anneal_epochs must be equal or greater than 0, "
                                             "got -1"):
            mod.SWALR(opt, 0.1, anneal_epochs=-1)
        with pytest.raises(ValueError, match="anneal_epochs must be equal or greater than 0, "
                                             "got 1.5"):
            mod.SWALR(opt, 0.1, anneal_epochs=1.5)
        with pytest.raises(ValueError, match="swa_lr must have the same length as "
                                             "optimizer.param_groups"):
            mod.SWALR(opt, [0.1, 0.2])
        s = mod.SWALR(opt, 0.1)
        with pytest.warns(UserWarning, match="please use `get_last_lr"):
            s.get_lr()


def test_swalr_state_dict_round_trip():
    _, t_s, p_opt, p_s = _sched_pair(swa_lr=0.1, anneal_strategy="linear", anneal_epochs=5)
    t_keys = set(t_s.state_dict())
    assert set(p_s.state_dict()) >= {"anneal_epochs", "_anneal_strategy", "base_lrs",
                                     "last_epoch", "_step_count"}
    assert "anneal_func" not in p_s.state_dict() and "anneal_func" not in t_keys
    assert "optimizer" not in p_s.state_dict()
    sd = copy.deepcopy(p_s.state_dict())
    p_s2 = swa_utils.SWALR(p_opt, 0.1)           # cos
    p_s2.load_state_dict(sd)
    assert p_s2.anneal_func is swa_utils.SWALR._linear_anneal
    assert p_s2.anneal_epochs == 5


def test_swa_utils_reachable_from_pyad_optim():
    import pyad.optim
    assert pyad.optim.swa_utils is swa_utils
    assert set(swa_utils.__all__) == set(torch.optim.swa_utils.__all__)


# -- AdaptiveLogSoftmaxWithLoss --------------------------------------------------------


def _asm_pair(*args, **kw):
    torch.manual_seed(0)
    return twin(torch.nn.AdaptiveLogSoftmaxWithLoss(*args, **kw),
                nn.AdaptiveLogSoftmaxWithLoss(*args, **kw))


@pytest.mark.parametrize("kw", [dict(), dict(div_value=2.0, head_bias=True)])
def test_adaptive_log_softmax_forward_and_grads(kw):
    t, p = _asm_pair(16, 20, [5, 10, 15], **kw)
    assert list(p.state_dict()) == list(t.state_dict())
    assert [n for n, _ in p.named_parameters()] == [n for n, _ in t.named_parameters()]
    assert repr(p) == repr(t)
    x = RNG.standard_normal((8, 16))
    target = np.array([0, 19, 4, 5, 12, 9, 16, 2])
    t_out, p_out = compare(t, p, [x, target])
    out = p(pyad.tensor(x), pyad.tensor(target))
    assert type(out).__name__ == "_ASMoutput" and out._fields == ("output", "loss")
    assert out.loss.shape == ()


def test_adaptive_log_softmax_only_shortlist_targets():
    t, p = _asm_pair(8, 10, [4, 7])
    compare(t, p, [RNG.standard_normal((5, 8)), np.array([0, 1, 2, 3, 0])])


def test_adaptive_log_softmax_unbatched():
    t, p = _asm_pair(8, 10, [4, 7])
    _, p_out = compare(t, p, [RNG.standard_normal(8), np.array(8)])
    assert p_out[0].shape == ()


def test_adaptive_log_softmax_log_prob_and_predict():
    t, p = _asm_pair(8, 10, [4, 7], head_bias=True)
    x = RNG.standard_normal((6, 8))
    compare(t, p, [x], call=lambda m, a: m.log_prob(a))
    # log_prob rows are distributions; output of forward is log_prob at the target
    lp = p.log_prob(pyad.tensor(x)).data
    np.testing.assert_allclose(np.exp(lp).sum(1), 1.0, rtol=1e-12)
    target = np.array([0, 9, 5, 3, 7, 4])
    np.testing.assert_allclose(p(pyad.tensor(x), pyad.tensor(target)).output.data,
                               lp[np.arange(6), target], rtol=1e-12)
    # predict: all in the shortlist, none of them, and a mix (steered by the head)
    for mode in ("short", "tail", "mix"):
        with torch.no_grad():
            t.head.weight.zero_()
            t.head.bias.zero_()
            if mode == "short":
                t.head.bias[1] = 50.0
            elif mode == "tail":
                t.head.bias[4] = 50.0
            else:
                t.head.weight[2, 0] = 50.0
                t.head.weight[5, 0] = -50.0
        _load(p, t)
        xs = RNG.standard_normal((7, 8))
        xs[:3, 0] = np.abs(xs[:3, 0]) + 0.5
        xs[3:, 0] = -np.abs(xs[3:, 0]) - 0.5
        tp = t.predict(torch.tensor(xs)).numpy()
        pp = p.predict(pyad.tensor(xs)).data
        np.testing.assert_array_equal(pp, tp)
        if mode == "short":
            assert (tp == 1).all()
        elif mode == "tail":
            assert (tp >= 4).all()
        else:
            assert (tp[:3] == 2).all() and (tp[3:] >= 7).all()


def test_adaptive_log_softmax_errors_as_torch():
    for cutoffs in ([], [5, 3], [0, 4], [4, 10], [4, 4, 6], [2.5]):
        for lib in (torch, pyad):
            with pytest.raises(ValueError, match="cutoffs should be a sequence"):
                lib.nn.AdaptiveLogSoftmaxWithLoss(8, 10, cutoffs)
    t, p = _asm_pair(8, 10, [4, 7])
    cases = [((4, 8), [0, 1, 2], "same size in the batch dimension"),
             ((2, 2, 8), [0, 1], "1D target tensor expects 2D input"),
             ((2, 8), 3, "0D target tensor expects 1D input"),
             ((2, 8), [[0, 1], [1, 0]], "multi-target not supported"),
             ((3, 8), [0, 10, 1], r"Target values should be in \[0, 9\]"),
             ((3, 8), [0, -1, 1], r"Target values should be in \[0, 9\]")]
    for shape, target, msg in cases:
        x = np.zeros(shape)
        with pytest.raises(RuntimeError, match=msg):
            t(torch.tensor(x), torch.tensor(target))
        with pytest.raises(RuntimeError, match=msg):
            p(pyad.tensor(x), pyad.tensor(target))


def test_adaptive_log_softmax_layer_shapes_as_torch():
    t = torch.nn.AdaptiveLogSoftmaxWithLoss(32, 100, [10, 50], div_value=2.0)
    p = nn.AdaptiveLogSoftmaxWithLoss(32, 100, [10, 50], div_value=2.0)
    assert p.cutoffs == t.cutoffs == [10, 50, 100]
    assert (p.shortlist_size, p.n_clusters, p.head_size) == \
        (t.shortlist_size, t.n_clusters, t.head_size)
    for (name, tv), (pname, pv) in zip(t.state_dict().items(), p.state_dict().items()):
        assert name == pname and tuple(tv.shape) == pv.shape
    assert p.head.bias is None


# -- lazy modules --------------------------------------------------------------------


NORMS = [("LazyBatchNorm1d", (4, 3, 5)), ("LazyBatchNorm1d", (6, 3)),
         ("LazyBatchNorm2d", (4, 3, 4, 4)), ("LazyBatchNorm3d", (2, 3, 3, 3, 2)),
         ("LazyInstanceNorm1d", (4, 3, 5)), ("LazyInstanceNorm2d", (2, 3, 4, 4)),
         ("LazyInstanceNorm3d", (2, 3, 3, 3, 2))]


@pytest.mark.parametrize("name,shape", NORMS)
@pytest.mark.parametrize("kw", [dict(), dict(affine=False), dict(track_running_stats=False),
                                dict(bias=False, momentum=None)])
def test_lazy_norms_materialise_like_torch(name, shape, kw):
    t, p = getattr(torch.nn, name)(**kw), getattr(nn, name)(**kw)
    assert repr(p) == repr(t)
    assert list(p.state_dict()) == list(t.state_dict())
    assert p.has_uninitialized_params() == t.has_uninitialized_params()
    if kw.get("affine", True):
        assert isinstance(p.weight, nn.UninitializedParameter)
    if kw.get("track_running_stats", True):
        assert isinstance(p.running_mean, nn.UninitializedBuffer)
        assert int(p.num_batches_tracked) == 0
    x = RNG.standard_normal(shape)
    t_out = t(torch.tensor(x, dtype=torch.float32))
    p_out = p(pyad.tensor(x, dtype=pyad.float32))
    assert type(p).__name__ == type(t).__name__ and repr(p) == repr(t)
    assert not any(nn.parameter.is_lazy(v) for v in list(p.parameters()) + list(p.buffers()))
    np.testing.assert_allclose(p_out.data, t_out.detach().numpy(), rtol=1e-5, atol=1e-5)
    for (key, tv), (pkey, pv) in zip(t.state_dict().items(), p.state_dict().items()):
        assert key == pkey and pv.shape == tuple(tv.shape) and pv.dtype == \
            np.dtype(str(tv.dtype).replace("torch.", "")), key
        np.testing.assert_allclose(pv.data, tv.numpy(), rtol=1e-5, atol=1e-6, err_msg=key)
    if kw.get("track_running_stats", True):
        assert type(p.running_mean) is nn.Buffer
        assert isinstance(p.running_mean, pyad.Variable)
    if kw.get("affine", True):
        assert type(p.weight) is nn.Parameter
    # then it is the layer itself: from torch's weights, the same outputs and gradients
    t2, p2 = twin(t, p)
    compare(t2, p2, [x])


def test_lazy_batchnorm_eval_after_training_as_torch():
    t, p = torch.nn.LazyBatchNorm2d(momentum=0.3), nn.LazyBatchNorm2d(momentum=0.3)
    for _ in range(3):
        x = RNG.standard_normal((3, 2, 4, 4)) * 2 + 1
        t(torch.tensor(x, dtype=torch.float32))
        p(pyad.tensor(x, dtype=pyad.float32))
    t.eval()
    p.eval()
    _close(p.running_var, t.running_var, rtol=1e-5)
    x = RNG.standard_normal((2, 2, 4, 4))
    np.testing.assert_allclose(p(pyad.tensor(x, dtype=pyad.float32)).data,
                               t(torch.tensor(x, dtype=torch.float32)).detach().numpy(),
                               rtol=1e-5, atol=1e-5)
    assert int(p.num_batches_tracked) == int(t.num_batches_tracked) == 3


def test_lazy_norm_loads_a_state_dict_before_its_first_call_as_torch():
    src = torch.nn.BatchNorm1d(3)
    src(torch.randn(5, 3) * 3 + 2)
    t, p = torch.nn.LazyBatchNorm1d(), nn.LazyBatchNorm1d()
    t.load_state_dict(src.state_dict())
    _load(p, src)
    assert p.running_mean.shape == (3,) and type(p.running_mean) is nn.Buffer
    assert not p.has_uninitialized_params()
    _close(p.running_var, t.running_var)
    t.eval()
    p.eval()
    x = RNG.standard_normal((4, 3))
    np.testing.assert_allclose(p(pyad.tensor(x, dtype=pyad.float32)).data,
                               t(torch.tensor(x, dtype=torch.float32)).detach().numpy(),
                               rtol=1e-5, atol=1e-6)
    assert type(p) is nn.BatchNorm1d and p.num_features == t.num_features


def test_lazy_norm_double_keeps_buffers_lazy_as_torch():
    t, p = torch.nn.LazyBatchNorm1d().double(), nn.LazyBatchNorm1d().double()
    assert isinstance(p.running_mean, nn.UninitializedBuffer)
    assert type(t.running_mean).__name__ == type(p.running_mean).__name__
    x = RNG.standard_normal((4, 3))
    t(torch.tensor(x))
    p(pyad.tensor(x))
    assert p.running_mean.dtype == np.float64 and p.weight.dtype == np.float64
    _close(p.running_mean, t.running_mean)


LAZY_CONVS = [("LazyConv3d", dict(), (1, 2, 5, 5, 4)),
              ("LazyConv3d", dict(groups=2, bias=False, padding=1), (4, 4, 4, 3)),
              ("LazyConvTranspose1d", dict(stride=2), (2, 3, 5)),
              ("LazyConvTranspose1d", dict(groups=2, output_padding=1, stride=2), (4, 6)),
              ("LazyConvTranspose2d", dict(stride=2, padding=1, bias=False), (1, 2, 4, 4)),
              ("LazyConvTranspose2d", dict(dilation=2), (3, 4, 3)),
              ("LazyConvTranspose3d", dict(stride=(1, 2, 1)), (1, 2, 3, 3, 2))]


@pytest.mark.parametrize("name,kw,shape", LAZY_CONVS)
def test_lazy_convs_3d_and_transposed_materialise_like_torch(name, kw, shape):
    t, p = getattr(torch.nn, name)(4, 3, **kw), getattr(nn, name)(4, 3, **kw)
    assert repr(p) == repr(t)
    assert isinstance(p.weight, nn.UninitializedParameter)
    assert list(p.state_dict()) == list(t.state_dict())
    x = RNG.standard_normal(shape)
    t(torch.tensor(x, dtype=torch.float32))
    p(pyad.tensor(x, dtype=pyad.float32))
    assert repr(p) == repr(t) and type(p).__name__ == type(t).__name__
    assert p.weight.shape == tuple(t.weight.shape)
    if p.bias is not None:
        assert p.bias.shape == tuple(t.bias.shape)
    # torch's kaiming_uniform(a=sqrt(5)) bound: 1 / sqrt(fan_in), fan_in = size(1) * k
    fan_in = int(np.prod(p.weight.shape[1:]))
    assert np.all(np.abs(p.weight.data) <= 1 / math.sqrt(fan_in))
    t2, p2 = twin(t, p)
    compare(t2, p2, [x])


def test_lazy_conv_transpose_output_size_on_first_call():
    t, p = torch.nn.LazyConvTranspose2d(2, 3, stride=2), nn.LazyConvTranspose2d(2, 3, stride=2)
    x = RNG.standard_normal((1, 4, 5, 5))
    to = t(torch.tensor(x, dtype=torch.float32), output_size=[12, 12])
    po = p(pyad.tensor(x, dtype=pyad.float32), output_size=[12, 12])
    assert po.shape == tuple(to.shape) == (1, 2, 12, 12)


def test_lazy_conv_errors_as_torch():
    for lib in (torch, pyad):
        with pytest.raises(RuntimeError, match=r"Expected 4D \(unbatched\) or 5D \(batched\) "
                                               "input to LazyConvTranspose3d"):
            lib.nn.LazyConvTranspose3d(4, 3)(lib.zeros(2, 3))
        with pytest.raises(ValueError, match="in_channels must be divisible by groups"):
            lib.nn.LazyConv3d(4, 3, groups=2)(lib.zeros(1, 3, 4, 4, 4))


def test_uninitialized_buffer_as_torch():
    p, t = nn.UninitializedBuffer(), torch.nn.UninitializedBuffer()
    assert repr(p) == repr(t) == "<UninitializedBuffer>"
    for b in (p, t):
        with pytest.raises(RuntimeError, match="Can't access the shape of an uninitialized "
                                               "parameter or buffer"):
            b.shape
    assert nn.parameter.is_lazy(p) and torch.nn.parameter.is_lazy(t)
    assert not p.requires_grad and p.persistent
    p.materialize((2, 3))
    t.materialize((2, 3))
    assert p.shape == tuple(t.shape) and p.dtype == np.float32
    assert isinstance(p, nn.Buffer) and isinstance(t, torch.nn.Buffer)
    assert not nn.parameter.is_lazy(p)
    q = nn.UninitializedBuffer(dtype=pyad.float64, persistent=False)
    m = nn.Module()
    m.stats = q
    assert list(m.state_dict()) == [] and [n for n, _ in m.named_buffers()] == ["stats"]
    q.materialize((4,))
    assert q.dtype == np.float64 and q.shape == (4,)


def test_new_names_exported():
    names = ["LazyBatchNorm1d", "LazyBatchNorm2d", "LazyBatchNorm3d", "LazyInstanceNorm1d",
             "LazyInstanceNorm2d", "LazyInstanceNorm3d", "LazyConv3d", "LazyConvTranspose1d",
             "LazyConvTranspose2d", "LazyConvTranspose3d", "UninitializedBuffer",
             "AdaptiveLogSoftmaxWithLoss"]
    for name in names:
        assert name in nn.__all__ and hasattr(torch.nn, name)
