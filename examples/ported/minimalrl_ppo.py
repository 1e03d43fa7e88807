"""Port of seungeunrho/minimalRL ``ppo.py``: PPO with the clipped surrogate objective and
generalised advantage estimation on CartPole (rollouts of ``T`` steps, ``K`` epochs per
rollout).

minimalRL is MIT-licensed, Copyright (c) 2019 seungeunrho.

Ported by changing the imports (``import pyad as torch``). gym is not a dependency:
``gym`` is ``run``'s argument, ``examples/ported/_rl_envs.py``'s ``Gym`` (CartPole's
physics in NumPy, gym's old interface); the text's 10000 episodes are ``n_episodes``,
``print`` is ``log``, and ``trace(name, value)`` (for the tests) sees each epoch's TD
targets, advantages, log-probabilities of the actions, ratios and loss. Returns every
epoch's mean loss.

Run it with ``python examples/ported/minimalrl_ppo.py``.
"""


def run(torch, gym, n_episodes=3, print_interval=20, init=None, log=print, trace=None):
    nn = torch.nn
    F = torch.nn.functional
    optim = torch.optim
    Categorical = torch.distributions.Categorical
    trace = trace or (lambda name, value: None)
    losses = []

    class PPO(nn.Module):
        def __init__(self):
            super(PPO, self).__init__()
            self.data = []
            self.gamma = 0.98
            self.lmbda = 0.95
            self.eps = 0.1
            self.K = 2 #epoch

            self.fc1 = nn.Linear(4,256)
            self.fc_pi = nn.Linear(256,2)
            self.fc_v = nn.Linear(256,1)
            self.optimizer = optim.Adam(self.parameters(), lr=0.0005)

        def pi(self, x, softmax_dim = 0):
            x = F.relu(self.fc1(x))
            x = self.fc_pi(x)
            prob = F.softmax(x, dim=softmax_dim)
            return prob

        def v(self, x):
            x = F.relu(self.fc1(x))
            v = self.fc_v(x)
            return v

        def put_data(self, transition):
            self.data.append(transition)

        def make_batch(self):
            s_lst, a_lst, r_lst, s_prime_lst, prob_a_lst, done_lst = [], [], [], [], [], []
            for item in self.data:
                s, a, r, s_prime, prob_a, done = item

                s_lst.append(s)
                a_lst.append([a])
                r_lst.append([r])
                s_prime_lst.append(s_prime)
                prob_a_lst.append([prob_a])
                done_mask = 0 if done else 1
                done_lst.append([done_mask])

            s,a,r,s_prime,done_mask, prob_a = torch.tensor(s_lst, dtype=torch.float), torch.tensor(a_lst), \
                                              torch.tensor(r_lst), torch.tensor(s_prime_lst, dtype=torch.float), \
                                              torch.tensor(done_lst, dtype=torch.float), torch.tensor(prob_a_lst)
            self.data = []
            return s,a,r,s_prime,done_mask, prob_a

        def train(self):
            s,a,r,s_prime,done_mask, prob_a = self.make_batch()

            for i in range(self.K):
                td_target = r + self.gamma * self.v(s_prime) * done_mask
                delta = td_target - self.v(s)
                delta = delta.detach().numpy()

                advantage_lst = []
                advantage = 0
                for delta_t in delta[::-1]:
                    advantage = self.gamma * self.lmbda * advantage + delta_t[0]
                    advantage_lst.append([advantage])
                advantage_lst.reverse()
                advantage = torch.tensor(advantage_lst, dtype=torch.float)

                pi = self.pi(s,softmax_dim=1)
                pi_a = pi.gather(1,a)
                ratio = torch.exp(torch.log(pi_a) - torch.log(prob_a))  # a/b == exp(log(a)-log(b))

                surr1 = ratio * advantage
                surr2 = torch.clamp(ratio, 1-self.eps, 1+self.eps) * advantage
                loss = -torch.min(surr1, surr2) + F.smooth_l1_loss(td_target.detach(), self.v(s))

                self.optimizer.zero_grad()
                loss.mean().backward()
                self.optimizer.step()
                trace("td_target", td_target)
                trace("advantage", advantage)
                trace("log_pi_a", torch.log(pi_a))
                trace("ratio", ratio)
                losses.append(loss.mean().item())

    def main():
        env = gym.make('CartPole-v1')
        model = PPO()
        if init is not None:
            init(model)
        gamma = 0.99
        T = 20
        score = 0.0

        for n_epi in range(n_episodes):
            s = env.reset()
            done = False
            while not done:
                for t in range(T):
                    prob = model.pi(torch.from_numpy(s).float())
                    m = Categorical(prob)
                    a = m.sample().item()
                    s_prime, r, done, info = env.step(a)
                    model.put_data((s, a, r/100.0, s_prime, prob[a].item(), done))
                    s = s_prime

                    score += r
                    if done:
                        break

                model.train()

            if n_epi%print_interval==0:
                log("# of episode :{}, avg score : {:.1f}".format(n_epi, score/print_interval))
                score = 0.0

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
    print("last loss", run(torch, Gym(0), n_episodes=21)[-1])
