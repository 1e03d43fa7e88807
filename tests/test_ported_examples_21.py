"""Ported openai/spinningup PyTorch algorithms (examples/ported/spinup_*.py, MIT,
Copyright (c) 2018 OpenAI): VPG, PPO, DDPG, TD3 and SAC, each with its ``core.py``.

Each script runs on torch and on pyad from torch's initial weights (the actor-critic it
passes to ``init``), in one process (the MPI calls are single-process identities), on
the seeded NumPy CartPole/Pendulum of ``examples/ported/_rl_envs.py`` (gym is not
installed). The policies' draws come from one NumPy stream through the namespace proxy
(``Categorical.sample`` by the inverse CDF of a shared uniform number, ``Normal.sample``
and ``Normal.rsample`` as ``loc + scale * eps`` of a shared standard normal, TD3's
``randn_like``), and ``np.random`` (the random warm-up actions, the exploration noise,
the replay minibatches) is seeded by the script itself, so both runs take the same
actions. Compared: every value the algorithm stores in its logger (the losses, KL,
entropy, clip fraction, stop iteration, value estimates, Q values, log-probabilities,
episode returns), each epoch's tabular statistics (but the wall time), the lines it
logs, and the final weights of the actor-critic (and of the target networks).
"""
import os

import numpy as np
import pytest

import pyad

torch = pytest.importorskip("torch")

_HERE = os.path.dirname(os.path.abspath(__file__))
_PORTED = os.path.join(os.path.dirname(_HERE), "examples", "ported")


def _module(path, name):
    import importlib.util
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_helpers = _module(os.path.join(_HERE, "test_ported_examples.py"), "_ported_helpers21")
load, Proxy, seeded = _helpers.load, _helpers.Proxy, _helpers.seeded

SCRIPTS = ["spinup_vpg", "spinup_ppo", "spinup_ddpg", "spinup_td3", "spinup_sac"]


def spinup_seeded(lib, seed=0):
    """``seeded(lib)`` (its ``Categorical`` also as ``distributions.categorical``) whose
    ``Normal`` samples and rsamples ``loc + scale * eps`` with ``eps`` from a NumPy
    stream."""
    base = seeded(lib, seed)
    rng = np.random.default_rng(seed + 1)
    Categorical = base.distributions.Categorical

    class Normal(lib.distributions.Normal):
        def _eps(self, sample_shape):
            shape = tuple(sample_shape) + tuple(self.batch_shape)
            return lib.tensor(rng.standard_normal(shape), dtype=self.loc.dtype)

        def sample(self, sample_shape=()):
            with lib.no_grad():
                return self.loc + self.scale * self._eps(sample_shape)

        def rsample(self, sample_shape=()):
            return self.loc + self.scale * self._eps(sample_shape)

    distributions = Proxy(
        base.distributions, Normal=Normal,
        normal=Proxy(lib.distributions.normal, Normal=Normal),
        categorical=Proxy(lib.distributions.categorical, Categorical=Categorical))
    return Proxy(base, distributions=distributions)


def _state(model):
    return {k: v.detach().numpy().copy() for k, v in model.state_dict().items()}


def _one_run(module, lib, init, options, proxy=None):
    logged = []
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # tiny ops: faster on one thread
    try:
        torch.manual_seed(0)
        pyad.manual_seed(0)
        lib = spinup_seeded(lib) if proxy is None else proxy(spinup_seeded(lib))
        # the script's own _rl_envs (its isinstance checks of Box/Discrete)
        result = module.run(lib, module._envs.Gym(0), init=init,
                            log=lambda *a: logged.append(" ".join(str(x) for x in a)),
                            **options)
    finally:
        torch.set_num_threads(threads)
    logger, models = result[0], result[1:]
    return logger, [_state(m) for m in models], logged


def twin_spinup(name, rtol=2e-4, atol=2e-5, weights_rtol=1e-3, weights_atol=1e-5,
                p_proxy=None, **options):
    """Run ``name``'s ``run`` on torch then on pyad; compare everything (see above)."""
    module = load(name)
    states, used = [], []

    def record(model):
        states.append(_state(model))

    def restore(model):
        state = states[len(used)]
        used.append(model)
        assert list(model.state_dict()) == list(state)
        model.load_state_dict({k: pyad.tensor(v) for k, v in state.items()})

    t_logger, t_models, t_logged = _one_run(module, torch, record, options)
    p_logger, p_models, p_logged = _one_run(module, pyad, restore, options, p_proxy)
    assert len(used) == len(states) == 1
    assert sorted(p_logger) == sorted(t_logger)
    for key in t_logger:
        if key == "tabular":
            continue
        t, p = t_logger[key], p_logger[key]
        assert len(p) == len(t) > 0, key
        for i, (a, b) in enumerate(zip(t, p)):
            a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
            assert a.shape == b.shape, (key, i, a.shape, b.shape)
            np.testing.assert_allclose(b, a, rtol=rtol, atol=atol, err_msg=f"{key}[{i}]")
    t_rows, p_rows = t_logger["tabular"], p_logger["tabular"]
    assert [k for k, _ in p_rows] == [k for k, _ in t_rows]
    for (key, a), (_, b) in zip(t_rows, p_rows):
        if key == "Time":
            continue
        assert (a is None) == (b is None), key
        if a is not None:
            np.testing.assert_allclose(np.asarray(b, dtype=np.float64),
                                       np.asarray(a, dtype=np.float64),
                                       rtol=rtol, atol=atol, err_msg=key)
    assert p_logged == t_logged
    assert len(p_models) == len(t_models) > 0
    for t, p in zip(t_models, p_models):
        assert list(p) == list(t)
        for k in t:
            np.testing.assert_allclose(p[k], t[k], rtol=weights_rtol, atol=weights_atol,
                                       err_msg=k)
    return t_logger, t_logged


