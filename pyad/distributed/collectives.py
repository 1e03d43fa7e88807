"""Process groups and collectives on Variables, over MPI (``mpi4py``), as ``torch.distributed``.

Every collective works in place on the Variables' arrays, handing them to MPI through
the buffer protocol (no copy for contiguous NumPy data). Before moving data, each
collective exchanges a small header (the op, dtype, shape and root of every rank) so a
call whose Variables disagree across ranks is refused with the same error on every
rank instead of hanging or corrupting memory. ``async_op=True`` returns a `Work` over
MPI's non-blocking calls.

CuPy arrays go through NCCL (``cupy.cuda.nccl``) when the group was created with
``backend="nccl"`` and CuPy has NCCL, through MPI directly when MPI is CUDA-aware
(``PYAD_CUDA_AWARE_MPI=1``), and otherwise through host memory.
"""
import enum
import hashlib
import os
import sys
import time

import numpy

from pyad._engine import Variable
from pyad.autograd.grad_mode import no_grad

__all__ = [
    "Backend", "GroupMember", "ProcessGroup", "ReduceOp", "Work", "all_gather",
    "all_gather_into_tensor", "all_reduce", "barrier", "broadcast", "destroy_process_group",
    "gather", "get_backend", "get_rank", "get_world_size", "init_process_group",
    "irecv", "is_available", "is_initialized", "is_mpi_available", "is_nccl_available",
    "isend", "new_group", "recv", "reduce", "reduce_scatter", "scatter", "send",
]


def _mpi():
    try:
        from mpi4py import MPI
    except ImportError as exc:  # pragma: no cover - exercised only without mpi4py
        raise RuntimeError("pyad.distributed needs mpi4py: pip install 'pyad[mpi]' "
                           "(mpi4py and the mpich wheel)") from exc
    return MPI


def is_available():
    """True: ``pyad.distributed`` is always importable (MPI is loaded on first use)."""
    return True


def is_mpi_available():
    """Whether ``mpi4py`` can be imported."""
    try:
        _mpi()
    except RuntimeError:
        return False
    return True


def is_nccl_available():
    """Whether CuPy with NCCL (``cupy.cuda.nccl``) can be imported."""
    try:
        from cupy.cuda import nccl  # noqa: F401
    except Exception:
        return False
    return True


class Backend(str):
    """Backend names, as ``torch.distributed.Backend``: ``"mpi"`` and ``"nccl"``."""

    MPI = "mpi"
    NCCL = "nccl"

    def __new__(cls, name):
        value = str(name).lower()
        if value not in (cls.MPI, cls.NCCL):
            raise ValueError("init_process_group(): backend %r is not available; "
                             "pyad.distributed runs on MPI ('mpi'), with NCCL for CuPy "
                             "arrays ('nccl')" % (name,))
        return str.__new__(cls, value)


class ReduceOp(enum.Enum):
    """Reduction operations of `all_reduce`, `reduce` and `reduce_scatter`."""

    SUM = 0
    AVG = 1
    PRODUCT = 2
    MIN = 3
    MAX = 4
    BAND = 5
    BOR = 6
    BXOR = 7


def _mpi_op(op):
    MPI = _mpi()
    return {ReduceOp.SUM: MPI.SUM, ReduceOp.AVG: MPI.SUM, ReduceOp.PRODUCT: MPI.PROD,
            ReduceOp.MIN: MPI.MIN, ReduceOp.MAX: MPI.MAX, ReduceOp.BAND: MPI.BAND,
            ReduceOp.BOR: MPI.BOR, ReduceOp.BXOR: MPI.BXOR}[op]


class ProcessGroup:
    """A set of ranks and the MPI communicator (and, for CuPy data, NCCL) joining them.

    ``ranks`` are global ranks in the order of their rank inside the group.
    """

    def __init__(self, comm, ranks, backend):
        self.comm = comm
        self.ranks = list(ranks)
        self.backend = backend
        self._nccl = None

    def rank(self):
        """This process's rank inside the group."""
        return self.comm.Get_rank()

    def size(self):
        """The number of ranks in the group."""
        return self.comm.Get_size()

    def _group_rank(self, global_rank, what, name):
        if not isinstance(global_rank, int) or isinstance(global_rank, bool):
            raise TypeError("%s(): %s must be an int rank, got %s"
                            % (name, what, type(global_rank).__name__))
        if global_rank not in self.ranks:
            raise ValueError("%s(): %s rank %d is not part of the group (ranks %s)"
                             % (name, what, global_rank, self.ranks))
        return self.ranks.index(global_rank)

    def __repr__(self):
        return "ProcessGroup(backend=%r, ranks=%s)" % (str(self.backend), self.ranks)


