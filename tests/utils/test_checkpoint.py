"""pyad.utils.checkpoint against torch.utils.checkpoint on the same inputs: values and
gradients in both modes, parameters reached through a closure, keyword arguments,
second order, the random stream replayed, memory actually released, and the errors."""
import tracemalloc
import warnings

import numpy as np
import pytest

import pyad
from pyad.utils.checkpoint import checkpoint, checkpoint_sequential
from pyad.autograd import gradcheck, gradgradcheck

torch = pytest.importorskip("torch")
TC = pytest.importorskip("torch.utils.checkpoint")

RNG = np.random.default_rng(0)
W = RNG.standard_normal((4, 4))
X = RNG.standard_normal((3, 4))


def _vars(lib):
    if lib is pyad:
        return (pyad.Variable(W.copy(), requires_grad=True),
                pyad.Variable(X.copy(), requires_grad=True))
    return torch.tensor(W.copy(), requires_grad=True), torch.tensor(X.copy(), requires_grad=True)


def _np(v):
    return v.detach().numpy() if isinstance(v, torch.Tensor) else np.asarray(v.data)


def _block(w):
    return lambda a, scale=1.0: (a @ w).tanh() * a * scale


@pytest.mark.parametrize("use_reentrant", [False, True])
def test_values_and_gradients_match_torch(use_reentrant):
    results = []
    for lib, ck in ((pyad, checkpoint), (torch, TC.checkpoint)):
        w, x = _vars(lib)
        y = ck(_block(w), x * 2, use_reentrant=use_reentrant)
        assert y.requires_grad
        (y ** 2).sum().backward()
        results.append((y, x.grad, w.grad))
    for got, want in zip(*results):
        np.testing.assert_allclose(_np(got), _np(want), rtol=1e-12, atol=1e-14)


def test_keyword_arguments_and_tuple_outputs_without_reentrant():
    results = []
    for lib, ck in ((pyad, checkpoint), (torch, TC.checkpoint)):
        w, x = _vars(lib)

        def f(a, scale=1.0):
            h = _block(w)(a, scale)
            return h, h.sum(), 7
        h, s, seven = ck(f, x, use_reentrant=False, scale=3.0)
        assert seven == 7
        (h.sum() * s).backward()
        results.append((h, s, x.grad, w.grad))
    for got, want in zip(*results):
        np.testing.assert_allclose(_np(got), _np(want), rtol=1e-12, atol=1e-13)
    w, x = _vars(pyad)
    with pytest.raises(ValueError, match="Unexpected keyword arguments: scale"):
        checkpoint(_block(w), x, use_reentrant=True, scale=3.0)


def test_grad_and_second_order_without_reentrant_match_torch():
    results = []
    for lib, ck in ((pyad, checkpoint), (torch, TC.checkpoint)):
        w, x = _vars(lib)
        y = ck(_block(w), x * 2, use_reentrant=False)
        g = lib.autograd.grad(y.sum(), [x, w], create_graph=True)
        h = lib.autograd.grad((g[0] ** 2).sum() + (g[1] ** 3).sum(), [x, w])
        results.append(list(g) + list(h))
    for got, want in zip(*results):
        np.testing.assert_allclose(_np(got), _np(want), rtol=1e-11, atol=1e-12)


def test_reentrant_output_needs_an_input_requiring_grad_as_torch():
    for lib, ck in ((pyad, checkpoint), (torch, TC.checkpoint)):
        w, _ = _vars(lib)
        x = lib.ones(3, 4, dtype=lib.float64)
        with pytest.warns(UserWarning, match="None of the inputs have requires_grad=True"):
            y = ck(_block(w), x, use_reentrant=True)
        assert not y.requires_grad
        # the non-reentrant mode still reaches the parameter
        y = ck(_block(w), x, use_reentrant=False)
        assert y.requires_grad
        y.sum().backward()
        assert w.grad is not None


def test_use_reentrant_must_be_passed_explicitly():
    w, x = _vars(pyad)
    with pytest.warns(UserWarning, match="use_reentrant parameter should be passed"):
        checkpoint(_block(w), x)


