"""DistributedDataParallel: gradients averaged across ranks while backward still runs.

The design is torch's (and Horovod's): the parameters are split into buckets of about
``bucket_cap_mb`` megabytes in reverse registration order (roughly the order backward
produces their gradients). A post-accumulate-grad hook on every parameter copies its
fresh gradient into its bucket; when a bucket is full its all-reduce starts at once,
non-blocking (``MPI_Iallreduce``, or NCCL for CuPy data), and the backward pass goes on
computing the gradients of earlier layers meanwhile. The hook of the last gradient waits
for every bucket and writes the averaged gradients back into ``.grad``, so when
``backward()`` returns every rank holds the same, averaged gradients.
"""
import collections
import contextlib
import weakref

import numpy

from pyad._engine import Variable
from pyad.autograd.grad_mode import is_grad_enabled, no_grad
from pyad.distributed import collectives as _c
from pyad.nn.modules import Module

__all__ = ["DistributedDataParallel"]

_FIRST_BUCKET_BYTES = 1024 * 1024


class _Bucket:
    """A flat array holding the gradients of some parameters of one dtype and device."""

    def __init__(self, indices, params):
        self.indices = indices
        self.offsets = []
        total = 0
        for i in indices:
            self.offsets.append(total)
            total += params[i].data.size
        like = params[indices[0]].data
        xp = numpy if not _c._is_cupy(like) else __import__("cupy")
        self.flat = xp.zeros(total, like.dtype)
        self.pending = len(indices)
        self.work = None


def _variables_in(obj, found):
    if isinstance(obj, Variable):
        found.append(obj)
    elif isinstance(obj, (list, tuple)):
        for item in obj:
            _variables_in(item, found)
    elif isinstance(obj, dict):
        for item in obj.values():
            _variables_in(item, found)
    return found


def _reachable_leaves(outputs):
    """ids of the leaf Variables whose AccumulateGrad the outputs' graph reaches."""
    leaves, seen = set(), set()
    stack = [v.grad_fn for v in outputs if v.grad_fn is not None]
    for v in outputs:
        if v.grad_fn is None and v.requires_grad:
            leaves.add(id(v))
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        variable = getattr(node, "variable", None)
        if variable is not None and type(node).__name__ == "AccumulateGrad":
            leaves.add(id(variable))
        for next_node, _ in node.next_functions:
            if next_node is not None:
                stack.append(next_node)
    return leaves