class GroupMember:
    """``GroupMember.WORLD`` is the default group (None before `init_process_group`);
    ``NON_GROUP_MEMBER`` is what `new_group` returns on ranks outside the new group."""

    WORLD = None
    NON_GROUP_MEMBER = object()


_state = {"world": None, "excepthook": None, "groups": []}


def is_initialized():
    """Whether `init_process_group` has been called (and not destroyed)."""
    return _state["world"] is not None


def _world():
    if _state["world"] is None:
        raise ValueError("Default process group has not been initialized, please make sure "
                         "to call init_process_group.")
    return _state["world"]


def _group(group):
    if group is None:
        return _world()
    if group is GroupMember.NON_GROUP_MEMBER:
        return None
    if not isinstance(group, ProcessGroup):
        raise TypeError("expected a ProcessGroup (from new_group) or None, got %s"
                        % type(group).__name__)
    _world()
    return group


def _abort_hook(original, rank, size):
    def hook(exc_type, exc, tb):
        # An uncaught exception on one rank would leave the others blocked in their next
        # collective forever; MPI_Abort ends every rank of the job (mpi4py's `-m mpi4py`
        # and Horovod do the same). The message names this rank first.
        # The whole report goes out in one write before the abort: two ranks failing
        # at once (a timeout seen by every waiting rank) abort each other, and a report
        # written piece by piece was cut off mid-traceback.
        try:
            import traceback
            sys.stdout.flush()
            sys.stderr.write(
                "pyad.distributed: rank %d (of %d) failed with an uncaught exception; "
                "aborting every rank:\n%spyad.distributed: rank %d failed: %s: %s\n"
                % (rank, size, "".join(traceback.format_exception(exc_type, exc, tb)),
                   rank, exc_type.__name__, exc))
            sys.stderr.flush()
            # The launcher forwards each rank's output asynchronously, and the abort
            # kills its forwarding too: a moment for the report to get through (rarely,
            # on a loaded machine, it was lost whole).
            import time
            time.sleep(0.25)
        except BaseException:
            original(exc_type, exc, tb)
        finally:
            _mpi().COMM_WORLD.Abort(1)
    hook.pyad_abort_hook = True
    return hook


def init_process_group(backend=None, init_method=None, timeout=None, world_size=-1,
                       rank=-1, store=None, group_name="", pg_options=None, device_id=None,
                       *, comm=None):
    """Join the world that ``mpiexec`` started (or the ranks of an ``mpi4py`` communicator).

    ``backend`` is ``"mpi"`` (the default) or ``"nccl"`` (MPI for NumPy data and to set
    up, NCCL for CuPy data); an ``mpi4py`` communicator may be passed as ``backend`` or
    ``comm``. ``world_size`` and ``rank``, when given, must agree with MPI's.
    ``init_method`` and ``store`` are accepted for torch compatibility: ``mpiexec``
    already connects the processes. An uncaught exception on any rank then ends every
    rank (``MPI_Abort``) with a message naming the failed rank, instead of a hang.
    With ``timeout`` (a ``datetime.timedelta`` or seconds), a collective that the other
    ranks do not join in time raises RuntimeError (the collectives then poll MPI's
    non-blocking calls; without it they block in MPI, as fast as MPI goes).

    >>> import pyad.distributed as dist
    >>> dist.init_process_group("mpi")      # doctest: +SKIP
    >>> dist.get_rank(), dist.get_world_size()   # doctest: +SKIP
    (0, 1)
    """
    if _state["world"] is not None:
        raise ValueError("trying to initialize the default process group twice!")
    if comm is None and backend is not None and not isinstance(backend, str):
        comm, backend = backend, None
    # The name first: a wrong backend is refused the same with or without mpi4py.
    backend = Backend("mpi" if backend is None else backend)
    MPI = _mpi()
    if comm is None:
        comm = MPI.COMM_WORLD
    if not isinstance(comm, MPI.Intracomm):
        raise TypeError("init_process_group(): comm must be an mpi4py Intracomm, got %s"
                        % type(comm).__name__)
    for given, actual, what in ((world_size, comm.Get_size(), "world_size"),
                                (rank, comm.Get_rank(), "rank")):
        if given not in (-1, None) and given != actual:
            raise ValueError("init_process_group(): %s=%s does not match MPI's %s of %d "
                             "(mpiexec decides both)" % (what, given, what, actual))
    # A private copy of the communicator: our messages never match the user's own. Its
    # ranks are the "global" ranks of src/dst arguments, as torch's default group's.
    own = comm.Dup()
    _state["world"] = GroupMember.WORLD = ProcessGroup(own, range(own.Get_size()), backend)
    _state["timeout"] = timeout
    if own.Get_size() > 1 and not getattr(sys.excepthook, "pyad_abort_hook", False):
        _state["excepthook"] = sys.excepthook
        sys.excepthook = _abort_hook(sys.excepthook, own.Get_rank(), own.Get_size())


