"""The engine's compact event log (pyad._engine._EventLog): events stored in C and
given back as lists; the clock is time.perf_counter_ns's and the thread ids are the
native ones. Correctness only, no timings."""
import threading
import time

import numpy as np
import pytest

import pyad
from pyad import _engine
import pyad.autograd.profiler as profiler


def _run_chain(n):
    x = pyad.Variable(np.ones(3), requires_grad=True)
    y = x
    for _ in range(n):
        y = pyad.tanh(y * 0.5)
    y.sum().backward()
    return x


def test_many_events_grow_the_log_and_keep_order_and_names():
    log = _engine._EventLog()
    t_before = time.perf_counter_ns()
    previous = _engine._set_profiler(log)
    try:
        _run_chain(400)                       # 800 ops + 802 nodes: several reallocations
    finally:
        _engine._set_profiler(previous)
    t_after = time.perf_counter_ns()
    recs = log.records
    assert len(recs) == 800 + 1 + 1 + 1 + 800 + 1   # ops, sum, root, SumBackward, nodes, acc.
    assert [r[0] for r in recs[:4]] == ["mul", "tanh", "mul", "tanh"]
    assert all(len(r) == 10 and r[6:] == [None] * 4 for r in recs)
    starts = [r[2] for r in recs]
    assert starts == sorted(starts)                       # start order
    # The clock is perf_counter_ns's: every event lies inside the window read around it.
    assert all(t_before <= r[2] <= r[3] <= t_after for r in recs)
    assert {r[1] for r in recs} == {threading.get_native_id()}
    fwd_seqs = [r[4] for r in recs if r[5] == 0 and r[0] != "sum"]
    assert fwd_seqs == sorted(fwd_seqs) and len(set(fwd_seqs)) == 800
    assert log.records == recs                            # reading twice gives the same


def test_thread_ids_are_per_thread():
    log = _engine._EventLog()
    ids = []

    def work():
        ids.append(threading.get_native_id())
        pyad.tanh(pyad.Variable(np.ones(2)))
    previous = _engine._set_profiler(log)
    try:
        threads = [threading.Thread(target=work) for _ in range(3)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        pyad.tanh(pyad.Variable(np.ones(2)))
    finally:
        _engine._set_profiler(previous)
    got = [r[1] for r in log.records]
    assert sorted(got) == sorted(ids + [threading.get_native_id()])


def test_generic_protocol_uses_indices():
    log = _engine._EventLog()
    a = log.user_begin("outer")
    b = log.op_begin("mul", (), 0)
    log.op_end(b, None, 7)
    c = log.node_begin("MulBackward", 7)
    log.node_end(c, None)
    log.user_end(a)
    recs = log.records
    assert [(r[0], r[4], r[5]) for r in recs] == [("outer", -1, 2), ("mul", 7, 0),
                                                   ("MulBackward", 7, 1)]
    assert recs[0][2] <= recs[1][2] <= recs[1][3] <= recs[2][2] <= recs[2][3] <= recs[0][3]
    with pytest.raises(IndexError):
        log.op_end(3, None, -1)
    with pytest.raises(IndexError):
        log.user_end(-1)


def test_profile_results_unchanged():
    x = pyad.Variable(np.ones(3), requires_grad=True)
    with profiler.profile() as prof:
        with profiler.record_function("block"):
            y = pyad.tanh(x * 2.0).sum()
        y.backward()
    names = [e.name for e in prof.function_events]
    assert names[:4] == ["block", "mul", "tanh", "sum"]
    assert "TanhBackward" in names and "MulBackward" in names
    block = prof.function_events[0]
    assert all(block.time_range.start <= e.time_range.start
               and e.time_range.end <= block.time_range.end
               for e in prof.function_events[1:4])
