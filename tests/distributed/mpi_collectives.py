"""Run under mpiexec: every collective of pyad.distributed against NumPy's answer.

Rank r's values are known on every rank (they depend on r only), so each rank checks its
results itself. Prints "ok <check>" lines; a failure raises (the abort hook ends every
rank).
"""
import datetime
import sys

import numpy as np

import pyad
import pyad.distributed as dist
from pyad.autograd import gradcheck, gradgradcheck

# With --timeout every blocking call polls MPI's non-blocking one against a deadline.
dist.init_process_group("mpi", timeout=datetime.timedelta(seconds=60)
                        if "--timeout" in sys.argv else None)
rank, world = dist.get_rank(), dist.get_world_size()
ReduceOp = dist.ReduceOp
assert dist.is_initialized() and dist.get_backend() == "mpi"
assert dist.group.WORLD is dist.GroupMember.WORLD is not None
assert dist.get_rank(dist.group.WORLD) == rank
try:
    dist.init_process_group("mpi")
except ValueError as exc:
    assert str(exc) == "trying to initialize the default process group twice!"
else:
    raise AssertionError("a second init_process_group was accepted")


def value(r, shape=(2, 3), dtype=np.float64):
    return (np.arange(np.prod(shape)).reshape(shape) + 10 * r + 1).astype(dtype)


def every(shape=(2, 3), dtype=np.float64):
    return np.stack([value(r, shape, dtype) for r in range(world)])


def ok(name):
    print("ok %s (world %d)" % (name, world), flush=True)


def expect_error(name, fn, text, kind=RuntimeError):
    try:
        fn()
    except kind as exc:
        assert text in str(exc), "%s: %r lacks %r" % (name, str(exc), text)
    else:
        raise AssertionError("%s was not refused on rank %d" % (name, rank))


# all_reduce, each op, in place, sync and async; 0-d, empty, float32, int64.
for op, ref in ((ReduceOp.SUM, every().sum(0)), (ReduceOp.AVG, every().mean(0)),
                (ReduceOp.PRODUCT, every().prod(0)), (ReduceOp.MIN, every().min(0)),
                (ReduceOp.MAX, every().max(0))):
    for async_op in (False, True):
        v = pyad.Variable(value(rank))
        data = v.data
        work = dist.all_reduce(v, op=op, async_op=async_op)
        if async_op:
            assert work.wait() is True and work.is_completed()
        else:
            assert work is None
        assert v.data is data and np.allclose(v.data, ref, rtol=1e-15, atol=0), (op, v)
ok("all_reduce ops")
for shape in ((), (0,), (0, 3)):
    v = pyad.Variable(value(rank, shape))
    dist.all_reduce(v)
    assert v.shape == shape and np.array_equal(v.data, every(shape).sum(0))
v = pyad.Variable(value(rank, dtype=np.float32))
dist.all_reduce(v)
assert v.dtype == np.float32 and np.array_equal(v.data, every(dtype=np.float32).sum(0))
v = pyad.Variable(value(rank, dtype=np.int64))
dist.all_reduce(v, op=ReduceOp.BXOR)
assert np.array_equal(v.data, np.bitwise_xor.reduce(every(dtype=np.int64), 0))
v = pyad.Variable(value(rank, dtype=np.float16))
dist.all_reduce(v)
assert v.dtype == np.float16 and np.array_equal(v.data, every(dtype=np.float16).sum(0))
# A dtype MPI has no type for (bfloat16, from ml_dtypes) is reduced in float32 and
# rounded back; float16 posing as one here takes that path.
has_type = dist.collectives._has_mpi_type
dist.collectives._has_mpi_type = lambda dtype: dtype != np.float16 and has_type(dtype)
try:
    for op in (ReduceOp.SUM, ReduceOp.AVG):
        v = pyad.Variable(value(rank, dtype=np.float16))
        dist.all_reduce(v, op=op)
        wide = every(dtype=np.float32)
        assert v.dtype == np.float16
        assert np.array_equal(v.data, (wide.sum(0) if op == ReduceOp.SUM
                                       else wide.sum(0) / world).astype(np.float16)), (op, v)
    v = pyad.Variable(value(rank, dtype=np.float16))
    dist.reduce(v, dst=0, op=ReduceOp.MAX)
    assert np.array_equal(v.data, every(dtype=np.float16).max(0) if rank == 0
                          else value(rank, dtype=np.float16))
    mine = pyad.zeros(2, 3, dtype=pyad.float16)
    dist.reduce_scatter(mine, [pyad.Variable(value(rank, dtype=np.float16))] * world)
    assert np.array_equal(mine.data, every(dtype=np.float32).sum(0).astype(np.float16))
    out = [pyad.zeros(2, 3, dtype=pyad.float16) for _ in range(world)]
    dist.all_gather(out, pyad.Variable(value(rank, dtype=np.float16)))
    assert all(np.array_equal(o.data, value(r, dtype=np.float16)) for r, o in enumerate(out))
    v = pyad.Variable(value(rank, dtype=np.float16))
    dist.broadcast(v, src=0)
    assert np.array_equal(v.data, value(0, dtype=np.float16))
