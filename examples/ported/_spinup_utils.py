"""Single-process stand-ins for openai/spinningup's ``spinup.utils`` (MIT, Copyright (c)
2018 OpenAI), used by the Spinning Up ports (``spinup_*.py``).

The ports run in one process: ``mpi_tools``'s ``proc_id``/``num_procs``/``mpi_avg``/
``mpi_statistics_scalar`` and ``mpi_pytorch``'s ``setup_pytorch_for_mpi``/
``sync_params``/``mpi_avg_grads`` are their single-process identities (one process:
rank 0 of 1, the average of one value is the value, nothing to synchronise), and
``logx.EpochLogger`` is a dict collecting every value the algorithm stores (one list per
key, in order) plus, under ``"tabular"``, each epoch's ``(key, value)`` rows of
``log_tabular`` (the statistics of that epoch's stored values, as spinup's); nothing is
written to disk (``save_config``, ``setup_pytorch_saver`` and ``save_state`` do nothing)
and ``log`` is the ``log`` function it is given.
"""
import numpy as np


def proc_id():
    return 0


def num_procs():
    return 1


def mpi_avg(x):
    return x


def mpi_statistics_scalar(x, with_min_and_max=False):
    # spinup's formula (sums over the processes: here one)
    x = np.array(x, dtype=np.float32)
    global_sum, global_n = np.sum(x), len(x)
    mean = global_sum / global_n
    global_sum_sq = np.sum((x - mean) ** 2)
    std = np.sqrt(global_sum_sq / global_n)
    if with_min_and_max:
        return mean, std, np.min(x) if len(x) > 0 else np.inf, \
            np.max(x) if len(x) > 0 else -np.inf
    return mean, std


def setup_pytorch_for_mpi():
    pass


def sync_params(module):
    pass


def mpi_avg_grads(module):
    pass


class EpochLogger(dict):
    """A dict of every stored value (see the module docstring)."""

    def __init__(self, log=print, **kwargs):
        super().__init__()
        self._log = log
        self._epoch = {}
        self["tabular"] = []

    def save_config(self, config):
        pass

    def setup_pytorch_saver(self, what_to_save):
        pass

    def save_state(self, state_dict, itr=None):
        pass

    def log(self, msg, color="green"):
        self._log(msg)

    def store(self, **kwargs):
        for k, v in kwargs.items():
            self.setdefault(k, []).append(v)
            self._epoch.setdefault(k, []).append(v)

    def log_tabular(self, key, val=None, with_min_and_max=False, average_only=False):
        if val is None:
            values = self._epoch.pop(key, [])
            if not values:
                self["tabular"].append((key, None))
                return
            values = np.concatenate([np.reshape(v, -1) for v in values])
            stats = mpi_statistics_scalar(values, with_min_and_max=with_min_and_max)
            val = stats[0] if average_only else stats
        self["tabular"].append((key, val))

    def dump_tabular(self):
        pass
