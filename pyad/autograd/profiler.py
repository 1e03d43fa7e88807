"""``pyad.autograd.profiler``: torch.autograd.profiler over pyad's engine.

``profile`` records every forward op (named as the op: ``"mul"``, torch says
``"aten::mul"``), every backward node (named as the node class: ``"MulBackward"``, torch
says ``"MulBackward0"``), every custom Function's forward (the Function class's name) and
every ``record_function`` range, from every thread, with ops called inside ops (and
inside backward nodes) nested as children. Recording appends one small list per event;
the FunctionEvent objects are built when the results are first read.
"""
import bisect
import contextlib
import functools
import json
import os
import sqlite3
import sys
import threading
import time

from pyad import _engine, _factories
from pyad.autograd.profiler_util import (  # noqa: F401  (re-exported)
    EventList, FunctionEvent, FunctionEventAvg, Interval, Kernel,
)

__all__ = ["profile", "record_function", "emit_nvtx", "load_nvprof", "FunctionEvent",
           "FunctionEventAvg", "EventList", "Interval", "Kernel"]

_now = time.perf_counter_ns
_tid = threading.get_native_id
_lock = threading.Lock()
_active = None                  # the running profile / emit_nvtx recorder (process-wide)

_OP, _NODE, _USER = 0, 1, 2
# A record: [name, tid, t0_ns, t1_ns, seq, kind, shapes, memory, stack, cuda_events]
# Recorders implement the engine's protocol (pyad._engine._set_profiler) plus
# user_begin(name) -> token and user_end(token) for record_function.
_HERE = os.path.abspath(__file__)


# --------------------------------------------------------------------------------
# Recorders (the callbacks the engine calls; see pyad._engine._set_profiler)
# --------------------------------------------------------------------------------

def _shape_of(a):
    shape = getattr(a, "shape", None)
    if isinstance(shape, tuple):
        return list(shape)
    if isinstance(a, (list, tuple)) and a and all(hasattr(x, "shape") for x in a):
        return [list(x.shape) for x in a]
    return []


def _output_arrays(result):
    items = result if isinstance(result, (tuple, list)) else (result,)
    out = []
    for r in items:
        data = getattr(r, "data", None) if isinstance(r, _engine.Variable) else r
        if data is not None and hasattr(data, "nbytes") and hasattr(data, "shape"):
            out.append(data)
    return out


def _user_stack():
    frame = sys._getframe(2)
    stack = []
    while frame is not None:
        code = frame.f_code
        if os.path.abspath(code.co_filename) != _HERE and "contextlib" not in code.co_filename:
            stack.append("%s(%d): %s" % (code.co_filename, frame.f_lineno, code.co_name))
        frame = frame.f_back
    return stack


class _FullRecorder:
    """Shapes, memory, stacks and CUDA events, each when asked. (Without any of them
    the engine's own ``_EventLog`` records, in C, the same lists.)"""

    def __init__(self, record_shapes, profile_memory, with_stack, cuda):
        self.records = []
        self._append = self.records.append
        self.record_shapes = record_shapes
        self.profile_memory = profile_memory
        self.with_stack = with_stack
        self.cuda = cuda                # the cupy module, or None

    def _begin(self, name, kind, seq, args):
        rec = [name, _tid(), 0, 0, seq, kind,
               [_shape_of(a) for a in args] if self.record_shapes and args is not None else [],
               None, _user_stack() if self.with_stack else None, None]
        if self.cuda is not None:
            start = self.cuda.cuda.Event()
            start.record()
            rec[9] = [start, None]
        self._append(rec)
        rec[2] = _now()
        return rec

    def _end(self, rec, outputs):
        rec[3] = _now()
        if self.cuda is not None:
            stop = self.cuda.cuda.Event()
            stop.record()
            rec[9][1] = stop
        if self.profile_memory and outputs is not None:
            arrays = _output_arrays(outputs)
            rec[7] = [(id(a), int(a.nbytes)) for a in arrays]

    def op_begin(self, name, args, next_seq):
        return self._begin(name, _OP, -1, args)

    def op_end(self, rec, result, seq):
        rec[4] = seq
        self._end(rec, result)

    def node_begin(self, name, seq):
        return self._begin(name, _NODE, seq, None)

    def node_end(self, rec, grads):
        self._end(rec, grads)

    def user_begin(self, name):
        return self._begin(name, _USER, -1, ())

    def user_end(self, rec):
        self._end(rec, None)