def destroy_process_group(group=None):
    """Free a group made by `new_group`, or (no argument) every group and the default one."""
    if group is None or group is _state["world"]:
        world = _world()
        for g in _state["groups"]:
            _free(g)
        _state["groups"] = []
        _free(world)
        _state["world"] = GroupMember.WORLD = None
        if _state["excepthook"] is not None:
            sys.excepthook = _state["excepthook"]
            _state["excepthook"] = None
        return
    g = _group(group)
    if g is None:
        return
    if g in _state["groups"]:
        _state["groups"].remove(g)
    _free(g)


def _free(group):
    MPI = _mpi()
    if group.comm != MPI.COMM_NULL and not MPI.Is_finalized():
        group.comm.Free()
    group._nccl = None


def new_group(ranks=None, timeout=None, backend=None, pg_options=None,
              use_local_synchronization=False, group_desc=None, device_id=None):
    """A group of some of the world's ranks (every rank of the world must call it).

    Returns `GroupMember.NON_GROUP_MEMBER` on ranks not in ``ranks``; collectives on it
    do nothing there and return None, as torch.
    """
    world = _world()
    size = world.size()
    ranks = list(range(size)) if ranks is None else sorted(int(r) for r in ranks)
    if len(set(ranks)) != len(ranks) or any(r < 0 or r >= size for r in ranks):
        raise ValueError("new_group(): ranks must be distinct ranks of the world "
                         "(0 to %d), got %s" % (size - 1, ranks))
    me = world.rank()
    MPI = _mpi()
    sub = world.comm.Split(0 if me in ranks else MPI.UNDEFINED, ranks.index(me)
                           if me in ranks else 0)
    if me not in ranks:
        return GroupMember.NON_GROUP_MEMBER
    group = ProcessGroup(sub, [world.ranks[r] for r in ranks],
                         Backend(backend) if backend is not None else world.backend)
    _state["groups"].append(group)
    return group


def get_rank(group=None):
    """This process's rank in ``group`` (the world by default); -1 outside the group."""
    g = _group(group)
    return -1 if g is None else g.rank()


def get_world_size(group=None):
    """The number of ranks in ``group`` (the world by default); -1 outside the group."""
    g = _group(group)
    return -1 if g is None else g.size()


def get_backend(group=None):
    """The backend of ``group``: ``"mpi"`` or ``"nccl"``."""
    g = _group(group)
    if g is None:
        raise ValueError("Invalid process group specified")
    return g.backend


def barrier(group=None, async_op=False, device_ids=None):
    """Block until every rank of ``group`` has called it."""
    g = _group(group)
    if g is None:
        return None
    if async_op:
        return Work([g.comm.Ibarrier()])
    if _state.get("timeout") is not None:
        _wait_in_time([g.comm.Ibarrier()], "barrier")
    else:
        g.comm.Barrier()
    return None


# -- work handles ------------------------------------------------------------------------


class Work:
    """The handle of a collective started with ``async_op=True``.

    ``wait()`` blocks until it is done (and copies results into non-contiguous
    destinations); ``is_completed()`` tests without blocking.
    """

    def __init__(self, requests, finish=None, poll=None):
        self._requests = list(requests)
        self._finish = finish
        self._poll = poll
        self._done = False

    def is_completed(self):
        """Whether the operation has finished (runs its completion when it has)."""
        if self._done:
            return True
        if self._poll is not None:
            ready = self._poll()
        else:
            ready = _mpi().Request.Testall(self._requests) if self._requests else True
        if ready:
            self._complete()
        return self._done

    def is_success(self):
        """True once completed (a failed MPI call ends the job instead)."""
        return self.is_completed()

    def wait(self, timeout=None):
        """Block until the operation is done; returns True.

        With ``timeout`` (seconds or a ``datetime.timedelta``) it raises RuntimeError
        if the operation is not done in time.
        """
        if self._done:
            return True
        if timeout is None:
            timeout = _state.get("timeout")
        if timeout is not None:
            limit = timeout.total_seconds() if hasattr(timeout, "total_seconds") else timeout
            deadline = time.monotonic() + limit
            while not self.is_completed():
                if time.monotonic() > deadline:
                    raise RuntimeError("Work.wait(): timed out after %.1f s waiting for the "
                                       "other ranks (a rank did not join the collective)"
                                       % limit)
            return True
        if self._poll is not None:
            while not self._poll():
                pass
        elif self._requests:
            _mpi().Request.Waitall(self._requests)
        self._complete()
        return True

    def _complete(self):
        if not self._done:
            self._done = True
            if self._finish is not None:
                finish, self._finish = self._finish, None
                finish()


