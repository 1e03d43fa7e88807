"""pyad.autograd.profiler: events, nesting, tables, traces, stacks, nvprof."""
import inspect
import json
import os
import sqlite3
import threading

import numpy as np
import pytest

import pyad
from pyad.autograd import profiler
from pyad.autograd.profiler import profile, record_function


def _x(n=4):
    return pyad.Variable(np.linspace(0.1, 1.0, n), requires_grad=True)


def names(events):
    return [e.name for e in events]


def test_forward_ops_and_backward_nodes_with_sequence_numbers():
    x = _x()
    with profile() as prof:
        y = (x * 2).tanh().sum()
        y.backward()
    events = prof.function_events
    assert names(events) == ["mul", "tanh", "sum", "_GraphRoot", "SumBackward",
                             "TanhBackward", "MulBackward", "AccumulateGrad"]
    fwd = {e.name: e for e in events if e.scope == "forward"}
    bwd = {e.name: e for e in events if e.scope == "backward"}
    assert fwd["mul"].sequence_nr == y.grad_fn.next_functions[0][0] \
        .next_functions[0][0]._sequence_nr()
    assert bwd["MulBackward"].sequence_nr == fwd["mul"].sequence_nr
    assert bwd["TanhBackward"].sequence_nr == fwd["tanh"].sequence_nr
    assert bwd["SumBackward"].sequence_nr == fwd["sum"].sequence_nr
    assert fwd["mul"].sequence_nr < fwd["tanh"].sequence_nr < fwd["sum"].sequence_nr
    assert bwd["AccumulateGrad"].sequence_nr == -1
    assert [e.id for e in events] == list(range(1, len(events) + 1))
    assert all(e.thread == threading.get_native_id() for e in events)
    assert all(e.cpu_parent is None for e in events)
    for e in events:
        assert e.time_range.start <= e.time_range.end
    starts = [e.time_range.start for e in events]
    assert starts == sorted(starts)
    assert not any(e.is_async for e in events)


def test_ops_without_graph_have_no_sequence_number():
    x = pyad.Variable(np.ones(3))
    with profile() as prof:
        x * 2
    assert [(e.name, e.sequence_nr) for e in prof.function_events] == [("mul", -1)]


def test_op_calling_an_op_nests_it_and_self_time_is_total_minus_children():
    x = pyad.Variable(np.ones((2, 3)), requires_grad=True)
    with profile() as prof:
        x.t()               # t() calls permute()
    t, permute = prof.function_events
    assert (t.name, permute.name) == ("t", "permute")
    assert permute.cpu_parent is t and t.cpu_children == [permute]
    assert t.time_range.start <= permute.time_range.start
    assert permute.time_range.end <= t.time_range.end
    assert t.self_cpu_time_total == pytest.approx(t.cpu_time_total - permute.cpu_time_total)
    assert 0 <= t.self_cpu_time_total <= t.cpu_time_total
    # the outer op's sequence number is that of the node behind its output
    assert permute.sequence_nr == t.sequence_nr >= 0


def test_record_function_nests_ops_and_itself_and_works_as_decorator():
    x = _x()

    @record_function("decorated")
    def inner(v):
        return v * 3

    with profile() as prof:
        with record_function("outer"):
            y = x + 1
            with record_function("middle"):
                z = inner(y)
        w = z.sum()
    ev = {e.name: e for e in prof.function_events}
    assert names(prof.function_events) == ["outer", "add", "middle", "decorated", "mul", "sum"]
    assert ev["outer"].cpu_parent is None and ev["sum"].cpu_parent is None
    assert ev["add"].cpu_parent is ev["outer"]
    assert ev["middle"].cpu_parent is ev["outer"]
    assert ev["decorated"].cpu_parent is ev["middle"]
    assert ev["mul"].cpu_parent is ev["decorated"]
    assert ev["outer"].scope == "user" and ev["outer"].sequence_nr == -1
    for e in prof.function_events:
        assert e.self_cpu_time_total <= e.cpu_time_total
        assert sum(c.cpu_time_total for c in e.cpu_children) <= e.cpu_time_total
    assert w.item() == pytest.approx(float(((x.data + 1) * 3).sum()))
    # outside a profile record_function does nothing
    with record_function("nothing"):
        pass
    assert inner(x).shape == (4,)


def test_backward_of_create_graph_nests_ops_under_nodes():
    x = _x()
    with profile() as prof:
        y = (x * x).sum()
        (g,) = pyad.autograd.grad(y, x, create_graph=True)
    mulb = [e for e in prof.function_events if e.name == "MulBackward"]
    assert len(mulb) == 1
    assert {c.name for c in mulb[0].cpu_children} == {"mul"}
    assert all(c.cpu_parent is mulb[0] for c in mulb[0].cpu_children)
    np.testing.assert_allclose(g.data, 2 * x.data)