def _run_op(name, fn, args):
    """Run ``fn(*args)`` recorded as one forward op named ``name``: for ops written in
    Python from other ops (``nn.functional.linear``), so the profile shows them as torch
    does, with the ops they call nested inside. Callers check ``_active`` first."""
    recorder = _active
    if recorder is None:
        return fn(*args)
    token = recorder.op_begin(name, args, -1)
    result = None
    try:
        result = fn(*args)
    finally:
        recorder.op_end(token, result, -1)   # (a composite op creates no node of its own)
    return result


_factories._profiler = sys.modules[__name__]   # the factories' hook (pyad/_factories.py)


def _install(recorder, who):
    global _active
    with _lock:
        if _active is not None:
            raise RuntimeError(
                "%s(): the profiler is already enabled (pyad runs one profile() or "
                "emit_nvtx() at a time, for all threads); leave the other one first" % who)
        _active = recorder
        _engine._set_profiler(recorder)


def _uninstall(recorder):
    global _active
    with _lock:
        if _active is recorder:
            _engine._set_profiler(None)
            _active = None


def _cupy_for(who, need_nvtx=False):
    """CuPy with at least one GPU (and libnvtx when asked), else a clear RuntimeError."""
    try:
        import cupy
    except Exception as exc:
        raise RuntimeError("%s needs CuPy and a CUDA GPU, but CuPy cannot be imported (%s: "
                           "%s)" % (who, type(exc).__name__, exc)) from None
    try:
        count = cupy.cuda.runtime.getDeviceCount()
    except Exception as exc:
        raise RuntimeError("%s needs a CUDA GPU, but CUDA reports none (%s: %s)"
                           % (who, type(exc).__name__, exc)) from None
    if count < 1:
        raise RuntimeError("%s needs a CUDA GPU, but none is visible" % who)
    if need_nvtx:
        from cupy.cuda import nvtx
        if not getattr(nvtx, "available", True):
            raise RuntimeError("%s needs NVTX, but CuPy could not load libnvtx" % who)
    return cupy


def _build_events(records, t_origin, t_stop, cuda):
    """Raw records -> FunctionEvents with parents, children and memory, per thread."""
    scopes = ("forward", "backward", "user")
    events = []
    stacks = {}                         # thread -> open events, innermost last
    for i, rec in enumerate(records):
        name, tid, t0, t1, seq, kind, shapes, mem, stack, cuda_events = rec
        if t1 == 0:                     # still open when the profile stopped
            t1 = t_stop
        cuda_us = 0.0
        if cuda_events is not None and cuda_events[1] is not None:
            cuda_events[1].synchronize()
            cuda_us = cuda.cuda.get_elapsed_time(cuda_events[0], cuda_events[1]) * 1000.0
        evt = FunctionEvent(i + 1, name, tid, (t0 - t_origin) / 1000.0,
                            (t1 - t_origin) / 1000.0, fwd_thread=tid,
                            input_shapes=shapes or [], stack=stack or [],
                            scope=scopes[kind], sequence_nr=seq, cuda_time=cuda_us)
        evt._own_arrays = mem or ()
        evt._t = (t0, t1)
        open_ = stacks.setdefault(tid, [])
        while open_ and open_[-1]._t[1] < t0:
            open_.pop()
        if open_:
            parent = open_[-1]
            evt.cpu_parent = parent
            parent.cpu_children.append(evt)
        open_.append(evt)
        events.append(evt)
    # Memory: an event allocates its outputs (unless a child made the same array) plus
    # whatever its children allocated.
    for evt in reversed(events):        # children come after their parents
        child_ids = set()
        child_total = 0
        for c in evt.cpu_children:
            child_total += c.cpu_memory_usage
            child_ids.update(a for a, _ in c._own_arrays)
            child_ids.update(c._child_ids)
        evt._child_ids = child_ids
        evt.self_cpu_memory_usage = sum(n for a, n in evt._own_arrays if a not in child_ids)
        evt.cpu_memory_usage = evt.self_cpu_memory_usage + child_total
    for evt in events:
        del evt._t, evt._child_ids
    return events


# --------------------------------------------------------------------------------
# profile, record_function, emit_nvtx
# --------------------------------------------------------------------------------

