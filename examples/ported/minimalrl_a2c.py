"""Port of seungeunrho/minimalRL ``a2c.py``: synchronous advantage actor-critic (A2C) on
``n_train_processes`` CartPoles stepped together, with ``update_interval``-step
returns and a periodic greedy-free test run.

minimalRL is MIT-licensed, Copyright (c) 2019 seungeunrho.

Ported by changing the imports (``import pyad as torch``), with one process: the
text's ``ParallelEnv`` starts a ``torch.multiprocessing`` worker per environment and
talks to it through pipes; here ``ParallelEnv`` keeps the same methods and runs each
worker's command logic (the text's ``worker`` loop body: ``step`` with the reset at
``done``, ``reset``, ``close``) in-process on its own environment, seeded by the worker
id as the text's ``env.seed(worker_id)``. gym is not a dependency: ``gym`` is ``run``'s
argument, ``examples/ported/_rl_envs.py``'s ``Gym`` (CartPole's physics in NumPy, gym's
old interface, with ``seed``). The text's constants are keywords for the tests:
``max_train_steps`` (60000), the test's interval ``print_interval``
(``update_interval * 100``) and its ``num_test`` (10) episodes; ``print`` is ``log``,
and ``trace(name, value)`` (for the tests) sees each update's TD targets, advantages
and log-probabilities. The script's body (the text's ``if __name__ == '__main__':``
block) is ``main``. Returns every update's loss.

Run it with ``python examples/ported/minimalrl_a2c.py``.
"""
import numpy as np


def run(torch, gym, max_train_steps=60000, print_interval=None, num_test=10,
        n_train_processes=3, init=None, log=print, trace=None):
    nn = torch.nn
    F = torch.nn.functional
    optim = torch.optim
    Categorical = torch.distributions.Categorical
    trace = trace or (lambda name, value: None)
    losses = []

    # Hyperparameters
    learning_rate = 0.0002
    update_interval = 5
    gamma = 0.98
    PRINT_INTERVAL = print_interval or update_interval * 100

    class ActorCritic(nn.Module):
        def __init__(self):
            super(ActorCritic, self).__init__()
            self.fc1 = nn.Linear(4, 256)
            self.fc_pi = nn.Linear(256, 2)
            self.fc_v = nn.Linear(256, 1)

        def pi(self, x, softmax_dim=1):
            x = F.relu(self.fc1(x))
            x = self.fc_pi(x)
            prob = F.softmax(x, dim=softmax_dim)
            return prob

        def v(self, x):
            x = F.relu(self.fc1(x))
            v = self.fc_v(x)
            return v

    def worker(env, cmd, data):
        # the text's worker loop body, one command at a time, in-process
        if cmd == 'step':
            ob, reward, done, info = env.step(data)
            if done:
                ob = env.reset()
            return (ob, reward, done, info)
        elif cmd == 'reset':
            ob = env.reset()
            return ob
        elif cmd == 'reset_task':
            ob = env.reset_task()
            return ob
        elif cmd == 'close':
            return None
        elif cmd == 'get_spaces':
            return (env.observation_space, env.action_space)
        else:
            raise NotImplementedError

    class ParallelEnv:
        def __init__(self, n_train_processes):
            self.nenvs = n_train_processes
            self.waiting = False
            self.closed = False
            self.envs = list()
            for worker_id in range(self.nenvs):
                env = gym.make('CartPole-v1')
                env.seed(worker_id)
                self.envs.append(env)

        def step_async(self, actions):
            self.actions = actions
            self.waiting = True

        def step_wait(self):
            results = [worker(env, 'step', action) for env, action in zip(self.envs, self.actions)]
            self.waiting = False
            obs, rews, dones, infos = zip(*results)
            return np.stack(obs), np.stack(rews), np.stack(dones), infos

        def reset(self):
            return np.stack([worker(env, 'reset', None) for env in self.envs])

        def step(self, actions):
            self.step_async(actions)
            return self.step_wait()

        def close(self):  # For clean up resources
            if self.closed:
                return
            for env in self.envs:
                worker(env, 'close', None)
            self.closed = True

    def test(step_idx, model):
        env = gym.make('CartPole-v1')
        score = 0.0
        done = False

        for _ in range(num_test):
            s = env.reset()
            while not done:
                prob = model.pi(torch.from_numpy(s).float(), softmax_dim=0)
                a = Categorical(prob).sample().numpy()
                s_prime, r, done, info = env.step(a)
                s = s_prime
                score += r
            done = False
        log(f"Step # :{step_idx}, avg score : {score/num_test:.1f}")

        env.close()

    def compute_target(v_final, r_lst, mask_lst):
        G = v_final.reshape(-1)
        td_target = list()

        for r, mask in zip(r_lst[::-1], mask_lst[::-1]):
            G = r + gamma * G * mask
            td_target.append(G)

        return torch.tensor(td_target[::-1]).float()

    def main():
        envs = ParallelEnv(n_train_processes)

        model = ActorCritic()
        if init is not None:
            init(model)
        optimizer = optim.Adam(model.parameters(), lr=learning_rate)

        step_idx = 0
        s = envs.reset()
        while step_idx < max_train_steps:
            s_lst, a_lst, r_lst, mask_lst = list(), list(), list(), list()
            for _ in range(update_interval):
                prob = model.pi(torch.from_numpy(s).float())
                a = Categorical(prob).sample().numpy()
                s_prime, r, done, info = envs.step(a)

                s_lst.append(s)
                a_lst.append(a)
                r_lst.append(r/100.0)
                mask_lst.append(1 - done)

                s = s_prime
                step_idx += 1

            s_final = torch.from_numpy(s_prime).float()
            v_final = model.v(s_final).detach().clone().numpy()
            td_target = compute_target(v_final, r_lst, mask_lst)

            td_target_vec = td_target.reshape(-1)
            s_vec = torch.tensor(s_lst).float().reshape(-1, 4)  # 4 == Dimension of state
            a_vec = torch.tensor(a_lst).reshape(-1).unsqueeze(1)
            advantage = td_target_vec - model.v(s_vec).reshape(-1)

            pi = model.pi(s_vec, softmax_dim=1)
            pi_a = pi.gather(1, a_vec).reshape(-1)
            loss = -(torch.log(pi_a) * advantage.detach()).mean() +\
                F.smooth_l1_loss(model.v(s_vec).reshape(-1), td_target_vec)

            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            trace("td_target", td_target)
            trace("advantage", advantage)
            trace("log_pi_a", torch.log(pi_a))
            losses.append(loss.item())

            if step_idx % PRINT_INTERVAL == 0:
                test(step_idx, model)

        envs.close()
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
    print("last loss", run(torch, Gym(0), max_train_steps=500)[-1])
