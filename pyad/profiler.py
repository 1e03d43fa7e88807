"""``pyad.profiler``: torch.profiler's API over `pyad.autograd.profiler`.

`profile` records what `pyad.autograd.profiler.profile` records (every op, backward node,
custom Function and `record_function` range, from every thread), in cycles driven by a
`schedule` and ``prof.step()``, with torch's ProfilerAction semantics: each cycle waits,
warms up, records, and at its last active step hands the profile to ``on_trace_ready``
(`tensorboard_trace_handler` writes it as a Chrome trace). With a schedule, each step
is a ``ProfilerStep#N`` range, as in torch.

>>> import pyad
>>> x = pyad.ones(3, requires_grad=True)
>>> with pyad.profiler.profile(activities=[pyad.profiler.ProfilerActivity.CPU]) as prof:
...     with pyad.profiler.record_function("loss"):
...         (x * 2).sum().backward()
>>> [e.key for e in prof.key_averages()][:3]
['loss', 'mul', 'sum']
"""
import enum
import gzip
import os
import shutil
import socket
import tempfile
import time
import warnings

from pyad.autograd import profiler as _autograd_profiler
from pyad.autograd.profiler import record_function

__all__ = ["profile", "schedule", "tensorboard_trace_handler", "ProfilerActivity",
           "ProfilerAction", "record_function", "supported_activities"]


class ProfilerActivity(enum.Enum):
    """The activity groups torch's profiler collects (the values are torch's). pyad
    records CPU activity; CUDA adds CUDA-event timings of each op where CuPy sees a
    GPU (`pyad.autograd.profiler.profile`'s ``use_cuda``); the others record nothing."""
    CPU = 0
    XPU = 1
    CUDA = 2
    HPU = 3
    MTIA = 4
    PrivateUse1 = 5


class ProfilerAction(enum.Enum):
    """What the profiler does at a step: nothing, warm up (pyad has nothing to warm
    up), record, or record and then hand the cycle's profile to ``on_trace_ready``."""
    NONE = 0
    WARMUP = 1
    RECORD = 2
    RECORD_AND_SAVE = 3


def _cuda_available():
    from pyad import cuda
    return cuda.is_available()


def supported_activities():
    """``{ProfilerActivity.CPU}``, plus ``CUDA`` where CuPy sees a GPU."""
    found = {ProfilerActivity.CPU}
    if _cuda_available():
        found.add(ProfilerActivity.CUDA)
    return found


def schedule(*, wait, warmup, active, repeat=0, skip_first=0, skip_first_wait=0):
    """A schedule for `profile`, as ``torch.profiler.schedule``: skip the first
    ``skip_first`` steps, then cycles of ``wait`` steps doing nothing, ``warmup`` steps
    warming up and ``active`` steps recording (the last one RECORD_AND_SAVE), ``repeat``
    cycles (0: until the profile ends). ``skip_first_wait`` nonzero skips the first
    cycle's wait. Returns a function of the step number giving its `ProfilerAction`.

    >>> import pyad, warnings
    >>> s = pyad.profiler.schedule(wait=1, warmup=1, active=2, repeat=1)
    >>> [s(i).name for i in range(5)]
    ['NONE', 'WARMUP', 'RECORD', 'RECORD_AND_SAVE', 'NONE']
    """
    def schedule_fn(step):
        if step < 0:
            raise AssertionError("schedule(): Step must be non-negative. Got %s." % step)
        if step < skip_first:
            return ProfilerAction.NONE
        step -= skip_first
        if skip_first_wait != 0:
            step += wait
        num_steps = wait + warmup + active
        if repeat > 0 and step / num_steps >= repeat:
            return ProfilerAction.NONE
        mod_step = step % num_steps
        if mod_step < wait:
            return ProfilerAction.NONE
        if mod_step < wait + warmup:
            return ProfilerAction.WARMUP
        return (ProfilerAction.RECORD if mod_step < num_steps - 1
                else ProfilerAction.RECORD_AND_SAVE)

    if wait < 0 or warmup < 0 or active <= 0 or repeat < 0 or skip_first < 0:
        # torch raises AssertionError here too
        raise AssertionError(
            "schedule(): Invalid profiler schedule arguments. Got wait=%s (need >= 0), "
            "warmup=%s (need >= 0), active=%s (need > 0), repeat=%s (need >= 0), "
            "skip_first=%s (need >= 0)." % (wait, warmup, active, repeat, skip_first))
    if warmup == 0:
        warnings.warn("Profiler won't be using warmup, this can skew profiler results",
                      UserWarning, stacklevel=2)
    return schedule_fn


def _default_schedule_fn(_):
    return ProfilerAction.RECORD