class DistributedDataParallel(Module):
    """Data parallelism across the ranks of a process group, as
    ``torch.nn.parallel.DistributedDataParallel``.

    Wrapping broadcasts ``module``'s parameters and buffers from rank 0 (after checking
    that every rank has the same names, shapes and dtypes: a mismatch is a RuntimeError
    on every rank). Each forward broadcasts the buffers again (``broadcast_buffers``);
    each backward averages the gradients over the ranks, bucket by bucket, overlapped
    with the rest of the backward pass. ``find_unused_parameters=True`` allows a forward
    that does not use every parameter (the graph is searched after each forward).
    ``device_ids``, ``output_device``, ``dim``, ``check_reduction``,
    ``gradient_as_bucket_view`` and ``static_graph`` are accepted for torch
    compatibility and change nothing: a rank drives one device, its data's.

    ``state_dict()`` has torch's ``module.`` prefix; ``load_state_dict`` also accepts the
    keys of the bare module (``ddp.module.state_dict()``).

    >>> import pyad, pyad.distributed as dist
    >>> from pyad.nn.parallel import DistributedDataParallel as DDP
    >>> dist.init_process_group("mpi")                     # doctest: +SKIP
    >>> model = DDP(pyad.nn.Linear(4, 2))                  # doctest: +SKIP
    >>> model(pyad.randn(8, 4)).sum().backward()           # doctest: +SKIP
    """

    def __init__(self, module, device_ids=None, output_device=None, dim=0,
                 broadcast_buffers=True, init_sync=True, process_group=None,
                 bucket_cap_mb=None, find_unused_parameters=False, check_reduction=False,
                 gradient_as_bucket_view=False, static_graph=False):
        super().__init__()
        if not isinstance(module, Module):
            raise TypeError("DistributedDataParallel(): module must be a pyad.nn.Module, "
                            "got %s" % type(module).__name__)
        group = _c._group(process_group)
        if group is None:
            raise ValueError("DistributedDataParallel(): this rank is not part of the "
                             "process group")
        self.module = module
        self.process_group = process_group
        self.broadcast_buffers = broadcast_buffers
        self.find_unused_parameters = find_unused_parameters
        self.require_backward_grad_sync = True
        self.bucket_bytes_cap = int((25 if bucket_cap_mb is None else bucket_cap_mb)
                                    * 1024 * 1024)
        object.__setattr__(self, "_group_obj", group)
        named = []
        seen = set()
        for name, p in module.named_parameters():
            if p.requires_grad and id(p) not in seen:
                seen.add(id(p))
                named.append((name, p))
        object.__setattr__(self, "_params", [p for _, p in named])
        self._check_same_model(named, list(module.named_buffers()))
        if init_sync:
            with no_grad():
                for p in self._params:
                    self._broadcast_array(p.data)
                self._sync_buffers()
        object.__setattr__(self, "_buckets", self._make_buckets())
        object.__setattr__(self, "_slot", {})
        for b, bucket in enumerate(self._buckets):
            for k, i in enumerate(bucket.indices):
                self._slot[i] = (b, k)
        object.__setattr__(self, "_armed", False)
        object.__setattr__(self, "_started", False)
        object.__setattr__(self, "_unused", [])
        object.__setattr__(self, "_next_bucket", 0)
        object.__setattr__(self, "_used", numpy.zeros(len(self._params), numpy.int32))
        object.__setattr__(self, "_hooks", [
            p.register_post_accumulate_grad_hook(self._make_hook(i))
            for i, p in enumerate(self._params)])

    # -- set-up --------------------------------------------------------------------------

    def _check_same_model(self, named_params, named_buffers):
        def describe(name, v):
            # The device type only: each rank may drive its own GPU.
            return (name, tuple(v.shape), str(v.data.dtype), str(v.device).split(":")[0])
        mine = ([describe(n, p) for n, p in named_params],
                [describe(n, b) for n, b in named_buffers])
        everyone = self._group_obj.comm.allgather(mine)
        ranks = self._group_obj.ranks
        problems = []
        for r, (params, buffers) in enumerate(everyone[1:], 1):
            for what, ours, theirs in (("parameters", everyone[0][0], params),
                                       ("buffers", everyone[0][1], buffers)):
                if len(ours) != len(theirs):
                    problems.append("rank %d has %d %s, while rank %d has %d"
                                    % (ranks[0], len(ours), what, ranks[r], len(theirs)))
                    continue
                for a, b in zip(ours, theirs):
                    if a != b:
                        problems.append("%s %s is %s %s (%s) on rank %d but %s %s %s (%s) "
                                        "on rank %d" % (what[:-1], a[0], a[1], a[2], a[3],
                                                        ranks[0], b[0], b[1], b[2], b[3],
                                                        ranks[r]))
        if problems:
            raise RuntimeError("DistributedDataParallel(): DDP expects the same model on "
                               "every rank: " + "; ".join(problems[:8])
                               + ("; ..." if len(problems) > 8 else ""))

    def _broadcast_array(self, array):
        g = self._group_obj
        root = 0
        if _c._use_nccl(g, array):
            _c._nccl_call(g, "broadcast", array, array, root=root)
            return
        host = _c._host(array)
        contiguous = numpy.ascontiguousarray(host)
        g.comm.Bcast(_c._raw(contiguous), root=root)
        if contiguous is not array:
            array[...] = contiguous if not _c._is_cupy(array) else __import__(
                "cupy").asarray(contiguous)

    def _sync_buffers(self):
        for b in self.module.buffers():
            self._broadcast_array(b.data)

    def _make_buckets(self):
        buckets, current, size, key = [], [], 0, None
        cap = min(_FIRST_BUCKET_BYTES, self.bucket_bytes_cap)
        for i in reversed(range(len(self._params))):
            p = self._params[i]
            this_key = (p.data.dtype, str(p.device))
            if current and (this_key != key or size + p.data.nbytes > cap):
                buckets.append(_Bucket(current, self._params))
                current, size = [], 0
                cap = self.bucket_bytes_cap
            current.append(i)
            size += p.data.nbytes
            key = this_key
        if current:
            buckets.append(_Bucket(current, self._params))
        return buckets

    # -- forward -------------------------------------------------------------------------

    def forward(self, *inputs, **kwargs):
        # A forward whose backward never ran is fine (as torch); one whose backward
        # stopped halfway (a parameter without gradient) would pair this step's buckets
        # with the last one's on other ranks.
        if self._armed and self._started:
            raise RuntimeError(
                "Expected to have finished reduction in the prior iteration before starting "
                "a new one. This error indicates that your module has parameters that were "
                "not used in producing loss. You can enable unused parameter detection by "
                "passing the keyword argument `find_unused_parameters=True` to "
                "`pyad.nn.parallel.DistributedDataParallel`, and by making sure all "
                "`forward` function outputs participate in calculating loss.")
        if self.broadcast_buffers and self.training and is_grad_enabled():
            with no_grad():
                self._sync_buffers()
        output = self.module(*inputs, **kwargs)
        if is_grad_enabled() and self.require_backward_grad_sync and self._params:
            self._prepare_for_backward(output)
        return output

    def _prepare_for_backward(self, output):
        for bucket in self._buckets:
            bucket.pending = len(bucket.indices)
            bucket.work = None
        object.__setattr__(self, "_next_bucket", 0)
        object.__setattr__(self, "_armed", True)
        object.__setattr__(self, "_started", False)
        self._used[:] = 1
        unused = []
        if self.find_unused_parameters:
            reached = _reachable_leaves(_variables_in(output, []))
            unused = [i for i, p in enumerate(self._params) if id(p) not in reached]
            self._used[unused] = 0
        # Counted ready (with zeros) when the backward starts, not now: a forward
        # without backward must leave no collective behind.
        object.__setattr__(self, "_unused", unused)

    # -- backward: the hooks -------------------------------------------------------------

    def _make_hook(self, index):
        # The hook lives on the parameter: a weak reference keeps it from holding the
        # wrapper (and through it the module) alive.
        ref = weakref.ref(self)

        def hook(param):
            ddp = ref()
            if ddp is not None and ddp._armed:
                if not ddp._started:
                    object.__setattr__(ddp, "_started", True)
                    for i in ddp._unused:
                        ddp._mark_ready(i, None)
                ddp._mark_ready(index, param.grad)
        return hook

    def _mark_ready(self, index, grad):
        b, k = self._slot[index]
        bucket = self._buckets[b]
        start = bucket.offsets[k]
        if bucket.pending == 0:
            raise RuntimeError(
                "Expected to mark a variable ready only once. This error is caused by a "
                "parameter that received a gradient twice in one backward pass (a second "
                "backward through the same graph, or reentrant backward) while "
                "DistributedDataParallel was averaging them.")
        view = bucket.flat[start:start + self._params[index].data.size]
        if grad is None:
            view[...] = 0
        else:
            view[...] = grad.data.reshape(-1)
        bucket.pending -= 1
        # Buckets start in index order on every rank, so the collectives match.
        while (self._next_bucket < len(self._buckets)
               and self._buckets[self._next_bucket].pending == 0):
            ready = self._buckets[self._next_bucket]
            ready.work = _c._all_reduce_array(self._group_obj, Variable(ready.flat),
                                              _c.ReduceOp.SUM, True)
            object.__setattr__(self, "_next_bucket", self._next_bucket + 1)
        # MPI moves non-blocking messages only inside MPI calls: poke the ones in flight.
        for earlier in self._buckets[:self._next_bucket]:
            earlier.work.is_completed()
        if self._next_bucket == len(self._buckets):
            self._finalize()

    def _finalize(self):
        object.__setattr__(self, "_armed", False)
        size = self._group_obj.size()
        if self.find_unused_parameters:
            # A parameter no rank used keeps its gradient (None), as torch.
            self._group_obj.comm.Allreduce(_c._mpi().IN_PLACE, self._used,
                                           _c._mpi_op(_c.ReduceOp.MAX))
        for bucket in self._buckets:
            bucket.work.wait()
            bucket.flat /= size
            for k, i in enumerate(bucket.indices):
                if not self._used[i]:
                    continue
                p = self._params[i]
                start = bucket.offsets[k]
                averaged = bucket.flat[start:start + p.data.size].reshape(p.data.shape)
                if p.grad is None:
                    p.grad = Variable(averaged.copy())
                else:
                    p.grad.data[...] = averaged

    # -- the rest of torch's surface -----------------------------------------------------

    @contextlib.contextmanager
    def no_sync(self):
        """Within it, backward accumulates gradients locally without averaging them; the
        first backward after it averages everything accumulated so far."""
        previous = self.require_backward_grad_sync
        self.require_backward_grad_sync = False
        try:
            yield
        finally:
            self.require_backward_grad_sync = previous

    def load_state_dict(self, state_dict, strict=True, assign=False):
        """As `Module.load_state_dict`; keys without the ``module.`` prefix (saved from
        the bare module) are accepted too."""
        keys = list(state_dict)
        if keys and not any(k.startswith("module.") for k in keys):
            state_dict = collections.OrderedDict(("module." + k, v)
                                                 for k, v in state_dict.items())
        return super().load_state_dict(state_dict, strict=strict, assign=assign)

    def extra_repr(self):
        return ""
