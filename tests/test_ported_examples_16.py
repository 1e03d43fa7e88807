"""Ported seungeunrho/minimalRL scripts (examples/ported/minimalrl_*.py, MIT, Copyright
(c) 2019 seungeunrho): REINFORCE, actor-critic, DQN, PPO, PPO-LSTM, DDPG, SAC, V-trace,
ACER and A2C (its workers run in-process).

Each script runs on torch and on pyad from torch's initial weights (every model it
passes to ``init``), on the same seeded NumPy CartPole/Pendulum
(``examples/ported/_rl_envs.py``, gym is not installed). The actions come from one
NumPy stream through the namespace proxy (``Categorical.sample`` by the inverse CDF of a
shared uniform number, ``Normal.sample`` as ``loc + scale * eps`` of a shared standard
normal), and Python's ``random`` (epsilon-greedy coins, replay minibatches) and
``np.random`` (DDPG's Ornstein-Uhlenbeck noise) are seeded alike before each run, so both
runs take the same actions. Compared: the loss of every update, every value the script
passes to ``trace`` (TD targets, advantages, log-probabilities, importance ratios, the
soft-updated target weights), the lines it logs (numbers to float32 tolerance) and
every model's final weights.
"""
import collections
import importlib.util
import os
import random
import re

import numpy as np
import pytest

import pyad

torch = pytest.importorskip("torch")

pytestmark = [
    # the texts' torch.tensor(list of ndarrays), and torch's Tensor + ndarray
    pytest.mark.filterwarnings("ignore:Creating a tensor from a list of numpy"),
    pytest.mark.filterwarnings("ignore:__array_wrap__ must accept context"),
]

_HERE = os.path.dirname(os.path.abspath(__file__))
_PORTED = os.path.join(os.path.dirname(_HERE), "examples", "ported")


