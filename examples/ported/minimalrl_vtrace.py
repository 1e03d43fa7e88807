"""Port of seungeunrho/minimalRL ``vtrace.py``: the V-trace off-policy actor-critic
(IMPALA's truncated importance weights ``rho`` and ``c``) on CartPole, rollouts of
``T_horizon`` steps.

minimalRL is MIT-licensed, Copyright (c) 2019 seungeunrho.

Ported by changing the imports (``import pyad as torch``). gym is not a dependency:
``gym`` is ``run``'s argument, ``examples/ported/_rl_envs.py``'s ``Gym`` with gym 0.26's
interface (``Gym(seed, new_api=True)``: the text unpacks ``s, _ = env.reset()`` and
five values from ``step``); the text's 10000 episodes are ``n_episodes``, ``print`` is
``log``, and ``trace(name, value)`` (for the tests) sees each update's V-trace targets
``vs``, advantages, truncated ratios ``rhos`` and loss. Returns every update's mean loss.

Run it with ``python examples/ported/minimalrl_vtrace.py``.
"""


def run(torch, gym, n_episodes=3, print_interval=20, init=None, log=print, trace=None):
    nn = torch.nn
    F = torch.nn.functional
    optim = torch.optim
    Categorical = torch.distributions.Categorical
    trace = trace or (lambda name, value: None)
    losses = []

    #Hyperparameters
    learning_rate      = 0.0005
    gamma              = 0.98
    T_horizon          = 20
    clip_rho_threshold = 1.0
    clip_c_threshold   = 1.0

    class Vtrace(nn.Module):
        def __init__(self):
            super(Vtrace, self).__init__()
            self.data = []

            self.fc1   = nn.Linear(4,256)
            self.fc_pi = nn.Linear(256,2)
            self.fc_v  = nn.Linear(256,1)
            self.optimizer = optim.Adam(self.parameters(), lr=learning_rate)

            self.clip_rho_threshold = torch.tensor(clip_rho_threshold, dtype=torch.float)
            self.clip_c_threshold = torch.tensor(clip_c_threshold, dtype=torch.float)

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
            s_lst, a_lst, r_lst, s_prime_lst, mu_a_lst, done_lst = [], [], [], [], [], []
            for transition in self.data:
                s, a, r, s_prime, mu_a, done = transition

                s_lst.append(s)
                a_lst.append([a])
                r_lst.append([r])
                s_prime_lst.append(s_prime)
                mu_a_lst.append([mu_a])
                done_mask = 0 if done else 1
                done_lst.append([done_mask])

            s,a,r,s_prime,done_mask, mu_a = torch.tensor(s_lst, dtype=torch.float), torch.tensor(a_lst), \
                                            torch.tensor(r_lst), torch.tensor(s_prime_lst, dtype=torch.float), \
                                            torch.tensor(done_lst, dtype=torch.float), torch.tensor(mu_a_lst)
            self.data = []
            return s, a, r, s_prime, done_mask, mu_a

        def vtrace(self, s, a, r, s_prime, done_mask, mu_a):
            with torch.no_grad():
                pi = self.pi(s, softmax_dim=1)
                pi_a = pi.gather(1,a)
                v, v_prime = self.v(s), self.v(s_prime)
                ratio = torch.exp(torch.log(pi_a) - torch.log(mu_a))  # a/b == exp(log(a)-log(b))

                rhos = torch.min(self.clip_rho_threshold, ratio)
                cs = torch.min(self.clip_c_threshold, ratio).numpy()
                td_target = r + gamma * v_prime * done_mask
                delta = rhos*(td_target - v).numpy()

                vs_minus_v_xs_lst = []
                vs_minus_v_xs = 0.0
                vs_minus_v_xs_lst.append([vs_minus_v_xs])

                for i in range(len(delta)-1, -1, -1):
                    vs_minus_v_xs = gamma * cs[i][0] * vs_minus_v_xs + delta[i][0]
                    vs_minus_v_xs_lst.append([vs_minus_v_xs])
                vs_minus_v_xs_lst.reverse()

                vs_minus_v_xs = torch.tensor(vs_minus_v_xs_lst, dtype=torch.float)
                vs = vs_minus_v_xs[:-1] + v.numpy()
                vs_prime = vs_minus_v_xs[1:] + v_prime.numpy()
                advantage = r + gamma * vs_prime - v.numpy()

            return vs, advantage, rhos

        def train_net(self):
            s, a, r, s_prime, done_mask, mu_a = self.make_batch()
            vs, advantage, rhos = self.vtrace(s, a, r, s_prime, done_mask, mu_a)

            pi = self.pi(s, softmax_dim=1)
            pi_a = pi.gather(1,a)

            val_loss = F.smooth_l1_loss(self.v(s) , vs)
            pi_loss = -rhos * torch.log(pi_a) * advantage
            loss =  pi_loss + val_loss

            self.optimizer.zero_grad()
            loss.mean().backward()
            self.optimizer.step()
            trace("vs", vs)
            trace("advantage", advantage)
            trace("rhos", rhos)
            losses.append(loss.mean().item())

    def main():
        env = gym.make('CartPole-v1')
        model = Vtrace()
        if init is not None:
            init(model)
        score = 0.0

        for n_epi in range(n_episodes):
            s, _ = env.reset()
            done = False
            while not done:
                for t in range(T_horizon):
                    prob = model.pi(torch.from_numpy(s).float())
                    m = Categorical(prob)
                    a = m.sample().item()
                    s_prime, r, done, truncated, info = env.step(a)

                    model.put_data((s, a, r/100.0, s_prime, prob[a].item(), done))
                    s = s_prime

                    score += r
                    if done:
                        break

                model.train_net()

            if n_epi%print_interval==0 and n_epi!=0:
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
    print("last loss", run(torch, Gym(0, new_api=True), n_episodes=21)[-1])