finally:
    dist.collectives._has_mpi_type = has_type
ok("all_reduce 0-d, empty and dtypes")

# A collective writes in place: it bumps the version, so a backward that saved the old
# values refuses to run (as torch).
x = pyad.tensor([1.0, 2.0], dtype=pyad.float64, requires_grad=True)
y = x * 1.0
z = (y * y).sum()
before = y._version
dist.all_reduce(y)
assert y._version == before + 1
expect_error("saved then reduced", z.backward, "modified by an inplace operation")
ok("all_reduce bumps the version")

# Non-contiguous data is copied in and out: the strided view itself gets the result.
base = np.zeros((3, 4)) + rank
v = pyad.Variable(value(rank, (3, 2)).T.copy().T)           # transposed layout
assert not v.data.flags.c_contiguous
dist.all_reduce(v)
assert np.array_equal(v.data, every((3, 2)).sum(0))
strided = pyad.Variable(base[:, ::2])
dist.all_reduce(strided)
assert np.array_equal(base[:, ::2], np.full((3, 2), sum(range(world))))
assert np.array_equal(base[:, 1::2], np.full((3, 2), rank)), "all_reduce wrote outside the view"
work = dist.all_reduce(pyad.Variable(base[:, 1::2]), async_op=True)
work.wait()
assert np.array_equal(base[:, 1::2], np.full((3, 2), sum(range(world))))
ok("all_reduce non-contiguous")

# Mismatches are refused on every rank, with the same message naming the ranks.
if world > 1:
    expect_error("shape mismatch", lambda: dist.all_reduce(pyad.zeros(3 + (rank == 1))),
                 "rank 1 has (4,) float32")
    expect_error("dtype mismatch", lambda: dist.all_reduce(
        pyad.zeros(3, dtype=pyad.float64 if rank == 1 else pyad.float32)), "float64")
    expect_error("op mismatch", lambda: dist.all_reduce(
        pyad.zeros(3), op=ReduceOp.MAX if rank == 1 else ReduceOp.SUM), "op=MAX")
    expect_error("broadcast src mismatch", lambda: dist.broadcast(pyad.zeros(2), src=rank),
                 "src=1")
    expect_error("all_gather list", lambda: dist.all_gather(
        [pyad.zeros(2) for _ in range(world + (rank == 1))], pyad.zeros(2)),
        "all_gather(): refused on every rank: rank 1: expected %d Variables" % world)
    ok("mismatches refused")
expect_error("AVG on int", lambda: dist.all_reduce(pyad.zeros(2, dtype=pyad.int64),
                                                   op=ReduceOp.AVG), "AVG", ValueError)
# Only rank 0's dtype cannot be averaged: refused on every rank all the same.
expect_error("AVG on int on one rank", lambda: dist.all_reduce(
    pyad.zeros(2, dtype=pyad.int64 if rank == 0 else pyad.float64), op=ReduceOp.AVG),
    "rank 0: ReduceOp.AVG needs a floating-point Variable, got int64", ValueError)
expect_error("BAND on float", lambda: dist.reduce(pyad.zeros(2), dst=0, op=ReduceOp.BAND),
             "needs an integer or bool Variable", ValueError)
expect_error("not a Variable", lambda: dist.all_reduce(np.zeros(2)), "of type Variable",
             TypeError)
expect_error("bad op", lambda: dist.all_reduce(pyad.zeros(2), op="sum"), "ReduceOp",
             TypeError)
expect_error("src out of range", lambda: dist.broadcast(pyad.zeros(2), src=world),
             "not part of the group", ValueError)

