"""``pyad.autograd.profiler``: torch.autograd.profiler over pyad's engine (SPEC 8).

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

from pyad import _engine

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


# --------------------------------------------------------------------------------
# Events
# --------------------------------------------------------------------------------

class Interval:
    """A time range in microseconds."""
    __slots__ = ("start", "end")

    def __init__(self, start, end):
        self.start = start
        self.end = end

    def elapsed_us(self):
        return self.end - self.start

    def __repr__(self):
        return "Interval(start=%.3f, end=%.3f)" % (self.start, self.end)


class Kernel:
    """A GPU kernel attributed to an event (from ``load_nvprof``)."""
    __slots__ = ("name", "device", "duration")

    def __init__(self, name, device, duration):
        self.name, self.device, self.duration = name, device, duration

    def __repr__(self):
        return "Kernel(name=%r, device=%d, duration=%.3f)" % (self.name, self.device,
                                                               self.duration)


def _format_time(time_us):
    if time_us >= 1e6:
        return "%.3fs" % (time_us / 1e6)
    if time_us >= 1e3:
        return "%.3fms" % (time_us / 1e3)
    return "%.3fus" % time_us


def _format_memory(nbytes):
    kb, mb, gb = 1024, 1024 ** 2, 1024 ** 3
    if abs(nbytes) >= gb:
        return "%.2f GB" % (nbytes / gb)
    if abs(nbytes) >= mb:
        return "%.2f MB" % (nbytes / mb)
    if abs(nbytes) >= kb:
        return "%.2f KB" % (nbytes / kb)
    return "%d B" % nbytes


def _format_share(value, total):
    return "NaN" if total == 0 else "%.2f%%" % (value * 100.0 / total)


class _FormattedTimes:
    @property
    def cpu_time_str(self):
        return _format_time(self.cpu_time)

    @property
    def cpu_time_total_str(self):
        return _format_time(self.cpu_time_total)

    @property
    def self_cpu_time_total_str(self):
        return _format_time(self.self_cpu_time_total)

    @property
    def cuda_time(self):
        return self.cuda_time_total / self.count if self.count else 0.0

    device_time_total = property(lambda self: self.cuda_time_total)
    self_device_time_total = property(lambda self: self.self_cuda_time_total)


class FunctionEvent(_FormattedTimes):
    """One recorded range: a forward op, a backward node or a ``record_function``.

    ``time_range`` is in microseconds from the start of the profile; ``thread`` is the
    OS thread id; ``sequence_nr`` links a forward op to the backward node it created
    (-1 when there is none); ``scope`` is ``"forward"``, ``"backward"`` or ``"user"``.
    """

    def __init__(self, id, name, thread, start_us, end_us, sequence_nr=-1,
                 input_shapes=None, stack=None, scope="forward", cuda_time=0.0,
                 is_async=False):
        self.id = id
        self.name = name
        self.thread = thread
        self.fwd_thread = thread
        self.time_range = Interval(start_us, end_us)
        self.sequence_nr = sequence_nr
        self.input_shapes = input_shapes if input_shapes is not None else []
        self.stack = stack if stack is not None else []
        self.scope = scope
        self.is_async = is_async
        self.is_remote = False
        self.is_legacy = False
        self.node_id = -1
        self.device_type = "cpu"
        self.device_index = 0
        self.count = 1
        self.kernels = []
        self.cpu_children = []
        self.cpu_parent = None
        self._cuda_time = cuda_time
        self._own_arrays = ()           # (id, nbytes) of the outputs, with profile_memory
        self.cpu_memory_usage = 0
        self.self_cpu_memory_usage = 0

    @property
    def key(self):
        return self.name

    def append_kernel(self, name, device, duration):
        self.kernels.append(Kernel(name, device, duration))

    def append_cpu_child(self, child):
        self.cpu_children.append(child)

    def set_cpu_parent(self, parent):
        self.cpu_parent = parent

    @property
    def cpu_time_total(self):
        return self.time_range.elapsed_us()

    @property
    def self_cpu_time_total(self):
        return self.cpu_time_total - sum(c.cpu_time_total for c in self.cpu_children)

    @property
    def cpu_time(self):
        return self.cpu_time_total

    @property
    def cuda_time_total(self):
        return self._cuda_time + sum(k.duration for k in self.kernels)

    @property
    def self_cuda_time_total(self):
        return self.cuda_time_total - sum(c.cuda_time_total for c in self.cpu_children)

    def __repr__(self):
        return ("<FunctionEvent id=%d name=%s thread=%d cpu_time=%s start_us=%.3f "
                "end_us=%.3f cpu_children=%s sequence_nr=%d input_shapes=%s "
                "cpu_memory_usage=%d>"
                % (self.id, self.name, self.thread, self.cpu_time_str, self.time_range.start,
                   self.time_range.end, [c.id for c in self.cpu_children], self.sequence_nr,
                   self.input_shapes, self.cpu_memory_usage))


class FunctionEventAvg(_FormattedTimes):
    """Events with the same key summed: ``count``, totals, and ``cpu_time`` (average)."""

    def __init__(self):
        self.key = None
        self.count = 0
        self.node_id = 0
        self.is_async = False
        self.is_remote = False
        self.is_legacy = False
        self.cpu_time_total = 0.0
        self.self_cpu_time_total = 0.0
        self.cuda_time_total = 0.0
        self.self_cuda_time_total = 0.0
        self.cpu_memory_usage = 0
        self.self_cpu_memory_usage = 0
        self.input_shapes = None
        self.stack = None
        self.scope = None
        self.cpu_children = None
        self.cpu_parent = None
        self.device_type = "cpu"

    def add(self, other):
        if self.key is None:
            self.key = other.key
            self.node_id = other.node_id
            self.is_async = other.is_async
            self.input_shapes = other.input_shapes
            self.stack = other.stack
            self.scope = other.scope
            self.cpu_children = other.cpu_children
            self.cpu_parent = other.cpu_parent
        self.count += other.count
        self.cpu_time_total += other.cpu_time_total
        self.self_cpu_time_total += other.self_cpu_time_total
        self.cuda_time_total += other.cuda_time_total
        self.self_cuda_time_total += other.self_cuda_time_total
        self.cpu_memory_usage += other.cpu_memory_usage
        self.self_cpu_memory_usage += other.self_cpu_memory_usage
        return self

    def __iadd__(self, other):
        return self.add(other)

    @property
    def cpu_time(self):
        return self.cpu_time_total / self.count if self.count else 0.0

    def __repr__(self):
        return ("<FunctionEventAvg key=%s self_cpu_time=%s cpu_time=%s input_shapes=%s "
                "cpu_memory_usage=%d>"
                % (self.key, self.self_cpu_time_total_str, self.cpu_time_str,
                   self.input_shapes, self.cpu_memory_usage))


_STACK_METRICS = ("self_cpu_time_total", "self_cuda_time_total")


class EventList(list):
    """A list of FunctionEvents (or FunctionEventAvgs) with torch's reports."""

    def __init__(self, *args, use_cuda=False, profile_memory=False, with_flops=False):
        super().__init__(*args)
        self._use_cuda = use_cuda
        self._profile_memory = profile_memory

    @property
    def self_cpu_time_total(self):
        return sum(e.self_cpu_time_total for e in self)

    def key_averages(self, group_by_input_shape=False, group_by_stack_n=0):
        """Events grouped by name (and input shapes, and the top ``group_by_stack_n``
        stack frames, when asked) into FunctionEventAvgs, in first-seen order."""
        groups = {}
        for evt in self:
            key = [evt.key, evt.node_id]
            if group_by_input_shape:
                key.append(str(evt.input_shapes))
            if group_by_stack_n > 0:
                key.extend(evt.stack[:group_by_stack_n])
            key = tuple(key)
            avg = groups.get(key)
            if avg is None:
                avg = groups[key] = FunctionEventAvg()
            avg.add(evt)
        for avg in groups.values():
            if not group_by_input_shape:
                avg.input_shapes = None
            if not group_by_stack_n:
                avg.stack = None
        return EventList(groups.values(), use_cuda=self._use_cuda,
                         profile_memory=self._profile_memory)

    def total_average(self):
        """All events summed into one FunctionEventAvg with key ``"Total"``."""
        total = FunctionEventAvg()
        for evt in self:
            total.add(evt)
        total.key = "Total"
        total.input_shapes = total.stack = None
        return total

    def table(self, sort_by=None, row_limit=100, max_src_column_width=75,
              max_name_column_width=55, max_shapes_column_width=80, header=None,
              top_level_events_only=False):
        """The events as text, with torch's columns (see docs/profiler.md)."""
        return _build_table(self, sort_by, row_limit, max_src_column_width,
                            max_name_column_width, max_shapes_column_width, header,
                            top_level_events_only, self._use_cuda, self._profile_memory)

    def __str__(self):
        return self.table()

    def export_chrome_trace(self, path):
        """Write a Trace Event JSON file (Perfetto, chrome://tracing): one track per
        thread, and ``fwdbwd`` flow arrows from each forward op to the backward nodes
        that ran for it (matched by sequence number)."""
        _write_chrome_trace(self, path)

    def supported_export_stacks_metrics(self):
        return list(_STACK_METRICS)

    def export_stacks(self, path, metric="self_cpu_time_total"):
        """Write collapsed stacks (``frame;frame;...;name value``, outermost frame first,
        the event's name as the leaf frame, value in whole µs) for flamegraph.pl,
        speedscope or inferno. Only events recorded ``with_stack=True`` have stacks."""
        if metric not in _STACK_METRICS:
            raise ValueError("export_stacks(): metric should be one of %s, got %r"
                             % (list(_STACK_METRICS), metric))
        translate = str.maketrans(" ;\t\n", "____")
        with open(path, "w") as f:
            for evt in self:
                if not evt.stack:
                    continue
                value = int(getattr(evt, metric))
                if value <= 0:
                    continue
                frames = [s.translate(translate) for s in reversed(evt.stack)]
                frames.append(evt.name.translate(translate))
                f.write("%s %d\n" % (";".join(frames), value))