def test_custom_function_forward_is_an_event():
    class Twice(pyad.autograd.Function):
        @staticmethod
        def forward(ctx, v):
            return v * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2

    x = _x()
    with profile() as prof:
        Twice.apply(x).sum().backward()
    ev = prof.function_events
    assert names(ev)[:2] == ["Twice", "mul"]
    assert ev[1].cpu_parent is ev[0]
    bwd = [e for e in ev if e.scope == "backward" and e.name.startswith("Twice")]
    assert len(bwd) == 1 and bwd[0].sequence_nr == ev[0].sequence_nr >= 0


@pytest.mark.parametrize("bridge", ["torch", "jax"])
def test_bridged_call_is_one_event_paired_with_its_backward_node(bridge):
    framework = pytest.importorskip(bridge)
    interop = pytest.importorskip("pyad.interop")
    if bridge == "torch":
        def sine(t):
            return framework.sin(t) * 2
        wrapped, node = interop.from_torch(sine), "TorchFunctionBackward"
    else:
        import jax.numpy as jnp

        def sine(t):
            return jnp.sin(t) * 2
        wrapped, node = interop.from_jax(sine), "JaxFunctionBackward"
    x = pyad.Variable(np.linspace(0.1, 1.0, 4).astype(np.float32), requires_grad=True)
    wrapped(x).sum().backward()                # (outside the profiler: traced once)
    x.grad = None
    with profile() as prof:
        y = wrapped(x)
        y.sum().backward()
    ev = prof.function_events
    assert names(ev) == ["from_%s(sine)" % bridge, "sum", "_GraphRoot", "SumBackward",
                         node, "AccumulateGrad"]
    fwd, bwd = ev[0], ev[4]
    assert fwd.scope == "forward" and bwd.scope == "backward"
    assert fwd.sequence_nr == bwd.sequence_nr == y.grad_fn._sequence_nr() >= 0
    np.testing.assert_allclose(x.grad.data, 2 * np.cos(x.data), rtol=1e-6)
    with pyad.no_grad(), profile() as prof:    # nothing recorded: no sequence number
        wrapped(x)
    assert names(prof.function_events) == ["from_%s(sine)" % bridge]
    assert prof.function_events[0].sequence_nr == -1


def test_key_averages_counts_and_totals():
    x = _x()
    with profile() as prof:
        for _ in range(3):
            y = (x * 2 + 1).sum()
        y.backward()
    avg = {a.key: a for a in prof.key_averages()}
    assert avg["mul"].count == 3 and avg["add"].count == 3 and avg["sum"].count == 3
    assert avg["MulBackward"].count == 1 and avg["AddBackward"].count == 1
    events = prof.function_events
    mul_events = [e for e in events if e.name == "mul"]
    assert avg["mul"].cpu_time_total == pytest.approx(sum(e.cpu_time_total for e in mul_events))
    assert avg["mul"].cpu_time == pytest.approx(avg["mul"].cpu_time_total / 3)
    for a in avg.values():
        assert a.self_cpu_time_total <= a.cpu_time_total + 1e-9
    total = prof.total_average()
    assert total.key == "Total" and total.count == len(events)
    assert prof.self_cpu_time_total == pytest.approx(sum(e.self_cpu_time_total for e in events))
    # no nesting here: self time equals total time
    assert prof.self_cpu_time_total == pytest.approx(sum(e.cpu_time_total for e in events))


def test_record_shapes_and_group_by_input_shape():
    a = pyad.Variable(np.ones((2, 3)))
    b = pyad.Variable(np.ones((3, 4)))
    with profile(record_shapes=True) as prof:
        pyad.matmul(a, b)
        pyad.matmul(b.t(), a.t())
        a * 2.0
    ev = prof.function_events
    assert ev[0].input_shapes == [[2, 3], [3, 4]]
    assert ev[-1].input_shapes == [[2, 3], []]
    groups = prof.key_averages(group_by_input_shape=True)
    matmuls = sorted((g.input_shapes, g.count) for g in groups if g.key == "matmul")
    assert matmuls == [([[2, 3], [3, 4]], 1), ([[4, 3], [3, 2]], 1)]
    assert all(g.input_shapes is None for g in prof.key_averages())
    text = groups.table()
    assert "Input Shapes" in text and "[[2, 3], [3, 4]]" in text


def test_profile_memory_counts_output_bytes_self_and_total():
    x = pyad.Variable(np.ones(100))                 # float64: 800 bytes per output
    with profile(profile_memory=True) as prof:
        with record_function("block"):
            y = x * 2
            y.sum()
    block, mul, total = prof.function_events
    assert (mul.cpu_memory_usage, mul.self_cpu_memory_usage) == (800, 800)
    assert (total.cpu_memory_usage, total.self_cpu_memory_usage) == (8, 8)
    assert (block.cpu_memory_usage, block.self_cpu_memory_usage) == (808, 0)
    # an outer op returning its child's array does not count it twice
    z = pyad.Variable(np.ones((10, 10)))
    with profile(profile_memory=True) as prof:
        z.t()
    t, permute = prof.function_events
    assert permute.self_cpu_memory_usage == 800
    assert (t.self_cpu_memory_usage, t.cpu_memory_usage) == (0, 800)
    text = prof.key_averages().table()
    assert "CPU Mem" in text and "Self CPU Mem" in text and "800 B" in text