class profile:
    """Record every op and backward node run inside the ``with`` block, in every thread.

    >>> import pyad
    >>> x = pyad.ones(3, requires_grad=True)
    >>> with pyad.autograd.profiler.profile() as prof:
    ...     (x * 2).sum().backward()
    >>> [e.name for e in prof.function_events]
    ['mul', 'sum', '_GraphRoot', 'SumBackward', 'MulBackward', 'AccumulateGrad']

    One profile (or emit_nvtx) runs at a time: entering a second one while the first
    is active raises RuntimeError (torch 2 only warns and leaves both broken).
    """

    def __init__(self, enabled=True, *, use_cuda=False, record_shapes=False,
                 profile_memory=False, with_stack=False):
        self.enabled = enabled
        self.use_cuda = use_cuda
        self.record_shapes = record_shapes
        self.profile_memory = profile_memory
        self.with_stack = with_stack
        self._cupy = _cupy_for("profile(use_cuda=True)") if (enabled and use_cuda) else None
        self._entered = False
        self._recorder = None
        self._events = None
        self._t0 = self._t1 = 0

    def __enter__(self):
        if not self.enabled:
            return self
        if self._entered:
            raise RuntimeError("Profiler context manager is not reentrant")
        if self.record_shapes or self.profile_memory or self.with_stack or self._cupy:
            recorder = _FullRecorder(self.record_shapes, self.profile_memory,
                                     self.with_stack, self._cupy)
        else:
            recorder = _engine._EventLog()
        _install(recorder, "profile")
        self._entered = True
        self._recorder = recorder
        self._t0 = _now()
        return self

    def __exit__(self, exc_type, exc, tb):
        if not self.enabled:
            return False
        self._t1 = _now()
        _uninstall(self._recorder)
        if self._cupy is not None:
            self._cupy.cuda.Device().synchronize()
        return False

    def _check_finished(self):
        if self._entered and self._recorder is not None and _active is self._recorder:
            raise RuntimeError("profile(): results are available after the with block ends")

    @property
    def function_events(self):
        """Every recorded event (EventList), in start order."""
        self._check_finished()
        if self._events is None:
            records = self._recorder.records if self._recorder is not None else []
            self._events = EventList(_build_events(records, self._t0, self._t1, self._cupy),
                                     use_cuda=self.use_cuda,
                                     profile_memory=self.profile_memory)
        return self._events

    def key_averages(self, group_by_input_shape=False, group_by_stack_n=0):
        return self.function_events.key_averages(group_by_input_shape, group_by_stack_n)

    def table(self, sort_by=None, row_limit=100, max_src_column_width=75,
              max_name_column_width=55, max_shapes_column_width=80, header=None,
              top_level_events_only=False):
        return self.function_events.table(sort_by, row_limit, max_src_column_width,
                                          max_name_column_width, max_shapes_column_width,
                                          header, top_level_events_only)

    def __str__(self):
        return self.table()

    def total_average(self):
        return self.function_events.total_average()

    @property
    def self_cpu_time_total(self):
        """Sum of every event's self CPU time, in µs."""
        return self.function_events.self_cpu_time_total

    def export_chrome_trace(self, path):
        self.function_events.export_chrome_trace(path)

    def export_stacks(self, path, metric="self_cpu_time_total"):
        self.function_events.export_stacks(path, metric)


class record_function:
    """A named user range, as a context manager or a decorator; nests like ops do.

    Costs a global read when no profiler runs.
    """

    def __init__(self, name, args=None):
        if not isinstance(name, str):
            raise TypeError("record_function(): name must be a str, got %s"
                            % type(name).__name__)
        self.name = name if args is None else "%s(%s)" % (name, args)
        self._recorder = None
        self._token = None

    def __enter__(self):
        recorder = _active
        if recorder is not None:
            self._recorder = recorder
            self._token = recorder.user_begin(self.name)
        return self

    def __exit__(self, exc_type, exc, tb):
        if self._recorder is not None:
            self._recorder.user_end(self._token)
            self._recorder = self._token = None
        return False

    def __call__(self, fn):
        name = self.name

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with record_function(name):
                return fn(*args, **kwargs)
        return wrapper


