"""Helpers for the layer-vs-torch tests: build the same module in torch and pyad from
torch's weights (float64), run both on the same inputs and compare outputs and the
gradients w.r.t. inputs and every parameter."""
import numpy as np
import pytest

import pyad

torch = pytest.importorskip("torch")


def twin(torch_module, pyad_module):
    """Load ``torch_module``'s state_dict (as arrays) into ``pyad_module``; both float64."""
    torch_module = torch_module.double()
    pyad_module = pyad_module.double()
    sd = {k: pyad.tensor(v.detach().numpy().copy()) for k, v in torch_module.state_dict().items()}
    assert list(sd) == list(pyad_module.state_dict()), (list(sd),
                                                        list(pyad_module.state_dict()))
    pyad_module.load_state_dict(sd)
    return torch_module, pyad_module


def _flat(out):
    if isinstance(out, (tuple, list)):
        res = []
        for o in out:
            res.extend(_flat(o))
        return res
    if out is None:
        return []
    if hasattr(out, "batch_sizes"):         # PackedSequence
        return [out.data]
    return [out]


def compare(torch_module, pyad_module, inputs, call=None, atol=1e-10, rtol=1e-9,
            seed=0):
    """Run both modules on ``inputs`` (a list of float64 arrays, or None / non-array
    values passed as they are); compare every output, then the gradients of a random
    weighted sum of the outputs w.r.t. the array inputs and the parameters."""
    call = call or (lambda m, *a: m(*a))
    t_in = [torch.tensor(a, requires_grad=True) if isinstance(a, np.ndarray)
            and a.dtype.kind == "f" else (torch.tensor(a) if isinstance(a, np.ndarray) else a)
            for a in inputs]
    p_in = [pyad.tensor(a, requires_grad=True) if isinstance(a, np.ndarray)
            and a.dtype.kind == "f" else (pyad.tensor(a) if isinstance(a, np.ndarray) else a)
            for a in inputs]
    t_out = _flat(call(torch_module, *t_in))
    p_out = _flat(call(pyad_module, *p_in))
    assert len(t_out) == len(p_out)
    rng = np.random.default_rng(seed)
    t_loss = 0
    p_loss = 0
    for t, p in zip(t_out, p_out):
        assert tuple(t.shape) == tuple(p.shape), (tuple(t.shape), tuple(p.shape))
        np.testing.assert_allclose(p.data, t.detach().numpy(), atol=atol, rtol=rtol)
        if t.requires_grad:
            w = rng.standard_normal(tuple(t.shape))
            t_loss = t_loss + (t * torch.tensor(w)).sum()
            p_loss = p_loss + (p * pyad.tensor(w)).sum()
    if isinstance(t_loss, int):
        return t_out, p_out
    t_loss.backward()
    p_loss.backward()
    for t, p in zip(t_in, p_in):
        if isinstance(t, torch.Tensor) and t.requires_grad:
            if t.grad is None:
                assert p.grad is None or not np.any(p.grad.data)
            else:
                np.testing.assert_allclose(p.grad.data, t.grad.numpy(), atol=atol, rtol=rtol)
    for (name, tp), (pname, pp) in zip(torch_module.named_parameters(),
                                       pyad_module.named_parameters()):
        assert name == pname
        if tp.grad is None:
            assert pp.grad is None or not np.any(pp.grad.data), name
        else:
            assert pp.grad is not None, name
            np.testing.assert_allclose(pp.grad.data, tp.grad.numpy(), atol=atol, rtol=rtol,
                                       err_msg=name)
    return t_out, p_out


# -- small comparisons shared by the test_nn ports (test_torch_nn_ports_4/5/6.py) ------

def _rng(seed=0):
    return np.random.default_rng(seed)


def _np(x):
    if isinstance(x, (torch.Tensor, pyad.Variable)):
        return x.detach().numpy()
    return np.asarray(x)


def _eq(a, b):
    a, b = _np(a), _np(b)
    assert a.shape == b.shape, (a.shape, b.shape)
    np.testing.assert_array_equal(a, b)


def _close(p, t, atol=1e-10, rtol=1e-9):
    p, t = _np(p), _np(t)
    assert p.shape == t.shape, (p.shape, t.shape)
    np.testing.assert_allclose(p, t, atol=atol, rtol=rtol)


def _close32(p, t):
    # torch's assertEqual tolerances for float32
    _close(p, t, atol=1e-5, rtol=1.3e-6)


def _pair(a, requires_grad=False):
    a = np.asarray(a)
    return (torch.tensor(a, requires_grad=requires_grad),
            pyad.tensor(a, requires_grad=requires_grad))


def _test_module_empty_input(module, inp, check_size=True, inference=False):
    """torch.testing._internal.common_nn._test_module_empty_input."""
    if not inference:
        inp.requires_grad_(True)
    out = module(inp)
    if not inference:                 # (torch: no backward pass for an inference check)
        g_o = pyad.rand(*out.shape, dtype=out.dtype)
        out.backward(g_o)
    if check_size:
        assert out.size() == inp.size()
    if not inference:
        for p in module.parameters():
            if p.requires_grad:
                _eq(p.grad, np.zeros(tuple(p.grad.shape), dtype=p.grad.dtype))
        _eq(inp.grad, np.zeros(tuple(inp.shape), dtype=inp.dtype))