# broadcast, reduce
for async_op in (False, True):
    for src in range(world):
        v = pyad.Variable(value(rank))
        work = dist.broadcast(v, src=src, async_op=async_op)
        if async_op:
            work.wait()
        assert np.array_equal(v.data, value(src))
        v = pyad.Variable(value(rank))
        work = dist.reduce(v, dst=src, op=ReduceOp.MAX, async_op=async_op)
        if async_op:
            work.wait()
        assert np.array_equal(v.data, every().max(0) if rank == src else value(rank))
v = pyad.Variable(value(rank).T)
dist.broadcast(v, src=world - 1)
assert np.array_equal(v.data, value(world - 1).T)
ok("broadcast and reduce")

# all_gather, all_gather_into_tensor, reduce_scatter, gather, scatter
out = [pyad.zeros(2, 3, dtype=pyad.float64) for _ in range(world)]
dist.all_gather(out, pyad.Variable(value(rank)))
assert all(np.array_equal(o.data, value(r)) for r, o in enumerate(out))
flat = pyad.zeros(2 * world, 3, dtype=pyad.float64)
dist.all_gather_into_tensor(flat, pyad.Variable(value(rank)))
assert np.array_equal(flat.data, every().reshape(2 * world, 3))
stacked = pyad.zeros(world, 2, 3, dtype=pyad.float64)
dist.all_gather_into_tensor(stacked, pyad.Variable(value(rank)), async_op=True).wait()
assert np.array_equal(stacked.data, every())
expect_error("all_gather_into_tensor size", lambda: dist.all_gather_into_tensor(
    pyad.zeros(world + 1, 2, 3, dtype=pyad.float64), pyad.Variable(value(rank))),
    "times the elements")
mine = pyad.zeros(2, 3, dtype=pyad.float64)
inputs = [pyad.Variable(value(rank) * (i + 1)) for i in range(world)]
dist.reduce_scatter(mine, inputs)
assert np.array_equal(mine.data, every().sum(0) * (rank + 1))
dist.reduce_scatter(mine, inputs, op=ReduceOp.AVG, async_op=True).wait()
assert np.allclose(mine.data, every().mean(0) * (rank + 1), rtol=1e-15, atol=0)
for dst in range(world):
    got = [pyad.zeros(2, 3, dtype=pyad.float64) for _ in range(world)] if rank == dst else None
    dist.gather(pyad.Variable(value(rank)), got, dst=dst)
    if rank == dst:
        assert all(np.array_equal(o.data, value(r)) for r, o in enumerate(got))
    target = pyad.zeros(2, 3, dtype=pyad.float64)
    pieces = [pyad.Variable(value(r) * 2) for r in range(world)] if rank == dst else None
    dist.scatter(target, pieces, src=dst)
    assert np.array_equal(target.data, value(rank) * 2)
expect_error("gather without list", lambda: dist.gather(pyad.zeros(2), None, dst=0),
             "rank 0: gather_list is required")
ok("all_gather, all_gather_into_tensor, reduce_scatter, gather, scatter")

# send / recv in a ring, and a mismatched recv refused (the message is drained).
if world > 1:
    right, left = (rank + 1) % world, (rank - 1) % world
    work = dist.isend(pyad.Variable(value(rank)), dst=right)
    got = pyad.zeros(2, 3, dtype=pyad.float64)
    assert dist.recv(got, src=left) == left
    work.wait()
    assert np.array_equal(got.data, value(left))
    if rank == 0:
        dist.send(pyad.zeros(5, dtype=pyad.float64), dst=1)
        dist.send(pyad.Variable(value(0)), dst=1)
    elif rank == 1:
        expect_error("recv mismatch", lambda: dist.recv(pyad.zeros(2, 3, dtype=pyad.float64),
                                                        src=0), "rank 0 sent (5,) float64")
        again = pyad.zeros(2, 3, dtype=pyad.float64)
        dist.recv(again, src=0)
        assert np.array_equal(again.data, value(0))
    expect_error("send to self", lambda: dist.send(pyad.zeros(1), dst=rank),
                 "Invalid destination rank", ValueError)
    ok("send and recv")

# Groups: the even ranks.
evens = list(range(0, world, 2))
group = dist.new_group(evens)
if rank in evens:
    v = pyad.Variable(value(rank))
    dist.all_reduce(v, group=group)
    assert np.array_equal(v.data, sum(value(r) for r in evens))
    assert dist.get_rank(group) == evens.index(rank)
    assert dist.get_world_size(group) == len(evens)
    v = pyad.Variable(value(rank))
    dist.broadcast(v, src=evens[-1], group=group)
    assert np.array_equal(v.data, value(evens[-1]))
