"""Module full backward hooks and backward pre-hooks against torch: what they see
(grad_input, grad_output, in which order), what their results replace, removal, and the
Grad-CAM pattern (a forward hook keeps the activation, a backward hook its gradient)."""
import warnings

import numpy as np
import pytest

import pyad

torch = pytest.importorskip("torch")


def _arr(v):
    return None if v is None else v.detach().numpy().copy()


def _run(lib, build, inputs, hook_result=None, pre_result=None, backward_seed=3,
         state=None):
    """Build the model (with torch's initial weights in ``state``), register hooks
    recording what they see, run forward+backward; return (record, input grads,
    parameter grads, initial state)."""
    lib.manual_seed(0)
    model = build(lib)
    if state is None:
        state = {k: v.detach().numpy().copy() for k, v in model.state_dict().items()}
    else:
        model.load_state_dict({k: lib.tensor(v) for k, v in state.items()})
    record = []

    def hook(module, grad_input, grad_output):
        record.append(("hook", type(module).__name__, [_arr(g) for g in grad_input],
                       [_arr(g) for g in grad_output]))
        return hook_result(grad_input) if hook_result else None

    def pre_hook(module, grad_output):
        record.append(("pre", type(module).__name__, [_arr(g) for g in grad_output]))
        return pre_result(grad_output) if pre_result else None

    for m in model.modules():
        if not list(m.children()):
            m.register_full_backward_hook(hook)
            m.register_full_backward_pre_hook(pre_hook)
    xs = [lib.tensor(a, requires_grad=rg) if isinstance(a, np.ndarray) else a
          for a, rg in inputs]
    out = model(*xs)
    g = np.random.default_rng(backward_seed).normal(size=tuple(out.shape))
    out.backward(lib.tensor(g, dtype=out.dtype))
    return (record, [_arr(x.grad) if hasattr(x, "grad") and x.grad is not None else None
                     for x in xs], [_arr(p.grad) for p in model.parameters()], state)


