"""Ported kuangliu/pytorch-cifar (MIT, Copyright (c) 2017 liukuang): the CIFAR-10 models
of ``models/*.py`` and ``main.py``'s loop (examples/ported/pytorch_cifar.py).

Each model runs ``main.py``'s train() and test() on torch and on pyad from torch's
initial weights and buffers (synthetic CIFAR-shaped images, batch 2): the outputs of the
first batch, the loss, every parameter's gradient after the first backward (``None``
where the text leaves a layer unused), the accuracy counts, the learning rate of
``CosineAnnealingLR``, the eval-mode outputs (BatchNorm's running statistics) and every
weight and buffer after the SGD steps are compared with torch's. Dropout masks
(EfficientNet's head) come from one NumPy stream through the ``seeded`` proxy. Each
file's ``test()`` runs on both and gives torch's output shape.
"""
import importlib.util
import os

import numpy as np
import pytest

import pyad

torch = pytest.importorskip("torch")

_HERE = os.path.dirname(os.path.abspath(__file__))


def _module(name):
    spec = importlib.util.spec_from_file_location("_ported_helpers18_" + name,
                                                  os.path.join(_HERE, name + ".py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_helpers = _module("test_ported_examples")
load, seeded = _helpers.load, _helpers.seeded
default_dtype = _module("test_ported_examples_11").default_dtype

SCRIPTS = ["pytorch_cifar"]


@pytest.fixture(autouse=True)
def _one_torch_thread():
    # torch's thread pool on a loaded 2-core machine makes these small convolutions
    # (batch 2) tens of times slower; one thread, as the other ported batches run
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(threads)

# torch's float32 convolution tolerances (test_nn's conv checks)
RTOL, ATOL = 1e-4, 1e-5


def _np(v):
    return v.detach().numpy() if hasattr(v, "detach") else np.asarray(v)


def _close_at(actual, expected, what, rtol=RTOL, atol=ATOL):
    expected = _np(expected)
    scale = max(float(np.abs(expected).max(initial=0.0)), 1.0)
    np.testing.assert_allclose(_np(actual), expected, rtol=rtol, atol=atol * scale,
                               err_msg=what)


def twins(name, **options):
    state = {}

    def record(net):
        state.update({k: v.detach().numpy().copy() for k, v in net.state_dict().items()})

    def restore(net):
        assert list(net.state_dict()) == list(state)
        net.load_state_dict({k: pyad.tensor(v) for k, v in state.items()})

    module = load("pytorch_cifar")
    torch.manual_seed(0)  # torch's initial weights (pyad loads them)
    t = module.run(seeded(torch), model=name, init=record, log=lambda *a: None, **options)
    p = module.run(seeded(pyad), model=name, init=restore, log=lambda *a: None, **options)
    return t, p


def _compare(t, p, rtol=RTOL, atol=ATOL, after_backward=True):
    def _close(a, e, what):
        _close_at(a, e, what, rtol, atol)

    _close(p["outputs"], t["outputs"], "first outputs")
    np.testing.assert_allclose(p["train_loss"][:1], t["train_loss"][:1], rtol=rtol, atol=atol)
    assert p["train_correct"][:1] == t["train_correct"][:1]
    np.testing.assert_allclose(p["lr"], t["lr"], rtol=1e-12)
    assert list(p["grads"]) == list(t["grads"])
    for k, g in t["grads"].items():
        assert (p["grads"][k] is None) == (g is None), k
    if not after_backward:
        return
    for k, g in t["grads"].items():
        if g is not None:
            _close(p["grads"][k], g, "grad " + k)
    np.testing.assert_allclose(p["train_loss"], t["train_loss"], rtol=rtol, atol=atol)
    assert p["train_correct"] == t["train_correct"]
    np.testing.assert_allclose(p["test_loss"], t["test_loss"], rtol=rtol, atol=atol)
    assert p["test_correct"] == t["test_correct"]
    assert p["acc"] == t["acc"] and p["best_acc"] == t["best_acc"]
    _close(p["test_outputs"], t["test_outputs"], "eval outputs")
    t_state, p_state = t["net"].state_dict(), p["net"].state_dict()
    assert list(p_state) == list(t_state)
    for k, v in t_state.items():
        if k.endswith("num_batches_tracked"):
            assert int(p_state[k]) == int(v), k
        else:
            _close(p_state[k], v, "after the steps: " + k)


FAST = ["PreActResNet18", "VGG11", "MobileNet", "MobileNetV2", "ShuffleNetV2", "SENet18",
        "EfficientNetB0", "SimpleDLA", "ResNet18", "GoogLeNet", "DenseNet121", "densenet_cifar",
        "RegNetX_200MF", "DLA", "DPN26", "PNASNetA", "PNASNetB", "ResNeXt29_2x64d",
        "ResNeXt29_32x4d"]


# With batch 2 the deeper BatchNorm2d layers normalise over 2x2 or 4x4 maps of 2 images
# (8 to 32 values) in train mode: through stacks of them float32 rounding in the forward
# pass (torch's and pyad's kernels sum in different orders, and torch's order changes with
# its thread count) grows to about 1e-3 relative in the first convolution's gradient,
# both a float32 rounding apart from the float64 result. So every net's float32 outputs,
# first loss and accuracy count are compared at torch's float32 tolerances, the
# gradients, eval outputs and weights after the steps too for the two nets that stay
# within them for any initial weights, and the rest in float64 (one step; the README's
# eleventh batch does the same for its batch-normalised nets).
GRADS32 = ["VGG11", "SENet18"]
# PNASNetB's 19 cells of depthwise convolutions and BatchNorm2d: its float32 outputs
# already differ by 1e-4 relative for some initial weights (float64 only)
FLOAT32 = [n for n in FAST if n != "PNASNetB"]
# float64 for one net of each construct whose float32
# gradients cannot be compared: BasicBlock ResNet, depthwise inverted residuals, channel
# shuffle, swish + SE + dropout, grouped bottlenecks, dense concatenation. The other nets
# (MobileNet, SimpleDLA, GoogLeNet, DenseNet121, RegNetX_200MF, DLA, DPN26, PNASNetA/B,
# ResNeXt29_32x4d) run the same float64 comparison with FLOAT64_ALL=1 in the environment.
FLOAT64 = (["PreActResNet18", "ResNet18", "MobileNetV2", "ShuffleNetV2", "EfficientNetB0",
            "ResNeXt29_2x64d", "densenet_cifar"] if not os.environ.get("FLOAT64_ALL") else
           [n for n in FAST if n not in GRADS32 and n != "DenseNet121"])


@pytest.mark.parametrize("name", FLOAT32)
def test_main_loop(name):
    # float32: one SGD step (batch 2)
    t, p = twins(name, epochs=1, n_train=2, n_test=2)
    assert len(t["train_loss"]) == 1
    _compare(t, p, after_backward=name in GRADS32)


@pytest.mark.parametrize("name", FLOAT64)
def test_main_loop_float64(name):
    # DenseNet121 is left to its narrow densenet_cifar (growth rate 12, the same file)
    with default_dtype("float64"):
        t, p = twins(name, epochs=1, n_train=2, n_test=2)
    _compare(t, p, rtol=1e-7, atol=1e-9)


@pytest.mark.parametrize("name", FAST)
def test_model_file_test(name):
    module = load("pytorch_cifar")
    models, _ = module.MODELS[name]
    shapes = []
    for lib in (torch, pyad):
        names = models(seeded(lib))
        names["print"] = lambda *a: None
        shapes.append(tuple(names["test"]().shape))
    assert shapes[1] == shapes[0]


def test_efficientnet_drop_rates_and_unused_expansion():
    # the text's _make_layers never increments ``b``: every Block's drop_rate is 0, so
    # drop_connect never runs; the first block (expansion 1) leaves conv1/bn1 unused
    for lib in (torch, pyad):
        names = load("pytorch_cifar").efficientnet(lib)
        net = names["EfficientNetB0"]()
        assert [b.drop_rate for b in net.layers] == [0.0] * 16
        net(lib.randn(2, 3, 32, 32)).sum().backward()
        assert net.layers[0].conv1.weight.grad is None
        assert net.layers[1].conv1.weight.grad is not None


def test_batch_list_matches_the_directory():
    assert os.path.exists(os.path.join(_helpers.PORTED, "pytorch_cifar.py"))
