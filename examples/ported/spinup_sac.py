"""Port of openai/spinningup's PyTorch SAC (``spinup/algos/pytorch/sac/sac.py`` and its
``core.py``): soft actor-critic, a tanh-squashed Gaussian actor (``rsample`` and the
log-probability's squashing correction), two Q networks with polyak-averaged targets and
a fixed entropy coefficient.

Spinning Up is MIT-licensed, Copyright (c) 2018 OpenAI (http://openai.com).

Ported by changing the imports (``import pyad as torch``): ``core.py`` is ``_core(torch)``
and ``sac`` is defined inside ``run``, both as written but for these changes. gym is not
a dependency: ``gym`` is ``run``'s argument, ``examples/ported/_rl_envs.py``'s ``Gym``
(Pendulum, whose ``Box`` action space stands in for ``gym.spaces.Box``; its ``sample()``
draws from ``np.random``, which the text seeds). ``EpochLogger`` is a dict collecting
every stored value and each epoch's tabular rows (``_spinup_utils.py``; nothing written
to disk, ``logger.log`` is ``log``). The long argument docstring and the ``__main__``
block (argparse, ``set_num_threads``) are left out; ``sac`` returns the logger, the actor-critic and its
target, and ``init(ac)`` (for the tests) sees the actor-critic before the target copies
it. The text's sizes (4000 steps per epoch, 100 epochs, minibatches of 100, 10000
random steps, updates after 1000 steps every 50, 10 test episodes of up to 1000 steps,
hidden sizes (256, 256)) are keywords: ``run``'s defaults are tiny (two epochs of 40
steps, minibatches of 16, 20 random steps, 20 updates every 20 steps from step 20, one
test episode, episodes of 25 steps, hidden sizes (16, 16)).

One line differs: the polyak update's ``p_targ.data.mul_(polyak)`` and
``p_targ.data.add_((1 - polyak) * p.data)``. pyad's ``.data`` is the NumPy array, which
has no ``mul_``/``add_``, so the default (``data_polyak=False``) runs the same in-place
ops on the Variables, ``p_targ.mul_(polyak)`` and ``p_targ.add_((1 - polyak) * p)``,
under the text's ``torch.no_grad()``; ``data_polyak=True`` runs the original lines (a
strict xfail on pyad in the tests; on torch both give the same weights).

Kept as written: ``q_params`` is an ``itertools.chain``, used up by the Q optimizer, so
the loops that freeze and unfreeze the Q networks around the policy step do nothing
(the policy step's Q gradients are cleared by the next ``q_optimizer.zero_grad()``).

Run it with ``python examples/ported/spinup_sac.py``.
"""
from copy import deepcopy
import importlib.util
import itertools
import os
import time
import types

import numpy as np