def test_ppo_cartpole():
    logger, logged = twin_spinup("spinup_ppo")
    assert len(logger["VVals"]) == 60 and len(logger["LossPi"]) == 1
    assert len(logger["EpRet"]) >= 1 and logged[0].startswith("\nNumber of parameters")


def test_ppo_pendulum():
    # the Gaussian actor (MLPGaussianActor: a log_std Parameter, Normal(mu, std))
    logger, _ = twin_spinup("spinup_ppo", env_name="Pendulum-v1", max_ep_len=25)
    assert len(logger["EpRet"]) == 2 and len(logger["ClipFrac"]) == 1


def test_vpg_cartpole():
    logger, logged = twin_spinup("spinup_vpg", epochs=2, steps_per_epoch=40)
    assert len(logger["LossPi"]) == 2 and len(logger["VVals"]) == 80
    assert "ClipFrac" not in logger


def test_vpg_pendulum():
    logger, _ = twin_spinup("spinup_vpg", env_name="Pendulum-v1", max_ep_len=25)
    assert len(logger["EpRet"]) == 2


def test_ddpg():
    logger, logged = twin_spinup("spinup_ddpg")
    assert len(logger["LossQ"]) == len(logger["LossPi"]) == 60
    assert len(logger["TestEpRet"]) == 2 and len(logger["EpRet"]) == 3


def test_td3():
    logger, logged = twin_spinup("spinup_td3")
    # the policy and the targets are updated on every second Q update
    assert len(logger["LossQ"]) == 60 and len(logger["LossPi"]) == 30


def test_sac():
    logger, logged = twin_spinup("spinup_sac")
    assert len(logger["LossQ"]) == len(logger["LogPi"]) == 60


@pytest.mark.parametrize("name", ["spinup_ddpg", "spinup_td3", "spinup_sac"])
@pytest.mark.xfail(strict=True, raises=AttributeError,
                   reason="engine: Variable.data is the NumPy array itself "
                   "(pyad/_engine.pyx, by design), so the text's polyak update "
                   "p_targ.data.mul_(polyak) raises "
                   "AttributeError: 'numpy.ndarray' object has no attribute 'mul_'")
def test_data_polyak(name):
    twin_spinup(name, data_polyak=True, epochs=1, update_every=2)


@pytest.mark.parametrize("name", ["spinup_ddpg", "spinup_td3", "spinup_sac"])
def test_data_polyak_on_torch(name):
    # the text's p_targ.data.mul_/add_ runs on torch and gives the same weights as the
    # port's p_targ.mul_/add_ under no_grad
    runs = [_one_run(load(name), torch, None, dict(data_polyak=d, epochs=1, update_every=4))
            for d in (True, False)]
    (l1, m1, g1), (l2, m2, g2) = runs
    assert l1["LossQ"] == l2["LossQ"] and len(l1["LossQ"]) == 20 and g1 == g2
    for a, b in zip(m1, m2):
        for k in a:
            np.testing.assert_array_equal(a[k], b[k])


@pytest.mark.parametrize("name", ["spinup_vpg", "spinup_ppo"])
def test_discount_cumsum_numpy_fallback(name):
    # where scipy is absent the scripts use a NumPy loop: hand math, and scipy's lfilter
    module = load(name)
    x = np.array([1.0, 2.0, 3.0], dtype=np.float32)
    expected = [1 + 0.5 * 2 + 0.25 * 3, 2 + 0.5 * 3, 3]
    np.testing.assert_allclose(module._discount_cumsum_numpy(x, 0.5), expected, rtol=1e-15)
    scipy_signal = pytest.importorskip("scipy.signal")
    y = np.random.default_rng(0).standard_normal(17)
    np.testing.assert_allclose(module._discount_cumsum_numpy(y, 0.99 * 0.97),
                               scipy_signal.lfilter([1], [1, -0.99 * 0.97], y[::-1])[::-1],
                               rtol=1e-12, atol=1e-12)