# -- helpers -----------------------------------------------------------------------------


def _check_variable(name, what, v):
    if not isinstance(v, Variable):
        raise TypeError("%s(): expected parameter `%s` of type Variable but got %s instead."
                        % (name, what, type(v)))


def _check_list(name, what, lst):
    if not isinstance(lst, (list, tuple)):
        raise TypeError("%s(): expected parameter `%s` to be a list of Variables but got %s"
                        " instead." % (name, what, type(lst)))
    for v in lst:
        _check_variable(name, what, v)


def _is_cupy(array):
    return type(array).__module__.startswith("cupy")


def _signature(v):
    return None if v is None else (str(v.data.dtype), tuple(v.data.shape))


def _describe(sig):
    if sig is None:
        return "nothing"
    return "%s %s" % (sig[1] if sig[1] else "()", sig[0])


def _agree(g, name, header, local_error=None):
    """Check that every rank of ``g`` calls ``name`` with the same ``header`` and that no
    rank found an error in its own arguments; else raise the same exception on every
    rank. ``local_error`` is a message (a RuntimeError) or an exception instance; the
    type raised everywhere is that of the first rank that found one.

    The common case costs one small Allgather: a 64-bit digest of the header and an
    error flag per rank. Only when they disagree do the ranks exchange the full headers
    (pickled) to say what differs.
    """
    MPI = _mpi()
    digest = hashlib.blake2b(repr((name, header)).encode(), digest_size=8).digest()
    mine = numpy.array([int.from_bytes(digest, "little", signed=True),
                        local_error is not None], numpy.int64)
    everyone = numpy.empty((g.size(), 2), numpy.int64)
    if _state.get("timeout") is None:
        g.comm.Allgather([mine, MPI.INT64_T], [everyone, MPI.INT64_T])
    else:
        _wait_in_time([g.comm.Iallgather([mine, MPI.INT64_T], [everyone, MPI.INT64_T])],
                      name)
    if not everyone[:, 1].any() and (everyone[:, 0] == everyone[0, 0]).all():
        return
    if isinstance(local_error, Exception):
        local_error = (type(local_error).__name__, str(local_error))
    elif local_error is not None:
        local_error = ("RuntimeError", local_error)
    everyone = g.comm.allgather((header, local_error))
    errors = [(r, e) for r, (_, e) in enumerate(everyone) if e is not None]
    if errors:
        kind = {"ValueError": ValueError, "TypeError": TypeError}.get(errors[0][1][0],
                                                                    RuntimeError)
        raise kind("%s(): refused on every rank: %s" % (
            name, "; ".join("rank %d: %s" % (g.ranks[r], e[1]) for r, e in errors)))
    headers = [h for h, _ in everyone]
    raise RuntimeError("%s(): the ranks disagree, refused on every rank: %s" % (
        name, "; ".join("rank %d has %s" % (g.ranks[r], _format_header(h))
                        for r, h in enumerate(headers))))


def _format_header(header):
    parts = []
    for key, value in header:
        if key == "var":
            parts.append(_describe(value))
        else:
            parts.append("%s=%s" % (key, getattr(value, "name", value)))
    return ", ".join(parts)


class _Buffer:
    """A contiguous host (or device) array standing for a Variable's data during a
    collective: the data itself when it is contiguous, else a copy written back after."""

    def __init__(self, v, staging=False):
        self.variable = v
        data = v.data
        self.copy_back = False
        if staging and _is_cupy(data):
            self.array = data.get()
            self.copy_back = True
        elif data.flags.c_contiguous and (_is_cupy(data) or data.flags.writeable):
            self.array = data
        else:
            self.array = (data.copy(order="C") if _is_cupy(data)
                          else numpy.ascontiguousarray(data).copy())
            self.copy_back = True

    def finish(self):
        if self.copy_back:
            data = self.variable.data
            if _is_cupy(data) and not _is_cupy(self.array):
                import cupy
                data[...] = cupy.asarray(self.array)
            else:
                data[...] = self.array
        _bump_version(self.variable)


def _bump_version(v):
    """Count a collective's write as an in-place op on ``v`` (as torch does), so a
    backward that saved ``v`` before it raises instead of using the new values. The
    write goes to an empty view, which shares ``v``'s version counter: no data moves."""
    with no_grad():
        v[None][:0].zero_()


def _has_mpi_type(dtype):
    return dtype.char in _mpi()._typedict and dtype.kind != "V"


def _use_nccl(g, array, op=ReduceOp.SUM):
    """Whether this collective on ``array`` goes through NCCL."""
    return (_is_cupy(array) and g.backend == Backend.NCCL and op in _NCCL_OPS
            and str(array.dtype) in _NCCL_TYPES and is_nccl_available())


