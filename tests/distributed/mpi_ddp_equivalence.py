"""Run under mpiexec: N ranks training on shards equal one process on the whole batch.

Each rank also trains the single-process reference itself (same initial parameters,
the whole batch), so every comparison is local: after every step, the DDP model's
parameters must equal the reference's (float64, rtol=1e-12). Prints one "ok <case>"
line per case; any failure raises (and the abort hook ends every rank).
"""
import numpy as np

import pyad
import pyad.distributed as dist
from pyad import nn
from pyad.nn.parallel import DistributedDataParallel as DDP

dist.init_process_group("mpi")
rank, world = dist.get_rank(), dist.get_world_size()
BATCH = 12          # divisible by 1, 2, 3 and 4 ranks


class Net(nn.Module):
    def __init__(self, unused=False):
        super().__init__()
        self.fc1 = nn.Linear(5, 16, dtype=pyad.float64)
        self.fc2 = nn.Linear(16, 3, dtype=pyad.float64)
        if unused:
            self.spare = nn.Linear(16, 16, dtype=pyad.float64)   # never called

    def forward(self, x):
        return self.fc2(self.fc1(x).tanh())


def make(seed, unused=False):
    pyad.manual_seed(seed)
    return Net(unused)


def shard(a):
    per = len(a) // world
    return a[rank * per:(rank + 1) * per]


def check_same(case, step, ddp, ref):
    for (name, p), q in zip(ddp.module.named_parameters(), ref.parameters()):
        if not np.allclose(p.data, q.data, rtol=1e-12, atol=0):
            worst = np.max(np.abs(p.data - q.data) / np.abs(q.data))
            raise AssertionError("%s: step %d: %s differs on rank %d (relative %.3g)"
                                 % (case, step, name, rank, worst))


def train(case, opt_cls, opt_kwargs, unused=False, accumulate=1, steps=3, **ddp_kwargs):
    rng = np.random.default_rng(123)
    ref = make(0, unused)
    # Every rank but 0 starts elsewhere: wrapping must broadcast rank 0's parameters.
    ddp = DDP(make(0 if rank == 0 else 100 + rank, unused), **ddp_kwargs)
    check_same(case, 0, ddp, ref)
    ref_opt = opt_cls(ref.parameters(), **opt_kwargs)
    opt = opt_cls(ddp.parameters(), **opt_kwargs)
    for step in range(1, steps + 1):
        micro = [(rng.normal(size=(BATCH, 5)), rng.normal(size=(BATCH, 3)))
                 for _ in range(accumulate)]
        for x, y in micro:
            loss = ((ref(pyad.tensor(x)) - pyad.tensor(y)) ** 2).mean()
            loss.backward()
        ref_opt.step()
        ref_opt.zero_grad()
        for k, (x, y) in enumerate(micro):
            last = k == accumulate - 1
            ctx = ddp.no_sync() if not last else _Null()
            with ctx:
                loss = ((ddp(pyad.tensor(shard(x))) - pyad.tensor(shard(y))) ** 2).mean()
                loss.backward()
        opt.step()
        opt.zero_grad()
        check_same(case, step, ddp, ref)
    if unused:
        assert ddp.module.spare.weight.grad is None, "an unused parameter got a gradient"
    print("ok %s (world %d)" % (case, world), flush=True)


class _Null:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


train("sgd", pyad.optim.SGD, dict(lr=0.1, momentum=0.9))
train("adam", pyad.optim.Adam, dict(lr=0.01))
train("sgd-small-buckets", pyad.optim.SGD, dict(lr=0.1), bucket_cap_mb=0.0005)
train("no_sync", pyad.optim.SGD, dict(lr=0.1, momentum=0.9), accumulate=3)
train("adam-no_sync", pyad.optim.Adam, dict(lr=0.01), accumulate=2)
train("unused", pyad.optim.SGD, dict(lr=0.1), unused=True, find_unused_parameters=True)
train("unused-adam", pyad.optim.Adam, dict(lr=0.01), unused=True,
      find_unused_parameters=True, bucket_cap_mb=0.0005)