def _compare(build, inputs, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        theirs = _run(torch, build, inputs, **kwargs)
        ours = _run(pyad, build, inputs, state=theirs[3], **kwargs)
    (rec_p, xg_p, pg_p, _), (rec_t, xg_t, pg_t, _) = ours, theirs
    assert [r[:2] for r in rec_p] == [r[:2] for r in rec_t]
    for rp, rt in zip(rec_p, rec_t):
        for part_p, part_t in zip(rp[2:], rt[2:]):
            assert len(part_p) == len(part_t)
            for a, b in zip(part_p, part_t):
                assert (a is None) == (b is None)
                if a is not None:
                    np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    for a, b in zip(xg_p + pg_p, xg_t + pg_t):
        assert (a is None) == (b is None)
        if a is not None:
            np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def _x(*shape, seed=0):
    return np.random.default_rng(seed).normal(size=shape).astype(np.float32)


def test_sequential_hooks_see_torchs_gradients_in_torchs_order():
    _compare(lambda L: L.nn.Sequential(L.nn.Linear(3, 4), L.nn.Tanh(), L.nn.Linear(4, 2)),
             [(_x(5, 3), True)])


def test_no_input_requiring_grad_fires_with_none_grad_input():
    _compare(lambda L: L.nn.Sequential(L.nn.Linear(3, 4), L.nn.ReLU(), L.nn.Linear(4, 2)),
             [(_x(5, 3), False)])
    layer = pyad.nn.Linear(3, 2)
    layer.register_full_backward_hook(lambda m, gi, go: None)
    with pytest.warns(UserWarning, match="Full backward hook is firing"):
        layer(pyad.ones(2, 3)).sum().backward()


def test_hook_result_replaces_grad_input_and_pre_hook_result_replaces_grad_output():
    build = lambda L: L.nn.Sequential(L.nn.Linear(3, 4), L.nn.Sigmoid())  # noqa: E731
    _compare(build, [(_x(2, 3), True)], hook_result=lambda gi: tuple(
        None if g is None else g * 2 for g in gi))
    _compare(build, [(_x(2, 3), True)], pre_result=lambda go: tuple(g * -3 for g in go))


class _TwoInputs:
    """A module taking (x, scale: float, y): grad_input has 3 entries, None for the
    float, as torch."""

    @staticmethod
    def build(L):
        class M(L.nn.Module):
            def __init__(self):
                super().__init__()
                self.lin = L.nn.Linear(3, 3)

            def forward(self, x, scale, y):
                return self.lin(x) * scale + y * y
        return M()


def test_several_inputs_with_a_number_among_them():
    _compare(_TwoInputs.build, [(_x(2, 3), True), (2.5, None), (_x(2, 3, seed=1), True)])
    _compare(_TwoInputs.build, [(_x(2, 3), False), (2.5, None), (_x(2, 3, seed=1), True)])


def test_wrong_number_of_grad_inputs_is_an_error():
    layer = pyad.nn.Linear(3, 2)
    layer.register_full_backward_hook(lambda m, gi, go: (gi[0], gi[0]))
    with pytest.raises(RuntimeError, match="invalid number of grad_input, got 2, but expected 1"):
        layer(pyad.ones(2, 3, requires_grad=True)).sum().backward()
    tlayer = torch.nn.Linear(3, 2)
    tlayer.register_full_backward_hook(lambda m, gi, go: (gi[0], gi[0]))
    with pytest.raises(RuntimeError, match="invalid number of grad_input"):
        tlayer(torch.ones(2, 3, requires_grad=True)).sum().backward()


def test_handles_remove_hooks_and_no_grad_skips_them():
    seen = []
    layer = pyad.nn.Linear(3, 2)
    h1 = layer.register_full_backward_hook(lambda m, gi, go: seen.append("hook"))
    h2 = layer.register_full_backward_pre_hook(lambda m, go: seen.append("pre"))
    x = pyad.ones(2, 3, requires_grad=True)
    layer(x).sum().backward()
    assert seen == ["pre", "hook"]
    h1.remove()
    h2.remove()
    layer(x).sum().backward()
    assert seen == ["pre", "hook"]
    layer.register_full_backward_hook(lambda m, gi, go: seen.append("again"))
    with pyad.no_grad():
        out = layer(x)
    assert out.grad_fn is None and seen == ["pre", "hook"]


def test_output_grad_fn_is_torchs_hook_node():
    layer = pyad.nn.Linear(3, 2)
    layer.register_full_backward_hook(lambda m, gi, go: None)
    out = layer(pyad.ones(1, 3, requires_grad=True))
    tlayer = torch.nn.Linear(3, 2)
    tlayer.register_full_backward_hook(lambda m, gi, go: None)
    tout = tlayer(torch.ones(1, 3, requires_grad=True))
    assert type(out.grad_fn).__name__ == type(tout.grad_fn).__name__ == \
        "BackwardHookFunctionBackward"


def test_grad_cam_pattern_matches_torch():
    # activations from a forward hook, their gradients from a full backward hook on the
    # same conv layer, then the class-activation map
    def cam(L, state):
        conv = L.nn.Conv2d(1, 4, 3, padding=1)
        model = L.nn.Sequential(conv, L.nn.ReLU(), L.nn.AdaptiveAvgPool2d(1), L.nn.Flatten(),
                                L.nn.Linear(4, 3))
        if state:
            model.load_state_dict({k: L.tensor(v) for k, v in state.items()})
        else:
            state.update({k: v.detach().numpy().copy() for k, v in model.state_dict().items()})
        store = {}
        conv.register_forward_hook(lambda m, a, out: store.__setitem__("act", out))
        conv.register_full_backward_hook(lambda m, gi, go: store.__setitem__("grad", go[0]))
        x = L.tensor(_x(1, 1, 6, 6), requires_grad=True)
        scores = model(x)
        scores[0, 1].backward()
        weights = store["grad"].mean(dim=(2, 3), keepdim=True)
        return (weights * store["act"]).sum(1).relu().detach().numpy()

    state = {}
    theirs = cam(torch, state)
    ours = cam(pyad, state)
    assert np.abs(theirs).max() > 0
    np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-6)