def test_with_stack_contains_this_file_and_line_and_export_stacks(tmp_path):
    x = _x()
    with profile(with_stack=True) as prof:
        x * 2  # the line the stack must show
    line = inspect.currentframe().f_lineno - 1
    (mul,) = prof.function_events
    assert mul.stack[0] == "%s(%d): %s" % (__file__, line, "test_with_stack_contains_this_"
                                           "file_and_line_and_export_stacks")
    path = tmp_path / "stacks.txt"
    prof.export_stacks(str(path), "self_cpu_time_total")
    lines = path.read_text().splitlines()
    assert len(lines) <= 1
    if lines:                                       # a 0 µs event is left out, as torch
        frames, value = lines[0].rsplit(" ", 1)
        assert int(value) == int(mul.self_cpu_time_total) > 0
        frames = frames.split(";")
        assert frames[-1] == "mul"
        assert frames[-2] == mul.stack[0].replace(" ", "_")
        assert " " not in lines[0][:-len(value) - 1]
    with pytest.raises(ValueError, match="metric"):
        prof.export_stacks(str(path), "wall_time")


def test_export_stacks_format_on_known_events(tmp_path):
    events = profiler.EventList([
        profiler.FunctionEvent(1, "mul", 1, 0.0, 12.6, stack=["a.py(3): f", "b.py(9): <module>"]),
        profiler.FunctionEvent(2, "tanh", 1, 20.0, 25.0, stack=[]),
    ])
    path = tmp_path / "s.txt"
    events.export_stacks(str(path), "self_cpu_time_total")
    assert path.read_text() == "b.py(9):_<module>;a.py(3):_f;mul 12\n"


def test_table_layout_follows_torch():
    x = _x()
    with profile() as prof:
        (x * 2).sum().backward()
    text = prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=3,
                                     header="HEAD")
    lines = text.splitlines()
    assert lines[1] == "HEAD"
    header = lines[3].split()
    assert " ".join(header) == ("Name Self CPU % Self CPU CPU total % CPU total "
                                "CPU time avg # of Calls")
    assert lines[2] == lines[4] == lines[-2] and set(lines[2]) == {"-", " "}
    rows = lines[5:-2]
    assert len(rows) == 3
    selfs = [a.self_cpu_time_total for a in prof.key_averages()]
    assert rows[0].split()[0] == max(prof.key_averages(),
                                     key=lambda a: a.self_cpu_time_total).key
    assert max(selfs) >= 0
    assert lines[-1].startswith("Self CPU time total: ")
    for row in rows:
        assert row.split()[-1] == "1"
        assert row.split()[1].endswith("%")
    # percentages of the self column sum to 100 over all rows
    full = prof.key_averages().table(row_limit=-1).splitlines()[3:-2]
    shares = [float(r.split()[1].rstrip("%")) for r in full]
    assert sum(shares) == pytest.approx(100.0, abs=0.1)
    with pytest.raises(ValueError, match="sort by"):
        prof.table(sort_by="nope")
    assert prof.function_events.table() == prof.table()


def test_chrome_trace_is_valid_with_threads_and_fwdbwd_flows(tmp_path):
    x = _x()
    with profile() as prof:
        y = (x * 2).tanh().sum()
        y.backward()
    path = tmp_path / "trace.json"
    prof.export_chrome_trace(str(path))
    with open(path) as f:
        trace = json.load(f)
    events = trace["traceEvents"]
    slices = [e for e in events if e["ph"] == "X"]
    assert len(slices) == len(prof.function_events)
    for e in slices:
        for key in ("ph", "ts", "dur", "pid", "tid", "name"):
            assert key in e
        assert e["dur"] >= 0
    starts = [e for e in events if e["ph"] == "s"]
    finishes = [e for e in events if e["ph"] == "f"]
    assert all(e["cat"] == "fwdbwd" for e in starts + finishes)
    assert sorted(e["id"] for e in starts) == sorted(e["id"] for e in finishes)
    assert len({e["id"] for e in starts}) == len(starts) == 3     # mul, tanh, sum
    by_id = {e["id"]: e for e in finishes}
    byname = {e["name"]: e for e in slices}
    for s in starts:
        f = by_id[s["id"]]
        assert f["ts"] >= s["ts"]
    flows = {(s["ts"], by_id[s["id"]]["ts"]) for s in starts}
    assert (byname["mul"]["ts"], byname["MulBackward"]["ts"]) in flows
    assert (byname["tanh"]["ts"], byname["TanhBackward"]["ts"]) in flows
    meta = [e for e in events if e["ph"] == "M" and e["name"] == "thread_name"]
    assert [m["tid"] for m in meta] == [threading.get_native_id()]