def test_random_numbers_replayed_and_the_stream_left_alone():
    def f(a):
        return pyad.nn.functional.dropout(a * 3.0, 0.5, training=True)
    for use_reentrant in (False, True):
        pyad.manual_seed(1)
        x = pyad.Variable(X.copy(), requires_grad=True)
        y = checkpoint(f, x, use_reentrant=use_reentrant)
        after_forward = pyad.rand(4).data
        y.sum().backward()
        # the gradient is 3 / (1 - p) where the forward kept the value, else 0
        np.testing.assert_array_equal(x.grad.data, np.where(y.data != 0, 6.0, 0.0))
        # the same draws as without a checkpoint, and the recomputation consumed none
        pyad.manual_seed(1)
        plain = f(pyad.Variable(X.copy()))
        np.testing.assert_array_equal(plain.data, y.data)
        np.testing.assert_array_equal(pyad.rand(4).data, after_forward)


def test_memory_between_forward_and_backward_is_the_inputs_only():
    n = 200_000                                   # 1.6 MB per float64 intermediate

    def deep(a):
        for _ in range(10):
            a = (a * 1.001).tanh()
        return a

    def held(run):
        x = pyad.Variable(np.linspace(-1, 1, n), requires_grad=True)
        tracemalloc.start()
        y = run(x)
        current, _ = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        y.sum().backward()
        ref = deep(pyad.Variable(x.data.copy(), requires_grad=True))
        assert np.allclose(y.data, ref.data)
        return current, x.grad.data

    plain, g_plain = held(deep)
    checked, g_checked = held(lambda x: checkpoint(deep, x, use_reentrant=False))
    np.testing.assert_allclose(g_checked, g_plain, rtol=1e-12)
    assert plain > 9 * 8 * n                      # the plain graph holds the 10 tanh outputs
    assert checked < 3 * 8 * n, (plain, checked)  # the output (and a little more)


def test_a_closure_over_a_variable_with_history_warns_and_stays_correct():
    w, x = _vars(pyad)
    w2 = w * 2                                    # history the checkpoint cannot see
    with pytest.warns(UserWarning, match="Variable with history that is not one of its"):
        y = checkpoint(_block(w2), x, use_reentrant=False)
    y.sum().backward()
    wt, xt = _vars(torch)
    TC.checkpoint(_block(wt * 2), xt, use_reentrant=False).sum().backward()
    np.testing.assert_allclose(w.grad.data, wt.grad.numpy(), rtol=1e-12)
    np.testing.assert_allclose(x.grad.data, xt.grad.numpy(), rtol=1e-12)


def test_no_grad_runs_the_function_plainly():
    w, x = _vars(pyad)
    with pyad.no_grad():
        y = checkpoint(_block(w), x, use_reentrant=False)
    assert not y.requires_grad
    np.testing.assert_allclose(y.data, _block(w)(x).data)


def test_an_input_modified_in_place_after_the_forward_is_an_error():
    w, x = _vars(pyad)
    a = x * 1.0
    y = checkpoint(_block(w), a, use_reentrant=False)
    with pyad.no_grad():
        a.add_(1.0)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


