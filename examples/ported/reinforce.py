"""Port of pytorch/examples ``reinforcement_learning/reinforce.py``: REINFORCE on
CartPole with a two-layer policy, ``Categorical`` actions and Adam.

Ported by changing the imports (``import pyad as torch``, ``from pyad.distributions
import Categorical``). Gym is not a dependency: the environment is CartPole-v1's own
physics (the equations of gym's ``classic_control/cartpole.py``), written in NumPy below
and seeded, so that torch and pyad see the same episodes. The original runs until the
running reward passes the solve threshold; here ``episodes`` bounds the loop.

Run it with ``python examples/ported/reinforce.py``.
"""
import math
from collections import deque

import numpy as np


class CartPole:
    """CartPole-v1: push the cart left (0) or right (1); reward 1 per step upright."""

    gravity, masscart, masspole, length, force_mag, tau = 9.8, 1.0, 0.1, 0.5, 10.0, 0.02
    theta_threshold = 12 * 2 * math.pi / 360
    x_threshold = 2.4
    max_steps = 500

    def __init__(self, seed):
        self.rng = np.random.RandomState(seed)

    def reset(self):
        self.state = self.rng.uniform(-0.05, 0.05, size=4)
        self.steps = 0
        return self.state.copy()

    def step(self, action):
        x, x_dot, theta, theta_dot = self.state
        force = self.force_mag if action == 1 else -self.force_mag
        total_mass = self.masscart + self.masspole
        polemass_length = self.masspole * self.length
        cos, sin = math.cos(theta), math.sin(theta)
        temp = (force + polemass_length * theta_dot ** 2 * sin) / total_mass
        thetaacc = (self.gravity * sin - cos * temp) / (
            self.length * (4.0 / 3.0 - self.masspole * cos ** 2 / total_mass))
        xacc = temp - polemass_length * thetaacc * cos / total_mass
        x, x_dot = x + self.tau * x_dot, x_dot + self.tau * xacc
        theta, theta_dot = theta + self.tau * theta_dot, theta_dot + self.tau * thetaacc
        self.state = np.array([x, x_dot, theta, theta_dot])
        self.steps += 1
        done = bool(abs(x) > self.x_threshold or abs(theta) > self.theta_threshold
                    or self.steps >= self.max_steps)
        return self.state.copy(), 1.0, done


def run(torch, episodes=6, gamma=0.99, seed=543, init=None, log=print):
    """Train for ``episodes`` episodes; return the policy loss of each."""
    nn, F, optim = torch.nn, torch.nn.functional, torch.optim
    Categorical = torch.distributions.Categorical
    torch.manual_seed(seed)
    env = CartPole(seed)

    class Policy(nn.Module):
        def __init__(self):
            super(Policy, self).__init__()
            self.affine1 = nn.Linear(4, 128)
            self.dropout = nn.Dropout(p=0.6)
            self.affine2 = nn.Linear(128, 2)

            self.saved_log_probs = []
            self.rewards = []

        def forward(self, x):
            x = self.affine1(x)
            x = self.dropout(x)
            x = F.relu(x)
            action_scores = self.affine2(x)
            return F.softmax(action_scores, dim=1)

    policy = Policy()
    if init is not None:
        init(policy)
    optimizer = optim.Adam(policy.parameters(), lr=1e-2)
    eps = np.finfo(np.float32).eps.item()

    def select_action(state):
        state = torch.from_numpy(state).float().unsqueeze(0)
        probs = policy(state)
        m = Categorical(probs)
        action = m.sample()
        policy.saved_log_probs.append(m.log_prob(action))
        return action.item()

    def finish_episode():
        R = 0
        policy_loss = []
        returns = deque()
        for r in policy.rewards[::-1]:
            R = r + gamma * R
            returns.appendleft(R)
        returns = torch.tensor(returns)
        returns = (returns - returns.mean()) / (returns.std() + eps)
        for log_prob, R in zip(policy.saved_log_probs, returns):
            policy_loss.append(-log_prob * R)
        optimizer.zero_grad()
        policy_loss = torch.cat(policy_loss).sum()
        policy_loss.backward()
        optimizer.step()
        del policy.rewards[:]
        del policy.saved_log_probs[:]
        return policy_loss.item()

    losses = []
    running_reward = 10
    for i_episode in range(1, episodes + 1):
        state, ep_reward = env.reset(), 0
        for t in range(1, 10000):  # Don't infinite loop while learning
            action = select_action(state)
            state, reward, done = env.step(action)
            policy.rewards.append(reward)
            ep_reward += reward
            if done:
                break
        running_reward = 0.05 * ep_reward + (1 - 0.05) * running_reward
        losses.append(finish_episode())
        log('Episode {}\tLast reward: {:.2f}\tAverage reward: {:.2f}'.format(
            i_episode, ep_reward, running_reward))
    return losses


if __name__ == "__main__":
    import pyad
    run(pyad, episodes=20)