def test_threads_are_kept_apart(tmp_path):
    barrier = threading.Barrier(2)
    out = {}

    def work(tag):
        v = pyad.Variable(np.ones(3), requires_grad=True)
        barrier.wait()
        with record_function(tag):
            for _ in range(20):
                v = v * 1.0
        out[tag] = threading.get_native_id()

    with profile() as prof:
        threads = [threading.Thread(target=work, args=(t,)) for t in ("A", "B")]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    ev = prof.function_events
    for tag in ("A", "B"):
        (top,) = [e for e in ev if e.name == tag]
        assert top.thread == out[tag]
        mine = [e for e in ev if e.thread == out[tag] and e.name == "mul"]
        assert len(mine) == 20
        assert all(e.cpu_parent is top for e in mine)
        assert top.cpu_children == mine
    path = tmp_path / "t.json"
    prof.export_chrome_trace(str(path))
    trace = json.loads(path.read_text())["traceEvents"]
    tracks = {e["tid"] for e in trace if e["ph"] == "X"}
    assert tracks == {out["A"], out["B"]}


def test_profiler_is_removed_after_an_exception_and_records_the_failing_op():
    x = pyad.Variable(np.ones((2, 3)))
    with pytest.raises(RuntimeError):
        with profile() as prof:
            pyad.matmul(x, x)
    assert names(prof.function_events) == ["matmul"]
    assert pyad._engine._set_profiler(None) is None
    assert profiler._active is None
    with profile() as again:                        # usable again
        x * 2
    assert names(again.function_events) == ["mul"]


def test_nested_profile_raises_and_reentering_raises():
    with profile() as outer:
        with pytest.raises(RuntimeError, match="already enabled"):
            with profile():
                pass
        pyad.ones(2) * 2
    # factories are recorded, as torch's aten::ones
    assert names(outer.function_events) == ["ones", "mul"]
    with pytest.raises(RuntimeError, match="not reentrant"):
        with outer:
            pass
    assert profiler._active is None


def test_results_need_the_block_to_end_and_disabled_records_nothing():
    with profile() as prof:
        with pytest.raises(RuntimeError, match="after the with block"):
            prof.function_events
    assert len(prof.function_events) == 0
    assert prof.table() == ""
    with profile(enabled=False) as off:
        pyad.ones(2) * 2
    assert len(off.function_events) == 0


def test_use_cuda_and_emit_nvtx_raise_clearly_without_a_gpu():
    try:
        import cupy
        has_gpu = cupy.cuda.runtime.getDeviceCount() > 0
    except Exception:
        has_gpu = False
    if has_gpu:
        pytest.skip("a GPU is present")
    with pytest.raises(RuntimeError, match=r"profile\(use_cuda=True\) needs"):
        profile(use_cuda=True)
    with pytest.raises(RuntimeError, match="emit_nvtx needs"):
        profiler.emit_nvtx()
    with profiler.emit_nvtx(enabled=False):
        pyad.ones(2) * 2
    assert profiler._active is None


def test_nvtx_recorder_names_follow_torch():
    pushed = []

    class FakeNvtx:
        @staticmethod
        def RangePush(msg):
            pushed.append(msg)

        @staticmethod
        def RangePop():
            pushed.append(None)

    rec = profiler._NvtxRecorder(FakeNvtx, record_shapes=False)
    pyad._engine._set_profiler(rec)
    profiler._active = rec
    try:
        x = _x()
        y = (x * 2).sum()
        y.backward()
    finally:
        profiler._active = None
        pyad._engine._set_profiler(None)
    mul_seq = int(pushed[0].split("seq = ")[1])
    assert pushed[:2] == ["mul, seq = %d" % mul_seq, None]
    assert "MulBackward, stashed seq = %d" % mul_seq in pushed
    assert pushed.count(None) == len([p for p in pushed if p is not None])


# -- load_nvprof on synthetic nvprof SQLite files -------------------------------------

_KERNEL_COLS = ("cacheConfig BLOB, sharedMemoryConfig INT, registersPerThread INT, "
                "partitionedGlobalCacheRequested INT, partitionedGlobalCacheExecuted INT, "
                "start INT, end INT, completed INT, deviceId INT, contextId INT, "
                "streamId INT, gridX INT, gridY INT, gridZ INT, blockX INT, blockY INT, "
                "blockZ INT, staticSharedMemory INT, dynamicSharedMemory INT, "
                "localMemoryPerThread INT, localMemoryTotal INT, correlationId INT, "
                "gridId INT, name INT")


