"""inference_mode (torch's names and forms) and NumPy conversion under no_grad."""
import threading

import numpy as np
import pytest

import pyad
from pyad.autograd import Function
from pyad.autograd.function import once_differentiable


def test_inference_mode_records_nothing_and_restores_grad_mode():
    x = pyad.ones(2, requires_grad=True)
    assert not pyad.is_inference_mode_enabled()
    with pyad.inference_mode():
        assert pyad.is_inference_mode_enabled() and not pyad.is_grad_enabled()
        y = x * 2
    assert not y.requires_grad and y.grad_fn is None
    assert pyad.is_grad_enabled() and not pyad.is_inference_mode_enabled()


def test_inference_mode_false_turns_grad_mode_on_inside():
    x = pyad.ones(2, requires_grad=True)
    with pyad.inference_mode():
        with pyad.inference_mode(False):
            assert not pyad.is_inference_mode_enabled()
            assert pyad.is_grad_enabled()           # as torch: grad mode = not mode
            assert (x * 2).requires_grad
        assert pyad.is_inference_mode_enabled() and not pyad.is_grad_enabled()
    with pyad.no_grad(), pyad.inference_mode(mode=False):
        assert (x * 2).requires_grad
    assert pyad.is_grad_enabled()


def test_inference_mode_as_decorator_bare_and_called_and_in_autograd():
    x = pyad.ones(2, requires_grad=True)

    @pyad.inference_mode
    def bare(v):
        return v * 2

    @pyad.autograd.inference_mode()
    def called(v):
        return v * 2

    assert not bare(x).requires_grad and not called(x).requires_grad
    assert pyad.is_grad_enabled()
    assert pyad.autograd.is_inference_mode_enabled is pyad.is_inference_mode_enabled


def test_inference_mode_restores_on_error_and_is_thread_local():
    with pytest.raises(ValueError):
        with pyad.inference_mode():
            raise ValueError
    assert pyad.is_grad_enabled() and not pyad.is_inference_mode_enabled()
    seen = []
    with pyad.inference_mode():
        worker = threading.Thread(target=lambda: seen.append(
            (pyad.is_inference_mode_enabled(), pyad.is_grad_enabled())))
        worker.start()
        worker.join()
    assert seen == [(False, True)]


def test_inference_mode_matches_torch():
    torch = pytest.importorskip("torch")
    for lib in (pyad, torch):
        x = lib.ones(2, requires_grad=True)
        with lib.inference_mode():
            assert not (x * 2).requires_grad and lib.is_inference_mode_enabled()
        with lib.no_grad(), lib.inference_mode(False):
            assert lib.is_grad_enabled() and not lib.is_inference_mode_enabled()


# -- numpy() and np.asarray on a Variable that requires grad ------------------------------

def test_numpy_of_a_variable_that_requires_grad_works_only_without_grad_mode():
    x = pyad.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="detach"):
        x.numpy()
    with pytest.raises(RuntimeError, match="detach"):
        np.asarray(x)
    with pyad.no_grad():        # as torch: no graph can be dropped here
        assert x.numpy() is x.data
        np.testing.assert_array_equal(np.asarray(x), [1.0, 2.0])


def test_the_mark_dirty_example_of_torchs_docs_runs_and_catches_the_stale_save():
    # torch.autograd.function.FunctionCtx.mark_dirty's example, unchanged but for imports:
    # forward writes through x.numpy() (grad mode is off there) and marks x dirty; the
    # product saved x before the write, so backward refuses it.
    class Inplace(Function):
        @staticmethod
        def forward(ctx, x):
            x_npy = x.numpy()   # x_npy shares storage with x
            x_npy += 1
            ctx.mark_dirty(x)
            return x

        @staticmethod
        @once_differentiable
        def backward(ctx, grad_output):
            return grad_output

    a = pyad.tensor(1., requires_grad=True, dtype=pyad.double).clone()
    b = a * a
    Inplace.apply(a)
    assert a.item() == 2.0
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        b.backward()


# -- views made inside inference_mode, changed in place outside (torch's INFERENCE_MODE
#    creation meta): the same refusals as no_grad's, with torch's inference-mode wording

def _view_then_inplace(lib, scenario):
    if scenario == "leaf_view":
        x = lib.zeros(2, dtype=lib.float64, requires_grad=True)
        with lib.inference_mode():
            y = x.view(2)
        y.mul_(2)
    elif scenario == "nonleaf_view":
        x = lib.zeros(2, dtype=lib.float64, requires_grad=True).clone()
        with lib.inference_mode():
            y = x.view(2)
        y.add_(lib.ones(2, dtype=lib.float64, requires_grad=True))
    elif scenario == "view_of_view":
        x = lib.zeros(2, dtype=lib.float64)
        with lib.inference_mode():
            y = x.view(2)
        y.requires_grad_(True)
        z = y.view(2)
        z /= 2
    elif scenario == "no_grad_inside_inference_mode":
        x = lib.zeros(2, dtype=lib.float64)
        with lib.inference_mode():
            with lib.no_grad():
                y = x.view(2)
        y.requires_grad_(True)
        z = y.view(2)
        z /= 2
    elif scenario == "enable_grad_inside_inference_mode":
        x = lib.zeros(2, dtype=lib.float64)
        with lib.inference_mode():
            with lib.enable_grad():
                y = x.view(2)
        y.requires_grad_(True)
        z = y.view(2)
        z /= 2
    elif scenario == "inplace_under_no_grad":
        x = lib.zeros(2, dtype=lib.float64)
        with lib.inference_mode():
            y = x.view(2)
        y.requires_grad_(True)
        z = y.view(2)
        with lib.no_grad():
            z /= 2
        return z
    elif scenario == "no_grad_view_of_view":        # the no_grad wording is kept
        x = lib.zeros(2, dtype=lib.float64)
        with lib.no_grad():
            y = x.view(2)
        y.requires_grad_(True)
        z = y.view(2)
        z /= 2