def _use_host(g, array, op=ReduceOp.SUM):
    """Whether CuPy data must go through host memory (neither NCCL nor CUDA-aware MPI)."""
    return (_is_cupy(array) and not _use_nccl(g, array, op)
            and os.environ.get("PYAD_CUDA_AWARE_MPI", "") != "1")


def _reduce_dtype_error(dtype, op):
    """A ValueError saying what is wrong with reducing ``dtype`` with ``op``, or None."""
    if op == ReduceOp.AVG and dtype.kind not in "fc":
        return ValueError("ReduceOp.AVG needs a floating-point Variable, got %s" % dtype)
    if op in (ReduceOp.BAND, ReduceOp.BOR, ReduceOp.BXOR) and dtype.kind not in "biu":
        return ValueError("ReduceOp.%s needs an integer or bool Variable, got %s"
                          % (op.name, dtype))
    if op in (ReduceOp.MIN, ReduceOp.MAX) and dtype.kind == "c":
        return ValueError("ReduceOp.%s is not defined for complex Variables" % op.name)
    return None


def _check_op(name, op):
    if not isinstance(op, ReduceOp):
        raise TypeError("%s(): op must be a ReduceOp, got %r" % (name, op))


def _not_member():
    return None


def _run(start, finish, async_op, name):
    """Start a non-blocking MPI call (``start(True)`` -> requests) or run the blocking
    one; with a timeout set, a blocking call is a non-blocking one waited for in time."""
    if async_op:
        return Work(start(True), finish)
    if _state.get("timeout") is not None:
        _wait_in_time(start(True), name)
    else:
        start(False)
    finish()
    return None


def _wait_in_time(requests, name):
    """Wait for ``requests``, raising RuntimeError after the process group's timeout."""
    MPI = _mpi()
    timeout = _state.get("timeout")
    if timeout is None:
        MPI.Request.Waitall(requests)
        return
    limit = timeout.total_seconds() if hasattr(timeout, "total_seconds") else float(timeout)
    deadline = time.monotonic() + limit
    while not MPI.Request.Testall(requests):
        if time.monotonic() > deadline:
            raise RuntimeError("%s(): timed out after %.1f s waiting for the other ranks "
                               "(a rank did not join the collective)" % (name, limit))


# -- NCCL (CuPy arrays on GPUs) ----------------------------------------------------------


_NCCL_OPS = {ReduceOp.SUM: "NCCL_SUM", ReduceOp.AVG: "NCCL_SUM", ReduceOp.PRODUCT: "NCCL_PROD",
             ReduceOp.MIN: "NCCL_MIN", ReduceOp.MAX: "NCCL_MAX"}


def _nccl_comm(g):
    if g._nccl is None:
        from cupy.cuda import nccl
        uid = nccl.get_unique_id() if g.rank() == 0 else None
        uid = g.comm.bcast(uid, root=0)
        g._nccl = nccl.NcclCommunicator(g.size(), uid, g.rank())
    return g._nccl


_NCCL_TYPES = {"float16": "NCCL_FLOAT16", "float32": "NCCL_FLOAT32",
               "float64": "NCCL_FLOAT64", "int32": "NCCL_INT32", "int64": "NCCL_INT64",
               "uint8": "NCCL_UINT8", "int8": "NCCL_INT8"}


def _nccl_call(g, kind, send, recv, op=ReduceOp.SUM, root=0, async_op=False, finish=None):
    """An NCCL all-reduce or broadcast on the current CuPy stream; async_op gives a Work
    polling an event recorded after it."""
    import cupy
    from cupy.cuda import nccl
    comm = _nccl_comm(g)
    stream = cupy.cuda.get_current_stream().ptr
    dtype = getattr(nccl, _NCCL_TYPES[str(send.dtype)])
    if kind == "allreduce":
        comm.allReduce(send.data.ptr, recv.data.ptr, send.size, dtype,
                       getattr(nccl, _NCCL_OPS[op]), stream)
    elif kind == "broadcast":
        comm.bcast(recv.data.ptr, recv.size, dtype, root, stream)
    event = cupy.cuda.Event()
    event.record()
    if async_op:
        return Work([], finish, poll=event.query)
    event.synchronize()
    if finish is not None:
        finish()
    return None


# -- collectives -------------------------------------------------------------------------


def all_reduce(tensor, op=ReduceOp.SUM, group=None, async_op=False):
    """Reduce ``tensor`` across every rank of ``group``, in place, on every rank.

    ``op`` is a `ReduceOp` (``AVG`` divides the sum by the group's size). Returns None,
    or a `Work` with ``async_op=True``.

    >>> import pyad, pyad.distributed as dist
    >>> v = pyad.tensor([1.0, 2.0])
    >>> dist.all_reduce(v)          # doctest: +SKIP
    """
    _check_variable("all_reduce", "tensor", tensor)
    _check_op("all_reduce", op)
    g = _group(group)
    if g is None:
        return _not_member()
    _agree(g, "all_reduce", (("var", _signature(tensor)), ("op", op)),
           _reduce_dtype_error(tensor.data.dtype, op))
    return _all_reduce_array(g, tensor, op, async_op)


