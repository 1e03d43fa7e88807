"""``pyad.utils.benchmark``: timing of Python statements, as ``torch.utils.benchmark``
(its Python half: no C++ statements, Callgrind or fuzzers).

A :class:`Timer` wraps ``timeit.Timer`` with torch's defaults: one thread
(``num_threads``) while timing, a warm-up run, and the time *per run* in a
:class:`Measurement` (``mean``, ``median``, ``iqr``, ``times``), whose ``repr`` reads as
torch's. :meth:`Timer.blocked_autorange` picks a block size whose timer overhead is
negligible and takes blocks until ``min_run_time`` has passed;
:meth:`Timer.adaptive_autorange` stops once the IQR is a small fraction of the median.
:class:`Compare` prints many measurements as one table, rows by ``num_threads``, ``env``
and ``sub_label``, columns by ``description``.

>>> import pyad
>>> from pyad.utils import benchmark
>>> m = benchmark.Timer("x.sum()", globals={"x": pyad.ones(10)}).timeit(100)
>>> m.number_per_run, len(m.times), m.mean > 0
(100, 1, True)
"""
import collections
import contextlib
import dataclasses
import enum
import itertools
import math
import operator
import textwrap
import timeit as _timeit

import numpy as np

import pyad

__all__ = ["Timer", "Measurement", "TaskSpec", "Compare", "Colorize", "select_unit",
           "unit_to_english", "trim_sigfig", "ordered_unique", "set_torch_threads"]

_MAX_SIGNIFICANT_FIGURES = 4
_MIN_CONFIDENCE_INTERVAL = 25e-9      # 25 ns
_IQR_WARN_THRESHOLD = 0.1
_IQR_GROSS_WARN_THRESHOLD = 0.25


@dataclasses.dataclass(init=True, repr=False, eq=True, frozen=True)
class TaskSpec:
    """What was timed: the statement, its setup and the labels that group it."""

    stmt: str
    setup: str
    global_setup: str = ""
    label: str = None
    sub_label: str = None
    description: str = None
    env: str = None
    num_threads: int = 1

    @property
    def title(self):
        """The first line of a Measurement's repr."""
        sub = (": %s" % self.sub_label) if self.sub_label else ""
        if self.label is not None:
            return self.label + sub
        if "\n" not in self.stmt:
            return self.stmt + sub
        return "stmt:%s\n%s" % ((" (%s)" % self.sub_label) if self.sub_label else "",
                                textwrap.indent(self.stmt, "  "))

    def setup_str(self):
        if self.setup == "pass" or not self.setup:
            return ""
        if "\n" in self.setup:
            return "setup:\n%s" % textwrap.indent(self.setup, "  ")
        return "setup: %s" % self.setup

    def summarize(self):
        sections = [self.title, self.description or "", self.setup_str()]
        return "\n".join([s + "\n" if "\n" in s else s for s in sections if s])


_TASKSPEC_FIELDS = tuple(f.name for f in dataclasses.fields(TaskSpec))