@pytest.mark.parametrize("segments", [1, 2, 3])
def test_checkpoint_sequential_matches_torch(segments):
    pyad.manual_seed(0)
    pm = pyad.nn.Sequential(pyad.nn.Linear(4, 5), pyad.nn.Tanh(), pyad.nn.Linear(5, 5),
                            pyad.nn.Sigmoid(), pyad.nn.Linear(5, 2))
    tm = torch.nn.Sequential(torch.nn.Linear(4, 5), torch.nn.Tanh(), torch.nn.Linear(5, 5),
                             torch.nn.Sigmoid(), torch.nn.Linear(5, 2)).double()
    with torch.no_grad():
        for p, t in zip(pm.parameters(), tm.parameters()):
            t.copy_(torch.from_numpy(p.data.astype(np.float64)))
    for p in pm.parameters():
        p.data = p.data.astype(np.float64)
    xp = pyad.Variable(X.copy(), requires_grad=True)
    xt = torch.tensor(X.copy(), requires_grad=True)
    yp = checkpoint_sequential(pm, segments, xp, use_reentrant=False)
    yt = TC.checkpoint_sequential(tm, segments, xt, use_reentrant=False)
    np.testing.assert_allclose(yp.data, yt.detach().numpy(), rtol=1e-12)
    yp.sum().backward()
    yt.sum().backward()
    np.testing.assert_allclose(xp.grad.data, xt.grad.numpy(), rtol=1e-12)
    for p, t in zip(pm.parameters(), tm.parameters()):
        np.testing.assert_allclose(p.grad.data, t.grad.numpy(), rtol=1e-12, atol=1e-15)


def test_rng_state_functions_as_torch():
    state = pyad.get_rng_state()
    assert state.dtype == np.uint8
    a = pyad.randn(5)
    pyad.set_rng_state(state)
    np.testing.assert_array_equal(pyad.randn(5).data, a.data)


# -- torch's non-reentrant cases (test_checkpointing_without_reentrant_parameter_used_in_an_out)

def test_non_reentrant_argument_passed_twice_gets_its_gradient_once():
    ckpt = pyad.utils.checkpoint.checkpoint
    w = pyad.tensor([1.0, 2.0], requires_grad=True)
    ckpt(lambda a, b: a * b, w, w, use_reentrant=False).sum().backward()
    np.testing.assert_allclose(w.grad.data, [2.0, 4.0])          # d(w*w)/dw = 2w


def test_non_reentrant_leaf_used_inside_and_through_an_argument():
    ckpt = pyad.utils.checkpoint.checkpoint
    w = pyad.tensor([1.0, 2.0], requires_grad=True)
    ckpt(lambda a: a + w, w + 1, use_reentrant=False).sum().backward()
    np.testing.assert_allclose(w.grad.data, [2.0, 2.0])          # once each way


def test_non_reentrant_same_layer_checkpointed_twice():
    ckpt = pyad.utils.checkpoint.checkpoint
    pyad.manual_seed(0)
    lin = pyad.nn.Linear(3, 3)
    x = pyad.ones(2, 3, requires_grad=True)
    ckpt(lin, ckpt(lin, x, use_reentrant=False), use_reentrant=False).sum().backward()
    expected_w = lin.weight.grad.data.copy()
    expected_x = x.grad.data.copy()
    lin.weight.grad = None
    x.grad = None
    lin(lin(x)).sum().backward()                                  # without checkpoints
    np.testing.assert_allclose(expected_w, lin.weight.grad.data, rtol=1e-6)
    np.testing.assert_allclose(expected_x, x.grad.data, rtol=1e-6)


# -- create_graph through a checkpoint whose argument's history reaches a leaf the
#    function also uses (or another argument): nothing counted twice, as torch ---------

def _overlap_case(lib, ck, nested=False):
    w = lib.tensor([0.7, -0.4], dtype=lib.float64, requires_grad=True)
    x = lib.tensor([0.3, 1.1], dtype=lib.float64, requires_grad=True)
    a1 = x * w                                     # w in the argument's history ...
    a2 = (a1 * w).exp()                            # ... and an argument from another

    def f(a, b):                                   # ... and w used inside
        return ((a * b * w).sin() * w).sum() + (a * a).sum()

    if nested:
        out = ck(lambda a: ck(f, a, a.exp(), use_reentrant=False), a1, use_reentrant=False)
    else:
        out = ck(f, a1, a2, use_reentrant=False)
    out = out * out
    g = lib.autograd.grad(out, (x, w), create_graph=True)
    gg = lib.autograd.grad(g[1].sum() + g[0].pow(2).sum(), (x, w), create_graph=True)
    return g, gg, (x, w)


