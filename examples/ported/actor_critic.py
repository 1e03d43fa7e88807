"""Port of pytorch/examples ``reinforcement_learning/actor_critic.py``: one network with
an actor head (``softmax`` action probabilities sampled through ``Categorical``) and a
critic head (the state value), the actions saved as a ``SavedAction`` namedtuple, the
loss ``torch.stack(policy_losses).sum() + torch.stack(value_losses).sum()`` with the
critic's ``smooth_l1_loss``, returns normalised with ``eps`` from
``np.finfo(np.float32)``, and Adam.

Ported by changing the imports (``import pyad as torch``). Gym is not a dependency: the
environment is a tiny seeded one written in NumPy below, with CartPole's interface (a
4-number state, two actions, reward 1 per step until the episode ends), so that torch
and pyad see the same episodes. The original runs until the running reward passes the
solve threshold; here ``episodes`` bounds the loop.

Run it with ``python examples/ported/actor_critic.py``.
"""
from collections import namedtuple

import numpy as np


class Balance:
    """Keep a drifting point near the origin: action 0 pushes left, 1 pushes right. The
    state is (position, velocity, drift, time left); the episode ends when the point
    leaves [-1, 1] or after ``max_steps``."""

    max_steps = 60

    def __init__(self, seed):
        self.rng = np.random.RandomState(seed)

    def reset(self):
        self.x, self.v = self.rng.uniform(-0.2, 0.2, 2)
        self.drift = self.rng.uniform(-0.05, 0.05)
        self.steps = 0
        return self._state()

    def _state(self):
        return np.array([self.x, self.v, self.drift * 10,
                         1 - self.steps / self.max_steps])

    def step(self, action):
        push = 0.04 if action == 1 else -0.04
        self.v = 0.9 * self.v + push + self.drift + self.rng.normal(0, 0.01)
        self.x += self.v
        self.steps += 1
        done = bool(abs(self.x) > 1 or self.steps >= self.max_steps)
        return self._state(), 1.0, done


def run(torch, episodes=6, gamma=0.99, seed=543, init=None, log=print):
    """Train for ``episodes`` episodes; return the loss of each."""
    nn, F, optim = torch.nn, torch.nn.functional, torch.optim
    Categorical = torch.distributions.Categorical
    env = Balance(seed)
    torch.manual_seed(seed)

    SavedAction = namedtuple('SavedAction', ['log_prob', 'value'])

    class Policy(nn.Module):
        """
        implements both actor and critic in one model
        """
        def __init__(self):
            super(Policy, self).__init__()
            self.affine1 = nn.Linear(4, 128)

            # actor's layer
            self.action_head = nn.Linear(128, 2)

            # critic's layer
            self.value_head = nn.Linear(128, 1)

            # action & reward buffer
            self.saved_actions = []
            self.rewards = []

        def forward(self, x):
            """
            forward of both actor and critic
            """
            x = F.relu(self.affine1(x))

            # actor: choses action to take from state s_t
            # by returning probability of each action
            action_prob = F.softmax(self.action_head(x), dim=-1)

            # critic: evaluates being in the state s_t
            state_values = self.value_head(x)

            # return values for both actor and critic as a tuple of 2 values:
            # 1. a list with the probability of each action over the action space
            # 2. the value from state s_t
            return action_prob, state_values

    model = Policy()
    if init is not None:
        init(model)
    optimizer = optim.Adam(model.parameters(), lr=3e-2)
    eps = np.finfo(np.float32).eps.item()

    def select_action(state):
        state = torch.from_numpy(state).float()
        probs, state_value = model(state)

        # create a categorical distribution over the list of probabilities of actions
        m = Categorical(probs)

        # and sample an action using the distribution
        action = m.sample()

        # save to action buffer
        model.saved_actions.append(SavedAction(m.log_prob(action), state_value))

        # the action to take (left or right)
        return action.item()

    def finish_episode():
        """
        Training code. Calculates actor and critic loss and performs backprop.
        """
        R = 0
        saved_actions = model.saved_actions
        policy_losses = []  # list to save actor (policy) loss
        value_losses = []  # list to save critic (value) loss
        returns = []  # list to save the true values

        # calculate the true value using rewards returned from the environment
        for r in model.rewards[::-1]:
            # calculate the discounted value
            R = r + gamma * R
            returns.insert(0, R)

        returns = torch.tensor(returns)
        returns = (returns - returns.mean()) / (returns.std() + eps)

        for (log_prob, value), R in zip(saved_actions, returns):
            advantage = R - value.item()

            # calculate actor (policy) loss
            policy_losses.append(-log_prob * advantage)

            # calculate critic (value) loss using L1 smooth loss
            value_losses.append(F.smooth_l1_loss(value, torch.tensor([R])))

        # reset gradients
        optimizer.zero_grad()

        # sum up all the values of policy_losses and value_losses
        loss = torch.stack(policy_losses).sum() + torch.stack(value_losses).sum()

        # perform backprop
        loss.backward()
        optimizer.step()

        # reset rewards and action buffer
        del model.rewards[:]
        del model.saved_actions[:]
        return loss.item()

    losses = []
    running_reward = 10
    for i_episode in range(1, episodes + 1):
        # reset environment and episode reward
        state = env.reset()
        ep_reward = 0

        # for each episode, only run 9999 steps so that we don't
        # infinite loop while learning
        for t in range(1, 10000):
            # select action from policy
            action = select_action(state)

            # take the action
            state, reward, done = env.step(action)

            model.rewards.append(reward)
            ep_reward += reward
            if done:
                break

        # update cumulative reward
        running_reward = 0.05 * ep_reward + (1 - 0.05) * running_reward

        # perform backprop
        losses.append(finish_episode())

        log('Episode {}\tLast reward: {:.2f}\tAverage reward: {:.2f}'.format(
            i_episode, ep_reward, running_reward))
    return losses


if __name__ == "__main__":
    import pyad
    run(pyad, episodes=20)