def _all_reduce_array(g, tensor, op, async_op):
    MPI = _mpi()
    buf = _Buffer(tensor, _use_host(g, tensor.data, op))
    size = g.size()
    if _use_nccl(g, buf.array, op):
        def finish_nccl():
            if op == ReduceOp.AVG:
                buf.array /= size
            buf.finish()
        return _nccl_call(g, "allreduce", buf.array, buf.array, op, async_op=async_op,
                          finish=finish_nccl)
    # A dtype MPI has no type for (bfloat16) is reduced in float32 and rounded back.
    array = buf.array if _has_mpi_type(buf.array.dtype) else buf.array.astype(numpy.float32)

    def finish():
        if op == ReduceOp.AVG:
            array[...] /= size
        if array is not buf.array:
            buf.array[...] = array
        buf.finish()

    def start(nonblocking):
        if nonblocking:
            return [g.comm.Iallreduce(MPI.IN_PLACE, array, _mpi_op(op))]
        g.comm.Allreduce(MPI.IN_PLACE, array, _mpi_op(op))
        return []

    return _run(start, finish, async_op, "all_reduce")


def broadcast(tensor, src, group=None, async_op=False):
    """Copy ``tensor`` of rank ``src`` (a global rank) into ``tensor`` on every rank."""
    _check_variable("broadcast", "tensor", tensor)
    g = _group(group)
    if g is None:
        return _not_member()
    root = g._group_rank(src, "src", "broadcast")
    _agree(g, "broadcast", (("var", _signature(tensor)), ("src", src)))
    buf = _Buffer(tensor, _use_host(g, tensor.data))
    if _use_nccl(g, buf.array):
        return _nccl_call(g, "broadcast", buf.array, buf.array, root=root,
                          async_op=async_op, finish=buf.finish)
    array = buf.array

    def start(nonblocking):
        spec = _raw(array)
        if nonblocking:
            return [g.comm.Ibcast(spec, root=root)]
        g.comm.Bcast(spec, root=root)
        return []

    return _run(start, buf.finish, async_op, "broadcast")


def reduce(tensor, dst, op=ReduceOp.SUM, group=None, async_op=False):
    """Reduce ``tensor`` of every rank into ``tensor`` on rank ``dst`` (in place there;
    the other ranks' Variables are unchanged)."""
    _check_variable("reduce", "tensor", tensor)
    _check_op("reduce", op)
    g = _group(group)
    if g is None:
        return _not_member()
    root = g._group_rank(dst, "dst", "reduce")
    _agree(g, "reduce", (("var", _signature(tensor)), ("op", op), ("dst", dst)),
           _reduce_dtype_error(tensor.data.dtype, op))
    MPI = _mpi()
    buf = _Buffer(tensor, staging=True)     # CuPy data is reduced in host memory
    mine = g.rank() == root
    size = g.size()
    array = buf.array
    if not _has_mpi_type(array.dtype):
        array = array.astype(numpy.float32)

    def finish():
        if mine:
            if op == ReduceOp.AVG:
                array[...] /= size
            if array is not buf.array:
                buf.array[...] = array
            buf.finish()

    def start(nonblocking):
        send = MPI.IN_PLACE if mine else array
        recv = array if mine else None
        if nonblocking:
            return [g.comm.Ireduce(send, recv, _mpi_op(op), root=root)]
        g.comm.Reduce(send, recv, _mpi_op(op), root=root)
        return []

    return _run(start, finish, async_op, "reduce")


def _gather_checks(out_list, tensor, size):
    if len(out_list) != size:
        return "expected %d Variables in the list (one per rank), got %d" % (
            size, len(out_list))
    for i, o in enumerate(out_list):
        if _signature(o) != _signature(tensor):
            return ("list entry %d is %s, the input is %s"
                    % (i, _describe(_signature(o)), _describe(_signature(tensor))))
    return None


def all_gather(tensor_list, tensor, group=None, async_op=False):
    """Gather ``tensor`` from every rank into ``tensor_list`` (one Variable per rank, in
    rank order, each of ``tensor``'s shape and dtype) on every rank."""
    _check_list("all_gather", "tensor_list", tensor_list)
    _check_variable("all_gather", "tensor", tensor)
    g = _group(group)
    if g is None:
        return _not_member()
    size = g.size()
    _agree(g, "all_gather", (("var", _signature(tensor)),),
           _gather_checks(tensor_list, tensor, size))
    src = numpy.ascontiguousarray(_host(tensor.data))
    out = numpy.empty((size,) + src.shape, src.dtype)

    def finish():
        for i, o in enumerate(tensor_list):
            _write(o, out[i])

    def start(nonblocking):
        send, recv = _raw(src), _raw(out)
        if nonblocking:
            return [g.comm.Iallgather(send, recv)]
        g.comm.Allgather(send, recv)
        return []

    return _run(start, finish, async_op, "all_gather")