def _write_atomically(dir_name, file_name, write):
    """``write(path)`` into a temporary file in ``dir_name`` (with the same suffix, so
    ``.gz`` still compresses), then rename it to ``file_name``: a reader never sees a
    partial trace."""
    suffix = ".json.gz" if file_name.endswith(".gz") else ".json"
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", suffix=suffix, dir=dir_name)
    os.close(fd)
    try:
        write(tmp)
        os.replace(tmp, os.path.join(dir_name, file_name))
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def tensorboard_trace_handler(dir_name, worker_name=None, use_gzip=False,
                              use_python_export=False):
    """An ``on_trace_ready`` handler, as ``torch.profiler.tensorboard_trace_handler``:
    each cycle writes ``<worker_name>.<time_ns>.pt.trace.json`` (``.gz`` with
    ``use_gzip``) in ``dir_name`` (created if needed), a Chrome trace TensorBoard's
    profiler plugin and chrome://tracing read. ``worker_name`` defaults to
    ``<hostname>_<pid>``. Each file is written to a temporary name and renamed, so it
    appears whole or not at all."""
    def handler_fn(prof):
        nonlocal worker_name
        if not os.path.isdir(dir_name):
            try:
                os.makedirs(dir_name, exist_ok=True)
            except Exception as exc:
                raise RuntimeError("tensorboard_trace_handler(): Can't create directory: "
                                   + str(dir_name)) from exc
        if not worker_name:
            worker_name = "%s_%d" % (socket.gethostname(), os.getpid())
        file_name = "%s.%d.pt.trace.json" % (worker_name, time.time_ns())
        if use_gzip:
            file_name += ".gz"
        _write_atomically(dir_name, file_name, prof.export_chrome_trace)
    return handler_fn