def _nvprof_db(path, kernels=True, kernel_table="CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL"):
    con = sqlite3.connect(str(path))
    pk = "_id_ INTEGER PRIMARY KEY AUTOINCREMENT"
    con.execute("CREATE TABLE StringTable(%s, value TEXT NOT NULL UNIQUE)" % pk)
    con.execute("CREATE TABLE CUPTI_ACTIVITY_KIND_MARKER(%s, flags INT, timestamp INT, "
                "id INT, objectKind INT, objectId BLOB, name INT, domain INT)" % pk)
    con.execute("CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME(%s, cbid INT, start INT, end INT, "
                "processId INT, threadId INT, correlationId INT, returnValue INT)" % pk)
    if kernel_table:
        con.execute("CREATE TABLE %s(%s, %s)" % (kernel_table, pk, _KERNEL_COLS))
    strings = ["mul, seq = 3", "MulBackward, stashed seq = 3", "volta_sgemm_128x64_nn",
               "outer"]
    for s in strings:
        con.execute("INSERT INTO StringTable(value) VALUES (?)", (s,))
    obj = (7).to_bytes(4, "little") + (42).to_bytes(4, "little")

    def marker(mid, name_id, t0, t1):
        con.execute("INSERT INTO CUPTI_ACTIVITY_KIND_MARKER(flags, timestamp, id, objectKind, "
                    "objectId, name, domain) VALUES (2, ?, ?, 2, ?, ?, 0)",
                    (t0, mid, obj, name_id))
        con.execute("INSERT INTO CUPTI_ACTIVITY_KIND_MARKER(flags, timestamp, id, objectKind, "
                    "objectId, name, domain) VALUES (4, ?, ?, 2, ?, 0, 0)", (t1, mid, obj))

    marker(1, 4, 1000, 9000)             # "outer" around "mul"
    marker(2, 1, 2000, 5000)             # "mul, seq = 3"
    marker(3, 2, 10000, 14000)           # "MulBackward, stashed seq = 3"
    if kernels:
        def launch(corr, t0, t1, k0, k1, cbid=211):
            con.execute("INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME(cbid, start, end, processId, "
                        "threadId, correlationId, returnValue) VALUES (?, ?, ?, 7, 42, ?, 0)",
                        (cbid, t0, t1, corr))
            con.execute("INSERT INTO %s(sharedMemoryConfig, registersPerThread, "
                        "partitionedGlobalCacheRequested, partitionedGlobalCacheExecuted, "
                        "start, end, completed, deviceId, contextId, streamId, gridX, gridY, "
                        "gridZ, blockX, blockY, blockZ, staticSharedMemory, "
                        "dynamicSharedMemory, localMemoryPerThread, localMemoryTotal, "
                        "correlationId, gridId, name) VALUES (0, 32, 0, 0, ?, ?, ?, 0, 1, 7, "
                        "1, 1, 1, 128, 1, 1, 0, 0, 0, 0, ?, 1, 3)" % kernel_table,
                        (k0, k1, k1, corr))
        launch(1, 2500, 3000, 20000, 22500)          # in mul (and outer): 2.5 µs
        launch(2, 11000, 11500, 30000, 31000)        # in MulBackward: 1 µs
        launch(3, 12000, 12500, 40000, 40100, cbid=5)   # not a launch: ignored
    con.commit()
    con.close()
    return str(path)


def test_load_nvprof_ranges_kernels_names_and_units(tmp_path):
    events = profiler.load_nvprof(_nvprof_db(tmp_path / "a.prof"))
    assert names(events) == ["outer", "mul, seq = 3", "MulBackward, stashed seq = 3"]
    outer, mul, bwd = events
    assert (mul.time_range.start, mul.time_range.end) == (2.0, 5.0)
    assert mul.cpu_time_total == 3.0
    assert mul.cpu_parent is outer and outer.cpu_children == [mul]
    assert [(k.name, k.duration) for k in mul.kernels] == [("volta_sgemm_128x64_nn", 2.5)]
    assert [(k.name, k.duration) for k in outer.kernels] == [("volta_sgemm_128x64_nn", 2.5)]
    assert [(k.name, k.duration) for k in bwd.kernels] == [("volta_sgemm_128x64_nn", 1.0)]
    assert mul.cuda_time_total == 2.5 and outer.self_cuda_time_total == 0.0
    assert (mul.sequence_nr, mul.scope) == (3, "forward")
    assert (bwd.sequence_nr, bwd.scope) == (3, "backward")
    assert mul.thread == 42
    assert "CUDA total" in events.table()


def test_load_nvprof_plain_kernel_table_and_no_kernels(tmp_path):
    events = profiler.load_nvprof(_nvprof_db(tmp_path / "b.prof",
                                             kernel_table="CUPTI_ACTIVITY_KIND_KERNEL"))
    assert [len(e.kernels) for e in events] == [1, 1, 1]
    events = profiler.load_nvprof(_nvprof_db(tmp_path / "c.prof", kernels=False))
    assert [len(e.kernels) for e in events] == [0, 0, 0]
    assert names(events)[1] == "mul, seq = 3"
    events = profiler.load_nvprof(_nvprof_db(tmp_path / "d.prof", kernels=False,
                                             kernel_table=None))
    assert len(events) == 3


def open_bytes(path):
    with open(path, "rb") as f:
        return f.read()


