"""Port of seungeunrho/minimalRL ``ppo-lstm.py``: PPO with an ``nn.LSTM`` policy and
value trunk on CartPole, each rollout replayed from its first hidden state
(``backward(retain_graph=True)``).

minimalRL is MIT-licensed, Copyright (c) 2019 seungeunrho.

Ported by changing the imports (``import pyad as torch``); the file name has ``_`` for
the text's ``-`` (a module name). gym is not a dependency: ``gym`` is ``run``'s
argument, ``examples/ported/_rl_envs.py``'s ``Gym`` (CartPole's physics in NumPy, gym's
old interface); the text's 10000 episodes are ``n_episodes``, ``print`` is ``log``, and
``trace(name, value)`` (for the tests) sees each epoch's TD targets, advantages,
log-probabilities of the actions and loss, and each step's hidden state. Returns every
epoch's mean loss.

Run it with ``python examples/ported/minimalrl_ppo_lstm.py``.
"""


def run(torch, gym, n_episodes=3, print_interval=20, init=None, log=print, trace=None):
    nn = torch.nn
    F = torch.nn.functional
    optim = torch.optim
    Categorical = torch.distributions.Categorical
    trace = trace or (lambda name, value: None)
    losses = []

    #Hyperparameters
    learning_rate = 0.0005
    gamma         = 0.98
    lmbda         = 0.95
    eps_clip      = 0.1
    K_epoch       = 2
    T_horizon     = 20

    class PPO(nn.Module):
        def __init__(self):
            super(PPO, self).__init__()
            self.data = []

            self.fc1   = nn.Linear(4,64)
            self.lstm  = nn.LSTM(64,32)
            self.fc_pi = nn.Linear(32,2)
            self.fc_v  = nn.Linear(32,1)
            self.optimizer = optim.Adam(self.parameters(), lr=learning_rate)

        def pi(self, x, hidden):
            x = F.relu(self.fc1(x))
            x = x.view(-1, 1, 64)
            x, lstm_hidden = self.lstm(x, hidden)
            x = self.fc_pi(x)
            prob = F.softmax(x, dim=2)
            return prob, lstm_hidden

        def v(self, x, hidden):
            x = F.relu(self.fc1(x))
            x = x.view(-1, 1, 64)
            x, lstm_hidden = self.lstm(x, hidden)
            v = self.fc_v(x)
            return v

        def put_data(self, transition):
            self.data.append(transition)

        def make_batch(self):
            s_lst, a_lst, r_lst, s_prime_lst, prob_a_lst, hidden_lst, done_lst = [], [], [], [], [], [], []
            for transition in self.data:
                s, a, r, s_prime, prob_a, hidden, done = transition

                s_lst.append(s)
                a_lst.append([a])
                r_lst.append([r])
                s_prime_lst.append(s_prime)
                prob_a_lst.append([prob_a])
                hidden_lst.append(hidden)
                done_mask = 0 if done else 1
                done_lst.append([done_mask])

            s,a,r,s_prime,done_mask,prob_a = torch.tensor(s_lst, dtype=torch.float), torch.tensor(a_lst), \
                                             torch.tensor(r_lst), torch.tensor(s_prime_lst, dtype=torch.float), \
                                             torch.tensor(done_lst, dtype=torch.float), torch.tensor(prob_a_lst)
            self.data = []
            return s,a,r,s_prime, done_mask, prob_a, hidden_lst[0]

        def train_net(self):
            s,a,r,s_prime,done_mask, prob_a, (h1,h2) = self.make_batch()
            first_hidden = (h1.detach(), h2.detach())

            for i in range(K_epoch):
                v_prime = self.v(s_prime, first_hidden).squeeze(1)
                td_target = r + gamma * v_prime * done_mask
                v_s = self.v(s, first_hidden).squeeze(1)
                delta = td_target - v_s
                delta = delta.detach().numpy()

                advantage_lst = []
                advantage = 0.0
                for item in delta[::-1]:
                    advantage = gamma * lmbda * advantage + item[0]
                    advantage_lst.append([advantage])
                advantage_lst.reverse()
                advantage = torch.tensor(advantage_lst, dtype=torch.float)

                pi, _ = self.pi(s, first_hidden)
                pi_a = pi.squeeze(1).gather(1,a)
                ratio = torch.exp(torch.log(pi_a) - torch.log(prob_a))  # a/b == log(exp(a)-exp(b))

                surr1 = ratio * advantage
                surr2 = torch.clamp(ratio, 1-eps_clip, 1+eps_clip) * advantage
                loss = -torch.min(surr1, surr2) + F.smooth_l1_loss(v_s, td_target.detach())

                self.optimizer.zero_grad()
                loss.mean().backward(retain_graph=True)
                self.optimizer.step()
                trace("td_target", td_target)
                trace("advantage", advantage)
                trace("log_pi_a", torch.log(pi_a))
                losses.append(loss.mean().item())

    def main():
        env = gym.make('CartPole-v1')
        model = PPO()
        if init is not None:
            init(model)
        score = 0.0

        for n_epi in range(n_episodes):
            hidden = (torch.zeros([1, 1, 32], dtype=torch.float), torch.zeros([1, 1, 32], dtype=torch.float))
            s = env.reset()
            done = False

            while not done:
                for t in range(T_horizon):
                    s_tensor = torch.from_numpy(s).float()
                    prob, hidden = model.pi(s_tensor, hidden)
                    prob = prob.view(-1)
                    m = Categorical(prob)
                    a = m.sample().item()
                    s_prime, r, done, info = env.step(a)

                    model.put_data((s, a, r/100.0, s_prime, prob[a].item(), hidden, done))
                    s = s_prime
                    trace("hidden", hidden[0])

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
    print("last loss", run(torch, Gym(0), n_episodes=21)[-1])
