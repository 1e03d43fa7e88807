"""Port of seungeunrho/minimalRL ``REINFORCE.py``: the REINFORCE policy gradient on
CartPole, one backward per step of the episode (returns accumulated backwards), one Adam
step per episode.

minimalRL is MIT-licensed, Copyright (c) 2019 seungeunrho.

Ported by changing the imports (``import pyad as torch``). gym is not a dependency:
``gym`` is ``run``'s argument, ``examples/ported/_rl_envs.py``'s ``Gym`` (CartPole's
physics in NumPy, gym's old ``reset``/``step`` interface); the text's 10000 episodes are
``n_episodes``, ``print`` is ``log``, and ``trace(name, value)`` (for the tests) sees
each step's return ``R``, log-probability and loss. The text's ``done = False`` stands
before the episode loop, as written, so only the first episode collects data (the later
``train_net`` calls step Adam with no gradients). Returns every step's loss.

Run it with ``python examples/ported/minimalrl_reinforce.py``.
"""


def run(torch, gym, n_episodes=3, print_interval=20, init=None, log=print, trace=None):
    nn = torch.nn
    F = torch.nn.functional
    optim = torch.optim
    Categorical = torch.distributions.Categorical
    trace = trace or (lambda name, value: None)
    losses = []

    #Hyperparameters
    learning_rate = 0.0002
    gamma         = 0.98

    class Policy(nn.Module):
        def __init__(self):
            super(Policy, self).__init__()
            self.data = []

            self.fc1 = nn.Linear(4, 128)
            self.fc2 = nn.Linear(128, 2)
            self.optimizer = optim.Adam(self.parameters(), lr=learning_rate)

        def forward(self, x):
            x = F.relu(self.fc1(x))
            x = F.softmax(self.fc2(x), dim=0)
            return x

        def put_data(self, item):
            self.data.append(item)

        def train_net(self):
            R = 0
            self.optimizer.zero_grad()
            for r, prob in self.data[::-1]:
                R = r + gamma * R
                loss = -torch.log(prob) * R
                loss.backward()
                trace("R", R)
                trace("log_prob", torch.log(prob))
                losses.append(loss.item())
            self.optimizer.step()
            self.data = []

    def main():
        env = gym.make('CartPole-v1')
        pi = Policy()
        if init is not None:
            init(pi)
        score = 0.0
        done = False

        for n_epi in range(n_episodes):
            s = env.reset()
            while not done: # CartPole-v1 forced to terminates at 500 step.
                prob = pi(torch.from_numpy(s).float())
                m = Categorical(prob)
                a = m.sample()
                s_prime, r, done, info = env.step(a.item())
                pi.put_data((r,prob[a]))
                s = s_prime
                score += r

            pi.train_net()

            if n_epi%print_interval==0 and n_epi!=0:
                log("# of episode :{}, avg score : {}".format(n_epi, score/print_interval))
                score = 0.0
        env.close()
        return pi

    model = main()
    trace("final", model)
    return losses


if __name__ == "__main__":
    import os
    import sys
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from _rl_envs import Gym
    import pyad as torch
    print("last loss", run(torch, Gym(0), n_episodes=41)[-1])