def _sibling(name):
    here = os.path.dirname(os.path.abspath(__file__))
    spec = importlib.util.spec_from_file_location("_spinup_" + name,
                                                  os.path.join(here, name + ".py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_envs = _sibling("_rl_envs")
EpochLogger = _sibling("_spinup_utils").EpochLogger


def _core(torch):
    """``spinup/algos/pytorch/sac/core.py``, as written."""
    nn = torch.nn
    F = torch.nn.functional
    Normal = torch.distributions.normal.Normal

    def combined_shape(length, shape=None):
        if shape is None:
            return (length,)
        return (length, shape) if np.isscalar(shape) else (length, *shape)

    def mlp(sizes, activation, output_activation=nn.Identity):
        layers = []
        for j in range(len(sizes)-1):
            act = activation if j < len(sizes)-2 else output_activation
            layers += [nn.Linear(sizes[j], sizes[j+1]), act()]
        return nn.Sequential(*layers)

    def count_vars(module):
        return sum([np.prod(p.shape) for p in module.parameters()])


    LOG_STD_MAX = 2
    LOG_STD_MIN = -20

    class SquashedGaussianMLPActor(nn.Module):

        def __init__(self, obs_dim, act_dim, hidden_sizes, activation, act_limit):
            super().__init__()
            self.net = mlp([obs_dim] + list(hidden_sizes), activation, activation)
            self.mu_layer = nn.Linear(hidden_sizes[-1], act_dim)
            self.log_std_layer = nn.Linear(hidden_sizes[-1], act_dim)
            self.act_limit = act_limit

        def forward(self, obs, deterministic=False, with_logprob=True):
            net_out = self.net(obs)
            mu = self.mu_layer(net_out)
            log_std = self.log_std_layer(net_out)
            log_std = torch.clamp(log_std, LOG_STD_MIN, LOG_STD_MAX)
            std = torch.exp(log_std)

            # Pre-squash distribution and sample
            pi_distribution = Normal(mu, std)
            if deterministic:
                # Only used for evaluating policy at test time.
                pi_action = mu
            else:
                pi_action = pi_distribution.rsample()

            if with_logprob:
                # Compute logprob from Gaussian, and then apply correction for Tanh squashing.
                # NOTE: The correction formula is a little bit magic. To get an understanding 
                # of where it comes from, check out the original SAC paper (arXiv 1801.01290) 
                # and look in appendix C. This is a more numerically-stable equivalent to Eq 21.
                # Try deriving it yourself as a (very difficult) exercise. :)
                logp_pi = pi_distribution.log_prob(pi_action).sum(axis=-1)
                logp_pi -= (2*(np.log(2) - pi_action - F.softplus(-2*pi_action))).sum(axis=1)
            else:
                logp_pi = None

            pi_action = torch.tanh(pi_action)
            pi_action = self.act_limit * pi_action

            return pi_action, logp_pi


    class MLPQFunction(nn.Module):

        def __init__(self, obs_dim, act_dim, hidden_sizes, activation):
            super().__init__()
            self.q = mlp([obs_dim + act_dim] + list(hidden_sizes) + [1], activation)

        def forward(self, obs, act):
            q = self.q(torch.cat([obs, act], dim=-1))
            return torch.squeeze(q, -1) # Critical to ensure q has right shape.

    class MLPActorCritic(nn.Module):

        def __init__(self, observation_space, action_space, hidden_sizes=(256,256),
                     activation=nn.ReLU):
            super().__init__()

            obs_dim = observation_space.shape[0]
            act_dim = action_space.shape[0]
            act_limit = action_space.high[0]

            # build policy and value functions
            self.pi = SquashedGaussianMLPActor(obs_dim, act_dim, hidden_sizes, activation, act_limit)
            self.q1 = MLPQFunction(obs_dim, act_dim, hidden_sizes, activation)
            self.q2 = MLPQFunction(obs_dim, act_dim, hidden_sizes, activation)

        def act(self, obs, deterministic=False):
            with torch.no_grad():
                a, _ = self.pi(obs, deterministic, False)
                return a.numpy()

    return types.SimpleNamespace(
        combined_shape=combined_shape, mlp=mlp, count_vars=count_vars,
        SquashedGaussianMLPActor=SquashedGaussianMLPActor, MLPQFunction=MLPQFunction,
        MLPActorCritic=MLPActorCritic)


def run(torch, gym, env_name="Pendulum-v1", hidden_sizes=(16, 16), steps_per_epoch=40,
        epochs=2, batch_size=16, start_steps=20, update_after=20, update_every=20,
        num_test_episodes=1, max_ep_len=25, data_polyak=False, init=None, log=print):
    Adam = torch.optim.Adam
    core = _core(torch)

    class ReplayBuffer:
        """
        A simple FIFO experience replay buffer for SAC agents.
        """

        def __init__(self, obs_dim, act_dim, size):
            self.obs_buf = np.zeros(core.combined_shape(size, obs_dim), dtype=np.float32)
            self.obs2_buf = np.zeros(core.combined_shape(size, obs_dim), dtype=np.float32)
            self.act_buf = np.zeros(core.combined_shape(size, act_dim), dtype=np.float32)
            self.rew_buf = np.zeros(size, dtype=np.float32)
            self.done_buf = np.zeros(size, dtype=np.float32)
            self.ptr, self.size, self.max_size = 0, 0, size

        def store(self, obs, act, rew, next_obs, done):
            self.obs_buf[self.ptr] = obs
            self.obs2_buf[self.ptr] = next_obs
            self.act_buf[self.ptr] = act
            self.rew_buf[self.ptr] = rew
            self.done_buf[self.ptr] = done
            self.ptr = (self.ptr+1) % self.max_size
            self.size = min(self.size+1, self.max_size)

        def sample_batch(self, batch_size=32):
            idxs = np.random.randint(0, self.size, size=batch_size)
            batch = dict(obs=self.obs_buf[idxs],
                         obs2=self.obs2_buf[idxs],
                         act=self.act_buf[idxs],
                         rew=self.rew_buf[idxs],
                         done=self.done_buf[idxs])
            return {k: torch.as_tensor(v, dtype=torch.float32) for k,v in batch.items()}



    def sac(env_fn, actor_critic=core.MLPActorCritic, ac_kwargs=dict(), seed=0, 
            steps_per_epoch=4000, epochs=100, replay_size=int(1e6), gamma=0.99, 
            polyak=0.995, lr=1e-3, alpha=0.2, batch_size=100, start_steps=10000, 
            update_after=1000, update_every=50, num_test_episodes=10, max_ep_len=1000, 
            logger_kwargs=dict(), save_freq=1):
        """
        Soft Actor-Critic (SAC)
        """

        logger = EpochLogger(**logger_kwargs)
        logger.save_config(locals())

        torch.manual_seed(seed)
        np.random.seed(seed)

        env, test_env = env_fn(), env_fn()
        obs_dim = env.observation_space.shape
        act_dim = env.action_space.shape[0]

        # Action limit for clamping: critically, assumes all dimensions share the same bound!
        act_limit = env.action_space.high[0]

        # Create actor-critic module and target networks
        ac = actor_critic(env.observation_space, env.action_space, **ac_kwargs)
        if init is not None:
            init(ac)
        ac_targ = deepcopy(ac)

        # Freeze target networks with respect to optimizers (only update via polyak averaging)
        for p in ac_targ.parameters():
            p.requires_grad = False
            
        # List of parameters for both Q-networks (save this for convenience)
        q_params = itertools.chain(ac.q1.parameters(), ac.q2.parameters())

        # Experience buffer
        replay_buffer = ReplayBuffer(obs_dim=obs_dim, act_dim=act_dim, size=replay_size)

        # Count variables (protip: try to get a feel for how different size networks behave!)
        var_counts = tuple(core.count_vars(module) for module in [ac.pi, ac.q1, ac.q2])
        logger.log('\nNumber of parameters: \t pi: %d, \t q1: %d, \t q2: %d\n'%var_counts)

        # Set up function for computing SAC Q-losses
        def compute_loss_q(data):
            o, a, r, o2, d = data['obs'], data['act'], data['rew'], data['obs2'], data['done']

            q1 = ac.q1(o,a)
            q2 = ac.q2(o,a)

            # Bellman backup for Q functions
            with torch.no_grad():
                # Target actions come from *current* policy
                a2, logp_a2 = ac.pi(o2)

                # Target Q-values
                q1_pi_targ = ac_targ.q1(o2, a2)
                q2_pi_targ = ac_targ.q2(o2, a2)
                q_pi_targ = torch.min(q1_pi_targ, q2_pi_targ)
                backup = r + gamma * (1 - d) * (q_pi_targ - alpha * logp_a2)

            # MSE loss against Bellman backup
            loss_q1 = ((q1 - backup)**2).mean()
            loss_q2 = ((q2 - backup)**2).mean()
            loss_q = loss_q1 + loss_q2

            # Useful info for logging
            q_info = dict(Q1Vals=q1.detach().numpy(),
                          Q2Vals=q2.detach().numpy())

            return loss_q, q_info

        # Set up function for computing SAC pi loss
        def compute_loss_pi(data):
            o = data['obs']
            pi, logp_pi = ac.pi(o)
            q1_pi = ac.q1(o, pi)
            q2_pi = ac.q2(o, pi)
            q_pi = torch.min(q1_pi, q2_pi)

            # Entropy-regularized policy loss
            loss_pi = (alpha * logp_pi - q_pi).mean()

            # Useful info for logging
            pi_info = dict(LogPi=logp_pi.detach().numpy())

            return loss_pi, pi_info

        # Set up optimizers for policy and q-function
        pi_optimizer = Adam(ac.pi.parameters(), lr=lr)
        q_optimizer = Adam(q_params, lr=lr)

        # Set up model saving
        logger.setup_pytorch_saver(ac)

        def update(data):
            # First run one gradient descent step for Q1 and Q2
            q_optimizer.zero_grad()
            loss_q, q_info = compute_loss_q(data)
            loss_q.backward()
            q_optimizer.step()

            # Record things
            logger.store(LossQ=loss_q.item(), **q_info)

            # Freeze Q-networks so you don't waste computational effort 
            # computing gradients for them during the policy learning step.
            for p in q_params:
                p.requires_grad = False

            # Next run one gradient descent step for pi.
            pi_optimizer.zero_grad()
            loss_pi, pi_info = compute_loss_pi(data)
            loss_pi.backward()
            pi_optimizer.step()

            # Unfreeze Q-networks so you can optimize it at next DDPG step.
            for p in q_params:
                p.requires_grad = True

            # Record things
            logger.store(LossPi=loss_pi.item(), **pi_info)

            # Finally, update target networks by polyak averaging.
            with torch.no_grad():
                for p, p_targ in zip(ac.parameters(), ac_targ.parameters()):
                    # NB: We use an in-place operations "mul_", "add_" to update target
                    # params, as opposed to "mul" and "add", which would make new tensors.
                    if data_polyak:
                        p_targ.data.mul_(polyak)
                        p_targ.data.add_((1 - polyak) * p.data)
                    else:
                        p_targ.mul_(polyak)
                        p_targ.add_((1 - polyak) * p)

        def get_action(o, deterministic=False):
            return ac.act(torch.as_tensor(o, dtype=torch.float32), 
                          deterministic)

        def test_agent():
            for j in range(num_test_episodes):
                o, d, ep_ret, ep_len = test_env.reset(), False, 0, 0
                while not(d or (ep_len == max_ep_len)):
                    # Take deterministic actions at test time 
                    o, r, d, _ = test_env.step(get_action(o, True))
                    ep_ret += r
                    ep_len += 1
                logger.store(TestEpRet=ep_ret, TestEpLen=ep_len)

        # Prepare for interaction with environment
        total_steps = steps_per_epoch * epochs
        start_time = time.time()
        o, ep_ret, ep_len = env.reset(), 0, 0

        # Main loop: collect experience in env and update/log each epoch
        for t in range(total_steps):
            
            # Until start_steps have elapsed, randomly sample actions
            # from a uniform distribution for better exploration. Afterwards, 
            # use the learned policy. 
            if t > start_steps:
                a = get_action(o)
            else:
                a = env.action_space.sample()

            # Step the env
            o2, r, d, _ = env.step(a)
            ep_ret += r
            ep_len += 1

            # Ignore the "done" signal if it comes from hitting the time
            # horizon (that is, when it's an artificial terminal signal
            # that isn't based on the agent's state)
            d = False if ep_len==max_ep_len else d

            # Store experience to replay buffer
            replay_buffer.store(o, a, r, o2, d)

            # Super critical, easy to overlook step: make sure to update 
            # most recent observation!
            o = o2

            # End of trajectory handling
            if d or (ep_len == max_ep_len):
                logger.store(EpRet=ep_ret, EpLen=ep_len)
                o, ep_ret, ep_len = env.reset(), 0, 0

            # Update handling
            if t >= update_after and t % update_every == 0:
                for j in range(update_every):
                    batch = replay_buffer.sample_batch(batch_size)
                    update(data=batch)

            # End of epoch handling
            if (t+1) % steps_per_epoch == 0:
                epoch = (t+1) // steps_per_epoch

                # Save model
                if (epoch % save_freq == 0) or (epoch == epochs):
                    logger.save_state({'env': env}, None)

                # Test the performance of the deterministic version of the agent.
                test_agent()

                # Log info about epoch
                logger.log_tabular('Epoch', epoch)
                logger.log_tabular('EpRet', with_min_and_max=True)
                logger.log_tabular('TestEpRet', with_min_and_max=True)
                logger.log_tabular('EpLen', average_only=True)
                logger.log_tabular('TestEpLen', average_only=True)
                logger.log_tabular('TotalEnvInteracts', t)
                logger.log_tabular('Q1Vals', with_min_and_max=True)
                logger.log_tabular('Q2Vals', with_min_and_max=True)
                logger.log_tabular('LogPi', with_min_and_max=True)
                logger.log_tabular('LossPi', average_only=True)
                logger.log_tabular('LossQ', average_only=True)
                logger.log_tabular('Time', time.time()-start_time)
                logger.dump_tabular()
        return logger, ac, ac_targ

    return sac(lambda : gym.make(env_name), actor_critic=core.MLPActorCritic,
               ac_kwargs=dict(hidden_sizes=list(hidden_sizes)), steps_per_epoch=steps_per_epoch,
               epochs=epochs, batch_size=batch_size, start_steps=start_steps,
               update_after=update_after, update_every=update_every,
               num_test_episodes=num_test_episodes, max_ep_len=max_ep_len,
               logger_kwargs=dict(log=log))


if __name__ == "__main__":
    import pyad as torch
    logger, ac, ac_targ = run(torch, _envs.Gym(0))
    print("LossQ", logger["LossQ"][-1], "LossPi", logger["LossPi"][-1],
          "TestEpRet", logger["TestEpRet"])