@pytest.mark.parametrize("nested", [False, True])
def test_create_graph_counts_a_shared_leaf_once_as_torch(nested):
    from torch.utils.checkpoint import checkpoint as torch_checkpoint
    ours = _overlap_case(pyad, checkpoint, nested)
    theirs = _overlap_case(torch, torch_checkpoint, nested)
    for order in (0, 1):                           # first and second derivatives
        for p, t in zip(ours[order], theirs[order]):
            np.testing.assert_allclose(p.detach().numpy(), t.detach().numpy(),
                                       rtol=1e-12, atol=1e-12)


def test_third_order_is_exact_when_no_history_is_shared():
    # No argument's history reaches the leaf (passed as an argument) or another
    # argument: the recomputation runs on the real arguments, exact to any order.
    from torch.utils.checkpoint import checkpoint as torch_checkpoint
    results = []
    for lib, ck in ((pyad, checkpoint), (torch, torch_checkpoint)):
        w = lib.tensor([0.7, -0.4], dtype=lib.float64, requires_grad=True)
        x = lib.tensor([0.3, 1.1], dtype=lib.float64, requires_grad=True)
        out = ck(lambda a, v: ((a * v).sin() * v * a).sum(), x.exp(), w,
                 use_reentrant=False)
        g = lib.autograd.grad(out * out, (x, w), create_graph=True)
        gg = lib.autograd.grad(g[1].sum() + g[0].pow(2).sum(), (x, w), create_graph=True)
        ggg = lib.autograd.grad(gg[0].sum() * gg[1].sum(), (x, w))
        results.append([t.detach().numpy() for t in g + gg + ggg])
    for p, t in zip(*results):
        np.testing.assert_allclose(p, t, rtol=1e-11, atol=1e-12)


def test_create_graph_through_a_shared_leaf_passes_gradgradcheck():
    w = pyad.tensor([0.7, -0.4], dtype=pyad.float64, requires_grad=True)

    def fn(x, w):
        return checkpoint(lambda a: ((a * w).sin() * w).sum(), x * w, use_reentrant=False)

    x = pyad.tensor([0.3, 1.1], dtype=pyad.float64, requires_grad=True)
    assert gradcheck(fn, (x, w)) and gradgradcheck(fn, (x, w))


@pytest.mark.parametrize("call", ["grad", "backward_inputs"])
def test_reentrant_checkpoint_refuses_grad_and_backward_inputs_as_torch(call):
    for lib, ck in ((torch, TC.checkpoint), (pyad, checkpoint)):
        w = lib.tensor([0.5, 2.0], requires_grad=True)
        x = lib.tensor([1.0, 3.0], requires_grad=True)
        out = ck(lambda a: (a * w).sin(), x, use_reentrant=True).sum()
        with pytest.raises(RuntimeError, match="use_reentrant=True"):
            if call == "grad":
                lib.autograd.grad(out, (x,))
            else:
                out.backward(inputs=[x])
    # plain backward() still works, and _is_checkpoint_valid is True outside any pass
    assert pyad.autograd._is_checkpoint_valid() and torch.autograd._is_checkpoint_valid()
    w = pyad.tensor([0.5, 2.0], requires_grad=True)
    checkpoint(lambda a: (a * w).sin(), w * 1, use_reentrant=True).sum().backward()
    assert w.grad is not None


def test_is_checkpoint_valid_inside_passes_as_torch():
    seen = {}
    for lib in (torch, pyad):
        x = lib.tensor([1.0], requires_grad=True)
        y = x * 2
        y.register_hook(lambda g, lib=lib: seen.setdefault(lib.__name__, []).append(
            lib.autograd._is_checkpoint_valid()) or g)
        y.sum().backward(retain_graph=True)
        lib.autograd.grad(y.sum(), x, retain_graph=True)
        y.sum().backward(inputs=[x])
    assert seen["pyad"] == seen["torch"] == [True, False, False]


def _flaky(lib, first, then):
    """A function that runs `first` in the forward and `then` in the recomputation."""
    calls = []

    def fn(x):
        calls.append(1)
        return (first if len(calls) == 1 else then)(x)
    return fn