class profile:
    """torch.profiler's profiler: a context manager recording ops in cycles.

    Without ``schedule`` everything between ``__enter__`` and ``__exit__`` is one
    cycle, handed to ``on_trace_ready`` (if given) at the exit. With a `schedule`,
    call ``prof.step()`` at the end of each step: the action of the new step decides
    whether a cycle starts (RECORD), ends (after RECORD_AND_SAVE, calling
    ``on_trace_ready(prof)``), or nothing happens, by torch's transition table.
    `events`, `key_averages`, `export_chrome_trace` and `export_stacks` read the last
    finished cycle (with ``acc_events=True``, every cycle's events).

    ``record_shapes``, ``profile_memory`` and ``with_stack`` are those of
    `pyad.autograd.profiler.profile`; ``with_flops`` and ``with_modules`` are accepted
    and record nothing (pyad estimates no FLOPs and keeps no module hierarchy).
    ``ProfilerActivity.CUDA`` adds CUDA-event timings where CuPy sees a GPU; where
    none is available a cycle's start warns, as torch's does, and records the CPU.
    """

    def __init__(self, *, activities=None, schedule=None, on_trace_ready=None,
                 record_shapes=False, profile_memory=False, with_stack=False,
                 with_flops=False, with_modules=False, experimental_config=None,
                 execution_trace_observer=None, acc_events=False, use_cuda=None,
                 custom_trace_id_callback=None, post_processing_timeout_s=None):
        if activities is not None:
            found = set()
            for item in activities:
                if isinstance(item, ProfilerActivity):
                    found.add(item)
                elif isinstance(item, dict):
                    found.update(item)
                else:
                    raise TypeError("profile(): activities must be ProfilerActivity "
                                    "values, got %s" % type(item).__name__)
        else:
            found = supported_activities()
        if use_cuda is not None:
            warnings.warn("`use_cuda` is deprecated, use `activities` argument instead",
                          FutureWarning, stacklevel=2)
            if use_cuda:
                found.add(ProfilerActivity.CUDA)
            else:
                found.discard(ProfilerActivity.CUDA)
        if not found:
            raise AssertionError("profile(): No valid profiler activities found")
        self.activities = found
        self.record_shapes = record_shapes
        self.profile_memory = profile_memory
        self.with_stack = with_stack
        self.with_flops = with_flops
        self.with_modules = with_modules
        self.acc_events = acc_events
        if schedule:
            self.schedule = schedule
            self.record_steps = True
        else:
            self.schedule = _default_schedule_fn
            self.record_steps = False
        self.on_trace_ready = on_trace_ready
        self.step_num = 0
        self.step_rec_fn = None
        self.current_action = self.schedule(self.step_num)
        self.profiler = None            # the last finished cycle's autograd profile
        self._running = None
        self._cycles = []               # every finished cycle (acc_events)
        A = ProfilerAction
        start, stop, ready = self._start_trace, self._stop_trace, self._trace_ready
        self.action_map = {
            (A.NONE, A.NONE): [],
            (A.NONE, A.WARMUP): [],
            (A.NONE, A.RECORD): [start],
            (A.NONE, A.RECORD_AND_SAVE): [start],
            (A.WARMUP, A.NONE): [self._warn("Incorrect schedule: WARMUP followed by NONE"),
                                 start, stop],
            (A.WARMUP, A.WARMUP): [],
            (A.WARMUP, A.RECORD): [start],
            (A.WARMUP, A.RECORD_AND_SAVE): [start],
            (A.RECORD, A.NONE): [self._warn("Incorrect schedule: RECORD followed by NONE"),
                                 stop],
            (A.RECORD, A.WARMUP): [self._warn("Incorrect schedule: RECORD followed by "
                                              "WARMUP"), stop],
            (A.RECORD, A.RECORD): [],
            (A.RECORD, A.RECORD_AND_SAVE): [],
            (A.RECORD_AND_SAVE, A.NONE): [stop, ready],
            (A.RECORD_AND_SAVE, A.WARMUP): [stop, ready],
            (A.RECORD_AND_SAVE, A.RECORD): [stop, ready, start],
            (A.RECORD_AND_SAVE, A.RECORD_AND_SAVE): [stop, ready, start],
            (A.WARMUP, None): [start, stop],
            (A.RECORD, None): [stop, ready],
            (A.RECORD_AND_SAVE, None): [stop, ready],
            (A.NONE, None): [],
        }

    @staticmethod
    def _warn(message):
        return lambda: warnings.warn(message, UserWarning, stacklevel=4)

    # -- the cycle's autograd profile ------------------------------------------------

    def _start_trace(self):
        use_cuda = ProfilerActivity.CUDA in self.activities
        if use_cuda and not _cuda_available():
            # torch warns when its profiler starts, and records the CPU side
            warnings.warn("CUDA is not available, disabling CUDA profiling",
                          UserWarning, stacklevel=3)
            use_cuda = False
        prof = _autograd_profiler.profile(
            use_cuda=use_cuda,
            record_shapes=self.record_shapes, profile_memory=self.profile_memory,
            with_stack=self.with_stack)
        prof.__enter__()
        self._running = prof

    def _stop_trace(self):
        prof, self._running = self._running, None
        if prof is not None:
            prof.__exit__(None, None, None)
            # torch names the step ranges "ProfilerStep*" (so that the table and
            # key_averages gather them in one row), keeping "ProfilerStep#N" as the
            # name in the Chrome trace
            for evt in prof.function_events:
                if evt.name.startswith("ProfilerStep#"):
                    evt.trace_name, evt.name = evt.name, "ProfilerStep*"
            self.profiler = prof
            self._cycles.append(prof)
            if not self.acc_events:
                del self._cycles[:-1]

    def _trace_ready(self):
        if self.on_trace_ready:
            self.on_trace_ready(self)

    def _transit_action(self, prev_action, current_action):
        # (a pair outside the table, as a schedule returning something else, does
        # nothing, as in torch)
        for action in self.action_map.get((prev_action, current_action), ()):
            action()

    # -- torch's interface ------------------------------------------------------------

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, exc_type, exc, tb):
        self.stop()
        return False

    def start(self):
        """Start profiling (what ``__enter__`` does)."""
        self._transit_action(ProfilerAction.NONE, self.current_action)
        if self.record_steps:
            self.step_rec_fn = record_function("ProfilerStep#" + str(self.step_num))
            self.step_rec_fn.__enter__()

    def stop(self):
        """Stop profiling (what ``__exit__`` does): ends a running cycle, handing it to
        ``on_trace_ready``."""
        if self.record_steps and self.step_rec_fn:
            self.step_rec_fn.__exit__(None, None, None)
            self.step_rec_fn = None
        self._transit_action(self.current_action, None)

    def step(self):
        """Signal that the next step starts: the schedule's action for it decides what
        the profiler does."""
        if self.record_steps and self.step_rec_fn:
            self.step_rec_fn.__exit__(None, None, None)
            self.step_rec_fn = None
        prev_action = self.current_action
        self.step_num += 1
        self.current_action = self.schedule(self.step_num)
        self._transit_action(prev_action, self.current_action)
        if self.record_steps:
            self.step_rec_fn = record_function("ProfilerStep#" + str(self.step_num))
            self.step_rec_fn.__enter__()

    def _finished(self, what):
        if self.profiler is None:
            # torch asserts here as well
            raise AssertionError("profile.%s(): Profiler must be initialized before %s "
                                 "(no cycle has finished recording)"
                                 % (what, "accessing events" if what == "events"
                                    else "getting key averages"
                                    if what == "key_averages" else "exporting"))

    def events(self):
        """The recorded events (an EventList) of the last finished cycle, or of every
        cycle with ``acc_events=True``."""
        self._finished("events")
        if self.acc_events and len(self._cycles) > 1:
            from pyad.autograd.profiler_util import EventList
            merged = [e for p in self._cycles for e in p.function_events]
            return EventList(merged, use_cuda=ProfilerActivity.CUDA in self.activities,
                             profile_memory=self.profile_memory)
        return self.profiler.function_events

    def key_averages(self, group_by_input_shape=False, group_by_stack_n=0,
                     group_by_overload_name=False):
        """The events averaged by name (and input shapes / stack when asked); its
        ``table(sort_by=..., row_limit=...)`` prints them."""
        self._finished("key_averages")
        return self.events().key_averages(group_by_input_shape, group_by_stack_n)

    def export_chrome_trace(self, path, use_python_export=False):
        """Write the events as a Chrome trace (JSON; gzip-compressed when ``path`` ends
        with ``.gz``)."""
        self._finished("export_chrome_trace")
        path = os.fspath(path)
        if not path.endswith(".gz"):
            return self.events().export_chrome_trace(path)
        fd, tmp = tempfile.mkstemp(prefix=".tmp-", suffix=".json",
                                   dir=os.path.dirname(os.path.abspath(path)))
        os.close(fd)
        try:
            self.events().export_chrome_trace(tmp)
            with open(tmp, "rb") as src, gzip.open(path, "wb") as dst:
                shutil.copyfileobj(src, dst)
        finally:
            os.unlink(tmp)

    def _memory_points(self):
        # (timestamp in ns, bytes) at each op's start: the memory its outputs took
        # (profile_memory=True records it; pyad has no categories, so all of it is
        # torch's "unknown" category)
        points = []
        for evt in self.events():
            size = getattr(evt, "self_cpu_memory_usage", 0) or 0
            if size:
                points.append((int(evt.time_range.start * 1000), int(size)))
        points.sort()
        return points

    def export_memory_timeline(self, path, device=None):
        """Write the memory the recorded ops allocated over time, as torch's (deprecated)
        ``export_memory_timeline``, by ``path``'s suffix: ``.html`` a plot (needs
        matplotlib: without it, prints torch's message and writes nothing), ``.json``
        or ``.json.gz`` the points ``[times (us), [sizes by category]]`` (torch's 9 slots;
        pyad records no categories, so every byte is in the last, torch's unknown
        category), and ``.raw.json.gz`` the raw ``(timestamp (ns), action, numbytes,
        category)`` events (action 2, torch's CREATE; category 7, its unknown). pyad
        records what each op allocated, not frees. Needs ``profile_memory=True``."""
        warnings.warn("`export_memory_timeline` is deprecated and will be removed in a "
                      "future version. Please use `torch.cuda.memory._record_memory_history` "
                      "and `torch.cuda.memory._export_memory_snapshot` instead.",
                      FutureWarning, stacklevel=2)
        self._finished("export_memory_timeline")
        import json
        path = os.fspath(path)
        points = self._memory_points()
        times, sizes, total = [], [], 0
        for t, size in points:
            total += size
            times.append(t // 1000)  # microseconds, as torch's points
            sizes.append([0] * 8 + [total])
        if path.endswith(".html"):
            import importlib.util
            if importlib.util.find_spec("matplotlib") is None:
                print("export_memory_timeline_html failed because matplotlib was not found.")
                return
            import base64
            import io
            import matplotlib
            matplotlib.use("Agg")
            import matplotlib.pyplot as plt
            t0 = times[0] if times else 0
            fig = plt.figure(figsize=(20, 12), dpi=80)
            axes = fig.gca()
            axes.fill_between([(t - t0) / 1e3 for t in times],
                              [s[-1] / 1024 ** 3 for s in sizes], 0, alpha=0.7)
            fig.legend(["Unknown"])
            axes.set_xlabel("Time (ms)")
            axes.set_ylabel("Memory (GB)")
            buffer = io.BytesIO()
            fig.savefig(buffer, format="png")
            plt.close(fig)
            encoded = base64.b64encode(buffer.getvalue()).decode("utf-8")
            with open(path, "w") as f:
                f.write("<html>\n<head><meta charset=\"utf-8\" /><title>GPU Memory "
                        "Timeline HTML</title></head>\n<body>\n  <img src='data:image/png;"
                        "base64,%s'>\n</body>\n</html>" % encoded)
            return
        if path.endswith("raw.json.gz"):
            data = [(t, 2, size, 7) for t, size in points]
        else:
            data = [times, sizes]
        if path.endswith(".gz"):
            with gzip.open(path, "wt") as f:
                json.dump(data, f)
        else:
            with open(path, "w") as f:
                json.dump(data, f)

    def export_stacks(self, path, metric="self_cpu_time_total"):
        """Write the recorded stacks (``with_stack=True``) for flame graphs."""
        self._finished("export_stacks")
        return self.events().export_stacks(path, metric)
