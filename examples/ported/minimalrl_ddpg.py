"""Port of seungeunrho/minimalRL ``ddpg.py``: DDPG on Pendulum (a deterministic actor
``MuNet`` with Ornstein-Uhlenbeck exploration noise, a critic ``QNet``, and soft updates
of both target networks).

minimalRL is MIT-licensed, Copyright (c) 2019 seungeunrho.

Ported by changing the imports (``import pyad as torch``). gym is not a dependency:
``gym`` is ``run``'s argument, ``examples/ported/_rl_envs.py``'s ``Gym`` (Pendulum's
physics in NumPy, gym's old interface; the text's ``Pendulum-v0`` is gym's Pendulum);
``random`` and ``np.random`` are the modules, as in the text (the tests seed them alike
for both runs). The text's hyperparameters are keywords for the tests: 10000 episodes
(``n_episodes``), training once the buffer holds more than 2000 transitions
(``train_start``), 10 updates per episode (``n_train``). ``print`` is ``log``;
``trace(name, value)`` (for the tests) sees each update's TD targets, critic and actor
losses and both soft-updated target networks. Returns each update's critic and actor
losses.

One line differs: ``soft_update``'s ``param_target.data.copy_(param_target.data * (1.0 -
tau) + param.data * tau)``. pyad's ``.data`` is the NumPy array, which has no
``copy_``, so the default (``data_copy=False``) writes the same update as
``with torch.no_grad(): param_target.copy_(param_target * (1.0 - tau) + param * tau)``;
``data_copy=True`` runs the original line (a strict xfail in the tests).

Run it with ``python examples/ported/minimalrl_ddpg.py``.
"""
import collections
import random

import numpy as np


def run(torch, gym, n_episodes=10000, train_start=2000, n_train=10, print_interval=20,
        batch_size=32, data_copy=False, init=None, log=print, trace=None):
    nn = torch.nn
    F = torch.nn.functional
    optim = torch.optim
    trace = trace or (lambda name, value: None)
    losses = []

    #Hyperparameters
    lr_mu        = 0.0005
    lr_q         = 0.001
    gamma        = 0.99
    buffer_limit = 50000
    tau          = 0.005 # for target network soft update

    class ReplayBuffer():
        def __init__(self):
            self.buffer = collections.deque(maxlen=buffer_limit)

        def put(self, transition):
            self.buffer.append(transition)

        def sample(self, n):
            mini_batch = random.sample(self.buffer, n)
            s_lst, a_lst, r_lst, s_prime_lst, done_mask_lst = [], [], [], [], []

            for transition in mini_batch:
                s, a, r, s_prime, done = transition
                s_lst.append(s)
                a_lst.append([a])
                r_lst.append([r])
                s_prime_lst.append(s_prime)
                done_mask = 0.0 if done else 1.0
                done_mask_lst.append([done_mask])

            return torch.tensor(s_lst, dtype=torch.float), torch.tensor(a_lst, dtype=torch.float), \
                    torch.tensor(r_lst, dtype=torch.float), torch.tensor(s_prime_lst, dtype=torch.float), \
                    torch.tensor(done_mask_lst, dtype=torch.float)

        def size(self):
            return len(self.buffer)

    class MuNet(nn.Module):
        def __init__(self):
            super(MuNet, self).__init__()
            self.fc1 = nn.Linear(3, 128)
            self.fc2 = nn.Linear(128, 64)
            self.fc_mu = nn.Linear(64, 1)

        def forward(self, x):
            x = F.relu(self.fc1(x))
            x = F.relu(self.fc2(x))
            mu = torch.tanh(self.fc_mu(x))*2 # Multipled by 2 because the action space of the Pendulum-v0 is [-2,2]
            return mu

    class QNet(nn.Module):
        def __init__(self):
            super(QNet, self).__init__()
            self.fc_s = nn.Linear(3, 64)
            self.fc_a = nn.Linear(1,64)
            self.fc_q = nn.Linear(128, 32)
            self.fc_out = nn.Linear(32,1)

        def forward(self, x, a):
            h1 = F.relu(self.fc_s(x))
            h2 = F.relu(self.fc_a(a))
            cat = torch.cat([h1,h2], dim=1)
            q = F.relu(self.fc_q(cat))
            q = self.fc_out(q)
            return q

    class OrnsteinUhlenbeckNoise:
        def __init__(self, mu):
            self.theta, self.dt, self.sigma = 0.1, 0.01, 0.1
            self.mu = mu
            self.x_prev = np.zeros_like(self.mu)

        def __call__(self):
            x = self.x_prev + self.theta * (self.mu - self.x_prev) * self.dt + \
                    self.sigma * np.sqrt(self.dt) * np.random.normal(size=self.mu.shape)
            self.x_prev = x
            return x

    def train(mu, mu_target, q, q_target, memory, q_optimizer, mu_optimizer):
        s,a,r,s_prime,done_mask  = memory.sample(batch_size)

        target = r + gamma * q_target(s_prime, mu_target(s_prime)) * done_mask
        q_loss = F.smooth_l1_loss(q(s,a), target.detach())
        q_optimizer.zero_grad()
        q_loss.backward()
        q_optimizer.step()

        mu_loss = -q(s,mu(s)).mean() # That's all for the policy loss.
        mu_optimizer.zero_grad()
        mu_loss.backward()
        mu_optimizer.step()
        trace("target", target)
        losses.extend([q_loss.item(), mu_loss.item()])

    def soft_update(net, net_target):
        for param_target, param in zip(net_target.parameters(), net.parameters()):
            if data_copy:
                param_target.data.copy_(param_target.data * (1.0 - tau) + param.data * tau)
            else:
                with torch.no_grad():
                    param_target.copy_(param_target * (1.0 - tau) + param * tau)

    def main():
        env = gym.make('Pendulum-v0')
        memory = ReplayBuffer()

        q, q_target = QNet(), QNet()
        if init is not None:
            init(q)
        q_target.load_state_dict(q.state_dict())
        mu, mu_target = MuNet(), MuNet()
        if init is not None:
            init(mu)
        mu_target.load_state_dict(mu.state_dict())

        score = 0.0

        mu_optimizer = optim.Adam(mu.parameters(), lr=lr_mu)
        q_optimizer  = optim.Adam(q.parameters(), lr=lr_q)
        ou_noise = OrnsteinUhlenbeckNoise(mu=np.zeros(1))

        for n_epi in range(n_episodes):
            s = env.reset()
            done = False

            while not done:
                a = mu(torch.from_numpy(s).float())
                a = a.item() + ou_noise()[0]
                s_prime, r, done, info = env.step([a])
                memory.put((s,a,r/100.0,s_prime,done))
                score +=r
                s = s_prime
                trace("action", a)

            if memory.size()>train_start:
                for i in range(n_train):
                    train(mu, mu_target, q, q_target, memory, q_optimizer, mu_optimizer)
                    soft_update(mu, mu_target)
                    soft_update(q,  q_target)
                    trace("mu_target", mu_target)
                    trace("q_target", q_target)

            if n_epi%print_interval==0 and n_epi!=0:
                log("# of episode :{}, avg score : {:.1f}".format(n_epi, score/print_interval))
                score = 0.0

        env.close()
        return mu, q

    mu, q = main()
    trace("final_mu", mu)
    trace("final_q", q)
    return losses


if __name__ == "__main__":
    import os
    import sys
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from _rl_envs import Gym
    import pyad as torch
    random.seed(0)
    np.random.seed(0)
    print("last loss", run(torch, Gym(0, max_episode_steps=50), n_episodes=21,
                           train_start=100, n_train=2)[-1])