def test_load_nvprof_errors(tmp_path):
    with pytest.raises(FileNotFoundError, match="load_nvprof"):
        profiler.load_nvprof(str(tmp_path / "missing.prof"))
    text = tmp_path / "text.prof"
    text.write_text("this is not a database\n" * 100)
    with pytest.raises(RuntimeError, match=r"load_nvprof\(\): .* not an nvprof SQLite file"):
        profiler.load_nvprof(str(text))
    good = _nvprof_db(tmp_path / "good.prof")
    data = open_bytes(good)
    cut = tmp_path / "truncated.prof"
    cut.write_bytes(data[:len(data) // 2])
    with pytest.raises(RuntimeError, match="load_nvprof"):
        profiler.load_nvprof(str(cut))
    other = tmp_path / "other.db"
    con = sqlite3.connect(str(other))
    con.execute("CREATE TABLE t(a)")
    con.commit()
    con.close()
    with pytest.raises(RuntimeError, match="StringTable"):
        profiler.load_nvprof(str(other))
    before = open_bytes(good)
    profiler.load_nvprof(good)
    assert open_bytes(good) == before              # opened read-only


# -- load_nvprof on crafted files (truncated, corrupt, hostile) ----------------------------------


def test_load_nvprof_opens_exactly_the_named_file_whatever_its_characters(tmp_path):
    # The path goes into an SQLite URI: '%41' would decode to 'A' and open another file,
    # '?' would start the query string and '#' a fragment.
    for odd in ("x%41.prof", "50%.prof", "a?mode=rw.prof", "b#c.prof", "sp ace%2f.prof"):
        decoy = tmp_path / odd.replace("%41", "A").replace("%2f", "/").split("?")[0] \
            .split("#")[0]
        if decoy.parent == tmp_path and decoy.name != odd:
            other = sqlite3.connect(str(decoy))
            other.execute("CREATE TABLE StringTable(_id_ INTEGER PRIMARY KEY, value TEXT)")
            other.commit()
            other.close()
        events = profiler.load_nvprof(_nvprof_db(tmp_path / odd))
        assert names(events) == ["outer", "mul, seq = 3", "MulBackward, stashed seq = 3"]


def test_load_nvprof_leaves_no_wal_or_shm_files_beside_a_wal_trace(tmp_path):
    path = _nvprof_db(tmp_path / "wal.prof")
    con = sqlite3.connect(path)
    assert con.execute("PRAGMA journal_mode=WAL").fetchone()[0] == "wal"
    con.close()
    before = sorted(os.listdir(tmp_path))
    data = open_bytes(path)
    events = profiler.load_nvprof(path)
    assert len(events) == 3 and len(events[1].kernels) == 1
    assert sorted(os.listdir(tmp_path)) == before == ["wal.prof"]
    assert open_bytes(path) == data


def _many_markers_db(path, ranges):
    """``ranges`` sequential ranges on one thread, each with one launched kernel and a
    nested child range (2 * ranges ranges, 4 * ranges marker rows)."""
    _nvprof_db(path, kernels=True)
    con = sqlite3.connect(str(path))
    obj = (7).to_bytes(4, "little") + (42).to_bytes(4, "little")
    markers, runtime, kernels = [], [], []
    for i in range(ranges):
        t = 100000 + i * 1000
        mid = 10 + 2 * i
        markers += [(2, t, mid, obj, 4), (4, t + 900, mid, obj, 0),
                    (2, t + 100, mid + 1, obj, 1), (4, t + 500, mid + 1, obj, 0)]
        runtime.append((211, t + 600, t + 700, 1000 + i))     # in the outer range only
        kernels.append((t + 650, t + 660, 1000 + i))
    con.executemany("INSERT INTO CUPTI_ACTIVITY_KIND_MARKER(flags, timestamp, id, objectKind, "
                    "objectId, name, domain) VALUES (?, ?, ?, 2, ?, ?, 0)", markers)
    con.executemany("INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME(cbid, start, end, processId, "
                    "threadId, correlationId, returnValue) VALUES (?, ?, ?, 7, 42, ?, 0)",
                    runtime)
    con.executemany("INSERT INTO CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL(start, end, deviceId, "
                    "correlationId, name) VALUES (?, ?, 0, ?, 3)", kernels)
    con.commit()
    con.close()
    return str(path)


def test_load_nvprof_matches_16k_markers_to_launches_in_well_under_a_second(tmp_path):
    import time
    path = _many_markers_db(tmp_path / "big.prof", 4000)     # 16,000 marker rows
    start = time.process_time()          # CPU time: robust to a busy machine
    events = profiler.load_nvprof(path)
    elapsed = time.process_time() - start
    assert len(events) == 3 + 8000
    outer = [e for e in events if e.id >= 10 and e.name == "outer"]
    inner = [e for e in events if e.id >= 10 and e.name == "mul, seq = 3"]
    assert len(outer) == len(inner) == 4000
    assert all(len(e.kernels) == 1 and e.kernels[0].duration == 0.01 for e in outer)
    outer_ids = {e.id for e in outer}
    assert all(e.cpu_parent.id in outer_ids and not e.kernels for e in inner)
    assert elapsed < 1.0, elapsed


def test_load_nvprof_kernel_matching_agrees_with_a_brute_force_join(tmp_path):
    # Random overlapping ranges on several threads, launches anywhere, ties included.
    rng = np.random.default_rng(0)
    path = _nvprof_db(tmp_path / "random.prof", kernels=False)
    con = sqlite3.connect(path)
    ranges = []
    for mid in range(100, 300):
        t0 = int(rng.integers(0, 60)) * 10
        t1 = t0 + int(rng.integers(0, 30)) * 10
        ranges.append((mid, t0, t1))
        obj = (7).to_bytes(4, "little") + int(rng.integers(1, 4)).to_bytes(4, "little")
        con.execute("INSERT INTO CUPTI_ACTIVITY_KIND_MARKER(flags, timestamp, id, "
                    "objectKind, objectId, name, domain) VALUES (2, ?, ?, 2, ?, 4, 0)",
                    (t0, mid, obj))
        con.execute("INSERT INTO CUPTI_ACTIVITY_KIND_MARKER(flags, timestamp, id, "
                    "objectKind, objectId, name, domain) VALUES (4, ?, ?, 2, ?, 0, 0)",
                    (t1, mid, obj))
    launches = []
    for corr in range(500, 800):
        r0 = int(rng.integers(0, 90)) * 10
        r1 = r0 + int(rng.integers(0, 3)) * 10
        launches.append((r0, r1, corr))
        con.execute("INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME(cbid, start, end, processId, "
                    "threadId, correlationId, returnValue) VALUES (211, ?, ?, 7, 1, ?, 0)",
                    (r0, r1, corr))
        con.execute("INSERT INTO CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL(start, end, "
                    "deviceId, correlationId, name) VALUES (0, ?, 0, ?, 3)", (corr, corr))
    con.commit()
    con.close()
    events = {e.id: e for e in profiler.load_nvprof(path)}
    launch_start = {corr: r0 for r0, r1, corr in launches}
    for mid, t0, t1 in ranges:
        expected = sorted(corr for r0, r1, corr in launches if t0 < r0 and r1 < t1)
        got = [round(k.duration * 1000) for k in events[mid].kernels]
        assert sorted(got) == expected, (mid, t0, t1)
        starts = [launch_start[corr] for corr in got]
        assert starts == sorted(starts)             # in launch order


def _rewrite(path, *statements):
    con = sqlite3.connect(path)
    for sql in statements:
        con.execute(sql)
    con.commit()
    con.close()
    return path


@pytest.mark.skipif(sqlite3.sqlite_version_info < (3, 31), reason="generated columns")
def test_load_nvprof_refuses_a_generated_string_column(tmp_path):
    # 20 KB on disk, 4 x 100 MB of text if the column were read.
    path = _rewrite(_nvprof_db(tmp_path / "bomb.prof"),
                    "DROP TABLE StringTable",
                    "CREATE TABLE StringTable(_id_ INTEGER PRIMARY KEY, n INT, value TEXT "
                    "GENERATED ALWAYS AS (CAST(zeroblob(n) AS TEXT)) VIRTUAL)",
                    "INSERT INTO StringTable(_id_, n) VALUES (1, 100000000), (2, 100000000), "
                    "(3, 100000000), (4, 100000000)")
    assert os.path.getsize(path) < 100_000
    with pytest.raises(RuntimeError, match=r"load_nvprof\(\): .*generated column 'value'"):
        profiler.load_nvprof(path)


def test_load_nvprof_refuses_strings_over_the_bound(tmp_path):
    long_name = "k" * ((1 << 20) + 1)
    path = _rewrite(_nvprof_db(tmp_path / "long.prof"),
                    "UPDATE StringTable SET value = '%s' WHERE _id_ = 3" % long_name)
    with pytest.raises(RuntimeError, match=r"load_nvprof\(\): .*longer than 1048576"):
        profiler.load_nvprof(path)
    path = _rewrite(_nvprof_db(tmp_path / "ok.prof"),
                    "UPDATE StringTable SET value = '%s' WHERE _id_ = 3" % long_name[:5000])
    assert profiler.load_nvprof(path)[1].kernels[0].name == long_name[:5000]


@pytest.mark.parametrize("statement,column", [
    ("UPDATE CUPTI_ACTIVITY_KIND_MARKER SET timestamp = 'soon' WHERE id = 2", "timestamp"),
    ("UPDATE CUPTI_ACTIVITY_KIND_MARKER SET name = 1.5 WHERE id = 2", "name"),
    ("UPDATE CUPTI_ACTIVITY_KIND_MARKER SET id = NULL WHERE id = 2", "id"),
    ("UPDATE StringTable SET value = x'00ff' WHERE _id_ = 1", "value"),
    ("UPDATE CUPTI_ACTIVITY_KIND_RUNTIME SET start = 'x' WHERE correlationId = 1", "start"),
    ("UPDATE CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL SET end = 2.5 WHERE correlationId = 1",
     "end"),
    ("UPDATE CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL SET name = 'volta' WHERE "
     "correlationId = 1", "name"),
    ("UPDATE CUPTI_ACTIVITY_KIND_MARKER SET objectId = 7 WHERE id = 2", "objectId"),
])
def test_load_nvprof_wrong_column_types_raise_a_clear_runtime_error(tmp_path, statement,
                                                                     column):
    path = _rewrite(_nvprof_db(tmp_path / "typed.prof"), statement)
    with pytest.raises(RuntimeError, match=r"load_nvprof\(\): .*column %s of table" % column):
        profiler.load_nvprof(path)


@pytest.mark.skipif(sqlite3.sqlite_version_info < (3, 35), reason="DROP COLUMN")
def test_load_nvprof_missing_columns_raise_a_clear_runtime_error(tmp_path):
    path = _rewrite(_nvprof_db(tmp_path / "cols.prof"),
                    "ALTER TABLE CUPTI_ACTIVITY_KIND_RUNTIME DROP COLUMN cbid")
    with pytest.raises(RuntimeError, match=r"load_nvprof\(\): .*no column\(s\) cbid"):
        profiler.load_nvprof(path)


# -- torch's test_autograd.py: test_profiler_function_event_avg, test_profiler_shapes -----


def test_profiler_function_event_avg():
    from pyad.autograd.profiler_util import FunctionEvent, FunctionEventAvg
    avg = FunctionEventAvg()
    avg.add(FunctionEvent(id=0, node_id=0, name="foo", thread=0, start_us=10, end_us=15))
    avg.add(FunctionEvent(id=1, node_id=0, name="foo", thread=0, start_us=20, end_us=30))
    avg.add(avg)
    assert avg.key == "foo"
    # aggregate stats
    assert avg.count == 4
    assert avg.cpu_time_total == 30
    assert avg.self_cpu_time_total == 30
    assert avg.device_time_total == 0
    # average stats
    assert avg.cpu_time == 7.5
    assert avg.device_time == 0


def test_function_event_avg_as_torch():
    torch = pytest.importorskip("torch")
    from torch.autograd import profiler_util as torch_util
    from pyad.autograd import profiler_util
    assert profiler.FunctionEventAvg is profiler_util.FunctionEventAvg
    assert profiler.FunctionEvent is profiler_util.FunctionEvent
    results = []
    for util in (torch_util, profiler_util):
        avg = util.FunctionEventAvg()
        avg += util.FunctionEvent(3, "bar", 1, 1, 4, input_shapes=[[2]], stack=["s"],
                                  cpu_memory_usage=8)
        avg.add(util.FunctionEvent(4, "bar", 2, 5, 11, cpu_memory_usage=4))
        results.append((avg.key, avg.count, avg.cpu_time_total, avg.self_cpu_time_total,
                        avg.cpu_time, avg.input_shapes, avg.stack, avg.cpu_memory_usage,
                        avg.node_id, avg.is_async, avg.is_remote, avg.flops,
                        avg.cpu_time_str, avg.cpu_time_total_str))
        with pytest.raises(AssertionError, match="Expected keys to match, but got baz "
                                                 "vs bar"):
            avg.add(util.FunctionEvent(5, "baz", 1, 0, 1))
        with pytest.raises(AssertionError, match="Expected other to be a FunctionEvent"):
            avg.add(object.__new__(type("Fake", (), {"key": "bar"})))
        event = util.FunctionEvent(7, "e", 9, 2, 5)
        results.append((event.input_shapes, event.stack, event.sequence_nr, event.node_id,
                        event.fwd_thread, event.count, event.key, event.cpu_time_total,
                        event.self_cpu_time_total, event.cpu_time, event.is_async,
                        event.overload_name))
    assert results[0::2][0] == results[0::2][1]
    assert results[1::2][0] == results[1::2][1]


def test_profiler_shapes():
    layer1 = pyad.nn.Linear(20, 30)
    layer2 = pyad.nn.Linear(30, 40)
    input = pyad.randn(128, 20)
    with profile(record_shapes=True) as prof:
        layer2(layer1(input))

    linear_expected_shapes = [
        [[128, 20], [30, 20], [30]],
        [[128, 30], [40, 30], [40]],
    ]
    found_indices = set()
    for event in prof.function_events:
        if event.name == "linear":                  # torch: "aten::linear"
            assert event.input_shapes in linear_expected_shapes
            found_indices.add(linear_expected_shapes.index(event.input_shapes))
    assert len(found_indices) == len(linear_expected_shapes)
    # the ops linear runs are nested inside it, as torch's
    first = [e for e in prof.function_events if e.name == "linear"][0]
    assert [c.name for c in first.cpu_children] == ["t", "matmul", "add"]
    table = prof.key_averages(group_by_input_shape=True).table()
    assert "[[128, 20], [30, 20], [30]]" in table


def test_profiler_shapes_of_functional_linear_match_torch():
    torch = pytest.importorskip("torch")
    for bias in (True, False):
        shapes = []
        for lib, F, prof_cls in ((torch, torch.nn.functional,
                                  torch.autograd.profiler.profile),
                                 (pyad, pyad.nn.functional, profile)):
            x, w = lib.ones(4, 3), lib.ones(2, 3)
            with prof_cls(record_shapes=True) as prof:
                F.linear(x, w, lib.ones(2) if bias else None)
            shapes.append([e.input_shapes for e in prof.function_events
                           if e.name in ("aten::linear", "linear")])
        assert shapes[0] == shapes[1]


def test_load_nvprof_refuses_a_virtual_table(tmp_path):
    path = _nvprof_db(tmp_path / "virtual.prof")
    con = sqlite3.connect(path)
    try:
        con.execute("DROP TABLE StringTable")
        con.execute("CREATE VIRTUAL TABLE StringTable USING fts4(_id_, value)")
    except sqlite3.OperationalError:
        pytest.skip("this SQLite has no fts4")
    con.commit()
    con.close()
    with pytest.raises(RuntimeError, match=r"load_nvprof\(\): .*StringTable is a virtual table"):
        profiler.load_nvprof(path)