def _sort_value(evt, sort_by):
    try:
        return getattr(evt, sort_by.replace("device", "cuda"))
    except AttributeError:
        raise ValueError("table(): cannot sort by %r (use e.g. 'cpu_time_total', "
                         "'self_cpu_time_total', 'cpu_time', 'count', "
                         "'cpu_memory_usage', 'self_cpu_memory_usage', "
                         "'cuda_time_total')" % sort_by) from None


def _build_table(events, sort_by, row_limit, max_src_column_width, max_name_column_width,
                 max_shapes_column_width, header, top_level_events_only, use_cuda,
                 profile_memory):
    if len(events) == 0:
        return ""
    events = list(events)
    if sort_by is not None:
        events.sort(key=lambda e: _sort_value(e, sort_by), reverse=True)
    has_shapes = any(e.input_shapes for e in events)
    has_stack = any(e.stack for e in events)
    name_width = min(max(len(e.key) for e in events) + 4, max_name_column_width)
    shapes_width = min(max(len(str(e.input_shapes)) for e in events) + 4,
                       max_shapes_column_width) if has_shapes else 0
    src_width = min(max(len(s) for e in events for s in (e.stack or [""])) + 4,
                    max_src_column_width) if has_stack else 0

    columns = [("Name", name_width), ("Self CPU %", 12), ("Self CPU", 12),
               ("CPU total %", 12), ("CPU total", 12), ("CPU time avg", 12)]
    if use_cuda:
        columns += [("Self CUDA", 12), ("Self CUDA %", 12), ("CUDA total", 12),
                    ("CUDA time avg", 12)]
    if profile_memory:
        columns += [("CPU Mem", 12), ("Self CPU Mem", 12)]
    columns.append(("# of Calls", 12))
    if has_shapes:
        columns.append(("Input Shapes", shapes_width))
    if has_stack:
        columns.append(("Source Location", src_width))
    row_format = "".join("{:>%d}  " % w for _, w in columns)
    sep = "".join("-" * w + "  " for _, w in columns)

    self_cpu_total = sum(e.self_cpu_time_total for e in events)
    self_cuda_total = sum(e.self_cuda_time_total for e in events) if use_cuda else 0.0
    lines = []
    if header is not None:
        lines += ["=" * len(sep), header]
    if top_level_events_only:
        events = [e for e in events if e.cpu_parent is None]
    lines += [sep, row_format.format(*(c for c, _ in columns)), sep]
    for i, evt in enumerate(events):
        if row_limit is not None and 0 <= row_limit <= i:
            break
        name = evt.key
        if len(name) >= name_width - 3:
            name = name[:name_width - 3] + "..."
        row = [name, _format_share(evt.self_cpu_time_total, self_cpu_total),
               _format_time(evt.self_cpu_time_total),
               _format_share(evt.cpu_time_total, self_cpu_total),
               _format_time(evt.cpu_time_total), _format_time(evt.cpu_time)]
        if use_cuda:
            row += [_format_time(evt.self_cuda_time_total),
                    _format_share(evt.self_cuda_time_total, self_cuda_total),
                    _format_time(evt.cuda_time_total), _format_time(evt.cuda_time)]
        if profile_memory:
            row += [_format_memory(evt.cpu_memory_usage),
                    _format_memory(evt.self_cpu_memory_usage)]
        row.append(str(evt.count))
        if has_shapes:
            row.append(str(evt.input_shapes)[:shapes_width])
        if has_stack:
            row.append((evt.stack[0] if evt.stack else "")[:src_width])
        lines.append(row_format.format(*row))
    lines.append(sep)
    lines.append("Self CPU time total: %s" % _format_time(self_cpu_total))
    if use_cuda:
        lines.append("Self CUDA time total: %s" % _format_time(self_cuda_total))
    return "\n".join(lines) + "\n"