def _module(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_helpers = _module(os.path.join(_HERE, "test_ported_examples.py"), "_ported_helpers16")
load, Proxy, seeded = _helpers.load, _helpers.Proxy, _helpers.seeded
Gym = _module(os.path.join(_PORTED, "_rl_envs.py"), "_ported_rl_envs16").Gym

SCRIPTS = ["minimalrl_reinforce", "minimalrl_actor_critic", "minimalrl_dqn",
           "minimalrl_ppo", "minimalrl_ppo_lstm", "minimalrl_ddpg", "minimalrl_sac",
           "minimalrl_vtrace", "minimalrl_acer", "minimalrl_a2c"]


def rl_seeded(lib, seed=0):
    """``seeded(lib)`` whose ``distributions.Normal`` (and ``distributions.normal.Normal``)
    samples ``loc + scale * eps`` with ``eps`` from a NumPy stream."""
    base = seeded(lib, seed)
    rng = np.random.default_rng(seed + 1)

    class Normal(lib.distributions.Normal):
        def sample(self, sample_shape=()):
            shape = tuple(sample_shape) + tuple(self.loc.shape)
            eps = lib.tensor(rng.standard_normal(shape), dtype=self.loc.dtype)
            with lib.no_grad():
                return self.loc + self.scale * eps

    distributions = Proxy(base.distributions, Normal=Normal,
                          normal=Proxy(lib.distributions.normal, Normal=Normal))
    return Proxy(base, distributions=distributions)


def _value(value):
    if isinstance(value, (torch.nn.Module, pyad.nn.Module)):
        return {k: v.detach().numpy().copy() for k, v in value.state_dict().items()}
    if hasattr(value, "detach"):
        return value.detach().numpy().copy()
    return np.array(value, dtype=np.float64)


def _one_run(module, lib, gym, init, options):
    traced = collections.defaultdict(list)
    logged = []
    random.seed(0)
    np.random.seed(0)
    torch.manual_seed(0)
    pyad.manual_seed(0)
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # the tiny ops of these scripts are slower on more threads
    try:
        losses = module.run(rl_seeded(lib), gym, init=init,
                            log=lambda *a: logged.append(" ".join(str(x) for x in a)),
                            trace=lambda name, value: traced[name].append(_value(value)),
                            **options)
    finally:
        torch.set_num_threads(threads)
    return losses, traced, logged


_NUMBER = re.compile(r"-?\d+\.?\d*(?:e[-+]?\d+)?")


def twin_rl(name, gym_options=None, rtol=2e-4, atol=2e-5, weights_rtol=1e-3,
            weights_atol=1e-5, **options):
    """Run ``name``'s ``run`` on torch then on pyad; compare everything (see above)."""
    module = load(name)
    states, used = [], []

    def record(model):
        states.append({k: v.detach().numpy().copy() for k, v in model.state_dict().items()})

    def restore(model):
        state = states[len(used)]
        used.append(model)
        assert list(model.state_dict()) == list(state)
        model.load_state_dict({k: pyad.tensor(v) for k, v in state.items()})

    t_losses, t_traced, t_logged = _one_run(module, torch, Gym(0, **(gym_options or {})),
                                            record, options)
    p_losses, p_traced, p_logged = _one_run(module, pyad, Gym(0, **(gym_options or {})),
                                            restore, options)
    assert len(used) == len(states) > 0
    assert len(t_losses) == len(p_losses) > 0
    np.testing.assert_allclose(p_losses, t_losses, rtol=rtol, atol=atol)
    assert sorted(p_traced) == sorted(t_traced)
    for key in t_traced:
        assert len(p_traced[key]) == len(t_traced[key]), key
        for i, (t, p) in enumerate(zip(t_traced[key], p_traced[key])):
            if isinstance(t, dict):
                assert list(p) == list(t), key
                for k in t:
                    np.testing.assert_allclose(p[k], t[k], rtol=weights_rtol,
                                               atol=weights_atol, err_msg=f"{key} {k}")
            else:
                assert p.shape == t.shape, (key, i, p.shape, t.shape)
                np.testing.assert_allclose(p, t, rtol=rtol, atol=atol,
                                           err_msg=f"{key}[{i}]")
    assert len(p_logged) == len(t_logged)
    for t, p in zip(t_logged, p_logged):
        assert _NUMBER.sub("#", p) == _NUMBER.sub("#", t), (p, t)
        np.testing.assert_allclose([float(x) for x in _NUMBER.findall(p)],
                                   [float(x) for x in _NUMBER.findall(t)],
                                   rtol=rtol, atol=atol, err_msg=t)
    return t_losses, t_traced, t_logged


def test_reinforce():
    losses, traced, _ = twin_rl("minimalrl_reinforce", n_episodes=3)
    # the text's done = False before the episode loop: only the first episode has data
    assert len(losses) == len(traced["R"]) > 5


def test_actor_critic():
    losses, traced, _ = twin_rl("minimalrl_actor_critic", n_episodes=3)
    assert len(losses) == 3


def test_dqn():
    losses, traced, logged = twin_rl("minimalrl_dqn", {"new_api": True}, n_episodes=5,
                                     train_start=40, n_train=3, print_interval=2)
    assert len(losses) > 3 and len(logged) == 2


def test_ppo():
    losses, traced, logged = twin_rl("minimalrl_ppo", n_episodes=3, print_interval=2)
    assert len(losses) == len(traced["advantage"]) >= 4 and len(logged) == 2


def test_ppo_lstm():
    losses, traced, logged = twin_rl("minimalrl_ppo_lstm", n_episodes=3, print_interval=2)
    assert len(losses) >= 4 and len(logged) == 1


def test_vtrace():
    losses, traced, logged = twin_rl("minimalrl_vtrace", {"new_api": True}, n_episodes=3,
                                     print_interval=2)
    assert len(losses) == len(traced["vs"]) >= 3 and len(logged) == 1


def test_ddpg():
    losses, traced, logged = twin_rl("minimalrl_ddpg", {"max_episode_steps": 20},
                                     n_episodes=4, train_start=30, n_train=2,
                                     print_interval=2)
    assert len(losses) == 2 * 2 * 3 and len(traced["q_target"]) == 6
    assert len(logged) == 1


def test_sac():
    losses, traced, logged = twin_rl("minimalrl_sac", {"max_episode_steps": 15},
                                     n_episodes=5, train_start=20, batch_size=16,
                                     print_interval=2, actor_step_before_q_step=True)
    assert len(losses) == 3 * 4 and len(traced["log_prob"]) == 4
    assert len(logged) == 5 * 15 + 2


@pytest.mark.parametrize("lib", [torch, pyad], ids=["torch", "pyad"])
def test_sac_text_order_raises(lib):
    # q_optimizer.step() changes the Q networks' weights in place before loss_pi's
    # backward goes back through them: torch 2.13 raises, and so must pyad
    random.seed(0)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        load("minimalrl_sac").run(rl_seeded(lib), Gym(0, max_episode_steps=15),
                                  n_episodes=3, train_start=20, batch_size=16,
                                  log=lambda *a: None)


def test_acer():
    losses, traced, logged = twin_rl("minimalrl_acer", n_episodes=3, train_start=4,
                                     print_interval=2)
    assert len(losses) == len(traced["q_ret"]) >= 4 and len(logged) == 1


def test_a2c():
    # three environments stepped in-process (the text's workers are processes)
    losses, traced, logged = twin_rl("minimalrl_a2c", {"max_episode_steps": 25},
                                     max_train_steps=40, print_interval=20, num_test=2)
    assert len(losses) == 8 and traced["td_target"][0].shape == (5, 3)
    assert len(logged) == 2


@pytest.mark.xfail(strict=True, raises=AttributeError,
                   reason="engine: Variable.data is the NumPy array itself "
                   "(pyad/_engine.pyx, by design), so the text's soft update "
                   "param_target.data.copy_(...) raises "
                   "AttributeError: 'numpy.ndarray' object has no attribute 'copy_'")
def test_ddpg_data_copy():
    twin_rl("minimalrl_ddpg", {"max_episode_steps": 20}, n_episodes=2, train_start=30,
            n_train=1, data_copy=True)


def test_ddpg_data_copy_on_torch():
    # the verbatim soft update runs on torch and equals the port's no_grad copy_
    results = []
    for data_copy in (True, False):
        results.append(_one_run(load("minimalrl_ddpg"), torch,
                                Gym(0, max_episode_steps=20), None,
                                dict(n_episodes=2, train_start=30, n_train=2,
                                     data_copy=data_copy)))
    (l1, t1, _), (l2, t2, _) = results
    assert l1 == l2 and len(t1["q_target"]) == 2
    for a, b in zip(t1["q_target"] + t1["mu_target"], t2["q_target"] + t2["mu_target"]):
        for k in a:
            np.testing.assert_array_equal(a[k], b[k])


@pytest.mark.xfail(strict=True, raises=AttributeError,
                   reason="engine: Variable.data is the NumPy array itself "
                   "(pyad/_engine.pyx, by design), so the text's soft update "
                   "target_param.data.copy_(...) raises "
                   "AttributeError: 'numpy.ndarray' object has no attribute 'copy_'")
def test_sac_data_copy():
    twin_rl("minimalrl_sac", {"max_episode_steps": 15}, n_episodes=3, train_start=20,
            batch_size=16, actor_step_before_q_step=True, data_copy=True)
