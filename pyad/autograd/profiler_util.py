"""``pyad.autograd.profiler_util``: the profiler's event classes, as torch's module of
the same name: `FunctionEvent` (one recorded range), `FunctionEventAvg` (events with
one key summed), `EventList` (with torch's reports), `Interval` and `Kernel`.
``pyad.autograd.profiler`` re-exports them.

>>> from pyad.autograd.profiler_util import FunctionEvent, FunctionEventAvg
>>> avg = FunctionEventAvg()
>>> _ = avg.add(FunctionEvent(id=0, node_id=0, name="foo", thread=0, start_us=10, end_us=15))
>>> _ = avg.add(FunctionEvent(id=1, node_id=0, name="foo", thread=0, start_us=20, end_us=30))
>>> avg.key, avg.count, avg.cpu_time_total, avg.cpu_time
('foo', 2, 15, 7.5)
"""
import json
import os

__all__ = ["EventList", "FunctionEvent", "FunctionEventAvg", "Interval", "Kernel"]


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

    @property
    def device_time(self):
        return self.cuda_time

    @property
    def device_time_str(self):
        return _format_time(self.device_time)

    @property
    def device_time_total_str(self):
        return _format_time(self.device_time_total)

    @property
    def self_device_time_total_str(self):
        return _format_time(self.self_device_time_total)

    device_time_total = property(lambda self: self.cuda_time_total)
    self_device_time_total = property(lambda self: self.self_cuda_time_total)


class FunctionEvent(_FormattedTimes):
    """One recorded range: a forward op, a backward node or a ``record_function``.

    The constructor takes torch's arguments (``FunctionEvent(id, name, thread, start_us,
    end_us, overload_name=None, fwd_thread=None, input_shapes=None, stack=None, ...)``).
    ``time_range`` is in microseconds from the start of the profile; ``thread`` is the
    OS thread id; ``sequence_nr`` links a forward op to the backward node it created
    (-1 when there is none); ``scope`` is ``"forward"``, ``"backward"`` or ``"user"``
    (torch: an int ``RecordScope``).
    """

    def __init__(self, id, name, thread, start_us, end_us, overload_name=None,
                 fwd_thread=None, input_shapes=None, stack=None, scope="forward",
                 use_device=None, cpu_memory_usage=0, device_memory_usage=0, is_async=False,
                 is_remote=False, sequence_nr=-1, node_id=-1, device_type="cpu",
                 device_index=0, device_resource_id=None, is_legacy=False, flops=None,
                 trace_name=None, concrete_inputs=None, kwinputs=None,
                 is_user_annotation=False, *, cuda_time=0):
        self.id = id
        self.node_id = node_id
        self.name = name
        self.overload_name = overload_name
        self.trace_name = trace_name
        self.thread = thread
        self.fwd_thread = fwd_thread
        self.time_range = Interval(start_us, end_us)
        self.sequence_nr = sequence_nr
        self.input_shapes = input_shapes
        self.concrete_inputs = concrete_inputs
        self.kwinputs = kwinputs if kwinputs is not None else {}
        self.stack = stack
        self.scope = scope
        self.use_device = use_device
        self.is_async = is_async
        self.is_remote = is_remote
        self.is_legacy = is_legacy
        self.device_type = device_type
        self.device_index = device_index
        self.device_resource_id = (device_resource_id if device_resource_id is not None
                                   else thread)
        self.flops = flops
        self.is_user_annotation = is_user_annotation
        self.count = 1
        self.kernels = []
        self.cpu_children = []
        self.cpu_parent = None
        self._cuda_time = cuda_time
        self._own_arrays = ()           # (id, nbytes) of the outputs, with profile_memory
        self.cpu_memory_usage = cpu_memory_usage
        self.self_cpu_memory_usage = cpu_memory_usage
        self.device_memory_usage = device_memory_usage
        self.self_device_memory_usage = device_memory_usage

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
    """Events with the same key summed: ``count``, the totals, and ``cpu_time`` (the
    average); the descriptive fields (``key``, ``input_shapes``, ``scope``, ...) come
    from the first event added. Adding an event of another key raises AssertionError,
    as torch.
    """

    def __init__(self):
        self.key = None
        self.count = 0
        self.node_id = 0
        self.is_async = False
        self.is_remote = False
        self.use_device = None
        self.cpu_time_total = 0
        self.self_cpu_time_total = 0
        self.cuda_time_total = 0
        self.self_cuda_time_total = 0
        self.input_shapes = None
        self.overload_name = None
        self.stack = None
        self.scope = None
        self.cpu_memory_usage = 0
        self.device_memory_usage = 0
        self.self_cpu_memory_usage = 0
        self.self_device_memory_usage = 0
        self.cpu_children = None
        self.cpu_parent = None
        self.device_type = "cpu"
        self.is_legacy = False
        self.is_user_annotation = False
        self.flops = 0

    def add(self, other):
        """Sum ``other`` (a FunctionEvent or FunctionEventAvg of the same key) into this
        average; returns it."""
        if self.key is None:            # the first event: its descriptive fields
            self.key = other.key
            self.node_id = other.node_id
            self.is_async = other.is_async
            self.is_remote = other.is_remote
            self.cpu_parent = other.cpu_parent
            self.cpu_children = other.cpu_children
            self.overload_name = getattr(other, "overload_name", None)
            self.input_shapes = other.input_shapes
            self.stack = other.stack
            self.scope = other.scope
            self.device_type = other.device_type
            self.is_legacy = other.is_legacy
            self.use_device = getattr(other, "use_device", None)
            self.is_user_annotation = getattr(other, "is_user_annotation", False)
        if not isinstance(other, (FunctionEvent, FunctionEventAvg)):
            raise AssertionError("Expected other to be a FunctionEvent or FunctionEventAvg")
        if other.key != self.key:
            raise AssertionError("Expected keys to match, but got %s vs %s"
                                 % (other.key, self.key))
        self.cpu_time_total += other.cpu_time_total
        self.cuda_time_total += other.cuda_time_total
        self.self_cpu_time_total += other.self_cpu_time_total
        self.self_cuda_time_total += other.self_cuda_time_total
        self.cpu_memory_usage += other.cpu_memory_usage
        self.device_memory_usage += other.device_memory_usage
        self.self_cpu_memory_usage += other.self_cpu_memory_usage
        self.self_device_memory_usage += other.self_device_memory_usage
        self.count += other.count
        if self.flops is None:
            self.flops = other.flops
        elif other.flops is not None:
            self.flops += other.flops
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
                key.extend((evt.stack or [])[:group_by_stack_n])
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
            total.key = None            # (as torch: the next event sets it again)
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
        trace.append({"name": evt.trace_name or evt.name, "ph": "X",
                      "cat": categories.get(evt.scope, "cpu_op"),
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