else:
    assert group is dist.GroupMember.NON_GROUP_MEMBER
    assert dist.get_rank(group) == -1 and dist.get_world_size(group) == -1
    v = pyad.Variable(value(rank))
    assert dist.all_reduce(v, group=group) is None
    assert np.array_equal(v.data, value(rank))
dist.destroy_process_group(group)
dist.barrier()
dist.barrier(async_op=True).wait()
ok("groups and barrier")

# Differentiable collectives. gradcheck runs on every rank at once, so every rank
# perturbs the same entry of its own input together: that checks the true gradient when
# the function is the same on every rank after the collective (the collective first,
# then any nonlinearity). The cross-rank check below covers the general case: a finite
# difference of the global loss sum_r <w_r, f_r(x_0, ..., x_N-1)> for each input of each
# rank alone (the gradient on rank r must be d loss / d x_r).
x = pyad.tensor(value(rank, (3,)) / 10, dtype=pyad.float64, requires_grad=True)
assert gradcheck(lambda t: dist.nn.all_reduce(t).sin(), (x,))
assert gradcheck(lambda t: dist.nn.all_reduce(t, op=ReduceOp.AVG) ** 3, (x,))
assert gradcheck(lambda t: sum(dist.nn.all_gather(t)).exp(), (x,))
assert gradgradcheck(lambda t: dist.nn.all_reduce(t).sin(), (x,))
ok("gradcheck across ranks")


def cross_rank_check(name, fn, n=3, eps=1e-6):
    rng = np.random.default_rng(7 + rank)
    base = rng.normal(size=n)

    def loss_of(values):
        out = fn(pyad.tensor(values))
        w = np.random.default_rng(99 + rank).normal(size=out.shape)
        local = np.array([float((out.data * w).sum())])
        from mpi4py import MPI
        MPI.COMM_WORLD.Allreduce(MPI.IN_PLACE, local)
        return local[0]

    xv = pyad.tensor(base, requires_grad=True)
    out = fn(xv)
    w = np.random.default_rng(99 + rank).normal(size=out.shape)
    (out * pyad.tensor(w)).sum().backward()
    analytic = xv.grad.data
    for owner in range(world):
        for i in range(n):
            plus, minus = base.copy(), base.copy()
            if rank == owner:
                plus[i] += eps
                minus[i] -= eps
            numeric = (loss_of(plus) - loss_of(minus)) / (2 * eps)
            if rank == owner:
                assert abs(numeric - analytic[i]) <= 1e-6 * max(1.0, abs(numeric)), (
                    name, owner, i, numeric, analytic[i])
    ok("cross-rank gradient " + name)


def _tuple_out(fn):
    return lambda t: pyad.stack(list(fn(t)))


cross_rank_check("all_reduce", lambda t: dist.nn.all_reduce(t * (rank + 1)).tanh())
cross_rank_check("all_reduce AVG", lambda t: dist.nn.all_reduce(t.exp(), op=ReduceOp.AVG))
cross_rank_check("all_gather", _tuple_out(lambda t: dist.nn.all_gather(t.sin() * (rank + 2))))
cross_rank_check("broadcast", lambda t: dist.nn.broadcast(t * t, src=world - 1) * (rank + 1))
# Twice differentiable: the backward is made of the same differentiable collectives.
y = pyad.tensor(value(rank, (2,)) / 10, dtype=pyad.float64, requires_grad=True)
# Every rank's loss is sum(S ** 3), S = sum_r y_r: the gradient on each rank is
# 3 N S**2, and the gradient of sum_r sum(that) is 6 N**2 S (both through collectives).
S = every((2,)).sum(0) / 10
z = (dist.nn.all_reduce(y) ** 3).sum()
(g,) = pyad.autograd.grad(z, y, create_graph=True)
(h,) = pyad.autograd.grad(g.sum(), y)
assert np.allclose(g.data, world * 3 * S ** 2, rtol=1e-14, atol=0), g
assert np.allclose(h.data, world * world * 6 * S, rtol=1e-14, atol=0), h
ok("second order")
dist.destroy_process_group()
assert not dist.is_initialized() and dist.group.WORLD is None
print("done", flush=True)