def all_gather_into_tensor(output_tensor, input_tensor, group=None, async_op=False):
    """Gather ``input_tensor`` of every rank into ``output_tensor``, concatenated along
    the first dimension (or stacked: ``output_tensor`` of shape ``(world, *input)``)."""
    _check_variable("all_gather_into_tensor", "output_tensor", output_tensor)
    _check_variable("all_gather_into_tensor", "input_tensor", input_tensor)
    g = _group(group)
    if g is None:
        return _not_member()
    size = g.size()
    error = None
    if output_tensor.data.dtype != input_tensor.data.dtype:
        error = "output is %s, input is %s" % (output_tensor.data.dtype,
                                               input_tensor.data.dtype)
    elif output_tensor.data.size != size * input_tensor.data.size:
        error = ("output_tensor must have %d times the elements of input_tensor (%d), "
                 "has %d" % (size, input_tensor.data.size, output_tensor.data.size))
    _agree(g, "all_gather_into_tensor", (("var", _signature(input_tensor)),), error)
    send = numpy.ascontiguousarray(_host(input_tensor.data))
    out_buf = _Buffer(output_tensor, True)

    def start(nonblocking):
        if nonblocking:
            return [g.comm.Iallgather(_raw(send), _raw(out_buf.array))]
        g.comm.Allgather(_raw(send), _raw(out_buf.array))
        return []

    return _run(start, out_buf.finish, async_op, "all_gather_into_tensor")


def reduce_scatter(output, input_list, op=ReduceOp.SUM, group=None, async_op=False):
    """Reduce ``input_list[i]`` of every rank into ``output`` on rank ``i``."""
    _check_variable("reduce_scatter", "output", output)
    _check_list("reduce_scatter", "input_list", input_list)
    _check_op("reduce_scatter", op)
    g = _group(group)
    if g is None:
        return _not_member()
    size = g.size()
    _agree(g, "reduce_scatter", (("var", _signature(output)), ("op", op)),
           _reduce_dtype_error(output.data.dtype, op)
           or _gather_checks(input_list, output, size))
    send = numpy.stack([_host(v.data) for v in input_list])
    if not _has_mpi_type(send.dtype):
        send = send.astype(numpy.float32)
    recv = numpy.empty(send.shape[1:], send.dtype)

    def finish():
        if op == ReduceOp.AVG:
            recv[...] /= size
        _write(output, recv)

    def start(nonblocking):
        if nonblocking:
            return [g.comm.Ireduce_scatter_block(send, recv, _mpi_op(op))]
        g.comm.Reduce_scatter_block(send, recv, _mpi_op(op))
        return []

    return _run(start, finish, async_op, "reduce_scatter")


def _rooted(what, tensor, tensors, root, root_name, list_name, role, group):
    """What gather and scatter share: their checks (``tensors``, one Variable like
    ``tensor`` per rank, is passed by the root rank only), agreed by every rank.
    Returns the group (None off the group), the root's rank in it and whether this rank
    is the root."""
    _check_variable(what, "tensor", tensor)
    g = _group(group)
    if g is None:
        return None, None, False
    root_rank = g._group_rank(root, root_name, what)
    mine = g.rank() == root_rank
    error = None
    if mine:
        if tensors is None:
            error = "%s is required on the %s rank" % (list_name, role)
        else:
            _check_list(what, list_name, tensors)
            error = _gather_checks(tensors, tensor, g.size())
    elif tensors:
        error = "%s must be empty or None on ranks other than %s=%d" % (list_name, root_name,
                                                                        root)
    _agree(g, what, (("var", _signature(tensor)), (root_name, root)), error)
    return g, root_rank, mine


def _rooted_start(blocking, nonblocking_call, send, recv, root):
    """The ``start`` of a rooted collective (Gather/Igather, Scatter/Iscatter)."""
    def start(nonblocking):
        if nonblocking:
            return [nonblocking_call(send, recv, root=root)]
        blocking(send, recv, root=root)
        return []
    return start