# A head only the odd ranks use: on the even ranks its gradient is missing locally but
# the average still counts the odd ranks' (and with one rank nobody uses it: None).
class TwoHeads(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(5, 16, dtype=pyad.float64)
        self.head_a = nn.Linear(16, 3, dtype=pyad.float64)
        self.head_b = nn.Linear(16, 3, dtype=pyad.float64)

    def forward(self, x, use_b):
        h = self.fc1(x).tanh()
        out = self.head_a(h)
        return out + self.head_b(h) if use_b else out


pyad.manual_seed(0)
ref = TwoHeads()
pyad.manual_seed(0)
ddp = DDP(TwoHeads(), find_unused_parameters=True, bucket_cap_mb=0.0005)
ref_opt = pyad.optim.SGD(ref.parameters(), lr=0.1, momentum=0.5)
opt = pyad.optim.SGD(ddp.parameters(), lr=0.1, momentum=0.5)
rng = np.random.default_rng(5)
for step in range(1, 4):
    x, y = rng.normal(size=(BATCH, 5)), rng.normal(size=(BATCH, 3))
    per = BATCH // world
    total = 0
    for r in range(world):       # every rank's share, as that rank computes it
        xs, ys = x[r * per:(r + 1) * per], y[r * per:(r + 1) * per]
        total = total + ((ref(pyad.tensor(xs), r % 2 == 1) - pyad.tensor(ys)) ** 2).mean()
    (total / world).backward()
    ref_opt.step()
    ref_opt.zero_grad()
    ((ddp(pyad.tensor(shard(x)), rank % 2 == 1) - pyad.tensor(shard(y))) ** 2).mean().backward()
    if world == 1:
        assert ddp.module.head_b.weight.grad is None
    opt.step()
    opt.zero_grad()
    check_same("used on some ranks", step, ddp, ref)
print("ok used on some ranks (world %d)" % world, flush=True)

# A forward whose backward never runs (an evaluation with grad mode on) leaves nothing
# pending: the next training step averages as usual.
pyad.manual_seed(0)
ref = make(0, unused=True)
pyad.manual_seed(0)
ddp = DDP(make(0, unused=True), find_unused_parameters=True)
x = np.random.default_rng(9).normal(size=(BATCH, 5))
ddp(pyad.tensor(shard(x)))
ddp(pyad.tensor(shard(x)))
(ddp(pyad.tensor(shard(x))) ** 2).mean().backward()
(ref(pyad.tensor(x)) ** 2).mean().backward()
for p, q in zip(ddp.module.fc1.parameters(), ref.fc1.parameters()):
    assert np.allclose(p.grad.data, q.grad.data, rtol=1e-12, atol=0)
print("ok forward without backward (world %d)" % world, flush=True)

# An unused parameter without find_unused_parameters: the next forward says why.
ddp = DDP(make(0, unused=True))
ddp(pyad.randn(4, 5, dtype=pyad.float64)).sum().backward()
try:
    ddp(pyad.randn(4, 5, dtype=pyad.float64))
except RuntimeError as exc:
    assert "find_unused_parameters=True" in str(exc), exc
    print("ok unused-without-find_unused refused (world %d)" % world, flush=True)
else:
    raise AssertionError("a forward after an incomplete reduction was not refused")

# state_dict: torch's prefix, and the bare module's keys load too.
ddp = DDP(make(0))
assert list(ddp.state_dict()) == ["module.fc1.weight", "module.fc1.bias",
                                  "module.fc2.weight", "module.fc2.bias"]
other = make(5)
ddp.load_state_dict(other.state_dict())
assert np.array_equal(ddp.module.fc1.weight.data, other.fc1.weight.data)
ddp.load_state_dict(ddp.state_dict())
print("ok state_dict (world %d)" % world, flush=True)
# Buffers: rank 0's when wrapped, and again before every training forward unless
# broadcast_buffers=False.
for flag in (True, False):
    net = make(0)
    net.register_buffer("stat", pyad.tensor([float(rank), 1.0], dtype=pyad.float64))
    ddp = DDP(net, broadcast_buffers=flag)
    assert np.array_equal(net.stat.data, [0.0, 1.0])
    net.stat.data[0] = 10.0 + rank
    ddp(pyad.randn(2, 5, dtype=pyad.float64)).sum().backward()
    assert net.stat.data[0] == (10.0 if flag else 10.0 + rank), (flag, net.stat)
print("ok buffers (world %d)" % world, flush=True)

# Overlap: with small buckets, the last layer's bucket has started its all-reduce (and
# holds that layer's gradients) before the first layer's gradient exists. An observer
# hook on fc1.weight registered before DDP's runs first, when fc1.weight's gradient has
# just been accumulated and nothing of it reduced yet.
net = make(0)
seen = {}


def observe(param):
    seen["started"] = [b.work is not None for b in ddp._buckets]
    seen["indices"] = [b.indices for b in ddp._buckets]


net.fc1.weight.register_post_accumulate_grad_hook(observe)
ddp = DDP(net, bucket_cap_mb=0.0002)
assert len(ddp._buckets) >= 3, [b.indices for b in ddp._buckets]
ddp(pyad.randn(4, 5, dtype=pyad.float64)).sum().backward()
# Parameters in registration order: fc1.weight, fc1.bias, fc2.weight, fc2.bias; the
# buckets hold them in reverse, so bucket 0 has fc2's and the last holds fc1.weight.
assert seen["indices"][0][0] == 3 and seen["indices"][-1][-1] == 0, seen
assert seen["started"][0] and not seen["started"][-1], seen
print("ok buckets start during backward (world %d)" % world, flush=True)
dist.destroy_process_group()