class _NvtxRecorder:
    def __init__(self, nvtx, record_shapes):
        self.push = nvtx.RangePush
        self.pop = nvtx.RangePop
        self.record_shapes = record_shapes

    def op_begin(self, name, args, next_seq):
        text = "%s, seq = %d" % (name, next_seq) if next_seq >= 0 else name
        if self.record_shapes:
            text += ", sizes = %s" % [_shape_of(a) for a in args]
        self.push(text)

    def op_end(self, token, result, seq):
        self.pop()

    def node_begin(self, name, seq):
        self.push("%s, stashed seq = %d" % (name, seq))

    def node_end(self, token, grads):
        self.pop()

    def user_begin(self, name):
        self.push(name)

    def user_end(self, token):
        self.pop()


class emit_nvtx:
    """Push an NVTX range (through CuPy) around every op, backward node and
    record_function, for nvprof / Nsight Systems.

    Forward ranges read ``"mul, seq = N"`` (N: the sequence number the op's backward
    node gets), backward ranges ``"MulBackward, stashed seq = N"`` with the same N.
    Without CuPy, a GPU or libnvtx, raises RuntimeError.
    """

    def __init__(self, enabled=True, record_shapes=False):
        self.enabled = enabled
        self.record_shapes = record_shapes
        self._recorder = None
        if enabled:
            _cupy_for("emit_nvtx", need_nvtx=True)
            from cupy.cuda import nvtx
            self._recorder = _NvtxRecorder(nvtx, record_shapes)
        self._entered = False

    def __enter__(self):
        if not self.enabled:
            return self
        if self._entered:
            raise RuntimeError("NVTX annotation context manager is not reentrant")
        _install(self._recorder, "emit_nvtx")
        self._entered = True
        return self

    def __exit__(self, exc_type, exc, tb):
        if self.enabled:
            _uninstall(self._recorder)
        return False


# --------------------------------------------------------------------------------
# load_nvprof
# --------------------------------------------------------------------------------

_LAUNCH_CBIDS = frozenset({13, 211})    # cudaLaunch (CUDA < 9.2), cudaLaunchKernel
# The longest string (kernel or range name) load_nvprof reads; longer ones are refused
# before they are fetched. Mangled C++ kernel names run to a few KB.
_MAX_NVPROF_STRING = 1 << 20


class _NvprofError(Exception):
    """A problem with the file's contents, raised as RuntimeError naming the file."""


def _sqlite_uri(path):
    # Every character with a meaning in a URI ('%', '?', '#', ...) is escaped so the
    # path names exactly that file; immutable=1 makes SQLite read it without locks and
    # without creating -wal/-shm files beside a WAL-mode trace.
    from urllib.parse import quote
    return "file:%s?mode=ro&immutable=1" % quote(os.path.abspath(path), safe="/")


def load_nvprof(path, launch_cbids=_LAUNCH_CBIDS):
    """Read an nvprof SQLite file (``nvprof -o trace.prof``) into an EventList.

    Each NVTX push/pop range becomes a FunctionEvent (times in µs); each kernel
    launched inside it (runtime calls with a cbid in ``launch_cbids``) is appended
    to every enclosing range's ``kernels`` with its resolved name and duration.
    Kernels come from ``CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL`` and
    ``CUPTI_ACTIVITY_KIND_KERNEL``, whichever the file has.

    The file is opened read-only and immutable (nothing is written beside it), ranges
    and launches are matched in O(n log n), and a file that is not what nvprof writes
    (missing tables, generated columns, a value of the wrong type, a string longer than
    1 MiB) raises RuntimeError naming ``load_nvprof``.
    """
    path = os.fspath(path)
    if isinstance(path, bytes):
        path = os.fsdecode(path)
    if not os.path.isfile(path):
        raise FileNotFoundError("load_nvprof(): no such file: %r" % path)
    try:
        conn = sqlite3.connect(_sqlite_uri(path), uri=True)
    except sqlite3.Error as exc:
        raise RuntimeError("load_nvprof(): cannot open %r: %s" % (path, exc)) from None
    try:
        if hasattr(conn, "setlimit"):   # Python >= 3.11: no string or blob above the bound
            conn.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, _MAX_NVPROF_STRING + 1024)
        try:
            tables = {r[0] for r in conn.execute(
                "SELECT name FROM sqlite_master WHERE type='table'")}
        except sqlite3.DatabaseError as exc:
            raise RuntimeError("load_nvprof(): %r is not an nvprof SQLite file (%s)"
                               % (path, exc)) from None
        missing = [t for t in ("StringTable", "CUPTI_ACTIVITY_KIND_MARKER",
                               "CUPTI_ACTIVITY_KIND_RUNTIME") if t not in tables]
        if missing:
            raise RuntimeError("load_nvprof(): %r is not an nvprof trace: table(s) %s missing"
                               % (path, ", ".join(missing)))
        kernel_tables = [t for t in ("CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL",
                                     "CUPTI_ACTIVITY_KIND_KERNEL") if t in tables]
        try:
            return _read_nvprof(conn, kernel_tables, frozenset(launch_cbids))
        except _NvprofError as exc:
            raise RuntimeError("load_nvprof(): %r is not a valid nvprof trace: %s"
                               % (path, exc)) from None
        except sqlite3.DataError as exc:        # over SQLITE_LIMIT_LENGTH
            raise RuntimeError("load_nvprof(): %r is not a valid nvprof trace: %s (strings "
                               "are limited to %d bytes)" % (path, exc, _MAX_NVPROF_STRING)
                               ) from None
        except sqlite3.DatabaseError as exc:
            raise RuntimeError("load_nvprof(): cannot read %r (truncated or damaged?): %s"
                               % (path, exc)) from None
    finally:
        conn.close()


