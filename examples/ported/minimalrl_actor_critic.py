"""Port of seungeunrho/minimalRL ``actor_critic.py``: the vanilla TD actor-critic on
CartPole (a shared hidden layer, policy and value heads, one Adam step per episode of the
summed per-step losses).

minimalRL is MIT-licensed, Copyright (c) 2019 seungeunrho.

Ported by changing the imports (``import pyad as torch``). gym is not a dependency:
``gym`` is ``run``'s argument, ``examples/ported/_rl_envs.py``'s ``Gym`` (CartPole's
physics in NumPy, gym's old interface); the text's 10000 episodes are ``n_episodes``,
its 600-step cap ``max_t``, ``print`` is ``log``, and ``trace(name, value)`` (for the
tests) sees each step's TD error ``delta``, log-probability and loss. Returns each
episode's loss.

Run it with ``python examples/ported/minimalrl_actor_critic.py``.
"""


def run(torch, gym, n_episodes=3, max_t=600, init=None, log=print, trace=None):
    nn = torch.nn
    F = torch.nn.functional
    optim = torch.optim
    Categorical = torch.distributions.Categorical
    trace = trace or (lambda name, value: None)
    losses = []

    class ActorCritic(nn.Module):
        def __init__(self):
            super(ActorCritic, self).__init__()
            self.loss_lst = []

            self.fc1 = nn.Linear(4, 128)
            self.fc_pi = nn.Linear(128, 2)
            self.fc_v = nn.Linear(128, 1)
            self.optimizer = optim.Adam(self.parameters(), lr=0.002)

        def forward(self, x):
            x = F.relu(self.fc1(x))
            pol = self.fc_pi(x)
            pi = F.softmax(pol, dim=0)
            v = self.fc_v(x)
            return pi, v

        def gather_loss(self, loss):
            self.loss_lst.append(loss.unsqueeze(0))

        def train(self):
            loss = torch.cat(self.loss_lst).sum()
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
            self.loss_lst = []
            losses.append(loss.item())

    def main():
        env = gym.make('CartPole-v1')
        model = ActorCritic()
        if init is not None:
            init(model)
        gamma = 0.99

        avg_t = 0
        for n_epi in range(n_episodes):
            obs = env.reset()
            loss_lst = []
            for t in range(max_t):
                obs = torch.from_numpy(obs).float()
                pi, v = model(obs)
                m = Categorical(pi)
                action = m.sample()

                obs, r, done, info = env.step(action.item())
                _, next_v = model(torch.from_numpy(obs).float())
                delta = r + gamma * next_v - v
                loss = -torch.log(pi[action]) * delta.item() + delta * delta
                model.gather_loss(loss)
                trace("delta", delta)
                trace("log_prob", torch.log(pi[action]))
                trace("loss", loss)

                if done:
                    break

            model.train()
            avg_t += t

            if n_epi%30==0 and n_epi!=0:
                log("# of episode :{}, Avg timestep : {:.1f}".format(n_epi, avg_t/30.0))
                avg_t = 0

        env.close()
        return model

    model = main()
    trace("final", model)
    return losses


if __name__ == "__main__":
    import os
    import sys
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from _rl_envs import Gym
    import pyad as torch
    print("last loss", run(torch, Gym(0), n_episodes=31)[-1])