_GPU_TRACK = 1 << 40                    # track ids of kernels (above any OS thread id)


def _write_chrome_trace(events, path):
    pid = os.getpid()
    trace = [{"name": "process_name", "ph": "M", "pid": pid, "tid": 0,
              "args": {"name": "pyad"}}]
    threads = []
    for evt in events:
        if evt.thread not in threads:
            threads.append(evt.thread)
    for i, tid in enumerate(threads):
        trace.append({"name": "thread_name", "ph": "M", "pid": pid, "tid": tid,
                      "args": {"name": "thread %d (%d)" % (i, tid)}})
        trace.append({"name": "thread_sort_index", "ph": "M", "pid": pid, "tid": tid,
                      "args": {"sort_index": i}})
    categories = {"forward": "cpu_op", "backward": "cpu_op", "user": "user_annotation"}
    creator = {}                        # seq -> the innermost forward op that made the node
    gpu_tracks = set()
    for evt in events:
        args = {"Sequence number": evt.sequence_nr, "Scope": evt.scope}
        if evt.input_shapes:
            args["Input Dims"] = evt.input_shapes
        if evt.stack:
            args["Call stack"] = ";".join(evt.stack)
        trace.append({"name": evt.name, "ph": "X", "cat": categories.get(evt.scope, "cpu_op"),
                      "ts": evt.time_range.start, "dur": evt.cpu_time_total,
                      "pid": pid, "tid": evt.thread, "args": args})
        if evt.scope == "forward" and evt.sequence_nr >= 0:
            creator[evt.sequence_nr] = evt      # later (inner) ops overwrite: innermost
        for k in evt.kernels:           # (load_nvprof: GPU times are not on the CPU clock)
            tid = _GPU_TRACK + k.device
            if tid not in gpu_tracks:
                gpu_tracks.add(tid)
                trace.append({"name": "thread_name", "ph": "M", "pid": pid, "tid": tid,
                              "args": {"name": "GPU %d kernels" % k.device}})
            trace.append({"name": k.name, "ph": "X", "cat": "kernel",
                          "ts": evt.time_range.start, "dur": k.duration, "pid": pid,
                          "tid": tid, "args": {"launched by": evt.name}})
    flow_id = 0
    for evt in events:
        if evt.scope != "backward" or evt.sequence_nr < 0:
            continue
        fwd = creator.get(evt.sequence_nr)
        if fwd is None:
            continue
        flow_id += 1
        trace.append({"name": "fwdbwd", "ph": "s", "cat": "fwdbwd", "id": flow_id,
                      "pid": pid, "tid": fwd.thread, "ts": fwd.time_range.start})
        trace.append({"name": "fwdbwd", "ph": "f", "bp": "e", "cat": "fwdbwd",
                      "id": flow_id, "pid": pid, "tid": evt.thread,
                      "ts": evt.time_range.start})
    with open(path, "w") as f:
        json.dump({"traceEvents": trace, "displayTimeUnit": "ms"}, f)


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
                            (t1 - t_origin) / 1000.0, seq, shapes or [], stack,
                            scopes[kind], cuda_us)
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
        text = "%s, seq = %d" % (name, next_seq)
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
    """Refuse a table missing a column nvprof writes, or with generated columns (which
    could compute huge values from a tiny file)."""
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
                                    start / 1000.0, end[1] / 1000.0, sequence_nr=-1,
                                    scope="user")

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