def _check_columns(conn, table, columns):
    """Refuse a table missing a column nvprof writes, a virtual table, or one with
    generated columns (either could compute huge values from a tiny file)."""
    (sql,) = conn.execute("SELECT sql FROM sqlite_master WHERE type='table' AND name=?",
                          (table,)).fetchone()
    if isinstance(sql, str) and sql.lstrip()[:20].upper().split()[:2] == ["CREATE", "VIRTUAL"]:
        raise _NvprofError("table %s is a virtual table (nvprof writes plain tables)" % table)
    info = {}
    for row in conn.execute("PRAGMA table_xinfo(%s)" % table):
        name, hidden = row[1], row[6]
        if hidden in (2, 3):
            raise _NvprofError("table %s has a generated column %r (nvprof writes none)"
                               % (table, name))
        info[name] = row
    missing = [c for c in columns if c not in info]
    if missing:
        raise _NvprofError("table %s has no column(s) %s" % (table, ", ".join(missing)))


def _rows(conn, table, columns, kinds, sql):
    """Rows of ``sql`` with each value checked against ``kinds`` ('i' int, 's' str,
    'b' bytes or None)."""
    _check_columns(conn, table, columns)
    allowed = {"i": (int,), "s": (str,), "b": (bytes, type(None))}
    for row in conn.execute(sql):
        for value, kind, column in zip(row, kinds, columns):
            if not isinstance(value, allowed[kind]) or isinstance(value, bool):
                raise _NvprofError("column %s of table %s holds %s %r where nvprof writes %s"
                                   % (column, table, type(value).__name__,
                                      value if not isinstance(value, (str, bytes))
                                      else value[:40],
                                      {"i": "an integer", "s": "text",
                                       "b": "a blob"}[kind]))
        yield row


