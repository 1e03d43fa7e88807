"""pyad.optim on complex parameters against torch.optim.

torch treats a complex parameter as a pair of real parameters (``view_as_real``): Adam's
moments are taken per real and imaginary part, not of the complex gradient squared.
SGD's update is linear in the gradient, so complex arithmetic gives the same steps.
Trajectories over 20 steps, from a real loss through the network's own gradients and
from given gradients, including non-contiguous and 0-d parameters.
"""
import numpy as np
import pytest

import pyad
from pyad import nn, optim

torch = pytest.importorskip("torch")

SHAPES = [(3, 2), (4,), ()]
STEPS = 20

CONFIGS = [
    ("SGD", dict(lr=0.05)),
    ("SGD", dict(lr=0.05, momentum=0.9)),
    ("SGD", dict(lr=0.05, momentum=0.9, nesterov=True, weight_decay=0.1)),
    ("SGD", dict(lr=0.05, momentum=0.5, dampening=0.3, weight_decay=0.1, maximize=True)),
    ("Adam", dict(lr=0.1)),
    ("Adam", dict(lr=0.1, amsgrad=True)),
    ("Adam", dict(lr=0.1, weight_decay=0.1, amsgrad=True)),
    ("Adam", dict(lr=0.1, maximize=True, betas=(0.8, 0.9))),
    ("AdamW", dict(lr=0.1)),
    ("AdamW", dict(lr=0.1, amsgrad=True, weight_decay=0.3)),
]


def _values(seed):
    rng = np.random.default_rng(seed)
    return [rng.normal(size=s) + 1j * rng.normal(size=s) for s in SHAPES]


def _ids(configs):
    return ["%s-%s" % (name, "-".join("%s=%s" % kv for kv in sorted(kw.items())))
            for name, kw in configs]


@pytest.mark.parametrize("name,kwargs", CONFIGS, ids=_ids(CONFIGS))
def test_trajectory_of_a_real_loss_matches_torch(name, kwargs):
    start, target = _values(0), _values(1)
    ps = [nn.Parameter(pyad.tensor(v)) for v in start]
    ts = [torch.nn.Parameter(torch.tensor(v)) for v in start]
    opt_p = getattr(optim, name)(ps, **kwargs)
    opt_t = getattr(torch.optim, name)(ts, **kwargs)
    for _ in range(STEPS):
        for lib, params, opt in ((pyad, ps, opt_p), (torch, ts, opt_t)):
            opt.zero_grad()
            loss = 0
            for p, tv in zip(params, target):
                d = p - lib.tensor(tv)
                # |p - t|^2 plus a non-holomorphic term: |p^2|
                loss = loss + (d * d.conj()).real.sum() + (p * p).abs().sum()
            loss.backward()
            opt.step()
        for p, t in zip(ps, ts):
            np.testing.assert_allclose(p.detach().numpy(), t.detach().numpy(),
                                       rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("name,kwargs", CONFIGS, ids=_ids(CONFIGS))
def test_trajectory_of_given_gradients_matches_torch(name, kwargs):
    start = _values(2)
    # a transposed (non-contiguous) parameter among them
    ps = [nn.Parameter(pyad.tensor(v)) for v in start]
    ps[0] = nn.Parameter(pyad.Variable(np.ascontiguousarray(start[0].T)).t())
    ts = [torch.nn.Parameter(torch.tensor(v)) for v in start]
    assert not ps[0].is_contiguous()
    opt_p = getattr(optim, name)(ps, **kwargs)
    opt_t = getattr(torch.optim, name)(ts, **kwargs)
    rng = np.random.default_rng(3)
    for step in range(STEPS):
        for p, t in zip(ps, ts):
            g = (rng.normal(size=p.shape) + 1j * rng.normal(size=p.shape)) * (step + 1)
            p.grad = pyad.tensor(g)
            t.grad = torch.tensor(g)
        opt_p.step()
        opt_t.step()
        for p, t in zip(ps, ts):
            np.testing.assert_allclose(p.detach().numpy(), t.detach().numpy(),
                                       rtol=1e-10, atol=1e-12)


def test_issue_example_adam_three_steps():
    # the issue: pyad gave [-0.3, 0.3] where torch gives [-0.3-0.3j, 0.3-0.3j]
    for amsgrad in (False, True):
        p = nn.Parameter(pyad.tensor(np.array([0j, 0j])))
        t = torch.nn.Parameter(torch.tensor(np.array([0j, 0j])))
        opt_p = optim.Adam([p], lr=0.1, amsgrad=amsgrad)
        opt_t = torch.optim.Adam([t], lr=0.1, amsgrad=amsgrad)
        g = np.array([1 + 1j, -1 + 1j])
        for _ in range(3):
            p.grad = pyad.tensor(g)
            t.grad = torch.tensor(g)
            opt_p.step()
            opt_t.step()
        np.testing.assert_allclose(p.detach().numpy(), t.detach().numpy(), rtol=1e-12)
        np.testing.assert_allclose(p.detach().numpy(), [-0.3 - 0.3j, 0.3 - 0.3j], rtol=1e-6)


def test_adam_state_stays_complex_and_round_trips():
    p = nn.Parameter(pyad.tensor(np.array([1 + 2j, -1j])))
    opt = optim.Adam([p], lr=0.1, amsgrad=True)
    p.grad = pyad.tensor(np.array([0.5 - 1j, 2 + 0j]))
    opt.step()
    state = opt.state[p]
    for key in ("exp_avg", "exp_avg_sq", "max_exp_avg_sq"):
        assert state[key].dtype == np.complex128
    # the second moment is per real and imaginary part: (1 - beta2) * (re^2 + i im^2)
    np.testing.assert_allclose(state["exp_avg_sq"].numpy(),
                               0.001 * np.array([0.25 + 1j, 4 + 0j]), rtol=1e-12)
    opt2 = optim.Adam([nn.Parameter(pyad.tensor(np.array([1 + 2j, -1j])))], lr=0.1,
                      amsgrad=True)
    opt2.load_state_dict(opt.state_dict())
    q = opt2.param_groups[0]["params"][0]
    q.grad = pyad.tensor(np.array([0.5 - 1j, 2 + 0j]))
    p.grad = pyad.tensor(np.array([0.5 - 1j, 2 + 0j]))
    opt.step()
    opt2.step()
    state2 = opt2.state[q]
    np.testing.assert_allclose(state2["exp_avg_sq"].numpy(), state["exp_avg_sq"].numpy())
