"""pyad.utils.benchmark against torch.utils.benchmark (torch 2.13): Measurements built
from the same raw times have the same statistics, repr and Compare tables (plain,
trimmed, colorized, with envs and thread groups); real Timers give Measurements of the
right structure with positive times (no timing assertions)."""
import pickle
import re

import numpy as np
import pytest

import pyad
from pyad.utils import benchmark

torch = pytest.importorskip("torch")
import torch.utils.benchmark as tbench  # noqa: E402


def _spec(lib, **kw):
    base = dict(stmt="batched_dot(x, x)", setup="pass")
    base.update(kw)
    return lib.TaskSpec(**base) if lib is benchmark else \
        tbench.utils.common.TaskSpec(**base)


def _pair(raw, number=100, **kw):
    t = tbench.Measurement(number_per_run=number, raw_times=list(raw),
                           task_spec=_spec(tbench, **kw))
    p = benchmark.Measurement(number_per_run=number, raw_times=list(raw),
                              task_spec=_spec(benchmark, **kw))
    return t, p


def _strip_object(text):
    return re.sub(r"<[\w.]+Measurement object at 0x[0-9a-f]+>", "<Measurement>", text)


RAWS = [
    [1.234e-3],
    [2.1e-2, 2.3e-2],
    [5.0e-5, 5.2e-5, 4.9e-5, 5.1e-5, 9.0e-5],
    list(np.random.default_rng(0).uniform(1.0, 1.05, 17)),
    list(np.random.default_rng(1).uniform(3e-4, 9e-4, 8)),      # a wide IQR: warnings
]


@pytest.mark.parametrize("raw", RAWS)
@pytest.mark.parametrize("kw", [
    dict(),
    dict(label="Batched dot", sub_label="[64, 64]", description="bmm", num_threads=4),
    dict(setup="from __main__ import f\nx = torch.ones(3)", label="L"),
    dict(stmt="y = x * 2\nz = y.sum()", sub_label="two lines"),
])
def test_measurement_statistics_and_repr(raw, kw):
    t, p = _pair(raw, **kw)
    for name in ("mean", "median", "iqr"):
        assert getattr(p, name) == pytest.approx(getattr(t, name), rel=1e-12, abs=1e-20)
    assert p.times == pytest.approx(t.times, rel=1e-15)
    assert p.number_per_run == t.number_per_run == 100
    assert p.significant_figures == t.significant_figures
    assert p.has_warnings == t.has_warnings
    assert p.meets_confidence() == t.meets_confidence()
    assert p.title == t.title and p.as_row_name == t.as_row_name
    assert p.label == t.label and p.num_threads == t.num_threads
    assert _strip_object(repr(p)) == _strip_object(repr(t))
    assert repr(p).startswith("<pyad.utils.benchmark.Measurement object at 0x")


def test_measurement_pickles_and_merges():
    t, p = _pair(RAWS[3], label="L")
    q = pickle.loads(pickle.dumps(p))
    assert q.raw_times == p.raw_times and q.task_spec == p.task_spec
    assert _strip_object(repr(q)) == _strip_object(repr(p))
    t2, p2 = _pair(RAWS[2], number=10, label="L")
    tm = tbench.Measurement.merge([t, t2])
    pm = benchmark.Measurement.merge([p, p2])
    assert len(pm) == len(tm) == 1
    assert pm[0].number_per_run == 1
    assert pm[0].times == pytest.approx(tm[0].times)


def test_select_unit_and_trim_sigfig():
    from torch.utils.benchmark.utils import common
    for t in (3e-10, 2.5e-9, 7e-7, 4e-4, 0.3, 12.0):
        assert benchmark.select_unit(t) == common.select_unit(t)
    for x, n in ((123.456, 2), (0.0012345, 3), (98765.0, 1)):
        assert benchmark.trim_sigfig(x, n) == pytest.approx(common.trim_sigfig(x, n))


def _grid(lib_module, make, sizes=((1, 1), (64, 64), (1024, 10)), threads=(1, 4)):
    rng = np.random.default_rng(7)
    out = []
    for n_threads in threads:
        for b, n in sizes:
            for desc, scale in (("mul/sum", 1.0), ("bmm", 2.5)):
                raw = list(rng.uniform(0.9, 1.1, 6) * scale * 1e-6 * b * n / 10 * 100)
                out.append(make(raw, label="Batched dot", sub_label="[%d, %d]" % (b, n),
                                description=desc, num_threads=n_threads,
                                stmt="batched_dot_%s(x, x)" % desc))
    return out


@pytest.mark.parametrize("trim", [False, True])
@pytest.mark.parametrize("colorize", [None, "columnwise", "rowwise"])
def test_compare_table_matches_torch(trim, colorize):
    pairs = _grid(None, lambda raw, **kw: _pair(raw, **kw))
    tc = tbench.Compare([t for t, _ in pairs])
    pc = benchmark.Compare([p for _, p in pairs])
    for c in (tc, pc):
        if trim:
            c.trim_significant_figures()
        if colorize:
            c.colorize(rowwise=colorize == "rowwise")
    assert str(pc) == str(tc)
    assert "1 threads: " in str(pc) and "4 threads: " in str(pc)
    assert "Times are in nanoseconds (ns)." in str(pc)