def _read_nvprof(conn, kernel_tables, cbids):
    strings = {}
    for sid, too_long, value in _rows(
            conn, "StringTable", ("_id_", "value", "value"), "iis",
            "SELECT _id_, length(value) > %d, "
            "CASE WHEN length(value) > %d THEN '' ELSE value END FROM StringTable"
            % (_MAX_NVPROF_STRING, _MAX_NVPROF_STRING)):
        if too_long:
            raise _NvprofError("string %d of StringTable is longer than %d characters"
                               % (sid, _MAX_NVPROF_STRING))
        strings[sid] = value

    # Markers: a range's start row has a name, its end row (same id) name 0.
    starts, ends = {}, {}
    marker_columns = ("id", "name", "timestamp", "objectId")
    for mid, name, stamp, obj in _rows(
            conn, "CUPTI_ACTIVITY_KIND_MARKER", marker_columns, "iiib",
            "SELECT id, name, timestamp, substr(objectId, 1, 8) "
            "FROM CUPTI_ACTIVITY_KIND_MARKER"):
        side = ends if name == 0 else starts
        if mid in side:
            raise _NvprofError("duplicate marker id %d" % mid)
        side[mid] = (name, stamp, obj)
    events = {}
    for mid, (name, start, obj) in starts.items():
        end = ends.get(mid)
        if end is None:                 # a range still open when the trace stopped
            continue
        thread = 0
        if obj is not None and len(obj) >= 8:
            thread = int.from_bytes(obj[4:8], "little")     # (processId, threadId)
        events[mid] = FunctionEvent(mid, strings.get(name, str(name)), thread,
                                    start / 1000.0, end[1] / 1000.0, input_shapes=[],
                                    stack=[], scope="user", sequence_nr=-1)

    # Launches: runtime calls with a launch cbid, each matched to the first kernel of
    # its correlation id, from the first kernel table that has one.
    launches = []
    for rid, cbid, rstart, rend, corr in _rows(
            conn, "CUPTI_ACTIVITY_KIND_RUNTIME", ("_id_", "cbid", "start", "end",
                                                  "correlationId"), "iiiii",
            "SELECT _id_, cbid, start, end, correlationId FROM CUPTI_ACTIVITY_KIND_RUNTIME"):
        if cbid in cbids:
            launches.append((rstart, rend, rid, corr))
    launches.sort()
    assigned = set()
    by_start = sorted(events.values(), key=lambda e: (e.time_range.start, e.id))
    stamps = {mid: (starts[mid][1], ends[mid][1]) for mid in events}
    for table in kernel_tables:
        kernels = {}
        for _, corr, kname, kdev, kstart, kend in _rows(
                conn, table, ("_id_", "correlationId", "name", "deviceId", "start", "end"),
                "iiiiii", "SELECT _id_, correlationId, name, deviceId, start, end FROM %s "
                "ORDER BY _id_" % table):
            kernels.setdefault(corr, (strings.get(kname, str(kname)), kdev,
                                      (kend - kstart) / 1000.0))
        matched = [(l, kernels[l[3]]) for l in launches
                   if l[2] not in assigned and l[3] in kernels]
        assigned.update(l[2] for l, _ in matched)
        _attach_kernels(by_start, stamps, matched)

    ordered = sorted(events.values(), key=lambda e: (e.time_range.start, -e.time_range.end))
    stacks = {}
    for evt in ordered:
        open_ = stacks.setdefault(evt.thread, [])
        while open_ and open_[-1].time_range.end < evt.time_range.start:
            open_.pop()
        if open_ and evt.time_range.end <= open_[-1].time_range.end:
            evt.cpu_parent = open_[-1]
            open_[-1].cpu_children.append(evt)
        open_.append(evt)
    for evt in ordered:                 # recover scope and sequence numbers from names
        head, sep, tail = evt.name.rpartition(", stashed seq = ")
        if not sep:
            head, sep, tail = evt.name.rpartition(", seq = ")
        if sep and tail.split(",")[0].strip().lstrip("-").isdigit():
            evt.sequence_nr = int(tail.split(",")[0])
            evt.scope = "backward" if "stashed" in sep else "forward"
    return EventList(ordered, use_cuda=True)


def _attach_kernels(by_start, stamps, matched):
    """Append each launch's kernel to every range that strictly encloses the launch
    (range start < launch start and launch end < range end), in launch order.

    One sweep over the sorted range boundaries and launches, keeping the open ranges
    sorted by end time, so a launch visits only the ranges it is appended to:
    O((ranges + launches) log(ranges + launches) + matches), where the SQL join this
    replaces was O(ranges x launches).
    """
    # At one timestamp: ranges ending there close first, launches are matched, ranges
    # starting there open last (both comparisons are strict).
    timeline = []
    for evt in by_start:
        t0, t1 = stamps[evt.id]
        if t1 > t0:                     # an empty or inverted range encloses nothing
            timeline.append((t0, 2, evt.id, evt))
            timeline.append((t1, 0, evt.id, evt))
    for order, (launch, kernel) in enumerate(matched):
        timeline.append((launch[0], 1, order, (launch, kernel)))
    timeline.sort(key=lambda item: item[:3])
    active = []                         # (end, id) of the open ranges, sorted
    by_id = {}
    for stamp, kind, key, item in timeline:
        if kind == 0:
            entry = (stamp, key)
            at = bisect.bisect_left(active, entry)
            if at < len(active) and active[at] == entry:
                del active[at]
        elif kind == 2:
            by_id[key] = item
            bisect.insort(active, (stamps[key][1], key))
        else:
            (rstart, rend, _, _), (kname, kdev, duration) = item
            for _, mid in active[bisect.bisect_right(active, (rend, float("inf"))):]:
                by_id[mid].append_kernel(kname, kdev, duration)