@dataclasses.dataclass(init=True, repr=False)
class Measurement:
    """The times of ``number_per_run`` runs of a statement (``raw_times``, one per
    block) and what was timed (``task_spec``, whose fields read as attributes).
    ``times`` are per run; ``median``, ``mean`` and ``iqr`` are of ``times``."""

    number_per_run: int
    raw_times: list
    task_spec: TaskSpec
    metadata: dict = None

    def __post_init__(self):
        self._sorted_times = ()
        self._warnings = ()
        self._median = self._mean = self._p25 = self._p75 = -1.0

    def __getattr__(self, name):
        if name in _TASKSPEC_FIELDS:
            return getattr(self.task_spec, name)
        return super().__getattribute__(name)

    @property
    def times(self):
        return [t / self.number_per_run for t in self.raw_times]

    @property
    def median(self):
        self._lazy_init()
        return self._median

    @property
    def mean(self):
        self._lazy_init()
        return self._mean

    @property
    def iqr(self):
        self._lazy_init()
        return self._p75 - self._p25

    @property
    def significant_figures(self):
        """The digits of the median the spread of the middle half supports (1 to 4)."""
        self._lazy_init()
        n = len(self._sorted_times)
        middle = self._sorted_times[n // 4:int(math.ceil(3 * n / 4))]
        std = float(np.std(middle))
        interval = max(1.645 * std / math.sqrt(len(middle)), _MIN_CONFIDENCE_INTERVAL)
        figures = int(math.floor(math.log10(self._median / interval)))
        return min(max(figures, 1), _MAX_SIGNIFICANT_FIGURES)

    @property
    def has_warnings(self):
        self._lazy_init()
        return bool(self._warnings)

    def _lazy_init(self):
        if self.raw_times and not self._sorted_times:
            self._sorted_times = tuple(sorted(self.times))
            values = np.asarray(self._sorted_times, dtype=np.float64)
            self._median = float(np.quantile(values, 0.5))
            self._mean = float(values.mean())
            self._p25 = float(np.quantile(values, 0.25))
            self._p75 = float(np.quantile(values, 0.75))

            def add_warning(msg):
                rel_iqr = self.iqr / self.median * 100
                self._warnings += (
                    "  WARNING: Interquartile range is %.1f%% of the median measurement.\n"
                    "           %s" % (rel_iqr, msg),)

            if not self.meets_confidence(_IQR_GROSS_WARN_THRESHOLD):
                add_warning("This suggests significant environmental influence.")
            elif not self.meets_confidence(_IQR_WARN_THRESHOLD):
                add_warning("This could indicate system fluctuation.")

    def meets_confidence(self, threshold=_IQR_WARN_THRESHOLD):
        return self.iqr / self.median < threshold

    @property
    def title(self):
        return self.task_spec.title

    @property
    def env(self):
        # torch's property reads a misspelt attribute and falls back to the TaskSpec's
        # env (None when not given); the same here, so tables group alike
        return self.task_spec.env

    @property
    def as_row_name(self):
        return self.sub_label or self.stmt or "[Unknown]"

    def __repr__(self):
        self._lazy_init()
        skip = "MEASUREMENT_REPR_SKIP_LINE"
        n = len(self._sorted_times)
        unit, scale = select_unit(self._median)
        lines = [
            object.__repr__(self),
            self.task_spec.summarize(),
            "  %s%.2f %s" % ("Median: " if n > 1 else "", self._median / scale, unit),
            "  %sIQR:    %.2f %s (%.2f to %.2f)" % ("" if n >= 4 else skip, self.iqr / scale,
                                                 unit, self._p25 / scale, self._p75 / scale),
            "  %d measurement%s, %d runs %s %d thread%s" % (
                n, "s" if n > 1 else "", self.number_per_run,
                "per measurement," if n > 1 else ",", self.num_threads,
                "s" if self.num_threads > 1 else ""),
            "\n".join(self._warnings),
        ]
        text = "\n".join(lines).strip()
        return "\n".join(line for line in text.splitlines() if skip not in line)

    @staticmethod
    def merge(measurements):
        """One Measurement per TaskSpec, holding the per-run times of all of them."""
        grouped = collections.defaultdict(list)
        for m in measurements:
            grouped[m.task_spec].append(m)
        return [Measurement(number_per_run=1,
                            raw_times=[t for m in group for t in m.times],
                            task_spec=spec, metadata=None)
                for spec, group in grouped.items()]


def select_unit(t):
    """``(unit, scale)`` to print ``t`` seconds: ns, us, ms or s."""
    unit = {-3: "ns", -2: "us", -1: "ms"}.get(int(math.log10(t) // 3), "s")
    return unit, {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1}[unit]


def unit_to_english(u):
    return {"ns": "nanosecond", "us": "microsecond", "ms": "millisecond", "s": "second"}[u]


def trim_sigfig(x, n):
    """``x`` rounded to ``n`` significant figures."""
    if n != int(n):
        raise AssertionError("Number of significant figures must be an integer")
    magnitude = int(math.ceil(math.log10(abs(x))))
    scale = 10 ** (magnitude - n)
    return float(np.round(x / scale) * scale)


def ordered_unique(elements):
    return list(dict.fromkeys(elements))


@contextlib.contextmanager
def set_torch_threads(n):
    """Run the body with ``pyad.set_num_threads(n)``."""
    prior = pyad.get_num_threads()
    try:
        pyad.set_num_threads(n)
        yield
    finally:
        pyad.set_num_threads(prior)


class Timer:
    """Time the Python statement ``stmt`` after ``setup``, both run in ``globals``
    (which gets ``torch`` and ``pyad``, both pyad, unless it names them), with
    ``num_threads`` threads. ``label``, ``sub_label``, ``description`` and ``env``
    annotate the Measurements and group them in :class:`Compare`."""

    _timer_cls = _timeit.Timer

    def __init__(self, stmt="pass", setup="pass", global_setup="",
                 timer=_timeit.default_timer, globals=None, label=None, sub_label=None,
                 description=None, env=None, num_threads=1, language="python"):
        if not isinstance(stmt, str):
            raise ValueError("Timer(): currently only a `str` stmt is supported.")
        if language not in ("python", "py") and getattr(language, "value", None) != "python":
            raise ValueError("Timer(): only Python statements are supported, got language "
                             "%r" % (language,))
        if global_setup:
            raise ValueError("Timer(): global_setup is C++ only, got `%s`. Most likely this "
                             "code can simply be moved to `setup`." % global_setup)
        self._globals = dict(globals or {})
        self._globals.setdefault("torch", pyad)
        self._globals.setdefault("pyad", pyad)
        stmt = textwrap.dedent(stmt)
        stmt = (stmt[1:] if stmt and stmt[0] == "\n" else stmt).rstrip()
        setup = textwrap.dedent(setup)
        setup = (setup[1:] if setup and setup[0] == "\n" else setup).rstrip()
        self._timer = self._timer_cls(stmt=stmt, setup=setup, timer=timer,
                                      globals=self._globals)
        self._task_spec = TaskSpec(stmt=stmt, setup=setup, global_setup=global_setup,
                                   label=label, sub_label=sub_label, description=description,
                                   env=env, num_threads=num_threads)

    def _timeit(self, number):
        # never 0 (a zero median would break the statistics)
        return max(self._timer.timeit(number), 1e-9)

    def timeit(self, number=1000000):
        """One Measurement of ``number`` runs, after a warm-up of ``number // 100``."""
        with set_torch_threads(self._task_spec.num_threads):
            self._timeit(number=max(int(number // 100), 2))
            return Measurement(number_per_run=number, raw_times=[self._timeit(number)],
                               task_spec=self._task_spec)

    def repeat(self, repeat=-1, number=-1):
        raise NotImplementedError("Timer.repeat(): see `Timer.blocked_autorange.`")

    def autorange(self, callback=None):
        raise NotImplementedError("Timer.autorange(): see `Timer.blocked_autorange.`")

    def _measurement_loop(self, number, stop_hook, min_run_time, max_run_time=None,
                          callback=None):
        total, can_stop, times = 0.0, False, []
        with set_torch_threads(self._task_spec.num_threads):
            while total < min_run_time or not can_stop:
                spent = self._timeit(number)
                times.append(spent)
                total += spent
                if callback:
                    callback(number, spent)
                can_stop = stop_hook(times)
                if max_run_time and total > max_run_time:
                    break
        return times

    def _estimate_block_size(self, min_run_time):
        with set_torch_threads(self._task_spec.num_threads):
            overhead = float(np.median([self._timeit(0) for _ in range(5)]))
            number = 1
            while True:
                taken = self._timeit(number)
                if overhead / taken <= 1e-4 and taken >= min_run_time / 1000:
                    break
                if taken > min_run_time or number * 10 > 2147483647:
                    break
                number *= 10
        return number

    def blocked_autorange(self, callback=None, min_run_time=0.2):
        """Blocks of a block size whose timer overhead is negligible, until
        ``min_run_time`` seconds have been spent."""
        number = self._estimate_block_size(min_run_time)
        times = self._measurement_loop(number, lambda times: True, min_run_time,
                                       callback=callback)
        return Measurement(number_per_run=number, raw_times=times, task_spec=self._task_spec)

    def adaptive_autorange(self, threshold=0.1, *, min_run_time=0.01, max_run_time=10.0,
                           callback=None):
        """Blocks until the IQR is below ``threshold`` of the median (after at least
        four blocks and ``min_run_time``), or ``max_run_time`` has passed."""
        number = self._estimate_block_size(min_run_time=0.05)

        def stop_hook(times):
            if len(times) > 3:
                return Measurement(number_per_run=number, raw_times=times,
                                   task_spec=self._task_spec).meets_confidence(threshold)
            return False
        times = self._measurement_loop(number, stop_hook, min_run_time, max_run_time,
                                       callback=callback)
        return Measurement(number_per_run=number, raw_times=times, task_spec=self._task_spec)

    def collect_callgrind(self, *args, **kwargs):
        raise NotImplementedError("Timer.collect_callgrind(): pyad has no Callgrind "
                                  "support")


# -- Compare ---------------------------------------------------------------------------

BEST = "\033[92m"
GOOD = "\033[34m"
BAD = "\033[2m\033[91m"
VERY_BAD = "\033[31m"
BOLD = "\033[1m"
TERMINATE = "\033[0m"


class Colorize(enum.Enum):
    NONE = "none"
    COLUMNWISE = "columnwise"
    ROWWISE = "rowwise"


class _Column:
    def __init__(self, grouped_results, time_scale, trim, highlight_warnings):
        self._grouped_results = grouped_results
        flat = [r for r in itertools.chain.from_iterable(grouped_results)]
        self._trim = trim
        self._highlight = highlight_warnings and any(r.has_warnings for r in flat if r)
        leading = [int(math.ceil(math.log10(r.median / time_scale))) if r else None
                   for r in flat]
        unit_digits = max(d for d in leading if d is not None)
        decimals = (min(max(m.significant_figures - d, 0) for d, m in zip(leading, flat)
                        if m is not None and d is not None) if trim else 1)
        length = unit_digits + decimals + (1 if decimals else 0)
        self._template = "{:>%d.%df}{:>%d}" % (length, decimals, 7 if self._highlight else 0)

    def get_results_for(self, group):
        return self._grouped_results[group]

    def num_to_str(self, value, sigfigs, spread):
        if value is None:
            return " " * len(self.num_to_str(1, sigfigs, None))
        if self._trim:
            value = trim_sigfig(value, sigfigs)
        return self._template.format(
            value, " (! %.0f%%)" % (spread * 100) if self._highlight and spread is not None
            else "")


class _Row:
    def __init__(self, results, row_group, render_env, env_str_len, time_scale, colorize,
                 num_threads=None):
        self._results = results
        self._row_group = row_group
        self._render_env = render_env
        self._env_str_len = env_str_len
        self._time_scale = time_scale
        self._colorize = colorize
        self._columns = ()
        self._num_threads = num_threads

    def as_column_strings(self):
        concrete = [r for r in self._results if r is not None]
        env = ("(%s)" % concrete[0].env) if self._render_env else ""
        out = ["  " + env.ljust(self._env_str_len + 4) + concrete[0].as_row_name]
        for m, col in zip(self._results, self._columns):
            if m is None:
                out.append(col.num_to_str(None, 1, None))
            else:
                out.append(col.num_to_str(m.median / self._time_scale, m.significant_figures,
                                          m.iqr / m.median if m.has_warnings else None))
        return out

    @staticmethod
    def color_segment(segment, value, best):
        if value <= best * 1.01 or value <= best + 100e-9:
            return BEST + BOLD + segment + TERMINATE * 2
        if value <= best * 1.1:
            return GOOD + BOLD + segment + TERMINATE * 2
        if value >= best * 5:
            return VERY_BAD + BOLD + segment + TERMINATE * 2
        if value >= best * 2:
            return BAD + segment + TERMINATE * 2
        return segment

    def row_separator(self, width):
        if self._num_threads is None:
            return []
        return [("%d threads: " % self._num_threads).ljust(width, "-")]

    def finalize_column_strings(self, strings, widths):
        best = [-1 for _ in strings]
        if self._colorize == Colorize.ROWWISE:
            row_min = min(r.median for r in self._results if r is not None)
            best = [row_min for _ in strings]
        elif self._colorize == Colorize.COLUMNWISE:
            best = []
            for column in self._columns:
                medians = [r.median for r in column.get_results_for(self._row_group)
                           if r is not None]
                best.append(min(medians) if medians else None)
        out = [strings[0].ljust(widths[0])]
        for s, w, result, b in zip(strings[1:], widths[1:], self._results, best):
            s = s.center(w)
            if self._colorize != Colorize.NONE and result is not None and b is not None:
                s = self.color_segment(s, result.median, b)
            out.append(s)
        return out


class _Table:
    def __init__(self, results, colorize, trim, highlight_warnings):
        if len({r.label for r in results}) != 1:
            raise AssertionError("All results must share the same label")
        self.results = results
        self._colorize = colorize
        self._trim = trim
        self._highlight = highlight_warnings
        self.label = results[0].label
        self.time_unit, self.time_scale = select_unit(min(r.median for r in results))
        self.row_keys = ordered_unique([self.row_fn(r) for r in results])
        self.row_keys.sort(key=operator.itemgetter(slice(2)))
        self.column_keys = ordered_unique([r.description for r in results])
        self.rows, self.columns = self._populate()

    @staticmethod
    def row_fn(m):
        return m.num_threads, m.env, m.as_row_name

    def _populate(self):
        ordered = [[None for _ in self.column_keys] for _ in self.row_keys]
        row_pos = {k: i for i, k in enumerate(self.row_keys)}
        col_pos = {k: i for i, k in enumerate(self.column_keys)}
        for r in self.results:
            ordered[row_pos[self.row_fn(r)]][col_pos[r.description]] = r
        envs = {r.env for r in self.results}
        render_env = len(envs) > 1
        env_len = max(len(e) for e in envs) if render_env else 0
        rows, groups = [], []
        prior_threads, prior_env, group = -1, "", -1
        for (threads, env, _), row in zip(self.row_keys, ordered):
            transition = threads != prior_threads
            if transition:
                prior_threads, prior_env = threads, ""
                group += 1
                groups.append([])
            rows.append(_Row(row, group, render_env and env != prior_env, env_len,
                             self.time_scale, self._colorize,
                             threads if transition else None))
            groups[-1].append(row)
            prior_env = env
        columns = tuple(_Column([tuple(row[i] for row in g) for g in groups], self.time_scale,
                                self._trim, self._highlight)
                        for i in range(len(self.column_keys)))
        for row in rows:
            row._columns = columns
        return tuple(rows), columns

    def render(self):
        string_rows = [[""] + [k if k is not None else "None" for k in self.column_keys]]
        string_rows.extend(r.as_column_strings() for r in self.rows)
        n = max(len(r) for r in string_rows)
        for r in string_rows:
            r.extend("" for _ in range(n - len(r)))
        widths = [max(len(s) for s in col) for col in zip(*string_rows)]
        lines = ["  |  ".join(s.center(w) for s, w in zip(string_rows[0], widths))]
        width = len(lines[0])
        for strings, row in zip(string_rows[1:], self.rows):
            lines.extend(row.row_separator(width))
            lines.append("  |  ".join(row.finalize_column_strings(strings, widths)))
        warn = self._highlight and any(r.has_warnings for r in self.results)
        return ("[%s]\n%s\n\nTimes are in %ss (%s).\n%s" % (
            (" " + (self.label or "") + " ").center(width - 2, "-"), "\n".join(lines),
            unit_to_english(self.time_unit), self.time_unit,
            "(! XX%) Measurement has high variance, where XX is the IQR / median * 100.\n"
            if warn else ""))


class Compare:
    """A table of Measurements per ``label``: a row per ``(num_threads, env,
    sub_label)`` (threads as separators), a column per ``description``, the median
    of each cell."""

    def __init__(self, results):
        self._results = []
        self.extend_results(results)
        self._trim_significant_figures = False
        self._colorize = Colorize.NONE
        self._highlight_warnings = False

    def __str__(self):
        return "\n".join(self._render())

    def extend_results(self, results):
        for r in results:
            if not isinstance(r, Measurement):
                raise ValueError("Compare.extend_results(): Expected an instance of "
                                 "`Measurement`, got %s instead." % type(r))
        self._results.extend(results)

    def trim_significant_figures(self):
        self._trim_significant_figures = True

    def colorize(self, rowwise=False):
        self._colorize = Colorize.ROWWISE if rowwise else Colorize.COLUMNWISE

    def highlight_warnings(self):
        self._highlight_warnings = True

    def print(self):
        print(str(self))

    def _render(self):
        grouped = collections.defaultdict(list)
        for r in Measurement.merge(self._results):
            grouped[r.label].append(r)
        return [_Table(g, self._colorize, self._trim_significant_figures,
                       self._highlight_warnings).render() for g in grouped.values()]