def test_compare_envs_labels_and_missing_cells(capsys):
    pairs = []
    for env in ("environment A: mul/sum", "environment B: bmm"):
        for i, (b, n) in enumerate(((1, 1), (1024, 10000), (10000, 1))):
            raw = [(i + 1) * 1e-5 * (2 if "B" in env else 1)] * 3
            pairs.append(_pair(raw, stmt="batched_dot(x, x)", label="Batched dot",
                               description="[%d, %d]" % (b, n), env=env, num_threads=1))
    pairs.append(_pair([3e-3], stmt="other", label="Other label", description="only"))
    pairs.append(_pair([4e-3, 4.1e-3], stmt="s", label="Batched dot", sub_label="extra",
                       description="[1, 1]", num_threads=1, env="environment A: mul/sum"))
    tc = tbench.Compare([t for t, _ in pairs])
    pc = benchmark.Compare([p for _, p in pairs])
    tc.trim_significant_figures()
    pc.trim_significant_figures()
    assert str(pc) == str(tc)
    assert "(environment A: mul/sum)" in str(pc)
    pc.print()
    assert capsys.readouterr().out == str(tc) + "\n"
    with pytest.raises(ValueError, match="Expected an instance of `Measurement`"):
        benchmark.Compare([1])
    # the recipe's pickle round trip
    again = benchmark.Compare(pickle.loads(pickle.dumps([p for _, p in pairs])))
    again.trim_significant_figures()
    assert str(again) == str(pc)


def test_compare_highlight_warnings():
    pairs = [_pair(RAWS[4], label="L", description="a"), _pair(RAWS[3], label="L",
                                                              description="b")]
    tc = tbench.Compare([t for t, _ in pairs])
    pc = benchmark.Compare([p for _, p in pairs])
    tc.highlight_warnings()
    pc.highlight_warnings()
    assert str(pc) == str(tc)
    assert "(! XX%)" in str(pc)


def _dot(a, b):
    return a.mul(b).sum(-1)


def test_timer_timeit_structure():
    x = pyad.randn(100, 8)
    timer = benchmark.Timer(stmt="f(x, x)", globals={"x": x, "f": _dot}, label="dot",
                            sub_label="mul/sum", description="d", num_threads=2)
    m = timer.timeit(50)
    assert isinstance(m, benchmark.Measurement)
    assert m.number_per_run == 50 and len(m.raw_times) == 1 and len(m.times) == 1
    assert m.mean > 0 and m.median > 0 and m.iqr == 0 and m.mean == m.median
    assert m.num_threads == 2 and m.label == "dot" and m.description == "d"
    text = repr(m)
    assert text.splitlines()[1:3] == ["dot: mul/sum", "d"]
    assert re.search(r"\n  [\d.]+ (ns|us|ms|s)\n  1 measurement, 50 runs , 2 threads$", text)


def test_timer_restores_thread_count():
    before = pyad.get_num_threads()
    benchmark.Timer("pass", num_threads=3).timeit(10)
    assert pyad.get_num_threads() == before


def test_blocked_and_adaptive_autorange():
    x = pyad.ones(64, 64)
    timer = benchmark.Timer("x.sum()", globals={"x": x})
    calls = []
    m = timer.blocked_autorange(callback=lambda n, t: calls.append((n, t)),
                                min_run_time=0.02)
    assert len(m.raw_times) == len(calls) >= 1
    assert all(n == m.number_per_run for n, _ in calls)
    assert sum(m.raw_times) >= 0.02
    assert m.number_per_run >= 1 and all(t > 0 for t in m.times)
    assert m.median > 0 and m.mean > 0 and m.iqr >= 0
    a = timer.adaptive_autorange(threshold=0.5, min_run_time=0.01, max_run_time=2.0)
    assert len(a.raw_times) >= 4 or sum(a.raw_times) > 2.0
    assert a.median > 0


def test_timer_setup_globals_and_torch_name():
    # the statement sees ``torch`` (pyad) and the setup's names
    m = benchmark.Timer("y = torch.ones(3) + z", setup="z = torch.zeros(3)").timeit(5)
    assert m.setup == "z = torch.zeros(3)" and m.stmt == "y = torch.ones(3) + z"
    assert "setup: z = torch.zeros(3)" in repr(m)
    with pytest.raises(ValueError, match="only a `str` stmt is supported"):
        benchmark.Timer(lambda: None)
    with pytest.raises(ValueError, match="global_setup is C\\+\\+ only"):
        benchmark.Timer("pass", global_setup="int x;")
    with pytest.raises(NotImplementedError, match="blocked_autorange"):
        benchmark.Timer("pass").autorange()
    with pytest.raises(NotImplementedError, match="blocked_autorange"):
        benchmark.Timer("pass").repeat()


def test_namespace():
    assert pyad.utils.benchmark is benchmark
    for name in ("Timer", "Measurement", "Compare"):
        assert name in benchmark.__all__ and hasattr(tbench, name)