def gather(tensor, gather_list=None, dst=0, group=None, async_op=False):
    """Gather ``tensor`` of every rank into ``gather_list`` on rank ``dst``."""
    g, root, mine = _rooted("gather", tensor, gather_list, dst, "dst", "gather_list",
                            "destination", group)
    if g is None:
        return _not_member()
    src = numpy.ascontiguousarray(_host(tensor.data))
    out = numpy.empty((g.size(),) + src.shape, src.dtype) if mine else None

    def finish():
        if mine:
            for i, o in enumerate(gather_list):
                _write(o, out[i])

    start = _rooted_start(g.comm.Gather, g.comm.Igather, _raw(src),
                          _raw(out) if mine else None, root)
    return _run(start, finish, async_op, "gather")


def scatter(tensor, scatter_list=None, src=0, group=None, async_op=False):
    """Scatter ``scatter_list`` of rank ``src`` (one Variable per rank) into ``tensor``."""
    g, root, mine = _rooted("scatter", tensor, scatter_list, src, "src", "scatter_list",
                            "source", group)
    if g is None:
        return _not_member()
    send = numpy.stack([_host(v.data) for v in scatter_list]) if mine else None
    recv = numpy.empty(tensor.data.shape, tensor.data.dtype)

    def finish():
        _write(tensor, recv)

    start = _rooted_start(g.comm.Scatter, g.comm.Iscatter, _raw(send) if mine else None,
                          _raw(recv), root)
    return _run(start, finish, async_op, "scatter")


_TAG_HEADER, _TAG_DATA = 7100, 7101


def isend(tensor, dst, group=None, tag=0):
    """Send ``tensor`` to rank ``dst`` without blocking; returns a `Work`."""
    return _send("isend", tensor, dst, group, tag, True)


def send(tensor, dst, group=None, tag=0):
    """Send ``tensor`` to rank ``dst`` (the receiver must `recv` the same shape/dtype)."""
    _send("send", tensor, dst, group, tag, False)


def _send(name, tensor, dst, group, tag, nonblocking):
    _check_variable(name, "tensor", tensor)
    g = _group(group)
    if g is None:
        return _not_member()
    peer = g._group_rank(dst, "dst", name)
    if peer == g.rank():
        raise ValueError("%s(): Invalid destination rank: destination rank should not be the "
                         "same as the rank of the current process." % name)
    data = numpy.ascontiguousarray(_host(tensor.data))
    # The header goes first, so the receiver can refuse a mismatch (and still drain the
    # data, leaving no message behind).
    header = (_signature(tensor), data.nbytes)
    reqs = [g.comm.isend(header, dest=peer, tag=_TAG_HEADER + 2 * tag),
            g.comm.Isend(_raw(data), dest=peer, tag=_TAG_DATA + 2 * tag)]
    if nonblocking:
        return Work(reqs, lambda: data)
    _mpi().Request.Waitall(reqs)
    return None


def recv(tensor, src=None, group=None, tag=0):
    """Receive into ``tensor`` from rank ``src`` (any rank when None); returns the sender's
    rank. A sender's Variable of another shape or dtype is refused with RuntimeError."""
    return _recv("recv", tensor, src, group, tag)


def irecv(tensor, src=None, group=None, tag=0):
    """Receive into ``tensor`` now (it waits for the sender's header and data) and return
    a completed `Work`: the data's size is only known from the sender's header."""
    _recv("irecv", tensor, src, group, tag)
    return Work([])


def _recv(name, tensor, src, group, tag):
    _check_variable(name, "tensor", tensor)
    g = _group(group)
    if g is None:
        return -1
    MPI = _mpi()
    peer = MPI.ANY_SOURCE if src is None else g._group_rank(src, "src", name)
    status = MPI.Status()
    header = g.comm.recv(source=peer, tag=_TAG_HEADER + 2 * tag, status=status)
    sender = status.Get_source()
    signature, nbytes = header
    if signature != _signature(tensor):
        scratch = numpy.empty(nbytes, numpy.uint8)
        g.comm.Recv([scratch, MPI.BYTE], source=sender, tag=_TAG_DATA + 2 * tag)
        raise RuntimeError("%s(): rank %d sent %s, this rank (%d) expects %s"
                           % (name, g.ranks[sender], _describe(signature),
                              g.ranks[g.rank()], _describe(_signature(tensor))))
    out = numpy.empty(tensor.data.shape, tensor.data.dtype)
    g.comm.Recv(_raw(out), source=sender, tag=_TAG_DATA + 2 * tag)
    _write(tensor, out)
    return g.ranks[sender]


def _host(array):
    return array.get() if _is_cupy(array) else array


def _raw(array):
    """A contiguous array as an mpi4py buffer (bytes when MPI has no type for it)."""
    if array is None:
        return None
    if _has_mpi_type(array.dtype):
        return array
    return [array.view(numpy.uint8), _mpi().BYTE]


def _write(v, array):
    data = v.data
    if _is_cupy(data):
        import cupy
        data[...] = cupy.asarray(array)
    else:
        data[...] = array
    _bump_version(v)
