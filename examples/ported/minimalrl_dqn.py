"""Port of seungeunrho/minimalRL ``dqn.py``: DQN on CartPole with a replay buffer, an
epsilon-greedy policy, ``smooth_l1_loss`` of the TD targets and a target network copied
every ``print_interval`` episodes.

minimalRL is MIT-licensed, Copyright (c) 2019 seungeunrho.

Ported by changing the imports (``import pyad as torch``). gym is not a dependency:
``gym`` is ``run``'s argument, ``examples/ported/_rl_envs.py``'s ``Gym`` with gym 0.26's
interface (``Gym(seed, new_api=True)``: the text unpacks ``s, _ = env.reset()`` and
five values from ``step``); ``random`` is Python's module, as in the text (the tests
seed it alike for both runs). The text's hyperparameters are keywords for the tests:
10000 episodes (``n_episodes``), training once the buffer holds more than 2000
transitions (``train_start``), 10 minibatches per episode (``n_train``), a copy to the
target every 20 episodes (``print_interval``). ``print`` is ``log``; ``trace(name,
value)`` (for the tests) sees each minibatch's Q-values of the actions, TD targets and
loss. Returns every minibatch's loss.

Run it with ``python examples/ported/minimalrl_dqn.py``.
"""
import collections
import random


def run(torch, gym, n_episodes=10000, train_start=2000, n_train=10, print_interval=20,
        batch_size=32, init=None, log=print, trace=None):
    nn = torch.nn
    F = torch.nn.functional
    optim = torch.optim
    trace = trace or (lambda name, value: None)
    losses = []

    #Hyperparameters
    learning_rate = 0.0005
    gamma         = 0.98
    buffer_limit  = 50000

    class ReplayBuffer():
        def __init__(self):
            self.buffer = collections.deque(maxlen=buffer_limit)

        def put(self, transition):
            self.buffer.append(transition)

        def sample(self, n):
            mini_batch = random.sample(self.buffer, n)
            s_lst, a_lst, r_lst, s_prime_lst, done_mask_lst = [], [], [], [], []

            for transition in mini_batch:
                s, a, r, s_prime, done_mask = transition
                s_lst.append(s)
                a_lst.append([a])
                r_lst.append([r])
                s_prime_lst.append(s_prime)
                done_mask_lst.append([done_mask])

            return torch.tensor(s_lst, dtype=torch.float), torch.tensor(a_lst), \
                   torch.tensor(r_lst), torch.tensor(s_prime_lst, dtype=torch.float), \
                   torch.tensor(done_mask_lst)

        def size(self):
            return len(self.buffer)

    class Qnet(nn.Module):
        def __init__(self):
            super(Qnet, self).__init__()
            self.fc1 = nn.Linear(4, 128)
            self.fc2 = nn.Linear(128, 128)
            self.fc3 = nn.Linear(128, 2)

        def forward(self, x):
            x = F.relu(self.fc1(x))
            x = F.relu(self.fc2(x))
            x = self.fc3(x)
            return x

        def sample_action(self, obs, epsilon):
            out = self.forward(obs)
            coin = random.random()
            if coin < epsilon:
                return random.randint(0,1)
            else :
                return out.argmax().item()

    def train(q, q_target, memory, optimizer):
        for i in range(n_train):
            s,a,r,s_prime,done_mask = memory.sample(batch_size)

            q_out = q(s)
            q_a = q_out.gather(1,a)
            max_q_prime = q_target(s_prime).max(1)[0].unsqueeze(1)
            target = r + gamma * max_q_prime * done_mask
            loss = F.smooth_l1_loss(q_a, target)

            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            trace("q_a", q_a)
            trace("target", target)
            losses.append(loss.item())

    def main():
        env = gym.make('CartPole-v1')
        q = Qnet()
        if init is not None:
            init(q)
        q_target = Qnet()
        q_target.load_state_dict(q.state_dict())
        memory = ReplayBuffer()

        score = 0.0
        optimizer = optim.Adam(q.parameters(), lr=learning_rate)

        for n_epi in range(n_episodes):
            epsilon = max(0.01, 0.08 - 0.01*(n_epi/200)) #Linear annealing from 8% to 1%
            s, _ = env.reset()
            done = False

            while not done:
                a = q.sample_action(torch.from_numpy(s).float(), epsilon)
                s_prime, r, done, truncated, info = env.step(a)
                done_mask = 0.0 if done else 1.0
                memory.put((s,a,r/100.0,s_prime, done_mask))
                s = s_prime

                score += r
                trace("action", a)

            if memory.size()>train_start:
                train(q, q_target, memory, optimizer)

            if n_epi%print_interval==0 and n_epi!=0:
                q_target.load_state_dict(q.state_dict())
                log("n_episode :{}, score : {:.1f}, n_buffer : {}, eps : {:.1f}%".format(
                                                                n_epi, score/print_interval, memory.size(), epsilon*100))
                score = 0.0
        env.close()
        return q, q_target

    q, q_target = main()
    trace("final", q)
    trace("final_target", q_target)
    return losses


if __name__ == "__main__":
    import os
    import sys
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from _rl_envs import Gym
    import pyad as torch
    random.seed(0)
    print("last loss", run(torch, Gym(0, new_api=True, max_episode_steps=50),
                           n_episodes=21, train_start=100)[-1])
