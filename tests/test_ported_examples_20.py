"""Ported aladdinpersson/Machine-Learning-Collection (MIT, Copyright (c) 2020 Aladdin
Persson): ``ML/Pytorch/Basics``, ``CNN_architectures`` (LeNet-5, VGG16, ResNet50/101/152,
GoogLeNet), ``GANs`` (the fully connected GAN, WGAN-GP's gradient penalty) and
``linkedin_posts/tensor_operations`` (examples/ported/aladdin_*.py).

Each script runs on torch and on pyad from torch's initial weights (every model it passes
to ``init``) and gives the same loss at every step, the same accuracy counts, learning
rates and computed values, and the same final weights (float32 tolerances). The texts'
``rand`` draws come from one NumPy stream through the namespace proxy (test_11's
``stream``) and the ``DataLoader``s run with ``shuffle=False`` (each framework's generator
draws its own permutation). The sizes are the scripts' keyword arguments (few steps,
narrow recurrent layers where the width is a hyperparameter).
"""
import importlib.util
import os
import random
import re

import numpy as np
import pytest

import pyad

torch = pytest.importorskip("torch")

_HERE = os.path.dirname(os.path.abspath(__file__))


def _module(name):
    spec = importlib.util.spec_from_file_location("_ported_helpers20_" + name,
                                                  os.path.join(_HERE, name + ".py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_helpers = _module("test_ported_examples")
_helpers3 = _module("test_ported_examples_3")
_helpers11 = _module("test_ported_examples_11")
load, Proxy = _helpers.load, _helpers.Proxy
twin_runs_many = _helpers3.twin_runs_many
stream, default_dtype = _helpers11.stream, _helpers11.default_dtype

# this batch's scripts (tests/test_ported_examples.py's list names them too)
SCRIPTS = [
    "aladdin_tensorbasics", "aladdin_simple_fullynet", "aladdin_simple_CNN",
    "aladdin_rnn_gru_lstm", "aladdin_init_weights", "aladdin_lr_ratescheduler",
    "aladdin_loadsave", "aladdin_std_mean", "aladdin_wgan_gp", "aladdin_cnn_architectures",
    "aladdin_fc_gan", "aladdin_tensor_operations",
]


@pytest.fixture(autouse=True)
def _one_torch_thread():
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(threads)


def twins(name, rtol=2e-4, atol=2e-5, **options):
    return twin_runs_many(load(name), rtol=rtol, atol=atol, wrap=stream, **options)


def _np(v):
    return np.asarray(v.detach().numpy()) if hasattr(v, "detach") else np.asarray(v)


def _dtype_name(dtype):
    return str(dtype).replace("torch.", "")


# -- Basics/pytorch_tensorbasics.py ----------------------------------------------------------

def test_aladdin_tensorbasics():
    module = load("aladdin_tensorbasics")
    t_logs, p_logs = [], []
    t = module.run(stream(torch), log=t_logs.append)
    p = module.run(stream(pyad), log=p_logs.append)
    assert [k for k, _ in p] == [k for k, _ in t]
    assert len(t) == 83
    for (label, tv), (_, pv) in zip(t, p):
        if label in ("empty", "normal_", "uniform_"):
            # uninitialised memory, and each framework's own generator: shape and dtype
            assert tuple(pv.shape) == tuple(tv.shape) and pv.dtype == pyad.float32, label
            if label == "uniform_":
                assert ((_np(pv) >= 0) & (_np(pv) < 1)).all()
            continue
        if isinstance(tv, str):
            assert pv == tv, label
        elif isinstance(tv, torch.Size):
            assert tuple(pv) == tuple(tv), label
        elif isinstance(tv, tuple):  # max/min/sort's (values, indices), chunk's pieces
            assert len(pv) == len(tv), label
            for a, b in zip(pv, tv):
                assert _dtype_name(a.dtype) == _dtype_name(b.dtype), label
                np.testing.assert_allclose(_np(a), _np(b), rtol=1e-6, err_msg=label)
        elif isinstance(tv, torch.Tensor):
            assert _dtype_name(pv.dtype) == _dtype_name(tv.dtype), label
            assert tuple(pv.shape) == tuple(tv.shape), label
            assert pv.requires_grad == tv.requires_grad, label
            np.testing.assert_allclose(_np(pv), _np(tv), rtol=1e-6, atol=1e-6,
                                       err_msg=label)
        elif isinstance(tv, np.ndarray):
            np.testing.assert_array_equal(pv, tv, err_msg=label)
        else:
            assert type(pv) is type(tv) and pv == tv, label
    # the printed lines: the same text, but for the shapes (torch.Size's repr) and
    # dtypes in reprs (torch's ``dtype=torch.int16``, pyad's ``dtype=int16``)
    assert len(p_logs) == len(t_logs) == 30
    for pl, tl in zip(p_logs, t_logs):
        if isinstance(tl, str):
            tl = re.sub(r"torch\.Size\(\[([0-9, ]*)\]\)",
                        lambda m: repr(tuple(int(v) for v in m.group(1).split(",") if v)),
                        tl)
            assert pl == tl.replace("dtype=torch.", "dtype="), (pl, tl)
        elif isinstance(tl, torch.Tensor):
            np.testing.assert_allclose(_np(pl), _np(tl), rtol=1e-6)
        elif isinstance(tl, torch.Size):  # pyad's shapes are tuples
            assert tuple(pl) == tuple(tl)
        else:
            assert type(pl) is type(tl) and pl == tl
    assert p_logs[0] == t_logs[0] == (
        "Information about tensor: tensor([[1., 2., 3.],\n        [4., 5., 6.]], "
        "requires_grad=True)")
    assert p_logs[3] == "Shape of tensor (2, 3)" and t_logs[3] == (
        "Shape of tensor torch.Size([2, 3])")


# -- Basics/pytorch_simple_fullynet.py, pytorch_simple_CNN.py -------------------------------

def test_aladdin_simple_fullynet():
    t, _ = twins("aladdin_simple_fullynet", num_epochs=2, batch_size=16, n_train=48,
                 n_test=32, shuffle=False)
    assert len(t) == 2 * 3 + 2


def test_aladdin_simple_CNN():
    t, _ = twins("aladdin_simple_CNN", num_epochs=2, batch_size=16, n_train=32, n_test=16,
                 shuffle=False)
    assert len(t) == 2 * 2 + 4 and t[-3] == 32 and t[-1] == 16


# -- Basics/pytorch_rnn_gru_lstm.py, pytorch_bidirectional_lstm.py --------------------------

@pytest.mark.parametrize("model", ["RNN", "RNN_GRU", "BRNN"])
def test_aladdin_rnn_gru_lstm(model):
    t, _ = twins("aladdin_rnn_gru_lstm", model=model, hidden_size=12, num_epochs=2,
                 batch_size=8, n_train=16, n_test=8, shuffle=False)
    assert len(t) == 2 * 2 + 4


def test_aladdin_rnn_gru_lstm_float64():
    # the text's own RNN_LSTM: in float32 one of fc's 3360 weights (a gradient near 0)
    # takes an Adam step whose size follows each framework's rounding (0.8% apart after
    # 4 steps at lr 0.005); in float64 that noise is far below Adam's eps
    with default_dtype("float64"):
        t, _ = twins("aladdin_rnn_gru_lstm", model="RNN_LSTM", hidden_size=12,
                     num_epochs=2, batch_size=8, n_train=16, n_test=8, shuffle=False,
                     rtol=1e-6, atol=1e-9, weights_rtol=1e-6, weights_atol=1e-9)
    assert len(t) == 2 * 2 + 4


# -- Basics/pytorch_init_weights.py ----------------------------------------------------------

def test_aladdin_init_weights():
    module = load("aladdin_init_weights")
    x = np.random.RandomState(0).rand(4, 3, 28, 28).astype(np.float32)
    t_logs, p_logs = [], []
    torch.manual_seed(0)
    t_model, _ = module.run(torch, log=t_logs.append)
    p_model, _ = module.run(pyad, log=p_logs.append)
    t_state, p_state = t_model.state_dict(), p_model.state_dict()
    assert list(p_state) == list(t_state) == [
        "conv1.weight", "conv1.bias", "conv2.weight", "conv2.bias", "fc1.weight", "fc1.bias"]
    assert len(p_logs) == len(t_logs) == 6
    for name in t_state:
        tv, pv = t_state[name].numpy(), p_state[name].detach().numpy()
        assert pv.shape == tv.shape and pv.dtype == tv.dtype, name
        if name.endswith("bias"):  # constant_(m.bias, 0)
            np.testing.assert_array_equal(pv, tv, err_msg=name)
            continue
        # kaiming_uniform_ (a=0, fan_in, leaky_relu): U(-b, b), b = sqrt(6 / fan_in)
        fan_in = int(np.prod(tv.shape[1:]))
        bound = np.sqrt(6.0 / fan_in)
        assert np.abs(tv).max() <= bound and np.abs(pv).max() <= bound, name
        assert np.abs(pv).max() > 0.9 * bound, name
        np.testing.assert_allclose(pv.std(), bound / np.sqrt(3), rtol=0.1, err_msg=name)
    # from torch's initial weights, the same outputs
    state = {k: v.numpy().copy() for k, v in t_state.items()}
    t_out = module.run(torch, x=torch.tensor(x), log=lambda *a: None,
                       init=lambda m: m.load_state_dict({k: torch.tensor(v)
                                                         for k, v in state.items()}))[1]
    p_out = module.run(pyad, x=pyad.tensor(x), log=lambda *a: None,
                       init=lambda m: m.load_state_dict({k: pyad.tensor(v)
                                                         for k, v in state.items()}))[1]
    np.testing.assert_allclose(_np(p_out), _np(t_out), rtol=1e-4, atol=1e-5)


# -- Basics/pytorch_lr_ratescheduler.py ------------------------------------------------------

def test_aladdin_lr_ratescheduler():
    t, _ = twins("aladdin_lr_ratescheduler", num_epochs=10, batch_size=32, n_train=64,
                 shuffle=False)
    per_epoch = 2 + 2
    assert len(t) == 9 * per_epoch + 2
    lrs = t[per_epoch - 1:9 * per_epoch:per_epoch]
    # torch's: the mean loss keeps falling in these 9 epochs (no plateau of 5)
    assert lrs == [0.1] * 9


def test_aladdin_lr_ratescheduler_verbose_is_refused():
    # the text's ReduceLROnPlateau(..., verbose=True): torch 2.13 has no ``verbose``
    module = load("aladdin_lr_ratescheduler")
    with pytest.raises(TypeError):
        module.run(torch, num_epochs=2, n_train=8, verbose=True, log=lambda *a: None)
    with pytest.raises(TypeError):
        module.run(pyad, num_epochs=2, n_train=8, verbose=True, log=lambda *a: None)


# -- Basics/pytorch_loadsave.py --------------------------------------------------------------

def test_aladdin_loadsave(tmp_path):
    module = load("aladdin_loadsave")
    t_logs, p_logs = [], []
    torch.manual_seed(0)
    state = {}
    t_model, t_opt, t_ckpt = module.run(
        torch, filename=str(tmp_path / "t.pth.tar"), log=t_logs.append,
        init=lambda m: state.update({k: v.numpy().copy() for k, v in m.state_dict().items()}))
    p_model, p_opt, p_ckpt = module.run(
        pyad, filename=str(tmp_path / "p.pth.tar"), log=p_logs.append,
        init=lambda m: m.load_state_dict({k: pyad.tensor(v) for k, v in state.items()}))
    assert p_logs == t_logs == ["=> Saving checkpoint", "=> Loading checkpoint"]
    assert os.path.exists(tmp_path / "p.pth.tar")
    assert list(p_ckpt) == list(t_ckpt) == ["state_dict", "optimizer"]
    assert list(p_model.state_dict()) == list(t_model.state_dict())
    for k, v in t_model.state_dict().items():
        np.testing.assert_array_equal(p_model.state_dict()[k].detach().numpy(), v.numpy(),
                                      err_msg=k)
    t_groups, p_groups = t_opt.state_dict()["param_groups"], p_opt.state_dict()["param_groups"]
    assert len(p_groups) == len(t_groups) == 1
    for key in ("lr", "betas", "eps", "weight_decay", "amsgrad", "params"):
        assert p_groups[0][key] == t_groups[0][key], key
    assert p_opt.state_dict()["state"] == t_opt.state_dict()["state"] == {}


# -- Basics/pytorch_std_mean.py --------------------------------------------------------------

def test_aladdin_std_mean():
    module = load("aladdin_std_mean")
    t_logs, p_logs = [], []
    t = module.run(torch, n=200, shuffle=False, log=t_logs.append)
    p = module.run(pyad, n=200, shuffle=False, log=p_logs.append)
    for a, b in zip(p, t):
        assert tuple(a.shape) == tuple(b.shape) == (3,)
        np.testing.assert_allclose(_np(a), _np(b), rtol=1e-6, atol=1e-7)
    # against float64 NumPy of the same batches: the mean of the batches' means
    data = np.random.RandomState(0).rand(200, 3, 32, 32).astype(np.float32).astype(np.float64)
    batches = [data[i:i + 64] for i in range(0, 200, 64)]
    mean = np.mean([b.mean((0, 2, 3)) for b in batches], 0)
    sq = np.mean([(b ** 2).mean((0, 2, 3)) for b in batches], 0)
    np.testing.assert_allclose(_np(p[0]), mean, rtol=1e-5)
    np.testing.assert_allclose(_np(p[1]), np.sqrt(sq - mean ** 2), rtol=1e-4)
    assert len(p_logs) == len(t_logs) == 2


# -- GANs/4. WGAN-GP (model.py, train.py, utils.gradient_penalty) ---------------------------

WGAN = dict(Z_DIM=8, FEATURES_CRITIC=2, FEATURES_GEN=2, BATCH_SIZE=2, NUM_EPOCHS=1,
            CRITIC_ITERATIONS=2, n=4)


def _wgan_twins(wrap_p, **options):
    module = load("aladdin_wgan_gp")
    states, traces = [], [{}, {}]
    torch.manual_seed(0)
    t = module.run(stream(torch), log=lambda *a: None, trace=traces[0],
                   init=lambda m: states.append({k: v.detach().numpy().copy()
                                                 for k, v in m.state_dict().items()}),
                   **WGAN, **options)
    it = iter(states)
    p = module.run(wrap_p(stream(pyad)), log=lambda *a: None, trace=traces[1],
                   init=lambda m: m.load_state_dict({k: pyad.tensor(v)
                                                     for k, v in next(it).items()}),
                   **WGAN, **options)
    return t, p, traces


def test_aladdin_wgan_gp():
    t, p, (tt, pt) = _wgan_twins(lambda lib: lib)
    assert len(t) == len(p) == 2 * (2 * 2 + 1)
    np.testing.assert_allclose(p, t, rtol=2e-4, atol=2e-5)
    # the penalty and its gradients (double backward through the critic's convolutions,
    # InstanceNorm2d and LeakyReLU), with respect to the first weight and the real images
    np.testing.assert_allclose(pt["gp"], tt["gp"], rtol=1e-5)
    for a, b in zip(pt["grads"], tt["grads"]):
        assert tuple(a.shape) == tuple(b.shape)
        np.testing.assert_allclose(_np(a), _np(b), rtol=1e-4,
                                   atol=1e-5 * max(1.0, float(np.abs(_np(b)).max())))


def test_aladdin_wgan_gp_float64():
    # float64: the penalty and its gradients (a double backward) within 1e-10, and
    # model.py's test() (64x64 images, 8 features) on both
    with default_dtype("float64"):
        t, p, (tt, pt) = _wgan_twins(lambda lib: lib, run_model_test=True)
    np.testing.assert_allclose(p, t, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(pt["gp"], tt["gp"], rtol=1e-12)
    for a, b in zip(pt["grads"], tt["grads"]):
        assert _np(a).dtype == np.float64
        np.testing.assert_allclose(_np(a), _np(b), rtol=1e-10,
                                   atol=1e-12 * max(1.0, float(np.abs(_np(b)).max())))


def test_aladdin_wgan_gp_verbatim_data():
    # nn.init.normal_(m.weight.data, 0.0, 0.02) fills the array (pyad's .data) in place,
    # with the same draws as on the Parameter: the same run, bit for bit
    module = load("aladdin_wgan_gp")
    runs = []
    for verbatim_data in (True, False):
        pyad.manual_seed(0)
        np.random.seed(0)
        random.seed(0)
        runs.append(module.run(pyad, verbatim_data=verbatim_data, log=lambda *a: None,
                               **WGAN))
    assert len(runs[0]) == len(runs[1]) == 2 * (2 * 2 + 1)
    np.testing.assert_array_equal(runs[0], runs[1])


# -- CNN_architectures: lenet5_pytorch.py, pytorch_vgg_implementation.py, pytorch_resnet.py,
# pytorch_inceptionet.py ---------------------------------------------------------------------

def _arch_twins(model, **options):
    module = load("aladdin_cnn_architectures")
    state = {}

    def record(net):
        state.update({k: v.detach().numpy().copy() for k, v in net.state_dict().items()})

    def restore(net):
        assert list(net.state_dict()) == list(state)
        net.load_state_dict({k: pyad.tensor(v) for k, v in state.items()})

    t_logs, p_logs = [], []
    torch.manual_seed(0)
    t = module.run(_helpers.seeded(torch), model=model, init=record, log=t_logs.append,
                   **options)
    p = module.run(_helpers.seeded(pyad), model=model, init=restore, log=p_logs.append,
                   **options)
    return t, p, t_logs, p_logs


def _arch_compare(t, p, rtol, atol):
    def close(a, e, what):
        e = _np(e)
        scale = max(float(np.abs(e).max(initial=0.0)), 1.0)
        np.testing.assert_allclose(_np(a), e, rtol=rtol, atol=atol * scale, err_msg=what)

    outs = t["outputs"] if isinstance(t["outputs"], tuple) else (t["outputs"],)
    p_outs = p["outputs"] if isinstance(p["outputs"], tuple) else (p["outputs"],)
    assert len(p_outs) == len(outs)
    for a, e in zip(p_outs, outs):
        assert tuple(a.shape) == tuple(e.shape)
        close(a, e, "outputs")
    np.testing.assert_allclose(p["loss"], t["loss"], rtol=rtol, atol=atol)
    assert list(p["grads"]) == list(t["grads"])
    for k, g in t["grads"].items():
        assert (p["grads"][k] is None) == (g is None), k
        if g is not None:
            close(p["grads"][k], g, "grad " + k)
    t_state, p_state = t["net"].state_dict(), p["net"].state_dict()
    assert list(p_state) == list(t_state)
    for k, v in t_state.items():
        close(p_state[k], v, "after the step: " + k)


def test_aladdin_lenet5():
    t, p, t_logs, p_logs = _arch_twins("LeNet", N=4)
    _arch_compare(t, p, rtol=1e-4, atol=1e-5)
    assert tuple(p_logs[0]) == tuple(t_logs[0]) == (4, 10)
    # the file's test_lenet: 64 images through a fresh LeNet
    shapes = [tuple(load("aladdin_cnn_architectures").lenet5(lib)["test_lenet"]().shape)
              for lib in (torch, pyad)]
    assert shapes[1] == shapes[0] == (64, 10)


# VGG16, ResNet50 and GoogLeNet normalise with BatchNorm2d over batch 2, down to 7x7 (1x1
# for ResNet's last blocks at 32x32): in float32 the frameworks' rounding grows through
# these stacks (as in the eighteenth batch), so they are compared in float64

def test_aladdin_vgg16_float64():
    with default_dtype("float64"):
        t, p, t_logs, p_logs = _arch_twins("VGG16", width=16, num_classes=10)
    _arch_compare(t, p, rtol=1e-7, atol=1e-9)
    assert tuple(p_logs[1]) == tuple(t_logs[1]) == (2, 10)
    # print(model): the module tree (torch's and pyad's reprs, line by line)
    assert str(p_logs[0]) == str(t_logs[0])


def test_aladdin_resnet50_float64():
    with default_dtype("float64"):
        t, p, t_logs, p_logs = _arch_twins("ResNet50", width=16, num_classes=10, size=64)
    _arch_compare(t, p, rtol=1e-7, atol=1e-9)
    np.testing.assert_allclose(_np(p["outputs"]).sum(1), 1.0, rtol=1e-12)  # the softmax


def test_aladdin_resnet_softmax_of_one_raises():
    # the text's ``x = self.softmax(1)``: nn.Softmax of the number 1 (torch: the int has no
    # ``softmax``; pyad takes the number as an int64 Variable, which softmax refuses, a
    # NotImplementedError as torch's for an int64 tensor)
    module = load("aladdin_cnn_architectures")
    with pytest.raises(AttributeError):
        module.run(torch, model="ResNet50", width=16, size=32, softmax_of_one=True,
                   log=lambda *a: None)
    with pytest.raises(NotImplementedError, match="softmax"):
        module.run(pyad, model="ResNet50", width=16, size=32, softmax_of_one=True,
                   log=lambda *a: None)


def test_aladdin_resnet_depths():
    # ResNet50/101/152: [3, 4, 6, 3], [3, 4, 23, 3], [3, 8, 36, 3] bottleneck blocks
    for lib in (torch, pyad):
        names = load("aladdin_cnn_architectures").resnet(lib, width=16)
        for name, layers in (("ResNet50", [3, 4, 6, 3]), ("ResNet101", [3, 4, 23, 3]),
                             ("ResNet152", [3, 8, 36, 3])):
            net = names[name](img_channel=3, num_classes=10)
            assert [len(getattr(net, "layer%d" % i)) for i in range(1, 5)] == layers
        # the file's test(): ResNet101 of a batch (4 at 224x224 in the text; 2 at 64x64)
        assert tuple(names["test"](N=2, size=64)) == (2, 1000)
    t_n = sum(v.numel() for v in load("aladdin_cnn_architectures").resnet(
        torch, width=16)["ResNet101"]().parameters())
    p_n = sum(v.numel() for v in load("aladdin_cnn_architectures").resnet(
        pyad, width=16)["ResNet101"]().parameters())
    assert p_n == t_n


def test_aladdin_googlenet_float64():
    with default_dtype("float64"):
        t, p, t_logs, p_logs = _arch_twins("GoogLeNet", width=16, num_classes=10)
    _arch_compare(t, p, rtol=1e-7, atol=1e-9)
    assert tuple(p_logs[0]) == tuple(t_logs[0]) == (2, 10)


# -- GANs/1. SimpleGAN/fc_gan.py --------------------------------------------------------------

def test_aladdin_fc_gan():
    t, _ = twins("aladdin_fc_gan", num_epochs=2, batch_size=8, n=16, shuffle=False)
    assert len(t) == 2 * 2 * 2


# -- linkedin_posts/tensor_operations/*.py ---------------------------------------------------

def test_aladdin_tensor_operations():
    import torch.utils.benchmark  # noqa: F401 (torch's submodule is imported on demand)
    module = load("aladdin_tensor_operations")
    t_logs, p_logs = [], []
    t = module.run(stream(torch), size=16, n_batch=2, n=4, m=5, k=3, num_runs=3,
                   log=t_logs.append)
    p = module.run(stream(pyad), size=16, n_batch=2, n=4, m=5, k=3, num_runs=3,
                   log=p_logs.append)
    for part in ("cat_vs_stack", "torch_matrix_mult", "transpose_vs_permute"):
        assert list(p[part]) == list(t[part])
        for name, v in t[part].items():
            assert tuple(p[part][name].shape) == tuple(v.shape), (part, name)
            np.testing.assert_allclose(_np(p[part][name]), _np(v), rtol=1e-5, atol=1e-6,
                                       err_msg=part + " " + name)
    assert tuple(t["cat_vs_stack"]["stack_dim2"].shape) == (2, 3, 2)
    assert tuple(t["transpose_vs_permute"]["permuted"].shape) == (4, 2, 3)
    # the benchmark: one Measurement per method, the labels and the table's rows
    tm, pm = t["bmm_einsum_matmul"], p["bmm_einsum_matmul"]
    assert len(pm) == len(tm) == 3
    for a, b in zip(pm, tm):
        assert (a.label, a.sub_label, a.description) == (b.label, b.sub_label,
                                                         b.description)
        assert a.number_per_run == b.number_per_run and a.mean > 0
    assert len(p_logs) == len(t_logs) == 1
    p_lines, t_lines = p_logs[0].splitlines(), t_logs[0].splitlines()
    assert p_lines[:2] == t_lines[:2] == ["[ Batched Matrix Multiplication ]",
                                          "                      |  2x4x5x3"]
    assert p_lines[2].startswith("%d threads: -" % pyad.get_num_threads())
    assert t_lines[2].startswith("%d threads: -" % torch.get_num_threads())
    for i, method in enumerate(("bmm", "matmul", "einsum")):
        assert p_lines[3 + i].split("|")[0] == t_lines[3 + i].split("|")[0] == (
            "      Method: %-8s" % method)
        assert float(p_lines[3 + i].split("|")[1]) > 0
    assert p_lines[-1] == t_lines[-1] == "Times are in microseconds (us)."
    # CUDA-only timing: not run on the CPU, in either
    assert callable(p["float64_float32_float16"]) and callable(t["float64_float32_float16"])
