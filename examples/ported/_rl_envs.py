"""Small seeded NumPy stand-ins for gym's ``CartPole-v1`` and ``Pendulum-v1`` (gym is not
a dependency), used by the minimalRL ports (``minimalrl_*.py``) and the Spinning Up ports
(``spinup_*.py``).

``Gym(seed)`` has gym's ``make(id, max_episode_steps=None)``; the environments have
gym's ``reset``/``step``/``seed``/``close`` (and a no-op ``render``) with the old
interface (``reset() -> obs``, ``step(a) -> (obs, reward, done, info)``) or, with
``new_api=True``, gym 0.26's (``reset() -> (obs, info)``,
``step(a) -> (obs, reward, terminated, truncated, info)``).
The physics are gym's (``gym/envs/classic_control/cartpole.py`` and ``pendulum.py``,
Euler integration); ``done`` also ends an episode at the time limit, as gym's
``TimeLimit`` wrapper (500 and 200 steps, or ``max_episode_steps``). The initial states
come from a ``numpy.random.RandomState`` of the seed, so two runs see the same
environment stream when they take the same actions. ``observation_space`` and
``action_space`` are small stand-ins for gym's ``Box`` and ``Discrete`` (``shape``,
``low``/``high``, ``n``); their ``sample()`` draws from NumPy's global stream
(``np.random``; gym's spaces have their own generator), so a script that seeds
``np.random`` draws the same random actions in both runs.
"""
import math

import numpy as np


class Box:
    """gym.spaces.Box: ``low``, ``high`` (float32 arrays), ``shape``; uniform ``sample()``."""

    def __init__(self, low, high, shape):
        self.shape = tuple(shape)
        self.low = np.full(self.shape, low, dtype=np.float32)
        self.high = np.full(self.shape, high, dtype=np.float32)

    def sample(self):
        return np.random.uniform(self.low, self.high).astype(np.float32)


class Discrete:
    """gym.spaces.Discrete: ``n`` actions, ``shape == ()``."""

    def __init__(self, n):
        self.n = n
        self.shape = ()

    def sample(self):
        return int(np.random.randint(self.n))


class _Env:
    def __init__(self, seed, max_episode_steps, new_api):
        self.rng = np.random.RandomState(seed)
        self.max_episode_steps = max_episode_steps
        self.new_api = new_api
        self.steps = 0

    def seed(self, seed=None):
        self.rng = np.random.RandomState(seed)
        return [seed]

    def reset(self):
        self.state = self._initial_state()
        self.steps = 0
        obs = self._obs()
        return (obs, {}) if self.new_api else obs

    def step(self, action):
        reward, terminated = self._advance(action)
        self.steps += 1
        truncated = self.steps >= self.max_episode_steps
        obs = self._obs()
        if self.new_api:
            return obs, reward, terminated, truncated and not terminated, {}
        return obs, reward, terminated or truncated, {}

    def close(self):
        pass

    def render(self):
        pass


class CartPole(_Env):
    gravity, masscart, masspole, length, force_mag, tau = 9.8, 1.0, 0.1, 0.5, 10.0, 0.02
    theta_threshold_radians = 12 * 2 * math.pi / 360
    x_threshold = 2.4
    observation_space = Box(-np.inf, np.inf, (4,))
    action_space = Discrete(2)

    def _initial_state(self):
        return self.rng.uniform(low=-0.05, high=0.05, size=(4,))

    def _obs(self):
        return np.array(self.state, dtype=np.float32)

    def _advance(self, action):
        x, x_dot, theta, theta_dot = self.state
        force = self.force_mag if int(action) == 1 else -self.force_mag
        total_mass = self.masspole + self.masscart
        polemass_length = self.masspole * self.length
        costheta, sintheta = math.cos(theta), math.sin(theta)
        temp = (force + polemass_length * theta_dot ** 2 * sintheta) / total_mass
        thetaacc = (self.gravity * sintheta - costheta * temp) / (
            self.length * (4.0 / 3.0 - self.masspole * costheta ** 2 / total_mass))
        xacc = temp - polemass_length * thetaacc * costheta / total_mass
        x = x + self.tau * x_dot
        x_dot = x_dot + self.tau * xacc
        theta = theta + self.tau * theta_dot
        theta_dot = theta_dot + self.tau * thetaacc
        self.state = (x, x_dot, theta, theta_dot)
        terminated = bool(x < -self.x_threshold or x > self.x_threshold
                          or theta < -self.theta_threshold_radians
                          or theta > self.theta_threshold_radians)
        return 1.0, terminated


class Pendulum(_Env):
    max_speed, max_torque, dt, g, m, l = 8.0, 2.0, 0.05, 10.0, 1.0, 1.0
    observation_space = Box(-np.array([1.0, 1.0, 8.0]), np.array([1.0, 1.0, 8.0]), (3,))
    action_space = Box(-2.0, 2.0, (1,))

    def _initial_state(self):
        high = np.array([np.pi, 1.0])
        return self.rng.uniform(low=-high, high=high)

    def _obs(self):
        theta, thetadot = self.state
        return np.array([np.cos(theta), np.sin(theta), thetadot], dtype=np.float32)

    def _advance(self, u):
        th, thdot = self.state
        u = float(np.clip(np.asarray(u, dtype=np.float64).reshape(-1)[0],
                          -self.max_torque, self.max_torque))
        angle = ((th + np.pi) % (2 * np.pi)) - np.pi
        costs = angle ** 2 + 0.1 * thdot ** 2 + 0.001 * (u ** 2)
        newthdot = thdot + (3 * self.g / (2 * self.l) * np.sin(th)
                            + 3.0 / (self.m * self.l ** 2) * u) * self.dt
        newthdot = np.clip(newthdot, -self.max_speed, self.max_speed)
        newth = th + newthdot * self.dt
        self.state = np.array([newth, newthdot])
        return -float(costs), False


class Gym:
    """``gym.make`` for the two environments, each made with the next seed."""

    ENVS = {"CartPole-v1": (CartPole, 500), "CartPole-v0": (CartPole, 200),
            "Pendulum-v1": (Pendulum, 200), "Pendulum-v0": (Pendulum, 200)}

    def __init__(self, seed=0, new_api=False, max_episode_steps=None):
        self.seed = seed
        self.new_api = new_api
        self.max_episode_steps = max_episode_steps

    def make(self, id, max_episode_steps=None):
        cls, limit = self.ENVS[id]
        limit = max_episode_steps or self.max_episode_steps or limit
        env = cls(self.seed, limit, self.new_api)
        self.seed += 1
        return env
