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
    t = module.run(seeded(torch), model=name, init=record, log=lambda *a: None, **options)
    p = module.run(seeded(pyad), model=name, init=restore, log=lambda *a: None, **options)
    return t, p


def _compare(t, p, rtol=RTOL, atol=ATOL):
    def _close(a, e, what):
        _close_at(a, e, what, rtol, atol)

    _close(p["outputs"], t["outputs"], "first outputs")
    np.testing.assert_allclose(p["train_loss"], t["train_loss"], rtol=rtol, atol=atol)
    assert p["train_correct"] == t["train_correct"]
    assert list(p["grads"]) == list(t["grads"])
    for k, g in t["grads"].items():
        if g is None:
            assert p["grads"][k] is None, k
        else:
            _close(p["grads"][k], g, "grad " + k)
    np.testing.assert_allclose(p["test_loss"], t["test_loss"], rtol=rtol, atol=atol)
    assert p["test_correct"] == t["test_correct"]
    assert p["acc"] == t["acc"] and p["best_acc"] == t["best_acc"]
    np.testing.assert_allclose(p["lr"], t["lr"], rtol=1e-12)
    _close(p["test_outputs"], t["test_outputs"], "eval outputs")
    t_state, p_state = t["net"].state_dict(), p["net"].state_dict()
    assert list(p_state) == list(t_state)
    for k, v in t_state.items():
        if k.endswith("num_batches_tracked"):
            assert int(p_state[k]) == int(v), k
        else:
            _close(p_state[k], v, "after the steps: " + k)


FAST = ["PreActResNet18", "VGG11", "MobileNet", "MobileNetV2", "ShuffleNetV2", "SENet18",
        "EfficientNetB0", "SimpleDLA", "ResNet18"]


# float32 at torch's tolerances: the nets whose gradients are well conditioned at batch 2.
# MobileNet, MobileNetV2, ShuffleNetV2, EfficientNetB0 and SimpleDLA stack 14 to 50
# BatchNorm2d layers, the last ones over 2x2 or 4x4 maps of 2 images (8 to 32 values):
# float32 rounding in the forward differs by 1e-3 relative in the first conv's
# gradient between torch's and pyad's kernels (both a float32 rounding apart from the
# float64 result), so those run in float64 only (test_main_loop_float64), as the
# README's eleventh batch does for its batch-normalised nets.
FLOAT32 = ["PreActResNet18", "VGG11", "SENet18", "ResNet18"]


@pytest.mark.parametrize("name", FLOAT32)
def test_main_loop(name):
    # float32: one SGD step (batch 2)
    t, p = twins(name, epochs=1, n_train=2, n_test=2)
    assert len(t["train_loss"]) == 1
    _compare(t, p)


@pytest.mark.parametrize("name", FAST)
def test_main_loop_float64(name):
    # two epochs of one step each in float64: with batch 2 the last BatchNorm2d layers
    # normalise over 2 to 8 values, which turns float32 rounding of the first step into
    # differences of 1e-3 relative in the second step's weights (VGG11's 1x1 maps)
    with default_dtype("float64"):
        t, p = twins(name, epochs=2, n_train=2, n_test=2)
    assert len(t["train_loss"]) == 2
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
    t, p = twins("EfficientNetB0", epochs=1)
    assert t["grads"]["layers.0.conv1.weight"] is None
    assert p["grads"]["layers.0.conv1.weight"] is None


def test_batch_list_matches_the_directory():
    assert os.path.exists(os.path.join(_helpers.PORTED, "pytorch_cifar.py"))