@pytest.mark.parametrize("scenario", [
    "leaf_view", "nonleaf_view", "view_of_view", "no_grad_inside_inference_mode",
    "enable_grad_inside_inference_mode", "inplace_under_no_grad", "no_grad_view_of_view"])
def test_inplace_on_a_view_made_in_inference_mode_matches_torch(scenario):
    torch = pytest.importorskip("torch")
    try:
        _view_then_inplace(torch, scenario)
        expected = None
    except RuntimeError as e:
        expected = str(e)
    if expected is None:
        z = _view_then_inplace(pyad, scenario)
        np.testing.assert_array_equal(z.data, np.zeros(2))
        return
    with pytest.raises(RuntimeError) as info:
        _view_then_inplace(pyad, scenario)
    assert str(info.value) == expected


def test_inference_mode_flag_is_per_thread():
    seen = []
    with pyad.inference_mode():
        t = threading.Thread(target=lambda: seen.append(pyad.is_inference_mode_enabled()))
        t.start()
        t.join()
        assert pyad.is_inference_mode_enabled()
    assert seen == [False] and not pyad.is_inference_mode_enabled()


# -- views and inference Variables, as torch (each scenario runs on pyad and torch) --------

from _torch_compare import both, raises_in_both  # noqa: E402


@pytest.mark.parametrize("mode", ["inference_mode", "no_grad"])
@pytest.mark.parametrize("make", [lambda x: x[:2], lambda x: x.view(3),
                                  lambda x: x.unsqueeze(0), lambda x: x.expand(2, 3),
                                  lambda x: x.reshape(3)],
                         ids=["slice", "view", "unsqueeze", "expand", "reshape"])
def test_a_view_of_a_base_requiring_grad_made_in_the_mode_requires_grad_without_history(
        mode, make):
    def scenario(lib):
        x = lib.ones(3, requires_grad=True)
        with getattr(lib, mode)():
            v = make(x)
            inside = (v.requires_grad, v.grad_fn is None, v.is_leaf, v.is_inference())
        z = v * 2
        z.sum().backward()
        return inside + (v.requires_grad, v.is_inference(), z.requires_grad,
                         z.grad_fn is not None, x.grad is None, v.grad is None)
    both(scenario, (True, True, True, False, True, False, True, True, True, True))


def test_a_non_view_result_in_inference_mode_is_an_inference_variable():
    def scenario(lib):
        x = lib.ones(3, requires_grad=True)
        with lib.inference_mode():
            y, d, made, c = x * 2, x.detach(), lib.ones(2), lib.ones(3)[:2]
        return (y.requires_grad, y.is_inference(), d.requires_grad, d.is_inference(),
                made.is_inference(), c.is_inference(), x.is_inference(),
                (made * 2).is_inference(), made.clone().is_inference(), made[0].is_inference())
    both(scenario, (False, True, False, False, True, True, False, False, False, True))


def test_a_view_made_in_inference_mode_prints_requires_grad_as_torch():
    torch = pytest.importorskip("torch")
    reprs = []
    for lib in (pyad, torch):
        x = lib.ones(3, requires_grad=True)
        with lib.inference_mode():
            v = x[:2]
        reprs.append(repr(v))
    assert reprs[0] == reprs[1] == "tensor([1., 1.], requires_grad=True)"


def test_grad_with_respect_to_a_view_made_in_inference_mode_says_it_was_not_used():
    def scenario(lib):
        x = lib.ones(3, requires_grad=True)
        with lib.inference_mode():
            v = x[:2]
        lib.autograd.grad((v * 2).sum(), v)
    raises_in_both(scenario, RuntimeError, "appears to not have been used in the graph")


def test_an_inference_view_changed_in_place_outside_the_mode_is_refused():
    def scenario(lib):
        x = lib.ones(3, requires_grad=True)
        with lib.inference_mode():
            v = x[:2]
        v.add_(1)
    raises_in_both(scenario, RuntimeError, "A view was created in inference mode and is "
                                           "being modified inplace in normal mode")

    def inside(lib):
        x = lib.ones(3, requires_grad=True)
        with lib.inference_mode():
            v = x[:2]
            v.add_(1)
        return x.detach()
    both(inside, np.array([2.0, 2.0, 1.0]))


@pytest.mark.parametrize("action, match", [
    (lambda lib, a, w: a.add_(1), "Inplace update to inference"),
    (lambda lib, a, w: a[:2].mul_(2), "Inplace update to inference"),
    (lambda lib, a, w: a.requires_grad_(), "Setting requires_grad=True on inference"),
    (lambda lib, a, w: a * w, "cannot be saved for backward"),
], ids=["in-place", "in-place on a view", "requires_grad_", "saved by mul"])
def test_an_inference_variable_outside_the_mode_is_refused_as_torch(action, match):
    def scenario(lib):
        with lib.inference_mode():
            a = lib.ones(3)
        action(lib, a, lib.ones(3, requires_grad=True))
    raises_in_both(scenario, RuntimeError, match)


def test_an_inference_variable_outside_the_mode_works_where_nothing_is_saved():
    def scenario(lib):
        with lib.inference_mode():
            a = lib.ones(3)
            a.add_(1)                    # in-place inside the mode is allowed
        w = lib.ones(3, requires_grad=True)
        y = a + w
        y.sum().backward()
        return y.is_inference(), y.requires_grad, w.grad, lib.exp(a).is_inference()
    both(scenario, (False, True, np.ones(3), False))