@pytest.mark.parametrize("check", ["default", "none"])
def test_determinism_check_modes_as_torch(check):
    # the same number of saved values with a different shape: only "default" sees it
    def two(x):
        return x.sin().exp()

    def two_other(x):
        return x.sin().sum(0, keepdim=True).exp().expand(3, 2)   # exp saves a (1, 2)

    for lib, ck, error in ((torch, TC.checkpoint, TC.CheckpointError),
                           (pyad, checkpoint, pyad.utils.checkpoint.CheckpointError)):
        x = lib.ones(3, 2, requires_grad=True)
        out = ck(_flaky(lib, two, two_other), x, use_reentrant=False,
                 determinism_check=check)
        if check == "default":
            with pytest.raises(error, match="(tensors|Variables) have different metadata"):
                out.sum().backward()
        else:
            out.sum().backward()
            assert x.grad is not None
    assert issubclass(pyad.utils.checkpoint.CheckpointError, RuntimeError)


def test_determinism_check_counts_saved_values_even_when_off():
    for lib, ck in ((torch, TC.checkpoint), (pyad, checkpoint)):
        x = lib.ones(2, requires_grad=True)
        out = ck(_flaky(lib, lambda t: t.sin().exp().sin(), lambda t: t.sin().exp()), x,
                 use_reentrant=False, determinism_check="none")
        with pytest.raises(RuntimeError, match="A different number of (tensors|Variables) was saved "
                                               "during the original forward and "
                                               "recomputation"):
            out.sum().backward()


def test_determinism_check_rejects_unknown_modes_and_reentrant_debug_as_torch():
    for lib, ck in ((torch, TC.checkpoint), (pyad, checkpoint)):
        x = lib.ones(2, requires_grad=True)
        with pytest.raises(ValueError, match="determinism_check should be one of"):
            ck(lambda t: t.sin(), x, use_reentrant=False, determinism_check="strict")
        with pytest.raises(ValueError, match="only supported when use_reentrant=False"):
            ck(lambda t: t.sin(), x, use_reentrant=True, debug=True)


def test_debug_lists_what_each_run_saved_and_the_global_switch_overrides():
    from pyad.utils.checkpoint import set_checkpoint_debug_enabled
    x = pyad.ones(2, requires_grad=True)
    fn = _flaky(pyad, lambda t: t.sin().exp(), lambda t: t.sin() * pyad.ones(3, 2))
    out = checkpoint(fn, x, use_reentrant=False, debug=True)
    with pytest.raises(RuntimeError, match="you passed `debug=True`") as info:
        out.sum().backward()
    assert "(3, 2)" in str(info.value)            # the recomputation's saved shape
    fn = _flaky(pyad, lambda t: t.sin().exp(), lambda t: t.sin() * pyad.ones(3, 2))
    with set_checkpoint_debug_enabled(False):
        out = checkpoint(fn, x, use_reentrant=False, debug=True)
        with pytest.raises(RuntimeError, match="Tip: To see a more detailed"):
            out.sum().backward()


def test_a_deterministic_checkpoint_passes_the_check_under_every_setting():
    from pyad.utils.checkpoint import set_checkpoint_early_stop
    w = pyad.tensor([[0.5, -1.0], [2.0, 0.25]], dtype=pyad.float64, requires_grad=True)
    x = pyad.tensor([[1.0, 2.0]], dtype=pyad.float64, requires_grad=True)
    for early in (True, False):
        with set_checkpoint_early_stop(early):
            out = checkpoint(lambda a: (a @ w).tanh().exp(), x, use_reentrant=False)
            out.sum().backward()
    tw = torch.tensor(w.detach().numpy(), requires_grad=True)
    tx = torch.tensor(x.detach().numpy(), requires_grad=True)
    for _ in range(2):
        (tx @ tw).tanh().exp().sum().backward()
    np.testing.assert_allclose(w.grad.numpy(), tw.grad.numpy(), rtol=1e-13)
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-13)
